"""Session 37 (helper nerf): NeRF-style volume rendering written the way such code is written in
torch (nerf-pytorch, mip-NeRF, NeuS/VolSDF, instant-ngp, TensoRF, nerfacc), run under torch and
minitorch with the same seeds and compared record by record: ray generation from intrinsics and
camera-to-world poses with meshgrid 'ij' (transposed) and 'xy', normalised directions, NDC rays,
look-at/spiral/recentred poses and projection back to pixels, mip-NeRF pixel radii; stratified
sampling (linspace, seeded and global torch.rand/rand_like jitter, lindisp, per-ray near/far,
lerp), scene contraction, ray-box intersection with inf/NaN slabs; positional encoding (the
Embedder's lambdas, the vectorised form, stacked sin/cos), integrated positional encoding and
conical-frustum moments, spherical harmonics, a hash-grid encoding (wrapping int64 products,
xor, modulo, shifts, trilinear weights, duplicate-index gradients into the table); the NeRF MLP
with skip connections by cat and a view-direction branch, chunked evaluation, coarse + fine
training with Adam and an exponential schedule; alpha compositing (1 - exp(-relu(sigma) * delta),
transmittance by cumprod with the exclusive shift by cat of ones, by exp of an exclusive cumsum,
by roll and by F.pad), weights, rgb/depth/disparity/accuracy maps, raw noise, white backgrounds;
cumprod with zeros (opaque samples, sigma = inf) and its first and second derivatives, out=,
dtype= and in-place spellings; hierarchical sampling by inverse CDF (cumsum, searchsorted with
right=True, clamps, gather of expanded cdf/bins, the denominator guard) with gradients to bins
and weights, merged samples sorted and features gathered along the order; searchsorted and
bucketize variants (side, sorter, out_int32, out=, scalars, exact boundary hits, strided
inputs); packed (nerfacc-style) rendering by repeat_interleave, index_add/scatter_add/
scatter_reduce, segment_reduce, unique_consecutive; occupancy grids (index_reduce amax, EMA,
Morton codes); TensoRF planes/lines by grid_sample in a ParameterList, upsampled by interpolate;
a VolSDF density, NeuS's SDF network with create_graph normals, the eikonal loss and the
logistic-CDF alpha, Ref-NeRF's orientation loss; distortion and interlevel losses; trunc_exp as
a custom Function with amp.custom_fwd/custom_bwd; torch.func (vmap, grad, jacrev, jacfwd,
hessian, functional_call); MSE, PSNR by log10 and by log / log(Tensor([10.])), to8b;
importance sampling by multinomial, quantiles, trapezoid, medians; checkpoints (save/load of
model and Adam state, load_state_dict errors), inference_mode, clip_grad_norm_, init with
generators; set_default_tensor_type as nerf-pytorch calls it; NaN from empty rays under
detect_anomaly; CPU autocast (bfloat16, float16) of the MLP and the rendering ops; the
autograd graphs (node names over next_functions) of a render, sample_pdf and the encodings;
gradcheck/gradgradcheck of cumprod at zeros, the renderer, sample_pdf, gather, sort; and
argument-error sweeps of the ops above. float64 must agree to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly.

Found and fixed:
- set_default_tensor_type(name) took the text after the last dot as a name of minitorch (or
  of minitorch.cuda): "float" gave the "invalid type object" TypeError, "" and "torch.nn.Linear"
  an AttributeError, "torch..FloatTensor" set float32; torch's _import_dotted_name imports the
  first component and reads the rest as attributes (ModuleNotFoundError "No module named
  'float'", ValueError "Empty module name", "module 'torch' has no attribute ''", the
  TypeError for a class that is no tensor type).

Known and left (documented):
- cumprod's double backward of a row holding both zeros and infinities (e.g. [0, 0, inf, 0.3])
  puts NaN at other places than torch's (torch: all NaN, here NaN up to the inf); cumprod
  inputs in rendering are 1 - alpha in [0, 1], so the programs do not record it.
- A second derivative torch returns as a ZeroTensor (e.g. of relu, abs, the inf-norm) is a
  plain zero tensor here; torch's refuses .numpy() ("Cannot convert a ZeroTensor to numpy").
- A basic index over several dims (c2w[:3, :3], c2w[:3, 3]) is one node here
  (SliceBackward0/SelectBackward0, named after the last view op); torch chains one view node
  per indexed dim (SliceBackward0 <- SliceBackward0), so a walk over next_functions sees fewer
  nodes. Kept one node for the indexing fast path; the graph records index one dim only.
- NumPy's float32 log10 can be an ulp off torch's (-10 * log10(1e-12) prints 120.0000076294
  at precision 10); the programs compare float32 values with tolerances.
- Complex inputs (searchsorted of complex64, linspace(1j, 2, 3)) are not supported here.
- Not recorded as platform noise: set_default_tensor_type's deprecation warning and
  searchsorted's non-contiguous warnings (once per process), torch.Tensor(3)'s uninitialised
  values, allclose of chunked vs whole float32 matmuls (rounding at atol 1e-8), float32
  results in the float64 programs (the PSNR by log(Tensor([10.])), log10 of ints, autocast
  casts) and det=True sample indices (u hits cdf values up to rounding).
- The records run on the CPU only; tests/test_s37_nerf.py runs a render step on the strict
  test device; CuPy is not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "rays_xy", "rays_ij", "ndc", "stratified", "lindisp", "posenc", "raw2outputs",
    "cumprod_zeros", "sample_pdf", "hierarchical", "psnr", "mlp_skip", "train_tiny",
    "batchify", "aabb", "distortion", "ipe", "sh_eval", "density_grid", "searchsorted_var",
    "errors", "gradcheck", "white_bkgd", "transmittance_spellings", "gather_sort", "hash_grid",
    "packed", "trunc_exp", "neus", "volsdf", "importance", "checkpoint", "default_type",
    "cameras", "occupancy", "tensorf", "func_transforms", "anomaly_nan", "autocast",
    "graph_names", "dvgo",
]  # fmt: skip


CALLS = ["render_ops", "out_inplace", "user_mistakes"]
TOL = {"autocast": 1e-2}  # bfloat16/float16 values (dtypes exact)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt, tol=TOL.get(name))


@pytest.mark.parametrize("name", CALLS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["c_" + name], torch)


# --- helpers: the pieces of a NeRF as nerf-pytorch and its descendants write them ---


def _intrinsics(lib, dt, h, w, focal):
    return lib.tensor([[focal, 0.0, 0.5 * w], [0.0, focal, 0.5 * h], [0.0, 0.0, 1.0]], dtype=dt)


def _pose(lib, dt, theta, phi, radius):
    """A camera-to-world matrix looking at the origin (nerf-pytorch's pose_spherical)."""
    trans = lib.eye(4, dtype=dt)
    trans[2, 3] = radius
    c, s = math.cos(phi), math.sin(phi)
    rot_phi = lib.tensor([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]], dtype=dt)
    c, s = math.cos(theta), math.sin(theta)
    rot_theta = lib.tensor([[c, 0, -s, 0], [0, 1, 0, 0], [s, 0, c, 0], [0, 0, 0, 1]], dtype=dt)
    flip = lib.tensor([[-1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=dt)
    return flip @ rot_theta @ rot_phi @ trans


def _get_rays(lib, h, w, K, c2w):
    """nerf-pytorch's get_rays: meshgrid 'ij' then transposed."""
    i, j = lib.meshgrid(
        lib.linspace(0, w - 1, w, dtype=K.dtype),
        lib.linspace(0, h - 1, h, dtype=K.dtype),
        indexing="ij",
    )
    i, j = i.t(), j.t()
    dirs = lib.stack([(i - K[0][2]) / K[0][0], -(j - K[1][2]) / K[1][1], -lib.ones_like(i)], -1)
    rays_d = lib.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


def _get_rays_xy(lib, h, w, K, c2w):
    """The 'xy' spelling with pixel centres and matmul by the rotation's transpose."""
    xs = lib.arange(w, dtype=K.dtype) + 0.5
    ys = lib.arange(h, dtype=K.dtype) + 0.5
    u, v = lib.meshgrid(xs, ys, indexing="xy")
    pix = lib.stack([u, v, lib.ones_like(u)], dim=-1)  # (h, w, 3)
    dirs = pix @ lib.linalg.inv(K).T
    dirs = dirs * lib.tensor([1.0, -1.0, -1.0], dtype=K.dtype)
    rays_d = dirs @ c2w[:3, :3].T
    rays_d = rays_d / lib.linalg.norm(rays_d, dim=-1, keepdim=True)
    rays_o = c2w[:3, 3].broadcast_to(rays_d.shape)
    return rays_o, rays_d


def _ndc_rays(lib, h, w, focal, near, rays_o, rays_d):
    t = -(near + rays_o[..., 2]) / rays_d[..., 2]
    rays_o = rays_o + t[..., None] * rays_d
    o0 = -1.0 / (w / (2.0 * focal)) * rays_o[..., 0] / rays_o[..., 2]
    o1 = -1.0 / (h / (2.0 * focal)) * rays_o[..., 1] / rays_o[..., 2]
    o2 = 1.0 + 2.0 * near / rays_o[..., 2]
    d0 = (
        -1.0
        / (w / (2.0 * focal))
        * (rays_d[..., 0] / rays_d[..., 2] - rays_o[..., 0] / rays_o[..., 2])
    )
    d1 = (
        -1.0
        / (h / (2.0 * focal))
        * (rays_d[..., 1] / rays_d[..., 2] - rays_o[..., 1] / rays_o[..., 2])
    )
    d2 = -2.0 * near / rays_o[..., 2]
    return lib.stack([o0, o1, o2], -1), lib.stack([d0, d1, d2], -1)


def _stratified(lib, near, far, n_rays, n_samples, dt, gen=None, lindisp=False, perturb=True):
    t_vals = lib.linspace(0.0, 1.0, steps=n_samples, dtype=dt)
    near = near * lib.ones(n_rays, 1, dtype=dt)
    far = far * lib.ones(n_rays, 1, dtype=dt)
    if not lindisp:
        z_vals = near * (1.0 - t_vals) + far * t_vals
    else:
        z_vals = 1.0 / (1.0 / near * (1.0 - t_vals) + 1.0 / far * t_vals)
    z_vals = z_vals.expand([n_rays, n_samples])
    if perturb:
        mids = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = lib.cat([mids, z_vals[..., -1:]], -1)
        lower = lib.cat([z_vals[..., :1], mids], -1)
        t_rand = lib.rand(z_vals.shape, generator=gen, dtype=dt)
        z_vals = lower + (upper - lower) * t_rand
    return z_vals


class _Embedder:
    """nerf-pytorch's Embedder: identity plus sin/cos of 2^k x."""

    def __init__(self, lib, multires, include_input=True, log_sampling=True):
        max_freq = multires - 1
        if log_sampling:
            self.freq_bands = 2.0 ** lib.linspace(0.0, max_freq, steps=multires)
        else:
            self.freq_bands = lib.linspace(2.0**0.0, 2.0**max_freq, steps=multires)
        self.fns = [lambda x: x] if include_input else []
        for freq in self.freq_bands:
            for p_fn in (lib.sin, lib.cos):
                self.fns.append(lambda x, p_fn=p_fn, freq=freq: p_fn(x * freq))
        self.lib = lib

    def __call__(self, x):
        return self.lib.cat([fn(x) for fn in self.fns], -1)


def _posenc_vec(lib, x, n_freqs):
    """The vectorised encoding (scales by a broadcast, sin of [x, x + pi/2])."""
    scales = 2.0 ** lib.arange(n_freqs, dtype=x.dtype)
    xb = (x[..., None, :] * scales[:, None]).reshape(*x.shape[:-1], -1)
    four = lib.sin(lib.cat([xb, xb + 0.5 * math.pi], dim=-1))
    return lib.cat([x, four], dim=-1)


def _raw2outputs(lib, raw, z_vals, rays_d, raw_noise_std=0.0, white_bkgd=False, gen=None):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    big = lib.tensor([1e10], dtype=z_vals.dtype, device=z_vals.device)
    big = big.expand(dists[..., :1].shape)
    dists = lib.cat([dists, big], -1)
    dists = dists * lib.norm(rays_d[..., None, :], dim=-1)
    rgb = lib.sigmoid(raw[..., :3])
    noise = 0.0
    if raw_noise_std > 0.0:
        noise = lib.randn(raw[..., 3].shape, generator=gen, dtype=raw.dtype) * raw_noise_std
    alpha = 1.0 - lib.exp(-lib.nn.functional.relu(raw[..., 3] + noise) * dists)
    ones = lib.ones((alpha.shape[0], 1), dtype=alpha.dtype, device=alpha.device)
    trans = lib.cumprod(lib.cat([ones, 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    weights = alpha * trans
    rgb_map = lib.sum(weights[..., None] * rgb, -2)
    depth_map = lib.sum(weights * z_vals, -1)
    acc_map = lib.sum(weights, -1)
    disp_map = 1.0 / lib.max(1e-10 * lib.ones_like(depth_map), depth_map / acc_map)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def _sample_pdf(lib, bins, weights, n_samples, det=False, gen=None):
    weights = weights + 1e-5
    pdf = weights / lib.sum(weights, -1, keepdim=True)
    cdf = lib.cumsum(pdf, -1)
    cdf = lib.cat([lib.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = lib.linspace(0.0, 1.0, steps=n_samples, dtype=bins.dtype, device=bins.device)
        u = u.expand(list(cdf.shape[:-1]) + [n_samples])
    else:
        u = lib.rand(list(cdf.shape[:-1]) + [n_samples], generator=gen, dtype=bins.dtype)
        u = u.to(bins.device)
    u = u.contiguous()
    inds = lib.searchsorted(cdf, u, right=True)
    below = lib.max(lib.zeros_like(inds - 1), inds - 1)
    above = lib.min((cdf.shape[-1] - 1) * lib.ones_like(inds), inds)
    inds_g = lib.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = lib.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = lib.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = lib.where(denom < 1e-5, lib.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0]), inds


class _NeRF:
    """nerf-pytorch's NeRF MLP (a skip connection by cat, a view-direction branch)."""

    def __new__(cls, lib, D=4, W=32, input_ch=9, input_ch_views=9, skips=(2,)):
        nn = lib.nn
        F = nn.functional

        class NeRF(nn.Module):
            def __init__(self):
                super().__init__()
                self.input_ch, self.input_ch_views, self.skips = input_ch, input_ch_views, skips
                self.pts_linears = nn.ModuleList(
                    [nn.Linear(input_ch, W)]
                    + [
                        nn.Linear(W, W) if i not in skips else nn.Linear(W + input_ch, W)
                        for i in range(D - 1)
                    ]
                )
                self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + W, W // 2)])
                self.feature_linear = nn.Linear(W, W)
                self.alpha_linear = nn.Linear(W, 1)
                self.rgb_linear = nn.Linear(W // 2, 3)

            def forward(self, x):
                input_pts, input_views = lib.split(x, [self.input_ch, self.input_ch_views], dim=-1)
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

        return NeRF()


def _model(lib, dt, seed, **kw):
    lib.manual_seed(seed)
    return _NeRF(lib, **kw).to(dt)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_rays_xy(lib, dt, rec):
    h, w, focal = 4, 5, 6.0
    K = _intrinsics(lib, dt, h, w, focal)
    c2w = _pose(lib, dt, 0.4, -0.5, 4.0)
    rec("c2w", c2w)
    o, d = _get_rays_xy(lib, h, w, K, c2w)
    rec("o", o)
    rec("d", d)
    rec("norm", lib.linalg.vector_norm(d, dim=-1))
    rec("o_contig", o.is_contiguous())
    rec("o_stride", str(o.stride()))
    # F.normalize is the other spelling
    rec("normalize", lib.nn.functional.normalize(d * 3.0, dim=-1))
    # the pose as a parameter: gradients of rays through the rotation
    pose = c2w.clone().requires_grad_(True)
    o2, d2 = _get_rays_xy(lib, h, w, K, pose)
    pts = o2[..., None, :] + d2[..., None, :] * lib.linspace(2.0, 6.0, 3, dtype=dt)[:, None]
    rec("pts", pts)
    (pts.sin() * _randn(lib, dt, 1, *pts.shape)).sum().backward()
    rec("gpose", pose.grad)


def p_rays_ij(lib, dt, rec):
    h, w, focal = 3, 4, 5.0
    K = _intrinsics(lib, dt, h, w, focal)
    c2w = _pose(lib, dt, -0.8, -0.3, 3.5)
    o, d = _get_rays(lib, h, w, K, c2w)
    rec("o", o)
    rec("d", d)
    rec("d_shape", str(d.shape))
    rec("o_stride", str(o.stride()))
    # the xy meshgrid gives the same pixels as ij transposed
    i, j = lib.meshgrid(
        lib.linspace(0, w - 1, w, dtype=dt), lib.linspace(0, h - 1, h, dtype=dt), indexing="xy"
    )
    rec("i_xy", i)
    rec("j_xy", j)
    a, b = lib.meshgrid(
        lib.linspace(0, w - 1, w, dtype=dt), lib.linspace(0, h - 1, h, dtype=dt), indexing="ij"
    )
    rec("same_i", lib.equal(i, a.t()))
    rec("ij_stride", str(a.stride()))
    rec("xy_stride", str(i.stride()))
    rec("t_contig", a.t().is_contiguous())
    # a batch of rays sampled from several images (select_inds by randperm)
    rays = lib.stack([o, d], 0)  # (2, h, w, 3)
    coords = lib.stack(lib.meshgrid(lib.arange(h), lib.arange(w), indexing="ij"), -1)
    coords = lib.reshape(coords, [-1, 2])
    sel = lib.randperm(coords.shape[0], generator=_gen(lib, 2))[:5]
    sel_coords = coords[sel].long()
    rec("sel", sel_coords)
    batch = rays[:, sel_coords[:, 0], sel_coords[:, 1]]
    rec("batch", batch)
    rays_o, rays_d = batch
    viewdirs = rays_d / lib.norm(rays_d, dim=-1, keepdim=True)
    rec("viewdirs", lib.reshape(viewdirs, [-1, 3]).float())


def p_ndc(lib, dt, rec):
    h, w, focal = 4, 6, 5.0
    K = _intrinsics(lib, dt, h, w, focal)
    c2w = _pose(lib, dt, 0.2, 0.1, 2.0)
    c2w[:3, 3] = lib.tensor([0.1, -0.2, 0.3], dtype=dt)
    o, d = _get_rays(lib, h, w, K, c2w)
    d = d.clone().requires_grad_(True)
    no, nd = _ndc_rays(lib, h, w, focal, 1.0, o, d)
    rec("no", no)
    rec("nd", nd)
    (no.sum() + (nd * nd).sum()).backward()
    rec("gd", d.grad)


def p_stratified(lib, dt, rec):
    z = _stratified(lib, 2.0, 6.0, 4, 8, dt, gen=_gen(lib, 3))
    rec("z", z)
    rec("sorted", bool((z[..., 1:] >= z[..., :-1]).all()))
    z0 = _stratified(lib, 2.0, 6.0, 3, 5, dt, perturb=False)
    rec("z0", z0)
    rec("z0_stride", str(z0.stride()))
    # the global generator and torch.rand_like, as nerf-pytorch's training loop draws them
    lib.manual_seed(5)
    t_vals = lib.linspace(0.0, 1.0, steps=6, dtype=dt)
    z = 2.0 * (1.0 - t_vals) + 6.0 * t_vals
    z = z.expand([3, 6])
    mids = 0.5 * (z[..., 1:] + z[..., :-1])
    upper = lib.cat([mids, z[..., -1:]], -1)
    lower = lib.cat([z[..., :1], mids], -1)
    rec("jit", lower + (upper - lower) * lib.rand_like(z))
    rec("jit2", lower + (upper - lower) * lib.rand(z.shape, dtype=dt))
    # per-ray near and far (a tensor), linspace of tensors via a broadcast
    near = _rand(lib, dt, 4, 5, 1) + 1.0
    far = near + 3.0
    steps = lib.linspace(0, 1, 7, dtype=dt)
    rec("per_ray", near + (far - near) * steps)
    rec("lerp", lib.lerp(near, far, steps))
    # points along rays and their gradient w.r.t. the origins
    o = _randn(lib, dt, 6, 5, 3).requires_grad_(True)
    d = _randn(lib, dt, 7, 5, 3)
    pts = o[..., None, :] + d[..., None, :] * (near + (far - near) * steps)[..., :, None]
    rec("pts", pts)
    pts.norm(dim=-1).sum().backward()
    rec("go", o.grad)


def p_lindisp(lib, dt, rec):
    z = _stratified(lib, 0.5, 8.0, 3, 7, dt, lindisp=True, perturb=False)
    rec("z", z)
    z = _stratified(lib, 0.5, 8.0, 3, 7, dt, gen=_gen(lib, 8), lindisp=True)
    rec("zp", z)
    # inverse-depth spacing by reciprocal, and a mip-NeRF 360 style contraction
    s = lib.linspace(0.0, 1.0, 9, dtype=dt)
    rec("recip", lib.reciprocal(1.0 / 0.5 * (1 - s) + 1.0 / 8.0 * s))
    x = _randn(lib, dt, 9, 6, 3) * 2.0
    x.requires_grad_(True)
    mag = lib.linalg.norm(x, dim=-1, keepdim=True)
    contracted = lib.where(mag <= 1.0, x, (2.0 - 1.0 / mag) * (x / mag))
    rec("contract", contracted)
    contracted.sum().backward()
    rec("gx", x.grad)


def p_posenc(lib, dt, rec):
    lib.set_default_dtype(dt)
    try:
        emb = _Embedder(lib, 4)
        emb_lin = _Embedder(lib, 3, include_input=False, log_sampling=False)
        rec("bands", emb.freq_bands)
        rec("bands_lin", emb_lin.freq_bands)
        x = _randn(lib, dt, 10, 5, 3).requires_grad_(True)
        e = emb(x)
        rec("e", e)
        rec("e_shape", str(e.shape))
        rec("e_lin", emb_lin(x))
        v = _posenc_vec(lib, x, 4)
        rec("vec", v)
        w = _randn(lib, dt, 11, *e.shape)
        (e * w).sum().backward()
        rec("gx", x.grad)
        x.grad = None
        (v * v).sum().backward()
        rec("gx_vec", x.grad)
        # stacked sin/cos then flattened (the other ordering)
        freqs = 2.0 ** lib.arange(3, dtype=dt) * math.pi
        xf = x.detach()[..., None] * freqs
        st = lib.stack([lib.sin(xf), lib.cos(xf)], dim=-1).flatten(-3)
        rec("stacked", st)
        rec("stacked_shape", str(st.shape))
    finally:
        lib.set_default_dtype(lib.float32)


def p_raw2outputs(lib, dt, rec):
    n_rays, n_samples = 4, 8
    z = _stratified(lib, 2.0, 6.0, n_rays, n_samples, dt, gen=_gen(lib, 12))
    rays_d = _randn(lib, dt, 13, n_rays, 3)
    raw = (_randn(lib, dt, 14, n_rays, n_samples, 4) * 2.0).requires_grad_(True)
    rgb, disp, acc, weights, depth = _raw2outputs(lib, raw, z, rays_d)
    for n, v in zip(
        ("rgb", "disp", "acc", "weights", "depth"), (rgb, disp, acc, weights, depth), strict=True
    ):
        rec(n, v)
    target = _rand(lib, dt, 15, n_rays, 3)
    loss = lib.mean((rgb - target) ** 2) + 0.1 * depth.mean() + 0.01 * disp.mean()
    loss.backward()
    rec("loss", loss)
    rec("graw", raw.grad)
    rec("grad_fn", type(weights.grad_fn).__name__)
    # raw noise (a seeded generator) and the relu's zero gradient for negative densities
    raw2 = raw.detach().clone().requires_grad_(True)
    out = _raw2outputs(lib, raw2, z, rays_d, raw_noise_std=1.0, gen=_gen(lib, 16))
    rec("noisy_rgb", out[0])
    out[0].sum().backward()
    rec("graw_noise", raw2.grad)


def p_cumprod_zeros(lib, dt, rec):
    # fully opaque samples: 1 - alpha is exactly zero somewhere (one zero, two zeros, first/last)
    base = _rand(lib, dt, 17, 5, 6) * 0.9 + 0.05
    base[1, 2] = 0.0
    base[2, 0] = 0.0
    base[3, 1] = 0.0
    base[3, 4] = 0.0
    base[4, 5] = 0.0
    w = _randn(lib, dt, 18, 5, 6)
    for dim in (1, -1, 0):
        x = base.clone().requires_grad_(True)
        y = lib.cumprod(x, dim)
        rec(f"y{dim}", y)
        (y * w).sum().backward()
        rec(f"g{dim}", x.grad)
    # exclusive transmittance by the shift, gradient to alpha with opaque samples
    sigma = _rand(lib, dt, 19, 5, 6) * 3.0
    sigma[1, 2] = float("inf")  # alpha exactly one
    sigma[3, 0] = float("inf")
    sigma.requires_grad_(True)
    delta = lib.full((5, 6), 0.25, dtype=dt)
    alpha = 1.0 - lib.exp(-sigma * delta)
    rec("alpha", alpha)
    trans = lib.cumprod(lib.cat([lib.ones_like(alpha[:, :1]), 1.0 - alpha], -1), -1)[:, :-1]
    weights = alpha * trans
    rec("trans", trans)
    rec("weights", weights)
    rgb = _rand(lib, dt, 20, 5, 6, 3)
    (weights[..., None] * rgb).sum().backward()
    rec("gsigma", sigma.grad)
    # double backward through cumprod with zeros
    x = base.clone().requires_grad_(True)
    y = lib.cumprod(x, 1)
    (g,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
    rec("g1", g)
    (gg,) = lib.autograd.grad((g * g).sum(), x)
    rec("gg", gg)
    # saved attributes and an out= / dtype= spelling
    rec("saved_dim", y.grad_fn._saved_dim)
    rec("saved_self", lib.equal(y.grad_fn._saved_self, x))
    out = lib.empty(5, 6, dtype=dt)
    lib.cumprod(base, 1, out=out)
    rec("out", out)
    rec("dtype_kw", lib.cumprod(base.float(), 1, dtype=dt))
    rec("int", lib.cumprod(lib.tensor([[1, 2, 0, 3]]), 1))
    ci = base.clone()
    ci.cumprod_(1)
    rec("inplace", ci)


def p_sample_pdf(lib, dt, rec):
    n_rays, n_c, n_f = 3, 7, 9
    z = _stratified(lib, 2.0, 6.0, n_rays, n_c, dt, perturb=False)
    mids = 0.5 * (z[..., 1:] + z[..., :-1])
    w = _rand(lib, dt, 21, n_rays, n_c)
    w[1] = 0.0  # a transparent ray: uniform pdf after the 1e-5
    w[2, :3] = 0.0
    for det in (False, True):
        s, inds = _sample_pdf(lib, mids, w[..., 1:-1], n_f, det=det, gen=_gen(lib, 22))
        rec(f"s{int(det)}", s)
        if not det:  # det's u hit cdf values only up to rounding
            rec("inds", inds)
            rec("inds_dtype", str(inds.dtype))
    # gradients: to the bins through gather, none to the indices
    bins = mids.clone().requires_grad_(True)
    wt = w[..., 1:-1].clone().requires_grad_(True)
    s, inds = _sample_pdf(lib, bins, wt, n_f, gen=_gen(lib, 23))
    rec("s", s)
    rec("inds_grad", inds.requires_grad)
    (s * _randn(lib, dt, 24, *s.shape)).sum().backward()
    rec("gbins", bins.grad)
    rec("gw", wt.grad)
    # detached weights, as nerf-pytorch does
    bins.grad = None
    s, _ = _sample_pdf(lib, bins, wt.detach(), n_f, gen=_gen(lib, 23))
    s.sum().backward()
    rec("gbins_det", bins.grad)
    rec("s_grad_fn", type(s.grad_fn).__name__)


def _render(lib, model, rays_o, rays_d, near, far, n_c, n_f, gen, emb, emb_d, white=False):
    n_rays = rays_o.shape[0]
    dt = rays_o.dtype
    viewdirs = rays_d / lib.norm(rays_d, dim=-1, keepdim=True)
    z = _stratified(lib, near, far, n_rays, n_c, dt, gen=gen)

    def run(z_vals):
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
        flat = lib.reshape(pts, [-1, pts.shape[-1]])
        dirs = viewdirs[:, None].expand(pts.shape)
        dirs = lib.reshape(dirs, [-1, dirs.shape[-1]])
        raw = model(lib.cat([emb(flat), emb_d(dirs)], -1))
        raw = lib.reshape(raw, list(pts.shape[:-1]) + [raw.shape[-1]])
        return _raw2outputs(lib, raw, z_vals, rays_d, white_bkgd=white)

    rgb0, disp0, acc0, weights, _ = run(z)
    z_mid = 0.5 * (z[..., 1:] + z[..., :-1])
    z_s, _ = _sample_pdf(lib, z_mid, weights[..., 1:-1], n_f, gen=gen)
    z_s = z_s.detach()
    z_all, _ = lib.sort(lib.cat([z, z_s], -1), -1)
    rgb, disp, acc, _, depth = run(z_all)
    return rgb0, rgb, disp, acc, depth, z_all


def p_hierarchical(lib, dt, rec):
    model = _model(lib, dt, 30, input_ch=9, input_ch_views=9)
    emb = _Embedder(lib, 1)
    emb_d = _Embedder(lib, 1)
    o = _randn(lib, dt, 31, 4, 3) * 0.1
    d = _randn(lib, dt, 32, 4, 3)
    d[:, 2] = -2.0
    out = _render(lib, model, o, d, 1.0, 4.0, 6, 8, _gen(lib, 33), emb, emb_d)
    for n, v in zip(("rgb0", "rgb", "disp", "acc", "depth", "z_all"), out, strict=True):
        rec(n, v)
    rec("z_sorted", bool((out[-1][..., 1:] >= out[-1][..., :-1]).all()))
    loss = ((out[0] - 0.5) ** 2).mean() + ((out[1] - 0.5) ** 2).mean()
    loss.backward()
    rec("loss", loss)
    for n, p in model.named_parameters():
        rec("g." + n, p.grad)
    # sort's gradient goes back to the right slots
    a = _rand(lib, dt, 34, 3, 5).requires_grad_(True)
    b = (_rand(lib, dt, 35, 3, 4) + 0.05).requires_grad_(True)
    srt, idx = lib.sort(lib.cat([a, b], -1), -1)
    rec("idx", idx)
    (srt * lib.arange(9, dtype=dt)).sum().backward()
    rec("ga", a.grad)
    rec("gb", b.grad)
    v, i = lib.sort(lib.cat([a, b], -1).detach(), dim=-1, descending=True, stable=True)
    rec("desc", v)
    rec("desc_i", i)


def p_psnr(lib, dt, rec):
    x = _rand(lib, dt, 40, 2, 4, 4, 3)
    y = _rand(lib, dt, 41, 2, 4, 4, 3)

    def img2mse(a, b):
        return lib.mean((a - b) ** 2)

    mse = img2mse(x, y)
    rec("mse", mse)
    # nerf-pytorch: -10 * log(x) / log(Tensor([10.])) (a float32 tensor)
    # a float32 result (log of the float32 tensor) whatever dt is: its values are recorded at
    # float32's tolerance only (NumPy's float32 log may round by the CPU's SIMD width)
    psnr32 = -10.0 * lib.log(mse) / lib.log(lib.Tensor([10.0]))
    rec("psnr_tensor10.dtype", str(psnr32.dtype))
    if dt == lib.float32:
        rec("psnr_tensor10", psnr32)
    rec("psnr_log10", -10.0 * lib.log10(mse))
    rec("psnr_math", -10.0 * math.log10(mse.item()))
    rec("psnr_batch", -10.0 * lib.log10(((x - y) ** 2).mean(dim=(1, 2, 3))))
    rec("mse_f", lib.nn.functional.mse_loss(x, y))
    rec("to8b", (255 * lib.clip(x, 0, 1)).to(lib.uint8))
    rec("to8b_round", (255 * x).round().byte())
    rec("psnr_zero", -10.0 * lib.log10(img2mse(x, x)))
    xr = x.clone().requires_grad_(True)
    p = -10.0 * lib.log10(img2mse(xr, y))
    p.backward()
    rec("gpsnr", xr.grad)
    rec("grad_fn", type(p.grad_fn).__name__)
    log10_int = lib.log10(lib.tensor([1, 10, 1000]))
    rec("log10_int.dtype", str(log10_int.dtype))
    if dt == lib.float32:
        rec("log10_int", log10_int)


def p_mlp_skip(lib, dt, rec):
    model = _model(lib, dt, 50, D=5, W=16, input_ch=6, input_ch_views=3, skips=(1, 3))
    rec("n_params", sum(p.numel() for p in model.parameters()))
    rec("names", str([n for n, _ in model.named_parameters()]))
    x = _randn(lib, dt, 51, 7, 9)
    out = model(x)
    rec("out", out)
    (out * _randn(lib, dt, 52, 7, 4)).sum().backward()
    for n, p in model.named_parameters():
        rec("g." + n, p.grad)
    rec("repr", repr(model))
    # torch.split with sizes that do not add up
    rec.err("split_bad", lambda: lib.split(x, [6, 2], dim=-1))


def p_train_tiny(lib, dt, rec):
    model = _model(lib, dt, 60, D=3, W=16, input_ch=9, input_ch_views=3, skips=(1,))
    emb = _Embedder(lib, 1)

    def emb_d(d):
        return d

    opt = lib.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.999))
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.1 ** (1 / 10))
    o = _randn(lib, dt, 61, 6, 3) * 0.1
    d = _randn(lib, dt, 62, 6, 3)
    d[:, 2] = -1.5
    target = _rand(lib, dt, 63, 6, 3)
    gen = _gen(lib, 64)
    for step in range(3):
        rgb0, rgb, disp, acc, depth, _ = _render(
            lib, model, o, d, 1.0, 4.0, 5, 6, gen, emb, emb_d, white=True
        )
        img_loss = lib.mean((rgb - target) ** 2)
        loss = img_loss + lib.mean((rgb0 - target) ** 2)
        psnr = -10.0 * lib.log10(img_loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"psnr{step}", psnr)
        rec(f"lr{step}", opt.param_groups[0]["lr"])
    for n, p in model.named_parameters():
        rec("p." + n, p)


def p_batchify(lib, dt, rec):
    model = _model(lib, dt, 70, D=3, W=8, input_ch=3, input_ch_views=3, skips=())
    x = _randn(lib, dt, 71, 11, 6)

    def batchify(fn, chunk):
        def ret(inputs):
            return lib.cat([fn(inputs[i : i + chunk]) for i in range(0, inputs.shape[0], chunk)], 0)

        return ret

    full = model(x)
    rec("full", full)
    rec("chunked", batchify(model, 4)(x))
    rec("same", bool((full - batchify(model, 3)(x)).abs().max() < 1e-5))
    # render in chunks and gather a dict of outputs with torch.cat
    chunks = [{"rgb": model(c)[..., :3], "a": model(c)[..., 3]} for c in lib.split(x, 5)]
    all_ret = {k: lib.cat([c[k] for c in chunks], 0) for k in chunks[0]}
    rec("rgb", all_ret["rgb"])
    rec("a", all_ret["a"])
    rec("chunk_sizes", str([c.shape[0] for c in lib.chunk(x, 4)]))
    rec("tensor_split", str([c.shape[0] for c in lib.tensor_split(x, 4)]))
    with lib.no_grad():
        nog = model(x)
    rec("nog_rg", nog.requires_grad)
    # reshape back to an image
    img = lib.reshape(full[:10, :3], [2, 5, 3])
    rec("img", img)
    rec("img_permute", img.permute(2, 0, 1).contiguous())


def p_aabb(lib, dt, rec):
    o = _randn(lib, dt, 80, 6, 3) * 2.0
    d = _randn(lib, dt, 81, 6, 3)
    d[0, 1] = 0.0  # parallel to a slab: inf and nan from the division
    d = d / d.norm(dim=-1, keepdim=True)
    bmin = lib.tensor([-1.0, -1.0, -1.0], dtype=dt)
    bmax = lib.tensor([1.0, 1.0, 1.0], dtype=dt)
    inv = 1.0 / d
    rec("inv", inv)
    t0 = (bmin - o) * inv
    t1 = (bmax - o) * inv
    tmin = lib.minimum(t0, t1).amax(dim=-1)
    tmax = lib.maximum(t0, t1).amin(dim=-1)
    rec("tmin", tmin)
    rec("tmax", tmax)
    hit = (tmax > tmin) & (tmax > 0)
    rec("hit", hit)
    near = lib.where(hit, tmin.clamp(min=0.0), lib.zeros_like(tmin))
    far = lib.where(hit, tmax, lib.zeros_like(tmax))
    rec("near", near)
    rec("far", far)
    rec("nan_to_num", lib.nan_to_num(t0, nan=0.0, posinf=1e6, neginf=-1e6))
    # max/min with dim give indices as well
    mx = lib.max(lib.minimum(t0, t1), dim=-1)
    rec("max_v", mx.values)
    rec("max_i", mx.indices)
    # gradient of near/far w.r.t. the origins
    oo = o.clone().requires_grad_(True)
    t0 = (bmin - oo) * inv
    t1 = (bmax - oo) * inv
    tn = lib.minimum(t0, t1).amax(dim=-1)
    tf = lib.maximum(t0, t1).amin(dim=-1)
    (tf - tn)[1:].sum().backward()
    rec("go", oo.grad)


def p_distortion(lib, dt, rec):
    # mip-NeRF 360's distortion loss on normalised intervals
    s = lib.sort(_rand(lib, dt, 90, 3, 7), -1).values
    s = lib.cat([lib.zeros(3, 1, dtype=dt), s, lib.ones(3, 1, dtype=dt)], -1)
    w = lib.softmax(_randn(lib, dt, 91, 3, 8), -1).requires_grad_(True)
    mids = 0.5 * (s[..., 1:] + s[..., :-1])
    inter = w[..., :, None] * w[..., None, :] * (mids[..., :, None] - mids[..., None, :]).abs()
    intra = (w**2 * (s[..., 1:] - s[..., :-1])).sum(-1) / 3
    loss = inter.sum((-1, -2)) + intra
    rec("loss", loss)
    loss.mean().backward()
    rec("gw", w.grad)
    # the efficient cumsum form
    wm = w.detach() * mids
    w_cum = lib.cumsum(w.detach(), -1)
    wm_cum = lib.cumsum(wm, -1)
    inter2 = 2 * (wm[..., 1:] * w_cum[..., :-1] - w.detach()[..., 1:] * wm_cum[..., :-1])
    rec("loss_fast", inter2.sum(-1) + intra.detach())
    # interlevel (proposal) loss: outer measure by cumsum and searchsorted
    t_env = s
    w_env = w.detach()
    cw = lib.cat([lib.zeros(3, 1, dtype=dt), lib.cumsum(w_env, -1)], -1)
    t = _rand(lib, dt, 92, 3, 5).sort(-1).values * 0.9 + 0.05
    idx_lo = lib.searchsorted(t_env.contiguous(), t[..., :-1].contiguous(), side="right") - 1
    idx_hi = lib.searchsorted(t_env.contiguous(), t[..., 1:].contiguous(), side="right")
    idx_lo = idx_lo.clamp(0, cw.shape[-1] - 1)
    idx_hi = idx_hi.clamp(0, cw.shape[-1] - 1)
    outer = lib.take_along_dim(cw, idx_hi, -1) - lib.take_along_dim(cw, idx_lo, -1)
    rec("idx_lo", idx_lo)
    rec("idx_hi", idx_hi)
    rec("outer", outer)


def p_ipe(lib, dt, rec):
    # mip-NeRF's integrated positional encoding of conical frustums
    mean = _randn(lib, dt, 100, 4, 3).requires_grad_(True)
    var = (_rand(lib, dt, 101, 4, 3) * 0.2).requires_grad_(True)
    scales = 2 ** lib.arange(0, 4, dtype=dt)
    y = (mean[..., None, :] * scales[:, None]).reshape(*mean.shape[:-1], -1)
    y_var = (var[..., None, :] * scales[:, None] ** 2).reshape(*var.shape[:-1], -1)
    x = lib.cat([y, y + 0.5 * math.pi], -1)
    x_var = lib.cat([y_var] * 2, -1)
    enc = lib.exp(-0.5 * x_var) * lib.sin(x)
    rec("enc", enc)
    (enc * _randn(lib, dt, 102, *enc.shape)).sum().backward()
    rec("gmean", mean.grad)
    rec("gvar", var.grad)
    # conical frustum moments
    t0 = _rand(lib, dt, 103, 4) + 1.0
    t1 = t0 + 0.3
    mu = (t0 + t1) / 2
    hw = (t1 - t0) / 2
    t_mean = mu + (2 * mu * hw**2) / (3 * mu**2 + hw**2)
    t_var = (hw**2) / 3 - (4 / 15) * ((hw**4 * (12 * mu**2 - hw**2)) / (3 * mu**2 + hw**2) ** 2)
    rec("t_mean", t_mean)
    rec("t_var", t_var)
    d = _randn(lib, dt, 104, 4, 3)
    d_outer = d[..., :, None] * d[..., None, :]
    eye = lib.eye(d.shape[-1], dtype=dt)
    null = eye - d[..., :, None] * (d / lib.sum(d**2, -1, keepdim=True))[..., None, :]
    cov = t_var[..., None, None] * d_outer + (0.1 * t_mean)[..., None, None] * null
    rec("cov", cov)
    rec("diag", lib.diagonal(cov, dim1=-2, dim2=-1))


def p_sh_eval(lib, dt, rec):
    # degree-2 real spherical harmonics of view directions (plenoxels / 3DGS style)
    C0 = 0.28209479177387814
    C1 = 0.4886025119029199
    C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
          -1.0925484305920792, 0.5462742152960396]  # fmt: skip
    dirs = lib.nn.functional.normalize(_randn(lib, dt, 110, 6, 3), dim=-1)
    sh = _randn(lib, dt, 111, 6, 3, 9).requires_grad_(True)
    x, y, z = dirs.unbind(-1)
    basis = lib.stack(
        [
            lib.full_like(x, C0), -C1 * y, C1 * z, -C1 * x,
            C2[0] * x * y, C2[1] * y * z, C2[2] * (2 * z * z - x * x - y * y),
            C2[3] * x * z, C2[4] * (x * x - y * y),
        ],
        -1,
    )  # fmt: skip
    rgb = lib.clamp_min((sh * basis[..., None, :]).sum(-1) + 0.5, 0.0)
    rec("basis", basis)
    rec("rgb", rgb)
    rgb.sum().backward()
    rec("gsh", sh.grad)
    rec("einsum", lib.einsum("nck,nk->nc", sh.detach(), basis))


def p_density_grid(lib, dt, rec):
    # a TensoRF/Plenoxels-style voxel grid sampled trilinearly at ray points
    F = lib.nn.functional
    grid = _randn(lib, dt, 120, 1, 2, 4, 5, 6).requires_grad_(True)
    o = _rand(lib, dt, 121, 3, 3) * 0.4 - 0.2
    d = lib.nn.functional.normalize(_randn(lib, dt, 122, 3, 3), dim=-1)
    t = lib.linspace(0.0, 1.2, 5, dtype=dt)
    pts = o[:, None, :] + d[:, None, :] * t[None, :, None]  # (3, 5, 3) in [-1, 1]-ish
    feats = F.grid_sample(grid, pts.view(1, 1, 3, 5, 3), align_corners=True)
    feats = feats.view(2, 3, 5).permute(1, 2, 0)
    sigma = F.softplus(feats[..., 0] - 1.0)
    rec("feats", feats)
    rec("sigma", sigma)
    dists = lib.diff(t, append=lib.tensor([1e10], dtype=dt)).expand(3, 5)
    alpha = 1 - lib.exp(-sigma * dists)
    T = lib.cumprod(1 - alpha + 1e-10, -1)
    T = lib.cat([lib.ones_like(T[:, :1]), T[:, :-1]], -1)
    w = alpha * T
    rec("w", w)
    (w * feats[..., 1]).sum().backward()
    rec("ggrid", grid.grad)
    # an occupancy mask by thresholding a max-pooled density grid
    occ = F.max_pool3d(grid.detach()[:, :1], 3, stride=1, padding=1) > 0.5
    rec("occ_count", occ.sum())
    rec("nonzero", occ.nonzero()[:5])


def p_searchsorted_var(lib, dt, rec):
    cdf = lib.cumsum(lib.softmax(_randn(lib, dt, 130, 3, 6), -1), -1)
    cdf = lib.cat([lib.zeros(3, 1, dtype=dt), cdf], -1)
    u = _rand(lib, dt, 131, 3, 4)
    rec("left", lib.searchsorted(cdf, u))
    rec("right", lib.searchsorted(cdf, u, right=True))
    rec("side", lib.searchsorted(cdf, u, side="right"))
    rec("i32", lib.searchsorted(cdf, u, out_int32=True))
    rec("i32_dtype", str(lib.searchsorted(cdf, u, out_int32=True).dtype))
    # exact hits of boundary values (exact, not rounded)
    b = lib.tensor([0.0, 0.25, 0.5, 0.5, 1.0], dtype=dt)
    v = lib.tensor([0.0, 0.25, 0.5, 0.75, 1.0, 1.5, -1.0], dtype=dt)
    rec("hit_l", lib.searchsorted(b, v))
    rec("hit_r", lib.searchsorted(b, v, right=True))
    rec("scalar", lib.searchsorted(b, 0.5))
    rec("scalar_r", lib.searchsorted(b, 0.5, right=True))
    rec("bucketize", lib.bucketize(v, b))
    rec("bucketize_r", lib.bucketize(v, b, right=True))
    # a 1-d sequence with n-d values; a sorter; non-contiguous values
    rec("1d_nd", lib.searchsorted(b, u))
    unsorted = lib.tensor([0.5, 0.0, 1.0, 0.25], dtype=dt)
    sorter = lib.argsort(unsorted)
    rec("sorter", lib.searchsorted(unsorted, v, sorter=sorter))
    rec("noncontig", lib.searchsorted(cdf, u.t().contiguous().t()))
    rec("noncontig_seq", lib.searchsorted(cdf.t().contiguous().t(), u))
    out = lib.empty(3, 4, dtype=lib.int64)
    lib.searchsorted(cdf, u, out=out)
    rec("out", out)
    # the u expanded without contiguous (nerf's det path)
    ue = lib.linspace(0.05, 0.95, 4, dtype=dt).expand(3, 4)
    rec("expanded", lib.searchsorted(cdf, ue, right=True))
    rec("req_grad", lib.searchsorted(cdf.requires_grad_(True), u).requires_grad)


def p_errors(lib, dt, rec):
    cdf = lib.linspace(0, 1, 5, dtype=dt).expand(3, 5)
    u = _rand(lib, dt, 140, 3, 4)
    rec.err("ss_batch", lambda: lib.searchsorted(cdf, _rand(lib, dt, 141, 2, 4)))
    rec.err("ss_dims", lambda: lib.searchsorted(cdf, _rand(lib, dt, 141, 3, 2, 4)))
    rec.err(
        "ss_dtype", lambda: lib.searchsorted(cdf, u.float() if dt == lib.float64 else u.double())
    )
    rec.err("ss_side", lambda: lib.searchsorted(cdf, u, side="middle"))
    rec.err("ss_opposite", lambda: lib.searchsorted(cdf, u, right=True, side="left"))
    rec.err("ss_sorter", lambda: lib.searchsorted(cdf, u, sorter=lib.zeros(3, 4, dtype=lib.int64)))
    rec.err("ss_out", lambda: lib.searchsorted(cdf, u, out=lib.empty(3, 4, dtype=lib.int32)))
    rec.err("ss_scalar_seq", lambda: lib.searchsorted(lib.tensor(1.0, dtype=dt), u))
    rec.err("ss_int_seq", lambda: lib.searchsorted(lib.arange(5), u))
    idx = lib.tensor([[0, 5]])
    rec.err("gather_oob", lambda: lib.gather(cdf, 1, idx))
    rec.err("gather_neg", lambda: lib.gather(cdf, 1, lib.tensor([[-1, 0]])))
    rec.err("gather_dtype", lambda: lib.gather(cdf, 1, idx.int()))
    rec.err("gather_dims", lambda: lib.gather(cdf, 1, lib.tensor([0, 1])))
    rec.err("gather_size", lambda: lib.gather(cdf, 1, lib.zeros(4, 2, dtype=lib.int64)))
    rec.err("cumprod_dim", lambda: lib.cumprod(cdf, 2))
    rec.err("cumprod_nodim", lambda: lib.cumprod(cdf))
    rec.err("meshgrid_idx", lambda: lib.meshgrid(lib.arange(2), lib.arange(3), indexing="yx"))
    rec.err("meshgrid_2d", lambda: lib.meshgrid(lib.ones(2, 2), lib.arange(3), indexing="ij"))
    rec.err("linspace_steps", lambda: lib.linspace(0.0, 1.0, steps=-1))
    rec.err("sort_dim", lambda: lib.sort(cdf, dim=3))
    rec.err(
        "log10_int_out", lambda: lib.log10(lib.tensor([1.0]), out=lib.empty(1, dtype=lib.int64))
    )
    rec.err("norm_int", lambda: lib.norm(lib.arange(3), dim=-1))
    rec.err("rand_int", lambda: lib.rand(2, 3, dtype=lib.int64))
    rec.err("cat_dtype_dim", lambda: lib.cat([cdf, lib.ones(3, dtype=dt)], -1))
    rec.err("expand_bad", lambda: cdf.expand(2, 3, 4))
    x = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err("leaf_cumprod_", lambda: x.cumprod_(0))
    y = x * 2
    z = lib.cumprod(y, 0)
    y.mul_(2)
    rec.err("modified", lambda: z.sum().backward())


def p_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skip", "float64 only")
        return
    gc = lib.autograd.gradcheck
    ggc = lib.autograd.gradgradcheck
    x = _rand(lib, dt, 150, 3, 4) + 0.1
    x[0, 1] = 0.0
    x[2, 0] = 0.0
    x[2, 3] = 0.0
    x.requires_grad_(True)
    rec("cumprod_zero", gc(lambda t: lib.cumprod(t, 1), (x,)))
    rec("cumprod_zero_gg", ggc(lambda t: lib.cumprod(t, 1), (x,)))
    x2 = x.detach().clone()
    x2[1, 1] = 0.0
    x2[1, 2] = 0.0
    x2.requires_grad_(True)
    rec("cumprod_two_zero", gc(lambda t: lib.cumprod(t, 1), (x2,)))
    rec("cumprod_two_zero_gg", ggc(lambda t: lib.cumprod(t, 1), (x2,)))
    rec("cumprod_dim0_gg", ggc(lambda t: lib.cumprod(t, 0), (x2,)))
    # the composite renderer in density, colour
    z = _stratified(lib, 2.0, 6.0, 2, 5, dt, perturb=False)
    rays_d = _randn(lib, dt, 151, 2, 3)
    raw = _randn(lib, dt, 152, 2, 5, 4).requires_grad_(True)

    def render(r):
        out = _raw2outputs(lib, r, z, rays_d)
        return out[0], out[3], out[4]

    rec("render", gc(render, (raw,)))
    rec("render_gg", ggc(render, (raw,)))
    # sample_pdf w.r.t. bins and weights (indices fixed by the generator)
    bins = lib.linspace(2.0, 6.0, 6, dtype=dt).expand(2, 6).clone().requires_grad_(True)
    w = (_rand(lib, dt, 153, 2, 5) + 0.1).requires_grad_(True)

    def spdf(b, ww):
        return _sample_pdf(lib, b, ww, 4, gen=_gen(lib, 154))[0]

    rec("sample_pdf", gc(spdf, (bins, w)))
    rec("sample_pdf_gg", ggc(spdf, (bins, w)))
    # gather and sort
    idx = lib.tensor([[0, 2, 2, 1], [3, 3, 0, 1]])
    xg = _randn(lib, dt, 155, 2, 4).requires_grad_(True)
    rec("gather", gc(lambda t: lib.gather(t, 1, idx), (xg,)))
    rec("gather_gg", ggc(lambda t: lib.gather(t, 1, idx), (xg,)))
    rec("sort", gc(lambda t: lib.sort(t, -1)[0], (xg,)))
    rec("sort_gg", ggc(lambda t: lib.sort(t, -1)[0], (xg,)))
    rec("log10_gg", ggc(lambda t: lib.log10(t * t + 1.0), (xg,)))


def p_white_bkgd(lib, dt, rec):
    n_rays, n_samples = 3, 6
    z = _stratified(lib, 2.0, 6.0, n_rays, n_samples, dt, perturb=False)
    rays_d = _randn(lib, dt, 160, n_rays, 3)
    raw = _randn(lib, dt, 161, n_rays, n_samples, 4)
    raw[0, :, 3] = -5.0  # empty ray: relu gives zero density, acc 0, disp 1 / 1e-10 path
    raw = raw.requires_grad_(True)
    rgb, disp, acc, weights, depth = _raw2outputs(lib, raw, z, rays_d, white_bkgd=True)
    rec("rgb", rgb)
    rec("acc", acc)
    rec("depth", depth)
    rec("disp", disp)
    (rgb.sum() + depth.sum()).backward()
    rec("graw", raw.grad)
    # rgba image composited on white, as blender data loaders do
    rgba = _rand(lib, dt, 162, 2, 3, 4)
    rec("img", rgba[..., :3] * rgba[..., -1:] + (1.0 - rgba[..., -1:]))
    # a depth map normalised for display, with acc threshold
    depth_vis = lib.where(acc > 0.5, depth / acc.clamp_min(1e-8), lib.zeros_like(depth))
    rec("depth_vis", depth_vis)
    mm = lib.aminmax(depth.detach())
    rec("minmax", lib.stack([mm.min, mm.max]))
    rec("minmax_type", type(mm).__name__)


def p_transmittance_spellings(lib, dt, rec):
    sigma = (_rand(lib, dt, 170, 4, 7) * 4.0).requires_grad_(True)
    delta = _rand(lib, dt, 171, 4, 7) * 0.3 + 0.05
    sd = sigma * delta
    alpha = 1.0 - lib.exp(-sd)
    # 1: cumprod with exclusive shift by cat of ones
    t1 = lib.cumprod(lib.cat([lib.ones_like(alpha[..., :1]), 1.0 - alpha], -1), -1)[..., :-1]
    # 2: exp of exclusive cumsum
    t2 = lib.exp(-lib.cat([lib.zeros_like(sd[..., :1]), lib.cumsum(sd, -1)[..., :-1]], -1))
    # 3: roll then overwrite the first column (torch.roll) on a clone
    t3 = lib.roll(lib.cumprod(1.0 - alpha, -1), 1, -1).clone()
    t3[..., 0] = 1.0
    # 4: F.pad of the cumprod
    t4 = lib.nn.functional.pad(lib.cumprod(1.0 - alpha, -1)[..., :-1], (1, 0), value=1.0)
    for i, t in enumerate((t1, t2, t3, t4)):
        rec(f"t{i}", t)
        (g,) = lib.autograd.grad((alpha * t).sum(), sigma, retain_graph=True)
        rec(f"g{i}", g)
    rec("close12", lib.allclose(t1, t2))
    # logcumsumexp-style log transmittance
    rec("logT", lib.logcumsumexp(-sd, -1))
    rec("cummax", lib.cummax(sd, -1).values)
    rec("cummax_i", lib.cummax(sd, -1).indices)


def p_gather_sort(lib, dt, rec):
    # merging coarse and fine samples and gathering features along the merged order
    zc = lib.linspace(2.0, 6.0, 5, dtype=dt).expand(3, 5)
    zf = _rand(lib, dt, 180, 3, 4) * 4.0 + 2.0
    feats_c = _randn(lib, dt, 181, 3, 5, 2).requires_grad_(True)
    feats_f = _randn(lib, dt, 182, 3, 4, 2).requires_grad_(True)
    z_all, order = lib.sort(lib.cat([zc, zf], -1), -1)
    feats = lib.cat([feats_c, feats_f], 1)
    merged = lib.gather(feats, 1, order[..., None].expand(-1, -1, 2))
    rec("z_all", z_all)
    rec("order", order)
    rec("merged", merged)
    merged2 = lib.take_along_dim(feats, order[..., None], dim=1)
    rec("same", lib.equal(merged, merged2))
    (merged * _randn(lib, dt, 183, 3, 9, 2)).sum().backward()
    rec("gc", feats_c.grad)
    rec("gf", feats_f.grad)
    # argsort and inverse permutation by scatter
    inv = lib.empty_like(order).scatter_(1, order, lib.arange(9).expand(3, 9))
    rec("inv", inv)
    rec("roundtrip", lib.equal(lib.gather(z_all, 1, inv), lib.cat([zc, zf], -1)))
    rec("argsort", lib.argsort(zf, dim=-1, descending=True))
    rec("msort", lib.msort(zf.t()))
    # gather of an expanded (stride-0) input and its gradient
    src = _randn(lib, dt, 184, 5).requires_grad_(True)
    idx = lib.tensor([[0, 4, 4], [1, 1, 2]])
    g = lib.gather(src.unsqueeze(0).expand(2, 5), 1, idx)
    rec("g_exp", g)
    rec("gather_fn", type(g.grad_fn).__name__)
    rec("saved_index", lib.equal(g.grad_fn._saved_index, idx))
    rec("saved_dim", g.grad_fn._saved_dim)
    rec("sparse_grad", g.grad_fn._saved_sparse_grad)
    g.pow(2).sum().backward()
    rec("gsrc", src.grad)


def p_hash_grid(lib, dt, rec):
    # instant-ngp's multiresolution hash encoding: int64 products that wrap, xor, modulo,
    # trilinear weights and a learnable table (duplicate indices accumulate gradients)
    primes = lib.tensor([1, 2654435761, 805459861], dtype=lib.int64)
    table_size = 2**6
    n_levels, n_feat = 3, 2
    table = (_rand(lib, dt, 190, n_levels, table_size, n_feat) * 2e-4 - 1e-4).requires_grad_(True)
    x = _rand(lib, dt, 191, 7, 3)
    offsets = lib.tensor(
        [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]]
    )
    feats = []
    for lvl in range(n_levels):
        res = math.floor(4 * 1.5**lvl)
        pos = x * res
        pos_grid = lib.floor(pos).to(lib.int64)
        frac = pos - pos_grid.to(dt)
        corners = pos_grid[:, None, :] + offsets[None]  # (N, 8, 3)
        h = corners * primes
        rec(f"h{lvl}", h)
        idx = (h[..., 0] ^ h[..., 1] ^ h[..., 2]) % table_size
        rec(f"idx{lvl}", idx)
        rec(f"idx_and{lvl}", (h[..., 0] ^ h[..., 1] ^ h[..., 2]) & (table_size - 1))
        w = lib.where(offsets[None].bool(), frac[:, None, :], 1 - frac[:, None, :]).prod(-1)
        f = (table[lvl][idx] * w[..., None]).sum(1)
        feats.append(f)
    enc = lib.cat(feats, -1)
    rec("enc", enc * 1e4)
    (enc * _randn(lib, dt, 192, *enc.shape)).sum().backward()
    rec("gtable", table.grad)
    # the same lookup by embedding and index_select
    emb = lib.nn.functional.embedding(idx, table[-1].detach())
    rec("emb", emb * 1e4)
    rec("isel", lib.index_select(table[-1].detach(), 0, idx.flatten()).view(7, 8, 2) * 1e4)
    # wrapping products and shifts of int64
    big = lib.tensor([2**62, -(2**62), 2**40 + 3], dtype=lib.int64)
    rec("wrap", big * 4)
    rec("wrap_prime", big * 2654435761)
    rec("shift", big >> 3)
    rec("lshift", lib.tensor([1, 3], dtype=lib.int64) << 62)
    rec("rem_neg", lib.tensor([-7, 7, -1]) % 4)
    rec("fmod_neg", lib.fmod(lib.tensor([-7, 7, -1]), 4))
    rec("floor_div", lib.div(lib.tensor([-7, 7, -1]), 4, rounding_mode="floor"))


def p_packed(lib, dt, rec):
    # nerfacc-style packed samples: a variable number of samples per ray, segment sums by
    # index_add/scatter_add, exclusive per-ray cumsum, transmittance by exp
    counts = lib.tensor([3, 0, 5, 1, 4])
    n_rays = counts.shape[0]
    ray_indices = lib.repeat_interleave(lib.arange(n_rays), counts)
    rec("ray_indices", ray_indices)
    chunk_starts = lib.cumsum(counts, 0) - counts
    rec("chunk_starts", chunk_starts)
    packed_info = lib.stack([chunk_starts, counts], -1)
    rec("packed_info", packed_info)
    n = int(counts.sum())
    sigmas = (_rand(lib, dt, 200, n) * 3).requires_grad_(True)
    t_starts = lib.sort(_rand(lib, dt, 201, n) * 4).values
    t_ends = t_starts + 0.3
    sd = sigmas * (t_ends - t_starts)
    incl = lib.cumsum(sd, 0)
    seg_tot = lib.zeros(n_rays, dtype=dt).index_add(0, ray_indices, sd)
    before = lib.cumsum(seg_tot, 0) - seg_tot
    excl = incl - sd - before[ray_indices]
    trans = lib.exp(-excl)
    alphas = 1.0 - lib.exp(-sd)
    weights = trans * alphas
    rec("trans", trans)
    rec("weights", weights)
    rgbs = _rand(lib, dt, 202, n, 3)
    colors = lib.zeros(n_rays, 3, dtype=dt).index_add_(0, ray_indices, weights[:, None] * rgbs)
    opac = lib.zeros(n_rays, dtype=dt).scatter_add_(0, ray_indices, weights)
    depth = lib.zeros(n_rays, dtype=dt).scatter_reduce(
        0, ray_indices, weights * (t_starts + t_ends) / 2, reduce="sum"
    )
    rec("colors", colors)
    rec("opac", opac)
    rec("depth", depth)
    (colors.sum() + opac.square().sum() + depth.sum()).backward()
    rec("gsig", sigmas.grad)
    # segment_reduce with lengths, unique_consecutive, bincount
    rec("seg", lib.segment_reduce(weights.detach(), "sum", lengths=counts))
    u, inv, cnt = lib.unique_consecutive(ray_indices, return_inverse=True, return_counts=True)
    rec("uc", u)
    rec("uc_inv", inv)
    rec("uc_cnt", cnt)
    rec("bincount", lib.bincount(ray_indices, minlength=n_rays))
    # per-ray max weight and its sample by scatter_reduce amax
    mx = lib.full((n_rays,), -1.0, dtype=dt).scatter_reduce(
        0, ray_indices, weights.detach(), reduce="amax", include_self=False
    )
    rec("seg_max", mx)
    # the padded (dense) layout from the packed one
    pos = lib.arange(n) - chunk_starts[ray_indices]
    dense = lib.zeros(n_rays, int(counts.max()), dtype=dt)
    dense[ray_indices, pos] = weights.detach()
    rec("dense", dense)
    mask = lib.arange(int(counts.max()))[None] < counts[:, None]
    rec("mask", mask)
    rec("packed_back", dense[mask])


def p_trunc_exp(lib, dt, rec):
    # instant-ngp's truncated exponential as a custom Function with custom_fwd/custom_bwd
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

    x = (_randn(lib, dt, 210, 6) * 8).requires_grad_(True)
    y = TruncExp.apply(x)
    rec("y", y)
    y.sum().backward()
    rec("gx", x.grad)
    rec("name", type(y.grad_fn).__name__)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        xa = x.detach().clone().requires_grad_(True)
        ya = TruncExp.apply(xa)
        rec("ya_dtype", str(ya.dtype))
        la = lib.nn.functional.linear(xa[None], lib.ones(3, 6, dtype=dt))
        rec("lin_dtype", str(la.dtype))
    ya.sum().backward()
    if dt == lib.float32:  # computed in float32 (cast_inputs) whatever dt is
        rec("gxa", xa.grad)
    rec("gxa_dtype", str(xa.grad.dtype))

    class Shifted(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, shift):
            ctx.shift = shift
            return lib.nn.functional.softplus(x - shift)

        @staticmethod
        def backward(ctx, g):
            return g, None

    z = Shifted.apply(x, 1.0)
    rec("z", z)
    if dt == lib.float64:
        rec(
            "gc",
            lib.autograd.gradcheck(
                lambda t: TruncExp.apply(t * 0.1), (x.detach()[:3].clone().requires_grad_(True),)
            ),
        )


def _sdf_net(lib, dt, seed):
    lib.manual_seed(seed)
    nn = lib.nn
    net = nn.Sequential(
        nn.Linear(3, 16),
        nn.Softplus(beta=100),
        nn.Linear(16, 16),
        nn.Softplus(beta=100),
        nn.Linear(16, 1 + 4),
    )
    return net.to(dt)


def p_neus(lib, dt, rec):
    # NeuS: an SDF network, gradients w.r.t. points (create_graph) for normals and the eikonal
    # loss, alpha from differences of the logistic CDF, clip; trained a few Adam steps
    net = _sdf_net(lib, dt, 220)
    inv_s = lib.nn.Parameter(lib.tensor(0.3, dtype=dt))
    opt = lib.optim.Adam(list(net.parameters()) + [inv_s], lr=1e-3)
    o = _randn(lib, dt, 221, 4, 3) * 0.1 + lib.tensor([0.0, 0.0, 2.0], dtype=dt)
    d = lib.nn.functional.normalize(
        _randn(lib, dt, 222, 4, 3) * 0.2 + lib.tensor([0.0, 0.0, -1.0], dtype=dt), dim=-1
    )
    z = _stratified(lib, 1.0, 3.0, 4, 8, dt, gen=_gen(lib, 223))
    target = _rand(lib, dt, 224, 4, 3)
    for step in range(3):
        dists = z[..., 1:] - z[..., :-1]
        dists = lib.cat([dists, dists[..., -1:]], -1)
        mid = z + dists * 0.5
        pts = (o[:, None, :] + d[:, None, :] * mid[..., :, None]).reshape(-1, 3)
        pts.requires_grad_(True)
        out = net(pts)
        sdf, feat = out[:, :1], out[:, 1:]
        grads = lib.autograd.grad(
            sdf,
            pts,
            grad_outputs=lib.ones_like(sdf),
            create_graph=True,
            retain_graph=True,
            only_inputs=True,
        )[0]
        s = lib.exp(inv_s * 10.0).clip(1e-6, 1e6).expand(pts.shape[0], 1)
        true_cos = (d[:, None, :].expand(4, 8, 3).reshape(-1, 3) * grads).sum(-1, keepdim=True)
        iter_cos = -(
            lib.nn.functional.relu(-true_cos * 0.5 + 0.5) * 0.5
            + lib.nn.functional.relu(-true_cos) * 0.5
        )
        est_next = sdf + iter_cos * dists.reshape(-1, 1) * 0.5
        est_prev = sdf - iter_cos * dists.reshape(-1, 1) * 0.5
        prev_cdf = lib.sigmoid(est_prev * s)
        next_cdf = lib.sigmoid(est_next * s)
        alpha = ((prev_cdf - next_cdf + 1e-5) / (prev_cdf + 1e-5)).reshape(4, 8).clip(0.0, 1.0)
        T = lib.cumprod(lib.cat([lib.ones(4, 1, dtype=dt), 1.0 - alpha + 1e-7], -1), -1)[:, :-1]
        weights = alpha * T
        color = lib.sigmoid(feat[:, :3]).reshape(4, 8, 3)
        rgb = (color * weights[:, :, None]).sum(1)
        eik = ((lib.linalg.norm(grads, ord=2, dim=-1) - 1.0) ** 2).mean()
        loss = lib.nn.functional.l1_loss(rgb, target) + 0.1 * eik
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"eik{step}", eik)
        rec(f"alpha{step}", alpha)
        rec(f"ginv_s{step}", inv_s.grad)
        opt.step()
    rec.params("p", net, grads=True)
    rec("normals", lib.nn.functional.normalize(grads.detach(), dim=-1))


def p_volsdf(lib, dt, rec):
    # VolSDF's Laplace-CDF density and the density gradient as normals (Ref-NeRF style)
    beta = lib.tensor(0.1, dtype=dt, requires_grad=True)
    sdf = (_randn(lib, dt, 230, 3, 6) * 0.3).requires_grad_(True)
    alpha_ = 1.0 / beta
    density = alpha_ * (0.5 + 0.5 * sdf.sign() * lib.expm1(-sdf.abs() / beta))
    rec("density", density)
    dens_neg = alpha_ * lib.where(
        sdf >= 0, 0.5 * lib.exp(-sdf / beta), 1 - 0.5 * lib.exp(sdf / beta)
    )
    rec("density2", dens_neg)
    (density * lib.linspace(0.0, 1.0, 6, dtype=dt)).sum().backward()
    rec("gsdf", sdf.grad)
    rec("gbeta", beta.grad)
    # normals from the gradient of a density MLP, double backward into the weights
    lib.manual_seed(231)
    mlp = lib.nn.Sequential(
        lib.nn.Linear(3, 8),
        lib.nn.Softplus(),
        lib.nn.Linear(8, 8),
        lib.nn.SiLU(),
        lib.nn.Linear(8, 1),
    ).to(dt)
    x = _randn(lib, dt, 232, 5, 3).requires_grad_(True)
    dens = lib.nn.functional.softplus(mlp(x) - 1.0)
    (g,) = lib.autograd.grad(dens.sum(), x, create_graph=True)
    normals = -g / lib.linalg.norm(g, dim=-1, keepdim=True).clamp_min(1e-6)
    rec("normals", normals)
    v = lib.nn.functional.normalize(_randn(lib, dt, 233, 5, 3), dim=-1)
    pen = lib.relu((normals * v).sum(-1)).square().mean()  # Ref-NeRF's orientation loss
    pen.backward()
    rec("pen", pen)
    rec.params("mlp", mlp, grads=True, view=lambda n, p: p)
    # reflected directions
    refl = 2.0 * (normals * v).sum(-1, keepdim=True) * normals - v
    rec("refl", refl)


def p_importance(lib, dt, rec):
    # pixel importance sampling and depth statistics
    w = _rand(lib, dt, 240, 4, 6)
    rec("multi", lib.multinomial(w, 5, replacement=True, generator=_gen(lib, 241)))
    rec("multi_nr", lib.multinomial(w, 4, replacement=False, generator=_gen(lib, 241)))
    rec("multi1", lib.multinomial(w[0], 8, replacement=True, generator=_gen(lib, 242)))
    lib.manual_seed(243)
    rec("multi_global", lib.multinomial(w, 3))
    q = lib.tensor([0.1, 0.5, 0.99], dtype=dt)
    rec("quantile", lib.quantile(w, q, dim=-1))
    rec("q_nearest", lib.quantile(w, 0.3, dim=1, interpolation="nearest"))
    rec("q_all", lib.quantile(w, 0.75))
    rec("nanquantile", lib.nanquantile(lib.where(w > 0.8, float("nan"), w), 0.5, dim=1))
    rec("nanmean", lib.nanmean(lib.where(w > 0.8, float("nan"), w), dim=1))
    rec("trapz", lib.trapezoid(w, dx=0.5))
    rec("trapz_x", lib.trapezoid(w, x=w.cumsum(-1)))
    rec("ctrapz", lib.cumulative_trapezoid(w, x=w.cumsum(-1)))
    rec("histc", lib.histc(w, bins=4, min=0, max=1))
    med = w.median(-1)
    rec("median", med.values)
    rec("median_i", med.indices)
    rec("kth", lib.kthvalue(w, 2, -1).values)
    # densities written into a zero buffer at occupied samples (index_put), then composited
    x = _rand(lib, dt, 244, 4, 6).requires_grad_(True)
    mask = w > 0.4
    sig = lib.zeros(4, 6, dtype=dt)
    sig[mask] = (x[mask] * 3).exp()
    rec("sig", sig)
    alpha = 1 - lib.exp(-sig * 0.1)
    T = lib.cumprod(lib.cat([lib.ones(4, 1, dtype=dt), 1 - alpha], -1), -1)[:, :-1]
    (alpha * T).sum().backward()
    rec("gx", x.grad)
    x.grad = None
    yy = lib.zeros(4, 6, dtype=dt).masked_scatter(mask, x * 2)
    (yy**2).sum().backward()
    rec("mscatter", yy)
    rec("gx_ms", x.grad)
    rec("randint", lib.randint(0, 10, (3, 4), generator=_gen(lib, 245)))
    rec("bern", lib.bernoulli(w, generator=_gen(lib, 246)))


def p_checkpoint(lib, dt, rec):
    import io

    lib.manual_seed(250)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).to(dt)
    m2 = lib.nn.Linear(2, 2).to(dt)
    grad_vars = list(m.parameters()) + list(m2.parameters())
    opt = lib.optim.Adam(params=grad_vars, lr=5e-4, betas=(0.9, 0.999))
    x = _randn(lib, dt, 251, 5, 3)
    for step in range(3):
        loss = m2(m(x)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        rec(f"clip{step}", lib.nn.utils.clip_grad_norm_(grad_vars, 0.05))
        opt.step()
        new_lrate = 5e-4 * (0.1 ** ((step + 1) / 250))
        for pg in opt.param_groups:
            pg["lr"] = new_lrate
        rec(f"loss{step}", loss)
    buf = io.BytesIO()
    lib.save(
        {
            "global_step": 3,
            "network_fn_state_dict": m.state_dict(),
            "network_fine_state_dict": m2.state_dict(),
            "optimizer_state_dict": opt.state_dict(),
        },
        buf,
    )
    buf.seek(0)
    ck = lib.load(buf)
    rec("keys", str(list(ck)))
    rec("state_keys", str(sorted(ck["optimizer_state_dict"]["state"][0])))
    rec("pg", str(sorted(ck["optimizer_state_dict"]["param_groups"][0])))
    rec("step", ck["optimizer_state_dict"]["state"][0]["step"])
    rec("exp_avg", ck["optimizer_state_dict"]["state"][2]["exp_avg"])
    opt2 = lib.optim.Adam(params=grad_vars, lr=1.0)
    opt2.load_state_dict(ck["optimizer_state_dict"])
    rec("lr_after", opt2.param_groups[0]["lr"])
    rec("load", str(m.load_state_dict(ck["network_fn_state_dict"])))
    rec.err("load_bad", lambda: m.load_state_dict(ck["network_fine_state_dict"]))
    rec("load_ns", str(m.load_state_dict(ck["network_fine_state_dict"], strict=False)))
    sd = dict(ck["network_fn_state_dict"])
    sd["0.weight"] = sd["0.weight"][:, :2]
    rec.err("load_shape", lambda: m.load_state_dict(sd))
    with lib.inference_mode():
        y = m(x)
    rec("inf", str((y.requires_grad, y.is_inference())))
    rec.err("inf_bw", lambda: (y * lib.ones(5, 2, dtype=dt, requires_grad=True)).sum().backward())
    rec.err("inf_inplace", lambda: y.add_(1))
    rec("xavier", lib.nn.init.xavier_uniform_(lib.empty(3, 4, dtype=dt), generator=_gen(lib, 252)))
    rec("kaiming", lib.nn.init.kaiming_normal_(lib.empty(3, 4, dtype=dt), generator=_gen(lib, 252)))
    rec(
        "uniform",
        lib.nn.init.uniform_(lib.empty(3, 4, dtype=dt), -1e-4, 1e-4, generator=_gen(lib, 252)),
    )


def p_default_type(lib, dt, rec):
    # nerf-pytorch's torch.set_default_tensor_type(...) and what a mistyped name gives
    try:
        lib.set_default_tensor_type(
            "torch.DoubleTensor" if dt == lib.float64 else "torch.FloatTensor"
        )
        rec("T10", str(lib.Tensor([10.0]).dtype))
        rec("psnr", -10.0 * lib.log(lib.tensor(0.01)) / lib.log(lib.Tensor([10.0])))
        rec("lin", str(lib.linspace(0, 1, 3).dtype))
        rec("rand", str(lib.rand(2).dtype))
        rec("default", str(lib.get_default_dtype()))
        rec("is_fp", lib.is_floating_point(lib.ones(1)))
        for name in (
            "torch.IntTensor", "float", "", "torch.Foo", "numpy.float32", "torch.cuda.FloatTensor",
            "torch.cuda.Foo", "torch..FloatTensor", "torch.float64", "torch.Tensor", ".x",
            "torch.nn.Linear", "os.path",
        ):  # fmt: skip
            rec.err("name." + name, lambda name=name: lib.set_default_tensor_type(name))
        rec("after", str(lib.get_default_dtype()))
        rec.err("type_obj", lambda: lib.set_default_tensor_type(lib.float64))
        rec.err("int", lambda: lib.set_default_tensor_type(3))
        lib.set_default_tensor_type(lib.DoubleTensor)
        rec("obj", str(lib.get_default_dtype()))
    finally:
        lib.set_default_dtype(lib.float32)


def p_cameras(lib, dt, rec):
    # look-at poses, a spiral path, recentring, and projecting points back to pixels
    def normalize(v):
        return v / lib.linalg.norm(v)

    def viewmatrix(z, up, pos):
        vec2 = normalize(z)
        vec0 = normalize(lib.linalg.cross(up, vec2))
        vec1 = normalize(lib.linalg.cross(vec2, vec0))
        return lib.stack([vec0, vec1, vec2, pos], 1)

    poses = lib.stack([_pose(lib, dt, t, -0.4, 4.0)[:3] for t in (0.0, 0.5, 1.1, 1.7)])
    center = poses[:, :3, 3].mean(0)
    vec2 = normalize(poses[:, :3, 2].sum(0))
    up = poses[:, :3, 1].sum(0)
    c2w = viewmatrix(vec2, up, center)
    rec("c2w_avg", c2w)
    render_poses = []
    rads = lib.tensor([0.5, 0.4, 0.3, 1.0], dtype=dt)
    for theta in lib.linspace(0.0, 2.0 * math.pi, 5, dtype=dt)[:-1]:
        c = c2w[:3, :4] @ (
            lib.stack(
                [lib.cos(theta), -lib.sin(theta), -lib.sin(theta * 0.5), lib.tensor(1.0, dtype=dt)]
            )
            * rads
        )
        zz = normalize(c - c2w[:3, :4] @ lib.tensor([0, 0, -3.0, 1.0], dtype=dt))
        render_poses.append(viewmatrix(zz, up, c))
    rec("spiral", lib.stack(render_poses))
    bottom = lib.tensor([0, 0, 0, 1.0], dtype=dt).reshape(1, 1, 4).expand(4, 1, 4)
    poses4 = lib.cat([poses, bottom], -2)
    c2w4 = lib.cat([c2w, bottom[0]], -2)
    rec("recentred", lib.linalg.inv(c2w4) @ poses4)
    # project world points into the first camera
    K = _intrinsics(lib, dt, 6, 8, 7.0)
    w2c = lib.linalg.inv(poses4[0])
    pts = _randn(lib, dt, 260, 10, 3) * 0.5
    cam = pts @ w2c[:3, :3].T + w2c[:3, 3]
    uvw = (cam * lib.tensor([1.0, -1.0, -1.0], dtype=dt)) @ K.T
    uv = uvw[:, :2] / uvw[:, 2:]
    rec("uv", uv)
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < 8) & (uv[:, 1] >= 0) & (uv[:, 1] < 6) & (uvw[:, 2] > 0)
    rec("inside", inside)
    rec("det", lib.linalg.det(poses[:, :3, :3]))
    rec("einsum_dirs", lib.einsum("...ij,...j->...i", poses[:, None, :3, :3], pts[None, :3]))
    # mip-NeRF's pixel radii from ray-direction spacing
    o, d = _get_rays(lib, 4, 5, _intrinsics(lib, dt, 4, 5, 6.0), poses4[1])
    dx = lib.sqrt(lib.sum((d[:-1, :, :] - d[1:, :, :]) ** 2, -1))
    dx = lib.cat([dx, dx[-2:-1, :]], 0)
    rec("radii", dx[..., None] * 2 / math.sqrt(12))


def p_occupancy(lib, dt, rec):
    # an instant-ngp style occupancy grid: EMA updates, thresholds, random cells, morton codes
    res = 4
    grid = lib.zeros(res**3, dtype=dt)
    gen = _gen(lib, 270)
    coords = lib.stack(lib.meshgrid(*[lib.arange(res)] * 3, indexing="ij"), -1).reshape(-1, 3)
    rec("coords", coords[:6])
    for step in range(3):
        idx = lib.randint(0, res**3, (20,), generator=gen)
        x = (coords[idx].to(dt) + lib.rand(20, 3, generator=gen, dtype=dt)) / res * 2 - 1
        density = lib.exp(-(x**2).sum(-1) * 2.0)
        new = lib.zeros_like(grid).index_reduce_(0, idx, density, "amax", include_self=False)
        grid = lib.maximum(grid * 0.95, new)
        rec(f"grid{step}", grid)
    thresh = lib.clamp(grid.mean(), max=0.5)
    bitfield = grid > thresh
    rec("bits", bitfield)
    rec("occupied", bitfield.nonzero().flatten())
    rec("frac", bitfield.float().mean())

    def expand_bits(v):
        v = (v * 0x00010001) & 0xFF0000FF
        v = (v * 0x00000101) & 0x0F00F00F
        v = (v * 0x00000011) & 0xC30C30C3
        v = (v * 0x00000005) & 0x49249249
        return v

    morton = (
        expand_bits(coords[:, 0])
        | (expand_bits(coords[:, 1]) << 1)
        | (expand_bits(coords[:, 2]) << 2)
    )
    rec("morton", morton)
    rec("morton_sorted", lib.argsort(morton))
    g2 = grid.clone()
    g2[~bitfield] = 0.0
    g2[bitfield] *= 2
    rec("masked", g2)
    rec("packbits", (bitfield.view(-1, 8).long() << lib.arange(8)).sum(-1))


# --- argument-error sweeps: each call's error (or "no error"), as users write them ---


def _calls_env(lib):
    g = lib.Generator().manual_seed(0)
    c = lib.cumsum(lib.rand(3, 5, generator=g), 1)
    u = lib.rand(3, 4, generator=g)
    r = c.clone().requires_grad_(True)
    lv = lib.ones(3, requires_grad=True)
    dirs = lib.rand(3, 4, 3, generator=g)
    c2w = lib.rand(4, 4, generator=g)
    lib.manual_seed(0)
    return dict(
        torch=lib,
        c=c,
        u=u,
        s32=lib.argsort(c).int(),
        r=r,
        x=c * r,
        l=lv,
        lv=lv[:2],
        e=lib.zeros(3, 1).expand(3, 5),
        i=lib.tensor([[0, 1]] * 3),
        ie=lib.tensor([[0] * 5] * 3),
        dirs=dirs,
        dirs64=dirs.double(),
        c2w=c2w,
        c2w64=c2w.double(),
        rays=lib.stack([dirs, dirs]),
        lin=lib.nn.Linear(9, 4),
    )


def c_render_ops(lib, rec):
    """searchsorted/bucketize, cumprod, gather/take_along_dim, sort, linspace, meshgrid,
    repeat_interleave, index_add/scatter_add/segment_reduce, losses and norms."""
    cases = [
        'torch.searchsorted(c, u, right=True, side="right")',
        'torch.searchsorted(c, u, side="left", right=False)',
        'torch.searchsorted(c, u, sorter=s32)',
        'torch.searchsorted(c, u, sorter=torch.zeros(3, 5, dtype=torch.int64) + 7)',
        'torch.searchsorted(c, u, sorter=torch.zeros(3, 4, dtype=torch.int64))',
        'torch.searchsorted(c, u, out_int32=True, out=torch.empty(3, 4, dtype=torch.int64))',
        'torch.searchsorted(c, u, out=torch.empty(2, 2, dtype=torch.int64))',
        'torch.searchsorted(c, u.int())',
        'torch.searchsorted(c.int(), u)',
        'torch.searchsorted(c, 1)',
        'torch.searchsorted(c[0], True)',
        'torch.searchsorted(c.bool(), u.bool())',
        'torch.searchsorted(c, u.half())',
        'torch.searchsorted(c, torch.tensor(0.5))',
        'torch.searchsorted(c[0], torch.tensor(0.5))',
        'torch.searchsorted(c[0], u[0], right=None)',
        'torch.searchsorted(c[0], u[0], side=None)',
        'torch.searchsorted(torch.empty(3, 0), u)',
        'torch.searchsorted(torch.empty(0), u)',
        'torch.searchsorted(c, torch.empty(3, 0))',
        'torch.bucketize(u, c)',
        'torch.bucketize(u, c[0], out_int32=True, right=True)',
        'torch.bucketize(0.5, c[0])',
        'torch.bucketize(u, torch.tensor(0.5))',
        'torch.cumprod(c, dim=1, dtype=torch.int64)',
        'torch.cumprod(c, dim=1, dtype=torch.bool)',
        'torch.cumprod(c, dim=1, out=torch.empty(3, 5, dtype=torch.int64))',
        'torch.cumprod(c, dim=1.0)',
        'torch.cumprod(c, dim="x")',
        'torch.cumprod(c, dim=None)',
        'torch.cumprod(c, -3)',
        'torch.cumprod(torch.tensor(2.), 1)',
        'torch.cumprod(torch.tensor(2.), -1)',
        'c.cumprod(1, torch.float64)',
        'torch.gather(c, 1, torch.tensor([[0, 1]]), sparse_grad=1)',
        'torch.gather(c, 2, torch.tensor([[0, 1]]))',
        'torch.gather(c, 1, torch.tensor([[0.0, 1]]))',
        'torch.gather(c, 1, torch.tensor([[[0]]]))',
        'torch.gather(c, 1, torch.tensor([[0, 1]]), out=torch.empty(1, 2, dtype=torch.int64))',
        'torch.gather(c, 1, [[0, 1]])',
        'torch.gather(c, dim=1)',
        'torch.gather(c, 0, torch.tensor([[3, 0]]))',
        'torch.take_along_dim(c, torch.tensor([[7]]), 1)',
        'torch.take_along_dim(c, torch.tensor([[0.]]), 1)',
        'torch.take_along_dim(c, torch.tensor([[[0]]]), 1)',
        'torch.take_along_dim(c, torch.tensor([[0]]), 2)',
        'torch.sort(c, dim=1, descending=1)',
        'torch.sort(c, stable=None)',
        'torch.sort(c, stable=False, dim=5)',
        'torch.sort(c, 1, True, stable=True)',
        'torch.sort(c.bool())',
        'torch.sort(c, out=(torch.empty(0), torch.empty(0)))',
        'torch.sort(c, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))',
        'torch.argsort(c, dim=1, stable=True, descending=1)',
        'torch.linspace(0, 1, 3.0)',
        'torch.linspace(0, 1)',
        'torch.linspace(0, 1, steps=torch.tensor(3))',
        'torch.linspace(torch.tensor([0., 1.]), 1, 3)',
        'torch.linspace(0, 1, 3, dtype=torch.int64)',
        'torch.linspace(0, 10, 4, dtype=torch.int64)',
        'torch.linspace(0, 1, 3, dtype=torch.bool)',
        'torch.linspace(0, 1, 3, out=torch.empty(2))',
        'torch.meshgrid()',
        'torch.meshgrid([])',
        'torch.meshgrid(torch.arange(2), [1, 2], indexing="ij")',
        'torch.meshgrid((torch.arange(2), torch.arange(3)), indexing="xy")',
        'torch.meshgrid(torch.arange(2), indexing="xy")',
        'torch.meshgrid(torch.empty(0), torch.arange(3), indexing="xy")',
        'torch.repeat_interleave(torch.arange(3), torch.tensor([1, -1, 2]))',
        'torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2]))',
        'torch.repeat_interleave(torch.arange(3), torch.tensor([[1, 2, 3]]))',
        'torch.repeat_interleave(torch.tensor([1, -2]))',
        'torch.repeat_interleave(torch.tensor([1., 2.]))',
        'torch.repeat_interleave(torch.arange(3), torch.tensor([1., 2., 3.]))',
        'torch.repeat_interleave(torch.arange(3), 2, output_size=5)',
        'torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2, 3]), output_size=5)',
        'torch.zeros(3).index_add(0, torch.tensor([0, 3]), torch.ones(2))',
        'torch.zeros(3).index_add(0, torch.tensor([0, 1]), torch.ones(3))',
        'torch.zeros(3).index_add(0, torch.tensor([0., 1.]), torch.ones(2))',
        'torch.zeros(3).index_add(0, torch.tensor([0, 1]), torch.ones(2, dtype=torch.float64))',
        'torch.zeros(3).scatter_add(0, torch.tensor([0, 5]), torch.ones(2))',
        'torch.zeros(3).scatter_add(0, torch.tensor([0, 1]), torch.ones(2, dtype=torch.float64))',
        'torch.zeros(3).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2), reduce="max")',
        'torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "sum", include_self=1)',
        'torch.segment_reduce(torch.ones(4), "sum", lengths=torch.tensor([1, 2]))',
        'torch.segment_reduce(torch.ones(4), "avg", lengths=torch.tensor([1, 3]))',
        'torch.segment_reduce(torch.ones(4), "sum")',
        'torch.log10(torch.tensor([1, 2]), out=torch.empty(2, dtype=torch.int64))',
        'torch.log10(1.0)',
        'torch.nn.functional.normalize(u, p=2, dim=5)',
        'torch.nn.functional.mse_loss(u, u[:, :1])',
        'torch.nn.functional.mse_loss(u, u.double())',
        'torch.nn.functional.mse_loss(u, u.long())',
        'torch.cumsum(c, 1, dtype=torch.float16)',
        'torch.rand(3, generator=1)',
        'torch.rand(3, 4, generator=torch.Generator(), dtype=torch.int32)',
        'torch.rand([3, 4], 5)',
        'torch.rand((3, -1))',
        'torch.rand_like(torch.arange(3))',
        'torch.max(u, u.long())',
        'torch.max(u, 1, True, 4)',
        'torch.norm(u, dim=-1, p="nuc")',
        'torch.norm(u, dim=(0, 1), p=3)',
    ]  # fmt: skip
    run_calls(cases, _calls_env(lib), rec)


def c_out_inplace(lib, rec):
    """out= with inputs that require grad, in-place ops on leaves, views of leaves and
    expanded tensors."""
    cases = [
        'torch.cumprod(r, 1, out=torch.empty(3, 5))',
        'torch.cumsum(r, 1, out=torch.empty(3, 5))',
        'torch.gather(r, 1, i, out=torch.empty(3, 2))',
        'torch.sort(r, 1, out=(torch.empty(3, 5), torch.empty(3, 5, dtype=torch.long)))',
        'torch.log10(r, out=torch.empty(3, 5))',
        'torch.searchsorted(r, u, out=torch.empty(3, 4, dtype=torch.long))',
        'torch.exp(r, out=r)',
        'r.cumprod_(1)',
        'e.cumprod_(1)',
        'e.mul_(2)',
        'e.add_(1)',
        'e.exp_()',
        'e[0, 0] = 1.0',
        'torch.cumprod(c, 1, out=e)',
        'torch.cumsum(c, 1, out=e)',
        'torch.sort(c, 1, out=(e, torch.empty(3, 5, dtype=torch.long)))',
        'torch.log10(c, out=e)',
        'torch.gather(c, 1, ie, out=e)',
        'e.copy_(c)',
        'e.zero_()',
        'e.clamp_(0, 1)',
        'e.scatter_(1, i, 1.0)',
        'e.index_add_(0, torch.tensor([0, 1]), torch.ones(2, 5))',
        'e.masked_fill_(c > 0.5, 0.)',
        'torch.cumprod(c, 1, out=c[:, :2])',
        'torch.cumprod(c.T, 1, out=torch.empty(5, 3).T)',
        'torch.cumprod(c, 1, dtype=torch.float64, out=torch.empty(3, 5))',
        'x.cumprod_(1)',
        'x.t().cumprod_(1)',
        'x.unsqueeze(0).cumsum_(0)',
        'l.cumprod_(0)',
        'l[0].cumprod_(0)',
        'lv.exp_()',
    ]  # fmt: skip
    run_calls(cases, _calls_env(lib), rec)


def c_user_mistakes(lib, rec):
    """dtype mixes in the ray matmuls, bad ray indices, an MLP fed the wrong width or dtype,
    conversions of tensors that require grad, ops on ints, 0-d and empty inputs."""
    cases = [
        'dirs64 @ c2w[:3, :3]',
        'dirs64.matmul(c2w[:3, :3].T)',
        'torch.matmul(dirs, c2w64[:3, :3])',
        'dirs @ c2w[:3, :4]',
        'dirs @ c2w[:, :3].T',
        'torch.einsum("hwj,ij->hwi", dirs, c2w64[:3, :3])',
        'torch.einsum("hwj,ij->hwi", dirs, c2w[:3, :4])',
        'torch.sum(dirs[..., None, :] * c2w[:3, :4], -1)',
        'torch.stack([dirs[..., 0], dirs[0, :, 0]], -1)',
        'torch.cat([dirs, dirs[0]], -1)',
        'torch.cat([dirs, dirs64], -1).dtype',
        'rays[:, torch.tensor([0, 5]), torch.tensor([1, 1])]',
        'rays[:, torch.tensor([0, 1]), torch.tensor([1, 9])]',
        'rays[:, torch.tensor([0, 1]), torch.tensor([1, 1, 2])]',
        'rays[:, torch.tensor([0., 1.])]',
        'rays[torch.tensor([True, False])]',
        'rays[:, torch.tensor([True, False, True])]',
        'lin(torch.ones(5, 7))',
        'lin(torch.ones(5, 9, dtype=torch.float64))',
        'lin(torch.ones(5, 9, dtype=torch.int64))',
        'lin(torch.ones(9))',
        'lin(torch.ones(0, 9)).shape',
        'lin(torch.ones(2, 3, 9)).shape',
        'torch.ones(4).item()',
        'torch.ones(4, requires_grad=True).numpy()',
        'torch.ones(4, requires_grad=True).tolist()',
        'float(torch.ones(4))',
        'int(torch.ones(1, 1))',
        'torch.nn.functional.mse_loss(torch.ones(4, 3), torch.ones(4))',
        'torch.nn.functional.mse_loss(torch.ones(4, 3), torch.ones(4, 3, dtype=torch.float64))',
        'torch.nn.functional.l1_loss(torch.ones(4, 3), torch.ones(3, 4))',
        'torch.nn.functional.relu(torch.ones(3, dtype=torch.int64))',
        'torch.sigmoid(torch.ones(3, dtype=torch.int64))',
        'torch.exp(torch.tensor([1, 2]))',
        'torch.nn.functional.normalize(torch.ones(3, dtype=torch.int64), dim=-1)',
        'torch.norm(torch.ones(3, dtype=torch.int64), dim=-1)',
        'torch.linalg.norm(torch.ones(3, dtype=torch.int64), dim=-1)',
        'torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64))',
        'torch.cumprod(torch.ones(3, dtype=torch.int64), 0).dtype',
        'torch.cumprod(torch.ones(3, dtype=torch.bool), 0).dtype',
        'torch.cumprod(torch.ones(3, dtype=torch.uint8), 0).dtype',
        'torch.cumprod(torch.ones(3, dtype=torch.float16), 0).dtype',
        'torch.searchsorted(torch.ones(3, dtype=torch.int64), torch.ones(2, dtype=torch.int32))',
        'torch.searchsorted(torch.arange(3), torch.tensor([1.5]))',
        'torch.searchsorted(torch.arange(3.), torch.tensor([1]))',
        'torch.searchsorted(torch.arange(3.), 1)',
        'torch.searchsorted(torch.arange(3), 1.5)',
        'torch.linspace(0, 1, 5, requires_grad=True)',
        'torch.linspace(0, 1, 5, dtype=torch.int64, requires_grad=True)',
        'torch.rand(3, requires_grad=True).requires_grad',
        'torch.randn(3, dtype=torch.int64)',
        'torch.rand_like(torch.arange(3), dtype=torch.float32).dtype',
        'torch.sort(torch.ones(3), dim=-2)',
        'torch.sort(torch.tensor(3.), dim=0)',
        'torch.sort(torch.tensor(3.), dim=-1)',
        'torch.sort(torch.tensor(3.), dim=1)',
        'torch.gather(torch.tensor(3.), 0, torch.tensor(0))',
        'torch.gather(torch.tensor(3.), 0, torch.tensor([0, 0]))',
        'torch.gather(torch.ones(3), 0, torch.tensor(0))',
        'torch.cumprod(torch.ones(3, 0), 1)',
        'torch.cumprod(torch.ones(0), 0)',
        'torch.searchsorted(torch.ones(2, 3), torch.ones(2, 0))',
        'torch.max(torch.ones(3), torch.ones(4))',
        'torch.max(torch.ones(3), torch.ones(3, dtype=torch.float64)).dtype',
        'torch.max(torch.ones(3), 1.0)',
        'torch.max(torch.ones(3), dim=1)',
        'torch.min(torch.ones(0), dim=0)',
        'torch.max(torch.ones(0))',
        'torch.zeros(3).new_ones((2,)).dtype',
        'torch.zeros(3, dtype=torch.float64).new_tensor([1, 2]).dtype',
        'torch.meshgrid(torch.arange(2), torch.arange(3.), indexing="ij")',
        'torch.meshgrid(torch.arange(2.), torch.arange(3.), torch.ones(4), indexing="xy")[0].shape',
        'torch.split(torch.ones(5, 7), 3, -1)[-1].shape',
        'torch.split(torch.ones(5, 7), [3, 3], dim=-1)',
        'torch.split(torch.ones(5, 7), [3, -1, 5], dim=-1)',
        'torch.chunk(torch.ones(5, 7), 0)',
    ]  # fmt: skip
    run_calls(cases, _calls_env(lib), rec)


def p_tensorf(lib, dt, rec):
    # TensoRF's vector-matrix decomposition: planes and lines in ParameterLists, 2-d
    # grid_sample of both, the coarse-to-fine upsampling by interpolate into new Parameters,
    # L1 and TV regularisers, and an Adam step over the parameter groups
    F = lib.nn.functional
    nn = lib.nn
    mat_mode = [[0, 1], [0, 2], [1, 2]]
    vec_mode = [2, 1, 0]
    res, n_comp = 5, 2
    lib.manual_seed(280)
    planes = nn.ParameterList(
        [nn.Parameter(0.1 * lib.randn(1, n_comp, res, res, dtype=dt)) for _ in range(3)]
    )
    lines = nn.ParameterList(
        [nn.Parameter(0.1 * lib.randn(1, n_comp, res, 1, dtype=dt)) for _ in range(3)]
    )
    basis = nn.Linear(3 * n_comp, 3, bias=False).to(dt)
    opt = lib.optim.Adam(
        [
            {"params": list(planes) + list(lines), "lr": 0.02},
            {"params": basis.parameters(), "lr": 1e-3},
        ],
        betas=(0.9, 0.99),
    )
    pts = _rand(lib, dt, 281, 12, 3) * 1.8 - 0.9

    def features(xyz):
        coord_plane = (
            lib.stack([xyz[..., mat_mode[i]] for i in range(3)]).detach().view(3, -1, 1, 2)
        )
        coord_line = lib.stack([xyz[..., vec_mode[i]] for i in range(3)])
        coord_line = (
            lib.stack((lib.zeros_like(coord_line), coord_line), dim=-1).detach().view(3, -1, 1, 2)
        )
        plane_f, line_f = [], []
        for i in range(3):
            plane_f.append(
                F.grid_sample(planes[i], coord_plane[[i]], align_corners=True).view(
                    -1, *xyz.shape[:1]
                )
            )
            line_f.append(
                F.grid_sample(lines[i], coord_line[[i]], align_corners=True).view(
                    -1, *xyz.shape[:1]
                )
            )
        return lib.cat(plane_f) * lib.cat(line_f)

    target = _rand(lib, dt, 282, 12, 3)
    for step in range(2):
        feat = features(pts)
        rgb = lib.sigmoid(basis(feat.T))
        l1 = sum(lib.mean(lib.abs(p)) for p in planes) + sum(lib.mean(lib.abs(v)) for v in lines)
        tv = sum(
            ((p[..., 1:, :] - p[..., :-1, :]) ** 2).mean()
            + ((p[..., :, 1:] - p[..., :, :-1]) ** 2).mean()
            for p in planes
        )
        loss = F.mse_loss(rgb, target) + 1e-3 * l1 + 1e-2 * tv
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"gplane{step}", planes[0].grad)
        rec(f"gline{step}", lines[1].grad)
        opt.step()
    # upsample the grids to a finer resolution, as TensoRF's upsample_volume_grid
    new_res = 8
    with lib.no_grad():
        for i in range(3):
            planes[i] = nn.Parameter(
                F.interpolate(planes[i].data, size=(new_res, new_res), mode="bilinear",
                              align_corners=True)
            )  # fmt: skip
            lines[i] = nn.Parameter(
                F.interpolate(lines[i].data, size=(new_res, 1), mode="bilinear", align_corners=True)
            )
    rec("up_plane", planes[2])
    rec("up_line", lines[0])
    rec("feat_up", features(pts))
    rec("plist", repr(planes))
    rec("n_params", sum(p.numel() for p in planes.parameters()))
    # shrink to a bounding box by slicing and re-wrapping
    lines[0] = nn.Parameter(lines[0].data[..., 2:6, :])
    rec("shrunk", lines[0].shape)


