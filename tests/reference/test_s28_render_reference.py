"""Session 28 (helper render): differentiable rendering and neural-field programs written the way
NeRF / mip-NeRF 360 / instant-NGP / nerfacc / 3DGS / gsplat / SIREN / NeuS / TensoRF / SoftRas
code is, run under torch and minitorch with the same seeds and compared record by record (float64
to 1e-10 of each record's scale, float32 to 1e-4, texts and warnings exactly; NumPy's numerical
RuntimeWarnings from outside the modules minitorch silences them in are recorded too): positional
and integrated encodings (BARF windows), rays from intrinsics (xy/ij meshgrids, NDC, slab tests),
stratified sampling, volume rendering with exclusive cumprod transmittance (fully opaque samples:
cumprod's backward through zeros, double backward), inverse-CDF importance sampling (searchsorted
right/side/sorter/out_int32, gather, clamp; mip-NeRF 360's blurred weights), SDF networks with
eikonal and normal losses (second order, Hessians), masked sphere tracing and implicit
differentiation of the hit, SIREN init and Laplacians, hash-grid encoding (int64 primes, xor,
remainder, shifts), trilinear interpolation by hand against grid_sample and tri-planes,
grid_sample in every mode/padding/align_corners (2-d and 3-d, at lattice points and borders, NaN
grids, input and grid gradients, a spatial transformer), 3-D Gaussians (quaternions, covariances,
EWA Jacobian, conics, eigvalsh) and their sorted front-to-back blending (loop and cumprod forms),
3DGS densification with optimizer-state surgery, tile binning with float bits viewed as int32,
soft rasterisation and soft z-buffers, SH colour to degree 3, pose refinement (so3 exp, Adam,
jacrev, lstsq, 6-d rotations), pytorch3d's rotation conversions, PSNR/SSIM/separable blurs,
TV/distortion/interlevel losses, nerfacc packed samples (repeat_interleave, index_add_,
scatter_reduce, segment sums), occupancy grids (Morton codes, max_pool3d, packed bits), NeuS
rendering, TensoRF (interpolated parameters, alpha masks), multi-view warping, forward-mode AD,
half-precision pieces and CPU autocast, custom Functions (custom_fwd, once_differentiable),
checkpointing, schedules, state-dict round trips, set_default_tensor_type, in-place updates
inside the graph, realistic batch sizes, printing, and the usual errors and warnings.

Known and left: float32 sqrt may be an ulp off torch's; float sums may differ in the last bit
(summation order: a float32 weight_norm g, a float64 softmax denominator that decides a
searchsorted tie); topk's order among tied values is unspecified in torch; grid_sample has a
tangent under forward-mode AD here (torch has no forward formula and raises: a documented
difference of minitorch's forward AD). Also seen and left (not compared here): torch lays the
results of linalg ops (inv, solve, cholesky, qr, svd, eigh, lstsq, lu_factor, ...) out
column-major and minitorch row-major; torch's binary pointwise ops and where/sort follow the
first operand's layout when operands' layouts differ, minitorch gives row-major; vmap runs
per-sample here, so .item() and nonzero inside it work where torch raises (documented)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "posenc", "rays", "stratified", "volrender", "zero_alpha", "importance", "importance_det",
    "sdf_eikonal", "sphere_trace", "siren", "hashgrid", "trilinear", "grid_sample_modes",
    "grid_sample_grad", "gaussians", "splat_blend", "soft_raster", "sh_colour", "pose_refine",
    "psnr_ssim", "tv_distortion", "errors", "nerf_train", "gs_densify", "packed_rays",
    "occupancy", "neus", "tensorf", "printing", "autograd_errors", "edge_numbers", "warnings",
    "grid_lattice", "forward_ad", "half", "big_batch",
    "ngp_custom", "default_dtype", "inplace_graph", "tile_binning", "multiview_warp",
    "rotations",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    def prog(lib, dt, rec):
        with warnings.catch_warnings():  # minitorch's own filter, which "always" would hide
            warnings.filterwarnings("ignore", category=RuntimeWarning, module=_KERNEL_MODULES)
            globals()["p_" + name](lib, dt, rec)

    want = run_program(prog, torch, dt, rec=Rec(dtypes=True), keep_warnings=_numeric)
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True), keep_warnings=_numeric)
    assert_records_match(want, got, 1e-10 if dt == "float64" else 1e-4, rename=True)


# --- helpers ---


_KERNEL_MODULES = r"minitorch\.(_ops|_backend|autograd\.engine)"


def _numeric(w):
    """NumPy's numerical warnings from outside the modules minitorch silences them in (torch
    gives none)."""
    return issubclass(w.category, RuntimeWarning)


def _posenc(lib, x, L, include_input=True, log_sampling=True):
    if log_sampling:
        freqs = 2.0 ** lib.linspace(0.0, L - 1, L, dtype=x.dtype)
    else:
        freqs = lib.linspace(2.0**0.0, 2.0 ** (L - 1), L, dtype=x.dtype)
    out = [x] if include_input else []
    for f in freqs:
        for fn in (lib.sin, lib.cos):
            out.append(fn(x * f))
    return lib.cat(out, -1)


def _get_rays(lib, H, W, K, c2w):
    i, j = lib.meshgrid(
        lib.linspace(0, W - 1, W, dtype=c2w.dtype),
        lib.linspace(0, H - 1, H, dtype=c2w.dtype),
        indexing="xy",
    )
    dirs = lib.stack([(i - K[0][2]) / K[0][0], -(j - K[1][2]) / K[1][1], -lib.ones_like(i)], -1)
    rays_d = lib.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


def _raw2outputs(lib, raw, z_vals, rays_d, white_bkgd=False):
    F = lib.nn.functional
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = lib.cat(
        [dists, lib.tensor([1e10], dtype=z_vals.dtype).expand(dists[..., :1].shape)], -1
    )
    dists = dists * lib.norm(rays_d[..., None, :], dim=-1)
    rgb = lib.sigmoid(raw[..., :3])
    alpha = 1.0 - lib.exp(-F.relu(raw[..., 3]) * dists)
    ones = lib.ones((alpha.shape[0], 1), dtype=alpha.dtype)
    trans = lib.cumprod(lib.cat([ones, 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    weights = alpha * trans
    rgb_map = lib.sum(weights[..., None] * rgb, -2)
    depth_map = lib.sum(weights * z_vals, -1)
    acc_map = lib.sum(weights, -1)
    disp_map = 1.0 / lib.max(1e-10 * lib.ones_like(depth_map), depth_map / acc_map)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def _sample_pdf(lib, bins, weights, N, det=False):
    weights = weights + 1e-5
    pdf = weights / lib.sum(weights, -1, keepdim=True)
    cdf = lib.cumsum(pdf, -1)
    cdf = lib.cat([lib.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = lib.linspace(0.0, 1.0, steps=N, dtype=bins.dtype)
        u = u.expand(list(cdf.shape[:-1]) + [N])
    else:
        u = lib.rand(list(cdf.shape[:-1]) + [N], dtype=bins.dtype)
    u = u.contiguous()
    inds = lib.searchsorted(cdf, u, right=True)
    below = lib.max(lib.zeros_like(inds - 1), inds - 1)
    above = lib.min((cdf.shape[-1] - 1) * lib.ones_like(inds), inds)
    inds_g = lib.stack([below, above], -1)
    matched = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = lib.gather(cdf.unsqueeze(1).expand(matched), 2, inds_g)
    bins_g = lib.gather(bins.unsqueeze(1).expand(matched), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = lib.where(denom < 1e-5, lib.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0]), inds


def _quat_to_rot(lib, q):
    q = lib.nn.functional.normalize(q, dim=-1)
    r, x, y, z = q.unbind(-1)
    return lib.stack(
        [
            1 - 2 * (y * y + z * z), 2 * (x * y - r * z), 2 * (x * z + r * y),
            2 * (x * y + r * z), 1 - 2 * (x * x + z * z), 2 * (y * z - r * x),
            2 * (x * z - r * y), 2 * (y * z + r * x), 1 - 2 * (x * x + y * y),
        ],
        -1,
    ).reshape(q.shape[:-1] + (3, 3))  # fmt: skip


# --- the programs ---


def p_posenc(lib, dt, rec):
    lib.manual_seed(0)
    x = (lib.rand(6, 3, dtype=dt) * 2 - 1).requires_grad_()
    e1 = _posenc(lib, x, 4)
    e2 = _posenc(lib, x, 3, include_input=False, log_sampling=False)
    rec("e1", e1)
    rec("e2", e2)
    rec("shape", str(tuple(e1.shape)))
    # the vectorised form: (…, L, 3) -> flatten
    freq = 2.0 ** lib.arange(4, dtype=x.dtype)
    xb = (x[..., None, :] * freq[:, None]).flatten(-2)
    e3 = lib.cat([x, lib.sin(lib.cat([xb, xb + 0.5 * math.pi], -1))], -1)
    rec("e3", e3)
    # integrated positional encoding (mip-NeRF): expected sin under a Gaussian
    var = lib.rand(6, 3, dtype=dt) * 0.1
    scales = 4.0 ** lib.arange(3, dtype=x.dtype)
    yv = (var[..., None, :] * scales[:, None]).reshape(6, -1)
    y = (x[..., None, :] * (2.0 ** lib.arange(3, dtype=x.dtype))[:, None]).reshape(6, -1)
    ipe = lib.exp(-0.5 * lib.cat([yv, yv], -1)) * lib.sin(lib.cat([y, y + 0.5 * math.pi], -1))
    rec("ipe", ipe)
    loss = (e1**2).sum() + e3.mean() + ipe.pow(3).sum()
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("gg", gg)
    # windowed (BARF) coarse-to-fine: cos easing of each band
    alpha = 2.5
    k = lib.arange(4, dtype=x.dtype)
    w = (1 - lib.cos(lib.clamp(alpha - k, 0, 1) * math.pi)) / 2
    enc = lib.stack([lib.sin(xb), lib.cos(xb)], -2).view(6, 2, 4, 3)
    rec("barf", (enc * w[:, None]).flatten(1))


def p_rays(lib, dt, rec):
    lib.manual_seed(1)
    H, W, focal = 4, 6, 5.0
    K = lib.tensor([[focal, 0, 0.5 * W], [0, focal, 0.5 * H], [0, 0, 1]], dtype=dt)
    th = 0.3
    c2w = lib.tensor(
        [
            [math.cos(th), 0, math.sin(th), 0.5],
            [0, 1, 0, -0.2],
            [-math.sin(th), 0, math.cos(th), 3.0],
            [0, 0, 0, 1],
        ],
        dtype=dt,
    )
    ro, rd = _get_rays(lib, H, W, K, c2w)
    rec("ro", ro)
    rec("rd", rd)
    rec("strides", str((ro.stride(), rd.stride(), ro.is_contiguous())))
    # ij indexing and the inverse-intrinsics form
    jj, ii = lib.meshgrid(lib.arange(H, dtype=dt), lib.arange(W, dtype=dt), indexing="ij")
    pix = lib.stack([ii + 0.5, jj + 0.5, lib.ones_like(ii)], -1)
    d_cam = pix @ lib.linalg.inv(K).T
    d_world = (c2w[:3, :3] @ d_cam.reshape(-1, 3).T).T
    rd2 = d_world / d_world.norm(dim=-1, keepdim=True)
    rec("rd2", rd2)
    rec("rd2n", lib.linalg.vector_norm(rd2, dim=-1))
    # NDC rays (forward-facing scenes)
    rays_o, rays_d = ro.reshape(-1, 3), rd.reshape(-1, 3)
    near = 1.0
    t = -(near + rays_o[..., 2]) / rays_d[..., 2]
    rays_o = rays_o + t[..., None] * rays_d
    o0 = -1.0 / (W / (2.0 * focal)) * rays_o[..., 0] / rays_o[..., 2]
    o1 = -1.0 / (H / (2.0 * focal)) * rays_o[..., 1] / rays_o[..., 2]
    o2 = 1.0 + 2.0 * near / rays_o[..., 2]
    d2 = -2.0 * near / rays_o[..., 2]
    rec("ndc", lib.stack([o0, o1, o2, d2], -1))
    # random ray batch and a near/far box intersection (slab method)
    sel = lib.randperm(H * W)[:10]
    o, d = rays_o[sel], rays_d[sel]
    inv = 1.0 / d
    t0, t1 = (-1.0 - o) * inv, (1.0 - o) * inv
    tmin = lib.minimum(t0, t1).amax(-1)
    tmax = lib.maximum(t0, t1).amin(-1)
    hit = tmax > tmin.clamp(min=0)
    rec("sel", sel)
    rec("tmin", tmin)
    rec("tmax", tmax)
    rec("hit", hit)
    rec("nhit", hit.sum())
    # pixel coordinates of projected points
    pts = lib.randn(5, 3, dtype=dt) + lib.tensor([0, 0, 4.0], dtype=dt)
    uvw = pts @ K.T
    uv = uvw[:, :2] / uvw[:, 2:]
    rec("uv", uv)
    rec("uvi", uv.floor().long().clamp(0, W - 1))


def p_stratified(lib, dt, rec):
    lib.manual_seed(2)
    R, N = 5, 8
    near = lib.full((R, 1), 2.0, dtype=dt)
    far = lib.full((R, 1), 6.0, dtype=dt)
    t_vals = lib.linspace(0.0, 1.0, steps=N, dtype=dt)
    z = near * (1.0 - t_vals) + far * t_vals
    rec("z_lin", z)
    z_disp = 1.0 / (1.0 / near * (1.0 - t_vals) + 1.0 / far * t_vals)
    rec("z_disp", z_disp)
    z = z.expand([R, N])
    mids = 0.5 * (z[..., 1:] + z[..., :-1])
    upper = lib.cat([mids, z[..., -1:]], -1)
    lower = lib.cat([z[..., :1], mids], -1)
    t_rand = lib.rand(z.shape, dtype=dt)
    zs = lower + (upper - lower) * t_rand
    rec("zs", zs)
    rec("sorted", (zs[..., 1:] >= zs[..., :-1]).all())
    # the generator-based form
    g = lib.Generator().manual_seed(7)
    jitter = lib.rand(R, N, generator=g, dtype=dt)
    bins = lib.linspace(2.0, 6.0, N + 1, dtype=dt)
    z2 = bins[:-1] + (bins[1:] - bins[:-1]) * jitter
    rec("z2", z2)
    # randomised per-ray offsets, linspace with tensor endpoints' items
    off = lib.rand(R, 1, dtype=dt)
    z3 = lib.linspace(0, 1, N, dtype=dt)[None] + off / N
    rec("z3", z3)
    rec("lin_edge", lib.linspace(1.5, 1.5, 1, dtype=dt))
    rec("lin_empty", lib.linspace(0, 1, 0, dtype=dt))
    rec("lin_int", lib.linspace(0, 10, 4, dtype=lib.int64))
    rec("lin_desc", lib.linspace(6.0, 2.0, 5, dtype=dt))
    rec("logspace", lib.logspace(-1, 1, 5, base=2.0, dtype=dt))


def p_volrender(lib, dt, rec):
    lib.manual_seed(3)
    R, N = 6, 10
    raw = lib.randn(R, N, 4, dtype=dt, requires_grad=True)
    z = lib.sort(lib.rand(R, N, dtype=dt) * 4 + 2, -1).values
    rd = lib.randn(R, 3, dtype=dt)
    rgb, disp, acc, w, depth = _raw2outputs(lib, raw, z, rd, white_bkgd=True)
    for n, v in [("rgb", rgb), ("disp", disp), ("acc", acc), ("w", w), ("depth", depth)]:
        rec(n, v)
    loss = rgb.square().sum() + depth.mean() * 0.1 + disp.sum() * 0.01
    loss.backward()
    rec("graw", raw.grad)
    # exclusive cumprod by log-space cumsum, and by torch.cumprod of shifted
    sigma = lib.relu(raw.detach()[..., 3])
    delta = z[..., 1:] - z[..., :-1]
    sd = sigma[..., :-1] * delta
    T_log = lib.exp(-lib.cat([lib.zeros_like(sd[..., :1]), lib.cumsum(sd, -1)], -1))
    T_prod = lib.cumprod(lib.nn.functional.pad(lib.exp(-sd), (1, 0), value=1.0), dim=-1)
    rec("T_log", T_log)
    rec("T_prod", T_prod)
    # opacity map and expected depth with background
    opacity = 1 - T_prod[..., -1]
    rec("opacity", opacity)
    # median depth: first sample where the accumulated weight passes 0.5
    cw = lib.cumsum(w.detach(), -1)
    idx = lib.searchsorted(cw, lib.full((R, 1), 0.5, dtype=dt))
    idx = idx.clamp(max=N - 1)
    rec("med_idx", idx)
    rec("med_depth", lib.take_along_dim(z, idx, dim=-1))
    rec("argmax_w", w.argmax(-1))
    # double backward through the compositing
    raw2 = raw.detach().clone().requires_grad_()
    rgb2, _, acc2, _, _ = _raw2outputs(lib, raw2, z, rd)
    (g,) = lib.autograd.grad(rgb2.sum() + acc2.sum(), raw2, create_graph=True)
    (gg,) = lib.autograd.grad((g**2).sum(), raw2)
    rec("gg", gg)


def p_zero_alpha(lib, dt, rec):
    # fully opaque samples: 1 - alpha is exactly 0, so cumprod's backward meets zeros
    lib.manual_seed(4)
    a = lib.rand(4, 6, dtype=dt)
    a[0, 2] = 1.0
    a[1, 0] = 1.0
    a[2, 3:] = 1.0
    a[3, -1] = 1.0
    a.requires_grad_()
    one_minus = 1.0 - a
    T = lib.cumprod(lib.cat([lib.ones_like(a[:, :1]), one_minus], -1), -1)
    w = a * T[:, :-1]
    rec("T", T)
    rec("w", w)
    c = lib.randn(4, 6, dtype=dt)
    (w * c).sum().backward()
    rec("ga", a.grad)
    # cumprod directly on values with zeros and its second derivative
    x = lib.tensor([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 1.5, 2.0], [1.0, 2.0, 3.0, 0.0]], dtype=dt)
    x.requires_grad_()
    y = lib.cumprod(x, dim=1)
    gy = lib.tensor([[1.0, -1.0, 0.5, 2.0], [0.3, 0.2, 0.1, 1.0], [1.0, 1.0, 1.0, 1.0]], dtype=dt)
    (g,) = lib.autograd.grad(y, x, gy, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("gg", gg)
    rec("cumprod_dim0", lib.cumprod(x.detach(), 0))
    rec("cumprod_int", lib.cumprod(lib.tensor([1, 2, 3, 4]), 0))
    rec("cumprod_bool", lib.cumprod(lib.tensor([True, True, False]), 0))
    rec("cummax", lib.cummax(x.detach(), 1).values)
    rec("cummin_i", lib.cummin(x.detach(), 1).indices)
    rec("logcumsumexp", lib.logcumsumexp(x.detach(), 1))


def p_importance(lib, dt, rec):
    lib.manual_seed(5)
    R, Nc, Nf = 4, 8, 6
    z = lib.linspace(2.0, 6.0, Nc, dtype=dt).expand(R, Nc)
    w = lib.rand(R, Nc, dtype=dt)
    w[1] = 0.0  # an empty ray: uniform pdf
    w[2, 3:5] = 0.0
    mids = 0.5 * (z[..., 1:] + z[..., :-1])
    samples, inds = _sample_pdf(lib, mids, w[..., 1:-1], Nf)
    rec("inds", inds)
    rec("samples", samples)
    zc, order = lib.sort(lib.cat([z, samples.detach()], -1), -1)
    rec("z_all", zc)
    rec("order", order)
    # gradient flows to the bins (not the weights: searchsorted is not differentiable)
    mids_g = mids.clone().requires_grad_()
    s2, _ = _sample_pdf(lib, mids_g, w[..., 1:-1], Nf)
    s2.sum().backward()
    rec("g_bins", mids_g.grad)
    # searchsorted variants
    cdf = lib.tensor([[0.0, 0.2, 0.2, 0.5, 1.0], [0.0, 0.1, 0.4, 0.4, 1.0]], dtype=dt)
    u = lib.tensor([[0.2, 0.0, 1.0, 0.35], [0.4, 0.05, 1.0, 0.0]], dtype=dt)
    rec("ss_left", lib.searchsorted(cdf, u))
    rec("ss_right", lib.searchsorted(cdf, u, right=True))
    rec("ss_side", lib.searchsorted(cdf, u, side="right"))
    rec("ss_i32", lib.searchsorted(cdf, u, out_int32=True))
    rec("ss_scalar", lib.searchsorted(cdf[0], 0.2))
    rec("bucketize", lib.bucketize(u, cdf[0], right=True))
    perm = lib.tensor([[4, 0, 2, 1, 3], [1, 0, 4, 2, 3]])
    shuffled = lib.gather(cdf, 1, perm)
    rec("ss_sorter", lib.searchsorted(shuffled, u, sorter=lib.argsort(perm, -1)))


def p_importance_det(lib, dt, rec):
    lib.manual_seed(6)
    R, Nc, Nf = 3, 16, 9
    z = lib.linspace(0.0, 1.0, Nc + 1, dtype=dt)
    w = lib.softmax(lib.randn(R, Nc, dtype=dt) * 3, -1)
    s, inds = _sample_pdf(lib, z.expand(R, Nc + 1), w, Nf, det=True)
    rec("s", s)
    # (u = 1 meets cdf[-1], 1 give or take an ulp of softmax's sum: the last index is a tie)
    rec("inds", inds[..., :-1])
    # mip-NeRF 360's padded/blurred weights then inverse CDF by interp
    wp = lib.cat([w[..., :1], w, w[..., -1:]], -1)
    wmax = lib.maximum(wp[..., :-1], wp[..., 1:])
    wblur = 0.5 * (wmax[..., :-1] + wmax[..., 1:]) + 0.01
    rec("wblur", wblur)
    pdf = wblur / wblur.sum(-1, keepdim=True)
    cdf = lib.cat([lib.zeros(R, 1, dtype=dt), lib.cumsum(pdf, -1).clamp(max=1)], -1)
    u = lib.linspace(0, 1 - 1e-6, Nf, dtype=dt).expand(R, Nf).contiguous()
    i = lib.searchsorted(cdf, u, right=True).clamp(1, Nc) - 1
    c0, c1 = cdf.gather(-1, i), cdf.gather(-1, i + 1)
    b0 = z.expand(R, -1).gather(-1, i)
    b1 = z.expand(R, -1).gather(-1, i + 1)
    t = lib.nan_to_num((u - c0) / (c1 - c0), 0.0).clamp(0, 1)
    rec("s360", b0 + t * (b1 - b0))
    rec("diff_ok", (lib.diff(b0 + t * (b1 - b0), dim=-1) >= 0).all())


def p_sdf_eikonal(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(7)

    class SDF(nn.Module):
        def __init__(self):
            super().__init__()
            # built in dt: weight_norm's g is a float32 norm otherwise (float32 sums may differ
            # in the last bit)
            self.l1 = nn.Linear(3, 32, dtype=dt)
            self.l2 = nn.Linear(32, 32, dtype=dt)
            self.l3 = nn.Linear(32, 1, dtype=dt)
            self.act = nn.Softplus(beta=100)
            with lib.no_grad():  # geometric init: a sphere of radius 0.5
                nn.init.normal_(self.l3.weight, mean=math.sqrt(math.pi) / math.sqrt(32), std=1e-4)
                nn.init.constant_(self.l3.bias, -0.5)
                for lin in (self.l1, self.l2):
                    nn.init.constant_(lin.bias, 0.0)
                    nn.init.normal_(lin.weight, 0.0, math.sqrt(2) / math.sqrt(32))
                self.l2 = nn.utils.parametrizations.weight_norm(self.l2)

        def forward(self, x):
            return self.l3(self.act(self.l2(self.act(self.l1(x)))))

    net = SDF()
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    for step in range(3):
        pts = (lib.rand(16, 3, dtype=dt) * 2 - 1).requires_grad_(True)
        sdf = net(pts)
        (grad,) = lib.autograd.grad(
            outputs=sdf,
            inputs=pts,
            grad_outputs=lib.ones_like(sdf, requires_grad=False),
            create_graph=True,
            retain_graph=True,
            only_inputs=True,
        )
        eik = ((grad.norm(2, dim=-1) - 1) ** 2).mean()
        surf = sdf.abs().mean()
        normal_reg = (1 - lib.nn.functional.cosine_similarity(grad, pts, dim=-1)).mean()
        loss = surf + 0.1 * eik + 0.01 * normal_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"eik{step}", eik)
    rec.params("net", net, grads=True)
    # normals by central differences versus autograd
    x = lib.tensor([[0.1, 0.2, 0.3], [0.5, -0.2, 0.1]], dtype=dt)
    eps = 1e-3
    offs = lib.eye(3, dtype=dt) * eps
    with lib.no_grad():
        fd = (net(x[:, None] + offs) - net(x[:, None] - offs)).squeeze(-1) / (2 * eps)
    xg = x.clone().requires_grad_()
    (ag,) = lib.autograd.grad(net(xg).sum(), xg)
    rec("fd", fd)
    rec("ag", ag)
    # the Hessian of the SDF at a point (for curvature losses)
    hess = lib.autograd.functional.hessian(lambda p: net(p[None]).sum(), x[0])
    rec("hess", hess)


def p_sphere_trace(lib, dt, rec):
    lib.manual_seed(8)
    centers = lib.tensor([[0.0, 0.0, 0.0], [0.6, 0.3, -0.2]], dtype=dt)
    radii = lib.tensor([0.5, 0.3], dtype=dt)

    def sdf(p):
        d = (p[:, None, :] - centers).norm(dim=-1) - radii
        return d.min(dim=-1).values

    R = 12
    o = lib.tensor([0.0, 0.0, 3.0], dtype=dt).repeat(R, 1)
    d = lib.nn.functional.normalize(
        lib.randn(R, 3, dtype=dt) * 0.2 + lib.tensor([0, 0, -1.0], dtype=dt), dim=-1
    )
    t = lib.zeros(R, dtype=dt)
    active = lib.ones(R, dtype=lib.bool)
    hit = lib.zeros(R, dtype=lib.bool)
    steps = lib.zeros(R, dtype=lib.int32)
    for _ in range(40):
        if not active.any():
            break
        p = o[active] + t[active, None] * d[active]
        dist = sdf(p)
        t[active] = t[active] + dist
        steps[active] += 1
        newly = dist.abs() < 1e-5
        act_idx = active.nonzero(as_tuple=True)[0]
        hit[act_idx[newly]] = True
        far = t > 6.0
        active = active & ~hit & ~far
    rec("t", lib.where(hit, t, lib.full_like(t, float("inf"))))
    rec("hit", hit)
    rec("steps", steps)
    pts = o + t[:, None] * d
    # normals at the hits by autograd of the sdf, masked scatter back
    ph = pts[hit].detach().requires_grad_()
    (n,) = lib.autograd.grad(sdf(ph).sum(), ph)
    normals = lib.zeros_like(pts)
    normals[hit] = n
    rec("normals", normals)
    shade = (
        normals @ lib.nn.functional.normalize(lib.tensor([1.0, 1.0, 1.0], dtype=dt), dim=0)
    ).clamp(min=0)
    rec("shade", shade)
    img = lib.zeros(R, dtype=dt).masked_scatter(hit, shade[hit])
    rec("img", img)
    rec("masked_fill", t.masked_fill(~hit, -1.0))
    # a differentiable last step: t* = t - f(x(t)) (implicit differentiation trick)
    radii_p = radii.clone().requires_grad_()

    def sdf2(p):
        return ((p[:, None, :] - centers).norm(dim=-1) - radii_p).min(dim=-1).values

    th = t[hit].detach()
    x_h = o[hit] + th[:, None] * d[hit]
    t_star = th - sdf2(x_h) / (lib.nn.functional.normalize(n, dim=-1) * d[hit]).sum(-1)
    t_star.sum().backward()
    rec("g_radii", radii_p.grad)


def p_siren(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(9)

    class SineLayer(nn.Module):
        def __init__(self, i, o, is_first=False, omega_0=30.0):
            super().__init__()
            self.omega_0, self.is_first, self.in_features = omega_0, is_first, i
            self.linear = nn.Linear(i, o)
            with lib.no_grad():
                if is_first:
                    self.linear.weight.uniform_(-1 / i, 1 / i)
                else:
                    b = math.sqrt(6 / i) / omega_0
                    self.linear.weight.uniform_(-b, b)

        def forward(self, x):
            return lib.sin(self.omega_0 * self.linear(x))

    class Siren(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(SineLayer(2, 32, is_first=True), SineLayer(32, 32))
            self.out = nn.Linear(32, 1)
            with lib.no_grad():
                b = math.sqrt(6 / 32) / 30.0
                self.out.weight.uniform_(-b, b)

        def forward(self, coords):
            coords = coords.clone().detach().requires_grad_(True)
            return self.out(self.net(coords)), coords

    model = Siren().to(dt)
    side = 6
    lin = lib.linspace(-1, 1, steps=side, dtype=dt)
    mg = lib.stack(lib.meshgrid(lin, lin, indexing="ij"), dim=-1).reshape(-1, 2)
    img = lib.sin(3 * mg[:, :1]) * lib.cos(2 * mg[:, 1:])
    opt = lib.optim.Adam(model.parameters(), lr=1e-4)
    for step in range(3):
        out, coords = model(mg)
        loss = ((out - img) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    out, coords = model(mg)
    (grad,) = lib.autograd.grad(out, [coords], grad_outputs=lib.ones_like(out), create_graph=True)
    div = 0.0
    for i in range(2):
        div = div + lib.autograd.grad(grad[..., i], coords, lib.ones_like(grad[..., i]),
                                      create_graph=True)[0][..., i : i + 1]  # fmt: skip
    rec("grad", grad)
    rec("laplace", div)
    (div.abs().mean() + grad.norm(dim=-1).mean()).backward()
    rec.params("siren", model, grads=True)
    # kaiming/xavier init functions with a generator
    g = lib.Generator().manual_seed(3)
    w = lib.empty(8, 5, dtype=dt)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    rec("kaiming", w)
    nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu"), generator=g)
    rec("xavier", w)
    rec("gain", nn.init.calculate_gain("leaky_relu", 0.2))


def p_hashgrid(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(10)
    L, T, Fdim, Nmin, Nmax = 3, 2**6, 2, 4, 16
    b = math.exp((math.log(Nmax) - math.log(Nmin)) / (L - 1))
    primes = lib.tensor([1, 2654435761, 805459861])
    tables = nn.ModuleList([nn.Embedding(T, Fdim) for _ in range(L)]).to(dt)
    for e in tables:
        nn.init.uniform_(e.weight, -1e-4, 1e-4)
    offsets = lib.tensor(
        [[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=lib.int64
    )
    rec("offsets", offsets)

    def hash_fn(c):
        h = c * primes
        return (h[..., 0] ^ h[..., 1] ^ h[..., 2]) % T

    def encode(x):
        feats = []
        for lvl in range(L):
            res = math.floor(Nmin * b**lvl)
            xs = x * res
            x0 = lib.floor(xs).long()
            frac = xs - x0.to(x.dtype)
            corners = x0[:, None, :] + offsets[None]
            idx = hash_fn(corners)
            f = tables[lvl](idx)
            w = lib.where(offsets[None].bool(), frac[:, None, :], 1 - frac[:, None, :]).prod(-1)
            feats.append((w[..., None] * f).sum(1))
        return lib.cat(feats, -1)

    x = lib.rand(10, 3, dtype=dt)
    enc = encode(x)
    rec("enc", enc)
    mlp = nn.Sequential(nn.Linear(L * Fdim, 16), nn.ReLU(), nn.Linear(16, 1)).to(dt)
    opt = lib.optim.Adam(list(tables.parameters()) + list(mlp.parameters()), lr=1e-2, eps=1e-15)
    tgt = x.sum(-1, keepdim=True)
    for step in range(3):
        loss = nn.functional.mse_loss(mlp(encode(x)), tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("tables", tables)
    # the hash arithmetic on its own: int64 wrap, xor, remainder of negatives, bitwise_and
    c = lib.tensor([[3, 7, 11], [-2, 5, 9], [1000003, 99991, 77777]])
    h = c * primes
    rec("h", h)
    rec("xor", lib.bitwise_xor(lib.bitwise_xor(h[:, 0], h[:, 1]), h[:, 2]))
    rec("rem", lib.remainder(h[:, 1], T))
    rec("fmod", lib.fmod(h[:, 1], T))
    rec("and", h[:, 2] & (T - 1))
    rec("shift", (h[:, 0] << 3) >> 1)
    rec("fl", lib.floor_divide(h[:, 1], 1000))
    # dense (non-hashed) index for coarse levels
    res = 4
    cc = lib.tensor([[1, 2, 3], [0, 0, 3]])
    rec("dense", cc[:, 0] + cc[:, 1] * (res + 1) + cc[:, 2] * (res + 1) ** 2)


def p_trilinear(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(11)
    C, D, H, W = 2, 3, 4, 5
    vol = lib.randn(1, C, D, H, W, dtype=dt, requires_grad=True)
    pts = (lib.rand(7, 3, dtype=dt) * 2 - 1) * 0.9  # (x, y, z) in [-1, 1]

    def by_hand(vol, p, align_corners):
        size = lib.tensor([W, H, D], dtype=p.dtype)
        if align_corners:
            xyz = (p + 1) / 2 * (size - 1)
        else:
            xyz = ((p + 1) * size - 1) / 2
        x0 = xyz.floor().long()
        f = xyz - x0.to(p.dtype)
        out = 0
        v = vol[0]
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    ix = (x0[:, 0] + dx).clamp(0, W - 1)
                    iy = (x0[:, 1] + dy).clamp(0, H - 1)
                    iz = (x0[:, 2] + dz).clamp(0, D - 1)
                    inb = (
                        (x0[:, 0] + dx >= 0) & (x0[:, 0] + dx < W)
                        & (x0[:, 1] + dy >= 0) & (x0[:, 1] + dy < H)
                        & (x0[:, 2] + dz >= 0) & (x0[:, 2] + dz < D)
                    )  # fmt: skip
                    wx = f[:, 0] if dx else 1 - f[:, 0]
                    wy = f[:, 1] if dy else 1 - f[:, 1]
                    wz = f[:, 2] if dz else 1 - f[:, 2]
                    val = v[:, iz, iy, ix] * inb.to(p.dtype)
                    out = out + val * (wx * wy * wz)
        return out.T

    for ac in (True, False):
        hand = by_hand(vol, pts, ac)
        gs = F.grid_sample(vol, pts.view(1, 1, 1, -1, 3), mode="bilinear", padding_mode="zeros",
                           align_corners=ac)  # fmt: skip
        gs = gs.view(C, -1).T
        rec(f"hand{ac}", hand)
        rec(f"gs{ac}", gs)
        rec(f"diff{ac}", (hand - gs).abs().max() < 1e-5)
        (gv,) = lib.autograd.grad((gs * lib.arange(C, dtype=dt)).sum(), vol)
        (hv,) = lib.autograd.grad((hand * lib.arange(C, dtype=dt)).sum(), vol)
        rec(f"gvol{ac}", gv)
        rec(f"hvol{ac}", hv)
    # interpolate (trilinear) of the volume, and a feature-plane (tri-plane) lookup
    up = F.interpolate(vol, scale_factor=2, mode="trilinear", align_corners=False)
    rec("up", up.sum((2, 3, 4)))
    up2 = F.interpolate(vol, size=(4, 5, 7), mode="trilinear", align_corners=True)
    rec("up2", up2[0, :, 1])
    planes = lib.randn(3, 4, 8, 8, dtype=dt)
    coords = lib.stack([pts[:, [0, 1]], pts[:, [0, 2]], pts[:, [1, 2]]])[:, :, None]
    feats = F.grid_sample(planes, coords, align_corners=False).squeeze(-1)
    rec("triplane", feats.sum(0).T)
    rec("triplane_prod", feats.prod(0).T)


def p_grid_sample_modes(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(12)
    img = lib.randn(2, 3, 5, 6, dtype=dt)
    grid = lib.rand(2, 4, 3, 2, dtype=dt) * 2.6 - 1.3  # some points outside [-1, 1]
    grid[0, 0, 0] = lib.tensor([1.0, -1.0], dtype=dt)
    grid[0, 0, 1] = lib.tensor([0.0, 0.0], dtype=dt)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=ac)
                rec(f"{mode}.{pad}.{ac}", out)
    vol = lib.randn(1, 2, 3, 4, 5, dtype=dt)
    g3 = lib.rand(1, 2, 3, 4, 3, dtype=dt) * 2.4 - 1.2
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out = F.grid_sample(vol, g3, mode=mode, padding_mode=pad, align_corners=ac)
                rec(f"3d.{mode}.{pad}.{ac}", out)
    # affine_grid round trip: the identity samples the image back
    theta = lib.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=dt).repeat(2, 1, 1)
    for ac in (False, True):
        ag = F.affine_grid(theta, [2, 3, 5, 6], align_corners=ac)
        back = F.grid_sample(img, ag, align_corners=ac)
        rec(f"identity{ac}", (back - img).abs().max())
    theta3 = lib.tensor([[[0.9, 0.1, 0, 0.05], [0, 1.0, 0.2, 0], [0.1, 0, 1.1, -0.1]]], dtype=dt)
    rec("affine3", F.affine_grid(theta3, [1, 2, 3, 4, 5], align_corners=False)[0, 1])
    ag3 = F.affine_grid(theta3, [1, 2, 2, 3, 3], align_corners=False)
    rec("gs3_affine", F.grid_sample(vol, ag3, align_corners=False))
    # NaN in the grid
    gn = grid.clone()
    gn[1, 1, 1, 0] = float("nan")
    rec("nan_zeros", F.grid_sample(img, gn, align_corners=False)[1, :, 1])
    rec("nan_border", F.grid_sample(img, gn, padding_mode="border", align_corners=False)[1, :, 1])


def p_grid_sample_grad(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(13)
    img = lib.randn(1, 2, 6, 7, dtype=dt, requires_grad=True)
    for mode in ("bilinear", "bicubic", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            grid = (lib.rand(1, 5, 4, 2, dtype=dt) * 2.4 - 1.2).requires_grad_()
            out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=False)
            gout = lib.randn(out.shape, dtype=dt)
            gi, gg = lib.autograd.grad(out, [img, grid], gout)
            rec(f"gimg.{mode}.{pad}", gi)
            rec(f"ggrid.{mode}.{pad}", gg)
    vol = lib.randn(1, 2, 4, 5, 6, dtype=dt, requires_grad=True)
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            g3 = (lib.rand(1, 3, 2, 2, 3, dtype=dt) * 2.2 - 1.1).requires_grad_()
            out = F.grid_sample(vol, g3, padding_mode=pad, align_corners=ac)
            gv, gg = lib.autograd.grad(out.pow(2).sum(), [vol, g3])
            rec(f"3d.gvol.{pad}.{ac}", gv)
            rec(f"3d.ggrid.{pad}.{ac}", gg)
    # optimise a spatial transformer's theta to align two images
    target = F.grid_sample(
        img.detach(),
        F.affine_grid(lib.tensor([[[1.0, 0, 0.2], [0, 1.0, -0.1]]], dtype=dt), [1, 2, 6, 7],
                      align_corners=False),
        align_corners=False, padding_mode="border",
    )  # fmt: skip
    theta = lib.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([theta], lr=0.05, momentum=0.9)
    for step in range(4):
        grid = F.affine_grid(theta, [1, 2, 6, 7], align_corners=False)
        warped = F.grid_sample(img.detach(), grid, align_corners=False, padding_mode="border")
        loss = F.l1_loss(warped, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"stn_loss{step}", loss)
    rec("theta", theta)


def p_gaussians(lib, dt, rec):
    lib.manual_seed(14)
    N = 6
    means = (lib.randn(N, 3, dtype=dt) * 0.5 + lib.tensor([0, 0, 4.0], dtype=dt)).requires_grad_()
    quats = lib.randn(N, 4, dtype=dt).requires_grad_()
    log_scales = (lib.randn(N, 3, dtype=dt) * 0.3 - 2).requires_grad_()
    Rm = _quat_to_rot(lib, quats)
    rec("R", Rm)
    rec("det", lib.linalg.det(Rm))
    S = lib.diag_embed(lib.exp(log_scales))
    M = Rm @ S
    cov3d = M @ M.transpose(-1, -2)
    rec("cov3d", cov3d)
    # world -> camera (identity rotation, translation 0) then the EWA Jacobian
    fx = fy = 50.0
    W_, H_ = 32, 24
    t = means
    tz = t[:, 2]
    lim = 1.3 * 0.5 * W_ / fx
    tx = (t[:, 0] / tz).clamp(-lim, lim) * tz
    ty = (t[:, 1] / tz).clamp(-lim, lim) * tz
    zeros = lib.zeros_like(tz)
    J = lib.stack([fx / tz, zeros, -fx * tx / tz**2, zeros, fy / tz, -fy * ty / tz**2], -1).view(
        N, 2, 3
    )
    cov2d = J @ cov3d @ J.transpose(1, 2)
    cov2d = cov2d + 0.3 * lib.eye(2, dtype=dt)
    rec("cov2d", cov2d)
    a, b, c = cov2d[:, 0, 0], cov2d[:, 0, 1], cov2d[:, 1, 1]
    det = a * c - b * b
    conic = lib.stack([c / det, -b / det, a / det], -1)
    rec("conic", conic)
    inv = lib.linalg.inv(cov2d)
    rec("inv", inv)
    rec("inv_vs_conic", (inv[:, 0, 0] - conic[:, 0]).abs().max() < 1e-6)
    mid = 0.5 * (a + c)
    lam1 = mid + lib.sqrt((mid * mid - det).clamp(min=0.1))
    radius = lib.ceil(3.0 * lib.sqrt(lam1))
    rec("radius", radius)
    ev = lib.linalg.eigvalsh(cov2d)
    rec("eigvalsh", ev)
    mean2d = lib.stack([fx * t[:, 0] / tz + W_ / 2, fy * t[:, 1] / tz + H_ / 2], -1)
    rec("mean2d", mean2d)
    loss = conic.sum() + radius.sum() * 0 + mean2d.pow(2).mean() * 1e-3 + ev.sum()
    loss.backward()
    rec("g_means", means.grad)
    rec("g_quats", quats.grad)
    rec("g_scales", log_scales.grad)
    # cholesky of covariance and the Mahalanobis form
    L = lib.linalg.cholesky(cov2d.detach())
    d = lib.randn(N, 2, 1, dtype=dt)
    y = lib.linalg.solve_triangular(L, d, upper=False)
    rec("maha", (y**2).sum((-1, -2)))
    rec("maha2", (d.transpose(1, 2) @ lib.linalg.inv(cov2d.detach()) @ d).flatten())


def p_splat_blend(lib, dt, rec):
    lib.manual_seed(15)
    N, H, W = 5, 6, 8
    mean2d = (lib.rand(N, 2, dtype=dt) * lib.tensor([W, H], dtype=dt)).requires_grad_()
    conic_raw = lib.rand(N, 3, dtype=dt)
    conic = lib.stack([conic_raw[:, 0] + 0.2, conic_raw[:, 1] * 0.1, conic_raw[:, 2] + 0.2], -1)
    conic.requires_grad_()
    opac_logit = lib.randn(N, dtype=dt, requires_grad=True)
    colors = lib.rand(N, 3, dtype=dt, requires_grad=True)
    depth = lib.rand(N, dtype=dt) * 5 + 1
    depth[3] = depth[1]  # a tie: stable sort keeps the order
    order = lib.argsort(depth, stable=True)
    srt = lib.sort(depth, stable=True)
    rec("order", order)
    rec("sort_idx", srt.indices)
    ys, xs = lib.meshgrid(lib.arange(H, dtype=dt), lib.arange(W, dtype=dt), indexing="ij")
    pix = lib.stack([xs, ys], -1).reshape(-1, 2) + 0.5
    T = lib.ones(H * W, dtype=dt)
    img = lib.zeros(H * W, 3, dtype=dt)
    opac = lib.sigmoid(opac_logit)
    for gi in order.tolist():
        dxy = pix - mean2d[gi]
        power = (
            -0.5 * (conic[gi, 0] * dxy[:, 0] ** 2 + conic[gi, 2] * dxy[:, 1] ** 2)
            - conic[gi, 1] * dxy[:, 0] * dxy[:, 1]
        )
        alpha = (opac[gi] * lib.exp(power)).clamp(max=0.99)
        alpha = lib.where((power > 0) | (alpha < 1.0 / 255.0), lib.zeros_like(alpha), alpha)
        img = img + (T * alpha)[:, None] * colors[gi]
        T = T * (1 - alpha)
    img = img + T[:, None] * lib.tensor([1.0, 1.0, 1.0], dtype=dt)
    rec("img", img.view(H, W, 3))
    rec("T", T.view(H, W))
    loss = (img - 0.5).abs().mean()
    loss.backward()
    rec("g_mean2d", mean2d.grad)
    rec("g_conic", conic.grad)
    rec("g_opac", opac_logit.grad)
    rec("g_colors", colors.grad)
    # the same blend vectorised: exclusive cumprod over the sorted gaussians
    with lib.no_grad():
        m, cn, op = mean2d[order], conic[order], opac[order]
        dxy = pix[:, None, :] - m[None]
        power = (
            -0.5 * (cn[:, 0] * dxy[..., 0] ** 2 + cn[:, 2] * dxy[..., 1] ** 2)
            - cn[:, 1] * dxy[..., 0] * dxy[..., 1]
        )
        alpha = (op * lib.exp(power)).clamp(max=0.99)
        alpha = alpha.masked_fill((power > 0) | (alpha < 1 / 255), 0.0)
        Tv = lib.cumprod(1 - alpha, -1)
        Tex = lib.cat([lib.ones_like(Tv[:, :1]), Tv[:, :-1]], -1)
        img2 = (alpha * Tex) @ colors[order] + Tv[:, -1:]
    rec("img2", img2.view(H, W, 3))
    # per-pixel gaussian count and max contribution
    rec("count", (alpha > 0).sum(-1).view(H, W))
    top = lib.topk(alpha * Tex, 2, dim=-1)
    rec("topk", top.values[:6])
    rec("topk_i", top.indices[1:6])  # (row 0 ties among zeros: an unspecified order)


def p_soft_raster(lib, dt, rec):
    lib.manual_seed(16)
    H = W = 8
    tri = (lib.tensor([[0.2, 0.2], [0.8, 0.3], [0.4, 0.85]], dtype=dt)).requires_grad_()
    ys, xs = lib.meshgrid(
        (lib.arange(H, dtype=dt) + 0.5) / H, (lib.arange(W, dtype=dt) + 0.5) / W, indexing="ij"
    )
    p = lib.stack([xs, ys], -1).view(-1, 2)

    def edge(a, b, p):
        e = b - a
        n = lib.stack([-e[1], e[0]]) / lib.linalg.norm(e)
        return (p - a) @ n

    sigma = 0.02
    d = lib.stack([edge(tri[i], tri[(i + 1) % 3], p) for i in range(3)], -1)
    rec("d", d)
    # inside when all signed distances share the orientation's sign
    sign = lib.sign(d.sum(-1, keepdim=True))
    prob = lib.sigmoid(sign * d / sigma).prod(-1)
    rec("prob", prob.view(H, W))
    # SoftRas: distance to the closest edge, squared, sign by inside test
    inside = ((d > 0).all(-1) | (d < 0).all(-1)).to(dt)
    dmin = d.abs().min(-1).values
    prob2 = lib.sigmoid((2 * inside - 1) * dmin**2 / 1e-3)
    rec("prob2", prob2.view(H, W))
    # barycentrics and a soft z-buffer over two triangles
    v0, v1, v2 = tri[0], tri[1], tri[2]
    den = (v1[1] - v2[1]) * (v0[0] - v2[0]) + (v2[0] - v1[0]) * (v0[1] - v2[1])
    l0 = ((v1[1] - v2[1]) * (p[:, 0] - v2[0]) + (v2[0] - v1[0]) * (p[:, 1] - v2[1])) / den
    l1 = ((v2[1] - v0[1]) * (p[:, 0] - v2[0]) + (v0[0] - v2[0]) * (p[:, 1] - v2[1])) / den
    l2 = 1 - l0 - l1
    bary = lib.stack([l0, l1, l2], -1)
    rec("bary", bary)
    z = bary @ lib.tensor([1.0, 2.0, 1.5], dtype=dt)
    zs = lib.stack([z, lib.full_like(z, 1.7)], -1)
    probs = lib.stack([prob, lib.full_like(prob, 0.5)], -1)
    gamma = 0.1
    zinv = (1.0 / zs - 1.0 / 10) / (1.0 / 1 - 1.0 / 10)
    zmax = zinv.max(-1, keepdim=True).values.clamp(min=1e-3 / gamma)
    wz = probs * lib.exp((zinv - zmax) / gamma)
    wbg = lib.exp((1e-3 - zmax) / gamma)
    denom = wz.sum(-1, keepdim=True) + wbg
    cols = lib.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], dtype=dt)
    img = (wz / denom) @ cols + (wbg / denom) * lib.tensor([1.0, 1.0, 1.0], dtype=dt)
    rec("img", img.view(H, W, 3))
    sil = 1 - (1 - probs).prod(-1)
    target = lib.zeros(H * W, dtype=dt)
    target[20:40] = 1.0
    loss = (
        lib.nn.functional.binary_cross_entropy(prob.clamp(1e-6, 1 - 1e-6), target)
        + (img.mean() - 0.4) ** 2
        + lib.nn.functional.mse_loss(sil, target)
    )
    loss.backward()
    rec("loss", loss)
    rec("g_tri", tri.grad)
    # logsumexp aggregation
    rec("lse", lib.logsumexp(-zs / gamma, -1) * -gamma)


def _eval_sh(lib, deg, sh, dirs):
    C0 = 0.28209479177387814
    C1 = 0.4886025119029199
    C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792,
          0.5462742152960396]  # fmt: skip
    C3 = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154,
          -0.4570457994644658, 1.445305721320277, -0.5900435899266435]  # fmt: skip
    result = C0 * sh[..., 0]
    if deg > 0:
        x, y, z = dirs[..., 0:1], dirs[..., 1:2], dirs[..., 2:3]
        result = result - C1 * y * sh[..., 1] + C1 * z * sh[..., 2] - C1 * x * sh[..., 3]
        if deg > 1:
            xx, yy, zz = x * x, y * y, z * z
            xy, yz, xz = x * y, y * z, x * z
            result = (
                result + C2[0] * xy * sh[..., 4] + C2[1] * yz * sh[..., 5]
                + C2[2] * (2.0 * zz - xx - yy) * sh[..., 6] + C2[3] * xz * sh[..., 7]
                + C2[4] * (xx - yy) * sh[..., 8]
            )  # fmt: skip
            if deg > 2:
                result = (
                    result + C3[0] * y * (3 * xx - yy) * sh[..., 9]
                    + C3[1] * xy * z * sh[..., 10] + C3[2] * y * (4 * zz - xx - yy) * sh[..., 11]
                    + C3[3] * z * (2 * zz - 3 * xx - 3 * yy) * sh[..., 12]
                    + C3[4] * x * (4 * zz - xx - yy) * sh[..., 13]
                    + C3[5] * z * (xx - yy) * sh[..., 14] + C3[6] * x * (xx - 3 * yy) * sh[..., 15]
                )  # fmt: skip
    return result


def p_sh_colour(lib, dt, rec):
    lib.manual_seed(17)
    N = 7
    sh = lib.randn(N, 3, 16, dtype=dt, requires_grad=True)
    dirs = lib.nn.functional.normalize(lib.randn(N, 3, dtype=dt), dim=-1)
    for deg in range(4):
        col = (_eval_sh(lib, deg, sh[..., : (deg + 1) ** 2], dirs) + 0.5).clamp_min(0.0)
        rec(f"col{deg}", col)
    col.sum().backward()
    rec("g_sh", sh.grad)
    # RGB <-> SH DC conversion and the features_dc/features_rest split of 3DGS
    rgb = lib.rand(N, 3, dtype=dt)
    dc = (rgb - 0.5) / 0.28209479177387814
    rec("dc", dc)
    feats = lib.zeros(N, 3, 16, dtype=dt)
    feats[:, :3, 0] = dc
    f_dc = feats[:, :, 0:1].transpose(1, 2).contiguous()
    f_rest = feats[:, :, 1:].transpose(1, 2).contiguous()
    rec("shapes", str((tuple(f_dc.shape), tuple(f_rest.shape), f_dc.is_contiguous())))
    full = lib.cat([f_dc, f_rest], 1).transpose(1, 2)
    rec("back", _eval_sh(lib, 3, full, dirs) + 0.5)
    # SH by real spherical harmonics with associated Legendre (deg 2) via torch.special?
    theta = lib.acos(dirs[:, 2].clamp(-1, 1))
    phi = lib.atan2(dirs[:, 1], dirs[:, 0])
    rec("theta_phi", lib.stack([theta, phi], -1))
    y20 = 0.31539156525252005 * (3 * lib.cos(theta) ** 2 - 1)
    rec("y20", y20)
    rec(
        "y20_direct",
        0.31539156525252005 * (2 * dirs[:, 2] ** 2 - dirs[:, 0] ** 2 - dirs[:, 1] ** 2),
    )
    # an optimiser over sh coefficients with per-group lr (3DGS style)
    fdc = lib.nn.Parameter(f_dc.clone())
    frest = lib.nn.Parameter(f_rest.clone())
    opt = lib.optim.Adam([
        {"params": [fdc], "lr": 2.5e-3, "name": "f_dc"},
        {"params": [frest], "lr": 2.5e-3 / 20.0, "name": "f_rest"},
    ], lr=0.0, eps=1e-15)  # fmt: skip
    tgt = lib.rand(N, 3, dtype=dt)
    for step in range(3):
        c = _eval_sh(lib, 3, lib.cat([fdc, frest], 1).transpose(1, 2), dirs) + 0.5
        loss = lib.nn.functional.l1_loss(c, tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("fdc", fdc)
    rec("frest", frest)
    rec("groups", str([(g["name"], g["lr"]) for g in opt.param_groups]))
    st = opt.state[fdc]
    rec("state", str(sorted(st.keys())))
    rec("exp_avg", st["exp_avg"])


def _so3_exp(lib, w):
    theta = w.norm(dim=-1, keepdim=True).clamp(min=1e-8)
    k = w / theta
    K = lib.zeros(w.shape[:-1] + (3, 3), dtype=w.dtype)
    K = lib.stack(
        [lib.zeros_like(k[..., 0]), -k[..., 2], k[..., 1],
         k[..., 2], lib.zeros_like(k[..., 0]), -k[..., 0],
         -k[..., 1], k[..., 0], lib.zeros_like(k[..., 0])], -1
    ).view(w.shape[:-1] + (3, 3))  # fmt: skip
    eye = lib.eye(3, dtype=w.dtype).expand_as(K)
    th = theta[..., None]
    return eye + lib.sin(th) * K + (1 - lib.cos(th)) * (K @ K)


def p_pose_refine(lib, dt, rec):
    lib.manual_seed(18)
    pts = lib.randn(20, 3, dtype=dt) + lib.tensor([0, 0, 5.0], dtype=dt)
    K = lib.tensor([[40.0, 0, 16], [0, 40.0, 12], [0, 0, 1]], dtype=dt)
    R_gt = _so3_exp(lib, lib.tensor([0.05, -0.1, 0.02], dtype=dt))
    t_gt = lib.tensor([0.1, -0.05, 0.2], dtype=dt)

    def project(R, t, X):
        Xc = X @ R.T + t
        uv = Xc @ K.T
        return uv[:, :2] / uv[:, 2:3]

    obs = project(R_gt, t_gt, pts)
    w = lib.zeros(3, dtype=dt, requires_grad=True)
    t = lib.zeros(3, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([w, t], lr=0.01)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for step in range(6):
        R = _so3_exp(lib, w)
        res = project(R, t, pts) - obs
        loss = lib.nn.functional.huber_loss(res, lib.zeros_like(res), delta=1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    rec("w", w)
    rec("t", t)
    rec("lr", sched.get_last_lr())
    # the Jacobian of the projection by autograd.functional and by jacrev
    J = lib.autograd.functional.jacobian(lambda ww: project(_so3_exp(lib, ww), t_gt, pts[:3]),
                                         lib.tensor([0.05, -0.1, 0.02], dtype=dt))  # fmt: skip
    rec("J", J)
    Jf = lib.func.jacrev(lambda ww: project(_so3_exp(lib, ww), t_gt, pts[:3]))(
        lib.tensor([0.05, -0.1, 0.02], dtype=dt)
    )
    rec("Jf", Jf)
    # Gauss-Newton step with lstsq and the 6-D rotation representation
    Jr = J.reshape(-1, 3)
    r0 = (project(_so3_exp(lib, lib.zeros(3, dtype=dt) + 1e-3), t_gt, pts[:3]) - obs[:3]).reshape(
        -1
    )
    step = lib.linalg.lstsq(Jr, -r0[:, None]).solution
    rec("gn_step", step)
    r6 = lib.randn(4, 6, dtype=dt)
    a1, a2 = r6[:, :3], r6[:, 3:]
    b1 = lib.nn.functional.normalize(a1, dim=-1)
    b2 = lib.nn.functional.normalize(a2 - (b1 * a2).sum(-1, keepdim=True) * b1, dim=-1)
    b3 = lib.cross(b1, b2, dim=-1)
    Rot = lib.stack([b1, b2, b3], -2)
    rec("rot6d", Rot)
    rec("orth", Rot @ Rot.transpose(-1, -2))
    # the matrix exponential of a twist, and log via acos of the trace
    Rm = lib.linalg.matrix_exp(
        lib.tensor([[0, -0.3, 0.2], [0.3, 0, -0.1], [-0.2, 0.1, 0]], dtype=dt)
    )
    rec("matrix_exp", Rm)
    cos = ((Rm.diagonal().sum() - 1) / 2).clamp(-1, 1)
    rec("angle", lib.acos(cos))
    rec("trace", lib.trace(Rm))


def _gauss_window(lib, size, sigma, C, dt):
    coords = lib.arange(size, dtype=dt) - size // 2
    g = lib.exp(-(coords**2) / (2 * sigma**2))
    g = g / g.sum()
    w2 = g[:, None] @ g[None, :]
    return w2.expand(C, 1, size, size).contiguous()


def p_psnr_ssim(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(19)
    C = 3
    img1 = lib.rand(2, C, 16, 16, dtype=dt)
    img2 = (img1 + 0.1 * lib.randn(2, C, 16, 16, dtype=dt)).clamp(0, 1).requires_grad_()
    mse = ((img1 - img2) ** 2).view(2, -1).mean(1, keepdim=True)
    psnr = 20 * lib.log10(1.0 / lib.sqrt(mse))
    rec("psnr", psnr)
    rec("psnr2", -10.0 * lib.log(mse) / math.log(10.0))
    win = _gauss_window(lib, 11, 1.5, C, dt)

    def ssim(a, b, pad=True):
        p = 11 // 2 if pad else 0
        mu1 = F.conv2d(a, win, padding=p, groups=C)
        mu2 = F.conv2d(b, win, padding=p, groups=C)
        s11 = F.conv2d(a * a, win, padding=p, groups=C) - mu1.pow(2)
        s22 = F.conv2d(b * b, win, padding=p, groups=C) - mu2.pow(2)
        s12 = F.conv2d(a * b, win, padding=p, groups=C) - mu1 * mu2
        C1, C2 = 0.01**2, 0.03**2
        m = ((2 * mu1 * mu2 + C1) * (2 * s12 + C2)) / (
            (mu1.pow(2) + mu2.pow(2) + C1) * (s11 + s22 + C2)
        )
        return m

    smap = ssim(img1, img2)
    rec("ssim", smap.mean())
    rec("ssim_img", smap.mean([1, 2, 3]))
    rec("ssim_valid", ssim(img1, img2, pad=False).mean())
    loss = 0.8 * F.l1_loss(img2, img1) + 0.2 * (1 - smap.mean())
    loss.backward()
    rec("g", img2.grad)
    # separable Gaussian blur by two 1-d convolutions (reflect-padded)
    g1 = _gauss_window(lib, 7, 1.0, 1, dt)[0, 0, 3]
    kh = g1.view(1, 1, 1, 7).repeat(C, 1, 1, 1)
    kv = g1.view(1, 1, 7, 1).repeat(C, 1, 1, 1)
    x = F.pad(img1, (3, 3, 3, 3), mode="reflect")
    blur = F.conv2d(F.conv2d(x, kh, groups=C), kv, groups=C)
    rec("blur", blur[0, 0])
    rec(
        "blur_vs_2d",
        (blur - F.conv2d(x, _gauss_window(lib, 7, 1.0, C, dt), groups=C)).abs().max() < 1e-6,
    )
    # multi-scale: average pool and SSIM at the coarse scale
    a2, b2 = F.avg_pool2d(img1, 2), F.avg_pool2d(img2.detach(), 2)
    rec("ms", ssim(a2, b2).mean())
    # LPIPS-like normalised feature distance (random conv features)
    conv = lib.nn.Conv2d(3, 4, 3, padding=1).to(dt)
    f1, f2 = conv(img1), conv(img2.detach())
    n1 = f1 / (f1.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
    n2 = f2 / (f2.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
    rec("lpips_like", (n1 - n2).pow(2).sum(1).mean([1, 2]))
    # uint8 quantisation of the render
    q = (img1[0].permute(1, 2, 0) * 255).round().clamp(0, 255).to(lib.uint8)
    rec("u8", q[:2, :2])
    rec("u8_back", q.float().div(255.0)[0, 0])


def p_tv_distortion(lib, dt, rec):
    lib.manual_seed(20)
    grid = lib.randn(1, 4, 5, 6, 7, dtype=dt, requires_grad=True)
    tv_x = (grid[..., 1:] - grid[..., :-1]).pow(2).mean()
    tv_y = lib.diff(grid, dim=-2).pow(2).mean()
    tv_z = (grid[:, :, 1:] - grid[:, :, :-1]).abs().mean()
    tv = tv_x + tv_y + tv_z
    rec("tv", tv)
    # the plenoxels-style TV on a sparse set of voxels via index_select
    idx = lib.tensor([0, 2, 3])
    sub = grid.index_select(2, idx)
    rec("tv_sub", lib.diff(sub, n=2, dim=2).abs().sum())
    # mip-NeRF 360 distortion loss on normalised intervals
    R, N = 4, 6
    t = lib.sort(lib.rand(R, N + 1, dtype=dt), -1).values
    w = lib.softmax(lib.randn(R, N, dtype=dt), -1).requires_grad_()
    ut = (t[..., 1:] + t[..., :-1]) / 2
    dut = (ut[..., :, None] - ut[..., None, :]).abs()
    loss_inter = lib.einsum("...i,...ij,...j->...", w, dut, w)
    loss_intra = (w**2 * (t[..., 1:] - t[..., :-1])).sum(-1) / 3
    dist = loss_inter + loss_intra
    rec("dist", dist)
    # the O(N) form with cumsum
    wc = lib.cumsum(w, -1)
    wuc = lib.cumsum(w * ut, -1)
    inter2 = 2 * (w[..., 1:] * (ut[..., 1:] * wc[..., :-1] - wuc[..., :-1])).sum(-1)
    rec("dist_linear", inter2 + loss_intra)
    total = tv + dist.mean() + 1e-2 * lib.linalg.norm(grid.flatten(), ord=1)
    total.backward()
    rec("g_grid", grid.grad.sum((0, 1)))
    rec("g_w", w.grad)
    # interlevel loss (proposal network): bounds of weights per interval via searchsorted
    t_fine, w_fine = t, w.detach()
    t_prop = lib.linspace(0, 1, 4, dtype=dt).expand(R, 4).contiguous()
    w_prop = lib.softmax(lib.randn(R, 3, dtype=dt), -1)
    cw = lib.cat([lib.zeros(R, 1, dtype=dt), lib.cumsum(w_prop, -1)], -1)
    i0 = (lib.searchsorted(t_prop, t_fine[..., :-1].contiguous(), right=True) - 1).clamp(0, 3)
    i1 = lib.searchsorted(t_prop, t_fine[..., 1:].contiguous(), right=False).clamp(0, 3)
    bound = lib.gather(cw, -1, i1) - lib.gather(cw, -1, i0)
    interlevel = (lib.clamp(w_fine - bound, min=0) ** 2 / (w_fine + 1e-7)).sum(-1).mean()
    rec("interlevel", interlevel)
    rec("i0", i0)
    rec("i1", i1)
    # sparsity and entropy regularisers on the opacity
    acc = w.detach().sum(-1).clamp(1e-6, 1 - 1e-6)
    rec("entropy", -(acc * lib.log(acc) + (1 - acc) * lib.log1p(-acc)).mean())
    rec("cauchy", lib.log1p(2 * grid.detach()[0, 0] ** 2).sum())


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    img = lib.randn(1, 2, 4, 4, dtype=dt)
    rec.err(
        "gs_dims", lambda: F.grid_sample(img, lib.zeros(1, 3, 3, 3, dtype=dt), align_corners=False)
    )
    rec.err(
        "gs_batch", lambda: F.grid_sample(img, lib.zeros(2, 3, 3, 2, dtype=dt), align_corners=False)
    )
    rec.err("gs_mode", lambda: F.grid_sample(img, lib.zeros(1, 3, 3, 2, dtype=dt), mode="area"))
    rec.err(
        "gs_pad", lambda: F.grid_sample(img, lib.zeros(1, 3, 3, 2, dtype=dt), padding_mode="wrap")
    )
    vol, g3 = lib.zeros(1, 1, 2, 2, 2, dtype=dt), lib.zeros(1, 1, 1, 1, 3, dtype=dt)
    rec.err("gs_bicubic3d", lambda: F.grid_sample(vol, g3, mode="bicubic", align_corners=False))
    g16 = lib.zeros(1, 3, 3, 2, dtype=lib.float16)
    rec.err("gs_dtype", lambda: F.grid_sample(img, g16, align_corners=False))
    rec.err(
        "ss_dtype", lambda: lib.searchsorted(lib.tensor([0.0, 1.0], dtype=dt), lib.tensor([1, 2]))
    )
    rec.err(
        "ss_shape", lambda: lib.searchsorted(lib.zeros(2, 3, dtype=dt), lib.zeros(3, 2, dtype=dt))
    )
    rec.err(
        "ss_side",
        lambda: lib.searchsorted(lib.zeros(3, dtype=dt), lib.zeros(2, dtype=dt), side="up"),
    )
    rec.err("ss_conflict", lambda: lib.searchsorted(lib.zeros(3, dtype=dt), lib.zeros(2, dtype=dt),
                                                    right=False, side="right"))  # fmt: skip
    rec.err(
        "gather_dim",
        lambda: lib.gather(lib.zeros(2, 3, dtype=dt), 1, lib.zeros(2, 3, 1, dtype=lib.int64)),
    )
    rec.err("gather_idx", lambda: lib.gather(lib.zeros(2, 3, dtype=dt), 1, lib.tensor([[0, 5]])))
    rec.err(
        "affine_shape",
        lambda: F.affine_grid(lib.zeros(1, 3, 3, dtype=dt), [1, 1, 2, 2], align_corners=False),
    )
    rec.err("emb_range", lambda: lib.nn.Embedding(4, 2).to(dt)(lib.tensor([4])))
    rec.err("xor_float", lambda: lib.bitwise_xor(lib.tensor([1.0], dtype=dt), lib.tensor([1])))
    rec.err("cumprod_dim", lambda: lib.cumprod(lib.zeros(2, 3, dtype=dt), 2))
    rec.err("meshgrid_idx", lambda: lib.meshgrid(lib.zeros(2), lib.zeros(3), indexing="yx"))
    rec.err(
        "interp_mode",
        lambda: F.interpolate(lib.zeros(1, 1, 2, 2, dtype=dt), scale_factor=2, mode="trilinear"),
    )
    rec.err(
        "conv_groups",
        lambda: F.conv2d(
            lib.zeros(1, 3, 5, 5, dtype=dt), lib.zeros(3, 1, 3, 3, dtype=dt), groups=2
        ),
    )
    rec.err("inv_singular", lambda: lib.linalg.inv(lib.zeros(2, 2, dtype=dt)))
    rec.err("cholesky_npd", lambda: lib.linalg.cholesky(-lib.eye(2, dtype=dt)))
    rec.err("lin_no_steps", lambda: lib.linspace(0.0, 1.0, dtype=dt))
    rec.err("log_no_steps", lambda: lib.logspace(0, 1, base=2.0, dtype=dt))
    rec.err("log_no_steps_pos", lambda: lib.logspace(0, 1))
    rec.err("emb_1d", lambda: F.embedding(lib.tensor([0]), lib.zeros(4, dtype=dt)))


def p_nerf_train(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(21)
    L_xyz, L_dir = 4, 2

    class NeRF(nn.Module):
        def __init__(self, D=3, W=32, skips=(1,)):
            super().__init__()
            in_x, in_d = 3 + 6 * L_xyz, 3 + 6 * L_dir
            self.skips = skips
            self.pts_linears = nn.ModuleList(
                [nn.Linear(in_x, W)]
                + [
                    nn.Linear(W, W) if i not in skips else nn.Linear(W + in_x, W)
                    for i in range(D - 1)
                ]
            )
            self.views_linears = nn.ModuleList([nn.Linear(in_d + W, W // 2)])
            self.feature_linear = nn.Linear(W, W)
            self.alpha_linear = nn.Linear(W, 1)
            self.rgb_linear = nn.Linear(W // 2, 3)
            self.in_x = in_x

        def forward(self, x):
            input_pts, input_views = lib.split(x, [self.in_x, x.shape[-1] - self.in_x], dim=-1)
            h = input_pts
            for i, layer in enumerate(self.pts_linears):
                h = F.relu(layer(h))
                if i in self.skips:
                    h = lib.cat([input_pts, h], -1)
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = lib.cat([feature, input_views], -1)
            for layer in self.views_linears:
                h = F.relu(layer(h))
            rgb = self.rgb_linear(h)
            return lib.cat([rgb, alpha], -1)

    model = NeRF().to(dt)
    fine = NeRF().to(dt)
    params = list(model.parameters()) + list(fine.parameters())
    opt = lib.optim.Adam(params, lr=5e-4, betas=(0.9, 0.999))
    H, W_, focal = 4, 4, 3.0
    K = lib.tensor([[focal, 0, 0.5 * W_], [0, focal, 0.5 * H], [0, 0, 1]], dtype=dt)
    c2w = lib.eye(4, dtype=dt)[:3]
    c2w[2, 3] = 3.0
    ro, rd = _get_rays(lib, H, W_, K, c2w)
    ro, rd = ro.reshape(-1, 3), rd.reshape(-1, 3)
    viewdirs = rd / lib.norm(rd, dim=-1, keepdim=True)
    target = lib.rand(H * W_, 3, dtype=dt)
    Nc, Nf = 6, 6

    def run(net, pts, vd):
        ex = _posenc(lib, pts.reshape(-1, 3), L_xyz)
        ed = _posenc(lib, vd[:, None].expand(pts.shape).reshape(-1, 3), L_dir)
        return net(lib.cat([ex, ed], -1)).reshape(pts.shape[:-1] + (4,))

    for step in range(3):
        batch = lib.randperm(H * W_)[:8]
        o, d, vd = ro[batch], rd[batch], viewdirs[batch]
        z = lib.linspace(2.0, 4.0, Nc, dtype=dt).expand(8, Nc)
        mids = 0.5 * (z[..., 1:] + z[..., :-1])
        z = lib.cat([z[..., :1], mids], -1) + (
            lib.cat([mids, z[..., -1:]], -1) - lib.cat([z[..., :1], mids], -1)
        ) * lib.rand(8, Nc, dtype=dt)
        pts = o[..., None, :] + d[..., None, :] * z[..., :, None]
        raw = run(model, pts, vd)
        rgb0, _, acc0, w, _ = _raw2outputs(lib, raw, z, d)
        zs, _ = _sample_pdf(lib, 0.5 * (z[..., 1:] + z[..., :-1]), w[..., 1:-1], Nf, det=False)
        zs = zs.detach()
        z_all, _ = lib.sort(lib.cat([z, zs], -1), -1)
        pts_f = o[..., None, :] + d[..., None, :] * z_all[..., :, None]
        rgb1, disp1, acc1, _, _ = _raw2outputs(lib, run(fine, pts_f, vd), z_all, d)
        img_loss = F.mse_loss(rgb1, target[batch])
        loss = img_loss + F.mse_loss(rgb0, target[batch])
        psnr = -10.0 * lib.log10(img_loss)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        new_lr = 5e-4 * (0.1 ** (step / 10))
        for g in opt.param_groups:
            g["lr"] = new_lr
        rec(f"batch{step}", batch)
        rec(f"loss{step}", loss)
        rec(f"psnr{step}", psnr)
        rec(f"disp{step}", disp1)
    rec.params("coarse", model, grads=True)
    # render a full image in chunks under no_grad
    with lib.no_grad():
        outs = []
        for chunk in lib.split(lib.arange(H * W_), 5):
            o, d, vd = ro[chunk], rd[chunk], viewdirs[chunk]
            z = lib.linspace(2.0, 4.0, Nc, dtype=dt).expand(len(chunk), Nc)
            pts = o[..., None, :] + d[..., None, :] * z[..., :, None]
            outs.append(_raw2outputs(lib, run(model, pts, vd), z, d)[0])
        img = lib.cat(outs, 0).reshape(H, W_, 3)
    rec("img", img)
    rec("img8", (255 * lib.clip(img, 0, 1)).to(lib.uint8))


def _inverse_sigmoid(lib, x):
    return lib.log(x / (1 - x))


def p_gs_densify(lib, dt, rec):
    """3DGS's training-loop bookkeeping: retain_grad on screen-space means, densification by
    clone/split, pruning, and the optimizer-state surgery that goes with it."""
    nn = lib.nn
    lib.manual_seed(22)
    N = 8
    xyz0 = lib.randn(N, 3, dtype=dt)
    dist2 = lib.clamp_min(
        ((xyz0[:, None] - xyz0[None]) ** 2).sum(-1).topk(3, largest=False).values[:, 1:].mean(-1),
        1e-7,
    )
    scales0 = lib.log(lib.sqrt(dist2))[..., None].repeat(1, 3)
    rots0 = lib.zeros((N, 4), dtype=dt)
    rots0[:, 0] = 1
    opac0 = _inverse_sigmoid(lib, 0.1 * lib.ones((N, 1), dtype=dt))
    rec("scales0", scales0)
    rec("opac0", opac0)
    P = {
        "xyz": nn.Parameter(xyz0.requires_grad_(True)),
        "scaling": nn.Parameter(scales0.requires_grad_(True)),
        "rotation": nn.Parameter(rots0.requires_grad_(True)),
        "opacity": nn.Parameter(opac0.requires_grad_(True)),
    }
    lrs = {"xyz": 1.6e-4, "scaling": 5e-3, "rotation": 1e-3, "opacity": 0.05}
    opt = lib.optim.Adam(
        [{"params": [P[k]], "lr": lrs[k], "name": k} for k in P], lr=0.0, eps=1e-15
    )

    def expon_lr(step, lr_init=1.6e-4, lr_final=1.6e-6, max_steps=30):
        t = np.clip(step / max_steps, 0, 1)
        return np.exp(np.log(lr_init) * (1 - t) + np.log(lr_final) * t)

    grad_accum = lib.zeros((N, 1), dtype=dt)
    denom = lib.zeros((N, 1), dtype=dt)
    max_radii = lib.zeros(N, dtype=dt)
    tgt = lib.rand(3, dtype=dt)
    for it in range(3):
        for g in opt.param_groups:
            if g["name"] == "xyz":
                g["lr"] = expon_lr(it)
        screen = lib.zeros_like(P["xyz"], dtype=P["xyz"].dtype, requires_grad=True) + 0
        screen.retain_grad()
        s = lib.exp(P["scaling"])
        R = _quat_to_rot(lib, P["rotation"])
        cov = R @ lib.diag_embed(s**2) @ R.transpose(1, 2)
        means2d = P["xyz"][:, :2] / (P["xyz"][:, 2:] + 5.0) + screen[:, :2]
        opac = lib.sigmoid(P["opacity"])
        radii = (3 * lib.sqrt(cov.diagonal(dim1=1, dim2=2).amax(-1)) * 10).ceil()
        col = (opac * lib.exp(-(means2d**2).sum(-1, keepdim=True))).sum(0) * tgt + cov.sum(
            (0, 1, 2)
        ) * 1e-2
        loss = (col - tgt).abs().mean()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"screen_grad{it}", screen.grad)
        with lib.no_grad():
            vis = radii > 0
            max_radii[vis] = lib.max(max_radii[vis], radii[vis])
            grad_accum[vis] += lib.norm(screen.grad[vis, :2], dim=-1, keepdim=True)
            denom[vis] += 1
            opt.step()
            opt.zero_grad(set_to_none=True)
    rec("max_radii", max_radii)
    rec("lr_xyz", lib.tensor([g["lr"] for g in opt.param_groups], dtype=lib.float64))

    def replace_in_opt(tensors):
        out = {}
        for group in opt.param_groups:
            old = group["params"][0]
            st = opt.state.get(old, None)
            new = nn.Parameter(tensors[group["name"]].requires_grad_(True))
            if st is not None:
                del opt.state[old]
                opt.state[new] = st
            group["params"][0] = new
            out[group["name"]] = new
        return out

    def cat_to_opt(ext):
        out = {}
        for group in opt.param_groups:
            ext_t = ext[group["name"]]
            old = group["params"][0]
            st = opt.state.get(old, None)
            if st is not None:
                st["exp_avg"] = lib.cat((st["exp_avg"], lib.zeros_like(ext_t)), dim=0)
                st["exp_avg_sq"] = lib.cat((st["exp_avg_sq"], lib.zeros_like(ext_t)), dim=0)
                del opt.state[old]
                new = nn.Parameter(lib.cat((old, ext_t), dim=0).requires_grad_(True))
                opt.state[new] = st
            else:
                new = nn.Parameter(lib.cat((old, ext_t), dim=0).requires_grad_(True))
            group["params"][0] = new
            out[group["name"]] = new
        return out

    def prune(mask):
        keep = ~mask
        out = {}
        for group in opt.param_groups:
            old = group["params"][0]
            st = opt.state.get(old, None)
            if st is not None:
                st["exp_avg"] = st["exp_avg"][keep]
                st["exp_avg_sq"] = st["exp_avg_sq"][keep]
                del opt.state[old]
                new = nn.Parameter(old[keep].requires_grad_(True))
                opt.state[new] = st
            else:
                new = nn.Parameter(old[keep].requires_grad_(True))
            group["params"][0] = new
            out[group["name"]] = new
        return out

    grads = grad_accum / denom
    grads[grads.isnan()] = 0.0
    thr = grads.median().item()
    rec("thr", thr)
    # clone the small ones with large gradients
    sel = lib.where(lib.norm(grads, dim=-1) >= thr, True, False)
    sel = lib.logical_and(
        sel, lib.max(lib.exp(P["scaling"]), dim=1).values <= lib.exp(P["scaling"]).max() * 0.9
    )
    rec("clone_sel", sel)
    P = cat_to_opt({k: P[k][sel] for k in P})
    n_now = P["xyz"].shape[0]
    padded = lib.zeros(n_now, dtype=dt)
    padded[: grads.shape[0]] = grads.squeeze()
    # split the big ones into two samples drawn from their Gaussians
    sel2 = lib.logical_and(padded >= thr, lib.max(lib.exp(P["scaling"]), dim=1).values > 0.1)
    rec("split_sel", sel2)
    stds = lib.exp(P["scaling"])[sel2].repeat(2, 1)
    means = lib.zeros((stds.size(0), 3), dtype=dt)
    samples = lib.normal(mean=means, std=stds)
    rots = _quat_to_rot(lib, P["rotation"][sel2]).repeat(2, 1, 1)
    new_xyz = lib.bmm(rots, samples.unsqueeze(-1)).squeeze(-1) + P["xyz"][sel2].repeat(2, 1)
    new_scaling = lib.log(lib.exp(P["scaling"])[sel2].repeat(2, 1) / (0.8 * 2))
    rec("new_xyz", new_xyz)
    rec("new_scaling", new_scaling)
    ext = {
        "xyz": new_xyz,
        "scaling": new_scaling,
        "rotation": P["rotation"][sel2].repeat(2, 1),
        "opacity": P["opacity"][sel2].repeat(2, 1),
    }
    P = cat_to_opt(ext)
    prune_filter = lib.cat((sel2, lib.zeros(int(2 * sel2.sum()), dtype=lib.bool)))
    P = prune(prune_filter)
    # prune the transparent ones and reset opacity
    P = prune((lib.sigmoid(P["opacity"]) < 0.09).squeeze())
    new_op = _inverse_sigmoid(
        lib, lib.min(lib.sigmoid(P["opacity"]), lib.ones_like(P["opacity"]) * 0.01)
    )
    fresh = {k: P[k].detach() for k in ("xyz", "scaling", "rotation")}
    P = replace_in_opt({**fresh, "opacity": new_op.detach()})
    rec("n_final", P["xyz"].shape[0])
    for k in P:
        rec("P." + k, P[k])
        st = opt.state.get(P[k], None)
        rec("st." + k, "none" if st is None else str(sorted(st)))
        if st is not None:
            rec("exp_avg." + k, st["exp_avg"])
    # a step after the surgery runs with the transplanted state
    loss = sum((p**2).sum() for p in P.values())
    loss.backward()
    opt.step()
    rec("after", P["xyz"])
    sd = opt.state_dict()
    rec("sd_groups", str([(g["name"], g["params"]) for g in sd["param_groups"]]))
    rec("sd_steps", str({k: float(v["step"]) for k, v in sd["state"].items()}))


def p_packed_rays(lib, dt, rec):
    """nerfacc-style packed samples: per-ray counts, repeat_interleave, segment cumsums and
    index_add_ accumulation."""
    lib.manual_seed(23)
    n_rays = 5
    counts = lib.tensor([3, 0, 4, 1, 2])
    chunk_starts = lib.cumsum(counts, 0) - counts
    n = int(counts.sum())
    ray_ids = lib.repeat_interleave(lib.arange(n_rays), counts)
    rec("ray_ids", ray_ids)
    rec("chunk_starts", chunk_starts)
    t_starts = lib.rand(n, dtype=dt).sort().values * 3
    t_ends = t_starts + 0.2
    sigmas = lib.rand(n, dtype=dt, requires_grad=True)
    rgbs = lib.rand(n, 3, dtype=dt, requires_grad=True)
    sd = sigmas * (t_ends - t_starts)
    cs = lib.cumsum(sd, 0)
    # exclusive per-ray cumsum: subtract the total before the ray's first sample
    first = lib.gather(lib.cat([lib.zeros(1, dtype=dt), cs]), 0, chunk_starts[ray_ids])
    excl = cs - sd - first
    trans = lib.exp(-excl)
    alphas = 1 - lib.exp(-sd)
    weights = trans * alphas
    rec("trans", trans)
    rec("weights", weights)
    colors = lib.zeros(n_rays, 3, dtype=dt).index_add_(0, ray_ids, weights[:, None] * rgbs)
    opacities = lib.zeros(n_rays, dtype=dt).scatter_add(0, ray_ids, weights)
    depths = lib.zeros(n_rays, dtype=dt).index_add(0, ray_ids, weights * (t_starts + t_ends) / 2)
    rec("colors", colors)
    rec("opacities", opacities)
    rec("depths", depths / opacities.clamp_min(1e-10))
    (colors.sum() + depths.sum()).backward()
    rec("g_sigmas", sigmas.grad)
    rec("g_rgbs", rgbs.grad)
    # segment reductions: scatter_reduce amax, index_reduce, bincount, unique_consecutive
    rec(
        "seg_max",
        lib.zeros(n_rays, dtype=dt).scatter_reduce(
            0, ray_ids, weights.detach(), "amax", include_self=False
        ),
    )
    rec(
        "seg_mean",
        lib.zeros(n_rays, dtype=dt).index_reduce(
            0, ray_ids, weights.detach(), "mean", include_self=False
        ),
    )
    rec("bincount", lib.bincount(ray_ids, minlength=n_rays))
    u, inv, cnt = lib.unique_consecutive(ray_ids, return_inverse=True, return_counts=True)
    rec("uc", lib.stack([u, cnt]))
    rec("inv", inv)
    # the packed-to-padded conversion
    pad = lib.zeros(n_rays, int(counts.max()), dtype=dt)
    pos = lib.arange(n) - chunk_starts[ray_ids]
    pad[ray_ids, pos] = weights.detach()
    rec("padded", pad)
    mask = lib.arange(int(counts.max()))[None] < counts[:, None]
    rec("mask", mask)
    rec("unpacked", pad[mask])
    # per-ray early termination: keep samples with transmittance above a threshold
    keep = trans.detach() > 0.5
    rec("kept", keep.nonzero().squeeze(-1))
    rec(
        "seg_ids",
        lib.segment_reduce(weights.detach(), "sum", lengths=counts)
        if hasattr(lib, "segment_reduce")
        else lib.zeros(n_rays, dtype=dt).index_add(0, ray_ids, weights.detach()),
    )


def _morton3(lib, x):
    x = x & 0x000003FF
    x = (x | (x << 16)) & 0xFF0000FF
    x = (x | (x << 8)) & 0x0300F00F
    x = (x | (x << 4)) & 0x030C30C3
    x = (x | (x << 2)) & 0x09249249
    return x


def p_occupancy(lib, dt, rec):
    """instant-NGP's occupancy grid: Morton codes with int32 bit twiddling, EMA of densities,
    thresholding by mean, max_pool3d dilation, and packbits-like bitfields."""
    F = lib.nn.functional
    lib.manual_seed(24)
    res = 4
    idx = lib.arange(res**3, dtype=lib.int32)
    xs, ys, zs = idx // (res * res), (idx // res) % res, idx % res
    codes = _morton3(lib, xs) | (_morton3(lib, ys) << 1) | (_morton3(lib, zs) << 2)
    rec("codes", codes)
    rec("codes.dtype", str(codes.dtype))
    grid = lib.zeros(res**3, dtype=dt)
    decay = 0.95
    for it in range(3):
        pts = (lib.stack([xs, ys, zs], -1).to(dt) + lib.rand(res**3, 3, dtype=dt)) / res
        dens = lib.exp(-((pts - 0.5) ** 2).sum(-1) * 8) * (it + 1)
        grid = lib.maximum(grid * decay, dens)
        mean = grid.clamp(min=0).mean().item()
        bitfield = grid > min(mean, 0.6)
        rec(f"grid{it}", grid)
        rec(f"bits{it}", bitfield)
    vol = grid.view(1, 1, res, res, res)
    dil = F.max_pool3d(vol, kernel_size=3, stride=1, padding=1)
    rec("dilated", dil)
    rec("avg3d", F.avg_pool3d(vol, 2))
    rec("avg3d_pad", F.avg_pool3d(vol, 3, stride=1, padding=1, count_include_pad=False))
    mp, mi = F.max_pool3d(vol, 2, return_indices=True)
    rec("mp_idx", mi)
    rec("unpool", F.max_unpool3d(mp, mi, 2).flatten().nonzero().flatten())
    # pack 8 occupancy bits per byte
    b = bitfield.view(-1, 8).to(lib.uint8)
    weights = lib.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=lib.uint8)
    packed = (b * weights).sum(-1, dtype=lib.uint8)
    rec("packed", packed)
    unpacked = (packed[:, None] & weights) != 0
    rec("unpacked_ok", (unpacked.flatten() == bitfield).all())
    rec("popcount", unpacked.sum())
    # sample cells by occupancy: multinomial without replacement and argwhere
    occ = bitfield.nonzero(as_tuple=False).squeeze(1)
    rec("occ", occ)
    probs = grid / grid.sum()
    rec("multinomial", lib.multinomial(probs, 5, replacement=False))
    rec("mult_rep", lib.multinomial(probs.view(4, 16), 3, replacement=True))
    # a coarse-to-fine cascade: contract unbounded points (mip-NeRF 360)
    x = lib.randn(6, 3, dtype=dt) * 2
    mag = lib.linalg.norm(x, dim=-1, keepdim=True)
    contracted = lib.where(mag < 1, x, (2 - 1 / mag) * (x / mag))
    rec("contract", contracted)
    rec("morton_u8", _morton3(lib, lib.tensor([1, 3, 7, 1023], dtype=lib.int64)))


def p_neus(lib, dt, rec):
    """NeuS rendering: s-density by the sigmoid of SDF times a learnt inv_s, cos annealing,
    alpha from CDF differences, gradients from autograd inside the forward."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(25)
    sdf_net = nn.Sequential(nn.Linear(3, 16), nn.Softplus(beta=100), nn.Linear(16, 1 + 8)).to(dt)
    color_net = nn.Sequential(
        nn.Linear(3 + 3 + 3 + 8, 16), nn.ReLU(), nn.Linear(16, 3), nn.Sigmoid()
    ).to(dt)

    class SingleVariance(nn.Module):
        def __init__(self, init_val):
            super().__init__()
            self.register_parameter("variance", nn.Parameter(lib.tensor(init_val, dtype=dt)))

        def forward(self, x):
            return lib.ones([len(x), 1], dtype=dt) * lib.exp(self.variance * 10.0)

    dev = SingleVariance(0.3)
    params = list(sdf_net.parameters()) + list(color_net.parameters()) + list(dev.parameters())
    opt = lib.optim.Adam(params, lr=5e-4)
    R, S = 4, 6
    rays_o = lib.tensor([[0.0, 0.0, -2.0]], dtype=dt).repeat(R, 1)
    rays_d = F.normalize(
        lib.randn(R, 3, dtype=dt) * 0.1 + lib.tensor([0, 0, 1.0], dtype=dt), dim=-1
    )
    z = lib.linspace(1.0, 3.0, S, dtype=dt)[None].repeat(R, 1)
    target = lib.rand(R, 3, dtype=dt)
    for it in range(3):
        cos_anneal = min(1.0, it / 2)
        dists = z[..., 1:] - z[..., :-1]
        dists = lib.cat([dists, lib.tensor([0.5], dtype=dt).expand(dists[..., :1].shape)], -1)
        mid_z = z + dists * 0.5
        pts = (rays_o[:, None, :] + rays_d[:, None, :] * mid_z[..., :, None]).reshape(-1, 3)
        dirs = rays_d[:, None, :].expand(R, S, 3).reshape(-1, 3)
        pts.requires_grad_(True)
        out = sdf_net(pts)
        sdf, feat = out[:, :1], out[:, 1:]
        gradients = lib.autograd.grad(sdf, pts, lib.ones_like(sdf), create_graph=True,
                                      retain_graph=True, only_inputs=True)[0]  # fmt: skip
        rgb = color_net(lib.cat([pts, gradients, dirs, feat], -1)).reshape(R, S, 3)
        inv_s = dev(lib.zeros([1, 3], dtype=dt))[:, :1].clip(1e-6, 1e6)
        inv_s = inv_s.expand(R * S, 1)
        true_cos = (dirs * gradients).sum(-1, keepdim=True)
        iter_cos = -(
            F.relu(-true_cos * 0.5 + 0.5) * (1.0 - cos_anneal) + F.relu(-true_cos) * cos_anneal
        )
        est_next = sdf + iter_cos * dists.reshape(-1, 1) * 0.5
        est_prev = sdf - iter_cos * dists.reshape(-1, 1) * 0.5
        prev_cdf = lib.sigmoid(est_prev * inv_s)
        next_cdf = lib.sigmoid(est_next * inv_s)
        alpha = ((prev_cdf - next_cdf + 1e-5) / (prev_cdf + 1e-5)).reshape(R, S).clip(0.0, 1.0)
        weights = (
            alpha
            * lib.cumprod(lib.cat([lib.ones([R, 1], dtype=dt), 1.0 - alpha + 1e-7], -1), -1)[:, :-1]
        )
        color = (rgb * weights[:, :, None]).sum(dim=1)
        grad_err = (lib.linalg.norm(gradients.reshape(R, S, 3), ord=2, dim=-1) - 1.0) ** 2
        eik = grad_err.mean()
        color_loss = F.l1_loss(color, target, reduction="sum") / R
        loss = color_loss + 0.1 * eik
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"weights{it}", weights)
        rec(f"s_val{it}", (1.0 / inv_s).mean())
    rec("variance", dev.variance)
    rec("g_variance", dev.variance.grad)
    rec.params("sdf", sdf_net, grads=True)
    # up-sampling by the sdf's zero crossings (NeuS's up_sample)
    with lib.no_grad():
        sdf = sdf_net(pts.detach())[:, 0].reshape(R, S)
        prev_sdf, next_sdf = sdf[:, :-1], sdf[:, 1:]
        prev_z, next_z = z[:, :-1], z[:, 1:]
        mid_sdf = (prev_sdf + next_sdf) * 0.5
        cos_val = (next_sdf - prev_sdf) / (next_z - prev_z + 1e-5)
        prev_cos = lib.cat([lib.zeros([R, 1], dtype=dt), cos_val[:, :-1]], dim=-1)
        cos_val = lib.stack([prev_cos, cos_val], dim=-1)
        cos_val, _ = lib.min(cos_val, dim=-1, keepdim=False)
        cos_val = cos_val.clip(-1e3, 0.0)
        rec("cos_val", cos_val)
        rec("mid_sdf", mid_sdf)


