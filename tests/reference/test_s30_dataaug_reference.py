"""Session 30 (helper dataaug): data augmentation and input pipelines written in tensors, run
under torch and minitorch with the same seeds and compared record by record: random crops with
reflect/replicate/circular padding, flips and rot90 by a seeded Generator (randint, rand,
randperm), channel and pixel shuffles; mixup (Beta samples, one_hot label mixing, soft-target
and label-smoothed cross-entropy) and cutmix (boxes by index arithmetic and by broadcast masks);
RandAugment-style op sampling (multinomial, solarize, posterize by uint8 bit masks, sharpness,
autocontrast, shear by affine_grid); color jitter in tensor math (brightness, contrast,
saturation by grayscale weights, hue by RGB<->HSV with max/min/where/fmod/remainder); separable
gaussian blur by grouped conv2d (a differentiable sigma), box and median filters, unsharp
masks; random erasing and cutout; affine_grid + grid_sample in every mode, padding mode and
align_corners, 2-d and 3-d, with gradients to the input, grid and angle, far outside the image
and at NaN/inf grid points; homographies by lstsq/solve; elastic deformations; interpolate
(nearest, nearest-exact, bilinear, bicubic, area, antialias) with gradients, random resized
crops, mosaics, fold/unfold grid masks; normalisation modules with buffers and state_dict;
uint8 pipelines (histograms, equalisation by cumsum lookups, wrap-around); half/bfloat16 and
autocast; AugMix with Dirichlet weights and a Jensen-Shannon loss; per-sample augmentation
under vmap; Dataset/DataLoader/Subset/random_split/ConcatDataset/ChainDataset/StackDataset
with generators and custom collate_fns (padding ragged crops with masks), samplers (Weighted,
SubsetRandom, Random, Batch, Distributed, custom), worker_init_fn and get_worker_info with
num_workers=0, epoch reseeding and fork_rng; test-time augmentation averaging; a mixup
training loop; the sampled numbers of every generator path; and the errors of these calls
(among them a seed passed where a Generator belongs). float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4, half-precision records to 1/64; texts exactly.

Known and left (documented):
- vmap(randomness='different') runs func once per sample, so each sample's draws come in turn
  where torch draws each random op once for the whole batch: the numbers are torch's only
  where that order gives the same stream (see minitorch.func.vmap); the programs use 'same'
  and single uniform-type draws.
- DistributedSampler needs num_replicas and rank here (no process group: torch's
  RuntimeError for a build without the distributed package, not its ValueError).
- NumPy's floating-point RuntimeWarnings show under an "always" filter (0/0 in Beta.mode with
  a concentration below 1); the programs record no catch-all warnings.
- Float32 affine_grid can differ from torch's in the last bit, so a grid point exactly on a
  border clamp can take the other side's gradient: the programs' thetas avoid such points.
- Tensor.bernoulli_(generator=<not a Generator>) without p names the default p's type in its
  error (torch lists no positional argument)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "crop_flip", "rot_perm", "mixup", "cutmix", "randaugment", "color_jitter", "hsv",
    "gaussian_blur", "random_erasing", "affine", "elastic", "normalize", "loader",
    "splits", "samplers", "workers", "tta", "errors", "uint8_ops", "resized_crop",
    "mixup_train", "perspective", "augmix", "noise", "mosaic", "pad_collate", "to_tensor",
    "sampling", "datasets", "filters", "dists", "streams", "vmap_aug",
    "errors2", "dist_sampler", "uint8_eq",
    "modules",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-10 if dt == "float64" else 1e-4
    # half-precision records (the filters program) to 1/64
    assert_program_matches(
        globals()["p_" + name], torch, dt, tol=lambda n, a: 1 / 64 if "16" in n else tol
    )


# --- helpers ---


def _images(lib, dt, n=4, c=3, h=8, w=8, seed=0):
    g = lib.Generator().manual_seed(seed)
    return lib.rand(n, c, h, w, generator=g, dtype=dt)


def _gray(lib, x):
    r, g, b = x.unbind(dim=-3)
    return (0.299 * r + 0.587 * g + 0.114 * b).unsqueeze(-3)


def _rgb_to_hsv(lib, img):
    r, g, b = img.unbind(dim=-3)
    maxc = img.max(dim=-3).values
    minc = img.min(dim=-3).values
    eqc = maxc == minc
    cr = maxc - minc
    ones = lib.ones_like(maxc)
    s = cr / lib.where(eqc, ones, maxc)
    cr_div = lib.where(eqc, ones, cr)
    rc = (maxc - r) / cr_div
    gc = (maxc - g) / cr_div
    bc = (maxc - b) / cr_div
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = hr + hg + hb
    h = lib.fmod((h / 6.0 + 1.0), 1.0)
    return lib.stack((h, s, maxc), dim=-3)


def _hsv_to_rgb(lib, img):
    h, s, v = img.unbind(dim=-3)
    i = lib.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(dtype=lib.int32)
    p = lib.clamp((v * (1.0 - s)), 0.0, 1.0)
    q = lib.clamp((v * (1.0 - s * f)), 0.0, 1.0)
    t = lib.clamp((v * (1.0 - s * (1.0 - f))), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=-3) == lib.arange(6, device=i.device).view(-1, 1, 1)
    a1 = lib.stack((v, q, p, p, t, v), dim=-3)
    a2 = lib.stack((t, v, v, q, p, p), dim=-3)
    a3 = lib.stack((p, p, t, v, v, q), dim=-3)
    a4 = lib.stack((a1, a2, a3), dim=-4)
    return lib.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), a4)


def _gauss_kernel(lib, dt, ksize, sigma):
    half = (ksize - 1) * 0.5
    x = lib.linspace(-half, half, steps=ksize, dtype=dt)
    pdf = lib.exp(-0.5 * (x / sigma).pow(2))
    return pdf / pdf.sum()


def _blur(lib, x, ksize, sigma):
    k = _gauss_kernel(lib, x.dtype, ksize, sigma)
    c = x.shape[-3]
    kx = k.view(1, 1, 1, ksize).expand(c, 1, 1, ksize)
    ky = k.view(1, 1, ksize, 1).expand(c, 1, ksize, 1)
    p = ksize // 2
    F = lib.nn.functional
    x = F.pad(x, [p, p, p, p], mode="reflect")
    x = F.conv2d(x, kx, groups=c)
    return F.conv2d(x, ky, groups=c)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_crop_flip(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(3)
    x = _images(lib, dt, n=5, h=10, w=12)
    padded = F.pad(x, (2, 2, 2, 2), mode="reflect")
    rec("padded", padded[0, 0])
    out = []
    for img in padded:
        top = lib.randint(0, padded.shape[-2] - 8 + 1, size=(1,), generator=g).item()
        left = lib.randint(0, padded.shape[-1] - 8 + 1, size=(1,), generator=g).item()
        crop = img[..., top : top + 8, left : left + 8]
        if lib.rand(1, generator=g) < 0.5:
            crop = crop.flip(-1)
        if lib.rand(1, generator=g).item() < 0.3:
            crop = lib.flip(crop, dims=[-2])
        out.append(crop)
    batch = lib.stack(out)
    rec("batch", batch)
    rec("shape", str(tuple(batch.shape)))
    # batched flip with a per-sample mask
    m = lib.rand(x.shape[0], generator=g) < 0.5
    rec("mask", m)
    flipped = lib.where(m[:, None, None, None], x.flip(3), x)
    rec("flipped", flipped.sum(dim=(1, 2)))
    rec("fliplr", lib.fliplr(x[0, 0]))
    rec("flipud", lib.flipud(x[0, 0]))
    # replicate and constant padding crops, with a gradient through them
    xr = x.clone().requires_grad_()
    y = F.pad(xr, (1, 3, 2, 0), mode="replicate")[:, :, 1:9, 2:10]
    z = F.pad(xr, (1, 1, 1, 1), value=0.5)[:, :, :8, 2:]
    (y.pow(2).sum() + (z * 3).sum()).backward()
    rec("grad", xr.grad[1, 2])
    rec("circ", F.pad(x[:1], (3, 3, 0, 0), mode="circular")[0, 0, 0])


def p_rot_perm(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    x = _images(lib, dt, n=6, h=6, w=6, seed=1)
    k = lib.randint(0, 4, (6,), generator=g)
    rec("k", k)
    rot = lib.stack([lib.rot90(img, int(ki), dims=(1, 2)) for img, ki in zip(x, k, strict=True)])
    rec("rot", rot[:, 0, 0])
    rec("rot_neg", lib.rot90(x[0], -1, [1, 2])[1])
    rec("rot_t", x[0].transpose(-1, -2).flip(-1)[0])
    perm = lib.randperm(6, generator=g)
    rec("perm", perm)
    rec("shuffled", x[perm].mean(dim=(1, 2, 3)))
    inv = lib.empty_like(perm)
    inv[perm] = lib.arange(6)
    rec("inv", inv)
    rec("argsort", lib.argsort(perm))
    # channel shuffle and a pixel shuffle round trip
    cperm = lib.randperm(3, generator=g)
    rec("cshuf", x[:, cperm][0, :, 0, 0])
    ps = lib.nn.functional.pixel_unshuffle(x, 2)
    rec("ps", ps.shape)
    rec("ps_back", lib.equal(lib.nn.functional.pixel_shuffle(ps, 2), x))
    rolled = lib.roll(x, shifts=(2, -1), dims=(2, 3))
    rec("roll", rolled[0, 0])
    rec("perm64", lib.randperm(5, generator=g, dtype=lib.float64))


def p_mixup(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    x = lib.randn(8, 3, 4, 4, dtype=dt)
    y = lib.randint(0, 5, (8,))
    beta = lib.distributions.Beta(lib.tensor([0.4], dtype=dt), lib.tensor([0.4], dtype=dt))
    lam = beta.sample()
    rec("lam", lam)
    rec("lp", beta.log_prob(lam))
    rec("mean", beta.mean)
    rec("var", beta.variance)
    rec("ent", beta.entropy())
    idx = lib.randperm(8)
    rec("idx", idx)
    mixed = lam.view(-1, 1, 1, 1) * x + (1 - lam.view(-1, 1, 1, 1)) * x[idx]
    rec("mixed", mixed[:2, 0, 0])
    y1 = F.one_hot(y, num_classes=5).to(dt)
    ys = lam * y1 + (1 - lam) * y1[idx]
    rec("ys", ys)
    rec("ysum", ys.sum(-1))
    logits = lib.randn(8, 5, dtype=dt, requires_grad=True)
    loss = F.cross_entropy(logits, ys)
    loss2 = lam * F.cross_entropy(logits, y) + (1 - lam) * F.cross_entropy(logits, y[idx])
    rec("loss", loss)
    rec("loss2", loss2)
    (loss + loss2.sum()).backward()
    rec("g", logits.grad)
    # per-sample lambdas
    lams = lib.distributions.Beta(1.0, 1.0).sample((8,)).to(dt)
    rec("lams", lams)
    lams = lib.maximum(lams, 1 - lams)
    rec("maxl", lams)
    # label smoothing of the mixed targets
    rec("ls", F.cross_entropy(logits, y, label_smoothing=0.1))
    rec("ls_soft", F.cross_entropy(logits, ys, label_smoothing=0.1))
    # Beta sampled with rsample keeps a gradient to its concentration
    a = lib.tensor(2.0, dtype=dt, requires_grad=True)
    s = lib.distributions.Beta(a, lib.tensor(3.0, dtype=dt)).rsample((4,))
    rec("rs", s)


def p_cutmix(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(5)
    x = _images(lib, dt, n=4, h=16, w=16, seed=2)
    y = lib.tensor([0, 1, 2, 3])
    H, W = x.shape[-2:]
    for step in range(3):
        lam = lib.rand(1, generator=g, dtype=dt).item()
        cut = math.sqrt(1.0 - lam)
        cw, ch = int(W * cut), int(H * cut)
        cx = lib.randint(W, (1,), generator=g).item()
        cy = lib.randint(H, (1,), generator=g).item()
        x1, x2 = max(cx - cw // 2, 0), min(cx + cw // 2, W)
        y1, y2 = max(cy - ch // 2, 0), min(cy + ch // 2, H)
        perm = lib.randperm(4, generator=g)
        out = x.clone()
        out[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
        lam_adj = 1 - ((x2 - x1) * (y2 - y1) / (W * H))
        rec(f"box{step}", [x1, y1, x2, y2])
        rec(f"lam{step}", lam_adj)
        rec(f"out{step}", out.sum(dim=(2, 3)))
        t = lam_adj * F.one_hot(y, 4) + (1 - lam_adj) * F.one_hot(y[perm], 4)
        rec(f"t{step}", t)
    # tensor-valued boxes: a mask built by broadcasting comparisons of aranges
    lam = lib.rand(4, generator=g, dtype=dt)
    r = (1 - lam).sqrt()
    cx = lib.randint(0, W, (4,), generator=g)
    cy = lib.randint(0, H, (4,), generator=g)
    bw = (r * W).long()
    bh = (r * H).long()
    x1 = (cx - bw // 2).clamp(0, W)
    x2 = (cx + bw // 2).clamp(0, W)
    y1 = (cy - bh // 2).clamp(0, H)
    y2 = (cy + bh // 2).clamp(0, H)
    xs = lib.arange(W).view(1, 1, W)
    ys = lib.arange(H).view(1, H, 1)
    mask = (xs >= x1.view(-1, 1, 1)) & (xs < x2.view(-1, 1, 1))
    mask = mask & (ys >= y1.view(-1, 1, 1)) & (ys < y2.view(-1, 1, 1))
    rec("mask_area", mask.sum(dim=(1, 2)))
    area = ((x2 - x1) * (y2 - y1)).to(dt)
    rec("lam_t", 1 - area / (H * W))
    out = lib.where(mask.unsqueeze(1), x.flip(0), x)
    rec("out_t", out.mean(dim=(1, 2, 3)))
    rec("masked_fill", x.masked_fill(mask.unsqueeze(1), 0.0).sum(dim=(1, 2, 3)))


def _solarize(lib, x, thr):
    return lib.where(x >= thr, 1.0 - x, x)


def _posterize(lib, x, bits):
    u = (x * 255).round().to(lib.uint8)
    mask = -int(2 ** (8 - bits))
    return (u & mask).to(x.dtype) / 255


def _sharpness(lib, x, factor):
    k = lib.ones(3, 3, dtype=x.dtype)
    k[1, 1] = 5.0
    k = k / k.sum()
    c = x.shape[-3]
    k = k.expand(c, 1, 3, 3)
    blurred = lib.nn.functional.conv2d(x, k, padding=1, groups=c)
    result = x.clone()
    result[..., 1:-1, 1:-1] = blurred[..., 1:-1, 1:-1]
    return (factor * x + (1 - factor) * result).clamp(0, 1)


def _autocontrast(lib, x):
    lo = x.amin(dim=(-2, -1), keepdim=True)
    hi = x.amax(dim=(-2, -1), keepdim=True)
    scale = 1.0 / (hi - lo)
    ok = lib.isfinite(scale)
    lo = lib.where(ok, lo, lib.zeros_like(lo))
    scale = lib.where(ok, scale, lib.ones_like(scale))
    return ((x - lo) * scale).clamp(0, 1)


def p_randaugment(lib, dt, rec):
    g = lib.Generator().manual_seed(11)
    x = _images(lib, dt, n=3, h=8, w=8, seed=4)
    ops = ["identity", "brightness", "contrast", "solarize", "posterize", "sharpness",
           "autocontrast", "invert", "translate_x", "shear"]  # fmt: skip
    mags = lib.linspace(0.0, 0.9, 31, dtype=dt)
    rec("mags", mags)
    for i, img in enumerate(x):
        chosen = lib.randint(len(ops), (2,), generator=g).tolist()
        m = lib.randint(31, (1,), generator=g).item()
        sign = lib.randint(2, (1,), generator=g).item()
        mag = float(mags[m]) * (1 if sign else -1)
        for j in chosen:
            op = ops[j]
            if op == "brightness":
                img = (img * (1 + mag)).clamp(0, 1)
            elif op == "contrast":
                mean = _gray(lib, img).mean()
                img = ((1 + mag) * img + (-mag) * mean).clamp(0, 1)
            elif op == "solarize":
                img = _solarize(lib, img, 1 - abs(mag))
            elif op == "posterize":
                img = _posterize(lib, img, 8 - int(abs(mag) * 4))
            elif op == "sharpness":
                img = _sharpness(lib, img[None], 1 + mag)[0]
            elif op == "autocontrast":
                img = _autocontrast(lib, img)
            elif op == "invert":
                img = 1.0 - img
            elif op == "translate_x":
                img = lib.roll(img, shifts=int(mag * 4), dims=-1)
            elif op == "shear":
                theta = lib.tensor([[1.0, mag, 0.0], [0.0, 1.0, 0.0]], dtype=dt)[None]
                grid = lib.nn.functional.affine_grid(theta, [1, 3, 8, 8], align_corners=False)
                img = lib.nn.functional.grid_sample(img[None], grid, align_corners=False)[0]
        rec(f"ops{i}", str([ops[j] for j in chosen]))
        rec(f"img{i}", img)
    # op weights sampled by multinomial
    w = lib.tensor([1.0, 2, 1, 1, 3, 1, 1, 1, 2, 1], dtype=dt)
    rec("mn", lib.multinomial(w, 4, replacement=False, generator=g))
    rec("mn_r", lib.multinomial(w, 6, replacement=True, generator=g))
    rec("solar", _solarize(lib, x[0], 0.5)[0])
    rec("poster", _posterize(lib, x[0], 3)[1])
    rec("autoc", _autocontrast(lib, lib.full((1, 2, 2), 0.3, dtype=dt)))


def p_color_jitter(lib, dt, rec):
    g = lib.Generator().manual_seed(21)
    x = _images(lib, dt, n=2, h=5, w=5, seed=5)
    b = lib.empty(1, dtype=dt).uniform_(0.6, 1.4, generator=g).item()
    c = lib.empty(1, dtype=dt).uniform_(0.6, 1.4, generator=g).item()
    s = lib.empty(1, dtype=dt).uniform_(0.6, 1.4, generator=g).item()
    h = lib.empty(1, dtype=dt).uniform_(-0.1, 0.1, generator=g).item()
    rec("factors", [b, c, s, h])
    order = lib.randperm(4, generator=g)
    rec("order", order)
    img = x.clone()
    for fn_id in order.tolist():
        if fn_id == 0:
            img = (img * b).clamp(0.0, 1.0)
        elif fn_id == 1:
            m = _gray(lib, img).mean(dim=(-3, -2, -1), keepdim=True)
            img = (c * img + (1 - c) * m).clamp(0.0, 1.0)
        elif fn_id == 2:
            img = (s * img + (1 - s) * _gray(lib, img)).clamp(0.0, 1.0)
        else:
            hsv = _rgb_to_hsv(lib, img)
            hh, ss, vv = hsv.unbind(dim=-3)
            hh = (hh + h) % 1.0
            img = _hsv_to_rgb(lib, lib.stack((hh, ss, vv), dim=-3))
        rec(f"step{fn_id}", img[0, :, 0])
    rec("final", img)
    # grayscale with channel weights via tensordot/einsum, randomly applied
    wts = lib.tensor([0.299, 0.587, 0.114], dtype=dt)
    gray = lib.einsum("nchw,c->nhw", x, wts)
    rec("gray", gray)
    rec("gray_td", lib.tensordot(x, wts, dims=([1], [0])))
    p = lib.rand(2, generator=g) < 0.5
    out = lib.where(p.view(-1, 1, 1, 1), gray.unsqueeze(1).expand(-1, 3, -1, -1), x)
    rec("randgray", out.sum(dim=(2, 3)))
    # brightness applied per sample with a broadcast factor and its gradient
    f = lib.empty(2, 1, 1, 1, dtype=dt).uniform_(0.5, 1.5, generator=g).requires_grad_()
    y = (x * f).clamp(0, 1)
    y.sum().backward()
    rec("fgrad", f.grad.flatten())


def p_hsv(lib, dt, rec):
    g = lib.Generator().manual_seed(2)
    x = lib.rand(2, 3, 4, 4, generator=g, dtype=dt)
    x[0, :, 0, 0] = 0.5  # gray pixel: max == min
    x[0, :, 0, 1] = lib.tensor([1.0, 0.0, 0.0], dtype=dt)
    x[0, :, 0, 2] = lib.tensor([0.2, 0.2, 0.9], dtype=dt)
    hsv = _rgb_to_hsv(lib, x)
    rec("hsv", hsv)
    back = _hsv_to_rgb(lib, hsv)
    rec("back", back)
    rec("err", (back - x).abs().max() < 1e-5)
    # the remainder of negatives is Python's (sign of the divisor)
    v = lib.tensor([-0.25, -1.5, 0.75, 1.25, -0.0], dtype=dt)
    rec("rem", lib.remainder(v, 1.0))
    rec("mod", v % 1.0)
    rec("fmod", lib.fmod(v, 1.0))
    rec("irem", lib.tensor([-7, 7, -1, 13]) % 6)
    rec("ifmod", lib.fmod(lib.tensor([-7, 7, -1, 13]), 6))
    rec("floor_div", lib.tensor([-7, 7, -1, 13]) // 6)
    # hue differences with atan2 of the opponent channels (a differentiable hue)
    xr = x.clone().requires_grad_()
    r, gg, b = xr.unbind(1)
    hue = lib.atan2(math.sqrt(3) * (gg - b), 2 * r - gg - b)
    hue.sum().backward()
    rec("hue", hue)
    rec("hue_g", xr.grad[1])
    rec("max_idx", x.max(dim=1).indices)
    rec("aminmax", lib.aminmax(x[1], dim=0).max)


def p_gaussian_blur(lib, dt, rec):
    F = lib.nn.functional
    x = _images(lib, dt, n=2, h=9, w=9, seed=6)
    for k, s in ((3, 0.8), (5, 1.5)):
        kern = _gauss_kernel(lib, dt, k, s)
        rec(f"k{k}", kern)
        y = _blur(lib, x, k, s)
        rec(f"blur{k}", y[:, :, 4])
        k2 = kern[:, None] * kern[None, :]
        y2 = F.conv2d(F.pad(x, [k // 2] * 4, mode="reflect"), k2.expand(3, 1, k, k), groups=3)
        rec(f"same{k}", (y - y2).abs().max() < 1e-6)
    # sigma sampled from a generator, blur gradient wrt the input
    g = lib.Generator().manual_seed(9)
    sigma = lib.empty(1, dtype=dt).uniform_(0.1, 2.0, generator=g).item()
    rec("sigma", sigma)
    xr = x.clone().requires_grad_()
    y = _blur(lib, xr, 5, sigma)
    w = lib.rand(y.shape, generator=g, dtype=dt)
    (y * w).sum().backward()
    rec("gx", xr.grad[0, 1])
    # a differentiable sigma
    sg = lib.tensor(1.2, dtype=dt, requires_grad=True)
    kern = _gauss_kernel(lib, dt, 5, sg)
    out = F.conv1d(x[:, :1, 0], kern.view(1, 1, 5), padding=2)
    out.pow(2).sum().backward()
    rec("gsig", sg.grad)
    # box blur with avg_pool2d and unsharp mask
    box = F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)
    rec("box", box[0, 0])
    rec("unsharp", (x + 0.5 * (x - _blur(lib, x, 3, 1.0))).clamp(0, 1)[1, 2])


def p_random_erasing(lib, dt, rec):
    g = lib.Generator().manual_seed(13)
    x = _images(lib, dt, n=3, h=12, w=10, seed=7)
    H, W = 12, 10
    area = H * W
    log_ratio = lib.log(lib.tensor((0.3, 3.3)))
    results = []
    for i in range(3):
        img = x[i].clone()
        for _ in range(10):
            erase_area = area * lib.empty(1).uniform_(0.02, 0.33, generator=g).item()
            aspect = lib.exp(lib.empty(1).uniform_(log_ratio[0], log_ratio[1], generator=g))
            aspect = aspect.item()
            h = int(round(math.sqrt(erase_area * aspect)))
            w = int(round(math.sqrt(erase_area / aspect)))
            if not (h < H and w < W):
                continue
            v = lib.empty([3, h, w], dtype=dt).normal_(generator=g)
            top = lib.randint(0, H - h + 1, size=(1,), generator=g).item()
            left = lib.randint(0, W - w + 1, size=(1,), generator=g).item()
            img[..., top : top + h, left : left + w] = v
            rec(f"box{i}", [top, left, h, w])
            break
        results.append(img)
    rec("erased", lib.stack(results).sum(dim=(1, 2)))
    # erasing with a constant per-channel value via index_fill / masked_fill_
    img = x[0].clone()
    img[:, 2:5, 3:7] = lib.tensor([0.4914, 0.4822, 0.4465], dtype=dt).view(3, 1, 1)
    rec("const", img[:, 3])
    cols = lib.tensor([1, 4])
    rec("index_fill", x[1].index_fill(2, cols, -1.0)[0])
    m = lib.zeros(H, W, dtype=lib.bool)
    m[5:, :3] = True
    rec("mfill", x[2].clone().masked_fill_(m, 0.0).sum())
    # Cutout with bernoulli-sampled patch drop (p per 2x2 patch)
    keep = lib.bernoulli(lib.full((3, 1, 6, 5), 0.7, dtype=dt), generator=g)
    up = F_up(lib, keep)
    rec("keep", keep.flatten())
    rec("cutout", (x * up).sum(dim=(1, 2, 3)))


def F_up(lib, keep):
    return lib.nn.functional.interpolate(keep, scale_factor=2, mode="nearest")


def p_affine(lib, dt, rec):
    F = lib.nn.functional
    x = _images(lib, dt, n=2, h=6, w=7, seed=8)
    ang = lib.tensor([0.3, -0.7], dtype=dt, requires_grad=True)
    sc = lib.tensor([1.1, 0.9], dtype=dt)
    tr = lib.tensor([[0.1, -0.2], [0.0, 0.3]], dtype=dt)
    cos, sin = ang.cos() * sc, ang.sin() * sc
    theta = lib.stack(
        [lib.stack([cos, -sin, tr[:, 0]], -1), lib.stack([sin, cos, tr[:, 1]], -1)], 1
    )
    rec("theta", theta)
    for ac in (False, True):
        grid = F.affine_grid(theta, list(x.shape), align_corners=ac)
        rec(f"grid{ac}", grid[0, :2])
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                y = F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac)
                rec(f"y_{ac}_{mode}_{pad}", y.sum(dim=(2, 3)))
    grid = F.affine_grid(theta, [2, 3, 5, 5], align_corners=False)
    xr = x.clone().requires_grad_()
    y = F.grid_sample(xr, grid, mode="bilinear", padding_mode="border", align_corners=False)
    wts = lib.linspace(-1, 1, y.numel(), dtype=dt).view(y.shape)
    (y * wts).sum().backward()
    rec("gx", xr.grad[0, 0])
    rec("gang", ang.grad)
    # an output size different from the input; identity transform reproduces the input
    eye = lib.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], dtype=dt).expand(2, 2, 3)
    ident = F.grid_sample(x, F.affine_grid(eye, x.shape, align_corners=True), align_corners=True)
    rec("ident", (ident - x).abs().max() < 1e-6)
    up = F.grid_sample(
        x, F.affine_grid(eye, [2, 3, 9, 4], align_corners=False), align_corners=False
    )
    rec("up", up[1, 1])
    # 3-d volumes
    vol = lib.arange(2 * 1 * 3 * 4 * 5, dtype=dt).view(2, 1, 3, 4, 5) / 100
    th3 = lib.tensor([[0.9, 0.1, 0, 0.1], [0, 1, 0.2, 0], [0.1, 0, 1, -0.1]], dtype=dt)
    g3 = F.affine_grid(th3.expand(2, 3, 4), [2, 1, 3, 3, 4], align_corners=False)
    rec("g3", g3[0, 1])
    rec("v3", F.grid_sample(vol, g3, align_corners=False, padding_mode="border"))
    rec("v3n", F.grid_sample(vol, g3, mode="nearest", align_corners=True))


def p_elastic(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(17)
    x = _images(lib, dt, n=2, h=10, w=10, seed=9)
    N, C, H, W = x.shape
    alpha, sigma = 3.0, 1.5
    dx = lib.rand(N, 1, H, W, generator=g, dtype=dt) * 2 - 1
    dy = lib.rand(N, 1, H, W, generator=g, dtype=dt) * 2 - 1
    dx = _blur(lib, dx, 5, sigma) * alpha / W
    dy = _blur(lib, dy, 5, sigma) * alpha / H
    rec("dx", dx[0, 0, 0])
    ys, xs = lib.meshgrid(
        lib.linspace(-1, 1, H, dtype=dt), lib.linspace(-1, 1, W, dtype=dt), indexing="ij"
    )
    base = lib.stack([xs, ys], dim=-1).unsqueeze(0).expand(N, -1, -1, -1)
    disp = lib.cat([dx, dy], dim=1).permute(0, 2, 3, 1)
    grid = base + disp
    rec("grid", grid[1, 3])
    out = F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=True)
    rec("out", out[:, :, 5])
    outn = F.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=True)
    rec("outn", outn.sum(dim=(2, 3)))
    # the displacement is learnable (a spatial transformer's deformation field)
    d = disp.clone().requires_grad_()
    y = F.grid_sample(x, base + d, align_corners=False)
    loss = (y - x).pow(2).mean()
    loss.backward()
    rec("loss", loss)
    rec("gd", d.grad[0, 4])
    xx, yy = lib.meshgrid(lib.arange(3), lib.arange(2), indexing="xy")
    rec("mesh_xy", lib.stack([xx, yy]))


def p_normalize(lib, dt, rec):
    nn = lib.nn

    class Normalize(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.register_buffer("mean", lib.tensor(mean).view(-1, 1, 1))
            self.register_buffer("std", lib.tensor(std).view(-1, 1, 1))
            self.register_buffer("count", lib.zeros((), dtype=lib.long), persistent=False)

        def forward(self, x):
            self.count += 1
            return (x - self.mean) / self.std

        def inverse(self, x):
            return x * self.std + self.mean

    norm = Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]).to(dt)
    rec("bufs", str([(n, tuple(b.shape), str(b.dtype)) for n, b in norm.named_buffers()]))
    rec("sd", str(sorted(norm.state_dict().keys())))
    rec("params", len(list(norm.parameters())))
    x = _images(lib, dt, n=2, h=3, w=3, seed=10)
    y = norm(x)
    rec("y", y)
    rec("inv", (norm.inverse(y) - x).abs().max() < 1e-6)
    rec("count", norm.count)
    # dataset statistics in one pass and with Welford-style running sums
    data = _images(lib, dt, n=16, h=4, w=4, seed=11)
    mean = data.mean(dim=(0, 2, 3))
    std = data.std(dim=(0, 2, 3))
    rec("mean", mean)
    rec("std", std)
    s = lib.zeros(3, dtype=dt)
    s2 = lib.zeros(3, dtype=dt)
    n = 0
    for batch in data.split(5):
        s += batch.sum(dim=(0, 2, 3))
        s2 += batch.pow(2).sum(dim=(0, 2, 3))
        n += batch.shape[0] * batch.shape[2] * batch.shape[3]
    m = s / n
    rec("run_mean", m)
    rec("run_std", ((s2 / n - m**2) * n / (n - 1)).sqrt())
    vm = lib.var_mean(data.transpose(0, 1).reshape(3, -1), dim=1, correction=0)
    rec("var_mean", lib.stack(vm))
    # a state_dict round trip into a fresh module, the functional form and load errors
    n2 = Normalize([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]).to(dt)
    rec("load", str(n2.load_state_dict(norm.state_dict())))
    rec("eq", lib.equal(n2.mean, norm.mean))
    bad = {"mean": lib.zeros(3, 1, 1)}
    rec.err("load_bad", lambda: n2.load_state_dict(bad))
    rec("fn", lib.nn.functional.normalize(x[0, 0], p=2.0, dim=1))
    mean_t = lib.tensor([0.5, 0.5, 0.5], dtype=dt)[:, None, None]
    rec("sub_", x[0].clone().sub_(mean_t).div_(0.25)[2])


def _make_dataset(lib, dt):
    data = lib.utils.data

    class AugDataset(data.Dataset):
        def __init__(self, images, labels, seed):
            self.images, self.labels = images, labels
            self.g = lib.Generator().manual_seed(seed)

        def __len__(self):
            return len(self.images)

        def __getitem__(self, i):
            img = self.images[i]
            if lib.rand(1, generator=self.g).item() < 0.5:
                img = img.flip(-1)
            noise = lib.randn(img.shape, generator=self.g, dtype=dt) * 0.01
            return {"image": img + noise, "label": self.labels[i], "idx": i}

    images = _images(lib, dt, n=10, h=4, w=4, seed=12)
    labels = lib.arange(10) % 3
    return AugDataset(images, labels, seed=1)


def p_loader(lib, dt, rec):
    data = lib.utils.data
    ds = _make_dataset(lib, dt)
    g = lib.Generator().manual_seed(99)
    dl = data.DataLoader(ds, batch_size=4, shuffle=True, generator=g)
    rec("len", len(dl))
    for epoch in range(2):
        for i, b in enumerate(dl):
            rec(f"e{epoch}b{i}.idx", b["idx"])
            rec(f"e{epoch}b{i}.img", b["image"].sum(dim=(1, 2, 3)))
            rec(f"e{epoch}b{i}.label", b["label"])
            rec(f"e{epoch}b{i}.keys", str(sorted(b.keys())))

    def collate(batch):
        imgs = lib.stack([b["image"] for b in batch])
        labels = lib.tensor([int(b["label"]) for b in batch])
        return imgs, labels, [b["idx"] for b in batch]

    dl2 = data.DataLoader(ds, batch_size=3, shuffle=False, drop_last=True, collate_fn=collate)
    rec("len2", len(dl2))
    for i, (imgs, labels, idx) in enumerate(dl2):
        rec(f"c{i}", imgs.mean(dim=(1, 2, 3)))
        rec(f"c{i}.l", labels)
        rec(f"c{i}.i", str(idx))
    # default_collate on tuples of tensors and numbers
    dc = data.default_collate
    batch = [(lib.tensor([1.0, 2.0], dtype=dt), 3, 0.5), (lib.tensor([3.0, 4.0], dtype=dt), 4, 1.5)]
    out = dc(batch)
    rec("dc_t", out[0])
    rec("dc_i", out[1])
    rec("dc_f", out[2])
    rec("dc_types", str([str(o.dtype) for o in out]))
    rec("dc_str", str(dc([{"a": "x", "b": [1, 2]}, {"a": "y", "b": [3, 4]}])))
    # a TensorDataset over augmented tensors, batch_size=None gives samples
    td = data.TensorDataset(ds.images, ds.labels)
    rec("td", td[3][1])
    dl3 = data.DataLoader(td, batch_size=None, shuffle=True, generator=g)
    rec("single", str([int(y) for _, y in dl3]))
    dl4 = data.DataLoader(td, batch_size=4, sampler=data.SequentialSampler(td))
    rec("seq", lib.cat([y for _, y in dl4]))


def p_splits(lib, dt, rec):
    data = lib.utils.data
    x = lib.arange(20, dtype=dt).view(10, 2)
    y = lib.arange(10)
    ds = data.TensorDataset(x, y)
    g = lib.Generator().manual_seed(42)
    tr, va, te = data.random_split(ds, [6, 3, 1], generator=g)
    rec("tr", str(tr.indices))
    rec("va", str(va.indices))
    rec("te", str(te.indices))
    rec("tr_item", tr[0][0])
    parts = data.random_split(range(10), [0.5, 0.3, 0.2], generator=lib.Generator().manual_seed(1))
    rec("frac", str([list(p) for p in parts]))
    parts = data.random_split(range(7), [0.5, 0.5], generator=lib.Generator().manual_seed(1))
    rec("frac_odd", str([list(p) for p in parts]))
    sub = data.Subset(ds, [9, 0, 4])
    rec("sub_len", len(sub))
    rec("sub", sub[1][0])
    rec("sub_many", str([int(t[1]) for t in sub]))
    cat = data.ConcatDataset([sub, tr, va])
    rec("cat_len", len(cat))
    rec("cat_cum", str(cat.cumulative_sizes))
    rec("cat_items", str([int(cat[i][1]) for i in range(len(cat))]))
    rec("cat_neg", cat[-1][0])
    rec.err("cat_oob", lambda: cat[-20])
    dl = data.DataLoader(cat, batch_size=5, shuffle=True, generator=lib.Generator().manual_seed(3))
    rec("cat_dl", str([b[1].tolist() for b in dl]))
    rec.err("bad_sum", lambda: data.random_split(ds, [3, 3]))
    rec.err("bad_frac", lambda: data.random_split(ds, [0.5, 0.2]))
    rec("add", len(sub + va))
    # a stratified split by sorting per-class permutations
    labels = lib.tensor([0, 1, 0, 1, 2, 2, 0, 1, 2, 0])
    gen = lib.Generator().manual_seed(4)
    val = []
    for c in range(3):
        idx = (labels == c).nonzero().flatten()
        val.append(idx[lib.randperm(len(idx), generator=gen)][:1])
    rec("strat", lib.cat(val))


def p_samplers(lib, dt, rec):
    data = lib.utils.data
    g = lib.Generator().manual_seed(8)
    labels = lib.tensor([0, 0, 0, 0, 0, 0, 1, 1, 2, 0])
    counts = lib.bincount(labels)
    rec("counts", counts)
    cw = 1.0 / counts.to(dt)
    sw = cw[labels]
    rec("sw", sw)
    ws = data.WeightedRandomSampler(sw, num_samples=12, replacement=True, generator=g)
    rec("wrs", str(list(ws)))
    rec("wrs_len", len(ws))
    ws2 = data.WeightedRandomSampler(sw.tolist(), num_samples=5, replacement=False, generator=g)
    rec("wrs_norep", str(list(ws2)))
    srs = data.SubsetRandomSampler([1, 3, 5, 7, 9], generator=g)
    rec("srs", str(list(srs)))
    rec("srs_len", len(srs))
    rs = data.RandomSampler(range(6), generator=g)
    rec("rs", str(list(rs)))
    rs2 = data.RandomSampler(range(6), replacement=True, num_samples=9, generator=g)
    rec("rs_rep", str(list(rs2)))
    rs3 = data.RandomSampler(range(4), num_samples=10, generator=g)
    rec("rs_more", str(list(rs3)))
    bs = data.BatchSampler(data.SequentialSampler(range(10)), batch_size=4, drop_last=False)
    rec("bs", str(list(bs)))
    rec("bs_len", len(bs))
    bs2 = data.BatchSampler(range(10), batch_size=4, drop_last=True)
    rec("bs_drop", str(list(bs2)))
    rec("bs2_len", len(bs2))
    # a DataLoader with a batch_sampler
    ds = data.TensorDataset(lib.arange(10, dtype=dt), labels)
    bsamp = data.BatchSampler(data.RandomSampler(ds, generator=g), batch_size=3, drop_last=False)
    dl = data.DataLoader(ds, batch_sampler=bsamp)
    rec("bs_dl", str([b[0].tolist() for b in dl]))
    dl = data.DataLoader(ds, batch_size=4, sampler=ws)
    rec("w_dl", str([b[1].tolist() for b in dl]))
    rec.err("bs_conflict", lambda: data.DataLoader(ds, batch_sampler=bsamp, batch_size=2))
    rec.err("shuffle_sampler", lambda: data.DataLoader(ds, sampler=srs, shuffle=True))
    rec.err("bad_ns", lambda: data.WeightedRandomSampler(sw, num_samples=0))
    rec.err("bad_rep", lambda: data.WeightedRandomSampler(sw, 3, replacement=1))
    rec.err("bad_bs", lambda: data.BatchSampler(range(3), batch_size=0, drop_last=False))
    rec.err("bad_drop", lambda: data.BatchSampler(range(3), batch_size=2, drop_last="no"))
    rec.err("rs_bad", lambda: data.RandomSampler(range(3), num_samples=-1))
    rec.err("too_many", lambda: list(data.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)))


def p_workers(lib, dt, rec):
    data = lib.utils.data
    calls = []

    def init_fn(worker_id):
        calls.append(worker_id)

    class Noise(data.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            info = data.get_worker_info()
            return lib.rand(2, dtype=dt), -1 if info is None else info.id

    lib.manual_seed(123)
    dl = data.DataLoader(Noise(), batch_size=2, num_workers=0, worker_init_fn=init_fn)
    out = [b for b in dl]
    rec("calls", str(calls))
    rec("vals", lib.cat([b[0] for b in out]))
    rec("ids", lib.cat([b[1] for b in out]))
    rec("info", str(data.get_worker_info()))
    # reseeding each epoch from a base generator: the same epoch seed gives the same draws
    base = lib.Generator().manual_seed(5)
    seeds = [int(lib.empty((), dtype=lib.int64).random_(generator=base)) for _ in range(3)]
    rec("seeds", str(seeds))
    draws = []
    for s in seeds[:2] + seeds[:1]:
        lib.manual_seed(s)
        draws.append(lib.cat([b[0] for b in dl]))
    rec("draws", lib.stack(draws))
    rec("same", lib.equal(draws[0], draws[2]))
    rec("initial", lib.initial_seed())
    st = lib.get_rng_state()
    a = lib.rand(3, dtype=dt)
    lib.set_rng_state(st)
    rec("rng_state", lib.equal(a, lib.rand(3, dtype=dt)))
    with lib.random.fork_rng():
        lib.manual_seed(0)
        lib.rand(5)
    rec("after_fork", lib.rand(2, dtype=dt))
    rec.err("bad_workers", lambda: data.DataLoader(Noise(), num_workers=-1))
    rec.err("bad_pf", lambda: data.DataLoader(Noise(), prefetch_factor=2))
    rec.err("bad_persist", lambda: data.DataLoader(Noise(), persistent_workers=True))
    # an IterableDataset sharded by worker info (None here: all items)

    class Stream(data.IterableDataset):
        def __iter__(self):
            info = data.get_worker_info()
            start = 0 if info is None else info.id
            step = 1 if info is None else info.num_workers
            return iter(range(start, 7, step))

    rec("stream", str([b.tolist() for b in data.DataLoader(Stream(), batch_size=3)]))
    rec.err("iter_shuffle", lambda: data.DataLoader(Stream(), shuffle=True))


def p_tta(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(4, 5),
    ).to(dt)
    x = _images(lib, dt, n=3, h=6, w=6, seed=13)
    model.train()
    model(x)
    model.eval()
    with lib.no_grad():
        views = [x, x.flip(-1), x.flip(-2), lib.rot90(x, 1, (2, 3))]
        probs = lib.stack([model(v).softmax(-1) for v in views])
        rec("probs", probs)
        avg = probs.mean(0)
        rec("avg", avg)
        rec("pred", avg.argmax(-1))
        logit_avg = lib.stack([model(v) for v in views]).mean(0)
        rec("logit_avg", logit_avg.log_softmax(-1))
        # five-crop by unfold
        crops = x.unfold(2, 4, 2).unfold(3, 4, 2)
        rec("crops_shape", crops.shape)
        crops = crops.permute(0, 2, 3, 1, 4, 5).reshape(-1, 3, 4, 4)
        out = model(crops).view(3, -1, 5).mean(1)
        rec("crop_tta", out)
        rec("grad_mode", lib.is_grad_enabled())
    rec("bn_mean", model[1].running_mean)
    rec("training", str([m.training for m in model]))
    with lib.inference_mode():
        y = model(x)
    rec("inf", y.requires_grad)


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    x = _images(lib, dt, n=1, h=4, w=4)
    theta = lib.zeros(1, 2, 3, dtype=dt)
    grid = F.affine_grid(theta, [1, 3, 4, 4], align_corners=False)
    rec.err("gs_mode", lambda: F.grid_sample(x, grid, mode="cubic", align_corners=False))
    rec.err("gs_pad", lambda: F.grid_sample(x, grid, padding_mode="wrap", align_corners=False))
    rec.err("gs_shape", lambda: F.grid_sample(x, grid[..., :1], align_corners=False))
    rec.err("gs_batch", lambda: F.grid_sample(x.expand(2, -1, -1, -1), grid, align_corners=False))
    other = grid.float() if dt == lib.float64 else grid.double()
    rec.err("gs_dtype", lambda: F.grid_sample(x, other, align_corners=False))
    rec.err("ag_size", lambda: F.affine_grid(theta, [1, 3, 4], align_corners=False))
    rec.err("ag_theta", lambda: F.affine_grid(theta[0], [1, 3, 4, 4], align_corners=False))
    rec.err("ag_batch", lambda: F.affine_grid(theta, [2, 3, 4, 4], align_corners=False))
    rec.err("ag_int", lambda: F.affine_grid(theta.long(), [1, 3, 4, 4], align_corners=False))
    rec.err("beta_neg", lambda: lib.distributions.Beta(lib.tensor(-1.0), lib.tensor(1.0)))
    rec.err("randint", lambda: lib.randint(5, 2, (3,)))
    rec.err("randperm", lambda: lib.randperm(-1))
    rec.err("one_hot", lambda: F.one_hot(lib.tensor([0, 5]), 3))
    rec.err("one_hot_f", lambda: F.one_hot(lib.tensor([0.0, 1.0])))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([-1, 1])))
    rec.err("pad_reflect", lambda: F.pad(x, (4, 4, 0, 0), mode="reflect"))
    rec.err("pad_mode", lambda: F.pad(x, (1, 1), mode="wrap"))
    rec.err("uniform_", lambda: lib.empty(2, dtype=dt).uniform_(1.0, 0.0))
    rec.err("normal_", lambda: lib.empty(2, dtype=dt).normal_(0.0, -1.0))
    rec.err("bernoulli", lambda: lib.bernoulli(lib.tensor([1.5], dtype=dt)))
    rec.err("multinomial", lambda: lib.multinomial(lib.tensor([1.0, 0.0]), 2))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([1.0, -1.0]), 1))
    rec.err("rot90", lambda: lib.rot90(x, 1, (2, 2)))
    rec.err("flip_dup", lambda: x.flip(1, 1))
    # a seed passed where a Generator belongs
    t = lib.full((4,), 0.5, dtype=dt)
    rec.err("g_randperm", lambda: lib.randperm(4, generator=0))
    rec.err("g_randperm_kw", lambda: lib.randperm(4, generator=0, dtype=lib.int32))
    rec.err("g_random", lambda: t.clone().random_(generator=0))
    rec.err("g_random_to", lambda: t.clone().random_(3, generator=0))
    rec.err("g_random_kw", lambda: t.clone().random_(to=3, generator=0))
    rec.err("g_random_ft", lambda: t.clone().random_(0, 3, generator=0))
    rec.err("g_bern", lambda: lib.bernoulli(t, generator=0))
    rec.err("g_bern_p", lambda: lib.bernoulli(t, 0.3, generator=0))
    rec.err("g_bern_out", lambda: lib.bernoulli(t, generator=0, out=lib.empty_like(t)))
    rec.err("g_bern_m", lambda: t.bernoulli(generator=0))
    rec.err("g_bern_mp", lambda: t.bernoulli(0.3, generator=0))
    rec.err("g_bern_", lambda: t.clone().bernoulli_(0.3, generator=0))
    rec.err("g_bern_t", lambda: t.clone().bernoulli_(t, generator=0))
    rec.err("g_randint_like", lambda: lib.randint_like(t, 3, generator=0))
    rec.err("g_randint_like2", lambda: lib.randint_like(t, 1, 3, generator=0, dtype=lib.int64))
    rec.err("g_rand", lambda: lib.rand(2, generator=0))
    rec.err("g_uniform", lambda: t.clone().uniform_(generator=0))
    rec.err("g_multinomial", lambda: lib.multinomial(t, 2, generator=0))
    rec.err("g_poisson", lambda: lib.poisson(t, generator=0))
    rec.err("interp", lambda: F.interpolate(x, size=(4, 4), scale_factor=2))
    rec.err("conv_groups", lambda: F.conv2d(x, lib.ones(3, 2, 3, 3, dtype=dt), groups=3))
    rec.err("subset_idx", lambda: lib.utils.data.Subset(lib.arange(3), [5])[0])
    rec.err("tensords", lambda: lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4)))
    rec.err("dl_bs", lambda: lib.utils.data.DataLoader(range(3), batch_size=0))
    rec.err("dl_gen", lambda: list(lib.utils.data.DataLoader(range(3), shuffle=True, generator=5)))
    rec.err("beta_sample", lambda: lib.distributions.Beta(0.5, 0.5).log_prob(lib.tensor(1.5)))
    rec.err("sampler_neg", lambda: lib.utils.data.WeightedRandomSampler([-1.0, 1.0], 2))


def p_uint8_ops(lib, dt, rec):
    g = lib.Generator().manual_seed(31)
    img = lib.randint(0, 256, (3, 5, 5), generator=g, dtype=lib.uint8)
    rec("img", img[0])
    f = img.to(dt) / 255
    rec("to_float", f[1, 0])
    back = (f * 255).round().clamp(0, 255).to(lib.uint8)
    rec("round_trip", lib.equal(back, img))
    rec("invert", 255 - img[2, 0])
    rec("invert_not", ~img[2, 0])
    rec("posterize", img[0, 0] & 0xF0)
    rec("shift", (img[0, 0] >> 4) << 4)
    rec("solarize", lib.where(img >= 128, 255 - img, img)[1, 1])
    bright = (img.to(lib.int16) + 40).clamp(0, 255).to(lib.uint8)
    rec("bright", bright[0, 0])
    rec("wrap", (img[0, 0] + 100))
    rec("wrap_dtype", str((img + 100).dtype))
    rec("mul_f", (img[0, 0] * 1.5).dtype)
    rec("mean_err", str(lib.tensor(1.0).dtype))
    rec("float_mean", img.float().mean(dim=(1, 2)))
    rec.err("uint8_mean", lambda: img.mean())
    rec("sum_dtype", str(img.sum().dtype))
    rec("sum", img.sum())
    # a histogram and equalisation by cumsum/lookup
    hist = lib.bincount(img[0].flatten(), minlength=256)
    rec("hist_nz", hist.nonzero().flatten())
    cdf = hist.cumsum(0)
    step = (cdf[-1] - hist[img[0].flatten().long()].max()) // 255
    rec("step", step)
    lut = ((cdf - cdf.min()).to(dt) * 255 / (cdf.max() - cdf.min()).to(dt)).round().to(lib.uint8)
    rec("eq", lut[img[0].long()])
    h2 = lib.histc(f[0], bins=8, min=0, max=1)
    rec("histc", h2)
    rec("channels_last", img.permute(1, 2, 0).contiguous().view(-1)[:6])
    rec("div_floor", lib.div(img[0, 0], 3, rounding_mode="floor"))
    rec("true_div", (img[0, 0] / 3).dtype)


def p_resized_crop(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(41)
    x = _images(lib, dt, n=2, h=20, w=16, seed=14)
    H, W = 20, 16
    area = H * W
    log_ratio = lib.log(lib.tensor([3 / 4, 4 / 3]))
    outs = []
    for img in x:
        for _ in range(10):
            target = area * lib.empty(1).uniform_(0.08, 1.0, generator=g).item()
            ar = math.exp(lib.empty(1).uniform_(log_ratio[0], log_ratio[1], generator=g).item())
            w = int(round(math.sqrt(target * ar)))
            h = int(round(math.sqrt(target / ar)))
            if 0 < w <= W and 0 < h <= H:
                i = lib.randint(0, H - h + 1, size=(1,), generator=g).item()
                j = lib.randint(0, W - w + 1, size=(1,), generator=g).item()
                break
        rec("box", [i, j, h, w])
        crop = img[None, :, i : i + h, j : j + w]
        outs.append(F.interpolate(crop, size=(8, 8), mode="bilinear", align_corners=False))
    out = lib.cat(outs)
    rec("out", out[:, 0])
    rec("nearest", F.interpolate(x, size=(7, 5), mode="nearest")[0, 0])
    rec("nexact", F.interpolate(x, size=(7, 5), mode="nearest-exact")[1, 1])
    rec("bicubic", F.interpolate(x, scale_factor=0.5, mode="bicubic", align_corners=True)[0, 2])
    rec("area", F.interpolate(x, size=(5, 4), mode="area")[1, 0])
    rec("aa", F.interpolate(x, size=(5, 4), mode="bilinear", antialias=True)[0, 0])
    rec("ac", F.interpolate(x, size=(9, 7), mode="bilinear", align_corners=True)[0, 1])
    rec("recompute", F.interpolate(x, scale_factor=0.7, mode="bilinear",
                                   recompute_scale_factor=True)[0, 0])  # fmt: skip
    rec("no_recompute", F.interpolate(x, scale_factor=0.7, mode="bilinear")[0, 0])
    xr = x.clone().requires_grad_()
    y = F.interpolate(xr, size=(8, 8), mode="bicubic", align_corners=False)
    y.pow(2).sum().backward()
    rec("g", xr.grad[0, 0, :4])
    rec("center", lib.nn.functional.center_crop(x, 8) if hasattr(F, "center_crop") else "none")
    top, left = (H - 8) // 2, (W - 8) // 2
    rec("cc", x[..., top : top + 8, left : left + 8].mean(dim=(2, 3)))


def p_mixup_train(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(1)
    model = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1, bias=False),
        nn.GroupNorm(2, 6),
        nn.GELU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(6 * 4 * 4, 4),
    ).to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    data = _images(lib, dt, n=16, h=8, w=8, seed=15)
    labels = lib.arange(16) % 4
    ds = lib.utils.data.TensorDataset(data, labels)
    g = lib.Generator().manual_seed(2)
    dl = lib.utils.data.DataLoader(ds, batch_size=8, shuffle=True, generator=g)
    beta = lib.distributions.Beta(lib.tensor(0.2, dtype=dt), lib.tensor(0.2, dtype=dt))
    for epoch in range(2):
        for step, (xb, yb) in enumerate(dl):
            lam = beta.sample()
            perm = lib.randperm(xb.shape[0])
            flip = lib.rand(xb.shape[0]) < 0.5
            xb = lib.where(flip[:, None, None, None], xb.flip(-1), xb)
            xm = lam * xb + (1 - lam) * xb[perm]
            out = model(xm)
            loss = lam * F.cross_entropy(out, yb) + (1 - lam) * F.cross_entropy(out, yb[perm])
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            rec(f"loss{epoch}.{step}", loss)
            rec(f"lam{epoch}.{step}", lam)
    rec.params("p", model)
    rec("lr", sched.get_last_lr())


def p_perspective(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(51)
    x = _images(lib, dt, n=2, h=8, w=8, seed=16)
    H, W = 8, 8
    start = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
    half_h, half_w = H // 2, W // 2
    d = 0.5
    tl = [int(lib.randint(0, int(d * half_w) + 1, size=(1,), generator=g)),
          int(lib.randint(0, int(d * half_h) + 1, size=(1,), generator=g))]  # fmt: skip
    br = [int(lib.randint(W - int(d * half_w) - 1, W, size=(1,), generator=g)),
          int(lib.randint(H - int(d * half_h) - 1, H, size=(1,), generator=g))]  # fmt: skip
    end = [tl, [br[0], tl[1]], br, [tl[0], br[1]]]
    rec("end", str(end))
    # solve for the 8 homography coefficients (end -> start)
    a = lib.zeros(8, 8, dtype=dt)
    for i, (p1, p2) in enumerate(zip(end, start, strict=True)):
        a[2 * i, :] = lib.tensor([p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]])
        a[2 * i + 1, :] = lib.tensor([0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]])
    b = lib.tensor(start, dtype=dt).view(8)
    coeffs = lib.linalg.lstsq(a, b).solution
    rec("coeffs", coeffs)
    rec("solve", lib.linalg.solve(a, b))
    # the pixel grid mapped through the homography, normalised for grid_sample
    ys, xs = lib.meshgrid(lib.arange(H, dtype=dt), lib.arange(W, dtype=dt), indexing="ij")
    pts = lib.stack([xs + 0.5, ys + 0.5, lib.ones_like(xs)], dim=-1).view(-1, 3)
    m = lib.cat([coeffs, lib.ones(1, dtype=dt)]).view(3, 3)
    mapped = pts @ m.T
    mapped = mapped[:, :2] / mapped[:, 2:]
    grid = (mapped / lib.tensor([W, H], dtype=dt) * 2 - 1).view(1, H, W, 2).expand(2, -1, -1, -1)
    out = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    rec("out", out[:, 0])
    rec("inv", lib.linalg.inv(m))
    # a random affine built from an angle, then inverted for sampling
    ang = lib.empty(1, dtype=dt).uniform_(-30, 30, generator=g)
    rad = lib.deg2rad(ang)
    rot = lib.cat([lib.cos(rad), -lib.sin(rad), lib.sin(rad), lib.cos(rad)]).view(2, 2)
    aff = lib.eye(3, dtype=dt)
    aff[:2, :2] = rot * 1.2
    aff[:2, 2] = lib.tensor([0.1, -0.05], dtype=dt)
    theta = lib.linalg.inv(aff)[:2].unsqueeze(0)
    rec("theta", theta)
    grid = F.affine_grid(theta, [1, 3, 8, 8], align_corners=False)
    rec("aff", F.grid_sample(x[:1], grid, align_corners=False, padding_mode="border")[0, 1])


def p_augmix(lib, dt, rec):
    lib.manual_seed(3)
    x = _images(lib, dt, n=2, h=6, w=6, seed=17)
    width, depth = 3, 2
    ws = lib.distributions.Dirichlet(lib.full((width,), 1.0, dtype=dt)).sample()
    rec("ws", ws)
    m = lib.distributions.Beta(lib.tensor(1.0, dtype=dt), lib.tensor(1.0, dtype=dt)).sample()
    rec("m", m)
    ops = [
        lambda t: (t * 1.3).clamp(0, 1),
        lambda t: 1.0 - t,
        lambda t: _autocontrast(lib, t),
        lambda t: lib.roll(t, 1, -1),
        lambda t: _solarize(lib, t, 0.6),
    ]
    mix = lib.zeros_like(x)
    for i in range(width):
        aug = x.clone()
        for _ in range(depth):
            k = int(lib.randint(len(ops), ()))
            aug = ops[k](aug)
        mix = mix + ws[i] * aug
    out = (1 - m) * x + m * mix
    rec("out", out)
    # the Jensen-Shannon consistency loss over three views
    logits = lib.randn(3, 2, 4, dtype=dt, requires_grad=True)
    p = logits.softmax(-1)
    pm = p.mean(0).clamp(1e-7, 1).log()
    F = lib.nn.functional
    js = sum(F.kl_div(pm, pi, reduction="batchmean") for pi in p) / 3
    js.backward()
    rec("js", js)
    rec("g", logits.grad)
    d = lib.distributions.Dirichlet(lib.tensor([[0.5, 1.0, 2.0], [3.0, 1.0, 1.0]], dtype=dt))
    rec("d_mean", d.mean)
    rec("d_lp", d.log_prob(d.sample((2,))))
    rec("d_ent", d.entropy())
    u = lib.distributions.Uniform(lib.tensor(0.1, dtype=dt), lib.tensor(0.9, dtype=dt))
    rec("u", u.sample((4,)))
    rec("u_ent", u.entropy())


def p_noise(lib, dt, rec):
    g = lib.Generator().manual_seed(61)
    x = _images(lib, dt, n=2, h=6, w=6, seed=18)
    gauss = (x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt)).clamp(0, 1)
    rec("gauss", gauss[0, 0])
    u = lib.rand(x.shape[0], 1, 6, 6, generator=g, dtype=dt)
    sp = x.clone()
    sp = sp.masked_fill(u < 0.05, 0.0).masked_fill(u > 0.95, 1.0)
    rec("sp", sp.sum(dim=(1, 2, 3)))
    pois = lib.poisson(x * 30, generator=g) / 30
    rec("poisson", pois[1, 2])
    speckle = x * (1 + 0.2 * lib.empty_like(x).normal_(generator=g))
    rec("speckle", speckle.mean(dim=(2, 3)))
    mask = lib.rand(2, 6, 6, generator=g) < 0.1
    src = lib.arange(int(mask.sum()), dtype=dt) / 10
    rec("scatter", x[:, 0].masked_scatter(mask, src))
    q = (x * 15).floor() / 15
    rec("quant", q[1, 1])
    j = lib.randint_like(x, -2, 3, generator=g)
    rec("jitter", j[0, 0])
    rec("normal", lib.normal(x[0, 0], 0.01, generator=g))
    rec("normal_t", lib.normal(lib.zeros(3, dtype=dt), lib.full((3,), 2.0, dtype=dt), generator=g))
    rec("drop2d", lib.nn.functional.dropout2d(x, 0.5, training=False).equal(x))
    gn = lib.Generator().manual_seed(0)
    st = gn.get_state()
    a = lib.rand(3, generator=gn, dtype=dt)
    gn.set_state(st)
    rec("replay", lib.equal(a, lib.rand(3, generator=gn, dtype=dt)))
    rec("gseed", gn.initial_seed())
    gc = lib.Generator().manual_seed(2**40 + 3)
    rec("big_seed", lib.rand(2, generator=gc, dtype=dt))


def p_mosaic(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(71)
    x = _images(lib, dt, n=4, h=8, w=8, seed=19)
    S = 8
    cx = int(lib.randint(S // 4, 3 * S // 4, (1,), generator=g))
    cy = int(lib.randint(S // 4, 3 * S // 4, (1,), generator=g))
    rec("center", [cx, cy])
    canvas = lib.full((3, S, S), 0.5, dtype=dt)
    canvas[:, :cy, :cx] = F.interpolate(x[0:1], size=(cy, cx), mode="bilinear")[0]
    canvas[:, :cy, cx:] = F.interpolate(x[1:2], size=(cy, S - cx), mode="bilinear")[0]
    canvas[:, cy:, :cx] = F.interpolate(x[2:3], size=(S - cy, cx), mode="nearest")[0]
    canvas[:, cy:, cx:] = x[3, :, : S - cy, : S - cx]
    rec("canvas", canvas)
    top = lib.cat([x[0], x[1]], dim=2)
    bottom = lib.cat([x[2], x[3]], dim=2)
    big = lib.cat([top, bottom], dim=1)
    rec("big", big.shape)
    rec("big_sum", big.sum(dim=(1, 2)))
    # grid mask: drop every other 2x2 patch with fold/unfold
    patches = F.unfold(x, kernel_size=2, stride=2)
    rec("patches", patches.shape)
    keep = (lib.arange(patches.shape[-1]) % 2).to(dt)
    folded = F.fold(patches * keep, output_size=(8, 8), kernel_size=2, stride=2)
    rec("gridmask", folded[0, 0])
    # multi-scale: a random size for the whole batch
    sizes = [6, 8, 10]
    size = sizes[int(lib.randint(len(sizes), (1,), generator=g))]
    rec("ms", F.interpolate(x, size=size, mode="bilinear", align_corners=False).mean(dim=(2, 3)))
    # hide-and-seek patches hidden by a bernoulli grid repeated to pixels
    hide = lib.rand(4, 1, 4, 4, generator=g) < 0.3
    hide = hide.repeat_interleave(2, dim=2).repeat_interleave(2, dim=3)
    rec("hide", (x * ~hide).sum(dim=(1, 2, 3)))
    rec("chunks", str([c.shape for c in x.chunk(3, dim=3)]))
    rec("tiles", x.view(4, 3, 2, 4, 2, 4).permute(0, 2, 4, 1, 3, 5).reshape(4, 4, 3, 4, 4)[1, 2])


def p_pad_collate(lib, dt, rec):
    data = lib.utils.data
    rnn = lib.nn.utils.rnn
    g = lib.Generator().manual_seed(81)

    class Crops(data.Dataset):
        def __init__(self):
            self.base = _images(lib, dt, n=6, h=10, w=10, seed=20)

        def __len__(self):
            return 6

        def __getitem__(self, i):
            h = 3 + i % 3
            w = 4 + (i * 2) % 5
            return self.base[i, :, :h, :w], i % 2

    def collate(batch):
        imgs, labels = zip(*batch, strict=True)
        hmax = max(t.shape[1] for t in imgs)
        wmax = max(t.shape[2] for t in imgs)
        out = lib.zeros(len(imgs), 3, hmax, wmax, dtype=dt)
        mask = lib.zeros(len(imgs), hmax, wmax, dtype=lib.bool)
        for k, t in enumerate(imgs):
            out[k, :, : t.shape[1], : t.shape[2]] = t
            mask[k, : t.shape[1], : t.shape[2]] = True
        return out, mask, lib.as_tensor(labels)

    dl = data.DataLoader(Crops(), batch_size=3, shuffle=True, generator=g, collate_fn=collate)
    for i, (imgs, mask, labels) in enumerate(dl):
        rec(f"b{i}", imgs.sum(dim=(1, 2, 3)))
        rec(f"m{i}", mask.sum(dim=(1, 2)))
        rec(f"l{i}", labels)
        rec(f"shape{i}", imgs.shape)
    seqs = [lib.arange(n, dtype=dt) for n in (3, 5, 2)]
    padded = rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
    rec("pad", padded)
    rec("pad_left", rnn.pad_sequence(seqs, batch_first=True, padding_side="left"))
    pk = rnn.pack_padded_sequence(padded, [3, 5, 2], batch_first=True, enforce_sorted=False)
    rec("pk_data", pk.data)
    rec("pk_bs", pk.batch_sizes)
    rec("pk_idx", pk.sorted_indices)
    # default_collate on numpy arrays, namedtuples and nested dicts
    import collections

    import numpy as np

    Pt = collections.namedtuple("Pt", ["img", "label"])
    dc = data.default_collate
    b = dc([Pt(np.ones((2, 2)), 1), Pt(np.zeros((2, 2)), 0)])
    rec("nt", str(type(b).__name__))
    rec("nt_img", b.img)
    rec("nt_lab", b.label)
    nested = dc([{"a": {"b": lib.tensor(1.0, dtype=dt)}, "c": (1, 2)}] * 2)
    rec("nested", str(nested))
    rec.err("dc_bad", lambda: dc([object(), object()]))
    rec.err("dc_ragged", lambda: dc([lib.zeros(2), lib.zeros(3)]))
    conv = data.default_convert(np.arange(3))
    rec("convert", conv)


def p_to_tensor(lib, dt, rec):
    import numpy as np

    rng = np.random.default_rng(5)
    hwc = rng.integers(0, 256, size=(4, 5, 3), dtype=np.uint8)
    t = lib.from_numpy(hwc).permute(2, 0, 1).contiguous()
    rec("t", t[0])
    f = t.to(dtype=dt).div(255)
    rec("f", f[1])
    rec("is_contig", t.is_contiguous())
    cl = f.unsqueeze(0).to(memory_format=lib.channels_last)
    rec("cl_contig", cl.is_contiguous(memory_format=lib.channels_last))
    rec("cl_stride", str(cl.stride()))
    back = (f * 255).round().to(lib.uint8).permute(1, 2, 0).numpy()
    rec("back", bool((back == hwc).all()))
    hw = lib.as_tensor(hwc[..., 0])
    rec("gray", hw.unsqueeze(0).expand(3, -1, -1).float().mean(0))
    pil_like = lib.frombuffer(bytearray(hwc.tobytes()), dtype=lib.uint8).view(4, 5, 3)
    rec("frombuffer", pil_like[1, 2])
    # ImageNet normalisation of a uint8 batch, in place on a float copy
    mean = lib.tensor([0.485, 0.456, 0.406], dtype=dt).view(1, 3, 1, 1)
    std = lib.tensor([0.229, 0.224, 0.225], dtype=dt).view(1, 3, 1, 1)
    batch = lib.stack([f, f.flip(-1)])
    batch.sub_(mean).div_(std)
    rec("batch", batch[:, :, 0, 0])
    rec("vflip", lib.from_numpy(np.ascontiguousarray(hwc[::-1])).sum())
    rec.err("neg_stride", lambda: lib.from_numpy(hwc[::-1]))
    rec.err("bad_div", lambda: t.div_(255))
    rec("bool_img", (t > 127).sum(dim=(1, 2)))


def p_sampling(lib, dt, rec):
    """grid_sample and interpolate in every mode, with gradients, far outside the grid and at
    its edges (theta avoids points exactly on a clamp, where float32 rounding picks a side)."""
    F = lib.nn.functional
    x = lib.rand(1, 2, 5, 5, generator=lib.Generator().manual_seed(0), dtype=dt)
    th = lib.tensor([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.0]]], dtype=dt)
    g = rec.warns("w_ag", lambda: F.affine_grid(th, [1, 2, 5, 5]))
    rec.warns("w_gs", lambda: F.grid_sample(x, g))
    rec.warns("w_gs_n", lambda: F.grid_sample(x, g, mode="nearest"))
    rec.warns("w_int", lambda: F.interpolate(x, scale_factor=2, mode="bilinear"))
    rec.warns("w_up", lambda: F.upsample(x, scale_factor=2, mode="bilinear"))
    rec.warns("w_upb", lambda: F.upsample_bilinear(x, scale_factor=2))
    rec.warns("w_upn", lambda: F.upsample_nearest(x, scale_factor=2))
    rec.warns("w_int_n", lambda: F.interpolate(x, scale_factor=2, mode="nearest"))
    rec.err("int_ac", lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True))
    big = lib.tensor([[[2.5, -0.3, 0.73], [0.4, -1.8, 0.23]]], dtype=dt)
    gb = F.affine_grid(big, [1, 2, 4, 6], align_corners=True)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (True, False):
                xr = x.clone().requires_grad_()
                gr = gb.clone().requires_grad_()
                y = F.grid_sample(xr, gr, mode=mode, padding_mode=pad, align_corners=ac)
                w = lib.linspace(-1, 2, y.numel(), dtype=dt).view(y.shape)
                (y * w).sum().backward()
                rec(f"{mode}{pad}{ac}", y)
                rec(f"{mode}{pad}{ac}.gx", xr.grad)
                rec(f"{mode}{pad}{ac}.gg", gr.grad)
    # grid points exactly at the borders and NaN / inf grid points
    nan, inf = float("nan"), float("inf")
    gg = [[[[-1.0, -1.0], [1.0, 1.0], [0.0, 1.0000001], [nan, 0.0], [inf, 0.2]]]]
    gg = lib.tensor(gg, dtype=dt)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            y = F.grid_sample(x, gg, mode=mode, padding_mode=pad, align_corners=False)
            rec(f"edge{mode}{pad}", y)
    for mode in ("bilinear", "bicubic", "nearest", "area", "nearest-exact"):
        for size in ((3, 3), (7, 9), (5, 12)):
            kw = {} if mode in ("nearest", "area", "nearest-exact") else {"align_corners": False}
            xr = x.clone().requires_grad_()
            y = F.interpolate(xr, size=size, mode=mode, **kw)
            (y * lib.linspace(0, 1, y.numel(), dtype=dt).view(y.shape)).sum().backward()
            rec(f"i{mode}{size}", y)
            rec(f"i{mode}{size}.g", xr.grad)
    for mode in ("bilinear", "bicubic"):
        for size in ((3, 2), (8, 11)):
            xr = x.clone().requires_grad_()
            y = F.interpolate(xr, size=size, mode=mode, antialias=True)
            (y * lib.linspace(0, 1, y.numel(), dtype=dt).view(y.shape)).sum().backward()
            rec(f"aa{mode}{size}", y)
            rec(f"aa{mode}{size}.g", xr.grad)
    rec("sf", F.interpolate(x, scale_factor=(1.7, 0.6), mode="bilinear"))
    rec("sf_n", F.interpolate(x, scale_factor=(1.7, 0.6), mode="nearest"))
    y = F.interpolate(x, scale_factor=(1.7, 0.6), mode="bicubic", recompute_scale_factor=True)
    rec("sf_r", y)
    rec("u8", F.interpolate((x * 255).to(lib.uint8), size=(7, 3), mode="bilinear"))
    rec("u8n", F.interpolate((x * 255).to(lib.uint8), size=(7, 3), mode="nearest"))


def p_datasets(lib, dt, rec):
    """Samplers on the global generator, Chain/Stack/Subset datasets, collation of plain
    values, DataLoader attributes and its errors."""
    data = lib.utils.data
    lib.manual_seed(10)
    rec("rs", str(list(data.RandomSampler(range(7)))))
    rec("rs_rep", str(list(data.RandomSampler(range(7), replacement=True, num_samples=4))))
    rec("wrs", str(list(data.WeightedRandomSampler([0.1, 0.5, 0.4], 6))))
    rec("srs", str(list(data.SubsetRandomSampler(lib.tensor([4, 2, 9])))))
    rec("split", str([s.indices for s in data.random_split(range(8), [5, 3])]))
    ds = data.TensorDataset(lib.arange(8, dtype=dt), lib.arange(8) % 2)
    rec("dl", str([b[1].tolist() for b in data.DataLoader(ds, batch_size=3, shuffle=True)]))
    rec("after", lib.rand(2, dtype=dt))

    class Stream(data.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(lib.arange(self.n, dtype=dt) * 1.5)

    ch = data.ChainDataset([Stream(3), Stream(2)])
    rec("chain", str([float(v) for v in ch]))
    rec("chain_dl", str([b.tolist() for b in data.DataLoader(ch, batch_size=2)]))
    rec(
        "chain_dl_last",
        str([b.tolist() for b in data.DataLoader(ch, batch_size=2, drop_last=True)]),
    )
    st = data.StackDataset(ds, ds)
    rec("stack", str(st[2]))
    st2 = data.StackDataset(a=ds, b=lib.arange(8) * 10)
    rec("stack_kw", str(st2[3]))
    rec("stack_dl", str(next(iter(data.DataLoader(st2, batch_size=2)))))
    rec.err("stack_len", lambda: data.StackDataset(ds, lib.arange(3)))
    sub = data.Subset(data.Subset(ds, [7, 5, 3, 1]), [0, 2])
    rec("subsub", str(sub[1]))
    rec("getitems", str(data.Subset(ds, [1, 2]).__getitems__([0, 1])))
    rs = data.random_split(
        data.Subset(ds, range(6)), [0.7, 0.3], generator=lib.Generator().manual_seed(2)
    )
    rec("rs_sub", str([list(r.indices) for r in rs]))
    rec.err("iter_len", lambda: len(data.DataLoader(Stream(3))))
    rec.err("iter_sampler", lambda: data.DataLoader(Stream(3), sampler=[0, 1]))
    rec.err("iter_bs", lambda: data.DataLoader(Stream(3), batch_sampler=[[0]]))
    rec.err("ds_add_iter", lambda: ds + Stream(2))
    c = ds + ds
    rec("concat", str(type(c).__name__))
    rec.err("concat_empty", lambda: data.ConcatDataset([]))
    rec.err("concat_iter", lambda: data.ConcatDataset([Stream(2)]))
    rec.err("chain_bad", lambda: list(data.ChainDataset([ds])))
    dl = data.DataLoader(ds, batch_size=3, drop_last=True, shuffle=False)
    rec("dl_len", len(dl))
    rec(
        "dl_attrs",
        str(
            (
                dl.batch_size,
                dl.drop_last,
                type(dl.sampler).__name__,
                type(dl.batch_sampler).__name__,
                dl.num_workers,
            )
        ),
    )
    dln = data.DataLoader(ds, batch_size=None)
    rec("dl_none", str((dln.batch_size, dln.batch_sampler, type(dln.sampler).__name__)))
    rec.err("set_bs", lambda: setattr(dl, "batch_size", 4))
    rec("it", str(next(iter(data.DataLoader(range(5), batch_size=2)))))
    rec("it_list", str(next(iter(data.DataLoader([[1, 2], [3, 4]], batch_size=2)))))
    rec("it_float", str(next(iter(data.DataLoader([1.5, 2.5], batch_size=2)))))
    rec("it_bool", str(next(iter(data.DataLoader([True, False], batch_size=2)))))
    rec("it_str", str(next(iter(data.DataLoader(["a", "b"], batch_size=2)))))
    import numpy as np

    rec("it_np", str(next(iter(data.DataLoader([np.float32(1.5), np.float32(2)], batch_size=2)))))
    rec("it_np0", str(next(iter(data.DataLoader([np.array(1.5), np.array(2.0)], batch_size=2)))))
    rec("it_np_none", str(next(iter(data.DataLoader([np.arange(2)], batch_size=None)))))
    rec("seed_gen", str(data.DataLoader(ds, shuffle=True).generator))
    rec(
        "wrs_t",
        str(
            list(
                data.WeightedRandomSampler(
                    lib.tensor([1.0, 0.0, 3.0], dtype=dt),
                    4,
                    generator=lib.Generator().manual_seed(0),
                )
            )
        ),
    )
    rec.err("wrs_2d", lambda: data.WeightedRandomSampler(lib.ones(2, 2), 3))
    rec.err("wrs_nan", lambda: list(data.WeightedRandomSampler([float("nan"), 1.0], 2)))
    rec.err("wrs_zero", lambda: list(data.WeightedRandomSampler([0.0, 0.0], 2)))
    rec.err("rs_rep_bad", lambda: data.RandomSampler(range(3), replacement="yes"))
    rec.err("split_neg", lambda: data.random_split(range(3), [4, -1]))
    rec.err("split_frac_warn", lambda: data.random_split(range(3), [0.5, 0.5, 0.0]))
    rec.err("subset_rand_bad", lambda: list(data.SubsetRandomSampler([0, 1], generator=3)))


def p_filters(lib, dt, rec):
    """Blending, histograms, half-precision image ops, autocast, convolution filters (same,
    reflect, circular), median/min filters."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(4)
    x = lib.rand(2, 3, 6, 6, generator=g, dtype=dt)
    y = lib.rand(2, 3, 6, 6, generator=g, dtype=dt)
    rec("lerp", lib.lerp(x, y, 0.3))
    rec("lerp_t", lib.lerp(x, y, lib.full((2, 1, 1, 1), 0.7, dtype=dt)))
    rec("addcmul", lib.addcmul(x, y, x, value=-0.5))
    rec(
        "clamp_t",
        x.clamp(
            min=lib.tensor([0.2, 0.3, 0.4], dtype=dt).view(3, 1, 1), max=lib.tensor(0.8, dtype=dt)
        ),
    )
    bins = lib.linspace(0, 1, 9, dtype=dt)
    rec("bucket", lib.bucketize(x[0, 0], bins))
    rec("bucket_r", lib.bucketize(x[0, 0], bins, right=True))
    rec("ss", lib.searchsorted(bins, x[0, 1].flatten(), side="right"))
    h = lib.histogram(x[0].flatten(), bins=5, range=(0.0, 1.0))
    rec("hist", h.hist)
    rec("edges", h.bin_edges)
    hw = lib.histogram(x[0].flatten(), bins=bins, weight=y[0].flatten(), density=True)
    rec("hist_w", hw.hist)
    for half in (lib.float16, lib.bfloat16):
        xh = x.to(half)
        rec(f"{half}.bright", (xh * 1.25).clamp(0, 1))
        rec(f"{half}.gray", (0.299 * xh[:, 0] + 0.587 * xh[:, 1] + 0.114 * xh[:, 2]))
        rec(f"{half}.blur", F.avg_pool2d(xh, 3, 1, 1))
        rec(f"{half}.interp", F.interpolate(xh, size=(4, 4), mode="bilinear"))
        rec(f"{half}.near", F.interpolate(xh, size=(9, 9), mode="nearest"))
        rec(f"{half}.flip", xh.flip(-1).rot90(1, (2, 3)))
        rec(f"{half}.mean", xh.mean(dim=(2, 3)))
        rec(f"{half}.std", xh.std(dim=(2, 3)))
        rec(
            f"{half}.norm",
            (xh - xh.mean(dim=(2, 3), keepdim=True)) / (xh.std(dim=(2, 3), keepdim=True) + 1e-3),
        )
    with lib.autocast("cpu", dtype=lib.bfloat16):
        conv = lib.nn.Conv2d(3, 2, 3).to(dt)
        out = conv(x)
        rec("ac_dtype", str(out.dtype))
        rec("ac_interp", str(F.interpolate(out, scale_factor=2, mode="bilinear").dtype))
        rec(
            "ac_gs",
            str(
                F.grid_sample(
                    out,
                    F.affine_grid(
                        lib.eye(2, 3, dtype=dt)[None].expand(2, 2, 3),
                        [2, 2, 4, 4],
                        align_corners=False,
                    ),
                    align_corners=False,
                ).dtype
            ),
        )
    k = lib.tensor([[0.0, -1, 0], [-1, 5, -1], [0, -1, 0]], dtype=dt)
    rec("sharp_same", F.conv2d(x, k.expand(3, 1, 3, 3), padding="same", groups=3)[0, 0])
    c = lib.nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect", groups=3, bias=False).to(dt)
    with lib.no_grad():
        c.weight.copy_(k.expand(3, 1, 3, 3))
    rec("sharp_reflect", c(x)[1, 2])
    c2 = lib.nn.Conv2d(3, 3, 3, padding=1, padding_mode="circular", groups=3, bias=False).to(dt)
    with lib.no_grad():
        c2.weight.copy_(k.expand(3, 1, 3, 3))
    rec("sharp_circ", c2(x)[1, 2])
    rec(
        "sobel",
        F.conv2d(
            x.mean(1, keepdim=True),
            lib.tensor([[[[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]]]], dtype=dt),
            padding=1,
        )
        .abs()
        .amax(dim=(2, 3)),
    )
    med = (
        F.pad(x, (1, 1, 1, 1), mode="reflect")
        .unfold(2, 3, 1)
        .unfold(3, 3, 1)
        .reshape(2, 3, 6, 6, 9)
        .median(dim=-1)
        .values
    )
    rec("median", med[0, 0])
    rec("maxpool_dilate", F.max_pool2d(x, 3, 1, 1))
    rec("minfilter", -F.max_pool2d(-x, 3, 1, 1))
    rec("lp", F.lp_pool2d(x, 2, 2))


