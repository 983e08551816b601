"""The graph a user walks (grad_fn.next_functions) has torch's shape: a function torch runs as
one kernel is one node with an edge per tensor argument (NOTE [ Composite nodes ]), and a
node lists only the arguments torch's op differentiates. The gradients stay the inner ops'."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.composite import as_node

F = torch.nn.functional


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


def _pair(seed=0):
    torch.manual_seed(seed)
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    return x, y


def test_loss_is_one_node_with_an_edge_per_tensor_argument():
    x, y = _pair()
    loss = F.mse_loss(x * 2, y)
    assert type(loss.grad_fn).__name__ == "MseLossBackward0"
    assert _names(loss.grad_fn) == ["MulBackward0", "AccumulateGrad"]
    assert loss.grad_fn.next_functions[1][0].variable is y
    assert _names(F.mse_loss(x, y.detach()).grad_fn) == ["AccumulateGrad", None]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_composite_gradients_and_second_derivatives(reduction):
    x, y = _pair(1)
    for fn in (F.mse_loss, F.smooth_l1_loss, F.huber_loss):
        f = lambda a, b, fn=fn: fn(a, b, reduction=reduction)  # noqa: E731
        assert gradcheck(f, (x, y))
        assert gradgradcheck(f, (x, y))


def test_composite_gradient_values():
    x, y = _pair(2)
    F.mse_loss(x, y, reduction="sum").backward()
    d = x.detach().numpy() - y.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * d)
    np.testing.assert_allclose(y.grad.numpy(), -2 * d)


def test_same_tensor_twice_gets_its_whole_gradient_once():
    torch.manual_seed(3)
    m = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(4, dtype=torch.float64, requires_grad=True)
    out = torch.addr(m, v, v)  # torch lists both edges to v, as here
    assert _names(out.grad_fn) == ["AccumulateGrad", "AccumulateGrad", "AccumulateGrad"]
    out.sum().backward()  # d/dv of sum(v v^T) = 2 sum(v)
    np.testing.assert_allclose(v.grad.numpy(), 2 * v.detach().numpy().sum() * np.ones(4))
    assert gradgradcheck(lambda a, b: torch.addr(a, b, b), (m, v))


def test_freed_graph_error_and_retain_graph():
    x, y = _pair(4)
    loss = F.mse_loss(x, y)
    loss.backward(retain_graph=True)
    loss.backward()  # the retained inner nodes run again
    np.testing.assert_allclose(
        x.grad.numpy(), 2 * 2 * (x.detach().numpy() - y.detach().numpy()) / x.numel()
    )
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_hooks_and_retain_grad_on_a_composite_result():
    x, y = _pair(5)
    loss = F.mse_loss(x, y)
    seen = []
    loss.register_hook(lambda g: seen.append(float(g)) or g * 3)
    loss.retain_grad()
    loss.backward()
    assert seen == [1.0]
    d = x.detach().numpy() - y.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * d / d.size)
    node_seen = []
    x.grad = None
    loss2 = F.mse_loss(x, y)
    loss2.grad_fn.register_hook(lambda gi, go: node_seen.append(len(gi)))
    loss2.backward()
    assert node_seen == [2]


def test_autograd_grad_through_a_composite_with_create_graph():
    x, y = _pair(6)
    (gx,) = torch.autograd.grad(F.mse_loss(x, y, reduction="sum"), x, create_graph=True)
    (ggy,) = torch.autograd.grad(gx.sum(), y)
    np.testing.assert_allclose(ggy.numpy(), -2 * np.ones((3, 4)))


def test_composite_under_no_grad_records_nothing():
    x, y = _pair(7)
    with torch.no_grad():
        assert F.mse_loss(x, y).grad_fn is None


def test_non_differentiable_argument_requiring_grad_is_refused():
    torch.manual_seed(8)
    x = torch.rand(3, requires_grad=True)
    w = torch.rand(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="'binary_cross_entropy' is not differentiable with respect to argument 'weight'",
    ):
        F.binary_cross_entropy(x, torch.rand(3), weight=w)
    with pytest.raises(RuntimeError, match="argument 'pos_weight'"):
        F.binary_cross_entropy_with_logits(x, torch.rand(3), pos_weight=w)
    with pytest.raises(RuntimeError, match="'soft_margin_loss' .* argument 'target'"):
        F.soft_margin_loss(x, w)
    with torch.no_grad():  # nothing is differentiated: allowed
        F.binary_cross_entropy(x, torch.rand(3), weight=w)


def test_a_composite_reading_an_undeclared_leaf_raises():
    x, y = _pair(9)
    with pytest.raises(RuntimeError, match="not in its inputs"):
        as_node(x * y, "MyLossBackward0", (x,))


def test_multi_output_composite():
    torch.manual_seed(10)
    img = torch.randn(1, 2, 6, 6, dtype=torch.float64, requires_grad=True)
    out, idx = F.adaptive_max_pool2d(img, 3, return_indices=True)
    assert type(out.grad_fn).__name__ == "AdaptiveMaxPool2DBackward0"
    assert idx.grad_fn is None and not idx.requires_grad
    assert gradcheck(lambda a: F.adaptive_max_pool2d(a, 3), (img,))


@pytest.mark.parametrize(
    "make, want",
    [
        (lambda x, y: torch.where(x > 0, x, 0.0), ["AccumulateGrad", None]),
        (lambda x, y: x.masked_fill(x > 0, 1.0), ["AccumulateGrad"]),
        (lambda x, y: x.masked_fill(x > 0, y.sum()), ["AccumulateGrad", "SumBackward0"]),
        (lambda x, y: torch.clamp_min(x, y.detach()), ["AccumulateGrad", None]),
        (lambda x, y: torch.clamp_max(x, 0.5), ["AccumulateGrad"]),
        (lambda x, y: 1 - x, ["AccumulateGrad"]),
        (lambda x, y: torch.rsub(x, y), ["AccumulateGrad", "AccumulateGrad"]),
        (lambda x, y: 2**x, ["AccumulateGrad"]),
        (lambda x, y: F.nll_loss(x, torch.tensor([0, 1, 2])), ["AccumulateGrad"]),
    ],
    ids=[
        "where",
        "masked_fill",
        "masked_fill tensor",
        "clamp_min",
        "clamp_max",
        "1 - x",
        "rsub",
        "2 ** x",
        "nll_loss",
    ],
)
def test_nodes_list_the_differentiable_arguments(make, want):
    x, y = _pair(11)
    assert _names(make(x, y).grad_fn) == want


def test_custom_function_lists_its_tensor_arguments():
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, k, b):
            return a * k + b

        @staticmethod
        def backward(ctx, g):
            return g, None, g

    x, y = _pair(12)
    out = Scale.apply(x, 2.0, y.detach())
    assert _names(out.grad_fn) == ["AccumulateGrad", None]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 4)))


def test_linear_graph_is_addmm_of_the_weight_transpose():
    torch.manual_seed(13)
    layer = torch.nn.Linear(3, 5)
    out = layer(torch.randn(4, 3))
    # torch's addmm(bias, input, weight.t()): the input needs no grad here
    assert _names(out.grad_fn) == ["AccumulateGrad", None, "TBackward0"]
    assert out.grad_fn.next_functions[0][0].variable is layer.bias
    t_node = out.grad_fn.next_functions[2][0]
    assert t_node.next_functions[0][0].variable is layer.weight
    out.sum().backward()
    # the weight gradient arrives in the weight's own layout and is kept, not copied
    grad = layer.weight.grad
    assert grad.is_contiguous() and grad.shape == (5, 3)
    data = grad._data
    layer(torch.randn(4, 3)).sum().backward()
    assert layer.weight.grad._data is data  # accumulated in place


def test_tutorial_chain():
    """PyTorch's 60-minute tutorial prints loss.grad_fn and two steps down next_functions."""
    torch.manual_seed(14)
    net = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.ReLU(), torch.nn.Linear(6, 4))
    loss = torch.nn.MSELoss()(net(torch.randn(1, 8)), torch.randn(1, 4))
    fn = loss.grad_fn
    assert type(fn).__name__ == "MseLossBackward0"
    fn = fn.next_functions[0][0]
    assert type(fn).__name__ == "AddmmBackward0"
    assert fn.next_functions[0][0].variable is net[2].bias
    assert type(fn.next_functions[1][0]).__name__ == "ReluBackward0"


