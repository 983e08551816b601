"""torch._foreach_* over lists of tensors (minitorch/_foreach.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _lists():
    rng = np.random.default_rng(0)
    return [mt.tensor(rng.standard_normal(s), dtype=mt.float32) for s in ((3,), (2, 2))]


def test_in_place_ops_match_the_per_tensor_ops():
    ema = _lists()
    want = [e.clone() for e in ema]
    mt._foreach_lerp_(ema, [p * 0 + 1 for p in ema], 0.1)  # an EMA update
    for w in want:
        w.lerp_(mt.ones_like(w), 0.1)
    for got, w in zip(ema, want, strict=True):
        np.testing.assert_array_equal(got.numpy(), w.numpy())
    xs = _lists()
    mt._foreach_mul_(xs, 2.0)
    mt._foreach_add_(xs, _lists(), alpha=0.5)
    for x, y in zip(xs, _lists(), strict=True):
        np.testing.assert_allclose(x.numpy(), 2.5 * y.numpy(), rtol=1e-6)
    mt._foreach_maximum_(xs, 0.0)  # a number: clamp_min
    assert all((x >= 0).all() for x in xs)
    mt._foreach_zero_(xs)
    assert all((x == 0).all() for x in xs)


def test_out_of_place_ops_and_norm():
    xs = _lists()
    outs = mt._foreach_sqrt(mt._foreach_abs(xs))
    for o, x in zip(outs, xs, strict=True):
        np.testing.assert_allclose(o.numpy(), np.sqrt(np.abs(x.numpy())), rtol=1e-6)
    norms = mt._foreach_norm(xs)
    np.testing.assert_allclose(
        [n.item() for n in norms], [np.linalg.norm(x.numpy()) for x in xs], rtol=1e-6
    )
    got = mt._foreach_addcmul([mt.ones(1)], [mt.tensor([2.0])], [mt.tensor([3.0])], 0.5)
    assert got[0].item() == 4.0
    mt._foreach_copy_(xs, [mt.zeros(3), mt.ones(2, 2)])
    assert xs[1].sum().item() == 4.0


def test_list_lengths_must_match():
    with pytest.raises(RuntimeError, match="same number of tensors"):
        mt._foreach_add(_lists(), [mt.ones(3)])
    with pytest.raises(TypeError, match="tuple of Tensors"):
        mt._foreach_add(mt.ones(3), 1.0)
