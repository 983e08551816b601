"""Dtype edges torch defines: integer pow refuses an exponent its dtype cannot hold, bfloat16
converts to unsigned types as other floats do, and a 0-d lerp weight takes part in promotion."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck


@pytest.mark.parametrize(
    "dt, exponent, ctype",
    [(mt.uint8, 300, "uint8_t"), (mt.int8, 200, "int8_t"), (mt.int32, 2**40, "int")],
)
def test_integer_pow_refuses_an_exponent_out_of_the_dtypes_range(dt, exponent, ctype):
    x = mt.tensor([2, 3], dtype=dt)
    msg = f"value cannot be converted to type {ctype} without overflow"
    with pytest.raises(RuntimeError, match=msg):
        x**exponent
    with pytest.raises(RuntimeError, match=msg):
        x.clone().pow_(exponent)
    assert (x**2).tolist() == [4, 9]


def test_bfloat16_to_unsigned_wraps_negatives_like_other_floats():
    x = mt.tensor([1.5, -2.25, -1.0])
    expected = [1, 254, 255]
    assert x.to(mt.uint8).tolist() == expected
    assert x.half().to(mt.uint8).tolist() == expected
    assert x.to(mt.bfloat16).to(mt.uint8).tolist() == expected


def test_a_0d_lerp_weight_takes_part_in_promotion():
    a = mt.tensor(2.0)
    assert mt.lerp(a, a * 3, mt.tensor(0.5, dtype=mt.float64)).dtype == mt.float64
    r = mt.lerp(mt.tensor([2, 4]), mt.tensor([6, 8]), mt.tensor(0.5))
    assert r.dtype == mt.float32 and r.tolist() == [4.0, 6.0]
    # a 1-d start keeps its dtype against a 0-d float64 weight
    assert mt.lerp(mt.ones(2), mt.zeros(2), mt.tensor(0.5, dtype=mt.float64)).dtype == mt.float32
    with pytest.raises(NotImplementedError, match="lerp_kernel_tensor"):
        mt.lerp(mt.tensor([2, 4]), mt.tensor([6, 8]), mt.tensor(1))


def test_lerp_with_a_promoted_weight_is_differentiable():
    s = mt.tensor(2.0, dtype=mt.float64, requires_grad=True)
    e = mt.tensor(5.0, dtype=mt.float64, requires_grad=True)
    w = mt.tensor(0.3, dtype=mt.float64, requires_grad=True)
    assert gradcheck(mt.lerp, (s, e, w))
    r = mt.lerp(s.float(), e.float(), w)
    r.backward()
    np.testing.assert_allclose([s.grad.item(), e.grad.item(), w.grad.item()], [0.7, 0.3, 3.0])


A, B, V = mt.ones(2, 3), mt.ones(3, 4), mt.ones(3)
F64 = mt.float64
PRODUCTS_OUT = {
    "mm": (lambda o: mt.mm(A, B, out=o), (2, 4), "Expected out tensor to have dtype float"),
    "bmm": (lambda o: mt.bmm(A[None], B[None], out=o), (1, 2, 4), "Expected out tensor"),
    "matmul": (lambda o: mt.matmul(A, B, out=o), (2, 4), "but got double instead"),
    "matmul_batched": (lambda o: mt.matmul(A[None], B, out=o), (1, 2, 4), "Expected out"),
    "addmm": (lambda o: mt.addmm(mt.ones(2, 4), A, B, out=o), (2, 4), "Expected out tensor"),
    "mv": (lambda o: mt.mv(A, V, out=o), (2,), "addmv input tensors must have the same dtype"),
    "dot": (lambda o: mt.dot(V, V, out=o), (), "result dtype Double does not match input"),
    "matmul_vectors": (lambda o: mt.matmul(V, V, out=o), (), "result dtype Double"),
}


@pytest.mark.parametrize("name", list(PRODUCTS_OUT))
def test_products_refuse_an_out_of_another_dtype(name):
    call, shape, msg = PRODUCTS_OUT[name]
    with pytest.raises(RuntimeError, match=msg):
        call(mt.empty(shape, dtype=F64))
    assert call(mt.empty(shape)).dtype == mt.float32  # the same dtype is written
    # elementwise-style products still cast into out, as torch's outer does
    assert mt.outer(V, V, out=mt.empty(3, 3, dtype=F64)).dtype == F64


I32, F32 = mt.tensor([-3, 5], dtype=mt.int32), mt.tensor([1.5, -2.0])
EXACT_OUT = {
    # ops computed in their input's dtype want out of that dtype (torch's structured kernels)
    "neg": (lambda o: mt.neg(I32, out=o), mt.int64, "Found dtype Long but expected Int"),
    "abs": (lambda o: mt.abs(F32, out=o), F64, "Found dtype Double but expected Float"),
    "sign": (lambda o: mt.sign(F32, out=o), F64, "Found dtype Double but expected Float"),
    "clamp": (lambda o: mt.clamp(I32, 0, 4, out=o), mt.float32, "Found dtype Float but expected"),
    "bitwise_not": (lambda o: mt.bitwise_not(I32, out=o), mt.int64, "Found dtype Long"),
    "where": (lambda o: mt.where(F32 > 0, F32, F32, out=o), F64, "Expected out type to be Float"),
    "nan_to_num": (lambda o: mt.nan_to_num(F32, out=o), F64, "dtype of out: Double should be"),
}


@pytest.mark.parametrize("name", list(EXACT_OUT))
def test_ops_in_the_inputs_dtype_want_out_of_that_dtype(name):
    call, other, msg = EXACT_OUT[name]
    with pytest.raises(RuntimeError, match=msg):
        call(mt.empty(2, dtype=other))


def test_ops_computed_in_float_cast_into_any_out():
    assert mt.exp(F32, out=mt.empty(2, dtype=F64)).dtype == F64
    assert mt.sigmoid(I32, out=mt.empty(2, dtype=F64)).dtype == F64
    assert mt.add(F32, F32, out=mt.empty(2, dtype=F64)).dtype == F64
