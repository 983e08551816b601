"""minitorch.quasirandom.SobolEngine: Joe and Kuo's direction numbers, torch's point order,
scrambling and state handling; the expected values are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.quasirandom import SobolEngine


def test_unscrambled_points_are_the_sobol_sequence():
    e = SobolEngine(3)
    pts = e.draw(8)
    assert pts.dtype is minitorch.float32 and pts.shape == (8, 3)
    want = [
        [0, 0, 0], [0.5, 0.5, 0.5], [0.75, 0.25, 0.25], [0.25, 0.75, 0.75],
        [0.375, 0.375, 0.625], [0.875, 0.875, 0.125], [0.625, 0.125, 0.875],
        [0.125, 0.625, 0.375],
    ]  # fmt: skip
    np.testing.assert_array_equal(pts.numpy(), want)
    assert e.num_generated == 8


def test_later_dimensions_use_the_table_and_its_recurrence():
    e = SobolEngine(1111)
    pts = e.draw(6, dtype=minitorch.float64)[:, [5, 100, 1110]]
    want = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.75, 0.25, 0.75], [0.25, 0.75, 0.25],
            [0.125, 0.625, 0.875], [0.625, 0.125, 0.375]]  # fmt: skip
    np.testing.assert_array_equal(pts.numpy(), want)


def test_every_direction_number_of_every_dimension():
    state = SobolEngine(SobolEngine.MAXDIM).sobolstate.numpy()
    assert state.shape == (21201, 30) and state.dtype == np.int64
    assert int((state % 1000003).sum()) == 321786344170
    assert int(np.bitwise_xor.reduce(state.ravel())) == 229422397
    assert state[-1, :6].tolist() == [536870912, 268435456, 939524096, 738197504, 503316480,
                                      117440512]  # fmt: skip
    assert state[-1, -3:].tolist() == [906168668, 56201214, 254952011]


def test_scrambling_with_a_seed_gives_torchs_points():
    e = SobolEngine(3, scramble=True, seed=1)
    assert e.shift.tolist() == [287468019, 388430972, 764873974]
    assert e.sobolstate[:, :3].tolist() == [
        [699466964, 415565209, 228163850],
        [817785499, 782399859, 1071308276],
        [651659468, 873090820, 475276569],
    ]
    pts = e.draw(4, dtype=minitorch.float64).tolist()
    want = [
        ["0x1.1226a00000000p-2", "0x1.726fc80000000p-2", "0x1.6cb8680000000p-1"],
        ["0x1.c49b693800000p-1", "0x1.3cc4b73800000p-1", "0x1.6810874000000p-3"],
        ["0x1.02b345f000000p-1", "0x1.275df28000000p-3", "0x1.fa5659f000000p-1"],
        ["0x1.3ced8d4000000p-3", "0x1.cc24287800000p-1", "0x1.99d43f2000000p-2"],
    ]
    assert [[float.fromhex(v) for v in row] for row in want] == pts
    assert e.quasi.tolist() == [166161514, 964986127, 429736946]


def test_first_point_keeps_the_default_dtype_of_construction():
    # torch divides the shift by 2**30 in the default dtype when the engine is made: the first
    # point is float32-rounded even when drawn as float64
    e = SobolEngine(2, scramble=True, seed=0)
    assert e._first_point.dtype is minitorch.float32
    assert e.draw(1, dtype=minitorch.float64).tolist() == [[0.47510719299316406, 0.592523992061615]]


def test_unseeded_scrambling_draws_from_the_default_generator():
    minitorch.manual_seed(3)
    a = SobolEngine(4, scramble=True).draw(5)
    after = minitorch.rand(2)
    minitorch.manual_seed(3)
    b = SobolEngine(4, scramble=True).draw(5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(after.numpy(), minitorch.rand(2).numpy())
    assert not np.array_equal(a.numpy(), SobolEngine(4, scramble=True, seed=4).draw(5).numpy())


def test_draws_continue_the_sequence_and_fast_forward_skips():
    whole = SobolEngine(5, scramble=True, seed=2).draw(40, dtype=minitorch.float64).numpy()
    e = SobolEngine(5, scramble=True, seed=2)
    parts = [e.draw(1, dtype=minitorch.float64), e.draw(6, dtype=minitorch.float64)]
    e.fast_forward(3)
    parts.append(e.draw(30, dtype=minitorch.float64))
    got = np.concatenate([p.numpy() for p in parts])
    np.testing.assert_array_equal(got, np.concatenate([whole[:7], whole[10:40]]))
    assert e.num_generated == 40
    e.reset()
    assert e.num_generated == 0
    np.testing.assert_array_equal(e.draw(4, dtype=minitorch.float64).numpy(), whole[:4])
    f = SobolEngine(5).fast_forward(0)
    assert f.num_generated == 0 and f.draw(2).tolist() == [[0.0] * 5, [0.5] * 5]


def test_state_after_draws():
    e = SobolEngine(5)
    e.draw(10)
    assert e.draw(3).tolist() == [
        [0.9375, 0.0625, 0.6875, 0.1875, 0.3125],
        [0.4375, 0.5625, 0.1875, 0.6875, 0.8125],
        [0.3125, 0.1875, 0.3125, 0.5625, 0.9375],
    ]
    assert e.quasi.tolist() == [335544320, 201326592, 335544320, 603979776, 1006632960]


def test_draw_base2_out_dtype_and_errors():
    e = SobolEngine(2)
    assert e.draw_base2(2).shape == (4, 2)
    with pytest.raises(ValueError, match=r"4 points have been previously generated, then: "
                                         r"n=4\+2\*\*1=6\. If you still"):  # fmt: skip
        e.draw_base2(1)
    out = minitorch.empty(0)
    res = SobolEngine(2).draw(3, out=out)
    assert res is out and out.tolist() == [[0, 0], [0.5, 0.5], [0.75, 0.25]]
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[-1, 2\]"):
        SobolEngine(2).draw(0)  # torch's: a fresh engine draws n - 1 after its first point
    e = SobolEngine(2)
    e.draw(2)
    assert e.draw(0).shape == (0, 2) and e.num_generated == 2
    for dt, name in [(minitorch.float16, "Half"), (minitorch.int64, "Long")]:
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            SobolEngine(2).draw(3, dtype=dt)
    for dim in (0, 21202):
        with pytest.raises(ValueError, match=r"dimensionality for SobolEngine is \[1, 21201\]"):
            SobolEngine(dim)
    assert not SobolEngine(2).draw(3).requires_grad


def test_repr():
    assert repr(SobolEngine(3)) == "SobolEngine(dimension=3)"
    assert repr(SobolEngine(3, scramble=True)) == "SobolEngine(dimension=3, scramble=True)"
    assert repr(SobolEngine(3, True, 5)) == "SobolEngine(dimension=3, scramble=True, seed=5)"
    assert minitorch.quasirandom.SobolEngine is SobolEngine
