"""nn.functional: channel_shuffle, conv_tbc (time-major 1-d convolution) and the
spatial-transformer pair affine_grid / grid_sample."""

from __future__ import annotations

import itertools
import math
import warnings

from minitorch import _autocast_state as _autocast
from minitorch import _dtype, _ops
from minitorch._factories import arange, linspace, ones, zeros, zeros_like
from minitorch._ops._common import index, int_list, quiet
from minitorch._tensor import Tensor
from minitorch.autograd import engine
from minitorch.autograd.composite import as_node
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import enable_grad, state
from minitorch.nn import _argcheck as _arg
from minitorch.nn._functional_interpolate import _CUBIC_A, _cubic_far, _cubic_near

__all__ = ["channel_shuffle", "native_channel_shuffle", "conv_tbc", "affine_grid", "grid_sample"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, g*k, *) -> channels reordered as a (g, k) -> (k, g) transpose. Mirrors
    torch.nn.functional.channel_shuffle."""
    if groups.__class__ is not int or not isinstance(input, Tensor):
        _arg.tensor(input, "channel_shuffle")
        groups = index(groups, "channel_shuffle", "groups", 2)
    if input.ndim <= 2:
        raise RuntimeError(
            f"channel_shuffle expects input with > 2 dims, but got input with sizes "
            f"{list(input.shape)}"
        )
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], tuple(input.shape[2:])
    out = input.reshape((n, groups, c // groups, *rest)).transpose(1, 2)
    out = out.reshape((n, c, *rest))
    if groups == 1 or groups == c:  # the transpose moved nothing: a view, where torch copies
        out = out.clone()
    # torch's one kernel: one node, ChannelShuffleBackward0, with its edge to input
    return as_node(out, "ChannelShuffleBackward0", (input,), keep=True)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Mirrors torch.nn.functional.native_channel_shuffle (the same result as channel_shuffle)."""
    return channel_shuffle(input, groups)


def conv_tbc(input, weight, bias, pad: int = 0) -> Tensor:
    """1-D convolution of (time, batch, channels) input with a (width, in, out) weight. Mirrors
    torch.nn.functional.conv_tbc."""
    try:
        if input.ndim != 3:
            raise RuntimeError(
                "conv_tbc: Input must have 3 dims: time, batch, in_channel (got "
                f"{list(input.shape)})"
            )
        if weight.ndim != 3:
            raise RuntimeError(
                "conv_tbc: Weight tensor must have 3 dims: kernel_width, in_channels, "
                f"out_channels (got {list(weight.shape)})"
            )
        if bias.ndim != 1:
            raise RuntimeError(
                f"conv_tbc: Bias must have 1 dim: out_channels (got {list(bias.shape)})"
            )
        if input.shape[2] != weight.shape[1]:
            raise RuntimeError(
                f"conv_tbc: Input dim 2 (input channels) ({input.shape[2]}) is not == dim 1 in "
                f"the weight tensor ({weight.shape[1]})"
            )
        if weight.shape[2] != bias.shape[0]:
            raise RuntimeError(
                f"conv_tbc: Bias size ({bias.shape[0]}) must equal the last dim of the weight "
                f"tensor ({weight.shape[2]})"
            )
        if weight.dtype is not input.dtype:  # (torch's matmul says it)
            raise RuntimeError(
                "self and mat2 must have the same dtype, but got "
                f"{_dtype.scalar_name(input.dtype)} and {_dtype.scalar_name(weight.dtype)}"
            )
    except (AttributeError, RuntimeError):  # torch's parser reads the arguments' types first
        _arg.tensor(input, "conv_tbc")
        _arg.tensor(weight, "conv_tbc", "weight", 2)
        _arg.tensor(bias, "conv_tbc", "bias", 3)
        _arg.integer(pad, "conv_tbc", "pad", 4)
        raise
    # torch's kernel: one (T * B, in) @ (in, out) product per kernel tap on the input shifted by
    # it (~2.5x faster than conv1d's im2col here, forward and backward), added to the bias (in
    # the input's dtype)
    T, B, c_in = input.shape
    K, c_out = weight.shape[0], weight.shape[2]
    x = input
    if pad > 0:
        z = zeros((pad, B, c_in), dtype=input.dtype, device=input.device)
        x = _ops.cat([z, input, z])
    elif pad < 0:  # torch crops
        x = input[-pad : max(T + pad, -pad)]
    t_out = x.shape[0] - K + 1
    if t_out < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {t_out}: [{t_out}, {B}, {c_out}]"
        )
    out = None
    for k in range(K):
        term = x[k : k + t_out].reshape(t_out * B, c_in).matmul(weight[k])
        out = term if out is None else out + term
    bias = bias.to(input.dtype)
    out = bias if out is None else out + bias  # (K = 0: torch's output is the bias)
    out = out.expand(t_out * B, c_out).reshape(t_out, B, c_out)
    return as_node(out, "ConvTbcBackward0", (input, weight, bias))


