"""Session 24, FZNN: what tools/fuzz found in nn (expected values from torch 2.13, as literals)."""

import math
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def test_conv_with_an_empty_kernel_still_draws_its_bias():
    # torch 2.13 draws the bias from U(0, 0) when fan_in is 0: the stream after it moves on
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Initializing zero-element tensors is a no-op"
        minitorch.manual_seed(1)
        m = minitorch.nn.Conv2d(3, 3, (0, 1))
        after = minitorch.rand(2).tolist()
        np.testing.assert_array_equal(m.bias.detach().numpy(), np.zeros(3, dtype=np.float32))
        np.testing.assert_allclose(after, [0.7346844673156738, 0.029281556606292725], rtol=0)
        minitorch.manual_seed(1)
        minitorch.nn.ConvTranspose1d(3, 2, 0)
        np.testing.assert_allclose(
            minitorch.rand(2).tolist(), [0.40306925773620605, 0.7346844673156738], rtol=0
        )
        minitorch.manual_seed(1)
        minitorch.nn.Conv1d(3, 2, 0, bias=False)  # no bias: nothing drawn
        np.testing.assert_allclose(
            minitorch.rand(2).tolist(), [0.7576315999031067, 0.2793108820915222], rtol=0
        )


@pytest.mark.parametrize("hx", [1, (minitorch.ones(4, 2),), [1, 2, 3]])
@pytest.mark.parametrize("shape", [(3,), (3, 1, 3, 3)])
def test_lstm_checks_the_input_rank_before_hx(shape, hx):
    m = minitorch.nn.LSTM(3, 4)
    with pytest.raises(
        ValueError, match=rf"LSTM: Expected input to be 2D or 3D, got {len(shape)}D"
    ):
        m(minitorch.ones(shape), hx)
    with pytest.raises(TypeError):  # a valid input: hx's own error
        m(minitorch.ones(2, 3), 1)


@pytest.mark.parametrize("mode", ["linear", "bad", "trilinear"])
def test_interpolate_needs_size_or_scale_factor_before_the_mode_checks(mode):
    x = minitorch.ones(1, 1, 4, 4)
    with pytest.raises(ValueError, match="^either size or scale_factor should be defined$"):
        F.interpolate(x, mode=mode)
    with pytest.raises(ValueError, match="^either size or scale_factor should be defined$"):
        minitorch.nn.Upsample(mode=mode)(x)


def test_interpolate_spatial_count_messages_are_torchs():
    x = minitorch.ones(1, 1, 4, 4)
    with pytest.raises(ValueError) as e:
        F.interpolate(x, size=(2, 2, 2))
    assert str(e.value) == (
        "Input and output must have the same number of spatial dimensions, but got input with "
        "spatial dimensions of [4, 4] and output size of (2, 2, 2). Please provide input tensor "
        "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
    )
    with pytest.raises(ValueError) as e:
        F.interpolate(x, scale_factor=(2.0, 2.0, 2.0))
    assert str(e.value) == (
        "Input and scale_factor must have the same number of spatial dimensions, but got input "
        "with spatial dimensions of [4, 4] and scale_factor of shape (2.0, 2.0, 2.0). Please "
        "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
        "...,sK) format."
    )


@pytest.mark.parametrize(
    "n, shape, shown",
    [
        (1, (1, 3, 0), [1, 3, 1, 0]),
        (1, (3, 0), [1, 3, 1, 0]),
        (2, (1, 3, 4, 0), [1, 3, 4, 0]),
        (2, (3, 0, 4), [1, 3, 0, 4]),
        (3, (1, 3, 4, 4, 0), [1, 3, 4, 4, 0]),
    ],
)
def test_conv_refuses_an_empty_spatial_dim_that_padding_made_room_for(n, shape, shown):
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    w = minitorch.ones((2, 3) + (2,) * n)
    with pytest.raises(RuntimeError) as e:
        conv(minitorch.ones(shape), w, padding=1)
    assert str(e.value) == (
        f"Only zero batch or zero channel inputs are supported, but got input shape: {shown}"
    )
    # an empty batch or channel dim is still fine
    assert conv(minitorch.ones((0, 3) + (4,) * n), w, padding=1).shape == (0, 2) + (5,) * n


def test_adaptive_avg_pool_single_output_is_a_mean_over_any_rank():
    x = minitorch.arange(24.0).reshape(1, 1, 2, 3, 4).requires_grad_()
    y = F.adaptive_avg_pool2d(x, 1)
    assert y.shape == (1, 1, 2, 1, 1)
    assert y.grad_fn.name() == "MeanBackward1"
    np.testing.assert_allclose(y.detach().numpy().ravel(), [5.5, 17.5])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((1, 1, 2, 3, 4), 1 / 12))
    assert F.adaptive_avg_pool2d(minitorch.ones(4, 4), 1).shape == (1, 1)
    assert F.adaptive_avg_pool3d(minitorch.ones(2, 4, 4), 1).shape == (1, 1, 1)
    six = minitorch.ones(1, 1, 3, 4, 4, 4)
    assert minitorch.nn.AdaptiveAvgPool3d((1, 1, 1))(six).shape == (1, 1, 3, 1, 1, 1)
    # an empty window: mean's NaN, no size check
    out = F.adaptive_avg_pool3d(minitorch.ones(1, 1, 2, 0, 4, 4), (1, 1, 1))
    assert out.shape == (1, 1, 2, 1, 1, 1) and math.isnan(out.flatten()[0].item())
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got -2"):
        F.adaptive_avg_pool3d(minitorch.ones(4), 1)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.adaptive_avg_pool2d(minitorch.ones(1, 2, 3, 4, 4, dtype=minitorch.int64), 1)
    # other sizes keep the rank check
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.adaptive_avg_pool2d(minitorch.ones(1, 1, 2, 3, 4), 2)


@pytest.mark.parametrize(
    "op, n, kw, msg",
    [
        ("max_pool2d", 2, {"kernel_size": (2, 2, 2)}, "kernel_size must either be a single int"),
        ("max_pool2d", 2, {"kernel_size": []}, "kernel_size must either be a single int"),
        ("max_pool2d", 2, {"kernel_size": 2, "stride": (1, 1, 1)}, "stride must either be omitted"),
        (
            "max_pool3d",
            3,
            {"kernel_size": 2, "dilation": (1, 1)},
            "dilation must be either a single",
        ),
        (
            "avg_pool2d",
            2,
            {"kernel_size": 2, "padding": (0, 0, 0)},
            "padding must either be a single",
        ),
        ("avg_pool3d", 3, {"kernel_size": (2, 2)}, "kernel_size must be a single int"),
        ("avg_pool3d", 3, {"kernel_size": 2, "stride": (1, 1)}, "stride must be omitted, a single"),
    ],
)
def test_pool_argument_lengths_use_torchs_words(op, n, kw, msg):
    x = minitorch.ones((1, 1) + (6,) * n)
    count = "two" if n == 2 else "three"
    with pytest.raises(RuntimeError) as e:
        getattr(F, op)(x, **kw)
    assert str(e.value).startswith(f"{op}: {msg}")
    assert str(e.value).endswith(f"single int, or a tuple of {count} ints")
