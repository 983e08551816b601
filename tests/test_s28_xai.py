"""Session 28 (helper xai): library fixes found by running interpretability programs (saliency,
integrated gradients, Grad-CAM, attention rollout, activation patching, probes, sparse
autoencoders, influence functions, LIME/KernelSHAP surrogates) against torch 2.13; the values
and messages below are torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_RANK = (
    "torch.linalg.lstsq: {}The least squares solution could not be computed because the input "
    "matrix does not have full rank (error code: {})."
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.ones((3, 2)), np.ones(3)),  # m > n
        (np.ones((2, 3)), np.ones(2)),  # m < n (LQ)
        (np.diag([1.0, 0.0, 1.0]), np.ones(3)),  # square
        (np.ones((3, 2)), np.zeros((3, 2))),  # a zero B does not excuse a rank-deficient A
    ],
)
def test_lstsq_gels_refuses_rank_deficient_matrix(a, b):
    # a LIME surrogate on a coalition matrix with a constant column: torch's CPU gels raises
    with pytest.raises(mt.linalg.LinAlgError) as info:
        mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), driver="gels")
    assert str(info.value) == _RANK.format("", 2)


def test_lstsq_gels_names_the_batch_element():
    a = mt.stack([mt.eye(3, dtype=mt.float64)[:, :2], mt.ones(3, 2, dtype=mt.float64)])
    with pytest.raises(RuntimeError) as info:
        mt.linalg.lstsq(a, mt.ones(2, 3, 1, dtype=mt.float64), driver="gels")
    assert str(info.value) == _RANK.format("(Batch element 1): ", 2)


def test_lstsq_gels_all_zero_matrix_gives_zero_solution():
    out = mt.linalg.lstsq(mt.zeros(3, 2), mt.ones(3), driver="gels")
    assert out.solution.tolist() == [0.0, 0.0]
    assert out.residuals.tolist() == [0.0]
    assert mt.linalg.lstsq(mt.zeros(2, 3), mt.ones(2), driver="gels").solution.tolist() == [0.0] * 3
    a = mt.stack([mt.eye(3)[:, :2] * 2, mt.zeros(3, 2)])
    out = mt.linalg.lstsq(a, mt.ones(2, 3, 1), driver="gels")
    assert out.solution.tolist() == [[[0.5], [0.5]], [[0.0], [0.0]]]
    assert out.residuals.tolist() == [[1.0], [0.0]]
    # torch's gradient through the zero solution is zero, not NaN
    A = mt.zeros(3, 2, requires_grad=True)
    mt.linalg.lstsq(A, mt.ones(3), driver="gels").solution.sum().backward()
    assert A.grad.tolist() == [[0.0, 0.0]] * 3


def test_lstsq_gels_full_rank_unchanged():
    a = mt.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]], dtype=mt.float64)
    out = mt.linalg.lstsq(a, mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64), driver="gels")
    np.testing.assert_allclose(out.solution.numpy(), [13 / 9, 10 / 9], rtol=1e-12)
    np.testing.assert_allclose(out.residuals.numpy(), [4 / 9], rtol=1e-12)


def test_lstsq_gels_checks_rank_on_the_host_only_on_the_cpu():
    # the rank check reads R's diagonal: on a device (torch's CUDA gels checks nothing) it is
    # skipped, so gels still reads nothing back
    from minitorch._backend.strict import count_transfers

    a = mt.tensor(np.random.default_rng(0).standard_normal((4, 2)), device="strict")
    b = mt.ones(4, 1, dtype=mt.float64, device="strict")
    with count_transfers() as c:
        mt.linalg.lstsq(a, b, driver="gels")
        mt.linalg.lstsq(mt.zeros(4, 2, dtype=mt.float64, device="strict"), b, driver="gels")
    assert c.count == 0
