"""nn.functional: convolutions, unfold/fold and pixel shuffle (argument checks in torch's words;
the kernels are in minitorch/_ops/conv.py)."""

from __future__ import annotations

import os
from collections.abc import Iterable

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _settings
from minitorch import _memory_format as _mf
from minitorch._arg_errors import REQUIRED
from minitorch._factories import _typename
from minitorch._ops._common import index, int_list, is_index, type_name
from minitorch._ops.activation import _float_only
from minitorch._ops.conv import Col2Im, Conv, ConvTranspose, Im2Col, prod
from minitorch._ops.shape import _infer_shape
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, show_saved
from minitorch.nn import _argcheck as _arg

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "unfold", "fold", "pixel_shuffle", "pixel_unshuffle",
]  # fmt: skip

_short = _dtype.scalar_name
# the integer dtypes and bool, which torch's CPU transposed convolution has no kernel for (int64
# has one)
_NO_TRANSPOSED_KERNEL = (_dtype.bool, _dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32)


def ntuple(value, n: int, name: str, op: str = "convolution") -> tuple:
    """An int or a sequence of n (or 1) ints as a tuple of n ints, with torch's error; ints may
    be NumPy integers or 0-d integer tensors (NOTE [ Int-like arguments ])."""
    if value.__class__ is int:
        return (value,) * n
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, int) or is_index(value) or not hasattr(value, "__iter__"):
        return (index(value, op, name),) * n  # a bool or a float raises torch's TypeError
    value = int_list(value, op, name)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"{op} dimensions, but got {name}={list(value)}"
        )
    return value


def _check_tensor(x, op: str, name: str = "input", pos: int = 1) -> None:
    """torch's TypeError for a non-Tensor argument (a NumPy array read on would fail later with
    a misleading dtype error or an AttributeError)."""
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {pos}) must be Tensor, not {_typename(x)}"
        )


def _sizes(shape) -> str:
    return " x ".join(str(s) for s in shape)


def _batched(input: Tensor, n: int, op: str):
    """(the input with a batch dim, whether one was added): torch's rank check for conv{n}d."""
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input "
            f"of size: {list(input.shape)}"
        )
    return (input.unsqueeze(0), True) if input.ndim == n + 1 else (input, False)


def _empty_operands(x: Tensor, w: Tensor, bias):
    """(x, w, bias) cast to the dtype of torch's result for an empty batch or an input without
    channels: it runs no kernel (so checks no dtypes) but multiplies the input by weight[0] (a
    0-d tensor), or by the flattened weight when there are no channels, and adds bias[0]."""
    ndim = 1 if x.shape[1] == 0 else 0
    if ndim == 0 and w.numel() == 0:  # weight[0] of its flattened empty view
        raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
    dt = _dtype.result_type((x.dtype, 1), (w.dtype, ndim))
    return (
        x if x.dtype is dt else x.to(dt),
        w if w.dtype is dt else w.to(dt),
        bias if bias is None or bias.dtype is dt else bias.to(dt),
    )


def _check_bias_dtype(x: Tensor, bias) -> None:
    if bias is not None and bias.dtype is not x.dtype:
        xt, bt = _dtype.CPP_NAMES[x.dtype.name], _dtype.CPP_NAMES[bias.dtype.name]
        raise RuntimeError(f"Input type ({xt}) and bias type ({bt}) should be the same")


_LEGACY_TYPES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
}  # fmt: skip


def _type_string(dtype) -> str:
    """A CPU tensor's type as torch's oneDNN dtype message names it (torch.FloatTensor;
    CPUBFloat16Type where no legacy class exists)."""
    legacy = _LEGACY_TYPES.get(dtype.name)
    return f"torch.{legacy}Tensor" if legacy else f"CPU{_short(dtype)}Type"


def _uses_onednn(x: Tensor, w: Tensor, geom) -> bool:
    """Whether torch's CPU convolution takes its oneDNN kernel for a float32 input x (batched)
    and weight w, geom = (stride, dilation, groups): torch's use_mkldnn heuristic, which reads
    the input and kernel as 4-d ((N, C, 1, L) and (1, k) for 1-d) and the thread count."""
    stride, dilation, groups = geom
    shape = tuple(x.shape) if x.ndim > 3 else (x.shape[0], x.shape[1], 1, x.shape[2])
    k = tuple(w.shape[2:]) if w.ndim > 3 else (1, w.shape[-1])
    n = shape[0]
    one_by_one = k[-1] == 1 and k[-2] == 1
    if one_by_one and n < 16 and all(v == 1 for v in (*stride, *dilation)):
        if _settings.get_num_threads() <= 1:
            return False
    big = shape[0] * shape[1] * shape[2] * shape[3] > 20480
    return groups > 1 or (k[-1] > 3 and k[-2] > 3) or n > 1 or big