def p_dists(lib, dt, rec):
    """DataLoader option checks and the distributions augmentation draws from."""
    data = lib.utils.data
    D = lib.distributions
    lib.manual_seed(7)
    ds = data.TensorDataset(lib.arange(6, dtype=dt))
    rec.warns("pin", lambda: list(data.DataLoader(ds, batch_size=2, pin_memory=True)))
    rec.err("timeout", lambda: data.DataLoader(ds, timeout=-1))
    rec.err("mpctx", lambda: data.DataLoader(ds, multiprocessing_context="spawn"))
    rec.warns("in_order", lambda: data.DataLoader(ds, in_order=False))
    a = D.Beta(lib.tensor([0.5, 2.0], dtype=dt), lib.tensor([[1.0], [3.0]], dtype=dt))
    rec("bshape", str((a.batch_shape, a.event_shape)))
    s = a.sample((3,))
    rec("bs", s)
    rec("blp", a.log_prob(s))
    e = a.expand((4, 2, 2))
    rec("bexp", e.sample().shape)
    rec("brs", a.rsample())
    rec("bmode", a.mode)
    c = D.Categorical(probs=lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=dt))
    rec("cat", c.sample((10,)))
    rec("cat_lp", c.log_prob(lib.arange(4)))
    rec("cat_ent", c.entropy())
    b = D.Bernoulli(probs=lib.tensor(0.3, dtype=dt))
    rec("bern", b.sample((8,)))
    rec("bern_lp", b.log_prob(lib.tensor([0.0, 1.0], dtype=dt)))
    u = D.Uniform(lib.tensor([0.0, -1.0], dtype=dt), lib.tensor([1.0, 1.0], dtype=dt))
    rec("u", u.rsample((3,)))
    rec("u_cdf", u.cdf(lib.tensor([0.5, 0.5], dtype=dt)))
    rec("u_icdf", u.icdf(lib.tensor([0.25, 0.25], dtype=dt)))
    rec.err("u_lp_out", lambda: u.log_prob(lib.tensor([2.0, 0.0], dtype=dt)))
    rec.err("beta_support", lambda: a.log_prob(lib.tensor(1.5, dtype=dt)))
    rec.err("cat_bad", lambda: D.Categorical(probs=lib.tensor([-0.1, 1.1], dtype=dt)))
    ln = D.LogNormal(lib.tensor(0.0, dtype=dt), lib.tensor(0.25, dtype=dt))
    rec("ln", ln.sample((5,)))
    tn = D.TransformedDistribution(
        D.Uniform(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt)),
        [D.transforms.AffineTransform(-30.0, 60.0)],
    )
    rec("tn", tn.sample((4,)))
    rec("tn_lp", tn.log_prob(lib.tensor([0.0, 10.0], dtype=dt)))
    k = D.Kumaraswamy(lib.tensor(2.0, dtype=dt), lib.tensor(3.0, dtype=dt))
    rec("kuma", k.sample((3,)))
    g = D.Gamma(lib.tensor([0.3, 2.0], dtype=dt), lib.tensor(1.0, dtype=dt))
    rec("gamma", g.sample((3,)))
    rec("dir", D.Dirichlet(lib.tensor([0.2, 0.2, 0.2], dtype=dt)).sample((3,)))
    rec("beta_small", D.Beta(lib.tensor(0.05, dtype=dt), lib.tensor(0.05, dtype=dt)).sample((6,)))
    rec(
        "sbern",
        lib.distributions.RelaxedBernoulli(
            lib.tensor(0.5, dtype=dt), probs=lib.tensor(0.3, dtype=dt)
        ).rsample((3,)),
    )


