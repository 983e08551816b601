"""Op-test rows for the pointwise catalogue: minitorch/_ops/pointwise_more.py (rounding, exp/log,
trigonometry), pointwise_binary.py (atan2, fmod, lerp, addcmul, ...) and special.py."""

from __future__ import annotations

import math

import numpy as np

from tests.ops.specs_pointwise import (
    FLOATS,
    INTS,
    NOGRAD,
    POS,
    S2,
    S,
    away_from,
    grid,
    nonzero,
    row,
)

try:
    import scipy.special as sc
except ImportError:  # references from Python's math module; the rest compare with torch only
    sc = None

# --- input domains ---

# away from every multiple of 0.5 (floor, ceil, trunc: integers; round: half-integers)
OFF_GRID = away_from(*[k / 2 for k in range(-4, 5)], gap=0.05)
UNIT = (-0.9, 0.9)  # asin, acos, atanh, erfinv
PROB = (0.1, 0.9)  # logit


def with_specials(rng, shape, dtype):
    """Uniform in [-2, 2) with NaN, +inf and -inf sprinkled in (nan_to_num, fmax, isnan...);
    small integers for integral dtypes."""
    if np.dtype(dtype).kind in "iub":
        return rng.integers(-3, 4, size=shape)
    x = rng.uniform(-2.0, 2.0, size=shape)
    pick = rng.integers(0, 6, size=shape)
    return np.where(pick == 0, np.nan, np.where(pick == 1, np.inf, np.where(pick == 2, -np.inf, x)))


def magnitude(low, high):
    """|x| in [low, high] with random signs: fmod's operands with |a / b| in (1, 2)."""

    def domain(rng, shape, dtype):
        return rng.uniform(low, high, size=shape) * rng.choice([-1, 1], size=shape)

    return domain


def with_zeros(rng, shape, dtype):
    """Uniform in [-2, 2) with a third of the values exactly 0 (xlogy's special case)."""
    x = rng.uniform(-2.0, 2.0, size=shape)
    return np.where(rng.random(shape) < 0.33, 0.0, x)


def gamma_domain(rng, shape, dtype):
    """Positive, or negative and away from the poles at the non-positive integers."""
    x = rng.uniform(0.3, 3.0, size=shape)
    neg = -rng.integers(0, 3, size=shape) - rng.uniform(0.2, 0.8, size=shape)
    return np.where(rng.random(shape) < 0.3, neg, x)


# --- references ---


def _vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


if sc is not None:
    _erf, _erfc, _erfinv, _lgamma, _digamma = sc.erf, sc.erfc, sc.erfinv, sc.gammaln, sc.psi

    def _polygamma(n):
        return lambda a: sc.polygamma(n, a)

else:  # pragma: no cover - depends on the machine
    _erf, _erfc, _lgamma = _vec(math.erf), _vec(math.erfc), _vec(math.lgamma)
    _erfinv = _digamma = None

    def _polygamma(n):
        return None


def _on_float64(ref):
    """ref on the inputs as float64 (NumPy computes sin of a bool array in float16)."""
    return lambda a: ref(a.astype(np.float64))


def _round(decimals):
    return lambda a: np.round(a, decimals)


def _frac(a):
    return a - np.trunc(a)


def _lerp(a, b, w):
    return a + w * (b - a)


def _xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y))


def _logit(eps=None):
    def ref(a):
        z = a if eps is None else np.clip(a, eps, 1 - eps)
        return np.log(z / (1 - z))

    return ref


def _nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)


def _unary_rows(names, domain=(-2.0, 2.0), **kw):
    """One row per torch-named unary op whose NumPy reference has the same name (or is given)."""
    rows = []
    for name, ref in names:
        rows.append(
            row(name, (lambda n: lambda T: getattr(T, n))(name), ref, [S], domain=domain, **kw)
        )
    return rows


def _inplace(name, ref, domain=(-2.0, 2.0), **kw):
    make = (lambda n: lambda T: lambda a: getattr(a.clone(), n + "_")())(name)
    return row(f"{name}_inplace", make, ref, [S], domain=domain, **kw)


