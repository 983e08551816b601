"""Session 47's softmax and cross entropy calls against torch: the common recorded softmax /
log_softmax (common_softmax) and the common recorded nll_loss (NOTE [ The common recorded
nll_loss ]) give torch's values and gradients, first and second order, and show torch's graph
(grad_fn names, edges, _saved_* values); their no-grad calls give torch's values."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

from tests.reference.test_s46_loss_reference import TOL, check, pair  # noqa: E402

REDUCTIONS = ("mean", "sum", "none")
DTYPES = ("float32", "float64")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ignore_index", [-100, 4, 10**6])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_common_recorded_nll(fn, ignore_index, dtype, reduction):
    x = pair((6, 4), dtype, 1)
    ids = [0, 3, 1, 2, 2, 0]
    t = (mt.tensor(ids), torch.tensor(ids))

    def make(lib):
        f = getattr(lib.nn.functional, fn)
        return lambda x, t: f(x, t, ignore_index=ignore_index, reduction=reduction)

    saved = ("reduction", "ignore_index", "target", "weight", "total_weight")
    check(make(mt), make(torch), [x, t], dtype, saved)
    a, b = make(mt)(*(i for i, _ in (x, t))), make(torch)(*(j for _, j in (x, t)))
    assert a.grad_fn.common is True  # (the route under test)
    tol = TOL[dtype]  # the saved log-probabilities: torch's, within an ulp or so
    np.testing.assert_allclose(
        a.grad_fn._saved_self.detach().numpy(),
        b.grad_fn._saved_self.detach().numpy(),
        rtol=tol,
        atol=tol,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_module_and_no_grad(dtype):
    x = pair((16, 10), dtype, 2)
    ids = np.random.default_rng(3).integers(0, 10, 16)
    t = (mt.tensor(ids), torch.tensor(ids))
    check(lambda x, t: mt.nn.CrossEntropyLoss()(x, t), torch.nn.CrossEntropyLoss(), [x, t], dtype)
    tol = TOL[dtype]
    for reduction in REDUCTIONS:
        with mt.no_grad(), torch.no_grad():
            a = mt.nn.functional.cross_entropy(x[0], t[0], reduction=reduction)
            b = torch.nn.functional.cross_entropy(x[1], t[1], reduction=reduction)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol, err_msg=reduction)


SOFTMAXES = {
    "F.softmax": lambda lib: lambda x, d: lib.nn.functional.softmax(x, d),
    "F.log_softmax": lambda lib: lambda x, d: lib.nn.functional.log_softmax(x, d),
    "softmax": lambda lib: lambda x, d: lib.softmax(x, d),
    "method.log_softmax": lambda lib: lambda x, d: x.log_softmax(d),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape_dim", [((3, 4), -1), ((40, 7), 0), ((2, 3, 5), -2)], ids=str)
@pytest.mark.parametrize("name", list(SOFTMAXES))
def test_common_recorded_softmax(name, shape_dim, dtype):
    shape, dim = shape_dim
    x = pair(shape, dtype, 4)
    make = SOFTMAXES[name]
    check(
        lambda x: make(mt)(x, dim),
        lambda x: make(torch)(x, dim),
        [x],
        dtype,
        saved=("dim",),
    )
    tol = TOL[dtype]
    a, b = make(mt)(x[0], dim), make(torch)(x[1], dim)
    np.testing.assert_allclose(
        a.grad_fn._saved_result.detach().numpy(),
        b.grad_fn._saved_result.detach().numpy(),
        rtol=tol,
        atol=tol,
    )
    with mt.no_grad(), torch.no_grad():
        a, b = make(mt)(x[0], dim), make(torch)(x[1], dim)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol)