# --- spatial transformers ---


def _base_coords(steps: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalised [-1, 1] coordinates of `steps` pixel centres (corners with
    align_corners), as torch's affine_grid lays them out; a single step sits at 0."""
    if steps <= 1:
        return like.new_zeros(1)
    # linspace, then * (steps - 1), then / steps, rounded as torch rounds them: an identity theta
    # then puts the grid on exact pixel centres, and grid_sample's floor (so its gradient) agrees
    c = linspace(-1.0, 1.0, steps, dtype=like.dtype, device=like.device)
    return c if align_corners else c * (steps - 1) / steps


def affine_grid(theta: Tensor, size, align_corners=None) -> Tensor:
    """The (N, *spatial, n) sampling grid of the affine maps theta (N, n, n + 1) for an output
    of `size` (N, C, *spatial), n = 2 or 3. Mirrors torch.nn.functional.affine_grid."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():  # (a non-tensor's AttributeError names this, as torch's)
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    len(size)  # (torch's TypeError for a size with no length: "object of type 'int' has no len()")
    given, size = size, tuple(size)  # messages show size as the caller passed it
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {given}."
        )
    n = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (n, n + 1):
        raise ValueError(
            f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {given}. "
            f"Got {theta.shape}."
        )
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    if any(s.__class__ is not int for s in size):  # torch's kernel parser reads size as int[]
        _arg.int_tuple(given, "affine_grid_generator", "size", 2)
        size = int_list(given, "affine_grid_generator", "size", 2)
    if align_corners.__class__ is not bool:  # torch's Python passes it on to its kernel
        _arg.boolean(align_corners, "affine_grid_generator", "align_corners", 3)
    if theta.shape[0] != size[0]:
        # torch's grid is a batched matmul of the base grid expanded to size[0] by theta^T: its
        # bmm reports the mismatch (theta^T is "batch2")
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{size[0]}, {n + 1}] but got: [{theta.shape[0]}, {n + 1}]."
        )
    # base[..., k]: x (the last spatial dim) first, then y (, z), then 1
    axes = []
    for k, steps in enumerate(reversed(spatial)):
        shape = [1] * n
        shape[n - 1 - k] = steps
        axes.append(_base_coords(steps, align_corners, theta).reshape(shape).expand(spatial))
    axes.append(ones(spatial, dtype=theta.dtype, device=theta.device))
    base = _ops.stack(axes, -1).reshape(1, -1, n + 1)
    grid = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), n)
    return as_node(grid.reshape((size[0], *spatial, n)), "AffineGridGeneratorBackward0", (theta,))


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """x reflected into [twice_low / 2, twice_high / 2] as often as needed (torch's
    reflect_coordinates)."""
    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (x - low).abs()
    extra = _ops.fmod(x, span)
    flips = (x / span).floor()
    even = _ops.fmod(flips, 2) == 0
    return _ops.where(even, extra + low, span - extra + low)


def _unnormalize(g: Tensor, size, align_corners: bool, fused: bool = False) -> Tensor:
    """Pixel coordinates of normalised grid values along one axis (size an int), or along each
    axis of the last dim (size a Tensor of the sizes, each < 2**26 when fused). fused:
    (g + 1) * size / 2 - 0.5 rounded once, as torch's 2-d CPU kernel computes it (a fused
    multiply-add; its 3-d kernel rounds each step). Which pixel floor() picks at a coordinate
    within an ulp of an integer, as an identity affine_grid gives, decides the grid's gradient
    (a spatial transformer's first step)."""
    if align_corners:
        return (g + 1) * ((size - 1) / 2)
    out = ((g + 1) * size - 1) / 2
    if fused and g.dtype in (_dtype.float32, _dtype.float64):
        # a correction of an ulp or so; 0 where either is inf or NaN (those keep their value)
        fix = _fused_unnormalize(g.detach() + 1, size) - out.detach()
        out = out + _ops.nan_to_num(fix, nan=0.0, posinf=0.0, neginf=0.0)
    return out


def _fused_unnormalize(a: Tensor, size) -> Tensor:
    """a * size / 2 - 0.5 rounded once (a = grid + 1, detached). float32 through float64 (its
    exact product); float64 by an error-free product (Veltkamp's split; size / 2 < 2**25 has at
    most 26 bits) and sum, then one rounding."""
    half = size / 2
    if a.dtype is _dtype.float32:
        return (a.double() * half - 0.5).float()
    p = a * half
    c = a * 134217729.0  # 2**27 + 1
    hi = c - (c - a)
    e = (hi * half - p) + (a - hi) * half  # a * half == p + e exactly
    s = p - 0.5
    b = s - p
    err = (p - (s - b)) + (-0.5 - b)  # p - 0.5 == s + err exactly
    return s + (err + e)


def _pad_coord(
    x: Tensor, size: int, padding_mode: str, align_corners: bool, nan_to: int = 0
) -> Tensor:
    """A pixel coordinate moved inside the input by border/reflection padding (torch's
    compute_coordinates); 'zeros' leaves it, and out-of-range taps then read 0. A NaN
    coordinate (also what reflection makes of +-inf) is clipped to nan_to (see _clip)."""
    if padding_mode == "border":
        x = _clip(x, size - 1, nan_to)
    elif padding_mode == "reflection":
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        x = _clip(x, size - 1, nan_to)
    return x


def _clip(x: Tensor, hi: int, nan_to: int = 0) -> Tensor:
    """x clamped into [0, hi] with torch's clip_coordinates gradient: 1 strictly inside, 0 on
    the bounds too (clamp's passes it there; an identity affine_grid puts the edge pixels on
    them, so a spatial transformer's theta gradient differed). NaN (a point projected from
    depth 0) goes to nan_to: torch's 2-d kernel clips it to 0, its 3-d kernel to hi."""
    inside = (x > 0) & (x < hi)
    clipped = _ops.nan_to_num(_ops.clamp(x, 0, hi).detach(), nan=float(nan_to))
    return _ops.where(inside, x, clipped)


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners=None,
) -> Tensor:
    """Samples input (N, C, *spatial) at the normalised positions grid (N, *out, n), n = 2 or 3,
    with bilinear (trilinear), nearest or bicubic (2-d) interpolation. Mirrors
    torch.nn.functional.grid_sample."""
    if _autocast.state.any_enabled:
        return _autocast.call(
            grid_sample, _autocast.FP32_CPU, (input, grid, mode, padding_mode, align_corners)
        )
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if (
        align_corners.__class__ is not bool
        or not isinstance(input, Tensor)
        or not isinstance(grid, Tensor)
    ):  # torch.grid_sampler's argument parser
        _arg.tensor(input, "grid_sampler")
        _arg.tensor(grid, "grid_sampler", "grid", 2)
        _arg.boolean(align_corners, "grid_sampler", "align_corners", 5)
    sizes = f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
    if input.ndim == 0 or grid.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    # torch's order: batch, grid's last dim, empty spatial dims, then the ranks (the message
    # names 4D for a 4-d input, 5D for any other: torch takes the 3-d kernel for those)
    n = input.ndim - 2
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {sizes}"
        )
    if grid.shape[-1] != n:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid "
            f"with sizes {list(grid.shape)}"
        )
    for d in range(2, input.ndim):  # even for an empty batch or grid (nothing to sample from)
        if input.shape[d] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                f"has sizes {list(input.shape)} with dimension {d} being empty"
            )
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected {4 if input.ndim == 4 else 5}D input and grid with same "
            f"number of dimensions, but got {sizes}"
        )
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    _check_grid_dtypes(input, grid, n)
    sampler = _GridSampler2D if n == 2 else _GridSampler3D
    return sampler.apply(
        input, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners
    )


