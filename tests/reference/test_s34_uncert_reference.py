"""Session 34 (helper uncert): predictive-uncertainty programs for deep nets written the way
such code is written in torch, run under torch and minitorch with the same seeds and compared
record by record: MC dropout (Dropout modules switched back to train after model.eval(),
model.apply(enable_dropout), F.dropout(training=True) in forward, T passes stacked or folded
into the batch by repeat/expand, masks from explicit Generators, fork_rng / get_rng_state
replays, Dropout2d/1d/3d, AlphaDropout on a SELU net, heteroscedastic heads with
gaussian_nll_loss and the aleatoric/epistemic split); deep ensembles (func.stack_module_state +
functional_call + vmap with in_dims (0, 0, None) and (0, 0, 0), out_dims and chunk_size,
BatchNorm members in eval mode, training by vmap(grad) and Adam over the stacked leaves,
Gaussian mixtures of members with an FGSM term, BatchEnsemble's rank-1 members); evidential
classification (Sensoy: MSE, digamma and log losses, the annealed KL to Dir(1) in lgamma /
digamma, checked against distributions.Dirichlet) and regression (Amini's Normal-Inverse-Gamma
NLL, its regulariser, StudentT predictive, double backward, gradcheck/gradgradcheck); prior
networks (Dirichlet KLs both ways); BALD (xlogy, special.entr, variation ratio, a joint
entropy); last-layer Laplace (per-sample gradients by vmap(grad) and by autograd.grad with
is_grads_batched, empirical Fisher and GGN diagonals, full GGN by autograd.functional.jacobian
/ func.jacrev / hessian / vhp / hvp, linalg.inv, cholesky, cholesky_inverse, solve_triangular,
the probit and generalised-probit predictive, MultivariateNormal sampling, a marginal
likelihood tuned by Adam through slogdet, KFAC factors from hooks with kron, the linearised
GLM predictive by jacrev of functional_call with jvp/vjp); SWA/SWAG (SWALR cos/linear with
anneal_epochs 0/1/3 and per-group swa_lr, after CosineAnnealingLR, its state_dict;
AveragedModel with every avg_fn / multi_avg_fn helper, use_buffers, a custom avg_fn;
update_bn over DataLoaders, lists and dicts; SWAG-diagonal moments, parameters_to_vector /
vector_to_parameters sampling); hand-written EMAs (lerp_, _foreach_lerp_, _foreach_mul_ +
_foreach_add_); and the errors users hit (vmap in_dims/out_dims structure, range, type and
size mismatches, random ops under randomness='error', stack_module_state of models of other
shapes, classes, modes and requires_grad, functional_call's strict / tied / unexpected keys,
AveragedModel's avg_fn misuse, SWALR's arguments, update_bn's loaders and lazy modules).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- lerp_ / addcmul_ / addcdiv_ (and _foreach_lerp_, hence an EMA of a model whose shapes
  differ) on shapes that do not broadcast raised NumPy's "operands could not be broadcast
  together" ValueError from the in-place fast path; now torch's "The size of tensor a (3) must
  match the size of tensor b (4) at non-singleton dimension 1" RuntimeError.
- AveragedModel.update_parameters with a model of fewer parameters (a bias=False copy) raised
  "zip() argument 2 is shorter than argument 1"; torch zips them (strict=False) and averages
  the pairs there are.
- get_ema_multi_avg_fn / get_swa_multi_avg_fn are now torch's code: _foreach_lerp_ on lists
  whose first tensor is float, so one given as avg_fn (called with tensors) raises torch's
  _foreach_lerp_ TypeError where minitorch lerped rows in place and then failed on copy_(None);
  integer tensors (use_buffers=True's num_batches_tracked) go through _foreach_addcdiv_ /
  _foreach_add_(alpha=float) and raise torch's errors, where minitorch averaged and truncated.
- BatchNorm1d/2d/3d, SyncBatchNorm and InstanceNorm check their input with input.dim(): a
  dict from update_bn's loader gives torch's "'dict' object has no attribute 'dim'" (was
  'ndim').
- A lazy module's uninitialised buffer (LazyBatchNorm1d's running_mean, reached by update_bn)
  named torch.nn.parameter.UninitializedParameter in its ValueError; torch names the
  placeholder's class, UninitializedBuffer.
- vmap(in_dims=(0, True)): torch asks size(True) and raises "size(): argument 'dim' (position
  1) must be int, not bool"; minitorch read True as dim 1 and reported mismatched sizes.

Known and left (documented):
- polygamma(1, x) (trigamma: digamma's gradient, so every gradient through a Dirichlet KL or
  entropy) is torch's ATen kernel there, a six-step shift and four-term series up to ~5e-10
  off the exact function in float64; minitorch computes it to ~2 ulps (NOTE [ Trigamma ]),
  which tests/test_s20_perf_special.py pins against mpmath. The two gradient records that see
  it (evidential_cls g0, dirichlet_prior_net g) are compared to 2e-9 in float64; a patch
  computing torch's kernel is at /tmp/s34/uncert_trigamma.patch (a decision for the session).
- vmap runs func once per sample (see minitorch/func/_vmap.py): outputs' grad_fn is
  StackBackward0, errors that come from torch's batching rules differ (F.linear with an
  unbatched bias of the wrong shape, in_dims over a feature dimension into a matmul), .item()
  inside vmap works; these are not recorded.
- vmap(chunk_size=1.5): torch fails with Python's "can't multiply sequence by non-int of type
  'float'"; minitorch names chunk_size. Not recorded.
- Nodes carry a private `_saved` attribute that dir() lists beside torch's _saved_* names.
- NumPy's floating-point RuntimeWarnings (log of 0 in xlogy, 0/0 in Dirichlet.mode) are
  silenced by a module filter; under warnings.simplefilter("always") they show where torch is
  silent (as in test_s33_calib's note). Programs record no such warnings.
- On a GPU, AveragedModel runs multi_avg_fn on its first call too (its result discarded, no
  read of the counter): get_swa_multi_avg_fn over integer buffers raises on that first call
  there, torch on the second.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "mc_enable_dropout", "mc_batched_passes", "mc_generator_masks", "mc_fork_rng",
    "mc_heteroscedastic", "mc_conv_dropout2d", "mc_alpha_dropout", "ensemble_vmap",
    "ensemble_vmap_minibatch", "ensemble_train", "ensemble_gaussian_mixture",
    "ensemble_errors", "vmap_errors", "vmap_randomness", "evidential_cls", "evidential_reg",
    "dirichlet_prior_net", "bald", "laplace_per_sample", "laplace_full_ggn",
    "laplace_multiclass", "laplace_marglik", "laplace_kron", "laplace_glm_predictive",
    "swag_diag", "swa_ema", "swalr_schedules", "swa_errors", "update_bn_loaders",
    "swa_multi_misuse", "update_bn_errors", "ema_foreach", "mc_dropout_module",
    "batch_ensemble", "laplace_batched_grads", "evidential_gradcheck",
]  # fmt: skip

# Records whose float64 values go through digamma's gradient, torch's trigamma kernel: up to
# ~5e-10 off the exact function, which minitorch computes (see the module docstring).
_TRIGAMMA_RECORDS = {"evidential_cls": {"g0"}, "dirichlet_prior_net": {"g"}}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = None
    loose = _TRIGAMMA_RECORDS.get(name, set())
    if dt == "float64" and loose:
        tol = lambda n, a: 2e-9 if n in loose else 1e-10  # noqa: E731
    assert_program_matches(globals()["p_" + name], torch, dt, tol=tol)


# --- helpers ---


def _mlp(lib, dt, sizes, p=0.0, seed=0):
    """Linear/ReLU layers (with Dropout(p) after each hidden activation), seeded, cast to dt."""
    nn = lib.nn
    lib.manual_seed(seed)
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
            if p:
                layers.append(nn.Dropout(p))
    return nn.Sequential(*layers).to(dt)


def _entropy(lib, p, dim=-1):
    return -lib.xlogy(p, p).sum(dim)


def _mi_terms(lib, probs):
    """(predictive entropy, expected entropy, mutual information) of probs (T, N, C)."""
    mean = probs.mean(0)
    total = _entropy(lib, mean)
    expected = _entropy(lib, probs).mean(0)
    return total, expected, total - expected


def _flat_grad(lib, out, params, **kw):
    grads = lib.autograd.grad(out, params, **kw)
    return lib.cat([g.reshape(-1) for g in grads])


# --- MC dropout ---


def p_mc_enable_dropout(lib, dt, rec):
    """model.eval() then the Dropout modules put back in train mode (the enable_dropout idiom);
    T stochastic passes stacked; predictive mean/variance, entropy, expected entropy, BALD."""
    model = _mlp(lib, dt, [5, 16, 16, 3], p=0.3)
    model.eval()
    for m in model.modules():
        if m.__class__.__name__.startswith("Dropout"):
            m.train()
    rec("modes", str([m.training for m in model]))
    x = _randn(lib, dt, 1, 7, 5)
    lib.manual_seed(11)
    with lib.no_grad():
        logits = lib.stack([model(x) for _ in range(8)])
    probs = logits.softmax(-1)
    rec("logits", logits)
    rec("mean", probs.mean(0))
    rec("var", probs.var(0))
    rec("std_unbiased_false", probs.std(0, unbiased=False))
    total, expected, mi = _mi_terms(lib, probs)
    rec("total", total)
    rec("expected", expected)
    rec("mi", mi)
    rec("log_pred", lib.logsumexp(logits.log_softmax(-1), 0) - math.log(8))
    rec("rng_after", lib.rand(3, dtype=dt))
    model.eval()
    with lib.no_grad():
        rec("det", model(x))


def p_mc_batched_passes(lib, dt, rec):
    """The T passes folded into the batch (x repeated / expanded), F.dropout(training=True)
    in the forward; gradients of the MC-averaged NLL; inplace dropout on a non-leaf."""
    F = lib.nn.functional
    lib.manual_seed(3)
    w1 = _randn(lib, dt, 2, 4, 10).requires_grad_(True)
    w2 = _randn(lib, dt, 3, 10, 3).requires_grad_(True)
    x = _randn(lib, dt, 4, 6, 4)
    y = lib.tensor([0, 1, 2, 1, 0, 2])
    T = 5
    xr = x.unsqueeze(0).expand(T, -1, -1).reshape(T * 6, 4)
    h = F.relu(xr @ w1)
    h = F.dropout(h, p=0.25, training=True)
    logits = F.dropout(h @ w2, 0.1, True, inplace=True).view(T, 6, 3)
    rec("logits", logits)
    logp = lib.logsumexp(logits.log_softmax(-1), 0) - math.log(T)
    nll = F.nll_loss(logp, y)
    rec("nll", nll)
    nll.backward()
    rec("gw1", w1.grad)
    rec("gw2", w2.grad)
    xs = x.repeat(T, 1)
    rec("repeat_eq", (xs.view(T, 6, 4) == xr.view(T, 6, 4)).all())
    out = F.dropout(xs, 0.5, training=False)
    rec("eval_identity", out is xs)
    rec("grad_fn", type(logits.grad_fn).__name__)


def p_mc_generator_masks(lib, dt, rec):
    """Masks drawn from explicit Generators (bernoulli of a probability tensor, rand < keep) so
    the T passes are reproducible and shared between two models (common random numbers)."""
    g = _gen(lib, 7)
    x = _randn(lib, dt, 8, 6, 4)
    w = _randn(lib, dt, 9, 4, 8)
    v = _randn(lib, dt, 10, 8, 2)
    keep = 0.8
    outs = []
    masks = []
    for _ in range(4):
        m = lib.bernoulli(lib.full((6, 8), keep, dtype=dt), generator=g)
        masks.append(m)
        outs.append(((x @ w).tanh() * m / keep) @ v)
    outs = lib.stack(outs)
    rec("masks", lib.stack(masks))
    rec("outs", outs)
    rec("mean", outs.mean(0))
    rec("var", outs.var(0, unbiased=True))
    g2 = _gen(lib, 7)
    m2 = (lib.rand(4, 6, 8, generator=g2, dtype=dt) < keep).to(dt)
    rec("rand_masks", m2)
    g3 = _gen(lib, 5)
    m3 = lib.empty(4, 6, 8, dtype=dt).bernoulli_(keep, generator=g3)
    rec("bernoulli_", m3)
    rec("state_len", g.get_state().numel())
    g4 = lib.Generator()
    g4.set_state(g.get_state())
    rec("replay", lib.bernoulli(lib.full((3,), 0.5, dtype=dt), generator=g4))
    rec("orig", lib.bernoulli(lib.full((3,), 0.5, dtype=dt), generator=g))


def p_mc_fork_rng(lib, dt, rec):
    """The same MC-dropout draws replayed with fork_rng / get_rng_state / set_rng_state, and a
    model's training flag restored after the passes."""
    model = _mlp(lib, dt, [3, 12, 2], p=0.5, seed=4)
    x = _randn(lib, dt, 12, 5, 3)
    lib.manual_seed(21)
    state = lib.get_rng_state()
    with lib.random.fork_rng():
        a = lib.stack([model(x) for _ in range(3)])
    b = lib.stack([model(x) for _ in range(3)])
    rec("a", a)
    rec("same", lib.equal(a, b))
    lib.set_rng_state(state)
    c = model(x)
    rec("c", c)
    rec("c_eq_a0", lib.allclose(c, a[0]))
    d = lib.stack([model(x) for _ in range(200)]).detach()
    rec("zero_frac", (d == 0).to(dt).mean())
    rec("initial_seed", lib.initial_seed())
    a.sum().backward()
    rec("grad0", model[0].weight.grad)