def p_tensorf(lib, dt, rec):
    """TensoRF's VM decomposition: plane and line features by grid_sample, upsampling of the
    parameters with interpolate, an alpha mask by max_pool3d, L1 and TV regularisers."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(26)
    R, C = 6, 3
    mat_ids = [[0, 1], [0, 2], [1, 2]]
    vec_ids = [2, 1, 0]
    planes = nn.ParameterList(
        [nn.Parameter(0.1 * lib.randn(1, C, R, R, dtype=dt)) for _ in range(3)]
    )
    lines = nn.ParameterList(
        [nn.Parameter(0.1 * lib.randn(1, C, R, 1, dtype=dt)) for _ in range(3)]
    )
    basis = nn.Linear(3 * C, 4, bias=False).to(dt)
    groups = [
        {"params": list(planes) + list(lines), "lr": 0.02},
        {"params": basis.parameters(), "lr": 1e-3},
    ]
    opt = lib.optim.Adam(groups, betas=(0.9, 0.99))

    def features(xyz):
        cp = lib.stack([xyz[..., mat_ids[i]] for i in range(3)]).detach().view(3, -1, 1, 2)
        cl = lib.stack([xyz[..., vec_ids[i]] for i in range(3)])
        cl = lib.stack((lib.zeros_like(cl), cl), dim=-1).detach().view(3, -1, 1, 2)
        pf, lf = [], []
        for i in range(3):
            pf.append(F.grid_sample(planes[i], cp[[i]], align_corners=True).view(-1, xyz.shape[0]))
            lf.append(F.grid_sample(lines[i], cl[[i]], align_corners=True).view(-1, xyz.shape[0]))
        pf, lf = lib.cat(pf), lib.cat(lf)
        return basis((pf * lf).T)

    xyz = lib.rand(10, 3, dtype=dt) * 2 - 1
    tgt = lib.rand(10, 4, dtype=dt)
    for it in range(3):
        f = features(xyz)
        l1 = sum(lib.mean(lib.abs(p)) for p in planes) + sum(lib.mean(lib.abs(p)) for p in lines)
        tv = sum(
            ((p[:, :, 1:] - p[:, :, :-1]) ** 2).mean() + ((p[..., 1:] - p[..., :-1]) ** 2).mean()
            for p in planes
        )
        loss = F.mse_loss(f, tgt) + 1e-3 * l1 + 1e-2 * tv
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # upsample the parameters (a new Parameter from interpolate) and rebuild the optimizer
    with lib.no_grad():
        for i in range(3):
            planes[i] = nn.Parameter(
                F.interpolate(planes[i].data, size=(8, 8), mode="bilinear", align_corners=True)
            )
            lines[i] = nn.Parameter(
                F.interpolate(lines[i].data, size=(8, 1), mode="bilinear", align_corners=True)
            )
    rec("plane0", planes[0])
    rec("line1", lines[1])
    rec("shapes", str([tuple(p.shape) for p in planes.parameters()]))
    f2 = features(xyz)
    rec("f2", f2)
    # an alpha mask: density on a grid, max-pooled, then queried by grid_sample (nearest)
    with lib.no_grad():
        g = lib.stack(
            lib.meshgrid(*[lib.linspace(-1, 1, 4, dtype=dt)] * 3, indexing="ij"), -1
        ).view(-1, 3)
        dens = F.softplus(features(g)[:, 0] - 0.2).view(1, 1, 4, 4, 4)
        alpha = 1 - lib.exp(-dens * 0.5)
        alpha = F.max_pool3d(alpha, kernel_size=3, padding=1, stride=1)
        alpha[alpha >= 0.3] = 1
        alpha[alpha < 0.3] = 0
        q = F.grid_sample(
            alpha, xyz.flip(-1).view(1, -1, 1, 1, 3), mode="nearest", align_corners=True
        ).view(-1)
    rec("alpha_mask", alpha)
    rec("q", q)
    rec("aabb", lib.stack([g.amin(0), g.amax(0)]))
    # shrink to the occupied bounding box
    occ = alpha[0, 0].nonzero()
    rec("occ_box", lib.stack([occ.amin(0), occ.amax(0)]) if occ.numel() else lib.zeros(2, 3))


def p_printing(lib, dt, rec):
    """What training loops print: f-strings of 0-d tensors, reprs of images, masks and codes."""
    lib.manual_seed(27)
    psnr = -10.0 * lib.log10(lib.tensor(0.00123, dtype=dt))
    rec("fmt", f"PSNR {psnr:.2f} loss {lib.tensor(0.5, dtype=dt):.4e}")
    rec("item_fmt", f"{psnr.item():.3f}")
    img = (lib.rand(2, 3, 3, dtype=dt) * 255).to(lib.uint8)
    rec("repr_u8", repr(img))
    mask = lib.rand(3, 4, dtype=dt) > 0.5
    rec("repr_mask", repr(mask))
    rays = lib.randn(2, 3, dtype=dt, requires_grad=True) * 1e-3
    rec("repr_grad", repr(rays))
    rec("repr_big", repr(lib.tensor([1e10, 1.0, -2.5e-5], dtype=dt)))
    rec("repr_inf", repr(lib.tensor([float("inf"), 1e10, float("nan"), 0.0], dtype=dt)))
    rec("repr_codes", repr(lib.tensor([1, 2654435761, -805459861])))
    rec("repr_sum", repr(lib.arange(6, dtype=dt).view(2, 3).sum(0)))
    rec("repr_param", repr(lib.nn.Parameter(lib.ones(2, dtype=dt))))
    rec("str_dt", str(lib.tensor([0.1, 0.25], dtype=dt)))
    rec("repr_shape", repr(lib.zeros(2, 3, 4).shape))
    rec("repr_bool0", repr(lib.tensor(True)))
    rec("repr_empty", repr(lib.zeros(0, 3, dtype=dt)))
    rec("tolist", str(lib.tensor([[0.5, 1.5]], dtype=dt).tolist()))
    long = lib.linspace(0, 1, 1200, dtype=dt)
    rec("repr_long", repr(long))


def p_autograd_errors(lib, dt, rec):
    """The mistakes rendering code makes, and torch's messages for them."""
    lib.manual_seed(28)
    c2w = lib.eye(4, dtype=dt)[:3]
    rays_d = lib.randn(2, 3, 3, dtype=dt)
    rays_o = c2w[:3, -1].expand(rays_d.shape)

    def shift():
        ro = rays_o
        ro += rays_d
        return ro

    rec.err("expand_inplace", shift)
    sigma = lib.randn(3, 5, dtype=dt, requires_grad=True)
    alpha = 1 - lib.exp(-lib.relu(sigma))

    def inplace_after_exp():
        e = lib.exp(-sigma)
        e[..., -1] = 1.0
        e.sum().backward()

    rec.err("version", inplace_after_exp)
    pts = lib.rand(4, 3, dtype=dt, requires_grad=True)

    def leaf_assign():
        pts[pts > 0.5] = 0.0

    rec.err("leaf_inplace", leaf_assign)
    loss = (alpha**2).sum()
    loss.backward(retain_graph=False)
    rec.err("twice", lambda: loss.backward())
    rec.err("nonscalar", lambda: (alpha * 2).backward())
    rec.err("unused", lambda: lib.autograd.grad((sigma * 2).sum(), [sigma, pts]))
    rec.err("no_grad_fn", lambda: lib.autograd.grad(lib.ones(2, dtype=dt).sum(), pts))
    g = lib.autograd.grad((sigma * 2).sum(), [sigma, pts], allow_unused=True)
    rec("allow_unused", str([x is None for x in g]))
    g = lib.autograd.grad(
        (sigma * 2).sum(), [sigma, pts], allow_unused=True, materialize_grads=True
    )
    rec("materialize", g[1])
    rec.err("grad_shape", lambda: lib.autograd.grad(sigma * 2, sigma, lib.ones(5, 3, dtype=dt)))
    rec.err("numpy_grad", lambda: (sigma * 2).numpy())
    rec.err("bool_ambiguous", lambda: bool(sigma > 0))
    rec.err("item_many", lambda: sigma.item())
    rec.err("view_noncontig", lambda: sigma.t().view(-1))
    rec.err("cat_dtype", lambda: lib.cat([lib.zeros(2, dtype=dt), lib.zeros(2, dtype=lib.int64)]))
    rec.err("stack_shape", lambda: lib.stack([lib.zeros(2, 3), lib.zeros(3, 2)]))
    rec.err("matmul", lambda: lib.zeros(4, 3, dtype=dt) @ lib.zeros(4, 3, dtype=dt))
    rec.err("index_oob", lambda: lib.zeros(4, 3, dtype=dt)[lib.tensor([0, 4])])
    rec.err("mask_shape", lambda: lib.zeros(4, 3, dtype=dt)[lib.ones(3, dtype=lib.bool)])
    rec.err("requires_grad_int", lambda: lib.zeros(3, dtype=lib.int64).requires_grad_())
    rec.err("detached_inplace_view", lambda: sigma.detach().unsqueeze(0).resize_(20))
    rec.err("set_grad", lambda: setattr(sigma, "grad", lib.zeros(2, dtype=dt)))
    x = lib.ones(3, dtype=dt, requires_grad=True)
    y = x * 2
    rec.err("retain_nonleaf", lambda: (y.sum().backward(), y.grad)[1])
    # in place on a view of a non-leaf keeps gradients right
    z = x * 1.0
    z[1:].mul_(3.0)
    z.sum().backward()
    rec("view_inplace_grad", x.grad)


