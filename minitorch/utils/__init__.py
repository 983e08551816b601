"""minitorch.utils: data loading (utils.data), hook handles (utils.hooks), DLPack; activation
checkpointing (utils.checkpoint) and TensorBoard logging (utils.tensorboard) are loaded on first
use. Mirrors torch.utils."""

from __future__ import annotations

import weakref

from minitorch.utils import data, dlpack, hooks  # noqa: F401

_LAZY_MODULES = ("checkpoint", "benchmark", "_pytree", "deterministic", "tensorboard", "weak")


def _slot_names(cls) -> set:
    """The instance slots a class and its bases declare (what __class__ assignment must match)."""
    names = set()
    for c in cls.__mro__:
        slots = c.__dict__.get("__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    return names - {"__dict__", "__weakref__"}


def _poisoned(grad_outputs):
    raise RuntimeError(
        "Trying to execute AccumulateGrad node that was poisoned by swap_tensors: backward ran "
        "through a graph recorded before its leaf was swapped. Swap tensors (or change a "
        "module's device or dtype with swapping on) before the forward or after the backward."
    )


def swap_tensors(t1, t2) -> None:
    """Swaps the contents of t1 and t2 in place: data, shape, dtype, device, autograd state,
    .grad, hooks, class and Python attributes; each object keeps its identity. Mirrors
    torch.utils.swap_tensors.

    Differences from torch: torch also refuses a tensor that other tensors still reference (its
    views, tensors a graph saved); minitorch cannot count those references, and they keep
    pointing at the swapped object.
    """
    # A leaf's AccumulateGrad holds it weakly (NOTE [ Leaf accumulators ]); that reference is
    # minitorch's own, where torch's node holds the tensor's storage instead, so it is not the
    # user's weak reference that torch refuses.
    accs = [t.__dict__.get("_grad_acc") for t in (t1, t2)]
    for name, t, acc in (("t1", t1, accs[0]), ("t2", t2, accs[1])):
        own = None if acc is None else acc._variable
        if any(r is not own for r in weakref.getweakrefs(t)):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    slots = _slot_names(type(t1))
    if slots != _slot_names(type(t2)):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    # A graph recorded before the swap would accumulate into the object now holding the other
    # tensor: as torch does, its accumulator raises if it runs, and each tensor gets a new one.
    for t, acc in zip((t1, t2), accs, strict=True):
        if acc is not None:
            acc.register_prehook(_poisoned)
            del t.__dict__["_grad_acc"]
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    missing = object()
    for name in slots:
        v1, v2 = getattr(t1, name, missing), getattr(t2, name, missing)
        for t, v in ((t1, v2), (t2, v1)):
            if v is missing:
                if hasattr(t, name):
                    delattr(t, name)
            else:
                setattr(t, name, v)


def __getattr__(name):
    if name in _LAZY_MODULES:
        import importlib

        return importlib.import_module(f"minitorch.utils.{name}")
    raise AttributeError(f"module 'minitorch.utils' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES))
