"""Sweep 7 of cumprod's backward against torch's: nan/inf inputs (the division formula torch uses
without zeros, its first-zero formula with them, its exact products under create_graph)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck, gradgradcheck

nan, inf = float("nan"), float("inf")

# (input, dim, torch's gradient, torch's gradient under create_graph), the upstream gradient
# being 0.5, 1.0, 1.5, ... in row-major order; values read from torch 2.13 in float64
CASES = [
    ([1.0, nan, 2.0], 0, [nan, nan, nan], [nan, nan, nan]),
    ([1.0, inf, 2.0], 0, [inf, nan, inf], [inf, nan, inf]),
    ([3.0, inf, 0.0], 0, [inf, nan, inf], [nan, 3.0, inf]),
    ([2.0, -inf, 0.5], 0, [-inf, nan, -inf], [-inf, nan, -inf]),
    ([0.0, inf, 0.0, 1.0], 0, [nan, 0.0, 0.0, 0.0], [nan, 0.0, nan, nan]),
    ([2.0, 0.0, inf, 3.0], 0, [0.5, inf, 0.0, 0.0], [nan, inf, 0.0, nan]),
    ([nan, 2.0, 0.0, 3.0], 0, [nan, nan, nan, 0.0], [2.5, nan, nan, nan]),
    (
        [2.0, 3.0, 0.0, nan, 0.0, 5.0],
        0,
        [3.5, 2.0, nan, 0.0, 0.0, 0.0],
        [nan, nan, nan, 0.0, nan, nan],
    ),
    # a zero in one row makes torch take its zero formulas for every row
    (
        [[3.0, inf, 2.0], [1.0, 0.0, 2.0]],
        1,
        [[inf, nan, inf], [2.0, 8.5, 0.0]],
        [[inf, 12.0, inf], [2.0, 8.5, 0.0]],
    ),
    (
        [[3.0, inf], [nan, 2.0], [0.0, 4.0]],
        0,
        [[nan, nan], [nan, inf], [nan, inf]],
        [[nan, 29.0], [4.5, inf], [nan, inf]],
    ),
    ([[inf], [2.0]], 1, [[0.5], [1.0]], [[0.5], [1.0]]),  # a size-1 dim passes grad through
]


def _grads(data, dim, device="cpu", create_graph=False):
    x = mt.tensor(data, dtype=mt.float64, device=device, requires_grad=True)
    g = mt.arange(1, x.numel() + 1, dtype=mt.float64, device=device).reshape(x.shape) * 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's inf * 0 in the forward scan
        y = mt.cumprod(x, dim)
        (gx,) = mt.autograd.grad(y, x, g, create_graph=create_graph)
    return gx.detach().cpu().numpy()


def _assert_same(got, want, msg):
    want = np.array(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=msg)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True, err_msg=msg)


@pytest.mark.parametrize("data, dim, want, want_graph", CASES)
def test_cumprod_backward_with_nan_and_inf_matches_torch(data, dim, want, want_graph, device):
    with count_transfers() as c:
        first = _grads(data, dim, device)
        graph = _grads(data, dim, device, create_graph=True)
    _assert_same(first, want, f"cumprod backward of {data} along {dim} on {device}")
    _assert_same(graph, want_graph, f"create_graph backward of {data} along {dim} on {device}")
    if device == "strict":
        assert c.count == 2  # the two .numpy() reads above, none inside backward


def _exact_grad(x, g, dim):
    """sum_{j>=i} g_j prod_{k<=j, k!=i} x_k, by brute force along dim."""
    x, g = np.moveaxis(x, dim, -1), np.moveaxis(g, dim, -1)
    out = np.zeros_like(x)
    n = x.shape[-1]
    for i in range(n):
        for j in range(i, n):
            others = np.delete(x[..., : j + 1], i, axis=-1)
            out[..., i] += g[..., j] * others.prod(-1)
    return np.moveaxis(out, -1, dim)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_backward_with_zeros_stays_exact(dim, create_graph):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 6))
    x[0, 2] = x[1, 1] = x[1, 4] = x[2, 0] = x[3, 3] = x[3, 4] = 0.0  # one, two, adjacent zeros
    g = rng.normal(size=x.shape)
    t = mt.tensor(x, requires_grad=True)
    (gx,) = mt.autograd.grad(mt.cumprod(t, dim), t, mt.tensor(g), create_graph=create_graph)
    np.testing.assert_allclose(gx.detach().numpy(), _exact_grad(x, g, dim), rtol=1e-12, atol=1e-14)


def test_cumprod_backward_in_float32_divides_without_zeros():
    x = mt.tensor([[2.0, inf, 0.5], [1.0, -3.0, 2.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mt.cumprod(x, 1).backward(mt.tensor([[1.0, 2.0, 3.0], [0.5, 1.0, 1.5]]))
    assert x.grad.dtype is mt.float32
    _assert_same(x.grad.numpy(), [[inf, nan, inf], [-11.5, 4.0, -4.5]], "float32 cumprod grad")


@pytest.mark.parametrize(
    "shape, dim, zeros",
    [((5,), 0, ()), ((5,), 0, (2,)), ((3, 4), 1, ((1, 1), (1, 3))), ((3, 4, 2), 0, ((0, 2, 1),))],
)
def test_cumprod_gradients_are_twice_differentiable(shape, dim, zeros):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
    for z in zeros:
        x[z] = 0.0
    t = mt.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: mt.cumprod(a, dim), (t,))
    assert gradgradcheck(lambda a: mt.cumprod(a, dim), (t,))


def test_cumprod_saves_its_result_as_torch():
    x = mt.tensor([2.0, 3.0, 0.0, 4.0], requires_grad=True)
    y = mt.cumprod(x, 0)
    np.testing.assert_array_equal(y.grad_fn._saved_result.detach().numpy(), [2.0, 6.0, 0.0, 0.0])
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_dim == 0
    y.mul_(2)  # the saved result is modified: backward refuses, as torch's
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_cumprod_of_inf_and_zero_is_nan_without_a_warning():
    # as in a script: only minitorch's import-time filter for its kernels' RuntimeWarnings
    x = mt.tensor([3.0, inf, 0.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=mt._KERNEL_MODULES)
        y = mt.cumprod(x, 0)
        y.sum().backward()
    _assert_same(y.detach().numpy(), [3.0, inf, nan, nan], "cumprod of [3, inf, 0, 2]")
    _assert_same(x.grad.numpy(), [inf, nan, inf, 0.0], "its gradient")
