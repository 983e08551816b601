"""Pointwise and activation results against torch 2.13's behaviour: sign of a bool tensor into
out=, clamp's result type over all three tensors, float16/bfloat16 div with rounding_mode (the
quotient rounded to the half dtype first), nextafter's gradient, out= for gelu/softplus/
logsigmoid/softshrink, isin's element=/test_element= keywords, sum_to_size(()), torch.resize_as_
and the op named by the out= autograd error. Expected values were printed by torch for the same
calls."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

F = minitorch.nn.functional
_OUT_GRAD = "functions with out=... arguments don't support automatic differentiation"


def test_sign_bool_writes_out():
    o = minitorch.zeros(2, dtype=minitorch.bool)
    r = minitorch.sign(minitorch.tensor([True, False]), out=o)
    assert r is o
    assert o.tolist() == [True, False]
    with pytest.raises(RuntimeError, match="Found dtype Float but expected Bool"):
        minitorch.sign(minitorch.tensor([True, False]), out=minitorch.zeros(2))


def _t(values, dtype=None):
    return minitorch.tensor(values, dtype=dtype)


_F16 = minitorch.float16


@pytest.mark.parametrize(
    "call, dtype",
    [
        (lambda: minitorch.clamp(_t(-8), _t([[1.5, -2.0]]), _t([[3.0, 4.0]], _F16)), "float32"),
        (lambda: minitorch.clip(_t(-8), _t([[1.5, -2.0]]), _t([[3.0, 4.0]], _F16)), "float32"),
        (lambda: _t(-8).clamp(_t([[1.5, -2.0]]), _t([[3.0, 4.0]], _F16)), "float32"),
        (lambda: _t(-8).clip(_t([[1.5, -2.0]]), _t([[3.0, 4.0]], _F16)), "float32"),
        (
            lambda: minitorch.clamp(_t(-8.0, _F16), _t([[1.5, -2.0]]), _t([[3.0, 4.0]], _F16)),
            "float32",
        ),
        # a dim int8 input, a 0-d float64 min and a dim float16 max: float16 (dims win)
        (
            lambda: minitorch.clamp(
                _t([[1, 2]], minitorch.int8), _t(0.5, minitorch.float64), _t([[1.0, 2.0]], _F16)
            ),
            "float16",
        ),
        # a 0-d tensor with a number: torch's Number overload, the tensor counts as a number
        (lambda: minitorch.clamp(_t([1, 2]), _t(1.5, minitorch.float64), 3), "float32"),
        (lambda: minitorch.clamp(_t(1), 1, _t(1.5, minitorch.float64)), "float32"),
    ],
)
def test_clamp_result_type_over_all_operands(call, dtype):
    assert call().dtype is getattr(minitorch, dtype)


_HALF_DIV = {
    "float16": (
        [56.0625, -49.4375, 44.96875, 57.875, -61.4375, -3.775390625, 82.9375],
        [0.0153121948, 0.64208984375, -0.599609375, 0.301513671875, 0.0194549561,
         -0.0013103485, 0.0469970703125],
        [3662.0, -77.0, -75.0, 192.0, -3158.0, 2882.0, 1765.0],
        [3662.0, -77.0, -75.0, 191.0, -3156.0, 2882.0, 1763.0],
    ),
    "bfloat16": (
        [-30.75, -15.5625, 25.75, -8.5625, 34.25, 18.125, -16.125, -58.5],
        [1.140625, -0.22265625, -0.5859375, -0.23828125, -0.11669921875, 0.042236328125,
         -0.08544921875, -0.484375],
        [-27.0, 70.0, -44.0, 36.0, -294.0, 430.0, 189.0, 121.0],
        [-27.0, 69.0, -44.0, 35.0, -296.0, 430.0, 189.0, 119.0],
    ),
}  # fmt: skip


@pytest.mark.parametrize("dt", sorted(_HALF_DIV))
def test_half_rounded_division_rounds_the_quotient_first(dt):
    a, b, trunc, floor = _HALF_DIV[dt]
    dtype = getattr(minitorch, dt)
    a, b = _t(a).to(dtype), _t(b).to(dtype)
    got = {
        "trunc": minitorch.div(a, b, rounding_mode="trunc"),
        "floor": minitorch.div(a, b, rounding_mode="floor"),
        "floor_divide": minitorch.floor_divide(a, b),
        "//": a // b,
    }
    for name, r in got.items():
        assert r.dtype is dtype, name
        want = trunc if name == "trunc" else floor
        np.testing.assert_array_equal(r.float().numpy(), want, err_msg=name)


def test_half_rounded_division_scalar_operands():
    # a number dividend is rounded to float16 first; a 0-d float32 divisor is read in float32
    a = _t([-0.044525146484375, 0.152099609375], _F16)
    for mode in ("trunc", "floor"):
        r = minitorch.div(7.3, a, rounding_mode=mode)
        np.testing.assert_array_equal(r.float().numpy(), [-164.0, 48.0], err_msg=mode)
    a = _t([-60.90625, -49.5, 51.0], _F16)
    d = _t(0.3)
    np.testing.assert_array_equal(
        minitorch.div(a, d, rounding_mode="trunc").float().numpy(), [-203.0, -165.0, 170.0]
    )
    for r in (minitorch.div(a, d, rounding_mode="floor"), a // d, minitorch.floor_divide(a, d)):
        assert r.dtype is _F16
        np.testing.assert_array_equal(r.float().numpy(), [-204.0, -165.0, 169.0])


def test_nextafter_gradient_zero_where_input_equals_other():
    a = _t([1.0, 2.0, 3.0, float("inf"), 0.0], minitorch.float64).requires_grad_()
    o = _t([[1.0], [3.0]], minitorch.float64).requires_grad_()
    g = minitorch.arange(10.0, dtype=minitorch.float64).view(2, 5)
    ga, go = minitorch.autograd.grad(minitorch.nextafter(a, o), (a, o), g)
    np.testing.assert_array_equal(ga.numpy(), [5.0, 7.0, 2.0, 11.0, 13.0])
    np.testing.assert_array_equal(go.numpy(), [[0.0], [0.0]])
    x = _t([1.0, 2.0, float("nan"), 0.0]).requires_grad_()
    (gx,) = minitorch.autograd.grad(
        minitorch.nextafter(x, _t([float("nan"), 2.0, 1.0, -0.0])).sum(), x
    )
    np.testing.assert_array_equal(gx.numpy(), [1.0, 0.0, 1.0, 0.0])


_ACTIVATIONS = {
    "gelu": (F.gelu, 13.461516380310059),
    "softplus": (F.softplus, 21.01218605041504),
    "logsigmoid": (F.logsigmoid, -5.012187480926514),
    "softshrink": (F.softshrink, 8.0),
}


@pytest.mark.parametrize("name", sorted(_ACTIVATIONS))
def test_activation_out(name):
    fn, total = _ACTIVATIONS[name]
    x = minitorch.ones(1, 1, 4, 4)
    o = minitorch.zeros(1, 1, 4, 4)
    assert fn(x, out=o) is o
    np.testing.assert_allclose(o.sum().item(), total, rtol=1e-6, err_msg=name)
    bad = (
        "expected scalar type Float but found Long"
        if name == "logsigmoid"
        else "Found dtype Long but expected Float"
    )
    with pytest.raises(RuntimeError, match=bad):
        fn(x, out=minitorch.zeros(1, 1, 4, 4, dtype=minitorch.int64))


def test_activation_out_checks():
    ints = minitorch.ones(3, dtype=minitorch.int64)
    # structured kernels check out's dtype before the input's
    for fn in (F.gelu, F.softplus, F.hardshrink):
        with pytest.raises(RuntimeError, match="Found dtype Float but expected Long"):
            fn(ints, out=minitorch.zeros(3))
    with pytest.raises(NotImplementedError, match="softshrink_check"):
        F.softshrink(ints, out=minitorch.zeros(3))
    x = minitorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^log_sigmoid_forward\(\): " + _OUT_GRAD):
        F.logsigmoid(x, out=minitorch.zeros(3))
    with pytest.raises(RuntimeError, match=r"^gelu\(\): " + _OUT_GRAD):
        F.gelu(x, out=minitorch.zeros(3))


@pytest.mark.parametrize(
    "op, call",
    [
        ("gather", lambda x, o: minitorch.gather(x, 0, _t([0]), out=o[:1])),
        ("add", lambda x, o: minitorch.add(x, 1, out=o)),
        ("sin", lambda x, o: minitorch.sin(x, out=o)),
        ("clamp", lambda x, o: minitorch.clip(x, 0, 1, out=o)),
        ("clamp_min", lambda x, o: minitorch.clamp_min(x, 0, out=o)),
        ("div", lambda x, o: minitorch.div(x, 2, rounding_mode="floor", out=o)),
        ("sort", lambda x, o: minitorch.sort(x, out=(o, minitorch.zeros(3).long()))),
    ],
)
def test_out_autograd_error_names_the_op(op, call):
    x = minitorch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=rf"^{op}\(\): {_OUT_GRAD}, but one of the arguments"):
        call(x, minitorch.zeros(3))


_ISIN_REFUSED = "isin() received an invalid combination of arguments - got ({}), but expected"


def test_isin_keyword_overloads():
    t = _t([1, 2, 3])
    assert minitorch.isin(element=2, test_elements=t).tolist() is True
    assert minitorch.isin(t, test_element=2).tolist() == [False, True, False]
    assert minitorch.isin(elements=t, test_element=2, invert=True).tolist() == [True, False, True]
    assert minitorch.isin(2, test_elements=t).tolist() is True
    assert minitorch.isin(t, test_element=_t(3)).tolist() == [False, False, True]
    o = minitorch.zeros(3, dtype=minitorch.bool)
    assert minitorch.isin(t, test_element=2, out=o) is o
    assert o.tolist() == [False, True, False]
    for kwargs, got in [
        # torch lists the keywords in the reverse of the order given
        (dict(elements=2, test_elements=t), "test_elements=Tensor, elements=int, "),
        (dict(test_elements=t, elements=2), "elements=int, test_elements=Tensor, "),
        (dict(element=t, test_elements=t), "test_elements=Tensor, element=Tensor, "),
    ]:
        with pytest.raises(TypeError) as e:
            minitorch.isin(**kwargs)
        assert str(e.value).startswith(_ISIN_REFUSED.format(got)), str(e.value)
    for args, kwargs, got in [
        ((t,), dict(test_elements=2), "Tensor, test_elements=int"),
        ((t,), dict(test_elements=2, invert=True), "Tensor, invert=bool, test_elements=int"),
        ((t,), {}, "Tensor"),
        ((t, "a"), {}, "Tensor, str"),
    ]:
        with pytest.raises(TypeError) as e:
            minitorch.isin(*args, **kwargs)
        assert str(e.value).startswith(_ISIN_REFUSED.format(got)), str(e.value)


@pytest.mark.parametrize(
    "x, value, dtype",
    [
        (lambda: _t(3), 3, "int64"),
        (lambda: _t([True, True]), 2, "int64"),
        (lambda: _t(True), 1, "int64"),
        (lambda: _t([[1.0, 2.0], [3.0, 4.0]]), 10.0, "float32"),
        (lambda: _t(2.5), 2.5, "float32"),
    ],
)
def test_sum_to_size_empty_is_a_full_sum(x, value, dtype):
    x = x()
    for size in ((), []):
        r = x.sum_to_size(size)
        assert r is not x
        assert r.shape == () and r.dtype is getattr(minitorch, dtype)
        assert r.item() == value
    g = x.float().requires_grad_()
    assert type(g.sum_to_size(()).grad_fn).__name__ == "SumBackward0"


def test_resize_as_is_exported():
    a = minitorch.zeros(2)
    assert minitorch.resize_as_(a, minitorch.ones(2, 3)) is a
    assert a.shape == (2, 3)
    assert minitorch.resize_as_(input=a, the_template=minitorch.ones(5)).shape == (5,)
    with pytest.raises(TypeError, match=r"argument 'the_template' \(position 2\) must be Tensor"):
        minitorch.resize_as_(a, [1])
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor"):
        minitorch.resize_as_([1], a)


def test_logsigmoid_out_resized_silently():
    # torch's log_sigmoid_forward resizes a wrong-shaped out without the deprecation warning
    o = minitorch.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.logsigmoid(minitorch.zeros(2, 2), out=o) is o
    assert o.shape == (2, 2)
    np.testing.assert_allclose(o.numpy(), np.full((2, 2), np.log(0.5)), rtol=1e-6)