def p_streams(lib, dt, rec):
    """The sampled numbers and indices themselves: randperm of every size path, randint and
    random_ of every dtype, the in-place fills, multinomial, bernoulli, dropout, *_like."""
    lib.manual_seed(5)
    g = lib.Generator().manual_seed(123)
    for n in (1, 7, 16, 17, 100, 1000, 5000):
        rec(f"perm{n}", lib.randperm(n, generator=g)[:20])
    for dtype in (
        lib.uint8,
        lib.int8,
        lib.int16,
        lib.int32,
        lib.int64,
        lib.float16,
        lib.bfloat16,
        dt,
    ):
        rec(
            f"ri{dtype}",
            lib.randint(
                -3 if dtype != lib.uint8 else 0,
                200 if dtype not in (lib.int8,) else 100,
                (9,),
                generator=g,
                dtype=dtype,
            ),
        )
        rec(f"rnd{dtype}", lib.empty(5, dtype=dtype).random_(generator=g))
        rec(f"rnd10{dtype}", lib.empty(5, dtype=dtype).random_(10, generator=g))
    for dtype in (lib.float16, lib.bfloat16, dt):
        rec(f"rand{dtype}", lib.rand(17, generator=g, dtype=dtype))
        rec(f"randn{dtype}", lib.randn(17, generator=g, dtype=dtype))
        rec(f"exp{dtype}", lib.empty(5, dtype=dtype).exponential_(2.0, generator=g))
        rec(f"geo{dtype}", lib.empty(5, dtype=dtype).geometric_(0.3, generator=g))
        rec(f"cauchy{dtype}", lib.empty(5, dtype=dtype).cauchy_(generator=g))
        rec(f"ln{dtype}", lib.empty(5, dtype=dtype).log_normal_(generator=g))
        rec(f"unif{dtype}", lib.empty(5, dtype=dtype).uniform_(-2, 3, generator=g))
    rec("big_ri", lib.randint(0, 2**40, (5,), generator=g))
    rec("neg_ri", lib.randint(-(2**40), -5, (5,), generator=g))
    rec("normal_size", lib.normal(2.0, 3.0, (2, 3), generator=g, dtype=dt))
    rec("randn_big", lib.randn(40, generator=g, dtype=dt)[-5:])
    rec("rand_big", lib.rand(3, 50, generator=g, dtype=dt)[:, -3:])
    rec("mn2d", lib.multinomial(lib.rand(3, 6, generator=g, dtype=dt), 4, generator=g))
    rec(
        "mn2d_r",
        lib.multinomial(lib.rand(3, 6, generator=g, dtype=dt), 10, replacement=True, generator=g),
    )
    rec("bern_t", lib.bernoulli(lib.rand(3, 4, generator=g, dtype=dt), generator=g))
    rec("bern_T", lib.bernoulli(lib.rand(4, 3, generator=g, dtype=dt).T, generator=g))
    rec("drop", lib.nn.functional.dropout(lib.ones(3, 8, dtype=dt), 0.3, training=True))
    rec("randint_like", lib.randint_like(lib.zeros(2, 3, dtype=dt), 5, 10))
    rec("rand_like", lib.rand_like(lib.zeros(2, 3, dtype=dt).T))
    rec("poisson", lib.poisson(lib.tensor([0.5, 3.0, 20.0, 150.0], dtype=dt), generator=g))
    rec("binom", lib.distributions.Binomial(10, lib.tensor([0.2, 0.7], dtype=dt)).sample((3,)))
    rec("perm_dev", lib.randperm(5, generator=g, dtype=lib.int16))
    rec("state_len", len(g.get_state()))
    rec("shuffle_idx", lib.argsort(lib.rand(9, generator=g)))
    rec("after", lib.rand(3, generator=g, dtype=dt))


