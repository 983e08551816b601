"""Autocast's per-thread state and the cast the ops' public entry points make under it.

The ops read one attribute, `state.any_enabled`, and call `call()` only when it is True: the user
API (minitorch.autocast and friends) lives in minitorch/amp and is imported on first use.
"""

from __future__ import annotations

import threading

from minitorch import _dtype
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import state as _grad_state

__all__ = [
    "state",
    "call",
    "uncast",
    "check_join",
    "LOWER",
    "LOWER_CUDA",
    "LOWER_SAME",
    "FP32",
    "FP32_CUDA",
    "FP32_BANNED_CUDA",
    "LOWER_CPU",
    "FP32_CPU",
    "PROMOTE",
    "EINSUM",
    "device_types",
]

# NOTE [ Autocast policies ]
# torch keeps one op list per device type. An entry point names its policy:
#   LOWER       cast floating inputs to the autocast dtype on every device type (matmul, conv, ...)
#   LOWER_CUDA  the same, on CUDA-like device types only (mv, addmv)
#   LOWER_SAME  LOWER when the two tensors share a dtype, else no cast: torch checks that before
#               the mm it lowers (tensordot, inner), so the op raises its own dtype error
#   FP32        cast to float32 on every device type (the losses)
#   FP32_CUDA   cast to float32 on CUDA-like device types only (softmax, layer_norm, ...)
#   FP32_BANNED_CUDA  float32 on the CPU, refused on CUDA-like device types (binary_cross_entropy)
#   LOWER_CPU   the autocast dtype on the CPU only (nn.LSTM: torch's oneDNN mkldnn_rnn)
#   FP32_CPU    float32 on the CPU only (torch's CPU float32 list: prod, cdist, linalg, 3-D pools..)
#   PROMOTE     float32 if an input is, else the autocast dtype; float64 left (index_copy)
#   EINSUM      CUDA-like: LOWER; CPU: as torch's decomposition into mul/bmm gives (_einsum_lowers)
# Composite ops (tensordot, inner, multi-head attention, the RNN cells) take the policy of the
# kernels torch decomposes them into, so their results have torch's dtypes.
# float64 inputs are never cast (as torch). While the op runs autocast is suspended, so the ops it
# is built from are not cast again (torch excludes its autocast dispatch key the same way).
LOWER, LOWER_CUDA, FP32, FP32_CUDA = "lower", "lower_cuda", "fp32", "fp32_cuda"
FP32_BANNED_CUDA = "fp32_banned_cuda"
LOWER_CPU, FP32_CPU, PROMOTE, EINSUM = "lower_cpu", "fp32_cpu", "promote", "einsum"
LOWER_SAME = "lower_same"
_BANNED = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using "
    "torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
)

# The device types autocast knows, with torch's default dtypes. 'strict' is the CuPy-like test
# device (see minitorch/_backend/strict.py): it follows CUDA's lists and default.
device_types = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16, "strict": _dtype.float16}
_CUDA_LIKE = ("cuda", "strict")


class _State(threading.local):
    # Class attributes are the per-thread defaults; __init__ runs once in each thread.
    any_enabled = False  # read by the ops on every call: True while any device type is enabled
    cache_enabled = True
    nesting = 0

    def __init__(self):
        self.enabled = dict.fromkeys(device_types, False)
        self.dtype = dict(device_types)
        # id(weight) -> (weight, its cast): a leaf float32 weight is cast once per autocast region
        self.cache = {}

    def refresh(self) -> None:
        self.any_enabled = any(self.enabled.values())


state = _State()


def _cast(x, device_type: str, dt, cache):
    if not isinstance(x, Tensor):
        if type(x) is list or type(x) is tuple:  # a tensor list (torch casts those too)
            return type(x)(_cast(v, device_type, dt, cache) for v in x)
        return x
    xdt = x.dtype
    if xdt is dt or not xdt.is_floating_point or xdt is _dtype.float64:
        return x
    if x._device.type != device_type:
        return x
    if cache is not None and xdt is _dtype.float32 and x.requires_grad and x.grad_fn is None:
        hit = cache.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        out = x.to(dt)
        cache[id(x)] = (x, out)
        return out
    return x.to(dt)


def _first_device_type(args, kwargs):
    for a in args:
        if isinstance(a, Tensor):
            return a._device.type
    for a in kwargs.values():
        if isinstance(a, Tensor):
            return a._device.type
    return None


