"""nn.utils.stateless: functional_call runs a module with given tensors in place of its state."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence
from typing import Any

from minitorch._tensor import Tensor
from minitorch.nn.modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()  # the attribute did not exist before the swap


def _submodule(root: Module, path: str, memo: dict) -> Module:
    """The submodule at a dotted path, with torch's errors for a missing or non-module step."""
    if not path:
        return root
    if path in memo:
        return memo[path]
    prefix, _, attr = path.rpartition(".")
    parent = _submodule(root, prefix, memo)
    try:
        sub = getattr(parent, attr)
    except AttributeError as e:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from e
    if not isinstance(sub, Module):
        raise TypeError(f"submodule `{path}`: {sub} is not an instance of torch.nn.Module")
    memo[path] = sub
    return sub


def _swap(module: Module, name: str, value) -> Any:
    """Puts `value` (or removes the attribute for _MISSING) at `name`; returns what was there.
    A parameter or buffer slot takes the tensor as is (no Parameter wrapping), as torch does."""
    if not name:  # a key "" or "sub." (a prefix stripped too far): torch's KeyError
        raise KeyError('tensor name can\'t be empty string ""')
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for registry in (module._parameters, module._buffers):
        if name in registry:
            old = registry[name]
            if value is _MISSING:
                del registry[name]
            else:
                registry[name] = value
            return old
    old = getattr(module, name, _MISSING)
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(module, name, value)
    elif hasattr(module, name):
        delattr(module, name)
    return old


def _swap_all(module: Module, named: dict, memo: dict) -> dict:
    """Swaps every entry in; on an error, swaps back what was already swapped and re-raises."""
    originals: dict = {}
    try:
        for name, value in named.items():
            prefix, _, attr = name.rpartition(".")
            originals[name] = _swap(_submodule(module, prefix, memo), attr, value)
    except Exception:
        _restore(module, originals, memo)
        raise
    return originals


def _restore(module: Module, originals: dict, memo: dict) -> dict:
    """Puts the originals back; returns the values found in their place."""
    found = {}
    for name, value in originals.items():
        prefix, _, attr = name.rpartition(".")
        found[name] = _swap(_submodule(module, prefix, memo), attr, value)
    return found


def _all_named_tensors(module: Module) -> dict:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(module: Module, given: dict) -> dict:
    """Extends `given` to every name tied to a given name (the same tensor registered twice);
    ValueError when different values are given for names of one tied tensor."""
    names_of: dict[int, list[str]] = {}
    for name, t in _all_named_tensors(module).items():
        names_of.setdefault(id(t), []).append(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    out = dict(given)
    for name in given:
        if name not in tied:
            continue
        group = tied[name]
        values = {id(given[n]) for n in group if n in given}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                "Consider using tie_weights=False"
            )
        for n in group:
            out[n] = given[name]
    return out


def _check_keys(module: Module, named: dict) -> None:
    valid = set(_all_named_tensors(module))
    missing = sorted(valid - set(named))
    unexpected = sorted(set(named) - valid)
    msgs = []
    if unexpected:
        msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if msgs:
        raise RuntimeError(
            f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs)
        )


@contextlib.contextmanager
def _reparametrize_module(
    module: Module, parameters_and_buffers: dict, tie_weights: bool = False, strict: bool = False
):
    """Within the block, `module` sees the given tensors at the given dotted names."""
    named = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_keys(module, named)
    memo: dict = {}
    originals = _swap_all(module, named, memo)
    try:
        yield
    finally:
        found = _restore(module, originals, memo)
        # A module that reassigned its own state (`self.count = self.count + 1`) leaves the new
        # value in the caller's dict, as torch does.
        for k in parameters_and_buffers:
            if k in found and found[k] is not _MISSING:
                parameters_and_buffers[k] = found[k]


def _merge_dicts(dicts) -> dict:
    if isinstance(dicts, dict):
        return dicts
    if isinstance(dicts, Sequence):  # a str too, as torch's: its characters are not dicts
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                "ambiguous"
            )
        return {k: v for d in dicts for k, v in d.items()}
    raise ValueError(
        "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
        f"{type(dicts)}"
    )


def _functional_call(
    module: Module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Mirrors torch.func.functional_call (minitorch.func re-exports it)."""
    named = _merge_dicts(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, named, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


def functional_call(
    module: Module,
    parameters_and_buffers,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Calls `module(*args, **kwargs)` with the given tensors in place of the parameters and
    buffers of those (dotted) names, restoring the originals afterwards, even on an exception.
    Mirrors torch.nn.utils.stateless.functional_call (deprecated there: it warns FutureWarning).

    Differences from torch: a list/tuple of dicts is accepted as in torch.func.functional_call.
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead "
        "which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