def _check_grid_dtypes(input: Tensor, grid: Tensor, n: int) -> None:
    """The dtype checks of torch's CPU grid sampler kernels, which promote nothing: a floating
    input, and a grid of the same dtype. torch's 2-d sampler returns an empty input or grid
    before it dispatches, so those pass unchecked."""
    if n == 2 and (input.numel() == 0 or grid.numel() == 0):
        return
    if not input.dtype.is_floating_point:
        kernel = "grid_sampler_2d_cpu_kernel_impl" if n == 2 else "grid_sampler3d_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{_dtype.scalar_name(input.dtype)}'"
        )
    if grid.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype.scalar_name(input.dtype)} but found "
            f"{_dtype.scalar_name(grid.dtype)}"
        )


# NOTE [ grid_sample's node ]
# grid_sample is composed from Tensor ops (_sample) but recorded as one Function, not folded with
# as_node: its double backward differentiates the first backward's graph, which reads the inner
# intermediates (the weights, the taps) *and*, through e.g. pow's backward, the output, whose
# folded node would run those same inner nodes a second time, after the walk has freed them
# ("backward through the graph a second time"). So forward runs _sample on detached tensors, and
# backward runs it again with grad on and takes its vector-Jacobian product with autograd.grad:
# on fresh leaves for a first-order backward; under create_graph on aliases of the saved input
# and grid, so the gradients stay functions of them (double backward) while the nested walk
# stops at the aliases (the partials, even when grid was computed from input, as in a spatial
# transformer). Costs one extra forward per backward. Without create_graph, forward and backward
# run on arrays instead: NOTE [ grid_sample on arrays ].


