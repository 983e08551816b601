"""nn.functional: interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area; antialiased bilinear and bicubic; uint8 bilinear and bicubic) and its deprecated upsample
aliases, composed from index_select and pointwise ops so every mode is twice
differentiable."""

from __future__ import annotations

import math
import struct
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype
from minitorch import _memory_format as _mf
from minitorch._backend import cpu as _CPU
from minitorch._factories import arange, tensor
from minitorch._ops import index_select, maximum, minimum
from minitorch._ops._common import is_index, type_name
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node, show_saved
from minitorch.autograd.function import fast_path, plain_result
from minitorch.autograd.grad_mode import state as _grad_state
from minitorch.nn._functional_conv import ntuple
from minitorch.nn._functional_pool import _adaptive_avg

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

# --- interpolation ---

_ALIGNABLE = ("linear", "bilinear", "bicubic", "trilinear")
# (torch's bicubic on another rank falls to the generic "Input Error" below instead)
_LINEAR_RANK = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _scalar(value, dtype, like: Tensor) -> Tensor:
    """A 0-d tensor of `dtype` (the rounding torch's kernels do in float32 happens here)."""
    return tensor(value, dtype=dtype, device=like.device)


def _nearest_index(L, o, scale, exact, shortcuts, x):
    """torch's source index of each output position: floor(i * scale) (nearest) or
    floor((i + 0.5) * scale) (nearest-exact), computed in float32 as torch's kernel does.
    See NOTE [ Unchanged sizes ] for `shortcuts`."""
    if shortcuts and o == L:
        return arange(o, device=x.device)
    if shortcuts and o == 2 * L:
        return arange(o, device=x.device) // 2
    s = 1.0 / scale if scale is not None and scale > 0 else L / o
    i = arange(o, dtype=_dtype.float32, device=x.device)
    if exact:
        i = i + 0.5
    return minimum(
        (i * _scalar(s, _dtype.float32, x)).floor().long(), _scalar(L - 1, _dtype.int64, x)
    )


# NOTE [ Unchanged sizes ]
# A scale_factor can leave a dim's size unchanged (floor(5 * 1.1) = 5) while the source index
# still maps through 1 / scale_factor (torch keeps the given scale unless
# recompute_scale_factor=True). torch's kernels then disagree with each other, and minitorch
# follows each one's forward:
# - linear, bilinear, trilinear: a dim whose output size equals its input size is copied
#   (torch's "scale_factor = 1, simply copy" in its linear index computation), per dim; its
#   kernel still adds the second tap, the same element with weight 0 (an infinity gives NaN).
# - nearest: only the 2-d kernel keeps torch's legacy shortcuts (output size == input size:
#   copy; == 2 * input size: i // 2); 1-d and 3-d always use floor(i / scale_factor), so
#   5 at 1.1 gives indices [0, 0, 1, 2, 3].
# - bicubic and nearest-exact always resample; antialias and uint8 skip the dim (see NOTE
#   [ Separable resampling ]).
# With recompute_scale_factor=True, a size, or align_corners=True every mode maps an unchanged
# dim onto itself, so only the scale_factor path differs.


def _source_index(L, o, scale, align_corners, x) -> Tensor:
    """Each output position's source coordinate along one axis (unclamped), in x's float type as
    torch computes it. In float32, scale * (i + 0.5) - 0.5 is one fused multiply-add in torch's
    kernels (one rounding, not two): the float64 value from the float32 scale is exact for any
    i below 2 ** 28, and rounding it once to float32 gives torch's coordinate."""
    dt = x.dtype
    if align_corners:
        s = (L - 1) / (o - 1) if o > 1 else 0.0
        return arange(o, dtype=dt, device=x.device) * _scalar(s, dt, x)
    s = 1.0 / scale if scale is not None and scale > 0 else L / o
    if dt is not _dtype.float32:
        i = arange(o, dtype=dt, device=x.device)
        return (i + 0.5) * _scalar(s, dt, x) - 0.5
    i = arange(o, dtype=_dtype.float64, device=x.device)
    return ((i + 0.5) * _scalar(_float32(s), _dtype.float64, x) - 0.5).to(dt)


