"""nn.functional against torch 2.13's behaviour, from the OpInfo sweep: softmin negates before
its dtype cast, prelu's argument checks in torch's order, batch_norm of empty and 1-D inputs,
native_group_norm's statistics on its node (and empty inputs), local_response_norm's integer
window mean, half log_softmax along the last dim, and triplet_margin_with_distance_loss's margin
message. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.nn import functional as F

# --- softmin: -input in the input's dtype, then the cast (uint8 negation wraps) ---


def test_softmin_uint8_dtype_negates_first():
    x = torch.tensor([[0, 3, 200], [5, 1, 255]], dtype=torch.uint8)
    out = F.softmin(x, 1, dtype=torch.float64)
    want = [
        [1.3289115574798703e-110, 1.0, 2.779630478564191e-86],
        [0.017986209962091555, 0.9820137900379085, 4.8008615645485824e-111],
    ]
    assert out.dtype is torch.float64
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


# --- prelu: torch's checks and their order ---


@pytest.mark.parametrize(
    "make, exc, msg",
    [
        (
            lambda: (torch.tensor(-8.5), torch.tensor([1.0, 2.0])),
            RuntimeError,
            "Not allow zero-dim input tensor.",
        ),
        (
            lambda: (torch.ones(2, 8, 3), torch.ones(2, 4)),
            RuntimeError,
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
        ),
        (
            lambda: (torch.tensor(-8.5), torch.ones(1, 1)),
            RuntimeError,
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
        ),
        (
            lambda: (torch.ones(2, 2, dtype=torch.int64), torch.ones(2, 2, dtype=torch.int64)),
            RuntimeError,
            "Mismatch of parameter numbers and input channel size. Found parameter "
            "numbers = 4 and channel size = 2.",
        ),
        (
            lambda: (torch.ones(2, 3, dtype=torch.int64), torch.ones(3, 1, dtype=torch.int64)),
            RuntimeError,
            "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
        ),
    ],
)
def test_prelu_checks(make, exc, msg):
    with pytest.raises(exc) as info:
        F.prelu(*make())
    assert str(info.value) == msg


# --- batch_norm: an empty input reads no statistics; 1-D inputs fail as torch's ---


def test_batch_norm_empty_inputs_skip_checks():
    out = F.batch_norm(torch.ones(0), torch.zeros(0), torch.ones(0), training=True)
    assert out.shape == (0,)
    x = torch.ones(0, requires_grad=True)
    out = F.batch_norm(x, None, None, torch.tensor([2.0, 5.0]), None, training=True)
    assert out.shape == (0,) and out.grad_fn.name() == "MulBackward0"
    rm = torch.zeros(5)
    out = F.batch_norm(torch.ones(0, 3), rm, torch.ones(5), training=True)  # 5 is not 3
    assert out.shape == (0, 3) and rm.tolist() == [0.0] * 5
    out = F.batch_norm(torch.ones(0, 3, dtype=torch.int64), None, None, training=True)
    assert out.dtype is torch.int64
    out = F.batch_norm(torch.ones(0, 3), None, None, training=False)
    assert out.shape == (0, 3) and out.grad_fn is None
    with pytest.raises(IndexError, match=r"index 0 out of range for tensor of size \[0\]"):
        F.batch_norm(torch.ones(0), None, None, torch.ones(0), training=True)


def test_batch_norm_one_dim_inputs():
    dims = "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    with pytest.raises(IndexError) as info:
        F.batch_norm(torch.ones(3), None, None, training=True)
    assert str(info.value) == dims
    with pytest.raises(RuntimeError, match="running_mean should contain 0 elements not 3"):
        F.batch_norm(torch.ones(3), torch.zeros(3), torch.ones(3))
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(torch.ones(3), None, None)
    with pytest.raises(IndexError, match="tuple index out of range"):
        F.batch_norm(torch.tensor(1.0), None, None, training=True)


# --- native_group_norm: mean and rstd are outputs of its node (no gradient through them) ---


def test_native_group_norm_stats_on_node():
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((1, 6, 3)), requires_grad=True)
    w = torch.tensor(rng.standard_normal(6), requires_grad=True)
    b = torch.tensor(rng.standard_normal(6), requires_grad=True)
    out, mean, rstd = torch.native_group_norm(x, w, b, 1, 6, 3, 2, 0.5)
    assert [t.grad_fn.name() for t in (out, mean, rstd)] == ["NativeGroupNormBackward0"] * 3
    # torch's backward takes the statistics' gradients: d mean / d x is 1 / 9 per group
    ones = torch.ones(1, 2, dtype=torch.float64)
    gx, gw, gb = torch.autograd.grad(
        (out, mean, rstd), (x, w, b), (torch.zeros(1, 6, 3, dtype=torch.float64), ones, 0 * ones)
    )
    np.testing.assert_allclose(gx.numpy(), np.full((1, 6, 3), 1 / 9), rtol=1e-12)
    assert gw.tolist() == [0.0] * 6 and gb.tolist() == [0.0] * 6


def test_native_group_norm_empty():
    x64 = torch.float64
    out, mean, rstd = torch.native_group_norm(
        torch.tensor([], dtype=x64),
        torch.ones(2, dtype=x64),
        torch.ones(2, dtype=x64),
        0,
        2,
        1,
        1,
        1e-5,
    )
    assert (out.shape, mean.shape, rstd.shape) == ((0,), (0, 1), (0, 1))
    out, mean, rstd = torch.native_group_norm(torch.ones(2, 4, 0), None, None, 2, 4, 0, 2, 1e-5)
    assert out.shape == (2, 4, 0)
    assert mean.tolist() == [[0.0, 0.0], [0.0, 0.0]] and np.isnan(rstd.numpy()).all()


# --- local_response_norm of integers: torch's avg_pool truncates the window mean ---


def test_local_response_norm_int64():
    x = torch.arange(18).reshape(1, 6, 3) * 3 - 20
    want = [
        [-1.4138600826263428, -1.4161748886108398, -1.4134926795959473],
        [-0.6820598244667053, -0.6028514504432678, -0.4765147268772125],
        [-0.25379568338394165, 0.17650112509727478, 0.8921993970870972],
        [1.3701804876327515, 1.4128013849258423, 1.3546077013015747],
        [1.29734468460083, 1.2525506019592285, 1.2182804346084595],
        [1.19169282913208, 1.170636534690857, 1.153620719909668],
    ]
    out = F.local_response_norm(x, 2, alpha=1.0, beta=0.5, k=0.1)
    assert out.dtype is torch.float32
    np.testing.assert_allclose(out.numpy()[0], want, rtol=1e-6)
    out = F.local_response_norm(x.reshape(1, 6, 3, 1), 3, alpha=1.0, beta=0.5, k=0.1)
    want4 = [
        -1.5201325416564941,
        -1.5709794759750366,
        -1.637454867362976,
        -0.8312843441963196,
        -0.7361478805541992,
        -0.5621882677078247,
        -0.2623867690563202,
        0.13471755385398865,
        0.4777502715587616,
        0.6893959045410156,
        0.8055614233016968,
        0.8703492879867554,
        0.9085924625396729,
        0.9325609803199768,
        0.9483992457389832,
        1.460266351699829,
        1.4342952966690063,
        1.413331389427185,
    ]
    np.testing.assert_allclose(out.numpy().ravel(), want4, rtol=1e-6)


# --- half log_softmax along the last dim: the sum of exponentials rounded to the dtype ---


def test_log_softmax_half_last_dim_rounds_sum():
    r = [1.8203125, -3.515625, -4.40625, 2.328125, 8.375]
    out = torch.log_softmax(torch.tensor(r, dtype=torch.bfloat16), 0)
    assert out.float().tolist() == [-6.5625, -11.875, -12.75, -6.0625, 0.0]
    x = torch.tensor([r], dtype=torch.float16)
    got = torch.log_softmax(x, 1).float().tolist()
    assert got == [[-6.55859375, -11.890625, -12.78125, -6.05078125, -0.00389862060546875]]
    # another dim: no rounding there
    got = torch.log_softmax(x.t(), 0).float().tolist()
    assert got[-1] == [-0.00379180908203125]


# --- triplet_margin_with_distance_loss: the functional's own margin message ---


def test_triplet_margin_with_distance_loss_margin_message():
    x = torch.ones(3, 4)
    with pytest.raises(ValueError) as info:
        F.triplet_margin_with_distance_loss(x, x, x, margin=-1.0)
    assert str(info.value) == "margin must be greater than 0, got -1.0"
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.triplet_margin_with_distance_loss(x, x, x, margin=-1.0, reduction="bad")
