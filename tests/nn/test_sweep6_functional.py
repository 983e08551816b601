"""Sweep 6 (functional): overflowed norm variances, attention mask dtypes, max_unpool index
dtypes, zero-channel interpolate/unfold/adaptive pools, grid_sample's empty spatial dims."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _np_layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


# --- layer_norm / group_norm: a variance past the dtype's range gives NaN, not zeros ---


@pytest.mark.parametrize(
    "row", [[1e30, 1e30, 0.0], [1e20, -1e20, 0.0, 1.0], [3e38, -3e38] + [0.0] * 30]
)
def test_layer_norm_overflowed_variance_is_nan(device, row):
    x = minitorch.tensor([row, [1.0, 2.0] + [0.0] * (len(row) - 2)], device=device)
    w = minitorch.ones(len(row), device=device)
    b = minitorch.zeros(len(row), device=device)
    for out in (F.layer_norm(x, (len(row),)), F.layer_norm(x, (len(row),), w, b)):
        got = out.cpu().numpy()
        assert np.isnan(got[0]).all(), got[0]  # old code: zeros (1 / sqrt(inf) = 0)
        np.testing.assert_allclose(got[1], _np_layer_norm(x.cpu().numpy()[1]), rtol=1e-5)


def test_layer_norm_overflowed_row_in_a_later_block():
    # 600 rows of 128: several blocks of NOTE [ Blocked LayerNorm ]; only the bad row is NaN
    rng = np.random.default_rng(0)
    a = rng.standard_normal((600, 128)).astype(np.float32)
    a[517, :2] = 1e30
    out = F.layer_norm(minitorch.tensor(a), (128,)).numpy()
    assert np.isnan(out[517]).all()
    keep = np.arange(600) != 517
    np.testing.assert_allclose(out[keep], _np_layer_norm(a[keep]), rtol=1e-4, atol=1e-5)


def test_group_norm_overflowed_variance_is_nan():
    x = minitorch.tensor([[[1e30], [1e30], [0.0], [1.0], [2.0], [4.0]]])  # (1, 6, 1), 2 groups
    got = F.group_norm(x, 2).numpy().reshape(6)
    assert np.isnan(got[:3]).all(), got
    np.testing.assert_allclose(got[3:], _np_layer_norm([1.0, 2.0, 4.0]), rtol=1e-5)
    got = minitorch.nn.GroupNorm(1, 3)(minitorch.tensor([[1e30, 1e30, 0.0]]).reshape(1, 3, 1))
    assert np.isnan(got.detach().numpy()).all()


def test_norm_rstd_spelling_keeps_values_and_gradients():
    # rstd = sqrt(v) / v: finite values and both derivative orders as before
    rng = np.random.default_rng(1)
    x = minitorch.tensor(rng.standard_normal((3, 5)), dtype=minitorch.float64)
    np.testing.assert_allclose(F.layer_norm(x, (5,)).numpy(), _np_layer_norm(x.numpy()), 1e-12)
    x.requires_grad_(True)
    w = minitorch.tensor(rng.standard_normal(5), dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda a, w: F.layer_norm(a, (5,), w), (x, w))
    assert gradgradcheck(lambda a, w: F.layer_norm(a, (5,), w), (x, w))
    g = minitorch.tensor(rng.standard_normal((2, 4, 3)), dtype=minitorch.float64)
    g.requires_grad_(True)
    assert gradcheck(lambda a: F.group_norm(a, 2), (g,))
    assert gradgradcheck(lambda a: F.group_norm(a, 2), (g,))


# --- nn.MultiheadAttention: the merged mask must have the query's dtype (need_weights) ---


def _mha(dtype):
    minitorch.manual_seed(0)
    return minitorch.nn.MultiheadAttention(8, 2, batch_first=True).to(dtype)


@pytest.mark.parametrize(
    "model, mask, want",
    [
        (minitorch.float64, minitorch.float32, "input float, batch1: double, batch2: double"),
        (minitorch.float32, minitorch.float16, "input c10::Half, batch1: float, batch2: float"),
        (minitorch.float32, minitorch.float64, "input double, batch1: float, batch2: float"),
    ],
)
def test_mha_mask_of_another_float_dtype_raises(model, mask, want):
    mha = _mha(model)
    x = minitorch.ones(2, 4, 8, dtype=model)
    cases = (
        {"attn_mask": minitorch.zeros(4, 4, dtype=mask)},
        {"key_padding_mask": minitorch.zeros(2, 4, dtype=mask)},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in cases:
            with pytest.raises(RuntimeError, match=f"Input dtypes must be the same, got: {want}"):
                mha(x, x, x, **kw)


def test_mha_masks_that_merge_to_the_query_dtype_still_work():
    mha = _mha(minitorch.float32)
    x = minitorch.ones(2, 4, 8)
    am = minitorch.zeros(4, 4, dtype=minitorch.float16)
    kpm = minitorch.zeros(2, 4)  # float16 + float32 merge to float32: torch accepts this
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, w = mha(x, x, x, attn_mask=am, key_padding_mask=kpm)
        ref, _ = mha(x, x, x)
    assert out.dtype is minitorch.float32
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(w.detach().numpy(), np.full((2, 4, 4), 0.25), rtol=1e-6)


# --- scaled_dot_product_attention: a 1-D integer mask is a dtype error first ---


def test_sdpa_1d_int_mask_is_a_dtype_error():
    q, k = minitorch.ones(2, 2, 1, 4), minitorch.ones(2, 2, 5, 4)
    for dt, name in ((minitorch.int64, "long int"), (minitorch.int32, "int")):
        mask = minitorch.tensor([1, 1, 1, 0, 0], dtype=dt)
        want = f"attn_mask.dtype: {name} and  query.dtype: float instead"
        with pytest.raises(RuntimeError, match=want):
            F.scaled_dot_product_attention(q, k, k, attn_mask=mask)
    with pytest.raises(IndexError, match="got -2"):  # a 1-D bool mask: the dim error
        F.scaled_dot_product_attention(q, k, k, attn_mask=minitorch.ones(5, dtype=minitorch.bool))


# --- max_unpool: indices must be int64 ---


@pytest.mark.parametrize("dt", [minitorch.int32, minitorch.int16, minitorch.float32])
def test_max_unpool_rejects_non_int64_indices(dt):
    name = {minitorch.int32: "Int", minitorch.int16: "Short", minitorch.float32: "Float"}[dt]
    x2 = minitorch.ones(1, 1, 2, 2)
    i2 = minitorch.tensor([[[[0, 3], [8, 15]]]], dtype=dt)
    with pytest.raises(RuntimeError, match=f"should be type int64 but got: {name}$"):
        F.max_unpool2d(x2, i2, 2)
    with pytest.raises(RuntimeError, match=f"should be type int64 but got: {name}$"):
        F.max_unpool1d(minitorch.ones(1, 1, 2), i2[0, :, :1], 2)
    with pytest.raises(RuntimeError, match="elements in indices should be type int64$"):
        F.max_unpool3d(minitorch.ones(1, 1, 1, 2, 2), i2.unsqueeze(2), 2)
    out = F.max_unpool2d(x2, i2.long(), 2)  # int64 still unpools
    np.testing.assert_array_equal(out.numpy().reshape(-1).nonzero()[0], [0, 3, 8, 15])


# --- zero channels: interpolate, unfold/fold and the adaptive pools refuse them ---


@pytest.mark.parametrize(
    "shape, mode",
    [
        ((1, 0, 3), "linear"),
        ((1, 0, 3), "nearest"),
        ((1, 0, 3, 3), "bilinear"),
        ((1, 0, 3, 3), "bicubic"),
        ((1, 0, 3, 3), "nearest-exact"),
        ((0, 0, 3, 3), "nearest"),
        ((1, 0, 3, 3, 3), "trilinear"),
    ],
)
def test_interpolate_zero_channels_raises(shape, mode):
    kw = {"align_corners": False} if "linear" in mode or mode == "bicubic" else {}
    want = f"Non-empty {len(shape)}D data tensor expected but got a tensor with sizes"
    with pytest.raises(RuntimeError, match=want):
        F.interpolate(minitorch.zeros(*shape), scale_factor=2, mode=mode, **kw)


def test_interpolate_empty_batch_and_area_zero_channels():
    out = F.interpolate(minitorch.zeros(0, 2, 3, 3), size=(5, 5), mode="bilinear")
    assert out.shape == (0, 2, 5, 5)
    assert F.interpolate(minitorch.zeros(1, 0, 3, 3), size=(5, 5), mode="area").shape == (
        1,
        0,
        5,
        5,
    )  # adaptive_avg_pool2d takes empty channels
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool3d\(\): .* dimension 1 being empty"):
        F.interpolate(minitorch.zeros(1, 0, 3, 3, 3), size=(5, 5, 5), mode="area")


def test_adaptive_pools_zero_channels():
    for fn, shape in (
        (F.adaptive_max_pool1d, (1, 0, 3)),
        (F.adaptive_max_pool2d, (1, 0, 3, 3)),
        (F.adaptive_max_pool3d, (1, 0, 3, 3, 3)),
        (F.adaptive_avg_pool3d, (0, 0, 3, 3, 3)),
    ):
        with pytest.raises(RuntimeError, match="with dimension 1 being empty"):
            fn(minitorch.zeros(*shape), 2)
    assert F.adaptive_avg_pool2d(minitorch.zeros(1, 0, 3, 3), 2).shape == (1, 0, 2, 2)
    assert F.adaptive_max_pool3d(minitorch.zeros(0, 3, 3, 3), 2).shape == (0, 2, 2, 2)
    assert F.adaptive_max_pool2d(minitorch.zeros(0, 2, 3, 3), 2).shape == (0, 2, 2, 2)


@pytest.mark.parametrize("shape", [(1, 0, 3, 3), (0, 3, 3), (2, 0, 3), (1, 2, 0, 3)])
def test_unfold_empty_non_batch_dims_raise(shape):
    want = (
        "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
        f"dimensions for input, but got: {list(shape)}"
    )
    with pytest.raises(RuntimeError, match=re.escape(want)):
        F.unfold(minitorch.zeros(*shape), 2)


def test_fold_empty_non_batch_dims_raise_and_empty_batch_unfolds():
    assert F.unfold(minitorch.zeros(0, 2, 3, 3), 2).shape == (0, 8, 4)
    for shape in ((2, 0, 3), (4, 0)):
        with pytest.raises(RuntimeError, match=r"non-zero dimensions for input, but got"):
            F.fold(minitorch.zeros(*shape), (4, 4), 2)


# --- grid_sample: an empty spatial dim of the input ---


@pytest.mark.parametrize(
    "ishape, gshape, dim",
    [
        ((1, 1, 0, 2, 2), (1, 1, 1, 2, 3), 2),
        ((1, 1, 2, 2, 0), (1, 1, 1, 2, 3), 4),
        ((1, 1, 2, 0), (1, 1, 2, 2), 3),
        ((0, 1, 0, 2), (0, 1, 2, 2), 2),  # even with nothing to sample
        ((1, 1, 0, 2), (1, 0, 2, 2), 2),
    ],
)
def test_grid_sample_empty_spatial_dim(ishape, gshape, dim):
    want = (
        r"grid_sampler\(\): expected input to have non-empty spatial dimensions, but input has "
        rf"sizes \[{', '.join(map(str, ishape))}\] with dimension {dim} being empty"
    )
    with pytest.raises(RuntimeError, match=want):
        F.grid_sample(minitorch.zeros(*ishape), minitorch.zeros(*gshape), align_corners=True)
    # zero channels are fine: an empty result
    out = F.grid_sample(
        minitorch.zeros(1, 0, 2, 2), minitorch.zeros(1, 1, 2, 2), align_corners=True
    )
    assert out.shape == (1, 0, 1, 2)
