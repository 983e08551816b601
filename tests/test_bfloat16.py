"""bfloat16 through the ops whose dtype checks used to miss it (ml_dtypes' bfloat16 has NumPy kind
'V', not 'f'): NaN handling, float32 accumulation, float-only paths. Without torch: a half-precision
result is checked against the same op in float32, rounded, or against torch's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops._common import is_floating

ml_dtypes = pytest.importorskip("ml_dtypes")

# ml_dtypes warns when it compares a bfloat16 NaN (NumPy's float types do not); not checked here.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

NAN = float("nan")
INF = float("inf")
WITH_NAN = [1.0, NAN, 2.0, 0.25, -INF, 0.5, 3.0]
SMALL_STEPS = [1.0] + [2.0**-9] * 64  # each step vanishes when summed in bfloat16
ONES = [1.0] * 1000
F = mt.nn.functional


def _zeros_like_int(x):
    return mt.zeros(x.shape[0], dtype=mt.int64, device=x.device)


def _all_rows(x):
    """One bag of every row of an embedding table with x.shape[0] rows."""
    return mt.arange(x.shape[0], device=x.device)[None]


def _zeros(x):
    return mt.zeros(1, dtype=x.dtype, device=x.device)


def _like(x, shape, value=1.0):
    return mt.full(shape, value, dtype=x.dtype, device=x.device)


def _softmax_backward(g):
    """The gradient of softmax at zeros (every output 1 / n) for the upstream gradient g."""
    c = mt.zeros(g.shape[0], dtype=g.dtype, device=g.device, requires_grad=True)
    return mt.autograd.grad(mt.softmax(c, 0), c, g, create_graph=True)[0]


def _values(t):
    return t.detach().cpu().float().numpy() if t.dtype.is_floating_point else t.cpu().numpy()


def _same(got, want, where):
    """got (half precision) equals want (float32) rounded to got's dtype, NaNs included."""
    if want.dtype.is_floating_point:
        want = want.to(got.dtype)
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    np.testing.assert_array_equal(_values(got), _values(want), err_msg=where)


def test_is_floating():
    floats = [np.dtype(n) for n in ("float16", "float32", "float64")]
    assert all(is_floating(d) for d in floats + [np.dtype(ml_dtypes.bfloat16)])
    assert not any(is_floating(np.dtype(n)) for n in ("bool", "uint8", "int32", "int64", "V2"))


