"""Session 27: small generative models as researchers write them from papers, written once
against a torch-like module and run under torch and minitorch after the same manual_seed.

DDPM (linear / cosine schedules, q_sample with schedules gathered by long timesteps, sinusoidal
embeddings with odd sizes, a GroupNorm / SiLU U-Net with timestep injection, eps / v / x0
parametrisations, EMA by hand, lerp_, _foreach and AveragedModel), samplers (ancestral, DDIM with
eta 0 and > 0, classifier-free guidance, dynamic thresholding by per-sample quantiles and tensor
clamp bounds, EDM Heun with Karras sigmas, rectified flow), a DiT (adaLN-Zero, NumPy sincos
positions, patchify by einsum and unfold / fold, bf16 autocast), fp16 / bf16 inference, NumPy
schedules (from_numpy, NumPy scalars and arrays as indices), variational bounds (discretised
Gaussian likelihood, Gaussian KL), score matching (denoising, sliced with create_graph, annealed
Langevin), an energy-based model with a replay buffer, VQ-VAE (expanded distances and cdist,
straight-through, commitment, EMA codebooks with one_hot / index_add_ / scatter_add_ / bincount
and Laplace smoothing, perplexity, dead-code restarts, Gumbel-softmax), FSQ / LFQ / residual VQ /
the rotation trick / k-means init, PixelCNN masked convolutions, masked / uniform discrete
diffusion, planar / radial flows, MADE, Glow (slogdet, LU parametrisation, actnorm data-dependent
init), rational-quadratic splines, FFJORD's Hutchinson trace, transforms and residual flows, a
hinge GAN with spectral norm, R1 and DiffAugment (translation, cutout, affine_grid / grid_sample,
roll), StyleGAN2 pieces (equalised lr, modulated grouped convolutions, path-length penalty,
minibatch stddev, truncation), classifier guidance and inpainting in a no_grad loop, DPM-Solver++
and Euler-ancestral steps, a latent-diffusion posterior and sample metrics (cov, eigh, kthvalue),
functional_call / jvp / forward AD, baddbmm with beta=0 over NaN, uint8 image conversion, index
dtypes, legacy constructors and deprecation warnings, random streams (rrelu's too; noise on
channels_last and transposed tensors), errors, warnings and reprs.

Integers exactly; values to 1e-4 of their scale (float32 and float64), 1e-2 for float16 /
bfloat16 records. Not compared: `ndarray <op> tensor` (torch raises TypeError; minitorch's NumPy
interop computes it, README "Differences from PyTorch"), NumPy uint16 arrays (refused by
minitorch's factories, documented)."""

from __future__ import annotations

import copy
import io
import math

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def _parts(*progs):
    def prog(lib, rec):
        for p in progs:
            p(lib, rec)

    return prog


def _programs():
    return {
        "ddpm_schedule": _parts(p_ddpm_sched, p_numpy_sched),
        "ddpm_train_ema": p_ddpm_train,
        "samplers": p_samplers,
        "edm_flow_matching": p_edm,
        "vlb": p_vlb,
        "dit": p_dit,
        "unet_parts": p_unet_parts,
        "ema_utils": p_ema_utils,
        "half_inference": p_half,
        "score_matching": p_score,
        "ebm": p_ebm,
        "vqvae": p_vq,
        "vq_variants": _parts(p_fsq, p_vq2),
        "discrete": _parts(p_pixelcnn, p_d3pm),
        "planar_radial": p_planar,
        "made": p_made,
        "glow": p_glow,
        "spline_ffjord": _parts(p_nsf, p_ffjord),
        "flows_misc": p_flows2,
        "gan": _parts(p_gan, p_sn_more),
        "quantile_streams": _parts(p_quant, p_streams),
        "errors_warnings": _parts(p_errs, p_warns),
        "guidance_solvers": p_guidance,
        "ldm_metrics": p_ldm_metrics,
        "index_dtypes": p_idx,
        "stylegan": p_stylegan,
        "images": p_images,
        "attention_ops": p_attn_ops,
        "legacy_api": p_legacy,
        "channels_last_noise": p_layouts,
        "distribution_errors": p_dist_errs,
    }


PROGRAMS = [
    "ddpm_schedule", "ddpm_train_ema", "samplers", "edm_flow_matching", "vlb", "dit", "unet_parts",
    "ema_utils", "half_inference", "score_matching", "ebm", "vqvae", "vq_variants", "discrete",
    "planar_radial", "made", "glow", "spline_ffjord", "flows_misc", "gan", "quantile_streams",
    "errors_warnings", "guidance_solvers", "ldm_metrics", "index_dtypes",
    "stylegan", "images", "attention_ops", "legacy_api",
    "channels_last_noise", "distribution_errors",
]  # fmt: skip


def _tol(name, value):
    """1e-2 for what ran in float16 / bfloat16 (the half program, the DiT under autocast); 2e-2
    for the bfloat16 sampler's trajectory, four U-Net calls deep, where torch's own bfloat16
    convolutions round differently with the CPU's vector instructions (AVX2 / AVX-512)."""
    if name.startswith("bfloat16x"):
        return 2e-2
    if name.startswith(("float16", "bfloat16", "ac")):
        return 1e-2
    return 1e-4


@pytest.mark.parametrize("name", PROGRAMS)
def test_generative_program_matches_torch(name):
    prog = _programs()[name]
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, _tol, rename=True)


def test_generative_reprs_match_torch():
    want = run_program(p_reprs, torch, rec=Rec(reprs=True))
    got = run_program(p_reprs, minitorch, rec=Rec(reprs=True))
    assert_records_match(want, got, 0, rename=True)


# --- the programs: each takes the library and a recorder ---


def p_ddpm_sched(lib, rec):
    F = lib.nn.functional
    T = 50
    betas = lib.linspace(1e-4, 0.02, T)
    rec("betas", betas)
    s = 0.008
    steps = lib.arange(T + 1, dtype=lib.float64) / T
    ac = lib.cos((steps + s) / (1 + s) * math.pi * 0.5) ** 2
    ac = ac / ac[0]
    cb = 1 - (ac[1:] / ac[:-1])
    cb = lib.clamp(cb, 0.0001, 0.9999).float()
    rec("cos_betas", cb)
    alphas = 1.0 - betas
    acp = lib.cumprod(alphas, dim=0)
    acp_prev = F.pad(acp[:-1], (1, 0), value=1.0)
    rec("acp", acp)
    rec("acp_prev", acp_prev)
    sqrt_acp = lib.sqrt(acp)
    sqrt_1m = lib.sqrt(1.0 - acp)
    post_var = betas * (1.0 - acp_prev) / (1.0 - acp)
    rec("post_var", post_var)
    rec("post_logvar", lib.log(lib.cat([post_var[1:2], post_var[1:]])))
    lib.manual_seed(0)
    x0 = lib.randn(4, 3, 8, 8)
    t = lib.randint(0, T, (4,))
    rec("t", t)
    noise = lib.randn_like(x0)
    rec("noise", noise)

    def extract(a, t, shape):
        out = a.gather(-1, t)
        return out.reshape(t.shape[0], *((1,) * (len(shape) - 1)))

    xt = extract(sqrt_acp, t, x0.shape) * x0 + extract(sqrt_1m, t, x0.shape) * noise
    rec("xt", xt)
    xt2 = sqrt_acp[t].view(-1, 1, 1, 1) * x0 + sqrt_1m[t].view(-1, 1, 1, 1) * noise
    rec("xt2", xt2)
    rec("xt.dtype", str(xt.dtype))

    # sinusoidal embedding, odd dim
    def emb(t, dim):
        half = dim // 2
        freqs = lib.exp(-math.log(10000) * lib.arange(0, half, dtype=lib.float32) / half)
        args = t[:, None].float() * freqs[None]
        e = lib.cat([lib.cos(args), lib.sin(args)], dim=-1)
        if dim % 2:
            e = F.pad(e, (0, 1))
        return e

    rec("emb8", emb(t, 8))
    rec("emb7", emb(t, 7))
    # v parametrisation
    v = extract(sqrt_acp, t, x0.shape) * noise - extract(sqrt_1m, t, x0.shape) * x0
    rec("v", v)
    x0_from_v = extract(sqrt_acp, t, x0.shape) * xt - extract(sqrt_1m, t, x0.shape) * v
    rec("x0_from_v", x0_from_v)
    # snr weights
    snr = acp / (1 - acp)
    rec("minsnr", lib.clamp(snr, max=5.0) / snr)
    rec("snr_t", snr.index_select(0, t))
    rec("idx_long_f", acp[t.tolist()])
    rec("searchsorted", lib.searchsorted(acp.flip(0), lib.tensor([0.5, 0.9])))


def unet(lib, ch=8, tdim=16):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.n1 = nn.GroupNorm(4, cin)
            self.c1 = nn.Conv2d(cin, cout, 3, padding=1)
            self.t = nn.Linear(tdim, cout)
            self.n2 = nn.GroupNorm(4, cout)
            self.c2 = nn.Conv2d(cout, cout, 3, padding=1)
            self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x, te):
            h = self.c1(F.silu(self.n1(x)))
            h = h + self.t(F.silu(te))[:, :, None, None]
            h = self.c2(F.dropout(F.silu(self.n2(h)), 0.1, self.training))
            return h + self.skip(x)

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inc = nn.Conv2d(3, ch, 3, padding=1)
            self.temb = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
            self.d1 = Block(ch, ch)
            self.down = nn.Conv2d(ch, ch, 3, stride=2, padding=1)
            self.mid = Block(ch, 2 * ch)
            self.up = nn.ConvTranspose2d(2 * ch, ch, 4, 2, 1)
            self.u1 = Block(2 * ch, ch)
            self.out = nn.Sequential(nn.GroupNorm(4, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

        def emb(self, t):
            half = tdim // 2
            f = lib.exp(-math.log(10000) * lib.arange(half, device=t.device) / half)
            a = t.float()[:, None] * f[None]
            return lib.cat((a.sin(), a.cos()), dim=1).to(self.inc.weight.dtype)

        def forward(self, x, t):
            te = self.temb(self.emb(t))
            h0 = self.d1(self.inc(x), te)
            h = self.mid(self.down(h0), te)
            h = self.up(h)
            h = self.u1(lib.cat([h, h0], 1), te)
            return self.out(h)

    return UNet()


def p_ddpm_train(lib, rec):
    F = lib.nn.functional
    import copy

    lib.manual_seed(1)
    net = unet(lib)
    ema = copy.deepcopy(net)
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = lib.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.01)
    T = 20
    betas = lib.linspace(1e-4, 0.02, T)
    acp = lib.cumprod(1 - betas, 0)
    for step in range(3):
        x0 = lib.rand(4, 3, 8, 8) * 2 - 1
        t = lib.randint(0, T, (x0.shape[0],), device=x0.device).long()
        eps = lib.randn_like(x0)
        a = acp[t].view(-1, 1, 1, 1)
        xt = a.sqrt() * x0 + (1 - a).sqrt() * eps
        pred = net(xt, t)
        loss = F.mse_loss(pred, eps)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        with lib.no_grad():
            for pe, pn in zip(ema.parameters(), net.parameters(), strict=True):
                pe.mul_(0.9).add_(pn.detach(), alpha=0.1)
            for be, bn in zip(ema.buffers(), net.buffers(), strict=True):
                be.copy_(bn)
        rec(f"loss{step}", loss)
        rec(f"gn{step}", gn)
    rec.params("ema", ema)
    # x0 param & ema with lerp_
    with lib.no_grad():
        for pe, pn in zip(ema.parameters(), net.parameters(), strict=True):
            pe.lerp_(pn, 0.5)
    rec.params("ema2", ema)
    # torch._foreach_lerp_
    ep = list(ema.parameters())
    lib._foreach_lerp_(ep, [p.detach() for p in net.parameters()], 0.25)
    rec("ema3", ep[0])


def p_samplers(lib, rec):
    lib.manual_seed(2)
    net = unet(lib).eval()
    T = 20
    betas = lib.linspace(1e-4, 0.02, T)
    alphas = 1 - betas
    acp = lib.cumprod(alphas, 0)
    acp_prev = lib.cat([lib.ones(1), acp[:-1]])
    x = lib.randn(2, 3, 8, 8)
    with lib.no_grad():
        # ancestral
        for i in reversed(range(0, T, 5)):
            t = lib.full((x.shape[0],), i, dtype=lib.long)
            eps = net(x, t)
            x0 = (x - (1 - acp[t]).sqrt().view(-1, 1, 1, 1) * eps) / acp[t].sqrt().view(-1, 1, 1, 1)
            x0 = x0.clamp(-1, 1)
            coef1 = betas[t] * acp_prev[t].sqrt() / (1 - acp[t])
            coef2 = (1 - acp_prev[t]) * alphas[t].sqrt() / (1 - acp[t])
            mean = coef1.view(-1, 1, 1, 1) * x0 + coef2.view(-1, 1, 1, 1) * x
            var = betas[t] * (1 - acp_prev[t]) / (1 - acp[t])
            nz = (t != 0).float().view(-1, 1, 1, 1)
            x = mean + nz * (0.5 * var.clamp(min=1e-20).log()).exp().view(
                -1, 1, 1, 1
            ) * lib.randn_like(x)
            rec(f"anc{i}", x)
        # DDIM
        ts = list(range(T - 1, -1, -4))
        for eta in (0.0, 0.5):
            lib.manual_seed(3)
            x = lib.randn(2, 3, 8, 8)
            for j, i in enumerate(ts):
                t = lib.tensor([i] * 2)
                a_t = acp[i]
                a_p = acp[ts[j + 1]] if j + 1 < len(ts) else lib.tensor(1.0)
                eps = net(x, t)
                x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
                sigma = eta * ((1 - a_p) / (1 - a_t) * (1 - a_t / a_p)).sqrt()
                dirx = (1 - a_p - sigma**2).sqrt() * eps
                x = a_p.sqrt() * x0 + dirx + sigma * lib.randn_like(x)
            rec(f"ddim{eta}", x)
        # CFG
        lib.manual_seed(4)
        x = lib.randn(2, 3, 8, 8)
        cond = lib.tensor([3, 7])
        t = lib.tensor([10, 10])
        xin = lib.cat([x] * 2)
        tin = lib.cat([t, t])
        out = net(xin, tin + lib.cat([cond, lib.zeros_like(cond)]))
        e_c, e_u = out.chunk(2)
        eps = e_u + 3.0 * (e_c - e_u)
        rec("cfg", eps)
        # dynamic thresholding
        x0 = eps * 2
        s = lib.quantile(x0.reshape(x0.shape[0], -1).abs(), 0.9, dim=-1)
        s = lib.maximum(s, lib.ones_like(s)).view(-1, 1, 1, 1)
        rec("s", s)
        x0t = lib.clamp(x0, -s, s) / s
        rec("thr", x0t)
        rec("thr2", x0.clamp(min=-s, max=s))
        rec("thr3", lib.where(x0 > s, s, x0))
        s2 = x0.flatten(1).abs().quantile(0.95, dim=1, keepdim=True, interpolation="nearest")
        rec("s2", s2)
        rec("qq", lib.quantile(x0.flatten(1), lib.tensor([0.1, 0.5, 0.9]), dim=1))


def p_edm(lib, rec):
    nn = lib.nn
    lib.manual_seed(13)
    n, rho, smin, smax = 6, 7.0, 0.002, 80.0
    ramp = lib.linspace(0, 1, n)
    sig = (smax ** (1 / rho) + ramp * (smin ** (1 / rho) - smax ** (1 / rho))) ** rho
    sig = lib.cat([sig, lib.zeros_like(sig[:1])])
    rec("karras", sig)
    net = nn.Sequential(nn.Linear(5, 16), nn.SiLU(), nn.Linear(16, 4))
    sd = 0.5

    def denoise(x, s):
        s = s.reshape(-1, 1)
        c_skip = sd**2 / (s**2 + sd**2)
        c_out = s * sd / (s**2 + sd**2).sqrt()
        c_in = 1 / (sd**2 + s**2).sqrt()
        c_noise = s.log() / 4
        return c_skip * x + c_out * net(lib.cat([c_in * x, c_noise.expand(x.shape[0], 1)], 1))

    x = lib.randn(3, 4) * sig[0]
    with lib.no_grad():
        for i in range(n):
            s, sn = sig[i], sig[i + 1]
            d = (x - denoise(x, s)) / s
            xn = x + (sn - s) * d
            if sn > 0:
                d2 = (xn - denoise(xn, sn)) / sn
                xn = x + (sn - s) * (0.5 * d + 0.5 * d2)
            x = xn
            rec(f"heun{i}", x)
    # EDM training: log-normal sigma
    rnd = lib.randn([4, 1])
    sigma = (rnd * 1.2 - 1.2).exp()
    w = (sigma**2 + sd**2) / (sigma * sd) ** 2
    y = lib.randn(4, 4)
    dn = denoise(y + lib.randn_like(y) * sigma, sigma.flatten())
    loss = (w * (dn - y) ** 2).mean()
    loss.backward()
    rec("edm_loss", loss)
    rec("edm_g", net[0].weight.grad)
    # rectified flow / flow matching
    t = lib.sigmoid(lib.randn(4))
    x1 = lib.randn(4, 4)
    x0 = lib.randn_like(x1)
    xt = (1 - t[:, None]) * x0 + t[:, None] * x1
    rec("xt", xt)
    tt = lib.rand(4, 1)
    rec("tt", tt)
    tb = lib.distributions.Beta(lib.tensor(2.0), lib.tensor(1.0)).sample((3,))
    rec("beta", tb)
    # importance sampled timesteps
    hist = lib.rand(10) + 0.1
    p = hist / hist.sum()
    ts = lib.multinomial(p, 5, replacement=True)
    rec("ts", ts)
    rec("w_is", 1 / (10 * p[ts]))
    ts2 = lib.distributions.Categorical(probs=p).sample((5,))
    rec("ts2", ts2)


def p_vlb(lib, rec):
    lib.manual_seed(14)
    dt = lib.float64

    def approx_cdf(x):
        return 0.5 * (1.0 + lib.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * lib.pow(x, 3))))

    def disc_ll(x, means, log_scales):
        cx = x - means
        inv = lib.exp(-log_scales)
        cdf_plus = approx_cdf(inv * (cx + 1.0 / 255.0))
        cdf_min = approx_cdf(inv * (cx - 1.0 / 255.0))
        log_cdf_plus = lib.log(cdf_plus.clamp(min=1e-12))
        log_1m = lib.log((1.0 - cdf_min).clamp(min=1e-12))
        delta = cdf_plus - cdf_min
        return lib.where(
            x < -0.999, log_cdf_plus, lib.where(x > 0.999, log_1m, lib.log(delta.clamp(min=1e-12)))
        )

    x = lib.randint(0, 256, (2, 3, 4, 4)).to(dt) / 127.5 - 1
    m = lib.randn(2, 3, 4, 4, dtype=dt, requires_grad=True) * 0.1
    ls = lib.full((2, 3, 4, 4), -2.0, dtype=dt, requires_grad=True)
    ll = disc_ll(x, m, ls)
    rec("ll", ll.mean(dim=list(range(1, 4))) / math.log(2.0))
    ll.sum().backward()
    rec("gls", ls.grad)

    def kl(m1, lv1, m2, lv2):
        return 0.5 * (-1.0 + lv2 - lv1 + lib.exp(lv1 - lv2) + (m1 - m2) ** 2 * lib.exp(-lv2))

    m1, m2 = lib.randn(4, dtype=dt), lib.randn(4, dtype=dt)
    rec("kl", kl(m1, lib.tensor(-1.0, dtype=dt), m2, lib.zeros(4, dtype=dt)))
    d1 = lib.distributions.Normal(m1, (0.5 * lib.tensor(-1.0, dtype=dt)).exp())
    d2 = lib.distributions.Normal(m2, lib.ones(4, dtype=dt))
    rec("kl_d", lib.distributions.kl_divergence(d1, d2))
    # VDM-style: gamma(t) monotone net, alpha^2 = sigmoid(-gamma)
    g = lib.linspace(-13.3, 5.0, 5, dtype=dt)
    rec("a2", lib.sigmoid(-g))
    rec("s2", lib.sigmoid(g))
    rec("snr", lib.exp(-g))
    rec("expm1", lib.special.expm1(g))
    rec("logsig", lib.nn.functional.logsigmoid(-g))
    rec("ndtri", lib.special.ndtri(lib.tensor([0.1, 0.5, 0.975], dtype=dt)))
    rec("log_ndtr", lib.special.log_ndtr(g))
    rec("erfinv", lib.erfinv(lib.tensor([-0.5, 0.0, 0.9], dtype=dt)))
    # log-space cumulative alphas
    lb = lib.log1p(-lib.linspace(1e-4, 0.02, 10, dtype=dt))
    rec("log_acp", lib.cumsum(lb, 0))
    rec("logaddexp", lib.logaddexp(lb, lb.flip(0)))
    rec("lse", lib.logcumsumexp(lb, 0))
    # continuous-time cosine log snr
    t = lib.rand(5, dtype=dt)
    rec("logsnr", -2 * lib.log(lib.tan(math.pi * t / 2)))
    rec("logsnr_c", (-2 * lib.log(lib.tan(math.pi * t / 2))).clamp(-20, 20))


