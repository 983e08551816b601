"""nn.init: in-place fills under no_grad, distribution statistics, structured inits, errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch.nn import init

N = (400, 500)  # 200k samples: the mean/std checks below hold with a wide margin


def _np(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _leaf(*shape, device="cpu", dtype=None):
    return nn.Parameter(minitorch.empty(*shape, device=device, dtype=dtype))


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(minitorch.empty(3, 4)) == (4, 3)
    assert init._calculate_fan_in_and_fan_out(minitorch.empty(8, 2, 3, 5)) == (30, 120)
    with pytest.raises(
        ValueError,
        match="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ):
        init._calculate_fan_in_and_fan_out(minitorch.empty(3))
    with pytest.raises(
        ValueError,
        match=r"Mode fan_avg not supported, please use one of "
        r"\['fan_in', 'fan_out'\]",
    ):
        init.kaiming_uniform_(minitorch.empty(3, 4), mode="fan_avg")


@pytest.mark.parametrize(
    "fill, mean, std, lo, hi",
    [
        (lambda t: init.uniform_(t, -1.0, 3.0), 1.0, 4 / math.sqrt(12), -1.0, 3.0),
        (lambda t: init.normal_(t, 2.0, 0.5), 2.0, 0.5, None, None),
        (lambda t: init.xavier_uniform_(t, gain=2.0), 0.0, 2 * math.sqrt(2 / 900), None, None),
        (lambda t: init.xavier_normal_(t), 0.0, math.sqrt(2 / 900), None, None),
        (
            lambda t: init.kaiming_uniform_(t, a=math.sqrt(5)),
            0.0,
            1 / math.sqrt(3 * 500),
            -1 / math.sqrt(500),
            1 / math.sqrt(500),
        ),
        (
            lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
            0.0,
            math.sqrt(2 / 400),
            None,
            None,
        ),
    ],
)
def test_distribution_statistics(fill, mean, std, lo, hi):
    t = _leaf(*N)
    out = fill(t)
    assert out is t and t.requires_grad and t.is_leaf and t.grad_fn is None
    v = _np(t)
    np.testing.assert_allclose(v.mean(), mean, atol=6 * std / math.sqrt(v.size))
    np.testing.assert_allclose(v.std(), std, rtol=0.01)
    if lo is not None:
        assert v.min() >= lo and v.max() <= hi


def test_trunc_normal_statistics():
    t = _leaf(*N)
    init.trunc_normal_(t, mean=0.5, std=1.5, a=-2.0, b=2.0)
    v = _np(t)
    assert v.min() >= -2.0 and v.max() <= 2.0
    # moments of N(0.5, 1.5^2) truncated to [-2, 2]
    alpha, beta = (-2 - 0.5) / 1.5, (2 - 0.5) / 1.5
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    mean = 0.5 + 1.5 * (pdf(alpha) - pdf(beta)) / z
    var = 1.5**2 * (
        1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - ((pdf(alpha) - pdf(beta)) / z) ** 2
    )
    np.testing.assert_allclose(v.mean(), mean, atol=0.01)
    np.testing.assert_allclose(v.std(), math.sqrt(var), rtol=0.01)


def test_trunc_normal_warns_when_mean_far_from_interval():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(minitorch.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0)


def test_constant_ones_zeros_eye():
    t = _leaf(3, 4)
    np.testing.assert_array_equal(_np(init.constant_(t, 0.5)), np.full((3, 4), 0.5))
    np.testing.assert_array_equal(_np(init.ones_(t)), np.ones((3, 4)))
    np.testing.assert_array_equal(_np(init.zeros_(t)), np.zeros((3, 4)))
    np.testing.assert_array_equal(_np(init.eye_(t)), np.eye(3, 4))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(minitorch.empty(3))


def test_dirac():
    w = _leaf(6, 2, 3, 3)
    init.dirac_(w, groups=2)
    expected = np.zeros((6, 2, 3, 3))
    for g in range(2):
        for d in range(2):
            expected[g * 3 + d, d, 1, 1] = 1
    np.testing.assert_array_equal(_np(w), expected)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(minitorch.empty(3, 3))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(minitorch.empty(5, 2, 3), groups=2)


@pytest.mark.parametrize("shape", [(3, 10), (10, 3), (4, 2, 3)])
def test_orthogonal(shape):
    t = _leaf(*shape)
    init.orthogonal_(t, gain=2.0)
    m = _np(t).reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-4)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(minitorch.empty(3))


def test_sparse():
    t = _leaf(10, 50)
    init.sparse_(t, sparsity=0.3, std=0.1)
    zeros_per_col = (_np(t) == 0).sum(axis=0)
    assert (zeros_per_col >= 3).all()


def test_generator_makes_draws_reproducible():
    a, b = minitorch.empty(5, 5), minitorch.empty(5, 5)
    for fill in (
        init.uniform_,
        init.normal_,
        init.xavier_uniform_,
        init.kaiming_normal_,
        init.trunc_normal_,
        init.orthogonal_,
    ):
        fill(a, generator=minitorch.Generator().manual_seed(3))
        fill(b, generator=minitorch.Generator().manual_seed(3))
        np.testing.assert_array_equal(_np(a), _np(b), err_msg=fill.__name__)
    minitorch.manual_seed(1)
    init.normal_(a)
    minitorch.manual_seed(1)
    init.normal_(b)
    np.testing.assert_array_equal(_np(a), _np(b))


def test_keeps_dtype_and_bumps_version():
    for dt in (minitorch.float16, minitorch.float64):
        t = minitorch.empty(4, 4, dtype=dt)
        v = t._version
        init.kaiming_uniform_(t)
        assert t.dtype is dt and t._version > v


def test_errors_on_integer_tensors_and_bad_arguments():
    with pytest.raises(
        NotImplementedError, match="\"check_uniform_bounds\" not implemented for 'Long'"
    ):
        init.uniform_(minitorch.zeros(3, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        init.normal_(minitorch.zeros(3), 0, -1)
    with pytest.raises(
        RuntimeError,
        match=r"uniform_ expects to return a \[from, to\) range, "
        "but found from=2 > to=1",
    ):
        init.uniform_(minitorch.zeros(3), 2, 1)


def test_zero_element_tensor_warns_and_is_untouched():
    t = minitorch.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(t) is t


def test_deprecated_aliases_warn():
    with pytest.warns(
        FutureWarning, match="`nn.init.normal` is now deprecated in favor of `nn.init.normal_`"
    ):
        init.normal(minitorch.empty(2))


def test_on_device_without_host_reads(device):
    from minitorch._backend.strict import count_transfers

    t = _leaf(20, 30, device=device)
    w = _leaf(4, 4, 3, device=device)
    with warnings.catch_warnings(), count_transfers() as transfers:
        init.uniform_(t)
        init.normal_(t)
        init.trunc_normal_(t)
        init.xavier_normal_(t)
        init.kaiming_uniform_(t)
        init.orthogonal_(t)
        init.sparse_(t, 0.5)
        init.eye_(t)
        init.dirac_(w)
        init.constant_(t, 2.0)
        init.zeros_(t)
    assert transfers.count == 0
    assert t.device == minitorch.device(device)
