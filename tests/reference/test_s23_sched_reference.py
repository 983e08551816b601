"""Session 23: lr schedulers and swa_utils against torch, a seeded slice of the differential
fuzzer (lr / momentum sequences, state dicts, warnings, errors; AveragedModel updates)."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

_SCHEDULERS = [
    "torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)",
    "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.7)",
    "torch.optim.lr_scheduler.ConstantLR(opt, factor=0.4, total_iters=6)",
    "torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, end_factor=0.9, total_iters=7)",
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.93)",
    "torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=9, power=1.7)",
    "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.001)",
    "torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.01)",
    "torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=3, "
    "step_size_down=5, mode='exp_range', gamma=0.97, base_momentum=[0.6, 0.7])",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.3, total_steps=40, pct_start=0.25, "
    "anneal_strategy='linear', three_phase=True)",
    "torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=[lambda e: 0.9 ** e, lambda e: 1 / (e + 1)])",
    "torch.optim.lr_scheduler.MultiplicativeLR(opt, lr_lambda=lambda e: 0.95)",
    "torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[torch.optim.lr_scheduler.ConstantLR("
    "opt, factor=0.5, total_iters=4), torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)], "
    "milestones=[6])",
    "torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.StepLR(opt, 4, 0.5), "
    "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.97)])",
    "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='max', factor=0.5, patience=1, "
    "threshold=0.01, threshold_mode='abs', cooldown=1, min_lr=[0.0, 0.01])",
    "torch.optim.swa_utils.SWALR(opt, swa_lr=[0.02, 0.05], anneal_epochs=4, anneal_strategy='cos')",
]


def _plain(v):
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return v.tolist()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if callable(v):
        return "<callable>"
    return v


def _close(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


def _run(lib, ctor, actions):
    ns = {"torch": lib}
    exec(
        "params = [torch.nn.Parameter(torch.tensor([0.5, -0.25], dtype=torch.float64)) "
        "for _ in range(2)]\n"
        "opt = torch.optim.SGD([{'params': [params[0]], 'lr': 0.1, 'momentum': 0.9}, "
        "{'params': [params[1]], 'lr': 0.05, 'momentum': 0.5}], lr=0.1)\n"
        "sched = " + ctor,
        ns,
    )
    trace = []
    for action in actions:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(action, ns)
                error = None
            except Exception as e:  # noqa: BLE001
                error = (type(e).__name__, str(e))
        sched, opt = ns["sched"], ns["opt"]
        trace.append(
            (
                action,
                error,
                [str(w.message) for w in caught],
                [g["lr"] for g in opt.param_groups],
                [g["momentum"] for g in opt.param_groups],
                _plain(sched.state_dict()),
            )
        )
    return trace


@pytest.mark.parametrize("index", range(len(_SCHEDULERS)))
def test_lr_sequence_state_dict_and_warnings_match_torch(index):
    ctor = _SCHEDULERS[index]
    rng = random.Random(index)
    actions = []
    for _ in range(60):
        x = rng.random()
        if "ReduceLROnPlateau" in ctor:
            actions.append(f"opt.step(); sched.step({rng.choice([0.1, 0.5, 0.52, 1.0])})")
        elif x < 0.05 and "Sequential" not in ctor and "Chained" not in ctor:
            actions.append(f"opt.step(); sched.step({rng.randint(0, 30)})")
        elif x < 0.08:
            actions.append("_g = sched.get_lr()")
        elif x < 0.1:
            actions.append("_sd = sched.state_dict()")
        else:
            actions.append("opt.step(); sched.step()")
    expected = _run(torch, ctor, actions)
    got = _run(minitorch, ctor, actions)
    for e, g in zip(expected, got, strict=True):
        assert e[:3] == g[:3], e[0]
        assert _close(_plain(list(e[3:])), _plain(list(g[3:]))), e[0]


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("fn", ["ema", "swa", "custom", None])
def test_averaged_model_matches_torch(fn, use_buffers):
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
        model = model.double()
        for i, p in enumerate(model.parameters()):
            p.data.copy_(lib.cos(lib.arange(p.numel(), dtype=lib.float64) + i).reshape(p.shape))
        calls = []

        def custom(avg, cur, n):
            calls.append([str(a.dtype) for a in avg])
            for a, c in zip(avg, cur, strict=True):
                if a.dtype.is_floating_point:
                    a.lerp_(c, 0.3)

        swa_utils = lib.optim.swa_utils
        kwargs = {
            "ema": {"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.8)},
            "swa": {"avg_fn": swa_utils.get_swa_avg_fn()},
            "custom": {"multi_avg_fn": custom},
            None: {},
        }[fn]
        swa = swa_utils.AveragedModel(model, use_buffers=use_buffers, **kwargs)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        data = [lib.sin(lib.arange(12, dtype=lib.float64) + k).reshape(4, 3) for k in range(3)]
        for _ in range(4):
            for x in data:
                opt.zero_grad()
                model(x).pow(2).mean().backward()
                opt.step()
            swa.update_parameters(model)
        swa_utils.update_bn([(x, x) for x in data], swa)
        state = {k: v.tolist() for k, v in swa.state_dict().items()}
        return state, calls, swa(data[0]).tolist()

    expected, got = run(torch), run(minitorch)
    assert expected[1] == got[1]
    assert expected[0].keys() == got[0].keys()
    for key in expected[0]:
        np.testing.assert_allclose(expected[0][key], got[0][key], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(expected[2], got[2], rtol=1e-9, atol=1e-12)
