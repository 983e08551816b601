"""Session 34 (helper gflownet): torch-free regression tests of the library fixes the GFlowNet
programs of tests/reference/test_s34_gflownet_reference.py found: nll_loss/cross_entropy with
reduction='none' write a counted row as -(logp w) (torch's -0. for a log-probability of 0, the
only valid action of a masked state; +0. for an ignored row); the gradient graph built by
create_graph has torch's nodes for a broadcast input's gradient (at::sum_to: a keepdim sum
viewed to drop leading dims, ViewBackward0; a full sum for a 0-d input, SumBackward0) and for a
Linear bias's gradient (ViewBackward0 over SumBackward1); TransformerEncoderLayer's native fast
path (eval, no gradients) reads a float mask as bool (nonzero masks), and TransformerEncoder's
nested-tensor path keeps the positions a float padding mask leaves at 0."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional
NEG_INF = float("-inf")


def _signs(t):
    return np.signbit(t.detach().numpy()).tolist()


# --- nll_loss / cross_entropy: the sign of a zero loss ---


def test_nll_none_zero_logprob_is_negative_zero():
    logp = mt.tensor([[0.0, NEG_INF], [-2.0, 0.0], [-1.0, -0.5]], dtype=mt.float64)
    out = F.nll_loss(logp, mt.tensor([0, 1, 0]), reduction="none")
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 1.0])
    assert _signs(out) == [True, True, False]
    assert str(out) == "tensor([-0., -0., 1.], dtype=torch.float64)"


def test_nll_none_ignored_row_is_positive_zero():
    logp = mt.tensor([[0.0, NEG_INF], [NEG_INF, 0.0]])
    out = F.nll_loss(logp, mt.tensor([0, -100]), reduction="none")
    assert _signs(out) == [True, False]
    out = F.nll_loss(logp, mt.tensor([1, -100]), reduction="none")
    assert out.tolist() == [float("inf"), 0.0]


def test_nll_none_weights_sign():
    logp = mt.tensor([[0.0, -1.0], [-2.0, 0.0]])
    w = mt.tensor([0.0, 2.0])
    # -(logp w): -(0 * 0) = -0, -(-2 * 0) = +0, -(0 * 2) = -0
    assert _signs(F.nll_loss(logp, mt.tensor([0, 0]), weight=w, reduction="none")) == [
        True,
        False,
    ]
    assert _signs(F.nll_loss(logp, mt.tensor([0, 1]), weight=w, reduction="none")) == [True, True]


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_nll_reduced_zero_is_positive(reduction):
    # torch's reduced loss starts from 0: 0 - 0 is +0
    out = F.nll_loss(mt.tensor([[0.0, -1.0]]), mt.tensor([0]), reduction=reduction)
    assert _signs(out) is False


def test_cross_entropy_masked_logits_none():
    logits = mt.tensor([[1.5, NEG_INF, NEG_INF], [0.2, 0.1, NEG_INF]], dtype=mt.float64)
    out = F.cross_entropy(logits, mt.tensor([0, 1]), reduction="none")
    assert _signs(out) == [True, False]
    np.testing.assert_allclose(out.numpy(), [0.0, np.log1p(np.exp(0.1))], rtol=1e-12)
    x = mt.zeros(2, 3, 2)  # K-dimensional: (N, C, d1)
    out = F.cross_entropy(
        x.masked_fill(mt.tensor([False, True, True])[:, None], NEG_INF),
        mt.zeros(2, 2, dtype=mt.long),
        reduction="none",
    )
    assert _signs(out) == [[True, True], [True, True]]


def test_nll_none_gradient_unchanged():
    x = mt.tensor([[0.3, -0.2, 1.0], [0.5, 0.1, -1.0]], dtype=mt.float64, requires_grad=True)
    t = mt.tensor([2, 0])
    assert gradcheck(lambda v: F.cross_entropy(v, t, reduction="none"), (x,))
    assert gradgradcheck(lambda v: F.cross_entropy(v, t, reduction="none"), (x,))


# --- the nodes of a gradient graph (create_graph=True) ---


@pytest.mark.parametrize(
    "shape, node",
    [((3,), "ViewBackward0"), ((), "SumBackward0"), ((1,), "ViewBackward0"),
     ((1, 3), "SumBackward1"), ((4, 1), "SumBackward1"), ((1, 1, 3), "SumBackward1"),
     ((4, 3), None)],
)  # fmt: skip
def test_broadcast_gradient_node(shape, node):
    gen = mt.Generator().manual_seed(0)
    x = mt.randn(2, 4, 3, generator=gen, dtype=mt.float64)
    if len(shape) < 3:
        x = x[0]
    b = mt.randn(shape, generator=gen, dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad((x + b).pow(2).sum(), b, create_graph=True)
    if node is None:  # not broadcast: the gradient is the product's
        node = "MulBackward0"
    assert type(g.grad_fn).__name__ == node
    assert tuple(g.shape) == shape
    want = (2 * (x + b)).detach().numpy()
    lead = want.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and want.shape[lead + i] != 1
    )
    want = want.sum(axis=axes, keepdims=True).reshape(shape)
    np.testing.assert_allclose(g.detach().numpy(), want, rtol=1e-12)
    g.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.full(shape, 2.0 * x.numel() / b.numel()))
    assert gradgradcheck(lambda v: (x * v).pow(2), (b,))


def test_linear_bias_gradient_node():
    mt.manual_seed(0)
    m = mt.nn.Linear(3, 2).double()
    for x in (
        mt.randn(4, 3, dtype=mt.float64),
        mt.randn(4, 3, dtype=mt.float64).t().contiguous().t(),
    ):
        out = m(x)
        gw, gb = mt.autograd.grad(out.pow(2).sum(), [m.weight, m.bias], create_graph=True)
        assert type(gb.grad_fn).__name__ == "ViewBackward0"
        assert [type(f).__name__ for f, _ in gb.grad_fn.next_functions] == ["SumBackward1"]
        assert type(gw.grad_fn).__name__ == "TBackward0"
        np.testing.assert_allclose(gb.detach().numpy(), (2 * out).sum(0).detach().numpy())
    x = mt.randn(4, 3, dtype=mt.float64)
    w = m.weight.detach().clone()
    b = m.bias.detach().clone().requires_grad_(True)
    assert gradcheck(lambda v: F.linear(x, w, v), (b,))
    assert gradgradcheck(lambda v: F.linear(x, w, v).pow(2), (b,))


# --- the encoder layer's native fast path reads a float mask as bool ---


def _encoder():
    mt.manual_seed(0)
    return mt.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)


def _inputs():
    gen = mt.Generator().manual_seed(1)
    x = mt.randn(3, 5, 8, generator=gen)
    pad = mt.tensor([[False] * 5, [True] + [False] * 4, [False] + [True] * 4])
    return x, pad


def test_encoder_layer_float_mask_fast_path():
    layer = _encoder().eval()
    x, pad = _inputs()
    with mt.no_grad():
        want = layer(x, src_key_padding_mask=pad)
        got = layer(x, src_key_padding_mask=pad.float())  # 1.0 masks, as True does
        odd = layer(x, src_key_padding_mask=pad.float() * 0.5 - 2.0 * pad.float())
        am = mt.tensor([[0.0, 0.5, 0.0, 0.0, 0.0]] * 5)
        both = layer(x, src_mask=am, src_key_padding_mask=pad.float())
        both_bool = layer(x, src_mask=am.bool(), src_key_padding_mask=pad)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)
    np.testing.assert_allclose(odd.numpy(), want.numpy(), atol=1e-6)
    np.testing.assert_allclose(both.numpy(), both_bool.numpy(), atol=1e-6)
    # the composed path (gradients recorded, or train mode) adds the float mask
    added = layer(x, src_key_padding_mask=pad.float()).detach()
    assert float((added - want).abs().max()) > 0.1
    layer.train()
    with mt.no_grad():
        assert float((layer(x, src_key_padding_mask=pad.float()) - want).abs().max()) > 0.1


def test_encoder_layer_fast_path_conditions():
    x, pad = _inputs()
    layer = _encoder().eval()
    layer.register_forward_hook(lambda *a: None)  # a hook: torch's composed path
    with mt.no_grad():
        a = layer(x, src_key_padding_mask=pad.float())
        b = layer(x, src_key_padding_mask=pad)
    assert float((a - b).abs().max()) > 0.1


def test_encoder_nested_path_float_mask():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = mt.nn.TransformerEncoder(_encoder(), 2).eval()
    x, _ = _inputs()
    pad = mt.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] + [True] * 4])
    with mt.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = enc(x, src_key_padding_mask=pad)
        got = enc(x, src_key_padding_mask=pad.float())
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)
    assert float(got[2, 1:].abs().max()) == 0.0  # the nested path's zeros