def p_vmap_aug(lib, dt, rec):
    """Per-sample augmentation under vmap (randomness 'same', and 'different' where each
    sample makes one uniform draw), per-sample affine warps by vmap and batched."""
    F = lib.nn.functional
    lib.manual_seed(0)
    x = lib.rand(4, 3, 5, 5, dtype=dt)

    def aug(img):
        noise = lib.randn(img.shape, dtype=img.dtype) * 0.1
        flip = lib.rand(()) < 0.5
        out = lib.where(flip, img.flip(-1), img)
        return out + noise

    lib.manual_seed(1)
    rec("vmap_same", lib.func.vmap(aug, randomness="same")(x))
    rec.err("vmap_error", lambda: lib.func.vmap(aug)(x))
    lib.manual_seed(2)

    def drop(img):
        return F.dropout(img, 0.5, training=True)

    rec("vdrop", lib.func.vmap(drop, randomness="different")(x))
    rec("vbern", lib.func.vmap(lambda t: lib.bernoulli(t), randomness="different")(x[:, 0]))
    rec("vperm", lib.func.vmap(lambda t: t[lib.randperm(5)], randomness="same")(x[:, 0, 0]))
    rec("vrandlike", lib.func.vmap(lambda t: lib.rand_like(t), randomness="different")(x[:, 0, 0]))
    # per-sample affine via vmap over theta
    th = lib.randn(4, 2, 3, dtype=dt) * 0.1 + lib.eye(2, 3, dtype=dt)

    def warp(img, t):
        grid = F.affine_grid(t[None], [1, 3, 5, 5], align_corners=False)
        return F.grid_sample(img[None], grid, align_corners=False)[0]

    rec("vwarp", lib.func.vmap(warp)(x, th))
    rec(
        "bwarp",
        F.grid_sample(x, F.affine_grid(th, [4, 3, 5, 5], align_corners=False), align_corners=False),
    )


