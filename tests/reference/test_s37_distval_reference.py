"""Session 37 (helper distval): torch.distributions argument validation and metadata as users
meet them, run under torch and minitorch with the same seeds and compared record by record:
validate_args=True/False and Distribution.set_default_validate_args; the exact ValueError texts
for parameters outside their constraints and for log_prob values outside the support or of the
wrong shape; reprs of distributions, constraints and transforms; support, arg_constraints,
has_rsample, mean, mode, variance, stddev, entropy, batch_shape and event_shape of Normal,
Bernoulli, Categorical, OneHotCategorical, Beta, Gamma, Dirichlet, Exponential, Laplace,
Uniform, Poisson, Binomial, MultivariateNormal (scale_tril, covariance, precision) and
LowRankMultivariateNormal; expand(); sample shapes, dtypes and values (minitorch reproduces
torch's generator stream); Independent, MixtureSameFamily and TransformedDistribution with
ExpTransform, AffineTransform, SigmoidTransform, ComposeTransform, biject_to and transform_to;
the kl_divergence registry (registered pairs, NotImplementedError for the rest, user
registrations, ambiguous pairs); user subclasses of Distribution, Constraint and Transform;
gradients of log_prob and rsample in float64 (gradcheck and gradgradcheck); and user programs:
a VAE step, policy heads (Categorical, tanh-squashed Independent Normal), a planar flow that is
also an nn.Module, a Gaussian mixture fitted by Adam, draws across each sampler's regimes.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- kl.register_kl of a non-class (register_kl(5, Normal), an instance for type_q) raised
  "Expected type_p to be a Distribution subclass but got 5"; torch's test fails inside
  issubclass: "TypeError: issubclass() arg 1 must be a class".
- CatTransform/StackTransform with an element that is no Transform: torch's AssertionError
  "All elements of tseq must be Transform instances" (was "StackTransform: every element of
  tseq must be a Transform").
- The base Transform defined domain = codomain = constraints.real, so a user's Transform
  subclass without them worked; torch only declares them: reading domain, event_dim,
  inv.domain, a ComposeTransform's domain or building a TransformedDistribution raises
  "AttributeError: '<Name>' object has no attribute 'domain'" ('codomain' for inv.domain).
- Transform.__init__ set _cached_x_y for cache_size=0 too; torch creates the slot only when
  caching, after _inv: __getstate__()/vars() of ExpTransform() is {'_cache_size': 0, '_inv':
  None} as torch's.

Known and left (documented):
- MultivariateNormal.log_prob of a value holding inf gives nan (torch: -inf): minitorch's
  triangular solve of up to 128 rows is the general LU solve, whose upper substitution
  multiplies the zero upper triangle of L by the inf; torch's trsm touches only the lower
  triangle. Not recorded.
- Gamma(c, r).rsample()'s gradient in c is the exact implicit derivative; torch's
  _standard_gamma_grad is a fitted approximation (~1e-5 relative off): only the rate's
  gradient is recorded (Beta and Dirichlet rsample gradients agree to 1e-10).
- torch's float64 trigamma (the derivative of digamma) is good to ~1e-9 relative, minitorch's
  to the last digits: gradients of Gamma/Beta KL, Beta entropy and Dirichlet log_prob are
  compared to 1e-8 in float64.
- Transforms are hashable in minitorch (object identity); torch's define __eq__ only, so
  they are unhashable and a `class Flow(Transform, nn.Module)` needs Pyro's
  `__hash__ = nn.Module.__hash__` to list its parameters (the flow program defines it).
- register_kl(Normal, int) (a class that is no Distribution) raises in minitorch, as
  tests/distributions/test_distributions.py pins; torch registers it.
- Distribution(batch_shape=[2]) stores torch.Size([2]); torch keeps the list or tuple as given
  (and then fails in sample()). Pickling an inverse transform keeps its forward transform
  (torch's gives _InverseTransform(None)). Transform.inv holds its inverse by a weak
  reference; torch 2.13's by a strong one (t.inv.inv is t holds in both while t is alive).
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "param_errors", "support_errors", "shape_errors", "validate_toggle", "constraint_reprs",
    "constraint_checks", "metadata", "expand", "samples", "independent", "mixture",
    "transformed", "biject_to", "kl_registered", "kl_missing", "user_subclass",
    "grads", "mvn_forms", "lowrank", "enumerate", "cdf_icdf", "transform_props", "vae_step",
    "policy", "flow", "gmm_fit", "user_transform", "samples_wide",
    "kl_dispatch",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt, tol=_tolerance(dt))


# torch's float64 trigamma (the derivative of digamma, lgamma's second) is good to ~1e-9
# relative; minitorch's is correct to the last digits: gradients through digamma agree to 1e-8
_TRIGAMMA = ("kl_gamma.grad", "kl_beta.grad", "entropy_beta.grad", "dirichlet.grad")


def _tolerance(dt):
    if dt == "float32":
        return 1e-4
    return lambda name, value: 1e-8 if name in _TRIGAMMA else 1e-10


# --- helpers ---


def _t(lib, dt, values):
    return lib.tensor(values, dtype=dt)


def _stats(rec, tag, d, names=("mean", "mode", "variance", "stddev")):
    """Records d's statistics (each property, or the error it raises) and its entropy."""
    for name in names:
        v = rec.err(tag + "." + name + ".err", lambda name=name: getattr(d, name))
        if v is not None:
            rec(tag + "." + name, v)
    h = rec.err(tag + ".entropy.err", d.entropy)
    if h is not None:
        rec(tag + ".entropy", h)


def _meta(rec, tag, d):
    """Records d's repr, shapes, support, arg_constraints and flags."""
    rec(tag + ".repr", repr(d))
    rec(tag + ".batch_shape", repr(d.batch_shape))
    rec(tag + ".event_shape", repr(d.event_shape))
    rec(tag + ".support", repr(rec.err(tag + ".support.err", lambda: d.support)))
    rec(tag + ".arg_constraints", repr(d.arg_constraints))
    rec(tag + ".flags", str((d.has_rsample, d.has_enumerate_support, d._validate_args)))


def _families(lib, dt):
    """(tag, distribution) pairs of the families of this brief with batch shape (2,) or ()."""
    D = lib.distributions
    x = _t(lib, dt, [0.3, -1.2])
    s = _t(lib, dt, [0.7, 1.9])
    p = _t(lib, dt, [0.25, 0.8])
    a = _t(lib, dt, [[0.5, 1.5, 2.5], [3.0, 0.9, 1.1]])
    cov = _t(lib, dt, [[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
    return [
        ("normal", D.Normal(x, s)),
        ("bernoulli_p", D.Bernoulli(probs=p)),
        ("bernoulli_l", D.Bernoulli(logits=x)),
        ("categorical", D.Categorical(probs=a)),
        ("categorical_l", D.Categorical(logits=a.log())),
        ("onehot", D.OneHotCategorical(probs=a)),
        ("beta", D.Beta(s, p * 4)),
        ("gamma", D.Gamma(s + 1, p)),
        ("dirichlet", D.Dirichlet(a)),
        ("exponential", D.Exponential(s)),
        ("laplace", D.Laplace(x, s)),
        ("uniform", D.Uniform(x, x + s)),
        ("poisson", D.Poisson(s * 3)),
        ("binomial", D.Binomial(7, p)),
        ("binomial_t", D.Binomial(lib.tensor([3, 9]), logits=x)),
        ("mvn_cov", D.MultivariateNormal(a[0], cov)),
        ("mvn_tril", D.MultivariateNormal(a, scale_tril=lib.linalg.cholesky(cov))),
        ("mvn_prec", D.MultivariateNormal(a[1], precision_matrix=cov)),
        ("lowrank", D.LowRankMultivariateNormal(a, a.unsqueeze(-1) * 0.3, a[0])),
    ]


# --- the programs: each takes the library, a dtype and a recorder ---


def p_param_errors(lib, dt, rec):
    D = lib.distributions
    nan = float("nan")
    good = _t(lib, dt, [0.5, 1.0, 2.0])
    rec.err("normal.loc", lambda: D.Normal(_t(lib, dt, [0.0, nan, 1.0]), good))
    rec.err("normal.scale", lambda: D.Normal(good, _t(lib, dt, [1.0, 0.0, 2.0])))
    rec.err("normal.scale_neg", lambda: D.Normal(0.0, -1.0))
    rec.err("normal.inf_loc", lambda: D.Normal(_t(lib, dt, [float("inf")]), 1.0))
    rec.err("bernoulli.probs", lambda: D.Bernoulli(probs=_t(lib, dt, [0.2, 1.5])))
    rec.err("bernoulli.logits", lambda: D.Bernoulli(logits=_t(lib, dt, [0.2, nan])))
    rec.err("bernoulli.both", lambda: D.Bernoulli(probs=good, logits=good))
    rec.err("bernoulli.none", lambda: D.Bernoulli())
    rec.err("categorical.neg", lambda: D.Categorical(_t(lib, dt, [0.2, -0.5, 0.3])))
    rec.err("categorical.0d", lambda: D.Categorical(_t(lib, dt, 0.5)))
    rec.err("categorical.zero", lambda: D.Categorical(_t(lib, dt, [0.0, 0.0])))
    rec.err("onehot.neg", lambda: D.OneHotCategorical(_t(lib, dt, [[0.2, -0.5]])))
    rec.err("beta", lambda: D.Beta(good, _t(lib, dt, [1.0, -1.0, 2.0])))
    rec.err("gamma.conc", lambda: D.Gamma(_t(lib, dt, [0.0, 1.0]), 1.0))
    rec.err("gamma.rate", lambda: D.Gamma(1.0, _t(lib, dt, [-0.5, 1.0])))
    rec.err("dirichlet", lambda: D.Dirichlet(_t(lib, dt, [0.5, 1.0, -2.0])))
    rec.err("dirichlet.0d", lambda: D.Dirichlet(_t(lib, dt, 0.5)))
    rec.err("exponential", lambda: D.Exponential(_t(lib, dt, [1.0, 0.0])))
    rec.err("laplace", lambda: D.Laplace(0.0, _t(lib, dt, [-1.0])))
    rec.err("uniform", lambda: D.Uniform(_t(lib, dt, [0.0, 1.0]), _t(lib, dt, [1.0, 1.0])))
    rec.err("poisson", lambda: D.Poisson(_t(lib, dt, [1.0, -2.0])))
    rec.err("binomial.count", lambda: D.Binomial(-1, _t(lib, dt, [0.2])))
    rec.err("binomial.frac", lambda: D.Binomial(_t(lib, dt, [5.5, 3.0]), _t(lib, dt, [0.2, 0.4])))
    rec.err("binomial.probs", lambda: D.Binomial(5, _t(lib, dt, [1.2])))
    eye = lib.eye(2, dtype=dt)
    bad = _t(lib, dt, [[1.0, 2.0], [2.0, 1.0]])
    rec.err("mvn.cov", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), bad))
    rec.err("mvn.tril", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), scale_tril=bad))
    rec.err("mvn.prec", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), precision_matrix=bad))
    rec.err("mvn.none", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt)))
    rec.err("mvn.two", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), eye, scale_tril=eye))
    rec.err("mvn.vec", lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.ones(2, dtype=dt)))
    rec.err("mvn.size", lambda: D.MultivariateNormal(lib.zeros(3, dtype=dt), eye))
    rec.err("mvn.0d", lambda: D.MultivariateNormal(lib.zeros((), dtype=dt), eye))
    ones = lib.ones(3, 1, dtype=dt)
    z3 = lib.zeros(3, dtype=dt)
    rec.err("lowrank.diag", lambda: D.LowRankMultivariateNormal(z3, ones, -z3 - 1))
    rec.err("lowrank.vec", lambda: D.LowRankMultivariateNormal(z3, z3, z3 + 1))
    rec.err("lowrank.rows", lambda: D.LowRankMultivariateNormal(z3, ones[:2], z3 + 1))
    rec.err("lowrank.dsize", lambda: D.LowRankMultivariateNormal(z3, ones, z3[:2] + 1))
    rec.err("lowrank.nan", lambda: D.LowRankMultivariateNormal(z3 * nan, ones, z3 + 1))
    # validate_args=False: the same arguments are taken as they are
    d = D.Normal(good, -good, validate_args=False)
    rec("novalidate.scale", d.scale)
    rec("novalidate.log_prob", d.log_prob(good))
    rec("novalidate.repr", repr(d))
    d = D.Bernoulli(probs=_t(lib, dt, [0.2, 1.5]), validate_args=False)
    rec("novalidate.bernoulli", d.logits)


