"""Session 22 (h13): the storage model against torch: set_, storages, resize_, copy_ overlap,
.data assignment. Expected values were read from torch 2.13.0."""

import pytest

import minitorch as torch


def test_set_dtype_mismatch_message():
    x = torch.zeros(2, dtype=torch.float64)
    with pytest.raises(
        RuntimeError, match="^Could not set tensor of type float to a tensor of type double$"
    ):
        x.set_(torch.zeros(2))
    with pytest.raises(RuntimeError, match="^Could not set tensor of type long int to a tensor"):
        x.set_(torch.zeros(2, dtype=torch.int64))


def test_set_offset_needs_size():
    x = torch.arange(6.0)
    y = torch.zeros(0)
    with pytest.raises(TypeError, match=r"got \(torch.storage.UntypedStorage, int\), but expected"):
        y.set_(x.untyped_storage(), 2)
    with pytest.raises(TypeError, match=r"got \(Tensor, int\), but expected one of"):
        y.set_(x, 2)
    assert y.shape == (0,)


def test_set_storage_offset_and_sharing():
    x = torch.arange(6)
    y = torch.zeros(0, dtype=torch.int64)
    y.set_(x.untyped_storage(), 2, (2, 2), (1, 2))
    assert y.tolist() == [[2, 4], [3, 5]]
    assert y.storage_offset() == 2
    assert y.untyped_storage().nbytes() == 48
    y[0, 0] = 50
    assert x.tolist() == [0, 1, 50, 3, 4, 5]
    # a tensor source with an offset counts from where the source starts
    z = torch.zeros(0)
    z.set_(torch.arange(6.0)[1:], 2, (2,), (2,))
    assert z.tolist() == [3.0, 5.0] and z.storage_offset() == 3


def test_set_to_own_view_keeps_storage():
    x = torch.arange(16.0).reshape(4, 4)
    t = x.data
    t.set_(t.diagonal(0, 1, 0))
    n = t.narrow(0, 3, 1)
    assert n.storage_offset() == 15
    assert t.untyped_storage().nbytes() == 64
    assert n.tolist() == [15.0]


def test_set_view_of_leaf_refused():
    a = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        a[1:].set_()
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad"):
        a.set_()


def test_untyped_storage_index_bounds():
    s = torch.arange(6.0).untyped_storage()
    with pytest.raises(IndexError, match="^index 24 out of range for storage of size 24$"):
        s[24]
    with pytest.raises(RuntimeError, match="^out of bounds$"):
        s[24] = 1
    with pytest.raises(RuntimeError, match="^out of bounds$"):
        s[-1] = 3
    assert s[-1] == 64  # the last byte of 5.0 (float32 little-endian 0x40a00000)
    with pytest.raises(
        RuntimeError, match="^size does not match, self was 24 bytes but src was 8 bytes$"
    ):
        s.copy_(torch.zeros(2).untyped_storage())


def test_copy_overlap_checks():
    x = torch.zeros(1)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input"):
        x.copy_(x[0])  # one element, but another rank: torch's partial overlap
    x = torch.zeros(2, 3)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input"):
        x.copy_(x.t())  # the overlap is found before the shapes
    e = torch.zeros(1).expand(3)
    e.copy_(e)  # the same tensor: nothing to do
    assert e._version == 1
    e[:3].copy_(e[0:])  # another tensor, the same view of the same memory: nothing either
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element"):
        e.copy_(torch.zeros(4))
    a = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad"):
        a[:2].copy_(a[:2].t())


def test_resize_shrink_keeps_storage():
    x = torch.arange(6.0)
    x.resize_(2)
    assert x.untyped_storage().nbytes() == 24
    x.resize_(5)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    y = torch.arange(3.0)
    y.resize_(0)
    y.resize_(3)
    assert y.tolist() == [0.0, 1.0, 2.0]


def test_resize_grow_keeps_memory_order():
    t = torch.arange(6).reshape(2, 3).t()
    t.resize_(8)
    assert t[:6].tolist() == [0, 1, 2, 3, 4, 5]


def test_resize_grow_view_base_follows():
    b = torch.arange(6.0)
    v = b[2:]
    v.resize_(10)
    v[0] = 100
    v[5] = 7
    assert b.tolist() == [0.0, 1.0, 100.0, 3.0, 4.0, 5.0]
    assert b.untyped_storage().nbytes() == 48
    assert v.storage_offset() == 2
    assert v[:4].tolist() == [100.0, 3.0, 4.0, 5.0]
    r = (torch.arange(8.0) * 0.5 + 1).reshape(4, 2)
    r.resize_(9)
    assert r[5:].storage_offset() == 5


def test_data_assignment_keeps_storage_offset():
    x = torch.arange(6.0)
    y = torch.zeros(2)
    y.data = x[4]
    assert y.storage_offset() == 4
    assert y.untyped_storage().nbytes() == 24


def test_view_past_base_of_grown_view_has_offset():
    t = (torch.arange(1) + 1).reshape(())
    t.resize_([2])
    assert t.select(0, 1).storage_offset() == 1


def test_set_storage_of_partial_elements():
    y = torch.zeros(0, dtype=torch.float64)
    y.set_(torch.zeros(3).untyped_storage())  # 12 bytes: one whole float64
    assert tuple(y.shape) == (1,)
    y.set_(torch.zeros(1).untyped_storage())
    assert tuple(y.shape) == (0,)