def p_errors2(lib, dt, rec):
    """The errors of the sampling, resizing, padding, filtering and mixing calls a pipeline makes
    with a wrong shape, dtype, size or mode."""
    F = lib.nn.functional
    x = lib.rand(1, 2, 4, 4, dtype=dt)
    v = lib.rand(1, 2, 3, 4, 4, dtype=dt)
    g4 = lib.zeros(1, 3, 3, 2, dtype=dt)
    g5 = lib.zeros(1, 2, 3, 3, 3, dtype=dt)
    E = rec.err
    E("gs_bicubic5d", lambda: F.grid_sample(v, g5, mode="bicubic", align_corners=False))
    E("gs_3d", lambda: F.grid_sample(x[0], g4, align_corners=False))
    E("gs_5d4d", lambda: F.grid_sample(v, g4, align_corners=False))
    E("gs_empty", lambda: F.grid_sample(lib.rand(1, 2, 0, 4, dtype=dt), g4, align_corners=False))
    E("gs_int", lambda: F.grid_sample(x.long(), g4.long(), align_corners=False))
    E("gs_last", lambda: F.grid_sample(v, g5[..., :2], align_corners=False))
    E(
        "ag_5d",
        lambda: F.affine_grid(lib.zeros(1, 2, 3, dtype=dt), [1, 1, 2, 2, 2], align_corners=False),
    )
    E(
        "ag_3d",
        lambda: F.affine_grid(lib.zeros(1, 3, 4, dtype=dt), [1, 1, 2, 2], align_corners=False),
    )
    E("ag_1", lambda: F.affine_grid(lib.zeros(1, 2, 3, dtype=dt), [1, 1, 1, 1], align_corners=True))
    E(
        "ag_6",
        lambda: F.affine_grid(
            lib.zeros(1, 2, 3, dtype=dt), [1, 1, 2, 2, 2, 2], align_corners=False
        ),
    )
    E("ag_list", lambda: F.affine_grid([[1.0]], [1, 1, 2, 2], align_corners=False))
    E("int_len", lambda: F.interpolate(x, size=(2, 2, 2)))
    E("int_sf_len", lambda: F.interpolate(x, scale_factor=(2.0, 2.0, 2.0)))
    E("int_none", lambda: F.interpolate(x))
    E("int_aa_n", lambda: F.interpolate(x, size=(2, 2), mode="nearest", antialias=True))
    E("int_bicubic3d", lambda: F.interpolate(x[0], size=3, mode="bicubic"))
    E("int_bilinear5d", lambda: F.interpolate(v, size=3, mode="bilinear"))
    E("int_mode", lambda: F.interpolate(x, size=3, mode="cubic"))
    E("int_zero", lambda: F.interpolate(x, size=(0, 2)))
    E("int_neg_sf", lambda: F.interpolate(x, scale_factor=-1.0))
    E("int_2d", lambda: F.interpolate(x[0, 0], size=2))
    E("int_rsf", lambda: F.interpolate(x, size=3, recompute_scale_factor=True))
    E("pad_odd", lambda: F.pad(x, (1, 1, 1)))
    E("pad_refl_big", lambda: F.pad(x, (0, 0, 4, 4), mode="reflect"))
    E("pad_circ_big", lambda: F.pad(x, (5, 5, 0, 0), mode="circular"))
    E("pad_repl_val", lambda: F.pad(x, (1, 1), mode="replicate", value=1.0))
    E("pad_refl_6", lambda: F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect"))
    E("pad_neg", lambda: F.pad(x, (-3, -3, 0, 0)))
    E("conv_ch", lambda: F.conv2d(x, lib.ones(1, 3, 3, 3, dtype=dt)))
    E("conv_small", lambda: F.conv2d(x, lib.ones(1, 2, 5, 5, dtype=dt)))
    E("conv_dt", lambda: F.conv2d(x, lib.ones(1, 2, 3, 3, dtype=lib.float16)))
    E("conv_same_s", lambda: F.conv2d(x, lib.ones(1, 2, 3, 3, dtype=dt), padding="same", stride=2))
    E("conv_pad_str", lambda: F.conv2d(x, lib.ones(1, 2, 3, 3, dtype=dt), padding="full"))
    E("unfold_big", lambda: F.unfold(x, kernel_size=5))
    E(
        "fold_bad",
        lambda: F.fold(lib.ones(1, 8, 3, dtype=dt), output_size=(4, 4), kernel_size=2, stride=2),
    )
    E("pixel_shuffle", lambda: F.pixel_shuffle(x, 2))
    E("pixel_unshuffle", lambda: F.pixel_unshuffle(x, 3))
    E("avgpool_big", lambda: F.avg_pool2d(x, 5))
    E("avgpool_pad", lambda: F.avg_pool2d(x, 2, padding=2))
    E("maxpool_neg", lambda: F.max_pool2d(x, 0))
    E("normalize_dim", lambda: F.normalize(x, dim=4))
    E("one_hot_nc", lambda: F.one_hot(lib.tensor([0, 1]), 0))
    E(
        "ce_soft_shape",
        lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.zeros(2, 4, dtype=dt)),
    )
    E(
        "ce_soft_ignore",
        lambda: F.cross_entropy(
            lib.zeros(2, 3, dtype=dt), lib.zeros(2, 3, dtype=dt), ignore_index=0
        ),
    )
    E(
        "ce_ls",
        lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.tensor([0, 1]), label_smoothing=1.5),
    )
    E(
        "ce_int_target",
        lambda: F.cross_entropy(lib.zeros(2, 3, dtype=dt), lib.tensor([0.0, 1.0], dtype=dt)),
    )
    E("rot90_k", lambda: lib.rot90(x, 1.5, (2, 3)))
    E("rot90_dims", lambda: lib.rot90(x, 1, (2,)))
    E("roll", lambda: lib.roll(x, (1, 2), (1,)))
    E("flip_dim", lambda: x.flip(5))
    E("crop_neg", lambda: x.narrow(2, 3, 2))
    E(
        "erase_shape",
        lambda: x.__setitem__(
            (0, slice(None), slice(0, 2), slice(0, 2)), lib.zeros(3, 2, 2, dtype=dt)
        ),
    )
    E("masked_fill_t", lambda: x.masked_fill(x > 0.5, lib.ones(2, dtype=dt)))
    E("masked_fill_dt", lambda: x.masked_fill(x, 0.0))
    E("where_dt", lambda: lib.where(x > 0.5, x, lib.ones(1, dtype=lib.float16)))
    E("lerp_dt", lambda: lib.lerp(x, x.float() if dt == lib.float64 else x.double(), 0.5))
    E("clamp_none", lambda: x.clamp())
    E("clamp_t", lambda: x.clamp(min=lib.ones(3, dtype=dt)))
    E("stack_shape", lambda: lib.stack([x, x[..., :3]]))
    E("cat_dim", lambda: lib.cat([x, x[:, :1, :3]], dim=1))
    E("expand", lambda: x.expand(2, 3, 4, 4))
    E("view", lambda: x.permute(0, 2, 3, 1).view(-1))
    E("hist_int", lambda: lib.histc(lib.tensor([1, 2]), bins=2))
    E("histogram_int", lambda: lib.histogram(lib.tensor([1, 2]), bins=2))
    E("bucket_dim", lambda: lib.bucketize(x, lib.ones(2, 2, dtype=dt)))
    E("mn_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    E("mn_many", lambda: lib.multinomial(lib.ones(3, dtype=dt), 4))
    E("mn_3d", lambda: lib.multinomial(lib.ones(1, 1, 3, dtype=dt), 1))
    E("beta_shape", lambda: lib.distributions.Beta(lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)))
    E("dir_scalar", lambda: lib.distributions.Dirichlet(lib.tensor(1.0, dtype=dt)))
    E(
        "uniform_bad",
        lambda: lib.distributions.Uniform(lib.tensor(1.0, dtype=dt), lib.tensor(0.0, dtype=dt)),
    )


