"""Session 28 (helper codec): learned-compression and quantization programs, written the way
CompressAI-style codecs and quantization-aware-training code use torch, run under torch and
minitorch with the same seeds and compared record by record.

Covered: straight-through rounding (the detach trick, a custom Function, round half to even,
decimals), torch's fake quantizers per tensor and per channel and the learnable ones (LSQ / LSQ+
gradients, grad factor), hand-written LSQ modules trained with Adam, min-max / moving-average /
per-channel observers (aminmax, quantile, histc), int8 matmul with int32 accumulation and
fixed-point requantisation (frexp, shifts, wraparound casts), 4-bit and 2-bit packing with
bitwise ops, GDN/IGDN with the non-negative reparametrisation (a lower-bound Function, and again
through nn.utils.parametrize), the factorised entropy bottleneck (cumulative logits, sigmoid
differences, likelihood bound, auxiliary quantile loss) and the Gaussian conditional (erfc,
scale table, bucketize), a scale hyperprior with pixel_shuffle and conv_transpose trained on
rate + distortion, an autoregressive masked-conv context model with padding to a multiple of 8,
arithmetic-coding frequency tables (cumsum, searchsorted, minimum frequencies) and an rANS coder
on int64 tensors, VQ-VAE / EMA codebooks / residual and product VQ (cdist, argmin, index_add_,
scatter_add_), soft-to-hard quantisation, QAT of conv + batch norm with BN folding, additive
uniform noise against rounding and a shared dither, JPEG-style blocks (unfold/fold, DCT by
matmul, zigzag, run lengths), half and bfloat16 weights (bit-level round-to-nearest-even and
stochastic rounding, autocast, save/load of int8 and half state dicts), CompressAI's training
loop (two optimisers, ReduceLROnPlateau, AveragedModel EMA, weight_norm, a checkpoint round
trip), a video codec's motion compensation (grid_sample warping, scale-space flow, affine_grid,
interpolate), k-means++ codebook seeding with scatter_reduce means, gradcheck/gradgradcheck of
the pieces. float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented): float32 transcendental functions (exp) and float32 sums (a
weight_norm's norm, a softmax) can be an ulp off torch's, so the scale table is built in the
program's dtype and the weight-normalised convs are made in it; the matrix-product form of cdist
gives a point's distance to itself as the root of its sums' rounding noise (not compared);
torch's cdist has no double backward in its direct form (minitorch's has one), torch's learnable
fake quantizers' backward takes float32 only (minitorch's any floating dtype: the program runs in
float32), uint16/uint32/uint64 tensors and quantized tensors (torch.quantize_per_tensor, qint8,
torch.ao.quantization) are not provided."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import math

import pytest

from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ste_round", "fake_quant_builtin", "lsq", "observers", "int8_matmul", "bitpack4", "gdn",
    "entropy_bottleneck", "gaussian_conditional", "hyperprior", "freq_tables", "vq",
    "context_model", "parametrize_nonneg", "half_weights", "qat_conv_bn", "soft_to_hard",
    "noise_proxy", "jpeg_blocks", "rans", "gradchecks", "train_loop", "bf16_rounding",
    "learnable_fq", "video_warp", "kmeans_codebook",
]  # fmt: skip


# programs that compute in float32 whatever dt is (torch's learnable fake quantiser's backward
# takes float32 only)
FLOAT32_ONLY = {"learnable_fq"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-10 if dt == "float64" and name not in FLOAT32_ONLY else 1e-4
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- helpers ---


def _round_ste_fn(lib):
    class RoundSTE(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return lib.round(x)

        @staticmethod
        def backward(ctx, g):
            return g

    return RoundSTE


def _lower_bound_fn(lib):
    """CompressAI's LowerBound: max(x, bound) with a gradient that passes where x >= bound or
    where the gradient would push x up."""

    class LowerBoundFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, bound):
            ctx.save_for_backward(x, bound)
            return lib.max(x, bound)

        @staticmethod
        def backward(ctx, g):
            x, bound = ctx.saved_tensors
            pass_through = (x >= bound) | (g < 0)
            return pass_through.type(g.dtype) * g, None

    return LowerBoundFunction


# --- the programs: each takes the library, a dtype and a recorder ---


def p_ste_round(lib, dt, rec):
    lib.manual_seed(0)
    RoundSTE = _round_ste_fn(lib)
    x = (lib.randn(4, 6, dtype=dt) * 3).requires_grad_()
    w = lib.randn(6, 3, dtype=dt)
    # the detach trick and the custom Function give the same forward and gradient
    q1 = x + (lib.round(x) - x).detach()
    q2 = RoundSTE.apply(x)
    rec("q1", q1)
    rec("q2", q2)
    rec("same", str(lib.equal(q1, q2)))
    (q1 @ w).pow(2).sum().backward()
    rec("g1", x.grad)
    x.grad = None
    (q2 @ w).pow(2).sum().backward()
    rec("g2", x.grad)
    rec("gfn", type(q2.grad_fn).__name__)
    # round half to even, and decimals
    h = lib.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], dtype=dt)
    rec("half_even", lib.round(h))
    rec("decimals", lib.round(lib.tensor([1.2345, -0.0051, 2.675], dtype=dt), decimals=2))
    rec("floor_ste", (x + (x.floor() - x).detach()).sum())
    # plain round has a zero gradient
    y = x.detach().clone().requires_grad_()
    lib.round(y).sum().backward()
    rec("g_round", y.grad)
    # symmetric uniform quantiser with a clamp and STE
    n_bits = 4
    qmax = 2 ** (n_bits - 1) - 1
    s = x.detach().abs().max() / qmax
    xq = lib.clamp(RoundSTE.apply(x / s), -qmax - 1, qmax) * s
    rec("xq", xq)
    rec("levels", lib.unique(xq.detach()).numel())
    gx = lib.autograd.grad(xq.sum(), x)[0]
    rec("gx", gx)


def p_fake_quant_builtin(lib, dt, rec):
    lib.manual_seed(1)
    x = (lib.randn(3, 4, 5, dtype=dt) * 2).requires_grad_()
    y = lib.fake_quantize_per_tensor_affine(x, 0.05, 10, -128, 127)
    rec("y", y)
    rec("gfn", type(y.grad_fn).__name__)
    y.sum().backward()
    rec("g", x.grad)
    x.grad = None
    # tensor qparams
    scale = lib.tensor([0.1])
    zp = lib.tensor([3], dtype=lib.int32)
    y2 = lib.fake_quantize_per_tensor_affine(x, scale, zp, 0, 15)
    rec("y2", y2)
    (y2 * lib.arange(60, dtype=dt).reshape(3, 4, 5)).sum().backward()
    rec("g2", x.grad)
    x.grad = None
    # per-channel along axis 1
    sc = lib.tensor([0.02, 0.05, 0.1, 0.2], dtype=lib.float32)
    zc = lib.tensor([0, -3, 5, 0], dtype=lib.int32)
    y3 = lib.fake_quantize_per_channel_affine(x, sc, zc, 1, -8, 7)
    rec("y3", y3)
    y3.pow(2).sum().backward()
    rec("g3", x.grad)
    # quantisation error and a per-channel mse
    with lib.no_grad():
        err = (y3 - x).pow(2).mean(dim=(0, 2))
    rec("err", err)
    # qparams from min/max the way observers compute them (asymmetric uint8)
    mn, mx = lib.aminmax(x.detach())
    mn, mx = lib.clamp(mn, max=0.0), lib.clamp(mx, min=0.0)
    s = (mx - mn) / 255.0
    z = lib.clamp(0 - lib.round(mn / s), 0, 255).to(lib.int32)
    rec("s", s)
    rec("z", z)
    y4 = lib.fake_quantize_per_tensor_affine(x.detach(), s.float(), z, 0, 255)
    rec("y4", y4)
    # errors
    rec.err("e_range", lambda: lib.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 1))
    rec.err("e_zp", lambda: lib.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255))
    rec.err(
        "e_axis",
        lambda: lib.fake_quantize_per_channel_affine(x, sc, zc, 2, -8, 7),
    )


def p_lsq(lib, dt, rec):
    """Learned step size quantisation (Esser et al.): the step is a parameter, its gradient is
    scaled by 1/sqrt(numel * qmax)."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)

    def grad_scale(x, scale):
        return (x - x * scale).detach() + x * scale

    def round_pass(x):
        return (x.round() - x).detach() + x

    class LSQ(nn.Module):
        def __init__(self, bits, signed):
            super().__init__()
            self.qn = 2 ** (bits - 1) if signed else 0
            self.qp = 2 ** (bits - 1) - 1 if signed else 2**bits - 1
            self.s = nn.Parameter(lib.ones(1, dtype=dt))
            self.register_buffer("initialized", lib.zeros(1, dtype=lib.bool))

        def forward(self, x):
            if not bool(self.initialized):
                with lib.no_grad():
                    self.s.copy_(2 * x.abs().mean() / math.sqrt(self.qp))
                    self.initialized.fill_(True)
            g = 1.0 / math.sqrt(x.numel() * self.qp)
            s = grad_scale(self.s, g)
            return round_pass((x / s).clamp(-self.qn, self.qp)) * s

    class QLinear(nn.Linear):
        def __init__(self, i, o):
            super().__init__(i, o)
            self.wq = LSQ(4, True)
            self.aq = LSQ(4, False)

        def forward(self, x):
            return F.linear(self.aq(x), self.wq(self.weight), self.bias)

    model = nn.Sequential(QLinear(8, 16), nn.ReLU(), QLinear(16, 4)).to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    X = lib.randn(32, 8, dtype=dt).abs()
    Y = lib.randint(0, 4, (32,))
    for _ in range(4):
        loss = F.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        rec("loss", loss)
        rec("gs", model[0].wq.s.grad)
        rec("gas", model[2].aq.s.grad)
        opt.step()
    rec.params("m", model, grads=True)
    rec("bufs", str(sorted(n for n, _ in model.named_buffers())))
    sd = model.state_dict()
    rec("sd_keys", str(list(sd.keys())))
    rec("init_dtype", str(sd["0.wq.initialized"].dtype))