def p_edge_numbers(lib, dt, rec):
    """Rays parallel to slabs (1/0), empty rays (0 * inf), log of zero weights, acos at +-1:
    the inf/nan results and their gradients, with no numerical warning."""
    o = lib.tensor([[0.0, 0.0, 0.0], [0.5, -2.0, 0.3], [2.0, 0.0, 0.0]], dtype=dt)
    d = lib.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], dtype=dt).requires_grad_()
    inv = 1.0 / d
    rec("inv", inv)
    t0, t1 = (-1.0 - o) * inv, (1.0 - o) * inv
    rec("t0", t0)
    tmin = lib.minimum(t0, t1).amax(-1)
    tmax = lib.maximum(t0, t1).amin(-1)
    rec("tmin", tmin)
    rec("tmax", tmax)
    w = lib.tensor([[0.0, 0.0, 0.0], [0.2, 0.3, 0.5]], dtype=dt, requires_grad=True)
    pdf = w / w.sum(-1, keepdim=True)
    rec("pdf_nan", pdf)
    ent = -(pdf * lib.log(pdf)).nansum(-1)
    rec("ent", ent)
    ent2 = -lib.special.xlogy(pdf, pdf).sum(-1)
    rec("ent2", ent2)
    ent2[1].backward()
    rec("g_w", w.grad)
    c = lib.tensor([1.0, -1.0, 0.5, 1.0 + 1e-12], dtype=dt, requires_grad=True)
    a = lib.acos(c)
    rec("acos", a)
    a.sum().backward()
    rec("g_acos", c.grad)
    x = lib.tensor([0.0, 1e-300, 4.0], dtype=dt, requires_grad=True)
    s = lib.sqrt(x)
    s.sum().backward()
    rec("g_sqrt", x.grad)
    n = lib.tensor([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], dtype=dt, requires_grad=True)
    nn_ = lib.nn.functional.normalize(n, dim=-1)
    nn_.sum().backward()
    rec("normalize0", nn_)
    rec("g_normalize0", n.grad)
    n.grad = None
    nrm = n.norm(dim=-1)
    nrm.sum().backward()
    rec("g_norm0", n.grad)
    rec("log0", lib.log(lib.tensor([0.0, -1.0], dtype=dt)))
    rec("div00", lib.tensor([0.0, 1.0, -1.0], dtype=dt) / 0.0)
    rec("inf_minus", lib.tensor([float("inf")], dtype=dt) - float("inf"))
    rec("atan2_00", lib.atan2(lib.tensor([0.0, -0.0], dtype=dt), lib.tensor([-0.0, 0.0], dtype=dt)))
    rec("nan_to_num", lib.nan_to_num(pdf.detach(), nan=0.0, posinf=1.0))
    rec("clamp_nan", lib.clamp(lib.tensor([float("nan"), 2.0], dtype=dt), 0, 1))
    rec("exp_big", lib.exp(lib.tensor([800.0, -800.0], dtype=dt)))
    rec("sigmoid_ext", lib.sigmoid(lib.tensor([-800.0, 800.0], dtype=dt)))
    rec(
        "softplus_ext",
        lib.nn.functional.softplus(lib.tensor([-800.0, 800.0, 30.0], dtype=dt), beta=100),
    )
    rec("log1p_m1", lib.log1p(lib.tensor([-1.0], dtype=dt)))
    rec("pow_neg", lib.tensor([-8.0, 0.0], dtype=dt) ** (1.0 / 3.0))
    rec("cumprod_inf", lib.cumprod(lib.tensor([0.0, float("inf"), 2.0], dtype=dt), 0))


