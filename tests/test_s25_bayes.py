"""Session 25 (bayes): torch's CPU Poisson and binomial draws (torch.poisson, torch.binomial and
the Poisson/Binomial distributions) and Wishart's redraw of positive definite samples, against
literals obtained from torch 2.13 with the same seeds."""

from __future__ import annotations

import warnings

import numpy as np

import minitorch
from minitorch._backend import torch_stream_counts as tsc
from minitorch._backend.torch_stream import TorchStream

D = minitorch.distributions


def test_poisson_draws_are_torchs():
    minitorch.manual_seed(0)
    lam = minitorch.tensor([0.5, 3.0, 12.0, 50.0, 0.0, 1000.0], dtype=minitorch.float64)
    got = minitorch.poisson(lam)
    assert got.dtype == minitorch.float64
    assert got.tolist() == [2.0, 4.0, 13.0, 49.0, 0.0, 987.0]
    # the stream continues where torch's does
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == [
        0.48184840078170854,
        0.4408004990443595,
    ]


def test_binomial_draws_are_torchs():
    minitorch.manual_seed(1)
    n = minitorch.tensor([10.0, 5.0, 100.0, 1000.0, 0.0, 20.0, 3.0])
    p = minitorch.tensor([0.3, 0.9, 0.5, 0.02, 0.5, 0.7, 1.0])
    got = minitorch.binomial(n, p)
    assert got.dtype == minitorch.float32
    assert got.tolist() == [1.0, 5.0, 45.0, 14.0, 0.0, 13.0, 3.0]
    np.testing.assert_array_equal(
        minitorch.rand(2).numpy(), np.array([0.6396819353103638, 0.9742777347564697], np.float32)
    )


def test_binomial_float32_threshold_is_float32_arithmetic():
    # n p is just below 10 in float64 but rounds to 10 in float32: torch takes BTRS
    minitorch.manual_seed(2)
    n = minitorch.tensor([11.0, 22.0])
    p = minitorch.tensor([0.9090908765792847, 0.45454543828964233])
    assert minitorch.binomial(n, p).tolist() == [10.0, 12.0]


def test_poisson_and_binomial_distributions_sample_torchs_numbers():
    minitorch.manual_seed(3)
    assert D.Poisson(minitorch.tensor([2.0, 20.0])).sample((3,)).tolist() == [
        [0.0, 17.0],
        [1.0, 21.0],
        [3.0, 21.0],
    ]
    minitorch.manual_seed(4)
    got = D.Binomial(7, probs=minitorch.tensor([0.2, 0.8])).sample((3,))
    assert got.tolist() == [[2.0, 4.0], [1.0, 6.0], [2.0, 6.0]]


def test_count_draw_edges():
    s = TorchStream(0)
    # an infinite rate: torch's int64 cast of a non-finite k
    assert tsc.poisson(s, np.array([np.inf])).tolist() == [-(2.0**63)]
    out = tsc.binomial(
        s, np.array([np.nan, 5.0, -3.0, 4.0]), np.array([0.3, np.nan, 0.5, 1.0]), False
    )
    np.testing.assert_array_equal(out, [np.nan, np.nan, 0.0, 4.0])


def test_wishart_redraws_positive_definite_samples_as_torch():
    minitorch.manual_seed(0)
    w = D.Wishart(
        df=minitorch.tensor(5.0, dtype=minitorch.float64),
        covariance_matrix=minitorch.eye(2, dtype=minitorch.float64),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = w.sample()
    assert [str(c.message) for c in caught] == ["Singular sample detected."]
    np.testing.assert_allclose(
        got.numpy(),
        [[1.3823537490168543, 1.248832087206665], [1.248832087206665, 2.820919945790658]],
        rtol=1e-14,
    )
