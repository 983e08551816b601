"""Storage offsets and strides of empty views and empty factory results, as torch 2.13 gives them
(NOTE [ Empty views ] in minitorch/_ops/shape.py). Expected values were read from torch."""

from __future__ import annotations

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
    ("a[3:3:2]", lambda m: m.reshape(-1)[3:3:2], ((0,), (2,), 3)),
    ("m[1:1]", lambda m: m[1:1], ((0, 4), (4, 1), 4)),
    ("m[3:3]", lambda m: m[3:3], ((0, 4), (4, 1), 12)),
    ("m[2:1]", lambda m: m[2:1], ((0, 4), (4, 1), 8)),
    ("m[:, 2:2]", lambda m: m[:, 2:2], ((3, 0), (4, 1), 2)),
    ("m[..., 1:1]", lambda m: m[..., 1:1], ((3, 0), (4, 1), 1)),
    ("m[1:1:2, ::3]", lambda m: m[1:1:2, ::3], ((0, 2), (8, 3), 4)),
    ("m[::2, 1:1:3]", lambda m: m[::2, 1:1:3], ((2, 0), (8, 3), 1)),
    ("m[1, 2:2]", lambda m: m[1, 2:2], ((0,), (1,), 6)),
    ("m[1:1, 2]", lambda m: m[1:1, 2], ((0,), (4,), 6)),
    ("m[None, 1:1]", lambda m: m[None, 1:1], ((1, 0, 4), (12, 4, 1), 4)),
    ("m[1:1][None]", lambda m: m[1:1][None], ((1, 0, 4), (0, 4, 1), 4)),
    ("m[1:1].t()", lambda m: m[1:1].t(), ((4, 0), (1, 4), 4)),
    ("m[1:1].view(0, 2, 2)", lambda m: m[1:1].view(0, 2, 2), ((0, 2, 2), (4, 2, 1), 4)),
    ("m.narrow(1, 2, 0)", lambda m: m.narrow(1, 2, 0), ((3, 0), (4, 1), 2)),
    ("m.narrow(0, 3, 0)", lambda m: m.narrow(0, 3, 0), ((0, 4), (4, 1), 12)),
    ("m.split([1, 0, 2])[1]", lambda m: m.split([1, 0, 2])[1], ((0, 4), (4, 1), 4)),
    ("m.split([1, 3, 0], 1)[2]", lambda m: m.split([1, 3, 0], 1)[2], ((3, 0), (4, 1), 4)),
    ("a.tensor_split(14)[13]", lambda m: m.reshape(-1).tensor_split(14)[13], ((0,), (1,), 12)),
    ("a.tensor_split([3, 3])[1]", lambda m: m.reshape(-1).tensor_split([3, 3])[1], ((0,), (1,), 3)),
    ("m.hsplit([2, 2])[1]", lambda m: m.hsplit([2, 2])[1], ((3, 0), (4, 1), 2)),
    ("m.vsplit([2, 2])[1]", lambda m: m.vsplit([2, 2])[1], ((0, 4), (4, 1), 8)),
    ("m.unfold(1, 4, 1)[:, 1:1]", lambda m: m.unfold(1, 4, 1)[:, 1:1], ((3, 0, 4), (4, 1, 1), 1)),
    ("a.as_strided((0,), (1,), 12)", lambda m: m.as_strided((0,), (1,), 12), ((0,), (1,), 12)),
]


@pytest.mark.parametrize("name,fn,want", EMPTY_VIEWS, ids=[c[0] for c in EMPTY_VIEWS])
def test_empty_view_offset_and_strides(name, fn, want):
    assert _layout(fn(_m())) == want, name


# views of an empty (3, 0, 2) tensor: (function, torch's (shape, stride, offset))
OF_EMPTY = [
    ("z[1]", lambda z: z[1], ((0, 2), (2, 1), 2)),
    ("z.select(2, 1)", lambda z: z.select(2, 1), ((3, 0), (2, 2), 1)),
    ("z[:, :, 1]", lambda z: z[:, :, 1], ((3, 0), (2, 2), 1)),
    ("z.unbind(0)[2]", lambda z: z.unbind(0)[2], ((0, 2), (2, 1), 4)),
    ("z.unbind(2)[1]", lambda z: z.unbind(2)[1], ((3, 0), (2, 2), 1)),
    ("z.narrow(2, 1, 1)", lambda z: z.narrow(2, 1, 1), ((3, 0, 1), (2, 2, 1), 1)),
    ("z.chunk(2, 0)[1]", lambda z: z.chunk(2, 0)[1], ((1, 0, 2), (2, 2, 1), 4)),
    ("z.permute(2, 0, 1)", lambda z: z.permute(2, 0, 1), ((2, 3, 0), (1, 2, 2), 0)),
    ("z[:, :, :1].squeeze(2)", lambda z: z[:, :, :1].squeeze(2), ((3, 0), (2, 2), 0)),
]