def _onednn_float32(x: Tensor, w: Tensor, geom) -> bool:
    """Whether torch's CPU convolution runs a float32 input x on its oneDNN kernel (see
    _uses_onednn)."""
    return x.dtype is _dtype.float32 and x.device.type == "cpu" and _uses_onednn(x, w, geom)


def _text_padding_bias(x: Tensor, w: Tensor, bias, geom):
    """The bias behind a padding string, where torch's conv*d skips its bias check: oneDNN's
    kernel (a float32 input it takes, a half one; geom: _uses_onednn's) refuses a bias of
    another dtype, the others add it cast to the input's dtype (its gradient in its own)."""
    if bias is None or bias.dtype is x.dtype:
        return bias
    if _onednn_float32(x, w, geom) or x.dtype in _dtype.HALF_FLOATS:
        raise RuntimeError(
            f"Input type ({_type_string(x.dtype)}) and bias type ({_type_string(bias.dtype)}) "
            "should be the same or input should be a MKLDNN tensor and bias is a dense tensor"
        )
    return bias.to(x.dtype)


def _transposed_bias_dtype(x: Tensor, w: Tensor, bias, n: int, geom) -> None:
    """torch's refusal of a transposed convolution's bias of another dtype than the input: its
    oneDNN kernel (a float32 input it takes, a half one; geom: _uses_onednn's) and its 3-d
    kernel refuse it, its 1-d/2-d kernel adds it cast."""
    if _onednn_float32(x, w, geom) or x.dtype in _dtype.HALF_FLOATS:
        raise RuntimeError(
            f"Input type ({_type_string(x.dtype)}) and bias type ({_type_string(bias.dtype)}) "
            "should be the same or input should be a MKLDNN tensor and bias is a dense tensor"
        )
    if n == 3:
        raise RuntimeError(f"expected scalar type {_short(x.dtype)} but found {_short(bias.dtype)}")


def _check_dtypes(x: Tensor, w: Tensor, bias, n: int, transposed: bool, geom=None) -> None:
    """torch's CPU dtype checks, in its order: the bias first (a plain convolution; the
    transposed one casts it), then the input's dtype against the kernel's, then the weight.
    A float32 input that torch's oneDNN kernel takes (geom: _uses_onednn's) gets its message."""
    if transposed:
        if x.dtype in _NO_TRANSPOSED_KERNEL:
            name = f"slow_conv_transpose{max(n, 2)}d_out_cpu"  # conv_transpose1d runs as 2d
            raise NotImplementedError(f"\"{name}\" not implemented for '{_short(x.dtype)}'")
    else:
        _check_bias_dtype(x, bias)
        if x.dtype is _dtype.bool:
            name = "compute_columns3d" if n == 3 else "slow_conv2d_cpu"
            raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    if x.dtype is not w.dtype:
        onednn = geom is not None and _onednn_float32(x, w, geom)
        if onednn or x.dtype in _dtype.HALF_FLOATS:  # torch's oneDNN path
            raise RuntimeError(
                f"Input type ({_type_string(x.dtype)}) and weight type ({_type_string(w.dtype)})"
                " should be the same or input should be a MKLDNN tensor and weight is a dense "
                "tensor"
            )
        raise RuntimeError(f"expected scalar type {_short(x.dtype)} but found {_short(w.dtype)}")


# where conv_transpose*d's binding reads each size argument (its TypeErrors name them)
_TRANSPOSED_POSITIONS = {"stride": 4, "padding": 5, "output_padding": 6, "dilation": 8}


def _as_list(value, n: int, name: str, op: str | None = None) -> list:
    """A convolution parameter as torch's binding passes it on: an int as n copies, a sequence
    as given (a 1-element one broadcasts later to the weight's rank). op: the public function
    whose binding parses it (conv_transpose*d), named in a TypeError worded as torch's."""
    given = value
    if isinstance(value, Tensor):
        value = value.tolist()
    try:
        if isinstance(value, int) or is_index(value) or not hasattr(value, "__iter__"):
            return [index(value, "convolution", name)] * n
        return list(int_list(value, "convolution", name))
    except TypeError:
        if op is None:
            raise
    if not isinstance(given, Tensor):  # raises, naming the position unless passed by keyword
        int_list(given, op, name, _TRANSPOSED_POSITIONS[name])
    raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not {type_name(given)}")


def _fit(value: list, k: int, name: str) -> tuple:
    """value broadcast to the weight's k spatial dims, with torch's error when it cannot be."""
    if len(value) == 1:
        return tuple(value) * k
    if len(value) != k:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {k} values to match the "
            f"convolution dimensions, but got {name}={value}"
        )
    return tuple(value)


def _check_weight_rank(w) -> None:
    if w.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")


