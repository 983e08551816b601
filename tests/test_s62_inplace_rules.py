"""Session 62: in-place rules where minitorch differed from torch (tests/reference/
test_s62_inplace_rules_reference.py compares each with torch):

- a view whose base was resized, set_ or given new .data answers is_leaf/grad_fn (it raised);
- resize_ of a tensor that requires grad is allowed in inference mode;
- x[basic key] = v where v, broadcast, is the written part itself (x[None] = x) writes;
  x[index tensor] = x and a scatter_ from a detached alias of self are refused;
- autograd's refusals of an in-place change come before the op's own checks.
"""

import pytest

import minitorch as torch

LEAF = "a leaf Variable that requires grad is being used in an in-place operation"
OVERLAP = "some elements of the input tensor and the written-to tensor refer to a single"


def _c():
    return torch.tensor([[1.0, 2.0, -3.0], [0.5, -0.5, 1.5]], dtype=torch.float64)


@pytest.mark.parametrize("change", ["resize", "set_", "data"])
def test_a_view_of_a_base_given_other_memory_is_a_leaf(change):
    c = _c()
    t = c.T
    if change == "resize":
        c.resize_(1, 3)
    elif change == "set_":
        c.set_(torch.zeros(4, dtype=torch.float64))
    else:
        c.data = torch.zeros(4, dtype=torch.float64)
    assert t.is_leaf and t.grad_fn is None
    assert "grad_fn" not in repr(t)
    assert t.tolist() == [[1.0, 0.5], [2.0, -0.5], [-3.0, 1.5]]
    # history recorded through it cannot be replayed on the base: a clear error by backward
    w = torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):
        t.mul_(w)
        c.sum().backward()


def test_resize_in_inference_mode_of_a_leaf_that_requires_grad():
    r = torch.tensor([[0.4, -0.9, 1.1]], dtype=torch.float64, requires_grad=True)
    with torch.no_grad(), pytest.raises(RuntimeError, match="cannot resize variables"):
        r.resize_(3)
    with torch.inference_mode():
        r.resize_(2)
    assert r.shape == (2,) and r.requires_grad and r.is_leaf and not r.is_inference()
    (r * 2).sum().backward()
    assert r.grad.tolist() == [2.0, 2.0]


def test_resize_as_in_inference_mode_refits_an_earlier_graph():
    r = torch.tensor([[0.4, -0.9, 1.1]], dtype=torch.float64, requires_grad=True)
    y = (r * 3).sum()
    with torch.inference_mode():
        r.resize_as_(torch.ones(2, 1, 3))
    y.backward()  # the (1, 3) gradient is broadcast into the leaf's new shape, as torch's
    assert r.grad.shape == (2, 1, 3) and r.grad.eq(3).all()


def test_resize_in_inference_mode_of_a_non_leaf():
    t = torch.ones(3, requires_grad=True) * 1
    with torch.inference_mode():
        t.resize_(5)
    assert t.requires_grad and t.shape == (5,)


def test_setitem_of_itself_through_a_new_dim_is_recorded():
    b = torch.tensor([0.3, -1.1, 0.7], dtype=torch.float64, requires_grad=True)
    t = b * 2
    t[None] = t
    assert type(t.grad_fn).__name__ == "CopySlices"
    assert t.tolist() == pytest.approx([0.6, -2.2, 1.4])
    t.sum().backward()
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize(
    "case",
    ["row", "unsqueezed", "expanded"],
)
def test_setitem_of_itself_broadcast_writes(case):
    a = _c()
    if case == "row":
        r = a[:1]
        r[:] = r[-1]
        assert r.tolist() == [[1.0, 2.0, -3.0]]
    elif case == "unsqueezed":
        b = a[0]
        u = b.unsqueeze(0)
        u[:] = b
        assert u.tolist() == [[1.0, 2.0, -3.0]]
    else:
        e = a.expand(2, *a.shape)
        e[...] = a
    assert a.tolist() == _c().tolist()


def test_index_put_of_itself_is_refused():
    t = torch.tensor([[1.0, 2.0, -3.0]])
    with pytest.raises(RuntimeError, match=OVERLAP):
        t[torch.tensor([0])] = t


def test_scatter_from_a_detached_alias_is_refused():
    c = _c()
    with pytest.raises(RuntimeError, match=OVERLAP):
        c.data.scatter_(0, torch.zeros(2, 3, dtype=torch.long), c)
    with pytest.raises(RuntimeError, match=OVERLAP):
        c.add_(c.detach()[1:])


