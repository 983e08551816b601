"""Corners where minitorch once differed from torch (sweep 6c): maximum/minimum and max(dim)
gradients under an inf upstream gradient, custom Functions defining vjp, circular padding of
empty tensors, where with a number beyond float32, roll with dims=(). torch's answers are written
out, so these run without torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

inf = float("inf")
nan = float("nan")


def _grads(fn, values, upstream, create_graph=False):
    xs = [mt.tensor(v, dtype=mt.float64, requires_grad=True) for v in values]
    out = fn(*xs)
    if isinstance(out, tuple):
        out = out[0]
    up = mt.tensor(upstream, dtype=mt.float64)
    grads = mt.autograd.grad(out, xs, up, create_graph=create_graph)
    return [g.detach().numpy() for g in grads]


# --- maximum / minimum / max(a, b): a selection, not a product with a mask ---

A = [1.0, 2.0, 3.0, nan, 5.0]
B = [2.0, 2.0, 1.0, 1.0, nan]
# torch 2.13's gradients (the loser +0., a tie halved, both inputs where either is NaN)
PAIR_CASES = [
    ("maximum", mt.maximum, [inf] * 5, [[0, inf, inf, inf, inf], [inf, inf, 0, inf, inf]]),
    ("minimum", mt.minimum, [inf] * 5, [[inf, inf, 0, inf, inf], [0, inf, inf, inf, inf]]),
    ("max", mt.max, [inf] * 5, [[0, inf, inf, inf, inf], [inf, inf, 0, inf, inf]]),
    ("min", mt.min, [inf] * 5, [[inf, inf, 0, inf, inf], [0, inf, inf, inf, inf]]),
    ("maximum", mt.maximum, [1.0] * 5, [[0, 0.5, 1, 1, 1], [1, 0.5, 0, 1, 1]]),
    ("minimum", mt.minimum, [-1.0] * 5, [[-1, -0.5, 0, -1, -1], [0, -0.5, -1, -1, -1]]),
]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,fn,upstream,expected", PAIR_CASES)
def test_maximum_minimum_gradient_selects(name, fn, upstream, expected, create_graph):
    ga, gb = _grads(fn, [A, B], upstream, create_graph)
    np.testing.assert_array_equal(ga, expected[0], err_msg=f"{name} grad a")
    np.testing.assert_array_equal(gb, expected[1], err_msg=f"{name} grad b")
    # the losers get +0. (torch's masked_fill), not -0.
    for g, want in zip((ga, gb), expected, strict=True):
        zeros = np.asarray(want) == 0
        assert not np.signbit(g[zeros]).any(), (name, g)


def test_distance_through_sqrt_of_maximum_has_no_nan_gradient():
    # sqrt(maximum(d2, 0)) with a slightly negative d2: the upstream gradient at 0 is inf
    for dtype in (mt.float32, mt.float64):
        d2 = mt.tensor([-1e-7, 0.25, 4.0], dtype=dtype, requires_grad=True)
        mt.sqrt(mt.maximum(d2, mt.zeros_like(d2))).sum().backward()
        assert d2.grad.dtype == dtype
        np.testing.assert_array_equal(d2.grad.numpy(), [0.0, 1.0, 0.25], err_msg=str(dtype))


def test_maximum_minimum_gradcheck():
    g = mt.Generator().manual_seed(0)
    a = mt.randn(3, 4, dtype=mt.float64, generator=g, requires_grad=True)
    b = mt.randn(4, dtype=mt.float64, generator=g, requires_grad=True)
    for fn in (mt.maximum, mt.minimum):
        assert gradcheck(fn, (a, b))
        assert gradgradcheck(fn, (a, b))


# --- max(dim) / min(dim): the gradient scattered into zeros ---

X = [[0.0, -1.0, 3.0, 3.0], [1.0, nan, 2.0, 0.0]]


@pytest.mark.parametrize("create_graph", [False, True])
def test_max_min_dim_gradient_is_zero_off_the_index_under_inf(create_graph):
    got = _grads(lambda x: x.max(dim=1), [X], [inf, inf], create_graph)[0]
    np.testing.assert_array_equal(got, [[0, 0, inf, 0], [0, inf, 0, 0]])
    got = _grads(lambda x: x.min(dim=1, keepdim=True), [X], [[inf], [inf]], create_graph)[0]
    np.testing.assert_array_equal(got, [[0, inf, 0, 0], [0, inf, 0, 0]])
    # a negative upstream gradient leaves +0. elsewhere (torch's scatter), not -0.
    got = _grads(lambda x: x.max(dim=1), [X], [-1.0, -2.0], create_graph)[0]
    np.testing.assert_array_equal(got, [[0, 0, -1, 0], [0, -2, 0, 0]])
    assert np.signbit(got).sum() == 2


def test_max_dim_gradcheck():
    x = mt.tensor([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]], dtype=mt.float64, requires_grad=True)
    for fn in (lambda t: t.max(dim=1)[0], lambda t: t.min(dim=0, keepdim=True)[0]):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


# --- a custom Function may define vjp instead of backward ---


class _VjpExp(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def vjp(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_custom_function_vjp_is_its_backward():
    x = mt.tensor([0.0, 1.0], requires_grad=True)
    _VjpExp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    y = _VjpExp.apply(x)
    got = y.grad_fn.apply(mt.ones(2)).detach().numpy()
    np.testing.assert_allclose(got, np.exp([0.0, 1.0]), rtol=1e-6)


def test_custom_function_vjp_in_subclasses():
    class Inherits(_VjpExp):
        pass

    class Overrides(_VjpExp):
        @staticmethod
        def vjp(ctx, g):
            return g * 7

    class AddsBackward(_VjpExp):
        @staticmethod
        def backward(ctx, g):
            return g * 9

    x = mt.tensor([0.0, 0.0], requires_grad=True)
    Inherits.apply(x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    x.grad = None
    Overrides.apply(x).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        AddsBackward.apply(x).grad_fn.apply(mt.ones(2))


def test_custom_function_without_backward_or_vjp_raises():
    class Neither(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = mt.ones(2, requires_grad=True)
    msg = "backward or vjp method for your custom autograd.Function to use it with backward mode"
    with pytest.raises(NotImplementedError, match=msg):
        Neither.apply(x).sum().backward()
    assert mt.autograd.Function.vjp is mt.autograd.Function.backward  # torch's alias


# --- F.pad(mode="circular") of tensors with a zero-size dim ---


@pytest.mark.parametrize(
    "shape,pad,expected",
    [
        ((1, 0, 3, 4), (1, 1, 1, 1), (1, 0, 5, 6)),
        ((2, 0, 5), (1, 1), (2, 0, 7)),
        ((1, 1, 0), (0, 0), (1, 1, 0)),
        ((0, 5), (1, 1), (0, 7)),
        ((1, 1, 3, 0), (0, 0, 1, 1), (1, 1, 5, 0)),
        ((1, 0, 2, 2, 2), (1, 1, 1, 1, 1, 1), (1, 0, 4, 4, 4)),
        ((2, 0, 3), (-1, 0), (2, 0, 2)),
        ((1, 2, 3), (-1, -2), (1, 2, 0)),
    ],
)
def test_circular_pad_of_empty_tensors(shape, pad, expected):
    x = mt.zeros(shape, requires_grad=True)
    y = mt.nn.functional.pad(x, pad, mode="circular")
    assert tuple(y.shape) == expected
    y.sum().backward()
    assert tuple(x.grad.shape) == shape


def test_circular_pad_errors_of_empty_results():
    pad = mt.nn.functional.pad
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        pad(mt.zeros(1, 1, 0), (1, 1), mode="circular")
    for shape, p in [((1, 2, 0), (0, -1)), ((1, 2, 3), (-4, 0)), ((1, 2, 3, 4), (0, 0, -2, -2))]:
        with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty"):
            pad(mt.zeros(shape), p, mode="circular")
    # every dim's wrap-around check comes first, as torch's
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        pad(mt.zeros(1, 2, 3, 3), (0, -9, 5, 0), mode="circular")
    # reflect and replicate keep their check of empty dims
    with pytest.raises(RuntimeError, match="other non-zero dimensions"):
        pad(mt.zeros(2, 0, 5), (1, 1), mode="reflect")


# --- where with a Python number beyond float32 ---


def test_where_number_overflowing_float32_raises():
    c = mt.tensor([True, False])
    msg = "value cannot be converted to type float without overflow"
    for call in (
        lambda: mt.where(c, mt.tensor([1.0, 2.0]), 1e300),
        lambda: mt.where(c, -1e300, mt.tensor([1.0, 2.0])),
        lambda: mt.where(c, mt.tensor([1.0, 2.0]), 3.41e38),
        lambda: mt.where(c, mt.tensor([1, 2]), 1e300),  # an int tensor: a float32 result
        lambda: mt.where(c, 1e300, 1.0),
    ):
        with pytest.raises(RuntimeError, match=msg):
            call()
    # in range, inf and nan, float64, and the half types (torch gives inf there) are kept
    assert mt.where(c, mt.tensor([1.0, 2.0]), 7e4).tolist() == [1.0, 70000.0]
    assert mt.where(c, mt.tensor([1.0, 2.0]), inf).tolist() == [1.0, inf]
    assert mt.where(c, mt.tensor([1.0, 2.0], dtype=mt.float64), 1e300).tolist() == [1.0, 1e300]
    half = mt.where(c, mt.tensor([1.0, 2.0], dtype=mt.float16), 7e4)
    assert half.dtype == mt.float16 and half.tolist() == [1.0, inf]


# --- roll with dims=() rolls the flattened tensor, as dims=None ---


def test_roll_with_empty_dims_rolls_flattened():
    x = mt.arange(6).view(2, 3)
    for shifts, dims in [(1, ()), ((1,), ()), (1, []), (-7, ())]:
        want = np.roll(np.arange(6), shifts).reshape(2, 3).tolist()
        assert mt.roll(x, shifts, dims).tolist() == want, (shifts, dims)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:0"):
        mt.roll(x, (1, 2), ())
    assert mt.roll(mt.tensor(5.0), 1, ()).tolist() == 5.0
    y = mt.arange(6.0).view(2, 3).requires_grad_()
    r = y.roll(2, ())
    assert type(r.grad_fn).__name__ == "RollBackward0"
    r.backward(mt.arange(6.0).view(2, 3))
    assert y.grad.tolist() == [[2.0, 3.0, 4.0], [5.0, 0.0, 1.0]]
