"""The recorded losses of session 46 against torch: cross_entropy / nll_loss of the common call
(recorded_nll), the one-node mse_loss and binary_cross_entropy_with_logits, and the recorded
softmax of a few rows give torch's values and gradients, first and second order, and show
torch's graph (grad_fn names, edges, _saved_* values)."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

REDUCTIONS = ("mean", "sum", "none")
DTYPES = ("float32", "float64")
TOL = {"float32": 2e-6, "float64": 1e-13}


def pair(shape, dtype, seed, scale=2.0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    a = a.astype(dtype)
    return (
        mt.tensor(a, requires_grad=requires_grad),
        torch.tensor(a, requires_grad=requires_grad),
    )


def graph(fn):
    names = [type(fn).__name__]
    for f, _ in fn.next_functions:
        names.append(None if f is None else type(f).__name__)
    return names


def check(make_mt, make_th, inputs, dtype, saved=()):
    """Values, graph, _saved_* of `saved`, gradients and second-order gradients of the inputs
    that require grad, in minitorch and torch."""
    mt_in = [a for a, _ in inputs]
    th_in = [b for _, b in inputs]
    a, b = make_mt(*mt_in), make_th(*th_in)
    tol = TOL[dtype]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    assert graph(a.grad_fn) == graph(b.grad_fn)
    for k in saved:
        x, y = getattr(a.grad_fn, f"_saved_{k}"), getattr(b.grad_fn, f"_saved_{k}")
        if isinstance(y, torch.Tensor):
            np.testing.assert_array_equal(x.detach().numpy(), y.detach().numpy(), err_msg=k)
        else:
            assert x == y, k
    leaves = [i for i, t in enumerate(mt_in) if isinstance(t, mt.Tensor) and t.requires_grad]
    g = np.random.default_rng(9).standard_normal(b.shape).astype(dtype)
    ga = mt.autograd.grad(a, [mt_in[i] for i in leaves], mt.tensor(g), create_graph=True)
    gb = torch.autograd.grad(b, [th_in[i] for i in leaves], torch.tensor(g), create_graph=True)
    for x, y in zip(ga, gb, strict=True):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=tol, atol=tol)
    sa = mt.autograd.grad(sum((x * x).sum() for x in ga), [mt_in[i] for i in leaves])
    sb = torch.autograd.grad(sum((y * y).sum() for y in gb), [th_in[i] for i in leaves])
    for x, y in zip(sa, sb, strict=True):
        np.testing.assert_allclose(
            x.detach().numpy(), y.detach().numpy(), rtol=10 * tol, atol=10 * tol
        )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ignore_index", [-100, 2])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_cross_entropy_and_nll_loss(fn, ignore_index, dtype, reduction):
    x = pair((6, 4), dtype, 0)
    t = ([0, 3, 1, 2, 2, 0],) * 2
    t = (mt.tensor(t[0]), torch.tensor(t[1]))

    def make(lib):
        f = getattr(lib.nn.functional, fn)
        return lambda x, t: f(x, t, ignore_index=ignore_index, reduction=reduction)

    saved = ("reduction", "ignore_index", "target", "weight")
    check(make(mt), make(torch), [x, t], dtype, saved)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("target_grad", [False, True])
def test_mse_loss(target_grad, dtype, reduction):
    x, t = pair((8, 16), dtype, 0), pair((8, 16), dtype, 1, requires_grad=target_grad)

    def make(lib):
        return lambda x, t: lib.nn.functional.mse_loss(x, t, reduction=reduction)

    check(make(mt), make(torch), [x, t], dtype, ("reduction", "self", "target"))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("target_grad", [False, True])
def test_binary_cross_entropy_with_logits(target_grad, dtype, reduction):
    x = pair((8, 16), dtype, 0)
    p = np.random.default_rng(1).uniform(size=(8, 16)).astype(dtype)
    t = (mt.tensor(p, requires_grad=target_grad), torch.tensor(p, requires_grad=target_grad))

    def make(lib):
        f = lib.nn.functional.binary_cross_entropy_with_logits
        return lambda x, t: f(x, t, reduction=reduction)

    saved = ("reduction", "self", "target", "weight", "pos_weight")
    check(make(mt), make(torch), [x, t], dtype, saved)


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_recorded_softmax(fn, dtype, dim):
    x = pair((3, 4), dtype, 0)

    def make(lib):
        return lambda x: getattr(lib.nn.functional, fn)(x, dim)

    check(make(mt), make(torch), [x], dtype, ("dim",))
