"""Session 30 (helper ebm): energy-based and score-based models written the way their public
training scripts write them, run under torch and minitorch with the same seeds and compared record
by record: Langevin dynamics (autograd.grad of the energy w.r.t. the samples in a loop, with and
without create_graph, unrolled through the sampler, Generator noise, clamp, tensor hooks,
retain_grad, autograd.backward(inputs=)), contrastive divergence with a replay buffer
(index_select, where, cat, randint), JEM, RBMs with CD-k Gibbs chains, Gibbs-with-Gradients,
HMC, SVGD and kernelised Stein discrepancies, NCE, denoising, sliced (Gaussian and Rademacher
probes) and exact score matching (Hutchinson traces, autograd.functional jacobian/hessian/hvp/
vhp/jvp/vjp with their options, torch.func grad/jacrev/jacfwd/hessian/vmap/functional_call),
scores of torch.distributions targets, WGAN-GP, R1/R2 and lazy penalties through linear, conv
(frozen or not, depthwise, reflect/circular padding), normalisation, pooling, resampling,
grid_sample, attention and checkpointed critics, spectral norm in both forms (power iterations
during Langevin, eval, removal) and weight norm inside double backward, modern and classic
Hopfield energies, noise-conditional and VE-SDE score networks (sigma embeddings, Fourier
features, annealed Langevin, predictor-corrector), a conv U-Net score network, second
derivatives of the activations energies use, the grad_fn names of double-backward graphs and the
errors of common autograd mistakes. float64 must agree to 1e-10 of each record's scale, float32 to
1e-4; texts exactly.

Known and left (documented):
- float32 sums differ in the last bits (summation order), float32 transcendentals by an ulp.
- Double-backward graphs are named as torch's only at the ops that are one node in both libraries
  (conv, grid_sample, pooling, padding, piecewise-linear activations): the composed backward
  formulas of LayerNorm, softplus, ELU, norm, pow, mm (torch's TBackward0) record other inner
  nodes here, so the programs record those chains only as deep as they agree.
- torch's CPU scaled_dot_product_attention (and MultiheadAttention with need_weights=False) has
  no double backward ("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward
  is not implemented"); minitorch's composed attention has one. The programs penalise
  gradients through the explicit softmax form.
"""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "langevin_mlp", "langevin_unrolled", "cd_replay", "conv_ebm_frozen", "dsm", "ssm",
    "hutchinson", "exact_sm", "wgan_gp", "r1_linear", "r1_conv", "spectral_ebm", "hopfield",
    "ncsn", "errors", "rbm", "jem", "grad_fn_names", "func_scores", "grid_penalty", "score_sde",
    "hmc", "stein", "nce", "checkpointed_energy", "hooks_sampler", "norm_critics", "pool_critics",
    "activations_dd", "func_gp", "masked_energy", "conv_score_net", "sn_langevin", "functional_api",
    "gibbs_with_gradients", "distribution_scores", "hopfield_attention", "rrelu_penalty",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _fn(t):
    """The name of t's grad_fn ("None" without one)."""
    return "None" if t.grad_fn is None else type(t.grad_fn).__name__


def _chain(t, depth=4):
    """The names along the first edges of t's graph."""
    names, fn = [], t.grad_fn
    while fn is not None and len(names) < depth:
        names.append(type(fn).__name__)
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if nxt else None
    return "/".join(names)


def _mlp(lib, dt, sizes, act="SiLU", seed=0):
    lib.manual_seed(seed)
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(lib.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(getattr(lib.nn, act)())
    return lib.nn.Sequential(*layers).to(dt)


def _two_moons(lib, dt, n, g):
    t = lib.rand(n, generator=g, dtype=dt) * math.pi
    upper = lib.rand(n, generator=g, dtype=dt) < 0.5
    x = lib.where(upper, lib.cos(t), 1 - lib.cos(t))
    y = lib.where(upper, lib.sin(t), 0.5 - lib.sin(t))
    return lib.stack([x, y], 1) + 0.05 * lib.randn(n, 2, generator=g, dtype=dt)


def _langevin(lib, energy, x, steps, step_size, noise, g, create_graph=False):
    for _ in range(steps):
        if not create_graph:
            x = x.detach().requires_grad_(True)
        e = energy(x).sum()
        (gx,) = lib.autograd.grad(e, x, create_graph=create_graph)
        x = x - 0.5 * step_size * gx + noise * lib.randn(x.shape, generator=g, dtype=x.dtype)
        x = x.clamp(-3.0, 3.0)
    return x


# --- the programs: each takes the library, a dtype and a recorder ---


def p_langevin_mlp(lib, dt, rec):
    g = lib.Generator().manual_seed(1)
    net = _mlp(lib, dt, [2, 32, 32, 1], "SiLU")
    energy = lambda x: net(x).squeeze(-1)  # noqa: E731
    x0 = lib.rand(64, 2, generator=g, dtype=dt) * 4 - 2
    xs = _langevin(lib, energy, x0, 20, 0.05, 0.01, g)
    rec("x", xs)
    rec("rg", xs.requires_grad)
    rec("fn", _fn(xs))
    rec("e", energy(xs).mean())
    # a sampler written with requires_grad_ on a clone and .grad, as many scripts do
    x = x0.clone()
    for p in net.parameters():
        p.requires_grad_(False)
    for i in range(10):
        x.requires_grad_(True)
        e = energy(x)
        e.sum().backward()
        with lib.no_grad():
            x.add_(x.grad, alpha=-0.02)
            x.add_(0.005 * lib.randn(x.shape, generator=g, dtype=dt))
            x.clamp_(-2.5, 2.5)
        rec(f"gn{i}", x.grad.norm())
        x.grad = None
        x = x.detach()
    for p in net.parameters():
        p.requires_grad_(True)
    rec("x2", x)
    rec("params_grad_none", str([p.grad is None for p in net.parameters()]))


def p_langevin_unrolled(lib, dt, rec):
    # differentiating through a short sampler: the model's parameters get second-order terms
    g = lib.Generator().manual_seed(2)
    net = _mlp(lib, dt, [2, 16, 16, 1], "Softplus")
    energy = lambda x: net(x).squeeze(-1)  # noqa: E731
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    data = _two_moons(lib, dt, 64, g)
    for it in range(4):
        x = lib.randn(64, 2, generator=g, dtype=dt).requires_grad_(True)
        xs = _langevin(lib, energy, x, 5, 0.1, 0.01, g, create_graph=True)
        rec(f"fn{it}", _chain(xs, 3))
        loss = energy(data).mean() - energy(xs).mean() + 0.1 * (xs - data).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{it}", loss)
        rec(f"xg{it}", x.grad)
        opt.step()
    rec.params("net", net, grads=True)


def p_cd_replay(lib, dt, rec):
    g = lib.Generator().manual_seed(3)
    net = _mlp(lib, dt, [2, 32, 1], "LeakyReLU")
    opt = lib.optim.Adam(net.parameters(), lr=1e-3, betas=(0.0, 0.999))
    buffer = lib.rand(200, 2, generator=g, dtype=dt) * 4 - 2
    data = _two_moons(lib, dt, 256, g)
    for it in range(5):
        idx = lib.randint(0, 200, (32,), generator=g)
        fresh = lib.rand(32, 2, generator=g, dtype=dt) * 4 - 2
        reinit = (lib.rand(32, generator=g, dtype=dt) < 0.05).unsqueeze(1)
        x = lib.where(reinit, fresh, lib.index_select(buffer, 0, idx))
        for p in net.parameters():
            p.requires_grad = False
        net.eval()
        for _ in range(8):
            x = x.detach().requires_grad_()
            (gx,) = lib.autograd.grad(net(x).sum(), [x])
            x = x - 0.1 * gx.clamp(-0.03, 0.03) + 0.005 * lib.randn(*x.shape, generator=g, dtype=dt)
        for p in net.parameters():
            p.requires_grad = True
        net.train()
        x = x.detach()
        buffer = lib.cat([x, buffer])[:200]
        pos = data[lib.randint(0, 256, (32,), generator=g)]
        e = net(lib.cat([pos, x]))
        e_pos, e_neg = e.chunk(2, dim=0)
        reg = 0.1 * (e_pos**2 + e_neg**2).mean()
        cdiv = e_pos.mean() - e_neg.mean()
        loss = cdiv + reg
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.1)
        opt.step()
        rec(f"cdiv{it}", cdiv)
        rec(f"reg{it}", reg)
    rec("buffer", buffer[:40])
    rec.params("net", net, grads=True)


class _ConvEnergy:
    """An IGEBM-style conv energy: conv/activation stacks, a global average, a linear head."""

    @staticmethod
    def build(lib, dt, seed=4):
        lib.manual_seed(seed)
        nn = lib.nn
        return nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.SiLU(),
            nn.Conv2d(8, 8, 3, stride=2, padding=1),
            nn.SiLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Linear(8, 1),
        ).to(dt)