def p_mc_heteroscedastic(lib, dt, rec):
    """A mean/log-variance regression head trained two Adam steps with MC dropout; aleatoric
    (mean of variances) + epistemic (variance of means) decomposition; gaussian_nll_loss."""
    F = lib.nn.functional
    model = _mlp(lib, dt, [2, 16, 2], p=0.2, seed=5)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    x = _randn(lib, dt, 13, 20, 2)
    y = (x[:, :1] * 2).sin() + 0.1 * _randn(lib, dt, 14, 20, 1)
    lib.manual_seed(8)
    for step in range(2):
        opt.zero_grad()
        out = model(x)
        mu, logvar = out[:, :1], out[:, 1:]
        loss = F.gaussian_nll_loss(mu, y, logvar.exp(), full=True)
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    with lib.no_grad():
        outs = lib.stack([model(x) for _ in range(6)])
    mus, var = outs[..., :1], outs[..., 1:].exp()
    rec("aleatoric", var.mean(0))
    rec("epistemic", mus.var(0, unbiased=False))
    total = var.mean(0) + mus.var(0, unbiased=False)
    rec("total", total)
    rec("nll_sum", F.gaussian_nll_loss(mus.mean(0), y, total, reduction="sum", eps=1e-4))
    rec("nll_none", F.gaussian_nll_loss(mus.mean(0), y, total.squeeze(-1), reduction="none"))


def p_mc_conv_dropout2d(lib, dt, rec):
    """A small conv net with Dropout2d (channels zeroed) kept on at eval; nn.Dropout2d on 3-d
    input (warns in torch), F.dropout2d/3d in training mode; T passes averaged."""
    nn = lib.nn
    lib.manual_seed(2)
    net = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Dropout2d(0.5),
        nn.Conv2d(4, 3, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    ).to(dt)  # fmt: skip
    net.eval()
    net[2].train()
    x = _randn(lib, dt, 15, 2, 2, 5, 5)
    lib.manual_seed(9)
    outs = lib.stack([net(x) for _ in range(4)])
    rec("outs", outs)
    rec("mean", outs.softmax(-1).mean(0))
    h = net[1](net[0](x))
    lib.manual_seed(9)
    d = net[2](h)
    rec("channel_zero", (d.abs().sum((-1, -2)) == 0))
    F = nn.functional
    lib.manual_seed(4)
    rec("d3", F.dropout3d(_randn(lib, dt, 16, 2, 3, 2, 2, 2), 0.4, training=True))
    lib.manual_seed(4)
    rec("d1", F.dropout1d(_randn(lib, dt, 17, 2, 3, 4), 0.4, training=True))
    outs.sum().backward()
    rec("gw", net[0].weight.grad)