_MODES = ("bilinear", "nearest", "bicubic")  # torch's GridSamplerInterpolation
_PADDINGS = ("zeros", "border", "reflection")  # torch's GridSamplerPadding


class _GridSampler2D(Function):
    """out = _sample(input, grid); grads by re-running _sample (NOTE [ grid_sample's node ])"""

    _node_name = "GridSampler2DBackward0"
    # grad_fn._saved_input / _saved_grid, and the options as torch's node keeps them (its enums)
    _saved_names = ("input", "grid")
    _saved_attrs = {
        "interpolation_mode": lambda node: _MODES.index(node.options[0]),
        "padding_mode": lambda node: _PADDINGS.index(node.options[1]),
        "align_corners": lambda node: node.options[2],
    }

    @staticmethod
    def forward(ctx, input, grid, *, mode, padding_mode, align_corners):
        ctx.save_for_backward(input, grid)
        ctx.options = (mode, padding_mode, align_corners)
        ctx.on_arrays = input.dtype in (_dtype.float32, _dtype.float64)
        if ctx.on_arrays:  # NOTE [ grid_sample on arrays ]
            backend = input._device.backend
            return _sample_data(backend, input._data, grid._data, mode, padding_mode, align_corners)
        return _sample(input.detach(), grid.detach(), mode, padding_mode, align_corners)._data

    @staticmethod
    def _backward_data(ctx, grad):
        x, g = ctx._stored_arrays()
        if not ctx.on_arrays:
            return NotImplemented
        need_input, need_grid = ctx.needs_input_grad[:2]
        backend = ctx._out_device.backend
        grad_input, grad_grid = _grad_data(backend, x, g, grad, *ctx.options, need_input, need_grid)
        if need_grid and grad_grid is None:  # nearest: grid's gradient is 0, as in torch
            grad_grid = backend.xp.zeros(g.shape, dtype=g.dtype)
        return grad_input, grad_grid

    @staticmethod
    def backward(ctx, grad):
        input, grid = ctx._stored_tensors
        mode, padding_mode, align_corners = ctx.options
        need_input, need_grid = ctx.needs_input_grad[:2]
        need_grid = need_grid and mode != "nearest"  # nearest: grid's gradient is 0, as in torch
        create = state.enabled  # backward runs with grad mode on only under create_graph
        if create:
            a, b = input.view_as(input), grid.view_as(grid)
        else:
            a = input.detach().requires_grad_(need_input)
            b = grid.detach().requires_grad_(need_grid)
        grad_input = grad_grid = None
        wrt = [t for t, need in ((a, need_input), (b, need_grid)) if need]
        if wrt:
            with enable_grad():
                out = _sample(a, b, mode, padding_mode, align_corners)
            got = list(engine.grad(out, wrt, grad, create_graph=create, materialize_grads=True))
            grad_input = got.pop(0) if need_input else None
            grad_grid = got.pop(0) if need_grid else None
        if ctx.needs_input_grad[1] and grad_grid is None:
            grad_grid = zeros_like(grid)
        if create:  # NOTE [ grid_sample's double backward node ]
            node = _GridSamplerBackward2D if input.ndim == 4 else _GridSamplerBackward3D
            grad_input, grad_grid = (
                None if g is None else node.apply(g, grad, input, grid)
                for g in (grad_input, grad_grid)
            )
        return grad_input, grad_grid


# NOTE [ grid_sample's double backward node ]
# torch records grid_sample's backward under create_graph as one node whose inputs are the output
# gradient, the input and the grid, so both gradients require grad whenever any of those does:
# the input gradient even where it is constant in the input (sampling is linear in it), as in a
# gradient penalty on the image alone. _GridSamplerBackward puts that node over the gradients the
# composed backward computed: it passes their values and gradients through, and gives the other
# inputs none (their gradients reach them along the composed graph beneath). nearest's grid
# gradient (zeros) gets the node too, as torch's does.


class _GridSamplerBackward2D(Function):
    """out = g;  grad_g = grad, nothing for grad/input/grid (NOTE [ grid_sample's double
    backward node ])"""

    _node_name = "GridSampler2DBackwardBackward0"

    @staticmethod
    def forward(ctx, g, grad, input, grid):
        return g._data.copy()  # a result of its own: .grad may be accumulated into in place

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None, None