def p_warnings(lib, dt, rec):
    """The warnings rendering code sees (grid_sample/affine_grid/interpolate defaults, meshgrid
    without indexing, non-contiguous searchsorted inputs)."""
    F = lib.nn.functional
    lib.manual_seed(29)
    img = lib.rand(1, 1, 4, 4, dtype=dt)
    grid = lib.zeros(1, 2, 2, 2, dtype=dt)
    theta = lib.tensor([[[1.0, 0, 0], [0, 1, 0]]], dtype=dt)
    rec("gs", rec.warns("gs_w", lambda: F.grid_sample(img, grid)))
    rec("ag", rec.warns("ag_w", lambda: F.affine_grid(theta, [1, 1, 3, 3])))
    rec("mg", rec.warns("mg_w", lambda: lib.meshgrid(lib.arange(2), lib.arange(3)))[0])
    rec(
        "interp",
        rec.warns("interp_w", lambda: F.interpolate(img, scale_factor=1.5, mode="bilinear")),
    )
    cdf = lib.linspace(0, 1, 6, dtype=dt).expand(3, 6)
    u = lib.rand(4, 3, dtype=dt).t()
    with warnings.catch_warnings():  # (its warning shows once per process, in either library:
        warnings.simplefilter("ignore")  # which test meets it first depends on the test order)
        rec("ss", lib.searchsorted(cdf, u))
    rec("ss_c", rec.warns("ss_c_w", lambda: lib.searchsorted(cdf.contiguous(), u.contiguous())))
    rec("up", rec.warns("up_w", lambda: F.upsample(img, scale_factor=2, mode="nearest")))
    rec("sig", rec.warns("sig_w", lambda: F.sigmoid(img)))
    rec("tanh", rec.warns("tanh_w", lambda: F.tanh(img)))
    rec("mse", rec.warns("mse_w", lambda: F.mse_loss(img, lib.zeros(1, 1, 4, dtype=dt))))
    x = lib.zeros(3, dtype=dt, requires_grad=True)
    y = x * 2
    rec.warns("nonleaf_grad", lambda: y.grad)