def _check_shape_args(x, w, padding, stride, dilation, groups, output_padding=None) -> None:
    """torch's argument checks shared by every convolution, in its order (the padding's sign
    before the stride's, the input's rank before the weight's size against groups)."""
    if any(v < 0 for v in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(o < 0 for o in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):  # a zero dilation is refused later, by the kernel
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if x.ndim != w.ndim:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight "
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} "
            "instead"
        )
    if w.shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(w.shape)} instead"
        )
    if w.shape[0] % groups:
        raise RuntimeError(  # torch prints this size in doubled brackets
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{list(w.shape)}] instead"
        )


def _check_bias(w, bias, out_channels, transposed: bool) -> None:
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given {'transposed=1, ' if transposed else ''}weight of size {list(w.shape)}, "
            f"expected bias to be 1-dimensional with {out_channels} elements, but got bias of "
            f"size {list(bias.shape)} instead"
        )


def _check_kernel(w, n: int, dilation, listed: bool) -> None:
    """A zero kernel size, then a zero dilation. torch's dilated kernel (any dilation != 1) words
    both as lists, its plain 1-d/2-d kernel names the sides, its plain 3-d kernel writes TxHxW."""
    k = (1, *w.shape[2:]) if n == 1 else tuple(w.shape[2:])  # conv1d runs as a (1, k) conv2d
    d = (1, *dilation) if n == 1 else tuple(dilation)
    if 0 in k:
        if listed:
            got = f" {list(k)}"
        elif n == 3:
            got = f": {' x '.join(map(str, k))} (TxHxW)"
        else:
            got = f" kernel_height: {k[0]} kernel_width: {k[1]}"
        raise RuntimeError(f"kernel size should be greater than zero, but got{got}")
    if 0 in d:
        raise RuntimeError(f"dilation should be greater than zero, but got {list(d)}")


def _warn_asymmetric_same() -> None:
    """torch's warning (TORCH_WARN_ONCE: once per process, every time under set_warn_always) that
    padding='same' pads one side more than the other: an even kernel length with an odd
    dilation."""
    _settings.warn_once(
        "same_padding",
        "Using padding='same' with even kernel lengths and odd dilation may require a "
        "zero-padded copy of the input be created",
    )


