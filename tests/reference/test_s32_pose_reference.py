"""Session 32 (helper pose): human pose estimation programs written the way keypoint code is
written in torch (SimpleBaseline/HRNet/Hourglass heads, DSNT, integral regression, DARK,
OpenPose PAFs, associative embedding, VideoPose3D lifting), run under torch and minitorch with the
same seeds and compared record by record: Gaussian target heatmaps by meshgrid/exp and by
truncated windows pasted into canvases, sparse targets by index_put_/scatter_/put_ and grouped
conv blurs, ConvTranspose2d/upsample + conv heads (output_size, groups, dilation,
output_padding), argmax decoding by max/argmax/topk with unravel_index and floor division /
remainder / fmod (negative, zero and unsigned operands), NaN and empty maps, sub-pixel refinement
by gathered neighbours and the DARK Taylor step (det/solve of 2x2 Hessians), soft-argmax and DSNT
(spatial softmax, einsum expectations, variance regularisers, gradcheck and gradgradcheck),
masked spatial softmax, integral regression with L1/smooth-L1/Huber, OKS (and a differentiable
OKS loss with AMSGrad), PCK/AUC (trapezoid), MPJPE and Procrustes (svd), flip-test averaging with
flip and joint permutation, affine crops by affine_grid/grid_sample (2-D and 3-D, every mode and
padding, align_corners both ways, NaN grid points), keypoint inverse transforms, PAF limb fields
with cross products and line integrals, MSE with target weights, focal heatmap loss, OHKM by
topk, peak NMS by max_pool2d, max_unpool2d, unfold, take_along_dim, associative-embedding
pull/push losses, HRNet fusion and PixelShuffle, hourglass stacks with intermediate supervision,
2-D to 3-D lifting with BatchNorm1d/Dropout and AdamW, DLT triangulation, temporal Conv1d
(dilation) smoothing, augmentation (rotation matrices, random erase, pads, antialiased resize),
SGD/nesterov with MultiStepLR and clipping, state_dict save/load, gradients at kinks and ties
(zero-vector norms, cosine similarity, cdist, equal maxima, topk/median/sort) and through
affine_grid + grid_sample in every mode (gradcheck, gradgradcheck), and the errors of these ops.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed: unravel_index took any float/NumPy/nested element of its shape (torch:
"expected 'shape' sequence to only contain ints, but got <class ...>"), refused a range (torch
takes any sequence) and raised OverflowError for a dimension past int64 (torch: ValueError
"Overflow when unpacking long long") (_windows.unravel_index).

Known and left (documented):
- unravel_index of a list or int (not a tensor): torch fails with an accidental AttributeError
  ("'list' object has no attribute 'is_complex'"); minitorch raises a TypeError naming the
  argument. Not recorded.
- conv_transpose2d whose output would be empty: torch's float32 (oneDNN) kernel fails with
  "could not construct a memory descriptor using a format tag", its float64 kernel with the
  "Output size is too small" message minitorch gives for both; recorded in float64 only.
- A bias feeding a softmax or a BatchNorm has an analytically zero gradient whose rounding noise
  Adam's normalisation amplifies into different steps; such layers are built without bias (as
  pose code usually does), so the programs compare real arithmetic, not noise."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "gaussian_targets", "deconv_head", "argmax_decode", "subpixel_refine", "soft_argmax",
    "integral_regression", "oks", "pck", "flip_test", "affine_crop", "paf",
    "weighted_mse", "ohkm", "train_sgd", "errors", "nms_peaks", "assoc_embed", "hourglass",
    "hrnet_fuse", "lifting_3d", "augment", "decode_edges", "meshgrid_grids", "grid_sample_more",
    "deconv_functional", "heatmap_scatter", "temporal_tcn", "oks_loss", "state_dict",
    "edge_grads",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---

FLIP_PAIRS = [(1, 2), (3, 4)]
SIGMAS = [0.26, 0.25, 0.25, 0.35, 0.35]


def _gaussian_heatmaps(lib, joints, vis, h, w, sigma, dt):
    """joints (N, K, 2) in heatmap pixels -> (N, K, h, w) targets and (N, K, 1) weights."""
    ys = lib.arange(h, dtype=dt)
    xs = lib.arange(w, dtype=dt)
    yy, xx = lib.meshgrid(ys, xs, indexing="ij")
    mx = joints[..., 0, None, None]
    my = joints[..., 1, None, None]
    g = lib.exp(-((xx - mx) ** 2 + (yy - my) ** 2) / (2 * sigma**2))
    inside = (joints[..., 0] >= 0) & (joints[..., 0] < w) & (joints[..., 1] >= 0)
    inside = inside & (joints[..., 1] < h)
    weight = (vis > 0) & inside
    return g * weight[..., None, None].to(dt), weight.unsqueeze(-1).to(dt)


def _head(lib, cin, k, dt):
    nn = lib.nn
    return nn.Sequential(
        nn.ConvTranspose2d(cin, 8, 4, stride=2, padding=1, output_padding=0, bias=False),
        nn.BatchNorm2d(8),
        nn.ReLU(inplace=True),
        nn.Conv2d(8, k, kernel_size=1),
    ).to(dt)


def _argmax_decode(lib, hm):
    n, k, h, w = hm.shape
    flat = hm.reshape(n, k, -1)
    maxvals, idx = lib.max(flat, dim=2)
    xs = (idx % w).to(hm.dtype)
    ys = lib.div(idx, w, rounding_mode="floor").to(hm.dtype)
    coords = lib.stack([xs, ys], dim=-1)
    mask = (maxvals > 0).unsqueeze(-1)
    return coords * mask, maxvals, idx


def _soft_argmax(lib, hm, beta=1.0):
    n, k, h, w = hm.shape
    p = lib.softmax(hm.reshape(n, k, -1) * beta, dim=-1).reshape(n, k, h, w)
    xs = lib.arange(w, dtype=hm.dtype)
    ys = lib.arange(h, dtype=hm.dtype)
    x = (p.sum(dim=2) * xs).sum(dim=-1)
    y = (p.sum(dim=3) * ys).sum(dim=-1)
    return lib.stack((x, y), dim=-1), p


def _joints(lib, dt):
    lib.manual_seed(0)
    j = lib.rand(2, 5, 2, dtype=dt) * lib.tensor([16.0, 12.0], dtype=dt)
    vis = lib.tensor([[1, 1, 0, 2, 2], [2, 0, 1, 1, 2]])
    return j, vis


# --- the programs: each takes the library, a dtype and a recorder ---


def p_gaussian_targets(lib, dt, rec):
    j, vis = _joints(lib, dt)
    j[1, 4] = lib.tensor([17.5, 3.0], dtype=dt)  # outside the map
    hm, w = _gaussian_heatmaps(lib, j, vis, 12, 16, 2.0, dt)
    rec("hm", hm)
    rec("w", w)
    rec("peak", hm.amax(dim=(2, 3)))
    # the integer-centred, truncated window of SimpleBaseline's numpy code
    size = 2 * 3 * 2 + 1
    x = lib.arange(0, size, 1, dtype=dt)
    y = x[:, None]
    x0 = y0 = size // 2
    g = lib.exp(-((x - x0) ** 2 + (y - y0) ** 2) / (2 * 2.0**2))
    rec("window", g)
    mu = (j + 0.5).floor().long()
    rec("mu", mu)
    ul = mu - 6
    br = mu + 7
    rec("ul_br", lib.cat([ul, br], dim=-1))
    canvas = lib.zeros(12, 16, dtype=dt)
    ux, uy = ul[0, 0].tolist()
    bx, by = br[0, 0].tolist()
    gx = (max(0, -ux), min(bx, 16) - ux)
    gy = (max(0, -uy), min(by, 12) - uy)
    ix = (max(0, ux), min(bx, 16))
    iy = (max(0, uy), min(by, 12))
    canvas[iy[0] : iy[1], ix[0] : ix[1]] = g[gy[0] : gy[1], gx[0] : gx[1]]
    rec("canvas", canvas)
    rec("canvas_sum", canvas.sum())
    # torch.maximum to merge the same joint of several people
    both = lib.maximum(hm[0], hm[1])
    rec("merged", both)
    rec("argmax", both.flatten(1).argmax(dim=1))


def p_deconv_head(lib, dt, rec):
    lib.manual_seed(1)
    head = _head(lib, 6, 5, dt)
    x = lib.randn(2, 6, 6, 8, dtype=dt)
    out = head(x)
    rec("shape", str(tuple(out.shape)))
    rec("out", out)
    rec("repr", repr(head))
    # output_size picks output_padding
    up = lib.nn.ConvTranspose2d(6, 3, 3, stride=2, padding=1).to(dt)
    y = up(x, output_size=[12, 16])
    rec("outsize", y)
    rec.err("bad_outsize", lambda: up(x, output_size=[14, 18]))
    # bilinear upsampling head, align_corners both ways
    F = lib.nn.functional
    rec("up_ac", F.interpolate(x[:, :2], scale_factor=2, mode="bilinear", align_corners=True))
    rec("up_nac", F.interpolate(x[:, :2], size=(9, 13), mode="bilinear", align_corners=False))
    rec("up_near", lib.nn.Upsample(scale_factor=2, mode="nearest")(x[:, :1]))
    head.eval()
    rec("eval_out", head(x))
    out.sum().backward()
    rec.params("p", head, grads=True)


def p_argmax_decode(lib, dt, rec):
    lib.manual_seed(2)
    hm = lib.randn(2, 4, 6, 7, dtype=dt)
    hm[1, 2] = -1.0  # all-negative map: masked out
    coords, maxvals, idx = _argmax_decode(lib, hm)
    rec("coords", coords)
    rec("maxvals", maxvals)
    rec("idx", idx)
    # unravel_index gives the same
    r, c = lib.unravel_index(idx, (6, 7))
    rec("unravel", lib.stack([c, r], -1))
    rec("unravel_tuple", str(type(lib.unravel_index(lib.tensor(9), (6, 7))).__name__))
    rec("unravel_scalar", lib.stack(lib.unravel_index(lib.tensor(41), (6, 7))))
    rec("divmod_remainder", lib.remainder(idx, 7))
    rec("floor_divide", lib.floor_divide(idx, 7))
    rec("trunc", lib.div(idx - 20, 7, rounding_mode="trunc"))
    rec("floor_neg", lib.div(idx - 20, 7, rounding_mode="floor"))
    rec("true_div", idx / 7)
    rec("fmod_neg", lib.fmod(idx - 20, 7))
    rec("rem_neg", (idx - 20) % 7)
    # topk per map (multi-person candidates)
    vals, inds = hm.flatten(2).topk(3, dim=-1)
    rec("topk_vals", vals)
    rec("topk_inds", inds)
    # max with keepdim / argmax
    rec("argmax_keep", hm.flatten(2).argmax(-1, keepdim=True))
    m = hm.flatten(2).max(-1)
    rec("max_nt", str(type(m).__name__))
    rec("max_fields", m.values - maxvals)
    rec.err("unravel_float", lambda: lib.unravel_index(lib.tensor([1.0]), (6, 7)))
    rec.err("unravel_oob", lambda: lib.unravel_index(lib.tensor([42]), (6, 7)))
    rec.err("unravel_neg", lambda: lib.unravel_index(lib.tensor([1]), (6, -7)))
    rec.err("div_mode", lambda: lib.div(idx, 7, rounding_mode="round"))


def p_subpixel_refine(lib, dt, rec):
    lib.manual_seed(3)
    j, vis = _joints(lib, dt)
    hm, _ = _gaussian_heatmaps(lib, j, lib.ones_like(vis), 12, 16, 1.5, dt)
    hm = hm + 0.01 * lib.rand(hm.shape, dtype=dt)
    coords, maxvals, idx = _argmax_decode(lib, hm)
    n, k, h, w = hm.shape
    px = coords[..., 0].long()
    py = coords[..., 1].long()
    flat = hm.reshape(n, k, -1)
    # gather right/left/down/up neighbours, clamped at the border
    right = (py * w + (px + 1).clamp(max=w - 1)).unsqueeze(-1)
    left = (py * w + (px - 1).clamp(min=0)).unsqueeze(-1)
    down = ((py + 1).clamp(max=h - 1) * w + px).unsqueeze(-1)
    up = ((py - 1).clamp(min=0) * w + px).unsqueeze(-1)
    nb = lib.cat([flat.gather(2, t) for t in (right, left, down, up)], dim=-1)
    rec("nb", nb)
    diff = lib.stack([nb[..., 0] - nb[..., 1], nb[..., 2] - nb[..., 3]], dim=-1)
    refined = coords + lib.sign(diff) * 0.25
    rec("refined", refined)
    rec("err", (refined - j).norm(dim=-1))
    # DARK-style Taylor refinement with log heatmaps
    lg = lib.log(hm.clamp(min=1e-10))
    pad = lib.nn.functional.pad(lg, (1, 1, 1, 1), mode="replicate")
    b = lib.arange(n)[:, None]
    kk = lib.arange(k)[None, :]
    yy, xx = py + 1, px + 1
    dx = 0.5 * (pad[b, kk, yy, xx + 1] - pad[b, kk, yy, xx - 1])
    dy = 0.5 * (pad[b, kk, yy + 1, xx] - pad[b, kk, yy - 1, xx])
    dxx = pad[b, kk, yy, xx + 1] - 2 * pad[b, kk, yy, xx] + pad[b, kk, yy, xx - 1]
    dyy = pad[b, kk, yy + 1, xx] - 2 * pad[b, kk, yy, xx] + pad[b, kk, yy - 1, xx]
    dxy = 0.25 * (
        pad[b, kk, yy + 1, xx + 1]
        - pad[b, kk, yy - 1, xx + 1]
        - pad[b, kk, yy + 1, xx - 1]
        + pad[b, kk, yy - 1, xx - 1]
    )
    hess = lib.stack([lib.stack([dxx, dxy], -1), lib.stack([dxy, dyy], -1)], -2)
    det = lib.linalg.det(hess)
    rec("det", det)
    ok = det.abs() > 1e-6
    safe = lib.where(ok[..., None, None], hess, lib.eye(2, dtype=dt))
    step = -lib.linalg.solve(safe, lib.stack([dx, dy], -1).unsqueeze(-1)).squeeze(-1)
    rec("dark", coords + step * ok[..., None])
    # blur with a fixed gaussian kernel via grouped conv, like DARK's modulation
    ker = lib.exp(-(lib.arange(-2, 3, dtype=dt) ** 2) / 2.0)
    ker = ker[:, None] * ker[None, :]
    ker = (ker / ker.sum()).expand(k, 1, 5, 5)
    blurred = lib.nn.functional.conv2d(hm, ker, padding=2, groups=k)
    rec("blur", blurred)
    rec("blur_norm", blurred * (hm.amax((2, 3), keepdim=True) / blurred.amax((2, 3), keepdim=True)))


def p_soft_argmax(lib, dt, rec):
    lib.manual_seed(4)
    hm = lib.randn(2, 3, 5, 6, dtype=dt, requires_grad=True)
    xy, p = _soft_argmax(lib, hm, beta=3.0)
    rec("xy", xy)
    rec("psum", p.sum((2, 3)))
    # DSNT with normalised [-1, 1] grids
    n, k, h, w = hm.shape
    gx = (2 * lib.arange(w, dtype=dt) + 1) / w - 1
    gy = (2 * lib.arange(h, dtype=dt) + 1) / h - 1
    prob = lib.nn.functional.softmax(hm.flatten(2), -1).view_as(hm)
    ex = lib.einsum("nkhw,w->nk", prob, gx)
    ey = lib.einsum("nkhw,h->nk", prob, gy)
    rec("dsnt", lib.stack([ex, ey], -1))
    # variance regulariser
    vx = lib.einsum("nkhw,nkhw->nk", prob, (gx.view(1, 1, 1, w) - ex[..., None, None]) ** 2)
    rec("var", vx)
    target = lib.zeros(n, k, 2, dtype=dt)
    loss = lib.nn.functional.mse_loss(xy / 5.0, target) + 0.1 * vx.mean()
    loss.backward()
    rec("grad", hm.grad)
    # log-softmax spatial + temperature
    ls = lib.log_softmax(hm.detach().flatten(2) / 0.5, dim=-1)
    rec("lse", ls.exp().sum(-1))
    # 3-D soft argmax (depth bins)
    vol = lib.randn(1, 2, 3, 4, 5, dtype=dt)
    pv = vol.flatten(2).softmax(-1).view_as(vol)
    z = (pv.sum((3, 4)) * lib.arange(3, dtype=dt)).sum(-1)
    rec("z", z)
    # gradcheck of the soft argmax in float64 only
    if dt == lib.float64:
        small = lib.randn(1, 1, 3, 4, dtype=dt, requires_grad=True)
        ok = lib.autograd.gradcheck(lambda t: _soft_argmax(lib, t)[0], (small,))
        rec("gradcheck", ok)
        ok2 = lib.autograd.gradgradcheck(lambda t: _soft_argmax(lib, t)[0], (small,))
        rec("gradgradcheck", ok2)


def p_integral_regression(lib, dt, rec):
    lib.manual_seed(5)
    nn, F = lib.nn, lib.nn.functional
    # no bias: a softmax is blind to a per-map constant, so its gradient is rounding noise
    # that Adam would blow up
    head = nn.Conv2d(4, 3, 3, padding=1, bias=False).to(dt)
    feats = lib.randn(2, 4, 6, 6, dtype=dt)
    target = lib.rand(2, 3, 2, dtype=dt) * 5
    tw = lib.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], dtype=dt)
    opt = lib.optim.Adam(head.parameters(), lr=0.05)
    for step in range(4):
        opt.zero_grad()
        hm = head(feats)
        xy, _ = _soft_argmax(lib, hm)
        loss = (F.l1_loss(xy, target, reduction="none") * tw[..., None]).sum() / tw.sum()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", head, grads=True)
    # smooth_l1 and its beta
    rec("sl1", F.smooth_l1_loss(xy, target, beta=0.5))
    rec("huber", F.huber_loss(xy, target, delta=2.0, reduction="sum"))
    rec.err("l1_shape", lambda: F.l1_loss(xy, target[:, :2]))
    rec.warns("mse_bcast", lambda: F.mse_loss(xy, target[:, :1]))


def p_oks(lib, dt, rec):
    lib.manual_seed(6)
    gt = lib.rand(3, 5, 2, dtype=dt) * 100
    pred = gt + lib.randn(4, 1, 5, 2, dtype=dt) * 3
    vis = lib.tensor([[2, 2, 1, 0, 2], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]])
    area = lib.tensor([900.0, 1600.0, 400.0], dtype=dt)
    sig = lib.tensor(SIGMAS, dtype=dt)
    var = (2 * sig) ** 2
    d2 = ((pred - gt[None]) ** 2).sum(-1)  # (4, 3, 5)
    e = d2 / var / (area[:, None] + lib.finfo(dt).eps) / 2
    m = (vis > 0).to(dt)
    oks = (lib.exp(-e) * m).sum(-1) / m.sum(-1).clamp(min=1)
    rec("oks", oks)
    rec("cdist", lib.cdist(pred[:, 0].flatten(1), gt.flatten(1)))
    # greedy matching by sorted scores
    order = oks.max(1).values.argsort(descending=True)
    rec("order", order)
    thr = lib.arange(0.5, 1.0, 0.05, dtype=dt)
    rec("thr", thr)
    rec("ap_hits", (oks.max(0).values[None, :] >= thr[:, None]).sum(-1))
    rec("mean_over", (oks[:, :2] > thr[:, None, None]).to(dt).mean((1, 2)))
    rec("nan_mean", lib.nanmean(lib.where(m.sum(-1) > 0, oks, lib.nan)))
    rec("finfo", str(lib.finfo(dt)))


def p_pck(lib, dt, rec):
    lib.manual_seed(7)
    gt = lib.rand(4, 5, 2, dtype=dt) * 64
    pred = gt + lib.randn(4, 5, 2, dtype=dt) * 4
    vis = lib.rand(4, 5) > 0.2
    bbox = lib.tensor([30.0, 40.0, 25.0, 50.0], dtype=dt)
    head = lib.linalg.vector_norm(gt[:, 1] - gt[:, 2], dim=-1)
    dist = lib.linalg.norm(pred - gt, dim=-1)
    rec("dist", dist)
    for name, norm in (("bbox", bbox), ("head", head)):
        nd = dist / norm[:, None]
        hit = (nd <= 0.2) & vis
        per_joint = hit.sum(0).to(dt) / vis.sum(0).clamp(min=1).to(dt)
        rec("pck_" + name, per_joint)
        rec("mean_" + name, per_joint[vis.sum(0) > 0].mean())
    # AUC over thresholds
    ts = lib.linspace(0, 0.5, 11, dtype=dt)
    curve = ((dist[None] / bbox[None, :, None] <= ts[:, None, None]) & vis).sum((1, 2))
    curve = curve.to(dt) / vis.sum()
    rec("curve", curve)
    rec("auc", lib.trapezoid(curve, ts) / 0.5)
    rec("auc_dx", lib.trapz(curve, dx=0.05))
    rec("median", dist[vis].median())
    rec("quant", lib.quantile(dist[vis], lib.tensor([0.25, 0.75], dtype=dt)))
    rec("mpjpe", (pred - gt).norm(dim=-1).mean())
    # procrustes-aligned MPJPE
    a = gt[0] - gt[0].mean(0)
    b = pred[0] - pred[0].mean(0)
    u, s, vh = lib.linalg.svd(b.T @ a)
    r = u @ vh
    scale = s.sum() / (b**2).sum()
    rec("pa_mpjpe", ((scale * b @ r) - a).norm(dim=-1).mean())
    rec("det_r", lib.linalg.det(r).abs())


def p_flip_test(lib, dt, rec):
    lib.manual_seed(8)
    head = _head(lib, 3, 5, dt).eval()
    img = lib.randn(2, 3, 6, 8, dtype=dt)
    out = head(img)
    flipped = head(lib.flip(img, dims=[3]))
    perm = list(range(5))
    for a, b in FLIP_PAIRS:
        perm[a], perm[b] = b, a
    back = flipped.flip(3)[:, perm]
    rec("perm", str(perm))
    rec("back", back)
    # shift by one pixel as in HRNet's test config
    shifted = back.clone()
    shifted[:, :, :, 1:] = back.clone()[:, :, :, :-1]
    avg = (out + shifted) * 0.5
    rec("avg", avg)
    rec("idx_select", lib.index_select(flipped, 1, lib.tensor(perm)))
    rec("fliplr", lib.fliplr(img[0, 0]))
    rec("flipud", lib.flipud(img[0, 0]))
    # flip keypoint coordinates
    kp = lib.rand(2, 5, 3, dtype=dt) * 8
    kf = kp.clone()
    kf[..., 0] = 8 - 1 - kf[..., 0]
    kf = kf[:, perm]
    rec("kf", kf)
    rec("roll", lib.roll(back, shifts=1, dims=3))
    rec.err("flip_dup", lambda: img.flip(3, 3))
    rec.err("flip_range", lambda: img.flip(4))
    rec.err("perm_index", lambda: flipped[:, lib.tensor([0, 5])])


def p_affine_crop(lib, dt, rec):
    lib.manual_seed(9)
    F = lib.nn.functional
    img = lib.randn(2, 3, 10, 12, dtype=dt, requires_grad=True)
    ang = lib.tensor([0.3, -0.5], dtype=dt)
    sc = lib.tensor([0.8, 1.2], dtype=dt)
    c, s = lib.cos(ang) * sc, lib.sin(ang) * sc
    t = lib.tensor([[0.1, -0.2], [0.0, 0.3]], dtype=dt)
    theta = lib.stack([lib.stack([c, -s, t[:, 0]], -1), lib.stack([s, c, t[:, 1]], -1)], 1)
    rec("theta", theta)
    for ac in (False, True):
        grid = F.affine_grid(theta, [2, 3, 8, 6], align_corners=ac)
        rec(f"grid{ac}", grid)
        for mode in ("bilinear", "nearest"):
            for pm in ("zeros", "border", "reflection"):
                out = F.grid_sample(img, grid, mode=mode, padding_mode=pm, align_corners=ac)
                rec(f"out_{ac}_{mode}_{pm}", out)
    out = F.grid_sample(img, grid, align_corners=True)
    (out * lib.linspace(-1, 1, 6, dtype=dt)).sum().backward()
    rec("gimg", img.grad)
    # inverse transform of keypoints: homogeneous coords
    kp = lib.rand(2, 5, 2, dtype=dt) * 2 - 1
    hom = lib.cat([kp, lib.ones(2, 5, 1, dtype=dt)], -1)
    moved = hom @ theta.transpose(1, 2)
    full = lib.cat([theta, lib.tensor([0.0, 0.0, 1.0], dtype=dt).expand(2, 1, 3)], 1)
    inv = lib.linalg.inv(full)
    back = (lib.cat([moved, lib.ones(2, 5, 1, dtype=dt)], -1) @ inv.transpose(1, 2))[..., :2]
    rec("roundtrip", back - kp)
    rec("bmm", lib.bmm(hom, theta.transpose(1, 2)) - moved)
    rec.err(
        "grid_bad_theta", lambda: F.affine_grid(theta[:, :1], [2, 3, 8, 6], align_corners=False)
    )
    rec.err("grid_bad_size", lambda: F.affine_grid(theta, [2, 3, 8], align_corners=False))
    rec.err("gs_mode", lambda: F.grid_sample(img, grid, mode="cubic", align_corners=False))
    rec.err("gs_pad", lambda: F.grid_sample(img, grid, padding_mode="wrap", align_corners=False))
    rec.err("gs_batch", lambda: F.grid_sample(img, grid[:1], align_corners=False))
    rec.err("gs_dtype", lambda: F.grid_sample(img.float(), grid.double(), align_corners=False))
    rec.warns("grid_warn", lambda: F.affine_grid(theta, [2, 3, 8, 6]))


def p_paf(lib, dt, rec):
    lib.manual_seed(10)
    h, w = 9, 11
    a = lib.tensor([[2.0, 3.0], [8.0, 1.0]], dtype=dt)
    b = lib.tensor([[7.0, 6.0], [3.0, 7.0]], dtype=dt)
    yy, xx = lib.meshgrid(lib.arange(h, dtype=dt), lib.arange(w, dtype=dt), indexing="ij")
    p = lib.stack([xx, yy], -1)  # (h, w, 2)
    v = b - a
    length = lib.linalg.norm(v, dim=-1, keepdim=True)
    u = v / length
    rec("u", u)
    rel = p[None] - a[:, None, None]
    along = (rel * u[:, None, None]).sum(-1)
    cross = rel[..., 0] * u[:, None, None, 1] - rel[..., 1] * u[:, None, None, 0]
    rec("cross", cross)
    mask = (along >= 0) & (along <= length[..., None]) & (cross.abs() <= 1.0)
    rec("mask", mask)
    paf = (u[:, None, None] * mask[..., None].to(dt)).sum(0)
    cnt = mask.sum(0, keepdim=True).T if False else mask.sum(0)
    paf = paf / cnt.clamp(min=1)[..., None].to(dt)
    rec("paf", paf)
    # 3-D cross products with linalg.cross and torch.cross(dim=)
    v3 = lib.cat([v, lib.zeros(2, 1, dtype=dt)], -1)
    r3 = lib.cat([rel.flatten(1, 2), lib.zeros(2, h * w, 1, dtype=dt)], -1)
    rec("lcross", lib.linalg.cross(v3[:, None].expand(-1, h * w, -1), r3)[..., 2])
    rec("cross_dim", lib.cross(v3, v3.flip(0), dim=1))
    # line integral scoring between candidate pairs
    steps = lib.linspace(0, 1, 10, dtype=dt)
    pts = a[:, None] + steps[None, :, None] * v[:, None]
    ix = pts[..., 0].round().long().clamp(0, w - 1)
    iy = pts[..., 1].round().long().clamp(0, h - 1)
    sampled = paf[iy, ix]
    score = (sampled * u[:, None]).sum(-1)
    rec("score", score.mean(-1))
    rec("hits", (score > 0.05).sum(-1))
    rec("angle", lib.atan2(v[:, 1], v[:, 0]))
    rec("cos_sim", lib.nn.functional.cosine_similarity(v, v.flip(0), dim=-1))
    rec("normalize", lib.nn.functional.normalize(v, dim=-1))
    rec.err("cross_shape", lambda: lib.linalg.cross(v3, v3[:1, :2]))
    rec.err("cross_dim3", lambda: lib.linalg.cross(v, v))


def p_weighted_mse(lib, dt, rec):
    lib.manual_seed(11)
    j, vis = _joints(lib, dt)
    target, tw = _gaussian_heatmaps(lib, j, vis, 12, 16, 2.0, dt)
    pred = lib.randn(2, 5, 12, 16, dtype=dt, requires_grad=True)
    crit = lib.nn.MSELoss(reduction="mean")
    n, k = pred.shape[:2]
    hp = pred.reshape(n, k, -1).split(1, 1)
    ht = target.reshape(n, k, -1).split(1, 1)
    loss = 0
    for i in range(k):
        loss = loss + 0.5 * crit(hp[i].squeeze(1) * tw[:, i], ht[i].squeeze(1) * tw[:, i])
    loss = loss / k
    rec("loss", loss)
    loss.backward()
    rec("grad", pred.grad)
    # vectorised form
    pred2 = pred.detach().requires_grad_()
    per = ((pred2 - target) ** 2 * tw[..., None]).mean(dim=(2, 3))
    rec("per", per)
    l2 = 0.5 * per.mean()
    l2.backward()
    rec("grad2", pred2.grad)
    rec("none", lib.nn.functional.mse_loss(pred2, target, reduction="none").shape)
    rec("sum", lib.nn.MSELoss(reduction="sum")(pred2, target))
    rec.err("reduction", lambda: lib.nn.MSELoss(reduction="avg")(pred2, target))
    rec.err("int_target", lambda: lib.nn.functional.mse_loss(pred2, target.long()))
    rec("repr", repr(crit))
    # focal-style heatmap loss (CornerNet/CenterNet)
    p = lib.sigmoid(pred.detach()).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).to(dt)
    neg = 1 - pos
    nw = lib.pow(1 - target, 4)
    pl = lib.log(p) * lib.pow(1 - p, 2) * pos
    nl = lib.log(1 - p) * lib.pow(p, 2) * nw * neg
    rec("focal", -(pl.sum() + nl.sum()) / pos.sum().clamp(min=1))
    rec("bce", lib.nn.functional.binary_cross_entropy_with_logits(pred.detach(), target))


def p_ohkm(lib, dt, rec):
    lib.manual_seed(12)
    j, vis = _joints(lib, dt)
    target, tw = _gaussian_heatmaps(lib, j, vis, 12, 16, 2.0, dt)
    pred = lib.randn(2, 5, 12, 16, dtype=dt, requires_grad=True)
    topk = 3
    crit = lib.nn.MSELoss(reduction="none")
    per = 0.5 * crit(pred * tw[..., None], target * tw[..., None]).mean(dim=(2, 3))
    rec("per", per)
    losses = []
    for i in range(per.size(0)):
        _, idx = lib.topk(per[i], k=topk, dim=0, sorted=False)
        losses.append(lib.gather(per[i], 0, idx).sum() / topk)
    loss = lib.stack(losses).mean()
    rec("loss", loss)
    vals, _ = per.topk(topk, dim=1)
    rec("vec_loss", (vals.sum(1) / topk).mean())
    loss.backward()
    rec("grad", pred.grad)
    rec.err("topk_big", lambda: per.topk(6, dim=1))
    rec.err("topk_dim", lambda: per.topk(2, dim=2))
    rec("topk_smallest", per.topk(2, dim=1, largest=False).values)
    rec("sort", per.sort(dim=1, descending=True).values)
    rec("kth", per.kthvalue(2, dim=1).values)


def p_train_sgd(lib, dt, rec):
    lib.manual_seed(13)
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=2, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.ConvTranspose2d(8, 8, 4, 2, 1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Conv2d(8, 5, 1),
    ).to(dt)
    j, vis = _joints(lib, dt)
    target, tw = _gaussian_heatmaps(lib, j * 0.75, vis, 12, 16, 1.5, dt)
    img = lib.randn(2, 3, 12, 16, dtype=dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, nesterov=True)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3], gamma=0.1)
    for step in range(4):
        opt.zero_grad()
        out = model(img)
        loss = 0.5 * (((out - target) ** 2) * tw[..., None]).mean()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr()[0])
    rec.params("p", model)
    rec("running_mean", model[1].running_mean)
    rec("running_var", model[4].running_var)
    rec("nbt", model[1].num_batches_tracked)
    model.eval()
    with lib.no_grad():
        pred = model(img)
    coords, maxvals, _ = _argmax_decode(lib, pred)
    rec("coords", coords)
    rec("maxvals", maxvals)


def p_errors(lib, dt, rec):
    x = lib.ones(2, 5, 6, 8, dtype=dt)
    F = lib.nn.functional
    rec.err("softmax_dim", lambda: x.flatten(2).softmax(3))
    rec.err("view", lambda: x.transpose(2, 3).view(2, 5, -1))
    rec.err("gather_dims", lambda: x.flatten(2).gather(2, lib.zeros(2, 5, dtype=lib.long)))
    rec.err("gather_dtype", lambda: x.flatten(2).gather(2, lib.zeros(2, 5, 1, dtype=lib.int32)))
    rec.err("gather_oob", lambda: x.flatten(2).gather(2, lib.full((2, 5, 1), 48)))
    rec.err("meshgrid_idx", lambda: lib.meshgrid(lib.arange(3), lib.arange(2), indexing="xyz"))
    rec.err("meshgrid_2d", lambda: lib.meshgrid(lib.ones(2, 2), lib.arange(2), indexing="ij"))
    rec.err("deconv_ch", lambda: lib.nn.ConvTranspose2d(4, 5, 4, 2, 1).to(dt)(x))
    rec.err("conv_ch", lambda: lib.nn.Conv2d(4, 5, 1).to(dt)(x))
    rec.err("deconv_opad", lambda: lib.nn.ConvTranspose2d(5, 5, 3, 1, output_padding=1))
    rec.err("interp_mode", lambda: F.interpolate(x, scale_factor=2, mode="cubic"))
    rec.err(
        "interp_ac", lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True)
    )
    rec.err("interp_both", lambda: F.interpolate(x, size=(4, 4), scale_factor=2))
    rec.err("interp_none", lambda: F.interpolate(x))
    rec.err("stack_shapes", lambda: lib.stack([lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)]))
    rec.err("bn_dims", lambda: lib.nn.BatchNorm2d(5).to(dt)(x[0, 0]))
    rec.err("mse_dtype", lambda: F.mse_loss(x, x.float() if dt == lib.float64 else x.double()))
    rec.err("argmax_dim", lambda: x.argmax(4))
    rec.err("exp_long", lambda: lib.exp(lib.arange(3)).dtype)
    rec("exp_long_dtype", str(lib.exp(lib.arange(3)).dtype))
    rec.err("div_long_floor", lambda: lib.div(lib.arange(5), 0, rounding_mode="floor"))
    rec.err("rem_zero", lambda: lib.remainder(lib.arange(5), 0))
    rec("div_float_zero", lib.div(lib.arange(5, dtype=dt) - 2, 0, rounding_mode="floor"))
    rec.err("flip_neg", lambda: x.flip(-5))
    rec.err("expand", lambda: x.expand(3, 5, 6, 8))
    rec.err("norm_dim", lambda: lib.linalg.vector_norm(x, dim=4))


def p_unravel(lib, rec):
    idx = lib.tensor([[0, 5, 41], [13, 20, 7]])
    for shape in ((6, 7), [6, 7], lib.Size([6, 7]), (2, 3, 7), 42, (42,)):
        out = lib.unravel_index(idx, shape)
        rec(f"out{shape}", lib.stack(out))
        rec(f"type{shape}", f"{type(out).__name__} {len(out)} {out[0].dtype}")
    rec("zero_d", lib.stack(lib.unravel_index(lib.tensor(17), (6, 7))))
    rec("empty", str(lib.unravel_index(lib.zeros(0, dtype=lib.long), (6, 7))))
    rec("int32", str(lib.unravel_index(lib.tensor([8], dtype=lib.int32), (6, 7))))
    rec("neg", lib.stack(lib.unravel_index(lib.tensor([-1, -42]), (6, 7))))
    rec("empty_shape", str(lib.unravel_index(lib.tensor(0), ())))
    rec.err("neg_oob", lambda: lib.unravel_index(lib.tensor([-43]), (6, 7)))
    rec.err("bool", lambda: lib.unravel_index(lib.tensor([True]), (6, 7)))
    rec.err("float", lambda: lib.unravel_index(lib.tensor([1.5]), (6, 7)))
    rec.err("shape_float", lambda: lib.unravel_index(lib.tensor([1]), (6.0, 7)))
    rec.err("shape_np", lambda: lib.unravel_index(lib.tensor([1]), [6, np.int64(7)]))
    rec.err("shape_str", lambda: lib.unravel_index(lib.tensor([1]), "ab"))
    rec.err("shape_nested", lambda: lib.unravel_index(lib.tensor([1]), (6, [7])))
    rec("shape_range", lib.stack(lib.unravel_index(lib.tensor([5, 11]), range(3, 6))))
    rec("shape_bool", lib.stack(lib.unravel_index(lib.tensor([5]), [True, 7])))
    rec.err("shape_neg", lambda: lib.unravel_index(lib.tensor([1]), (-6, 7)))
    rec.err("shape_huge", lambda: lib.unravel_index(lib.tensor([1]), (2, 2**63)))
    rec("shape_big", lib.stack(lib.unravel_index(lib.tensor([5]), (2**32, 2**32))))
    rec.err("shape_tensor", lambda: lib.unravel_index(lib.tensor([1]), lib.tensor([6, 7])))
    rec.err("oob_scalar_shape", lambda: lib.unravel_index(lib.tensor([1]), ()))
    rec.err("zero_dim_shape", lambda: lib.unravel_index(lib.tensor([0]), (0, 7)))
    rec.err("divmod", lambda: divmod(idx, 7))
    rec("floordiv", idx // 7)
    rec("rfloordiv", 100 // (idx + 1))
    rec("mod", idx % 7)
    rec("rmod", 100 % (idx + 1))
    rec("neg_floordiv", (idx - 20) // 7)
    rec("neg_divisor", idx // -7)
    rec("float_div_long", lib.div(idx, 7))
    rec("floor_float", lib.div(idx.double() - 20.5, 7, rounding_mode="floor"))
    rec("trunc_float", lib.div(idx.float() - 20.5, 7, rounding_mode="trunc"))
    rec("rem_float_neg", lib.remainder(idx.double() - 20, -7.5))
    rec("fmod_float_neg", lib.fmod(idx.double() - 20, -7.5))
    rec("rem_scalar_tensor", lib.remainder(9, lib.tensor([4, -4])))
    rec.err("rem_int_zero", lambda: idx % 0)
    rec.err("floordiv_zero", lambda: idx // 0)
    rec("float_floordiv_zero", lib.tensor([1.0, -1.0, 0.0]) // 0)
    rec("float_rem_zero", lib.tensor([1.0, -1.0]) % 0)
    rec("int_div_true_zero", idx / 0)
    rec.err("rounding_bad", lambda: lib.div(idx, 7, rounding_mode="ceil"))
    rec("u8", lib.div(lib.tensor([200], dtype=lib.uint8), 3, rounding_mode="floor"))
    rec("i8_floor", lib.div(lib.tensor([-7], dtype=lib.int8), 2, rounding_mode="floor"))
    rec.err(
        "bool_floor", lambda: lib.div(lib.tensor([True]), lib.tensor([True]), rounding_mode="floor")
    )
    rec("inplace", idx.clone().div_(7, rounding_mode="floor"))
    rec.err("inplace_true", lambda: idx.clone().div_(7))
    rec("remainder_", idx.clone().remainder_(7))
    rec("floor_divide_", idx.clone().floor_divide_(7))


def p_nms_peaks(lib, dt, rec):
    lib.manual_seed(14)
    F = lib.nn.functional
    j = lib.tensor([[[3.0, 2.0], [10.0, 8.0], [4.0, 9.0]]], dtype=dt)
    hm, _ = _gaussian_heatmaps(lib, j, lib.ones(1, 3), 12, 16, 1.5, dt)
    hm = hm.sum(1, keepdim=True) + 0.001 * lib.rand(1, 1, 12, 16, dtype=dt)
    hmax = F.max_pool2d(hm, 3, stride=1, padding=1)
    keep = (hmax == hm).to(dt)
    peaks = hm * keep
    rec("keep", keep)
    nz = lib.nonzero(peaks[0, 0] > 0.5)
    rec("nonzero", nz)
    rec("argwhere", lib.argwhere(peaks[0, 0] > 0.5))
    rec("as_tuple", lib.stack(lib.nonzero(peaks[0, 0] > 0.5, as_tuple=True)))
    vals, inds = peaks.view(1, -1).topk(5)
    rec("vals", vals)
    ys, xs = inds // 16, inds % 16
    rec("yx", lib.stack([ys, xs], -1))
    # max_pool with indices recovers argmax positions
    pooled, where = F.max_pool2d(hm, 4, stride=4, return_indices=True)
    rec("pooled", pooled)
    rec("where", where)
    rec("unpool", F.max_unpool2d(pooled, where, 4, stride=4))
    # CenterNet keypoint offsets via take_along_dim / take
    off = lib.randn(1, 2, 12, 16, dtype=dt)
    flat = off.flatten(2)
    rec("take_along", lib.take_along_dim(flat, inds[:, None].expand(-1, 2, -1), dim=2))
    rec("take", lib.take(off[0, 0], inds[0]))
    rec("masked_select", lib.masked_select(hm, keep.bool() & (hm > 0.5)))
    rec("count", lib.count_nonzero(keep, dim=(2, 3)))
    rec("pool_ceil", F.max_pool2d(hm, 5, stride=3, padding=2, ceil_mode=True))
    rec.err("pool_pad", lambda: F.max_pool2d(hm, 3, stride=1, padding=2))
    rec("unfold", F.unfold(hm, 3, padding=1).shape)
    patches = F.unfold(hm, 3, padding=1).view(1, 9, 12, 16)
    rec("unfold_peak", (patches.argmax(1) == 4).to(dt))


def p_assoc_embed(lib, dt, rec):
    # associative embedding grouping loss: pull to each person's mean tag, push means apart
    lib.manual_seed(15)
    tags = lib.randn(2, 4, 6, 6, dtype=dt, requires_grad=True)
    joints = lib.randint(0, 36, (2, 3, 4))  # (N, people, K) flat locations
    vis = lib.rand(2, 3, 4) > 0.3
    flat = tags.flatten(2)  # (N, K, HW)
    picked = flat.gather(2, joints.transpose(1, 2)).transpose(1, 2)  # (N, P, K)
    vf = vis.to(dt)
    cnt = vf.sum(-1)
    mean = (picked * vf).sum(-1) / cnt.clamp(min=1)
    pull = (((picked - mean[..., None]) ** 2) * vf).sum(-1) / cnt.clamp(min=1)
    present = cnt > 0
    pull = (pull * present).sum(-1) / present.sum(-1).clamp(min=1)
    diff = mean[:, :, None] - mean[:, None, :]
    pm = present[:, :, None] & present[:, None, :]
    push = lib.exp(-(diff**2)) * pm
    n = present.sum(-1).to(dt)
    push = (push.sum((1, 2)) - n) / ((n - 1) * n).clamp(min=1) * 0.5
    rec("pull", pull)
    rec("push", push)
    loss = (pull + push).mean()
    loss.backward()
    rec("grad", tags.grad)
    # grouping by nearest tag via cdist + argmin
    cand = lib.randn(5, 1, dtype=dt)
    rec("assign", lib.cdist(cand, mean[0, :, None]).argmin(1))
    rec("dist", lib.cdist(cand, mean[0, :, None], p=1))
    rec("scatter", lib.zeros(3, dtype=dt).scatter_add(0, lib.tensor([0, 2, 2]), cand[:3, 0]))
    rec("index_add", lib.zeros(3, dtype=dt).index_add(0, lib.tensor([1, 1, 0]), cand[:3, 0]))
    rec("scatter_reduce", lib.zeros(3, dtype=dt).scatter_reduce(
        0, lib.tensor([0, 2, 2, 1, 0]), cand[:, 0], reduce="amax", include_self=False))  # fmt: skip
    rec("bincount", lib.bincount(lib.tensor([0, 2, 2, 1, 0]), minlength=4))


def p_hourglass(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    class Residual(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.bn = nn.BatchNorm2d(c)
            self.conv1 = nn.Conv2d(c, c // 2, 1)
            self.conv2 = nn.Conv2d(c // 2, c // 2, 3, padding=1)
            self.conv3 = nn.Conv2d(c // 2, c, 1)

        def forward(self, x):
            y = self.conv3(F.relu(self.conv2(F.relu(self.conv1(F.relu(self.bn(x)))))))
            return x + y

    class Hourglass(nn.Module):
        def __init__(self, depth, c):
            super().__init__()
            self.up1 = Residual(c)
            self.low1 = Residual(c)
            self.low2 = Hourglass(depth - 1, c) if depth > 1 else Residual(c)
            self.low3 = Residual(c)

        def forward(self, x):
            up = self.up1(x)
            low = self.low3(self.low2(self.low1(F.max_pool2d(x, 2, 2))))
            return up + F.interpolate(low, scale_factor=2, mode="nearest")

    lib.manual_seed(16)
    stacks = nn.ModuleList([Hourglass(2, 8) for _ in range(2)]).to(dt)
    outs = nn.ModuleList([nn.Conv2d(8, 3, 1) for _ in range(2)]).to(dt)
    merge = nn.ModuleList([nn.Conv2d(3, 8, 1)]).to(dt)
    x = lib.randn(2, 8, 8, 8, dtype=dt)
    target = lib.rand(2, 3, 8, 8, dtype=dt)
    preds = []
    h = x
    for i in range(2):
        y = stacks[i](h)
        p = outs[i](y)
        preds.append(p)
        if i < 1:
            h = h + y + merge[i](p)
    stacked = lib.stack(preds, 1)
    rec("stacked", stacked)
    loss = sum(F.mse_loss(p, target) for p in preds)
    rec("loss", loss)
    loss.backward()
    rec.params("p", stacks[0].low2, grads=True)
    rec("n_params", sum(p.numel() for p in stacks.parameters()))
    rec("modules", str([n for n, _ in stacks[0].named_children()]))


def p_hrnet_fuse(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    hi = lib.randn(1, 4, 8, 8, dtype=dt)
    lo = lib.randn(1, 8, 4, 4, dtype=dt)
    down = nn.Sequential(nn.Conv2d(4, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8)).to(dt)
    up = nn.Sequential(nn.Conv2d(8, 4, 1, bias=False), nn.BatchNorm2d(4)).to(dt)
    fused_hi = F.relu(hi + F.interpolate(up(lo), scale_factor=2, mode="nearest"))
    fused_lo = F.relu(lo + down(hi))
    rec("hi", fused_hi)
    rec("lo", fused_lo)
    ups = F.interpolate(lo, size=hi.shape[2:], mode="bilinear", align_corners=False)
    cat = lib.cat([hi, ups], 1)
    rec("cat", cat)
    final = nn.Conv2d(12, 3, 1).to(dt)
    out = final(cat)
    rec("out", out)
    (out.sum() + fused_hi.mean() + fused_lo.std()).backward()
    rec.params("down", down, grads=True)
    rec.params("final", final, grads=True)
    ps = nn.PixelShuffle(2)
    rec("pixshuf", ps(lo))
    rec("pixunshuf", nn.PixelUnshuffle(2)(hi))
    rec("bicubic", F.interpolate(lo, scale_factor=2, mode="bicubic", align_corners=False))
    rec("area", F.adaptive_avg_pool2d(hi, (3, 5)))


def p_lifting_3d(lib, dt, rec):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            # no bias before a BatchNorm: its gradient is rounding noise that Adam blows up
            self.l1 = nn.Linear(d, d, bias=False)
            self.bn1 = nn.BatchNorm1d(d)
            self.l2 = nn.Linear(d, d, bias=False)
            self.bn2 = nn.BatchNorm1d(d)
            self.drop = nn.Dropout(0.25)

        def forward(self, x):
            y = self.drop(lib.relu(self.bn1(self.l1(x))))
            y = self.drop(lib.relu(self.bn2(self.l2(y))))
            return x + y

    lib.manual_seed(18)
    k = 5
    model = nn.Sequential(nn.Linear(2 * k, 16), Block(16), nn.Linear(16, 3 * k)).to(dt)
    x2d = lib.randn(8, k, 2, dtype=dt)
    y3d = lib.randn(8, k, 3, dtype=dt)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for step in range(3):
        opt.zero_grad()
        pred = model(x2d.flatten(1)).view(-1, k, 3)
        root = pred - pred[:, :1]
        loss = lib.linalg.norm(root - (y3d - y3d[:, :1]), dim=-1).mean()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
    model.eval()
    with lib.no_grad():
        pred = model(x2d.flatten(1)).view(-1, k, 3)
    rec("pred", pred)
    # bone-length and symmetry losses
    bones = lib.tensor([[0, 1], [0, 2], [1, 3], [2, 4]])
    vec = pred[:, bones[:, 1]] - pred[:, bones[:, 0]]
    length = vec.norm(dim=-1)
    rec("lengths", length)
    rec("sym", (length[:, 0] - length[:, 1]).abs().mean())
    # perspective projection back to 2D
    kmat = lib.tensor([[500.0, 0, 32], [0, 500.0, 24], [0, 0, 1]], dtype=dt)
    cam = pred + lib.tensor([0.0, 0.0, 5.0], dtype=dt)
    proj = cam @ kmat.T
    rec("proj", proj[..., :2] / proj[..., 2:])
    # DLT triangulation from two views with SVD
    pts3 = lib.tensor([[0.1, -0.2, 4.0], [0.3, 0.2, 5.0]], dtype=dt)
    P1 = lib.cat([lib.eye(3, dtype=dt), lib.zeros(3, 1, dtype=dt)], 1)
    r = lib.tensor([[0.0, 0, 1], [0, 1, 0], [-1, 0, 0]], dtype=dt)
    P2 = lib.cat([r, lib.tensor([[-4.0], [0.0], [4.0]], dtype=dt)], 1)
    hom = lib.cat([pts3, lib.ones(2, 1, dtype=dt)], 1)
    uv1 = hom @ P1.T
    uv1 = uv1[:, :2] / uv1[:, 2:]
    uv2 = hom @ P2.T
    uv2 = uv2[:, :2] / uv2[:, 2:]
    A = lib.stack([
        uv1[:, :1] * P1[2] - P1[0], uv1[:, 1:] * P1[2] - P1[1],
        uv2[:, :1] * P2[2] - P2[0], uv2[:, 1:] * P2[2] - P2[1],
    ], 1)  # fmt: skip
    _, _, vh = lib.linalg.svd(A)
    X = vh[:, -1]
    rec("tri", X[:, :3] / X[:, 3:])
    rec("cond", lib.linalg.matrix_rank(A))


def p_augment(lib, dt, rec):
    lib.manual_seed(19)
    F = lib.nn.functional
    deg = lib.empty(3, dtype=dt).uniform_(-30, 30)
    scale = lib.empty(3, dtype=dt).normal_(1.0, 0.25).clamp(0.75, 1.25)
    rad = lib.deg2rad(deg)
    rec("rad", rad)
    rec("rad2deg", lib.rad2deg(rad))
    cos, sin = rad.cos(), rad.sin()
    rot = (
        lib.stack([lib.stack([cos, -sin], -1), lib.stack([sin, cos], -1)], -2)
        * scale[:, None, None]
    )
    center = lib.tensor([32.0, 24.0], dtype=dt)
    kp = lib.rand(3, 5, 2, dtype=dt) * 64
    moved = lib.einsum("nij,nkj->nki", rot, kp - center) + center
    rec("moved", moved)
    flip = lib.rand(3) < 0.5
    rec("flip", flip)
    moved = lib.where(
        flip[:, None, None], lib.stack([63 - moved[..., 0], moved[..., 1]], -1), moved
    )
    rec("flipped", moved)
    # bbox of visible joints with masked min/max
    vis = lib.rand(3, 5) > 0.3
    big = lib.finfo(dt).max
    lo = lib.where(vis[..., None], moved, big).amin(1)
    hi = lib.where(vis[..., None], moved, -big).amax(1)
    rec("bbox", lib.cat([lo, hi], -1))
    mn, mx = lib.aminmax(moved, dim=1)
    rec("aminmax", lib.cat([mn, mx], -1))
    # half-body / occlusion: random erase rectangles
    img = lib.rand(3, 1, 12, 16, dtype=dt)
    ys = lib.arange(12)[:, None]
    xs = lib.arange(16)[None, :]
    box = lib.randint(0, 8, (3, 4))
    m = (ys >= box[:, 0, None, None]) & (ys < box[:, 0, None, None] + box[:, 2, None, None] + 2)
    m = m & (xs >= box[:, 1, None, None]) & (xs < box[:, 1, None, None] + box[:, 3, None, None] + 2)
    erased = img.masked_fill(m[:, None], 0.5)
    rec("erased", erased)
    # color jitter and normalisation
    mean = lib.tensor([0.485], dtype=dt).view(1, -1, 1, 1)
    std = lib.tensor([0.229], dtype=dt).view(1, -1, 1, 1)
    rec("norm", (erased * lib.empty(3, 1, 1, 1, dtype=dt).uniform_(0.8, 1.2) - mean) / std)
    rec("nan_to_num", lib.nan_to_num(lib.tensor([float("nan"), float("inf"), -1.0], dtype=dt),
                                     nan=0.0, posinf=64.0))  # fmt: skip
    # pad to square then resize
    padded = F.pad(img, (0, 0, 2, 2), mode="constant", value=0.0)
    rec("padded", padded.shape)
    rec("reflect", F.pad(img, (1, 1, 1, 1), mode="reflect"))
    rec("circular", F.pad(img, (2, 1, 0, 1), mode="circular"))
    rec("resize", F.interpolate(padded, size=(8, 8), mode="bilinear", antialias=True))


def test_unravel_and_integer_division_match_torch():
    assert_program_matches(p_unravel, torch, None)


def p_decode_edges(lib, dt, rec):
    nan = float("nan")
    hm = lib.tensor([[[0.1, nan, 0.3], [0.9, 0.2, nan]], [[-1.0, -2.0, -3.0], [0.0, 0.0, 0.0]]],
                    dtype=dt)  # fmt: skip
    rec("argmax_nan", hm.flatten(1).argmax(1))
    rec("max_nan", hm.flatten(1).max(1).values)
    rec("amax_nan", hm.amax((1, 2)))
    rec("nanargmax", lib.nan_to_num(hm, nan=-1.0).flatten(1).argmax(1))
    rec("argmin", hm.flatten(1).argmin(1))
    rec("ties", lib.zeros(2, 4, dtype=dt).argmax(1))
    rec("topk_nan", hm.flatten(1).topk(2).values)
    rec("sort_nan", hm.flatten(1).sort(1).values)
    rec("max_all", lib.max(hm[1]))
    rec("maximum_nan", lib.maximum(hm[0], lib.zeros(2, 3, dtype=dt)))
    rec("fmax_nan", lib.fmax(hm[0], lib.zeros(2, 3, dtype=dt)))
    empty = lib.zeros(2, 0, dtype=dt)
    rec.err("argmax_empty", lambda: empty.argmax(1))
    rec.err("max_empty", lambda: empty.max(1))
    rec.err("amax_empty", lambda: empty.amax(1))
    rec("argmax_empty0", empty.argmax(0))
    rec.err("argmax_all_empty", lambda: empty.argmax())
    rec.err("topk_empty", lambda: empty.topk(1, dim=1))
    rec("topk_zero", empty.topk(0, dim=1).values.shape)
    # masked spatial softmax: an all-masked map gives NaN
    logits = lib.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], dtype=dt)
    mask = lib.tensor([[True, False, True], [False, False, False]])
    p = logits.masked_fill(~mask, float("-inf")).softmax(-1)
    rec("masked_softmax", p)
    rec("masked_nan_fixed", lib.nan_to_num(p))
    rec("softmax_dtype", lib.softmax(logits.float(), -1, dtype=lib.float64))
    rec("log_softmax_inf", logits.masked_fill(~mask, float("-inf")).log_softmax(-1))
    rec("zero_d_argmax", lib.tensor(3.0, dtype=dt).argmax())
    rec("zero_d_flip", lib.tensor(3.0, dtype=dt).flip(0))
    rec.err("zero_d_topk", lambda: lib.tensor(3.0, dtype=dt).topk(2))
    rec("zero_d_topk1", lib.tensor(3.0, dtype=dt).topk(1).values)
    rec("empty_flip", lib.zeros(0, 3, dtype=dt).flip(0, 1).shape)


def p_meshgrid_grids(lib, dt, rec):
    ys = lib.arange(3, dtype=dt)
    xs = lib.arange(4, dtype=dt)
    out = rec.warns("default", lambda: lib.meshgrid(ys, xs))
    rec("default_ij", lib.stack(out))
    rec("xy", lib.stack(lib.meshgrid(ys, xs, indexing="xy")))
    rec("list", lib.stack(lib.meshgrid([ys, xs], indexing="ij")))
    rec("three", lib.stack(lib.meshgrid(ys, xs, ys[:2], indexing="ij")).shape)
    rec("single", lib.meshgrid(xs, indexing="ij")[0])
    rec("zero_d", lib.stack(lib.meshgrid(lib.tensor(2.0, dtype=dt), xs, indexing="ij")))
    rec("empty", lib.stack(lib.meshgrid(ys[:0], xs, indexing="ij")).shape)
    rec.err("mixed_dtype", lambda: lib.meshgrid(ys, xs.long(), indexing="ij"))
    rec.err("none", lambda: lib.meshgrid(indexing="ij"))
    gx, gy = lib.meshgrid(xs, ys, indexing="xy")
    rec("view_share", str(gx._base is not None if hasattr(gx, "_base") else None))
    rec("contig", gx.is_contiguous())
    rec("cartesian", lib.cartesian_prod(ys, xs[:2]))
    rec("linspace", lib.linspace(-1, 1, 5, dtype=dt))
    rec("linspace_one", lib.linspace(-1, 1, 1, dtype=dt))
    rec("arange_step", lib.arange(0.5, 3, 0.5, dtype=dt))
    rec.err("arange_bad", lambda: lib.arange(0, 3, -1, dtype=dt))
    rec.err("arange_zero", lambda: lib.arange(0, 3, 0, dtype=dt))
    rec("gaussian_1d_outer", lib.outer(lib.exp(-((xs - 1.5) ** 2)), lib.exp(-((ys - 1) ** 2))))
    rec("kron", lib.kron(ys[:2, None], xs[None, :2]))


def p_grid_sample_more(lib, dt, rec):
    lib.manual_seed(20)
    F = lib.nn.functional
    vol = lib.randn(1, 2, 3, 4, 5, dtype=dt, requires_grad=True)
    theta = lib.tensor([[[0.9, 0.1, 0.0, 0.1], [0.0, 1.0, 0.2, 0.0], [0.1, 0.0, 0.8, -0.1]]],
                       dtype=dt)  # fmt: skip
    g3 = F.affine_grid(theta, [1, 2, 2, 3, 4], align_corners=False)
    rec("g3", g3)
    out = F.grid_sample(vol, g3, align_corners=False)
    rec("vol_out", out)
    out.sum().backward()
    rec("vol_grad", vol.grad)
    rec("vol_nearest", F.grid_sample(vol, g3, mode="nearest", align_corners=True))
    rec.err("vol_bicubic", lambda: F.grid_sample(vol, g3, mode="bicubic", align_corners=False))
    img = lib.randn(1, 1, 5, 6, dtype=dt, requires_grad=True)
    pts = lib.tensor([[[[-1.0, -1.0], [0.3, -0.4], [1.2, 0.9], [0.99, 1.0]]]], dtype=dt)
    for pm in ("zeros", "border", "reflection"):
        rec("bicubic_" + pm, F.grid_sample(img, pts, mode="bicubic", padding_mode=pm,
                                           align_corners=False))  # fmt: skip
    # sampling heatmap values at keypoints (normalised to [-1, 1])
    kp = lib.tensor([[1.5, 2.0], [4.2, 0.5]], dtype=dt)
    norm = kp / lib.tensor([5.0, 4.0], dtype=dt) * 2 - 1
    v = F.grid_sample(img, norm.view(1, 1, -1, 2), align_corners=True)
    rec("sampled", v)
    v.sum().backward()
    rec("img_grad", img.grad)
    nanpt = lib.tensor([[[[float("nan"), 0.0]]]], dtype=dt)
    rec("nan_grid", F.grid_sample(img.detach(), nanpt, align_corners=False))
    rec.err("grid_last", lambda: F.grid_sample(img, pts[..., :1], align_corners=False))
    rec.err("grid_dims", lambda: F.grid_sample(img, pts[0], align_corners=False))
    rec.err("affine_int", lambda: F.affine_grid(theta.long(), [1, 2, 2, 3, 4], align_corners=False))
    rec.err("affine_3d_theta", lambda: F.affine_grid(theta, [1, 2, 3, 4], align_corners=False))
    rec.err("affine_empty", lambda: F.affine_grid(theta, [1, 2, 0, 3, 4], align_corners=False))


def p_deconv_functional(lib, dt, rec):
    lib.manual_seed(21)
    F = lib.nn.functional
    x = lib.randn(2, 4, 3, 5, dtype=dt, requires_grad=True)
    w = lib.randn(4, 3, 4, 4, dtype=dt, requires_grad=True)
    b = lib.randn(6, dtype=dt, requires_grad=True)
    out = F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2)
    rec("grouped", out)
    out2 = F.conv_transpose2d(x, w[:, :, :3, :3], None, stride=(2, 3), padding=(0, 1),
                              output_padding=(1, 2), dilation=1, groups=2)  # fmt: skip
    rec("strided", out2)
    out3 = F.conv_transpose2d(x, w[:, :, :3, :3], stride=1, dilation=2, groups=2)
    rec("dilated", out3)
    (out.sum() + (out2 * out2).mean() + out3.std()).backward()
    rec("gx", x.grad)
    rec("gw", w.grad)
    rec("gb", b.grad)
    layer = lib.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2).to(dt)
    rec("layer", layer(x))
    rec("repr", repr(layer))
    rec("weight_shape", layer.weight.shape)
    rec.err("opad_big", lambda: F.conv_transpose2d(x, w, stride=2, output_padding=2, groups=2))
    rec.err("groups", lambda: F.conv_transpose2d(x, w, groups=3))
    rec.err("w_dims", lambda: F.conv_transpose2d(x, w[0], groups=2))
    rec.err("bias_len", lambda: F.conv_transpose2d(x, w, b[:2], groups=2))
    rec.err("dtype", lambda: F.conv_transpose2d(x.float() if dt == lib.float64 else x.double(), w))
    if dt == lib.float64:  # torch's float32 (oneDNN) kernel fails with an unrelated message
        rec.err("neg_out", lambda: F.conv_transpose2d(x, w, padding=5, groups=2))
    rec.err("layer_groups", lambda: lib.nn.ConvTranspose2d(4, 5, 3, groups=2))
    rec.err("output_size", lambda: layer(x, output_size=(20, 20)))
    rec("output_size_ok", layer(x, output_size=(5, 9)).shape)
    rec.err("output_size_len", lambda: layer(x, output_size=(1, 5, 9, 1, 1)))


def p_heatmap_scatter(lib, dt, rec):
    # one-hot / sparse targets written by index_put_, scatter_ and put_
    j, vis = _joints(lib, dt)
    ix = j[..., 0].long().clamp(0, 15)
    iy = j[..., 1].long().clamp(0, 11)
    hm = lib.zeros(2, 5, 12, 16, dtype=dt)
    b = lib.arange(2)[:, None].expand(2, 5)
    k = lib.arange(5)[None].expand(2, 5)
    hm.index_put_((b, k, iy, ix), (vis > 0).to(dt))
    rec("index_put", hm.flatten(2).argmax(-1))
    flat = lib.zeros(2, 5, 12 * 16, dtype=dt)
    flat.scatter_(2, (iy * 16 + ix).unsqueeze(-1), 1.0)
    rec("scatter", flat.view(2, 5, 12, 16).sum((2, 3)))
    rec("same", lib.equal(flat.view_as(hm) * (vis > 0)[..., None, None], hm))
    p = lib.zeros(12, 16, dtype=dt)
    p.put_(iy[0] * 16 + ix[0], lib.ones(5, dtype=dt), accumulate=True)
    rec("put", p.nonzero())
    acc = lib.zeros(12, 16, dtype=dt)
    acc.index_put_((iy.flatten(), ix.flatten()), lib.ones(10, dtype=dt), accumulate=True)
    rec("accumulate", acc.sum())
    # offsets regression targets (CenterNet / PifPaf)
    off = j - lib.stack([ix, iy], -1).to(dt)
    rec("offsets", off)
    # a gaussian kernel convolved on the sparse map gives the dense target
    g = lib.exp(-(lib.arange(-3, 4, dtype=dt) ** 2) / (2 * 1.5**2))
    ker = (g[:, None] * g[None, :]).expand(5, 1, 7, 7)
    dense = lib.nn.functional.conv2d(hm, ker, padding=3, groups=5)
    rec("dense", dense)
    rec.err("put_oob", lambda: p.put_(lib.tensor([192]), lib.ones(1, dtype=dt)))
    rec.err("index_put_len", lambda: hm.index_put_((b, k), lib.ones(3, dtype=dt)))
    rec.err("scatter_dtype", lambda: flat.scatter_(2, (iy * 16 + ix).unsqueeze(-1).int(), 1.0))


def p_temporal_tcn(lib, dt, rec):
    # VideoPose3D-style temporal convolutions over 2-D keypoint sequences
    nn = lib.nn
    lib.manual_seed(22)
    k = 5
    model = nn.Sequential(
        nn.Conv1d(2 * k, 16, 3, bias=False),
        nn.BatchNorm1d(16, momentum=0.1),
        nn.ReLU(),
        nn.Dropout(0.25),
        nn.Conv1d(16, 16, 3, dilation=3, bias=False),
        nn.BatchNorm1d(16),
        nn.ReLU(),
        nn.Conv1d(16, 3 * k, 1),
    ).to(dt)
    seq = lib.randn(2, 15, k, 2, dtype=dt)
    x = seq.flatten(2).permute(0, 2, 1)
    out = model(x)
    rec("out_shape", out.shape)
    rec("receptive", seq.shape[1] - out.shape[-1] + 1)
    y = out.permute(0, 2, 1).reshape(2, -1, k, 3)
    loss = y.pow(2).mean()
    loss.backward()
    rec("loss", loss)
    rec.params("p", model, grads=True)
    model.eval()
    with lib.no_grad():
        rec("eval", model(x))
        rec("padded", model(lib.nn.functional.pad(x, (4, 4), mode="replicate")).shape)
    # temporal smoothing with avg_pool1d and a one-euro-like exponential filter
    sm = lib.nn.functional.avg_pool1d(x, 3, stride=1, padding=1, count_include_pad=False)
    rec("smooth", sm)
    alpha = 0.3
    ema = [x[..., 0]]
    for t in range(1, x.shape[-1]):
        ema.append(alpha * x[..., t] + (1 - alpha) * ema[-1])
    rec("ema", lib.stack(ema, -1))
    rec("diff", lib.diff(seq, dim=1).norm(dim=-1).mean())
    rec("cumsum", lib.cumsum(lib.diff(seq, dim=1), 1)[:, -1] - (seq[:, -1] - seq[:, 0]))


def p_oks_loss(lib, dt, rec):
    # a differentiable OKS loss (YOLO-pose style) trained a few Adam steps
    lib.manual_seed(23)
    gt = lib.rand(4, 5, 2, dtype=dt) * 10
    vis = lib.tensor([[1, 1, 1, 0, 1], [1, 0, 1, 1, 1], [1, 1, 1, 1, 1], [0, 1, 0, 1, 1]])
    area = lib.tensor([40.0, 60.0, 30.0, 50.0], dtype=dt)
    sig = lib.tensor(SIGMAS, dtype=dt)
    pred = lib.nn.Parameter(gt + lib.randn(4, 5, 2, dtype=dt))
    opt = lib.optim.Adam([pred], lr=0.1, betas=(0.9, 0.99), amsgrad=True)
    m = (vis > 0).to(dt)
    for step in range(4):
        opt.zero_grad()
        d = (pred - gt).pow(2).sum(-1)
        e = d / (2 * sig) ** 2 / (area[:, None] * 2 + 1e-9)
        oks = ((1 - lib.exp(-e)) * m).sum(-1) / (m.sum(-1) + 1e-9)
        loss = oks.mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("pred", pred)
    rec("state", opt.state_dict()["state"][0]["max_exp_avg_sq"])
    # visibility BCE head
    logits = lib.randn(4, 5, dtype=dt, requires_grad=True)
    bce = lib.nn.BCEWithLogitsLoss(pos_weight=lib.full((5,), 2.0, dtype=dt))
    lv = bce(logits, m)
    lv.backward()
    rec("bce", lv)
    rec("bce_grad", logits.grad)


def p_state_dict(lib, dt, rec):
    import io

    lib.manual_seed(24)
    head = _head(lib, 3, 5, dt)
    head(lib.randn(2, 3, 4, 4, dtype=dt)).sum().backward()
    sd = head.state_dict()
    rec("keys", str(list(sd.keys())))
    buf = io.BytesIO()
    lib.save({"model": sd, "epoch": 3, "perm": [0, 2, 1, 4, 3]}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    other = _head(lib, 3, 5, dt)
    res = other.load_state_dict(ck["model"])
    rec("res", str(res))
    rec("epoch", ck["epoch"])
    x = lib.randn(1, 3, 4, 4, dtype=dt)
    rec("same", lib.equal(other.eval()(x), head.eval()(x)))
    bad = dict(ck["model"])
    bad["3.weight"] = bad["3.weight"][:4]
    rec.err("size", lambda: other.load_state_dict(bad))
    bad.pop("3.weight")
    rec.err("missing", lambda: other.load_state_dict(bad))
    rec("nonstrict", str(other.load_state_dict(bad, strict=False)))


def _weighted_backward(lib, out):
    w = lib.linspace(1, 2, out.numel(), dtype=out.dtype).view_as(out)
    (out * w).sum().backward()


def p_edge_grads(lib, dt, rec):
    # gradients at kinks and ties (zero vectors, equal maxima) and through sampling grids
    F = lib.nn.functional
    lib.manual_seed(0)
    img = lib.randn(1, 2, 5, 6, dtype=dt, requires_grad=True)
    theta = lib.tensor([[[0.9, 0.2, 0.1], [-0.1, 1.1, 0.05]]], dtype=dt, requires_grad=True)
    for mode in ("bilinear", "bicubic", "nearest"):
        for pm in ("zeros", "border", "reflection"):
            for ac in (False, True):
                img.grad = None
                theta.grad = None
                g = F.affine_grid(theta, [1, 2, 4, 7], align_corners=ac)
                out = F.grid_sample(img, g, mode=mode, padding_mode=pm, align_corners=ac)
                (out * lib.linspace(-1, 2, 7, dtype=dt)).sum().backward()
                rec(f"{mode}{pm}{ac}.gi", img.grad)
                rec(f"{mode}{pm}{ac}.gt", theta.grad)
    z = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    for name, fn in [
        ("vnorm", lambda t: lib.linalg.vector_norm(t, dim=-1)),
        ("norm", lambda t: t.norm(dim=-1)),
        ("lnorm", lambda t: lib.linalg.norm(t, dim=-1)),
        ("fro", lambda t: lib.linalg.norm(t)),
        ("normalize", lambda t: F.normalize(t, dim=-1)),
        ("cos", lambda t: F.cosine_similarity(t, lib.ones(2, 3, dtype=dt))),
        ("cdist", lambda t: lib.cdist(t, lib.zeros(1, 3, dtype=dt))),
        ("cdist_same", lambda t: lib.cdist(t, t)),
        ("atan2", lambda t: lib.atan2(t, t)),
        ("pdist", lambda t: F.pairwise_distance(t, lib.zeros(2, 3, dtype=dt))),
        ("inf_norm", lambda t: lib.linalg.vector_norm(t, ord=float("inf"), dim=-1)),
        ("sqrt_sum", lambda t: (t**2).sum(-1).sqrt()),
        ("max_ties", lambda t: t.amax(-1)),
        ("max_ties2", lambda t: t.max(-1).values),
        ("topk_ties", lambda t: t.topk(2, -1).values),
        ("median_ties", lambda t: t.median(-1).values),
        ("sort_ties", lambda t: t.sort(-1).values * lib.arange(3, dtype=dt)),
        ("softmax_spatial", lambda t: (t.softmax(-1) * lib.arange(3, dtype=dt)).sum(-1)),
        ("clamp_edge", lambda t: t.clamp(min=0)),
        ("abs0", lambda t: t.abs()),
        ("sign", lambda t: t.sign()),
        ("aminmax", lambda t: lib.stack(lib.aminmax(t, dim=-1))),
    ]:
        z.grad = None
        rec.err(name, lambda fn=fn: _weighted_backward(lib, fn(z)))
        rec(name + ".g", str(z.grad))
    # gradients of take_along_dim / max_unpool / cross / gather
    x = lib.randn(1, 1, 4, 4, dtype=dt, requires_grad=True)
    p, i = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(p, i, 2)
    (u * lib.arange(16, dtype=dt).view(1, 1, 4, 4)).sum().backward()
    rec("unpool.g", x.grad)
    a = lib.randn(4, 3, dtype=dt, requires_grad=True)
    lib.linalg.cross(a, a.flip(0)).pow(2).sum().backward()
    rec("cross.g", a.grad)
    v = lib.randn(2, 5, dtype=dt, requires_grad=True)
    lib.take_along_dim(v, lib.tensor([[1, 1, 4]]), dim=1).pow(2).sum().backward()
    rec("tad.g", v.grad)
    if dt == lib.float64:
        th = lib.tensor([[[0.83, 0.21, 0.13], [-0.11, 0.93, 0.07]]], dtype=dt, requires_grad=True)
        im = lib.randn(1, 1, 3, 4, dtype=dt, requires_grad=True)

        def f(t, i):
            grid = F.affine_grid(t, [1, 1, 2, 3], align_corners=False)
            return F.grid_sample(i, grid, align_corners=False)

        rec.err("gc", lambda: lib.autograd.gradcheck(f, (th, im)))
        rec.err("ggc", lambda: lib.autograd.gradgradcheck(f, (th, im)))
