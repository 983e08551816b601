"""Half-precision activations round once, as torch's kernels: the forward of each composite
activation is computed in float32 from the half input and rounded to the half dtype once, and so
is the backward of those torch fuses into one kernel (silu, sigmoid, tanh, softplus, elu, mish,
hardswish, logsigmoid, log_softmax). Rounding each intermediate step in half precision (as these
did) put 10-50% of a half SwiGLU MLP's outputs and gradients one unit in the last place away from
torch's. tests/reference/test_half_activations_reference.py checks the same bits against torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

X = np.random.default_rng(0).uniform(-6, 6, 2048).astype(np.float32)
G = np.random.default_rng(1).uniform(-2, 2, 2048).astype(np.float32)

FORWARD = {
    "silu": F.silu,
    "leaky_relu": F.leaky_relu,
    "hardswish": F.hardswish,
    "hardsigmoid": F.hardsigmoid,
    "rsqrt": lambda t: mt.rsqrt(t.abs()),
    "softplus": F.softplus,
    "mish": F.mish,
    "selu": F.selu,
    "elu": lambda t: F.elu(t, 0.7),
    "celu": F.celu,
    "logsigmoid": F.logsigmoid,
    "glu": F.glu,
}
# fused in torch: the gradient too is computed in float32 and rounded once
BACKWARD = ("silu", "hardswish", "softplus", "mish", "selu", "elu", "celu", "glu")


def _half(dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    return getattr(mt, dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_is_the_float32_result_rounded_once(name, dtype):
    dt = _half(dtype)
    x = mt.tensor(X).to(dt)
    f = FORWARD[name]
    assert np.array_equal(f(x).float().numpy(), f(x.float()).to(dt).float().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", BACKWARD + ("gelu_tanh",))
def test_fused_backward_is_the_float32_gradient_rounded_once(name, dtype):
    dt = _half(dtype)
    f = FORWARD.get(name) or (lambda t: F.gelu(t, approximate="tanh"))
    x = mt.tensor(X).to(dt).requires_grad_()
    y = f(x)
    g = mt.tensor(G[: y.numel()]).to(dt)  # (glu halves its input)
    y.backward(g)
    # the same formula in float32 from the rounded half input and gradient, rounded once
    x32 = x.detach().float().requires_grad_()
    f(x32).backward(g.float())
    assert np.array_equal(x.grad.float().numpy(), x32.grad.to(dt).float().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["tanh", "sigmoid", "log_softmax"])
def test_backward_from_the_saved_output_is_rounded_once(name, dtype):
    # these save their (rounded) output; the backward formula runs on it in float32
    dt = _half(dtype)
    if name == "sigmoid" and dtype == "float16":
        pytest.skip("torch's float16 sigmoid backward runs in float16: see the next test")
    f = {
        "tanh": mt.tanh,
        "sigmoid": mt.sigmoid,
        "log_softmax": lambda t: F.log_softmax(t, -1),
    }[name]
    x = mt.tensor(X.reshape(32, 64)).to(dt).requires_grad_()
    gh = mt.tensor(G.reshape(32, 64)).to(dt)
    y = f(x)
    y.backward(gh)
    y32, g = y.detach().float().numpy(), gh.float().numpy()
    want = {
        "tanh": lambda: g * (1 - y32 * y32),
        "sigmoid": lambda: g * (y32 * (1 - y32)),
        "log_softmax": lambda: g - np.exp(y32) * g.sum(-1, keepdims=True),
    }[name]()
    assert np.array_equal(x.grad.float().numpy(), mt.tensor(want).to(dt).float().numpy())


def test_float16_sigmoid_and_logsigmoid_backward_follow_torchs_kernels():
    x = mt.tensor(X).half().requires_grad_()
    g = mt.tensor(G).half()
    y = mt.sigmoid(x)
    y.backward(g)
    yd, gd = y.detach().numpy(), g.numpy()
    assert np.array_equal(x.grad.numpy(), (gd * (1 - yd)) * yd)  # float16 arithmetic, this order
    x.grad = None
    F.logsigmoid(x).backward(g)
    xf = x.detach().numpy().astype(np.float32)
    z = np.exp(-np.abs(xf)).astype(np.float16).astype(np.float32)  # torch's half buffer
    s = z / (1 + z)
    want = (gd.astype(np.float32) * np.where(xf < 0, 1 - s, s)).astype(np.float16)
    assert np.array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("name", ["silu", "logsigmoid", "softplus"])
def test_half_activations_stay_twice_differentiable(name):
    x = mt.tensor(X[:8]).half().requires_grad_()
    (g,) = mt.autograd.grad(FORWARD[name](x).sum(), x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    assert gg.dtype is mt.float16 and gg.shape == x.shape and mt.isfinite(gg).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_mul_and_div_by_a_number_or_0d_scale_round_once_under_their_own_node(dtype):
    # torch: x * c and x / c read c (a number, or a 0-d float32 tensor second operand such as
    # clip_grad_norm_'s coefficient) in float32 and round once; as the first operand a 0-d
    # tensor is rounded to the half dtype first. The node is MulBackward0/DivBackward0 (it was
    # ToCopyBackward0 after a float32 detour)
    dt = _half(dtype)
    x = mt.tensor(X[:512]).to(dt).requires_grad_()
    xf = x.detach().float().numpy()
    c, c32 = 0.036038123, np.float32(0.036038123)
    c_half = mt.tensor(c).to(dt).float().item()
    for got, want in (
        (x * c, xf * c32),
        (c * x, xf * c32),
        (x / c, xf / c32),
        (x * mt.tensor(c), xf * c32),
        (x / mt.tensor(c, dtype=mt.float64), xf / c32),
        (mt.tensor(c) * x, xf * np.float32(c_half)),
    ):
        assert got.dtype is dt
        got = got.detach().float().numpy()
        assert np.array_equal(got, mt.tensor(want).to(dt).float().numpy())
    assert (x * c).grad_fn.name() == "MulBackward0"
    assert (x / c).grad_fn.name() == "DivBackward0"
    assert (x * c).grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    (x * c).sum().backward()
    assert x.grad.dtype is dt
    np.testing.assert_array_equal(x.grad.float().numpy(), mt.full((512,), c).to(dt).float().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_add_rounds_alpha_and_a_number_to_the_dtype_first(dtype):
    dt = _half(dtype)
    x, y = mt.tensor(X[:512]).to(dt), mt.tensor(G[:512]).to(dt)
    a_half = mt.tensor(0.1).to(dt).float().item()
    want = x.float().numpy() + np.float32(a_half) * y.float().numpy()
    got = mt.add(x, y, alpha=0.1)
    assert np.array_equal(got.float().numpy(), mt.tensor(want).to(dt).float().numpy())
    n_half = mt.tensor(2.5).to(dt).float().item()  # exact anyway; alpha rounded
    want = x.float().numpy() - np.float32(n_half) * np.float32(a_half)
    got = mt.sub(x, 2.5, alpha=0.1)
    assert np.array_equal(got.float().numpy(), mt.tensor(want).to(dt).float().numpy())


def test_inplace_foreach_mul_rounds_a_number_to_the_half_dtype():
    pytest.importorskip("ml_dtypes")
    g = mt.tensor([3.0, -4.0, 12.0], dtype=mt.bfloat16)
    xs = [g.clone()]
    mt._foreach_mul_(xs, 0.036038)
    assert xs[0].tolist() == [0.1083984375, -0.14453125, 0.43359375]  # 0.036038 as a bfloat16
    assert mt._foreach_mul([g], 0.036038)[0].tolist() == (g * 0.036038).tolist()
    assert (g * 0.036038).tolist() == [0.10791015625, -0.14453125, 0.431640625]
