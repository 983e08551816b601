"""nn.functional: the stateless forms of the layers. Mirrors torch.nn.functional.

This file holds linear, the activations and the softmax family; the rest is split by concept
(losses, normalization, dropout, embedding, distance, padding, attention) into the
`_functional_*` modules beside it and re-exported here, so `import minitorch.nn.functional as F`
sees one namespace. Activation kernels that need a fused primitive for stability live in
minitorch/_ops/activation.py and minitorch/_ops/nn_kernels.py; the rest is composed here.
"""

from __future__ import annotations

import math
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._arg_errors import REQUIRED, arity_error
from minitorch._backend import cpu as _CPU
from minitorch._ops import activation as _act
from minitorch._ops._common import check_int, not_tensor
from minitorch._ops.activation import (  # noqa: F401  (F's names for the activation kernels)
    celu,
    celu_,
    elu,
    gelu,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    logsigmoid,
    mish,
    relu6,
    selu,
    selu_,
    silu,
    softplus,
    softshrink,
    threshold,
    threshold_,
)
from minitorch._ops.grouped_mm import grouped_mm  # noqa: F401  (torch's MoE grouped GEMM)
from minitorch._ops.nn_kernels import Linear as _LinearOp
from minitorch._ops.nn_kernels import LinearMm as _LinearMm
from minitorch._ops.nn_kernels import _matmul_bias, linear_fits, linear_kernel
from minitorch._ops.nn_kernels import common_softmax as _common_softmax
from minitorch._ops.shape import TransposeT as _TransposeT
from minitorch._tensor import Tensor
from minitorch._tensor import _wrap_dim as wrap_dim
from minitorch.autograd.composite import as_node, one_node, saved_value, show_saved
from minitorch.autograd.function import (
    fast_path,
    name_node,
    plain_result,
    record_many,
    record_pair,
    record_view_apply,
    saved_uint64,
)
from minitorch.autograd.grad_mode import no_grad as _no_grad
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn import _argcheck as _arg
from minitorch.nn._functional_distance import *  # noqa: F403
from minitorch.nn._functional_dropout import *  # noqa: F403
from minitorch.nn._functional_loss import *  # noqa: F403
from minitorch.nn._functional_norm import *  # noqa: F403
from minitorch.nn._functional_pad import *  # noqa: F403
from minitorch.nn._functional_pad import _tie
from minitorch.nn._functional_sparse import *  # noqa: F403
from minitorch.nn.parameter import Parameter as _Parameter

