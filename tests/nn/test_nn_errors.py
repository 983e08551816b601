"""Bad and edge inputs of nn layers and functions: one torch-free regression check per fix found
by the sweep in tests/reference/test_nn_errors_reference.py (torch's exception types, messages
naming the op, and batch-0 / unbatched inputs that torch accepts)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn


def _r(*shape, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return mt.tensor(rng.uniform(-1, 1, size=shape).astype(dtype))


# --- pooling


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(kernel_size=0), "max_pool1d\\(\\) kernel_size must be greater than zero, but got 0"),
        (dict(kernel_size=2, stride=0), "max_pool1d\\(\\) stride must be greater than zero"),
        (dict(kernel_size=2, dilation=0), "max_pool1d\\(\\) dilation must be greater than zero"),
    ],
)
def test_max_pool1d_nonpositive_arguments(kw, msg):
    with pytest.raises(RuntimeError, match=msg):
        F.max_pool1d(_r(1, 2, 6), **kw)


def test_pool1d_stride_zero_is_not_the_kernel():
    # `stride or kernel` used to turn an explicit 0 into the default
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.avg_pool1d(_r(1, 2, 6), 2, stride=0)


def test_max_pool1d_output_too_small():
    with pytest.raises(RuntimeError, match="max_pool1d\\(\\) Invalid computed output size: 0"):
        nn.MaxPool1d(2)(_r(1, 2, 1))


@pytest.mark.parametrize("pool", [nn.MaxPool2d(2), nn.AvgPool2d(2)])
def test_pool2d_empty_non_batch_dim(pool):
    with pytest.raises(RuntimeError, match=r"optional 0 dim batch size.*\[1, 0, 4, 4\]"):
        pool(_r(1, 0, 4, 4))
    assert pool(_r(0, 2, 4, 4)).shape == (0, 2, 2, 2)


@pytest.mark.parametrize("pool", [nn.AdaptiveAvgPool2d(2), nn.AdaptiveMaxPool2d(2)])
def test_adaptive_pool_empty_spatial_dim(pool):
    with pytest.raises(
        RuntimeError, match=r"non-zero size for non-batch dimensions.*\[1, 2, 0, 4\]"
    ):
        pool(_r(1, 2, 0, 4))
    assert pool(_r(0, 2, 4, 4)).shape == (0, 2, 2, 2)


def test_adaptive_pool_sequence_size_needs_more_dims():
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        F.adaptive_avg_pool2d(_r(5, 7), (2, 3))
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.adaptive_avg_pool2d(_r(5, 7), 2)


# --- convolution


def test_conv_zero_kernel():
    with pytest.raises(RuntimeError, match="kernel_height: 0 kernel_width: 3"):
        F.conv2d(_r(1, 2, 5, 5), _r(4, 2, 0, 3))
    with pytest.raises(RuntimeError, match="kernel_height: 1 kernel_width: 0"):
        F.conv1d(_r(1, 2, 5), _r(4, 2, 0))
    with pytest.raises(RuntimeError, match=r"1 x 0 x 1 \(TxHxW\)"):
        F.conv3d(_r(1, 2, 5, 5, 5), _r(4, 2, 1, 0, 1))


def test_conv_zero_out_channels():
    with pytest.raises(RuntimeError, match=r"at least 1 at dimension 0.*\[0, 2, 3, 3\]"):
        F.conv2d(_r(1, 2, 5, 5), _r(0, 2, 3, 3))


def test_conv_weight_not_divisible_message():
    with pytest.raises(RuntimeError, match=r"but got weight of size \[\[3, 2, 3, 3\]\] instead"):
        F.conv2d(_r(1, 4, 5, 5), _r(3, 2, 3, 3), groups=2)


# --- normalization


def test_group_norm_empty_batch():
    x = _r(0, 4, 3).requires_grad_()
    out = nn.GroupNorm(2, 4)(x)
    assert out.shape == (0, 4, 3)
    out.sum().backward()
    assert x.grad.shape == (0, 4, 3)


def test_rms_norm_too_few_dims():
    with pytest.raises(ValueError, match="at least 2 dimensions, but got 1"):
        nn.RMSNorm([3, 4])(_r(4))


# --- embeddings


def test_embedding_weight_must_be_2d():
    with pytest.raises(RuntimeError, match="^'weight' must be 2-D$"):  # torch's message
        F.embedding(mt.tensor([0, 1]), _r(5))


def test_embedding_bag_index_out_of_range():
    bag = nn.EmbeddingBag(10, 3)
    with pytest.raises(RuntimeError, match=r"Index 1 of input takes value 10 .*\[0, 10\)"):
        bag(mt.tensor([[1, 10]]))
    with pytest.raises(RuntimeError, match="Index 2 of input takes value -1"):
        bag(mt.tensor([1, 2, -1]), mt.tensor([0, 1]))


# --- recurrent layers


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_rnn_dtype_mismatch_is_value_error(cls):
    with pytest.raises(ValueError, match="input dtype \\(torch.float64\\) does not match weight"):
        cls(3, 4)(_r(5, 2, 3, dtype=np.float64))


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_rnn_empty_sequence(cls):
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        cls(3, 4)(_r(0, 2, 3))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        cls(3, 4, batch_first=True)(_r(2, 0, 3))


# --- attention


def test_mha_key_value_shape_mismatch():
    mha = nn.MultiheadAttention(4, 2)
    with pytest.raises(AssertionError, match="key shape .* does not match value shape"):
        mha(_r(3, 2, 4), _r(5, 2, 4), _r(4, 2, 4))
    sep = nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    with pytest.raises(AssertionError, match="key's sequence and batch dims"):
        sep(_r(3, 2, 4), _r(5, 2, 3), _r(4, 2, 5))


def test_sdpa_rank_and_dtype():
    with pytest.raises(RuntimeError, match="at least 2 dimensional.*query.dim: 1"):
        F.scaled_dot_product_attention(_r(4), _r(4), _r(4))
    with pytest.raises(RuntimeError, match="same dtype.*value.dtype: double"):  # torch spelling
        F.scaled_dot_product_attention(_r(2, 3, 4), _r(2, 5, 4), _r(2, 5, 4, dtype=np.float64))


# --- interpolation


def test_interpolate_size_length_mismatch():
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(_r(1, 2, 3), size=[4, 4])
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        nn.Upsample(size=(4, 4, 4))(_r(1, 2, 3, 3))


def test_interpolate_empty_output():
    with pytest.raises(RuntimeError, match=r"greater than 0.*input \(W: 3\) and output \(W: 0\)"):
        F.interpolate(_r(1, 2, 3), size=0)
    with pytest.raises(RuntimeError, match=r"input \(H: 0, W: 3\)"):
        F.interpolate(_r(1, 2, 0, 3), size=(2, 2), mode="bilinear")


# --- losses


def test_cross_entropy_probabilities_reject_ignore_index():
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        F.cross_entropy(_r(3, 5), _r(3, 5).abs(), ignore_index=1)
    F.cross_entropy(_r(3, 5), _r(3, 5).abs(), ignore_index=-100)  # the default is fine


def test_cross_entropy_0d_input():
    with pytest.raises(RuntimeError, match="Expected floating point type for target"):
        F.cross_entropy(_r(), mt.tensor(0))
    with pytest.raises(IndexError, match="^Dimension out of range"):
        F.cross_entropy(_r(), mt.tensor([0]))


def test_margin_losses_need_long_targets():
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Float$"):
        F.multi_margin_loss(_r(3, 5), mt.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Int$"):
        F.multilabel_margin_loss(_r(3, 5), mt.ones(3, 5, dtype=mt.int32))


def test_bce_with_logits_integer_target():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(_r(3), mt.tensor([1, 0, 1]))
    out = F.binary_cross_entropy_with_logits(_r(3), mt.tensor([1.0, 0.0, 1.0], dtype=mt.float64))
    assert out.dtype == mt.float64


def test_nll_loss_integer_input():
    with pytest.raises(NotImplementedError, match="nll_loss_out_frame\" not implemented for 'Lo"):
        F.nll_loss(mt.zeros(3, 5, dtype=mt.int64), mt.tensor([0, 1, 2]))


def test_kl_div_integer_inputs():
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported"):
        F.kl_div(mt.tensor([1, 2]), mt.tensor([1, 2]), reduction="sum")


def test_ctc_loss_empty_log_probs():
    with pytest.raises(RuntimeError, match="^log_probs tensor must not be empty$"):
        F.ctc_loss(_r(6, 0, 4), mt.zeros(0, 3, dtype=mt.int64), [], [])


# --- constructors' bad sizes that reach forward, and small activations


def test_pixel_shuffle_nonpositive_factor():
    with pytest.raises(RuntimeError, match="positive upscale_factor, but got 0"):
        nn.PixelShuffle(0)(_r(1, 4, 2, 2))
    with pytest.raises(RuntimeError, match="positive downscale_factor, but got -1"):
        F.pixel_unshuffle(_r(1, 2, 4, 4), -1)


def test_adaptive_pool_negative_output_size():
    with pytest.raises(RuntimeError, match=r"greater than or equal to 0 but received \{1, -1\}"):
        F.adaptive_avg_pool2d(_r(1, 2, 4, 4), (1, -1))


def test_pool_negative_padding():
    with pytest.raises(RuntimeError, match="^pad must be non-negative, but got pad: -1"):
        nn.MaxPool2d(2, padding=-1)(_r(1, 2, 4, 4))
    with pytest.raises(RuntimeError, match="max_pool1d\\(\\) padding must be non-negative"):
        F.max_pool1d(_r(1, 2, 4), 2, padding=-1)


def test_prelu_0d_input():
    x = mt.tensor(-2.0, requires_grad=True)
    out = F.prelu(x, mt.tensor([0.25]))
    assert out.shape == () and out.item() == -0.5
    out.backward()
    assert x.grad.item() == 0.25
    with pytest.raises(RuntimeError, match="Not allow zero-dim input tensor."):
        nn.PReLU(3)(x)


def test_hardtanh_bounds_message():
    with pytest.raises(AssertionError, match=r"max_val \(-1.0\) must be greater than min_val"):
        nn.Hardtanh(1.0, -1.0)


# --- dtype mismatches: torch refuses to promote a layer's output to its parameters' dtype


@pytest.mark.parametrize(
    "layer, shape",
    [
        (nn.BatchNorm1d(3), (4, 3)),
        (nn.LayerNorm(4), (2, 4)),
        (nn.GroupNorm(2, 4), (2, 4, 3)),
        (nn.InstanceNorm1d(3, affine=True), (2, 3, 5)),
    ],
)
def test_norm_float64_input_into_float32_parameters(layer, shape):
    with pytest.raises(
        RuntimeError, match=r"^mixed dtype \(CPU\): all inputs must share same datatype\.$"
    ):
        layer(_r(*shape, dtype=np.float64))


def test_norm_half_input_with_float32_parameters_is_allowed():
    out = F.layer_norm(_r(2, 4).half(), (4,), mt.ones(4), mt.zeros(4))
    assert out.dtype == mt.float16


def test_layer_norm_integer_input():
    with pytest.raises(NotImplementedError, match="LayerNormKernelImpl.* not implemented for"):
        F.layer_norm(mt.ones(2, 3, dtype=mt.int64), (3,))


def test_bilinear_dtype_mismatch():
    with pytest.raises(RuntimeError, match="^All tensors must have the same dtype, got input1: do"):
        nn.Bilinear(3, 4, 5)(_r(2, 3, dtype=np.float64), _r(2, 4))


def test_embedding_bag_per_sample_weights_dtype():
    with pytest.raises(RuntimeError, match=r"^Expected .*same type as .*embedding_bag\)$"):
        F.embedding_bag(
            mt.tensor([[1, 2]]), _r(5, 2), mode="sum", per_sample_weights=_r(1, 2).double()
        )


def test_rnn_hidden_dtype():
    # torch's oneDNN kernel (a float32 LSTM on the CPU) refuses the float64 state
    with pytest.raises(RuntimeError, match="^get_mkldnn_dtype: unsupported data type$"):
        nn.LSTM(3, 4)(_r(5, 2, 3), (_r(1, 2, 4, dtype=np.float64), _r(1, 2, 4)))


def test_multi_margin_weight_dtype():
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        F.multi_margin_loss(_r(3, 5), mt.tensor([0, 1, 2]), weight=mt.ones(5, dtype=mt.float64))


def test_bce_weights_keep_the_input_dtype():
    p = _r(3, 4).abs() * 0.9
    w = mt.ones(4, dtype=mt.float64)
    assert F.binary_cross_entropy(p, p, weight=w).dtype == mt.float32
    assert F.binary_cross_entropy_with_logits(p, p, weight=w, pos_weight=w).dtype == mt.float32


def test_sdpa_mask_dtype():
    q = _r(2, 3, 4)
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mt.zeros(3, 3, dtype=mt.int64))
    F.scaled_dot_product_attention(q, q, q, attn_mask=mt.zeros(3, 3, dtype=mt.bool))


def test_adaptive_pools_and_interpolate_integer_inputs():
    x = mt.ones(1, 2, 4, 4, dtype=mt.int64)
    with pytest.raises(
        NotImplementedError, match="adaptive_avg_pool2d.* not implemented for 'Long'"
    ):
        F.adaptive_avg_pool2d(x, 2)
    with pytest.raises(NotImplementedError, match="adaptive_max_pool2d"):
        F.adaptive_max_pool2d(x, 2)
    with pytest.raises(NotImplementedError, match="upsample_nearest2d.* not implemented for"):
        F.interpolate(x, size=3)
    assert F.interpolate(x.to(mt.uint8), size=3).dtype == mt.uint8


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.batch_norm(x, mt.zeros(3), mt.ones(3), mt.ones(3), mt.zeros(3)),
        lambda x: F.batch_norm(x, None, None, mt.ones(3), mt.zeros(3), training=True),
        lambda x: F.instance_norm(x, weight=mt.ones(3), bias=mt.zeros(3)),
        lambda x: F.rms_norm(x, (4,), mt.ones(4)),
    ],
)
def test_norm_output_keeps_the_half_input_dtype(fn):
    assert fn(_r(2, 3, 4).half()).dtype == mt.float16


def test_rms_norm_output_keeps_the_input_dtype():
    assert F.rms_norm(_r(2, 4), (4,), mt.ones(4, dtype=mt.float64)).dtype == mt.float32


def test_linear_with_zero_features_has_gradients():
    for shape in [(3, 0), (2, 3, 0)]:
        x = mt.ones(*shape, requires_grad=True)
        w = mt.ones(5, 0, requires_grad=True)
        b = mt.ones(5, requires_grad=True)
        y = F.linear(x, w, b)
        y.sum().backward()
        assert tuple(y.shape) == shape[:-1] + (5,)
        assert tuple(x.grad.shape) == shape and tuple(w.grad.shape) == (5, 0)
        assert b.grad.tolist() == [float(y.numel() // 5)] * 5


def test_nll_loss_with_every_target_ignored_has_zero_gradient():
    x = mt.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, mt.tensor([-100, -100, -100]))
    loss.backward()
    assert loss.isnan().item()  # 0 / 0, as torch
    assert x.grad.abs().sum().item() == 0.0


def test_max_pool_checks_the_pad_against_the_kernel_whatever_the_dilation():
    x = mt.ones(1, 1, 7, 8)
    msg = "pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2"
    with pytest.raises(RuntimeError, match=msg):
        F.max_pool2d(x, 3, 1, padding=2, dilation=2)  # within the dilated kernel's half
    with pytest.raises(RuntimeError, match="kT: 3 kW: 3 kH: 3 padT: 2 padW: 2 padH: 2"):
        F.max_pool3d(mt.ones(1, 1, 8, 8, 8), 3, 1, padding=2, dilation=2)
    with pytest.raises(RuntimeError, match="at most half of effective kernel size"):
        F.max_pool2d(x, 3, 1, padding=2)  # the dilation-1 check speaks first
    assert F.max_pool2d(x, 3, 1, padding=1, dilation=2).shape == (1, 1, 5, 6)


def test_adaptive_avg_pool_of_integers_is_a_mean_dtype_error():
    x = mt.arange(16).view(1, 1, 4, 4)
    for size in (1, (1, 1)):  # a global average: torch computes it as a mean
        with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Long"):
            F.adaptive_avg_pool2d(x, size)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.adaptive_avg_pool2d(x, (1, 2))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.adaptive_max_pool2d(mt.arange(16).view(1, 1, 4, 4), 1)


def test_negative_label_smoothing_means_none():
    x, y = mt.tensor([[1.0, 2.0, 0.5]]), mt.tensor([1])
    plain = F.cross_entropy(x, y).item()
    assert F.cross_entropy(x, y, label_smoothing=-0.1).item() == plain
    probs = mt.tensor([[0.2, 0.5, 0.3]])
    assert (
        F.cross_entropy(x, probs, label_smoothing=-0.3).item() == F.cross_entropy(x, probs).item()
    )
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(x, y, label_smoothing=1.5)


def test_torch_namespace_dropouts_check_p_as_a_kernel():
    # torch.dropout & co raise RuntimeError (F.dropout's Python check raises ValueError)
    x = mt.ones(1, 2, 2)
    for fn in (mt.dropout, mt.alpha_dropout, mt.feature_dropout, mt.feature_alpha_dropout):
        with pytest.raises(RuntimeError, match="has to be between 0 and 1, but got 1.5$"):
            fn(x, 1.5, True)
    with pytest.raises(RuntimeError, match="but got -1$"):
        mt.dropout(x, -1.0, False)
    with pytest.raises(ValueError, match="but got 2.0"):
        F.dropout(x, 2.0)