def p_grid_lattice(lib, dt, rec):
    """grid_sample at exact pixel centres and borders (the kinks of the interpolation and of the
    padding's clipping/reflection): values and the gradient with respect to the grid."""
    F = lib.nn.functional
    lib.manual_seed(30)
    img = lib.randn(1, 2, 3, 4, dtype=dt, requires_grad=True)
    for ac in (True, False):
        if ac:
            xs, ys = lib.linspace(-1, 1, 4, dtype=dt), lib.linspace(-1, 1, 3, dtype=dt)
        else:
            xs = (2 * lib.arange(4, dtype=dt) + 1) / 4 - 1
            ys = (2 * lib.arange(3, dtype=dt) + 1) / 3 - 1
        xs = lib.cat([lib.tensor([-1.0, 1.0, -1.5, 1.25], dtype=dt), xs])
        ys = lib.cat([lib.tensor([-1.0, 1.0, -1.5, 1.25], dtype=dt), ys])
        gy, gx = lib.meshgrid(ys, xs, indexing="ij")
        grid = lib.stack([gx, gy], -1)[None].requires_grad_()
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=ac)
                gout = lib.arange(out.numel(), dtype=dt).view(out.shape).cos()
                gi, gg = lib.autograd.grad(out, [img, grid], gout)
                key = f"{mode}.{pad}.{ac}"
                rec("v." + key, out)
                rec("gi." + key, gi)
                rec("gg." + key, gg)
    vol = lib.randn(1, 1, 2, 3, 4, dtype=dt, requires_grad=True)
    pts = lib.tensor(
        [[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [1 / 3, 0.0, 0.0], [-1.2, 0.5, 1.0]], dtype=dt
    )
    pts = pts.view(1, 1, 1, 4, 3).requires_grad_()
    for pad in ("zeros", "border", "reflection"):
        for ac in (True, False):
            for mode in ("bilinear", "nearest"):
                out = F.grid_sample(vol, pts, mode=mode, padding_mode=pad, align_corners=ac)
                gv, gp = lib.autograd.grad(out.sum(), [vol, pts])
                rec(f"3d.{mode}.{pad}.{ac}", out)
                rec(f"3d.gv.{mode}.{pad}.{ac}", gv)
                rec(f"3d.gp.{mode}.{pad}.{ac}", gp)


def p_forward_ad(lib, dt, rec):
    """Forward-mode derivatives of the rendering pipeline (dual numbers, jvp, jacfwd)."""
    fwAD = lib.autograd.forward_ad
    lib.manual_seed(31)
    sigma = lib.rand(3, 5, dtype=dt)
    tangent = lib.randn(3, 5, dtype=dt)
    z = lib.linspace(1, 2, 5, dtype=dt).expand(3, 5)
    with fwAD.dual_level():
        s = fwAD.make_dual(sigma, tangent)
        delta = lib.cat([z[:, 1:] - z[:, :-1], lib.full((3, 1), 1e10, dtype=dt)], -1)
        alpha = 1 - lib.exp(-s * delta)
        T = lib.cumprod(lib.cat([lib.ones(3, 1, dtype=dt), 1 - alpha + 1e-10], -1), -1)[:, :-1]
        w = alpha * T
        depth = (w * z).sum(-1)
        p, t = fwAD.unpack_dual(depth)
        rec("depth", p)
        rec("depth_t", t)
        rec("w_t", fwAD.unpack_dual(w).tangent)
        # (grid_sample has no forward-mode formula in torch, which raises; it has a tangent
        # here: a documented difference of minitorch's forward AD)

    # the same tangent by jvp and by the double-backward trick
    def depth_of(sig):
        alpha = 1 - lib.exp(-sig * 0.3)
        T = lib.cumprod(1 - alpha + 1e-10, -1)
        return (alpha * T * z).sum(-1)

    out, jv = lib.func.jvp(depth_of, (sigma,), (tangent,))
    rec("jvp", jv)
    out2, jv2 = lib.autograd.functional.jvp(depth_of, sigma, tangent)
    rec("jvp2", jv2)
    J = lib.func.jacfwd(depth_of)(sigma)
    rec("jacfwd", J)
    Jr = lib.func.jacrev(depth_of)(sigma)
    rec("jacrev", Jr)
    # normals of an SDF by jacfwd under vmap
    net = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Softplus(beta=10), lib.nn.Linear(8, 1)).to(
        dt
    )
    pts = lib.randn(4, 3, dtype=dt)
    normals = lib.func.vmap(lib.func.jacfwd(lambda p: net(p).squeeze(-1)))(pts)
    rec("normals", normals)
    H = lib.func.vmap(lib.func.hessian(lambda p: net(p).squeeze(-1)))(pts)
    rec("hessian", H)
    params = dict(net.named_parameters())
    out = lib.func.functional_call(net, {k: v * 2 for k, v in params.items()}, (pts,))
    rec("functional_call", out)
    g = lib.func.grad(lambda prm: lib.func.functional_call(net, prm, (pts,)).sum())(params)
    rec("grad_dict", str(sorted(g)))
    rec("grad_w", g["2.weight"])


