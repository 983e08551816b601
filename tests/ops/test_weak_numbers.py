"""A Python number on the left of a tensor (1 - t, 10 // t, 7 % t, 2 ** t) stays a weak scalar in
type promotion, as torch's wrapped numbers: it never widens the tensor within its category, even
when the tensor is 0-d (an image's pixel, a step counter)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

INT_DTYPES = [mt.uint8, mt.int8, mt.int16, mt.int32]

REFLECTED = {
    "rsub": lambda n, t: n - t,
    "rfloordiv": lambda n, t: n // t,
    "rmod": lambda n, t: n % t,
    "rpow": lambda n, t: n**t,
    "torch.rsub": lambda n, t: mt.rsub(t, n),
    "torch.pow": lambda n, t: mt.pow(n, t),
    "torch.remainder": lambda n, t: mt.remainder(n, t),
}


@pytest.mark.parametrize("name", list(REFLECTED))
@pytest.mark.parametrize("dt", INT_DTYPES)
@pytest.mark.parametrize("shape", [(), (2,)])
def test_reflected_int_ops_keep_the_tensors_dtype(name, dt, shape):
    t = mt.full(shape, 3, dtype=dt)
    r = REFLECTED[name](10, t)
    assert r.dtype == dt and r.shape == shape
    expected = {"rsub": 7, "rfloordiv": 3, "rmod": 1, "rpow": 1000}
    expected.update({"torch.rsub": 7, "torch.pow": 1000, "torch.remainder": 1})
    expected = expected[name]
    np.testing.assert_array_equal(r.numpy(), np.full(shape, expected).astype(r.numpy().dtype))


def test_a_pixel_subtracted_from_a_number_wraps_in_uint8():
    px = mt.tensor([[3, 250]], dtype=mt.uint8)[0, 0]
    assert (255 - px).item() == 252 and (1 - px).item() == 254
    assert (1 - px).dtype == mt.uint8


@pytest.mark.parametrize("dt", [mt.float16, mt.float32, mt.float64])
def test_remainder_of_a_number_by_a_float_tensor_keeps_its_dtype(dt):
    x = mt.tensor([1.5, 2.5, -4.0], dtype=dt)
    r = mt.remainder(7, x)
    assert r.dtype == dt
    np.testing.assert_allclose(r.double().numpy(), [1.0, 2.0, -1.0])
    assert (7 % x).dtype == dt


def test_float_numbers_still_promote_int_tensors_to_the_default_float():
    i = mt.tensor(3, dtype=mt.int32)
    assert (2.5 - i).dtype == mt.float32 and (2.5**i).dtype == mt.float32
    assert (7.5 % i).dtype == mt.float32