# op(x) on a bfloat16 (or float16) tensor and on the same values in float32: the two agree after
# rounding because the half-precision op accumulates in float32 (sum, pools) or treats NaN as a
# float (cummax, sort, max_pool), as torch does.
CASES = {
    "sum": (SMALL_STEPS, lambda x: x.sum()),
    "mean": (SMALL_STEPS, lambda x: x.mean()),
    "nansum": (SMALL_STEPS + [NAN], lambda x: x.nansum()),
    "nanmean": (WITH_NAN[:4], lambda x: x.nanmean()),
    "cumsum": (SMALL_STEPS, lambda x: x.cumsum(0)),
    "cumprod": ([1.0 + 2.0**-7] * 40, lambda x: x.cumprod(0)),
    "logcumsumexp": ([SMALL_STEPS[:8], WITH_NAN[:4] * 2], lambda x: x.logcumsumexp(1)),
    "var": ([[1.5, -2.25, 3.0, 0.3], SMALL_STEPS[:4]], lambda x: x.var(1)),
    "std": ([[1.5, -2.25, 3.0, 0.3], SMALL_STEPS[:4]], lambda x: x.std()),
    "cummax": (WITH_NAN, lambda x: mt.cummax(x, 0)),
    "cummin": (WITH_NAN, lambda x: mt.cummin(x, 0)),
    "median": (WITH_NAN, lambda x: x.median()),
    "nanmedian": (WITH_NAN, lambda x: x.nanmedian()),
    "nanmedian_dim": ([WITH_NAN, WITH_NAN[::-1]], lambda x: x.nanmedian(1)),
    "sort": (WITH_NAN, lambda x: mt.sort(x)),
    "sort_descending": (WITH_NAN, lambda x: mt.sort(x, descending=True)),
    "topk": (WITH_NAN, lambda x: mt.topk(x, 3)),
    # (not differentiable: its result requires grad, but backward raises, as torch's)
    "unique": (WITH_NAN + [2.0], lambda x: mt.unique(x.detach(), return_counts=True)),
    "max_pool1d": ([WITH_NAN[:6]], lambda x: F.max_pool1d(x, 2, return_indices=True)),
    "max_pool2d": ([[WITH_NAN[:3], [-1.0, -2.0, -3.0]]], lambda x: F.max_pool2d(x, 2, stride=1)),
    "avg_pool1d": ([SMALL_STEPS[:9]], lambda x: F.avg_pool1d(x, 3)),
    "avg_pool2d": ([[SMALL_STEPS[:4], [1.5, -2.25, 3.0, 0.5]]], lambda x: F.avg_pool2d(x, 2)),
    # 1,000 ones: a sum kept in bfloat16 stops at 256 (256 + 1 rounds back to 256)
    "norm": (ONES, lambda x: x.norm()),
    "norm_1": (ONES, lambda x: x.norm(p=1)),
    "vector_norm_3": (ONES, lambda x: mt.linalg.vector_norm(x, 3)),
    "dist": (ONES, lambda x: mt.dist(x, x * 0)),
    "logsumexp": ([[0.0] * 1000, [1.0] * 1000], lambda x: x.logsumexp(1)),
    "sum_dtype": (ONES, lambda x: x.sum(dtype=x.dtype)),
    "nansum_dtype": (ONES + [NAN], lambda x: x.nansum(dtype=x.dtype)),
    "nll_loss_sum": (ONES, lambda x: F.nll_loss(x[:, None], _zeros_like_int(x), reduction="sum")),
    "embedding_bag_sum": (ONES, lambda x: F.embedding_bag(_all_rows(x), x[:, None], mode="sum")),
    "embedding_bag_mean": (
        [1.0] * 500 + [2.0**-9] * 500,
        lambda x: F.embedding_bag(_all_rows(x), x[:, None], mode="mean"),
    ),
    "nan_to_num": ([1.0, NAN, INF, -INF, 0.5], lambda x: x.nan_to_num(0.5, 9.0, -9.0)),
    "einsum_sum": (ONES, lambda x: mt.einsum("i->", x)),  # bfloat16 raised in NumPy's einsum
    "einsum_dot": (ONES, lambda x: mt.einsum("i,i->", x, x)),
    "matrix_exp": ([[0.5, -0.25], [0.125, 0.75]], lambda x: mt.linalg.matrix_exp(x)),  # float16
    # the sum of grad * softmax (1,024 terms of 2**-10 and 2**-11) kept in bfloat16 fell short
    "softmax_backward": ([1.0] * 512 + [0.5] * 512, lambda g: _softmax_backward(g)),
    # float16: the product (1 + 2**-11) rounded before the bias was added lost 2**-10
    "conv1d_bias": (
        [1.0, 2.0**-11],
        lambda x: F.conv1d(x[None, None], _like(x, (1, 1, 2)), _like(x, (1,), 2.0**-11))[0, 0],
    ),
    "linear_bias": (
        [1.0, 2.0**-11],
        lambda x: F.linear(x, _like(x, (1, 2)), _like(x, (1,), 2.0**-11)),
    ),
    "linear_bias_bf16": (
        [1.0, 2.0**-8],
        lambda x: F.linear(x, _like(x, (1, 2)), _like(x, (1,), 2.0**-8)),
    ),
    # computed in float32 with float32's eps (bfloat16's eps, 2**-7, gave 0.09 for 1.0 here)
    "rms_norm": ([[2.0**-7] * 4, [1.5, -2.25, 3.0, 0.25]], lambda x: F.rms_norm(x, (4,))),
    # float32 throughout, rounded once (x - mean, and the attention weights, were rounded)
    "group_norm": (
        [[1.5, -2.25, 3.0, 0.25], [2.0**-7, 1.0, 1.0 + 2.0**-7, 0.5]],
        lambda x: F.group_norm(x[None], 2),
    ),
    "sdpa": (
        [[1.5, -2.25, 3.0, 0.25], [2.0**-7, 1.0, 1.0 + 2.0**-7, 0.5]],
        lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None]),
    ),
    # (interpolate rounds its weights in half as torch does: tests/test_s19_conv_pool.py)
    "addmm": (
        [1.0, 2.0**-11],
        lambda x: mt.addmm(_like(x, (1, 1), 2.0**-11), x[None], _like(x, (2, 1))),
    ),
    "baddbmm": (
        [1.0, 2.0**-11],
        lambda x: mt.baddbmm(_like(x, (1, 1, 1), 2.0**-11), x[None, None], _like(x, (1, 2, 1))),
    ),
    # 1,000 ones into one slot: scatter sums half duplicates in float32 (np.add.at in bfloat16
    # stopped at 256; counts of a mean too); index_add/index_put do stop there, see below
    "scatter_add_long": (ONES, lambda s: _zeros(s).scatter_add(0, _zeros_like_int(s), s)),
    "scatter_reduce_sum_long": (
        ONES,
        lambda s: _zeros(s).scatter_reduce(0, _zeros_like_int(s), s, "sum", include_self=False),
    ),
    "scatter_reduce_mean_long": (
        [1.0] * 500 + [2.0**-9] * 500,
        lambda s: _zeros(s).scatter_reduce(0, _zeros_like_int(s), s, "mean", include_self=False),
    ),
    "scatter_reduce_amax": (
        [-1.0, -2.0, 3.0],
        lambda s: mt.zeros(2, dtype=s.dtype, device=s.device).scatter_reduce(
            0, mt.tensor([0, 0, 1], device=s.device), s, "amax", include_self=False
        ),
    ),
    "scatter_reduce_mean": (
        [-1.0, -2.0, 4.0],
        lambda s: mt.ones(2, dtype=s.dtype, device=s.device).scatter_reduce(
            0, mt.tensor([0, 0, 1], device=s.device), s, "mean"
        ),
    ),
}