@pytest.mark.parametrize("name,fn,want", OF_EMPTY, ids=[c[0] for c in OF_EMPTY])
def test_views_of_an_empty_tensor(name, fn, want):
    assert _layout(fn(torch.zeros(3, 0, 2))) == want, name


# empty factory results, transposed: (function, torch's strides)
FACTORIES = [
    ("empty(0, 5).t()", lambda: torch.empty(0, 5).t(), (1, 5)),
    ("zeros(2, 0, 3).permute(2, 0, 1)", lambda: torch.zeros(2, 0, 3).permute(2, 0, 1), (1, 3, 3)),
    ("ones(0, 3).t()", lambda: torch.ones(0, 3).t(), (1, 3)),
    ("full((3, 0), 1.0).t()", lambda: torch.full((3, 0), 1.0).t(), (1, 1)),
    ("full((0, 3), tensor(2.0)).t()", lambda: torch.full((0, 3), torch.tensor(2.0)).t(), (1, 3)),
    ("zeros_like(empty(0, 4)).t()", lambda: torch.zeros_like(torch.empty(0, 4)).t(), (1, 4)),
    ("empty_like(empty(0, 4)).t()", lambda: torch.empty_like(torch.empty(0, 4)).t(), (1, 4)),
    ("new_zeros(0, 4).t()", lambda: torch.ones(1).new_zeros(0, 4).t(), (1, 4)),
    ("tensor([[], []]).t()", lambda: torch.tensor([[], []]).t(), (1, 1)),
    ("eye(0, 3).t()", lambda: torch.eye(0, 3).t(), (1, 3)),
    ("empty(2, 0, 5).mT", lambda: torch.empty(2, 0, 5).mT, (5, 1, 5)),
]


@pytest.mark.parametrize("name,fn,want", FACTORIES, ids=[c[0] for c in FACTORIES])
def test_empty_factory_strides(name, fn, want):
    t = fn()
    assert tuple(t.stride()) == want, name
    assert t.storage_offset() == 0


def test_expanded_empty_keeps_zero_strides():
    # torch: an expand to an empty shape keeps its zero strides, through a squeeze too
    x = torch.arange(1.0).reshape(1, 1, 1).expand(2, 0, 1)
    assert tuple(x.stride()) == (0, 0, 1)
    assert tuple(x.squeeze().stride()) == (0, 0)
    assert tuple(torch.tensor(1.0).expand(0).stride()) == (0,)


def test_empty_views_share_memory_and_values(device):
    m = _m(device)
    e = m[1:1]
    assert e.storage_offset() == 4
    assert e._base is m._base  # a view of m's storage
    # writes through a view stay right next to empty ones
    m[1:2].fill_(-1.0)
    m.narrow(1, 3, 0).fill_(5.0)  # writes nothing
    want = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    want[1] = -1.0
    np.testing.assert_array_equal(m.cpu().numpy(), want)
    # a non-empty result is NumPy's own view, as before
    assert m[1:3].storage_offset() == 4
    assert m.split([1, 0, 2])[2].storage_offset() == 4


def test_detached_empty_view_inside_base():
    e = _m()[1:1].detach()
    assert _layout(e) == ((0, 4), (4, 1), 4)


def test_empty_view_offset_from_a_strided_root():
    # a channels_last root owns no memory of its own: the offset still counts from its storage
    x = torch.arange(18.0).reshape(1, 2, 3, 3).contiguous(memory_format=torch.channels_last)
    assert _layout(x.select(2, 1)[1:1]) == ((0, 2, 3), (18, 1, 2), 24)


def test_own_memory_empty_view_is_at_offset_zero():
    v = _m()[1:1]
    assert v.storage_offset() == 4
    v.data = torch.zeros(0, 4)
    assert v.storage_offset() == 0


def test_gradients_through_empty_views():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    for f in (
        lambda t: t[1:1] * 2,
        lambda t: t[:, 2:2:3],
        lambda t: t.narrow(0, 3, 0),
        lambda t: t.split([1, 0, 2])[1],
        lambda t: t.tensor_split([2, 2], 1)[1],
    ):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))
    z = torch.zeros(3, 0, 2, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.unbind(2)[1], (z,))
    y = x[1:1]
    assert y.storage_offset() == 4 and y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))
