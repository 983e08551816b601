"""The recorded graph as an API: its Node class, gradient edges, version bumps, hooks on saved
tensors and on several tensors' gradients. Mirrors torch.autograd.graph."""

from __future__ import annotations

import contextlib
import weakref

from minitorch._tensor import Tensor
from minitorch.autograd.function import (
    AccumulateGrad,
    Node,
    _edge,
    pause_fast_path,
    raise_pack_modified,
)
from minitorch.autograd.grad_mode import state

__all__ = [
    "Node",
    "GradientEdge",
    "get_gradient_edge",
    "increment_version",
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "allow_mutation_on_saved_tensors",
]


class GradientEdge(tuple):
    """An input of a node: (node, output_nr). Accepted where a tensor names a gradient: as an
    input of autograd.grad and backward (the gradient flowing into that node), as an output of
    autograd.grad (with its grad_output). Mirrors torch.autograd.graph.GradientEdge.

    Differences from torch: a tuple of two (torch's named tuple has a third field,
    ownership_token, here a property that is None), which imports faster than
    typing.NamedTuple and serves the engine as its edge key."""

    __slots__ = ()

    def __new__(cls, node: Node, output_nr: int):
        return tuple.__new__(cls, (node, output_nr))

    @property
    def node(self) -> Node:
        return self[0]

    @property
    def output_nr(self) -> int:
        return self[1]

    @property
    def ownership_token(self) -> None:
        """torch's third field (an owner for edges of compiled graphs); always None here."""
        return None

    def __repr__(self) -> str:
        return f"GradientEdge(node={self[0]!r}, output_nr={self[1]}, ownership_token=None)"


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge through which tensor's gradient flows: its grad_fn (and output number), or its
    AccumulateGrad node for a leaf. Mirrors torch.autograd.graph.get_gradient_edge."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, nr = _edge(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor) -> None:
    """Bumps the version counter of tensor (or of each tensor of an iterable), as an in-place
    change would: a backward that saved it then refuses to run. Mirrors
    torch.autograd.graph.increment_version."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    for t in tensors:
        if t._vc.__class__ is list:  # an inference tensor has no counter: torch's no-op
            t._vc[0] += 1


class saved_tensors_hooks:  # noqa: N801 - torch's name
    """A region where every tensor a recorded op saves for backward is stored as
    pack_hook(tensor) and read back as unpack_hook(packed). Only the innermost region's hooks
    apply. Mirrors torch.autograd.graph.saved_tensors_hooks.

    See NOTE [ Saved tensor hooks ] (minitorch/autograd/function.py). Differences from torch:
    arrays some built-in ops keep on their node besides saved tensors (masks, indices) are not
    passed through the hooks.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if not (callable(self.pack_hook) and callable(self.unpack_hook)):
            raise TypeError(  # torch's binding refuses them before its disabled check
                "_push_saved_tensors_default_hooks(): incompatible function arguments. The "
                "following argument types are supported:\n    1. (arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {self.pack_hook!r}, {self.unpack_hook!r}"
            )
        if state.saved_hooks_disabled is not None:
            raise RuntimeError(state.saved_hooks_disabled)
        pushed = _PushedHooks((self.pack_hook, self.unpack_hook))
        pushed.prev = state.saved_hooks
        # the recorded fast paths pass no saved tensor through hooks: NOTE [ The recorded fast
        # path ] in minitorch/autograd/function.py
        pause_fast_path(True)
        state.saved_hooks = pushed  # returns None, as torch's

    def __exit__(self, *exc):
        state.saved_hooks = state.saved_hooks.prev  # torch's pop: one object may nest in itself
        pause_fast_path(False)
        return False


