"""Op-test rows for the pointwise ops (minitorch/_ops/pointwise.py) and their in-place forms."""

from __future__ import annotations

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec

# --- input domains (see OpSpec.domain): away from kinks, poles and ties ---

POS = (0.5, 2.0)  # log, sqrt, fractional and negative powers


def away_from(*points, gap=0.15, low=-2.0, high=2.0):
    """Uniform in [low, high) with values near `points` pushed `gap` away (kinks, clamp bounds)."""

    def domain(rng, shape, dtype):
        x = rng.uniform(low, high, size=shape)
        for p in points:
            d = x - p
            x = np.where(np.abs(d) < gap, p + np.where(d >= 0, 1.0, -1.0) * (gap + np.abs(d)), x)
        return x

    return domain


def nonzero(rng, shape, dtype):
    """Magnitudes in [0.5, 2] (ints: 1..3) with random signs: divisors, |x|, sign(x)."""
    sign = rng.choice([-1, 1], size=shape)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 4, size=shape) * sign
    return rng.uniform(0.5, 2.0, size=shape) * sign


def grid(offset, low=-4, high=4):
    """Multiples of 0.5 plus `offset`: two grids with different offsets never tie (max, min,
    clamp with tensor bounds); the same grid ties often (comparisons)."""

    def domain(rng, shape, dtype):
        return rng.integers(low, high, size=shape) / 2 + offset

    return domain


def dividend(rng, shape, dtype):
    """Uniform in [-6, 6): quotients by a `nonzero` divisor on both sides of several integers."""
    return rng.uniform(-6.0, 6.0, size=shape)


# --- rows ---


def _torch(make):
    """The op built for torch; torch is imported only when a reference test calls it."""

    def op(*args, **kwargs):
        import torch

        return make(torch)(*args, **kwargs)

    return op


def row(name, make, ref, shapes, **kw) -> OpSpec:
    """A spec whose minitorch and torch ops are the same code: make(lib) -> callable."""
    return OpSpec(name=name, op=make(mt), ref=ref, shapes=shapes, torch_op=_torch(make), **kw)


S = (3, 4)
S2 = [S, S]
FLOATS = ("float32", "float64")
INTS = ("int64", "int32")
NOGRAD = {"grad": (), "gradgrad": False}


def _where(c, a, b):
    return np.where(c, a, b)


def _trunc_div(a, b):
    q = np.trunc(a / b)
    return q.astype(np.result_type(a, b)) if np.result_type(a, b).kind in "iu" else q


def _floor_div(a, b):
    return np.floor_divide(a, b)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _clamp_ref(a, lo, hi):
    return np.minimum(np.maximum(a, lo), hi)


def _view_inplace(a, b):
    c = a.clone()
    c.view(-1).mul_(b.view(-1))  # writes into c through a view: CopySlices
    return c


def _fill_ref(a, v):
    return np.full_like(a, v)