def _prioritize(args, kwargs, device_type, low):
    """The dtype torch's promote policy casts to: starting from the autocast dtype, float32 wins
    over it and float64 tensors are passed over (left uncast); any other mix (float16 under
    bfloat16 autocast, bfloat16 under float16) is torch's error."""
    dt = low
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor) and a.dtype.is_floating_point and a._device.type == device_type:
            nxt = a.dtype
            if nxt is _dtype.float64:
                continue
            if dt is _dtype.float32 or nxt is _dtype.float32:
                dt = _dtype.float32
            elif not (dt is low and nxt is low):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return dt


def check_join(tensors) -> None:
    """torch's promote check for cat and stack (and hstack, vstack, ... built on them) on a tensor
    list, called by their entry points when `state.any_enabled`: a floating tensor other than
    float32, float64 and the autocast dtype (float16 under bfloat16 autocast, bfloat16 under
    float16) is its prioritize error. No cast is made: the join's own type promotion gives the
    dtype torch's promote cast does."""
    if tensors:
        device_type = tensors[0]._device.type
        if state.enabled.get(device_type, False):
            _prioritize(tensors, {}, device_type, state.dtype[device_type])


def _einsum_lowers(equation: str, operands, low) -> bool:
    """Whether torch's CPU einsum gives the autocast dtype: it contracts the operands left to
    right, a pair with labels summed between them through bmm (autocast: low), one without
    through mul (type promotion); a single operand is only summed or permuted."""
    eq = equation.replace(" ", "").replace("...", ".")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if not arrow:  # implicit output: the labels seen once, and the broadcast dims
        rhs = "".join(c for c in sorted(set(lhs)) if c != "," and lhs.count(c) == 1)
        rhs += "." if "." in lhs else ""
    kept = set(rhs)
    labels, dt = set(terms[0]), operands[0].dtype
    for k in range(1, len(terms)):
        later = kept.union(*terms[k + 1 :])
        b = set(terms[k])
        dt = low if (labels & b) - later else _dtype.promote_types(dt, operands[k].dtype)
        labels = (labels | b) & later
    return dt is low


def call(fn, policy: str, args: tuple, kwargs: dict | None = None):
    """fn(*args, **kwargs) with its floating tensor arguments cast as `policy` says for the device
    type of its first tensor argument (see NOTE [ Autocast policies ]), autocast suspended while
    fn runs. Called by an entry point only when `state.any_enabled`."""
    kwargs = {} if kwargs is None else kwargs
    st = state
    device_type = _first_device_type(args, kwargs)
    # torch's lists hold the functional overloads only: an op writing to out= is not cast,
    # except tensordot and inner (LOWER_SAME), whose out= kernels call the functional op
    enabled = device_type is not None and st.enabled.get(device_type, False)
    if enabled and (kwargs.get("out") is None or policy is LOWER_SAME):
        cuda_like = device_type in _CUDA_LIKE
        if policy is EINSUM:
            low = st.dtype[device_type]
            policy = LOWER if cuda_like or _einsum_lowers(args[0], args[1:], low) else None
        elif policy is LOWER_SAME:
            a, b = args[0], args[1]
            same = isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype is b.dtype
            policy = LOWER if same else None
        if (
            policy is LOWER
            or (policy is LOWER_CUDA and cuda_like)
            or (policy is LOWER_CPU and not cuda_like)
        ):
            dt = st.dtype[device_type]
        elif (
            policy is FP32
            or (policy is FP32_CUDA and cuda_like)
            or (policy is FP32_CPU and not cuda_like)
        ):
            dt = _dtype.float32
        elif policy is FP32_BANNED_CUDA:
            if device_type in _CUDA_LIKE:
                raise RuntimeError(_BANNED)
            dt = _dtype.float32
        elif policy is PROMOTE:
            dt = _prioritize(args, kwargs, device_type, st.dtype[device_type])
        else:
            dt = None
        if dt is not None:
            # Only casts recorded by autograd are cached: one made under no_grad has no grad_fn
            # and would cut the weight's gradient if reused later in the region with grad on.
            cache = st.cache if (st.cache_enabled and _grad_state.enabled) else None
            cache = cache if dt is not _dtype.float32 else None
            args = tuple(_cast(a, device_type, dt, cache) for a in args)
            kwargs = {
                k: (v if k == "out" else _cast(v, device_type, dt, cache))
                for k, v in kwargs.items()
            }
    st.any_enabled = False
    try:
        return fn(*args, **kwargs)
    finally:
        st.any_enabled = True


def uncast(fn, *args, **kwargs):
    """fn(*args, **kwargs) with autocast suspended: for the in-place ops built on an op autocast
    lists (addmm_ on addmm, ...), which torch's lists leave out."""
    st = state
    if not st.any_enabled:
        return fn(*args, **kwargs)
    st.any_enabled = False
    try:
        return fn(*args, **kwargs)
    finally:
        st.any_enabled = True
