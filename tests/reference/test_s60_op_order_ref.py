"""Session 60: the cases of tests/test_s60_op_order.py run under torch and minitorch alike: the
same exception type and the same first line of its message (NOTE [ Shapes before dtypes ] in
minitorch/_ops/pointwise.py), and a differential sweep of binary ops over dtype pairs, shapes
that broadcast or not, and out= dtypes."""

from __future__ import annotations

import itertools

import pytest

import minitorch as mt
from tests.test_s60_op_order import CASES

torch_ref = pytest.importorskip("torch")


def _raised(lib, fn):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return type(e).__name__, str(e).splitlines()[0] if str(e) else ""
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_error_order_matches_torch(name):
    want = _raised(torch_ref, CASES[name])
    assert want is not None, name  # every case raises under torch
    assert _raised(mt, CASES[name]) == want


# ops whose refusals (a dtype without a kernel, a cast into out=) are compared where shapes
# broadcast and where they do not
_OPS = {
    "floor_divide": lambda T, a, b, **k: T.floor_divide(a, b, **k),
    "remainder": lambda T, a, b, **k: T.remainder(a, b, **k),
    "fmod": lambda T, a, b, **k: T.fmod(a, b, **k),
    "pow": lambda T, a, b, **k: T.pow(a, b, **k),
    "gcd": lambda T, a, b, **k: T.gcd(a, b, **k),
    "lcm": lambda T, a, b, **k: T.lcm(a, b, **k),
    "nextafter": lambda T, a, b, **k: T.nextafter(a, b, **k),
    "logaddexp": lambda T, a, b, **k: T.logaddexp(a, b, **k),
    "logaddexp2": lambda T, a, b, **k: T.logaddexp2(a, b, **k),
    "igamma": lambda T, a, b, **k: T.igamma(a, b, **k),
    "igammac": lambda T, a, b, **k: T.igammac(a, b, **k),
    "hypot": lambda T, a, b, **k: T.hypot(a, b, **k),
    "atan2": lambda T, a, b, **k: T.atan2(a, b, **k),
    "copysign": lambda T, a, b, **k: T.copysign(a, b, **k),
    "bitwise_and": lambda T, a, b, **k: T.bitwise_and(a, b, **k),
    "bitwise_left_shift": lambda T, a, b, **k: T.bitwise_left_shift(a, b, **k),
    "xlogy": lambda T, a, b, **k: T.xlogy(a, b, **k),
    "heaviside": lambda T, a, b, **k: T.heaviside(a, b, **k),
    "fmax": lambda T, a, b, **k: T.fmax(a, b, **k),
    "ldexp": lambda T, a, b, **k: T.ldexp(a, b, **k),
    "lerp": lambda T, a, b, **k: T.lerp(a, b, 0.5, **k),
    "add_alpha": lambda T, a, b, **k: T.add(a, b, alpha=1.5, **k),
    "sub_alpha": lambda T, a, b, **k: T.sub(a, b, alpha=2, **k),
}
_DTYPES = ("bool", "uint8", "int64", "float16", "float32")
_SHAPES = {"same": ((2,), (2,)), "mismatch": ((2,), (3,)), "2d": ((2, 3), (4,))}
_OUTS = (None, "bool", "int64", "float32")


def _sweep(lib, op, da, db, shapes, od):
    a = lib.ones(shapes[0], dtype=getattr(lib, da))
    b = lib.ones(shapes[1], dtype=getattr(lib, db))
    kwargs = {} if od is None else {"out": lib.empty(0, dtype=getattr(lib, od))}
    return _OPS[op](lib, a, b, **kwargs)


@pytest.mark.parametrize("op", list(_OPS))
def test_binary_sweep_matches_torch(op):
    wrong = []
    for da, db, shape, od in itertools.product(_DTYPES, _DTYPES, _SHAPES, _OUTS):
        args = (op, da, db, _SHAPES[shape], od)
        want = _raised(torch_ref, lambda T, args=args: _sweep(T, *args))
        got = _raised(mt, lambda T, args=args: _sweep(T, *args))
        if want is not None and "INTERNAL ASSERT FAILED" in want[1]:
            continue  # (torch 2.13's ldexp of float16 and an integer exponent into float32)
        if want != got and want is not None:
            wrong.append((da, db, shape, od, want, got))
    assert not wrong, wrong[:5]


_INPLACE = ("floor_divide_", "remainder_", "fmod_", "pow_", "gcd_", "lcm_", "ldexp_", "hypot_",
            "atan2_", "bitwise_and_", "xlogy_")  # fmt: skip


@pytest.mark.parametrize("op", _INPLACE)
def test_inplace_sweep_matches_torch(op):
    wrong = []
    for da, db, shape in itertools.product(_DTYPES, _DTYPES, _SHAPES):
        sa, sb = _SHAPES[shape]

        def call(T, da=da, db=db, sa=sa, sb=sb):
            return getattr(T.ones(sa, dtype=getattr(T, da)), op)(T.ones(sb, dtype=getattr(T, db)))

        want = _raised(torch_ref, call)
        got = _raised(mt, call)
        if want != got and want is not None:
            wrong.append((da, db, shape, want, got))
    assert not wrong, wrong[:5]
