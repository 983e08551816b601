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
