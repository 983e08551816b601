"""Sweep 5 follow-ups: max/min with a tensor dim, index_select on an empty dim, index_add's
alpha on integer tensors, einsum's mixed-dtype errors, cumsum_/cumprod_ on bool tensors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck


def _x():
    return mt.arange(12.0).view(3, 4)


# --- max/min: a 0-d integer tensor is an int dim unless it is the positional `other` ---


@pytest.mark.parametrize(
    "call, values, indices",
    [
        (lambda x, d: mt.max(x, dim=d), [3.0, 7.0, 11.0], [3, 3, 3]),
        (lambda x, d: x.min(dim=d), [0.0, 4.0, 8.0], [0, 0, 0]),
        (lambda x, d: mt.max(x, d, True), [[3.0], [7.0], [11.0]], [[3], [3], [3]]),
        (lambda x, d: x.max(d, False), [3.0, 7.0, 11.0], [3, 3, 3]),
        (lambda x, d: x.max(d, keepdim=True), [[3.0], [7.0], [11.0]], [[3], [3], [3]]),
        (lambda x, d: mt.min(x, dim=d, keepdim=True), [[0.0], [4.0], [8.0]], [[0], [0], [0]]),
        (lambda x, d: mt.max(x, dim=-d), [3.0, 7.0, 11.0], [3, 3, 3]),
        (lambda x, d: mt.max(x, dim=d.int()), [3.0, 7.0, 11.0], [3, 3, 3]),
    ],
)
def test_max_min_tensor_dim_reduces(call, values, indices):
    r = call(_x(), mt.tensor(1))
    np.testing.assert_array_equal(r.values.numpy(), np.array(values, np.float32), err_msg="values")
    np.testing.assert_array_equal(r.indices.numpy(), np.array(indices), err_msg="indices")
    assert r.indices.dtype is mt.int64


def test_max_min_positional_tensor_is_elementwise():
    x, d = _x(), mt.tensor(1)
    expect = np.maximum(np.arange(12.0).reshape(3, 4), 1).astype(np.float32)
    for r in (mt.max(x, d), x.max(d), mt.max(x, other=d), x.max(other=d)):
        assert isinstance(r, mt.Tensor)
        np.testing.assert_array_equal(r.numpy(), expect)
    np.testing.assert_array_equal(mt.min(x, d).numpy()[0], [0.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "call",
    [
        lambda x: mt.max(x, dim=mt.tensor(1.0)),
        lambda x: mt.max(x, mt.tensor(1.0), True),
        lambda x: mt.max(x, dim=mt.tensor([1])),
        lambda x: mt.max(x, mt.tensor([1]), True),
        lambda x: mt.min(x, dim=mt.tensor(True)),
        lambda x: mt.max(x, other=mt.tensor(1), keepdim=True),
        lambda x: mt.max(x, other=mt.tensor(1), dim=1),
        lambda x: mt.max(x, mt.tensor(1), dim=1),
    ],
)
def test_max_min_tensor_dim_invalid(call):
    with pytest.raises(TypeError, match=r"m(ax|in)\(\) received an invalid combination"):
        call(_x())


def test_max_tensor_dim_out_of_range_and_grad():
    with pytest.raises(IndexError, match="Dimension out of range"):
        mt.max(_x(), dim=mt.tensor(5))
    d = mt.tensor(1)
    rng = np.random.default_rng(0)
    a = mt.tensor(rng.permutation(12).reshape(3, 4).astype(np.float64), requires_grad=True)
    assert gradcheck(lambda t: mt.max(t, d, True).values, (a,))
    assert gradgradcheck(lambda t: t.min(dim=d).values, (a,))


# --- index_select on an empty dim ---


def test_index_select_empty_dim_nonempty_index():
    msg = r"index_select\(\): self indexing axis dim should be positive"
    for shape, dim in [((0, 4), 0), ((0, 4), -2), ((2, 0, 3), 1), ((0, 2, 2), 0)]:
        with pytest.raises(RuntimeError, match=msg):
            mt.zeros(*shape).index_select(dim, mt.tensor([0]))
    with pytest.raises(RuntimeError, match=msg):
        mt.index_select(mt.zeros(0, 4), 0, mt.tensor(0))
    with pytest.raises(IndexError):  # a 1-d input keeps the out-of-range IndexError
        mt.zeros(0).index_select(0, mt.tensor([0]))


def test_index_select_empty_dim_empty_index():
    empty = mt.tensor([], dtype=mt.int64)
    assert mt.zeros(0, 4).index_select(0, empty).shape == (0, 4)
    assert mt.zeros(4, 0).index_select(1, empty).shape == (4, 0)
    assert mt.zeros(2, 0, 3).index_select(0, mt.tensor([1])).shape == (1, 0, 3)


# --- index_add: a float alpha on an integer tensor is truncated first ---


@pytest.mark.parametrize("alpha, added", [(0.5, 0), (1.7, 5), (-1.7, -5), (2.5, 10), (2, 10)])
@pytest.mark.parametrize("dtype", [mt.int64, mt.int32, mt.int16])
def test_index_add_integral_alpha_truncates(alpha, added, dtype):
    idx, src = mt.tensor([1, 1]), mt.tensor([2, 3], dtype=dtype)
    r = mt.zeros(3, dtype=dtype).index_add(0, idx, src, alpha=alpha)
    assert r.dtype is dtype
    np.testing.assert_array_equal(r.numpy(), [0, added, 0])
    t = mt.zeros(3, dtype=dtype)
    t.index_add_(0, idx, src, alpha=alpha)
    np.testing.assert_array_equal(t.numpy(), [0, added, 0])


def test_index_add_alpha_float_and_overflow():
    r = mt.zeros(3).index_add(0, mt.tensor([1, 1]), mt.tensor([2.0, 3.0]), alpha=2.5)
    np.testing.assert_allclose(r.numpy(), [0.0, 12.5, 0.0])
    r = mt.zeros(3, 2, dtype=mt.int64).index_add(
        0, mt.tensor([1, 1]), mt.tensor([[2, 3], [4, 5]]), alpha=1.7
    )
    np.testing.assert_array_equal(r.numpy(), [[0, 0], [6, 8], [0, 0]])
    u = mt.tensor([2, 3], dtype=mt.uint8)
    for alpha in (-0.5, 255.9, float("nan")):
        with pytest.raises(RuntimeError, match="cannot be converted to type uint8_t"):
            mt.zeros(3, dtype=mt.uint8).index_add(0, mt.tensor([1, 1]), u, alpha=alpha)


# --- einsum with mixed dtypes: the exception torch's pairwise contraction raises ---


def test_einsum_mixed_dtype_errors():
    b, f = mt.ones(4, 3, 2, dtype=mt.bool), mt.ones(4, 5)
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        mt.einsum("sec,sm->ecm", b, f)
    with pytest.raises(NotImplementedError, match="bmm"):
        mt.einsum("ij,jk->ik", mt.ones(2, 3, dtype=mt.bool), mt.ones(3, 2, dtype=mt.int64))
    with pytest.raises(NotImplementedError, match="bmm"):
        mt.einsum("i,i->", mt.ones(2, dtype=mt.bool), mt.ones(2))
    # torch runs this pair as bmm(bool, float): its sides swapped (see einsum_op._bmm_swaps)
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        mt.einsum("sm,sec->ecm", f, b)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Bool"):
        mt.einsum("sm,sec->mec", f, b)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        mt.einsum("ij,jk->ik", mt.ones(2, 3, dtype=mt.int64), mt.ones(3, 2))
    # a letter only the bool operand has is summed first (into int64)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        mt.einsum("ij,j->", mt.ones(2, 3, dtype=mt.bool), mt.ones(3))


def test_einsum_bool_bool():
    with pytest.raises(NotImplementedError, match="bmm"):
        mt.einsum("ij,jk->ik", mt.ones(2, 3, dtype=mt.bool), mt.ones(3, 2, dtype=mt.bool))
    r = mt.einsum("ij,ij->ij", mt.ones(2, 3, dtype=mt.bool), mt.ones(2, 3, dtype=mt.bool))
    assert r.dtype is mt.bool and bool(r.all())


# --- cumsum_/cumprod_ on bool tensors ---


@pytest.mark.parametrize("name", ["cumsum_", "cumprod_"])
def test_cumulative_inplace_bool(name):
    t = mt.ones(3, dtype=mt.bool)
    with pytest.raises(NotImplementedError, match=f'"{name[:-1]}_out_cpu" not implemented'):
        getattr(t, name)(0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        getattr(t, name)(3)
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        getattr(t, name)(0, dtype=mt.int64)
    assert getattr(mt.zeros(2, 0, dtype=mt.bool), name)(0).shape == (2, 0)
    assert bool(getattr(mt.tensor(True), name)(0))
    n = mt.tensor([1, 2, 3])
    getattr(n, name)(0)
    np.testing.assert_array_equal(n.numpy(), [1, 3, 6] if name == "cumsum_" else [1, 2, 6])
