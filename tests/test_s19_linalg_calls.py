"""linalg calling conventions against torch 2.13's behaviour: the keyword names of torch's
bindings (`input`, lstsq's `b`, tensorsolve's `other`, the special functions' `x`), torch.lu
and linalg.lstsq writing their out= tuples, and the op-named refusals of an out= the result
cannot safely be cast into. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch

L = minitorch.linalg
S = minitorch.special


def _a():
    return minitorch.tensor([[4.0, 1.0], [1.0, 3.0]])


# --- keyword names ---


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda A: L.cholesky(input=A, upper=False), [2.0, 0.0, 0.5, 1.6583124]),
        (lambda A: L.cholesky_ex(input=A)[0], [2.0, 0.0, 0.5, 1.6583124]),
        (lambda A: L.eigh(input=A, UPLO="U")[0], [2.381966, 4.618034]),
        (lambda A: L.eigvalsh(input=A), [2.381966, 4.618034]),
        (
            lambda A: L.householder_product(input=A, tau=minitorch.tensor([0.5, 0.0])),
            [0.5, -0.5, -0.5, 0.5],
        ),
        (lambda A: L.lstsq(input=A, b=A)[0], [1.0, 0.0, 0.0, 1.0]),
        (lambda A: L.matrix_exp(input=A), [76.28981, 40.458744, 40.458748, 35.83104]),
        (lambda A: L.matrix_power(input=A, n=2), [17.0, 7.0, 7.0, 10.0]),
        (lambda A: L.cond(input=A, p=1), [2.2727273]),
        (
            lambda A: L.solve_triangular(input=A.triu(), B=A, upper=True),
            [0.9166667, 0.0, 0.33333334, 1.0],
        ),
        (lambda A: L.tensorsolve(input=A, other=minitorch.ones(2)), [0.18181819, 0.27272728]),
        (lambda A: L.tensorinv(input=A, ind=1), [0.27272728, -0.09090909, -0.09090909, 0.36363637]),
        (lambda A: S.scaled_modified_bessel_k0(x=minitorch.ones(2)), [1.1444631, 1.1444631]),
        (lambda A: S.scaled_modified_bessel_k1(x=minitorch.ones(2)), [1.6361535, 1.6361535]),
        (lambda A: S.spherical_bessel_j0(x=minitorch.ones(2)), [0.84147096, 0.84147096]),
    ],
)
def test_torch_keyword_names(call, expected):
    got = call(_a()).reshape(-1).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda A: L.cholesky(A=A),
        lambda A: L.eigvalsh(A=A),
        lambda A: L.lstsq(A, B=A),
        lambda A: L.tensorsolve(A, B=minitorch.ones(2)),
        lambda A: S.spherical_bessel_j0(input=minitorch.ones(2)),
    ],
)
def test_other_keyword_names_refused(call):
    with pytest.raises(TypeError):
        call(_a())


# --- torch.lu out= ---


def test_lu_writes_out():
    A = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    LU, piv = minitorch.zeros(2, 2), minitorch.zeros(2, dtype=minitorch.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = minitorch.lu(A, out=(LU, piv))
    assert type(r) is tuple and r[0] is LU and r[1] is piv
    np.testing.assert_allclose(LU.numpy(), [[3.0, 4.0], [1 / 3, 2 / 3]], rtol=1e-6)
    assert piv.tolist() == [2, 2]


def test_lu_get_infos_writes_out_and_casts():
    A = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    # torch's wrapper resizes and copies into any dtype
    out = [minitorch.zeros(1), minitorch.zeros(3, dtype=minitorch.float64), minitorch.ones(())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = minitorch.lu(A, get_infos=True, out=out)
    assert r is out
    assert out[1].tolist() == [2.0, 2.0] and out[1].dtype is minitorch.float64
    assert out[2].tolist() == 0.0
    with pytest.raises(TypeError, match="expected tuple of 3 elements but got 2"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            minitorch.lu(A, get_infos=True, out=out[:2])


# --- linalg.lstsq out= ---


def _lstsq_out(a=None, b=None, c=None, d=None):
    f, i = minitorch.float32, minitorch.int64
    return tuple(minitorch.zeros(0, dtype=t or u) for t, u in ((a, f), (b, f), (c, i), (d, f)))


def test_lstsq_writes_out():
    out = _lstsq_out()
    A = minitorch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    B = minitorch.tensor([[1.0], [2.0], [4.0]])
    r = L.lstsq(A, B, driver="gelsd", out=out)
    assert type(r).__name__ == "linalg_lstsq_out"
    assert all(x is y for x, y in zip(r, out, strict=True))
    np.testing.assert_allclose(out[0].numpy(), [[4 / 3], [7 / 3]], rtol=1e-5)
    np.testing.assert_allclose(out[1].numpy(), [1 / 3], rtol=1e-5)
    assert out[2].tolist() == 2 and out[2].dtype is minitorch.int64
    np.testing.assert_allclose(out[3].numpy(), [1.7320505, 1.0000001], rtol=1e-5)


@pytest.mark.parametrize(
    "kw, message",
    [
        (
            {"b": minitorch.int64},
            "Expected solution to be safely castable from Float dtype, but "
            "got solution with dtype Long",
        ),
        (
            {"c": minitorch.bool},
            "Expected rank to be safely castable from Long dtype, but got rank with dtype Bool",
        ),
        (
            {"d": minitorch.int64},
            "Expected singular_values to be safely castable from Float "
            "dtype, but got singular_values with dtype Long",
        ),
    ],
)
def test_lstsq_out_dtype_refused(kw, message):
    with pytest.raises(RuntimeError, match=re.escape("torch.linalg.lstsq: " + message)):
        L.lstsq(_a(), _a(), out=_lstsq_out(**kw))


def test_lstsq_out_errors():
    with pytest.raises(TypeError, match="linalg_lstsq\\(\\): argument 'out' must be tuple"):
        L.lstsq(_a(), _a(), out=minitorch.zeros(2))
    with pytest.raises(TypeError, match="expected tuple of 4 elements but got 1"):
        L.lstsq(_a(), _a(), out=(minitorch.zeros(2),))
    with pytest.raises(RuntimeError, match="linalg_lstsq\\(\\): functions with out=\\.\\.\\."):
        L.lstsq(_a().requires_grad_(), _a(), out=_lstsq_out())


# --- out= of a dtype the result cannot be cast into: torch's op-named messages ---

_TAU = [0.5, 0.0]


@pytest.mark.parametrize(
    "op, call, shape",
    [
        ("cholesky", lambda A, o: minitorch.cholesky(A, out=o), (2, 2)),
        ("cholesky_inverse", lambda A, o: minitorch.cholesky_inverse(A, out=o), (2, 2)),
        ("cholesky_solve", lambda A, o: minitorch.cholesky_solve(A, A, out=o), (2, 2)),
        ("linalg.pinv", lambda A, o: L.pinv(A, out=o), (2, 2)),
        ("linalg.cond", lambda A, o: L.cond(A, out=o), ()),
        ("linalg.cond", lambda A, o: L.cond(A, 1, out=o), ()),
        ("matrix_power", lambda A, o: L.matrix_power(A, 2, out=o), (2, 2)),
        ("matrix_power", lambda A, o: L.matrix_power(A, 0, out=o), (2, 2)),
        ("matrix_power", lambda A, o: minitorch.matrix_power(A, 1, out=o), (2, 2)),
        ("tensorinv", lambda A, o: L.tensorinv(A, 1, out=o), (2, 2)),
        ("tensorsolve", lambda A, o: L.tensorsolve(A, minitorch.ones(2), out=o), (2,)),
        (
            "torch.linalg.householder_product",
            lambda A, o: L.householder_product(A, minitorch.tensor(_TAU), out=o),
            (2, 2),
        ),
        (
            "torch.linalg.householder_product",
            lambda A, o: minitorch.orgqr(A, minitorch.tensor(_TAU), out=o),
            (2, 2),
        ),
    ],
)
def test_out_unsafe_cast_named(op, call, shape):
    o = minitorch.zeros(shape, dtype=minitorch.int64)
    message = f"{op}: Expected result to be safely castable from Float dtype, but got result "
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=re.escape(message + "with dtype Long")):
            call(_a(), o)


def test_geqrf_ormqr_out_dtype_messages():
    i64 = minitorch.int64
    with pytest.raises(RuntimeError, match="torch.geqrf: Expected a to be safely castable from "):
        minitorch.geqrf(_a(), out=(minitorch.zeros(2, 2, dtype=i64), minitorch.zeros(2)))
    with pytest.raises(RuntimeError, match="but got tau with dtype Long"):
        minitorch.geqrf(_a(), out=(minitorch.zeros(2, 2), minitorch.zeros(2, dtype=i64)))
    # a wider float is a safe cast
    r = minitorch.geqrf(
        _a(), out=(minitorch.zeros(2, 2, dtype=minitorch.float64), minitorch.zeros(2))
    )
    assert type(r).__name__ == "geqrf_out" and r[0].dtype is minitorch.float64
    tau = minitorch.tensor(_TAU)
    with pytest.raises(
        RuntimeError,
        match="torch.ormqr: Expected input and result to have the same dtype, but input has "
        "dtypeFloat and result has dtype Half",
    ):
        minitorch.ormqr(_a(), tau, _a(), out=minitorch.zeros(2, 2, dtype=minitorch.float16))


def test_torch_matrix_power_half_out_refused():
    # torch.matrix_power refuses another float dtype for a product, as linalg.matrix_power
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float"):
        minitorch.matrix_power(_a(), 2, out=minitorch.zeros(2, 2, dtype=minitorch.float16))