def _same_padding(x, w, stride, dilation):
    """The checks torch makes before a padding='same' convolution, in its order; returns the
    (lo, hi) pads, the broadcast stride and dilation, and the shape torch reports for the input
    (it pads an odd total's extra element before convolving)."""
    if x.ndim != w.ndim:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight"
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} "
            "instead"
        )
    k = w.ndim - 2
    for name, v in (("stride", stride), ("dilation", dilation)):
        if len(v) not in (1, k):
            raise RuntimeError(f"{name} cannot broadcast to {k} dimensions")
    stride, dilation = _fit(stride, k, "stride"), _fit(dilation, k, "dilation")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pads = []
    for kk, d in zip(w.shape[2:], dilation, strict=False):
        total = max(d * (kk - 1), 0)  # a negative dilation is refused next, in torch's words
        pads.append((total // 2, total - total // 2))
        if total % 2:
            _warn_asymmetric_same()
    shown = (*x.shape[:2], *(s + (hi - lo) for s, (lo, hi) in zip(x.shape[2:], pads, strict=False)))
    return tuple(pads), stride, dilation, shown


def _check_tensors(op, input, weight, bias) -> None:
    _check_tensor(input, op)
    _check_tensor(weight, op, "weight", 2)
    if bias is not None:
        _check_tensor(bias, op, "bias", 3)


_CONV_FORMS = tuple(
    "Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    f"{padding}, tuple of ints dilation = 1, int groups = 1"
    for padding in ("tuple of ints padding = 0", 'str padding = "valid"')
)


def _conv_overload_error(op: str, args: tuple, error: TypeError) -> TypeError:
    """torch's TypeError for conv1d/2d/3d arguments of a wrong type: none of its two overloads
    (a padding of ints or of a str) takes them, so it lists both, with the call's positional
    arguments and keywords (NOTE [ Argument parser errors ]); `error` where the call cannot be
    read."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    if "failed to unpack" in str(error):  # a sequence's later element: the parser stops there
        return TypeError(str(error).replace("convolution()", f"{op}()", 1))
    call = call_arguments(op)
    if call is None and _in_conv_module():  # torch's module passes all seven by position
        call = (7, ())
    if call is None or call[0] > len(args):
        return error
    n, names = call
    names_ = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    values = dict(zip(names_, args, strict=True))
    kwargs = {k: values[k] for k in reversed(names) if k in values}
    return invalid_arguments(op, _CONV_FORMS, args[:n], kwargs)


def _in_conv_module() -> bool:
    """Whether the convolution runs under an nn.Conv1d/2d/3d's forward. An error path."""
    import sys

    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        if frame.f_code.co_filename == _CONV_MODULES and frame.f_code.co_name == "forward":
            return True
        frame = frame.f_back
    return False


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_CONV_MODULES = os.path.join(_PACKAGE, "nn", "modules", "conv.py")


def _conv_arity_error(op: str, args: tuple, extra: tuple) -> TypeError:
    """torch's TypeError for conv1d/2d/3d (`args` its seven parameters, REQUIRED where left
    out) given too few or too many positional arguments: no overload takes them, so its parser
    lists both, with the call's keywords where the call can be read."""
    from minitorch._call_site import call_arguments
    from minitorch._ops._parser_errors import invalid_arguments

    names_ = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    call = call_arguments(op)
    if call is None:  # (keywords unknown: the leading arguments given, then any extra ones)
        n = len(args) if extra else [a is REQUIRED for a in args].index(True)
        call = (n, ())
    n, names = call
    values = dict(zip(names_, args, strict=True))
    kwargs = {k: values[k] for k in reversed(names) if k in values}
    return invalid_arguments(op, _CONV_FORMS, (*args, *extra)[:n], kwargs)


def _convnd(n, input, weight, bias, stride, padding, dilation, groups):
    op = f"conv{n}d"
    try:
        _check_tensors(op, input, weight, bias)
        if groups.__class__ is not int:  # a float or None would reach the kernel's arithmetic
            groups = index(groups, op, "groups")
        text = isinstance(padding, str)
        if text and padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        x, unbatched = _batched(input, n, op)
        strides = _as_list(stride, n, "stride")
        dilations = _as_list(dilation, n, "dilation")
        padded = padding if text else _as_list(padding, n, "padding")
    except TypeError as e:  # (no cost on the common path)
        args = (input, weight, bias, stride, padding, dilation, groups)
        raise _conv_overload_error(op, args, e) from None
    stride, dilation, padding = strides, dilations, padded
    shown = tuple(x.shape)
    if padding == "same":
        _check_weight_rank(weight)
        pads, stride, dilation, shown = _same_padding(x, weight, stride, dilation)
        lows = tuple(lo for lo, _ in pads)
    else:
        padding = [0] * n if padding == "valid" else padding
        if not text:  # torch's first check (none behind a padding string: _text_padding_bias)
            _check_bias_dtype(x, bias)
        _check_weight_rank(weight)
        k = weight.ndim - 2
        stride = _fit(stride, k, "stride")
        lows = _fit(padding, k, "padding")
        dilation = _fit(dilation, k, "dilation")
        pads = tuple((v, v) for v in lows)
    _check_shape_args(x, weight, lows, stride, dilation, groups)
    if x.shape[1] != weight.shape[1] * groups:
        if x.is_meta:  # torch's meta kernel says it its own way
            raise RuntimeError("Invalid channel dimensions")
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
            f"input{list(shown)} to have {weight.shape[1] * groups} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    _check_bias(weight, bias, weight.shape[0], transposed=False)
    kernel = tuple(weight.shape[2:])
    padded = [s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads, strict=False)]
    eff = [d * (k - 1) + 1 for k, d in zip(kernel, dilation, strict=False)]
    if any(p < e for p, e in zip(padded, eff, strict=False)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({_sizes(padded)}). Kernel size: "
            f"({_sizes(eff)}). Kernel size can't be greater than actual input size"
        )
    # an empty spatial dim that padding made room for (the size test keeps the hot path short)
    if not x._data.size and x.shape[0] and x.shape[1]:
        shape = (*x.shape[:2], 1, *x.shape[2:]) if n == 1 else x.shape  # conv1d runs as 2-d
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{list(shape)}"
        )
    dilated = any(d != 1 for d in dilation)
    if dilated and x.shape[0] and x.shape[1]:  # torch's dilated kernel checks the sizes
        if 0 in dilation and (
            x.dtype in _dtype.HALF_FLOATS or _onednn_float32(x, weight, (stride, dilation, groups))
        ):
            # torch's oneDNN kernel checks the dtypes first, then refuses in its own words
            geom = (stride, dilation, groups)
            _check_dtypes(x, weight, None if text else bias, n, transposed=False, geom=geom)
            if text:
                _text_padding_bias(x, weight, bias, geom)
            raise RuntimeError("non-positive dilation is not supported")
        _check_kernel(weight, n, dilation, listed=True)  # before the dtypes; none for no input
        if x.dtype in _NO_TRANSPOSED_KERNEL:  # torch's dilated kernel: floats and int64 only
            raise NotImplementedError(
                f"\"slow_conv_dilated<>\" not implemented for '{_short(x.dtype)}'"
            )
    if x.shape[0] and x.shape[1]:
        geom = (stride, dilation, groups)
        _check_dtypes(x, weight, None if text else bias, n, transposed=False, geom=geom)
        if text:
            bias = _text_padding_bias(x, weight, bias, geom)
    else:
        if not text:
            _check_bias_dtype(x, bias)
        x, weight, bias = _empty_operands(x, weight, bias)
    if not dilated:
        _check_kernel(weight, n, dilation, listed=False)
    out = Conv.apply(x, weight, bias, stride=stride, padding=pads, dilation=dilation, groups=groups)
    return out.squeeze(0) if unbatched else out