def _linear_weights(L, o, scale, align_corners, x, half=None):
    """(i0, i1, lambda0, lambda1) of each output position along one axis, as torch computes
    them in the input's float type. Given half (the input's 2-byte type; x is then its float32
    copy), lambda1 is kept in it and lambda0 = 1 - lambda1 taken there, as torch's linear and
    trilinear kernels do (its bilinear one keeps float32 lambdas)."""
    dt = x.dtype
    src = maximum(_source_index(L, o, scale, align_corners, x), _scalar(0.0, dt, x))
    i0 = src.long()
    l1 = src - i0.to(dt)
    i1 = minimum(i0 + 1, _scalar(L - 1, _dtype.int64, x))
    if half is not None:
        l1 = l1.to(half)
        return i0, i1, (1.0 - l1).to(dt), l1.to(dt)
    return i0, i1, 1.0 - l1, l1


# NOTE [ Bicubic interpolation ]
# torch's bicubic mode (Keys' cubic convolution with A = -0.75): the source coordinate is computed
# as for linear modes but NOT clamped at 0, the four taps floor(src) - 1 .. floor(src) + 2 are
# clamped into the input (border replication), and with t = src - floor(src) their weights are
# W(t + 1), W(t), W(1 - t), W(2 - t) where W(x) = ((A + 2) x - (A + 3)) x^2 + 1 for |x| <= 1 and
# ((A x - 5A) x + 8A) x - 4A for 1 < |x| < 2. Applied separably, one spatial dim at a time.
_CUBIC_A = -0.75


def _cubic_near(x: Tensor) -> Tensor:
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far(x: Tensor) -> Tensor:
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _cubic_taps(L, o, scale, align_corners, x, half=None):
    """[(index, weight)] * 4 of each output position along one axis. See NOTE [ Bicubic
    interpolation ]. Given half (the input's 2-byte type; x is then its float32 copy), the
    weights are rounded to it, as torch's kernel keeps them."""
    src = _source_index(L, o, scale, align_corners, x)
    base = src.floor()
    t = src - base
    base = base.long()
    t1 = 1 - t  # torch's last weight is W((1 - t) + 1), rounded so
    weights = (_cubic_far(t + 1), _cubic_near(t), _cubic_near(t1), _cubic_far(t1 + 1))
    if half is not None:
        weights = tuple(w.to(half).to(x.dtype) for w in weights)
    lo, hi = _scalar(0, _dtype.int64, x), _scalar(L - 1, _dtype.int64, x)
    return [(minimum(maximum(base + k - 1, lo), hi), w) for k, w in enumerate(weights)]


# NOTE [ Separable resampling ]
# torch's antialias kernels (_upsample_{bilinear,bicubic}2d_aa) and its uint8 bilinear/bicubic
# kernels are a Pillow-style separable resampler. Along one axis, output i reads the window
# [xmin, xmin + xsize) of the input with weights filter((j + xmin - center + 0.5 - d) * invscale)
# normalised to sum 1, where center = scale * (i + 0.5 - d), xmin = max(trunc(center - support
# + 0.5 + d), 0), xsize = min(trunc(center + support + 0.5 + d), L) - xmin, scale is the usual
# area_pixel_compute_scale ((L - 1) / (o - 1) under align_corners), d = 0.5 only for uint8 with
# align_corners and no antialias, and support = interp_size / 2 (bilinear 1, bicubic 2) times
# scale, invscale = 1 / scale, when antialiasing a downsample (scale >= 1). The filters: the
# triangle, and Keys' cubic with A = -0.5 (Pillow's). uint8 bicubic WITHOUT antialias is the
# float kernel instead (A = -0.75, taps floor(src) - 1 .. + 2 clamped into the input, the
# weights of a clamped tap added up). A dim whose size does not change is skipped (torch's
# separable kernels copy it). uint8: each axis's double weights become int16 fixed point with
# the most fractional bits (< 22) that keep the largest weight in int16, and each pass gives
# clamp((sum w * x + 2 ** (prec - 1)) >> prec, 0, 255): uint8 between the passes. The weights
# are computed here on the host in Python floats, in torch's order of operations, as each
# axis's window taps; a pass sums them tap by tap, the last dim first. The
# fixed-point sums run in float64, where they are exact (integers far below 2 ** 53).


