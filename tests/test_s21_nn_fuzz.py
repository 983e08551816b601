"""Fixes found by session 21's differential fuzzing of nn layers and losses against torch: empty
batches in max_unpool, fractional max pooling's empty output and low-rank input, torch's exact
error texts (scaled_dot_product_attention, interpolate, in-place leaky_relu), and cross_entropy's
probability targets with a negative ignore_index. Expected values were obtained from torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


# --- max_unpool with an empty batch: torch returns an empty result of the unpooled size ---


@pytest.mark.parametrize(
    "n, shape, want",
    [
        (1, (0, 2, 3), (0, 2, 6)),
        (2, (0, 2, 2, 2), (0, 2, 4, 4)),
        (3, (0, 1, 2, 2, 2), (0, 1, 4, 4, 4)),
    ],
)
def test_max_unpool_empty_batch(n, shape, want):
    x = mt.zeros(shape, requires_grad=True)
    idx = mt.zeros(shape, dtype=mt.long)
    out = getattr(F, f"max_unpool{n}d")(x, idx, 2)
    assert tuple(out.shape) == want
    out.sum().backward()
    assert tuple(x.grad.shape) == shape


def test_max_unpool_module_empty_batch_after_pool():
    x = mt.zeros(0, 2, 3, 3, requires_grad=True)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    assert tuple(mt.nn.MaxUnpool2d(2)(y, i).shape) == (0, 2, 2, 2)


# --- fractional max pooling ---


def test_fractional_max_pool_empty_output_stays_on_the_graph():
    samples = mt.tensor(np.full((1, 1, 2), 0.5))
    m = mt.nn.FractionalMaxPool2d(3, output_ratio=0.3, _random_samples=samples)
    x = mt.tensor(np.random.default_rng(0).standard_normal((1, 1, 3, 6)), requires_grad=True)
    out = m(x)
    assert tuple(out.shape) == (1, 1, 0, 1)
    assert out.requires_grad and out.grad_fn.name() == "FractionalMaxPool2DBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((1, 1, 3, 6)))


@pytest.mark.parametrize(
    "cls, shape, lo, hi, dim",
    [("FractionalMaxPool2d", (3,), -1, 0, -2), ("FractionalMaxPool3d", (3, 4), -2, 1, -3)],
)
def test_fractional_max_pool_output_ratio_on_too_few_dims(cls, shape, lo, hi, dim):
    m = getattr(mt.nn, cls)(2, output_ratio=0.5)
    msg = rf"Dimension out of range \(expected to be in range of \[{lo}, {hi}\], but got {dim}\)"
    with pytest.raises(IndexError, match=msg):
        m(mt.randn(*shape))


# --- scaled_dot_product_attention: torch's messages carry no op prefix ---


def test_sdpa_error_messages():
    q = mt.randn(1, 2, 3)
    sdpa = F.scaled_dot_product_attention
    with pytest.raises(RuntimeError) as e:
        sdpa(q[0, 0], q, q)
    assert str(e.value) == (
        "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1 "
        "key.dim: 3 and value.dim: 3 instead."
    )
    with pytest.raises(RuntimeError) as e:
        sdpa(q, q.double(), q)
    assert str(e.value) == (
        "Expected query, key, and value to have the same dtype, but got query.dtype: float "
        "key.dtype: double and value.dtype: float instead."
    )
    with pytest.raises(RuntimeError) as e:
        sdpa(q, q, q, attn_mask=mt.zeros(2, 2, dtype=mt.float64))
    assert str(e.value) == (
        "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
        "attn_mask.dtype: double and  query.dtype: float instead."
    )


def test_multihead_attention_float32_with_double_mask_message():
    m = mt.nn.MultiheadAttention(4, 2)
    x = mt.randn(3, 1, 4)
    with pytest.raises(RuntimeError, match="^Expected attn_mask dtype"):
        m(x, x, x, attn_mask=mt.zeros(3, 3, dtype=mt.float64), need_weights=False)


# --- in-place leaky_relu with a negative slope: torch's message goes on past elu's ---


def test_inplace_leaky_relu_negative_slope_message():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    y = F.leaky_relu(x * 1.0, -0.5, inplace=True)
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    assert str(e.value).endswith(
        "please call out-of-place version instead. File an issue at "
        "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
        "backward calculation with negative slope"
    )
    with pytest.raises(RuntimeError) as e:  # elu's (and celu's) stop there
        F.elu(x * 1.0, alpha=-0.5, inplace=True).sum().backward()
    assert str(e.value).endswith("please call out-of-place version instead.")


# --- cross_entropy with probability targets: any negative ignore_index is accepted ---


def test_cross_entropy_probs_negative_ignore_index():
    x = mt.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=mt.float64)
    loss = F.cross_entropy(x, y, ignore_index=-1, reduction="sum")
    np.testing.assert_allclose(loss.item(), 2.4976670088863036, rtol=1e-12)
    loss.backward()
    want = [
        [-0.024709607859963317, -0.26088742672931253, 0.2855970345892759],
        [0.13612472431259381, 0.06425162762508779, -0.2003763519376817],
    ]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        F.cross_entropy(x, y, ignore_index=0)


def test_cross_entropy_probs_grads_check():
    x = mt.tensor(np.random.default_rng(1).standard_normal((2, 3)), requires_grad=True)
    y = mt.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype=mt.float64)
    f = lambda a: F.cross_entropy(a, y, ignore_index=-5)  # noqa: E731
    assert mt.autograd.gradcheck(f, (x,))
    assert mt.autograd.gradgradcheck(f, (x,))


# --- interpolate: torch's exact texts ---


@pytest.mark.parametrize(
    "mode, shape, want",
    [
        ("nearest", (1, 1, 1), "input (W: 1) and output (W: 0)"),
        ("linear", (1, 1, 1), "input (W: 1) and output (W: 0)"),
        ("nearest-exact", (1, 1, 1, 1), "input (H: 1, W: 1) output (H: 0, W: 0)"),
        ("bilinear", (1, 1, 1, 2), "input (H: 1, W: 2) output (H: 0, W: 1)"),
        ("trilinear", (1, 1, 1, 1, 1), "input (D: 1, H: 1, W: 1) output (D: 0, H: 0, W: 0)"),
    ],
)
def test_interpolate_empty_output_message(mode, shape, want):
    with pytest.raises(RuntimeError) as e:
        F.interpolate(mt.zeros(shape), scale_factor=0.5, mode=mode)
    assert str(e.value) == "Input and output sizes should be greater than 0, but got " + want


def test_interpolate_empty_channels_message():
    with pytest.raises(RuntimeError) as e:
        F.interpolate(mt.zeros(1, 0, 2, 2), scale_factor=2.0, mode="nearest")
    assert str(e.value) == (
        "Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 2, 2]"
    )


@pytest.mark.parametrize("shape", [(1, 1, 2), (1, 1, 2, 2, 2)])
def test_interpolate_bicubic_wrong_rank_message(shape):
    with pytest.raises(NotImplementedError) as e:
        F.interpolate(mt.zeros(shape), scale_factor=2.0, mode="bicubic")
    assert str(e.value) == (
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {len(shape)}D) for the "
        "modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        "nearest-exact (got bicubic)"
    )
