"""Session 25: computer-vision and geometry utilities written by hand with tensor ops (what
torchvision would give), each run under torch and minitorch after the same manual_seed: box
conversions, IoU/GIoU, NMS and batched NMS, anchors, box encoding, focal/smooth-L1 losses, anchor
matching, grid_sample in every mode/padding/align_corners (values, gradients to inputs and
grids), affine_grid warps 2-d/3-d, optical-flow warping, deformable sampling, RoIAlign by
grid_sample, homography DLT (svd/lstsq/solve), camera projection, quaternions/Rodrigues/
matrix_exp, Kabsch, point clouds (kNN, FPS, PointNet, chamfer), Gaussian/Sobel filters with
groups, SSIM/PSNR, RGB<->HSV, augmentations driven by generators, mixup/cutmix, interpolate
(incl. antialias and lanczos), pixel_shuffle, unfold/fold, segmentation losses, make_grid and
typical mistakes (errors compared by type and message). float32 to 1e-4, float64 to 1e-9 of
scale."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def box_utils(torch, rec, dt):
    torch.manual_seed(0)
    dtype = getattr(torch, dt)
    xy = torch.rand(6, 2, dtype=dtype) * 10
    wh = torch.rand(6, 2, dtype=dtype) * 5 + 0.5
    boxes = torch.cat([xy, xy + wh], dim=1)

    def xyxy_to_cxcywh(b):
        x0, y0, x1, y1 = b.unbind(-1)
        return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], dim=-1)

    def cxcywh_to_xyxy(b):
        cx, cy, w, h = b.unbind(-1)
        return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)

    def area(b):
        return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])

    def box_iou(b1, b2):
        a1, a2 = area(b1), area(b2)
        lt = torch.max(b1[:, None, :2], b2[:, :2])
        rb = torch.min(b1[:, None, 2:], b2[:, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[:, :, 0] * wh[:, :, 1]
        union = a1[:, None] + a2 - inter
        return inter / union, union

    def giou(b1, b2):
        iou, union = box_iou(b1, b2)
        lt = torch.min(b1[:, None, :2], b2[:, :2])
        rb = torch.max(b1[:, None, 2:], b2[:, 2:])
        wh = (rb - lt).clamp(min=0)
        a = wh[..., 0] * wh[..., 1]
        return iou - (a - union) / a

    c = xyxy_to_cxcywh(boxes)
    rec("c", c)
    rec("back", cxcywh_to_xyxy(c))
    b2 = boxes.flip(0) + 0.7
    b2.requires_grad_(True)
    iou, _ = box_iou(boxes, b2)
    rec("iou", iou)
    g = giou(boxes, b2)
    rec("giou", g)
    loss = (1 - torch.diag(g)).sum()
    loss.backward()
    rec("gradb2", b2.grad)
    rec("mx", iou.max(dim=1))
    v, i = iou.max(dim=1)
    rec("v", v)
    rec("i", i)
    rec("amax", iou.argmax(dim=0))


def nms_prog(torch, rec, dt):
    torch.manual_seed(1)
    dtype = getattr(torch, dt)
    n = 30
    xy = torch.rand(n, 2, dtype=dtype) * 20
    wh = torch.rand(n, 2, dtype=dtype) * 8 + 1
    boxes = torch.cat([xy, xy + wh], 1)
    scores = torch.rand(n, dtype=dtype)
    labels = torch.randint(0, 3, (n,))

    def nms(boxes, scores, thr):
        order = scores.argsort(descending=True)
        keep = []
        areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        while order.numel() > 0:
            i = order[0]
            keep.append(i.item())
            if order.numel() == 1:
                break
            rest = order[1:]
            xx1 = boxes[rest, 0].clamp(min=boxes[i, 0].item())
            yy1 = boxes[rest, 1].clamp(min=boxes[i, 1])
            xx2 = boxes[rest, 2].clamp(max=boxes[i, 2])
            yy2 = torch.minimum(boxes[rest, 3], boxes[i, 3])
            inter = (xx2 - xx1).clamp(min=0) * (yy2 - yy1).clamp(min=0)
            iou = inter / (areas[i] + areas[rest] - inter)
            mask = iou <= thr
            order = rest[mask]
        return torch.tensor(keep, dtype=torch.long)

    k = nms(boxes, scores, 0.3)
    rec("keep", k)
    offs = labels.to(boxes) * (boxes.max() + 1)
    rec("offs", offs)
    kb = nms(boxes + offs[:, None], scores, 0.3)
    rec("batched", kb)
    rec("sel", boxes[kb][:5])
    rec("selscores", scores.index_select(0, kb))
    s, idx = scores.sort(descending=True, stable=True)
    rec("sorted", s)
    rec("idx", idx)
    top = torch.topk(scores, 5)
    rec("topv", top.values)
    rec("topi", top.indices)
    m = scores > 0.5
    rec("nz", m.nonzero().squeeze(1))
    rec("nzt", torch.nonzero(m, as_tuple=True)[0])
    rec("where", torch.where(m)[0])


def anchors_prog(torch, rec, dt):
    dtype = getattr(torch, dt)
    sizes = torch.tensor([32.0, 64.0], dtype=dtype)
    ratios = torch.tensor([0.5, 1.0, 2.0], dtype=dtype)
    hr = torch.sqrt(ratios)
    wr = 1 / hr
    ws = (wr[:, None] * sizes[None, :]).view(-1)
    hs = (hr[:, None] * sizes[None, :]).view(-1)
    base = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
    base = base.round()
    rec("base", base)
    fh, fw, stride = 3, 4, 16
    sx = torch.arange(0, fw, dtype=torch.int32) * stride
    sy = torch.arange(0, fh, dtype=torch.int32) * stride
    yy, xx = torch.meshgrid(sy, sx, indexing="ij")
    rec("yy", yy)
    xx = xx.reshape(-1)
    yy = yy.reshape(-1)
    shifts = torch.stack((xx, yy, xx, yy), dim=1)
    rec("shifts", shifts)
    anchors = (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
    rec("anchors", anchors)
    a2 = base.repeat(fh * fw, 1) + shifts.repeat_interleave(base.shape[0], dim=0)
    rec("a2", a2)
    xx2, yy2 = torch.meshgrid(torch.arange(fw), torch.arange(fh), indexing="xy")
    rec("xy", xx2)
    rec("mg_default", torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")[0])
    cx = (torch.arange(fw, dtype=dtype) + 0.5) / fw
    cy = torch.linspace(0.5 / fh, 1 - 0.5 / fh, fh, dtype=dtype)
    priors = torch.cartesian_prod(cy, cx)
    rec("priors", priors)
    rec("tile", torch.tile(base[:2], (2, 1, 1)))


def encode_decode(torch, rec, dt):
    torch.manual_seed(2)
    dtype = getattr(torch, dt)
    n = 8
    anchors = torch.cat(
        [torch.rand(n, 2, dtype=dtype) * 50, torch.rand(n, 2, dtype=dtype) * 20 + 60], 1
    )
    gt = anchors + torch.randn(n, 4, dtype=dtype) * 3
    w = (10.0, 10.0, 5.0, 5.0)

    def encode(gt, an):
        aw = an[:, 2] - an[:, 0]
        ah = an[:, 3] - an[:, 1]
        ax = an[:, 0] + 0.5 * aw
        ay = an[:, 1] + 0.5 * ah
        gw = gt[:, 2] - gt[:, 0]
        gh = gt[:, 3] - gt[:, 1]
        gx = gt[:, 0] + 0.5 * gw
        gy = gt[:, 1] + 0.5 * gh
        return torch.stack(
            [
                w[0] * (gx - ax) / aw,
                w[1] * (gy - ay) / ah,
                w[2] * torch.log(gw / aw),
                w[3] * torch.log(gh / ah),
            ],
            dim=1,
        )

    def decode(d, an):
        aw = an[:, 2] - an[:, 0]
        ah = an[:, 3] - an[:, 1]
        ax = an[:, 0] + 0.5 * aw
        ay = an[:, 1] + 0.5 * ah
        dx = d[:, 0::4] / w[0]
        dy = d[:, 1::4] / w[1]
        dw = d[:, 2::4] / w[2]
        dh = d[:, 3::4] / w[3]
        dw = torch.clamp(dw, max=math.log(1000.0 / 16))
        dh = torch.clamp(dh, max=math.log(1000.0 / 16))
        px = dx * aw[:, None] + ax[:, None]
        py = dy * ah[:, None] + ay[:, None]
        pw = torch.exp(dw) * aw[:, None]
        ph = torch.exp(dh) * ah[:, None]
        c = torch.tensor(0.5, dtype=px.dtype, device=px.device)
        out = torch.stack((px - c * pw, py - c * ph, px + c * pw, py + c * ph), dim=2).flatten(1)
        return out

    d = encode(gt, anchors)
    rec("d", d)
    d = d.clone().requires_grad_()
    dec = decode(d, anchors)
    rec("dec", dec)
    dec.pow(2).mean().backward()
    rec("dgrad", d.grad)
    # smooth l1 / focal
    F = torch.nn.functional
    pred = torch.randn(n, 4, dtype=dtype, requires_grad=True)
    l1 = F.smooth_l1_loss(pred, d.detach(), beta=1 / 9, reduction="sum")
    rec("sl1", l1)
    l2 = F.huber_loss(pred, d.detach(), delta=0.5)
    rec("hub", l2)
    (l1 + l2).backward()
    rec("pg", pred.grad)
    logits = torch.randn(n, 5, dtype=dtype, requires_grad=True)
    tgt = torch.zeros(n, 5, dtype=dtype)
    tgt[torch.arange(n), torch.randint(0, 5, (n,))] = 1
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, tgt, reduction="none")
    pt = p * tgt + (1 - p) * (1 - tgt)
    fl = ce * ((1 - pt) ** 2)
    alpha = 0.25
    fl = (alpha * tgt + (1 - alpha) * (1 - tgt)) * fl
    fl = fl.sum() / max(1, tgt.sum().item())
    rec("fl", fl)
    fl.backward()
    rec("lg", logits.grad)


def matching(torch, rec, dt):
    torch.manual_seed(3)
    dtype = getattr(torch, dt)
    iou = torch.rand(4, 12, dtype=dtype)  # gt x anchors
    iou[1, 5] = 0.95
    mv, mi = iou.max(dim=0)
    rec("mv", mv)
    rec("mi", mi)
    labels = torch.full((12,), -1, dtype=torch.int64)
    labels[mv < 0.3] = 0
    labels[mv >= 0.7] = 1
    bq = iou.max(dim=1).values
    gt_pred_pairs = torch.where(iou == bq[:, None])
    rec("pairs0", gt_pred_pairs[0])
    rec("pairs1", gt_pred_pairs[1])
    labels[gt_pred_pairs[1]] = 1
    rec("labels", labels)
    pos = torch.where(labels == 1)[0]
    neg = torch.where(labels == 0)[0]
    perm = torch.randperm(neg.numel())[:3]
    rec("perm", perm)
    rec("neg", neg[perm])
    gtb = torch.rand(4, 4, dtype=dtype)
    matched = gtb[mi.clamp(min=0)]
    rec("matched", matched[pos])
    g = torch.gather(iou, 0, mi[None, :])
    rec("g", g)
    cls = torch.randint(0, 7, (4,))
    tcls = cls[mi]
    tcls[labels == 0] = 7
    rec("tcls", tcls)
    oh = torch.nn.functional.one_hot(tcls, num_classes=8)[:, :-1]
    rec("oh", oh)
    logits = torch.randn(12, 8, dtype=dtype, requires_grad=True)
    valid = labels >= 0
    ce = torch.nn.functional.cross_entropy(logits[valid], tcls[valid], label_smoothing=0.1)
    rec("ce", ce)
    ce.backward()
    rec("lgrad", logits.grad)
    rec("valid_sum", valid.sum())
    rec("mask_sel", logits.detach()[valid & (tcls < 7)])
    rec("masked_fill", iou.masked_fill(iou < 0.5, 0))


def grid_sample_modes(torch, rec, dt):
    torch.manual_seed(4)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    x = torch.randn(2, 3, 5, 6, dtype=dtype, requires_grad=True)
    grid = (torch.rand(2, 4, 7, 2, dtype=dtype) * 2.4 - 1.2).requires_grad_()
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (True, False):
                y = F.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=ac)
                rec(f"y{mode}{pad}{ac}", y)
                if mode != "nearest":
                    gx, gg = torch.autograd.grad(y.sin().sum(), (x, grid))
                    rec(f"gx{mode}{pad}{ac}", gx)
                    rec(f"gg{mode}{pad}{ac}", gg)
    rec("warn", rec.err("warn", lambda: F.grid_sample(x, grid)))
    rec.err("bad_last", lambda: F.grid_sample(x, grid[..., :1]))
    rec.err("bad_batch", lambda: F.grid_sample(x, grid[:1]))
    rec.err("bad_mode", lambda: F.grid_sample(x, grid, mode="area", align_corners=False))
    rec.err("bad_pad", lambda: F.grid_sample(x, grid, padding_mode="wrap", align_corners=False))
    rec.err("bad_dim", lambda: F.grid_sample(x[0], grid[0], align_corners=False))


def affine_warps(torch, rec, dt):
    torch.manual_seed(5)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    img = torch.rand(2, 3, 8, 8, dtype=dtype)
    ang = torch.tensor([0.3, -1.1], dtype=dtype, requires_grad=True)
    s = torch.tensor([1.2, 0.8], dtype=dtype)
    t = torch.tensor([[0.1, -0.2], [0.0, 0.3]], dtype=dtype)
    cos, sin = torch.cos(ang), torch.sin(ang)
    theta = torch.stack(
        [
            torch.stack([s * cos, -s * sin, t[:, 0]], -1),
            torch.stack([s * sin, s * cos, t[:, 1]], -1),
        ],
        1,
    )
    rec("theta", theta)
    for ac in (True, False):
        grid = F.affine_grid(theta, img.size(), align_corners=ac)
        rec(f"grid{ac}", grid)
        out = F.grid_sample(img, grid, align_corners=ac, padding_mode="border")
        rec(f"out{ac}", out)
        (g,) = torch.autograd.grad(out.mean(), ang, retain_graph=True)
        rec(f"gang{ac}", g)
    g = F.affine_grid(theta, [2, 3, 4, 5], align_corners=False)
    rec("g45", g)
    rec.err("affine_warn", lambda: F.affine_grid(theta, img.size()))
    rec.err("bad_theta", lambda: F.affine_grid(theta[:, :, :2], img.size(), align_corners=False))
    rec.err("bad_theta2", lambda: F.affine_grid(theta, (2, 3, 4, 4, 4), align_corners=False))
    rec.err("bad_size", lambda: F.affine_grid(theta, (3, 3, 4, 4), align_corners=False))
    rec.err("bad_int", lambda: F.affine_grid(theta.long(), (2, 3, 4, 4), align_corners=False))
    # 3d
    th3 = torch.eye(3, 4, dtype=dtype).unsqueeze(0).repeat(2, 1, 1)
    th3[:, 0, 3] = 0.25
    th3[1, :3, :3] = th3[1, :3, :3] * 0.7
    th3.requires_grad_()
    vol = torch.rand(2, 2, 4, 5, 6, dtype=dtype)
    for ac in (True, False):
        g3 = F.affine_grid(th3, vol.shape, align_corners=ac)
        rec(f"g3{ac}", g3)
        o3 = F.grid_sample(vol, g3, align_corners=ac)
        rec(f"o3{ac}", o3)
        o3n = F.grid_sample(vol, g3, mode="nearest", align_corners=ac, padding_mode="reflection")
        rec(f"o3n{ac}", o3n)
        (gth,) = torch.autograd.grad(o3.square().sum(), th3)
        rec(f"gth{ac}", gth)
    rec.err("bicubic3d", lambda: F.grid_sample(vol, g3, mode="bicubic", align_corners=False))


def flow_warp(torch, rec, dt):
    torch.manual_seed(6)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    B, C, H, W = 2, 3, 6, 7
    img = torch.rand(B, C, H, W, dtype=dtype, requires_grad=True)
    flow = (torch.randn(B, 2, H, W, dtype=dtype) * 1.5).requires_grad_()
    ys, xs = torch.meshgrid(
        torch.arange(H, dtype=dtype), torch.arange(W, dtype=dtype), indexing="ij"
    )
    base = torch.stack((xs, ys), dim=0).unsqueeze(0).expand(B, -1, -1, -1)
    coords = base + flow
    gx = 2.0 * coords[:, 0] / max(W - 1, 1) - 1.0
    gy = 2.0 * coords[:, 1] / max(H - 1, 1) - 1.0
    grid = torch.stack((gx, gy), dim=3)
    warped = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    rec("warped", warped)
    mask = F.grid_sample(torch.ones_like(img), grid, align_corners=True)
    mask = (mask > 0.999).to(dtype)
    rec("mask", mask)
    loss = ((warped - img.detach().roll(1, dims=-1)).abs() * mask).mean()
    rec("loss", loss)
    loss.backward()
    rec("gflow", flow.grad)
    rec("gimg", img.grad)
    # smoothness
    dx = flow[:, :, :, 1:] - flow[:, :, :, :-1]
    dy = flow[:, :, 1:, :] - flow[:, :, :-1, :]
    rec("smooth", dx.abs().mean() + dy.abs().mean())
    # upsample flow
    up = F.interpolate(flow, scale_factor=2, mode="bilinear", align_corners=True) * 2
    rec("up", up)
    # flow via permute
    grid2 = coords.permute(0, 2, 3, 1)
    grid2 = grid2 / torch.tensor([W - 1, H - 1], dtype=dtype) * 2 - 1
    w2 = F.grid_sample(img, grid2, align_corners=True)
    rec("w2", w2)
    # epe
    epe = torch.norm(flow - flow.flip(0), p=2, dim=1).mean()
    rec("epe", epe)
    rec("lnorm", torch.linalg.vector_norm(flow, dim=1).max())


def deform_sampling(torch, rec, dt):
    torch.manual_seed(7)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    nn = torch.nn
    B, C, H, W, K = 1, 2, 5, 5, 3
    x = torch.randn(B, C, H, W, dtype=dtype, requires_grad=True)
    off_conv = nn.Conv2d(C, 2 * K * K, 3, padding=1).to(dtype)
    nn.init.normal_(off_conv.weight, std=0.1)
    nn.init.zeros_(off_conv.bias)
    offsets = off_conv(x).view(B, K * K, 2, H, W)
    ky, kx = torch.meshgrid(
        torch.arange(-1, 2, dtype=dtype), torch.arange(-1, 2, dtype=dtype), indexing="ij"
    )
    kyx = torch.stack([kx.flatten(), ky.flatten()], -1)  # K*K, 2
    py, px = torch.meshgrid(
        torch.arange(H, dtype=dtype), torch.arange(W, dtype=dtype), indexing="ij"
    )
    pos = torch.stack([px, py], 0)  # 2,H,W
    samp = pos[None, None] + kyx[None, :, :, None, None] + offsets  # B,KK,2,H,W
    norm = torch.tensor([W - 1, H - 1], dtype=dtype).view(1, 1, 2, 1, 1)
    samp = samp / norm * 2 - 1
    grid = samp.permute(0, 1, 3, 4, 2).reshape(B, K * K * H, W, 2)
    s = F.grid_sample(x, grid, align_corners=True, padding_mode="zeros")
    s = s.view(B, C, K * K, H, W)
    w = torch.randn(4, C, K * K, dtype=dtype)
    out = torch.einsum("bckhw,ock->bohw", s, w)
    rec("out", out)
    loss = out.pow(2).sum()
    loss.backward()
    rec("gx", x.grad)
    rec("gw", off_conv.weight.grad)
    rec("gb", off_conv.bias.grad)
    # gradcheck of grid_sample wrt grid (float64 only)
    if dtype == torch.float64:
        g = (torch.rand(1, 3, 3, 2, dtype=dtype) * 1.6 - 0.8).requires_grad_()
        xx = torch.randn(1, 1, 4, 4, dtype=dtype, requires_grad=True)
        for m in ("bilinear", "bicubic"):
            rec(
                "gc" + m,
                torch.autograd.gradcheck(
                    lambda a, b, m=m: F.grid_sample(a, b, mode=m, align_corners=False), (xx, g)
                ),
            )
            rec(
                "ggc" + m,
                torch.autograd.gradgradcheck(
                    lambda a, b, m=m: F.grid_sample(a, b, mode=m, align_corners=False), (xx, g)
                ),
            )


def roi_align(torch, rec, dt):
    torch.manual_seed(8)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    feat = torch.randn(2, 4, 16, 16, dtype=dtype, requires_grad=True)
    rois = torch.tensor(
        [[0, 1.0, 2.0, 9.0, 11.0], [1, 4.5, 3.2, 14.0, 15.0], [0, 0, 0, 15, 15]], dtype=dtype
    )
    out_size, sr, scale = 3, 2, 1.0
    outs = []
    for r in rois:
        b = int(r[0].item())
        x0, y0, x1, y1 = (r[1:] * scale - 0.5).tolist()
        bw = (x1 - x0) / out_size
        bh = (y1 - y0) / out_size
        iy = (torch.arange(out_size * sr, dtype=dtype) + 0.5) * bh / sr + y0
        ix = (torch.arange(out_size * sr, dtype=dtype) + 0.5) * bw / sr + x0
        gy, gx = torch.meshgrid(iy, ix, indexing="ij")
        H, W = feat.shape[-2:]
        grid = torch.stack([(gx + 0.5) / W * 2 - 1, (gy + 0.5) / H * 2 - 1], -1)[None]
        s = F.grid_sample(feat[b : b + 1], grid, align_corners=False)
        outs.append(F.avg_pool2d(s, sr))
    out = torch.cat(outs)
    rec("out", out)
    out.sum().backward()
    rec("g", feat.grad)
    pooled = F.adaptive_max_pool2d(feat[:, :, 2:11, 1:9], (3, 3), return_indices=True)
    rec("amp", pooled[0])
    rec("ampi", pooled[1])
    rec("aap", F.adaptive_avg_pool2d(feat[:1, :, 2:11, 1:10], (4, 3)))
    rec.err("narrow", lambda: feat.narrow(2, 3, 20))


def homography(torch, rec, dt):
    torch.manual_seed(9)
    dtype = getattr(torch, dt)
    Htrue = torch.tensor([[1.1, 0.05, 3.0], [-0.02, 0.95, -2.0], [1e-3, 2e-3, 1.0]], dtype=dtype)
    src = torch.rand(8, 2, dtype=dtype) * 100
    sh = torch.cat([src, torch.ones(8, 1, dtype=dtype)], 1) @ Htrue.T
    dst = sh[:, :2] / sh[:, 2:]
    x, y = src.unbind(1)
    u, v = dst.unbind(1)
    z = torch.zeros_like(x)
    o = torch.ones_like(x)
    A1 = torch.stack([-x, -y, -o, z, z, z, u * x, u * y, u], 1)
    A2 = torch.stack([z, z, z, -x, -y, -o, v * x, v * y, v], 1)
    A = torch.cat([A1, A2], 0)
    U, S, Vh = torch.linalg.svd(A)
    H = Vh[-1].reshape(3, 3)
    H = H / H[2, 2]
    rec("H_svd", H)
    rec("S", S)
    # 8-param least squares
    M = A[:, :8]
    b = -A[:, 8]
    sol = torch.linalg.lstsq(M, b.unsqueeze(-1)).solution.squeeze(-1)
    rec("H_lstsq", torch.cat([sol, torch.ones(1, dtype=dtype)]).view(3, 3))
    sol3 = torch.linalg.solve(M.T @ M, M.T @ b)
    rec("H_ne", sol3)
    pinv = torch.linalg.pinv(M)
    rec("pinv", pinv @ b)
    # warp image via homography
    img = torch.rand(1, 1, 10, 12, dtype=dtype)
    ys, xs = torch.meshgrid(
        torch.arange(10, dtype=dtype), torch.arange(12, dtype=dtype), indexing="ij"
    )
    pts = torch.stack([xs, ys, torch.ones_like(xs)], -1).reshape(-1, 3)
    Hs = torch.tensor([[1.0, 0.1, 0.5], [0.05, 0.9, 0.2], [1e-3, 1e-3, 1.0]], dtype=dtype)
    q = pts @ torch.linalg.inv(Hs).T
    q = q[:, :2] / q[:, 2:3]
    grid = torch.stack([q[:, 0] / 11 * 2 - 1, q[:, 1] / 9 * 2 - 1], -1).view(1, 10, 12, 2)
    w = torch.nn.functional.grid_sample(img, grid, align_corners=True)
    rec("warp", w)
    rec("det", torch.linalg.det(Hs))
    rec("cond", torch.linalg.cond(Hs))
    batchH = torch.stack([Hs, Htrue]).requires_grad_()
    out = torch.linalg.solve(batchH, torch.ones(2, 3, dtype=dtype))
    out.sum().backward()
    rec("gH", batchH.grad)
    rec.err(
        "singular",
        lambda: torch.linalg.solve(torch.zeros(3, 3, dtype=dtype), torch.ones(3, dtype=dtype)),
    )
    rec.err("inv_sing", lambda: torch.linalg.inv(torch.zeros(2, 3, 3, dtype=dtype)))


def camera(torch, rec, dt):
    torch.manual_seed(10)
    dtype = getattr(torch, dt)
    K = torch.tensor([[500.0, 0, 320], [0, 500.0, 240], [0, 0, 1]], dtype=dtype)
    H, W = 4, 5
    depth = (torch.rand(2, 1, H, W, dtype=dtype) * 5 + 1).requires_grad_()
    v, u = torch.meshgrid(torch.arange(H, dtype=dtype), torch.arange(W, dtype=dtype), indexing="ij")
    pix = torch.stack([u, v, torch.ones_like(u)], 0).view(3, -1)
    rays = torch.linalg.inv(K) @ pix
    rec("rays", rays)
    pts = rays.unsqueeze(0) * depth.view(2, 1, -1)
    rec("pts", pts)
    R = torch.linalg.matrix_exp(
        torch.tensor([[0, -0.1, 0.05], [0.1, 0, -0.02], [-0.05, 0.02, 0]], dtype=dtype)
    )
    t = torch.tensor([0.1, -0.05, 0.2], dtype=dtype)
    cam2 = torch.einsum("ij,bjn->bin", R, pts) + t[None, :, None]
    proj = K @ cam2
    uv = proj[:, :2] / proj[:, 2:].clamp(min=1e-6)
    rec("uv", uv)
    T = torch.eye(4, dtype=dtype)
    T[:3, :3] = R
    T[:3, 3] = t
    hom = torch.nn.functional.pad(pts, (0, 0, 0, 1), value=1.0)
    rec("hom", hom[:, :, :3])
    c2 = (T @ hom)[:, :3]
    rec("c2", c2)
    uv.sum().backward()
    rec("gdepth", depth.grad)
    rec("Tinv", torch.linalg.inv(T))
    rec("baddbmm", torch.baddbmm(t.view(1, 3, 1).expand(2, 3, 1), R.expand(2, 3, 3), pts[:, :, :1]))
    rec.err("bad_mm", lambda: K @ pts.view(2, 20, 3))


def rotations(torch, rec, dt):
    torch.manual_seed(11)
    dtype = getattr(torch, dt)
    q = torch.randn(5, 4, dtype=dtype)
    q = q / q.norm(dim=-1, keepdim=True)
    q.requires_grad_()
    w, x, y, z = q.unbind(-1)
    R = torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - z * w),
            2 * (x * z + y * w),
            2 * (x * y + z * w),
            1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),
            2 * (x * z - y * w),
            2 * (y * z + x * w),
            1 - 2 * (x * x + y * y),
        ],
        -1,
    ).view(-1, 3, 3)
    rec("R", R)
    rec("orth", R @ R.transpose(-1, -2))
    rec("det", torch.det(R))
    # matrix -> quat
    tr = R.diagonal(dim1=-2, dim2=-1).sum(-1)
    qw = torch.sqrt(torch.clamp(1 + tr, min=1e-12)) / 2
    rec("qw", qw)
    # axis-angle
    aa = torch.randn(5, 3, dtype=dtype, requires_grad=True)
    th = aa.norm(dim=-1, keepdim=True)
    k = aa / th
    Kx = torch.zeros(5, 3, 3, dtype=dtype)
    Kx = torch.stack(
        [
            torch.zeros_like(k[:, 0]),
            -k[:, 2],
            k[:, 1],
            k[:, 2],
            torch.zeros_like(k[:, 0]),
            -k[:, 0],
            -k[:, 1],
            k[:, 0],
            torch.zeros_like(k[:, 0]),
        ],
        -1,
    ).view(5, 3, 3)
    Rr = (
        torch.eye(3, dtype=dtype)
        + torch.sin(th)[..., None] * Kx
        + (1 - torch.cos(th))[..., None] * (Kx @ Kx)
    )
    rec("Rrod", Rr)
    S = torch.cross(
        aa[:, None, :].expand(5, 3, 3), torch.eye(3, dtype=dtype).expand(5, 3, 3), dim=-1
    )
    rec("S", S)
    Re = torch.linalg.matrix_exp(-S)
    rec("Rexp", Re)
    (Rr.sum() + Re.pow(2).sum() * 0 + Re[:, 0, 1].sum() + R.sum()).backward()
    rec("gaa", aa.grad)
    rec("gq", q.grad)
    # log map
    cosang = ((Rr.diagonal(dim1=1, dim2=2).sum(-1) - 1) / 2).clamp(-1, 1)
    rec("ang", torch.acos(cosang))
    rec("atan2", torch.atan2(Rr[:, 1, 0], Rr[:, 0, 0]))
    rec("cross_default", torch.linalg.cross(aa, torch.ones(5, 3, dtype=dtype)))
    # slerp
    q0, q1 = q[0].detach(), q[1].detach()
    d = torch.dot(q0, q1)
    q1 = torch.where(d < 0, -q1, q1)
    omega = torch.acos(torch.dot(q0, q1).clamp(-1, 1))
    ts = torch.linspace(0, 1, 5, dtype=dtype)[:, None]
    sl = (torch.sin((1 - ts) * omega) * q0 + torch.sin(ts * omega) * q1) / torch.sin(omega)
    rec("slerp", sl)


def kabsch(torch, rec, dt):
    torch.manual_seed(12)
    dtype = getattr(torch, dt)
    P = torch.randn(3, 10, 3, dtype=dtype)
    Rt = torch.linalg.qr(torch.randn(3, 3, 3, dtype=dtype)).Q
    Q = (
        P @ Rt.transpose(-1, -2)
        + torch.randn(3, 1, 3, dtype=dtype)
        + 0.01 * torch.randn(3, 10, 3, dtype=dtype)
    )
    P.requires_grad_()
    pc, qc = P.mean(1, keepdim=True), Q.mean(1, keepdim=True)
    Hm = (P - pc).transpose(1, 2) @ (Q - qc)
    U, S, Vh = torch.linalg.svd(Hm)
    d = torch.sign(torch.det(Vh.transpose(1, 2) @ U.transpose(1, 2)))
    D = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], -1))
    R = Vh.transpose(1, 2) @ D @ U.transpose(1, 2)
    rec("R", R)
    rec("d", d)
    t = qc - pc @ R.transpose(1, 2)
    aligned = P @ R.transpose(1, 2) + t
    rmsd = ((aligned - Q) ** 2).sum(-1).mean(-1).sqrt()
    rec("rmsd", rmsd)
    rmsd.sum().backward()
    rec("gP", P.grad)
    rec("Sv", torch.linalg.svdvals(Hm))
    U2, S2, V2 = torch.svd(Hm.detach())
    rec("svdS", S2)
    rec(
        "ortho_R",
        torch.dist(
            R.detach() @ R.detach().transpose(1, 2), torch.eye(3, dtype=dtype).expand(3, 3, 3)
        ),
    )
    sc = torch.trace(torch.diag(S[0].detach())) / ((P[0].detach() - pc[0].detach()) ** 2).sum()
    rec("scale", sc)
    rec("qrR", torch.linalg.qr(P[0].detach(), mode="r").R)
    rec("det_sign", torch.linalg.slogdet(Rt).sign)


def pointcloud(torch, rec, dt):
    torch.manual_seed(13)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    B, N, k = 2, 32, 4
    pts = torch.rand(B, N, 3, dtype=dtype)
    d = torch.cdist(pts, pts)
    rec("~d", d)
    dist, idx = d.topk(k, dim=-1, largest=False)
    rec("~dist", dist)
    rec("idx", idx)
    nb = torch.gather(
        pts.unsqueeze(1).expand(B, N, N, 3), 2, idx.unsqueeze(-1).expand(-1, -1, -1, 3)
    )
    rec("nb", nb)
    bidx = torch.arange(B).view(B, 1, 1)
    nb2 = pts[bidx, idx]
    rec("nb2", nb2)
    # FPS
    npoint = 6
    cent = torch.zeros(B, npoint, dtype=torch.long)
    distance = torch.ones(B, N, dtype=dtype) * 1e10
    far = torch.zeros(B, dtype=torch.long)
    bi = torch.arange(B, dtype=torch.long)
    for i in range(npoint):
        cent[:, i] = far
        c = pts[bi, far, :].view(B, 1, 3)
        dd = torch.sum((pts - c) ** 2, -1)
        m = dd < distance
        distance[m] = dd[m]
        far = torch.max(distance, -1)[1]
    rec("fps", cent)
    # pointnet
    mlp = torch.nn.Sequential(
        torch.nn.Conv1d(3, 16, 1),
        torch.nn.BatchNorm1d(16),
        torch.nn.ReLU(),
        torch.nn.Conv1d(16, 8, 1),
    ).to(dtype)
    x = pts.transpose(1, 2).requires_grad_()
    f = mlp(x)
    g = torch.max(f, 2, keepdim=True)[0]
    rec("g", g)
    g2 = F.adaptive_max_pool1d(f, 1)
    rec("g2", g2)
    g.sum().backward()
    rec("gx", x.grad)
    # chamfer
    a = torch.rand(B, 20, 3, dtype=dtype, requires_grad=True)
    b = torch.rand(B, 25, 3, dtype=dtype)
    dd = torch.cdist(a, b) ** 2
    ch = dd.min(2).values.mean(1) + dd.min(1).values.mean(1)
    rec("ch", ch)
    ch.sum().backward()
    rec("ga", a.grad)
    dd2 = ((a[:, :, None] - b[:, None]) ** 2).sum(-1)
    rec("dd2", dd2)
    rec("cd_p1", torch.cdist(a, b, p=1))
    rec("cd_mm", torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"))
    rec.err("cdist_bad", lambda: torch.cdist(a, b[..., :2]))
    # ball query-ish
    r = 0.3
    gi = torch.arange(N).view(1, 1, N).repeat(B, 6, 1)
    sd = torch.cdist(pts[bi[:, None], cent], pts)
    gi[sd > r] = N
    gi = gi.sort(dim=-1)[0][:, :, :4]
    first = gi[:, :, 0:1].repeat(1, 1, 4)
    gi[gi == N] = first[gi == N]
    rec("ball", gi)


def filters_ssim(torch, rec, dt):
    torch.manual_seed(14)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    C = 3
    img1 = torch.rand(2, C, 16, 16, dtype=dtype)
    img2 = (img1 + 0.05 * torch.randn_like(img1)).clamp(0, 1).requires_grad_()
    ks, sigma = 7, 1.5
    coords = torch.arange(ks, dtype=dtype) - ks // 2
    g = torch.exp(-(coords**2) / (2 * sigma**2))
    g = g / g.sum()
    k2 = g[:, None] * g[None, :]
    w = k2.expand(C, 1, ks, ks).contiguous()
    rec("w", w)
    blur = F.conv2d(img1, w, padding=ks // 2, groups=C)
    rec("blur", blur)
    blur_r = F.conv2d(F.pad(img1, (3, 3, 3, 3), mode="reflect"), w, groups=C)
    rec("blur_r", blur_r)
    blur_sep = F.conv2d(
        F.conv2d(img1, g.view(1, 1, 1, ks).repeat(C, 1, 1, 1), padding=(0, 3), groups=C),
        g.view(1, 1, ks, 1).repeat(C, 1, 1, 1),
        padding=(3, 0),
        groups=C,
    )
    rec("blur_sep", blur_sep)
    sob = torch.tensor([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=dtype)
    kx = sob.view(1, 1, 3, 3).repeat(C, 1, 1, 1)
    ky = sob.t().reshape(1, 1, 3, 3).repeat(C, 1, 1, 1)
    gx = F.conv2d(F.pad(img1, [1] * 4, mode="replicate"), kx, groups=C)
    gy = F.conv2d(F.pad(img1, [1] * 4, mode="replicate"), ky, groups=C)
    mag = torch.sqrt(gx**2 + gy**2 + 1e-12)
    rec("mag", mag)
    rec("ori", torch.atan2(gy, gx))
    C1, C2 = 0.01**2, 0.03**2

    def filt(x):
        return F.conv2d(x, w, groups=C)

    mu1, mu2 = filt(img1), filt(img2)
    s11 = filt(img1 * img1) - mu1**2
    s22 = filt(img2 * img2) - mu2**2
    s12 = filt(img1 * img2) - mu1 * mu2
    ssim_map = ((2 * mu1 * mu2 + C1) * (2 * s12 + C2)) / ((mu1**2 + mu2**2 + C1) * (s11 + s22 + C2))
    ssim = ssim_map.mean(dim=(1, 2, 3))
    rec("ssim", ssim)
    mse = F.mse_loss(img2, img1, reduction="none").flatten(1).mean(1)
    psnr = 10 * torch.log10(1.0 / mse)
    rec("psnr", psnr)
    (1 - ssim).sum().backward()
    rec("g2", img2.grad)
    lap = torch.tensor([[0.0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=dtype)
    rec("lap", F.conv2d(img1.mean(1, keepdim=True), lap[None, None], padding="same"))
    rec("avg", F.avg_pool2d(img1, 3, stride=1, padding=1, count_include_pad=False))
    rec("med", img1.unfold(2, 3, 1).unfold(3, 3, 1).reshape(2, C, 14, 14, 9).median(-1).values)
    rec.err("groups_bad", lambda: F.conv2d(img1, w[:2], groups=C))
    rec.err("groups_bad2", lambda: F.conv2d(img1, w, groups=2))


def color(torch, rec, dt):
    torch.manual_seed(15)
    dtype = getattr(torch, dt)
    img = torch.rand(2, 3, 5, 5, dtype=dtype)
    img[0, :, 0, 0] = 0.5
    r, g, b = img.unbind(1)
    maxc, _ = img.max(dim=1)
    minc = torch.min(img, dim=1).values
    eqc = maxc == minc
    cr = maxc - minc
    ones = torch.ones_like(maxc)
    s = cr / torch.where(eqc, ones, maxc)
    cr_div = torch.where(eqc, ones, cr)
    rc = (maxc - r) / cr_div
    gc = (maxc - g) / cr_div
    bc = (maxc - b) / cr_div
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = hr + hg + hb
    h = torch.fmod((h / 6.0 + 1.0), 1.0)
    hsv = torch.stack((h, s, maxc), dim=1)
    rec("hsv", hsv)
    # hsv -> rgb
    h, s, v = hsv.unbind(1)
    i = torch.floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(dtype=torch.int32)
    p = torch.clamp((v * (1.0 - s)), 0.0, 1.0)
    q = torch.clamp((v * (1.0 - s * f)), 0.0, 1.0)
    t = torch.clamp((v * (1.0 - s * (1.0 - f))), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=-3) == torch.arange(6).view(-1, 1, 1)
    rec("mask", mask)
    a1 = torch.stack((v, q, p, p, t, v), dim=-3)
    a2 = torch.stack((t, v, v, q, p, p), dim=-3)
    a3 = torch.stack((p, p, t, v, v, q), dim=-3)
    a4 = torch.stack((a1, a2, a3), dim=-4)
    back = torch.einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=dtype), a4)
    rec("back", back)
    gray = (0.2989 * img[:, 0] + 0.587 * img[:, 1] + 0.114 * img[:, 2]).to(img.dtype).unsqueeze(1)
    rec("gray", gray)

    def blend(a, b, ratio):
        return (ratio * a + (1.0 - ratio) * b).clamp(0, 1.0).to(a.dtype)

    rec("bright", blend(img, torch.zeros_like(img), 1.3))
    mean = torch.mean(gray, dim=(-3, -2, -1), keepdim=True)
    rec("contrast", blend(img, mean, 0.7))
    rec("sat", blend(img, gray, 1.5))
    hue = torch.remainder(hsv[:, 0] + 0.1, 1.0)
    rec("hue", hue)
    u8 = (img * 255).round().to(torch.uint8)
    rec("u8", u8)
    rec("u8f", u8.float() / 255)
    rec("u8div", u8 / 255)
    rec("u8sum", u8.sum(dim=1))
    rec("u8mean", u8.to(dtype).mean(dim=(2, 3)))
    rec("inv", 255 - u8)
    rec("posterize", u8 & 0b11110000)
    rec("solarize", torch.where(u8 >= 128, 255 - u8, u8))
    rec.err("u8mean_err", lambda: u8.mean())
    ycbcr = torch.stack(
        [
            0.299 * r + 0.587 * g + 0.114 * b,
            -0.168736 * r - 0.331264 * g + 0.5 * b + 0.5,
            0.5 * r - 0.418688 * g - 0.081312 * b + 0.5,
        ],
        1,
    )
    rec("ycbcr", ycbcr)
    norm = (img - torch.tensor([0.485, 0.456, 0.406], dtype=dtype).view(-1, 1, 1)) / torch.tensor(
        [0.229, 0.224, 0.225], dtype=dtype
    )[:, None, None]
    rec("norm", norm)


def augment(torch, rec, dt):
    dtype = getattr(torch, dt)
    gen = torch.Generator().manual_seed(16)
    img = torch.rand(3, 12, 14, generator=gen, dtype=dtype)
    H, W = img.shape[-2:]
    th, tw = 8, 9
    i = torch.randint(0, H - th + 1, size=(1,), generator=gen).item()
    j = torch.randint(0, W - tw + 1, size=(1,), generator=gen).item()
    rec("ij", torch.tensor([i, j]))
    crop = img[..., i : i + th, j : j + tw]
    rec("crop", crop)
    if torch.rand(1, generator=gen) < 0.5:
        crop = crop.flip(-1)
    rec("flip", crop)
    fv = torch.rand(1, generator=gen).item()
    rec("fv", torch.tensor(fv))
    b = torch.empty(1, dtype=dtype).uniform_(0.6, 1.4, generator=gen)
    rec("b", b)
    perm = torch.randperm(4, generator=gen)
    rec("perm", perm)
    area = H * W
    target_area = area * torch.empty(1).uniform_(0.08, 1.0, generator=gen).item()
    log_ratio = torch.log(torch.tensor((3.0 / 4, 4.0 / 3)))
    ar = torch.exp(torch.empty(1).uniform_(log_ratio[0], log_ratio[1], generator=gen)).item()
    w = int(round(math.sqrt(target_area * ar)))
    h = int(round(math.sqrt(target_area / ar)))
    rec("wh", torch.tensor([w, h]))
    # random erasing
    x = img.clone()
    v = torch.empty([3, 2, 3], dtype=dtype).normal_(generator=gen)
    x[:, 1:3, 2:5] = v
    rec("erase", x)
    # global seed path
    torch.manual_seed(17)
    rec("r", torch.rand(3))
    rec("rn", torch.randn(2, 2, dtype=dtype))
    rec("ri", torch.randint(10, (5,)))
    rec("rp", torch.randperm(7))
    rec("bern", torch.bernoulli(torch.full((6,), 0.5)))
    gen2 = torch.Generator()
    gen2.manual_seed(3)
    rec("rp2", torch.randperm(10, generator=gen2))
    rec(
        "mult",
        torch.multinomial(torch.tensor([0.1, 0.5, 0.4]), 4, replacement=True, generator=gen2),
    )
    rec("normal", torch.normal(0.0, 1.0, size=(3,), generator=gen2))
    rec("rlike", torch.rand_like(img[0, :2, :2]))
    rec(
        "state_eq",
        torch.equal(
            torch.random.get_rng_state() if hasattr(torch, "random") else torch.get_rng_state(),
            torch.get_rng_state(),
        ),
    )


def mixup_cutmix(torch, rec, dt):
    torch.manual_seed(18)
    dtype = getattr(torch, dt)
    B, C, H, W, K = 4, 3, 8, 8, 5
    x = torch.rand(B, C, H, W, dtype=dtype)
    y = torch.randint(0, K, (B,))
    beta = torch.distributions.Beta(torch.tensor([0.4]), torch.tensor([0.4]))
    lam = beta.sample().item()
    rec("lam", torch.tensor(lam))
    lam2 = (
        float(torch._sample_dirichlet(torch.tensor([1.0, 1.0]))[0])
        if hasattr(torch, "_sample_dirichlet")
        else 0.3
    )
    rec("lam2", torch.tensor(lam2))
    idx = torch.randperm(B)
    rec("idx", idx)
    yo = torch.nn.functional.one_hot(y, num_classes=K).to(dtype)
    xm = lam * x + (1 - lam) * x[idx]
    ym = yo.roll(1, 0).mul_(1.0 - lam).add_(yo.mul(lam))
    rec("xm", xm)
    rec("ym", ym)
    # cutmix
    lam = float(torch.distributions.Beta(1.0, 1.0).sample(()))
    rec("lamc", torch.tensor(lam))
    r_x = torch.randint(W, (1,))
    r_y = torch.randint(H, (1,))
    r = 0.5 * math.sqrt(1.0 - lam)
    r_w_half = int(r * W)
    r_h_half = int(r * H)
    x1 = int(torch.clamp(r_x - r_w_half, min=0))
    y1 = int(torch.clamp(r_y - r_h_half, min=0))
    x2 = int(torch.clamp(r_x + r_w_half, max=W))
    y2 = int(torch.clamp(r_y + r_h_half, max=H))
    xc = x.clone()
    xc[:, :, y1:y2, x1:x2] = x.roll(1, 0)[:, :, y1:y2, x1:x2]
    lam_adj = float(1.0 - (x2 - x1) * (y2 - y1) / (W * H))
    rec("box", torch.tensor([x1, y1, x2, y2]))
    rec("lamadj", torch.tensor(lam_adj))
    rec("xc", xc)
    logits = torch.randn(B, K, dtype=dtype, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(logits, ym)
    rec("loss", loss)
    loss2 = lam_adj * torch.nn.functional.cross_entropy(logits, y) + (
        1 - lam_adj
    ) * torch.nn.functional.cross_entropy(logits, y[idx], label_smoothing=0.1)
    rec("loss2", loss2)
    (loss + loss2).backward()
    rec("g", logits.grad)
    d = torch.distributions.Dirichlet(torch.ones(3, dtype=dtype))
    rec("dir", d.sample((2,)))
    rec("gamma", torch.distributions.Gamma(torch.tensor(0.5, dtype=dtype), 1.0).sample((3,)))
    rec(
        "beta_rs",
        torch.distributions.Beta(
            torch.tensor([2.0], dtype=dtype), torch.tensor([3.0], dtype=dtype)
        ).rsample((2,)),
    )


def resize(torch, rec, dt):
    torch.manual_seed(19)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    x = torch.rand(2, 3, 11, 13, dtype=dtype, requires_grad=True)
    for mode, kw in [
        ("nearest", {}),
        ("nearest-exact", {}),
        ("bilinear", {"align_corners": False}),
        ("bilinear", {"align_corners": True}),
        ("bicubic", {"align_corners": False}),
        ("bilinear", {"antialias": True}),
        ("bicubic", {"antialias": True}),
        ("lanczos", {"antialias": True}),
        ("area", {}),
    ]:
        for size in [(5, 6), (17, 29), (11, 7)]:
            y = F.interpolate(x, size=size, mode=mode, **kw)
            rec(f"{mode}{kw}{size}", y)
            (g,) = torch.autograd.grad((y * y).sum(), x)
            rec(f"g{mode}{kw}{size}", g)
        for sf, rsf in [(0.37, True), (0.37, None), (1.7, True), ((2.3, 0.6), False)]:
            y = F.interpolate(x, scale_factor=sf, mode=mode, recompute_scale_factor=rsf, **kw)
            rec(f"sf{mode}{kw}{sf}{rsf}", y)
    rec.err("aa_nearest", lambda: F.interpolate(x, size=(4, 4), mode="nearest", antialias=True))
    rec.err("ac_nearest", lambda: F.interpolate(x, size=(4, 4), mode="nearest", align_corners=True))
    rec.err("lz_noaa", lambda: F.interpolate(x, size=(4, 4), mode="lanczos"))
    rec.err(
        "lz_ac",
        lambda: F.interpolate(x, size=(4, 4), mode="lanczos", antialias=True, align_corners=True),
    )
    rec(
        "u8lz",
        F.interpolate(
            (torch.rand(1, 3, 6, 6) * 255).to(torch.uint8),
            size=(4, 9),
            mode="lanczos",
            antialias=True,
        ),
    )
    rec.err("both", lambda: F.interpolate(x, size=(4, 4), scale_factor=2))
    rec.err("neither", lambda: F.interpolate(x))
    rec.err("bad_len", lambda: F.interpolate(x, size=(4, 4, 4)))
    rec.err("bilinear3d", lambda: F.interpolate(x[0], size=4, mode="bilinear"))
    rec.err("trilinear4d", lambda: F.interpolate(x, size=4, mode="trilinear"))
    rec.err("rsf_size", lambda: F.interpolate(x, size=4, recompute_scale_factor=True))
    up = torch.nn.Upsample(scale_factor=2, mode="bilinear")
    rec("up", up(x))
    rec("uprepr", repr(up))
    up2 = torch.nn.UpsamplingNearest2d(scale_factor=2)
    rec("up2", up2(x))
    rec("up2r", repr(up2))
    up3 = torch.nn.UpsamplingBilinear2d(size=(4, 5))
    rec("up3", up3(x))
    rec("up3r", repr(up3))
    x8 = (torch.rand(1, 3, 6, 6) * 255).to(torch.uint8)
    rec("u8near", F.interpolate(x8, size=(9, 9), mode="nearest"))
    rec("u8bil", F.interpolate(x8, size=(4, 4), mode="bilinear", antialias=True))
    rec("u8bil2", F.interpolate(x8, size=(9, 9), mode="bilinear"))
    rec.err("u8bicubic", lambda: F.interpolate(x8, size=(4, 5), mode="bicubic"))
    v = torch.rand(1, 2, 4, 5, 6, dtype=dtype)
    rec("tri", F.interpolate(v, scale_factor=(1.5, 0.5, 2), mode="trilinear"))
    rec("near3", F.interpolate(v, size=(3, 7, 4), mode="nearest-exact"))
    s = torch.rand(2, 3, 9, dtype=dtype)
    rec("lin", F.interpolate(s, size=14, mode="linear", align_corners=True))
    rec("area1", F.interpolate(s, size=4, mode="area"))


def shuffle_unfold(torch, rec, dt):
    torch.manual_seed(20)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    x = torch.randn(2, 8, 3, 5, dtype=dtype, requires_grad=True)
    ps = F.pixel_shuffle(x, 2)
    rec("ps", ps)
    rec("pu", F.pixel_unshuffle(ps, 2))
    rec("psmod", torch.nn.PixelShuffle(2)(x))
    rec("psr", repr(torch.nn.PixelUnshuffle(3)))
    (g,) = torch.autograd.grad(ps.pow(3).sum(), x)
    rec("g", g)
    rec.err("ps_bad", lambda: F.pixel_shuffle(x, 3))
    rec.err("pu_bad", lambda: F.pixel_unshuffle(x, 2))
    rec.err("ps_dim", lambda: F.pixel_shuffle(x[0, 0], 2))
    # patches
    img = torch.rand(2, 3, 10, 12, dtype=dtype, requires_grad=True)
    k, s = 4, 2
    p = F.unfold(img, kernel_size=k, stride=s)
    rec("p", p)
    L = p.shape[-1]
    patches = p.transpose(1, 2).reshape(2, L, 3, k, k)
    rec("patches", patches[:, 3])
    rec_img = F.fold(p, output_size=(10, 12), kernel_size=k, stride=s)
    norm = F.fold(F.unfold(torch.ones_like(img), k, stride=s), (10, 12), k, stride=s)
    rec("norm", norm)
    recon = rec_img / norm
    rec("recon", recon)
    recon.sum().backward()
    rec("gimg", img.grad)
    p2 = F.unfold(img, kernel_size=(3, 2), dilation=(2, 1), padding=1, stride=(1, 3))
    rec("p2", p2)
    rec("fold2", F.fold(p2, (10, 12), (3, 2), dilation=(2, 1), padding=1, stride=(1, 3)))
    rec("unf_mod", torch.nn.Unfold(3, padding=1)(img[:1]).shape)
    rec("fold_r", repr(torch.nn.Fold((4, 5), 2)))
    tu = img.unfold(2, 4, 2).unfold(3, 4, 2)
    rec("tu", tu.shape)
    rec("tu5", tu[0, 1, 2, 3])
    rec.err("fold_bad", lambda: F.fold(p, output_size=(10, 11), kernel_size=k, stride=s))
    rec.err("fold_bad2", lambda: F.fold(p[:, :-1], output_size=(10, 12), kernel_size=k, stride=s))
    rec.err("unfold_bad", lambda: F.unfold(img[0, 0], 3))
    rec.err("unfold_big", lambda: F.unfold(img, 11))
    # vit patchify via einops-style reshape
    B, C, H, W, P = 2, 3, 8, 12, 4
    v = torch.rand(B, C, H, W, dtype=dtype)
    t = v.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 3, 5, 1).reshape(B, -1, P * P * C)
    rec("vit", t)
    t2 = F.unfold(v, P, stride=P).transpose(1, 2)
    rec("vit2", t2)


def seg_losses(torch, rec, dt):
    torch.manual_seed(21)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    B, K, H, W = 2, 4, 6, 7
    logits = torch.randn(B, K, H, W, dtype=dtype, requires_grad=True)
    tgt = torch.randint(0, K, (B, H, W))
    tgt[0, 0, :3] = 255
    ce = F.cross_entropy(logits, tgt, ignore_index=255)
    rec("ce", ce)
    w = torch.tensor([0.5, 1.0, 2.0, 1.5], dtype=dtype)
    cew = F.cross_entropy(logits, tgt, weight=w, ignore_index=255, label_smoothing=0.05)
    rec("cew", cew)
    cen = F.cross_entropy(logits, tgt, ignore_index=255, reduction="none")
    rec("cen", cen)
    t2 = tgt.clone()
    t2[t2 == 255] = 0
    oh = F.one_hot(t2, K).permute(0, 3, 1, 2).to(dtype)
    valid = (tgt != 255).unsqueeze(1).to(dtype)
    prob = logits.softmax(dim=1)
    inter = (prob * oh * valid).sum(dim=(0, 2, 3))
    card = ((prob + oh) * valid).sum(dim=(0, 2, 3))
    dice = (2 * inter + 1) / (card + 1)
    rec("dice", dice)
    loss = ce + (1 - dice).mean()
    loss.backward()
    rec("g", logits.grad)
    pred = logits.argmax(1)
    rec("pred", pred)
    ious = []
    for c in range(K):
        pi = (pred == c) & (tgt != 255)
        ti = tgt == c
        i = (pi & ti).sum().float()
        u = (pi | ti).sum().float()
        ious.append(i / u if u > 0 else torch.tensor(float("nan")))
    miou = torch.stack(ious)
    rec("ious", miou)
    rec("miou", torch.nanmean(miou))
    cm = torch.bincount(tgt[tgt != 255] * K + pred[tgt != 255], minlength=K * K).reshape(K, K)
    rec("cm", cm)
    rec("acc", cm.diag().sum() / cm.sum())
    rec("hist", torch.histc(logits.detach(), bins=8, min=-2, max=2))
    rec("hist_auto", torch.histc(logits.detach()[0, 0], bins=5))
    h, edges = torch.histogram(
        logits.detach().flatten().to(torch.float32 if dtype == torch.float32 else torch.float64),
        bins=6,
        range=(-3.0, 3.0),
        density=True,
    )
    rec("histogram", h)
    rec("edges", edges)
    rec("bucket", torch.bucketize(logits.detach()[0, 0, 0], torch.linspace(-1, 1, 5, dtype=dtype)))
    rec(
        "nll2d",
        F.nll_loss(F.log_softmax(logits.detach(), 1), tgt, ignore_index=255, reduction="sum"),
    )
    bce = F.binary_cross_entropy_with_logits(
        logits[:, 0], (tgt == 1).to(dtype), pos_weight=torch.tensor(3.0, dtype=dtype)
    )
    rec("bce", bce)
    rec.err("ce_bad_tgt", lambda: F.cross_entropy(logits, tgt.float()))
    rec.err("ce_bad_shape", lambda: F.cross_entropy(logits, tgt[:, :5]))
    rec.err("ce_oob", lambda: F.cross_entropy(logits, tgt.clamp(max=10) + 1))
    rec.err("oh_neg", lambda: F.one_hot(tgt - 300, K))


def make_grid_prog(torch, rec, dt):
    torch.manual_seed(22)
    dtype = getattr(torch, dt)
    imgs = torch.rand(5, 3, 4, 4, dtype=dtype)
    nrow, pad = 3, 1
    ncol = math.ceil(imgs.shape[0] / nrow)
    H, W = imgs.shape[2] + pad, imgs.shape[3] + pad
    grid = imgs.new_full((3, H * ncol + pad, W * nrow + pad), 0.5)
    k = 0
    for y in range(ncol):
        for x in range(nrow):
            if k >= imgs.shape[0]:
                break
            grid.narrow(1, y * H + pad, H - pad).narrow(2, x * W + pad, W - pad).copy_(imgs[k])
            k += 1
    rec("grid", grid)
    lo, hi = float(imgs.min()), float(imgs.max())
    norm = imgs.clone().clamp_(min=lo, max=hi).sub_(lo).div_(max(hi - lo, 1e-5))
    rec("norm", norm)
    ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", torch.uint8)
    rec("nd", ndarr)
    cl = imgs.contiguous(memory_format=torch.channels_last)
    rec("cl_stride", cl.stride())
    rec("cl_is", cl.is_contiguous(memory_format=torch.channels_last))
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).to(dtype)
    y = conv(cl)
    rec("y", y)
    # (outputs of conv/interpolate are row-major here: README, "Memory formats")
    up = torch.nn.functional.interpolate(cl, scale_factor=2, mode="bilinear", align_corners=False)
    rec("up", up)
    ct = torch.nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1).to(dtype)
    rec("ct", ct(imgs))
    rec("pad3d", torch.nn.functional.pad(imgs[None], (1, 1, 2, 0, 1, 1), mode="replicate"))
    rec("pad_circ", torch.nn.functional.pad(imgs, (1, 2, 2, 1), mode="circular"))
    rec.err("pad_reflect_big", lambda: torch.nn.functional.pad(imgs, (4, 4, 0, 0), mode="reflect"))
    rec("rot90", torch.rot90(imgs, 1, (2, 3)))
    rec("rot90k", torch.rot90(imgs, -3, [2, 3]))
    rec("transpose_hw", imgs.transpose(-1, -2).contiguous())
    rec("chw_hwc", imgs.permute(0, 2, 3, 1).reshape(-1, 3).mean(0))
    rec("std", imgs.std(dim=(0, 2, 3)))
    rec("var_mean", torch.var_mean(imgs, dim=(0, 2, 3), unbiased=False)[0])


def stn_mistakes(torch, rec, dt):
    torch.manual_seed(23)
    dtype = getattr(torch, dt)
    F = torch.nn.functional
    x = torch.rand(2, 1, 6, 6, dtype=dtype)
    theta = torch.tensor([[1, 0, 0], [0, 1, 0]], dtype=dtype).repeat(2, 1, 1)
    rec.err("theta_unbatched", lambda: F.affine_grid(theta[0], x.size(), align_corners=False))
    rec.err("theta_wrong_N", lambda: F.affine_grid(theta[:1], x.size(), align_corners=False))
    rec.err("size_3d", lambda: F.affine_grid(theta, (2, 6, 6), align_corners=False))
    g = F.affine_grid(theta, x.size(), align_corners=False)
    rec("id", F.grid_sample(x, g, align_corners=False))
    rec.err(
        "grid_dtype",
        lambda: F.grid_sample(
            x, g.float() if dtype == torch.float64 else g.double(), align_corners=False
        ),
    )
    rec.err("grid_perm", lambda: F.grid_sample(x, g.permute(0, 3, 1, 2), align_corners=False))
    rec.err("int_input", lambda: F.grid_sample(x.long(), g, align_corners=False))
    rec.err("unit_ac", lambda: F.affine_grid(theta, (2, 1, 1, 6), align_corners=True))
    rec("unit_ac_v", F.affine_grid(theta, (2, 1, 1, 3), align_corners=True))
    rec.err("theta_list", lambda: F.affine_grid([[1, 0, 0]], x.size(), align_corners=False))
    rec.err("grid_np", lambda: F.grid_sample(x, g.numpy(), align_corners=False))
    rec.err("ac_str", lambda: F.grid_sample(x, g, align_corners="True"))
    rec.err("interp_ac_near", lambda: F.interpolate(x, scale_factor=2, align_corners=False))
    rec.err("ps_float", lambda: F.pixel_shuffle(x, 1.5))
    rec.err("unfold_kernel0", lambda: F.unfold(x, 0))
    rec.err(
        "conv_groups",
        lambda: F.conv2d(x.expand(2, 3, 6, 6), torch.ones(3, 2, 3, 3, dtype=dtype), groups=3),
    )
    rec.err("oh_float", lambda: F.one_hot(torch.tensor([1.0, 2.0]), 3))
    rec.err(
        "cdist_int",
        lambda: torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long)),
    )
    rec.err("svd_int", lambda: torch.linalg.svd(torch.ones(3, 3, dtype=torch.long)))
    rec.err("stack_mismatch", lambda: torch.stack([torch.ones(2), torch.ones(3)]))
    rec.err("box_broadcast", lambda: torch.max(torch.ones(3, 1, 2), torch.ones(4, 3)))


PROGRAMS = [
    box_utils,
    nms_prog,
    anchors_prog,
    encode_decode,
    matching,
    grid_sample_modes,
    affine_warps,
    flow_warp,
    deform_sampling,
    roi_align,
    homography,
    camera,
    rotations,
    kabsch,
    pointcloud,
    filters_ssim,
    color,
    augment,
    mixup_cutmix,
    resize,
    shuffle_unfold,
    seg_losses,
    make_grid_prog,
    stn_mistakes,
]


def _rec():
    return Rec(dtypes=True, first_line=True, reprs=True, err_warnings=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_vision_program_vs_torch(prog, dt):
    def run(lib, rec):
        prog(lib, rec, dt)

    want = run_program(run, torch, rec=_rec())
    got = run_program(run, minitorch, rec=_rec())

    def tol(name, u):
        t = 1e-4 if dt == "float32" or u.dtype == np.float32 else 1e-9
        if name.startswith("~") and t == 1e-4:  # float32 distances: the CPU's summation order
            return 1e-3
        return max(t, 1e-7) if name.startswith("~") else t  # sqrt of round-off at zero distance

    assert_records_match(want, got, tol, floor=1.0, rel=True)
