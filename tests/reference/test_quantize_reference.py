"""fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine against torch: bit-equal
values on random inputs and exact .5 ties, the straight-through gradient, the grad_fn names."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

_DTYPES = ["float32", "float64", "float16"]


def _inputs(rng, dtype, scale, n=4000):
    # random values (some clamped) and exact ties k + 0.5 quantization steps
    x = rng.standard_normal(n) * 40 * scale
    ties = (rng.integers(-300, 300, n // 4) + 0.5) * np.float32(scale)
    return np.concatenate([x, ties]).astype(dtype)


def _same_bits(a, b, what):
    assert a.dtype == b.dtype, what
    diff = np.flatnonzero(a.view(np.uint8) != b.view(np.uint8))
    assert diff.size == 0, f"{what}: {diff.size} bytes differ"


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("scale, zero_point", [(0.1, 0), (0.05, 3), (1 / 3, -7), (0.007, 10)])
@pytest.mark.parametrize("tensor_qparams", [False, True])
def test_per_tensor_matches_torch(dtype, scale, zero_point, tensor_qparams):
    x = _inputs(np.random.default_rng(0), dtype, scale)
    args = {}
    for lib in (mt, torch):
        if tensor_qparams:
            args[lib] = (lib.tensor(scale), lib.tensor(zero_point))
        else:
            args[lib] = (scale, zero_point)
    xm = mt.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ym = mt.fake_quantize_per_tensor_affine(xm, *args[mt], -128, 127)
    yt = torch.fake_quantize_per_tensor_affine(xt, *args[torch], -128, 127)
    _same_bits(ym.detach().numpy(), yt.detach().numpy(), "values")
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = np.random.default_rng(1).standard_normal(x.shape).astype(dtype)
    ym.backward(mt.tensor(g))
    yt.backward(torch.tensor(g))
    _same_bits(xm.grad.numpy(), xt.grad.numpy(), "gradient")


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("zp_dtype", ["int32", "float32", "float16"])
def test_per_channel_matches_torch(dtype, axis, zp_dtype):
    rng = np.random.default_rng(2)
    shape = [3, 4, 5]
    c = shape[axis]
    scale = rng.uniform(0.01, 0.5, c).astype(np.float32)
    zp = rng.integers(-20, 20, c).astype(zp_dtype)
    if zp_dtype != "int32":
        zp = (zp + 0.5 * (np.arange(c) % 2)).astype(zp_dtype)  # half-integer zero points too
    x = (rng.standard_normal(shape) * 30 * scale.reshape([-1] + [1] * (2 - axis))).astype(dtype)
    x.flat[::7] = ((rng.integers(-50, 50, x.size) + 0.5) * 0.25).astype(dtype)[::7]
    xm = mt.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ym = mt.fake_quantize_per_channel_affine(xm, mt.tensor(scale), mt.tensor(zp), axis, -64, 63)
    yt = torch.fake_quantize_per_channel_affine(
        xt, torch.tensor(scale), torch.tensor(zp), axis, -64, 63
    )
    _same_bits(ym.detach().numpy(), yt.detach().numpy(), "values")
    assert type(ym.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = rng.standard_normal(shape).astype(dtype)
    ym.backward(mt.tensor(g))
    yt.backward(torch.tensor(g))
    _same_bits(xm.grad.numpy(), xt.grad.numpy(), "gradient")


def test_double_backward_matches_torch():
    # torch's backward is grad * mask: differentiable in the upstream gradient, not in x
    x = np.array([-20.0, -0.3, 0.05, 0.26, 6.5, 100.0])
    g = np.array([0.5, -1.0, 2.0, 3.0, -4.0, 1.5])
    results = []
    for lib in (mt, torch):
        xs = lib.tensor(x, requires_grad=True)
        gs = lib.tensor(g, requires_grad=True)
        y = lib.fake_quantize_per_tensor_affine(xs, 0.1, 0, -128, 127)
        (gx,) = lib.autograd.grad(y, xs, gs, create_graph=True)
        gg = lib.autograd.grad(gx.sum(), gs)[0]
        results.append((gx.detach().numpy(), gg.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize(
    "call",
    [
        lambda T, x: T.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 4),
        lambda T, x: T.fake_quantize_per_tensor_affine(x, 0.1, 200, -128, 127),
        lambda T, x: T.fake_quantize_per_tensor_affine(x.int(), 0.1, 0, -128, 127),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2]), T.tensor([0, 1]), 0, -128, 127
        ),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2]).double(), T.tensor([0, 1]).int(), 0, -128, 127
        ),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2]), T.tensor([0, 300]).int(), 0, -128, 127
        ),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 1, 2]).int(), -1, -128, 127
        ),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2]), T.tensor([0, 1]).int(), 2, -128, 127
        ),
        lambda T, x: T.fake_quantize_per_channel_affine(
            x, T.tensor([0.1, 0.2, 0.3]), T.tensor([0, 1, 2]).int(), 0, -128, 127
        ),
    ],
)
def test_errors_match_torch(call):
    x = [[-1.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
    with pytest.raises(Exception) as t_err:
        call(torch, torch.tensor(x))
    with pytest.raises(Exception) as m_err:
        call(mt, mt.tensor(x))
    assert type(m_err.value) is type(t_err.value)
    assert " ".join(str(m_err.value).split()) == " ".join(str(t_err.value).split())