def p_support_errors(lib, dt, rec):
    D = lib.distributions
    nan, inf = float("nan"), float("inf")
    n = D.Normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt))
    rec.err("normal.nan", lambda: n.log_prob(_t(lib, dt, [1.0, nan, 2.0])))
    rec("normal.inf", n.log_prob(_t(lib, dt, [1.0, inf, -inf])))
    e = D.Exponential(lib.ones(3, dtype=dt))
    rec.err("exponential", lambda: e.log_prob(_t(lib, dt, [1.0, -2.0, 2.0])))
    rec("exponential.zero", e.log_prob(_t(lib, dt, [0.0, 1.0, 2.0])))
    b = D.Bernoulli(_t(lib, dt, [0.2, 0.5]))
    rec.err("bernoulli", lambda: b.log_prob(_t(lib, dt, [0.5, 1.0])))
    rec("bernoulli.ok", b.log_prob(_t(lib, dt, [0.0, 1.0])))
    c = D.Categorical(_t(lib, dt, [0.2, 0.5, 0.3]))
    rec.err("categorical.3", lambda: c.log_prob(lib.tensor(3)))
    rec.err("categorical.frac", lambda: c.log_prob(_t(lib, dt, 1.5)))
    rec.err("categorical.neg", lambda: c.log_prob(lib.tensor([-1, 0])))
    rec("categorical.ok", c.log_prob(lib.tensor([[0, 2], [1, 1]])))
    o = D.OneHotCategorical(_t(lib, dt, [0.2, 0.5, 0.3]))
    rec.err("onehot.two", lambda: o.log_prob(_t(lib, dt, [1.0, 1.0, 0.0])))
    rec.err("onehot.frac", lambda: o.log_prob(_t(lib, dt, [0.5, 0.5, 0.0])))
    rec("onehot.ok", o.log_prob(_t(lib, dt, [0.0, 0.0, 1.0])))
    be = D.Beta(_t(lib, dt, [0.5]), _t(lib, dt, [1.5]))
    rec.err("beta.out", lambda: be.log_prob(_t(lib, dt, [1.5])))
    rec("beta.edge", be.log_prob(_t(lib, dt, [1.0])))
    g = D.Gamma(_t(lib, dt, [0.5, 2.0]), 1.0)
    rec.err("gamma.neg", lambda: g.log_prob(_t(lib, dt, [-0.5, 2.0])))
    rec("gamma.zero", g.log_prob(_t(lib, dt, [0.0, 0.0])))
    di = D.Dirichlet(_t(lib, dt, [0.5, 1.0, 2.0]))
    rec.err("dirichlet.neg", lambda: di.log_prob(_t(lib, dt, [0.5, 0.6, -0.1])))
    rec.err("dirichlet.sum", lambda: di.log_prob(_t(lib, dt, [0.5, 0.6, 0.1])))
    rec("dirichlet.ok", di.log_prob(_t(lib, dt, [0.25, 0.25, 0.5])))
    u = D.Uniform(lib.zeros(2, dtype=dt), lib.ones(2, dtype=dt))
    rec.err("uniform.out", lambda: u.log_prob(_t(lib, dt, [0.5, 1.5])))
    rec.err("uniform.hi", lambda: u.log_prob(_t(lib, dt, [0.5, 1.0])))
    rec("uniform.lo", u.log_prob(_t(lib, dt, [0.0, 0.5])))
    po = D.Poisson(_t(lib, dt, [0.0, 2.0]))
    rec.err("poisson.frac", lambda: po.log_prob(_t(lib, dt, [1.5, 2.0])))
    rec.err("poisson.neg", lambda: po.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec("poisson.zero_rate", po.log_prob(_t(lib, dt, [0.0, 2.0])))
    rec("poisson.zero_rate1", po.log_prob(_t(lib, dt, [1.0, 2.0])))
    bi = D.Binomial(5, _t(lib, dt, [0.2, 0.4]))
    rec.err("binomial.over", lambda: bi.log_prob(_t(lib, dt, [6.0, 2.0])))
    rec.err("binomial.frac", lambda: bi.log_prob(_t(lib, dt, [2.5, 2.0])))
    bt = D.Binomial(lib.tensor([3, 9]), _t(lib, dt, [0.2, 0.4]))
    rec.err("binomial.count_t", lambda: bt.log_prob(_t(lib, dt, [4.0, 9.0])))
    rec("binomial.edges", D.Binomial(5, _t(lib, dt, [0.0, 1.0])).log_prob(_t(lib, dt, [0.0, 5.0])))
    mvn = D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))
    rec.err("mvn.nan", lambda: mvn.log_prob(_t(lib, dt, [[0.0, nan], [0.0, 0.0]])))
    # without validation the value goes through
    e2 = D.Exponential(lib.ones(3, dtype=dt), validate_args=False)
    rec("noval.exponential", e2.log_prob(_t(lib, dt, [1.0, -2.0, 2.0])))
    b2 = D.Beta(_t(lib, dt, [0.5]), _t(lib, dt, [1.5]), validate_args=False)
    rec("noval.beta", b2.log_prob(_t(lib, dt, [1.5])))


def p_shape_errors(lib, dt, rec):
    D = lib.distributions
    n = D.Normal(lib.zeros(2, 3, dtype=dt), 1.0)
    rec.err("not_tensor", lambda: n.log_prob(0.5))
    rec.err("not_tensor_list", lambda: n.log_prob([0.5]))
    rec.err("bcast", lambda: n.log_prob(lib.zeros(3, 3, dtype=dt)))
    rec.err("bcast2", lambda: n.log_prob(lib.zeros(2, dtype=dt)))
    rec("bcast_ok", n.log_prob(lib.zeros(4, 1, 1, 3, dtype=dt)).shape)
    ind = D.Independent(n, 1)
    rec.err("event", lambda: ind.log_prob(lib.zeros(2, dtype=dt)))
    rec.err("event2", lambda: ind.log_prob(lib.zeros(4, dtype=dt)))
    rec.err("event_batch", lambda: D.Independent(n, 2).log_prob(lib.zeros(3, 3, dtype=dt)))
    mvn = D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))
    rec.err("mvn.event", lambda: mvn.log_prob(lib.zeros(3, dtype=dt)))
    rec("mvn.batch", mvn.log_prob(lib.zeros(4, 2, dtype=dt)))
    di = D.Dirichlet(lib.ones(2, 3, dtype=dt))
    rec.err("dirichlet.event", lambda: di.log_prob(lib.ones(2, dtype=dt) / 2))
    rec.err("dirichlet.batch", lambda: di.log_prob(lib.ones(3, 3, dtype=dt) / 3))
    c = D.Categorical(lib.ones(2, 3, dtype=dt))
    rec.err("categorical.batch", lambda: c.log_prob(lib.tensor([0, 1, 1])))
    rec("categorical.bcast", c.log_prob(lib.tensor([[0], [2], [1]])))
    rec.err("expand.bad", lambda: n.expand([2, 4]))
    rec.err("expand.bad2", lambda: D.Categorical(lib.ones(2, 3, dtype=dt)).expand([3]))
    rec.err("ctor.bcast", lambda: D.Normal(lib.zeros(2, dtype=dt), lib.ones(3, dtype=dt)))
    rec.err("ctor.str", lambda: D.Normal("a", 1.0))
    rec.err("ctor.none", lambda: D.Normal(None, 1.0))
    rec.err("ctor.kw", lambda: D.Normal(loc=0.0))
    rec.err("rsample.bernoulli", lambda: D.Bernoulli(_t(lib, dt, 0.3)).rsample())
    rec.err("rsample.categorical", lambda: D.Categorical(lib.ones(3, dtype=dt)).rsample())
    rec.err("rsample.poisson", lambda: D.Poisson(lib.ones(3, dtype=dt)).rsample())
    rec.err("enumerate.normal", lambda: D.Normal(0.0, 1.0).enumerate_support())
    rec.err("cdf.poisson", lambda: D.Poisson(lib.ones(3, dtype=dt)).cdf(lib.ones(3, dtype=dt)))


