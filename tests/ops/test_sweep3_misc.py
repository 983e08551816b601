"""Sweep 3's differences from torch: numbers written into narrow integer tensors (scatter,
where, pad, index_fill, masked_fill, fill_diagonal_, clamp), interpolate's spatial-count check,
dtype checks of cdist and grid_sample, linalg.svd's driver on CPU, the dtype of
binary_cross_entropy_with_logits, dropout and gumbel_softmax of integer tensors, and the
randomized svd_lowrank / pca_lowrank."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

U8_OVERFLOW = "value cannot be converted to type uint8_t without overflow"


def _raises(exc, msg, fn, *args, **kwargs):
    with pytest.raises(exc, match=re.escape(msg)):
        fn(*args, **kwargs)


def _u8():
    return mt.tensor([10, 100, 250], dtype=mt.uint8)


# --- numbers into narrow integer tensors (c10's checked conversion) ---


def test_scatter_value_takes_c10_checked_conversion():
    i = mt.tensor([0])
    # -1 into uint8 wraps to 255 (NumPy raised OverflowError), 256 raises torch's RuntimeError
    assert _u8().scatter(0, i, -1).tolist() == [255, 100, 250]
    assert _u8().scatter_(0, i, -1, reduce="add").tolist() == [9, 100, 250]
    for v in (256, 40000, -2.7, 255.5, float("nan")):
        _raises(RuntimeError, U8_OVERFLOW, _u8().scatter, 0, i, v)
    _raises(RuntimeError, "int8_t without overflow", mt.zeros(3, dtype=mt.int8).scatter, 0, i, 200)
    _raises(RuntimeError, "type int without overflow", mt.zeros(3, dtype=mt.int32).scatter, 0, i,
            2**31)  # fmt: skip
    assert mt.zeros(3, dtype=mt.int16).scatter(0, i, -2.7).tolist() == [-2, 0, 0]


def test_where_number_is_checked_not_wrapped():
    m = _u8() > 50
    _raises(RuntimeError, U8_OVERFLOW, mt.where, m, _u8(), 300)  # wrapped to 44 before
    _raises(RuntimeError, "int16_t without overflow", mt.where, m, _u8().short(), 40000)
    assert mt.where(m, _u8(), -1).tolist() == [255, 100, 250]
    assert mt.where(m, -1, _u8()).tolist() == [10, 255, 255]
    out = mt.where(m, mt.tensor([1, 2, 3], dtype=mt.int8), 2.5)
    assert out.dtype == mt.float32 and out.tolist() == [2.5, 2.0, 3.0]


def test_pad_value_is_converted_as_a_double():
    # torch's pad takes the value as a float: -1 into uint8 raises (fill_ would give 255)
    for v in (-1, -2.7, 255.5, 256, float("nan")):
        _raises(RuntimeError, U8_OVERFLOW, F.pad, _u8(), (1, 1), value=v)
    _raises(RuntimeError, "int8_t without overflow", F.pad, _u8().to(mt.int8), (1, 0), value=-129)
    _raises(RuntimeError, "c10::Half without overflow", F.pad, _u8().half(), (1, 0), value=1e6)
    assert F.pad(_u8(), (1, 0), value=255).tolist() == [255, 10, 100, 250]
    assert F.pad(_u8().to(mt.int8), (0, 1), value=-2.7).tolist() == [10, 100, -6, -2]
    assert F.pad(_u8(), (0, 0), value=-1).tolist() == [10, 100, 250]  # nothing written: no check
    assert F.pad(_u8(), (-1, 0), value=-1).tolist() == [100, 250]
    assert F.pad(_u8().bool(), (1, 0), value=-1.5).tolist() == [True, True, True, True]


def test_float_fills_of_unsigned_tensors_raise_below_zero():
    i = mt.tensor([0])
    m = _u8() > 50
    for v in (-2.7, -1.0, -0.5, 255.5):
        _raises(RuntimeError, U8_OVERFLOW, _u8().index_fill, 0, i, v)
        _raises(RuntimeError, U8_OVERFLOW, _u8().masked_fill, m, v)
        _raises(RuntimeError, U8_OVERFLOW, mt.zeros(2, 2, dtype=mt.uint8).fill_diagonal_, v)
        _raises(RuntimeError, U8_OVERFLOW, _u8().fill_, v)
    _raises(RuntimeError, "int8_t without overflow", mt.zeros(2, dtype=mt.int8).fill_, 127.5)
    assert _u8().masked_fill(m, 2.7).tolist() == [10, 2, 2]
    assert _u8().masked_fill(m, -1).tolist() == [10, 255, 255]  # the int -1 still wraps
    assert mt.zeros(2, dtype=mt.int8).masked_fill(mt.tensor([True, False]), -2.7).tolist() == [
        -2,
        0,
    ]


def test_clamp_number_bounds_on_uint8_take_checked_conversion():
    # torch converts the bounds to uint8: -5 is 251 (so every element becomes 200), -1 is 255
    assert _u8().clamp(-5, 200).tolist() == [200, 200, 200]
    assert _u8().clamp(min=-1).tolist() == [255, 255, 255]
    assert mt.clamp(_u8(), min=-1).tolist() == [255, 255, 255]
    x = _u8()
    x.clamp_(min=-1)
    assert x.tolist() == [255, 255, 255]
    _raises(RuntimeError, U8_OVERFLOW, _u8().clamp, max=300)
    _raises(RuntimeError, "int8_t without overflow", _u8().to(mt.int8).clamp, max=200)
    _raises(RuntimeError, "type int without overflow", mt.tensor([1], dtype=mt.int32).clamp,
            max=2**31)  # fmt: skip
    assert _u8().clamp(min=-2.5).dtype == mt.float32  # a float bound promotes: no conversion


# --- interpolate ---


def test_interpolate_checks_the_spatial_count_before_the_mode():
    img = mt.rand(3, 8, 10)  # a forgotten batch dim
    spatial = "same number of spatial dimensions, but got input with spatial dimensions of [10]"
    _raises(ValueError, spatial, F.interpolate, img, size=(5, 5), mode="bilinear")
    _raises(ValueError, "scale_factor must have the same number", F.interpolate, img,
            scale_factor=(2, 2), mode="bilinear")  # fmt: skip
    _raises(NotImplementedError, "bilinear mode needs 4D input", F.interpolate, img, size=5,
            mode="bilinear")  # fmt: skip
    _raises(ValueError, "of [8, 10, 4] and output size of (5, 5)", F.interpolate,
            mt.rand(1, 3, 8, 10, 4), size=(5, 5))  # fmt: skip


# --- cdist, grid_sample, svd's driver ---


def test_cdist_does_not_promote_and_refuses_half_in_its_direct_kernel():
    x = mt.rand(4, 3)
    _raises(RuntimeError, "expected scalar type Double but found Float", mt.cdist, x.double(), x)
    _raises(RuntimeError, "expected scalar type Float but found Double", mt.cdist, x, x.double())
    _raises(RuntimeError, "expected scalar type Double but found Half", mt.cdist, x.double(),
            x.half())  # fmt: skip
    for dt, name in ((mt.float16, "Half"), (mt.bfloat16, "BFloat16")):
        _raises(NotImplementedError, f"\"cdist\" not implemented for '{name}'", mt.cdist,
                x.to(dt), x.to(dt))  # fmt: skip
    _raises(NotImplementedError, "'Half'", mt.cdist, x.half(), x.half(), p=1)
    # the matmul form (more than 25 rows, p=2) takes half, and names C types on a mismatch
    y = mt.rand(30, 3)
    assert mt.cdist(y.half(), y.half()).dtype == mt.float16
    _raises(RuntimeError, "expected m1 and m2 to have the same dtype, but got: c10::Half != float",
            mt.cdist, y.half(), y)  # fmt: skip
    # empty inputs take no kernel: x1's dtype
    out = mt.cdist(mt.rand(0, 3), x.double())
    assert out.dtype == mt.float32 and out.shape == (0, 4)


def test_grid_sample_dtype_checks():
    x = mt.rand(1, 1, 4, 4)
    g = mt.zeros(1, 2, 2, 2)
    _raises(RuntimeError, "expected scalar type Float but found Double", F.grid_sample, x,
            g.double(), align_corners=False)  # fmt: skip
    _raises(RuntimeError, "expected scalar type Double but found Float", F.grid_sample,
            x.double(), g, align_corners=False)  # fmt: skip
    _raises(NotImplementedError, "\"grid_sampler_2d_cpu_kernel_impl\" not implemented for 'Long'",
            F.grid_sample, x.long(), g, align_corners=False)  # fmt: skip
    _raises(NotImplementedError, "\"grid_sampler3d_cpu\" not implemented for 'Long'",
            F.grid_sample, mt.rand(1, 1, 3, 4, 4).long(), mt.zeros(1, 2, 2, 2, 3),
            align_corners=False)  # fmt: skip
    out = F.grid_sample(x.double(), g.double(), align_corners=False)
    assert out.dtype == mt.float64


def test_linalg_svd_driver_is_cuda_only():
    a = mt.rand(3, 3)
    msg = "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA"
    _raises(RuntimeError, msg, mt.linalg.svd, a, driver="gesvd")
    _raises(RuntimeError, msg, mt.linalg.svdvals, a, driver="gesvdj")
    assert mt.linalg.svd(a[:0], driver="gesvd").S.shape == (0,)  # empty: returns first
    _raises(RuntimeError, "Expected a floating point", mt.linalg.svd, a.long(), driver="gesvd")


# --- binary_cross_entropy_with_logits, dropout, gumbel_softmax ---


def test_bce_with_logits_result_has_the_target_dtype():
    logits = mt.tensor([0.5, -1.0, 3.0], dtype=mt.float64, requires_grad=True)
    target = mt.tensor([1.0, 0.0, 0.3])
    ref = (1 - np.array([1.0, 0.0, 0.3])) * [0.5, -1.0, 3.0] + np.log1p(
        np.exp(-np.array([0.5, -1.0, 3.0]))
    )
    out = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    assert out.dtype == mt.float32
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-6, err_msg="bce values")
    mean = F.binary_cross_entropy_with_logits(logits, target)
    assert mean.dtype == mt.float32
    mean.backward()
    assert logits.grad.dtype == mt.float64
    sig = 1 / (1 + np.exp(-np.array([0.5, -1.0, 3.0])))
    np.testing.assert_allclose(logits.grad.numpy(), (sig - [1.0, 0.0, 0.3]) / 3, rtol=1e-6,
                               err_msg="bce gradient")  # fmt: skip
    pw = F.binary_cross_entropy_with_logits(logits, target, pos_weight=mt.full((3,), 2.0,
                                            dtype=mt.float64))  # fmt: skip
    assert pw.dtype == mt.float32
    assert F.binary_cross_entropy_with_logits(logits.float(), target.double()).dtype == mt.float64
    t64 = target.double()
    assert gradcheck(lambda x: F.binary_cross_entropy_with_logits(x, t64), (logits,))
    assert gradgradcheck(lambda x: F.binary_cross_entropy_with_logits(x, t64), (logits,))


@pytest.mark.parametrize(
    "fn, name",
    [
        (lambda: F.dropout(mt.tensor([1, 2, 3]), 0.5), "Long"),
        (lambda: mt.nn.Dropout(0.1)(mt.ones(3, dtype=mt.int32)), "Int"),
        (lambda: F.dropout(mt.tensor([True, False]), 0.5), "Bool"),
        (lambda: F.dropout2d(mt.ones(1, 2, 2, 2, dtype=mt.uint8), 0.5), "Byte"),
        (lambda: F.dropout(mt.tensor([1, 2, 3]), 0.5, inplace=True), "Long"),
    ],
)
def test_dropout_of_integer_tensors_raises_torchs_cast_error(fn, name):
    _raises(RuntimeError, f"result type Float can't be cast to the desired output type {name}", fn)


def test_dropout_of_integer_tensors_where_torch_returns_early():
    x = mt.tensor([1, 2, 3])
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 1.0).tolist() == [0, 0, 0]
    e = mt.tensor([], dtype=mt.int64)
    assert F.dropout(e, 0.5) is e


def test_gumbel_softmax_of_integer_logits():
    msg = (
        "Exponential distribution is a continuous probability distribution. dtype must be a "
        "floating point but you specified Long"
    )
    _raises(RuntimeError, msg, F.gumbel_softmax, mt.tensor([[0, 5]]))
    _raises(RuntimeError, msg, F.gumbel_softmax, mt.tensor([[0, 5]]), hard=True)
    assert F.gumbel_softmax(mt.tensor([[0.0, 5.0]], dtype=mt.float16)).dtype == mt.float16


# --- svd_lowrank, pca_lowrank ---


def _low_rank(m, n, r, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, r)) @ rng.standard_normal((r, n))


def _check_orthonormal(q, what):
    k = q.shape[-1]
    eye = np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k))
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, eye, atol=1e-10, err_msg=what)


@pytest.mark.parametrize("shape", [(20, 8), (8, 20), (2, 15, 10)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape):
    mt.manual_seed(0)
    a = np.stack([_low_rank(*shape[-2:], 3, s) for s in range(int(np.prod(shape[:-2])))])
    a = a.reshape(shape)
    U, S, V = mt.svd_lowrank(mt.tensor(a), q=5)
    m, n = shape[-2:]
    assert U.shape == shape[:-2] + (m, 5) and S.shape == shape[:-2] + (5,)
    assert V.shape == shape[:-2] + (n, 5) and U.dtype == mt.float64
    u, s, v = U.numpy(), S.numpy(), V.numpy()
    exact = np.linalg.svd(a, compute_uv=False)[..., :5]
    np.testing.assert_allclose(s, exact, atol=1e-9, err_msg="singular values vs exact SVD")
    rebuilt = (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)
    np.testing.assert_allclose(rebuilt, a, atol=1e-9, err_msg="reconstruction")
    _check_orthonormal(u[..., :3], "U's columns")
    _check_orthonormal(v[..., :3], "V's columns")


def test_svd_lowrank_defaults_m_and_small_q():
    mt.manual_seed(0)
    a = _low_rank(12, 9, 9, 1)
    U, S, V = mt.svd_lowrank(mt.tensor(a))  # q=6, niter=2
    assert U.shape == (12, 6) and S.shape == (6,) and V.shape == (9, 6)
    exact = np.linalg.svd(a, compute_uv=False)
    # below the rank the sketch is approximate: the top values, near and never above the exact
    assert np.all(S.numpy() <= exact[:6] * (1 + 1e-12))
    np.testing.assert_allclose(S.numpy()[:2], exact[:2], rtol=2e-2, err_msg="top values")
    _check_orthonormal(U.numpy(), "U")
    _check_orthonormal(V.numpy(), "V")
    # M is subtracted (broadcast): the SVD of A - M, here of rank 2
    low = _low_rank(12, 9, 2, 2)
    mrow = np.arange(9.0)
    U, S, V = mt.svd_lowrank(mt.tensor(low + mrow), q=3, M=mt.tensor(mrow))
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ V.numpy().T, low, atol=1e-9,
                               err_msg="svd_lowrank of A - M")  # fmt: skip
    assert [tuple(t.shape) for t in mt.svd_lowrank(mt.rand(3, 5), q=6)] == [(3, 3), (3,), (5, 3)]
    assert [tuple(t.shape) for t in mt.svd_lowrank(mt.rand(5, 3), q=0)] == [(5, 0), (0,), (3, 0)]
    _raises(ValueError, "not enough values to unpack", mt.svd_lowrank, mt.rand(3))


def test_pca_lowrank_centers_and_checks_q():
    mt.manual_seed(0)
    a = _low_rank(30, 6, 2, 3) + np.arange(6.0) * 10  # rank 2 once the column means go
    U, S, V = mt.pca_lowrank(mt.tensor(a))  # q = min(6, m, n)
    assert U.shape == (30, 6) and S.shape == (6,) and V.shape == (6, 6)
    centered = a - a.mean(0)
    exact = np.linalg.svd(centered, compute_uv=False)
    np.testing.assert_allclose(S.numpy(), exact, atol=1e-9, err_msg="pca singular values")
    # the top direction matches the exact one up to sign
    v_exact = np.linalg.svd(centered)[2][0]
    np.testing.assert_allclose(abs(V.numpy()[:, 0] @ v_exact), 1.0, atol=1e-9, err_msg="PC1")
    _, S2, _ = mt.pca_lowrank(mt.tensor(a), q=3, center=False)  # rank 3
    np.testing.assert_allclose(S2.numpy(), np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-9,
                               err_msg="uncentered")  # fmt: skip
    msg = "q(=7) must be non-negative integer and not greater than min(m, n)=6"
    _raises(ValueError, msg, mt.pca_lowrank, mt.tensor(a), q=7)
    _raises(ValueError, "niter(=-1) must be non-negative integer", mt.pca_lowrank,
            mt.tensor(a), niter=-1)  # fmt: skip
    _raises(RuntimeError, "mean(): could not infer output dtype", mt.pca_lowrank,
            mt.tensor(a).long())  # fmt: skip


def test_svd_lowrank_gradients():
    a = mt.tensor(_low_rank(6, 4, 4, 4), requires_grad=True)

    def top_values(x):
        mt.manual_seed(0)  # the same test matrix on every call
        return mt.svd_lowrank(x, q=4)[1]

    assert gradcheck(top_values, (a,))
    assert gradgradcheck(top_values, (a,))


def test_float32_scans_accumulate_in_float64_as_torch():
    x = mt.full((10**6,), 0.1)
    assert x.cumsum(0)[-1].item() == 100000.0  # a float32 running sum ends near 100958
    assert x.cumsum(0).dtype is mt.float32
    pdf = np.random.default_rng(0).uniform(0, 1, (50, 14)).astype(np.float32)
    want = np.cumsum(pdf.astype(np.float64), -1).astype(np.float32)
    np.testing.assert_array_equal(mt.tensor(pdf).cumsum(-1).numpy(), want)
    assert mt.cumprod(mt.full((100,), 1.01), 0)[-1].item() == pytest.approx(
        2.7048113346099854, abs=0
    )


def test_float32_variance_accumulates_in_float64():
    pts = np.random.default_rng(0).normal(size=(200_000, 3)).astype(np.float32)
    pts += np.array([1000.0, -2000.0, 50.0], dtype=np.float32)
    want = pts.astype(np.float64).std(0, ddof=1)
    np.testing.assert_allclose(mt.tensor(pts).std(0).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(mt.tensor(pts).var(0).numpy(), want**2, rtol=1e-6)


def test_div_gradient_by_the_divisor_in_torchs_order():
    # -g (a / b) / b: a / b**2 underflows or overflows where a / b does not
    for v in (1e-25, 2e20):
        a = mt.tensor([v], requires_grad=True)
        b = mt.tensor([v / 2 if v > 1 else v], requires_grad=True)
        (a / b).sum().backward()
        want = -(np.float32(a.item()) / np.float32(b.item())) / np.float32(b.item())
        assert np.isfinite(b.grad.item()) and b.grad.item() == pytest.approx(float(want), rel=1e-6)


def test_clamp_with_tensor_bounds_gives_the_gradient_to_the_selected_one():
    x = mt.tensor([0.0, 2.0, 3.0], requires_grad=True)
    cases = {
        (2.0, 2.0): [[0, 1, 0], [0, 0, 0], [0, 0, 1]],  # equal bounds below: nobody (torch's rule)
        (2.5, 2.0): [[0, 0, 0], [0, 0, 0], [1, 1, 1]],  # crossed bounds: the output is max
        (1.0, 2.5): [[0, 1, 0], [1, 0, 0], [0, 0, 1]],
    }
    for (lov, hiv), want in cases.items():
        lo = mt.full((3,), lov, requires_grad=True)
        hi = mt.full((3,), hiv, requires_grad=True)
        grads = mt.autograd.grad(mt.clamp(x, min=lo, max=hi).sum(), [x, lo, hi])
        assert [g.tolist() for g in grads] == want


def test_narrow_ints_with_a_0d_int_tensor_in_float_ops_are_not_wrapped():
    # int16 PCM / tensor(32768): the 0-d int64 went through int16 first and wrapped to -32768
    pcm = mt.tensor([-32768, -1, 16384, 32767], dtype=mt.int16)
    got = (pcm / mt.tensor(32768)).tolist()
    np.testing.assert_allclose(got, np.array([-32768, -1, 16384, 32767]) / 32768, rtol=1e-6)
    u8 = mt.tensor([200, 100], dtype=mt.uint8)
    np.testing.assert_allclose((u8 / mt.tensor(256)).tolist(), [200 / 256, 100 / 256], rtol=1e-6)
    assert mt.copysign(u8, mt.tensor(-300)).tolist() == [-200.0, -100.0]
    np.testing.assert_allclose(
        mt.atan2(pcm, mt.tensor(40000)).numpy(), np.arctan2(pcm.numpy(), 40000.0), rtol=1e-6
    )


def test_blackman_window_in_its_own_dtype_as_torch():
    w64 = mt.blackman_window(8, dtype=mt.float64)
    assert w64[0].item() == 0.0  # 0.08 - 0.5 + 0.42 in torch's order
    w32 = mt.blackman_window(8)
    assert w32[0].item() == np.float32(np.float32(0.08) - np.float32(0.5)) + np.float32(0.42)
    np.testing.assert_allclose(w64.numpy(), np.blackman(9)[:8], atol=1e-15)