def _area_scale(L, o, scale, align_corners) -> float:
    """torch's area_pixel_compute_scale, in double."""
    if align_corners:
        return (L - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else L / o


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _keys_pillow(x: float) -> float:
    """Keys' cubic with A = -0.5, torch's antialias (and Pillow's) bicubic filter."""
    x = abs(x)
    if x < 1.0:
        return (1.5 * x - 2.5) * x * x + 1
    if x < 2.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return 0.0


def _lanczos3(x: float) -> float:
    """The Lanczos-3 windowed sinc, torch's (antialias-only) lanczos filter."""
    x = abs(x)
    if x == 0.0:
        return 1.0
    if x >= 3.0:
        return 0.0
    px = math.pi * x
    return 3.0 * math.sin(px) * math.sin(px / 3.0) / (px * px)


def _float(x: float) -> float:
    return x


def _float32(x: float) -> float:
    """x rounded to float32."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _window_taps(L, o, scale, align_corners, mode, antialias, rnd=_float):
    """([(xmin, [weight, ...])] per output position, the largest weight) of one axis. See
    NOTE [ Separable resampling ]. rnd rounds the scale and the positions to the float type
    torch computes them in (float32 for float32 input): their rounding error, times the input
    size, is what moves the weights most; the rest is double, a float32 ulp from torch's."""
    scale = rnd(_area_scale(L, o, scale, align_corners))
    interp_size = {"bilinear": 2, "bicubic": 4, "lanczos": 6}[mode]
    support, invscale = interp_size * 0.5, 1.0
    if antialias and scale >= 1.0:
        support, invscale = rnd(interp_size * 0.5 * scale), rnd(1.0 / scale)
    max_size = math.ceil(support) * 2 + 1 if antialias else interp_size
    delta = 0.5 if align_corners and not antialias else 0.0
    filt = {"bilinear": _triangle, "bicubic": _keys_pillow, "lanczos": _lanczos3}[mode]
    rows, w_max = [], 0.0
    for i in range(o):
        center = rnd(scale * (i + 0.5 - delta))
        xmin = max(int(rnd(rnd(center - support) + 0.5) + delta), 0)
        xsize = min(int(rnd(rnd(center + support) + 0.5) + delta), L) - xmin
        xsize = min(max(xsize, 0), max_size)
        w = [filt(rnd(rnd(rnd(j + xmin - center) + 0.5) - delta) * invscale) for j in range(xsize)]
        total = 0.0
        for v in w:  # in order, as torch (builtin sum may compensate)
            total += v
        if total != 0.0:
            w = [v / total for v in w]
            w_max = max(w_max, *w)
        rows.append((xmin, w))
    return rows, w_max


def _cubic_clamped_taps(L, o, scale, align_corners):
    """As _window_taps, for torch's uint8 bicubic without antialias: the float kernel's four
    taps (see NOTE [ Bicubic interpolation ]) with the weights of clamped indices added up."""
    scale = _area_scale(L, o, scale, align_corners)
    rows, w_max = [], 0.0
    for i in range(o):
        src = scale * i if align_corners else scale * (i + 0.5) - 0.5
        base = min(math.floor(src), L - 1)
        t = min(max(src - base, 0.0), 1.0)
        w4 = (_cubic_far(t + 1.0), _cubic_near(t), _cubic_near(1.0 - t), _cubic_far(1.0 - t + 1.0))
        first = min(max(base - 1, 0), L - 1)
        w = [0.0] * (min(max(base + 2, 0), L - 1) - first + 1)
        for k, v in enumerate(w4):
            w[min(max(base - 1 + k, 0), L - 1) - first] += v
        w_max = max(w_max, *w)
        rows.append((first, w))
    return rows, w_max


def _fixed_point(rows, w_max):
    """The rows' weights as int16 fixed point (torch's rounding), and the number of fractional
    bits: the most below 22 that keep round(w_max * 2 ** bits) in int16."""
    prec = 0
    while prec < 22 and int(0.5 + w_max * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    one = 1 << prec
    rows = [
        (x0, [int(v * one - 0.5) if v < 0 else int(v * one + 0.5) for v in w]) for x0, w in rows
    ]
    return rows, prec


def _window_taps_tensors(rows, dtype, like: Tensor) -> tuple:
    """The (len(rows), k) input indices and weights of [(xmin, weights)] rows, on like's
    device; a short row is padded with its first index at weight 0 (a tap torch reads too)."""
    k = max(1, *(len(w) for _, w in rows))
    idx = [[x0 + j for j in range(len(w))] + [x0] * (k - len(w)) for x0, w in rows]
    val = [list(w) + [0] * (k - len(w)) for _, w in rows]
    dev = like.device
    return tensor(idx, dtype=_dtype.int64, device=dev), tensor(val, dtype=dtype, device=dev)


def _apply_along(x: Tensor, taps: tuple, dim: int) -> Tensor:
    """x resampled along dim (-1 or -2) by its window taps, summed tap by tap as torch's
    kernels do: a NaN reaches only the outputs whose window holds it (a dense weight matrix
    would spread it through its zeros)."""
    idx, val = taps
    out = None
    for j in range(idx.shape[1]):
        w = val[:, j] if dim == -1 else val[:, j : j + 1]
        term = index_select(x, dim, idx[:, j]) * w
        out = term if out is None else out + term
    return out


def _separable_resample(input, sizes, scales, mode, align_corners, antialias) -> Tensor:
    """torch's separable resampler: antialiased bilinear/bicubic of float input, and bilinear/
    bicubic of uint8 input. See NOTE [ Separable resampling ]."""
    have = input.shape[2:]
    uint8 = input.dtype is _dtype.uint8
    half = input.dtype in _dtype.HALF_FLOATS
    out = input.to(_dtype.float64) if uint8 else input.float() if half else input
    changed = False
    for dim in (-1, -2):  # the last dim first, as torch
        L, o = have[dim], sizes[dim]
        if L == o:
            continue
        changed = True
        if uint8 and mode == "bicubic" and not antialias:
            rows, w_max = _cubic_clamped_taps(L, o, scales[dim], align_corners)
        else:
            rnd = _float32 if out.dtype is _dtype.float32 else _float
            rows, w_max = _window_taps(L, o, scales[dim], align_corners, mode, antialias, rnd)
        if not uint8:
            out = _apply_along(out, _window_taps_tensors(rows, out.dtype, out), dim)
            continue
        rows, prec = _fixed_point(rows, w_max)
        acc = _apply_along(out, _window_taps_tensors(rows, out.dtype, out), dim)
        rounding = float(1 << (prec - 1)) if prec > 0 else 0.0
        out = ((acc + rounding) * (1.0 / (1 << prec))).floor().clamp(0, 255)
    if not changed:
        return input.clone()
    return out.to(input.dtype) if uint8 or half else out


def _int_kernel(mode: str, n: int, antialias: bool) -> str:
    """The name torch's CPU kernel gives when its dtype dispatch refuses an integer input."""
    if antialias:
        return "compute_index_ranges_weights"
    if mode == "area":
        return "adaptive_avg_pool3d_cpu" if n == 3 else "adaptive_avg_pool2d"
    if n == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    kernel = {"linear": "linear", "trilinear": "linear", "bicubic": "cubic"}.get(mode, "nearest")
    return f"compute_indices_weights_{kernel}"


def _check_half_antialias(input, sizes) -> None:
    """torch's CPU antialias kernels have no float16/bfloat16 form (its CUDA ones do, computing
    in float32 as minitorch does everywhere): NotImplementedError unless the output size is the
    input's, which torch copies before reaching the kernel (an empty batch still raises)."""
    if tuple(sizes) != tuple(input.shape[2:]):
        raise NotImplementedError(
            '"compute_index_ranges_weights" not implemented for '
            f"'{_dtype.scalar_name(input.dtype)}'"
        )


def _along(t: Tensor, dim: int) -> Tensor:
    """A 1-d tensor shaped to broadcast along dim of an (ndim)-d tensor."""
    return t.reshape((-1,) + (1,) * (-dim - 1))


def _check_spatial_count(input, n, size, scale_factor, recompute_scale_factor) -> None:
    """torch's first checks of size and scale_factor, made before the mode's: a 3-D input with
    mode='bilinear' and a 2-d size (a forgotten batch dim) is this ValueError, not the mode's
    NotImplementedError."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    have = list(input.shape[2:])
    # only a list or tuple is a size per dim; anything else is one size for every dim (an
    # int-like one, NOTE [ Int-like arguments ]; any other is refused by the kernel's parser)
    if isinstance(size, (list, tuple)):
        if len(size) != n:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, "
                f"but got input with spatial dimensions of {have} and output size of {size}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                "(o1, o2, ...,oK) format."
            )
        if not all(_size_like(v) for v in size):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, "
                f"int, int], but got size with types {[type(v) for v in size]}"
            )
    if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != n:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial "
            f"dimensions, but got input with spatial dimensions of {have} and scale_factor of "
            f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
            "and scale_factor in (s1, s2, ...,sK) format."
        )
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")


def _size_like(v) -> bool:
    """torch's test of a size entry: an int, a NumPy integer or a tensor of an integer dtype."""
    if isinstance(v, Tensor):
        return not v.dtype.is_floating_point
    return isinstance(v, int) or is_index(v)


# torch's upsample kernels' second signature: the per-dim scales after the output size
_SCALES = {1: "float scales = None", 2: "float scales_h = None, float scales_w = None"}
_SCALES[3] = "float scales_d = None, " + _SCALES[2]


def _check_kernel_args(input, n, mode, size, scale_factor, antialias) -> None:
    """torch's kernel parser on the size or scale factor that its interpolate repeats for every
    dim when it is not a list or tuple: a str, float or tensor size (other than one integer
    element), a str or tensor scale_factor, are an invalid combination of arguments (for 'area',
    adaptive_avg_pool's "tuple of ints" TypeError)."""
    if size is not None:
        if isinstance(size, (list, tuple)) or isinstance(size, int) or is_index(size):
            return
        if isinstance(size, Tensor) and size.numel() == 1 and not size.dtype.is_floating_point:
            return
        if mode == "area":
            raise TypeError(
                f"adaptive_avg_pool{n}d(): argument 'output_size' (position 2) must be tuple of "
                f"ints, but found element of type {type_name(size)} at pos 0"
            )
        given = size
    elif scale_factor is None or isinstance(scale_factor, (list, tuple, int, float)):
        return
    elif is_index(scale_factor) and not isinstance(scale_factor, Tensor):  # (np.int64(2))
        return
    else:
        given = scale_factor
    shown = f"!list of [{', '.join([type_name(given)] * n)}]!"
    if mode == "nearest" or mode == "nearest-exact":
        kernel = f"upsample_nearest{n}d" if mode == "nearest" else f"_upsample_nearest_exact{n}d"
        flag = ""
    else:
        kernel = {"linear": "linear1d", "bicubic": "bicubic2d", "trilinear": "trilinear3d"}.get(
            mode, "lanczos2d" if mode == "lanczos" else "bilinear2d"
        )
        kernel = f"_upsample_{kernel}_aa" if antialias else f"upsample_{kernel}"
        flag = "bool align_corners, "
    b = "bool, " if flag else ""
    got, marked = ("list, " + b + "NoneType", f"{shown}, {b}!NoneType!")
    if size is None:
        got, marked = ("NoneType, " + b + "list", f"!NoneType!, {b}{shown}")
    raise TypeError(
        f"{kernel}() received an invalid combination of arguments - got (Tensor, {got}), but "
        "expected one of:\n"
        f" * (Tensor input, tuple of ints output_size, {flag}tuple of floats scale_factors)\n"
        "      didn't match because some of the arguments have invalid types: "
        f"(Tensor, {marked})\n"
        f" * (Tensor input, tuple of ints output_size, {flag}{_SCALES[n]}, *, Tensor out = None)\n"
    )


def _check_kernel_dtype(input, n, mode, antialias) -> None:
    """torch's CPU kernels take floating types, and uint8 for the nearest and 2-d modes only;
    they check the dtype after the sizes."""
    if not input.dtype.is_floating_point and (
        input.dtype is not _dtype.uint8 or mode in ("linear", "trilinear", "area")
    ):
        raise NotImplementedError(
            f'"{_int_kernel(mode, n, antialias)}" not implemented for '
            f"'{_dtype.scalar_name(input.dtype)}'"
        )


def _align_corners_error(input, n, mode, antialias, size, scale_factor, align_corners):
    """torch's TypeError for an align_corners that is no bool: its interpolate passes it on to
    the upsample kernel with output_size and scale_factors as it built them (the caller's list
    or tuple as it is, a single number repeated into a list, None for the one not given, and a
    recomputed size as a list), and the kernel's parser finds no overload for them."""
    from minitorch._ops._parser_errors import invalid_arguments

    if size is not None:
        output_size, factors = (size if isinstance(size, (list, tuple)) else [size] * n), None
    elif isinstance(scale_factor, (list, tuple)):
        output_size, factors = None, scale_factor
    else:
        output_size, factors = None, [scale_factor] * n
    kernel = {"linear": "linear1d", "bicubic": "bicubic2d", "trilinear": "trilinear3d"}
    kernel = kernel.get(mode, "bilinear2d")
    kernel = f"_upsample_{kernel}_aa" if antialias else f"upsample_{kernel}"
    forms = (
        "Tensor input, tuple of ints output_size, bool align_corners, "
        "tuple of floats scale_factors",
        f"Tensor input, tuple of ints output_size, bool align_corners, {_SCALES[n]}, *, "
        "Tensor out = None",
    )
    return invalid_arguments(kernel, forms, (input, output_size, align_corners, factors), {})


def _output_sizes(input, n, size, scale_factor, recompute_scale_factor):
    have = input.shape[2:]
    if size is not None:
        sizes = ntuple(size, n, "size", "interpolate")
        return sizes, (None,) * n
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (int, float)) or is_index(scale_factor):
        factors = (float(scale_factor),) * n
    else:
        factors = tuple(float(f) for f in scale_factor)
        if len(factors) != n:  # a sequence other than a list or tuple
            raise ValueError(
                f"interpolate: Input and scale_factor must have the same number of spatial "
                f"dimensions, but got input with spatial dimensions of {list(have)} and "
                f"scale_factor of shape {list(scale_factor)}."
            )
    products = [L * f for L, f in zip(have, factors, strict=False)]
    if not recompute_scale_factor:
        # torch's kernel floors these into int64: an infinite, NaN or huge one raises there (with
        # recompute_scale_factor=True torch floors in Python: math.floor's own errors below)
        if not all(-(2**63) <= v < 2**63 for v in products):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
    sizes = tuple(math.floor(v) for v in products)
    return sizes, ((None,) * n if recompute_scale_factor else factors)


# torch's node names for its interpolation kernels ("area" is adaptive average pooling)
_UPSAMPLE_NODES = {
    "nearest": "UpsampleNearest{}DBackward0",
    "nearest-exact": "UpsampleNearestExact{}DBackward0",
    "linear": "UpsampleLinear1DBackward0",
    "bilinear": "UpsampleBilinear2DBackward0",
    "bicubic": "UpsampleBicubic2DBackward0",
    "trilinear": "UpsampleTrilinear3DBackward0",
}
_ANTIALIAS_NODES = {
    "bilinear": "UpsampleBilinear2DAaBackward0",
    "bicubic": "UpsampleBicubic2DAaBackward0",
    "lanczos": "UpsampleLanczos2DAaBackward0",
}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
) -> Tensor:
    """Resizes the spatial dims of (N, C, *spatial) input. Mirrors
    torch.nn.functional.interpolate for modes nearest, nearest-exact, linear, bilinear,
    bicubic, trilinear, lanczos (4-d, antialias=True only) and area, and antialias=True for
    bilinear, bicubic and lanczos.

    Differences from torch: float32 antialias results differ
    from torch's by float32 rounding (the sums run in another order). uint8 bilinear/bicubic
    give torch's values exactly, and antialias torch's gradients, except where torch's CPU
    kernels are themselves wrong: with an output width of 1 and a height that changes, torch
    repeats the first output row (antialias, and uint8 with more than 4 channels); and where a
    scale_factor leaves a dim's size unchanged (or doubles it, for 1-d/3-d nearest), torch's
    antialias forward copies that dim but its backward resamples it, and its bicubic and 1-d/3-d
    nearest forwards resample it but their backwards copy it (minitorch's gradient is that of
    the forward; see NOTE [ Unchanged sizes ])."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    # (torch's input.dim(): a non-tensor's AttributeError names dim)
    _check_spatial_count(input, input.dim() - 2, size, scale_factor, recompute_scale_factor)
    if antialias and not (mode in _ANTIALIAS_NODES and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    n = input.ndim - 2
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if n not in (1, 2, 3) or mode not in known + ("lanczos",) or (
        mode in ("bicubic", "lanczos") and n != 2
    ):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    if mode in _LINEAR_RANK and _LINEAR_RANK[mode] != n:
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_RANK[mode] + 2}D input"
        )
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if size is not None or not (recompute_scale_factor or mode == "area"):
        _check_kernel_args(input, n, mode, size, scale_factor, antialias)
    sizes, scales = _output_sizes(input, n, size, scale_factor, recompute_scale_factor)
    have = input.shape[2:]
    if align_corners.__class__ is not bool and (mode in _LINEAR_RANK or mode == "bicubic"):
        passed = (size, scale_factor) if not recompute_scale_factor else (list(sizes), None)
        raise _align_corners_error(input, n, mode, antialias, *passed, align_corners)
    if mode == "area":  # (the adaptive pool checks the dtype: a mean's words for one position)
        return _adaptive_avg(input, n, sizes, f"adaptive_avg_pool{n}d")
    if any(s <= 0 for s in sizes) or 0 in have:
        names = ("D", "H", "W")[3 - n :]
        ins = ", ".join(f"{a}: {v}" for a, v in zip(names, have, strict=False))
        outs = ", ".join(f"{a}: {v}" for a, v in zip(names, sizes, strict=False))
        joint = " and" if n == 1 else ""  # torch's 1-d kernels say "and output"
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({ins}){joint} "
            f"output ({outs})"
        )
    if input.shape[1] == 0:  # torch's upsample kernels take an empty batch, not empty channels
        raise RuntimeError(
            f"Non-empty {input.ndim}D data tensor expected but got a tensor with "
            f"sizes {list(input.shape)}"
        )
    _check_kernel_dtype(input, n, mode, antialias)
    if antialias or (input.dtype is _dtype.uint8 and mode in ("bilinear", "bicubic")):
        if antialias and input.dtype in _dtype.HALF_FLOATS and input._device.type == "cpu":
            _check_half_antialias(input, sizes)
        if _autocast.state.any_enabled:  # torch's resize kernels run in the input's dtype
            args = (input, sizes, scales, mode, align_corners, antialias)
            out = _autocast.call(_separable_resample, "", args)
        else:
            out = _separable_resample(input, sizes, scales, mode, align_corners, antialias)
        names = _ANTIALIAS_NODES if antialias else _UPSAMPLE_NODES
        out = _keep_layout(out, input)
        attrs = _upsample_attrs(input, sizes, scales, align_corners) if out._requires_grad else None
        return as_node(out, names[mode], (input,), keep=True, attrs=attrs)  # sizes only
    if (
        mode in _LINEAR_RANK
        and input.__class__ is Tensor
        and input._device is _CPU
        and not (input._requires_grad and _grad_state.enabled)
        and fast_path[0]
        and not _autocast.state.any_enabled
        and input._data.dtype.kind == "f"
        and input._data.dtype.itemsize >= 4
        and input._data.flags.c_contiguous
        and all(h != s for h, s in zip(have, sizes, strict=True))
    ):
        out = _linear_no_grad(input, n, have, sizes, scales, align_corners)
        return _keep_layout(plain_result(out, _CPU), input)
    if (
        mode.startswith("nearest")
        and input.__class__ is Tensor
        and input._device is _CPU
        and not (input._requires_grad and _grad_state.enabled)
        and fast_path[0]
        and not _autocast.state.any_enabled
        and input._data.flags.c_contiguous
    ):
        out = _nearest_no_grad(input, n, have, sizes, scales, mode == "nearest-exact")
        return _keep_layout(plain_result(out, _CPU), input)
    out = input
    half = input.dtype in _dtype.HALF_FLOATS and not mode.startswith("nearest")
    if half:  # weights and sums in float32, rounded once, as torch's kernels
        out = input.float()
    like = out
    for i in range(n - 1, -1, -1):  # the last dim first, as torch's separable kernels
        dim = i - n
        if mode.startswith("nearest"):
            exact = mode == "nearest-exact"
            shortcuts = not exact and n == 2  # See NOTE [ Unchanged sizes ]
            idx = _nearest_index(have[i], sizes[i], scales[i], exact, shortcuts, input)
            out = index_select(out, input.ndim + dim, idx)
            continue
        if mode == "bicubic":
            taps = _cubic_taps(
                have[i], sizes[i], scales[i], align_corners, like, input.dtype if half else None
            )
            terms = [index_select(out, input.ndim + dim, j) * _along(w, dim) for j, w in taps]
            out = terms[0] + terms[1] + terms[2] + terms[3]
            continue
        if have[i] == sizes[i]:  # copied; See NOTE [ Unchanged sizes ]
            out = out + out * 0.0
            continue
        lambdas = input.dtype if half and mode != "bilinear" else None  # as torch's kernels
        i0, i1, l0, l1 = _linear_weights(have[i], sizes[i], scales[i], align_corners, like, lambdas)
        a = index_select(out, input.ndim + dim, i0)
        b = index_select(out, input.ndim + dim, i1)
        out = a * _along(l0, dim) + b * _along(l1, dim)
    out = out.to(input.dtype) if half else input.clone() if out is input else out
    out = _keep_layout(out, input)
    attrs = _upsample_attrs(input, sizes, scales, align_corners) if out._requires_grad else None
    return as_node(out, _UPSAMPLE_NODES[mode].format(n), (input,), keep=True, attrs=attrs)


def _upsample_attrs(input, sizes, scales, align_corners) -> dict:
    """What interpolate's node keeps for its grad_fn._saved_<name> attributes, as torch's
    Upsample*Backward0 saves them: the output size, each dim's scale (None where a size was
    given or recompute_scale_factor), align_corners (the linear and cubic modes; None for the
    nearest ones, whose nodes do not show it) and the input's sizes. No tensor."""
    attrs = {"output_size": tuple(sizes), "self_sym_sizes": tuple(input.shape)}
    attrs["align_corners"] = align_corners
    names = ("scales",) if len(sizes) == 1 else ("scales_d", "scales_h", "scales_w")[-len(sizes) :]
    attrs.update(zip(names, scales, strict=True))
    return attrs


