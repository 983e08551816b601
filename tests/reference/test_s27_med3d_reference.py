"""Session 27: 3-D medical imaging pipelines written by hand (MONAI-style without MONAI), each
run under torch and minitorch after the same manual_seed: 3-D U-Net/V-Net blocks (Conv3d with
padding/stride/dilation/groups, ConvTranspose3d with output_padding and output_size,
InstanceNorm3d/BatchNorm3d/GroupNorm, PReLU, deep supervision), channels_last_3d layouts, 3-d
pools with indices and unpooling, trilinear/nearest(-exact) resizing, pixel shuffle by
view/permute; soft/generalised Dice, Tversky, focal and boundary losses, confusion matrices by
bincount, IoU with nanmean, Hausdorff by cdist; intensity normalisation by quantiles, flips and
rot90, random crops, unfold patches folded back with overlap counts, sliding-window inference
with Gaussian importance maps, 3-d padding modes, affine_grid/grid_sample, elastic deformation,
resampling to a spacing; first and second derivatives; bfloat16/float16 autocast; NumPy volumes
(int16 CT, flipped and big-endian arrays). float32 to 1e-4, float64 to 1e-9 of scale; autocast
to 8e-3 (bfloat16) and 2e-3 (float16)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def unet_blocks(torch, rec, dt):
    torch.manual_seed(0)
    dtype = getattr(torch, dt)
    nn, F = torch.nn, torch.nn.functional

    class ResBlock(nn.Module):
        def __init__(self, cin, cout, stride=1):
            super().__init__()
            self.c1 = nn.Conv3d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.n1 = nn.InstanceNorm3d(cout, affine=True)
            self.a1 = nn.PReLU(cout)
            self.c2 = nn.Conv3d(cout, cout, 3, padding=2, dilation=2, groups=2, bias=False)
            self.n2 = nn.GroupNorm(2, cout)
            self.a2 = nn.LeakyReLU(0.01, inplace=True)
            self.skip = nn.Conv3d(cin, cout, 1, stride=stride)

        def forward(self, x):
            y = self.a1(self.n1(self.c1(x)))
            y = self.n2(self.c2(y))
            return self.a2(y + self.skip(x))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.e1 = ResBlock(1, 4)
            self.e2 = ResBlock(4, 8, stride=2)
            self.up = nn.ConvTranspose3d(8, 4, 3, stride=2, padding=1, output_padding=1)
            self.d1 = ResBlock(8, 4)
            self.head = nn.Conv3d(4, 3, 1)
            self.ds = nn.Conv3d(8, 3, 1)

        def forward(self, x):
            a = self.e1(x)
            b = self.e2(a)
            u = self.up(b)
            d = self.d1(torch.cat([u, a], 1))
            return self.head(d), self.ds(b)

    net = UNet().to(dtype)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.randn(2, 1, 6, 8, 6, dtype=dtype)
    y = torch.randint(0, 3, (2, 6, 8, 6))
    for step in range(2):
        opt.zero_grad()
        out, aux = net(x)
        aux_up = F.interpolate(aux, size=out.shape[2:], mode="trilinear", align_corners=False)
        ys = F.interpolate(y[:, None].float(), scale_factor=0.5, mode="nearest").long()[:, 0]
        loss = F.cross_entropy(out, y) + 0.5 * F.cross_entropy(aux, ys) + 0.1 * aux_up.pow(2).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"out{step}", out)
    rec.params("p", net, grads=True)
    rec("shape", str(tuple(out.shape)) + str(tuple(aux.shape)))


def channels_last(torch, rec, dt):
    torch.manual_seed(1)
    dtype = getattr(torch, dt)
    nn, F = torch.nn, torch.nn.functional
    x = torch.randn(2, 3, 4, 5, 6, dtype=dtype)
    xc = x.to(memory_format=torch.channels_last_3d)
    rec("stride", str(xc.stride()))
    rec("is_cl", str(xc.is_contiguous(memory_format=torch.channels_last_3d)))
    rec("is_c", str(xc.is_contiguous()))
    conv = nn.Conv3d(3, 4, 3, padding=1).to(dtype).to(memory_format=torch.channels_last_3d)
    rec("wstride", str(conv.weight.stride()))
    y = conv(xc)
    rec("y", y)
    rec("ystride", str(y.stride()))
    bn = nn.BatchNorm3d(4).to(dtype)
    z = bn(y)
    rec("zstride", str(z.stride()))
    r = F.relu(z)
    rec("rstride", str(r.stride()))
    p = F.max_pool3d(r, 2)
    rec("pstride", str(p.stride()))
    rec("p", p)
    u = F.interpolate(p, scale_factor=2, mode="trilinear")
    rec("ustride", str(u.stride()))
    rec("u", u)
    rec("cstride", str(xc.contiguous().stride()))
    rec("clone_stride", str(xc.clone().stride()))
    rec("ew", str((xc * 2).stride()))
    rec("empty_like", str(torch.empty_like(xc).stride()))
    v = xc.reshape(2, 3, -1)
    rec("reshape_stride", str(v.stride()))
    rec.err("err_view", lambda: xc.view(2, 3, -1))
    rec.err("cl_4d", lambda: x[0].to(memory_format=torch.channels_last_3d))
    s = u.sum() + z.sum()
    s.backward()
    rec.params("c", conv, grads=True)
    rec("gstride", str(conv.weight.grad.stride()))


def pools(torch, rec, dt):
    torch.manual_seed(2)
    dtype = getattr(torch, dt)
    nn, F = torch.nn, torch.nn.functional
    x = torch.randn(1, 2, 5, 7, 6, dtype=dtype, requires_grad=True)
    mp = nn.MaxPool3d(2, stride=2, return_indices=True, ceil_mode=True)
    o, i = mp(x)
    rec("o", o)
    rec("i", i)
    unp = nn.MaxUnpool3d(2, stride=2)
    u = unp(o, i, output_size=x.shape[2:])
    rec("u", u)
    rec("ushape", str(u.shape))
    rec.err("unp_bad", lambda: unp(o, i, output_size=(9, 9, 9)))
    u2 = unp(o[..., :3, :3], i[..., :3, :3])
    rec("u2shape", str(u2.shape))
    (u * torch.arange(u.numel(), dtype=dtype).view_as(u)).sum().backward()
    rec("gx", x.grad)
    for cip in [True, False]:
        for ceil in [True, False]:
            ap = nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=ceil, count_include_pad=cip)
            rec(f"ap{cip}{ceil}", ap(x.detach()))
    rec("ap_div", F.avg_pool3d(x.detach(), 2, divisor_override=3))
    rec("aap", nn.AdaptiveAvgPool3d((None, 3, 1))(x.detach()))
    rec("aap1", F.adaptive_avg_pool3d(x.detach(), 1))
    rec("amp", F.adaptive_max_pool3d(x.detach(), (2, 3, 4)))
    rec("mpd", F.max_pool3d(x.detach(), 3, stride=1, padding=1, dilation=2))
    rec.err("mp_pad", lambda: F.max_pool3d(x.detach(), 2, padding=2))
    rec.err("ap_big", lambda: F.avg_pool3d(x.detach(), 6))
    rec("lp", F.lp_pool3d(x.detach().abs(), 2, 2))
    xx = torch.randn(2, 3, 4, 4, 4, dtype=dtype, requires_grad=True)
    a = F.avg_pool3d(xx, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
    (a * a).sum().backward()
    rec("gap", xx.grad)


def interp(torch, rec, dt):
    torch.manual_seed(3)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    x = torch.randn(1, 2, 3, 4, 5, dtype=dtype, requires_grad=True)
    outs = []
    for mode in ["trilinear", "nearest", "nearest-exact"]:
        for sf in [2, 1.7, (0.5, 1.5, 2.25)]:
            for ac in [None, True, False]:
                if mode != "trilinear" and ac is not None:
                    continue
                kw = {} if ac is None else {"align_corners": ac}
                for rsf in [None, True]:
                    y = F.interpolate(
                        x, scale_factor=sf, mode=mode, recompute_scale_factor=rsf, **kw
                    )
                    rec(f"{mode}{sf}{ac}{rsf}", y)
                    outs.append(y)
    rec("size", F.interpolate(x, size=(5, 3, 7), mode="trilinear", align_corners=True))
    sum(o.pow(2).sum() for o in outs).backward()
    rec("gx", x.grad)
    rec.err("bad_mode", lambda: F.interpolate(x, scale_factor=2, mode="bilinear"))
    rec.err("bad_ac", lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True))
    rec.err("both", lambda: F.interpolate(x, size=4, scale_factor=2))
    rec.err("neither", lambda: F.interpolate(x))
    rec.err("bad_len", lambda: F.interpolate(x, size=(4, 4)))
    up = torch.nn.Upsample(scale_factor=2, mode="trilinear", align_corners=True)
    rec("upm", up(x.detach()))
    rec("uprepr", repr(up))
    lab = torch.randint(0, 4, (1, 1, 3, 4, 5))
    rec.err("long_interp", lambda: F.interpolate(lab, scale_factor=2, mode="nearest"))
    rec("lab_up", F.interpolate(lab.float(), scale_factor=2, mode="nearest").long())
    rec("u8", F.interpolate(lab.to(torch.uint8), scale_factor=2, mode="nearest"))


def pixel_shuffle3d(torch, rec, dt):
    torch.manual_seed(4)
    dtype = getattr(torch, dt)
    r = 2
    x = torch.randn(2, 3 * r**3, 2, 3, 2, dtype=dtype, requires_grad=True)
    b, c, d, h, w = x.shape
    oc = c // r**3
    y = x.view(b, oc, r, r, r, d, h, w).permute(0, 1, 5, 2, 6, 3, 7, 4)
    rec("ystride", str(y.stride()))
    rec("ycont", str(y.is_contiguous()))
    rec.err("view_err", lambda: y.view(b, oc, d * r, h * r, w * r))
    z = y.reshape(b, oc, d * r, h * r, w * r)
    rec("z", z)
    rec("zstride", str(z.stride()))
    # inverse
    back = z.view(b, oc, d, r, h, r, w, r).permute(0, 1, 3, 5, 7, 2, 4, 6).reshape(b, c, d, h, w)
    rec("roundtrip", (back - x).abs().max())
    (z * torch.linspace(0, 1, z.numel(), dtype=dtype).view_as(z)).sum().backward()
    rec("gx", x.grad)
    conv = torch.nn.Conv3d(3, 3 * 8, 1).to(dtype)
    out = conv(z[:, :, :2, :2, :2].contiguous())
    rec("conv", out)
    ps2 = torch.nn.PixelShuffle(2)
    rec.err("ps5d", lambda: ps2(x))
    rec("flat", torch.flatten(z, 2).shape[-1])
    rec("movedim", z.movedim(1, -1).stride())


def dice_losses(torch, rec, dt):
    torch.manual_seed(5)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    C = 4
    logits = torch.randn(2, C, 4, 5, 3, dtype=dtype, requires_grad=True)
    y = torch.randint(0, C, (2, 4, 5, 3))
    y[0, 0] = 3
    oh = F.one_hot(y, C).permute(0, 4, 1, 2, 3)
    rec("oh_stride", str(oh.stride()))
    rec("oh_dtype", str(oh.dtype))
    oh = oh.to(dtype)
    p = logits.softmax(1)
    dims = (2, 3, 4)
    inter = (p * oh).sum(dims)
    card = p.sum(dims) + oh.sum(dims)
    dice = (2 * inter + 1e-5) / (card + 1e-5)
    rec("dice", dice)
    # generalized dice with class weights 1/(volume^2)
    vol = oh.sum(dims)
    w = 1.0 / (vol * vol).clamp(min=1e-6)
    w = torch.where(torch.isinf(w), torch.zeros_like(w), w)
    gd = 1 - 2 * (w * inter).sum(1) / (w * card).sum(1)
    rec("gd", gd)
    # Tversky
    a, b = 0.3, 0.7
    tp = inter
    fp = (p * (1 - oh)).sum(dims)
    fn = ((1 - p) * oh).sum(dims)
    tv = (tp + 1) / (tp + a * fp + b * fn + 1)
    rec("tv", tv)
    ftl = (1 - tv).pow(0.75)
    # focal
    logp = F.log_softmax(logits, 1)
    pt = logp.gather(1, y[:, None]).exp()
    focal = -((1 - pt) ** 2 * pt.log()).mean()
    rec("focal", focal)
    ce_w = F.cross_entropy(
        logits,
        y,
        weight=torch.tensor([0.1, 1.0, 2.0, 0.5], dtype=dtype),
        label_smoothing=0.1,
        ignore_index=2,
    )
    rec("ce_w", ce_w)
    nll = F.nll_loss(logp, y, reduction="none")
    rec("nll", nll)
    loss = (1 - dice[:, 1:]).mean() + gd.mean() + ftl.mean() + focal + ce_w
    loss.backward()
    rec("loss", loss)
    rec("g", logits.grad)
    # boundary loss with given distance maps
    dist = torch.randn(2, C, 4, 5, 3, dtype=dtype)
    bl = torch.einsum("bcdhw,bcdhw->bc", p, dist).mean()
    rec("bl", bl)
    # sigmoid multi-label dice
    s = torch.sigmoid(logits.detach())
    rec(
        "bce",
        F.binary_cross_entropy_with_logits(
            logits.detach(), oh, pos_weight=torch.full((C, 1, 1, 1), 2.0, dtype=dtype)
        ),
    )
    rec(
        "sdice",
        1
        - (2 * (s * oh).flatten(2).sum(-1) + 1)
        / (s.flatten(2).sum(-1) + oh.flatten(2).sum(-1) + 1),
    )
    rec.err("oh_neg", lambda: F.one_hot(torch.tensor([-1, 2]), 3))
    rec.err("oh_big", lambda: F.one_hot(torch.tensor([3, 2]), 3))
    rec.err("oh_float", lambda: F.one_hot(torch.tensor([1.0, 2.0]), 3))
    rec("oh_auto", F.one_hot(torch.tensor([[0, 5], [2, 1]])))
    rec("oh_empty", str(F.one_hot(torch.zeros(0, dtype=torch.long), 3).shape))
    rec.err("oh_empty_auto", lambda: F.one_hot(torch.zeros(0, dtype=torch.long)))


def metrics(torch, rec, dt):
    torch.manual_seed(6)
    dtype = getattr(torch, dt)
    C = 4
    pred = torch.randint(0, C, (2, 5, 6, 4))
    gt = torch.randint(0, C - 1, (2, 5, 6, 4))
    cm = torch.bincount(gt.flatten() * C + pred.flatten(), minlength=C * C).reshape(C, C)
    rec("cm", cm)
    rec("cm_dtype", str(cm.dtype))
    tp = cm.diag()
    fp = cm.sum(0) - tp
    fn = cm.sum(1) - tp
    iou = tp / (tp + fp + fn)
    rec("iou", iou)
    rec("iou_dtype", str(iou.dtype))
    union = (tp + fp + fn).to(dtype)
    iou2 = torch.where(union > 0, tp.to(dtype) / union, torch.full_like(union, float("nan")))
    rec("iou2", iou2)
    rec("miou", iou2.nanmean())
    rec("miou0", torch.nanmean(iou2[None].expand(3, -1), dim=0))
    rec("allnan", torch.tensor([float("nan")] * 3, dtype=dtype).nanmean())
    rec("nansum", iou2.nansum())
    prec = tp / (tp + fp).clamp(min=1)
    rec("prec", prec)
    rec("acc", (pred == gt).float().mean())
    rec("acc_d", (pred == gt).to(dtype).mean(dim=(1, 2, 3)))
    rec("bin_w", torch.bincount(gt.flatten(), weights=torch.rand(gt.numel(), dtype=dtype)))
    rec(
        "bin_w_dtype",
        str(torch.bincount(gt.flatten(), weights=torch.rand(gt.numel()).half()).dtype),
    )
    rec.err("bin_neg", lambda: torch.bincount(torch.tensor([-1, 2])))
    rec.err("bin_2d", lambda: torch.bincount(gt))
    rec.err("bin_float", lambda: torch.bincount(torch.tensor([1.0])))
    rec("bin_empty", torch.bincount(torch.zeros(0, dtype=torch.long), minlength=3))
    # per-class dice from the confusion matrix
    dsc = 2 * tp / (2 * tp + fp + fn)
    rec("dsc", dsc)
    # volume similarity / sensitivity per image
    oh_p = torch.nn.functional.one_hot(pred, C).bool()
    oh_g = torch.nn.functional.one_hot(gt, C).bool()
    inter = (oh_p & oh_g).sum((1, 2, 3))
    rec("inter", inter)
    rec("union", (oh_p | oh_g).sum((1, 2, 3)))
    rec("xor", (oh_p ^ oh_g).sum(dim=(1, 2, 3), dtype=dtype))
    rec("count_nz", torch.count_nonzero(oh_p, dim=(1, 2)))
    rec("unique", torch.unique(pred, return_counts=True)[1])
    rec("uniq_sorted", torch.unique(gt[0], sorted=True, return_inverse=True)[1][0, 0])
    # hausdorff-lite
    m = gt[0] == 1
    er = -torch.nn.functional.max_pool3d(-m[None, None].to(dtype), 3, 1, 1)[0, 0]
    bnd = m & (er < 0.5)
    pts_g = bnd.nonzero().to(dtype)
    mp = pred[0] == 1
    pts_p = mp.nonzero().to(dtype)
    d = torch.cdist(pts_g, pts_p)
    rec("hd", torch.max(d.min(1).values.max(), d.min(0).values.max()))
    rec("hd95", torch.quantile(torch.cat([d.min(1).values, d.min(0).values]), 0.95))
    rec("cd_p1", torch.cdist(pts_g[None], pts_p[None], p=1).sum())
    rec("cd_inf", torch.cdist(pts_g, pts_p, p=float("inf")).mean())
    rec("cd_mm", torch.cdist(pts_g, pts_p, compute_mode="use_mm_for_euclid_dist").mean())
    rec("nz_tuple", torch.nonzero(bnd, as_tuple=True)[2])
    rec("argwhere", torch.argwhere(bnd).shape[0])


def intensity(torch, rec, dt):
    torch.manual_seed(7)
    dtype = getattr(torch, dt)
    vol = torch.randn(1, 10, 12, 9, dtype=dtype) * 100 + 40
    lo, hi = torch.quantile(vol, torch.tensor([0.005, 0.995], dtype=dtype))
    rec("lohi", torch.stack([lo, hi]))
    v = vol.clamp(lo, hi)
    v = (v - lo) / (hi - lo)
    rec("v", v)
    rec("clampT", vol.clamp(min=torch.tensor(0.0, dtype=dtype), max=hi))
    rec("clamp_t2", torch.clamp(vol, lo.item(), hi.item()))
    fg = vol > vol.mean()
    m, s = vol[fg].mean(), vol[fg].std()
    rec("z", (vol - m) / s)
    for interp in ["linear", "lower", "higher", "nearest", "midpoint"]:
        rec(f"q_{interp}", torch.quantile(vol.flatten(), 0.37, interpolation=interp))
    rec("q_dim", torch.quantile(vol, 0.9, dim=1, keepdim=True))
    rec(
        "nanq",
        torch.nanquantile(torch.where(fg, vol, torch.tensor(float("nan"), dtype=dtype)), 0.5),
    )
    if dt == "float32":  # torch sorts before its size check: one call (~1.5 s)
        big = torch.zeros(2**24 + 1, dtype=dtype)
        rec.err("q_big", lambda: torch.quantile(big.view(-1, 1), 0.5, dim=0))
        rec("q_below_limit", torch.quantile(big[: 2**24 - 1 : 64], 0.5))
    rec.err("q_bad", lambda: torch.quantile(vol, 1.5))
    rec.err("q_int", lambda: torch.quantile(torch.arange(5), 0.5))
    rec.err(
        "q_dtype", lambda: torch.quantile(vol.float(), torch.tensor([0.5], dtype=torch.float64))
    )
    rec("kth", torch.kthvalue(vol.flatten(), 17).values)
    rec("sorted_pct", vol.flatten().sort().values[int(0.99 * vol.numel())])
    rec("median", vol.median())
    rec("nanmedian", vol.nanmedian(dim=2).values)
    rec("msort", torch.msort(vol[0, 0]))
    h = torch.histc(v, bins=16, min=0, max=1)
    rec("histc", h)
    cdf = h.cumsum(0) / h.sum()
    idx = (v * 15).long().clamp(0, 15)
    rec("heq", cdf[idx])
    rec("rescale", torch.nn.functional.normalize(vol.flatten(), dim=0)[:10])
    # windowing CT
    wl, ww = 40.0, 400.0
    rec("win", ((vol - (wl - ww / 2)) / ww).clamp_(0, 1))
    rec("round", (v * 255).round().to(torch.uint8))
    rec("to_u8_neg", (vol[0, 0, 0] - 100).to(torch.int16))
    qv = torch.rand(3, 4, dtype=dtype, requires_grad=True)
    torch.quantile(qv, torch.tensor([0.25, 0.5], dtype=dtype), dim=1).sum().backward()
    rec("gq", qv.grad)


def augment(torch, rec, dt):
    torch.manual_seed(8)
    dtype = getattr(torch, dt)
    img = torch.randn(1, 2, 6, 7, 5, dtype=dtype)
    lab = torch.randint(0, 3, (1, 1, 6, 7, 5))
    for i in range(4):
        dims = [d for d in (2, 3, 4) if torch.rand(1).item() < 0.5]
        rec(f"dims{i}", str(dims))
        img = torch.flip(img, dims) if dims else img
        lab = lab.flip(dims) if dims else lab
        k = int(torch.randint(0, 4, (1,)))
        pair = [(2, 3), (3, 4), (2, 4)][int(torch.randint(3, ()))]
        img = torch.rot90(img, k, pair)
        lab = lab.rot90(k, dims=list(pair))
        rec(f"shape{i}", str(tuple(img.shape)))
        rec(f"stride{i}", str(img.stride()))
    rec("img", img)
    rec("lab", lab)
    rec.err("rot_bad", lambda: torch.rot90(img, 1, (2, 2)))
    rec.err("rot_1dim", lambda: torch.rot90(img, 1, (2,)))
    rec("rot_neg", torch.rot90(img, -3, (-1, -2)))
    rec.err("flip_dup", lambda: torch.flip(img, (2, 2)))
    rec("fliplr", torch.fliplr(img[0, 0, 0]))
    # random crop by randint offsets
    D, H, W = img.shape[2:]
    cs = (4, 4, 3)
    crops = []
    for j in range(3):
        o = [int(torch.randint(0, s - c + 1, (1,))) for s, c in zip((D, H, W), cs, strict=False)]
        crops.append(img[:, :, o[0] : o[0] + cs[0], o[1] : o[1] + cs[1], o[2] : o[2] + cs[2]])
        rec(f"off{j}", str(o))
    rec("crops", torch.cat(crops))
    # foreground-weighted crop centres
    fg = (lab[0, 0] > 0).nonzero()
    c = fg[torch.randint(len(fg), (1,))][0]
    rec("centre", c)
    rec("perm", torch.randperm(10))
    # gamma / noise / bias field
    g = torch.empty(1).uniform_(0.7, 1.5)
    rec("g", g)
    mn, mx = img.amin(dim=(2, 3, 4), keepdim=True), img.amax(dim=(2, 3, 4), keepdim=True)
    rec("gamma", ((img - mn) / (mx - mn)).pow(g.to(dtype)) * (mx - mn) + mn)
    noise = torch.randn_like(img) * 0.1
    rec("noise", noise)
    rec("normal", torch.normal(0.0, 0.1, size=(5,), dtype=dtype))
    rec("normal_t", torch.normal(torch.zeros(2, 3, dtype=dtype), torch.ones(2, 3, dtype=dtype)))
    coords = torch.stack(
        torch.meshgrid(
            *[torch.linspace(-1, 1, s, dtype=dtype) for s in img.shape[2:]], indexing="ij"
        )
    )
    coef = torch.randn(3, dtype=dtype) * 0.1
    bias = torch.exp((coef[:, None, None, None] * coords).sum(0))
    rec("bias", bias)
    rec("bern", torch.bernoulli(torch.full((6,), 0.3, dtype=dtype)))
    rec("rand_int_like", torch.randint_like(img, 0, 5))


def patches(torch, rec, dt):
    torch.manual_seed(9)
    dtype = getattr(torch, dt)
    x = torch.randn(1, 2, 6, 7, 8, dtype=dtype, requires_grad=True)
    k, s = 4, 2
    p = x.unfold(2, k, s).unfold(3, k, s).unfold(4, k, s)
    rec("pshape", str(tuple(p.shape)))
    rec("pstride", str(p.stride()))
    nd, nh, nw = p.shape[2:5]
    pp = p.permute(0, 2, 3, 4, 1, 5, 6, 7).reshape(-1, 2, k, k, k)
    rec("pp", pp)
    # process and fold back with overlap counting
    out = pp * 2.0 + 1.0
    acc = torch.zeros(1, 2, 6, 7, 8, dtype=dtype)
    cnt = torch.zeros(1, 1, 6, 7, 8, dtype=dtype)
    i = 0
    for a in range(nd):
        for b in range(nh):
            for c in range(nw):
                acc[:, :, a * s : a * s + k, b * s : b * s + k, c * s : c * s + k] += out[i]
                cnt[:, :, a * s : a * s + k, b * s : b * s + k, c * s : c * s + k] += 1
                i += 1
    res = acc / cnt.clamp(min=1)
    rec("res", res)
    rec("cnt", cnt)
    res.sum().backward()
    rec("gx", x.grad)
    # index_put with accumulate for fold-back
    acc2 = torch.zeros(2 * 6 * 7 * 8, dtype=dtype)
    idx = (
        torch.arange(2 * 6 * 7 * 8)
        .view(1, 2, 6, 7, 8)
        .unfold(2, k, s)
        .unfold(3, k, s)
        .unfold(4, k, s)
    )
    acc2.index_put_((idx.reshape(-1),), p.detach().reshape(-1), accumulate=True)
    rec("acc2", acc2)
    acc3 = torch.zeros(2 * 6 * 7 * 8, dtype=dtype).scatter_add(
        0, idx.reshape(-1), p.detach().reshape(-1)
    )
    rec("acc3", acc3)
    rec(
        "acc4",
        torch.zeros(2 * 6 * 7 * 8, dtype=dtype).index_add(
            0, idx.reshape(-1), p.detach().reshape(-1)
        ),
    )
    # F.unfold/F.fold on 2-d slices of the volume
    sl = x.detach()[:, :, 3]
    cols = torch.nn.functional.unfold(sl, 3, padding=1, stride=2)
    rec("cols", cols)
    rec("fold", torch.nn.functional.fold(cols, (7, 8), 3, padding=1, stride=2))
    rec.err("unfold5d", lambda: torch.nn.functional.unfold(x.detach(), 3))
    rec.err("unfold_big", lambda: x.unfold(2, 9, 1))
    rec("unfold_exact", str(x.unfold(4, 8, 1).shape))
    rec.err("unfold_step0", lambda: x.unfold(4, 2, 0))
    xx = x.detach().clone().requires_grad_()
    pu = xx.unfold(2, 3, 1).unfold(3, 3, 2)
    (pu**2).sum().backward()
    rec("gunf", xx.grad)


def sliding_window(torch, rec, dt):
    torch.manual_seed(10)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    net = torch.nn.Sequential(torch.nn.Conv3d(1, 2, 3, padding=1), torch.nn.Softmax(1)).to(dtype)
    vol = torch.randn(1, 1, 7, 9, 5, dtype=dtype)
    roi = (4, 4, 4)
    pad = []
    for s, r in zip(reversed(vol.shape[2:]), reversed(roi), strict=False):
        extra = max(r - s, 0)
        pad += [extra // 2, extra - extra // 2]
    rec("pad", str(pad))
    v = F.pad(vol, pad, mode="constant", value=0)
    sigma = [r / 8 for r in roi]
    grids = torch.meshgrid(
        *[torch.arange(r, dtype=dtype) - (r - 1) / 2 for r in roi], indexing="ij"
    )
    imp = torch.exp(-sum(g**2 / (2 * s**2) for g, s in zip(grids, sigma, strict=False)))
    imp = imp / imp.max()
    imp = imp.clamp(min=imp[imp > 0].min())
    rec("imp", imp)
    overlap = 0.5
    starts = []
    for s, r in zip(v.shape[2:], roi, strict=False):
        step = max(int(r * (1 - overlap)), 1)
        st = list(range(0, max(s - r, 0) + 1, step))
        if st[-1] + r < s:
            st.append(s - r)
        starts.append(st)
    rec("starts", str(starts))
    out = torch.zeros(1, 2, *v.shape[2:], dtype=dtype)
    cnt = torch.zeros(1, 1, *v.shape[2:], dtype=dtype)
    batch, locs = [], []
    with torch.no_grad():
        for a in starts[0]:
            for b in starts[1]:
                for c in starts[2]:
                    batch.append(v[:, :, a : a + 4, b : b + 4, c : c + 4])
                    locs.append((a, b, c))
        preds = net(torch.cat(batch))
        for (a, b, c), pr in zip(locs, preds, strict=False):
            out[0, :, a : a + 4, b : b + 4, c : c + 4] += pr * imp
            cnt[0, :, a : a + 4, b : b + 4, c : c + 4] += imp
    res = out / cnt
    rec("res", res)
    rec("argmax", res.argmax(1))
    # padding modes in 3-d
    x = torch.randn(1, 2, 3, 4, 5, dtype=dtype, requires_grad=True)
    outs = []
    for mode in ["reflect", "replicate", "circular"]:
        y = F.pad(x, (2, 1, 1, 2, 1, 0), mode=mode)
        rec(f"pad_{mode}", y)
        outs.append(y)
    rec.err("reflect_big", lambda: F.pad(x, (5, 5, 0, 0, 0, 0), mode="reflect"))
    rec.err("reflect_big_d", lambda: F.pad(x, (0, 0, 0, 0, 3, 0), mode="reflect"))
    rec.err("replicate_4tuple_5d", lambda: F.pad(x, (1, 1, 1, 1), mode="replicate"))
    rec.err("replicate_8tuple", lambda: F.pad(x, (1,) * 8, mode="replicate"))
    rec.err("reflect_4d_6tuple", lambda: F.pad(x[0], (1,) * 6, mode="reflect"))
    rec("neg_pad", F.pad(x, (-1, 0, 0, -1, 1, 1)))
    rec.err("neg_reflect", lambda: F.pad(x, (-1, 0, 0, 0, 0, 0), mode="reflect"))
    rec("const_val", F.pad(x, (1, 1, 1, 1, 1, 1), value=-1024.0))
    sum((o * torch.arange(o.numel(), dtype=dtype).view_as(o)).sum() for o in outs).backward()
    rec("gx", x.grad)
    rec("mod", torch.nn.ReplicationPad3d((1, 0, 2, 0, 1, 1))(x.detach()))
    rec("mod2", torch.nn.ReflectionPad3d(1)(x.detach()))
    rec("mod3", torch.nn.ConstantPad3d((1, 2, 0, 0, 1, 0), 3.5)(x.detach()))
    rec("mod4", torch.nn.CircularPad3d(2)(x.detach()))
    rec("mod_repr", repr(torch.nn.ReplicationPad3d((1, 0, 2, 0, 1, 1))))
    rec("mod_repr2", repr(torch.nn.ZeroPad3d(2)))


def spatial(torch, rec, dt):
    torch.manual_seed(11)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    img = torch.randn(2, 2, 4, 5, 6, dtype=dtype, requires_grad=True)
    ang = torch.tensor([0.3, -0.2], dtype=dtype)
    c, s = torch.cos(ang), torch.sin(ang)
    z, o = torch.zeros(2, dtype=dtype), torch.ones(2, dtype=dtype)
    theta = torch.stack(
        [
            torch.stack([c, -s, z, 0.1 * o], -1),
            torch.stack([s, c, z, z], -1),
            torch.stack([z, z, o * 1.1, -0.05 * o], -1),
        ],
        1,
    ).requires_grad_()
    outs = []
    for ac in [True, False]:
        grid = F.affine_grid(theta, [2, 2, 3, 5, 4], align_corners=ac)
        rec(f"grid{ac}", grid)
        for mode in ["bilinear", "nearest"]:
            for pm in ["zeros", "border", "reflection"]:
                y = F.grid_sample(img, grid, mode=mode, padding_mode=pm, align_corners=ac)
                rec(f"gs{ac}{mode}{pm}", y)
                outs.append(y)
    sum((o * o).sum() for o in outs).backward()
    rec("gimg", img.grad)
    rec("gtheta", theta.grad)
    rec.err("bicubic5d", lambda: F.grid_sample(img, grid, mode="bicubic", align_corners=False))
    rec.err("affine_bad", lambda: F.affine_grid(theta[:, :2], [2, 2, 3, 5, 4], align_corners=False))
    rec.err("grid_bad", lambda: F.grid_sample(img, grid[..., :2], align_corners=False))
    rec.err("gs_batch", lambda: F.grid_sample(img[:1], grid, align_corners=False))
    rec.err("ag_size", lambda: F.affine_grid(theta, [2, 2, 3, 5], align_corners=False))
    # elastic deformation: smoothed random displacement
    disp = torch.rand(1, 3, 4, 5, 6, dtype=dtype) * 2 - 1
    ks = 5
    sig = 1.5
    ax = torch.arange(ks, dtype=dtype) - ks // 2
    g1 = torch.exp(-(ax**2) / (2 * sig**2))
    g1 = g1 / g1.sum()
    k3 = g1[:, None, None] * g1[None, :, None] * g1[None, None, :]
    k3 = k3.expand(3, 1, ks, ks, ks)
    sm = F.conv3d(F.pad(disp, (2,) * 6, mode="replicate"), k3, groups=3)
    rec("sm", sm)
    sep = disp
    for d in range(3):
        shape = [1, 1, 1, 1, 1]
        shape[2 + d] = ks
        pads = [0] * 6
        pads[4 - 2 * d] = pads[5 - 2 * d] = 2
        sep = F.conv3d(
            F.pad(sep, pads, mode="reflect"), g1.view(shape).repeat(3, 1, 1, 1, 1), groups=3
        )
    rec("sep", sep)
    ident = F.affine_grid(torch.eye(3, 4, dtype=dtype)[None], [1, 1, 4, 5, 6], align_corners=True)
    warped_grid = ident + 0.2 * sm.permute(0, 2, 3, 4, 1)
    rec(
        "warp",
        F.grid_sample(img.detach()[:1], warped_grid, align_corners=True, padding_mode="border"),
    )
    lab = torch.randint(0, 3, (1, 1, 4, 5, 6)).to(dtype)
    rec("warp_lab", F.grid_sample(lab, warped_grid, mode="nearest", align_corners=True))
    # resampling to target spacing
    spacing = torch.tensor([2.5, 0.8, 0.8], dtype=torch.float64)
    target = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64)
    shape = torch.tensor(img.shape[2:], dtype=torch.float64)
    new = torch.round(shape * spacing / target).long()
    rec("new", new)
    rs = F.interpolate(
        img.detach(), size=tuple(new.tolist()), mode="trilinear", align_corners=False
    )
    rec("rs", rs)
    rs2 = F.interpolate(
        img.detach(), scale_factor=tuple((spacing / target).tolist()), mode="trilinear"
    )
    rec("rs2", rs2)
    rs3 = F.interpolate(
        img.detach(),
        scale_factor=tuple((spacing / target).tolist()),
        mode="nearest-exact",
        recompute_scale_factor=True,
    )
    rec("rs3", rs3)
    rec("area", F.interpolate(img.detach(), size=(2, 3, 4), mode="area"))


def grads2(torch, rec, dt):
    torch.manual_seed(12)
    F = torch.nn.functional
    dtype = getattr(torch, dt)
    x = torch.randn(1, 2, 3, 3, 3, dtype=dtype, requires_grad=True)
    w = torch.randn(2, 1, 2, 2, 2, dtype=dtype, requires_grad=True)
    wt = torch.randn(2, 1, 2, 3, 2, dtype=dtype, requires_grad=True)
    theta = (torch.eye(3, 4, dtype=dtype) + 0.1 * torch.randn(3, 4, dtype=dtype))[None]
    theta.requires_grad_()
    xn = torch.randn(1, 1, 2, 3, 2, dtype=dtype, requires_grad=True)
    grid = (torch.rand(1, 2, 1, 2, 3, dtype=dtype) * 2.4 - 1.2).requires_grad_()
    mp, ind = F.max_pool3d(x.detach(), 2, return_indices=True)
    mp.requires_grad_()
    fns = {
        "conv_dil_g": (
            lambda x, w: F.conv3d(x, w, padding=1, dilation=(1, 2, 1), groups=2, stride=(2, 1, 1)),
            (x, w),
        ),
        "convT": (
            lambda x, w: F.conv_transpose3d(x, w, stride=2, padding=1, output_padding=1, groups=2),
            (x, wt),
        ),
        "convT_dil": (
            lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1), dilation=2, groups=2),
            (x, wt),
        ),
        "avg_ceil": (
            lambda x: F.avg_pool3d(x, 2, stride=2, ceil_mode=True, count_include_pad=False),
            (x,),
        ),
        "avg_pad": (lambda x: F.avg_pool3d(x, 3, stride=2, padding=1), (x,)),
        "max": (lambda x: F.max_pool3d(x, 2, stride=1), (x,)),
        "aap": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (x,)),
        "amp": (lambda x: F.adaptive_max_pool3d(x, 2), (x,)),
        "tri": (lambda x: F.interpolate(x, scale_factor=1.5, mode="trilinear"), (x,)),
        "tri_ac": (
            lambda x: F.interpolate(x, size=(3, 2, 4), mode="trilinear", align_corners=True),
            (x,),
        ),
        "near": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest-exact"), (x,)),
        "in": (lambda x: F.instance_norm(x), (x,)),
        "gn": (lambda x: F.group_norm(x, 2), (x,)),
        "bn": (lambda x: F.batch_norm(x, None, None, training=True), (x,)),
        "reflect": (lambda x: F.pad(x, (1, 1, 2, 0, 1, 1), mode="reflect"), (x,)),
        "replicate": (lambda x: F.pad(x, (1, 1, 2, 0, 1, 1), mode="replicate"), (x,)),
        "circ": (lambda x: F.pad(x, (1, 1, 2, 0, 1, 1), mode="circular"), (x,)),
        "prelu": (lambda x: F.prelu(x, torch.tensor([0.2, -0.3], dtype=dtype)), (x,)),
        "unfold": (lambda x: x.unfold(2, 2, 1).unfold(4, 2, 2).sum((-1, -2)), (x,)),
        "rot": (lambda x: torch.rot90(x, 1, (2, 4)) * 2, (x,)),
        "ag": (lambda t: F.affine_grid(t, [1, 1, 2, 3, 2], align_corners=False), (theta,)),
        "unpool": (lambda m: F.max_unpool3d(m, ind, 2, output_size=x.shape[2:]), (mp,)),
    }
    for pm in ["zeros", "border", "reflection"]:
        for ac in [True, False]:
            fns[f"gs{pm}{ac}"] = (
                lambda a, b, pm=pm, ac=ac: F.grid_sample(a, b, padding_mode=pm, align_corners=ac),
                (xn, grid),
            )
    for n, (f, args) in fns.items():
        y = f(*args)
        rec(n, y)
        v = torch.randn(y.shape, dtype=dtype, requires_grad=True)
        gs = torch.autograd.grad(y, args, v, create_graph=True)
        for i, g in enumerate(gs):
            rec(f"{n}.g{i}", g)
        # second order: the gradients' weighted sum differentiated again (inputs and v)
        s = sum((g * g.detach().sin()).sum() for g in gs)
        if s.requires_grad:
            gg = torch.autograd.grad(s, (*args, v), allow_unused=True)
            for i, g in enumerate(gg):
                rec(f"{n}.gg{i}", "None" if g is None else g)


def norms(torch, rec, dt):
    torch.manual_seed(13)
    dtype = getattr(torch, dt)
    nn = torch.nn
    x = torch.randn(3, 4, 2, 3, 2, dtype=dtype) * 3 + 1
    bn = nn.BatchNorm3d(4, momentum=None).to(dtype)
    inn = nn.InstanceNorm3d(4, affine=True, track_running_stats=True).to(dtype)
    gn = nn.GroupNorm(2, 4, eps=1e-3).to(dtype)
    for i in range(3):
        xi = x * (i + 1)
        rec(f"bn{i}", bn(xi))
        rec(f"in{i}", inn(xi))
        rec(f"gn{i}", gn(xi))
    rec("bn_rm", bn.running_mean)
    rec("bn_rv", bn.running_var)
    rec("bn_nb", bn.num_batches_tracked)
    rec("in_rm", inn.running_mean)
    rec("in_rv", inn.running_var)
    bn.eval()
    inn.eval()
    rec("bn_eval", bn(x))
    rec("in_eval", inn(x))
    rec("bn_repr", repr(bn))
    rec("in_repr", repr(inn))
    rec("sd", str(sorted(inn.state_dict().keys())))
    rec.err("bn_4d", lambda: bn(x[0]))
    rec.err("in_noinp", lambda: nn.InstanceNorm3d(4)(x[:, :, :1, :1, :1]))
    rec("in_unbatched", nn.InstanceNorm3d(3)(x[0, :3]))
    rec.err("in_wrong_c", lambda: nn.InstanceNorm3d(5, affine=True)(x))
    rec.err("in_wrong_c_noaffine", lambda: nn.InstanceNorm3d(5)(x))
    rec.err("gn_bad", lambda: nn.GroupNorm(3, 4))
    rec.err("bn1", lambda: nn.BatchNorm3d(4).train()(x[:1, :, :1, :1, :1]))
    sbn = nn.SyncBatchNorm(4).to(dtype)
    rec("sbn_repr", repr(sbn))
    pr = nn.PReLU(4, init=0.1).to(dtype)
    rec("prelu", pr(x))
    rec.err("prelu_bad", lambda: nn.PReLU(3)(x))
    rec("prelu1", nn.PReLU().to(dtype)(x))
    rec("lrelu", nn.LeakyReLU(0.2)(x))
    rec("elu", nn.ELU()(x))
    ln = nn.LayerNorm([2, 3, 2]).to(dtype)
    rec("ln", ln(x))
    rec("lrn", nn.LocalResponseNorm(2)(x))
    d3 = nn.Dropout3d(0.5)
    rec("d3", d3(x))
    rec("ad", nn.AlphaDropout(0.2)(x))
    rec("fad", nn.FeatureAlphaDropout(0.2)(x))
    rec.warns("d3_4d", lambda: d3(x[0]))


def amp3d(torch, rec, dt):
    torch.manual_seed(14)
    nn, F = torch.nn, torch.nn.functional
    net = nn.Sequential(
        nn.Conv3d(1, 4, 3, padding=1),
        nn.GroupNorm(2, 4),
        nn.LeakyReLU(),
        nn.ConvTranspose3d(4, 4, 2, stride=2),
        nn.InstanceNorm3d(4, affine=True),
        nn.PReLU(),
        nn.BatchNorm3d(4),
        nn.Conv3d(4, 3, 1),
    )
    x = torch.randn(2, 1, 3, 4, 3)
    y = torch.randint(0, 3, (2, 6, 8, 6))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    adt = torch.bfloat16 if dt == "float32" else torch.float16
    for step in range(2):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=adt):
            h = net[0](x)
            rec(f"h0.{step}", h)
            h = net[1](h)
            rec(f"h1.{step}", h)
            out = net[2:](h)
            rec(f"out.{step}", out)
            up = F.interpolate(out, scale_factor=0.5, mode="trilinear")
            rec(f"up.{step}", up)
            mp = F.max_pool3d(out, 2)
            rec(f"mp.{step}", mp)
            ap = F.avg_pool3d(out, 2)
            rec(f"ap.{step}", ap)
            ce = F.cross_entropy(out, y)
            rec(f"ce.{step}", ce)
            p = out.softmax(1)
            rec(f"p.{step}", p)
            oh = F.one_hot(y, 3).permute(0, 4, 1, 2, 3)
            inter = (p * oh).sum((2, 3, 4))
            rec(f"inter.{step}", inter)
            dice = 1 - (2 * inter + 1) / (p.sum((2, 3, 4)) + oh.sum((2, 3, 4)) + 1)
            rec(f"dice.{step}", dice)
            loss = ce + dice.mean()
        rec(f"loss.{step}", loss)
        loss.backward()
        opt.step()
    rec.params("p", net, grads=True)
    with torch.autocast("cpu", dtype=adt):
        g = F.affine_grid(
            torch.eye(3, 4)[None].repeat(2, 1, 1), [2, 3, 2, 3, 2], align_corners=False
        )
        rec("grid", g)
        rec("gs", F.grid_sample(out.detach(), g, align_corners=False))
        rec("cdist", torch.cdist(torch.randn(4, 3), torch.randn(5, 3)))
        rec("bmm", torch.bmm(torch.randn(2, 3, 4), torch.randn(2, 4, 2)))
        rec("pad", F.pad(out.detach(), (1, 1, 1, 1, 1, 1), mode="replicate"))
        rec("convT", F.conv_transpose3d(out.detach(), torch.randn(3, 2, 2, 2, 2), stride=2))
        rec("gelu", F.gelu(out.detach()))
        rec("norm", torch.linalg.vector_norm(out.detach(), dim=1))
        rec("sig", torch.sigmoid(out.detach()))
        rec("bce", F.binary_cross_entropy_with_logits(out.detach(), torch.rand(out.shape)))


def modules3d(torch, rec, dt):
    torch.manual_seed(15)
    dtype = getattr(torch, dt)
    nn, F = torch.nn, torch.nn.functional
    x = torch.randn(2, 3, 5, 6, 4, dtype=dtype)
    convs = {
        "same": nn.Conv3d(3, 4, (2, 3, 4), padding="same", dilation=(2, 1, 1)),
        "valid": nn.Conv3d(3, 4, 3, padding="valid", bias=False),
        "reflect": nn.Conv3d(3, 4, 3, padding=(1, 2, 1), padding_mode="reflect"),
        "circular": nn.Conv3d(3, 3, 3, padding=1, padding_mode="circular", groups=3),
        "replicate": nn.Conv3d(
            3, 6, (3, 1, 3), stride=(2, 1, 2), padding=(1, 0, 1), padding_mode="replicate", groups=3
        ),
    }
    for n, c in convs.items():
        c = c.to(dtype)
        y = c(x)
        rec(f"{n}", y)
        rec(f"{n}.repr", repr(c))
        y.square().mean().backward()
        rec(f"{n}.gw", c.weight.grad)
    rec.err("same_stride", lambda: nn.Conv3d(3, 4, 3, padding="same", stride=2))
    rec.err("bad_pad", lambda: nn.Conv3d(3, 4, 3, padding="full"))
    rec.err("bad_groups", lambda: nn.Conv3d(3, 4, 3, groups=2))
    rec.err("bad_in", lambda: F.conv3d(x, torch.randn(4, 2, 3, 3, 3, dtype=dtype)))
    rec.err("4d_w", lambda: F.conv3d(x, torch.randn(4, 3, 3, 3, dtype=dtype)))
    rec.err("small", lambda: F.conv3d(x, torch.randn(4, 3, 6, 3, 3, dtype=dtype)))
    rec.err("dtype_mix", lambda: F.conv3d(x, torch.randn(4, 3, 3, 3, 3, dtype=torch.float16)))
    up = nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1).to(dtype)
    for size in [(9, 11, 7), (10, 12, 8)]:
        rec(f"convT_os{size}", up(x, output_size=size))
    rec.err("convT_os_bad", lambda: up(x, output_size=(12, 12, 12)))
    rec("convT_os_full", up(x, output_size=(2, 2, 10, 11, 8)))
    rec(
        "convT_repr",
        repr(
            nn.ConvTranspose3d(
                3,
                2,
                3,
                stride=2,
                padding=1,
                output_padding=(1, 0, 1),
                dilation=1,
                groups=1,
                bias=False,
            )
        ),
    )
    rec.err(
        "convT_outpad_bad",
        lambda: F.conv_transpose3d(
            x, torch.randn(3, 2, 3, 3, 3, dtype=dtype), stride=1, output_padding=1
        ),
    )
    rec.err("convT_pad_mode", lambda: nn.ConvTranspose3d(3, 2, 3, padding_mode="reflect"))
    reprs = [
        nn.MaxPool3d(3, stride=2, padding=1, ceil_mode=True),
        nn.AvgPool3d((2, 2, 1), count_include_pad=False, divisor_override=2),
        nn.AdaptiveAvgPool3d((None, 2, 3)),
        nn.AdaptiveMaxPool3d(2, return_indices=True),
        nn.MaxUnpool3d(2),
        nn.Upsample(scale_factor=(2, 2, 1), mode="trilinear", align_corners=False),
        nn.Upsample(size=(4, 4, 4), mode="nearest"),
        nn.InstanceNorm3d(4),
        nn.BatchNorm3d(4, eps=1e-3, momentum=0.01),
        nn.GroupNorm(2, 4, affine=False),
        nn.PReLU(4),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Dropout3d(0.1),
        nn.Softmax(dim=1),
        nn.LPPool3d(2, 2),
    ]
    for i, m in enumerate(reprs):
        rec(f"repr{i}", repr(m))
    seq = nn.Sequential(nn.Conv3d(3, 4, 3), nn.InstanceNorm3d(4), nn.ReLU(inplace=True))
    rec("seq_repr", repr(seq))
    rec("nparams", sum(p.numel() for p in seq.parameters()))
    lazy = nn.Sequential(
        nn.LazyConv3d(4, 3, padding=1), nn.LazyBatchNorm3d(), nn.LazyInstanceNorm3d(affine=True)
    ).to(dtype)
    y = lazy(x)
    rec("lazy", y)
    rec("lazy_repr", repr(lazy))
    rec("lazy_shapes", str([tuple(p.shape) for p in lazy.parameters()]))
    # init on 5-d weights
    w = torch.empty(8, 4, 3, 3, 3, dtype=dtype)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="leaky_relu", a=0.01)
    rec("kaiming", w)
    nn.init.trunc_normal_(w, std=0.02)
    rec("trunc", w)
    nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu"))
    rec("xavier", w)
    rec("fan", str(nn.init._calculate_fan_in_and_fan_out(w)))
    nn.init.orthogonal_(w)
    rec("orth", w)
    m = nn.Conv3d(4, 8, 3).to(dtype)
    rec("default_init", m.weight)
    rec("default_bias", m.bias)
    mt = nn.ConvTranspose3d(4, 8, 3, groups=2).to(dtype)
    rec("default_init_T", mt.weight)


def losses3d(torch, rec, dt):
    torch.manual_seed(16)
    dtype = getattr(torch, dt)
    nn, F = torch.nn, torch.nn.functional
    logits = torch.randn(2, 3, 3, 4, 2, dtype=dtype, requires_grad=True)
    y = torch.randint(0, 3, (2, 3, 4, 2))
    soft = torch.softmax(torch.randn(2, 3, 3, 4, 2, dtype=dtype), 1)
    res = {}
    res["ce_soft"] = F.cross_entropy(logits, soft, label_smoothing=0.2)
    res["ce_soft_w"] = F.cross_entropy(
        logits, soft, weight=torch.tensor([1.0, 2.0, 0.5], dtype=dtype)
    )
    res["ce_ign"] = F.cross_entropy(logits, y, ignore_index=1, reduction="sum")
    res["ce_none"] = F.cross_entropy(
        logits,
        y,
        reduction="none",
        label_smoothing=0.05,
        weight=torch.tensor([1.0, 2.0, 0.5], dtype=dtype),
    )
    yi = y.clone()
    yi[:] = 1
    res["ce_all_ign"] = F.cross_entropy(logits, yi, ignore_index=1)
    res["ce_all_ign_w"] = F.cross_entropy(
        logits, yi, ignore_index=1, weight=torch.ones(3, dtype=dtype)
    )
    tgt = torch.rand(2, 3, 3, 4, 2, dtype=dtype)
    res["bce"] = F.binary_cross_entropy(
        torch.sigmoid(logits), tgt, weight=torch.rand(1, 3, 1, 1, 1, dtype=dtype)
    )
    res["bcel"] = F.binary_cross_entropy_with_logits(
        logits, tgt, pos_weight=torch.tensor([1.0, 3.0, 0.5], dtype=dtype).view(3, 1, 1, 1)
    )
    res["kl"] = F.kl_div(F.log_softmax(logits, 1), soft, reduction="batchmean")
    res["mse"] = F.mse_loss(logits, tgt)
    res["l1"] = F.smooth_l1_loss(logits, tgt, beta=0.5)
    res["huber"] = F.huber_loss(logits, tgt, delta=0.3)
    res["nll_w"] = nn.NLLLoss(weight=torch.tensor([0.2, 0.3, 0.5], dtype=dtype))(
        F.log_softmax(logits, 1), y
    )
    res["focal_bce"] = torchvision_focal(torch, logits, tgt.round())
    total = 0
    for k, v in res.items():
        rec(k, v)
        total = total + v.sum()
    total.backward()
    rec("g", logits.grad)
    rec.err("ce_bad_tgt", lambda: F.cross_entropy(logits, y[:, :2]))
    rec.err("ce_tgt_oob", lambda: F.cross_entropy(logits, y + 3))
    rec.err("ce_float_shape", lambda: F.cross_entropy(logits, soft[:, :2]))
    rec.err("bce_shape", lambda: F.binary_cross_entropy(torch.sigmoid(logits), tgt[:1]))
    rec.err("bce_range", lambda: F.binary_cross_entropy(logits, tgt))


def torchvision_focal(torch, inputs, targets, alpha=0.25, gamma=2.0):
    F = torch.nn.functional
    p = torch.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).mean()


def numpy_io(torch, rec, dt):
    rng = np.random.default_rng(0)
    ct = (rng.standard_normal((6, 7, 5)) * 300).astype(np.int16)
    t = torch.from_numpy(ct)
    rec("dtype", str(t.dtype))
    rec("t", t)
    rec("f", t.float() / 1000)
    rec("hu", torch.clamp(t, -1000, 1000).to(getattr(torch, dt)).div(1000))
    flipped = ct[::-1, :, ::-1]
    rec.err("neg_stride", lambda: torch.from_numpy(flipped))
    rec("neg_copy", torch.from_numpy(flipped.copy()))
    rec.err("neg_tensor", lambda: torch.tensor(flipped))
    rec.err("neg_as_tensor", lambda: torch.as_tensor(flipped, dtype=torch.float32))
    be = ct.astype(">i2")
    rec.err("big_endian", lambda: torch.from_numpy(be))
    rec.err("big_endian_tensor", lambda: torch.tensor(be))
    rec.err("big_endian_as", lambda: torch.as_tensor(be))
    rec("be_native", torch.from_numpy(be.astype(be.dtype.newbyteorder("="))))
    u16 = rng.integers(0, 4000, (3, 4, 2)).astype(np.uint16)
    rec("u16_as_i32", torch.from_numpy(u16.astype(np.int32)).float())
    f16 = rng.standard_normal((2, 3)).astype(np.float16)
    rec("f16", torch.from_numpy(f16))
    rec("f16_dtype", str(torch.from_numpy(f16).dtype))
    tr = ct.transpose(2, 0, 1)
    tt = torch.from_numpy(tr)
    rec("tr_stride", str(tt.stride()))
    rec("tr_cont", str(tt.is_contiguous()))
    rec.err("tr_view", lambda: tt.view(-1))
    ff = np.asfortranarray(ct)
    rec("fortran_stride", str(torch.from_numpy(ff).stride()))
    rec("fortran_contig", str(torch.from_numpy(ff).contiguous().stride()))
    bools = ct > 0
    rec("bool", torch.from_numpy(bools).sum())
    rec("np_back", str(torch.ones(2, 3, dtype=getattr(torch, dt)).numpy().dtype))
    arr = torch.arange(24).reshape(2, 3, 4).permute(2, 0, 1).numpy()
    rec("np_strides", str(arr.strides))
    m = np.zeros((4, 4), dtype=np.float32)
    tm = torch.from_numpy(m)
    tm[1, 1] = 5
    rec("shared", m[1, 1])
    rec.err("np_grad", lambda: torch.ones(2, requires_grad=True).numpy())
    rec("np_force", torch.ones(2, requires_grad=True).numpy(force=True))
    spacing = np.array([0.7, 0.7, 2.5])
    rec("spacing", torch.as_tensor(spacing).dtype.__repr__())
    aff = np.eye(4)
    aff[:3, 3] = [-100.0, 20.0, 5.5]
    A = torch.from_numpy(aff)
    ijk = torch.tensor([[1.0, 2.0, 3.0, 1.0]], dtype=torch.float64)
    rec("world", ijk @ A.T)
    rec("inv", torch.linalg.inv(A))
    rec("scalar_np", torch.tensor(np.float32(2.5)) * 2)
    rec("np_scalar_mul", (torch.ones(2) * np.float64(2.0)).dtype.__repr__())
    rec("np_int_idx", torch.arange(5)[np.int64(2)])
    rec("np_arr_idx", torch.arange(5)[np.array([1, 3])])
    rec("np_bool_idx", torch.arange(5)[np.array([True, False, True, False, True])])


PROGRAMS = [
    unet_blocks,
    channels_last,
    pools,
    interp,
    pixel_shuffle3d,
    dice_losses,
    metrics,
    intensity,
    augment,
    patches,
    sliding_window,
    spatial,
    grads2,
    norms,
    amp3d,
    modules3d,
    losses3d,
    numpy_io,
]


def _rec():
    return Rec(dtypes=True, first_line=True, reprs=True, err_warnings=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_med3d_program_vs_torch(prog, dt):
    def run(lib, rec):
        prog(lib, rec, dt)

    want = run_program(run, torch, rec=_rec())
    got = run_program(run, minitorch, rec=_rec())

    def tol(name, u):
        if prog is amp3d:  # autocast: bfloat16 (dt float32) or float16 (dt float64) results
            return 8e-3 if dt == "float32" else 2e-3
        return 1e-4 if dt == "float32" or u.dtype == np.float32 else 1e-9

    assert_records_match(want, got, tol, floor=1.0, rel=True)
