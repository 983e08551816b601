"""nn.utils.prune: mask-based pruning of module tensors through forward pre-hooks."""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

import minitorch
from minitorch._tensor import Tensor
from minitorch.nn.modules.module import Module
from minitorch.nn.utils.convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]

# NOTE [ Pruning layout ]
# Pruning tensor `name` of a module moves the parameter to `name + "_orig"` (appended to
# _parameters), registers the buffer `name + "_mask"` and stores `module.name = mask * orig` as a
# plain attribute; the pruning method itself is the forward pre-hook that recomputes it. Pruning
# the same tensor again folds the old and new methods into one PruningContainer hook, whose mask
# only prunes what the previous mask kept. remove() turns `name` back into a Parameter holding
# the pruned values.


class BasePruningMethod(ABC):
    """The base of pruning methods: subclasses define PRUNING_TYPE ("unstructured",
    "structured" or "global") and compute_mask. Mirrors torch.nn.utils.prune.BasePruningMethod."""

    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for t (same shape), given the mask from earlier pruning."""

    def apply_mask(self, module: Module) -> Tensor:
        """The pruned tensor: `<name>_mask * <name>_orig` of module."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Module, name: str, *args, importance_scores=None, **kwargs):
        """Prunes module.<name> with cls(*args, **kwargs) (combined with earlier pruning of the
        same tensor) and returns the hook installed; see NOTE [ Pruning layout ]."""
        method = _combined_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = minitorch.ones_like(orig)
        else:
            previous = getattr(module, name + "_mask")
            default_mask = previous.detach().clone(memory_format=minitorch.contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:
                # Put the parameter back (at the end of _parameters, as torch does).
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(
        self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None
    ) -> Tensor:
        """t with this method's mask applied (t * mask); importance_scores, when given, decide
        the mask instead of t."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        if default_mask is None:
            default_mask = minitorch.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Makes the pruning permanent: `<name>` becomes a Parameter again holding the pruned
        values; `<name>_orig` and `<name>_mask` are dropped (the caller drops the hook)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = pruned.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _combined_method(cls, module: Module, name: str, *args, **kwargs) -> BasePruningMethod:
    """A new cls(*args, **kwargs) for `name`, folded into a PruningContainer with the pruning
    hook already on that tensor (which is taken off module; apply registers the result)."""
    old_keys = [
        key
        for key, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(old_keys) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    old = module._forward_pre_hooks[old_keys[0]] if old_keys else None
    for key in old_keys:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    container = PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods applied to one tensor in turn (iterative pruning); its mask
    is the last method's, computed only over what the previous mask kept. Mirrors
    torch.nn.utils.prune.PruningContainer.

    Differences from torch: several methods passed at once take the first one's tensor name
    (torch raises AttributeError there)."""

    def __init__(self, *args: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if args:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        """Appends method (which must act on this container's tensor name)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. "
                f"Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """default_mask with the last method applied to the part of t it still keeps: the
        entries equal to 1 (unstructured), the channels along `dim` with any nonzero entry
        (structured), or all of t (global)."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            where = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            others = [d for d in range(ndim) if d != dim]
            keep = default_mask.sum(dim=others) != 0
            where = tuple(keep if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            where = tuple(slice(None) for _ in range(len(t.shape)))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        new_mask[where] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones). Mirrors torch.nn.utils.prune.Identity."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Module, name: str):
        """Adds the identity pruning hook to module.<name>."""
        return super().apply(module, name)


def _zero_extremes(default_mask: Tensor, scores, amount, largest: bool) -> Tensor:
    """default_mask with the `amount` entries of largest (or smallest) scores() set to 0: the
    unstructured methods' mask (scores drawn only when something is pruned)."""
    size = default_mask.nelement()
    n_prune = _amount_to_count(amount, size)
    _check_count(n_prune, size)
    mask = default_mask.clone(memory_format=minitorch.contiguous_format)
    if n_prune != 0:
        scores_ = scores().reshape(-1)  # (drawn before k is checked, as torch's)
        chosen = minitorch.topk(scores_, k=_count_arg(n_prune, "topk"), largest=largest).indices
        mask.view(-1)[chosen] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` (a count, or a fraction in [0, 1]) of the still-unpruned entries, chosen
    uniformly at random. Mirrors torch.nn.utils.prune.RandomUnstructured
    (the same draws: a seed gives torch's mask)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _zero_extremes(default_mask, lambda: minitorch.rand_like(t), self.amount, True)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float):
        """Adds random unstructured pruning of module.<name>."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` (a count, or a fraction in [0, 1]) still-unpruned entries of least
    absolute value. Mirrors torch.nn.utils.prune.L1Unstructured.

    Differences from torch: among tied magnitudes the lowest flat indices are pruned first
    (minitorch's stable topk); torch's CPU topk picks tied entries in an
    implementation-defined order."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _zero_extremes(default_mask, lambda: t.detach().abs(), self.amount, False)

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float, importance_scores=None):
        """Adds L1 unstructured pruning of module.<name> (scored by importance_scores when
        given)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen uniformly at random. Mirrors
    torch.nn.utils.prune.RandomStructured (the same draws: a seed gives torch's mask)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t)
        _check_dim(t, self.dim)
        channels = t.shape[self.dim]
        n_prune = _amount_to_count(self.amount, channels)
        _check_count(n_prune, channels)
        if n_prune == 0:
            return default_mask
        scores = minitorch.rand(channels, device=t.device)
        threshold = minitorch.kthvalue(scores, k=_count_arg(n_prune, "kthvalue")).values
        mask = _channel_mask(t, self.dim, scores > threshold)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module: Module, name: str, amount: int | float, dim: int = -1):
        """Adds random structured pruning of module.<name> along dim."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of least L`n` norm (n as torch.norm's p).
    Mirrors torch.nn.utils.prune.LnStructured.

    Differences from torch: among tied norms the lowest channel indices are pruned first
    (minitorch's stable topk); torch's order on ties is implementation-defined."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t)
        _check_dim(t, self.dim)
        channels = t.shape[self.dim]
        n_prune = _amount_to_count(self.amount, channels)
        _check_count(n_prune, channels)
        norms = _norm_except(t.detach(), self.n, self.dim)
        kept = minitorch.topk(norms, k=channels - n_prune, largest=True).indices
        if n_prune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, kept)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(
        cls, module: Module, name: str, amount: int | float, n, dim: int, importance_scores=None
    ):
        """Adds Ln structured pruning of module.<name> along dim (scored by importance_scores
        when given)."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes with a given mask (combined with any earlier mask). Mirrors
    torch.nn.utils.prune.CustomFromMask."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Module, name: str, mask: Tensor):
        """Adds pruning of module.<name> by mask."""
        return super().apply(module, name, mask=mask)


def identity(module: Module, name: str) -> Module:
    """Adds an all-ones mask to module.<name> (pruning nothing) and returns module. Mirrors
    torch.nn.utils.prune.identity."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prunes `amount` random entries of module.<name> and returns module. Mirrors
    torch.nn.utils.prune.random_unstructured."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: int | float, importance_scores: Tensor | None = None
) -> Module:
    """Prunes the `amount` entries of module.<name> of least absolute value (of
    importance_scores when given) and returns module. Mirrors
    torch.nn.utils.prune.l1_unstructured (see L1Unstructured for ties)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prunes `amount` random channels of module.<name> along dim and returns module. Mirrors
    torch.nn.utils.prune.random_structured."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module,
    name: str,
    amount: int | float,
    n,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Module:
    """Prunes the `amount` channels of module.<name> along dim of least Ln norm and returns
    module. Mirrors torch.nn.utils.prune.ln_structured (see LnStructured for ties)."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prunes the (module, name) pairs of `parameters` together: pruning_method (an
    unstructured method class, built with kwargs) ranks all their entries at once, then each
    tensor gets its slice of the mask through custom_from_mask. Mirrors
    torch.nn.utils.prune.global_unstructured.

    Differences from torch: `parameters` may be a one-shot iterator (torch walks it three
    times, so a generator fails there)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    # A generator can only be walked once: keep the pairs (torch walks it three times).
    parameters = list(parameters)
    scores = parameters_to_vector(
        [importance_scores.get((m, n), getattr(m, n)) for m, n in parameters]
    )
    previous = parameters_to_vector(
        [getattr(m, n + "_mask", minitorch.ones_like(getattr(m, n))) for m, n in parameters]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, previous)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        count = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + count].view_as(param))
        start += count


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prunes module.<name> by mask (zeros are pruned) and returns module. Mirrors
    torch.nn.utils.prune.custom_from_mask."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Module, name: str) -> Module:
    """Makes the pruning of module.<name> permanent: it becomes a plain Parameter holding the
    pruned values, and `<name>_orig`, `<name>_mask` and the hook are removed. Mirrors
    torch.nn.utils.prune.remove."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether module or any submodule carries a pruning hook. Mirrors
    torch.nn.utils.prune.is_pruned."""
    for sub in module.modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