def p_conv_ebm_frozen(lib, dt, rec):
    g = lib.Generator().manual_seed(5)
    net = _ConvEnergy.build(lib, dt)
    net.requires_grad_(False)
    x = lib.rand(4, 1, 8, 8, generator=g, dtype=dt).requires_grad_(True)
    e = net(x).sum()
    (gx,) = lib.autograd.grad(e, x, create_graph=True)
    rec("gx", gx)
    rec("gx.rg", gx.requires_grad)
    rec("gx.fn", _fn(gx))
    pen = gx.pow(2).flatten(1).sum(1).mean()
    pen.backward()
    rec("pen", pen)
    rec("x.grad", x.grad)
    # a single linear conv: the input gradient does not depend on the input, torch still records
    # its double-backward node; the second backward leaves the input's .grad None
    conv = lib.nn.Conv2d(1, 2, 3, bias=False).to(dt).requires_grad_(False)
    z = lib.rand(2, 1, 5, 5, generator=g, dtype=dt).requires_grad_(True)
    (gz,) = lib.autograd.grad(conv(z).sum(), z, create_graph=True)
    rec("gz", gz)
    rec("gz.rg", gz.requires_grad)
    rec("gz.fn", _fn(gz))
    gz.pow(2).sum().backward()
    rec("z.grad", str(z.grad))
    # the same through conv_transpose2d and conv1d
    up = lib.nn.ConvTranspose2d(1, 1, 2, stride=2, bias=False).to(dt).requires_grad_(False)
    (gu,) = lib.autograd.grad(up(z).sum(), z, create_graph=True)
    rec("gu", gu)
    rec("gu.rg", gu.requires_grad)
    c1 = lib.nn.Conv1d(2, 3, 3, padding=1).to(dt).requires_grad_(False)
    s = lib.randn(2, 2, 7, generator=g, dtype=dt).requires_grad_(True)
    (gs,) = lib.autograd.grad(c1(s).tanh().sum(), s, create_graph=True)
    rec("gs", gs)
    rec("gs.fn", _fn(gs))
    (hs,) = lib.autograd.grad(gs.sum(), s)
    rec("hs", hs)
    # Langevin with the frozen conv energy, then training with the parameters unfrozen
    for _ in range(6):
        x = x.detach().requires_grad_(True)
        (gx,) = lib.autograd.grad(net(x).sum(), x)
        x = (x - 0.5 * gx + 0.01 * lib.randn(x.shape, generator=g, dtype=dt)).clamp(0, 1)
    rec("samples", x)
    net.requires_grad_(True)
    real = lib.rand(4, 1, 8, 8, generator=g, dtype=dt)
    loss = net(real).mean() - net(x.detach()).mean()
    loss.backward()
    rec.params("net", net, grads=True)


def p_dsm(lib, dt, rec):
    g = lib.Generator().manual_seed(6)
    score = _mlp(lib, dt, [2, 64, 64, 2], "ELU", seed=6)
    opt = lib.optim.SGD(score.parameters(), lr=0.05, momentum=0.9)
    data = _two_moons(lib, dt, 128, g)
    sigma = 0.1
    for it in range(6):
        noise = lib.randn_like(data) * sigma
        noisy = data + noise
        target = -noise / sigma**2
        s = score(noisy)
        loss = 0.5 * ((s - target) ** 2).sum(dim=-1).mean() * sigma**2
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec.params("score", score)
    # ... with the noise from randn_like drawn under a fork of the global generator
    with lib.random.fork_rng():
        lib.manual_seed(60)
        rec("fork", lib.randn_like(data[:3]))
    rec("after_fork", lib.rand(2, dtype=dt))


def _ssm_loss(lib, score, x, v, variance_reduced):
    x = x.requires_grad_(True)
    s = score(x)
    vs = (v * s).sum()
    (gv,) = lib.autograd.grad(vs, x, create_graph=True)
    term1 = (gv * v).sum(-1)
    if variance_reduced:
        term2 = 0.5 * (s**2).sum(-1)
    else:
        term2 = 0.5 * (v * s).sum(-1) ** 2
    return (term1 + term2).mean()


def p_ssm(lib, dt, rec):
    g = lib.Generator().manual_seed(7)
    score = _mlp(lib, dt, [3, 32, 3], "Tanh", seed=7)
    opt = lib.optim.Adam(score.parameters(), lr=1e-3)
    data = lib.randn(64, 3, generator=g, dtype=dt) @ lib.tensor(
        [[1.0, 0.3, 0.0], [0.0, 0.7, 0.2], [0.1, 0.0, 0.5]], dtype=dt
    )
    for it in range(4):
        x = data.clone()
        v = lib.randn(x.shape, generator=g, dtype=dt)
        v = v / v.norm(dim=-1, keepdim=True) * math.sqrt(3)
        loss = _ssm_loss(lib, score, x, v, variance_reduced=it % 2 == 1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"xg{it}", x.grad)
    # Rademacher probes, several per point (n_particles), as in the SSM reference code
    x = data[:16].unsqueeze(0).expand(4, -1, -1).reshape(-1, 3).detach()
    v = lib.randint(0, 2, x.shape, generator=g).to(dt) * 2 - 1
    loss = _ssm_loss(lib, score, x, v, variance_reduced=True)
    loss.backward()
    rec("rad_loss", loss)
    rec.params("score", score, grads=True)


def p_hutchinson(lib, dt, rec):
    # divergence of a vector field: Hutchinson vs the exact trace of the Jacobian
    g = lib.Generator().manual_seed(8)
    f = _mlp(lib, dt, [4, 16, 4], "Tanh", seed=8)
    x = lib.randn(8, 4, generator=g, dtype=dt).requires_grad_(True)
    y = f(x)
    exact = lib.zeros(8, dtype=dt)
    for i in range(4):
        exact = exact + lib.autograd.grad(y[:, i].sum(), x, create_graph=True)[0][:, i]
    rec("exact", exact)
    rec("exact.fn", _chain(exact, 2))
    est = 0
    for _ in range(20):
        e = lib.randint(low=0, high=2, size=x.shape, generator=g, dtype=dt) * 2 - 1
        (ej,) = lib.autograd.grad(y, x, grad_outputs=e, create_graph=True, retain_graph=True)
        est = est + (ej * e).sum(1)
    est = est / 20
    rec("hutch", est)
    (exact.sum() + est.sum()).backward()
    rec.params("f", f, grads=True)
    rec("x.grad", x.grad)
    # the exact Jacobian per sample: autograd.functional.jacobian and func.jacrev with vmap
    xs = x.detach()
    J = lib.autograd.functional.jacobian(lambda z: f(z).sum(0), xs)
    rec("J.shape", str(tuple(J.shape)))
    tr = lib.diagonal(J, dim1=0, dim2=2).sum(-1)
    rec("tr_functional", tr)
    jr = lib.func.vmap(lib.func.jacrev(lambda z: f(z)))(xs)
    rec("tr_jacrev", lib.vmap(lib.trace)(jr))
    Jc = lib.autograd.functional.jacobian(lambda z: f(z).sum(0), xs, create_graph=True)
    rec("Jc.rg", Jc.requires_grad)
    # vectorize=True runs the probes batched
    Jv = lib.autograd.functional.jacobian(lambda z: f(z).sum(0), xs, vectorize=True)
    rec("Jv", Jv)


def p_exact_sm(lib, dt, rec):
    # Hyvarinen score matching with the exact trace: the energy's Hessian diagonal
    g = lib.Generator().manual_seed(9)
    net = _mlp(lib, dt, [2, 24, 24, 1], "Softplus", seed=9)
    opt = lib.optim.RMSprop(net.parameters(), lr=1e-3)
    data = _two_moons(lib, dt, 48, g)
    for it in range(3):
        x = data.clone().requires_grad_(True)
        logp = -net(x).sum()
        (score,) = lib.autograd.grad(logp, x, create_graph=True)
        trace = 0
        for i in range(x.shape[1]):
            (h,) = lib.autograd.grad(score[:, i].sum(), x, create_graph=True)
            trace = trace + h[:, i]
        loss = (trace + 0.5 * score.pow(2).sum(1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"tr{it}", trace[:6])
        rec(f"fn{it}", _chain(trace, 3))
    rec.params("net", net, grads=True)
    # Hessian of the energy at one point: functional.hessian and func.hessian agree
    p = data[0]
    H = lib.autograd.functional.hessian(lambda z: net(z).squeeze(), p)
    rec("H", H)
    rec("Hf", lib.func.hessian(lambda z: net(z).squeeze())(p))
    _, hv = lib.autograd.functional.hvp(lambda z: net(z).squeeze(), p, lib.ones(2, dtype=dt))
    rec("hvp", hv)
    _, vh = lib.autograd.functional.vhp(lambda z: net(z).squeeze(), p, lib.ones(2, dtype=dt))
    rec("vhp", vh)


def _critic_lin(lib, dt, seed=10):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(6, 32), nn.LayerNorm(32), nn.LeakyReLU(0.2), nn.Linear(32, 1)
    ).to(dt)