def test_lstm_layer_is_one_node_with_three_outputs():
    """torch's CPU LSTM runs each float32 layer as one kernel (MkldnnRnnLayerBackward0): the
    output, h_n and c_n come from that node; the gradients are the recorded steps'. A float64
    layer runs torch's generic kernel: its output is a StackBackward0."""
    torch.manual_seed(15)
    lstm = torch.nn.LSTM(3, 2, num_layers=2)
    seq = torch.randn(4, 1, 3, requires_grad=True)
    out, (h, c) = lstm(seq)
    node = out.grad_fn
    assert type(node).__name__ == "MkldnnRnnLayerBackward0"
    below = node.next_functions[0][0]  # the first layer's node, fed to the second
    assert type(below).__name__ == "MkldnnRnnLayerBackward0"
    assert below.next_functions[0][0].variable is seq
    assert [f.variable for f, _ in below.next_functions[1:5]] == [
        lstm.weight_ih_l0,
        lstm.weight_hh_l0,
        lstm.bias_ih_l0,
        lstm.bias_hh_l0,
    ]
    assert _names(h.grad_fn) == ["MkldnnRnnLayerBackward0", "MkldnnRnnLayerBackward0"]
    assert h.grad_fn.next_functions[1] == (node, 1) and c.grad_fn.next_functions[1] == (node, 2)

    def all_outputs(lstm, x):  # the gradient through all three outputs of the folded nodes
        out, (h, c) = lstm(x)
        return out.sum() + h.sum() + c.sum()

    (folded,) = torch.autograd.grad(all_outputs(lstm, seq), seq)
    lstm64, seq64 = lstm.double(), seq.detach().double().requires_grad_()
    assert type(lstm64(seq64)[0].grad_fn).__name__ == "StackBackward0"
    (steps,) = torch.autograd.grad(all_outputs(lstm64, seq64), seq64)
    np.testing.assert_allclose(folded.numpy(), steps.numpy(), rtol=1e-5, atol=1e-6)
    assert gradcheck(lambda x: all_outputs(lstm64, x), (seq64,))