def p_observers(lib, dt, rec):
    lib.manual_seed(3)

    class MinMaxObserver:
        def __init__(self, averaging=None, per_channel_axis=None):
            self.min_val = lib.tensor(float("inf"), dtype=dt)
            self.max_val = lib.tensor(float("-inf"), dtype=dt)
            self.c = averaging
            self.axis = per_channel_axis

        def __call__(self, x):
            x = x.detach()
            if self.axis is None:
                mn, mx = lib.aminmax(x)
            else:
                y = x.transpose(0, self.axis).flatten(1)
                mn, mx = lib.aminmax(y, dim=1)
            if self.c is None or lib.isinf(self.min_val).all():
                if self.axis is not None and self.min_val.dim() == 0:
                    self.min_val, self.max_val = mn, mx
                else:
                    self.min_val = lib.minimum(self.min_val, mn)
                    self.max_val = lib.maximum(self.max_val, mx)
            else:
                self.min_val = self.min_val + self.c * (mn - self.min_val)
                self.max_val = self.max_val + self.c * (mx - self.max_val)
            return x

        def qparams(self, qmin, qmax, symmetric):
            mn = lib.min(self.min_val, lib.zeros_like(self.min_val))
            mx = lib.max(self.max_val, lib.zeros_like(self.max_val))
            eps = lib.finfo(lib.float32).eps
            if symmetric:
                amax = lib.max(-mn, mx)
                scale = amax / ((qmax - qmin) / 2)
                scale = lib.max(scale, lib.tensor(eps, dtype=scale.dtype))
                zp = lib.zeros(scale.shape, dtype=lib.int64)
            else:
                scale = (mx - mn) / float(qmax - qmin)
                scale = lib.max(scale, lib.tensor(eps, dtype=scale.dtype))
                zp = qmin - lib.round(mn / scale).to(lib.int64)
                zp = lib.clamp(zp, qmin, qmax)
            return scale, zp

    obs = MinMaxObserver()
    ema = MinMaxObserver(averaging=0.1)
    pc = MinMaxObserver(per_channel_axis=1)
    for i in range(5):
        x = lib.randn(4, 3, 5, dtype=dt) * (1 + i) + 0.3 * i
        obs(x)
        ema(x)
        pc(x)
        rec("min", obs.min_val)
        rec("ema_max", ema.max_val)
        rec("pc_min", pc.min_val)
    for sym in (False, True):
        s, z = obs.qparams(-128, 127, sym)
        rec(f"s{sym}", s)
        rec(f"z{sym}", z)
        s, z = pc.qparams(0, 255, sym)
        rec(f"pcs{sym}", s)
        rec(f"pcz{sym}", z)
    x = lib.randn(4, 3, 5, dtype=dt) * 3
    s, z = obs.qparams(-128, 127, False)
    q = lib.clamp(lib.round(x / s) + z, -128, 127)
    rec("q", q)
    rec("deq", (q - z) * s)
    s, z = pc.qparams(0, 255, False)
    shape = [1, -1, 1]
    q = lib.clamp(lib.round(x / s.view(shape)) + z.view(shape), 0, 255).to(lib.uint8)
    rec("qpc", q)
    rec("deqpc", (q.to(dt) - z.view(shape)) * s.view(shape))
    # aminmax forms and errors
    rec("amm_keep", lib.aminmax(x, dim=-1, keepdim=True).max)
    r = lib.aminmax(x[0])
    rec("amm_type", type(r).__name__)
    rec("amm_fields", str((r.min, r[1], len(r))))
    rec.err("amm_empty", lambda: lib.aminmax(lib.zeros(0, 3, dtype=dt)))
    rec.err("amm_empty_dim", lambda: lib.aminmax(lib.zeros(0, 3, dtype=dt), dim=0))
    rec("amm_empty_dim1", lib.aminmax(lib.zeros(0, 3, dtype=dt), dim=1).min)
    # percentile / histogram observers
    flat = x.flatten()
    rec("quantile", lib.quantile(flat, lib.tensor([0.01, 0.99], dtype=dt)))
    h = lib.histc(flat, bins=16, min=-6, max=6)
    rec("histc", h)
    edges = lib.linspace(-6, 6, 17, dtype=dt)
    cdf = h.cumsum(0) / h.sum()
    k = lib.searchsorted(cdf, lib.tensor([0.05, 0.95], dtype=dt))
    rec("hist_clip", edges[k])


def p_int8_matmul(lib, dt, rec):
    """Integer-only inference of a linear layer: int8 weights/activations, int32 accumulation,
    a fixed-point requantisation multiplier applied with shifts."""
    lib.manual_seed(4)
    x = lib.randn(6, 16, dtype=dt)
    w = lib.randn(8, 16, dtype=dt) * 0.2
    b = lib.randn(8, dtype=dt) * 0.1
    sx = x.abs().max() / 127
    sw = w.abs().amax(dim=1) / 127  # per output channel
    xq = lib.clamp(lib.round(x / sx), -128, 127).to(lib.int8)
    wq = lib.clamp(lib.round(w / sw[:, None]), -128, 127).to(lib.int8)
    rec("xq", xq)
    rec("wq", wq)
    acc = xq.to(lib.int32) @ wq.to(lib.int32).t()
    rec("acc", acc)
    rec("acc_dtype", str(acc.dtype))
    acc64 = lib.matmul(xq.long(), wq.long().T)
    rec("acc_eq", str(lib.equal(acc64, acc.long())))
    bq = lib.round(b / (sx * sw)).to(lib.int32)
    acc = acc + bq
    # output scale and the fixed-point multiplier M = M0 * 2^-shift, M0 in [0.5, 1)
    y_float = x @ w.t() + b
    sy = y_float.abs().max() / 127
    M = (sx * sw / sy).to(lib.float64)
    mant, exp = lib.frexp(M)
    rec("mant", mant)
    rec("exp", exp)
    m0 = lib.round(mant * (1 << 31)).to(lib.int64)
    shift = (31 - exp).to(lib.int64)
    prod = acc.to(lib.int64) * m0
    rounding = lib.ones_like(prod) << (shift - 1)
    yq = (prod + rounding) >> shift
    rec("yq_raw", yq)
    y8 = lib.clamp(yq, -128, 127).to(lib.int8)
    rec("y8", y8)
    rec("y8_err", (y8.to(dt) * sy - y_float).abs().max())
    # the float path for comparison: round half to even of the rescaled accumulator
    yf = lib.round(acc.to(dt) * (sx * sw / sy))
    rec("yf", yf)
    rec("agree", (yf.clamp(-128, 127).to(lib.int8) == y8).float().mean())
    # wraparound vs clamp when casting out of range
    big = lib.tensor([-300, -129, -128, 127, 128, 255, 300], dtype=lib.int32)
    rec("wrap_int8", big.to(lib.int8))
    rec("wrap_uint8", big.to(lib.uint8))
    rec("clamp_int8", big.clamp(-128, 127).to(lib.int8))
    rec("int8_add_wrap", lib.tensor([100, -100], dtype=lib.int8) + lib.tensor(100, dtype=lib.int8))
    rec("int8_mul_promote", (lib.tensor([100], dtype=lib.int8) * 3).dtype)
    rec("uint8_sub", lib.tensor([3], dtype=lib.uint8) - 5)
    rec("int_div", lib.tensor([7, -7], dtype=lib.int32) // 2)
    rec("int_true_div", lib.tensor([7, -7], dtype=lib.int32) / 2)
    rec("int_rem", lib.remainder(lib.tensor([7, -7], dtype=lib.int32), 3))
    rec("fmod", lib.fmod(lib.tensor([7, -7], dtype=lib.int32), 3))
    rec("arith_shift_neg", lib.tensor([-7, -8, 7], dtype=lib.int32) >> 1)
    rec("float_to_int8", lib.tensor([1.7, -1.7, 127.9], dtype=dt).to(lib.int8))
    rec.err("e_int_matmul_mix", lambda: xq @ wq.to(lib.int32).t())
    rec.err("e_float_shift", lambda: x << 1)


def p_bitpack4(lib, dt, rec):
    """4-bit weights packed two to a byte (low nibble first), unpacked with shifts and masks,
    signed int4 recovered by sign extension."""
    lib.manual_seed(5)
    w = lib.randn(6, 10, dtype=dt)
    scale = w.abs().amax(dim=1, keepdim=True) / 7
    q = lib.clamp(lib.round(w / scale), -8, 7).to(lib.int8)
    rec("q", q)
    u = (q & 0x0F).to(lib.uint8)
    rec("u", u)
    lo, hi = u[:, 0::2], u[:, 1::2]
    packed = lo | (hi << 4)
    rec("packed", packed)
    rec("packed_dtype", str(packed.dtype))
    lo2 = lib.bitwise_and(packed, 0x0F)
    hi2 = lib.bitwise_right_shift(packed, 4)
    unpacked = lib.stack([lo2, hi2], dim=-1).flatten(-2)
    rec("unpacked", unpacked)
    signed = unpacked.to(lib.int8)
    signed = lib.where(signed >= 8, signed - 16, signed)
    rec("signed", signed)
    rec("roundtrip", str(lib.equal(signed, q)))
    # sign extension by shifts on int8 (arithmetic right shift)
    ext = (unpacked.to(lib.int8) << 4) >> 4
    rec("ext", ext)
    rec("deq", signed.to(dt) * scale)
    # 2-bit packing with bitwise_or over four fields
    v = lib.randint(0, 4, (3, 8), dtype=lib.uint8)
    p2 = v[:, 0::4] | (v[:, 1::4] << 2) | (v[:, 2::4] << 4) | (v[:, 3::4] << 6)
    rec("p2", p2)
    shifts = lib.tensor([0, 2, 4, 6], dtype=lib.uint8)
    back = (p2.unsqueeze(-1) >> shifts) & 3
    rec("back", back.flatten(-2))
    rec("xor", lib.bitwise_xor(packed, 0xFF))
    rec("not", ~packed)
    rec("not_int8", ~q)
    rec("popcount", sum(((packed >> i) & 1).sum(-1) for i in range(8)))
    rec("left_shift_fn", lib.bitwise_left_shift(lib.tensor([1, 2, 3], dtype=lib.int64), 62))
    rec("shift_uint8_overflow", lib.tensor([200], dtype=lib.uint8) << 1)
    rec("bool_and", lib.tensor([True, False]) & lib.tensor([True, True]))
    rec("view_as_uint8", lib.tensor([1, 256, -1], dtype=lib.int32).view(lib.uint8))
    rec("view_int16", packed[:, :4].contiguous().view(lib.int16))
    rec.err("e_float_and", lambda: w & 1)
    rec.err("e_shift_float", lambda: lib.bitwise_left_shift(w, 1))


def _nonneg(lib, dt):
    """CompressAI's NonNegativeParametrizer: x -> lower_bound(x)^2 - pedestal, stored as
    sqrt(x + pedestal)."""
    LB = _lower_bound_fn(lib)

    class NonNegativeParametrizer(lib.nn.Module):
        def __init__(self, minimum=0.0, reparam_offset=2**-18):
            super().__init__()
            self.pedestal = reparam_offset**2
            self.register_buffer("pedestal_t", lib.tensor([self.pedestal], dtype=dt))
            bound = (minimum + self.pedestal) ** 0.5
            self.register_buffer("bound", lib.tensor([bound], dtype=dt))

        def init(self, x):
            return lib.sqrt(lib.max(x + self.pedestal_t, self.pedestal_t))

        def forward(self, x):
            out = LB.apply(x, self.bound)
            return out**2 - self.pedestal

    return NonNegativeParametrizer


def _gdn(lib, dt):
    nn, F = lib.nn, lib.nn.functional
    NN = _nonneg(lib, dt)

    class GDN(nn.Module):
        def __init__(self, C, inverse=False, beta_min=1e-6, gamma_init=0.1):
            super().__init__()
            self.inverse = inverse
            self.beta_reparam = NN(minimum=beta_min)
            self.beta = nn.Parameter(self.beta_reparam.init(lib.ones(C, dtype=dt)))
            self.gamma_reparam = NN()
            g = gamma_init * lib.eye(C, dtype=dt)
            self.gamma = nn.Parameter(self.gamma_reparam.init(g))

        def forward(self, x):
            C = x.size(1)
            beta = self.beta_reparam(self.beta)
            gamma = self.gamma_reparam(self.gamma).reshape(C, C, 1, 1)
            norm = F.conv2d(x**2, gamma, beta)
            norm = lib.sqrt(norm) if self.inverse else lib.rsqrt(norm)
            return x * norm

    return GDN


def p_gdn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)
    GDN = _gdn(lib, dt)
    g = GDN(4)
    ig = GDN(4, inverse=True)
    x = lib.randn(2, 4, 5, 5, dtype=dt)
    y = g(x)
    rec("y", y)
    rec("iy", ig(y))
    rec("names", str([n for n, _ in g.named_parameters()]))
    rec("bufs", str([(n, tuple(b.shape)) for n, b in g.named_buffers()]))
    enc = nn.Sequential(nn.Conv2d(3, 4, 5, 2, 2), GDN(4), nn.Conv2d(4, 4, 5, 2, 2)).to(dt)
    dec = nn.Sequential(
        nn.ConvTranspose2d(4, 4, 5, 2, 2, output_padding=1),
        GDN(4, inverse=True),
        nn.ConvTranspose2d(4, 3, 5, 2, 2, output_padding=1),
    ).to(dt)
    opt = lib.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    img = lib.rand(2, 3, 16, 16, dtype=dt)
    for _ in range(3):
        z = enc(img)
        zh = z + lib.empty_like(z).uniform_(-0.5, 0.5)
        out = dec(zh)
        loss = F.mse_loss(out, img)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("z_shape", str(tuple(z.shape)))
        rec("g_beta", enc[1].beta.grad)
        rec("g_gamma", dec[1].gamma.grad)
    # the lower bound's gradient: blocked below the bound unless the gradient pushes up
    LB = _lower_bound_fn(lib)
    v = lib.tensor([-1.0, 0.0, 0.5, 2.0], dtype=dt, requires_grad=True)
    bound = lib.tensor([0.25], dtype=dt)
    out = LB.apply(v, bound)
    rec("lb", out)
    (out * lib.tensor([1.0, -1.0, 1.0, -1.0], dtype=dt)).sum().backward()
    rec("lb_grad", v.grad)
    rec.params("enc", enc, grads=True)


