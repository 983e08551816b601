"""Session 36 (helper kinematics): torch-free regression tests of the library fixes the
kinematics programs of tests/reference/test_s36_kinematics_reference.py found: the TypeError of
a dim that is no int names cross / linalg_cross as torch's parser does; torch.func.jacfwd counts
its primals' elements before any check (an AttributeError for a number); the nodes of
linalg.cross, linalg.inv and linalg.pinv answer torch's grad_fn._saved_<name> attributes;
linalg.solve(left=False) is one LinalgSolveExBackward0 node; matrix_power with out= under
autograd copies into out for n = 0 and 1 and names matmul in its refusal otherwise. torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _randn(seed, *shape):
    return mt.randn(*shape, generator=mt.Generator().manual_seed(seed), dtype=mt.float64)


_NOT_INT = "argument 'dim' must be int, not"
_POS = "argument 'dim' (position {}) must be int, not float"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda a: mt.linalg.cross(a, a, dim=1.0), f"linalg_cross(): {_NOT_INT} float"),
        (lambda a: mt.linalg.cross(a, a, dim=None), f"linalg_cross(): {_NOT_INT} NoneType"),
        (lambda a: mt.cross(a, a, dim=1.0), f"cross(): {_NOT_INT} float"),
        (lambda a: mt.cross(a, a, 1.0), "cross(): " + _POS.format(3)),
        (lambda a: mt.cross(a, a, dim=True), f"cross(): {_NOT_INT} bool"),
        (lambda a: a.cross(a, dim=1.0), f"cross(): {_NOT_INT} float"),
        (lambda a: a.cross(a, 1.0), "cross(): " + _POS.format(2)),
    ],
)
def test_cross_dim_type_error_names_the_op(call, message):
    a = _randn(0, 4, 3)
    assert _message(TypeError, lambda: call(a)) == message


def test_cross_int_like_dims_still_work():
    a, b = _randn(1, 4, 3), _randn(2, 4, 3)
    want = np.cross(a.numpy(), b.numpy())
    for dim in (np.int64(1), mt.tensor(1), -1):
        np.testing.assert_allclose(mt.cross(a, b, dim=dim).numpy(), want, rtol=1e-12)
        np.testing.assert_allclose(mt.linalg.cross(a, b, dim=dim).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize(
    "arg, kind",
    [(1.0, "float"), (3, "int"), (np.ones(3), "numpy.ndarray"), (None, "NoneType"),
     ((mt.ones(2), None), "NoneType")],
)  # fmt: skip
def test_jacfwd_of_a_non_tensor_counts_its_elements_first(arg, kind):
    want = f"'{kind}' object has no attribute 'numel'"
    assert _message(AttributeError, lambda: mt.func.jacfwd(lambda x: x[0] * 2)(arg)) == want
    assert _message(AttributeError, lambda: mt.func.hessian(lambda x: x[0] * 2)(arg)) == want
    # jacrev keeps torch's transform-API message
    msg = _message(ValueError, lambda: mt.func.jacrev(lambda x: x**2)(1.0))
    assert msg == "Thing passed to transform API must be Tensor, got <class 'float'>"


def test_jacfwd_still_differentiates_tensors_beside_numbers():
    x = _randn(3, 3)
    J = mt.func.jacfwd(lambda a, s: a * s, argnums=0)(x, 2.0)
    np.testing.assert_allclose(J.numpy(), 2 * np.eye(3), rtol=1e-12)


def _saved_names(node):
    return sorted(a for a in dir(node) if a.startswith("_saved_"))


def test_cross_node_saved_attributes():
    v = _randn(4, 4, 3).requires_grad_(True)
    w = _randn(5, 4, 3)
    n = mt.linalg.cross(v, w).grad_fn
    assert type(n).__name__ == "LinalgCrossBackward0"
    assert _saved_names(n) == ["_saved_dim", "_saved_other", "_saved_self"]
    assert n._saved_dim == 2**64 - 1  # -1 read back unsigned, as torch's binding
    assert n._saved_other is w  # self's gradient needs other
    assert n._saved_self is None  # other needs no gradient: self is not saved
    n = mt.linalg.cross(w, v).grad_fn
    assert n._saved_self is w and n._saved_other is None
    assert mt.cross(v, w, dim=1).grad_fn._saved_dim == 1
    assert mt.linalg.cross(v.T, w.T, dim=0).grad_fn._saved_dim == 0
    out = mt.linalg.cross(v, w)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.grad_fn._saved_other  # noqa: B018 - freed with the graph, as torch's


def test_inv_and_pinv_nodes_saved_attributes():
    A = (_randn(6, 2, 3, 3) + 3 * mt.eye(3, dtype=mt.float64)).requires_grad_(True)
    Ai = mt.linalg.inv(A)
    assert _saved_names(Ai.grad_fn) == ["_saved_inverse"]
    np.testing.assert_allclose(Ai.grad_fn._saved_inverse.detach().numpy(), Ai.detach().numpy())
    np.testing.assert_allclose(
        mt.inverse(A).grad_fn._saved_inverse.detach().numpy(), np.linalg.inv(A.detach().numpy())
    )
    J = _randn(7, 3, 6).requires_grad_(True)
    P = mt.linalg.pinv(J)
    assert type(P.grad_fn).__name__ == "LinalgPinvBackward0"
    assert _saved_names(P.grad_fn) == ["_saved_result", "_saved_self"]
    assert P.grad_fn._saved_self is J
    np.testing.assert_allclose(P.grad_fn._saved_result.detach().numpy(), P.detach().numpy())


def test_solve_left_false_is_one_solve_node():
    A = (_randn(8, 2, 3, 3) + 3 * mt.eye(3, dtype=mt.float64)).requires_grad_(True)
    B = _randn(9, 4, 3).requires_grad_(True)
    X = mt.linalg.solve(A, B, left=False)
    assert type(X.grad_fn).__name__ == "LinalgSolveExBackward0"  # was TransposeBackward0
    assert [type(f).__name__ for f, _ in X.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    np.testing.assert_allclose(
        (X @ A).detach().numpy(), np.broadcast_to(B.detach().numpy(), (2, 4, 3)), atol=1e-12
    )

    def f(a, b):
        return mt.linalg.solve(a, b, left=False)

    assert mt.autograd.gradcheck(f, (A, B))
    assert mt.autograd.gradgradcheck(f, (A, B))


def test_cross_gradients_unchanged():
    a, b = _randn(10, 4, 3).requires_grad_(True), _randn(11, 4, 3).requires_grad_(True)
    for f in (lambda x, y: mt.linalg.cross(x, y), lambda x, y: mt.cross(x.T, y.T, dim=0)):
        assert mt.autograd.gradcheck(f, (a, b))
        assert mt.autograd.gradgradcheck(f, (a, b))


_NO_AD = (
    "functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)


def test_matrix_power_out_with_autograd_as_torch():
    R = (_randn(12, 2, 3, 3) + 3 * mt.eye(3, dtype=mt.float64)).requires_grad_(True)
    # n == 0: the identity copied into out, outside the graph
    o = mt.empty(2, 3, 3, dtype=mt.float64)
    assert mt.linalg.matrix_power(R, 0, out=o) is o
    assert not o.requires_grad
    np.testing.assert_array_equal(o.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    # n == 1: A copied into out (resized, with torch's warning, and cast), a CopyBackwards node
    o = mt.empty(3, dtype=mt.float32)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        mt.matrix_power(R, 1, out=o)
    assert tuple(o.shape) == (2, 3, 3) and o.dtype == mt.float32
    assert type(o.grad_fn).__name__ == "CopyBackwards"
    (g,) = mt.autograd.grad(o.sum(), R)
    np.testing.assert_array_equal(g.numpy(), np.ones((2, 3, 3)))
    # products: matmul(out=)'s refusal, by its name (was mm / unsafe_view)
    for n in (2, 3, -2):
        o = mt.empty(2, 3, 3, dtype=mt.float64)
        msg = _message(RuntimeError, lambda n=n, o=o: mt.linalg.matrix_power(R, n, out=o))
        assert msg == "matmul(): " + _NO_AD
    out = mt.empty(3, 3, dtype=mt.int64)
    msg = _message(RuntimeError, lambda: mt.linalg.matrix_power(R[0], 2, out=out))
    assert msg == (  # the dtype is checked first
        "matrix_power: Expected result to be safely castable from Double dtype, but got result "
        "with dtype Long"
    )
    # an out that is a leaf requiring grad: copy_'s refusal for n in (0, 1)
    o = mt.empty(2, 3, 3, dtype=mt.float64, requires_grad=True)
    leaf = "a leaf Variable that requires grad is being used in an in-place operation."
    for n in (0, 1):
        assert (
            _message(RuntimeError, lambda n=n: mt.linalg.matrix_power(R.detach(), n, out=o)) == leaf
        )
    msg = _message(TypeError, lambda: mt.linalg.matrix_power(R, 1, out="x"))
    assert msg == "linalg_matrix_power(): argument 'out' must be Tensor, not str"
    with mt.no_grad():
        o = mt.empty(2, 3, 3, dtype=mt.float64)
        mt.linalg.matrix_power(R, 3, out=o)
    want = np.linalg.matrix_power(R.detach().numpy(), 3)
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-12)
