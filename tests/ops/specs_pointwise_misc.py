"""Op-test rows for minitorch/_ops/pointwise_misc.py, tensor_misc.py, the special functions i0,
sinc, igamma, igammac, mvlgamma (special.py), the in-place comparisons (logical.py) and
cumsum_/cumprod_ (cumulative.py)."""

from __future__ import annotations

import math

import numpy as np

from tests.ops.specs_pointwise import FLOATS, INTS, NOGRAD, POS, S2, S, grid, nonzero, row

try:
    import scipy.special as sc
except ImportError:  # those rows compare with torch only
    sc = None

# --- input domains ---


def mantissa_safe(rng, shape, dtype):
    """|x| in [0.55, 0.95] or [1.1, 1.9], random signs: away from the powers of two where
    frexp's mantissa jumps."""
    x = rng.uniform(0.55, 0.95, size=shape) * rng.choice([1.0, 2.0], size=shape)
    return x * rng.choice([-1.0, 1.0], size=shape)


def with_zeros(rng, shape, dtype):
    """Uniform in [-2, 2) with a third of the values exactly 0 (sinc's removable point)."""
    x = rng.uniform(-2.0, 2.0, size=shape)
    return np.where(rng.random(shape) < 0.33, 0.0, x)


def increasing(rng, shape, dtype):
    """Sorted coordinates with gaps in [0.5, 1.5] (gradient's spacing)."""
    return np.cumsum(rng.uniform(0.5, 1.5, size=shape), axis=-1)


# --- references ---


def _heaviside(a, b):
    return np.where(a == 0, b, (a > 0).astype(a.dtype))


def _mvlgamma(p):
    def ref(a):
        return sum(_lgamma(a - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)

    return ref


def _nonzero_static(size, fill):
    def ref(a):
        nz = np.argwhere(a)
        pad = np.full((max(size - len(nz), 0), a.ndim), fill, dtype=np.int64)
        return np.concatenate([nz[:size], pad]).astype(np.int64)

    return ref


def _sum_to(a):
    return a.sum(axis=(0,), keepdims=False).sum(axis=1, keepdims=True)


def _gradient(spacing=1.0, axis=None, edge_order=1):
    def ref(a):
        out = np.gradient(a, spacing, axis=axis, edge_order=edge_order)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)

    return ref


def _gradient_coords(a, x):
    return (np.gradient(a, x, axis=1),)


if sc is not None:
    _i0, _lgamma, _gammainc, _gammaincc = sc.i0, sc.gammaln, sc.gammainc, sc.gammaincc
else:
    _i0 = np.i0
    _lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
    _gammainc = _gammaincc = None


