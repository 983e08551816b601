"""Session 28 (helper det): object-detection programs written by hand in torch (what torchvision,
DETR, YOLO, CenterNet and mmdet users write), run under torch and minitorch with the same seeds and
compared record by record: box ops (area, IoU/GIoU/DIoU/CIoU matrices with gradients, int and half
boxes, cxcywh round trips), greedy NMS (argsort loop, suppression mask, fast NMS, soft-NMS),
batched NMS by coordinate offsets and per class, anchor generation (meshgrid ij/xy, int32 shifts,
repeat/repeat_interleave), the Faster R-CNN box coder with its dw/dh clamp and YOLOv5 decoding,
sigmoid focal loss (double backward, gradgradcheck) and softmax focal loss, RoIAlign by
grid_sample (aligned and align_corners variants, grads to features and offsets) and RoIPool by
adaptive max pooling, an FPN/PANet with BatchNorm/GroupNorm, YOLOv3 targets (index_put_ with
accumulate, scatter_, gather, boolean masks in the middle of an index), DETR's cost matrix (cdist
p=1, softmax) with a greedy matcher and its losses, VOC/COCO mAP (cummax envelope, searchsorted,
trapezoid, 11-point), CenterNet heatmaps (maximum(out=) into a view, max_pool2d peaks, topk and
gather decoding), soft-argmax keypoints and OKS, mosaic/cutmix/mixup label mixing, smooth L1 /
Huber / balanced L1, torchvision's Matcher and uint8-mask sampler, FCOS/ATSS targets, RPN
filtering, R-CNN postprocessing and losses, the GeneralizedRCNNTransform resize and batching,
Keypoint R-CNN targets and bicubic decoding, MultiScaleRoIAlign level mapping, YOLOX SimOTA and
YOLOv8 task-aligned assignment, Matrix NMS, GFL/DFL/varifocal losses, zero-size inputs throughout,
typical mistakes (errors by type and first line), the reprs users print, and a tiny detector
trained with SGD (nesterov, per-group weight decay), LambdaLR + MultiStepLR and clip_grad_norm_
through a checkpoint round trip. float64 must agree to 1e-10 of each record's scale, float32 to
1e-4; texts exactly.

Known and left: torch's topk orders tied values its own way (its selection algorithm), so the
programs keep ties out of topk; float32 sums (einsum, cov) may differ in the last bits; torch's
jit.script compiles (and rejects) what minitorch's no-op script runs; torch.fx.wrap refuses a
call outside module level; clamp/clip called with positional mixed bounds (x.clamp(0, t)), or
with max= before min=, is worded here as for the usual min=..., max= call (the call's form is not
visible to the function)."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401  (autouse fixture)
from tests.reference._programs import Rec, assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "box_ops", "nms_greedy", "batched_nms", "anchors", "box_coder", "focal", "roi_align",
    "fpn", "yolo_targets", "detr_match", "map_eval", "centernet", "soft_argmax", "mosaic_cutmix",
    "smooth_l1", "train_tiny", "matcher_sampler", "fcos_targets", "rpn_filter", "postprocess",
    "simota", "matrix_nms", "transform", "keypoint_rcnn", "multiscale_roi", "gfl_losses",
    "empties", "mistakes", "reprs",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers: torchvision's box ops written with tensor ops ---


def _rand_boxes(lib, n, dt, size=32.0, gen=None):
    xy = lib.rand(n, 2, dtype=dt, generator=gen) * size
    wh = lib.rand(n, 2, dtype=dt, generator=gen) * (size / 2) + 1.0
    return lib.cat([xy, xy + wh], dim=1)


def _upcast(lib, t):
    if t.is_floating_point():
        return t if t.dtype in (lib.float32, lib.float64) else t.float()
    return t if t.dtype in (lib.int32, lib.int64) else t.int()


def _box_area(lib, b):
    b = _upcast(lib, b)
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def _inter_union(lib, a, b):
    area1, area2 = _box_area(lib, a), _box_area(lib, b)
    lt = lib.max(a[:, None, :2], b[:, :2])
    rb = lib.min(a[:, None, 2:], b[:, 2:])
    wh = _upcast(lib, rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter, area1[:, None] + area2 - inter


def _box_iou(lib, a, b):
    inter, union = _inter_union(lib, a, b)
    return inter / union


def _giou(lib, a, b):
    inter, union = _inter_union(lib, a, b)
    iou = inter / union
    lti = lib.min(a[:, None, :2], b[:, :2])
    rbi = lib.max(a[:, None, 2:], b[:, 2:])
    whi = _upcast(lib, rbi - lti).clamp(min=0)
    areai = whi[:, :, 0] * whi[:, :, 1]
    return iou - (areai - union) / areai


def _diou_ciou(lib, a, b, eps=1e-7):
    iou = _box_iou(lib, a, b)
    lti = lib.min(a[:, None, :2], b[:, :2])
    rbi = lib.max(a[:, None, 2:], b[:, 2:])
    whi = _upcast(lib, rbi - lti).clamp(min=0)
    diag = (whi[:, :, 0] ** 2) + (whi[:, :, 1] ** 2) + eps
    xp = (a[:, 0] + a[:, 2]) / 2
    yp = (a[:, 1] + a[:, 3]) / 2
    xg = (b[:, 0] + b[:, 2]) / 2
    yg = (b[:, 1] + b[:, 3]) / 2
    centers = (_upcast(lib, xp[:, None] - xg[None, :]) ** 2) + (
        _upcast(lib, yp[:, None] - yg[None, :]) ** 2
    )
    diou = iou - centers / diag
    w_p, h_p = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    w_g, h_g = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    v = (4 / (math.pi**2)) * lib.pow(lib.atan(w_p / h_p)[:, None] - lib.atan(w_g / h_g)[None, :], 2)
    with lib.no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou, diou - alpha * v


def _xyxy_to_cxcywh(lib, b):
    x0, y0, x1, y1 = b.unbind(-1)
    return lib.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], dim=-1)


def _cxcywh_to_xyxy(lib, b):
    cx, cy, w, h = b.unbind(-1)
    return lib.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def _nms(lib, boxes, scores, thr):
    """Greedy NMS by hand: sort, then drop what overlaps the kept box."""
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(int(i))
        if order.numel() == 1:
            break
        iou = _box_iou(lib, boxes[i].unsqueeze(0), boxes[order[1:]])[0]
        order = order[1:][iou <= thr]
    return lib.as_tensor(keep, dtype=lib.long)


def _batched_nms(lib, boxes, scores, idxs, thr):
    if boxes.numel() == 0:
        return lib.empty((0,), dtype=lib.int64, device=boxes.device)
    max_coordinate = boxes.max()
    offsets = idxs.to(boxes) * (max_coordinate + lib.tensor(1).to(boxes))
    return _nms(lib, boxes + offsets[:, None], scores, thr)


def _clip_boxes(lib, boxes, size):
    dim = boxes.dim()
    bx, by = boxes[..., 0::2], boxes[..., 1::2]
    h, w = size
    bx = bx.clamp(min=0, max=w)
    by = by.clamp(min=0, max=h)
    return lib.stack((bx, by), dim=dim).reshape(boxes.shape)


def _remove_small(lib, boxes, min_size):
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    keep = (ws >= min_size) & (hs >= min_size)
    return lib.where(keep)[0]


class _BoxCoder:
    """Faster R-CNN's (dx, dy, dw, dh) coder with the dw/dh clamp."""

    def __init__(self, lib, weights, clip=None):
        self.lib, self.weights = lib, weights
        self.clip = math.log(1000.0 / 16) if clip is None else clip

    def encode(self, ref, proposals):
        lib = self.lib
        wx, wy, ww, wh = self.weights
        ex_w = proposals[:, 2] - proposals[:, 0]
        ex_h = proposals[:, 3] - proposals[:, 1]
        ex_x = proposals[:, 0] + 0.5 * ex_w
        ex_y = proposals[:, 1] + 0.5 * ex_h
        gt_w = ref[:, 2] - ref[:, 0]
        gt_h = ref[:, 3] - ref[:, 1]
        gt_x = ref[:, 0] + 0.5 * gt_w
        gt_y = ref[:, 1] + 0.5 * gt_h
        dx = wx * (gt_x - ex_x) / ex_w
        dy = wy * (gt_y - ex_y) / ex_h
        dw = ww * lib.log(gt_w / ex_w)
        dh = wh * lib.log(gt_h / ex_h)
        return lib.cat((dx[:, None], dy[:, None], dw[:, None], dh[:, None]), dim=1)

    def decode(self, rel, boxes):
        lib = self.lib
        boxes = boxes.to(rel.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel[:, 0::4] / wx
        dy = rel[:, 1::4] / wy
        dw = lib.clamp(rel[:, 2::4] / ww, max=self.clip)
        dh = lib.clamp(rel[:, 3::4] / wh, max=self.clip)
        pcx = dx * widths[:, None] + ctr_x[:, None]
        pcy = dy * heights[:, None] + ctr_y[:, None]
        pw = lib.exp(dw) * widths[:, None]
        ph = lib.exp(dh) * heights[:, None]
        c = lib.tensor(0.5, dtype=pcy.dtype, device=pw.device)
        x1, y1 = pcx - c * pw, pcy - c * ph
        x2, y2 = pcx + c * pw, pcy + c * ph
        return lib.stack((x1, y1, x2, y2), dim=2).flatten(1)


def _sigmoid_focal(lib, inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
    F = lib.nn.functional
    p = lib.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# --- the programs: each takes the library, a dtype and a recorder ---


def p_box_ops(lib, dt, rec):
    lib.manual_seed(0)
    a = _rand_boxes(lib, 7, dt).requires_grad_()
    b = _rand_boxes(lib, 5, dt)
    rec("area", _box_area(lib, a))
    iou = _box_iou(lib, a, b)
    giou = _giou(lib, a, b)
    diou, ciou = _diou_ciou(lib, a, b)
    rec("iou", iou)
    rec("giou", giou)
    rec("diou", diou)
    rec("ciou", ciou)
    assert bool((giou <= iou + 1e-6).all())
    loss = (1 - giou).sum() + (1 - ciou).mean() + (1 - diou.diagonal()).sum()
    (g,) = lib.autograd.grad(loss, a)
    rec("g", g)
    c = _xyxy_to_cxcywh(lib, a)
    rec("cxcywh", c)
    rec("back", _cxcywh_to_xyxy(lib, c) - a)
    # integer boxes: the area stays integral and the iou goes to the default float dtype
    ib = (a.detach() * 4).long()
    rec("iarea", _box_area(lib, ib))
    rec("iiou", _box_iou(lib, ib, ib[:3]))
    hb = a.detach().half()
    rec("harea", _box_area(lib, hb))
    rec("iou_max", iou.max(dim=1).values)
    vals, idx = iou.max(dim=0)
    rec("iou_max0", vals)
    rec("iou_arg0", idx)
    rec("degenerate", (a[:, 2:] >= a[:, :2]).all())
    # pairwise (aligned) giou loss as DETR writes it: diag of the matrix
    d = lib.diag(_giou(lib, a[:5], b))
    rec("diag", d)
    rec("dist", lib.cdist(c[:, :2], _xyxy_to_cxcywh(lib, b)[:, :2], p=2.0))


def p_nms_greedy(lib, dt, rec):
    lib.manual_seed(1)
    centers = lib.rand(4, 2, dtype=dt) * 40
    jitter = lib.randn(4, 6, 4, dtype=dt) * 1.5
    base = lib.cat([centers - 6, centers + 6], dim=1)
    boxes = (base[:, None, :] + jitter).reshape(-1, 4)
    boxes = lib.cat([boxes[:, :2], lib.maximum(boxes[:, 2:], boxes[:, :2] + 1)], 1)
    scores = lib.rand(boxes.shape[0], dtype=dt)
    for thr in (0.3, 0.5, 0.7):
        keep = _nms(lib, boxes, scores, thr)
        rec(f"keep{thr}", keep)
        rec(f"kept_scores{thr}", scores[keep])
    # the mask version as written in many repos
    order = lib.sort(scores, descending=True).indices
    suppressed = lib.zeros(boxes.shape[0], dtype=lib.bool)
    ious = _box_iou(lib, boxes, boxes)
    keep2 = []
    for k in range(order.shape[0]):
        i = order[k].item()
        if suppressed[i]:
            continue
        keep2.append(i)
        suppressed |= ious[i] > 0.5
    rec("keep_mask", lib.tensor(keep2))
    # upper-triangular vectorised variant (fast NMS of YOLACT)
    s_sorted, idx = scores.sort(0, descending=True)
    iou_s = _box_iou(lib, boxes[idx], boxes[idx]).triu_(diagonal=1)
    iou_max, _ = iou_s.max(dim=0)
    rec("fast_keep", idx[iou_max <= 0.5])
    rec("s_sorted", s_sorted)
    # soft-NMS with gaussian decay, loop over a shrinking set
    sc = scores.clone()
    bx = boxes.clone()
    out_b, out_s = [], []
    while sc.numel() > 0:
        m = lib.argmax(sc)
        out_b.append(bx[m])
        out_s.append(sc[m])
        rest = lib.arange(sc.numel()) != m
        iou = _box_iou(lib, bx[m][None], bx[rest])[0]
        sc = sc[rest] * lib.exp(-(iou * iou) / 0.5)
        bx = bx[rest]
        keep = sc > 0.05
        sc, bx = sc[keep], bx[keep]
    rec("soft_boxes", lib.stack(out_b))
    rec("soft_scores", lib.stack(out_s))


def p_batched_nms(lib, dt, rec):
    g = lib.Generator().manual_seed(2)
    boxes = _rand_boxes(lib, 30, dt, gen=g)
    scores = lib.rand(30, dtype=dt, generator=g)
    idxs = lib.randint(0, 3, (30,), generator=g)
    keep = _batched_nms(lib, boxes, scores, idxs, 0.4)
    rec("keep_offsets", keep)
    # the per-class loop (torchvision's _batched_nms_vanilla)
    keep_mask = lib.zeros_like(scores, dtype=lib.bool)
    for class_id in lib.unique(idxs):
        curr = lib.where(idxs == class_id)[0]
        ck = _nms(lib, boxes[curr], scores[curr], 0.4)
        keep_mask[curr[ck]] = True
    keep_idx = lib.where(keep_mask)[0]
    keep_v = keep_idx[scores[keep_idx].sort(descending=True)[1]]
    rec("keep_vanilla", keep_v)
    rec("same", lib.equal(keep_v, keep))
    u, cnt = lib.unique(idxs, return_counts=True, sorted=True)
    rec("uniq", u)
    rec("cnt", cnt)
    rec("empty", _batched_nms(lib, boxes[:0], scores[:0], idxs[:0], 0.4))
    # per-image in a batch with a coordinate trick over image index and class together
    img = lib.randint(0, 2, (30,), generator=g)
    group = img * 3 + idxs
    rec("keep_group", _batched_nms(lib, boxes, scores, group, 0.5))
    rec("bincount", lib.bincount(group[keep], minlength=6))


def p_anchors(lib, dt, rec):
    sizes = ((32,), (64,), (128,))
    ratios = ((0.5, 1.0, 2.0),) * 3
    feats = [(8, 10), (4, 5), (2, 3)]
    image = (64, 80)
    cells = []
    for sz, ar in zip(sizes, ratios, strict=True):
        scales = lib.as_tensor(sz, dtype=dt)
        aspect = lib.as_tensor(ar, dtype=dt)
        h_r = lib.sqrt(aspect)
        w_r = 1 / h_r
        ws = (w_r[:, None] * scales[None, :]).view(-1)
        hs = (h_r[:, None] * scales[None, :]).view(-1)
        cells.append((lib.stack([-ws, -hs, ws, hs], dim=1) / 2).round())
    rec("cells", lib.cat(cells))
    all_anchors = []
    for (gh, gw), base in zip(feats, cells, strict=True):
        sh = lib.empty((), dtype=lib.int64).fill_(image[0] // gh)
        sw = lib.tensor(image[1] // gw, dtype=lib.int64)
        shifts_x = lib.arange(0, gw, dtype=lib.int32) * sw
        shifts_y = lib.arange(0, gh, dtype=lib.int32) * sh
        rec("sx.dtype", str(shifts_x.dtype))
        sy, sx = lib.meshgrid(shifts_y, shifts_x, indexing="ij")
        sx, sy = sx.reshape(-1), sy.reshape(-1)
        shifts = lib.stack((sx, sy, sx, sy), dim=1)
        a = (shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4)
        all_anchors.append(a)
    anchors = lib.cat(all_anchors)
    rec("anchors", anchors)
    rec("n", lib.tensor([a.shape[0] for a in all_anchors]))
    # YOLO-style grid with xy meshgrid, repeat_interleave over anchors
    gy, gx = 4, 6
    yv, xv = lib.meshgrid(lib.arange(gy), lib.arange(gx), indexing="ij")
    grid = lib.stack((xv, yv), 2).view(1, 1, gy, gx, 2).to(dt)
    rec("grid", grid.expand(2, 3, gy, gx, 2).sum((0, 1)))
    rec.err("mesh_dtypes", lambda: lib.meshgrid(lib.arange(2, dtype=dt), lib.arange(3)))
    xx, yy = lib.meshgrid(lib.arange(gx, dtype=dt), lib.arange(gy, dtype=dt), indexing="xy")
    rec("xy_mesh", lib.stack([xx, yy], -1))
    wh = lib.tensor([[10, 13], [16, 30], [33, 23]], dtype=dt)
    per_cell = wh.repeat(gy * gx, 1)
    rec("per_cell", per_cell[:7])
    centers = (lib.stack((xv, yv), -1).reshape(-1, 2) + 0.5).repeat_interleave(3, dim=0) * 8
    rec("yolo_anchors", lib.cat([centers - per_cell / 2, centers + per_cell / 2], 1))
    rec("ri_tensor", lib.arange(4).repeat_interleave(lib.tensor([1, 0, 3, 2])))
    # anchors inside the image (RPN's straddle filter)
    inside = (
        (anchors[:, 0] >= -0)
        & (anchors[:, 1] >= 0)
        & (anchors[:, 2] < image[1])
        & (anchors[:, 3] < image[0])
    )
    rec("inside", inside.nonzero().squeeze(1))
    rec("inside_sum", inside.sum())


def p_box_coder(lib, dt, rec):
    lib.manual_seed(3)
    coder = _BoxCoder(lib, (10.0, 10.0, 5.0, 5.0))
    props = _rand_boxes(lib, 9, dt)
    gts = props + lib.randn(9, 4, dtype=dt) * 2
    gts = lib.cat([gts[:, :2], lib.maximum(gts[:, 2:], gts[:, :2] + 0.5)], 1)
    t = coder.encode(gts, props)
    rec("t", t)
    rec("roundtrip", coder.decode(t, props))
    # class-specific regression: 3 classes x 4 codes per proposal
    rel = (lib.randn(9, 12, dtype=dt) * 3).requires_grad_()
    dec = coder.decode(rel, props)
    rec("dec", dec)
    rec("dec_shape", str(tuple(dec.shape)))
    big = rel.detach().clone()
    big[:, 2::4] = 200.0
    rec("clamped", coder.decode(big, props)[:, 2::4])
    loss = dec.view(9, 3, 4).pow(2).mean()
    loss.backward()
    rec("grad", rel.grad)
    rec("clip", lib.tensor(coder.clip, dtype=dt))
    # YOLOv5's decoding: sigmoid * 2 - 0.5 and (sigmoid * 2) ** 2 * anchor
    p = lib.randn(2, 3, 4, 4, 6, dtype=dt)
    yv, xv = lib.meshgrid([lib.arange(4), lib.arange(4)], indexing="ij")
    grid = lib.stack((xv, yv), 2).expand(1, 3, 4, 4, 2).to(dt)
    anchor = lib.tensor([[10, 13], [16, 30], [33, 23]], dtype=dt).view(1, 3, 1, 1, 2)
    y = p.sigmoid()
    xy, wh, conf = y.split((2, 2, 2), 4)
    xy = (xy * 2 - 0.5 + grid) * 8
    wh = (wh * 2) ** 2 * anchor
    out = lib.cat((xy, wh, conf), 4).view(2, -1, 6)
    rec("yolo_dec", out)
    rec("yolo_xyxy", _cxcywh_to_xyxy(lib, out[..., :4]))


def p_focal(lib, dt, rec):
    lib.manual_seed(4)
    x = (lib.randn(6, 5, dtype=dt) * 2).requires_grad_()
    t = (lib.rand(6, 5, dtype=dt) > 0.7).to(dt)
    for gamma in (0.0, 1.0, 2.0):
        for red in ("none", "mean", "sum"):
            l_ = _sigmoid_focal(lib, x, t, gamma=gamma, reduction=red)
            rec(f"l{gamma}{red}", l_)
    loss = _sigmoid_focal(lib, x, t, alpha=-1, reduction="sum")
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.pow(2).sum(), x)
    rec("gg", gg)
    # softmax focal loss for multi-class with ignore index
    logits = lib.randn(8, 4, dtype=dt, requires_grad=True)
    target = lib.tensor([0, 3, 1, -100, 2, 2, -100, 1])
    F = lib.nn.functional
    ce = F.cross_entropy(logits, target, reduction="none", ignore_index=-100)
    valid = target != -100
    pt = lib.exp(-ce)
    fl = ((1 - pt) ** 2 * ce)[valid].mean()
    fl.backward()
    rec("ce", ce)
    rec("fl", fl)
    rec("glog", logits.grad)
    # the focal loss normaliser of RetinaNet: num positive anchors clamped to 1
    num_pos = lib.tensor(float(t.sum()), dtype=dt).clamp(min=1.0)
    rec("norm", _sigmoid_focal(lib, x, t, reduction="sum") / num_pos)
    # the prior-probability bias init
    bias = lib.full((5,), -math.log((1 - 0.01) / 0.01), dtype=dt)
    rec("prior", lib.sigmoid(bias))
    if dt == "float64":
        f = lambda z: _sigmoid_focal(lib, z, t[:2, :3], reduction="mean")  # noqa: E731
        z = x.detach()[:2, :3].clone().requires_grad_()
        rec("gradcheck", str(lib.autograd.gradcheck(f, (z,))))
        rec("gradgradcheck", str(lib.autograd.gradgradcheck(f, (z,))))


def _roi_align_grid(lib, feat, rois, out_size, scale, ratio, aligned, align_corners):
    """RoIAlign by grid_sample: sample ratio x ratio points per bin and average them."""
    F = lib.nn.functional
    n = rois.shape[0]
    _, C, H, W = feat.shape
    ph, pw = out_size
    off = 0.5 if aligned else 0.0
    x1 = rois[:, 1] * scale - off
    y1 = rois[:, 2] * scale - off
    x2 = rois[:, 3] * scale - off
    y2 = rois[:, 4] * scale - off
    rw, rh = x2 - x1, y2 - y1
    if not aligned:
        rw, rh = rw.clamp(min=1.0), rh.clamp(min=1.0)
    steps_x = (lib.arange(pw * ratio, dtype=feat.dtype) + 0.5) / (pw * ratio)
    steps_y = (lib.arange(ph * ratio, dtype=feat.dtype) + 0.5) / (ph * ratio)
    xs = x1[:, None] + rw[:, None] * steps_x[None]
    ys = y1[:, None] + rh[:, None] * steps_y[None]
    if align_corners:
        gx = xs / (W - 1) * 2 - 1
        gy = ys / (H - 1) * 2 - 1
    else:
        gx = (xs + 0.5) / W * 2 - 1
        gy = (ys + 0.5) / H * 2 - 1
    grid = lib.stack(
        [
            gx[:, None, :].expand(n, ph * ratio, pw * ratio),
            gy[:, :, None].expand(-1, -1, pw * ratio),
        ],
        dim=-1,
    )
    imgs = feat[rois[:, 0].long()]
    s = F.grid_sample(
        imgs, grid, mode="bilinear", padding_mode="zeros", align_corners=align_corners
    )
    return F.avg_pool2d(s, kernel_size=ratio, stride=ratio)


def p_roi_align(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(5)
    feat = lib.randn(2, 3, 12, 16, dtype=dt, requires_grad=True)
    boxes = _rand_boxes(lib, 5, dt, size=40.0)
    bidx = lib.tensor([0, 1, 1, 0, 1], dtype=dt)
    rois = lib.cat([bidx[:, None], boxes], dim=1)
    outs = []
    for aligned in (False, True):
        for ac in (False, True):
            o = _roi_align_grid(lib, feat, rois, (3, 4), 0.25, 2, aligned, ac)
            rec(f"o{aligned}{ac}", o)
            outs.append(o)
    loss = sum((o * (i + 1)).sum() for i, o in enumerate(outs))
    loss.backward()
    rec("gfeat", feat.grad)
    # RoIPool-ish crops by adaptive max pooling of integer crops
    pooled = []
    for r in rois.detach():
        b = int(r[0])
        x0, y0, x1, y1 = (r[1:] * 0.25).round().long().tolist()
        x1, y1 = max(x1, x0 + 1), max(y1, y0 + 1)
        crop = feat[b : b + 1, :, y0 : y1 + 1, x0 : x1 + 1]
        pooled.append(F.adaptive_max_pool2d(crop, (2, 2)))
    pooled = lib.cat(pooled)
    rec("roipool", pooled)
    (gp,) = lib.autograd.grad(pooled.sum(), feat)
    rec("gpool", gp)
    # border and nearest padding modes on rois that leave the map
    far = rois.detach().clone()
    far[:, 1:] = far[:, 1:] * 3 - 20
    grid = lib.rand(5, 2, 2, 2, dtype=dt) * 3 - 1.5
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            s = F.grid_sample(
                feat[far[:, 0].long()], grid, mode=mode, padding_mode=pad, align_corners=False
            )
            rec(f"gs_{mode}_{pad}", s)
    # gradient with respect to the grid too (deformable-style offsets)
    off = lib.zeros(5, 2, 2, 2, dtype=dt, requires_grad=True)
    s = F.grid_sample(feat.detach()[far[:, 0].long()], (grid * 0.5 + off), align_corners=True)
    s.pow(2).sum().backward()
    rec("goff", off.grad)


def p_fpn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)

    class FPN(nn.Module):
        def __init__(self, in_channels, out):
            super().__init__()
            self.inner = nn.ModuleList(nn.Conv2d(c, out, 1) for c in in_channels)
            self.layer = nn.ModuleList(nn.Conv2d(out, out, 3, padding=1) for _ in in_channels)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_uniform_(m.weight, a=1)
                    nn.init.constant_(m.bias, 0)

        def forward(self, xs):
            last = self.inner[-1](xs[-1])
            results = [self.layer[-1](last)]
            for idx in range(len(xs) - 2, -1, -1):
                lat = self.inner[idx](xs[idx])
                top = F.interpolate(last, size=lat.shape[-2:], mode="nearest")
                last = lat + top
                results.insert(0, self.layer[idx](last))
            results.append(F.max_pool2d(results[-1], 1, 2, 0))
            return results

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Sequential(
                nn.Conv2d(3, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(inplace=True)
            )
            self.c2 = nn.Sequential(nn.Conv2d(8, 12, 3, 2, 1), nn.BatchNorm2d(12), nn.ReLU())
            self.c3 = nn.Sequential(nn.Conv2d(12, 16, 3, 2, 1), nn.GroupNorm(4, 16), nn.SiLU())

        def forward(self, x):
            a = self.c1(x)
            b = self.c2(a)
            return [a, b, self.c3(b)]

    bb, fpn = Backbone().to(dt), FPN([8, 12, 16], 6).to(dt)
    x = lib.randn(2, 3, 27, 21, dtype=dt)
    feats = bb(x)
    for i, f in enumerate(feats):
        rec(f"c{i}", f)
    outs = fpn(feats)
    for i, o in enumerate(outs):
        rec(f"p{i}", o)
        rec(f"p{i}.shape", str(tuple(o.shape)))
    loss = sum(o.square().mean() for o in outs)
    loss.backward()
    rec.params("fpn", fpn, grads=True)
    rec.params("bb", bb, grads=True)
    rec("bn_rm", bb.c1[1].running_mean)
    rec("bn_rv", bb.c2[1].running_var)
    # the scale_factor=2 top-down of the original FPN paper, and nearest-exact
    t = lib.randn(1, 2, 3, 5, dtype=dt)
    rec("up2", F.interpolate(t, scale_factor=2, mode="nearest"))
    rec("upe", F.interpolate(t, size=(7, 9), mode="nearest-exact"))
    rec("upn", F.interpolate(t, size=(7, 9), mode="nearest"))
    rec("up_mod", nn.Upsample(scale_factor=(1.5, 2.5), mode="nearest")(t))
    # PANet bottom-up: stride-2 conv and addition
    down = nn.Conv2d(6, 6, 3, stride=2, padding=1).to(dt)
    pan = [outs[0]]
    for o in outs[1:3]:
        pan.append(o + down(pan[-1])[..., : o.shape[-2], : o.shape[-1]])
    rec("pan", pan[-1])


def p_yolo_targets(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(7)
    B, A, S, C = 2, 3, 5, 4
    anchors = lib.tensor([[1.0, 1.5], [2.0, 1.0], [3.0, 3.0]], dtype=dt)
    # targets: (image, class, cx, cy, w, h) normalised
    targets = lib.tensor(
        [[0, 1, 0.31, 0.42, 0.20, 0.30], [0, 3, 0.75, 0.12, 0.50, 0.45],
         [1, 0, 0.55, 0.55, 0.10, 0.15], [1, 2, 0.05, 0.91, 0.62, 0.40],
         [1, 1, 0.52, 0.58, 0.33, 0.21]],
        dtype=dt,
    )  # fmt: skip
    pred = lib.randn(B, A, S, S, 5 + C, dtype=dt, requires_grad=True)
    obj_mask = lib.zeros(B, A, S, S, dtype=lib.bool)
    noobj_mask = lib.ones(B, A, S, S, dtype=lib.bool)
    tx = lib.zeros(B, A, S, S, dtype=dt)
    ty, tw, th = lib.zeros_like(tx), lib.zeros_like(tx), lib.zeros_like(tx)
    tcls = lib.zeros(B, A, S, S, C, dtype=dt)
    gxy = targets[:, 2:4] * S
    gwh = targets[:, 4:6] * S
    # wh-iou of each anchor with each target
    inter = lib.min(anchors[:, None], gwh[None]).prod(2)
    ious = inter / (anchors.prod(1)[:, None] + gwh.prod(1)[None] - inter)
    rec("ious", ious)
    best_ious, best_n = ious.max(0)
    rec("best_n", best_n)
    b, labels = targets[:, :2].long().t()
    gx, gy = gxy.t()
    gi, gj = gxy.long().t()
    gi, gj = gi.clamp(0, S - 1), gj.clamp(0, S - 1)
    obj_mask[b, best_n, gj, gi] = True
    noobj_mask[b, best_n, gj, gi] = False
    for i, anchor_ious in enumerate(ious.t()):
        noobj_mask[b[i], anchor_ious > 0.5, gj[i], gi[i]] = False
    tx[b, best_n, gj, gi] = gx - gx.floor()
    ty[b, best_n, gj, gi] = gy - gy.floor()
    tw[b, best_n, gj, gi] = lib.log(gwh[:, 0] / anchors[best_n][:, 0] + 1e-16)
    th[b, best_n, gj, gi] = lib.log(gwh[:, 1] / anchors[best_n][:, 1] + 1e-16)
    tcls[b, best_n, gj, gi, labels] = 1
    rec("obj", obj_mask)
    rec("noobj_sum", noobj_mask.sum())
    rec("tx", tx[obj_mask])
    rec("tw", tw.sum((2, 3)))
    # one-hot by scatter_ and check it equals the index_put_ version
    onehot = lib.zeros(targets.shape[0], C, dtype=dt).scatter_(1, labels[:, None], 1.0)
    rec("onehot", onehot)
    rec("tcls_obj", tcls[obj_mask])
    ps = pred[b, best_n, gj, gi]
    rec("ps", ps)
    lx = F.mse_loss(lib.sigmoid(pred[..., 0][obj_mask]), tx[obj_mask])
    lw = F.mse_loss(pred[..., 2][obj_mask], tw[obj_mask])
    lconf = F.binary_cross_entropy_with_logits(pred[..., 4][obj_mask], lib.ones_like(tx[obj_mask]))
    lno = F.binary_cross_entropy_with_logits(
        pred[..., 4][noobj_mask], lib.zeros_like(tx[noobj_mask])
    )
    lcls = F.binary_cross_entropy_with_logits(pred[..., 5:][obj_mask], tcls[obj_mask])
    loss = lx + lw + lconf + 100 * lno + lcls
    loss.backward()
    rec("loss", lib.stack([lx, lw, lconf, lno, lcls]))
    rec("gpred", pred.grad)
    # gather the class score of the target class from flattened predictions
    flat = pred.detach().view(B, -1, 5 + C)
    lin = (best_n * S + gj) * S + gi
    picked = flat[b].gather(1, lin[:, None, None].expand(-1, 1, 5 + C)).squeeze(1)
    rec("picked", picked)
    rec("cls_score", picked[:, 5:].gather(1, labels[:, None]).squeeze(1))
    # index_put_ with accumulate counts duplicates (two targets in one cell)
    cnt = lib.zeros(B, A, S, S, dtype=dt)
    cnt.index_put_((b, best_n, gj, gi), lib.ones(len(b), dtype=dt), accumulate=True)
    cnt.index_put_((b[:2], best_n[:2], gj[:2], gi[:2]), lib.ones(2, dtype=dt), accumulate=True)
    rec("cnt", cnt.nonzero())
    rec("cntv", cnt[cnt > 0])


def _greedy_match(lib, C):
    """Greedy min-cost assignment: repeatedly take the global minimum, then mask its row/col."""
    C = C.clone()
    rows, cols = [], []
    for _ in range(min(C.shape)):
        flat = C.argmin()
        r, c = flat // C.shape[1], flat % C.shape[1]
        rows.append(r)
        cols.append(c)
        C[r, :] = float("inf")
        C[:, c] = float("inf")
    if not rows:
        return lib.empty(0, dtype=lib.int64), lib.empty(0, dtype=lib.int64)
    i, j = lib.stack(rows), lib.stack(cols)
    order = lib.argsort(i)
    return i[order], j[order]


def p_detr_match(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(8)
    bs, nq, ncls = 2, 6, 5
    logits = lib.randn(bs, nq, ncls + 1, dtype=dt, requires_grad=True)
    pboxes = lib.rand(bs, nq, 4, dtype=dt).mul(0.5).add(0.1).requires_grad_()
    targets = [
        {"labels": lib.tensor([1, 4, 0]), "boxes": lib.rand(3, 4, dtype=dt) * 0.4 + 0.2},
        {"labels": lib.tensor([2]), "boxes": lib.rand(1, 4, dtype=dt) * 0.4 + 0.2},
    ]
    with lib.no_grad():
        out_prob = logits.flatten(0, 1).softmax(-1)
        out_bbox = pboxes.flatten(0, 1)
        tgt_ids = lib.cat([v["labels"] for v in targets])
        tgt_bbox = lib.cat([v["boxes"] for v in targets])
        cost_class = -out_prob[:, tgt_ids]
        cost_bbox = lib.cdist(out_bbox, tgt_bbox, p=1)
        cost_giou = -_giou(lib, _cxcywh_to_xyxy(lib, out_bbox), _cxcywh_to_xyxy(lib, tgt_bbox))
        Cm = 5 * cost_bbox + 1 * cost_class + 2 * cost_giou
        Cm = Cm.view(bs, nq, -1)
        sizes = [len(v["boxes"]) for v in targets]
        indices = [_greedy_match(lib, c[i]) for i, c in enumerate(Cm.split(sizes, -1))]
    rec("C", Cm)
    for k, (i, j) in enumerate(indices):
        rec(f"match{k}.i", i)
        rec(f"match{k}.j", j)
    batch_idx = lib.cat([lib.full_like(src, i) for i, (src, _) in enumerate(indices)])
    src_idx = lib.cat([src for (src, _) in indices])
    idx = (batch_idx, src_idx)
    target_classes_o = lib.cat([t["labels"][J] for t, (_, J) in zip(targets, indices, strict=True)])
    target_classes = lib.full(logits.shape[:2], ncls, dtype=lib.int64)
    target_classes[idx] = target_classes_o
    empty_weight = lib.ones(ncls + 1, dtype=dt)
    empty_weight[-1] = 0.1
    loss_ce = F.cross_entropy(logits.transpose(1, 2), target_classes, empty_weight)
    num_boxes = lib.as_tensor([float(sum(sizes))], dtype=lib.float)
    num_boxes = lib.clamp(num_boxes, min=1).item()
    src_boxes = pboxes[idx]
    tgt_boxes = lib.cat([t["boxes"][i] for t, (_, i) in zip(targets, indices, strict=True)], dim=0)
    loss_bbox = F.l1_loss(src_boxes, tgt_boxes, reduction="none").sum() / num_boxes
    loss_giou = (
        1 - lib.diag(_giou(lib, _cxcywh_to_xyxy(lib, src_boxes), _cxcywh_to_xyxy(lib, tgt_boxes)))
    ).sum() / num_boxes
    with lib.no_grad():
        tgt_lengths = lib.as_tensor([len(v["labels"]) for v in targets])
        card_pred = (logits.argmax(-1) != logits.shape[-1] - 1).sum(1)
        card_err = F.l1_loss(card_pred.float(), tgt_lengths.float())
        src_logits = logits[idx]
        maxk = 2
        _, pred = src_logits.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target_classes_o.view(1, -1).expand_as(pred))
        acc = correct[:1].view(-1).float().sum(0) * (100.0 / target_classes_o.size(0))
    rec("target_classes", target_classes)
    rec("loss_ce", loss_ce)
    rec("loss_bbox", loss_bbox)
    rec("loss_giou", loss_giou)
    rec("card", card_err)
    rec("acc", acc)
    total = loss_ce + 5 * loss_bbox + 2 * loss_giou
    total.backward()
    rec("glogits", logits.grad)
    rec("gboxes", pboxes.grad)
    # auxiliary decoding losses as a dict summed with weights
    weight_dict = {"loss_ce": 1, "loss_bbox": 5, "loss_giou": 2}
    losses = {"loss_ce": loss_ce, "loss_bbox": loss_bbox, "loss_giou": loss_giou}
    rec("weighted", sum(losses[k] * weight_dict[k] for k in losses if k in weight_dict))
    emb = nn.Embedding(nq, 8).to(dt)
    rec("qpos", emb.weight.unsqueeze(1).repeat(1, bs, 1).shape[1])


def _ap(lib, recall, precision, method):
    mrec = lib.cat([lib.tensor([0.0], dtype=recall.dtype), recall, lib.tensor([1.0]).to(recall)])
    mpre = lib.cat([precision.new_tensor([1.0]), precision, precision.new_zeros(1)])
    mpre = lib.flip(lib.cummax(lib.flip(mpre, dims=[0]), dim=0).values, dims=[0])
    if method == "continuous":
        i = lib.where(mrec[1:] != mrec[:-1])[0]
        return ((mrec[i + 1] - mrec[i]) * mpre[i + 1]).sum()
    x = lib.linspace(0, 1, 101, dtype=recall.dtype)
    idx = lib.searchsorted(mrec, x, right=False).clamp(max=mpre.numel() - 1)
    return lib.trapezoid(mpre[idx], x) if method == "trapz" else mpre[idx].mean()


def p_map_eval(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    n_img, ncls = 4, 3
    dets, gts = [], []
    for i in range(n_img):
        gb = _rand_boxes(lib, 3 + i % 2, dt, gen=g)
        gl = lib.randint(0, ncls, (gb.shape[0],), generator=g)
        noise = lib.randn(gb.shape, dtype=dt, generator=g) * 2
        db = lib.cat([gb + noise, _rand_boxes(lib, 2, dt, gen=g)])
        dl = lib.cat([gl, lib.randint(0, ncls, (2,), generator=g)])
        ds = lib.rand(db.shape[0], dtype=dt, generator=g)
        dets.append((db, ds, dl))
        gts.append((gb, gl))
    iou_thrs = lib.linspace(0.5, 0.95, 10, dtype=dt)
    rec("thrs", iou_thrs)
    aps = lib.zeros(len(iou_thrs), ncls, dtype=dt)
    for t, thr in enumerate(iou_thrs.tolist()):
        for c in range(ncls):
            scores, tps, n_gt = [], [], 0
            for (db, ds, dl), (gb, gl) in zip(dets, gts, strict=True):
                dm, gm = dl == c, gl == c
                d_b, d_s, g_b = db[dm], ds[dm], gb[gm]
                n_gt += int(gm.sum())
                order = d_s.argsort(descending=True, stable=True)
                d_b, d_s = d_b[order], d_s[order]
                used = lib.zeros(g_b.shape[0], dtype=lib.bool)
                tp = lib.zeros(d_b.shape[0], dtype=dt)
                if g_b.shape[0] and d_b.shape[0]:
                    ious = _box_iou(lib, d_b, g_b)
                    for k in range(d_b.shape[0]):
                        best = ious[k].masked_fill(used, -1.0).max(0)
                        if best.values >= thr:
                            tp[k] = 1
                            used[best.indices] = True
                scores.append(d_s)
                tps.append(tp)
            s = lib.cat(scores)
            tp = lib.cat(tps)[s.argsort(descending=True, stable=True)]
            fp = 1 - tp
            tpc, fpc = lib.cumsum(tp, 0), fp.cumsum(dim=0)
            recall = tpc / max(n_gt, 1)
            precision = tpc / (tpc + fpc).clamp(min=lib.finfo(dt).eps)
            if t == 0:
                rec(f"prec{c}", precision)
                rec(f"rec{c}", recall)
                rec(f"ap_cont{c}", _ap(lib, recall, precision, "continuous"))
                rec(f"ap_trapz{c}", _ap(lib, recall, precision, "trapz"))
            aps[t, c] = _ap(lib, recall, precision, "101")
    rec("aps", aps)
    rec("map", aps.mean())
    rec("map50", aps[0].mean())
    rec("map75", aps[5].mean())
    rec("nanmean", lib.where(aps > 0, aps, lib.nan).nanmean(dim=1))
    # 11-point VOC07
    recall = lib.linspace(0.05, 1.0, 15, dtype=dt)
    prec = lib.rand(15, dtype=dt, generator=g).sort(descending=True).values
    ap11 = lib.stack(
        [
            prec[recall >= t].max() if (recall >= t).any() else lib.tensor(0.0, dtype=dt)
            for t in lib.arange(0.0, 1.1, 0.1, dtype=dt)
        ]
    ).mean()
    rec("ap11", ap11)
    rec("arange_len", lib.arange(0.0, 1.1, 0.1, dtype=dt).numel())


def _gaussian_radius(h, w, min_overlap=0.7):
    a1, b1, c1 = 1, h + w, w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1**2 - 4 * a1 * c1)) / 2
    a2, b2, c2 = 4, 2 * (h + w), (1 - min_overlap) * w * h
    r2 = (b2 + math.sqrt(b2**2 - 4 * a2 * c2)) / 2
    a3, b3, c3 = 4 * min_overlap, -2 * min_overlap * (h + w), (min_overlap - 1) * w * h
    r3 = (b3 + math.sqrt(b3**2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)


def _draw_gaussian(lib, heatmap, center, radius, k=1):
    d = 2 * radius + 1
    sigma = d / 6
    ys = lib.arange(-radius, radius + 1, dtype=heatmap.dtype)[:, None]
    xs = lib.arange(-radius, radius + 1, dtype=heatmap.dtype)[None, :]
    gaussian = lib.exp(-(xs * xs + ys * ys) / (2 * sigma * sigma))
    gaussian[gaussian < lib.finfo(gaussian.dtype).eps * gaussian.max()] = 0
    x, y = int(center[0]), int(center[1])
    height, width = heatmap.shape[0:2]
    left, right = min(x, radius), min(width - x, radius + 1)
    top, bottom = min(y, radius), min(height - y, radius + 1)
    masked_heatmap = heatmap[y - top : y + bottom, x - left : x + right]
    masked_gaussian = gaussian[radius - top : radius + bottom, radius - left : radius + right]
    if min(masked_gaussian.shape) > 0 and min(masked_heatmap.shape) > 0:
        lib.maximum(masked_heatmap, masked_gaussian * k, out=masked_heatmap)
    return heatmap


def p_centernet(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(10)
    B, C, H, W, K = 2, 3, 16, 20, 6
    hm = lib.zeros(B, C, H, W, dtype=dt)
    centers = [(3.4, 4.1, 0, 0, 5.0, 7.0), (15.2, 9.8, 0, 2, 9.0, 4.0), (0.5, 14.9, 1, 1, 6.0, 6.0),
               (19.7, 0.2, 1, 1, 3.0, 8.0), (10.1, 8.3, 1, 0, 12.0, 10.0)]  # fmt: skip
    for cx, cy, b, c, w, h in centers:
        r = max(0, int(_gaussian_radius(math.ceil(h), math.ceil(w))))
        _draw_gaussian(lib, hm[b, c], (cx, cy), r)
    rec("hm", hm)
    rec("hm_peaks", (hm == 1).nonzero())
    pred = (lib.randn(B, C, H, W, dtype=dt) + 3 * hm).requires_grad_()
    p = pred.sigmoid().clamp(min=1e-4, max=1 - 1e-4)
    pos = hm.eq(1).to(dt)
    neg = hm.lt(1).to(dt)
    neg_w = lib.pow(1 - hm, 4)
    pos_loss = (lib.log(p) * lib.pow(1 - p, 2) * pos).sum()
    neg_loss = (lib.log(1 - p) * lib.pow(p, 2) * neg_w * neg).sum()
    num_pos = pos.sum()
    loss = -(pos_loss + neg_loss) / num_pos
    loss.backward()
    rec("loss", loss)
    rec("gpred", pred.grad)
    heat = pred.detach().sigmoid()
    hmax = F.max_pool2d(heat, (3, 3), stride=1, padding=1)
    keep = (hmax == heat).to(dt)
    heat = heat * keep
    rec("npeaks", keep.sum((2, 3)))
    scores, inds = lib.topk(heat.view(B, C, -1), K)
    inds = inds % (H * W)
    ys = (inds / W).int().to(dt)
    xs = (inds % W).int().to(dt)
    sc, ind = lib.topk(scores.view(B, -1), K)
    clses = lib.div(ind, K, rounding_mode="floor").int()
    rec("sc", sc)
    rec("clses", clses)

    def gather_feat(feat, ind):
        dim = feat.size(2)
        ind = ind.unsqueeze(2).expand(ind.size(0), ind.size(1), dim)
        return feat.gather(1, ind)

    inds = gather_feat(inds.view(B, -1, 1), ind).view(B, K)
    ys = gather_feat(ys.view(B, -1, 1), ind).view(B, K)
    xs = gather_feat(xs.view(B, -1, 1), ind).view(B, K)
    rec("inds", inds)
    rec("xs", xs)
    rec("ys", ys)
    wh = lib.rand(B, 2, H, W, dtype=dt) * 8
    reg = lib.rand(B, 2, H, W, dtype=dt)
    feat = wh.permute(0, 2, 3, 1).contiguous().view(B, -1, 2)
    whk = gather_feat(feat, inds)
    regk = gather_feat(reg.permute(0, 2, 3, 1).reshape(B, -1, 2), inds)
    xs2, ys2 = xs.view(B, K, 1) + regk[:, :, 0:1], ys.view(B, K, 1) + regk[:, :, 1:2]
    bboxes = lib.cat(
        [xs2 - whk[..., 0:1] / 2, ys2 - whk[..., 1:2] / 2, xs2 + whk[..., 0:1] / 2,
         ys2 + whk[..., 1:2] / 2], dim=2,
    )  # fmt: skip
    rec("bboxes", bboxes)
    # regression L1 at the object centres with a mask
    mask = lib.zeros(B, K, dtype=dt)
    mask[:, :3] = 1
    target = lib.rand(B, K, 2, dtype=dt) * 8
    m = mask.unsqueeze(2).expand_as(whk)
    rl = F.l1_loss(whk * m, target * m, reduction="sum") / (m.sum() + 1e-4)
    rec("reg_loss", rl)
    rec("floordiv", inds // W)
    rec("true_div", inds / W)


def p_soft_argmax(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(11)
    B, K, H, W = 2, 4, 8, 10
    hm = lib.randn(B, K, H, W, dtype=dt, requires_grad=True)
    beta = 5.0
    probs = F.softmax(hm.view(B, K, -1) * beta, dim=-1).view(B, K, H, W)
    xs = lib.linspace(0, W - 1, W, dtype=dt)
    ys = lib.linspace(0, H - 1, H, dtype=dt)
    px = (probs.sum(2) * xs).sum(-1)
    py = (probs.sum(3) * ys).sum(-1)
    coords = lib.stack([px, py], -1)
    rec("coords", coords)
    gt = lib.rand(B, K, 2, dtype=dt) * lib.tensor([W - 1, H - 1], dtype=dt)
    vis = lib.tensor([[1, 1, 0, 1], [0, 1, 1, 1]], dtype=lib.bool)
    loss = F.smooth_l1_loss(coords[vis], gt[vis], beta=0.5)
    loss.backward()
    rec("loss", loss)
    rec("ghm", hm.grad)
    # hard argmax with unravel
    flat = hm.detach().view(B, K, -1)
    maxvals, idx = flat.max(dim=2)
    hx = (idx % W).to(dt)
    hy = lib.div(idx, W, rounding_mode="floor").to(dt)
    rec("maxvals", maxvals)
    rec("hard", lib.stack([hx, hy], -1))
    # quarter-offset refinement toward the higher neighbour (HRNet-style)
    ix, iy = hx.long(), hy.long()
    hmd = hm.detach()
    bi = lib.arange(B)[:, None].expand(B, K)
    ki = lib.arange(K)[None, :].expand(B, K)
    right = hmd[bi, ki, iy, (ix + 1).clamp(max=W - 1)]
    left = hmd[bi, ki, iy, (ix - 1).clamp(min=0)]
    refined = hx + lib.sign(right - left) * 0.25
    rec("refined", refined)
    # OKS between predicted and true keypoints
    sigmas = lib.tensor([0.26, 0.25, 0.35, 0.79], dtype=dt) / 10.0
    area = lib.tensor([30.0, 55.0], dtype=dt)
    d2 = ((coords.detach() - gt) ** 2).sum(-1)
    e = d2 / (2 * area[:, None] * (2 * sigmas) ** 2 + lib.finfo(dt).eps)
    oks = (lib.exp(-e) * vis).sum(1) / vis.sum(1)
    rec("oks", oks)
    # integral regression in 2-d with the expectation written as einsum
    grid_y, grid_x = lib.meshgrid(ys, xs, indexing="ij")
    ex = lib.einsum("bkhw,hw->bk", probs, grid_x)
    ey = lib.einsum("bkhw,hw->bk", probs, grid_y)
    rec("einsum", lib.stack([ex, ey], -1))
    # spatial softmax via log_softmax and logsumexp
    ls = hm.view(B, K, -1).log_softmax(-1)
    rec("lse", lib.logsumexp(hm.view(B, K, -1), -1))
    rec("ls_max", ls.max(-1).values)


def p_mosaic_cutmix(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(12)
    s = 16
    imgs = [lib.rand(3, s, s, dtype=dt, generator=g) for _ in range(4)]
    labels = [
        lib.cat(
            [lib.randint(0, 5, (2, 1), generator=g).to(dt), _rand_boxes(lib, 2, dt, 12.0, g)], 1
        )
        for _ in range(4)
    ]
    yc = int(lib.randint(s // 2, 3 * s // 2, (1,), generator=g))
    xc = int(lib.randint(s // 2, 3 * s // 2, (1,), generator=g))
    img4 = lib.full((3, s * 2, s * 2), 114 / 255, dtype=dt)
    out = []
    for i, (img, lab) in enumerate(zip(imgs, labels, strict=True)):
        h, w = img.shape[1:]
        if i == 0:
            x1a, y1a, x2a, y2a = max(xc - w, 0), max(yc - h, 0), xc, yc
            x1b, y1b, x2b, y2b = w - (x2a - x1a), h - (y2a - y1a), w, h
        elif i == 1:
            x1a, y1a, x2a, y2a = xc, max(yc - h, 0), min(xc + w, s * 2), yc
            x1b, y1b, x2b, y2b = 0, h - (y2a - y1a), min(w, x2a - x1a), h
        elif i == 2:
            x1a, y1a, x2a, y2a = max(xc - w, 0), yc, xc, min(s * 2, yc + h)
            x1b, y1b, x2b, y2b = w - (x2a - x1a), 0, w, min(y2a - y1a, h)
        else:
            x1a, y1a, x2a, y2a = xc, yc, min(xc + w, s * 2), min(s * 2, yc + h)
            x1b, y1b, x2b, y2b = 0, 0, min(w, x2a - x1a), min(y2a - y1a, h)
        img4[:, y1a:y2a, x1a:x2a] = img[:, y1b:y2b, x1b:x2b]
        lab = lab.clone()
        lab[:, [1, 3]] += x1a - x1b
        lab[:, [2, 4]] += y1a - y1b
        out.append(lab)
    lab4 = lib.cat(out, 0)
    lab4[:, 1:].clamp_(0, 2 * s)
    wh = lab4[:, 3:5] - lab4[:, 1:3]
    ok = (wh > 2).all(1) & (wh[:, 0] / (wh[:, 1] + 1e-16) < 20)
    rec("img4", img4)
    rec("lab4", lab4)
    rec("kept", lab4[ok])
    # cutmix with a Beta-drawn lambda and one-hot soft labels
    lib.manual_seed(13)
    x = lib.rand(4, 3, s, s, dtype=dt)
    y = lib.tensor([0, 2, 1, 2])
    lam = lib.distributions.Beta(lib.tensor(1.0, dtype=dt), lib.tensor(1.0, dtype=dt)).sample()
    perm = lib.randperm(4)
    cut = math.sqrt(1.0 - float(lam))
    cw, ch = int(s * cut), int(s * cut)
    cx, cy = int(lib.randint(s, (1,))), int(lib.randint(s, (1,)))
    bx1, by1 = max(cx - cw // 2, 0), max(cy - ch // 2, 0)
    bx2, by2 = min(cx + cw // 2, s), min(cy + ch // 2, s)
    x[:, :, by1:by2, bx1:bx2] = x[perm, :, by1:by2, bx1:bx2]
    lam_adj = 1 - ((bx2 - bx1) * (by2 - by1) / (s * s))
    y1h = F.one_hot(y, 3).to(dt)
    mixed = lam_adj * y1h + (1 - lam_adj) * y1h[perm]
    rec("lam", lam)
    rec("perm", perm)
    rec("x", x)
    rec("mixed", mixed)
    # mixup for detection: images blended, box lists concatenated with weights
    r = lib.distributions.Beta(32.0, 32.0).sample((1,)).to(dt)
    blended = x * r + x.flip(0) * (1 - r)
    rec("blended", blended.mean((1, 2, 3)))
    logits = lib.randn(4, 3, dtype=dt, requires_grad=True)
    l_soft = F.cross_entropy(logits, mixed, label_smoothing=0.1)
    l_soft.backward()
    rec("l_soft", l_soft)
    rec("glog", logits.grad)
    # horizontal flip of an image and its boxes
    boxes = labels[0][:, 1:]
    fb = boxes.clone()
    fb[:, [0, 2]] = s - boxes[:, [2, 0]]
    rec("flip_boxes", fb)
    rec("flip_img", imgs[0].flip(-1)[:, :2])


def p_empties(lib, dt, rec):
    """Images without objects or without detections: every op on zero-size tensors."""
    F = lib.nn.functional
    r = Rec()
    lib.manual_seed(14)
    none = lib.zeros((0, 4), dtype=dt)
    some = _rand_boxes(lib, 3, dt)
    m = _box_iou(lib, none, some)
    rec("iou_shape", str(tuple(m.shape)))
    rec("iou_t", str(tuple(_box_iou(lib, some, none).shape)))
    rec("giou_e", _giou(lib, some, none))
    rec.err("max0", lambda: m.max(dim=0))
    rec.err("max1", lambda: m.max(dim=1))
    rec.err("amax0", lambda: m.amax(dim=0))
    rec.err("argmax", lambda: m.argmax())
    rec.err("max_all", lambda: m.max())
    rec("min_t", _box_iou(lib, some, none).min(dim=0).values)
    rec.err("topk0", lambda: lib.topk(lib.zeros(0, dtype=dt), 0))
    rec.err("topk1", lambda: lib.topk(lib.zeros(0, dtype=dt), 1))
    rec("sort_e", lib.sort(lib.zeros(0, dtype=dt), descending=True).indices)
    rec("cumsum_e", lib.cumsum(lib.zeros(0, dtype=dt), 0))
    rec("cummax_e", lib.cummax(lib.zeros(0, dtype=dt), 0).indices)
    rec("where_e", lib.where(lib.zeros(0, dtype=lib.bool))[0])
    rec("nonzero_e", lib.zeros(0, 3).nonzero())
    rec("cat_e", lib.cat([none, some[:0], none]))
    rec("cat_1d", lib.cat([lib.zeros(0, dtype=dt), some]))
    rec("stack_e", lib.stack([none, none]))
    rec.err("stack_empty_list", lambda: lib.stack([]))
    rec.err("cat_empty_list", lambda: lib.cat([]))
    rec("nms_e", _nms(lib, none, lib.zeros(0, dtype=dt), 0.5))
    rec("decode_e", _BoxCoder(lib, (1.0, 1.0, 1.0, 1.0)).decode(lib.zeros(0, 8, dtype=dt), none))
    # losses on zero positives
    x = lib.zeros(0, 4, dtype=dt, requires_grad=True)
    t = lib.zeros(0, 4, dtype=dt)
    sl = F.smooth_l1_loss(x, t, reduction="sum", beta=1 / 9)
    rec("sl_sum", sl)
    rec("sl_mean", F.smooth_l1_loss(x, t))
    rec("l1_mean", F.l1_loss(x, t))
    rec("bce_mean", F.binary_cross_entropy_with_logits(x, t))
    rec("ce_empty", F.cross_entropy(lib.zeros(0, 5, dtype=dt), lib.zeros(0, dtype=lib.long)))
    rec("ce_sum", F.cross_entropy(lib.zeros(0, 5, dtype=dt), lib.zeros(0, dtype=lib.long),
                                  reduction="sum"))  # fmt: skip
    rec("ce_ignored", F.cross_entropy(lib.zeros(2, 5, dtype=dt), lib.tensor([-100, -100])))
    (sl + x.sum()).backward()
    rec("gx", x.grad)
    rec("mean_e", lib.zeros(0, dtype=dt).mean())
    rec("sum_e", lib.zeros(0, 4, dtype=dt).sum(0))
    rec("prod_e", lib.zeros(0, dtype=dt).prod())
    rec("numel", lib.tensor(none.numel()))
    rec("split", str([tuple(p.shape) for p in some.split([0, 3, 0])]))
    rec("index_e", some[lib.zeros(0, dtype=lib.long)])
    rec("mask_e", some[lib.zeros(3, dtype=lib.bool)])
    z = some.clone()
    z[lib.zeros(3, dtype=lib.bool)] = 5.0
    z[lib.tensor([], dtype=lib.long)] = 7.0
    rec("setitem_e", z - some)
    rec("gather_e", some.gather(0, lib.zeros(0, 4, dtype=lib.long)))
    rec("scatter_e", lib.zeros(3, dtype=dt).scatter_(0, lib.zeros(0, dtype=lib.long),
                                                     lib.zeros(0, dtype=dt)))  # fmt: skip
    rec("bincount_e", lib.bincount(lib.zeros(0, dtype=lib.long), minlength=3))
    rec("unique_e", lib.unique(lib.zeros(0, dtype=lib.long)))
    rec("cdist_e", lib.cdist(none, some, p=1))
    rec("searchsorted_e", lib.searchsorted(lib.zeros(0, dtype=dt), some[:, 0]))
    rec("pad_e", F.pad(lib.zeros(0, 4, dtype=dt), (0, 1), value=1.0))
    rec("repeat_interleave_e", lib.zeros(0, dtype=dt).repeat_interleave(3))
    rec("full_e", lib.full((0,), 5, dtype=lib.long))
    rec("one_hot_e", F.one_hot(lib.zeros(0, dtype=lib.long), 4))
    rec.err("one_hot_infer", lambda: F.one_hot(lib.zeros(0, dtype=lib.long)))
    rec("roi_e", F.grid_sample(lib.zeros(0, 3, 4, 4, dtype=dt), lib.zeros(0, 2, 2, 2, dtype=dt),
                               align_corners=False))  # fmt: skip
    rec("interp_e", F.interpolate(lib.zeros(0, 3, 4, 4, dtype=dt), scale_factor=2))
    rec("conv_e", lib.nn.Conv2d(3, 2, 3).to(dt)(lib.zeros(0, 3, 5, 5, dtype=dt)))
    rec("amax_e", lib.zeros(3, 0, dtype=dt).amax(dim=0))
    rec("r", str(r.items))


def p_mistakes(lib, dt, rec):
    """What detection users get wrong, compared by exception type and message."""
    F = lib.nn.functional
    r = Rec(first_line=True)
    lib.manual_seed(15)
    boxes = _rand_boxes(lib, 4, dt)
    r.err("iou_3cols", lambda: _box_iou(lib, boxes, boxes[:, :3]))
    r.err("view_noncontig", lambda: boxes.t().view(-1, 4))
    r.err("cdist_dims", lambda: lib.cdist(boxes, boxes[:, :3]))
    r.err("cdist_1d", lambda: lib.cdist(boxes[0], boxes[1]))
    r.err("topk_big", lambda: boxes[:, 0].topk(9))
    r.err("topk_dim", lambda: boxes.topk(2, dim=2))
    r.err("gather_dtype", lambda: boxes.gather(1, lib.zeros(4, 1, dtype=lib.int32)))
    r.err("gather_dims", lambda: boxes.gather(1, lib.zeros(4, dtype=lib.long)))
    r.err("scatter_float_idx", lambda: lib.zeros(4, 3).scatter_(1, lib.zeros(4, 1), 1.0))
    r.err("scatter_oob", lambda: lib.zeros(4, 3).scatter_(1, lib.full((4, 1), 3), 1.0))
    r.err("index_oob", lambda: boxes[lib.tensor([4])])
    r.err("index_float", lambda: boxes[lib.tensor([1.0])])
    r.err("mask_shape", lambda: boxes[lib.tensor([True, False])])
    r.err("put_shape", lambda: boxes.index_put_((lib.tensor([0, 1]),), lib.ones(3, 4, dtype=dt)))
    r.err("setitem_shape", lambda: boxes.__setitem__(lib.tensor([0, 1]), lib.ones(3, 4, dtype=dt)))
    r.err("grid_bad", lambda: F.grid_sample(lib.zeros(1, 2, 4, 4), lib.zeros(1, 3, 3, 3)))
    r.err("grid_batch", lambda: F.grid_sample(lib.zeros(2, 2, 4, 4), lib.zeros(1, 3, 3, 2)))
    r.err(
        "grid_dtype", lambda: F.grid_sample(lib.zeros(1, 2, 4, 4), lib.zeros(1, 3, 3, 2).double())
    )
    r.err("interp_both", lambda: F.interpolate(lib.zeros(1, 1, 4, 4), size=8, scale_factor=2))
    r.err("interp_none", lambda: F.interpolate(lib.zeros(1, 1, 4, 4)))
    r.err("interp_3d", lambda: F.interpolate(lib.zeros(1, 4, 4), size=(8, 8)))
    r.err("interp_ac", lambda: F.interpolate(lib.zeros(1, 1, 4, 4), size=8, align_corners=True))
    r.err("pool_pad", lambda: F.max_pool2d(lib.zeros(1, 1, 4, 4), 3, 1, 2))
    r.err("pool_small", lambda: F.max_pool2d(lib.zeros(1, 1, 2, 2), 3))
    r.err(
        "ce_target_dtype", lambda: F.cross_entropy(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int32))
    )
    r.err("ce_target_range", lambda: F.cross_entropy(lib.zeros(3, 4), lib.tensor([0, 4, 1])))
    r.err("bce_shape", lambda: F.binary_cross_entropy_with_logits(lib.zeros(3, 4), lib.zeros(3)))
    r.err("bce_long", lambda: F.binary_cross_entropy_with_logits(lib.zeros(3), lib.zeros(3).long()))
    r.err("one_hot_neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    r.err("one_hot_big", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    r.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    r.err("smoothl1_neg", lambda: F.smooth_l1_loss(lib.zeros(3), lib.ones(3), beta=-1.0))
    r.err("item_many", lambda: boxes.sum(0).item())
    r.err("bool_many", lambda: bool(boxes > 0))
    r.err("meshgrid_2d", lambda: lib.meshgrid(lib.zeros(2, 2), lib.zeros(3)))
    r.err("stack_shapes", lambda: lib.stack([lib.zeros(3), lib.zeros(4)]))
    r.err("cat_shapes", lambda: lib.cat([lib.zeros(3, 4), lib.zeros(3, 5)]))
    r.err("cat_dim", lambda: lib.cat([lib.zeros(3, 4), lib.zeros(3, 4)], dim=2))
    r.err("split_sizes", lambda: boxes.split([1, 2], 0))
    r.err("argsort_dim", lambda: boxes.argsort(dim=3))
    r.err("searchsorted_dtype", lambda: lib.searchsorted(lib.zeros(3), lib.zeros(2).double()))
    r.err("repeat_interleave_neg", lambda: lib.arange(3).repeat_interleave(lib.tensor([1, -1, 2])))
    r.err("repeat_interleave_len", lambda: lib.arange(3).repeat_interleave(lib.tensor([1, 2])))
    r.err("unique_dim", lambda: lib.unique(lib.zeros(2, 3), dim=2))
    r.err("div_mode", lambda: lib.div(lib.arange(4), 2, rounding_mode="round"))
    r.err("clamp_none", lambda: boxes.clamp())
    r.err("inplace_leaf", lambda: boxes.requires_grad_().clamp_(min=0))
    r.err("cummax_dim", lambda: lib.cummax(boxes, dim=2))
    r.err("max_dim_tuple", lambda: boxes.max(dim=(0, 1)))
    r.err("max_dim_tuple_kd", lambda: boxes.max(dim=(0, 1), keepdim=True))
    r.err("max_fn_dim_tuple", lambda: lib.max(boxes, dim=(0, 1)))
    r.err("max_fn_kd_tuple", lambda: lib.max(boxes, (0, 1), True))
    r.err("min_float_dim", lambda: boxes.min(1.0))
    r.err("max_other_kw", lambda: boxes.max(other=1.0))
    r.err("max_keepdim_int", lambda: boxes.max(1, 1))
    r.err("max_keepdim_none", lambda: boxes.min(dim=1, keepdim=None))
    r.err("clamp_mixed", lambda: boxes.clamp(min=0, max=lib.tensor([5.0, 5.0, 8.0, 8.0])))
    r.err("clip_mixed", lambda: lib.clip(boxes, min=lib.zeros(4), max=30.0))
    r.err("tensor_of_rows", lambda: lib.tensor([boxes[0], boxes[1]]))
    r.err("meshgrid_3d", lambda: lib.meshgrid(lib.arange(24.0).view(2, 3, 4), indexing="ij"))
    r.err("meshgrid_scaled", lambda: lib.meshgrid(lib.ones(2, 2, dtype=dt) / 1e6, indexing="ij"))
    r.err("linspace_steps", lambda: lib.linspace(0, 1, -1))
    r.err("arange_step", lambda: lib.arange(0, 5, 0))
    r.err("arange_sign", lambda: lib.arange(0, 5, -1))
    r.err("expand_bad", lambda: boxes.expand(3, 4))
    r.err("roi_idx_float", lambda: boxes[boxes[:, 0]])
    r.err("where_scalar_types", lambda: lib.where(boxes > 1, boxes, 0))
    r.err("maximum_out_shape",
          lambda: lib.maximum(lib.zeros(2, 2), lib.ones(2, 2), out=lib.zeros(2)))  # fmt: skip
    r.err(
        "maximum_out_dtype", lambda: lib.maximum(lib.zeros(2), lib.ones(2), out=lib.zeros(2).long())
    )
    r.err("trapz", lambda: lib.trapezoid(lib.zeros(3), lib.zeros(4)))
    for n, v in r.items:
        rec(n, v)


def p_smooth_l1(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(16)
    pred = (lib.randn(10, 4, dtype=dt) * 0.3).requires_grad_()
    tgt = lib.randn(10, 4, dtype=dt) * 0.3
    tgt[0] = pred.detach()[0]  # exact zeros of the difference
    for beta in (0.0, 1 / 9, 0.5, 1.0):
        for red in ("none", "mean", "sum"):
            rec(f"f{beta:.3f}{red}", F.smooth_l1_loss(pred, tgt, beta=beta, reduction=red))
        n = lib.abs(pred - tgt)
        if beta > 0:
            hand = lib.where(n < beta, 0.5 * n**2 / beta, n - 0.5 * beta)
        else:
            hand = n
        rec(f"hand{beta:.3f}", hand)
        (g,) = lib.autograd.grad(F.smooth_l1_loss(pred, tgt, beta=beta, reduction="sum"), pred)
        rec(f"g{beta:.3f}", g)
        (gh,) = lib.autograd.grad(hand.sum(), pred)
        rec(f"gh{beta:.3f}", gh)
    for delta in (0.1, 1.0):
        rec(f"huber{delta}", F.huber_loss(pred, tgt, delta=delta))
        rec(f"huber_mod{delta}", lib.nn.HuberLoss(reduction="sum", delta=delta)(pred, tgt))
    rec("sl1_mod", lib.nn.SmoothL1Loss(beta=0.2)(pred, tgt))
    # masked box regression loss normalised by the number of positives (RPN style)
    labels = lib.tensor([1, 0, 1, -1, 1, 0, 0, 1, 1, -1])
    pos = lib.where(labels > 0)[0]
    loss = F.smooth_l1_loss(pred[pos], tgt[pos], beta=1 / 9, reduction="sum") / labels.numel()
    loss.backward()
    rec("rpn_box", loss)
    rec("gpred", pred.grad)
    # balanced L1 (Libra R-CNN)
    alpha, gamma, beta = 0.5, 1.5, 1.0
    diff = lib.abs(pred.detach() - tgt)
    b = math.e ** (gamma / alpha) - 1
    bl1 = lib.where(
        diff < beta,
        alpha / b * (b * diff + 1) * lib.log(b * diff / beta + 1) - alpha * diff,
        gamma * diff + gamma / b - alpha * beta,
    )
    rec("balanced_l1", bl1)
    # second derivative of smooth l1 (zero outside the quadratic zone)
    x = pred.detach().clone().requires_grad_()
    (g1,) = lib.autograd.grad(
        F.smooth_l1_loss(x, tgt, beta=0.5, reduction="sum"), x, create_graph=True
    )
    (g2,) = lib.autograd.grad(g1.sum(), x)
    rec("g2", g2)


def _matcher(lib, quality, high, low, allow_low):
    """torchvision's Matcher: -1 below low, -2 between, best gt otherwise."""
    matched_vals, matches = quality.max(dim=0)
    all_matches = matches.clone() if allow_low else None
    below = matched_vals < low
    between = (matched_vals >= low) & (matched_vals < high)
    matches[below] = -1
    matches[between] = -2
    if allow_low:
        highest, _ = quality.max(dim=1)
        gt_pred_pairs = lib.where(quality == highest[:, None])
        upd = gt_pred_pairs[1]
        matches[upd] = all_matches[upd]
    return matches


def p_matcher_sampler(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(17)
    anchors = _rand_boxes(lib, 40, dt, gen=g)
    gts = _rand_boxes(lib, 4, dt, gen=g)
    quality = _box_iou(lib, gts, anchors)
    rec("quality", quality)
    for allow in (False, True):
        m = _matcher(lib, quality, 0.5, 0.3, allow)
        rec(f"matches{allow}", m)
    m = _matcher(lib, quality, 0.5, 0.3, True)
    labels = (m >= 0).to(dt)
    labels[m == -1] = 0.0
    labels[m == -2] = -1.0
    rec("labels", labels)
    matched_gt = gts[m.clamp(min=0)]
    rec("matched_gt", matched_gt)
    # BalancedPositiveNegativeSampler with uint8 masks
    lib.manual_seed(18)
    batch_size, frac = 16, 0.25
    positive = lib.where(labels >= 1)[0]
    negative = lib.where(labels == 0)[0]
    num_pos = min(positive.numel(), int(batch_size * frac))
    num_neg = min(negative.numel(), batch_size - num_pos)
    perm1 = lib.randperm(positive.numel(), device=positive.device)[:num_pos]
    perm2 = lib.randperm(negative.numel(), device=negative.device)[:num_neg]
    pos_idx = positive[perm1]
    neg_idx = negative[perm2]
    pos_mask = lib.zeros_like(labels, dtype=lib.uint8)
    neg_mask = lib.zeros_like(labels, dtype=lib.uint8)
    pos_mask[pos_idx] = 1
    neg_mask[neg_idx] = 1
    rec("pos_mask", pos_mask)
    rec("neg_mask", neg_mask)
    sampled_pos = lib.where(lib.cat([pos_mask], dim=0))[0]
    sampled = lib.cat([sampled_pos, lib.where(lib.cat([neg_mask]))[0]], dim=0)
    rec("sampled", sampled)
    obj = lib.randn(40, dtype=dt, requires_grad=True)
    deltas = lib.randn(40, 4, dtype=dt, requires_grad=True)
    coder = _BoxCoder(lib, (1.0, 1.0, 1.0, 1.0))
    reg_t = coder.encode(matched_gt, anchors)
    box_loss = F.smooth_l1_loss(deltas[sampled_pos], reg_t[sampled_pos], beta=1 / 9,
                                reduction="sum") / sampled.numel()  # fmt: skip
    obj_loss = F.binary_cross_entropy_with_logits(obj[sampled], labels[sampled])
    (box_loss + obj_loss).backward()
    rec("box_loss", box_loss)
    rec("obj_loss", obj_loss)
    rec("gobj", obj.grad)
    rec("gdeltas", deltas.grad)
    # indexing with a uint8 mask (deprecated but still used) and with a bool mask agree
    rec("bool_idx", anchors[pos_mask.bool()])
    rec("nonzero_tuple", lib.nonzero(pos_mask, as_tuple=True)[0])
    rec("argwhere", lib.argwhere(neg_mask))
    rec("count", lib.count_nonzero(pos_mask))


def p_fcos_targets(lib, dt, rec):
    g = lib.Generator().manual_seed(19)
    strides, sizes = [8, 16], [(6, 8), (3, 4)]
    ranges = [[-1, 32], [32, 1e8]]
    points, ranges_per = [], []
    for s, (h, w), rg in zip(strides, sizes, ranges, strict=True):
        sx = lib.arange(0, w * s, step=s, dtype=dt)
        sy = lib.arange(0, h * s, step=s, dtype=dt)
        yy, xx = lib.meshgrid(sy, sx, indexing="ij")
        p = lib.stack((xx.reshape(-1), yy.reshape(-1)), dim=1) + s // 2
        points.append(p)
        ranges_per.append(p.new_tensor(rg)[None].expand(len(p), 2))
    pts = lib.cat(points)
    rng = lib.cat(ranges_per)
    rec("pts", pts)
    gts = _rand_boxes(lib, 3, dt, size=40.0, gen=g)
    labels = lib.tensor([2, 0, 1])
    xs, ys = pts[:, 0], pts[:, 1]
    left = xs[:, None] - gts[:, 0][None]
    top = ys[:, None] - gts[:, 1][None]
    right = gts[:, 2][None] - xs[:, None]
    bottom = gts[:, 3][None] - ys[:, None]
    reg = lib.stack([left, top, right, bottom], dim=2)
    in_box = reg.min(dim=2)[0] > 0
    max_reg = reg.max(dim=2)[0]
    in_range = (max_reg >= rng[:, [0]]) & (max_reg <= rng[:, [1]])
    areas = ((gts[:, 2] - gts[:, 0]) * (gts[:, 3] - gts[:, 1]))[None].repeat(len(pts), 1)
    areas[in_box == 0] = 1e8
    areas[in_range == 0] = 1e8
    min_area, gt_ind = areas.min(dim=1)
    reg_t = reg[range(len(pts)), gt_ind]
    cls_t = labels[gt_ind].clone()
    cls_t[min_area == 1e8] = 3  # background
    rec("cls_t", cls_t)
    rec("reg_t", reg_t)
    pos = cls_t != 3
    lr, tb = reg_t[pos][:, [0, 2]], reg_t[pos][:, [1, 3]]
    ctr = lib.sqrt((lr.min(-1)[0] / lr.max(-1)[0]) * (tb.min(dim=-1)[0] / tb.max(dim=-1)[0]))
    rec("centerness", ctr)
    # IoU loss of predicted ltrb distances
    pred = (reg_t[pos].abs() * 0.9 + 0.5).requires_grad_()
    tgt = reg_t[pos]
    pa = (pred[:, 0] + pred[:, 2]) * (pred[:, 1] + pred[:, 3])
    ta = (tgt[:, 0] + tgt[:, 2]) * (tgt[:, 1] + tgt[:, 3])
    w_i = lib.min(pred[:, 0], tgt[:, 0]) + lib.min(pred[:, 2], tgt[:, 2])
    h_i = lib.min(pred[:, 1], tgt[:, 1]) + lib.min(pred[:, 3], tgt[:, 3])
    inter = w_i * h_i
    ious = (inter + 1.0) / (pa + ta - inter + 1.0)
    loss = (-lib.log(ious) * ctr).sum() / ctr.sum().clamp(min=1e-6)
    loss.backward()
    rec("ious", ious)
    rec("loss", loss)
    rec("gpred", pred.grad)
    # ATSS: top-k closest anchors by centre distance per level, threshold at mean + std
    centers = _xyxy_to_cxcywh(lib, gts)[:, :2]
    dist = lib.cdist(pts, centers)
    k = 5
    cand = []
    start = 0
    for p in points:
        _, idx = dist[start : start + len(p)].topk(k, dim=0, largest=False)
        cand.append(idx + start)
        start += len(p)
    cand = lib.cat(cand, dim=0)
    anchor_boxes = lib.cat([pts - 8, pts + 8], 1)
    ious_all = _box_iou(lib, anchor_boxes, gts)
    cand_ious = ious_all[cand, lib.arange(3)]
    thr = cand_ious.mean(0) + cand_ious.std(0)
    rec("cand", cand)
    rec("atss_thr", thr)
    rec("is_pos", cand_ious >= thr[None, :])
    rec("std_unb", cand_ious.std(0, unbiased=False))
    rec("var_corr", lib.var(cand_ious, 0, correction=0))


def p_rpn_filter(lib, dt, rec):
    g = lib.Generator().manual_seed(20)
    num_images, levels = 2, [24, 12, 6]
    objectness = lib.randn(num_images, sum(levels), dtype=dt, generator=g)
    proposals = _rand_boxes(lib, num_images * sum(levels), dt, size=50.0, gen=g)
    proposals = proposals.view(num_images, -1, 4)
    level_ids = [lib.full((n,), idx, dtype=lib.int64) for idx, n in enumerate(levels)]
    lvl = lib.cat(level_ids, 0).reshape(1, -1).expand_as(objectness)
    rec("lvl_stride", str(lvl.stride()))
    pre_nms_top_n = 8
    r, offset = [], 0
    for ob in objectness.split(levels, 1):
        k = min(pre_nms_top_n, ob.shape[1])
        _, top_idx = ob.topk(k, dim=1)
        r.append(top_idx + offset)
        offset += ob.shape[1]
    top_n_idx = lib.cat(r, dim=1)
    batch_idx = lib.arange(num_images)[:, None]
    objectness = objectness.detach()[batch_idx, top_n_idx]
    lvl = lvl[batch_idx, top_n_idx]
    proposals = proposals[batch_idx, top_n_idx]
    probs = lib.sigmoid(objectness)
    rec("top_n_idx", top_n_idx)
    for i, (boxes, scores, lv) in enumerate(zip(proposals, probs, lvl, strict=True)):
        boxes = _clip_boxes(lib, boxes, (40, 48))
        keep = _remove_small(lib, boxes, 1e-3)
        boxes, scores, lv = boxes[keep], scores[keep], lv[keep]
        keep = lib.where(scores >= 0.3)[0]
        boxes, scores, lv = boxes[keep], scores[keep], lv[keep]
        keep = _batched_nms(lib, boxes, scores, lv, 0.7)[:10]
        rec(f"img{i}.boxes", boxes[keep])
        rec(f"img{i}.scores", scores[keep])
        rec(f"img{i}.lv", lv[keep])
    # objectness in the (N, A*C, H, W) -> (N, HWA, C) layout of permute_and_flatten
    N, A, C, H, W = 2, 3, 1, 4, 5
    layer = lib.randn(N, A * C, H, W, dtype=dt, generator=g)
    flat = layer.view(N, -1, C, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, C)
    rec("pf", flat)
    box_reg = lib.randn(N, A * 4, H, W, dtype=dt, generator=g)
    bflat = box_reg.view(N, -1, 4, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, 4)
    rec("bf", bflat.flatten(0, -2)[:7])


def p_postprocess(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(21)
    ncls = 4
    props = [_rand_boxes(lib, 7, dt, gen=g), _rand_boxes(lib, 5, dt, gen=g)]
    boxes_per_image = [p.shape[0] for p in props]
    class_logits = lib.randn(12, ncls, dtype=dt, generator=g) * 2
    box_regression = lib.randn(12, ncls * 4, dtype=dt, generator=g) * 0.2
    coder = _BoxCoder(lib, (10.0, 10.0, 5.0, 5.0))
    pred_boxes = coder.decode(box_regression, lib.cat(props, 0)).reshape(12, -1, 4)
    pred_scores = F.softmax(class_logits, -1)
    for i, (boxes, scores) in enumerate(
        zip(
            pred_boxes.split(boxes_per_image, 0), pred_scores.split(boxes_per_image, 0), strict=True
        )
    ):
        boxes = _clip_boxes(lib, boxes, (30, 40))
        labels = lib.arange(ncls)
        labels = labels.view(1, -1).expand_as(scores)
        boxes, scores, labels = boxes[:, 1:], scores[:, 1:], labels[:, 1:]
        boxes = boxes.reshape(-1, 4)
        scores = scores.reshape(-1)
        labels = labels.reshape(-1)
        inds = lib.where(scores > 0.05)[0]
        boxes, scores, labels = boxes[inds], scores[inds], labels[inds]
        keep = _remove_small(lib, boxes, min_size=1e-2)
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        keep = _batched_nms(lib, boxes, scores, labels, 0.5)[:5]
        rec(f"det{i}.boxes", boxes[keep])
        rec(f"det{i}.scores", scores[keep])
        rec(f"det{i}.labels", labels[keep])
    # resize detections back to the original image size
    boxes = pred_boxes[:, 1]
    ratios = [
        lib.tensor(s, dtype=lib.float32) / lib.tensor(s_orig, dtype=lib.float32)
        for s, s_orig in zip((30, 40), (45, 50), strict=True)
    ]
    ratio_h, ratio_w = ratios
    xmin, ymin, xmax, ymax = boxes.unbind(1)
    resized = lib.stack((xmin / ratio_w, ymin / ratio_h, xmax / ratio_w, ymax / ratio_h), dim=1)
    rec("resized", resized)
    rec("resized.dtype", str(resized.dtype))
    # the losses of fastrcnn_loss
    labels = lib.randint(0, ncls, (12,), generator=g)
    reg_t = lib.randn(12, 4, dtype=dt, generator=g)
    cl = class_logits.clone().requires_grad_()
    br = box_regression.clone().requires_grad_()
    cls_loss = F.cross_entropy(cl, labels)
    pos = lib.where(labels > 0)[0]
    labels_pos = labels[pos]
    N, num_classes = cl.shape
    brr = br.reshape(N, br.size(-1) // 4, 4)
    box_loss = F.smooth_l1_loss(brr[pos, labels_pos], reg_t[pos], beta=1 / 9, reduction="sum")
    box_loss = box_loss / labels.numel()
    (cls_loss + box_loss).backward()
    rec("cls_loss", cls_loss)
    rec("box_loss", box_loss)
    rec("gcl", cl.grad)
    rec("gbr", br.grad)


def p_transform(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(22)
    images = [
        lib.rand(3, 20, 27, dtype=dt, generator=g),
        lib.rand(3, 31, 18, dtype=dt, generator=g),
    ]
    targets = [_rand_boxes(lib, 3, dt, 15.0, g), _rand_boxes(lib, 2, dt, 15.0, g)]
    mean = lib.tensor([0.485, 0.456, 0.406], dtype=dt)
    std = lib.tensor([0.229, 0.224, 0.225], dtype=dt)
    min_size, max_size = 24.0, 40.0
    out_imgs, out_boxes, sizes = [], [], []
    for img, boxes in zip(images, targets, strict=True):
        img = (img - mean[:, None, None]) / std[:, None, None]
        im_shape = lib.tensor(img.shape[-2:])
        smin = float(lib.min(im_shape).item())
        smax = float(lib.max(im_shape).item())
        scale = min(min_size / smin, max_size / smax)
        img = F.interpolate(img[None], size=None, scale_factor=scale, mode="bilinear",
                            recompute_scale_factor=True, align_corners=False)[0]  # fmt: skip
        h0, w0 = im_shape.tolist()
        ratios = [
            lib.tensor(s, dtype=lib.float32) / lib.tensor(s_orig, dtype=lib.float32)
            for s, s_orig in zip(img.shape[-2:], (h0, w0), strict=True)
        ]
        rh, rw = ratios
        x0, y0, x1, y1 = boxes.unbind(1)
        boxes = lib.stack((x0 * rw, y0 * rh, x1 * rw, y1 * rh), dim=1)
        out_imgs.append(img)
        out_boxes.append(boxes)
        sizes.append(tuple(img.shape[-2:]))
    rec("sizes", str(sizes))
    for i, (im, bx) in enumerate(zip(out_imgs, out_boxes, strict=True)):
        rec(f"img{i}", im)
        rec(f"boxes{i}", bx)
    # batch_images: pad to a multiple of 8
    max_size_ = [max(s) for s in zip(*[im.shape for im in out_imgs], strict=True)]
    stride = 8.0
    max_size_[1] = int(math.ceil(float(max_size_[1]) / stride) * stride)
    max_size_[2] = int(math.ceil(float(max_size_[2]) / stride) * stride)
    batch_shape = [len(out_imgs)] + max_size_
    batched = out_imgs[0].new_full(batch_shape, 0)
    for i in range(batched.shape[0]):
        img = out_imgs[i]
        batched[i, : img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
    rec("batched", batched)
    rec("batch_shape", str(tuple(batched.shape)))
    # other resize flavours used by detection pipelines
    t = out_imgs[0][None]
    rec("nearest", F.interpolate(t, scale_factor=0.5, mode="nearest"))
    rec("bicubic", F.interpolate(t, size=(13, 9), mode="bicubic", align_corners=False))
    rec("area", F.interpolate(t, size=(10, 7), mode="area"))
    rec("aa", F.interpolate(t, size=(12, 11), mode="bilinear", antialias=True))
    rec("sf_no_recompute", F.interpolate(t, scale_factor=1.37, mode="bilinear"))
    rec("sf_recompute", F.interpolate(t, scale_factor=1.37, mode="bilinear",
                                      recompute_scale_factor=True))  # fmt: skip
    # letterbox padding with F.pad (YOLO)
    lb = F.pad(t, (1, 2, 3, 0), value=114 / 255)
    rec("letterbox", lb)
    rec("reflect", F.pad(t, (2, 2, 1, 1), mode="reflect")[..., :3, :4])
    rec("replicate", F.pad(t, (2, 0, 0, 3), mode="replicate")[..., -4:, :3])
    # colour jitter by hand
    x = out_imgs[1].clamp(0, 1)
    gray = (0.299 * x[0] + 0.587 * x[1] + 0.114 * x[2]).unsqueeze(0)
    rec("contrast", (1.3 * x + (1 - 1.3) * gray.mean()).clamp(0, 1))
    rec("saturation", (0.7 * x + 0.3 * gray).clamp_(0.0, 1.0))


def p_keypoint_rcnn(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(23)
    K, S = 4, 14
    rois = _rand_boxes(lib, 3, dt, 30.0, g)
    span = rois[:, None, 2:] - rois[:, None, :2]
    kps = lib.cat(
        [
            rois[:, None, :2] + lib.rand(3, K, 2, dtype=dt, generator=g) * span * 1.1,
            (lib.rand(3, K, 1, dtype=dt, generator=g) > 0.2).to(dt),
        ],
        dim=2,
    )
    offset_x, offset_y = rois[:, 0], rois[:, 1]
    scale_x = S / (rois[:, 2] - rois[:, 0])
    scale_y = S / (rois[:, 3] - rois[:, 1])
    offset_x, offset_y = offset_x[:, None], offset_y[:, None]
    scale_x, scale_y = scale_x[:, None], scale_y[:, None]
    x, y = kps[..., 0], kps[..., 1]
    x_boundary = x == rois[:, 2][:, None]
    y_boundary = y == rois[:, 3][:, None]
    x = ((x - offset_x) * scale_x).floor().long()
    y = ((y - offset_y) * scale_y).floor().long()
    x[x_boundary] = S - 1
    y[y_boundary] = S - 1
    valid_loc = (x >= 0) & (y >= 0) & (x < S) & (y < S)
    vis = kps[..., 2] > 0
    valid = (valid_loc & vis).long()
    lin_ind = y * S + x
    heatmaps = lin_ind * valid
    rec("heatmaps", heatmaps)
    rec("valid", valid)
    logits = lib.randn(3, K, S, S, dtype=dt, generator=g, requires_grad=True)
    kp_logits = logits.view(3 * K, S * S)
    vflat = lib.where(valid.view(-1) > 0)[0]
    loss = F.cross_entropy(kp_logits[vflat], heatmaps.view(-1)[vflat])
    loss.backward()
    rec("loss", loss)
    rec("glogits", logits.grad)
    # heatmaps_to_keypoints: bicubic upsampling of each roi's maps, then argmax
    maps = logits.detach()
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    heights = (rois[:, 3] - rois[:, 1]).clamp(min=1)
    widths_ceil, heights_ceil = widths.ceil(), heights.ceil()
    xy_preds = lib.zeros((3, 3, K), dtype=dt)
    end_scores = lib.zeros((3, K), dtype=dt)
    for i in range(3):
        rw, rh = int(widths_ceil[i].item()), int(heights_ceil[i].item())
        wc, hc = widths[i] / rw, heights[i] / rh
        roi_map = F.interpolate(maps[i][:, None], size=(rh, rw), mode="bicubic",
                                align_corners=False)[:, 0]  # fmt: skip
        w = roi_map.shape[2]
        pos = roi_map.reshape(K, -1).argmax(dim=1)
        x_int = pos % w
        y_int = lib.div(pos - x_int, w, rounding_mode="floor")
        xp = (x_int.to(dt) + 0.5) * wc
        yp = (y_int.to(dt) + 0.5) * hc
        xy_preds[i, 0, :] = xp + rois[i, 0]
        xy_preds[i, 1, :] = yp + rois[i, 1]
        xy_preds[i, 2, :] = 1
        end_scores[i, :] = roi_map[lib.arange(K), y_int, x_int]
    rec("xy_preds", xy_preds.permute(0, 2, 1))
    rec("end_scores", end_scores)


def p_multiscale_roi(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(24)
    feats = [lib.randn(2, 3, 16, 16, dtype=dt, generator=g),
             lib.randn(2, 3, 8, 8, dtype=dt, generator=g),
             lib.randn(2, 3, 4, 4, dtype=dt, generator=g)]  # fmt: skip
    image_size = (64, 64)
    scales = []
    for f in feats:
        approx = float(f.shape[-1]) / float(image_size[1])
        scales.append(2 ** float(lib.tensor(approx).log2().round()))
    rec("scales", lib.tensor(scales))
    lvl_min = -lib.log2(lib.tensor(scales[0], dtype=lib.float32)).item()
    lvl_max = -lib.log2(lib.tensor(scales[-1], dtype=lib.float32)).item()
    rec("lvls", lib.tensor([lvl_min, lvl_max]))
    boxes = [_rand_boxes(lib, 4, dt, 50.0, g) * lib.tensor([1, 1, 1.5, 1.5], dtype=dt),
             _rand_boxes(lib, 3, dt, 20.0, g)]  # fmt: skip
    all_boxes = lib.cat(boxes, 0)
    ids = lib.cat([lib.full_like(b[:, :1], i, dtype=dt) for i, b in enumerate(boxes)], dim=0)
    rois = lib.cat([ids, all_boxes], dim=1)
    s = lib.sqrt(_box_area(lib, all_boxes))
    k0, s0, eps = 4, 224, 1e-6
    target = lib.floor(k0 + lib.log2(s / s0) + lib.tensor(eps, dtype=s.dtype))
    target = lib.clamp(target, min=lvl_min, max=lvl_max)
    levels = (target.to(lib.int64) - int(lvl_min)).to(lib.int64)
    rec("levels", levels)
    result = lib.zeros((rois.shape[0], 3, 2, 2), dtype=dt)
    for lvl, (f, sc) in enumerate(zip(feats, scales, strict=True)):
        idx = lib.where(levels == lvl)[0]
        if idx.numel() == 0:
            continue
        out = _roi_align_grid(lib, f, rois[idx], (2, 2), sc, 2, True, False)
        result[idx] = out.to(result.dtype)
    rec("result", result)
    # small boxes all land on the finest level: force some onto each level
    levels2 = lib.arange(rois.shape[0]) % 3
    res2 = lib.zeros((rois.shape[0], 3, 2, 2), dtype=dt)
    for lvl, (f, sc) in enumerate(zip(feats, scales, strict=True)):
        idx = lib.where(levels2 == lvl)[0]
        res2.index_copy_(0, idx, _roi_align_grid(lib, f, rois[idx], (2, 2), sc, 1, False, True))
    rec("res2", res2)
    rec("pooled_flat", F.adaptive_avg_pool2d(res2, 1).flatten(1))


def p_simota(lib, dt, rec):
    """YOLOX's SimOTA dynamic-k assignment, with its chained in-place index writes."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(25)
    n_gt, n_anchor, ncls = 3, 20, 4
    gt_boxes = _rand_boxes(lib, n_gt, dt, 30.0, g)
    pred_boxes = _rand_boxes(lib, n_anchor, dt, 30.0, g)
    gt_cls = lib.tensor([1, 3, 1])
    cls_logits = lib.randn(n_anchor, ncls, dtype=dt, generator=g)
    obj_logits = lib.randn(n_anchor, 1, dtype=dt, generator=g)
    pair_ious = _box_iou(lib, gt_boxes, pred_boxes)
    iou_cost = -lib.log(pair_ious + 1e-8)
    gt_onehot = F.one_hot(gt_cls.to(lib.int64), ncls).to(dt).unsqueeze(1).repeat(1, n_anchor, 1)
    cls_preds = (cls_logits.sigmoid().unsqueeze(0).repeat(n_gt, 1, 1)
                 * obj_logits.sigmoid().unsqueeze(0).repeat(n_gt, 1, 1))  # fmt: skip
    cls_cost = F.binary_cross_entropy(cls_preds.sqrt_(), gt_onehot, reduction="none").sum(-1)
    cost = cls_cost + 3.0 * iou_cost
    rec("cost", cost)
    matching = lib.zeros_like(cost, dtype=lib.uint8)
    n_cand = min(10, pair_ious.size(1))
    topk_ious, _ = lib.topk(pair_ious, n_cand, dim=1)
    dynamic_ks = lib.clamp(topk_ious.sum(1).int(), min=1)
    rec("dynamic_ks", dynamic_ks)
    for gi in range(n_gt):
        _, pos_idx = lib.topk(cost[gi], k=dynamic_ks[gi].item(), largest=False)
        matching[gi][pos_idx] = 1
    anchor_matching_gt = matching.sum(0)
    rec("amg", anchor_matching_gt)
    if (anchor_matching_gt > 1).sum() > 0:
        _, cost_argmin = lib.min(cost[:, anchor_matching_gt > 1], dim=0)
        matching[:, anchor_matching_gt > 1] *= 0
        matching[cost_argmin, anchor_matching_gt > 1] = 1
    fg_mask = matching.sum(0) > 0
    num_fg = fg_mask.sum().item()
    matched_gt = matching[:, fg_mask].argmax(0)
    pred_ious = (matching * pair_ious).sum(0)[fg_mask]
    rec("matching", matching)
    rec("num_fg", lib.tensor(num_fg))
    rec("matched_gt", matched_gt)
    rec("pred_ious", pred_ious)
    # the outer fg mask updated through a boolean index of its own clone
    outer = lib.zeros(n_anchor + 5, dtype=lib.bool)
    outer[:n_anchor] = True
    outer[outer.clone()] = fg_mask
    rec("outer", outer)
    cls_target = F.one_hot(gt_cls[matched_gt].to(lib.int64), ncls).to(dt) * pred_ious.unsqueeze(-1)
    rec("cls_target", cls_target)
    # YOLOv8 TaskAlignedAssigner pieces: scatter_add_ counts and masked_fill_
    align = cls_logits.sigmoid().T[gt_cls].pow(1.0) * pair_ious.pow(6.0)
    # (torch's topk orders tied values its own way: zero metrics are made distinct)
    align = align + lib.arange(n_anchor, 0, -1, dtype=dt) * 1e-30
    topk_metrics, topk_idxs = lib.topk(align, 5, dim=-1, largest=True)
    topk_mask = (topk_metrics.max(-1, keepdim=True)[0] > 1e-9).expand_as(topk_idxs)
    topk_idxs.masked_fill_(~topk_mask, 0)
    count = lib.zeros(align.shape, dtype=lib.int8)
    ones = lib.ones_like(topk_idxs[:, :1], dtype=lib.int8)
    for k in range(5):
        count.scatter_add_(-1, topk_idxs[:, k : k + 1], ones)
    count.masked_fill_(count > 1, 0)
    rec("count", count)
    rec("count.dtype", str(count.dtype))
    mask_pos = count.to(align.dtype)
    fg = mask_pos.sum(-2)
    if fg.max() > 1:
        mask_multi = (fg.unsqueeze(0) > 1).expand(n_gt, -1)
        max_ov = pair_ious.argmax(0)
        is_max = lib.zeros(mask_pos.shape, dtype=mask_pos.dtype)
        is_max.scatter_(0, max_ov.unsqueeze(0), 1)
        mask_pos = lib.where(mask_multi, is_max, mask_pos).float()
    rec("mask_pos", mask_pos)
    rec("tal_target", mask_pos.argmax(-2))
    norm = (align * mask_pos).amax(dim=-1, keepdim=True)
    rec("norm", norm)


def p_matrix_nms(lib, dt, rec):
    """SOLOv2's Matrix NMS and YOLACT's class-wise fast NMS on batched tensors."""
    g = lib.Generator().manual_seed(26)
    n = 9
    boxes = _rand_boxes(lib, n, dt, 20.0, g)
    scores, order = lib.rand(n, dtype=dt, generator=g).sort(descending=True)
    boxes = boxes[order]
    labels = lib.randint(0, 2, (n,), generator=g)
    iou = _box_iou(lib, boxes, boxes).triu(diagonal=1)
    same = (labels[None, :] == labels[:, None]).triu(diagonal=1).to(dt)
    decay_iou = iou * same
    compensate, _ = decay_iou.max(0)
    compensate = compensate.expand(n, n).transpose(1, 0)
    for kernel in ("linear", "gaussian"):
        if kernel == "gaussian":
            dm = lib.exp(-2.0 * (decay_iou**2))
            cm = lib.exp(-2.0 * (compensate**2))
            coef, _ = (dm / cm).min(0)
        else:
            dm = (1 - decay_iou) / (1 - compensate)
            coef, _ = dm.min(0)
        rec(f"coef_{kernel}", coef)
        rec(f"scores_{kernel}", scores * coef)
    # class-wise fast NMS on (C, k) score tables
    C, k = 3, 5
    cls_scores = lib.rand(C, n, dtype=dt, generator=g)
    s, idx = cls_scores.sort(1, descending=True)
    idx, s = idx[:, :k].contiguous(), s[:, :k]
    b = boxes[idx.view(-1), :].view(C, k, 4)
    lt = lib.max(b[:, :, None, :2], b[:, None, :, :2])
    rb = lib.min(b[:, :, None, 2:], b[:, None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    biou = inter / (area[:, :, None] + area[:, None, :] - inter)
    biou.triu_(diagonal=1)
    iou_max, _ = biou.max(dim=1)
    keep = iou_max <= 0.5
    keep = keep & (s > 0.2)
    classes = lib.arange(C)[:, None].expand_as(keep)
    rec("keep", keep)
    rec("classes", classes[keep])
    rec("kept_scores", s[keep])
    rec("kept_boxes", b[keep])
    s_all, order = s[keep].sort(0, descending=True)
    rec("top", s_all[:4])
    rec("top_cls", classes[keep][order[:4]])
    # baddbmm/bmm pairwise intersection as a batched matmul trick
    lhs = b[..., 2:] - b[..., :2]
    rec("bmm", lib.bmm(lhs, lhs.transpose(1, 2)))
    rec("baddbmm", lib.baddbmm(biou, lhs, lhs.transpose(1, 2), beta=0.5, alpha=2.0))


def p_gfl_losses(lib, dt, rec):
    """Generalized Focal Loss pieces: quality focal, distribution focal, varifocal, IoU-aware."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(27)
    N, C, reg_max = 8, 3, 7
    pred = lib.randn(N, C, dtype=dt, generator=g).requires_grad_()
    label = lib.tensor([0, 3, 1, 3, 2, 0, 3, 1])  # 3 = background
    score = lib.rand(N, dtype=dt, generator=g)
    beta = 2.0
    sig = pred.sigmoid()
    zerolabel = lib.zeros_like(pred)
    loss = F.binary_cross_entropy_with_logits(pred, zerolabel, reduction="none") * sig.pow(beta)
    pos = ((label >= 0) & (label < C)).nonzero().squeeze(1)
    pos_label = label[pos].long()
    scale = score[pos] - sig[pos, pos_label]
    loss[pos, pos_label] = F.binary_cross_entropy_with_logits(
        pred[pos, pos_label], score[pos], reduction="none"
    ) * scale.abs().pow(beta)
    qfl = loss.sum(dim=1, keepdim=False)
    rec("qfl", qfl)
    # distribution focal loss over reg_max + 1 bins
    dpred = lib.randn(N * 4, reg_max + 1, dtype=dt, generator=g).requires_grad_()
    target = lib.rand(N * 4, dtype=dt, generator=g) * (reg_max - 0.01)
    dis_left = target.long()
    dis_right = dis_left + 1
    w_left = dis_right.to(dt) - target
    w_right = target - dis_left.to(dt)
    dfl = (F.cross_entropy(dpred, dis_left, reduction="none") * w_left
           + F.cross_entropy(dpred, dis_right, reduction="none") * w_right)  # fmt: skip
    rec("dfl", dfl)
    # integral of the distribution back to a distance
    proj = lib.linspace(0, reg_max, reg_max + 1, dtype=dt)
    dist = F.softmax(dpred, dim=1) @ proj
    rec("integral", dist)
    rec(
        "integral_linear",
        F.linear(F.softmax(dpred.reshape(-1, reg_max + 1), 1), proj[None]).squeeze(1),
    )
    # varifocal loss
    vf_t = lib.zeros(N, C, dtype=dt)
    vf_t[pos, pos_label] = score[pos]
    ps = pred.sigmoid()
    weight = 0.75 * ps.pow(2.0) * (vf_t <= 0).to(dt) + vf_t
    vfl = (F.binary_cross_entropy_with_logits(pred, vf_t, reduction="none") * weight).sum()
    rec("vfl", vfl)
    total = qfl.mean() + dfl.mean() + vfl / max(len(pos), 1) + dist.sum() * 0.01
    total.backward()
    rec("gpred", pred.grad)
    rec("gdpred", dpred.grad)
    # dist2bbox / bbox2dist of anchor points
    anchors_pts = lib.rand(N, 2, dtype=dt, generator=g) * 20
    ltrb = dist.detach().view(N, 4)
    lt, rb = ltrb.chunk(2, -1)
    x1y1 = anchors_pts - lt
    x2y2 = anchors_pts + rb
    c_xy = (x1y1 + x2y2) / 2
    wh = x2y2 - x1y1
    rec("dist2bbox_xywh", lib.cat((c_xy, wh), -1))
    back = lib.cat((anchors_pts - x1y1, x2y2 - anchors_pts), -1).clamp_(0, reg_max - 0.01)
    rec("bbox2dist", back)


def p_train_tiny(lib, dt, rec):
    """A tiny one-level RetinaNet-style detector trained a few steps: focal loss on anchors,
    GIoU on decoded boxes, SGD with momentum and weight decay, MultiStepLR, warmup by LambdaLR
    chained, clip_grad_norm_, and a checkpoint round trip."""
    import io

    nn = lib.nn
    lib.manual_seed(28)
    ncls, A, S, stride = 3, 3, 4, 8

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 8, 3, 2, 1), nn.GroupNorm(2, 8), nn.ReLU(),
                nn.Conv2d(8, 8, 3, 2, 1), nn.BatchNorm2d(8), nn.ReLU(),
                nn.Conv2d(8, 8, 3, 2, 1), nn.ReLU(),
            )  # fmt: skip
            self.cls = nn.Conv2d(8, A * ncls, 3, padding=1)
            self.reg = nn.Conv2d(8, A * 4, 3, padding=1)
            nn.init.normal_(self.cls.weight, std=0.01)
            nn.init.constant_(self.cls.bias, -math.log((1 - 0.01) / 0.01))
            nn.init.normal_(self.reg.weight, std=0.01)
            nn.init.zeros_(self.reg.bias)

        def forward(self, x):
            h = self.body(x)
            n = x.shape[0]
            c = self.cls(h).view(n, A, ncls, S, S).permute(0, 3, 4, 1, 2).reshape(n, -1, ncls)
            r = self.reg(h).view(n, A, 4, S, S).permute(0, 3, 4, 1, 2).reshape(n, -1, 4)
            return c, r

    model = Head().to(dt)
    sizes = lib.tensor([[12.0, 12.0], [20.0, 10.0], [10.0, 20.0]], dtype=dt)
    ys, xs = lib.meshgrid(lib.arange(S, dtype=dt), lib.arange(S, dtype=dt), indexing="ij")
    ctr = (lib.stack([xs, ys], -1).reshape(-1, 1, 2) + 0.5) * stride
    anchors = lib.cat([ctr - sizes / 2, ctr + sizes / 2], -1).reshape(-1, 4)
    images = lib.rand(2, 3, 32, 32, dtype=dt)
    gts = [lib.tensor([[2.0, 3.0, 14.0, 15.0], [16.0, 18.0, 30.0, 27.0]], dtype=dt),
           lib.tensor([[5.0, 4.0, 25.0, 14.0]], dtype=dt)]  # fmt: skip
    gl = [lib.tensor([0, 2]), lib.tensor([1])]
    coder = _BoxCoder(lib, (1.0, 1.0, 1.0, 1.0))
    decay, no_decay = [], []
    for p in model.parameters():
        (no_decay if p.ndim <= 1 else decay).append(p)
    opt = lib.optim.SGD(
        [{"params": decay, "weight_decay": 1e-4}, {"params": no_decay, "weight_decay": 0.0}],
        lr=0.05, momentum=0.9, nesterov=True,
    )  # fmt: skip
    warm = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 3))
    steps = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[3, 5], gamma=0.1)
    for it in range(6):
        cls_out, reg_out = model(images)
        losses_c, losses_r, total_pos = [], [], 0
        for b in range(2):
            iou = _box_iou(lib, gts[b], anchors)
            vals, idx = iou.max(0)
            pos = vals >= 0.4
            neg = vals < 0.3
            best = iou.argmax(1)
            pos[best] = True
            neg[best] = False
            target = lib.zeros_like(cls_out[b])
            target[pos, gl[b][idx[pos]]] = 1.0
            valid = pos | neg
            losses_c.append(_sigmoid_focal(lib, cls_out[b][valid], target[valid], reduction="sum"))
            dec = coder.decode(reg_out[b][pos], anchors[pos])
            losses_r.append((1 - lib.diag(_giou(lib, dec, gts[b][idx[pos]]))).sum())
            total_pos += int(pos.sum())
        norm = max(1.0, float(total_pos))
        loss_c = sum(losses_c) / norm
        loss_r = sum(losses_r) / norm
        loss = loss_c + loss_r
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        opt.step()
        warm.step()
        steps.step()
        rec(f"loss{it}", lib.stack([loss_c, loss_r]))
        rec(f"gn{it}", gn)
        rec(f"lr{it}", lib.tensor([gr["lr"] for gr in opt.param_groups]))
    rec.params("m", model)
    rec("bn_rm", model.body[4].running_mean)
    rec("nbt", model.body[4].num_batches_tracked)
    buf = io.BytesIO()
    lib.save(
        {"model": model.state_dict(), "opt": opt.state_dict(), "sched": steps.state_dict()}, buf
    )
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    m2 = Head().to(dt)
    m2.load_state_dict(ck["model"])
    m2.eval()
    model.eval()
    with lib.no_grad():
        c1, r1 = model(images)
        c2, r2 = m2(images)
    rec("eval_same", lib.equal(c1, c2) and lib.equal(r1, r2))
    rec("eval_cls", c1.sigmoid().amax(-1))
    rec("sched_state", str(sorted(ck["sched"].keys())))
    rec("milestones", str(ck["sched"]["milestones"]))
    rec("momentum_buf", ck["opt"]["state"][0]["momentum_buffer"])


def p_reprs(lib, dt, rec):
    """What users print while debugging a detector: dicts of outputs, int/half boxes, empties."""
    lib.manual_seed(29)
    b = lib.rand(4, 4, dtype=dt) * 100
    det = {"boxes": b, "scores": lib.rand(4, dtype=dt), "labels": lib.tensor([1, 2, 1, 3])}
    rec("det", repr(det))
    rec("int_boxes", repr(b.long()))
    rec("half_boxes", repr(b.half()))
    rec("empty", repr({"boxes": lib.zeros((0, 4), dtype=dt), "labels": lib.zeros(0).long()}))
    rec("grad", repr(b.clone().requires_grad_().sum(1)))
    rec("size", repr(b.shape))
    rec("of_0d", repr(lib.tensor([b[0, 0], b[1, 1]])))
    rec("stack_0d", repr(lib.stack([b.max(), b.min()])))
    rec("fmt", f"{b[0, 0]:.2f} {float(b[0:1, 0]):.3f} {round(b[0, 0].item(), 2)}")
    rec("py_builtins", repr((sum(b[0] > 50), max(b[:, 0]), sorted(b[:, 1].long()))))
    with lib.no_grad():
        rec("tiny", repr(b * 1e-6))
    lib.set_printoptions(precision=2, sci_mode=False)
    try:
        rec("printopts", repr(b * 1e-6))
    finally:
        lib.set_printoptions(profile="default")
