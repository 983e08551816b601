"""Session 32 (helper anomaly): torch-free regression tests of the library fixes the anomaly
detection programs of tests/reference/test_s32_anomaly_reference.py found (torch 2.13's values
and messages written here as literals): MultivariateNormal with a covariance or precision
matrix that is not square, trapezoid rules with dx given as a 0-d tensor or a complex number
and x given by keyword, linalg.cholesky's and cholesky_ex's flags given as non-bools,
solve_triangular with upper given positionally, and cdist/pdist with a NaN p."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

D = mt.distributions


def _raises(fn, error, message):
    with pytest.raises(error) as info:
        fn()
    assert str(info.value) == message


def test_mvn_with_a_covariance_that_is_not_square_fails_its_constraint():
    cov = mt.eye(3)[:2]
    invalid = (
        "Expected parameter {0} (Tensor of shape (2, 3)) of distribution "
        "MultivariateNormal(loc: torch.Size([{1}]), {0}: torch.Size([2, 3])) to satisfy the "
        "constraint PositiveDefinite(), but found invalid values:\n"
        "tensor([[1., 0., 0.],\n        [0., 1., 0.]])"
    )
    for name in ("covariance_matrix", "precision_matrix"):
        for n in (3, 2):
            _raises(
                lambda name=name, n=n: D.MultivariateNormal(
                    mt.zeros(n), validate_args=True, **{name: cov}
                ),
                ValueError,
                invalid.format(name, n),
            )
        _raises(
            lambda name=name: D.MultivariateNormal(mt.zeros(3), validate_args=False, **{name: cov}),
            RuntimeError,
            "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices",
        )


def test_mvn_with_square_matrices_is_unchanged():
    cov = mt.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=mt.float64)
    m = D.MultivariateNormal(mt.zeros(2, dtype=mt.float64), covariance_matrix=cov)
    np.testing.assert_allclose(
        m.log_prob(mt.tensor([1.0, -1.0], dtype=mt.float64)).item(),
        -3.2605421032341995,
        rtol=1e-13,
        err_msg="MultivariateNormal.log_prob",
    )


Y = mt.tensor([0.0, 1.0, 4.0, 9.0, 16.0])


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda: mt.trapezoid(Y, dx=mt.tensor(0.5)), 11.0),
        (lambda: mt.trapezoid(Y, dx=mt.tensor(2)), 44.0),
        (lambda: mt.trapz(Y, dx=mt.tensor(0.5)), 11.0),
        (lambda: mt.trapz(Y, dx=mt.tensor(True)), 22.0),
        (lambda: mt.trapezoid(Y.long(), dx=mt.tensor(0.5)), 11.0),
    ],
)
def test_trapezoid_takes_a_0d_tensor_dx_as_a_number(call, want):
    out = call()
    assert out.dtype == mt.float32
    assert out.item() == want


def test_cumulative_trapezoid_takes_a_0d_tensor_dx():
    out = mt.cumulative_trapezoid(Y, dx=mt.tensor(0.5))
    assert out.tolist() == [0.25, 1.5, 4.75, 11.0]


FORMS = " * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: mt.trapezoid(Y, dx=mt.tensor([0.5])),
            TypeError,
            "trapezoid() received an invalid combination of arguments - got (Tensor, dx=Tensor), "
            "but expected one of:\n" + FORMS,
        ),
        (
            lambda: mt.trapezoid(Y, dx=mt.tensor(0.5, requires_grad=True)),
            TypeError,
            "trapezoid() received an invalid combination of arguments - got (Tensor, dx=Tensor), "
            "but expected one of:\n" + FORMS,
        ),
        (
            lambda: mt.trapezoid(Y, dx=mt.tensor(True)),
            RuntimeError,
            "trapezoid: Currently, we only support dx as a real number.",
        ),
        (
            lambda: mt.cumulative_trapezoid(Y, dx=mt.tensor(True)),
            RuntimeError,
            "cumulative_trapezoid: Currently, we only support dx as a real number.",
        ),
        (
            lambda: mt.trapezoid(Y, dx=1j),
            RuntimeError,
            "trapezoid: Currently, we only support dx as a real number.",
        ),
        (
            lambda: mt.cumulative_trapezoid(Y, dx=2j),
            RuntimeError,
            "cumulative_trapezoid: Currently, we only support dx as a real number.",
        ),
        (
            lambda: mt.trapz(Y, dx=1j),
            TypeError,
            "trapz() received an invalid combination of arguments - got (Tensor, dx=complex), but "
            "expected one of:\n * (Tensor y, *, float dx = 1, int dim = -1)\n"
            " * (Tensor y, Tensor x, *, int dim = -1)\n",
        ),
        (
            lambda: mt.trapezoid(Y, dx=0.5, x=Y),
            TypeError,
            "trapezoid() received an invalid combination of arguments - got (Tensor, x=Tensor, "
            "dx=float), but expected one of:\n" + FORMS,
        ),
        (
            lambda: mt.cumulative_trapezoid(Y, x=Y, dx=0.5),
            TypeError,
            "cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, "
            "dx=float, x=Tensor), but expected one of:\n" + FORMS,
        ),
    ],
)
def test_trapezoid_dx_errors(call, error, message):
    _raises(call, error, message)


@pytest.mark.parametrize(
    "value, kind", [(1, "int"), (0, "int"), (1.0, "float"), (None, "NoneType")]
)
def test_cholesky_flags_must_be_bools(value, kind):
    A = mt.eye(2)
    _raises(
        lambda: mt.linalg.cholesky(A, upper=value),
        TypeError,
        f"linalg_cholesky(): argument 'upper' must be bool, not {kind}",
    )
    _raises(
        lambda: mt.linalg.cholesky_ex(A, upper=value, check_errors=value),
        TypeError,
        f"linalg_cholesky_ex(): argument 'upper' must be bool, not {kind}",
    )
    _raises(
        lambda: mt.linalg.cholesky_ex(A, check_errors=value),
        TypeError,
        f"linalg_cholesky_ex(): argument 'check_errors' must be bool, not {kind}",
    )
    assert mt.linalg.cholesky(A * 4, upper=True).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert mt.linalg.cholesky_ex(A, check_errors=True).info.item() == 0


def test_solve_triangular_upper_given_positionally():
    A, B = mt.eye(2), mt.ones(2, 3)
    for extra in [(False,), (False, True)]:
        _raises(
            lambda extra=extra: mt.linalg.solve_triangular(A, B, *extra),
            TypeError,
            "linalg_solve_triangular() takes from 3 to 2 positional arguments but "
            f"{2 + len(extra)} were given",
        )
    _raises(
        lambda: mt.linalg.solve_triangular(A, B, False, upper=False),
        TypeError,
        "linalg_solve_triangular() takes from 3 to 2 positional arguments but 3 were given",
    )
    assert mt.linalg.solve_triangular(A, B, upper=False).tolist() == B.tolist()


@pytest.mark.parametrize("p", [math.nan, -math.inf, -1.0])
def test_cdist_and_pdist_refuse_a_nan_or_negative_p(p):
    x = mt.ones(3, 2)
    _raises(lambda: mt.cdist(x, x, p=p), RuntimeError, "cdist only supports non-negative p values")
    _raises(lambda: mt.pdist(x, p=p), RuntimeError, "pdist only supports non-negative p values")
    _raises(
        lambda: mt.nn.functional.pdist(x, p=p),
        RuntimeError,
        "pdist only supports non-negative p values",
    )


def test_slogdet_of_a_nan_matrix_has_sign_zero_and_no_numpy_warning():
    nan = math.nan
    a = mt.tensor(
        [[[nan, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, nan]], [[2.0, 0.0], [0.0, -1.0]]],
        dtype=mt.float64,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sign, logabs = mt.linalg.slogdet(a)
        det = mt.linalg.det(a)
    assert sign.tolist() == [0.0, -0.0, -1.0]
    assert math.copysign(1.0, sign[1].item()) == -1.0
    assert np.isnan(logabs[:2].numpy()).all() and logabs[2].item() == math.log(2.0)
    assert np.isnan(det[:2].numpy()).all() and det[2].item() == -2.0
    s, la = mt.linalg.slogdet(mt.zeros(2, 2))
    assert (s.item(), la.item()) == (0.0, -math.inf)


F = mt.nn.functional
X = mt.tensor([[0.0, 1.0, -2.0], [0.5, 3.0, 1.0]])
Z = mt.zeros(2, 3)


def test_huber_and_smooth_l1_take_a_0d_tensor_hyperparameter():
    assert F.huber_loss(X, Z, delta=mt.tensor(0.5)).item() == pytest.approx(0.5208333134651184)
    assert F.huber_loss(X, Z, delta=mt.tensor(2)).item() == 1.1875
    assert F.smooth_l1_loss(X, Z, beta=mt.tensor(0.5)).item() == pytest.approx(1.0416666269302368)
    assert mt.histc(X, bins=4, min=mt.tensor(-2.0), max=2.0).tolist() == [1.0, 0.0, 2.0, 2.0]


LEARNED = mt.tensor(0.5, requires_grad=True)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: F.huber_loss(X, Z, delta=LEARNED),
            "huber_loss(): argument 'delta' (position 4) must be float, not Tensor",
        ),
        (
            lambda: F.smooth_l1_loss(X, Z, beta=LEARNED),
            "smooth_l1_loss(): argument 'beta' (position 4) must be float, not Tensor",
        ),
        (
            lambda: F.margin_ranking_loss(X[0], Z[0], Z[0] + 1, margin=LEARNED),
            "margin_ranking_loss(): argument 'margin' (position 4) must be float, not Tensor",
        ),
        (
            lambda: F.hinge_embedding_loss(X, Z + 1, margin=LEARNED),
            "hinge_embedding_loss(): argument 'margin' (position 3) must be float, not Tensor",
        ),
        (
            lambda: F.triplet_margin_loss(X, Z, -X, margin=mt.tensor([0.5])),
            "triplet_margin_loss(): argument 'margin' (position 4) must be float, not Tensor",
        ),
        (
            lambda: F.pairwise_distance(X, Z, eps=mt.tensor([1e-6])),
            "pairwise_distance(): argument 'eps' must be float, not Tensor",
        ),
        (
            lambda: F.cosine_similarity(X, Z, eps=LEARNED),
            "cosine_similarity(): argument 'eps' must be float, not Tensor",
        ),
        (
            lambda: F.dropout(X, p=mt.tensor([0.5]), training=False),
            "dropout(): argument 'p' (position 2) must be float, not Tensor",
        ),
        (
            lambda: F.dropout2d(X.view(1, 2, 3, 1), p=mt.tensor([0.5]), training=False),
            "feature_dropout(): argument 'p' (position 2) must be float, not Tensor",
        ),
        (
            lambda: F.pad(X, (1, 1), value=LEARNED),
            "pad(): argument 'value' (position 4) must be float, not Tensor",
        ),
        (
            lambda: mt.histc(X, bins=4, min=mt.tensor([-1.0]), max=1.0),
            "histc(): argument 'min' must be Number, not Tensor",
        ),
        (
            lambda: mt.histc(X, bins=4, max=LEARNED),
            "histc(): argument 'max' must be Number, not Tensor",
        ),
    ],
)
def test_tensor_hyperparameters_torch_refuses(call, message):
    _raises(call, TypeError, message)
