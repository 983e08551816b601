"""Integer ops and small error paths (torch 2.13's values, types and messages): size mismatches
of fmod/gcd/lcm/chebyshev, integer division by zero with an empty result, repeat_interleave's
size checks, median of an empty integer tensor, ldexp of an integer input, fold's grid check."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

_MISMATCH = (
    r"The size of tensor a \(3\) must match the size of tensor b \(5\) at non-singleton dimension 1"
)


@pytest.mark.parametrize(
    "op",
    [
        torch.fmod,
        torch.gcd,
        torch.lcm,
        torch.special.chebyshev_polynomial_t,
        torch.remainder,
        torch.floor_divide,
    ],
)
def test_binary_size_mismatch_is_torchs_runtime_error(op):
    a = torch.arange(6).reshape(2, 3)
    b = torch.arange(1, 6)
    if op is torch.special.chebyshev_polynomial_t:
        a = a.float()
    with pytest.raises(RuntimeError, match=_MISMATCH):
        op(a, b)


@pytest.mark.parametrize(
    "op",
    [
        torch.fmod,
        torch.remainder,
        torch.floor_divide,
        lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    ],
)
def test_zero_divisor_with_mismatched_shapes_reports_the_shapes(op):
    # torch checks the shapes before it divides: the size error, not ZeroDivisionError
    with pytest.raises(RuntimeError, match=_MISMATCH):
        op(torch.ones(2, 3, dtype=torch.int64), torch.zeros(5, dtype=torch.int64))


def _empty(*shape, dtype=torch.int64):
    return torch.zeros(shape, dtype=dtype)


@pytest.mark.parametrize(
    "fn, shape, dtype",
    [
        (lambda: _empty(0) // 0, (0,), torch.int64),
        (lambda: _empty(0) % 0, (0,), torch.int64),
        (lambda: torch.fmod(_empty(0), 0), (0,), torch.int64),
        (lambda: torch.fmod(_empty(0), torch.tensor(0)), (0,), torch.int64),
        (lambda: torch.remainder(_empty(0, 3), torch.tensor([0])), (0, 3), torch.int64),
        (lambda: torch.div(_empty(0), 0, rounding_mode="trunc"), (0,), torch.int64),
        (
            lambda: torch.div(_empty(0), torch.tensor(0), rounding_mode="floor"),
            (0,),
            torch.int64,
        ),
        (lambda: _empty(0, 3, dtype=torch.uint8).floor_divide_(2**31), (0, 3), torch.uint8),
        (lambda: _empty(0, dtype=torch.int8).remainder_(torch.tensor([0])), (0,), torch.int8),
        (lambda: _empty(0, dtype=torch.int8).fmod_(torch.tensor(0)), (0,), torch.int8),
        (
            lambda: _empty(0, dtype=torch.int8).div_(torch.tensor([0]), rounding_mode="floor"),
            (0,),
            torch.int8,
        ),
        (lambda: _empty(0, dtype=torch.int8) % 256, (0,), torch.int8),
        (lambda: _empty(0, 1) % _empty(1, 3), (0, 3), torch.int64),
    ],
)
def test_integer_division_by_zero_with_empty_result(fn, shape, dtype):
    out = fn()
    assert tuple(out.shape) == shape
    assert out.dtype is dtype


@pytest.mark.parametrize(
    "fn",
    [
        lambda: torch.tensor([1, 2]) // 0,
        lambda: torch.fmod(torch.tensor([1, 2]), torch.tensor([1, 0])),
        lambda: torch.tensor([1, 2]) % torch.tensor(0),
        lambda: torch.div(torch.tensor([[1], [2]]), torch.tensor([0]), rounding_mode="trunc"),
    ],
)
def test_integer_division_by_zero_with_elements_still_raises(fn):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        fn()


def test_empty_dividend_that_does_not_broadcast_reports_the_shapes():
    with pytest.raises(RuntimeError, match=r"tensor a \(0\) must match the size of tensor b \(3\)"):
        _empty(0, 2) // _empty(3, 1)


def test_repeat_interleave_huge_count_fails_at_once():
    # a count of 2**62 used to build a Python list of indices (hours); torch refuses the size
    with pytest.raises(
        RuntimeError,
        match=r"Storage size calculation overflowed with sizes=\[4611686018427387904\]",
    ):
        torch.repeat_interleave(torch.tensor([2**62]))
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed"):
        torch.repeat_interleave(torch.tensor([1, 2]), torch.tensor([3, 2**62]))
    # the counts add up in int64: three of 2**62 wrap to a negative size
    with pytest.raises(
        RuntimeError,
        match=r"negative dimension -4611686018427387904: \[-4611686018427387904\]",
    ):
        torch.repeat_interleave(torch.tensor([2**62] * 3))


def test_repeat_interleave_values_unchanged():
    assert torch.repeat_interleave(torch.tensor([1, 2]), 2).tolist() == [1, 1, 2, 2]
    out = torch.repeat_interleave(torch.tensor([2, 0, 3]))
    assert out.dtype is torch.int64 and out.tolist() == [0, 0, 2, 2, 2]
    out = torch.repeat_interleave(torch.tensor([2, 0, 3], dtype=torch.int32))
    assert out.dtype is torch.int32 and out.tolist() == [0, 0, 2, 2, 2]
    assert torch.repeat_interleave(torch.tensor([], dtype=torch.int64)).shape == (0,)
    x = torch.tensor([[1, 2], [3, 4]])
    assert torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0).tolist() == [
        [1, 2],
        [3, 4],
        [3, 4],
    ]
    assert torch.repeat_interleave(x, torch.tensor([3], dtype=torch.int32), dim=1).tolist() == [
        [1, 1, 1, 2, 2, 2],
        [3, 3, 3, 4, 4, 4],
    ]
    w = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = torch.repeat_interleave(w, torch.tensor([1, 0, 2]), dim=0)
    assert y.tolist() == [1.0, 3.0, 3.0]
    assert gradcheck(lambda t: torch.repeat_interleave(t, torch.tensor([1, 0, 2]), dim=0), (w,))
    assert gradgradcheck(lambda t: torch.repeat_interleave(t, torch.tensor([2, 1, 0]), dim=0), (w,))


@pytest.mark.parametrize(
    "dtype, expected",
    [
        (torch.int8, 0),
        (torch.uint8, 0),
        (torch.int16, 0),
        (torch.int32, -(2**31)),
        (torch.int64, -(2**63)),
        (torch.bool, True),
    ],
)
@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("shape", [(0,), (2, 0)])
def test_median_of_empty_integer_tensor_is_nan_cast(op, dtype, expected, shape):
    # torch's NaN converted to the dtype, as its CPU cast does
    out = getattr(torch.zeros(shape, dtype=dtype), op)()
    assert out.dtype is dtype and out.shape == ()
    assert out.item() == expected


def test_median_of_empty_float_tensor_still_nan():
    assert math.isnan(torch.zeros(0).median().item())


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_bool_errors_in_torchs_order(op):
    # along an empty dim: the IndexError (naming median for both), before the bool refusal
    with pytest.raises(IndexError, match=r"^median\(\): Expected reduction dim 0 to have non-zero"):
        getattr(torch.zeros(0, dtype=torch.bool), op)(0)
    with pytest.raises(IndexError, match=r"^median\(\): Expected reduction dim 1 to have non-zero"):
        getattr(torch.zeros(2, 0, dtype=torch.int64), op)(1)
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        getattr(torch.zeros(2, 0, dtype=torch.bool), op)(0)
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        getattr(torch.tensor([True, False]), op)()


def test_median_of_empty_dim_form_values_and_indices():
    values, indices = torch.zeros(2, 0, dtype=torch.int64).median(0)
    assert values.shape == (0,) and values.dtype is torch.int64
    assert indices.shape == (0,) and indices.dtype is torch.int64


def test_ldexp_integer_input_multiplies_by_power_in_float():
    # input * 2 ** other in the default float dtype: 0 * 2**255 = 0 * inf = nan
    out = torch.ldexp(
        torch.tensor([0, 3], dtype=torch.int16), torch.tensor([255, -1], dtype=torch.int16)
    )
    assert out.dtype is torch.float32
    np.testing.assert_array_equal(out.numpy(), np.array([np.nan, 1.5], dtype=np.float32))
    # the power flushes to 0 before the product: 3 * 2**-150 is 0, 3 * 2**-149 is not
    out = torch.ldexp(
        torch.tensor([3, 3, 0, 1], dtype=torch.uint8),
        torch.tensor([-150, -149, 127, 128], dtype=torch.int16),
    )
    expected = np.array([0.0, 3 * 2.0**-149, 0.0, np.inf], dtype=np.float32)
    np.testing.assert_array_equal(out.numpy(), expected)
    # an int64 exponent past int32 is not wrapped (as C's ldexp would): 2 ** (2**31 + 5) = inf
    out = torch.ldexp(torch.tensor([0, 3], dtype=torch.int32), torch.tensor([2**31 + 5, 2]))
    np.testing.assert_array_equal(out.numpy(), np.array([np.nan, 12.0], dtype=np.float32))
    # a bool exponent is taken for an integer input (only a float input refuses it)
    out = torch.ldexp(torch.tensor([0, 3, 1], dtype=torch.int8), torch.tensor([True, False, True]))
    assert out.tolist() == [0.0, 3.0, 2.0]
    with pytest.raises(NotImplementedError, match="\"ldexp_cpu_exp\" not implemented for 'Bool'"):
        torch.ldexp(torch.tensor([1.0, 2.0]), torch.tensor([True, False]))


def test_ldexp_integer_input_in_float64_default():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        out = torch.ldexp(torch.tensor([0, 3, 3]), torch.tensor([255, -150, 1100]))
    finally:
        torch.set_default_dtype(old)
    assert out.dtype is torch.float64
    np.testing.assert_array_equal(out.numpy(), np.array([0.0, 3 * 2.0**-150, np.inf]))


def test_ldexp_float_input_unchanged():
    out = torch.ldexp(torch.tensor([0.0, 1.0]), torch.tensor([255, 255]))
    np.testing.assert_array_equal(out.numpy(), np.array([0.0, np.inf], dtype=np.float32))
    x = torch.tensor([0.5, -1.25, 3.0], dtype=torch.float64, requires_grad=True)
    e = torch.tensor([3, -2, 0])
    assert gradcheck(lambda t: torch.ldexp(t, e), (x,))
    assert gradgradcheck(lambda t: torch.ldexp(t, e), (x,))


def test_fold_non_positive_block_grid():
    # the grid (-1, -1) has the product 1, which matches input.size(2) = 1: torch's own check
    msg = (
        "Given output_size=(3, 3), kernel_size=(3, 3), dilation=(2, 2), padding=(0, 0), "
        "stride=(1, 1), calculated shape of the array of sliding blocks as (-1, -1), which is "
        "too small (non-positive)"
    )
    with pytest.raises(RuntimeError) as e:
        torch.nn.Fold(output_size=3, kernel_size=3, dilation=2)(torch.ones(2, 9, 1))
    assert str(e.value) == msg
    with pytest.raises(RuntimeError) as e:
        torch.nn.functional.fold(torch.ones(9, 1), 3, 3, dilation=2)
    assert str(e.value) == msg
    # a count mismatch is reported first, as torch
    with pytest.raises(
        RuntimeError, match=r"sliding blocks -1 \* -1 = 1, but got input.size\(2\)=4"
    ):
        torch.nn.functional.fold(torch.ones(2, 9, 4), 3, 3, dilation=2)


def test_fold_valid_grid_unchanged():
    x = torch.arange(1.0, 9.0, dtype=torch.float64).reshape(1, 4, 2)
    out = torch.nn.functional.fold(x, (2, 3), 2)
    expected = np.array([[[[1.0, 2.0 + 3.0, 4.0], [5.0, 6.0 + 7.0, 8.0]]]])
    np.testing.assert_allclose(out.numpy(), expected, err_msg="fold of a 1 x 2 grid")
