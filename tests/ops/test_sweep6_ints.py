"""Sweep 6: dtype views (version counter, storage offsets, torch's checks), small-int and uint8
index tensors, and Python ints in [2**63, 2**64) with int64 tensors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment: >= 2**63
GOLDEN_I64 = GOLDEN - (1 << 64)  # as torch reads it for an int64 tensor


# --- view(dtype) ---


def test_write_through_dtype_view_invalidates_saved_tensor():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    w = mt.tensor([3.0, -4.0])
    out = (a * w).sum()  # saves w for a's gradient
    bits = w.view(mt.int32)
    bits ^= 1 << 31  # flips w's signs in place
    assert w.tolist() == [-3.0, 4.0]
    assert w._version == 1 and bits._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_dtype_view_is_an_alias_not_an_autograd_view():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    v = w.view(mt.int32)
    assert not v._is_view() and v._base is None
    assert not v.requires_grad and v.grad_fn is None
    v.add_(1)  # allowed on a leaf that requires grad (torch too): the int alias has no history
    assert w._version == 1
    # a non-leaf keeps its history; its gradient stays right for ops after the write
    a = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    y = a * 2
    y.view(mt.int64).zero_()
    (y * y).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0])
    # writes to the base show in the alias's version too
    x = mt.tensor([1.0, 2.0])
    u = x.view(mt.int16)
    x.add_(1)
    assert u._version == 1


def test_dtype_view_storage_offset_counts_in_new_elements():
    x = mt.arange(12, dtype=mt.int32).view(3, 4)
    v = x[1:, 2:].view(mt.int64)
    assert x[1:, 2:].storage_offset() == 6
    assert v.storage_offset() == 3 and v.stride() == (2, 1)
    assert v.tolist() == [[(7 << 32) + 6], [(11 << 32) + 10]]
    assert x[1:].view(mt.uint8).storage_offset() == 16
    f = mt.arange(8.0)
    assert f[2:].view(mt.int32)[1:].storage_offset() == 3  # views of the alias count on
    assert f[2:].view(mt.int16)[1:].storage_offset() == 5
    assert f.view(mt.int32).storage_offset() == 0
    y = mt.arange(24, dtype=mt.int32).view(2, 3, 4)[1:, :, 1:].view(mt.int8)
    assert (tuple(y.shape), y.stride(), y.storage_offset()) == ((1, 3, 12), (48, 16, 1), 52)


def test_dtype_view_checks_in_torch_order():
    x = mt.arange(12, dtype=mt.int32).view(3, 4)
    with pytest.raises(
        RuntimeError,
        match=r"^self.storage_offset\(\) must be divisible by 2 to view Int as Long \(different "
        r"element sizes\), but got 1$",
    ):
        x[:, 1:3].view(mt.int64)
    with pytest.raises(
        RuntimeError, match=r"storage_offset\(\) must be divisible by 4 to view Byte"
    ):
        mt.zeros(3, 5, dtype=mt.uint8)[:, 1:].view(mt.int32)
    with pytest.raises(RuntimeError, match=r"self.stride\(0\) must be divisible by 2 to view Int"):
        mt.zeros(3, 0, dtype=mt.int32).view(mt.int64)
    with pytest.raises(RuntimeError, match=r"self.stride\(0\) must be divisible by 2 .* got 5$"):
        mt.zeros(3, 5, dtype=mt.int32)[:, :4].view(mt.int64)
    # the size of the last dim is checked before its stride
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 .* got 3$"):
        mt.zeros(3, 4, dtype=mt.int32).t().view(mt.int64)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1 .* got 2$"):
        mt.zeros(4, 4, dtype=mt.int32)[:, ::2].view(mt.int64)
    # what torch accepts
    assert mt.zeros(0, 2, dtype=mt.int32).view(mt.int64).shape == (0, 1)
    assert mt.zeros(2, 0, 4, dtype=mt.int32).view(mt.int64).shape == (2, 0, 2)
    assert mt.zeros(2, 4, dtype=mt.int32)[:, 4:].view(mt.int64).shape == (2, 0)
    assert mt.zeros(1, 4, dtype=mt.int32).expand(3, 4).view(mt.int64).stride() == (0, 1)
    assert mt.zeros(32, dtype=mt.uint8)[8:].view(mt.int64).storage_offset() == 1


# --- 0-d int8/int16 index tensors ---


@pytest.mark.parametrize("dt", [mt.int8, mt.int16])
def test_small_int_scalar_tensor_indexes_as_a_number(dt):
    x = mt.arange(10)
    assert x[mt.tensor(3, dtype=dt)].item() == 3
    assert x[mt.tensor(-2, dtype=dt)].item() == 8
    assert x.view(2, 5)[1, mt.tensor(2, dtype=dt)].item() == 7
    assert x.view(2, 5)[mt.tensor([0, 1]), mt.tensor(2, dtype=dt)].tolist() == [2, 7]
    assert x.view(2, 5)[mt.tensor(1, dtype=dt)]._is_view()  # a select, as torch's
    y = x.clone()
    y[mt.tensor(3, dtype=dt)] = -1
    assert y.tolist() == [0, 1, 2, -1, 4, 5, 6, 7, 8, 9]
    with pytest.raises(IndexError, match="index 100 is out of bounds for dimension 0 with size 10"):
        x[mt.tensor(100, dtype=dt)]
    # still refused: a 1-d one, and any as an index_put_ index
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x[mt.tensor([1, 2], dtype=dt)]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x.clone().index_put_((mt.tensor(3, dtype=dt),), mt.tensor(-1))


def test_small_int_scalar_index_gradient():
    i = mt.tensor(1, dtype=mt.int8)
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=mt.float64, requires_grad=True)
    x[i].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [1, 1], [0, 0]])
    assert gradcheck(lambda t: t[i] * t[i], (x,))
    assert gradgradcheck(lambda t: t[i] * t[i], (x,))


# --- uint8 masks ---


def test_scalar_uint8_key_is_a_bool_scalar_in_setitem():
    x = mt.arange(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch does not warn for a 0-d one
        x[mt.tensor(1, dtype=mt.uint8)] = -1
    assert x.tolist() == [-1, -1, -1, -1]
    x[mt.tensor(0, dtype=mt.uint8)] = 7
    assert x.tolist() == [-1, -1, -1, -1]
    y = mt.arange(4).view(2, 2)
    y[mt.tensor(1, dtype=mt.uint8), 1] = -1
    assert y.tolist() == [[0, 1], [-1, -1]]  # torch's result (the bool dim goes first)


def test_uint8_mask_with_one_value_is_refused_as_torch_masked_fill():
    msg = "^masked_fill_ only supports boolean masks, but got mask with dtype unsigned char$"
    u = mt.tensor([1, 0, 1, 0], dtype=mt.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for value in (-1, mt.tensor(-1), mt.tensor([-1])):
            x = mt.arange(4)
            with pytest.raises(RuntimeError, match=msg):
                x[u] = value
            assert x.tolist() == [0, 1, 2, 3]
            if isinstance(value, mt.Tensor):
                with pytest.raises(RuntimeError, match=msg):
                    x.index_put_((u,), value)
        with pytest.raises(RuntimeError, match=msg):
            mt.arange(4).index_put_((mt.tensor(1, dtype=mt.uint8),), mt.tensor(-1))
        with pytest.raises(RuntimeError, match=msg):
            mt.index_put(mt.arange(4), (u,), mt.tensor(-1))
        with pytest.raises(RuntimeError, match=msg):
            y = mt.arange(4).view(2, 2)
            y[u[:2], 0] = -1
        # what torch accepts: several values, accumulate, two index tensors
        x = mt.arange(4)
        x[u] = mt.tensor([7, 8])
        assert x.tolist() == [7, 1, 8, 3]
        assert mt.arange(4).index_put_((u,), mt.tensor(-1), accumulate=True).tolist() == [
            -1,
            1,
            1,
            3,
        ]
        y = mt.arange(4).view(2, 2)
        y[mt.tensor(1, dtype=mt.uint8), u[:2]] = -1
        assert y.tolist() == [[-1, -1], [2, 3]]


# --- Python ints in [2**63, 2**64) with int64 tensors ---


def _wrapped(op, values, number):
    return op(np.array(values, dtype=np.int64), np.int64(number)).tolist()


def test_unsigned_64_bit_numbers_wrap_in_bitwise_ops_and_fmod():
    vals = [1, 2, -5]
    x = mt.tensor(vals)
    xor = _wrapped(np.bitwise_xor, vals, GOLDEN_I64)
    assert (x ^ GOLDEN).tolist() == xor and (GOLDEN ^ x).tolist() == xor
    assert mt.bitwise_xor(x, GOLDEN).tolist() == xor
    assert (x | GOLDEN).tolist() == _wrapped(np.bitwise_or, vals, GOLDEN_I64)
    assert (x & 0xFFFFFFFFFFFFFFFF).tolist() == vals
    y = x.clone()
    y ^= GOLDEN
    assert y.tolist() == xor
    assert x.clone().bitwise_xor_(GOLDEN).tolist() == xor
    assert mt.fmod(x, GOLDEN).tolist() == vals  # |GOLDEN_I64| is larger than every value


def test_unsigned_64_bit_numbers_wrap_on_the_left_of_an_operator():
    vals = [1, 2, -5]
    x = mt.tensor(vals)
    assert (GOLDEN - x).tolist() == [GOLDEN_I64 - v for v in vals]
    square = (GOLDEN_I64 * GOLDEN_I64 + (1 << 63)) % (1 << 64) - (1 << 63)  # int64 wrap-around
    assert (GOLDEN ** mt.tensor([1, 2])).tolist() == [GOLDEN_I64, square]
    assert (GOLDEN // x).tolist() == [GOLDEN_I64 // v for v in vals]
    assert (GOLDEN % x).tolist() == [GOLDEN_I64 % v for v in vals]


def test_numbers_outside_int64_and_uint64_raise_overflow_error():
    x = mt.tensor([1, 2])
    with pytest.raises(OverflowError, match="int too big to convert"):
        x ^ (1 << 64)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        x & (-(1 << 63) - 1)
    with pytest.raises(OverflowError, match="int too big to convert"):
        (1 << 64) - x


def test_unsigned_64_bit_numbers_wrap_in_arithmetic():
    # splitmix64-style hashing: x * GOLDEN, x + 0xFF..FF wrap as int64 arithmetic does
    vals = [1, 2, -7]
    x = mt.tensor(vals)
    assert (x * GOLDEN).tolist() == _wrapped(np.multiply, vals, GOLDEN_I64)
    assert mt.mul(x, GOLDEN).tolist() == _wrapped(np.multiply, vals, GOLDEN_I64)
    assert (x + 0xFFFFFFFFFFFFFFFF).tolist() == [v - 1 for v in vals]
    assert (x - 0xFFFFFFFFFFFFFFFF).tolist() == [v + 1 for v in vals]
    assert (x // GOLDEN).tolist() == [v // GOLDEN_I64 for v in vals]
    assert (x % GOLDEN).tolist() == [v % GOLDEN_I64 for v in vals]
    assert mt.remainder(x, GOLDEN).tolist() == [v % GOLDEN_I64 for v in vals]
    assert mt.div(x, GOLDEN, rounding_mode="floor").tolist() == [v // GOLDEN_I64 for v in vals]
    with pytest.raises(OverflowError):
        x * (1 << 64)


def test_unsigned_64_bit_numbers_wrap_in_comparisons():
    # torch compares with the wrapped number: every int64 is >= -2**63, so x < 2**63 is all False
    x = mt.tensor([1, -5, 1 << 62])
    assert (x < (1 << 63)).tolist() == [False, False, False]
    assert mt.lt(x, 1 << 63).tolist() == [False, False, False]
    assert (x >= (1 << 63)).tolist() == [True, True, True]
    assert (mt.tensor([-1]) == 0xFFFFFFFFFFFFFFFF).tolist() == [True]
    assert mt.tensor([-1]).ne(0xFFFFFFFFFFFFFFFF).tolist() == [False]
    with pytest.raises(OverflowError, match="int too big to convert"):
        mt.lt(x, 1 << 64)
    with pytest.raises(OverflowError, match="can't convert negative int to unsigned"):
        mt.gt(x, -(1 << 63) - 1)
    with pytest.raises(OverflowError, match="int too big to convert"):  # as torch 2.13, for a
        mt.lt(mt.tensor([1.0]), 1 << 64)  # float tensor too: the number is beyond a Scalar's range
    assert (x < 1e19).tolist() == [True, True, True]
