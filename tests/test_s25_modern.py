"""Session 25 (modern model components): scaled_dot_product_attention's half-precision flash
path and its error order, with torch 2.13's values as literals."""

from __future__ import annotations

import pytest

import minitorch
import minitorch.nn.functional as F

Q = [[[[1.5390625, -0.29296875, -2.171875, 0.5703125], [-1.0859375, -1.3984375, 0.404296875, 0.83984375], [-0.71875, -0.404296875, -0.59765625, 0.181640625]]]]  # fmt: skip  # noqa: E501
K = [[[[-0.85546875, 1.1015625, -1.0703125, 0.12255859375], [-0.56640625, 0.373046875, -0.890625, -1.5078125], [0.37109375, 1.453125, 0.94140625, 0.7734375]]]]  # fmt: skip  # noqa: E501
V = [[[[0.19140625, 1.265625, -1.2890625, -0.79296875], [-0.0208740234375, -0.71875, 0.51953125, -1.3125], [0.1923828125, 0.54296875, -2.21875, 0.259765625]]]]  # fmt: skip  # noqa: E501


def test_bf16_flash_attention_rounds_the_numerators_as_torch():
    # torch's CPU flash kernel rounds exp(s - rowmax) to bfloat16 before the product with
    # value (computing in float32 and rounding once gave 0.45703125 and 0.3828125 here)
    pytest.importorskip("ml_dtypes")
    q, k, v = (minitorch.tensor(x).bfloat16() for x in (Q, K, V))
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.dtype is minitorch.bfloat16
    assert out.float().tolist() == [
        [
            [
                [0.1171875, 0.453125, -0.8046875, -0.8046875],
                [0.1298828125, 0.458984375, -1.046875, -0.6171875],
                [0.109375, 0.380859375, -0.734375, -0.828125],
            ]
        ]
    ]
    # the same path with a row whose every key is masked (0) and its gradient (finite)
    q.requires_grad_()
    mask = minitorch.tensor([[True, False, False], [False, False, False], [True, True, True]])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out[0, 0, 1].float().tolist() == [0.0, 0.0, 0.0, 0.0]
    assert out[0, 0, 0].float().tolist() == [0.19140625, 1.265625, -1.2890625, -0.79296875]
    out.float().sum().backward()
    assert bool(minitorch.isfinite(q.grad.float()).all())


def test_sdpa_reports_a_mask_that_does_not_fit_before_a_short_value():
    # torch adds the mask to the scores before their product with value
    q, k = minitorch.randn(2, 6, 5, 4), minitorch.randn(2, 6, 3, 4)
    with pytest.raises(RuntimeError) as e:
        F.scaled_dot_product_attention(q, k, q, attn_mask=minitorch.zeros(6, 5, 5))
    assert str(e.value) == (
        "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 3"
    )
