"""Session 56, lead: minimum_number, maximum_number's twin (NOTE [ Maximum with a number ] in
minitorch/_backend/numpy_backend.py): clip(x, -inf, hi) gives np.minimum(hi, x)'s bits, and
runs for float32 arrays of 2048 elements or more. logsigmoid's min(x, 0) and its gradient's cap,
mish's max(z, 0) and binary cross-entropy's gradient denominator take the two functions on the
host and keep the bits of the NumPy calls they replace."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._backend import numpy_backend

MIN = numpy_backend._CLIP_MIN


def _values(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 40).astype(dtype)
    ints = np.int32 if dtype == np.float32 else np.int64
    nan = np.array([np.nan], dtype)
    nan.view(ints)[0] |= 5  # a payload
    special = np.array(
        [0.0, -0.0, nan[0], -nan[0], np.inf, -np.inf, 80.0, -80.0, 1e-45, -1e-45, 100.0, -100.0],
        dtype,
    )
    x[: min(n, special.size)] = special[: min(n, special.size)]
    return x


def _same(a, b):
    ints = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(
        np.ascontiguousarray(a).view(ints), np.ascontiguousarray(b).view(ints)
    )


@pytest.fixture
def clip_calls(monkeypatch):
    """The sizes of the arrays the backend's clip ufunc is called on, in order."""
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[0].size)
        return numpy_backend.NumpyBackend.clip_ufunc(*args, **kwargs)

    monkeypatch.setattr(numpy_backend, "_clip", spy)
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [7, MIN - 1, MIN, 3 * MIN + 5])
@pytest.mark.parametrize("hi", [0.0, -0.0, 80.0, -1.5])
def test_minimum_number_bits(dtype, n, hi):
    x = _values(dtype, n)
    hi = dtype(hi)
    want = np.minimum(hi, x)
    _same(numpy_backend.minimum_number(hi, x), want)
    out = np.empty_like(x)
    assert numpy_backend.minimum_number(hi, x, out=out) is out
    _same(out, want)
    y = x.copy()
    numpy_backend.minimum_number(hi, y, out=y)
    _same(y, want)
    # the clip ufunc itself, at every size: what the function relies on for float32
    _same(numpy_backend._clip(x, dtype(-np.inf), hi), want)


def test_which_kernel_runs(clip_calls):
    calls = clip_calls
    for n, dtype in ((MIN, np.float32), (MIN - 1, np.float32), (MIN, np.float64)):
        numpy_backend.minimum_number(0.0, _values(dtype, n))
    assert calls == [MIN]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [100, 3 * MIN])
def test_logsigmoid_bits(dtype, n):
    x = _values(getattr(np, dtype), n, seed=1)
    t = torch.tensor(x, requires_grad=True)
    y = F.logsigmoid(t)
    # forward: clip(y, -inf, 0) - log1p(exp(-|y|)), the old formula with minimum's bits
    e = np.exp(-np.abs(x))
    want = np.clip(x, -np.inf, 0) - numpy_backend.log1p(e)
    _same(y.detach().numpy(), want)
    g = np.random.default_rng(2).standard_normal(n).astype(dtype)
    y.backward(torch.tensor(g))
    cap = np.exp(np.minimum(-x, 80.0))  # the old gradient: minimum's bits
    _same(t.grad.numpy(), g * (cap / (cap + 1)))


@pytest.mark.parametrize("n", [100, 3 * MIN])
def test_mish_and_bce_bits(n):
    x = _values(np.float32, n, seed=3)
    z = np.abs(x)
    sp = numpy_backend.log1p(np.exp(-z)) + np.clip(x, 0, np.inf)
    with np.errstate(invalid="ignore"):  # (inf * NaN)
        want = x * np.tanh(sp)
    _same(F.mish(torch.tensor(x)).numpy(), want)
    p = np.random.default_rng(4).uniform(0, 1, n).astype(np.float32)
    p[:4] = [0.0, 1.0, 1e-7, 1 - 1e-7]
    tgt = (np.random.default_rng(5).random(n) > 0.5).astype(np.float32)
    tp = torch.tensor(p, requires_grad=True)
    F.binary_cross_entropy(tp, torch.tensor(tgt), reduction="sum").backward()
    den = np.maximum((np.float32(1) - p) * p, np.float32(1e-12))
    with np.errstate(divide="ignore", invalid="ignore"):
        _same(tp.grad.numpy(), (p - tgt) / den)


def test_the_ops_take_clip(clip_calls):
    calls = clip_calls
    n = 3 * MIN
    x = torch.tensor(_values(np.float32, n), requires_grad=True)
    F.logsigmoid(x).backward(torch.ones(n))  # (a row-major gradient: the data-level backward)
    assert calls == [n, n]  # min(x, 0) forward, the cap backward
    calls.clear()
    with torch.no_grad():
        F.mish(x)
    assert calls == [n]
    calls.clear()
    p = torch.full((n,), 0.3, requires_grad=True)
    F.binary_cross_entropy(p, torch.zeros(n)).backward()
    assert calls == [n]
    calls.clear()
    F.logsigmoid(torch.tensor(_values(np.float64, n), requires_grad=True)).backward(
        torch.ones(n, dtype=torch.float64)
    )
    assert calls == []  # float64 keeps minimum