def p_wgan_gp(lib, dt, rec):
    g = lib.Generator().manual_seed(10)
    critic = _critic_lin(lib, dt)
    opt = lib.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
    for it in range(3):
        real = lib.randn(16, 6, generator=g, dtype=dt) + 1
        fake = lib.randn(16, 6, generator=g, dtype=dt)
        alpha = lib.rand(16, 1, generator=g, dtype=dt).expand_as(real)
        interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        d = critic(interp)
        (grads,) = lib.autograd.grad(
            outputs=d,
            inputs=interp,
            grad_outputs=lib.ones(d.size(), dtype=dt),
            create_graph=True,
            retain_graph=True,
            only_inputs=True,
        )
        grads = grads.view(grads.size(0), -1)
        gp = ((grads.norm(2, dim=1) - 1) ** 2).mean() * 10
        w = critic(real).mean() - critic(fake).mean()
        loss = -w + gp
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"gp{it}", gp)
        rec(f"w{it}", w)
        rec(f"fn{it}", _chain(grads, 2))  # LayerNorm's double backward is composed here
    rec.params("critic", critic, grads=True)
    # conv critic: the penalty's parameter gradients
    lib.manual_seed(11)
    nn = lib.nn
    cc = nn.Sequential(
        nn.Conv2d(3, 4, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(4, 1, 4, 1, 0), nn.Flatten()
    ).to(dt)
    real = lib.rand(3, 3, 8, 8, generator=g, dtype=dt)
    fake = lib.rand(3, 3, 8, 8, generator=g, dtype=dt)
    eps = lib.rand(3, 1, 1, 1, generator=g, dtype=dt)
    mix = lib.lerp(real, fake, eps).requires_grad_()
    out = cc(mix)
    (gm,) = lib.autograd.grad(out.sum(), mix, create_graph=True)
    gp = (gm.flatten(1).norm(dim=1) - 1).square().mean()
    rec("cgm.fn", _chain(gm, 4))
    gp.backward()
    rec("cgp", gp)
    rec.params("cc", cc, grads=True)


def p_r1_linear(lib, dt, rec):
    g = lib.Generator().manual_seed(12)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)
    D = nn.Sequential(nn.Linear(5, 16), nn.Softplus(), nn.Linear(16, 1)).to(dt)
    real = lib.randn(10, 5, generator=g, dtype=dt).requires_grad_()
    logits = D(real)
    d_loss = F.softplus(-logits).mean()
    (gr,) = lib.autograd.grad(logits.sum(), real, create_graph=True)
    r1 = gr.pow(2).reshape(gr.shape[0], -1).sum(1).mean()
    (d_loss + 5.0 * r1).backward()
    rec("r1", r1)
    rec.params("D", D, grads=True)
    rec("real.grad", real.grad)
    # a purely linear discriminator with frozen weights: the input gradient is constant
    lin = nn.Linear(5, 1).to(dt).requires_grad_(False)
    x = lib.randn(4, 5, generator=g, dtype=dt, requires_grad=True)
    (gl,) = lib.autograd.grad(lin(x).sum(), x, create_graph=True)
    rec("gl", gl)
    rec("gl.rg", gl.requires_grad)
    rec.err("gl.backward", lambda: gl.sum().backward())
    # R2 on fakes from a generator: the generator gets no gradient from the penalty path
    G = nn.Linear(3, 5).to(dt)
    z = lib.randn(6, 3, generator=g, dtype=dt)
    fake = G(z).detach().requires_grad_(True)
    (gf,) = lib.autograd.grad(D(fake).sum(), fake, create_graph=True)
    r2 = gf.square().sum(1).mean()
    D.zero_grad()
    r2.backward()
    rec("r2", r2)
    rec.params("D2", D, grads=True)
    rec("G.grad", str(G.weight.grad))
    # the lazy regularisation of StyleGAN2: every 2nd step, scaled by the interval
    rec.err("int_beta", lambda: lib.optim.Adam(D.parameters(), betas=(0, 0.99 ** (2 / 3))))
    opt = lib.optim.Adam(D.parameters(), lr=2e-3 * 2 / 3, betas=(0.0, 0.99 ** (2 / 3)))
    for step in range(4):
        real = lib.randn(8, 5, generator=g, dtype=dt)
        if step % 2 == 0:
            real.requires_grad = True
        out = D(real)
        loss = F.softplus(-out).mean()
        if step % 2 == 0:
            (gr,) = lib.autograd.grad(out.sum(), real, create_graph=True)
            loss = loss + 10 / 2 * gr.pow(2).sum(1).mean() * 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"lazy{step}", loss)
    rec.params("D3", D)


def p_r1_conv(lib, dt, rec):
    g = lib.Generator().manual_seed(13)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(13)
    D = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1),
        nn.LeakyReLU(0.2),
        nn.AvgPool2d(2),
        nn.Conv2d(6, 6, 3, padding=1, groups=2),
        nn.LeakyReLU(0.2),
        nn.Flatten(),
        nn.Linear(6 * 4 * 4, 1),
    ).to(dt)
    real = lib.rand(2, 3, 8, 8, generator=g, dtype=dt) * 2 - 1
    real.requires_grad_()
    out = D(real)
    (gr,) = lib.autograd.grad(out.sum(), real, create_graph=True)
    rec("gr.fn", _fn(gr))
    pen = gr.pow(2).sum([1, 2, 3]).mean()
    (F.softplus(-out).mean() + pen).backward()
    rec("pen", pen)
    rec.params("D", D, grads=True)
    rec("real.grad", real.grad)
    # the discriminator frozen (requires_grad_(False)) while the penalty is formed: R1 for a
    # generator-side regulariser; the second backward reaches the input only
    D.requires_grad_(False)
    x = lib.rand(2, 3, 8, 8, generator=g, dtype=dt, requires_grad=True)
    (gx,) = lib.autograd.grad(D(x).sum(), x, create_graph=True)
    rec("gx.rg", gx.requires_grad)
    gx.square().sum().backward()
    rec("x.grad", x.grad)
    # depthwise conv (groups = channels) and a 1x1 conv on their own
    dw = nn.Conv2d(3, 3, 3, groups=3, bias=False).to(dt).requires_grad_(False)
    y = lib.rand(1, 3, 5, 5, generator=g, dtype=dt, requires_grad=True)
    (gy,) = lib.autograd.grad(dw(y).pow(2).sum(), y, create_graph=True)
    rec("gy", gy)
    rec("gy.fn", _fn(gy))
    (hy,) = lib.autograd.grad(gy.sum(), y)
    rec("hy", hy)
    one = nn.Conv2d(3, 2, 1).to(dt)
    (g1,) = lib.autograd.grad(one(y).sum(), y, create_graph=True)
    rec("g1.rg", g1.requires_grad)
    rec("g1.fn", _fn(g1))
    (w1,) = lib.autograd.grad(g1.sum(), one.weight, allow_unused=True)
    rec("w1", w1)


def p_spectral_ebm(lib, dt, rec):
    g = lib.Generator().manual_seed(14)
    nn = lib.nn
    lib.manual_seed(14)
    old = nn.Sequential(
        nn.utils.spectral_norm(nn.Linear(4, 16).to(dt)),
        nn.Softplus(),
        nn.utils.spectral_norm(nn.Linear(16, 1).to(dt)),
    )
    lib.manual_seed(14)
    lin1, lin2 = nn.Linear(4, 16).to(dt), nn.Linear(16, 1).to(dt)
    new = nn.Sequential(
        nn.utils.parametrizations.spectral_norm(lin1),
        nn.Softplus(),
        nn.utils.parametrizations.spectral_norm(lin2),
    )
    for name, net in (("old", old), ("new", new)):
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        for it in range(3):
            x = lib.randn(8, 4, generator=g, dtype=dt, requires_grad=True)
            e = net(x)
            (gx,) = lib.autograd.grad(e.sum(), x, create_graph=True)
            loss = e.mean() + gx.pow(2).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"{name}.loss{it}", loss)
        net.eval()
        x = lib.randn(3, 4, generator=g, dtype=dt)
        rec(f"{name}.eval", net(x))
        rec(f"{name}.keys", str(sorted(net.state_dict().keys())))
    rec("old.w", old[0].weight)
    rec("new.w", new[0].weight)
    rec("old.u", old[0].weight_u)
    rec("new.u", new[0].parametrizations.weight[0]._u)
    rec("old.sigma", lib.linalg.matrix_norm(old[0].weight, ord=2))
    # a conv layer under spectral norm inside a gradient penalty
    lib.manual_seed(15)
    conv = nn.utils.parametrizations.spectral_norm(nn.Conv2d(2, 3, 3).to(dt))
    x = lib.rand(2, 2, 5, 5, generator=g, dtype=dt, requires_grad=True)
    (gx,) = lib.autograd.grad(conv(x).tanh().sum(), x, create_graph=True)
    gx.pow(2).sum().backward()
    rec("conv.orig.grad", conv.parametrizations.weight.original.grad)
    rec("conv.x.grad", x.grad)


def p_hopfield(lib, dt, rec):
    # modern Hopfield network: E(xi) = -lse(beta X^T xi)/beta + xi^T xi / 2 + const
    g = lib.Generator().manual_seed(16)
    X = lib.randn(6, 10, generator=g, dtype=dt)  # stored patterns as columns
    beta = 2.0

    def energy(xi):
        return -lib.logsumexp(beta * xi @ X, dim=-1) / beta + 0.5 * (xi * xi).sum(-1)

    xi = (X[:, 3] + 0.3 * lib.randn(6, generator=g, dtype=dt)).unsqueeze(0)
    for it in range(3):
        xi = xi.detach().requires_grad_(True)
        (gr,) = lib.autograd.grad(energy(xi).sum(), xi)
        update = lib.softmax(beta * xi @ X, dim=-1) @ X.T
        rec(f"e{it}", energy(xi))
        rec(f"agree{it}", lib.allclose(xi - gr, update))
        xi = update
    rec("retrieved", xi.detach())
    rec("which", (xi @ X).argmax(-1))
    # the Hessian via double backward and functional.hessian
    p = xi.detach().squeeze(0)
    H = lib.autograd.functional.hessian(lambda z: energy(z.unsqueeze(0)).squeeze(), p)
    rec("H", H)
    rec("H.eig", lib.linalg.eigvalsh(H))
    # classic binary Hopfield: E = -s^T W s / 2 with Hebbian weights, async updates
    pats = lib.randint(0, 2, (3, 16), generator=g).to(dt) * 2 - 1
    W = pats.T @ pats / 16
    W.fill_diagonal_(0)
    s = pats[1].clone()
    flip = lib.randperm(16, generator=g)[:3]
    s[flip] *= -1
    for i in lib.randperm(16, generator=g).tolist() * 2:
        s[i] = lib.sign(W[i] @ s) if (W[i] @ s) != 0 else s[i]
    rec("s", s)
    rec("E", -0.5 * s @ W @ s)
    rec("ok", lib.equal(s, pats[1]))


