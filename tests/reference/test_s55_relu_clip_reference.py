"""Session 55, lead: relu of host float32/float64 tensors (computed by NumPy's clip ufunc: NOTE
[ Maximum with a number ]) against torch's, bit for bit, special values included, out of place
and in place, with the same gradient."""

import numpy as np
import pytest

import minitorch as torch
from tests.test_s55_relu_clip import INTS, _bits, _values

ref = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", [(8,), (16, 32), (300, 517)], ids=str)
def test_relu_bits_as_torch(dtype, shape):
    x = _values(dtype, shape, seed=7)
    want = ref.relu(ref.from_numpy(x.copy())).numpy()
    np.testing.assert_array_equal(
        _bits(torch.relu(torch.from_numpy(x.copy())).numpy(), dtype), _bits(want, dtype)
    )
    t = torch.from_numpy(x.copy())
    t.relu_()
    np.testing.assert_array_equal(_bits(t.numpy(), dtype), _bits(want, dtype))
    if x.ndim == 2:
        got_t = torch.relu(torch.from_numpy(x.copy()).t()).numpy()
        np.testing.assert_array_equal(_bits(got_t, dtype), _bits(want.T, dtype))


@pytest.mark.parametrize("dtype", list(INTS), ids=lambda d: d.__name__)
def test_relu_gradient_as_torch(dtype):
    x = _values(dtype, (40, 50), seed=8)
    g = np.random.default_rng(9).standard_normal(x.shape).astype(dtype)
    a = torch.from_numpy(x.copy()).requires_grad_()
    b = ref.from_numpy(x.copy()).requires_grad_()
    torch.relu(a).backward(torch.from_numpy(g.copy()))
    ref.relu(b).backward(ref.from_numpy(g.copy()))
    np.testing.assert_array_equal(_bits(a.grad.numpy(), dtype), _bits(b.grad.numpy(), dtype))
