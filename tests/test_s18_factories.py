"""Sweep 18 factory fixes: asarray of tensors (requires_grad / copy / graph), empty_permuted,
from_file, range(out=) and its accumulation types, the ranges' out= shape, the layout of tensors
copied from NumPy arrays, and the sym_* helpers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck


def _range(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.range's deprecation warning
        return mt.range(*args, **kwargs)


# --- asarray of a tensor: see NOTE [ asarray of a tensor ] -----------------------------------


def test_asarray_non_leaf_without_requires_grad_is_a_detached_alias():
    a = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a + 2
    c = mt.asarray(b, requires_grad=False)
    assert c is not b and c.is_leaf and not c.requires_grad and c.grad_fn is None
    c[0] = 10.0  # the same memory as b
    np.testing.assert_array_equal(b.detach().numpy(), [10.0, 4.0, 5.0])
    assert type(b.grad_fn).__name__ == "AddBackward0"


def test_asarray_non_leaf_with_requires_grad_is_the_same_tensor():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    d = mt.asarray(b, requires_grad=True)
    assert d is b and not d.is_leaf
    d.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 3.0])


def test_asarray_leaf_takes_the_requires_grad_flag():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    e = mt.asarray(a, requires_grad=False)  # torch turns the flag off on a itself
    assert e is a and not a.requires_grad and a.is_leaf
    p = mt.tensor([1.0, 2.0])
    assert mt.asarray(p, requires_grad=True) is p and p.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        mt.asarray(mt.tensor([1, 2]), requires_grad=True)


def test_asarray_copies_of_a_tensor_stay_in_the_graph():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    cl = mt.asarray(a, copy=True, requires_grad=True)
    assert type(cl.grad_fn).__name__ == "CloneBackward0" and a.requires_grad
    cast = mt.asarray(a, dtype=mt.float64, requires_grad=True)
    assert type(cast.grad_fn).__name__ == "ToCopyBackward0" and cast.dtype is mt.float64
    (cl * 2 + cast.float() * 5).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [7.0, 7.0])
    # with requires_grad=False a copy is detached, and the source keeps its flag
    d = mt.asarray(a, copy=True, requires_grad=False)
    assert d.is_leaf and not d.requires_grad and a.requires_grad
    d = mt.asarray(a, dtype=mt.float64, requires_grad=False)
    assert d.is_leaf and not d.requires_grad and a.requires_grad
    # a leaf that needs no grad, copied: the copy gets the flag, the source does not
    p = mt.tensor([1.0, 2.0])
    q = mt.asarray(p, copy=True, requires_grad=True)
    assert q.is_leaf and q.requires_grad and not p.requires_grad


def test_asarray_copy_false_still_refuses_a_cast():
    a = mt.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype"):
        mt.asarray(a, dtype=mt.float64, copy=False)
    assert mt.asarray(a, dtype=mt.float32, copy=False) is a


def test_asarray_gradients_float64():
    x = mt.tensor(np.random.default_rng(0).standard_normal(4), requires_grad=True)

    def f(t):
        return mt.asarray(t, copy=True, requires_grad=True) * t

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# --- empty_permuted -------------------------------------------------------------------------


def test_empty_permuted_strides():
    t = mt.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1))
    assert t.shape == (2, 3, 5, 7) and t.stride() == (105, 1, 21, 3)
    assert t.dtype is mt.float32 and t.is_leaf and t._base is None
    u = mt.empty_permuted([2, 3], [1, 0], dtype=mt.float64, requires_grad=True)
    assert u.stride() == (1, 2) and u.dtype is mt.float64 and u.requires_grad
    assert mt.empty_permuted((), ()).shape == ()


def test_empty_permuted_errors():
    with pytest.raises(RuntimeError, match=r"len\(size\) = 2 is not equal to len\(physical"):
        mt.empty_permuted((2, 3), (0,))
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        mt.empty_permuted((2, 3), (0, 0))
    with pytest.raises(RuntimeError, match="between 0 and 1, but got -1 at index 0"):
        mt.empty_permuted((2, 3), (-1, 0))
    with pytest.raises(RuntimeError, match=r"negative dimension -2: \[3, -2\]"):
        mt.empty_permuted((-2, 3), (1, 0))
    with pytest.raises(TypeError, match="'physical_layout' \\(position 2\\) must be tuple of"):
        mt.empty_permuted((2, 3), 1)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.empty_permuted((2, 3), (1, 0), dtype=mt.int64, requires_grad=True)


# --- from_file ------------------------------------------------------------------------------


def test_from_file_private_mapping(tmp_path):
    path = str(tmp_path / "data.bin")
    np.arange(10, dtype=np.float32).tofile(path)
    t = mt.from_file(path, size=4)
    np.testing.assert_array_equal(t.numpy(), [0.0, 1.0, 2.0, 3.0])
    t[0] = 100.0  # copy-on-write: the file keeps its bytes
    np.testing.assert_array_equal(np.fromfile(path, dtype=np.float32)[:2], [0.0, 1.0])
    d = mt.from_file(path, False, 3, dtype=mt.float64)  # the same bytes read as doubles
    np.testing.assert_array_equal(d.numpy(), np.arange(6, dtype=np.float32).view(np.float64))
    assert mt.from_file(path).shape == (0,)
    with pytest.raises(
        RuntimeError, match=r"size <40> is smaller than the required mapping size <80>"
    ):
        mt.from_file(path, size=20)
    with pytest.raises(RuntimeError, match="unable to open file <.*> in read-only mode"):
        mt.from_file(str(tmp_path / "missing.bin"), size=2)
    with pytest.raises(TypeError, match="'filename' \\(position 1\\) must be str"):
        mt.from_file(tmp_path / "data.bin", size=2)


def test_from_file_shared_writes_through_and_extends(tmp_path):
    path = str(tmp_path / "data.bin")
    np.arange(4, dtype=np.float32).tofile(path)
    t = mt.from_file(path, shared=True, size=6)  # extended with zeros to 24 bytes
    np.testing.assert_array_equal(t.numpy(), [0.0, 1.0, 2.0, 3.0, 0.0, 0.0])
    t[5] = 7.0
    del t
    np.testing.assert_array_equal(np.fromfile(path, dtype=np.float32), [0, 1, 2, 3, 0, 7])
    new = str(tmp_path / "new.bin")
    z = mt.from_file(new, shared=True, size=2, dtype=mt.int64, requires_grad=False)
    np.testing.assert_array_equal(z.numpy(), [0, 0])
    assert z.dtype is mt.int64


# --- range: out= and the accumulation type --------------------------------------------------


def test_range_writes_into_out():
    o = mt.empty(0)
    r = _range(0, 3, out=o)
    assert r is o
    np.testing.assert_array_equal(o.numpy(), [0.0, 1.0, 2.0, 3.0])
    o2 = mt.zeros(4, dtype=mt.float64)
    view = o2[:]
    v0 = o2._version
    _range(1, 4, out=o2)
    np.testing.assert_array_equal(view.numpy(), [1.0, 2.0, 3.0, 4.0])  # written in place
    assert o2._version > v0
    o3 = mt.empty(0, dtype=mt.int64)
    _range(0, 3, out=o3)
    assert o3.dtype is mt.int64 and o3.tolist() == [0, 1, 2, 3]


def test_range_out_errors():
    with pytest.raises(RuntimeError, match=r"dtype Double does not match dtype of out parameter"):
        _range(0, 3, dtype=mt.float64, out=mt.empty(0))
    with pytest.raises(RuntimeError, match="aten::range\\(\\): functions with out="):
        _range(0, 3, out=mt.empty(0, requires_grad=True))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor, not list"):
        _range(0, 3, out=[1])
    with pytest.raises(NotImplementedError, match="\"range_cpu\" not implemented for 'Bool'"):
        _range(0, 2, dtype=mt.bool)


def test_range_out_keeps_its_shape_when_the_count_matches():
    for make in (
        lambda o: _range(0, 5, out=o),
        lambda o: mt.arange(0, 6, out=o),
        lambda o: mt.linspace(0, 5, 6, out=o),
    ):
        o = mt.empty(2, 3)
        make(o)
        assert o.shape == (2, 3)
        np.testing.assert_array_equal(o.numpy(), [[0, 1, 2], [3, 4, 5]])
    o = mt.empty(2, 3)
    mt.zeros(6, out=o)  # the other factories resize to their size
    assert o.shape == (6,)


def test_range_accumulation_types():
    # integer dtypes truncate the arguments first
    assert _range(0.5, 3, dtype=mt.int64).tolist() == [0, 1, 2, 3]
    assert _range(0, 2.7, 1.5, dtype=mt.int64).tolist() == [0, 1, 2]
    assert _range(3, -2.5, -1.5, dtype=mt.int64).tolist() == [3, 2, 1, 0, -1, -2]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        _range(0, 2, 0.5, dtype=mt.int64)
    # 2-byte floats count in float32: 0.3f / 0.1f rounds to 3, so 4 elements
    h = _range(0, 0.3, 0.1, dtype=mt.float16)
    np.testing.assert_array_equal(h.numpy(), np.array([0, 0.1, 0.2, 0.3], dtype=np.float16))
    assert _range(0, 0.7, 0.1, dtype=mt.bfloat16).shape == (8,)
    assert _range(0, 0.3, 0.1).shape == (3,)  # float32 counts in float64
    with pytest.raises(RuntimeError, match="unsupported range: 0 -> inf"):
        _range(0, float("inf"))
    with pytest.raises(RuntimeError, match="unsupported range: 0 -> nan"):
        _range(0, float("nan"))


# --- tensors copied from NumPy keep the array's layout --------------------------------------


def test_tensor_of_fortran_array_keeps_its_layout():
    a = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    for t in (
        mt.tensor(a),
        mt.tensor(a, dtype=mt.float32),
        mt.tensor(a, dtype=mt.int64),
        mt.as_tensor(a, dtype=mt.float32),
        mt.as_tensor(a, dtype=mt.float16),
        mt.asarray(a, copy=True),
    ):
        assert t.stride() == (1, 2) and not t.is_contiguous()
        np.testing.assert_array_equal(t.double().numpy(), a)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        mt.tensor(a).view(-1)
    c = np.arange(24.0).reshape(2, 3, 4)
    assert mt.tensor(np.asfortranarray(c)).stride() == (1, 2, 6)
    assert mt.tensor(c.transpose(1, 0, 2)).stride() == (4, 12, 1)
    assert mt.tensor(np.arange(6.0).reshape(2, 3).T).stride() == (1, 3)


def test_tensor_of_strided_or_broadcast_array():
    a = np.arange(12.0).reshape(3, 4)
    assert mt.tensor(a[:, ::2]).stride() == (2, 1)  # row-major, as torch
    assert mt.tensor(a.T[:, ::2]).stride() == (1, 4)  # dense, in the array's dim order
    b = np.broadcast_to(np.arange(3.0), (2, 3))
    for t in (mt.tensor(b), mt.tensor(b, dtype=mt.float32), mt.as_tensor(b, dtype=mt.float32)):
        assert t.stride() == (3, 1)
        np.testing.assert_array_equal(t.double().numpy(), b)
    assert mt.tensor(np.array(2.0)).shape == ()
    assert mt.tensor(np.array(2.0), dtype=mt.float32).shape == ()


# --- sym_* helpers --------------------------------------------------------------------------


def test_sym_int_calls_int():
    assert mt.sym_int(mt.tensor(3.7)) == 3 and type(mt.sym_int(mt.tensor(3.7))) is int
    assert mt.sym_int(mt.tensor(-3.7)) == -3
    assert mt.sym_int(mt.tensor(5)) == 5
    assert mt.sym_int(mt.tensor([1.5])) == 1
    r = mt.sym_int(True)
    assert r == 1 and type(r) is int
    assert type(mt.sym_int(np.int64(4))) is int and mt.sym_int(np.float64(2.5)) == 2
    assert mt.sym_int("3") == 3
    with pytest.raises(ValueError):
        mt.sym_int(mt.tensor([1.5, 2.0]))


def test_sym_max_min_take_numbers_only():
    with pytest.raises(AssertionError, match="expected"):
        mt.sym_max(mt.tensor(3), 4)
    with pytest.raises(AssertionError, match="expected"):
        mt.sym_min(3, mt.tensor(4.0))
    r = mt.sym_max(np.float32(2.5), 1)
    assert r == 2.5 and type(r) is float
    assert type(mt.sym_min(np.int64(3), 2.0)) is float
    assert mt.sym_max(True, 2) == 2 and mt.sym_min(True, 2) is True
