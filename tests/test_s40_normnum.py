"""Numerical behaviour of the normalization functions at hard inputs, checked against NumPy
float64 and numerical gradients: zero and constant rows, a large offset with a small spread,
tiny and huge magnitudes, batches of one."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# each maps a (4, D) tensor to a tensor of the same shape; the first four normalize each row
OPS = {
    "layer_norm": lambda x: F.layer_norm(x, x.shape[-1:]),
    "group_norm": lambda x: F.group_norm(x.reshape(2, 2, -1), 2).reshape(x.shape),
    "batch_norm": lambda x: F.batch_norm(x.t(), None, None, training=True).t(),
    "instance_norm": lambda x: F.instance_norm(x.reshape(2, 2, -1)).reshape(x.shape),
    "rms_norm": lambda x: F.rms_norm(x, x.shape[-1:]),
    "local_response_norm": lambda x: F.local_response_norm(x.reshape(1, 4, -1), 3).reshape(x.shape),
    "normalize": lambda x: F.normalize(x, dim=-1),
}


def _normalized(x, axis, eps=1e-5):
    """(x - mean) / sqrt(biased var + eps) in float64."""
    x = x.astype(np.float64)
    d = x - x.mean(axis=axis, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=axis, keepdims=True) + eps)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_zero_rows_give_zeros_and_finite_gradients(op, dt):
    x = minitorch.zeros(4, 16, dtype=getattr(minitorch, dt), requires_grad=True)
    y = OPS[op](x)
    g = np.random.default_rng(0).standard_normal((4, 16))
    y.backward(minitorch.tensor(g, dtype=x.dtype))
    np.testing.assert_array_equal(y.detach().numpy(), 0.0, err_msg=op)
    assert np.isfinite(x.grad.numpy()).all(), op


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("op", ["layer_norm", "group_norm", "batch_norm", "instance_norm"])
def test_constant_rows_with_an_exact_mean_normalize_to_zero(op, dt):
    # 2.0 and -0.5 repeated 16 times: every partial sum and the mean are exact, so x - mean is 0
    x = np.repeat(np.array([[2.0], [-0.5], [2.0], [-0.5]]), 16, axis=1)
    y = OPS[op](minitorch.tensor(x, dtype=getattr(minitorch, dt)))
    np.testing.assert_array_equal(y.numpy(), 0.0, err_msg=op)


@pytest.mark.parametrize("op", ["layer_norm", "group_norm", "batch_norm", "instance_norm"])
def test_float32_offset_rows_stay_near_float64(op):
    # 1e2 + 1e-3 noise: the float32 mean is rounded by a few 1e-6 (a few percent of the spread);
    # a one-pass variance (E[x^2] - E[x]^2) would be off by ~100%
    rng = np.random.default_rng(1)
    x = (1e2 + 1e-3 * rng.standard_normal((4, 64))).astype(np.float32)
    y = OPS[op](minitorch.tensor(x)).numpy()
    np.testing.assert_allclose(y, _normalized(x, 1), rtol=0, atol=0.015, err_msg=op)


@pytest.mark.parametrize("scale", [1e-20, 1e15])
@pytest.mark.parametrize("op", ["layer_norm", "batch_norm", "rms_norm", "normalize"])
def test_float32_tiny_and_huge_rows(op, scale):
    rng = np.random.default_rng(2)
    x = (scale * rng.standard_normal((4, 32))).astype(np.float32)
    y = OPS[op](minitorch.tensor(x)).numpy()
    x64 = x.astype(np.float64)
    if op in ("layer_norm", "batch_norm"):
        want = _normalized(x64, 1)
    elif op == "rms_norm":  # eps: float32's machine epsilon when not given
        eps = float(np.finfo(np.float32).eps)
        want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + eps)
    else:
        want = x64 / np.maximum(np.linalg.norm(x64, axis=1, keepdims=True), 1e-12)
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=2e-6 * np.abs(want).max(), err_msg=op)


@pytest.mark.parametrize("op", ["layer_norm", "group_norm"])
def test_overflowed_variance_is_nan(op):
    # See NOTE [ Overflowed variance ]: the variance of this float32 row is past float32's range
    x = minitorch.tensor([[1e30, 1e30, 0.0, 0.0]] * 4)
    assert np.isnan(OPS[op](x).numpy()).all()


def test_batch_of_one_refused_when_training():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(minitorch.ones(1, 4), None, None, training=True)
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(minitorch.ones(1, 4, 1))
    # evaluation with running statistics takes a batch of one
    y = F.batch_norm(minitorch.ones(1, 4), minitorch.zeros(4), minitorch.ones(4), training=False)
    np.testing.assert_allclose(y.numpy(), 1 / np.sqrt(1 + 1e-5), rtol=1e-6)


def test_batch_norm_running_statistics_of_offset_channels():
    rng = np.random.default_rng(3)
    x = 1e2 + 1e-3 * rng.standard_normal((64, 3))
    rm, rv = minitorch.zeros(3, dtype=minitorch.float64), minitorch.ones(3, dtype=minitorch.float64)
    F.batch_norm(minitorch.tensor(x), rm, rv, training=True, momentum=0.25)
    np.testing.assert_allclose(rm.numpy(), 0.25 * x.mean(0), rtol=1e-14)
    np.testing.assert_allclose(rv.numpy(), 0.75 + 0.25 * x.var(0, ddof=1), rtol=1e-12)


# hard inputs for the float64 gradient checks: an offset with a small spread, a tiny scale
GRAD_INPUTS = {
    "offset": lambda rng: 1e2 + 1e-1 * rng.standard_normal((4, 6)),
    "tiny": lambda rng: 1e-2 * rng.standard_normal((4, 6)),
}


@pytest.mark.parametrize("case", sorted(GRAD_INPUTS))
@pytest.mark.parametrize("op", sorted(OPS))
def test_float64_gradcheck_and_gradgradcheck(op, case):
    rng = np.random.default_rng(4)
    x = minitorch.tensor(GRAD_INPUTS[case](rng), dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(OPS[op], (x,), eps=1e-6, atol=1e-5, rtol=1e-4)
    assert gradgradcheck(OPS[op], (x,), eps=1e-6, atol=1e-4, rtol=1e-3)