def p_func_transforms(lib, dt, rec):
    # torch.func for normals and per-ray Jacobians: vmap(grad), jacrev/jacfwd/hessian of a
    # small SDF, functional_call, and vmap of a compositing function with cumprod
    lib.manual_seed(290)
    net = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Softplus(beta=10), lib.nn.Linear(8, 1))
    net = net.to(dt)
    x = _randn(lib, dt, 291, 5, 3)

    def f(p):
        return net(p).squeeze(-1)

    rec("vgrad", lib.func.vmap(lib.func.grad(f))(x))
    rec("jacrev", lib.func.jacrev(f)(x[0]))
    rec("jacfwd", lib.func.jacfwd(f)(x[0]))
    rec("hessian", lib.func.hessian(f)(x[0]))
    rec("ajac", lib.autograd.functional.jacobian(lambda p: _posenc_vec(lib, p, 2), x[:2]))

    def loss(params, pts):
        return lib.func.functional_call(net, params, (pts,)).pow(2).mean()

    for k, v in lib.func.grad(loss)(dict(net.named_parameters()), x).items():
        rec("fc." + k, v)

    def composite(sig, z):
        d = lib.cat([z[1:] - z[:-1], z.new_full((1,), 1e10)])
        a = 1 - lib.exp(-sig * d)
        t = lib.cumprod(lib.cat([a.new_ones(1), 1 - a + 1e-10]), 0)[:-1]
        return a * t

    sig = _rand(lib, dt, 292, 4, 6)
    z = lib.linspace(2, 6, 6, dtype=dt).expand(4, 6)
    rec("vmap_comp", lib.func.vmap(composite)(sig, z))
    rec("vmap_jac", lib.func.vmap(lib.func.jacrev(composite))(sig, z))


