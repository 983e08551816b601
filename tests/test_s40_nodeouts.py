"""The nodes of ops with several outputs: how many gradients a node takes (its differentiable
outputs only), what its hooks receive, and first and second derivatives of the ops whose node
changed shape (float64 gradcheck / gradgradcheck)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

DT = minitorch.float64


def _randn(seed, *shape):
    return minitorch.randn(shape, generator=minitorch.Generator().manual_seed(seed), dtype=DT)


def _spd(seed, n=3):
    a = _randn(seed, n, n)
    return a @ a.mT + n * minitorch.eye(n, dtype=DT)


def _hook_counts(outs, loss):
    """What the first output's node's pre-hook and hook receive during loss.backward()."""
    seen = {}
    fn = outs[0].grad_fn
    fn.register_prehook(lambda g: seen.setdefault("pre", [x is None for x in g]) and None)
    fn.register_hook(
        lambda gi, go: seen.setdefault("hook", ([x is None for x in gi], len(go))) and None
    )
    loss.backward()
    return seen


@pytest.mark.parametrize(
    "op, n_out",
    [
        (lambda x: x.max(1), 1),
        (lambda x: x.min(0, keepdim=True), 1),
        (lambda x: minitorch.linalg.lu_factor(x), 1),
        (lambda x: minitorch.linalg.lu_factor_ex(x), 1),
        (lambda x: minitorch.frexp(x), 1),
        (lambda x: minitorch.aminmax(x, dim=1), 2),
        (lambda x: minitorch.linalg.slogdet(x), 2),
        (lambda x: minitorch.linalg.lu(x), 2),
        (lambda x: minitorch.nn.functional.group_norm(x.unsqueeze(0), 3), 3),
    ],
)
def test_node_takes_one_gradient_per_differentiable_output(op, n_out):
    x = _spd(1).requires_grad_()
    res = op(x)
    outs = [o for o in (res if isinstance(res, tuple) else (res,)) if o.requires_grad]
    used = outs[-1]  # (slogdet's sign has a zero gradient)
    fn = used.grad_fn
    with pytest.raises(TypeError, match=f"expected {n_out} arguments, got 0 instead"):
        fn()
    seen = _hook_counts(outs, (used * used).sum())
    assert seen["pre"] == [i != used.output_nr for i in range(n_out)]
    assert seen["hook"][1] == n_out
    assert x.grad is not None and bool(minitorch.isfinite(x.grad).all())


def test_max_dim_node_called_with_its_one_gradient():
    x = _randn(2, 3, 4).requires_grad_()
    values, indices = x.max(1)
    g = _randn(3, 3)
    got = values.grad_fn(g)
    want = np.zeros((3, 4))
    want[np.arange(3), indices.numpy()] = g.numpy()
    np.testing.assert_array_equal(got.detach().numpy(), want, err_msg="MaxBackward0(g)")


def test_frexp_node_lists_the_input_alone():
    x = _randn(3, 5).requires_grad_()
    mantissa, exponent = minitorch.frexp(x)
    fn = mantissa.grad_fn
    assert len(fn.next_functions) == 1
    np.testing.assert_array_equal(fn._saved_exponent.numpy(), exponent.numpy())
    exponent.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        mantissa.sum().backward()


def test_lstsq_is_one_node_with_two_outputs():
    a, b = _randn(4, 5, 3).requires_grad_(), _randn(5, 5, 2).requires_grad_()
    for driver in ("gelsy", "gelsd", "gelss", "gels"):
        solution, residuals, _, _ = minitorch.linalg.lstsq(a, b, driver=driver)
        fn = solution.grad_fn
        assert (residuals.grad_fn is fn, residuals.output_nr) == (True, 1), driver
        assert [e[0].name() for e in fn.next_functions] == ["torch::autograd::AccumulateGrad"] * 2
        saved = fn._saved_solution
        np.testing.assert_array_equal(saved.detach().numpy(), solution.detach().numpy())
        assert saved.grad_fn is fn


def test_lu_unpack_is_one_node():
    lu, piv = minitorch.linalg.lu_factor(_spd(6).requires_grad_())
    p, low, up = minitorch.lu_unpack(lu, piv)
    assert (low.grad_fn is up.grad_fn, low.output_nr, up.output_nr) == (True, 0, 1)
    assert low.grad_fn.name() == "LuUnpackBackward0"
    assert not p.requires_grad


def test_native_dropout_node_lists_the_input_alone():
    x = _randn(7, 4, 3).requires_grad_()
    out, mask = minitorch.native_dropout(x, 0.25, True)
    fn = out.grad_fn
    assert fn.name() == "NativeDropoutBackward0" and len(fn.next_functions) == 1
    assert (fn._saved_p, fn._saved_result1 is mask) == (0.25, True)
    out.backward(minitorch.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(), mask.numpy() / 0.75, err_msg="dropout's grad")


def test_cholesky_upper_is_one_node():
    a = _spd(8).requires_grad_()
    for fn in (
        minitorch.linalg.cholesky,
        lambda a, upper: minitorch.linalg.cholesky_ex(a, upper=upper)[0],
    ):
        u = fn(a, upper=True)
        node = u.grad_fn
        assert node.name() == "LinalgCholeskyExBackward0" and node._saved_upper is True
        np.testing.assert_array_equal(node._saved_L.detach().numpy(), u.detach().numpy())
        np.testing.assert_allclose(
            (u.mT @ u).detach().numpy(), a.detach().numpy(), rtol=1e-12, err_msg="U^T U"
        )


def test_cholesky_ex_upper_of_a_failed_batch():
    a = minitorch.stack([_spd(9), -_spd(10)]).requires_grad_()
    u, info = minitorch.linalg.cholesky_ex(a, upper=True)
    assert info.tolist() == [0, 1]
    assert u.grad_fn.name() == "LinalgCholeskyExBackward0"
    np.testing.assert_allclose(
        (u[0].mT @ u[0]).detach().numpy(), a[0].detach().numpy(), rtol=1e-12, err_msg="U^T U"
    )


def test_var_mean_saved_values_are_var_s():
    x = _randn(11, 3, 4).requires_grad_()
    v, _ = minitorch.var_mean(x, (0, -1), correction=0, keepdim=True)
    fn = v.grad_fn
    assert (fn._saved_correction, fn._saved_dim, fn._saved_keepdim) == (0, (0, 2**64 - 1), True)
    s, _ = minitorch.std_mean(x, 1)
    saved = s.grad_fn._saved_result0.detach()
    np.testing.assert_array_equal(saved.numpy(), s.detach().numpy())


def _sym(a):
    return a @ a.mT + 3 * minitorch.eye(a.shape[-1], dtype=a.dtype)


GRADCHECKS = {
    "max_dim": (lambda x: x.max(1)[0], (3, 4)),
    "aminmax": (lambda x: minitorch.aminmax(x, dim=0), (3, 4)),
    "frexp": (lambda x: minitorch.frexp(x)[0], (3, 4)),
    "cholesky_upper": (lambda a: minitorch.linalg.cholesky(_sym(a), upper=True), (3, 3)),
    "cholesky_ex_upper": (lambda a: minitorch.linalg.cholesky_ex(_sym(a), upper=True)[0], (3, 3)),
    "slogdet": (lambda a: minitorch.linalg.slogdet(_sym(a))[1], (3, 3)),
    "lu_factor": (lambda a: minitorch.linalg.lu_factor(a)[0], (3, 3)),
    "lu_unpack": (lambda a: minitorch.lu_unpack(*minitorch.linalg.lu_factor(a))[1:], (3, 3)),
    "lstsq": (lambda a: minitorch.linalg.lstsq(a, a[:, :2].exp())[:2], (5, 3)),
    "lstsq_gelsd": (
        lambda a: minitorch.linalg.lstsq(a, a[:, :2].exp(), driver="gelsd")[:2],
        (5, 3),
    ),
    "var_mean": (lambda x: minitorch.var_mean(x, 1), (3, 4)),
    "std_mean": (lambda x: minitorch.std_mean(x, 0), (3, 4)),
    "native_dropout": (lambda x: minitorch.native_dropout(x, 0.5, False)[0], (3, 4)),
    "group_norm": (
        lambda x: minitorch.nn.functional.group_norm(x.reshape(1, 4, 3), 2, x[0, :4], x[1, :4]),
        (3, 4),
    ),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_first_and_second_derivatives(name):
    fn, shape = GRADCHECKS[name]
    x = _randn(12, *shape).requires_grad_()
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