from minitorch.nn._functional_attention import *  # noqa: F403  # isort: skip
from minitorch.nn._functional_conv import *  # noqa: F403  # isort: skip  (conv, fold, pixel_shuffle)
from minitorch._ops.inplace import check_out  # isort: skip
from minitorch.nn._functional_pool import *  # noqa: F403  # isort: skip  (pooling)
from minitorch.nn._functional_fractional_pool import *  # noqa: F403  # isort: skip
from minitorch.nn._functional_interpolate import *  # noqa: F403  # isort: skip
from minitorch.nn._functional_vision import *  # noqa: F403  # isort: skip  (channel_shuffle, grids)
from minitorch.nn._functional_ctc import *  # noqa: F403  # isort: skip  (ctc_loss)
from minitorch.nn._functional_mha import *  # noqa: F403  # isort: skip  (multi_head_attention)
from minitorch.nn._functional_mha import (  # noqa: F401  # isort: skip  (private, as torch's)
    _check_key_padding_mask,
    _in_projection,
    _in_projection_packed,
    _mha_shape_check,
    _none_or_dtype,
)
from minitorch.nn._functional_linear_ce import *  # noqa: F403  # isort: skip  (needs F.linear)
from minitorch.nn import _reduction as _Reduction  # noqa: F401  # isort: skip  (torch's F name)
from minitorch.overrides import (  # noqa: F401  # isort: skip  (copies of torch's F import these)
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

_CPU_XP = _CPU.backend.xp  # the no-grad fast paths' kernels (NOTE [ The no-grad fast path ])
# the argument classes that run an op as plain tensors do: a Parameter opts out of subclass
# dispatch (NOTE [ Tensor subclasses ] in minitorch/_subclass.py)
_PLAIN = (Tensor, _Parameter)

_threshold = threshold  # torch's own name of F.threshold (pickle finds it by that name)


def _check_tensor(x, op: str, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):  # (torch names a Python class bare: "ReLU", its tp_name)
        raise not_tensor(op, x, arg, pos)


def _check_has_method(x, method: str) -> None:
    """torch's F.softmax & co. call input.softmax(...): a non-tensor fails there, with Python's
    AttributeError ('numpy.ndarray' object has no attribute 'softmax'), not a TypeError."""
    if not isinstance(x, Tensor):
        getattr(x, method)  # raises the AttributeError for a list, a float, an ndarray
        _check_tensor(x, method)  # an object with such a method is still refused


# --- linear ---


def linear(
    input: Tensor = REQUIRED,
    weight: Tensor = REQUIRED,
    bias: Tensor | None = None,
    *extra,
    out: Tensor | None = None,
) -> Tensor:
    """input @ weight.T + bias. Mirrors torch.nn.functional.linear."""
    if (  # plain tensors (the common case): the checks below have nothing to refuse
        input.__class__ is Tensor
        and weight.__class__ in _PLAIN
        and (bias is None or bias.__class__ in _PLAIN)
        and out is None
        and not extra
        and not _autocast.state.any_enabled
    ):
        x, w = input._data, weight._data
        b = None if bias is None else bias._data
        xs, ws = x.strides, w.strides
        dt = x.dtype
        if (  # a matrix input that linear_kernel hands to Linear/LinearMm (not the Laid ones)
            len(xs) == 2
            and len(ws) == 2
            and xs[0] >= xs[1]
            and ws[0] >= ws[1]
            and x.shape[1] == w.shape[1]
            and w.dtype is dt  # (identical dtype objects: equal others take linear_kernel)
            and dt.char in "fd"
            and (b is None or (b.dtype is dt and b.shape == (w.shape[0],)))
        ):
            if (  # NOTE [ The no-grad fast path ]: Linear.forward's product (LinearMm's)
                input._device is _CPU
                and weight._device is _CPU
                and (bias is None or bias._device is _CPU)
                and not (
                    _grad_state.enabled
                    and (
                        input._requires_grad
                        or weight._requires_grad
                        or (bias is not None and bias._requires_grad)
                    )
                )
                and fast_path[0]  # (off while a FlopCounterMode wraps Linear's forward)
            ):
                return plain_result(_matmul_bias(_CPU_XP, x, w.T, b), _CPU)
            if (  # a node to record (the else of the test above)
                input._device is _CPU
                and weight._device is _CPU
                and (bias is None or bias._device is _CPU)
                and fast_path[0]
            ):
                return _recorded_linear(input, weight, bias, x, w, b)
            wt = _TransposeT.apply(weight)  # linear_kernel's graph, its checks passed here
            return _LinearMm.apply(input, wt) if b is None else _LinearOp.apply(bias, input, wt)
        if linear_fits(input, weight, bias):
            return linear_kernel(input, weight, bias)  # the hot path: see Linear's docstring
    if extra or input is REQUIRED or weight is REQUIRED:
        raise arity_error("linear", extra, 3, input=input, weight=weight)
    if _autocast.state.any_enabled and out is None:  # torch's out= variant runs uncast
        return _autocast.call(linear, _autocast.LOWER, (input, weight, bias))
    _check_tensor(input, "linear")
    _check_tensor(weight, "linear", "weight", 2)
    if bias is not None and not isinstance(bias, Tensor):
        _check_tensor(bias, "linear", "bias", 3)
    shape, w_shape = input._data.shape, weight._data.shape  # tuples: no Size objects made
    if (
        len(w_shape) == 2
        and shape
        and shape[-1] != w_shape[1]
        and bias is not None
        and _runs_addmm(input, bias)
    ):  # (else matmul below refuses the shapes in its words: mm's, or bmm's when unfolded)
        _check_linear_dtypes(input, weight, bias)  # torch's addmm checks the dtypes first
        rows = math.prod(shape[:-1])  # the flattened input's rows (0 features: numel() is 0)
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{shape[-1]} and "
            f"{w_shape[1]}x{w_shape[0]})"
        )
    if out is not None:
        return _linear_out(input, weight, bias, out)
    if linear_fits(input, weight, bias):
        return linear_kernel(input, weight, bias)  # the hot path: see Linear's docstring
    if not shape or len(w_shape) < 2:
        _check_linear_dims(input, weight, bias)
    addmm = bias is not None and _runs_addmm(input, bias)
    if addmm:
        _check_linear_dtypes(input, weight, bias)
        b_shape = bias._data.shape
        if len(b_shape) == 1 and len(w_shape) == 2 and b_shape[0] not in (1, w_shape[0]):
            rows = math.prod(shape[:-1])  # torch's addmm expands the bias to (rows, out)
            raise RuntimeError(
                f"The expanded size of the tensor ({w_shape[0]}) must match the existing size "
                f"({b_shape[0]}) at non-singleton dimension 1.  Target sizes: [{rows}, "
                f"{w_shape[0]}].  Tensor sizes: [{b_shape[0]}]"
            )
    if addmm and len(shape) == 2:  # torch's one addmm, whatever the bias's shape
        return _ops.addmm(bias, input, weight.t())
    if addmm:  # torch flattens the batch into rows, one addmm, and views the result back
        rows = math.prod(shape[:-1])
        out = _ops.addmm(bias, input.reshape(rows, shape[-1]), weight.t())
        return out.view(*shape[:-1], w_shape[0])
    out = _ops.matmul(input, weight.t())
    if bias is None:
        return out
    # torch's matmul path adds the bias in place: the product's dtype and shape stay
    return out.add_(bias)


