"""Session 32 (helper distill): torch-free checks of what the knowledge-distillation programs in
tests/reference/test_s32_distill_reference.py found: torch's CPU nll_loss (so cross_entropy
with class-index targets) reduces float16/bfloat16 losses by a cascade of sums rounded to the
half type, weighted terms rounded to it first, and divides by a total weight summed the same
way; kl_div's target gradient adds its parts in torch's order; a half-precision mse_loss mean
backward scales by torch's rounded norm (torch 2.13's values are written below as literals)."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional


def _inputs(dt):
    x = (mt.arange(40 * 5, dtype=mt.float64).reshape(40, 5) * 0.37).sin() * 3
    y = (mt.arange(40) * 7) % 5
    y[::6] = -100
    w = mt.tensor([0.7, 1.3, 0.45, 2.1, 1.0], dtype=mt.float64)
    return x.to(dt), y, w.to(dt)


# torch 2.13's results on the CPU (a float32 sum rounded once gives nllw_sum 77.5 in both)
HALF_NLL = {
    "float16": {
        "nll_sum": 65.8125,
        "nllw_sum": 77.4375,
        "nll_mean": 1.994140625,
        "nllw_mean": 2.052734375,
        "seg_sum": 77.5625,
        "seg_w_mean": 2.07421875,
    },
    "bfloat16": {
        "nll_sum": 66.0,
        "nllw_sum": 77.0,
        "nll_mean": 2.0,
        "nllw_mean": 2.046875,
        "seg_sum": 77.5,
        "seg_w_mean": 2.0625,
    },
}


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_nll_loss_is_reduced_in_the_half_type_as_torch(name):
    dt = getattr(mt, name)
    x, y, w = _inputs(dt)
    lp = F.log_softmax(x, 1)
    got = {}
    for red in ("sum", "mean"):
        got["nll_" + red] = F.nll_loss(lp, y, reduction=red)
        got["nllw_" + red] = F.nll_loss(lp, y, weight=w, reduction=red)
    seg = x[:36].reshape(2, 3, 6, 5).transpose(1, 3)  # (N, C, d1, d2) = (2, 5, 6, 3)
    ys = y[:36].reshape(2, 6, 3).clamp(min=0)
    got["seg_sum"] = F.cross_entropy(seg, ys, reduction="sum")
    got["seg_w_mean"] = F.cross_entropy(seg, ys, weight=w)
    for key, want in HALF_NLL[name].items():
        assert got[key].dtype == dt, key
        assert got[key].item() == want, (key, got[key].item(), want)


@pytest.mark.parametrize(
    "name, row",
    [
        (
            "float16",
            [0.005939483642578125, 0.0036220550537109375, -0.0103302001953125,
             0.0005707740783691406, 0.00018906593322753906],
        ),
        (
            "bfloat16",
            [0.0059814453125, 0.0036468505859375, -0.0103759765625, 0.000576019287109375,
             0.00018787384033203125],
        ),
    ],
)  # fmt: skip
def test_half_cross_entropy_gradient_divides_by_the_half_total_weight(name, row):
    x, y, w = _inputs(getattr(mt, name))
    x.requires_grad_()
    F.cross_entropy(x, y, weight=w).backward()
    assert x.grad[1].tolist() == row


def test_half_nll_loss_edge_cases():
    lp = F.log_softmax(mt.zeros(3, 4, dtype=mt.float16), 1)
    ignored = mt.full((3,), -100)
    assert F.nll_loss(lp, ignored).isnan().item()
    assert F.nll_loss(lp, ignored, reduction="sum").item() == 0.0
    assert F.nll_loss(lp[:0], ignored[:0]).isnan().item()
    # a single target (the unbatched input) and a count that float16 cannot hold exactly
    assert F.nll_loss(lp[0], mt.tensor(2)).item() == 1.38671875
    big = F.log_softmax(mt.zeros(2049, 2, dtype=mt.float16), 1)
    out = F.nll_loss(big, mt.zeros(2049, dtype=mt.long))
    assert out.item() == 0.6953125  # 1424 / 2048 (a float32 sum: 1421.0)
    assert F.nll_loss(big, mt.zeros(2049, dtype=mt.long), reduction="sum").item() == 1424.0
    # float32 is summed as before
    lp32 = F.log_softmax(mt.zeros(3, 4), 1)
    assert F.nll_loss(lp32, mt.tensor([0, 1, 2])).item() == pytest.approx(1.3862943611198906)


def _kl_inputs():
    ar = mt.arange(12, dtype=mt.float64).reshape(3, 4)
    a = ((ar * 0.91).sin() * 2).half().requires_grad_()
    b = ((ar * 0.53).cos().abs() + 0.1).half().requires_grad_()
    g = (ar * 1.7).sin().half()
    return a, b, g


def test_half_kl_div_target_gradient_adds_its_parts_in_torchs_order():
    # torch evaluates target * input before xlogy(target, target), so in backward the product's
    # part of the target's gradient is added last: ((log t + 1) g) - input g, rounded as such
    a, b, g = _kl_inputs()
    F.kl_div(a, b, reduction="none").backward(g)
    assert b.grad.tolist() == [
        [0.0, -0.6123046875, 0.37548828125, 1.783203125],
        [0.732421875, 2.359375, -1.79296875, -0.474853515625],
        [-1.08984375, -1.0859375, 0.06005859375, -0.3134765625],
    ]
    a, b, g = _kl_inputs()
    F.kl_div(a, b - 1.0, reduction="none", log_target=True).backward(g)
    assert b.grad.tolist() == [
        [0.0, -0.58837890625, 0.2286376953125, 0.261474609375],
        [0.5341796875, 2.314453125, -1.982421875, -0.44921875],
        [-0.6201171875, -0.29541015625, -0.01123046875, -0.313232421875],
    ]


@pytest.mark.parametrize(
    "name, loss, grad",
    [
        (
            "float16",
            1.3955078125,
            [-0.599609375, 0.26416015625, 0.7109375, 0.52783203125, -0.1209716796875,
             -0.79248046875, -1.0234375, -0.5966796875, 0.325927734375, 1.2861328125],
        ),
        (
            "bfloat16",
            1.3984375,
            [-0.6015625, 0.26171875, 0.7109375, 0.52734375, -0.12109375, -0.796875, -1.0234375,
             -0.59375, 0.326171875, 1.28125],
        ),
    ],
)  # fmt: skip
def test_half_mse_mean_backward_scales_by_the_rounded_norm_as_torch(name, loss, grad):
    # torch: norm 2 / n rounded to the half type, times the difference, times the upstream
    # gradient (3), each rounded; the mean's grad / n rounded first differs in half the entries
    ar = mt.arange(10, dtype=mt.float64)
    a = ((ar * 0.77).sin() * 2).to(getattr(mt, name)).requires_grad_()
    b = (ar * 0.31).cos().to(getattr(mt, name))
    out = F.mse_loss(a, b)
    (out * 3).backward()
    assert out.item() == loss
    assert out.grad_fn.name() == "MseLossBackward0"
    assert a.grad.tolist() == grad


def test_half_mse_mean_of_nothing_and_double_backward():
    a = mt.zeros(0, 4, dtype=mt.float16, requires_grad=True)
    out = F.mse_loss(a, mt.zeros(0, 4, dtype=mt.float16))
    assert out.isnan().item()
    out.backward()
    assert a.grad.shape == (0, 4)
    x = mt.tensor([0.5, -1.0, 2.0], dtype=mt.float16, requires_grad=True)
    (g,) = mt.autograd.grad(F.mse_loss(x, mt.zeros(3, dtype=mt.float16)), x, create_graph=True)
    assert g.tolist() == [0.333251953125, -0.66650390625, 1.3330078125]
    g.sum().backward()
    assert x.grad.tolist() == [0.66650390625, 0.66650390625, 0.66650390625]
