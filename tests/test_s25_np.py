"""Session 25, helper "np": what porting NumPy programs to minitorch found different from torch
2.13 (values and messages below were read from torch): x[i] = NumPy scalar, torch.gradient's
spacing checks, histc's bins check, and the type names of NumPy objects in TypeErrors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

# --- x[key] = a NumPy object --------------------------------------------------------------


@pytest.mark.parametrize(
    "value, name",
    [
        (np.float32(2.0), "numpy.float32"),
        (np.float16(2.0), "numpy.float16"),
        (np.bool_(True), "numpy.bool"),
        (np.longdouble(2.0), "numpy.longdouble"),
        (np.array(2.0), "numpy.ndarray"),
        (np.array(2), "numpy.ndarray"),
        (np.array([1.0, 2.0]), "numpy.ndarray"),
    ],
)
@pytest.mark.parametrize(
    "dtype, tname", [(mt.float32, "torch.FloatTensor"), (mt.int64, "torch.LongTensor")]
)
def test_setitem_refuses_numpy_objects_torch_refuses(value, name, dtype, tname):
    x = mt.zeros(3, dtype=dtype)
    for key in (0, slice(0, 2), [0, 1], mt.tensor([True, False, True]), Ellipsis):
        with pytest.raises(TypeError, match=f"^can't assign a {name} to a {tname}$"):
            x[key] = value
    assert x.tolist() == [0, 0, 0]


def test_setitem_takes_numpy_ints_and_float64_only():
    # np.float64 is a Python float, NumPy's integers have __index__: torch takes these
    x = mt.zeros(4)
    with pytest.raises(TypeError, match="^can't assign a numpy.float32 to a torch.FloatTensor$"):
        x[0] = np.float32(1.5)
    x[0] = np.float64(1.5)
    x[1] = np.int32(3)
    x[mt.tensor([False, False, True, False])] = np.uint8(7)
    x[[3]] = np.int64(-2)
    assert x.tolist() == [1.5, 3.0, 7.0, -2.0]
    i = mt.zeros(2, dtype=mt.int8)
    i[:] = np.int16(5)
    assert i.tolist() == [5, 5]


# --- torch.gradient's spacing -------------------------------------------------------------

_NO_DIM = (
    "torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
    "'self.dim() = {}', since dim argument was not given, but got a list of length {}"
)
_DIM = (
    "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
    "arguments to have the same length, but got a spacing argument of length {} and a dim "
    "argument of length {}."
)


@pytest.mark.parametrize(
    "shape, kwargs, message",
    [
        ((3, 4), {"spacing": [1.0, 2.0, 3.0]}, _NO_DIM.format(2, 3)),
        ((1, 4), {"spacing": [1.0, 2.0, 3.0]}, _NO_DIM.format(2, 3)),  # before the size check
        ((3, 4), {"spacing": [1.0, 2.0, 3.0], "edge_order": 3}, _NO_DIM.format(2, 3)),
        ((), {"spacing": [1.0, 2.0]}, _NO_DIM.format(0, 2)),
        ((3, 4), {"spacing": (mt.arange(3.0),)}, _NO_DIM.format(2, 1)),
        ((1, 4), {"spacing": [1.0, 2.0, 3.0], "dim": (0, 1)}, _DIM.format(3, 2)),
        ((3, 4), {"spacing": [1.0, 2.0, 3.0], "dim": (0, 0)}, _DIM.format(3, 2)),
        ((3, 4), {"spacing": [1.0, 2.0, 3.0], "dim": 5}, _DIM.format(3, 1)),
        ((3, 4), {"spacing": [1.0, 2.0, 3.0], "dim": (0, 1), "edge_order": 3}, _DIM.format(3, 2)),
    ],
)
def test_gradient_spacing_count_checked_first(shape, kwargs, message):
    with pytest.raises(RuntimeError) as e:
        mt.gradient(mt.ones(shape), **kwargs)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "spacing, message",
    [
        ([mt.ones(3), 2.0], "expected Tensor as element 1 in argument 1, but got float"),
        ([1.0, mt.ones(4)], "expected Tensor as element 0 in argument 1, but got float"),
        ((mt.ones(3), None), "expected Tensor as element 1 in argument 1, but got NoneType"),
        ([1.0, None], "expected Tensor as element 0 in argument 1, but got float"),
        ([1, "a"], "expected Tensor as element 0 in argument 1, but got int"),
    ],
)
def test_gradient_spacing_list_of_one_kind(spacing, message):
    for dtype in (mt.float32, mt.uint8):  # (the argument parser runs before the dtype check)
        with pytest.raises(TypeError) as e:
            mt.gradient(mt.ones(3, 4, dtype=dtype), spacing=spacing)
        assert str(e.value) == message


def test_gradient_uint8_before_spacing_and_edge_order():
    x = mt.ones(3, 4, dtype=mt.uint8)
    for kwargs in ({"spacing": [1.0, 2.0, 3.0]}, {"edge_order": 3}):
        with pytest.raises(RuntimeError, match="^torch.gradient does not support uint8 input.$"):
            mt.gradient(x, **kwargs)


def test_gradient_spacing_lists_of_numbers_or_tensors():
    f = mt.arange(12.0, dtype=mt.float64).reshape(3, 4) ** 2
    with pytest.raises(TypeError, match="^expected Tensor as element 1 in argument 1, but got"):
        mt.gradient(f, spacing=[mt.ones(3, dtype=mt.float64), 1.0])
    g0, g1 = mt.gradient(f, spacing=[1, 2.5])
    assert g0[:, 0].tolist() == [16.0, 32.0, 48.0]
    assert g1[0].tolist() == [0.4, 0.8, 1.6, 2.0]
    (g,) = mt.gradient(f, spacing=(mt.tensor([0.0, 1.0, 3.0], dtype=mt.float64),), dim=0)
    assert g[:, 1].tolist() == [24.0, 25.333333333333336, 28.0]


# --- histc's bins -------------------------------------------------------------------------


@pytest.mark.parametrize("bins", [0, -1])
@pytest.mark.parametrize("data", [[1.0, 2.0], [float("nan"), 2.0], [1, 2]])
def test_histc_bins_message_before_dtype_and_range(bins, data):
    # torch's CPU histc runs histogram's checks: an int tensor gets the bins error first
    message = f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0"
    for kwargs in ({}, {"min": 3, "max": 1}):
        with pytest.raises(RuntimeError) as e:
            mt.histc(mt.tensor(data), bins=bins, **kwargs)
        assert str(e.value) == message


# --- NumPy arrays where torch wants a tensor ----------------------------------------------


_A = np.array([0, 1])


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda t: mt.maximum(t, _A), TypeError,
         "maximum(): argument 'other' (position 2) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.matmul(t[:2], _A), TypeError,
         "matmul(): argument 'other' (position 2) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.dot(t[:2], _A), TypeError,
         "dot(): argument 'tensor' (position 2) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.take_along_dim(t, _A), TypeError,
         "take_along_dim(): argument 'indices' (position 2) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.nn.functional.embedding(_A, t[:, None]), TypeError,
         "embedding(): argument 'indices' (position 2) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.reshape(_A, (2, 1)), TypeError,
         "reshape(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.tile(_A, (2,)), TypeError,
         "tile(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.chunk(_A, 2), TypeError,
         "chunk(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.unbind(_A), TypeError,
         "unbind(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.broadcast_to(_A, (2, 2)), TypeError,
         "broadcast_to(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.as_strided(_A, (1,), (1,)), TypeError,
         "as_strided(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.unflatten(_A, 0, (2, 1)), TypeError,
         "unflatten(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.index_select(_A, 0, mt.tensor([0])), TypeError,
         "index_select(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda t: mt.cartesian_prod(_A, _A), TypeError,
         "expected Tensor as element 0 in argument 0, but got numpy.ndarray"),
        (lambda t: mt.cartesian_prod(t, _A), TypeError,
         "expected Tensor as element 1 in argument 0, but got numpy.ndarray"),
        (lambda t: mt.split(_A, 1), AttributeError,
         "'numpy.ndarray' object has no attribute 'split'"),
        (lambda t: mt.norm(_A), AttributeError,
         "'numpy.ndarray' object has no attribute 'layout'"),
    ],
)  # fmt: skip
def test_numpy_array_arguments_named_as_torch_names_them(call, exc, message):
    with pytest.raises(exc) as e:
        call(mt.arange(4.0))
    assert str(e.value).split("\n")[0] == message


def test_result_type_names_ndarray():
    with pytest.raises(TypeError) as e:
        mt.result_type(mt.ones(1), np.ones(1))
    assert str(e.value).startswith(
        "result_type() received an invalid combination of arguments - got (Tensor, "
        "numpy.ndarray), but expected one of:"
    )