# The table reads best one row per line: ruff format would spread each row over ten.
# fmt: off
SPECS = [
    # rounding: zero gradients, integers returned as they are
    *[
        row(name, (lambda n: lambda T: getattr(T, n))(name), ref, [S], domain=OFF_GRID,
            dtypes=FLOATS + INTS)
        for name, ref in [("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                          ("round", np.round)]
    ],
    row("floor_0d", lambda T: T.floor, np.floor, [()], domain=OFF_GRID),
    row("fix", lambda T: T.fix, np.trunc, [(2, 3)], domain=OFF_GRID),
    row("round_decimals", lambda T: lambda a: T.round(a, decimals=2), _round(2), [S],
        dtypes=("float64",)),
    row("round_neg_decimals", lambda T: lambda a: T.round(a, decimals=-1), _round(-1), [S],
        domain=away_from(-45, -35, -25, -15, -5, 5, 15, 25, 35, 45, gap=0.5, low=-50, high=50)),
    row("frac", lambda T: T.frac, _frac, [S], domain=OFF_GRID),
    row("sgn", lambda T: T.sgn, np.sign, [S], domain=nonzero, dtypes=FLOATS + INTS),
    row("true_divide", lambda T: T.true_divide, np.divide, S2, domain=[(-2.0, 2.0), nonzero]),
    row("square", lambda T: T.square, np.square, [S], dtypes=FLOATS + INTS + ("bool",)),
    row("square_0d", lambda T: T.square, np.square, [()]),
    # exp / log family
    *_unary_rows([("exp2", np.exp2), ("expm1", np.expm1)]),
    *_unary_rows([("log2", np.log2), ("log10", np.log10), ("rsqrt", lambda a: 1 / np.sqrt(a))],
                 domain=POS),
    row("log1p", lambda T: T.log1p, np.log1p, [S], domain=(-0.5, 2.0)),
    row("reciprocal", lambda T: T.reciprocal, np.reciprocal, [S], domain=nonzero),
    row("expm1_0d", lambda T: T.expm1, np.expm1, [()]),
    # trigonometric and hyperbolic
    *_unary_rows([("sin", np.sin), ("cos", np.cos), ("atan", np.arctan), ("sinh", np.sinh),
                  ("cosh", np.cosh), ("asinh", np.arcsinh)]),
    row("tan", lambda T: T.tan, np.tan, [S], domain=(-1.2, 1.2)),
    *_unary_rows([("asin", np.arcsin), ("acos", np.arccos), ("atanh", np.arctanh)], domain=UNIT),
    row("acosh", lambda T: T.acosh, np.arccosh, [S], domain=(1.2, 3.0)),
    row("arcsin_alias", lambda T: T.arcsin, np.arcsin, [(2, 3)], domain=UNIT),
    row("sin_0d", lambda T: T.sin, np.sin, [()]),
    # integer and bool inputs promote to the default float dtype
    *[
        row(f"{name}_int", (lambda n: lambda T: getattr(T, n))(name), _on_float64(ref), [S],
            domain=(1, 3), dtypes=INTS + ("bool",), **NOGRAD)
        for name, ref in [("sin", np.sin), ("exp2", np.exp2), ("log1p", np.log1p),
                          ("rsqrt", lambda a: 1 / np.sqrt(a)), ("erf", _erf)]
    ],
    row("reciprocal_int", lambda T: T.reciprocal, lambda a: 1 / a, [S], domain=nonzero,
        dtypes=INTS, **NOGRAD),
    # atan2, hypot
    row("atan2", lambda T: T.atan2, np.arctan2, S2, domain=nonzero),
    row("atan2_broadcast", lambda T: T.atan2, np.arctan2, [(2, 1, 3), (4, 1)], domain=nonzero),
    row("atan2_int", lambda T: T.atan2, np.arctan2, S2, domain=nonzero, dtypes=INTS, **NOGRAD),
    row("hypot", lambda T: T.hypot, np.hypot, [S, (4,)], domain=nonzero),
    row("hypot_0d", lambda T: T.hypot, np.hypot, [S, ()], domain=nonzero,
        dtypes=(("float32", "int64"),), grad=(0,)),
    # fmod: a / b stays within (1, 2) in magnitude, away from the jumps of trunc(a / b)
    row("fmod_scalar", lambda T: lambda a: T.fmod(a, 1.5), lambda a: np.fmod(a, 1.5), [S],
        domain=away_from(-1.5, 0.0, 1.5)),
    row("fmod", lambda T: T.fmod, np.fmod, S2, domain=[magnitude(1.3, 1.9), magnitude(1.0, 1.2)]),
    row("fmod_broadcast", lambda T: T.fmod, np.fmod, [S, (4,)],
        domain=[magnitude(1.3, 1.9), magnitude(1.0, 1.2)]),
    row("fmod_int", lambda T: T.fmod, np.fmod, S2, domain=[(-6, 6), nonzero], dtypes=INTS,
        **NOGRAD),
    row("fmod_int_scalar", lambda T: lambda a: T.fmod(a, -4), lambda a: np.fmod(a, -4), [S],
        domain=(-9, 9), dtypes=INTS, **NOGRAD),
    # fmax, fmin (disjoint grids: no ties), and with NaN
    row("fmax", lambda T: T.fmax, np.fmax, S2, domain=[grid(0.25), grid(0.0)]),
    row("fmin", lambda T: T.fmin, np.fmin, [S, (4,)], domain=[grid(0.25), grid(0.0)]),
    row("fmax_int_float", lambda T: T.fmax, np.fmax, S2, dtypes=(("int64", "float32"),),
        domain=[(-2, 2), grid(0.25)], grad=(1,)),
    row("fmax_nan", lambda T: T.fmax, np.fmax, S2, domain=with_specials, **NOGRAD),
    row("fmin_nan", lambda T: T.fmin, np.fmin, S2, domain=with_specials, **NOGRAD),
    # lerp
    row("lerp_scalar", lambda T: lambda a, b: T.lerp(a, b, 0.3), lambda a, b: _lerp(a, b, 0.3),
        S2),
    row("lerp_scalar_high", lambda T: lambda a, b: T.lerp(a, b, 0.8),
        lambda a, b: _lerp(a, b, 0.8), [S, (4,)]),
    row("lerp_tensor", lambda T: T.lerp, _lerp, [S, S, (4,)], domain=[(-2, 2), (-2, 2), (-1, 2)]),
    row("lerp_tensor_0d", lambda T: T.lerp, _lerp, [(), (3, 1), ()]),
    # addcmul, addcdiv
    row("addcmul", lambda T: lambda x, a, b: T.addcmul(x, a, b, value=0.5),
        lambda x, a, b: x + 0.5 * a * b, [S, (4,), (3, 1)]),
    row("addcmul_default", lambda T: T.addcmul, lambda x, a, b: x + a * b, [S, S, ()]),
    row("addcmul_int", lambda T: lambda x, a, b: T.addcmul(x, a, b, value=2),
        lambda x, a, b: x + 2 * a * b, [S, S, S], dtypes=INTS, **NOGRAD),
    row("addcdiv", lambda T: lambda x, a, b: T.addcdiv(x, a, b, value=-2),
        lambda x, a, b: x - 2 * a / b, [S, (4,), S], domain=[(-2, 2), (-2, 2), nonzero]),
    row("addcdiv_int_input", lambda T: T.addcdiv, lambda x, a, b: x + a / b, [S, S, S],
        domain=[(-2, 2), (-2, 2), nonzero], dtypes=(("int64", "float32", "float32"),),
        grad=(1, 2)),
    # logaddexp
    row("logaddexp", lambda T: T.logaddexp, np.logaddexp, S2, domain=(-3.0, 3.0)),
    row("logaddexp_broadcast", lambda T: T.logaddexp, np.logaddexp, [(2, 1, 3), (4, 1)]),
    row("logaddexp_large", lambda T: T.logaddexp, np.logaddexp, S2, domain=(500.0, 900.0),
        dtypes=("float64",)),
    row("logaddexp2", lambda T: T.logaddexp2, np.logaddexp2, [S, ()], domain=(-3.0, 3.0)),
    # nan_to_num; the default replacements are the dtype's extremes (float64 here: the
    # reference computes in float64)
    row("nan_to_num", lambda T: T.nan_to_num, _nan_to_num, [S], domain=with_specials,
        dtypes=("float64",), **NOGRAD),
    row("nan_to_num_values", lambda T: lambda a: T.nan_to_num(a, 1.0, 2.0, neginf=-3.0),
        lambda a: _nan_to_num(a, 1.0, 2.0, -3.0), [S], domain=with_specials),
    row("nan_to_num_int", lambda T: T.nan_to_num, _nan_to_num, [S], dtypes=INTS, **NOGRAD),
    # special functions
    row("erf", lambda T: T.erf, _erf, [S]),
    row("erf_0d", lambda T: T.erf, _erf, [()]),
    row("erfc", lambda T: T.erfc, _erfc, [S]),
    row("erfinv", lambda T: T.erfinv, _erfinv, [S], domain=UNIT),
    row("lgamma", lambda T: T.lgamma, _lgamma, [S], domain=gamma_domain),
    row("digamma", lambda T: T.digamma, _digamma, [S], domain=gamma_domain, atol=1e-4),
    row("polygamma_1", lambda T: lambda a: T.polygamma(1, a), _polygamma(1), [S],
        domain=(0.5, 3.0), rtol=1e-4),
    row("polygamma_2", lambda T: lambda a: T.polygamma(2, a), _polygamma(2), [S],
        domain=(0.5, 3.0), rtol=1e-4),
    row("logit", lambda T: T.logit, _logit(), [S], domain=PROB),
    row("logit_eps", lambda T: lambda a: T.logit(a, eps=0.2), _logit(0.2), [S],
        domain=away_from(0.2, 0.8, gap=0.05, low=0.0, high=1.0)),
    row("xlogy", lambda T: T.xlogy, _xlogy, [S, (4,)], domain=[with_zeros, POS]),
    row("xlogy_scalar_other", lambda T: lambda a: T.xlogy(a, 3.0), lambda a: _xlogy(a, 3.0),
        [S], domain=with_zeros),
    row("xlogy_scalar_self", lambda T: lambda b: T.xlogy(2.0, b), lambda b: _xlogy(2.0, b), [S],
        domain=POS),
    row("xlogy_int", lambda T: T.xlogy, _xlogy, S2, domain=[(-2, 2), (1, 4)], dtypes=INTS,
        **NOGRAD),
    # in-place forms, on a clone (a non-leaf)
    _inplace("floor", np.floor, OFF_GRID),
    _inplace("sin", np.sin),
    _inplace("rsqrt", lambda a: 1 / np.sqrt(a), POS),
    _inplace("erf", _erf),
    _inplace("lgamma", _lgamma, POS),
    _inplace("logit", _logit(), PROB),
    row("nan_to_num_inplace", lambda T: lambda a: a.clone().nan_to_num_(0.5, 9.0, -9.0),
        lambda a: _nan_to_num(a, 0.5, 9.0, -9.0), [S], domain=with_specials),
    row("round_decimals_inplace", lambda T: lambda a: a.clone().round_(decimals=1), _round(1),
        [S], dtypes=("float64",)),
    row("lerp_inplace", lambda T: lambda a, b, w: a.clone().lerp_(b, w), _lerp, [S, (4,), S]),
    row("addcmul_inplace", lambda T: lambda x, a, b: x.clone().addcmul_(a, b, value=3),
        lambda x, a, b: x + 3 * a * b, [S, S, (4,)]),
    row("addcdiv_inplace", lambda T: lambda x, a, b: x.clone().addcdiv_(a, b),
        lambda x, a, b: x + a / b, [S, S, S], domain=[(-2, 2), (-2, 2), nonzero]),
    row("fmod_inplace", lambda T: lambda a, b: a.clone().fmod_(b), np.fmod, S2,
        domain=[magnitude(1.3, 1.9), magnitude(1.0, 1.2)]),
    row("xlogy_inplace", lambda T: lambda a, b: a.clone().xlogy_(b), _xlogy, S2,
        domain=[with_zeros, POS]),
    row("atan2_inplace", lambda T: lambda a, b: a.clone().atan2_(b), np.arctan2, S2,
        domain=nonzero),
]
# fmt: on