def p_mc_alpha_dropout(lib, dt, rec):
    """A SELU net with AlphaDropout kept on for MC sampling (self-normalising nets); F.
    alpha_dropout and feature_alpha_dropout in training mode."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(6)
    net = nn.Sequential(nn.Linear(4, 8), nn.SELU(), nn.AlphaDropout(0.2), nn.Linear(8, 2)).to(dt)
    net.eval()
    net[2].train()
    x = _randn(lib, dt, 18, 5, 4)
    lib.manual_seed(1)
    outs = lib.stack([net(x) for _ in range(5)])
    rec("outs", outs)
    rec("var", outs.var(0))
    lib.manual_seed(2)
    rec("alpha", F.alpha_dropout(_randn(lib, dt, 19, 3, 4), 0.3, training=True))
    lib.manual_seed(2)
    rec("feature_alpha", F.feature_alpha_dropout(_randn(lib, dt, 19, 2, 3, 4), 0.3, True))
    outs.pow(2).sum().backward()
    rec("gw", net[0].weight.grad)


# --- deep ensembles ---


def _members(lib, dt, n, sizes, p=0.0):
    return [_mlp(lib, dt, sizes, p=p, seed=100 + i) for i in range(n)]


def p_ensemble_vmap(lib, dt, rec):
    """stack_module_state + functional_call on a 'meta'-free base copy, vmap(in_dims=(0, 0,
    None)) over the members; compared with the loop; mean/variance/disagreement."""
    func = lib.func
    models = _members(lib, dt, 4, [3, 8, 2])
    params, buffers = func.stack_module_state(models)
    rec("keys", str(sorted(params)))
    rec("shapes", str([tuple(v.shape) for v in params.values()]))
    rec("leaf", str([(v.is_leaf, v.requires_grad) for v in params.values()]))
    base = models[0]

    def fmodel(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    x = _randn(lib, dt, 20, 6, 3)
    out = func.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    rec("out", out)
    loop = lib.stack([m(x) for m in models])
    rec("loop_close", lib.allclose(out, loop))
    probs = out.softmax(-1)
    rec("mean", probs.mean(0))
    rec("mi", _mi_terms(lib, probs)[2])
    votes = out.argmax(-1)
    rec("votes", votes)
    out.pow(2).mean().backward()
    rec("g", str(sorted((k, tuple(v.grad.shape)) for k, v in params.items())))
    rec("g0", params["0.weight"].grad)
    out2 = func.vmap(fmodel, in_dims=(0, 0, None), out_dims=1)(params, buffers, x)
    rec("out_dims1", out2)
    out3 = func.vmap(fmodel, in_dims=(0, 0, None), chunk_size=3)(params, buffers, x)
    rec("chunked", out3)


def p_ensemble_vmap_minibatch(lib, dt, rec):
    """Each member gets its own minibatch: vmap(in_dims=(0, 0, 0)); a BatchNorm ensemble in eval
    mode with its stacked running statistics as buffers."""
    func = lib.func
    nn = lib.nn
    models = []
    for i in range(3):
        lib.manual_seed(30 + i)
        m = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.Tanh(), nn.Linear(5, 1)).to(dt)
        m[1].running_mean.normal_()
        m[1].running_var.uniform_(0.5, 1.5)
        m.eval()
        models.append(m)
    params, buffers = func.stack_module_state(models)
    rec("buffers", str(sorted((k, tuple(v.shape), v.requires_grad) for k, v in buffers.items())))
    base = models[0]
    xs = _randn(lib, dt, 21, 3, 4, 3)

    def fmodel(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    out = func.vmap(fmodel)(params, buffers, xs)
    rec("out", out)
    rec("loop", lib.stack([m(x) for m, x in zip(models, xs, strict=True)]))
    out.sum().backward()
    rec("g_bn", params["1.weight"].grad)


def p_ensemble_train(lib, dt, rec):
    """Ensemble training in one vmapped step: grad of the per-member loss via func.grad under
    vmap, then Adam over the stacked parameters; members diverge from their own inits."""
    func = lib.func
    F = lib.nn.functional
    models = _members(lib, dt, 3, [2, 6, 3])
    base = models[0]
    params, buffers = func.stack_module_state(models)
    x = _randn(lib, dt, 22, 10, 2)
    y = lib.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])

    def loss_fn(p, b, x, y):
        return F.cross_entropy(func.functional_call(base, (p, b), (x,)), y)

    grads = func.vmap(func.grad(loss_fn), in_dims=(0, 0, None, None))(params, buffers, x, y)
    rec("grads", str(sorted((k, tuple(v.shape)) for k, v in grads.items())))
    rec("g_w0", grads["0.weight"])
    opt = lib.optim.Adam(list(params.values()), lr=0.05)
    for step in range(3):
        opt.zero_grad()
        losses = func.vmap(loss_fn, in_dims=(0, 0, None, None))(params, buffers, x, y)
        rec(f"losses{step}", losses)
        losses.sum().backward()
        opt.step()
    gv, lv = func.vmap(func.grad_and_value(loss_fn), in_dims=(0, 0, None, None))(
        params, buffers, x, y
    )
    rec("value", lv)
    rec("g_last", gv["2.bias"])


def p_ensemble_gaussian_mixture(lib, dt, rec):
    """Lakshminarayanan et al.: members with (mean, softplus variance) heads, an FGSM-smoothed
    loss, and the ensemble as a uniform mixture (mean, total variance, mixture NLL)."""
    F = lib.nn.functional
    models = _members(lib, dt, 3, [1, 10, 2])
    x = lib.linspace(-2, 2, 12, dtype=dt).unsqueeze(-1)
    y = x.pow(3) * 0.5 + 0.1 * _randn(lib, dt, 23, 12, 1)

    def head(m, inp):
        out = m(inp)
        return out[:, :1], F.softplus(out[:, 1:]) + 1e-6

    for i, m in enumerate(models):
        opt = lib.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            xa = x.clone().requires_grad_(True)
            mu, var = head(m, xa)
            nll = F.gaussian_nll_loss(mu, y, var)
            (gx,) = lib.autograd.grad(nll, xa, retain_graph=True)
            x_adv = (x + 0.01 * gx.sign()).detach()
            mu2, var2 = head(m, x_adv)
            loss = nll + F.gaussian_nll_loss(mu2, y, var2)
            loss.backward()
            opt.step()
        rec(f"loss{i}", loss)
    with lib.no_grad():
        mus, vars_ = zip(*[head(m, x) for m in models], strict=True)
        mus, vars_ = lib.stack(mus), lib.stack(vars_)
    mean = mus.mean(0)
    var = (vars_ + mus.pow(2)).mean(0) - mean.pow(2)
    rec("mean", mean)
    rec("var", var)
    comp = lib.distributions.Normal(mus.squeeze(-1).T, vars_.sqrt().squeeze(-1).T)
    mix = lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=lib.zeros(12, 3, dtype=dt)), comp
    )
    rec("mix_nll", -mix.log_prob(y.squeeze(-1)).mean())
    rec("mix_var", mix.variance)


def p_ensemble_errors(lib, dt, rec):
    """stack_module_state / functional_call errors: different shapes, classes, modes, no models,
    mixed requires_grad; functional_call's strict and tied keys, unexpected keys."""
    func = lib.func
    nn = lib.nn
    a = _mlp(lib, dt, [3, 4, 2])
    b = _mlp(lib, dt, [3, 5, 2])
    rec.err("shapes", lambda: func.stack_module_state([a, b]))
    rec.err("empty", lambda: func.stack_module_state([]))
    c = _mlp(lib, dt, [3, 4, 2])
    c.eval()
    rec.err("modes", lambda: func.stack_module_state([a, c]))
    c.train()
    c[0].weight.requires_grad_(False)
    rec.err("req_grad", lambda: func.stack_module_state([a, c]))
    lin = nn.Linear(3, 2).to(dt)
    rec.err("classes", lambda: func.stack_module_state([lin, nn.Linear(3, 2).to(dt)]))
    rec.err("classes2", lambda: func.stack_module_state([a, nn.Sequential(nn.Linear(3, 2))]))
    x = _randn(lib, dt, 24, 2, 3)
    p = {k: v.detach() for k, v in a.named_parameters()}
    rec.err("strict_missing", lambda: func.functional_call(a, {"0.weight": p["0.weight"]}, x,
                                                           strict=True))  # fmt: skip
    extra = dict(p, foo=lib.zeros(1, dtype=dt))
    rec.err("unexpected", lambda: func.functional_call(a, extra, (x,), strict=True))
    rec.err("unexpected_loose", lambda: func.functional_call(a, extra, (x,)).shape)
    rec.err("dup_keys", lambda: func.functional_call(a, (p, p), (x,)))
    rec.err("wrong_shape", lambda: func.functional_call(a, dict(p, **{"0.weight": p["2.weight"]}),
                                                        (x,)))  # fmt: skip

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Linear(3, 3)
            self.dec = nn.Linear(3, 3)
            self.dec.weight = self.enc.weight

        def forward(self, x):
            return self.dec(self.enc(x))

    t = Tied().to(dt)
    w = _randn(lib, dt, 25, 3, 3)
    rec("tied", func.functional_call(t, {"enc.weight": w}, (x,)))
    rec.err("tied_both", lambda: func.functional_call(
        t, {"enc.weight": w, "dec.weight": w + 1}, (x,)))  # fmt: skip
    rec("untied", func.functional_call(t, {"enc.weight": w}, (x,), tie_weights=False))
    rec.err("args_not_tuple", lambda: func.functional_call(a, p, x).shape)
    rec.err("kwargs", lambda: func.functional_call(a, p, (), {"input": x}).shape)


def p_vmap_errors(lib, dt, rec):
    """The vmap errors ensemble code hits: in_dims of the wrong structure, an in_dim out of
    range, a non-tensor with an int in_dim, mismatched member counts, no batched input,
    out_dims not matching the outputs, non-tensor outputs, in_dims of the wrong type."""
    func = lib.func
    models = _members(lib, dt, 3, [3, 4, 2])
    params, buffers = func.stack_module_state(models)
    base = models[0]

    def fmodel(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    x = _randn(lib, dt, 26, 5, 3)
    rec.err("in_dims_short", lambda: func.vmap(fmodel, in_dims=(0, 0))(params, buffers, x))
    rec.err("in_dims_list", lambda: func.vmap(fmodel, in_dims=[0, 0, None])(params, buffers, x))
    rec.err("x_mapped", lambda: func.vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, x))
    rec.err("in_dim_range", lambda: func.vmap(fmodel, in_dims=(0, 0, 2))(params, buffers, x))
    rec.err("in_dim_float", lambda: func.vmap(fmodel, in_dims=(0, 0, 0.5))(params, buffers, x))
    rec.err("non_tensor", lambda: func.vmap(lambda a, s: a * s, in_dims=(0, 0))(x, 2.0))
    rec.err("none_mapped", lambda: func.vmap(fmodel, in_dims=(None, None, None))(
        params, buffers, x))  # fmt: skip
    rec.err("no_inputs", lambda: func.vmap(lambda: x)())
    few = {k: v[:2] for k, v in params.items()}
    rec.err("sizes", lambda: func.vmap(fmodel, in_dims=(0, 0, None))(
        dict(params, **{"0.bias": few["0.bias"]}), buffers, x))  # fmt: skip
    rec.err("dict_dims", lambda: func.vmap(fmodel, in_dims=({"0.weight": 0}, 0, None))(
        params, buffers, x))  # fmt: skip
    rec.err("out_dims", lambda: func.vmap(lambda a: (a, a), out_dims=(0, 0, 0))(x))
    rec.err("out_dims_type", lambda: func.vmap(lambda a: a, out_dims="0")(x))
    rec.err("returns_float", lambda: func.vmap(lambda a: 1.0)(x))
    rec.err("returns_none_dim", lambda: func.vmap(lambda a: a * 2, out_dims=None)(x))
    rec.err("randomness", lambda: func.vmap(lambda a: a, randomness="sometimes"))
    rec.err("chunk0", lambda: func.vmap(lambda a: a, chunk_size=0))
    rec.err("in_dim_bool", lambda: func.vmap(fmodel, in_dims=(0, 0, True))(params, buffers, x))
    ok = func.vmap(lambda a, s: a * s, in_dims=(0, None))(x, 2.0)
    rec("ok_scalar", ok)
    rec("neg_dim", func.vmap(lambda a: a.sum(), in_dims=-1)(x))


