"""Seeded slice of the session-23 NumPy-interop fuzzer: NumPy ufuncs of a tensor and an ndarray
(or a NumPy scalar on the left of an operator) give torch's dtype and values.

torch's bool results come back as uint8 tensors (a documented difference: bool here).
"""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "float16"]
UFUNCS = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2",
          "bitwise_and", "bitwise_xor", "left_shift", "equal", "less", "greater_equal",
          "logical_and"]  # fmt: skip
OPERATORS = ["+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", ">="]
SCALARS = [np.int64, np.int32, np.int8, np.uint8, np.float32, np.float64]


def _values(rng, dtype, shape):
    v = rng.integers(1, 5, size=shape)
    return v % 2 == 0 if dtype == "bool" else v.astype(dtype)


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - both libraries' errors are compared by type
        return ("error", type(e).__name__)
    dt = str(r.dtype).replace("torch.", "")
    return ("tensor", dt, r.tolist())


def _same(t, m):
    if t[0] == "error" or m[0] == "error":
        return t == m
    same_dtype = t[1] == m[1] or (t[1], m[1]) == ("uint8", "bool")  # NumPy's bool, wrapped
    return same_dtype and np.allclose(np.asarray(t[2], float), np.asarray(m[2], float),
                                        rtol=1e-3, equal_nan=True)  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_ufunc_of_tensor_and_ndarray(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        d1, d2 = rng.choice(DTYPES), rng.choice(DTYPES)
        shape = [(3,), (2, 3), ()][rng.integers(0, 3)]
        tv = _values(rng, d1, shape)
        a = _values(rng, d2, shape if rng.random() < 0.6 else ())
        a = np.asarray(a, dtype=np.bool_ if d2 == "bool" else d2)
        uf = getattr(np, rng.choice(UFUNCS))
        left = rng.random() < 0.5

        def call(lib, tv=tv, d1=d1, a=a, uf=uf, left=left):
            t = lib.tensor(tv.tolist(), dtype=getattr(lib, d1))
            return uf(a, t) if left else uf(t, a)

        want, got = _outcome(torch, call), _outcome(mt, call)
        if want[0] == "error" and got[0] == "error":
            continue  # NumPy's TypeError against an op's own error: message level only
        assert _same(want, got), (uf.__name__, d1, d2, left, want, got)


@pytest.mark.parametrize("seed", range(4))
def test_numpy_scalar_left_operand(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(60):
        d1 = rng.choice(DTYPES)
        tv = _values(rng, d1, [(3,), ()][rng.integers(0, 2)])
        s = SCALARS[rng.integers(0, len(SCALARS))](int(rng.integers(1, 4)))
        op = OPERATORS[rng.integers(0, len(OPERATORS))]

        def call(lib, tv=tv, d1=d1, s=s, op=op):
            t = lib.tensor(tv.tolist(), dtype=getattr(lib, d1))
            return eval(f"s {op} t", {"s": s, "t": t})

        want, got = _outcome(torch, call), _outcome(mt, call)
        if want[0] == "error" or got[0] == "error":
            assert want[0] == got[0], (op, d1, type(s).__name__, want, got)
            continue
        assert _same(want, got), (op, d1, type(s).__name__, want, got)