class _GridSamplerBackward3D(_GridSamplerBackward2D):
    """out = g, 5-d; see _GridSamplerBackward2D"""

    _node_name = "GridSampler3DBackwardBackward0"


class _GridSampler3D(_GridSampler2D):
    """out = _sample(input, grid), 5-d; see _GridSampler2D"""

    _node_name = "GridSampler3DBackward0"


def _sample(input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool):
    """grid_sample's math on checked arguments, in differentiable Tensor ops."""
    n = input.ndim - 2
    N, C = input.shape[:2]
    have = tuple(input.shape[2:])
    out = tuple(grid.shape[1:-1])
    # NOTE [ grid_sample's taps ]
    # A tap reads one row of C channels per point from a (N * prod(have) + 1, C) table of the
    # input's pixels (its channels last), whose extra last row of zeros is what a tap outside
    # the input reads, so the taps are weighted and summed channels last and the result moved to
    # (N, C, *out) once. Gathering each channel on its own (gather along the pixels with the
    # point index expanded over C) and masking the outside taps with `where` took 2x the time
    # forward (bilinear (8, 64, 56, 56): forward 25.5 -> 12.8 ms, forward + backward 67 -> 59
    # ms; torch 3.9 and 14.7 ms). The values are the same products and sums, in the same order.
    size = math.prod(have)
    # explicit sizes: -1 is ambiguous in an empty batch (N = 0 or C = 0)
    table = input.reshape(N, C, size).transpose(1, 2).reshape(N * size, C)
    table = _ops.cat([table, zeros((1, C), dtype=input.dtype, device=input.device)])
    first = (arange(N, device=input.device) * size).reshape((N,) + (1,) * len(out))
    # per spatial dim d (D, H, W order): its source coordinate; grid's last entry is x (W)
    if n == 2 and not align_corners:
        # both axes at once (the grid's x, y order), rounded as torch's 2-d kernel rounds them
        xy = _unnormalize(grid, grid.new_tensor(have[::-1]), False, max(have) < 2**26)
        raw = [xy[..., 1], xy[..., 0]]
    else:
        raw = [_unnormalize(grid[..., n - 1 - d], have[d], align_corners) for d in range(n)]
    strides = [math.prod(have[d + 1 :]) for d in range(n)]

    def tap(idx):
        """input at integer positions idx (one (N, *out) tensor per dim), 0 outside, channels
        last: (N, *out, C) (NOTE [ grid_sample's taps ])."""
        inside = None
        flat = first
        for d, i in enumerate(idx):
            ok = (i >= 0) & (i <= have[d] - 1)
            inside = ok if inside is None else inside & ok
            flat = flat + _ops.clamp(i, 0, have[d] - 1) * strides[d]
        rows = _ops.where(inside, flat, N * size).reshape(-1)
        return _ops.index_select(table, 0, rows).reshape((N, *out, C))

    def channels_first(result):
        return result.movedim(-1, 1).contiguous()

    if n == 3 and mode == "bilinear" and padding_mode == "zeros":
        # torch's 3-d kernel adds only the corners inside the input, so a non-finite point (from
        # a depth-0 projection) reads 0 with zero gradients, where its 2-d kernel multiplies
        # masked taps by NaN weights. A coordinate of -2 has both its corners outside.
        raw = [_ops.where(_ops.isfinite(c), c, -2.0) for c in raw]
    if mode == "bicubic":
        return channels_first(_bicubic_taps(tap, raw, have, padding_mode, align_corners))
    coords = [
        _pad_coord(c, have[d], padding_mode, align_corners, 0 if n == 2 else have[d] - 1)
        for d, c in enumerate(raw)
    ]
    if mode == "nearest":
        return channels_first(tap([c.round().long() for c in coords]))
    lows = [c.floor() for c in coords]
    fracs = [c - lo for c, lo in zip(coords, lows, strict=True)]
    lows = [lo.long() for lo in lows]
    result = None
    for corner in itertools.product((0, 1), repeat=n):
        w = None
        for f, up in zip(fracs, corner, strict=True):
            wd = f if up else 1 - f
            w = wd if w is None else w * wd
        term = tap([lo + up for lo, up in zip(lows, corner, strict=True)]) * w.unsqueeze(-1)
        result = term if result is None else result + term
    return channels_first(result)