def p_vmap_randomness(lib, dt, rec):
    """Dropout inside a vmapped ensemble: the default randomness='error' refuses it (and leaves
    the generator where it was); randomness='same' gives every member the same mask."""
    func = lib.func
    F = lib.nn.functional
    x = _randn(lib, dt, 27, 3, 4, 6)
    lib.manual_seed(0)
    rec.err("error_mode", lambda: func.vmap(lambda a: F.dropout(a, 0.5, True))(x))
    rec("rng_kept", lib.rand(2, dtype=dt))
    ones = lib.ones(3, 4, 6, dtype=dt)
    lib.manual_seed(1)
    out = func.vmap(lambda a: F.dropout(a, 0.5, True), randomness="same")(ones)
    zeros = out == 0
    rec("same_mask", (zeros == zeros[0]).all())
    rec("kept_scale", out[out != 0].unique())
    rec.err("bernoulli_error", lambda: func.vmap(lambda a: lib.bernoulli(a))(ones * 0.5))
    rec("eval_ok", func.vmap(lambda a: F.dropout(a, 0.5, False))(x))


# --- evidential deep learning ---


def _kl_dirichlet_uniform(lib, alpha):
    """KL(Dir(alpha) || Dir(1)) of Sensoy et al. (lgamma, digamma)."""
    k = alpha.shape[-1]
    s = alpha.sum(-1, keepdim=True)
    first = lib.lgamma(s) - lib.lgamma(alpha).sum(-1, keepdim=True) - math.lgamma(k)
    second = ((alpha - 1) * (lib.digamma(alpha) - lib.digamma(s))).sum(-1, keepdim=True)
    return (first + second).squeeze(-1)


def p_evidential_cls(lib, dt, rec):
    """Sensoy et al.'s evidential classification: softplus / exp / relu evidence, the MSE,
    digamma and log losses with the annealed KL on misleading evidence; u = K / S; checked
    against distributions.Dirichlet's entropy and kl_divergence."""
    F = lib.nn.functional
    D = lib.distributions
    net = _mlp(lib, dt, [4, 12, 3], seed=7)
    x = _randn(lib, dt, 28, 9, 4)
    y = lib.tensor([0, 1, 2, 2, 1, 0, 1, 2, 0])
    onehot = F.one_hot(y, 3).to(dt)
    logits = net(x)
    for ev_name, ev in (
        ("softplus", F.softplus(logits)),
        ("exp", logits.clamp(-10, 10).exp()),
        ("relu", F.relu(logits)),
    ):
        alpha = ev + 1
        s = alpha.sum(-1, keepdim=True)
        p = alpha / s
        mse = ((onehot - p).pow(2) + p * (1 - p) / (s + 1)).sum(-1)
        dig = (onehot * (lib.digamma(s) - lib.digamma(alpha))).sum(-1)
        logl = (onehot * (s.log() - alpha.log())).sum(-1)
        alpha_t = onehot + (1 - onehot) * alpha
        kl = _kl_dirichlet_uniform(lib, alpha_t)
        anneal = min(1.0, 3 / 10)
        rec(ev_name + ".mse", mse)
        rec(ev_name + ".dig", dig)
        rec(ev_name + ".log", logl)
        rec(ev_name + ".kl", kl)
        rec(ev_name + ".u", 3 / s.squeeze(-1))
        if ev_name == "softplus":
            loss = (mse + anneal * kl).mean() + dig.mean()
            net.zero_grad()
            loss.backward(retain_graph=True)
            rec("g0", net[0].weight.grad)
            kl_ref = D.kl_divergence(D.Dirichlet(alpha_t), D.Dirichlet(lib.ones_like(alpha_t)))
            rec("kl_ref", kl_ref)
            rec("entropy", D.Dirichlet(alpha).entropy())
            rec("mean", D.Dirichlet(alpha).mean)
    rec("lgamma_big", lib.lgamma(lib.tensor([1e-8, 0.5, 1e6], dtype=dt)))
    rec("digamma_small", lib.digamma(lib.tensor([1e-6, 1.0, 40.0], dtype=dt)))


def p_evidential_reg(lib, dt, rec):
    """Amini et al.'s deep evidential regression: a Normal-Inverse-Gamma head (gamma, softplus
    nu / alpha+1 / beta), the NIG NLL (lgamma), the evidence regulariser, aleatoric
    beta/(alpha-1) and epistemic beta/(nu(alpha-1)); three Adam steps; double backward."""
    F = lib.nn.functional
    net = _mlp(lib, dt, [1, 16, 4], seed=8)
    x = lib.linspace(-3, 3, 16, dtype=dt).unsqueeze(-1)
    y = x.sin() + 0.05 * _randn(lib, dt, 29, 16, 1)

    def nig(out):
        gamma, lognu, logalpha, logbeta = out.split(1, dim=-1)
        return gamma, F.softplus(lognu), F.softplus(logalpha) + 1, F.softplus(logbeta)

    def nig_nll(y, gamma, nu, alpha, beta):
        omega = 2 * beta * (1 + nu)
        return (
            0.5 * lib.log(math.pi / nu)
            - alpha * lib.log(omega)
            + (alpha + 0.5) * lib.log(nu * (y - gamma) ** 2 + omega)
            + lib.lgamma(alpha)
            - lib.lgamma(alpha + 0.5)
        )

    opt = lib.optim.Adam(net.parameters(), lr=5e-3)
    for step in range(3):
        opt.zero_grad()
        gamma, nu, alpha, beta = nig(net(x))
        nll = nig_nll(y, gamma, nu, alpha, beta).mean()
        reg = ((y - gamma).abs() * (2 * nu + alpha)).mean()
        loss = nll + 0.01 * reg
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    gamma, nu, alpha, beta = nig(net(x))
    rec("gamma", gamma)
    rec("aleatoric", beta / (alpha - 1))
    rec("epistemic", beta / (nu * (alpha - 1)))
    xs = x.clone().requires_grad_(True)
    g2 = nig(net(xs))
    (gx,) = lib.autograd.grad(nig_nll(y, *g2).sum(), xs, create_graph=True)
    (gxx,) = lib.autograd.grad(gx.pow(2).sum(), xs)
    rec("gx", gx)
    rec("gxx", gxx)
    st = lib.distributions.StudentT(2 * alpha, gamma, (beta * (1 + nu) / (nu * alpha)).sqrt())
    rec("student_lp", st.log_prob(y))


def p_dirichlet_prior_net(lib, dt, rec):
    """Prior networks (Malinin & Gales): the reverse KL to a target Dirichlet (in-domain: a
    sharp target; OOD: flat), differential entropy, mutual information of the Dirichlet in
    closed form (digamma), expected entropy; gradients through Dirichlet.rsample."""
    D = lib.distributions
    net = _mlp(lib, dt, [3, 10, 4], seed=9)
    x = _randn(lib, dt, 30, 6, 3)
    y = lib.tensor([0, 1, 2, 3, 0, 1])
    alpha = net(x).exp().clamp(max=1e3) + 1e-2
    target = lib.ones_like(alpha) + 99 * lib.nn.functional.one_hot(y, 4).to(dt)
    rkl = D.kl_divergence(D.Dirichlet(alpha), D.Dirichlet(target))
    fkl = D.kl_divergence(D.Dirichlet(target), D.Dirichlet(alpha))
    rec("rkl", rkl)
    rec("fkl", fkl)
    a0 = alpha.sum(-1, keepdim=True)
    p = alpha / a0
    exp_ent = -(p * (lib.digamma(alpha + 1) - lib.digamma(a0 + 1))).sum(-1)
    tot = _entropy(lib, p)
    rec("mi", tot - exp_ent)
    rec("diff_entropy", D.Dirichlet(alpha).entropy())
    (rkl.mean() + 0.1 * fkl.mean()).backward()
    rec("g", net[2].weight.grad)
    lib.manual_seed(12)
    s = D.Dirichlet(alpha.detach().requires_grad_(True)).rsample((3,))
    rec("rsample", s)


def p_bald(lib, dt, rec):
    """BALD acquisition over an unlabelled pool: MC-dropout probabilities (T, N, C), entropy via
    xlogy / special.entr, the mutual information, variation ratio, mean std; topk of a
    tie-free score; BatchBALD-style joint entropy of two points by einsum."""
    model = _mlp(lib, dt, [4, 20, 3], p=0.4, seed=10)
    model.train()
    pool = _randn(lib, dt, 31, 11, 4)
    lib.manual_seed(5)
    with lib.no_grad():
        probs = lib.stack([model(pool).softmax(-1) for _ in range(10)])
    total, expected, mi = _mi_terms(lib, probs)
    rec("total", total)
    rec("entr", lib.special.entr(probs.mean(0)).sum(-1))
    rec("expected", expected)
    rec("bald", mi)
    top = mi.topk(3)
    rec("top_values", top.values)
    counts = lib.nn.functional.one_hot(probs.argmax(-1), 3).sum(0)
    rec("var_ratio", 1 - counts.max(-1).values / 10)
    rec("mean_std", probs.std(0).mean(-1))
    joint = lib.einsum("ti,tj->ij", probs[:, 0], probs[:, 1]) / 10
    rec("joint_entropy", -lib.xlogy(joint, joint).sum())
    rec("xlogy_zero", lib.xlogy(lib.zeros(2, dtype=dt), lib.tensor([0.0, float("nan")], dtype=dt)))
    rec("entr_edge", lib.special.entr(lib.tensor([0.0, -1.0, 1.0, float("inf")], dtype=dt)))


