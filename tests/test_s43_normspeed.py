"""The cheaper norm and loss kernels of session 43: log_softmax's data-level backward computes in
exp(out)'s array, smooth_l1/huber forwards work in place on their new arrays, huber's first-order
backward forms its difference once, and layer_norm's no-grad forward computes its result in
xhat's array. Each gives what the old formula (kept here) gives, bit for bit, with its dtype and
layout, and the recorded paths and higher-order gradients are unchanged."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import cpu as _cpu
from minitorch._ops.reduction import sum_array

F = torch.nn.functional
_select = _cpu.backend.select  # the kernels' branch-free where


def randn(*shape, dtype=torch.float32, seed=0, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def same(got, want, msg=""):
    """Bit-for-bit equality of two arrays, with their dtypes, shapes and strides."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (msg, got.dtype, want.dtype)
    assert got.shape == want.shape, (msg, got.shape, want.shape)
    assert got.strides == want.strides, (msg, got.strides, want.strides)
    assert got.tobytes() == want.tobytes(), msg


def bits(t):
    a = t.detach()
    if a.dtype is torch.bfloat16:
        a = a.view(torch.int16)
    return a.numpy()


# --- log_softmax's data-level backward --------------------------------------------------------


def _old_log_softmax_grad(grad, out, dim):
    """LogSoftmax._backward_data's formula before session 43 (float32/float64, ndim > 0)."""
    s = sum_array(np, grad, (dim,), True)
    return grad - np.exp(out) * s


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "shape,dim", [((64, 33), -1), ((64, 33), 0), ((4, 10, 7), 1), ((300, 128), -1), ((5,), 0)]
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_log_softmax_backward_matches_old_formula(dtype, shape, dim, layout):
    x = randn(*shape, dtype=dtype).requires_grad_()
    out = F.log_softmax(x, dim)
    g = randn(*shape, dtype=dtype, seed=1)
    if layout == "transposed" and len(shape) > 1:  # a non-contiguous upstream gradient
        g = randn(*shape[::-1], dtype=dtype, seed=1).permute(*range(len(shape) - 1, -1, -1))
    (gx,) = torch.autograd.grad(out, x, g)
    d = dim % len(shape)
    same(gx.numpy(), _old_log_softmax_grad(g.numpy(), out.detach().numpy(), d), (shape, dim))


def test_log_softmax_backward_signed_zero_rows_and_specials():
    # a masked loss's rows of -0. gradients (NOTE [ Signed zeros of softmax backward ]), and
    # infinite logits
    x = randn(6, 9, dtype=torch.float32)
    x[2, 3] = float("-inf")
    x = x.requires_grad_()
    out = F.log_softmax(x, -1)
    g = randn(6, 9, seed=2)
    g[1] = -0.0
    g[4, :4] = -0.0
    (gx,) = torch.autograd.grad(out, x, g)
    want = _old_log_softmax_grad(g.numpy(), out.detach().numpy(), 1)
    want[1] = 0.0  # torch's +0. for an all -0. row
    same(gx.numpy(), want)
    assert not np.signbit(gx.numpy()[1]).any()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_log_softmax_backward_half_rounds_once(dtype):
    x = randn(16, 40, dtype=dtype).requires_grad_()
    out = F.log_softmax(x, -1)
    g = randn(16, 40, dtype=dtype, seed=3)
    (gx,) = torch.autograd.grad(out, x, g)
    g32, o32 = g.float().numpy(), out.detach().float().numpy()
    want = torch.from_numpy(_old_log_softmax_grad(g32, o32, 1)).to(dtype)
    assert gx.dtype is dtype
    same(bits(gx), bits(want))


def test_log_softmax_double_backward_unchanged():
    x = randn(5, 7, dtype=torch.float64).requires_grad_()
    assert torch.autograd.gradcheck(lambda t: F.log_softmax(t, -1), (x,))
    assert torch.autograd.gradgradcheck(lambda t: F.log_softmax(t, 1), (x,))


# --- smooth_l1 and huber --------------------------------------------------------------------


def _old_smooth_l1(a, b, beta):
    d = abs(a - b)
    return _select(d < beta, d * d * (0.5 / beta), d - 0.5 * beta)


def _old_huber(a, b, delta):
    d = abs(a - b)
    return _select(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)


def _pair(shape, dtype, kind):
    a, b = randn(*shape, dtype=dtype), randn(*shape, dtype=dtype, seed=1, scale=1.0)
    if kind == "transposed" and len(shape) == 2:
        a, b = a.t(), b.t()
    elif kind == "specials":
        sp = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e30, 0.5, 1e-40])
        a = sp.to(dtype).repeat(3)
        b = sp.flip(0).to(dtype).repeat(3) * 0.5
    return a, b