def _bicubic_taps(tap, raw, have, padding_mode, align_corners) -> Tensor:
    """4 x 4 taps around each (unpadded) source point, each tap's coordinates padded on their own,
    weighted by the cubic convolution of NOTE [ Bicubic interpolation ] (torch's CPU kernel)."""
    result = None
    bases = [c.floor() for c in raw]
    weights = []
    for c, b in zip(raw, bases, strict=True):
        t = c - b
        weights.append((_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)))
    for i, j in itertools.product(range(4), range(4)):
        idx = [
            _pad_coord(b + (k - 1), size, padding_mode, align_corners).long()
            for b, k, size in zip(bases, (i, j), have, strict=True)
        ]
        term = tap(idx) * (weights[0][i] * weights[1][j]).unsqueeze(-1)
        result = term if result is None else result + term
    return result


# NOTE [ grid_sample on arrays ]
# grid_sample's forward and first-order backward run on arrays (_sample_data, _grad_data), in a
# few whole-array passes: per spatial dim and tap, the row offset and the weight (and its
# derivative in the source coordinate); per corner, one gather of its values from a table of the
# input, one scatter-add of the weighted gradient into one (the backend's flat scatter: NOTE [
# Flat scatter keys ]) and the grid's gradient from the corner values. The table is the input
# with 2 zeros of padding on each side of each spatial dim, channels first ((C, N * padded
# pixels): the weighting, sums and scatters then run along contiguous rows, ~5x faster than
# along rows of C channels for few channels) or, from _ROWS_MIN channels, channels last (whose
# row gathers are the faster then). Each tap's index is clamped into [-2, size] (NaN to -2), so
# an outside tap reads a zero of the padding, as _sample's reads its zero row: no mask, no
# select. The float operations are _sample's, in its order, so the output is the same bits, as
# is every choice of pixel (floor, round, NaN and infinity handling), and the gradients are
# those of _sample's graph to float rounding: the coordinate's padding passes the gradient
# through a select (0 where _clip and the 3-d kernel's isfinite test stop it, even for a NaN
# upstream value), with a reflection's sign. _sample stays the Tensor formula of `backward`
# (double backward) and the path of 2-byte float types. Single thread, (8, 3, 64, 64) input,
# (8, 64, 64, 2) grid, bilinear: forward 2.6 -> 0.9 ms, forward + backward 9.5 -> 2.5 ms
# (torch 0.17 and 1.0 ms). Reflection padding's selects are branch-free and its fmods a few
# multiplies (_fmod_data), same bits: its forward 1.9 -> 1.2 ms, its _grad_data 2.6 -> 1.8 ms.
_ROWS_MIN = 16


def _fused_unnormalize_data(xp, a, half):
    """_fused_unnormalize on arrays: a * half - 0.5 rounded once (a = grid + 1)."""
    if a.dtype == xp.float32:
        return (a.astype(xp.float64) * half - 0.5).astype(xp.float32)
    p = a * half
    c = a * 134217729.0
    hi = c - (c - a)
    e = (hi * half - p) + (a - hi) * half
    s = p - 0.5
    b = s - p
    err = (p - (s - b)) + (-0.5 - b)
    return s + (err + e)


def _raw_data(xp, g, have, n, align_corners):
    """[(source coordinate, d coordinate / d grid)] per spatial dim (D, H, W order), as _sample's
    raw (through _unnormalize)."""
    out = []
    for d in range(n):
        size = have[d]
        a = g[..., n - 1 - d] + 1
        if align_corners:
            scale = (size - 1) / 2
            out.append((a * scale, scale))
            continue
        c = (a * size - 1) / 2
        if n == 2 and max(have) < 2**26:  # _unnormalize's fused correction (2-d kernel)
            fix = _fused_unnormalize_data(xp, a, size / 2) - c
            c = c + xp.nan_to_num(fix, nan=0.0, posinf=0.0, neginf=0.0)
        out.append((c, size / 2))
    return out


def _pad_data(backend, x, size, padding_mode, align_corners, nan_to):
    """_pad_coord on arrays: (coordinate, where its gradient passes, its sign or None); the
    reflection's selects are branch-free (NOTE [ Branch-free selects ]), with where's bits."""
    xp = backend.xp
    if padding_mode == "zeros":
        return x, None, None
    sign = None
    if padding_mode == "reflection":
        twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if twice_low == twice_high:
            x = x * 0
        else:
            low = twice_low / 2
            span = (twice_high - twice_low) / 2
            shifted = x - low
            x = xp.abs(shifted)
            q = xp.floor(x / span)
            extra = _fmod_data(backend, x, span, q)
            even = q - 2 * xp.floor(q * 0.5) == 0  # xp.fmod(q, 2) == 0, as fast as _fmod_data
            x = backend.select(even, extra + low, span - extra + low)
            sign = xp.sign(shifted) * (even.astype(x.dtype) * 2 - 1)
    hi = size - 1
    inside = (x > 0) & (x < hi)  # (x itself there: the clip below is _clip's select)
    return xp.nan_to_num(xp.clip(x, 0, hi), nan=float(nan_to)), inside, sign


