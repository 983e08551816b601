"""Tests of minitorch.random: seeding, Generator objects, and the samplers on every device."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import backend_of


def _host(t):
    return t.detach().cpu().numpy()


# --- samplers: shapes, dtypes, ranges ---


def test_rand_and_randn(device):
    u = mt.rand(1000, device=device)
    assert u.shape == (1000,) and u.dtype is mt.float32 and u.device == mt.device(device)
    assert backend_of(u.device).is_array(u._data)
    h = _host(u)
    assert h.min() >= 0.0 and h.max() < 1.0 and 0.4 < h.mean() < 0.6
    z = _host(mt.randn(4000, dtype=mt.float64, device=device))
    assert z.dtype == np.float64 and abs(z.mean()) < 0.1 and 0.9 < z.std() < 1.1
    assert mt.rand(size=(2, 3), device=device).shape == (2, 3)
    assert mt.rand((), device=device).shape == ()
    assert mt.rand(0, device=device).shape == (0,)
    assert mt.rand(2, requires_grad=True, device=device).requires_grad


def test_half_precision_uniform_stays_below_one(device):
    u = _host(mt.rand(20000, dtype=mt.float16, device=device))
    assert u.dtype == np.float16 and u.max() < 1.0


@pytest.mark.parametrize(
    "call, kernel",
    [
        (lambda: mt.rand(2, dtype=mt.int64), "\"check_uniform_bounds\" not implemented for 'Long'"),
        (lambda: mt.randn(2, dtype=mt.int32), "\"normal_kernel_cpu\" not implemented for 'Int'"),
        (lambda: mt.rand_like(mt.ones(2, dtype=mt.int64)), "check_uniform_bounds"),
        (lambda: mt.normal(mt.zeros(2, dtype=mt.int64), 1.0), "normal_kernel_cpu"),
        (lambda: mt.randperm(3, dtype=mt.bool), "\"randperm\" not implemented for 'Bool'"),
    ],
)
def test_unsupported_dtypes_raise_not_implemented(call, kernel):
    with pytest.raises(NotImplementedError, match=kernel):
        call()


def test_randint_signatures(device):
    a = mt.randint(10, (3,), device=device)
    assert a.shape == (3,) and a.dtype is mt.int64
    b = mt.randint(3, 10, (500,), device=device)
    h = _host(b)
    assert h.min() >= 3 and h.max() < 10 and set(h.tolist()) == set(range(3, 10))
    assert mt.randint(0, 10, size=(2,), device=device).shape == (2,)
    assert mt.randint(high=10, size=(2,), device=device).shape == (2,)
    assert mt.randint(low=2, high=10, size=(2,), device=device).shape == (2,)
    assert mt.randint(5, [2, 2], device=device).shape == (2, 2)
    assert mt.randint(5, (), device=device).shape == ()
    assert mt.randint(mt.tensor(5), (2,), device=device).shape == (2,)
    assert mt.randint(10, (3,), dtype=mt.int32, device=device).dtype is mt.int32
    f = mt.randint(10, (3,), dtype=mt.float32, requires_grad=True, device=device)
    assert f.dtype is mt.float32 and f.requires_grad
    assert set(_host(mt.randint(0, 2, (100,), dtype=mt.bool, device=device)).tolist()) <= {0, 1}


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: mt.randint(10), TypeError, "invalid combination of arguments"),
        (
            lambda: mt.randint(10, 3),
            TypeError,
            r"randint\(\): argument 'size' \(position 2\) must be tuple of ints, not int",
        ),
        (
            lambda: mt.randint(5, size=2),
            TypeError,
            "argument 'size' must be tuple of ints, not int",
        ),
        (lambda: mt.randint(2.5, (2,)), TypeError, "argument 'high' \\(position 1\\) must be int"),
        (
            lambda: mt.randint(3, 3, (2,)),
            RuntimeError,
            "random_ expects 'from' to be less than 'to', but got from=3 >= to=3",
        ),
        (lambda: mt.randint(0, 2**64, (2,)), ValueError, "Overflow when unpacking long long"),
        (
            lambda: mt.randint(0, 300, (2,), dtype=mt.uint8),
            RuntimeError,
            "to - 1 is out of bounds for unsigned char",
        ),
        (
            lambda: mt.randint(-1, 3, (2,), dtype=mt.uint8),
            RuntimeError,
            "from is out of bounds for unsigned char",
        ),
        (
            lambda: mt.randint(0, 3, (2,), dtype=mt.bool),
            RuntimeError,
            "to - 1 is out of bounds for bool",
        ),
        (
            lambda: mt.randint(10, (3,), requires_grad=True),
            RuntimeError,
            "Only Tensors of floating point and complex dtype can require gradients",
        ),
    ],
)
def test_randint_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_randperm(device):
    p = mt.randperm(50, device=device)
    assert p.dtype is mt.int64 and sorted(_host(p).tolist()) == list(range(50))
    assert mt.randperm(0, device=device).shape == (0,)
    assert mt.randperm(5, dtype=mt.float32, device=device).dtype is mt.float32
    assert mt.randperm(5, dtype=mt.int8, device=device).dtype is mt.int8
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1"):
        mt.randperm(-1)
    with pytest.raises(RuntimeError, match="without overflow"):
        mt.randperm(300, dtype=mt.int8)
    with pytest.raises(TypeError, match=r"randperm\(\): argument 'n' \(position 1\) must be int"):
        mt.randperm(2.5)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        mt.randperm(3, requires_grad=True)


# --- normal ---


def test_normal_with_numbers(device):
    t = mt.normal(2.0, 3.0, (4000,), device=device)
    h = _host(t)
    assert t.dtype is mt.float32 and abs(h.mean() - 2.0) < 0.3 and 2.7 < h.std() < 3.3
    assert mt.normal(0, 1, size=(2, 3), device=device).shape == (2, 3)
    assert mt.normal(0.0, 1.0, (2,), dtype=mt.float64, device=device).dtype is mt.float64
    leaf = mt.normal(0.0, 1.0, (2,), requires_grad=True, device=device)
    assert leaf.requires_grad and leaf.is_leaf


def test_normal_with_tensors_broadcasts_and_follows_mean_dtype(device):
    mean = mt.zeros(3, 1, device=device)
    std = mt.ones(1, 2, dtype=mt.float64, device=device)
    out = mt.normal(mean, std)
    assert out.shape == (3, 2) and out.dtype is mt.float32
    assert mt.normal(mt.zeros(2, dtype=mt.float64, device=device), 1.0).dtype is mt.float64
    assert mt.normal(0.0, mt.ones(3, device=device)).shape == (3,)
    assert mt.normal(mean=mt.zeros(2, device=device)).shape == (2,)
    with pytest.raises(
        RuntimeError,
        match=r"The size of tensor a \(2\) must match the size of "
        r"tensor b \(3\) at non-singleton dimension 0",
    ):
        mt.normal(mt.zeros(2, device=device), mt.ones(3, device=device))


def test_normal_is_differentiable(device):
    mean = mt.zeros(5, requires_grad=True, device=device)
    std = mt.full((5,), 2.0, requires_grad=True, device=device)
    out = mt.normal(mean, std)
    assert type(out.grad_fn).__name__ == "NormalBackward3"
    out.sum().backward()
    # torch defines the sample's gradients as zero (not reparameterised: use rsample for that)
    np.testing.assert_array_equal(_host(mean.grad), np.zeros(5))
    np.testing.assert_array_equal(_host(std.grad), np.zeros(5))
    m1 = mt.normal(mt.ones(2, requires_grad=True, device=device), 1.0)
    assert type(m1.grad_fn).__name__ == "NormalBackward1"
    s2 = mt.normal(1.0, mt.ones(2, requires_grad=True, device=device))
    assert type(s2.grad_fn).__name__ == "NormalBackward2"
    s2.sum().backward()


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: mt.normal(0.0, 1.0), TypeError, "normal\\(\\) received an invalid combination"),
        (lambda: mt.normal(mt.zeros(2), 1.0, (2,)), TypeError, "invalid combination"),
        (
            lambda: mt.normal(0.0, -1.0, (2,)),
            RuntimeError,
            "normal expects std >= 0.0, but found std -1",
        ),
        (
            lambda: mt.normal(mt.zeros(3), -0.5),
            RuntimeError,
            "normal expects std >= 0.0, but found std -0.5",
        ),
        (
            lambda: mt.normal(0.0, mt.tensor([1.0, -1.0])),
            RuntimeError,
            "normal expects all elements of std >= 0.0",
        ),
    ],
)
def test_normal_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_like_samplers(device):
    x = mt.ones(2, 3, dtype=mt.float64, device=device)
    assert mt.rand_like(x).dtype is mt.float64 and mt.rand_like(x).shape == (2, 3)
    assert mt.randn_like(x).device == x.device
    r = mt.randint_like(x, 5)
    assert r.dtype is mt.float64 and _host(r).max() < 5
    assert _host(mt.randint_like(x, 2, 5)).min() >= 2


# --- seeding and generators ---


def test_manual_seed_reproduces_every_sampler(device):
    def draw():
        return [
            _host(mt.rand(3, device=device)),
            _host(mt.randn(3, device=device)),
            _host(mt.randint(100, (3,), device=device)),
            _host(mt.randperm(5, device=device)),
            _host(mt.normal(0.0, 1.0, (3,), device=device)),
        ]

    mt.manual_seed(123)
    first = draw()
    mt.manual_seed(123)
    second = draw()
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    mt.manual_seed(124)
    assert not np.array_equal(draw()[0], first[0])


def test_strict_device_draws_the_cpu_numbers():
    mt.manual_seed(7)
    cpu = _host(mt.rand(4))
    mt.manual_seed(7)
    strict = _host(mt.rand(4, device="strict"))
    np.testing.assert_array_equal(cpu, strict)


def test_each_device_has_its_own_stream():
    mt.manual_seed(3)
    a = _host(mt.rand(3, device="strict"))
    mt.manual_seed(3)
    mt.rand(10)  # draws on the CPU do not move the strict device's stream
    b = _host(mt.rand(3, device="strict"))
    np.testing.assert_array_equal(a, b)


def test_generator_objects(device):
    g = mt.Generator(device)
    assert g.device == mt.device(device)
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    a = _host(mt.rand(3, generator=g, device=device))
    g.manual_seed(5)
    np.testing.assert_array_equal(a, _host(mt.rand(3, generator=g, device=device)))
    g2 = mt.Generator(device).manual_seed(5)
    np.testing.assert_array_equal(a, _host(mt.rand(3, generator=g2, device=device)))
    # the default stream is untouched by draws from a Generator object
    mt.manual_seed(0)
    x = _host(mt.randn(2, device=device))
    mt.manual_seed(0)
    mt.randn(2, generator=g, device=device)
    np.testing.assert_array_equal(x, _host(mt.randn(2, device=device)))
    for f in (
        lambda gen: mt.randint(5, (2,), generator=gen, device=device),
        lambda gen: mt.randperm(4, generator=gen, device=device),
        lambda gen: mt.normal(0.0, 1.0, (2,), generator=gen, device=device),
    ):
        g.manual_seed(1)
        first = _host(f(g))
        g.manual_seed(1)
        np.testing.assert_array_equal(first, _host(f(g)))


def test_generator_errors():
    with pytest.raises(
        RuntimeError, match="Expected a 'strict' device type for generator but found 'cpu'"
    ):
        mt.rand(2, generator=mt.Generator("cpu"), device="strict")
    with pytest.raises(TypeError, match=r"rand\(\) received an invalid combination of arguments "
                       r"- got \(int, generator=int\)"):  # fmt: skip
        mt.rand(2, generator=1)


def test_seed_values():
    assert type(mt.manual_seed(3)) is mt.Generator
    assert mt.manual_seed(3) is mt.default_generator
    assert mt.initial_seed() == 3
    assert mt.manual_seed(-1).initial_seed() == 2**64 - 1  # negative seeds wrap, as in torch
    assert mt.manual_seed(1.5).initial_seed() == 1
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        mt.manual_seed(2**64)
    s = mt.seed()
    assert isinstance(s, int) and mt.initial_seed() == s
    assert mt.Generator().initial_seed() == 67280421310721  # torch's default seed


def test_rng_state_round_trip(device):
    state = mt.get_rng_state()
    assert state.dtype is mt.uint8 and state.ndim == 1
    a = _host(mt.rand(3))
    mt.set_rng_state(state)
    np.testing.assert_array_equal(a, _host(mt.rand(3)))
    g = mt.Generator(device).manual_seed(9)
    mt.rand(2, generator=g, device=device)
    if device.startswith("cuda"):  # README: a GPU generator's state cannot be read
        with pytest.raises(NotImplementedError, match="cannot snapshot a CUDA generator"):
            g.get_state()
        return
    st = g.get_state()
    b = _host(mt.rand(3, generator=g, device=device))
    g.set_state(st)
    np.testing.assert_array_equal(b, _host(mt.rand(3, generator=g, device=device)))
    with pytest.raises(TypeError):
        g.set_state([1, 2])


def test_generators_pickle_and_copy():
    g = mt.Generator().manual_seed(11)
    mt.rand(2, generator=g)
    for clone in (pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        np.testing.assert_array_equal(
            _host(mt.rand(3, generator=g.__class__().set_state(g.get_state()))),
            _host(mt.rand(3, generator=clone)),
        )


def test_fork_rng_restores_the_streams():
    mt.manual_seed(1)
    with mt.random.fork_rng():
        inside = _host(mt.rand(3))
    np.testing.assert_array_equal(inside, _host(mt.rand(3)))