def _entropy_bottleneck(lib, dt):
    nn, F = lib.nn, lib.nn.functional
    LB = _lower_bound_fn(lib)

    class EntropyBottleneck(nn.Module):
        def __init__(self, C, init_scale=10.0, filters=(3, 3), tail_mass=1e-9):
            super().__init__()
            self.filters = tuple(int(f) for f in filters)
            self.tail_mass = tail_mass
            flt = (1,) + self.filters + (1,)
            scale = init_scale ** (1 / (len(self.filters) + 1))
            self.matrices = nn.ParameterList()
            self.biases = nn.ParameterList()
            self.factors = nn.ParameterList()
            for i in range(len(self.filters) + 1):
                init = math.log(math.expm1(1 / scale / flt[i + 1]))
                m = lib.empty(C, flt[i + 1], flt[i], dtype=dt).fill_(init)
                self.matrices.append(nn.Parameter(m))
                b = lib.empty(C, flt[i + 1], 1, dtype=dt).uniform_(-0.5, 0.5)
                self.biases.append(nn.Parameter(b))
                if i < len(self.filters):
                    self.factors.append(nn.Parameter(lib.zeros(C, flt[i + 1], 1, dtype=dt)))
            q = lib.tensor([-init_scale, 0, init_scale], dtype=dt).repeat(C, 1, 1)
            self.quantiles = nn.Parameter(q)
            self.register_buffer("target", lib.tensor([-5.0, 0.0, 5.0], dtype=dt))
            self.likelihood_lower_bound = 1e-9

        def _logits_cumulative(self, x, stop_gradient):
            logits = x
            for i in range(len(self.filters) + 1):
                m = self.matrices[i]
                if stop_gradient:
                    m = m.detach()
                logits = lib.matmul(F.softplus(m), logits)
                b = self.biases[i]
                if stop_gradient:
                    b = b.detach()
                logits = logits + b
                if i < len(self.factors):
                    f = self.factors[i]
                    if stop_gradient:
                        f = f.detach()
                    logits = logits + lib.tanh(f) * lib.tanh(logits)
            return logits

        def loss(self):
            logits = self._logits_cumulative(self.quantiles, stop_gradient=True)
            return lib.abs(logits - self.target).sum()

        def _medians(self):
            return self.quantiles[:, :, 1:2]

        def _likelihood(self, x):
            half = 0.5
            lower = self._logits_cumulative(x - half, stop_gradient=False)
            upper = self._logits_cumulative(x + half, stop_gradient=False)
            sign = -lib.sign(lower + upper)
            like = lib.abs(lib.sigmoid(sign * upper) - lib.sigmoid(sign * lower))
            return like

        def quantize(self, x, mode, medians):
            if mode == "noise":
                return x + lib.empty_like(x).uniform_(-0.5, 0.5)
            out = lib.round(x - medians) + medians
            return out if mode == "dequantize" else out.int()

        def forward(self, x, training=True):
            C = x.size(1)
            perm = [1, 0] + list(range(2, x.dim()))
            v = x.permute(*perm).contiguous()
            shape = v.size()
            v = v.reshape(C, 1, -1)
            medians = self._medians().detach()
            out = self.quantize(v, "noise" if training else "dequantize", medians)
            like = self._likelihood(out)
            like = LB.apply(like, lib.tensor(self.likelihood_lower_bound, dtype=dt))
            out = out.reshape(shape).permute(*perm).contiguous()
            like = like.reshape(shape).permute(*perm).contiguous()
            return out, like

    return EntropyBottleneck


def p_entropy_bottleneck(lib, dt, rec):
    lib.manual_seed(7)
    EB = _entropy_bottleneck(lib, dt)
    eb = EB(3)
    rec("n_params", sum(p.numel() for p in eb.parameters()))
    rec("names", str([n for n, _ in eb.named_parameters()]))
    y = lib.randn(2, 3, 4, 4, dtype=dt) * 3
    main = [p for n, p in eb.named_parameters() if not n.endswith("quantiles")]
    aux = [p for n, p in eb.named_parameters() if n.endswith("quantiles")]
    opt = lib.optim.Adam(main, lr=1e-2)
    aux_opt = lib.optim.Adam(aux, lr=1e-1)
    for _ in range(3):
        yh, like = eb(y)
        bpp = lib.log(like).sum() / (-math.log(2) * 16 * 2)
        opt.zero_grad()
        bpp.backward()
        opt.step()
        aux_loss = eb.loss()
        aux_opt.zero_grad()
        aux_loss.backward()
        aux_opt.step()
        rec("bpp", bpp)
        rec("aux", aux_loss)
        rec("g_m0", eb.matrices[0].grad)
        rec("g_f1", eb.factors[1].grad)
        rec("q", eb.quantiles)
    with lib.no_grad():
        yq, like = eb(y, training=False)
    rec("yq", yq)
    rec("like", like)
    rec("bits", -lib.log2(like).sum())
    # the integer symbols and the pmf over a support
    med = eb._medians().detach()
    sym = eb.quantize(y.permute(1, 0, 2, 3).reshape(3, 1, -1), "symbols", med)
    rec("sym", sym)
    rec("sym_dtype", str(sym.dtype))
    minima = lib.ceil(med - eb.quantiles[:, :, 0:1].detach()).squeeze()
    maxima = lib.ceil(eb.quantiles[:, :, 2:3].detach() - med).squeeze()
    rec("minima", minima)
    rec("maxima", maxima)
    with lib.no_grad():
        samples = lib.arange(-4, 5, dtype=dt).repeat(3, 1, 1) + med
        lower = eb._logits_cumulative(samples - 0.5, stop_gradient=True)
        upper = eb._logits_cumulative(samples + 0.5, stop_gradient=True)
        sign = -lib.sign(lower + upper)
        pmf = lib.abs(lib.sigmoid(sign * upper) - lib.sigmoid(sign * lower))[:, 0, :]
        tail = lib.sigmoid(lower[:, 0, :1]) + lib.sigmoid(-upper[:, 0, -1:])
    rec("pmf", pmf)
    rec("tail", tail)


def _gaussian_conditional(lib, dt):
    LB = _lower_bound_fn(lib)

    def get_scale_table(mn=0.11, mx=256, levels=64):
        # in the program's dtype: float32 exp is an ulp off torch's in a quarter of the values
        return lib.exp(lib.linspace(math.log(mn), math.log(mx), levels, dtype=dt))

    class GaussianConditional(lib.nn.Module):
        def __init__(self, scale_table, scale_bound=0.11, likelihood_bound=1e-9):
            super().__init__()
            self.register_buffer("scale_table", scale_table.to(dt))
            self.register_buffer("scale_bound", lib.tensor([scale_bound], dtype=dt))
            self.likelihood_bound = likelihood_bound

        @staticmethod
        def _standardized_cumulative(x):
            half = 0.5
            const = -(2**-0.5)
            return half * lib.erfc(const * x)

        def _likelihood(self, x, scales, means=None):
            values = x - means if means is not None else x
            scales = LB.apply(scales, self.scale_bound)
            values = lib.abs(values)
            upper = self._standardized_cumulative((0.5 - values) / scales)
            lower = self._standardized_cumulative((-0.5 - values) / scales)
            return upper - lower

        def build_indexes(self, scales):
            scales = LB.apply(scales, self.scale_bound)
            idx = scales.new_full(scales.size(), len(self.scale_table) - 1).int()
            for s in self.scale_table[:-1]:
                idx -= (scales <= s).int()
            return idx

        def forward(self, x, scales, means=None, training=True):
            if training:
                out = x + lib.empty_like(x).uniform_(-0.5, 0.5)
            else:
                m = means if means is not None else 0
                out = lib.round(x - m) + m
            like = self._likelihood(out, scales, means)
            like = LB.apply(like, lib.tensor(self.likelihood_bound, dtype=dt))
            return out, like

    return GaussianConditional, get_scale_table


def p_gaussian_conditional(lib, dt, rec):
    lib.manual_seed(8)
    GC, table = _gaussian_conditional(lib, dt)
    t = table()
    rec("table", t)
    rec("table_dtype", str(t.dtype))
    gc = GC(t)
    y = (lib.randn(2, 4, 3, 3, dtype=dt) * 4).requires_grad_()
    scales = (lib.rand(2, 4, 3, 3, dtype=dt) * 5).requires_grad_()
    means = (lib.randn(2, 4, 3, 3, dtype=dt) * 0.5).requires_grad_()
    yh, like = gc(y, scales, means)
    rec("yh", yh)
    rec("like", like)
    bits = lib.log(like).sum() / -math.log(2)
    rec("bits", bits)
    gy, gs, gm = lib.autograd.grad(bits, [y, scales, means], create_graph=True)
    rec("gy", gy)
    rec("gs", gs)
    rec("gm", gm)
    (ggs,) = lib.autograd.grad(gs.sum(), scales)
    rec("ggs", ggs)
    with lib.no_grad():
        yq, like_q = gc(y, scales, means, training=False)
    rec("yq", yq)
    rec("like_q", like_q)
    rec("log2_bits", -lib.log2(like_q).sum())
    idx = gc.build_indexes(scales.detach())
    rec("idx", idx)
    rec("idx_dtype", str(idx.dtype))
    idx2 = lib.bucketize(scales.detach().clamp(min=0.11), t[:-1].contiguous())
    rec("idx_bucket", idx2)
    rec("erfc_tail", lib.erfc(lib.tensor([3.0, 6.0, 10.0, 27.0, -3.0], dtype=dt)))
    rec("erfcx", lib.special.erfcx(lib.tensor([3.0, 10.0, 30.0], dtype=dt)))
    rec("ndtr", lib.special.ndtr(lib.tensor([-8.0, -1.0, 0.0, 2.0], dtype=dt)))
    rec("log_ndtr", lib.special.log_ndtr(lib.tensor([-40.0, -8.0, 0.0, 2.0], dtype=dt)))
    # the same likelihood through Normal.cdf
    N = lib.distributions.Normal(means.detach(), scales.detach().clamp(min=0.11))
    p = N.cdf(yq + 0.5) - N.cdf(yq - 0.5)
    rec("normal_like", p.clamp(min=1e-9))
    # Laplace conditional
    Lp = lib.distributions.Laplace(means.detach(), scales.detach().clamp(min=0.11))
    rec("laplace_like", (Lp.cdf(yq + 0.5) - Lp.cdf(yq - 0.5)).clamp(min=1e-9))