def _fmod_data(backend, x, span, q):
    """xp.fmod(x, span) for x >= 0 (or NaN, inf), an integral span and q = floor(x / span), to
    the bit. NumPy's fmod loops over the exponent difference (~15 ns an element for quotients
    near 100, against ~0.1 ns for a multiply); below 2 ** (mantissa bits) x - q * span is exact
    (q * span is an integer below twice that, the difference is the true remainder to within
    span), q being the true quotient or (x / span rounded up to an integer) one above it, whose
    negative remainder gets span back. Larger x (and infinities) take fmod, on zeros elsewhere."""
    xp = backend.xp
    limit = 2.0 ** xp.finfo(x.dtype).nmant
    if span > limit:
        return xp.fmod(x, span)
    r = x - q * span
    r = r + (r < 0).astype(x.dtype) * span
    small = x < limit
    return backend.select(small, r, xp.fmod(backend.keep(~small, x), span))


def _offsets(xp, i, size, stride):
    """The row offsets in the padded table (NOTE [ grid_sample on arrays ]) of an integral float
    coordinate i, clamped into [-2, size] first (NaN to -2)."""
    i = xp.fmin(xp.fmax(i, -2.0), size) + 2
    return i.astype(xp.intp) * stride


def _cubic_near_data(x):
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far_data(x):
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _cubic_near_slope(x):
    return (3 * (_CUBIC_A + 2) * x - 2 * (_CUBIC_A + 3)) * x


def _cubic_far_slope(x):
    return (3 * _CUBIC_A * x - 10 * _CUBIC_A) * x + 8 * _CUBIC_A


def _plan(backend, g, have, mode, padding_mode, align_corners, slopes):
    """Per spatial dim: [(row offset, weight, d weight / d coordinate)] per tap, and the dim's
    (d coordinate / d grid, where it passes or None, its sign or None); weights are None for
    nearest, slopes None unless asked for. g: the (N * P, n) grid."""
    xp = backend.xp
    n = len(have)
    strides = [math.prod(h + 4 for h in have[d + 1 :]) for d in range(n)]  # the padded table's
    raws = _raw_data(xp, g, have, n, align_corners)
    if n == 3 and mode == "bilinear" and padding_mode == "zeros":  # see _sample
        finite = [xp.isfinite(c) for c, _ in raws]
        raws = [(xp.where(ok, c, -2.0), s) for (c, s), ok in zip(raws, finite, strict=True)]
    else:
        finite = [None] * n
    dims, chains = [], []
    for d, (c, scale) in enumerate(raws):
        size, stride = have[d], strides[d]
        if mode == "bicubic":
            b = xp.floor(c)
            t = c - b
            ws = (_cubic_far_data(t + 1), _cubic_near_data(t))
            ws += (_cubic_near_data(1 - t), _cubic_far_data(2 - t))
            dws = [None] * 4
            if slopes:
                dws = [_cubic_far_slope(t + 1), _cubic_near_slope(t)]
                dws += [-_cubic_near_slope(1 - t), -_cubic_far_slope(2 - t)]
            taps = []
            for k in range(4):
                i, _, _ = _pad_data(backend, b + (k - 1), size, padding_mode, align_corners, 0)
                taps.append((_offsets(xp, i, size, stride), ws[k], dws[k]))
            dims.append(taps)
            chains.append((scale, None, None))
            continue
        nan_to = 0 if n == 2 else size - 1
        c, inside, sign = _pad_data(backend, c, size, padding_mode, align_corners, nan_to)
        chains.append((scale, inside if finite[d] is None else finite[d], sign))
        if mode == "nearest":
            dims.append([(_offsets(xp, xp.round(c), size, stride), None, None)])
            continue
        lo = xp.floor(c)
        f = c - lo
        one = xp.ones((), dtype=c.dtype)
        dims.append([(_offsets(xp, lo, size, stride), 1 - f, -one)])
        dims[-1].append((_offsets(xp, lo + 1, size, stride), f, one))
    return dims, chains


def _corners(xp, dims, N, P, size):
    """(rows of the padded table (size rows per batch element), the corner's weight or None,
    its tap per dim) per corner, in _sample's order."""
    first = xp.repeat(xp.arange(N, dtype=xp.intp) * size, P)
    out = []
    for ks in itertools.product(*[range(len(taps)) for taps in dims]):
        flat, w = first, None
        for taps, k in zip(dims, ks, strict=True):
            off, wd, _ = taps[k]
            flat = flat + off
            if wd is not None:
                w = wd if w is None else w * wd
        out.append((flat, w, ks))
    return out