# --- validation and helpers ---


def _check_amount(amount) -> None:
    """Type and range of `amount` when a method is built: int >= 0 or float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _check_count(amount, size: int) -> None:
    """An integer amount may not exceed the number of entries (or channels) it prunes among."""
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )


def _count_arg(n: int, op: str) -> int:
    """n, as the k of op (topk or kthvalue). torch's pruning passes k by keyword, so a bool
    amount (an Integral, let through by the amount checks) fails there in the keyword wording,
    which the argument-error path cannot tell from here."""
    if n.__class__ is bool:
        raise TypeError(f"{op}(): argument 'k' must be int, not bool")
    return n


def _amount_to_count(amount, size: int) -> int:
    """How many entries `amount` prunes out of size (fractions round half to even, as round)."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * size)


def _check_structured(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _check_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _norm_except(t: Tensor, n, dim: int) -> Tensor:
    """The n-norm of each channel of t along dim (over all the other dims)."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return minitorch.norm(t, p=n, dim=dims)


def _channel_mask(t: Tensor, dim: int, channels: Tensor) -> Tensor:
    """Zeros shaped like t with ones on the given channels along dim (a bool mask or indices)."""
    mask = minitorch.zeros_like(t)
    where = tuple(channels if d == dim % t.dim() else slice(None) for d in range(t.dim()))
    mask[where] = 1
    return mask
