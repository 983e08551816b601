"""Session 25, perf6: adaptive max pools over windows that do not tile (the arg-max kernel
taken batch-last with the tap kept by arithmetic): bit-equal to a plain NumPy loop over the
windows, torch's tie and NaN rules, gradients."""

import math

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import functional as F
from minitorch.nn._functional_pool import _adaptive_argmax


def _windows(L, o):
    return [((i * L) // o, -((-(i + 1) * L) // o)) for i in range(o)]


def _reference_argmax(a, have, out):
    """Each window's flat position (over the last n dims) in row-major order: a NaN replaces
    the running max, a value replaces it when strictly greater."""
    n = len(have)
    lead = a.shape[: a.ndim - n]
    flat = a.reshape((-1, *have))
    res = np.zeros((flat.shape[0], math.prod(out)), dtype=np.int64)
    wins = [_windows(L, o) for L, o in zip(have, out, strict=True)]
    for b in range(flat.shape[0]):
        for r, idx in enumerate(np.ndindex(*out)):
            ranges = [range(*wins[d][i]) for d, i in enumerate(idx)]
            best, where = None, None
            for p in np.ndindex(*[len(rg) for rg in ranges]):
                q = tuple(rg[k] for rg, k in zip(ranges, p, strict=True))
                v = flat[(b, *q)]
                if best is None or v != v or v > best:
                    best, where = v, int(np.ravel_multi_index(q, have))
            res[b, r] = where
    return res.reshape((*lead, *out))


CASES = [
    ((3, 4, 13, 13), (5, 5)),
    ((2, 3, 13, 11), (5, 7)),
    ((2, 3, 7, 6, 9), (3, 4, 5)),
    ((4, 5, 1, 37), (1, 10)),
    ((1, 23, 2), (7, 2)),
    ((3, 600), (2,)),  # windows of 300 taps: the int64 tap
]


@pytest.mark.parametrize("shape,out", CASES)
@pytest.mark.parametrize("kind", ["randn", "ties", "nan", "many_nan", "signed_zero", "int"])
def test_adaptive_argmax_matches_loop(shape, out, kind):
    rs = np.random.RandomState(len(shape) * 100 + out[-1])
    x = rs.randn(*shape)
    if kind == "ties":
        x = np.round(x)
    elif kind == "nan":
        x[rs.rand(*shape) < 0.1] = np.nan
    elif kind == "many_nan":
        x[rs.rand(*shape) < 0.6] = np.nan
    elif kind == "signed_zero":
        x = np.where(rs.rand(*shape) < 0.5, -0.0, 0.0)
    elif kind == "int":
        x = np.round(x * 2).astype(np.int64)
    if kind != "int":
        x = x.astype(np.float32)
    have = shape[len(shape) - len(out) :]
    got = _adaptive_argmax(np, x, have, out)
    assert got.dtype == np.int64 and got.shape == (*shape[: len(shape) - len(out)], *out)
    np.testing.assert_array_equal(got, _reference_argmax(x, have, out))


def test_adaptive_max_pool2d_values_indices_nan_and_ties():
    # torch 2.13: a NaN wins its window (the last NaN), a tie keeps the first position
    x = minitorch.tensor([[[1.0, 3.0, 3.0, 2.0, 0.0], [float("nan"), 1.0, 5.0, 5.0, float("nan")]]])
    v, i = F.adaptive_max_pool2d(x, (1, 3), return_indices=True)
    assert i.tolist() == [[[5, 7, 9]]]
    assert str(v.tolist()) == "[[[nan, 5.0, nan]]]"
    v, i = F.adaptive_max_pool1d(x, 2, return_indices=True)
    assert i.tolist() == [[[1, 2], [0, 4]]]
    assert str(v.tolist()) == "[[[3.0, 3.0], [nan, nan]]]"


@pytest.mark.parametrize(
    "fn,shape,out",
    [
        (F.adaptive_max_pool1d, (2, 3, 7), 3),
        (F.adaptive_max_pool2d, (2, 2, 5, 7), (3, 4)),
        (F.adaptive_max_pool3d, (1, 2, 5, 4, 3), (2, 3, 2)),
    ],
)
def test_adaptive_max_pool_gradients(fn, shape, out):
    minitorch.manual_seed(0)
    x = minitorch.randn(*shape, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: fn(t, out), (x,))
    assert gradgradcheck(lambda t: fn(t, out), (x,))
    v, i = fn(x, out, return_indices=True)
    n = len(shape) - 2
    flat = x.detach().numpy().reshape(shape[0], shape[1], -1)
    want = np.take_along_axis(flat, i.numpy().reshape(shape[0], shape[1], -1), axis=-1)
    np.testing.assert_array_equal(v.detach().numpy().reshape(want.shape), want)
    ref = _reference_argmax(x.detach().numpy(), shape[2:], tuple(i.shape[-n:]))
    np.testing.assert_array_equal(i.numpy(), ref)


def test_adaptive_max_pool_bfloat16_nan_wins():
    # torch 2.13: a NaN wins its window in bfloat16 too (it was skipped: bfloat16 arrays are
    # of NumPy kind "V", read as not floating)
    x = minitorch.tensor(
        [[[0.5, float("nan"), 2.0, 1.0, 3.0]]], dtype=minitorch.bfloat16, requires_grad=True
    )
    v, i = F.adaptive_max_pool1d(x, 3, return_indices=True)
    v.sum().backward()
    assert i.tolist() == [[[1, 1, 4]]]
    assert str(v.tolist()) == "[[[nan, nan, 3.0]]]"
    assert x.grad.tolist() == [[[0.0, 2.0, 0.0, 0.0, 1.0]]]
    v, i = F.adaptive_max_pool2d(x, (1, 2), return_indices=True)
    assert i.tolist() == [[[1, 4]]]
    assert str(v.tolist()) == "[[[nan, 3.0]]]"


def _reference_window_max(x, starts, k):
    """Plain loop: each window's first max in row-major order, or its last NaN."""
    N, C = x.shape[:2]
    have = x.shape[2:]
    out = tuple(s.shape[-1] for s in starts)
    idx = np.zeros((N, C, *out), dtype=np.int64)
    for b in range(N):
        for c in range(C):
            for o in np.ndindex(*out):
                best, where = None, None
                for j in np.ndindex(*k):
                    q = tuple(int(starts[d][b, c, o[d]]) + j[d] for d in range(len(k)))
                    v = x[(b, c, *q)]
                    if best is None or v != v or v > best:
                        best, where = v, int(np.ravel_multi_index(q, have))
                idx[(b, c, *o)] = where
    return idx


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("kind", ["randn", "ties", "nan", "signed_zero"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fractional_window_max_matches_loop(n, kind, dtype):
    from minitorch.nn._functional_fractional_pool import _window_max

    rs = np.random.RandomState(n * 10 + len(kind))
    k = (2, 3) if n == 2 else (2, 1, 3)
    have = (9, 8) if n == 2 else (6, 5, 7)
    out = (4, 3) if n == 2 else (3, 4, 2)
    x = rs.randn(2, 3, *have)
    if kind == "ties":
        x = np.round(x)
    elif kind == "nan":
        x[rs.rand(*x.shape) < 0.2] = np.nan
    elif kind == "signed_zero":
        x = np.where(rs.rand(*x.shape) < 0.5, -0.0, 0.0)
    starts = [
        np.sort(rs.randint(0, have[d] - k[d] + 1, size=(2, 3, out[d])), axis=-1) for d in range(n)
    ]
    xt = minitorch.tensor(x).to(getattr(minitorch, dtype))
    values, indices = _window_max(xt, [minitorch.tensor(s) for s in starts], k)
    xr = xt.float().numpy()
    want = _reference_window_max(xr, starts, k)
    np.testing.assert_array_equal(indices.numpy(), want)
    flat = xr.reshape(2, 3, -1)
    np.testing.assert_array_equal(
        values.float().numpy(),
        np.take_along_axis(flat, want.reshape(2, 3, -1), -1).reshape(want.shape),
    )


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_gradients(n):
    minitorch.manual_seed(0)
    shape = (2, 2, 7, 6) if n == 2 else (1, 2, 6, 5, 6)
    x = minitorch.randn(*shape, dtype=minitorch.float64, requires_grad=True)
    samples = minitorch.rand(shape[0], 2, n, dtype=minitorch.float64)
    fn = getattr(F, f"fractional_max_pool{n}d")
    out = (3,) * n

    def f(t):
        return fn(t, 2, output_size=out, _random_samples=samples)

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