CASES = [((40, 70), "plain"), ((70, 40), "transposed"), ((), "plain"), ((24,), "specials")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape,kind", CASES)
@pytest.mark.parametrize("beta", [1.0, 0.5, 3.0])
def test_smooth_l1_and_huber_forward_match_old_formula(dtype, shape, kind, beta):
    a, b = _pair(shape, dtype, kind)
    an, bn = a.numpy(), b.numpy()
    got = F.smooth_l1_loss(a, b, reduction="none", beta=beta)
    same(got.numpy(), np.asarray(_old_smooth_l1(an, bn, beta)), ("smooth_l1", shape, kind))
    got = F.huber_loss(a, b, reduction="none", delta=beta)
    same(got.numpy(), np.asarray(_old_huber(an, bn, beta)), ("huber", shape, kind))
    with torch.no_grad():  # the reduced forms read the same elementwise losses
        want = torch.from_numpy(np.asarray(_old_huber(an, bn, beta))).mean()
        same(F.huber_loss(a, b, delta=beta).numpy(), want.numpy())


def test_broadcast_target_and_half_inputs():
    a, b = randn(8, 30), randn(30, seed=1)
    with pytest.warns(UserWarning):
        got = F.huber_loss(a, b, reduction="none")
    same(got.numpy(), _old_huber(a.numpy(), np.broadcast_to(b.numpy(), (8, 30)), 1.0))
    # float16 huber and bfloat16 smooth_l1 compute in float32 and round once
    a16, b16 = randn(50, dtype=torch.float16), randn(50, dtype=torch.float16, seed=1)
    want = _old_huber(a16.float().numpy(), b16.float().numpy(), 1.0).astype(np.float16)
    same(F.huber_loss(a16, b16, reduction="none").numpy(), want)
    ab, bb = randn(50, dtype=torch.bfloat16), randn(50, dtype=torch.bfloat16, seed=1)
    got = F.smooth_l1_loss(ab, bb, reduction="none", beta=0.7)
    want = torch.from_numpy(_old_smooth_l1(ab.float().numpy(), bb.float().numpy(), 0.7))
    same(bits(got), bits(want.to(torch.bfloat16)))


@pytest.mark.parametrize("delta", [1.0, 0.25])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_huber_first_order_gradients_match_old_formula(delta, needs):
    a, b = _pair((30, 20), torch.float32, "plain")
    a[0, :3] = b[0, :3]  # d == 0: the zero's sign of each gradient (NOTE [ Regression
    a[1, :2] = b[1, :2] + delta  # losses' target gradient ]); |d| == delta: the linear branch
    a, b = a.requires_grad_(needs[0]), b.requires_grad_(needs[1])
    g = randn(30, 20, seed=4)
    loss = F.huber_loss(a, b, reduction="none", delta=delta)
    loss.backward(g)
    an, bn, gn = a.detach().numpy(), b.detach().numpy(), g.numpy()
    if needs[0]:
        same(a.grad.numpy(), np.clip(an - bn, -delta, delta) * gn)
    else:
        assert a.grad is None
    if needs[1]:
        same(b.grad.numpy(), np.clip(bn - an, -delta, delta) * gn)
    else:
        assert b.grad is None


def test_huber_higher_order_unchanged():
    a = randn(6, 5, dtype=torch.float64).requires_grad_()
    b = randn(6, 5, dtype=torch.float64, seed=1).requires_grad_()
    assert torch.autograd.gradcheck(lambda x, t: F.huber_loss(x, t, delta=0.8), (a, b))
    assert torch.autograd.gradgradcheck(lambda x, t: F.huber_loss(x, t, delta=0.8), (a, b))
    # the create_graph gradient's second derivative is 0 on the linear branch (and at |d| ==
    # delta), 1 on the quadratic one
    x = torch.tensor([0.0, 0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    t = torch.zeros(4, dtype=torch.float64)
    (gx,) = torch.autograd.grad(F.huber_loss(x, t, reduction="sum"), x, create_graph=True)
    assert gx.grad_fn is not None
    (ggx,) = torch.autograd.grad(gx.sum(), x)
    np.testing.assert_array_equal(ggx.numpy(), [1.0, 1.0, 0.0, 0.0])


# --- layer_norm's no-grad forward -----------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape,k", [((300, 128), 1), ((2050, 16), 1), ((3, 7, 40), 2), ((5,), 1)])
@pytest.mark.parametrize("affine", ["none", "weight", "bias", "both"])
def test_layer_norm_no_grad_matches_recorded(dtype, shape, k, affine):
    x = randn(*shape, dtype=dtype)
    norm = shape[len(shape) - k :]
    w = randn(*norm, dtype=dtype, seed=1) if affine in ("weight", "both") else None
    b = randn(*norm, dtype=dtype, seed=2) if affine in ("bias", "both") else None
    with torch.no_grad():
        fast = F.layer_norm(x, norm, w, b)
    xr = x.clone().requires_grad_()  # the recorded path: xhat kept apart from the result
    slow = F.layer_norm(xr, norm, w, b)
    assert slow.grad_fn is not None and fast.grad_fn is None and not fast.requires_grad
    assert fast.dtype is dtype and fast.is_contiguous()
    same(bits(fast), bits(slow))
    slow.backward(randn(*shape, dtype=dtype, seed=3))  # the recorded node still works
    assert xr.grad is not None and xr.grad.shape == x.shape


def test_layer_norm_no_grad_then_recorded_backward_unchanged():
    x = randn(64, 32).requires_grad_()
    w, b = randn(32, seed=1).requires_grad_(), randn(32, seed=2).requires_grad_()
    out = F.layer_norm(x, (32,), w, b)
    with torch.no_grad():  # a no-grad call between forward and backward changes nothing
        other = F.layer_norm(randn(64, 32, seed=5), (32,), w, b)
    g = randn(64, 32, seed=4)
    grads = torch.autograd.grad(out, (x, w, b), g)
    x2 = x.detach().clone().requires_grad_()
    w2, b2 = w.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    want = torch.autograd.grad(F.layer_norm(x2, (32,), w2, b2), (x2, w2, b2), g)
    for got, exp in zip(grads, want, strict=True):
        same(got.numpy(), exp.numpy())
    same(other.numpy(), F.layer_norm(randn(64, 32, seed=5), (32,), w, b).detach().numpy())
    with torch.inference_mode():
        inf = F.layer_norm(x, (32,), w, b)
    same(inf.numpy(), out.detach().numpy())
