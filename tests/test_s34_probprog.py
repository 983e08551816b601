"""Session 34 (helper probprog): torch-free regression tests of the library fixes the
probabilistic-programming programs of tests/reference/test_s34_probprog_reference.py found:
Dirichlet/Beta rsample gradients are torch's (torch._dirichlet_grad's piecewise formulas);
Normal.sample goes through torch.normal of the expanded parameters (expand's error for a bad
sample shape); expand's numel error for a new leading size below -1; MixtureSameFamily.sample
takes len() of the sample shape as given; constraints.independent's AssertionErrors and
vec_to_tril_matrix's text; Gamma.rsample's clamp outside the graph; GeneralizedPareto's
log_prob at concentration -1 and torch's expressions. torch's numbers and messages are written
here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

D = mt.distributions


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


# --- Dirichlet / Beta rsample gradients: torch's ---


def test_dirichlet_grad_branches_are_torchs():
    from minitorch.distributions.dirichlet import _dirichlet_grad

    # one point per branch: near 0 (x2), the rational fit (x2), near 1 (x2), the saddle point
    # near the mean and away from it
    x = np.array([0.01, 0.3, 0.97, 0.999, 0.45, 0.3, 0.2, 0.6])
    alpha = np.array([0.5, 2.0, 3.0, 0.8, 9.0, 9.0, 1.5, 4.0])
    total = np.array([1.5, 30.0, 3.5, 1.0, 20.0, 20.0, 4.0, 7.0])
    digamma = mt.tensor(0.0)._device.backend.special("digamma")
    with np.errstate(all="ignore"):
        got = _dirichlet_grad(np, digamma, x, alpha, total, np.float64)
    want = [  # torch._dirichlet_grad(x, alpha, total), float64
        0.09303374113107257, 0.0708520582866479, 0.35511963686251075, 1.9378077163972924,
        0.051774405735218916, 0.041917410453910876, 0.2140015060668954, 0.16023571384838722,
    ]  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-12, err_msg="_dirichlet_grad")


def test_beta_rsample_gradient_is_torchs():
    c1 = mt.tensor([0.7, 2.5, 9.0], dtype=mt.float64, requires_grad=True)
    c0 = mt.tensor([1.2, 0.4, 8.0], dtype=mt.float64, requires_grad=True)
    mt.manual_seed(5)
    s = D.Beta(c1, c0).rsample((4,))
    np.testing.assert_allclose(
        s.detach().numpy()[0],
        [0.12610197183422275, 0.9992166365269424, 0.4224444700252458],
        rtol=1e-12,
        err_msg="Beta draws",
    )
    (s * mt.arange(12, dtype=mt.float64).reshape(4, 3).cos()).sum().backward()
    # torch 2.13: the same seed, sample and upstream gradient
    np.testing.assert_allclose(
        c1.grad.numpy(),
        [-0.40030014868200875, -0.18094469191193902, -0.009469395599763949],
        rtol=1e-10,
        err_msg="d/d concentration1",
    )
    np.testing.assert_allclose(
        c0.grad.numpy(),
        [0.18275119427638872, 0.6918417046762558, 0.007079722975172066],
        rtol=1e-10,
        err_msg="d/d concentration0",
    )


def test_dirichlet_rsample_node_and_draws():
    c = mt.tensor([[0.3, 1.5, 4.0], [7.0, 8.0, 9.0]], requires_grad=True)
    mt.manual_seed(3)
    s = D.Dirichlet(c).rsample((5,))
    assert type(s.grad_fn).__name__ == "_DirichletBackward"
    mt.manual_seed(3)
    plain = mt._sample_dirichlet(c.detach().expand(5, 2, 3))
    np.testing.assert_array_equal(s.detach().numpy(), plain.numpy(), err_msg="torch's draws")
    # the rows sum to one, so a constant upstream gradient gives no gradient
    s.sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), np.zeros((2, 3)), atol=1e-6)


def test_dirichlet_rsample_backward_has_no_host_transfers():
    from minitorch._backend.strict import count_transfers

    c = mt.tensor([[0.5, 2.0, 9.0], [7.0, 8.0, 0.1]], device="strict", requires_grad=True)
    w = mt.tensor([1.0, -2.0, 0.5], device="strict")
    with count_transfers() as t:
        (D.Dirichlet(c, validate_args=False).rsample((3,)) * w).sum().backward()
    assert t.count == 0, f"{t.count} host transfers"
    assert str(c.grad.device).startswith("strict")


# --- sample shapes: the errors of torch's sampling paths ---


def test_normal_sample_goes_through_expand():
    n = D.Normal(mt.tensor([0.5, 1.0, 2.0]), mt.tensor([1.0, 2.0, 3.0]))
    assert _message(RuntimeError, lambda: n.sample((-1,))) == (
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"
    )
    assert _message(RuntimeError, lambda: n.sample((2, -2))) == (
        "numel: integer multiplication overflow"
    )
    # rsample draws into a new tensor of the shape (torch: empty(shape).normal_())
    assert _message(RuntimeError, lambda: n.rsample((-1,))) == (
        "Trying to create tensor with negative dimension -1: [-1, 3]"
    )
    bad = D.Normal(0.0, -1.0, validate_args=False)
    assert _message(RuntimeError, lambda: bad.sample()) == (
        "normal expects all elements of std >= 0.0"
    )
    mt.manual_seed(0)
    s = n.sample((2,))
    mt.manual_seed(0)
    eps = mt.randn(2, 3)
    np.testing.assert_allclose(
        s.numpy(), (n.loc + eps * n.scale).numpy(), rtol=1e-6, err_msg="loc + eps * scale"
    )
    assert not D.Normal(mt.zeros(2, requires_grad=True), 1.0).sample().requires_grad


def test_expand_new_leading_size_below_minus_one():
    x = mt.zeros(3)
    msg = "numel: integer multiplication overflow"
    assert _message(RuntimeError, lambda: x.expand(-2, 3)) == msg
    assert _message(RuntimeError, lambda: x.expand(2, -3, 3)) == msg
    assert _message(RuntimeError, lambda: x.expand(2, -1, 3)) == (
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 1"
    )
    assert mt.zeros(2, 3).expand(4, -1, 3).shape == (4, 2, 3)


def test_mixture_sample_takes_len_of_the_shape():
    a = mt.tensor([0.5, 1.0, 2.0])
    gmm = D.MixtureSameFamily(D.Categorical(a), D.Normal(a, a))
    assert _message(TypeError, lambda: gmm.sample(3)) == "object of type 'int' has no len()"
    assert gmm.sample([2]).shape == (2,)
    assert gmm.sample(mt.Size([2, 3])).shape == (2, 3)


# --- constraint and utility messages ---


def test_independent_constraint_assertions():
    C = D.constraints
    assert _message(AssertionError, lambda: C.independent(C.real, -1)) == (
        "reinterpreted_batch_ndims must be >= 0, got -1"
    )
    assert _message(AssertionError, lambda: C.independent(C.real, 1.5)) == (
        "reinterpreted_batch_ndims must be an int, got float"
    )
    assert _message(AssertionError, lambda: C.independent("real", 1)) == (
        "base_constraint must be a Constraint, got str"
    )
    assert C.independent(C.real, 0).event_dim == 0


def test_vec_to_tril_matrix_message():
    want = (
        "The size of last dimension is {} which cannot be expressed as the lower triangular "
        "part of a square D x D matrix."
    )
    assert _message(ValueError, lambda: D.utils.vec_to_tril_matrix(mt.arange(5.0))) == (
        want.format(5)
    )
    corr = D.transforms.CorrCholeskyTransform()
    assert _message(ValueError, lambda: corr(mt.zeros(2))) == want.format(2)
    assert D.utils.vec_to_tril_matrix(mt.arange(6.0)).shape == (3, 3)


# --- Gamma's graph and GeneralizedPareto's expressions: torch's ---


def test_gamma_rsample_clamps_outside_the_graph():
    a = mt.tensor([0.5, 1.0, 1e-3], requires_grad=True)
    rate = mt.tensor([1.0, 2.0, 1e30], requires_grad=True)
    mt.manual_seed(0)
    s = D.Gamma(a, rate).rsample((2,))
    # torch divides, then clamps a detached alias in place: the node is the division's and the
    # sample is at version 1; the clamped entries (at float32's tiny) keep their gradients 0
    assert type(s.grad_fn).__name__ == "DivBackward0"
    assert s._version == 1
    assert float(s.detach()[0, 2]) == mt.finfo(mt.float32).tiny
    s.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0324, 0.7695, 0.0], rtol=1e-3)
    np.testing.assert_allclose(rate.grad.numpy(), [-1.1792, -0.2965, 0.0], rtol=1e-3)
    assert type(D.Chi2(a * 4).rsample().grad_fn).__name__ == "DivBackward0"


def test_generalized_pareto_matches_torchs_expressions():
    loc = mt.tensor([0.0, 0.5, 1.0, 0.0], requires_grad=True)
    scale = mt.tensor([1.0, 2.0, 0.5, 1.0], requires_grad=True)
    c = mt.tensor([0.0, 0.3, -0.5, -1.0], requires_grad=True)
    d = D.GeneralizedPareto(loc, scale, c, validate_args=False)
    lp = d.log_prob(mt.tensor([0.5, 1.0, 1.5, 1.0]))
    # at c = -1 torch takes (1 + 1/c) log1p(c z) as 0 where 1 + 1/c is 0 (no 0 * -inf = nan)
    np.testing.assert_allclose(
        lp.detach().numpy(), [-0.5, -1.0065367, 0.0, 0.0], atol=1e-6, err_msg="log_prob"
    )
    assert type(lp.grad_fn).__name__ == "SubBackward0"
    mt.manual_seed(1)
    s = d.rsample((3,))
    assert type(s.grad_fn).__name__ == "WhereBackward0"
    np.testing.assert_allclose(
        s.detach().numpy()[0], [1.4172964, 1.1883616, 1.2273871, 0.73468447], rtol=1e-6
    )
    e = D.GeneralizedPareto(mt.zeros(2, 3), scale[:3], c[:3]).entropy()
    assert type(e.grad_fn).__name__ == "ExpandBackward0" and e.shape == (2, 3)
