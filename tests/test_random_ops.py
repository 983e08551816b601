"""Random sampling ops: bernoulli, multinomial, poisson, normal with tensors, the in-place fills
and the _like samplers; moments on moderate sizes, reproducibility, errors, every device."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as torch

N = 20000


def _np(t):
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64)


def _moments(t, mean, var, tol=0.05, what=""):
    x = _np(t)
    np.testing.assert_allclose(x.mean(), mean, atol=tol * max(1.0, math.sqrt(var)), err_msg=what)
    np.testing.assert_allclose(x.var(), var, rtol=0.1, atol=1e-3, err_msg=what)


# --- in-place fills: distribution moments ---

FILLS = [
    # (name, call, mean, variance)
    ("uniform_", lambda x: x.uniform_(-2.0, 4.0), 1.0, 36 / 12),
    ("uniform_ from=", lambda x: x.uniform_(**{"from": 1, "to": 3}), 2.0, 4 / 12),
    ("normal_", lambda x: x.normal_(3.0, 2.0), 3.0, 4.0),
    ("exponential_", lambda x: x.exponential_(2.0), 0.5, 0.25),
    ("geometric_", lambda x: x.geometric_(0.25), 4.0, 0.75 / 0.0625),
    (
        "log_normal_",
        lambda x: x.log_normal_(0.0, 0.5),
        math.exp(0.125),
        (math.exp(0.25) - 1) * math.exp(0.25),
    ),
    ("bernoulli_", lambda x: x.bernoulli_(0.3), 0.3, 0.21),
    ("random_(0, 10)", lambda x: x.random_(0, 10), 4.5, 99 / 12),
    ("random_(5)", lambda x: x.random_(5), 2.0, 2.0),
]


@pytest.mark.parametrize("name,call,mean,var", FILLS, ids=[f[0] for f in FILLS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fill_moments(device, name, call, mean, var, dtype):
    x = torch.empty(N, dtype=getattr(torch, dtype), device=device)
    v0 = x._version
    out = call(x)
    assert out is x
    assert x._version == v0 + 1
    assert x.dtype == getattr(torch, dtype) and str(x.device) == device
    _moments(x, mean, var, what=name)


def test_fill_ranges(device):
    x = torch.empty(N, device=device)
    u = _np(x.uniform_(2.0, 3.0))
    assert u.min() >= 2.0 and u.max() < 3.0
    assert (_np(x.exponential_()) >= 0).all()
    g = _np(x.geometric_(0.9))
    assert g.min() >= 1 and (g == np.round(g)).all()
    r = _np(x.random_(-3, 4))
    assert set(np.unique(r)) == set(range(-3, 4))
    assert set(np.unique(_np(x.bernoulli_(0.5)))) == {0.0, 1.0}
    assert (_np(x.log_normal_()) > 0).all()


def test_cauchy_median_and_quartiles(device):
    x = torch.empty(N, dtype=torch.float64, device=device).cauchy_(1.0, 2.0)
    q1, med, q3 = np.quantile(_np(x), [0.25, 0.5, 0.75])
    np.testing.assert_allclose([q1, med, q3], [-1.0, 1.0, 3.0], atol=0.15)


def test_random_default_ranges(device):
    assert set(np.unique(_np(torch.empty(200, dtype=torch.bool, device=device).random_()))) == {
        0.0,
        1.0,
    }
    i8 = torch.empty(5000, dtype=torch.int8, device=device).random_()
    assert i8.dtype == torch.int8
    assert _np(i8).min() >= 0 and _np(i8).max() == 127
    f = _np(torch.empty(5000, device=device).random_())
    assert f.min() >= 0 and f.max() <= 2**24 and f.max() > 2**23
    assert (f == np.round(f)).all()
    big = torch.empty(100, dtype=torch.int64, device=device).random_()
    assert _np(big).max() > 2**60
    u8 = _np(torch.empty(500, dtype=torch.uint8, device=device).random_(250, None))
    assert u8.min() >= 250 and u8.max() <= 255


def test_integer_fills(device):
    x = torch.empty(1000, dtype=torch.int64, device=device)
    assert x.geometric_(0.5).dtype == torch.int64 and _np(x).min() >= 1
    assert set(np.unique(_np(x.bernoulli_(0.5)))) == {0.0, 1.0}


def test_fill_reproducible(device):
    def draws():
        torch.manual_seed(123)
        x = torch.empty(50, device=device)
        return [
            _np(x.uniform_()),
            _np(x.normal_()),
            _np(x.random_(100)),
            _np(x.cauchy_()),
            _np(torch.bernoulli(torch.full((50,), 0.5, device=device))),
            _np(torch.multinomial(torch.ones(10, device=device), 5)),
        ]

    for a, b in zip(draws(), draws(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_generator_argument(device):
    g1 = torch.Generator(device=device).manual_seed(7)
    g2 = torch.Generator(device=device).manual_seed(7)
    a = torch.empty(20, device=device).normal_(generator=g1)
    torch.randn(5, device=device)  # the default stream does not disturb g2
    b = torch.empty(20, device=device).normal_(generator=g2)
    np.testing.assert_array_equal(_np(a), _np(b))
    with pytest.raises(TypeError, match="must be torch.Generator, not int"):
        torch.ones(3, device=device).bernoulli(0.5, generator=3)


def test_cpu_and_strict_give_the_same_numbers():
    out = {}
    for dev in ("cpu", "strict"):
        torch.manual_seed(5)
        x = torch.empty(10, device=dev)
        out[dev] = [
            _np(x.uniform_(1, 2)),
            _np(x.exponential_()),
            _np(torch.multinomial(torch.ones(6, device=dev), 4)),
        ]
    for a, b in zip(out["cpu"], out["strict"], strict=True):
        np.testing.assert_array_equal(a, b)


# --- in-place fills: errors ---

FILL_ERRORS = [
    (
        lambda: torch.ones(3).uniform_(2, 1),
        RuntimeError,
        r"uniform_ expects to return a \[from, to\) range, but found from=2 > to=1",
    ),
    (
        lambda: torch.ones(2, dtype=torch.long).uniform_(),
        NotImplementedError,
        "\"check_uniform_bounds\" not implemented for 'Long'",
    ),
    (
        lambda: torch.ones(3).normal_(0, -1),
        RuntimeError,
        "normal expects std >= 0.0, but found std -1",
    ),
    (
        lambda: torch.ones(2, dtype=torch.long).normal_(),
        NotImplementedError,
        "\"normal_kernel_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: torch.ones(3).exponential_(0),
        RuntimeError,
        "exponential_ expects lambda > 0.0, but found lambda=0",
    ),
    (
        lambda: torch.ones(2, dtype=torch.long).exponential_(),
        RuntimeError,
        "Exponential distribution is a continuous probability distribution. dtype must be a "
        "floating point but you specified Long",
    ),
    (
        lambda: torch.ones(3).geometric_(1),
        RuntimeError,
        r"geometric_ expects p to be in \(0, 1\), but got p=1",
    ),
    (
        lambda: torch.ones(2, dtype=torch.bool).geometric_(0.5),
        NotImplementedError,
        "\"geometric_cpu\" not implemented for 'Bool'",
    ),
    (
        lambda: torch.ones(3).log_normal_(0, 0),
        RuntimeError,
        "log_normal_ expects std > 0.0, but found std=0",
    ),
    (
        lambda: torch.ones(2, dtype=torch.long).log_normal_(),
        NotImplementedError,
        "\"log_normal_cpu\" not implemented for 'Long'",
    ),
    (
        lambda: torch.ones(3).cauchy_(0, -1),
        RuntimeError,
        "cauchy_ expects sigma > 0.0, but found sigma=-1",
    ),
    (
        lambda: torch.ones(2, dtype=torch.long).cauchy_(),
        RuntimeError,
        "dtype must be a floating point but you specified long int",
    ),
    (
        lambda: torch.ones(3).random_(5, 3),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=3",
    ),
    (
        lambda: torch.ones(3).random_(0),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=0 >= to=0",
    ),
    (
        lambda: torch.ones(2, dtype=torch.uint8).random_(-1, 3),
        RuntimeError,
        "from is out of bounds for unsigned char",
    ),
    (
        lambda: torch.ones(2, dtype=torch.uint8).random_(0, 300),
        RuntimeError,
        "to - 1 is out of bounds for unsigned char",
    ),
    (
        lambda: torch.ones(2, dtype=torch.bool).random_(0, 3),
        RuntimeError,
        "to - 1 is out of bounds for bool",
    ),
    (
        lambda: torch.ones(3).bernoulli_(1.5),
        RuntimeError,
        r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5",
    ),
    (
        lambda: torch.ones(3).bernoulli_(torch.tensor([0.2, 2.0, 0.1])),
        RuntimeError,
        "Expected p_in >= 0 && p_in <= 1 to be true, but got false.",
    ),
    (
        lambda: torch.ones(2).bernoulli_(torch.ones(5)),
        RuntimeError,
        r"The expanded size of the tensor \(2\) must match the existing size \(5\)",
    ),
    (
        lambda: torch.ones(3, requires_grad=True).uniform_(),
        RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation.",
    ),
]


@pytest.mark.parametrize("call,exc,match", FILL_ERRORS)
def test_fill_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_random_float_precision_warning():
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        torch.ones(3).random_(0, 2**25)


# --- in-place fills: autograd ---


def test_fill_under_no_grad_on_a_leaf(device):
    w = torch.ones(5, requires_grad=True, device=device)
    with torch.no_grad():
        w.uniform_(-1, 1)
    assert w.requires_grad and w.grad_fn is None
    assert (np.abs(_np(w)) <= 1).all()


@pytest.mark.parametrize(
    "call,node",
    [
        (lambda y: y.uniform_(), "UniformBackward0"),
        (lambda y: y.normal_(), "NormalBackward0"),
        (lambda y: y.random_(), "RandomBackward2"),
        (lambda y: y.random_(4), "RandomBackward1"),
        (lambda y: y.random_(1, 4), "RandomBackward0"),
        (lambda y: y.bernoulli_(), "BernoulliBackward2"),
        (lambda y: y.exponential_(), "ExponentialBackward0"),
        (lambda y: y.geometric_(0.5), "GeometricBackward0"),
        (lambda y: y.log_normal_(), "LogNormalBackward0"),
        (lambda y: y.cauchy_(), "CauchyBackward0"),
    ],
)
def test_fill_on_a_non_leaf_has_zero_gradient(call, node):
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    call(y)
    assert type(y.grad_fn).__name__ == node
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_fill_through_a_view():
    base = torch.zeros(4, 3)
    base[1].uniform_(5, 6)
    row = base.numpy()[1]
    assert (row >= 5).all() and (row < 6).all()
    assert (base.numpy()[[0, 2, 3]] == 0).all()


# --- bernoulli ---


def test_bernoulli_tensor_probabilities(device):
    p = torch.tensor([0.0, 0.2, 0.9, 1.0], dtype=torch.float64, device=device).repeat(5000, 1)
    out = torch.bernoulli(p)
    assert out.dtype == torch.float64 and out.shape == p.shape
    np.testing.assert_allclose(_np(out).mean(0), [0.0, 0.2, 0.9, 1.0], atol=0.02)
    np.testing.assert_allclose(_np(p.bernoulli()).mean(0), [0.0, 0.2, 0.9, 1.0], atol=0.02)


def test_bernoulli_with_p(device):
    x = torch.zeros(N, dtype=torch.int32, device=device)
    out = torch.bernoulli(x, 0.25)
    assert out.dtype == torch.int32 and not out.requires_grad
    np.testing.assert_allclose(_np(out).mean(), 0.25, atol=0.02)
    assert (_np(x) == 0).all()  # input untouched
    np.testing.assert_allclose(
        _np(torch.ones(N, device=device).bernoulli(p=0.6)).mean(), 0.6, atol=0.02
    )


def test_bernoulli_grad_is_zero():
    p = torch.full((4,), 0.5, requires_grad=True)
    out = torch.bernoulli(p)
    assert type(out.grad_fn).__name__ == "BernoulliBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.zeros(4))


def test_bernoulli_out():
    out = torch.empty(3)
    r = torch.bernoulli(torch.ones(3), out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), np.ones(3))


def test_bernoulli_errors():
    with pytest.raises(
        NotImplementedError, match="\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"
    ):
        torch.bernoulli(torch.tensor([1, 0]))
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        torch.bernoulli(torch.tensor([0.5, 1.5]))
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\]"):
        torch.bernoulli(torch.ones(3), 1.5)


# --- poisson ---


@pytest.mark.parametrize("rate", [0.5, 4.0, 30.0])
def test_poisson_moments(device, rate):
    out = torch.poisson(torch.full((N,), rate, device=device))
    assert out.dtype == torch.float32
    assert (_np(out) == np.round(_np(out))).all()
    _moments(out, rate, rate, what=f"poisson({rate})")


def test_poisson_zero_rate_grad_and_errors():
    assert (torch.poisson(torch.zeros(10)).numpy() == 0).all()
    lam = torch.full((3,), 2.0, requires_grad=True)
    out = torch.poisson(lam)
    assert type(out.grad_fn).__name__ == "PoissonBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(lam.grad.numpy(), np.zeros(3))
    with pytest.raises(
        RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"
    ):
        torch.poisson(torch.tensor([-1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
        torch.poisson(torch.tensor([1, 2]))


# --- multinomial ---


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies(device, replacement):
    w = torch.tensor([1.0, 0.0, 3.0, 6.0], device=device)
    if replacement:
        draws = _np(torch.multinomial(w, N, replacement=True))
        freq = np.bincount(draws.astype(int), minlength=4) / N
    else:
        rows = w.repeat(N // 4, 1)
        draws = _np(torch.multinomial(rows, 1))  # the first draw follows the weights
        freq = np.bincount(draws[:, 0].astype(int), minlength=4) / draws.shape[0]
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.3, 0.6], atol=0.02)


def test_multinomial_without_replacement(device):
    w = torch.rand(50, 20, device=device) + 0.01
    out = torch.multinomial(w, 20)
    assert out.dtype == torch.int64 and out.shape == (50, 20)
    for row in _np(out).astype(int):
        assert sorted(row.tolist()) == list(range(20))
    # zero weights come last, in index order (as torch)
    np.testing.assert_array_equal(
        _np(torch.multinomial(torch.tensor([1.0, 0, 0], device=device), 3)), [0, 1, 2]
    )
    # the second of two draws: P(second = i) = sum_j w_j w_i / (1 - w_j)
    p = np.array([0.5, 0.3, 0.2])
    second = _np(torch.multinomial(torch.tensor(p, device=device).repeat(N, 1), 2))[:, 1]
    expect = [sum(p[j] * p[i] / (1 - p[j]) for j in range(3) if j != i) for i in range(3)]
    np.testing.assert_allclose(np.bincount(second.astype(int)) / N, expect, atol=0.02)


def test_multinomial_shapes_and_generator(device):
    assert torch.multinomial(torch.ones(0, 3, device=device), 2).shape == (0, 2)
    assert torch.multinomial(torch.ones(3, device=device), 7, True).shape == (7,)
    assert torch.ones(2, 3, device=device).multinomial(2).shape == (2, 2)
    g = torch.Generator(device=device)
    a = torch.multinomial(torch.ones(30, device=device), 10, generator=g.manual_seed(3))
    b = torch.multinomial(torch.ones(30, device=device), 10, generator=g.manual_seed(3))
    np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.parametrize(
    "args,exc,match",
    [
        (
            ([1.0, 0, 0], 4),
            RuntimeError,
            r"cannot sample n_sample > prob_dist.size\(-1\) samples without replacement",
        ),
        (
            ([1.0, -1, 0], 1),
            RuntimeError,
            "probability tensor contains either `inf`, `nan` or element < 0",
        ),
        (
            ([1.0, math.nan, 0], 1),
            RuntimeError,
            "probability tensor contains either `inf`, `nan` or element < 0",
        ),
        (
            ([1.0, math.inf, 0], 1),
            RuntimeError,
            "probability tensor contains either `inf`, `nan` or element < 0",
        ),
        (
            ([1.0, -1, 0], 2, True),
            RuntimeError,
            r"invalid multinomial distribution \(encountering probability entry < 0\)",
        ),
        (
            ([1.0, math.inf, 0], 2, True),
            RuntimeError,
            r"invalid multinomial distribution \(encountering probability entry = "
            r"infinity or NaN\)",
        ),
        (
            ([0.0, 0.0], 1),
            RuntimeError,
            r"invalid multinomial distribution \(sum of probabilities <= 0\)",
        ),
        (
            ([1, 2], 1),
            RuntimeError,
            "multinomial only supports floating-point dtypes for input, got: Long",
        ),
        (([[[1.0]]], 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
        ((1.0, 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
        (([1.0, 1.0], 0), RuntimeError, "cannot sample n_sample <= 0 samples"),
        (
            ([1.0, 1.0], 2.0),
            TypeError,
            r"multinomial\(\): argument 'num_samples' \(position 2\) must be int, not float",
        ),
    ],
)
def test_multinomial_errors(args, exc, match):
    data, *rest = args
    with pytest.raises(exc, match=match):
        torch.multinomial(torch.tensor(data), *rest)


# --- normal with tensors, and the _like samplers ---


def test_normal_tensor_mean_std(device):
    torch.manual_seed(1)  # torch's stream: seed 0 puts column 1's mean 3.4 sd low (torch too)
    mean = torch.tensor([0.0, 10.0], dtype=torch.float64, device=device).repeat(N // 2, 1)
    std = torch.tensor([1.0, 3.0], dtype=torch.float64, device=device)
    out = _np(torch.normal(mean, std))
    np.testing.assert_allclose(out.mean(0), [0.0, 10.0], atol=0.1)
    np.testing.assert_allclose(out.std(0), [1.0, 3.0], rtol=0.05)


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
def test_float_like(device, fn):
    x = torch.zeros(N, 2, dtype=torch.float64, device=device)
    out = getattr(torch, fn)(x)
    assert out.shape == x.shape and out.dtype == torch.float64 and str(out.device) == device
    if fn == "rand_like":
        _moments(out, 0.5, 1 / 12, what=fn)
    else:
        _moments(out, 0.0, 1.0, what=fn)


def test_randint_like(device):
    x = torch.zeros(N, dtype=torch.int32, device=device)
    out = torch.randint_like(x, 3, 7)
    assert out.dtype == torch.int32
    assert set(np.unique(_np(out))) == {3.0, 4.0, 5.0, 6.0}
    assert set(np.unique(_np(torch.randint_like(x, 2)))) == {0.0, 1.0}


# --- strict device: no host read-back ---


def test_no_host_transfers_on_the_strict_device():
    from minitorch._backend.strict import count_transfers

    x = torch.empty(100, device="strict")
    w = torch.rand(4, 10, device="strict")
    p = torch.full((100,), 0.5, device="strict")
    with count_transfers() as t:
        x.uniform_().normal_().random_(0, 5).exponential_().geometric_(0.5)
        x.log_normal_().cauchy_().bernoulli_(0.5).bernoulli_(p)
        torch.bernoulli(p)
        torch.poisson(p)
        torch.multinomial(w, 5)
        torch.multinomial(w, 5, replacement=True)
    assert t.count == 0


@pytest.mark.parametrize("dt, name", [(torch.float32, "Float"), (torch.int32, "Int")])
def test_multinomial_out_must_be_int64(dt, name):
    out = torch.zeros(1, dtype=dt)
    with pytest.raises(RuntimeError, match=f"multinomial expects Long tensor out, got: {name}"):
        torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 1, out=out)
    assert out.tolist() == [0]  # nothing written
    idx = torch.zeros(1, dtype=torch.int64)
    assert torch.multinomial(torch.tensor([0.0, 1.0, 0.0]), 1, out=idx) is idx
    assert idx.tolist() == [1]
