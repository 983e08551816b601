"""Session 29 (helper climate): torch-free checks of the library fix the climate programs of
tests/reference/test_s29_climate_reference.py found (quantile's argument errors for a dim given
as a tuple or list, the way xarray's reductions take dims), and of a few NaN-aware building
blocks they lean on. The values and messages are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_FORMS = (
    " * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "
    '"linear", Tensor out = None)\n'
    " * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "
    '"linear", Tensor out = None)\n'
)
_METHOD_FORMS = (
    ' * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
    ' * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
)


def _msg(op, got, forms=_FORMS):
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{forms}"
    )


def _type_error(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


X = mt.tensor([[1.0, 2.0, 3.0]])


def test_quantile_dim_tuple_positional():
    assert _type_error(lambda: mt.quantile(X, 0.5, (0, 1))) == _msg(
        "quantile", "Tensor, float, tuple"
    )


def test_quantile_dim_tuple_keyword():
    assert _type_error(lambda: mt.quantile(X, 0.5, dim=(0, 1))) == _msg(
        "quantile", "Tensor, float, dim=tuple"
    )


def test_nanquantile_dim_list_and_keepdim_keywords():
    got = _type_error(lambda: mt.nanquantile(X, 0.5, dim=[0, 1], keepdim=True))
    assert got == _msg("nanquantile", "Tensor, float, keepdim=bool, dim=list")
    got = _type_error(lambda: mt.nanquantile(X, mt.tensor([0.5]), [0], True))
    assert got == _msg("nanquantile", "Tensor, Tensor, list, bool")


def test_quantile_float_dim_with_interpolation():
    got = _type_error(lambda: mt.quantile(X, 0.5, 1.0, interpolation="lower"))
    assert got == _msg("quantile", "Tensor, float, float, interpolation=str")


def test_quantile_method_forms_leave_out_self():
    assert _type_error(lambda: X.quantile(0.5, dim=(0, 1))) == _msg(
        "quantile", "float, dim=tuple", _METHOD_FORMS
    )
    assert _type_error(lambda: X.quantile(0.5, 0, 1)) == _msg(
        "quantile", "float, int, int", _METHOD_FORMS
    )
    assert _type_error(lambda: X.quantile([0.5])) == _msg("quantile", "list", _METHOD_FORMS)


def test_quantile_int_like_dims_still_work():
    assert mt.quantile(X, 0.5, mt.tensor(1)).tolist() == [2.0]
    assert mt.quantile(X, 0.5, np.int64(1), True).tolist() == [[2.0]]


def test_nan_aware_reductions():
    x = mt.tensor([[1.0, float("nan"), 3.0, 4.0], [2.0, 1.0, float("nan"), float("nan")]])
    np.testing.assert_allclose(mt.nanmean(x, 1).numpy(), [2.6666667, 1.5], rtol=1e-6)
    med = mt.nanmedian(x, 1)
    assert med.values.tolist() == [3.0, 1.0] and med.indices.tolist() == [2, 1]
    q = mt.nanquantile(x, mt.tensor([0.3, 0.8]), dim=1, interpolation="nearest")
    assert q.tolist() == [[3.0, 1.0], [4.0, 2.0]]  # (q, row)
    assert mt.nanquantile(x, 0.5, dim=1, interpolation="midpoint").tolist() == [3.0, 1.5]


def test_number_mod_tensor_has_no_derivative():
    # a phase from a period tensor: 7.5 % period. torch has no derivative for a number's
    # remainder by a tensor: the result requires grad, its grad_fn is NotImplemented and its
    # backward raises (a tensor on the left keeps RemainderBackward1)
    period = mt.tensor([0.5, 2.0, 4.0], dtype=mt.float64, requires_grad=True)
    for y in (7.5 % period, mt.remainder(7.5, period)):
        assert y.tolist() == [0.0, 1.5, 3.5]
        assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="^derivative for aten::remainder is not impl"):
            y.sum().backward()
    z = mt.remainder(mt.tensor(7.5, dtype=mt.float64), period)
    assert type(z.grad_fn).__name__ == "RemainderBackward1"
    z.sum().backward()
    assert period.grad.tolist() == [-15.0, -3.0, -1.0]
    assert (7 % mt.tensor([5, 6], dtype=mt.uint8)).tolist() == [2, 1]


def test_number_mod_tensor_takes_no_out():
    x = mt.tensor([1.0, 2.0])
    forms = (
        " * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other)\n"
        " * (Tensor input, Number other, *, Tensor out = None)\n"
    )
    got = _type_error(lambda: mt.remainder(3, x, out=mt.empty(2)))
    assert got == _msg("remainder", "int, Tensor, out=Tensor", forms)
    got = _type_error(lambda: mt.remainder(3, other=x, out=mt.empty(2)))
    assert got == _msg("remainder", "int, out=Tensor, other=Tensor", forms)
