"""SobolEngine against torch's: the same points, state and errors across dimensions, scrambling
seeds, dtypes and interleavings of draw/draw_base2/fast_forward/reset."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

SCRIPT = [
    ("draw", 1), ("draw", 5), ("ff", 3), ("draw", 1), ("draw", 700), ("ff", 0), ("draw", 7),
    ("reset",), ("draw", 2), ("b2", 1), ("b2", 2), ("ff", 9), ("draw", 3),
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "dimension,scramble,seed",
    [
        (1, False, None),
        (2, False, None),
        (3, True, 1),
        (7, True, 123),
        (64, True, 5),
        (300, False, None),
        (2000, True, 0),
    ],  # fmt: skip
)
def test_sequences_match_torch(dimension, scramble, seed, dtype):
    mine = minitorch.quasirandom.SobolEngine(dimension, scramble=scramble, seed=seed)
    ref = torch.quasirandom.SobolEngine(dimension, scramble=scramble, seed=seed)
    assert repr(mine) == repr(ref)
    np.testing.assert_array_equal(mine.sobolstate.numpy(), ref.sobolstate.numpy())
    for op, *arg in SCRIPT:
        if op == "draw":
            got = mine.draw(*arg, dtype=getattr(minitorch, dtype)).numpy()
            want = ref.draw(*arg, dtype=getattr(torch, dtype)).numpy()
        elif op == "b2":
            got, want = mine.draw_base2(*arg).numpy(), ref.draw_base2(*arg).numpy()
        elif op == "ff":
            mine.fast_forward(*arg), ref.fast_forward(*arg)
            continue
        else:
            mine.reset(), ref.reset()
            continue
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert mine.num_generated == ref.num_generated
        np.testing.assert_array_equal(mine.quasi.numpy(), ref.quasi.numpy())


def test_unseeded_scrambling_follows_the_global_stream():
    minitorch.manual_seed(11)
    torch.manual_seed(11)
    a = minitorch.quasirandom.SobolEngine(6, scramble=True).draw(9)
    b = torch.quasirandom.SobolEngine(6, scramble=True).draw(9)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(minitorch.rand(4).numpy(), torch.rand(4).numpy())


def test_default_dtype_float64():
    old = minitorch.get_default_dtype()
    minitorch.set_default_dtype(minitorch.float64)
    torch.set_default_dtype(torch.float64)
    try:
        a = minitorch.quasirandom.SobolEngine(3, scramble=True, seed=9).draw(4)
        b = torch.quasirandom.SobolEngine(3, scramble=True, seed=9).draw(4)
    finally:
        minitorch.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)
    assert a.dtype is minitorch.float64
    np.testing.assert_array_equal(a.numpy(), b.numpy())