class _NCSN:
    """A small noise-conditional score network: an MLP with a sigma embedding added (and a
    learned scale by Embedding), output divided by sigma (NCSNv2's trick)."""

    @staticmethod
    def build(lib, dt, n_sigmas, seed=17):
        lib.manual_seed(seed)
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.inp = nn.Linear(2, 32)
                self.emb = nn.Embedding(n_sigmas, 32)
                self.fourier = nn.Linear(16, 32, bias=False)
                self.out = nn.Sequential(nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 2))
                self.register_buffer("freqs", lib.arange(8, dtype=lib.float32) + 1)

            def forward(self, x, idx, sigma):
                t = lib.log(sigma).unsqueeze(-1) * self.freqs.to(x.dtype)
                ff = lib.cat([t.sin(), t.cos()], dim=-1)
                h = self.inp(x) + self.emb(idx) + self.fourier(ff)
                return self.out(h) / sigma.unsqueeze(-1)

        return Net().to(dt)


def p_ncsn(lib, dt, rec):
    g = lib.Generator().manual_seed(18)
    L = 5
    sigmas = lib.exp(lib.linspace(math.log(1.0), math.log(0.05), L, dtype=dt))
    rec("sigmas", sigmas)
    net = _NCSN.build(lib, dt, L)
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    data = _two_moons(lib, dt, 64, g)
    for it in range(4):
        idx = lib.randint(0, L, (data.shape[0],), generator=g)
        used = sigmas[idx]
        z = lib.randn(data.shape, generator=g, dtype=dt)
        noisy = data + used.view(-1, 1) * z
        target = -z / used.view(-1, 1)
        s = net(noisy, idx, used)
        loss = (0.5 * ((s - target) ** 2).sum(-1) * used**2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # annealed Langevin dynamics
    x = lib.rand(16, 2, generator=g, dtype=dt) * 4 - 2
    eps = 2e-3
    with lib.no_grad():
        for i in range(L):
            sig = sigmas[i]
            step = eps * (sig / sigmas[-1]) ** 2
            labels = lib.full((16,), i, dtype=lib.long)
            for _ in range(3):
                grad = net(x, labels, sig.expand(16))
                noise = lib.randn(x.shape, generator=g, dtype=dt)
                x = x + step * grad + lib.sqrt(step * 2) * noise
            rec(f"x{i}", x.norm(dim=1))
        # the final denoising step of NCSNv2
        x = x + sigmas[-1] ** 2 * net(x, labels, sigmas[-1].expand(16))
    rec("final", x)
    rec.params("net", net)
    rec("freqs.dtype", str(net.freqs.dtype))


def p_errors(lib, dt, rec):
    lib.manual_seed(30)
    x = lib.randn(3, 2, dtype=dt, requires_grad=True)
    y = (x * x).tanh()
    rec.err("nonscalar", lambda: lib.autograd.grad(y, x))
    rec.err("no_grad_input", lambda: lib.autograd.grad(y.sum(), lib.ones(2, dtype=dt)))
    z = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err("unused", lambda: lib.autograd.grad(y.sum(), [x, z], retain_graph=True))
    got = lib.autograd.grad(y.sum(), [x, z], allow_unused=True, retain_graph=True)
    rec("unused_none", str(got[1]))
    got = lib.autograd.grad(y.sum(), [x, z], allow_unused=True, materialize_grads=True)
    rec("materialized", got[1])
    rec.err("second", lambda: lib.autograd.grad(y.sum(), x))
    # double backward without create_graph
    y = x.pow(3).sum()
    (gx,) = lib.autograd.grad(y, x)
    rec("gx.rg", gx.requires_grad)
    rec.err("double", lambda: lib.autograd.grad(gx.sum(), x))
    # shape mismatch of grad_outputs
    y = x.exp()
    rec.err(
        "go_shape",
        lambda: lib.autograd.grad(y, x, grad_outputs=lib.ones(2, dtype=dt), retain_graph=True),
    )
    # is_grads_batched: per-row vector-Jacobian products in one call
    eye = lib.eye(6, dtype=dt).view(6, 3, 2)
    (J,) = lib.autograd.grad(y, x, grad_outputs=eye, is_grads_batched=True, retain_graph=True)
    rec("batched", J)
    rec.err(
        "go_dtype", lambda: lib.autograd.grad(y, x, grad_outputs=lib.ones(3, 2, dtype=lib.int64))
    )
    # backward on a tensor from a frozen net
    lin = lib.nn.Linear(2, 1).to(dt).requires_grad_(False)
    out = lin(lib.randn(4, 2, dtype=dt))
    rec.err("frozen", lambda: out.sum().backward())
    # grad w.r.t. a leaf that was modified in place after use
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = a * 2
    c = b.sigmoid()
    b.add_(1)
    rec.err("inplace", lambda: c.sum().backward())
    # clamp's gradient at the bounds and the noise of clamp-ed samples
    s = lib.tensor([-3.0, -1.0, 0.5, 3.0], dtype=dt, requires_grad=True)
    s.clamp(-1.0, 3.0).sum().backward()
    rec("clamp_grad", s.grad)
    s.grad = None
    lib.clamp(s, min=lib.tensor(-1.0, dtype=dt), max=lib.tensor(3.0, dtype=dt)).sum().backward()
    rec("clamp_t_grad", s.grad)


def p_rbm(lib, dt, rec):
    g = lib.Generator().manual_seed(19)
    nv, nh = 12, 6
    W = (0.1 * lib.randn(nv, nh, generator=g, dtype=dt)).requires_grad_()
    bv = lib.zeros(nv, dtype=dt, requires_grad=True)
    bh = lib.zeros(nh, dtype=dt, requires_grad=True)
    F = lib.nn.functional

    def free_energy(v):
        return -(v @ bv) - F.softplus(v @ W + bh).sum(-1)

    data = (lib.rand(32, nv, generator=g, dtype=dt) < 0.3).to(dt)
    opt = lib.optim.SGD([W, bv, bh], lr=0.1)
    for it in range(3):
        v = data
        for _ in range(2):  # CD-2 Gibbs chain
            ph = lib.sigmoid(v @ W + bh)
            h = lib.bernoulli(ph, generator=g)
            pv = lib.sigmoid(h @ W.t() + bv)
            v = lib.bernoulli(pv, generator=g)
        v = v.detach()
        loss = free_energy(data).mean() - free_energy(v).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"recon{it}", F.binary_cross_entropy(pv.detach(), data))
    rec("W", W)
    rec("bv", bv)
    rec("bh", bh)
    # the free energy's input gradient and Hessian (binary units relaxed)
    v = data[:2].clone().requires_grad_()
    (gv,) = lib.autograd.grad(free_energy(v).sum(), v, create_graph=True)
    (hv,) = lib.autograd.grad(gv.sum(), v)
    rec("gv", gv)
    rec("hv", hv)
    rec("gv.fn", _chain(gv, 2))
    # a multinomial visible layer sampled with the generator
    probs = lib.softmax(lib.randn(4, 5, generator=g, dtype=dt), -1)
    rec("multi", lib.multinomial(probs, 3, replacement=True, generator=g))


def p_jem(lib, dt, rec):
    g = lib.Generator().manual_seed(20)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)
    clf = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 3)).to(dt)
    opt = lib.optim.Adam(clf.parameters(), lr=1e-3)
    x_lab = lib.randn(24, 4, generator=g, dtype=dt)
    y_lab = lib.randint(0, 3, (24,), generator=g)
    buffer = lib.FloatTensor(100, 4).uniform_(-1, 1, generator=g).to(dt)
    rec("buf.dtype", str(buffer.dtype))
    for it in range(3):
        inds = lib.randint(0, 100, (16,), generator=g)
        buf = buffer[inds]
        rnd = lib.empty(16, 4, dtype=dt).uniform_(-1, 1, generator=g)
        choose = (lib.rand(16, generator=g) < 0.05).to(dt)[:, None]
        x_k = (choose * rnd + (1 - choose) * buf).requires_grad_(True)
        for _ in range(5):
            f_prime = lib.autograd.grad(clf(x_k).logsumexp(1).sum(), [x_k], retain_graph=True)[0]
            x_k.data += 1.0 * f_prime + 0.01 * lib.randn_like(x_k)
        samples = x_k.detach()
        buffer[inds] = samples
        logits = clf(x_lab)
        l_clf = F.cross_entropy(logits, y_lab)
        fp = logits.logsumexp(1).mean()
        fq = clf(samples).logsumexp(1).mean()
        loss = l_clf - (fp - fq)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
        rec(f"acc{it}", (logits.argmax(1) == y_lab).float().mean())
    rec("buffer", buffer[:10])
    rec.params("clf", clf, grads=True)


def p_grad_fn_names(lib, dt, rec):
    g = lib.Generator().manual_seed(21)
    x = lib.randn(4, 3, generator=g, dtype=dt, requires_grad=True)
    W = lib.randn(3, 3, generator=g, dtype=dt, requires_grad=True)
    cases = {
        "tanh": lambda x: lib.tanh(x @ W),
        "softplus": lambda x: lib.nn.functional.softplus(x @ W),
        "silu": lambda x: lib.nn.functional.silu(x),
        "elu": lambda x: lib.nn.functional.elu(x),
        "sigmoid": lambda x: x.sigmoid(),
        "lse": lambda x: lib.logsumexp(x, 1),
        "norm": lambda x: x.norm(dim=1),
        "pow": lambda x: x.pow(3),
        "exp": lambda x: x.exp(),
        "log_softmax": lambda x: lib.log_softmax(x, 1),
        "linear": lambda x: lib.nn.functional.linear(x, W),
        "mm": lambda x: x @ W,
        "leaky": lambda x: lib.nn.functional.leaky_relu(x @ W, 0.2),
        "gelu": lambda x: lib.nn.functional.gelu(x),
    }
    # how far the names agree (the rest: Known and left)
    depth = {"softplus": 1, "elu": 0, "norm": 1, "pow": 1, "mm": 1}
    for name, f in cases.items():
        (gx,) = lib.autograd.grad(f(x).sum(), x, create_graph=True)
        rec(name + ".rg", gx.requires_grad)
        rec(name + ".fn", _chain(gx, depth.get(name, 3)))
        rec(name + ".g", gx)
        if gx.requires_grad:
            (hx,) = lib.autograd.grad(gx.pow(2).sum(), x, allow_unused=True)
            rec(name + ".h", str(hx) if hx is None else hx)