def p_hyperprior(lib, dt, rec):
    """A scale hyperprior (Balle et al. 2018) in miniature: g_a/g_s with strided conv and
    pixel_shuffle/unshuffle, h_a/h_s predicting scales, an entropy bottleneck on z and a Gaussian
    conditional on y, trained a few Adam steps on rate + lambda * distortion."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    EB = _entropy_bottleneck(lib, dt)
    GC, table = _gaussian_conditional(lib, dt)
    GDN = _gdn(lib, dt)
    N, M = 4, 6

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.g_a = nn.Sequential(
                nn.Conv2d(3, N, 3, stride=2, padding=1), GDN(N), nn.Conv2d(N, M, 3, 2, 1)
            )
            self.g_s = nn.Sequential(
                nn.Conv2d(M, N * 4, 3, padding=1),
                nn.PixelShuffle(2),
                GDN(N, inverse=True),
                nn.ConvTranspose2d(N, 3, 4, stride=2, padding=1),
            )
            self.h_a = nn.Sequential(
                nn.Conv2d(M, N, 3, 1, 1), nn.LeakyReLU(inplace=True), nn.Conv2d(N, N, 3, 2, 1)
            )
            self.h_s = nn.Sequential(
                nn.ConvTranspose2d(N, N, 3, 2, 1, output_padding=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(N, M, 3, 1, 1),
                nn.ReLU(),
            )
            self.eb = EB(N)
            self.gc = GC(table())

        def forward(self, x, training=True):
            y = self.g_a(x)
            z = self.h_a(lib.abs(y))
            z_hat, z_like = self.eb(z, training)
            scales = self.h_s(z_hat)
            y_hat, y_like = self.gc(y, scales, training=training)
            x_hat = self.g_s(y_hat)
            return x_hat, y_like, z_like

    net = Net().to(dt)
    main = [p for n, p in net.named_parameters() if not n.endswith("quantiles")]
    opt = lib.optim.Adam(main, lr=1e-3)
    x = lib.rand(2, 3, 16, 16, dtype=dt)
    lmbda = 0.01
    npx = 2 * 16 * 16
    for _ in range(3):
        x_hat, y_like, z_like = net(x)
        bpp = sum(lib.log(lk).sum() / (-math.log(2) * npx) for lk in (y_like, z_like))
        mse = F.mse_loss(x_hat, x)
        loss = lmbda * 255**2 * mse + bpp
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(main, 1.0)
        opt.step()
        rec("loss", loss)
        rec("bpp", bpp)
        rec("mse", mse)
        rec("shapes", str([tuple(t.shape) for t in (x_hat, y_like, z_like)]))
    net.eval()
    with lib.no_grad():
        x_hat, y_like, z_like = net(x, training=False)
        psnr = 10 * lib.log10(1 / F.mse_loss(x_hat.clamp(0, 1), x))
    rec("psnr", psnr)
    rec("y_like", y_like)
    rec.params("gs", net.g_s, grads=True)
    # pixel_unshuffle round trip and space-to-depth via reshape/permute
    t = lib.arange(2 * 3 * 4 * 4, dtype=dt).reshape(2, 3, 4, 4)
    u = F.pixel_unshuffle(t, 2)
    rec("unshuffle", u)
    rec("shuffle_back", str(lib.equal(F.pixel_shuffle(u, 2), t)))
    s2d = t.reshape(2, 3, 2, 2, 2, 2).permute(0, 1, 3, 5, 2, 4).reshape(2, 12, 2, 2)
    rec("s2d", str(lib.equal(s2d, u)))
    rec.err("e_shuffle", lambda: F.pixel_shuffle(t, 3))
    rec.err("e_unshuffle", lambda: F.pixel_unshuffle(t, 3))


def p_freq_tables(lib, dt, rec):
    """Quantised CDF tables for a range coder: pmf -> integer frequencies with a floor of one,
    renormalised to a fixed total, cumulative table, symbol lookup with searchsorted."""
    lib.manual_seed(10)
    precision = 16
    total = 1 << precision
    logits = lib.randn(3, 12, dtype=dt) * 2
    pmf = lib.softmax(logits, dim=-1)
    tail = lib.tensor([1e-6, 1e-3, 0.0], dtype=dt)
    pmf = lib.cat([pmf * (1 - tail[:, None]), tail[:, None]], dim=1)
    rec("pmf_sum", pmf.sum(-1))
    freq = lib.round(pmf * total).to(lib.int32)
    freq = lib.clamp(freq, min=1)
    rec("freq", freq)
    excess = freq.sum(-1) - total
    rec("excess", excess)
    # take the excess from the most probable symbol
    top = freq.argmax(-1)
    freq = freq.scatter_add(1, top[:, None], -excess[:, None].to(lib.int32))
    rec("freq_fixed", freq)
    rec("freq_total", freq.sum(-1))
    cdf = lib.zeros(3, freq.size(1) + 1, dtype=lib.int32)
    cdf[:, 1:] = lib.cumsum(freq, dim=1)
    rec("cdf", cdf)
    rec("cdf_dtype", str(lib.cumsum(freq, dim=1).dtype))
    # decode: find the symbol whose interval holds a target count
    targets = lib.randint(0, total, (3, 5), dtype=lib.int32)
    sym = lib.searchsorted(cdf, targets, right=True) - 1
    rec("sym", sym)
    rec("sym_dtype", str(sym.dtype))
    lo = lib.gather(cdf, 1, sym)
    hi = lib.gather(cdf, 1, sym + 1)
    rec("inside", str(bool(((lo <= targets) & (targets < hi)).all())))
    rec("sym32", lib.searchsorted(cdf, targets, right=True, out_int32=True))
    rec("side_left", lib.searchsorted(cdf[0], lib.tensor([0, 1, total], dtype=lib.int32)))
    rec("side_right", lib.searchsorted(cdf[0], lib.tensor([0, total]), side="right"))
    # information content of the quantised model vs the float one
    p_q = freq.to(dt) / total
    ent_f = -(pmf * lib.log2(pmf)).nan_to_num().sum(-1)
    ent_q = -(p_q * lib.log2(p_q)).sum(-1)
    rec("ent_f", ent_f)
    rec("ent_q", ent_q)
    rec("kl", lib.nn.functional.kl_div(p_q.log(), pmf, reduction="none").sum(-1))
    # the bits a message costs
    msg = lib.multinomial(pmf[0], 20, replacement=True)
    rec("msg", msg)
    rec("cost", -lib.log2(p_q[0, msg]).sum())
    # unsorted searchsorted with a sorter, and bucketize on an int table
    perm = lib.randperm(13)
    shuffled = cdf[0, :13][perm]
    rec("sorter", lib.searchsorted(shuffled, targets[0], sorter=lib.argsort(shuffled)))
    rec("bucketize", lib.bucketize(targets[0], cdf[0], right=True))
    rec.err("e_dtype", lambda: lib.searchsorted(cdf.float(), targets))
    rec.err("e_shape", lambda: lib.searchsorted(cdf, targets[:2]))


def p_vq(lib, dt, rec):
    """VQ-VAE quantiser with a straight-through gradient and commitment loss, then the EMA
    codebook variant (Laplace-smoothed cluster sizes), residual VQ and product VQ."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    K, D = 8, 4
    emb = nn.Embedding(K, D).to(dt)
    emb.weight.data.uniform_(-1 / K, 1 / K)
    enc = nn.Linear(6, D).to(dt)
    x = lib.randn(10, 6, dtype=dt)
    opt = lib.optim.Adam(list(enc.parameters()) + list(emb.parameters()), lr=1e-2)
    for _ in range(3):
        z = enc(x)
        d = z.pow(2).sum(1, keepdim=True) - 2 * z @ emb.weight.t() + emb.weight.pow(2).sum(1)
        idx = d.argmin(1)
        idx2 = lib.cdist(z, emb.weight).argmin(1)
        zq = emb(idx)
        loss = F.mse_loss(zq, z.detach()) + 0.25 * F.mse_loss(z, zq.detach())
        zq_st = z + (zq - z).detach()
        loss = loss + zq_st.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("idx", idx)
        rec("idx_same", str(lib.equal(idx, idx2)))
        rec("loss", loss)
        rec("g_emb", emb.weight.grad)
        enc_oh = F.one_hot(idx, K).to(dt)
        avg = enc_oh.mean(0)
        rec("perplexity", lib.exp(-lib.sum(avg * lib.log(avg + 1e-10))))
    # EMA codebook
    decay, eps = 0.9, 1e-5
    codebook = lib.randn(K, D, dtype=dt)
    cluster_size = lib.zeros(K, dtype=dt)
    embed_avg = codebook.clone()
    for step in range(4):
        z = lib.randn(32, D, dtype=dt) + step * 0.1
        dist = lib.cdist(z, codebook, p=2.0)
        idx = lib.argmin(dist, dim=1)
        onehot = F.one_hot(idx, K).type(dt)
        cluster_size.mul_(decay).add_(onehot.sum(0), alpha=1 - decay)
        embed_sum = onehot.t() @ z
        embed_avg.mul_(decay).add_(embed_sum, alpha=1 - decay)
        n = cluster_size.sum()
        smoothed = (cluster_size + eps) / (n + K * eps) * n
        codebook.copy_(embed_avg / smoothed.unsqueeze(1))
        rec("ema_idx", idx)
        rec("cluster", cluster_size)
        rec("codebook", codebook)
        # the same counts by bincount and index_add_
        counts = lib.bincount(idx, minlength=K)
        rec("bincount", counts)
        sums = lib.zeros(K, D, dtype=dt).index_add_(0, idx, z)
        rec("index_add", sums)
        sums2 = lib.zeros(K, D, dtype=dt).scatter_add_(0, idx[:, None].expand(-1, D), z)
        rec("scatter_add", str(lib.allclose(sums, sums2)))
        # dead-code restart
        dead = cluster_size < 1.0
        if bool(dead.any()):
            codebook[dead] = z[: int(dead.sum())]
        rec("dead", dead)
    # residual VQ: 3 stages, each quantising the previous residual
    books = [lib.randn(K, D, dtype=dt) * (0.5**i) for i in range(3)]
    z = lib.randn(6, D, dtype=dt, requires_grad=True)
    residual = z
    out = lib.zeros_like(z)
    codes = []
    for b in books:
        i = lib.cdist(residual.detach(), b).argmin(-1)
        q = F.embedding(i, b)
        out = out + q
        residual = residual - q
        codes.append(i)
    rec("rvq_codes", lib.stack(codes, -1))
    rec("rvq_err", (z - out).norm(dim=-1))
    zq = z + (out - z).detach()
    zq.pow(2).sum().backward()
    rec("rvq_grad", z.grad)
    # product VQ: split the vector into 2 groups with their own codebooks
    zz = lib.randn(5, 2 * D, dtype=dt)
    groups = zz.view(5, 2, D).transpose(0, 1)
    pbooks = lib.randn(2, K, D, dtype=dt)
    dist = lib.cdist(groups, pbooks)
    rec("pq_dist", dist)
    pidx = dist.argmin(-1)
    q = lib.gather(pbooks, 1, pidx[..., None].expand(-1, -1, D))
    rec("pq", q.transpose(0, 1).reshape(5, 2 * D))
    rec("cdist_p1", lib.cdist(zz, zz[:3], p=1))
    rec("cdist_inf", lib.cdist(zz, zz[:3], p=float("inf")))
    # (not against its own rows: the product form's distance of a point to itself is the root of
    # the rounding noise of its sums, whose order differs from torch's)
    far = zz[:3] + 1.0
    rec("cdist_mm", lib.cdist(zz, far, compute_mode="use_mm_for_euclid_dist"))
    rec.err("e_cdist", lambda: lib.cdist(zz, zz[:, :3]))