class _PushedHooks(tuple):
    """state.saved_hooks: the (pack, unpack) pair in force, and in `prev` the one it hides (the
    stack torch keeps per thread)."""


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - torch's name
    """Saved tensors kept on the CPU and moved back to their device when backward needs them.
    Mirrors torch.autograd.graph.save_on_cpu."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack(tensor):
            # detach: the copy holds data only (an output kept with its node would be a cycle)
            packed = tensor.detach().cpu()
            if pin_memory:
                packed = packed.clone() if packed._data is tensor._data else packed
                if tensor.device.type != "cpu":
                    packed = packed.pin_memory()
            return tensor.device, packed

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """A region where entering saved_tensors_hooks raises RuntimeError(error_message); also a
    decorator. Mirrors torch.autograd.graph.disable_saved_tensors_hooks (a generator context
    manager there too: one object is entered once)."""
    prev = state.saved_hooks_disabled
    try:
        if state.saved_hooks is not None:  # torch refuses to disable hooks already in force
            raise RuntimeError(error_message)
        state.saved_hooks_disabled = error_message
        yield
    finally:
        state.saved_hooks_disabled = prev


_mutation_allowed = False  # inside allow_mutation_on_saved_tensors (torch's flag is global too)


class _SavedCopy:
    """The packed form of a tensor saved under allow_mutation_on_saved_tensors."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """What allow_mutation_on_saved_tensors yields: the copies its graphs saved (`cloned`,
    emptied when the region ends)."""

    def __init__(self) -> None:
        self.cloned = weakref.WeakKeyDictionary()  # _SavedCopy -> Tensor, while the node lives

    def clear(self) -> None:
        self.cloned.clear()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """A region where tensors saved for backward may be modified in place: backward uses the
    values they had when saved. Run both forward and backward inside it. Mirrors
    torch.autograd.graph.allow_mutation_on_saved_tensors.

    Differences from torch: every saved tensor is copied when it is saved (torch copies one only
    when it is about to be modified), so the region costs memory even without mutations.
    """
    global _mutation_allowed
    if _mutation_allowed:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()

    def pack(tensor):
        handle = _SavedCopy()
        ctx.cloned[handle] = tensor.detach().clone()
        return handle

    def unpack(handle):
        if not _mutation_allowed or handle not in ctx.cloned:
            raise AssertionError(
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
                "in which the graph was originally recorded."
            )
        return ctx.cloned[handle]

    with saved_tensors_hooks(pack, unpack):
        _mutation_allowed = True
        try:
            yield ctx
        finally:
            ctx.clear()
            _mutation_allowed = False


class _MultiHandle:
    """Removes the per-tensor hooks of one register_multi_grad_hook call."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """In each backward: mode 'all' calls fn(grads) once the gradients of all `tensors` that the
    backward reaches are computed (None for the others); mode 'any' calls fn(grad) with the first
    of them computed. Returns a handle whose remove() unregisters fn.
    Mirrors torch.autograd.graph.register_multi_grad_hook."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":  # as torch's: the tensors that require no grad get no hook
        tensors = tuple(t for t in tensors if t.requires_grad)
    for t in tensors:
        if not t.requires_grad:
            # (torch: AssertionError "Expected gradient function to be set"; an existing test,
            # tests/autograd/test_saved_tensor_hooks.py, pins this RuntimeError)
            raise RuntimeError(
                "register_multi_grad_hook: every tensor must require grad (a tensor that does not "
                "gets no gradient to wait for)"
            )
    # Per backward (keyed weakly by the engine's running task): the gradients seen so far.
    seen = weakref.WeakKeyDictionary()

    def on_grad(i):
        def hook(grad):
            task = state.graph_task
            entry = seen.get(task)
            if mode == "any":
                if entry is None:
                    seen[task] = True
                    fn(grad)
                return None
            if entry is None:
                nodes = [_edge(t)[0] for t in tensors]
                if task.capture is not None and any(  # torch: a leaf that autograd.grad reads
                    n.__class__ is AccumulateGrad and (n, 0) in task.targets for n in nodes
                ):
                    raise RuntimeError(
                        "A leaf node was passed to _will_engine_execute_node but we are currently "
                        "running autograd.grad(). This is currently not supported."
                    )
                expected = sum(1 for node in nodes if task.will_execute(node))
                entry = seen[task] = [expected, [None] * len(tensors)]
            entry[1][i] = grad
            entry[0] -= 1
            if entry[0] == 0:
                fn(tuple(entry[1]))
            return None

        return hook

    return _MultiHandle([t.register_hook(on_grad(i)) for i, t in enumerate(tensors)])


class SavedTensor:
    """One tensor a built-in node saved, as grad_fn._raw_saved_<name> gives it (the same object
    each time). Mirrors torch._C._autograd.SavedTensor.

    register_hooks(pack, unpack) replaces what the node keeps by pack(the tensor's data) at
    once; the node's backward (and _saved_<name>) then reads unpack(that object), given back
    the saved tensor's place in the graph as under saved_tensors_hooks. One pair per tensor, and
    none once the graph is freed."""

    __slots__ = ("_node", "_index")

    def __init__(self, node, index):
        self._node = node
        self._index = index

    def register_hooks(self, *hooks):
        from minitorch.autograd.function import _FREED, _accumulator

        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            given = ", ".join([repr(self)] + [repr(h) for h in hooks])
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument types "
                "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {given}"
            )
        pack, unpack = hooks
        node = self._node
        if node._saved is _FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        entries = list(node._saved)
        entry = entries[self._index]
        if entry[0] == "hook":
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        t = node._unpack(entry)  # as the node reads it (a version check included)
        nr = entry[4]
        if entry[0] in ("out", "view_out"):
            place = None  # the node's output: re-attached to the node at unpack
        else:
            leaf = t._grad_fn is None and t._requires_grad
            place = (t._grad_fn, t._output_nr, t._requires_grad, _accumulator(t) if leaf else None)
        prev = state.enabled
        state.enabled = False
        t = t.detach()
        version = t._vc[0]
        try:
            obj = pack(t)
        finally:
            state.enabled = prev
        if t._vc[0] != version:
            raise_pack_modified()
        entries[self._index] = ("hook", obj, unpack, place, nr)
        node._saved = tuple(entries)
