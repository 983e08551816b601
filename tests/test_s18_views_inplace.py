"""Views whose base changed shape in place, writes through expanded views, and the checks of
in-place ops on views (NOTE [ Views of a base whose shape changed ])."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def test_view_then_base_t_inplace_on_view_grad():
    # the view keeps addressing its memory: v.add_ after b.t_() is not a transposed write
    a = torch.arange(8.0).view(2, 4).requires_grad_()
    b = a.clone()
    v = b.view(8)
    b.t_()
    v.add_(1.0)
    (v * torch.arange(8.0)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(8.0).reshape(2, 4))
    np.testing.assert_array_equal(v.detach().numpy(), np.arange(8.0) + 1)


@pytest.mark.parametrize(
    "meta, view, op, expected",
    [
        # (base's in-place shape change, the view taken before it, the write, a.grad): torch's
        (
            lambda b: b.transpose_(0, 2),
            lambda b: b.view(24),
            lambda v: v.mul_(2),
            [i * 10.0 for i in range(24)],
        ),
        (
            lambda b: b.unsqueeze_(1),
            lambda b: b[1, :, 1:],
            lambda v: v.add_(1),
            [2.0 * i for i in range(13)]
            + [28.0, 31.0, 34.0, 32.0, 39.0, 42.0, 45.0, 40.0, 50.0, 53.0, 56.0],
        ),
        (
            lambda b: b.swapdims_(1, 2),
            lambda b: b[:, 1],
            lambda v: v.mul_(3),
            [0.0, 2.0, 4.0, 6.0, 72.0, 93.0, 114.0, 135.0, 16.0, 18.0, 20.0, 22.0]
            + [24.0, 26.0, 28.0, 30.0, 300.0, 321.0, 342.0, 363.0, 40.0, 42.0, 44.0, 46.0],
        ),
        (
            lambda b: b.transpose_(0, 1),
            lambda b: b[1][:, 2],  # a view of a view
            lambda v: v.mul_(3),
            [2.0 * i for i in range(14)]
            + [252.0, 30.0, 32.0, 34.0, 327.0, 38.0, 40.0, 42.0, 402.0, 46.0],
        ),
    ],
)
def test_view_of_reshaped_base_inplace_grad(meta, view, op, expected):
    a = torch.arange(24.0).view(2, 3, 4).requires_grad_()
    b = a * 1
    v = view(b)
    meta(b)
    op(v)
    w = torch.arange(float(v.numel())).view(v.shape)
    ((v * w).sum() + (b * b).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy().reshape(-1), expected, err_msg=str(v.shape))


def test_view_of_reshaped_base_as_strided_and_backward():
    # torch: these run (minitorch raised ValueError/IndexError replaying the stale view)
    b = torch.arange(6.0, requires_grad=True).view(1, 2, 3) * 1.0
    v = b.as_strided((2, 2), (1, 2), 1)
    b.squeeze_()
    np.testing.assert_array_equal(v.relu().detach().numpy(), [[1.0, 3.0], [2.0, 4.0]])

    for meta, view in (
        (lambda b: b.squeeze_(), lambda b: b[0, :, 1:]),
        (lambda b: b.t_(), lambda b: b[:, 1:]),
    ):
        a = torch.arange(6.0, requires_grad=True)
        b = a.view(1, 2, 3) * 1.0 if view(torch.zeros(1, 2, 3)).dim() == 2 else a.view(2, 3) * 1
        v = view(b)
        meta(b)
        b.mul_(2)
        v.sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), [0.0, 2.0, 2.0, 0.0, 2.0, 2.0])


def test_view_of_reshaped_plain_base_written_with_grad_operand():
    # the base needs no grad; the value written through the view does
    b = torch.zeros(2, 4)
    v = b.view(8)
    b.t_()
    x = torch.arange(8.0, requires_grad=True)
    v.add_(x)
    w = torch.arange(8.0).view(4, 2)
    (b * w).sum().backward()
    k = np.arange(8)
    np.testing.assert_array_equal(x.grad.numpy(), 2.0 * (k % 4) + k // 4)


def test_view_of_reshaped_base_gradcheck():
    w = torch.arange(24.0, dtype=torch.float64).view(2, 3, 4)

    def f(a):
        b = a * 1
        v = b.view(24)
        u = b[1, :, 1:]
        b.transpose_(0, 2)
        v.mul_(2)
        u.add_(a[0, :, 1:] ** 2)
        return v * w.view(24) + b.reshape(24)

    a = torch.rand(2, 3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    a.requires_grad_()
    assert gradcheck(f, (a,))
    assert gradgradcheck(f, (a,))


@pytest.mark.parametrize("key, expected", [(slice(3, None), 3.0), (1, 0.0)])
def test_setitem_through_expanded_view_backward(key, expected):
    # an empty write writes nothing; a full-row write replaces the whole base (torch: grad 0)
    a = torch.ones(2, 3, requires_grad=True)
    v = (a * 1).expand(3, 2, 3)
    v[key] = 3.0
    v.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), expected))


def test_no_grad_view_of_leaf_inplace_message():
    w = torch.ones(4, 4, requires_grad=True)
    with torch.no_grad():
        head = w[:2]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode"):
        head.mul_(0.5)
    v = w[:2]  # with grad mode on: the leaf message
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable"):
        v.mul_(0.5)


def test_no_grad_view_made_in_custom_forward_inplace_message():
    class PassView(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            v = x.view(-1)
            ctx.mark_non_differentiable(v)
            return v

        @staticmethod
        def backward(ctx, grad):
            return grad

    m = torch.tensor([[1.0, 2.0]], requires_grad=True)
    v = PassView.apply(m)
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode") as e:
        v.mul_(2)
    assert "This view was created inside a custom Function" in str(e.value)
