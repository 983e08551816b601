"""Session 26 (practitioner training loops): library fixes found by running training-script idioms
under torch and minitorch; the expected values are torch 2.13's, obtained by running it."""

from __future__ import annotations

import pytest

import minitorch as torch


def _raises(fn):
    with pytest.raises(Exception) as info:
        fn()
    return f"{type(info.value).__name__}: {info.value}"


def test_foreach_list_length_mismatch_messages():
    a = [torch.ones(2)]
    two = [torch.ones(2), torch.ones(2)]
    # torch's texts name neither the op nor the argument
    tensors = "RuntimeError: Tensor lists must have the same number of tensors, got 1 and 2"
    assert _raises(lambda: torch._foreach_add_(a, two)) == tensors
    assert _raises(lambda: torch._foreach_mul(a, two)) == tensors
    assert _raises(lambda: torch._foreach_lerp_(a, two, 0.5)) == tensors
    assert _raises(lambda: torch._foreach_copy_(two, a)) == tensors.replace("1 and 2", "2 and 1")
    scalars = "RuntimeError: Tensor list must have same number of elements as scalar list."
    assert _raises(lambda: torch._foreach_add_(a, [1.0, 2.0])) == scalars
    assert _raises(lambda: torch._foreach_mul(two, [0.5])) == scalars
    assert _raises(lambda: torch._foreach_lerp_(a, [torch.ones(2)], [0.1, 0.2])) == scalars
    assert _raises(lambda: torch._foreach_addcmul_(a, a, a, [1.0, 2.0])) == scalars


def test_margin_ranking_loss_runs_in_float32_under_autocast():
    # torch lists margin_ranking_loss among its float32 autocast ops (CPU and CUDA): bfloat16
    # inputs and target are cast up, so the loss is float32 and unrounded
    f = torch.nn.functional.margin_ranking_loss
    a = torch.tensor([0.5, -1.25, 2.0]).bfloat16()
    b = torch.tensor([0.25, 0.75, -0.5]).bfloat16()
    y = torch.tensor([1.0, -1.0, -1.0]).bfloat16()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = f(a, b, y, margin=0.3)
        each = f(a, b, y, margin=0.3, reduction="none")
        legacy = torch.margin_ranking_loss(a, b, y, 0.3, 1)
    assert loss.dtype == each.dtype == legacy.dtype == torch.float32
    assert loss.item() == 0.949999988079071
    assert legacy.item() == 0.949999988079071
    assert each.tolist() == [0.050000011920928955, 0.0, 2.799999952316284]
    assert f(a, b, y).dtype == torch.bfloat16  # outside autocast: the inputs' dtype


def test_local_response_norm_half_4d_under_cpu_autocast_pools_in_float32():
    # torch's local_response_norm averages a 4-D+ input's squares with avg_pool3d, which CPU
    # autocast runs in float32 (it has no half kernel: outside autocast a half input is refused)
    f = torch.nn.functional.local_response_norm
    x = torch.tensor([[[[0.5, -1.5]], [[2.0, 0.25]], [[-3.0, 1.0]]]]).bfloat16()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = f(x, 2, alpha=0.5)
        out3 = f(x[:, :, 0], 2, alpha=0.5)  # a 3-D input pools with avg_pool2d: bfloat16
    assert out.dtype == torch.float32
    assert out3.dtype == torch.bfloat16
    want = [0.47777488827705383, -1.0733126401901245, 1.1620759963989258,
            0.17755544185638428, -1.0135135650634766, 0.83805251121521]  # fmt: skip
    got = out.flatten().tolist()
    assert all(abs(a - b) <= 1e-6 for a, b in zip(got, want, strict=True)), got
    with pytest.raises(NotImplementedError, match="avg_pool3d_out_frame"):
        f(x, 2)