# --- last-layer Laplace ---


def _features_and_head(lib, dt, seed, d_in=3, d_feat=5, k=1):
    nn = lib.nn
    lib.manual_seed(seed)
    feat = nn.Sequential(nn.Linear(d_in, d_feat), nn.Tanh()).to(dt)
    head = nn.Linear(d_feat, k).to(dt)
    return feat, head


def p_laplace_per_sample(lib, dt, rec):
    """Binary last-layer Laplace: per-sample gradients of the head by vmap(grad(...)) over
    functional_call, the empirical Fisher and the GGN (sigma'(f) phi phi^T) diagonals, a full
    posterior by linalg.inv and cholesky_inverse, and the probit predictive."""
    func = lib.func
    F = lib.nn.functional
    feat, head = _features_and_head(lib, dt, 40)
    x = _randn(lib, dt, 32, 14, 3)
    y = (x[:, 0] > 0).to(dt)
    with lib.no_grad():
        phi = feat(x)
    hp = {k: v.detach() for k, v in head.named_parameters()}

    def loss1(p, f, t):
        out = func.functional_call(head, p, (f.unsqueeze(0),)).squeeze()
        return F.binary_cross_entropy_with_logits(out, t)

    g = func.vmap(func.grad(loss1), in_dims=(None, 0, 0))(hp, phi, y)
    gflat = lib.cat([g["weight"].reshape(14, -1), g["bias"].reshape(14, -1)], 1)
    rec("per_sample", gflat)
    loop = []
    for i in range(14):
        head.zero_grad()
        loss1(dict(head.named_parameters()), phi[i], y[i]).backward()
        loop.append(lib.cat([head.weight.grad.reshape(-1), head.bias.grad]))
    rec("loop_close", lib.allclose(lib.stack(loop), gflat))
    ef = gflat.pow(2).sum(0)
    rec("ef_diag", ef)
    with lib.no_grad():
        f = head(phi).squeeze(-1)
    lam = lib.sigmoid(f) * (1 - lib.sigmoid(f))
    J = lib.cat([phi, lib.ones(14, 1, dtype=dt)], 1)
    ggn = (J * lam.unsqueeze(-1)).T @ J
    prior = 1.0
    P = ggn + prior * lib.eye(6, dtype=dt)
    rec("ggn_diag", lib.diagonal(ggn))
    cov = lib.linalg.inv(P)
    L = lib.linalg.cholesky(P)
    rec("chol_inv", lib.cholesky_inverse(L))
    rec("inv_close", lib.allclose(cov, lib.cholesky_inverse(L)))
    rec("cov_diag_post", 1 / (ef + prior))
    xt = _randn(lib, dt, 33, 5, 3)
    with lib.no_grad():
        phit = feat(xt)
        ft = head(phit).squeeze(-1)
    Jt = lib.cat([phit, lib.ones(5, 1, dtype=dt)], 1)
    fvar = ((Jt @ cov) * Jt).sum(-1)
    kappa = 1 / lib.sqrt(1 + math.pi / 8 * fvar)
    rec("fvar", fvar)
    rec("probit", lib.sigmoid(kappa * ft))
    rec("map", lib.sigmoid(ft))
    rec("logdet", lib.logdet(P))


def p_laplace_full_ggn(lib, dt, rec):
    """The GGN by autograd: the Jacobian of the head's output w.r.t. its flattened parameters
    (autograd.functional.jacobian, func.jacrev) and the Hessian of the loss in the outputs; the
    full Hessian of the loss (autograd.functional.hessian) compared with the GGN for a GLM."""
    AF = lib.autograd.functional
    F = lib.nn.functional
    func = lib.func
    feat, head = _features_and_head(lib, dt, 41, k=1)
    x = _randn(lib, dt, 34, 8, 3)
    y = _randn(lib, dt, 35, 8)
    with lib.no_grad():
        phi = feat(x)
    theta0 = lib.cat([head.weight.detach().reshape(-1), head.bias.detach()])

    def f(theta):
        w, b = theta[:5].view(1, 5), theta[5:]
        return (phi @ w.T + b).squeeze(-1)

    J = AF.jacobian(f, theta0)
    rec("J", J)
    Jr = func.jacrev(f)(theta0)
    rec("jacrev_close", lib.allclose(J, Jr))
    ggn = J.T @ J  # Gaussian likelihood, unit noise
    rec("ggn", ggn)

    def loss(theta):
        return 0.5 * F.mse_loss(f(theta), y, reduction="sum")

    H = AF.hessian(loss, theta0)
    rec("hess", H)
    rec("hess_eq_ggn", lib.allclose(H, ggn))
    Hf = func.hessian(loss)(theta0)
    rec("func_hess", Hf)
    P = ggn + 0.5 * lib.eye(6, dtype=dt)
    Lc = lib.linalg.cholesky(P)
    Linv = lib.linalg.solve_triangular(Lc, lib.eye(6, dtype=dt), upper=False)
    rec("cov", Linv.T @ Linv)
    rec("cov_ref", lib.cholesky_inverse(Lc))
    rec("upper", lib.cholesky_inverse(Lc.T, upper=True))
    vhp = AF.vhp(loss, theta0, lib.ones(6, dtype=dt))[1]
    rec("vhp", vhp)
    rec("hvp", AF.hvp(loss, theta0, lib.ones(6, dtype=dt))[1])


def p_laplace_multiclass(lib, dt, rec):
    """Multiclass last-layer Laplace: the softmax GGN sum_n J_n^T (diag(p) - p p^T) J_n by
    einsum with kron-structured Jacobians, the posterior covariance, the linearised predictive
    variance of the logits, the generalised probit and MC sampling by MultivariateNormal."""
    D = lib.distributions
    feat, head = _features_and_head(lib, dt, 42, d_feat=3, k=3)
    x = _randn(lib, dt, 36, 10, 3)
    with lib.no_grad():
        phi = feat(x)
        logits = head(phi)
    p = logits.softmax(-1)
    Lam = lib.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    phi1 = lib.cat([phi, lib.ones(10, 1, dtype=dt)], 1)  # bias as a feature
    # J_n = I_K kron phi_n^T: the GGN is sum_n Lam_n kron phi_n phi_n^T
    G = lib.einsum("nij,na,nb->iajb", Lam, phi1, phi1).reshape(12, 12)
    rec("G", G)
    Gk = sum(lib.kron(Lam[n], lib.outer(phi1[n], phi1[n])) for n in range(10))
    rec("kron_close", lib.allclose(G, Gk))
    cov = lib.linalg.inv(G + lib.eye(12, dtype=dt))
    rec("cov_sym", (cov - cov.T).abs().max())
    xt = _randn(lib, dt, 37, 4, 3)
    with lib.no_grad():
        pt = lib.cat([feat(xt), lib.ones(4, 1, dtype=dt)], 1)
        ft = head(feat(xt))
    Jt = lib.einsum("ij,na->nija", lib.eye(3, dtype=dt), pt).reshape(4, 3, 12)
    fcov = Jt @ cov @ Jt.transpose(-1, -2)
    rec("fcov", fcov)
    kappa = 1 / lib.sqrt(1 + math.pi / 8 * lib.diagonal(fcov, dim1=-2, dim2=-1))
    rec("probit", (kappa * ft).softmax(-1))
    lib.manual_seed(3)
    mvn = D.MultivariateNormal(ft, covariance_matrix=fcov)
    samples = mvn.sample((50,))
    rec("mc", samples.softmax(-1).mean(0))
    rec("scale_tril", mvn.scale_tril)
    rec("lp", mvn.log_prob(ft))


