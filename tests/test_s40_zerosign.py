"""Signed zeros at the edges (values as torch 2.13 gives them): GELU of -0. and of underflowing
negatives, fmax/fmin on a tie of 0. and -0. at any place in a tensor, the gradients of atan2,
sinc and i0 where they are zero, I1(-0.), PReLU's weight gradient for a batch of one, softplus
and pow gradients that underflow or overflow; with gradcheck/gradgradcheck of the backward
formulas these use."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional


def _bits(t):
    """(values, sign bits) of a tensor, on the host."""
    a = t.detach().cpu().float().numpy() if t.dtype in (mt.float16, mt.bfloat16) else None
    a = t.detach().cpu().numpy() if a is None else a
    return a.tolist(), np.signbit(a).tolist()


def _grads(fn, xs, up):
    out = fn(*xs)
    return mt.autograd.grad(out, xs, mt.full_like(out, up))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16, mt.bfloat16])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_keeps_the_sign_of_zero(device, dtype, approximate):
    x = mt.tensor([0.0, -0.0] * 50, dtype=dtype, device=device)
    assert _bits(F.gelu(x, approximate=approximate))[1] == [False, True] * 50


@pytest.mark.parametrize("dtype", [mt.float32, mt.float16, mt.bfloat16])
def test_gelu_of_underflowing_negatives_is_negative_zero(device, dtype):
    # x Φ(x) underflows below about -14 in float32: -0., as x * Φ(x) gives (and torch)
    big = 6.0e4 if dtype is mt.float16 else 3.0e38
    x = mt.tensor([-20.0, -30.0, -big, -5.0, 20.0] * 30, dtype=dtype, device=device)
    vals, signs = _bits(F.gelu(x))
    assert vals[:3] == [0.0, 0.0, 0.0] and signs[:3] == [True, True, True]
    assert vals[3] < 0 and vals[4] == 20.0
    assert signs == signs[:5] * 30  # the same at every place in the tensor


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16, mt.bfloat16])
@pytest.mark.parametrize("n", [1, 7, 64, 1000])
def test_fmax_fmin_tie_on_the_first_operand(device, dtype, n):
    # torch: fmax(0., -0.) is 0., fmax(-0., 0.) is -0. (float16 and float32/64); bfloat16's
    # kernels return the second operand. NumPy's float32/64 fmax picked by place in the array.
    # On a GPU torch's CUDA kernels (and CuPy's) order the zeros: fmax gives 0., fmin -0.
    a = mt.tensor([0.0, -0.0, float("nan"), -0.0] * n, dtype=dtype, device=device)
    b = mt.tensor([-0.0, 0.0, -0.0, float("nan")] * n, dtype=dtype, device=device)
    first = dtype is not mt.bfloat16
    for fn in (mt.fmax, mt.fmin):
        vals, signs = _bits(fn(a, b))
        assert vals == [0.0] * (4 * n)
        want = [not first, first, True, True] * n
        if device.startswith("cuda"):
            tie = fn is mt.fmin
            want = [tie, tie, True, True] * n
        assert signs == want, (fn.__name__, signs[:8])
    c = mt.tensor([1.0, float("nan"), -2.0, float("nan")], dtype=dtype, device=device)
    d = mt.tensor([float("nan"), 3.0, 5.0, float("nan")], dtype=dtype, device=device)
    got = mt.fmax(c, d).cpu().float().numpy()
    np.testing.assert_array_equal(got, [1.0, 3.0, 5.0, np.nan])
    np.testing.assert_array_equal(mt.fmin(c, d).cpu().float().numpy(), [1.0, 3.0, -2.0, np.nan])
    np.testing.assert_array_equal(mt.fmax(c[0], d[2]).cpu().float().numpy(), 5.0)  # 0-d


def test_atan2_gradient_at_the_origin_keeps_torchs_zero_signs():
    # (grad * b) * r and (grad * -a) * r, r = 0 where a² + b² = 0
    a = mt.tensor([0.0, -0.0, 0.0, -0.0], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([0.0, 0.0, -0.0, -0.0], dtype=mt.float64, requires_grad=True)
    ga, gb = _grads(mt.atan2, (a, b), -1.0)
    assert _bits(ga) == ([0.0] * 4, [True, True, False, False])
    assert _bits(gb) == ([0.0] * 4, [False, True, False, True])
    ga, gb = _grads(mt.atan2, (a, b), 1.0)
    assert _bits(ga) == ([0.0] * 4, [False, False, True, True])
    assert _bits(gb) == ([0.0] * 4, [True, False, True, False])
    x = mt.tensor([3.0, 1e-160], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([4.0, 0.0], dtype=mt.float64, requires_grad=True)
    ga, gb = _grads(mt.atan2, (x, y), 1.0)
    assert ga.tolist()[0] == 4.0 * (1 / 25.0) and np.isnan(ga.tolist()[1])  # 0 * (1 / 1e-320)
    assert gb.tolist() == [-3.0 * (1 / 25.0), -np.inf]


def test_atan2_twice_differentiable():
    a = mt.tensor([0.3, -2.0, 1.5], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([1.5, -0.7, -0.2], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.atan2, (a, b)) and gradgradcheck(mt.atan2, (a, b))
    z = mt.zeros(1, dtype=mt.float64, requires_grad=True)
    w = mt.zeros(1, dtype=mt.float64, requires_grad=True)
    ga, _ = mt.autograd.grad(mt.atan2(z, w), (z, w), create_graph=True)
    assert ga.tolist() == [0.0]
    (h,) = mt.autograd.grad(ga.sum(), z, allow_unused=True)
    assert np.isnan(h.tolist()[0])  # as torch's: the masked-off 1/0 meets a zero gradient


@pytest.mark.parametrize("up", [1.0, -1.0, -0.0])
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_sinc_gradient_at_zero_is_positive_zero(up, dtype):
    x = mt.tensor([0.0, -0.0, 0.5], dtype=dtype, requires_grad=True)
    (g,) = _grads(mt.sinc, (x,), up)
    vals, signs = _bits(g)
    assert vals[:2] == [0.0, 0.0] and signs[:2] == [False, False]
    assert vals[2] == pytest.approx(-4.0 / np.pi * up, rel=1e-6) or up == -0.0


def test_sinc_twice_differentiable_through_zero():
    x = mt.tensor([0.0, -0.0, 1e-3, 0.3, -0.0009, 2.5], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.sinc, (x,)) and gradgradcheck(mt.sinc, (x,))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_i1_of_negative_zero_is_positive_zero(dtype):
    x = mt.tensor([-0.0, 0.0, -1.0] * 20, dtype=dtype)
    for fn in (mt.special.i1, mt.special.i1e):
        vals, signs = _bits(fn(x))
        assert signs[:3] == [False, False, True] and vals[:2] == [0.0, 0.0]
    for up, sign in ((1.0, False), (-1.0, True)):  # i0's gradient, grad * I1(a), at -0.
        xr = mt.tensor([-0.0], dtype=dtype, requires_grad=True)
        (g,) = _grads(mt.i0, (xr,), up)
        assert _bits(g) == ([0.0], [sign])


def test_i0_i1_twice_differentiable():
    x = mt.tensor([-0.0, 0.4, -2.5, 9.0], dtype=mt.float64, requires_grad=True)
    for fn in (mt.i0, mt.special.i1):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))
    x = mt.tensor([0.4, -2.5, 9.0], dtype=mt.float64, requires_grad=True)  # exp(-|x|): a kink at 0
    for fn in (mt.special.i1e, mt.special.i0e):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_prelu_weight_gradient_of_a_batch_of_one_keeps_negative_zero():
    # the weight broadcasts as (1, C, 1, ...) (torch's view): no dim is summed for N = 1
    x = mt.tensor([[-0.0, 0.0, -2.0]], requires_grad=True)
    w = mt.tensor([0.25, 0.25, 0.25], requires_grad=True)
    _, gw = _grads(F.prelu, (x, w), 1.0)
    assert _bits(gw) == ([0.0, 0.0, -2.0], [True, False, True])
    _, gw = _grads(F.prelu, (x, w), -1.0)
    assert _bits(gw) == ([0.0, 0.0, 2.0], [False, True, False])
    y = F.prelu(x, w)
    assert type(y.grad_fn.next_functions[1][0]).__name__ == "ViewBackward0"


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (1, 3)])
def test_prelu_channel_weight_twice_differentiable(shape):
    rng = np.random.default_rng(1)
    x = mt.tensor(rng.standard_normal(shape), requires_grad=True)
    w = mt.tensor([0.25, -0.5, 1.5], dtype=mt.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w)) and gradgradcheck(F.prelu, (x, w))
    assert F.prelu(x, w).shape == x.shape


def test_softplus_tails_as_torch():
    # (grad e) / (e + 1), e = exp(β a): a subnormal gradient far below 0 in float32 (not 0),
    # and log1p(exp(β a)): inf, with a NaN gradient, where a threshold past 88 lets e overflow
    x = mt.tensor([-100.0, 100.0, -0.0, 1.0], requires_grad=True)
    y = F.softplus(x, threshold=1000.0)
    (g,) = mt.autograd.grad(y, x, mt.ones(4))
    out, grad = y.tolist(), g.tolist()
    assert out[1] == np.inf and out[3] == pytest.approx(np.log1p(np.e), rel=1e-6)
    assert 0 < grad[0] < 1e-43 and np.isnan(grad[1]) and grad[2] == 0.5
    (g,) = mt.autograd.grad(F.softplus(x), x, mt.ones(4))  # threshold 20: the linear branch
    assert g.tolist()[1] == 1.0 and 0 < g.tolist()[0] < 1e-43


@pytest.mark.parametrize("beta, threshold", [(1.0, 20.0), (2.0, 5.0), (0.5, 1000.0)])
def test_softplus_twice_differentiable(beta, threshold):
    x = mt.tensor([-3.0, -0.2, 0.4, 1.7, 6.0], dtype=mt.float64, requires_grad=True)

    def f(t):
        return F.softplus(t, beta=beta, threshold=threshold)

    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_pow_base_gradient_in_torchs_order():
    # grad * (b * a ** (b - 1)): a -0. gradient meets the overflowing 20 * 100 ** 19 as NaN
    a = mt.tensor([100.0, -100.0, 2.0], requires_grad=True)
    b = mt.tensor([20.0, 20.0, 3.0], requires_grad=True)
    ga, _ = _grads(mt.pow, (a, b), -0.0)
    vals, signs = _bits(ga)
    assert np.isnan(vals[0]) and np.isnan(vals[1]) and vals[2] == 0.0 and signs[2]
    x = mt.tensor([0.7, 1.3, 2.2], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([-1.2, 2.5, 0.4], dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.pow, (x, y)) and gradgradcheck(mt.pow, (x, y))


def test_softplus_zero_dim_and_transposed(device):
    x = mt.tensor(0.5, device=device, requires_grad=True)
    y = F.softplus(x, beta=2.0)
    y.backward()
    assert y.item() == pytest.approx(np.log1p(np.e) / 2, rel=1e-6)
    assert x.grad.item() == pytest.approx(1 / (1 + np.exp(-1.0)), rel=1e-6)
    w = mt.tensor([[0.5, -1.0], [2.0, 30.0]], device=device, requires_grad=True)
    (g,) = mt.autograd.grad(F.softplus(w.t()), w, mt.ones(2, 2, device=device))
    want = 1 / (1 + np.exp(-np.array([[0.5, -1.0], [2.0, 30.0]])))
    want[1, 1] = 1.0  # above the threshold
    np.testing.assert_allclose(g.cpu().numpy(), want, rtol=1e-6)