def _recorded_linear(input, weight, bias, x, w, b):
    """_TransposeT.apply(weight), then _LinearOp.apply(bias, input, wt) (_LinearMm.apply(input,
    wt) without a bias), for plain CPU matrices (arrays x, w, b) that F.linear hands to those
    two, a node to record and no saved-tensor hooks: NOTE [ The recorded fast path ] in
    minitorch/autograd/function.py. The same nodes, edges, view and saved values; each operand
    is saved for the other's gradient, as Linear.forward saves them."""
    if weight._requires_grad:
        wt = record_view_apply(_TransposeT, weight, {})
    else:  # (a frozen layer: a view with no node)
        wt = _TransposeT.apply(weight)
    out = _matmul_bias(_CPU_XP, x, wt._data, b)
    if b is None:
        return record_pair(_LinearMm, out, input, wt, weight._requires_grad, input._requires_grad)
    saved = (input if weight._requires_grad else None, wt if input._requires_grad else None)
    return record_many(_LinearOp, out, (bias, input, wt), saved)


def _linear_out(input: Tensor, weight: Tensor, bias: Tensor | None, out: Tensor) -> Tensor:
    """F.linear(..., out=) as torch runs it: addmm into out for a matrix input with a bias, else
    matmul into out and the bias added in place (so out's dtype rules are those ops')."""
    check_out(out, "linear", input, weight, bias)
    st = _autocast.state
    enabled, st.any_enabled = st.any_enabled, False  # no autocast inside either
    try:
        if input._data.ndim == 2 and bias is not None:
            return _ops.addmm(bias, input, weight.t(), out=out)
        _ops.matmul(input, weight.t(), out=out)
        return out if bias is None else out.add_(bias)
    finally:
        st.any_enabled = enabled


def _runs_addmm(input: Tensor, bias: Tensor) -> bool:
    """Whether torch runs linear with a bias as one addmm: a matrix input, or a contiguous one
    (a vector as a row, a batch flattened to a matrix) with a bias that is a vector or has one
    size other than 1 ((1, 2), (4, 1, 1): handed to addmm as it is, so a 3-d one fails its
    expand); else it runs matmul and adds the bias in place (a 0-d bias, (1, 1), (4, 2))."""
    if input._data.ndim == 2:
        return True
    b_shape = bias._data.shape
    if len(b_shape) != 1 and sum(n != 1 for n in b_shape) != 1:
        return False
    return input.is_contiguous()


