"""autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against closed forms and torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import functional as F

XV = np.array([0.3, -0.7, 1.2])
YV = np.array([[0.5, 1.5], [2.0, -1.0]])
VV = np.array([1.0, 2.0, -3.0])


def _np(t):
    return t.detach().cpu().numpy()


def _t(v, lib=mt):
    return lib.tensor(np.asarray(v, dtype=np.float64))


def cubic_sum(a):
    return (a**3).sum() * a.sum()


def _cubic_sum_hessian(x):
    # f = (sum x^3)(sum x):  H_ij = 6 x_i S1 δ_ij + 3 x_i^2 + 3 x_j^2
    s1 = x.sum()
    return np.diag(6 * x * s1) + 3 * x[:, None] ** 2 + 3 * x[None, :] ** 2


def test_jacobian_single_input_output():
    jac = F.jacobian(lambda a: a.exp() * a, _t(XV))
    expected = np.diag(np.exp(XV) * (1 + XV))
    np.testing.assert_allclose(_np(jac), expected, rtol=1e-12)
    assert not jac.requires_grad


def test_jacobian_tuple_structure_and_shapes():
    def f(a, b):
        return a.sum() * b, (b * b).sum() + a

    jac = F.jacobian(f, (_t(XV), _t(YV)))
    shapes = [[tuple(t.shape) for t in row] for row in jac]
    assert shapes == [[(2, 2, 3), (2, 2, 2, 2)], [(3, 3), (3, 2, 2)]]
    np.testing.assert_allclose(_np(jac[1][0]), np.eye(3), err_msg="d(...+a)/da")
    np.testing.assert_allclose(_np(jac[1][1]), np.broadcast_to(2 * YV, (3, 2, 2)))
    np.testing.assert_allclose(_np(jac[0][0]), np.broadcast_to(YV[..., None], (2, 2, 3)))
    only_inputs_tuple = F.jacobian(lambda a, b: a * b.sum(), (_t(XV), _t(YV)))
    assert isinstance(only_inputs_tuple, tuple) and len(only_inputs_tuple) == 2


def test_jacobian_of_an_unused_input_is_zeros_or_a_strict_error():
    jac = F.jacobian(lambda a, b: a * 2, (_t(XV), _t(YV)))
    np.testing.assert_allclose(_np(jac[1]), np.zeros((3, 2, 2)))
    with pytest.raises(
        RuntimeError,
        match="^Output 0 of the user-provided function is "
        "independent of input 1. This is not allowed in strict "
        "mode.$",
    ):
        F.jacobian(lambda a, b: a * 2, (_t(XV), _t(YV)), strict=True)
    with pytest.raises(
        RuntimeError, match="^Output 0 of the user-provided function does not require gradients."
    ):
        F.jacobian(lambda a: mt.ones(2), _t(XV), strict=True)
    np.testing.assert_allclose(_np(F.jacobian(lambda a: mt.ones(2), _t(XV))), np.zeros((2, 3)))


def test_jacobian_create_graph_is_differentiable():
    x = _t(XV).requires_grad_()
    jac = F.jacobian(lambda a: a**3, x, create_graph=True)
    assert jac.requires_grad
    jac.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 6 * XV, err_msg="d/dx sum(diag(3x^2))")


def test_hessian():
    h = F.hessian(cubic_sum, _t(XV))
    np.testing.assert_allclose(_np(h), _cubic_sum_hessian(XV), rtol=1e-12)

    def two(a, b):
        return (a * a).sum() * (b**3).sum()

    hh = F.hessian(two, (_t(XV), _t(YV)))
    assert [[tuple(t.shape) for t in row] for row in hh] == [
        [(3, 3), (3, 2, 2)],
        [(2, 2, 3), (2, 2, 2, 2)],
    ]
    expected_ab = 2 * XV[:, None, None] * 3 * YV[None] ** 2
    np.testing.assert_allclose(_np(hh[0][1]), expected_ab, rtol=1e-12)
    np.testing.assert_allclose(_np(hh[1][0]), np.moveaxis(expected_ab, 0, -1), rtol=1e-12)


def test_hessian_errors():
    with pytest.raises(
        RuntimeError,
        match="^The Tensor returned by the function given to hessian "
        "should contain a single element$",
    ):
        F.hessian(lambda a: a * 2, _t(XV))
    with pytest.raises(
        RuntimeError, match="^The function given to hessian should return a single Tensor$"
    ):
        F.hessian(lambda a: (a.sum(), a.sum()), _t(XV))
    np.testing.assert_allclose(_np(F.hessian(lambda a: (a * 2).sum(), _t(XV))), np.zeros((3, 3)))
    with pytest.raises(
        RuntimeError,
        match="^While computing the hessian, found that the jacobian "
        "of the user-provided function with respect to input 0 "
        "is independent of the input.",
    ):
        F.hessian(lambda a: (a * 2).sum(), _t(XV), strict=True)


def test_vjp_and_jvp():
    def f(a):
        return a.exp() * a

    d = np.exp(XV) * (1 + XV)
    out, v = F.vjp(f, _t(XV), _t(VV))
    np.testing.assert_allclose(_np(out), np.exp(XV) * XV)
    np.testing.assert_allclose(_np(v), d * VV, err_msg="v^T J")
    out, j = F.jvp(f, _t(XV), _t(VV))
    np.testing.assert_allclose(_np(j), d * VV, err_msg="J v")
    out, v = F.vjp(lambda a: (a * a).sum(), _t(XV))
    np.testing.assert_allclose(_np(v), 2 * XV, err_msg="v defaults to 1 for a scalar output")
    w = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]])

    def linear(a):
        return _t(w) @ a if hasattr(a, "__matmul__") else None

    _, jv = F.jvp(linear, _t(XV), _t(VV))
    np.testing.assert_allclose(_np(jv), w @ VV, err_msg="J v of a non-square map")
    _, vj = F.vjp(linear, _t(XV), _t([1.0, -2.0]))
    np.testing.assert_allclose(_np(vj), w.T @ [1.0, -2.0], err_msg="v^T J of a non-square map")


def test_hvp_and_vhp():
    hess = _cubic_sum_hessian(XV)
    out, hv = F.hvp(cubic_sum, _t(XV), _t(VV))
    np.testing.assert_allclose(_np(out), (XV**3).sum() * XV.sum())
    np.testing.assert_allclose(_np(hv), hess @ VV, rtol=1e-12)
    out, vh = F.vhp(cubic_sum, _t(XV), _t(VV))
    np.testing.assert_allclose(_np(vh), VV @ hess, rtol=1e-12)


def test_argument_errors():
    x = _t(XV)
    with pytest.raises(
        RuntimeError,
        match="^The vector v can only be None if the input to the "
        "user-provided function is a single Tensor with a "
        "single element.$",
    ):
        F.jvp(lambda a: a * 2, x)
    with pytest.raises(
        RuntimeError,
        match=r"^v has invalid size: should be torch.Size\(\[3\]\) "
        r"but got torch.Size\(\[2\]\).$",
    ):
        F.vjp(lambda a: a * 2, x, mt.ones(2, dtype=mt.float64))
    with pytest.raises(
        RuntimeError,
        match=r"^v is a tuple of invalid length: should be 2 but got "
        r"1.$",
    ):
        F.vjp(lambda a: (a, a), x, (x,))
    with pytest.raises(
        TypeError,
        match="^The inputs given to vjp must be either a Tensor or a "
        "tuple of Tensors but the given inputs has type",
    ):
        F.vjp(lambda a: a, [x])
    with pytest.raises(
        RuntimeError,
        match="^The vector v can only be None if the user-provided "
        "function returns a single Tensor with a single "
        "element.$",
    ):
        F.vjp(lambda a: a * 2, x)


def test_results_are_detached_unless_create_graph():
    x = _t(XV).requires_grad_()
    out, v = F.vjp(lambda a: a**2, x, _t(VV))
    assert not out.requires_grad and not v.requires_grad
    out, v = F.vjp(lambda a: a**2, x, _t(VV), create_graph=True)
    assert out.requires_grad and v.requires_grad
    v.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * VV, err_msg="d/dx sum(2 x v)")


def test_vectorize_and_forward_mode_give_the_same_numbers():
    x = _t(XV)
    ref = F.jacobian(lambda a: a.exp() * a, x)
    for kwargs in ({"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
        np.testing.assert_allclose(_np(F.jacobian(lambda a: a.exp() * a, x, **kwargs)), _np(ref))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(lambda a: a, x, strategy="forward-mode")


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_functional_matches_torch(name):
    torch = pytest.importorskip("torch")

    def scalar(a, b):
        return (a.sin() * a).sum() * (b * b).sum() + (a * a).sum()

    def vector(a, b):
        return a.tanh() * b.sum(), (b**3).sum() + a

    args = {
        "jacobian": lambda lib: (vector, (_t(XV, lib), _t(YV, lib))),
        "hessian": lambda lib: (scalar, (_t(XV, lib), _t(YV, lib))),
        "vjp": lambda lib: (vector, (_t(XV, lib), _t(YV, lib)), (_t(VV, lib), _t(-VV, lib))),
        "jvp": lambda lib: (vector, (_t(XV, lib), _t(YV, lib)), (_t(VV, lib), _t(YV, lib))),
        "hvp": lambda lib: (scalar, (_t(XV, lib), _t(YV, lib)), (_t(VV, lib), _t(YV, lib))),
        "vhp": lambda lib: (scalar, (_t(XV, lib), _t(YV, lib)), (_t(VV, lib), _t(YV, lib))),
    }[name]

    def flat(res):
        if isinstance(res, (tuple, list)):
            return [a for r in res for a in flat(r)]
        return [_np(res)]

    ours = flat(getattr(F, name)(*args(mt)))
    theirs = flat(getattr(torch.autograd.functional, name)(*args(torch)))
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=f"{name} part {i}")
