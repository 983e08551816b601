"""Session 31 (helper nca): neural cellular automata and grid simulations written the way their
authors write them in torch, run under torch and minitorch with the same seeds and compared
record by record: growing NCA (perception by depthwise conv2d with fixed identity/Sobel/Laplacian
kernels after circular or reflect F.pad, or by folding the channels into the batch; a 1x1 conv
update MLP with a zeroed last layer; fire-rate masks from rand under a Generator or from the
global generator by floor; alive masks by max_pool2d over alpha), trained with per-parameter
gradient normalisation (in place, through .data, by tensor hooks and post-accumulate hooks, and
backward called inside no_grad as the texture-NCA notebook does), Adam with MultiStepLR
(repeated milestones, state_dict round trips), sample pools (randperm, index_select, NumPy index
arrays, argsort/topk replacement, index_copy_), damage by meshgrid circles, 1-d and 3-d NCA,
isotropic (steerable) perception, texture losses (Gram matrices, sliced optimal transport by
einsum + sort + 1-d interpolate, overflow losses), gradient checkpointing that replays the global
RNG (reentrant and not), torch.func functional_call / vmap (randomness error, same, different) /
autograd.functional.jacobian, Game of Life by roll (uint8/int32) and by float conv2d, unfold
counts, bincount/histc, elementary CA by bit lookups, Wireworld, sandpiles and forest fires on
integer grids, Lenia (ring kernels, circular conv, unfold + fold, multi-kernel mixes, second
derivatives), Gray-Scott reaction-diffusion with reflect/replicate/roll Laplacians, SIR epidemics,
uint8 image export, save/load of a model, optimizer, scheduler and Generator state, RNG streams,
empty pool batches, and the errors users meet (conv/pad/pool argument and dtype errors).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; integers exactly; texts
exactly.

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order). In float16/bfloat16, torch's CPU reflect/replicate/circular pad backward accumulates
  into the input element by element in output order, rounding at each add, where minitorch folds
  dim by dim; its bf16/fp16 conv input-gradient rounds partial sums (minitorch's is closer to
  the exact value): 1-10 ulp apart, so no half-precision program here.
- A convolution of an input with no channels gives torch a result with no channels either
  ((N, 0, H', W'), whatever the weight's out_channels and bias); minitorch gives out_channels
  channels (zeros plus the bias). Only its dtype is recorded.
- Memory layouts: a 1x1 conv of a contiguous input by a channels_last weight is channels_last in
  torch; strides of size-1 dims (keepdim sums, one-channel masks) differ; values agree.
- fractional_max_pool2d with kernel_size 0 gives torch a tensor of -inf; minitorch fails with an
  AttributeError.
- type(nn.Conv2d(...)).__mro__[1] is named _Conv here (nn.modules.conv._ConvNd exists)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "growing", "pool", "damage", "life_roll", "life_conv", "lenia", "gray_scott", "texture",
    "isotropic", "nca3d", "eca", "forest_fire", "checkpointed", "to_image", "save_load",
    "grad_norm", "conv_modes", "wireworld", "lenia_unfold", "errors", "nca1d", "int_grid",
    "sir_grid", "hooks_norm", "mordvintsev", "sliced_ot", "ckpt_global_rng", "func_tools",
    "rng_streams", "empty_batch",
]  # fmt: skip


# float32 programs whose last bits follow the CPU's kernels (AVX2 or AVX-512 summation orders,
# iterated): compared to 1e-3 of scale in float32
_WIDE_FLOAT32 = {"isotropic"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-3 if dt == "float32" and name in _WIDE_FLOAT32 else None
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- helpers ---


def _kernels(lib, dt):
    """identity, sobel_x, sobel_y, laplacian as a (4, 3, 3) stack."""
    ident = lib.tensor([[0.0, 0, 0], [0, 1, 0], [0, 0, 0]], dtype=dt)
    sx = lib.tensor([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=dt) / 8.0
    lap = lib.tensor([[1.0, 2, 1], [2, -12, 2], [1, 2, 1]], dtype=dt) / 16.0
    return lib.stack([ident, sx, sx.T, lap])


def _perceive(lib, x, kernels, mode="circular"):
    F = lib.nn.functional
    c = x.shape[1]
    k = kernels.repeat(c, 1, 1)[:, None]
    y = F.pad(x, (1, 1, 1, 1), mode=mode)
    return F.conv2d(y, k, groups=c)


class _CA:
    """The growing-NCA model, built under either library."""

    def __init__(self, lib, dt, channels=8, hidden=32, fire_rate=0.5, kernels=None):
        nn = lib.nn
        self.lib = lib
        self.c = channels
        self.fire_rate = fire_rate
        self.kernels = _kernels(lib, dt) if kernels is None else kernels
        nk = self.kernels.shape[0]
        self.w1 = nn.Conv2d(channels * nk, hidden, 1).to(dt)
        self.w2 = nn.Conv2d(hidden, channels, 1, bias=False).to(dt)
        with lib.no_grad():
            self.w2.weight.zero_()
        self.seq = nn.Sequential(self.w1, nn.ReLU(), self.w2)

    def alive(self, x):
        return self.lib.nn.functional.max_pool2d(x[:, 3:4], 3, 1, 1) > 0.1

    def step(self, x, g, mode="circular"):
        lib = self.lib
        pre = self.alive(x)
        y = _perceive(lib, x, self.kernels, mode)
        dx = self.seq(y)
        mask = lib.rand(x.shape[0], 1, x.shape[2], x.shape[3], generator=g, dtype=x.dtype)
        x = x + dx * (mask <= self.fire_rate).to(x.dtype)
        life = pre & self.alive(x)
        return x * life.to(x.dtype)


def _seed(lib, dt, n=2, c=8, h=12, w=12):
    x = lib.zeros(n, c, h, w, dtype=dt)
    x[:, 3:, h // 2, w // 2] = 1.0
    return x


def _target(lib, dt, h=12, w=12):
    yy, xx = lib.meshgrid(lib.arange(h, dtype=dt), lib.arange(w, dtype=dt), indexing="ij")
    r = ((yy - h / 2 + 0.5) ** 2 + (xx - w / 2 + 0.5) ** 2).sqrt()
    a = (r < h / 3).to(dt)
    rgb = lib.stack([a * 0.9, a * (1 - r / h), a * 0.3 * (xx / w)])
    return lib.cat([rgb, a[None]])


# --- the programs: each takes the library, a dtype and a recorder ---


def p_growing(lib, dt, rec):
    lib.manual_seed(0)
    ca = _CA(lib, dt)
    rec("w2_zero", ca.w2.weight.abs().sum())
    with lib.no_grad():
        ca.w2.weight.normal_(0, 0.02)
    params = list(ca.seq.parameters())
    opt = lib.optim.Adam(params, lr=2e-3)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.3)
    target = _target(lib, dt)
    g = lib.Generator().manual_seed(5)
    for it in range(5):
        x = _seed(lib, dt)
        steps = int(lib.randint(4, 7, (), generator=g))
        for _ in range(steps):
            x = ca.step(x, g)
        loss = (x[:, :4] - target).pow(2).mean([-2, -3, -1])
        rec(f"loss{it}", loss)
        loss = loss.mean()
        opt.zero_grad()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.grad /= p.grad.norm() + 1e-8
        rec(f"g{it}", ca.w1.weight.grad[:4, :6])
        opt.step()
        sched.step()
        rec(f"lr{it}", sched.get_last_lr())
    rec("w1", ca.w1.weight[:3, :5, 0, 0])
    rec("w2", ca.w2.weight[:, :5, 0, 0])
    rec("state", x[0, :4, 4:8, 4:8])
    rec("alive", ca.alive(x).sum())
    rec("alive_dtype", str(ca.alive(x).dtype))


def p_pool(lib, dt, rec):
    lib.manual_seed(1)
    g = lib.Generator().manual_seed(3)
    pool_size, bs = 16, 4
    seed = _seed(lib, dt, n=1)
    pool = seed.repeat(pool_size, 1, 1, 1)
    pool[:, 3:] += lib.rand(pool_size, 5, 12, 12, generator=g, dtype=dt) * 0.1
    target = _target(lib, dt)
    for it in range(3):
        idx = lib.randperm(pool_size, generator=g)[:bs]
        rec(f"idx{it}", idx)
        batch = pool.index_select(0, idx)
        loss = (batch[:, :4] - target).pow(2).mean(dim=(1, 2, 3))
        order = loss.argsort(descending=True)
        rec(f"order{it}", order)
        batch[order[:1]] = seed
        batch = batch * 0.9 + 0.01
        pool[idx] = batch
        rec(f"pool_sum{it}", pool.sum(dim=(1, 2, 3)))
    sel = lib.topk(pool[:, 3].sum((1, 2)), 3)
    rec("top_v", sel.values)
    rec("top_i", sel.indices)
    pool.index_copy_(0, lib.tensor([0, 5]), seed.expand(2, -1, -1, -1))
    rec("copied", pool[[0, 5, 6]].sum((1, 2, 3)))
    perm = lib.randperm(pool_size, generator=g, dtype=lib.int32)
    rec("perm32", perm)
    rec("gathered", pool[perm.long()][:2, 3, 5:7, 5:7])
    chunks = lib.split(pool, [5, 11])
    rec("chunks", [c.shape[0] for c in chunks])
    rec("multinomial", lib.multinomial(loss.softmax(0), 6, replacement=True, generator=g))


def p_damage(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    n, h, w = 4, 16, 16
    x = lib.rand(n, 8, h, w, generator=g, dtype=dt)
    yy, xx = lib.meshgrid(lib.linspace(-1, 1, h, dtype=dt), lib.linspace(-1, 1, w, dtype=dt),
                          indexing="xy")  # fmt: skip
    center = lib.rand(n, 2, 1, 1, generator=g, dtype=dt) - 0.5
    r = lib.rand(n, 1, 1, generator=g, dtype=dt) * 0.4 + 0.1
    xs = (xx[None] - center[:, 0]) / r
    ys = (yy[None] - center[:, 1]) / r
    mask = (xs * xs + ys * ys < 1.0).to(dt)
    rec("mask_area", mask.sum((1, 2)))
    x = x * (1.0 - mask[:, None])
    rec("damaged", x.sum((1, 2, 3)))
    gy, gx = lib.meshgrid(lib.arange(h), lib.arange(w), indexing="ij")
    d2 = (gy - 8) ** 2 + (gx - 5) ** 2
    rec("d2_dtype", str(d2.dtype))
    circ = d2 <= 9
    rec("circ", circ.nonzero()[:6])
    x2 = x.clone()
    x2[:, :, circ] = 0
    rec("x2", x2.sum())
    x3 = x.masked_fill(~circ, -1.0)
    rec("x3", x3[0, 0, 6:10, 3:7])
    # a square cut by narrow views
    x.narrow(2, 2, 4).narrow(3, 10, 3).zero_()
    rec("sq", x.sum((2, 3))[:, :3])
    rec("where", lib.where(circ, x[0, 0], lib.tensor(2.0, dtype=dt)).sum())


def _life_roll(lib, b):
    n = sum(
        lib.roll(b, (dy, dx), dims=(-2, -1))
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
        if (dy, dx) != (0, 0)
    )
    return ((n == 3) | ((b == 1) & (n == 2))).to(b.dtype)


def p_life_roll(lib, dt, rec):
    g = lib.Generator().manual_seed(2)
    b = (lib.rand(2, 20, 20, generator=g) < 0.35).to(lib.uint8)
    rec("b0", b.sum((1, 2)))
    for i in range(8):
        b = _life_roll(lib, b)
        rec(f"pop{i}", b.sum(dtype=lib.int64))
    rec("b", b[0])
    rec("dtype", str(b.dtype))
    # glider on a torus returns after 4*20 steps
    gl = lib.zeros(8, 8, dtype=lib.int32)
    gl[0, 1] = gl[1, 2] = gl[2, 0] = gl[2, 1] = gl[2, 2] = 1
    s = gl.clone()
    for _ in range(32):
        s = _life_roll(lib, s)
    rec("glider", lib.equal(s, gl))
    rec("glider_mean", s.float().mean())
    rec("density", b.to(dt).mean((1, 2)))
    rec("flip", lib.flip(b, [1])[1, :3])
    rec("unique", lib.unique(b.sum(1), return_counts=True)[1])


def p_life_conv(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(4)
    b = (lib.rand(3, 1, 16, 16, generator=g) < 0.4).to(dt)
    k = lib.ones(1, 1, 3, 3, dtype=dt)
    k[0, 0, 1, 1] = 0
    for i in range(6):
        n = F.conv2d(F.pad(b, (1, 1, 1, 1), mode="circular"), k)
        b = ((n == 3) | ((b > 0) & (n == 2))).to(dt)
        rec(f"pop{i}", b.sum((1, 2, 3)))
    # the same with zero boundaries by conv padding and the roll version agree on the interior
    n0 = F.conv2d(b, k, padding=1)
    rec("n0", n0[0, 0, :4, :4])
    rec("n0_max", n0.amax(dim=(2, 3)))
    bi = b.to(lib.uint8)[:, 0]
    rec(
        "same_as_roll",
        lib.equal(
            _life_roll(lib, bi),
            (
                (F.conv2d(F.pad(b, (1,) * 4, mode="circular"), k) == 3)
                | ((b > 0) & (F.conv2d(F.pad(b, (1,) * 4, mode="circular"), k) == 2))
            )[:, 0].to(lib.uint8),
        ),
    )  # noqa: E501
    # counting neighbours by unfold
    u = F.unfold(F.pad(b, (1, 1, 1, 1), mode="circular"), 3)
    rec("unfold_shape", list(u.shape))
    cnt = u.sum(1) - b.flatten(1)
    rec("cnt", cnt.view(3, 16, 16)[1, :3, :5])
    rec("histc", lib.histc(cnt, bins=9, min=0, max=8))
    rec("bincount", lib.bincount(cnt.long().flatten(), minlength=9))


def _bell(lib, x, m, s):
    return lib.exp(-(((x - m) / s) ** 2) / 2)


def _lenia_kernel(lib, dt, r=5):
    y, x = lib.meshgrid(lib.arange(-r, r + 1, dtype=dt), lib.arange(-r, r + 1, dtype=dt),
                        indexing="ij")  # fmt: skip
    d = lib.sqrt(x**2 + y**2) / r
    k = _bell(lib, d, 0.5, 0.15) * (d < 1)
    return k / k.sum()


def p_lenia(lib, dt, rec):
    F = lib.nn.functional
    r = 5
    k = _lenia_kernel(lib, dt, r)
    rec("k", k[r, :])
    g = lib.Generator().manual_seed(9)
    a = lib.zeros(1, 1, 24, 24, dtype=dt)
    a[..., 6:18, 6:18] = lib.rand(12, 12, generator=g, dtype=dt)
    dt_ = 0.1
    for i in range(6):
        u = F.conv2d(F.pad(a, (r, r, r, r), mode="circular"), k[None, None])
        growth = _bell(lib, u, 0.15, 0.015) * 2 - 1
        a = lib.clamp(a + dt_ * growth, 0, 1)
        rec(f"mass{i}", a.sum())
    rec("a", a[0, 0, 8:12, 8:12])
    rec("u", u[0, 0, 10, 5:12])
    # centre of mass on the torus
    idx = lib.arange(24, dtype=dt)
    m = a[0, 0]
    rec("com", lib.stack([(m.sum(1) * idx).sum(), (m.sum(0) * idx).sum()]) / m.sum())
    # the growth step is differentiable: gradient of the mass w.r.t. the initial field
    a0 = lib.rand(1, 1, 12, 12, generator=g, dtype=dt, requires_grad=True)
    u0 = F.conv2d(F.pad(a0, (r, r, r, r), mode="circular"), k[None, None])
    a1 = (a0 + 0.1 * (_bell(lib, u0, 0.15, 0.015) * 2 - 1)).clamp(0, 1)
    (ga,) = lib.autograd.grad(a1.sum(), a0)
    rec("ga", ga[0, 0, :3, :5])


def p_gray_scott(lib, dt, rec):
    F = lib.nn.functional
    lap = lib.tensor([[0.05, 0.2, 0.05], [0.2, -1.0, 0.2], [0.05, 0.2, 0.05]], dtype=dt)
    n = 24
    u = lib.ones(1, 1, n, n, dtype=dt)
    v = lib.zeros(1, 1, n, n, dtype=dt)
    u[..., 10:14, 10:14] = 0.5
    v[..., 10:14, 10:14] = 0.25
    g = lib.Generator().manual_seed(6)
    v = v + 0.01 * lib.rand(v.shape, generator=g, dtype=dt)
    du, dv, f, kk = 1.0, 0.5, 0.055, 0.062
    w = lap.view(1, 1, 3, 3).expand(2, 1, 3, 3)
    for i in range(30):
        uv = lib.cat([u, v], 1)
        L = F.conv2d(F.pad(uv, (1, 1, 1, 1), mode="reflect"), w, groups=2)
        lu, lv = L.unbind(1)
        lu, lv = lu[:, None], lv[:, None]
        r = u * v * v
        u = u + (du * lu - r + f * (1 - u))
        v = v + (dv * lv + r - (f + kk) * v)
        if i % 10 == 9:
            rec(f"u{i}", u[0, 0, 8:16:2, 8:16:2])
            rec(f"v{i}", v.sum())
    rec("minmax", lib.aminmax(v))
    # replicate padding variant and the 5-point laplacian
    lap5 = lib.tensor([[0.0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=dt)
    L5 = F.conv2d(F.pad(v, (1, 1, 1, 1), mode="replicate"), lap5[None, None])
    rec("L5", L5[0, 0, 9:15, 9:12])
    L5r = lib.roll(v, 1, 2) + lib.roll(v, -1, 2) + lib.roll(v, 1, 3) + lib.roll(v, -1, 3) - 4 * v
    rec("L5r", L5r[0, 0, 9:15, 9:12])


def _gram(x):
    b, c, h, w = x.shape
    f = x.reshape(b, c, h * w)
    return f @ f.transpose(1, 2) / (h * w)


def p_texture(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    feat = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1, padding_mode="circular"),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.Conv2d(6, 8, 3, padding=1, padding_mode="reflect"),
        nn.LeakyReLU(0.1),
    ).to(dt)
    for p in feat.parameters():
        p.requires_grad_(False)
    g = lib.Generator().manual_seed(12)
    style = lib.rand(1, 3, 16, 16, generator=g, dtype=dt)
    ca = _CA(lib, dt, channels=8, hidden=16)
    with lib.no_grad():
        ca.w2.weight.normal_(0, 0.05, generator=g)
    x = lib.rand(2, 8, 16, 16, generator=g, dtype=dt) * 0.1

    def feats(img):
        out, y = [], img
        for m in feat:
            y = m(y)
            if isinstance(m, (nn.ReLU, nn.LeakyReLU)):
                out.append(y)
        return out

    gs = [_gram(f) for f in feats(style)]
    rec("gram0", gs[0][0, :3, :3])
    opt = lib.optim.Adam(ca.seq.parameters(), lr=1e-3)
    for it in range(3):
        y = x
        for _ in range(3):
            pre = _perceive(lib, y, ca.kernels)
            y = y + ca.seq(pre) * (lib.rand(2, 1, 16, 16, generator=g, dtype=dt) < 0.5)
        img = y[:, :3] + 0.5
        style_loss = sum(
            F.mse_loss(_gram(f), s.expand_as(_gram(f))) for f, s in zip(feats(img), gs, strict=True)
        )
        overflow = (y - y.clamp(-1.0, 1.0)).abs().sum()
        loss = style_loss + overflow
        rec(f"loss{it}", lib.stack([style_loss, overflow]))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        rec(f"g{it}", ca.w2.weight.grad[:3, :4, 0, 0])
        opt.step()
    rec("b1", ca.w1.bias[:5])


def p_isotropic(lib, dt, rec):
    F = lib.nn.functional
    sx = lib.tensor([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=dt) / 8.0
    ident = F.pad(lib.ones(1, 1, dtype=dt), (1, 1, 1, 1))
    g = lib.Generator().manual_seed(21)
    x = lib.rand(2, 4, 10, 10, generator=g, dtype=dt)
    ang = lib.tensor(math.pi / 6, dtype=dt, requires_grad=True)
    c, s = lib.cos(ang), lib.sin(ang)
    kx = c * sx - s * sx.T
    ky = s * sx + c * sx.T
    k = lib.stack([ident, kx, ky])
    rec("k", k)
    y = F.conv2d(F.pad(x, (1, 1, 1, 1), "circular"), k.repeat(4, 1, 1)[:, None], groups=4)
    rec("y", y[0, :6, 2, :4])
    grad_mag = (y[:, 1::3] ** 2 + y[:, 2::3] ** 2).sqrt()
    rec("mag", grad_mag[1, :, 4, :5])
    y.sum().backward()
    rec("dang", ang.grad)
    # rotating the grid by 90 degrees rotates the gradient field
    x90 = lib.rot90(x, 1, (2, 3))
    y90 = F.conv2d(
        F.pad(x90, (1, 1, 1, 1), "circular"),
        lib.stack([sx, sx.T])[:, None].repeat(4, 1, 1, 1),
        groups=4,
    )  # noqa: E501
    rec("y90", y90[0, :2, :3, :3])
    rec("mode_err", _err(lambda: F.pad(x, (1, 1, 1, 1), mode="wrap")))
    steer = lib.atan2(y[:, 2::3], y[:, 1::3])
    rec("steer", steer[0, 0, :3, :3])


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recorded
        return f"{type(e).__name__}: {e}"
    return "no error"


def p_nca3d(lib, dt, rec):
    F, nn = lib.nn.functional, lib.nn
    lib.manual_seed(31)
    c = 4
    x = lib.zeros(1, c, 6, 6, 6, dtype=dt)
    x[0, :, 3, 3, 3] = 1.0
    d = lib.tensor([-1.0, 0.0, 1.0], dtype=dt)
    s = lib.tensor([1.0, 2.0, 1.0], dtype=dt)
    kx = d[None, None, :] * s[None, :, None] * s[:, None, None] / 32
    ident = lib.zeros(3, 3, 3, dtype=dt)
    ident[1, 1, 1] = 1
    ks = lib.stack([ident, kx, kx.permute(0, 2, 1), kx.permute(2, 1, 0)])
    w = ks.repeat(c, 1, 1, 1)[:, None]
    rec("w_shape", list(w.shape))
    upd = nn.Sequential(nn.Conv3d(4 * c, 16, 1), nn.ReLU(), nn.Conv3d(16, c, 1)).to(dt)
    g = lib.Generator().manual_seed(32)
    for i in range(3):
        p = F.conv3d(F.pad(x, (1,) * 6, mode="circular"), w, groups=c)
        m = lib.rand(1, 1, 6, 6, 6, generator=g, dtype=dt) < 0.5
        x = x + upd(p) * m
        alive = F.max_pool3d(x[:, 3:4], 3, 1, 1) > 0.1
        x = x * alive
        rec(f"x{i}", x.sum((2, 3, 4)))
    x.square().mean().backward()
    rec("g", upd[2].bias.grad)
    rec("gw", upd[0].weight.grad.flatten()[:8])
    rec("refl", F.pad(x.detach(), (1,) * 6, mode="reflect")[0, 0, 0, :3, :3])
    rec("repl", F.pad(x.detach(), (1,) * 6, mode="replicate")[0, 3, 0, 2:5, 2:5])


def p_eca(lib, dt, rec):
    # elementary cellular automata: rule lookup by bits of the neighbourhood
    for rule in (30, 90, 110):
        bits = (rule >> lib.arange(8)) & 1
        rec(f"bits{rule}", bits)
        row = lib.zeros(31, dtype=lib.int64)
        row[15] = 1
        rows = [row]
        for _ in range(12):
            left, right = lib.roll(row, 1), lib.roll(row, -1)
            code = (left << 2) | (row << 1) | right
            row = bits[code]
            rows.append(row)
        hist = lib.stack(rows)
        rec(f"hist{rule}", hist.sum(1))
        rec(f"last{rule}", rows[-1])
    # packed as uint8 with bitwise ops
    r = lib.zeros(16, dtype=lib.uint8)
    r[8] = 1
    for _ in range(5):
        r = lib.roll(r, 1) ^ (r | lib.roll(r, -1))
    rec("rule30_u8", r)
    rec("pack", (r.view(2, 8).to(lib.int32) * (2 ** lib.arange(8, dtype=lib.int32))).sum(1))
    rec("shift", lib.bitwise_left_shift(r.to(lib.int16), 3)[:10])
    rec("not", lib.bitwise_not(r)[:6])
    rec("int_div", lib.div(lib.arange(-5, 5), 3, rounding_mode="floor"))
    rec("remainder", lib.remainder(lib.arange(-5, 5), 3))
    rec("fmod", lib.fmod(lib.arange(-5, 5), 3))
    rec("true_div", lib.arange(-5, 5) / 4)
    rec("true_div_dtype", str((lib.arange(3) / 2).dtype))


def p_forest_fire(lib, dt, rec):
    # 0 empty, 1 tree, 2 fire on a torus: trees catch from burning neighbours
    g = lib.Generator().manual_seed(41)
    n = 18
    s = (lib.rand(n, n, generator=g) < 0.55).long()
    s[9, 9] = 2
    p_grow, p_light = 0.05, 0.001
    for i in range(10):
        fire = (s == 2).to(dt)
        near = lib.zeros_like(fire)
        for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            near += lib.roll(fire, (dy, dx), (0, 1))
        u = lib.rand(n, n, generator=g, dtype=dt)
        new = s.clone()
        new[s == 2] = 0
        catch = (s == 1) & ((near > 0) | (u < p_light))
        new[catch] = 2
        grow = (s == 0) & (lib.bernoulli(lib.full((n, n), p_grow, dtype=dt), generator=g) > 0)
        new[grow] = 1
        s = new
        rec(f"counts{i}", lib.bincount(s.flatten(), minlength=3))
    rec("s", s[6:12, 6:12])
    oh = F_one_hot(lib, s)
    rec("oh", oh.sum((0, 1)))
    rec("argmax", oh.to(dt).argmax(-1)[6:9, 6:9])


def F_one_hot(lib, s):
    return lib.nn.functional.one_hot(s, 3)


def p_checkpointed(lib, dt, rec):
    lib.manual_seed(51)
    ca = _CA(lib, dt, channels=8, hidden=16, fire_rate=1.0)
    with lib.no_grad():
        ca.w2.weight.normal_(0, 0.05)
    target = _target(lib, dt)
    params = list(ca.seq.parameters())

    def run(x, ckpt):
        g = lib.Generator().manual_seed(52)
        for _ in range(4):
            if ckpt:
                x = lib.utils.checkpoint.checkpoint(ca.step, x, g, use_reentrant=False)
            else:
                x = ca.step(x, g)
        return (x[:, :4] - target).pow(2).mean()

    l1 = run(_seed(lib, dt), False)
    g1 = lib.autograd.grad(l1, params)
    l2 = run(_seed(lib, dt), True)
    g2 = lib.autograd.grad(l2, params)
    rec("l", lib.stack([l1, l2]))
    rec("g1", g1[0][:3, :4, 0, 0])
    rec("same", all(lib.allclose(a, b) for a, b in zip(g1, g2, strict=True)))
    rec("gn", lib.stack([gg.norm() for gg in g1]))
    total = lib.nn.utils.clip_grad_norm_(params, 1e9)  # grads are None here: a zero norm
    rec("clip_none", total)
    for p, gg in zip(params, g1, strict=True):
        p.grad = gg.clone()
    total = lib.nn.utils.clip_grad_norm_(params, 0.01)
    rec("clip", total)
    rec("clipped", lib.stack([p.grad.norm() for p in params]))


def p_to_image(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(61)
    x = lib.randn(2, 8, 6, 6, generator=g, dtype=dt) * 0.7 + 0.3
    rgb, a = x[:, :3], x[:, 3:4].clamp(0.0, 1.0)
    img = 1.0 - a + rgb
    u8 = (img.clamp(0, 1) * 255).to(lib.uint8)
    rec("u8", u8[0, :, :2, :4])
    rec("u8_round", (img.clamp(0, 1) * 255).round().byte()[1, 0, 0])
    big = F.interpolate(u8.float(), scale_factor=2, mode="nearest").to(lib.uint8)
    rec("big", big.shape)
    rec("big_v", big[0, 0, :3, :3])
    # a 2x? grid of frames with a 1-pixel border
    fr = F.pad(img, (1, 1, 1, 1), value=1.0)
    grid = fr.permute(0, 2, 3, 1).reshape(1, 2 * 8, 8, 3).permute(0, 3, 1, 2)
    rec("grid", grid.sum((2, 3)))
    rec("grid_contig", grid.is_contiguous())
    # downsample a target image and premultiply alpha
    tgt = lib.rand(1, 4, 16, 16, generator=g, dtype=dt)
    small = F.avg_pool2d(tgt, 2)
    rec("small", small[0, :, 0, :3])
    pm = lib.cat([small[:, :3] * small[:, 3:], small[:, 3:]], 1)
    rec("pm", pm.mean((2, 3)))
    rec(
        "bilinear", F.interpolate(small, size=(5, 5), mode="bilinear", align_corners=False)[0, 0, 0]
    )
    rec("u8_arith", (u8[0, 0, 0] + 200)[:4])
    rec("u8_sub", (u8[0, 0, 0] - u8[0, 1, 0])[:4])
    rec("u8_mean", u8.float().mean())
    rec("u8_sum_dtype", str(u8.sum().dtype))


def p_save_load(lib, dt, rec):
    import io

    lib.manual_seed(71)
    ca = _CA(lib, dt, channels=6, hidden=12)
    opt = lib.optim.Adam(ca.seq.parameters(), lr=1e-3)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, [1], 0.5)
    g = lib.Generator().manual_seed(72)
    x = lib.rand(1, 6, 8, 8, generator=g, dtype=dt)
    x[:, 3] = 1.0
    with lib.no_grad():
        ca.w2.weight.uniform_(-0.1, 0.1, generator=g)
    for _ in range(2):
        y = ca.step(x, g)
        loss = y.square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    buf = io.BytesIO()
    lib.save({"model": ca.seq.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
              "gen": g.get_state()}, buf)  # fmt: skip
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("keys", sorted(ck["model"].keys()))
    rec("sched", sorted((k, str(v)) for k, v in ck["sched"].items() if k != "milestones"))
    rec("milestones", str(dict(ck["sched"]["milestones"])))
    ca2 = _CA(lib, dt, channels=6, hidden=12)
    ca2.seq.load_state_dict(ck["model"])
    opt2 = lib.optim.Adam(ca2.seq.parameters(), lr=1e-3)
    opt2.load_state_dict(ck["opt"])
    rec("lr", opt2.param_groups[0]["lr"])
    rec("step", ck["opt"]["state"][0]["step"])
    g2 = lib.Generator()
    g2.set_state(ck["gen"])
    a = ca.step(x, g)
    b = ca2.step(x, g2)
    rec("equal", lib.equal(a, b))
    rec("a", a[0, :, 3, 3])


def p_grad_norm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(81)
    m = nn.Sequential(nn.Conv2d(12, 16, 1), nn.ReLU(), nn.Conv2d(16, 4, 1, bias=False)).to(dt)
    nn.init.zeros_(m[2].weight)
    nn.init.kaiming_uniform_(m[0].weight, a=math.sqrt(5))
    opt = lib.optim.Adam(m.parameters(), lr=1e-2, betas=(0.9, 0.99), eps=1e-7)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 3], gamma=0.1)
    g = lib.Generator().manual_seed(82)
    x = lib.randn(2, 12, 5, 5, generator=g, dtype=dt)
    y = lib.randn(2, 4, 5, 5, generator=g, dtype=dt)
    for it in range(4):
        loss = lib.nn.functional.mse_loss(m(x), y)
        opt.zero_grad()
        loss.backward()
        rec(f"g2_{it}", m[2].weight.grad.norm())
        rec(f"g0_none_{it}", m[0].weight.grad is None or bool(m[0].weight.grad.abs().sum() == 0))
        for p in m.parameters():
            p.grad.data = p.grad.data / (p.grad.data.norm() + 1e-8)
        rec(f"norms{it}", lib.stack([p.grad.norm() for p in m.parameters()]))
        opt.step()
        sched.step()
        rec(f"loss{it}", loss)
    rec("lrs", [gr["lr"] for gr in opt.param_groups])
    rec("state_step", opt.state[m[2].weight]["step"])
    rec("exp_avg_sq", opt.state[m[2].weight]["exp_avg_sq"][:2, :3, 0, 0])
    rec("sched_repr", str(sched.milestones))


def p_conv_modes(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(91)
    g = lib.Generator().manual_seed(92)
    x = lib.randn(1, 4, 7, 9, generator=g, dtype=dt, requires_grad=True)
    outs = {}
    for mode in ("zeros", "reflect", "replicate", "circular"):
        conv = nn.Conv2d(4, 4, 3, padding=1, padding_mode=mode, groups=4, bias=False).to(dt)
        with lib.no_grad():
            conv.weight.copy_(_kernels(lib, dt)[:, None])
        rec(f"repr_{mode}", repr(conv))
        y = conv(x)
        outs[mode] = y
        rec(f"y_{mode}", y[0, :, 0, :3])
        (gx,) = lib.autograd.grad(y.pow(2).sum(), x)
        rec(f"gx_{mode}", gx[0, :, 0, :3])
    rec(
        "inner_same",
        lib.allclose(outs["zeros"][..., 1:-1, 1:-1], outs["circular"][..., 1:-1, 1:-1]),
    )
    conv = nn.Conv2d(4, 8, (3, 5), padding=(1, 2), padding_mode="circular").to(dt)
    rec("asym", conv(x).shape)
    rec("rev_pad", repr(conv._reversed_padding_repeated_twice))  # padding by hand reads it
    xp = lib.nn.functional.pad(x, (1, 1, 0, 0), mode="circular")
    rec("hand_pad", conv._conv_forward(xp, conv.weight, None)[0, 0, 0, :4])
    conv = nn.Conv2d(4, 4, 3, padding="same", padding_mode="reflect", dilation=2).to(dt)
    rec("same_dil", conv(x)[0, 0, 0, :3])
    F = lib.nn.functional
    rec("pad_asym", F.pad(x, (2, 0, 0, 1), mode="circular")[0, 0, :, :3])
    rec("pad_refl", F.pad(x, (3, 1, 2, 0), mode="reflect")[0, 1, :3, :5])
    rec("pad_neg", F.pad(x, (-1, -1, 0, 0))[0, 0].shape)
    rec("pad_1d_circ", F.pad(x[0, :, 0], (2, 3), mode="circular")[0])
    x2 = x.detach().clone().requires_grad_()
    y2 = F.pad(x2, (2, 2, 2, 2), mode="circular")
    (gg,) = lib.autograd.grad(y2, x2, lib.ones_like(y2))
    rec("circ_grad", gg[0, 0])
    y3 = F.pad(x2, (2, 2, 2, 2), mode="reflect")
    (gg,) = lib.autograd.grad(y3, x2, lib.ones_like(y3), create_graph=True)
    rec("refl_grad", gg[0, 0])


def p_wireworld(lib, dt, rec):
    # 0 empty, 1 head, 2 tail, 3 conductor
    F = lib.nn.functional
    s = lib.zeros(10, 14, dtype=lib.int64)
    s[5, 1:13] = 3
    s[2:9, 6] = 3
    s[5, 2] = 1
    s[5, 1] = 2
    k = lib.ones(1, 1, 3, 3)
    for i in range(12):
        heads = (s == 1).float()[None, None]
        n = F.conv2d(heads, k, padding=1)[0, 0].long()
        new = lib.where(s == 1, 2, s)
        new = lib.where(s == 2, 3, new)
        new = lib.where((s == 3) & ((n == 1) | (n == 2)), 1, new)
        s = new
        rec(f"heads{i}", (s == 1).nonzero())
    rec("dtype", str(s.dtype))
    rec("s", s[2:9, 4:9])
    rec("count", lib.stack([(s == v).sum() for v in range(4)]).to(dt))


def p_lenia_unfold(lib, dt, rec):
    F = lib.nn.functional
    r = 3
    k = _lenia_kernel(lib, dt, r)
    g = lib.Generator().manual_seed(101)
    a = lib.rand(2, 1, 10, 10, generator=g, dtype=dt, requires_grad=True)
    pa = F.pad(a, (r,) * 4, mode="circular")
    cols = F.unfold(pa, 2 * r + 1)
    u = (k.flatten()[None, :, None] * cols).sum(1).view(2, 1, 10, 10)
    u2 = F.conv2d(pa, k[None, None])
    rec("u", u[0, 0, :3, :4])
    rec("close", lib.allclose(u, u2))
    grow = 2 * _bell(lib, u, 0.2, 0.03) - 1
    a1 = (a + 0.2 * grow).clamp(0, 1)
    (ga,) = lib.autograd.grad(a1.square().sum(), a, create_graph=True)
    rec("ga", ga[1, 0, :3, :3])
    (gga,) = lib.autograd.grad(ga.sum(), a)
    rec("gga", gga[0, 0, :3, :3])
    # fold back (overlapping sums) gives each cell's count of windows
    ones = lib.ones_like(cols)
    folded = F.fold(ones, (16, 16), 2 * r + 1)
    rec("fold", folded[0, 0, :4, :8])
    # multi-channel Lenia: three kernels with different radii through conv2d, weights summed
    ks = lib.stack([F.pad(_lenia_kernel(lib, dt, rr), (r - rr,) * 4) for rr in (1, 2, 3)])[:, None]
    uu = F.conv2d(pa.detach(), ks)
    rec("uu", uu[1, :, 4, 4])
    w = lib.softmax(lib.tensor([0.2, 1.0, -0.5], dtype=dt), 0)
    rec("mix", lib.einsum("bchw,c->bhw", uu, w)[0, :2, :4])


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    x = lib.zeros(1, 4, 5, 5, dtype=dt)
    k = _kernels(lib, dt)
    rec("groups", _err(lambda: F.conv2d(x, k.repeat(4, 1, 1)[:, None], groups=3)))
    rec("chan", _err(lambda: F.conv2d(x, k[:, None].repeat(1, 2, 1, 1), groups=4)))
    rec("refl_big", _err(lambda: F.pad(x, (5, 5, 0, 0), mode="reflect")))
    rec("circ_big", _err(lambda: F.pad(x, (6, 6, 0, 0), mode="circular")))
    rec("pad_odd", _err(lambda: F.pad(x, (1, 1, 1), mode="circular")))
    one = lib.ones(1, 1, 3, 3)
    rec("int_conv", _err(lambda: F.conv2d(x[:, :1].long(), one.long())))
    rec("u8_conv", _err(lambda: F.conv2d(x[:, :1].to(lib.uint8), one.to(lib.uint8), padding=1)))
    rec("bool_conv", _err(lambda: F.conv2d(x[:, :1] > 0, one > 0)))
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec("dtype_mix", _err(lambda: F.conv2d(x[:, :1], one.to(other))))
    rec("bias_mix", _err(lambda: F.conv2d(x[:, :1], one.to(dt), bias=lib.ones(1, dtype=other))))
    rec("avg_int", _err(lambda: F.avg_pool2d(x.long(), 2)))
    rec("lerp_int", _err(lambda: F.interpolate(x.long(), scale_factor=2, mode="bilinear")))
    rec("one_hot_neg", _err(lambda: F.one_hot(lib.tensor([-1]))))
    rec("one_hot_float", _err(lambda: F.one_hot(lib.tensor([1.0]))))
    rec("bincount_neg", _err(lambda: lib.bincount(lib.tensor([-1]))))
    rec("refl_h", _err(lambda: F.pad(x, (0, 0, 6, 6), mode="reflect")))
    rec("pad5", _err(lambda: F.pad(x, (1,) * 8, mode="circular")))
    # the modes are a set in both messages: its order follows the process's string hashing
    mode_err = _err(lambda: lib.nn.Conv2d(4, 4, 3, padding_mode="wrap"))
    head, _, rest = mode_err.partition("{")
    modes, _, tail = rest.partition("}")
    rec("conv_mode", head + str(sorted(modes.split(", "))) + tail)
    rec("same_stride", _err(lambda: lib.nn.Conv2d(4, 4, 3, padding="same", stride=2)))
    dw = k.repeat(4, 1, 1)[:, None]
    rec("dil0_dw", _err(lambda: F.conv2d(x, dw, groups=4, dilation=0)))
    rec("dil0_one", _err(lambda: F.conv2d(x[:, :1], one.to(dt), dilation=(1, 0))))
    rec("dil0_batch", _err(lambda: F.conv2d(x.expand(2, -1, -1, -1), dw, groups=4, dilation=0)))
    rec("pool_dil0", _err(lambda: F.max_pool2d(x[:, 3:4], 3, 1, 1, dilation=0)))
    rec("pool_dil0_nopad", _err(lambda: F.max_pool2d(x[:, 3:4], 3, 1, 0, dilation=0)))
    rec("pool_stride", _err(lambda: F.max_pool2d(x[:, 3:4], 3, (1, 0), (2, 0))))
    rec("pool_neg_stride", _err(lambda: F.max_pool2d(x[:, 3:4], 3, -1, 0)))
    rec("pool_k0", _err(lambda: F.max_pool2d(x[:, 3:4], (3, 0), 1, 0)))
    rec("pool3d_dil0", _err(lambda: F.max_pool3d(x[None], 3, 1, 0, dilation=0)))
    rec("pool_int", _err(lambda: F.max_pool2d(x.long(), 3, 1, 1)))
    rec("roll_dims", _err(lambda: lib.roll(x, (1, 1), dims=(2,))))
    rec("meshgrid", _err(lambda: lib.meshgrid(lib.arange(3), lib.arange(3), indexing="xyz")))
    rec("index_select", _err(lambda: x.index_select(0, lib.tensor([1.0]))))
    rec("randperm_gen", _err(lambda: lib.randperm(4, generator=lib.Generator(), dtype=lib.bool)))
    rec("bool_sub", _err(lambda: (x > 0) - (x > 1)))
    rec("u8_neg", _err(lambda: -(x > 0)))
    rec("pool_small", _err(lambda: F.max_pool2d(x[:, :, :1, :1], 3)))
    rec("pad_3d_circ", _err(lambda: F.pad(x[0], (1, 1, 1, 1), mode="circular")))
    rec("rand_int", _err(lambda: lib.rand(3, dtype=lib.int64)))
    rec("zero_grad_fr", _err(lambda: lib.bernoulli(lib.tensor([1.5], dtype=dt))))


def p_nca1d(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(111)
    c = 5
    k = lib.tensor([[0.0, 1.0, 0.0], [-0.5, 0.0, 0.5], [1.0, -2.0, 1.0]], dtype=dt)
    w = k.repeat(c, 1)[:, None]
    mlp = nn.Sequential(nn.Conv1d(3 * c, 24, 1), nn.Tanh(), nn.Conv1d(24, c, 1)).to(dt)
    nn.init.zeros_(mlp[2].weight)
    nn.init.zeros_(mlp[2].bias)
    opt = lib.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9)
    tgt = lib.sin(lib.linspace(0, 2 * math.pi, 20, dtype=dt))
    g = lib.Generator().manual_seed(112)
    for it in range(4):
        x = lib.zeros(3, c, 20, dtype=dt)
        x[:, :, 10] = 1.0
        for _ in range(5):
            p = F.conv1d(F.pad(x, (1, 1), mode="circular"), w, groups=c)
            x = x + mlp(p) * (lib.rand(3, 1, 20, generator=g, dtype=dt) < 0.75)
        loss = F.l1_loss(x[:, 0], tgt.expand(3, -1))
        opt.zero_grad()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"gb{it}", mlp[2].bias.grad)
        opt.step()
    rec("x", x[0, :2, 8:13])
    rec("refl1d", F.pad(x.detach(), (2, 2), mode="reflect")[0, 0, :5])
    rec("repl1d", F.pad(x.detach(), (2, 2), mode="replicate")[0, 0, -5:])


def p_int_grid(lib, dt, rec):
    # sandpile on an integer grid: topple cells with >= 4 grains
    s = lib.zeros(9, 9, dtype=lib.int32)
    s[4, 4] = 60
    for i in range(40):
        top = (s >= 4).to(lib.int32)
        if not top.any():
            rec("stable_at", i)
            break
        s = s - 4 * top
        s[1:, :] += top[:-1, :]
        s[:-1, :] += top[1:, :]
        s[:, 1:] += top[:, :-1]
        s[:, :-1] += top[:, 1:]
    rec("s", s)
    rec("dtype", str(s.dtype))
    rec("sum", s.sum())
    rec("sum_dtype", str(s.sum().dtype))
    rec("max", s.max())
    rec("mean_err", _err(lambda: s.mean()))
    rec("float_mean", s.to(dt).mean())
    rec("cumsum_dtype", str(s.cumsum(0).dtype))
    rec("prod", s[4].clamp(min=1).prod())
    rec("int8_wrap", (s.to(lib.int8) * 50)[4])
    rec("uint8_wrap", (s.to(lib.uint8) - 2)[4])
    rec("clamp_int", s.clamp(1, 2)[3])
    rec("pow", (s[4] ** 2))
    rec("bool_sum", (s > 1).sum(0))
    rec("count_nonzero", lib.count_nonzero(s, dim=0))
    rec("mode", lib.mode(s.flatten()).values)
    rec("matmul_int", (s[:3, :3] @ s[:3, :3]))
    rec(
        "conv_float",
        lib.nn.functional.conv2d(s.to(dt)[None, None], lib.ones(1, 1, 3, 3, dtype=dt))[0, 0, 2],
    )  # noqa: E501
    rec(
        "idx_add",
        lib.zeros(4, dtype=lib.int32).index_add_(
            0, lib.tensor([0, 1, 1, 3]), lib.tensor([5, 6, 7, 8], dtype=lib.int32)
        ),
    )  # noqa: E501


def p_sir_grid(lib, dt, rec):
    # stochastic SIR epidemic on a lattice: infection pressure from a 3x3 kernel
    F = lib.nn.functional
    g = lib.Generator().manual_seed(121)
    n = 20
    state = lib.zeros(n, n, dtype=lib.long)
    state[lib.randint(0, n, (3,), generator=g), lib.randint(0, n, (3,), generator=g)] = 1
    k = lib.tensor([[0.5, 1, 0.5], [1, 0, 1], [0.5, 1, 0.5]], dtype=dt)
    beta, gamma = 0.2, 0.1
    for i in range(8):
        inf = (state == 1).to(dt)[None, None]
        pressure = F.conv2d(F.pad(inf, (1, 1, 1, 1), mode="constant", value=0.0), k[None, None])
        p_inf = 1 - lib.pow(1 - beta, pressure[0, 0])
        u = lib.rand(n, n, generator=g, dtype=dt)
        newly = (state == 0) & (u < p_inf)
        rec_ = (state == 1) & (lib.rand(n, n, generator=g, dtype=dt) < gamma)
        state = state.masked_fill(newly, 1).masked_fill(rec_, 2)
        rec(f"sir{i}", lib.stack([(state == v).sum() for v in range(3)]))
    rec("p_inf", p_inf[:4, :4])
    rec("state", state[:6, :6])
    rec("log1p", lib.log1p(-p_inf.clamp(max=0.999)).sum())
    rec(
        "scatter",
        lib.zeros(3, dtype=dt).scatter_add_(0, state.flatten(), lib.ones(n * n, dtype=dt)),
    )


def p_hooks_norm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(131)
    ca = _CA(lib, dt, channels=6, hidden=10, fire_rate=1.0)
    with lib.no_grad():
        ca.w2.weight.normal_(0, 0.1)
    seen = []
    for p in ca.seq.parameters():
        p.register_hook(lambda gr, seen=seen: (seen.append(gr.norm()), gr / (gr.norm() + 1e-8))[1])
    g = lib.Generator().manual_seed(132)
    x = lib.rand(1, 6, 8, 8, generator=g, dtype=dt)
    x[:, 3] = 0.5
    y = ca.step(ca.step(x, g), g)
    loss = nn.functional.smooth_l1_loss(y[:, :4], lib.full_like(y[:, :4], 0.3), beta=0.5)
    loss.backward()
    rec("loss", loss)
    rec("seen", lib.stack(seen))
    rec("normed", lib.stack([p.grad.norm() for p in ca.seq.parameters()]))
    opt = lib.optim.Adam(ca.seq.parameters(), lr=1e-3)
    sch = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 1, 2], gamma=0.5)
    lrs = []
    for _ in range(3):
        opt.step()
        sch.step()
        lrs.append(sch.get_last_lr()[0])
    rec("lrs", lrs)
    rec("w1", ca.w1.weight[:2, :4, 0, 0])
    mods = [type(m).__name__ for m in ca.seq.modules()]
    rec("mods", str(mods))
    rec("repr", repr(ca.seq))


class _Mordvintsev:
    """The texture-NCA notebook's model: filters in a buffer, per-channel convolution by folding
    the channels into the batch, an update mask from the global generator by floor."""

    @staticmethod
    def build(lib, dt, chn=6, hidden=16):
        nn, F = lib.nn, lib.nn.functional

        class CA(nn.Module):
            def __init__(self):
                super().__init__()
                self.chn = chn
                self.w1 = nn.Conv2d(chn * 4, hidden, 1)
                self.w2 = nn.Conv2d(hidden, chn, 1, bias=False)
                self.w2.weight.data.zero_()
                self.register_buffer("filters", _kernels(lib, lib.float32))

            def perchannel_conv(self, x, filters):
                b, ch, h, w = x.shape
                y = x.reshape(b * ch, 1, h, w)
                y = F.pad(y, [1, 1, 1, 1], "circular")
                y = F.conv2d(y, filters[:, None])
                return y.reshape(b, -1, h, w)

            def forward(self, x, update_rate=0.5):
                y = self.perchannel_conv(x, self.filters)
                y = self.w2(lib.relu(self.w1(y)))
                b, c, h, w = y.shape
                update_mask = (lib.rand(b, 1, h, w, dtype=x.dtype) + update_rate).floor()
                return x + y * update_mask

            def seed(self, n, sz=8):
                return lib.zeros(n, self.chn, sz, sz, dtype=dt)

        return CA().to(dt)


def p_mordvintsev(lib, dt, rec):
    import numpy as np

    lib.manual_seed(141)
    ca = _Mordvintsev.build(lib, dt)
    rec("repr", repr(ca))
    rec("buffers", str([(n, str(b.dtype)) for n, b in ca.named_buffers()]))
    rec("keys", str(sorted(ca.state_dict().keys())))
    ca.w2.weight.data.normal_(0, 0.1)
    opt = lib.optim.Adam(ca.parameters(), 1e-3)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, [2], 0.3)
    rng = np.random.default_rng(0)
    pool = ca.seed(16)
    pool[:, 3:] = lib.rand(16, 3, 8, 8, dtype=dt) * 0.2
    for i in range(3):
        with lib.no_grad():
            batch_idx = rng.choice(len(pool), 4, replace=False)
            x = pool[batch_idx]
            if i % 2 == 0:
                x[:1] = ca.seed(1)
        for _ in range(3):
            x = ca(x)
        imgs = x[..., :3, :, :] + 0.5
        overflow_loss = (x - x.clamp(-1.0, 1.0)).abs().sum()
        loss = (imgs - 0.3).square().mean() + overflow_loss
        with lib.no_grad():
            loss.backward()
            for p in ca.parameters():
                p.grad /= p.grad.norm() + 1e-8
            opt.step()
            opt.zero_grad()
            sched.step()
            pool[batch_idx] = x
        rec(f"loss{i}", loss)
        rec(f"pool{i}", pool.sum((1, 2, 3)))
    rec("x_requires_grad", x.requires_grad)
    rec("pool_requires_grad", pool.requires_grad)
    rec("grads", [p.grad is None for p in ca.parameters()])
    rec("w1", ca.w1.weight[:2, :5, 0, 0])
    rec("np_index", pool[np.array([1, 3]), np.int64(2)].sum((1, 2)))


def _project_sort(lib, x, proj):
    return lib.einsum("bcn,cp->bpn", x, proj).sort()[0]


def p_sliced_ot(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(151)
    src = lib.rand(2, 6, 36, generator=g, dtype=dt, requires_grad=True)
    tgt = lib.rand(1, 6, 50, generator=g, dtype=dt)
    ch, n = src.shape[-2:]
    projs = F.normalize(lib.randn(ch, 8, generator=g, dtype=dt), dim=0)
    rec("projs", projs[:2])
    sp = _project_sort(lib, src, projs)
    tp = _project_sort(lib, tgt, projs)
    ti = F.interpolate(tp, n, mode="nearest")
    rec("ti", ti[0, 0, :8])
    loss = (sp - ti).square().sum()
    rec("loss", loss)
    (gs,) = lib.autograd.grad(loss, src)
    rec("gs", gs[0, :2, :6])
    ti2 = F.interpolate(tp, size=n, mode="linear", align_corners=False)
    rec("ti2", ti2[0, 1, :6])
    rec("exact", F.interpolate(tp, n, mode="nearest-exact")[0, 2, :8])
    # a gram-matrix style loss on the same features, and a VGG-style normalisation
    mean = lib.tensor([0.485, 0.456, 0.406], dtype=dt)[:, None, None]
    std = lib.tensor([0.229, 0.224, 0.225], dtype=dt)[:, None, None]
    img = src.detach()[:, :3].reshape(2, 3, 6, 6)
    z = (img - mean) / std
    rec("z", z[1, :, 0, :3])
    feats = z.reshape(2, 3, 36)
    gram = lib.einsum("bcn,bdn->bcd", feats, feats) / 36
    rec("gram", gram[0])
    rec("bmm_same", lib.allclose(gram, feats @ feats.transpose(1, 2) / 36))


def _rng_step(lib, w1, w2):
    F = lib.nn.functional

    def step(x):
        y = lib.cat([x, lib.roll(x, 1, 2), lib.roll(x, 1, 3),
                     F.pad(x, (1, 1, 1, 1), mode="circular")[..., :-2, 1:-1]], 1)  # fmt: skip
        dx = w2(lib.relu(w1(y)))
        m = (lib.rand(x.shape[0], 1, *x.shape[2:], dtype=x.dtype) < 0.5).to(x.dtype)
        x = x + dx * m
        x[:, :1] *= (F.max_pool2d(x[:, 1:2], 3, 1, 1) > 0.1).to(x.dtype)
        return x

    return step


def p_ckpt_global_rng(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(161)
    w1, w2 = nn.Conv2d(8, 16, 1).to(dt), nn.Conv2d(16, 2, 1, bias=False).to(dt)
    step = _rng_step(lib, w1, w2)
    for mode in ("plain", "reentrant", "nonreentrant"):
        lib.manual_seed(5)
        x0 = lib.rand(2, 2, 6, 6, dtype=dt, requires_grad=True)
        x = x0
        for _ in range(3):
            if mode == "plain":
                x = step(x)
            else:
                x = lib.utils.checkpoint.checkpoint(step, x, use_reentrant=mode == "reentrant")
        x.square().sum().backward()
        rec(f"{mode}.x", x.sum())
        rec(f"{mode}.gx", x0.grad[0, 0])
        rec(f"{mode}.gw", w1.weight.grad[:3, :4, 0, 0])
        rec(f"{mode}.after", lib.rand(2, dtype=dt))
        w1.weight.grad = None
    # an in-place update of a non-leaf state through indexing
    lib.manual_seed(1)
    x0 = lib.rand(2, 2, 6, 6, dtype=dt, requires_grad=True)
    x = x0 * 1
    x[:, 1] = x[:, 1].clamp(0, 0.5)
    x[x > 0.9] = 0
    x.view(-1)[:3] += 1
    rec("grad_fn", type(x.grad_fn).__name__)
    rec.err("modified", lambda: x.sum().backward())  # clamp saved x[:, 1], since overwritten
    x = x0 * 1
    x[:, 1] = x0[:, 1].clamp(0, 0.5) * 2
    x[x.detach() > 0.9] = 0
    x.view(-1)[:3] += 1
    x.sum().backward()
    rec("x0g", x0.grad[0, :, 0])
    seq = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, padding_mode="circular"), nn.Tanh(),
                        nn.Dropout(0.3), nn.Conv2d(4, 2, 1)).to(dt)  # fmt: skip
    inp = lib.rand(1, 2, 5, 5, dtype=dt, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint_sequential(seq, 2, inp, use_reentrant=False)
    y.sum().backward()
    rec("seq", y.sum())
    rec("seq_g", inp.grad[0, 0])


def p_func_tools(lib, dt, rec):
    lib.manual_seed(171)
    ca = _Mordvintsev.build(lib, dt)
    ca.w2.weight.data.normal_(0, 0.1)
    g = lib.Generator().manual_seed(172)
    pool = lib.rand(3, 6, 8, 8, generator=g, dtype=dt)
    params = dict(ca.named_parameters())
    y = lib.func.functional_call(ca, params, (pool[:2],), {"update_rate": 1.0})
    rec("fcall", y.sum((1, 2, 3)))
    rec("vmap_err", _err(lambda: lib.vmap(lambda z: ca(z[None], 1.0)[0])(pool)))
    for mode in ("same", "different"):
        lib.manual_seed(3)
        vm = lib.vmap(lambda z: ca(z[None], 0.5)[0], randomness=mode)(pool)
        rec(f"vmap_{mode}", vm.sum((1, 2, 3)))
    small = pool[:1, :, :3, :3].contiguous()
    jac = lib.autograd.functional.jacobian(
        lambda z: ca.perchannel_conv(z, ca.filters.to(dt)), small
    )
    rec("jac_shape", list(jac.shape))
    rec("jac", jac[0, :2, 1, 1, 0, :2].flatten(1))
    hits = []
    for p in ca.parameters():
        p.register_post_accumulate_grad_hook(lambda p: hits.append(p.grad.norm()))
    ca(pool[:2], 1.0).square().sum().backward()
    rec("hits", lib.stack(hits))
    rec("vec", lib.nn.utils.parameters_to_vector(ca.parameters()).shape)


def p_rng_streams(lib, dt, rec):
    g = lib.Generator().manual_seed(181)
    for n in (7, 16, 33):
        rec(f"rand{n}", lib.rand(n, generator=g, dtype=dt))
        rec(f"bern{n}", lib.bernoulli(lib.full((n,), 0.3, dtype=dt), generator=g))
        rec(f"bern_{n}", lib.empty(n, dtype=dt).bernoulli_(0.3, generator=g))
        rec(f"randint{n}", lib.randint(0, 5, (n,), generator=g))
        rec(f"perm{n}", lib.randperm(n, generator=g))
        rec(f"normal{n}", lib.normal(lib.zeros(n, dtype=dt), 2.0, generator=g))
        rec(f"u8{n}", lib.empty(n, dtype=lib.uint8).random_(generator=g))
        rec(f"unif{n}", lib.empty(n, dtype=dt).uniform_(-1, 1, generator=g))
    lib.manual_seed(7)
    with lib.random.fork_rng():
        a = lib.rand(3, dtype=dt)
    rec("fork", lib.equal(a, lib.rand(3, dtype=dt)))
    st = lib.get_rng_state()
    c = lib.rand(20, dtype=dt)
    lib.set_rng_state(st)
    rec("restore", lib.equal(c, lib.rand(20, dtype=dt)))
    rec("dropout", lib.nn.functional.dropout(lib.ones(20, dtype=dt), 0.5))


def p_empty_batch(lib, dt, rec):
    # a pool step whose batch selection came out empty, with float64 kernels built by mistake
    F = lib.nn.functional
    g = lib.Generator().manual_seed(191)
    pool = lib.rand(8, 4, 6, 6, generator=g, dtype=dt)
    loss = lib.rand(8, generator=g, dtype=dt)
    idx = (loss > 2.0).nonzero().flatten()
    rec("idx", idx)
    batch = pool.index_select(0, idx).requires_grad_()
    k64 = _kernels(lib, lib.float64).repeat(4, 1, 1)[:, None]
    y = F.conv2d(F.pad(batch, (1, 1, 1, 1), mode="circular"), k64, groups=4)
    rec("y", y)
    alive = F.max_pool2d(y[:, 3:4], 3, 1, 1) > 0.1
    rec("alive", alive)
    upd = lib.nn.Conv2d(16, 4, 1).to(dt)
    out = upd(y.to(dt))
    rec("out", out)
    out.sum().backward()
    rec("g", batch.grad)
    rec("gw", upd.weight.grad.flatten()[:4])
    rec(
        "bias_err",
        _err(lambda: F.conv2d(batch, k64.to(dt), bias=lib.ones(16, dtype=lib.float16), groups=4)),
    )  # noqa: E501
    chans = lib.zeros(2, 0, 6, 6, dtype=dt)
    # (torch's result has no channels either: see the module docstring)
    rec("no_channels", str(F.conv2d(chans, lib.ones(3, 0, 3, 3, dtype=lib.float64)).dtype))
    rec(
        "transposed",
        F.conv_transpose2d(batch.detach(), lib.ones(4, 2, 2, 2, dtype=lib.float64), stride=2),
    )  # noqa: E501
