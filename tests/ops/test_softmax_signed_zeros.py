"""Signed zeros in softmax/log_softmax gradients (torch's CPU signs, read with np.signbit).

A masked loss sends -0. gradients into the padded rows; torch's CPU kernels give those rows +0.
over the last dim and keep -0. over other dims (NOTE [ Signed zeros of softmax backward ] in
minitorch/_ops/nn_kernels.py). Also: masked_fill's broadcast error names the mask "tensor a".
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional
OPS = {"log_softmax": F.log_softmax, "softmax": F.softmax}
DTYPES = [mt.float32, mt.float64, mt.float16]


def _signs(t) -> str:
    return "".join("-" if b else "+" for b in np.signbit(t.detach().double().numpy()).ravel())


def _grad_of(op, x_np, g_np, dim, dtype, create_graph):
    """x.grad of op(x, dim) for the upstream gradient g: through the array-level backward
    (create_graph=False) or the Tensor-level one (create_graph=True)."""
    x = mt.tensor(x_np, dtype=dtype, requires_grad=True)
    g = mt.tensor(g_np, dtype=dtype)
    (gx,) = mt.autograd.grad(OPS[op](x, dim), x, g, create_graph=create_graph)
    return gx


# rows of zero gradients: all -0. (torch: +0. over the last dim), and -0./+0. mixed (kept)
ROWS = np.array([[-0.0, -0.0, -0.0, -0.0], [-0.0, 0.0, -0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
X = np.array([[0.5, 1.0, -1.0, 2.0], [2.0, 0.1, 0.3, -0.2], [0.0, 1.0, 2.0, 3.0]])


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_last_dim_rows_of_negative_zeros_give_positive_zeros(op, dtype, create_graph):
    gx = _grad_of(op, X, ROWS, -1, dtype, create_graph)
    assert _signs(gx) == "++++" + "-+-+" + "++++", (op, dtype)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_other_dims_keep_negative_zeros(op, dtype, create_graph):
    # along dim 0 the columns are reduced; torch's sum there starts from +0.: -0. stays -0.
    gx = _grad_of(op, X.T.copy(), ROWS.T.copy(), 0, dtype, create_graph)
    assert _signs(gx.T) == "----" + "-+-+" + "++++", (op, dtype)
    # a trailing size-1 dim makes dim 0 no last dim either
    gx = _grad_of(op, X[0][:, None], ROWS[0][:, None], 0, dtype, create_graph)
    assert _signs(gx) == "----", (op, dtype)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("op", sorted(OPS))
def test_zero_dim_and_one_element_rows(op, create_graph):
    gx = _grad_of(op, np.array(0.5), np.array(-0.0), 0, mt.float32, create_graph)
    assert _signs(gx) == "+"
    gx = _grad_of(op, np.array([[0.5], [1.0]]), np.array([[-0.0], [0.0]]), 1, mt.float32, False)
    assert _signs(gx) == "++"


@pytest.mark.parametrize("op", sorted(OPS))
def test_big_rows_through_the_matrix_vector_sums(op):
    # 64 x 300 float32: _sum_last's gemv path; every third row all -0., the others random
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 300))
    g = rng.standard_normal((64, 300))
    g[::3] = -0.0
    gx = _grad_of(op, x, g, 1, mt.float32, False).numpy()
    assert not np.signbit(gx[::3]).any(), op
    keep = np.ones(64, bool)
    keep[::3] = False
    xs = x[keep] - x[keep].max(1, keepdims=True)
    out = np.exp(xs) / np.exp(xs).sum(1, keepdims=True)
    gk = g[keep]
    if op == "softmax":
        want = out * (gk - (gk * out).sum(1, keepdims=True))
    else:
        want = gk - out * gk.sum(1, keepdims=True)
    np.testing.assert_allclose(gx[keep], want, rtol=1e-4, atol=1e-6, err_msg=op)


def test_masked_language_model_loss_padded_rows():
    logits = mt.tensor([[0.5, 1.0, -1.0], [2.0, 0.1, 0.3]], requires_grad=True)
    mask = mt.tensor([[1.0], [0.0]])
    (-(F.log_softmax(logits, -1) * mask).sum()).backward()
    assert _signs(logits.grad[1]) == "+++"
    x = mt.tensor([0.5, 1.0], requires_grad=True)
    F.softmax(x, 0).backward(mt.tensor([-0.0, -0.0]))
    assert _signs(x.grad) == "++"


def test_cross_entropy_negative_zero_upstream():
    x = mt.tensor(X[:, :3], requires_grad=True)
    loss = F.cross_entropy(x, mt.tensor([1, 2, 0]), reduction="none")
    (-(loss * mt.tensor([1.0, 0.0, 0.0]))).sum().backward()
    assert _signs(x.grad[1:]) == "++++++"


@pytest.mark.parametrize("op", sorted(OPS))
def test_second_derivatives_through_fixed_rows(op):
    # the Tensor-level backward's sign fix must not change d(grad_x)/d(grad): v . grad_x
    # differentiated in the upstream gradient g at a row of -0.
    x = mt.tensor(X, dtype=mt.float64, requires_grad=True)
    g = mt.tensor(ROWS, dtype=mt.float64, requires_grad=True)
    v = np.random.default_rng(1).standard_normal(X.shape)
    (gx,) = mt.autograd.grad(OPS[op](x, 1), x, g, create_graph=True)
    (gg,) = mt.autograd.grad((gx * mt.tensor(v)).sum(), g)
    e = np.exp(X - X.max(1, keepdims=True))
    y = e / e.sum(1, keepdims=True)
    want = v - (v * y).sum(1, keepdims=True) if op == "log_softmax" else y * v
    if op == "softmax":
        want = want - y * (y * v).sum(1, keepdims=True)
    np.testing.assert_allclose(gg.numpy(), want, rtol=1e-12, atol=1e-12, err_msg=op)
    for dim in (0, 1):
        a = mt.tensor(X, dtype=mt.float64, requires_grad=True)
        assert gradcheck(lambda t, d=dim: OPS[op](t, d), (a,))
        assert gradgradcheck(lambda t, d=dim: OPS[op](t, d), (a,))


@pytest.mark.parametrize("op", sorted(OPS))
def test_no_host_reads_on_a_device(op):
    x = mt.tensor(X, device="strict", requires_grad=True)
    g = mt.tensor(ROWS, dtype=mt.float32, device="strict")
    with count_transfers() as transfers:
        OPS[op](x, 1).backward(g)
        (gx,) = mt.autograd.grad(OPS[op](x, 1), x, g, create_graph=True)
    assert transfers.count == 0


@pytest.mark.parametrize(
    ("shape", "mask", "a", "b", "dim"),
    [((2, 3), (2,), 2, 3, 1), ((2, 3), (4, 3), 4, 2, 0), ((2, 1, 3), (4, 2), 2, 3, 2)],
)
def test_masked_fill_broadcast_error_names_the_mask_first(shape, mask, a, b, dim):
    x = mt.zeros(*shape)
    m = mt.ones(*mask, dtype=mt.bool)
    msg = f"tensor a \\({a}\\) must match the size of tensor b \\({b}\\) at non-singleton "
    for value in (0.0, mt.tensor(1.0)):
        with pytest.raises(RuntimeError, match=msg + f"dimension {dim}"):
            x.masked_fill(m, value)
        with pytest.raises(RuntimeError, match=msg + f"dimension {dim}"):
            mt.masked_fill(x, m, value)
    # the in-place form names input first, as torch's masked_fill_ does
    with pytest.raises(RuntimeError, match=f"tensor a \\({b}\\) must match .* b \\({a}\\)"):
        x.masked_fill_(m, 0.0)
