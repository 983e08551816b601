"""Session 26 (helper optres): library fixes found by the optimisation-research programs
(tests/reference/test_s26_optres_reference.py), with torch 2.13's values as literals."""

from __future__ import annotations

import math

import pytest

import minitorch


@pytest.mark.parametrize(
    "dt, h_want, m_want",
    [
        (
            "float16",
            [-0.7236328125, -0.2235107421875, math.nan, 0.2235107421875, 0.7236328125],
            [-0.7431640625, -0.37158203125, 0.0, 0.37158203125, 0.7431640625],
        ),
        (
            "bfloat16",
            [-0.71875, -0.2177734375, 0.0, 0.2177734375, 0.71875],
            [-0.75390625, -0.376953125, 0.0, 0.376953125, 0.75390625],
        ),
    ],
)
def test_adam_tensor_beta1_cast_to_param_dtype(dt, h_want, m_want):
    # torch's single-tensor Adam casts a tensor beta1 to the parameter's dtype before the first
    # moment's lerp weight 1 - beta1 (float16(0.9) = 0.89990234375, so the weight is 0.10009...)
    half = getattr(minitorch, dt)
    h = minitorch.linspace(-1, 1, 5, dtype=half).requires_grad_()
    opt = minitorch.optim.Adam([h], lr=0.1, betas=(minitorch.tensor(0.9), minitorch.tensor(0.99)))
    for i in range(3):
        h.grad = (minitorch.arange(5, dtype=half) - 2) * (0.3 + i)
        opt.step()
    got_h = h.detach().float().tolist()
    assert [x for x in got_h if not math.isnan(x)] == [x for x in h_want if not math.isnan(x)]
    assert [math.isnan(x) for x in got_h] == [math.isnan(x) for x in h_want]
    assert opt.state[h]["exp_avg"].float().tolist() == m_want


@pytest.mark.parametrize(
    "dt, m_want, p_want",
    [("float16", 0.030029296875, 0.3994140625), ("bfloat16", 0.030517578125, 0.3984375)],
)
def test_adamw_tensor_beta1_half_first_step(dt, m_want, p_want):
    half = getattr(minitorch, dt)
    h = minitorch.tensor([0.5], dtype=half, requires_grad=True)
    h.grad = minitorch.tensor([0.3], dtype=half)
    betas = (minitorch.tensor(0.9), minitorch.tensor(0.99))
    opt = minitorch.optim.AdamW([h], lr=0.1, betas=betas)
    opt.step()
    assert opt.state[h]["exp_avg"].float().tolist() == [m_want]
    assert h.detach().float().tolist() == [p_want]