def p_laplace_marglik(lib, dt, rec):
    """The Laplace evidence of a linear-Gaussian last layer tuned over the log prior precision
    and log noise by Adam (slogdet, logdet of cholesky factors); the optimum's posterior."""
    feat, head = _features_and_head(lib, dt, 43, d_feat=4)
    x = _randn(lib, dt, 38, 20, 3)
    y = _randn(lib, dt, 39, 20)
    with lib.no_grad():
        phi = lib.cat([feat(x), lib.ones(20, 1, dtype=dt)], 1)
        theta = lib.cat([head.weight.reshape(-1), head.bias])
    log_prior = lib.zeros((), dtype=dt, requires_grad=True)
    log_sigma = lib.zeros((), dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([log_prior, log_sigma], lr=0.1)
    for step in range(4):
        opt.zero_grad()
        prec = log_prior.exp()
        s2 = (2 * log_sigma).exp()
        P = phi.T @ phi / s2 + prec * lib.eye(5, dtype=dt)
        resid = y - phi @ theta
        sign, logdet = lib.linalg.slogdet(P)
        mlik = (
            -0.5 * (resid.pow(2).sum() / s2)
            - 10 * lib.log(2 * math.pi * s2)
            - 0.5 * prec * theta.pow(2).sum()
            + 2.5 * log_prior
            - 0.5 * logdet
        )
        (-mlik).backward()
        rec(f"mlik{step}", mlik)
        rec(f"sign{step}", sign)
        opt.step()
    rec("log_prior", log_prior)
    rec("log_sigma", log_sigma)
    L = lib.linalg.cholesky(P.detach())
    rec("logdet_chol", 2 * L.diagonal().log().sum())
    rec("logdet", lib.logdet(P.detach()))


def p_laplace_kron(lib, dt, rec):
    """A KFAC Laplace of a linear layer: A = E[a a^T], G = E[g g^T] from hooks, the
    Kronecker-factored precision's inverse by kron of the damped factors' inverses, and the
    predictive variance; eigvalsh of the factors (no eigenvectors: their signs are free)."""
    F = lib.nn.functional
    lib.manual_seed(44)
    layer = lib.nn.Linear(4, 3).to(dt)
    acts, grads = [], []
    layer.register_forward_hook(lambda m, i, o: acts.append(i[0].detach()))
    layer.register_full_backward_hook(lambda m, gi, go: grads.append(go[0].detach()))
    x = _randn(lib, dt, 40, 16, 4)
    y = lib.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
    out = layer(x)
    F.cross_entropy(out, y, reduction="sum").backward()
    a, g = acts[0], grads[0]
    A = a.T @ a / 16
    G = g.T @ g / 16
    rec("A", A)
    rec("G", G)
    rec("eig_A", lib.linalg.eigvalsh(A))
    rec("eig_G", lib.linalg.eigvalsh(G + 1e-3 * lib.eye(3, dtype=dt)))
    damp = 0.1
    Ai = lib.linalg.inv(A + damp**0.5 * lib.eye(4, dtype=dt))
    Gi = lib.linalg.inv(G + damp**0.5 * lib.eye(3, dtype=dt))
    cov = lib.kron(Gi, Ai) / 16
    rec("cov", cov)
    xt = _randn(lib, dt, 41, 2, 4)
    J = lib.einsum("ij,na->nija", lib.eye(3, dtype=dt), xt).reshape(2, 3, 12)
    rec("fvar", (J @ cov @ J.transpose(1, 2)).diagonal(dim1=1, dim2=2))
    rec("grad_w", layer.weight.grad)


def p_laplace_glm_predictive(lib, dt, rec):
    """The linearised (GLM) predictive of a whole small net: jacrev of functional_call over a
    parameter dict, flattened to (N*K, P); the diagonal-GGN posterior; jvp/vjp checks."""
    func = lib.func
    net = _mlp(lib, dt, [2, 4, 2], seed=45)
    params = {k: v.detach() for k, v in net.named_parameters()}
    x = _randn(lib, dt, 42, 3, 2)

    def f(p):
        return func.functional_call(net, p, (x,))

    jac = func.jacrev(f)(params)
    rec("jac_keys", str([(k, tuple(v.shape)) for k, v in jac.items()]))
    J = lib.cat([v.reshape(6, -1) for v in jac.values()], 1)
    rec("J", J)
    with lib.no_grad():
        out = f(params)
    p = out.softmax(-1)
    Lam = lib.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    Jn = J.view(3, 2, -1)
    ggn_diag = lib.einsum("nkp,nkl,nlp->p", Jn, Lam, Jn)
    rec("ggn_diag", ggn_diag)
    var = 1 / (ggn_diag + 1.0)
    fvar = lib.einsum("nkp,p,nlp->nkl", Jn, var, Jn)
    rec("fvar", fvar)
    tangent = {k: lib.ones_like(v) for k, v in params.items()}
    _, jv = func.jvp(f, (params,), (tangent,))
    rec("jvp", jv)
    rec("jvp_close", lib.allclose(jv.reshape(-1), J.sum(1)))
    _, vjp_fn = func.vjp(f, params)
    (ct,) = vjp_fn(lib.ones_like(out))
    rec("vjp_w", ct["2.weight"])


# --- SWA / SWAG ---


def _bn_net(lib, dt, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 2)).to(dt)


def p_swag_diag(lib, dt, rec):
    """SWAG-diagonal: SGD with SWALR after a warm start, the first and second moments collected
    by AveragedModel-style running means and parameters_to_vector, a sample drawn with a seeded
    generator loaded by vector_to_parameters, update_bn, and the BMA prediction."""
    F = lib.nn.functional
    utils = lib.nn.utils
    swa = lib.optim.swa_utils
    model = _bn_net(lib, dt, 50)
    x = _randn(lib, dt, 43, 24, 3)
    y = lib.tensor([0, 1] * 12)
    loader = [(x[i : i + 8], y[i : i + 8]) for i in range(0, 24, 8)]
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    swa_model = swa.AveragedModel(model)
    sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")
    mean = lib.zeros_like(utils.parameters_to_vector(model.parameters()))
    sq = lib.zeros_like(mean)
    n = 0
    for epoch in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
        if epoch >= 1:
            swa_model.update_parameters(model)
            with lib.no_grad():
                v = utils.parameters_to_vector(model.parameters())
                mean = (n * mean + v) / (n + 1)
                sq = (n * sq + v * v) / (n + 1)
                n += 1
            sched.step()
        rec(f"lr{epoch}", lib.tensor(sched.get_last_lr()))
    rec("n_averaged", swa_model.n_averaged)
    avg = utils.parameters_to_vector(swa_model.parameters())
    rec("swa_mean_close", lib.allclose(avg, mean))
    var = (sq - mean**2).clamp(min=1e-30)
    rec("var", var)
    swa.update_bn([xb for xb, _ in loader], swa_model)
    bn = swa_model.module[1]
    rec("bn_mean", bn.running_mean)
    rec("bn_var", bn.running_var)
    rec("bn_count", bn.num_batches_tracked)
    g = _gen(lib, 77)
    preds = []
    sample_model = _bn_net(lib, dt, 50)
    for _ in range(3):
        z = lib.randn(mean.shape, generator=g, dtype=dt)
        utils.vector_to_parameters(mean + var.sqrt() * z, sample_model.parameters())
        swa.update_bn(loader, sample_model)
        sample_model.eval()
        with lib.no_grad():
            preds.append(sample_model(x).softmax(-1))
    rec("bma", lib.stack(preds).mean(0))
    swa_model.eval()
    rec("swa_pred", swa_model(x))


def p_swa_ema(lib, dt, rec):
    """AveragedModel with get_ema_multi_avg_fn / get_ema_avg_fn / get_swa_avg_fn /
    get_swa_multi_avg_fn, use_buffers=True (BatchNorm statistics averaged), a custom avg_fn
    and its n argument, state_dict keys and n_averaged."""
    swa = lib.optim.swa_utils
    F = lib.nn.functional
    model = _bn_net(lib, dt, 51)
    emas = {
        "multi": swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9)),
        "avg": swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.9)),
        "buffers": swa.AveragedModel(
            model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.8), use_buffers=True
        ),
        "swa_fn": swa.AveragedModel(model, avg_fn=swa.get_swa_avg_fn()),
        "swa_multi": swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn()),
    }
    ns = []
    emas["custom"] = swa.AveragedModel(
        model, avg_fn=lambda a, c, n: ns.append(int(n)) or 0.5 * a + 0.5 * c
    )
    opt = lib.optim.SGD(model.parameters(), lr=0.2)
    x = _randn(lib, dt, 44, 10, 3)
    y = lib.tensor([0, 1] * 5)
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        for m in emas.values():
            m.update_parameters(model)
    rec("ns", str(ns))
    for k, m in emas.items():
        rec(k + ".w", m.module[0].weight)
        rec(k + ".bn", m.module[1].running_mean)
        rec(k + ".n", m.n_averaged)
    rec("keys", str(list(emas["buffers"].state_dict().keys())))
    emas["buffers"].eval()
    rec("pred", emas["buffers"](x))
    rec("repr", repr(emas["multi"]))


def p_swalr_schedules(lib, dt, rec):
    """SWALR's cos and linear anneals (anneal_epochs 0, 1, 3), per-group swa_lr lists, after a
    CosineAnnealingLR phase (the torch SWA tutorial's switch at swa_start), get_last_lr and
    its state_dict round trip."""
    sw = lib.optim.swa_utils
    w = lib.zeros(2, dtype=dt, requires_grad=True)
    v = lib.zeros(2, dtype=dt, requires_grad=True)
    for strategy in ("cos", "linear"):
        for ae in (0, 1, 3):
            opt = lib.optim.SGD([{"params": [w]}, {"params": [v], "lr": 0.5}], lr=1.0)
            s = sw.SWALR(opt, swa_lr=[0.1, 0.2], anneal_epochs=ae, anneal_strategy=strategy)
            lrs = [s.get_last_lr()]
            for _ in range(5):
                opt.step()
                s.step()
                lrs.append(s.get_last_lr())
            rec(f"{strategy}{ae}", lib.tensor(lrs, dtype=lib.float64))
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
    cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa_s = sw.SWALR(opt, swa_lr=0.02, anneal_epochs=2)
    lrs = []
    for epoch in range(8):
        opt.step()
        if epoch >= 4:
            swa_s.step()
        else:
            cos.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("tutorial", lib.tensor(lrs, dtype=lib.float64))
    sd = swa_s.state_dict()
    rec("sd_keys", str(sorted(sd)))
    opt2 = lib.optim.SGD([w], lr=0.3)
    s2 = sw.SWALR(opt2, swa_lr=0.01, anneal_strategy="linear")
    s2.load_state_dict(sd)
    rec("loaded", str((s2.anneal_epochs, s2._anneal_strategy, s2.last_epoch)))
    rec.warns("get_lr_warns", lambda: s2.get_lr())