def p_half(lib, dt, rec):
    """Reduced-precision rendering pieces (hash tables and MLPs in half, autocast)."""
    F = lib.nn.functional
    lib.manual_seed(32)
    for h in (lib.float16, lib.bfloat16):
        emb = lib.nn.Embedding(16, 2).to(h)
        idx = lib.randint(0, 16, (5, 8))
        f = emb(idx)
        w = lib.rand(5, 8, 1, dtype=dt).to(h)
        out = (w * f).sum(1)
        rec(f"emb.{h}", out)
        out.float().sum().backward()
        rec(f"emb.g.{h}", emb.weight.grad)
        x = lib.rand(4, 6, dtype=dt).to(h)
        rec(f"cumsum.{h}", lib.cumsum(x, -1))
        rec(f"cumprod.{h}", lib.cumprod(1 - x * 0.5, -1))
        rec(f"sum.{h}", x.sum(-1))
        rec(f"mean.{h}", x.mean())
        rec(f"ss.{h}", lib.searchsorted(lib.cumsum(x, -1), x[:, :2].contiguous()))
        rec(f"sig.{h}", lib.sigmoid(x * 10 - 5))
        rec(f"exp.{h}", lib.exp(-x * 3))
        rec(f"sin.{h}", lib.sin(x * 100))
        acc = lib.zeros(3, dtype=h).index_add_(0, lib.tensor([0, 1, 0, 2]), x[0, :4])
        rec(f"index_add.{h}", acc)
        rec(
            f"idx_put.{h}",
            lib.zeros(3, dtype=h).index_put_((lib.tensor([0, 0, 2]),), x[1, :3], accumulate=True),
        )
    mlp = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 4)).to(dt)
    x = lib.rand(5, 6, dtype=dt)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        y = mlp(x)
        rec("ac.dtype", str(y.dtype).split(".")[-1])
        rgb = lib.sigmoid(y[:, :3])
        rec("ac.sig", str(rgb.dtype).split(".")[-1])
        img = lib.rand(1, 1, 4, 4, dtype=dt)
        g = F.grid_sample(img, lib.rand(1, 2, 2, 2, dtype=dt), align_corners=False)
        rec("ac.gs", str(g.dtype).split(".")[-1])
        c = lib.cumprod(y, -1)
        rec("ac.cumprod", str(c.dtype).split(".")[-1])
        s = lib.cumsum(y, -1)
        rec("ac.cumsum", str(s.dtype).split(".")[-1])
        ls = F.mse_loss(rgb, lib.rand(5, 3, dtype=dt))
        rec("ac.mse", str(ls.dtype).split(".")[-1])
        e = lib.exp(y)
        rec("ac.exp", str(e.dtype).split(".")[-1])
        n = lib.linalg.norm(y, dim=-1)
        rec("ac.norm", str(n.dtype).split(".")[-1])
    rec("ac.y", y)
    ls.backward()
    rec("ac.gw", mlp[0].weight.grad)