def conv1d(
    input=REQUIRED, weight=REQUIRED, bias=None, stride=1, padding=0, dilation=1, groups=1, *extra
) -> Tensor:
    """1-d cross-correlation over (N, C, L) or (C, L). Mirrors torch.nn.functional.conv1d."""
    if extra or input is REQUIRED or weight is REQUIRED:
        args = (input, weight, bias, stride, padding, dilation, groups)
        raise _conv_arity_error("conv1d", args, extra)
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, dilation, groups)
        return _autocast.call(conv1d, _autocast.LOWER, args)
    return _convnd(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input=REQUIRED, weight=REQUIRED, bias=None, stride=1, padding=0, dilation=1, groups=1, *extra
) -> Tensor:
    """2-d cross-correlation over (N, C, H, W) or (C, H, W). Mirrors
    torch.nn.functional.conv2d."""
    if extra or input is REQUIRED or weight is REQUIRED:
        args = (input, weight, bias, stride, padding, dilation, groups)
        raise _conv_arity_error("conv2d", args, extra)
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, dilation, groups)
        return _autocast.call(conv2d, _autocast.LOWER, args)
    return _convnd(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input=REQUIRED, weight=REQUIRED, bias=None, stride=1, padding=0, dilation=1, groups=1, *extra
) -> Tensor:
    """3-d cross-correlation. Mirrors torch.nn.functional.conv3d."""
    if extra or input is REQUIRED or weight is REQUIRED:
        args = (input, weight, bias, stride, padding, dilation, groups)
        raise _conv_arity_error("conv3d", args, extra)
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, dilation, groups)
        return _autocast.call(conv3d, _autocast.LOWER, args)
    return _convnd(3, input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(
    n, input, weight, bias, stride, padding, output_padding, groups, dilation, output_size=None
):
    op = f"conv_transpose{n}d"
    _check_tensors(op, input, weight, bias)
    if groups.__class__ is not int:  # a float or None would reach the kernel's arithmetic
        groups = index(groups, op, "groups")
    x, unbatched = _batched(input, n, op)
    stride = _as_list(stride, n, "stride", op)
    p = _as_list(padding, n, "padding", op)
    dilation = _as_list(dilation, n, "dilation", op)
    op_pad = _as_list(output_padding, n, "output_padding", op)
    _check_weight_rank(weight)
    k = weight.ndim - 2
    stride, p = _fit(stride, k, "stride"), _fit(p, k, "padding")
    dilation, op_pad = _fit(dilation, k, "dilation"), _fit(op_pad, k, "output_padding")
    _check_shape_args(x, weight, p, stride, dilation, groups, output_padding=op_pad)
    if x.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {weight.shape[0]} channels, but got {x.shape[1]} "
            "channels instead"
        )
    _check_bias(weight, bias, weight.shape[1] * groups, transposed=True)
    names = ("depth", "height", "width")[3 - n :] if n > 1 else ("width",)
    if 0 in weight.shape[2:] and x.shape[0] and x.shape[1]:  # else torch says it later
        _check_kernel(weight, n, dilation, listed=False)
    # conv_transpose1d runs as a 2-d one over (1, L): its messages show that shape
    shape = (*x.shape[:2], 1, *x.shape[2:]) if n == 1 else x.shape
    if x.shape[0] and x.shape[1] and 0 in x.shape[2:]:
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{list(shape)}"
        )
    geom = (stride, dilation, groups)
    # oneDNN's kernel (a half input, a float32 one it takes) refuses another weight or bias
    # dtype before the sizes are checked
    onednn_dtypes = (
        (x.dtype is not weight.dtype or bias is not None and bias.dtype is not x.dtype)
        and x.shape[0]
        and (x.dtype in _dtype.HALF_FLOATS or _onednn_float32(x, weight, geom))
    )
    if 0 in dilation and x.shape[0] and not onednn_dtypes:  # an empty batch runs unchecked
        names_d = ("height", "width") if n == 1 else names  # conv_transpose1d runs as 2d
        dil = (1, *dilation) if n == 1 else dilation
        got = ", ".join(f"dilation_{a}: {v}" for a, v in zip(names_d, dil, strict=False))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")
    too_big = any(o >= max(s, d) for o, s, d in zip(op_pad, stride, dilation, strict=True))
    if too_big and x.shape[0]:  # (an empty batch runs unchecked)
        # conv_transpose1d runs as a 2-d one over (1, L): its message names a height of 0 / 1
        two = n == 1
        nm = ("height", "width") if two else names
        opp, st2, dl2 = (
            ((0, *op_pad), (1, *stride), (1, *dilation)) if two else (op_pad, stride, dilation)
        )
        parts = [f"output_padding_{a}: {v}" for a, v in zip(nm, opp, strict=False)]
        parts += [f"stride_{a}: {v}" for a, v in zip(nm, st2, strict=False)]
        parts += [f"dilation_{a}: {v}" for a, v in zip(nm, dl2, strict=False)]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(parts)
        )
    if onednn_dtypes:
        _check_dtypes(x, weight, bias, n, transposed=True, geom=geom)
        _transposed_bias_dtype(x, weight, bias, n, geom)
    if x.shape[0] and not weight.shape[1]:  # no output channels: torch's kernel refuses them
        per_group = [weight.shape[0] // groups, *weight.shape[1:]]
        if n == 3:
            raise RuntimeError(
                "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
                f"kernel_width) tensor expected for weight, but got: {per_group}"
            )
        if n == 1:  # (run as a 2-d one)
            per_group.insert(2, 1)
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {per_group}")
    kernel = tuple(weight.shape[2:])
    out_size = tuple(
        (s - 1) * st - 2 * pp + d * (k - 1) + o + 1
        for s, st, pp, d, k, o in zip(
            x.shape[2:], stride, p, dilation, kernel, op_pad, strict=False
        )
    )
    # an empty batch skips the check: an output size of 0 gives an empty result, as in torch
    if any(o < 0 for o in out_size) or (x.shape[0] and 0 in out_size):
        got = (1, *out_size) if n == 1 else out_size
        if not x.shape[0]:  # torch sizes its empty result [N, C, *sizes]: the shape's error
            _infer_shape((0, weight.shape[1] * groups, *got), 0, "view")
        raise RuntimeError(
            f"Given input size per channel: ({_sizes(shape[2:])}). Calculated output size per "
            f"channel: ({_sizes(got)}). Output size is too small"
        )
    if x.shape[0] and x.shape[1]:
        _check_dtypes(x, weight, bias, n, transposed=True, geom=geom)
    else:
        x, weight, bias = _empty_operands(x, weight, bias)
    if bias is not None and bias.dtype is not x.dtype:
        if x.shape[0] and x.shape[1]:
            _transposed_bias_dtype(x, weight, bias, n, geom)
        bias = bias.to(x.dtype)  # torch's transposed convolution casts a bias of another dtype
    out = ConvTranspose.apply(
        x,
        weight,
        bias,
        stride=stride,
        padding=tuple((v, v) for v in p),
        dilation=dilation,
        groups=groups,
        out_size=out_size,
    )
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """1-d transposed convolution. Mirrors torch.nn.functional.conv_transpose1d."""
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, output_padding, groups, dilation)
        return _autocast.call(conv_transpose1d, _autocast.LOWER, args)
    return _conv_transposend(
        1, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose2d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """2-d transposed convolution. Mirrors torch.nn.functional.conv_transpose2d."""
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, output_padding, groups, dilation)
        return _autocast.call(conv_transpose2d, _autocast.LOWER, args)
    return _conv_transposend(
        2, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


def conv_transpose3d(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1
) -> Tensor:
    """3-d transposed convolution. Mirrors torch.nn.functional.conv_transpose3d."""
    if _autocast.state.any_enabled:
        args = (input, weight, bias, stride, padding, output_padding, groups, dilation)
        return _autocast.call(conv_transpose3d, _autocast.LOWER, args)
    return _conv_transposend(
        3, input, weight, bias, stride, padding, output_padding, groups, dilation
    )


# --- sliding blocks ---


def _block_pair(value, name: str, op: str, pos: int) -> tuple:
    """One of fold/unfold's size arguments (argument `pos` of torch's im2col/col2im) as ints.
    As torch's _pair, an iterable is taken as its items (a tensor or an array too: a 0-d one
    cannot be iterated, a 1-element one is one value) and anything else is doubled, so a float
    fails the parser element by element; the count is checked later (see _check_pairs)."""
    if value.__class__ is int:
        return (value, value)
    if isinstance(value, Iterable):  # (a tensor's items: 0-d tensors, ints by __index__)
        value = tuple(value)
    else:
        value = (value, value)
    return int_list(value, op, name, pos)


def _check_pairs(**args) -> None:
    """After all arguments parsed: each must hold exactly two values (torch's im2col/col2im do
    not widen a one-entry list as conv does)."""
    for name, v in args.items():
        if len(v) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(v)}")


