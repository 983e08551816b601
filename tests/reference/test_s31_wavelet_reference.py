"""Session 31 (helper wavelet): wavelet and classical signal-processing programs written the way
they are written in torch, run under torch and minitorch with the same seeds and compared
record by record: Haar and Daubechies filter banks built as tensors (flip, stack, outer, einsum,
kron) and applied by strided conv1d/conv2d/conv3d with groups, inverses by conv_transpose with
the periodic overflow wrapped, multi-level decompositions kept as lists, wavelet packets with
entropy costs, the stationary (a trous) transform by dilation, lifting schemes (learned by Adam,
and integer-to-integer with floor division), soft/hard/garrote/firm thresholding with MAD noise
estimates and their gradients at the kinks, a denoiser nn.Module with a registered filter bank,
windows (torch.*_window with periodic flags, dtypes and requires_grad; torch.signal.windows with
sym), framing by unfold/as_strided and overlap-add by fold and index_add_, windowed-sinc and
Kaiser FIR design with responses by cos/sin sums, moving averages by cumsum/avg_pool/conv,
Savitzky-Golay by pinv/lstsq, median/Hampel filters by unfold + median, resampling by
interpolate (all modes, align_corners, antialias), grid_sample fractional delays, polyphase
decimation and interpolation, padding modes in 1-3 d with their gradients, Ricker/Gabor CWTs,
peaks and envelopes by max_pool1d, LPC by Yule-Walker and Levinson-Durbin, mu-law companding,
numerical calculus (gradient, trapezoid), adaptive and Lp pooling, patch denoising by
unfold/fold, block DCT and Walsh-Hadamard transforms, transforms as Jacobians (jacrev, vmap),
parametrized filter banks, and the argument errors of these APIs. float64 must agree to 1e-10
of each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- float32 sums differ from torch's in the last bits (summation order), so a deep stop band
  (-90 dB) is only compared in float64.
- float16/bfloat16 windows: torch evaluates the cosines in half (a few half ulps off the
  formula); minitorch rounds the float32 values once. Compared within 2e-3.
- float32 hann/hamming/blackman windows can be an ulp off torch's (NumPy's float32 cosine is
  not torch's); a float32 Kaiser window up to ~20 ulps (torch evaluates I0 in float32).
- torch.gradient with a coordinates tensor whose length is not its dim's size: torch does not
  check it (wrong values or a broadcast error); minitorch raises (documented in gradient).
- Sparse layouts are out of scope (signal.windows' layout=torch.sparse_coo error)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "haar_dwt1d", "db_periodic", "dwt2d_haar", "wavedec_denoise", "windows", "signal_windows",
    "stft_ola", "fir_design", "moving_average", "savgol", "median_filter", "resample",
    "padding_modes", "lifting_learned", "swt_atrous", "ricker_cwt", "polyphase",
    "peaks_envelope", "wavelet_module", "wavelet_packet", "errors", "filtfilt_detrend",
    "dwt2d_multilevel", "threshold_grads", "haar3d", "grid_resample", "lpc_levinson", "mulaw",
    "numeric_calculus", "kaiser_design", "adaptive_pool", "patch_denoise", "conv_variants",
    "errors2", "transform_matrices", "default64", "parametrized_filters", "zoh_bitrev",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers: filter banks built as tensors ---

DB2 = [
    (1 + math.sqrt(3)) / (4 * math.sqrt(2)),
    (3 + math.sqrt(3)) / (4 * math.sqrt(2)),
    (3 - math.sqrt(3)) / (4 * math.sqrt(2)),
    (1 - math.sqrt(3)) / (4 * math.sqrt(2)),
]
DB3 = [
    0.33267055295008263, 0.8068915093110925, 0.45987750211849154,
    -0.13501102001025458, -0.08544127388202666, 0.03522629188570953,
]  # fmt: skip


def _bank(lib, taps, dt):
    """(2, 1, L) analysis bank (low, high) of an orthogonal wavelet given its scaling filter."""
    lo = lib.tensor(taps, dtype=dt)
    n = lo.numel()
    sign = lib.tensor([(-1.0) ** k for k in range(n)], dtype=dt)
    hi = sign * lo.flip(0)
    return lib.stack([lo, hi]).unsqueeze(1)


def _dwt(lib, x, bank):
    """One periodic level: x (B, 1, N) -> (approx, detail), each (B, 1, N / 2)."""
    L = bank.shape[-1]
    xp = lib.nn.functional.pad(x, (0, L - 2), mode="circular")
    out = lib.nn.functional.conv1d(xp, bank, stride=2)
    return out[:, :1], out[:, 1:]


def _idwt(lib, a, d, bank):
    """Inverse of _dwt: the transposed convolution, its overflow wrapped to the start."""
    L = bank.shape[-1]
    y = lib.nn.functional.conv_transpose1d(lib.cat([a, d], 1), bank, stride=2)
    n = 2 * a.shape[-1]
    head = y[..., :n].clone()
    head[..., : L - 2] += y[..., n:]
    return head


def _signal(lib, dt, n=64, seed=0, batch=2):
    g = lib.Generator().manual_seed(seed)
    t = lib.linspace(0, 1, n, dtype=dt)
    clean = lib.sin(2 * math.pi * 3 * t) + 0.5 * (t > 0.5).to(dt) - 0.3 * lib.cos(9 * math.pi * t)
    noise = 0.2 * lib.randn(batch, 1, n, generator=g, dtype=dt)
    return clean.expand(batch, 1, n), clean + noise


# --- the programs: each takes the library, a dtype and a recorder ---


def p_haar_dwt1d(lib, dt, rec):
    F = lib.nn.functional
    s = 1 / math.sqrt(2)
    lo = lib.tensor([s, s], dtype=dt)
    hi = lib.tensor([s, -s], dtype=dt)
    w = lib.stack([lo, hi])[:, None, :]
    rec("w", w)
    x = lib.arange(16, dtype=dt).reshape(1, 1, 16) ** 1.5 / 10
    x.requires_grad_(True)
    coef = F.conv1d(x, w, stride=2)
    rec("coef", coef)
    a, d = coef.split(1, dim=1)
    rec("a", a)
    rec("d", d)
    # the Haar bank is orthonormal: energy is kept
    rec("energy", (x**2).sum() - (coef**2).sum())
    rec("energy_ok", lib.isclose((x**2).sum(), (coef**2).sum()))
    y = F.conv_transpose1d(coef, w, stride=2)
    rec("recon", y)
    rec("recon_err", (y - x).abs().max())
    # a multi-level decomposition as a list of coefficients
    coeffs = []
    cur = x
    for _ in range(3):
        c = F.conv1d(cur, w, stride=2)
        cur, det = c[:, :1], c[:, 1:]
        coeffs.append(det)
    coeffs.append(cur)
    coeffs = coeffs[::-1]
    rec("levels", [c.shape[-1] for c in coeffs])
    rec("flat", lib.cat([c.flatten() for c in coeffs]))
    cur = coeffs[0]
    for det in coeffs[1:]:
        cur = F.conv_transpose1d(lib.cat([cur, det], dim=1), w, stride=2)
    rec("recon3", cur)
    # gradient of the detail energy wrt the input
    loss = sum((c**2).sum() for c in coeffs[1:])
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    rec("grad", g)
    (gg,) = lib.autograd.grad(g.pow(2).sum(), x)
    rec("gradgrad", gg)
    # the bank in a Conv1d module with frozen weights
    conv = lib.nn.Conv1d(1, 2, 2, stride=2, bias=False, dtype=dt)
    with lib.no_grad():
        conv.weight.copy_(w)
    conv.weight.requires_grad_(False)
    rec("mod", conv(x.detach()))
    rec("mod_repr", repr(conv))


def p_db_periodic(lib, dt, rec):
    F = lib.nn.functional
    clean, x = _signal(lib, dt)
    for name, taps in [("db2", DB2), ("db3", DB3)]:
        bank = _bank(lib, taps, dt)
        rec(name + ".bank", bank)
        # orthogonality of the bank: shifted inner products
        lo, hi = bank[0, 0], bank[1, 0]
        rec(name + ".lo_sum", lo.sum())
        rec(name + ".lo_hi", lib.dot(lo, hi))
        rec(name + ".norm", lib.linalg.vector_norm(bank, dim=-1))
        a, d = _dwt(lib, x, bank)
        rec(name + ".a", a)
        rec(name + ".d", d)
        y = _idwt(lib, a, d, bank)
        rec(name + ".err", (y - x).abs().amax(dim=-1))
        rec(name + ".energy", (a.square().sum(-1) + d.square().sum(-1)) / x.square().sum(-1))
        # the detail of a smooth signal is small away from the jump
        a_c, d_c = _dwt(lib, clean, bank)
        rec(name + ".d_clean", d_c[0, 0])
    # symmetric (reflect) and zero borders instead of periodic ones
    bank = _bank(lib, DB2, dt)
    for mode in ["reflect", "replicate", "constant"]:
        xp = F.pad(x, (2, 2), mode=mode) if mode != "constant" else F.pad(x, (2, 2), value=0.0)
        c = F.conv1d(xp, bank, stride=2)
        rec("border." + mode, c[..., :3])
        rec("border." + mode + ".shape", list(c.shape))
    # filters as separate conv1d calls on a multi-channel signal (groups)
    x3 = x.repeat(1, 3, 1) * lib.tensor([1.0, -1.0, 2.0], dtype=dt).view(1, 3, 1)
    w3 = bank[:1].repeat(3, 1, 1)
    rec("grouped", F.conv1d(F.pad(x3, (0, 2), mode="circular"), w3, stride=2, groups=3))


def p_dwt2d_haar(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(4)
    img = lib.rand(2, 3, 8, 8, generator=g, dtype=dt)
    s = 1 / math.sqrt(2)
    lo = lib.tensor([s, s], dtype=dt)
    hi = lib.tensor([-s, s], dtype=dt)
    ll = lo[:, None] * lo[None, :]
    lh = lib.outer(lo, hi)
    hl = lib.outer(hi, lo)
    hh = lib.einsum("i,j->ij", hi, hi)
    k = lib.stack([ll, lh, hl, hh]).unsqueeze(1)
    rec("k", k)
    C = img.shape[1]
    w = k.repeat(C, 1, 1, 1)
    rec("w.shape", list(w.shape))
    img.requires_grad_(True)
    out = F.conv2d(img, w, stride=2, groups=C)
    rec("out", out)
    bands = out.view(2, C, 4, 4, 4)
    rec("LL", bands[:, :, 0])
    rec("HH", bands[:, :, 3])
    rec("band_energy", bands.pow(2).sum(dim=(0, 1, 3, 4)))
    back = F.conv_transpose2d(out, w, stride=2, groups=C)
    rec("recon_err", (back - img).abs().max())
    # the same by reshape tricks (the polyphase form)
    x = img.detach()
    a = x[..., 0::2, 0::2]
    b = x[..., 0::2, 1::2]
    c = x[..., 1::2, 0::2]
    d = x[..., 1::2, 1::2]
    ll2 = (a + b + c + d) / 2
    hh2 = (a - b - c + d) / 2
    rec("LL_poly", (ll2 - bands[:, :, 0]).abs().max())
    rec("HH_poly", hh2 - bands[:, :, 3])
    # pixel_unshuffle gives the same polyphase components
    pu = F.pixel_unshuffle(x, 2).view(2, C, 4, 4, 4)
    rec("pu", pu[0, 0, :, 0, :2])
    rec("pu_ll", (pu.sum(2) / 2 - ll2).abs().max())
    # gradient through all bands, with a weighted loss
    wts = lib.tensor([0.0, 1.0, 1.0, 2.0], dtype=dt).view(1, 1, 4, 1, 1)
    loss = (bands.abs() * wts).sum()
    loss.backward()
    rec("grad", img.grad[0, 0])
    # the reconstruction by pixel_shuffle of the four bands
    m = lib.tensor([[1, 1, 1, 1], [-1, 1, -1, 1], [-1, -1, 1, 1], [1, -1, -1, 1]], dtype=dt) / 2
    poly = lib.einsum("bcfhw,fp->bcphw", bands.detach(), m)
    rec("ps", F.pixel_shuffle(poly.reshape(2, C * 4, 4, 4), 2)[0, 0])


def _wavedec(lib, x, bank, level):
    coeffs = []
    a = x
    for _ in range(level):
        a, d = _dwt(lib, a, bank)
        coeffs.append(d)
    return [a] + coeffs[::-1]


def _waverec(lib, coeffs, bank):
    a = coeffs[0]
    for d in coeffs[1:]:
        a = _idwt(lib, a, d, bank)
    return a


def p_wavedec_denoise(lib, dt, rec):
    clean, x = _signal(lib, dt, n=128, seed=7)
    bank = _bank(lib, DB3, dt)
    coeffs = _wavedec(lib, x, bank, 3)
    rec("shapes", [list(c.shape) for c in coeffs])
    rec("cA", coeffs[0])
    # noise level from the finest details (median absolute deviation)
    finest = coeffs[-1]
    sigma = finest.abs().flatten(1).median(dim=1).values / 0.6745
    rec("sigma", sigma)
    thr = sigma * math.sqrt(2 * math.log(x.shape[-1]))
    rec("thr", thr)
    t = thr.view(-1, 1, 1)
    soft = [coeffs[0]] + [c.sign() * (c.abs() - t).clamp_min(0) for c in coeffs[1:]]
    hard = [coeffs[0]] + [lib.where(c.abs() > t, c, lib.zeros_like(c)) for c in coeffs[1:]]
    garrote = [coeffs[0]] + [
        lib.where(c.abs() > t, c - t**2 / c, c.new_zeros(())) for c in coeffs[1:]
    ]
    for name, cs in [("soft", soft), ("hard", hard), ("garrote", garrote)]:
        y = _waverec(lib, cs, bank)
        rec(name, y[0, 0, ::8])
        mse = ((y - clean) ** 2).mean(dim=-1)
        rec(name + ".mse", mse)
        snr = 10 * lib.log10(clean.pow(2).sum(-1) / (y - clean).pow(2).sum(-1))
        rec(name + ".snr", snr)
        rec(name + ".kept", sum((c != 0).sum() for c in cs[1:]))
    rec("noisy.mse", ((x - clean) ** 2).mean(dim=-1))
    # level-dependent thresholds with softshrink / hardshrink modules
    F = lib.nn.functional
    lam = [0.3, 0.2, 0.1]
    shr = [coeffs[0]] + [F.softshrink(c, lambd=lv) for c, lv in zip(coeffs[1:], lam, strict=True)]
    rec("softshrink", _waverec(lib, shr, bank)[1, 0, :10])
    hs = lib.nn.Hardshrink(0.25)
    rec("hardshrink", hs(coeffs[-1])[0, 0, :12])
    rec("hs_repr", repr(hs))
    # the sparsity of the coefficient vector
    flat = lib.cat([c.flatten(1) for c in coeffs[1:]], dim=1)
    rec("l1", flat.norm(p=1, dim=1))
    q = lib.quantile(flat.abs(), lib.tensor([0.5, 0.9], dtype=dt), dim=1)
    rec("quant", q)
    rec("topk", flat.abs().topk(5, dim=1).values)


def p_windows(lib, dt, rec):
    d = dt
    for n in [0, 1, 2, 7, 8]:
        for periodic in [True, False]:
            tag = f"{n}.{periodic}"
            rec("hann" + tag, lib.hann_window(n, periodic=periodic, dtype=d))
            rec("hamming" + tag, lib.hamming_window(n, periodic, dtype=d))
            rec("blackman" + tag, lib.blackman_window(n, periodic=periodic, dtype=d))
            rec("bartlett" + tag, lib.bartlett_window(n, periodic=periodic, dtype=d))
            rec("kaiser" + tag, lib.kaiser_window(n, periodic=periodic, beta=8.0, dtype=d))
    rec("hamming_ab", lib.hamming_window(9, False, 0.5, 0.5, dtype=d))
    rec("hamming_a", lib.hamming_window(9, True, alpha=0.6, dtype=d))
    rec("kaiser_default", lib.kaiser_window(10, dtype=d))
    # the default dtype, and the window's properties
    w = lib.hann_window(16)
    rec("default", [str(w.dtype), w[0].item(), w[8].item()])
    rec("default_close", (w.double() - lib.hann_window(16, dtype=lib.float64)).abs().max() < 1e-6)
    # torch's bits: float64 hann/hamming in torch's order of operations, a float32 bartlett ramp
    rec("hann7_bits", str(lib.hann_window(7, periodic=False, dtype=lib.float64).tolist()))
    rec("hamming7_bits", str(lib.hamming_window(7, False, dtype=lib.float64).tolist()))
    rec("bartlett32", str(lib.bartlett_window(7, dtype=lib.float32).tolist()))
    rec("rg", w.requires_grad)
    w2 = lib.hann_window(16, dtype=d, requires_grad=True)
    rec("rg2", w2.requires_grad)
    rec("is_leaf", w2.is_leaf)
    (w2 * lib.arange(16, dtype=d)).sum().backward()
    rec("wgrad", w2.grad)
    # COLA: a periodic Hann at hop N/2 sums to a constant
    N, hop = 16, 8
    win = lib.hann_window(N, periodic=True, dtype=d)
    total = lib.zeros(64, dtype=d)
    for s in range(0, 64 - N + 1, hop):
        total[s : s + N] += win
    rec("cola", total[N:-N])
    # window sums and energy (coherent gain, ENBW)
    for name in ["hann", "hamming", "blackman", "bartlett"]:
        wi = getattr(lib, name + "_window")(64, dtype=d)
        rec(name + ".cg", wi.mean())
        rec(name + ".enbw", 64 * wi.pow(2).sum() / wi.sum() ** 2)
    # half-precision windows: torch evaluates the cosines in half (a few half ulps off)
    h16 = lib.hann_window(8, dtype=lib.float16)
    rec(
        "hann_f16",
        [str(h16.dtype), (h16.double() - lib.hann_window(8, dtype=lib.float64)).abs().max() < 2e-3],
    )
    rec("bart_bf16", lib.bartlett_window(8, dtype=lib.bfloat16))
    rec("repr", repr(lib.hann_window(4, dtype=d)))
    rec("repr_bart", repr(lib.bartlett_window(5, periodic=False, dtype=d)))


def p_signal_windows(lib, dt, rec):
    W = lib.signal.windows
    d = dt
    for sym in [True, False]:
        rec(f"hann.{sym}", W.hann(9, sym=sym, dtype=d))
        rec(f"hamming.{sym}", W.hamming(9, sym=sym, dtype=d))
        rec(f"blackman.{sym}", W.blackman(9, sym=sym, dtype=d))
        rec(f"bartlett.{sym}", W.bartlett(9, sym=sym, dtype=d))
        rec(f"cosine.{sym}", W.cosine(9, sym=sym, dtype=d))
        rec(f"nuttall.{sym}", W.nuttall(9, sym=sym, dtype=d))
        rec(f"gaussian.{sym}", W.gaussian(9, std=2.0, sym=sym, dtype=d))
        rec(f"exponential.{sym}", W.exponential(9, tau=3.0, sym=sym, dtype=d))
        rec(f"kaiser.{sym}", W.kaiser(9, beta=6.0, sym=sym, dtype=d))
        rec(f"gc.{sym}", W.general_cosine(9, a=[0.46, 0.23, 0.31], sym=sym, dtype=d))
        rec(f"gh.{sym}", W.general_hamming(9, alpha=0.6, sym=sym, dtype=d))
    rec("exp_center", W.exponential(8, center=1.0, tau=2.0, sym=False, dtype=d))
    rec("gauss_default", W.gaussian(6, dtype=d))
    rec("empty", W.hann(0, dtype=d))
    rec("one", W.kaiser(1, dtype=d))
    # torch.*_window(periodic=True) and the sym=False scipy-style window agree
    rec("same_hann", lib.hann_window(10, dtype=d) - W.hann(10, sym=False, dtype=d))
    rec(
        "same_kaiser",
        lib.kaiser_window(10, True, 5.0, dtype=d) - W.kaiser(10, beta=5.0, sym=False, dtype=d),
    )
    rec("same_bl", lib.blackman_window(10, False, dtype=d) - W.blackman(10, dtype=d))
    # a Gaussian window's width from the full width at half maximum
    fwhm = 5.0
    std = fwhm / (2 * math.sqrt(2 * math.log(2)))
    g = W.gaussian(21, std=std, dtype=d)
    rec("fwhm", (g >= 0.5).sum())
    # taper a batch of frames
    frames = lib.ones(3, 9, dtype=d) * lib.arange(1, 4, dtype=d)[:, None]
    rec("tapered", frames * W.hann(9, dtype=d))
    # with requires_grad the window is the output of its last op (not a leaf), as torch builds it
    for name in ["hann", "bartlett", "cosine", "gaussian", "exponential", "kaiser", "nuttall"]:
        for M in [1, 6]:
            w = getattr(W, name)(M, sym=False, dtype=d, requires_grad=True)
            fn = None if w.grad_fn is None else type(w.grad_fn).__name__
            rec(f"rg.{name}{M}", [w.requires_grad, w.is_leaf, fn])
    w = W.hann(6, dtype=d, requires_grad=True)
    w[0] = 0.5  # in place on a non-leaf: allowed
    w.retain_grad()
    (w * lib.arange(6, dtype=d)).sum().backward()
    rec("rg.grad", w.grad)
    rec("rg.repr", repr(W.cosine(3, dtype=d, requires_grad=True)))


def p_stft_ola(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(2)
    n, N, hop = 96, 16, 4
    x = lib.randn(2, n, generator=g, dtype=d).cumsum(-1) / 4
    win = lib.hann_window(N, periodic=True, dtype=d)
    # frame by unfold on the padded signal
    pad = N // 2
    xp = F.pad(x.unsqueeze(1), (pad, pad), mode="reflect").squeeze(1)
    rec("xp_edges", lib.stack([xp[:, :pad], xp[:, -pad:]], 1))
    frames = xp.unfold(-1, N, hop)
    rec("frames.shape", list(frames.shape))
    rec("frames.stride", list(frames.stride()))
    wf = frames * win
    rec("wf", wf[0, :3])
    # per-frame energy and log-energy
    rec("energy", wf.pow(2).sum(-1)[:, :6])
    rec("logE", lib.log(wf.pow(2).sum(-1) + 1e-8)[1, -5:])
    # overlap-add by fold: (B, N, n_frames) columns into the padded length
    cols = (wf * win).transpose(1, 2)
    L = xp.shape[-1]
    ola = F.fold(cols, output_size=(1, L), kernel_size=(1, N), stride=(1, hop))
    rec("ola.shape", list(ola.shape))
    norm = F.fold(
        (win**2).view(1, N, 1).expand(1, N, cols.shape[-1]),
        output_size=(1, L),
        kernel_size=(1, N),
        stride=(1, hop),
    )
    rec("norm", norm.flatten()[pad:-pad][:8])
    y = (ola / norm.clamp_min(1e-10)).view(2, L)[:, pad:-pad]
    rec("recon_err", (y - x).abs().max())
    # the same overlap-add written with index_add_
    idx = (lib.arange(cols.shape[-1]) * hop)[:, None] + lib.arange(N)
    acc = lib.zeros(2, L, dtype=d)
    acc.index_add_(1, idx.flatten(), (wf * win).reshape(2, -1))
    rec("index_add", (acc - ola.view(2, L)).abs().max())
    # a gradient through framing: d(sum of frame energies)/dx
    xr = x.clone().requires_grad_(True)
    fr = F.pad(xr.unsqueeze(1), (pad, pad), mode="reflect").squeeze(1).unfold(-1, N, hop)
    (fr * win).pow(2).sum().backward()
    rec("grad", xr.grad[0, :12])
    rec("grad_tail", xr.grad[1, -12:])
    # framing with as_strided (hop == N / 2)
    st = x[0].as_strided((n // 8 - 1, 16), (8, 1))
    rec("as_strided", st[:2])
    rec("as_strided_same", lib.equal(st, x[0].unfold(0, 16, 8)))


def _lowpass(lib, dt, numtaps, cutoff, window):
    """Windowed-sinc low-pass design: cutoff as a fraction of Nyquist."""
    m = lib.arange(numtaps, dtype=dt) - (numtaps - 1) / 2
    h = cutoff * lib.sinc(cutoff * m)
    h = h * window
    return h / h.sum()


def _response(lib, h, freqs):
    """|H(e^{jw})| at the given normalised frequencies, by cos/sin sums (no FFT)."""
    n = lib.arange(h.numel(), dtype=h.dtype)
    w = math.pi * freqs[:, None] * n[None, :]
    re = (h * lib.cos(w)).sum(-1)
    im = -(h * lib.sin(w)).sum(-1)
    return lib.sqrt(re**2 + im**2)


def p_fir_design(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    taps = 31
    wins = {
        "hamming": lib.hamming_window(taps, periodic=False, dtype=d),
        "blackman": lib.blackman_window(taps, periodic=False, dtype=d),
        "kaiser": lib.kaiser_window(taps, periodic=False, beta=6.0, dtype=d),
        "rect": lib.ones(taps, dtype=d),
    }
    freqs = lib.linspace(0, 1, 11, dtype=d)
    for name, win in wins.items():
        h = _lowpass(lib, d, taps, 0.3, win)
        rec(name + ".h", h[:8])
        resp = _response(lib, h, freqs)
        rec(name + ".resp", resp)
        rec(name + ".stop_db", 20 * lib.log10(resp[6:].max()))
    h = _lowpass(lib, d, taps, 0.3, wins["hamming"])
    # symmetric taps: linear phase
    rec("sym", lib.allclose(h, h.flip(0)))
    # high-pass by spectral inversion, band-pass as the difference of low-passes
    hp = -h
    hp[taps // 2] += 1
    rec("hp", _response(lib, hp, freqs))
    bp = _lowpass(lib, d, taps, 0.6, wins["hamming"]) - h
    rec("bp", _response(lib, bp, freqs))
    # filter a two-tone signal: conv1d is correlation, so flip the taps
    t = lib.arange(200, dtype=d)
    x = lib.sin(0.05 * math.pi * t) + lib.sin(0.8 * math.pi * t)
    w = h.flip(0).view(1, 1, -1)
    y_valid = F.conv1d(x.view(1, 1, -1), w)
    rec("valid.shape", list(y_valid.shape))
    y_same = F.conv1d(x.view(1, 1, -1), w, padding="same")
    rec("same", y_same[0, 0, 40:50])
    y_full = F.conv1d(x.view(1, 1, -1), w, padding=taps - 1)
    rec("full.shape", list(y_full.shape))
    rec("causal", y_full[0, 0, : x.numel()][60:66])
    rec("resid_hf", (y_same[0, 0, 40:160] - lib.sin(0.05 * math.pi * t[40:160])).abs().max())
    # a multi-channel filter bank with padding_mode="reflect" in a Conv1d
    bank = lib.stack([h, hp, bp]).unsqueeze(1).flip(-1)
    conv = lib.nn.Conv1d(1, 3, taps, padding=taps // 2, padding_mode="reflect", bias=False)
    conv.weight.data = bank.to(conv.weight.dtype)
    conv = conv.to(d)
    out = conv(x.view(1, 1, -1))
    rec("bank_out", out[0, :, :5])
    rec("bank_rms", out.pow(2).mean(-1).sqrt())
    # learn the taps of an unknown FIR from input/output pairs (least squares and by gradient)
    g = lib.Generator().manual_seed(9)
    true = lib.randn(5, generator=g, dtype=d)
    u = lib.randn(1, 1, 300, generator=g, dtype=d)
    yv = F.conv1d(u, true.view(1, 1, 5))
    A = u[0, 0].unfold(0, 5, 1)
    sol = lib.linalg.lstsq(A, yv[0, 0].unsqueeze(-1)).solution
    rec("lstsq", sol.squeeze(-1))
    est = lib.zeros(1, 1, 5, dtype=d, requires_grad=True)
    opt = lib.optim.SGD([est], lr=0.1, momentum=0.5)
    for _ in range(15):
        opt.zero_grad()
        loss = F.mse_loss(F.conv1d(u, est), yv)
        loss.backward()
        opt.step()
    rec("sgd_loss", loss)
    rec("sgd_est", est)


def p_moving_average(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(13)
    x = lib.randn(3, 50, generator=g, dtype=d).cumsum(-1)
    k = 5
    # cumsum trick for a trailing mean
    c = lib.cumsum(F.pad(x, (1, 0)), dim=-1)
    ma = (c[:, k:] - c[:, :-k]) / k
    rec("ma_cumsum", ma[:, :6])
    ma_conv = F.conv1d(x.unsqueeze(1), lib.full((1, 1, k), 1.0 / k, dtype=d)).squeeze(1)
    rec("ma_conv_diff", (ma - ma_conv).abs().max() < 1e-5)
    rec("ma_pool", F.avg_pool1d(x.unsqueeze(1), k, stride=1).squeeze(1)[:, :6])
    rec("ma_unfold", x.unfold(-1, k, 1).mean(-1)[:, -4:])
    # centred with count_include_pad on and off
    rec("pool_pad", F.avg_pool1d(x.unsqueeze(1), 5, 1, padding=2)[:, 0, :4])
    rec(
        "pool_nopad",
        F.avg_pool1d(x.unsqueeze(1), 5, 1, padding=2, count_include_pad=False)[:, 0, :4],
    )
    rec("pool_ceil", F.avg_pool1d(x.unsqueeze(1), 4, 4, ceil_mode=True)[:, 0, -3:])
    # expanding mean and variance
    n = lib.arange(1, 51, dtype=d)
    mean = x.cumsum(-1) / n
    var = (x**2).cumsum(-1) / n - mean**2
    rec("exp_mean", mean[:, -3:])
    rec("exp_var", var[:, -3:])
    # exponential moving average: recursion and closed-form weights agree
    alpha = 0.2
    ema = [x[:, 0]]
    for t in range(1, 50):
        ema.append(alpha * x[:, t] + (1 - alpha) * ema[-1])
    ema = lib.stack(ema, -1)
    rec("ema", ema[:, -5:])
    wts = (1 - alpha) ** lib.arange(49, -1, -1, dtype=d)
    closed = alpha * (x * wts).sum(-1) + (1 - alpha) ** 50 * x[:, 0] * (1 - alpha) ** 0
    rec("ema_closed", closed - (1 - alpha) ** 49 * alpha * x[:, 0])
    # weighted moving average (linear weights) by conv1d on grouped channels
    lw = lib.arange(1, k + 1, dtype=d)
    lw = (lw / lw.sum()).flip(0).view(1, 1, k).repeat(3, 1, 1)
    rec("wma", F.conv1d(x.unsqueeze(0), lw, groups=3)[0, :, :4])
    # rolling max/min by max_pool1d and a rolling std by unfold
    rec("roll_max", F.max_pool1d(x.unsqueeze(1), k, 1).squeeze(1)[:, :6])
    rec("roll_min", -F.max_pool1d(-x.unsqueeze(1), k, 1).squeeze(1)[:, :6])
    rec("roll_std", x.unfold(-1, k, 1).std(-1)[:, :6])
    rec("roll_std0", x.unfold(-1, k, 1).std(-1, correction=0)[:, :6])
    # gradient of a smoothness penalty through the cumsum moving average
    xr = x.clone().requires_grad_(True)
    cr = F.pad(xr, (1, 0)).cumsum(-1)
    mar = (cr[:, k:] - cr[:, :-k]) / k
    (xr - F.pad(mar, (k - 1, 0), mode="replicate")).pow(2).sum().backward()
    rec("grad", xr.grad[:, :8])
    rec("cummax", lib.cummax(x, -1).values[:, -4:])
    rec("cummin_idx", lib.cummin(x, -1).indices[:, -6:])


def _savgol(lib, dt, window, order, deriv=0):
    half = window // 2
    t = lib.arange(-half, half + 1, dtype=dt)
    A = lib.stack([t**p for p in range(order + 1)], dim=1)
    coeffs = lib.linalg.pinv(A)[deriv] * math.factorial(deriv)
    return coeffs


def p_savgol(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    for w, o in [(5, 2), (7, 2), (9, 3), (11, 4)]:
        rec(f"c{w}.{o}", _savgol(lib, d, w, o))
    rec("d1", _savgol(lib, d, 7, 2, deriv=1))
    rec("d2", _savgol(lib, d, 9, 3, deriv=2))
    # pinv agrees with the normal-equations solution
    t = lib.arange(-3, 4, dtype=d)
    A = lib.vander(t, N=3, increasing=True)
    rec("vander", A)
    ne = lib.linalg.solve(A.T @ A, A.T)
    rec("pinv_vs_solve", (lib.linalg.pinv(A) - ne).abs().max() < 1e-4)
    rec("pinv_rcond", lib.linalg.pinv(A, rtol=1e-6)[0])
    rec("pinv_herm", lib.linalg.pinv(A.T @ A, hermitian=True))
    # smooth a noisy signal with replicate borders
    g = lib.Generator().manual_seed(5)
    tt = lib.linspace(0, 2, 80, dtype=d)
    x = tt**2 - tt + 0.05 * lib.randn(80, generator=g, dtype=d)
    c = _savgol(lib, d, 9, 2)
    xs = F.conv1d(F.pad(x.view(1, 1, -1), (4, 4), mode="replicate"), c.flip(0).view(1, 1, -1))
    rec("smooth", xs[0, 0, ::7])
    dx = F.conv1d(
        F.pad(x.view(1, 1, -1), (4, 4), mode="reflect"),
        _savgol(lib, d, 9, 2, 1).flip(0).view(1, 1, -1),
    )
    rec("deriv", dx[0, 0, 10:70:6] / (tt[1] - tt[0]))
    # a polynomial of degree <= order passes unchanged (away from the borders)
    p = 1 + 2 * tt - 0.5 * tt**2
    ps = F.conv1d(p.view(1, 1, -1), c.view(1, 1, -1))
    rec("poly_exact", (ps[0, 0] - p[4:-4]).abs().max() < 1e-4)
    # fitting a local polynomial per window with lstsq, batched
    win = x.unfold(0, 9, 1)
    A9 = lib.vander(lib.arange(-4, 5, dtype=d), N=3, increasing=True)
    sol = lib.linalg.lstsq(A9.expand(win.shape[0], 9, 3), win.unsqueeze(-1)).solution
    rec("lstsq_vs_conv", (sol[:, 0, 0] - xs[0, 0, 4:-4]).abs().max() < 1e-4)
    # the gradient of the smoothed output wrt the raw signal equals the (flipped) kernel
    xr = x.clone().requires_grad_(True)
    out = F.conv1d(F.pad(xr.view(1, 1, -1), (4, 4), mode="replicate"), c.flip(0).view(1, 1, -1))
    (gx,) = lib.autograd.grad(out[0, 0, 40], xr, retain_graph=True)
    rec("grad_center", gx[34:47])
    (gx0,) = lib.autograd.grad(out[0, 0, 0], xr)
    rec("grad_border", gx0[:6])


def p_median_filter(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(21)
    x = lib.sin(lib.linspace(0, 6, 40, dtype=d)).repeat(2, 1)
    spikes = lib.rand(2, 40, generator=g, dtype=d) < 0.15
    x = lib.where(spikes, x + 3.0, x)
    rec("spikes", spikes.sum())
    for k in [3, 5]:
        xp = F.pad(x.unsqueeze(1), (k // 2, k // 2), mode="reflect").squeeze(1)
        win = xp.unfold(-1, k, 1)
        med = win.median(dim=-1)
        rec(f"med{k}", med.values[:, :10])
        rec(f"med{k}.idx", med.indices[:, :10])
        rec(f"med{k}.max_resid", (med.values - x).abs().max())
    # even windows: median is the lower of the two middle values, quantile interpolates
    win4 = x.unfold(-1, 4, 1)
    rec("med4", win4.median(-1).values[0, :8])
    rec("q4", win4.quantile(0.5, dim=-1)[0, :8])
    rec("q4_lower", win4.quantile(0.5, dim=-1, interpolation="lower")[0, :8])
    rec("sort_mid", win4.sort(-1).values[..., 1][0, :8])
    # nanmedian ignores dropped samples
    xn = x.clone()
    xn[:, ::7] = float("nan")
    wn = xn.unfold(-1, 5, 1)
    rec("nanmed", wn.nanmedian(-1).values[:, :10])
    rec("med_nan", wn.median(-1).values[:, :10])
    # a 3x3 median filter on an image by F.unfold
    img = lib.rand(1, 2, 6, 7, generator=g, dtype=d)
    img[0, 0, 2, 3] = 10.0
    cols = F.unfold(F.pad(img, (1, 1, 1, 1), mode="replicate"), kernel_size=3)
    rec("cols.shape", list(cols.shape))
    med2 = cols.view(1, 2, 9, -1).median(dim=2).values.view(1, 2, 6, 7)
    rec("med2", med2[0, 0])
    rec("med2_spike", med2[0, 0, 2, 3])
    # a median-of-medians by reshape and the kthvalue equivalent
    kv = cols.view(1, 2, 9, -1).kthvalue(5, dim=2).values.view(1, 2, 6, 7)
    rec("kth_eq", lib.equal(kv, med2))
    # a gradient through median flows to the chosen sample only
    xr = x[:1, :12].clone().requires_grad_(True)
    xr.unfold(-1, 3, 1).median(-1).values.sum().backward()
    rec("grad", xr.grad)
    # Hampel filter: replace outliers beyond 3 scaled MADs
    xp = F.pad(x.unsqueeze(1), (3, 3), mode="replicate").squeeze(1)
    w7 = xp.unfold(-1, 7, 1)
    m7 = w7.median(-1, keepdim=True).values
    mad = (w7 - m7).abs().median(-1).values * 1.4826
    out = lib.where((x - m7.squeeze(-1)).abs() > 3 * mad, m7.squeeze(-1), x)
    rec("hampel", out[:, :12])
    rec("hampel_n", (out != x).sum(-1))


def p_resample(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    x = lib.sin(lib.linspace(0, 2 * math.pi, 12, dtype=d)).view(1, 1, 12)
    x = lib.cat([x, x.cos()], 1)
    for ac in [True, False]:
        up = F.interpolate(x, size=30, mode="linear", align_corners=ac)
        rec(f"up{ac}", up[0, :, :8])
        down = F.interpolate(x, size=5, mode="linear", align_corners=ac)
        rec(f"down{ac}", down)
        sf = F.interpolate(x, scale_factor=2.5, mode="linear", align_corners=ac)
        rec(f"sf{ac}.shape", list(sf.shape))
        rec(f"sf{ac}", sf[0, 0, -6:])
    rec(
        "sf_rsf",
        F.interpolate(x, scale_factor=1.7, mode="linear", recompute_scale_factor=True)[0, 0],
    )
    rec("sf_norsf", F.interpolate(x, scale_factor=1.7, mode="linear")[0, 0])
    rec("nearest", F.interpolate(x, size=17, mode="nearest")[0, 0])
    rec("nearest_exact", F.interpolate(x, size=17, mode="nearest-exact")[0, 0])
    rec("area", F.interpolate(x, size=5, mode="area")[0, 1])
    rec("area4", F.interpolate(x, size=4, mode="area")[0, 1])
    # the linear resampler by hand (align_corners=True positions) agrees with interpolate
    n_out = 30
    pos = lib.linspace(0, 11, n_out, dtype=d)
    i0 = pos.floor().long().clamp(max=10)
    frac = pos - i0.to(d)
    manual = x[..., i0] * (1 - frac) + x[..., i0 + 1] * frac
    rec("manual", (manual - F.interpolate(x, n_out, mode="linear", align_corners=True)).abs().max())
    # by lerp and gather
    idx = i0.view(1, 1, -1).expand(1, 2, -1)
    lo = x.gather(-1, idx)
    hi = x.gather(-1, idx + 1)
    rec("lerp", lib.lerp(lo, hi, frac)[0, 1, :7])
    # gradients of interpolation wrt the input samples
    xr = x.clone().requires_grad_(True)
    w = lib.linspace(-1, 1, 23, dtype=d)
    (F.interpolate(xr, size=23, mode="linear", align_corners=False) * w).sum().backward()
    rec("grad_lin", xr.grad)
    xr.grad = None
    (F.interpolate(xr, size=23, mode="nearest") * w).sum().backward()
    rec("grad_near", xr.grad)
    # an image pyramid: bilinear/bicubic down and up
    g = lib.Generator().manual_seed(3)
    img = lib.rand(1, 1, 8, 8, generator=g, dtype=d)
    half = F.interpolate(img, scale_factor=0.5, mode="bilinear", align_corners=False)
    rec("half", half)
    rec("half_aa", F.interpolate(img, scale_factor=0.5, mode="bilinear", antialias=True))
    up = F.interpolate(half, size=(8, 8), mode="bicubic", align_corners=True)
    rec("bicubic", up[0, 0, :3])
    rec("laplacian", (img - F.interpolate(half, size=(8, 8), mode="bilinear")).abs().mean())
    rec("up_mod", lib.nn.Upsample(scale_factor=2, mode="linear")(x)[0, 0, :6])
    rec("up_repr", repr(lib.nn.Upsample(scale_factor=2, mode="linear")))


def p_padding_modes(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    x = lib.arange(1, 7, dtype=d).view(1, 1, 6)
    for mode in ["reflect", "replicate", "circular", "constant"]:
        rec(mode, F.pad(x, (3, 2), mode=mode))
    rec("constant_v", F.pad(x, (2, 1), value=-1.5))
    rec("negative", F.pad(x, (-1, 2), mode="constant"))
    rec("circ_neg", F.pad(x, (-2, 3), mode="circular"))
    rec("repl_big", F.pad(x, (8, 0), mode="replicate"))
    img = lib.arange(12, dtype=d).view(1, 1, 3, 4)
    for mode in ["reflect", "replicate", "circular"]:
        rec(mode + "2d", F.pad(img, (1, 2, 2, 1), mode=mode))
    vol = lib.arange(8, dtype=d).view(1, 1, 2, 2, 2)
    rec("rep3d", F.pad(vol, (1, 1, 1, 0, 0, 1), mode="replicate"))
    rec("circ3d", F.pad(vol, (1, 0, 0, 1, 1, 1), mode="circular"))
    rec("refl3d", F.pad(vol, (1, 1, 1, 1, 1, 1), mode="reflect"))
    # 2-d inputs (no batch) for 1-d modes
    rec("unbatched", F.pad(x[0], (2, 2), mode="reflect"))
    # padding modules
    for mod in [
        lib.nn.ReflectionPad1d(2),
        lib.nn.ReplicationPad1d((1, 3)),
        lib.nn.CircularPad1d(2),
        lib.nn.ConstantPad1d((2, 0), 3.5),
        lib.nn.ZeroPad1d(1),
    ]:
        rec(repr(mod), mod(x))
    rec("rp2d", lib.nn.ReflectionPad2d((1, 0, 0, 1))(img))
    rec("zp2d", lib.nn.ZeroPad2d(1)(img).shape)
    # gradients through padding: border samples collect the mirrored gradient
    for mode in ["reflect", "replicate", "circular", "constant"]:
        xr = x.clone().requires_grad_(True)
        y = F.pad(xr, (3, 3), mode=mode)
        w = lib.arange(y.shape[-1], dtype=d)
        (gx,) = lib.autograd.grad((y * w).sum(), xr, create_graph=True)
        rec("g." + mode, gx)
    ir = img.clone().requires_grad_(True)
    F.pad(ir, (2, 2, 1, 1), mode="reflect").pow(2).sum().backward()
    rec("g2d", ir.grad)
    # a Conv1d with each padding_mode
    g = lib.Generator().manual_seed(8)
    sig = lib.randn(2, 2, 10, generator=g, dtype=d)
    wt = lib.randn(3, 2, 3, generator=g, dtype=d)
    for pm in ["zeros", "reflect", "replicate", "circular"]:
        conv = lib.nn.Conv1d(2, 3, 3, padding=2, padding_mode=pm, bias=False).to(d)
        with lib.no_grad():
            conv.weight.copy_(wt)
        rec("conv." + pm, conv(sig)[0, 0])
        rec("conv_repr." + pm, repr(conv))


def p_lifting_learned(lib, dt, rec):
    d = dt
    g = lib.Generator().manual_seed(17)
    n = 64
    t = lib.linspace(0, 1, n, dtype=d)
    x = (lib.sin(6 * t) + 0.3 * t**2 + 0.01 * lib.randn(8, n, generator=g, dtype=d)).detach()

    # lifting with circular neighbours: predict the odd samples from the even ones, then update
    def lift(x, p, u):
        even, odd = x[..., ::2], x[..., 1::2]
        dd = odd - (p[0] * even + p[1] * lib.roll(even, -1, dims=-1))
        s = even + (u[0] * dd + u[1] * lib.roll(dd, 1, dims=-1))
        return s, dd

    def unlift(s, dd, p, u):
        even = s - (u[0] * dd + u[1] * lib.roll(dd, 1, dims=-1))
        odd = dd + (p[0] * even + p[1] * lib.roll(even, -1, dims=-1))
        return lib.stack([even, odd], -1).flatten(-2)

    # the CDF 5/3 (LeGall) lifting steps
    p53 = lib.tensor([0.5, 0.5], dtype=d)
    u53 = lib.tensor([0.25, 0.25], dtype=d)
    s, dd = lift(x, p53, u53)
    rec("s53", s[0, :8])
    rec("d53", dd[0, :8])
    rec("inv53", (unlift(s, dd, p53, u53) - x).abs().max())
    # learn predict/update weights that minimise the detail energy, keeping the mean
    p = lib.nn.Parameter(lib.zeros(2, dtype=d))
    u = lib.nn.Parameter(lib.zeros(2, dtype=d))
    opt = lib.optim.Adam([p, u], lr=0.05)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    for _ in range(25):
        opt.zero_grad()
        s, dd = lift(x, p, u)
        loss = dd.pow(2).mean() + (s.mean(-1) - x.mean(-1)).pow(2).mean()
        loss.backward()
        opt.step()
        sched.step()
    rec("loss", loss)
    rec("p", p)
    rec("u", u)
    rec("p.grad", p.grad)
    rec("lr", sched.get_last_lr())
    s, dd = lift(x, p.detach(), u.detach())
    rec("inv_learned", (unlift(s, dd, p.detach(), u.detach()) - x).abs().max())
    # integer-to-integer lifting (lossless compression style) with floor division
    xi = (x * 100).round().to(lib.int64)
    ev, od = xi[..., ::2], xi[..., 1::2]
    di = od - lib.div(ev + lib.roll(ev, -1, -1), 2, rounding_mode="floor")
    si = ev + lib.div(di + lib.roll(di, 1, -1) + 2, 4, rounding_mode="floor")
    rec("di", di[0, :8])
    rec("si", si[0, :8])
    ev2 = si - lib.div(di + lib.roll(di, 1, -1) + 2, 4, rounding_mode="floor")
    od2 = di + (ev2 + lib.roll(ev2, -1, -1)).div(2, rounding_mode="floor")
    rec("lossless", lib.equal(lib.stack([ev2, od2], -1).flatten(-2), xi))
    rec("floor_div", lib.floor_divide(di[0, :6], 3))
    rec("remainder", lib.remainder(di[0, :6], 3))
    rec("fmod", lib.fmod(di[0, :6], 3))


def p_swt_atrous(lib, dt, rec):
    F = lib.nn.functional
    clean, x = _signal(lib, dt, n=32, seed=3, batch=1)
    bank = _bank(lib, DB2, dt)
    # undecimated (a trous) transform: the filters dilate by 2 per level, no striding
    a = x
    details = []
    for j in range(3):
        dil = 2**j
        pad = dil * (bank.shape[-1] - 1)
        c = F.conv1d(F.pad(a, (0, pad), mode="circular"), bank, dilation=dil)
        rec(f"c{j}.shape", list(c.shape))
        a, det = c[:, :1], c[:, 1:]
        details.append(det)
        rec(f"d{j}", det[0, 0, :6])
    rec("a3", a[0, 0, :6])
    # inverse: the adjoint of each level, averaged over the two shifts
    for j in reversed(range(3)):
        dil = 2**j
        pad = dil * (bank.shape[-1] - 1)
        y = F.conv_transpose1d(lib.cat([a, details[j]], 1), bank, dilation=dil)
        n = a.shape[-1]
        head = y[..., :n].clone()
        head[..., :pad] += y[..., n:]
        a = head / 2
    rec("inv_err", (a - x).abs().max())
    # the dilated filters written out explicitly (zeros inserted)
    up = lib.zeros(2, 1, 7, dtype=bank.dtype)
    up[..., ::2] = bank
    rec("upsampled", up)
    c1 = F.conv1d(F.pad(x, (0, 6), mode="circular"), up)
    c2 = F.conv1d(F.pad(x, (0, 6), mode="circular"), bank, dilation=2)
    rec("dil_eq", (c1 - c2).abs().max())
    # a conv1d module with dilation and its output-size rule
    conv = lib.nn.Conv1d(1, 2, 4, dilation=3, padding=4, stride=2, bias=False).to(bank.dtype)
    with lib.no_grad():
        conv.weight.copy_(bank)
    rec("dil_out", conv(x))
    # gradients through a dilated analysis
    xr = x.detach().clone().requires_grad_(True)
    out = F.conv1d(F.pad(xr, (0, 6), mode="circular"), bank, dilation=2)
    (out[:, 1] ** 2).sum().backward()
    rec("grad", xr.grad[0, 0, :10])


def _ricker(lib, dt, points, a):
    t = lib.arange(points, dtype=dt) - (points - 1) / 2
    A = 2 / (math.sqrt(3 * a) * math.pi**0.25)
    return A * (1 - (t / a) ** 2) * lib.exp(-(t**2) / (2 * a**2))


def p_ricker_cwt(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    n = 120
    t = lib.arange(n, dtype=d)
    x = lib.exp(-((t - 40) ** 2) / 20) + 0.6 * lib.exp(-((t - 85) ** 2) / 120)
    widths = [1.0, 2.0, 4.0, 8.0]
    rows = []
    for a in widths:
        wav = _ricker(lib, d, min(10 * int(a) + 1, n), a)
        rec(f"w{a}", wav[:5])
        rec(f"w{a}.sum", wav.sum())
        rows.append(F.conv1d(x.view(1, 1, -1), wav.flip(0).view(1, 1, -1), padding="same")[0, 0])
    cwt = lib.stack(rows)
    # an even-length kernel with padding="same" pads one more sample on the right (and warns)
    even = _ricker(lib, d, 10, 1.0).flip(0).view(1, 1, -1)
    y = rec.warns("same_even", lambda: F.conv1d(x.view(1, 1, -1), even, padding="same"))
    rec("same_even.y", y[0, 0, 36:44])
    rec(
        "same_even.pad",
        F.conv1d(F.pad(x.view(1, 1, -1), (4, 5)), even)[0, 0, 36:44] - y[0, 0, 36:44],
    )
    rec("cwt", cwt[:, 30:50:4])
    rec("argmax", cwt.argmax(dim=-1))
    best = cwt.abs().amax(dim=-1)
    rec("best", best)
    rec("scale_of_max", cwt.max(dim=0).indices[35:45])
    # a bank of Gabor-like real wavelets in a single conv1d
    L = 31
    tt = lib.arange(L, dtype=d) - L // 2
    freqs = lib.tensor([0.05, 0.1, 0.2], dtype=d)
    sig = 1 / (2 * freqs)
    bank = lib.exp(-0.5 * (tt / sig[:, None]) ** 2) * lib.cos(2 * math.pi * freqs[:, None] * tt)
    bank = bank - bank.mean(-1, keepdim=True)
    bank = bank / bank.norm(dim=-1, keepdim=True)
    rec("bank_norm", bank.norm(dim=-1))
    resp = F.conv1d(x.view(1, 1, -1), bank.unsqueeze(1), padding=L // 2)
    rec("resp", resp[0, :, 36:44])
    rec("energy", resp.pow(2).sum(-1))
    # a scalogram normalised per scale and its softmax over scales
    sc = cwt.abs() / cwt.abs().amax(-1, keepdim=True)
    rec("sc", sc[:, 38:42])
    rec("softmax", lib.softmax(sc[:, 40] * 5, dim=0))
    # gradients wrt the wavelet width (a differentiable scale)
    a = lib.tensor(3.0, dtype=d, requires_grad=True)
    tw = lib.arange(31, dtype=d) - 15
    wv = (1 - (tw / a) ** 2) * lib.exp(-(tw**2) / (2 * a**2))
    r = F.conv1d(x.view(1, 1, -1), wv.view(1, 1, -1))
    (ga,) = lib.autograd.grad(r.pow(2).sum(), a, create_graph=True)
    rec("ga", ga)
    (gga,) = lib.autograd.grad(ga, a)
    rec("gga", gga)


def p_polyphase(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(6)
    x = lib.randn(1, 1, 48, generator=g, dtype=d)
    h = _lowpass(lib, d, 12, 0.5, lib.hann_window(12, periodic=False, dtype=d))
    rec("h", h)
    # decimate by 2: filter then keep every other sample, vs a strided conv
    full = F.conv1d(x, h.flip(0).view(1, 1, -1))
    strided = F.conv1d(x, h.flip(0).view(1, 1, -1), stride=2)
    rec("dec_eq", (full[..., ::2] - strided).abs().max())
    # the polyphase form: two half-length filters on the two phases
    h0, h1 = h[0::2], h[1::2]
    x0, x1 = x[..., 1::2], x[..., 0::2]
    poly = F.conv1d(x0, h0.flip(0).view(1, 1, -1)) + F.conv1d(x1, h1.flip(0).view(1, 1, -1))
    rec("poly_shape", list(poly.shape))
    rec("poly", poly[0, 0, :6])
    rec("strided", strided[0, 0, :6])
    # interpolate by 2: zero insertion then filtering, vs conv_transpose1d with stride
    up = lib.zeros(1, 1, 96, dtype=d)
    up[..., ::2] = x
    y1 = F.conv1d(F.pad(up, (11, 0)), (2 * h).flip(0).view(1, 1, -1))
    y2 = F.conv_transpose1d(x, (2 * h).view(1, 1, -1), stride=2)
    rec("y2.shape", list(y2.shape))
    rec("interp_eq", (y1[..., :95] - y2[..., :95]).abs().max())
    rec("interp", y2[0, 0, 20:28])
    rec("ct_outpad", F.conv_transpose1d(x, h.view(1, 1, -1), stride=2, output_padding=1).shape)
    rec("ct_pad", F.conv_transpose1d(x, h.view(1, 1, -1), stride=2, padding=5)[0, 0, :4])
    # a rational 3/2 resampler composed of both
    up3 = F.conv_transpose1d(x, lib.ones(1, 1, 3, dtype=d), stride=3)
    rec("up3", up3[0, 0, :9])
    r32 = F.conv1d(up3, h.flip(0).view(1, 1, -1), stride=2)
    rec("r32", r32[0, 0, :6])
    rec("r32.shape", list(r32.shape))
    # pixel_shuffle-style 1-d reshuffle of a two-channel output
    two = lib.cat([x[..., 0::2], x[..., 1::2]], 1)
    back = two.permute(0, 2, 1).reshape(1, 1, -1)
    rec("reshuffle", lib.equal(back, x))
    # gradients of a decimator output wrt the filter taps
    hr = h.clone().requires_grad_(True)
    out = F.conv1d(x, hr.flip(0).view(1, 1, -1), stride=2)
    out.pow(2).sum().backward()
    rec("grad_h", hr.grad)
    xr = x.clone().requires_grad_(True)
    F.conv_transpose1d(xr, h.view(1, 1, -1), stride=2).sum().backward()
    rec("grad_x", xr.grad[0, 0, :6])


def p_peaks_envelope(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(12)
    t = lib.linspace(0, 1, 200, dtype=d)
    x = lib.sin(2 * math.pi * 7 * t) * (1 + 0.5 * lib.sin(2 * math.pi * t))
    x = x + 0.05 * lib.randn(200, generator=g, dtype=d)
    # local maxima: the sample equals the max of its neighbourhood and exceeds a height
    xm = F.max_pool1d(x.view(1, 1, -1), 9, stride=1, padding=4).view(-1)
    peaks = ((x == xm) & (x > 0.3)).nonzero().squeeze(-1)
    rec("peaks", peaks)
    rec("peak_vals", x[peaks])
    pooled, idx = F.max_pool1d(x.view(1, 1, -1), 20, stride=20, return_indices=True)
    rec("pooled", pooled)
    rec("idx", idx)
    rec("unpool", F.max_unpool1d(pooled, idx, 20, output_size=[200])[0, 0, :25].nonzero())
    # an upper envelope through the block maxima by linear interpolation
    env = F.interpolate(pooled, size=200, mode="linear", align_corners=True)
    rec("env", env[0, 0, ::25])
    # zero crossings and their rate
    sgn = lib.sign(x)
    zc = (sgn[1:] * sgn[:-1] < 0).nonzero().flatten()
    rec("zc", zc)
    rec("zcr", (sgn[1:] != sgn[:-1]).to(d).mean())
    rec("signbit", lib.signbit(x[:10]))
    # RMS envelope by unfold and by avg_pool1d on the square
    rms = x.unfold(0, 16, 8).pow(2).mean(-1).sqrt()
    rec("rms", rms)
    rec("rms_pool", F.avg_pool1d(x.pow(2).view(1, 1, -1), 16, 8).sqrt().view(-1) - rms)
    # autocorrelation by conv1d (no FFT): the lag of the first peak gives the period
    xc = x - x.mean()
    ac = F.conv1d(F.pad(xc.view(1, 1, -1), (0, 60)), xc.view(1, 1, -1)).view(-1)
    ac = ac / ac[0]
    rec("ac", ac[:8])
    lag = 10 + ac[10:50].argmax()
    rec("lag", lag)
    # peak prominence-style gaps with diff
    rec("peak_gaps", lib.diff(peaks))
    rec("diff2", lib.diff(x[:10], n=2))
    rec("diff_pre", lib.diff(x[:5], prepend=x[:1], append=x[-1:]))
    # searchsorted of thresholds into a sorted envelope
    se = env.flatten().sort().values
    rec("ss", lib.searchsorted(se, lib.tensor([0.5, 1.0, 1.4], dtype=d)))
    rec("bucketize", lib.bucketize(x[:12], lib.tensor([-0.5, 0.0, 0.5], dtype=d), right=True))


class _Spec:
    """A namespace of the module classes of a library (built lazily per lib)."""


def _wavelet_net(lib, dt):
    nn = lib.nn
    F = nn.functional

    class HaarDWT(nn.Module):
        def __init__(self, levels):
            super().__init__()
            s = 1 / math.sqrt(2)
            self.register_buffer("bank", lib.tensor([[[s, s]], [[s, -s]]], dtype=dt))
            self.levels = levels

        def forward(self, x):
            out = []
            for _ in range(self.levels):
                c = F.conv1d(x, self.bank, stride=2)
                x = c[:, :1]
                out.append(c[:, 1:])
            return x, out

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.dwt = HaarDWT(3)
            self.thr = nn.Parameter(lib.full((3,), 0.1, dtype=dt))
            self.temp = 20.0

        def forward(self, x):
            a, details = self.dwt(x)
            kept = []
            for j, dd in enumerate(details):
                # a smooth soft threshold so the threshold itself gets a gradient
                gate = lib.sigmoid(self.temp * (dd.abs() - self.thr[j]))
                kept.append(dd * gate)
            for dd in reversed(kept):
                a = F.conv_transpose1d(lib.cat([a, dd], 1), self.dwt.bank, stride=2)
            return a

    return Denoiser()


def p_wavelet_module(lib, dt, rec):
    d = dt
    lib.manual_seed(0)
    net = _wavelet_net(lib, d)
    rec("buffers", [n for n, _ in net.named_buffers()])
    rec("params", [n for n, _ in net.named_parameters()])
    rec("sd", list(net.state_dict().keys()))
    clean, x = _signal(lib, d, n=64, seed=11, batch=4)
    opt = lib.optim.SGD(net.parameters(), lr=0.5)
    for step in range(8):
        opt.zero_grad()
        y = net(x)
        loss = lib.nn.functional.mse_loss(y, clean)
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"grad{step}", net.thr.grad)
        opt.step()
    rec("thr", net.thr)
    with lib.no_grad():
        net.eval()
        rec("out", net(x)[0, 0, :8])
    rec("training", net.training)
    rec("bank.rg", net.dwt.bank.requires_grad)
    net2 = _wavelet_net(lib, d)
    net2.load_state_dict(net.state_dict())
    rec("loaded", net2.thr)
    rec("double", net.double().thr.dtype)
    rec("repr", repr(net).replace("\n", "|"))


def p_wavelet_packet(lib, dt, rec):
    clean, x = _signal(lib, dt, n=64, seed=19, batch=1)
    bank = _bank(lib, DB2, dt)
    # full binary tree of depth 3: every node is split again
    nodes = {"": x}
    for _ in range(3):
        new = {}
        for path, v in nodes.items():
            a, dd = _dwt(lib, v, bank)
            new[path + "a"] = a
            new[path + "d"] = dd
        nodes = new
    rec("paths", sorted(nodes))
    energies = {p: v.pow(2).sum() for p, v in nodes.items()}
    e = lib.stack([energies[p] for p in sorted(nodes)])
    rec("energies", e)
    rec("total", e.sum() / x.pow(2).sum())

    # Shannon entropy cost of each node (best-basis style)
    def entropy(v):
        p = v.pow(2) / v.pow(2).sum()
        return -(p * lib.log(p.clamp_min(1e-30))).sum()

    rec("entropy", lib.stack([entropy(nodes[p]) for p in sorted(nodes)]))
    # stacked leaves as a (8, 8) feature matrix and its statistics
    leaves = lib.cat([nodes[p] for p in sorted(nodes)], dim=1).squeeze(0)
    rec("leaves.shape", list(leaves.shape))
    rec("leaf_std", leaves.std(dim=1))
    rec("leaf_absmax", leaves.abs().amax(1))
    rec("leaf_logsumexp", lib.logsumexp(leaves, dim=1))
    # rebuild from the leaves
    cur = nodes
    for _ in range(3):
        up = {}
        for p in sorted({k[:-1] for k in cur}):
            up[p] = _idwt(lib, cur[p + "a"], cur[p + "d"], bank)
        cur = up
    rec("recon_err", (cur[""] - x).abs().max())
    # a chunked view of the flat coefficient vector
    flat = leaves.flatten()
    parts = lib.split(flat, [8, 16, 40])
    rec("split", [p.numel() for p in parts])
    rec("chunks", lib.stack(flat.chunk(4)).norm(dim=1))
    rec("tensor_split", [p.shape[0] for p in lib.tensor_split(flat, [5, 30])])


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    x = lib.arange(6, dtype=d).view(1, 1, 6)
    w = lib.ones(2, 1, 2, dtype=d)
    rec.err("reflect_big", lambda: F.pad(x, (6, 0), mode="reflect"))
    rec.err("reflect_eq", lambda: F.pad(x, (5, 5), mode="reflect"))
    rec.err("circular_big", lambda: F.pad(x, (7, 0), mode="circular"))
    rec.err("pad_odd", lambda: F.pad(x, (1, 2, 3), mode="reflect"))
    rec.err("pad_mode", lambda: F.pad(x, (1, 1), mode="symmetric"))
    rec.err("replicate_1d", lambda: F.pad(lib.arange(4.0), (1, 1), mode="replicate"))
    rec.err("reflect_value", lambda: F.pad(x, (1, 1), mode="reflect", value=1.0))
    rec.err("conv_ch", lambda: F.conv1d(x.repeat(1, 2, 1), w, stride=2))
    rec.err("conv_small", lambda: F.conv1d(x[..., :1], w))
    rec.err("conv_dtype", lambda: F.conv1d(x, w.to(lib.float16)))
    rec.err("conv_same_stride", lambda: F.conv1d(x, w, stride=2, padding="same"))
    rec.err("conv_groups", lambda: F.conv1d(x, w, groups=2))
    rec.err("convT_ch", lambda: F.conv_transpose1d(x.repeat(1, 2, 1), w, stride=2))
    rec.err("hann_neg", lambda: lib.hann_window(-1))
    rec.err("hann_int", lambda: lib.hann_window(4, dtype=lib.int64))
    rec.err("kaiser_int", lambda: lib.kaiser_window(4, dtype=lib.int32))
    rec.err("win_float_len", lambda: lib.hann_window(4.0))
    rec.err("sw_neg", lambda: lib.signal.windows.hann(-2))
    rec.err("sw_gauss_std", lambda: lib.signal.windows.gaussian(5, std=0.0))
    rec.err("sw_exp_center", lambda: lib.signal.windows.exponential(5, center=1.0))
    rec.err("sw_int", lambda: lib.signal.windows.cosine(5, dtype=lib.int64))
    rec.err("sw_kaiser_beta", lambda: lib.signal.windows.kaiser(5, beta=-1.0))
    rec.err("sw_gc_empty", lambda: lib.signal.windows.general_cosine(5, a=[]))
    rec.err("unfold_big", lambda: x.unfold(-1, 7, 1))
    rec.err("unfold_step", lambda: x.unfold(-1, 2, 0))
    rec.err("fold_bad", lambda: F.fold(lib.ones(1, 3, 4, dtype=d), (1, 5), (1, 2)))
    rec.err("interp_ac", lambda: F.interpolate(x, size=4, mode="nearest", align_corners=True))
    rec.err("interp_both", lambda: F.interpolate(x, size=4, scale_factor=2.0))
    rec.err("interp_none", lambda: F.interpolate(x, mode="linear"))
    rec.err("interp_mode", lambda: F.interpolate(x, size=4, mode="bilinear"))
    rec.err("interp_2d_lin", lambda: F.interpolate(x.view(1, 2, 3), size=(4, 4), mode="linear"))
    rec.err("median_dim", lambda: x.median(dim=3))
    rec.err("pinv_1d", lambda: lib.linalg.pinv(lib.ones(3, dtype=d)))
    rec.err("softshrink_neg", lambda: F.softshrink(x, -1.0))
    rec.err("maxpool_big", lambda: F.max_pool1d(x, 8))
    rec.err("avgpool_pad", lambda: F.avg_pool1d(x, 2, padding=2))
    rec.err("conv_pad_neg", lambda: F.conv1d(x, w, padding=-1))
    rec.err("pixel_unshuffle", lambda: F.pixel_unshuffle(lib.ones(1, 1, 3, 4, dtype=d), 2))


def p_filtfilt_detrend(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(31)
    n = 100
    t = lib.arange(n, dtype=d)
    x = 0.02 * t + 1.0 + lib.sin(2 * math.pi * t / 25) + 0.2 * lib.randn(n, generator=g, dtype=d)
    # linear detrend by least squares
    A = lib.stack([t, lib.ones_like(t)], 1)
    coef = lib.linalg.lstsq(A, x.unsqueeze(1)).solution.squeeze(1)
    rec("trend", coef)
    resid = x - A @ coef
    rec("resid_mean", resid.mean().abs() < 1e-4)
    rec("resid", resid[:6])
    # the same with pinv and normal equations
    rec("pinv", lib.linalg.pinv(A) @ x)
    rec("normal", lib.linalg.solve(A.T @ A, A.T @ x))
    rec(
        "cholesky",
        lib.cholesky_solve((A.T @ x).unsqueeze(1), lib.linalg.cholesky(A.T @ A)).squeeze(1),
    )
    # polynomial detrend via polyfit-like vander and qr
    V = lib.vander(t / n, N=4)
    Q, R = lib.linalg.qr(V)
    beta = lib.linalg.solve_triangular(R, Q.T @ x.unsqueeze(1), upper=True)
    rec("qr_beta", beta.squeeze(1))
    # zero-phase FIR: filter forward, flip, filter again, flip
    h = _lowpass(lib, d, 15, 0.2, lib.hamming_window(15, periodic=False, dtype=d))
    k = h.flip(0).view(1, 1, -1)

    def fwd(v):
        return F.conv1d(F.pad(v.view(1, 1, -1), (7, 7), mode="reflect"), k).view(-1)

    y = fwd(fwd(resid).flip(0)).flip(0)
    rec("filtfilt", y[::10])
    # the zero-phase result is symmetric in its response: no lag at the sine's peak
    rec("peak_pos", y[20:45].argmax() + 20)
    rec("raw_peak_pos", fwd(resid)[20:45].argmax() + 20)
    # normalise (z-score, min-max, robust)
    z = (x - x.mean()) / x.std()
    rec("z", z[:5])
    mm = (x - x.min()) / (x.max() - x.min())
    rec("mm", mm[-5:])
    med = x.median()
    iqr = x.quantile(0.75) - x.quantile(0.25)
    rec("robust", ((x - med) / iqr)[:5])
    rec("layer_norm", F.layer_norm(x.view(4, 25), (25,))[:, 0])
    rec("normalize", F.normalize(x.view(4, 25), dim=1)[:, :2])
    # a first-order IIR (DC blocker) by a Python loop, differentiable wrt the pole
    r = lib.tensor(0.95, dtype=d, requires_grad=True)
    yv = [x[0] * 0]
    for i in range(1, 40):
        yv.append(x[i] - x[i - 1] + r * yv[-1])
    yv = lib.stack(yv)
    rec("iir", yv[-5:])
    (gr,) = lib.autograd.grad(yv.pow(2).sum(), r)
    rec("iir_grad", gr)


def p_dwt2d_multilevel(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(23)
    yy, xx = lib.meshgrid(
        lib.linspace(-1, 1, 16, dtype=d), lib.linspace(-1, 1, 16, dtype=d), indexing="ij"
    )
    img = (xx**2 + yy**2 < 0.5).to(d) + 0.1 * lib.randn(16, 16, generator=g, dtype=d)
    img = img.view(1, 1, 16, 16)
    lo = _bank(lib, DB2, d)[0, 0]
    hi = _bank(lib, DB2, d)[1, 0]
    k = lib.stack([lib.outer(a, b) for a in (lo, hi) for b in (lo, hi)]).unsqueeze(1)
    rec("k_orth", k.flatten(1) @ k.flatten(1).T)

    def dwt2(x):
        xp = F.pad(x, (0, 2, 0, 2), mode="circular")
        return F.conv2d(xp, k, stride=2)

    def idwt2(c):
        y = F.conv_transpose2d(c, k, stride=2)
        n = 2 * c.shape[-1]
        y = y.clone()
        y[..., :2, :] += y[..., n:, :]
        y[..., :, :2] += y[..., :, n:]
        return y[..., :n, :n]

    coeffs = []
    a = img
    for _ in range(2):
        c = dwt2(a)
        a = c[:, :1]
        coeffs.append(c[:, 1:])
    rec("a2", a[0, 0])
    rec("band_norms", lib.stack([c.flatten(2).norm(dim=-1) for c in coeffs]))
    # compress: keep the largest 20% of detail coefficients
    flat = lib.cat([c.flatten() for c in coeffs])
    thr = flat.abs().kthvalue(int(0.8 * flat.numel())).values
    rec("thr", thr)
    kept = [c * (c.abs() > thr) for c in coeffs]
    rec("nnz", [int((c != 0).sum()) for c in kept])
    rec("count_nonzero", lib.count_nonzero(kept[0], dim=(2, 3)))
    r = a
    for c in reversed(kept):
        r = idwt2(lib.cat([r, c], 1))
    rec("compressed", r[0, 0, 6:10, 6:10])
    rec("psnr", 10 * lib.log10(img.amax() ** 2 / (r - img).pow(2).mean()))
    r = a
    for c in reversed(coeffs):
        r = idwt2(lib.cat([r, c], 1))
    rec("lossless", (r - img).abs().max())
    # edge strength from the detail bands
    lh, hl, hh = coeffs[0].unbind(1)
    edge = lib.sqrt(lh**2 + hl**2 + hh**2)
    rec("edge", edge[0])
    rec("edge_arg", edge.flatten().argmax())
    # a gradient of a sparsity loss on the details wrt the image
    ir = img.clone().requires_grad_(True)
    c = dwt2(ir)
    c[:, 1:].abs().sum().backward()
    rec("grad", ir.grad[0, 0, :4, :4])


def p_threshold_grads(lib, dt, rec):
    d = dt
    F = lib.nn.functional
    x = lib.linspace(-2, 2, 17, dtype=d).requires_grad_(True)
    t = lib.tensor(0.75, dtype=d, requires_grad=True)
    soft = x.sign() * (x.abs() - t).clamp_min(0)
    hard = lib.where(x.abs() > t, x, lib.zeros_like(x))
    rec("soft", soft)
    rec("hard", hard)
    rec("relu_form", F.relu(x - t) - F.relu(-x - t))
    rec("shrink_eq", lib.equal(F.softshrink(x.detach(), 0.75), soft.detach()))
    gx, gt = lib.autograd.grad(soft.pow(2).sum(), [x, t], create_graph=True)
    rec("soft.gx", gx)
    rec("soft.gt", gt)
    (ggt,) = lib.autograd.grad(gt, t)
    rec("soft.ggt", ggt)
    (hx,) = lib.autograd.grad(hard.sum(), x)
    rec("hard.gx", hx)
    # gradients at the kinks: sign(0) = 0, clamp passes at the bound, abs'(0) = 0
    z = lib.tensor([0.0, 0.75, -0.75, 1e-3], dtype=d, requires_grad=True)
    s2 = z.sign() * (z.abs() - 0.75).clamp_min(0)
    (gz,) = lib.autograd.grad(s2.sum(), z)
    rec("kinks", gz)
    (ga,) = lib.autograd.grad(z.abs().sum(), z)
    rec("abs_grad", ga)
    (gc,) = lib.autograd.grad(z.clamp(min=-0.75, max=0.75).sum(), z)
    rec("clamp_grad", gc)
    (gm,) = lib.autograd.grad(z.clamp_min(0.0).sum(), z)
    rec("clamp_min_grad", gm)
    # softshrink / hardshrink / threshold gradients
    (g1,) = lib.autograd.grad(F.softshrink(z, 0.75).sum(), z)
    rec("softshrink_grad", g1)
    (g2,) = lib.autograd.grad(F.hardshrink(z, 0.75).sum(), z)
    rec("hardshrink_grad", g2)
    (g3,) = lib.autograd.grad(F.threshold(z, 0.5, -1.0).sum(), z)
    rec("threshold_grad", g3)
    rec("threshold", F.threshold(x.detach(), 0.5, 20.0))
    rec("tanhshrink", F.tanhshrink(x.detach())[:5])
    # firm (semi-soft) thresholding between two levels
    t1, t2 = 0.5, 1.5
    ax = x.abs()
    firm = lib.where(
        ax <= t1, lib.zeros_like(x), lib.where(ax >= t2, x, x.sign() * t2 * (ax - t1) / (t2 - t1))
    )
    rec("firm", firm)
    (gf,) = lib.autograd.grad(firm.sum(), x)
    rec("firm.g", gf)
    # in-place shrinkage on a no-grad copy
    c = x.detach().clone()
    mask = c.abs() <= 0.75
    c.masked_fill_(mask, 0.0)
    c.sub_(c.sign() * 0.75 * (~mask))
    rec("inplace", c)
    rec("sgn", lib.sgn(x.detach()[:4]))
    rec("copysign", lib.copysign(lib.tensor([1.0, 2.0], dtype=d), lib.tensor([-0.0, 0.0], dtype=d)))


def p_haar3d(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(41)
    vol = lib.rand(1, 2, 4, 6, 6, generator=g, dtype=d)
    s = 1 / math.sqrt(2)
    h = [lib.tensor([s, s], dtype=d), lib.tensor([s, -s], dtype=d)]
    k = lib.stack(
        [lib.einsum("i,j,k->ijk", h[a], h[b], h[c]) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    ).unsqueeze(1)
    rec("k.shape", list(k.shape))
    w = k.repeat(2, 1, 1, 1, 1)
    vr = vol.clone().requires_grad_(True)
    out = F.conv3d(vr, w, stride=2, groups=2)
    rec("out.shape", list(out.shape))
    rec("LLL", out[0, 0])
    rec("band_energy", out.pow(2).sum((0, 2, 3, 4)).view(2, 8).sum(0))
    back = F.conv_transpose3d(out, w, stride=2, groups=2)
    rec("recon", (back - vol).abs().max())
    out[:, 1::8].abs().sum().backward()
    rec("grad", vr.grad[0, 1, :2, :2, :2])
    # separable application: a 1-d Haar along each axis in turn by moving it last
    x = vol
    for axis in (2, 3, 4):
        xm = x.movedim(axis, -1)
        lo = (xm[..., 0::2] + xm[..., 1::2]) * s
        hi = (xm[..., 0::2] - xm[..., 1::2]) * s
        x = lib.cat([lo, hi], -1).movedim(-1, axis)
    rec("separable_ll", x[0, 0, :2, :3, :3])
    rec("sep_vs_conv", (x[:, :, :2, :3, :3] - out[:, 0::8]).abs().max())
    # a Conv3d module carrying the bank
    conv = lib.nn.Conv3d(2, 16, 2, stride=2, groups=2, bias=False, dtype=d)
    with lib.no_grad():
        conv.weight.copy_(w)
    rec("mod", (conv(vol) - out).abs().max())
    rec("mod_repr", repr(conv))
    # unbatched input
    rec("unbatched", F.conv3d(vol[0], w, stride=2, groups=2).shape)


def p_grid_resample(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    x = lib.sin(lib.linspace(0, 3, 10, dtype=d)).view(1, 1, 1, 10)
    x = lib.cat([x, x**2], 1)
    # fractional delay: sample at shifted positions on a 1-row grid
    pos = lib.linspace(-1.2, 1.2, 13, dtype=d)
    for ac in [True, False]:
        for pm in ["zeros", "border", "reflection"]:
            for mode in ["bilinear", "nearest", "bicubic"]:
                grid = lib.stack([pos, lib.zeros_like(pos)], -1).view(1, 1, 13, 2)
                y = F.grid_sample(x, grid, mode=mode, padding_mode=pm, align_corners=ac)
                rec(f"{mode}.{pm}.{ac}", y[0, :, 0])
    # gradients wrt the input and the grid (a learnable warp)
    xr = x.clone().requires_grad_(True)
    gr = lib.stack([pos * 0.9, lib.zeros_like(pos)], -1).view(1, 1, 13, 2).requires_grad_(True)
    y = F.grid_sample(xr, gr, mode="bilinear", padding_mode="border", align_corners=False)
    (y * lib.arange(13, dtype=d)).sum().backward()
    rec("gx", xr.grad)
    rec("ggrid", gr.grad[..., 0])
    # affine_grid for a 2-d zoom, then sampling
    g = lib.Generator().manual_seed(2)
    img = lib.rand(1, 1, 5, 5, generator=g, dtype=d)
    theta = lib.tensor([[[0.8, 0.1, 0.05], [-0.1, 0.8, 0.0]]], dtype=d)
    for ac in [True, False]:
        grid = F.affine_grid(theta, (1, 1, 4, 4), align_corners=ac)
        rec(f"grid{ac}", grid[0, 0])
        rec(f"warp{ac}", F.grid_sample(img, grid, align_corners=ac)[0, 0])


def p_lpc_levinson(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(51)
    # an AR(3) process driven by white noise
    a_true = lib.tensor([1.2, -0.7, 0.2], dtype=d)
    e = lib.randn(400, generator=g, dtype=d)
    x = lib.zeros(400, dtype=d)
    for t in range(3, 400):
        x[t] = (a_true * x[t - 3 : t].flip(0)).sum() + e[t]
    rec("x", x[-5:])
    order = 3
    xc = x - x.mean()
    r = lib.stack([(xc[: 400 - k] * xc[k:]).sum() for k in range(order + 1)]) / 400
    rec("r", r)
    # Toeplitz matrix by index arithmetic and Yule-Walker by solve
    idx = (lib.arange(order)[:, None] - lib.arange(order)[None, :]).abs()
    R = r[idx]
    rec("R", R)
    a = lib.linalg.solve(R, r[1:])
    rec("yw", a)
    rec("cond", lib.linalg.cond(R))
    # Levinson-Durbin: the same coefficients and the reflection coefficients
    err = r[0]
    coef = r.new_zeros(0)
    ks = []
    for m in range(order):
        acc = r[m + 1] - (coef * r[1 : m + 1].flip(0)).sum()
        k = acc / err
        ks.append(k)
        coef = lib.cat([coef - k * coef.flip(0), k.view(1)])
        err = err * (1 - k**2)
    rec("levinson", coef)
    rec("refl", lib.stack(ks))
    rec("pred_err", err)
    # the prediction error filter applied by conv1d and its residual variance
    pef = lib.cat([lib.ones(1, dtype=d), -coef])
    res = F.conv1d(x.view(1, 1, -1), pef.flip(0).view(1, 1, -1))
    rec("res_var", res.var())
    rec("res_head", res[0, 0, :5])
    # autocorrelation by conv1d gives the same r
    ac = F.conv1d(F.pad(xc.view(1, 1, -1), (0, order)), xc.view(1, 1, -1)).view(-1) / 400
    rec("ac_eq", (ac - r).abs().max() < 1e-3)
    # least-squares AR fit with a lagged design matrix from unfold
    lagged = x.unfold(0, order + 1, 1)
    A = lagged[:, :order].flip(1)
    b = lagged[:, order]
    rec("lstsq", lib.linalg.lstsq(A, b.unsqueeze(1)).solution.squeeze(1))
    # gradient of the prediction error energy wrt the coefficients
    c = coef.clone().requires_grad_(True)
    pe = F.conv1d(x.view(1, 1, -1), lib.cat([lib.ones(1, dtype=d), -c]).flip(0).view(1, 1, -1))
    (gc,) = lib.autograd.grad(pe.pow(2).mean(), c)
    rec("grad_at_opt", gc.abs().max() < 0.1)
    rec("grad", gc)


def p_mulaw(lib, dt, rec):
    d = dt
    g = lib.Generator().manual_seed(61)
    x = lib.tanh(lib.randn(2, 64, generator=g, dtype=d))
    mu = 255
    y = lib.sign(x) * lib.log1p(mu * x.abs()) / math.log1p(mu)
    rec("compand", y[0, :8])
    q = ((y + 1) / 2 * mu + 0.5).to(lib.int64)
    rec("q", q[0, :12])
    rec("q.minmax", lib.stack([q.min(), q.max()]))
    yd = 2 * (q.to(d) / mu) - 1
    xd = lib.sign(yd) * lib.expm1(yd.abs() * math.log1p(mu)) / mu
    rec("decoded", xd[0, :8])
    rec("err", (xd - x).abs().max())
    rec("snr", 10 * lib.log10(x.pow(2).sum() / (xd - x).pow(2).sum()))
    # uniform quantisation with round and the straight-through estimator
    xr = x.clone().requires_grad_(True)
    step = 2.0 / 16
    xq = xr + (lib.round(xr / step) * step - xr).detach()
    rec("uq", xq[0, :8])
    (xq.pow(2).sum()).backward()
    rec("ste_grad", xr.grad[0, :8])
    rec("round_dec", lib.round(x[0, :6], decimals=2))
    rec("half_even", lib.round(lib.tensor([0.5, 1.5, 2.5, -0.5, -1.5], dtype=d)))
    # histograms of the codes
    rec("bincount", lib.bincount(q.flatten(), minlength=256)[120:136])
    rec("histc", lib.histc(x, bins=8, min=-1, max=1))
    edges = lib.linspace(-1, 1, 9, dtype=d)
    rec("bucketize", lib.bucketize(x[0, :10], edges))
    rec("one_hot", lib.nn.functional.one_hot(lib.bucketize(x[0, :4], edges), 10))
    # dithering: add uniform noise before rounding
    noise = (lib.rand(2, 64, generator=g, dtype=d) - 0.5) * step
    rec("dither", (lib.round((x + noise) / step) * step)[1, :8])
    # clamp to the codec's range and the int8 / uint8 storage round trip
    s8 = (x * 127).round().clamp(-128, 127).to(lib.int8)
    rec("int8", s8[0, :8])
    u8 = (s8.to(lib.int16) + 128).to(lib.uint8)
    rec("uint8", u8[0, :8])
    rec("back", (u8.to(lib.int16) - 128).to(d)[0, :8] / 127)


def p_numeric_calculus(lib, dt, rec):
    d = dt
    t = lib.linspace(0, 2, 21, dtype=d)
    x = lib.sin(3 * t) * lib.exp(-t)
    rec("grad_dx", lib.gradient(x, spacing=0.1)[0])
    rec("grad_coords", lib.gradient(x, spacing=(t,))[0])
    rec("grad_edge2", lib.gradient(x, spacing=0.1, edge_order=2)[0][[0, 1, -2, -1]])
    img = lib.outer(x, lib.cos(t))
    gy, gx = lib.gradient(img, spacing=[0.1, 0.2])
    rec("g2d", lib.stack([gy[3, :4], gx[3, :4]]))
    rec("g2d_dim", lib.gradient(img, dim=1)[0][0, :5])
    rec("trapz", lib.trapezoid(x, t))
    rec("trapz_dx", lib.trapezoid(x, dx=0.1))
    rec("trapz_2d", lib.trapezoid(img, dx=0.1, dim=0)[:5])
    rec("cumtrapz", lib.cumulative_trapezoid(x, t)[-5:])
    rec("cumtrapz_dx", lib.cumulative_trapezoid(img, dx=0.1, dim=1)[0, :4])
    rec("diff", lib.diff(img, n=2, dim=0)[0, :4])
    rec("cumsum_int", lib.cumsum(lib.tensor([1, 2, 3], dtype=lib.int32), 0))
    rec("cumsum_dtype", lib.cumsum(x, 0, dtype=lib.float64)[-3:])
    rec("cumprod", lib.cumprod(1 + x[:6] / 10, 0))
    # gradients through trapezoid and gradient
    xr = x.clone().requires_grad_(True)
    (lib.trapezoid(xr**2, t) + lib.gradient(xr, spacing=0.1)[0].pow(2).sum()).backward()
    rec("grad", xr.grad[:8])
    # signal energy and power in dB
    rec("energy_db", 10 * lib.log10(x.pow(2).sum()))
    rec("rms_db", 20 * lib.log10(x.pow(2).mean().sqrt()))


def p_kaiser_design(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    # Kaiser's empirical formulas for the beta and length of a given attenuation
    for atten in [21.0, 40.0, 60.0, 80.0]:
        if atten > 50:
            beta = 0.1102 * (atten - 8.7)
        elif atten >= 21:
            beta = 0.5842 * (atten - 21) ** 0.4 + 0.07886 * (atten - 21)
        else:
            beta = 0.0
        rec(f"beta{atten}", beta)
        numtaps = math.ceil((atten - 7.95) / (2.285 * math.pi * 0.1)) + 1
        rec(f"taps{atten}", numtaps)
        w = lib.kaiser_window(numtaps, False, beta, dtype=d)
        h = _lowpass(lib, d, numtaps, 0.4, w)
        resp = _response(lib, h, lib.linspace(0.55, 1, 10, dtype=d))
        stop = 20 * lib.log10(resp.max())
        # float32: the deep stop band is rounding noise (and a float32 Kaiser window is a few
        # ulps off torch's), so only the design goal is compared
        rec(f"stop{atten}", stop if d == lib.float64 else stop < 5 - atten)
    # the Bessel functions the window uses
    z = lib.linspace(0, 12, 7, dtype=d)
    rec("i0", lib.i0(z))
    rec("special_i0", lib.special.i0(z))
    rec("i0e", lib.special.i0e(z))
    rec("i1", lib.special.i1(z))
    rec("i1e", lib.special.i1e(z))
    n = lib.arange(9, dtype=d)
    a = 4.0
    manual = lib.special.i0(6.0 * lib.sqrt(1 - ((n - a) / a) ** 2)) / lib.special.i0(
        lib.tensor(6.0, dtype=d)
    )
    rec("manual", manual)
    rec("kaiser_sym", lib.kaiser_window(9, False, 6.0, dtype=d))
    # gradients through i0 (a learnable Kaiser beta)
    beta = lib.tensor(5.0, dtype=d, requires_grad=True)
    wk = lib.special.i0(beta * lib.sqrt((1 - ((n - a) / a) ** 2).clamp_min(0))) / lib.special.i0(
        beta
    )
    (gb,) = lib.autograd.grad(wk.sum(), beta, create_graph=True)
    rec("gbeta", gb)
    (ggb,) = lib.autograd.grad(gb, beta)
    rec("ggbeta", ggb)
    # sinc and its special spelling
    m = lib.linspace(-3, 3, 13, dtype=d)
    rec("sinc", lib.sinc(m))
    rec("special_sinc", lib.special.sinc(m))
    mr = m.clone().requires_grad_(True)
    (gs,) = lib.autograd.grad(lib.sinc(mr).sum(), mr)
    rec("sinc_grad", gs)
    # filtering with the designed taps on a batch of channels
    w = lib.kaiser_window(21, False, 5.0, dtype=d)
    h = _lowpass(lib, d, 21, 0.25, w)
    x = (
        lib.cos(0.9 * math.pi * lib.arange(64, dtype=d)).repeat(3, 1)
        + lib.arange(3, dtype=d)[:, None]
    )
    y = F.conv1d(x.unsqueeze(0), h.flip(0).view(1, 1, -1).repeat(3, 1, 1), groups=3)
    rec("filtered", y[0, :, 10:14])


def p_adaptive_pool(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(71)
    x = lib.randn(2, 3, 23, generator=g, dtype=d).cumsum(-1)
    for size in [5, 7, 23, 30]:
        rec(f"aavg{size}", F.adaptive_avg_pool1d(x, size)[0, 0])
        mx, idx = F.adaptive_max_pool1d(x, size, return_indices=True)
        rec(f"amax{size}", mx[1, 2])
        rec(f"aidx{size}", idx[1, 2])
    rec("lp2", F.lp_pool1d(x, 2, 4, stride=4)[0, 0])
    rec("lp3", F.lp_pool1d(x.abs(), 3.0, 3)[0, 1])
    rec("lp_mod", repr(lib.nn.LPPool1d(2, 4)))
    img = lib.rand(1, 2, 9, 11, generator=g, dtype=d)
    rec("aavg2d", F.adaptive_avg_pool2d(img, (4, 3))[0, 0])
    rec("aavg2d_none", F.adaptive_avg_pool2d(img, (None, 3)).shape)
    rec("amax2d", F.adaptive_max_pool2d(img, 2)[0, 1])
    # gradients of adaptive pools (overlapping bins)
    xr = x.clone().requires_grad_(True)
    (F.adaptive_avg_pool1d(xr, 7) * lib.arange(7, dtype=d)).sum().backward()
    rec("g_avg", xr.grad[0, 0])
    xr.grad = None
    F.adaptive_max_pool1d(xr, 7).sum().backward()
    rec("g_max", xr.grad[0, 0])
    # max_pool1d with dilation and padding, avg_pool1d divisor
    rec("mp_dil", F.max_pool1d(x, 3, stride=2, padding=1, dilation=2)[0, 0])
    rec("mp_ceil", F.max_pool1d(x, 4, stride=3, ceil_mode=True)[0, 0])
    rec("ap2d_div", F.avg_pool2d(img, 3, stride=2, padding=1, divisor_override=4)[0, 0])
    rec("ap2d_ceil", F.avg_pool2d(img, 2, ceil_mode=True, count_include_pad=False)[0, 1])


def p_patch_denoise(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(81)
    yy, xx = lib.meshgrid(lib.arange(12, dtype=d), lib.arange(12, dtype=d), indexing="ij")
    clean = lib.sin(xx / 3) * lib.cos(yy / 4)
    noisy = (clean + 0.3 * lib.randn(12, 12, generator=g, dtype=d)).view(1, 1, 12, 12)
    # overlapping 4x4 patches with stride 2, shrunk in a Haar basis, averaged back by fold
    cols = F.unfold(noisy, kernel_size=4, stride=2)
    rec("cols.shape", list(cols.shape))
    patches = cols.transpose(1, 2).reshape(-1, 4, 4)
    s = 1 / math.sqrt(2)
    H = lib.tensor([[s, s, 0, 0], [0, 0, s, s], [s, -s, 0, 0], [0, 0, s, -s]], dtype=d)
    H2 = lib.tensor([[s, s], [s, -s]], dtype=d)
    T = lib.block_diag(H2, lib.eye(2, dtype=d)) @ H
    rec("T_orth", (T @ T.T - lib.eye(4, dtype=d)).abs().max())
    c = T @ patches @ T.T
    rec("c0", c[0])
    c_shr = lib.where(c.abs() < 0.3, lib.zeros_like(c), c)
    c_shr[:, 0, 0] = c[:, 0, 0]
    rec_p = T.T @ c_shr @ T
    cols2 = rec_p.reshape(1, -1, 16).transpose(1, 2)
    num = F.fold(cols2, (12, 12), kernel_size=4, stride=2)
    den = F.fold(lib.ones_like(cols2), (12, 12), kernel_size=4, stride=2)
    rec("den", den[0, 0, :3])
    out = num / den
    rec("out", out[0, 0, 4:8, 4:8])
    rec("mse_noisy", (noisy[0, 0] - clean).pow(2).mean())
    rec("mse_out", (out[0, 0] - clean).pow(2).mean())
    # unfold with dilation and padding, and the matching fold
    cd = F.unfold(noisy, kernel_size=3, dilation=2, padding=2, stride=3)
    rec("dil.shape", list(cd.shape))
    rec("dil", cd[0, :, 5])
    fd = F.fold(cd, (12, 12), kernel_size=3, dilation=2, padding=2, stride=3)
    rec("dil_fold", fd[0, 0, :4, :4])
    rec(
        "mods",
        repr(lib.nn.Unfold(3, dilation=2, padding=2, stride=3)) + repr(lib.nn.Fold((12, 12), 3)),
    )
    # gradients through unfold/fold
    nr = noisy.clone().requires_grad_(True)
    cc = F.unfold(nr, kernel_size=4, stride=2)
    F.fold(cc * 0.5, (12, 12), kernel_size=4, stride=2).pow(2).sum().backward()
    rec("grad", nr.grad[0, 0, :3, :6])
    # Kronecker-structured 2-d filters
    k1 = lib.tensor([1.0, 2.0, 1.0], dtype=d) / 4
    k2 = lib.kron(k1.view(3, 1), k1.view(1, 3))
    rec("kron", k2)
    rec("blur", F.conv2d(F.pad(noisy, (1, 1, 1, 1), mode="reflect"), k2.view(1, 1, 3, 3))[0, 0, :2])


def p_conv_variants(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    g = lib.Generator().manual_seed(91)
    x = lib.randn(2, 4, 15, generator=g, dtype=d)
    w = lib.randn(6, 2, 3, generator=g, dtype=d)
    b = lib.randn(6, generator=g, dtype=d)
    rec("unbatched", F.conv1d(x[0], w, b, groups=2)[:, :4])
    rec("valid", F.conv1d(x, w, padding="valid", groups=2).shape)
    rec("same_dil", F.conv1d(x, w, b, padding="same", dilation=3, groups=2)[0, :2, :5])
    rec("stride_pad", F.conv1d(x, w, stride=3, padding=2, groups=2)[1, -1])
    wt = lib.randn(4, 3, 3, generator=g, dtype=d)
    for kw in [
        dict(stride=2),
        dict(stride=2, output_padding=1),
        dict(stride=3, padding=1, dilation=2),
        dict(stride=2, groups=2),
        dict(stride=2, padding=2, output_padding=1, groups=2, dilation=1),
    ]:
        y = F.conv_transpose1d(x, wt, **kw)
        rec(f"ct{sorted(kw.items())}", y[0, 0, :6])
        rec(f"ct{sorted(kw.items())}.shape", list(y.shape))
    ct = lib.nn.ConvTranspose1d(4, 3, 3, stride=2, dtype=d)
    rec("ct_out_size", ct(x, output_size=[32]).shape)
    rec.err("ct_bad_size", lambda: ct(x, output_size=[40]))
    rec.err("ct_padmode", lambda: lib.nn.ConvTranspose1d(4, 3, 3, padding_mode="reflect"))
    rec.err("same_string", lambda: lib.nn.Conv1d(4, 2, 3, padding="full"))
    rec.err("same_stride_mod", lambda: lib.nn.Conv1d(4, 2, 3, stride=2, padding="same"))
    c = lib.nn.Conv1d(4, 2, 4, padding="same", padding_mode="circular", dtype=d)
    with lib.no_grad():
        c.weight.copy_(lib.randn(2, 4, 4, generator=g, dtype=d))
        c.bias.zero_()
    rec("same_circ", c(x)[0, :, :5])
    rec("same_circ_repr", repr(c))
    c2 = lib.nn.Conv2d(1, 1, (3, 5), padding=(1, 2), padding_mode="reflect", bias=False, dtype=d)
    with lib.no_grad():
        c2.weight.fill_(1.0 / 15)
    rec("c2", c2(x[:1, :1].expand(1, 1, 4, 15).contiguous())[0, 0, :, :4])
    # double backward through a strided, dilated conv
    xr = x.clone().requires_grad_(True)
    wr = w.clone().requires_grad_(True)
    y = F.conv1d(xr, wr, stride=2, dilation=2, padding=1, groups=2)
    gx, gw = lib.autograd.grad(y.pow(2).sum(), [xr, wr], create_graph=True)
    rec("gx", gx[0, 0, :6])
    rec("gw", gw[0])
    (ggw,) = lib.autograd.grad(gx.pow(2).sum(), wr)
    rec("ggw", ggw[1])


def p_errors2(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    x = lib.arange(8, dtype=d).view(1, 1, 8)
    W = lib.signal.windows
    rec.err("win_bool_len", lambda: lib.hann_window(True))
    # the factories' options are keyword-only: a positional dtype finds no overload
    rec.err("win_pos_dtype", lambda: lib.hann_window(8, False, d))
    rec.err("win_pos_dtype_bl", lambda: lib.blackman_window(8, True, d))
    rec.err("win_pos_extra_bart", lambda: lib.bartlett_window(5, True, 1))
    rec.err("win_pos_dtype_ham", lambda: lib.hamming_window(8, False, 0.5, 0.5, d))
    rec.err("win_pos_dtype_kai", lambda: lib.kaiser_window(8, False, 6.0, d))
    rec.err("win_half_sw", lambda: W.hann(5, dtype=lib.float16))
    rec.err("win_nuttall_int", lambda: W.nuttall(5, dtype=lib.int32))
    rec.err("win_gauss_neg", lambda: W.gaussian(5, std=-1.0))
    rec.err("win_exp_tau", lambda: W.exponential(5, tau=-1.0))
    rec.err("win_bartlett_neg", lambda: W.bartlett(-1))
    rec.err("win_layout", lambda: W.hann(4, layout=lib.strided, device="cpu"))
    rec.err("interp_neg_sf", lambda: F.interpolate(x, scale_factor=-1.0))
    rec.err("interp_size0", lambda: F.interpolate(x, size=0, mode="linear"))
    rec.err("interp_size_len", lambda: F.interpolate(x, size=(4, 4)))
    rec.err("interp_aa_linear", lambda: F.interpolate(x, size=4, mode="linear", antialias=True))
    rec.err("interp_rsf_size", lambda: F.interpolate(x, size=4, recompute_scale_factor=True))
    rec.err("interp_1d", lambda: F.interpolate(lib.arange(4.0), size=8))
    rec.err("fold_blocks", lambda: F.fold(lib.ones(1, 4, 5, dtype=d), (3, 3), 2))
    rec.err("fold_chan", lambda: F.fold(lib.ones(1, 5, 4, dtype=d), (3, 3), 2))
    rec.err("unfold_dim", lambda: x.unfold(3, 2, 1))
    rec.err("unfold2d_k", lambda: F.unfold(x, kernel_size=2))
    rec.err("conv_w2d", lambda: F.conv1d(x, lib.ones(1, 2, dtype=d)))
    rec.err("conv_stride0", lambda: F.conv1d(x, lib.ones(1, 1, 2, dtype=d), stride=0))
    rec.err(
        "convT_outpad",
        lambda: F.conv_transpose1d(x, lib.ones(1, 1, 2, dtype=d), stride=2, output_padding=2),
    )
    rec.err("median_empty", lambda: lib.tensor([], dtype=d).median(0))
    rec.err("kth_big", lambda: x.kthvalue(9, -1))
    rec.err("quantile_q", lambda: x.quantile(1.5))
    rec.err("quantile_interp", lambda: x.flatten().quantile(0.5, interpolation="mean"))
    rec.err(
        "grid_mode",
        lambda: F.grid_sample(x.view(1, 1, 2, 4), lib.zeros(1, 1, 1, 2, dtype=d), mode="cubic"),
    )
    rec.err(
        "grid_pad",
        lambda: F.grid_sample(
            x.view(1, 1, 2, 4), lib.zeros(1, 1, 1, 2, dtype=d), padding_mode="edge"
        ),
    )
    rec.err("avgpool_big", lambda: F.avg_pool1d(x, 9))
    rec.err("maxpool_pad", lambda: F.max_pool1d(x, 2, padding=2))
    rec.err("gradient_edge", lambda: lib.gradient(x.flatten(), edge_order=3))
    rec.err("gradient_short", lambda: lib.gradient(lib.ones(1, dtype=d)))
    rec.err("gradient_spacing0d", lambda: lib.gradient(x.flatten(), spacing=(lib.tensor(2.0),)))
    rec.err("gradient_spacing_t", lambda: lib.gradient(x.flatten(), spacing=lib.arange(8.0)))
    rec.err(
        "gradient_spacing_kw", lambda: lib.gradient(x.flatten(), spacing=lib.arange(8.0), dim=0)
    )
    rec.err("trapz_shape", lambda: lib.trapezoid(x.flatten(), lib.arange(5, dtype=d)))
    rec.err("diff_neg", lambda: lib.diff(x, n=-1))
    rec.err("pinv_int", lambda: lib.linalg.pinv(lib.eye(2, dtype=lib.int64)))
    rec.err(
        "pad_3d_2", lambda: F.pad(lib.ones(2, 2, 2, dtype=d), (1, 1, 1, 1, 1, 1), mode="reflect")
    )
    rec.err("pad_circ_neg", lambda: F.pad(x, (-9, 1), mode="circular"))
    rec.err("pad_repl_neg", lambda: F.pad(x, (-1, 1), mode="replicate"))
    # a (k - 1) / 2 written with / in a pad: torch checks the first element, unpacks the rest
    rec.err("pad_float_first", lambda: F.pad(x, (1.5, 1), mode="reflect"))
    rec.err("pad_float_later", lambda: F.pad(x, (1, 1, 2.0, 1)))
    rec.err("pad_float_kw", lambda: F.pad(x, pad=[2, (3 - 1) / 2], mode="circular"))
    rec("pad_bool_later", F.pad(x, (1, True)))
    rec("pad_tensor_later", F.pad(x, (2, lib.tensor([1]))))
    rec.err("softshrink_int", lambda: F.softshrink(lib.arange(3), 0.5))
    rec.err("hardshrink_int", lambda: F.hardshrink(lib.arange(3), 0.5))
    rec.err("adaptive_zero", lambda: F.adaptive_avg_pool1d(x, 0))
    rec.err("lp_pool_neg", lambda: F.lp_pool1d(x, -2.0, 2))
    rec.err("pixel_shuffle", lambda: F.pixel_shuffle(lib.ones(1, 3, 2, 2, dtype=d), 2))
    rec.err("cumsum_dim", lambda: lib.cumsum(x, 3))
    rec.err(
        "searchsorted_unsorted_side",
        lambda: lib.searchsorted(x.flatten(), x.flatten(), side="middle"),
    )


def p_transform_matrices(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    s = 1 / math.sqrt(2)
    # the orthonormal Haar matrix by the Kronecker recursion
    H = lib.ones(1, 1, dtype=d)
    for _ in range(3):
        n = H.shape[0]
        top = lib.kron(H, lib.tensor([[1.0, 1.0]], dtype=d))
        bot = lib.kron(lib.eye(n, dtype=d), lib.tensor([[1.0, -1.0]], dtype=d))
        H = lib.cat([top, bot]) * s
    rec("H", H)
    rec("H_orth", (H @ H.T - lib.eye(8, dtype=d)).abs().max())
    # the DWT as a matrix: the Jacobian of the (linear) transform
    bank = _bank(lib, DB2, d)

    def dwt_flat(v):
        a, dd = _dwt(lib, v.view(1, 1, -1), bank)
        return lib.cat([a.flatten(), dd.flatten()])

    x = lib.linspace(-1, 1, 8, dtype=d) ** 3
    Wj = lib.func.jacrev(dwt_flat)(x)
    rec("W", Wj)
    rec("W_orth", (Wj @ Wj.T - lib.eye(8, dtype=d)).abs().max())
    rec("W_apply", Wj @ x - dwt_flat(x))
    J = lib.autograd.functional.jacobian(dwt_flat, x)
    rec("jac_eq", lib.equal(J, Wj))
    # vmap over a batch of signals: pad, unfold, median and conv inside
    batch = lib.stack([x, x.flip(0), x**2])

    def feat(v):
        p = F.pad(v.view(1, 1, -1), (1, 1), mode="reflect").view(-1)
        med = p.unfold(0, 3, 1).median(-1).values
        return lib.cat([dwt_flat(v), med])

    rec("vmap", lib.func.vmap(feat)(batch))
    rec("loop", lib.stack([feat(v) for v in batch]))
    # fast Walsh-Hadamard transform by butterflies, vs the Sylvester matrix
    h = x.clone()
    n, step = h.numel(), 1
    while step < n:
        h = h.view(-1, 2, step)
        h = lib.stack([h[:, 0] + h[:, 1], h[:, 0] - h[:, 1]], 1).view(-1)
        step *= 2
    Hs = lib.ones(1, 1, dtype=d)
    for _ in range(3):
        Hs = lib.kron(lib.tensor([[1.0, 1.0], [1.0, -1.0]], dtype=d), Hs)
    rec("fwht", h)
    rec("sylvester", Hs @ x)
    # an 8x8 block DCT-II (JPEG style) by matrices, quantised and inverted
    k = lib.arange(8, dtype=d)
    C = lib.cos(math.pi * (2 * k[None, :] + 1) * k[:, None] / 16) * math.sqrt(2 / 8)
    C[0] /= math.sqrt(2)
    rec("C_orth", (C @ C.T - lib.eye(8, dtype=d)).abs().max())
    g = lib.Generator().manual_seed(5)
    img = (lib.rand(1, 1, 16, 16, generator=g, dtype=d) * 255).round()
    blocks = F.unfold(img - 128, 8, stride=8).transpose(1, 2).reshape(-1, 8, 8)
    coef = C @ blocks @ C.T
    rec("dc", coef[:, 0, 0])
    Q = 1 + (k[:, None] + k[None, :]) * 4
    qc = lib.round(coef / Q)
    rec("nnz", (qc != 0).sum((1, 2)))
    back = C.T @ (qc * Q) @ C
    out = F.fold(back.reshape(1, -1, 64).transpose(1, 2), (16, 16), 8, stride=8) + 128
    rec("jpeg", out[0, 0, :2, :8].round())
    rec("jpeg_err", (out - img).abs().mean())


def p_default64(lib, dt, rec):
    old = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        w = lib.hann_window(8)
        rec("hann", w)
        rec("hann.dtype", str(w.dtype))
        rec("kaiser", lib.kaiser_window(6))
        rec("sw", lib.signal.windows.gaussian(5))
        rec("sw.dtype", str(lib.signal.windows.cosine(3).dtype))
        t = lib.linspace(0, 1, 9)
        rec("t.dtype", str(t.dtype))
        x = lib.sin(2 * math.pi * t)
        bank = lib.tensor([[[0.5, 0.5]], [[0.5, -0.5]]])
        rec("bank.dtype", str(bank.dtype))
        c = lib.nn.functional.conv1d(x[:8].view(1, 1, 8), bank, stride=2)
        rec("c", c)
        conv = lib.nn.Conv1d(1, 2, 2)
        rec("conv.dtype", str(conv.weight.dtype))
        rec("arange_float", str(lib.arange(3.0).dtype))
        rec("interp", lib.nn.functional.interpolate(x.view(1, 1, -1), size=5, mode="linear"))
    finally:
        lib.set_default_dtype(old)
    rec("restored", str(lib.hann_window(4).dtype))


def _unit_norm(lib):
    class UnitNorm(lib.nn.Module):
        def forward(self, w):
            return w / w.flatten(1).norm(dim=1).view(-1, *([1] * (w.ndim - 1)))

    return UnitNorm()


def p_parametrized_filters(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    d = dt
    lib.manual_seed(3)
    conv = nn.Conv1d(1, 4, 9, padding=4, bias=False, dtype=d)
    P = nn.utils.parametrize
    P.register_parametrization(conv, "weight", _unit_norm(lib))
    rec("is_param", P.is_parametrized(conv, "weight"))
    rec("norms", conv.weight.flatten(1).norm(dim=1))
    rec("names", sorted(n for n, _ in conv.named_parameters()))
    rec("sd", sorted(conv.state_dict()))
    # a fixed analysis window as a non-persistent buffer
    conv.register_buffer("win", lib.hann_window(9, periodic=False, dtype=d), persistent=False)
    rec("sd2", sorted(conv.state_dict()))
    rec("bufs", [n for n, _ in conv.named_buffers()])
    g = lib.Generator().manual_seed(7)
    x = lib.randn(4, 1, 40, generator=g, dtype=d)
    target = F.conv1d(x, (lib.ones(1, 1, 9, dtype=d) / 9).expand(4, 1, 9), padding=4)
    opt = lib.optim.Adam(conv.parameters(), lr=0.05)
    for _ in range(10):
        opt.zero_grad()
        w = conv.weight * conv.win
        loss = F.mse_loss(F.conv1d(x, w, padding=4), target)
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec("w", conv.weight[0, 0])
    rec("orig_grad", conv.parametrizations.weight.original.grad[1, 0])
    with P.cached():
        a = conv.weight
        b = conv.weight
        rec("cached_same", a is b)
    P.remove_parametrizations(conv, "weight", leave_parametrized=True)
    rec("removed", P.is_parametrized(conv))
    rec("w_after", conv.weight.flatten(1).norm(dim=1))
    rec("repr", repr(conv))
    # weight_norm on a filter bank (the functional parametrization)
    lin = nn.utils.parametrizations.weight_norm(nn.Conv1d(1, 2, 5, bias=False, dtype=d))
    rec("wn_names", sorted(n for n, _ in lin.named_parameters()))
    rec("wn_g", lin.parametrizations.weight.original0.flatten())


def p_zoh_bitrev(lib, dt, rec):
    d = dt
    x = lib.tensor([1.0, -2.0, 3.5, 0.25], dtype=d)
    rec("zoh", x.repeat_interleave(3))
    rec("zoh_var", lib.repeat_interleave(x, lib.tensor([1, 0, 2, 3])))
    rec("zoh_size", lib.repeat_interleave(x, lib.tensor([2, 2, 1, 1]), output_size=6))
    rec("zoh_2d", x.view(2, 2).repeat_interleave(2, dim=1))
    # bit-reversal permutation by integer bit ops
    n, bits = 16, 4
    idx = lib.arange(n)
    rev = lib.zeros_like(idx)
    for b in range(bits):
        rev |= ((idx >> b) & 1) << (bits - 1 - b)
    rec("bitrev", rev)
    sig = lib.arange(n, dtype=d) ** 2
    rec("permuted", sig[rev])
    rec("index_select", sig.index_select(0, rev)[:6])
    rec("take_along", lib.take_along_dim(sig.view(4, 4), rev.view(4, 4) % 4, dim=1))
    rec("involution", lib.equal(rev[rev], idx))
    rec("argsort_inv", lib.argsort(rev))
    rec("bitwise", lib.stack([idx & 5, idx | 8, idx ^ 3, ~idx, idx << 1, idx >> 2])[:, :6])
    rec("bitwise_shift", lib.bitwise_left_shift(idx[:4], 2))
    # flips and rotations of a 2-d kernel
    k = lib.arange(6, dtype=d).view(2, 3)
    rec("fliplr", lib.fliplr(k))
    rec("flipud", lib.flipud(k))
    rec("rot90", lib.rot90(k))
    rec("rot90_k", lib.rot90(k, 3, [0, 1]))
    rec("flip_neg", k.flip(-1, -2))
    rec("roll", lib.roll(k, shifts=(1, -1), dims=(0, 1)))
    rec("roll_flat", lib.roll(k, 2))
    # sorted lookup of frequencies with a sorter
    f = lib.tensor([3.0, 0.5, 2.0, 1.0], dtype=d)
    order = lib.argsort(f)
    rec("ss_sorter", lib.searchsorted(f, lib.tensor([0.7, 2.5], dtype=d), sorter=order))
    rec("ss_right", lib.searchsorted(f.sort().values, lib.tensor([1.0, 2.0], dtype=d), right=True))