def _table(xp, x):
    """The input padded with 2 zeros on each side of each spatial dim, as (C, N * padded pixels),
    or (N * padded pixels, C) from _ROWS_MIN channels (NOTE [ grid_sample on arrays ])."""
    N, C = x.shape[:2]
    n = x.ndim - 2
    padded = tuple(h + 4 for h in x.shape[2:])
    inner = (slice(2, -2),) * n
    if C >= _ROWS_MIN:
        table = xp.zeros((N, *padded, C), dtype=x.dtype)
        table[(slice(None), *inner)] = xp.moveaxis(x, 1, -1)
        return table.reshape(N * math.prod(padded), C)  # (-1 is ambiguous for C = 0)
    table = xp.zeros((C, N, *padded), dtype=x.dtype)
    table[(slice(None), slice(None), *inner)] = x.swapaxes(0, 1)
    return table.reshape(C, N * math.prod(padded))


def _gather(xp, table, rows, C):
    """The (C, len(rows)) values of the table's rows."""
    if C >= _ROWS_MIN:
        return xp.ascontiguousarray(xp.take(table, rows, axis=0).T)
    return xp.take(table, rows, axis=1)


def _sample_data(backend, x, g, mode, padding_mode, align_corners):
    """grid_sample's forward on the arrays x (N, C, *have) and g (N, *out, n) (NOTE [
    grid_sample on arrays ])."""
    xp = backend.xp
    N, C = x.shape[:2]
    have, out = tuple(x.shape[2:]), tuple(g.shape[1:-1])
    P = math.prod(out)
    g = g.reshape(N * P, len(have))
    with quiet(xp):  # the invalid casts and infinities of a wild grid
        dims, _ = _plan(backend, g, have, mode, padding_mode, align_corners, False)
        table = _table(xp, x)
        result = None
        for rows, w, _ in _corners(xp, dims, N, P, math.prod(h + 4 for h in have)):
            term = _gather(xp, table, rows, C)
            if w is not None:
                term = term * w
            result = term if result is None else result + term
    result = result.reshape(C, N, P).swapaxes(0, 1)
    return xp.ascontiguousarray(result).reshape((N, C) + out)


def _grad_data(backend, x, g, grad, mode, padding_mode, align_corners, need_input, need_grid):
    """(grad input or None, grad grid or None) of grid_sample on arrays (NOTE [ grid_sample on
    arrays ])."""
    xp = backend.xp
    N, C = x.shape[:2]
    have, out = tuple(x.shape[2:]), tuple(g.shape[1:-1])
    P, n = math.prod(out), len(have)
    padded = tuple(h + 4 for h in have)
    grid_shape = g.shape
    g = g.reshape(N * P, n)
    need_grid = need_grid and mode != "nearest"
    with quiet(xp):  # the invalid casts and infinities of a wild grid
        dims, chains = _plan(backend, g, have, mode, padding_mode, align_corners, need_grid)
        gout = xp.ascontiguousarray(grad.reshape(N, C, P).swapaxes(0, 1)).reshape(C, N * P)
        table = _table(xp, x) if need_grid else None
        acc = xp.zeros((C, N * math.prod(padded)), dtype=x.dtype) if need_input else None
        coord = [None] * n
        for rows, w, ks in _corners(xp, dims, N, P, math.prod(padded)):
            if need_input:
                backend.scatter_add(acc, (slice(None), rows), gout if w is None else gout * w)
            if not need_grid:
                continue
            s = (_gather(xp, table, rows, C) * gout).sum(axis=0)
            for d in range(n):
                part = s * dims[d][ks[d]][2]
                for e in range(n):
                    if e != d:
                        part = part * dims[e][ks[e]][1]
                coord[d] = part if coord[d] is None else coord[d] + part
        grad_input = grad_grid = None
        if need_input:
            acc = acc.reshape((C, N) + padded)[(slice(None), slice(None)) + (slice(2, -2),) * n]
            grad_input = xp.ascontiguousarray(acc.swapaxes(0, 1))
        if need_grid:
            grad_grid = xp.empty((N * P, n), dtype=g.dtype)
            for d, (scale, inside, sign) in enumerate(chains):
                gc = coord[d]
                if sign is not None:
                    gc = gc * sign
                if inside is not None:
                    gc = backend.keep(inside, gc)
                grad_grid[:, n - 1 - d] = gc * scale
            grad_grid = grad_grid.reshape(grid_shape)
    return grad_input, grad_grid
