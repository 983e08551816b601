"""A seeded slice of session 22's pointwise differential fuzzer: special values (nan, +-inf,
+-0, subnormals, huge) through unary and binary ops against torch, and first and second
derivatives at special points."""

import itertools
import math
import random
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

INF, NAN = math.inf, math.nan
VALUES = [NAN, INF, -INF, 0.0, -0.0, 5e-324, 1e-310, 1e308, -1e308, 0.5, -0.5, 1.0, -1.0, 2.0,
          -2.0, 3.7, -3.7, 100.0, 1e-8, 0.25, 20.0, -20.0]  # fmt: skip
UNARY = """abs neg sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan
sinh cosh tanh asinh acosh atanh sigmoid erf erfc trunc floor ceil round frac reciprocal square
deg2rad rad2deg""".split()
BINARY = """add sub mul div remainder fmod atan2 hypot copysign maximum minimum fmax fmin pow
float_power xlogy logaddexp""".split()


def _lib_tensor(lib, arr, dtype):
    t = (torch.from_numpy if lib is torch else mt.from_numpy)(arr.copy())
    return t.to(getattr(lib, dtype))


def _same(a, b, dtype):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    rtol = 1e-12 if dtype == "float64" else 5e-6
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-300, equal_nan=True)


def _run(lib, fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_and_binary_special_values(dtype):
    rng = random.Random(22)
    for _ in range(300):
        name = rng.choice(UNARY + BINARY)
        n = 1 + (name in BINARY)
        shapes = [rng.choice([(), (3,), (2, 3)]) for _ in range(n)]
        if n == 2 and rng.random() < 0.5:
            shapes[1] = ()  # a broadcast (0-d) operand
        arrs = [np.array([rng.choice(VALUES) for _ in range(int(np.prod(s)))]).reshape(s)
                for s in shapes]  # fmt: skip
        outs, dtypes = [], []
        for lib in (torch, mt):
            args = [_lib_tensor(lib, a, dtype) for a in arrs]
            out = _run(lib, getattr(lib, name), *args)
            outs.append(out.to(lib.float64).numpy())
            dtypes.append(str(out.dtype))
        assert dtypes[0] == dtypes[1], name
        _same(outs[0], outs[1], dtypes[0].split(".")[-1])


CASES = {
    "pow": lambda lib, a, b: lib.pow(a, b),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "acosh": lambda lib, a, b: lib.acosh(a) * b,
    "relu": lambda lib, a, b: lib.nn.functional.relu(a) * b,
    "clamp": lambda lib, a, b: lib.clamp(a, min=b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "sqrt": lambda lib, a, b: lib.sqrt(a) + b,
}
POINTS = [0.0, 1.0, -1.0, 0.5, 2.0, -2.0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_and_second_derivatives_at_special_points(name):
    fn = CASES[name]
    for va, vb in itertools.product(POINTS, POINTS):
        results = []
        for lib in (torch, mt):
            a = lib.tensor(va, dtype=lib.float64, requires_grad=True)
            b = lib.tensor(vb, dtype=lib.float64, requires_grad=True)
            out = _run(lib, fn, lib, a, b)
            g = lib.autograd.grad(out, (a, b), create_graph=True, allow_unused=True)
            row = [out.item()] + [0.0 if x is None else x.item() for x in g]
            live = [x for x in g if x is not None and x.requires_grad]
            if live:
                total = sum(x * w for x, w in zip(live, (1.0, 0.5), strict=False))
                g2 = lib.autograd.grad(total, (a, b), allow_unused=True)
                row += [0.0 if x is None else x.item() for x in g2]
            results.append(row)
        t, m = results
        if name == "pow" and va == 0.0:
            t, m = t[:3], m[:3]  # torch's second derivatives at a zero base are 0 * inf = nan
        _same(t, m[: len(t)], "float64")
