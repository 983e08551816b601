"""lerp_ and addcmul_ of float32 tensors round their float64 fused multiply-add straight into
self (NOTE [ Rounded into self ] in minitorch/_ops/pointwise_binary.py): the same bits as torch's
one rounding, in self's own memory, with operands that alias self or broadcast into it."""

import numpy as np
import pytest

import minitorch as mt


def _rng():
    return np.random.default_rng(35)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _fma32(p, b, x):
    """p * b + x rounded once to float32 (the product of two float32 values is exact in
    float64)."""
    return (np.float64(p) * np.float64(b) + np.float64(x)).astype(np.float32)


def _lerp_ref(x, y, w):
    d = (y - x).astype(np.float32)
    w32 = np.float32(w)
    if abs(w) < 0.5:
        return _fma32(d, w32, x)
    return _fma32(d, -(np.float32(1) - w32), y)


@pytest.mark.parametrize("w", [0.1, 0.3, 0.5, 0.9, 1.0, 0.0])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_lerp_rounds_once_into_self(w, device):
    rng = _rng()
    x, y = _f32(rng, 64, 33), _f32(rng, 64, 33) * np.float32(1e3)
    m = mt.tensor(x, device=device)
    ptr, version = m.data_ptr(), m._version
    out = m.lerp_(mt.tensor(y, device=device), w)
    assert out is m and m.data_ptr() == ptr and m._version == version + 1
    got = m.cpu().numpy()
    np.testing.assert_array_equal(got.view(np.int32), _lerp_ref(x, y, w).view(np.int32))


@pytest.mark.parametrize("value", [1, 0.001, -2.5])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_addcmul_rounds_once_into_self(value, device):
    rng = _rng()
    x, a, b = _f32(rng, 40, 7), _f32(rng, 40, 7), _f32(rng, 40, 7)
    v = mt.tensor(x, device=device)
    ptr, version = v.data_ptr(), v._version
    v.addcmul_(mt.tensor(a, device=device), mt.tensor(b, device=device), value=value)
    assert v.data_ptr() == ptr and v._version == version + 1
    p = a if value == 1 else np.float32(value) * a
    expected = _fma32(p, b, x)
    np.testing.assert_array_equal(v.cpu().numpy().view(np.int32), expected.view(np.int32))


def test_operands_that_alias_self_are_read_before_the_write():
    rng = _rng()
    x = _f32(rng, 50, 3)
    m = mt.tensor(x)
    m.lerp_(m, 0.7)  # end is self: d = 0, self unchanged
    np.testing.assert_array_equal(m.numpy(), x)
    v = mt.tensor(x)
    v.addcmul_(v, v, value=0.5)  # tensor1 and tensor2 are self: the values before the write
    np.testing.assert_array_equal(v.numpy(), _fma32(np.float32(0.5) * x, x, x))
    g = mt.tensor(x)
    g.addcmul_(g, mt.tensor(x[::-1].copy()), value=-1)
    np.testing.assert_array_equal(g.numpy(), _fma32(np.float32(-1) * x, x[::-1], x))


def test_broadcast_operands_take_the_general_route():
    rng = _rng()
    x, row = _f32(rng, 6, 5), _f32(rng, 5)
    m = mt.tensor(x)
    m.lerp_(mt.tensor(row), 0.25)
    np.testing.assert_array_equal(m.numpy(), _lerp_ref(x, np.broadcast_to(row, x.shape), 0.25))
    m = mt.tensor(x)
    m.lerp_(mt.tensor(row), 0.75)  # the second formula sums into the broadcast end
    np.testing.assert_array_equal(m.numpy(), _lerp_ref(x, np.broadcast_to(row, x.shape), 0.75))
    v = mt.tensor(x)
    v.addcmul_(mt.tensor(row), mt.tensor(x))
    np.testing.assert_array_equal(v.numpy(), _fma32(np.broadcast_to(row, x.shape), x, x))
    small = mt.tensor(row)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        small.lerp_(mt.tensor(x), 0.25)
    np.testing.assert_array_equal(small.numpy(), row)  # refused before any write


def test_float64_and_half_keep_their_routes():
    rng = _rng()
    x, y = rng.standard_normal((9, 4)), rng.standard_normal((9, 4))
    m = mt.tensor(x)
    m.lerp_(mt.tensor(y), 0.2)
    np.testing.assert_allclose(m.numpy(), x + 0.2 * (y - x), rtol=0, atol=1e-15)
    h = mt.tensor(x, dtype=mt.float16)
    h.lerp_(mt.tensor(y, dtype=mt.float16), 0.2)
    xh, yh = x.astype(np.float16).astype(np.float32), y.astype(np.float16).astype(np.float32)
    np.testing.assert_array_equal(h.numpy(), _lerp_ref(xh, yh, 0.2).astype(np.float16))