def p_context_model(lib, dt, rec):
    """An autoregressive context model (Minnen et al. 2018): a masked 5x5 convolution whose
    weight is multiplied by a type-A mask buffer in forward, entropy parameters by 1x1 convs,
    Gaussian likelihoods; the image padded to a multiple of 8 and cropped back."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)

    class MaskedConv2d(nn.Conv2d):
        def __init__(self, *args, mask_type="A", **kwargs):
            super().__init__(*args, **kwargs)
            self.register_buffer("mask", lib.ones_like(self.weight.data))
            _, _, h, w = self.mask.size()
            self.mask[:, :, h // 2, w // 2 + (mask_type == "B") :] = 0
            self.mask[:, :, h // 2 + 1 :] = 0

        def forward(self, x):
            self.weight.data *= self.mask
            return super().forward(x)

    M = 4
    ctx = MaskedConv2d(M, 2 * M, 5, padding=2, stride=1).to(dt)
    ep = nn.Sequential(nn.Conv2d(2 * M, 3 * M, 1), nn.LeakyReLU(), nn.Conv2d(3 * M, 2 * M, 1)).to(
        dt
    )
    rec("mask", ctx.mask[0, 0])
    y = lib.randn(1, M, 6, 6, dtype=dt) * 2
    opt = lib.optim.SGD(list(ctx.parameters()) + list(ep.parameters()), lr=0.05, momentum=0.9)
    for _ in range(3):
        y_hat = y + lib.rand_like(y) - 0.5
        params = ep(ctx(y_hat))
        means, scales = params.chunk(2, 1)
        scales = F.softplus(scales) + 0.11
        dist = lib.distributions.Normal(means, scales)
        like = (dist.cdf(y_hat + 0.5) - dist.cdf(y_hat - 0.5)).clamp_min(1e-9)
        bits = -lib.log2(like).sum()
        opt.zero_grad()
        bits.backward()
        opt.step()
        rec("bits", bits)
        rec("g_w", ctx.weight.grad[0, 0])
    rec("w_masked", (ctx.weight.data * (1 - ctx.mask)).abs().sum())
    # causality: changing a later position leaves earlier outputs unchanged
    with lib.no_grad():
        a = ctx(y)
        y2 = y.clone()
        y2[..., 3, 3] += 10
        b = ctx(y2)
    changed = (a - b).abs().sum(1)[0] > 0
    rec("changed", changed)
    # padding an image to a multiple of 8 and cropping back
    x = lib.rand(1, 3, 13, 10, dtype=dt)
    h, w = x.shape[2:]
    p = 8
    H, W = (h + p - 1) // p * p, (w + p - 1) // p * p
    pad = (0, W - w, 0, H - h)
    for mode in ("constant", "replicate", "reflect"):
        xp = F.pad(x, pad, mode=mode)
        rec("pad_" + mode, xp[..., -4:, -4:])
        rec("crop_" + mode, str(lib.equal(xp[..., :h, :w], x)))
    pad2 = ((W - w) // 2, W - w - (W - w) // 2, (H - h) // 2, H - h - (H - h) // 2)
    xc = F.pad(x, pad2, mode="constant", value=0.5)
    rec("centre", xc.mean())
    back = F.pad(xc, [-v for v in pad2])
    rec("unpad", str(lib.equal(back, x)))
    rec(
        "out_size",
        str(tuple(nn.ConvTranspose2d(3, 3, 5, 2, 2).to(dt)(x, output_size=[26, 20]).shape)),
    )
    rec.err(
        "e_out_size",
        lambda: nn.ConvTranspose2d(3, 3, 5, 2, 2).to(dt)(x, output_size=[30, 20]),
    )


def p_parametrize_nonneg(lib, dt, rec):
    """Non-negative and bounded weights through torch.nn.utils.parametrize, the way a GDN or an
    entropy model can be written without a hand-made reparametriser."""
    nn = lib.nn
    P = lib.nn.utils.parametrize
    lib.manual_seed(13)
    LB = _lower_bound_fn(lib)

    class NonNeg(nn.Module):
        def __init__(self, minimum=0.0, offset=2**-18):
            super().__init__()
            self.pedestal = offset**2
            self.register_buffer("bound", lib.tensor((minimum + self.pedestal) ** 0.5, dtype=dt))

        def forward(self, x):
            return LB.apply(x, self.bound) ** 2 - self.pedestal

        def right_inverse(self, x):
            return lib.sqrt(lib.clamp(x + self.pedestal, min=self.pedestal))

    conv = nn.Conv2d(3, 3, 1).to(dt)
    P.register_parametrization(conv, "weight", NonNeg())
    P.register_parametrization(conv, "bias", NonNeg(minimum=1e-6))
    rec("is_param", str(P.is_parametrized(conv)))
    rec("is_param_w", str(P.is_parametrized(conv, "weight")))
    rec("names", str(sorted(n for n, _ in conv.named_parameters())))
    rec("w", conv.weight)
    rec("orig", conv.parametrizations.weight.original)
    with lib.no_grad():
        conv.weight = 0.1 * lib.eye(3, dtype=dt).reshape(3, 3, 1, 1) + 0.01
        conv.bias = lib.ones(3, dtype=dt)
    rec("w_set", conv.weight)
    rec("orig_set", conv.parametrizations.weight.original)
    opt = lib.optim.Adam(conv.parameters(), lr=0.05)
    x = lib.randn(2, 3, 4, 4, dtype=dt)
    for _ in range(3):
        out = x * lib.rsqrt(conv(x**2))
        loss = (out - x.tanh()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("g_orig", conv.parametrizations.weight.original.grad)
    with P.cached():
        a = conv.weight
        b = conv.weight
        rec("cached_same", str(a is b))
    rec("min_w", conv.weight.min())
    sd = conv.state_dict()
    rec("sd", str(list(sd.keys())))
    P.remove_parametrizations(conv, "weight", leave_parametrized=True)
    rec("after_remove", str(sorted(n for n, _ in conv.named_parameters())))
    rec("w_after", conv.weight)
    rec.err("e_remove", lambda: P.remove_parametrizations(conv, "weight"))


def p_half_weights(lib, dt, rec):
    """Storing weights in half precision: the rounding error, overflow to inf, subnormals, a
    half model's state_dict round-tripped through save/load, mixed-dtype errors."""
    import io

    nn = lib.nn
    lib.manual_seed(14)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(dt)
    with lib.no_grad():
        model[0].weight[0, :3] = lib.tensor([70000.0, 1e-6, 3e-8], dtype=dt)
    x = lib.randn(5, 8, dtype=dt)
    ref = model(x)
    half = [p.detach().half() for p in model.parameters()]
    rec("half0", half[0][0])
    with lib.no_grad():
        errs = [
            ((h.to(dt) - p) / p.abs().clamp_min(1e-3)).abs().max()
            for h, p in zip(half, model.parameters(), strict=True)
        ]
    rec("err", lib.stack(errs[1:]))
    rec("isinf", lib.isinf(half[0]).sum())
    rec("subnormal", (half[0].abs() < lib.finfo(lib.float16).tiny).sum())
    m16 = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    m16.load_state_dict(model.state_dict())
    m16.half()
    rec("dtypes", str({str(p.dtype) for p in m16.parameters()}))
    with lib.no_grad():
        m16[0].weight[0, 0] = 1.0
        out16 = m16(x.half())
    rec("out16", out16)
    rec.err("e_mixed", lambda: m16(x))
    buf = io.BytesIO()
    lib.save(m16.state_dict(), buf)
    buf.seek(0)
    sd = lib.load(buf)
    rec("loaded", str({k: str(v.dtype) for k, v in sd.items()}))
    back = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(dt)
    back.load_state_dict(sd)
    rec("back_dtype", str(back[0].weight.dtype))
    rec("back", back[2].weight)
    with lib.no_grad():
        model[0].weight[0, 0] = 1.0
    rec("drift", (back(x) - model(x)).abs().max())
    rec("ref", ref)
    # rounding of a weight to float16 and back, by hand
    w = lib.tensor([0.1, 0.2, 0.3, 1 / 3, 2049.0, 2051.0, 65504.0, 65520.0, -6.1e-5], dtype=dt)
    rec("w16", w.half())
    rec("w16_back", w.half().to(dt) - w)
    rec("w16_repr", repr(w.half()))
    rec("spacing", lib.nextafter(w.half(), lib.tensor(float("inf"), dtype=lib.float16)) - w.half())
    # int8 weights with a per-row scale in a state_dict
    scale = model[0].weight.detach().abs().amax(1, keepdim=True) / 127
    q = lib.round(model[0].weight.detach() / scale).clamp(-127, 127).to(lib.int8)
    buf = io.BytesIO()
    lib.save({"q": q, "scale": scale.float()}, buf)
    buf.seek(0)
    got = lib.load(buf)
    rec("q_loaded", got["q"])
    rec("q_dtype", str(got["q"].dtype))
    rec("deq", got["q"].to(dt) * got["scale"].to(dt))


