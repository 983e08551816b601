"""Session 30 (helper structured): torch-free regression tests of the library fixes the
structured-prediction programs (tests/reference/test_s30_structured_reference.py) led to, with
torch 2.13's values written as literals. At a singular matrix (a matrix-tree Laplacian no arc
reaches): slogdet/logdet's backward is torch's unchecked solve of A^T X = g I by a fresh LU of
A^T; the unchecked LU solves (solve_ex, that backward) skip no zero entries and multiply by each
pivot's reciprocal, as the optimised BLAS torch links, which decides where inf and where nan;
solve_ex's backward reuses the forward's LU unchecked instead of raising (it raises, in
linalg.solve's words, only under create_graph). Plus a few values the reference programs lean
on."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

INF, NAN = float("inf"), float("nan")
F64 = mt.float64

SINGULAR = [
    (
        [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
        [[-INF, -INF, INF], [INF, INF, -INF], [1.4999999999999998, 0.0, -0.4999999999999999]],
    ),
    ([[0.0, 0.0], [0.0, 0.0]], [[NAN, NAN], [NAN, INF]]),
    (
        [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]],
        [[NAN] * 3, [-INF, NAN, NAN], [INF, NAN, NAN]],
    ),
    ([[1.0, 2.0], [2.0, 4.0]], [[-INF, INF], [INF, -INF]]),
]  # fmt: skip


@pytest.mark.parametrize("a, want", SINGULAR)
def test_slogdet_and_logdet_backward_at_a_singular_matrix(a, want):
    for fn in (lambda m: mt.linalg.slogdet(m).logabsdet, mt.logdet):
        x = mt.tensor(a, dtype=F64, requires_grad=True)
        fn(x).backward()
        np.testing.assert_array_equal(x.grad.numpy(), want)


def test_solve_ex_with_a_zero_pivot():
    z = mt.zeros(2, 2, dtype=F64)
    eye = mt.eye(2, dtype=F64)
    np.testing.assert_array_equal(
        mt.linalg.solve_ex(z, eye).result.numpy(), [[NAN, NAN], [NAN, INF]]
    )
    np.testing.assert_array_equal(
        mt.linalg.solve_ex(z, eye, left=False).result.numpy(), [[NAN] * 2] * 2
    )
    a = mt.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=F64)
    eye3 = mt.eye(3, dtype=F64)
    np.testing.assert_array_equal(
        mt.linalg.solve_ex(a, eye3).result.numpy(),
        [[NAN, NAN, NAN], [-INF, INF, NAN], [INF, -INF, NAN]],
    )
    np.testing.assert_array_equal(
        mt.linalg.solve_ex(a, eye3, left=False).result.numpy(),
        [[-INF, NAN, NAN], [-INF, NAN, NAN], [INF, NAN, NAN]],
    )
    b = mt.tensor([[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 7.0]], dtype=F64)
    np.testing.assert_allclose(
        mt.linalg.solve_ex(b, eye3).result.numpy(),
        [[INF, INF, -INF], [0.0, 7.0, -4.0], [0.0, -5.0, 3.0]],
        rtol=1e-14,
    )


def test_matrix_tree_marginals_sum_to_one_head_per_word():
    # Koo et al.: logZ = logdet of the root-replaced Laplacian; the marginals are its gradient
    arc = mt.tensor([[0.0, 0.5, -0.2], [0.3, 0.0, 0.1], [-0.4, 0.2, 0.0]], dtype=F64)
    arc.requires_grad_(True)
    root = mt.tensor([0.1, -0.3, 0.2], dtype=F64, requires_grad=True)
    a = arc.exp() * (1 - mt.eye(3, dtype=F64))
    lap = mt.diag_embed(a.sum(0)) - a
    lhat = lap.clone()
    lhat[0] = root.exp()
    logz = mt.logdet(lhat)
    np.testing.assert_allclose(logz.item(), 2.437734076841802, rtol=1e-12)
    am, rm = mt.autograd.grad(logz, (arc, root))
    np.testing.assert_allclose((am.sum(0) + rm).numpy(), [1.0, 1.0, 1.0], rtol=1e-12)
    np.testing.assert_allclose(
        rm.numpy(), [0.40278840403910415, 0.21601271135615158, 0.38119888460474427], rtol=1e-12
    )


def test_sparsemax_threshold_by_sort_and_cumsum():
    z = mt.tensor([[1.0, 1.0, 1.0, -INF], [0.0, 5.0, 0.0, 0.0], [0.5, 0.2, -1.0, 0.4]], dtype=F64)
    zs = z.sort(-1, descending=True).values
    rng = mt.arange(1, 5, dtype=F64)
    css = zs.cumsum(-1) - 1
    k = ((rng * zs) > css).sum(-1, keepdim=True)
    tau = css.gather(-1, k - 1) / k
    p = mt.clamp(z - tau, min=0)
    np.testing.assert_allclose(
        p.numpy(),
        [
            [1 / 3, 1 / 3, 1 / 3, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.4666666666666666, 0.16666666666666666, 0.0, 0.36666666666666664],
        ],
        rtol=1e-12,
        atol=1e-15,
    )


def test_solve_ex_backward_at_a_singular_matrix_is_inf_nan_not_an_error():
    # torch's solve_ex backward reuses the forward's LU unchecked (adjoint solve); only under
    # create_graph does it call the checking linalg.solve
    a = mt.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=F64)
    A = a.clone().requires_grad_(True)
    B = mt.tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 1.0]], dtype=F64, requires_grad=True)
    x = mt.linalg.solve_ex(A, B).result
    x.sum().backward()
    np.testing.assert_array_equal(x.detach().numpy(), [[NAN, NAN], [NAN, INF], [NAN, -INF]])
    np.testing.assert_array_equal(A.grad.numpy(), [[NAN] * 3] * 3)
    np.testing.assert_array_equal(B.grad.numpy(), [[-INF, -INF], [NAN, NAN], [NAN, NAN]])
    z = mt.zeros(2, 2, dtype=F64, requires_grad=True)
    e = mt.eye(2, dtype=F64, requires_grad=True)
    mt.linalg.solve_ex(z, e).result.sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [[NAN] * 2] * 2)
    np.testing.assert_array_equal(e.grad.numpy(), [[NAN, NAN], [NAN, NAN]])
    A = a.clone().requires_grad_(True)
    B = B.detach().requires_grad_(True)
    x = mt.linalg.solve_ex(A, B).result
    with pytest.raises(mt.linalg.LinAlgError, match="The solver failed because the input matrix"):
        mt.autograd.grad(x.sum(), (A, B), create_graph=True)


def test_singular_backward_paths_run_on_every_device(device):
    a = mt.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=F64, device=device)
    x = a.clone().requires_grad_(True)
    mt.logdet(x).backward()
    A = a.clone().requires_grad_(True)
    B = mt.ones(3, 2, dtype=F64, device=device, requires_grad=True)
    mt.linalg.solve_ex(A, B).result.sum().backward()
    assert A.grad.device == a.device
    if device.startswith("cuda"):  # cuSOLVER's factors of a singular matrix are not LAPACK's:
        return  # the paths run, their infinities and NaNs differ (as between torch's devices)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), SINGULAR[0][1])
    np.testing.assert_array_equal(A.grad.cpu().numpy(), [[NAN, -INF, INF], [NAN] * 3, [NAN] * 3])
