"""Session 36 (helper markov): Markov-chain and hidden-Markov-model programs written the way such
code is written in torch, run under torch and minitorch with the same seeds and compared record
by record: transition matrices normalised by sum(dim=-1, keepdim=True), softmax and F.normalize;
n-step distributions by linalg.matrix_power (n = 0, 1, negative, batched, integer, into out=)
and by repeated matmul, bmm, einsum and multi_dot; stationary distributions by power iteration,
by linalg.solve of (P^T - I) with a replaced row (batched too, and under vmap), by lstsq, pinv,
lu_solve, SVD/QR/eigh null spaces; absorbing chains (gambler's ruin) with linalg.inv fundamental
matrices, absorption probabilities and step variances; hitting times, Kac's formula, committors;
reversible chains, spectral gaps by eigh/eigvalsh, PageRank; HMM forward and backward passes in
log space (logsumexp over broadcast sums, log_softmax parameters, masked variable lengths, -inf
transitions of left-to-right models), scaled forward passes and underflow, posteriors and
two-slice marginals, Viterbi with max/argmax and gather backtracking, Baum-Welch expected counts
(einsum, index_add_, scatter_add_) and updates, Gaussian-emission HMMs with Normal and
MixtureSameFamily; trajectories sampled with multinomial(generator=) and Categorical under
manual_seed, forward-filtering backward-sampling, Gumbel-max and gumbel_softmax draws,
Metropolis chains, Dirichlet priors on rows; continuous-time chains by matrix_exp of rate
matrices (semigroup, uniformisation, batched); gradients of log-likelihoods w.r.t. logits
(backward, autograd.grad double backward, Adam and SGD fits, an nn.Module HMM, gradcheck and
gradgradcheck), and the errors users hit (matrix_power, matrix_exp, inv, solve, multinomial,
Categorical, logsumexp, gather, one_hot, bincount). float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- linalg.matrix_power / matrix_power / Tensor.matrix_power and linalg.matrix_exp / matrix_exp
  called without an argument or with one too many gave Python's TypeError texts ("missing 1
  required positional argument: 'n'", "takes from 0 to 2 ..."); now torch's parser's
  ('missing 1 required positional arguments: "n"', 'missing 2 required positional argument:
  "input", "n"', "matrix_power() takes 1 positional argument but 2 were given").
- matrix_power with an n beyond int64 (2**63, 10**30) ran 63+ squarings; torch's ValueError
  "Overflow when unpacking long long".
- linalg.inv (and inverse, and matrix_power with n = -1) of a singular matrix into an out= of
  another dtype raised LinAlgError; torch refuses the out dtype first ("Expected out tensor to
  have dtype float, but got double instead"). n <= -2 still factors first, as torch.
- multinomial's num_samples as a one-element integer tensor of rank >= 1 (tensor([2])) was a
  TypeError; torch's parser reads it as a SymInt, so it draws.

Known and left (documented):
- linalg.eig/eigvals (complex results) are not supported: the programs use eigh/eigvalsh of
  symmetrised (reversible) chains and SVD null spaces instead.
- No sparse layouts: Tensor.to_sparse is missing; torch.sparse.mm is recorded on dense inputs.
- matrix_exp of a float32 matrix whose exponential overflows ([[1000, 0], [0, 1]]): torch's
  scaling and squaring gives NaN everywhere, minitorch inf on the diagonal and 0 elsewhere. Not
  recorded.
- multinomial(probs, tensor([True])): torch fails an internal assert; minitorch's TypeError.
- Tensor.matrix_exp(2) / unknown keywords of C-level methods: torch's texts ("TensorBase.
  matrix_exp() takes no arguments (1 given)", "matrix_power() got an unexpected keyword
  argument") differ from Python's "Tensor.*" wording; not recorded.
- Adam from an all-zero start turns a rounding-noise gradient (-2.8e-16 against 0) into a
  full step: the programs start fits from random values.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "transition_norm", "nstep", "stationary", "absorbing", "hmm_forward", "hmm_posteriors",
    "viterbi", "baum_welch", "sample_chain", "categorical_chain", "ctmc", "loglik_grads",
    "bigram_counts", "pagerank", "reversible", "scaled_forward", "ffbs", "hitting",
    "matrix_exp_grad", "entropy_rate", "hmm_module", "mixing", "batched_solve",
    "gradcheck", "left_right_hmm", "gaussian_hmm", "nullspace", "dirichlet_prior", "metropolis",
    "gumbel", "matrix_power_grad",
]  # fmt: skip

CALLS = ["matrix_power_errors", "multinomial_errors", "categorical_errors", "misc_errors"]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", CALLS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["c_" + name], torch)


# --- helpers ---


def _stochastic(lib, dt, seed, *shape, temp=1.0):
    """A random row-stochastic matrix (..., K, K): exp of scaled normals over their row sums."""
    w = (_randn(lib, dt, seed, *shape) * temp).exp()
    return w / w.sum(dim=-1, keepdim=True)


def _obs(lib, seed, n, t, v):
    return lib.randint(0, v, (n, t), generator=_gen(lib, seed))


def _hmm_params(lib, dt, seed, k, v, grad=False):
    """HMM logits (initial, transition, emission) parameterised by log_softmax."""
    pi = _randn(lib, dt, seed, k)
    a = _randn(lib, dt, seed + 1, k, k)
    b = _randn(lib, dt, seed + 2, k, v)
    if grad:
        for t in (pi, a, b):
            t.requires_grad_(True)
    return pi, a, b


def _forward(lib, log_pi, log_a, log_b, obs):
    """Log-space forward pass: alphas (N, T, K) and log-likelihoods (N,)."""
    n, t = obs.shape
    alpha = log_pi + log_b[:, obs[:, 0]].T
    alphas = [alpha]
    for s in range(1, t):
        alpha = lib.logsumexp(alpha.unsqueeze(-1) + log_a, dim=-2) + log_b[:, obs[:, s]].T
        alphas.append(alpha)
    return lib.stack(alphas, dim=1), lib.logsumexp(alpha, dim=-1)


def _backward(lib, log_a, log_b, obs):
    n, t = obs.shape
    k = log_a.shape[0]
    beta = lib.zeros(n, k, dtype=log_a.dtype)
    betas = [beta]
    for s in range(t - 1, 0, -1):
        beta = lib.logsumexp(log_a + (log_b[:, obs[:, s]].T + beta).unsqueeze(-2), dim=-1)
        betas.append(beta)
    return lib.stack(betas[::-1], dim=1)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_transition_norm(lib, dt, rec):
    counts = lib.randint(0, 9, (3, 4, 4), generator=_gen(lib, 1)).to(dt)
    counts[0, 1] = 0.0
    smoothed = counts + 0.5
    p = smoothed / smoothed.sum(dim=-1, keepdim=True)
    rec("p", p)
    rec("rowsum", p.sum(-1))
    raw = counts / counts.sum(dim=-1, keepdim=True)
    rec("raw_nan", raw.isnan().any(-1))
    rec("raw_fixed", lib.nan_to_num(raw, nan=0.25))
    logits = _randn(lib, dt, 2, 2, 5, 5)
    p2 = lib.softmax(logits, dim=-1)
    rec("softmax", p2)
    rec("log_softmax", lib.log_softmax(logits, -1))
    rec("exp_ls", lib.log_softmax(logits, -1).exp() - p2)
    p3 = lib.nn.functional.normalize(logits.exp(), p=1, dim=-1)
    rec("normalize", p3)
    rec("is_stoch", lib.allclose(p3.sum(-1), lib.ones((), dtype=dt)))
    rec("rows_dtype", str(p.sum(-1, keepdim=True).shape))
    rec("div_", counts.add_(1.0).div_(counts.sum(-1, keepdim=True)))


def p_nstep(lib, dt, rec):
    p = _stochastic(lib, dt, 3, 4, 4)
    p0 = lib.tensor([1.0, 0.0, 0.0, 0.0], dtype=dt)
    for n in (0, 1, 2, 3, 7, 20):
        pn = lib.linalg.matrix_power(p, n)
        rec(f"P^{n}", pn)
        rec(f"p{n}", p0 @ pn)
    rec("neg", lib.linalg.matrix_power(p, -2))
    rec("neg_check", lib.linalg.matrix_power(p, -2) @ p @ p)
    q = p.clone()
    dist = p0.clone()
    for _ in range(7):
        q = q @ p
        dist = dist @ p
    rec("loop_q", q)
    rec("loop_dist", dist)
    rec("mp_method", p.matrix_power(8) - q)
    batch = _stochastic(lib, dt, 4, 3, 2, 3, 3)
    rec("batched", lib.linalg.matrix_power(batch, 5))
    rec("batched_neg", lib.linalg.matrix_power(batch, -1))
    rec("torch_mp", lib.matrix_power(batch, 3))
    pi = lib.full((2, 3), 1.0 / 3, dtype=dt)
    rec("bmm", lib.bmm(pi.unsqueeze(1), batch[0]).squeeze(1))
    rec("einsum", lib.einsum("bi,bij->bj", pi, batch[1]))
    rec("chain", lib.linalg.multi_dot([p0.unsqueeze(0), p, p, p]).squeeze(0))
    rec("empty", lib.linalg.matrix_power(lib.zeros(0, 3, 3, dtype=dt), 4).shape)
    ip = lib.linalg.matrix_power(lib.tensor([[0, 1], [1, 1]]), 10)
    rec("int", ip)


def p_stationary(lib, dt, rec):
    k = 5
    p = _stochastic(lib, dt, 5, k, k)
    pi = lib.full((k,), 1.0 / k, dtype=dt)
    for _ in range(60):
        pi = pi @ p
    rec("power", pi)
    a = p.T - lib.eye(k, dtype=dt)
    a[-1] = 1.0
    b = lib.zeros(k, dtype=dt)
    b[-1] = 1.0
    st = lib.linalg.solve(a, b)
    rec("solve", st)
    rec("residual", st @ p - st)
    rec("solve_old", lib.linalg.solve(a, b.unsqueeze(-1)).squeeze(-1))
    a2 = lib.cat([(p.T - lib.eye(k, dtype=dt))[:-1], lib.ones(1, k, dtype=dt)])
    rec("cat_row", lib.linalg.solve(a2, b))
    a3 = lib.vstack([p.T - lib.eye(k, dtype=dt), lib.ones(1, k, dtype=dt)])
    b3 = lib.cat([lib.zeros(k, dtype=dt), lib.ones(1, dtype=dt)])
    rec("lstsq", lib.linalg.lstsq(a3, b3.unsqueeze(-1)).solution.squeeze(-1))
    rec("pinv", lib.linalg.pinv(a3) @ b3)
    rec("inv", lib.linalg.inv(a) @ b)
    lu, piv = lib.linalg.lu_factor(a)
    rec("lu_solve", lib.linalg.lu_solve(lu, piv, b.unsqueeze(-1)).squeeze(-1))
    # symmetric eigen problem of a doubly-stochastic chain
    s = p + p.T
    s = s / s.sum(-1, keepdim=True).max()
    s = s + lib.diag(1.0 - s.sum(-1))
    evals = lib.linalg.eigvalsh(s)
    rec("eigvalsh", evals)
    rec("gap", 1 - evals[-2])


def p_absorbing(lib, dt, rec):
    # gambler's ruin with 4 transient states and 2 absorbing states
    k = 4
    q = lib.zeros(k, k, dtype=dt)
    idx = lib.arange(k - 1)
    q[idx, idx + 1] = 0.45
    q[idx + 1, idx] = 0.55
    r = lib.zeros(k, 2, dtype=dt)
    r[0, 0] = 0.55
    r[-1, 1] = 0.45
    n = lib.linalg.inv(lib.eye(k, dtype=dt) - q)
    rec("N", n)
    t = n @ lib.ones(k, dtype=dt)
    rec("steps", t)
    rec("var", (2 * n - lib.eye(k, dtype=dt)) @ t - t * t)
    b = n @ r
    rec("B", b)
    rec("B_rows", b.sum(-1))
    rec("solve", lib.linalg.solve(lib.eye(k, dtype=dt) - q, r))
    full = lib.zeros(k + 2, k + 2, dtype=dt)
    full[:k, :k] = q
    full[:k, k:] = r
    full[k:, k:] = lib.eye(2, dtype=dt)
    rec("limit", lib.linalg.matrix_power(full, 200)[:k, k:])
    rec("inv_ex", lib.linalg.inv_ex(lib.eye(k, dtype=dt) - q).info)
    qs = _stochastic(lib, dt, 6, 3, 3, 3) * 0.8
    ns = lib.linalg.inv(lib.eye(3, dtype=dt) - qs)
    rec("batched_N", ns)
    rec("diag_N", lib.diagonal(ns, dim1=-2, dim2=-1))
    h = (ns - lib.eye(3, dtype=dt)) / lib.diagonal(ns, dim1=-2, dim2=-1).unsqueeze(-2)
    rec("hit_prob", h)
    rec("det", lib.linalg.det(lib.eye(3, dtype=dt) - qs))
    rec("slogdet", lib.linalg.slogdet(lib.eye(3, dtype=dt) - qs).logabsdet)


def p_hmm_forward(lib, dt, rec):
    k, v = 3, 4
    pi, a, b = _hmm_params(lib, dt, 10, k, v)
    log_pi = lib.log_softmax(pi, -1)
    log_a = lib.log_softmax(a, -1)
    log_b = lib.log_softmax(b, -1)
    obs = _obs(lib, 11, 5, 7, v)
    alphas, ll = _forward(lib, log_pi, log_a, log_b, obs)
    rec("alphas", alphas)
    rec("ll", ll)
    # brute force over all state sequences for the first sequence (T = 3)
    o = obs[0, :3]
    seqs = lib.cartesian_prod(lib.arange(k), lib.arange(k), lib.arange(k))
    lp = log_pi[seqs[:, 0]] + log_b[seqs[:, 0], o[0]]
    for s in (1, 2):
        lp = lp + log_a[seqs[:, s - 1], seqs[:, s]] + log_b[seqs[:, s], o[s]]
    rec("brute", lib.logsumexp(lp, 0))
    rec("fwd3", lib.logsumexp(alphas[0, 2], -1))
    # the same through a matrix product of probabilities
    pa = log_a.exp()
    alpha = log_pi.exp() * log_b.exp()[:, obs[:, 0]].T
    for s in range(1, obs.shape[1]):
        alpha = (alpha @ pa) * log_b.exp()[:, obs[:, s]].T
    rec("prob_ll", alpha.sum(-1).log())
    # masked variable-length batch
    lengths = lib.tensor([7, 5, 3, 6, 1])
    mask = lib.arange(7).unsqueeze(0) < lengths.unsqueeze(1)
    alpha = log_pi + log_b[:, obs[:, 0]].T
    for s in range(1, 7):
        new = lib.logsumexp(alpha.unsqueeze(-1) + log_a, dim=-2) + log_b[:, obs[:, s]].T
        alpha = lib.where(mask[:, s : s + 1], new, alpha)
    rec("masked_ll", lib.logsumexp(alpha, -1))
    gathered = log_b.T[obs]
    rec("gather_emit", gathered)
    rec("emit_idx", lib.gather(log_b.expand(5, k, v), 2, obs[:, :1].unsqueeze(1).expand(5, k, 1)))


def p_hmm_posteriors(lib, dt, rec):
    k, v = 4, 3
    pi, a, b = _hmm_params(lib, dt, 20, k, v)
    log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
    obs = _obs(lib, 21, 3, 6, v)
    alphas, ll = _forward(lib, log_pi, log_a, log_b, obs)
    betas = _backward(lib, log_a, log_b, obs)
    rec("betas", betas)
    rec("ll_check", lib.logsumexp(alphas + betas, -1) - ll.unsqueeze(-1))
    gamma = lib.softmax(alphas + betas, dim=-1)
    rec("gamma", gamma)
    emit = log_b[:, obs[:, 1:]].permute(1, 2, 0)
    xi = (
        alphas[:, :-1].unsqueeze(-1)
        + log_a
        + (emit + betas[:, 1:]).unsqueeze(-2)
        - ll.view(-1, 1, 1, 1)
    )
    rec("xi", xi.exp())
    rec("xi_marg", xi.exp().sum(-1) - gamma[:, :-1])
    rec("decode", gamma.max(-1).values)


def _viterbi(lib, log_pi, log_a, log_b, obs):
    n, t = obs.shape
    delta = log_pi + log_b[:, obs[:, 0]].T
    back = []
    for s in range(1, t):
        scores = delta.unsqueeze(-1) + log_a
        delta, arg = scores.max(dim=-2)
        delta = delta + log_b[:, obs[:, s]].T
        back.append(arg)
    best, last = delta.max(-1)
    path = [last]
    for arg in reversed(back):
        last = arg.gather(1, last.unsqueeze(1)).squeeze(1)
        path.append(last)
    return best, lib.stack(path[::-1], dim=1)


def p_viterbi(lib, dt, rec):
    k, v = 4, 5
    pi, a, b = _hmm_params(lib, dt, 30, k, v)
    log_pi, log_a, log_b = (lib.log_softmax(t * 2, -1) for t in (pi, a, b))
    obs = _obs(lib, 31, 4, 8, v)
    best, path = _viterbi(lib, log_pi, log_a, log_b, obs)
    rec("best", best)
    rec("path", path)
    score = log_pi[path[:, 0]] + log_b[path[:, 0], obs[:, 0]]
    score = score + (log_a[path[:, :-1], path[:, 1:]] + log_b[path[:, 1:], obs[:, 1:]]).sum(1)
    rec("rescore", score - best)
    # argmax alone and amax
    scores = log_pi.unsqueeze(-1) + log_a
    rec("argmax", scores.argmax(dim=0))
    rec("amax", scores.amax(dim=0))
    rec("max_kd", scores.max(dim=0, keepdim=True).indices)
    # backtracking by take_along_dim
    bp = lib.stack([(log_a + log_b[:, o].unsqueeze(0)).argmax(0) for o in range(v)])
    rec("take_along", lib.take_along_dim(bp, path[:, :1].T.expand(v, 4), dim=1))


def p_baum_welch(lib, dt, rec):
    k, v = 3, 4
    pi, a, b = _hmm_params(lib, dt, 40, k, v)
    log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
    obs = _obs(lib, 41, 6, 10, v)
    onehot = lib.nn.functional.one_hot(obs, v).to(dt)
    for it in range(5):
        alphas, ll = _forward(lib, log_pi, log_a, log_b, obs)
        betas = _backward(lib, log_a, log_b, obs)
        rec(f"ll{it}", ll.sum())
        gamma = (alphas + betas - ll.view(-1, 1, 1)).exp()
        emit = log_b[:, obs[:, 1:]].permute(1, 2, 0)
        xi = (alphas[:, :-1].unsqueeze(-1) + log_a + (emit + betas[:, 1:]).unsqueeze(-2)) - ll.view(
            -1, 1, 1, 1
        )
        xi_sum = lib.logsumexp(xi.flatten(0, 1), dim=0)
        new_pi = gamma[:, 0].mean(0)
        new_a = xi_sum - lib.logsumexp(xi_sum, dim=-1, keepdim=True)
        counts = lib.einsum("ntk,ntv->kv", gamma, onehot)
        rec(f"counts{it}", counts)
        log_pi = new_pi.log()
        log_a = new_a
        log_b = (counts / counts.sum(-1, keepdim=True)).log()
    rec("pi", log_pi.exp())
    rec("A", log_a.exp())
    rec("B", log_b.exp())
    # expected counts by index_add_ and scatter_add_
    g = gamma.reshape(-1, k)
    flat = obs.reshape(-1)
    rec("index_add", lib.zeros(v, k, dtype=dt).index_add_(0, flat, g).T)
    rec("scatter_add", lib.zeros(k, v, dtype=dt).scatter_add_(1, flat.expand(k, -1), g.T))


def p_sample_chain(lib, dt, rec):
    k = 4
    p = _stochastic(lib, dt, 50, k, k)
    g = _gen(lib, 51)
    state = lib.multinomial(lib.full((k,), 0.25, dtype=dt), 1, generator=g)
    traj = [state]
    for _ in range(30):
        state = lib.multinomial(p[state.squeeze(-1)], 1, generator=g).squeeze(-1)
        state = state.unsqueeze(0) if state.dim() == 0 else state
        traj.append(state)
    traj = lib.cat(traj)
    rec("traj", traj)
    # a batch of chains in parallel
    g = _gen(lib, 52)
    states = lib.zeros(6, dtype=lib.long)
    paths = [states]
    for _ in range(20):
        states = lib.multinomial(p[states], 1, replacement=True, generator=g).squeeze(1)
        paths.append(states)
    paths = lib.stack(paths, 1)
    rec("paths", paths)
    trans = lib.zeros(k, k, dtype=dt)
    trans.index_put_(
        (paths[:, :-1].reshape(-1), paths[:, 1:].reshape(-1)),
        lib.ones((), dtype=dt),
        accumulate=True,
    )
    rec("trans_counts", trans)
    rec("bincount", lib.bincount(paths.flatten(), minlength=k))
    # many draws, without replacement, and the per-row counts
    g = _gen(lib, 53)
    rec("norepl", lib.multinomial(p, 3, generator=g))
    rec("repl", lib.multinomial(p, 12, replacement=True, generator=g))
    rec("unnorm", lib.multinomial(p * 7.5, 2, generator=g))
    rec("zero_row", lib.multinomial(lib.tensor([0.0, 0.0, 3.0, 1.0], dtype=dt), 2, generator=g))
    out = lib.empty(0, dtype=lib.long)
    lib.multinomial(p, 2, True, generator=g, out=out)
    rec("out", out)
    # the uniform inverse-CDF sampler users write by hand
    u = lib.rand(5, 1, generator=g, dtype=dt)
    cdf = p[0].cumsum(0)
    rec("searchsorted", lib.searchsorted(cdf, u.squeeze(1)))
    rec("cmp_sum", (u > cdf).sum(-1))


def p_categorical_chain(lib, dt, rec):
    D = lib.distributions
    k = 3
    logits = _randn(lib, dt, 60, k, k)
    lib.manual_seed(61)
    chain = D.Categorical(logits=logits)
    rec("probs", chain.probs)
    rec("logits", chain.logits)
    state = D.Categorical(probs=lib.full((k,), 1.0 / k, dtype=dt)).sample()
    states = [state]
    for _ in range(15):
        state = D.Categorical(logits=logits[state]).sample()
        states.append(state)
    rec("states", lib.stack(states))
    s = chain.sample((4,))
    rec("batched", s)
    rec("log_prob", chain.log_prob(s))
    rec("entropy", chain.entropy())
    rec("shapes", str((chain.batch_shape, chain.event_shape, s.shape)))
    oh = D.OneHotCategorical(logits=logits)
    rec("onehot", oh.sample((2,)))
    rec("enum", chain.enumerate_support().T)
    rec("kl", D.kl_divergence(chain, D.Categorical(logits=logits.flip(0))))
    lib.manual_seed(62)
    m = D.Multinomial(10, probs=chain.probs)
    rec("multinomial", m.sample())
    rec("mult_lp", m.log_prob(lib.tensor([[3.0, 3, 4], [10, 0, 0], [0, 5, 5]], dtype=dt)))
    rec("repr", repr(chain))


def p_ctmc(lib, dt, rec):
    k = 4
    rates = _rand(lib, dt, 70, k, k) * 2
    q = rates - lib.diag_embed(rates.diagonal())
    q = q - lib.diag(q.sum(-1))
    rec("Q_rows", q.sum(-1))
    for t in (0.0, 0.1, 1.0, 5.0):
        pt = lib.linalg.matrix_exp(q * t)
        rec(f"P({t})", pt)
    rec("rows", lib.linalg.matrix_exp(q).sum(-1))
    rec("semigroup", lib.matrix_exp(q * 0.3) @ lib.matrix_exp(q * 0.7) - lib.matrix_exp(q))
    ts = lib.tensor([0.2, 0.5, 2.0], dtype=dt)
    rec("batched", lib.linalg.matrix_exp(ts.view(-1, 1, 1) * q))
    # uniformisation as a check: sum of Poisson-weighted powers of P = I + Q / lam
    lam = q.diagonal().abs().max()
    pu = lib.eye(k, dtype=dt) + q / lam
    term = lib.eye(k, dtype=dt)
    acc = lib.zeros(k, k, dtype=dt)
    w = lib.exp(-lam)
    for n in range(60):
        acc = acc + w * term
        term = term @ pu
        w = w * lam / (n + 1)
    rec("uniformised", acc - lib.linalg.matrix_exp(q))
    rec("method", q.matrix_exp())
    # embedded jump chain and holding times
    jump = (q - lib.diag(q.diagonal())) / (-q.diagonal()).unsqueeze(-1)
    rec("jump", jump)
    lib.manual_seed(71)
    rec("holding", lib.distributions.Exponential(-q.diagonal()).sample((3,)))
    rec("big_t", lib.linalg.matrix_exp(q * 50.0))
    rec("empty", lib.linalg.matrix_exp(lib.zeros(0, 2, 2, dtype=dt)).shape)
    rec("scalar", lib.linalg.matrix_exp(lib.full((1, 1), -0.5, dtype=dt)))


def p_loglik_grads(lib, dt, rec):
    k, v = 3, 5
    pi, a, b = _hmm_params(lib, dt, 80, k, v, grad=True)
    obs = _obs(lib, 81, 4, 6, v)
    log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
    _, ll = _forward(lib, log_pi, log_a, log_b, obs)
    loss = -ll.mean()
    loss.backward()
    rec("loss", loss)
    rec("g_pi", pi.grad)
    rec("g_a", a.grad)
    rec("g_b", b.grad)
    # autograd.grad of the gradient norm (double backward through logsumexp)
    log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
    _, ll = _forward(lib, log_pi, log_a, log_b, obs)
    ga = lib.autograd.grad(ll.sum(), a, create_graph=True)[0]
    rec("ga", ga)
    gg = lib.autograd.grad(ga.pow(2).sum(), (pi, b))
    rec("gg_pi", gg[0])
    rec("gg_b", gg[1])
    # Adam fit of the transition logits of a plain Markov chain
    # (random start: from zeros an analytically zero gradient is rounding noise Adam rescales)
    w = _randn(lib, dt, 84, k, k).requires_grad_(True)
    opt = lib.optim.Adam([w], lr=0.1)
    seq = lib.randint(0, k, (40,), generator=_gen(lib, 82))
    for _ in range(15):
        opt.zero_grad()
        nll = -lib.log_softmax(w, -1)[seq[:-1], seq[1:]].sum()
        nll.backward()
        opt.step()
    rec("fit_nll", nll)
    rec("fit_P", lib.softmax(w, -1))
    # grads through an n-step distribution and a stationary solve
    p = lib.softmax(_randn(lib, dt, 83, k, k), -1).detach().requires_grad_(True)
    tgt = lib.tensor([0.2, 0.3, 0.5], dtype=dt)
    pn = lib.linalg.matrix_power(p, 4)
    lib.nn.functional.kl_div(pn[0].log(), tgt, reduction="sum").backward()
    rec("g_mp", p.grad)
    p.grad = None
    m = p.T - lib.eye(k, dtype=dt)
    m = lib.cat([m[:-1], lib.ones(1, k, dtype=dt)])
    st = lib.linalg.solve(m, lib.tensor([0.0, 0.0, 1.0], dtype=dt))
    (st * tgt).sum().backward()
    rec("g_solve", p.grad)
    p.grad = None
    n = lib.linalg.inv(lib.eye(k, dtype=dt) - 0.9 * p)
    n.sum().backward()
    rec("g_inv", p.grad)


def p_bigram_counts(lib, dt, rec):
    text = "the cat sat on the mat and the cat ate the rat"
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    ids = lib.tensor([stoi[c] for c in text])
    v = len(vocab)
    counts = lib.zeros(v, v, dtype=lib.int32)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist(), strict=True):
        counts[a, b] += 1
    rec("counts", counts)
    flat = lib.bincount(ids[:-1] * v + ids[1:], minlength=v * v).view(v, v)
    rec("bincount_eq", lib.equal(flat.int(), counts))
    p = (counts + 1).to(dt)
    p /= p.sum(1, keepdim=True)
    rec("P", p)
    nll = -p[ids[:-1], ids[1:]].log().mean()
    rec("nll", nll)
    g = _gen(lib, 90)
    out = []
    ix = stoi["t"]
    for _ in range(25):
        ix = lib.multinomial(p[ix], num_samples=1, replacement=True, generator=g).item()
        out.append(vocab[ix])
    rec("sample", "".join(out))
    xenc = lib.nn.functional.one_hot(ids[:-1], num_classes=v).to(dt)
    w = _randn(lib, dt, 91, v, v).requires_grad_(True)
    for _ in range(10):
        logits = xenc @ w
        probs = logits.exp() / logits.exp().sum(1, keepdims=True)
        loss = -probs[lib.arange(len(ids) - 1), ids[1:]].log().mean() + 0.01 * (w**2).mean()
        w.grad = None
        loss.backward()
        w.data += -5.0 * w.grad
    rec("nn_loss", loss)
    rec("ce", lib.nn.functional.cross_entropy(xenc @ w, ids[1:]))


def p_pagerank(lib, dt, rec):
    n = 6
    adj = (_rand(lib, dt, 100, n, n) > 0.55).to(dt)
    adj[3] = 0.0
    out_deg = adj.sum(1, keepdim=True)
    p = lib.where(out_deg > 0, adj / out_deg.clamp(min=1), lib.full_like(adj, 1.0 / n))
    rec("P", p)
    d = 0.85
    g = d * p + (1 - d) / n
    r = lib.full((n,), 1.0 / n, dtype=dt)
    for _ in range(40):
        r = r @ g
    rec("rank_power", r)
    direct = lib.linalg.solve(lib.eye(n, dtype=dt) - d * p.T, lib.full((n,), (1 - d) / n, dtype=dt))
    rec("rank_solve", direct)
    rec("order", lib.argsort(direct, descending=True, stable=True))
    rec("topk", lib.topk(direct, 3).values)
    # the same step through torch.sparse.mm (a strided adjacency, as GNN code passes it)
    rec("sparse_step", lib.sparse.mm(p.T, r.unsqueeze(1)).squeeze(1) - r @ p)
    rec("nnz", lib.count_nonzero(adj))


def p_reversible(lib, dt, rec):
    # a random walk on a weighted graph is reversible: pi_i P_ij = pi_j P_ji
    w = _rand(lib, dt, 110, 5, 5)
    w = w + w.T
    deg = w.sum(1)
    p = w / deg.unsqueeze(1)
    pi = deg / deg.sum()
    flow = pi.unsqueeze(1) * p
    rec("flow_asym", flow - flow.T)
    rec("stationary", pi @ p - pi)
    dh = pi.sqrt()
    sym = dh.unsqueeze(1) * p / dh.unsqueeze(0)
    rec("sym", sym - sym.mT)
    evals, evecs = lib.linalg.eigh(sym)
    rec("evals", evals)
    rec("top_vec_abs", evecs[:, -1].abs())
    rec("relax", 1.0 / (1.0 - evals[-2]))
    lazy = 0.5 * (lib.eye(5, dtype=dt) + p)
    rec("lazy_eig", lib.linalg.eigvalsh(0.5 * (lib.eye(5, dtype=dt) + sym)))
    rec("lazy_rows", lazy.sum(-1))
    lap = lib.diag(deg) - w
    rec("lap_eig", lib.linalg.eigvalsh(lap))
    rec("svd", lib.linalg.svdvals(sym))


def p_scaled_forward(lib, dt, rec):
    k, v = 3, 4
    pi, a, b = _hmm_params(lib, dt, 120, k, v)
    pp, pa, pb = (lib.softmax(t, -1) for t in (pi, a, b))
    obs = _obs(lib, 121, 2, 40, v)
    alpha = pp * pb[:, obs[:, 0]].T
    c = alpha.sum(-1, keepdim=True)
    alpha = alpha / c
    logs = [c.log()]
    for s in range(1, obs.shape[1]):
        alpha = (alpha @ pa) * pb[:, obs[:, s]].T
        c = alpha.sum(-1, keepdim=True)
        alpha = alpha / c
        logs.append(c.log())
    rec("ll_scaled", lib.cat(logs, -1).sum(-1))
    _, ll = _forward(lib, pp.log(), pa.log(), pb.log(), obs)
    rec("ll_log", ll)
    rec("filter", alpha)
    # underflow of the unscaled recursion in long sequences
    obs = _obs(lib, 122, 1, 600, v)
    alpha = pp * pb[:, obs[:, 0]].T
    for s in range(1, 600):
        alpha = (alpha @ pa) * pb[:, obs[:, s]].T
    rec("underflow", alpha.sum())
    rec("log_underflow", alpha.sum().log())


def p_ffbs(lib, dt, rec):
    # forward filtering, backward sampling with Categorical draws
    D = lib.distributions
    k, v = 3, 3
    pi, a, b = _hmm_params(lib, dt, 130, k, v)
    log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
    obs = _obs(lib, 131, 4, 8, v)
    alphas, _ = _forward(lib, log_pi, log_a, log_b, obs)
    lib.manual_seed(132)
    z = D.Categorical(logits=alphas[:, -1]).sample()
    zs = [z]
    for s in range(obs.shape[1] - 2, -1, -1):
        logits = alphas[:, s] + log_a[:, z].T
        z = D.Categorical(logits=logits).sample()
        zs.append(z)
    path = lib.stack(zs[::-1], 1)
    rec("path", path)
    # Gumbel-max draws of the same posteriors
    g = _gen(lib, 133)
    u = lib.rand(alphas.shape, generator=g, dtype=dt)
    gumbel = -(-u.log()).log()
    rec("gumbel", (alphas + gumbel).argmax(-1))
    rec("gumbel_softmax_shape", str(lib.nn.functional.gumbel_softmax(alphas, tau=0.5).shape))


def p_hitting(lib, dt, rec):
    # expected hitting times of state 0 for a random chain: h = 1 + P_{-0,-0} h
    k = 5
    p = _stochastic(lib, dt, 140, k, k)
    sub = p[1:, 1:]
    h = lib.linalg.solve(lib.eye(k - 1, dtype=dt) - sub, lib.ones(k - 1, dtype=dt))
    rec("hit", h)
    rec("hit_res", h - 1 - sub @ h)
    # mean return time equals 1 / pi_0
    ret = 1 + p[0, 1:] @ h
    a = p.T - lib.eye(k, dtype=dt)
    a[-1] = 1
    pi = lib.linalg.solve(a, lib.eye(k, dtype=dt)[-1])
    rec("kac", ret * pi[0])
    # committor between sets {0} and {4}
    inner = lib.arange(1, k - 1)
    m = lib.eye(k - 2, dtype=dt) - p[inner][:, inner]
    rhs = p[inner, k - 1]
    rec("committor", lib.linalg.solve(m, rhs))
    rec("solve_ex", lib.linalg.solve_ex(m, rhs).info)
    rec("left", lib.linalg.solve(m, rhs.unsqueeze(0), left=False))
    rec("tri", lib.linalg.solve_triangular(m.triu(), rhs.unsqueeze(-1), upper=True))
    rec("cholesky", lib.cholesky_solve(rhs.unsqueeze(-1), lib.linalg.cholesky(m @ m.T)))


def p_matrix_exp_grad(lib, dt, rec):
    k = 3
    raw = _randn(lib, dt, 150, k, k).requires_grad_(True)
    off = lib.nn.functional.softplus(raw) * (1 - lib.eye(k, dtype=dt))
    q = off - lib.diag_embed(off.sum(-1))
    pt = lib.linalg.matrix_exp(q * 0.7)
    obs = lib.tensor([[0, 1], [1, 2], [2, 2], [0, 0]])
    ll = pt[obs[:, 0], obs[:, 1]].log().sum()
    ll.backward()
    rec("ll", ll)
    rec("g_raw", raw.grad)
    raw.grad = None
    x = _randn(lib, dt, 151, 2, k, k).requires_grad_(True)
    e = lib.matrix_exp(x * 0.5)
    g = lib.autograd.grad(e.sin().sum(), x, create_graph=True)[0]
    rec("g", g)
    rec("gg", lib.autograd.grad(g.sum(), x)[0])


def p_entropy_rate(lib, dt, rec):
    p = _stochastic(lib, dt, 160, 4, 4)
    p[0, 2] = 0.0
    p = p / p.sum(-1, keepdim=True)
    a = p.T - lib.eye(4, dtype=dt)
    a[-1] = 1
    pi = lib.linalg.solve(a, lib.eye(4, dtype=dt)[-1])
    rows = -lib.xlogy(p, p).sum(-1)
    rec("row_H", rows)
    rec("rate", pi @ rows)
    rec("special", -lib.special.xlogy(p, p).sum(-1) - rows)
    rec("naive_nan", (p * p.log()).isnan().any())
    rec("entr", lib.special.entr(p).sum(-1))
    rec("cat_entropy", lib.distributions.Categorical(probs=p).entropy())
    q = _stochastic(lib, dt, 161, 4, 4)
    rec("kl_rows", lib.nn.functional.kl_div(q.log(), p, reduction="none").sum(-1))
    rec("kl_bm", lib.nn.functional.kl_div(q.log(), p, reduction="batchmean"))
    rec("tv", 0.5 * (p - q).abs().sum(-1))


def _hmm_module(lib):
    nn = lib.nn

    class HMM(nn.Module):
        def __init__(self, k, v):
            super().__init__()
            self.pi = nn.Parameter(lib.zeros(k))
            self.a = nn.Parameter(lib.zeros(k, k))
            self.b = nn.Parameter(lib.zeros(k, v))

        def forward(self, obs):
            log_pi = self.pi.log_softmax(-1)
            log_a = self.a.log_softmax(-1)
            log_b = self.b.log_softmax(-1)
            return _forward(lib, log_pi, log_a, log_b, obs)[1]

    return HMM


def p_hmm_module(lib, dt, rec):
    lib.manual_seed(170)
    model = _hmm_module(lib)(3, 4).to(dt)
    with lib.no_grad():
        for p in model.parameters():
            p.normal_()
    obs = _obs(lib, 171, 8, 6, 4)
    opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.5)
    for _ in range(8):
        opt.zero_grad()
        loss = -model(obs).mean()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec.params("m", model, grads=True)
    rec("names", str([n for n, _ in model.named_parameters()]))
    sd = model.state_dict()
    rec("sd", str(list(sd)))
    rec("sd_dtype", str(sd["a"].dtype).replace("torch.", ""))


def p_mixing(lib, dt, rec):
    p = _stochastic(lib, dt, 180, 5, 5, temp=0.5)
    a = p.T - lib.eye(5, dtype=dt)
    a[-1] = 1
    pi = lib.linalg.solve(a, lib.eye(5, dtype=dt)[-1])
    pn = lib.eye(5, dtype=dt)
    tvs = []
    for _ in range(12):
        pn = pn @ p
        tvs.append(0.5 * (pn - pi).abs().sum(-1).max())
    tvs = lib.stack(tvs)
    rec("tv", tvs)
    rec("mono", (tvs[1:] <= tvs[:-1] + 1e-6).all())
    rec("norm_l1", lib.linalg.norm(pn - pi, ord=1, dim=-1))
    rec("mat_norm", lib.linalg.matrix_norm(pn - pi, ord=float("inf")))
    rec("vec_norm", lib.linalg.vector_norm(pn - pi, ord=2, dim=(0, 1)))
    rec("cdist", lib.cdist(pn, pi.unsqueeze(0), p=1.0).squeeze(-1))


def p_batched_solve(lib, dt, rec):
    # stationary distributions of a batch of chains at once, with the replaced row
    b, k = 4, 3
    p = _stochastic(lib, dt, 190, b, k, k)
    a = p.mT - lib.eye(k, dtype=dt)
    a[:, -1, :] = 1.0
    rhs = lib.zeros(b, k, dtype=dt)
    rhs[:, -1] = 1.0
    pi = lib.linalg.solve(a, rhs)
    rec("pi", pi)
    rec("res", (pi.unsqueeze(1) @ p).squeeze(1) - pi)
    rec("broadcast_rhs", lib.linalg.solve(a, lib.eye(k, dtype=dt)[-1]))
    rec("inv", lib.linalg.inv(a)[..., -1])
    rec("det", lib.linalg.det(a))
    rec("cond", lib.linalg.cond(a))
    rec("rank", lib.linalg.matrix_rank(p.mT - lib.eye(k, dtype=dt)))
    rec("vmap", lib.vmap(lambda m: lib.linalg.solve(m, lib.eye(k, dtype=dt)[-1]))(a))


def p_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skipped", "float32")
        return
    k, v = 2, 3
    obs = lib.tensor([[0, 2, 1], [1, 1, 0]])

    def ll(pi, a, b):
        log_pi, log_a, log_b = (lib.log_softmax(t, -1) for t in (pi, a, b))
        return _forward(lib, log_pi, log_a, log_b, obs)[1]

    args = _hmm_params(lib, dt, 200, k, v, grad=True)
    rec("gc", lib.autograd.gradcheck(ll, args))
    rec("ggc", lib.autograd.gradgradcheck(ll, args))
    m = _randn(lib, dt, 201, 3, 3).requires_grad_(True)
    rec("mp", lib.autograd.gradcheck(lambda x: lib.linalg.matrix_power(x, 3), (m,)))
    rec("mp_neg", lib.autograd.gradcheck(lambda x: lib.linalg.matrix_power(x, -2), (m,)))
    rec("mp_gg", lib.autograd.gradgradcheck(lambda x: lib.linalg.matrix_power(x, 2), (m,)))
    rec("me", lib.autograd.gradcheck(lib.linalg.matrix_exp, (m * 0.3,)))
    rec("me_gg", lib.autograd.gradgradcheck(lib.linalg.matrix_exp, (m * 0.3,)))


# --- argument-error sweeps ---


def _env(lib):
    return {
        "lib": lib,
        "P": lib.full((3, 3), 1.0 / 3),
        "R": lib.ones(2, 3),
        "I": lib.ones(3, 3, dtype=lib.long),
        "S": lib.zeros(3, 3),
        "p": lib.tensor([0.2, 0.3, 0.5]),
        "g": lib.Generator().manual_seed(0),
        "D": lib.distributions,
    }


MATRIX_POWER = [
    "lib.linalg.matrix_power(R, 2)",
    "lib.linalg.matrix_power(p, 2)",
    "lib.linalg.matrix_power(P, 2.0)",
    "lib.linalg.matrix_power(P, 2.5)",
    "lib.linalg.matrix_power(P, lib.tensor(2))",
    "lib.linalg.matrix_power(P, None)",
    "lib.linalg.matrix_power(I, -1)",
    "lib.linalg.matrix_power(S, -1)",
    "lib.linalg.matrix_power(R, 0)",
    "lib.linalg.matrix_power(lib.ones(3), 0)",
    "lib.matrix_power(R, 1)",
    "P.matrix_power('2')",
    "lib.linalg.matrix_power(P)",
    "lib.linalg.matrix_power()",
    "lib.linalg.matrix_power(n=2)",
    "lib.matrix_power(P)",
    "lib.matrix_power(n=3)",
    "P.matrix_power()",
    "P.matrix_power(2, 3)",
    "lib.matrix_power(P, 2, 3)",
    "lib.linalg.matrix_power(P, 2, 3)",
    "lib.linalg.matrix_power(P, 2**63)",
    "lib.linalg.matrix_power(P, -2**63 - 1)",
    "lib.matrix_power(P, 10**30)",
    "P.matrix_power(2**64)",
    "lib.linalg.matrix_power(P, 2**62).shape",
    "lib.linalg.matrix_power(S, -1, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.matrix_power(S, -1, out=lib.empty(3, 3, dtype=lib.long))",
    "lib.linalg.matrix_power(S, -2, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.matrix_power(S + lib.eye(3), -1, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.matrix_power(S + lib.eye(3), -1, out=lib.empty(0)).shape",
    "lib.linalg.matrix_power(S + lib.eye(3), 2, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.matrix_power(S + lib.eye(3), 1, out=lib.empty(3, 3, dtype=lib.float64)).dtype",
    "lib.linalg.inv(S, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.inv(S + lib.eye(3), out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.inverse(S, out=lib.empty(3, 3, dtype=lib.float64))",
    "lib.linalg.inv(lib.stack([lib.eye(3), S]))",
    "lib.linalg.matrix_power(lib.stack([lib.eye(3), S]), -1)",
    "lib.linalg.solve(lib.stack([lib.eye(3), S]), lib.ones(2, 3))",
    "lib.linalg.matrix_exp()",
    "lib.matrix_exp()",
    "lib.linalg.matrix_exp(P, 2)",
    "lib.matrix_exp(P, 2)",
    "lib.linalg.matrix_power(P, n=2)",
    "lib.linalg.matrix_power(P, 2, out=lib.empty(3, 3))",
    "lib.linalg.matrix_power(P, True)",
    "lib.linalg.matrix_exp(R)",
    "lib.linalg.matrix_exp(I)",
    "lib.linalg.matrix_exp(p)",
    "lib.linalg.inv(R)",
    "lib.linalg.inv(S)",
    "lib.linalg.inv(I)",
    "lib.linalg.solve(S, p)",
    "lib.linalg.solve(P, lib.ones(2))",
    "lib.linalg.solve(I, p)",
]


def c_matrix_power_errors(lib, rec):
    run_calls(MATRIX_POWER, _env(lib), rec)


MULTINOMIAL = [
    "lib.multinomial(lib.tensor([0.2, -0.1, 0.9]), 1)",
    "lib.multinomial(lib.zeros(3), 1)",
    "lib.multinomial(lib.zeros(2, 3), 1)",
    "lib.multinomial(p, 0)",
    "lib.multinomial(p, -1)",
    "lib.multinomial(p, 4)",
    "lib.multinomial(p, 4, replacement=True, generator=g).shape",
    "lib.multinomial(lib.ones(2, 2, 2), 1)",
    "lib.multinomial(lib.tensor(0.5), 1)",
    "lib.multinomial(lib.tensor([1, 2, 3]), 1)",
    "lib.multinomial(lib.tensor([float('nan'), 1.0]), 1)",
    "lib.multinomial(lib.tensor([float('inf'), 1.0]), 1)",
    "lib.multinomial(lib.empty(0), 1)",
    "lib.multinomial(lib.empty(2, 0), 1)",
    "lib.multinomial(p, 1.0)",
    "lib.multinomial(p, 2, generator=0)",
    "lib.multinomial(p, 2, True, g, out=lib.empty(2))",
    "lib.multinomial(lib.tensor([0.0, 1.0, 0.0]), 2)",
    "lib.multinomial(lib.tensor([True, False]), 1)",
    "p.multinomial(2, generator=g, replacement=True).shape",
    "lib.multinomial(p, num_samples=2, replace=True)",
    "lib.multinomial(R, lib.tensor([2]), generator=g)",
    "lib.multinomial(R, lib.tensor([[2]], dtype=lib.uint8), generator=g).shape",
    "R.multinomial(lib.tensor([3]), True, generator=g).shape",
    "lib.multinomial(R, lib.tensor([2.0]))",
    "lib.multinomial(R, lib.tensor([2, 1]))",
    "R.multinomial(lib.tensor([2.0]))",
    "lib.multinomial(R, lib.tensor(2), generator=g).shape",
    "lib.multinomial(p, 2**63)",
    "lib.multinomial(p, 2, out=lib.empty(2, dtype=lib.int32))",
    "lib.multinomial(lib.tensor([0.0, 0.0]), 1, True)",
    "lib.multinomial(P.t(), 1, generator=g)",
]


def c_multinomial_errors(lib, rec):
    run_calls(MULTINOMIAL, _env(lib), rec)


CATEGORICAL = [
    "D.Categorical(probs=lib.tensor([0.5, -0.5]))",
    "D.Categorical(probs=p, logits=p.log())",
    "D.Categorical()",
    "D.Categorical(probs=lib.tensor(1.0))",
    "D.Categorical(logits=lib.tensor([0.0, float('nan')]))",
    "D.Categorical(probs=p).log_prob(lib.tensor(3))",
    "D.Categorical(probs=p).log_prob(lib.tensor(1.5))",
    "D.Categorical(probs=p).sample((2,)).shape",
    "D.Categorical(probs=P).log_prob(lib.tensor([0, 1]))",
    "D.Categorical(probs=p).mean",
    "D.Categorical(probs=p).cdf(lib.tensor(1))",
    "D.OneHotCategorical(probs=p).log_prob(lib.tensor([0.0, 1.0]))",
    "D.Multinomial(3, probs=p).log_prob(lib.tensor([1.0, 1.0, 0.0]))",
    "D.Multinomial(2.5, probs=p)",
]


def c_categorical_errors(lib, rec):
    run_calls(CATEGORICAL, _env(lib), rec)


MISC = [
    "lib.logsumexp(P)",
    "lib.logsumexp(I, 0)",
    "lib.logsumexp(P, 2)",
    "lib.log_softmax(P)",
    "lib.log_softmax(I, 0)",
    "P.max(dim=3)",
    "lib.argmax(lib.empty(0, 3), 0)",
    "I.gather(1, lib.tensor([[0], [4], [1]]))",
    "P.gather(1, lib.tensor([[0.0]]))",
    "lib.cartesian_prod(P)",
    "lib.bincount(lib.tensor([0, -1]))",
    "lib.bincount(lib.tensor([[0, 1]]))",
    "lib.nn.functional.one_hot(lib.tensor([0, 3]), 3)",
    "lib.nn.functional.one_hot(lib.tensor([0.0]), 3)",
    "lib.einsum('ij,jk->ik', P, R)",
]


def c_misc_errors(lib, rec):
    run_calls(MISC, _env(lib), rec)


# --- second batch ---


def p_left_right_hmm(lib, dt, rec):
    # a left-to-right HMM: impossible transitions are -inf in log space
    k, v = 4, 3
    mask = lib.ones(k, k, dtype=lib.bool).triu()
    a = _randn(lib, dt, 210, k, k).requires_grad_(True)
    b = _randn(lib, dt, 211, k, v).requires_grad_(True)
    log_a = lib.log_softmax(a.masked_fill(~mask, float("-inf")), -1)
    rec("log_a", log_a)
    log_pi = lib.full((k,), float("-inf"), dtype=dt)
    log_pi[0] = 0.0
    log_b = lib.log_softmax(b, -1)
    obs = _obs(lib, 212, 3, 6, v)
    alphas, ll = _forward(lib, log_pi, log_a, log_b, obs)
    rec("alphas", alphas)
    rec("ll", ll)
    ll.sum().backward()
    rec("g_a", a.grad)
    rec("g_b", b.grad)
    # the end must be the last state: logsumexp over a single finite entry
    rec("ll_end", alphas[:, -1, -1])
    rec("lse_allinf", lib.logsumexp(lib.full((2, 3), float("-inf"), dtype=dt), -1))
    x = lib.tensor([float("-inf"), float("-inf")], dtype=dt, requires_grad=True)
    lib.logsumexp(x, 0).backward()
    rec("lse_inf_grad", x.grad)
    rec("logaddexp", lib.logaddexp(log_a[0], log_a[1]))
    rec("logaddexp_inf", lib.logaddexp(lib.tensor(float("-inf"), dtype=dt), log_a[2, 2]))
    rec("softmax_inf", lib.softmax(log_a, -1))
    rec("cat_entropy", lib.distributions.Categorical(logits=log_a).entropy())
    rec("cat_probs0", lib.distributions.Categorical(probs=log_a.exp()).logits)


def p_gaussian_hmm(lib, dt, rec):
    D = lib.distributions
    k = 3
    mu = lib.tensor([-2.0, 0.0, 2.5], dtype=dt, requires_grad=True)
    log_sigma = lib.tensor([0.1, -0.3, 0.2], dtype=dt, requires_grad=True)
    a = _randn(lib, dt, 220, k, k)
    x = _randn(lib, dt, 221, 5, 9) * 2
    emit = D.Normal(mu, log_sigma.exp()).log_prob(x.unsqueeze(-1))
    rec("emit", emit)
    log_a = lib.log_softmax(a, -1)
    alpha = -lib.log(lib.tensor(float(k), dtype=dt)) + emit[:, 0]
    for s in range(1, x.shape[1]):
        alpha = lib.logsumexp(alpha.unsqueeze(-1) + log_a, dim=-2) + emit[:, s]
    ll = lib.logsumexp(alpha, -1)
    rec("ll", ll)
    ll.sum().backward()
    rec("g_mu", mu.grad)
    rec("g_sigma", log_sigma.grad)
    mix = D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(k, dtype=dt)),
        D.Normal(mu.detach(), log_sigma.exp().detach()),
    )
    rec("mixture_lp", mix.log_prob(x))
    lib.manual_seed(222)
    rec("mixture_sample", mix.sample((4,)))
    lib.manual_seed(223)
    z = D.Categorical(logits=log_a).sample((3,))
    rec("z", z)
    rec("normal_draw", D.Normal(mu.detach()[z], 1.0).sample())


def p_nullspace(lib, dt, rec):
    k = 4
    p = _stochastic(lib, dt, 230, k, k)
    m = p.T - lib.eye(k, dtype=dt)
    _, s, vh = lib.linalg.svd(m)
    rec("s", s)
    null = vh[-1]
    rec("svd_pi", null / null.sum())
    u, s2, v = lib.svd(m)
    rec("old_svd", v[:, -1] / v[:, -1].sum())
    q, r = lib.linalg.qr(m.T)
    rec("qr_r_last", r[-1, -1].abs())
    evals, evecs = lib.linalg.eigh(m.T @ m)
    vec = evecs[:, 0]
    rec("eigh_pi", vec / vec.sum())
    rec("rank", lib.linalg.matrix_rank(m))
    rec("pinv_proj", lib.eye(k, dtype=dt) - lib.linalg.pinv(m) @ m)
    # two independent chains: their product chain is the Kronecker product
    p2 = _stochastic(lib, dt, 231, 2, 2)
    kron = lib.kron(p, p2)
    rec("kron_rows", kron.sum(-1))
    rec(
        "kron_pow",
        lib.linalg.matrix_power(kron, 3)
        - lib.kron(lib.linalg.matrix_power(p, 3), lib.linalg.matrix_power(p2, 3)),
    )
    blocks = lib.block_diag(p, p2, lib.ones(1, 1, dtype=dt))
    rec("block_diag", blocks)
    rec("block_pow", lib.linalg.matrix_power(blocks, 4))


def p_dirichlet_prior(lib, dt, rec):
    D = lib.distributions
    k = 3
    lib.manual_seed(240)
    conc = lib.ones(k, k, dtype=dt) * lib.tensor([0.5, 2.0, 5.0], dtype=dt).unsqueeze(-1)
    prior = D.Dirichlet(conc)
    p = prior.sample()
    rec("P", p)
    rec("rows", p.sum(-1))
    rec("lp", prior.log_prob(p))
    counts = lib.tensor([[3.0, 1, 0], [2, 5, 1], [0, 0, 7]], dtype=dt)
    post = D.Dirichlet(conc + counts)
    rec("post_mean", post.mean)
    rec("post_var", post.variance)
    rec("post_entropy", post.entropy())
    rec("rsample", post.rsample((2,)))
    rec("kl", D.kl_divergence(post, prior))
    lib.manual_seed(241)
    g = D.Gamma(conc + counts, 1.0).sample()
    rec("gamma_norm", g / g.sum(-1, keepdim=True))


def p_metropolis(lib, dt, rec):
    # a Metropolis chain on 6 states targeting a fixed distribution; its transition matrix
    target = lib.softmax(_randn(lib, dt, 250, 6), 0)
    prop = lib.full((6, 6), 1.0 / 5, dtype=dt).fill_diagonal_(0.0)
    accept = lib.minimum(lib.ones((), dtype=dt), target.unsqueeze(0) / target.unsqueeze(1))
    p = prop * accept
    p = p + lib.diag(1.0 - p.sum(-1))
    rec("P", p)
    rec("balance", target @ p - target)
    g = _gen(lib, 251)
    x = lib.zeros(8, dtype=lib.long)
    hist = lib.zeros(6, dtype=lib.long)
    for _ in range(50):
        y = (x + lib.randint(1, 6, (8,), generator=g)) % 6
        u = lib.rand(8, generator=g, dtype=dt)
        ok = u < target[y] / target[x]
        x = lib.where(ok, y, x)
        hist += lib.bincount(x, minlength=6)
    rec("x", x)
    rec("hist", hist)
    rec("cumprod", lib.cumprod(lib.diagonal(p), 0))
    surv = lib.cumprod(lib.diagonal(p).unsqueeze(0).expand(4, -1), dim=0)
    rec("survival", surv)


def p_gumbel(lib, dt, rec):
    F = lib.nn.functional
    logits = lib.log_softmax(_randn(lib, dt, 260, 4, 5), -1).requires_grad_(True)
    lib.manual_seed(261)
    y = F.gumbel_softmax(logits, tau=0.7)
    rec("soft", y)
    lib.manual_seed(262)
    yh = F.gumbel_softmax(logits, tau=0.7, hard=True)
    rec("hard", yh)
    (yh * lib.arange(5, dtype=dt)).sum().backward()
    rec("hard_grad", logits.grad)
    lib.manual_seed(263)
    rc = lib.distributions.RelaxedOneHotCategorical(lib.tensor(0.5, dtype=dt), logits=logits)
    rec("relaxed", rc.rsample())
    lib.manual_seed(264)
    e = lib.empty(3, 5, dtype=dt).exponential_()
    rec("exp", e)
    rec("exp_race", (logits.detach()[:3].exp() / e).argmax(-1))


def p_matrix_power_grad(lib, dt, rec):
    base = _stochastic(lib, dt, 270, 3, 3)
    for n in (0, 1, 2, 5, -1, -3):
        p = base.clone().requires_grad_(True)
        w = _randn(lib, dt, 271, 3, 3)
        out = lib.linalg.matrix_power(p, n)
        (out * w).sum().backward()
        rec(f"out{n}", out)
        rec(f"g{n}", p.grad)
        rec(f"fn{n}", type(out.grad_fn).__name__ if out.grad_fn is not None else "None")
    pt = base.T.requires_grad_(True)
    rec("noncontig", lib.linalg.matrix_power(pt, 3))
    out = lib.empty(3, 3, dtype=dt)
    lib.linalg.matrix_power(base, 2, out=out)
    rec("out=", out)
    rec("expanded", lib.linalg.matrix_power(base.expand(2, 3, 3), 3))
    rec("is_copy", lib.linalg.matrix_power(base, 1).data_ptr() != base.data_ptr())
    rec.err("bool", lambda: lib.linalg.matrix_power(base > 0.3, 2))
    rec("bool1", lib.linalg.matrix_power(base > 0.3, 1))
    rec("bool0", lib.linalg.matrix_power(base > 0.3, 0))
    rec("int_n0", lib.linalg.matrix_power(lib.ones(2, 2, dtype=lib.int32), 0))
    rec("mp_half", lib.linalg.matrix_power(base.to(lib.bfloat16), 2).float())