def test_add_of_a_copy_is_not_an_overlap():
    c = _c()
    c.add_(c.detach()[1:].clone())
    assert c.tolist() == [[1.5, 1.5, -1.5], [1.0, -1.0, 3.0]]


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.t_(),
        lambda d: d.squeeze_(5),
        lambda d: d.unsqueeze_(9),
        lambda d: d.transpose_(0, 7),
        lambda d: d.swapaxes_(0, 9),
        lambda d: d.as_strided_((20,), (1,)),
        lambda d: torch.as_strided_(d, (20,), (1,)),
        lambda d: d.index_add_(0, torch.tensor([0]), d[:1].detach()),
        lambda d: d.index_copy_(0, torch.tensor([0]), d[:1].detach()),
        lambda d: d.put_(torch.tensor([0]), d.detach()[0, 0]),
    ],
    ids=[
        "t_",
        "squeeze_",
        "unsqueeze_",
        "transpose_",
        "swapaxes_",
        "as_strided_",
        "as_strided_fn",
        "index_add_",
        "index_copy_",
        "put_",
    ],
)
def test_the_leaf_refusal_comes_before_the_ops_checks(call):
    d = torch.ones(2, 1, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF):
        call(d)


def test_an_argument_type_error_still_comes_first():
    d = torch.ones(2, 1, 3, requires_grad=True)
    with pytest.raises(TypeError, match="unsqueeze_"):
        d.unsqueeze_("x")


def test_the_ops_own_checks_without_autograd():
    d = torch.ones(2, 1, 3)
    with pytest.raises(RuntimeError, match="t_\\(\\) expects a tensor with <= 2 dimensions"):
        d.t_()
    with pytest.raises(IndexError, match="Dimension out of range"):
        d.squeeze_(5)
    with pytest.raises(RuntimeError, match=OVERLAP):
        d.index_add_(0, torch.tensor([0]), d[:1])


@pytest.mark.parametrize("shape", [(2,), (2, 2)])
def test_backward_after_a_saved_leaf_took_data_of_another_shape(shape):
    message = (
        "The size of tensor a \\(3\\) must match the size of tensor b \\(2\\) at non-singleton "
        "dimension 1"
    )
    b = torch.tensor([[0.3, -1.1, 0.7]], dtype=torch.float64, requires_grad=True)
    y = (b * b).sum()
    b.data = torch.ones(*shape, dtype=torch.float64)
    with pytest.raises(RuntimeError, match=message):  # (NumPy's ValueError, reworded)
        y.backward()


def test_other_value_errors_of_a_backward_pass_unchanged():
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("mine")

    with pytest.raises(ValueError, match="mine"):
        Bad.apply(torch.ones(2, requires_grad=True)).sum().backward()


def test_set_in_grad_mode_is_recorded_by_a_node_that_refuses_backward():
    a = torch.tensor([[0.5, -1.25, 2.0]], dtype=torch.float64, requires_grad=True)
    t = a * 2
    t.set_()
    assert t.shape == (0,) and t.requires_grad and not t.is_leaf
    assert type(t.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for set_ is not implemented"):
        t.sum().backward()
    c = torch.zeros(1, 3, dtype=torch.float64)
    c.set_(a)  # a source that requires grad: c takes history too
    assert c.requires_grad and not c.is_leaf
    assert [n is None for n, _ in c.grad_fn.next_functions] == [True, False]
    with pytest.raises(RuntimeError, match="derivative for set_ is not implemented"):
        (c * 2).sum().backward()
    assert not torch.zeros(1, 3, dtype=torch.float64).set_(a.detach()).requires_grad
    with pytest.raises(RuntimeError, match=LEAF):
        a.set_(torch.zeros(2, dtype=torch.float64))


def test_setitem_with_index_tensors_refuses_a_leaf_before_checking_the_indices():
    a = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF):
        a[torch.tensor([5])] = 1.0  # out of bounds, but the leaf is refused first
    with pytest.raises(RuntimeError, match=LEAF):
        a[torch.tensor([0])] = torch.ones(2, 3, dtype=torch.float64)  # (a shape mismatch too)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        a[0, torch.tensor([7])] = 1.0  # index_put_ of the view a[0]
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0"):
        a[5, torch.tensor([0])] = 1.0  # the int's select comes first
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        a[9] = 1.0  # no index tensor: no index_put_


def test_the_gradient_of_squeeze_and_unsqueeze_under_create_graph():
    b = torch.tensor([0.3, -1.1, 0.7], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(b.squeeze().exp().sum(), b, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0"  # nothing squeezed: passed through
    (g,) = torch.autograd.grad(b.unsqueeze(0).exp().sum(), b, create_graph=True)
    assert type(g.grad_fn).__name__ == "SqueezeBackward1"
    x = (b.reshape(1, 3, 1, 1) * 1).squeeze((0, 2))
    (g,) = torch.autograd.grad((x * x).sum(), b, create_graph=True)
    assert g.tolist() == pytest.approx([0.6, -2.2, 1.4])
    (h,) = torch.autograd.grad(g.sum(), b)
    assert h.tolist() == [2.0, 2.0, 2.0]
