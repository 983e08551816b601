"""add/sub's alpha: torch's refusal for integral tensors, and the in-place fast path."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def test_float_alpha_with_integral_tensors_is_refused_like_torch():
    i = mt.ones(3, dtype=mt.int64)
    for call in (lambda: mt.add(i, i, alpha=0.5), lambda: i.add_(i, alpha=0.5),
                 lambda: mt.sub(i, 1, alpha=1.5)):
        with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
            call()
    x = mt.ones(3)
    x.add_(mt.ones(3), alpha=-0.5)  # the in-place fast path scales too
    np.testing.assert_array_equal(x.numpy(), [0.5, 0.5, 0.5])


def test_alpha_scales_a_bool_mask():
    # an additive attention mask: torch casts the mask to the result dtype, then scales it
    scores, mask = mt.zeros(4), mt.tensor([False, True, False, True])
    np.testing.assert_array_equal(mt.add(scores, mask, alpha=-1e4).numpy(), [0, -1e4, 0, -1e4])
    np.testing.assert_array_equal(scores.clone().add_(mask, alpha=5).numpy(), [0, 5, 0, 5])
    r = mt.add(mt.tensor([1, 2]), mt.tensor([True, True]), alpha=3)
    assert r.dtype == mt.int64 and r.tolist() == [4, 5]
    # bool with bool stays bool: alpha is cast to bool (a logical or)
    b = mt.add(mt.tensor([True, False]), True, alpha=2)
    assert b.dtype == mt.bool and b.tolist() == [True, True]
    assert mt.add(mt.tensor([False]), mt.tensor([True]), alpha=2).tolist() == [True]


def test_alpha_times_a_number_wraps_in_narrow_integers():
    u = mt.tensor([1, 2], dtype=mt.uint8)
    assert mt.add(u, 100, alpha=3).tolist() == [45, 46]  # 1 + 300 wraps, as torch's kernel
    assert u.clone().add_(100, alpha=3).tolist() == [45, 46]
    i = mt.tensor([1, 2], dtype=mt.int16)
    r = mt.sub(i, 200, alpha=200)
    assert r.dtype == mt.int16 and r.tolist() == [25537, 25538]
