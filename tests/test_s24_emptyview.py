"""Storage offsets, strides and storage sharing of empty views, as torch 2.13 gives them (NOTE
[ Empty views ] in minitorch/_ops/shape.py): an empty view starts where torch's does, even at or
past its base's end, and still shares its base's storage (untyped_storage, is_set_to, save/load,
deepcopy). Expected values were read from torch."""

from __future__ import annotations

import copy
import io

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _layout(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


def _m(device="cpu"):
    return torch.arange(12.0, device=device).reshape(3, 4)


# (description, function of the library's (3, 4) arange m, torch's (shape, stride, offset))
EMPTY_VIEWS = [
    ("a[3:3]", lambda m: m.reshape(-1)[3:3], ((0,), (1,), 3)),
    ("a[12:12]", lambda m: m.reshape(-1)[12:12], ((0,), (1,), 12)),
    ("a[12:]", lambda m: m.reshape(-1)[12:], ((0,), (1,), 12)),
    ("a[3:3:2]", lambda m: m.reshape(-1)[3:3:2], ((0,), (2,), 3)),
    ("a[0:0:2]", lambda m: m.reshape(-1)[0:0:2], ((0,), (2,), 0)),
    ("m[1:1]", lambda m: m[1:1], ((0, 4), (4, 1), 4)),
    ("m[3:3]", lambda m: m[3:3], ((0, 4), (4, 1), 12)),
    ("m[3:]", lambda m: m[3:], ((0, 4), (4, 1), 12)),
    ("m[2:1]", lambda m: m[2:1], ((0, 4), (4, 1), 8)),
    ("m[:, 2:2]", lambda m: m[:, 2:2], ((3, 0), (4, 1), 2)),
    ("m[:, 4:]", lambda m: m[:, 4:], ((3, 0), (4, 1), 4)),
    ("m[..., 1:1]", lambda m: m[..., 1:1], ((3, 0), (4, 1), 1)),
    ("m[1:1:2, ::3]", lambda m: m[1:1:2, ::3], ((0, 2), (8, 3), 4)),
    ("m[::2, 1:1:3]", lambda m: m[::2, 1:1:3], ((2, 0), (8, 3), 1)),
    ("m[1, 2:2]", lambda m: m[1, 2:2], ((0,), (1,), 6)),
    ("m[1:1, 2]", lambda m: m[1:1, 2], ((0,), (4,), 6)),
    ("m[None, 1:1]", lambda m: m[None, 1:1], ((1, 0, 4), (12, 4, 1), 4)),
    ("m[1:1][None]", lambda m: m[1:1][None], ((1, 0, 4), (0, 4, 1), 4)),
    ("m[1:1].t()", lambda m: m[1:1].t(), ((4, 0), (1, 4), 4)),
    ("m[1:1].view(0, 2, 2)", lambda m: m[1:1].view(0, 2, 2), ((0, 2, 2), (4, 2, 1), 4)),
    ("m[3:][:, 2:]", lambda m: m[3:][:, 2:], ((0, 2), (4, 1), 14)),
    ("m[:, 4:][1:]", lambda m: m[:, 4:][1:], ((2, 0), (4, 1), 8)),
    ("m[3:].view(-1)", lambda m: m[3:].view(-1), ((0,), (1,), 12)),
    ("m.narrow(1, 2, 0)", lambda m: m.narrow(1, 2, 0), ((3, 0), (4, 1), 2)),
    ("m.narrow(0, 3, 0)", lambda m: m.narrow(0, 3, 0), ((0, 4), (4, 1), 12)),
    ("m.split([1, 0, 2])[1]", lambda m: m.split([1, 0, 2])[1], ((0, 4), (4, 1), 4)),
    ("m.split([1, 3, 0], 1)[2]", lambda m: m.split([1, 3, 0], 1)[2], ((3, 0), (4, 1), 4)),
    ("m.split([3, 0])[1]", lambda m: m.split([3, 0])[1], ((0, 4), (4, 1), 12)),
    ("a.tensor_split(14)[13]", lambda m: m.reshape(-1).tensor_split(14)[13], ((0,), (1,), 12)),
    ("a.tensor_split([3, 3])[1]", lambda m: m.reshape(-1).tensor_split([3, 3])[1], ((0,), (1,), 3)),
    ("m.hsplit([2, 2])[1]", lambda m: m.hsplit([2, 2])[1], ((3, 0), (4, 1), 2)),
    ("m.vsplit([2, 2])[1]", lambda m: m.vsplit([2, 2])[1], ((0, 4), (4, 1), 8)),
    ("m.unfold(1, 4, 1)[:, 1:1]", lambda m: m.unfold(1, 4, 1)[:, 1:1], ((3, 0, 4), (4, 1, 1), 1)),
    ("a.as_strided((0,), (1,), 12)", lambda m: m.as_strided((0,), (1,), 12), ((0,), (1,), 12)),
    ("a.as_strided((0,), (1,), 100)", lambda m: m.as_strided((0,), (1,), 100), ((0,), (1,), 100)),
]


@pytest.mark.parametrize("name,fn,want", EMPTY_VIEWS, ids=[c[0] for c in EMPTY_VIEWS])
def test_empty_view_offset_and_strides(name, fn, want):
    assert _layout(fn(_m())) == want, name


# views of an empty (3, 0, 2) tensor: (function, torch's (shape, stride, offset))
OF_EMPTY = [
    ("z[1]", lambda z: z[1], ((0, 2), (2, 1), 2)),
    ("z[2]", lambda z: z[2], ((0, 2), (2, 1), 4)),
    ("z[1:]", lambda z: z[1:], ((2, 0, 2), (2, 2, 1), 2)),
    ("z.select(2, 1)", lambda z: z.select(2, 1), ((3, 0), (2, 2), 1)),
    ("z[:, :, 1]", lambda z: z[:, :, 1], ((3, 0), (2, 2), 1)),
    ("z.unbind(0)[2]", lambda z: z.unbind(0)[2], ((0, 2), (2, 1), 4)),
    ("z.unbind(2)[1]", lambda z: z.unbind(2)[1], ((3, 0), (2, 2), 1)),
    ("z.narrow(2, 1, 1)", lambda z: z.narrow(2, 1, 1), ((3, 0, 1), (2, 2, 1), 1)),
    ("z.chunk(2, 0)[1]", lambda z: z.chunk(2, 0)[1], ((1, 0, 2), (2, 2, 1), 4)),
    ("z[:, :, :1].squeeze(2)", lambda z: z[:, :, :1].squeeze(2), ((3, 0), (2, 2), 0)),
]


@pytest.mark.parametrize("name,fn,want", OF_EMPTY, ids=[c[0] for c in OF_EMPTY])
def test_views_of_an_empty_tensor(name, fn, want):
    assert _layout(fn(torch.zeros(3, 0, 2))) == want, name


def test_expanded_empty_keeps_zero_strides():
    # torch: an expand to an empty shape keeps its zero strides, through a squeeze too
    x = torch.arange(1.0).reshape(1, 1, 1).expand(2, 0, 1)
    assert tuple(x.stride()) == (0, 0, 1)
    assert tuple(x.squeeze().stride()) == (0, 0)
    assert tuple(torch.tensor(1.0).expand(0).stride()) == (0,)


def test_empty_views_at_the_end_share_the_storage(device):
    if device.startswith("cuda"):
        pytest.skip("CuPy's empty views sit at their base's first element (offset 0 on a GPU)")
    x = torch.arange(6.0, device=device)
    whole = x.untyped_storage()
    for v, offset in ((x[6:], 6), (x[3:3], 3), (x.narrow(0, 6, 0), 6), (x.split([6, 0])[1], 6)):
        s = v.untyped_storage()
        assert v.storage_offset() == offset
        assert s.nbytes() == 24  # torch: the whole storage, not 0 bytes
        assert s.data_ptr() == whole.data_ptr()
        assert v.data_ptr() == 0  # torch's tensors without elements point nowhere
        d = v.detach()
        assert d.storage_offset() == offset and d.untyped_storage().nbytes() == 24
    z = torch.zeros(3, 0, 2, device=device)
    assert z[2].storage_offset() == 4 and z[2].untyped_storage().nbytes() == 0


def test_empty_view_with_memory_of_its_own_is_at_offset_zero():
    v = _m()[3:]
    assert v.storage_offset() == 12
    v.data = torch.zeros(0, 4)
    assert v.storage_offset() == 0
    assert v.untyped_storage().nbytes() == 0


def test_is_set_to_of_empty_views():
    # torch: one storage, one offset, one shape and strides; dtypes are not compared
    x = torch.arange(6.0)
    y = torch.arange(6.0)
    assert x[3:3].is_set_to(x[3:3])
    assert not x[3:3].is_set_to(x[2:2])
    assert x[6:].is_set_to(x[6:])
    assert x[6:].is_set_to(x[6:].detach())
    assert not x[6:].is_set_to(y[6:])
    assert not x[0:0].is_set_to(torch.empty(0))
    assert not torch.empty(0).is_set_to(torch.empty(0))
    assert not x[0:0].is_set_to(x[0:0:2])
    e = torch.empty(0)
    assert e.is_set_to(e) and e.is_set_to(e.view(0))
    assert x.is_set_to(x.view(torch.int32))
    assert x[:0].is_set_to(x[:0].view(torch.int32))


def _described(ts):
    ptrs = [t.untyped_storage().data_ptr() for t in ts]
    layouts = [(_layout(t), t.untyped_storage().nbytes()) for t in ts]
    return layouts, [ptrs.index(p) for p in ptrs]


def _views(lib_arange=torch.arange):
    x = lib_arange(6.0)
    z = torch.empty(3, 0, 2)
    m = lib_arange(12.0).reshape(3, 4)
    return [x, x[6:], x[3:3], x[0:0:2], x[4:], z, z[2], z[1:], m[:, 4:], m[3:], m[1:2, 2:3]]


# what torch.load gives back for _views() saved in one call (torch 2.13)
SAVED = (
    [
        (((6,), (1,), 0), 24),
        (((0,), (1,), 6), 24),
        (((0,), (1,), 3), 24),
        (((0,), (2,), 0), 24),
        (((2,), (1,), 4), 24),
        (((3, 0, 2), (2, 2, 1), 0), 0),
        (((0, 2), (2, 1), 4), 0),
        (((2, 0, 2), (2, 2, 1), 2), 0),
        (((3, 0), (4, 1), 4), 48),
        (((0, 4), (4, 1), 12), 48),
        (((1, 1), (4, 1), 6), 48),
    ],
    [0, 0, 0, 0, 0, 5, 5, 5, 8, 8, 8],
)


@pytest.mark.parametrize("legacy", [False, True])
def test_save_load_keeps_empty_views_in_their_storage(legacy):
    buf = io.BytesIO()
    torch.save(_views(), buf, _use_new_zipfile_serialization=not legacy)
    buf.seek(0)
    assert _described(torch.load(buf)) == SAVED


def test_deepcopy_keeps_an_empty_view_at_its_offset():
    x = torch.arange(6.0)
    d = copy.deepcopy(x[6:])
    assert d.storage_offset() == 6 and d.untyped_storage().nbytes() == 24
    a, b = copy.deepcopy([x, x[6:]])
    assert b.storage_offset() == 6
    assert b.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()


def test_empty_views_share_memory_and_values(device):
    if device.startswith("cuda"):
        pytest.skip("CuPy's empty views sit at their base's first element (offset 0 on a GPU)")
    m = _m(device)
    e = m[1:1]
    assert e.storage_offset() == 4
    assert e._base is m._base  # a view of m's storage
    # writes through a view stay right next to empty ones
    m[1:2].fill_(-1.0)
    m.narrow(1, 3, 0).fill_(5.0)  # writes nothing
    m[3:].fill_(7.0)  # writes nothing
    want = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    want[1] = -1.0
    np.testing.assert_array_equal(m.cpu().numpy(), want)
    # a non-empty result is NumPy's own view, as before
    assert m[1:3].storage_offset() == 4
    assert m.split([1, 0, 2])[2].storage_offset() == 4


def test_empty_view_offset_from_a_strided_root():
    # a channels_last root owns no memory of its own: the offset still counts from its storage
    x = torch.arange(18.0).reshape(1, 2, 3, 3).contiguous(memory_format=torch.channels_last)
    assert _layout(x.select(2, 1)[1:1]) == ((0, 2, 3), (18, 1, 2), 24)


def test_gradients_through_empty_views():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    for f in (
        lambda t: t[1:1] * 2,
        lambda t: t[3:] * 2,
        lambda t: t[:, 2:2:3],
        lambda t: t.narrow(0, 3, 0),
        lambda t: t.split([1, 0, 2])[1],
        lambda t: t.tensor_split([2, 2], 1)[1],
    ):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))
    z = torch.zeros(3, 0, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.unbind(2)[1], (z,))
    y = x[3:]
    assert y.storage_offset() == 12 and y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