def p_validate_toggle(lib, dt, rec):
    D = lib.distributions
    Dist = D.Distribution
    rec.err("set.int", lambda: Dist.set_default_validate_args(1))
    rec.err("set.str", lambda: Dist.set_default_validate_args("yes"))
    rec.err("set.none", lambda: Dist.set_default_validate_args(None))
    rec("default", str(Dist._validate_args))
    Dist.set_default_validate_args(False)
    bad = _t(lib, dt, [0.5, -1.0])
    d = D.Normal(lib.zeros(2, dtype=dt), bad)
    rec("off.validate", str(d._validate_args))
    rec("off.log_prob", d.log_prob(_t(lib, dt, [0.1, 0.2])))
    g = D.Gamma(_t(lib, dt, [2.0, 3.0]), 1.0)
    rec("off.gamma_neg", g.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec.err("off.explicit", lambda: D.Normal(lib.zeros(2, dtype=dt), bad, validate_args=True))
    e = D.Exponential(_t(lib, dt, [1.0, 2.0]), validate_args=True)
    rec.err("off.explicit_lp", lambda: e.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec("off.expand", str(e.expand([3, 2])._validate_args))
    rec("off.expand2", str(g.expand([3, 2])._validate_args))
    Dist.set_default_validate_args(True)
    rec.err("on.old_instance", lambda: g.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec.err("on.new", lambda: D.Normal(lib.zeros(2, dtype=dt), bad))
    h = D.Gamma(_t(lib, dt, [2.0, 3.0]), 1.0, validate_args=False)
    rec("on.explicit_off", h.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec("on.expand_off", str(h.expand([2])._validate_args))
    m = D.MixtureSameFamily(
        D.Categorical(lib.ones(2, dtype=dt)), D.Normal(lib.zeros(2, dtype=dt), 1.0)
    )
    rec("on.mixture", str(m._validate_args))
    t = D.TransformedDistribution(D.Normal(0.0, _t(lib, dt, 1.0)), [D.transforms.ExpTransform()])
    rec.err("on.transformed_lp", lambda: t.log_prob(_t(lib, dt, -1.0)))
    t2 = D.TransformedDistribution(
        D.Normal(0.0, _t(lib, dt, 1.0)), [D.transforms.ExpTransform()], validate_args=False
    )
    rec.err("off.transformed_lp", lambda: t2.log_prob(_t(lib, dt, [-1.0, 2.0])))
    t3 = D.TransformedDistribution(
        D.Normal(0.0, _t(lib, dt, 1.0), validate_args=False),
        [D.transforms.ExpTransform()],
        validate_args=False,
    )
    rec("off.transformed_lp3", t3.log_prob(_t(lib, dt, [-1.0, 2.0])))
    rec("off.transformed_base", str(t2.base_dist._validate_args))


def p_constraint_reprs(lib, dt, rec):
    C = lib.distributions.constraints
    items = [
        C.real, C.positive, C.nonnegative, C.real_vector, C.simplex, C.boolean,
        C.nonnegative_integer, C.positive_integer, C.unit_interval, C.lower_cholesky,
        C.lower_triangular, C.positive_definite, C.positive_semidefinite, C.corr_cholesky,
        C.square, C.symmetric, C.one_hot, C.dependent, C.interval(0, 1), C.interval(-2.5, 3),
        C.half_open_interval(0, 1), C.integer_interval(0, 5), C.greater_than(2.0),
        C.greater_than_eq(2), C.less_than(3), C.independent(C.real, 1),
        C.independent(C.positive, 2), C.multinomial(3), C.cat([C.real, C.positive], 0, [1, 2]),
        C.stack([C.real, C.positive], 0), C.interval(_t(lib, dt, 0.0), _t(lib, dt, 1.0)),
    ]  # fmt: skip
    for i, c in enumerate(items):
        rec(f"repr{i}", repr(c))
        rec(f"meta{i}", str(rec.err(f"meta{i}.err", lambda c=c: (c.event_dim, c.is_discrete))))
    rec("dependent", str((C.is_dependent(C.dependent), C.is_dependent(C.real))))
    rec("bounds", str((C.interval(0.5, 2).lower_bound, C.interval(0.5, 2).upper_bound)))
    rec("gt_bound", str(C.greater_than(2.5).lower_bound))
    rec(
        "int_bounds",
        str((C.integer_interval(1, 4).lower_bound, C.integer_interval(1, 4).upper_bound)),
    )
    rec.err("dependent.check", lambda: C.dependent.check(lib.zeros(1, dtype=dt)))


def p_constraint_checks(lib, dt, rec):
    C = lib.distributions.constraints
    v = _t(lib, dt, [-1.0, 0.0, 0.5, 1.0, 1.5, 6.0, float("inf"), float("nan")])
    for name in ("real", "positive", "nonnegative", "unit_interval", "boolean",
                 "nonnegative_integer", "positive_integer"):  # fmt: skip
        rec(name, getattr(C, name).check(v))
    for tag, c in (
        ("interval", C.interval(0, 1)), ("half_open", C.half_open_interval(0, 1)),
        ("integer_interval", C.integer_interval(0, 5)), ("gt", C.greater_than(0.5)),
        ("ge", C.greater_than_eq(0.5)), ("lt", C.less_than(1.0)),
    ):  # fmt: skip
        rec(tag, c.check(v))
    m = _t(lib, dt, [[[0.5, 0.5], [0.6, 0.6]], [[1.0, 0.0], [0.0, 0.0]]])
    rec("simplex", C.simplex.check(m))
    rec("real_vector", C.real_vector.check(m))
    rec("one_hot", C.one_hot.check(m))
    spd = _t(lib, dt, [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])
    rec("positive_definite", C.positive_definite.check(spd))
    rec("positive_semidefinite", C.positive_semidefinite.check(spd))
    rec("symmetric", C.symmetric.check(spd))
    rec("square", C.square.check(spd))
    tril = _t(lib, dt, [[[2.0, 0.0], [0.5, 1.0]], [[1.0, 0.0], [2.0, -1.0]]])
    rec("lower_cholesky", C.lower_cholesky.check(tril))
    rec("lower_triangular", C.lower_triangular.check(tril))
    corr = _t(lib, dt, [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]])
    rec("corr_cholesky", C.corr_cholesky.check(corr))
    rec("independent", C.independent(C.positive, 1).check(_t(lib, dt, [[1.0, 2.0], [1.0, -2.0]])))
    cat = C.cat([C.real, C.positive], 0, [1, 2])
    rec("cat", cat.check(_t(lib, dt, [-1.0, 2.0, -3.0])))
    st = C.stack([C.real, C.positive], 0)
    rec("stack", st.check(_t(lib, dt, [[-1.0, 2.0], [-3.0, 4.0]])))
    rec("multinomial", C.multinomial(3).check(_t(lib, dt, [[1.0, 2.0], [3.0, 1.0]])))
    lo, hi = _t(lib, dt, [0.0, 1.0]), _t(lib, dt, [1.0, 3.0])
    rec("tensor_interval", C.interval(lo, hi).check(_t(lib, dt, [[0.5, 2.0], [1.5, 0.5]])))


def p_metadata(lib, dt, rec):
    for tag, d in _families(lib, dt):
        _meta(rec, tag, d)
        _stats(rec, tag, d)


def p_expand(lib, dt, rec):
    lib.manual_seed(11)
    for tag, d in _families(lib, dt):
        new = (3,) + tuple(d.batch_shape) if d.batch_shape else (3, 2)
        e = d.expand(new)
        rec(tag + ".type", type(e).__name__)
        _meta(rec, tag + ".e", e)
        rec(tag + ".mean", rec.err(tag + ".mean.err", lambda e=e: e.mean))
        s = e.sample()
        rec(tag + ".sample_shape", repr(s.shape))
        rec(tag + ".log_prob", e.log_prob(d.sample()))
        rec.err(tag + ".bad", lambda d=d: d.expand([4, 5]))
        e2 = d.expand(lib.Size(new))
        rec(tag + ".params", str(sorted(k for k in d.arg_constraints if k in e2.__dict__)))


def p_samples(lib, dt, rec):
    lib.manual_seed(37)
    for tag, d in _families(lib, dt):
        for shape in ((), (4,), (2, 3)):
            s = d.sample(shape)
            rec(f"{tag}.{shape}", s)
        if d.has_rsample:
            rec(tag + ".rsample", d.rsample((2,)))
    g = lib.Generator().manual_seed(5)
    rec("normal.gen", lib.normal(lib.zeros(3, dtype=dt), 1.0, generator=g))
    lib.manual_seed(1)
    n = lib.distributions.Normal(_t(lib, dt, 1.5), _t(lib, dt, 0.5)).sample((4000,))
    rec("normal.stats", lib.stack([n.mean(), n.std()]))
    rec.err("sample.bad", lambda: lib.distributions.Normal(0.0, 1.0).sample(5))
    rec("sample_n", lib.distributions.Normal(_t(lib, dt, [0.0]), 1.0).sample_n(2))


def p_independent(lib, dt, rec):
    D = lib.distributions
    base = D.Normal(_randn(lib, dt, 1, 2, 3), _rand(lib, dt, 2, 2, 3) + 0.5)
    for k in (0, 1, 2):
        d = D.Independent(base, k)
        _meta(rec, f"ind{k}", d)
        _stats(rec, f"ind{k}", d)
        rec(f"ind{k}.log_prob", d.log_prob(_randn(lib, dt, 3, 4, 2, 3)))
    rec.err("ind3", lambda: D.Independent(base, 3))
    e = D.Independent(base, 1).expand([4, 2])
    _meta(rec, "ind.expand", e)
    rec.err("ind.expand_bad", lambda: D.Independent(base, 1).expand([4, 3]))
    b = D.Independent(D.Bernoulli(_t(lib, dt, [0.2, 0.7])), 1)
    rec.err("ind.enum", b.enumerate_support)
    rec.err("ind.support", lambda: b.log_prob(_t(lib, dt, [0.0, 2.0])))
    rec.err(
        "ind.exp",
        lambda: D.Independent(D.Exponential(lib.ones(3, dtype=dt)), 1).log_prob(
            _t(lib, dt, [1.0, -1.0, 1.0])
        ),
    )
    nested = D.Independent(D.Independent(base, 1), 1)
    _meta(rec, "nested", nested)
    rec.err("ind.not_dist", lambda: D.Independent(lib.zeros(3), 1))


def _mix(lib, dt):
    D = lib.distributions
    mix = D.Categorical(logits=_randn(lib, dt, 4, 3))
    comp = D.Normal(_randn(lib, dt, 5, 3), _rand(lib, dt, 6, 3) + 0.5)
    return D.MixtureSameFamily(mix, comp)


def p_mixture(lib, dt, rec):
    D = lib.distributions
    m = _mix(lib, dt)
    _meta(rec, "gmm", m)
    _stats(rec, "gmm", m, names=("mean", "variance", "stddev"))
    rec.err("gmm.mode", lambda: m.mode)
    x = _randn(lib, dt, 7, 5)
    rec("gmm.log_prob", m.log_prob(x))
    rec("gmm.cdf", m.cdf(x))
    lib.manual_seed(3)
    rec("gmm.sample", m.sample((4,)))
    rec.err("gmm.rsample", lambda: m.rsample())
    rec.err("gmm.nan", lambda: m.log_prob(_t(lib, dt, [0.0, float("nan")])))
    e = m.expand([2])
    _meta(rec, "gmm.expand", e)
    rec("gmm.expand_lp", e.log_prob(x[:2]))
    comp = D.Independent(D.Normal(_randn(lib, dt, 8, 2, 3), 1.0), 1)
    mv = D.MixtureSameFamily(D.Categorical(lib.ones(2, dtype=dt)), comp)
    _meta(rec, "mv", mv)
    rec("mv.log_prob", mv.log_prob(_randn(lib, dt, 9, 4, 3)))
    rec("mv.mean", mv.mean)
    rec.err("mv.cdf", lambda: mv.cdf(lib.zeros(3, dtype=dt)))
    cat2 = D.Categorical(lib.ones(2, dtype=dt))
    rec.err("bad.size", lambda: D.MixtureSameFamily(cat2, D.Normal(lib.zeros(3, dtype=dt), 1.0)))
    rec.err(
        "bad.mix",
        lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(lib.zeros(3, dtype=dt), 1.0)),
    )
    rec.err("bad.comp", lambda: D.MixtureSameFamily(cat2, lib.zeros(2)))
    rec.err(
        "bad.batch",
        lambda: D.MixtureSameFamily(
            D.Categorical(lib.ones(3, 2, dtype=dt)), D.Normal(lib.zeros(2, 2, dtype=dt), 1.0)
        ),
    )
    lowrank = D.LowRankMultivariateNormal(
        _randn(lib, dt, 10, 3, 2), _randn(lib, dt, 11, 3, 2, 1) * 0.5, lib.ones(3, 2, dtype=dt)
    )
    mlr = D.MixtureSameFamily(D.Categorical(logits=_randn(lib, dt, 12, 3)), lowrank)
    rec("mlr.log_prob", mlr.log_prob(_randn(lib, dt, 13, 5, 2)))
    rec("mlr.variance", mlr.variance)


def p_transformed(lib, dt, rec):
    D = lib.distributions
    T = D.transforms
    base = D.Normal(_randn(lib, dt, 1, 3), _rand(lib, dt, 2, 3) + 0.5)
    cases = [
        ("exp", [T.ExpTransform()]),
        ("affine", [T.AffineTransform(1.0, 2.0)]),
        ("affine_neg", [T.AffineTransform(_t(lib, dt, 1.0), _t(lib, dt, -2.0))]),
        ("sigmoid", [T.SigmoidTransform()]),
        ("compose", [T.ComposeTransform([T.AffineTransform(0.5, 0.3), T.SigmoidTransform()])]),
        ("tanh", [T.TanhTransform()]),
        ("chain", [T.ExpTransform(), T.AffineTransform(1.0, 3.0)]),
    ]
    y = {
        "exp": _t(lib, dt, [0.5, 1.2, 3.0]), "affine": _t(lib, dt, [0.5, -1.2, 3.0]),
        "affine_neg": _t(lib, dt, [0.5, -1.2, 3.0]), "sigmoid": _t(lib, dt, [0.2, 0.5, 0.9]),
        "compose": _t(lib, dt, [0.2, 0.5, 0.9]), "tanh": _t(lib, dt, [-0.2, 0.5, 0.9]),
        "chain": _t(lib, dt, [1.5, 2.0, 4.0]),
    }  # fmt: skip
    bad = {"exp": -1.0, "sigmoid": 1.5, "compose": 0.0, "tanh": 1.5, "chain": 0.5}
    for tag, ts in cases:
        d = D.TransformedDistribution(base, ts)
        _meta(rec, tag, d)
        rec(tag + ".log_prob", d.log_prob(y[tag]))
        lib.manual_seed(4)
        rec(tag + ".rsample", d.rsample((2,)))
        rec(tag + ".mean", rec.err(tag + ".mean.err", lambda d=d: d.mean))
        if tag in bad:
            rec.err(tag + ".bad", lambda d=d, v=bad[tag]: d.log_prob(_t(lib, dt, [v, v, v])))
        rec.err(tag + ".cdf", lambda d=d, v=y[tag]: d.cdf(v))
        rec.err(tag + ".icdf", lambda d=d: d.icdf(_t(lib, dt, [0.1, 0.5, 0.7])))
        e = d.expand([2, 3])
        _meta(rec, tag + ".expand", e)
    rec.err("bad.transform", lambda: D.TransformedDistribution(base, 5))
    rec.err("bad.list", lambda: D.TransformedDistribution(base, [5]))
    rec.err("bad.base", lambda: D.TransformedDistribution(lib.zeros(3), [T.ExpTransform()]))
    sb = D.TransformedDistribution(base, [T.StickBreakingTransform()])
    _meta(rec, "stick", sb)
    rec("stick.log_prob", sb.log_prob(_t(lib, dt, [0.1, 0.2, 0.3, 0.4])))
    rec.err("stick.bad", lambda: sb.log_prob(_t(lib, dt, [0.1, 0.2, 0.3, 0.5])))
    ln = D.LogNormal(_t(lib, dt, [0.0, 0.5]), _t(lib, dt, [1.0, 0.3]))
    _meta(rec, "lognormal", ln)
    _stats(rec, "lognormal", ln)
    rec.err("lognormal.bad", lambda: D.LogNormal(0.0, _t(lib, dt, -1.0)))
    rec.err("lognormal.lp", lambda: ln.log_prob(_t(lib, dt, [-1.0, 1.0])))
    rec("lognormal.transforms", repr(ln.transforms))


def p_biject_to(lib, dt, rec):
    D = lib.distributions
    C = D.constraints
    x = _t(lib, dt, [-1.5, 0.0, 0.7])
    for i, c in enumerate([
        C.real, C.positive, C.nonnegative, C.unit_interval, C.interval(1, 3),
        C.half_open_interval(-1, 2), C.greater_than(2.0), C.greater_than_eq(-1.0),
        C.less_than(2.0), C.simplex, C.real_vector, C.independent(C.positive, 1),
        C.interval(_t(lib, dt, [0.0, 1.0, 2.0]), _t(lib, dt, [1.0, 3.0, 5.0])),
    ]):  # fmt: skip
        for name, fn in (("biject", D.biject_to), ("transform", D.transform_to)):
            t = rec.err(f"{i}.{name}.err", lambda fn=fn, c=c: fn(c))
            if t is None:
                continue
            rec(f"{i}.{name}", repr(t))
            y = t(x)
            rec(f"{i}.{name}.y", y)
            rec(f"{i}.{name}.inv", t.inv(y))
            ladj = rec.err(f"{i}.{name}.ladj.err", lambda t=t, y=y: t.log_abs_det_jacobian(x, y))
            if ladj is not None:
                rec(f"{i}.{name}.ladj", ladj)
            rec(f"{i}.{name}.check", c.check(y))
    m = _t(lib, dt, [[0.3, -0.2, 0.5], [1.0, 0.4, -0.7], [0.2, 0.1, -0.3]])
    for name in ("lower_cholesky", "positive_definite", "corr_cholesky"):
        c = getattr(C, name)
        t = D.transform_to(c)
        rec(name + ".repr", repr(t))
        y = t(m if name != "corr_cholesky" else m[0])
        rec(name + ".y", y)
        rec(name + ".check", c.check(y))
    for c in (C.integer_interval(0, 3), C.boolean, C.dependent, C.one_hot):
        rec.err("missing." + repr(c), lambda c=c: D.biject_to(c))
    rec.err("missing.int", lambda: D.biject_to(5))


def p_kl_registered(lib, dt, rec):
    D = lib.distributions
    kl = D.kl_divergence
    p = _t(lib, dt, [0.2, 0.7])
    q = _t(lib, dt, [0.5, 0.4])
    a = _t(lib, dt, [[0.5, 1.5, 2.5], [3.0, 0.9, 1.1]])
    b = _t(lib, dt, [[1.0, 2.0, 0.5], [0.3, 0.9, 4.0]])
    pairs = [
        ("normal", D.Normal(p, q), D.Normal(q, p + 1)),
        ("bernoulli", D.Bernoulli(p), D.Bernoulli(q)),
        ("bernoulli_edge", D.Bernoulli(_t(lib, dt, [0.0, 1.0])), D.Bernoulli(q)),
        ("bernoulli_inf", D.Bernoulli(p), D.Bernoulli(_t(lib, dt, [0.0, 1.0]))),
        ("categorical", D.Categorical(a), D.Categorical(b)),
        ("categorical_zero", D.Categorical(_t(lib, dt, [0.0, 1.0])), D.Categorical(q)),
        ("onehot", D.OneHotCategorical(a), D.OneHotCategorical(b)),
        ("beta", D.Beta(p + 1, q), D.Beta(q, p)),
        ("gamma", D.Gamma(p + 1, q), D.Gamma(q, p)),
        ("dirichlet", D.Dirichlet(a), D.Dirichlet(b)),
        ("exponential", D.Exponential(p), D.Exponential(q)),
        ("laplace", D.Laplace(p, q), D.Laplace(q, p)),
        ("uniform", D.Uniform(p, p + 0.5), D.Uniform(p - 0.5, p + 1)),
        ("uniform_inf", D.Uniform(p, p + 0.5), D.Uniform(p + 0.1, p + 1)),
        ("poisson", D.Poisson(p), D.Poisson(q)),
        ("binomial", D.Binomial(4, p), D.Binomial(4, q)),
        ("normal_laplace", D.Normal(p, q), D.Laplace(q, p)),
        ("normal_gumbel", D.Normal(p, q), D.Gumbel(q, p)),
        ("uniform_normal", D.Uniform(p, p + 1), D.Normal(q, p)),
        ("uniform_gamma", D.Uniform(p, p + 1), D.Gamma(q + 1, p)),
        ("uniform_beta", D.Uniform(p * 0.5, p), D.Beta(q + 1, p)),
        ("uniform_exponential", D.Uniform(p, p + 1), D.Exponential(q)),
        ("exponential_gamma", D.Exponential(p), D.Gamma(q, p)),
        ("exponential_normal", D.Exponential(p), D.Normal(q, p)),
        ("gamma_exponential", D.Gamma(p + 1, q), D.Exponential(p)),
        ("gamma_normal", D.Gamma(p + 1, q), D.Normal(q, p)),
        ("beta_normal", D.Beta(p + 1, q), D.Normal(q, p)),
        ("beta_uniform", D.Beta(p + 1, q), D.Uniform(q - 1, q + 1)),
        ("beta_exponential", D.Beta(p + 1, q), D.Exponential(p)),
        ("laplace_normal", D.Laplace(p, q), D.Normal(q, p)),
        ("independent", D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(b, a), 1)),
        ("lognormal", D.LogNormal(p, q), D.LogNormal(q, p)),
        (
            "transformed",
            D.TransformedDistribution(D.Normal(p, q), D.transforms.ExpTransform()),
            D.TransformedDistribution(D.Normal(q, p), D.transforms.ExpTransform()),
        ),
    ]
    for tag, d1, d2 in pairs:
        v = rec.err(tag + ".err", lambda d1=d1, d2=d2: kl(d1, d2))
        if v is not None:
            rec(tag, v)
    mvn1 = D.MultivariateNormal(a, scale_tril=lib.diag_embed(b))
    cov = _t(lib, dt, [[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
    mvn2 = D.MultivariateNormal(b[0], cov)
    lr = D.LowRankMultivariateNormal(a[1], a.transpose(0, 1) * 0.3, b[1])
    lr2 = D.LowRankMultivariateNormal(b[0], a[:1].transpose(0, 1), a[0])
    rec("mvn_mvn", kl(mvn1, mvn2))
    rec("mvn_lr", kl(mvn1, lr))
    rec("lr_mvn", kl(lr, mvn2))
    rec("lr_lr", kl(lr, lr2))
    rec("mvn_broadcast", kl(mvn2, D.MultivariateNormal(a, cov)))
    rec.err("mvn.size", lambda: kl(mvn2, D.MultivariateNormal(p, lib.eye(2, dtype=dt))))
    rec.err("lr.size", lambda: kl(lr, D.LowRankMultivariateNormal(p, lib.ones(2, 1, dtype=dt), p)))
    rec.err("categorical.size", lambda: kl(D.Categorical(q), D.Categorical(a[0])))
    rec.err(
        "independent.ndims",
        lambda: kl(D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(a[:1], b[:1]), 2)),
    )
    rec.err("normal.bcast", lambda: kl(D.Normal(p, 1.0), D.Normal(a[0], 1.0)))
    rec("normal.bcast_ok", kl(D.Normal(p, 1.0), D.Normal(a[:, :1], 1.0)))
    fn = D.kl._KL_REGISTRY[(D.Normal, D.Normal)]
    rec("registry.name", fn.__name__)


def p_kl_missing(lib, dt, rec):
    D = lib.distributions
    kl = D.kl_divergence
    p = _t(lib, dt, [0.2, 0.7])
    cases = [
        ("normal_gamma", D.Normal(p, 1.0), D.Gamma(p, 1.0)),
        ("normal_uniform", D.Normal(p, 1.0), D.Uniform(p, p + 1)),
        ("normal_beta", D.Normal(p, 1.0), D.Beta(p, 1.0)),
        ("laplace_poisson", D.Laplace(p, 1.0), D.Poisson(p)),
        ("poisson_bernoulli", D.Poisson(p), D.Bernoulli(p)),
        ("bernoulli_binomial", D.Bernoulli(p), D.Binomial(1, p)),
        ("onehot_categorical", D.OneHotCategorical(p), D.Categorical(p)),
        ("mvn_normal", D.MultivariateNormal(p, lib.eye(2, dtype=dt)), D.Normal(p, 1.0)),
        ("independent_normal", D.Independent(D.Normal(p, 1.0), 1), D.Normal(p, 1.0)),
        ("normal_independent", D.Normal(p, 1.0), D.Independent(D.Normal(p, 1.0), 1)),
        ("mixture", _mix(lib, dt), D.Normal(0.0, 1.0)),
        (
            "transformed_mismatch",
            D.TransformedDistribution(D.Normal(p, 1.0), D.transforms.ExpTransform()),
            D.TransformedDistribution(D.Normal(p, 1.0), D.transforms.SigmoidTransform()),
        ),
        (
            "transformed_lognormal",
            D.TransformedDistribution(D.Normal(p, 1.0), D.transforms.ExpTransform()),
            D.LogNormal(p, 1.0),
        ),
        ("dirichlet_size", D.Dirichlet(lib.ones(2, dtype=dt)), D.Dirichlet(lib.ones(3, dtype=dt))),
        ("binomial_count", D.Binomial(4, p), D.Binomial(3, p)),
    ]
    for tag, d1, d2 in cases:
        v = rec.err(tag, lambda d1=d1, d2=d2: kl(d1, d2))
        if v is not None:
            rec(tag + ".value", v)
    rec.err("not_dist", lambda: kl(D.Normal(0.0, 1.0), 3))
    rec.err("not_dist2", lambda: kl(3, D.Normal(0.0, 1.0)))


def p_user_subclass(lib, dt, rec):
    D = lib.distributions
    C = D.constraints

    class Rate(D.Distribution):
        arg_constraints = {"rate": C.positive}
        support = C.positive
        has_rsample = True

        def __init__(self, rate, validate_args=None):
            self.rate = rate
            super().__init__(rate.shape, validate_args=validate_args)

        @property
        def mean(self):
            return self.rate.reciprocal()

        def rsample(self, sample_shape=()):
            shape = self._extended_shape(sample_shape)
            u = lib.rand(shape, dtype=self.rate.dtype, device=self.rate.device)
            return -u.log1p().neg() / self.rate

        def log_prob(self, value):
            if self._validate_args:
                self._validate_sample(value)
            return self.rate.log() - self.rate * value

    r = _t(lib, dt, [1.0, 2.0])
    rec("repr", repr(Rate(r)))
    rec.err("bad", lambda: Rate(_t(lib, dt, [1.0, -2.0])))
    rec.err("lp_bad", lambda: Rate(r).log_prob(_t(lib, dt, [1.0, -1.0])))
    rec("lp", Rate(r).log_prob(_t(lib, dt, [1.0, 0.5])))
    rec("mean", Rate(r).mean)
    rec("stddev.err", rec.err("stddev", lambda: Rate(r).stddev) or "")
    rec.err("mode", lambda: Rate(r).mode)
    lib.manual_seed(2)
    rec("sample_shape", repr(Rate(r).sample((3,)).shape))
    rec.err("expand", lambda: Rate(r).expand([3, 2]))
    rec.err("kl", lambda: D.kl_divergence(Rate(r), Rate(r)))

    @D.kl.register_kl(Rate, Rate)
    def _kl_rate(p, q):
        return (p.rate / q.rate).log() + q.rate / p.rate - 1

    rec("kl.registered", D.kl_divergence(Rate(r), Rate(r + 1)))

    class Rate2(Rate):
        pass

    rec("kl.subclass", D.kl_divergence(Rate2(r), Rate(r + 1)))
    rec.err("kl.reg_int", lambda: D.kl.register_kl(5, D.Normal))
    rec.err("kl.reg_int2", lambda: D.kl.register_kl(D.Normal, 5))

    class NoArgs(D.Distribution):
        def log_prob(self, value):
            self._validate_sample(value)
            return value

    rec.warns("noargs.ctor", lambda: NoArgs(lib.Size([2])))
    rec.warns("noargs.quiet", lambda: NoArgs(lib.Size([2]), validate_args=False))
    d = NoArgs(lib.Size([2]), validate_args=False)
    d._validate_args = True
    rec.warns("noargs.lp", lambda: d.log_prob(lib.zeros(2, dtype=dt)))

    class Small(C.Constraint):
        event_dim = 0

        def check(self, value):
            return (value > 0) & (value < 10)

    rec("constraint.repr", repr(Small()))

    class Rate3(Rate):
        arg_constraints = {"rate": Small()}

    rec.err("constraint.bad", lambda: Rate3(_t(lib, dt, [1.0, 20.0])))
    rec.err("biject.small", lambda: D.biject_to(Small()))


def p_grads(lib, dt, rec):
    D = lib.distributions
    loc = _randn(lib, dt, 1, 3).requires_grad_(True)
    scale = (_rand(lib, dt, 2, 3) + 0.5).requires_grad_(True)
    x = _randn(lib, dt, 3, 4, 3)
    d = D.Normal(loc, scale)
    lp = d.log_prob(x).sum()
    gl, gs = lib.autograd.grad(lp, (loc, scale), create_graph=True)
    rec("normal.gl", gl)
    rec("normal.gs", gs)
    rec("normal.gg", lib.autograd.grad(gs.sum(), scale)[0])
    lib.manual_seed(6)
    s = d.rsample((5,))
    rec("normal.rsample_grad", lib.autograd.grad((s**2).sum(), (loc, scale)))
    conc = (_rand(lib, dt, 4, 3) + 0.5).requires_grad_(True)
    rate = (_rand(lib, dt, 5, 3) + 0.5).requires_grad_(True)
    for tag, fn in (
        ("gamma", lambda c, r: D.Gamma(c, r).log_prob(_rand(lib, dt, 7, 3) + 0.1)),
        ("beta", lambda c, r: D.Beta(c, r).log_prob(_rand(lib, dt, 8, 3) * 0.8 + 0.1)),
        ("laplace", lambda c, r: D.Laplace(c, r).log_prob(_randn(lib, dt, 9, 3))),
        ("kl_gamma", lambda c, r: D.kl_divergence(D.Gamma(c, r), D.Gamma(r, c))),
        ("kl_beta", lambda c, r: D.kl_divergence(D.Beta(c, r), D.Beta(r, c))),
        ("entropy_beta", lambda c, r: D.Beta(c, r).entropy()),
        ("dirichlet", lambda c, r: D.Dirichlet(c * r).log_prob(_t(lib, dt, [0.2, 0.3, 0.5]))),
    ):
        out = fn(conc, rate)
        rec(tag, out)
        rec(tag + ".grad", lib.autograd.grad(out.sum(), (conc, rate)))
    lib.manual_seed(7)
    g = D.Gamma(conc, rate).rsample((4,))
    rec("gamma.rsample", g)
    # the rate's gradient (-x / rate) only: torch's gradient for the concentration is a fitted
    # approximation (torch._standard_gamma_grad), minitorch's the exact implicit derivative
    rec("gamma.rsample_grad", lib.autograd.grad(g.sum(), rate)[0])
    lib.manual_seed(8)
    b = D.Dirichlet(conc).rsample()
    rec("dirichlet.rsample_grad", lib.autograd.grad((b * rate).sum(), conc)[0])
    if dt is lib.float64:
        gc = lib.autograd.gradcheck
        ggc = lib.autograd.gradgradcheck
        xs = _rand(lib, dt, 10, 3) * 0.8 + 0.1
        for tag, fn in (
            ("normal", lambda a, b: D.Normal(a, b).log_prob(xs)),
            ("beta", lambda a, b: D.Beta(a, b).log_prob(xs)),
            ("gamma", lambda a, b: D.Gamma(a, b).log_prob(xs)),
            (
                "transformed",
                lambda a, b: D.TransformedDistribution(
                    D.Normal(a, b), [D.transforms.SigmoidTransform()]
                ).log_prob(xs),
            ),
            (
                "mvn",
                lambda a, b: D.MultivariateNormal(
                    a, scale_tril=lib.diag_embed(b) + 0.1 * lib.ones(3, 3, dtype=dt).tril(-1)
                ).log_prob(xs),
            ),
            (
                "lowrank",
                lambda a, b: D.LowRankMultivariateNormal(a, b.unsqueeze(-1), b + 1).log_prob(xs),
            ),
        ):
            rec(tag + ".gradcheck", str(gc(fn, (conc, rate))))
            rec(tag + ".gradgradcheck", str(ggc(fn, (conc, rate))))


def p_mvn_forms(lib, dt, rec):
    D = lib.distributions
    a = _randn(lib, dt, 1, 4, 4)
    cov = a @ a.mT + lib.eye(4, dtype=dt)
    loc = _randn(lib, dt, 2, 2, 4)
    x = _randn(lib, dt, 3, 3, 2, 4)
    forms = (
        ("cov", dict(covariance_matrix=cov)),
        ("tril", dict(scale_tril=lib.linalg.cholesky(cov))),
        ("prec", dict(precision_matrix=lib.linalg.inv(cov))),
    )
    for tag, kw in forms:
        d = D.MultivariateNormal(loc, **kw)
        _meta(rec, tag, d)
        _stats(rec, tag, d)
        rec(tag + ".log_prob", d.log_prob(x))
        rec(tag + ".scale_tril", d.scale_tril)
        rec(tag + ".covariance_matrix", d.covariance_matrix)
        rec(tag + ".precision_matrix", d.precision_matrix)
        lib.manual_seed(9)
        rec(tag + ".rsample", d.rsample((2,)))
        e = d.expand([3, 2])
        _meta(rec, tag + ".expand", e)
        rec(tag + ".expand_lp", e.log_prob(x))
    bcov = cov.expand(2, 4, 4)
    d = D.MultivariateNormal(lib.zeros(4, dtype=dt), bcov)
    rec("batched_cov.batch", repr(d.batch_shape))
    rec.err(
        "not_pd",
        lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), _t(lib, dt, [[1.0, 2.0], [2.0, 1.0]])),
    )
    rec.err(
        "not_sym",
        lambda: D.MultivariateNormal(lib.zeros(2, dtype=dt), _t(lib, dt, [[1.0, 0.5], [0.2, 1.0]])),
    )
    rec.err(
        "tril_neg",
        lambda: D.MultivariateNormal(
            lib.zeros(2, dtype=dt), scale_tril=_t(lib, dt, [[1.0, 0.0], [0.2, -1.0]])
        ),
    )
    rec.err(
        "tril_upper",
        lambda: D.MultivariateNormal(
            lib.zeros(2, dtype=dt), scale_tril=_t(lib, dt, [[1.0, 0.5], [0.2, 1.0]])
        ),
    )
    rec.err("loc_0d", lambda: D.MultivariateNormal(lib.zeros((), dtype=dt), cov))
    rec.err("size", lambda: D.MultivariateNormal(lib.zeros(3, dtype=dt), cov))


def p_lowrank(lib, dt, rec):
    D = lib.distributions
    loc = _randn(lib, dt, 1, 2, 4)
    w = _randn(lib, dt, 2, 2, 4, 2) * 0.5
    diag = _rand(lib, dt, 3, 4) + 0.5
    d = D.LowRankMultivariateNormal(loc, w, diag)
    _meta(rec, "lr", d)
    _stats(rec, "lr", d)
    x = _randn(lib, dt, 4, 3, 2, 4)
    rec("lr.log_prob", d.log_prob(x))
    rec("lr.scale_tril", d.scale_tril)
    rec("lr.covariance_matrix", d.covariance_matrix)
    rec("lr.precision_matrix", d.precision_matrix)
    lib.manual_seed(10)
    rec("lr.rsample", d.rsample((3,)))
    e = d.expand([3, 2])
    _meta(rec, "lr.expand", e)
    rec("lr.expand_lp", e.log_prob(x))
    mvn = D.MultivariateNormal(loc, d.covariance_matrix)
    rec("lr.vs_mvn", d.log_prob(x) - mvn.log_prob(x))
    rec.err("neg_diag", lambda: D.LowRankMultivariateNormal(loc, w, -diag))
    rec.err("w_rank", lambda: D.LowRankMultivariateNormal(loc, diag, diag))
    rec.err("w_rows", lambda: D.LowRankMultivariateNormal(loc, w[:, :3], diag))
    rec.err("diag_size", lambda: D.LowRankMultivariateNormal(loc, w, diag[:3]))
    rec.err("loc_0d", lambda: D.LowRankMultivariateNormal(loc[0, 0], w, diag))
    rec.err("lp_event", lambda: d.log_prob(lib.zeros(3, dtype=dt)))


def p_enumerate(lib, dt, rec):
    D = lib.distributions
    for tag, d in (
        ("bernoulli", D.Bernoulli(_t(lib, dt, [0.3, 0.2]))),
        ("categorical", D.Categorical(_t(lib, dt, [[0.3, 0.2, 0.5]]))),
        ("onehot", D.OneHotCategorical(_t(lib, dt, [[0.3, 0.2, 0.5], [0.1, 0.1, 0.8]]))),
        ("binomial", D.Binomial(3, _t(lib, dt, [0.3, 0.2]))),
    ):
        for expand in (True, False):
            s = d.enumerate_support(expand=expand)
            rec(f"{tag}.{expand}", s)
            rec(f"{tag}.{expand}.lp", d.log_prob(s))
    rec.err(
        "binomial.counts",
        lambda: D.Binomial(lib.tensor([5, 4]), _t(lib, dt, [0.2, 0.4])).enumerate_support(),
    )
    rec.err("poisson", lambda: D.Poisson(_t(lib, dt, [1.0])).enumerate_support())
    rec.err("normal", lambda: D.Normal(0.0, 1.0).enumerate_support())
    rec(
        "flags",
        str(
            [
                D.Bernoulli(0.3).has_enumerate_support,
                D.Poisson(1.0).has_enumerate_support,
                D.Binomial(3, 0.5).has_enumerate_support,
            ]
        ),
    )


def p_cdf_icdf(lib, dt, rec):
    D = lib.distributions
    v = _t(lib, dt, [-0.5, 0.0, 0.3, 0.9, 2.0])
    q = _t(lib, dt, [0.0, 0.1, 0.5, 0.9, 1.0])
    for tag, d in (
        ("normal", D.Normal(_t(lib, dt, 0.2), _t(lib, dt, 1.3))),
        ("exponential", D.Exponential(_t(lib, dt, 2.0))),
        ("laplace", D.Laplace(_t(lib, dt, 0.2), _t(lib, dt, 0.7))),
        ("uniform", D.Uniform(_t(lib, dt, -1.0), _t(lib, dt, 3.0))),
        ("gamma", D.Gamma(_t(lib, dt, 2.0), _t(lib, dt, 1.5))),
        ("beta", D.Beta(_t(lib, dt, 2.0), _t(lib, dt, 1.5))),
        ("cauchy", D.Cauchy(_t(lib, dt, 0.0), _t(lib, dt, 1.5))),
    ):
        out = rec.err(tag + ".cdf.err", lambda d=d: d.cdf(v))
        if out is not None:
            rec(tag + ".cdf", out)
        out = rec.err(tag + ".icdf.err", lambda d=d: d.icdf(q))
        if out is not None:
            rec(tag + ".icdf", out)
    n = D.Normal(0.0, 1.0)
    rec.err("normal.icdf_out", lambda: n.icdf(_t(lib, dt, [1.5])))
    rec.err("uniform.icdf_out", lambda: D.Uniform(0.0, 1.0).icdf(_t(lib, dt, [-0.5])))
    rec.err("exponential.cdf_neg", lambda: D.Exponential(_t(lib, dt, 2.0)).cdf(_t(lib, dt, [-1.0])))
    rec.err("normal.cdf_nan", lambda: n.cdf(_t(lib, dt, [float("nan")])))
    rec("normal.cdf_inf", n.cdf(_t(lib, dt, [float("inf"), -float("inf")])))
    rec.err("normal.cdf_float", lambda: n.cdf(0.5))


def p_transform_props(lib, dt, rec):
    D = lib.distributions
    T = D.transforms
    x = _t(lib, dt, [-1.0, 0.5, 2.0])
    items = [
        T.ExpTransform(), T.AffineTransform(1.0, 2.0), T.AffineTransform(0.0, -3.0),
        T.SigmoidTransform(), T.TanhTransform(), T.SoftplusTransform(), T.AbsTransform(),
        T.PowerTransform(_t(lib, dt, 2.0)), T.ComposeTransform([T.ExpTransform(),
        T.AffineTransform(1.0, 2.0)]), T.ComposeTransform([]), T.ExpTransform().inv,
        T.IndependentTransform(T.ExpTransform(), 1), T.SoftmaxTransform(),
        T.StickBreakingTransform(), T.identity_transform,
    ]  # fmt: skip
    for i, t in enumerate(items):
        rec(f"{i}.repr", repr(t))
        rec(f"{i}.domain", repr(t.domain))
        rec(f"{i}.codomain", repr(t.codomain))
        rec(f"{i}.flags", str((t.bijective, t.event_dim, t.domain.event_dim)))
        rec(f"{i}.sign", str(rec.err(f"{i}.sign.err", lambda t=t: t.sign)))
        rec(f"{i}.inv", repr(t.inv))
        y = t(x)
        rec(f"{i}.y", y)
        if t.bijective:
            rec(f"{i}.ladj", t.log_abs_det_jacobian(x, y))
            rec(f"{i}.x", t.inv(y))
        rec(f"{i}.shape", str((t.forward_shape((2, 3)), t.inverse_shape((2, 3)))))
    rec(
        "eq",
        str(
            [
                T.ExpTransform() == T.ExpTransform(),
                T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0),
                T.ExpTransform() == T.SigmoidTransform(),
                T.ExpTransform().inv.inv,
            ]
        ),
    )
    rec("affine_sign_t", repr(T.AffineTransform(1.0, _t(lib, dt, [-2.0, 2.0])).sign))
    rec("cache", repr(T.ExpTransform().with_cache(1)))
    rec.err("cache2", lambda: T.ExpTransform(cache_size=2))
    rec.err("cache3", lambda: T.ExpTransform().with_cache(2))
    t = T.ExpTransform(cache_size=1)
    y = t(x)
    rec("cache.same", str(t.inv(y) is x))
    rec.err("stick.shape", lambda: T.StickBreakingTransform().inverse_shape(()))
    rec.err("reshape.bad", lambda: T.ReshapeTransform((2, 3), (5,)))
    r = T.ReshapeTransform((2, 3), (6,))
    rec("reshape", repr(r))
    rec("reshape.y", r(_randn(lib, dt, 1, 4, 2, 3)))
    rec.err("compose.bad", lambda: T.ComposeTransform([T.ExpTransform(), 5]))
    rec.err("cat.bad", lambda: T.CatTransform([T.ExpTransform(), 5], 0))
    rec.err("stack.bad", lambda: T.StackTransform([T.ExpTransform(), "exp"], 0))
    cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], 0, [1, 2])
    rec("cat", cat(x))
    rec("cat.ladj", cat.log_abs_det_jacobian(x, cat(x)))
    st = T.StackTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], 0)
    rec("stack", st(_randn(lib, dt, 2, 2, 3)))
    cdf = T.CumulativeDistributionTransform(D.Normal(_t(lib, dt, 0.0), _t(lib, dt, 1.0)))
    rec("cdf_t", cdf(x))
    rec("cdf_t.domain", repr(cdf.domain))
    rec("cdf_t.ladj", cdf.log_abs_det_jacobian(x, cdf(x)))


