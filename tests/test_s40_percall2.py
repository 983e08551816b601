"""The common per-op paths: broadcast gradients summed back over leading dims, products of
operands BLAS can and cannot read in place, leaf accumulators, sums of every dim."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _randn(seed, *shape, dtype=torch.float64, requires_grad=True):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(requires_grad)


def _broadcasting(x, w, b, c, s):
    return ((x @ w + b).tanh() * c + s) * b


def _inputs():
    return (_randn(1, 4, 5), _randn(2, 5, 3), _randn(3, 3), _randn(4, 1, 3), _scalar(5))


def _scalar(seed):
    return _randn(seed, 1, requires_grad=False).reshape(()).requires_grad_()


def test_broadcast_gradients_are_numerical_ones():
    assert gradcheck(_broadcasting, _inputs())
    assert gradgradcheck(_broadcasting, _inputs())


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_array_walk_matches_tensor_walk():
    # create_graph=True runs every node's Tensor backward; the plain backward its array one
    plain, graphed = _inputs(), _inputs()
    _broadcasting(*plain).sum().backward()
    _broadcasting(*graphed).sum().backward(create_graph=True)
    for i, (p, g) in enumerate(zip(plain, graphed, strict=True)):
        assert p.grad.shape == p.shape, i
        assert p.grad.dtype == p.dtype, i
        np.testing.assert_allclose(
            p.grad.numpy(), g.grad.detach().numpy(), rtol=1e-12, atol=0, err_msg=f"input {i}"
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_bias_gradient_is_its_own_memory(dtype):
    x = _randn(1, 6, 4, dtype=dtype, requires_grad=False)
    b1 = _randn(2, 4, dtype=dtype)
    b2 = _randn(3, 4, dtype=dtype)
    (x + b1 + b2).sum().backward()
    want = np.full(4, 6.0)
    for b in (b1, b2):
        np.testing.assert_array_equal(b.grad.numpy(), want)
        assert b.grad.is_contiguous()
    b1.grad.mul_(2)  # writable, and shared with nothing else
    np.testing.assert_array_equal(b1.grad.numpy(), 2 * want)
    np.testing.assert_array_equal(b2.grad.numpy(), want)
    (x + b1).sum().backward()  # accumulated into the same .grad
    np.testing.assert_array_equal(b1.grad.numpy(), 3 * want)


def test_zero_dim_input_gradient():
    s = _scalar(7)
    y = _randn(8, 2, 3, 4)
    (y * 3 + s).sum().backward()
    assert s.grad.shape == ()
    np.testing.assert_allclose(s.grad.numpy(), 24.0)


def _product_of_layouts(w, v, a):
    return (v.expand(80, 80) @ w).sum() + (a[:, ::2] @ w).sum() + (a[:, :80].t() @ a[:, 80:]).sum()


def test_products_blas_cannot_read():
    # operands of 4096 elements or more with a zero stride or a stepped slice: the copied path
    w, v, a = _randn(1, 80, 70), _randn(2, 1, 80), _randn(3, 90, 160)
    out = _product_of_layouts(w, v, a)
    want = (
        (np.broadcast_to(v.detach().numpy(), (80, 80)) @ w.detach().numpy()).sum()
        + (a.detach().numpy()[:, ::2] @ w.detach().numpy()).sum()
        + (a.detach().numpy()[:, :80].T @ a.detach().numpy()[:, 80:]).sum()
    )
    np.testing.assert_allclose(out.item(), want, rtol=1e-12)
    out.backward()
    np.testing.assert_allclose(v.grad.numpy(), w.detach().numpy().sum(1)[None] * 80, rtol=1e-12)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_small_transposed_products(ta, tb):
    m = _randn(1, *((5, 6) if ta else (6, 5)))
    n = _randn(2, *((4, 5) if tb else (5, 4)))

    def fn(m, n):
        return (m.t() if ta else m) @ (n.t() if tb else n)

    assert gradcheck(fn, (m, n))
    assert gradgradcheck(fn, (m, n))


def test_one_accumulator_per_leaf():
    x = _randn(1, 3)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert (x + 1).grad_fn.next_functions[0][0] is acc
    assert (x * x).grad_fn.next_functions[1][0] is acc
    assert x.exp().grad_fn.next_functions[0][0] is acc
    assert acc.variable is x


def test_sum_of_every_dim():
    x = _randn(1, 4, 3, requires_grad=False)
    for out in (x.sum(), x.t().sum(), torch.sum(x, dim=None)):
        assert out.shape == ()
        np.testing.assert_allclose(out.numpy(), x.numpy().sum(), rtol=1e-12)
    kept = torch.sum(x.t(), None, True)
    assert kept.shape == (1, 1) and kept.is_contiguous()
    with pytest.raises(TypeError, match="sum"):
        torch.sum([1.0, 2.0])


def test_matmul_checks_operands_in_order():
    x = torch.ones(2, 3)
    with pytest.raises(TypeError, match="argument 'input'"):
        torch.matmul([1.0], 2)
    with pytest.raises(TypeError, match="argument 'other'"):
        torch.matmul(x, 2)
    flags = torch.ones(2, 2, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="'Bool'"):
        torch.matmul(flags, flags)


def test_inplace_update_kinds():
    p = torch.ones(3, dtype=torch.bfloat16)
    with torch.no_grad():
        p -= torch.full((3,), 0.5, dtype=torch.bfloat16)
    np.testing.assert_array_equal(p.float().numpy(), [0.5, 0.5, 0.5])
    t = torch.arange(3)
    v = t._version
    t -= 1
    assert t._version == v + 1
    np.testing.assert_array_equal(t.numpy(), [-1, 0, 1])


def _grads(fn, inputs, create_graph):
    out = fn(*inputs)
    out.backward(create_graph=create_graph)
    return [t.grad.detach().numpy() for t in inputs]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize(
    "name",
    ["group_norm", "group_norm_half", "split"],
)
def test_nodes_of_more_outputs_below_array_nodes(name):
    # a node with more outputs takes its gradients as a list of Tensors, also from a node whose
    # backward routes arrays: the plain walk against the Tensor walk of create_graph
    def fn(x, w):
        if name == "split":
            a, b = (x @ w).split(2)
            return (a.exp() * 2).sum() + (b.tanh() * a[:1]).sum()
        if name == "group_norm_half":
            y = torch.nn.functional.group_norm(x.half(), 2, w.half()).float()
        else:
            y = torch.nn.functional.group_norm(x, 2, w)
        return (y.relu() * 3).sum()

    shapes = {"split": ((4, 5), (5, 3))}.get(name, ((2, 4, 3), (4,)))
    plain = [_randn(i, *s) for i, s in enumerate(shapes)]
    graphed = [_randn(i, *s) for i, s in enumerate(shapes)]
    for i, (p, g) in enumerate(
        zip(_grads(fn, plain, False), _grads(fn, graphed, True), strict=True)
    ):
        assert np.abs(p).sum() > 0, i
        np.testing.assert_allclose(p, g, rtol=1e-10, atol=1e-12, err_msg=f"input {i}")
