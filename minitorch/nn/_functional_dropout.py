"""nn.functional dropout: dropout, dropout1d/2d/3d (whole channels), alpha_dropout and
feature_alpha_dropout (for SELU networks).

Masks are drawn on the input's device by bernoulli_ from minitorch's generator: no value is read
back to the host, and on the CPU they are torch's masks after the same `manual_seed`.
"""

from __future__ import annotations

import warnings

from minitorch import _dtype
from minitorch._backend import cpu
from minitorch._backend import torch_stream as _ts
from minitorch._ops._common import not_tensor, type_name
from minitorch._tensor import Tensor
from minitorch.autograd.function import fast_path, plain_result
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn import _argcheck as _arg
from minitorch.random import _stream

__all__ = [
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
]  # fmt: skip

# -SELU's saturation value (scale * alpha): where alpha dropout sends dropped units
_ALPHA = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _nan_p() -> RuntimeError:
    """torch's kernel's refusal of a NaN p (which passes the Python wrappers' range check)."""
    return RuntimeError("dropout probability has to be between 0 and 1, but got nan")


def _as_double(p) -> float:
    """p as torch's dropout kernels read it, a C++ double: a float32 p (np.float32(0.3), a
    0-d tensor) keeps its float32 value, and the mask and the scale 1 / (1 - p) are drawn and
    computed from a number, never from a tensor (a tensor p reads the device, as in torch)."""
    return float(p)


def _mask_shape(input: Tensor, feature: bool) -> tuple:
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return tuple(input.shape)


def _keep_mask(input: Tensor, p: float, feature: bool) -> Tensor:
    """1 where an element (or, with `feature`, a whole channel) is kept, with probability 1 - p;
    in input's dtype, shaped to broadcast against it."""
    shape = _mask_shape(input, feature)
    from minitorch._factories import empty_like, zeros
    from minitorch._ops.random_ops import bernoulli_

    # torch: bernoulli_(1 - p) of an empty tensor: empty_like(input) (its strides: a transposed
    # input's mask is drawn in memory order) or, for a feature mask, a new contiguous one
    if feature:
        noise = zeros(shape, dtype=input.dtype, device=input.device)
    else:
        noise = empty_like(input)
    return bernoulli_(noise, 1 - p)


# NOTE [ dropout's plain mask ]
# dropout of a plain float32/float64 CPU tensor laid out in row-major order (not a feature
# dropout, no profile open) skips _keep_mask's tensors: the general route's empty_like,
# bernoulli_(1 - p) (which draws the stream's hits in row-major order for a contiguous tensor)
# and `mask / (1 - p)` (div's no-grad fast path on the arrays) are computed on the arrays
# with the same stream function and arithmetic, so the scaled mask and the generator's state
# are the same; without a node to record (not in place, input not requiring grad or grad mode
# off) the product is input * factor's no-grad fast path too. Anything else takes the general
# route (the tests' reference: under the profiler, fast_path[0] is False).


# NOTE [ dropout's scale ]
# torch scales its mask in place, noise.div_(1 - p): in the mask's dtype, so a float32 mask holds
# float32(1) / float32(1 - p), which for p = 0.45 or 0.15 is one ulp from float32(1 / (1 - p))
# (the scale computed in double, then rounded), the factor minitorch multiplied by before
# session 45. Dividing the mask tensor by the number is torch's arithmetic for every dtype (a
# half mask divides in float32 and rounds once, as torch's div).


def _plain_keep_factor(data, p: float):
    """The array of _keep_mask(input, p, False) / (1 - p) for input's array `data` (NOTE
    [ dropout's plain mask ]), or None where the CPU generator has no torch stream."""
    s = _stream(cpu, None, "bernoulli_")
    if s is None:
        return None
    hits = _ts.bernoulli_scalar(s, data.size, 1 - p).reshape(data.shape)
    return s.wrap(hits.astype(data.dtype)) / (1 - p)  # NOTE [ dropout's scale ]


def _multiply(input: Tensor, factor: Tensor, inplace: bool) -> Tensor:
    return input.mul_(factor) if inplace else input * factor


def _not_bool_train(training, op: str, inplace: bool) -> TypeError:
    """torch's TypeError for a `training` that is not a bool (its aten ops call it `train`)."""
    name = op + "_" if inplace else op
    return TypeError(
        f"{name}(): argument 'train' (position 3) must be bool, not {type_name(training)}"
    )