def p_dist_sampler(lib, dt, rec):
    """DistributedSampler with explicit replicas (shuffled per epoch, padded or dropped), an
    IterableDataset whose __len__ is wrong, a custom Sampler, collation edge cases."""
    data = lib.utils.data
    ds = data.TensorDataset(lib.arange(11, dtype=dt))
    for shuffle in (True, False):
        for drop_last in (False, True):
            s = data.distributed.DistributedSampler(
                ds, num_replicas=3, rank=1, shuffle=shuffle, seed=7, drop_last=drop_last
            )
            rec(f"ds{shuffle}{drop_last}", str(list(s)))
            rec(f"dslen{shuffle}{drop_last}", len(s))
            s.set_epoch(2)
            rec(f"ds_e2{shuffle}{drop_last}", str(list(s)))
    rec.err("ds_rank", lambda: data.distributed.DistributedSampler(ds, num_replicas=2, rank=2))
    dl = data.DataLoader(
        ds,
        batch_size=4,
        sampler=data.distributed.DistributedSampler(ds, num_replicas=2, rank=0, seed=1),
    )
    rec("ds_dl", str([b[0].tolist() for b in dl]))

    class Sized(data.IterableDataset):
        def __len__(self):
            return 3

        def __iter__(self):
            return iter(range(5))

    dl = data.DataLoader(Sized(), batch_size=2)
    rec("sized_len", len(dl))
    rec.warns("sized_iter", lambda: list(dl))
    dl2 = data.DataLoader(Sized(), batch_size=2, drop_last=True)
    rec("sized_len_drop", len(dl2))

    class MySampler(data.Sampler):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n - 1, -1, -2))

        def __len__(self):
            return (self.n + 1) // 2

    dl = data.DataLoader(ds, batch_size=2, sampler=MySampler(11))
    rec("mys", str([b[0].tolist() for b in dl]))
    rec("mys_len", len(dl))
    it = iter(data.DataLoader(ds, batch_size=3))
    rec("it_len", len(it))
    next(it)
    rec("it_type", type(it).__name__)
    rec("dc_mixed", str(data.default_collate([1, 2.5])))
    rec.err(
        "dc_mixed_types", lambda: data.default_collate([lib.tensor(1), lib.tensor(1.5, dtype=dt)])
    )
    rec("dc_dtypes", str(data.default_collate([lib.tensor([1]), lib.tensor([2])]).dtype))
    rec.err("dc_len", lambda: data.default_collate([(1, 2), (3,)]))
    rec(
        "dc_ident",
        str(
            next(iter(data.DataLoader([{"a": 1}, {"a": 2}], batch_size=2, collate_fn=lambda b: b)))
        ),
    )


