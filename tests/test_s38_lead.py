"""Session 38 (lead): torch-free checks of the lead's own changes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch import _ranges


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize(
    ("start", "step", "n"),
    [(0.0, 1.0, 40), (-3.7, 0.5, 100), (1e3 / 3, -0.25, 77), (0.1, 2.0**-20, 65), (5.0, 3.0, 9)],
)
def test_float_arange_of_exact_products_keeps_the_fma_values(start, step, n, dtype):
    # a step whose products with every index are exact takes the plain multiply-add: it must
    # give the same bits as the emulated FMA of NOTE [ Range values ] (vector blocks and tail)
    got = mt.arange(start, start + n * step, step, dtype=dtype).numpy()
    V = 32 // dtype.itemsize
    idx, c, j, vec = _ranges._blocks(n, V)
    scalar = _ranges._fma(step, idx, start)
    base = _ranges._fma(step, c, start)
    if dtype is mt.float32:
        base = base.astype(np.float32).astype(np.float64)
    want = np.where(vec, _ranges._fma(j, step, base), scalar).astype(got.dtype)
    assert got.shape == (n,) and np.array_equal(got.view(np.uint8), want.view(np.uint8))


def test_float_arange_of_inexact_products_still_rounds_once():
    # 0.1's products are inexact: the emulated FMA decides the last bit (fl(fl(j*step) + s)
    # differs from round(j*step + s) for some of these)
    got = mt.arange(0.3, 0.3 + 64 * 0.1, 0.1, dtype=mt.float64).numpy()
    idx, c, j, vec = _ranges._blocks(64, 4)
    base = _ranges._fma(0.1, c, 0.3)
    want = np.where(vec, _ranges._fma(j, 0.1, base), _ranges._fma(0.1, idx, 0.3))
    naive = np.where(vec, j * 0.1 + (c * 0.1 + 0.3), idx * 0.1 + 0.3)
    assert np.array_equal(got, want) and not np.array_equal(got, naive)


def test_asarray_of_a_tensor_keeps_its_requires_grad_by_default(fresh_once):
    # torch 2.13: unspecified requires_grad is obj.requires_grad (it was False, which turned a
    # leaf's flag off in place), and torch warns once per process where that is True
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        same = mt.asarray(a)
        cast = mt.asarray(a, dtype=mt.float64)
        copied = mt.asarray(a, copy=True)
        plain = mt.asarray(mt.ones(2))
    assert same is a and a.requires_grad and a.is_leaf
    assert type(cast.grad_fn).__name__ == "ToCopyBackward0"
    assert type(copied.grad_fn).__name__ == "CloneBackward0"
    assert not plain.requires_grad
    assert [str(w.message) for w in got] == [
        "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
        "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
        "warning."
    ]
    (cast.sum() + copied.sum() * 2).backward()
    assert a.grad.tolist() == [3.0, 3.0]
    h = a * 2
    assert mt.asarray(h) is h and h.grad_fn is not None  # a non-leaf stays in the graph
    assert mt.asarray(h, requires_grad=False).is_leaf
