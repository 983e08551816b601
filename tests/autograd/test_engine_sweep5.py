"""Engine details found by the fifth drop-in sweep."""

import minitorch


class _ReturnsLeafGrad(minitorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g.clone().requires_grad_()


def test_stored_grad_never_requires_grad_without_create_graph():
    a = minitorch.ones(2, requires_grad=True)
    a.register_hook(lambda g: g.clone().requires_grad_())
    (a * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0] and not a.grad.requires_grad
    b = minitorch.ones(2, requires_grad=True)
    _ReturnsLeafGrad.apply(b).sum().backward()
    assert b.grad.tolist() == [1.0, 1.0] and not b.grad.requires_grad


def test_create_graph_inside_inference_mode_records_nothing():
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w**2).sum()
    with minitorch.inference_mode():
        loss.backward(create_graph=True)
    assert w.grad.tolist() == [2.0, 4.0] and not w.grad.requires_grad


def test_func_transforms_inside_inference_mode():
    x = minitorch.tensor([1.0, 2.0])
    with minitorch.inference_mode():
        g = minitorch.func.grad(lambda t: (t**2).sum())(x)
        _, vjp_fn = minitorch.func.vjp(lambda t: t**2, x)
        (v,) = vjp_fn(minitorch.ones(2))
    assert g.tolist() == [2.0, 4.0]
    assert v.tolist() == [2.0, 4.0]


def test_plain_backward_accumulates_in_place_into_a_grad_in_the_graph():
    # after backward(create_graph=True), .grad has a graph; a later plain backward adds into
    # it in place (as torch), so it keeps its grad_fn instead of turning into a new tensor
    w = minitorch.tensor([1.0, 2.0], requires_grad=True)
    (w**3).sum().backward(create_graph=True)
    g = w.grad
    (w**2).sum().backward()
    assert w.grad is g and w.grad.requires_grad
    assert type(w.grad.grad_fn).__name__ == "CopyBackwards"
    assert w.grad.tolist() == [5.0, 16.0]