def p_anomaly_nan(lib, dt, rec):
    # an empty ray (acc 0) makes depth / acc and the disparity NaN: what the losses give, what
    # anomaly mode names, and the usual guards
    z = _stratified(lib, 2.0, 6.0, 3, 6, dt, perturb=False)
    rays_d = _randn(lib, dt, 300, 3, 3)
    raw = _randn(lib, dt, 301, 3, 6, 4)
    raw[0, :, 3] = -5.0
    raw.requires_grad_(True)

    def losses(out):
        rgb, disp, acc, _, depth = out
        return [
            disp.sum(), (depth / acc).sum(), lib.sqrt(acc - acc).sum(), (acc.log() * 0).sum(),
            lib.nan_to_num(disp, nan=0.0).sum(), (depth / acc.clamp_min(1e-10)).sum(),
            lib.where(acc > 0, depth / acc, lib.zeros_like(depth)).sum(),
        ]  # fmt: skip

    for i in range(7):
        loss = losses(_raw2outputs(lib, raw, z, rays_d))[i]
        rec(f"loss{i}", loss)
        loss.backward()
        rec(f"nan{i}", raw.grad.isnan().sum())
        raw.grad = None

        def anomalous(i=i):
            with lib.autograd.detect_anomaly(check_nan=True):
                losses(_raw2outputs(lib, raw, z, rays_d))[i].backward()

        rec.err(f"anomaly{i}", anomalous)
        raw.grad = None
    rec("enabled", lib.is_anomaly_enabled())
    rec("check_nan", lib.is_anomaly_check_nan_enabled())


