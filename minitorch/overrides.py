"""The __torch_function__ probes that library code (and copies of torch's nn.functional) calls
before running an op. Mirrors torch.overrides.

Tensor subclasses take part as in torch (NOTE [ Tensor subclasses ] in minitorch/_subclass.py):
the probes say True for an argument of a subclass that dispatches (not for plain tensors or
nn.Parameter), and handle_torch_function hands the call to the arguments' __torch_function__
(the default one runs the op and returns the most derived subclass).

Differences from torch: a subclass's own __torch_function__ is called for its Tensor methods,
operators and tensor-valued properties (T, mT, H, mH, real, imag, data, grad; other attributes
are read directly), for handle_torch_function, autograd.grad, the torch.*_like factories and
custom autograd Functions; a torch.* or F.* function reaching a built-in op with such an
argument raises a TypeError instead (it has no public function to hand over). Non-Tensor
classes defining __torch_function__ are not dispatched to. get_overridable_functions and
get_testing_overrides are absent.
"""

from __future__ import annotations

import functools

from minitorch._subclass import dispatch, dispatching, overloaded_types
from minitorch._tensor import Tensor

__all__ = [
    "get_ignored_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
]


# Kept cheap: copies of torch's F call these on every op (has_torch_function_unary(input))
def has_torch_function(relevant_args) -> bool:
    """Whether an argument is of a Tensor subclass that dispatches. Mirrors
    torch.overrides.has_torch_function."""
    return any(dispatching(a) for a in relevant_args)


def has_torch_function_unary(arg) -> bool:
    """has_torch_function((arg,)). Mirrors torch.overrides.has_torch_function_unary."""
    return dispatching(arg)


def has_torch_function_variadic(*args) -> bool:
    """has_torch_function(args). Mirrors torch.overrides.has_torch_function_variadic."""
    return any(dispatching(a) for a in args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Hands public_api(*args, **kwargs) to the __torch_function__ of the subclasses among
    relevant_args; runs it as the default would when there are none but a tensor is there,
    else raises torch's TypeError. Mirrors torch.overrides.handle_torch_function."""
    types = overloaded_types(tuple(relevant_args))
    if types:
        return dispatch(public_api, types, args, kwargs)
    if any(isinstance(a, Tensor) for a in relevant_args):
        return public_api(*args, **kwargs)
    module = getattr(public_api, "__module__", None)
    qualname = getattr(public_api, "__qualname__", None) or getattr(public_api, "__name__", "")
    name = f"{module}.{qualname}" if module else qualname
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: []"
    )


def is_tensor_like(inp) -> bool:
    """Whether inp is a tensor, a Tensor subclass, or defines __torch_function__. Mirrors
    torch.overrides.is_tensor_like."""
    if isinstance(inp, Tensor):
        return True
    if isinstance(inp, type) and issubclass(inp, Tensor):
        return True  # torch: the class has __torch_function__ too
    return hasattr(inp, "__torch_function__")


# torch's functions that take no tensor to dispatch on (factories, global state): the subset
# minitorch has
_IGNORED = """
    is_tensor is_storage set_default_tensor_type set_flush_denormal set_num_threads
    set_num_interop_threads get_num_threads get_num_interop_threads from_numpy as_tensor tensor
    zeros ones empty full arange range eye rand randn randint randperm linspace logspace
    tril_indices triu_indices hann_window hamming_window bartlett_window blackman_window
    kaiser_window frombuffer use_deterministic_algorithms are_deterministic_algorithms_enabled
    typename is_grad_enabled set_grad_enabled save load manual_seed seed initial_seed
    get_rng_state set_rng_state get_default_dtype set_printoptions is_anomaly_enabled
    set_anomaly_enabled result_type can_cast promote_types get_default_device set_default_device
""".split()


@functools.cache
def get_ignored_functions() -> set:
    """The torch functions that cannot be overridden by __torch_function__ (they take no tensor
    to dispatch on). Mirrors torch.overrides.get_ignored_functions."""
    import minitorch
    from minitorch.nn import functional as F

    found = {getattr(minitorch, n, None) for n in _IGNORED}
    found |= {
        F.has_torch_function,
        F.has_torch_function_unary,
        F.has_torch_function_variadic,
        F.handle_torch_function,
    }
    found.discard(None)
    return found