def p_qat_conv_bn(lib, dt, rec):
    """Quantisation-aware training of a conv + batch norm block: per-channel weight fake
    quantisation on the BN-folded weight (the running-statistics folding of QAT), per-tensor
    activation fake quantisation with an EMA observer, then the folded integer model."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(15)

    class ConvBnQAT(nn.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(cout, momentum=0.1)
            self.register_buffer("act_min", lib.tensor(0.0))
            self.register_buffer("act_max", lib.tensor(0.0))
            self.register_buffer("seen", lib.tensor(0, dtype=lib.long))

        def folded(self):
            std = lib.sqrt(self.bn.running_var + self.bn.eps)
            factor = self.bn.weight / std
            w = self.conv.weight * factor.reshape(-1, 1, 1, 1)
            b = self.bn.bias - self.bn.running_mean * factor
            return w, b, factor

        def forward(self, x):
            w, _, factor = self.folded()
            amax = w.detach().abs().amax(dim=(1, 2, 3))
            scale = (amax / 127).clamp_min(1e-8).float()
            zp = lib.zeros(w.size(0), dtype=lib.int32)
            wq = lib.fake_quantize_per_channel_affine(w, scale, zp, 0, -127, 127)
            y = F.conv2d(x, wq, padding=1) / factor.reshape(1, -1, 1, 1)
            y = self.bn(y)
            y = F.relu(y)
            if self.training:
                with lib.no_grad():
                    mn, mx = lib.aminmax(y.detach())
                    if int(self.seen) == 0:
                        self.act_min.copy_(mn)
                        self.act_max.copy_(mx)
                    else:
                        self.act_min.lerp_(mn, 0.01)
                        self.act_max.lerp_(mx, 0.01)
                    self.seen += 1
            s = ((self.act_max - self.act_min) / 255).clamp_min(1e-8).float()
            z = lib.clamp(-lib.round(self.act_min / s), 0, 255).int()
            return lib.fake_quantize_per_tensor_affine(y, s, z, 0, 255)

    blk = nn.Sequential(ConvBnQAT(3, 4), ConvBnQAT(4, 4)).to(dt)
    head = nn.Linear(4, 2).to(dt)
    params = list(blk.parameters()) + list(head.parameters())
    opt = lib.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)
    x = lib.randn(4, 3, 6, 6, dtype=dt)
    t = lib.randint(0, 2, (4,))
    for _ in range(4):
        feat = blk(x).mean(dim=(2, 3))
        loss = F.cross_entropy(head(feat), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("g_w", blk[0].conv.weight.grad[0, 0])
        rec("rm", blk[0].bn.running_mean)
        rec("act", lib.stack([blk[1].act_min, blk[1].act_max]))
    blk.eval()
    with lib.no_grad():
        out_eval = blk(x)
        w, b, _ = blk[0].folded()
        rec("folded_w", w[0, 0])
        rec("folded_b", b)
        # the folded float conv equals conv + bn in eval mode
        ref = blk[0].bn(blk[0].conv(x))
        rec("fold_ok", (F.conv2d(x, w, b, padding=1) - ref).abs().max())
    rec("out_eval", out_eval[0, 0])
    rec("levels", lib.unique(out_eval).numel())
    rec("seen", blk[0].seen)
    rec("sd", str(list(blk.state_dict().keys())[:8]))


def p_soft_to_hard(lib, dt, rec):
    """Soft-to-hard vector quantisation (Agustsson et al.): a softmax over negative squared
    distances to learned centres with an annealed temperature, the hard assignment in the
    forward pass and the soft one's gradient."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(16)
    L = 5
    centers = nn.Parameter(lib.linspace(-2, 2, L, dtype=dt))
    enc = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    dec = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4)).to(dt)
    opt = lib.optim.AdamW(list(enc.parameters()) + list(dec.parameters()) + [centers], lr=1e-2)
    x = lib.randn(16, 4, dtype=dt)
    for it in range(4):
        sigma = 1.0 * (1.5**it)
        z = enc(x)
        d = (z.unsqueeze(-1) - centers) ** 2
        phi = F.softmax(-sigma * d, dim=-1)
        soft = (phi * centers).sum(-1)
        hard_idx = d.argmin(-1)
        hard = centers[hard_idx]
        zq = soft + (hard - soft).detach()
        xr = dec(zq)
        hist = phi.mean(dim=(0, 1))
        ent = -(hist * lib.log2(hist + 1e-12)).sum()
        loss = F.mse_loss(xr, x) + 0.1 * ent
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("ent", ent)
        rec("idx", hard_idx)
        rec("g_c", centers.grad)
        rec("centers", centers)
    # sorted centres stay sorted? sort and the inverse permutation
    srt, order = lib.sort(centers.detach())
    inv = lib.empty_like(order)
    inv[order] = lib.arange(L)
    rec("order", order)
    rec("inv", inv)
    rec("argsort_stable", lib.argsort(lib.tensor([2, 1, 2, 1, 0]), stable=True))
    # temperature-scaled log-softmax assignment entropy per sample
    logp = F.log_softmax(-5.0 * d.detach(), dim=-1)
    rec("sample_ent", -(logp.exp() * logp).sum(-1).mean(-1))


def p_noise_proxy(lib, dt, rec):
    """Additive uniform noise as a differentiable proxy for rounding: the two's statistics,
    the mixed straight-through variant (noise for the rate, rounding for the decoder), and
    the universal-quantisation trick of a shared dither."""
    lib.manual_seed(17)
    y = (lib.randn(4000, dtype=dt) * 3).requires_grad_()
    u = lib.empty_like(y).uniform_(-0.5, 0.5)
    noisy = y + u
    rounded = lib.round(y)
    ste = y + (rounded - y).detach()
    rec("u_stats", lib.stack([u.mean(), u.var(), u.min(), u.max()]))
    rec("err_noise", (noisy - y).pow(2).mean())
    rec("err_round", (rounded - y).pow(2).mean())
    rec("var_unbiased", lib.var(rounded - y, unbiased=True))
    rec("var_corr0", lib.var(rounded - y, correction=0))
    rec("std_mean", lib.stack(lib.std_mean(noisy.detach() - y.detach())))
    rec("var_mean", lib.cat(lib.var_mean(noisy.detach() - y.detach(), dim=0, keepdim=True)))
    loss = (noisy**2).mean() + (ste - 1).abs().mean()
    loss.backward()
    rec("grad", y.grad[:10])
    # the dither shared by encoder and decoder: round(y - u) + u
    g = lib.Generator().manual_seed(123)
    dither = lib.rand(y.shape, generator=g, dtype=dt) - 0.5
    g2 = lib.Generator()
    g2.set_state(lib.Generator().manual_seed(123).get_state())
    dither2 = lib.rand(y.shape, generator=g2, dtype=dt) - 0.5
    rec("same_dither", str(lib.equal(dither, dither2)))
    uq = lib.round(y.detach() - dither) + dither
    rec("uq_err", lib.stack([(uq - y).mean(), (uq - y).var()]))
    rec("uq_hist", lib.histc(uq - y.detach(), bins=10, min=-0.5, max=0.5))
    # fork_rng leaves the global stream untouched
    with lib.random.fork_rng():
        lib.rand(3)
    rec("after_fork", lib.rand(3, dtype=dt))
    rec(
        "distribution_noise",
        lib.distributions.Uniform(lib.tensor(-0.5, dtype=dt), lib.tensor(0.5, dtype=dt)).sample(
            (4,)
        ),
    )
    rec("bernoulli_mask", lib.bernoulli(lib.full((8,), 0.3, dtype=dt)))


def _dct_matrix(lib, dt, n=8):
    k = lib.arange(n, dtype=dt)
    m = lib.cos(math.pi * (2 * k[None, :] + 1) * k[:, None] / (2 * n)) * math.sqrt(2 / n)
    m[0] /= math.sqrt(2)
    return m


def p_jpeg_blocks(lib, dt, rec):
    """JPEG-style transform coding: colour conversion, 8x8 blocks by unfold, an orthonormal DCT
    by matrix products, a scaled quantisation table, the differentiable-JPEG rounding
    approximation, zigzag order, run lengths of zeros, and the inverse by fold."""
    F = lib.nn.functional
    lib.manual_seed(18)
    img = lib.rand(1, 3, 16, 24, dtype=dt) * 255
    rgb2ycc = lib.tensor(
        [[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]],
        dtype=dt,
    )
    ycc = lib.einsum("ij,bjhw->bihw", rgb2ycc, img) + lib.tensor([0, 128, 128], dtype=dt).view(
        1, 3, 1, 1
    )
    rec("ycc", ycc[0, :, :2, :2])
    # chroma subsampling by 2x2 average pooling, upsampled back
    chroma = F.avg_pool2d(ycc[:, 1:], 2)
    up = F.interpolate(chroma, scale_factor=2, mode="nearest")
    rec("chroma_err", (up - ycc[:, 1:]).abs().mean())
    rec(
        "bilinear",
        F.interpolate(chroma, size=(16, 24), mode="bilinear", align_corners=False)[0, 0, :2],
    )
    y = ycc[:, :1] - 128
    blocks = F.unfold(y, kernel_size=8, stride=8)  # (1, 64, L)
    L = blocks.shape[-1]
    blocks = blocks.transpose(1, 2).reshape(L, 8, 8)
    D = _dct_matrix(lib, dt)
    rec("orth", (D @ D.T - lib.eye(8, dtype=dt)).abs().max())
    coef = D @ blocks @ D.T
    rec("dc", coef[:, 0, 0])
    qtable = lib.tensor(
        [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57,
         69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64,
         81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99],
        dtype=dt,
    ).view(8, 8)  # fmt: skip
    quality = 75
    s = 5000 / quality if quality < 50 else 200 - 2 * quality
    qt = lib.clamp(lib.floor((qtable * s + 50) / 100), min=1)
    rec("qt", qt)
    q = lib.round(coef / qt)
    rec("q", q[0])
    approx = lib.round(coef / qt) + (coef / qt - lib.round(coef / qt)) ** 3
    rec("approx_err", (approx - coef / qt).abs().max())
    # zigzag order by sorting anti-diagonals
    i, j = lib.meshgrid(lib.arange(8), lib.arange(8), indexing="ij")
    s_ = i + j
    key = s_ * 64 + lib.where(s_ % 2 == 0, 7 - i, i) * 8
    zz = lib.argsort(key.flatten())
    rec("zigzag", zz)
    seq = q.reshape(L, 64)[:, zz].to(lib.int64)
    rec("seq0", seq[0])
    nz = (seq != 0).sum(-1)
    rec("nonzeros", nz)
    # run lengths of zeros before each nonzero AC coefficient, for the first block
    ac = seq[0, 1:]
    pos = lib.nonzero(ac).flatten()
    runs = lib.diff(pos, prepend=lib.tensor([-1])) - 1
    rec("runs", runs)
    rec("eob", str(int(pos[-1]) if pos.numel() else -1))
    # category (bit length) of each coefficient, as JPEG's Huffman coding uses
    mag = seq.abs()
    cat = lib.where(
        mag > 0, lib.floor(lib.log2(mag.clamp(min=1).to(dt))) + 1, lib.zeros_like(mag, dtype=dt)
    )
    rec("cat", cat.to(lib.int64)[0])
    rec("bits", (cat.sum() + 4 * nz.sum()).to(dt))
    # decode: dequantise, inverse DCT, fold back, clamp to 8 bits
    rec_blocks = D.T @ (q * qt) @ D
    cols = rec_blocks.reshape(L, 64).transpose(0, 1).unsqueeze(0)
    y_hat = F.fold(cols, output_size=(16, 24), kernel_size=8, stride=8) + 128
    rec("y_hat", y_hat[0, 0, :2, :4])
    y8 = y_hat.round().clamp(0, 255).to(lib.uint8)
    rec("y8", y8[0, 0, 0])
    mse = F.mse_loss(y_hat, ycc[:, :1])
    rec("psnr", 10 * lib.log10(255**2 / mse))


def p_rans(lib, dt, rec):
    """A range-asymmetric-numeral-system coder on int64 tensors: per-symbol state updates with
    floor division and remainders, renormalisation by bit shifts into a 16-bit stream, and the
    decoder's symbol lookup by searchsorted on the cumulative table."""
    lib.manual_seed(19)
    prec = 12
    M = 1 << prec
    probs = lib.softmax(lib.randn(6, dtype=dt), 0)
    freq = lib.clamp(lib.round(probs * M).to(lib.int64), min=1)
    freq[freq.argmax()] -= int(freq.sum()) - M
    cdf = lib.cat([lib.zeros(1, dtype=lib.int64), freq.cumsum(0)])
    rec("freq", freq)
    rec("cdf", cdf)
    msg = lib.multinomial(probs, 40, replacement=True)
    rec("msg", msg)
    L = 1 << 23
    state = lib.tensor(L, dtype=lib.int64)
    stream = []
    for sym in reversed(msg.tolist()):
        f, c = freq[sym], cdf[sym]
        x_max = ((L >> prec) << 16) * f
        while bool(state >= x_max):
            stream.append(state & 0xFFFF)
            state = state >> 16
        state = (lib.div(state, f, rounding_mode="floor") << prec) + lib.remainder(state, f) + c
    rec("state", state)
    rec("stream", lib.stack(stream) if stream else lib.zeros(0, dtype=lib.int64))
    rec("n_words", len(stream))
    decoded = []
    for _ in range(msg.numel()):
        slot = state & (M - 1)
        sym = int(lib.searchsorted(cdf, slot, right=True)) - 1
        decoded.append(sym)
        state = freq[sym] * (state >> prec) + slot - cdf[sym]
        while bool(state < L):
            state = (state << 16) | stream.pop()
    rec("decoded", lib.tensor(decoded))
    rec("ok", str(decoded == msg.tolist()))
    rec("final_state", state)
    ideal = -lib.log2(probs[msg]).sum()
    rec("ideal_bits", ideal)
    rec("rate", (len(stream) * 16 + 32) / ideal)


