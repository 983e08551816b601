"""torch.lobpcg (minitorch/_lobpcg.py): eigenpairs against eigh and torch's values, the checks and
their messages, batches, the generalized problem, the tracker, and gradients."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

F64 = minitorch.float64


def _mats():
    """A (15 x 15, symmetric, well-separated ends), B (SPD) and an initial X (15 x 2)."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((15, 15))
    A = a @ a.T + np.diag(np.arange(15.0))
    b = rng.standard_normal((15, 15))
    B = b @ b.T / 15 + np.eye(15)
    X0 = rng.standard_normal((15, 2))
    return A, B, X0


def _spd(m, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, m))
    return a @ a.T + m * np.eye(m)


def _close_up_to_sign(X, V, atol, msg):
    signs = np.sign(np.sum(X * V, axis=0))
    np.testing.assert_allclose(X, V * signs, atol=atol, err_msg=msg)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_agrees_with_eigh(method, largest):
    A = _spd(20, 1)
    w, V = np.linalg.eigh(A)
    if largest:
        w, V = w[::-1], V[:, ::-1]
    E, X = minitorch.lobpcg(minitorch.tensor(A), k=3, method=method, largest=largest)
    assert E.shape == (3,) and X.shape == (20, 3) and E.dtype == F64
    np.testing.assert_allclose(E.numpy(), w[:3], rtol=1e-12, err_msg=f"{method} {largest}")
    _close_up_to_sign(X.numpy(), V[:, :3], 1e-6, f"{method} {largest}")
    np.testing.assert_allclose(X.numpy().T @ X.numpy(), np.eye(3), atol=1e-12)


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_torch_values(largest):
    # torch.lobpcg(A, X=X0, largest=...) on torch 2.13 (its default tol, sqrt(eps)): E, |X[:3]|,
    # and the steps its tracker saw (17 and 34); the "ortho" steps are taken alike here
    A, _, X0 = _mats()
    expected = {
        True: ([48.04227507721591, 43.74916843651367], [0.02150757589138877, 0.12151962070919856]),
        False: ([2.6476123068604336, 5.241635725627569], [0.8930028945650991, 0.10612620326273547]),
    }[largest]
    steps = []
    E, X = minitorch.lobpcg(
        minitorch.tensor(A), X=minitorch.tensor(X0), largest=largest, tracker=steps.append
    )
    np.testing.assert_allclose(E.numpy(), expected[0], rtol=1e-12)
    np.testing.assert_allclose(np.abs(X.numpy()[:2, 0]), expected[1], rtol=1e-6)
    assert len(steps) == (17 if largest else 34)


@pytest.mark.parametrize("method", ["ortho", "basic"])
def test_lobpcg_generalized(method):
    A, B, X0 = _mats()
    for largest, expected in (
        (True, [34.08693690517491, 27.010125310331407]),  # torch's values
        (False, [1.319172453343871, 2.1422374174023866]),
    ):
        E, X = minitorch.lobpcg(
            minitorch.tensor(A),
            B=minitorch.tensor(B),
            X=minitorch.tensor(X0),
            largest=largest,
            method=method,
        )
        np.testing.assert_allclose(E.numpy(), expected, rtol=1e-10, err_msg=method)
        Xn = X.numpy()
        np.testing.assert_allclose(Xn.T @ B @ Xn, np.eye(2), atol=1e-10, err_msg=method)
        np.testing.assert_allclose(A @ Xn, B @ Xn * E.numpy(), atol=1e-5, err_msg=method)


def test_lobpcg_batched():
    A = np.stack([_spd(12, s) for s in range(6)]).reshape(2, 3, 12, 12)
    E, X = minitorch.lobpcg(minitorch.tensor(A), k=2, largest=False)
    assert E.shape == (2, 3, 2) and X.shape == (2, 3, 12, 2)
    w = np.linalg.eigvalsh(A)[..., :2]
    np.testing.assert_allclose(E.numpy(), w, rtol=1e-12)
    X0 = np.random.default_rng(0).standard_normal((6, 12, 3))
    E, X = minitorch.lobpcg(minitorch.tensor(A), X=minitorch.tensor(X0).reshape(2, 3, 12, 3))
    assert E.shape == (2, 3, 3) and X.shape == (2, 3, 12, 3)  # k defaults to X's columns
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(A)[..., ::-1][..., :3], rtol=1e-12)
    E, X = minitorch.lobpcg(minitorch.zeros(0, 6, 6))
    assert E.shape == (0, 1) and X.shape == (0, 6, 1)
    with pytest.raises(RuntimeError, match=r"shape '\[6, 12, 3\]' is invalid for input of size 36"):
        minitorch.lobpcg(minitorch.tensor(A), X=minitorch.tensor(X0[0]))


