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