def _check_linear_dtypes(input: Tensor, weight: Tensor, bias: Tensor) -> None:
    if not (input.dtype is weight.dtype is bias.dtype):
        from minitorch._ops.linalg import _check_addmm_dtypes

        _check_addmm_dtypes(bias, input, weight)  # torch runs it as addmm: its checks and words


def _check_linear_dims(input: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """torch's errors for a 0-d operand, and for a vector weight with a bias where torch runs
    addmm (_runs_addmm); elsewhere matmul and the bias add speak."""
    x_dim, w_dim = input._data.ndim, weight._data.ndim
    if x_dim == 0 or w_dim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {x_dim}D and {w_dim}D"
        )
    if w_dim == 1 and bias is not None and _runs_addmm(input, bias):
        _check_linear_dtypes(input, weight, bias)  # (addmm's dtype checks come first)
        raise RuntimeError("mat2 must be a matrix, got 1-D tensor")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None):
    """out[..., o] = input1 @ weight[o] @ input2 + bias[o]. Mirrors torch.nn.functional.bilinear
    (its checks and messages, in torch's order)."""
    for pos, (name, x) in enumerate((("input1", input1), ("input2", input2), ("weight", weight))):
        _check_tensor(x, "bilinear", name, pos + 1)
    if bias is not None:
        _check_tensor(bias, "bilinear", "bias", 4)
    if _autocast.state.any_enabled and input1._device.type in _autocast._CUDA_LIKE:
        # on CUDA's promote list; on the CPU torch's _trilinear contracts through bmm, which
        # autocast lowers, then gives the result input1's dtype back: the einsum below lowers
        # as that bmm (autocast stays on), and its .to() returns the dtype before the bias adds
        return _autocast.call(bilinear, _autocast.PROMOTE, (input1, input2, weight, bias))
    if input1.ndim != input2.ndim:
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}"
        )
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {d}: got "
                f"{input1.shape[d]} and {input2.shape[d]}"
            )
    for k, x in ((1, input1), (2, input2)):
        # Tensor.size: torch's IndexErrors for a 0-d tensor or a weight of fewer than 3 dims,
        # the weight's first (torch's check reads weight.size(k), then input.size(-1))
        expected = weight.size(k)
        if x.size(-1) != expected:
            raise RuntimeError(
                f"bilinear(): input{k} size does not match weight size: got {x.shape[-1]} but "
                f"expected {expected}"
            )
    if bias is not None and bias.size(0) != weight.shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but "
            f"expected {weight.shape[0]}"
        )
    tensors = (("input1", input1), ("input2", input2), ("weight", weight), ("bias", bias))
    if any(t is not None and t.dtype != input1.dtype for _, t in tensors):
        names = _dtype.CPP_NAMES  # torch spells them in C++ there ("long int")
        got = ", ".join(
            f"{n}: {names.get(t.dtype.name, t.dtype.name)}" for n, t in tensors if t is not None
        )
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    if weight.ndim != 3:  # torch's _trilinear
        raise RuntimeError("number of dimensions must match")
    if 0 in weight.shape[1:]:  # torch's _trilinear reshapes its operands to (-1, in_features)
        raise RuntimeError(
            "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
            "dimension size -1 can be any value and is ambiguous"
        )
    # two contractions, input1 with weight first, as torch's _trilinear (its rounding in float32
    # and under autocast, where each rounds to the autocast dtype)
    partial = _ops.einsum("...i,oij->...oj", input1, weight)
    out = _ops.einsum("...oj,...j->...o", partial, input2).to(input1.dtype)
    return out if bias is None else out + bias


