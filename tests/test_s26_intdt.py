"""Session 26 (intdt): the rounding of torch's half-precision logsumexp and last-dim
log_softmax on CPU, with torch 2.13's values as literals."""

from __future__ import annotations

import pytest

import minitorch

# (dtype, input, torch.logsumexp(x, 0)): torch rounds the exps, their sum and its log to the
# half dtype before adding the max; rounded once, these gave 0.90283203125 and 4.84375
LSE = [
    ("float16", [-5.16, 0.08, -0.15, -1.22, -4.19, -1.58], 0.9033203125),
    ("bfloat16", [-4.37, -5.42, 0.9, -4.44, 4.68, 2.87], 4.875),
]

# (dtype, input, torch.log_softmax(x, -1)): torch's last-dim kernel rounds the sum and its log
# to the half dtype; with the log unrounded, elements 3 (float16: -2.935546875) and 2
# (bfloat16: -3.953125) differed
LSM = [
    ("float16", [-3.21, -5.3, -0.99, 1.68, 4.54, 0.44],
     [-7.82421875, -9.9140625, -5.60546875, -2.93359375, -0.0751953125, -4.17578125]),
    ("bfloat16", [-4.37, -5.42, 0.9, -4.44, 4.68, 2.87],
     [-9.25, -10.25, -3.96875, -9.3125, -0.171875, -1.984375]),
]  # fmt: skip


@pytest.mark.parametrize("dt,values,want", LSE)
def test_half_logsumexp_rounds_like_torch(dt, values, want):
    x = minitorch.tensor(values, dtype=getattr(minitorch, dt))
    out = x.logsumexp(0)
    assert out.dtype == getattr(minitorch, dt)
    assert out.float().item() == want
    assert minitorch.logsumexp(x[None], 1, keepdim=True).float().tolist() == [[want]]


@pytest.mark.parametrize("dt,values,want", LSM)
def test_half_log_softmax_last_dim_rounds_like_torch(dt, values, want):
    x = minitorch.tensor(values, dtype=getattr(minitorch, dt))
    assert x.log_softmax(-1).float().tolist() == want
    assert minitorch.nn.functional.log_softmax(x[None], dim=1).float().tolist() == [want]