def _dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    _check_p(p)
    if p.__class__ is not float:  # torch's kernel call parses p (tensor([0.5]) passes _check_p)
        _arg.floating(p, "feature_dropout" if feature else "dropout", "p", 2)
        p = _as_double(p)
    if training is not True and training is not False:
        raise _not_bool_train(training, "feature_dropout" if feature else "dropout", inplace)
    if p != p:
        raise _nan_p()
    try:  # a non-tensor input fails on its first attribute: torch's TypeError (no cost)
        if input._data.size == 0 or training is False or p == 0:  # (torch returns input itself)
            return input
        if p == 1:
            return _multiply(input, input.new_zeros(()), inplace)
        if not input.dtype.is_floating_point:
            # torch scales its mask by 1 / (1 - p) in place, in the input's dtype
            _mask_shape(input, feature)
            raise RuntimeError(
                f"result type Float can't be cast to the desired output type "
                f"{_dtype.scalar_name(input.dtype)}"
            )
        if (
            not feature
            and input.__class__ is Tensor
            and input._device is cpu
            and input._data.dtype.kind == "f"
            and input._data.dtype.itemsize >= 4
            and input._data.flags.c_contiguous
            and fast_path[0]
        ):
            factor = _plain_keep_factor(input._data, p)
            if factor is not None:
                if inplace or (input._requires_grad and _grad_state.enabled):
                    return _multiply(input, plain_result(factor, cpu), inplace)
                return plain_result(input._data * factor, cpu)  # input * factor's fast path
        return _multiply(input, _keep_mask(input, p, feature) / (1 - p), inplace)
    except AttributeError:
        if isinstance(input, Tensor):
            raise
        op = "feature_dropout" if feature else "dropout"
        raise not_tensor(op + "_" if inplace else op, input) from None


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    _check_p(p)
    op = "feature_alpha_dropout" if feature else "alpha_dropout"
    if not isinstance(input, Tensor):
        raise not_tensor(op, input)
    if p.__class__ is not float:
        _arg.floating(p, op, "p", 2)
        p = _as_double(p)
    if training.__class__ is not bool:
        raise _not_bool_train(training, op, inplace)
    if p != p:
        raise _nan_p()
    if not training or p == 0 or input._data.size == 0:  # (an empty input itself, as torch)
        return input
    if p == 1:
        return _multiply(input, input.new_zeros(()), inplace)
    if not input.dtype.is_floating_point and not input.dtype.is_complex:
        # torch's a x + b runs in place in the input's dtype (a bool input as int64): refused,
        # after the feature rank check
        _mask_shape(input, feature)
        name = "Long" if input.dtype is _dtype.bool else _dtype.scalar_name(input.dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")
    # keep: a x + b with a, b chosen so a zero-mean unit-variance input keeps its moments;
    # dropped units go to the saturation value -_ALPHA first
    a = 1.0 / ((_ALPHA * _ALPHA * p + 1) * (1 - p)) ** 0.5
    keep = _keep_mask(input, p, feature)
    b = (keep - 1) * (_ALPHA * a) + _ALPHA * a * p
    if inplace:
        return input.mul_(keep * a).add_(b)
    return input * (keep * a) + b


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1 / (1 - p) while
    training. Mirrors torch.nn.functional.dropout."""
    return _dropout(input, p, training, inplace, feature=False)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels of an (N, C, L) or (C, L) input. Mirrors
    torch.nn.functional.dropout1d."""
    _check_p(p)
    if input.dim() not in (2, 3):  # torch's wrapper: a non-tensor's AttributeError names dim
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs)."
        )
    return _batched_feature(input, p, training, inplace, batched=input.ndim == 3)


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels of an (N, C, H, W) input (a 3-D input is read as (N, C, L), as
    torch does, with its warning). Mirrors torch.nn.functional.dropout2d."""
    _check_p(p)
    n = input.dim()  # torch's wrapper: a non-tensor's AttributeError names dim
    if n not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {n}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).",
            UserWarning,
            stacklevel=2,
        )
    if n == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning,
            stacklevel=2,
        )
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels of an (N, C, D, H, W) or (C, D, H, W) input. Mirrors
    torch.nn.functional.dropout3d."""
    _check_p(p)
    n = input.dim()  # torch's wrapper: a non-tensor's AttributeError names dim
    if n not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {n}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).",
            UserWarning,
            stacklevel=2,
        )
    return _batched_feature(input, p, training, inplace, batched=n == 5)


def _batched_feature(input: Tensor, p, training, inplace, batched: bool) -> Tensor:
    """Channel dropout of an input that may lack its batch dim (one mask per channel)."""
    if batched:
        return _dropout(input, p, training, inplace, feature=True)
    if not inplace:  # torch returns a view (squeeze of unsqueeze) even in eval mode
        return _dropout(input.unsqueeze(0), p, training, False, feature=True).squeeze(0)
    if not training or p == 0:
        return input
    return input.copy_(_dropout(input.unsqueeze(0), p, training, False, feature=True).squeeze(0))


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout that keeps the mean and variance of SELU activations. Mirrors
    torch.nn.functional.alpha_dropout."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """alpha_dropout of whole channels. Mirrors torch.nn.functional.feature_alpha_dropout."""
    return _alpha_dropout(input, p, training, inplace, feature=True)