def p_func_scores(lib, dt, rec):
    # torch.func style: score = grad of log-density, per-sample by vmap, the trace by jacrev
    g = lib.Generator().manual_seed(22)
    net = _mlp(lib, dt, [3, 16, 1], "Tanh", seed=22)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def energy(p, x):
        return lib.func.functional_call(net, p, (x,)).squeeze(-1)

    x = lib.randn(5, 3, generator=g, dtype=dt)
    score = lib.func.vmap(lib.func.grad(lambda xi: -energy(params, xi)))(x)
    rec("score", score)
    lap = lib.func.vmap(lib.func.hessian(lambda xi: -energy(params, xi)))(x)
    rec("lap", lap.diagonal(dim1=-2, dim2=-1).sum(-1))
    jac = lib.func.vmap(lib.func.jacrev(lib.func.grad(lambda xi: -energy(params, xi))))(x)
    rec("jac", jac)

    # grad of the score-matching loss w.r.t. the parameters
    def sm_loss(p):
        s = lib.func.vmap(lib.func.grad(lambda xi: -energy(p, xi)))(x)
        h = lib.func.vmap(lib.func.jacrev(lib.func.grad(lambda xi: -energy(p, xi))))(x)
        return (h.diagonal(dim1=-2, dim2=-1).sum(-1) + 0.5 * s.pow(2).sum(-1)).mean()

    gp = lib.func.grad(sm_loss)(params)
    for k in sorted(gp):
        rec("gp." + k, gp[k])
    v, fn = lib.func.vjp(
        lambda z: lib.func.vmap(lib.func.grad(lambda xi: -energy(params, xi)))(z), x
    )
    rec("vjp", fn(lib.ones_like(v))[0])
    # func.grad_and_value and a Rademacher Hutchinson probe built on jvp
    gv, val = lib.func.grad_and_value(lambda xi: -energy(params, xi).sum())(x)
    rec("gv", gv)
    rec("val", val)
    e = lib.randint(0, 2, x.shape, generator=g).to(dt) * 2 - 1
    _, jv = lib.func.jvp(
        lambda z: lib.func.vmap(lib.func.grad(lambda xi: -energy(params, xi)))(z), (x,), (e,)
    )
    rec("hutch", (jv * e).sum(-1))


def p_grid_penalty(lib, dt, rec):
    # a spatial-transformer critic: the gradient penalty reaches through grid_sample
    g = lib.Generator().manual_seed(23)
    F = lib.nn.functional
    img = lib.rand(2, 1, 6, 6, generator=g, dtype=dt, requires_grad=True)
    theta = lib.tensor([[0.9, 0.1, 0.05], [-0.1, 0.8, 0.0]], dtype=dt).expand(2, 2, 3)
    grid = F.affine_grid(theta, (2, 1, 5, 5), align_corners=False)
    out = F.grid_sample(img, grid, align_corners=False)
    (gi,) = lib.autograd.grad(out.pow(2).sum(), img, create_graph=True)
    rec("gi", gi)
    rec("gi.rg", gi.requires_grad)
    gi.sum().backward()
    rec("img.grad", img.grad)
    # linear in the image: the first gradient is constant; torch still records the node
    img2 = lib.rand(2, 1, 6, 6, generator=g, dtype=dt, requires_grad=True)
    out = F.grid_sample(img2, grid, align_corners=False, padding_mode="border")
    (g2,) = lib.autograd.grad(out.sum(), img2, create_graph=True)
    rec("g2", g2)
    rec("g2.rg", g2.requires_grad)
    rec("g2.fn", _fn(g2))
    g2.pow(2).sum().backward()
    rec("img2.grad", str(img2.grad))
    # theta learnable: grads reach theta through the grid in the double backward
    th = theta.clone().requires_grad_(True)
    grid = F.affine_grid(th, (2, 1, 5, 5), align_corners=True)
    out = F.grid_sample(img2.detach().requires_grad_(), grid, align_corners=True)
    (gg,) = lib.autograd.grad(out.sum(), grid, create_graph=True)
    gg.pow(2).sum().backward()
    rec("th.grad", th.grad)


