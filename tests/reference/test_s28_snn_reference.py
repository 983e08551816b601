"""Session 28 (helper snn): neuro-inspired and energy-based programs in torch, run under torch and
minitorch with the same seeds and compared record by record.

Covered: spiking nets with surrogate gradients (custom autograd.Function Heavisides with
fast-sigmoid and atan surrogates, old and setup_context styles, mark_non_differentiable,
once_differentiable, jvp/forward AD, generate_vmap_rule), snnTorch-style Leaky / ALIF / Synaptic /
RLeaky neurons stepped over time with BPTT, reset by subtraction with a detached reset, snnTorch's
own machinery (a _SpikeTensor placeholder subclass built by Tensor.__new__, init_hidden layers,
inhibition, graded spikes, state quantisation), learnable time constants, a conv SNN, records
filled in place inside the graph, checkpointed and truncated BPTT, rate / latency / delta /
Poisson coding with Generators, STDP with eligibility traces and winner-take-all, Hebbian / Oja /
Sanger / BCM rules under no_grad, classic and modern Hopfield networks, an RBM with CD-k and
persistent CD, a full Boltzmann machine by Gibbs sampling against its exact distribution, an echo
state network (power iteration, ridge readout by linalg.solve and lstsq, nn.init.sparse_),
predictive coding with inner inference loops, LCA / ISTA sparse coding, ring attractors and
neural fields, Kuramoto oscillators, Izhikevich / AdEx / Hodgkin-Huxley ODEs by Euler and RK4,
liquid time-constant cells with OneCycleLR / ReduceLROnPlateau, population coding with tuning
curves and Poisson decoding, e-prop eligibility traces against BPTT, synaptic delays and
refractory counters, an SNN classifier trained with Adam, vmap'd SNN ensembles
(stack_module_state, functional_call, per-sample grads), Dale's-law masks and parametrizations,
spike-train statistics, Langevin-sampled and score-matched energy-based models, stochastic
(Bernoulli / relaxed / Gumbel) spikes, and the usual mistakes' error messages. float64 must agree
to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left: linalg.eigvals/eig return complex numbers, which minitorch does not support, so
the echo state network takes its spectral radius by power iteration (and eigvalsh of a symmetric
reservoir); vmap runs a per-sample loop (its
docstring lists what torch refuses and minitorch runs: dynamic shapes, .item(), 'same' randomness
with a batched random input); torch.bernoulli(x, p=tensor)'s TypeError lists p positionally (the
call's keyword spelling is not known); float32 sums can differ in the last bits and a gradient
through many float32 RK4 steps in the fourth digit (recorded in float64 only), the reservoir's
correlated states make float32 lstsq/cholesky ill-conditioned (float64 only); special.ndtr's far
lower tail inherits erf's last-ulp differences through 1 + erf; conv1d with groups == channels and
dilation 0 words its error as torch's plain kernel; NumPy's floating-point RuntimeWarnings show
under an "always" filter."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import copy
import io
import itertools
import math

import numpy as np
import pytest

from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "lif_bptt", "alif_atan", "synaptic_rleaky", "coding", "stdp", "hebb_oja", "hopfield",
    "modern_hopfield", "rbm", "boltzmann", "esn", "predictive_coding", "kuramoto",
    "izhikevich", "hodgkin_huxley", "population", "eprop", "snn_classifier", "conv_snn",
    "learnable_tau", "dale", "spike_stats", "ebm_langevin", "mistakes", "surrogate_misc",
    "ctx_features", "parametrize", "reservoir_init", "poisson_isi", "score_matching",
    "stochastic_spikes", "checkpoint_bptt", "ensemble_vmap", "delays_refractory", "lca_sparse",
    "ring_attractor", "ltc_schedulers", "inplace_records", "snntorch_style",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _spike_fn(lib, kind="fast_sigmoid", slope=25.0):
    """A Heaviside with a surrogate gradient, snnTorch style (old-style forward with ctx)."""

    class FastSigmoidSpike(lib.autograd.Function):
        @staticmethod
        def forward(ctx, mem, slope):
            ctx.save_for_backward(mem)
            ctx.slope = slope
            return (mem > 0).type_as(mem)

        @staticmethod
        def backward(ctx, grad):
            (mem,) = ctx.saved_tensors
            return grad / (ctx.slope * lib.abs(mem) + 1.0) ** 2, None

    class ATanSpike(lib.autograd.Function):
        @staticmethod
        def forward(mem, alpha):
            return lib.heaviside(mem, lib.zeros((), dtype=mem.dtype))

        @staticmethod
        def setup_context(ctx, inputs, output):
            mem, alpha = inputs
            ctx.save_for_backward(mem)
            ctx.alpha = alpha

        @staticmethod
        def backward(ctx, grad):
            (mem,) = ctx.saved_tensors
            a = ctx.alpha
            return a / 2 / (1 + (math.pi / 2 * a * mem).pow(2)) * grad, None

    cls = FastSigmoidSpike if kind == "fast_sigmoid" else ATanSpike
    return lambda x: cls.apply(x, slope)


def _leaky_step(spike, beta, thr, cur, mem):
    """snnTorch Leaky with reset by subtraction: the reset uses the previous membrane and is
    detached."""
    reset = spike(mem - thr).detach()
    mem = beta * mem + cur - reset * thr
    return spike(mem - thr), mem


# --- the programs: each takes the library, a dtype and a recorder ---


def p_lif_bptt(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)
    spike = _spike_fn(lib, "fast_sigmoid", 25.0)
    T, B, nin, nh, nout = 12, 4, 6, 10, 3
    fc1, fc2 = nn.Linear(nin, nh).to(dt), nn.Linear(nh, nout).to(dt)
    beta, thr = 0.9, 1.0
    x = lib.rand(T, B, nin, dtype=dt) * 1.5
    mem1, mem2 = lib.zeros(B, nh, dtype=dt), lib.zeros(B, nout, dtype=dt)
    spk_rec, mem_rec, spk1_rec = [], [], []
    for t in range(T):
        spk1, mem1 = _leaky_step(spike, beta, thr, fc1(x[t]), mem1)
        spk2, mem2 = _leaky_step(spike, beta, thr, fc2(spk1), mem2)
        spk_rec.append(spk2)
        mem_rec.append(mem2)
        spk1_rec.append(spk1)
    spk, mem = lib.stack(spk_rec), lib.stack(mem_rec)
    targets = lib.tensor([0, 1, 2, 1])
    loss = lib.zeros((), dtype=dt)
    for t in range(T):
        loss += F.cross_entropy(mem[t], targets)
    loss = loss / T
    rate_loss = F.mse_loss(spk.mean(0), F.one_hot(targets, nout).to(dt) * 0.8)
    (loss + rate_loss).backward()
    rec("spk", spk)
    rec("spk1_count", lib.stack(spk1_rec).sum(0))
    rec("mem", mem)
    rec("loss", loss)
    rec("rate_loss", rate_loss)
    rec("acc", (spk.sum(0).argmax(1) == targets).float().mean())
    rec("grad_fn", type(spk.grad_fn).__name__)
    rec.params("p", nn.ModuleList([fc1, fc2]), grads=True)


def p_alif_atan(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    spike = _spike_fn(lib, "atan", 2.0)

    class ALIF(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.beta_raw = nn.Parameter(lib.full((n,), 2.0, dtype=dt))
            self.rho = 0.95
            self.b0, self.gamma = 0.5, 0.3

        def forward(self, cur, mem, b):
            beta = lib.sigmoid(self.beta_raw)
            thr = self.b0 + self.gamma * b
            spk_prev = spike(mem - thr).detach()
            mem = beta * mem * (1 - spk_prev) + (1 - beta) * cur
            spk = spike(mem - thr)
            b = self.rho * b + (1 - self.rho) * spk
            return spk, mem, b

    T, B, nin, nh = 15, 3, 4, 8
    fc = nn.Linear(nin, nh).to(dt)
    cell = ALIF(nh)
    ro = nn.Linear(nh, 2).to(dt)
    x = lib.randn(T, B, nin, dtype=dt) * 2 + 1
    mem = lib.zeros(B, nh, dtype=dt)
    b = lib.zeros_like(mem)
    outs, spks = [], []
    for t in range(T):
        spk, mem, b = cell(fc(x[t]), mem, b)
        spks.append(spk)
        outs.append(ro(spk))
    out = lib.stack(outs).mean(0)
    loss = lib.nn.functional.cross_entropy(out, lib.tensor([0, 1, 1]))
    loss.backward()
    rec("spks", lib.stack(spks))
    rec("b", b)
    rec("mem", mem)
    rec("loss", loss)
    rec("heav", lib.heaviside(lib.tensor([-1.0, 0.0, 2.0], dtype=dt), lib.tensor(0.5, dtype=dt)))
    rec.params("fc", fc, grads=True)
    rec.params("cell", cell, grads=True)
    rec.params("ro", ro, grads=True)


def p_synaptic_rleaky(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)
    spike = _spike_fn(lib, "fast_sigmoid", 10.0)

    class Synaptic(nn.Module):
        def __init__(self, alpha, beta, learn_threshold=True):
            super().__init__()
            self.register_buffer("alpha", lib.as_tensor(alpha, dtype=dt))
            self.beta = nn.Parameter(lib.as_tensor(beta, dtype=dt))
            thr = lib.ones((), dtype=dt)
            if learn_threshold:
                self.threshold = nn.Parameter(thr)
            else:
                self.register_buffer("threshold", thr)

        def init_synaptic(self):
            return lib.zeros(0, dtype=dt), lib.zeros(0, dtype=dt)

        def forward(self, x, syn, mem):
            if syn.numel() == 0:
                syn, mem = lib.zeros_like(x), lib.zeros_like(x)
            beta = self.beta.clamp(0, 1)
            reset = spike(mem - self.threshold).detach()
            syn = self.alpha * syn + x
            mem = beta * mem + syn - reset * self.threshold
            return spike(mem - self.threshold), syn, mem

    class RLeaky(nn.Module):
        def __init__(self, n, beta):
            super().__init__()
            self.beta = beta
            self.recurrent = nn.Linear(n, n)

        def forward(self, x, spk, mem):
            reset = spike(mem - 1.0).detach()
            mem = self.beta * mem + x + self.recurrent(spk) - reset
            return spike(mem - 1.0), mem

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(5, 12)
            self.syn = Synaptic(0.8, [0.9] * 12)
            self.rlif = RLeaky(12, 0.85)
            self.fc2 = nn.Linear(12, 3)

        def forward(self, x):
            syn, mem = self.syn.init_synaptic()
            spk2 = lib.zeros(x.shape[1], 12, dtype=x.dtype)
            mem2 = lib.zeros_like(spk2)
            out = []
            for t in range(x.shape[0]):
                spk1, syn, mem = self.syn(self.fc1(x[t]), syn, mem)
                spk2, mem2 = self.rlif(spk1, spk2, mem2)
                out.append(self.fc2(spk2))
            return lib.stack(out), syn, mem

    net = Net().to(dt)
    rec("keys", str(list(net.state_dict().keys())))
    rec("bufs", str([n for n, _ in net.named_buffers()]))
    opt = lib.optim.Adam(net.parameters(), lr=5e-3)
    x = lib.rand(10, 4, 5, dtype=dt)
    y = lib.tensor([0, 2, 1, 0])
    for _ in range(3):
        out, syn, mem = net(x)
        loss = F.cross_entropy(out.sum(0), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("syn", syn)
        rec("mem", mem)
    rec.params("n", net, grads=True)
    buf = io.BytesIO()
    lib.save(net.state_dict(), buf)
    buf.seek(0)
    net2 = Net().to(dt)
    rec("load", str(net2.load_state_dict(lib.load(buf))))
    rec("same", net2(x)[0] - net(x)[0])


def p_coding(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(13)
    T = 20
    data = lib.rand(4, 6, dtype=dt)
    g = lib.Generator().manual_seed(7)
    # rate coding: one Bernoulli draw per time step
    spk_rate = lib.bernoulli(data.unsqueeze(0).repeat(T, 1, 1), generator=g)
    rec("rate", spk_rate)
    rec("rate_mean", spk_rate.mean(0))
    spk_rate2 = (lib.rand(T, *data.shape, generator=g, dtype=dt) < data).to(dt)
    rec("rate2", spk_rate2.sum(0))
    spk_rate3 = data.expand(T, -1, -1).bernoulli()
    rec("rate3", spk_rate3)
    # latency coding (snnTorch spikegen.latency with linear and log codes)
    tau, thr = 5.0, 0.01
    d = lib.clamp(data, thr + 1e-6)
    spike_time = tau * lib.log(d / (d - thr))
    spike_time = spike_time / spike_time.max() * (T - 1)
    lin_time = lib.round((1 - data) * (T - 1)).long()
    rec("spike_time", spike_time)
    rec("lin_time", lin_time)
    lat = F.one_hot(lib.round(spike_time).long().clamp(max=T - 1), T).permute(2, 0, 1)
    rec("lat", lat)
    lat2 = lib.zeros(T, *data.shape, dtype=dt).scatter(0, lin_time.unsqueeze(0), 1.0)
    rec("lat2", lat2)
    first = lat2.argmax(0)
    rec("first", first)
    # delta modulation of a signal
    sig = lib.cumsum(lib.randn(T, 3, dtype=dt) * 0.3, 0)
    dsig = lib.diff(sig, dim=0, prepend=sig[:1])
    on, off = (dsig > 0.2).to(dt), (dsig < -0.2).to(dt)
    rec("delta", on - off)
    # Poisson counts and multinomial spike placement
    counts = lib.poisson(data * 5, generator=g)
    rec("counts", counts)
    where = lib.multinomial(lib.ones(4, T, dtype=dt), 3, generator=g)
    rec("where", where)
    # phase coding: the spike falls in the bin of the phase
    phase = data * 2 * math.pi
    bins = lib.bucketize(phase, lib.linspace(0, 2 * math.pi, 9, dtype=dt))
    rec("bins", bins)
    rec("state", lib.tensor(float(g.initial_seed())))
    g2 = lib.Generator()
    g2.set_state(g.get_state())
    rec("replay", lib.rand(3, generator=g2, dtype=dt) - lib.rand(3, generator=g, dtype=dt))


def p_stdp(lib, dt, rec):
    lib.manual_seed(14)
    n_in, n_out, T = 10, 4, 30
    W = lib.rand(n_out, n_in, dtype=dt) * 0.5
    pre_trace = lib.zeros(n_in, dtype=dt)
    post_trace = lib.zeros(n_out, dtype=dt)
    elig = lib.zeros(n_out, n_in, dtype=dt)
    tau_pre, tau_post, tau_e = 20.0, 20.0, 50.0
    a_plus, a_minus, wmax = 0.01, 0.012, 1.0
    rates = lib.linspace(0.05, 0.5, n_in, dtype=dt)
    v = lib.zeros(n_out, dtype=dt)
    theta = lib.zeros(n_out, dtype=dt)
    post_all = []
    with lib.no_grad():
        for _t in range(T):
            pre = lib.bernoulli(rates)
            v = 0.9 * v + W @ pre
            post = ((v - 1.0 - theta) > 0).to(dt)
            # winner take all: only the most depolarised spiking neuron fires
            if post.sum() > 1:
                win = (v - theta).masked_fill(post == 0, -math.inf).argmax()
                post = lib.zeros_like(post).scatter_(0, win.view(1), 1.0)
            v = v * (1 - post)
            theta += 0.05 * post
            theta *= 0.99
            pre_trace = pre_trace * math.exp(-1 / tau_pre) + pre
            post_trace = post_trace * math.exp(-1 / tau_post) + post
            dw = a_plus * lib.outer(post, pre_trace) - a_minus * lib.outer(post_trace, pre)
            # soft bounds and an eligibility trace (three-factor rule)
            dw = lib.where(dw > 0, dw * (wmax - W), dw * W)
            elig.mul_(math.exp(-1 / tau_e)).add_(dw)
            W += dw
            W.clamp_(0, wmax)
            post_all.append(post)
        reward = lib.tensor([1.0, -0.5, 0.2, 0.0], dtype=dt)
        W2 = W + 0.1 * reward.unsqueeze(1) * elig
        W2.clamp_(min=0.0, max=wmax)
        Wn = W2 / W2.sum(1, keepdim=True) * 2.0
        W3 = W2.clone()
        W3.addr_(post_trace, pre_trace, alpha=-0.01)
        E = lib.einsum("o,i->oi", post_trace, pre_trace)
    rec("W", W)
    rec("W2", W2)
    rec("Wn", Wn)
    rec("W3", W3)
    rec("E", E)
    rec("elig", elig)
    rec("theta", theta)
    rec("post", lib.stack(post_all))
    rec("traces", lib.cat([pre_trace, post_trace]))


def p_hebb_oja(lib, dt, rec):
    lib.manual_seed(15)
    n, d, k = 120, 5, 3
    C = lib.randn(d, d, dtype=dt)
    X = lib.randn(n, d, dtype=dt) @ C
    X = X - X.mean(0)
    cov = X.T @ X / (n - 1)
    rec("cov", cov)
    rec("cov2", lib.cov(X.T))
    evals, evecs = lib.linalg.eigh(cov)
    rec("evals", evals)
    top = evecs[:, -1]
    eta = 0.002
    with lib.no_grad():
        w_hebb = lib.randn(d, dtype=dt) * 0.1
        w_oja = w_hebb.clone()
        W_gha = lib.randn(k, d, dtype=dt) * 0.1
        w_bcm = lib.rand(d, dtype=dt) * 0.1
        theta = lib.tensor(0.1, dtype=dt)
        for _epoch in range(2):
            for i in range(0, n, 10):
                xb = X[i : i + 10]
                for x in xb:
                    y = w_hebb @ x
                    w_hebb += eta * y * x
                    w_hebb /= w_hebb.norm()
                    y = w_oja @ x
                    w_oja.add_(eta * y * (x - y * w_oja))
                    yb = lib.relu(w_bcm @ x)
                    w_bcm += 0.0005 * x * yb * (yb - theta)
                    theta = 0.9 * theta + 0.1 * yb**2
                # Sanger's generalized Hebbian algorithm, batched
                Y = xb @ W_gha.T
                dW = Y.T @ xb - lib.tril(Y.T @ Y) @ W_gha
                W_gha.add_(dW, alpha=eta / 10)
    cos = lambda a, b: (a @ b).abs() / (a.norm() * b.norm())  # noqa: E731
    rec("w_hebb", w_hebb)
    rec("w_oja", w_oja)
    rec("oja_norm", w_oja.norm())
    rec("cos_oja", cos(w_oja, top))
    rec("cos_hebb", cos(w_hebb, top))
    rec("W_gha", W_gha)
    rec("gha_orth", W_gha @ W_gha.T)
    rec("w_bcm", w_bcm)
    rec("theta", theta)
    U, S, Vh = lib.linalg.svd(X, full_matrices=False)
    rec("S", S)
    rec("cos_svd", cos(Vh[0], top))
    f_cos = lib.nn.functional.cosine_similarity(W_gha, evecs.flip(1)[:, :k].T)
    rec("gha_cos", f_cos.abs())


def p_hopfield(lib, dt, rec):
    lib.manual_seed(16)
    N, P = 32, 3
    pats = lib.where(lib.rand(P, N) > 0.5, 1.0, -1.0).to(dt)
    W = pats.T @ pats / N
    W.fill_diagonal_(0)
    rec("W", W)
    rec("sym", lib.allclose(W, W.T))

    def energy(s):
        return -0.5 * s @ W @ s

    probe = pats[0].clone()
    flip = lib.randperm(N)[:6]
    probe[flip] *= -1
    rec("flip", flip)
    rec("e0", energy(probe))
    # synchronous updates
    s = probe.clone()
    for _ in range(5):
        h = W @ s
        s = lib.where(h >= 0, lib.ones_like(s), -lib.ones_like(s))
        rec("e_sync", energy(s))
    rec("overlap_sync", pats @ s / N)
    # asynchronous updates in a random order
    s = probe.clone()
    es = []
    for _sweep in range(3):
        for i in lib.randperm(N).tolist():
            s[i] = lib.sign(W[i] @ s) if (W[i] @ s) != 0 else s[i]
        es.append(energy(s))
    rec("e_async", lib.stack(es))
    rec("overlap_async", pats @ s / N)
    rec("recalled", lib.equal(s, pats[0]))
    # Storkey rule
    Ws = lib.zeros(N, N, dtype=dt)
    for p in pats:
        h = Ws @ p
        H = h.unsqueeze(1) - Ws * p.unsqueeze(0)  # h_ij = h_i - w_ij p_j
        Ws = Ws + (lib.outer(p, p) - p.unsqueeze(1) * H.T - H * p.unsqueeze(0)) / N
        Ws.fill_diagonal_(0)
    rec("Ws", Ws)
    rec("sign0", lib.sign(lib.tensor([-2.0, 0.0, 3.0], dtype=dt)))
    rec("sgn_stab", lib.sign(pats @ W) == pats)


def p_modern_hopfield(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(17)
    d, M, beta = 16, 6, 4.0
    X = F.normalize(lib.randn(d, M, dtype=dt), dim=0)
    xi = X[:, 2] + 0.3 * lib.randn(d, dtype=dt)
    for _ in range(3):
        p = lib.softmax(beta * X.T @ xi, dim=0)
        xi = X @ p
        rec("p", p)
    rec("xi", xi)

    def energy(q):
        return -lib.logsumexp(beta * X.T @ q, 0) / beta + 0.5 * q @ q + math.log(M) / beta

    q = (X[:, 4] + 0.5 * lib.randn(d, dtype=dt)).requires_grad_()
    e = energy(q)
    (g,) = lib.autograd.grad(e, q)
    rec("E", e)
    rec("g", g)
    rec("cccp", (q - g) - X @ lib.softmax(beta * X.T @ q, 0))
    rec("dist", lib.cdist(xi.unsqueeze(0), X.T))

    class HopfieldLayer(nn.Module):
        def __init__(self, d, h=8):
            super().__init__()
            self.Wq, self.Wk, self.Wv = nn.Linear(d, h), nn.Linear(d, h), nn.Linear(d, h)
            self.beta = 1.0 / math.sqrt(h)

        def forward(self, R, Y):
            Q, K, V = self.Wq(R), self.Wk(Y), self.Wv(Y)
            A = lib.softmax(self.beta * Q @ K.transpose(-2, -1), -1)
            return A @ V, A

    layer = HopfieldLayer(d).to(dt)
    R = lib.randn(2, 3, d, dtype=dt)
    Y = lib.randn(2, 5, d, dtype=dt)
    out, A = layer(R, Y)
    ref = F.scaled_dot_product_attention(layer.Wq(R), layer.Wk(Y), layer.Wv(Y))
    rec("out", out)
    rec("A", A)
    rec("sdpa", out - ref)
    out.pow(2).sum().backward()
    rec.params("h", layer, grads=True)


def p_rbm(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(18)
    nv, nh, k = 12, 6, 2

    class RBM(nn.Module):
        def __init__(self):
            super().__init__()
            self.W = nn.Parameter(lib.randn(nh, nv, dtype=dt) * 0.01)
            self.v_bias = nn.Parameter(lib.zeros(nv, dtype=dt))
            self.h_bias = nn.Parameter(lib.zeros(nh, dtype=dt))

        def sample_h(self, v):
            p = lib.sigmoid(F.linear(v, self.W, self.h_bias))
            return p, lib.bernoulli(p)

        def sample_v(self, h):
            p = lib.sigmoid(F.linear(h, self.W.t(), self.v_bias))
            return p, lib.bernoulli(p)

        def free_energy(self, v):
            vbias_term = v.mv(self.v_bias)
            hidden = F.linear(v, self.W, self.h_bias)
            return -vbias_term - F.softplus(hidden).sum(1)

        def forward(self, v, k=1):
            _, h = self.sample_h(v)
            for _ in range(k):
                pv, v_ = self.sample_v(h)
                _, h = self.sample_h(v_)
            return v, v_

    protos = (lib.rand(3, nv) > 0.5).to(dt)
    data = protos[lib.randint(0, 3, (40,))]
    noise = (lib.rand(40, nv) < 0.05).to(dt)
    data = (data - noise).abs()
    rbm = RBM()
    opt = lib.optim.SGD(rbm.parameters(), lr=0.1, momentum=0.5)
    for epoch in range(3):
        for i in range(0, 40, 10):
            v = data[i : i + 10]
            v0, vk = rbm(v, k=k)
            loss = rbm.free_energy(v0).mean() - rbm.free_energy(vk.detach()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        rec("loss", loss)
        rec("recon", F.mse_loss(rbm.sample_v(rbm.sample_h(data)[0])[0], data))
        rec("epoch", lib.tensor(epoch))
    rec.params("rbm", rbm, grads=True)
    # persistent CD with manual updates under no_grad
    chain = lib.bernoulli(lib.full((10, nv), 0.5, dtype=dt))
    with lib.no_grad():
        for i in range(0, 40, 10):
            v = data[i : i + 10]
            ph0, _ = rbm.sample_h(v)
            for _ in range(k):
                _, hc = rbm.sample_h(chain)
                _, chain = rbm.sample_v(hc)
            phk, _ = rbm.sample_h(chain)
            rbm.W += 0.05 * (ph0.T @ v - phk.T @ chain) / 10
            rbm.v_bias += 0.05 * (v - chain).mean(0)
            rbm.h_bias += 0.05 * (ph0 - phk).mean(0)
    rec("chain", chain)
    rec("W_pcd", rbm.W)
    rec("fe", rbm.free_energy(data[:5]))
    # pseudo-likelihood with a random bit flipped per sample
    idx = lib.randint(0, nv, (40,))
    flipped = data.clone()
    flipped[lib.arange(40), idx] = 1 - flipped[lib.arange(40), idx]
    pl = nv * F.logsigmoid(rbm.free_energy(flipped) - rbm.free_energy(data))
    rec("pl", pl.mean())


def p_boltzmann(lib, dt, rec):
    lib.manual_seed(19)
    n = 5
    A = lib.randn(n, n, dtype=dt) * 0.8
    W = (A + A.T) / 2
    W.fill_diagonal_(0.0)
    b = lib.randn(n, dtype=dt) * 0.3
    states = lib.tensor(list(itertools.product([0.0, 1.0], repeat=n)), dtype=dt)
    E = -0.5 * ((states @ W) * states).sum(1) - states @ b
    logZ = lib.logsumexp(-E, 0)
    p_exact = lib.exp(-E - logZ)
    rec("logZ", logZ)
    rec("p_exact", p_exact)
    g = lib.Generator().manual_seed(3)
    chains = 64
    s = (lib.rand(chains, n, generator=g, dtype=dt) < 0.5).to(dt)
    samples = []
    for sweep in range(40):
        for i in range(n):
            h = s @ W[:, i] + b[i]
            u = lib.rand(chains, generator=g, dtype=dt)
            s[:, i] = (u < lib.sigmoid(h)).to(dt)
        if sweep >= 10:
            samples.append(s.clone())
    S = lib.cat(samples)
    codes = (S * 2 ** lib.arange(n - 1, -1, -1, dtype=dt)).sum(1).long()
    counts = lib.bincount(codes, minlength=2**n)
    rec("counts", counts)
    p_emp = counts.to(dt) / counts.sum()
    kl = (p_emp * (lib.log(p_emp + 1e-12) - lib.log(p_exact))).sum()
    rec("kl", kl)
    uniq, cnt = lib.unique(S, dim=0, return_counts=True)
    rec("uniq", uniq)
    rec("cnt", cnt)
    # learning the weights by moment matching (positive phase from exact data stats)
    corr_exact = (
        p_exact.unsqueeze(1).unsqueeze(2) * states.unsqueeze(2) * states.unsqueeze(1)
    ).sum(0)
    corr_emp = S.T @ S / S.shape[0]
    rec("corr_exact", corr_exact)
    rec("corr_emp", corr_emp)
    rec("mean_emp", S.mean(0))


def p_esn(lib, dt, rec):
    lib.manual_seed(20)
    N, T, washout, rho, leak = 40, 200, 30, 0.9, 0.3
    W = lib.randn(N, N, dtype=dt)
    mask = lib.rand(N, N) < 0.2
    W = W * mask
    # spectral radius by power iteration on W^T W for the norm, and on W for the radius bound
    v = lib.ones(N, dtype=dt) / math.sqrt(N)
    for _ in range(100):
        v = W.T @ (W @ v)
        v = v / lib.linalg.vector_norm(v)
    sigma = (W @ v).norm()
    rec("sigma", sigma)
    rec("sigma_svd", lib.linalg.matrix_norm(W, ord=2))
    rec("svdvals", lib.linalg.svdvals(W)[:3])
    Ws = (W + W.T) / 2
    ev = lib.linalg.eigvalsh(Ws)
    rec("rho_sym", ev.abs().max())
    W = W * (rho / sigma)
    W_in = (lib.rand(N, 2, dtype=dt) - 0.5) * 0.5
    t = lib.arange(T + 1, dtype=dt)
    u = lib.sin(t * 0.2) * lib.cos(t * 0.031)
    x = lib.zeros(N, dtype=dt)
    states = []
    for i in range(T):
        pre = W_in @ lib.stack([lib.ones((), dtype=dt), u[i]]) + W @ x
        x = (1 - leak) * x + leak * lib.tanh(pre)
        states.append(x)
    X = lib.stack(states)[washout:]
    Y = u[washout + 1 : T + 1].unsqueeze(1)
    Xb = lib.cat([lib.ones(X.shape[0], 1, dtype=dt), X], 1)
    lam = 1e-2
    A = Xb.T @ Xb + lam * lib.eye(N + 1, dtype=dt)
    W_out = lib.linalg.solve(A, Xb.T @ Y)
    pred = Xb @ W_out
    nrmse = lib.sqrt(lib.mean((pred - Y) ** 2) / lib.var(Y))
    rec("states_tail", X[-3:])
    rec("nrmse", nrmse)
    rec("pred", pred[:10])
    if dt == lib.float64:  # the reservoir's states are too correlated for float32 lstsq
        W_ls = lib.linalg.lstsq(Xb, Y).solution
        rec("ls_pred", (Xb @ W_ls)[:10])
        L = lib.linalg.cholesky(A)
        rec("chol", lib.cholesky_solve(Xb.T @ Y, L)[:5])
    # closed-loop generation
    y = pred[-1]
    gen = []
    for _ in range(10):
        pre = W_in @ lib.cat([lib.ones(1, dtype=dt), y]) + W @ x
        x = (1 - leak) * x + leak * lib.tanh(pre)
        y = lib.cat([lib.ones(1, dtype=dt), x]) @ W_out
        gen.append(y)
    rec("gen", lib.cat(gen))


def p_predictive_coding(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(21)
    sizes = [4, 8, 6, 2]
    layers = nn.ModuleList(nn.Linear(sizes[i], sizes[i + 1]) for i in range(3)).to(dt)
    opt = lib.optim.SGD(layers.parameters(), lr=0.05)
    f, df = lib.tanh, lambda z: 1 - lib.tanh(z) ** 2
    X = lib.randn(16, 4, dtype=dt)
    Yt = lib.stack([X[:, 0] * X[:, 1], X[:, 2].sin()], 1)
    for _epoch in range(2):
        # feed-forward initialisation of the value nodes
        xs = [X]
        for lay in layers:
            xs.append(lay(f(xs[-1])).detach())
        xs[-1] = Yt.clone()
        for _it in range(8):
            eps = [xs[i + 1] - layers[i](f(xs[i])) for i in range(3)]
            with lib.no_grad():
                for i in (1, 2):
                    grad_x = -eps[i - 1] + df(xs[i]) * (eps[i] @ layers[i].weight)
                    xs[i] = xs[i] + 0.1 * grad_x
        # energy and its gradient by autograd agree with the hand formula
        vs = [x.clone().requires_grad_(i in (1, 2)) for i, x in enumerate(xs)]
        Fe = sum(0.5 * (vs[i + 1] - layers[i](f(vs[i]))).pow(2).sum() for i in range(3))
        g1, g2 = lib.autograd.grad(Fe, [vs[1], vs[2]], retain_graph=True)
        eps = [xs[i + 1] - layers[i](f(xs[i])) for i in range(3)]
        rec("g1", g1 - (eps[0] - df(xs[1]) * (eps[1] @ layers[1].weight)))
        rec("g2", g2)
        rec("F", Fe)
        # local weight updates: dW = eps f(x)^T, set as .grad by hand
        opt.zero_grad()
        with lib.no_grad():
            for i, lay in enumerate(layers):
                e = xs[i + 1] - lay(f(xs[i]))
                lay.weight.grad = -(e.T @ f(xs[i])) / X.shape[0]
                lay.bias.grad = -e.mean(0)
        opt.step()
    rec.params("pc", layers, grads=True)
    with lib.no_grad():
        h = X
        for lay in layers:
            h = lay(f(h))
    rec("mse", lib.nn.functional.mse_loss(h, Yt))


def p_kuramoto(lib, dt, rec):
    lib.manual_seed(22)
    N, h, steps = 12, 0.05, 60
    omega = lib.randn(N, dtype=dt) * 0.5 + 1.0
    theta0 = lib.rand(N, dtype=dt) * 2 * math.pi
    K = lib.tensor(2.0, dtype=dt, requires_grad=True)
    adj = (lib.rand(N, N) < 0.6).to(dt)
    adj = ((adj + adj.T) > 0).to(dt)

    def f(th):
        diff = th.unsqueeze(0) - th.unsqueeze(1)  # theta_j - theta_i
        return omega + K / N * (adj * lib.sin(diff)).sum(1)

    th = theta0
    rs = []
    for _ in range(steps):
        k1 = f(th)
        k2 = f(th + h / 2 * k1)
        k3 = f(th + h / 2 * k2)
        k4 = f(th + h * k3)
        th = th + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        re, im = lib.cos(th).mean(), lib.sin(th).mean()
        rs.append(lib.sqrt(re**2 + im**2))
    r = lib.stack(rs)
    psi = lib.atan2(lib.sin(th).mean(), lib.cos(th).mean())
    rec("r", r)
    rec("psi", psi)
    rec("theta", lib.remainder(th, 2 * math.pi))
    rec("fmod", lib.fmod(th, 2 * math.pi))
    r[-1].backward()
    rec("dK", K.grad)
    # Euler with the complex order-parameter form (mean field) written with real ops
    th2 = theta0.clone()
    for _ in range(steps):
        re, im = lib.cos(th2).mean(), lib.sin(th2).mean()
        R, Psi = lib.hypot(re, im), lib.atan2(im, re)
        th2 = th2 + h * (omega + 2.0 * R * lib.sin(Psi - th2))
    rec("th2", lib.remainder(th2, 2 * math.pi))
    rec("R", R)


def p_izhikevich(lib, dt, rec):
    lib.manual_seed(23)
    Ne, Ni = 16, 4
    re, ri = lib.rand(Ne, dtype=dt), lib.rand(Ni, dtype=dt)
    a = lib.cat([0.02 * lib.ones(Ne, dtype=dt), 0.02 + 0.08 * ri])
    b = lib.cat([0.2 * lib.ones(Ne, dtype=dt), 0.25 - 0.05 * ri])
    c = lib.cat([-65 + 15 * re**2, -65 * lib.ones(Ni, dtype=dt)])
    d = lib.cat([8 - 6 * re**2, 2 * lib.ones(Ni, dtype=dt)])
    S = lib.cat([0.5 * lib.rand(Ne + Ni, Ne, dtype=dt), -lib.rand(Ne + Ni, Ni, dtype=dt)], 1)
    v = -65 * lib.ones(Ne + Ni, dtype=dt)
    u = b * v
    firings = []
    for t in range(120):
        I = lib.cat([5 * lib.randn(Ne, dtype=dt), 2 * lib.randn(Ni, dtype=dt)])  # noqa: E741
        fired = (v >= 30).nonzero().squeeze(1)
        if fired.numel():
            firings.append(lib.stack([lib.full_like(fired, t), fired], 1))
        v[fired] = c[fired]
        u[fired] += d[fired]
        I = I + S[:, fired].sum(1)  # noqa: E741
        v += 0.5 * (0.04 * v**2 + 5 * v + 140 - u + I)
        v += 0.5 * (0.04 * v**2 + 5 * v + 140 - u + I)
        u += a * (b * v - u)
    F_ = lib.cat(firings)
    rec("firings", F_)
    rec("counts", lib.bincount(F_[:, 1], minlength=Ne + Ni))
    rec("v", v)
    rec("u", u)
    # AdEx neuron: forward Euler with an exponential spike current, batch of currents
    C, gL, EL, VT, DT = 281.0, 30.0, -70.6, -50.4, 2.0
    tau_w, a_ad, b_ad, Vr = 144.0, 4.0, 80.5, -70.6
    Iext = lib.linspace(400, 1200, 5, dtype=dt)
    V = lib.full((5,), EL, dtype=dt)
    w = lib.zeros(5, dtype=dt)
    spikes = lib.zeros(5, dtype=lib.int64)
    h = 0.1
    for _ in range(1000):
        dV = (-gL * (V - EL) + gL * DT * lib.exp((V - VT) / DT) - w + Iext) / C
        dw = (a_ad * (V - EL) - w) / tau_w
        V = V + h * dV
        w = w + h * dw
        sp = V > 0
        spikes += sp
        V = lib.where(sp, lib.full_like(V, Vr), V)
        w = lib.where(sp, w + b_ad, w)
    rec("adex_spikes", spikes)
    rec("adex_V", V)
    rec("adex_w", w)


def p_hodgkin_huxley(lib, dt, rec):
    lib.manual_seed(24)
    gNa = lib.tensor(120.0, dtype=dt, requires_grad=True)
    gK, gL, ENa, EK, EL, Cm = 36.0, 0.3, 50.0, -77.0, -54.387, 1.0

    def rates(V):
        an = 0.01 * (V + 55) / (1 - lib.exp(-(V + 55) / 10))
        bn = 0.125 * lib.exp(-(V + 65) / 80)
        am = 0.1 * (V + 40) / (-lib.expm1(-(V + 40) / 10))
        bm = 4.0 * lib.exp(-(V + 65) / 18)
        ah = 0.07 * lib.exp(-(V + 65) / 20)
        bh = 1.0 / (1 + lib.exp(-(V + 35) / 10))
        return an, bn, am, bm, ah, bh

    def deriv(y, I):  # noqa: E741
        V, n, m, hh = y.unbind(-1)
        an, bn, am, bm, ah, bh = rates(V)
        INa = gNa * m**3 * hh * (V - ENa)
        IK = gK * n**4 * (V - EK)
        IL = gL * (V - EL)
        dV = (I - INa - IK - IL) / Cm
        return lib.stack(
            [dV, an * (1 - n) - bn * n, am * (1 - m) - bm * m, ah * (1 - hh) - bh * hh], -1
        )

    I = lib.tensor([0.0, 10.0, 20.0, 40.0], dtype=dt)  # noqa: E741
    V0 = lib.full((4,), -65.0, dtype=dt)
    an, bn, am, bm, ah, bh = rates(V0)
    y = lib.stack([V0, an / (an + bn), am / (am + bm), ah / (ah + bh)], -1)
    h = 0.05
    Vs = [y[:, 0]]
    for i in range(90):
        # only the last steps are differentiated (the graph of all of them is slow to build)
        with lib.set_grad_enabled(i >= 75):
            k1 = deriv(y, I)
            k2 = deriv(y + h / 2 * k1, I)
            k3 = deriv(y + h / 2 * k2, I)
            k4 = deriv(y + h * k3, I)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        Vs.append(y[:, 0])
    Vt = lib.stack(Vs)
    cross = (Vt[:-1] < 0) & (Vt[1:] >= 0)
    rec("spikes", cross.sum(0))
    rec("first_spike", lib.where(cross.any(0), cross.int().argmax(0), -1))
    rec("V_end", y)
    rec("V_max", Vt.max(0).values)
    rec("V_samples", Vt[::9])
    loss = Vt[-15:].mean()
    loss.backward()
    if dt == lib.float64:  # many RK4 steps: float32 gradients differ from the fourth digit
        rec("dgNa", gNa.grad)


def p_population(lib, dt, rec):
    D = lib.distributions
    lib.manual_seed(25)
    n_neur = 16
    pref = lib.linspace(-math.pi, math.pi, n_neur + 1, dtype=dt)[:-1]
    kappa, rmax, T = 2.0, 20.0, 0.5
    s_true = lib.tensor([0.3, -2.0, 1.5, 3.0], dtype=dt)

    def tuning(s):
        return rmax * lib.exp(kappa * (lib.cos(s.unsqueeze(-1) - pref) - 1))

    rates = tuning(s_true)
    g = lib.Generator().manual_seed(5)
    counts = lib.poisson(rates * T, generator=g)
    rec("counts", counts)
    # population vector decoding
    pv = lib.atan2((counts * lib.sin(pref)).sum(-1), (counts * lib.cos(pref)).sum(-1))
    rec("pv", pv)
    # maximum likelihood on a grid with Poisson log-likelihoods
    grid = lib.linspace(-math.pi, math.pi, 361, dtype=dt)
    lam = tuning(grid) * T  # (G, N)
    ll = D.Poisson(lam.unsqueeze(1)).log_prob(counts.unsqueeze(0)).sum(-1)  # (G, B)
    rec("ll_max", ll.max(0).values)
    rec("ml", grid[ll.argmax(0)])
    post = lib.softmax(ll, 0)
    rec(
        "post_mean",
        lib.atan2(
            (post * lib.sin(grid).unsqueeze(1)).sum(0), (post * lib.cos(grid).unsqueeze(1)).sum(0)
        ),
    )
    ll2 = (
        counts.unsqueeze(0) * lib.log(lam.unsqueeze(1)) - lam.unsqueeze(1) - lib.lgamma(counts + 1)
    ).sum(-1)
    rec("ll2", ll2)
    # Fisher information of the population, and the von Mises normaliser
    s = s_true.clone().requires_grad_()
    f = tuning(s) * T
    (df,) = lib.autograd.grad((f * lib.cos(pref)).sum(), s, create_graph=True)
    fp = -kappa * lib.sin(s.unsqueeze(-1) - pref) * f
    rec("fisher", (fp**2 / f).sum(-1))
    rec("df", df)
    rec("i0", lib.special.i0(lib.tensor(kappa, dtype=dt)) * 2 * math.pi)
    rec("i0e", lib.special.i0e(lib.tensor([0.5, kappa, 10.0], dtype=dt)))
    vm = D.VonMises(lib.zeros((), dtype=dt), lib.tensor(kappa, dtype=dt))
    rec("vm_lp", vm.log_prob(pref))
    # gaussian tuning curves and a linear decoder by least squares
    gpref = lib.linspace(-2, 2, 9, dtype=dt)
    stim = lib.linspace(-1.5, 1.5, 30, dtype=dt)
    R = lib.exp(-((stim.unsqueeze(1) - gpref) ** 2) / (2 * 0.5**2)) * 10
    Rn = R + lib.randn(R.shape, dtype=dt)
    wdec = lib.linalg.pinv(Rn) @ stim
    rec("wdec", wdec)
    rec("dec_err", (Rn @ wdec - stim).abs().max())


def p_eprop(lib, dt, rec):
    lib.manual_seed(26)
    nin, nrec, nout, T = 5, 8, 2, 25
    thr, alpha, kappa = 0.6, 0.9, 0.8
    W_in = (lib.randn(nrec, nin, dtype=dt) * 0.5).requires_grad_()
    W_rec = (lib.randn(nrec, nrec, dtype=dt) * 0.2).fill_diagonal_(0).requires_grad_()
    W_out = (lib.randn(nout, nrec, dtype=dt) * 0.5).requires_grad_()
    B_fb = lib.randn(nrec, nout, dtype=dt)
    x = (lib.rand(T, nin) < 0.3).to(dt)
    target = lib.stack(
        [lib.sin(lib.arange(T, dtype=dt) * 0.3), lib.cos(lib.arange(T, dtype=dt) * 0.2)], 1
    )

    class PseudoSpike(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return (v > thr).to(v.dtype)

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensors
            return g * 0.3 * lib.clamp(1 - (v - thr).abs() / thr, min=0)

    v = lib.zeros(nrec, dtype=dt)
    z = lib.zeros(nrec, dtype=dt)
    y = lib.zeros(nout, dtype=dt)
    xbar_in = lib.zeros(nin, dtype=dt)
    xbar_rec = lib.zeros(nrec, dtype=dt)
    ebar_in = lib.zeros(nrec, nin, dtype=dt)
    ebar_rec = lib.zeros(nrec, nrec, dtype=dt)
    zbar = lib.zeros(nrec, dtype=dt)
    g_in = lib.zeros(nrec, nin, dtype=dt)
    g_rec = lib.zeros(nrec, nrec, dtype=dt)
    g_out = lib.zeros(nout, nrec, dtype=dt)
    loss = lib.zeros((), dtype=dt)
    ys = []
    for t in range(T):
        # the e-prop pre-synaptic traces see z of the previous step
        with lib.no_grad():
            xbar_in = alpha * xbar_in + x[t]
            xbar_rec = alpha * xbar_rec + z
        v = alpha * v + W_in @ x[t] + W_rec @ z - z.detach() * thr
        z = PseudoSpike.apply(v)
        y = kappa * y + W_out @ z
        ys.append(y)
        err = y - target[t]
        loss = loss + 0.5 * (err**2).sum()
        with lib.no_grad():
            psi = 0.3 * lib.clamp(1 - (v - thr).abs() / thr, min=0)
            e_in = psi.unsqueeze(1) * xbar_in
            e_rec = psi.unsqueeze(1) * xbar_rec
            ebar_in = kappa * ebar_in + e_in
            ebar_rec = kappa * ebar_rec + e_rec
            zbar = kappa * zbar + z
            L = B_fb @ err
            g_in += L.unsqueeze(1) * ebar_in
            g_rec += L.unsqueeze(1) * ebar_rec
            g_out += lib.outer(err, zbar)
    loss.backward()
    rec("ys", lib.stack(ys))
    rec("loss", loss)
    rec("g_in", g_in)
    rec("g_rec", g_rec)
    rec("g_out", g_out)
    rec("bptt_out", W_out.grad)
    rec("bptt_in", W_in.grad)
    rec("bptt_rec", W_rec.grad)
    cos = lib.nn.functional.cosine_similarity(g_out.flatten(), W_out.grad.flatten(), dim=0)
    rec("cos_out", cos)


def p_snn_classifier(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    data_utils = lib.utils.data
    lib.manual_seed(27)
    spike = _spike_fn(lib, "fast_sigmoid", 25.0)
    n, d, C, T = 48, 8, 3, 8
    centers = lib.rand(C, d, dtype=dt)
    y = lib.arange(n) % C
    X = (centers[y] + 0.1 * lib.randn(n, d, dtype=dt)).clamp(0, 1)

    class Leaky(nn.Module):
        def __init__(self, beta):
            super().__init__()
            self.beta = beta

        def forward(self, cur, mem):
            return _leaky_step(spike, self.beta, 1.0, cur, mem)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.lif1 = nn.Linear(d, 16), Leaky(0.9)
            self.fc2, self.lif2 = nn.Linear(16, C), Leaky(0.9)

        def forward(self, x_seq):
            mem1 = lib.zeros(x_seq.shape[1], 16, dtype=x_seq.dtype)
            mem2 = lib.zeros(x_seq.shape[1], C, dtype=x_seq.dtype)
            spk_out, mem_out = [], []
            for t in range(x_seq.shape[0]):
                spk1, mem1 = self.lif1(self.fc1(x_seq[t]), mem1)
                spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
                spk_out.append(spk2)
                mem_out.append(mem2)
            return lib.stack(spk_out), lib.stack(mem_out)

    net = Net().to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=2e-2, betas=(0.9, 0.999))
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    g = lib.Generator().manual_seed(1)
    loader = data_utils.DataLoader(
        data_utils.TensorDataset(X, y), batch_size=16, shuffle=True, generator=g
    )
    for _epoch in range(4):
        tot = lib.zeros((), dtype=dt)
        for xb, yb in loader:
            x_seq = lib.bernoulli(xb.unsqueeze(0).expand(T, -1, -1))
            spk, mem = net(x_seq)
            # snnTorch's mse_count_loss: correct class fires 80%, others 20%
            tgt = lib.where(F.one_hot(yb, C).bool(), 0.8 * T, 0.2 * T).to(dt)
            loss = F.mse_loss(spk.sum(0), tgt) + 0.1 * F.cross_entropy(mem[-1], yb)
            opt.zero_grad()
            loss.backward()
            gn = nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            tot += loss.detach()
            rec("gn", gn)
        sched.step()
        rec("epoch_loss", tot)
        rec("lr", lib.tensor(sched.get_last_lr()[0]))
    with lib.no_grad():
        spk, mem = net(lib.bernoulli(X.unsqueeze(0).expand(T, -1, -1)))
        acc = (spk.sum(0).argmax(1) == y).float().mean()
    rec("acc", acc)
    rec("spk_counts", spk.sum(0))
    rec.params("net", net)
    rec("opt_state", opt.state_dict()["state"][0]["exp_avg_sq"])
    rec("step", opt.state_dict()["state"][0]["step"])


def p_conv_snn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(28)
    spike = _spike_fn(lib, "atan", 2.0)
    conv = nn.Conv2d(1, 4, 3, padding=1).to(dt)
    bn = nn.BatchNorm2d(4).to(dt)
    fc = nn.Linear(4 * 4 * 4, 3).to(dt)
    imgs = lib.rand(2, 1, 8, 8, dtype=dt)
    T, beta = 5, 0.8
    mem1 = lib.zeros(2, 4, 4, 4, dtype=dt)
    mem2 = lib.zeros(2, 3, dtype=dt)
    outs = []
    for _t in range(T):
        cur1 = F.max_pool2d(bn(conv(imgs)), 2)
        spk1, mem1 = _leaky_step(spike, beta, 0.5, cur1, mem1)
        cur2 = fc(spk1.flatten(1))
        spk2, mem2 = _leaky_step(spike, beta, 0.5, cur2, mem2)
        outs.append(mem2)
    out = lib.stack(outs)
    loss = F.cross_entropy(out.sum(0), lib.tensor([2, 0]))
    loss.backward()
    rec("out", out)
    rec("loss", loss)
    rec("spk1_rate", spk1.mean((0, 2, 3)))
    rec("bn_rm", bn.running_mean)
    rec("bn_rv", bn.running_var)
    rec("nbt", bn.num_batches_tracked)
    params = list(conv.parameters()) + list(fc.parameters()) + list(bn.parameters())
    rec("vec", nn.utils.parameters_to_vector([p.grad for p in params]))
    bn.eval()
    with lib.no_grad():
        rec("eval", fc(F.max_pool2d(bn(conv(imgs)), 2).flatten(1)))


def p_learnable_tau(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(29)
    spike = _spike_fn(lib, "fast_sigmoid", 5.0)

    class SRNN(nn.Module):
        def __init__(self, nin, nh, nout):
            super().__init__()
            self.inp = nn.Linear(nin, nh)
            self.rec_ = nn.Linear(nh, nh, bias=False)
            nn.init.kaiming_uniform_(self.rec_.weight, a=math.sqrt(5))
            nn.init.normal_(self.rec_.weight, 0.0, 0.1)
            self.out = nn.Linear(nh, nout)
            self.log_tau_m = nn.Parameter(lib.log(lib.empty(nh).uniform_(5.0, 25.0)))
            self.log_tau_o = nn.Parameter(lib.full((nout,), math.log(10.0)))

        def forward(self, x):
            am = lib.exp(-1.0 / self.log_tau_m.exp())
            ao = lib.exp(-1.0 / self.log_tau_o.exp())
            B = x.shape[1]
            mem = lib.zeros(B, self.inp.out_features, dtype=x.dtype)
            spk = lib.zeros_like(mem)
            mo = lib.zeros(B, self.out.out_features, dtype=x.dtype)
            rates = []
            for t in range(x.shape[0]):
                mem = am * mem + (1 - am) * (self.inp(x[t]) + self.rec_(spk)) - spk.detach()
                spk = spike(mem - 1.0)
                mo = ao * mo + (1 - ao) * self.out(spk)
                rates.append(spk.mean())
            return mo, lib.stack(rates)

    net = SRNN(3, 10, 2).to(dt)
    opt = lib.optim.AdamW(net.parameters(), lr=1e-2, weight_decay=1e-2)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    x = lib.randn(20, 6, 3, dtype=dt) * 2
    y = (x.sum((0, 2)) > 0).long()
    for _ in range(4):
        mo, rates = net(x)
        loss = F.cross_entropy(mo, y) + 0.5 * F.mse_loss(rates, lib.full_like(rates, 0.1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        rec("loss", loss)
        rec("rates", rates)
        rec("lr", lib.tensor(opt.param_groups[0]["lr"]))
    rec.params("net", net, grads=True)
    rec("tau", net.log_tau_m.exp())


def p_dale(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(30)
    n, n_exc = 10, 8

    class EIRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.w_raw = nn.Parameter(lib.rand(n, n, dtype=dt) * 0.3)
            sign = lib.ones(n, dtype=dt)
            sign[n_exc:] = -4.0
            self.register_buffer("sign", sign)
            self.register_buffer("mask", (lib.rand(n, n) < 0.5).to(dt).fill_diagonal_(0))
            self.w_in = nn.Linear(2, n).to(dt)
            self.w_raw.register_hook(lambda g: g * self.mask)

        def effective(self):
            return F.relu(self.w_raw) * self.mask * self.sign

        def forward(self, u):
            r = lib.zeros(u.shape[1], n, dtype=u.dtype)
            W = self.effective()
            rs = []
            for t in range(u.shape[0]):
                r = r + 0.2 * (-r + F.softplus(r @ W + self.w_in(u[t])))
                rs.append(r)
            return lib.stack(rs)

    net = EIRNN()
    rec("keys", str(sorted(net.state_dict().keys())))
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    u = lib.randn(15, 4, 2, dtype=dt)
    for _ in range(3):
        rs = net(u)
        loss = (rs[-1, :, :n_exc].mean(1) - 1.0).pow(2).mean() + 1e-3 * net.w_raw.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            net.w_raw.clamp_(min=0)
        rec("loss", loss)
        rec("masked_grad", net.w_raw.grad * (1 - net.mask))
    W = net.effective()
    rec("W", W)
    rec("col_signs", lib.sign(W).sum(0))
    rec("dale_ok", ((W[:, :n_exc] >= 0).all() & (W[:, n_exc:] <= 0).all()))
    sd = net.state_dict()
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    sd2 = lib.load(buf, weights_only=True)
    rec("mask_rt", sd2["mask"])
    rec("nnz", lib.count_nonzero(sd2["mask"], dim=1))


def p_spike_stats(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(31)
    n, T, dt_ms = 5, 400, 1.0
    rates = lib.tensor([0.02, 0.05, 0.1, 0.15, 0.3], dtype=dt)
    spk = lib.bernoulli(rates.unsqueeze(1).expand(n, T))
    rec("count", spk.sum(1))
    # inter-spike intervals of each train
    cvs, means = [], []
    for i in range(n):
        times = spk[i].nonzero().squeeze(1).to(dt) * dt_ms
        isi = lib.diff(times)
        means.append(isi.mean())
        cvs.append(isi.std() / isi.mean())
    rec("isi_mean", lib.stack(means))
    rec("cv", lib.stack(cvs))
    # Fano factor over windows with unfold
    win = spk.unfold(1, 50, 50).sum(-1)
    rec("fano", win.var(1) / win.mean(1))
    # PSTH by histc and bincount of spike times
    times_all = spk.nonzero()[:, 1].to(dt)
    rec("psth", lib.histc(times_all, bins=20, min=0, max=T))
    rec("psth2", lib.bincount((times_all // 20).long(), minlength=20))
    # van Rossum distance: filter with an exponential kernel by conv1d
    tau = 10.0
    kern = lib.exp(-lib.arange(60, dtype=dt) / tau).flip(0).view(1, 1, -1)
    filt = F.conv1d(F.pad(spk.unsqueeze(1), (59, 0)), kern).squeeze(1)
    rec("filt_tail", filt[:, -5:])
    d = lib.cdist(filt, filt) / math.sqrt(tau)
    rec("vr", d)
    # recursive filter gives the same trace
    tr = lib.zeros(n, dtype=dt)
    trs = []
    for t in range(T):
        tr = tr * math.exp(-1 / tau) + spk[:, t]
        trs.append(tr)
    rec("rec_vs_conv", (lib.stack(trs, 1) - filt)[:, 60:].abs().max())
    # cross-correlogram of two trains
    a, b = spk[2], spk[4]
    cc = F.conv1d(F.pad(b.view(1, 1, -1), (20, 20)), a.view(1, 1, -1)).flatten()
    rec("ccg", cc)
    rec("sync", lib.corrcoef(win))
    # spike times into bins with searchsorted
    edges = lib.arange(0, T + 1, 25, dtype=dt)
    rec("bins", lib.searchsorted(edges, times_all[:30], right=True))
    rec("cummax", lib.cummax(filt[0, :40], 0).values)


def p_ebm_langevin(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(32)
    E = nn.Sequential(nn.Linear(2, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 1))
    E = E.to(dt)
    opt = lib.optim.Adam(E.parameters(), lr=1e-3, betas=(0.0, 0.999))
    ang = lib.rand(64, dtype=dt) * 2 * math.pi
    data = lib.stack([lib.cos(ang), lib.sin(ang)], 1) * 2 + 0.05 * lib.randn(64, 2, dtype=dt)
    buffer = lib.rand(100, 2, dtype=dt) * 6 - 3
    for _it in range(3):
        idx = lib.randint(0, 100, (16,))
        x = buffer[idx]
        reinit = lib.rand(16) < 0.05
        x[reinit] = lib.rand(int(reinit.sum()), 2, dtype=dt) * 6 - 3
        x = x.clone().requires_grad_()
        for _k in range(10):
            e = E(x).sum()
            (gx,) = lib.autograd.grad(e, x)
            x = (x - 0.05 * gx + 0.01 * lib.randn_like(x)).detach().clamp_(-3, 3).requires_grad_()
        x = x.detach()
        buffer[idx] = x
        pos = data[lib.randperm(64)[:16]]
        e_pos, e_neg = E(pos), E(x)
        loss = e_pos.mean() - e_neg.mean() + 0.1 * (e_pos**2 + e_neg**2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("x", x)
    rec.params("E", E, grads=True)
    # the score of the energy via torch.func
    score = lib.func.vmap(lib.func.grad(lambda z: E(z).squeeze()))(data[:4])
    rec("score", score)


def p_mistakes(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(33)
    spike = _spike_fn(lib, "fast_sigmoid", 25.0)
    fc = nn.Linear(3, 4).to(dt)
    x = lib.randn(5, 2, 3, dtype=dt)
    mem = lib.zeros(2, 4, dtype=dt)
    # carrying the membrane across batches without detaching it
    for _ in range(2):
        for t in range(5):
            _, mem = _leaky_step(spike, 0.9, 1.0, fc(x[t]), mem)
        loss = mem.sum()
        rec.err("carry", lambda: loss.backward())
    # the fix: detach between truncated-BPTT windows
    mem = mem.detach()
    for t in range(5):
        _, mem = _leaky_step(spike, 0.9, 1.0, fc(x[t]), mem)
    rec.err("detached", lambda: mem.sum().backward())
    leaf = lib.zeros(2, 4, dtype=dt, requires_grad=True)
    rec.err("leaf_inplace", lambda: leaf.mul_(0.9))

    class BadGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v, slope):
            return (v > 0).to(v.dtype)

        @staticmethod
        def backward(ctx, g):
            return g

    v = lib.randn(3, dtype=dt, requires_grad=True)
    rec.err("bad_ngrads", lambda: BadGrad.apply(v, 2.0).sum().backward())

    class WrongShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return (v > 0).to(v.dtype)

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    rec.err("bad_shape", lambda: WrongShape.apply(v).sum().backward())
    rec.err("no_grad_heav", lambda: lib.heaviside(v, lib.tensor(0.0, dtype=dt)).sum().backward())
    rec.err("bern_p", lambda: lib.bernoulli(lib.tensor([0.5, 1.5], dtype=dt)))
    rec.err("bern_int", lambda: lib.bernoulli(lib.tensor([0, 1])))
    rec.err("poisson_neg", lambda: lib.poisson(lib.tensor([-1.0], dtype=dt)))
    rec.err("heav_dtype", lambda: lib.heaviside(lib.tensor([1.0]), lib.tensor([1])))
    rec.err("singular", lambda: lib.linalg.solve(lib.zeros(3, 3, dtype=dt), lib.ones(3, dtype=dt)))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1]), 1))
    rec.err("outer_2d", lambda: lib.outer(lib.ones(2, 2), lib.ones(2)))
    rec.err("fill_diag_1d", lambda: lib.ones(3).fill_diagonal_(0))
    rec.err("cdist_dim", lambda: lib.cdist(lib.ones(3, 2), lib.ones(3, 4)))
    rec.err("mv_shape", lambda: lib.ones(3, 2).mv(lib.ones(3)))
    rec.err("addr_shape", lambda: lib.zeros(3, 2).addr_(lib.ones(2), lib.ones(2)))
    rec.err("clamp_none", lambda: lib.ones(2).clamp_())
    # rates as a tensor p: only bernoulli_ takes one (torch.bernoulli(rates) is the rate code)
    rates = lib.rand(4, dtype=dt)
    rec.err("bern_tensor_p", lambda: lib.bernoulli(lib.zeros(4, dtype=dt), rates))
    rec.err("bern_method_p", lambda: lib.zeros(4, dtype=dt).bernoulli(rates))
    rec.err("bern_gen_p", lambda: lib.bernoulli(rates, rates, generator=lib.Generator()))
    rec("bern_0d_p", lib.bernoulli(lib.zeros(4, dtype=dt), lib.tensor(0.5)))
    rec("bern_np_p", lib.zeros(3, dtype=dt).bernoulli_(np.float32(0.5)))
    rec("expo_np", lib.zeros(3, dtype=dt).exponential_(np.float32(2.0)))
    rec.err("bern_rg_p", lambda: lib.bernoulli(rates, lib.tensor(0.5, requires_grad=True)))
    W = lib.zeros(3, 3, dtype=dt)
    rec.err("fill_diag_vec", lambda: W.fill_diagonal_(lib.zeros(3, dtype=dt)))
    rec.err("fill_diag_none", lambda: W.fill_diagonal_(None))
    rec.err("fill_diag_wrap", lambda: W.fill_diagonal_(0, 1))
    rec.err("fill_diag_wrap_kw", lambda: W.fill_diagonal_(0, wrap=1))
    rec.err(
        "addr_bool_beta", lambda: W.addr(lib.ones(3, dtype=dt), lib.ones(3, dtype=dt), beta=False)
    )
    rec.err(
        "addr_bool_alpha", lambda: W.addr_(lib.ones(3, dtype=dt), lib.ones(3, dtype=dt), alpha=True)
    )
    rec.err("grad_nonscalar", lambda: lib.autograd.grad(v * 2, v))
    rec.err("grad_unused", lambda: lib.autograd.grad((v * 2).sum(), [v, leaf]))


def p_surrogate_misc(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(34)
    v = lib.randn(6, dtype=dt, requires_grad=True)
    # straight-through estimators
    ste = v + (lib.heaviside(v, lib.zeros((), dtype=dt)) - v).detach()
    (g1,) = lib.autograd.grad((ste * lib.arange(6, dtype=dt)).sum(), v)
    rec("ste", ste)
    rec("g_ste", g1)
    sig = lib.sigmoid(5 * v)
    st2 = sig + ((v > 0).to(dt) - sig).detach()
    (g2,) = lib.autograd.grad(st2.pow(2).sum(), v)
    rec("g_sig", g2)
    ht = F.hardtanh(v)
    st3 = ht + (lib.sign(v) - ht).detach()
    (g3,) = lib.autograd.grad(st3.sum(), v)
    rec("g_ht", g3)
    # the surrogate Function's second derivative (create_graph)
    spike = _spike_fn(lib, "fast_sigmoid", 3.0)
    y = spike(v)
    (gy,) = lib.autograd.grad(y.sum(), v, create_graph=True)
    (ggy,) = lib.autograd.grad(gy.sum(), v)
    rec("gy", gy)
    rec("ggy", ggy)
    spike_a = _spike_fn(lib, "atan", 2.0)
    (ga,) = lib.autograd.grad(spike_a(v).sum(), v, create_graph=True)
    (gga,) = lib.autograd.grad(ga.sum(), v)
    rec("ga", ga)
    rec("gga", gga)
    # one LIF step's Jacobian with autograd.functional and torch.func
    W = lib.randn(4, 4, dtype=dt) * 0.5

    def step(mem):
        return 0.9 * mem + lib.tanh(W @ mem) - spike(mem - 0.5).detach() * 0.5

    m0 = lib.randn(4, dtype=dt)
    J = lib.autograd.functional.jacobian(step, m0)
    rec("J", J)
    rec.err("jacrev_old_style", lambda: lib.func.jacrev(step)(m0))

    def step_a(mem):
        return 0.9 * mem + lib.tanh(W @ mem) - spike_a(mem - 0.5) * 0.5

    J2 = lib.func.jacrev(step_a)(m0)
    rec("J2", J2)
    rec("J2_ref", lib.autograd.functional.jacobian(step_a, m0))
    rec.err("vmap_no_rule", lambda: lib.func.vmap(spike_a)(m0.view(4, 1)))
    # surrogate helpers written with functional ops
    rec("fs_grad", 1 / (1 + 25 * v.detach().abs()) ** 2)
    rec("sig_grad", 25 * lib.sigmoid(25 * v.detach()) * (1 - lib.sigmoid(25 * v.detach())))
    tri = F.relu(1 - v.detach().abs())
    rec("tri", tri)

    # parameters of surrogate: learnable slope via nn.Parameter inside a Module
    class LearnSlope(nn.Module):
        def __init__(self):
            super().__init__()
            self.slope = nn.Parameter(lib.tensor(4.0, dtype=dt))

        def forward(self, u):
            s = lib.sigmoid(self.slope * u)
            return s + ((u > 0).to(u.dtype) - s).detach()

    m = LearnSlope()
    out = m(v.detach()) * lib.arange(6, dtype=dt)
    out.sum().backward()
    rec("slope_grad", m.slope.grad)
    rec("gfn", type(spike(v).grad_fn).__name__)
    rec("gfn_a", type(spike_a(v).grad_fn).__name__)


def p_ctx_features(lib, dt, rec):
    fwAD = lib.autograd.forward_ad
    lib.manual_seed(35)

    class SpikeCount(lib.autograd.Function):
        """Spikes with a surrogate and the integer count, which is not differentiable."""

        @staticmethod
        def forward(ctx, mem, thr):
            spk = (mem > thr).to(mem.dtype)
            count = spk.sum(-1).long()
            ctx.mark_non_differentiable(count)
            ctx.save_for_backward(mem, thr)
            ctx.set_materialize_grads(False)
            return spk, count

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g_spk, g_count):
            mem, thr = ctx.saved_tensors
            rec("needs", str(ctx.needs_input_grad))
            rec("g_count_none", str(g_count is None))
            if g_spk is None:
                return None, None
            sg = 1 / (1 + 10 * (mem - thr).abs()) ** 2
            g_mem = g_spk * sg if ctx.needs_input_grad[0] else None
            g_thr = -(g_spk * sg).sum() if ctx.needs_input_grad[1] else None
            return g_mem, g_thr

    mem = lib.randn(3, 5, dtype=dt, requires_grad=True)
    thr = lib.tensor(0.2, dtype=dt, requires_grad=True)
    spk, count = SpikeCount.apply(mem, thr)
    rec("count", count)
    rec("count_rg", str(count.requires_grad))
    (spk * lib.arange(5, dtype=dt)).sum().backward()
    rec("g_mem", mem.grad)
    rec("g_thr", thr.grad)
    spk, count = SpikeCount.apply(mem.detach(), thr)
    spk.sum().backward()
    rec("g_thr2", thr.grad)
    spk, _ = SpikeCount.apply(mem, thr)
    (g,) = lib.autograd.grad(spk.sum(), mem, create_graph=True)
    rec("g_create", g)
    rec.err("twice", lambda: g.sum().backward())

    class SoftSpike(lib.autograd.Function):
        """A sigmoid spike with forward-mode support (jvp)."""

        @staticmethod
        def forward(ctx, x, k):
            s = lib.sigmoid(k * x)
            ctx.save_for_backward(s)
            ctx.save_for_forward(s)
            ctx.k = k
            return s

        @staticmethod
        def backward(ctx, g):
            (s,) = ctx.saved_tensors
            return g * ctx.k * s * (1 - s), None

        @staticmethod
        def jvp(ctx, x_t, k_t):
            (s,) = ctx.saved_tensors
            return x_t * ctx.k * s * (1 - s)

    x = lib.randn(4, dtype=dt)
    t = lib.randn(4, dtype=dt)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, t)
        out = SoftSpike.apply(dual, 3.0)
        p, tangent = fwAD.unpack_dual(out)
    rec("primal", p)
    rec("tangent", tangent)
    xr = x.clone().requires_grad_()
    (gb,) = lib.autograd.grad(SoftSpike.apply(xr, 3.0), xr, t)
    rec("vjp", gb)
    # the LIF membrane's sensitivity to its input current by forward mode
    cur = lib.rand(6, dtype=dt)
    with fwAD.dual_level():
        c = fwAD.make_dual(cur, lib.ones_like(cur))
        m = lib.zeros((), dtype=dt)
        for i in range(6):
            m = 0.8 * m + c[i]
        rec("fw_mem", fwAD.unpack_dual(m).tangent)
    rec.err("jvp_func", lambda: lib.func.jvp(lambda z: SoftSpike.apply(z, 2.0), (x,), (t,)))


def p_parametrize(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize
    lib.manual_seed(36)

    class Dale(nn.Module):
        def __init__(self, sign):
            super().__init__()
            self.register_buffer("sign", sign)

        def forward(self, w):
            return w.abs() * self.sign

    class NoSelf(nn.Module):
        def forward(self, w):
            return w - lib.diag(lib.diag(w))

    n = 6
    sign = lib.ones(n, dtype=dt)
    sign[4:] = -1
    rnn = nn.Linear(n, n, bias=False).to(dt)
    P.register_parametrization(rnn, "weight", Dale(sign))
    P.register_parametrization(rnn, "weight", NoSelf())
    rec("is_p", str(P.is_parametrized(rnn, "weight")))
    rec("keys", str(sorted(rnn.state_dict().keys())))
    rec("w", rnn.weight)
    rec("orig", rnn.parametrizations.weight.original)
    opt = lib.optim.Adam(rnn.parameters(), lr=0.05)
    x = lib.rand(4, n, dtype=dt)
    for _ in range(3):
        r = x
        for _t in range(5):
            r = lib.relu(rnn(r) + x)
        loss = (r - 0.5).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("w_after", rnn.weight)
    with P.cached():
        rec("cached", rnn.weight + rnn.weight)
    P.remove_parametrizations(rnn, "weight", leave_parametrized=True)
    rec("removed", str((type(rnn.weight).__name__, P.is_parametrized(rnn))))
    rec("w_removed", rnn.weight)
    # spectral norm for a contractive recurrent weight (echo state property)
    lin = nn.Linear(n, n).to(dt)
    sn = nn.utils.parametrizations.spectral_norm(lin, n_power_iterations=3)
    y = sn(x)
    rec("sn_y", y)
    rec("sn_sigma", lib.linalg.matrix_norm(sn.weight.detach(), 2))
    rec("sn_keys", str(sorted(sn.state_dict().keys())))
    orth = nn.utils.parametrizations.orthogonal(nn.Linear(n, n, bias=False).to(dt))
    Wo = orth.weight
    rec("orth", Wo @ Wo.T)


def p_reservoir_init(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(37)
    N = 12
    W = lib.empty(N, N, dtype=dt)
    nn.init.sparse_(W, sparsity=0.7, std=0.5)
    rec("sparse", W)
    rec("zeros_per_col", (W == 0).sum(0))
    Q = nn.init.orthogonal_(lib.empty(N, N, dtype=dt), gain=0.9)
    rec("orth", Q)
    rec("QQt", Q @ Q.T)
    E = nn.init.eye_(lib.empty(3, 5, dtype=dt))
    rec("eye", E)
    Dk = nn.init.dirac_(lib.empty(2, 2, 3, dtype=dt))
    rec("dirac", Dk)
    X = nn.init.xavier_normal_(lib.empty(4, 6, dtype=dt), gain=nn.init.calculate_gain("tanh"))
    rec("xavier", X)
    T = nn.init.trunc_normal_(lib.empty(5, 5, dtype=dt), std=0.1, a=-0.15, b=0.15)
    rec("trunc", T)
    rec("gain", lib.tensor([nn.init.calculate_gain(k) for k in ("relu", "sigmoid", "selu")]))
    # continuous-time linear rate network: exact solution by the matrix exponential
    A = Q * 0.5 - lib.eye(N, dtype=dt)
    x0 = lib.randn(N, dtype=dt)
    xt = lib.linalg.matrix_exp(A * 0.5) @ x0
    rec("expm", xt)
    xs = x0.clone()
    for _ in range(50):
        xs = xs + 0.01 * (A @ xs)
    rec("euler", xs)
    rec("mpow", lib.linalg.matrix_power(lib.eye(N, dtype=dt) + 0.01 * A, 50) @ x0)
    rec("mpow_neg", lib.linalg.matrix_power(lib.eye(N, dtype=dt) + 0.01 * A, -2)[:2])
    rec("block", lib.block_diag(Q[:2, :2], lib.ones(1, 3, dtype=dt)))
    rec("kron", lib.kron(lib.eye(2, dtype=dt), Q[:2, :2]))
    rec("trapz", lib.trapezoid(lib.exp(-lib.linspace(0, 3, 31, dtype=dt)), dx=0.1))
    rec("cumtrapz", lib.cumulative_trapezoid(xs[:6], dx=0.5))


def p_poisson_isi(lib, dt, rec):
    lib.manual_seed(38)
    g = lib.Generator().manual_seed(11)
    n, rate = 6, lib.tensor([5.0, 10.0, 20.0, 40.0, 80.0, 2.0], dtype=dt)
    isi = lib.empty(n, 30, dtype=dt).exponential_(1.0, generator=g) / rate.unsqueeze(1)
    times = lib.cumsum(isi, 1)
    rec("times", times[:, :5])
    in_win = times < 1.0
    rec("counts", in_win.sum(1))
    # to a binned raster with index_put_ accumulate (1 ms bins)
    idx = (times * 1000).long()
    rows = lib.arange(n).unsqueeze(1).expand_as(idx)
    raster = lib.zeros(n, 1000, dtype=dt)
    raster.index_put_(
        (rows[in_win], idx[in_win]), lib.ones(int(in_win.sum()), dtype=dt), accumulate=True
    )
    rec("raster_sum", raster.sum(1))
    rec("raster_nz", raster.nonzero()[:10])
    geo = lib.empty(8, dtype=dt).geometric_(0.2, generator=g)
    rec("geo", geo)
    ri = lib.empty(8, dtype=lib.int64).random_(0, 10, generator=g)
    rec("random", ri)
    u = lib.empty(5, dtype=dt).uniform_(-1, 1, generator=g)
    rec("uniform", u)
    nrm = lib.normal(lib.zeros(4, dtype=dt), lib.ones(4, dtype=dt) * 2, generator=g)
    rec("normal", nrm)
    ln = lib.empty(4, dtype=dt).log_normal_(0.0, 0.5, generator=g)
    rec("lognormal", ln)
    cauchy = lib.empty(3, dtype=dt).cauchy_(generator=g)
    rec("cauchy", cauchy)
    b = lib.empty(10, dtype=dt).bernoulli_(0.3, generator=g)
    rec("bern_", b)
    bp = lib.zeros(5, dtype=dt).bernoulli_(lib.linspace(0, 1, 5, dtype=dt), generator=g)
    rec("bern_p", bp)
    rp = lib.randperm(7, generator=g)
    rec("perm", rp)
    ri2 = lib.randint(3, 9, (4,), generator=g)
    rec("randint", ri2)
    rn = lib.randn(3, generator=g, dtype=dt)
    rec("randn", rn)
    # a dead-time (refractory) thinning of a Poisson train
    tr = times[3]
    keep = lib.ones_like(tr, dtype=lib.bool)
    last = tr[0].item()
    for i in range(1, tr.numel()):
        if tr[i].item() - last < 0.01:
            keep[i] = False
        else:
            last = tr[i].item()
    rec("kept", keep)
    # a homogeneous Poisson process by a Bernoulli per bin, with a time-varying rate
    tt = lib.arange(0, 1, 0.001, dtype=dt)
    lam = 20 * (1 + lib.sin(2 * math.pi * 3 * tt))
    spk = lib.rand(tt.shape, generator=g, dtype=dt) < lam * 0.001
    rec("inh", spk.nonzero().squeeze(1)[:15])
    rec("dist_sample", lib.distributions.Exponential(rate).sample((2,)))


def p_score_matching(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(39)
    E = nn.Sequential(
        nn.Linear(2, 16), nn.Softplus(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)
    )
    E = E.to(dt)
    opt = lib.optim.Adam(E.parameters(), lr=1e-3)
    data = lib.randn(32, 2, dtype=dt) @ lib.tensor([[1.0, 0.5], [0.0, 0.5]], dtype=dt)
    for _ in range(2):
        x = data.clone().requires_grad_()
        e = E(x).sum()
        (score,) = lib.autograd.grad(-e, x, create_graph=True)
        # exact trace of the score's Jacobian, one coordinate at a time
        tr = lib.zeros(x.shape[0], dtype=dt)
        for i in range(2):
            (gi,) = lib.autograd.grad(score[:, i].sum(), x, create_graph=True)
            tr = tr + gi[:, i]
        ism = (tr + 0.5 * score.pow(2).sum(1)).mean()
        # sliced score matching with Rademacher projections
        v = lib.randint(0, 2, x.shape).to(dt) * 2 - 1
        (gv,) = lib.autograd.grad((score * v).sum(), x, create_graph=True)
        ssm = ((gv * v).sum(1) + 0.5 * (score * v).sum(1) ** 2).mean()
        # denoising score matching
        sigma = 0.1
        noise = lib.randn_like(data) * sigma
        xn = (data + noise).requires_grad_()
        (sn,) = lib.autograd.grad(-E(xn).sum(), xn, create_graph=True)
        dsm = 0.5 * ((sn + noise / sigma**2) ** 2).sum(1).mean()
        loss = ism + ssm + 0.01 * dsm
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("ism", ism)
        rec("ssm", ssm)
        rec("dsm", dsm)
    rec.params("E", E, grads=True)
    # batched vector-Jacobian products of the score
    x = data[:5].clone().requires_grad_()
    s = -lib.autograd.grad(E(x).sum(), x, create_graph=True)[0]
    eye = lib.eye(2, dtype=dt).unsqueeze(1).expand(2, 5, 2)
    (H,) = lib.autograd.grad(s, x, eye, is_grads_batched=True)
    rec("H", H)
    hess = lib.func.vmap(lib.func.hessian(lambda z: E(z).squeeze()))(data[:5])
    rec("hess", hess)


def p_stochastic_spikes(lib, dt, rec):
    D, F, nn = lib.distributions, lib.nn.functional, lib.nn
    lib.manual_seed(40)
    # a stochastic spiking policy trained by REINFORCE
    fc = nn.Linear(4, 6).to(dt)
    x = lib.randn(8, 4, dtype=dt)
    d = D.Bernoulli(logits=fc(x))
    s = d.sample()
    r = (s[:, :3].sum(1) - s[:, 3:].sum(1)).detach()
    loss = -(d.log_prob(s).sum(1) * (r - r.mean())).mean() - 0.01 * d.entropy().mean()
    loss.backward()
    rec("s", s)
    rec("loss", loss)
    rec("g", fc.weight.grad)
    rec("probs", d.probs)
    rec("ber_repr", repr(D.Bernoulli(probs=lib.tensor([0.3], dtype=dt))))
    # relaxed (concrete) spikes with a temperature
    rb = D.RelaxedBernoulli(lib.tensor(0.5, dtype=dt), logits=fc(x)[:2])
    z = rb.rsample()
    rec("relaxed", z)
    rec("relaxed_lp", rb.log_prob(z))
    hard = F.gumbel_softmax(lib.stack([fc(x)[:3], -fc(x)[:3]], -1), tau=0.5, hard=True)
    rec("gumbel_hard", hard)
    soft = F.gumbel_softmax(lib.stack([fc(x)[:3], -fc(x)[:3]], -1), tau=0.5)
    rec("gumbel_soft", soft)
    # spike counts in windows: binomial, and escape-noise neurons
    bn = D.Binomial(total_count=10, probs=lib.sigmoid(fc(x)[0]).detach())
    c = bn.sample()
    rec("binom", c)
    rec("binom_lp", bn.log_prob(c))
    rate = F.softplus(fc(x)[1]).detach()
    po = D.Poisson(rate)
    k = po.sample((3,))
    rec("poisson", k)
    rec("poisson_lp", po.log_prob(k))
    rec("gnll", F.poisson_nll_loss(lib.log(rate), k[0], log_input=True, full=True))
    rec("gnll2", F.poisson_nll_loss(rate, k[1], log_input=False))
    esc = D.Geometric(probs=lib.tensor([0.1, 0.5], dtype=dt))
    rec("geom", esc.sample((4,)))
    rec("geom_lp", esc.log_prob(lib.tensor([3.0, 0.0], dtype=dt)))
    rec(
        "kl",
        D.kl_divergence(
            D.Bernoulli(probs=lib.tensor([0.2], dtype=dt)),
            D.Bernoulli(probs=lib.tensor([0.6], dtype=dt)),
        ),
    )


def p_checkpoint_bptt(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    cp = lib.utils.checkpoint
    lib.manual_seed(41)
    spike = _spike_fn(lib, "fast_sigmoid", 25.0)
    fc = nn.Linear(4, 6).to(dt)
    ro = nn.Linear(6, 2).to(dt)
    x = lib.rand(16, 3, 4, dtype=dt) * 2

    def chunk(mem, xs):
        outs = []
        for t in range(xs.shape[0]):
            spk, mem = _leaky_step(spike, 0.9, 1.0, fc(xs[t]), mem)
            outs.append(ro(spk))
        return mem, lib.stack(outs)

    def run(use_cp):
        mem = lib.zeros(3, 6, dtype=dt)
        outs = []
        for k in range(4):
            xs = x[4 * k : 4 * k + 4]
            if use_cp:
                mem, o = cp.checkpoint(chunk, mem, xs, use_reentrant=False)
            else:
                mem, o = chunk(mem, xs)
            outs.append(o)
        return lib.cat(outs)

    for use_cp in (False, True):
        fc.zero_grad()
        ro.zero_grad()
        out = run(use_cp)
        loss = F.cross_entropy(out.sum(0), lib.tensor([0, 1, 0]))
        loss.backward()
        rec("loss", loss)
        rec("g_fc", fc.weight.grad)
        rec("g_ro", ro.bias.grad)
    # truncated BPTT: detach the membrane every k steps, one optimiser step per window
    opt = lib.optim.SGD(list(fc.parameters()) + list(ro.parameters()), lr=0.1)
    mem = lib.zeros(3, 6, dtype=dt)
    for k in range(4):
        mem = mem.detach()
        mem, o = chunk(mem, x[4 * k : 4 * k + 4])
        loss = F.cross_entropy(o.sum(0), lib.tensor([0, 1, 0]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("tbptt", loss)
    rec("mem", mem)

    @lib.jit.script
    def lif_step(mem: torch.Tensor, cur: torch.Tensor, beta: float):
        spk = (mem > 1.0).to(mem.dtype)
        return beta * mem + cur - spk, spk

    m = lib.zeros(3, dtype=dt)
    for t in range(5):
        m, s = lif_step(m, lib.full((3,), 0.4, dtype=dt) * (t + 1) / 3, 0.8)
    rec("jit_m", m)
    rec("jit_s", s)


def p_ensemble_vmap(lib, dt, rec):
    nn, fn = lib.nn, lib.func
    lib.manual_seed(42)

    class Spike(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return (x > 0).to(x.dtype)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g / (1 + 10 * x.abs()) ** 2

    class SNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 5)
            self.out = nn.Linear(5, 2)

        def forward(self, x):
            mem = lib.zeros(x.shape[1], 5, dtype=x.dtype)
            acc = 0
            for t in range(x.shape[0]):
                mem = 0.8 * mem + self.fc(x[t])
                spk = Spike.apply(mem - 0.5)
                mem = mem - spk.detach() * 0.5
                acc = acc + self.out(spk)
            return acc

    models = [SNN().to(dt) for _ in range(3)]
    params, buffers = fn.stack_module_state(models)
    rec("pshape", str({k: tuple(v.shape) for k, v in params.items()}))
    base = copy.deepcopy(models[0]).to("meta")  # as torch's tutorial
    x = lib.rand(6, 4, 3, dtype=dt) * 2

    def run(p, b, x):
        return fn.functional_call(base, (p, b), (x,))

    out = fn.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    ref = lib.stack([m(x) for m in models])
    rec("ref", out - ref)

    def loss_fn(p, b, x, y):
        return lib.nn.functional.cross_entropy(run(p, b, x), y)

    y = lib.tensor([0, 1, 1, 0])
    grads = fn.vmap(fn.grad(loss_fn), in_dims=(0, 0, None, None))(params, buffers, x, y)
    rec("g_fc", grads["fc.weight"])
    rec("g_out", grads["out.bias"])
    loss0 = loss_fn({k: v[0] for k, v in params.items()}, {}, x, y)
    loss0.backward()
    rec("leaf", str((params["fc.weight"].is_leaf, params["fc.weight"].requires_grad)))
    rec("g_ref", params["fc.weight"].grad[0] - grads["fc.weight"][0])
    rec("g_ref1", params["fc.weight"].grad[1])
    # per-sample gradients of one model
    p0 = {k: v.detach() for k, v in models[1].named_parameters()}

    def one(p, xi, yi):
        return loss_fn(p, {}, xi.unsqueeze(1), yi.unsqueeze(0))

    ps = fn.vmap(fn.grad(one), in_dims=(None, 1, 0))(p0, x, y)
    rec("per_sample", ps["out.weight"])


def p_delays_refractory(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(43)
    n_in, n, T, D = 4, 5, 40, 4
    delays = lib.randint(0, D, (n, n_in))
    W = lib.rand(n, n_in, dtype=dt) * 0.8
    inp = (lib.rand(T, n_in) < 0.3).to(dt)
    # ring buffer of future input currents
    ring = lib.zeros(D, n, dtype=dt)
    v = lib.zeros(n, dtype=dt)
    ref = lib.zeros(n, dtype=lib.int64)
    spikes = []
    for t in range(T):
        for d in range(D):
            ring[(t + d) % D] += (W * (delays == d) * inp[t]).sum(1)
        cur = ring[t % D].clone()
        ring[t % D] = 0
        active = ref == 0
        v = lib.where(active, 0.9 * v + cur, v)
        spk = (v >= 1.0) & active
        v = v.masked_fill(spk, 0.0)
        ref = lib.where(spk, lib.full_like(ref, 3), (ref - 1).clamp(min=0))
        spikes.append(spk)
    S = lib.stack(spikes)
    rec("spikes", S)
    rec("ref", ref)
    rec("v", v)
    # the same delays as a dilated causal conv1d over time (one delay line per synapse)
    kern = lib.zeros(n * n_in, 1, D, dtype=dt)
    flat = delays.flatten()
    kern[lib.arange(n * n_in), 0, D - 1 - flat] = W.flatten()
    x = inp.T.repeat_interleave(n, 0).view(n_in, n, T).transpose(0, 1).reshape(1, n * n_in, T)
    conv = F.conv1d(F.pad(x, (D - 1, 0)), kern, groups=n * n_in)
    cur_conv = conv.view(n, n_in, T).sum(1).T
    rec("cur_conv", cur_conv)
    dil = F.conv1d(F.pad(inp.T.unsqueeze(0), (4, 0)), lib.ones(2, n_in, 3, dtype=dt), dilation=2)
    rec("dilated", dil)
    rec("roll", lib.roll(inp[:6], shifts=(2, -1), dims=(0, 1)))
    # k winners take all
    acts = lib.randn(6, 10, dtype=dt)
    vals, idx = acts.topk(3, dim=1)
    kwta = lib.zeros_like(acts).scatter(1, idx, 1.0)
    rec("kwta", kwta)
    rec("kth", acts.kthvalue(8, dim=1).values - vals[:, -1])
    kw2 = (acts >= vals[:, -1:]).to(dt)
    rec("kw_eq", lib.equal(kw2, kwta))
    srt, order = lib.sort(acts, dim=1, descending=True, stable=True)
    rec("rank", order.argsort(1))


def p_lca_sparse(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(44)
    n_in, n_atoms, B = 16, 24, 5
    Phi = F.normalize(lib.randn(n_in, n_atoms, dtype=dt), dim=0)
    X = lib.randn(B, n_in, dtype=dt)
    lam, tau, steps = 0.3, 10.0, 60
    G = Phi.T @ Phi - lib.eye(n_atoms, dtype=dt)
    b = X @ Phi
    u = lib.zeros(B, n_atoms, dtype=dt)
    for _ in range(steps):
        a = F.softshrink(u, lam)
        u = u + (b - u - a @ G) / tau
    a = F.softshrink(u, lam)
    a2 = lib.sign(u) * F.relu(u.abs() - lam)
    a3 = F.relu(u - lam) - F.relu(-u - lam)
    rec("a", a)
    rec("same", (a - a2).abs().max() + (a - a3).abs().max())
    rec("nnz", (a != 0).sum(1))
    rec("recon", F.mse_loss(a @ Phi.T, X))
    energy = 0.5 * ((X - a @ Phi.T) ** 2).sum(1) + lam * a.abs().sum(1)
    rec("energy", energy)
    # ISTA with the same objective; dictionary learning step by autograd
    L = lib.linalg.matrix_norm(Phi, 2) ** 2
    z = lib.zeros(B, n_atoms, dtype=dt)
    for _ in range(100):
        z = F.softshrink(z - ((z @ Phi.T - X) @ Phi) / L, lam / L)
    rec("ista", z)
    D_ = Phi.clone().requires_grad_()
    loss = 0.5 * ((X - z @ D_.T) ** 2).sum() / B
    loss.backward()
    with lib.no_grad():
        D_ -= 0.1 * D_.grad
        D_ /= D_.norm(dim=0, keepdim=True)
    rec("D", D_)
    rec("hardshrink", F.hardshrink(u[0], lam))
    rec("tanhshrink", F.tanhshrink(u[0]))
    rec("threshold", F.threshold(u[0], 0.1, -1.0))


def p_ring_attractor(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(45)
    N = 32
    theta = lib.arange(N, dtype=dt) * 2 * math.pi / N
    J0, J1 = -1.0, 3.0
    W = (J0 + J1 * lib.cos(theta.unsqueeze(0) - theta.unsqueeze(1))) / N
    rec("circulant", lib.allclose(W[1], lib.roll(W[0], 1)))
    bump = lib.exp(2 * (lib.cos(theta - 1.0) - 1))
    r = bump.clone()
    for t in range(80):
        inp = 0.05 * lib.roll(r, 1) if t > 40 else 0.0
        r = r + 0.1 * (-r + F.relu(W @ r + 0.5 + inp))
    rec("r", r)
    pos = lib.atan2((r * lib.sin(theta)).sum(), (r * lib.cos(theta)).sum())
    rec("pos", pos)
    # the same recurrence by a circular conv1d with the first row as kernel
    kern = W[0].roll(N // 2).flip(0).view(1, 1, -1)
    rr = bump.view(1, 1, -1)
    conv = F.conv1d(F.pad(rr, (N // 2, N // 2 - 1), mode="circular"), kern).flatten()
    rec("conv_vs_mat", conv - W @ bump)
    # a 2-D neural field (Amari) with a Mexican-hat kernel and circular padding
    xs = lib.arange(-3, 4, dtype=dt)
    d2 = xs.view(-1, 1) ** 2 + xs.view(1, -1) ** 2
    k = 1.5 * lib.exp(-d2 / 2) - 0.75 * lib.exp(-d2 / 8)
    u = lib.randn(1, 1, 12, 12, dtype=dt) * 0.1
    u[..., 5:7, 5:7] += 2.0
    for _ in range(15):
        f = lib.sigmoid(5 * (u - 0.5))
        lat = F.conv2d(F.pad(f, (3, 3, 3, 3), mode="circular"), k.view(1, 1, 7, 7))
        u = u + 0.2 * (-u + lat)
    rec("field", u)
    rec("field_refl", F.pad(u, (1, 1, 1, 1), mode="reflect")[0, 0, :3, :3])
    rec("field_repl", F.pad(u, (2, 0, 0, 2), mode="replicate")[0, 0, -3:, :3])
    rec("field_max", lib.nn.functional.max_pool2d(u, 3, stride=3))


def p_ltc_schedulers(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(46)

    class LTCCell(nn.Module):
        """A liquid time-constant cell unfolded by fused semi-implicit Euler steps."""

        def __init__(self, nin, nh, unfolds=3):
            super().__init__()
            self.gleak = nn.Parameter(lib.rand(nh) * 0.9 + 0.1)
            self.cm = nn.Parameter(lib.rand(nh) * 0.5 + 0.5)
            self.vleak = nn.Parameter(lib.randn(nh) * 0.2)
            self.w = nn.Parameter(lib.rand(nin + nh, nh) * 0.9 + 0.1)
            self.mu = nn.Parameter(lib.rand(nin + nh, nh) * 0.5 + 0.3)
            self.sigma = nn.Parameter(lib.rand(nin + nh, nh) * 5 + 3)
            self.erev = nn.Parameter(lib.randint(0, 2, (nin + nh, nh)).float() * 2 - 1)
            self.unfolds = unfolds

        def forward(self, x, v):
            for _ in range(self.unfolds):
                pre = lib.cat([x, v], -1).unsqueeze(-1)
                act = F.softplus(self.w) * lib.sigmoid(self.sigma * (pre - self.mu))
                num = self.cm * v + self.gleak * self.vleak + (act * self.erev).sum(1)
                den = self.cm + self.gleak + act.sum(1)
                v = num / (den + 1e-8)
            return v

    cell = LTCCell(2, 6).to(dt)
    head = nn.Linear(6, 1).to(dt)
    params = list(cell.parameters()) + list(head.parameters())
    opt = lib.optim.Adam(params, lr=1e-2)
    onecycle = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=6)
    t = lib.linspace(0, 3, 12, dtype=dt)
    x = lib.stack([lib.sin(t), lib.cos(t)], -1).unsqueeze(1).expand(-1, 3, -1)
    y = lib.sin(t + 0.5).unsqueeze(1).expand(-1, 3)
    for _ in range(6):
        v = lib.zeros(3, 6, dtype=dt)
        outs = []
        for k in range(len(t)):
            v = cell(x[k], v)
            outs.append(head(v).squeeze(-1))
        loss = F.mse_loss(lib.stack(outs), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        onecycle.step()
        rec("loss", loss)
        rec("lr", lib.tensor(opt.param_groups[0]["lr"]))
        rec("mom", lib.tensor(opt.param_groups[0]["betas"][0]))
    rec.params("ltc", cell, grads=True)
    # ReduceLROnPlateau on a validation loss that stalls
    opt2 = lib.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
    plateau = lib.optim.lr_scheduler.ReduceLROnPlateau(opt2, factor=0.5, patience=1, threshold=0.01)
    lrs = []
    for val in [1.0, 0.9, 0.895, 0.894, 0.893, 0.7, 0.7, 0.7]:
        plateau.step(val)
        lrs.append(opt2.param_groups[0]["lr"])
    rec("plateau", lib.tensor(lrs))
    rec("best", lib.tensor(plateau.best))
    sd = plateau.state_dict()
    rec("sd_keys", str(sorted(k for k in sd if k != "_last_lr")))


def p_inplace_records(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(47)
    spike = _spike_fn(lib, "fast_sigmoid", 10.0)
    T, B, n = 8, 3, 5
    fc = nn.Linear(4, n).to(dt)
    x = lib.rand(T, B, 4, dtype=dt) * 2
    # preallocated records filled by index assignment inside the graph (snnTorch tutorials)
    spk_rec = lib.zeros(T, B, n, dtype=dt)
    mem_rec = lib.zeros(T, B, n, dtype=dt)
    mem = lib.zeros(B, n, dtype=dt)
    for t in range(T):
        cur = fc(x[t])
        mem = mem * 0.9  # a non-leaf: the in-place updates below are recorded
        mem.add_(cur)
        spk = spike(mem - 1.0)
        mem.sub_(spk.detach())
        spk_rec[t] = spk
        mem_rec[t, :, :] = mem
    loss = F.mse_loss(spk_rec.sum(0), lib.full((B, n), 2.0, dtype=dt)) + mem_rec[-1].pow(2).mean()
    loss.backward()
    rec("spk_rec", spk_rec)
    rec("mem_rec", mem_rec)
    rec("gfn", type(spk_rec.grad_fn).__name__)
    rec.params("fc", fc, grads=True)
    # the same with masked_fill_ (reset to zero) and index_put_ into a record
    fc.zero_grad()
    mem = lib.zeros(B, n, dtype=dt)
    counts = lib.zeros(B, n, dtype=dt)
    for t in range(T):
        mem = 0.8 * mem + fc(x[t])
        spk = spike(mem - 1.0)
        counts = counts + spk
        mem = mem.clone()
        mem.masked_fill_(spk.detach().bool(), 0.0)
    counts.sum().backward()
    rec("counts", counts)
    rec("g2", fc.weight.grad)
    # STDP-style updates through .data, which autograd does not see
    w = nn.Parameter(lib.rand(n, 4, dtype=dt))
    y = (x[0] @ w.T).sum()
    w.data += 0.1 * lib.outer(lib.ones(n, dtype=dt), x[0, 0])
    w.data.clamp_(0, 1)
    y.backward()
    rec("w", w)
    rec("wg", w.grad)
    w.grad.data.zero_()
    rec("wg0", w.grad)
    rec("ver", str(w._version if hasattr(w, "_version") else None))
    # a saved tensor modified in place is refused
    a = lib.rand(3, dtype=dt, requires_grad=True)
    b = a * 2
    c = b.sigmoid()
    b2 = c.exp()
    c.mul_(2)
    rec.err("modified", lambda: b2.sum().backward())
    m = lib.rand(3, dtype=dt, requires_grad=True) * 1
    v = m[:2]
    v.mul_(3)
    m.sum().backward()
    rec("view_grad_fn", type(m.grad_fn).__name__)


def p_snntorch_style(lib, dt, rec):
    """snnTorch's own machinery: a _SpikeTensor placeholder built by Tensor.__new__, an ATan
    surrogate returning float32 spikes, reset mechanisms, inhibition, graded spikes, state
    quantisation and init_hidden layers detached between batches."""
    nn, F = lib.nn, lib.nn.functional

    class _SpikeTensor(lib.Tensor):
        @staticmethod
        def __new__(cls, *args, init_flag=False, **kwargs):
            return super().__new__(cls, *args, **kwargs)

        def __init__(self, *args, init_flag=True):
            self.init_flag = init_flag

    def _spike_torch_conv(*args, input_):
        states = []
        for arg in args:
            if getattr(arg, "init_flag", True) is False:
                arg = lib.zeros_like(input_, device=arg.device)
            states.append(arg)
        return states

    class ATan(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input_, alpha=2.0):
            ctx.save_for_backward(input_)
            ctx.alpha = alpha
            return (input_ > 0).float() if input_.dtype == lib.float32 else (input_ > 0).double()

        @staticmethod
        def backward(ctx, grad_output):
            (input_,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad = ctx.alpha / 2 / (1 + (lib.pi / 2 * ctx.alpha * input_).pow_(2)) * grad_input
            return grad, None

    class Leaky(nn.Module):
        instances = []

        def __init__(self, beta, threshold=1.0, reset_mechanism="subtract", init_hidden=False,
                     inhibition=False, graded=1.0, learn_beta=False, state_quant=None):  # fmt: skip
            super().__init__()
            Leaky.instances.append(self)
            beta = lib.as_tensor(beta)
            if learn_beta:
                self.beta = nn.Parameter(beta)
            else:
                self.register_buffer("beta", beta)
            self.register_buffer("threshold", lib.as_tensor(threshold))
            self.reset_mechanism = reset_mechanism
            self.init_hidden = init_hidden
            self.inhibition = inhibition
            self.graded = graded
            self.state_quant = state_quant
            self.mem = _SpikeTensor(init_flag=False)

        def fire(self, mem):
            if self.state_quant:
                mem = self.state_quant(mem)
            spk = ATan.apply(mem - self.threshold)
            return spk * self.graded

        def fire_inhibition(self, batch_size, mem):
            index = lib.argmax(mem, dim=1)
            spk_tmp = ATan.apply(mem - self.threshold)
            mask = lib.zeros_like(spk_tmp)
            mask[lib.arange(batch_size), index] = 1
            return spk_tmp * mask

        def forward(self, input_, mem=None):
            if mem is None:
                (self.mem,) = _spike_torch_conv(self.mem, input_=input_)
                mem = self.mem
            reset = ATan.apply(mem - self.threshold).clone().detach()
            beta = self.beta.clamp(0, 1)
            if self.reset_mechanism == "subtract":
                mem = beta * mem + input_ - reset * self.threshold
            elif self.reset_mechanism == "zero":
                mem = beta * mem + input_ - reset * (beta * mem + input_)
            else:
                mem = beta * mem + input_
            if self.inhibition:
                spk = self.fire_inhibition(mem.size(0), mem)
            else:
                spk = self.fire(mem)
            if self.init_hidden:
                self.mem = mem
                return spk
            return spk, mem

        @classmethod
        def detach_hidden(cls):
            for layer in cls.instances:
                if isinstance(layer.mem, lib.Tensor):
                    layer.mem.detach_()

    def state_quant(mem, num_bits=3, lo=-1.0, hi=2.0):
        levels = lib.linspace(lo, hi, 2**num_bits, dtype=mem.dtype)
        idx = lib.argmin(lib.abs(levels.unsqueeze(0) - mem.reshape(-1, 1)), dim=1)
        q = levels[idx].view(mem.shape)
        return mem + (q - mem).detach()

    lib.manual_seed(48)
    rec("st_repr", repr(_SpikeTensor(init_flag=False)))
    rec("st_shape", str(tuple(_SpikeTensor([1.0, 2.0]).shape)))
    net = nn.Sequential(
        nn.Linear(6, 8),
        Leaky(0.9, init_hidden=True, learn_beta=True),
        nn.Linear(8, 8),
        Leaky(0.8, init_hidden=True, reset_mechanism="zero", state_quant=state_quant),
        nn.Linear(8, 4),
        Leaky([0.7, 0.75, 0.8, 0.85], init_hidden=True, inhibition=True),
    ).to(dt)
    rec("bufs", str([n for n, _ in net.named_buffers()]))
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    for _batch in range(2):
        x = lib.rand(10, 5, 6, dtype=dt) * 1.5
        y = lib.randint(0, 4, (5,))
        Leaky.detach_hidden()
        for layer in Leaky.instances:
            layer.mem = _SpikeTensor(init_flag=False)
        spks = []
        for t in range(x.shape[0]):
            spks.append(net(x[t]))
        spk = lib.stack(spks)
        rec("spk.dtype_", str(spk.dtype))
        loss = F.cross_entropy(spk.sum(0), y) + 0.1 * net[5].mem.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("spk", spk)
        rec("loss", loss)
        rec("mems", lib.cat([net[i].mem.detach().flatten() for i in (1, 3, 5)]))
    rec.params("net", net, grads=True)
    lone = Leaky(0.5, reset_mechanism="none", graded=0.5)
    cur = lib.linspace(0, 2, 6, dtype=dt)
    s, m = lone(cur)
    s2, m2 = lone(cur, m)
    rec("lone", lib.stack([s, m, s2, m2]))
    # snnTorch's own forward gives float32 spikes for any input: the gradient is the input's dtype
    v = lib.linspace(-1, 1, 5, dtype=dt, requires_grad=True)
    sp = (v > 0).float()
    y = (ATan.apply(v) * sp + sp * v).sum()
    y.backward()
    rec("f32_spikes", str((sp.dtype, y.dtype)))
    rec("f32_grad", v.grad)