def _tr(*shape):
    """A tensor of `shape` whose memory runs along its dims in reverse order."""
    n = 1
    for s in shape:
        n *= s
    return torch.arange(float(n)).reshape(shape[::-1]).permute(tuple(range(len(shape))[::-1]))


def _cl(shape, fmt):
    n = 1
    for s in shape:
        n *= s
    return torch.arange(float(n)).reshape(shape).contiguous(memory_format=fmt)


def test_size_one_views_read_and_write_their_base():
    base = _tr(3, 1, 4)
    v = base.reshape(3, 1, 4)
    np.testing.assert_array_equal(v.numpy(), base.numpy())
    v[1].fill_(-1.0)
    assert float(base[1].sum()) == -4.0 and float(base.sum()) == 66.0 - 22.0 - 4.0
    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.t().reshape(3, 1, 2) * 2, (x,))
    assert gradgradcheck(lambda t: t.t().unflatten(1, (1, 2)).squeeze(1), (x,))


def test_empty_factory_results_have_contiguous_strides():
    # torch 2.13: a size-0 dim counts as 1 in a fresh tensor's strides, and a transpose keeps them
    assert torch.empty(0, 5).t().stride() == (1, 5)
    assert torch.tensor([[], []]).t().stride() == (1, 1)
    assert torch.eye(0, 3).t().stride() == (1, 3)
    assert torch.full((2, 0), 1.0).t().stride() == (1, 1)
    assert torch.zeros(0, 5).stride() == (5, 1)


def test_view_resized_to_nothing_keeps_its_offset():
    x = torch.arange(10.0)
    v = x[4:8]
    v.resize_(0, 3)  # torch 2.13: offset 4, strides (3, 1), same storage
    assert (v.storage_offset(), v.stride(), tuple(v.shape)) == (4, (3, 1), (0, 3))
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