def p_score_sde(lib, dt, rec):
    # a VE-SDE score model with Gaussian Fourier time features; predictor-corrector sampling
    g = lib.Generator().manual_seed(24)
    nn = lib.nn
    lib.manual_seed(24)

    class Fourier(nn.Module):
        def __init__(self, dim, scale=16.0):
            super().__init__()
            self.W = nn.Parameter(lib.randn(dim // 2) * scale, requires_grad=False)

        def forward(self, t):
            proj = t[:, None] * self.W[None, :] * 2 * math.pi
            return lib.cat([lib.sin(proj), lib.cos(proj)], dim=-1)

    class Score(nn.Module):
        def __init__(self, sigma_min=0.01, sigma_max=2.0):
            super().__init__()
            self.embed = nn.Sequential(Fourier(16), nn.Linear(16, 32))
            self.lin1 = nn.Linear(2, 32)
            self.lin2 = nn.Linear(32, 2)
            self.sigma_min, self.sigma_max = sigma_min, sigma_max

        def std(self, t):
            return self.sigma_min * (self.sigma_max / self.sigma_min) ** t

        def forward(self, x, t):
            h = nn.functional.silu(self.lin1(x) + self.embed(t))
            return self.lin2(h) / self.std(t)[:, None]

    model = Score().to(dt)
    rec("W.rg", model.embed[0].W.requires_grad)
    opt = lib.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
    data = _two_moons(lib, dt, 64, g)
    eps = 1e-5
    for it in range(4):
        t = lib.rand(64, generator=g, dtype=dt) * (1 - eps) + eps
        z = lib.randn(data.shape, generator=g, dtype=dt)
        std = model.std(t)
        s = model(data + z * std[:, None], t)
        loss = lib.mean(lib.sum((s * std[:, None] + z) ** 2, dim=1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # predictor (reverse diffusion) + corrector (Langevin with an snr step size)
    n, steps, snr = 16, 4, 0.16
    ts = lib.linspace(1.0, eps, steps, dtype=dt)
    x = lib.randn(n, 2, generator=g, dtype=dt) * model.sigma_max
    with lib.no_grad():
        for i in range(steps):
            t = ts[i].expand(n)
            grad = model(x, t)
            noise = lib.randn(x.shape, generator=g, dtype=dt)
            gn = lib.norm(grad.reshape(n, -1), dim=-1).mean()
            nn_ = math.sqrt(x[0].numel())
            step = 2 * (snr * nn_ / gn) ** 2
            x = x + step * grad + lib.sqrt(2 * step) * noise
            rec(f"step{i}", step)
            std = model.std(t)
            prev = model.std(ts[i + 1].expand(n)) if i + 1 < steps else lib.zeros_like(std)
            diff = (std**2 - prev**2)[:, None]
            x_mean = x + diff * model(x, t)
            x = x_mean + lib.sqrt(diff) * lib.randn(x.shape, generator=g, dtype=dt)
    rec("x_mean", x_mean)


def p_hmc(lib, dt, rec):
    # Hamiltonian Monte Carlo on an energy: leapfrog by autograd.grad, Metropolis acceptance
    g = lib.Generator().manual_seed(25)
    mu = lib.tensor([[1.0, -1.0], [-1.5, 0.5]], dtype=dt)

    def energy(x):
        d = ((x[:, None, :] - mu[None]) ** 2).sum(-1)
        return -lib.logsumexp(-0.5 * d / 0.3, dim=1)

    def grad_e(x):
        x = x.detach().requires_grad_(True)
        return lib.autograd.grad(energy(x).sum(), x)[0]

    x = lib.randn(32, 2, generator=g, dtype=dt)
    eps, L = 0.1, 8
    accepted = lib.zeros(32, dtype=dt)
    for it in range(5):
        p0 = lib.randn(x.shape, generator=g, dtype=dt)
        q, p = x.clone(), p0 - 0.5 * eps * grad_e(x)
        for i in range(L):
            q = q + eps * p
            if i != L - 1:
                p = p - eps * grad_e(q)
        p = p - 0.5 * eps * grad_e(q)
        h0 = energy(x) + 0.5 * (p0**2).sum(1)
        h1 = energy(q) + 0.5 * (p**2).sum(1)
        log_u = lib.log(lib.rand(32, generator=g, dtype=dt))
        acc = log_u < (h0 - h1)
        x = lib.where(acc[:, None], q, x)
        accepted += acc.to(dt)
        rec(f"h{it}", (h0 - h1).clamp(max=0).exp().mean())
    rec("x", x)
    rec("acc", accepted)
    rec("modes", lib.cdist(x, mu).argmin(1).bincount(minlength=2))


def p_stein(lib, dt, rec):
    # kernelised Stein discrepancy with an RBF kernel and the median heuristic; SVGD updates
    g = lib.Generator().manual_seed(26)

    def logp(x):
        return lib.distributions.MultivariateNormal(
            lib.zeros(2, dtype=dt), lib.tensor([[1.0, 0.5], [0.5, 2.0]], dtype=dt)
        ).log_prob(x)

    x = lib.randn(12, 2, generator=g, dtype=dt) * 2 + 1
    for it in range(5):
        x = x.detach().requires_grad_(True)
        (score,) = lib.autograd.grad(logp(x).sum(), x)
        xd = x.detach()
        d2 = lib.cdist(xd, xd) ** 2
        h = d2.median() / math.log(x.shape[0] + 1)
        xr = x.detach().requires_grad_(True)
        K = lib.exp(-(lib.cdist(xr, xd) ** 2) / h)
        (gk,) = lib.autograd.grad(K.sum(), xr)
        phi = (K.detach() @ score + gk) / x.shape[0]
        x = xd + 0.2 * phi
        rec(f"h{it}", h)
        rec(f"phi{it}", phi)
    rec("x", x)
    # the U-statistic KSD with its gradient w.r.t. the particles (double backward)
    y = x.detach().requires_grad_(True)
    (s,) = lib.autograd.grad(logp(y).sum(), y, create_graph=True)
    diff = y[:, None, :] - y[None, :, :]
    k = lib.exp(-(diff**2).sum(-1) / 2.0)
    gk_x = -diff * k[..., None]
    term = (s @ s.T) * k + (s[:, None, :] * -gk_x).sum(-1) + (gk_x * s[None]).sum(-1)
    term = term + k * (2 - (diff**2).sum(-1))
    n = y.shape[0]
    ksd = (term.sum() - term.diagonal().sum()) / (n * (n - 1))
    ksd.backward()
    rec("ksd", ksd)
    rec("y.grad", y.grad)


def p_nce(lib, dt, rec):
    # noise-contrastive estimation: an unnormalised model with a learned log-partition
    g = lib.Generator().manual_seed(27)
    D = lib.distributions
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(27)
    f = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1)).to(dt)
    log_z = nn.Parameter(lib.zeros((), dtype=dt))
    noise = D.MultivariateNormal(lib.zeros(2, dtype=dt), 2.0 * lib.eye(2, dtype=dt))
    opt = lib.optim.Adam([*f.parameters(), log_z], lr=5e-3)
    data = _two_moons(lib, dt, 128, g)
    for it in range(4):
        with lib.random.fork_rng():
            lib.manual_seed(100 + it)
            y = noise.sample((128,))
        xs = lib.cat([data, y])
        labels = lib.cat([lib.ones(128, dtype=dt), lib.zeros(128, dtype=dt)])
        logit = -f(xs).squeeze(-1) - log_z - noise.log_prob(xs)
        loss = F.binary_cross_entropy_with_logits(logit, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec("log_z", log_z)
    rec("log_z.grad", log_z.grad)
    rec.params("f", f)


def p_checkpointed_energy(lib, dt, rec):
    # an energy whose blocks run under non-reentrant checkpointing: the input gradient with
    # create_graph recomputes the blocks, and the gradient penalty backpropagates through them
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    g = lib.Generator().manual_seed(28)
    nn = lib.nn
    lib.manual_seed(28)
    blocks = nn.ModuleList([nn.Sequential(nn.Linear(4, 4), nn.Softplus()) for _ in range(3)]).to(dt)
    head = nn.Linear(4, 1).to(dt)

    def energy(x, use_ckpt):
        for b in blocks:
            x = x + (ckpt(b, x, use_reentrant=False) if use_ckpt else b(x))
        return head(x).squeeze(-1)

    x = lib.randn(5, 4, generator=g, dtype=dt)
    out = {}
    for use in (False, True):
        xi = x.clone().requires_grad_(True)
        e = energy(xi, use)
        (gx,) = lib.autograd.grad(e.sum(), xi, create_graph=True)
        pen = gx.pow(2).sum(1).mean()
        for p in [*blocks.parameters(), *head.parameters()]:
            p.grad = None
        (e.mean() + pen).backward()
        out[use] = (pen, xi.grad, blocks[0][0].weight.grad)
        rec(f"pen{use}", pen)
        rec(f"xg{use}", xi.grad)
        rec(f"wg{use}", blocks[0][0].weight.grad)
    rec("same", lib.allclose(out[False][1], out[True][1]))


def p_hooks_sampler(lib, dt, rec):
    # Langevin with the gradient clipped by a tensor hook, retain_grad on an intermediate,
    # autograd.backward with inputs=, and the energy's gradient norm logged per step
    g = lib.Generator().manual_seed(29)
    net = _mlp(lib, dt, [3, 16, 1], "GELU", seed=29)
    x = lib.randn(6, 3, generator=g, dtype=dt)
    seen = []
    for step in range(4):
        x = x.detach().requires_grad_(True)
        h = x.register_hook(lambda gr: gr.clamp(-0.05, 0.05))
        mid = net[0](x)
        mid.retain_grad()
        e = net[2](net[1](mid)).sum()
        lib.autograd.backward(e, inputs=[x, mid])
        seen.append(mid.grad.abs().sum())
        rec(f"xg{step}", x.grad)
        rec(f"pgrad{step}", str(net[0].weight.grad))
        h.remove()
        x = x.detach() - 0.5 * x.grad + 0.01 * lib.randn(x.shape, generator=g, dtype=dt)
    rec("seen", lib.stack(seen))
    rec("x", x)
    # a hook on a parameter under create_graph: the hooked gradient feeds the penalty
    w = net[0].weight
    hk = w.register_hook(lambda gr: gr * 2)
    y = x.clone().requires_grad_(True)
    e = net(y).sum()
    gw, gy = lib.autograd.grad(e, [w, y], create_graph=True)
    rec("gw", gw)
    (gw.pow(2).sum() + gy.pow(2).sum()).backward()
    hk.remove()
    rec("w.grad", w.grad)
    rec("y.grad", y.grad)


def _penalty(lib, net, x):
    x = x.detach().requires_grad_(True)
    out = net(x)
    (gx,) = lib.autograd.grad(out.sum(), x, create_graph=True)
    pen = (gx.flatten(1).norm(2, dim=1) - 1).pow(2).mean()
    return out, gx, pen, x


def p_norm_critics(lib, dt, rec):
    # gradient penalties through normalisation layers: their double backward
    g = lib.Generator().manual_seed(31)
    nn = lib.nn
    x = lib.randn(4, 3, 6, 6, generator=g, dtype=dt)
    makers = {
        "instance": lambda: nn.InstanceNorm2d(4, affine=True),
        "group": lambda: nn.GroupNorm(2, 4),
        "batch": lambda: nn.BatchNorm2d(4),
        "layer": lambda: nn.LayerNorm([4, 6, 6]),
        "rms": lambda: nn.RMSNorm([6, 6]),
    }
    for name, make in makers.items():
        lib.manual_seed(32)
        net = nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"),
            make(),
            nn.LeakyReLU(0.2),
            nn.Conv2d(4, 1, 6),
            nn.Flatten(),
        ).to(dt)
        for p in net.parameters():
            if p.dim() == 1 and name != "rms":
                with lib.no_grad():
                    p.add_(0.1 * lib.randn(p.shape, generator=g, dtype=dt))
        out, gx, pen, xi = _penalty(lib, net, x)
        pen.backward()
        rec(name + ".out", out)
        rec(name + ".gx", gx)
        rec(name + ".pen", pen)
        rec.params(name, net, grads=True)
        rec(name + ".x.grad", xi.grad)
        if name == "batch":
            rec("batch.running_mean", net[1].running_mean)
            rec("batch.nbt", net[1].num_batches_tracked)


def p_pool_critics(lib, dt, rec):
    # R1 through the pooling and resampling layers of image critics
    g = lib.Generator().manual_seed(33)
    nn, F = lib.nn, lib.nn.functional
    x = lib.randn(2, 2, 8, 8, generator=g, dtype=dt)
    lib.manual_seed(34)
    conv = nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular").to(dt)
    head = nn.Linear(3 * 4, 1).to(dt)
    bodies = {
        "max": lambda h: F.max_pool2d(h, 2),
        "avg": lambda h: F.avg_pool2d(h, 2, count_include_pad=False),
        "adaptive": lambda h: F.adaptive_avg_pool2d(h, 4),
        "adaptive_max": lambda h: F.adaptive_max_pool2d(h, 4),
        "bilinear": lambda h: F.interpolate(h, size=(4, 4), mode="bilinear", align_corners=False),
        "nearest": lambda h: F.interpolate(h, scale_factor=0.5, mode="nearest"),
        "lp": lambda h: F.lp_pool2d(h.abs() + 0.1, 2, 2),
        "unfold": lambda h: F.unfold(h, 2, stride=2).view(2, 3, 4, 16).mean(2),
        "pixel_unshuffle": lambda h: F.pixel_unshuffle(h, 2).view(2, 3, 4, 16).amax(2),
    }
    for name, body in bodies.items():

        def net(z, body=body):
            h = F.silu(conv(z))
            b = body(h)
            b = b[..., :2, :2] if b.dim() == 4 else b[..., :4]
            return head(b.reshape(2, -1))

        out, gx, pen, xi = _penalty(lib, net, x)
        conv.zero_grad()
        head.zero_grad()
        (out.mean() + pen).backward()
        rec(name + ".gx", gx)
        rec(name + ".pen", pen)
        rec(name + ".wg", conv.weight.grad)
        rec(name + ".xg", xi.grad)


def p_activations_dd(lib, dt, rec):
    # second derivatives of the activations energies use, and their grad_fn at the top
    g = lib.Generator().manual_seed(35)
    nn, F = lib.nn, lib.nn.functional
    x = lib.randn(5, 4, generator=g, dtype=dt) * 3
    x[0, 0] = 0.0
    x[1, 1] = 25.0  # past softplus's threshold
    acts = {
        "softplus_b": lambda z: F.softplus(z, beta=2.0, threshold=10.0),
        "celu": lambda z: F.celu(z, alpha=0.7),
        "selu": F.selu,
        "mish": F.mish,
        "hardswish": F.hardswish,
        "gelu_tanh": lambda z: F.gelu(z, approximate="tanh"),
        "logsigmoid": F.logsigmoid,
        "tanhshrink": F.tanhshrink,
        "softsign": F.softsign,
        "silu": nn.SiLU(),
        "elu": nn.ELU(alpha=0.5),
        "leaky": nn.LeakyReLU(0.1),
        "prelu": nn.PReLU(num_parameters=4, init=0.2).to(dt),
        "sigmoid_sq": lambda z: z.sigmoid() ** 2,
        "normalize": lambda z: F.normalize(z, dim=1),
        "cos": lambda z: F.cosine_similarity(z, z.flip(0), dim=1),
        "lse": lambda z: lib.logsumexp(z, dim=1),
        "softmin": lambda z: F.softmin(z, dim=1),
    }
    for name, act in acts.items():
        xi = x.clone().requires_grad_(True)
        y = act(xi)
        (g1,) = lib.autograd.grad(y.sum(), xi, create_graph=True)
        (g2,) = lib.autograd.grad(g1.pow(2).sum(), xi, allow_unused=True)
        rec(name + ".y", y)
        rec(name + ".g1", g1)
        rec(name + ".g2", str(g2) if g2 is None else g2)


def p_func_gp(lib, dt, rec):
    # per-sample input gradients by torch.func (vmap of grad over functional_call), then a
    # penalty's parameter gradient with torch.func.grad over the parameters
    g = lib.Generator().manual_seed(36)
    nn = lib.nn
    lib.manual_seed(36)
    critic = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)).to(dt)
    params = {k: v.detach() for k, v in critic.named_parameters()}
    x = lib.randn(7, 3, generator=g, dtype=dt)

    def f(p, xi):
        return lib.func.functional_call(critic, p, (xi.unsqueeze(0),)).squeeze()

    per = lib.func.vmap(lib.func.grad(f, argnums=1), in_dims=(None, 0))(params, x)
    rec("per", per)

    def gp(p):
        gr = lib.func.vmap(lib.func.grad(f, argnums=1), in_dims=(None, 0))(p, x)
        return ((gr.norm(dim=1) - 1) ** 2).mean()

    val = gp(params)
    grads = lib.func.grad(gp)(params)
    rec("gp", val)
    for k in sorted(grads):
        rec("g." + k, grads[k])
    # the same with autograd
    xi = x.clone().requires_grad_(True)
    (gx,) = lib.autograd.grad(critic(xi).sum(), xi, create_graph=True)
    pen = ((gx.norm(dim=1) - 1) ** 2).mean()
    pen.backward()
    for k, p in critic.named_parameters():
        rec("a." + k, p.grad)
    # jacfwd of the score (forward over reverse) on one point
    rec("jacfwd", lib.func.jacfwd(lib.func.grad(f, argnums=1), argnums=1)(params, x[0]))