def p_vae_step(lib, dt, rec):
    """A VAE's Gaussian posterior: reparameterised sample, KL to the prior, a few Adam steps,
    and the validation error when a log-variance underflows the scale to zero."""
    D = lib.distributions
    lib.manual_seed(12)
    enc = lib.nn.Linear(4, 6).to(dt)
    dec = lib.nn.Linear(3, 4).to(dt)
    opt = lib.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    x = _randn(lib, dt, 13, 8, 4)
    prior = D.Normal(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt))
    for step in range(3):
        mu, logvar = enc(x).chunk(2, dim=-1)
        q = D.Normal(mu, (0.5 * logvar).exp())
        z = q.rsample()
        lik = D.Independent(D.Normal(dec(z), 1.0), 1)
        kl = D.kl_divergence(q, prior).sum(-1)
        loss = (kl - lik.log_prob(x)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"kl{step}", kl)
    rec("q.repr", repr(q))
    rec("lik.repr", repr(lik))
    rec.params("enc", enc)
    big = lib.full((2, 3), -2000.0, dtype=dt)
    rec.err("underflow", lambda: D.Normal(lib.zeros(2, 3, dtype=dt), (0.5 * big).exp()))


def p_policy(lib, dt, rec):
    """Policy-gradient heads: a Categorical over logits and a tanh-squashed Independent Normal
    with cache_size=1 (the SAC recipe), log-probabilities of the sampled actions, entropies."""
    D = lib.distributions
    T = D.transforms
    lib.manual_seed(14)
    logits = _randn(lib, dt, 15, 5, 4).requires_grad_(True)
    pi = D.Categorical(logits=logits)
    a = pi.sample()
    rec("cat.action", a)
    lp = pi.log_prob(a)
    rec("cat.log_prob", lp)
    rec("cat.entropy", pi.entropy())
    adv = _randn(lib, dt, 16, 5)
    (-(lp * adv).mean() - 0.01 * pi.entropy().mean()).backward()
    rec("cat.grad", logits.grad)
    rec.err("cat.bad_action", lambda: pi.log_prob(a + 4))
    mu = _randn(lib, dt, 17, 5, 2).requires_grad_(True)
    log_std = (_randn(lib, dt, 18, 5, 2) * 0.3).requires_grad_(True)
    base = D.Independent(D.Normal(mu, log_std.exp()), 1)
    squashed = D.TransformedDistribution(base, [T.TanhTransform(cache_size=1)])
    rec("sq.repr", repr(squashed))
    rec("sq.shapes", repr((squashed.batch_shape, squashed.event_shape)))
    act = squashed.rsample()
    rec("sq.action", act)
    lp = squashed.log_prob(act)
    rec("sq.log_prob", lp)
    lp.sum().backward()
    rec("sq.grad_mu", mu.grad)
    rec("sq.grad_log_std", log_std.grad)
    rec.err("sq.out", lambda: squashed.log_prob(lib.full((5, 2), 1.5, dtype=dt)))
    rec.err("sq.entropy", squashed.entropy)


