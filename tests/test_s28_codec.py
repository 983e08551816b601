"""Session 28 (helper codec): library fixes found by running learned-compression and
quantization programs (fake quantization, LSQ, observers, entropy models) against torch 2.13;
the values below are torch's."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt

learnable = mt._fake_quantize_learnable_per_tensor_affine

_X = [[0.26, -1.0, 3.0], [0.74, -0.2, 1.1]]
_DY = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_quant_range_message_keeps_torchs_spacing():
    # torch's message carries the indentation of a line break in its C++ source
    message = "`quant_min` should be less than or         equal to `quant_max`."
    x = mt.tensor([0.5])
    calls = [
        lambda: mt.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 1),
        lambda: mt.fake_quantize_per_tensor_affine(x, mt.tensor(0.1), mt.tensor(0), 5, 1),
        lambda: mt.fake_quantize_per_channel_affine(
            x, mt.tensor([0.1]), mt.tensor([0], dtype=mt.int32), 0, 5, 1
        ),
        lambda: learnable(x, mt.tensor([0.1]), mt.tensor([0.0]), 5, 1),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
            call()


@pytest.mark.parametrize(
    "zero_point, factor, out, grad_scale, grad_zero_point, grad_x_mask",
    [
        # the forward rounds the zero point half to even (0.5 -> 0), the backward half up (-> 1)
        (0.5, 0.25, [[0.5, -1.0, 1.5], [0.5, 0.0, 1.0]], 1.3399999141693115, -0.375,
         [[1, 1, 0], [1, 1, 1]]),
        (-2.5, 1.0, [[0.5, -1.0, 2.5], [0.5, 0.0, 1.0]], 14.35999870300293, -1.5,
         [[1, 1, 0], [1, 1, 1]]),
        (2.5, 2.0, [[0.5, -1.0, 0.5], [0.5, 0.0, 0.5]], 4.0, -14.0, [[0, 1, 0], [0, 1, 0]]),
    ],
)  # fmt: skip
def test_learnable_fake_quantize_values_and_lsq_gradients(
    zero_point, factor, out, grad_scale, grad_zero_point, grad_x_mask
):
    x = mt.tensor(_X, requires_grad=True)
    s = mt.tensor([0.5], requires_grad=True)
    z = mt.tensor([zero_point], requires_grad=True)
    y = learnable(x, s, z, -4, 3, factor)
    assert y.grad_fn.name() == "FakeQuantizeLearnablePerTensorAffineBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), np.float32(out), err_msg="forward")
    gx, gs, gz = mt.autograd.grad(y, [x, s, z], mt.tensor(_DY))
    np.testing.assert_array_equal(gx.numpy(), np.float32(_DY) * grad_x_mask, err_msg="grad x")
    assert gs.shape == (1,) and gz.shape == (1,) and gs.dtype == mt.float32
    np.testing.assert_allclose(gs.numpy(), [grad_scale], rtol=1e-6, err_msg="grad scale")
    np.testing.assert_allclose(gz.numpy(), [grad_zero_point], rtol=1e-6, err_msg="grad zp")


def test_learnable_fake_quantize_lsq_training_steps():
    # SGD steps of a learned step size and zero point on 64 values, LSQ's gradient scale
    gen = np.random.default_rng(0)
    x = mt.tensor(gen.standard_normal(64).astype(np.float32))
    s = mt.tensor([0.2], requires_grad=True)
    z = mt.tensor([0.0], requires_grad=True)
    opt = mt.optim.SGD([s, z], lr=0.01)
    got = []
    for _ in range(3):
        loss = (learnable(x, s, z, -8, 7, 1.0 / (64 * 7) ** 0.5) - x).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        got.append([loss.item(), s.item(), z.item()])
    torch_values = [
        [1.3382302522659302, 0.21385285258293152, -0.00013042688078712672],
        [0.9772049188613892, 0.22414588928222656, -0.00021047632617410272],
        [0.7910493612289429, 0.23227298259735107, -0.00026603808510117233],
    ]
    np.testing.assert_allclose(got, torch_values, rtol=1e-6, err_msg="loss, scale, zero point")


def test_learnable_fake_quantize_argument_errors():
    x = mt.tensor(_X)
    s, z = mt.tensor([0.5]), mt.tensor([0.0])
    op = "_fake_quantize_learnable_per_tensor_affine()"
    cases = [
        ((x, 0.5, z, 0, 7), TypeError, f"{op}: argument 'scale' (position 2) must be Tensor, "
         "not float"),
        ((x, s, z, 0.5, 7), TypeError, f"{op}: argument 'quant_min' (position 4) must be int, "
         "not float"),
        ((x, s[0], z, 0, 7), IndexError, "select() cannot be applied to a 0-dim tensor."),
        ((x.int(), s, z, 0, 7), NotImplementedError,
         "\"fake_quantize_tensor_cachemask_kernel_type_handling\" not implemented for 'Int'"),
    ]  # fmt: skip
    for args, exc, message in cases:
        with pytest.raises(exc, match="^" + re.escape(message) + "$"):
            learnable(*args)
    # the quantization range must hold 0 for the backward (the forward does not check)
    xs = mt.tensor(_X, requires_grad=True)
    y = learnable(xs, s, z, 1, 7)
    message = (
        "`quant_min` should be less than or         equal to `quant_max`, and the quantization "
        "range should include 0."
    )
    with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
        y.sum().backward()


def test_learnable_fake_quantize_float64_and_empty_inputs():
    # Differences from torch (documented): float64 works (torch's backward takes float32 only)
    # and an empty input's scale and zero point get zero gradients
    x = mt.tensor(_X, dtype=mt.float64, requires_grad=True)
    s = mt.tensor([0.5], dtype=mt.float64, requires_grad=True)
    z = mt.tensor([-2.5], dtype=mt.float64, requires_grad=True)
    y = learnable(x, s, z, -4, 3)
    assert y.dtype == mt.float64
    _, gs, gz = mt.autograd.grad(y, [x, s, z], mt.tensor(_DY, dtype=mt.float64))
    np.testing.assert_allclose(gs.numpy(), [14.36], rtol=1e-12, err_msg="float64 grad scale")
    np.testing.assert_allclose(gz.numpy(), [-1.5], rtol=1e-12, err_msg="float64 grad zp")
    e = mt.zeros(0, requires_grad=True)
    s32, z32 = mt.tensor([0.5], requires_grad=True), mt.tensor([1.0], requires_grad=True)
    gs, gz = mt.autograd.grad(learnable(e, s32, z32, 0, 7).sum(), [s32, z32])
    assert gs.tolist() == [0.0] and gz.tolist() == [0.0]


def test_learnable_fake_quantize_stays_on_the_device(device):
    x = mt.tensor(_X, device=device, requires_grad=True)
    s = mt.tensor([0.5], device=device, requires_grad=True)
    z = mt.tensor([0.5], device=device, requires_grad=True)
    y = learnable(x, s, z, -4, 3, 0.25)
    gx, gs, gz = mt.autograd.grad(y, [x, s, z], mt.tensor(_DY, device=device))
    assert y.device == gs.device == gz.device == x.device
    np.testing.assert_allclose(gs.cpu().numpy(), [1.3399999141693115], rtol=1e-6)


learnable_pc = mt._fake_quantize_learnable_per_channel_affine


@pytest.mark.parametrize("axis", [0, 1])
def test_learnable_per_channel_values_and_gradients(axis):
    # zero points 0.5, -2.5, 2.5 round half to even (0, -2, 2) in forward and backward alike
    x = mt.tensor(_X if axis == 1 else np.array(_X).T.tolist(), requires_grad=True)
    dy = mt.tensor(_DY if axis == 1 else np.array(_DY).T.tolist())
    s = mt.tensor([0.5, 0.25, 1.0], requires_grad=True)
    z = mt.tensor([0.5, -2.5, 2.5], requires_grad=True)
    y = learnable_pc(x, s, z, axis, -4, 3, 0.5)
    assert y.grad_fn.name() == "FakeQuantizeLearnablePerChannelAffineBackward0"
    out = np.float32([[0.5, -0.5, 1.0], [0.5, -0.25, 1.0]])
    gx_want = np.float32([[1.0, 0.0, 0.0], [4.0, 5.0, 6.0]])
    gx, gs, gz = mt.autograd.grad(y, [x, s, z], dy)
    flip = (lambda a: a) if axis == 1 else (lambda a: a.T)
    np.testing.assert_array_equal(y.detach().numpy(), flip(out), err_msg="forward")
    np.testing.assert_array_equal(gx.numpy(), flip(gx_want), err_msg="grad x")
    torch_gs = [-0.7200000286102295, -2.5, 1.1999999284744263]
    np.testing.assert_allclose(gs.numpy(), torch_gs, rtol=1e-6, err_msg="grad scale")
    np.testing.assert_allclose(gz.numpy(), [0.0, -0.25, -1.5], rtol=1e-6, err_msg="grad zp")


def test_learnable_per_channel_errors():
    x = mt.tensor(_X)
    s, z = mt.tensor([0.5, 0.25, 1.0]), mt.tensor([0.0, 0.0, 0.0])
    cases = [
        ((x, s.double(), z, 1, -4, 3), RuntimeError,
         "Scale must be Float or BFloat16, found Double"),
        ((x, s[:2], z, 1, -4, 3), RuntimeError,
         "scale and zero-point need to have the same dimensions"),
        ((x, s, z, 2, -4, 3), IndexError,
         "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
        ((x, s, z, -1, -4, 3), RuntimeError,
         "`axis` must be between 0 and number of dimensions of input"),
        ((x, s, z, 1, 4, 3), RuntimeError,
         "`quant_min` should be less than or         equal to `quant_max`."),
        ((x, s[0], z, 1, -4, 3), RuntimeError, "scale should be a 1-D tensor"),
    ]  # fmt: skip
    for args, exc, message in cases:
        with pytest.raises(exc, match="^" + re.escape(message) + "$"):
            learnable_pc(*args)
    # a zero point outside the range is clamped, not refused
    y = learnable_pc(x, s, mt.tensor([9.0, 0.0, 0.0]), 1, -4, 3)
    np.testing.assert_allclose(y[:, 0].numpy(), [0.0, 0.0], err_msg="clamped zero point (3)")
    xs = mt.tensor(_X, requires_grad=True)
    y = learnable_pc(xs, s, mt.tensor([1.0, 1.0, 1.0]), 1, 1, 3)
    with pytest.raises(RuntimeError, match=r"^Expecting `quant_min` <= 0 and `quant_max` >= 0$"):
        y.sum().backward()
