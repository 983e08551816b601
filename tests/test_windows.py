"""Window functions and index factories (minitorch/_windows.py) against their formulas and
NumPy: values, periodic vs symmetric, dtype/device arguments, and torch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt


def _check(t, want, err, rtol=1e-12):
    np.testing.assert_allclose(t.cpu().numpy(), want, rtol=rtol, atol=1e-15, err_msg=err)


def test_symmetric_windows_match_numpy():
    for n in (1, 2, 5, 8):
        _check(mt.hann_window(n, False, dtype=mt.float64), np.hanning(n), f"hann {n}")
        _check(mt.hamming_window(n, False, dtype=mt.float64), np.hamming(n), f"hamming {n}")
        _check(mt.blackman_window(n, False, dtype=mt.float64), np.blackman(n), f"blackman {n}")
        _check(mt.bartlett_window(n, False, dtype=mt.float64), np.bartlett(n), f"bartlett {n}")
        _check(mt.kaiser_window(n, False, 7.0, dtype=mt.float64), np.kaiser(n, 7.0), f"kaiser {n}")


def test_periodic_window_is_the_longer_symmetric_one_cut():
    for fn in (
        mt.hann_window,
        mt.hamming_window,
        mt.blackman_window,
        mt.bartlett_window,
        mt.kaiser_window,
    ):
        longer = fn(7, periodic=False, dtype=mt.float64).numpy()[:6]
        _check(fn(6, dtype=mt.float64), longer, fn.__name__)


def test_window_arguments(device):
    w = mt.hamming_window(4, True, 0.5, 0.4, device=device, requires_grad=True)
    assert w.device == mt.device(device) and w.requires_grad and w.dtype is mt.float32
    _check(w.detach(), [0.1, 0.5, 0.9, 0.5], "hamming alpha beta", rtol=1e-6)
    assert mt.hann_window(0).shape == (0,)
    assert mt.kaiser_window(1).tolist() == [1.0]
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        mt.hann_window(5, dtype=mt.int64)
    with pytest.raises(RuntimeError, match="non-negative window_length, got window_length=-1"):
        mt.blackman_window(-1)


def test_kaiser_formula():
    n, beta = 5, 3.0
    a = (n - 1) / 2
    want = [np.i0(beta * math.sqrt(1 - ((k - a) / a) ** 2)) / np.i0(beta) for k in range(n)]
    _check(mt.kaiser_window(n, periodic=False, beta=beta, dtype=mt.float64), want, "kaiser")


def test_triangle_indices(device):
    for row, col, off in ((3, 3, 0), (3, 4, 1), (4, 3, -1), (2, 3, -5), (3, 2, 5), (0, 3, 0)):
        lo = mt.tril_indices(row, col, off, device=device)
        hi = mt.triu_indices(row, col, off, device=device)
        assert lo.device == mt.device(device) and lo.dtype is mt.int64
        np.testing.assert_array_equal(
            lo.cpu().numpy(),
            np.stack(np.tril_indices(row, off, col)),
            err_msg=f"tril {row} {col} {off}",
        )
        np.testing.assert_array_equal(
            hi.cpu().numpy(),
            np.stack(np.triu_indices(row, off, col)),
            err_msg=f"triu {row} {col} {off}",
        )
    assert mt.tril_indices(3, 3, dtype=mt.int32).dtype is mt.int32
    with pytest.raises(NotImplementedError, match="tril_indices.*Float"):
        mt.tril_indices(3, 3, dtype=mt.float32)
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        mt.triu_indices(-1, 3)


def test_unravel_index(device):
    idx = mt.tensor([[0, 5], [3, 4]], device=device)
    rows, cols = mt.unravel_index(idx, (2, 3))
    np.testing.assert_array_equal(rows.cpu().numpy(), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(cols.cpu().numpy(), [[0, 2], [0, 1]])
    assert rows.device == mt.device(device) and rows.dtype is mt.int64
    # out of range and negative indices wrap, as torch 2.13 computes them
    wrapped = mt.unravel_index(mt.tensor([6, -1]), mt.Size([2, 3]))
    assert [t.tolist() for t in wrapped] == [[0, 1], [0, 2]]
    assert mt.unravel_index(mt.tensor([1]), ()) == ()
    (only,) = mt.unravel_index(mt.tensor(2, dtype=mt.int32), 3)
    assert only.tolist() == 2 and only.dtype is mt.int64
    with pytest.raises(TypeError, match="integer dtype"):
        mt.unravel_index(mt.tensor([1.0]), (2, 3))
    with pytest.raises(TypeError, match="expected 'shape' to be int or sequence of ints"):
        mt.unravel_index(mt.tensor([1]), mt.tensor([2, 3]))
    with pytest.raises(ValueError, match="negative values"):
        mt.unravel_index(mt.tensor([1]), (2, -3))
