"""torch.linalg.ldl_factor / ldl_factor_ex / ldl_solve against torch 2.13's behaviour: LAPACK's
Bunch-Kaufman pivots (1x1 and 2x2 blocks), info on a singular D, torch's checks and errors, no
derivative. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

_A5 = [
    [-0.25, 1.0, 0.5, -0.5, 0.75],
    [-1.5, 0.5, -0.5, 0.75, 0.5],
    [-0.75, 0.5, 0.25, -0.75, 2.0],
    [0.75, -1.25, -1.0, 0.25, 0.25],
    [-0.75, 1.25, 0.0, -0.75, -0.25],
]
# torch.linalg.ldl_factor(torch.tensor(_A5, dtype=torch.float64)): only the lower triangle is read
_LD5 = [
    [-0.25, 0.0, 0.0, 0.0, 0.0],
    [-1.5, 0.5, 0.0, 0.0, 0.0],
    [-0.15789473684210525, 0.5263157894736842, -1.4802631578947367, 0.0, 0.0],
    [0.631578947368421, -0.6052631578947367, -0.3244444444444443, -0.8244444444444444, 0.0],
    [
        -0.631578947368421,
        0.6052631578947367,
        0.5244444444444445,
        0.5768194070080862,
        0.5498652291105122,
    ],
]
_A3 = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 1.0]]


def test_ldl_factor_pivots_and_blocks():
    r = minitorch.linalg.ldl_factor(minitorch.tensor(_A5, dtype=minitorch.float64))
    assert type(r).__name__ == "linalg_ldl_factor"
    assert r.pivots.dtype is minitorch.int32
    assert r.pivots.tolist() == [-2, -2, 5, 4, 5]
    np.testing.assert_allclose(r.LD.numpy(), np.array(_LD5), rtol=1e-12, atol=1e-14)
    LD, piv = minitorch.linalg.ldl_factor(minitorch.tensor(_A3))
    assert piv.tolist() == [-3, -3, 3]
    np.testing.assert_allclose(
        LD.numpy(), [[0, 0, 0], [2, 1, 0], [1.25, 0.5, -2.75]], rtol=1e-6, err_msg="LD of _A3"
    )


def test_ldl_factor_batched():
    a = np.array(_A5)
    b = minitorch.tensor(np.stack([a, -a.T, np.eye(5)]))
    assert minitorch.linalg.ldl_factor(b).pivots.tolist() == [
        [-2, -2, 5, 4, 5],
        [-2, -2, -5, -5, 5],
        [1, 2, 3, 4, 5],
    ]
    empty = minitorch.linalg.ldl_factor(minitorch.zeros(2, 0, 0))
    assert tuple(empty.pivots.shape) == (2, 0)


def test_ldl_factor_ex_info_on_singular():
    r = minitorch.linalg.ldl_factor_ex(minitorch.zeros(3, 3))
    assert r.pivots.tolist() == [1, 2, 3] and r.info.item() == 1
    r = minitorch.linalg.ldl_factor_ex(minitorch.tensor([[1.0, 2, 0], [2, 4, 0], [0, 0, 1]]))
    assert r.pivots.tolist() == [2, 2, 3] and r.info.item() == 2
    np.testing.assert_allclose(r.LD.numpy(), [[4, 0, 0], [0.5, 0, 0], [0, 0, 1]])
    with pytest.raises(RuntimeError, match="torch.linalg.ldl_factor: Unknown error code: 1."):
        minitorch.linalg.ldl_factor(minitorch.zeros(2, 2))
    with pytest.raises(RuntimeError, match="ldl_factor_ex: Unknown error code: 1."):
        minitorch.linalg.ldl_factor_ex(minitorch.zeros(2, 2), check_errors=True)


def test_ldl_solve():
    A = minitorch.tensor(_A3)
    B = minitorch.tensor([[1.0, 2], [3, 4], [5, 6]])
    X = minitorch.linalg.ldl_solve(*minitorch.linalg.ldl_factor(A), B)
    expected = [
        [1.9090908765792847, 1.8181817531585693],
        [0.27272728085517883, 0.5454545617103577],
        [0.3636363744735718, 0.7272727489471436],
    ]
    np.testing.assert_allclose(X.numpy(), expected, rtol=1e-5)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 7, 7))
    a = a + np.swapaxes(a, -1, -2)
    b = rng.standard_normal((3, 1, 7, 2))
    LD, piv = minitorch.linalg.ldl_factor(minitorch.tensor(a))
    X = minitorch.linalg.ldl_solve(LD, piv, minitorch.tensor(b))
    assert tuple(X.shape) == (3, 2, 7, 2)
    np.testing.assert_allclose(a @ X.numpy(), np.broadcast_to(b, (3, 2, 7, 2)), atol=1e-10)


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda L: L.ldl_factor(minitorch.zeros(2, 3, dtype=minitorch.int64)),
            RuntimeError,
            "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3",
        ),
        (
            lambda L: L.ldl_factor(minitorch.zeros(2, 2, dtype=minitorch.int64)),
            RuntimeError,
            "ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long",
        ),
        (
            lambda L: L.ldl_factor_ex(minitorch.zeros(2, 2, dtype=minitorch.float16)),
            NotImplementedError,
            "\"ldl_factor_kernel_cpu\" not implemented for 'Half'",
        ),
        (
            lambda L: L.ldl_solve(minitorch.eye(3), minitorch.ones(3), minitorch.ones(3, 1)),
            RuntimeError,
            "ldl_solve: Expected pivots to be integers. Got Float",
        ),
        (
            lambda L: L.ldl_solve(
                minitorch.eye(3), minitorch.ones(2, dtype=minitorch.int32), minitorch.ones(3, 1)
            ),
            RuntimeError,
            r"Expected LD.shape\[:-1\] and pivots.shape to be the same, but got "
            r"pivots with shape \[2\] instead",
        ),
        (
            lambda L: L.ldl_solve(
                minitorch.eye(3), minitorch.ones(3, dtype=minitorch.int32), minitorch.ones(4, 1)
            ),
            RuntimeError,
            "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is "
            "3 by 3 but each b matrix is 4 by 1",
        ),
        (
            lambda L: L.ldl_solve(
                minitorch.eye(3),
                minitorch.ones(3, dtype=minitorch.int32),
                minitorch.ones(3, 1, dtype=minitorch.float64),
            ),
            RuntimeError,
            "Expected b and A to have the same dtype, but found b of type Double and "
            "A of type Float instead.",
        ),
    ],
)
def test_ldl_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(minitorch.linalg)


def test_ldl_no_derivative():
    a = minitorch.eye(2).requires_grad_()
    LD = minitorch.linalg.ldl_factor(a).LD
    assert LD.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        LD.sum().backward()
    b = minitorch.ones(2, 1, requires_grad=True)
    x = minitorch.linalg.ldl_solve(minitorch.eye(2), minitorch.tensor([1, 2]).int(), b)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        x.sum().backward()


def test_ldl_out_dtype_refused():
    out = (minitorch.empty(0), minitorch.empty(0, dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int, but got long"):
        minitorch.linalg.ldl_factor(minitorch.eye(2), out=out)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
def test_ldl_solve_of_empty_systems(shape):
    a = minitorch.zeros(shape, dtype=minitorch.float64)
    ld, piv = minitorch.linalg.ldl_factor(a)
    x = minitorch.linalg.ldl_solve(ld, piv, minitorch.zeros(shape[:-1] + (2,), dtype=a.dtype))
    assert x.shape == shape[:-1] + (2,)