def p_autocast(lib, dt, rec):
    # the MLP under CPU autocast (bfloat16, float16) and the rendering ops on its output: which
    # ops run in the low type, which in float32, which promote (compared to 1e-2, see TOL)
    model = _model(lib, dt, 310, D=3, W=16, input_ch=9, input_ch_views=9, skips=(1,))
    emb = _Embedder(lib, 1)
    x = _randn(lib, dt, 311, 8, 3)
    z = _stratified(lib, 2.0, 6.0, 2, 4, dt, perturb=False)
    d = _randn(lib, dt, 312, 2, 3)
    F = lib.nn.functional
    for adt in (lib.bfloat16, lib.float16):
        t = str(adt).split(".")[-1] + "."
        # (a test that left torch's autocast nesting raised in this process keeps its cast
        # cache past the block: the float16 pass would meet the bfloat16 weights)
        lib.clear_autocast_cache()
        with lib.autocast("cpu", dtype=adt):
            raw = model(lib.cat([emb(x), emb(x)], -1)).reshape(2, 4, 4)
            rec(t + "raw", raw)
            for i, o in enumerate(_raw2outputs(lib, raw, z, d)):
                rec(t + f"out{i}", o)
            sig = raw[..., 3]
            rec(t + "cumprod", lib.cumprod(sig, -1))
            rec(t + "cumsum", lib.cumsum(sig, -1))
            rec(t + "log10", lib.log10(raw.abs() + 1))
            rec(t + "sort", lib.sort(sig, -1).values)
            cdf = lib.cumsum(sig.abs(), -1)
            rec(t + "searchsorted", lib.searchsorted(cdf, raw[..., 0].abs().contiguous()))
            rec(t + "gather", lib.gather(sig, 1, lib.tensor([[0, 1], [2, 3]])))
            rec(t + "mse", F.mse_loss(raw[..., :3], lib.zeros(2, 4, 3, dtype=dt)))
            rec(t + "norm", lib.norm(raw, dim=-1))
            rec(t + "sigmoid", lib.sigmoid(raw))
            rec(t + "softplus", F.softplus(raw))
            rec(t + "matmul", raw[0] @ raw[1].T)
            rec(t + "einsum", lib.einsum("ij,kj->ik", raw[0], raw[1]))
            rec(t + "exp", lib.exp(raw))
            rec(t + "prod", lib.prod(raw, -1))
            rec(t + "cat", lib.cat([raw, z[..., None]], -1))
            rec(t + "where", lib.where(raw > 0, raw, z[..., None]))
            grid = lib.zeros(1, 2, 2, 2, dtype=dt)
            rec(t + "grid_sample", F.grid_sample(raw[None], grid, align_corners=True))


