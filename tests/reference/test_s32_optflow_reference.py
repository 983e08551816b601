"""Session 32 (helper optflow): optical-flow, image-registration and spatial-transformer programs
written the way such code is written in torch (RAFT, PWC-Net, UnFlow/ARFlow-style losses,
spatial transformer networks, VoxelMorph-style 3-d registration), run under torch and minitorch
with the same seeds and compared record by record: grid_sample in every mode, padding mode and
align_corners setting, 4-d and 5-d, with gradients for the input and the grid; affine_grid in
2-d and 3-d; backward warping by flows on meshgrid bases (indexing 'ij' and 'xy'); local cost
volumes by F.pad and shifts, and by unfold and einsum; RAFT's all-pairs correlation with an
avg_pool2d pyramid and its bilinear lookup; flows resized by F.interpolate with their values
scaled; RAFT's convex upsampling (unfold + softmax); first- and second-order edge-aware
smoothness, census and SSIM (avg_pool2d) photometric losses; forward-backward occlusion masks;
endpoint-error metrics; homography warps; a sequence loss; spatial transformer networks trained
a few Adam steps (2-d and 3-d); and the errors users hit (grid shapes, mode strings, dtypes).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- interpolate with an align_corners that is no bool (an int, a float, a str) raised "argument
  'align_corners' must be bool"; now torch's upsample kernel parser's "received an invalid
  combination of arguments" TypeError, naming output_size and scale_factors as interpolate
  passes them (a repeated number as a list, the caller's list or tuple, a recomputed size), and
  before the integer-dtype check; that dtype check now also comes after the output-size and
  empty-channel checks, as in torch's kernels.
- meshgrid: indexing=5 raised the "must be one of" RuntimeError (torch: "meshgrid(): argument
  'indexing' must be str, not int"); a non-tensor element is reported before indexing's value;
  dtype and device are checked pair by pair (a device mismatch before a later dtype mismatch
  and before the rank check), with torch's "meshgrid expects all tensors to have the same
  device"; bytes indexing is read as a str, as torch's parser reads it.
- affine_grid(theta, 4) (a size with no length): torch's "object of type 'int' has no len()".
- grid_sample's node had no _saved_input/_saved_grid/_saved_interpolation_mode/
  _saved_padding_mode/_saved_align_corners (torch's enum numbers), which graph drawers read.

Known and left (documented):
- grid_sample of float16/bfloat16 inputs (bicubic 2-d, and the 3-d kernel) can be an ulp off
  torch's: torch's CPU kernels round every intermediate to the reduced type, minitorch computes
  in float32 and rounds once; the programs use float32/float64.
- interpolate's and affine_grid's nodes (composite nodes) have no _saved_* attributes
  (torch: _saved_align_corners, _saved_output_size, _saved_scales_h, _saved_size, ...).
- A float32 conv bias feeding a BatchNorm gets a rounding-noise gradient that Adam turns into a
  full step; mini_raft uses a bias-free conv there and records float32 parameters only as
  gradients before the first step.
- interpolate(int tensor, scale_factor=1e30, mode="area"): torch's TypeError carries a C++
  stack trace; minitorch raises the int64 overflow RuntimeError.
- Forward-mode AD (forward_ad, func.jacfwd) through grid_sample works here; torch raises
  NotImplementedError ("Trying to use forward AD with grid_sampler_2d ..."). Not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "gs_modes", "gs_5d", "affine_2d", "affine_3d", "warp_ij", "warp_xy", "cost_volume_pad",
    "cost_volume_unfold", "raft_corr", "flow_resize", "convex_upsample", "smoothness",
    "census", "ssim", "fb_consistency", "epe_metrics", "stn_train", "stn_3d", "errors",
    "nearest_ties", "homography", "deform_offsets", "noncontig", "sequence_loss",
    "flow_color", "pwc_pyramid", "gs_double_backward", "gs_edges", "upsample_modules",
    "gradcheck", "voxelmorph", "gs_outside", "tv_diff", "interp_errors", "affine_errors",
    "mini_raft", "meshgrid_errors",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _base_grid(lib, dt, b, h, w, indexing="ij"):
    """Pixel coordinates (B, 2, H, W): channel 0 is x, channel 1 is y."""
    if indexing == "ij":
        yy, xx = lib.meshgrid(lib.arange(h, dtype=dt), lib.arange(w, dtype=dt), indexing="ij")
    else:
        xx, yy = lib.meshgrid(lib.arange(w, dtype=dt), lib.arange(h, dtype=dt), indexing="xy")
    grid = lib.stack([xx, yy], dim=0)
    return grid.unsqueeze(0).repeat(b, 1, 1, 1)


def _warp(lib, x, flow, align_corners=True, padding_mode="zeros", mode="bilinear"):
    """Backward warping of x (B, C, H, W) by flow (B, 2, H, W) in pixels."""
    b, _, h, w = x.shape
    vgrid = _base_grid(lib, x.dtype, b, h, w) + flow
    if align_corners:
        gx = 2.0 * vgrid[:, 0] / max(w - 1, 1) - 1.0
        gy = 2.0 * vgrid[:, 1] / max(h - 1, 1) - 1.0
    else:
        gx = (2.0 * vgrid[:, 0] + 1.0) / w - 1.0
        gy = (2.0 * vgrid[:, 1] + 1.0) / h - 1.0
    grid = lib.stack([gx, gy], dim=-1)
    return lib.nn.functional.grid_sample(
        x, grid, mode=mode, padding_mode=padding_mode, align_corners=align_corners
    )


# --- the programs: each takes the library, a dtype and a recorder ---


def p_gs_modes(lib, dt, rec):
    F = lib.nn.functional
    x0 = _randn(lib, dt, 1, 2, 3, 5, 6)
    g0 = _rand(lib, dt, 2, 2, 4, 7, 2) * 2.6 - 1.3
    w = _randn(lib, dt, 3, 2, 3, 4, 7)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                x = x0.clone().requires_grad_(True)
                g = g0.clone().requires_grad_(True)
                out = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
                (out * w).sum().backward()
                tag = f"{mode}.{pad}.{int(ac)}"
                rec(tag, out)
                rec(tag + ".gx", x.grad)
                rec(tag + ".gg", g.grad)
                node = out.grad_fn
                saved = (node._saved_interpolation_mode, node._saved_padding_mode)
                rec(tag + ".saved", str((*saved, node._saved_align_corners)))
    rec("grad_fn", type(out.grad_fn).__name__)
    rec("saved_names", str([k for k in dir(out.grad_fn) if k.startswith("_saved_")]))
    out = F.grid_sample(x0.requires_grad_(True), g0, align_corners=False)
    rec("saved_grid", out.grad_fn._saved_grid is g0)
    rec("saved_input", out.grad_fn._saved_input is x0)


def p_gs_5d(lib, dt, rec):
    F = lib.nn.functional
    x0 = _randn(lib, dt, 4, 2, 2, 3, 4, 5)
    g0 = _rand(lib, dt, 5, 2, 2, 3, 4, 3) * 2.4 - 1.2
    w = _randn(lib, dt, 6, 2, 2, 2, 3, 4)
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                x = x0.clone().requires_grad_(True)
                g = g0.clone().requires_grad_(True)
                out = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
                (out * w).sum().backward()
                tag = f"{mode}.{pad}.{int(ac)}"
                rec(tag, out)
                rec(tag + ".gx", x.grad)
                rec(tag + ".gg", g.grad)
                node = out.grad_fn
                saved = (node._saved_interpolation_mode, node._saved_padding_mode)
                rec(tag + ".saved", str((*saved, node._saved_align_corners)))
    rec("grad_fn", type(out.grad_fn).__name__)


def p_affine_2d(lib, dt, rec):
    F = lib.nn.functional
    ang = lib.tensor([0.0, 0.3, -1.1], dtype=dt)
    c, s = lib.cos(ang), lib.sin(ang)
    scale = lib.tensor([1.0, 0.8, 1.3], dtype=dt)
    theta = lib.stack(
        [
            lib.stack([c * scale, -s * scale, lib.tensor([0.0, 0.1, -0.2], dtype=dt)], -1),
            lib.stack([s * scale, c * scale, lib.tensor([0.0, -0.3, 0.25], dtype=dt)], -1),
        ],
        1,
    )
    rec("theta", theta)
    x = _randn(lib, dt, 7, 3, 2, 6, 5)
    for ac in (False, True):
        grid = F.affine_grid(theta, x.size(), align_corners=ac)
        rec(f"grid{int(ac)}", grid)
        rec(f"shape{int(ac)}", str(tuple(grid.shape)))
        rec(f"warp{int(ac)}", F.grid_sample(x, grid, align_corners=ac))
        # identity theta reproduces the input exactly
        eye = lib.eye(2, 3, dtype=dt).unsqueeze(0).expand(3, 2, 3)
        ident = F.grid_sample(
            x, F.affine_grid(eye, list(x.shape), align_corners=ac), align_corners=ac
        )
        rec(f"ident{int(ac)}", (ident - x).abs().max())
    # a different output size than the input
    grid = F.affine_grid(theta, (3, 2, 4, 9), align_corners=False)
    rec("resample", F.grid_sample(x, grid, align_corners=False))
    # gradient for theta
    th = theta.clone().requires_grad_(True)
    out = F.grid_sample(x, F.affine_grid(th, x.shape, align_corners=False), align_corners=False)
    out.pow(2).mean().backward()
    rec("gtheta", th.grad)
    rec.warns("warns", lambda: F.affine_grid(theta, x.shape))
    rec.warns("warns_gs", lambda: F.grid_sample(x, F.affine_grid(theta, x.shape, False)))
    rec.warns("unit", lambda: F.affine_grid(theta, (3, 1, 1, 4), align_corners=True))
    rec("unit_grid", F.affine_grid(theta, (3, 1, 1, 4), align_corners=True))
    rec("unit_grid0", F.affine_grid(theta, (3, 1, 1, 4), align_corners=False))


def p_affine_3d(lib, dt, rec):
    F = lib.nn.functional
    th = _randn(lib, dt, 8, 2, 3, 4) * 0.2
    th = th + lib.eye(3, 4, dtype=dt)
    x = _randn(lib, dt, 9, 2, 1, 3, 4, 5)
    for ac in (False, True):
        grid = F.affine_grid(th, x.shape, align_corners=ac)
        rec(f"grid{int(ac)}", grid)
        rec(f"warp{int(ac)}", F.grid_sample(x, grid, align_corners=ac))
        rec(f"near{int(ac)}", F.grid_sample(x, grid, mode="nearest", align_corners=ac))
    t = th.clone().requires_grad_(True)
    out = F.grid_sample(
        x, F.affine_grid(t, (2, 1, 2, 3, 3), align_corners=True), align_corners=True
    )
    (out * out).sum().backward()
    rec("gtheta", t.grad)
    rec("grad_fn", type(F.affine_grid(t, (2, 1, 2, 2, 2), False).grad_fn).__name__)


def p_warp_ij(lib, dt, rec):
    img = _rand(lib, dt, 10, 2, 3, 6, 7)
    flow = (_randn(lib, dt, 11, 2, 2, 6, 7) * 1.5).requires_grad_(True)
    for ac in (True, False):
        for pad in ("zeros", "border"):
            out = _warp(lib, img, flow, ac, pad)
            rec(f"warp.{int(ac)}.{pad}", out)
    target = _rand(lib, dt, 12, 2, 3, 6, 7)
    loss = (_warp(lib, img, flow) - target).abs().mean()
    loss.backward()
    rec("loss", loss)
    rec("gflow", flow.grad)
    # zero flow is the identity
    rec("zero", (_warp(lib, img, lib.zeros_like(flow)) - img).abs().max())
    # an integer flow shifts pixels exactly
    shift = lib.zeros(2, 2, 6, 7, dtype=dt)
    shift[:, 0] = 1.0
    rec("shift", _warp(lib, img, shift))
    rec("base", _base_grid(lib, dt, 1, 3, 4))


def p_warp_xy(lib, dt, rec):
    h, w = 5, 6
    xx, yy = lib.meshgrid(
        lib.linspace(-1, 1, w, dtype=dt), lib.linspace(-1, 1, h, dtype=dt), indexing="xy"
    )
    rec("xx", xx)
    rec("yy", yy)
    grid = lib.stack((xx, yy), 2).unsqueeze(0)
    img = _randn(lib, dt, 13, 1, 2, h, w)
    rec("ident", lib.nn.functional.grid_sample(img, grid, align_corners=True))
    flow = _randn(lib, dt, 14, 1, h, w, 2) * 0.1
    flow.requires_grad_(True)
    out = lib.nn.functional.grid_sample(img, grid + flow, align_corners=True, padding_mode="border")
    rec("out", out)
    out.sum().backward()
    rec("gflow", flow.grad)
    # 'ij' and 'xy' meshgrid agree up to a transpose
    a = lib.meshgrid(lib.arange(3, dtype=dt), lib.arange(4, dtype=dt), indexing="ij")
    b = lib.meshgrid(lib.arange(3, dtype=dt), lib.arange(4, dtype=dt), indexing="xy")
    rec("ij0", a[0])
    rec("xy0", b[0])
    rec("same", lib.equal(a[0], b[0].T))
    rec.warns("default_index", lambda: lib.meshgrid(lib.arange(2), lib.arange(3)))
    c = lib.cartesian_prod(lib.arange(2, dtype=dt), lib.arange(3, dtype=dt))
    rec("cart", c)


def _corr_pad(lib, f1, f2, md):
    F = lib.nn.functional
    b, c, h, w = f1.shape
    f2p = F.pad(f2, (md, md, md, md))
    out = []
    for dy in range(2 * md + 1):
        for dx in range(2 * md + 1):
            out.append((f1 * f2p[:, :, dy : dy + h, dx : dx + w]).mean(1, keepdim=True))
    return F.leaky_relu(lib.cat(out, 1), 0.1)


def p_cost_volume_pad(lib, dt, rec):
    f1 = _randn(lib, dt, 15, 2, 4, 5, 6).requires_grad_(True)
    f2 = _randn(lib, dt, 16, 2, 4, 5, 6).requires_grad_(True)
    cv = _corr_pad(lib, f1, f2, 2)
    rec("cv", cv)
    rec("shape", str(cv.shape))
    w = _randn(lib, dt, 17, *cv.shape)
    (cv * w).sum().backward()
    rec("g1", f1.grad)
    rec("g2", f2.grad)
    # the argmax displacement
    rec("best", cv.argmax(1))
    # replicate/reflect padding variants
    F = lib.nn.functional
    rec("rep", F.pad(f2, (1, 1, 1, 1), mode="replicate")[0, 0])
    rec("refl", F.pad(f2, (2, 2, 2, 2), mode="reflect")[0, 0])
    rec("const", F.pad(f2, (1, 0, 0, 2), value=-1.0)[1, 1])


def p_cost_volume_unfold(lib, dt, rec):
    F = lib.nn.functional
    b, c, h, w, k = 2, 3, 4, 5, 3
    f1 = _randn(lib, dt, 18, b, c, h, w).requires_grad_(True)
    f2 = _randn(lib, dt, 19, b, c, h, w).requires_grad_(True)
    patches = F.unfold(f2, kernel_size=k, padding=k // 2)  # (b, c*k*k, h*w)
    rec("patches_shape", str(patches.shape))
    patches = patches.view(b, c, k * k, h, w)
    cv = lib.einsum("bchw,bckhw->bkhw", f1, patches) / math.sqrt(c)
    rec("cv", cv)
    # same result as the pad-and-shift loop (the centre tap)
    ref = (f1 * f2).sum(1) / math.sqrt(c)
    rec("centre", (cv[:, k * k // 2] - ref).abs().max())
    cv.square().sum().backward()
    rec("g1", f1.grad)
    rec("g2", f2.grad)
    # fold is unfold's adjoint
    cols = F.unfold(f1.detach(), 2, stride=1)
    rec("fold", F.fold(cols, (h, w), 2, stride=1))
    ones = F.fold(F.unfold(lib.ones(1, 1, h, w, dtype=dt), 2), (h, w), 2)
    rec("overlap", ones)
    # dilated unfold, bmm formulation
    pd = F.unfold(f2.detach(), 3, dilation=2, padding=2)
    rec("dilated", pd)
    q = f1.detach().flatten(2).transpose(1, 2)  # (b, hw, c)
    kk = f2.detach().flatten(2)  # (b, c, hw)
    rec("bmm", lib.bmm(q, kk))


def _corr_pyramid(lib, f1, f2, levels):
    b, c, h, w = f1.shape
    corr = lib.matmul(f1.view(b, c, h * w).transpose(1, 2), f2.view(b, c, h * w))
    corr = corr.view(b, h, w, 1, h, w) / lib.sqrt(lib.tensor(c).float()).to(f1.dtype)
    corr = corr.reshape(b * h * w, 1, h, w)
    pyr = [corr]
    for _ in range(levels - 1):
        corr = lib.nn.functional.avg_pool2d(corr, 2, stride=2)
        pyr.append(corr)
    return pyr


def _bilinear_sampler(lib, img, coords):
    h, w = img.shape[-2:]
    xg, yg = coords.split([1, 1], dim=-1)
    xg = 2 * xg / (w - 1) - 1
    yg = 2 * yg / (h - 1) - 1
    grid = lib.cat([xg, yg], dim=-1)
    return lib.nn.functional.grid_sample(img, grid, align_corners=True)


def p_raft_corr(lib, dt, rec):
    b, c, h, w, r = 1, 8, 8, 8, 2
    f1 = _randn(lib, dt, 20, b, c, h, w).requires_grad_(True)
    f2 = _randn(lib, dt, 21, b, c, h, w).requires_grad_(True)
    pyr = _corr_pyramid(lib, f1, f2, 3)
    for i, p in enumerate(pyr):
        rec(f"pyr{i}", p)
    coords = _base_grid(lib, dt, b, h, w).permute(0, 2, 3, 1)  # (b, h, w, 2)
    coords = coords + _randn(lib, dt, 22, b, h, w, 2)
    out = []
    for i, corr in enumerate(pyr):
        d = lib.linspace(-r, r, 2 * r + 1, dtype=dt)
        delta = lib.stack(lib.meshgrid(d, d, indexing="ij"), dim=-1)
        centroid = coords.reshape(b * h * w, 1, 1, 2) / 2**i
        coords_lvl = centroid + delta.view(1, 2 * r + 1, 2 * r + 1, 2)
        out.append(_bilinear_sampler(lib, corr, coords_lvl).view(b, h, w, -1))
    feats = lib.cat(out, dim=-1).permute(0, 3, 1, 2).contiguous()
    rec("feats", feats)
    feats.pow(2).mean().backward()
    rec("g1", f1.grad)
    rec("g2", f2.grad)


def p_flow_resize(lib, dt, rec):
    F = lib.nn.functional
    flow = _randn(lib, dt, 23, 2, 2, 5, 7) * 3
    for mode, ac in (
        ("bilinear", True),
        ("bilinear", False),
        ("bicubic", False),
        ("nearest", None),
        ("area", None),
    ):
        kw = {} if ac is None else {"align_corners": ac}
        up = F.interpolate(flow, size=(10, 14), mode=mode, **kw)
        up = up * lib.tensor([14 / 7, 10 / 5], dtype=dt).view(1, 2, 1, 1)
        rec(f"up.{mode}.{ac}", up)
    up8 = 8 * F.interpolate(flow, scale_factor=8, mode="bilinear", align_corners=True)
    rec("up8", up8[:, :, ::7, ::9])
    down = F.interpolate(flow, scale_factor=0.5, mode="bilinear", align_corners=False)
    rec("down", down * 0.5)
    down_r = F.interpolate(flow, scale_factor=0.5, mode="bilinear", recompute_scale_factor=True)
    rec("down_r", down_r)
    rec("area", F.adaptive_avg_pool2d(flow, (2, 3)))
    rec("aa", F.interpolate(flow, size=(3, 4), mode="bilinear", antialias=True))
    # scale h and w separately (non-square)
    fx, fy = flow[:, :1], flow[:, 1:]
    new = F.interpolate(flow, size=(8, 9), mode="bilinear", align_corners=False)
    rec("sep", lib.cat([new[:, :1] * 9 / 7, new[:, 1:] * 8 / 5], 1))
    rec("fx", fx.mean())
    rec("fy", fy.std())
    f = flow.clone().requires_grad_(True)
    F.interpolate(f, scale_factor=2, mode="bilinear", align_corners=True).pow(2).sum().backward()
    rec("grad", f.grad)


def _convex_upsample(lib, flow, mask, f=4):
    F = lib.nn.functional
    n, _, h, w = flow.shape
    mask = mask.view(n, 1, 9, f, f, h, w)
    mask = lib.softmax(mask, dim=2)
    up = F.unfold(f * flow, [3, 3], padding=1)
    up = up.view(n, 2, 9, 1, 1, h, w)
    up = lib.sum(mask * up, dim=2)
    up = up.permute(0, 1, 4, 2, 5, 3)
    return up.reshape(n, 2, f * h, f * w)


def p_convex_upsample(lib, dt, rec):
    flow = _randn(lib, dt, 24, 2, 2, 3, 4).requires_grad_(True)
    mask = _randn(lib, dt, 25, 2, 9 * 16, 3, 4).requires_grad_(True)
    up = _convex_upsample(lib, flow, mask)
    rec("up", up)
    rec("shape", str(up.shape))
    w = _randn(lib, dt, 26, *up.shape)
    (up * w).sum().backward()
    rec("gflow", flow.grad)
    rec("gmask", mask.grad)
    # uniform masks average the 3x3 neighbourhood
    u = _convex_upsample(lib, flow.detach(), lib.zeros(2, 144, 3, 4, dtype=dt))
    rec("uniform", u)
    rec("ps", lib.nn.functional.pixel_shuffle(mask.detach()[:, :16], 4))


def _grads(img):
    dx = img[:, :, :, 1:] - img[:, :, :, :-1]
    dy = img[:, :, 1:, :] - img[:, :, :-1, :]
    return dx, dy


def p_smoothness(lib, dt, rec):
    img = _rand(lib, dt, 27, 2, 3, 6, 7)
    flow = (_randn(lib, dt, 28, 2, 2, 6, 7)).requires_grad_(True)
    alpha = 10.0
    ix, iy = _grads(img)
    wx = lib.exp(-alpha * ix.abs().mean(1, keepdim=True))
    wy = lib.exp(-alpha * iy.abs().mean(1, keepdim=True))
    fx, fy = _grads(flow)
    s1 = (wx * fx.abs()).mean() / 2 + (wy * fy.abs()).mean() / 2
    fxx, _ = _grads(fx)
    _, fyy = _grads(fy)
    s2 = (wx[:, :, :, 1:] * fxx.abs()).mean() / 2 + (wy[:, :, 1:] * fyy.abs()).mean() / 2
    rec("s1", s1)
    rec("s2", s2)
    (s1 + s2).backward()
    rec("g", flow.grad)
    # charbonnier and the robust generalised loss
    eps, q = 0.01, 0.4
    ch = ((fx**2 + eps**2) ** q).mean()
    rec("charb", ch)
    rec(
        "sobel",
        lib.nn.functional.conv2d(
            img[:, :1], lib.tensor([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]], dtype=dt), padding=1
        ),
    )
    rec("gradient", lib.gradient(img[0, 0], dim=(0, 1))[1])


def _census(lib, img, k=7):
    F = lib.nn.functional
    gray = (0.299 * img[:, 0] + 0.587 * img[:, 1] + 0.114 * img[:, 2]).unsqueeze(1) * 255
    w = lib.eye(k * k, dtype=img.dtype).view(k * k, 1, k, k)
    patches = F.conv2d(gray, w, padding=k // 2)
    t = patches - gray
    return t / lib.sqrt(0.81 + t**2)


def p_census(lib, dt, rec):
    a = _rand(lib, dt, 29, 2, 3, 8, 9)
    b = _rand(lib, dt, 30, 2, 3, 8, 9).requires_grad_(True)
    ta, tb = _census(lib, a), _census(lib, b)
    rec("ta", ta[:, :5])
    d = (ta - tb) ** 2
    dist = (d / (0.1 + d)).sum(1, keepdim=True)
    # valid mask: zero on a border of width k//2
    mask = lib.zeros_like(dist)
    mask[:, :, 3:-3, 3:-3] = 1
    loss = ((dist.abs() + 0.01) ** 0.4 * mask).sum() / (mask.sum() + 1e-6)
    rec("loss", loss)
    loss.backward()
    rec("gb", b.grad)
    rec("hamming", dist[0, 0])


def _ssim(lib, x, y):
    F = lib.nn.functional
    c1, c2 = 0.01**2, 0.03**2
    x = F.pad(x, (1, 1, 1, 1), mode="reflect")
    y = F.pad(y, (1, 1, 1, 1), mode="reflect")
    mu_x = F.avg_pool2d(x, 3, 1)
    mu_y = F.avg_pool2d(y, 3, 1)
    sx = F.avg_pool2d(x * x, 3, 1) - mu_x**2
    sy = F.avg_pool2d(y * y, 3, 1) - mu_y**2
    sxy = F.avg_pool2d(x * y, 3, 1) - mu_x * mu_y
    n = (2 * mu_x * mu_y + c1) * (2 * sxy + c2)
    d = (mu_x**2 + mu_y**2 + c1) * (sx + sy + c2)
    return lib.clamp((1 - n / d) / 2, 0, 1)


def p_ssim(lib, dt, rec):
    x = _rand(lib, dt, 31, 2, 3, 7, 8)
    y = (x + 0.1 * _randn(lib, dt, 32, 2, 3, 7, 8)).clamp(0, 1).requires_grad_(True)
    s = _ssim(lib, x, y)
    rec("ssim", s)
    l1 = (x - y).abs()
    photo = 0.85 * s.mean(1, keepdim=True) + 0.15 * l1.mean(1, keepdim=True)
    rec("photo", photo)
    loss = photo.mean()
    loss.backward()
    rec("gy", y.grad)
    rec("self", _ssim(lib, x, x).abs().max())
    F = lib.nn.functional
    rec("ap_pad", F.avg_pool2d(x, 3, 1, padding=1, count_include_pad=False))
    rec("ap_pad1", F.avg_pool2d(x, 3, 1, padding=1))
    rec("ap_ceil", F.avg_pool2d(x, 2, 2, ceil_mode=True))
    rec("gauss", F.conv2d(x, lib.full((3, 1, 3, 3), 1 / 9, dtype=dt), groups=3, padding=1))


def p_fb_consistency(lib, dt, rec):
    fw = _randn(lib, dt, 33, 2, 2, 6, 7) * 1.5
    bw = -fw + 0.3 * _randn(lib, dt, 34, 2, 2, 6, 7)
    bw_warped = _warp(lib, bw, fw)
    diff = fw + bw_warped
    mag = (fw**2).sum(1, keepdim=True) + (bw_warped**2).sum(1, keepdim=True)
    occ = ((diff**2).sum(1, keepdim=True) > 0.01 * mag + 0.5).float()
    rec("bw_warped", bw_warped)
    rec("diff", diff)
    rec("occ", occ)
    rec("occ_count", occ.sum())
    # out-of-frame mask from warping ones
    ones = lib.ones(2, 1, 6, 7, dtype=dt)
    valid = _warp(lib, ones, fw, align_corners=False)
    rec("valid", valid)
    rec("inframe", (valid > 0.9999).to(dt))
    # range map by forward splatting with index_add
    b, _, h, w = fw.shape
    base = _base_grid(lib, dt, b, h, w)
    tgt = (base + fw).round().long()
    x, y = tgt[:, 0].clamp(0, w - 1), tgt[:, 1].clamp(0, h - 1)
    idx = (y * w + x).view(b, -1)
    rng = lib.zeros(b, h * w, dtype=dt).scatter_add_(1, idx, lib.ones(b, h * w, dtype=dt))
    rec("range", rng.view(b, 1, h, w))
    rec("where", lib.where(occ.bool(), lib.zeros_like(fw), fw))


def p_epe_metrics(lib, dt, rec):
    pred = _randn(lib, dt, 35, 3, 2, 5, 6) * 4
    gt = pred + _randn(lib, dt, 36, 3, 2, 5, 6) * 2
    valid = _rand(lib, dt, 37, 3, 5, 6) > 0.2
    epe = lib.sum((pred - gt) ** 2, dim=1).sqrt()
    rec("epe_map", epe)
    epe_v = epe.view(-1)[valid.view(-1)]
    rec("epe", epe_v.mean())
    for t in (1, 3, 5):
        rec(f"{t}px", (epe_v < t).float().mean())
    mag = lib.sum(gt**2, dim=1).sqrt()
    out = ((epe > 3.0) & ((epe / mag) > 0.05)).float()
    rec("fl", out.view(-1)[valid.view(-1)].mean() * 100)
    rec("norm", lib.linalg.norm(pred - gt, dim=1))
    rec("vnorm", lib.linalg.vector_norm(pred - gt, ord=2, dim=1).mean((1, 2)))
    rec(
        "pdist",
        lib.nn.functional.pairwise_distance(
            pred.flatten(2).transpose(1, 2).reshape(-1, 2),
            gt.flatten(2).transpose(1, 2).reshape(-1, 2),
            eps=0.0,
        ).view(3, 5, 6),
    )
    rec("ang", lib.atan2(pred[:, 1], pred[:, 0]))
    rec("nanmean", lib.where(valid, epe, lib.full_like(epe, float("nan"))).nanmean((1, 2)))
    rec("count", valid.sum((1, 2)))


def _stn_cls(lib):
    nn = lib.nn
    F = nn.functional

    class STN(nn.Module):
        def __init__(self):
            super().__init__()
            self.loc = nn.Sequential(
                nn.Conv2d(1, 4, kernel_size=3),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
            )
            self.fc_loc = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 6))
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(lib.tensor([1, 0, 0, 0, 1, 0], dtype=lib.float))
            self.head = nn.Linear(8 * 8, 3)

        def stn(self, x):
            xs = self.loc(x)
            xs = xs.view(-1, 4 * 3 * 3)
            theta = self.fc_loc(xs).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False), theta

        def forward(self, x):
            x, theta = self.stn(x)
            return F.log_softmax(self.head(x.flatten(1)), dim=1), theta

    return STN


def p_stn_train(lib, dt, rec):
    lib.manual_seed(0)
    model = _stn_cls(lib)().to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    x = _rand(lib, dt, 38, 4, 1, 8, 8)
    y = lib.tensor([0, 1, 2, 1])
    for step in range(4):
        opt.zero_grad()
        out, theta = model(x)
        loss = lib.nn.functional.nll_loss(out, y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"theta{step}", theta)
    rec.params("p", model, grads=True)
    rec("repr", repr(model.loc))


def p_stn_3d(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(1)
    fixed = _rand(lib, dt, 39, 1, 1, 4, 5, 6)
    theta_true = lib.eye(3, 4, dtype=dt).unsqueeze(0).clone()
    theta_true[0, :, 3] = lib.tensor([0.1, -0.2, 0.05], dtype=dt)
    moving = F.grid_sample(
        fixed, F.affine_grid(theta_true, fixed.shape, align_corners=True), align_corners=True
    )
    theta = lib.nn.Parameter(lib.eye(3, 4, dtype=dt).unsqueeze(0).clone())
    opt = lib.optim.Adam([theta], lr=0.05)
    for step in range(5):
        opt.zero_grad()
        grid = F.affine_grid(theta, fixed.shape, align_corners=True)
        warped = F.grid_sample(moving, grid, align_corners=True, padding_mode="border")
        loss = F.mse_loss(warped, fixed)
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g{step}", theta.grad)
        opt.step()
    rec("theta", theta)


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    x = lib.ones(2, 3, 4, 5, dtype=dt)
    g = lib.zeros(2, 6, 7, 2, dtype=dt)
    rec.err("mode", lambda: F.grid_sample(x, g, mode="linear", align_corners=False))
    rec.err(
        "mode_bicubic3d",
        lambda: F.grid_sample(
            lib.ones(1, 1, 2, 2, 2, dtype=dt),
            lib.zeros(1, 1, 1, 1, 3, dtype=dt),
            mode="bicubic",
            align_corners=False,
        ),
    )
    rec.err("pad", lambda: F.grid_sample(x, g, padding_mode="reflect", align_corners=False))
    rec.err("pad_none", lambda: F.grid_sample(x, g, padding_mode=None, align_corners=False))
    rec.err("last", lambda: F.grid_sample(x, g[..., :1], align_corners=False))
    rec.err("last3", lambda: F.grid_sample(x, lib.zeros(2, 6, 7, 3, dtype=dt), align_corners=False))
    rec.err("batch", lambda: F.grid_sample(x, g[:1], align_corners=False))
    rec.err("ndim", lambda: F.grid_sample(x, g[0], align_corners=False))
    rec.err("ndim_in", lambda: F.grid_sample(x[0], g[0], align_corners=False))
    rec.err("ndim_5", lambda: F.grid_sample(x.unsqueeze(2), g, align_corners=False))
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec.err("dtype", lambda: F.grid_sample(x, g.to(other), align_corners=False))
    rec.err("dtype_int", lambda: F.grid_sample(x.long(), g, align_corners=False))
    rec.err("dtype_half_grid", lambda: F.grid_sample(x, g.half(), align_corners=False))
    rec.err("perm", lambda: F.grid_sample(x, g.permute(0, 3, 1, 2), align_corners=False))
    rec.err(
        "empty_sp", lambda: F.grid_sample(lib.ones(2, 3, 0, 5, dtype=dt), g, align_corners=False)
    )
    rec.err("ac_str", lambda: F.grid_sample(x, g, align_corners="yes"))
    rec.err("list_grid", lambda: F.grid_sample(x, [[0.0, 0.0]], align_corners=False))
    rec.err("np_input", lambda: F.grid_sample(x.numpy(), g, align_corners=False))
    rec.err("mode_upper", lambda: F.grid_sample(x, g, mode="Bilinear", align_corners=False))
    rec.err("int_mode", lambda: F.grid_sample(x, g, mode=0, align_corners=False))
    rec.err("ok_empty_batch", lambda: F.grid_sample(x[:0], g[:0], align_corners=False).shape)
    rec("empty_batch", str(F.grid_sample(x[:0], g[:0], align_corners=False).shape))
    rec("empty_grid", str(F.grid_sample(x, g[:, :0], align_corners=False).shape))
    rec.err("interp_flow_mode", lambda: F.interpolate(x, scale_factor=2, mode="bilnear"))
    rec.err(
        "interp_ac_nearest",
        lambda: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True),
    )
    rec.err("interp_both", lambda: F.interpolate(x, size=(4, 4), scale_factor=2))
    rec.err("interp_none", lambda: F.interpolate(x))
    rec.err("interp_trilinear4d", lambda: F.interpolate(x, scale_factor=2, mode="trilinear"))
    rec.err("interp_size_len", lambda: F.interpolate(x, size=(4, 4, 4)))
    rec.err("unfold_3d", lambda: F.unfold(x[0, 0], 3))
    rec.err("unfold_big", lambda: F.unfold(x, 7))
    rec.err("fold_bad", lambda: F.fold(lib.ones(1, 5, 4, dtype=dt), (3, 3), 2))
    rec.err("meshgrid_idx", lambda: lib.meshgrid(lib.arange(2), lib.arange(3), indexing="xx"))
    rec.err("meshgrid_2d", lambda: lib.meshgrid(lib.ones(2, 2), lib.arange(3), indexing="ij"))


def p_nearest_ties(lib, dt, rec):
    F = lib.nn.functional
    img = lib.arange(24, dtype=dt).view(1, 1, 4, 6)
    # coordinates landing on exact .5 pixel positions: torch rounds half to even
    xs = lib.tensor([-1.0, -0.5, 0.0, 0.5, 1.0, 1 / 6, -1 / 6, 0.25, -0.25, 0.75], dtype=dt)
    ys = lib.tensor([0.0, 0.5, -0.5, 1.0, -1.0, 0.25, -0.75, 0.5, 0.0, 1 / 3], dtype=dt)
    grid = lib.stack([xs, ys], -1).view(1, 1, -1, 2)
    for ac in (False, True):
        for pad in ("zeros", "border", "reflection"):
            rec(
                f"n.{int(ac)}.{pad}",
                F.grid_sample(img, grid, mode="nearest", padding_mode=pad, align_corners=ac),
            )
    up = F.interpolate(img, scale_factor=1.5, mode="nearest")
    rec("interp_nearest", up)
    rec("interp_nexact", F.interpolate(img, scale_factor=1.5, mode="nearest-exact"))
    rec("interp_size", F.interpolate(img, size=(3, 5), mode="nearest"))


def p_homography(lib, dt, rec):
    F = lib.nn.functional
    b, h, w = 2, 5, 6
    H = lib.eye(3, dtype=dt).repeat(b, 1, 1)
    H[:, :2, :] += _randn(lib, dt, 40, b, 2, 3) * 0.05
    H[:, 2, :2] = _randn(lib, dt, 41, b, 2) * 0.01
    ys, xs = lib.meshgrid(
        lib.linspace(-1, 1, h, dtype=dt), lib.linspace(-1, 1, w, dtype=dt), indexing="ij"
    )
    pts = lib.stack([xs, ys, lib.ones_like(xs)], -1).view(1, -1, 3).expand(b, -1, -1)
    Hr = H.clone().requires_grad_(True)
    proj = lib.bmm(pts, Hr.transpose(1, 2))
    grid = proj[..., :2] / proj[..., 2:].clamp(min=1e-8)
    grid = grid.view(b, h, w, 2)
    rec("grid", grid)
    img = _rand(lib, dt, 42, b, 3, h, w)
    out = F.grid_sample(img, grid, align_corners=True)
    rec("out", out)
    out.mean().backward()
    rec("gH", Hr.grad)
    rec("inv", lib.linalg.inv(H))
    rec("det", lib.linalg.det(H))
    # 4-point DLT solve
    src = lib.tensor([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]], dtype=dt)
    dst = src + _randn(lib, dt, 43, 4, 2) * 0.1
    rows = []
    for (x, y), (u, v) in zip(src.tolist(), dst.tolist(), strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    A = lib.tensor(rows, dtype=dt)
    sol = lib.linalg.solve(A, dst.reshape(-1))
    rec("dlt", lib.cat([sol, lib.ones(1, dtype=dt)]).view(3, 3))


def p_deform_offsets(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 44, 1, 2, 5, 5)
    off = (_randn(lib, dt, 45, 1, 18, 5, 5) * 0.5).requires_grad_(True)
    base = _base_grid(lib, dt, 1, 5, 5)
    samples = []
    k = 0
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            o = off[:, 2 * k : 2 * k + 2]
            p = base + lib.tensor([dx, dy], dtype=dt).view(1, 2, 1, 1) + o
            g = lib.stack([p[:, 0] / 2 - 1, p[:, 1] / 2 - 1], -1)
            samples.append(F.grid_sample(x, g, align_corners=True))
            k += 1
    cols = lib.stack(samples, 2)  # (1, C, 9, H, W)
    weight = _randn(lib, dt, 46, 3, 2, 9)
    out = lib.einsum("bckhw,ock->bohw", cols, weight)
    rec("out", out)
    out.abs().sum().backward()
    rec("goff", off.grad)


def p_noncontig(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 47, 2, 5, 4, 3).permute(0, 3, 1, 2)  # channels-last-ish
    g = (_rand(lib, dt, 48, 2, 2, 3, 6) * 2 - 1).permute(0, 2, 3, 1).requires_grad_(False)
    rec("contig", x.is_contiguous())
    out = F.grid_sample(x, g, align_corners=False)
    rec("out", out)
    rec(
        "same",
        lib.allclose(out, F.grid_sample(x.contiguous(), g.contiguous(), align_corners=False)),
    )
    xc = x.contiguous(memory_format=lib.channels_last)
    rec("cl", F.grid_sample(xc, g, mode="bicubic", align_corners=True))
    xs = x[:, :, ::2, :]
    rec("strided", F.grid_sample(xs, g[:, :, ::2], align_corners=True))
    ge = g[:1].expand(2, -1, -1, -1)
    rec("expanded", F.grid_sample(x, ge, padding_mode="reflection", align_corners=False))
    xr = x.clone().requires_grad_(True)
    F.grid_sample(xr, ge, align_corners=False).sum().backward()
    rec("gx", xr.grad)


def p_sequence_loss(lib, dt, rec):
    gt = _randn(lib, dt, 49, 2, 2, 4, 5) * 5
    valid = (_rand(lib, dt, 50, 2, 4, 5) > 0.1).to(dt)
    preds = [
        (_randn(lib, dt, 51 + i, 2, 2, 4, 5) * (3 - i) + gt).requires_grad_(True) for i in range(3)
    ]
    gamma, max_flow = 0.8, 6.0
    mag = lib.sum(gt**2, dim=1).sqrt()
    valid = (valid >= 0.5) & (mag < max_flow)
    loss = 0.0
    for i, p in enumerate(preds):
        w = gamma ** (len(preds) - i - 1)
        l_i = (p - gt).abs()
        loss = loss + w * (valid[:, None] * l_i).mean()
    rec("loss", loss)
    loss.backward()
    for i, p in enumerate(preds):
        rec(f"g{i}", p.grad)
    rec("valid", valid)
    rec("huber", lib.nn.functional.smooth_l1_loss(preds[0], gt, beta=0.5))
    rec("hub2", lib.nn.functional.huber_loss(preds[1], gt, delta=2.0, reduction="sum"))


def p_flow_color(lib, dt, rec):
    flow = _randn(lib, dt, 54, 2, 5, 6) * 3
    u, v = flow[0], flow[1]
    rad = lib.sqrt(u**2 + v**2)
    rad_max = rad.max()
    eps = 1e-5
    u, v = u / (rad_max + eps), v / (rad_max + eps)
    a = lib.atan2(-v, -u) / math.pi
    fk = (a + 1) / 2 * 54
    k0 = lib.floor(fk).long()
    k1 = k0 + 1
    k1[k1 == 55] = 0
    f = fk - k0
    rec("a", a)
    rec("k0", k0)
    rec("f", f)
    wheel = lib.linspace(0, 255, 55, dtype=dt)
    col = (1 - f) * wheel[k0] / 255 + f * wheel[k1] / 255
    r = rad / (rad_max + eps)
    col = lib.where(r <= 1, 1 - r * (1 - col), col * 0.75)
    rec("col", col)
    rec("u8", lib.floor(255 * col).to(lib.uint8))
    rec("hsv", lib.stack([a, r, lib.ones_like(r)], 0).clamp(0, 1))


def p_pwc_pyramid(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(2)
    conv = lib.nn.Conv2d(3, 4, 3, stride=2, padding=1).to(dt)
    im1 = _rand(lib, dt, 55, 1, 3, 16, 16)
    im2 = _rand(lib, dt, 56, 1, 3, 16, 16)
    p1, p2 = [im1], [im2]
    for _ in range(2):
        p1.append(F.avg_pool2d(p1[-1], 2))
        p2.append(F.avg_pool2d(p2[-1], 2))
    flow = None
    total = 0
    for lvl in (2, 1, 0):
        f1 = F.leaky_relu(conv(p1[lvl]), 0.1)
        f2 = F.leaky_relu(conv(p2[lvl]), 0.1)
        if flow is None:
            flow = lib.zeros(1, 2, *f1.shape[-2:], dtype=dt)
        else:
            flow = 2 * F.interpolate(flow, scale_factor=2, mode="bilinear", align_corners=False)
        f2w = _warp(lib, f2, flow)
        cv = _corr_pad(lib, f1, f2w, 1)
        flow = flow + cv[:, :2] - cv[:, -2:]
        rec(f"flow{lvl}", flow)
        total = total + flow.abs().mean()
    total.backward()
    rec("gw", conv.weight.grad)
    rec("gb", conv.bias.grad)


def p_gs_double_backward(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 57, 1, 2, 4, 4).requires_grad_(True)
    g = (_rand(lib, dt, 58, 1, 3, 3, 2) * 1.8 - 0.9).requires_grad_(True)
    out = F.grid_sample(x, g, align_corners=False)
    (gx, gg) = lib.autograd.grad(out.pow(2).sum(), (x, g), create_graph=True)
    rec("gx", gx)
    rec("gg", gg)
    rec.err("gp", lambda: (gx.pow(2).sum()).backward(retain_graph=True))
    rec("x.grad", x.grad)
    rec.err("gpg", lambda: lib.autograd.grad(gg.sum(), (x,), retain_graph=True))


def p_gs_edges(lib, dt, rec):
    F = lib.nn.functional
    # 1x1 input: every mode and padding
    one = lib.tensor([[[[2.5]]]], dtype=dt)
    g = lib.tensor([[[[-1.2, 0.3], [0.0, 0.0], [0.9, -1.0]]]], dtype=dt)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                rec(
                    f"one.{mode}.{pad}.{int(ac)}",
                    F.grid_sample(one, g, mode=mode, padding_mode=pad, align_corners=ac),
                )
    # a single row / column input
    row = lib.arange(5, dtype=dt).view(1, 1, 1, 5)
    for ac in (False, True):
        rec(
            f"row.{int(ac)}",
            F.grid_sample(row, g, mode="bicubic", padding_mode="reflection", align_corners=ac),
        )
    # a far-away grid: zeros is 0, border is the edge value
    far = lib.full((1, 1, 2, 2), 5.0, dtype=dt)
    img = lib.arange(6, dtype=dt).view(1, 1, 2, 3)
    rec("far_zeros", F.grid_sample(img, far, align_corners=False))
    rec("far_border", F.grid_sample(img, far, padding_mode="border", align_corners=False))
    rec("far_refl", F.grid_sample(img, far, padding_mode="reflection", align_corners=False))
    rec("far_refl1", F.grid_sample(img, far, padding_mode="reflection", align_corners=True))
    # the grid's own shape decides the output's spatial shape
    rec("shape", str(F.grid_sample(img, lib.zeros(1, 7, 1, 2, dtype=dt), align_corners=True).shape))
    # a 0-size batch with gradients
    xe = lib.zeros(0, 2, 3, 3, dtype=dt, requires_grad=True)
    out = F.grid_sample(xe, lib.zeros(0, 2, 2, 2, dtype=dt), align_corners=False)
    out.sum().backward()
    rec("empty_grad", str(xe.grad.shape))


def p_upsample_modules(lib, dt, rec):
    nn = lib.nn
    x = _randn(lib, dt, 59, 1, 2, 3, 4)
    for m in (
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True),
        nn.Upsample(size=(5, 7), mode="bicubic"),
        nn.Upsample(scale_factor=(2, 1.5), mode="nearest"),
        nn.UpsamplingBilinear2d(scale_factor=2),
        nn.UpsamplingNearest2d(size=(6, 6)),
    ):
        rec("repr", repr(m))
        rec("out", m(x))
    rec("unfold", repr(nn.Unfold(3, padding=1)))
    rec("fold", repr(nn.Fold((4, 5), 3, padding=1)))
    rec("uf", nn.Unfold(kernel_size=(2, 3), stride=(1, 2))(x))
    rec("ps", repr(nn.PixelShuffle(2)))
    rec("pus", nn.PixelUnshuffle(2)(_randn(lib, dt, 60, 1, 1, 4, 6)))


def p_gradcheck(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, lib.float64, 61, 1, 2, 3, 4).requires_grad_(True)
    g = (_rand(lib, lib.float64, 62, 1, 2, 3, 2) * 2.2 - 1.1).requires_grad_(True)
    for mode in ("bilinear", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            ok = lib.autograd.gradcheck(
                lambda a, b, mode=mode, pad=pad: F.grid_sample(
                    a, b, mode=mode, padding_mode=pad, align_corners=False
                ),
                (x, g),
            )
            rec(f"{mode}.{pad}", ok)
    th = (lib.eye(2, 3, dtype=lib.float64) + 0.1).unsqueeze(0).requires_grad_(True)
    rec(
        "affine",
        lib.autograd.gradcheck(
            lambda t: F.affine_grid(t, (1, 1, 3, 4), align_corners=False), (th,)
        ),
    )
    rec("gs_dt", F.grid_sample(x.to(dt), g.to(dt), align_corners=True))


def p_voxelmorph(lib, dt, rec):
    F = lib.nn.functional
    b, d, h, w = 1, 4, 5, 6
    moving = _rand(lib, dt, 63, b, 1, d, h, w)
    fixed = _rand(lib, dt, 64, b, 1, d, h, w)
    flow = (_randn(lib, dt, 65, b, 3, d, h, w) * 0.5).requires_grad_(True)
    vectors = [lib.arange(0, s, dtype=dt) for s in (d, h, w)]
    grids = lib.meshgrid(vectors, indexing="ij")
    grid = lib.stack(grids).unsqueeze(0)
    new = grid + flow
    shape = (d, h, w)
    new = lib.stack([2 * (new[:, i] / (shape[i] - 1) - 0.5) for i in range(3)], 1)
    new = new.permute(0, 2, 3, 4, 1)[..., [2, 1, 0]]
    warped = F.grid_sample(moving, new, align_corners=True, mode="bilinear")
    rec("warped", warped)
    mse = F.mse_loss(warped, fixed)
    dy = (flow[:, :, 1:] - flow[:, :, :-1]).abs()
    dx = (flow[:, :, :, 1:] - flow[:, :, :, :-1]).abs()
    dz = (flow[:, :, :, :, 1:] - flow[:, :, :, :, :-1]).abs()
    grad = ((dx**2).mean() + (dy**2).mean() + (dz**2).mean()) / 3
    loss = mse + 0.01 * grad
    rec("loss", loss)
    loss.backward()
    rec("gflow", flow.grad)
    # scaling and squaring integration of a velocity field
    vec = flow.detach() / 2**3
    for _ in range(3):
        p = grid + vec
        p = lib.stack([2 * (p[:, i] / (shape[i] - 1) - 0.5) for i in range(3)], 1)
        p = p.permute(0, 2, 3, 4, 1).flip(-1)
        vec = vec + F.grid_sample(vec, p, align_corners=True)
    rec("integrated", vec)
    rec("resize", F.interpolate(vec, scale_factor=0.5, mode="trilinear", align_corners=True))


def p_gs_outside(lib, dt, rec):
    F = lib.nn.functional
    img = _randn(lib, dt, 66, 1, 2, 3, 4)
    # grid points exactly on the borders and just outside, both align_corners settings
    vals = [-1.0, -1.0 - 1e-3, 1.0, 1.0 + 1e-3, -1 - 1 / 4, 1 + 1 / 3, 3.0, -3.7]
    gx = lib.tensor(vals, dtype=dt)
    grid = lib.stack([gx, gx.flip(0)], -1).view(1, 2, 4, 2).requires_grad_(True)
    for mode in ("bilinear", "bicubic", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=ac)
                (gg,) = lib.autograd.grad(out.sum(), grid)
                tag = f"{mode}.{pad}.{int(ac)}"
                rec(tag, out)
                rec(tag + ".gg", gg)


def p_tv_diff(lib, dt, rec):
    flow = _randn(lib, dt, 67, 2, 2, 5, 6).requires_grad_(True)
    dx = lib.diff(flow, dim=-1)
    dy = lib.diff(flow, dim=-2)
    tv = dx.abs().mean() + dy.abs().mean()
    rec("tv", tv)
    tv.backward()
    rec("g", flow.grad)
    rec("diff2", lib.diff(flow.detach(), n=2, dim=-1))
    rec("prepend", lib.diff(flow.detach(), dim=-1, prepend=flow.detach()[..., :1]))
    lap = (
        lib.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=dt).view(1, 1, 3, 3).repeat(2, 1, 1, 1)
    )
    rec("lap", lib.nn.functional.conv2d(flow.detach(), lap, groups=2, padding=1))
    rec(
        "replpad_lap",
        lib.nn.functional.conv2d(
            lib.nn.functional.pad(flow.detach(), (1, 1, 1, 1), mode="replicate"), lap, groups=2
        ),
    )


def p_interp_errors(lib, dt, rec):
    F = lib.nn.functional
    x = lib.ones(1, 2, 3, 4, dtype=dt)
    rec.err("bicubic_3d", lambda: F.interpolate(x[0], scale_factor=2, mode="bicubic"))
    rec.err("linear_4d", lambda: F.interpolate(x, scale_factor=2, mode="linear"))
    rec.err("ac_area", lambda: F.interpolate(x, size=(2, 2), mode="area", align_corners=False))
    rec.err("neg_size", lambda: F.interpolate(x, size=(0, 2), mode="bilinear"))
    rec.err("sf_len", lambda: F.interpolate(x, scale_factor=(2, 2, 2), mode="bilinear"))
    rec.err("aa_nearest", lambda: F.interpolate(x, size=(2, 2), mode="nearest", antialias=True))
    rec.err("int_in", lambda: F.interpolate(x.long(), size=(2, 2), mode="bilinear"))
    rec.warns("ok", lambda: F.interpolate(x, scale_factor=2.0, mode="bilinear"))
    rec.err("upsample_bad", lambda: lib.nn.Upsample(scale_factor=2, mode="foo")(x))
    rec.err("pad_refl_big", lambda: F.pad(x, (4, 4, 0, 0), mode="reflect"))
    rec.err("pad_mode", lambda: F.pad(x, (1, 1), mode="symmetric"))
    rec.err("avg_pool_big", lambda: F.avg_pool2d(x, 4))
    rec.err("pixel_shuffle", lambda: F.pixel_shuffle(x, 2))
    # an align_corners that is no bool reaches the kernel's parser
    for ac in ("x", 1, 1.0):
        rec.err(
            f"ac_{ac}",
            lambda ac=ac: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=ac),
        )
    rec.err("ac_size", lambda: F.interpolate(x, size=(5, 6), mode="bicubic", align_corners=0))
    rec.err("ac_int_size", lambda: F.interpolate(x, size=5, mode="bilinear", align_corners=0))
    rec.err(
        "ac_recompute",
        lambda: F.interpolate(
            x, scale_factor=1.5, mode="bilinear", align_corners=1, recompute_scale_factor=True
        ),
    )
    rec.err(
        "ac_aa",
        lambda: F.interpolate(x, size=(2, 2), mode="bilinear", antialias=True, align_corners="no"),
    )
    rec.err(
        "ac_1d", lambda: F.interpolate(x[0], scale_factor=(2.5,), mode="linear", align_corners=1)
    )
    rec.err(
        "ac_3d",
        lambda: F.interpolate(x[None], scale_factor=2, mode="trilinear", align_corners=[True]),
    )
    rec.err(
        "ac_long", lambda: F.interpolate(x.long(), scale_factor=2, mode="bilinear", align_corners=1)
    )
    # the sizes are checked before the dtype
    rec.err("long_zero", lambda: F.interpolate(x.long(), size=(0, 2), mode="bilinear"))
    rec.err("long_nochan", lambda: F.interpolate(x[:, :0].long(), size=(3, 2), mode="nearest"))
    rec.err("long", lambda: F.interpolate(x.long(), size=(3, 2), mode="bilinear"))


def p_affine_errors(lib, dt, rec):
    F = lib.nn.functional
    th = lib.eye(2, 3, dtype=dt).unsqueeze(0)
    rec.err("size3", lambda: F.affine_grid(th, (1, 2, 3), align_corners=False))
    rec.err("theta_shape", lambda: F.affine_grid(th[:, :, :2], (1, 1, 3, 3), align_corners=False))
    rec.err("theta_2d", lambda: F.affine_grid(th[0], (1, 1, 3, 3), align_corners=False))
    rec.err(
        "theta_3d_for_4d",
        lambda: F.affine_grid(
            lib.eye(3, 4, dtype=dt).unsqueeze(0), (1, 1, 3, 3), align_corners=False
        ),
    )
    rec.err("int_theta", lambda: F.affine_grid(th.long(), (1, 1, 3, 3), align_corners=False))
    rec.err("batch", lambda: F.affine_grid(th, (2, 1, 3, 3), align_corners=False))
    rec.err("zero", lambda: F.affine_grid(th, (1, 1, 0, 3), align_corners=False))
    rec.err("neg", lambda: F.affine_grid(th, (1, 1, -2, 3), align_corners=False))
    rec.err("size6", lambda: F.affine_grid(th, (1, 1, 2, 3, 3, 3), align_corners=False))
    rec.err("ac_int", lambda: F.affine_grid(th, (1, 1, 2, 3), align_corners=1))
    rec.err("size_tensor", lambda: F.affine_grid(th, lib.Size([1, 1, 2, 2]), align_corners=False))
    rec.err(
        "list_theta", lambda: F.affine_grid([[1.0, 0.0, 0.0]], (1, 1, 2, 2), align_corners=False)
    )
    rec.err("int_size", lambda: F.affine_grid(th, 4, align_corners=False))
    rec.err("none_size", lambda: F.affine_grid(th, None, align_corners=False))
    rec("half", F.affine_grid(th.to(dt), [1, 3, 2, 2], align_corners=False))


def p_meshgrid_errors(lib, dt, rec):
    a, b = lib.arange(2, dtype=dt), lib.arange(3, dtype=dt)
    m = lib.ones(3, dtype=dt, device="meta")
    rec.err("idx_int", lambda: lib.meshgrid(a, b, indexing=5))
    rec.err("idx_list", lambda: lib.meshgrid([a, b], indexing=["ij"]))
    rec.err("elem_first", lambda: lib.meshgrid(a, 3, indexing=5))
    rec.err("elem_bad_idx", lambda: lib.meshgrid(a, 3, indexing="ab"))
    rec.err("device", lambda: lib.meshgrid(a, m, indexing="ij"))
    rec.err("device_first", lambda: lib.meshgrid(a, m, b.long(), indexing="ij"))
    rec.err("device_rank", lambda: lib.meshgrid(a.view(1, 2), m, indexing="ij"))
    rec.err("dtype", lambda: lib.meshgrid(a, b.long(), indexing="ij"))
    rec.err("empty", lambda: lib.meshgrid(indexing="ij"))
    rec.err("bad", lambda: lib.meshgrid(a, b, indexing="yx"))
    x, y = lib.meshgrid(a, b, indexing=b"xy")
    rec("bytes_x", x)
    rec("bytes_y", y)


def _conv(lib, cin, cout, k=3, stride=1):
    return lib.nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2)


def _mini_raft_cls(lib):
    nn = lib.nn
    F = nn.functional

    class ConvGRU(nn.Module):
        def __init__(self, hidden, inp):
            super().__init__()
            self.convz = _conv(lib, hidden + inp, hidden)
            self.convr = _conv(lib, hidden + inp, hidden)
            self.convq = _conv(lib, hidden + inp, hidden)

        def forward(self, h, x):
            hx = lib.cat([h, x], dim=1)
            z = lib.sigmoid(self.convz(hx))
            r = lib.sigmoid(self.convr(hx))
            q = lib.tanh(self.convq(lib.cat([r * h, x], dim=1)))
            return (1 - z) * h + z * q

    class MiniRAFT(nn.Module):
        def __init__(self, levels=2, radius=1, hidden=8):
            super().__init__()
            self.levels, self.radius = levels, radius
            self.fnet = nn.Sequential(
                _conv(lib, 3, 8, 3, 2),
                nn.InstanceNorm2d(8),
                nn.ReLU(inplace=True),
                _conv(lib, 8, 8, 3, 1),
            )
            # (no conv bias before the norm: its gradient is rounding noise, which Adam scales up)
            conv = nn.Conv2d(3, 2 * hidden, 3, stride=2, padding=1, bias=False)
            self.cnet = nn.Sequential(conv, nn.BatchNorm2d(2 * hidden))
            corr_ch = levels * (2 * radius + 1) ** 2
            self.enc = _conv(lib, corr_ch + 2, 8)
            self.gru = ConvGRU(hidden, 8 + hidden)
            self.flow_head = nn.Sequential(_conv(lib, hidden, 8), nn.ReLU(), _conv(lib, 8, 2))
            self.mask = nn.Sequential(_conv(lib, hidden, 8), nn.ReLU(), nn.Conv2d(8, 9 * 4, 1))
            self.hidden = hidden

        def lookup(self, pyr, coords):
            b, _, h, w = coords.shape
            coords = coords.permute(0, 2, 3, 1)
            r = self.radius
            out = []
            for i, corr in enumerate(pyr):
                d = lib.linspace(-r, r, 2 * r + 1, dtype=coords.dtype)
                delta = lib.stack(lib.meshgrid(d, d, indexing="ij"), dim=-1)
                c = coords.reshape(b * h * w, 1, 1, 2) / 2**i + delta.view(1, 2 * r + 1, -1, 2)
                out.append(_bilinear_sampler(lib, corr, c).view(b, h, w, -1))
            return lib.cat(out, dim=-1).permute(0, 3, 1, 2).contiguous().float().to(coords.dtype)

        def forward(self, im1, im2, iters=2):
            f1, f2 = self.fnet(im1), self.fnet(im2)
            pyr = _corr_pyramid(lib, f1, f2, self.levels)
            net, inp = lib.split(self.cnet(im1), [self.hidden, self.hidden], dim=1)
            net, inp = lib.tanh(net), lib.relu(inp)
            b, _, h, w = f1.shape
            coords0 = _base_grid(lib, f1.dtype, b, h, w)
            coords1 = coords0.clone()
            preds = []
            for _ in range(iters):
                coords1 = coords1.detach()
                corr = self.lookup(pyr, coords1)
                flow = coords1 - coords0
                motion = F.relu(self.enc(lib.cat([corr, flow], dim=1)))
                net = self.gru(net, lib.cat([inp, motion], dim=1))
                coords1 = coords1 + self.flow_head(net)
                mask = 0.25 * self.mask(net)
                preds.append(_convex_upsample(lib, coords1 - coords0, mask, f=2))
            return preds

    return MiniRAFT


def p_mini_raft(lib, dt, rec):
    lib.manual_seed(3)
    model = _mini_raft_cls(lib)().to(dt)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    im1 = _rand(lib, dt, 70, 2, 3, 8, 8)
    im2 = lib.roll(im1, shifts=(1, -1), dims=(2, 3)) + 0.01 * _randn(lib, dt, 71, 2, 3, 8, 8)
    gt = lib.zeros(2, 2, 8, 8, dtype=dt)
    gt[:, 0], gt[:, 1] = -1.0, 1.0
    for step in range(2):
        opt.zero_grad()
        preds = model(im1, im2)
        loss = sum(0.8 ** (len(preds) - i - 1) * (p - gt).abs().mean() for i, p in enumerate(preds))
        loss.backward()
        rec(f"norm{step}", lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        if step == 0:
            rec.params("g", model, view=lambda n, p: p.grad)
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"pred{step}", preds[-1])
    if dt == lib.float64:  # (float32: Adam turns last-bit gradient noise into a step of lr)
        rec.params("p", model)
    rec("bn_mean", model.cnet[1].running_mean)
    rec("epe", (preds[-1] - gt).pow(2).sum(1).sqrt().mean())