def _block_args(kernel_size, dilation, padding, stride, op="im2col", output_size=None):
    """(output_size, kernel, dilation, padding, stride) pairs (output_size: col2im's, None for
    im2col), checked in torch's order and words (before the input's rank, as torch's
    im2col/col2im shape check)."""
    unfold = op == "im2col"
    at = 2 if unfold else 3  # col2im takes output_size first
    size = None if unfold else _block_pair(output_size, "output_size", op, 2)
    k = _block_pair(kernel_size, "kernel_size", op, at)
    d = _block_pair(dilation, "dilation", op, at + 1)
    p = _block_pair(padding, "padding", op, at + 2)
    s = _block_pair(stride, "stride", op, at + 3)
    sizes = {} if unfold else {"output_size": size}
    _check_pairs(**sizes, kernel_size=k, dilation=d, padding=p, stride=s)
    for what, name, v, bad in (
        ("kernel size", "kernel", k, k[0] <= 0 or k[1] <= 0),
        ("dilation", "dilation", d, d[0] <= 0 or d[1] <= 0),
        ("padding", "pad", p, p[0] < 0 or p[1] < 0),
        ("stride", "stride", s, s[0] <= 0 or s[1] <= 0),
    ):
        if bad:
            rule = "be non-negative" if what == "padding" else "be greater than zero"
            raise RuntimeError(
                f"{what} should {rule}, but got {name}_height: {v[0]} {name}_width: {v[1]}"
            )
    return size, k, d, p, s


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding blocks as columns (N, C * prod(kernel), L). Mirrors torch.nn.functional.unfold
    (4-d or unbatched 3-d input)."""
    _check_tensor(input, "im2col")
    _, k, d, p, s = _block_args(kernel_size, dilation, padding, stride)
    if input.ndim < 3:  # torch reads the input's sizes (1) and (2) before its rank check
        if input.ndim == 0:
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, "
            f"{input.ndim - 1}], but got {input.ndim})"
        )
    # every dim but a 4-d input's batch must be non-empty: (1, 0, 3, 3) is refused, not unfolded
    if input.ndim not in (3, 4) or 0 in input.shape[input.ndim - 3 :]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    x = input.unsqueeze(0) if input.ndim == 3 else input
    blocks = [
        (size + 2 * pp - dd * (kk - 1) - 1) // ss + 1
        for size, kk, dd, pp, ss in zip(x.shape[2:], k, d, p, s, strict=False)
    ]
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size={k}, "
            f"dilation={d}, padding={p}, calculated shape of the array of sliding blocks as "
            f"{tuple(blocks)}, but its components must be at least one."
        )
    if input.dtype is not _dtype.bool:  # torch's im2col takes floats and bool, not integers
        _float_only(input, "im2col_out_cpu", "unfold")  # (after its shape checks, as torch)
    out = Im2Col.apply(x, kernel=k, stride=s, padding=tuple((v, v) for v in p), dilation=d)
    if input.ndim == 4:
        return out
    # torch's kernel takes the unbatched input as it is: one node, with its edge to input
    out = out.squeeze(0)
    if not out._requires_grad:
        return out
    attrs = _blocks_attrs(k, d, p, s)
    attrs["self_sym_argsize_minus_1"] = input.shape[-1]
    attrs["self_sym_argsize_minus_2"] = input.shape[-2]
    return as_node(out, "Im2ColBackward0", (input,), keep=True, attrs=attrs)


def _blocks_attrs(k, d, p, s) -> dict:
    """What an unbatched unfold's or fold's node keeps for its grad_fn._saved_<name>
    attributes, as torch's Im2ColBackward0 / Col2ImBackward0 (Im2Col's and Col2Im's own nodes
    read theirs from the Function's geometry)."""
    return {"dilation": tuple(d), "kernel_size": tuple(k), "padding": tuple(p), "stride": tuple(s)}


