"""Session-23 differential fuzz of minitorch.distributions against torch: the mismatches found,
with torch 2.13's values and messages as literals."""

from __future__ import annotations

import pytest

import minitorch

D = minitorch.distributions


def _shape_msg(what):
    # torch's text carries a run of 26 spaces after "with" (a continued string literal)
    return (
        f"KL-divergence between two {what} with{' ' * 26}different event shapes cannot be computed"
    )


def test_kl_mvn_event_shape_mismatch_messages():
    mvn2 = D.MultivariateNormal(minitorch.zeros(2), minitorch.eye(2))
    mvn3 = D.MultivariateNormal(minitorch.zeros(3), minitorch.eye(3))
    lr2 = D.LowRankMultivariateNormal(minitorch.zeros(2), minitorch.ones(2, 1), minitorch.ones(2))
    lr3 = D.LowRankMultivariateNormal(minitorch.zeros(3), minitorch.ones(3, 1), minitorch.ones(3))
    cases = [
        (mvn2, mvn3, "Multivariate Normals"),
        (lr2, lr3, "Low Rank Multivariate Normals"),
        (mvn2, lr3, "(Low Rank) Multivariate Normals"),
        (lr2, mvn3, "(Low Rank) Multivariate Normals"),
    ]
    for p, q, what in cases:
        with pytest.raises(ValueError) as info:
            D.kl_divergence(p, q)
        assert str(info.value) == _shape_msg(what)


def test_poisson_log_prob_python_number_value():
    rate = minitorch.tensor([1.5, 2.0], dtype=minitorch.float64)
    lp = D.Poisson(rate, validate_args=False).log_prob(2.0)
    assert lp.dtype == minitorch.float64
    assert lp.tolist() == pytest.approx([-1.3822169643436166, -1.3068528194400546], rel=1e-12)
    lp = D.Poisson(3.0, validate_args=False).log_prob(2.0)
    assert lp.dtype == minitorch.float32
    assert lp.item() == pytest.approx(-1.495922565460205, rel=1e-6)