# fmt: off
SPECS = [
    # --- angle, deg2rad, rad2deg, copysign ---
    row("angle", lambda L: L.angle, lambda a: np.where(a < 0, math.pi, 0.0), [S],
        domain=nonzero, dtypes=(*FLOATS, "int64")),
    row("deg2rad", lambda L: L.deg2rad, np.deg2rad, [S], dtypes=(*FLOATS, "int64")),
    row("rad2deg", lambda L: L.rad2deg, np.rad2deg, [S], dtypes=(*FLOATS, "int64")),
    row("copysign", lambda L: L.copysign, np.copysign, [S, (4,)], domain=nonzero),
    row("copysign_scalar", lambda L: lambda a: L.copysign(a, -1.0),
        lambda a: np.copysign(a, -1.0), [S], domain=nonzero, dtypes=(*FLOATS, "int64")),
    # --- float_power, ldexp, frexp ---
    row("float_power", lambda L: L.float_power, lambda a, b: np.power(a * 1.0, b), S2,
        domain=[POS, (-2.0, 2.0)], dtypes=(*FLOATS, "int64")),
    row("float_power_scalar", lambda L: lambda a: L.float_power(a, 2.5),
        lambda a: np.power(a, 2.5), [S], domain=POS),
    row("float_power_scalar_base", lambda L: lambda a: L.float_power(2, a),
        lambda a: np.power(2.0, a), [S]),
    # (exponents >= 0: torch 2.13's gradient is 0 for negative integer exponents, a torch bug)
    row("ldexp", lambda L: L.ldexp, lambda a, b: a * 2.0**b, [S, (4,)],
        domain=[(-2.0, 2.0), (0.0, 3.0)],
        dtypes=(("float32", "int64"), ("float64", "int64"), ("float32", "float64")),
        grad=(0,)),
    row("frexp", lambda L: L.frexp, np.frexp, [S], domain=mantissa_safe, **NOGRAD),
    row("frexp_mantissa", lambda L: lambda a: L.frexp(a).mantissa,
        lambda a: np.frexp(a)[0], [S], domain=mantissa_safe),
    # --- integer-only and non-differentiable binary ops ---
    row("gcd", lambda L: L.gcd, np.gcd, [S, (4,)], domain=(-12.0, 12.0), dtypes=INTS,
        **NOGRAD),
    row("lcm", lambda L: L.lcm, np.lcm, [S, (4,)], domain=(-12.0, 12.0), dtypes=INTS,
        **NOGRAD),
    row("heaviside", lambda L: L.heaviside, _heaviside, [S, (4,)],
        domain=[grid(0.0, -2, 2), (-2.0, 2.0)], dtypes=(*FLOATS, "int64"), **NOGRAD),
    row("nextafter", lambda L: L.nextafter, np.nextafter, S2, grad=(0,)),
    # --- special functions ---
    row("i0", lambda L: L.i0, _i0, [S], domain=(-3.0, 3.0), dtypes=(*FLOATS, "int64")),
    row("sinc", lambda L: L.sinc, np.sinc, [S], domain=with_zeros,
        dtypes=(*FLOATS, "int64")),
    row("igamma", lambda L: L.igamma, _gammainc, S2, domain=[(0.5, 3.0), (0.2, 4.0)],
        grad=(1,), atol=1e-5, rtol=1e-4),
    row("igammac", lambda L: L.igammac, _gammaincc, [S, (4,)],
        domain=[(0.5, 3.0), (0.2, 4.0)], grad=(1,), atol=1e-5, rtol=1e-4),
    row("mvlgamma", lambda L: lambda a: L.mvlgamma(a, 3), _mvlgamma(3), [S],
        domain=(1.5, 4.0), atol=1e-4, rtol=1e-4),
    # --- clamp_min / clamp_max with tensor bounds, aliases ---
    row("clamp_min_tensor", lambda L: L.clamp_min, np.maximum, [S, (4,)],
        domain=[grid(0.25), grid(0.0)]),
    row("clamp_max_number", lambda L: lambda a: L.clamp_max(a, 0.3),
        lambda a: np.minimum(a, 0.3), [S], domain=grid(0.25)),
    row("clip", lambda L: lambda a: L.clip(a, -0.3, 0.6), lambda a: np.clip(a, -0.3, 0.6),
        [S], domain=grid(0.25)),
    row("positive", lambda L: L.positive, lambda a: a, [S], dtypes=(*FLOATS, "int64")),
    row("negative", lambda L: L.negative, np.negative, [S]),
    row("absolute", lambda L: L.absolute, np.abs, [S], domain=nonzero),
    row("multiply", lambda L: L.multiply, np.multiply, [S, (4,)]),
    row("subtract_alpha", lambda L: lambda a, b: L.subtract(a, b, alpha=2),
        lambda a, b: a - 2 * b, [S, (4,)]),
    row("divide", lambda L: L.divide, np.divide, [S, (4,)], domain=[(-2.0, 2.0), nonzero]),
    row("greater", lambda L: L.greater, np.greater, S2, domain=grid(0.0), **NOGRAD),
    row("less_equal", lambda L: L.less_equal, np.less_equal, [S, (4,)], domain=grid(0.0),
        dtypes=(*FLOATS, "int64"), **NOGRAD),
    row("not_equal", lambda L: L.not_equal, np.not_equal, S2, domain=grid(0.0), **NOGRAD),
    # --- in-place forms (on a clone: a non-leaf, so the in-place op records a node) ---
    row("sign_", lambda L: lambda a: a.clone().sign_(), np.sign, [S], domain=nonzero),
    row("deg2rad_", lambda L: lambda a: a.clone().deg2rad_(), np.deg2rad, [S]),
    row("copysign_", lambda L: lambda a, b: a.clone().copysign_(b), np.copysign, [S, (4,)],
        domain=nonzero, grad=(0,)),
    row("float_power_", lambda L: lambda a: a.clone().float_power_(2.0), np.square, [S],
        dtypes=("float64",)),
    row("sinc_", lambda L: lambda a: a.clone().sinc_(), np.sinc, [S]),
    row("clamp_min_", lambda L: lambda a, b: a.clone().clamp_min_(b), np.maximum, [S, (4,)],
        domain=[grid(0.25), grid(0.0)]),
    row("eq_", lambda L: lambda a, b: a.clone().eq_(b), lambda a, b: (a == b) * 1.0, S2,
        domain=grid(0.0, -2, 2)),
    row("ne_", lambda L: lambda a, b: a.clone().ne_(b), lambda a, b: (a != b) * 1.0, S2,
        domain=grid(0.0, -2, 2), grad=(0,)),
    # (the order comparisons away from ties, where a finite difference would see the step)
    row("lt_", lambda L: lambda a, b: a.clone().lt_(b), lambda a, b: (a < b) * 1.0,
        [S, (4,)], domain=[grid(0.25, -2, 2), grid(0.0, -2, 2)]),
    row("le_", lambda L: lambda a: a.clone().le_(0.5), lambda a: (a <= 0.5) * 1.0, [S],
        domain=grid(0.25, -2, 2)),
    row("gt_", lambda L: lambda a, b: a.clone().gt_(b), lambda a, b: (a > b) * 1.0, S2,
        domain=[grid(0.25, -2, 2), grid(0.0, -2, 2)], grad=(0,)),
    row("ge_", lambda L: lambda a, b: a.clone().ge_(b), lambda a, b: (a >= b) * 1.0, S2,
        domain=[grid(0.25, -2, 2), grid(0.0, -2, 2)], grad=(0,)),
    row("greater_equal_int", lambda L: lambda a, b: a.clone().greater_equal_(b),
        lambda a, b: (a >= b).astype(a.dtype), S2, domain=(-2.0, 2.0), dtypes=INTS,
        **NOGRAD),
    row("cumsum_", lambda L: lambda a: a.clone().cumsum_(1), lambda a: np.cumsum(a, 1), [S]),
    row("cumprod_", lambda L: lambda a: a.clone().cumprod_(0), lambda a: np.cumprod(a, 0),
        [S], domain=nonzero),
    row("cumsum_int", lambda L: lambda a: a.clone().cumsum_(0), lambda a: np.cumsum(a, 0),
        [S], dtypes=("int32",), **NOGRAD),
    # --- tensor_misc ---
    row("select", lambda L: lambda a: L.select(a, 1, -2), lambda a: a[:, -2], [S]),
    row("select_method", lambda L: lambda a: a.select(0, 1), lambda a: a[1], [(3, 4, 2)]),
    row("fill_tensor", lambda L: L.fill, lambda a, v: np.full_like(a, v), [S, ()]),
    row("unsafe_split", lambda L: lambda a: L.unsafe_split(a, 3, 1),
        lambda a: tuple(np.split(a, [3], 1)), [S]),
    row("unsafe_chunk", lambda L: lambda a: a.unsafe_chunk(2, 0),
        lambda a: (a[:2], a[2:]), [S]),
    row("unsafe_split_with_sizes", lambda L: lambda a: L.unsafe_split_with_sizes(a, [1, 3], 1),
        lambda a: (a[:, :1], a[:, 1:]), [S]),
    row("sum_to_size", lambda L: lambda a: a.sum_to_size(3, 1), _sum_to, [(2, 3, 4)]),
    row("nonzero_static_pad", lambda L: lambda a: L.nonzero_static(a, size=20, fill_value=-7),
        _nonzero_static(20, -7), [S], domain=(-1.0, 1.0), dtypes=("int64",), **NOGRAD),
    row("nonzero_static_cut", lambda L: lambda a: a.nonzero_static(size=2),
        _nonzero_static(2, -1), [S], dtypes=("float32",), **NOGRAD),
    row("gradient", lambda L: L.gradient, _gradient(), [(4, 5)]),
    row("gradient_dim_spacing", lambda L: lambda a: L.gradient(a, spacing=[0.5], dim=[-1]),
        _gradient(0.5, axis=-1), [(3, 5)]),
    row("gradient_edge2", lambda L: lambda a: L.gradient(a, spacing=2.0, edge_order=2),
        _gradient(2.0, edge_order=2), [(4, 5)]),
    row("gradient_coords", lambda L: lambda a, x: L.gradient(a, spacing=(x,), dim=1),
        _gradient_coords, [(3, 5), (5,)], domain=[(-2.0, 2.0), increasing], grad=(0,)),
    row("gradient_int", lambda L: L.gradient, _gradient(), [(6,)], dtypes=("int64",),
        **NOGRAD),
]
# fmt: on