def _show_upsample_saved() -> None:
    """Gives every interpolation node torch's grad_fn._saved_<name> attributes (NOTE [ Saved
    values as attributes ]): the keys _upsample_attrs keeps that torch's node of that name
    shows."""
    for mode, name in (*_UPSAMPLE_NODES.items(), *_ANTIALIAS_NODES.items()):
        for n in (1, 2, 3) if "{}" in name else (int(next(filter(str.isdigit, name))),):
            keys = ["output_size", "self_sym_sizes"]
            keys += ["scales"] if n == 1 else ["scales_d", "scales_h", "scales_w"][-n:]
            if not mode.startswith("nearest"):
                keys.append("align_corners")
            show_saved(name.format(n), {k: k for k in keys})


_show_upsample_saved()


def _linear_no_grad(input: Tensor, n: int, have, sizes, scales, align_corners):
    """What interpolate's loop computes for a linear mode on a float32/float64 input whose every
    resized dim changes size, as one array, where nothing is recorded: per dim the same gathers
    (index_select's take), products and sum, the products made in place in their gathers'
    arrays (2 new arrays per dim, not 5, and no op's per-call cost). bilinear x2 of (16, 64, 32,
    32): 39 -> 15 ms (process time, best of 5). NOTE [ The no-grad fast path ]: this one comes
    after interpolate's checks, which raise torch's errors."""
    out = input._data
    for i in range(n - 1, -1, -1):  # the last dim first, as the loop
        dim = i - n
        i0, i1, l0, l1 = _linear_weights(have[i], sizes[i], scales[i], align_corners, input)
        axis = out.ndim + dim
        a = out.take(i0._data, axis=axis)
        a *= _along(l0, dim)._data
        b = out.take(i1._data, axis=axis)
        b *= _along(l1, dim)._data
        a += b
        out = a
    return out


