"""minitorch's CPU streams against torch's, bit for bit, over seeds, sizes and dtypes."""

import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 123, 2**40 + 7)
SIZES = (1, 5, 15, 16, 17, 33, 100, 1001)
FLOATS = ("float32", "float64", "float16", "bfloat16")


def _same(a, b):
    a = np.asarray(a.detach().float().numpy() if a.dtype.is_floating_point else a.numpy())
    b = np.asarray(b.detach().float().numpy() if b.dtype.is_floating_point else b.numpy())
    np.testing.assert_array_equal(a, b)


def _both(fn, seed):
    mt.manual_seed(seed)
    torch.manual_seed(seed)
    _same(fn(mt), fn(torch))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", FLOATS)
def test_rand_randn_uniform_normal(seed, dt):
    for n in SIZES:
        _both(lambda m, n=n, dt=dt: m.randn(n, dtype=getattr(m, dt)), seed)
        _both(lambda m, n=n, dt=dt: m.rand(n, dtype=getattr(m, dt)), seed)
        _both(lambda m, n=n, dt=dt: m.empty(n, dtype=getattr(m, dt)).uniform_(-0.3, 2.5), seed)
        _both(lambda m, n=n, dt=dt: m.empty(n, dtype=getattr(m, dt)).normal_(0.7, 1.9), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_integer_and_discrete_ops(seed):
    for n in SIZES:
        _both(lambda m, n=n: m.randint(-7, 300, (n,)), seed)
        _both(lambda m, n=n: m.randint(0, 2**40, (n,)), seed)
        _both(lambda m, n=n: m.randperm(n), seed)
        for dt in ("int64", "int32", "int8", "uint8", "bool", "float32", "float64"):
            _both(lambda m, n=n, dt=dt: m.empty(n, dtype=getattr(m, dt)).random_(), seed)
        _both(lambda m, n=n: m.empty(n).random_(2, 9), seed)
        _both(lambda m, n=n: m.empty(n).bernoulli_(0.3), seed)
        _both(lambda m, n=n: m.bernoulli(m.linspace(0, 1, n)), seed)
        _both(lambda m, n=n: m.bernoulli(m.linspace(0, 1, n, dtype=m.float64)), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_continuous_fills(seed):
    for n in (1, 7, 64):
        _both(lambda m, n=n: m.empty(n, dtype=m.float64).exponential_(1.5), seed)
        _both(lambda m, n=n: m.empty(n).cauchy_(0.5, 2.0), seed)
        _both(lambda m, n=n: m.empty(n, dtype=m.float64).geometric_(0.2), seed)
        _both(lambda m, n=n: m.empty(n, dtype=m.float64).log_normal_(0.3, 0.6), seed)
        _both(lambda m, n=n: m.normal(2.0, 3.0, (n,)), seed)
        _both(lambda m, n=n: m.normal(m.zeros(n), m.ones(n) * 2), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_modules_dropout_and_shuffling(seed):
    _both(lambda m: m.nn.Linear(784, 128).weight, seed)
    _both(lambda m: m.nn.Conv2d(3, 8, 3).bias, seed)
    _both(lambda m: m.nn.functional.dropout(m.ones(3000), 0.2), seed)
    _both(
        lambda m: m.cat(list(m.utils.data.DataLoader(m.arange(50), batch_size=7, shuffle=True))),
        seed,
    )


def test_state_bytes_cross_load():
    torch.manual_seed(5)
    torch.randn(3, dtype=torch.float64)
    mt.set_rng_state(mt.tensor(torch.get_rng_state().numpy()))
    np.testing.assert_array_equal(mt.get_rng_state().numpy(), torch.get_rng_state().numpy())
    _same(mt.randn(40), torch.randn(40))
    torch.set_rng_state(torch.from_numpy(mt.get_rng_state().numpy()))
    _same(mt.rand(9, dtype=mt.float64), torch.rand(9, dtype=torch.float64))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dt", FLOATS)
def test_multinomial(seed, dt):
    rng = np.random.default_rng(seed % 2**32)
    for n, rows in ((1, 1), (5, 3), (40, 2), (300, 1), (1000, 4)):
        w = rng.random((rows, n))
        w[w < 0.4] = 0  # zero weights: ties once k passes the positive ones
        w[:, 0] += 0.01
        pos = int((w > 0).sum(1).min())
        for k, repl in ((1, False), (1, True), (pos, False), (n, False), (7, True)):
            if k > n and not repl:
                continue
            for form in ("rows", "1-d", "transposed"):
                _both(lambda m, a=(w, form, dt, k, repl): _multinomial(m, *a), seed)


def _multinomial(m, w, form, dt, k, repl):
    p = m.tensor(w[0]) if form == "1-d" else m.tensor(w) if form == "rows" else m.tensor(w.T).t()
    return m.multinomial(p.to(getattr(m, dt)), k, repl)


@pytest.mark.parametrize("seed", SEEDS)
def test_categorical_and_trunc_normal(seed):
    _both(lambda m: m.distributions.Categorical(logits=m.randn(4, 9)).sample((5, 2)), seed)
    _both(lambda m: m.distributions.OneHotCategorical(probs=m.rand(3, 4)).sample((6,)), seed)
    cases = ((0.0, 0.02, -2.0, 2.0), (0.0, 1.0, -2.0, 2.0), (0.3, 1.0, 1.0, 1.6), (0, 1, 2, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in cases:
            for dt in FLOATS:
                for n in (3, 16, 1000):
                    _both(
                        lambda m, a=args, d=dt, n=n: m.nn.init.trunc_normal_(
                            m.empty(n, dtype=getattr(m, d)), *a
                        ),
                        seed,
                    )