def test_lobpcg_checks():
    A = minitorch.tensor(_spd(10, 0))
    cases = [
        (
            lambda: minitorch.lobpcg(minitorch.randn(3, 4)),
            AssertionError,
            "A must be square, got shape torch.Size([3, 4])",
        ),
        (
            lambda: minitorch.lobpcg(A, B=minitorch.eye(9, dtype=F64)),
            AssertionError,
            "A and B must have same shape, got torch.Size([10, 10]) vs torch.Size([9, 9])",
        ),
        (
            lambda: minitorch.lobpcg(A, k=4),
            ValueError,
            "LOBPCG algorithm is not applicable when the number of A rows (=10) is smaller than "
            "3 x the number of requested eigenpairs (=4)",
        ),
        (
            lambda: minitorch.lobpcg(A, X=minitorch.randn(9, 2, dtype=F64)),
            AssertionError,
            "X shape mismatch: got torch.Size([9, 2]), expected (10, 2)",
        ),
        (
            lambda: minitorch.lobpcg(A, k=0),
            ZeroDivisionError,
            "0.0 cannot be raised to a negative power",
        ),
        (lambda: minitorch.lobpcg(minitorch.randn(5)), IndexError, "tuple index out of range"),
    ]
    for call, exc, msg in cases:
        with pytest.raises(exc) as info:
            call()
        assert str(info.value) == msg


def test_lobpcg_params_and_tracker():
    A = minitorch.tensor(_spd(20, 3))
    seen = []

    def tracker(worker):
        seen.append((dict(worker.iparams), dict(worker.fparams), dict(worker.bparams)))
        assert worker.ivars["istep"] == len(seen)
        assert worker.X.shape == (20, 2) and worker.E.shape == (2,) and worker.R.shape == (20, 2)
        assert worker.S.shape == (20, 6) and worker.tvars["rerr"].shape == (2,)
        worker.bvars["force_stop"] = True

    E, X = minitorch.lobpcg(A, k=2, tracker=tracker)
    tol = 2.23e-16**0.5
    assert len(seen) == 1 and E.shape == (2,)
    ip, fp, bp = seen[0]
    assert ip == {"m": 20, "n": 2, "k": 2, "niter": 1000, "ortho_i_max": 3, "ortho_j_max": 3}
    assert fp == {"tol": tol, "ortho_tol": tol, "ortho_tol_drop": tol, "ortho_tol_replace": tol}
    assert bp == {"largest": True, "ortho_use_drop": False}
    seen.clear()
    minitorch.lobpcg(A.float(), n=3, niter=5, method="basic", tracker=seen.append)
    ip, fp, bp = seen[0].iparams, seen[0].fparams, seen[0].bparams
    assert ip == {"m": 20, "n": 3, "k": 1, "niter": 5} and bp == {"largest": True}
    assert fp == {"tol": 1.2e-07**0.5}


def test_lobpcg_drop_and_preconditioner():
    A = _spd(30, 4)
    w = np.linalg.eigvalsh(A)[::-1]
    iK = minitorch.tensor(np.diag(1 / np.diag(A)))  # Jacobi
    for kw in (
        {"iK": iK},
        {"iK": iK, "method": "basic"},
        {"ortho_bparams": {"ortho_use_drop": True}},
    ):
        E, _ = minitorch.lobpcg(minitorch.tensor(A), k=3, **kw)
        np.testing.assert_allclose(E.numpy(), w[:3], rtol=1e-12, err_msg=str(kw))
    E, X = minitorch.lobpcg(minitorch.tensor(A).float(), k=2)
    assert E.dtype == minitorch.float32 and X.dtype == minitorch.float32
    np.testing.assert_allclose(E.numpy(), w[:2], rtol=1e-4)


