"""Op-test rows for minitorch/_ops/logical.py: logical and bitwise ops, isclose, predicates.

None is differentiable: every row is forward only (values and result dtype, vs NumPy and torch).
"""

from __future__ import annotations

import numpy as np

from tests.ops.specs_pointwise import FLOATS, INTS, NOGRAD, S2, S, grid, row
from tests.ops.specs_pointwise_more import with_specials

SMALL = (-1, 1)  # many zeros: logical ops see both truth values
BITS = (-8, 8)
COUNTS = (-2, 70)  # shift counts, negative and past the width included


def signed_zeros(rng, shape, dtype):
    """-0.0, 0.0 and small values of both signs (signbit)."""
    return rng.choice([-0.0, 0.0, -1.5, 1.5, -np.inf, np.inf], size=shape)


def _bits(dtype) -> int:
    return np.dtype(dtype).itemsize * 8


def _wrap(v: int, dtype) -> int:
    """A Python int reduced to the range of an integer dtype (two's complement)."""
    bits = _bits(dtype)
    v &= (1 << bits) - 1
    if np.dtype(dtype).kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _shift_ref(left: bool):
    """torch's shifts, in Python integers: a count outside [0, width) gives 0 (-1 for a negative
    number shifted right)."""

    def ref(x, s):
        dt = np.result_type(x, s)
        bits = _bits(dt)

        def one(a, k):
            a, k = int(a), int(k)
            if not 0 <= k < bits:
                return 0 if left or a >= 0 else -1
            return _wrap(a << k, dt) if left else a >> k

        x, s = np.broadcast_arrays(x, s)
        out = [one(a, k) for a, k in zip(x.ravel(), s.ravel(), strict=True)]
        return np.array(out, dtype=np.int64).astype(dt).reshape(x.shape)

    return ref


def _isclose(**kw):
    return lambda a, b: np.isclose(a, b, **kw)


def _method(name):
    return lambda T: lambda a, b: getattr(a.clone(), name)(b)


def _fn(name):
    return lambda T: getattr(T, name)


MIXED = (("int64", "float32"), ("bool", "int32"), ("float64", "bool"))
BOOL = ("bool",)

