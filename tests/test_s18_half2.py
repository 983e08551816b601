"""Half-precision leftovers: in-place elu/selu/celu gradients, stepwise half smooth_l1 / huber,
and Adafactor's NaN-tolerant step scale. Expected values are PyTorch 2.13's (CPU)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

X = [-0.3, -1.7, -2.9, -4.1, 0.5]

# torch's in-place forms take the gradient from the half-rounded result: grad i (out + s alpha)
INPLACE_GRADS = {
    ("bfloat16", "elu_"): [0.7421875, 0.18359375, 0.0546875, 0.015625, 1.0],
    ("float16", "elu_"): [0.74072265625, 0.1826171875, 0.05517578125, 0.0166015625, 1.0],
    ("bfloat16", "selu_"): [1.3046875, 0.3203125, 0.09423828125, 0.031494140625, 1.046875],
    ("float16", "selu_"): [
        1.302734375,
        0.321533203125,
        0.09698486328125,
        0.0286102294921875,
        1.05078125,
    ],
    ("bfloat16", "celu_"): [0.79296875, 0.26953125, 0.1044921875, 0.04443359375, 1.0],
    ("float16", "celu_"): [0.7939453125, 0.2705078125, 0.1075439453125, 0.04296875, 1.0],
}
INPLACE_OPS = {
    "elu_": [
        lambda t: F.elu_(t, 1.0),
        lambda t: F.elu(t, inplace=True),
        minitorch.nn.ELU(inplace=True),
    ],
    "selu_": [minitorch.selu_, lambda t: F.selu(t, inplace=True), minitorch.nn.SELU(inplace=True)],
    "celu_": [lambda t: minitorch.celu_(t, 1.3), lambda t: F.celu(t, 1.3, inplace=True)],
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", ["elu_", "selu_", "celu_"])
def test_inplace_elu_family_half_grad_from_result(dtype, op):
    for i, f in enumerate(INPLACE_OPS[op]):
        x = minitorch.tensor(X, dtype=getattr(minitorch, dtype), requires_grad=True)
        f(x * 1.0).sum().backward()
        np.testing.assert_array_equal(
            np.array(x.grad.tolist()), INPLACE_GRADS[dtype, op], err_msg=f"{dtype} {op} form {i}"
        )


def test_out_of_place_elu_half_grad_unchanged():
    # out-of-place elu keeps the exp form (torch's too): differs from elu_ at -1.7 and -4.1
    x = minitorch.tensor(X[:4], dtype=minitorch.bfloat16, requires_grad=True)
    F.elu(x, 1.0).sum().backward()
    expected = [0.7421875, 0.181640625, 0.0546875, 0.0167236328125]
    np.testing.assert_array_equal(np.array(x.grad.tolist()), expected)


def test_inplace_elu_float64_gradients():
    x = minitorch.tensor(X, dtype=minitorch.float64, requires_grad=True)
    for f in (lambda t: F.elu_(t * 1.0, 0.7), lambda t: minitorch.celu_(t * 1.0, 1.3)):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


def _loss_values(fn, dtype, **kwargs):
    x = minitorch.tensor([0.1, 0.7, 0.9], dtype=dtype)
    return fn(x, minitorch.zeros_like(x), reduction="none", **kwargs).tolist()


def test_smooth_l1_float16_rounds_each_step():
    got = _loss_values(F.smooth_l1_loss, minitorch.float16, beta=0.3)
    np.testing.assert_array_equal(got, [0.0166473388671875, 0.55029296875, 0.75])
    # bfloat16 (and float32) compute in float32, as before
    got = _loss_values(F.smooth_l1_loss, minitorch.bfloat16, beta=0.3)
    np.testing.assert_array_equal(got, [0.0167236328125, 0.55078125, 0.75])
    got = _loss_values(F.smooth_l1_loss, minitorch.float32, beta=0.3)
    d = np.array([0.1, 0.7, 0.9], dtype=np.float32)
    np.testing.assert_allclose(got, np.where(d < 0.3, 0.5 * d * d / 0.3, d - 0.15), rtol=1e-6)


def test_huber_bfloat16_rounds_each_step():
    got = _loss_values(F.huber_loss, minitorch.bfloat16, delta=0.3)
    np.testing.assert_array_equal(got, [0.0050048828125, 0.1640625, 0.2255859375])
    x = minitorch.tensor([0.1, 0.7, 0.9], dtype=minitorch.bfloat16)
    assert F.huber_loss(x, minitorch.zeros_like(x), delta=0.3).item() == 0.1318359375
    # float16 computes in float32, as before
    got = _loss_values(F.huber_loss, minitorch.float16, delta=0.3)
    np.testing.assert_array_equal(got, [0.00499725341796875, 0.1650390625, 0.2249755859375])


def test_adafactor_overflowing_grad_nans_only_its_element():
    p = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0, 3.0]))
    opt = minitorch.optim.Adafactor([p], lr=0.01)
    p.grad = minitorch.tensor([1e20, 1.0, 2.0])  # g * g overflows float32
    opt.step()
    got = p.tolist()
    assert math.isnan(got[0])
    np.testing.assert_allclose(got[1:], [1.9783974885940552, 2.9783976078033447], rtol=1e-7)


def test_adafactor_nan_param_uses_eps2_scale():
    # torch's max(eps2, RMS(p)) on host floats gives eps2 for a NaN RMS
    p = minitorch.nn.Parameter(minitorch.tensor([float("nan"), 2.0, 3.0]))
    opt = minitorch.optim.Adafactor([p], lr=0.01)
    p.grad = minitorch.tensor([1.0, 1.0, 2.0])
    opt.step()
    got = p.tolist()
    assert math.isnan(got[0])
    np.testing.assert_allclose(got[1:], [1.9999899864196777, 2.9999899864196777], rtol=1e-7)