# --- piecewise activations composed from where / clamp ---


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0). Mirrors torch.nn.functional.relu."""
    if input.__class__ is Tensor and inplace is False:  # (torch.relu refuses bool alike)
        return _ops.relu(input)
    _check_tensor(input, "relu")
    if input.dtype.name == "bool":
        raise RuntimeError("Boolean inputs not supported for relu")
    return _ops.relu_(input) if inplace else _ops.relu(input)


def relu_(input: Tensor) -> Tensor:
    """In-place relu. Mirrors torch.nn.functional.relu_."""
    return relu(input, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place hardtanh. Mirrors torch.nn.functional.hardtanh_."""
    return hardtanh(input, min_val, max_val, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu. Mirrors torch.nn.functional.elu_."""
    return elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place leaky_relu. Mirrors torch.nn.functional.leaky_relu_."""
    return leaky_relu(input, negative_slope, inplace=True)


def softsign(input: Tensor) -> Tensor:
    """input / (1 + |input|). Mirrors torch.nn.functional.softsign."""
    if not isinstance(input, Tensor):
        _check_has_method(input, "abs")  # input.abs() in torch
    return input / (_ops.abs(input) + 1)


def sigmoid(input):
    """Mirrors torch.nn.functional.sigmoid: input.sigmoid(), a Python function in torch, so
    its argument errors are Python's ("missing 1 required positional argument: 'input'"),
    not torch.sigmoid's parser's."""
    return input.sigmoid()


def tanh(input):
    """Mirrors torch.nn.functional.tanh: input.tanh() (as sigmoid)."""
    return input.tanh()


def tanhshrink(input: Tensor) -> Tensor:
    """input - tanh(input). Mirrors torch.nn.functional.tanhshrink."""
    if not isinstance(input, Tensor):
        _check_has_method(input, "tanh")  # input.tanh() in torch
    return input - _ops.tanh(input)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1). Mirrors
    torch.nn.functional.prelu."""
    if _autocast.state.any_enabled:
        return _autocast.call(prelu, _autocast.LOWER, (input, weight))
    _check_tensor(input, "prelu")
    _check_tensor(weight, "prelu", "weight", 2)
    if input.dtype != weight.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{_dtype.scalar_name(input.dtype)} and {_dtype.scalar_name(weight.dtype)}"
        )
    # torch's order: the weight's count against the channels (a 0-d input has none), then
    # its dims, then the dtype
    n = weight.numel()
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim >= 2 else 1
        if n != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {channels}."
            )
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    if not input.dtype.is_floating_point:
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{name}'")
    if weight.ndim == input.ndim:  # (a vector or a scalar input) used as it is, as in torch
        w = weight
    else:  # (1, n, 1, ...) as torch's view (all ones for one weight, () for a 0-d input), so
        # grad_fn._saved_weight has torch's shape; a batch of one sums no dim (a -0. grad stays)
        w = weight.reshape((1, n)[: input.ndim] + (1,) * (input.ndim - 2))
    # one node, as torch's kernel, whose weight edge is the (reshaped) weight, as in torch
    return _act.prelu_kernel(input, w)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Leaky relu with a random slope in [lower, upper] per element while training, their mean
    otherwise. Mirrors torch.nn.functional.rrelu."""
    if (
        lower.__class__ is not float
        or upper.__class__ is not float
        or training.__class__ is not bool
        or not isinstance(input, Tensor)
    ):  # torch's argument parser, before anything else
        op = "rrelu_" if inplace else "rrelu"
        _check_tensor(input, op)
        _arg.number(lower, op, "lower", 2)
        _arg.number(upper, op, "upper", 3)
        _arg.boolean(training, op, "training", 4)
    # torch checks the bounds first, in eval mode too (before the input's dtype)
    for name, bound in (("lower", lower), ("upper", upper)):
        if not math.isfinite(bound):
            raise RuntimeError(f"rrelu: {name} bound must be finite, got {float(bound)}")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        out = leaky_relu(input, (lower + upper) / 2, inplace)
    else:
        from minitorch.random import rand

        if isinstance(input, Tensor) and (
            not input.dtype.is_floating_point
            or (input.dtype is _dtype.float16 and input._device.type == "cpu")
        ):  # torch's CPU kernel: float32, float64 and bfloat16
            raise _act._not_implemented("rrelu_with_noise_out_cpu", input.dtype)

        def compute(x):
            # torch's CPU kernel: each element <= 0 in order (-0. and 0. too) draws a float64
            # uniform slope, rounded to x's dtype; the others keep slope 1 and draw nothing
            neg = x <= 0
            if x._device.type == "cpu":  # host data: counting reads nothing off a device
                lo, hi = lower, upper
                if x.dtype is not _dtype.float64:  # the kernel's bounds: its float32 opmath
                    import struct

                    lo, hi = (struct.unpack("f", struct.pack("f", b))[0] for b in (lower, upper))
                r = rand(int(neg.sum()), dtype=_dtype.float64) * (hi - lo) + lo
                slope = x.new_ones(x.shape).masked_scatter(neg, r.to(x.dtype))
                if x.dtype is _dtype.bfloat16:
                    # its bfloat16 kernel multiplies by the float32 slope and rounds once; the
                    # noise it keeps for backward is the slope rounded to bfloat16
                    out = x * slope
                    with _no_grad():
                        s32 = x.new_ones(x.shape, dtype=_dtype.float32)
                        s32 = s32.masked_scatter(neg, r.to(_dtype.float32))
                        out._data = (x.float() * s32).to(x.dtype)._data  # (out is new here)
                    return out
            else:  # no count without a sync: one draw per element, positives' unused
                r = rand(x.shape, dtype=_dtype.float64, device=x.device) * (upper - lower)
                slope = _ops.where(neg, (r + lower).to(x.dtype), 1.0)
            # torch's double-backward node takes x: a gradient penalty reaches it with zeros
            return (x if inplace else _tie(x)) * slope  # See NOTE [ Zero-gradient edges ]

        out = _act._result(input, inplace, compute, "rrelu")
        if not inplace:
            return as_node(out, "RreluWithNoiseBackward0", (input,))
    if inplace:  # input's own (new) node
        return name_node(out, "RreluWithNoiseBackward1")
    return name_node(out, "RreluWithNoiseBackward0", (input,), shown=(0,))


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """In-place rrelu. Mirrors torch.nn.functional.rrelu_."""
    return rrelu(input, lower, upper, training, inplace=True)


