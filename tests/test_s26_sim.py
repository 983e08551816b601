"""Session 26 (sim): library fixes found by the simulation programs of
tests/reference/test_s26_sim_reference.py, each checked against values obtained by running
torch 2.13 (stated here as literals; this file does not import torch)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch


def _vals(t):
    return np.array(t.tolist(), dtype=np.float64)


def test_round_decimals_past_double_range_gives_nan():
    # torch: the scale 10**|decimals| overflows to inf, so x * inf / inf (or x / inf * inf) is
    # NaN everywhere; minitorch raised OverflowError from Python's 10.0**400
    x = minitorch.tensor([1.5e-3, 3.14159, -2.5, 0.0], dtype=minitorch.float64)
    for d in (400, -400, 10**6, 330):
        out = minitorch.round(x, decimals=d)
        assert np.isnan(_vals(out)).all(), (d, out)
    y = x.clone()
    y.round_(decimals=330)
    assert np.isnan(_vals(y)).all()
    assert np.isnan(_vals(x.float().round(decimals=309))).all()
    # within range: torch's [0.0015, inf, -inf, 0.0] (3.14159 * 1e308 overflows)
    np.testing.assert_array_equal(
        _vals(minitorch.round(x, decimals=308)), [0.0015, math.inf, -math.inf, 0.0]
    )


def test_round_decimals_gradient_is_zero_past_range():
    x = minitorch.tensor([1.5, 2.25], dtype=minitorch.float64, requires_grad=True)
    (g,) = minitorch.autograd.grad(minitorch.round(x, decimals=400).sum(), x)
    np.testing.assert_array_equal(_vals(g), [0.0, 0.0])


def test_slogdet_double_backward_of_singular_matrix_names_solve():
    # torch's create_graph backward of slogdet/logdet solves A^T X = g I with linalg.solve and
    # fails there: its message, not linalg.inv's
    eye = minitorch.eye(2, dtype=minitorch.float64)
    sing = minitorch.tensor([[0.0, 0.0], [0.25, 2.0]], dtype=minitorch.float64)
    cases = [
        (sing, "torch.linalg.solve: The solver failed because the input matrix is singular."),
        (
            minitorch.stack([eye, sing]),
            "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix "
            "is singular.",
        ),
    ]
    for a, msg in cases:
        for fn in (lambda x: minitorch.linalg.slogdet(x)[1], minitorch.logdet):
            a = a.detach().requires_grad_(True)
            out = fn(a).sum()
            with pytest.raises(minitorch.linalg.LinAlgError) as info:
                minitorch.autograd.grad(out, a, create_graph=True)
            assert str(info.value) == msg
