"""Sweep 5's linear-algebra differences from torch: out= tensors of another dtype refused by the
linalg kernels (cast by a few), LU's pivot search skipping NaN and solve/inv of a matrix holding
a NaN, solve_triangular's result dtype and its exception for integer matrices."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

NAN = float("nan")
WANT = "Expected out tensor to have dtype double, but got float instead"


def _t(a, dtype=mt.float64, requires_grad=False):
    return mt.tensor(np.asarray(a, dtype=np.float64), dtype=dtype, requires_grad=requires_grad)


def _raises(exc, msg, fn):
    with pytest.raises(exc, match=re.escape(msg)):
        fn()


def _spd():
    return _t([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])


def _f32(*shape):
    return mt.empty(shape, dtype=mt.float32)


# --- 1. out= of another dtype: refused by the linalg kernels, each in torch's words ---


def _cases():
    A, b, v = _spd(), _t(np.ones((3, 2))), _t(np.ones(3))
    LU, piv = mt.linalg.lu_factor(A)
    return {
        "linalg.solve": lambda: mt.linalg.solve(A, b, out=_f32(3, 2)),
        "linalg.solve vector": lambda: mt.linalg.solve(A, v, out=_f32(3)),
        "linalg.inv": lambda: mt.linalg.inv(A, out=_f32(3, 3)),
        "inverse": lambda: mt.inverse(A, out=_f32(3, 3)),
        "linalg.det": lambda: mt.linalg.det(A, out=_f32()),
        "linalg.cholesky": lambda: mt.linalg.cholesky(A, out=_f32(3, 3)),
        "linalg.eigvalsh": lambda: mt.linalg.eigvalsh(A, out=_f32(3)),
        "linalg.svdvals": lambda: mt.linalg.svdvals(A, out=_f32(3)),
        "linalg.lu_solve": lambda: mt.linalg.lu_solve(LU, piv, b, out=_f32(3, 2)),
        "linalg.cross": lambda: mt.linalg.cross(A, A, out=_f32(3, 3)),
        "cross": lambda: mt.cross(A, A, dim=1, out=_f32(3, 3)),
        "renorm": lambda: mt.renorm(A, 2, 0, 1.0, out=_f32(3, 3)),
        "frobenius_norm": lambda: mt.frobenius_norm(A, (0, 1), out=_f32()),
        "diag 2-d": lambda: mt.diag(A, out=_f32(3)),
        "diag 1-d": lambda: mt.diag(v, out=_f32(3, 3)),
        "linalg.lu_factor": lambda: mt.linalg.lu_factor(A, out=(_f32(3, 3), piv.clone())),
        "linalg.lu": lambda: mt.linalg.lu(A, out=(_f32(3, 3), _f32(3, 3), _f32(3, 3))),
        "linalg.qr": lambda: mt.linalg.qr(A, out=(_f32(3, 3), _f32(3, 3))),
        "linalg.eigh": lambda: mt.linalg.eigh(A, out=(_f32(3), _f32(3, 3))),
        "linalg.svd": lambda: mt.linalg.svd(A, out=(_f32(3, 3), _f32(3), _f32(3, 3))),
        "linalg.slogdet": lambda: mt.linalg.slogdet(A, out=(_f32(), _f32())),
        "triangular_solve": lambda: mt.triangular_solve(b, A, out=(_f32(3, 2), _f32(3, 3))),
        "linalg.solve_ex": lambda: mt.linalg.solve_ex(
            A, b, out=(_f32(3, 2), mt.empty((), dtype=mt.int32))
        ),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_linalg_out_of_another_dtype_is_refused(name):
    _raises(RuntimeError, WANT, _cases()[name])


def test_linalg_out_messages_of_their_own():
    A, b, v = _spd(), _t(np.ones((3, 2))), _t(np.ones(3))
    _raises(
        RuntimeError,
        "expected scalar type Double but found Float",
        lambda: mt.linalg.solve_triangular(A, b, upper=True, out=_f32(3, 2)),
    )
    _raises(
        RuntimeError,
        "multi_dot(): expected out tensor to have dtype double but got float",
        lambda: mt.linalg.multi_dot([A, A, v], out=_f32(3)),
    )
    _raises(
        RuntimeError,
        "linalg.vecdot: Expected out of dtypeDouble but found Float",
        lambda: mt.linalg.vecdot(A, A, out=_f32(3)),
    )
    _raises(
        RuntimeError,
        "tensordot: Expected the output tensor to have dtype Double, but got an output tensor "
        "with dtype Float",
        lambda: mt.tensordot(A, A, dims=1, out=_f32(3, 3)),
    )
    _raises(
        RuntimeError,
        "linalg.matrix_norm expected out tensor dtype Double but got: Float",
        lambda: mt.nuclear_norm(A, out=_f32()),
    )
    # an int32 pivots tensor is exact too: int64 is refused
    _raises(
        RuntimeError,
        "Expected out tensor to have dtype int, but got long int instead",
        lambda: mt.linalg.lu_factor(A, out=(_t(np.zeros((3, 3))), mt.empty(3, dtype=mt.int64))),
    )


def test_linalg_out_that_torch_casts_still_casts():
    A, b = _spd(), _t(np.ones((3, 2)))
    want_inv = np.linalg.inv(A.numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chol = mt.cholesky(A, out=_f32(3, 3))  # torch.cholesky casts, linalg.cholesky refuses
        chain = mt.chain_matmul(A, out=_f32(3, 3))  # one matrix: a clone, cast
    ci = mt.cholesky_inverse(mt.linalg.cholesky(A), out=_f32(3, 3))
    cs = mt.cholesky_solve(b, mt.linalg.cholesky(A), out=_f32(3, 2))
    for r in (chol, chain, ci, cs):
        assert r.dtype is mt.float32
    np.testing.assert_allclose(chol.numpy(), np.linalg.cholesky(A.numpy()), rtol=1e-6)
    np.testing.assert_allclose(ci.numpy(), want_inv, rtol=1e-5)
    np.testing.assert_allclose(cs.numpy(), want_inv @ np.ones((3, 2)), rtol=1e-5)
    # the right dtype is written in place
    out = mt.empty(3, 2, dtype=mt.float64)
    r = mt.linalg.solve(A, b, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), want_inv @ np.ones((3, 2)), rtol=1e-12)
    outs = (mt.empty(3, 3, dtype=mt.float64), mt.empty(3, dtype=mt.int32))
    LU, piv = mt.linalg.lu_factor(A, out=outs)
    assert LU is outs[0] and piv is outs[1]
    assert piv.tolist() == [1, 2, 3]


# --- 2. LU never pivots on a NaN (BLAS idamax); solve/inv of a matrix with a NaN: all NaN ---


def test_lu_pivot_skips_nan_below_the_diagonal():
    LU, piv = mt.linalg.lu_factor(_t([[2.0, 1.0], [NAN, 3.0]]))
    assert piv.tolist() == [1, 2]
    np.testing.assert_array_equal(LU.numpy(), [[2.0, 1.0], [NAN, NAN]])
    # a NaN first in its column stays the pivot, as idamax's first comparison fails
    LU, piv = mt.linalg.lu_factor(_t([[NAN, 2, 3], [NAN, 1, 1], [5, 1, 2]]))
    assert piv.tolist() == [1, 2, 3]
    # NaN in the middle of a column: the largest of the others
    LU, piv = mt.linalg.lu_factor_ex(_t([[1, 2, 3], [NAN, 1, 1], [5, 1, 2]]))[:2]
    assert piv.tolist()[0] == 3
    np.testing.assert_array_equal(LU.numpy()[0], [5.0, 1.0, 2.0])
    np.testing.assert_allclose(LU.numpy()[2, 0], 0.2)


def test_lu_pivot_skipping_nan_can_find_a_zero_pivot():
    # [[0, 1], [nan, 3]]: idamax keeps the 0, so the matrix is singular for torch
    A = _t([[0.0, 1.0], [NAN, 3.0]])
    _raises(mt.linalg.LinAlgError, "singular", lambda: mt.linalg.solve(A, _t([1.0, 1.0])))
    assert mt.linalg.lu_factor_ex(A).info.item() == 1


@pytest.mark.parametrize(
    "a",
    [[[NAN, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, NAN]], [[3, 1, 0], [1, NAN, 1], [0, 1, 5]]],
)
def test_solve_and_inv_of_a_matrix_with_nan_are_all_nan(a):
    A = _t(a)
    n = A.shape[0]
    assert np.isnan(mt.linalg.solve(A, _t(np.ones(n))).numpy()).all()
    assert np.isnan(mt.linalg.inv(A).numpy()).all()


def test_solve_and_inv_nan_only_in_the_matrix_holding_it():
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    A = _t(np.stack([good, [[NAN, 0.0], [0.0, 1.0]]]))
    x = mt.linalg.solve(A, _t(np.ones((2, 2, 1)))).numpy()
    np.testing.assert_allclose(x[0], np.linalg.solve(good, np.ones((2, 1))), rtol=1e-12)
    assert np.isnan(x[1]).all()
    inv = mt.linalg.inv(A).numpy()
    np.testing.assert_allclose(inv[0], np.linalg.inv(good), rtol=1e-12)
    assert np.isnan(inv[1]).all()


def test_solve_and_inv_gradients_unchanged():
    a = _t(_spd().numpy() + 0.3 * np.triu(np.ones((3, 3))), requires_grad=True)
    b = _t(np.arange(6.0).reshape(3, 2) - 2, requires_grad=True)
    assert gradcheck(mt.linalg.solve, (a, b))
    assert gradgradcheck(mt.linalg.solve, (a, b))
    assert gradcheck(mt.linalg.inv, (a,))


# --- 3. solve_triangular: A's dtype, integer matrices refused by the kernel ---


def test_solve_triangular_returns_a_dtype():
    A = _t([[2.0, 1.0], [0.0, 3.0]], dtype=mt.float32)
    B = _t([[1.0], [1.000000001]])
    x = mt.linalg.solve_triangular(A, B, upper=True)
    assert x.dtype is mt.float32
    # B is rounded to float32 first (1.000000001 -> 1): x = [1/3, 1/3] in float32
    np.testing.assert_array_equal(x.numpy(), np.array([[1 / 3], [1 / 3]], dtype=np.float32))
    xl = mt.linalg.solve_triangular(A, B.mT, upper=True, left=False)
    assert xl.dtype is mt.float32
    x64 = mt.linalg.solve_triangular(A.double(), B.float(), upper=True)
    assert x64.dtype is mt.float64
    xi = mt.linalg.solve_triangular(A, mt.ones(2, 1, dtype=mt.int64), upper=True)
    assert xi.dtype is mt.float32
    _raises(
        RuntimeError,
        "expected scalar type Float but found Double",
        lambda: mt.linalg.solve_triangular(A, B, upper=True, out=mt.empty(2, 1, dtype=mt.float64)),
    )


def test_solve_triangular_mixed_dtype_gradient_reaches_b_in_its_dtype():
    A = _t([[2.0, 1.0], [0.0, 3.0]], dtype=mt.float32, requires_grad=True)
    B = _t([[1.0], [2.0]], requires_grad=True)
    mt.linalg.solve_triangular(A, B, upper=True).sum().backward()
    assert B.grad.dtype is mt.float64 and A.grad.dtype is mt.float32
    # T^-T 1 = [0.5, 1/6]
    np.testing.assert_allclose(B.grad.numpy(), [[0.5], [1 / 6]], rtol=1e-6)


@pytest.mark.parametrize("dtype, name", [(mt.int64, "Long"), (mt.int32, "Int"), (mt.bool, "Bool")])
def test_solve_triangular_integer_matrix_is_not_implemented(dtype, name):
    A = mt.eye(2, dtype=dtype)
    msg = f"\"triangular_solve_cpu\" not implemented for '{name}'"
    _raises(NotImplementedError, msg, lambda: mt.linalg.solve_triangular(A, A, upper=True))
    _raises(
        NotImplementedError,
        msg,
        lambda: mt.linalg.solve_triangular(A, mt.ones(2, 1), upper=True, left=True),
    )


def test_solve_inv_lu_with_nan_on_every_device(device):
    # off the CPU the NaN rule is a per-matrix where (no host read): the strict device checks it
    A = _t([[NAN, 0.0], [0.0, 1.0]]).to(device)
    x = mt.linalg.solve(A, _t([1.0, 1.0]).to(device))
    assert np.isnan(x.cpu().numpy()).all()
    assert np.isnan(mt.linalg.inv(A).cpu().numpy()).all()
    good = _t([[2.0, 1.0], [1.0, 3.0]]).to(device)
    np.testing.assert_allclose(mt.linalg.inv(good).cpu().numpy(), [[0.6, -0.2], [-0.2, 0.4]])
    piv = mt.linalg.lu_factor_ex(_t([[2.0, 1.0], [NAN, 3.0]]).to(device)).pivots
    assert piv.cpu().tolist() == [1, 2]
