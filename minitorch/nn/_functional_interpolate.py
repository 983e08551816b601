"""nn.functional: interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
area) and its deprecated upsample aliases, composed from index_select and pointwise ops so every
mode is twice differentiable."""

from __future__ import annotations

import math

from minitorch import _dtype
from minitorch._factories import arange, tensor
from minitorch._ops import index_select, maximum, minimum
from minitorch._tensor import Tensor
from minitorch.autograd.composite import as_node
from minitorch.nn._functional_conv import ntuple
from minitorch.nn._functional_pool import _adaptive_avg

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

# --- interpolation ---

_ALIGNABLE = ("linear", "bilinear", "bicubic", "trilinear")
_LINEAR_RANK = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _scalar(value, dtype, like: Tensor) -> Tensor:
    """A 0-d tensor of `dtype` (the rounding torch's kernels do in float32 happens here)."""
    return tensor(value, dtype=dtype, device=like.device)


def _nearest_index(L, o, scale, exact, x):
    """torch's source index of each output position: floor(i * scale) (nearest) or
    floor((i + 0.5) * scale) (nearest-exact), computed in float32 as torch's kernel does."""
    if not exact and o == L:
        return arange(o, device=x.device)
    if not exact and o == 2 * L:
        return arange(o, device=x.device) // 2
    s = 1.0 / scale if scale is not None and scale > 0 else L / o
    i = arange(o, dtype=_dtype.float32, device=x.device)
    if exact:
        i = i + 0.5
    return minimum(
        (i * _scalar(s, _dtype.float32, x)).floor().long(), _scalar(L - 1, _dtype.int64, x)
    )


def _linear_weights(L, o, scale, align_corners, x):
    """(i0, i1, lambda0, lambda1) of each output position along one axis, as torch computes
    them in the input's float type."""
    dt = x.dtype
    i = arange(o, dtype=dt, device=x.device)
    if align_corners:
        s = (L - 1) / (o - 1) if o > 1 else 0.0
        src = i * _scalar(s, dt, x)
    else:
        s = 1.0 / scale if scale is not None and scale > 0 else L / o
        src = maximum((i + 0.5) * _scalar(s, dt, x) - 0.5, _scalar(0.0, dt, x))
    i0 = src.long()
    l1 = src - i0.to(dt)
    i1 = minimum(i0 + 1, _scalar(L - 1, _dtype.int64, x))
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


def _cubic_taps(L, o, scale, align_corners, x):
    """[(index, weight)] * 4 of each output position along one axis. See NOTE [ Bicubic
    interpolation ]."""
    dt = x.dtype
    i = arange(o, dtype=dt, device=x.device)
    if align_corners:
        src = i * _scalar((L - 1) / (o - 1) if o > 1 else 0.0, dt, x)
    else:
        s = 1.0 / scale if scale is not None and scale > 0 else L / o
        src = (i + 0.5) * _scalar(s, dt, x) - 0.5
    base = src.floor()
    t = src - base
    base = base.long()
    weights = (_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t))
    lo, hi = _scalar(0, _dtype.int64, x), _scalar(L - 1, _dtype.int64, x)
    return [(minimum(maximum(base + k - 1, lo), hi), w) for k, w in enumerate(weights)]


def _along(t: Tensor, dim: int) -> Tensor:
    """A 1-d tensor shaped to broadcast along dim of an (ndim)-d tensor."""
    return t.reshape((-1,) + (1,) * (-dim - 1))


def _output_sizes(input, n, size, scale_factor, recompute_scale_factor):
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    have = input.shape[2:]
    if size is not None:
        if not isinstance(size, int) and len(size) != n:
            raise ValueError(
                "interpolate: Input and output must have the same number of spatial dimensions, "
                f"but got input with spatial dimensions of {list(have)} and output size of "
                f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                "size in (o1, o2, ...,oK) format."
            )
        sizes = ntuple(size, n, "size", "interpolate")
        return sizes, (None,) * n
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (int, float)):
        factors = (float(scale_factor),) * n
    else:
        factors = tuple(float(f) for f in scale_factor)
        if len(factors) != n:
            raise ValueError(
                f"Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {list(have)} and scale_factor of shape "
                f"{list(scale_factor)}."
            )
    sizes = tuple(math.floor(L * f) for L, f in zip(have, factors, strict=False))
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
    bicubic, trilinear and area.

    Differences from torch: antialias=True is not implemented."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    n = input.ndim - 2
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if n not in (1, 2, 3) or mode not in known:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
            f"nearest-exact (got {mode})"
        )
    if mode in _LINEAR_RANK and _LINEAR_RANK[mode] != n:
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_RANK[mode] + 2}D input"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not implemented")
    if not input.dtype.is_floating_point and (
        input.dtype is not _dtype.uint8 or mode in ("linear", "trilinear", "area")
    ):  # torch's CPU kernels: floating types, and uint8 for the nearest and 2-d modes only
        raise NotImplementedError(
            f"interpolate: mode '{mode}' is not implemented for {input.dtype} input"
        )
    sizes, scales = _output_sizes(input, n, size, scale_factor, recompute_scale_factor)
    have = input.shape[2:]
    if mode == "area":
        return _adaptive_avg(input, n, sizes, f"adaptive_avg_pool{n}d")
    if any(s <= 0 for s in sizes) or 0 in have:
        names = ("D", "H", "W")[3 - n :]
        ins = ", ".join(f"{a}: {v}" for a, v in zip(names, have, strict=False))
        outs = ", ".join(f"{a}: {v}" for a, v in zip(names, sizes, strict=False))
        raise RuntimeError(
            f"interpolate: Input and output sizes should be greater than 0, but got input "
            f"({ins}) and output ({outs})"
        )
    out = input
    half = input.dtype in _dtype.HALF_FLOATS and not mode.startswith("nearest")
    if half:  # weights and sums in float32, rounded once, as torch's kernels
        out = input.float()
    like = out
    for i in range(n - 1, -1, -1):  # the last dim first, as torch's separable kernels
        dim = i - n
        if mode.startswith("nearest"):
            idx = _nearest_index(have[i], sizes[i], scales[i], mode == "nearest-exact", input)
            out = index_select(out, input.ndim + dim, idx)
            continue
        if mode == "bicubic":
            taps = _cubic_taps(have[i], sizes[i], scales[i], align_corners, like)
            terms = [index_select(out, input.ndim + dim, j) * _along(w, dim) for j, w in taps]
            out = terms[0] + terms[1] + terms[2] + terms[3]
            continue
        i0, i1, l0, l1 = _linear_weights(have[i], sizes[i], scales[i], align_corners, like)
        a = index_select(out, input.ndim + dim, i0)
        b = index_select(out, input.ndim + dim, i1)
        out = a * _along(l0, dim) + b * _along(l1, dim)
    out = out.to(input.dtype) if half else out
    return as_node(out, _UPSAMPLE_NODES[mode].format(n), (input,))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate. Mirrors torch.nn.functional.upsample."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Mirrors torch.nn.functional.upsample_nearest."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Mirrors torch.nn.functional.upsample_bilinear (align_corners=True)."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