def p_fsq(lib, rec):
    F = lib.nn.functional
    lib.manual_seed(15)
    levels = [8, 5, 5]
    L = lib.tensor(levels, dtype=lib.int32)
    basis = lib.cumprod(lib.tensor([1] + levels[:-1]), dim=0, dtype=lib.int32)
    rec("basis", basis)
    z = lib.randn(2, 6, 3, requires_grad=True)
    eps = 1e-3
    half_l = (L - 1) * (1 + eps) / 2
    offset = lib.where(L % 2 == 0, 0.5, 0.0)
    rec("offset", offset)
    shift = (offset / half_l).atanh()
    rec("shift", shift)
    bounded = (z + shift).tanh() * half_l - offset
    q = bounded + (bounded.round() - bounded).detach()
    hw = L // 2
    codes = q / hw
    rec("codes", codes)
    idx = ((codes * hw + hw) * basis).sum(dim=-1).to(lib.int32)
    rec("idx", idx)
    back = (idx.unsqueeze(-1) // basis) % L
    rec("back", back)
    codes.pow(2).sum().backward()
    rec("gz", z.grad)
    # LFQ
    x = lib.randn(3, 4)
    b = lib.where(x > 0, 1, -1)
    rec("lfq_b", b)
    q2 = lib.where(x > 0, lib.ones_like(x), -lib.ones_like(x))
    mask = 2 ** lib.arange(4 - 1, -1, -1)
    rec("mask", mask)
    rec("lfq_idx", ((q2 > 0).int() * mask.int()).sum(-1))
    rec("lfq_idx2", ((q2 > 0) * mask).sum(-1))
    # residual VQ
    cbs = [lib.randn(8, 4) for _ in range(3)]
    res = lib.randn(5, 4)
    out = lib.zeros_like(res)
    all_idx = []
    for cb in cbs:
        d = lib.cdist(res, cb)
        i = d.argmin(-1)
        qv = F.embedding(i, cb)
        out = out + qv
        res = res - qv
        all_idx.append(i)
    rec("rvq_idx", lib.stack(all_idx, -1))
    rec("rvq_out", out)
    # rotation trick (Fifty et al.)
    e = lib.randn(5, 4)
    zz = lib.randn(5, 4, requires_grad=True)
    zn = F.normalize(zz, dim=-1)
    en = F.normalize(e, dim=-1)
    r = F.normalize(zn + en, dim=-1).detach()
    zr = (
        zz
        - 2 * (zz * r).sum(-1, keepdim=True) * r
        + 2 * (zz * zn.detach()).sum(-1, keepdim=True) * en
    )
    lam = (e.norm(dim=-1, keepdim=True) / zz.norm(dim=-1, keepdim=True)).detach()
    qq = lam * zr
    qq.sum().backward()
    rec("rot_q", qq)
    rec("rot_g", zz.grad)
    # code usage entropy
    probs = F.softmax(-(lib.cdist(lib.randn(10, 4), lib.randn(8, 4)) ** 2), -1)
    avg = probs.mean(0)
    rec("ent", lib.distributions.Categorical(probs=avg).entropy())
    rec("sample_ent", -(probs * probs.clamp(min=1e-5).log()).sum(-1).mean())
    rec("xlogy", lib.special.xlogy(avg, avg))
    rec("entr", lib.special.entr(avg))


def sincos_2d(embed_dim, grid_size):
    gh = np.arange(grid_size, dtype=np.float32)
    gw = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(gw, gh)
    grid = np.stack(grid, axis=0).reshape([2, 1, grid_size, grid_size])

    def one(d, pos):
        omega = np.arange(d // 2, dtype=np.float64) / (d / 2.0)
        omega = 1.0 / 10000**omega
        out = np.einsum("m,d->md", pos.reshape(-1), omega)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)

    return np.concatenate([one(embed_dim // 2, grid[0]), one(embed_dim // 2, grid[1])], axis=1)


def dit(lib, C=3, P=2, D=16, H=2, N=4, ncls=5):
    nn = lib.nn

    def modulate(x, shift, scale):
        return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1 = nn.LayerNorm(D, elementwise_affine=False, eps=1e-6)
            self.attn = nn.MultiheadAttention(D, H, batch_first=True)
            self.n2 = nn.LayerNorm(D, elementwise_affine=False, eps=1e-6)
            self.mlp = nn.Sequential(
                nn.Linear(D, 4 * D), nn.GELU(approximate="tanh"), nn.Linear(4 * D, D)
            )
            self.ada = nn.Sequential(nn.SiLU(), nn.Linear(D, 6 * D))

        def forward(self, x, c):
            sm, scm, gm, sp, scp, gp = self.ada(c).chunk(6, dim=1)
            h = modulate(self.n1(x), sm, scm)
            x = x + gm.unsqueeze(1) * self.attn(h, h, h, need_weights=False)[0]
            return x + gp.unsqueeze(1) * self.mlp(modulate(self.n2(x), sp, scp))

    class DiT(nn.Module):
        def __init__(self):
            super().__init__()
            self.x_emb = nn.Conv2d(C, D, P, P)
            self.y_emb = nn.Embedding(ncls + 1, D)
            self.t_mlp = nn.Sequential(nn.Linear(8, D), nn.SiLU(), nn.Linear(D, D))
            self.register_buffer("pos", lib.from_numpy(sincos_2d(D, N)).float().unsqueeze(0))
            self.blocks = nn.ModuleList([Block(), Block()])
            self.fn = nn.LayerNorm(D, elementwise_affine=False, eps=1e-6)
            self.fada = nn.Sequential(nn.SiLU(), nn.Linear(D, 2 * D))
            self.out = nn.Linear(D, P * P * C)
            self.apply(self._init)
            nn.init.normal_(self.y_emb.weight, std=0.02)
            nn.init.normal_(self.t_mlp[0].weight, std=0.02)
            for b in self.blocks:
                nn.init.constant_(b.ada[-1].weight, 0)
                nn.init.constant_(b.ada[-1].bias, 0)
            w = self.x_emb.weight.data
            nn.init.xavier_uniform_(w.view([w.shape[0], -1]))

        @staticmethod
        def _init(m):
            if isinstance(m, nn.Linear):
                lib.nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)

        def forward(self, x, t, y):
            x = self.x_emb(x).flatten(2).transpose(1, 2) + self.pos
            half = 4
            fr = lib.exp(-math.log(10000) * lib.arange(start=0, end=half, dtype=lib.float32) / half)
            a = t[:, None].float() * fr[None]
            c = self.t_mlp(lib.cat([lib.cos(a), lib.sin(a)], -1)) + self.y_emb(y)
            for b in self.blocks:
                x = b(x, c)
            sh, sc = self.fada(c).chunk(2, dim=1)
            x = self.out(modulate(self.fn(x), sh, sc))
            n = x.shape[0]
            x = x.reshape(n, N, N, P, P, C)
            x = lib.einsum("nhwpqc->nchpwq", x)
            return x.reshape(n, C, N * P, N * P)

    return DiT()


def p_dit(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(25)
    m = dit(lib)
    rec("pos", m.pos)
    rec("xemb", m.x_emb.weight)
    opt = lib.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0)
    for it in range(2):
        x = lib.randn(3, 3, 8, 8)
        y = lib.randint(0, 5, (3,))
        drop = lib.rand(y.shape[0]) < 0.5
        y = lib.where(drop, 5, y)
        rec(f"y{it}", y)
        t = lib.randint(0, 100, (3,))
        out = m(x, t, y)
        loss = F.mse_loss(out, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("m", m)
    # patchify with unfold / fold
    x = lib.randn(2, 3, 8, 8)
    p = F.unfold(x, kernel_size=2, stride=2)
    rec("unfold", p)
    rec("fold", F.fold(p, (8, 8), kernel_size=2, stride=2) - x)
    rec("unfold_ov", F.fold(F.unfold(x, 3, padding=1), (8, 8), 3, padding=1))
    # autocast bf16 forward
    with lib.autocast("cpu", dtype=lib.bfloat16):
        o = m(x, lib.tensor([1, 2]), lib.tensor([0, 5]))
        rec("ac_dtype", str(o.dtype))
    rec("ac", o.float())
    g = lib.Generator().manual_seed(3)
    rec("gen_randn", lib.randn(2, 3, generator=g))
    gens = [lib.Generator().manual_seed(i) for i in range(2)]
    rec("gens", lib.cat([lib.randn((1, 3), generator=gg, dtype=lib.float16) for gg in gens]))
    rec("trunc", nn.init.trunc_normal_(lib.empty(8), std=0.02))
    rec("orth", nn.init.orthogonal_(lib.empty(3, 5)))
    rec("gauss_g", lib.empty(4).normal_(generator=g))
    rec("perm_g", lib.randperm(6, generator=g))
    rec("normal_t", lib.normal(lib.zeros(3), lib.arange(1.0, 4.0)))
    rec("poisson", lib.poisson(lib.tensor([1.0, 5.0, 10.0])))
    rec("gumbel", lib.distributions.Gumbel(0.0, 1.0).rsample((3,)))
    rec(
        "relaxed",
        lib.distributions.RelaxedOneHotCategorical(lib.tensor(0.5), logits=lib.zeros(4)).rsample(),
    )
    rec(
        "relaxedb",
        lib.distributions.RelaxedBernoulli(lib.tensor(0.5), probs=lib.tensor([0.2, 0.7])).rsample(),
    )
    rec("bern", lib.bernoulli(lib.full((5,), 0.3)))
    rec("rand64", lib.rand(3, dtype=lib.float64))
    rec("randn16", lib.randn(3, dtype=lib.bfloat16))
    st = lib.get_rng_state()
    a = lib.randn(2)
    lib.set_rng_state(st)
    rec("state", lib.randn(2) - a)


def p_unet_parts(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    x = lib.randn(2, 8, 4, 4)
    qkv = nn.Conv2d(8, 24, 1)(x)
    q, k, v = qkv.chunk(3, dim=1)
    b, c, h, w = x.shape
    q, k, v = (t.reshape(b, 2, c // 2, h * w) for t in (q, k, v))
    q = q.softmax(dim=-2) * (c // 2) ** -0.5
    k = k.softmax(dim=-1)
    ctx = lib.einsum("b h d n, b h e n -> b h d e", k, v)
    out = lib.einsum("bhde,bhdn->bhen", ctx, q)
    rec("lin_attn", out)
    sim = lib.einsum("b h d i, b h d j -> b h i j", q, k)
    rec("sim", sim.softmax(-1))
    qq, kk, vv = (t.transpose(-1, -2) for t in (q, k, v))
    rec("sdpa", F.scaled_dot_product_attention(qq, kk, vv))
    rec("sdpa_scale", F.scaled_dot_product_attention(qq, kk, vv, scale=0.3, is_causal=True))
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    seq = x.flatten(2).transpose(1, 2)
    o, wts = mha(seq, seq, seq)
    rec("mha", o)
    rec("mha_w", wts)
    o2, w2 = mha(seq, seq, seq, need_weights=True, average_attn_weights=False)
    rec("mha_w2", w2)
    # weight standardised conv
    conv = nn.Conv2d(8, 4, 3, padding=1)
    wgt = conv.weight
    mean, var = lib.var_mean(wgt, dim=[1, 2, 3], keepdim=True, unbiased=False)
    rec("var_mean", var)
    m2, v2 = lib.var_mean(wgt, dim=(1, 2, 3), keepdim=True, correction=0)
    rec("var_mean_c", v2)
    nw = (wgt - mean) * (var + 1e-5).rsqrt()
    rec("ws", F.conv2d(x, nw, conv.bias, conv.stride, conv.padding, conv.dilation, conv.groups))
    rec("rms", F.rms_norm(x.permute(0, 2, 3, 1), (8,)))
    rn = nn.RMSNorm(8, eps=1e-6)
    rec("rmsn", rn(x.permute(0, 2, 3, 1)))
    rec("norm_ch", F.normalize(x, dim=1) * x.shape[1] ** 0.5)
    rec("up_ne", F.interpolate(x, scale_factor=2, mode="nearest-exact"))
    rec(
        "down_aa",
        F.interpolate(
            lib.randn(1, 2, 8, 8), size=(3, 3), mode="bilinear", antialias=True, align_corners=False
        ),
    )
    rec(
        "down_aa_bic",
        F.interpolate(lib.randn(1, 2, 8, 8), scale_factor=0.5, mode="bicubic", antialias=True),
    )
    rec("ps", nn.PixelUnshuffle(2)(x))
    rec("avg", F.avg_pool2d(x, 2))
    # zero module
    zc = nn.Conv2d(8, 8, 3, padding=1)
    for p in zc.parameters():
        p.detach().zero_()
    rec("zc", zc(x).abs().sum())
    # silu inplace on non-leaf
    y = x.clone().requires_grad_()
    z = y * 2
    F.silu(z, inplace=True)
    z.sum().backward()
    rec("silu_ip_g", y.grad)
    rec("new", x.new_full((2,), 3.0))
    rec("new_t", x.new_tensor([1, 2]))
    rec("type", x.type(lib.float64))
    rec("type_s", x.type())
    rec("rl_mf", lib.randn_like(x, memory_format=lib.preserve_format))
    rec("cl", x.to(memory_format=lib.channels_last).is_contiguous(memory_format=lib.channels_last))
    rec("cl_stride", str(x.contiguous(memory_format=lib.channels_last).stride()))
    rec("clip", lib.clip(x, -0.5, 0.5))
    rec("lerp_t", lib.lerp(x, lib.zeros_like(x), lib.full_like(x, 0.3)))


def p_ema_utils(lib, rec):
    nn = lib.nn
    swa = lib.optim.swa_utils
    lib.manual_seed(23)
    net = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.LazyLinear(3))
    net(lib.randn(2, 2, 5, 5))
    ema = swa.AveragedModel(net, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9), use_buffers=True)
    ema2 = swa.AveragedModel(net, avg_fn=swa.get_ema_avg_fn(0.8))
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    sch = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
    for it in range(3):
        loss = net(lib.randn(2, 2, 5, 5)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
        ema.update_parameters(net)
        ema2.update_parameters(net)
        rec(f"lr{it}", sch.get_last_lr()[0])
    rec("n_avg", ema.n_averaged)
    rec.params("ema", ema.module)
    rec.params("ema2", ema2.module)
    rec("ema_bn", ema.module[1].running_mean)
    rec("ema2_bn", ema2.module[1].running_mean)
    rec("sd", str(list(ema.state_dict().keys())))
    buf = io.BytesIO()
    lib.save({"ema": ema.module.state_dict(), "step": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    net2 = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(36, 3))
    r = net2.load_state_dict(ck["ema"])
    rec("load", str(r))
    rec("w", net2[3].weight)
    # diffusers EMAModel with foreach
    shadow = [p.clone().detach() for p in net.parameters()]
    decay = min(0.9999, (1 + 3) / (10 + 3))
    params = [p for p in net.parameters()]
    with lib.no_grad():
        lib._foreach_mul_(shadow, decay)
        lib._foreach_add_(shadow, params, alpha=1 - decay)
    rec("shadow", shadow[0])
    d = lib._foreach_sub(shadow, params)
    rec("fe_sub", d[0])
    rec("fe_norm", lib._foreach_norm(d)[1])
    # in-place copy with dtype change
    h = lib.zeros(3, dtype=lib.float16)
    h.copy_(lib.tensor([1.0001, 2.5, 3.3]))
    rec("h", h)
    net.requires_grad_(False)
    rec("rg", str([p.requires_grad for p in net.parameters()]))
    ema.module.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
    rec("zb", ema.module[3].bias)


def p_half(lib, rec):
    F = lib.nn.functional
    for dtn in ("float16", "bfloat16"):
        dt = getattr(lib, dtn)
        lib.manual_seed(29)
        net = unet(lib).eval().to(dt)
        T = 20
        acp = lib.cumprod(1 - lib.linspace(1e-4, 0.02, T), 0)
        x = lib.randn(2, 3, 8, 8, dtype=dt)
        rec(dtn + "x0", x)
        with lib.no_grad():
            for i in (15, 10, 5, 0):
                t = lib.full((2,), i)
                a = acp[i].to(dt)
                eps = net(x, t)
                rec(f"{dtn}eps{i}.dtype", str(eps.dtype))
                x0 = ((x - (1 - a).sqrt() * eps) / a.sqrt()).clamp(-1, 1)
                x = x0 * acp[max(i - 5, 0)].sqrt() + (1 - acp[max(i - 5, 0)]).sqrt() * eps
                rec(f"{dtn}x{i}.dtype", str(x.dtype))
                rec(f"{dtn}x{i}", x.float())
        g = lib.randn(4, 6, dtype=dt)
        rec(dtn + "gs", F.gumbel_softmax(g, hard=True))
        rec(dtn + "gs_soft", F.gumbel_softmax(g, tau=0.7).float())
        rec(dtn + "q", lib.quantile(g.float(), 0.9, dim=1).to(dt).float())
        rec.err(dtn + "q_half", lambda g=g: lib.quantile(g, 0.9, dim=1))
        rec(dtn + "cdist", lib.cdist(g.float(), g.float()[:2]).to(dt).float())
        rec.err(dtn + "cdist_half", lambda g=g: lib.cdist(g, g[:2]))
        rec(dtn + "gn", F.group_norm(lib.randn(2, 4, 3, 3, dtype=dt), 2).float())
        rec(dtn + "silu", F.silu(g).float())
        rec(dtn + "oh", F.one_hot(g.argmax(1), 6).to(dt) @ g.T)
        rec(dtn + "mse", F.mse_loss(g, g.flip(0)))
        rec(dtn + "sdpa", F.scaled_dot_product_attention(g[None], g[None], g[None]).float())
        rec(
            dtn + "interp",
            F.interpolate(lib.randn(1, 2, 3, 3, dtype=dt), scale_factor=2, mode="bilinear").float(),
        )
        rec(
            dtn + "interp_n", F.interpolate(lib.randn(1, 2, 3, 3, dtype=dt), scale_factor=2).float()
        )
        rec(dtn + "cumprod", lib.cumprod(lib.linspace(0.9, 1.0, 10, dtype=dt), 0).float())


def p_score(lib, rec):
    nn = lib.nn
    lib.manual_seed(5)
    dt = lib.float64
    net = nn.Sequential(
        nn.Linear(2, 16), nn.Softplus(), nn.Linear(16, 16), nn.ELU(), nn.Linear(16, 2)
    ).to(dt)
    x = lib.randn(8, 2, dtype=dt)
    # DSM
    sigma = 0.1
    noise = lib.randn_like(x) * sigma
    xt = x + noise
    target = -noise / sigma**2
    s = net(xt)
    dsm = 0.5 * ((s - target) ** 2).sum(dim=-1).mean() * sigma**2
    rec("dsm", dsm)
    g = lib.autograd.grad(dsm, list(net.parameters()))
    rec("dsm_g0", g[0])
    # sliced score matching
    x = x.clone().requires_grad_(True)
    v = lib.randn_like(x)
    v = v / v.norm(dim=-1, keepdim=True)
    s = net(x)
    sv = (s * v).sum()
    gsv = lib.autograd.grad(sv, x, create_graph=True)[0]
    loss = ((gsv * v).sum(-1) + 0.5 * ((s * v).sum(-1)) ** 2).mean()
    rec("ssm", loss)
    loss.backward()
    rec("ssm_gx", x.grad)
    rec("ssm_gw", net[0].weight.grad)
    # exact trace via jacobian rows
    x2 = lib.randn(3, 2, dtype=dt, requires_grad=True)
    s2 = net(x2)
    tr = 0
    for i in range(2):
        tr = (
            tr
            + lib.autograd.grad(s2[:, i].sum(), x2, create_graph=True, retain_graph=True)[0][:, i]
        )
    rec("trace", tr)
    J = lib.autograd.functional.jacobian(lambda z: net(z).sum(0), x2)
    rec("jac", J)
    # annealed Langevin
    sigmas = lib.exp(lib.linspace(math.log(1.0), math.log(0.01), 4, dtype=dt))
    rec("sigmas", sigmas)
    x = lib.rand(5, 2, dtype=dt) * 2 - 1
    with lib.no_grad():
        for sg in sigmas:
            step = 0.01 * (sg / sigmas[-1]) ** 2 * 1e-3
            for _ in range(3):
                z = lib.randn_like(x)
                x = x + 0.5 * step * net(x) / sg + lib.sqrt(step) * z
        rec("langevin", x)
    # Langevin on an energy with autograd
    x = lib.randn(5, 2, dtype=dt)
    for _ in range(3):
        x = x.detach().requires_grad_()
        e = (x**2).sum(-1) * 0.5 + lib.logsumexp(net(x), -1)
        (gx,) = lib.autograd.grad(e.sum(), x)
        x = x - 0.05 * gx + math.sqrt(0.1) * lib.randn_like(x)
    rec("ld2", x)


def p_ebm(lib, rec):
    nn = lib.nn
    lib.manual_seed(6)
    E = nn.Sequential(nn.Linear(4, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt = lib.optim.Adam(E.parameters(), lr=1e-3, betas=(0.0, 0.999))
    buf = lib.rand(20, 4) * 2 - 1
    for it in range(3):
        xr = lib.randn(6, 4)
        n = 6
        idx = lib.randint(0, buf.shape[0], (n,))
        xs = buf[idx]
        reinit = (lib.rand(n) < 0.3).float()[:, None]
        xs = reinit * (lib.rand(n, 4) * 2 - 1) + (1 - reinit) * xs
        mask = lib.rand(n) < 0.5
        xs[mask] = lib.rand(int(mask.sum()), 4) * 2 - 1
        xs = xs.clone().requires_grad_(True)
        E.eval()
        for p in E.parameters():
            p.requires_grad_(False)
        for _ in range(5):
            out = -E(xs)
            out.sum().backward()
            xs.grad.data.clamp_(-0.03, 0.03)
            xs.data.add_(-10 * xs.grad.data)
            xs.grad.detach_()
            xs.grad.zero_()
            xs.data.add_(0.005 * lib.randn_like(xs)).clamp_(-1, 1)
        for p in E.parameters():
            p.requires_grad_(True)
        E.train()
        xs = xs.detach()
        buf[idx] = xs
        rec(f"buf{it}", buf)
        inp = lib.cat([xr, xs], 0)
        er, ef = E(inp).chunk(2, dim=0)
        reg = 0.1 * (er**2 + ef**2).mean()
        cd = ef.mean() - er.mean()
        loss = reg + cd
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("E", E)
    # buffer as list + random.choices? use torch ops
    b = lib.cat([buf, xs])[-20:]
    rec("buf_cat", b)
    perm = lib.randperm(b.shape[0])[:7]
    rec("perm", perm)
    m = lib.rand(20) < 0.5
    b2 = b.clone()
    b2[m] = 0.0
    b2.index_put_((lib.tensor([0, 2]),), lib.tensor(7.0))
    rec("b2", b2)
    b2[m, 1:] = lib.randn(int(m.sum().item()), 3)
    rec("b3", b2)


def p_vq(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(7)
    K, D = 16, 4
    cb = nn.Embedding(K, D)
    cb.weight.data.uniform_(-1 / K, 1 / K)
    enc = nn.Conv2d(3, D, 3, padding=1)
    x = lib.randn(2, 3, 5, 5)
    z = enc(x).permute(0, 2, 3, 1).contiguous()
    flat = z.view(-1, D)
    d = (flat**2).sum(1, keepdim=True) + (cb.weight**2).sum(1) - 2 * flat @ cb.weight.t()
    idx = d.argmin(1)
    rec("idx", idx)
    d2 = lib.cdist(flat, cb.weight)
    rec("cdist", d2)
    rec("idx2", lib.argmin(d2, dim=1))
    rec("cdist_p1", lib.cdist(flat, cb.weight, p=1))
    oh = F.one_hot(idx, K).float()
    rec("oh.dtype", str(F.one_hot(idx, K).dtype))
    q = (oh @ cb.weight).view(z.shape)
    q2 = cb(idx).view_as(z)
    rec("q_eq", (q - q2).abs().max())
    commit = F.mse_loss(z, q.detach())
    cbl = F.mse_loss(q, z.detach())
    qst = z + (q - z).detach()
    out = qst.permute(0, 3, 1, 2)
    loss = out.pow(2).mean() + cbl + 0.25 * commit
    loss.backward()
    rec("loss", loss)
    rec("genc", enc.weight.grad)
    rec("gcb", cb.weight.grad)
    avg = oh.mean(0)
    rec("perp", lib.exp(-(avg * lib.log(avg + 1e-10)).sum()))
    # EMA updates
    decay, eps = 0.99, 1e-5
    cs = lib.zeros(K)
    ew = cb.weight.data.clone()
    with lib.no_grad():
        counts = oh.sum(0)
        cs.mul_(decay).add_(counts, alpha=1 - decay)
        n = cs.sum()
        cs_s = (cs + eps) / (n + K * eps) * n
        dw = oh.t() @ flat
        ew.mul_(decay).add_(dw, alpha=1 - decay)
        rec("ew", ew / cs_s.unsqueeze(1))
        c2 = lib.zeros(K).index_add_(0, idx, lib.ones(idx.shape[0]))
        rec("c2", c2)
        c3 = lib.zeros(K, dtype=lib.long).scatter_add_(0, idx, lib.ones_like(idx))
        rec("c3", c3)
        s = lib.zeros(K, D).index_add_(0, idx, flat)
        rec("s", s)
        s2 = lib.zeros(K, D).scatter_add_(0, idx[:, None].expand(-1, D), flat)
        rec("s2", s2)
        rec("bincount", lib.bincount(idx, minlength=K))
        rec("bincount_w", lib.bincount(idx, weights=flat[:, 0], minlength=K))
        # dead-code restart
        dead = c2 < 1
        nd = int(dead.sum())
        r = flat[lib.randint(0, flat.shape[0], (nd,))]
        w = cb.weight.data
        w[dead] = r + 0.01 * lib.randn_like(r)
        rec("w", w)
        u, inv, cnt = lib.unique(idx, return_inverse=True, return_counts=True)
        rec("u", u)
        rec("inv", inv)
        rec("cnt", cnt)
        rec(
            "scatter_reduce",
            lib.zeros(K, D).scatter_reduce(
                0, idx[:, None].expand(-1, D), flat, "mean", include_self=False
            ),
        )
    # gumbel hard
    lib.manual_seed(8)
    logits = lib.randn(6, K, requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5, hard=True)
    rec("gh", y)
    (y * lib.arange(K).float()).sum().backward()
    rec("gh_g", logits.grad)
    y2 = F.gumbel_softmax(logits, tau=1.0, hard=False, dim=0)
    rec("gs", y2)
    g = -lib.empty_like(logits).exponential_().log()
    rec("g", g)
    rec("bits", lib.log2(lib.tensor(float(K))))


def rq_spline(lib, F, inputs, uw, uh, ud, B=3.0, min_w=1e-3, min_h=1e-3, min_d=1e-3):
    inside = (inputs >= -B) & (inputs <= B)
    K = uw.shape[-1]
    ud = F.pad(ud, pad=(1, 1))
    const = math.log(math.exp(1 - min_d) - 1)
    ud[..., 0] = const
    ud[..., -1] = const
    w = F.softmax(uw, dim=-1)
    w = min_w + (1 - min_w * K) * w
    cw = lib.cumsum(w, dim=-1)
    cw = F.pad(cw, pad=(1, 0), mode="constant", value=0.0)
    cw = 2 * B * cw - B
    cw[..., 0] = -B
    cw[..., -1] = B
    w = cw[..., 1:] - cw[..., :-1]
    d = min_d + F.softplus(ud)
    h = F.softmax(uh, dim=-1)
    h = min_h + (1 - min_h * K) * h
    ch = lib.cumsum(h, dim=-1)
    ch = F.pad(ch, pad=(1, 0), mode="constant", value=0.0)
    ch = 2 * B * ch - B
    ch[..., 0] = -B
    ch[..., -1] = B
    h = ch[..., 1:] - ch[..., :-1]
    loc = cw.clone()
    loc[..., -1] += 1e-6
    bin_idx = (lib.sum(inputs[..., None] >= loc, dim=-1) - 1)[..., None]
    bin_idx2 = lib.searchsorted(loc, inputs[..., None], right=True) - 1
    bin_idx = bin_idx.clamp(0, K - 1)
    icw = cw.gather(-1, bin_idx)[..., 0]
    ibw = w.gather(-1, bin_idx)[..., 0]
    ich = ch.gather(-1, bin_idx)[..., 0]
    delta = h / w
    idl = delta.gather(-1, bin_idx)[..., 0]
    idv = d.gather(-1, bin_idx)[..., 0]
    idp = d[..., 1:].gather(-1, bin_idx)[..., 0]
    ih = h.gather(-1, bin_idx)[..., 0]
    theta = (inputs - icw) / ibw
    t1m = theta * (1 - theta)
    num = ih * (idl * theta.pow(2) + idv * t1m)
    den = idl + (idv + idp - 2 * idl) * t1m
    out = ich + num / den
    dn = idl.pow(2) * (idp * theta.pow(2) + 2 * idl * t1m + idv * (1 - theta).pow(2))
    lad = lib.log(dn) - 2 * lib.log(den)
    out = lib.where(inside, out, inputs)
    lad = lib.where(inside, lad, lib.zeros_like(lad))
    return out, lad, (bin_idx2.clamp(0, K - 1) == bin_idx)


def p_nsf(lib, rec):
    F = lib.nn.functional
    lib.manual_seed(18)
    dt = lib.float64
    K = 4
    x = lib.randn(4, 2, dtype=dt) * 2
    uw = lib.randn(4, 2, K, dtype=dt, requires_grad=True)
    uh = lib.randn(4, 2, K, dtype=dt, requires_grad=True)
    ud = lib.randn(4, 2, K - 1, dtype=dt, requires_grad=True)
    out, lad, same = rq_spline(lib, F, x, uw, uh, ud)
    rec("out", out)
    rec("lad", lad)
    rec("same", same)
    rec.err("oob", lambda: uw.gather(-1, lib.full((4, 2, 1), K)))
    (out.sum() + lad.sum()).backward()
    rec("guw", uw.grad)
    rec("guh", uh.grad)
    rec("gud", ud.grad)

    def f(a, b, c):  # one row: (gradgradcheck's cost grows with the square of the inputs)
        return rq_spline(lib, F, x[:1, :1], a, b, c)[:2]

    args = tuple(t[:1, :1].detach().clone().requires_grad_() for t in (uw, uh, ud))
    rec("gc", str(lib.autograd.gradcheck(f, args)))
    rec("ggc", str(lib.autograd.gradgradcheck(f, args)))


def p_pixelcnn(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(19)

    class MaskedConv(nn.Conv2d):
        def __init__(self, t, *a, **k):
            super().__init__(*a, **k)
            self.register_buffer("mask", self.weight.data.clone())
            _, _, kH, kW = self.weight.size()
            self.mask.fill_(1)
            self.mask[:, :, kH // 2, kW // 2 + (t == "B") :] = 0
            self.mask[:, :, kH // 2 + 1 :] = 0

        def forward(self, x):
            self.weight.data *= self.mask
            return super().forward(x)

    net = nn.Sequential(
        MaskedConv("A", 1, 8, 5, 1, 2, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(True),
        MaskedConv("B", 8, 8, 3, 1, 1, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(True),
        nn.Conv2d(8, 4, 1),
    )
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    x = (lib.rand(4, 1, 6, 6) * 4).floor()
    for it in range(2):
        logits = net(x / 3.0)
        loss = F.cross_entropy(logits, x.squeeze(1).long())
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec("mask", net[0].mask)
    rec("w0", net[0].weight)
    net.eval()
    s = lib.zeros(2, 1, 6, 6)
    with lib.no_grad():
        for i in range(6):
            for j in range(6):
                out = net(s / 3.0)
                probs = F.softmax(out[:, :, i, j], dim=1)
                s[:, :, i, j] = lib.multinomial(probs, 1).float()
    rec("samples", s)
    # cross entropy variants
    lg = lib.randn(2, 4, 3, 3)
    tg = lib.randint(0, 4, (2, 3, 3))
    tg[0, 0, 0] = -100
    rec("ce_ign", F.cross_entropy(lg, tg))
    rec("ce_none", F.cross_entropy(lg, tg, reduction="none"))
    rec("ce_ls", F.cross_entropy(lg, tg.clamp(min=0), label_smoothing=0.1))
    rec("nll", F.nll_loss(F.log_softmax(lg, 1), tg, reduction="sum"))
    rec("bits_per_dim", F.cross_entropy(lg, tg.clamp(min=0)) / math.log(2))


def p_d3pm(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)
    V, L, B = 6, 7, 3
    mask_id = V - 1
    x0 = lib.randint(0, V - 1, (B, L))
    t = lib.rand(B, 1)
    move = lib.rand(B, L) < t
    xt = lib.where(move, mask_id, x0)
    rec("xt", xt)
    rec("xt.dtype", str(xt.dtype))
    xt2 = x0.masked_fill(move, mask_id)
    rec("xt2", xt2)
    emb = nn.Embedding(V, 8)
    head = nn.Linear(8, V)
    logits = head(emb(xt))
    logits[:, :, mask_id] = -float("inf")
    logits = logits.clone()
    lp = logits.log_softmax(-1)
    rec("lp_finite", lp[..., :mask_id])
    nll = -lp.gather(-1, x0[..., None]).squeeze(-1)
    loss = (nll * move).sum() / move.sum().clamp_min(1)
    loss.backward()
    rec("mdlm", loss)
    rec("gemb", emb.weight.grad)
    # gumbel-max sampling
    u = lib.rand_like(lp)
    samp = (lp.detach() - lib.log(-lib.log(u + 1e-10) + 1e-10)).argmax(-1)
    rec("gmax", samp)
    # uniform-transition D3PM
    beta = 0.1
    Q = (1 - beta) * lib.eye(V) + beta / V * lib.ones(V, V)
    Qbar = lib.linalg.matrix_power(Q, 5)
    rec("Qbar", Qbar)
    oh = F.one_hot(x0, V).float()
    q_xt = oh @ Qbar
    rec("q_xt", q_xt)
    cat = lib.distributions.Categorical(probs=q_xt)
    s = cat.sample()
    rec("cat_s", s)
    rec("cat_lp", cat.log_prob(s))
    rec("q_rows", Qbar[x0])
    rec("posterior", (q_xt * Q[:, s].permute(1, 2, 0)))
    rec("lp_inf", lib.log(lib.zeros(2)).softmax(-1))
    rec("neg_inf_lse", lib.logsumexp(lib.full((2, 3), -float("inf")), -1))
    rec("topk", lp.detach().topk(2, -1).indices)
    # unmask most confident (MaskGIT)
    conf = lp.detach().max(-1).values
    conf = lib.where(xt == mask_id, conf, lib.full_like(conf, float("inf")))
    k = 2
    thr = conf.sort(-1).values[:, k - 1 : k]
    rec("thr", thr)
    rec("sel", conf <= thr)
    rec("n_unmask", (math.cos(math.pi / 2 * 0.5) * L))
    ranks = conf.argsort(-1, descending=False)
    rec("ranks", ranks)


def p_ffjord(lib, rec):
    nn = lib.nn
    lib.manual_seed(21)
    dt = lib.float64
    f = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2)).to(dt)
    z = lib.randn(5, 2, dtype=dt)
    e = lib.randint(low=0, high=2, size=z.shape).to(z) * 2 - 1
    rec("e", e)
    rec("e.dtype", str(e.dtype))
    logp = lib.zeros(5, 1, dtype=dt)
    h = 0.25
    for k in range(4):
        tt = lib.full((5, 1), k * h, dtype=dt)
        with lib.enable_grad():
            z = z.requires_grad_(True)
            dz = f(lib.cat([z, tt], 1))
            ej = lib.autograd.grad(dz, z, e, create_graph=True)[0]
            div = (ej * e).sum(1, keepdim=True)
        z = z + h * dz
        logp = logp - h * div
    rec("z", z)
    rec("logp", logp)
    base = lib.distributions.Normal(0.0, 1.0)
    ll = base.log_prob(z).sum(1, keepdim=True) - logp
    rec("base_dt", str(base.log_prob(z).dtype))
    ll.mean().backward()
    rec("g", f[0].weight.grad)
    # functorch style exact trace
    x = lib.randn(4, 2, dtype=dt)
    jac = lib.func.vmap(lib.func.jacrev(lambda v: f(lib.cat([v, lib.zeros(1, dtype=dt)]))))(x)
    rec("jac", jac)
    rec("tr", lib.diagonal(jac, dim1=-2, dim2=-1).sum(-1))
    out, jv = lib.func.jvp(
        lambda v: f(lib.cat([v, lib.ones(4, 1, dtype=dt)], 1)), (x,), (lib.ones_like(x),)
    )
    rec("jvp", jv)
    o2, jv2 = lib.autograd.functional.jvp(
        lambda v: f(lib.cat([v, lib.ones(4, 1, dtype=dt)], 1)), x, lib.ones_like(x)
    )
    rec("jvp2", jv2)
    hv = lib.autograd.functional.hvp(
        lambda v: f(lib.cat([v, lib.ones(4, 1, dtype=dt)], 1)).pow(2).sum(), x, lib.ones_like(x)
    )[1]
    rec("hvp", hv)


def p_planar(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    dt = lib.float64

    class Planar(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.u = nn.Parameter(lib.randn(1, d, dtype=dt) * 0.1)
            self.w = nn.Parameter(lib.randn(1, d, dtype=dt) * 0.1)
            self.b = nn.Parameter(lib.zeros(1, dtype=dt))

        def forward(self, z):
            wu = (self.w @ self.u.t()).squeeze()
            m = -1 + F.softplus(wu)
            u_hat = self.u + (m - wu) * self.w / (self.w.norm() ** 2)
            lin = z @ self.w.t() + self.b
            f = z + u_hat * lib.tanh(lin)
            psi = (1 - lib.tanh(lin) ** 2) * self.w
            ld = lib.log(lib.abs(1 + psi @ u_hat.t()) + 1e-8).squeeze(-1)
            return f, ld

    class Radial(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.z0 = nn.Parameter(lib.randn(d, dtype=dt))
            self.la = nn.Parameter(lib.randn(1, dtype=dt))
            self.bb = nn.Parameter(lib.randn(1, dtype=dt))
            self.d = d

        def forward(self, z):
            alpha = F.softplus(self.la)
            beta = -alpha + F.softplus(self.bb)
            diff = z - self.z0
            r = diff.norm(dim=-1, keepdim=True)
            h = 1 / (alpha + r)
            f = z + beta * h * diff
            hp = -1 / (alpha + r) ** 2
            ld = (self.d - 1) * lib.log1p(beta * h) + lib.log1p(beta * h + beta * hp * r)
            return f, ld.squeeze(-1)

    flows = nn.ModuleList([Planar(2), Radial(2), Planar(2)])
    base = lib.distributions.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))
    opt = lib.optim.RMSprop(flows.parameters(), lr=1e-2)
    for it in range(3):
        z = base.sample((16,))
        lp = base.log_prob(z)
        for f in flows:
            z, ld = f(z)
            lp = lp - ld
        target = -0.5 * ((z.norm(dim=1) - 2) / 0.4) ** 2
        loss = (lp - target).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("f", flows, grads=True)

    def fn(u, w, z):
        wu = (w @ u.t()).squeeze()
        m = -1 + F.softplus(wu)
        uh = u + (m - wu) * w / (w.norm() ** 2)
        return z + uh * lib.tanh(z @ w.t())

    args = (
        lib.randn(1, 2, dtype=dt, requires_grad=True),
        lib.randn(1, 2, dtype=dt, requires_grad=True),
        lib.randn(3, 2, dtype=dt, requires_grad=True),
    )
    rec("gc", str(lib.autograd.gradcheck(fn, args)))
    rec("ggc", str(lib.autograd.gradgradcheck(fn, args)))


def p_made(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)

    class MaskedLinear(nn.Linear):
        def __init__(self, i, o):
            super().__init__(i, o)
            self.register_buffer("mask", lib.ones(o, i))

        def forward(self, x):
            return F.linear(x, self.mask * self.weight, self.bias)

    D, H = 4, 12
    l1, l2, l3 = MaskedLinear(D, H), MaskedLinear(H, H), MaskedLinear(H, 2 * D)
    m0 = lib.arange(D)
    m1 = lib.randint(m0.min().item(), D - 1, (H,))
    m2 = lib.randint(m1.min().item(), D - 1, (H,))
    rec("m1", m1)
    with lib.no_grad():
        l1.mask.copy_((m0[None, :] <= m1[:, None]).float())
        l2.mask.copy_((m1[None, :] <= m2[:, None]).float())
        mo = (m2[None, :] < m0[:, None]).float()
        l3.mask.copy_(lib.cat([mo, mo], 0))
    net = nn.Sequential(l1, nn.ReLU(), l2, nn.ReLU(), l3)
    rec("sd_keys", str(list(net.state_dict().keys())))
    x = lib.randn(5, D, requires_grad=True)
    out = net(x)
    mu, alpha = out.chunk(2, dim=1)
    u = (x - mu) * lib.exp(-alpha)
    ld = -alpha.sum(1)
    rec("u", u)
    rec("ld", ld)
    # autoregressive check: jacobian is strictly lower triangular
    J = lib.autograd.functional.jacobian(lambda z: net(z)[:, :D].sum(0), x)
    rec("J", J.sum(1))
    # sampling inverse
    with lib.no_grad():
        z = lib.randn(3, D)
        xs = lib.zeros_like(z)
        for i in range(D):
            mu, alpha = net(xs).chunk(2, 1)
            xs[:, i] = mu[:, i] + z[:, i] * lib.exp(alpha[:, i])
        rec("xs", xs)
    # order permutation
    perm = lib.randperm(D)
    rec("perm", perm)
    rec("inv", lib.argsort(perm))
    rec("flipped", x.flip(1)[:, lib.argsort(perm)])
    loss = (0.5 * u**2 + 0.5 * math.log(2 * math.pi)).sum(1) - ld
    loss.mean().backward()
    rec("gx", x.grad)
    rec("gw1", l1.weight.grad)
    # MADE with parametrizations instead
    lin = nn.Linear(D, D)
    mask = lib.tril(lib.ones(D, D), -1)

    class Mask(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.register_buffer("m", m)

        def forward(self, w):
            return w * self.m

    lib.nn.utils.parametrize.register_parametrization(lin, "weight", Mask(mask))
    rec("pw", lin.weight)
    rec("sdk", str(sorted(lin.state_dict().keys())))
    lin(x).sum().backward()
    rec("porig_g", lin.parametrizations.weight.original.grad)


def p_glow(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    C = 4
    dt = lib.float64
    w = lib.linalg.qr(lib.randn(C, C, dtype=dt))[0]
    rec("qr", w)
    rec("slogdet", lib.slogdet(w))
    sign, lad = lib.linalg.slogdet(w)
    rec("sign", sign)
    rec("lad", lad)
    P, L, U = lib.linalg.lu(w)
    rec("P", P)
    rec("L", L)
    rec("U", U)
    LU, piv = lib.linalg.lu_factor(w)
    rec("LU", LU)
    rec("piv", piv)
    P2, L2, U2 = lib.lu_unpack(LU, piv)
    rec("P2", P2)
    rec("L2", L2)
    rec("U2", U2)
    s = lib.diag(U)
    sign_s = lib.sign(s)
    log_s = lib.log(lib.abs(s))
    U = lib.triu(U, 1)
    Lp = nn.Parameter(L)
    Up = nn.Parameter(U)
    lsp = nn.Parameter(log_s)
    lmask = lib.tril(lib.ones(C, C, dtype=dt), -1)
    eye = lib.eye(C, dtype=dt)
    Wl = P @ (Lp * lmask + eye) @ (Up * lmask.T + lib.diag(sign_s * lib.exp(lsp)))
    rec("Wl", Wl)
    x = lib.randn(2, C, 3, 3, dtype=dt)
    y = F.conv2d(x, Wl.view(C, C, 1, 1))
    ld = lsp.sum() * 3 * 3
    (y.square().sum() + ld).backward()
    rec("y", y)
    rec("gL", Lp.grad)
    rec("gU", Up.grad)
    rec("gs", lsp.grad)
    winv = lib.inverse(Wl.detach())
    rec("xinv", F.conv2d(y.detach(), winv.view(C, C, 1, 1)))
    # slogdet gradient
    W = nn.Parameter(w.clone())
    y2 = F.conv2d(x, W.unsqueeze(-1).unsqueeze(-1))
    ld2 = 9 * lib.slogdet(W)[1]
    (y2.sum() - ld2).backward()
    rec("gW", W.grad)
    rec(
        "gc_slogdet",
        str(
            lib.autograd.gradcheck(
                lambda a: lib.linalg.slogdet(a)[1], (w.clone().requires_grad_(),)
            )
        ),
    )
    rec(
        "ggc_slogdet",
        str(
            lib.autograd.gradgradcheck(
                lambda a: lib.linalg.slogdet(a)[1], (w.clone().requires_grad_(),)
            )
        ),
    )
    rec(
        "gc_lu",
        str(lib.autograd.gradcheck(lambda a: lib.linalg.lu(a)[1:], (w.clone().requires_grad_(),))),
    )
    rec(
        "gc_lu_factor",
        str(
            lib.autograd.gradcheck(
                lambda a: lib.linalg.lu_factor(a)[0], (w.clone().requires_grad_(),)
            )
        ),
    )

    # actnorm with data-dependent init
    class ActNorm(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.loc = nn.Parameter(lib.zeros(1, c, 1, 1, dtype=dt))
            self.logs = nn.Parameter(lib.zeros(1, c, 1, 1, dtype=dt))
            self.register_buffer("initialized", lib.tensor(0, dtype=lib.uint8))

        def forward(self, x):
            if self.initialized.item() == 0:
                with lib.no_grad():
                    flat = x.permute(1, 0, 2, 3).contiguous().view(x.shape[1], -1)
                    mean = flat.mean(1).view(1, -1, 1, 1)
                    std = flat.std(1).view(1, -1, 1, 1)
                    self.loc.data.copy_(-mean)
                    self.logs.data.copy_(lib.log(1 / (std + 1e-6)))
                    self.initialized.fill_(1)
            h, w_ = x.shape[2:]
            return (x + self.loc) * lib.exp(self.logs), h * w_ * self.logs.sum()

    an = ActNorm(C)
    y, ld = an(x)
    rec("an_y", y)
    rec("an_ld", ld)
    rec("an_mean", y.mean(dim=(0, 2, 3)))
    rec("an_std", y.std(dim=(0, 2, 3), unbiased=True))
    rec("an_sd", str({k: v.dtype for k, v in an.state_dict().items()}))
    y, _ = an(x * 2)
    rec("an_y2", y)
    # squeeze op
    b, c, h, w_ = 2, 4, 4, 4
    t = lib.arange(b * c * h * w_, dtype=dt).view(b, c, h, w_)
    sq = (
        t.view(b, c, h // 2, 2, w_ // 2, 2)
        .permute(0, 1, 3, 5, 2, 4)
        .reshape(b, c * 4, h // 2, w_ // 2)
    )
    rec("sq", sq)
    rec("ps", F.pixel_unshuffle(t, 2))
    rec("ps_inv", F.pixel_shuffle(F.pixel_unshuffle(t, 2), 2) - t)


def p_flows2(lib, rec):
    nn = lib.nn
    D = lib.distributions
    T = D.transforms
    lib.manual_seed(28)
    dt = lib.float64
    base = D.Independent(D.Normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt)), 1)
    loc = lib.randn(3, dtype=dt, requires_grad=True)
    ls = lib.randn(3, dtype=dt, requires_grad=True)
    tr = [
        T.AffineTransform(loc, ls.exp(), event_dim=1),
        T.SigmoidTransform(),
        T.AffineTransform(-1.0, 2.0),
    ]
    flow = D.TransformedDistribution(base, tr)
    s = flow.rsample((4,))
    rec("s", s)
    lp = flow.log_prob(s)
    rec("lp", lp)
    lp.sum().backward()
    rec("gloc", loc.grad)
    rec("gls", ls.grad)
    ct = T.ComposeTransform([T.ExpTransform(), T.PowerTransform(2.0)])
    x = lib.rand(3, dtype=dt) + 0.1
    rec("ct", ct(x))
    rec("ct_ldj", ct.log_abs_det_jacobian(x, ct(x)))
    rec("ct_inv", ct.inv(ct(x)))
    tt = T.TanhTransform(cache_size=1)
    y = tt(x)
    rec("tanh_ldj", tt.log_abs_det_jacobian(x, y))
    rec("st", T.StickBreakingTransform()(lib.randn(2, 3, dtype=dt)))
    rec("softplus_t", T.SoftplusTransform()(x))
    rec("ldj_sig", T.SigmoidTransform().log_abs_det_jacobian(x, lib.sigmoid(x)))
    # householder
    v = lib.randn(3, dtype=dt)
    H = lib.eye(3, dtype=dt) - 2 * lib.outer(v, v) / v.dot(v)
    rec("H", H)
    tau = lib.rand(2, dtype=dt) + 0.5
    A = lib.randn(4, 2, dtype=dt)
    rec("hh", lib.linalg.householder_product(A, tau))
    # sylvester
    M = 4
    R = lib.triu(lib.randn(2, M, M, dtype=dt), diagonal=1)
    diag = lib.tanh(lib.randn(2, M, dtype=dt))
    R1 = R + lib.diag_embed(diag)
    rec("R1", R1)
    rec("diag_back", lib.diagonal(R1, dim1=-2, dim2=-1))
    rec("bmm", lib.bmm(R1, R1.transpose(1, 2)))
    # matrix exp flow
    Wm = lib.randn(3, 3, dtype=dt, requires_grad=True)
    E = lib.linalg.matrix_exp(Wm)
    rec("mexp", E)
    rec("trace_ld", lib.trace(Wm))
    rec("logdet_E", lib.logdet(E))
    E.sum().backward()
    rec("mexp_g", Wm.grad)
    rec(
        "gc_mexp",
        str(lib.autograd.gradcheck(lib.linalg.matrix_exp, (Wm.detach().clone().requires_grad_(),))),
    )
    # invertible 1x1 inverse with lu_solve / solve_triangular
    W = lib.linalg.qr(lib.randn(3, 3, dtype=dt))[0]
    LU, piv = lib.linalg.lu_factor(W)
    b = lib.randn(3, 2, dtype=dt)
    rec("lu_solve", lib.linalg.lu_solve(LU, piv, b))
    LUe, pive, info = lib.linalg.lu_factor_ex(W)
    rec("info", info)
    rec("solve_tri", lib.linalg.solve_triangular(lib.triu(W), b, upper=True))
    Wd = W.clone().requires_grad_()
    rec("det_g", lib.autograd.grad(lib.det(Wd), Wd)[0])
    # residual flow: power-series logdet with Hutchinson, geometric roulette
    g = nn.Sequential(
        nn.utils.parametrizations.spectral_norm(nn.Linear(3, 8)),
        nn.ELU(),
        nn.utils.parametrizations.spectral_norm(nn.Linear(8, 3)),
    ).to(dt)
    xx = lib.randn(5, 3, dtype=dt, requires_grad=True)
    gx = g(xx)
    vv = lib.randn_like(xx)
    w = vv
    ld = 0
    nst = D.Geometric(probs=lib.tensor(0.5)).sample().long().item() + 1
    rec("nst", nst)
    for k in range(1, 4):
        w = lib.autograd.grad(gx, xx, w, retain_graph=True, create_graph=True)[0]
        ld = ld + (-1) ** (k + 1) / k * (w * vv).sum(1)
    rec("ld", ld)
    ld.sum().backward()
    rec("ld_gx", xx.grad)
    rec("geom_lp", D.Geometric(probs=lib.tensor(0.5)).log_prob(lib.tensor(2.0)))


def p_gan(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    SN = nn.utils.parametrizations.spectral_norm
    lib.manual_seed(12)
    D = nn.Sequential(
        SN(nn.Conv2d(3, 8, 3, 2, 1)),
        nn.LeakyReLU(0.1),
        SN(nn.Conv2d(8, 8, 3, 2, 1)),
        nn.LeakyReLU(0.1),
        nn.Flatten(),
        SN(nn.Linear(8 * 2 * 2, 1)),
    )
    G = nn.Sequential(
        nn.Linear(8, 8 * 2 * 2),
        nn.Unflatten(1, (8, 2, 2)),
        nn.ReLU(),
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(8, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        nn.Conv2d(8, 3, 3, padding=1),
        nn.Tanh(),
    )
    rec("sdk", str(list(D.state_dict().keys())))
    oD = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.9))
    oG = lib.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.9))

    def translate(x, ratio=0.125):
        B, C, H, W = x.shape
        sh, sw = int(H * ratio + 0.5), int(W * ratio + 0.5)
        tx = lib.randint(-sh, sh + 1, size=[B, 1, 1], device=x.device)
        ty = lib.randint(-sw, sw + 1, size=[B, 1, 1], device=x.device)
        gb, gx, gy = lib.meshgrid(
            lib.arange(B, dtype=lib.long),
            lib.arange(H, dtype=lib.long),
            lib.arange(W, dtype=lib.long),
            indexing="ij",
        )
        gx = lib.clamp(gx + tx + 1, 0, H + 1)
        gy = lib.clamp(gy + ty + 1, 0, W + 1)
        xp = F.pad(x, [1, 1, 1, 1, 0, 0, 0, 0])
        return xp.permute(0, 2, 3, 1).contiguous()[gb, gx, gy].permute(0, 3, 1, 2)

    def color(x):
        x = x + (lib.rand(x.size(0), 1, 1, 1, dtype=x.dtype, device=x.device) - 0.5)
        m = x.mean(dim=1, keepdim=True)
        x = (x - m) * (lib.rand(x.size(0), 1, 1, 1, dtype=x.dtype, device=x.device) * 2) + m
        return x

    def cutout(x, ratio=0.5):
        cs = int(x.size(2) * ratio + 0.5), int(x.size(3) * ratio + 0.5)
        ox = lib.randint(0, x.size(2) + (1 - cs[0] % 2), size=[x.size(0), 1, 1])
        oy = lib.randint(0, x.size(3) + (1 - cs[1] % 2), size=[x.size(0), 1, 1])
        gb, gx, gy = lib.meshgrid(
            lib.arange(x.size(0)), lib.arange(cs[0]), lib.arange(cs[1]), indexing="ij"
        )
        gx = lib.clamp(gx + ox - cs[0] // 2, min=0, max=x.size(2) - 1)
        gy = lib.clamp(gy + oy - cs[1] // 2, min=0, max=x.size(3) - 1)
        mask = lib.ones(x.size(0), x.size(2), x.size(3), dtype=x.dtype)
        mask[gb, gx, gy] = 0
        return x * mask.unsqueeze(1)

    def aug(x):
        return cutout(translate(color(x)))

    for it in range(2):
        real = lib.rand(4, 3, 8, 8) * 2 - 1
        z = lib.randn(4, 8)
        fake = G(z)
        real.requires_grad_(True)
        lr_ = D(aug(real))
        lf = D(aug(fake.detach()))
        d_loss = F.relu(1 - lr_).mean() + F.relu(1 + lf).mean()
        (g_r1,) = lib.autograd.grad(lr_.sum(), real, create_graph=True)
        r1 = g_r1.pow(2).reshape(g_r1.shape[0], -1).sum(1).mean()
        oD.zero_grad()
        (d_loss + 5.0 * r1).backward()
        oD.step()
        rec(f"d{it}", d_loss)
        rec(f"r1_{it}", r1)
        g_loss = -D(aug(fake)).mean()
        oG.zero_grad()
        g_loss.backward()
        oG.step()
        rec(f"g{it}", g_loss)
    rec.params("D", D)
    rec("w_sn", D[0].weight)
    rec("u", D[0].parametrizations.weight[0]._u)
    D.eval()
    rec("w_eval", D[0].weight)
    rec("sig", lib.linalg.matrix_norm(D[5].weight, ord=2))
    # old-style spectral_norm
    lin = nn.utils.spectral_norm(nn.Linear(5, 3))
    rec("old_keys", str(sorted(lin.state_dict().keys())))
    y = lin(lib.randn(2, 5))
    rec("old_y", y)
    rec("old_w", lin.weight)
    nn.utils.remove_spectral_norm(lin)
    rec("removed", str(sorted(lin.state_dict().keys())))
    # roll-based translation & affine_grid translation
    x = lib.arange(2 * 1 * 4 * 4, dtype=lib.float32).view(2, 1, 4, 4)
    rec("roll", lib.roll(x, shifts=(1, -2), dims=(2, 3)))
    theta = lib.tensor([[[1, 0, 0.5], [0, 1, -0.25]], [[1, 0, 0.0], [0, 1, 0.0]]])
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    rec("grid", grid)
    rec(
        "gs_zero",
        F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False),
    )
    rec(
        "gs_refl",
        F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=False),
    )
    rec(
        "gs_border",
        F.grid_sample(x, grid, mode="nearest", padding_mode="border", align_corners=True),
    )
    ang = lib.rand(2) * math.pi
    rot = lib.stack(
        [
            lib.stack([ang.cos(), -ang.sin(), lib.zeros(2)], 1),
            lib.stack([ang.sin(), ang.cos(), lib.zeros(2)], 1),
        ],
        1,
    )
    xg = x.clone().requires_grad_()
    out = F.grid_sample(
        xg, F.affine_grid(rot, (2, 1, 4, 4), align_corners=False), align_corners=False
    )
    out.pow(2).sum().backward()
    rec("rot", out)
    rec("rotg", xg.grad)


def p_sn_more(lib, rec):
    nn = lib.nn
    P = nn.utils.parametrize
    SN = nn.utils.parametrizations.spectral_norm
    lib.manual_seed(26)
    ct = SN(nn.ConvTranspose2d(4, 3, 4, 2, 1))
    rec("ct_u", ct.parametrizations.weight[0]._u)
    rec("ct_v", ct.parametrizations.weight[0]._v)
    x = lib.randn(2, 4, 3, 3)
    rec("ct_y", ct(x))
    emb = SN(nn.Embedding(6, 4))
    rec("emb_u", emb.parametrizations.weight[0]._u)
    rec("emb", emb(lib.tensor([1, 2])))
    lin = SN(nn.Linear(5, 4), n_power_iterations=3, eps=1e-6)
    lin.eval()
    rec("eval_first", lin.weight)
    lin.train()
    with P.cached():
        a = lin.weight
        b = lin.weight
        rec("cached_same", str(a is b))
    rec("train_w", lin.weight)
    lin2 = copy.deepcopy(lin)
    rec("deep_u", lin2.parametrizations.weight[0]._u)
    sd = lin.state_dict()
    rec("sdk", str(sorted(sd.keys())))
    lin3 = SN(nn.Linear(5, 4))
    rec("load", str(lin3.load_state_dict(sd)))
    rec("loaded_w", lin3.weight)
    buf = io.BytesIO()
    rec.err("save_param", lambda: lib.save(lin, buf))
    rec.err("deepcopy_cached", lambda: copy.deepcopy(lin))
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("removed_keys", str(sorted(lin.state_dict().keys())))
    rec("removed_w", lin.weight)
    rec("is_param", str(type(lin.weight).__name__))
    rec("is_parametrized", str(P.is_parametrized(lin)))
    rec.err("remove_again", lambda: P.remove_parametrizations(lin, "weight"))
    # old-style SN under eval / state_dict
    old = nn.utils.spectral_norm(nn.Conv2d(3, 4, 3))
    rec("old_u", old.weight_u)
    old(lib.randn(1, 3, 5, 5))
    rec("old_w", old.weight)
    rec("old_sd", str(sorted(old.state_dict().keys())))
    old.eval()
    rec("old_eval", old(lib.randn(1, 3, 5, 5)))
    # weight norm parametrization in a generator
    wn = nn.utils.parametrizations.weight_norm(nn.Conv2d(3, 4, 3), dim=0)
    rec("wn_keys", str(sorted(wn.state_dict().keys())))
    rec("wn_g", wn.parametrizations.weight.original0)
    out = wn(lib.randn(1, 3, 5, 5)).sum()
    out.backward()
    rec("wn_gg", wn.parametrizations.weight.original0.grad)
    rec("wn_gv", wn.parametrizations.weight.original1.grad)
    # orthogonal parametrization
    orth = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
    w = orth.weight
    rec("orth_wwt", w @ w.T)
    # SN gradient through power iteration in train mode
    d = SN(nn.Linear(3, 2))
    inp = lib.randn(4, 3, requires_grad=True)
    d(inp).sum().backward()
    rec("sn_gin", inp.grad)
    rec("sn_gorig", d.parametrizations.weight.original.grad)
    # R1 with double backward through SN
    inp2 = lib.randn(4, 3, requires_grad=True)
    o = d(inp2)
    (g,) = lib.autograd.grad(o.sum(), inp2, create_graph=True)
    r1 = g.pow(2).sum()
    r1.backward()
    rec("r1_gorig", d.parametrizations.weight.original.grad)


def p_quant(lib, rec):
    lib.manual_seed(27)
    x = lib.randn(3, 10, dtype=lib.float64)
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        rec(
            "q_" + interp,
            lib.quantile(
                x,
                lib.tensor([0.05, 0.5, 0.995], dtype=lib.float64),
                dim=1,
                keepdim=True,
                interpolation=interp,
            ),
        )
    rec("q_flat", lib.quantile(x, 0.3))
    rec("q_neg", lib.quantile(x, 0.3, dim=-2))
    xr = x.clone().requires_grad_()
    q = lib.quantile(xr, 0.9, dim=1)
    q.sum().backward()
    rec("q_g", xr.grad)
    rec(
        "gc",
        str(
            lib.autograd.gradcheck(
                lambda a: lib.quantile(a, 0.37, dim=1), (x.clone().requires_grad_(),)
            )
        ),
    )
    rec(
        "nanq",
        lib.nanquantile(lib.tensor([[1.0, float("nan"), 3.0], [float("nan")] * 3]), 0.5, dim=1),
    )
    # clamp with tensor bounds: gradients
    s = lib.rand(3, 1, dtype=lib.float64, requires_grad=True)
    y = lib.randn(3, 4, dtype=lib.float64, requires_grad=True)
    c = lib.clamp(y, -s, s) / s
    c.sum().backward()
    rec("clamp_gy", y.grad)
    rec("clamp_gs", s.grad)
    rec(
        "gc_clamp",
        str(
            lib.autograd.gradcheck(
                lambda a, b: lib.clamp(a, min=-b, max=b),
                (y.detach().clone().requires_grad_(), s.detach().clone().requires_grad_()),
            )
        ),
    )
    rec(
        "clamp_minmax_cross",
        lib.clamp(lib.tensor([0.0, 1.0]), min=lib.tensor([1.0, 1.0]), max=lib.tensor([0.5, 0.5])),
    )
    rec("cdist_zero_g", _cdg(lib))
    rec("argmin_tie", lib.tensor([[1.0, 0.0, 0.0], [2.0, 2.0, 1.0]]).argmin(1))
    rec(
        "cdist_mm",
        lib.cdist(lib.randn(2, 7, 5), lib.randn(2, 3, 5), compute_mode="use_mm_for_euclid_dist"),
    )
    rec("cdist_inf", lib.cdist(lib.randn(4, 5), lib.randn(3, 5), p=float("inf")))
    rec("cdist_0", lib.cdist(lib.randn(4, 5), lib.randn(3, 5), p=0))


def _cdg(lib):
    a = lib.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    b = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    lib.cdist(a, b).sum().backward()
    return a.grad


def p_vq2(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(31)
    K, Dm = 8, 3
    x = lib.randn(2, 5, Dm)
    cb = lib.randn(K, Dm)
    rec.err("cdist_b2", lambda: lib.cdist(x, cb))
    rec("cdist_b1", lib.cdist(x, cb[None]))
    rec("cdist_bb", lib.cdist(x[:, None], cb[None, None].expand(1, 3, K, Dm)))
    rec.err("cdist_bad_b", lambda: lib.cdist(x, cb[None].expand(3, K, Dm)))
    rec("cdist_empty", lib.cdist(lib.zeros(0, 3), cb).shape)
    idx = lib.cdist(x, cb[None]).argmin(-1)
    rec("histc", lib.histc(idx.float(), bins=K, min=0, max=K - 1))
    rec("bucket", lib.bucketize(lib.tensor([0.1, 0.5, 0.9]), lib.tensor([0.0, 0.3, 0.6, 1.0])))
    rec(
        "bucket_r",
        lib.bucketize(lib.tensor([0.3, 0.6]), lib.tensor([0.0, 0.3, 0.6, 1.0]), right=True),
    )
    w = lib.randn(K, Dm)
    rec("gs_eps", rec.warns("gs_eps_w", lambda: F.gumbel_softmax(lib.zeros(2, 3), eps=1e-10)))
    emb = nn.Embedding.from_pretrained(w, freeze=True)
    rec("fp_rg", str(emb.weight.requires_grad))
    rec("fp", emb(idx))
    w2 = w.clone() * 3
    e2 = F.embedding(lib.tensor([0, 1, 1]), w2, max_norm=1.0)
    rec("maxnorm_out", e2)
    rec("maxnorm_w", w2)
    z = lib.randn(4, Dm, requires_grad=True)
    h = z.register_hook(lambda g: g * 2)
    (z * 3).sum().backward()
    rec("hook_g", z.grad)
    h.remove()

    class STE(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, book):
            d = lib.cdist(inp, book)
            i = d.argmin(1)
            ctx.mark_non_differentiable(i)
            return book[i], i

        @staticmethod
        def backward(ctx, gq, gi):
            return gq, None

    zz = lib.randn(4, Dm, requires_grad=True)
    q, i = STE.apply(zz, w)
    rec("ste_i_rg", str(i.requires_grad))
    (q * lib.arange(Dm)).sum().backward()
    rec("ste_g", zz.grad)
    rec("ste_fn", type(q.grad_fn).__name__)
    # kmeans init
    data = lib.randn(30, Dm)
    cent = data[lib.randperm(30)[:K]]
    for _ in range(3):
        a = lib.cdist(data, cent).argmin(1)
        bins = lib.bincount(a, minlength=K)
        zero = bins == 0
        bc = bins.masked_fill(zero, 1)
        new = lib.zeros_like(cent).scatter_add_(0, a[:, None].repeat(1, Dm), data) / bc[:, None]
        cent = lib.where(zero[:, None], cent, new)
    rec("kmeans", cent)
    st = lib.distributions.Categorical(logits=-(lib.cdist(data[:5], cent) ** 2)).sample()
    rec("stoch", st)
    rec(
        "kl_lt",
        F.kl_div(
            F.log_softmax(data[:4], -1),
            F.log_softmax(data[4:8], -1),
            reduction="batchmean",
            log_target=True,
        ),
    )
    rec("idx_put_acc", lib.zeros(K).index_put_((a,), lib.ones(30), accumulate=True))
    rec("index_reduce", lib.zeros(K, Dm).index_reduce_(0, a, data, "mean", include_self=False))
    rec("amax", lib.full((K,), -1.0).scatter_reduce_(0, a, data[:, 0], "amax"))
    rec("take_along", lib.take_along_dim(data, a[:, None] % Dm, dim=1))
    rec(
        "masked_scatter",
        lib.zeros(3, 3).masked_scatter_(lib.eye(3, dtype=lib.bool), lib.arange(1.0, 10.0)),
    )
    rec("uniq_dim", lib.unique(a.view(-1, 3), dim=0))
    rec("uniq_cons", lib.unique_consecutive(a.sort().values, return_counts=True)[1])


def p_numpy_sched(lib, rec):
    lib.manual_seed(24)
    T = 30
    scale = 1000 / T
    betas = np.linspace(scale * 0.0001, scale * 0.02, T, dtype=np.float64)
    alphas = 1.0 - betas
    acp = np.cumprod(alphas, axis=0)
    acp_prev = np.append(1.0, acp[:-1])
    post_var = betas * (1.0 - acp_prev) / (1.0 - acp)
    plv = np.log(np.append(post_var[1], post_var[1:]))
    t = lib.randint(0, T, (4,))
    res = lib.from_numpy(acp).to(device=t.device)[t].float()
    while len(res.shape) < 4:
        res = res[..., None]
    x = lib.randn(4, 2, 3, 3)
    out = res.expand(x.shape) * x
    rec("out", out)
    rec("np_index", lib.tensor(acp[t]))
    rec("np_index_dtype", str(lib.tensor(acp[t]).dtype))
    rec("np_scalar_mul", np.float64(0.5) * x)
    rec("np_scalar_mul_dt", str((np.float64(0.5) * x).dtype))
    rec("mul_np_scalar", str((x * np.float64(0.5)).dtype))
    rec("np_f32_scalar", str((x * np.float32(2)).dtype))
    rec("tensor_np_scalar", str(lib.tensor(np.float64(0.5)).dtype))
    rec("as_tensor", str(lib.as_tensor(acp, dtype=lib.float32).dtype))
    rec("np_int_index", x[np.int64(1)])
    rec("np_arr_index", x[np.array([0, 2])])
    rec("np_bool_index", x[np.array([True, False, True, False])])
    rec("tolist", str(t.numpy().tolist() == t.tolist()))
    rec("sqrt_recip", lib.from_numpy(np.sqrt(1.0 / acp)).float())
    rec("plv", lib.tensor(plv, dtype=lib.float32))
    rec("float_t", float(acp[t[0]]))
    rec("item_idx", acp[t[0].item()])
    rec("np_sum", np.sum(out.numpy()))
    rec("int_t", int(t[0]))
    rec("arange_np", lib.arange(np.int64(3)))
    rec("full_np", lib.full((2,), np.float32(1.5)))
    rec("full_np_dt", str(lib.full((2,), np.float64(1.5)).dtype))
    rec("linspace_np", lib.linspace(np.float64(0), 1, 3))
    rec("clamp_np", x.clamp(np.float64(-0.1), np.float64(0.1)))
    rec("t_np_int_add", str((t + np.int64(1)).dtype))
    ts = np.linspace(0, T - 1, 5).round()[::-1].copy().astype(np.int64)
    rec("ts", lib.from_numpy(ts))
    ts2 = np.linspace(0, T - 1, 5).round()[::-1].astype(np.int64)
    rec.err("neg_stride", lambda: lib.from_numpy(ts2))
    rec("ts_tensor", lib.tensor(ts2))
    rec("np_gen", lib.tensor(np.random.default_rng(0).standard_normal(3)).dtype.__repr__())
    rec("zero_d", lib.from_numpy(np.array(0.5)))
    rec("np_bool", lib.from_numpy(np.array([True, False])))
    rec("np_u8", lib.from_numpy(np.arange(3, dtype=np.uint8)) * 200)
    rec("where_np", lib.where(lib.from_numpy(np.array([True, False])), 1.0, 0.0))


def p_streams(lib, rec):
    lib.manual_seed(32)
    x = lib.zeros(2, 3)
    g = lib.Generator().manual_seed(7)
    rec("uni_g", lib.empty(3).uniform_(-1, 1, generator=g))
    rec("randn_size", lib.randn(size=(2, 3)))
    rec("randn_like_dt", lib.randn_like(x, dtype=lib.float64))
    rec("rand_like", lib.rand_like(x))
    rec("randint_like", lib.randint_like(x, 10))
    rec("randint_like2", lib.randint_like(x, 3, 10))
    rec("normal_size", lib.normal(0.0, 1.0, size=(3,)))
    rec("normal_mean_t", lib.normal(mean=lib.arange(3.0), std=0.1))
    rec("normal_std_t", lib.normal(2.0, lib.arange(1.0, 4.0)))
    rec("bern_", lib.empty(5).bernoulli_(0.5))
    rec("bern_t", lib.empty(5).bernoulli_(lib.linspace(0, 1, 5)))
    rec("bern_p", lib.bernoulli(lib.linspace(0, 1, 5), p=0.5))
    rec("n_rsample", lib.distributions.Normal(lib.zeros(3), 2.0).rsample((2,)))
    rec("lowdisc", (lib.rand(1) + lib.arange(6) / 6) % 1)
    with lib.random.fork_rng():
        lib.manual_seed(100)
        rec("forked", lib.rand(2))
    rec("after_fork", lib.rand(2))
    st = g.get_state()
    a = lib.randn(3, generator=g)
    g.set_state(st)
    rec("g_state", lib.randn(3, generator=g) - a)
    g2 = lib.Generator()
    g2.set_state(g.get_state())
    rec("g2", lib.randn(3, generator=g2) - lib.randn(3, generator=g))
    rec("ms_ret", type(lib.manual_seed(5)).__name__)
    rec("initial", lib.initial_seed())
    rec("exp_", lib.empty(3).exponential_(2.0))
    rec("geom_", lib.empty(3).geometric_(0.3))
    rec("cauchy_", lib.empty(3).cauchy_())
    rec("lognormal_", lib.empty(3).log_normal_())
    rec("randperm_dt", lib.randperm(5, dtype=lib.int32))
    rec("rand_f16", lib.rand(4, dtype=lib.float16))
    rec("randn_f64", lib.randn(4, dtype=lib.float64))
    rec("mn_2d", lib.multinomial(lib.rand(3, 5), 2))
    rec("mn_rep", lib.multinomial(lib.rand(3, 5), 4, replacement=True))
    rec("drop", lib.nn.functional.dropout(lib.ones(8), 0.5))
    rec("drop2d", lib.nn.functional.dropout2d(lib.ones(1, 4, 2, 2), 0.5))
    rec("alpha_drop", lib.nn.functional.alpha_dropout(lib.ones(6), 0.5, True))
    rec("gumbel", lib.nn.functional.gumbel_softmax(lib.zeros(2, 4), hard=True))
    rec("rrelu", lib.nn.functional.rrelu(-lib.ones(4), training=True))


def p_errs(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(16)
    x = lib.randn(2, 8)
    rec.err("q_int", lambda: lib.quantile(lib.arange(5), 0.5))
    rec.err("q_bad", lambda: lib.quantile(x, 1.5))
    rec.err("q_qdtype", lambda: lib.quantile(x, lib.tensor([0.5], dtype=lib.float64)))
    rec.err("q_interp", lambda: lib.quantile(x, 0.5, interpolation="foo"))
    rec.err("q_2d", lambda: lib.quantile(x, lib.tensor([[0.5]])))
    rec.err("oh_float", lambda: F.one_hot(lib.tensor([1.0, 2.0]), 3))
    rec.err("oh_big", lambda: F.one_hot(lib.tensor([1, 3]), 3))
    rec.err("oh_neg", lambda: F.one_hot(lib.tensor([-1, 2]), 3))
    rec.err("gn_div", lambda: nn.GroupNorm(3, 8))
    rec.err("gn_shape", lambda: nn.GroupNorm(2, 8)(lib.randn(2, 6, 3)))
    rec.err("emb_oob", lambda: nn.Embedding(4, 2)(lib.tensor([4])))
    rec.err(
        "cdist_int",
        lambda: lib.cdist(lib.ones(2, 3, dtype=lib.long), lib.ones(2, 3, dtype=lib.long)),
    )
    rec.err("cdist_dim", lambda: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)))
    rec.err("cdist_1d", lambda: lib.cdist(lib.ones(3), lib.ones(3)))
    rec.err("mn_zero", lambda: lib.multinomial(lib.zeros(3), 1))
    rec.err("mn_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1]), 1))
    rec.err("mn_norep", lambda: lib.multinomial(lib.tensor([0.5, 0.5, 0.0]), 3))
    rec.err("gather_idx", lambda: lib.ones(5).gather(0, lib.tensor([1.0])))
    rec.err("gather_oob", lambda: lib.ones(5).gather(0, lib.tensor([5])))
    rec.err("idx_oob", lambda: lib.ones(5)[lib.tensor([5])])
    rec.err(
        "index_add_dt",
        lambda: lib.zeros(3).index_add_(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64)),
    )
    rec.err("index_add_idx", lambda: lib.zeros(3).index_add_(0, lib.tensor([0.0]), lib.ones(1)))
    rec.err(
        "scatter_add_dt",
        lambda: lib.zeros(3, dtype=lib.long).scatter_add_(0, lib.tensor([0]), lib.ones(1)),
    )
    rec.err(
        "scatter_add_int32",
        lambda: lib.zeros(3).scatter_add_(0, lib.tensor([0], dtype=lib.int32), lib.ones(1)),
    )
    rec.err("clamp_tensor_none", lambda: lib.clamp(x))
    rec.err("clamp_int_tensor", lambda: lib.clamp(x, min=lib.tensor([0, 0, 0, 0, 0, 0, 0, 0])))
    rec("clamp_int_tensor_v", lib.clamp(x, min=lib.zeros(8, dtype=lib.long)))
    rec("clamp_int_x", lib.clamp(lib.arange(5), min=lib.tensor(1.5)))
    rec("clamp_int_x_scalar", lib.clamp(lib.arange(5), min=1.5))
    rec.err("grad_noreq", lambda: lib.autograd.grad(x.sum(), x))
    y = lib.randn(3, requires_grad=True)
    z = lib.randn(3, requires_grad=True)
    rec.err("grad_unused", lambda: lib.autograd.grad((y * 2).sum(), [y, z]))
    rec("grad_unused_ok", str(lib.autograd.grad((y * 2).sum(), [y, z], allow_unused=True)[1]))
    rec(
        "grad_unused_mat",
        lib.autograd.grad((y * 2).sum(), [y, z], allow_unused=True, materialize_grads=True)[1],
    )
    rec.err("grad_nonscalar", lambda: lib.autograd.grad(y * 2, y))
    rec.err("slogdet_nonsq", lambda: lib.linalg.slogdet(lib.ones(2, 3)))
    rec.err("slogdet_int", lambda: lib.linalg.slogdet(lib.ones(2, 2, dtype=lib.long)))
    rec("slogdet_sing", lib.linalg.slogdet(lib.ones(2, 2))[1])
    rec("slogdet_sing_s", lib.linalg.slogdet(lib.ones(2, 2))[0])
    rec("logdet_neg", lib.logdet(lib.tensor([[0.0, 1.0], [1.0, 0.0]])))
    rec.err("lu_nonsq", lambda: lib.linalg.lu_factor(lib.ones(2, 3)))
    rec("lu_rect", lib.linalg.lu(lib.arange(6.0).view(2, 3))[2])
    rec.err("gs_bad", lambda: F.gumbel_softmax(lib.tensor([1, 2]), hard=True))
    rec.err("ws_bad", lambda: lib.where(x > 0, x, lib.zeros(3)))
    rec.err("chunk0", lambda: x.chunk(0))
    rec.err(
        "interp",
        lambda: (
            F.interpolate(
                lib.randn(1, 2, 4, 4),
                scale_factor=2,
                mode="bilinear",
                align_corners=True,
                antialias=True,
            ).shape
        ),
    )
    rec.err(
        "affine_bad", lambda: F.affine_grid(lib.randn(2, 3, 3), (2, 1, 4, 4), align_corners=False)
    )
    rec.err(
        "gs_dims",
        lambda: F.grid_sample(lib.randn(1, 1, 4, 4), lib.randn(1, 4, 4, 3), align_corners=False),
    )
    rec.err("randint_bad", lambda: lib.randint(5, 5, (2,)))
    rec.err("randn_like_int", lambda: lib.randn_like(lib.arange(3)))
    rec.err("rand_int", lambda: lib.rand(3, dtype=lib.long))
    rec.err("pad_neg", lambda: F.pad(lib.ones(3), (0, -4)))
    rec("pad_neg2", F.pad(lib.ones(3), (0, -1)))
    rec.err("view_bad", lambda: lib.ones(4, 3).t().view(-1))
    rec.err(
        "sn_twice",
        lambda: nn.utils.parametrizations.spectral_norm(nn.utils.spectral_norm(nn.Linear(3, 3))),
    )
    rec.err(
        "sn_noparam", lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(3, 3), name="w")
    )
    rec.err("cat_dtype", lambda: lib.cat([lib.ones(2), lib.ones(2, dtype=lib.long)]))
    rec("cat_dtype.v", lib.cat([lib.ones(2, dtype=lib.long), lib.ones(2, dtype=lib.float64)]))
    rec.err("cat_empty", lambda: lib.cat([]))


def p_warns(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    x = lib.arange(16.0).view(1, 1, 4, 4)
    theta = lib.tensor([[[1.0, 0, 0.1], [0, 1, 0]]])
    g = rec.warns("ag_default", lambda: F.affine_grid(theta, x.shape))
    rec("g", g)
    rec("gs", rec.warns("gs_default", lambda: F.grid_sample(x, g)))
    rec.warns("mg", lambda: lib.meshgrid(lib.arange(2), lib.arange(3)))
    rec(
        "sc_red",
        rec.warns(
            "scatter_reduce_w",
            lambda: lib.zeros(3).scatter_(
                0, lib.tensor([0, 0]), lib.tensor([1.0, 2.0]), reduce="add"
            ),
        ),
    )
    rec("lu", rec.warns("lu_dep", lambda: lib.lu(lib.eye(2) + 1)[0]))
    rec("up", rec.warns("upsample", lambda: F.upsample(x, scale_factor=2, mode="nearest")))
    rec("ub", rec.warns("upsample_bilinear", lambda: F.upsample_bilinear(x, scale_factor=2)))
    rec("sig", rec.warns("F.sigmoid", lambda: F.sigmoid(x)))
    rec("tanh", rec.warns("F.tanh", lambda: F.tanh(x)))
    rec("q", rec.warns("quantile_nan", lambda: lib.quantile(lib.tensor([1.0, float("nan")]), 0.5)))
    rec(
        "nq",
        rec.warns(
            "nanquantile", lambda: lib.nanquantile(lib.tensor([1.0, float("nan"), 3.0]), 0.5)
        ),
    )
    y = lib.randn(3, requires_grad=True)
    rec("nonleaf", rec.warns("nonleaf_grad", lambda: str((y * 2).grad)))
    rec.warns("mse_bcast", lambda: F.mse_loss(lib.ones(3, 1), lib.ones(3)))
    rec.warns("sn_old", lambda: nn.utils.spectral_norm(nn.Linear(3, 3)))
    rec.warns("wn_old", lambda: nn.utils.weight_norm(nn.Linear(3, 3)))
    rec.warns("clip_nonfinite", lambda: nn.utils.clip_grad_norm_([], 1.0))
    rec.warns("softmax_nodim", lambda: F.softmax(lib.ones(2, 2)))
    rec.warns("log_softmax_nodim", lambda: F.log_softmax(lib.ones(2, 2)))
    rec.warns("gumbel_nodim", lambda: F.gumbel_softmax(lib.ones(2, 2)))
    rec.warns("chol", lambda: lib.cholesky(lib.eye(2)))
    rec.warns("data_grad", lambda: lib.ones(2, requires_grad=True).data.sum())
    rec.warns("sliding", lambda: lib.ones(2).T)
    rec.warns("range", lambda: lib.range(0, 3))
    rec.warns("std_dof", lambda: lib.ones(1).std())
    rec.warns("var_dof", lambda: lib.ones(2, 1).var(1))


def p_reprs(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    D = lib.distributions
    lib.manual_seed(30)
    rec("unet", repr(unet(lib)))
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(3, 4))
    rec("sn", repr(sn))
    rec("sn_pl", repr(sn.parametrizations))
    wn = nn.utils.parametrizations.weight_norm(nn.Conv2d(3, 4, 3))
    rec("wn", repr(wn))
    rec("old_sn", repr(nn.utils.spectral_norm(nn.Linear(3, 4))))
    am = lib.optim.swa_utils.AveragedModel(nn.Linear(2, 2))
    rec("am", repr(am))
    rec("mha", repr(nn.MultiheadAttention(8, 2, batch_first=True)))
    rec(
        "misc",
        repr(
            nn.Sequential(
                nn.Upsample(scale_factor=2, mode="nearest"),
                nn.PixelShuffle(2),
                nn.Unflatten(1, (2, 2)),
                nn.RMSNorm(4),
                nn.SiLU(inplace=True),
                nn.GELU(approximate="tanh"),
                nn.LeakyReLU(0.2, True),
                nn.ConvTranspose2d(4, 2, 4, 2, 1),
                nn.Embedding(5, 3, max_norm=1.0),
                nn.Mish(),
                nn.Hardswish(),
                nn.Softplus(beta=2, threshold=10),
            )
        ),
    )
    x = lib.randn(4, 3, requires_grad=True)
    e = lib.randn(5, 3)
    rec("cdist_fn", repr(lib.cdist(x, e).grad_fn.name()))
    rec("q_fn", repr(lib.quantile(x, 0.5, dim=1).grad_fn.name()))
    rec("gs_fn", repr(F.gumbel_softmax(x, hard=True).grad_fn.name()))
    rec("gs_soft_fn", repr(F.gumbel_softmax(x).grad_fn.name()))
    rec("st_fn", repr((x + (x.round() - x).detach()).grad_fn.name()))
    rec("clamp_t_fn", repr(lib.clamp(x, -e[:1].abs(), e[:1].abs()).grad_fn.name()))
    rec("gather_fn", repr(x.gather(1, lib.tensor([[0], [1], [2], [0]])).grad_fn.name()))
    rec("idx_fn", repr(x[lib.tensor([0, 2])].grad_fn.name()))
    rec("slogdet_fn", repr(lib.linalg.slogdet(x[:3]).logabsdet.grad_fn.name()))
    rec("slogdet_t", repr(type(lib.linalg.slogdet(x[:3])).__name__))
    rec("slogdet_r", repr(lib.linalg.slogdet(lib.eye(2))))
    rec("lu_r", repr(lib.linalg.lu_factor(lib.eye(2))))
    rec("lu_fn", repr(lib.linalg.lu(x[:3].double())[2].grad_fn.name()))
    rec("lerp_fn", repr(lib.lerp(x, e[:4, :3], 0.5).grad_fn.name()))
    rec("where_fn", repr(lib.where(x > 0, x, 0.0).grad_fn.name()))
    rec("pad_fn", repr(F.pad(x, (1, 0)).grad_fn.name()))
    rec("softplus_fn", repr(F.softplus(x).grad_fn.name()))
    rec("chunk_fn", repr(x.chunk(2)[0].grad_fn.name()))
    rec("einsum_fn", repr(lib.einsum("ij,kj->ik", x, e).grad_fn.name()))
    rec("gn_fn", repr(F.group_norm(x[None, :, :, None], 2).grad_fn.name()))
    rec("cumprod_fn", repr(x.cumprod(0).grad_fn.name()))
    rec("roll_fn", repr(x.roll(1, 0).grad_fn.name()))
    rec(
        "gsample_fn",
        repr(
            F.grid_sample(x[None, None], lib.zeros(1, 2, 2, 2), align_corners=False).grad_fn.name()
        ),
    )
    rec(
        "affine_fn",
        repr(
            F.affine_grid(
                x[:2, :3].reshape(1, 2, 3), (1, 1, 2, 2), align_corners=False
            ).grad_fn.name()
        ),
    )
    rec("mexp_fn", repr(lib.linalg.matrix_exp(x[:3]).grad_fn.name()))
    rec("oh", repr(F.one_hot(lib.tensor([0, 2]), 3)))
    rec("dists", repr(D.Categorical(probs=lib.tensor([0.2, 0.8]))))
    rec("td", repr(D.TransformedDistribution(D.Normal(0.0, 1.0), [D.transforms.ExpTransform()])))
    rec("tr", repr(D.transforms.AffineTransform(0.0, 2.0)))
    rec(
        "ct",
        repr(
            D.transforms.ComposeTransform(
                [D.transforms.ExpTransform(), D.transforms.SigmoidTransform()]
            )
        ),
    )
    rec("indep", repr(D.Independent(D.Normal(lib.zeros(3), lib.ones(3)), 1)))
    rec("relaxed", repr(D.RelaxedOneHotCategorical(lib.tensor(0.5), logits=lib.zeros(3))))
    rec("mvn", repr(D.MultivariateNormal(lib.zeros(2), lib.eye(2))))
    rec("half", repr(lib.randn(3, dtype=lib.float16)))
    rec("bf", repr(lib.randn(2, 2, dtype=lib.bfloat16) * 100))
    rec("long_t", repr(lib.randint(0, 1000, (3,))))
    rec("sched", repr(lib.linspace(1e-4, 0.02, 7)))
    rec("acp", repr(lib.cumprod(1 - lib.linspace(1e-4, 0.02, 1000), 0)))
    rec("param", repr(nn.Parameter(lib.zeros(2))))
    rec("gen", repr(lib.Generator().manual_seed(3).initial_seed()))
    rec("sd_item", repr(sn.state_dict()["parametrizations.weight.original"].shape))


def p_guidance(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(33)
    dt = lib.float64
    clf = nn.Sequential(nn.Linear(5, 16), nn.SiLU(), nn.Linear(16, 3)).to(dt)
    den = nn.Sequential(nn.Linear(5, 16), nn.SiLU(), nn.Linear(16, 4)).to(dt)
    x = lib.randn(4, 4, dtype=dt)
    y = lib.tensor([0, 2, 1, 1])
    known = lib.randn(4, 4, dtype=dt)
    mask = (lib.rand(4, 4) < 0.5).to(dt)
    with lib.no_grad():
        for i, s in enumerate([0.8, 0.5, 0.2]):
            t = lib.full((4, 1), s, dtype=dt)
            with lib.enable_grad():
                xin = x.detach().requires_grad_(True)
                lp = F.log_softmax(clf(lib.cat([xin, t], 1)), dim=-1)
                sel = lp[range(len(lp)), y.view(-1)]
                g = lib.autograd.grad(sel.sum(), xin)[0] * 2.0
            rec(f"cg{i}", g)
            eps = den(lib.cat([x, t], 1))
            x = x - 0.1 * eps + 0.05 * g
            x = mask * known + (1 - mask) * x
            rec(f"x{i}", x)
    # DPM-Solver++ (2M) style and Euler ancestral
    sig = lib.tensor([10.0, 5.0, 2.0, 0.5, 0.0], dtype=dt)
    xx = lib.randn(3, 4, dtype=dt) * sig[0]
    old = None

    def model(z, s):
        return z / (1 + s**2)

    def t_fn(s):
        return s.log().neg()

    def s_fn(t):
        return t.neg().exp()

    for i in range(len(sig) - 1):
        d = model(xx, sig[i])
        if sig[i + 1] == 0:
            xx = d
            break
        t, tn = t_fn(sig[i]), t_fn(sig[i + 1])
        h = tn - t
        if old is None or sig[i + 1] == 0:
            xx = (s_fn(tn) / s_fn(t)) * xx - (-h).expm1() * d
        else:
            hl = t - t_fn(sig[i - 1])
            r = hl / h
            dd = (1 + 1 / (2 * r)) * d - (1 / (2 * r)) * old
            xx = (s_fn(tn) / s_fn(t)) * xx - (-h).expm1() * dd
        old = d
        rec(f"dpm{i}", xx)
    xe = lib.randn(3, 4, dtype=dt) * sig[0]
    for i in range(len(sig) - 1):
        d = (xe - model(xe, sig[i])) / sig[i]
        su = min(
            sig[i + 1], (sig[i + 1] ** 2 * (sig[i] ** 2 - sig[i + 1] ** 2) / sig[i] ** 2) ** 0.5
        )
        sd = (sig[i + 1] ** 2 - su**2) ** 0.5
        xe = xe + d * (sd - sig[i])
        if sig[i + 1] > 0:
            xe = xe + lib.randn_like(xe) * su
        rec(f"euler_a{i}", xe)
    rec("su_type", type(su).__name__)


def p_ldm_metrics(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(34)
    params = lib.randn(2, 8, 3, 3)
    mean, logvar = lib.chunk(params, 2, dim=1)
    logvar = lib.clamp(logvar, -30.0, 20.0)
    std = lib.exp(0.5 * logvar)
    var = lib.exp(logvar)
    z = mean + std * lib.randn(mean.shape).to(device=params.device)
    rec("z", z * 0.18215)
    kl = 0.5 * lib.sum(lib.pow(mean, 2) + var - 1.0 - logvar, dim=[1, 2, 3])
    rec("kl", kl)
    nll = 0.5 * lib.sum(
        math.log(2.0 * math.pi) + logvar + lib.pow(z - mean, 2) / var, dim=[1, 2, 3]
    )
    rec("nll", nll)
    agn = nn.GroupNorm(2, 4, affine=False)
    emb = lib.randn(2, 8)
    sc, sh = emb[:, :, None, None].chunk(2, 1)
    rec("adagn", agn(z) * (1 + sc) + sh)
    # FID-ish statistics without complex numbers
    f1 = lib.randn(50, 6, dtype=lib.float64)
    f2 = lib.randn(40, 6, dtype=lib.float64) + 0.3
    mu1, mu2 = f1.mean(0), f2.mean(0)
    c1, c2 = lib.cov(f1.T), lib.cov(f2.T)
    rec("cov", c1)
    rec(
        "cov_w",
        lib.cov(
            f1.T, correction=0, fweights=lib.arange(1, 51), aweights=lib.rand(50, dtype=lib.float64)
        ),
    )
    rec("corrcoef", lib.corrcoef(f1.T))
    ev, evec = lib.linalg.eigh(c1)
    s1 = evec @ lib.diag(ev.clamp(min=0).sqrt()) @ evec.T
    m = s1 @ c2 @ s1
    ev2 = lib.linalg.eigvalsh(m)
    fid = (
        (mu1 - mu2).square().sum()
        + lib.trace(c1)
        + lib.trace(c2)
        - 2 * ev2.clamp(min=0).sqrt().sum()
    )
    rec("fid", fid)
    rec("svdvals", lib.linalg.svdvals(c1))
    # inception score
    p = F.softmax(lib.randn(20, 5), -1)
    py = p.mean(0, keepdim=True)
    kl_ = (p * (p.log() - py.log())).sum(1)
    rec("is", kl_.mean().exp())
    rec("is_kl_div", F.kl_div(py.log().expand_as(p), p, reduction="none").sum(1))
    # precision / recall via k-NN radii
    real, fake = lib.randn(30, 4), lib.randn(25, 4)
    dr = lib.cdist(real, real)
    radii = dr.kthvalue(4, dim=1).values
    rec("radii", radii)
    inside = (lib.cdist(fake, real) <= radii[None]).any(1).float().mean()
    rec("precision", inside)
    rec("topk_small", dr.topk(3, dim=1, largest=False).values)
    rec("cos", F.cosine_similarity(real[:5, None], fake[None, :3], dim=-1))
    rec("pdist", F.pdist(real[:5]))
    # consistency model: functional_call + jvp
    net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 3))
    pr = dict(net.named_parameters())
    xin = lib.randn(4, 3)
    tang = lib.randn(4, 3)
    out, jv = lib.func.jvp(lambda a: lib.func.functional_call(net, pr, (a,)), (xin,), (tang,))
    rec("cm_out", out)
    rec("cm_jvp", jv)
    fa = lib.autograd.forward_ad
    with fa.dual_level():
        dual = fa.make_dual(xin, tang)
        o = net(dual)
        rec("fwd_ad", fa.unpack_dual(o).tangent)


def p_idx(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(35)
    acp = lib.linspace(0.99, 0.1, 10)
    t32 = lib.tensor([1, 3], dtype=lib.int32)
    rec("idx_i32", acp[t32])
    rec.err("idx_u8", lambda: acp[lib.tensor([1, 3], dtype=lib.uint8)])
    rec.warns("idx_u8_w", lambda: acp[lib.ones(10, dtype=lib.uint8)])
    rec.err("idx_float", lambda: acp[lib.tensor([1.0])])
    rec.err("gather_i32", lambda: acp.gather(0, t32))
    rec.err("index_select_i32", lambda: acp.index_select(0, t32))
    rec.err("index_select_i16", lambda: acp.index_select(0, t32.short()))
    rec.err("emb_i32", lambda: F.embedding(t32, lib.randn(10, 2)))
    rec.err("emb_i16", lambda: F.embedding(t32.short(), lib.randn(10, 2)))
    rec.err("oh_i32", lambda: F.one_hot(t32, 5))
    rec.err("scatter_i32", lambda: lib.zeros(10).scatter_(0, t32, 1.0))
    rec.err("index_add_i32", lambda: lib.zeros(10).index_add_(0, t32, lib.ones(2)))
    rec.err("index_put_i32", lambda: lib.zeros(10).index_put_((t32,), lib.ones(2), accumulate=True))
    rec.err("ce_i32", lambda: F.cross_entropy(lib.randn(2, 10), t32))
    rec.err("nll_u8", lambda: F.nll_loss(lib.randn(2, 10), t32.byte()))
    rec.err("bincount_i32", lambda: lib.bincount(t32))
    rec.err("bincount_f", lambda: lib.bincount(lib.tensor([1.0])))
    rec.err("bincount_neg", lambda: lib.bincount(lib.tensor([-1])))
    rec.err("expand_inplace", lambda: lib.zeros(1, 3).expand(2, 3).add_(1))
    rec.err("take_along_i32", lambda: lib.take_along_dim(acp, t32))
    rec.err("randint_dtype", lambda: lib.randint(0, 10, (3,), dtype=lib.int32))
    rec.err("randint_f", lambda: lib.randint(0, 10, (3,), dtype=lib.float32))
    rec.err(
        "multinomial_f64", lambda: lib.multinomial(lib.tensor([0.2, 0.8], dtype=lib.float64), 2)
    )
    rec.err("mn_int", lambda: lib.multinomial(lib.tensor([1, 2]), 1))
    rec.err("cumprod_int", lambda: lib.cumprod(lib.tensor([1, 2, 3]), 0))
    rec.err("cumprod_bool", lambda: lib.cumprod(lib.tensor([True, False]), 0))
    rec.err("linspace_int", lambda: lib.linspace(0, 10, 4, dtype=lib.long))
    rec.err("arange_half", lambda: lib.arange(0, 1, 0.25, dtype=lib.float16))
    rec.err("sqrt_int", lambda: lib.sqrt(lib.tensor([4, 9])))
    rec.err("clamp_bool", lambda: lib.clamp(lib.tensor([True]), 0, 1))
    rec.err("quantile_i", lambda: lib.quantile(lib.tensor([1.0, 2.0]), lib.tensor([1])))
    rec.err(
        "searchsorted_i32", lambda: lib.searchsorted(acp.flip(0), lib.tensor([0.5]), out_int32=True)
    )
    rec.err("argmin_empty", lambda: lib.zeros(0).argmin())
    rec.err("argmin_empty_dim", lambda: lib.zeros(2, 0).argmin(1))
    rec.err("cdist_empty2", lambda: lib.cdist(lib.zeros(2, 0), lib.zeros(3, 0)))
    rec.err("gumbel_tau0", lambda: F.gumbel_softmax(lib.zeros(2, 3), tau=0.0))
    rec.err("gn_empty", lambda: nn.GroupNorm(2, 4)(lib.zeros(0, 4, 2)))
    rec.err("pad_refl", lambda: F.pad(lib.zeros(1, 2, 3), (3, 3), mode="reflect"))
    rec.err(
        "interp_int", lambda: F.interpolate(lib.zeros(1, 1, 2, 2, dtype=lib.long), scale_factor=2)
    )
    rec.err("lerp_dt", lambda: lib.lerp(lib.zeros(2), lib.zeros(2, dtype=lib.float64), 0.5))
    rec.err(
        "foreach_lerp_len",
        lambda: lib._foreach_lerp_([lib.zeros(2)], [lib.zeros(2), lib.zeros(2)], 0.5),
    )
    rec.err("ema_copy_shape", lambda: lib.zeros(2).copy_(lib.zeros(3)))
    rec.err("mul_out_int", lambda: lib.zeros(2, dtype=lib.long).mul_(0.5))
    rec.err("slogdet_batch", lambda: lib.linalg.slogdet(lib.zeros(2, 3, 3)).logabsdet.shape)


def p_stylegan(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(37)

    class EqLinear(nn.Module):
        def __init__(self, i, o, lr_mul=1.0):
            super().__init__()
            self.weight = nn.Parameter(lib.randn(o, i).div_(lr_mul))
            self.bias = nn.Parameter(lib.zeros(o))
            self.scale = (1 / math.sqrt(i)) * lr_mul
            self.lr_mul = lr_mul

        def forward(self, x):
            return F.leaky_relu(
                F.linear(x, self.weight * self.scale, self.bias * self.lr_mul), 0.2
            ) * math.sqrt(2)

    class ModConv(nn.Module):
        def __init__(self, cin, cout, k, sdim, demod=True, up=False):
            super().__init__()
            self.weight = nn.Parameter(lib.randn(1, cout, cin, k, k))
            self.mod = nn.Linear(sdim, cin)
            nn.init.ones_(self.mod.bias)
            self.scale = 1 / math.sqrt(cin * k * k)
            self.demod, self.up, self.k, self.cout = demod, up, k, cout
            self.noise_w = nn.Parameter(lib.zeros(1))

        def forward(self, x, s):
            b, c, h, w = x.shape
            st = self.mod(s).view(b, 1, c, 1, 1)
            wt = self.scale * self.weight * st
            if self.demod:
                d = lib.rsqrt(wt.pow(2).sum([2, 3, 4]) + 1e-8)
                wt = wt * d.view(b, self.cout, 1, 1, 1)
            if self.up:
                wt = wt.transpose(1, 2).reshape(b * c, self.cout, self.k, self.k)
                out = F.conv_transpose2d(x.view(1, b * c, h, w), wt, padding=0, stride=2, groups=b)
                out = out.view(b, self.cout, *out.shape[2:])
                kernel = lib.tensor([1.0, 3.0, 3.0, 1.0])
                kernel = kernel[None, :] * kernel[:, None]
                kernel = (kernel / kernel.sum() * 4).expand(self.cout, 1, 4, 4)
                out = F.conv2d(F.pad(out, (1, 1, 1, 1)), kernel, groups=self.cout)
            else:
                wt = wt.view(b * self.cout, c, self.k, self.k)
                out = F.conv2d(x.view(1, b * c, h, w), wt, padding=self.k // 2, groups=b)
                out = out.view(b, self.cout, h, w)
            noise = lib.randn(b, 1, out.shape[2], out.shape[3])
            return out + self.noise_w * noise

    mapping = nn.Sequential(*[EqLinear(8, 8, 0.01) for _ in range(2)])
    c1 = ModConv(4, 4, 3, 8)
    c2 = ModConv(4, 4, 3, 8, up=True)
    const = nn.Parameter(lib.randn(1, 4, 4, 4))
    w_avg = lib.zeros(8)
    z = lib.randn(3, 8, requires_grad=True)
    w = mapping(F.normalize(z, dim=1) * math.sqrt(8))
    w_avg.copy_(w.detach().mean(0).lerp(w_avg, 0.995))
    rec("w_avg", w_avg)
    wt = w_avg.lerp(w, 0.7)
    rec("trunc", wt)
    x = const.expand(3, -1, -1, -1)
    rec.err("view_expanded", lambda: c1(x, w))
    x = c1(x.contiguous(), w)
    x = c2(x, w)
    rec("img", x)
    # path length regularisation
    noise = lib.randn_like(x) / math.sqrt(x.shape[2] * x.shape[3])
    (g,) = lib.autograd.grad((x * noise).sum(), w, create_graph=True)
    pl = g.square().sum(1).sqrt()
    pen = (pl - pl.mean().detach()).square().mean()
    pen.backward()
    rec("pl", pl)
    rec("pl_g", c1.weight.grad)
    # minibatch stddev
    y = x.detach()
    G, Fc = 3, 1
    N, C, H, W = y.shape
    s = y.reshape(G, -1, Fc, C // Fc, H, W)
    s = s - s.mean(dim=0)
    s = s.square().mean(dim=0)
    s = (s + 1e-8).sqrt()
    s = s.mean(dim=[2, 3, 4])
    s = s.reshape(-1, Fc, 1, 1)
    s = s.repeat(G, 1, H, W)
    rec("mbstd", lib.cat([y, s], dim=1))
    # non-saturating loss with softplus, lazy R1
    logits = lib.randn(4, 1, requires_grad=True)
    rec("ns", F.softplus(-logits).mean())
    rec("bce_ls", F.binary_cross_entropy_with_logits(logits, lib.full_like(logits, 0.9)))
    rec("bce_w", nn.BCEWithLogitsLoss(pos_weight=lib.tensor([2.0]))(logits, lib.ones_like(logits)))
    lbl = lib.ones_like(logits).uniform_(0.8, 1.0)
    rec("lbl", lbl)
    rec("bce", F.binary_cross_entropy(lib.sigmoid(logits), lbl))
    v = nn.utils.parameters_to_vector(c1.parameters())
    rec("p2v", v)
    nn.utils.vector_to_parameters(v * 0.5, c1.parameters())
    rec("v2p", c1.weight)
    c1.weight.grad = lib.randn_like(c1.weight) * 10
    nn.utils.clip_grad_value_(c1.parameters(), 1.0)
    rec("clipv", c1.weight.grad)
    # style mixing with a random crossover
    cut = int(lib.randint(1, 3, ()).item())
    rec("cut", cut)
    ws = lib.stack([w, w.flip(0)], 1)
    mix = lib.where(lib.arange(2)[None, :, None] < cut, ws[:, :1], ws[:, 1:])
    rec("mix", mix)


def p_images(lib, rec):
    lib.manual_seed(38)
    x = lib.randn(2, 3, 4, 4) * 0.7
    img = x.clamp(-1, 1).add(1).div(2).mul(255).to(lib.uint8)
    rec("u8", img)
    rec("u8r", (x.clamp(-1, 1) * 127.5 + 128).clamp(0, 255).round().byte())
    rec("u8add", img + 10)
    rec("u8sub", img.float() - img)
    rec("u8mean", img.float().mean())
    rec.err("u8mean_int", lambda: img.mean())
    rec("u8_to_f", img.to(lib.float32) / 255)
    rec("u8div", img / 2)
    rec("u8floordiv", img // 2)
    rec("u8sum", img.sum())
    rec("u8max", img.max())
    rec("u8hist", lib.bincount(img.flatten().long(), minlength=256)[:10])
    rec("np", img.permute(0, 2, 3, 1).numpy())
    rec.err("grid_bad", lambda: lib.cat([lib.cat(list(img[i]), dim=1) for i in range(2)], dim=2))
    grid = lib.cat([lib.cat(list(img[i]), dim=1) for i in range(2)], dim=1)
    rec("grid", grid)
    rec("item", f"{x.mean().item():.4f}")
    rec("fmt", f"{x.mean():.3f}")
    rec("str0d", str(x.mean()))
    rec("halfround", (lib.tensor([0.5, 1.5, 2.5, -0.5])).round())
    rec("round_dec", lib.tensor([1.2345, 2.5555]).round(decimals=2))
    rec("dither", ((x + 1) * 127.5 + lib.rand_like(x)).floor().clamp(0, 255).to(lib.uint8))
    rec("bits", lib.floor(((x + 1) / 2) * 31) / 31 * 2 - 1)


def p_attn_ops(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(39)
    q, k = lib.randn(2, 3, 4, requires_grad=True), lib.randn(2, 5, 4, requires_grad=True)
    nanb = lib.full((2, 3, 5), float("nan"))
    s = lib.baddbmm(nanb, q, k.transpose(-1, -2), beta=0, alpha=0.5)
    rec("baddbmm_nan_beta0", s)
    s.sum().backward()
    rec("bq", q.grad)
    e = lib.empty(2, 3, 5, dtype=q.dtype)
    rec("baddbmm_empty", lib.baddbmm(e, q, k.transpose(-1, -2), beta=0, alpha=0.5))
    rec("addmm_nan", lib.addmm(lib.full((3, 5), float("inf")), q[0], k[0].T, beta=0))
    rec("addmv_nan", lib.addmv(lib.full((3,), float("nan")), q[0], k[0, 0], beta=0))
    rec("addbmm", lib.addbmm(lib.zeros(3, 5), q, k.transpose(1, 2), beta=0.5))
    rec("addr_nan", lib.addr(lib.full((3, 4), float("nan")), lib.ones(3), lib.ones(4), beta=0))
    rec(
        "baddbmm_int",
        lib.baddbmm(
            lib.ones(1, 2, 2, dtype=lib.long),
            lib.ones(1, 2, 2, dtype=lib.long),
            lib.ones(1, 2, 2, dtype=lib.long),
            beta=2,
            alpha=3,
        ),
    )
    rec.err(
        "baddbmm_float_beta_int",
        lambda: lib.baddbmm(
            lib.ones(1, 2, 2, dtype=lib.long),
            lib.ones(1, 2, 2, dtype=lib.long),
            lib.ones(1, 2, 2, dtype=lib.long),
            beta=0.5,
        ),
    )
    p = lib.randn(4)
    m, v = lib.zeros(4), lib.zeros(4)
    g = lib.randn(4)
    m.mul_(0.9).add_(g, alpha=0.1)
    v.mul_(0.999).addcmul_(g, g, value=0.001)
    p.addcdiv_(m, v.sqrt().add_(1e-8), value=-1e-3)
    rec("adam_hand", p)
    rec("addcmul_t", lib.addcmul(lib.zeros(4), g, g, value=2))
    x = lib.arange(32.0).view(1, 2, 4, 4)
    rec("unfold_patches", x.unfold(2, 2, 2).unfold(3, 2, 2).reshape(1, 2, 4, 4))
    rec(
        "interp_rsf",
        F.interpolate(x, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True),
    )
    rec("interp_norsf", F.interpolate(x, scale_factor=1.5, mode="bilinear"))
    rec("ups_size", nn.Upsample(size=(5, 3), mode="bicubic", align_corners=True)(x))
    rec(
        "gs_bicubic",
        F.grid_sample(x, lib.rand(1, 3, 3, 2) * 2 - 1, mode="bicubic", align_corners=False),
    )
    vol = lib.arange(2 * 3 * 3 * 3.0).view(1, 2, 3, 3, 3)
    th = lib.tensor([[[1.0, 0.1, 0, 0.2], [0, 1, 0, 0], [0, 0, 1, -0.1]]])
    rec(
        "gs3d",
        F.grid_sample(
            vol, F.affine_grid(th, (1, 2, 3, 3, 3), align_corners=False), align_corners=False
        ),
    )
    rec(
        "mask_softmax",
        lib.softmax(lib.tensor([[float("-inf")] * 3, [0.0, 1.0, float("-inf")]]), -1),
    )
    rec(
        "sdpa_allmasked",
        F.scaled_dot_product_attention(
            q[:, :2], k[:, :2], k[:, :2], attn_mask=lib.zeros(2, 2, dtype=lib.bool)
        ),
    )
    rec("sdpa_float_mask", F.scaled_dot_product_attention(q, k, k, attn_mask=lib.randn(3, 5)))
    rec(
        "masked_fill_neg",
        lib.randn(2, 3).masked_fill(
            lib.tensor([[True, False, True], [False] * 3]), -lib.finfo(lib.float32).max
        ),
    )


def p_legacy(lib, rec):
    lib.manual_seed(40)

    def w(name, fn):
        return rec.warns(name, lambda: rec.err(name + ".err", fn))

    betas = lib.linspace(1e-4, 0.02, 5)
    t = w("tensor_of_tensor", lambda: lib.tensor(betas))
    rec("t", t)
    w("tensor_of_tensor_list", lambda: lib.tensor([betas[0], betas[1]]))
    w("as_tensor", lambda: lib.as_tensor(betas, dtype=lib.float64))
    rec("FloatTensor", lib.FloatTensor([1, 2]))
    rec("LongTensor", lib.LongTensor([1, 2]))
    rec("FloatTensor_size", lib.FloatTensor(2, 3).shape)
    rec("type_ft", lib.from_numpy(np.arange(3)).type(lib.FloatTensor))
    rec("type_lt", betas.type(lib.LongTensor))
    rec("type_str", betas.type("torch.DoubleTensor"))
    rec("isinst", str(isinstance(betas, lib.FloatTensor)))
    v = lib.autograd.Variable(betas, requires_grad=True)
    rec("var", str(v.requires_grad))
    rec("var_type", type(v).__name__)
    w("volatile", lambda: lib.autograd.Variable(betas, volatile=True))
    rec("data_np", betas.data.numpy())
    w("sum_dim_bool", lambda: betas.sum(0, True))
    w("uint8_mask", lambda: betas.masked_fill(lib.tensor([1, 0, 1, 0, 0], dtype=lib.uint8), 0))
    w("clamp_keyword", lambda: betas.clamp(min=0.001))
    w("nonzero", lambda: (betas > 0.01).nonzero())
    w("nonzero_tuple", lambda: (betas > 0.01).nonzero(as_tuple=True))
    w("norm_p", lambda: betas.norm(p=2, dim=0))
    w("ger", lambda: lib.ger(betas, betas))
    w("symeig", lambda: getattr(lib, "symeig", None))
    w("matrix_rank", lambda: lib.linalg.matrix_rank(lib.eye(3)))
    w("chain_matmul", lambda: lib.chain_matmul(lib.eye(2), lib.eye(2)))
    w("qr_old", lambda: lib.qr(lib.eye(2)))
    w("solve_old", lambda: lib.linalg.solve(lib.eye(2), lib.ones(2)))
    w("trapz", lambda: lib.trapz(betas))
    w("floor_divide", lambda: lib.floor_divide(lib.tensor([5, -5]), 2))
    w("div_trunc", lambda: lib.div(lib.tensor([5, -5]), 2, rounding_mode="trunc"))
    w("set_default_tensor_type", lambda: lib.set_default_tensor_type(lib.FloatTensor))
    w("is_tensor", lambda: lib.is_tensor(betas))
    w("reduction_size_average", lambda: lib.nn.MSELoss(size_average=False))
    w("reduce", lambda: lib.nn.functional.mse_loss(betas, betas, reduce=False))
    w("xavier_old", lambda: lib.nn.init.xavier_uniform(lib.empty(2, 2)))
    w("normal_old", lambda: lib.nn.init.normal(lib.empty(2, 2)))
    w(
        "F_upsample_nearest",
        lambda: lib.nn.functional.upsample_nearest(lib.ones(1, 1, 2, 2), scale_factor=2),
    )
    w("clip_grad_norm", lambda: lib.nn.utils.clip_grad_norm([lib.ones(2, requires_grad=True)], 1.0))


def p_layouts(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(42)
    x = lib.zeros(2, 3, 4, 4).to(memory_format=lib.channels_last)
    n = lib.randn_like(x)
    rec("randn_like_cl", n)
    rec("randn_like_cl_stride", str(n.stride()))
    rec("rand_like_cl", lib.rand_like(x))
    rec("randint_like_cl", lib.randint_like(x, 5))
    rec("normal_cl", lib.empty_like(x).normal_())
    rec("uniform_cl", lib.empty_like(x).uniform_())
    rec("bern_cl", lib.empty_like(x).bernoulli_(0.5))
    rec("bern_p_cl", lib.bernoulli(lib.full_like(x, 0.5)))
    rec("drop_cl", F.dropout(lib.ones_like(x), 0.5))
    rec("drop2d_cl", F.dropout2d(lib.ones_like(x), 0.5))
    t = lib.zeros(5, 3).t()
    rec("randn_like_t", lib.randn_like(t))
    rec("rand_like_t", lib.rand_like(t))
    rec("normal_t", t.clone().normal_())
    rec("t_normal_inplace", lib.zeros(5, 20).t().normal_())
    rec("t_uniform_inplace", lib.zeros(5, 20).t().uniform_())
    rec("t_bern", lib.zeros(5, 4).t().bernoulli_(0.3))
    rec("exp_t", lib.zeros(5, 4).t().exponential_())
    big = lib.zeros(2, 8, 4, 4).to(memory_format=lib.channels_last)
    rec("randn_like_big_cl", lib.randn_like(big))
    conv = nn.Conv2d(3, 8, 3, padding=1).to(memory_format=lib.channels_last)
    y = conv(lib.randn(2, 3, 4, 4).to(memory_format=lib.channels_last))
    rec("conv_cl_stride", str(y.stride()))
    rec(
        "gumbel_cl",
        F.gumbel_softmax(lib.zeros(2, 4, 3, 3).to(memory_format=lib.channels_last), dim=1),
    )
    rec("noise_add", y + lib.randn_like(y))
    rec("rrelu_t", F.rrelu(-lib.ones(4, 3).t(), training=True))


def p_dist_errs(lib, rec):
    D = lib.distributions
    lib.manual_seed(43)
    mean = lib.randn(2, 3)
    var = lib.tensor([[0.0, 0.1, 0.2], [0.3, 0.0, 0.1]])
    rec.err("normal_zero_scale", lambda: D.Normal(mean, var.sqrt()))
    rec.err("normal_nan_loc", lambda: D.Normal(lib.tensor([float("nan"), 0.0]), 1.0))
    rec.err("cat_bad_probs", lambda: D.Categorical(probs=lib.tensor([0.5, -0.1])))
    rec.err("cat_nan_logits", lambda: D.Categorical(logits=lib.tensor([0.0, float("nan")])))
    rec.err("bern_bad", lambda: D.Bernoulli(probs=lib.tensor([1.5])))
    n = D.Normal(mean, lib.ones(2, 3))
    rec.err("lp_shape", lambda: n.log_prob(lib.zeros(4, 3)))
    rec.err("cat_lp_float", lambda: D.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor([0.5])))
    rec.err("cat_lp_oob", lambda: D.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor([3])))
    rec.err("beta_lp_oob", lambda: D.Beta(2.0, 2.0).log_prob(lib.tensor([1.5])))
    rec.err(
        "mvn_notpd",
        lambda: D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    )
    rec.err("indep_bad", lambda: D.Independent(n, 3))
    rec.err("rsample_cat", lambda: D.Categorical(logits=lib.zeros(3)).rsample())
    rec.err("kl_missing", lambda: D.kl_divergence(D.Beta(2.0, 2.0), D.Normal(0.0, 1.0)))
    rec("ent", D.Normal(mean, 2.0).entropy())
    rec("cdf", D.Normal(0.0, 1.0).cdf(lib.tensor([-1.0, 0.0, 2.0])))
    rec("icdf", D.Normal(0.0, 1.0).icdf(lib.tensor([0.1, 0.5])))
    rec.err("trans_inv_bad", lambda: D.transforms.SigmoidTransform().inv(lib.tensor([1.5])))
    rec.err(
        "td_lp_oob",
        lambda: D.TransformedDistribution(
            D.Normal(0.0, 1.0), [D.transforms.SigmoidTransform()]
        ).log_prob(lib.tensor([1.5])),
    )
