"""Session 36 (helper bf16train): torch-free regression tests of the library fixes the bfloat16
programs of tests/reference/test_s36_bf16train_reference.py found, all in batch norm of half
inputs: torch's bfloat16 kernel (contiguous or channels-last input, parameters and running
statistics in bfloat16) keeps the momentum, the batch's sum of squares and each product of its
running-statistics update in bfloat16, and its backward normalizes with the rounded batch mean;
the cumulative average's factor (momentum=None) is a Python float, which torch's float16 kernel
reads in float32. Also linalg.eig/eigvals of a half-precision matrix: torch's NotImplementedError
(after its rank and shape checks). torch's values and messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

pytest.importorskip("ml_dtypes")

ROWS = [[0.5, 1.5, 2.25, -3.0, 7.0], [1, 2, 3, 4, 5], [0.25, -1, 2, 6, 1]]


def _check(got, want, what):
    np.testing.assert_array_equal(
        got.detach().float().numpy(), np.array(want, np.float32), err_msg=what
    )


def test_bfloat16_running_stats_round_as_torch():
    x = mt.tensor(ROWS[:2], dtype=mt.bfloat16)
    rm, rv = mt.zeros(5, dtype=mt.bfloat16), mt.ones(5, dtype=mt.bfloat16)
    mt.nn.functional.batch_norm(x, rm, rv, training=True)
    # momentum 0.1 is 0.10009765625 in bfloat16, 1 - momentum 0.8984375
    _check(rm, [0.0751953125, 0.1748046875, 0.263671875, 0.050048828125, 0.6015625], "mean")
    _check(rv, [0.91015625, 0.91015625, 0.92578125, 3.34375, 1.1015625], "var")


def test_bfloat16_running_stats_channels_last():
    x = mt.tensor(ROWS, dtype=mt.bfloat16).reshape(3, 5, 1, 1).expand(3, 5, 2, 1)
    x = x.contiguous().to(memory_format=mt.channels_last)
    m = mt.nn.BatchNorm2d(5, momentum=0.3).bfloat16()
    m(x)
    _check(m.running_mean, [0.1748046875, 0.25, 0.7265625, 0.69921875, 1.3046875], "mean")
    _check(m.running_var, [0.734375, 1.3203125, 0.765625, 6.0625, 2.9375], "var")


def test_bfloat16_backward_uses_rounded_mean():
    x = mt.tensor(ROWS, dtype=mt.bfloat16).requires_grad_(True)
    m = mt.nn.BatchNorm1d(5).bfloat16()
    y = m(x)
    (y * mt.arange(15.0).reshape(3, 5).to(mt.bfloat16)).sum().backward()
    _check(
        y,
        [[-0.263671875, 0.5078125, -0.40625, -1.375, 1.0625],
         [1.3359375, 0.890625, 1.3671875, 0.431640625, 0.263671875],
         [-1.0625, -1.3984375, -0.99609375, 0.9453125, -1.3359375]],
        "out",
    )  # fmt: skip
    _check(
        x.grad,
        [[-17.125, -2.578125, -12.8125, 0.08447265625, -0.28125],
         [5.625, 2.140625, 3.4375, -0.431640625, 0.42578125],
         [11.5625, 0.44140625, 9.3125, 0.341796875, -0.1640625]],
        "grad input",
    )  # fmt: skip
    _check(m.weight.grad, [-3.9375, -9.5, -3.203125, 11.625, -12.125], "grad weight")
    _check(m.bias.grad, [15.0, 18.0, 21.0, 24.0, 27.0], "grad bias")


def test_float16_cumulative_average_factor_in_float32():
    x = mt.tensor(ROWS, dtype=mt.float16)
    m = mt.nn.BatchNorm1d(5, momentum=None).half()
    for i in range(3):
        m(x * (i + 1))
    # (the factor 1 / 3 rounded to float16 first gives other values)
    _check(m.running_mean, [1.1669921875, 1.6669921875, 4.83203125, 4.66796875, 8.6640625], "mean")
    _check(m.running_var, [0.6806640625, 12.0546875, 1.263671875, 104.25, 43.5625], "var")
    assert m.num_batches_tracked.item() == 3


@pytest.mark.parametrize("name", ["eig", "eigvals"])
@pytest.mark.parametrize("dtype, short", [("bfloat16", "BFloat16"), ("float16", "Half")])
def test_eig_of_half_matrix_not_implemented(name, dtype, short):
    fn = getattr(mt.linalg, name)
    a = mt.eye(3, dtype=getattr(mt, dtype))
    with pytest.raises(NotImplementedError) as info:
        fn(a)
    assert str(info.value) == f"\"linalg_eig_out_cpu\" not implemented for '{short}'"
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        fn(a[0])
