"""Session 25: NumPy programs ported to torch (helper "np"). Each program is written once
against a `torch`-like module, the way people port NumPy experiments to get gradients (`np.` ->
`torch.`, `array` -> `tensor`): image processing on uint8 arrays (slicing-sum convolution, Sobel,
histogram equalisation with histc/bincount/cumsum/searchsorted/bucketize, colour quantisation,
im2col by unfold), signal processing (cumsum/unfold moving averages, conv1d autocorrelation,
diff/gradient/trapezoid), statistics (cov/corrcoef/var(correction=)/median/quantile/nan-reductions/
mode, bootstrap with generators), finance-style rolling windows, geometry (cross, norms, rotation,
cdist, meshgrid, polar), game of life and rule 30 with roll and integer tensors, sorting/ranking
(stable argsort, unique, searchsorted(side=, sorter=)), masking and fancy indexing (x[idx] += 1
with duplicates vs index_put_(accumulate=True)), integer arithmetic (floor division/remainder of
negatives, shifts, int8/uint8 wrap, promotion), in-place writes through views, NumPy-named
functions, NumPy objects mixed in (NumPy scalars on either side, from_numpy of strided/read-only
arrays, np.asarray(t)), common porting mistakes (axis=/keepdims=, x[::-1], .astype) and
gradients through all of it. Run under torch and minitorch after the same manual_seed; every
recorded value, dtype, shape, exception (type and message) and warning must agree, except the
entries of KNOWN (each with its reason)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from tests.reference._programs import run_program, warning_text

torch = pytest.importorskip("torch")


class Rec:
    """Collects (name, normalised value) pairs in program order; a callable is called and its
    exception recorded as (type name, message)."""

    def __init__(self, lib):
        self.lib = lib
        self.items = []

    def __call__(self, name, fn_or_value):
        if callable(fn_or_value) and not hasattr(fn_or_value, "dtype"):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v = fn_or_value()
            except Exception as e:  # noqa: BLE001
                self.items.append((name, ("error", type(e).__name__, str(e))))
                return
        else:
            v = fn_or_value
        self.items.append((name, self.norm(v)))

    def w(self, name, fn):
        """Like __call__, also recording the warnings fn gives."""
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            try:
                v = self.norm(fn())
            except Exception as e:  # noqa: BLE001
                v = ("error", type(e).__name__, str(e))
        msgs = sorted({warning_text(w) for w in ws})
        self.items.append((name, (v, ("warnings", msgs))))

    def norm(self, v):
        lib = self.lib
        if isinstance(v, lib.Tensor):
            d = v.detach().cpu()
            a = np.array(d.tolist()) if d.numel() else np.zeros(tuple(d.shape))
            return ("tensor", str(v.dtype), tuple(v.shape), a)
        if isinstance(v, np.ndarray):
            return ("ndarray", str(v.dtype), v.shape, v.copy())
        if isinstance(v, np.generic):
            return ("npscalar", type(v).__name__, v.item())
        if isinstance(v, (tuple, list)):
            kind = type(v).__name__ if type(v) in (tuple, list) else "seq"
            return (kind, [self.norm(x) for x in v])
        if isinstance(v, type):
            return ("type", v.__name__)
        if isinstance(v, (bool, int, float, str, type(None))):
            return (type(v).__name__, v)
        if isinstance(v, lib.dtype):
            return ("dtype", str(v))
        return ("other", type(v).__name__, repr(v))


def same(a, b, rtol=1e-5, atol=1e-6):
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return np.allclose(
                a.astype(float), b.astype(float), rtol=rtol, atol=atol, equal_nan=True
            )
        return np.array_equal(a, b)
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
    return a == b


# Differences judged expected, by recorded name.
_DOCUMENTED = "README 'Differences from PyTorch'"
KNOWN = {
    # no complex dtypes: the supported-type list of the message differs (and torch refuses a
    # NumPy uint64 scalar, which minitorch takes as it takes uint16/uint32 ones)
    **dict.fromkeys(
        ["t_np_obj", "t_np_str", "t_np_datetime", "tensor_np_ld", "from_numpy_ld",
         "tensor_np_ld_scalar", "tensor_np_u64_scalar"],
        _DOCUMENTED + ": complex out of scope",
    ),
    "np_isnan_t": _DOCUMENTED + ": NumPy ufuncs with a bool result give bool tensors",
    "np_where_t": _DOCUMENTED + ": NumPy functions minitorch has an op for return Tensors",
    "np_stack_ts": _DOCUMENTED + ": NumPy functions minitorch has an op for return Tensors",
    # torch 2.13 + NumPy 2.4: `ndarray * tensor` raises in torch; here NumPy's operator defers
    # to the tensor's, as the README's NumPy-function rule
    "nparr_add_t": "ndarray op Tensor returns a tensor here",
    "np_0d_arr_rtimes": "ndarray op Tensor returns a tensor here",
    "np_array_copy_false": "np.array(t, copy=False) shares memory here; torch's __array__ "
    "takes no copy= and NumPy refuses",
    "dtype_np": "_dtype.to_dtype: NumPy dtypes accepted as dtype= (Differences from torch)",
    "zeros_np_dtype": "_dtype.to_dtype: NumPy dtypes accepted as dtype= (Differences from torch)",
    "size_attr": "repr of a bound method",
    # TypeErrors of both; the message is Python's, not torch's argument parser's
    **dict.fromkeys(
        ["flip_axis", "flip_nodims", "clip_kw", "transpose_np", "transpose_perm",
         "flatten_order", "linspace_noint", "eye_k", "where_np_cond"],
        "argument-parser wording of a TypeError",
    ),
    "T_1d": "torch warns once per process (tools/fuzz/README.md)",
    "T_3d": "torch warns once per process (tools/fuzz/README.md)",
    "matmul_ndarray": "torch's own DeprecationWarning from NumPy's __array_wrap__",
    "histc_nan": "torch prints the sign of its reduction's NaN ('-nan')",
    "add_np_arr_fn": "left: torch.add(t, ndarray) is a TypeError in torch (reported)",
}  # fmt: skip


def p_image_conv(torch, rec):
    # 3x3 box blur and sobel by slicing sums on a uint8 image, then gradient magnitude
    g = torch.Generator().manual_seed(3)
    img = torch.randint(0, 256, (8, 9), generator=g, dtype=torch.uint8)
    rec("img", img)
    f = img.float() / 255
    pad = torch.nn.functional.pad(f[None, None], (1, 1, 1, 1), mode="replicate")[0, 0]
    blur = sum(pad[i : i + 8, j : j + 9] for i in range(3) for j in range(3)) / 9
    rec("blur", blur)
    gx = (pad[:-2, 2:] + 2 * pad[1:-1, 2:] + pad[2:, 2:]) - (
        pad[:-2, :-2] + 2 * pad[1:-1, :-2] + pad[2:, :-2]
    )
    gy = (pad[2:, :-2] + 2 * pad[2:, 1:-1] + pad[2:, 2:]) - (
        pad[:-2, :-2] + 2 * pad[:-2, 1:-1] + pad[:-2, 2:]
    )
    mag = torch.hypot(gx, gy)
    ang = torch.atan2(gy, gx)
    rec("mag", mag)
    rec("ang", ang)
    rec("u8sum", img.sum())
    rec("u8sum_dtype", lambda: img.sum().dtype)
    rec("u8_plus", img + 10)
    rec("u8_minus", img - 200)
    rec("u8_mul", img * 2)
    rec("u8_neg", lambda: -img)
    rec("u8_int8", lambda: img + torch.tensor([-1], dtype=torch.int8))
    rec("u8_div", img / 2)
    rec("u8_fdiv", img // 3)
    rec("u8_clamp", img.clamp(10, 200))
    rec("u8_mean_err", lambda: img.mean())
    rec("u8_float_mean", img.float().mean())
    rec("u8_max", img.max())
    rec("u8_argmax", img.argmax())
    rec("thr", (img > 128).to(torch.uint8) * 255)
    rec("inv", 255 - img)
    rec("inv2", ~img)
    rec("cumsum_u8", img.cumsum(0))
    rec("cumsum_u8_dt", img.cumsum(0, dtype=torch.uint8))
    # conv via F.conv2d for compare
    k = torch.tensor([[1.0, 2, 1], [0, 0, 0], [-1, -2, -1]])
    rec("conv", torch.nn.functional.conv2d(pad[None, None], k[None, None])[0, 0])


def p_hist_eq(torch, rec):
    g = torch.Generator().manual_seed(5)
    img = (torch.randn(16, 16, generator=g) * 30 + 100).clamp(0, 255).to(torch.uint8)
    rec("img", img)
    h = torch.histc(img.float(), bins=256, min=0, max=255)
    rec("histc", h)
    bc = torch.bincount(img.flatten(), minlength=256)
    rec("bincount", bc)
    rec("bincount_w", torch.bincount(img.flatten()[:10], weights=torch.arange(10.0)))
    rec("bincount_w64", torch.bincount(img.flatten()[:10], weights=torch.arange(10.0).double()))
    rec("bincount_err", lambda: torch.bincount(img.flatten().float()))
    rec("bincount_neg", lambda: torch.bincount(torch.tensor([-1, 2])))
    cdf = bc.cumsum(0)
    rec("cdf", cdf)
    cdf_min = cdf[cdf > 0].min()
    lut = ((cdf - cdf_min) * 255 / (cdf[-1] - cdf_min)).round().clamp(0, 255).to(torch.uint8)
    rec("lut", lut)
    eq = lut[img.long()]
    rec("eq", eq)
    rec("eq_u8idx", lambda: lut[img])
    edges = torch.linspace(0, 255, 9)
    rec("bucketize", torch.bucketize(img.float(), edges))
    rec("bucketize_r", torch.bucketize(img.float(), edges, right=True))
    rec("bucketize_i32", torch.bucketize(img.float(), edges, out_int32=True))
    rec("ss_left", torch.searchsorted(edges, img.float().flatten()[:12]))
    rec("ss_right", torch.searchsorted(edges, img.float().flatten()[:12], side="right"))
    unsorted = torch.tensor([5.0, 1.0, 3.0, 9.0, 7.0])
    srt = unsorted.argsort()
    rec("ss_sorter", torch.searchsorted(unsorted, torch.tensor([2.0, 8.0, 5.0]), sorter=srt))
    rec("ss_scalar", lambda: torch.searchsorted(edges, 100.0))
    rec("ss_scalar_t", lambda: torch.searchsorted(edges, torch.tensor(100.0)))
    rec("ss_int_vals", lambda: torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2, 4])))
    rec("ss_mixed", lambda: torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.0, 4.0])))
    rec(
        "ss_side_right_conflict",
        lambda: torch.searchsorted(edges, torch.tensor([1.0]), side="left", right=True),
    )
    rec("hist", torch.histogram(img.float().flatten(), bins=8))
    rec("hist_range", torch.histogram(img.float().flatten(), bins=4, range=(50.0, 150.0)))
    rec("hist_dens", torch.histogram(img.float().flatten(), bins=5, density=True))
    rec(
        "hist_edges", torch.histogram(img.float().flatten(), bins=torch.tensor([0.0, 50, 100, 255]))
    )
    rec("hist_w", torch.histogram(img.float().flatten(), bins=3, weight=torch.ones(256) * 0.5))
    rec("hist_int_err", lambda: torch.histogram(img.flatten(), bins=3))
    rec("histc_int", lambda: torch.histc(img, bins=4))
    rec("histc_auto", torch.histc(torch.tensor([1.0, 2, 1, 4]), bins=4))
    rec("histc_const", torch.histc(torch.tensor([3.0, 3, 3]), bins=3))
    rec("histogramdd", lambda: torch.histogramdd(torch.rand(20, 2), bins=[3, 2]))


def p_signal(torch, rec):
    g = torch.Generator().manual_seed(7)
    t = torch.linspace(0, 4 * 3.141592653589793, 64)
    x = torch.sin(t) + 0.3 * torch.randn(64, generator=g)
    rec("x", x)
    c = torch.cumsum(torch.cat([torch.zeros(1), x]), 0)
    ma = (c[5:] - c[:-5]) / 5
    rec("ma_cumsum", ma)
    ma2 = x.unfold(0, 5, 1).mean(-1)
    rec("ma_unfold", ma2)
    rec("unfold_step", x.unfold(0, 8, 4).shape)
    rec("unfold_2d", torch.arange(12.0).reshape(3, 4).unfold(1, 2, 1))
    xc = x - x.mean()
    ac = torch.nn.functional.conv1d(xc[None, None], xc[None, None], padding=63)[0, 0]
    rec("autocorr", ac / ac[63])
    rec("diff", torch.diff(x[:6]))
    rec("diff2", torch.diff(x[:6], n=2))
    rec("diff_prepend", torch.diff(x[:6], prepend=torch.zeros(1)))
    rec("diff_append", torch.diff(x[:6], append=torch.tensor([1.0, 2.0])))
    rec("diff_int", torch.diff(torch.tensor([1, 4, 9, 16])))
    rec("diff_bool", torch.diff(torch.tensor([True, False, False, True])))
    rec("diff_u8", torch.diff(torch.tensor([5, 3, 9], dtype=torch.uint8)))
    rec("diff_dim", torch.diff(torch.arange(12.0).reshape(3, 4), dim=0))
    rec("diff_prepend_scalar", lambda: torch.diff(x[:4], prepend=torch.tensor(0.0)))
    rec("trapz", torch.trapezoid(x, t))
    rec("trapz_dx", torch.trapezoid(x, dx=0.5))
    rec("cumtrapz", torch.cumulative_trapezoid(x[:5], dx=0.1))
    rec("trapz_int", torch.trapezoid(torch.tensor([1, 2, 3])))
    # zero crossings
    s = torch.sign(x)
    zc = torch.nonzero(s[1:] != s[:-1], as_tuple=True)[0]
    rec("zc", zc)
    rec("sign_zero", torch.sign(torch.tensor([-0.0, 0.0, 2.0])))
    rec("signbit", torch.signbit(torch.tensor([-0.0, 0.0, -2.0])))
    # peaks
    pk = (x[1:-1] > x[:-2]) & (x[1:-1] > x[2:])
    rec("peaks", torch.argwhere(pk).squeeze(1) + 1)
    rec("ema", torch.tensor([0.5**i for i in range(5)]).flip(0))
    y = torch.zeros_like(x)
    a = 0.2
    y[0] = x[0]
    for i in range(1, 10):
        y[i] = a * x[i] + (1 - a) * y[i - 1]
    rec("ema_loop", y[:10])


def p_stats(torch, rec):
    g = torch.Generator().manual_seed(11)
    X = torch.randn(5, 40, generator=g, dtype=torch.float64)
    rec("cov", torch.cov(X))
    rec("cov_c0", torch.cov(X, correction=0))
    rec("cov_fw", torch.cov(X[:, :6], fweights=torch.tensor([1, 2, 1, 3, 1, 1])))
    rec("cov_aw", torch.cov(X[:, :6], aweights=torch.rand(6, generator=g, dtype=torch.float64)))
    rec("cov_1d", torch.cov(X[0]))
    rec("corr", torch.corrcoef(X))
    rec("corr_const", torch.corrcoef(torch.stack([X[0], torch.ones(40, dtype=torch.float64)])))
    rec("var", X.var(1))
    rec("var_c0", X.var(1, correction=0))
    rec("var_c2", torch.var(X, dim=1, correction=2))
    rec("var_unb", torch.var(X, 1, unbiased=False))
    rec("std_mean", torch.std_mean(X, dim=1, keepdim=True))
    rec("var_1", lambda: torch.tensor([1.0]).var())
    rec("median", X.median())
    rec("median_dim", X.median(dim=1))
    rec("median_even", torch.tensor([1.0, 4.0, 2.0, 3.0]).median())
    rec("nanmedian", torch.tensor([1.0, float("nan"), 2.0, 3.0]).nanmedian())
    rec("median_nan", torch.tensor([1.0, float("nan"), 2.0, 3.0]).median())
    q = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64)
    rec("quantile", torch.quantile(X, q, dim=1))
    for interp in ["linear", "lower", "higher", "midpoint", "nearest"]:
        rec("quantile_" + interp, torch.quantile(X[0], 0.33, interpolation=interp))
    rec("quantile_keep", torch.quantile(X, 0.5, dim=1, keepdim=True).shape)
    rec("quantile_f32q", lambda: torch.quantile(X[0], torch.tensor([0.5])))
    rec("quantile_int", lambda: torch.quantile(torch.tensor([1, 2, 3]), 0.5))
    rec("nanquantile", torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5))
    Y = X.clone()
    Y[Y > 1.5] = float("nan")
    rec("nanmean", Y.nanmean(1))
    rec("nansum", torch.nansum(Y, 1))
    rec("nanmean_all_nan", torch.tensor([float("nan")]).nanmean())
    rec("nansum_int", torch.nansum(torch.tensor([1, 2])))
    rec("mode", torch.mode(torch.tensor([3, 1, 2, 3, 1, 1, 2, 2])))
    rec("mode_2d", torch.tensor([[1, 2, 2], [3, 3, 1]]).mode(1))
    rec("mode_float", torch.tensor([0.5, 0.25, 0.5]).mode())
    # bootstrap
    data = X[0]
    gen = torch.Generator().manual_seed(42)
    idx = torch.randint(0, 40, (200, 40), generator=gen)
    boots = data[idx].mean(1)
    rec("boot_idx0", idx[0])
    rec("boot_ci", torch.quantile(boots, torch.tensor([0.025, 0.975], dtype=torch.float64)))
    rec("gen_state_len", gen.get_state().shape)
    rec("randint_low", torch.randint(5, (3,), generator=gen))
    rec("randint_dt", torch.randint(3, 9, (4,), generator=gen, dtype=torch.int32))
    rec("randperm", torch.randperm(10, generator=gen))
    rec(
        "multinomial",
        torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 6, replacement=True, generator=gen),
    )
    rec("normal", torch.normal(2.0, 3.0, size=(4,), generator=gen))
    rec("rand_f64", torch.rand(3, generator=gen, dtype=torch.float64))
    rec("seed_gen", torch.Generator().manual_seed(1).initial_seed())
    rec("zscore", (X - X.mean(1, keepdim=True)) / X.std(1, keepdim=True))
    rec(
        "skew",
        (((X - X.mean(1, keepdim=True)) / X.std(1, correction=0, keepdim=True)) ** 3).mean(1),
    )
    rec("logsumexp", torch.logsumexp(X, 1))
    rec("aminmax", torch.aminmax(X, dim=1))
    rec("kthvalue", torch.kthvalue(X[0], 3))
    rec("count_nonzero", torch.count_nonzero(X > 0, dim=1))


def p_geometry(torch, rec):
    g = torch.Generator().manual_seed(13)
    P = torch.randn(6, 3, generator=g)
    Q = torch.randn(6, 3, generator=g)
    rec("cross", torch.cross(P, Q, dim=1))
    rec("linalg_cross", torch.linalg.cross(P, Q))
    rec("cross_nodim", lambda: torch.cross(P, Q))
    rec("cross_bcast", torch.linalg.cross(P, Q[:1]))
    rec("norm", torch.linalg.norm(P, dim=1))
    rec("norm_ord1", torch.linalg.norm(P, ord=1, dim=1))
    rec("norm_inf", torch.linalg.norm(P, ord=float("inf"), dim=1))
    rec("norm_fro", torch.linalg.norm(P))
    rec("norm_nuc", torch.linalg.norm(P, "nuc"))
    rec("norm_old", P.norm(dim=1, p=2))
    rec("vecnorm", torch.linalg.vector_norm(P, ord=3))
    rec("norm_int", lambda: torch.linalg.norm(torch.tensor([3, 4])))
    rec("norm_int_old", lambda: torch.tensor([3, 4]).norm())
    th = torch.tensor(0.3)
    R = torch.stack(
        [torch.stack([torch.cos(th), -torch.sin(th)]), torch.stack([torch.sin(th), torch.cos(th)])]
    )
    rec("R", R)
    rec("rotated", P[:, :2] @ R.T)
    rec("det", torch.linalg.det(R))
    rec("pdist_bcast", ((P[:, None, :] - Q[None, :, :]) ** 2).sum(-1).sqrt())
    rec("cdist", torch.cdist(P, Q))
    rec("cdist_p1", torch.cdist(P, Q, p=1))
    rec("cdist_pinf", torch.cdist(P, Q, p=float("inf")))
    rec("cdist_p0", torch.cdist(P, Q, p=0))
    rec("cdist_batch", torch.cdist(P[None], Q[None]).shape)
    rec("cdist_f64mix", lambda: torch.cdist(P, Q.double()))
    rec("pdist", torch.nn.functional.pdist(P))
    A, B, C = P[:, :2], Q[:, :2], P[:, 1:]
    area = 0.5 * torch.abs(
        (B[:, 0] - A[:, 0]) * (C[:, 1] - A[:, 1]) - (C[:, 0] - A[:, 0]) * (B[:, 1] - A[:, 1])
    )
    rec("area", area)
    rec(
        "area3d",
        0.5 * torch.linalg.norm(torch.cross(Q - P, P[[1, 2, 3, 4, 5, 0]] - P, dim=1), dim=1),
    )
    xs = torch.linspace(-1, 1, 4)
    ys = torch.linspace(0, 2, 3)
    XX, YY = torch.meshgrid(xs, ys, indexing="xy")
    rec("mesh_xy", (XX, YY))
    XI, YI = torch.meshgrid(xs, ys, indexing="ij")
    rec("mesh_ij", (XI, YI))
    rec("mesh_list", torch.meshgrid([xs, ys], indexing="ij")[0].shape)
    rec("mesh_bad", lambda: torch.meshgrid(xs, ys, indexing="yx"))
    r = torch.hypot(XX, YY)
    phi = torch.atan2(YY, XX)
    rec("polar", (r, phi))
    rec("back", (r * torch.cos(phi), r * torch.sin(phi)))
    rec("atan2_int", lambda: torch.atan2(torch.tensor([1, -1]), torch.tensor([0, 0])))
    rec("hypot_int", lambda: torch.hypot(torch.tensor([3]), torch.tensor([4])))
    rec("deg", torch.rad2deg(phi))
    rec("deg2rad_int", torch.deg2rad(torch.tensor([180, 90])))
    rec("rad2deg_int", lambda: torch.rad2deg(torch.tensor([3])))
    rec("dot", torch.dot(P[0], Q[0]))
    rec("dot_mix", lambda: torch.dot(P[0], Q[0].double()))
    rec("inner", torch.inner(P, Q))
    rec("vdot", torch.vdot(P[0], Q[0]))
    rec(
        "angle_between",
        torch.arccos(torch.clamp((P * Q).sum(1) / (P.norm(dim=1) * Q.norm(dim=1)), -1, 1)),
    )
    rec("normalize", torch.nn.functional.normalize(P, dim=1))
    rec("cos_sim", torch.nn.functional.cosine_similarity(P, Q))
    rec("cos_sim_bcast", torch.nn.functional.cosine_similarity(P[:, None], Q[None], dim=-1))


def p_life(torch, rec):
    g = torch.Generator().manual_seed(17)
    board = (torch.rand(8, 8, generator=g) < 0.35).to(torch.int64)
    rec("b0", board)
    for step in range(4):
        n = sum(
            torch.roll(torch.roll(board, i, 0), j, 1)
            for i in (-1, 0, 1)
            for j in (-1, 0, 1)
            if (i, j) != (0, 0)
        )
        board = ((n == 3) | ((board == 1) & (n == 2))).to(torch.int64)
        rec(f"b{step + 1}", board)
    rec("roll_multi", torch.roll(torch.arange(12).reshape(3, 4), shifts=(1, -1), dims=(0, 1)))
    rec("roll_flat", torch.roll(torch.arange(6).reshape(2, 3), 1))
    rec("roll_big", torch.roll(torch.arange(5), 12))
    rec("roll_neg", torch.roll(torch.arange(5), -7))
    rec("roll_bad", lambda: torch.roll(torch.arange(5), (1, 2), 0))
    b = board.to(torch.bool)
    n8 = (
        torch.nn.functional.conv2d(
            b.float()[None, None], torch.ones(1, 1, 3, 3), padding=1, padding_mode="circular"
        )
        if False
        else None
    )
    rec("none", n8)
    rec("bool_sum", b.sum())
    rec("bool_sum_dt", b.sum().dtype)
    rec("bool_add", lambda: b + b)
    rec("bool_sub", lambda: b - b)
    rec("bool_mul", b * b)
    rec("bool_neg", lambda: -b)
    rec("bool_inv", ~b)
    rec("bool_xor", b ^ b.T)
    rec("bool_cumsum", b.cumsum(0)[-1])
    rec("bool_mean", lambda: b.mean())
    rec("bool_float_mean", b.float().mean())
    rec("int_mean", lambda: board.mean())
    rec("int_mean_dt", board.mean(dtype=torch.float64))
    rec("rule30", rule30(torch))
    rec(
        "pad_circ",
        torch.nn.functional.pad(board[None, None].float(), (1, 1, 1, 1), mode="circular")[
            0, 0, :3, :3
        ],
    )
    rec(
        "pad_int_circ",
        lambda: torch.nn.functional.pad(board[None, None], (1, 1, 1, 1), mode="circular")[
            0, 0, :3, :3
        ],
    )
    rec("pad_int_const", torch.nn.functional.pad(board, (1, 1), value=7)[:2])


def rule30(torch):
    row = torch.zeros(15, dtype=torch.uint8)
    row[7] = 1
    rows = [row]
    for _ in range(6):
        left = torch.roll(row, 1)
        right = torch.roll(row, -1)
        idx = (left << 2) | (row << 1) | right
        row = (30 >> idx) & 1
        rows.append(row)
    return torch.stack(rows)


def p_sorting(torch, rec):
    x = torch.tensor([3, 1, 2, 3, 1, 5, 2, 2, 9, 0])
    rec("argsort", x.argsort(stable=True))
    rec("argsort_desc", torch.argsort(x, descending=True, stable=True))
    rec("sort_stable", torch.sort(x, stable=True))
    rec("sort_stable_desc", torch.sort(x, descending=True, stable=True))
    rec("sort_kw", lambda: torch.sort(x, 0, True, stable=True))
    rec("argsort_dim", torch.tensor([[3.0, 1, 2], [0, 5, 4]]).argsort(dim=0))
    u = torch.unique(x, return_inverse=True, return_counts=True)
    rec("unique", u)
    rec("unique_sorted_false", torch.unique(x, sorted=False).sort().values)
    rec(
        "unique_dim",
        torch.unique(
            torch.tensor([[1, 2], [1, 2], [0, 3]]), dim=0, return_inverse=True, return_counts=True
        ),
    )
    rec("unique_float", torch.unique(torch.tensor([1.5, float("nan"), 1.5, float("nan")])))
    rec("uc", torch.unique_consecutive(x, return_inverse=True, return_counts=True))
    rec("uc_dim", torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 2]]), dim=0))
    rec("ranks", x.argsort(stable=True).argsort())
    s, i = torch.sort(x.float())
    ranks = torch.empty_like(i)
    ranks[i] = torch.arange(len(x))
    rec("ranks_scatter", ranks)
    rec("topk", torch.topk(x.float(), 3))
    rec("topk_small", torch.topk(x.float(), 3, largest=False, sorted=True))
    rec("msort", torch.msort(torch.tensor([[3, 1], [1, 2]])))
    rec("sort_bool", torch.sort(torch.tensor([True, False, True])))
    rec("sort_nan", torch.sort(torch.tensor([2.0, float("nan"), 1.0, -float("inf")])))
    rec("argmax_ties", torch.tensor([1, 3, 3, 2]).argmax())
    rec("argmax_nan", torch.tensor([1.0, float("nan"), 3.0]).argmax())
    rec("max_dim", torch.tensor([[1, 3, 3], [2, 2, 0]]).max(dim=1))
    rec("lexsort_like", torch.argsort(x * 100 + torch.arange(10) % 3, stable=True))
    rec(
        "searchsorted_2d",
        torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[2], [5]])),
    )
    rec("isin", torch.isin(x, torch.tensor([1, 2])))
    rec("isin_invert", torch.isin(x, torch.tensor([1, 2]), invert=True))
    rec("isin_scalar", torch.isin(x, 3))
    rec("isin_scalar_el", torch.isin(3, x))
    rec("isin_float_int", torch.isin(x, torch.tensor([1.0, 2.5])))
    rec("unique_bool", torch.unique(torch.tensor([True, False, True]), return_counts=True))


def p_masking(torch, rec):
    g = torch.Generator().manual_seed(19)
    x = torch.randn(4, 5, generator=g)
    m = x > 0
    rec("masked", x[m])
    y = x.clone()
    y[m] = 0
    rec("set0", y)
    y[~m] = torch.tensor(1.5)
    rec("set_t", y)
    z = x.clone()
    z[m] = torch.arange(int(m.sum())).float()
    rec("set_seq", z)
    rec("set_seq_bad", lambda: x.clone().__setitem__(m, torch.arange(3.0)))
    rec("where", torch.where(m, x, 0.0))
    rec("where_int_scalar", torch.where(m, x, 0))
    rec("where_two_scalars", torch.where(m, 1.0, 0.0))
    rec("where_two_ints", torch.where(m, 1, 0))
    rec("where_int_t_float_s", torch.where(m, torch.ones(4, 5, dtype=torch.int64), 2.5))
    rec("where_1arg", torch.where(m))
    rec("where_f64_scalar", torch.where(m, x, np.float64(2.0)))
    rec("nz", torch.nonzero(m))
    rec("nz_tuple", torch.nonzero(m, as_tuple=True))
    rec("nz_method", m.nonzero(as_tuple=True))
    rec("argwhere", torch.argwhere(x > 1))
    rec("nz_0d", lambda: torch.nonzero(torch.tensor(3), as_tuple=True))
    rec("nz_0d_nt", lambda: torch.nonzero(torch.tensor(0)))
    rec("masked_fill", x.masked_fill(m, -1))
    rec("masked_fill_int_mask", lambda: x.masked_fill(m.int(), -1))
    rec("masked_select", torch.masked_select(x, m[0]))
    rec("masked_scatter", x.masked_scatter(m, torch.arange(20.0)))
    rec("row_mask", x[m.any(1)])
    rec("col_mask", x[:, m.all(0) | (x[0] > 0)])
    rec("mask_2_dims", x[m[:, 0]][:, m[0]])
    rec("mask_u8", lambda: x[m.to(torch.uint8)])
    rec("mask_shape_err", lambda: x[m[:3]])
    rec("mask_shape_err2", lambda: x[torch.ones(4, 4, dtype=torch.bool)])
    rec("mask_and_idx", x[m[:, 0], 1])
    rec("mask_list_bool", x[[True, False, True, False]])
    rec("int_list", x[[0, 2, 3]])
    rec("clip", x.clip(-0.5, 0.5))
    rec("clip_t", torch.clip(x, min=torch.zeros(5)))
    rec("clip_none", lambda: torch.clip(x))
    rec("clamp_int_float", torch.clamp(torch.tensor([1, 5, 9]), 2.5, 6.5))
    rec("clamp_minmax_rev", torch.clamp(torch.tensor([1.0, 5.0, 9.0]), 6, 2))
    a = torch.arange(10)
    a[a % 2 == 0] *= 10
    rec("mask_imul", a)
    a[(a > 20) & (a < 70)] = -1
    rec("mask_and_set", a)
    rec("logical", torch.logical_and(a > 0, a < 50) | torch.logical_not(a != -1))
    rec("bool_and_int", lambda: (a > 0) & a)
    rec(
        "any_all",
        (
            torch.tensor([0, 1]).any(),
            torch.tensor([0.0, 1.0]).all(),
            torch.tensor([2, 3], dtype=torch.uint8).all(),
        ),
    )
    rec("any_u8_dt", torch.tensor([2, 3], dtype=torch.uint8).any().dtype)


def p_fancy(torch, rec):
    x = torch.arange(20.0).reshape(4, 5)
    r = torch.tensor([[0], [2]])
    c = torch.tensor([1, 3, 4])
    rec("bcast_idx", x[r, c])
    rec("ix", x[torch.tensor([0, 2])[:, None], torch.tensor([1, 3])])
    rec("idx_slice_mix", x[1:3, [0, 4]])
    rec("idx_sep", torch.arange(24).reshape(2, 3, 4)[:, [0, 1], [1, 2]])
    rec("idx_split", torch.arange(24).reshape(2, 3, 4)[[0, 1], :, [1, 2]])
    rec("idx_none", x[None, [1, 2]].shape)
    rec("idx_ellipsis", torch.arange(24).reshape(2, 3, 4)[..., [0, -1]])
    rec("neg_idx", x[torch.tensor([-1, -4])])
    rec("oob", lambda: x[torch.tensor([4])])
    rec("oob_neg", lambda: x[torch.tensor([-5])])
    rec("float_idx", lambda: x[torch.tensor([1.0])])
    rec("int32_idx", x[torch.tensor([1, 2], dtype=torch.int32)])
    rec("int8_idx", lambda: x[torch.tensor([1, 2], dtype=torch.int8)])
    rec("np_idx", x[np.array([1, 2])])
    rec("np_bool_idx", x[np.array([True, False, True, False])])
    rec("np_int_scalar_idx", x[np.int64(2)])
    rec("tuple_of_lists", x[([0, 1], [2, 3])])
    rec("list_of_lists", lambda: x[[[0, 1], [2, 3]]])
    h = torch.zeros(5)
    idx = torch.tensor([0, 1, 1, 3, 3, 3])
    h[idx] += 1
    rec("dup_iadd", h)
    h2 = torch.zeros(5)
    h2.index_put_((idx,), torch.tensor(1.0), accumulate=True)
    rec("index_put_acc", h2)
    h3 = torch.zeros(5).index_add_(0, idx, torch.ones(6))
    rec("index_add", h3)
    rec("index_put_noacc", torch.zeros(5).index_put((idx,), torch.arange(6.0)))
    rec("scatter_add", torch.zeros(5).scatter_add(0, idx, torch.ones(6)))
    rec(
        "scatter_reduce",
        torch.zeros(5).scatter_reduce(0, idx, torch.arange(6.0), "amax", include_self=False),
    )
    rec(
        "index_put_int_acc",
        torch.zeros(5, dtype=torch.int64).index_put_((idx,), torch.tensor(1), accumulate=True),
    )
    rec(
        "index_put_2d",
        torch.zeros(3, 3).index_put_(
            (torch.tensor([0, 0, 2]), torch.tensor([1, 1, 2])),
            torch.tensor([1.0, 2.0, 3.0]),
            accumulate=True,
        ),
    )
    rec(
        "index_put_bad_dt",
        lambda: torch.zeros(5).index_put_(
            (idx,), torch.tensor(1, dtype=torch.int64), accumulate=True
        ),
    )
    y = torch.zeros(3, 4)
    y[[0, 2], 1:3] = torch.tensor([5.0, 6.0])
    rec("set_fancy_slice", y)
    y[torch.tensor([1]), torch.tensor([0, 3])] = torch.tensor(
        [
            [7.0],
        ]
    )
    rec("set_bcast", y)
    rec("take", torch.take(x, torch.tensor([[0, 19], [7, 3]])))
    rec("take_neg", torch.take(x, torch.tensor([-1])))
    rec("take_oob", lambda: torch.take(x, torch.tensor([20])))
    rec("tad", torch.take_along_dim(x, torch.tensor([[0], [1], [2], [3]]), dim=1))
    rec("tad_none", torch.take_along_dim(x, torch.tensor([3, 7])))
    rec("tad_argsort", torch.take_along_dim(x.flip(1), x.flip(1).argsort(1), dim=1))
    rec("tad_bcast", torch.take_along_dim(x, torch.tensor([[0, 1]]), dim=1))
    rec("gather", torch.gather(x, 1, torch.tensor([[0, 0], [1, 0], [4, 4], [2, 3]])))
    p = torch.zeros(2, 3)
    p.put_(torch.tensor([0, 5, 5]), torch.tensor([1.0, 2.0, 3.0]), accumulate=True)
    rec("put_acc", p)
    rec("put", torch.zeros(2, 3).put(torch.tensor([1, -1]), torch.tensor([9.0, 8.0])))
    rec("index_select", torch.index_select(x, 1, torch.tensor([4, 0])))
    rec("index_fill", x.index_fill(0, torch.tensor([1, 3]), -2.0))
    rec(
        "index_copy",
        torch.zeros(3, 2).index_copy(0, torch.tensor([2, 0]), torch.tensor([[1.0, 2], [3, 4]])),
    )


def p_integer(torch, rec):
    a = torch.tensor([7, -7, 7, -7, 0])
    b = torch.tensor([2, 2, -2, -2, 3])
    rec("floordiv", torch.floor_divide(a, b))
    rec("op_floordiv", a // b)
    rec("div_floor", torch.div(a, b, rounding_mode="floor"))
    rec("div_trunc", torch.div(a, b, rounding_mode="trunc"))
    rec("truediv", a / b)
    rec("remainder", torch.remainder(a, b))
    rec("mod_op", a % b)
    rec("fmod", torch.fmod(a, b))
    rec("rem_scalar", a % -3)
    rec("rem_float", torch.tensor([-7.5, 7.5]) % 2)
    rec("fmod_float", torch.fmod(torch.tensor([-7.5, 7.5]), 2))
    rec("int_div0", lambda: a // torch.zeros(5, dtype=torch.int64))
    rec("int_rem0", lambda: a % 0)
    rec("int_true_div0", a / 0)
    rec("float_fdiv0", torch.tensor([1.0, -1.0, 0.0]) // 0)
    rec("pow_int", a**2)
    rec("pow_neg_int", lambda: a**-1)
    rec("pow_int_t", lambda: torch.tensor([2, 3]) ** torch.tensor([-1, 2]))
    rec("pow_scalar_base", 2 ** torch.tensor([0, 3, 10]))
    rec("pow_float_exp", torch.tensor([4, 9]) ** 0.5)
    rec("int_pow_big", torch.tensor([10]) ** 20)
    rec("and", torch.tensor([12, 10]) & torch.tensor([10, 6]))
    rec("or", torch.tensor([12, 10]) | 3)
    rec("xor", torch.bitwise_xor(torch.tensor([12]), torch.tensor([10])))
    rec("not", ~torch.tensor([0, 5, -1]))
    rec("shl", torch.tensor([1, 3]) << 4)
    rec("shr", torch.tensor([-16, 16]) >> 2)
    rec("shl_t", torch.bitwise_left_shift(torch.tensor([1]), torch.tensor([63])))
    rec("shl_64", torch.tensor([1]) << 64)
    rec("shl_u8", torch.tensor([200], dtype=torch.uint8) << 1)
    rec("shr_i8", torch.tensor([-128], dtype=torch.int8) >> 9)
    rec("shl_neg", torch.tensor([8]) << -1)
    rec("bit_float", lambda: torch.tensor([1.0]) & 1)
    i8 = torch.tensor([120, -120], dtype=torch.int8)
    rec("i8_add", i8 + 10)
    rec("i8_add_big", lambda: i8 + 1000)
    rec("i8_mul", i8 * 2)
    rec("i8_neg", -torch.tensor([-128], dtype=torch.int8))
    rec("i8_abs", torch.tensor([-128], dtype=torch.int8).abs())
    u8 = torch.tensor([250, 5], dtype=torch.uint8)
    rec("u8_add", u8 + 10)
    rec("u8_sub", u8 - 10)
    rec("u8_add_neg_scalar", lambda: u8 + (-1))
    rec("u8_i8", u8 + i8)
    rec("u8_i8_dt", (u8 + i8).dtype)
    rec("u8_i16", u8 + torch.tensor([1, 1], dtype=torch.int16))
    rec("i32_i64", (torch.tensor([1], dtype=torch.int32) + torch.tensor([1])).dtype)
    rec("i32_scalar", (torch.tensor([1], dtype=torch.int32) * 3).dtype)
    rec("i32_float", (torch.tensor([1], dtype=torch.int32) * 3.5).dtype)
    rec("i64_f16", (torch.tensor([1]) + torch.tensor([1.0], dtype=torch.float16)).dtype)
    rec("int_div_dt", (torch.tensor([3]) / torch.tensor([2])).dtype)
    rec("int_div_f64default", int_div_default(torch))
    rec("0d_vs_1d", (torch.tensor([1], dtype=torch.int8) + torch.tensor(300)).dtype)
    rec("0d_float_vs_int", (torch.tensor([1], dtype=torch.int8) + torch.tensor(3.0)).dtype)
    rec("0d_f64_vs_f32", (torch.tensor([1.0]) + torch.tensor(3.0, dtype=torch.float64)).dtype)
    rec("py_scalar", torch.tensor(3.5).item())
    rec("tensor_int_overflow", lambda: torch.tensor([2**63]))
    rec("tensor_u8_wrap", lambda: torch.tensor([300], dtype=torch.uint8))
    rec("tensor_u8_neg", lambda: torch.tensor([-1], dtype=torch.uint8))
    rec("to_u8_wrap", torch.tensor([300, -1]).to(torch.uint8))
    rec("float_to_int", torch.tensor([-1.7, 1.7, 2.5]).long())
    rec("float_to_u8", torch.tensor([-1.0, 255.9]).to(torch.uint8))
    rec(
        "iinfo",
        (
            torch.iinfo(torch.int8).min,
            torch.iinfo(torch.uint8).max,
            torch.finfo(torch.float32).eps,
            torch.finfo().tiny,
        ),
    )
    rec("gcd", torch.gcd(torch.tensor([12, -18, 0]), torch.tensor([8, 12, 0])))
    rec("lcm", torch.lcm(torch.tensor([4, -6]), torch.tensor([6, 4])))
    rec("abs_int", torch.abs(torch.tensor([-3, 3])))
    rec("sum_i8", torch.tensor([100, 100], dtype=torch.int8).sum())
    rec("prod_i32", torch.tensor([1000, 1000, 1000], dtype=torch.int32).prod())
    rec("cumprod_u8", torch.tensor([16, 16, 2], dtype=torch.uint8).cumprod(0))
    rec("round_half_even", torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])))
    rec("round_dec", torch.round(torch.tensor([1.2345, 2.675]), decimals=2))
    rec("round_int", torch.round(torch.tensor([3, 4])))
    rec("floor_int", torch.floor(torch.tensor([3])))
    rec("trunc", torch.trunc(torch.tensor([-1.5, 1.5])))
    rec("true_div_int_inplace", lambda: torch.tensor([3]).div_(2))
    rec("floordiv_inplace", torch.tensor([7, -7]).floor_divide_(torch.tensor(2)))


def int_div_default(torch):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return (torch.tensor([3]) / 2).dtype, torch.tensor([1.5]).dtype, torch.arange(3.0).dtype
    finally:
        torch.set_default_dtype(old)


def p_views_inplace(torch, rec):
    x = torch.arange(12.0).reshape(3, 4)
    v = x[:, 1]
    v += 100
    rec("x_after_col", x)
    x[1:, ::2] *= -1
    rec("x_after_stride", x)
    t = x.T
    t[0] = 0
    rec("x_after_T", x)
    d = x.diagonal()
    d.fill_(7)
    rec("x_after_diag", x)
    f = x.view(-1)
    f[::5] = 1
    rec("x_after_flat", x)
    rec("reshape_view", x.T.reshape(-1)._base is None if hasattr(x, "_base") else None)
    c = x.flatten()
    c[0] = 99
    rec("flatten_copy_for_contig", x[0, 0])
    xs = torch.arange(6).reshape(2, 3)
    xs[0], xs[1] = xs[1].clone(), xs[0].clone()
    rec("swap_rows", xs)
    ys = torch.arange(6).reshape(2, 3)
    ys[[0, 1]] = ys[[1, 0]]
    rec("swap_fancy", ys)
    a = torch.arange(5.0)
    rec("overlap_copy", lambda: a.__setitem__(slice(1, None), a[:-1]))
    rec("overlap_copy_a", a)
    b = torch.arange(5.0)
    rec("overlap_iadd", lambda: b[1:].add_(b[:-1]))
    rec("overlap_iadd_b", b)
    e = torch.arange(3.0)
    ex = e.expand(2, 3)
    rec("expand_write", lambda: ex.add_(1))
    rec("u8_inplace_float", lambda: torch.tensor([1], dtype=torch.uint8).add_(1.5))
    rec("int_inplace_float", lambda: torch.tensor([1]).mul_(1.5))
    rec("int_inplace_true_div", lambda: torch.tensor([4]).div_(torch.tensor([2])))
    z = torch.zeros(3, dtype=torch.int64)
    z[0] = 2.7
    z[1] = -2.7
    rec("int_setitem_float", z)
    z2 = torch.zeros(2, dtype=torch.uint8)
    rec("u8_setitem_300", lambda: z2.__setitem__(0, 300))
    rec("u8_setitem_m1", lambda: z2.__setitem__(0, -1))
    rec("i8_fill_200", lambda: torch.zeros(2, dtype=torch.int8).fill_(200))
    rec("u8_full_300", lambda: torch.full((2,), 300, dtype=torch.uint8))
    rec("u8_setitem_t300", lambda: z2.__setitem__(0, torch.tensor(300)))
    z3 = torch.zeros(2, dtype=torch.bool)
    z3[0] = 5
    rec("bool_setitem", z3)
    n = torch.zeros(3)
    n[0] = float("nan")
    rec("nan_set", n)
    rec("clone_strides", torch.arange(6.0).reshape(2, 3).T.clone().stride())
    rec("contig", torch.arange(6.0).reshape(2, 3).T.contiguous().stride())
    w = torch.zeros(3, 3)
    w.fill_diagonal_(5)
    rec("fill_diag", w)
    rec("fill_diag_wrap", torch.zeros(7, 3).fill_diagonal_(1, wrap=True))
    q = torch.zeros(4)
    q[torch.tensor(2)] = 1
    rec("setitem_0d_idx", q)
    q[np.int64(1)] = 2
    rec("setitem_np_idx", q)
    rec("getitem_np_float", lambda: q[np.float64(1)])


def p_npfuncs(torch, rec):
    x = torch.arange(6.0).reshape(2, 3)
    rec("flip", torch.flip(x, [0, 1]))
    rec("flip_int", lambda: torch.flip(x, 0))
    rec("fliplr", torch.fliplr(x))
    rec("flipud", torch.flipud(x))
    rec("fliplr_1d", lambda: torch.fliplr(torch.arange(3)))
    rec("rot90", torch.rot90(x))
    rec("rot90_k", torch.rot90(x, -1, [0, 1]))
    rec("rot90_k3", torch.rot90(x, 3, (1, 0)))
    rec("rot90_bad", lambda: torch.rot90(x, 1, [0, 0]))
    rec("tile", torch.tile(x, (2,)))
    rec("tile2", torch.tile(torch.arange(3), (2, 2)))
    rec("repeat", x.repeat(2, 1))
    rec("repeat_few", lambda: x.repeat(2))
    rec("ri", torch.repeat_interleave(torch.tensor([1, 2, 3]), 2))
    rec("ri_t", torch.repeat_interleave(torch.tensor([1, 2, 3]), torch.tensor([1, 0, 2])))
    rec("ri_dim", torch.repeat_interleave(x, 2, dim=0))
    rec("ri_counts", torch.repeat_interleave(torch.tensor([2, 1])))
    rec("ri_size", torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0, output_size=3))
    rec("kron", torch.kron(torch.eye(2), x))
    rec("kron_int", torch.kron(torch.tensor([1, 2]), torch.tensor([[1], [10]])))
    rec("outer", torch.outer(torch.arange(3), torch.arange(1.0, 3)))
    rec("ger", torch.ger(torch.arange(3.0), torch.arange(2.0)))
    rec(
        "tensordot",
        torch.tensordot(
            torch.arange(24.0).reshape(2, 3, 4),
            torch.arange(12.0).reshape(4, 3),
            dims=([1, 2], [1, 0]),
        ),
    )
    rec("tensordot_int", torch.tensordot(x, x.T, dims=1))
    rec("tensordot_0", torch.tensordot(torch.arange(2.0), torch.arange(3.0), dims=0))
    rec("tensordot_list", lambda: torch.tensordot(x, x, dims=[[0, 1], [0, 1]]))
    rec("einsum", torch.einsum("ij,kj->ik", x, x))
    rec("einsum_trace", torch.einsum("ii", torch.arange(9.0).reshape(3, 3)))
    rec("einsum_ell", torch.einsum("...j,j->...", x, torch.ones(3)))
    rec("einsum_list", torch.einsum("ij,jk", [x, x.T]))
    rec("einsum_int", torch.einsum("i,i->", torch.tensor([1, 2]), torch.tensor([3, 4])))
    rec("einsum_sublist", lambda: torch.einsum(x, [0, 1], x, [0, 1], [0]))
    rec("einsum_diag", torch.einsum("ii->i", torch.arange(9.0).reshape(3, 3)))
    m = torch.arange(1.0, 17).reshape(4, 4)
    rec("tril", torch.tril(m, -1))
    rec("triu", torch.triu(m, 1))
    rec("triu_rect", torch.triu(torch.ones(2, 4), 2))
    rec("tril_idx", torch.tril_indices(3, 3))
    rec("triu_idx_off", torch.triu_indices(3, 4, 1))
    rec("diag", torch.diag(torch.tensor([1, 2])))
    rec("diag_k", torch.diag(torch.tensor([1, 2]), 1))
    rec("diag_of_mat", torch.diag(m, -1))
    rec("diagonal", torch.diagonal(torch.arange(24).reshape(2, 3, 4), 0, 1, 2))
    rec("diagonal_off", m.diagonal(offset=2))
    rec("diag_embed", torch.diag_embed(torch.tensor([[1, 2], [3, 4]]), offset=-1))
    rec("diagflat", torch.diagflat(torch.tensor([[1, 2], [3, 4]])))
    rec("trace", torch.trace(m))
    rec("trace_int", torch.trace(torch.arange(4).reshape(2, 2)))
    rec(
        "isclose",
        torch.isclose(
            torch.tensor([1.0, float("nan"), 1e-9]), torch.tensor([1.00001, float("nan"), 0.0])
        ),
    )
    rec(
        "isclose_nan",
        torch.isclose(torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True),
    )
    rec(
        "allclose",
        torch.allclose(
            torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True
        ),
    )
    rec("allclose_int", torch.allclose(torch.tensor([1, 2]), torch.tensor([1, 2])))
    rec("allclose_mix", lambda: torch.allclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
    rec("isclose_int_mix", lambda: torch.isclose(torch.tensor([1]), torch.tensor([1.0])))
    rec("equal", torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
    rec("n2n", torch.nan_to_num(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])))
    rec(
        "n2n_args",
        torch.nan_to_num(torch.tensor([float("nan"), float("inf")]), nan=0.5, posinf=9.0),
    )
    rec("n2n_f16", torch.nan_to_num(torch.tensor([float("inf")], dtype=torch.float16)))
    rec("n2n_int", torch.nan_to_num(torch.tensor([1, 2])))
    rec(
        "logaddexp",
        torch.logaddexp(torch.tensor([1.0, -float("inf")]), torch.tensor([2.0, -float("inf")])),
    )
    rec("logaddexp2", torch.logaddexp2(torch.tensor([1.0]), torch.tensor([1.0])))
    rec("logaddexp_int", lambda: torch.logaddexp(torch.tensor([1]), torch.tensor([2])))
    rec("heaviside", torch.heaviside(torch.tensor([-1.0, 0.0, 2.0]), torch.tensor([0.5])))
    rec("heaviside_int", torch.heaviside(torch.tensor([-1, 0, 2]), torch.tensor([7])))
    rec("heaviside_mix", lambda: torch.heaviside(torch.tensor([-1, 0]), torch.tensor([0.5])))
    rec("frexp", torch.frexp(torch.tensor([8.0, 0.3, 0.0, -5.0])))
    rec("frexp_int", lambda: torch.frexp(torch.tensor([8])))
    rec("ldexp", torch.ldexp(torch.tensor([0.5, 1.0]), torch.tensor([4, -1])))
    rec("ldexp_int", torch.ldexp(torch.tensor([1, 2]), torch.tensor([3])))
    rec("copysign", torch.copysign(torch.tensor([1.0, -2.0]), torch.tensor([-0.0, 1.0])))
    rec("copysign_int", torch.copysign(torch.tensor([1, 2]), -1))
    rec("copysign_scalar", torch.copysign(torch.tensor([3.0]), -0.0))
    rec("cartesian", torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4, 5])))
    rec("cartesian_1", torch.cartesian_prod(torch.tensor([1, 2])))
    rec("comb", torch.combinations(torch.tensor([1, 2, 3, 4]), r=3))
    rec("comb_rep", torch.combinations(torch.tensor([1, 2, 3]), with_replacement=True))
    rec("comb_r0", torch.combinations(torch.tensor([1, 2, 3]), r=0))
    rec("comb_big_r", torch.combinations(torch.tensor([1, 2]), r=3))
    rec(
        "block_diag",
        torch.block_diag(torch.ones(2, 2), torch.tensor([[5]]), torch.tensor([7.0, 8.0])),
    )
    rec("block_diag_int", torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3]])))
    rec("block_diag_0d", torch.block_diag(torch.tensor(2.0), torch.tensor(3)))
    rec("atleast_2d", torch.atleast_2d(torch.tensor(1.0)))
    rec("atleast_2d_1d", torch.atleast_2d(torch.arange(3)))
    rec("atleast_2d_many", torch.atleast_2d(torch.tensor(1.0), torch.arange(2)))
    rec("atleast_3d", torch.atleast_3d(torch.arange(6).reshape(2, 3)).shape)
    rec("atleast_3d_1d", torch.atleast_3d(torch.arange(3)).shape)
    rec("atleast_1d_list", torch.atleast_1d([torch.tensor(1), torch.tensor(2)]))
    a, b = torch.arange(3), torch.arange(3, 6)
    rec("column_stack", torch.column_stack([a, b]))
    rec("column_stack_2d", torch.column_stack([a, torch.ones(3, 2, dtype=torch.int64)]))
    rec("row_stack", torch.row_stack((a, b)))
    rec("vstack", torch.vstack([a, x.long()]))
    rec("hstack", torch.hstack([a, b]))
    rec("hstack2d", torch.hstack([x, x]))
    rec("dstack", torch.dstack([a, b]))
    rec("dstack_2d", torch.dstack([x, x]).shape)
    rec("stack_mix_dt", torch.stack([a, b.float()]))
    rec("cat_mix_dt", torch.cat([a, b.float()]))
    rec("cat_bool_int", torch.cat([torch.tensor([True]), torch.tensor([2])]))
    rec("cat_empty_1d", torch.cat([torch.tensor([]), torch.arange(3)]))
    rec("cat_dim_err", lambda: torch.cat([x, a]))
    rec("concat", torch.concat([a, b]))
    rec("concatenate", torch.concatenate([a, b], axis=0))
    rec("split_size", torch.split(torch.arange(7), 3))
    rec("split_sections", torch.split(torch.arange(7), [2, 5]))
    rec("split_bad", lambda: torch.split(torch.arange(7), [2, 4]))
    rec("tensor_split_n", torch.tensor_split(torch.arange(7), 3))
    rec("tensor_split_idx", torch.tensor_split(torch.arange(7), [1, 5]))
    rec("tensor_split_t", torch.tensor_split(torch.arange(7), torch.tensor([2, 3])))
    rec("tensor_split_t0", torch.tensor_split(torch.arange(7), torch.tensor(3)))
    rec("tensor_split_dim", torch.tensor_split(x, 2, dim=1))
    rec("hsplit", torch.hsplit(torch.arange(12).reshape(2, 6), 3))
    rec("hsplit_bad", lambda: torch.hsplit(torch.arange(12).reshape(2, 6), 4))
    rec("vsplit", torch.vsplit(torch.arange(12).reshape(4, 3), [1, 3]))
    rec("dsplit", torch.dsplit(torch.arange(12).reshape(1, 2, 6), 2))
    rec("array_split_chunk", torch.chunk(torch.arange(7), 3))
    rec("chunk_odd", torch.chunk(torch.arange(5), 4))
    rec("swapaxes", torch.swapaxes(x, 0, 1))
    rec("moveaxis", torch.moveaxis(torch.zeros(2, 3, 4), 0, -1).shape)
    rec("moveaxis_list", torch.moveaxis(torch.zeros(2, 3, 4), [0, 1], [1, 2]).shape)
    rec("ravel", x.T.ravel())
    rec("squeeze_dims", torch.zeros(1, 2, 1).squeeze((0, 2)).shape)
    rec("expand_dims", x.unsqueeze(-1).shape)
    rec("cumsum_f", torch.cumsum(torch.tensor([1, 2, 3]), 0, dtype=torch.float64))
    rec("cummax", torch.cummax(torch.tensor([1, 3, 2, 5]), 0))
    rec("logcumsumexp", torch.logcumsumexp(torch.tensor([0.0, 1.0, 2.0]), 0))
    rec("sign_bool", lambda: torch.sign(torch.tensor([True, False])))
    rec("abs_bool", lambda: torch.abs(torch.tensor([True])))
    rec("positive_bool", lambda: torch.positive(torch.tensor([True])))
    rec("sgn", torch.sgn(torch.tensor([-2.0, 0.0])))
    rec("fmax", torch.fmax(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 2.0])))
    rec("maximum_nan", torch.maximum(torch.tensor([1.0, float("nan")]), torch.tensor([2.0, 2.0])))
    rec("maximum_int_float", torch.maximum(torch.tensor([1]), torch.tensor([1.5])))
    rec("float_power", torch.float_power(torch.tensor([2]), 3))
    rec("exp2", torch.exp2(torch.tensor([3])))
    rec("xlogy", torch.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])))
    rec("sinc", torch.sinc(torch.tensor([0.0, 0.5])))
    rec("interp_like", torch.lerp(torch.tensor([0.0, 10.0]), torch.tensor([1.0, 20.0]), 0.5))
    rec("vander", torch.vander(torch.tensor([1, 2, 3]), N=3))
    rec("vander_inc", torch.vander(torch.tensor([1.0, 2.0]), increasing=True))
    rec("histc_like_digitize", torch.bucketize(torch.tensor([0.5, 1.5]), torch.tensor([1.0, 2.0])))
    rec("corrcoef_int", torch.corrcoef(torch.tensor([[1, 2, 3], [3, 1, 2]])))
    rec("cov_int", torch.cov(torch.tensor([[1, 2, 4], [3, 1, 2]])))
    rec("std_int", lambda: torch.tensor([1, 2]).std())
    rec("sum_bool_dim", torch.tensor([[True, False], [True, True]]).sum(0))
    rec("prod_bool", torch.tensor([True, True]).prod())
    rec("mean_keep", x.mean((0, 1), keepdim=True))
    rec("amax_tuple", x.amax((0, 1)))
    rec("max_noarg_empty", lambda: torch.tensor([]).max())
    rec("sum_empty", torch.tensor([]).sum())
    rec("argmax_keepdim", x.argmax(1, keepdim=True))
    rec("numel", x.numel())
    rec("size_neg", x.size(-1))
    rec("ndim", (x.ndim, x.dim(), x.ndimension()))
    rec("nbytes", (x.nbytes, x.itemsize, x.element_size()))


def p_interop(torch, rec):
    rec("t_npscalar", torch.tensor(np.float64(1.5)))
    rec("t_npscalar_f32", torch.tensor(np.float32(1.5)))
    rec("t_npint", torch.tensor(np.int32(3)))
    rec("t_npbool", torch.tensor(np.bool_(True)))
    rec("t_list_np_scalars", torch.tensor([np.float64(1.0), np.float64(2.0)]))
    rec("t_list_np_mixed", torch.tensor([np.float32(1.0), 2]))
    rec("t_list_np_int", torch.tensor([np.int64(1), np.int64(2)]))
    rec("t_list_arrays", lambda: torch.tensor([np.arange(3), np.arange(3)]))
    rec(
        "t_list_arrays_f32", lambda: torch.tensor([np.ones(2, np.float32), np.zeros(2, np.float32)])
    )
    rec("t_list_0d_arrays", lambda: torch.tensor([np.array(1.5), np.array(2.5)]))
    rec("t_list_tensors", lambda: torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
    rec("t_list_tensors_1d", lambda: torch.tensor([torch.tensor([1.0]), torch.tensor([2.0])]))
    rec("t_nparr_f64", torch.tensor(np.arange(3.0)))
    rec("t_nparr_i32", torch.tensor(np.arange(3, dtype=np.int32)))
    rec("t_nparr_dtype", torch.tensor(np.arange(3.0), dtype=torch.float32))
    rec("as_tensor", torch.as_tensor(np.arange(3.0), dtype=torch.float32))
    rec("t_np_u16", lambda: torch.tensor(np.arange(3, dtype=np.int16)))
    rec("t_np_f16", torch.tensor(np.ones(2, np.float16)))
    rec("t_np_bool", torch.tensor(np.array([True, False])))
    rec("t_np_obj", lambda: torch.tensor(np.array([1, "a"], dtype=object)))
    rec("t_np_str", lambda: torch.tensor(np.array(["a"])))
    rec("t_np_datetime", lambda: torch.tensor(np.array(["2020-01-01"], dtype="datetime64[D]")))
    a = np.arange(12.0).reshape(3, 4)
    nc = a[:, ::2]
    rec("from_numpy_nc", lambda: torch.from_numpy(nc))
    rec("from_numpy_nc_stride", lambda: torch.from_numpy(nc).stride())
    rec("from_numpy_T_stride", lambda: torch.from_numpy(a.T).stride())
    rec("from_numpy_neg", lambda: torch.from_numpy(a[::-1]))
    rec("tensor_neg", torch.tensor(a[::-1].copy()))
    rec("tensor_neg_direct", lambda: torch.tensor(a[::-1]))
    rec("as_tensor_neg", lambda: torch.as_tensor(a[:, ::-1]))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    rec("from_numpy_ro", lambda: torch.from_numpy(ro))
    rec("tensor_ro", torch.tensor(ro))
    shared = np.zeros(3)
    t = torch.from_numpy(shared)
    t += 1
    rec("shared_np", shared)
    back = t.numpy()
    back[0] = 5
    rec("shared_back", t)
    t2 = torch.ones(3)
    n2 = t2.numpy()
    t2.add_(1)
    rec("numpy_shares", n2)
    rec("numpy_grad_err", lambda: torch.ones(2, requires_grad=True).numpy())
    rec("numpy_force", torch.ones(2, requires_grad=True).numpy(force=True))
    rec("asarray_plain", np.asarray(torch.arange(3.0)))
    rec("asarray_dtype", np.asarray(torch.arange(3.0), dtype=np.float64))
    rec("array_of_list_t", lambda: np.array([torch.tensor(1.0), torch.tensor(2.0)]))
    x = torch.tensor([1.0, 2.0])
    rec("t_mul_npf64", x * np.float64(2.0))
    rec("npf64_mul_t", np.float64(2.0) * x)
    rec("t_add_npf64_dt", (x + np.float64(2.0)).dtype)
    rec("npf64_add_t_dt", lambda: (np.float64(2.0) + x).dtype)
    rec("npf32_mul_t", np.float32(2.0) * x)
    rec("npi64_mul_t", np.int64(3) * torch.tensor([1, 2], dtype=torch.int8))
    rec("t_i8_mul_npi64", torch.tensor([1, 2], dtype=torch.int8) * np.int64(3))
    rec("npf64_sub_t", np.float64(1.0) - x)
    rec("npf64_div_t", np.float64(1.0) / x)
    rec("npf64_pow_t", np.float64(2.0) ** x)
    rec("t_pow_npf64", x ** np.float64(2.0))
    rec("t_cmp_npf64", x > np.float64(1.5))
    rec("npf64_cmp_t", np.float64(1.5) < x)
    rec("t_add_nparr", lambda: x + np.array([1.0, 1.0]))
    rec("nparr_add_t", lambda: np.array([1.0, 1.0]) + x)
    rec("t_add_np0d", lambda: x + np.array(1.0))
    rec("npint_idx_t", torch.arange(5)[np.int32(2)])
    rec("full_npf", torch.full((2,), np.float64(3.0)))
    rec("full_npint", torch.full((2,), np.int64(3)))
    rec("arange_np", torch.arange(np.int64(3)))
    rec("arange_np_float", torch.arange(np.float64(0.5), 2))
    rec("linspace_np", torch.linspace(np.float64(0), np.float64(1), np.int64(3)))
    rec("zeros_np_shape", torch.zeros(np.int64(2), np.int64(3)).shape)
    rec("zeros_np_tuple", torch.zeros((np.int64(2), 3)).shape)
    rec("reshape_np", torch.arange(6).reshape(np.int64(2), -1).shape)
    rec("view_np_shape", torch.arange(6).view(np.array([3, 2]).tolist()).shape)
    rec("np_shape_tuple", torch.zeros(np.array([2, 3]).shape).shape)
    rec("np_shape_arr", lambda: torch.zeros(np.array([2, 3])).shape)
    rec("sum_np_dim", torch.arange(6).reshape(2, 3).sum(np.int64(1)))
    rec("item_type", type(torch.tensor(1.5).item()).__name__)
    rec("tolist", torch.tensor([[1, 2]], dtype=torch.uint8).tolist())
    rec("float_of_1elt", float(torch.tensor([2.5])))
    rec("int_of_2elt", lambda: int(torch.tensor([2, 3])))
    rec("np_exp_t", lambda: np.asarray(np.exp(torch.tensor([0.0, 1.0]))))
    rec("np_isnan_t", lambda: np.isnan(torch.tensor([float("nan")])).dtype)
    rec("np_clip_t", lambda: np.clip(torch.arange(4.0), 1, 2))
    rec("np_where_t", lambda: np.where(torch.tensor([True, False]), 1, 0))
    rec("np_maximum_t", lambda: np.asarray(np.maximum(torch.arange(3.0), 1.0)))
    rec("np_median_t", lambda: np.median(torch.arange(4.0)))
    rec("np_stack_ts", lambda: np.stack([torch.arange(2.0), torch.arange(2.0)]))
    rec("from_numpy_u16", lambda: torch.from_numpy(np.zeros(2, np.uint16)))
    rec("from_numpy_f16", torch.from_numpy(np.ones(2, np.float16)))
    rec("from_numpy_bigendian", lambda: torch.from_numpy(np.ones(2, ">f4")))
    rec("tensor_bigendian", lambda: torch.tensor(np.ones(2, ">f4")))
    rec("from_numpy_0d", torch.from_numpy(np.array(3.0)))
    rec("from_numpy_list_err", lambda: torch.from_numpy([1, 2]))
    rec("t_np_f64_like_ones", torch.ones_like(torch.from_numpy(np.zeros(2))))
    rec("tensor_of_range", torch.tensor(range(4)))
    rec("tensor_of_mixed_bool_int", torch.tensor([True, 2]))
    rec("tensor_of_mixed_int_float", torch.tensor([1, 2.5]))
    rec("tensor_of_tuple", torch.tensor(((1, 2), (3, 4))))
    rec("tensor_ragged", lambda: torch.tensor([[1, 2], [3]]))
    rec("tensor_str", lambda: torch.tensor("abc"))
    rec("tensor_none", lambda: torch.tensor(None))
    rec("tensor_empty_list", torch.tensor([]))
    rec("tensor_empty_nested", torch.tensor([[], []]))


def p_finance(torch, rec):
    g = torch.Generator().manual_seed(23)
    ret = torch.randn(60, generator=g, dtype=torch.float64) * 0.01
    price = 100 * torch.cumprod(1 + ret, 0)
    rec("price", price)
    w = price.unfold(0, 10, 1)
    rec("rolling_mean", w.mean(1))
    rec("rolling_std", w.std(1))
    rec("rolling_max", w.max(1).values)
    rec("rolling_min_idx", w.argmin(1))
    rec("drawdown", price / torch.cummax(price, 0).values - 1)
    rec("logret", torch.log(price[1:] / price[:-1]))
    rec("log1p", torch.log1p(ret))
    rec("expm1", torch.expm1(ret))
    rec("sharpe", ret.mean() / ret.std() * 252**0.5)
    rets2 = torch.stack([ret, ret.roll(3)])
    rec("corr_roll", torch.corrcoef(rets2))
    rec("ewm", ewm(torch, ret[:8], 0.3))
    rec("pct_rank", (w[:, -1:] > w).sum(1).float() / 9)
    rec("where_sign", torch.where(ret > 0, 1, torch.where(ret < 0, -1, 0))[:10])
    rec("sign_changes", torch.diff(torch.sign(ret)).ne(0).sum())
    rec("quantile_window", torch.quantile(w, 0.5, dim=1)[:5])
    rec("unfold_step5", price.unfold(0, 5, 5).shape)
    rec("unfold_too_big", lambda: price.unfold(0, 61, 1))
    rec("unfold_size0", lambda: price.unfold(0, 0, 1).shape)
    rec("as_strided", torch.as_strided(price, (3, 4), (4, 1))[:, 0])
    rec("cummin", torch.cummin(price[:6], 0))
    rec("cumsum_neg_dim", torch.cumsum(price[:6].reshape(2, 3), -1))
    rec("float32_cumprod", torch.cumprod(1 + ret.float(), 0)[-1])
    rec("round_money", torch.round(price[:4], decimals=2))


def ewm(torch, x, alpha):
    wts = (1 - alpha) ** torch.arange(len(x) - 1, -1, -1, dtype=x.dtype)
    return torch.cumsum(wts * x, 0) / torch.cumsum(wts, 0) * 1.0


def p_grads(torch, rec):
    # the point of the port: gradients through np-style code
    g = torch.Generator().manual_seed(29)
    x = torch.randn(6, 3, generator=g, dtype=torch.float64, requires_grad=True)
    y = torch.randn(5, 3, generator=g, dtype=torch.float64)
    d = torch.cdist(x, y)
    loss = d.min(1).values.sum() + torch.linalg.norm(torch.cross(x[:5], y, dim=1), dim=1).sum()
    loss = loss + torch.quantile(x[:, 0], 0.3) + x.var(0, correction=0).sum()
    loss = loss + torch.trapezoid(x[:, 1]) + torch.diff(x[:, 2], prepend=x[:1, 0]).pow(2).sum()
    loss = loss + torch.where(x > 0, x, x * 0.1).sum() + x.clip(-0.5, 0.5).sum()
    loss = loss + torch.hypot(x[:, 0], x[:, 1]).sum() + torch.atan2(x[:, 0], x[:, 2]).sum()
    loss = loss + torch.logaddexp(x[:, 0], x[:, 1]).sum() + torch.kron(x[:2, :2], y[:2, :2]).sum()
    loss = loss + torch.einsum("ij,kj->", x[:2], y[:2]) + x.unfold(0, 3, 1).mean(-1).pow(2).sum()
    loss = loss + torch.cov(x.T).sum() + torch.corrcoef(x.T).sum()
    loss = loss + x[[0, 0, 1]].sum() + torch.take_along_dim(x, x.argsort(1), 1)[:, 0].sum()
    loss = loss + x.median() + torch.nanmean(x) + torch.tensordot(x, x, dims=2)
    loss = loss + torch.copysign(x, y[:1]).sum()
    loss = (
        loss
        + torch.block_diag(x[:2], y[:1]).pow(2).sum()
        + torch.rot90(x).mul(torch.arange(18.0, dtype=torch.float64).reshape(3, 6)).sum()
    )
    loss = loss + torch.cumulative_trapezoid(x[:, 0]).sum() + torch.logcumsumexp(x[:, 1], 0).sum()
    loss.backward()
    rec("loss", loss)
    rec("grad", x.grad)
    z = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    rec("frexp_grad", lambda: torch.frexp(z)[0].sum().backward())
    rec("ldexp_grad", lambda: torch.autograd.grad(torch.ldexp(z, torch.tensor([1, 2, 3])).sum(), z))
    rec("hist_grad", lambda: torch.histc(z, 3).requires_grad)
    rec(
        "nan_to_num_grad",
        torch.autograd.grad(torch.nan_to_num(z / torch.tensor([0.0, 1.0, 2.0])).sum(), z),
    )
    rec("masked_assign_grad", masked_assign_grad(torch))


def masked_assign_grad(torch):
    z = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = z * 2
    y[y < 0] = 0
    y.sum().backward()
    return z.grad


def p_port_mistakes(torch, rec):
    x = torch.arange(12.0).reshape(3, 4)
    rec.w("neg_step", lambda: x[::-1])
    rec.w("neg_step_t", lambda: torch.arange(5)[::-2])
    rec.w("astype", lambda: x.astype(np.float32))
    rec.w("dtype_np", lambda: torch.tensor([1, 2], dtype=np.float32))
    rec.w("zeros_np_dtype", lambda: torch.zeros(3, dtype=np.int64))
    rec.w("to_np_dtype", lambda: x.to(np.float32))
    rec.w("to_np_dtype_str", lambda: x.to("float32"))
    rec.w("dtype_str", lambda: torch.zeros(2, dtype="float32"))
    rec.w("T_3d", lambda: torch.zeros(2, 3, 4).T.shape)
    rec.w("T_1d", lambda: torch.arange(3).T)
    rec.w("mT_1d", lambda: torch.arange(3).mT)
    rec.w("sum_axis", lambda: x.sum(axis=0))
    rec.w("sum_keepdims", lambda: x.sum(1, keepdims=True))
    rec.w("mean_axis_keepdims", lambda: torch.mean(x, axis=1, keepdims=True))
    rec.w("max_axis", lambda: x.max(axis=1))
    rec.w("argmax_axis", lambda: torch.argmax(x, axis=0))
    rec.w("std_axis", lambda: x.std(axis=0))
    rec.w("cat_axis", lambda: torch.cat([x, x], axis=1).shape)
    rec.w("stack_axis", lambda: torch.stack([x, x], axis=2).shape)
    rec.w("squeeze_axis", lambda: torch.zeros(1, 3).squeeze(axis=0).shape)
    rec.w("unsqueeze_axis", lambda: torch.zeros(3).unsqueeze(axis=0).shape)
    rec.w("flip_axis", lambda: torch.flip(x, axis=0))
    rec.w("flip_nodims", lambda: torch.flip(x))
    rec.w("cumsum_axis", lambda: torch.cumsum(x, axis=0))
    rec.w("sort_axis", lambda: torch.sort(x, axis=0))
    rec.w("argsort_axis", lambda: torch.argsort(x, axis=1))
    rec.w("any_axis", lambda: (x > 3).any(axis=0))
    rec.w("all_tuple", lambda: (x > -1).all(dim=(0, 1)))
    rec.w("any_tuple", lambda: torch.any(x > 3, dim=(0, 1)))
    rec.w("sum_dim_empty", lambda: x.sum(dim=()))
    rec.w("sum_dim_list_empty", lambda: torch.sum(x, dim=[]))
    rec.w("mean_dim_empty", lambda: x.mean(dim=()))
    rec.w("amax_empty_dim", lambda: x.amax(dim=()))
    rec.w("median_axis", lambda: torch.median(x, axis=1))
    rec.w("quantile_axis", lambda: torch.quantile(x, 0.5, axis=0))
    rec.w("clip_kw", lambda: torch.clip(x, a_min=1, a_max=3))
    rec.w("clamp_kw", lambda: torch.clamp(x, min=1, max=3))
    rec.w("transpose_np", lambda: x.transpose())
    rec.w("transpose_perm", lambda: torch.zeros(2, 3, 4).transpose(2, 0, 1))
    rec.w("permute_tuple", lambda: torch.zeros(2, 3, 4).permute((2, 0, 1)).shape)
    rec.w("reshape_tuple", lambda: x.reshape((2, 6)).shape)
    rec.w("reshape_order", lambda: x.reshape(2, 6, order="F"))
    rec.w("size_attr", lambda: x.size)
    rec.w("size_call", lambda: x.size())
    rec.w("shape_idx", lambda: x.shape[-1])
    rec.w("copy_method", lambda: x.copy())
    rec.w("flatten_order", lambda: x.flatten("F"))
    rec.w("max_two", lambda: torch.max(x, x * 0 + 5))
    rec.w("max_scalar", lambda: torch.max(x, 5))
    rec.w("maximum_scalar", lambda: torch.maximum(x, 5))
    rec.w("maximum_t0", lambda: torch.maximum(x, torch.tensor(5)))
    rec.w("mean_int", lambda: torch.arange(4).mean())
    rec.w("arange_float_len", lambda: torch.arange(0, 1, 0.1).shape)
    rec.w("arange_neg", lambda: torch.arange(-1, 1, 0.3))
    rec.w("arange_f32_len", lambda: len(torch.arange(1, 2.3, 0.1)))
    rec.w("arange_bad", lambda: torch.arange(0, 5, -1))
    rec.w("arange_zero_step", lambda: torch.arange(0, 5, 0))
    rec.w("arange_dtype_int", lambda: torch.arange(0, 2.5, 0.5, dtype=torch.int64))
    rec.w("linspace_int", lambda: torch.linspace(0, 10, 4, dtype=torch.int64))
    rec.w("linspace_noint", lambda: torch.linspace(0, 1))
    rec.w("logspace", lambda: torch.logspace(0, 3, 4, base=2))
    rec.w("logspace_int", lambda: torch.logspace(0, 2, 3, dtype=torch.int64))
    rec.w("eye_nm", lambda: torch.eye(2, 3))
    rec.w("eye_k", lambda: torch.eye(3, k=1))
    rec.w("full_int", lambda: torch.full((2,), 3).dtype)
    rec.w("full_bool", lambda: torch.full((2,), True).dtype)
    rec.w("zeros_like_dt", lambda: torch.zeros_like(x, dtype=torch.int32))
    rec.w("full_like_float_in_int", lambda: torch.full_like(torch.arange(3), 2.7))
    rec.w("ones_list", lambda: torch.ones([2, 3]).shape)
    rec.w("tensor_of_tensor", lambda: torch.tensor(x).shape)
    rec.w("tensor_copy", lambda: torch.tensor(torch.arange(3)))
    rec.w("tensor_list_of_0d", lambda: torch.tensor([torch.tensor(1), torch.tensor(2)]))
    rec.w("type_str", lambda: x.type())
    rec.w("type_cast", lambda: x.type(torch.int32))
    rec.w("type_str_cast", lambda: x.type("torch.IntTensor"))
    rec.w("double", lambda: x.double().dtype)
    rec.w("is_floating", lambda: (x.is_floating_point(), torch.is_floating_point(x.long())))
    rec.w("dtype_is", lambda: x.dtype == torch.float)
    rec.w(
        "dtype_itemsize",
        lambda: (torch.float16.itemsize, torch.int8.is_signed, torch.float64.is_floating_point),
    )
    rec.w("result_type", lambda: torch.result_type(torch.tensor([1], dtype=torch.uint8), -1))
    rec.w("result_type_2", lambda: torch.result_type(torch.tensor(1.0), torch.tensor([1])))
    rec.w("promote_types", lambda: torch.promote_types(torch.uint8, torch.int8))
    rec.w(
        "can_cast",
        lambda: (
            torch.can_cast(torch.float64, torch.int32),
            torch.can_cast(torch.int32, torch.float16),
        ),
    )
    rec.w("len_0d", lambda: len(torch.tensor(3)))
    rec.w("iter_0d", lambda: list(torch.tensor(3)))
    rec.w("bool_ambig", lambda: bool(torch.tensor([1, 2])))
    rec.w("bool_empty", lambda: bool(torch.tensor([])))
    rec.w("if_1elt", lambda: bool(torch.tensor([0.0])))
    rec.w("in", lambda: (3 in torch.tensor([1, 2, 3]), 4 in torch.tensor([1, 2, 3])))
    rec.w("in_tensor", lambda: torch.tensor([1, 2]) in torch.arange(5))
    rec.w("builtin_sum", lambda: sum(torch.tensor([1, 2, 3])))
    rec.w("builtin_max", lambda: max(torch.tensor([1, 5, 3])))
    rec.w("sorted", lambda: sorted(torch.tensor([3, 1, 2])))
    rec.w("builtin_round", lambda: round(torch.tensor(2.567), 2))
    rec.w("builtin_round0", lambda: round(torch.tensor(2.5)))
    rec.w("builtin_abs", lambda: abs(torch.tensor([-1, 2])))
    rec.w("math_sqrt", lambda: math.sqrt(torch.tensor(4.0)))
    rec.w("math_floor", lambda: math.floor(torch.tensor(2.5)))
    rec.w("math_isnan", lambda: math.isnan(torch.tensor(float("nan"))))
    rec.w("divmod", lambda: divmod(torch.tensor([7]), 2))
    rec.w("index_list", lambda: [10, 20, 30][torch.tensor(1)])
    rec.w("index_float_t", lambda: [10, 20, 30][torch.tensor(1.0)])
    rec.w("range_t", lambda: list(range(torch.tensor(3))))
    rec.w("format", lambda: f"{torch.tensor(2.5):.2f}")
    rec.w("format_1d", lambda: f"{torch.tensor([2.5]):.2f}")
    rec.w("format_int", lambda: f"{torch.tensor(7):03d}")
    rec.w("format_empty", lambda: f"{torch.tensor([1.0, 2.0])}")
    rec.w("hash_eq", lambda: len({torch.tensor(1), torch.tensor(1)}))
    rec.w("eq_ndarray", lambda: torch.tensor([1, 2]) == np.array([1, 3]))
    rec.w("matmul_ndarray", lambda: torch.ones(2, 2) @ np.ones((2, 2)))
    rec.w("mul_np_bool", lambda: torch.tensor([1.0, 2.0]) * np.bool_(True))
    rec.w("add_np_f16", lambda: (torch.tensor([1], dtype=torch.int32) + np.float16(1)).dtype)
    rec.w("add_np_u8", lambda: torch.tensor([1], dtype=torch.int8) + np.uint8(200))
    rec.w(
        "add_np_i32_to_f16", lambda: (torch.tensor([1.0], dtype=torch.float16) + np.int32(1)).dtype
    )
    rec.w("tensor_npf32_list_dtype", lambda: torch.tensor([np.float32(1), np.float32(2)]).dtype)
    rec.w("tensor_np_i8_list", lambda: torch.tensor([np.int8(1), np.int8(2)]).dtype)
    rec.w("tensor_np_u8_0d", lambda: torch.tensor(np.uint8(200)).dtype)
    rec(
        "tensor_list_np_arrays_mixed",
        lambda: torch.tensor([np.array([1.0, 2.0]), [3.0, 4.0]]).dtype,
    )
    rec.w("asarray_np", lambda: torch.asarray(np.arange(3.0)).dtype)
    rec.w("asarray_np_copy", lambda: torch.asarray(np.arange(3.0), dtype=torch.float32))
    rec.w("asarray_list", lambda: torch.asarray([1, 2.5]).dtype)
    rec.w("asarray_scalar", lambda: torch.asarray(np.float64(1.0)))
    rec.w("asarray_np_f32_scalar", lambda: torch.asarray(np.float32(1.0)).dtype)
    rec.w("as_tensor_shares", as_tensor_shares(torch))
    rec.w("asarray_shares", asarray_shares(torch))
    rec("from_numpy_readonly_write", from_numpy_readonly_write(torch))
    rec.w("numpy_T_strides", lambda: torch.arange(6.0).reshape(2, 3).T.numpy().strides)
    rec.w("numpy_view_shares", numpy_view_shares(torch))
    rec.w("numpy_0d", lambda: torch.tensor(3.0).numpy())
    rec.w("numpy_bool", lambda: torch.tensor([True]).numpy().dtype)
    rec.w("numpy_f16", lambda: torch.tensor([1.0], dtype=torch.float16).numpy().dtype)
    rec.w("tolist_f32", lambda: torch.tensor([0.1]).tolist())
    rec.w("item_u8", lambda: type(torch.tensor(5, dtype=torch.uint8).item()).__name__)
    rec.w("item_bool", lambda: torch.tensor(True).item())
    rec.w("item_many", lambda: torch.tensor([1, 2]).item())


def as_tensor_shares(torch):
    def f():
        a = np.zeros(3)
        t = torch.as_tensor(a)
        t[0] = 1
        t2 = torch.as_tensor(a, dtype=torch.float32)
        t2[1] = 1
        return a

    return f


def asarray_shares(torch):
    def f():
        a = np.zeros(3, dtype=np.float32)
        t = torch.asarray(a)
        t[0] = 1
        t2 = torch.asarray(a, copy=True)
        t2[1] = 1
        return a

    return f


def from_numpy_readonly_write(torch):
    def f():
        a = np.arange(3.0)
        a.flags.writeable = False
        t = torch.from_numpy(a)
        return t + 1

    return f


def numpy_view_shares(torch):
    def f():
        t = torch.zeros(3, 4)
        n = t[:, 1].numpy()
        n[:] = 7
        return t

    return f


def p_random_np(torch, rec):
    g = torch.Generator().manual_seed(123)
    rec("rand", torch.rand(4, generator=g))
    rec("uniform", torch.empty(3).uniform_(-2, 5, generator=g))
    rec("normal_t", torch.normal(torch.zeros(3), torch.ones(3) * 2, generator=g))
    rec("normal_mean_t", torch.normal(torch.arange(3.0), 1.0, generator=g))
    rec("normal_std_t", torch.normal(0.0, torch.arange(1.0, 4.0), generator=g))
    rec("bernoulli", torch.bernoulli(torch.full((6,), 0.3), generator=g))
    rec("bernoulli_p", torch.empty(5).bernoulli_(0.5, generator=g))
    rec("exponential", torch.empty(3).exponential_(2.0, generator=g))
    rec("geometric", torch.empty(3).geometric_(0.3, generator=g))
    rec("cauchy", torch.empty(2).cauchy_(generator=g))
    rec("lognormal", torch.empty(2).log_normal_(generator=g))
    rec("random_", torch.empty(4, dtype=torch.int64).random_(0, 10, generator=g))
    rec("random_u8", torch.empty(4, dtype=torch.uint8).random_(generator=g))
    rec("random_f", torch.empty(3).random_(5, generator=g))
    perm = torch.randperm(8, generator=g)
    rec("perm", perm)
    data = torch.arange(8) * 10
    rec("shuffle", data[perm])
    rec("choice_norep", torch.multinomial(torch.ones(8), 3, generator=g))
    rec(
        "choice_w",
        torch.multinomial(torch.tensor([1.0, 2, 3, 4]), 10, replacement=True, generator=g),
    )
    rec("multinomial_2d", torch.multinomial(torch.tensor([[1.0, 1], [0, 1]]), 2, generator=g))
    rec("randint_like", torch.randint_like(torch.zeros(3), 4, 9, generator=g))
    rec("randn_like", torch.randn_like(torch.zeros(2, dtype=torch.float64)))
    rec("rand_like_int", lambda: torch.rand_like(torch.zeros(2, dtype=torch.int64)))
    rec("randint_big", torch.randint(-(2**40), 2**40, (3,), generator=g))
    rec("randint_u8", torch.randint(0, 256, (4,), dtype=torch.uint8, generator=g))
    rec("randint_bool", lambda: torch.randint(0, 2, (4,), dtype=torch.bool, generator=g))
    rec("randint_float", torch.randint(0, 5, (3,), dtype=torch.float64, generator=g))
    rec("rand_f16", torch.rand(3, dtype=torch.float16, generator=g))
    rec("randn_f16", torch.randn(3, dtype=torch.float16, generator=g))
    rec("randperm_i32", torch.randperm(5, dtype=torch.int32, generator=g))
    rec("randperm_big", torch.randperm(40, generator=g)[:5])
    st = g.get_state()
    a = torch.rand(3, generator=g)
    g.set_state(st)
    rec("replay", torch.equal(a, torch.rand(3, generator=g)))
    rec("global_rand", torch.rand(2))
    rec("global_seed", torch.initial_seed())
    torch.manual_seed(7)
    r1 = torch.randn(3)
    torch.manual_seed(7)
    rec("reseed", torch.equal(r1, torch.randn(3)))
    rec("fork_rng", fork(torch))
    # Monte Carlo pi
    pts = torch.rand(1000, 2, generator=torch.Generator().manual_seed(2))
    rec("pi", 4 * (pts.pow(2).sum(1) <= 1).float().mean())
    # random walk
    steps = torch.randint(0, 2, (50,), generator=torch.Generator().manual_seed(3)) * 2 - 1
    rec("walk", steps.cumsum(0)[-5:])
    rec("gen_device", str(g.device))
    rec("seed_random", lambda: torch.Generator().seed() > 0)


def fork(torch):
    with torch.random.fork_rng():
        torch.manual_seed(99)
        inner = torch.rand(2)
    return inner, torch.rand(1)


def p_reprs(torch, rec):
    rec("r_int", repr(torch.tensor([[1, 2], [300, -4]])))
    rec("r_u8", repr(torch.tensor([1, 255], dtype=torch.uint8)))
    rec("r_bool", repr(torch.tensor([True, False])))
    rec("r_big", repr(torch.tensor([1e10, 1.5])))
    rec("r_small", repr(torch.tensor([1e-5, 1.0])))
    rec("r_nan", repr(torch.tensor([float("nan"), float("inf"), -1.25])))
    rec("r_f64", repr(torch.tensor([1.5, 2.25], dtype=torch.float64)))
    rec("r_i32", repr(torch.arange(3, dtype=torch.int32)))
    rec("r_empty_2d", repr(torch.zeros(0, 3)))
    rec("r_empty_int", repr(torch.zeros(0, dtype=torch.int64)))
    rec("r_0d_int", repr(torch.tensor(5)))
    rec("r_long", repr(torch.arange(2000)))
    rec("r_long_f", repr(torch.linspace(0, 1, 1200).reshape(30, 40)))
    rec("r_mixed_mag", repr(torch.tensor([1e-8, 1e8])))
    rec("r_ints_as_float", repr(torch.tensor([1.0, 2.0, 300.0])))
    rec("r_neg0", repr(torch.tensor([-0.0, 0.0])))
    rec("r_grad", repr(torch.tensor([1.0], requires_grad=True) * 2))
    rec("r_str", str(torch.tensor([[0.12345678, 2.0]])))
    rec("r_f16", repr(torch.tensor([0.1, 2.0], dtype=torch.float16)))
    rec("r_printopts", printopts(torch))


def printopts(torch):
    torch.set_printoptions(precision=2, sci_mode=False)
    try:
        return repr(torch.tensor([1e-5, 123.456789]))
    finally:
        torch.set_printoptions(profile="default")


def p_hist_image2(torch, rec):
    # 2-D histogram / joint histogram and colour quantisation
    g = torch.Generator().manual_seed(31)
    img = torch.randint(0, 256, (6, 7, 3), generator=g, dtype=torch.uint8)
    q = (img // 64).long()
    code = q[..., 0] * 16 + q[..., 1] * 4 + q[..., 2]
    rec("code", code)
    cnt = torch.bincount(code.flatten(), minlength=64)
    rec("cnt", cnt)
    vals, inv, counts = torch.unique(code, return_inverse=True, return_counts=True)
    rec("uniq", (vals, inv, counts))
    rec("inv_shape", inv.shape)
    hd = torch.histogramdd(
        img.reshape(-1, 3)[:, :2].float(), bins=[4, 4], range=[0.0, 256.0, 0.0, 256.0]
    )
    rec("hdd", hd)
    rec(
        "hdd_weight",
        torch.histogramdd(
            img.reshape(-1, 3)[:, :2].float(), bins=3, weight=torch.ones(42), density=True
        ),
    )
    rec(
        "hdd_edges",
        torch.histogramdd(
            img.reshape(-1, 3)[:, :2].float(),
            bins=[torch.tensor([0.0, 100, 256]), torch.tensor([0.0, 50, 256])],
        ),
    )
    gray = (img.float() * torch.tensor([0.299, 0.587, 0.114])).sum(-1)
    rec("gray", gray)
    rec("gray_u8", gray.round().to(torch.uint8))
    rec("gray_u8_trunc", gray.to(torch.uint8))
    rec("hist_np_style", torch.histogram(gray.flatten(), bins=torch.linspace(0, 256, 5)))
    rec("cdf_norm", torch.histc(gray, bins=8, min=0, max=256).cumsum(0) / gray.numel())
    ix = torch.bucketize(gray, torch.tensor([64.0, 128.0, 192.0]))
    palette = torch.tensor(
        [[0, 0, 0], [85, 85, 85], [170, 170, 170], [255, 255, 255]], dtype=torch.uint8
    )
    rec("palette", palette[ix][0])
    rec("hist_minmax_eq", torch.histogram(torch.tensor([2.0, 2.0]), bins=2))
    rec("histc_outside", torch.histc(torch.tensor([-1.0, 0.5, 2.0]), bins=2, min=0, max=1))
    rec("histc_f64", torch.histc(torch.tensor([1.0, 2.0], dtype=torch.float64), bins=2).dtype)
    rec("hist_empty", lambda: torch.histogram(torch.tensor([]), bins=3))
    rec("histc_nan", lambda: torch.histc(torch.tensor([float("nan"), 1.0]), bins=2))
    rec("hist_inf", lambda: torch.histogram(torch.tensor([float("inf"), 1.0]), bins=2))
    rec("bincount_empty", torch.bincount(torch.tensor([], dtype=torch.int64)))
    rec("bincount_empty_ml", torch.bincount(torch.tensor([], dtype=torch.int64), minlength=3))
    rec("bincount_u8", torch.bincount(torch.tensor([1, 1], dtype=torch.uint8)))
    rec("bincount_2d", lambda: torch.bincount(torch.tensor([[1]])))
    rec("bincount_w_int", torch.bincount(torch.tensor([0, 1, 1]), weights=torch.tensor([1, 2, 3])))
    rec(
        "bincount_w_half",
        lambda: torch.bincount(
            torch.tensor([0, 1]), weights=torch.tensor([1.0, 2.0], dtype=torch.float16)
        ),
    )


def p_conv_image(torch, rec):
    # unfold-based convolution (im2col by hand) and max-filter, compared with conv2d
    g = torch.Generator().manual_seed(37)
    img = torch.rand(1, 1, 6, 6, generator=g)
    k = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    cols = torch.nn.functional.unfold(img, 3, padding=1)
    rec("cols", cols.shape)
    lap = (k.flatten() @ cols).reshape(6, 6)
    rec("lap", lap)
    rec("lap_conv", torch.nn.functional.conv2d(img, k[None, None], padding=1)[0, 0])
    rec("maxfilt", cols.max(1).values.reshape(6, 6))
    rec("medfilt", cols.median(1).values.reshape(6, 6))
    patches = img[0, 0].unfold(0, 3, 1).unfold(1, 3, 1)
    rec("patches", patches.shape)
    rec("patch_sum", patches.sum((-1, -2)))
    rec("fold", torch.nn.functional.fold(cols, (6, 6), 3, padding=1)[0, 0])
    rec("corr_flip", torch.nn.functional.conv2d(img, k.flip(0, 1)[None, None], padding="same"))
    rec("conv_valid", torch.nn.functional.conv2d(img, k[None, None], padding="valid").shape)
    rec("conv_int", lambda: torch.nn.functional.conv2d(img.long(), k.long()[None, None]))
    rec("conv_mixed", lambda: torch.nn.functional.conv2d(img.double(), k[None, None]))
    rec(
        "conv1d_same_even",
        torch.nn.functional.conv1d(
            torch.arange(6.0)[None, None], torch.ones(1, 1, 4), padding="same"
        ),
    )
    rec("avgpool", torch.nn.functional.avg_pool2d(img, 2))
    rec("maxpool_idx", torch.nn.functional.max_pool2d(img, 2, return_indices=True))
    rec("upsample", torch.nn.functional.interpolate(img[:, :, :2, :2], scale_factor=2))
    rec("pad_reflect", torch.nn.functional.pad(img, (2, 2, 0, 0), mode="reflect")[0, 0, 0])
    rec("pad_np_tuple", lambda: torch.nn.functional.pad(img, ((1, 1), (1, 1))))
    rec("gauss", gauss(torch))


def gauss(torch):
    x = torch.arange(-2, 3, dtype=torch.float32)
    g1 = torch.exp(-(x**2) / 2)
    g1 = g1 / g1.sum()
    return torch.outer(g1, g1)


def p_gradient_calc(torch, rec):
    # np.gradient / finite-difference calculus ported to torch.gradient
    x = torch.linspace(0, 2, 9, dtype=torch.float64)
    y = x**3
    rec("g", lambda: torch.gradient(y))
    rec("g_sp", lambda: torch.gradient(y, spacing=0.25))
    rec("g_sp_list", lambda: torch.gradient(y, spacing=[0.25]))
    rec("g_coords", lambda: torch.gradient(y, spacing=(x,)))
    rec("g_edge2", lambda: torch.gradient(y, spacing=0.25, edge_order=2))
    rec("g_coords_edge2", lambda: torch.gradient(y, spacing=(x**2,), edge_order=2))
    f = torch.outer(x, x[:5])
    rec("g2d", lambda: torch.gradient(f))
    rec("g2d_dim", lambda: torch.gradient(f, dim=1))
    rec("g2d_dims", lambda: torch.gradient(f, spacing=[0.5, 2.0], dim=(0, 1)))
    rec("g2d_negdim", lambda: torch.gradient(f, dim=-1, edge_order=2))
    rec("g_int", lambda: torch.gradient(torch.tensor([1, 4, 9, 16])))
    rec("g_int_sp", lambda: torch.gradient(torch.tensor([1, 4, 9, 16]), spacing=2))
    rec("g_short", lambda: torch.gradient(torch.tensor([1.0])))
    rec("g_short2", lambda: torch.gradient(torch.tensor([1.0, 2.0]), edge_order=2))
    rec("g_bad_sp", lambda: torch.gradient(f, spacing=[1.0, 2.0, 3.0]))
    rec("g_f32", lambda: torch.gradient(y.float(), spacing=0.25)[0].dtype)
    rec("g_np_scalar_sp", lambda: torch.gradient(y, spacing=np.float64(0.25)))
    lap = torch.gradient(torch.gradient(f, dim=0)[0], dim=0)[0]
    rec("lap", lambda: lap)
    rec("unravel", lambda: torch.unravel_index(torch.tensor([5, 13]), (3, 5)))
    rec("unravel_int", lambda: torch.unravel_index(torch.tensor(7), (2, 4)))
    rec("unravel_argmax", lambda: torch.unravel_index(f.argmax(), f.shape))
    rec("unravel_oob", lambda: torch.unravel_index(torch.tensor([15]), (3, 5)))
    rec("unravel_float", lambda: torch.unravel_index(torch.tensor([1.0]), (3, 5)))
    rec("unravel_neg", lambda: torch.unravel_index(torch.tensor([-1]), (3, 5)))
    rec("angle", lambda: torch.angle(torch.tensor([-2.0, 0.0, 3.0, float("nan")])))
    rec("angle_int", lambda: torch.angle(torch.tensor([-2, 0, 3])))
    rec("isreal", lambda: torch.isreal(torch.tensor([1.0, 2.0])))
    rec("isposinf", lambda: torch.isposinf(torch.tensor([1, 2])))
    rec("isfinite_int", lambda: torch.isfinite(torch.tensor([1, 2])))
    rec(
        "nextafter",
        lambda: (
            torch.nextafter(
                torch.tensor([1.0], dtype=torch.float64), torch.tensor([2.0], dtype=torch.float64)
            )
            - 1
        ),
    )
    rec("clamp_nan", lambda: torch.clamp(torch.tensor([float("nan"), 2.0]), 0, 1))
    rec("round_neg_dec", lambda: torch.round(torch.tensor([1234.5, 15.0]), decimals=-1))
    rec("floor_div_float", lambda: torch.floor_divide(torch.tensor([-7.5, 7.5]), 2))
    rec("true_divide", lambda: torch.true_divide(torch.tensor([7]), 2))
    rec("var_mean", lambda: torch.var_mean(f, dim=0, correction=0))
    rec("std_single", lambda: torch.tensor([1.0]).std())
    rec("std_dim_single", lambda: torch.ones(1, 3).std(0))
    rec("cov_single", lambda: torch.cov(torch.tensor([[1.0], [2.0]])))
    rec("corr_clip", lambda: torch.corrcoef(torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])))
    rec("diff_n_big", lambda: torch.diff(torch.arange(3.0), n=5))
    rec("diff_n0", lambda: torch.diff(torch.arange(3.0), n=0))
    rec("diff_n_neg", lambda: torch.diff(torch.arange(3.0), n=-1))
    rec("diff_0d", lambda: torch.diff(torch.tensor(1.0)))
    rec("diff_mix_dt", lambda: torch.diff(torch.arange(3), prepend=torch.tensor([0.5])))
    rec("cumsum_bool", lambda: torch.cumsum(torch.tensor([True, True]), 0))
    rec("cumprod_bool", lambda: torch.cumprod(torch.tensor([True, True]), 0))
    rec("trapz_2d", lambda: torch.trapezoid(f, dim=0))
    rec("trapz_x2d", lambda: torch.trapezoid(f, x[:5], dim=1))
    rec("trapz_x_bad", lambda: torch.trapezoid(f, x, dim=1))
    rec("cumtrapz_x", lambda: torch.cumulative_trapezoid(y, x))
    rec("trapz_empty", lambda: torch.trapezoid(torch.tensor([])))
    rec("trapz_alias", lambda: torch.trapz(y, x))


def p_legacy_ctor(torch, rec):
    rec("Tensor_list", lambda: torch.Tensor([1, 2]))
    rec("Tensor_size", lambda: torch.Tensor(2, 3).shape)
    rec("Tensor_np", lambda: torch.Tensor(np.arange(3)))
    rec("Tensor_np_f64", lambda: torch.Tensor(np.arange(3.0)))
    rec("FloatTensor_np", lambda: torch.FloatTensor(np.arange(3)))
    rec("LongTensor_float", lambda: torch.LongTensor([1.7, -1.7]))
    rec("LongTensor_np", lambda: torch.LongTensor(np.array([1, 2])))
    rec("ByteTensor", lambda: torch.ByteTensor([1, 255]))
    rec("BoolTensor", lambda: torch.BoolTensor([1, 0]))
    rec("Tensor_0d_np", lambda: torch.Tensor(np.float64(2.5)))
    rec("Tensor_tuple", lambda: torch.Tensor((1.5, 2)))
    rec("Tensor_empty", lambda: torch.Tensor())
    rec("new_tensor_np", lambda: torch.zeros(1).new_tensor(np.arange(3)))
    rec("new_tensor_list", lambda: torch.zeros(1, dtype=torch.int8).new_tensor([1, 2]))
    rec("tensor_float_int", lambda: torch.tensor(3.7, dtype=torch.int64))
    rec("tensor_float_bool", lambda: torch.tensor([1.5, 0.0], dtype=torch.bool))
    rec("tensor_np_float_int", lambda: torch.tensor(np.array([1.5, -1.5]), dtype=torch.int64))
    rec("tensor_i32_overflow", lambda: torch.tensor([2**31], dtype=torch.int32))
    rec("tensor_i8_overflow", lambda: torch.tensor(200, dtype=torch.int8))
    rec("tensor_f16_big", lambda: torch.tensor([1e6], dtype=torch.float16))
    rec("tensor_np_intc", lambda: torch.tensor(np.array([1, 2], dtype=np.intc)))
    rec("tensor_np_longlong", lambda: torch.tensor(np.array([1, 2], dtype=np.longlong)).dtype)
    rec("tensor_np_ld", lambda: torch.tensor(np.array([1, 2], dtype=np.longdouble)))
    rec("tensor_np_u64", lambda: torch.tensor(np.array([1, 2], dtype=np.uint64)))
    rec("from_numpy_ld", lambda: torch.from_numpy(np.array([1, 2], dtype=np.longdouble)))
    rec("tensor_np_ld_scalar", lambda: torch.tensor(np.longdouble(1.5)))
    rec("tensor_np_u64_scalar", lambda: torch.tensor(np.uint64(3)))
    rec("tensor_np_u32_scalar", lambda: torch.tensor(np.uint32(3)))
    rec("tensor_list_np_u16", lambda: torch.tensor([np.uint16(3), np.uint16(4)]))
    rec("frombuffer", lambda: torch.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=torch.uint8))
    rec(
        "frombuffer_i16",
        lambda: torch.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=torch.int16),
    )
    rec(
        "frombuffer_off",
        lambda: torch.frombuffer(bytearray(range(8)), dtype=torch.uint8, count=3, offset=2),
    )
    rec("tensor_memoryview", lambda: torch.tensor(memoryview(b"\x01\x02")))
    rec("tensor_bytes", lambda: torch.tensor(b"\x01\x02"))
    rec("tensor_bytearray", lambda: torch.tensor(bytearray(b"\x01\x02")))
    rec("tensor_np_2d_list_of_arrays_i", lambda: torch.tensor([np.arange(2), np.arange(2)]).dtype)
    rec("tensor_list_np_0d_f32", lambda: torch.tensor([np.array(1.0, dtype=np.float32)]).dtype)
    rec("tensor_dtype_from_npf32_mixed_list", lambda: torch.tensor([np.float32(1), 2.0]).dtype)
    rec("tensor_list_npf64_int", lambda: torch.tensor([np.float64(1), 2]).dtype)
    rec("tensor_list_np_bool_int", lambda: torch.tensor([np.bool_(True), 2]).dtype)
    rec("tensor_list_npint_float", lambda: torch.tensor([np.int16(1), 2.5]).dtype)


def p_np_scalars_ops(torch, rec):
    i32 = torch.tensor([1, 2], dtype=torch.int32)
    f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
    u8 = torch.tensor([1, 200], dtype=torch.uint8)
    b = torch.tensor([True, False])
    for nm, s in [
        ("i64", np.int64(2)),
        ("i8", np.int8(2)),
        ("f32", np.float32(2.5)),
        ("f64", np.float64(2.5)),
        ("bool", np.bool_(True)),
        ("u8", np.uint8(3)),
        ("f16", np.float16(1.5)),
    ]:
        for tn, t in [("i32", i32), ("f16", f16), ("u8", u8), ("b", b)]:
            rec(f"{tn}*{nm}", lambda t=t, s=s: t * s)
            rec(f"{nm}*{tn}", lambda t=t, s=s: s * t)
            rec(f"{tn}+{nm}", lambda t=t, s=s: t + s)
            rec(f"{nm}-{tn}", lambda t=t, s=s: s - t)
            rec(f"{tn}/{nm}", lambda t=t, s=s: t / s)
            rec(f"{nm}/{tn}", lambda t=t, s=s: s / t)
            rec(f"{tn}//{nm}", lambda t=t, s=s: t // s)
            rec(f"{tn}**{nm}", lambda t=t, s=s: t**s)
            rec(f"{nm}**{tn}", lambda t=t, s=s: s**t)
            rec(f"{tn}=={nm}", lambda t=t, s=s: t == s)
            rec(f"{tn}&{nm}", lambda t=t, s=s: t & s)
            rec(f"{tn}.add_({nm})", lambda t=t, s=s: t.clone().add_(s))
            rec(f"where_{tn}_{nm}", lambda t=t, s=s: torch.where(b, t, s))
            rec(f"clamp_{tn}_{nm}", lambda t=t, s=s: torch.clamp(t, max=s))
            rec(f"full_like_{tn}_{nm}", lambda t=t, s=s: torch.full_like(t, s))
            rec(f"fill_{tn}_{nm}", lambda t=t, s=s: t.clone().fill_(s))
            rec(f"setitem_{tn}_{nm}", lambda t=t, s=s: setitem(t, s))
            rec(f"mfill_{tn}_{nm}", lambda t=t, s=s: t.masked_fill(b, s))
    rec("full_np", lambda: torch.full((2,), np.float32(1.5)).dtype)
    rec("full_np_bool", lambda: torch.full((2,), np.bool_(True)).dtype)
    rec("tensor_f32_div_npi", lambda: torch.tensor([3], dtype=torch.int32) / np.int32(2))
    rec("np_0d_arr_times", lambda: torch.tensor([1, 2], dtype=torch.int32) * np.array(2))
    rec("np_0d_arr_rtimes", lambda: np.array(2.5) * torch.tensor([1, 2], dtype=torch.int32))
    rec("where_np_cond", lambda: torch.where(np.array([True, False]), torch.ones(2), 0.0))
    rec("maximum_np", lambda: torch.maximum(torch.ones(2), np.array([0.0, 2.0])))
    rec("cat_np", lambda: torch.cat([torch.ones(2), np.ones(2)]))
    rec("stack_np", lambda: torch.stack([np.ones(2), np.ones(2)]))
    rec("add_np_arr_fn", lambda: torch.add(torch.ones(2), np.ones(2)))
    rec("mul_np_list", lambda: torch.ones(2) * [1, 2])
    rec("eq_list", lambda: torch.ones(2) == [1, 2])
    rec("matmul_list", lambda: torch.ones(2) @ [1.0, 2.0])
    rec("index_np_0d", lambda: torch.arange(5)[np.array(2)])
    rec(
        "index_np_2d_bool",
        lambda: torch.arange(4).reshape(2, 2)[np.array([[True, False], [False, True]])],
    )
    rec("index_np_i32", lambda: torch.arange(5)[np.array([1, 2], dtype=np.int32)])
    rec("index_np_u8", lambda: torch.arange(5)[np.array([1, 0, 1, 0, 1], dtype=np.uint8)])
    rec("index_np_float", lambda: torch.arange(5)[np.array([1.0])])
    rec("setitem_np", setitem_np(torch))
    rec("setitem_np_idx", setitem_np_idx(torch))
    rec("np_t_shape_compare", lambda: torch.zeros(2, 3).shape == (2, 3))
    rec("np_shape_from_t", lambda: np.zeros(torch.zeros(2, 3).shape).shape)
    rec("np_reshape_tsize", lambda: np.arange(6).reshape(torch.Size([2, 3])).shape)
    rec("np_full_tscalar", lambda: np.full(2, torch.tensor(3.0)))
    rec("np_arange_t", lambda: np.arange(torch.tensor(3)))
    rec("np_array_list_0d", lambda: np.array([torch.tensor(1.0), torch.tensor(2.0)]).dtype)
    rec("np_float_t", lambda: np.float64(torch.tensor(2.5)))
    rec("np_asarray_f16", lambda: np.asarray(torch.tensor([1.0], dtype=torch.float16)).dtype)
    rec("np_asarray_bool", lambda: np.asarray(torch.tensor([True])).dtype)
    rec("np_asarray_0d", lambda: np.asarray(torch.tensor(2)))
    rec("np_asarray_dtype", lambda: np.asarray(torch.tensor([1, 2]), dtype=np.float32))
    rec("np_array_copy_false", lambda: np.array(torch.tensor([1, 2]), copy=False))


def setitem(t, s):
    t = t.clone()
    t[0] = s
    return t


def setitem_np(torch):
    def f():
        t = torch.zeros(2, 3)
        t[0] = np.array([1.0, 2.0, 3.0])
        t[1, :2] = np.float64(7)
        t[:, 2] = np.array([5, 6], dtype=np.int64)
        return t

    return f


def setitem_np_idx(torch):
    def f():
        t = torch.zeros(5)
        t[np.array([0, 2])] = 1
        t[np.array([False, True, False, False, True])] = 2
        return t

    return f


def p_shape_np(torch, rec):
    # NumPy's shape idioms
    x = torch.arange(24).reshape(2, 3, 4)
    rec("swapdims", lambda: torch.swapdims(x, 0, 2).shape)
    rec("movedim", lambda: torch.movedim(x, (0, 1), (2, 0)).shape)
    rec("expand_as", lambda: torch.arange(4).expand_as(x[0]))
    rec("broadcast_to", lambda: torch.broadcast_to(torch.arange(3)[:, None], (3, 4)))
    rec("broadcast_to_bad", lambda: torch.broadcast_to(torch.arange(3), (4, 2)))
    rec(
        "broadcast_tensors",
        lambda: torch.broadcast_tensors(torch.arange(3)[:, None], torch.arange(2)),
    )
    rec("broadcast_shapes", lambda: torch.broadcast_shapes((3, 1), (1, 4)))
    rec("broadcast_shapes_bad", lambda: torch.broadcast_shapes((3,), (4,)))
    rec("add_bcast_bad", lambda: torch.ones(3) + torch.ones(4))
    rec("mm_bad", lambda: torch.ones(2, 3) @ torch.ones(2, 3))
    rec("dot_1d_2d", lambda: torch.ones(3) @ torch.ones(3, 2))
    rec("dot_bad", lambda: torch.dot(torch.ones(3), torch.ones(2)))
    rec("matmul_0d", lambda: torch.tensor(2.0) @ torch.ones(2))
    rec("flatten_range", lambda: x.flatten(1).shape)
    rec("unflatten", lambda: x.reshape(6, 4).unflatten(0, (2, 3)).shape)
    rec("view_bad", lambda: x.transpose(0, 1).view(-1))
    rec("reshape_bad", lambda: x.reshape(5, -1))
    rec("reshape_two_neg", lambda: x.reshape(-1, -1))
    rec("squeeze_non1", lambda: x.squeeze(0).shape)
    rec("squeeze_bad_dim", lambda: x.squeeze(5))
    rec("unbind", lambda: torch.unbind(x[:, 0], 1))
    rec("narrow", lambda: x.narrow(2, 1, 2).shape)
    rec("select", lambda: x.select(1, -1))
    rec("index_none_ell", lambda: x[None, ..., None].shape)
    rec("index_too_many", lambda: x[0, 0, 0, 0])
    rec("index_oob_int", lambda: x[5])
    rec("index_slice_oob", lambda: x[:, 5:].shape)
    rec("index_step", lambda: x[:, ::2, 1::2])
    rec("index_bool_scalar", lambda: x[True].shape)
    rec("index_false", lambda: x[False].shape)
    rec("index_0d_bool_tensor", lambda: x[torch.tensor(True)].shape)
    rec("index_empty_list", lambda: x[[]].shape)
    rec("index_empty_tensor", lambda: x[torch.tensor([], dtype=torch.int64)].shape)
    rec("index_empty_float_tensor", lambda: x[torch.tensor([])].shape)
    rec("tile_more_dims", lambda: torch.tile(torch.arange(2), (2, 1, 2)).shape)
    rec("repeat_more", lambda: torch.arange(2).repeat(2, 1, 2).shape)
    rec("expand_neg", lambda: torch.arange(3).expand(2, -1))
    rec("expand_bad", lambda: torch.arange(3).expand(2, 4))
    rec("resize", lambda: torch.arange(6).clone().resize_(2, 2))
    rec("contig_T_view", lambda: torch.arange(6).reshape(2, 3).T.reshape(6))
    rec("split_np_sections_style", lambda: torch.split(torch.arange(6), 3, 0))
    rec("chunk_dim", lambda: torch.chunk(x, 2, dim=2)[1].shape)
    rec("pad_np_like", lambda: torch.nn.functional.pad(torch.arange(3.0), (2, 1)))
    rec(
        "pad_int_reflect",
        lambda: torch.nn.functional.pad(torch.arange(4).reshape(1, 4), (1, 1), mode="reflect"),
    )
    rec(
        "pad_1d_reflect", lambda: torch.nn.functional.pad(torch.arange(4.0), (1, 1), mode="reflect")
    )
    rec(
        "pad_2d_reflect",
        lambda: torch.nn.functional.pad(torch.arange(4.0).reshape(1, 4), (2, 1), mode="reflect"),
    )
    rec(
        "pad_2d_replicate",
        lambda: torch.nn.functional.pad(
            torch.arange(6.0).reshape(2, 3), (1, 1, 1, 0), mode="replicate"
        ),
    )
    rec(
        "pad_2d_circular",
        lambda: torch.nn.functional.pad(torch.arange(6.0).reshape(2, 3), (1, 1), mode="circular"),
    )
    rec("pad_neg", lambda: torch.nn.functional.pad(torch.arange(6.0).reshape(2, 3), (-1, 0)))
    rec(
        "pad_reflect_too_big",
        lambda: torch.nn.functional.pad(torch.arange(3.0)[None], (3, 0), mode="reflect"),
    )
    rec("pad_bool", lambda: torch.nn.functional.pad(torch.tensor([True]), (1, 1)))
    rec(
        "pad_u8_val",
        lambda: torch.nn.functional.pad(torch.tensor([1], dtype=torch.uint8), (1, 0), value=300),
    )
    rec("pad_int_float_val", lambda: torch.nn.functional.pad(torch.tensor([1]), (1, 0), value=2.7))


def p_image_u8(torch, rec):
    g = torch.Generator().manual_seed(41)
    img = torch.randint(0, 256, (4, 5, 3), generator=g, dtype=torch.uint8)
    rec("scaled", lambda: img * 0.5)
    rec("bright", lambda: (img.float() * 1.3).clamp(0, 255).to(torch.uint8))
    rec("bright_u8clamp", lambda: img.clamp(-5, 300))
    rec("bright_u8clamp_t", lambda: img.clamp(torch.tensor(-5), torch.tensor(300)))
    rec("u8_iadd_float", lambda: img.clone().__iadd__(1.5))
    rec("u8_iadd_t", lambda: img.clone().__iadd__(torch.tensor(1.5)))
    rec("u8_iadd_i64", lambda: img.clone().__iadd__(torch.tensor([300])))
    rec("u8_imul_neg", lambda: img.clone().__imul__(-1))
    rec("u8_byte", lambda: (img.float() / 255 * 255).byte())
    rec("u8_f16", lambda: img.to(torch.float16)[0, 0])
    rec("u8_div_int", lambda: img // 2)
    rec("u8_rshift", lambda: img >> 4)
    rec("u8_lshift", lambda: img << 4)
    rec("u8_mean", lambda: img.mean(dim=(0, 1)))
    rec("u8_mean_f", lambda: img.float().mean(dim=(0, 1)))
    rec("u8_mean_dtype", lambda: img.mean(dim=(0, 1), dtype=torch.float32))
    rec("u8_sum_axis", lambda: img.sum((0, 1)))
    rec("u8_std", lambda: img.std())
    rec("u8_median", lambda: img.median())
    rec("u8_sort", lambda: img[0, :, 0].sort())
    rec("u8_topk", lambda: img.flatten().topk(3))
    rec("u8_abs_diff", lambda: (img[..., 0].int() - img[..., 1].int()).abs())
    rec("u8_abs_diff_wrap", lambda: img[..., 0] - img[..., 1])
    rec("u8_cmp_neg", lambda: img > -1)
    rec("u8_eq_300", lambda: img == 300)
    rec("u8_where", lambda: torch.where(img > 128, img, 0))
    rec("u8_where_neg", lambda: torch.where(img > 128, img, -1))
    rec("u8_cat_bool", lambda: torch.cat([img[0, 0], torch.tensor([True, False])]))
    rec("u8_max_i8", lambda: torch.maximum(img[0, 0], torch.tensor([-1, 1, 2], dtype=torch.int8)))
    rec("u8_to_bool", lambda: img[0].bool())
    rec("u8_float_idx", lambda: img.float()[..., [2, 1, 0]][0, 0])
    rec("hwc_to_chw", lambda: img.permute(2, 0, 1).contiguous().shape)
    rec("alpha_blend", lambda: (0.3 * img[..., 0] + 0.7 * img[..., 1]).round().to(torch.uint8))
    rec("u8_mm", lambda: img[..., 0] @ img[..., 0].T)
    rec(
        "i8_mm",
        lambda: torch.tensor([[100]], dtype=torch.int8) @ torch.tensor([[2]], dtype=torch.int8),
    )
    rec("i8_sum_overflow", lambda: torch.tensor([100, 100], dtype=torch.int8).sum(dtype=torch.int8))
    rec("u8_prod", lambda: torch.tensor([16, 32], dtype=torch.uint8).prod())
    rec("u8_cumsum", lambda: torch.tensor([200, 100], dtype=torch.uint8).cumsum(0))
    rec("u8_bincount", lambda: torch.bincount(img[..., 0].flatten()).shape)
    rec("u8_histc", lambda: torch.histc(img.float(), bins=4, min=0, max=256))
    rec("u8_pow", lambda: img[0, 0] ** 2)
    rec("u8_neg_pow", lambda: img[0, 0] ** -1)
    rec("u8_bitwise_not", lambda: ~img[0, 0])
    rec("u8_logical_not", lambda: torch.logical_not(img[0, 0]))
    rec("u8_argsort", lambda: img[0, :, 0].argsort(stable=True))
    rec("u8_unique", lambda: torch.unique(img[..., 0] // 64))
    rec("u8_div_0", lambda: img[0, 0] // 0)
    rec("u8_rem", lambda: img[0, 0] % 7)
    rec("u8_fmod_neg", lambda: torch.fmod(img[0, 0], -7))
    rec("u8_rem_neg", lambda: torch.remainder(img[0, 0], -7))


def p_edges(torch, rec):
    nan = float("nan")
    f = torch.tensor([3.0, nan, -0.0, 0.0, 1.0, nan, -2.0, 1.0])
    rec("argsort_nan", lambda: f.argsort(stable=True))
    rec("argsort_nan_desc", lambda: f.argsort(stable=True, descending=True))
    rec("sort_nan_desc", lambda: torch.sort(f, descending=True, stable=True))
    rec("unique_zero", lambda: torch.unique(torch.tensor([0.0, -0.0, 1.0]), return_counts=True))
    rec("unique_nan_inv", lambda: torch.unique(f, return_inverse=True, return_counts=True))
    rec(
        "unique_dim1",
        lambda: torch.unique(
            torch.tensor([[1, 2, 1], [3, 4, 3]]), dim=1, return_inverse=True, return_counts=True
        ),
    )
    rec("unique_dim_empty", lambda: torch.unique(torch.zeros(0, 2), dim=0))
    rec("unique_consec_nan", lambda: torch.unique_consecutive(torch.tensor([nan, nan, 1.0])))
    rec(
        "uc_dim1",
        lambda: torch.unique_consecutive(
            torch.tensor([[1, 1, 2], [3, 3, 4]]), dim=1, return_inverse=True, return_counts=True
        ),
    )
    srt = torch.tensor([1.0, 2.0, 2.0, 3.0, nan])
    rec("ss_nan", lambda: torch.searchsorted(srt, torch.tensor([nan, 2.0, 2.5, -1.0])))
    rec("ss_nan_r", lambda: torch.searchsorted(srt, torch.tensor([nan, 2.0]), right=True))
    rec(
        "ss_i32_right",
        lambda: torch.searchsorted(srt, torch.tensor([2.0]), out_int32=True, side="right"),
    )
    uns = torch.tensor([3, 1, 2, 2])
    rec(
        "ss_sorter_right",
        lambda: torch.searchsorted(
            uns, torch.tensor([2, 0, 5]), side="right", sorter=uns.argsort(stable=True)
        ),
    )
    rec(
        "ss_sorter_bad",
        lambda: torch.searchsorted(uns, torch.tensor([2]), sorter=torch.tensor([0, 1])),
    )
    rec("ss_nd_bad", lambda: torch.searchsorted(torch.tensor([[1, 2]]), torch.tensor([1])))
    rec(
        "ss_f16",
        lambda: torch.searchsorted(
            torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1.5])
        ),
    )
    rec(
        "bucketize_int_b",
        lambda: torch.bucketize(torch.tensor([0.5, 1.5, 2.0]), torch.tensor([1, 2])),
    )
    rec("bucketize_scalar", lambda: torch.bucketize(1.5, torch.tensor([1.0, 2.0])))
    rec("bucketize_2d_b", lambda: torch.bucketize(torch.tensor([1.0]), torch.ones(2, 2)))
    rec(
        "isin_unique",
        lambda: torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 3]), assume_unique=True),
    )
    rec("isin_nan", lambda: torch.isin(torch.tensor([nan, 1.0]), torch.tensor([nan])))
    rec("isin_bool", lambda: torch.isin(torch.tensor([True]), torch.tensor([True])))
    rec("hist_bins_list", lambda: torch.histogram(torch.tensor([1.0, 2.0]), bins=[0.0, 1.0, 2.0]))
    rec("hist_f64", lambda: torch.histogram(torch.tensor([1.0, 2.0], dtype=torch.float64), bins=2))
    rec(
        "hist_mixed_w",
        lambda: torch.histogram(
            torch.tensor([1.0, 2.0]), bins=2, weight=torch.ones(2, dtype=torch.float64)
        ),
    )
    rec(
        "hist_range_rev",
        lambda: torch.histogram(torch.tensor([1.0, 2.0]), bins=2, range=(3.0, 1.0)),
    )
    rec("hist_bins0", lambda: torch.histogram(torch.tensor([1.0, 2.0]), bins=0))
    rec("histc_bins0", lambda: torch.histc(torch.tensor([1.0, 2.0]), bins=0))
    rec("histc_minmax_rev", lambda: torch.histc(torch.tensor([1.0, 2.0]), bins=2, min=3, max=1))
    rec(
        "hist_edges_unsorted",
        lambda: torch.histogram(torch.tensor([1.0, 2.0]), bins=torch.tensor([2.0, 0.0, 3.0])),
    )
    rec(
        "cov_both_w",
        lambda: torch.cov(
            torch.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 3.0]]),
            fweights=torch.tensor([1, 2, 1]),
            aweights=torch.tensor([0.5, 1.0, 2.0]),
            correction=0,
        ),
    )
    rec(
        "cov_fw_float",
        lambda: torch.cov(torch.tensor([1.0, 2.0]), fweights=torch.tensor([1.0, 2.0])),
    )
    rec("cov_fw_neg", lambda: torch.cov(torch.tensor([1.0, 2.0]), fweights=torch.tensor([-1, 2])))
    rec("cov_3d", lambda: torch.cov(torch.ones(2, 2, 2)))
    rec("corr_1d", lambda: torch.corrcoef(torch.tensor([1.0, 2.0, 4.0])))
    rec("quantile_oob", lambda: torch.quantile(torch.tensor([1.0, 2.0]), 1.5))
    rec("quantile_list", lambda: torch.quantile(torch.tensor([1.0, 2.0]), [0.5]))
    rec("quantile_2dq", lambda: torch.quantile(torch.tensor([1.0, 2.0]), torch.tensor([[0.5]])))
    rec("quantile_nan", lambda: torch.quantile(torch.tensor([1.0, nan, 2.0]), 0.5))
    rec(
        "nanquantile_allnan",
        lambda: torch.nanquantile(torch.tensor([[nan, nan], [1.0, 2.0]]), 0.5, dim=1),
    )
    rec("quantile_empty", lambda: torch.quantile(torch.tensor([]), 0.5))
    rec(
        "quantile_interp_bad", lambda: torch.quantile(torch.tensor([1.0]), 0.5, interpolation="foo")
    )
    rec("kth_keep", lambda: torch.kthvalue(torch.tensor([[3.0, 1.0, 2.0]]), 2, dim=1, keepdim=True))
    rec("cummax_ties", lambda: torch.cummax(torch.tensor([1, 3, 3, 2, 3]), 0))
    rec("cummin_ties", lambda: torch.cummin(torch.tensor([2.0, 1.0, 1.0, nan, 0.0]), 0))
    rec("cummax_nan", lambda: torch.cummax(torch.tensor([1.0, nan, 3.0]), 0))
    rec("max_bool", lambda: torch.tensor([True, False]).max())
    rec("argmax_bool", lambda: torch.tensor([False, True, True]).argmax())
    rec(
        "sort_bool_stable",
        lambda: torch.sort(torch.tensor([True, False, True, False]), stable=True, descending=True),
    )
    rec("aminmax_empty", lambda: torch.aminmax(torch.tensor([])))
    rec("median_empty", lambda: torch.tensor([]).median())
    rec("median_dim_empty", lambda: torch.zeros(0, 3).median(dim=0))
    rec("mode_empty", lambda: torch.tensor([]).mode())
    rec("std_mean_pos", lambda: torch.std_mean(torch.tensor([1.0, 2.0, 4.0]), 0, True))
    rec("var_int_corr", lambda: torch.var(torch.tensor([1.0, 2.0]), correction=1.5))
    rec("mean_empty", lambda: torch.tensor([]).mean())
    rec("nanmean_int", lambda: torch.tensor([1, 2]).nanmean())
    rec("nansum_bool", lambda: torch.nansum(torch.tensor([True, True])))
    rec("logsumexp_int", lambda: torch.logsumexp(torch.tensor([1, 2]), 0))
    rec("logsumexp_inf", lambda: torch.logsumexp(torch.tensor([-float("inf"), -float("inf")]), 0))
    rec("prod_empty_int", lambda: torch.tensor([], dtype=torch.int32).prod())
    rec("cumsum_i32", lambda: torch.tensor([1, 2], dtype=torch.int32).cumsum(0))
    rec("sum_i32", lambda: torch.tensor([1, 2], dtype=torch.int32).sum())
    rec("sum_u8_dim", lambda: torch.tensor([[200, 100]], dtype=torch.uint8).sum(1))
    rec("mean_f16", lambda: torch.tensor([60000.0, 60000.0], dtype=torch.float16).mean())
    rec("sum_f16", lambda: torch.tensor([60000.0, 60000.0], dtype=torch.float16).sum())
    rec("var_f16", lambda: torch.tensor([1.0, 2.0], dtype=torch.float16).var())
    rec("norm_f16", lambda: torch.tensor([300.0, 400.0], dtype=torch.float16).norm())
    rec("norm_int_p", lambda: torch.tensor([3, 4]).norm(p=1))
    rec("count_nonzero_nan", lambda: torch.count_nonzero(torch.tensor([nan, 0.0])))
    rec("all_nan", lambda: torch.tensor([nan]).all())
    rec("eq_nan", lambda: torch.tensor([nan]) == torch.tensor([nan]))
    rec("clamp_int_bounds_float", lambda: torch.clamp(torch.tensor([1, 5]), max=2.5))
    rec("clamp_u8_neg", lambda: torch.clamp(torch.tensor([1, 5], dtype=torch.uint8), min=-1))
    rec(
        "clamp_min_gt_max_t",
        lambda: torch.clamp(
            torch.tensor([1.0, 5.0]), torch.tensor([3.0, 3.0]), torch.tensor([2.0, 2.0])
        ),
    )
    rec("where_bool_scalar_bool", lambda: torch.where(torch.tensor([True, False]), True, 2))
    rec(
        "where_f16_scalar",
        lambda: torch.where(
            torch.tensor([True, False]), torch.tensor([1.0, 2.0], dtype=torch.float16), 1e5
        ),
    )
    rec(
        "where_int_f64s",
        lambda: torch.where(
            torch.tensor([True]), torch.tensor([1], dtype=torch.int8), np.float64(2.5)
        ),
    )
    rec(
        "where_i8_big",
        lambda: torch.where(torch.tensor([True]), torch.tensor([1], dtype=torch.int8), 1000),
    )


def p_dtypes_more(torch, rec):
    i = torch.tensor([1, 2, 3])
    rec("div_scalar_int", lambda: i / 2)
    rec("div_0d", lambda: i / torch.tensor(2))
    rec("div_f16_0d", lambda: torch.tensor([1.0], dtype=torch.float16) / torch.tensor(3.0))
    rec("int_mul_f32_0d", lambda: (i * torch.tensor(1.5, dtype=torch.float64)).dtype)
    rec("i8_plus_0d_i64", lambda: torch.tensor([1], dtype=torch.int8) + torch.tensor(1000))
    rec(
        "u8_plus_0d_i8",
        lambda: torch.tensor([1], dtype=torch.uint8) + torch.tensor(-1, dtype=torch.int8),
    )
    rec("bool_plus_0d_int", lambda: torch.tensor([True]) + torch.tensor(5))
    rec("bool_plus_int", lambda: torch.tensor([True]) + 5)
    rec("bool_mul_float", lambda: torch.tensor([True]) * 2.5)
    rec("bool_div", lambda: torch.tensor([True]) / torch.tensor([True]))
    rec("bool_floordiv", lambda: torch.tensor([True]) // torch.tensor([True]))
    rec("bool_pow", lambda: torch.tensor([True]) ** 2)
    rec("float_pow_int_t", lambda: 2.0 ** torch.tensor([1, 2]))
    rec("int_pow_float_s", lambda: torch.tensor([1, 2]) ** 2.0)
    rec("int_pow_neg_float", lambda: torch.tensor([2]) ** -1.0)
    rec("int_pow_0d_neg", lambda: torch.tensor([2]) ** torch.tensor(-1))
    rec("int_rpow_neg", lambda: (-2) ** torch.tensor([-1]))
    rec("neg_int_pow", lambda: torch.tensor([-2]) ** 3)
    rec("i16_mul", lambda: torch.tensor([300], dtype=torch.int16) * 300)
    rec("i32_mul_wrap", lambda: torch.tensor([2**30], dtype=torch.int32) * 4)
    rec("i64_wrap", lambda: torch.tensor([2**62]) * 4)
    rec("i64_add_big", lambda: torch.tensor([1]) + 2**63)
    rec("i64_add_big2", lambda: torch.tensor([1]) + 2**64)
    rec("f32_eps", lambda: torch.tensor([1.0]) + 1e-8 == 1)
    rec("f32_from_py_double", lambda: torch.tensor([0.1]).item())
    rec("f32_plus_py_double", lambda: (torch.tensor([0.1]) + 0.2).item())
    rec("f16_plus_py", lambda: (torch.tensor([0.1], dtype=torch.float16) + 0.2).item())
    rec("f16_mul_big", lambda: torch.tensor([2.0], dtype=torch.float16) * 1e5)
    rec("f16_div_small", lambda: torch.tensor([2.0], dtype=torch.float16) / 1e-8)
    rec("int_floor_float", lambda: torch.tensor([7]) // 2.5)
    rec("int_rem_float", lambda: torch.tensor([7]) % 2.5)
    rec("int_rem_neg_float", lambda: torch.tensor([-7]) % 2.5)
    rec("float_rem_neg_zero", lambda: torch.tensor([-4.0]) % 2)
    rec("fmod_neg_zero", lambda: torch.fmod(torch.tensor([-4.0]), 2))
    rec("int_div_trunc_neg", lambda: torch.div(torch.tensor([-7]), 2.0, rounding_mode="trunc"))
    rec("float_floor_div_inf", lambda: torch.tensor([1.0]) // float("inf"))
    rec("float_neg_floor_div_inf", lambda: torch.tensor([-1.0]) // float("inf"))
    rec("rem_inf", lambda: torch.tensor([1.0, -1.0]) % float("inf"))
    rec("i8_floordiv_neg", lambda: torch.tensor([-128], dtype=torch.int8) // -1)
    rec("i64_min_floordiv", lambda: torch.tensor([-(2**63)]) // -1)
    rec("i64_min_rem", lambda: torch.tensor([-(2**63)]) % -1)
    rec("abs_i64_min", lambda: torch.tensor([-(2**63)]).abs())
    rec("u8_floordiv_neg_s", lambda: torch.tensor([7], dtype=torch.uint8) // -2)
    rec("u8_rem_neg_s", lambda: torch.tensor([7], dtype=torch.uint8) % -2)
    rec("shift_neg_val", lambda: torch.tensor([-1]) >> 70)
    rec("shift_i8_big", lambda: torch.tensor([1], dtype=torch.int8) << 8)
    rec("shift_u8_by_t", lambda: torch.tensor([1], dtype=torch.uint8) << torch.tensor([9]))
    rec("shift_float", lambda: torch.tensor([1.0]) << 2)
    rec("shift_bool", lambda: torch.tensor([True]) << 1)
    rec("xor_bool_int", lambda: torch.tensor([True]) ^ torch.tensor([3]))
    rec("and_bool_scalar", lambda: torch.tensor([True, False]) & 1)
    rec("and_bool_true", lambda: torch.tensor([True, False]) & True)
    rec("or_u8_neg", lambda: torch.tensor([1], dtype=torch.uint8) | -1)
    rec("invert_bool_int_mix", lambda: ~torch.tensor([True, False]).int())
    rec("bitwise_not_u8", lambda: torch.bitwise_not(torch.tensor([0, 255], dtype=torch.uint8)))
    rec("popcount_like", lambda: ((torch.tensor([7, 8]) >> torch.arange(4)[:, None]) & 1).sum(0))
    rec("tensor_int_big_list", lambda: torch.tensor([2**40, 1]).dtype)
    rec("tensor_float_int_list_big", lambda: torch.tensor([2**70, 1.0]).dtype)
    rec("arange_int_float_step", lambda: torch.arange(0, 5, 2.0).dtype)
    rec("arange_big_float", lambda: torch.arange(1e8, 1e8 + 5, 1.0)[:3])
    rec("full_bool_int", lambda: torch.full((2,), 1, dtype=torch.bool))
    rec("zeros_int_fill", lambda: torch.zeros(2, dtype=torch.int8).fill_(-1.7))
    rec("tensor_float_to_u8_neg", lambda: torch.tensor([-1.5]).to(torch.uint8))
    rec("f64_to_f16_overflow", lambda: torch.tensor([1e6], dtype=torch.float64).half())
    rec("f32_to_i32_big", lambda: torch.tensor([3e9]).to(torch.int64))
    rec("nan_to_int", lambda: torch.tensor([float("nan")]).long().dtype)


PROGRAMS = {
    "image_sobel_uint8": [p_image_conv, p_image_u8],
    "histogram_equalisation": [p_hist_eq, p_hist_image2],
    "signal_moving_average": [p_signal],
    "finite_differences": [p_gradient_calc],
    "statistics_bootstrap": [p_stats],
    "geometry": [p_geometry],
    "game_of_life": [p_life],
    "sorting_ranking": [p_sorting, p_edges],
    "masking": [p_masking],
    "fancy_indexing": [p_fancy, p_shape_np],
    "integer_arithmetic": [p_integer, p_dtypes_more],
    "views_inplace": [p_views_inplace],
    "numpy_named_functions": [p_npfuncs],
    "numpy_objects": [p_interop, p_legacy_ctor, p_np_scalars_ops],
    "finance_rolling": [p_finance, p_random_np],
    "gradients_through_ports": [p_grads],
    "porting_mistakes_reprs": [p_port_mistakes, p_reprs],
    "im2col_filters": [p_conv_image],
}


def _seeded(prog):
    def run(lib, rec):
        lib.manual_seed(0)
        prog(lib, rec)

    return run


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name):
    for prog in PROGRAMS[name]:
        ref = run_program(_seeded(prog), torch, rec=Rec(torch))
        got = run_program(_seeded(prog), minitorch, rec=Rec(minitorch))
        assert [n for n, _ in ref] == [n for n, _ in got], prog.__name__
        diffs = [
            f"{n}:\n  torch:     {a!r}\n  minitorch: {b!r}"
            for (n, a), (_, b) in zip(ref, got, strict=True)
            if n not in KNOWN and not same(a, b)
        ]
        assert not diffs, f"{prog.__name__}:\n" + "\n".join(diffs)