def _node_names(t):
    """The grad_fn graph of t, breadth first, as node class names (what graph drawers show)."""
    seen, order, queue = set(), [], [t.grad_fn]
    while queue:
        n = queue.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        order.append(type(n).__name__)
        queue.extend(nx for nx, _ in n.next_functions)
    return str(order)


def p_graph_names(lib, dt, rec):
    # the autograd graphs of a coarse + fine render, inverse-CDF sampling, the encodings and
    # NDC rays, node by node (torchviz-style walks over next_functions)
    model = _model(lib, dt, 320, D=3, W=8, input_ch=9, input_ch_views=9, skips=(1,))
    emb = _Embedder(lib, 1)
    o = _randn(lib, dt, 321, 4, 3) * 0.1
    d = _randn(lib, dt, 322, 4, 3).requires_grad_(True)
    out = _render(lib, model, o, d, 1.0, 4.0, 4, 5, _gen(lib, 323), emb, emb)
    for name, t in zip(("rgb0", "rgb", "disp", "acc", "depth"), out[:-1], strict=True):
        rec(name, _node_names(t))
    bins = lib.linspace(0, 1, 5, dtype=dt).expand(2, 5).clone().requires_grad_(True)
    w = _rand(lib, dt, 324, 2, 4).requires_grad_(True)
    rec("sample_pdf", _node_names(_sample_pdf(lib, bins, w, 4, gen=_gen(lib, 325))[0]))
    x = _randn(lib, dt, 326, 3, 3).requires_grad_(True)
    rec("posenc", _node_names(_posenc_vec(lib, x, 2)))
    rec("ndc", _node_names(_ndc_rays(lib, 4, 5, 3.0, 1.0, x, x)[1]))
    rec("embedder", _node_names(emb(x)))