def p_masked_energy(lib, dt, rec):
    # energies with masks and infinities: where's double backward, logsumexp over -inf entries,
    # masked_fill, and the NaN traps of sqrt at 0
    g = lib.Generator().manual_seed(37)
    x = lib.randn(4, 5, generator=g, dtype=dt, requires_grad=True)
    mask = lib.tensor(
        [[1, 1, 0, 1, 0], [0, 0, 0, 0, 1], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0]], dtype=lib.bool
    )
    logits = x.masked_fill(~mask, float("-inf"))
    e = -lib.logsumexp(logits, dim=1)
    (gx,) = lib.autograd.grad(e.sum(), x, create_graph=True)
    rec("e", e)
    rec("gx", gx)
    (hx,) = lib.autograd.grad(gx.pow(2).sum(), x)
    rec("hx", hx)
    # distance energy with the safe-sqrt trick
    pts = lib.randn(6, 2, generator=g, dtype=dt)
    pts[1] = pts[0]
    pts.requires_grad_(True)
    d2 = (pts[:, None] - pts[None]).pow(2).sum(-1)
    safe = lib.where(d2 > 0, d2, lib.ones_like(d2))
    d = lib.where(d2 > 0, safe.sqrt(), lib.zeros_like(d2))
    energy = (1 / (d + 0.1)).triu(1).sum()
    (gp,) = lib.autograd.grad(energy, pts, create_graph=True)
    rec("energy", energy)
    rec("gp", gp)
    (hp,) = lib.autograd.grad(gp.sum(), pts)
    rec("hp", hp)
    # the unsafe version: NaN gradients where the points coincide, as in torch
    q = pts.detach().clone().requires_grad_(True)
    dd = (q[:, None] - q[None]).pow(2).sum(-1).sqrt()
    (gq,) = lib.autograd.grad(dd.triu(1).sum(), q)
    rec("gq", gq)
    # torch.where with a scalar branch, and clamp_min inside the energy
    y = lib.linspace(-2, 2, 9, dtype=dt, requires_grad=True)
    en = lib.where(y > 0, y.pow(2), 0.0).sum() + y.clamp_min(-1.0).exp().sum()
    (gy,) = lib.autograd.grad(en, y, create_graph=True)
    (hy,) = lib.autograd.grad(gy.sum(), y)
    rec("gy", gy)
    rec("hy", hy)