def p_big_batch(lib, dt, rec):
    """Realistic batch sizes (1024 rays of 64 samples, a 64x64 image, a 32^3 grid), where the
    library's size-dependent fast paths (BLAS sums, row-wise max, partitions) take over."""
    F = lib.nn.functional
    lib.manual_seed(33)
    R, N = 1024, 64
    z = lib.linspace(2.0, 6.0, N, dtype=dt).expand(R, N)
    z = z + lib.rand(R, N, dtype=dt) * (4.0 / N)
    raw = lib.randn(R, N, 4, dtype=dt, requires_grad=True)
    rd = lib.randn(R, 3, dtype=dt)
    rgb, disp, acc, w, depth = _raw2outputs(lib, raw, z, rd)
    rec("rgb", rgb)
    rec("depth", depth)
    rec("acc_sum", acc.sum())
    rec("w_max", w.max(-1).values)
    rec("w_amax0", w.amax(0))
    rec("w_argmax", w.argmax(-1))
    loss = (rgb - 0.5).pow(2).mean() + 1e-3 * depth.mean()
    loss.backward()
    rec("g_raw_sum", raw.grad.sum((0, 1)))
    rec("g_raw", raw.grad[::97])
    mids = 0.5 * (z[..., 1:] + z[..., :-1])
    s, inds = _sample_pdf(lib, mids, w.detach()[..., 1:-1], 32)
    rec("inds_sum", inds.sum(-1))
    rec("s", s[::61])
    zs = lib.sort(lib.cat([z, s], -1), -1)
    rec("zs_idx", zs.indices[::101])
    tk = lib.topk(w.detach().flatten(), 10)
    rec("topk", tk.values)
    rec("topk_i", tk.indices)
    rec("softmax", lib.softmax(raw.detach()[..., 3], -1)[::113])
    rec("lse", lib.logsumexp(raw.detach()[..., 3], -1))
    rec("norm", raw.detach().norm(dim=-1)[::127])
    rec("mean0", raw.detach().mean(0))
    rec("var", raw.detach().var(dim=(0, 1)))
    img = lib.rand(1, 3, 64, 64, dtype=dt)
    img2 = (img + 0.05 * lib.randn(1, 3, 64, 64, dtype=dt)).requires_grad_()
    win = _gauss_window(lib, 11, 1.5, 3, dt)
    mu1 = F.conv2d(img, win, padding=5, groups=3)
    mu2 = F.conv2d(img2, win, padding=5, groups=3)
    s12 = F.conv2d(img * img2, win, padding=5, groups=3) - mu1 * mu2
    rec("mu2", mu2.sum((2, 3)))
    rec("s12", s12.mean((2, 3)))
    s12.mean().backward()
    rec("g_img2", img2.grad.sum((2, 3)))
    rec("g_img2_px", img2.grad[0, :, ::13, ::13])
    vol = lib.randn(1, 8, 32, 32, 32, dtype=dt, requires_grad=True)
    pts = lib.rand(1, 1, 1, 4096, 3, dtype=dt) * 2 - 1
    f = F.grid_sample(vol, pts, align_corners=True).view(8, -1)
    rec("gs_sum", f.sum(-1))
    rec("gs", f[:, ::257])
    f.pow(2).sum().backward()
    rec("g_vol", vol.grad.sum((2, 3, 4)))
    rec("g_vol_px", vol.grad[0, 0, ::7, ::7, ::7])
    tv = lib.diff(vol, dim=2).pow(2).mean() + lib.diff(vol, dim=3).abs().mean()
    rec("tv", tv)
    hist = lib.histc(depth.detach(), bins=16, min=2.0, max=6.0)
    rec("hist", hist)
    q = lib.quantile(depth.detach(), lib.tensor([0.05, 0.5, 0.95], dtype=dt))
    rec("quantile", q)
    u, cnt = lib.unique((depth.detach() * 4).floor(), return_counts=True)
    rec("unique", u)
    rec("counts", cnt)


def p_ngp_custom(lib, dt, rec):
    """torch-ngp's and NeuS's idioms: custom Functions (trunc_exp with custom_fwd/custom_bwd),
    the old weight_norm, gradient hooks, checkpointed chunks, warm-up schedules, a state-dict
    round trip."""
    import io

    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(34)

    class TruncExp(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", cast_inputs=lib.float32)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return lib.exp(x)

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * lib.exp(x.clamp(-15, 15))

    trunc_exp = TruncExp.apply

    class NearFar(lib.autograd.Function):
        @staticmethod
        def forward(ctx, rays_o, rays_d, aabb, min_near):
            inv = 1.0 / rays_d
            t0, t1 = (aabb[:3] - rays_o) * inv, (aabb[3:] - rays_o) * inv
            near = lib.minimum(t0, t1).amax(-1).clamp(min=min_near)
            far = lib.maximum(t0, t1).amin(-1)
            ctx.mark_non_differentiable(near, far)
            return near, far

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, gn, gf):
            return None, None, None, None

    x = lib.randn(6, dtype=dt, requires_grad=True) * 10
    y = trunc_exp(x)
    rec("y", y)
    rec("y.dtype2", str(y.dtype))
    y.sum().backward()
    rec("g", x.grad if x.grad is not None else lib.zeros(1))
    ro = lib.zeros(4, 3, dtype=dt)
    rd = F.normalize(lib.randn(4, 3, dtype=dt), dim=-1).requires_grad_()
    near, far = NearFar.apply(ro, rd, lib.tensor([-1, -1, -1, 1, 1, 1.0], dtype=dt), 0.05)
    rec("near", near)
    rec("far", far)
    rec("nf_rg", str((near.requires_grad, far.requires_grad)))
    # the old weight_norm (NeuS's SDFNetwork) and its state-dict keys
    lin = nn.Linear(3, 4).to(dt)
    lin = rec.warns("wn_warn", lambda: nn.utils.weight_norm(lin))
    rec("wn_keys", str(sorted(lin.state_dict().keys())))
    rec("wn_g", lin.weight_g)
    pts = lib.randn(5, 3, dtype=dt, requires_grad=True)
    out = F.softplus(lin(pts), beta=100).sum()
    (gp,) = lib.autograd.grad(out, pts, create_graph=True)
    gp.pow(2).sum().backward()
    rec("wn_gg", lin.weight_g.grad)
    rec("wn_gv", lin.weight_v.grad)
    # a hook that clips the gradient reaching the density
    sig = lib.randn(3, 4, dtype=dt, requires_grad=True)
    h = sig.register_hook(lambda g: g.clamp(-0.1, 0.1))
    (lib.exp(sig) * 3).sum().backward()
    rec("hooked", sig.grad)
    h.remove()
    # checkpointed chunked rendering
    mlp = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 4)).to(dt)
    pts = lib.randn(32, 3, dtype=dt)
    outs = [lib.utils.checkpoint.checkpoint(mlp, c, use_reentrant=False) for c in pts.split(8)]
    lib.cat(outs).pow(2).sum().backward()
    g_ck = [p.grad.clone() for p in mlp.parameters()]
    mlp.zero_grad()
    mlp(pts).pow(2).sum().backward()
    rec(
        "ckpt_same",
        str(
            [
                bool((a - p.grad).abs().max() < 1e-6)
                for a, p in zip(g_ck, mlp.parameters(), strict=True)
            ]
        ),
    )
    rec("ckpt_g", g_ck[0])
    # schedules: NeuS warm-up cosine by LambdaLR, instant-NGP's exponential decay, MultiStep
    opt = lib.optim.AdamW(mlp.parameters(), lr=5e-4, weight_decay=1e-2)
    warm, total = 3, 10

    def lam(it):
        if it < warm:
            return it / warm
        prog = (it - warm) / (total - warm)
        return (math.cos(prog * math.pi) + 1.0) * 0.5 * (1 - 0.05) + 0.05

    sched = lib.optim.lr_scheduler.LambdaLR(opt, lam)
    lrs = []
    for _ in range(6):
        opt.zero_grad()
        mlp(pts).pow(2).mean().backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    rec("lambda_lrs", lrs)
    opt2 = lib.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    ms = lib.optim.lr_scheduler.MultiStepLR(opt2, milestones=[2, 4], gamma=0.33)
    ex = lib.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.1 ** (1 / 10))
    lrs2 = []
    for _ in range(5):
        opt2.step()
        ms.step()
        ex.step()
        lrs2.append(opt2.param_groups[0]["lr"])
    rec("chained_lrs", lrs2)
    rec.params("mlp", mlp)
    # state-dict round trip (with the optimizer)
    buf = io.BytesIO()
    lib.save(
        {
            "model": mlp.state_dict(),
            "opt": opt.state_dict(),
            "step": 6,
            "aabb": lib.ones(6, dtype=dt)[::2],
        },
        buf,
    )
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("ck_keys", str(sorted(ck)))
    rec("ck_aabb", ck["aabb"])
    rec("ck_aabb_stride", str(ck["aabb"].stride()))
    mlp2 = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 4)).to(dt)
    rec("load_res", str(mlp2.load_state_dict(ck["model"])))
    opt3 = lib.optim.AdamW(mlp2.parameters(), lr=1.0)
    opt3.load_state_dict(ck["opt"])
    rec("opt3_lr", opt3.param_groups[0]["lr"])
    rec("opt3_state", opt3.state[next(iter(mlp2.parameters()))]["exp_avg_sq"])
    rec.err("strict_load", lambda: mlp2.load_state_dict({"0.weight": lib.zeros(16, 3, dtype=dt)}))
    rec(
        "nonstrict",
        str(mlp2.load_state_dict({"0.weight": lib.zeros(16, 3, dtype=dt)}, strict=False)),
    )


