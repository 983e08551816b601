"""Scatter and gather through one flat index on NumPy (NOTE [ Flat scatter keys ]): the same bits
as ufunc.at / fancy indexing with the key as it is, the ops on the fast path, their gradients."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import numpy_backend
from minitorch._backend.numpy_backend import NumpyBackend
from minitorch._ops import indexing
from minitorch.autograd import gradcheck, gradgradcheck

BACKEND = NumpyBackend()
DTYPES = ("float16", "float32", "float64", "int64", "int32", "uint8")


def _random_key(rng, shape):
    """A key of index arrays (some negative, some int32) and full slices, as the ops build."""
    nk = int(rng.integers(1, len(shape) + 1))
    is_array = [bool(rng.random() < 0.6) for _ in range(nk)]
    if not any(is_array):
        is_array[int(rng.integers(nk))] = True
    b_shape = tuple(int(rng.integers(1, 30)) for _ in range(int(rng.integers(0, 4))))
    key = []
    for d, arr in enumerate(is_array):
        if not arr:
            key.append(slice(None))
            continue
        cut = len(b_shape) - int(rng.integers(0, len(b_shape) + 1))
        sub = tuple(s if rng.random() < 0.7 else 1 for s in b_shape[cut:])
        n = shape[d]
        a = rng.integers(-n if rng.random() < 0.4 else 0, n, sub)
        key.append(a.astype(np.int32) if rng.random() < 0.2 else a)
    return tuple(key) if len(key) > 1 or rng.random() < 0.5 else key[0]


def _cases(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        shape = tuple(int(rng.integers(1, 9)) * (4 if rng.random() < 0.4 else 1)
                      for _ in range(int(rng.integers(1, 5))))  # fmt: skip
        key = _random_key(rng, shape)
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        target = (rng.standard_normal(shape) * 10).astype(dtype)
        out_shape = target[key].shape
        vshape = out_shape[int(rng.integers(0, len(out_shape) + 1)) :] if out_shape else ()
        values = (rng.standard_normal(vshape) * 100).astype(dtype)
        if values.ndim >= 2 and rng.random() < 0.4:  # non-contiguous values
            values = np.ascontiguousarray(values.swapaxes(0, 1)).swapaxes(0, 1)
        yield target, key, values, out_shape


def _bits(a):
    return np.ascontiguousarray(np.atleast_1d(a)).view(np.uint8)


def test_ufunc_at_same_bits_as_numpy_ufunc_at():
    flat = 0
    for target, key, values, out_shape in _cases(0, 600):
        flat += numpy_backend._flat_key(target, key) is not None
        full = np.broadcast_to(values, out_shape).copy()  # (see the next test for why a copy)
        for ufunc in (np.add, np.maximum, np.minimum, np.multiply):
            expected, got = target.copy(), target.copy()
            with np.errstate(all="ignore"):
                ufunc.at(expected, key, full)
                BACKEND.ufunc_at(ufunc, got, key, values)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(_bits(got), _bits(expected), err_msg=f"{ufunc} {key}")
    assert flat > 50  # the flat index was taken, not only the fallback


def test_scatter_add_repeated_float32_sums_same_bits():
    # the order of accumulation is the old one: float32 sums of many duplicates, bit for bit
    rng = np.random.default_rng(1)
    for _ in range(10):
        index = rng.integers(-200, 200, (300, 150))
        values = (rng.standard_normal((150, 300)).astype(np.float32) * 1e3).T  # non-contiguous
        key = (np.arange(300)[:, None], index)
        assert numpy_backend._flat_key(np.zeros((300, 200), np.float32), key) is not None
        expected = np.zeros((300, 200), np.float32)
        np.add.at(expected, key, np.ascontiguousarray(values))
        got = np.zeros((300, 200), np.float32)
        BACKEND.scatter_add(got, key, values)
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
        half = np.zeros((300, 200), np.float16)
        expected = half.copy()
        np.add.at(expected, (slice(None), index[0]), values[:, :150].astype(np.float16))
        BACKEND.scatter_add(half, (slice(None), index[0]), values[:, :150].astype(np.float16))
        np.testing.assert_array_equal(half.view(np.uint16), expected.view(np.uint16))


def test_take_at_same_bits_as_indexing():
    for target, key, _, _ in _cases(2, 400):
        expected = target[key]
        got = BACKEND.take_at(target, key)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_array_equal(_bits(got), _bits(expected), err_msg=str(key))


def test_out_of_range_and_small_keys_keep_numpy_behaviour():
    x = np.zeros((100, 100))
    for key in (
        (np.arange(100)[:, None], np.full((100, 100), 100)),
        (np.full((100, 100), -101), slice(None)),
    ):
        with pytest.raises(IndexError, match="out of bounds"):
            BACKEND.scatter_add(x, key, 1.0)
        with pytest.raises(IndexError, match="out of bounds"):
            BACKEND.take_at(x, key)
    assert not x.any()
    y = np.zeros(())
    BACKEND.scatter_add(y, (), 1.5)
    assert y == 1.5
    z = np.zeros((3, 4))
    BACKEND.ufunc_at(np.maximum, z, (np.zeros(0, np.int64),), np.zeros((0, 4)))
    assert not z.any()


def test_index_put_accumulate_broadcast_values_over_a_multi_dim_index():
    # NumPy 2.4's np.add.at on a 1-d array, with a 2-d index and values broadcast along its
    # dims, read garbage ([1, 2, 3] and NaN here); torch: [7, 2, 3] and [20, 0, 0, 0]
    x = torch.zeros(3)
    index = torch.tensor([[0, 1, 2], [0, 0, 0]])
    out = x.index_put((index,), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert out.tolist() == [7.0, 2.0, 3.0]
    y = torch.zeros(4).index_put(
        (torch.zeros((4, 5), dtype=torch.int64),), torch.ones(5), accumulate=True
    )
    assert y.tolist() == [20.0, 0.0, 0.0, 0.0]


@pytest.fixture
def spy(monkeypatch):
    """Records (method, target ndim, whether the key went flat) of the NumPy backend's calls."""
    calls = []

    def wrap(name):
        original = getattr(NumpyBackend, name)

        def method(self, *args):
            array, key = (args[1], args[2]) if name == "ufunc_at" else (args[0], args[1])
            calls.append((name, array.ndim, numpy_backend._flat_key(array, key) is not None))
            return original(self, *args)

        monkeypatch.setattr(NumpyBackend, name, method)

    for name in ("ufunc_at", "take_at"):
        wrap(name)
    return calls