def p_flow(lib, dt, rec):
    """A normalizing flow written by the user: a Transform that is also an nn.Module (Pyro's
    TransformModule pattern), stacked in a TransformedDistribution and trained by Adam."""
    D = lib.distributions
    T = D.transforms
    C = D.constraints

    class Planar(T.Transform, lib.nn.Module):
        domain = C.real_vector
        codomain = C.real_vector
        bijective = True
        __hash__ = lib.nn.Module.__hash__  # Transform's __eq__ leaves it unhashable (Pyro's fix)

        def __init__(self, dim):
            super().__init__(cache_size=1)
            self.u = lib.nn.Parameter(_randn(lib, dt, 19, dim) * 0.1)
            self.w = lib.nn.Parameter(_randn(lib, dt, 20, dim) * 0.1)
            self.b = lib.nn.Parameter(lib.zeros(1, dtype=dt))

        def _call(self, x):
            return x + self.u * lib.tanh(x @ self.w + self.b).unsqueeze(-1)

        def log_abs_det_jacobian(self, x, y):
            h = 1 - lib.tanh(x @ self.w + self.b) ** 2
            return (1 + h * (self.u @ self.w)).abs().log()

    base = D.MultivariateNormal(lib.zeros(2, dtype=dt), lib.eye(2, dtype=dt))
    affine = T.AffineTransform(lib.zeros(2, dtype=dt), 2.0, event_dim=1, cache_size=1)
    flows = [Planar(2), affine]
    d = D.TransformedDistribution(base, flows)
    rec("repr", repr(d))
    rec("shapes", repr((d.batch_shape, d.event_shape, d.support)))
    rec("module", repr(flows[0]))
    opt = lib.optim.Adam(flows[0].parameters(), lr=0.05)
    data = _randn(lib, dt, 21, 16, 2) * 1.5 + 0.5
    lib.manual_seed(22)
    for step in range(4):
        z = d.rsample((16,))  # log_prob(z) inverts the flow through the transforms' caches
        loss = d.log_prob(z).mean() + (z.mean(0) - data.mean(0)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("planar", flows[0])
    rec.err("inverse", lambda: d.log_prob(data))


def p_gmm_fit(lib, dt, rec):
    """A Gaussian mixture fitted by maximum likelihood with MixtureSameFamily of Independent
    Normals; its parameters stay valid through softplus, and an invalid weight vector fails."""
    D = lib.distributions
    lib.manual_seed(23)
    data = lib.cat([_randn(lib, dt, 24, 30, 2) - 2.0, _randn(lib, dt, 25, 30, 2) * 0.5 + 1.5])
    logits = lib.zeros(3, dtype=dt, requires_grad=True)
    means = (_randn(lib, dt, 26, 3, 2)).requires_grad_(True)
    raw = lib.zeros(3, 2, dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([logits, means, raw], lr=0.1)
    F = lib.nn.functional
    for step in range(5):
        comp = D.Independent(D.Normal(means, F.softplus(raw) + 1e-3), 1)
        gmm = D.MixtureSameFamily(D.Categorical(logits=logits), comp)
        nll = -gmm.log_prob(data).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        rec(f"nll{step}", nll)
    rec("repr", repr(gmm))
    rec("mean", gmm.mean)
    rec("variance", gmm.variance)
    rec("means", means)
    lib.manual_seed(27)
    rec("sample", gmm.sample((3,)))
    bad = lib.tensor([0.5, -0.1, 0.6], dtype=dt)
    rec.err("bad_weights", lambda: D.MixtureSameFamily(D.Categorical(probs=bad), comp))


def p_user_transform(lib, dt, rec):
    """A user's Transform subclass: with its domain/codomain it composes into a
    TransformedDistribution; without them reading event_dim, inv or the distribution fails."""
    D = lib.distributions
    T = D.transforms
    C = D.constraints

    class Scale(T.Transform):
        bijective = True

        def __init__(self, s, cache_size=0):
            super().__init__(cache_size=cache_size)
            self.s = s

        def _call(self, x):
            return x * self.s

        def _inverse(self, y):
            return y / self.s

        def log_abs_det_jacobian(self, x, y):
            return self.s.abs().log().expand(x.shape)

    class PosScale(Scale):
        domain = C.positive
        codomain = C.positive

    s = _t(lib, dt, [2.0, 0.5])
    t = Scale(s)
    rec("call", t(_t(lib, dt, [1.0, 3.0])))
    rec("repr", repr(t))
    rec("state", str(sorted(t.__getstate__())))
    rec.err("domain", lambda: t.domain)
    rec.err("event_dim", lambda: t.event_dim)
    rec.err("inv.domain", lambda: t.inv.domain)
    rec.err("compose", lambda: T.ComposeTransform([t, T.ExpTransform()]).domain)
    rec.err("transformed", lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [t]))
    rec.err("cache", lambda: t.with_cache(1))
    p = PosScale(s)
    d = D.TransformedDistribution(D.Gamma(_t(lib, dt, [2.0, 3.0]), 1.0), [p])
    rec("d.repr", repr(d))
    rec("d.support", repr(d.support))
    rec("d.log_prob", d.log_prob(_t(lib, dt, [1.0, 0.3])))
    rec.err("d.out", lambda: d.log_prob(_t(lib, dt, [-1.0, 0.3])))
    lib.manual_seed(28)
    rec("d.sample", d.sample((3,)))
    rec("d.inv", p.inv(_t(lib, dt, [1.0, 0.3])))
    rec("d.inv_repr", repr(p.inv))
    rec.err("d.sign", lambda: p.sign)
    rec("eq", str((p == p, p == PosScale(s), p.inv == p.inv, p.inv.inv is p)))
    rec.err("bad_cache", lambda: PosScale(s, cache_size=3))
    rec("state_cached", str(sorted(PosScale(s, cache_size=1).__getstate__())))


def p_samples_wide(lib, dt, rec):
    """Draws from parameters across each sampler's regimes (torch's generator stream)."""
    D = lib.distributions
    lib.manual_seed(29)
    rec("poisson", D.Poisson(_t(lib, dt, [0.5, 5.0, 15.0, 150.0, 1e4])).sample((20,)))
    n = _t(lib, dt, [1.0, 10.0, 100.0, 1000.0, 1e5])
    p = _t(lib, dt, [0.01, 0.3, 0.5, 0.9, 0.999])
    rec("binomial", D.Binomial(n, p).sample((20,)))
    a = _t(lib, dt, [0.01, 0.5, 1.0, 5.0, 1e3])
    rec("gamma", D.Gamma(a, 1.0).sample((20,)))
    rec("beta", D.Beta(a, 2.0).sample((20,)))
    rec("dirichlet", D.Dirichlet(a).sample((20,)))
    rec("categorical", D.Categorical(_rand(lib, dt, 30, 7, 300)).sample((20,)))
    rec("onehot", D.OneHotCategorical(_rand(lib, dt, 31, 7, 3)).sample((5,)))
    rec("mvn", D.MultivariateNormal(lib.zeros(3, dtype=dt), lib.eye(3, dtype=dt) * 2).sample((5,)))
    rec("laplace", D.Laplace(lib.zeros(3, dtype=dt), 2.0).sample((20,)))
    rec("exponential", D.Exponential(lib.ones(3, dtype=dt)).sample((20,)))
    rec("uniform", D.Uniform(lib.zeros(3, dtype=dt), 2.0).sample((20,)))
    rec("bernoulli", D.Bernoulli(_rand(lib, dt, 32, 3)).sample((20,)))
    rec("bernoulli_l", D.Bernoulli(logits=_randn(lib, dt, 33, 3)).sample((20,)))
    rec("lognormal", D.LogNormal(lib.zeros(3, dtype=dt), 2.0).sample((20,)))
    rec("binomial_0", D.Binomial(lib.tensor([0, 3]), _t(lib, dt, [0.5, 1.0])).sample((3,)))


def p_kl_dispatch(lib, dt, rec):
    """User registrations and torch's dispatch: the most specific pair wins, an ambiguous pair
    warns (RuntimeWarning) and takes the left-first match, a subclass inherits its parent's."""
    D = lib.distributions

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    @D.kl.register_kl(A, D.Normal)
    def _kl_a(p, q):
        return lib.ones(p.batch_shape, dtype=dt)

    @D.kl.register_kl(D.Normal, B)
    def _kl_b(p, q):
        return lib.full(p.batch_shape, 2.0, dtype=dt)

    x = _t(lib, dt, [0.0, 1.0])
    rec("a_normal", D.kl_divergence(A(x, 1.0), D.Normal(x, 2.0)))
    rec("normal_b", D.kl_divergence(D.Normal(x, 1.0), B(x, 2.0)))
    rec("normal_normal", D.kl_divergence(D.Normal(x, 1.0), D.Normal(x, 2.0)))
    rec("a_b", rec.warns("a_b.warns", lambda: D.kl_divergence(A(x, 1.0), B(x, 2.0))))
    rec("a_b.memo", rec.warns("a_b.memo.warns", lambda: D.kl_divergence(A(x, 1.0), B(x, 2.0))))

    @D.kl.register_kl(A, B)
    def _kl_ab(p, q):
        return lib.full(p.batch_shape, 3.0, dtype=dt)

    rec("a_b.registered", D.kl_divergence(A(x, 1.0), B(x, 2.0)))
    rec.err("a_gamma", lambda: D.kl_divergence(A(x, 1.0), D.Gamma(x + 1, 1.0)))
    rec.err("b_a_exp", lambda: D.kl_divergence(D.Exponential(x + 1), B(x, 1.0)))