def p_default_dtype(lib, dt, rec):
    """The original NeRF code's set_default_tensor_type (and set_default_dtype): every factory,
    module and literal follows the default without a dtype= anywhere."""
    nn, F = lib.nn, lib.nn.functional
    old = lib.get_default_dtype()
    name = "torch.DoubleTensor" if dt is lib.float64 else "torch.FloatTensor"
    with warnings.catch_warnings():  # its deprecation warning is given once per process (by
        warnings.simplefilter("ignore")  # both libraries): which test meets it first is order
        lib.set_default_tensor_type(name)
    try:
        lib.manual_seed(35)
        rec("dd", str(lib.get_default_dtype()))
        made = {
            "tensor": lib.tensor([1.0, 2.0]),
            "tensor_int_float": lib.tensor([1, 2.5]),
            "linspace": lib.linspace(0, 1, 3),
            "logspace": lib.logspace(0, 1, 3),
            "arange_f": lib.arange(0, 1, 0.25),
            "arange_i": lib.arange(3),
            "full": lib.full((2,), 1.5),
            "zeros": lib.zeros(2),
            "rand": lib.rand(2),
            "randn": lib.randn(2),
            "eye": lib.eye(2),
            "empty_like": lib.empty_like(lib.zeros(2)),
            "Tensor": lib.Tensor([1, 2]),
            "FloatTensor": lib.FloatTensor([1, 2]),
            "from_list_div": lib.tensor([1, 2]) / 2,
            "scalar_mul": lib.tensor([1, 2]) * 0.5,
            "sqrt_int": lib.sqrt(lib.tensor([4])),
            "mean_int": lib.tensor([1, 2]).float().mean(),
            "where_scalar": lib.where(lib.tensor([True, False]), 1.0, 0.0),
            "hann": lib.hann_window(4),
            "normal": lib.normal(0.0, 1.0, (2,)),
            "quasi": lib.quasirandom.SobolEngine(2, scramble=True, seed=3).draw(2),
        }
        for k, v in made.items():
            rec("dtype." + k, str(v.dtype))
        lin = nn.Linear(3, 4)
        emb = nn.Embedding(5, 2)
        rec("lin_dtype", str(lin.weight.dtype))
        rec("emb_dtype", str(emb.weight.dtype))
        rec("lin_w", lin.weight)
        H, W, focal = 3, 4, 2.0
        i, j = lib.meshgrid(lib.linspace(0, W - 1, W), lib.linspace(0, H - 1, H), indexing="xy")
        dirs = lib.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -lib.ones_like(i)], -1)
        rec("dirs", dirs)
        z = lib.linspace(2.0, 6.0, 5)
        w = F.softmax(lib.randn(H * W, 5), -1)
        s, _ = _sample_pdf(lib, 0.5 * (z[1:] + z[:-1]).expand(H * W, 4), w[:, 1:-1], 4, det=True)
        rec("s", s)
        rec("s.dtype2", str(s.dtype))
        rec("pi", lib.tensor(math.pi) * 2)
        rec("int_div", lib.tensor(3) / lib.tensor(2))
        rec("true_div_scalar", lib.true_divide(lib.tensor([3]), 2))
        rec("np_in", lib.tensor(np.array([0.1, 0.2], dtype=np.float32)))
        rec("np_64", lib.as_tensor(np.array([0.1, 0.2])))
        rec("pyfloat", lib.tensor(0.1))
    finally:
        lib.set_default_dtype(old)
    rec("restored", str(lib.get_default_dtype()))


def p_inplace_graph(lib, dt, rec):
    """In-place updates inside the graph, as rendering loops write them: masked march steps on
    tensors that require grad, slices assigned from network outputs, clamp_/add_ on non-leaves,
    and an in-place change of a saved tensor caught at backward."""
    nn = lib.nn
    lib.manual_seed(36)
    net = nn.Sequential(nn.Linear(3, 16), nn.Softplus(beta=10), nn.Linear(16, 1)).to(dt)
    R = 6
    o = lib.randn(R, 3, dtype=dt) * 0.1 + lib.tensor([0, 0, -2.0], dtype=dt)
    d = lib.nn.functional.normalize(
        lib.randn(R, 3, dtype=dt) * 0.1 + lib.tensor([0, 0, 1.0], dtype=dt), dim=-1
    )
    t = lib.zeros(R, dtype=dt)
    active = lib.ones(R, dtype=lib.bool)
    for step in range(5):
        p = o[active] + t[active, None] * d[active]
        s = net(p).squeeze(-1) + 1.5
        t = t.clone()
        t[active] = t[active] + s.abs() * 0.5
        active = active.clone()
        active[active.clone()] = s.abs() > 0.05
        rec(f"t{step}", t)
    t.sum().backward()
    rec.params("net", net, grads=True)
    # slices written from different outputs, then used
    feat = lib.zeros(R, 4, dtype=dt)
    a = lib.randn(R, 2, dtype=dt, requires_grad=True)
    b = lib.randn(R, dtype=dt, requires_grad=True)
    feat[:, :2] = a.tanh()
    feat[:, 2] = b.sigmoid()
    feat[::2, 3] = b[::2] ** 2
    feat.clamp_(max=0.9)
    feat.add_(0.1)
    feat[feat > 0.8] *= 2
    rec("feat", feat)
    rec("feat_fn", str(type(feat.grad_fn).__name__))
    (feat * lib.arange(4, dtype=dt)).sum().backward()
    rec("ga", a.grad)
    rec("gb", b.grad)
    # the mistake: a saved tensor modified in place
    x = lib.randn(3, dtype=dt, requires_grad=True)

    def bad():
        y = lib.sigmoid(x)
        z = y * 2
        y.mul_(3)
        z.sum().backward()
        return y

    rec.err("sigmoid_saved", bad)

    def bad2():
        y = x.exp()
        y[0] = 0.0
        y.sum().backward()

    rec.err("exp_saved", bad2)

    def ok():
        y = x * 2
        y[0] = 0.0
        y.sum().backward()
        return x.grad

    rec("ok_grad", rec.err("ok", ok))
    # a leaf's .data written by a projection step (as pose refinement often does)
    q = lib.randn(4, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([q], lr=0.1)
    for _ in range(3):
        loss = (q - lib.tensor([1.0, 0.0, 0.0, 0.0], dtype=dt)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        q.data = q.data / q.data.norm()
        rec("q", q)
    with lib.no_grad():
        q.div_(2).clamp_(min=0)
    rec("q_nograd", q)
    rec("q_version", str(q._version))
    rec(
        "lerp_w",
        lib.lerp(
            lib.zeros(3, dtype=dt),
            lib.ones(3, dtype=dt),
            lib.tensor(0.3, dtype=dt, requires_grad=True),
        ),
    )
    w0 = lib.tensor(0.3, dtype=dt, requires_grad=True)
    lib.where(lib.tensor([True, False, True]), w0, lib.zeros(3, dtype=dt)).sum().backward()
    rec("g_w0", w0.grad)


def p_tile_binning(lib, dt, rec):
    """gsplat-style tile binning: each Gaussian's tile range, duplicated per tile, keys of tile
    id and depth bits (float32 viewed as int32) sorted, per-tile ranges by searchsorted."""
    lib.manual_seed(37)
    N, W, H, tile = 7, 32, 16, 8
    tw, th = W // tile, H // tile
    mean2d = lib.rand(N, 2, dtype=dt) * lib.tensor([W, H], dtype=dt)
    radius = (lib.rand(N, dtype=dt) * 10).ceil()
    depth = (lib.rand(N, dtype=dt) * 5 + 0.5).float()
    depth[2] = depth[5]
    tmin = ((mean2d - radius[:, None]) / tile).floor().long()
    tmax = ((mean2d + radius[:, None]) / tile).ceil().long()
    tmin = lib.stack([tmin[:, 0].clamp(0, tw), tmin[:, 1].clamp(0, th)], -1)
    tmax = lib.stack([tmax[:, 0].clamp(0, tw), tmax[:, 1].clamp(0, th)], -1)
    ntiles = (tmax - tmin).prod(-1)
    rec("ntiles", ntiles)
    gid = lib.repeat_interleave(lib.arange(N), ntiles)
    start = lib.cumsum(ntiles, 0) - ntiles
    local = lib.arange(int(ntiles.sum())) - start[gid]
    span_x = (tmax - tmin)[gid, 0]
    tx = tmin[gid, 0] + local % span_x
    ty = tmin[gid, 1] + local // span_x
    tile_id = ty * tw + tx
    depth_bits = depth.view(lib.int32)[gid].to(lib.int64)
    key = (tile_id << 32) | (depth_bits & 0xFFFFFFFF)
    rec("key", key)
    order = lib.argsort(key, stable=True)
    sorted_keys = key[order]
    rec("order", order)
    tiles_sorted = sorted_keys >> 32
    bounds = lib.searchsorted(tiles_sorted, lib.arange(tw * th + 1))
    rec("bounds", bounds)
    ranges = lib.stack([bounds[:-1], bounds[1:]], -1)
    rec("ranges", ranges)
    u, c = lib.unique_consecutive(tiles_sorted, return_counts=True)
    rec("uc", lib.stack([u, c]))
    rec("depth_back", (sorted_keys & 0xFFFFFFFF).to(lib.int32).view(lib.float32))
    rec("per_tile_first", gid[order][bounds[:-1].clamp(max=len(order) - 1)])
    rec("bincount", lib.bincount(tile_id, minlength=tw * th))
    rec("i32_bits", lib.tensor([1.0, -2.0, 0.5], dtype=lib.float32).view(lib.int32))
    rec("f64_bits", lib.tensor([1.0, -2.0], dtype=lib.float64).view(lib.int64))
    rec("f64_as_i32", lib.tensor([1.0, -2.0], dtype=lib.float64).view(lib.int32))
    rec("u8_bits", lib.tensor([1.0], dtype=lib.float32).view(lib.uint8))


def p_multiview_warp(lib, dt, rec):
    """Depth-based warping between cameras: batched 4x4 inverses, homogeneous coordinates by
    F.pad, reprojection, sampling the source view by grid_sample, photometric loss with a
    validity mask, and its gradients with respect to depth and pose."""
    F = lib.nn.functional
    lib.manual_seed(38)
    B, H, W = 2, 6, 8
    K = lib.tensor([[6.0, 0, W / 2], [0, 6.0, H / 2], [0, 0, 1]], dtype=dt).expand(B, 3, 3)
    ang = lib.tensor([0.05, -0.08], dtype=dt)
    c, s = lib.cos(ang), lib.sin(ang)
    zero, one = lib.zeros_like(c), lib.ones_like(c)
    Rm = lib.stack([c, zero, s, zero, one, zero, -s, zero, c], -1).view(B, 3, 3)
    tvec = lib.tensor([[0.1, 0.0, 0.0], [-0.05, 0.02, 0.1]], dtype=dt).requires_grad_()
    T = lib.cat(
        [
            lib.cat([Rm, tvec[..., None]], -1),
            lib.tensor([[[0, 0, 0, 1.0]]], dtype=dt).expand(B, 1, 4),
        ],
        1,
    )
    Tinv = lib.linalg.inv(T)
    rec("Tinv", Tinv)
    rec("T_Tinv", T @ Tinv)
    rec("inverse_alias", lib.inverse(T.detach()) - Tinv.detach())
    depth = (lib.rand(B, 1, H, W, dtype=dt) * 2 + 1).requires_grad_()
    ys, xs = lib.meshgrid(lib.arange(H, dtype=dt), lib.arange(W, dtype=dt), indexing="ij")
    pix = lib.stack([xs, ys, lib.ones_like(xs)], 0).view(1, 3, -1).expand(B, 3, H * W)
    cam = lib.linalg.solve(K, pix) * depth.view(B, 1, -1)
    cam_h = F.pad(cam, (0, 0, 0, 1), value=1.0)
    rec("cam_h_last", cam_h[:, 3])
    proj = (T @ cam_h)[:, :3]
    uvz = K @ proj
    uv = uvz[:, :2] / uvz[:, 2:].clamp(min=1e-6)
    gx = 2 * uv[:, 0] / (W - 1) - 1
    gy = 2 * uv[:, 1] / (H - 1) - 1
    grid = lib.stack([gx, gy], -1).view(B, H, W, 2)
    src = lib.rand(B, 3, H, W, dtype=dt)
    tgt = lib.rand(B, 3, H, W, dtype=dt)
    warped = F.grid_sample(src, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    valid = ((grid.abs() <= 1).all(-1)).unsqueeze(1).to(dt)
    rec("valid", valid.sum((1, 2, 3)))
    diff = (warped - tgt).abs() * valid
    loss = diff.sum() / valid.sum().clamp(min=1)
    rec("loss", loss)
    loss.backward()
    rec("g_depth", depth.grad)
    rec("g_t", tvec.grad)
    # SSIM-free edge-aware smoothness of the inverse depth
    disp = 1 / depth.detach()
    mean_disp = disp.mean(2, True).mean(3, True)
    nd = disp / (mean_disp + 1e-7)
    gdx = (nd[:, :, :, :-1] - nd[:, :, :, 1:]).abs()
    gdy = (nd[:, :, :-1, :] - nd[:, :, 1:, :]).abs()
    gix = (tgt[:, :, :, :-1] - tgt[:, :, :, 1:]).abs().mean(1, keepdim=True)
    giy = (tgt[:, :, :-1, :] - tgt[:, :, 1:, :]).abs().mean(1, keepdim=True)
    smooth = (gdx * lib.exp(-gix)).mean() + (gdy * lib.exp(-giy)).mean()
    rec("smooth", smooth)
    # min-reprojection over two sources with argmin (Monodepth2's auto-masking)
    e2 = lib.stack([diff.mean(1), (src - tgt).abs().mean(1)], 1)
    m, idx = lib.min(e2, dim=1)
    rec("min_e", m)
    rec("min_idx", idx)


def _sqrt_positive_part(lib, x):
    ret = lib.zeros_like(x)
    positive = x > 0
    ret[positive] = lib.sqrt(x[positive])
    return ret


def _matrix_to_quaternion(lib, m):
    F = lib.nn.functional
    batch = m.shape[:-2]
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = lib.unbind(m.reshape(batch + (9,)), dim=-1)
    q_abs = _sqrt_positive_part(
        lib,
        lib.stack(
            [1.0 + m00 + m11 + m22, 1.0 + m00 - m11 - m22, 1.0 - m00 + m11 - m22,
             1.0 - m00 - m11 + m22],
            dim=-1,
        ),
    )  # fmt: skip
    cands = lib.stack(
        [
            lib.stack([q_abs[..., 0] ** 2, m21 - m12, m02 - m20, m10 - m01], dim=-1),
            lib.stack([m21 - m12, q_abs[..., 1] ** 2, m10 + m01, m02 + m20], dim=-1),
            lib.stack([m02 - m20, m10 + m01, q_abs[..., 2] ** 2, m12 + m21], dim=-1),
            lib.stack([m10 - m01, m20 + m02, m21 + m12, q_abs[..., 3] ** 2], dim=-1),
        ],
        dim=-2,
    )
    flr = lib.tensor(0.1).to(dtype=q_abs.dtype, device=q_abs.device)
    cands = cands / (2.0 * q_abs[..., None].max(flr))
    out = cands[F.one_hot(q_abs.argmax(dim=-1), num_classes=4) > 0.5, :].reshape(batch + (4,))
    return lib.where(out[..., 0:1] < 0, -out, out)


def _axis_angle_to_quaternion(lib, aa):
    angles = lib.norm(aa, p=2, dim=-1, keepdim=True)
    half = angles * 0.5
    eps = 1e-6
    small = angles.abs() < eps
    sin_half_over = lib.empty_like(angles)
    sin_half_over[~small] = lib.sin(half[~small]) / angles[~small]
    sin_half_over[small] = 0.5 - (angles[small] * angles[small]) / 48
    return lib.cat([lib.cos(half), aa * sin_half_over], dim=-1)


def _quat_mul(lib, a, b):
    aw, ax, ay, az = lib.unbind(a, -1)
    bw, bx, by, bz = lib.unbind(b, -1)
    return lib.stack(
        [aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
         aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw],
        -1,
    )  # fmt: skip


def p_rotations(lib, dt, rec):
    """pytorch3d's rotation conversions written out: matrix -> quaternion by the candidate with
    the largest magnitude (one_hot mask indexing), axis-angle with a small-angle branch written
    by masked assignment, quaternion products and SO(3) log; values and gradients."""
    lib.manual_seed(39)
    aa = lib.randn(6, 3, dtype=dt)
    aa[0] = 0.0
    aa[1] = lib.tensor([1e-8, 0.0, 0.0], dtype=dt)
    aa[2] = lib.tensor([math.pi - 1e-3, 0.0, 0.0], dtype=dt)
    aa.requires_grad_()
    q = _axis_angle_to_quaternion(lib, aa)
    rec("q", q)
    Rm = _quat_to_rot(lib, q)
    rec("R", Rm)
    q2 = _matrix_to_quaternion(lib, Rm)
    rec("q2", q2)
    rec("q_std", lib.where(q[..., 0:1] < 0, -q, q))
    (q2 * lib.arange(1, 5, dtype=dt)).sum().backward()
    rec("g_aa", aa.grad)
    qa, qb = q.detach()[3:], lib.nn.functional.normalize(lib.randn(3, 4, dtype=dt), dim=-1)
    qm = _quat_mul(lib, qa, qb)
    rec("qmul", qm)
    rec("qmul_R", _quat_to_rot(lib, qm) - _quat_to_rot(lib, qa) @ _quat_to_rot(lib, qb))
    # SO(3) log by acos of the trace, with the axis from the skew part
    Rd = Rm.detach()[3:].requires_grad_()
    cos = ((lib.diagonal(Rd, dim1=-2, dim2=-1).sum(-1) - 1) * 0.5).clamp(-1 + 1e-7, 1 - 1e-7)
    ang = lib.acos(cos)
    skew = lib.stack(
        [Rd[:, 2, 1] - Rd[:, 1, 2], Rd[:, 0, 2] - Rd[:, 2, 0], Rd[:, 1, 0] - Rd[:, 0, 1]], -1
    )
    log = skew * (ang / (2 * lib.sin(ang)))[:, None]
    rec("log", log)
    rec("log_vs_aa", log - aa.detach()[3:])
    log.sum().backward()
    rec("g_R", Rd.grad)
    # the one_hot mask index and its forms
    oh = lib.nn.functional.one_hot(lib.tensor([2, 0, 3]), num_classes=4)
    rec("oh", oh)
    rec("oh_dtype", str(oh.dtype))
    rec("masked_rows", lib.arange(12, dtype=dt).view(3, 4)[oh > 0])
    rec.err("oh_small", lambda: lib.nn.functional.one_hot(lib.tensor([4]), num_classes=4))
    rec.err("oh_float", lambda: lib.nn.functional.one_hot(lib.tensor([1.0]), num_classes=4))
    rec("max_flr", lib.tensor([0.05, 0.3], dtype=dt).max(lib.tensor(0.1, dtype=dt)))
