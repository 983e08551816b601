"""Sweep 18's view-copy fixes: sum_to_size's node, the storage kept by as_strided_, row-major
*_copy results and tuples from split_copy & co, hinge_embedding_loss on integer inputs,
histogramdd's required bins."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

# --- sum_to_size: torch views only to drop leading dims ---


@pytest.mark.parametrize(
    "shape, size, node",
    [
        ((3, 4), (1, 4), "SumBackward1"),
        ((3, 4), (3, 1), "SumBackward1"),
        ((3, 4), (1, 1), "SumBackward1"),
        ((3, 4), (4,), "ViewBackward0"),
        ((3, 4), (1,), "ViewBackward0"),
        ((2, 1, 3), (1, 3), "ViewBackward0"),
        ((1, 3, 4), (3, 4), "ViewBackward0"),
    ],
)
def test_sum_to_size_node(shape, size, node):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x = mt.tensor(a, requires_grad=True)
    r = x.sum_to_size(*size)
    assert type(r.grad_fn).__name__ == node
    lead = len(shape) - len(size)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1
    )
    ref = a.sum(axis=axes, keepdims=True).reshape(size)
    np.testing.assert_allclose(r.detach().numpy(), ref, err_msg=str(size))
    assert gradcheck(lambda t: t.sum_to_size(*size), (x,))
    assert gradgradcheck(lambda t: t.sum_to_size(*size), (x,))


def test_sum_to_size_no_reduction_is_self():
    x = mt.ones(3, 4, requires_grad=True)
    assert x.sum_to_size(3, 4) is x


# --- as_strided_ keeps the whole storage ---


def test_as_strided__keeps_storage():
    x = mt.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    x.as_strided_((2, 2), (1, 2))
    assert x.untyped_storage().nbytes() == 36
    x.as_strided_((2, 2), (1, 2), 1)  # reaches past the 2x2 window: still in the storage
    assert x.storage_offset() == 1
    assert x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    y = mt.arange(9.0)
    y.as_strided_((2,), (1,), 2)
    assert (y.storage_offset(), y.untyped_storage().nbytes()) == (2, 36)
    y.as_strided_((3,), (3,))  # default offset: the tensor's own
    assert y.tolist() == [2.0, 5.0, 8.0]
    y[0] = 100.0  # the window aliases the storage
    assert y.as_strided_((9,), (1,), 0).tolist() == [0, 1, 100, 3, 4, 5, 6, 7, 8]
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 36"):
        y.as_strided_((10,), (1,), 0)


def test_as_strided__detached_view_addresses_storage():
    z = mt.arange(9.0)
    d = z[3:].detach()
    d.as_strided_((3,), (2,), 0)
    assert d.tolist() == [0.0, 2.0, 4.0]
    assert d.storage_offset() == 0


def test_as_strided__gradient_through_storage():
    x = mt.arange(9.0, requires_grad=True)
    y = x * 1
    y.as_strided_((2, 2), (1, 2))
    y.as_strided_((2, 2), (1, 2), 1)
    assert type(y.grad_fn).__name__ == "AsStridedBackward1"
    (y * mt.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    # storage position 4 was outside y's previous window: its gradient is dropped, as in torch
    assert x.grad.tolist() == [0, 1, 3, 2, 0, 0, 0, 0, 0]

    def f(t):  # the second window stays where the first one was: every output depends on t
        u = t * 1
        u.as_strided_((2, 2), (1, 2), 2)
        return u.as_strided_((2, 2), (2, 1), 2) * mt.tensor([[1.0, 2.0], [3.0, 4.0]])

    a = mt.tensor(np.random.default_rng(0).normal(size=9), requires_grad=True)
    assert gradcheck(f, (a,))
    assert gradgradcheck(f, (a,))


# --- *_copy results are row-major; split_copy & co give tuples ---


def _xp():
    return mt.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)  # strides (1, 12, 4)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("permute_copy", lambda x: mt.permute_copy(x, (1, 0, 2))),
        ("t_copy", lambda x: mt.t_copy(x[0])),
        ("transpose_copy", lambda x: mt.transpose_copy(x, 0, 2)),
        ("diagonal_copy", lambda x: mt.diagonal_copy(x)),
        ("squeeze_copy", lambda x: mt.squeeze_copy(x[:, :1])),
        ("unsqueeze_copy", lambda x: mt.unsqueeze_copy(x, 1)),
        ("select_copy", lambda x: mt.select_copy(x, 1, 0)),
        ("slice_copy", lambda x: mt.slice_copy(x, 1, 0, 1)),
        ("unfold_copy", lambda x: mt.unfold_copy(x, 0, 2, 1)),
        ("as_strided_copy", lambda x: mt.as_strided_copy(x.contiguous(), (2, 2), (1, 2))),
        ("alias_copy", lambda x: mt.alias_copy(x)),
        ("detach_copy", lambda x: mt.detach_copy(x)),
        ("narrow_copy", lambda x: mt.narrow_copy(x, 1, 0, 1)),
        ("view_copy_dtype", lambda x: mt.view_copy(x, mt.int32)),
    ],
)
def test_copy_variants_are_contiguous(name, fn):
    x = _xp()
    r = fn(x)
    assert r.is_contiguous(), (name, r.stride())
    ref = x.numpy()
    ref = {
        "permute_copy": lambda: ref.transpose(1, 0, 2),
        "t_copy": lambda: ref[0].T,
        "transpose_copy": lambda: ref.transpose(2, 1, 0),
        "diagonal_copy": lambda: np.diagonal(ref, 0, 0, 1),
        "squeeze_copy": lambda: ref[:, :1].squeeze(),
        "unsqueeze_copy": lambda: ref[:, None],
        "select_copy": lambda: ref[:, 0],
        "slice_copy": lambda: ref[:, 0:1],
        "unfold_copy": lambda: np.stack([ref[0:2], ref[1:3], ref[2:4]]).transpose(0, 2, 3, 1),
        "as_strided_copy": lambda: np.array([[0.0, 8.0], [4.0, 12.0]]),
        "alias_copy": lambda: ref,
        "detach_copy": lambda: ref,
        "narrow_copy": lambda: ref[:, 0:1],
        "view_copy_dtype": lambda: ref.astype(np.float32).view(np.int32),
    }[name]()
    np.testing.assert_array_equal(r.numpy(), ref, err_msg=name)


def test_permute_copy_views_flat_and_differentiates():
    y = mt.permute_copy(mt.arange(6.0).reshape(2, 3), (1, 0))
    assert y.stride() == (2, 1)
    assert y.view(-1).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    a = mt.tensor(np.random.default_rng(1).normal(size=(3, 4)), requires_grad=True)
    assert gradcheck(lambda t: mt.permute_copy(t, (1, 0)), (a,))
    assert gradgradcheck(lambda t: mt.t_copy(t), (a,))


def test_split_copies_are_tuples():
    a = mt.arange(12.0).reshape(3, 4)
    for parts in (mt.split_copy(a, 2, 1), mt.split_with_sizes_copy(a, [1, 3], 1)):
        assert type(parts) is tuple
        assert all(p.is_contiguous() for p in parts)
    assert [p.tolist() for p in mt.split_with_sizes_copy(a, [1, 3], 1)] == [
        [[0.0], [4.0], [8.0]],
        [[1.0, 2.0, 3.0], [5.0, 6.0, 7.0], [9.0, 10.0, 11.0]],
    ]
    with pytest.raises(TypeError, match="argument 'split_size' .* must be int, not list"):
        mt.split_copy(a, [1, 3], 1)


def test_split_copies_out_return_none():
    outs = [mt.empty(2), mt.empty(2)]
    assert mt.split_copy(mt.arange(4.0), 2, out=outs) is None
    assert [o.tolist() for o in outs] == [[0.0, 1.0], [2.0, 3.0]]
    assert mt.split_with_sizes_copy(mt.arange(4.0), [2, 2], out=outs) is None
    assert mt.unbind_copy(mt.arange(4.0).reshape(2, 2), out=outs) is None
    with pytest.raises(RuntimeError, match="expected an out= argument of size 2, got size 1"):
        mt.split_copy(mt.arange(4.0), 2, out=[mt.empty(2)])


# --- hinge_embedding_loss keeps an integer input's dtype ---


def test_hinge_embedding_loss_integer_input():
    F = mt.nn.functional
    x = mt.tensor([[1, 2], [3, -1]])
    y = mt.tensor([[1, -1], [-1, 1]])
    r = F.hinge_embedding_loss(x, y, reduction="none")
    assert r.dtype == mt.int64 and r.tolist() == [[1, 0], [0, -1]]
    r = F.hinge_embedding_loss(x, y.float(), reduction="sum")
    assert r.dtype == mt.int64 and r.item() == 0
    r = F.hinge_embedding_loss(x.int(), y, reduction="sum")
    assert r.dtype == mt.int64
    assert F.hinge_embedding_loss(x.int(), y, reduction="none").dtype == mt.int32
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.hinge_embedding_loss(x, y)
    # margin is filled into input's dtype: truncated, and uint8 wraps
    u = mt.tensor([[1, 2], [3, 0]], dtype=mt.uint8)
    r = F.hinge_embedding_loss(u, y, margin=2.7, reduction="none")
    assert r.dtype == mt.uint8 and r.tolist() == [[1, 0], [255, 0]]
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool"):
        F.hinge_embedding_loss(mt.tensor([[True, False]]), mt.tensor([[1, -1]]))
    r = mt.hinge_embedding_loss(x, y, 1.0, 0)  # the ATen spelling, reduction as an int
    assert r.dtype == mt.int64 and r.tolist() == [[1, 0], [0, -1]]


def test_hinge_embedding_loss_float_unchanged():
    F = mt.nn.functional
    a = mt.tensor(np.random.default_rng(2).normal(size=(3, 4)), requires_grad=True)
    y = mt.tensor(np.where(np.arange(12).reshape(3, 4) % 2, 1.0, -1.0))
    r = F.hinge_embedding_loss(a, y, margin=0.5, reduction="none")
    ref = np.where(y.numpy() == 1, a.detach().numpy(), np.maximum(0, 0.5 - a.detach().numpy()))
    assert r.dtype == mt.float64
    np.testing.assert_allclose(r.detach().numpy(), ref, err_msg="hinge float64")
    assert gradcheck(lambda t: F.hinge_embedding_loss(t, y, margin=0.5), (a,))


# --- histogramdd needs bins ---


def test_histogramdd_requires_bins():
    x = mt.tensor([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    with pytest.raises(TypeError, match=r"invalid combination of arguments - got \(Tensor\)"):
        mt.histogramdd(x)
    with pytest.raises(TypeError, match=r"got \(Tensor, range=list\)"):
        mt.histogramdd(x, range=[0.0, 1.0, 0.0, 1.0])
    assert mt.histogramdd(x, 2).hist.tolist() == [[0.0, 1.0], [1.0, 1.0]]
