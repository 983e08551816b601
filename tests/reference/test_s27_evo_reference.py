"""Session 27 (evo): evolution strategies, sampling-heavy programs and torch's random streams,
each written once against a `torch`-like module and run under torch and minitorch after the same
manual_seed: torch.Generator objects (seeds, states, generator= on every sampler), fork_rng and
rng states mid-program, randint's ranges and dtypes, randperm sizes and dtypes, rand/randn
dtypes and sizes 1..40, strided out= and *_like layouts (transposed, channels_last), normal with
tensor arguments, multinomial, random_ on every dtype, bernoulli, the in-place fills,
distributions interleaved with plain draws; OpenAI-ES (antithetic, rank shaping,
parameters_to_vector), CMA-ES (eigh, evolution paths, step size), the cross-entropy method,
natural ES, a genetic algorithm, differential evolution, simulated annealing, particle swarm,
importance sampling and resampling, a particle filter, Metropolis-Hastings and HMC, bootstrap.
Every draw, chosen index, fitness and state must agree: float64 to 1e-10 of its scale, float32
to 1e-4; integers and exception messages exactly."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def p_generator(lib, rec):
    g = lib.Generator()
    g.manual_seed(7)
    rec("init", g.initial_seed())
    rec("rand", lib.rand(5, generator=g))
    rec("randn", lib.randn(3, 4, generator=g, dtype=lib.float64))
    rec("randint", lib.randint(0, 10, (6,), generator=g))
    rec("randint2", lib.randint(5, (2, 3), generator=g))
    rec("randperm", lib.randperm(9, generator=g))
    st = g.get_state()
    rec("state.dtype", str(st.dtype))
    rec("state.shape", st.shape)
    a = lib.normal(0.5, 2.0, (4,), generator=g)
    rec("normal", a)
    g.set_state(st)
    rec("normal.again", lib.normal(0.5, 2.0, (4,), generator=g))
    p = lib.tensor([0.1, 0.2, 0.3, 0.4])
    rec("multinomial", lib.multinomial(p, 8, replacement=True, generator=g))
    rec("multinomial.nr", lib.multinomial(p, 3, generator=g))
    rec("bernoulli", lib.bernoulli(lib.full((7,), 0.4), generator=g))
    x = lib.empty(5, dtype=lib.float64)
    rec("exponential", x.exponential_(2.0, generator=g))
    rec("geometric", x.geometric_(0.3, generator=g))
    rec("log_normal", x.log_normal_(0.1, 0.5, generator=g))
    rec("cauchy", x.cauchy_(generator=g))
    rec("random", x.random_(0, 100, generator=g))
    rec("random.to", x.random_(50, generator=g))
    rec("uniform", x.uniform_(-1, 1, generator=g))
    rec("normal_", x.normal_(3, 0.1, generator=g))
    rec("poisson", lib.poisson(lib.tensor([0.5, 3.0, 20.0, 200.0]), generator=g))
    rec("bern_", x.bernoulli_(0.5, generator=g))
    rec("bern_t", x.bernoulli_(lib.full((5,), 0.3, dtype=lib.float64), generator=g))
    rec("rand_like", lib.rand(2, generator=g))
    g2 = lib.Generator().manual_seed(7)
    rec("g2.rand", lib.rand(5, generator=g2))
    lib.manual_seed(1)
    rec("global", lib.rand(2))
    s = g.seed()
    rec("seed.eq", g.initial_seed() == s)
    rec("gm", type(lib.Generator().manual_seed(3)).__name__)
    rec("default", lib.default_generator.initial_seed())
    rec("default.is", lib.default_generator is lib.random.default_generator)
    rec("default.dev", str(g.device))


def p_fork_rng(lib, rec):
    lib.manual_seed(11)
    rec("a", lib.rand(3))
    with lib.random.fork_rng(devices=[]):
        lib.manual_seed(99)
        rec("in", lib.randn(4))
    rec("b", lib.rand(3))
    with lib.random.fork_rng(devices=[], enabled=False):
        rec("in2", lib.randn(2))
    rec("c", lib.rand(3))
    st = lib.get_rng_state()
    rec("st", st[:16])
    rec("d", lib.randn(17))
    lib.set_rng_state(st)
    rec("d2", lib.randn(17))
    lib.random.set_rng_state(st)
    rec("d3", lib.randn(3, dtype=lib.float64))
    rec("init", lib.initial_seed())
    s = lib.seed()
    rec("seed", lib.initial_seed() == s)
    lib.random.manual_seed(5)
    rec("e", lib.rand(2))
    rec.err("bad_state", lambda: lib.set_rng_state(lib.zeros(3)))


def p_randint_ranges(lib, rec):
    lib.manual_seed(3)
    rec("a", lib.randint(-5, 5, (10,)))
    rec("b", lib.randint(0, 2**31, (5,)))
    rec("c", lib.randint(0, 2**32 + 5, (5,)))
    rec("d", lib.randint(-(2**62), 2**62, (5,)))
    rec("e", lib.randint(0, 256, (9,), dtype=lib.uint8))
    rec("f", lib.randint(-3, 4, (6,), dtype=lib.int8))
    rec("g", lib.randint(0, 7, (5,), dtype=lib.float32))
    rec("h", lib.randint(0, 7, (5,), dtype=lib.float64))
    rec("i", lib.randint(2, 3, (3,), dtype=lib.int32))
    rec("j", lib.randint(0, 2, (4,), dtype=lib.bool))
    rec("k", lib.randint(10, (2, 2), dtype=lib.int16))
    rec.err("empty", lambda: lib.randint(5, 5, (3,)))
    rec.err("neg", lambda: lib.randint(5, 2, (3,)))
    rec("l", lib.randint_like(lib.zeros(4), 3, 9))
    rec("m", lib.randint_like(lib.zeros(4, dtype=lib.int32), 9))
    rec("n", lib.randint(0, 2**40, (3,)))
    rec("o", lib.randint(0, 5, ()))


def p_randperm(lib, rec):
    lib.manual_seed(1)
    for n in (0, 1, 2, 3, 10, 31, 100, 1000):
        rec(f"p{n}", lib.randperm(n))
    rec("i32", lib.randperm(20, dtype=lib.int32))
    rec("f32", lib.randperm(12, dtype=lib.float32))
    rec("f64", lib.randperm(12, dtype=lib.float64))
    rec("i16", lib.randperm(12, dtype=lib.int16))
    rec("big", lib.randperm(70000)[:20])
    rec("after", lib.rand(3))
    out = lib.empty(5, dtype=lib.int64)
    lib.randperm(5, out=out)
    rec("out", out)
    rec.err("neg", lambda: lib.randperm(-1))


def p_rand_dtypes(lib, rec):
    lib.manual_seed(2)
    for dt in ("float16", "bfloat16", "float64", "float32"):
        rec("rand." + dt, lib.rand(7, dtype=getattr(lib, dt)))
        rec("randn." + dt, lib.randn(19, dtype=getattr(lib, dt)))
    rec("rand_like", lib.rand_like(lib.zeros(3, dtype=lib.float16)))
    rec("randn_like", lib.randn_like(lib.zeros(3, dtype=lib.float64)))
    rec.err("rand.int", lambda: lib.rand(3, dtype=lib.int64))
    rec.err("randn.int", lambda: lib.randn(3, dtype=lib.int32))
    o = lib.empty(3, 6, dtype=lib.float64).t()
    lib.rand(6, 3, out=o, dtype=lib.float64)
    rec("rand.out.t", o)
    o = lib.empty(4, 5).t()
    lib.normal(2.0, 0.5, (5, 4), out=o)
    rec("normal.out.t", o)
    o = lib.empty(4, 5, dtype=lib.int64).t()
    lib.randint(-3, 50, (5, 4), out=o)
    rec("randint.out.t", o)
    x = lib.zeros(2, 3, 4, 5)
    rec("rand_like.cl", lib.rand_like(x, memory_format=lib.channels_last))
    rec("randn_like.cl", lib.randn_like(x, memory_format=lib.channels_last))
    rec("randn_like.t", lib.randn_like(x.permute(0, 2, 3, 1), dtype=lib.float64))
    rec("randint_like.t", lib.randint_like(x[0].transpose(0, 2), 3, 40))
    rec("rand_like.t", lib.rand_like(x[0, 0].t()))
    rec("randn_like.step", lib.randn_like(lib.zeros(6, 10)[:, ::2]))


def p_randn_sizes(lib, rec):
    lib.manual_seed(4)
    for n in range(1, 41):
        rec(f"n{n}", lib.randn(n))
    x = lib.zeros(6, 7)
    x.t().normal_()
    rec("nc", x)
    y = lib.zeros(10, 8, dtype=lib.float64)
    y[:, ::2].normal_(1.0, 2.0)
    rec("nc2", y)
    z = lib.zeros(40)
    z[::3].uniform_()
    rec("nc3", z)
    o = lib.empty(3, 6).t()
    lib.randn(6, 3, out=o)
    rec("out", o)
    rec("out.str", o.stride())
    w = lib.zeros(17, 3)
    w.t().normal_(0, 1)
    rec("nc4", w)


def p_normal_tensor(lib, rec):
    lib.manual_seed(5)
    m = lib.arange(6.0).view(2, 3)
    s = lib.tensor([0.5, 1.0, 2.0])
    rec("tt", lib.normal(m, s.expand(2, 3).contiguous()))
    rec.err("tt.bcast", lambda: lib.normal(m, s))
    rec("ts", lib.normal(m, 2.0))
    rec("st", lib.normal(1.0, s))
    rec("tt64", lib.normal(m.double(), m.double() + 1))
    rec("big", lib.normal(lib.zeros(20), lib.ones(20)))
    rec.err("neg", lambda: lib.normal(m, -1.0))
    rec.err("negt", lambda: lib.normal(m, -lib.ones(2, 3)))
    rec("sz", lib.normal(2, 3, size=(2, 2)))
    rec("gen", lib.normal(m, 1.0, generator=lib.Generator().manual_seed(1)))
    out = lib.empty(2, 3)
    lib.normal(m, 0.1, out=out)
    rec("out", out)


def p_multinomial(lib, rec):
    lib.manual_seed(6)
    p = lib.tensor([[0.1, 0.0, 0.5, 0.4], [1.0, 1.0, 1.0, 1.0]])
    rec("2d.r", lib.multinomial(p, 10, replacement=True))
    rec("2d.nr", lib.multinomial(p, 3))
    rec("1d", lib.multinomial(lib.tensor([2.0, 3.0, 5.0]), 2))
    rec("1d.all", lib.multinomial(lib.tensor([2.0, 3.0, 5.0]), 3))
    rec.err("toomany", lambda: lib.multinomial(lib.tensor([1.0, 1.0]), 3))
    rec.err("zero", lambda: lib.multinomial(lib.tensor([[0.0, 0.0], [1.0, 1.0]]), 1))
    rec.err("neg", lambda: lib.multinomial(lib.tensor([-1.0, 1.0]), 1))
    rec.err("nz", lambda: lib.multinomial(lib.tensor([0.0, 1.0, 0.0]), 2))
    rec("nz.r", lib.multinomial(lib.tensor([0.0, 1.0, 0.0]), 2, replacement=True))
    rec.err("3d", lambda: lib.multinomial(lib.ones(2, 2, 2), 1))
    rec.err("zero_samples", lambda: lib.multinomial(lib.ones(3), 0))
    rec("f64", lib.multinomial(lib.rand(3, 50, dtype=lib.float64), 20))
    rec("big", lib.multinomial(lib.rand(200), 100, replacement=True))
    rec("m", lib.rand(2).multinomial(1))
    rec.err("inf", lambda: lib.multinomial(lib.tensor([float("inf"), 1.0]), 1))
    rec.err("int", lambda: lib.multinomial(lib.tensor([1, 2]), 1))


def p_random_(lib, rec):
    lib.manual_seed(8)
    for dt in (
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "bool",
        "float16",
        "bfloat16",
        "float32",
        "float64",
    ):
        d = getattr(lib, dt)
        rec("r." + dt, lib.empty(6, dtype=d).random_())
        rec.err(
            "rft." + dt, lambda d=d: rec("rft.v." + str(d), lib.empty(6, dtype=d).random_(0, 2))
        )
        rec.err("rt." + dt, lambda d=d: rec("rt.v." + str(d), lib.empty(6, dtype=d).random_(100)))
        rec.err(
            "neg." + dt, lambda d=d: rec("neg.v." + str(d), lib.empty(4, dtype=d).random_(-5, 5))
        )
    rec.err("to_big", lambda: lib.empty(3, dtype=lib.uint8).random_(0, 300))
    rec.err("from_to", lambda: lib.empty(3).random_(5, 5))
    rec("big", lib.empty(3, dtype=lib.int64).random_(-(2**40), 2**40))
    rec("f64big", lib.empty(3, dtype=lib.float64).random_(0, 2**60))
    for dt, (lo, hi) in (
        ("float32", (0, 2**25)), ("float32", (-(2**24) - 7, 2**24 + 100)),
        ("bfloat16", (-1000, 1000)), ("float16", (-3001, 3001)), ("float16", (0, 65536)),
        ("float64", (-(2**54) - 3, 2**54 + 5)),
    ):  # fmt: skip
        d = getattr(lib, dt)
        rec.err(
            f"fb.{dt}.{hi}",
            lambda d=d, lo=lo, hi=hi, dt=dt: rec(
                f"fbv.{dt}.{hi}", lib.empty(5, dtype=d).random_(lo, hi)
            ),
        )
        rec.err(
            f"fbr.{dt}.{hi}",
            lambda d=d, lo=lo, hi=hi, dt=dt: rec(
                f"fbrv.{dt}.{hi}", lib.randint(lo, hi, (5,), dtype=d)
            ),
        )


def p_bernoulli(lib, rec):
    lib.manual_seed(9)
    p = lib.rand(3, 4)
    rec("t", lib.bernoulli(p))
    rec("p=", lib.bernoulli(p, p=0.7))
    rec("p64", lib.bernoulli(p.double()))
    x = lib.zeros(3, 4)
    rec("_", x.bernoulli_(p))
    rec("_f", x.bernoulli_(0.2))
    rec("_b", x.bernoulli_(lib.rand(4)))
    rec("int", lib.zeros(5, dtype=lib.int64).bernoulli_(0.5))
    rec("bool", lib.zeros(5, dtype=lib.bool).bernoulli_(0.5))
    rec.err("bad", lambda: lib.bernoulli(lib.tensor([1.5])))
    rec.err("badp", lambda: x.bernoulli_(1.5))
    rec("m", p.bernoulli())
    rec("nc", lib.bernoulli(p.t()))
    rec("half", lib.bernoulli(p.half()))


def p_dists(lib, rec):
    D = lib.distributions
    lib.manual_seed(12)
    rec("a", lib.rand(3))
    rec("normal", D.Normal(lib.zeros(5), lib.ones(5)).sample())
    rec("b", lib.randn(2))
    rec("cat", D.Categorical(logits=lib.randn(4, 6)).sample((3,)))
    rec("gamma", D.Gamma(lib.tensor([0.5, 2.0, 5.0]), lib.tensor([1.0, 2.0, 0.5])).sample((2,)))
    rec("c", lib.rand(2))
    rec("dir", D.Dirichlet(lib.tensor([0.3, 1.0, 4.0])).sample((2,)))
    rec("beta", D.Beta(lib.tensor([0.5, 2.0]), lib.tensor([3.0, 0.7])).sample((3,)))
    rec("pois", D.Poisson(lib.tensor([0.4, 7.0, 30.0])).sample((2,)))
    rec("d", lib.randint(0, 9, (4,)))
    rec("rs", D.Normal(1.0, 2.0).rsample((4,)))
    rec("mvn", D.MultivariateNormal(lib.zeros(3), lib.eye(3) * 2).sample((2,)))
    rec("bern", D.Bernoulli(probs=lib.tensor([0.2, 0.8, 0.5])).sample((2,)))
    rec("unif", D.Uniform(-1.0, 3.0).sample((3,)))
    rec("exp", D.Exponential(lib.tensor([0.5, 2.0])).sample((2,)))
    rec("lap", D.Laplace(0.0, 1.0).sample((3,)))
    rec("gumbel", D.Gumbel(0.0, 1.0).sample((3,)))
    rec("mult", D.Multinomial(10, lib.tensor([0.2, 0.3, 0.5])).sample((2,)))
    rec("rc", D.RelaxedOneHotCategorical(lib.tensor(0.5), logits=lib.zeros(3)).rsample())
    rec("e", lib.rand(2, dtype=lib.float64))
    rec("lp", D.Gamma(2.0, 1.0).log_prob(lib.tensor([0.5, 3.0])))


def p_openai_es(lib, rec):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    pu = lib.nn.utils
    theta = pu.parameters_to_vector(net.parameters()).detach()
    rec("theta0", theta)
    X = lib.randn(32, 3)
    y = (X[:, :1] * 2 - X[:, 1:2]).sin()
    sigma, lr, half = 0.1, 0.05, 10

    def fitness(vec):
        pu.vector_to_parameters(vec, net.parameters())
        with lib.no_grad():
            return -((net(X) - y) ** 2).mean()

    for it in range(4):
        eps = lib.randn(half, theta.numel())
        eps = lib.cat([eps, -eps])
        f = lib.stack([fitness(theta + sigma * e) for e in eps])
        rec(f"f{it}", f)
        ranks = lib.argsort(lib.argsort(f)).float()
        rec(f"ranks{it}", ranks)
        shaped = ranks / (len(f) - 1) - 0.5
        grad = (shaped[:, None] * eps).sum(0) / (len(f) * sigma)
        theta = theta + lr * grad
        rec(f"theta{it}", theta)
    pu.vector_to_parameters(theta, net.parameters())
    rec.params("net", net)
    rec("final", fitness(theta))


def p_cmaes(lib, rec):
    lib.manual_seed(1)
    dt = lib.float64
    n = 4
    lam = 4 + int(3 * math.log(n))
    mu = lam // 2
    w = math.log(mu + 0.5) - lib.log(lib.arange(1, mu + 1, dtype=dt))
    w = w / w.sum()
    mueff = 1 / (w**2).sum()
    cc = (4 + mueff / n) / (n + 4 + 2 * mueff / n)
    cs = (mueff + 2) / (n + mueff + 5)
    c1 = 2 / ((n + 1.3) ** 2 + mueff)
    cmu = min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((n + 2) ** 2 + mueff))
    damps = 1 + 2 * max(0, math.sqrt((mueff - 1) / (n + 1)) - 1) + cs
    chin = n**0.5 * (1 - 1 / (4 * n) + 1 / (21 * n**2))
    mean = lib.tensor([2.0, 1.0, -1.5, 0.5], dtype=dt)
    sigma = 0.5
    C = lib.eye(n, dtype=dt)
    pc = lib.zeros(n, dtype=dt)
    ps = lib.zeros(n, dtype=dt)

    def f(x):
        return (x**2 * lib.arange(1, n + 1, dtype=dt)).sum(-1) + 0.1 * (x[..., 0] - 1) ** 2

    for g in range(6):
        D2, B = lib.linalg.eigh(C)
        B = B * lib.sign(B.gather(0, B.abs().argmax(0, keepdim=True)))  # LAPACKs differ in sign
        D = D2.clamp(min=1e-20).sqrt()
        z = lib.randn(lam, n, dtype=dt)
        y = z @ (B * D).T
        x = mean + sigma * y
        fx = f(x)
        idx = lib.argsort(fx)
        rec(f"fx{g}", fx)
        rec(f"idx{g}", idx)
        old = mean
        mean = (w[:, None] * x[idx[:mu]]).sum(0)
        invsqrt = B @ lib.diag(1 / D) @ B.T
        ps = (1 - cs) * ps + math.sqrt(cs * (2 - cs) * mueff) * invsqrt @ (mean - old) / sigma
        hsig = float(lib.linalg.norm(ps)) / math.sqrt(
            1 - (1 - cs) ** (2 * (g + 1))
        ) / chin < 1.4 + 2 / (n + 1)
        pc = (1 - cc) * pc + hsig * math.sqrt(cc * (2 - cc) * mueff) * (mean - old) / sigma
        art = (x[idx[:mu]] - old) / sigma
        C = (
            (1 - c1 - cmu) * C
            + c1 * (lib.outer(pc, pc) + (1 - hsig) * cc * (2 - cc) * C)
            + cmu * art.T @ lib.diag(w) @ art
        )
        sigma = sigma * math.exp((cs / damps) * (lib.linalg.norm(ps).item() / chin - 1))
        rec(f"mean{g}", mean)
        rec(f"sigma{g}", sigma)
        rec(f"C{g}", C)


def p_cem(lib, rec):
    lib.manual_seed(2)
    mu = lib.zeros(5)
    std = lib.ones(5) * 2
    target = lib.tensor([1.0, -2.0, 0.5, 3.0, 0.0])
    for it in range(6):
        pop = mu + std * lib.randn(40, 5)
        fit = -((pop - target) ** 2).sum(1)
        top = lib.topk(fit, 8)
        rec(f"top{it}.v", top.values)
        rec(f"top{it}.i", top.indices)
        el = pop[top.indices]
        mu = el.mean(0)
        std = el.std(0).clamp(min=0.05, max=2.0)
        rec(f"mu{it}", mu)
        rec(f"std{it}", std)
    rec("nes", lib.distributions.Normal(mu, std).log_prob(target).sum())


def p_nes(lib, rec):
    lib.manual_seed(3)
    dt = lib.float64
    mu = lib.zeros(3, dtype=dt, requires_grad=True)
    log_sigma = lib.zeros(3, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([mu, log_sigma], lr=0.1)
    for it in range(5):
        dist = lib.distributions.Normal(mu, log_sigma.exp())
        s = dist.sample((16,))
        f = -((s - lib.tensor([1.0, 2.0, -1.0], dtype=dt)) ** 2).sum(1)
        u = (f - f.mean()) / (f.std() + 1e-8)
        loss = -(dist.log_prob(s).sum(1) * u).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"g{it}.mu", mu.grad)
        rec(f"g{it}.ls", log_sigma.grad)
        opt.step()
    rec("mu", mu)
    rec("ls", log_sigma)


def p_genetic(lib, rec):
    lib.manual_seed(4)
    pop = lib.randint(0, 2, (12, 10), dtype=lib.int64)
    weights = lib.arange(1, 11).float()
    for gen in range(5):
        fit = (pop.float() * weights).sum(1) - 3 * (pop.sum(1) - 5).abs().float()
        rec(f"fit{gen}", fit)
        order = lib.sort(fit, descending=True, stable=True)
        elite = pop[order.indices[:2]]
        a = lib.randint(0, 12, (10, 3))
        winners = a.gather(1, fit[a].argmax(1, keepdim=True)).squeeze(1)
        rec(f"win{gen}", winners)
        probs = lib.softmax(fit, 0)
        mates = lib.multinomial(probs, 10, replacement=True)
        rec(f"mates{gen}", mates)
        mask = lib.rand(10, 10) < 0.5
        child = lib.where(mask, pop[winners], pop[mates])
        flip = lib.bernoulli(lib.full((10, 10), 0.05)).long()
        child = child ^ flip
        pop = lib.cat([elite, child])
        rec(f"pop{gen}", pop)
        u = lib.unique(pop, dim=0)
        rec(f"uniq{gen}", u.shape[0])
    real = lib.randn(8, 4)
    real.normal_(0, 0.1)
    rec("mut", real)
    srt = lib.sort(real[:, 0])
    rec("sorted", srt.values)
    u, inv, cnt = lib.unique(pop[:, :3], dim=0, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)


def p_diffevo(lib, rec):
    lib.manual_seed(5)
    NP, D = 10, 4
    lo, hi = -5.0, 5.0
    pop = lo + (hi - lo) * lib.rand(NP, D, dtype=lib.float64)

    def f(x):
        return (x**2).sum(-1) + 10 * (1 - lib.cos(2 * math.pi * x)).sum(-1)

    fit = f(pop)
    for g in range(5):
        idx = lib.stack([lib.randperm(NP - 1)[:3] for _ in range(NP)])
        idx = idx + (idx >= lib.arange(NP)[:, None]).long()
        rec(f"idx{g}", idx)
        a, b, c = pop[idx[:, 0]], pop[idx[:, 1]], pop[idx[:, 2]]
        mutant = (a + 0.8 * (b - c)).clamp(lo, hi)
        cross = lib.rand(NP, D) < 0.9
        jr = lib.randint(0, D, (NP,))
        cross[lib.arange(NP), jr] = True
        trial = lib.where(cross, mutant, pop)
        ft = f(trial)
        better = ft <= fit
        pop = lib.where(better[:, None], trial, pop)
        fit = lib.where(better, ft, fit)
        rec(f"fit{g}", fit)
    rec("best", pop[fit.argmin()])


def p_anneal(lib, rec):
    lib.manual_seed(6)
    dt = lib.float64
    x = lib.tensor([3.0, -2.0], dtype=dt)

    def E(v):
        return ((v - 1) ** 2).sum() + lib.sin(3 * v).sum()

    e = E(x)
    T = 2.0
    acc = []
    for _k in range(40):
        cand = x + 0.5 * lib.randn(2, dtype=dt)
        ec = E(cand)
        p = lib.exp(-(ec - e) / T)
        u = lib.rand(())
        ok = bool(u < p)
        acc.append(ok)
        if ok:
            x, e = cand, ec
        T *= 0.9
    rec("acc", acc)
    rec("x", x)
    rec("e", e)


def p_pso(lib, rec):
    lib.manual_seed(7)
    n, d = 15, 3
    pos = lib.empty(n, d).uniform_(-4, 4)
    vel = lib.zeros(n, d)

    def f(x):
        return (x**2).sum(1) + (x[:, 0] - x[:, 1]).abs()

    pbest, pfit = pos.clone(), f(pos)
    g = pbest[pfit.argmin()]
    for it in range(6):
        r1, r2 = lib.rand_like(vel), lib.rand_like(vel)
        vel = (0.7 * vel + 1.5 * r1 * (pbest - pos) + 1.5 * r2 * (g - pos)).clamp(-1, 1)
        pos = (pos + vel).clamp_(-4, 4)
        fit = f(pos)
        imp = fit < pfit
        pbest[imp] = pos[imp]
        pfit = lib.minimum(pfit, fit)
        g = pbest[pfit.argmin()]
        rec(f"g{it}", g)
        rec(f"pfit{it}", pfit)


def p_importance(lib, rec):
    lib.manual_seed(8)
    dt = lib.float64
    q = lib.distributions.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(2.0, dtype=dt))
    p = lib.distributions.StudentT(lib.tensor(3.0, dtype=dt), lib.tensor(1.0, dtype=dt))
    xs = q.sample((500,))
    logw = p.log_prob(xs) - q.log_prob(xs)
    lse = lib.logsumexp(logw, 0)
    w = (logw - lse).exp()
    rec("lse", lse)
    rec("ess", 1 / (w**2).sum())
    rec("mean", (w * xs).sum())
    N = 20
    wt = lib.softmax(lib.randn(N, dtype=dt), 0)
    c = lib.cumsum(wt, 0)
    c[-1] = 1.0
    u0 = lib.rand(1, dtype=dt)
    sys_idx = lib.searchsorted(c, (lib.arange(N, dtype=dt) + u0) / N)
    rec("sys", sys_idx)
    strat = lib.searchsorted(c, (lib.arange(N, dtype=dt) + lib.rand(N, dtype=dt)) / N)
    rec("strat", strat)
    multi = lib.multinomial(wt, N, replacement=True)
    rec("multi", multi)
    rec("res", lib.searchsorted(c, lib.rand(N, dtype=dt), right=True))


def p_particle(lib, rec):
    lib.manual_seed(9)
    T, N = 8, 50
    xs = lib.zeros(T)
    ys = lib.zeros(T)
    x = lib.tensor(0.0)
    for t in range(T):
        x = 0.9 * x + lib.randn(()) * 0.5
        xs[t] = x
        ys[t] = x + lib.randn(()) * 0.3
    parts = lib.randn(N)
    logw = lib.zeros(N)
    ests = []
    for t in range(T):
        parts = 0.9 * parts + 0.5 * lib.randn(N)
        logw = logw + lib.distributions.Normal(parts, 0.3).log_prob(ys[t])
        w = lib.softmax(logw, 0)
        ests.append((w * parts).sum())
        ess = 1.0 / (w**2).sum()
        if ess < N / 2:
            c = w.cumsum(0)
            idx = lib.searchsorted(c, (lib.rand(1) + lib.arange(N)) / N).clamp(max=N - 1)
            parts = parts[idx]
            logw = lib.zeros(N)
    rec("xs", xs)
    rec("ests", lib.stack(ests))


def p_mcmc(lib, rec):
    lib.manual_seed(10)
    dt = lib.float64

    def logp(x):
        return -0.5 * (x[..., 0] ** 2 + ((x[..., 1] - x[..., 0] ** 2) ** 2) / 0.5)

    x = lib.zeros(2, dtype=dt)
    chain = []
    acc = 0
    for _i in range(60):
        prop = x + 0.5 * lib.randn(2, dtype=dt)
        if lib.log(lib.rand((), dtype=dt)) < logp(prop) - logp(x):
            x = prop
            acc += 1
        chain.append(x)
    rec("mh", lib.stack(chain))
    rec("acc", acc)
    q = lib.tensor([0.5, 0.5], dtype=dt)
    eps, L = 0.15, 8
    hmc = []
    for _i in range(10):
        p0 = lib.randn(2, dtype=dt)
        qn = q.clone().requires_grad_(True)
        p = p0.clone()
        (g,) = lib.autograd.grad(logp(qn), qn)
        p = p + 0.5 * eps * g
        for step in range(L):
            qn = (qn + eps * p).detach().requires_grad_(True)
            (g,) = lib.autograd.grad(logp(qn), qn)
            if step < L - 1:
                p = p + eps * g
        p = p + 0.5 * eps * g
        h0 = -logp(q) + 0.5 * (p0**2).sum()
        h1 = -logp(qn.detach()) + 0.5 * (p**2).sum()
        if lib.rand((), dtype=dt) < lib.exp(h0 - h1):
            q = qn.detach()
        hmc.append(q)
    rec("hmc", lib.stack(hmc))


def p_bootstrap(lib, rec):
    lib.manual_seed(11)
    data = lib.randn(30, dtype=lib.float64) * 2 + 1
    B = 200
    idx = lib.randint(0, 30, (B, 30))
    means = data[idx].mean(1)
    rec("idx0", idx[0])
    rec("ci", lib.quantile(means, lib.tensor([0.025, 0.975], dtype=lib.float64)))
    rec("se", means.std())
    perm = lib.stack([lib.randperm(30) for _ in range(50)])
    rec("perm", perm[:3])
    g = lib.Generator().manual_seed(3)
    idx2 = lib.randint(30, (5, 30), generator=g)
    rec("idx2", idx2)
    rec("med", data[idx2].median(1).values)


def p_states(lib, rec):
    lib.manual_seed(21)
    rec("a", lib.randn(3, dtype=lib.float64))
    st = lib.get_rng_state()
    rec("st.dtype", str(st.dtype))
    rec("st.shape", st.shape)
    rec("b", lib.randn(1, dtype=lib.float64))
    rec("b2", lib.randn(5))
    lib.set_rng_state(st)
    rec("b.again", lib.randn(1, dtype=lib.float64))
    rec("b2.again", lib.randn(5))
    g = lib.Generator()
    g.set_state(lib.get_rng_state())
    rec("g", lib.randn(7, generator=g))
    rec("glob", lib.randn(7))
    rec("g.init", g.initial_seed())
    for seed in (0, -1, 2**63 - 1, 2**64 - 1, -(2**63)):
        rec.err(f"seed{seed}", lambda seed=seed: lib.manual_seed(seed))
        rec(f"seedv{seed}", lib.rand(3))
        rec(f"init{seed}", lib.initial_seed())
    rec.err("seed.f", lambda: lib.manual_seed(1.5))
    rec.err("seed.big", lambda: lib.manual_seed(2**64))
    rec.err("gseed.neg", lambda: lib.Generator().manual_seed(-5).initial_seed())
    lib.manual_seed(3)
    x = lib.randn(1)
    st = lib.random.get_rng_state()
    with lib.random.fork_rng():
        lib.randn(100)
    rec("fork.same", lib.equal(st, lib.get_rng_state()))
    rec("after", lib.randn(2))
    rec("x", x)


def p_fills(lib, rec):
    lib.manual_seed(22)
    for dt in ("float16", "bfloat16", "float32", "float64"):
        d = getattr(lib, dt)
        rec("exp." + dt, lib.empty(20, dtype=d).exponential_())
        rec("cauchy." + dt, lib.empty(5, dtype=d).cauchy_(1.0, 0.5))
        rec("logn." + dt, lib.empty(5, dtype=d).log_normal_())
        rec("geo." + dt, lib.empty(5, dtype=d).geometric_(0.4))
        rec("norm." + dt, lib.empty(20, dtype=d).normal_(1.0, 0.5))
        rec("normnc." + dt, lib.empty(4, 10, dtype=d).t().normal_())
        rec("unif." + dt, lib.empty(5, dtype=d).uniform_(2, 3))
    for dt in ("int64", "int32", "uint8"):
        d = getattr(lib, dt)
        rec.err(
            "geo." + dt, lambda d=d: rec("geov." + str(d), lib.empty(5, dtype=d).geometric_(0.4))
        )
    rec.err("unif.bad", lambda: lib.empty(3).uniform_(2, 1))
    rec.err("exp.bad", lambda: lib.empty(3).exponential_(-1))
    rec.err("geo.bad", lambda: lib.empty(3).geometric_(1.5))
    rec.err("logn.bad", lambda: lib.empty(3).log_normal_(0, -1))
    rec.err("norm.bad", lambda: lib.empty(3).normal_(0, -1))
    rec.err("cauchy.int", lambda: lib.empty(3, dtype=lib.int64).cauchy_())
    rec.err("exp.int", lambda: lib.empty(3, dtype=lib.int64).exponential_())
    rec.err("unif.int", lambda: lib.empty(3, dtype=lib.int64).uniform_())
    rec("after", lib.rand(3))
    rec("exp0", lib.empty(4).exponential_(0.0) if False else lib.rand(1))
    rec("pois", lib.poisson(lib.tensor([[0.0, 1.0], [10.0, 0.5]], dtype=lib.float64)))
    rec("pois.f", lib.poisson(lib.rand(30) * 5))
    rec.err("pois.neg", lambda: lib.poisson(lib.tensor([-1.0])))
    rec("std_gamma", lib._standard_gamma(lib.tensor([0.5, 1.0, 3.0])))
    rec("binom", lib.binomial(lib.tensor([10.0, 5.0]), lib.tensor([0.3, 0.9])))
    rec("dirichlet", lib._sample_dirichlet(lib.tensor([0.5, 1.0, 2.0])))


def p_randperm_big(lib, rec):
    lib.manual_seed(23)
    p = lib.randperm(2**20 + 3)
    rec("head", p[:10])
    rec("tail", p[-5:])
    rec("after", lib.rand(2))
    q = lib.randperm(300000, dtype=lib.int32)
    rec("i32", q[:8])
    rec("f64", lib.randperm(1000, dtype=lib.float64)[:8])
    rec("gen", lib.randperm(50, generator=lib.Generator().manual_seed(4))[:10])


def p_kw_forms(lib, rec):
    lib.manual_seed(24)
    rec("a", lib.randint(3, 10, size=(2,)))
    rec("b", lib.randint(high=4, size=(3,)))
    rec("c", lib.randint(low=2, high=4, size=(3,)))
    rec("d", lib.rand(size=(2, 2)))
    rec("e", lib.randn(size=[3]))
    rec("f", lib.rand((2, 3)))
    rec("g", lib.randn([]))
    rec("h", lib.rand(0))
    rec("i", lib.randint(5, (0,)))
    rec("j", lib.normal(lib.tensor(0.0), lib.tensor(1.0)))
    rec("k", lib.normal(mean=lib.zeros(3), std=2.0))
    rec("l", lib.normal(0.0, 1.0, size=(2,)))
    rec("m", lib.rand(2, 3, requires_grad=True))
    rec("n", lib.randn(2, dtype=lib.float64, requires_grad=True).requires_grad)
    rec.err("o", lambda: lib.randint(5))
    rec.err("p", lambda: lib.rand(2, -1))
    rec("q", lib.Tensor(3).uniform_().shape)
    rec("r", lib.FloatTensor(2).normal_())
    rec("s", lib.bernoulli(lib.tensor(0.3)))
    rec("t", lib.multinomial(lib.tensor([0.5, 0.5]), 1, True))
    rec("u", lib.rand(3).new_empty(4).uniform_())
    rec("v", lib.zeros(3).new_tensor([0.2, 0.4]).bernoulli())
    rec("w", lib.randn(3).exponential_(lambd=3.0))
    rec("x", lib.randn(3).random_(to=5))
    rec("y", lib.randn(3).random_(1, to=5))


def p_layouts(lib, rec):
    F = lib.nn.functional
    lib.manual_seed(31)
    x = lib.ones(6, 10).t()
    rec("dropout.t", F.dropout(x, 0.3))
    rec("dropout.nc", F.dropout(lib.ones(4, 12)[:, ::3], 0.5))
    x4 = lib.ones(2, 3, 4, 5).to(memory_format=lib.channels_last)
    rec("dropout.cl", F.dropout(x4, 0.4))
    rec("dropout2d.cl", F.dropout2d(x4, 0.5))
    rec("alpha.t", F.alpha_dropout(x, 0.3, training=True))
    rec("fad.t", F.feature_alpha_dropout(lib.ones(3, 4, 5).transpose(1, 2), 0.3, training=True))
    rec("rrelu.t", F.rrelu(-x, training=True))
    rec("gumbel.t", F.gumbel_softmax(lib.zeros(3, 5).t(), tau=0.5))
    w = lib.empty(5, 8).t()
    lib.nn.init.normal_(w)
    rec("init.normal.t", w)
    lib.nn.init.uniform_(w, -1, 1)
    rec("init.uniform.t", w)
    lib.nn.init.kaiming_uniform_(w)
    rec("init.kaiming.t", w)
    lib.nn.init.trunc_normal_(w, std=0.5)
    rec("init.trunc.t", w)
    lib.nn.init.xavier_normal_(w)
    rec("init.xavier.t", w)
    m = lib.zeros(3, 4)
    o = lib.empty(4, 3).t()
    lib.normal(m, 1.0, out=o)
    rec("normal.mean.out.t", o)
    o2 = lib.empty(4, 3).t()
    lib.normal(m, lib.ones(3, 4), out=o2)
    rec("normal.mt.out.t", o2)
    rec("bern.like.t", lib.bernoulli(lib.full((5, 3), 0.5).t()))
    rec("bern.p.t", lib.bernoulli(lib.full((5, 3), 0.5).t(), 0.3))
    rec("normal.t.mean", lib.normal(lib.zeros(5, 3).t(), 1.0))
    rec("normal.t.std", lib.normal(0.0, lib.ones(5, 3).t()))
    rec("poisson.t", lib.poisson(lib.full((5, 3), 4.0).t()))
    rec("mn.t", lib.multinomial(lib.rand(4, 3).t(), 2))
    rec("bern_.t", lib.empty(4, 6).t().bernoulli_(lib.rand(6, 4)))
    rec("bern_.p", lib.empty(2, 3, 4).permute(2, 0, 1).bernoulli_(lib.linspace(0, 1, 3)))
    rec("bern_.pt", lib.empty(5, 3).bernoulli_(lib.rand(3, 5).t()))


PROGRAMS = [
    "generator",
    "fork_rng",
    "randint_ranges",
    "randperm",
    "rand_dtypes",
    "randn_sizes",
    "normal_tensor",
    "multinomial",
    "random_",
    "bernoulli",
    "dists",
    "openai_es",
    "cmaes",
    "cem",
    "nes",
    "genetic",
    "diffevo",
    "anneal",
    "pso",
    "importance",
    "particle",
    "mcmc",
    "bootstrap",
    "states",
    "fills",
    "randperm_big",
    "kw_forms",
    "layouts",
]


def _tol(name, value):
    """float64 to 1e-10 of the scale, float32 (and half, bfloat16) to 1e-4."""
    return 1e-10 if value.dtype == "float64" else 1e-4


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, rec=Rec(dtypes=True, first_line=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True, first_line=True))
    assert_records_match(want, got, _tol, rename=True)