def p_dvgo(lib, dt, rec):
    # DVGO-style dense voxel grids: trilinear lookups by grid_sample of flipped coordinates,
    # the shifted-softplus density, the grid upscaled by trilinear interpolate, a mask cache by
    # max_pool3d, and the total-variation gradient added in place
    F = lib.nn.functional
    density = (_randn(lib, dt, 330, 1, 1, 4, 5, 6) * 0.5).requires_grad_(True)
    k0 = (_randn(lib, dt, 331, 1, 3, 4, 5, 6) * 0.2).requires_grad_(True)
    xyz_min = lib.tensor([-1.0, -1.0, -1.0], dtype=dt)
    xyz_max = lib.tensor([1.0, 1.0, 1.0], dtype=dt)
    xyz = _rand(lib, dt, 332, 10, 3) * 1.8 - 0.9

    def grid_sampler(xyz, *grids):
        shape = xyz.shape[:-1]
        xyz = xyz.reshape(1, 1, 1, -1, 3)
        ind_norm = ((xyz - xyz_min) / (xyz_max - xyz_min)).flip((-1,)) * 2 - 1
        return [
            F.grid_sample(g, ind_norm, mode="bilinear", align_corners=True)
            .reshape(g.shape[1], -1)
            .T.reshape(*shape, g.shape[1])
            .squeeze()
            for g in grids
        ]

    act_shift = math.log(1 / (1 - 1e-2) - 1)
    dens, feat = grid_sampler(xyz, density, k0)
    alpha = 1 - lib.exp(-F.softplus(dens + act_shift) * 0.5)
    rec("dens", dens)
    rec("feat", feat)
    rec("alpha", alpha)
    (alpha.sum() + lib.sigmoid(feat).square().sum()).backward()
    rec("gdens", density.grad)
    rec("gk0", k0.grad)
    # total variation added to the gradient in place (DVGO's total_variation_add_grad)
    with lib.no_grad():
        tv = lib.zeros_like(density)
        dz = lib.diff(density, dim=-1)
        tv[..., :-1] -= dz.sign() * 1e-3
        tv[..., 1:] += dz.sign() * 1e-3
        density.grad.add_(tv)
    rec("gdens_tv", density.grad)
    with lib.no_grad():
        up = F.interpolate(density.data, size=(6, 7, 8), mode="trilinear", align_corners=True)
    rec("up", up)
    mask = F.max_pool3d(alpha.new_zeros(1, 1, 4, 5, 6).add_(density.detach()), 3, 1, 1) > 0.3
    rec("mask", mask)
    rec("mask_sum", mask.sum())
    rec("flip", xyz.flip(-1)[:3])
    rec("flip2", lib.flip(xyz, dims=(0, 1))[:3])