def p_swa_errors(lib, dt, rec):
    """The errors SWA users hit: both avg_fn and multi_avg_fn, a decay out of [0, 1], SWALR's
    anneal_strategy / anneal_epochs / swa_lr list length, an avg_fn of the wrong arity, an
    avg_fn returning the wrong shape, update_bn on a model without BatchNorm."""
    sw = lib.optim.swa_utils
    model = _bn_net(lib, dt, 52)
    fn = sw.get_swa_avg_fn()
    mfn = sw.get_swa_multi_avg_fn()
    rec.err("both", lambda: sw.AveragedModel(model, avg_fn=fn, multi_avg_fn=mfn))
    rec.err("decay", lambda: sw.get_ema_multi_avg_fn(1.5))
    rec.err("decay_neg", lambda: sw.get_ema_avg_fn(-0.1))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    rec.err("strategy", lambda: sw.SWALR(opt, 0.05, anneal_strategy="cosine"))
    rec.err("epochs", lambda: sw.SWALR(opt, 0.05, anneal_epochs=-1))
    rec.err("epochs_float", lambda: sw.SWALR(opt, 0.05, anneal_epochs=2.0))
    rec.err("swa_lr_len", lambda: sw.SWALR(opt, [0.05, 0.01]))
    bad = sw.AveragedModel(model, avg_fn=lambda a, c: a)
    bad.update_parameters(model)
    rec.err("arity", lambda: bad.update_parameters(model))
    wrong = sw.AveragedModel(model, avg_fn=lambda a, c, n: a.sum())
    wrong.update_parameters(model)
    rec.err("shape", lambda: wrong.update_parameters(model))
    plain = _mlp(lib, dt, [3, 4, 2])
    rec("no_bn", str(sw.update_bn([_randn(lib, dt, 45, 4, 3)], plain)))
    other = _mlp(lib, dt, [3, 5, 2])
    am = sw.AveragedModel(plain)
    am.update_parameters(plain)
    rec.err("other_model", lambda: am.update_parameters(other))
    rec.err("multi_bad", lambda: sw.AveragedModel(model, multi_avg_fn=fn).update_parameters(
        model) or sw.AveragedModel(model, multi_avg_fn=fn))  # fmt: skip


def p_update_bn_loaders(lib, dt, rec):
    """update_bn over a DataLoader of (x, y) pairs, a list of bare tensors, a dict-yielding
    loader (torch passes the dict on), with momentum restored and the model's mode kept."""
    sw = lib.optim.swa_utils
    data = lib.utils.data
    model = _bn_net(lib, dt, 53)
    model.eval()
    x = _randn(lib, dt, 46, 20, 3)
    y = lib.arange(20)
    loader = data.DataLoader(data.TensorDataset(x, y), batch_size=6)
    model[1].momentum = 0.3
    sw.update_bn(loader, model)
    rec("mean", model[1].running_mean)
    rec("var", model[1].running_var)
    rec("count", model[1].num_batches_tracked)
    rec("momentum", model[1].momentum)
    rec("training", model.training)
    rec("full_mean", x @ model[0].weight.detach().T + model[0].bias.detach())
    sw.update_bn([x[:10], x[10:]], model)
    rec("mean2", model[1].running_mean)

    class DictNet(lib.nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, batch):
            return self.net(batch["x"])

    dn = DictNet(model)
    rec.err("dicts", lambda: sw.update_bn([{"x": x[:7]}, {"x": x[7:]}], dn))
    rec("mean3", model[1].running_mean)
    model2 = _bn_net(lib, dt, 54)
    model2[1].momentum = None
    sw.update_bn(loader, model2)
    rec("momentum_none", str(model2[1].momentum))


def p_swa_multi_misuse(lib, dt, rec):
    """AveragedModel misuse: a multi_avg_fn given as avg_fn (called with tensors: torch's
    _foreach_lerp_ TypeError), get_swa_multi_avg_fn over integer buffers (use_buffers=True:
    num_batches_tracked, addcdiv's integer error), an EMA of a model whose shapes differ, and
    a model with fewer parameters (only the pairs zip makes are averaged)."""
    sw = lib.optim.swa_utils
    nn = lib.nn
    model = _bn_net(lib, dt, 55)
    x = _randn(lib, dt, 47, 6, 3)
    model(x)
    wrong = sw.AveragedModel(model, avg_fn=sw.get_ema_multi_avg_fn(0.5))
    wrong.update_parameters(model)
    rec.err("multi_as_avg", lambda: wrong.update_parameters(model))
    rec("untouched", wrong.module[0].weight)
    ints = sw.AveragedModel(model, multi_avg_fn=sw.get_swa_multi_avg_fn(), use_buffers=True)
    ints.update_parameters(model)
    model(x * 2)
    rec.err("int_buffers", lambda: ints.update_parameters(model))
    rec("int_mean", ints.module[1].running_mean)
    rec("int_count", ints.module[1].num_batches_tracked)
    ema = sw.AveragedModel(model, multi_avg_fn=sw.get_ema_multi_avg_fn(0.9), use_buffers=True)
    ema.update_parameters(model)
    model(x * 3)
    ema.update_parameters(model)
    rec("ema_count", ema.module[1].num_batches_tracked)
    rec("ema_var", ema.module[1].running_var)
    lib.manual_seed(1)
    a = nn.Linear(3, 2).to(dt)
    b = nn.Linear(4, 2).to(dt)
    am = sw.AveragedModel(a, multi_avg_fn=sw.get_ema_multi_avg_fn(0.5))
    am.update_parameters(a)
    rec.err("shapes", lambda: am.update_parameters(b))
    nb = nn.Linear(3, 2, bias=False).to(dt)
    for fn in (None, sw.get_swa_avg_fn(), sw.get_ema_multi_avg_fn(0.5)):
        kw = {"multi_avg_fn": fn} if fn is not None and "multi" in fn.__qualname__ else {}
        if fn is not None and not kw:
            kw = {"avg_fn": fn}
        am2 = sw.AveragedModel(a, **kw)
        am2.update_parameters(nb)
        am2.update_parameters(a)
        tag = "none" if fn is None else fn.__qualname__.split(".")[0]
        rec(tag + ".w", am2.module.weight)
        rec(tag + ".b", am2.module.bias)
    f = sw.get_swa_multi_avg_fn()
    ts = [lib.tensor([1, 5]), lib.tensor([2, 2])]
    rec.err("int_number_count", lambda: f(ts, [lib.tensor([3, 3]), lib.tensor([4, 9])], 1))
    rec("int_kept", lib.stack(ts))
    fl = [lib.tensor([1.0, 5.0], dtype=dt)]
    f(fl, [lib.tensor([3.0, 3.0], dtype=dt)], lib.tensor(3))
    rec("tensor_count", fl[0])


def _placeholder_err(rec, name, fn):
    """A lazy placeholder's ValueError, recorded by its method and the class it names (the
    message spells both torch's module path and the library's own TensorBase)."""
    try:
        fn()
    except ValueError as e:
        msg = str(e)
        method = msg.split("<method '")[1].split("'")[0]
        cls = msg.split("torch.nn.parameter.")[1].split("`")[0]
        rec(name, f"ValueError: {method} {cls}")
    else:
        rec(name, "no error")


def p_update_bn_errors(lib, dt, rec):
    """update_bn's pitfalls: a loader of dicts (the dict reaches BatchNorm's input check), a
    lazy BatchNorm never run (its uninitialised buffers), inputs of the wrong rank."""
    sw = lib.optim.swa_utils
    nn = lib.nn
    x = _randn(lib, dt, 48, 8, 3)
    bn = nn.BatchNorm1d(3).to(dt)
    rec.err("dict", lambda: sw.update_bn([{"x": x}], bn))
    rec.err("bn2d_dict", lambda: nn.BatchNorm2d(3)({"x": x}))
    rec.err("instance_dict", lambda: nn.InstanceNorm1d(3)({"x": x}))
    rec("momentum_lost", str(bn.momentum))
    lazy = nn.LazyBatchNorm1d()
    _placeholder_err(rec, "lazy", lambda: sw.update_bn([x], lazy))
    lazy(x.float())
    sw.update_bn([x.float()], lazy)
    rec("lazy_mean", lazy.running_mean)
    rec.err("rank", lambda: sw.update_bn([x.view(2, 4, 3, 1, 1)], nn.BatchNorm1d(4).to(dt)))
    _placeholder_err(rec, "buffer_add", lambda: nn.LazyBatchNorm1d().running_mean.add_(1))
    _placeholder_err(rec, "param_add", lambda: nn.LazyLinear(2).weight.add_(1))