def p_conv_score_net(lib, dt, rec):
    # a tiny U-Net-like score network on 1x8x8 images: GroupNorm, time embedding, ConvTranspose
    # and nearest upsampling; DSM training, Hutchinson divergence through it, Tweedie denoising
    g = lib.Generator().manual_seed(38)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(38)

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.t = nn.Sequential(nn.Linear(1, 8), nn.SiLU())
            self.c1 = nn.Conv2d(1, 8, 3, padding=1)
            self.n1 = nn.GroupNorm(4, 8)
            self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
            self.up = nn.ConvTranspose2d(8, 8, 4, stride=2, padding=1)
            self.c2 = nn.Conv2d(16, 8, 3, padding=1)
            self.up2 = nn.Conv2d(8, 8, 1)
            self.out = nn.Conv2d(8, 1, 3, padding=1)

        def forward(self, x, t):
            h1 = F.silu(self.n1(self.c1(x) + self.t(t[:, None])[:, :, None, None]))
            h2 = F.silu(self.down(h1))
            u = self.up(h2) + F.interpolate(self.up2(h2), scale_factor=2, mode="nearest")
            h = F.silu(self.c2(lib.cat([u, h1], dim=1)))
            return self.out(h)

    net = UNet().to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=1e-3)
    data = (lib.rand(4, 1, 8, 8, generator=g, dtype=dt) > 0.5).to(dt) * 2 - 1
    for it in range(3):
        t = lib.rand(4, generator=g, dtype=dt) * 0.9 + 0.1
        z = lib.randn(data.shape, generator=g, dtype=dt)
        noisy = data + t[:, None, None, None] * z
        s = net(noisy, t)
        loss = ((s * t[:, None, None, None] + z) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    # Hutchinson divergence with create_graph, then backward into the parameters
    x = lib.randn(2, 1, 8, 8, generator=g, dtype=dt).requires_grad_(True)
    t = lib.full((2,), 0.5, dtype=dt)
    s = net(x, t)
    v = lib.randint(0, 2, x.shape, generator=g).to(dt) * 2 - 1
    (vj,) = lib.autograd.grad(s, x, grad_outputs=v, create_graph=True)
    div = (vj * v).flatten(1).sum(1)
    rec("div", div)
    opt.zero_grad()
    div.sum().backward()
    rec.params("net", net, grads=True)
    rec("x.grad", x.grad)
    # Tweedie: E[x0 | xt] = xt + sigma^2 score
    with lib.no_grad():
        den = x + 0.25 * net(x, t)
    rec("den", den)


def p_sn_langevin(lib, dt, rec):
    # spectral norm in training mode advances its power iteration on every forward, Langevin
    # steps included (IGEBM); in eval it does not
    g = lib.Generator().manual_seed(39)
    nn = lib.nn
    lib.manual_seed(39)
    c1 = nn.utils.spectral_norm(nn.Conv2d(1, 4, 3, padding=1).to(dt))
    lin = nn.utils.spectral_norm(nn.Linear(4 * 16, 1).to(dt), n_power_iterations=2)
    act = nn.LeakyReLU(0.2)

    def energy(x):
        return lin(act(c1(x)).flatten(1)).squeeze(1)

    x = lib.rand(3, 1, 4, 4, generator=g, dtype=dt)
    for k in range(4):
        x = x.detach().requires_grad_(True)
        (gx,) = lib.autograd.grad(energy(x).sum(), x)
        x = (x - 10 * gx + 0.005 * lib.randn(x.shape, generator=g, dtype=dt)).clamp(0, 1)
        rec(f"u{k}", c1.weight_u)
    rec("x", x)
    c1.eval()
    lin.eval()
    u = c1.weight_u.clone()
    e = energy(x)
    rec("eval_u_same", lib.equal(u, c1.weight_u))
    rec("e", e)
    c1.train()
    lin.train()
    xi = x.detach().requires_grad_(True)
    e = energy(xi)
    (gx,) = lib.autograd.grad(e.sum(), xi, create_graph=True)
    (e.mean() + gx.pow(2).sum() * 0.1).backward()
    rec("orig.grad", c1.weight_orig.grad)
    rec("lin.grad", lin.weight_orig.grad)
    rec("sd", str(sorted(c1.state_dict().keys())))
    nn.utils.remove_spectral_norm(c1)
    rec("removed", str(sorted(n for n, _ in c1.named_parameters())))


def p_functional_api(lib, dt, rec):
    # torch.autograd.functional with its options on an energy's score
    g = lib.Generator().manual_seed(40)
    W = lib.randn(3, 3, generator=g, dtype=dt)
    b = lib.randn(3, generator=g, dtype=dt)

    def energy(x):
        return (lib.nn.functional.softplus(x @ W + b)).sum(-1) + 0.5 * (x * x).sum(-1)

    def score(x):
        x = x if x.requires_grad else x.requires_grad_(True)
        with lib.enable_grad():
            return -lib.autograd.grad(energy(x).sum(), x, create_graph=True)[0]

    x = lib.randn(4, 3, generator=g, dtype=dt)
    AF = lib.autograd.functional
    J = AF.jacobian(score, x)
    rec("J", J)
    Jv = AF.jacobian(score, x, vectorize=True)
    rec("Jv", Jv)
    rec.err("bad_strategy", lambda: AF.jacobian(score, x, strategy="forward-mode"))
    H = AF.hessian(lambda z: energy(z).sum(), x[0])
    rec("H", H)
    H2 = AF.hessian(lambda z: energy(z).sum(), x[0], vectorize=True)
    rec("H2", H2)
    v = lib.ones(4, 3, dtype=dt)
    out, jvp = AF.jvp(score, x, v)
    rec("jvp", jvp)
    out, vjp = AF.vjp(score, x, v, create_graph=True)
    rec("vjp", vjp)
    rec("vjp.rg", vjp.requires_grad)
    rec.err("strict", lambda: AF.jacobian(lambda z: lib.ones(2, dtype=dt), x[0], strict=True))
    rec("nonstrict", AF.jacobian(lambda z: lib.ones(2, dtype=dt), x[0]))
    # a tuple of inputs and outputs
    Jt = AF.jacobian(lambda a, c: (a * c, (a + c).sum()), (x[0], x[1]))
    for i, row in enumerate(Jt):
        for j, t in enumerate(row):
            rec(f"Jt{i}{j}", t)


def p_gibbs_with_gradients(lib, dt, rec):
    # Gibbs-with-Gradients for a binary EBM (Ising-like with a learned MLP term): proposals from
    # the gradient w.r.t. the one-hot/binary state, Metropolis-Hastings acceptance
    g = lib.Generator().manual_seed(41)
    nn, F = lib.nn, lib.nn.functional
    D = lib.distributions
    lib.manual_seed(41)
    n = 10
    J = lib.randn(n, n, generator=g, dtype=dt) * 0.2
    J = (J + J.T) / 2
    mlp = nn.Sequential(nn.Linear(n, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt)

    def log_p(x):
        return (x @ J * x).sum(-1) + mlp(x).squeeze(-1)

    def diff(x):
        x = x.detach().requires_grad_()
        (gx,) = lib.autograd.grad(log_p(x).sum(), x)
        return -(2 * x - 1) * gx  # the first-order change of log p from flipping each bit

    x = (lib.rand(6, n, generator=g, dtype=dt) < 0.5).to(dt)
    acc = []
    for it in range(5):
        d = diff(x)
        fwd = D.OneHotCategorical(logits=d / 2)
        with lib.random.fork_rng():
            lib.manual_seed(200 + it)
            change = fwd.sample()
        x_new = (1 - x) * change + x * (1 - change)
        rev = D.OneHotCategorical(logits=diff(x_new) / 2)
        log_ratio = log_p(x_new) - log_p(x) + rev.log_prob(change) - fwd.log_prob(change)
        u = lib.rand(6, generator=g, dtype=dt)
        a = (log_ratio.exp() > u).to(dt)
        x = x_new * a[:, None] + x * (1 - a[:, None])
        acc.append(a.mean())
        rec(f"lr{it}", log_ratio)
    rec("x", x)
    rec("acc", lib.stack(acc))
    # one-hot categorical states: the gradient w.r.t. a one_hot float, argmax proposals
    tok = lib.randint(0, 4, (5, 3), generator=g)
    oh = F.one_hot(tok, 4).to(dt).requires_grad_()
    emb = lib.randn(4, 2, generator=g, dtype=dt)
    e = (oh @ emb).pow(2).sum()
    (go,) = lib.autograd.grad(e, oh)
    rec("go", go)
    rec("proposal", (go - (go * oh).sum(-1, keepdim=True)).argmax(-1))
    rec("gumbel", F.gumbel_softmax(go, tau=0.5, hard=True).shape[-1])


def p_distribution_scores(lib, dt, rec):
    # scores (grad of log_prob) of torch.distributions targets, their Jacobians by double
    # backward, and score matching against them
    g = lib.Generator().manual_seed(42)
    D = lib.distributions
    mix = D.MixtureSameFamily(
        D.Categorical(lib.tensor([0.3, 0.7], dtype=dt)),
        D.Independent(
            D.Normal(
                lib.tensor([[-1.0, 0.0], [1.5, 0.5]], dtype=dt),
                lib.tensor([[0.5, 0.8], [0.7, 0.4]], dtype=dt),
            ),
            1,
        ),
    )
    mvn = D.MultivariateNormal(
        lib.tensor([0.5, -0.5], dtype=dt),
        scale_tril=lib.tensor([[1.0, 0.0], [0.4, 0.6]], dtype=dt),
    )
    st = D.StudentT(lib.tensor(4.0, dtype=dt), lib.zeros(2, dtype=dt), lib.ones(2, dtype=dt))
    x = lib.randn(5, 2, generator=g, dtype=dt)
    for name, dist in (("mix", mix), ("mvn", mvn), ("st", st)):
        xi = x.clone().requires_grad_(True)
        lp = dist.log_prob(xi)
        lp = lp.sum(-1) if lp.dim() == 2 else lp
        (s,) = lib.autograd.grad(lp.sum(), xi, create_graph=True)
        tr = sum(lib.autograd.grad(s[:, i].sum(), xi, retain_graph=True)[0][:, i] for i in range(2))
        rec(name + ".s", s)
        rec(name + ".tr", tr)
    # fit a diagonal Gaussian by score matching to mix's samples
    with lib.random.fork_rng():
        lib.manual_seed(43)
        data = mix.sample((200,))
    mu = lib.zeros(2, dtype=dt, requires_grad=True)
    log_s = lib.zeros(2, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([mu, log_s], lr=0.1)
    for it in range(5):
        xi = data.clone().requires_grad_(True)
        lp = D.Normal(mu, log_s.exp()).log_prob(xi).sum()
        (s,) = lib.autograd.grad(lp, xi, create_graph=True)
        tr = sum(lib.autograd.grad(s[:, i].sum(), xi, create_graph=True)[0][:, i] for i in range(2))
        loss = (tr + 0.5 * s.pow(2).sum(1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"sm{it}", loss)
    rec("mu", mu)
    rec("sigma", log_s.exp())
    rec("data.mean", data.mean(0))


def p_hopfield_attention(lib, dt, rec):
    # a Hopfield layer as attention (retrieval = one softmax update), with a gradient penalty on
    # the query through scaled_dot_product_attention, MultiheadAttention and weight_norm
    g = lib.Generator().manual_seed(44)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(44)
    stored = lib.randn(1, 6, 8, generator=g, dtype=dt)
    q = lib.randn(1, 3, 8, generator=g, dtype=dt, requires_grad=True)
    beta = 0.5
    out = F.scaled_dot_product_attention(q, stored, stored, scale=beta)
    ref = lib.softmax(beta * q @ stored.transpose(-1, -2), -1) @ stored
    rec("sdpa", out)
    rec("same", lib.allclose(out, ref))
    (g1,) = lib.autograd.grad(out.pow(2).sum(), q)  # torch's CPU sdpa: first order only
    rec("g1", g1)
    (gq,) = lib.autograd.grad(ref.pow(2).sum(), q, create_graph=True)
    (hq,) = lib.autograd.grad(gq.pow(2).sum(), q)
    rec("gq", gq)
    rec("hq", hq)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    proj = nn.utils.parametrizations.weight_norm(nn.Linear(8, 1).to(dt))
    x = lib.randn(2, 4, 8, generator=g, dtype=dt, requires_grad=True)
    e = proj(mha(x, x, x, need_weights=True)[0]).sum()  # (torch: sdpa has no double backward)
    (gx,) = lib.autograd.grad(e, x, create_graph=True)
    pen = gx.pow(2).sum()
    pen.backward()
    rec("pen", pen)
    rec.params("mha", mha, grads=True)
    rec("wn.g", proj.parametrizations.weight.original0.grad)
    rec("wn.v", proj.parametrizations.weight.original1.grad)


def p_rrelu_penalty(lib, dt, rec):
    # a critic with RReLU in training mode: its input gradient is x's random slopes, constant in
    # x, but torch's double-backward node takes x, so the penalty backpropagates (zeros to x)
    lib.manual_seed(45)
    x = lib.randn(4, 3, dtype=dt, requires_grad=True)
    lin = lib.nn.Linear(3, 3).to(dt).requires_grad_(False)
    y = lib.nn.functional.rrelu(lin(x), training=True)
    (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    rec("gx", gx)
    rec("gx.rg", gx.requires_grad)
    rec.err("backward", lambda: gx.pow(2).sum().backward())
    rec("x.grad", str(x.grad))
