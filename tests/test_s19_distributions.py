"""torch.distributions parity found by the session-19 differential sweep: softplus gradients at
logit 0 (Binomial, Bernoulli KL), the Dirichlet mode when every concentration is below 1,
FisherSnedecor's variance gradient, RelaxedBernoulli's log_prob at 0, and the chi-squared parts
that FisherSnedecor and StudentT validate first. Expected values were printed by torch 2.13."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

D = minitorch.distributions
F64 = minitorch.float64


def _t(values, grad=False):
    return minitorch.tensor(values, dtype=F64, requires_grad=grad)


def _close(actual, expected, msg):
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64), expected, rtol=1e-7, atol=1e-9, err_msg=msg
    )


def test_binomial_logits_gradient_at_zero():
    logits = _t([-30.0, 0.0, 30.0], grad=True)
    d = D.Binomial(4, logits=logits)
    (g,) = minitorch.autograd.grad(d.log_prob(_t([1.0, 2.0, 3.0])).sum(), logits)
    _close(g.tolist(), [0.9999999999996256, 0.0, -0.9999999999996256], "log_prob")
    (g,) = minitorch.autograd.grad(d.entropy().sum(), logits)
    _close(g.tolist(), [1.0710321518558885e-11, 0.0, -1.071054356316381e-11], "entropy")


def test_kl_bernoulli_gradient_at_logit_zero():
    p = _t([0.3, 0.6, 0.8], grad=True)
    q_logits = _t([-3.0, 0.0, 3.0], grad=True)
    kl = D.kl_divergence(D.Bernoulli(probs=p), D.Bernoulli(logits=q_logits))
    gp, gq = minitorch.autograd.grad(kl.sum(), [p, q_logits])
    _close(gp.tolist(), [2.152702139612796, 0.4054651081081643, -1.6137056388801092], "probs")
    _close(gq.tolist(), [-0.2525741268224332, -0.09999999999999998, 0.15257412682243318], "logits")


def test_dirichlet_mode_all_below_one_is_first_corner():
    c = minitorch.tensor([[0.2, 0.5, 0.9], [2.0, 0.5, 3.0], [0.5, 0.9, 0.2]])
    m = D.Dirichlet(c).mode
    _close(m.tolist(), [[1.0, 0.0, 0.0], [1 / 3, 0.0, 2 / 3], [1.0, 0.0, 0.0]], "mode")


def test_fishersnedecor_variance_gradient_nan_where_undefined():
    df1 = _t([[1.0], [3.0]], grad=True)
    df2 = _t([1.0, 3.0, 9.0], grad=True)
    g1, g2 = minitorch.autograd.grad(D.FisherSnedecor(df1, df2).variance.sum(), [df1, df2])
    assert np.isnan(np.asarray(g1.tolist())).all(), g1
    _close(g2.tolist(), [0.0, 0.0, -1.0929446064139943], "df2")


@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64])
def test_relaxed_bernoulli_log_prob_at_zero_is_minus_inf(dtype):
    d = D.RelaxedBernoulli(
        minitorch.tensor(2.0, dtype=dtype), logits=minitorch.tensor([0.3, -1.0], dtype=dtype)
    )
    out = d.log_prob(minitorch.tensor([0.0, 0.5], dtype=dtype)).tolist()
    assert out[0] == -np.inf, out
    np.testing.assert_allclose(out[1], 0.45291816664339013, rtol=1e-5)


_GT0 = "to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n"


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: D.FisherSnedecor(-1.0, 1.0, validate_args=False),
            "Expected parameter concentration (Tensor of shape ()) of distribution "
            "Gamma(concentration: -0.5, rate: -1.0) " + _GT0 + "-0.5",
        ),
        (
            lambda: D.FisherSnedecor(1.0, -1.0, validate_args=True),
            "Expected parameter concentration (Tensor of shape ()) of distribution "
            "Gamma(concentration: -0.5, rate: -1.0) " + _GT0 + "-0.5",
        ),
        (
            lambda: D.FisherSnedecor(minitorch.tensor([-1.0]), minitorch.tensor([[1.0], [2.0]])),
            "Expected parameter concentration (Tensor of shape (2, 1)) of distribution "
            "Gamma(concentration: torch.Size([2, 1]), rate: torch.Size([2, 1])) "
            + _GT0
            + "tensor([[-0.5000],\n        [-0.5000]])",
        ),
        (
            lambda: D.StudentT(-1.0, validate_args=False),
            "Expected parameter df (Tensor of shape ()) of distribution Chi2() " + _GT0 + "-1.0",
        ),
        (
            lambda: D.StudentT(minitorch.tensor([[-1.0]]), minitorch.tensor([0.0, 1.0])),
            "Expected parameter df (Tensor of shape (1, 2)) of distribution Chi2() "
            + _GT0
            + "tensor([[-1., -1.]])",
        ),
    ],
)
def test_chi2_parts_validated_first(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message