SPECS = [
    # add / sub / rsub, with alpha, broadcasting, 0-d and empty shapes
    row("add", lambda T: T.add, np.add, S2, dtypes=FLOATS + INTS),
    row("add_alpha", lambda T: lambda a, b: T.add(a, b, alpha=2), lambda a, b: a + 2 * b, S2),
    row("add_scalar", lambda T: lambda a: a + 1.5, lambda a: a + 1.5, [S]),
    row("radd_scalar", lambda T: lambda a: 2 + a, lambda a: 2 + a, [S], dtypes=FLOATS + INTS),
    row("add_broadcast_row", lambda T: T.add, np.add, [S, (4,)]),
    row("add_broadcast_both", lambda T: T.add, np.add, [(2, 1, 3), (4, 1)]),
    row("add_0d_0d", lambda T: T.add, np.add, [(), ()]),
    row("add_tensor_0d", lambda T: T.add, np.add, [S, ()]),
    row("add_empty", lambda T: T.add, np.add, [(0, 3), (3,)]),
    row("sub", lambda T: T.sub, np.subtract, S2, dtypes=FLOATS + INTS),
    row(
        "sub_alpha",
        lambda T: lambda a, b: T.sub(a, b, alpha=0.5),
        lambda a, b: a - 0.5 * b,
        [S, (4,)],
    ),
    row("rsub", lambda T: T.rsub, lambda a, b: b - a, S2),
    row(
        "rsub_alpha",
        lambda T: lambda a, b: T.rsub(a, b, alpha=2),
        lambda a, b: b - 2 * a,
        [(2, 1, 3), (4, 1)],
    ),
    row("rsub_scalar", lambda T: lambda a: 3.0 - a, lambda a: 3.0 - a, [S]),
    # mul / div
    row("mul", lambda T: T.mul, np.multiply, S2, dtypes=FLOATS + INTS),
    row("mul_broadcast", lambda T: T.mul, np.multiply, [(2, 1, 3), (4, 1)]),
    row("mul_scalar", lambda T: lambda a: a * -1.5, lambda a: a * -1.5, [S]),
    row("mul_0d", lambda T: T.mul, np.multiply, [S, ()]),
    # half by a number or a 0-d float32 scale: float32 inside, rounded once (HalfMul/HalfDiv)
    row("mul_scalar__half", lambda T: lambda a: a * -1.3, lambda a: a * np.float32(-1.3), [S],
        dtypes=("float16", "bfloat16"), **NOGRAD, atol=1e-2, rtol=1e-2),
    row("mul_0d_f32__half", lambda T: T.mul, np.multiply, [S, ()],
        dtypes=(("float16", "float32"), ("bfloat16", "float32")), **NOGRAD, atol=1e-2, rtol=1e-2),
    row("div_scalar__half", lambda T: lambda a: a / 0.7, lambda a: a / np.float32(0.7), [S],
        dtypes=("float16", "bfloat16"), domain=(0.5, 2.0), **NOGRAD, atol=1e-2, rtol=1e-2),
    row("mul_empty", lambda T: T.mul, np.multiply, [(0, 3), (3,)]),
    row("div", lambda T: T.div, np.divide, S2, domain=[(-2.0, 2.0), nonzero]),
    row(
        "div_broadcast",
        lambda T: T.div,
        np.divide,
        [(2, 1, 3), (4, 1)],
        domain=[(-2.0, 2.0), nonzero],
    ),
    row("div_scalar", lambda T: lambda a: a / 4.0, lambda a: a / 4.0, [S]),
    row("rdiv_scalar", lambda T: lambda b: 2.0 / b, lambda b: 2.0 / b, [S], domain=nonzero),
    row(
        "div_trunc",
        lambda T: lambda a, b: T.div(a, b, rounding_mode="trunc"),
        _trunc_div,
        S2,
        domain=[dividend, nonzero],
        **NOGRAD,
    ),
    row(
        "div_floor",
        lambda T: lambda a, b: T.div(a, b, rounding_mode="floor"),
        _floor_div,
        S2,
        domain=[dividend, nonzero],
        **NOGRAD,
    ),
    row(
        "div_trunc_int",
        lambda T: lambda a, b: T.div(a, b, rounding_mode="trunc"),
        _trunc_div,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "div_floor_int",
        lambda T: lambda a, b: T.div(a, b, rounding_mode="floor"),
        _floor_div,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "floor_divide_int",
        lambda T: T.floor_divide,
        _floor_div,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "remainder_int",
        lambda T: T.remainder,
        np.remainder,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=INTS,
        **NOGRAD,
    ),
    # a - floor(a / b) * b: differentiable away from the jumps, where a / b is an integer
    row(
        "remainder",
        lambda T: T.remainder,
        np.remainder,
        S2,
        domain=[away_from(-1.5, 0.0, 1.5, low=-1.9, high=1.9), grid(0.5, 2, 4)],
    ),
    row(
        "remainder_scalar",
        lambda T: lambda a: T.remainder(a, -0.75),
        lambda a: np.remainder(a, -0.75),
        [S],
        domain=away_from(-1.5, -0.75, 0.0, 0.75, 1.5, low=-1.9, high=1.9),
    ),
    # no torch_op, no gradient: torch has no derivative for remainder(number, tensor)
    OpSpec(
        name="remainder_number_tensor",
        op=lambda b: mt.remainder(2.5, b),
        ref=lambda b: np.remainder(2.5, b),
        shapes=[S],
        domain=grid(0.4, 2, 4),
        grad=(),
        gradgrad=False,
    ),
    row("neg", lambda T: T.neg, np.negative, [S], dtypes=FLOATS + INTS),
    row("neg_op", lambda T: lambda a: -a, np.negative, [(2, 1, 3)]),
    # pow: tensor ** scalar, tensor ** tensor, scalar ** tensor
    row("pow_2", lambda T: lambda a: a**2, lambda a: a**2, [S]),
    row(
        "pow_3_int",
        lambda T: lambda a: a**3,
        lambda a: a**3,
        [S],
        dtypes=INTS,
        domain=(-3, 3),
        **NOGRAD,
    ),
    row("pow_0", lambda T: lambda a: T.pow(a, 0), lambda a: a**0, [S]),
    row("pow_neg_frac", lambda T: lambda a: a**-1.5, lambda a: a**-1.5, [S], domain=POS),
    row("pow_half", lambda T: lambda a: T.pow(a, 0.5), np.sqrt, [S], domain=POS),
    row("pow_neg_int", lambda T: lambda a: a**-2, lambda a: a**-2.0, [S], domain=nonzero),
    row("pow_tensor", lambda T: T.pow, np.power, S2, domain=[POS, (-2.0, 2.0)]),
    row(
        "pow_tensor_broadcast",
        lambda T: T.pow,
        np.power,
        [(2, 1, 3), (4, 1)],
        domain=[POS, (-2.0, 2.0)],
    ),
    row("pow_scalar_base", lambda T: lambda a: 2.0**a, lambda a: 2.0**a, [S]),
    # unary math
    row("exp", lambda T: T.exp, np.exp, [S]),
    row("exp_int", lambda T: T.exp, np.exp, [S], dtypes=INTS, **NOGRAD),
    row("log", lambda T: T.log, np.log, [S], domain=POS),
    row("sqrt", lambda T: T.sqrt, np.sqrt, [S], domain=POS),
    row("abs", lambda T: T.abs, np.abs, [S], domain=nonzero, dtypes=FLOATS + INTS),
    row("sign", lambda T: T.sign, np.sign, [S], domain=nonzero, dtypes=FLOATS + INTS),
    row("tanh", lambda T: T.tanh, np.tanh, [S]),
    row("sigmoid", lambda T: T.sigmoid, _sigmoid, [S], domain=(-6.0, 6.0)),
    row(
        "relu",
        lambda T: T.relu,
        lambda a: np.maximum(a, 0),
        [S],
        domain=away_from(0.0),
        dtypes=FLOATS + INTS,
    ),
    # two-input selections (inputs on disjoint grids: no ties)
    row("maximum", lambda T: T.maximum, np.maximum, S2, domain=[grid(0.25), grid(0.0)]),
    row("minimum", lambda T: T.minimum, np.minimum, [S, (4,)], domain=[grid(0.25), grid(0.0)]),
    row("maximum_int", lambda T: T.maximum, np.maximum, S2, dtypes=INTS, **NOGRAD),
    # clamp (inputs away from the bounds)
    row(
        "clamp",
        lambda T: lambda a: T.clamp(a, -0.5, 0.5),
        lambda a: np.clip(a, -0.5, 0.5),
        [S],
        domain=away_from(-0.5, 0.5),
    ),
    row(
        "clamp_min",
        lambda T: lambda a: T.clamp(a, min=0.2),
        lambda a: np.maximum(a, 0.2),
        [S],
        domain=away_from(0.2),
    ),
    row(
        "clamp_max_int",
        lambda T: lambda a: a.clamp(max=1),
        lambda a: np.minimum(a, 1),
        [S],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "clamp_int_float_bound",
        lambda T: lambda a: T.clamp(a, 0.5, 2.5),
        lambda a: np.clip(a, 0.5, 2.5),
        [S],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "clamp_tensor",
        lambda T: T.clamp,
        _clamp_ref,
        [S, S, S],
        domain=[grid(0.25), grid(-1.5, -1, 2), grid(0.5, 0, 3)],
    ),
    row(
        "clamp_tensor_broadcast",
        lambda T: T.clamp,
        _clamp_ref,
        [S, (4,), ()],
        domain=[grid(0.25), grid(-1.5, -1, 2), grid(0.5, 0, 3)],
    ),
    row(
        "clamp_tensor_max",
        lambda T: lambda a, hi: T.clamp(a, max=hi),
        lambda a, hi: np.minimum(a, hi),
        [S, (3, 1)],
        domain=[grid(0.25), grid(0.0)],
    ),
    # where
    row(
        "where",
        lambda T: T.where,
        _where,
        [S, S, S],
        dtypes=(("bool", "float32", "float32"), ("bool", "float64", "float64")),
        grad=(1, 2),
    ),
    row(
        "where_broadcast",
        lambda T: T.where,
        _where,
        [(3, 1), (1, 4), (4,)],
        dtypes=(("bool", "float32", "float32"), ("bool", "int64", "float32")),
        grad=(1, 2),
    ),
    row(
        "where_scalar",
        lambda T: lambda c, a: T.where(c, a, 0.0),
        lambda c, a: np.where(c, a, 0.0),
        [S, S],
        dtypes=(("bool", "float32"), ("bool", "float64")),
        grad=(1,),
    ),
    # comparisons: bool results, never differentiable (same grid: ties happen)
    *[
        row(
            name,
            (lambda n: lambda T: getattr(T, n))(name),
            ref,
            S2,
            domain=grid(0.0, -2, 3),
            dtypes=FLOATS + INTS + (("int64", "float32"),),
            **NOGRAD,
        )
        for name, ref in [
            ("eq", np.equal),
            ("ne", np.not_equal),
            ("lt", np.less),
            ("le", np.less_equal),
            ("gt", np.greater),
            ("ge", np.greater_equal),
        ]
    ],
    row(
        "gt_scalar",
        lambda T: lambda a: a > 0.5,
        lambda a: a > 0.5,
        [S],
        domain=grid(0.0),
        dtypes=FLOATS + INTS,
        **NOGRAD,
    ),
    row(
        "eq_broadcast",
        lambda T: lambda a, b: a == b,
        np.equal,
        [S, (4,)],
        domain=grid(0.0, -2, 3),
        **NOGRAD,
    ),
    # mixed dtypes: torch's promotion
    row("add_int_float", lambda T: T.add, np.add, S2, dtypes=(("int64", "float32"),), grad=(1,)),
    row(
        "mul_int_pyfloat",
        lambda T: lambda a: a * 2.5,
        lambda a: a * 2.5,
        [S],
        dtypes=INTS,
        **NOGRAD,
    ),
    row("add_f32_f64_0d", lambda T: T.add, np.add, [S, ()], dtypes=(("float32", "float64"),)),
    row("mul_f64_0d_f32", lambda T: T.mul, np.multiply, [(), S], dtypes=(("float64", "float32"),)),
    row("add_i32_i64_0d", lambda T: T.add, np.add, [S, ()], dtypes=(("int32", "int64"),), **NOGRAD),
    row(
        "div_int_int",
        lambda T: T.div,
        np.divide,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=INTS,
        **NOGRAD,
    ),
    row(
        "div_int_float",
        lambda T: T.div,
        np.divide,
        S2,
        domain=[(-6, 6), nonzero],
        dtypes=(("int64", "float32"),),
        grad=(1,),
    ),
    # in-place forms (on a clone, so the graph records them on a non-leaf)
    row(
        "add_inplace",
        lambda T: lambda a, b: a.clone().add_(b, alpha=2),
        lambda a, b: a + 2 * b,
        [S, (4,)],
    ),
    row("sub_inplace", lambda T: lambda a, b: a.clone().sub_(b), np.subtract, S2),
    row("mul_inplace", lambda T: lambda a, b: a.clone().mul_(b), np.multiply, [S, ()]),
    row(
        "div_inplace",
        lambda T: lambda a, b: a.clone().div_(b),
        np.divide,
        S2,
        domain=[(-2.0, 2.0), nonzero],
    ),
    row("pow_inplace", lambda T: lambda a: a.clone().pow_(3), lambda a: a**3, [S]),
    row(
        "clamp_inplace",
        lambda T: lambda a: a.clone().clamp_(-0.5, 0.5),
        lambda a: np.clip(a, -0.5, 0.5),
        [S],
        domain=away_from(-0.5, 0.5),
    ),
    *[
        row(
            f"{name}_inplace",
            (lambda n: lambda T: lambda a: getattr(a.clone(), n + "_")())(name),
            ref,
            [S],
            domain=dom,
        )
        for name, ref, dom in [
            ("neg", np.negative, (-2.0, 2.0)),
            ("exp", np.exp, (-2.0, 2.0)),
            ("log", np.log, POS),
            ("sqrt", np.sqrt, POS),
            ("abs", np.abs, nonzero),
            ("tanh", np.tanh, (-2.0, 2.0)),
            ("sigmoid", _sigmoid, (-2.0, 2.0)),
            ("relu", lambda a: np.maximum(a, 0), away_from(0.0)),
        ]
    ],
    row("mul_inplace_through_view", lambda T: _view_inplace, np.multiply, S2),
    row("fill_inplace", lambda T: lambda a, v: a.clone().fill_(v), _fill_ref, [S, ()]),
    row("zero_inplace", lambda T: lambda a: a.clone().zero_(), np.zeros_like, [S]),
    row(
        "copy_inplace",
        lambda T: lambda a, b: a.clone().copy_(b),
        lambda a, b: np.broadcast_to(b, a.shape),
        [S, (4,)],
    ),
    row(
        "add_inplace_int_into_float",
        lambda T: lambda a, b: a.clone().add_(b),
        np.add,
        S2,
        dtypes=(("float32", "int64"),),
        grad=(0,),
    ),
]

# Known bugs: {spec name: {check: reason}}; check is "forward", "grad", "gradgrad" or "all",
# optionally "@device". Each becomes a strict xfail, so a fix shows up as an XPASS failure.
XFAIL: dict = {}
