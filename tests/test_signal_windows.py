"""minitorch.signal.windows against NumPy's windows and the definitions (scipy's), and torch's
errors; tests/reference compares with torch.signal.windows."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

W = mt.signal.windows


@pytest.mark.parametrize("M", [2, 5, 8, 33])
def test_symmetric_windows_match_numpys(M):
    for ours, theirs in (
        (W.hann, np.hanning),
        (W.hamming, np.hamming),
        (W.blackman, np.blackman),
        (W.bartlett, np.bartlett),
    ):
        np.testing.assert_allclose(ours(M, dtype=mt.float64).numpy(), theirs(M), atol=1e-15)
    np.testing.assert_allclose(
        W.kaiser(M, beta=8.6, dtype=mt.float64).numpy(), np.kaiser(M, 8.6), rtol=1e-12
    )


def test_periodic_windows_and_the_other_definitions():
    np.testing.assert_allclose(
        W.hann(8, sym=False, dtype=mt.float64).numpy(), np.hanning(9)[:8], atol=1e-15
    )
    n = np.arange(7.0)
    np.testing.assert_allclose(W.cosine(7, dtype=mt.float64).numpy(), np.sin(np.pi * (n + 0.5) / 7))
    np.testing.assert_allclose(
        W.gaussian(7, std=2.0, dtype=mt.float64).numpy(), np.exp(-(((n - 3) / 2.0) ** 2) / 2)
    )
    np.testing.assert_allclose(
        W.exponential(7, tau=3.0, dtype=mt.float64).numpy(), np.exp(-np.abs(n - 3) / 3.0)
    )
    e = W.exponential(5, center=1.0, tau=2.0, sym=False, dtype=mt.float64).numpy()
    np.testing.assert_allclose(e, np.exp(-np.abs(np.arange(5.0) - 1) / 2.0))
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    k = 2 * np.pi * n / 6
    want = sum((-1) ** i * c * np.cos(i * k) for i, c in enumerate(a))
    np.testing.assert_allclose(W.nuttall(7, dtype=mt.float64).numpy(), want, atol=1e-15)
    assert W.hann(5).dtype is mt.float32 and W.hann(0).shape == (0,) and W.hann(1).tolist() == [1.0]


def test_window_errors_are_torchs():
    for call, exc, msg in (
        (lambda: W.hann(-1), ValueError, "requires non-negative window length, got M=-1"),
        (lambda: W.gaussian(5, std=0), ValueError, "Standard deviation must be positive"),
        (lambda: W.exponential(5, center=1.0), ValueError, "Center must be None for symmetric"),
        (lambda: W.hann(5, dtype=mt.int64), ValueError, "expects float32 or float64 dtypes"),
        (lambda: W.general_cosine(5, a=0.5), TypeError, "Coefficients must be a list/tuple"),
        (lambda: W.kaiser(5, beta=-1), ValueError, "beta must be non-negative"),
    ):
        with pytest.raises(exc, match=msg):
            call()