def test_ops_take_the_flat_index(spy):
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((64, 64)).astype(np.float32)
    index = rng.integers(0, 64, (64, 64))
    x = torch.from_numpy(xs).requires_grad_()
    for reduce in ("amax", "prod"):
        out = torch.scatter_reduce(x, 1, torch.from_numpy(index), x, reduce)
        expected = xs.copy()
        ufunc = np.maximum if reduce == "amax" else np.multiply
        ufunc.at(expected, (np.arange(64)[:, None], index), xs)
        np.testing.assert_array_equal(out.detach().numpy(), expected, err_msg=reduce)
    assert ("ufunc_at", 2, True) in spy
    del spy[:]
    g = torch.gather(x, 1, torch.from_numpy(index))
    np.testing.assert_array_equal(g.detach().numpy(), np.take_along_axis(xs, index, 1))
    assert spy == [("take_at", 2, True)]
    # take addresses x.flatten() directly: its gradient scatters into a 1-d view
    flat_index = rng.integers(-4096, 4096, (50, 40))
    t = torch.take(x, torch.from_numpy(flat_index))
    np.testing.assert_array_equal(t.detach().numpy(), xs.reshape(-1)[flat_index])
    del spy[:]
    (grad,) = torch.autograd.grad(t.sum(), x)
    assert spy == [("ufunc_at", 1, True)]
    expected = np.zeros(4096, np.float32)
    np.add.at(expected, flat_index.reshape(-1), 1.0)
    np.testing.assert_array_equal(grad.numpy(), expected.reshape(64, 64))


def test_gradients_through_the_flat_index(monkeypatch):
    monkeypatch.setattr(numpy_backend, "_FLAT_MIN", 0)  # small shapes take it too
    monkeypatch.setattr(indexing, "_FLAT_GATHER_MIN", 0)
    rng = np.random.default_rng(4)

    def t(*shape):
        return torch.from_numpy(rng.uniform(0.5, 2.0, shape)).requires_grad_()

    x, src = t(3, 4), t(3, 5)
    index = torch.from_numpy(rng.integers(0, 4, (3, 5)))
    rows = torch.tensor([2, 0, 2, 1])
    flat = torch.tensor([[0, -1, 5], [11, 5, 3]])
    cases = {
        "scatter_add": (lambda a, b: torch.scatter_add(a, 1, index, b), (x, src)),
        "gather": (lambda a: torch.gather(a, 1, index[:, :3]), (x,)),
        "take": (lambda a: torch.take(a, flat), (x,)),
        "put": (lambda a, b: torch.put(a, flat, b, accumulate=True), (x, src[:2, :3])),
        "index_add": (lambda a, b: torch.index_add(a, 1, rows, b), (x, t(3, 4))),
        "x[i, j]": (lambda a: a[rows[:3], index[0, :3]], (x,)),
        "x[:, i]": (lambda a: a[:, rows], (x,)),
    }
    for reduce in ("sum", "mean", "amax", "prod"):
        cases[reduce] = (
            lambda a, b, r=reduce: torch.scatter_reduce(a, 1, index, b, r, include_self=False),
            (x, src),
        )
    for name, (fn, inputs) in cases.items():
        assert gradcheck(fn, inputs), name
        assert gradgradcheck(fn, inputs), name


def test_row_gathers_take_rows_with_the_same_values(monkeypatch):
    # x[idx], index_select(x, 0, idx) and embedding on a matrix go to the backend's take_at,
    # whose NumPy version takes rows along axis 0 (negative indices wrap, as indexing)
    calls = []
    real = numpy_backend.NumpyBackend.take_at

    def counted(self, array, index):
        calls.append(1)
        return real(self, array, index)

    monkeypatch.setattr(numpy_backend.NumpyBackend, "take_at", counted)
    rng = np.random.default_rng(7)
    base = rng.standard_normal((6, 9)).astype(np.float32)
    for x_np in (base, base.T.copy().T, base[:, ::2]):
        x = torch.from_numpy(x_np)
        idx = np.array([[-1, 0, 5], [2, 2, -6]])
        np.testing.assert_array_equal(x[torch.from_numpy(idx)].numpy(), x_np[idx])
        rows = np.array([3, 0, 3, 5])
        got = torch.index_select(x, 0, torch.from_numpy(rows)).numpy()
        np.testing.assert_array_equal(got, x_np[rows])
        emb = torch.nn.functional.embedding(torch.from_numpy(idx % 6), x).numpy()
        np.testing.assert_array_equal(emb, x_np[idx % 6])
    assert len(calls) == 9
    with pytest.raises(IndexError, match="index 6 is out of bounds for dimension 0 with size 6"):
        torch.from_numpy(base)[torch.tensor([6])]