_BLOCKS = ("dilation", "kernel_size", "padding", "stride")
show_saved("Col2ImBackward0", {k: k for k in _BLOCKS})
show_saved(
    "Im2ColBackward0",
    {k: k for k in (*_BLOCKS, "self_sym_argsize_minus_1", "self_sym_argsize_minus_2")},
)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sums sliding-block columns back into (N, C, *output_size). Mirrors
    torch.nn.functional.fold (3-d or unbatched 2-d input)."""
    _check_tensor(input, "col2im")
    size, k, d, p, s = _block_args(kernel_size, dilation, padding, stride, "col2im", output_size)
    if input.ndim not in (2, 3) or 0 in input.shape[input.ndim - 2 :]:  # as unfold's check
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    x = input.unsqueeze(0) if input.ndim == 2 else input
    if x.shape[1] % prod(k):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={x.shape[1]} and kernel_size={k}."
        )
    blocks = [
        (sz + 2 * pp - dd * (kk - 1) - 1) // ss + 1
        for sz, kk, dd, pp, ss in zip(size, k, d, p, s, strict=False)
    ]
    if prod(blocks) != x.shape[2]:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, "
            f"stride={s}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {blocks[0]} * {blocks[1]} = {prod(blocks)}, but got "
            f"input.size(2)={x.shape[2]}."
        )
    # after the count check, as torch: a grid of (-1, -1) has the product 1 and gets here
    if any(b < 1 for b in blocks):
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, "
            f"stride={s}, calculated shape of the array of sliding blocks as {tuple(blocks)}, "
            "which is too small (non-positive)"
        )
    if input.dtype is not _dtype.bool:  # as unfold
        _float_only(input, "col2im_out_cpu", "fold")
    out = Col2Im.apply(
        x, output_size=size, kernel=k, stride=s, padding=tuple((v, v) for v in p), dilation=d
    )
    if input.ndim == 3:
        return out
    out = out.squeeze(0)  # one node for the unbatched input, as unfold's
    if not out._requires_grad:
        return out
    return as_node(out, "Col2ImBackward0", (input,), keep=True, attrs=_blocks_attrs(k, d, p, s))


# --- pixel shuffle ---


def _fresh(out: Tensor, input: Tensor) -> Tensor:
    """out, or a copy where the reshapes moved nothing (a factor of 1, or 1 x 1 planes) and left
    a view of the input: torch's result is always new memory, row-major (channels-last for a
    channels-last 4-d input), so an in-place op on it must not reach the input."""
    if out._base is None:
        return out
    if input.ndim == 4 and not input.is_contiguous() and _mf.is_in(input._data, _mf.channels_last):
        return out.clone()  # out has input's channels-last strides: preserve them
    return out.clone(memory_format=_mf.contiguous_format)


def _shuffle_node(out: Tensor, input: Tensor, name: str, key: str, r: int) -> Tensor:
    """out as torch's one kernel records it: one node `name` with its edge to input, saving no
    tensor, showing the factor as grad_fn._saved_<key>."""
    if not out._requires_grad:
        return out
    return as_node(out, name, (input,), keep=True, attrs={key: r})


show_saved("PixelShuffleBackward0", {"upscale_factor": "upscale_factor"})
show_saved("PixelUnshuffleBackward0", {"downscale_factor": "downscale_factor"})


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C*r^2, H, W) -> (*, C, H*r, W*r). Mirrors torch.nn.functional.pixel_shuffle."""
    r = upscale_factor
    if r.__class__ is not int or not isinstance(input, Tensor):
        _arg.tensor(input, "pixel_shuffle")
        r = index(r, "pixel_shuffle", "upscale_factor", 2)
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    k = len(lead)
    # torch keeps the layout, (N, H, W, C), but not on the meta device
    if r > 1 and _mf.suggests_channels_last(input._data) and not input.is_meta:
        x = input.permute(_mf.NHWC).reshape((lead[0], h, w, c // (r * r), r, r))
        x = x.permute((0, 1, 4, 2, 5, 3)).reshape((lead[0], h * r, w * r, c // (r * r)))
        out = x.permute(_mf.NCHW).clone(memory_format=_mf.channels_last)  # not a view
    else:
        x = input.reshape((*lead, c // (r * r), r, r, h, w))
        x = x.permute((*range(k), k, k + 3, k + 1, k + 4, k + 2))
        out = _fresh(x.reshape((*lead, c // (r * r), h * r, w * r)), input)
    return _shuffle_node(out, input, "PixelShuffleBackward0", "upscale_factor", r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r^2, H, W). Mirrors torch.nn.functional.pixel_unshuffle."""
    r = downscale_factor
    if r.__class__ is not int or not isinstance(input, Tensor):
        _arg.tensor(input, "pixel_unshuffle")
        r = index(r, "pixel_unshuffle", "downscale_factor", 2)
    if input.ndim < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({dim})={size} is not divisible by {r}"
            )
    k = len(lead)
    if input.numel() == 0:  # torch returns an empty input as it is (a copy), shape unchanged
        out = input.clone(memory_format=_mf.contiguous_format)
    elif r > 1 and _mf.suggests_channels_last(input._data):  # torch keeps the layout: NHWC
        x = input.permute(_mf.NHWC).reshape((lead[0], h // r, r, w // r, r, c))
        x = x.permute((0, 1, 3, 5, 2, 4)).reshape((lead[0], h // r, w // r, c * r * r))
        out = x.permute(_mf.NCHW).clone(memory_format=_mf.channels_last)  # not a view
    else:
        x = input.reshape((*lead, c, h // r, r, w // r, r))
        x = x.permute((*range(k), k, k + 2, k + 4, k + 1, k + 3))
        out = _fresh(x.reshape((*lead, c * r * r, h // r, w // r)), input)
    return _shuffle_node(out, input, "PixelUnshuffleBackward0", "downscale_factor", r)