@one_node("GluBackward0", saved=("input",), shows=True)  # torch's node saves self and dim
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), a and b the halves of input along dim. Mirrors torch.nn.functional.glu."""
    if not isinstance(input, Tensor):
        _check_has_method(input, "dim")  # input.dim() in torch's Python wrapper
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if dim.__class__ is not int:
        dim = check_int("glu", dim, "dim", 2)  # (torch's Python passes it on by position)
    d = wrap_dim(dim, input.ndim, "glu")
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    if not input.dtype.is_floating_point:  # after the shape checks, as torch's kernel
        raise _act._not_implemented("glu_cpu", input.dtype)
    a, b = input.chunk(2, dim)
    if input.dtype in _dtype.HALF_FLOATS:  # in float32, rounded once (forward and backward)
        return (a.float() * _ops.sigmoid(b.float())).to(input.dtype)
    return a * _ops.sigmoid(b)


show_saved(  # grad_fn._saved_<name> (as torch's: the dim as given, read back unsigned)
    "GluBackward0",
    {"self": saved_value(0), "dim": lambda node: saved_uint64(int(node.args.get("dim", -1)))},
)


# --- the softmax family ---


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _method_dim(dim, op: str) -> None:
    """The TypeError of the Tensor method `op` (x.softmax(dim)) for a dim that is not an int,
    which torch's F.softmax and its kin pass on positionally; None for an int-like dim."""
    if dim.__class__ is not int:
        check_int(op, dim, "dim", 1)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(input) / sum(exp(input)) along dim, stably. Mirrors torch.nn.functional.softmax."""
    if dtype is None:
        result = _common_softmax(input, dim, False)  # (also the common recorded call)
        if result is not None:
            return result
    if _autocast.state.any_enabled and dtype is None:
        return _autocast.call(softmax, _autocast.FP32_CUDA, (input, dim, _stacklevel + 2))
    if dim is None:  # torch's Python reads input.dim() first
        _check_has_method(input, "dim")
        dim = _softmax_dim("softmax", input.ndim, _stacklevel)
    _check_has_method(input, "softmax")
    if dtype is not None:  # dtype=float too (float64): the kernel's cast takes dtypes only
        dtype = _dtype.to_dtype(dtype, "softmax")
    try:
        return _ops.softmax(input, dim, dtype)
    except TypeError:  # torch's Python calls the method: dim is its argument 1
        _method_dim(dim, "softmax")
        raise


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-input) along dim. Mirrors torch.nn.functional.softmin."""
    if _autocast.state.any_enabled and dtype is None:
        return _autocast.call(softmin, _autocast.FP32_CUDA, (input, dim, _stacklevel + 2))
    if not isinstance(input, Tensor):
        _check_has_method(-input, "softmax")  # (-input).softmax in torch: -None is a TypeError
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    if dtype is not None:  # the cast follows the negation, as torch's (uint8 wraps first)
        dtype = _dtype.to_dtype(dtype, "softmax")
    try:
        return _ops.softmax(-input, dim, dtype)
    except TypeError:  # torch's Python calls the method: dim is its argument 1
        _method_dim(dim, "softmax")
        raise


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(input)) along dim, stably. Mirrors torch.nn.functional.log_softmax."""
    if dtype is None:
        result = _common_softmax(input, dim, True)  # (also the common recorded call)
        if result is not None:
            return result
    if _autocast.state.any_enabled and dtype is None:
        return _autocast.call(log_softmax, _autocast.FP32_CUDA, (input, dim, _stacklevel + 2))
    if dim is None:  # torch's Python reads input.dim() first
        _check_has_method(input, "dim")
        dim = _softmax_dim("log_softmax", input.ndim, _stacklevel)
    _check_has_method(input, "log_softmax")
    if dtype is not None:  # dtype=float too (float64): the kernel's cast takes dtypes only
        dtype = _dtype.to_dtype(dtype, "log_softmax")
    try:
        return _ops.log_softmax(input, dim, dtype)
    except TypeError:  # torch's Python calls the method: dim is its argument 1
        _method_dim(dim, "log_softmax")
        raise


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """softmax((logits + Gumbel noise) / tau), one-hot in forward when hard (straight-through
    gradient). Mirrors torch.nn.functional.gumbel_softmax: the noise is -log(E), E drawn with
    exponential_ from the default generator, so a seeded run draws torch's numbers."""
    from minitorch._factories import empty_like, zeros_like

    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    from minitorch._memory_format import legacy_contiguous_format

    # Gumbel(0, 1), drawn row-major whatever logits' layout (torch's legacy_contiguous_format)
    noise = empty_like(logits, memory_format=legacy_contiguous_format)
    if not logits.dtype.is_floating_point:  # torch draws its noise with exponential_
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {_dtype.scalar_name(logits.dtype)}"
        )
    gumbels = -_ops.log(noise.exponential_())
    y_soft = _ops.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# --- helpers torch's F exposes (code copied from torch's F imports them from here) ---


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls if_true or if_false by the truth of one argument (by keyword
    arg_name or at position arg_index, else default), e.g. max_pool2d on return_indices. The
    docstring is the one of the two functions that has one. Mirrors torch's
    torch.nn.functional.boolean_dispatch (from torch._jit_internal)."""

    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    docs = [f.__doc__ for f in (if_true, if_false) if f.__doc__ is not None]
    if len(docs) > 1:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = if_true.__doc__ = if_false.__doc__ = docs[0] if docs else None
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type,
    other_name: str,
    target_type,
    check_other: bool = True,
) -> Tensor | None:
    """An attention mask as a float mask of target_type: a bool mask (True: masked) becomes 0 /
    -inf, a float mask is returned as is. Mirrors torch.nn.functional._canonical_mask (its
    AssertionError for another dtype, its warning when other_type differs)."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not _dtype.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            stacklevel=2,
        )
    if is_float:
        return mask
    from minitorch._factories import zeros_like

    return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
