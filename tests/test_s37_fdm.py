"""Session 37 (helper fdm): torch-free regression tests of the library fixes the finite-difference
programs of tests/reference/test_s37_fdm_reference.py found: torch.gradient's parser TypeError
for arguments after input given by position, or no input, and for a spacing tensor that requires
grad; its Number-spacing formulas (integer inputs subtracted as integers, torch's
DivBackward1/MulBackward1 nodes); roll's TypeError for a tensor of several elements or a bool
as shifts/dims; trapezoid, trapz and cumulative_trapezoid refusing None for x or dx. torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


_GRADIENT_FORMS = (
    " * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)\n"
)


def _gradient_error(got):
    return (
        f"gradient() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_GRADIENT_FORMS}"
    )


def test_gradient_positional_arguments():
    f = mt.ones(4, 5)
    assert _message(TypeError, lambda: mt.gradient(f, 1.0)) == _gradient_error("Tensor, float")
    msg = _message(TypeError, lambda: mt.gradient(f, 1.0, 0))
    assert msg == _gradient_error("Tensor, float, int")
    msg = _message(TypeError, lambda: mt.gradient(f, 1.0, dim=0))
    assert msg == _gradient_error("Tensor, float, dim=int")
    msg = _message(TypeError, lambda: mt.gradient(f, [1.0, mt.ones(2)]))
    assert msg == _gradient_error("Tensor, list")
    assert _message(TypeError, lambda: mt.gradient()) == _gradient_error("")
    msg = _message(TypeError, lambda: mt.gradient(spacing=[1.0, mt.ones(2)]))
    assert msg == 'gradient() missing 1 required positional arguments: "input"'
    assert len(mt.gradient(input=f, spacing=2.0)) == 2


def test_gradient_spacing_tensor_requiring_grad():
    f = mt.ones(4, 5)
    sp = mt.tensor(2.0, requires_grad=True)
    msg = _message(TypeError, lambda: mt.gradient(f, spacing=sp, dim=0))
    assert msg == _gradient_error("Tensor, dim=int, spacing=Tensor")
    (g,) = mt.gradient(mt.arange(4.0) ** 2, spacing=mt.tensor(2.0))  # (no grad: a Number)
    np.testing.assert_allclose(g.numpy(), [0.5, 1.0, 2.0, 2.5])


def test_gradient_number_spacing_integers_and_nodes():
    big = mt.tensor([2**40 + 1, 2**40 + 3, 2**40 + 8, 2**40 + 9])
    (g,) = mt.gradient(big)
    assert g.dtype is mt.float32
    np.testing.assert_array_equal(g.numpy(), [2.0, 3.5, 3.0, 1.0])
    (g,) = mt.gradient(big, spacing=0.5)
    np.testing.assert_array_equal(g.numpy(), [4.0, 7.0, 6.0, 2.0])
    (g,) = mt.gradient(mt.tensor([1, 4, 9]), spacing=mt.tensor(0.5, dtype=mt.float64))
    assert g.dtype is mt.float32  # (a 0-d spacing is read as a Number: no float64)
    t = mt.randn(4, 5, generator=mt.Generator().manual_seed(0), requires_grad=True)
    for eo in (1, 2):
        out = mt.gradient(t, spacing=0.5, edge_order=eo)[1]
        names = [type(n).__name__ for n, _ in out.grad_fn.next_functions]
        assert names == ["DivBackward1"] * 3, names
    first = mt.gradient(t, spacing=0.5, edge_order=2)[1].grad_fn.next_functions[0][0]
    inner = {type(n).__name__ for n, _ in first.next_functions[0][0].next_functions}
    assert "MulBackward1" in inner, inner
    assert mt.autograd.gradcheck(
        lambda x: mt.gradient(x, spacing=0.3, edge_order=2), (t.detach().double().requires_grad_(),)
    )
    assert mt.autograd.gradgradcheck(
        lambda x: mt.gradient(x, spacing=0.3, edge_order=2), (t.detach().double().requires_grad_(),)
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda v: mt.roll(v, mt.tensor([1, 2]), (0, 1)),
            "roll(): argument 'shifts' (position 2) must be tuple of ints, not Tensor",
        ),
        (
            lambda v: mt.roll(v, (1, 2), mt.tensor([0, 1])),
            "roll(): argument 'dims' (position 3) must be tuple of ints, not Tensor",
        ),
        (
            lambda v: mt.roll(v, 1, mt.tensor(0.0)),
            "roll(): argument 'dims' (position 3) must be tuple of ints, not Tensor",
        ),
        (
            lambda v: mt.roll(v, 1, True),
            "roll(): argument 'dims' (position 3) must be tuple of ints, not bool",
        ),
        (
            lambda v: mt.roll(v, 1, dims=True),
            "roll(): argument 'dims' must be tuple of ints, not bool",
        ),
        (
            lambda v: v.roll(1, True),
            "roll(): argument 'dims' (position 2) must be tuple of ints, not bool",
        ),
        (
            lambda v: v.roll(mt.tensor([1, 1]), (0, 1)),
            "roll(): argument 'shifts' (position 1) must be tuple of ints, not Tensor",
        ),
    ],
)
def test_roll_refuses_tensor_and_bool_int_lists(call, message):
    assert _message(TypeError, lambda: call(mt.arange(12.0).view(3, 4))) == message


def test_roll_takes_one_element_integer_tensors():
    v = mt.arange(12.0).view(3, 4)
    np.testing.assert_array_equal(mt.roll(v, mt.tensor([1]), 0).numpy(), np.roll(v.numpy(), 1, 0))
    np.testing.assert_array_equal(mt.roll(v, 1, mt.tensor([1])).numpy(), np.roll(v.numpy(), 1, 1))


_TRAPEZOID_FORMS = (
    " * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"
)


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda y: mt.trapezoid(y, dx=None), "trapezoid() received an invalid combination of "
         "arguments - got (Tensor, dx=NoneType)"),
        (lambda y: mt.trapezoid(y, None), "trapezoid() received an invalid combination of "
         "arguments - got (Tensor, NoneType)"),
        (lambda y: mt.trapezoid(y, None, dx=2.0), "trapezoid() received an invalid combination "
         "of arguments - got (Tensor, NoneType, dx=float)"),
        (lambda y: mt.cumulative_trapezoid(y, None, dim=0), "cumulative_trapezoid() received an "
         "invalid combination of arguments - got (Tensor, NoneType, dim=int)"),
    ],
)  # fmt: skip
def test_trapezoid_refuses_none(call, got):
    msg = _message(TypeError, lambda: call(mt.ones(3)))
    assert msg == f"{got}, but expected one of:\n{_TRAPEZOID_FORMS}"


def test_trapz_refuses_none():
    msg = _message(TypeError, lambda: mt.trapz(mt.ones(3), x=None))
    assert msg == (
        "trapz() received an invalid combination of arguments - got (Tensor, x=NoneType), but "
        "expected one of:\n * (Tensor y, *, float dx = 1, int dim = -1)\n"
        " * (Tensor y, Tensor x, *, int dim = -1)\n"
    )
    y = mt.tensor([1.0, 2.0, 4.0])
    assert mt.trapz(y).item() == 4.5
    assert mt.trapezoid(y, dx=2.0).item() == 9.0
    np.testing.assert_array_equal(
        mt.cumulative_trapezoid(y, mt.tensor([0.0, 1.0, 3.0])), [1.5, 7.5]
    )


def test_diagflat_views_its_input_as_torch_does():
    d = mt.arange(6.0).view(2, 3).requires_grad_()
    for src in (d[0], d, d.t()):
        out = mt.diagflat(src, -1)
        names = [type(f).__name__ for f, _ in out.grad_fn.next_functions]
        assert names == ["ViewBackward0"], names
    np.testing.assert_array_equal(
        mt.diagflat(d.t(), 1).detach().numpy(), np.diagflat(d.t().detach().numpy(), 1)
    )
    msg = _message(TypeError, lambda: mt.diagflat([1.0, 2.0], 1.0))
    assert msg == "diagflat(): argument 'input' (position 1) must be Tensor, not list"
    assert mt.autograd.gradgradcheck(
        lambda x: mt.diagflat(x.t(), 2),
        (
            mt.rand(
                2, 3, generator=mt.Generator().manual_seed(1), dtype=mt.float64
            ).requires_grad_(),
        ),
    )