def p_gradchecks(lib, dt, rec):
    """gradcheck and gradgradcheck (in float64 whatever dt is) of the codec's differentiable
    pieces: GDN, the factorised and Gaussian likelihoods, the fake quantiser away from its
    steps, cdist, pixel_shuffle and erfc; and torch's refusal of a non-double input."""
    F = lib.nn.functional
    f64 = lib.float64
    lib.manual_seed(20)
    GDN = _gdn(lib, f64)
    g = GDN(2)
    x = lib.randn(1, 2, 1, 2, dtype=f64, requires_grad=True)
    rec("gdn", str(lib.autograd.gradcheck(g, (x,))))
    rec("gdn2", str(lib.autograd.gradgradcheck(g, (x,))))
    EB = _entropy_bottleneck(lib, f64)
    eb = EB(2, filters=(2,))
    v = lib.randn(2, 1, 3, dtype=f64, requires_grad=True)
    rec("eb", str(lib.autograd.gradcheck(eb._likelihood, (v,))))
    rec("eb2", str(lib.autograd.gradgradcheck(eb._likelihood, (v,))))

    def gauss(y, s):
        c = -(2**-0.5)
        up = 0.5 * lib.erfc(c * (0.5 - y.abs()) / s)
        lo = 0.5 * lib.erfc(c * (-0.5 - y.abs()) / s)
        return (up - lo).log()

    y = (lib.rand(5, dtype=f64) + 0.2).requires_grad_()
    s = (lib.rand(5, dtype=f64) + 0.5).requires_grad_()
    rec("gauss", str(lib.autograd.gradcheck(gauss, (y, s))))
    rec("gauss2", str(lib.autograd.gradgradcheck(gauss, (y, s))))
    xq = (lib.arange(6, dtype=f64) * 0.1 + 0.02).requires_grad_()
    fq = lambda t: lib.fake_quantize_per_tensor_affine(t, 0.1, 0, -3, 3)  # noqa: E731
    # the straight-through gradient is not the (zero) numerical one
    try:
        lib.autograd.gradcheck(fq, (xq,), eps=1e-4)
        rec("fq", "passed")
    except Exception as exc:  # noqa: BLE001 - the exception is the record
        rec("fq", f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    rec("fq_noraise", str(lib.autograd.gradcheck(fq, (xq,), eps=1e-4, raise_exception=False)))
    a = lib.randn(4, 3, dtype=f64, requires_grad=True)
    b = lib.randn(2, 3, dtype=f64, requires_grad=True)
    rec("cdist", str(lib.autograd.gradcheck(lib.cdist, (a, b))))
    # (torch's direct form has no double backward; its matrix-product form has one)
    mm = lambda a, b: lib.cdist(a, b, compute_mode="use_mm_for_euclid_dist")  # noqa: E731
    rec("cdist2", str(lib.autograd.gradgradcheck(mm, (a, b))))
    ps = lib.randn(1, 8, 2, 2, dtype=f64, requires_grad=True)
    rec("pshuffle", str(lib.autograd.gradcheck(lambda t: F.pixel_shuffle(t, 2) ** 2, (ps,))))
    e = lib.randn(5, dtype=f64, requires_grad=True)
    rec("erfc2", str(lib.autograd.gradgradcheck(lib.erfc, (e,))))
    # float32 fails (its numerical derivative is rounding noise: only the first line compared)
    e32 = e.float().detach().requires_grad_()
    try:
        rec("f32", str(rec.warns("f32_warn", lambda: lib.autograd.gradcheck(lib.erfc, (e32,)))))
    except Exception as exc:  # noqa: BLE001 - the exception is the record
        rec("f32", f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    bad = lambda t: t.detach() * t  # noqa: E731
    rec.err("wrong", lambda: lib.autograd.gradcheck(bad, (e,), raise_exception=True))
    rec("wrong_noraise", str(lib.autograd.gradcheck(bad, (e,), raise_exception=False)))


def p_train_loop(lib, dt, rec):
    """CompressAI's training script in miniature: main and auxiliary optimisers split by
    parameter name, a rate-distortion loss module, ReduceLROnPlateau on the validation loss,
    gradient clipping, an EMA copy of the model by swa_utils.AveragedModel, weight_norm on the
    synthesis convs, and a checkpoint (model, both optimisers, scheduler) round trip."""
    import io

    nn = lib.nn
    lib.manual_seed(21)
    EB = _entropy_bottleneck(lib, dt)
    wn = lib.nn.utils.parametrizations.weight_norm

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.g_a = nn.Sequential(nn.Conv2d(3, 4, 3, 2, 1), nn.GELU(), nn.Conv2d(4, 4, 3, 2, 1))
            self.g_s = nn.Sequential(
                # built in dt: weight_norm takes the norm when applied, and torch's float32
                # norm is an ulp off the correctly rounded one here and there (summation order)
                wn(nn.ConvTranspose2d(4, 4, 4, 2, 1, dtype=dt)),
                nn.GELU(approximate="tanh"),
                wn(nn.ConvTranspose2d(4, 3, 4, 2, 1, dtype=dt)),
            )
            self.entropy_bottleneck = EB(4)

        def forward(self, x):
            y = self.g_a(x)
            y_hat, like = self.entropy_bottleneck(y, self.training)
            return {"x_hat": self.g_s(y_hat), "likelihoods": {"y": like}}

        def aux_loss(self):
            return self.entropy_bottleneck.loss()

    class RateDistortionLoss(nn.Module):
        def __init__(self, lmbda=1e-2):
            super().__init__()
            self.mse = nn.MSELoss()
            self.lmbda = lmbda

        def forward(self, output, target):
            N, _, H, W = target.size()
            out = {}
            num_pixels = N * H * W
            out["bpp_loss"] = sum(
                (lib.log(lk).sum() / (-math.log(2) * num_pixels))
                for lk in output["likelihoods"].values()
            )
            out["mse_loss"] = self.mse(output["x_hat"], target)
            out["loss"] = self.lmbda * 255**2 * out["mse_loss"] + out["bpp_loss"]
            return out

    net = Net().to(dt)
    params = {n for n, p in net.named_parameters() if not n.endswith(".quantiles")}
    aux_params = {n for n, p in net.named_parameters() if n.endswith(".quantiles")}
    pd = dict(net.named_parameters())
    rec("inter", str(len(params & aux_params)))
    rec("union", str(len(params | aux_params) == len(pd)))
    rec("wn_names", str(sorted(n for n in params if "g_s" in n)))
    opt = lib.optim.Adam((pd[n] for n in sorted(params)), lr=1e-3)
    aux_opt = lib.optim.Adam((pd[n] for n in sorted(aux_params)), lr=1e-2)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, "min", factor=0.5, patience=0)
    ema = lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    )
    crit = RateDistortionLoss()
    train = lib.rand(4, 3, 8, 8, dtype=dt)
    val = lib.rand(2, 3, 8, 8, dtype=dt)
    for _ in range(3):
        net.train()
        for i in range(2):
            batch = train[2 * i : 2 * i + 2]
            opt.zero_grad()
            aux_opt.zero_grad()
            out = crit(net(batch), batch)
            out["loss"].backward()
            norm = lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            aux = net.aux_loss()
            aux.backward()
            aux_opt.step()
            ema.update_parameters(net)
            rec("loss", out["loss"])
            rec("bpp", out["bpp_loss"])
            rec("norm", norm)
            rec("aux", aux)
        net.eval()
        with lib.no_grad():
            vl = crit(net(val), val)["loss"]
        sched.step(vl)
        rec("val", vl)
        rec("lr", opt.param_groups[0]["lr"])
    rec("n_averaged", ema.n_averaged)
    rec.params("ema", ema.module.g_s)
    buf = io.BytesIO()
    lib.save(
        {
            "epoch": 3,
            "state_dict": net.state_dict(),
            "optimizer": opt.state_dict(),
            "aux_optimizer": aux_opt.state_dict(),
            "lr_scheduler": sched.state_dict(),
        },
        buf,
    )
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    net2 = Net().to(dt)
    rec("load", str(net2.load_state_dict(ck["state_dict"])))
    opt2 = lib.optim.Adam((dict(net2.named_parameters())[n] for n in sorted(params)), lr=1e-3)
    opt2.load_state_dict(ck["optimizer"])
    sched2 = lib.optim.lr_scheduler.ReduceLROnPlateau(opt2, "min")
    sched2.load_state_dict(ck["lr_scheduler"])
    rec("sched", [sched2.best, sched2.num_bad_epochs, sched2.factor])
    rec("opt_step", opt2.state_dict()["state"][0]["step"])
    rec("lr2", opt2.param_groups[0]["lr"])
    net2.eval()
    with lib.no_grad():
        rec("same", (net2(val)["x_hat"] - net(val)["x_hat"]).abs().max())
    rec("sd_keys", str([k for k in ck["state_dict"] if "g_s.0" in k]))


def p_bf16_rounding(lib, dt, rec):
    """bfloat16 weights: round-to-nearest-even by .bfloat16(), the same by bit manipulation of
    the float32 pattern, stochastic rounding with random low bits, bf16 matmuls under CPU
    autocast, and a bf16 fake quantiser."""
    F = lib.nn.functional
    lib.manual_seed(22)
    w = lib.randn(64, dtype=dt) * lib.logspace(-3, 3, 64, dtype=dt)
    w32 = w.float()
    b = w32.bfloat16()
    rec("bf16", b)
    bits = w32.view(lib.int32)
    # round to nearest even on the upper 16 bits
    lsb = (bits >> 16) & 1
    rne = ((bits + 0x7FFF + lsb) >> 16) << 16
    rec("rne_same", str(lib.equal(rne.view(lib.float32), b.float())))
    rec("bits", (bits >> 16)[:8])
    # stochastic rounding: add a random 16-bit value, truncate
    noise = lib.randint(0, 1 << 16, w32.shape, dtype=lib.int32)
    sr = ((bits + noise) & -65536).view(lib.float32)
    rec("sr", sr)
    rec("sr_err", (sr.to(dt) - w).abs().max())
    trunc = (bits & ~0xFFFF).view(lib.float32)
    rec("trunc_le", str(bool((trunc.abs() <= w32.abs()).all())))
    # bf16 model
    lin = lib.nn.Linear(8, 4).to(dt)
    x = lib.randn(3, 8, dtype=dt)
    ref = lin(x)
    lin_bf = lib.nn.Linear(8, 4).bfloat16()
    lin_bf.load_state_dict(lin.state_dict())
    rec("bf_dtype", str(lin_bf.weight.dtype))
    out_bf = lin_bf(x.bfloat16())
    rec("out_bf", out_bf)
    rec("bf_err", (out_bf.to(dt) - ref).abs().max())
    with lib.autocast("cpu", dtype=lib.bfloat16):
        y = lin_bf.float()(x.float())
        z = F.softmax(y, -1)
    rec("ac_dtypes", str((y.dtype, z.dtype)))
    rec("ac_y", y)
    rec("bf_repr", repr(lib.tensor([0.1, 1000.5, 3.0e38, 1e-40], dtype=lib.bfloat16)))
    fi = lib.finfo(lib.bfloat16)
    rec("finfo", [fi.eps, fi.max, fi.tiny, fi.resolution])
    rec("fq_bf16", lib.fake_quantize_per_tensor_affine(b, 0.05, 0, -128, 127))
    rec("bf_sum", b.sum())
    rec("bf_mean", b[:16].mean())
    rec("bf_round", lib.round(b[:16] * 10))
    rec("bf_half", b.half())


