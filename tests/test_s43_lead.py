"""Session 43 (lead): relu's kernel against a zero scalar, not an array of zeros."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops.pointwise import Relu

SPECIAL = [-0.0, 0.0, -1.5, 2.5, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3.0, -7.0]
INTS = ["int8", "uint8", "int32", "int64"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def _array(dtype):
    """64 values of dtype (the backend's array): random ones and the special values."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(53) * 4, SPECIAL])
    if dtype in INTS:
        x = np.nan_to_num(x, nan=0.0, posinf=5.0, neginf=-5.0)
        if dtype == "uint8":
            x = np.abs(x)
    return torch.tensor(x).to(getattr(torch, dtype))._data


def _layouts(a):
    """a (64,) array in several layouts: row-major, transposed, sliced, expanded, reversed."""
    m = a.reshape(8, 8)
    return [m, m.T, m[::2, 1::3], np.broadcast_to(a[:8], (4, 8)), a[::-3]]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_relu_kernel_matches_the_zeros_formula(dtype):
    for arr in _layouts(_array(dtype)):
        new = Relu.kernel(np, arr)
        old = np.maximum(np.zeros_like(arr), arr)  # the kernel before session 43
        assert new.dtype == arr.dtype and new.shape == arr.shape
        assert new.tobytes() == old.tobytes()  # bits: -0. stays -0., NaN passes


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_and_relu_bits_and_layouts(dtype):
    x = torch.tensor(SPECIAL * 6, dtype=getattr(torch, dtype)).reshape(6, 11)
    for v in (x, x.t(), x[:, ::2], x[:1].expand(4, 11)):
        ref = np.maximum(np.zeros_like(v.numpy()), v.numpy())
        for out in (torch.relu(v), v.clone().relu_()):
            got = out.numpy()
            assert np.array_equal(np.signbit(got), np.signbit(ref))
            assert np.array_equal(np.isnan(got), np.isnan(ref))
            assert np.array_equal(np.nan_to_num(got), np.nan_to_num(ref))
        assert torch.relu(v).stride() == v.clone().stride()  # laid out as the input, as torch


def test_relu_gradient_masks_to_positive_zero():
    x = torch.tensor([[-0.0, 0.0, -1.0, 2.0], [np.nan, 3.0, -2.0, 0.5]], requires_grad=True)
    torch.relu(x).backward(torch.full((2, 4), -3.0))
    g = x.grad.numpy()
    assert g.tolist()[0] == [0.0, 0.0, 0.0, -3.0]
    assert g[1, 0] == -3.0 and g[1, 2] == 0.0  # a NaN input passes its gradient, as torch
    assert not np.signbit(g[0, :3]).any() and not np.signbit(g[1, 2])


# --- NOTE [ Blocked transposing copies ] (minitorch/_memory_format.py) ---

from minitorch import _memory_format  # noqa: E402


def _sources():
    """Big arrays whose last axis steps farther than another (the slab path), and others."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal((4, 96, 130))
    yield "t", a.T, True
    yield "t flipped", a[::-1].T, True
    yield "t of a slice", a[:, 3:190].T, True
    yield "batched swap", b.swapaxes(1, 2), True
    yield "3-d permute", b.transpose(2, 0, 1), True
    yield "int8 t", (a * 10).astype(np.int8).T, True
    yield "bool t", (a > 0).T, True
    yield "complex t", (a + 1j * a).astype(np.complex64).T, True
    yield "float16 t", a.astype(np.float16).T, True
    yield "stepped slice", a[:, ::2], False  # last axis still the shortest step
    yield "small", a[:40, :40].T, False
    yield "short last axis", rng.standard_normal((2048, 32)).T.copy().T, False
    yield "expanded", np.broadcast_to(a[:, :1], (300, 200)), False


def test_dense_copy_matches_numpys_copy():
    for name, x, slabs in _sources():
        assert _memory_format._transposed(np, x) is slabs, name
        for fn in (_memory_format.dense_copy, _memory_format.dense):
            got = fn(np, x)
            want = np.array(x, order="C", copy=True)
            assert got.flags.c_contiguous and got.dtype == x.dtype and got.shape == x.shape, name
            assert got.tobytes() == want.tobytes(), name
            assert not np.shares_memory(got, x), name
    c = np.ones((300, 200), np.float32)
    assert _memory_format.dense(np, c) is c  # row-major already: itself, as ascontiguousarray


def test_transposing_copies_through_ops(monkeypatch):
    calls = []
    slab_copy = _memory_format._slab_copy
    monkeypatch.setattr(
        _memory_format, "_slab_copy", lambda xp, x: calls.append(x.shape) or slab_copy(xp, x)
    )
    rng = np.random.default_rng(2)
    base = rng.standard_normal((512, 300)).astype(np.float32)
    x = torch.tensor(base, requires_grad=True)
    for out, want in (
        (x.t().contiguous(), base.T),
        (x.t().reshape(-1), base.T.reshape(-1)),
        (x.t().clone(memory_format=torch.contiguous_format), base.T),
        (x.t().flatten(), base.T.reshape(-1)),
    ):
        assert out.is_contiguous() and out.shape == want.shape
        assert out.detach().numpy().tobytes() == np.ascontiguousarray(want).tobytes()
    assert len(calls) == 4
    w = torch.tensor(rng.standard_normal((300, 512)).astype(np.float32))
    (x.t().contiguous() * w).sum().backward()
    assert np.array_equal(x.grad.numpy(), w.numpy().T)
    with torch.no_grad():
        y = x.t().reshape(300 * 512)
    assert y.numpy().tobytes() == base.T.tobytes()


def test_bit_mask_of_a_bool_array_in_one_pass():
    from minitorch._backend.numpy_backend import _bit_mask

    rng = np.random.default_rng(3)
    c = rng.random((60, 50)) > 0.5
    for ints in ("int8", "int16", "int32", "int64"):
        for cond in (c, c.T, c[:, ::3], np.broadcast_to(c[:1], (60, 50)), c[0, 0]):
            cond = np.asarray(cond)
            want = np.negative(cond.astype(ints))
            got = _bit_mask(cond, ints)
            assert got.dtype == np.dtype(ints) and got.shape == cond.shape
            assert np.array_equal(got, want)  # all ones (-1) where cond holds, else 0
    u = np.array([0, 1, 1, 0], np.uint8)  # not a bool: the widening path
    assert _bit_mask(u, "int32").tolist() == [0, -1, -1, 0]