# fmt: off
SPECS = [
    # logical: any dtypes in, bool out
    *[
        row(name, _fn(name), ref, S2, domain=SMALL, dtypes=FLOATS + INTS + BOOL + MIXED, **NOGRAD)
        for name, ref in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                          ("logical_xor", np.logical_xor)]
    ],
    row("logical_and_broadcast", _fn("logical_and"), np.logical_and, [(2, 1, 3), (4, 1)],
        domain=SMALL, **NOGRAD),
    row("logical_not", _fn("logical_not"), np.logical_not, [S], domain=SMALL,
        dtypes=FLOATS + INTS + BOOL, **NOGRAD),
    row("logical_or_0d", _fn("logical_or"), np.logical_or, [(), S], domain=SMALL,
        dtypes=INTS, **NOGRAD),
    # bitwise: integral and bool
    *[
        row(name, _fn(name), ref, S2, domain=BITS,
            dtypes=INTS + BOOL + ("uint8", ("int32", "int64"), ("bool", "int8")), **NOGRAD)
        for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                          ("bitwise_xor", np.bitwise_xor)]
    ],
    row("bitwise_and_scalar", lambda T: lambda a: T.bitwise_and(a, 6), lambda a: a & 6, [S],
        domain=BITS, dtypes=INTS, **NOGRAD),
    row("bitwise_or_operator", lambda T: lambda a, b: a | b, np.bitwise_or, [S, (4,)],
        domain=BITS, dtypes=INTS + BOOL, **NOGRAD),
    row("bitwise_xor_operator_0d", lambda T: lambda a, b: a ^ b, np.bitwise_xor, [S, ()],
        domain=BITS, dtypes=(("int32", "int64"),), **NOGRAD),
    row("bitwise_not", _fn("bitwise_not"), np.invert, [S], domain=BITS,
        dtypes=INTS + BOOL + ("uint8",), **NOGRAD),
    row("invert_operator", lambda T: lambda a: ~a, np.invert, [S], domain=BITS,
        dtypes=INTS + BOOL, **NOGRAD),
    row("bitwise_left_shift", _fn("bitwise_left_shift"), _shift_ref(True), S2,
        domain=[BITS, COUNTS], dtypes=INTS + ("uint8", ("int8", "int64")), **NOGRAD),
    row("bitwise_right_shift", _fn("bitwise_right_shift"), _shift_ref(False), S2,
        domain=[(-300, 300), COUNTS], dtypes=INTS + (("int16", "int64"),), **NOGRAD),
    row("lshift_operator_scalar", lambda T: lambda a: a << 3, lambda a: a << 3, [S],
        domain=BITS, dtypes=INTS, **NOGRAD),
    row("rshift_operator_big_scalar", lambda T: lambda a: a >> 40,
        lambda a: _shift_ref(False)(a, np.array(40, a.dtype)), [S], domain=BITS,
        dtypes=("int32",), **NOGRAD),
    row("rlshift_operator", lambda T: lambda s: 3 << s, lambda s: _shift_ref(True)(3, s), [S],
        domain=(0, 8), dtypes=INTS, **NOGRAD),
    # isclose (the same grid: ties and near ties)
    row("isclose", _fn("isclose"), np.isclose, S2, domain=grid(0.0, -2, 3),
        dtypes=FLOATS + INTS, **NOGRAD),
    row("isclose_tolerances", lambda T: lambda a, b: T.isclose(a, b, rtol=0.1, atol=0.45),
        _isclose(rtol=0.1, atol=0.45), [S, (4,)], domain=grid(0.0, -2, 3),
        dtypes=FLOATS + INTS, **NOGRAD),
    row("isclose_nan", _fn("isclose"), np.isclose, S2, domain=with_specials, **NOGRAD),
    row("isclose_equal_nan", lambda T: lambda a, b: T.isclose(a, b, equal_nan=True),
        _isclose(equal_nan=True), S2, domain=with_specials, **NOGRAD),
    row("isclose_uint8", lambda T: lambda a, b: T.isclose(a, b, rtol=0, atol=3),
        _isclose(rtol=0, atol=3), S2, domain=(0, 9), dtypes=("uint8",), **NOGRAD),
    # predicates
    *[
        row(name, _fn(name), ref, [S], domain=with_specials, dtypes=FLOATS + INTS + BOOL,
            **NOGRAD)
        for name, ref in [("isnan", np.isnan), ("isinf", np.isinf), ("isposinf", np.isposinf),
                          ("isneginf", np.isneginf), ("isfinite", np.isfinite)]
    ],
    row("isnan_0d", _fn("isnan"), np.isnan, [()], domain=with_specials, **NOGRAD),
    row("signbit", _fn("signbit"), np.signbit, [S], domain=signed_zeros, **NOGRAD),
    row("signbit_int", _fn("signbit"), lambda a: a < 0, [S], domain=BITS, dtypes=INTS + BOOL,
        **NOGRAD),
    # in-place forms keep self's dtype
    row("logical_and_inplace", _method("logical_and_"), lambda a, b: np.logical_and(a, b), S2,
        domain=SMALL, dtypes=INTS + (("int64", "float32"),), **NOGRAD),
    row("logical_not_inplace", lambda T: lambda a: a.clone().logical_not_(),
        np.logical_not, [S], domain=SMALL, dtypes=BOOL + INTS, **NOGRAD),
    row("bitwise_xor_inplace", _method("bitwise_xor_"), np.bitwise_xor, [S, (4,)],
        domain=BITS, dtypes=INTS + BOOL, **NOGRAD),
    row("ior_operator", lambda T: lambda a, b: a.clone().__ior__(b), np.bitwise_or, S2,
        domain=BITS, dtypes=INTS, **NOGRAD),
    row("bitwise_left_shift_inplace", _method("bitwise_left_shift_"), _shift_ref(True), S2,
        domain=[BITS, (0, 8)], dtypes=INTS, **NOGRAD),
]
# fmt: on
