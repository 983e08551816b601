"""Tensor methods' argument errors and small methods, as torch has them (sweep 18, group 4)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

# --- a number where scatter_add / scatter_reduce / put take a Tensor ---


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x, i: x.scatter_add_(0, i, 2), "scatter_add_(): argument 'src' (position 3)"),
        (lambda x, i: x.scatter_add(0, i, 2.0), "scatter_add(): argument 'src' (position 3)"),
        (lambda x, i: mt.scatter_add(x, 0, i, 2), "scatter_add(): argument 'src' (position 4)"),
        (
            lambda x, i: x.scatter_reduce_(0, i, 2.0, "sum"),
            "scatter_reduce_(): argument 'src' (position 3)",
        ),
        (
            lambda x, i: mt.scatter_reduce(x, 0, i, None, "sum"),
            "scatter_reduce(): argument 'src' (position 4)",
        ),
        (lambda x, i: x.put_(mt.tensor([0, 2]), 1.0), "put_(): argument 'source' (position 2)"),
        (lambda x, i: x.put(mt.tensor([0]), 1.0), "put(): argument 'source' (position 2)"),
        (lambda x, i: mt.put(x, mt.tensor([0]), 1.0), "put(): argument 'source' (position 3)"),
    ],
)
def test_number_for_a_tensor_source_is_a_type_error(call, message):
    x = mt.zeros(3, 5)
    with pytest.raises(TypeError, match=r"must be Tensor, not (int|float|NoneType)") as e:
        call(x, mt.tensor([[0, 1]]))
    assert str(e.value).startswith(message), str(e.value)
    np.testing.assert_array_equal(x.numpy(), np.zeros((3, 5)), err_msg="x untouched")


def test_scatter_add_and_put_with_tensors_still_work():
    x = mt.zeros(2, 3)
    x.scatter_add_(0, mt.tensor([[0, 1, 0]]), mt.tensor([[1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(x.numpy(), [[1, 0, 3], [0, 2, 0]], err_msg="scatter_add_")
    x.put_(mt.tensor([5]), mt.tensor([7.0]))
    np.testing.assert_array_equal(x.numpy(), [[1, 0, 3], [0, 2, 7]], err_msg="put_")


# --- small methods: dim_order, const_data_ptr, is_distributed, xpu, del x[i] ---


def test_dim_order_follows_strides():
    x = mt.empty(2, 3, 5, 7)
    assert x.dim_order() == (0, 1, 2, 3)
    assert x.transpose(1, 2).dim_order() == (0, 2, 1, 3)
    assert x.permute(2, 0, 3, 1).dim_order() == (1, 3, 0, 2)
    assert x.contiguous(memory_format=mt.channels_last).dim_order() == (0, 2, 3, 1)
    assert mt.tensor(1.0).dim_order() == ()
    assert mt.ones(4, 1).expand(4, 3).dim_order() == (0, 1)  # a stride-0 dim keeps its place
    assert mt.ones(2, 3, 4).permute(2, 0, 1).dim_order(ambiguity_check=True) == (1, 2, 0)


def test_dim_order_ambiguity_check():
    unique = "The tensor does not have unique dim order, or cannot map"
    x = mt.empty(1, 2, 3, 4)  # the size-1 dim could sit anywhere
    assert x.dim_order() == (0, 1, 2, 3)
    with pytest.raises(RuntimeError, match=unique):
        x.dim_order(ambiguity_check=True)
    with pytest.raises(RuntimeError, match=unique):
        x.dim_order(ambiguity_check=[mt.channels_last])
    formats = [mt.contiguous_format, mt.channels_last]
    assert x.dim_order(ambiguity_check=formats) == (0, 1, 2, 3)
    with pytest.raises(RuntimeError, match=r"^The tensor does not have unique dim order\.$"):
        mt.ones(4, 1).expand(4, 3).dim_order(ambiguity_check=True)
    with pytest.raises(TypeError, match="must be a bool or a list of memory formats"):
        x.dim_order(ambiguity_check="ILLEGAL")
    with pytest.raises(TypeError):
        x.dim_order(True)  # keyword-only, as torch's


def test_const_data_ptr_is_distributed_xpu_and_del():
    x = mt.ones(2, 3)
    assert x.const_data_ptr() == x.data_ptr() != 0
    assert x[1].const_data_ptr() == x.data_ptr() + 3 * 4
    assert x.is_distributed() is False
    with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"):
        x.xpu()
    with pytest.raises(TypeError, match="argument 'memory_format' must be torch.memory_format"):
        x.xpu(memory_format=3)
    with pytest.raises(TypeError, match="^Tensor does not support deleting items$"):
        del x[0]
    assert x.shape == (2, 3)


# --- apply_ / map_: an expanded tensor is written through; the version stays ---


def test_apply_on_an_expanded_tensor_writes_through_in_order():
    base = mt.zeros(1)
    e = base.expand(3)
    assert e.apply_(lambda v: v + 1) is e
    np.testing.assert_array_equal(e.numpy(), [3.0, 3.0, 3.0], err_msg="each read sees the last")
    np.testing.assert_array_equal(base.numpy(), [3.0], err_msg="base written")
    assert e._version == 0 and base._version == 0

    base = mt.zeros(2, 1)
    calls = []
    base.expand(2, 3).apply_(lambda v: calls.append(v) or len(calls))
    assert calls == [0.0, 1.0, 2.0, 0.0, 4.0, 5.0]
    np.testing.assert_array_equal(base.numpy(), [[3.0], [6.0]], err_msg="last write per cell")


def test_apply_and_map_leave_the_version_alone():
    y = mt.zeros(3)
    y.apply_(lambda v: v + 1)
    assert y._version == 0
    np.testing.assert_array_equal(y.numpy(), [1.0, 1.0, 1.0])
    y.map_(mt.tensor([1.0, 2.0, 3.0]), lambda a, b: a * b)
    assert y._version == 0
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0, 3.0])
    e = mt.zeros(1).expand(3)
    e.map_(mt.arange(3.0), lambda a, b: a + b)
    np.testing.assert_array_equal(e.numpy(), [3.0, 3.0, 3.0], err_msg="0+0, 0+1, 1+2")


# --- norm takes no NumPy keepdims= ---


def test_tensor_norm_refuses_keepdims():
    x = mt.ones(2, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'keepdims'"):
        x.norm(dim=-1, keepdims=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
        x.norm(axis=0)
    out = x.norm(dim=-1, keepdim=True)
    assert out.shape == (2, 1)
    np.testing.assert_allclose(out.numpy(), np.full((2, 1), np.sqrt(3.0)), rtol=1e-6)


# --- Python ints no Scalar holds ---

_BIG = [(2**64, "int too big to convert"), (2**70, "int too big to convert")]
_BIG += [(-(2**63) - 1, "can't convert negative int to unsigned")]


@pytest.mark.parametrize("value, message", _BIG)
@pytest.mark.parametrize("dtype", [mt.int64, mt.int8, mt.float32, mt.float64])
def test_ints_beyond_a_scalar_are_overflow_errors(value, message, dtype):
    mask = mt.tensor([True, False])
    calls = [
        lambda: mt.zeros(2, dtype=dtype).fill_(value),
        lambda: mt.zeros(2, dtype=dtype).masked_fill(mask, value),
        lambda: mt.zeros(2, dtype=dtype).index_fill(0, mt.tensor([0]), value),
        lambda: mt.zeros(2, dtype=dtype).scatter(0, mt.tensor([0]), value),
        lambda: mt.zeros(2, 2, dtype=dtype).fill_diagonal_(value),
    ]
    if dtype in (mt.int64, mt.int8):
        calls += [
            lambda: mt.zeros(2, dtype=dtype).clamp(max=value),
            lambda: mt.where(mask, mt.zeros(2, dtype=dtype), value),
            lambda: mt.full((2,), value, dtype=dtype),
        ]
    for call in calls:
        with pytest.raises(OverflowError, match=f"^{message}$"):
            call()


def test_ints_a_dtype_cannot_hold_keep_the_runtime_error():
    for value, dtype in [(2**63, mt.int64), (300, mt.int8), (2**63 - 1, mt.int8)]:
        with pytest.raises(RuntimeError, match="without overflow"):
            mt.zeros(2, dtype=dtype).fill_(value)
    x = mt.zeros(2, dtype=mt.uint8).fill_(-1)  # c10 wraps a small negative into uint8
    np.testing.assert_array_equal(x.numpy(), [255, 255])
    y = mt.zeros(2).fill_(2**63)  # a uint64 Scalar fits a float tensor
    np.testing.assert_array_equal(y.numpy(), [2.0**63, 2.0**63])


@pytest.mark.parametrize("value", [2**63, 2**64, 2**70, -(2**63) - 1])
@pytest.mark.parametrize("dtype", [mt.int64, mt.float32, mt.bool])
def test_setitem_of_an_int_beyond_int64_is_a_value_error(value, dtype):
    x = mt.zeros(3, dtype=dtype)
    for key in (0, slice(None), mt.tensor([True, False, True]), 10):  # before the key's check
        with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
            x[key] = value
    x[0] = 1
    assert x[0].item() == 1


def test_setitem_of_int64_extremes_still_works():
    x = mt.zeros(2, dtype=mt.int64)
    x[0], x[1] = 2**63 - 1, -(2**63)
    assert x.tolist() == [2**63 - 1, -(2**63)]


# --- to(copy=True) records ToCopyBackward0 ---


def test_to_copy_records_to_copy_backward():
    x = mt.ones(3, 4, dtype=mt.float64, requires_grad=True)
    y = x.to(mt.float64, copy=True)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    assert y.data_ptr() != x.data_ptr()
    assert type(x.clone().grad_fn).__name__ == "CloneBackward0"
    assert x.to(mt.float64) is x
    t = x.t().to(copy=True)
    assert t.stride() == (1, 4), "the copy keeps the input's memory order"
    g = mt.arange(12.0, dtype=mt.float64).reshape(3, 4)
    y.backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), g.numpy(), err_msg="identity gradient")
    assert mt.autograd.gradcheck(lambda a: a.to(mt.float64, copy=True) * a, (x,))
    assert mt.autograd.gradgradcheck(lambda a: a.to(mt.float64, copy=True) * a, (x,))