def test_lobpcg_grad_matches_torch():
    A, _, X0 = _mats()
    At = minitorch.tensor(A, requires_grad=True)
    E, X = minitorch.lobpcg(At, X=minitorch.tensor(X0), tol=1e-13)
    assert type(E.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
    g = minitorch.linspace(-1, 1, 30, dtype=F64).reshape(15, 2)
    w = minitorch.tensor([0.5, -2.0], dtype=F64)
    ((E * w).sum() + (X * minitorch.sign(X[0]).detach() * g).sum()).backward()
    expected_rows = [  # torch's A.grad[:2, :4] for the same loss
        [-0.04865761349226572, -0.10413621623113245, -0.07296875488361582, 0.03031804029982596],
        [-0.10413621623113245, -0.21315125375113886, -0.1502033374197654, 0.07558102107397982],
    ]
    expected_diag = [
        -0.04865761349226572,
        -0.21315125375113886,
        -0.10576633664370869,
        -0.00825701872250927,
        -0.29397497214472945,
    ]
    grad = At.grad.numpy()
    np.testing.assert_allclose(grad[:2, :4], expected_rows, atol=1e-9)
    np.testing.assert_allclose(np.diag(grad)[:5], expected_diag, atol=1e-9)
    np.testing.assert_allclose(grad, grad.T, atol=1e-14)


def test_lobpcg_grad_symmetrizes_and_refuses_B():
    A, B, X0 = _mats()
    An = minitorch.tensor(A + np.triu(np.ones((15, 15)), 1), requires_grad=True)
    E, _ = minitorch.lobpcg(An, X=minitorch.tensor(X0), tol=1e-13)
    # torch's values: the eigenvalues of (A + A^T) / 2
    np.testing.assert_allclose(
        E.detach().numpy(), [47.55500602224324, 45.9432809668738], rtol=1e-11
    )
    E.sum().backward()
    np.testing.assert_allclose(An.grad.numpy(), An.grad.numpy().T, atol=1e-14)
    At = minitorch.tensor(A, requires_grad=True)
    E, _ = minitorch.lobpcg(At, B=minitorch.tensor(B), X=minitorch.tensor(X0))
    with pytest.raises(ValueError) as info:
        E.sum().backward()
    assert str(info.value) == "lobpcg.backward does not support backward with B != I yet."


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_gradcheck(method, largest):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 6))
    A = minitorch.tensor(a @ a.T + np.diag(np.arange(6) * 3.0), requires_grad=True)
    X0 = minitorch.tensor(rng.standard_normal((6, 2)))

    def f(A):
        E, X = minitorch.lobpcg(A, X=X0, tol=1e-14, niter=300, largest=largest, method=method)
        return E, X * minitorch.sign(X[0]).detach()  # fix the eigenvectors' signs

    assert gradcheck(f, (A,), atol=1e-6, rtol=1e-5)
    assert gradgradcheck(f, (A,), atol=1e-5, rtol=1e-4)


def test_lobpcg_grad_batched_matches_eigh():
    A = minitorch.tensor(np.stack([_spd(9, s) for s in (5, 6)]), requires_grad=True)
    E, X = minitorch.lobpcg(A, k=2, tol=1e-13)
    g = minitorch.randn(2, 9, 2, dtype=F64)
    ((E * E).sum() + (X * minitorch.sign(X[:, :1]).detach() * g).sum()).backward()
    A2 = A.detach().clone().requires_grad_()
    w, V = minitorch.linalg.eigh(A2)
    E2, X2 = w.flip(-1)[..., :2], V.flip(-1)[..., :2]
    ((E2 * E2).sum() + (X2 * minitorch.sign(X2[:, :1]).detach() * g).sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), A2.grad.numpy(), atol=1e-7)


def test_lobpcg_on_device(device):
    A = minitorch.tensor(_spd(12, 8), device=device, requires_grad=True)
    for method in ("ortho", "basic"):
        E, X = minitorch.lobpcg(A, k=2, method=method)
        assert E.device == A.device and X.device == A.device
        np.testing.assert_allclose(
            E.detach().cpu().numpy(), np.linalg.eigvalsh(_spd(12, 8))[::-1][:2], rtol=1e-12
        )
    E.sum().backward()
    assert A.grad.device == A.device


def test_lobpcg_is_lazy():
    code = "import sys, minitorch; assert 'minitorch._lobpcg' not in sys.modules; minitorch.lobpcg"
    subprocess.run([sys.executable, "-c", code], check=True)
