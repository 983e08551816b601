"""The __torch_function__ probes that library code (and copies of torch's nn.functional) calls
before running an op. Mirrors torch.overrides.

minitorch has no __torch_function__ protocol: an op never hands itself to an argument's type.
So has_torch_function* are always False (the probe's answer for plain tensors and objects in
torch too), and handle_torch_function, which code reaches only when a probe said True, runs the
op as torch's default Tensor.__torch_function__ would, or raises torch's TypeError when no
argument is a tensor.

Differences from torch: a class defining __torch_function__ is not dispatched to;
get_overridable_functions and get_testing_overrides are absent.
"""

from __future__ import annotations

import functools

__all__ = [
    "get_ignored_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
]


# Kept trivial: copies of torch's F call these on every op (has_torch_function_unary(input))
def has_torch_function(relevant_args) -> bool:
    """False: no argument overrides torch functions here. Mirrors
    torch.overrides.has_torch_function."""
    return False


def has_torch_function_unary(arg) -> bool:
    """False (see has_torch_function). Mirrors torch.overrides.has_torch_function_unary."""
    return False


def has_torch_function_variadic(*args) -> bool:
    """False (see has_torch_function). Mirrors torch.overrides.has_torch_function_variadic."""
    return False


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Runs public_api(*args, **kwargs) when an argument is a tensor (what torch's default
    Tensor.__torch_function__ does), else raises torch's TypeError. Mirrors
    torch.overrides.handle_torch_function."""
    from minitorch._tensor import Tensor

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
    from minitorch._tensor import Tensor

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