def p_ema_foreach(lib, dt, rec):
    """Hand-written EMAs (timm's ModelEmaV2 / Lightning callbacks): p_ema.lerp_(p, 1 - decay),
    torch._foreach_lerp_ / _foreach_mul_ + _foreach_add_, mul_ + add_(alpha=); and the shape
    errors of lerp_ / addcmul_ / addcdiv_ when the models differ."""
    model = _mlp(lib, dt, [3, 5, 2], seed=56)
    ema = [p.detach().clone() for p in model.parameters()]
    ema2 = [p.detach().clone() for p in model.parameters()]
    ema3 = [p.detach().clone() for p in model.parameters()]
    opt = lib.optim.SGD(model.parameters(), lr=0.3)
    x = _randn(lib, dt, 49, 7, 3)
    decay = 0.9
    for _ in range(3):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
        params = [p.detach() for p in model.parameters()]
        with lib.no_grad():
            for e, p in zip(ema, params, strict=True):
                e.lerp_(p, 1 - decay)
            lib._foreach_mul_(ema2, decay)
            lib._foreach_add_(ema2, params, alpha=1 - decay)
            lib._foreach_lerp_(ema3, params, 1 - decay)
    for i in range(len(ema)):
        rec(f"lerp{i}", ema[i])
        rec(f"close{i}", lib.allclose(ema[i], ema2[i]) and lib.allclose(ema[i], ema3[i]))
    a = lib.zeros(2, 3, dtype=dt)
    rec.err("lerp_shape", lambda: a.lerp_(lib.ones(2, 4, dtype=dt), 0.5))
    rec.err("lerp_tensor_w", lambda: a.lerp_(lib.ones(2, 4, dtype=dt), lib.tensor(0.5, dtype=dt)))
    rec.err("foreach_shape", lambda: lib._foreach_lerp_([a], [lib.ones(4, 3, dtype=dt)], 0.1))
    rec.err("addcmul_shape", lambda: a.addcmul_(lib.ones(2, 4, dtype=dt), a))
    rec.err("addcdiv_shape", lambda: a.addcdiv_(a, lib.ones(5, 3, dtype=dt), value=2))
    rec.err(
        "broadcast_self", lambda: lib.zeros(1, 3, dtype=dt).lerp_(lib.ones(2, 3, dtype=dt), 0.5)
    )
    rec("a_kept", a)
    rec("broadcast_ok", lib.zeros(2, 3, dtype=dt).lerp_(lib.arange(3, dtype=dt), 0.25))


def p_mc_dropout_module(lib, dt, rec):
    """MC dropout written into the module: F.dropout(training=True) in forward (dropout on at
    eval), model.apply(fn) switching Dropout modules back to train, a p held as a buffer, and
    the predictive distribution over T passes with a loop and with x.repeat."""
    nn = lib.nn
    F = nn.functional

    class MCNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 10)
            self.fc2 = nn.Linear(10, 3)
            self.register_buffer("p", lib.tensor(0.25))

        def forward(self, x, mc=True):
            h = F.relu(self.fc1(x))
            h = F.dropout(h, p=float(self.p), training=mc or self.training)
            return self.fc2(h)

    lib.manual_seed(57)
    net = MCNet().to(dt)
    net.eval()
    x = _randn(lib, dt, 50, 5, 4)
    lib.manual_seed(3)
    outs = lib.stack([net(x) for _ in range(6)])
    rec("outs", outs)
    rec("det", net(x, mc=False))
    lib.manual_seed(3)
    rep = net(x.repeat(6, 1)).view(6, 5, 3)
    rec("repeat", rep)
    probs = outs.softmax(-1)
    rec("pred", probs.mean(0))
    rec("conf", probs.mean(0).max(-1).values)
    rec("std", probs.std(0))

    def enable_dropout(m):
        if isinstance(m, nn.Dropout):
            m.train()

    seq = _mlp(lib, dt, [4, 8, 3], p=0.5, seed=58).eval()
    seq.apply(enable_dropout)
    rec("modes", str([(type(m).__name__, m.training) for m in seq]))
    lib.manual_seed(4)
    rec("seq", lib.stack([seq(x) for _ in range(3)]))
    rec("state_keys", str(list(net.state_dict())))


def p_batch_ensemble(lib, dt, rec):
    """BatchEnsemble (Wen et al.): a shared weight with rank-1 fast weights r_i, s_i per member,
    the members' outputs by einsum over a batch tiled by member, trained two Adam steps; the
    ensemble's mean and disagreement."""
    nn = lib.nn
    F = nn.functional

    class BELinear(nn.Module):
        def __init__(self, d_in, d_out, k):
            super().__init__()
            self.k = k
            self.weight = nn.Parameter(lib.empty(d_out, d_in))
            self.r = nn.Parameter(lib.empty(k, d_in))
            self.s = nn.Parameter(lib.empty(k, d_out))
            self.bias = nn.Parameter(lib.zeros(k, d_out))
            nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            nn.init.normal_(self.r, 1.0, 0.1)
            nn.init.normal_(self.s, 1.0, 0.1)

        def forward(self, x):  # x: (k * n, d_in), member-major
            n = x.shape[0] // self.k
            xk = x.view(self.k, n, -1) * self.r.unsqueeze(1)
            out = lib.einsum("kni,oi->kno", xk, self.weight) * self.s.unsqueeze(1)
            return (out + self.bias.unsqueeze(1)).reshape(self.k * n, -1)

    lib.manual_seed(59)
    k = 3
    net = nn.Sequential(BELinear(2, 6, k), nn.Tanh(), BELinear(6, 2, k)).to(dt)
    x = _randn(lib, dt, 51, 8, 2)
    y = lib.tensor([0, 1, 1, 0, 1, 0, 0, 1])
    opt = lib.optim.Adam(net.parameters(), lr=0.05)
    for step in range(2):
        opt.zero_grad()
        logits = net(x.repeat(k, 1))
        loss = F.cross_entropy(logits, y.repeat(k))
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec("g_r", net[0].r.grad)
    with lib.no_grad():
        probs = net(x.repeat(k, 1)).view(k, 8, 2).softmax(-1)
    rec("mean", probs.mean(0))
    rec("mi", _mi_terms(lib, probs)[2])


def p_laplace_batched_grads(lib, dt, rec):
    """The Jacobian of a head's outputs w.r.t. its parameters by autograd.grad with
    is_grads_batched=True (one vjp per output, vmapped), compared with func.vmap(func.vjp) and
    the loop; the GGN of a softmax head from it; torch.autograd.functional.jacobian with
    vectorize=True."""
    feat, head = _features_and_head(lib, dt, 60, d_feat=3, k=2)
    x = _randn(lib, dt, 52, 4, 3)
    with lib.no_grad():
        phi = feat(x)
    out = head(phi).reshape(-1)  # (N * K,)
    eye = lib.eye(8, dtype=dt)
    gw, gb = lib.autograd.grad(out, (head.weight, head.bias), eye, is_grads_batched=True,
                               retain_graph=True)  # fmt: skip
    J = lib.cat([gw.reshape(8, -1), gb], 1)
    rec("J", J)
    rows = [_flat_grad(lib, out, (head.weight, head.bias), grad_outputs=e, retain_graph=True)
            for e in eye]  # fmt: skip
    rec("loop_close", lib.allclose(lib.stack(rows), J))
    params = {k: v.detach() for k, v in head.named_parameters()}

    def f(p):
        return lib.func.functional_call(head, p, (phi,)).reshape(-1)

    _, vjp_fn = lib.func.vjp(f, params)
    (cts,) = lib.func.vmap(vjp_fn)(eye)
    rec("vmap_vjp_w", cts["weight"])
    p = out.detach().view(4, 2).softmax(-1)
    Lam = lib.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    Jn = J.view(4, 2, -1)
    ggn = lib.einsum("nkp,nkl,nlq->pq", Jn, Lam, Jn)
    rec("ggn", ggn)
    rec("ggn_rank", lib.linalg.matrix_rank(ggn, hermitian=True))
    AF = lib.autograd.functional
    theta = lib.cat([params["weight"].reshape(-1), params["bias"]])

    def g(t):
        return (phi @ t[:6].view(2, 3).T + t[6:]).reshape(-1)

    rec("vectorized", AF.jacobian(g, theta, vectorize=True))
    rec("eq", lib.allclose(AF.jacobian(g, theta), J))


def p_evidential_gradcheck(lib, dt, rec):
    """gradcheck / gradgradcheck (float64) of the evidential losses' pieces as users check
    custom losses: the NIG NLL in (gamma, nu, alpha, beta), the Dirichlet KL to uniform, and a
    custom autograd.Function for a clamped-evidence softplus."""
    if dt != lib.float64:
        rec("skipped", "float32")
        return
    F = lib.nn.functional
    g = _gen(lib, 61)
    y = lib.randn(5, generator=g, dtype=dt)
    gamma = lib.randn(5, generator=g, dtype=dt).requires_grad_(True)
    nu = (lib.rand(5, generator=g, dtype=dt) + 0.5).requires_grad_(True)
    alpha = (lib.rand(5, generator=g, dtype=dt) + 1.5).requires_grad_(True)
    beta = (lib.rand(5, generator=g, dtype=dt) + 0.5).requires_grad_(True)

    def nll(gm, n, a, b):
        om = 2 * b * (1 + n)
        return (0.5 * lib.log(math.pi / n) - a * lib.log(om)
                + (a + 0.5) * lib.log(n * (y - gm) ** 2 + om)
                + lib.lgamma(a) - lib.lgamma(a + 0.5))  # fmt: skip

    args = (gamma, nu, alpha, beta)
    rec("gc_nll", lib.autograd.gradcheck(nll, args))
    rec("ggc_nll", lib.autograd.gradgradcheck(nll, args))
    ev = (lib.rand(4, 3, generator=g, dtype=dt) + 0.2).requires_grad_(True)
    rec("gc_kl", lib.autograd.gradcheck(lambda e: _kl_dirichlet_uniform(lib, e + 1), (ev,)))

    class ClampedSoftplus(lib.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return F.softplus(z).clamp(max=10.0)

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            return grad * lib.sigmoid(z) * (F.softplus(z) < 10.0).to(z.dtype)

    z = lib.randn(6, generator=g, dtype=dt).requires_grad_(True)
    rec("gc_custom", lib.autograd.gradcheck(ClampedSoftplus.apply, (z,)))
    out = ClampedSoftplus.apply(z)
    out.sum().backward()
    rec("custom_grad", z.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