# These backwards are composed of half-precision ops (rounded at each step), as torch's are.
_GRAD_ROUNDED_IN_HALF = {"cumprod", "logcumsumexp", "var", "std", "logsumexp"}
_GRAD_ROUNDED_IN_HALF |= {"norm", "norm_1", "vector_norm_3", "dist"}
_GRAD_ROUNDED_IN_HALF |= {"sdpa"}  # x is query, key and value: three half gradients summed


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(CASES))
def test_half_precision_op_matches_float32_rounded(name, dtype, device):
    vals, op = CASES[name]
    x = mt.tensor(vals, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    x32 = mt.tensor(vals, dtype=mt.float32, device=device, requires_grad=True)
    got, want = op(x), op(x32)
    gots = tuple(got) if isinstance(got, tuple) else (got,)
    wants = tuple(want) if isinstance(want, tuple) else (want,)
    for k, (g, w) in enumerate(zip(gots, wants, strict=True)):
        _same(g, w, f"{name} {dtype} output {k}")
    if gots[0].requires_grad and name not in _GRAD_ROUNDED_IN_HALF:
        # an upstream gradient exact in half precision
        up = (np.arange(gots[0].numel()).reshape(tuple(gots[0].shape)) % 5 - 2) / 4
        gots[0].backward(mt.tensor(up.tolist(), dtype=x.dtype, device=device))
        wants[0].backward(mt.tensor(up.tolist(), device=device))
        _same(x.grad, x32.grad, f"{name} {dtype} grad")


def test_nextafter_bfloat16(device):
    x = mt.tensor([1.0, 1.0, -2.0], dtype=mt.bfloat16, device=device)
    got = mt.nextafter(x, mt.tensor([2.0, 0.0, 0.0], dtype=mt.bfloat16, device=device))
    assert got.dtype == mt.bfloat16
    assert got.tolist() == [1.0 + 2.0**-7, 1.0 - 2.0**-8, -2.0 + 2.0**-7]


def test_histc_bfloat16_bins_as_torch(device):
    x = mt.tensor([1.5, -2.25, 3.0, 0.30078125, 7.0, -0.69921875, 0.5, 4.0], dtype=mt.bfloat16)
    got = mt.histc(x.to(device), bins=5)
    assert got.dtype == mt.bfloat16
    assert got.tolist() == [2.0, 2.0, 2.0, 1.0, 1.0]  # torch 2.13's numbers
    # (x - min) * bins / (max - min) rounded to bfloat16 at each step puts 0.0 in bin 3 of 7
    # (torch's CPU kernel; on an H200, CuPy's bfloat16 arithmetic put one more value in bin 4)
    if device.startswith("cuda"):
        return
    got = mt.histc(mt.linspace(-3, 3, 101, dtype=mt.float32, device=device).bfloat16(), bins=7)
    assert got.tolist() == [15.0, 14.0, 14.0, 14.0, 15.0, 14.0, 15.0]


def test_histc_float32_edge_as_torch(device):
    """torch bins without NumPy's correction against the edges: 0.7 lands in bin 3, not 2."""
    ks = [9, 7, -8, 3, 12, 9, 11, 0, 3, -2]
    x = mt.tensor([k / 10 for k in ks], device=device)
    assert mt.histc(x, bins=4).tolist() == [1.0, 2.0, 2.0, 5.0]  # NumPy's: [1, 2, 3, 4]


@pytest.mark.parametrize("vals", [[0.0, INF], [1.0, NAN]])
def test_histc_nonfinite_range(vals):
    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[.*\] is not finite"):
        mt.histc(mt.tensor(vals, dtype=mt.bfloat16))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int64"])
def test_bincount_weights_dtype(dtype):
    w = mt.tensor([0.5, 0.25, 1.0], dtype=getattr(mt, dtype) if dtype != "int64" else mt.float32)
    if dtype == "int64":
        w = mt.tensor([1, 2, 3])
    got = mt.bincount(mt.tensor([0, 1, 1]), w)
    assert got.dtype == (mt.float32 if dtype == "float32" else mt.float64)  # as torch


def test_inplace_divide_bfloat16_no_graph(device):
    x = mt.tensor([1.5, -2.25, 3.0, 0.30078125], dtype=mt.bfloat16, device=device)
    other = mt.tensor([3.0, 7.0, -0.5, 0.1], dtype=mt.bfloat16, device=device)
    want = (x.float() / other.float()).bfloat16()
    x.div_(other)
    _same(x, want.float(), "div_")


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
@pytest.mark.parametrize(
    "op, vals, share",
    [
        ("median", [1.0, 0.5, 2.0, 0.5, 3.0, 0.5], [0, 1, 0, 1, 0, 1]),
        ("median", [1.0, NAN, 2.0, NAN], [0, 1, 0, 1]),  # the result is NaN: the NaNs share
        ("nanmedian", [1.0, NAN, 0.5, 2.0, 0.5], [0, 0, 1, 0, 1]),
    ],
)
def test_median_of_all_splits_the_gradient_among_ties(op, vals, share, dtype, device):
    """As torch (evenly_distribute_backward); the median along a dim picks one element."""
    x = mt.tensor(vals, dtype=getattr(mt, dtype), device=device, requires_grad=True)
    (g,) = mt.autograd.grad(getattr(x, op)(), x, mt.tensor(0.75, dtype=x.dtype, device=device))
    n = sum(share)
    assert g.dtype == x.dtype
    np.testing.assert_array_equal(_values(g), np.array(share) * np.float32(0.75 / n), err_msg=op)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_trace_of_half_precision_keeps_the_dtype(device, dtype):
    # (was int64 for bfloat16); the diagonal summed in float32 and rounded once
    m = np.diag([1.0] + [2.0**-9] * 64).astype(np.float32)
    got = mt.trace(mt.tensor(m, dtype=getattr(mt, dtype), device=device))
    _same(got, mt.tensor(m.trace(), device=device), f"trace {dtype}")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_remainder_and_fmod_round_the_number_first(device, dtype):
    # torch rounds the number to the tensor's dtype, then computes in float32 and rounds once
    # (bfloat16 fmod(x, 0.3) used 0.3 unrounded: 90% of the elements were off)
    x = mt.tensor(np.linspace(-4, 4, 401), dtype=getattr(mt, dtype), device=device)
    s = mt.tensor(0.3, dtype=x.dtype).float().item()
    for op in (mt.remainder, mt.fmod):
        _same(op(x, 0.3), op(x.float(), s), f"{op.__name__} {dtype}")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_mul_div_keep_the_number_in_float32(device, dtype):
    # NOTE [ Half-precision arithmetic ]: x * 0.3 is float32(x) * float32(0.3), rounded once;
    # x + 0.3 rounds 0.3 to the dtype first
    x = mt.tensor(np.linspace(-4, 4, 401), dtype=getattr(mt, dtype), device=device)
    xf = x.float()
    _same(x * 0.3, xf * 0.3, f"mul {dtype}")
    _same(x / 0.3, xf / 0.3, f"div {dtype}")
    s = mt.tensor(0.3, dtype=x.dtype).float().item()
    _same(x + 0.3, xf + s, f"add {dtype}")
    _same(x - 0.3, xf - s, f"sub {dtype}")


def test_histc_with_a_range_drops_nan_and_outliers_without_reading_the_device():
    # NaN and out-of-range values go to an extra bin that is dropped
    from minitorch._backend.strict import count_transfers

    x = mt.tensor([0.5, -3.0, NAN, 0.9, 2.5, -0.2], device="strict")
    with count_transfers() as t:
        got = mt.histc(x, bins=4, min=-1, max=1)
    assert t.count == 0
    assert got.cpu().tolist() == [0.0, 1.0, 0.0, 2.0]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_composed_norms_of_long_rows(dtype, device):
    # cosine_similarity and normalize divide by a norm: within half precision of float64
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 1000)) + 0.5
    x, y = (mt.tensor(v, device=device).to(getattr(mt, dtype)) for v in (a, b))
    a, b = _values(x).astype(np.float64), _values(y).astype(np.float64)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(_values(F.cosine_similarity(x, y)), cos, rtol=0, atol=0.02)
    unit = a / np.sqrt((a * a).sum(1, keepdims=True))
    np.testing.assert_allclose(_values(F.normalize(x, dim=1)), unit, rtol=0.02, atol=1e-3)


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.amax(1),
        lambda x: x.aminmax(),
        lambda x: mt.histc(x, bins=3, min=0, max=3),
    ],
    ids=["max", "min", "amax", "aminmax", "histc"],
)
def test_no_warning_reaches_the_user_for_a_bfloat16_nan(op):
    import warnings

    x = mt.tensor([[1.0, NAN, 3.0, 2.0]], dtype=mt.bfloat16)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # then minitorch's own filter for its kernels, as at import
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=mt._KERNEL_MODULES)
        op(x)
    assert [str(w.message) for w in caught] == []


def test_index_add_and_index_put_accumulate_half_duplicates_one_by_one():
    # torch's CPU kernels add duplicates in the half dtype, rounding after each add: 1,000
    # bfloat16 ones into one slot stop at 256 (float16 holds every integer up to 2048)
    idx = mt.zeros(1000, dtype=mt.int64)
    for dt, want in ((mt.bfloat16, 256.0), (mt.float16, 1000.0)):
        ones, z = mt.ones(1000, dtype=dt), mt.zeros(1, dtype=dt)
        assert z.index_add(0, idx, ones).item() == want
        assert z.index_put((idx,), ones, accumulate=True).item() == want
        assert z.scatter_add(0, idx, ones).item() == 1000.0  # scatter sums in float32
