"""Session 55, lead: relu of host float32/float64 arrays by NumPy's clip ufunc (NOTE [ Maximum with
a number ] in minitorch/_backend/numpy_backend.py). clip(x, 0, inf) must give maximum(0, x)'s
bits for every value (-0. stays -0., a NaN passes with its sign and payload, denormals, infs)
and every layout, on each way relu runs: no-grad and recorded fast paths, Function.apply, the
in-place fast and general paths, nn.ReLU; the gradient is unchanged."""

import contextlib

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._backend import numpy_backend
from tests._fastpath import full_path

INTS = {np.float32: np.int32, np.float64: np.int64}


def _values(dtype, shape, seed=0):
    """Normal values with every special float scattered in (both signs of zero, of NaN with a
    payload, of inf and of the smallest denormal)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    ints = INTS[dtype]
    tiny = np.finfo(dtype).smallest_subnormal
    nan = np.array([np.nan], dtype)
    nan.view(ints)[0] |= 5  # a payload
    special = np.array([-0.0, 0.0, nan[0], -nan[0], np.inf, -np.inf, tiny, -tiny], dtype)
    flat = x.reshape(-1)
    at = rng.choice(flat.size, min(flat.size, 4 * special.size), replace=False)
    flat[at] = np.resize(special, at.size)
    return x


def _bits(a, dtype):
    return np.ascontiguousarray(a).view(INTS[dtype])


def _expected(x):
    return np.maximum(np.zeros((), x.dtype), x)


SHAPES = [(8,), (16, 32), (300, 517), (4, 3, 33, 35)]


@pytest.mark.parametrize("lo", [0.0, -0.0], ids=["zero", "minus_zero"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_clip_gives_maximums_bits(lo, shape):
    """The NOTE's claim: float32 clip(x, lo, inf) is maximum(lo, x) bit for bit at every size
    (NumPy's vector body and scalar tail alike), out of place and into `out`; and
    maximum_number gives those bits whichever of the two it takes."""
    dtype = np.float32
    x = _values(dtype, shape)
    lo = dtype(lo)
    want = _bits(np.maximum(lo, x), dtype)
    inf = dtype(np.inf)
    got = numpy_backend._clip(x, lo, inf)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(_bits(got, dtype), want)
    out = x.copy()
    assert numpy_backend._clip(out, lo, inf, out=out) is out
    np.testing.assert_array_equal(_bits(out, dtype), want)
    np.testing.assert_array_equal(_bits(numpy_backend.maximum_number(lo, x), dtype), want)
    out = x.copy()
    assert numpy_backend.maximum_number(lo, out, out) is out
    np.testing.assert_array_equal(_bits(out, dtype), want)


def _inputs(dtype, requires_grad):
    """relu's input in several layouts (minitorch views of one tensor): contiguous, transposed,
    stepped, expanded."""
    base = torch.from_numpy(_values(dtype, (96, 130), seed=1))
    row = torch.from_numpy(_values(dtype, (1, 130), seed=2))
    if requires_grad:
        base.requires_grad_()
        row.requires_grad_()
    yield "contiguous", base
    yield "transposed", base.t()
    yield "stepped", base[::2, 1::3]
    yield "expanded", row.expand(96, 130)


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
@pytest.mark.parametrize("grad", [False, True], ids=["nograd", "recorded"])
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "full"])
def test_relu_bits_and_layout_every_path(dtype, grad, fast):
    for name, t in _inputs(dtype, grad):
        with contextlib.nullcontext() if fast else full_path():
            y = torch.relu(t)
        x = t.detach().numpy()
        want = _expected(x)
        np.testing.assert_array_equal(_bits(y.detach().numpy(), dtype), _bits(want, dtype), name)
        strides = y.detach().numpy().strides
        if name != "expanded":  # (laid out as x; an expanded x's result is dense, row-major)
            assert strides == want.strides, name
        else:
            assert y.is_contiguous(), name
        assert y.grad_fn is None if not grad else type(y.grad_fn).__name__ == "ReluBackward0"


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
@pytest.mark.parametrize("how", ["F.relu", "nn.ReLU", "Tensor.relu", "F.relu inplace"])
def test_relu_entry_points(dtype, how):
    x = _values(dtype, (64, 70), seed=3)
    t = torch.from_numpy(x.copy())
    if how == "F.relu":
        y = F.relu(t)
    elif how == "nn.ReLU":
        y = torch.nn.ReLU()(t)
    elif how == "Tensor.relu":
        y = t.relu()
    else:
        y = F.relu(t, inplace=True)
        assert y is t and t._version == 1
    np.testing.assert_array_equal(_bits(y.numpy(), dtype), _bits(_expected(x), dtype))


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "full"])
def test_relu_in_place(dtype, fast):
    """relu_ without a graph (fast_unary_'s kernel) and on a non-leaf with one (the general
    path, recording ReluBackward0): maximum's bits, the version bumped once."""
    x = _values(dtype, (64, 70), seed=4)
    t = torch.from_numpy(x.copy())
    with contextlib.nullcontext() if fast else full_path():
        assert t.relu_() is t
    assert t._version == 1
    np.testing.assert_array_equal(_bits(t.numpy(), dtype), _bits(_expected(x), dtype))
    leaf = torch.from_numpy(x.copy()).requires_grad_()
    mid = leaf * 1
    with contextlib.nullcontext() if fast else full_path():
        mid.relu_()
    assert type(mid.grad_fn).__name__ == "ReluBackward0"
    np.testing.assert_array_equal(_bits(mid.detach().numpy(), dtype), _bits(_expected(x), dtype))


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
def test_relu_gradient_unchanged(dtype):
    """The backward still passes the gradient where the result is not zero (NaN included) and
    gives +0. elsewhere; gradcheck and gradgradcheck in float64."""
    x = _values(dtype, (40, 50), seed=5)
    t = torch.from_numpy(x.copy()).requires_grad_()
    g = np.random.default_rng(6).standard_normal(x.shape).astype(dtype)
    torch.relu(t).backward(torch.from_numpy(g))
    y = _expected(x)
    want = np.where(y != 0, g, np.zeros((), dtype))
    np.testing.assert_array_equal(_bits(t.grad.numpy(), dtype), _bits(want, dtype))
    if dtype is np.float64:
        a = torch.randn(6, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        a = (a + 0.1 * a.sign()).requires_grad_()  # away from the kink
        assert torch.autograd.gradcheck(torch.relu, (a,))
        assert torch.autograd.gradgradcheck(torch.relu, (a,))


def test_other_dtypes_keep_maximum():
    """Integer tensors (and float16) do not go through clip: relu of int32 and float16 values."""
    i = torch.tensor([-3, 0, 5], dtype=torch.int32)
    assert torch.relu(i).tolist() == [0, 0, 5] and torch.relu(i).dtype == torch.int32
    h = torch.tensor([-0.0, -1.0, 2.0], dtype=torch.float16)
    r = torch.relu(h)
    assert r.dtype == torch.float16 and r.tolist() == [0.0, 0.0, 2.0]
    assert np.signbit(r.numpy()[0])


@pytest.mark.parametrize(
    "dtype, shape, clipped",
    [
        (np.float32, (64, 32), True),  # 2048 elements: clip
        (np.float32, (2047,), False),
        (np.float64, (256, 512), False),  # float64: maximum is faster
    ],
    ids=str,
)
@pytest.mark.parametrize("grad", [False, True], ids=["nograd", "recorded"])
def test_which_kernel(monkeypatch, dtype, shape, clipped, grad):
    """Float32 arrays of 2048 elements or more go through the clip ufunc, out of place and in
    place; smaller ones and float64 through maximum."""
    clip = numpy_backend._clip
    calls = []

    def spy(a, lo, hi, out=None):
        calls.append(a.shape)
        return clip(a, lo, hi, out=out)

    monkeypatch.setattr(numpy_backend, "_clip", spy)
    x = _values(dtype, shape, seed=10)
    t = torch.from_numpy(x.copy()).requires_grad_(grad)
    y = torch.relu(t)
    with torch.no_grad():
        torch.from_numpy(x.copy()).relu_()
    assert calls == ([shape, shape] if clipped else [])
    np.testing.assert_array_equal(_bits(y.detach().numpy(), dtype), _bits(_expected(x), dtype))


@pytest.mark.parametrize("shape, clipped", [((5,), False), ((300, 517), True)], ids=str)
def test_gelu32_relu_part_by_clip(monkeypatch, shape, clipped):
    """The float32 GELU kernel's relu part, maximum(-0., x), goes through the clip ufunc on the
    host for a block of 2048 elements or more (the last, shorter one of (300, 517) included):
    the forward and the derivative it keeps are the bits the maximum gives."""
    x = _values(np.float32, shape, seed=11) * np.float32(4)

    def run():
        t = torch.from_numpy(x.copy()).requires_grad_()
        y = F.gelu(t)
        y.backward(torch.ones_like(y))
        return _bits(y.detach().numpy(), np.float32), _bits(t.grad.numpy(), np.float32)

    clip = numpy_backend._clip
    calls = []

    def spy(a, lo, hi, out=None):
        calls.append((a.size, lo))
        return clip(a, lo, hi, out=out)

    monkeypatch.setattr(numpy_backend, "_clip", spy)
    got = run()
    if clipped:  # four blocks (three of 49152, 7644 left), once: the forward keeps the derivative
        assert [n for n, _ in calls] == [49152, 49152, 49152, 7644]
        assert all(np.signbit(lo) and lo == 0 for _, lo in calls)
    else:
        assert calls == []

    def by_maximum(a, lo, hi, out=None):
        return np.maximum(lo, a, out=out)

    monkeypatch.setattr(numpy_backend, "_clip", by_maximum)
    want = run()
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
