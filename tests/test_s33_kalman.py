"""Session 33 (helper kalman): torch-free regression tests of the library fixes the
state-estimation programs of tests/reference/test_s33_kalman_reference.py found: cholesky_solve's
and cholesky_inverse's gradients in a factor whose other triangle is not zero (torch's
grad_L = (G + G^T) L with all of L, first and second derivatives), cholesky_inverse's error for a
factor with a zero on its diagonal whatever the rounding (float32), and
MultivariateNormal.precision_matrix through cholesky_inverse (torch's error for a singular
scale_tril, not an inf/nan matrix), and a MultivariateNormal whose loc has another size than its
matrix: built, then failing in its methods with torch's messages. torch's numbers and messages
are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


L_FULL = [[1.5, 0.4, -0.3], [0.2, 1.1, 0.7], [-0.5, 0.3, 0.9]]
B = [[1.0, 0.5], [-0.2, 0.3], [0.4, 0.8]]
W = [[0.3, -1.0], [0.7, 0.2], [0.1, 0.5]]


def _grads(fn, upper):
    L = mt.tensor(L_FULL, dtype=mt.float64, requires_grad=True)
    b = mt.tensor(B, dtype=mt.float64)
    w = mt.tensor(W, dtype=mt.float64)
    (g,) = mt.autograd.grad((fn(b, L, upper) * w).sum(), L, create_graph=True)
    (gg,) = mt.autograd.grad((g * g).sum(), L)
    return g.detach().numpy(), gg.numpy()


def _cs(b, L, upper):
    return mt.cholesky_solve(b, L, upper=upper)


def _ci(b, L, upper):
    return mt.cholesky_inverse(L, upper=upper) @ b


def _by_hand(fn, upper):
    """torch's formula written out: the value from L's triangle, the derivatives as if the
    product of all of L entered (grad_L = (G + G^T) L)."""
    L = mt.tensor(L_FULL, dtype=mt.float64, requires_grad=True)
    t = (L.triu() if upper else L.tril()).detach()
    whole = L.mT @ L if upper else L @ L.mT
    a = (t.mT @ t if upper else t @ t.mT) + (whole - whole.detach())
    b = mt.tensor(B, dtype=mt.float64)
    w = mt.tensor(W, dtype=mt.float64)
    out = mt.linalg.solve(a, b) if fn is _cs else mt.linalg.inv(a) @ b
    (g,) = mt.autograd.grad((out * w).sum(), L, create_graph=True)
    (gg,) = mt.autograd.grad((g * g).sum(), L)
    return g.detach().numpy(), gg.numpy()


# torch 2.13's gradients of (cholesky_solve(B, L) * W).sum() in the full L above
CS_GRAD = [
    [0.33668068640010274, -0.41337047264702154, -0.25087287896203936],
    [-0.40601299187157747, 0.22567158256026676, -0.07899579067930271],
    [0.49208130689612184, -0.8212075360572427, -0.8995367051105885],
]


def test_cholesky_solve_grad_uses_the_whole_factor():
    g, _ = _grads(_cs, False)
    np.testing.assert_allclose(g, CS_GRAD, rtol=1e-8, atol=1e-10)
    # its upper triangle gets a gradient although the value does not depend on it
    assert np.abs(np.triu(g, 1)).max() > 1e-2


@pytest.mark.parametrize("fn", [_cs, _ci])
@pytest.mark.parametrize("upper", [False, True])
def test_factor_grads_match_torch_formula(fn, upper):
    g, gg = _grads(fn, upper)
    hg, hgg = _by_hand(fn, upper)
    np.testing.assert_allclose(g, hg, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gg, hgg, rtol=1e-10, atol=1e-12)
    # the wrong answer (only the triangle in the gradient) is far from it
    L = np.array(L_FULL)
    assert np.abs(g - g @ np.linalg.inv(L) @ (np.triu(L) if upper else np.tril(L))).max() > 1e-3


@pytest.mark.parametrize("fn", [_cs, _ci])
def test_factor_gradcheck(fn):
    # as torch's own checks of these ops: through the triangle (the other one's gradient is
    # torch's convention, not a derivative)
    L = mt.tensor(L_FULL, dtype=mt.float64, requires_grad=True)
    b = mt.tensor(B, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda L, b: fn(b, L.tril(), False), (L, b))
    assert mt.autograd.gradgradcheck(lambda L, b: fn(b, L.tril(), False), (L, b))
    assert mt.autograd.gradcheck(lambda L, b: fn(b, L.triu(), True), (L, b))
    assert mt.autograd.gradgradcheck(lambda L, b: fn(b, L.triu(), True), (L, b))


SINGULAR = (
    "cholesky_inverse: The diagonal element 2 is zero, the inversion could not be completed "
    "because the input matrix is singular."
)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_cholesky_inverse_zero_diagonal(dtype):
    sing = mt.tensor([[1.0, 0.0], [0.4, 0.0]], dtype=dtype)
    assert _message(RuntimeError, lambda: mt.cholesky_inverse(sing)) == SINGULAR
    assert _message(RuntimeError, lambda: mt.cholesky_inverse(sing.mT, upper=True)) == SINGULAR
    batch = mt.stack([mt.eye(2, dtype=dtype), sing, mt.zeros(2, 2, dtype=dtype)])
    msg = _message(RuntimeError, lambda: mt.cholesky_inverse(batch))
    assert msg == SINGULAR.replace(": The", ": (Batch element 1): The")
    assert type(mt.cholesky_inverse(mt.eye(2, dtype=dtype))) is mt.Tensor


def test_mvn_precision_matrix_is_cholesky_inverse():
    D = mt.distributions
    sing = mt.tensor([[1.0, 0.0], [0.4, 0.0]], dtype=mt.float32)
    m = D.MultivariateNormal(mt.zeros(2), scale_tril=sing, validate_args=False)
    assert _message(RuntimeError, lambda: m.precision_matrix) == SINGULAR
    L = mt.tensor([[2.0, 0.0], [0.5, 1.0]], dtype=mt.float64, requires_grad=True)
    prec = D.MultivariateNormal(mt.zeros(3, 2, dtype=mt.float64), scale_tril=L).precision_matrix
    assert tuple(prec.shape) == (3, 2, 2)
    np.testing.assert_allclose(prec[0].detach().numpy(), [[0.3125, -0.25], [-0.25, 1.0]])
    assert prec.grad_fn.next_functions[0][0].name() == "CholeskyInverseBackward0"


def test_mvn_loc_of_another_size_builds_and_fails_as_torch():
    D = mt.distributions
    m = D.MultivariateNormal(mt.zeros(5, 2), scale_tril=mt.eye(3))
    assert (tuple(m.batch_shape), tuple(m.event_shape)) == ((5,), (2,))
    assert tuple(m.scale_tril.shape) == (5, 3, 3)
    assert tuple(m.mean.shape) == (5, 2)
    assert _message(RuntimeError, lambda: m.variance) == (
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 1.  Target sizes: [5, 2].  Tensor sizes: [3]"
    )
    assert _message(RuntimeError, lambda: m.covariance_matrix) == (
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
        "dimension 2.  Target sizes: [5, 2, 2].  Tensor sizes: [3, 3]"
    )
    assert _message(RuntimeError, lambda: m.sample()) == (
        "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 2]."
    )
    assert _message(RuntimeError, lambda: m.log_prob(mt.zeros(5, 2))) == (
        "shape '[-1, 2, 2]' is invalid for input of size 9"
    )
    np.testing.assert_allclose(m.entropy().numpy(), np.full(5, 2.8378770664093453), rtol=1e-6)
    m = D.MultivariateNormal(mt.zeros(2), scale_tril=mt.eye(3).expand(4, 3, 3))
    assert _message(RuntimeError, lambda: m.log_prob(mt.zeros(2))) == (
        "shape '[-1, 9, 2]' is invalid for input of size 8"
    )
    assert _message(
        RuntimeError, lambda: D.MultivariateNormal(mt.zeros(2), scale_tril=mt.eye(3)).sample()
    ) == ("mat1 and mat2 shapes cannot be multiplied (3x3 and 2x1)")
    m = D.MultivariateNormal(mt.zeros(3, 2), scale_tril=mt.eye(3)[:, :2])
    assert _message(RuntimeError, lambda: m.log_prob(mt.zeros(3, 2))) == (
        "shape '[-1, 2, 2]' is invalid for input of size 6"
    )
