"""Session 27 (diffusion / generative-model programs): library fixes, checked against literals
obtained by running torch 2.13 (CPU) on the same input after the same manual_seed.

F.rrelu(training=True) draws torch's CPU random stream: one float64 uniform slope in
[lower, upper] per element <= 0 (-0. and 0. included), in the input's logical order, rounded to
the input's dtype; positive (and NaN) elements keep slope 1 and draw nothing. The gradient is the
slope, so at 0 it is the drawn slope, not 1."""

from __future__ import annotations

import math

import numpy as np

import minitorch
import minitorch.nn.functional as F

NAN, INF = float("nan"), float("inf")


def _close(got, want, tol=1e-7):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(want)
    assert np.array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    assert np.allclose(got[fin], want[fin], rtol=tol, atol=tol), (got, want)


def test_rrelu_training_draws_float64_slopes_for_non_positive_elements_only():
    minitorch.manual_seed(0)
    x = minitorch.tensor([0.0, -1.0, -0.0, 1.0, NAN, -INF, INF, -2.0], requires_grad=True)
    y = F.rrelu(x, training=True)
    y.sum().backward()
    _close(y.tolist(), [0.0, -0.27246248722076416, -0.0, 1.0, NAN, -INF, INF, -0.518760085105896])
    assert math.copysign(1.0, y[2].item()) == -1.0  # -0. * slope
    want_grad = [0.3270943760871887, 0.27246248722076416, 0.22070477902889252, 1.0, 1.0]
    want_grad += [0.31682243943214417, 1.0, 0.259380042552948]
    _close(x.grad.tolist(), want_grad)
    # five draws consumed: the generator is where torch's is
    _close(minitorch.rand(2).tolist(), [0.3488934636116028, 0.40171730518341064])
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"


def test_rrelu_training_logical_order_bounds_and_dtypes():
    minitorch.manual_seed(0)
    x = minitorch.tensor([[1.5, -2.0], [-1.0, 3.0], [-0.5, -4.0]]).t()  # not contiguous
    out = F.rrelu(x, 0.1, 0.3, training=True)
    want = [
        [1.5, -0.29401060938835144, -0.12078198790550232],
        [-0.3837531805038452, 3.0, -1.1365982294082642],
    ]
    _close(out.tolist(), want)
    minitorch.manual_seed(0)
    out = F.rrelu(-minitorch.ones(3, dtype=minitorch.bfloat16), training=True)
    assert out.dtype is minitorch.bfloat16
    _close(out.float().tolist(), [-0.326171875, -0.2734375, -0.220703125], 0)
    minitorch.manual_seed(0)
    x = -minitorch.ones(3, dtype=minitorch.float64)
    minitorch.nn.RReLU(0.2, 0.4, inplace=True).train()(x)
    _close(x.tolist(), [-0.39401060036131064, -0.3415639728799576, -0.2918765886254902], 1e-15)
    _close(minitorch.randn(1).item(), 1.2644586563110352)


def test_rrelu_training_gradients():
    def f(a):
        minitorch.manual_seed(1)  # the same slopes at every evaluation
        return F.rrelu(a, training=True)

    minitorch.manual_seed(0)
    x = minitorch.randn(3, 4, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(f, (x,))
    assert minitorch.autograd.gradgradcheck(f, (x,))
    y = F.rrelu(minitorch.zeros(0), training=True)
    assert tuple(y.shape) == (0,)
