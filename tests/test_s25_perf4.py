"""Session 25, perf4: adaptive average pools' window sums read with the batch last in chunks (and
a 1-d pool's unsqueezed row left out). The results must keep their bits: each window summed on
its own, its taps in row-major order, then divided by each dim's window size (torch's kernel).
The references below compute exactly that in plain NumPy."""

import itertools

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _bounds(L, o):
    return [((i * L) // o, -((-(i + 1) * L) // o)) for i in range(o)]


def _ref_forward(x, out):
    """Each window's taps added one at a time in row-major order, then / each window size."""
    n = len(out)
    have = x.shape[x.ndim - n :]
    res = np.empty(x.shape[: x.ndim - n] + tuple(out), dtype=x.dtype)
    for idx in itertools.product(*[range(o) for o in out]):
        wins = [_bounds(L, o)[i] for L, o, i in zip(have, out, idx, strict=True)]
        acc = None
        for pos in itertools.product(*[range(lo, hi) for lo, hi in wins]):
            v = x[(..., *pos)]
            acc = v.copy() if acc is None else acc + v
        for lo, hi in wins:
            acc = acc / x.dtype.type(hi - lo)
        res[(..., *idx)] = acc
    return res


def _ref_backward(g, have):
    """Each position's gradient: the windows holding it, in row-major order, each adding the
    upstream gradient / each dim's window size."""
    n = len(have)
    out = g.shape[g.ndim - n :]
    res = np.zeros(g.shape[: g.ndim - n] + tuple(have), dtype=g.dtype)
    bounds = [_bounds(L, o) for L, o in zip(have, out, strict=True)]
    for pos in itertools.product(*[range(L) for L in have]):
        holding = [
            [i for i, (lo, hi) in enumerate(b) if lo <= p < hi]
            for b, p in zip(bounds, pos, strict=True)
        ]
        acc = None
        for idx in itertools.product(*holding):
            v = g[(..., *idx)]
            for b, i in zip(bounds, idx, strict=True):
                v = v / g.dtype.type(b[i][1] - b[i][0])
            acc = v if acc is None else acc + v
        res[(..., *pos)] = acc
    return res


_POOLS = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}

# (input shape, output size): batch-first reads (one row, many outputs) and batch-last reads,
# one chunk and several of unequal share (1100 rows of 256 -> 7: 3 chunks)
_CASES = [
    ((1, 1, 37), (5,)),
    ((1, 1, 1000), (341,)),
    ((64, 16, 20), (6,)),
    ((1100, 1, 256), (7,)),
    ((2, 3, 11, 9), (4, 5)),
    ((1, 1, 30, 30), (13, 13)),
    ((300, 2, 9, 10), (4, 3)),
    ((2, 2, 7, 6, 5), (3, 4, 2)),
]


@pytest.mark.parametrize("shape,out", _CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_avg_pool_bits_forward_backward(shape, out, dtype):
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    x = rng.standard_normal(shape).astype(dtype)
    n = len(out)
    t = minitorch.tensor(x, requires_grad=True)
    y = _POOLS[n](t, out if n > 1 else out[0])
    assert y.detach().numpy().tobytes() == _ref_forward(x, out).tobytes()
    g = rng.standard_normal(y.shape).astype(dtype)
    y.backward(minitorch.tensor(g))
    assert t.grad.numpy().tobytes() == _ref_backward(g, shape[-n:]).tobytes()


@pytest.mark.parametrize(
    "shape,out", [((70, 1, 50), (7,)), ((1, 1, 50), (7,)), ((80, 9, 9), (4, 4))]
)
def test_adaptive_avg_pool_inf_nan_stay_in_their_windows(shape, out):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[[5, 77 % x.size, 2000 % x.size]] = [np.inf, np.nan, -np.inf]
    n = len(out)
    y = _POOLS[n](minitorch.tensor(x), out if n > 1 else out[0]).numpy()
    ref = _ref_forward(x, out)
    assert y.tobytes() == ref.tobytes()
    assert np.isfinite(ref).sum() > ref.size // 2  # most windows hold no inf/nan


def test_adaptive_avg_pool_half_rounds_once():
    x = np.random.default_rng(4).standard_normal((90, 2, 23)).astype(np.float16)
    y = F.adaptive_avg_pool1d(minitorch.tensor(x), 6).numpy()
    ref = _ref_forward(x.astype(np.float32), (6,)).astype(np.float16)
    assert y.tobytes() == ref.tobytes()


@pytest.mark.parametrize(
    "shape,out",
    [((1, 1, 7), (3,)), ((3, 2, 7), (3,)), ((1, 1, 5, 4), (3, 3)), ((2, 3, 5, 4), (2, 3))],
)
def test_adaptive_avg_pool_gradcheck(shape, out):
    rng = np.random.default_rng(5)
    x = minitorch.tensor(rng.standard_normal(shape), dtype=minitorch.float64, requires_grad=True)
    n = len(out)

    def f(t):
        return _POOLS[n](t, out if n > 1 else out[0])

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
