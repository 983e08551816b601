"""Ops results and overlap checks against torch 2.13's behaviour: index_add_/index_copy_/put_
refuse a source sharing any of the written memory, index_fill_/masked_fill_ read a 0-d value
taken from self first, matmul's reshaped results are tensors of their own (not views), and an
empty median keeps its own node. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

_OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single memory"


def _x():
    return minitorch.arange(6.0).view(2, 3)


# --- index_add_ / index_copy_ / put_: no overlap at all (torch's assert_no_overlap) ---


@pytest.mark.parametrize(
    "write",
    [
        lambda x: x.index_add_(0, minitorch.tensor([1, 0]), x),  # a view, written with itself
        lambda x: x[:1].index_add_(0, minitorch.tensor([0]), x[:1]),
        lambda x: x.view(-1)[:4].index_add_(0, minitorch.tensor([0, 1]), x.view(-1)[2:4]),
        lambda x: x.index_copy_(0, minitorch.tensor([1, 0]), x),
        lambda x: x[:1].index_copy_(0, minitorch.tensor([0]), x[:1]),
        lambda x: x.view(-1)[:4].index_copy_(0, minitorch.tensor([0, 1]), x.view(-1)[2:4]),
        # one element seen with other strides: still the same memory
        lambda x: x[:1, :1].index_add_(0, minitorch.tensor([0]), x.view(-1)[:1].view(1, 1)),
    ],
)
def test_index_add_copy_refuse_self_overlap(write):
    x = _x()
    with pytest.raises(RuntimeError, match=_OVERLAP):
        write(x)
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3), err_msg="written")


@pytest.mark.parametrize(
    "op",
    [
        lambda r: r.index_add_(0, minitorch.tensor([0, 1]), r),
        lambda r: r.index_copy_(0, minitorch.tensor([0, 1]), r),
        lambda r: r.put_(minitorch.tensor([1, 0]), r),
    ],
)
def test_root_written_with_itself_refused(op):
    with pytest.raises(RuntimeError, match=_OVERLAP):
        op(minitorch.arange(2.0))


def test_index_add_copy_allowed_layouts():
    # disjoint parts of one tensor, a non-dense (strided) pair and an expanded source: torch
    # computes these
    x = _x()
    x[:1].index_add_(0, minitorch.tensor([0]), x[1:])
    np.testing.assert_array_equal(x.numpy(), [[3.0, 5.0, 7.0], [3.0, 4.0, 5.0]])
    x = _x()
    x[:1].index_copy_(0, minitorch.tensor([0]), x[1:])
    np.testing.assert_array_equal(x.numpy(), [[3.0, 4.0, 5.0], [3.0, 4.0, 5.0]])
    r = minitorch.arange(4.0)
    r[::2].index_add_(0, minitorch.tensor([0, 1]), r[1::2])
    np.testing.assert_array_equal(r.numpy(), [1.0, 1.0, 5.0, 3.0])
    x = _x()
    x[:, :2].index_add_(1, minitorch.tensor([0, 1]), x[:, :2])
    np.testing.assert_array_equal(x.numpy(), [[0.0, 2.0, 2.0], [6.0, 8.0, 5.0]])
    r = minitorch.arange(2.0)
    r.index_add_(0, minitorch.tensor([0, 1]), r[:1].expand(2))
    np.testing.assert_array_equal(r.numpy(), [0.0, 1.0])
    e = _x()[:0]
    e.index_add_(0, minitorch.tensor([], dtype=minitorch.int64), e)  # empty: nothing to overlap


# --- index_fill_ / masked_fill_: a 0-d value taken from self is read before the write ---


def test_fill_value_element_of_self():
    x = _x()
    x.index_fill_(0, minitorch.tensor([0]), x[0, 1])
    np.testing.assert_array_equal(x.numpy(), [[1.0, 1.0, 1.0], [3.0, 4.0, 5.0]])
    x = _x()
    x.index_fill_(0, minitorch.tensor([0]), x[1, 1])
    np.testing.assert_array_equal(x.numpy(), [[4.0, 4.0, 4.0], [3.0, 4.0, 5.0]])
    x = _x()
    x.masked_fill_(minitorch.ones(2, 3, dtype=minitorch.bool), x[0, 2])
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 2.0))
    r = minitorch.tensor(3.0)  # a 0-d root filled with itself
    r.masked_fill_(minitorch.tensor(True), r)
    assert r.item() == 3.0


def test_fill_value_element_of_self_gradients():
    a = minitorch.arange(6.0).view(2, 3).requires_grad_()
    y = a * 1
    y.index_fill_(0, minitorch.tensor([0]), y[1, 1])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, 0.0, 0.0], [1.0, 4.0, 1.0]])
    a = minitorch.arange(6.0).view(2, 3).requires_grad_()
    y = a * 1
    mask = minitorch.tensor([[True, False, True], [False, False, False]])
    y.masked_fill_(mask, y[1, 1])
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, 1.0, 0.0], [1.0, 3.0, 1.0]])


# --- matmul: reshaped products are tensors of their own ---

_MATMUL_SHAPES = [
    ((2,), (2, 3)),
    ((4, 3, 2), (2, 5)),
    ((4, 3, 2), (2,)),
    ((2,), (4, 2, 3)),
    ((2, 4, 3, 2), (2,)),
    ((2,), (2, 4, 2, 3)),
]


@pytest.mark.parametrize("sa,sb", _MATMUL_SHAPES)
def test_matmul_result_is_not_a_view(sa, sb):
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal(sa), rng.standard_normal(sb)
    a = minitorch.tensor(an, requires_grad=True)
    b = minitorch.tensor(bn, requires_grad=True)
    out = a @ b
    assert out._base is None and not out._is_view()
    np.testing.assert_allclose(out.detach().numpy(), an @ bn, rtol=1e-12, err_msg=str((sa, sb)))
    with minitorch.no_grad():
        assert (a @ b)._base is None
    out.relu_()
    assert type(out.grad_fn).__name__ == "ReluBackward0"
    # the gradient through the in-place relu: grad * (out > 0), pulled back through the product
    g = rng.standard_normal(out.shape)
    out.backward(minitorch.tensor(g))
    gm = g * ((an @ bn) > 0)
    a2 = an[None, :] if len(sa) == 1 else an
    b2 = bn[:, None] if len(sb) == 1 else bn
    g2 = np.expand_dims(gm, -2 if len(sa) == 1 else -1) if min(len(sa), len(sb)) == 1 else gm
    ga = g2 @ np.swapaxes(b2, -1, -2)
    gb = np.swapaxes(a2, -1, -2) @ g2
    ga = ga.reshape((-1,) + sa).sum(0) if ga.ndim > len(sa) else ga.reshape(sa)
    gb = gb.reshape((-1,) + sb).sum(0) if gb.ndim > len(sb) else gb.reshape(sb)
    np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-12, err_msg="grad a")
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-12, err_msg="grad b")
    args = (a.detach().requires_grad_(), b.detach().requires_grad_())
    assert gradcheck(lambda x, y: x @ y, args)
    assert gradgradcheck(lambda x, y: x @ y, args)


def test_matmul_node_names_and_versions():
    w = minitorch.ones(2, 2, requires_grad=True)
    x = minitorch.ones(2, 3, 2, requires_grad=True)
    o = x @ w
    assert type(o.grad_fn).__name__ == "UnsafeViewBackward0"
    assert o._version == 0
    p = minitorch.ones(2, requires_grad=True) @ w
    assert type(p.grad_fn).__name__ == "SqueezeBackward4"
    assert p._version == 1  # torch squeezes the row in place
    p.mul_(2)
    assert type(p.grad_fn).__name__ == "MulBackward0" and p._version == 2
    p.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 2), 2.0))


# --- median of an empty tensor ---


@pytest.mark.parametrize(
    "op,name", [("median", "MedianBackward0"), ("nanmedian", "NanmedianBackward0")]
)
def test_empty_median_node(op, name):
    a = minitorch.ones(3, 0, requires_grad=True)
    r = getattr(a, op)()
    assert type(r.grad_fn).__name__ == name
    assert np.isnan(r.item())
    assert type(r.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    r.backward()
    assert tuple(a.grad.shape) == (3, 0)