def test_composites_and_linear_make_no_host_transfers_on_device(device):
    """Folded nodes, Linear's transpose node, the layout contract and memory formats read no
    device data back (the strict device counts every host transfer)."""
    from minitorch._backend.strict import count_transfers

    torch.manual_seed(16)
    lin = torch.nn.Linear(4, 3).to(device)
    conv = torch.nn.Conv2d(2, 3, 3).to(device).to(memory_format=torch.channels_last)
    lstm = torch.nn.LSTM(3, 2).to(device)
    x = torch.randn(5, 4, device=device, requires_grad=True)
    img = torch.randn(1, 2, 5, 5, device=device)
    with count_transfers() as c:
        h = lin(x)
        out, _ = lstm(h.unsqueeze(1))
        loss = F.mse_loss(out.squeeze(1), torch.zeros(5, 2, device=device))
        loss = (
            loss
            + F.pad(conv(img), (1, 1)).sum()
            + F.embedding(torch.tensor([0, 2], device=device), lin.weight).sum()
        )
        loss.backward()
    if device == "strict":
        assert c.count == 0
    assert lin.weight.grad.is_contiguous()
    assert conv.weight.grad.stride() == conv.weight.stride()


def test_double_backward_reaching_inner_nodes_twice():
    # the outer walk of a double backward reaches a folded function's inner nodes directly and
    # frees them before the folded node runs them again (smooth_l1_loss, huber_loss with
    # reduction='none' under pow: "Trying to backward through the graph a second time")
    rng = np.random.default_rng(0)
    F = torch.nn.functional
    for loss in (F.smooth_l1_loss, F.huber_loss):
        x = torch.tensor(rng.standard_normal((2, 3)), requires_grad=True)
        y = torch.zeros(2, 3, dtype=torch.float64)
        (g,) = torch.autograd.grad(loss(x, y, reduction="none").pow(2).sum(), x, create_graph=True)
        g.pow(2).sum().backward()
        d = x.detach().numpy()
        # g = 2 l l' with l, l' of the loss; the values checked against the closed form for
        # |d| < 1 (quadratic piece): l = d^2 / 2, g = d^3, d(g^2)/dx = 6 d^5
        small = np.abs(d) < 1
        np.testing.assert_allclose(x.grad.numpy()[small], 6 * d[small] ** 5, rtol=1e-12)
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
    x = torch.tensor(rng.standard_normal((5, 2, 3)), requires_grad=True)
    (g,) = torch.autograd.grad(lstm(x)[0].pow(2).sum(), x, create_graph=True)
    g.pow(2).sum().backward()
    assert np.isfinite(x.grad.numpy()).all() and lstm.weight_hh_l0.grad is not None
