"""Sweep fixes in minitorch.distributions: cooperative Transform/Distribution __init__ (mixing in
nn.Module), positive_definite via cholesky_ex, triangular checks on empty matrices, shape
helpers of StickBreaking/CorrCholesky, _sum_rightmost and vec_to_tril_matrix edge cases."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.distributions import constraints
from minitorch.distributions import transforms as T
from minitorch.distributions.utils import _sum_rightmost, vec_to_tril_matrix


def _t(a, requires_grad=False):
    return minitorch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


# --- Transform / Distribution mixed with nn.Module ---


class _AffineFlow(T.Transform, minitorch.nn.Module):
    bijective = True

    def __init__(self, d):
        super().__init__(cache_size=1)  # must reach nn.Module.__init__ through the MRO
        self.loc = minitorch.nn.Parameter(minitorch.zeros(d, dtype=minitorch.float64))

    def _call(self, x):
        return x + self.loc

    def _inverse(self, y):
        return y - self.loc

    def log_abs_det_jacobian(self, x, y):
        return minitorch.zeros_like(x)

    __hash__ = minitorch.nn.Module.__hash__


def test_transform_module_mixin_registers_parameters():
    flow = _AffineFlow(3)
    assert [name for name, _ in flow.named_parameters()] == ["loc"]
    assert flow._cache_size == 1 and flow.training
    x = _t([1.0, 2.0, 3.0])
    y = flow(x)
    assert flow(x) is y, "cache_size=1 must return the cached output"
    assert flow.inv(y) is x
    y.sum().backward()
    np.testing.assert_allclose(flow.loc.grad.numpy(), np.ones(3), err_msg="grad to flow.loc")


class _LearnedPrior(D.Distribution, minitorch.nn.Module):
    arg_constraints = {}

    def __init__(self, d):
        super().__init__(event_shape=minitorch.Size([d]), validate_args=False)
        self.mu = minitorch.nn.Parameter(minitorch.zeros(d, dtype=minitorch.float64))

    def log_prob(self, x):
        return -0.5 * ((x - self.mu) ** 2).sum(-1)


def test_distribution_module_mixin_registers_parameters():
    prior = _LearnedPrior(3)
    assert prior.event_shape == (3,) and prior.batch_shape == ()
    assert len(list(prior.parameters())) == 1
    lp = prior.log_prob(_t([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(lp.item(), -7.0, err_msg="log_prob")
    lp.backward()
    np.testing.assert_allclose(prior.mu.grad.numpy(), [1.0, 2.0, 3.0], err_msg="grad to mu")


def test_plain_transform_and_distribution_still_build():
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size"):
        T.Transform(cache_size=2)
    n = D.Normal(_t([0.0]), _t([1.0]))
    assert n.batch_shape == (1,)


# --- constraints ---


def test_positive_definite_uses_cholesky_not_eigenvalues():
    # an RBF kernel with tiny jitter: ill-conditioned, so eigvalsh reports a non-positive
    # eigenvalue, yet the Cholesky factorisation succeeds, which is torch's criterion
    x = minitorch.linspace(0, 5, 80, dtype=minitorch.float64)
    k = minitorch.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / 4.0) + 1e-14 * minitorch.eye(
        80, dtype=minitorch.float64
    )
    assert minitorch.linalg.eigvalsh(k).min().item() <= 0, "the case no longer discriminates"
    assert minitorch.linalg.cholesky_ex(k).info.item() == 0
    assert constraints.positive_definite.check(k).item() is True
    D.MultivariateNormal(minitorch.zeros(80, dtype=minitorch.float64), covariance_matrix=k)


def test_positive_definite_batch_and_rejections():
    batch = minitorch.stack(
        [minitorch.eye(2), -minitorch.eye(2), minitorch.tensor([[1.0, 2.0], [2.0, 1.0]])]
    )
    assert constraints.positive_definite.check(batch).tolist() == [True, False, False]
    assert (
        constraints.positive_definite.check(minitorch.tensor([[1.0, 2.0], [0.0, 1.0]])).item()
        is False
    )
    nan = minitorch.tensor([[float("nan"), 0.0], [0.0, 1.0]])
    assert constraints.positive_definite.check(nan).item() is False
    for dtype in (minitorch.int64, minitorch.bool):
        with pytest.raises(RuntimeError, match="floating point"):
            constraints.positive_definite.check(minitorch.eye(3, dtype=dtype))


@pytest.mark.parametrize("name", ["lower_cholesky", "lower_triangular", "corr_cholesky"])
def test_triangular_checks_reject_empty_matrices(name):
    check = getattr(constraints, name).check
    with pytest.raises(IndexError, match="non-zero size"):
        check(minitorch.zeros(3, 0, 0))
    with pytest.raises(IndexError, match="non-zero size"):
        check(minitorch.zeros(0, 0))
    # the ordinary cases are unchanged
    good = minitorch.tensor([[1.0, 0.0], [0.6, 0.8]])
    bad = minitorch.tensor([[1.0, 0.5], [0.6, 0.8]])
    assert check(minitorch.stack([good, bad])).tolist() == [True, False]


# --- transforms ---


def test_tanh_inverse_of_non_tensor_raises_type_error():
    with pytest.raises(TypeError, match="atanh"):
        T.TanhTransform().inv(0.5)
    y = _t([-0.5, 0.1, 0.9], requires_grad=True)
    np.testing.assert_allclose(
        T.TanhTransform().inv(y).detach().numpy(), np.arctanh([-0.5, 0.1, 0.9]), err_msg="atanh"
    )
    assert gradcheck(lambda v: T.TanhTransform().inv(v), (y,))
    assert gradgradcheck(lambda v: T.TanhTransform().inv(v), (y,))


def test_stick_breaking_and_corr_cholesky_shapes_keep_sequence_type():
    sb, cc = T.StickBreakingTransform(), T.CorrCholeskyTransform()
    cases = [
        (sb.forward_shape((2, 3)), (2, 4)),
        (sb.inverse_shape((2, 3)), (2, 2)),
        (sb.inverse_shape((1,)), (0,)),
        (cc.forward_shape((2, 3)), (2, 3, 3)),
        (cc.inverse_shape((2, 3, 3)), (2, 3)),
    ]
    for got, want in cases:
        assert type(got) is tuple and got == want, (got, want)
    assert type(sb.forward_shape(minitorch.Size([2, 3]))) is minitorch.Size
    assert type(cc.inverse_shape(minitorch.Size([3, 3]))) is minitorch.Size
    for fn in (sb.forward_shape, cc.forward_shape):
        with pytest.raises(TypeError):
            fn([2, 3])
    with pytest.raises(ValueError, match="flattened lower-diagonal"):
        cc.forward_shape((2,))


# --- utils ---


def test_sum_rightmost_negative_and_large_dims():
    x = minitorch.arange(6.0, dtype=minitorch.float64).reshape(2, 3)
    np.testing.assert_allclose(_sum_rightmost(x, -1).numpy(), [3.0, 12.0], err_msg="dim=-1")
    np.testing.assert_allclose(_sum_rightmost(x, -2).numpy(), x.numpy(), err_msg="dim=-2")
    np.testing.assert_allclose(_sum_rightmost(x, 1).numpy(), [3.0, 12.0], err_msg="dim=1")
    assert _sum_rightmost(x, 3).shape == () and _sum_rightmost(x, 3).item() == 15.0


def test_vec_to_tril_matrix_counts_like_torch():
    v = minitorch.arange(1.0, 5.0, dtype=minitorch.float64)
    np.testing.assert_array_equal(
        vec_to_tril_matrix(v, diag=1).numpy(), [[1.0, 2.0], [3.0, 4.0]], err_msg="diag=1"
    )
    np.testing.assert_array_equal(
        vec_to_tril_matrix(minitorch.zeros(0), diag=-1).numpy(), [[0.0]], err_msg="empty, diag=-1"
    )
    np.testing.assert_array_equal(
        vec_to_tril_matrix(minitorch.zeros(0), diag=-2).numpy(), np.zeros((2, 2)), err_msg="-2"
    )
    # a count between two triangular numbers: ValueError when n rounds up ...
    for length, diag in [(6, 1), (3, 1), (0, 1), (2, 0), (5, 0)]:
        with pytest.raises(ValueError, match="lower triangular part"):
            vec_to_tril_matrix(minitorch.zeros(length), diag=diag)
    # ... and the assignment's RuntimeError when it rounds down
    for length, diag in [(4, 0), (7, 0), (6, 2), (2, 1)]:
        with pytest.raises(RuntimeError, match="shape mismatch"):
            vec_to_tril_matrix(minitorch.zeros(length), diag=diag)
    w = _t(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    assert gradcheck(lambda a: vec_to_tril_matrix(a, diag=-1), (w,))
    assert gradgradcheck(lambda a: vec_to_tril_matrix(a, diag=-1), (w,))