def p_learnable_fq(lib, dt, rec):
    """torch.ao's _LearnableFakeQuantize in miniature: scale and zero point as parameters of
    torch._fake_quantize_learnable_per_tensor_affine, initialised from min/max, grad factor
    1/sqrt(numel * qmax), trained with the weights (float32: torch's backward takes no other);
    the per-channel variant on a weight."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(23)
    fq = lib._fake_quantize_learnable_per_tensor_affine

    class LearnableFQ(nn.Module):
        def __init__(self, qmin, qmax):
            super().__init__()
            self.qmin, self.qmax = qmin, qmax
            self.scale = nn.Parameter(lib.tensor([0.1]))
            self.zero_point = nn.Parameter(lib.tensor([0.0]))
            self.register_buffer("initialised", lib.tensor([0], dtype=lib.uint8))

        def forward(self, x):
            if self.initialised[0] == 0:
                with lib.no_grad():
                    mn, mx = lib.aminmax(x.detach())
                    mn, mx = mn.clamp(max=0), mx.clamp(min=0)
                    self.scale.copy_((mx - mn) / (self.qmax - self.qmin))
                    self.zero_point.copy_(self.qmin - lib.round(mn / self.scale))
                    self.initialised[0] = 1
            gf = 1.0 / math.sqrt(x.numel() * self.qmax)
            return fq(x, self.scale, self.zero_point, self.qmin, self.qmax, gf)

    lin = nn.Linear(6, 3)
    wq = LearnableFQ(-8, 7)
    aq = LearnableFQ(0, 15)
    params = list(lin.parameters()) + list(wq.parameters()) + list(aq.parameters())
    opt = lib.optim.SGD(params, lr=0.05, momentum=0.9)
    x = lib.randn(16, 6, dtype=dt).float().relu()
    t = lib.randn(16, 3, dtype=dt).float()
    for _ in range(4):
        out = F.linear(aq(x), wq(lin.weight), lin.bias)
        loss = F.mse_loss(out, t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("w_scale", wq.scale)
        rec("w_zp", wq.zero_point)
        rec("a_scale", aq.scale)
        rec("a_zp", aq.zero_point)
        rec("g_ws", wq.scale.grad)
        rec("g_az", aq.zero_point.grad)
        rec("g_w", lin.weight.grad)
    rec("gfn", type(out.grad_fn).__name__)
    rec("node", wq(lin.weight).grad_fn.name())
    s, z = wq.scale.detach(), wq.zero_point.detach()
    rec("errs", [lib.autograd.grad(fq(x.requires_grad_(), s, z, -8, 7).sum(), x)[0].sum()])
    # per output channel, as a QAT weight quantiser
    fqc = lib._fake_quantize_learnable_per_channel_affine
    w = lin.weight.detach().clone().requires_grad_()
    sc = (w.detach().abs().amax(1) / 7).requires_grad_()
    zc = lib.tensor([0.5, -1.5, 0.2], requires_grad=True)
    wq_c = fqc(w, sc, zc, 0, -8, 7, 1.0 / math.sqrt(6 * 7))
    rec("wq_c", wq_c)
    gw, gsc, gzc = lib.autograd.grad((wq_c @ x.detach().t()).pow(2).sum(), [w, sc, zc])
    rec("gw_c", gw)
    rec("gsc", gsc)
    rec("gzc", gzc)
    rec("node_c", wq_c.grad_fn.name())
    rec.err("e_axis", lambda: fqc(w, sc, zc, 2, -8, 7))
    rec.err("e_scale", lambda: fq(x, 0.1, z, -8, 7))
    rec.err("e_0d", lambda: fq(x, s[0], z, -8, 7))
    rec.err("e_range", lambda: fq(x, s, z, 7, -8))
    y = fq(x, s.requires_grad_(), z, 1, 7)
    rec.err("e_no_zero", lambda: y.sum().backward())


def p_video_warp(lib, dt, rec):
    """A learned video codec's motion compensation: backward warping of the previous frame by a
    flow field through grid_sample (bilinear, border padding), scale-space flow with a Gaussian
    blur pyramid (conv2d with a separable kernel, trilinear-style blending), the residual coded
    with rounding and its rate proxy, and the flow's smoothness loss."""
    F = lib.nn.functional
    lib.manual_seed(24)
    B, C, H, W = 2, 3, 8, 10
    prev = lib.rand(B, C, H, W, dtype=dt)
    flow = (lib.randn(B, 2, H, W, dtype=dt) * 1.5).requires_grad_()
    ys, xs = lib.meshgrid(lib.arange(H, dtype=dt), lib.arange(W, dtype=dt), indexing="ij")
    base = lib.stack([xs, ys], 0).unsqueeze(0)
    pos = base + flow
    gx = 2 * pos[:, 0] / (W - 1) - 1
    gy = 2 * pos[:, 1] / (H - 1) - 1
    grid = lib.stack([gx, gy], dim=-1)
    warped = F.grid_sample(prev, grid, mode="bilinear", padding_mode="border", align_corners=True)
    rec("warped", warped[0, 0])
    # scale-space: a blurred stack, sampled at a per-pixel scale
    sigmas = [0.0, 1.0, 2.0]
    k = lib.arange(-3, 4, dtype=dt)
    stack = [prev]
    for s in sigmas[1:]:
        g = lib.exp(-(k**2) / (2 * s * s))
        g = g / g.sum()
        kh = g.view(1, 1, 1, 7).repeat(C, 1, 1, 1)
        kv = g.view(1, 1, 7, 1).repeat(C, 1, 1, 1)
        blur = F.conv2d(F.pad(prev, (3, 3, 0, 0), mode="replicate"), kh, groups=C)
        blur = F.conv2d(F.pad(blur, (0, 0, 3, 3), mode="replicate"), kv, groups=C)
        stack.append(blur)
    vol = lib.stack(stack, dim=2)  # B, C, D, H, W
    scale = lib.sigmoid(lib.randn(B, 1, H, W, dtype=dt)) * 2
    gz = scale / 1.0 - 1  # D=3 levels in [-1, 1]
    grid3 = lib.stack([gx, gy, gz[:, 0]], dim=-1).unsqueeze(1)  # B, 1, H, W, 3
    ss = F.grid_sample(vol, grid3, mode="bilinear", padding_mode="border", align_corners=True)
    rec("ss", ss[0, :, 0, :2])
    cur = lib.rand(B, C, H, W, dtype=dt)
    residual = cur - warped
    res_hat = residual + (lib.round(residual * 16) / 16 - residual).detach()
    recon = warped + res_hat
    dist = F.mse_loss(recon, cur)
    smooth = (flow[..., 1:, :] - flow[..., :-1, :]).abs().mean() + (
        flow[..., 1:] - flow[..., :-1]
    ).abs().mean()
    rate = lib.log1p(residual.abs() * 16).sum() / (B * H * W)
    loss = dist + 0.01 * smooth + 0.001 * rate + F.l1_loss(ss.squeeze(2), cur)
    loss.backward()
    rec("loss", loss)
    rec("g_flow", flow.grad[0, :, :2, :3])
    # nearest warping and zeros padding; affine_grid of a small translation
    wn = F.grid_sample(
        prev, grid.detach(), mode="nearest", padding_mode="zeros", align_corners=False
    )
    rec("nearest", wn[1, 2])
    theta = lib.tensor([[[1.0, 0.0, 0.1], [0.0, 1.0, -0.2]]], dtype=dt).repeat(B, 1, 1)
    ag = F.affine_grid(theta, [B, C, H, W], align_corners=False)
    rec("affine", F.grid_sample(prev, ag, align_corners=False, padding_mode="reflection")[0, 1])
    rec("bicubic", F.interpolate(prev, scale_factor=0.5, mode="bicubic", align_corners=False)[0, 0])
    rec("area", F.interpolate(prev, size=(4, 5), mode="area")[0, 0])
    rec("aa", F.interpolate(prev, size=(4, 5), mode="bilinear", antialias=True)[0, 0])


def p_kmeans_codebook(lib, dt, rec):
    """Codebook initialisation as vector-quantisation libraries do it: k-means++ seeding by
    multinomial on squared distances, Lloyd iterations with scatter_reduce means (empty
    clusters keep their centre), a batched k-means over groups, and the codebook's usage
    statistics (bincount entropy, unique counts)."""
    lib.manual_seed(25)
    N, D, K = 60, 3, 5
    x = lib.cat([lib.randn(N // 3, D, dtype=dt) + c for c in (-3.0, 0.0, 3.0)])
    first = lib.randint(0, N, (1,))
    centres = x[first]
    for _ in range(K - 1):
        d2 = lib.cdist(x, centres).pow(2).min(dim=1).values
        nxt = lib.multinomial(d2 / d2.sum(), 1)
        centres = lib.cat([centres, x[nxt]])
    rec("seeds", centres)
    for _ in range(4):
        assign = lib.cdist(x, centres).argmin(1)
        idx = assign[:, None].expand(-1, D)
        means = centres.scatter_reduce(0, idx, x, reduce="mean", include_self=False)
        counts = lib.bincount(assign, minlength=K)
        centres = lib.where((counts > 0)[:, None], means, centres)
        rec("assign", assign)
        rec("counts", counts)
        rec("centres", centres)
    sse = (x - centres[assign]).pow(2).sum()
    rec("sse", sse)
    rec("amax", centres.scatter_reduce(0, idx, x, reduce="amax", include_self=True))
    rec("prod", lib.ones(K, D, dtype=dt).scatter_reduce(0, idx, x.sign(), reduce="prod"))
    p = counts.to(dt) / N
    rec("usage_entropy", -(p * lib.log(p.clamp_min(1e-12))).sum())
    vals, inv, cnt = lib.unique(assign, return_inverse=True, return_counts=True)
    rec("unique", lib.stack([vals, cnt]))
    rec("inv_eq", str(lib.equal(vals[inv], assign)))
    # batched k-means over 4 groups of 2-d sub-vectors
    G = 4
    xs = lib.randn(G, 20, 2, dtype=dt)
    cs = xs[:, :3].clone()
    for _ in range(3):
        a = lib.cdist(xs, cs).argmin(-1)  # G, 20
        oh = lib.nn.functional.one_hot(a, 3).to(dt)  # G, 20, 3
        n = oh.sum(1)  # G, 3
        s = lib.bmm(oh.transpose(1, 2), xs)  # G, 3, 2
        cs = lib.where(n[..., None] > 0, s / n.clamp_min(1)[..., None], cs)
    rec("group_centres", cs)
    rec("group_sse", (xs - lib.gather(cs, 1, a[..., None].expand(-1, -1, 2))).pow(2).sum((1, 2)))
    rec.err("e_reduce", lambda: centres.scatter_reduce(0, idx, x, reduce="median"))