def p_uint8_eq(lib, dt, rec):
    """torchvision-style equalize on uint8 images (bincount, floor division, a padded cumsum
    lookup), and the integer semantics uint8 pipelines lean on."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(3)
    img = lib.randint(0, 256, (2, 3, 6, 6), generator=g, dtype=lib.uint8)
    # torchvision-style equalize per channel
    flat = img.flatten(2)
    out = []
    for b in range(2):
        chans = []
        for c in range(3):
            ch = flat[b, c]
            hist = lib.bincount(ch.long(), minlength=256)
            nz = hist[hist != 0]
            step = lib.div(nz[:-1].sum(), 255, rounding_mode="floor")
            if step == 0:
                chans.append(ch)
                continue
            lut = lib.div(
                lib.cumsum(hist, 0) + lib.div(step, 2, rounding_mode="floor"),
                step,
                rounding_mode="floor",
            )
            lut = F.pad(lut, [1, 0])[:-1].clamp_(0, 255)
            chans.append(lut[ch.long()].to(lib.uint8))
        out.append(lib.stack(chans))
    eq = lib.stack(out).view_as(img)
    rec("eq", eq)
    rec("cumsum_dtype", str(lib.cumsum(img, 0).dtype))
    rec("sum_u8", img.sum(dim=1, dtype=lib.uint8))
    rec("prod_dt", str(img[0, 0, 0].prod().dtype))
    rec("clamp_f", str(img.clamp(0.5, 200.5).dtype))
    rec("clamp_i", img.clamp(10, 200)[0, 0])
    rec.err("clamp_t", lambda: img.clamp(lib.tensor(1.5), None))
    rec("pad_u8", F.pad(img, (1, 1), value=7)[0, 0, 0])
    rec.err("pad_refl2", lambda: F.pad(img.float(), (1, 1), mode="reflect"))
    rec("pad_u8_refl", F.pad(img.float(), (1, 1, 1, 1), mode="reflect").to(lib.uint8)[0, 0, 0])
    rec("unique", lib.unique(img[0, 0] // 64, return_counts=True)[1])
    rec("uniq_inv", lib.unique(img[0, 0, 0] // 64, return_inverse=True, sorted=True)[1])
    rec("nz", lib.nonzero(img[0, 0] > 200, as_tuple=True)[1])
    rec("gather", lib.gather(img[0, 0], 1, lib.argsort(img[0, 0], dim=1)))
    rec(
        "idx_add",
        lib.zeros(256, dtype=lib.int64)
        .index_add_(0, img[0, 0].flatten().long(), lib.ones(36, dtype=lib.int64))
        .nonzero()
        .flatten(),
    )
    rec(
        "scatter_reduce",
        lib.zeros(4, dtype=dt).scatter_reduce(
            0, (img[0, 0, 0] // 64).long(), img[0, 0, 0].to(dt), reduce="amax", include_self=False
        ),
    )
    rec(
        "sr_mean",
        lib.zeros(4, dtype=dt).scatter_reduce(
            0, (img[0, 0, 0] // 64).long(), img[0, 0, 0].to(dt), reduce="mean"
        ),
    )
    rec(
        "bincount_w",
        lib.bincount(
            (img[0, 0] // 32).flatten().long(),
            weights=img[0, 1].flatten().to(dt) / 255,
            minlength=8,
        ),
    )
    rec("u8_sub", img[0, 0, 0] - img[0, 0, 1])
    rec("u8_mul_f", (img[0, 0, 0] * 0.5))
    rec("u8_div", img[0, 0, 0] / 2)
    rec("u8_fdiv", img[0, 0, 0] // 3)
    rec("u8_neg", -img[0, 0, 0])
    rec("u8_abs", (img[0, 0, 0].to(lib.int16) - 128).abs())
    rec("u8_mean_f", img.to(dt).mean(dim=(2, 3)))
    rec("u8_max", img.amax(dim=(2, 3)))
    rec("u8_median", img[0, 0].median(dim=1).values)
    rec("u8_sort", img[0, 0, 0].sort(descending=True).values)
    rec("u8_topk", img[0, 0].flatten().topk(3).values)
    rec("u8_to_bool", img[0, 0, 0].bool())
    rec(
        "u8_blend",
        (
            (img[0].to(lib.float32) * 0.3 + img[1].to(lib.float32) * 0.7)
            .round()
            .clamp(0, 255)
            .to(lib.uint8)
        )[0, 0],
    )
    rec("u8_lerp_int", lib.lerp(img[0].to(dt), img[1].to(dt), 0.25)[1, 1])
    rec("u8_where", lib.where(img[0] > 128, img[0], 0)[0, 0])
    rec.err("u8_where_dt", lambda: lib.where(img[0] > 128, img[0], 300))
    rec.err("u8_add_big", lambda: img + 300)
    rec("u8_add_t", str((img + lib.tensor(300)).dtype))
    rec.err("u8_add_inplace", lambda: img.clone().add_(1.5))
    rec("u8_shift", (img[0, 0, 0] << 2))
    rec("u8_rshift", (img[0, 0, 0].to(lib.int32) >> 3))
    rec("u8_xor", img[0, 0, 0] ^ 0xFF)


def p_modules(lib, dt, rec):
    """The resampling, padding and shuffling modules a transform pipeline is built of: their
    reprs and outputs, and the reprs of image tensors."""
    nn = lib.nn
    mods = [
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        nn.Upsample(size=(3, 4)),
        nn.UpsamplingNearest2d(scale_factor=2.0),
        nn.UpsamplingBilinear2d(size=5),
        nn.ReflectionPad2d(2),
        nn.ReflectionPad2d((1, 0, 2, 1)),
        nn.ReplicationPad2d(1),
        nn.ZeroPad2d((1, 2, 0, 0)),
        nn.CircularPad2d(1),
        nn.ConstantPad2d(1, 0.5),
        nn.PixelShuffle(2),
        nn.PixelUnshuffle(2),
        nn.Unfold(kernel_size=2, stride=2),
        nn.Fold(output_size=(4, 4), kernel_size=2, stride=2),
        nn.ChannelShuffle(3),
        nn.Dropout2d(0.2),
        nn.AvgPool2d(3, 1, 1),
        nn.Identity(),
        nn.Flatten(1, -1),
        nn.Unflatten(1, (3, 4)),
        nn.Hardtanh(0.0, 1.0),
    ]
    for m in mods:
        rec(type(m).__name__ + "_repr", repr(m))
    seq = nn.Sequential(
        nn.ReflectionPad2d(1), nn.AvgPool2d(3, 1), nn.Upsample(scale_factor=2, mode="nearest")
    )
    rec("seq", repr(seq))
    x = lib.rand(1, 3, 4, 4, generator=lib.Generator().manual_seed(0), dtype=dt)
    rec("seq_out", seq(x))
    x2 = lib.rand(1, 4, 4, 4, generator=lib.Generator().manual_seed(1), dtype=dt)
    for m in mods[:10] + [nn.PixelUnshuffle(2), nn.AvgPool2d(3, 1, 1)]:
        rec(type(m).__name__, m(x))
    rec("ps", nn.PixelShuffle(2)(x2))
    rec("cs", nn.ChannelShuffle(2)(x2)[0, :, 0, 0])
    rec("unf", nn.Unfold(kernel_size=2, stride=2)(x))
    rec("fold", nn.Fold(output_size=(4, 4), kernel_size=2, stride=2)(nn.Unfold(2, stride=2)(x)))
    ln = nn.ModuleDict({"flip": nn.Identity(), "pad": nn.ReflectionPad2d(1)})
    rec("md", repr(ln))
    rec("x_repr", repr(x[0, 0, :2, :2]))
    rec("u8_repr", repr(lib.tensor([[0, 255], [3, 128]], dtype=lib.uint8)))
    rec("mask_repr", repr(x[0, 0] > 0.5))