# the nearest modes' source indices (read-only int64 arrays), per (input size, output size,
# scale, exact, shortcuts), for _nearest_no_grad
_NEAREST_INDICES: dict = {}
_NEAREST_INDICES_MAX = 256


def _nearest_no_grad(input: Tensor, n: int, have, sizes, scales, exact: bool):
    """What interpolate's loop computes for a nearest mode on a row-major CPU input, as one
    array, where nothing is recorded: per dim, the last first, index_select's gather of the
    same source indices (_nearest_index's, kept per geometry), which copies the same elements
    into a new row-major array. nearest x2 of (2, 3, 8, 8): 36 -> 9 us (best of 2000). NOTE
    [ The no-grad fast path ]: this one comes after interpolate's checks, which raise torch's
    errors."""
    out = input._data
    shortcuts = not exact and n == 2  # See NOTE [ Unchanged sizes ]
    for i in range(n - 1, -1, -1):
        key = (have[i], sizes[i], scales[i], exact, shortcuts)
        idx = _NEAREST_INDICES.get(key)
        if idx is None:
            idx = _nearest_index(have[i], sizes[i], scales[i], exact, shortcuts, input)._data
            idx.flags.writeable = False
            if len(_NEAREST_INDICES) >= _NEAREST_INDICES_MAX:
                _NEAREST_INDICES.clear()
            _NEAREST_INDICES[key] = idx
        out = out.take(idx, axis=out.ndim + i - n)
    return out


def _keep_layout(out: Tensor, input: Tensor) -> Tensor:
    """out laid out channels-last when the 4-d input is, as torch's upsample kernels keep it
    (with its strides on size-1 dims too)."""
    if _mf.suggests_channels_last(input._data):
        n, c, h, w = out.shape
        if out.stride() != (c * h * w, 1, w * c, c):
            return out.clone(memory_format=_mf.channels_last)
    elif _mf.suggests_channels_last_3d(input._data):  # 5-d: channels_last_3d, as torch's
        n, c, d, h, w = out.shape
        if out.stride() != (c * d * h * w, 1, h * w * c, w * c, c):
            return out.clone(memory_format=_mf.channels_last_3d)
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate. Mirrors torch.nn.functional.upsample."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Mirrors torch.nn.functional.upsample_nearest."""
    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Mirrors torch.nn.functional.upsample_bilinear (align_corners=True)."""
    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
