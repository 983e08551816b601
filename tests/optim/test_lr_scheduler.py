"""LR schedulers: their sequences against closed forms, state dicts, composition, warnings."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim
from minitorch.optim import lr_scheduler as S


def _opt(lr=0.1, groups=1, cls=optim.SGD, **kw):
    params = [{"params": [nn.Parameter(minitorch.ones(2))]} for _ in range(groups)]
    return cls(params, lr=lr, **kw)


def _lrs(opt, sched, steps, group=0):
    """The lr at epoch 0 (after construction), then after each of `steps` steps."""
    out = [sched.get_last_lr()[group]]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr()[group])
    return out


def test_step_lr():
    opt = _opt()
    got = _lrs(opt, S.StepLR(opt, step_size=3, gamma=0.5), 9)
    want = [0.1 * 0.5 ** (e // 3) for e in range(10)]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert opt.param_groups[0]["initial_lr"] == 0.1


def test_multistep_lr_counts_repeated_milestones():
    opt = _opt()
    got = _lrs(opt, S.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.1), 6)
    np.testing.assert_allclose(got, [0.1, 0.1, 0.01, 0.01, 0.01, 1e-4, 1e-4], rtol=1e-12)


def test_constant_and_linear_lr():
    opt = _opt()
    got = _lrs(opt, S.ConstantLR(opt, factor=0.5, total_iters=3), 5)
    np.testing.assert_allclose(got, [0.05, 0.05, 0.05, 0.1, 0.1, 0.1], rtol=1e-15)
    opt = _opt()
    got = _lrs(opt, S.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=3), 5)
    np.testing.assert_allclose(got, [0.025, 0.05, 0.075, 0.1, 0.1, 0.1], rtol=1e-12)


def test_exponential_and_polynomial_lr():
    opt = _opt()
    got = _lrs(opt, S.ExponentialLR(opt, gamma=0.9), 6)
    np.testing.assert_allclose(got, [0.1 * 0.9**e for e in range(7)], rtol=1e-12)
    opt = _opt()
    got = _lrs(opt, S.PolynomialLR(opt, total_iters=4, power=2.0), 6)
    want = [0.1 * (1 - min(e, 4) / 4) ** 2 for e in range(7)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-18)


def test_cosine_annealing_follows_the_closed_form_over_two_periods():
    opt = _opt()
    T, eta_min = 6, 0.01
    got = _lrs(opt, S.CosineAnnealingLR(opt, T_max=T, eta_min=eta_min), 24)
    want = [eta_min + (0.1 - eta_min) * (1 + math.cos(math.pi * e / T)) / 2 for e in range(25)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_cosine_warm_restarts_restart_and_grow():
    opt = _opt()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    got = _lrs(opt, sched, 7)
    cos = [
        0.1 * (1 + math.cos(math.pi * t / T)) / 2
        for t, T in [(0, 2), (1, 2), (0, 4), (1, 4), (2, 4), (3, 4), (0, 8), (1, 8)]
    ]
    np.testing.assert_allclose(got, cos, rtol=1e-12)
    assert sched.T_i == 8


def test_cyclic_lr_triangle_and_momentum():
    opt = _opt(momentum=0.9)
    sched = S.CyclicLR(
        opt,
        base_lr=0.1,
        max_lr=0.5,
        step_size_up=2,
        step_size_down=2,
        base_momentum=0.8,
        max_momentum=0.9,
    )
    got, momenta = [sched.get_last_lr()[0]], [opt.param_groups[0]["momentum"]]
    for _ in range(8):
        opt.step()
        sched.step()
        got.append(sched.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
    np.testing.assert_allclose(got, [0.1, 0.3, 0.5, 0.3, 0.1, 0.3, 0.5, 0.3, 0.1], rtol=1e-12)
    np.testing.assert_allclose(
        momenta, [0.9, 0.85, 0.8, 0.85, 0.9, 0.85, 0.8, 0.85, 0.9], rtol=1e-12
    )


def test_cyclic_lr_cycles_adams_beta1():
    opt = _opt(cls=optim.Adam)
    S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3)
    assert opt.param_groups[0]["betas"] == (0.9, 0.999)
    assert opt.param_groups[0]["base_momentum"] == 0.8


def test_one_cycle_lr_warms_up_then_anneals():
    opt = _opt(cls=optim.Adam)
    total = 20
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=total, pct_start=0.25)
    got = _lrs(opt, sched, total - 1)
    assert got[0] == pytest.approx(1.0 / 25)
    assert max(got) == pytest.approx(1.0) and int(np.argmax(got)) == 4
    assert got[-1] == pytest.approx(1.0 / 25 / 1e4)
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.95)
    opt.step()
    sched.step()  # step `total` is allowed ...
    with pytest.raises(ValueError, match="Tried to step 21 times"):
        opt.step()
        sched.step()


def test_lambda_and_multiplicative_lr():
    opt = _opt(groups=2)
    sched = S.LambdaLR(opt, [lambda e: 1.0 / (e + 1), lambda e: 0.5])
    got0, got1 = _lrs(opt, sched, 3, 0), sched.get_last_lr()[1]
    np.testing.assert_allclose(got0, [0.1, 0.05, 0.1 / 3, 0.025])
    assert got1 == 0.05
    opt = _opt()
    got = _lrs(opt, S.MultiplicativeLR(opt, lambda e: 0.5), 3)
    np.testing.assert_allclose(got, [0.1, 0.05, 0.025, 0.0125])


def test_sequential_lr_switches_at_milestones():
    opt = _opt()
    warmup = S.ConstantLR(opt, factor=0.1, total_iters=2)
    decay = S.ExponentialLR(opt, gamma=0.5)
    sched = S.SequentialLR(opt, [warmup, decay], milestones=[2])
    got = _lrs(opt, sched, 4)
    np.testing.assert_allclose(got, [0.01, 0.01, 0.1, 0.05, 0.025], rtol=1e-12)


def test_chained_scheduler_composes():
    opt = _opt()
    sched = S.ChainedScheduler(
        [S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)]
    )
    got = _lrs(opt, sched, 3)
    np.testing.assert_allclose(got, [0.05, 0.045, 0.081, 0.0729], rtol=1e-12)


def test_reduce_lr_on_plateau():
    opt = _opt(groups=2)
    sched = S.ReduceLROnPlateau(opt, patience=1, factor=0.5, cooldown=1, min_lr=[0.03, 0.0])
    lrs = []
    for metric in [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]:
        opt.step()
        sched.step(metric)
        lrs.append(sched.get_last_lr())
    assert [lr[0] for lr in lrs] == [0.1, 0.1, 0.05, 0.05, 0.05, 0.03, 0.03, 0.03]
    assert [lr[1] for lr in lrs] == [0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025]
    assert sched.best == 0.5 and sched.last_epoch == 8


def test_reduce_lr_on_plateau_reads_a_tensor_metric():
    opt = _opt()
    sched = S.ReduceLROnPlateau(opt, mode="max", patience=0)
    sched.step(minitorch.tensor(1.0))
    sched.step(minitorch.tensor(0.5))
    assert sched.get_last_lr() == [pytest.approx(0.01)]


SCHEDULERS = [
    lambda o: S.StepLR(o, 3, 0.5),
    lambda o: S.MultiStepLR(o, [2, 4]),
    lambda o: S.CosineAnnealingLR(o, 5, 0.01),
    lambda o: S.CosineAnnealingWarmRestarts(o, 2, 2),
    lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3),
    lambda o: S.OneCycleLR(o, 0.5, total_steps=30),
    lambda o: S.LinearLR(o, total_iters=4),
    lambda o: S.PolynomialLR(o, 10),
    lambda o: S.SequentialLR(o, [S.LinearLR(o, total_iters=3), S.ExponentialLR(o, 0.9)], [3]),
]


@pytest.mark.parametrize("make", SCHEDULERS)
def test_state_dict_round_trip_continues_the_sequence(make):
    opt = _opt(momentum=0.9)
    sched = make(opt)
    _lrs(opt, sched, 4)
    saved_sched, saved_opt = sched.state_dict(), opt.state_dict()
    assert "optimizer" not in saved_sched
    rest = _lrs(opt, sched, 6)[1:]

    opt2 = _opt(momentum=0.9)
    sched2 = make(opt2)
    sched2.load_state_dict(saved_sched)
    opt2.load_state_dict(saved_opt)
    assert _lrs(opt2, sched2, 6)[1:] == rest


def test_resuming_needs_initial_lr():
    opt = _opt()
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups"):
        S.StepLR(opt, 2, last_epoch=3)
    S.StepLR(opt, 2)
    sched = S.StepLR(opt, 2, last_epoch=3)  # initial_lr now present
    assert sched.last_epoch == 4


def test_tensor_lr_is_updated_in_place():
    p = nn.Parameter(minitorch.ones(2))
    lr = minitorch.tensor(0.1)
    opt = optim.Adam([p], lr=lr)
    sched = S.ExponentialLR(opt, 0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr
    assert lr.item() == pytest.approx(0.05)
    assert sched.get_last_lr()[0] is not lr  # a copy


def test_warnings():
    opt = _opt()
    sched = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        sched.step(5)
    assert sched.get_last_lr() == [pytest.approx(0.1 * 0.1**2)]
    opt = _opt()
    sched = S.StepLR(opt, 2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


@pytest.mark.parametrize(
    "make, exc, message",
    [
        (lambda o: S.StepLR(None, 2), TypeError, "NoneType is not an Optimizer"),
        (lambda o: S.ConstantLR(o, factor=1.5), ValueError, "between 0 and 1"),
        (lambda o: S.CyclicLR(o, 0.1, 1.0, mode="zigzag"), ValueError, "mode is invalid"),
        (
            lambda o: S.CyclicLR(o, [0.1, 0.2], 1.0),
            ValueError,
            "base_lr must have the same length as optimizer.param_groups",
        ),
        (
            lambda o: S.CyclicLR(optim.Adagrad([nn.Parameter(minitorch.ones(1))]), 0.1, 1.0),
            ValueError,
            "optimizer must support momentum or beta1",
        ),
        (lambda o: S.OneCycleLR(o, 1.0), ValueError, "You must define either total_steps"),
        (lambda o: S.ReduceLROnPlateau(o, mode="avg"), ValueError, "mode avg is unknown!"),
        (
            lambda o: S.SequentialLR(o, [S.StepLR(o, 2)], [1]),
            ValueError,
            "number of schedulers 1 and the number of milestones to be equal to 1",
        ),
        (
            lambda o: S.ChainedScheduler([S.ReduceLROnPlateau(o)]),
            ValueError,
            "does not support `ReduceLROnPlateau`",
        ),
    ],
)
def test_errors(make, exc, message):
    with pytest.raises(exc, match=message):
        make(_opt())


def test_swalr_anneals_to_swa_lr_and_holds():
    from minitorch.optim.swa_utils import SWALR

    opt = _opt(lr=1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy="linear")
    got = _lrs(opt, sched, 6)
    np.testing.assert_allclose(got, [1.0, 0.775, 0.55, 0.325, 0.1, 0.1, 0.1], rtol=1e-12)
    assert opt.param_groups[0]["swa_lr"] == 0.1
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        SWALR(_opt(), 0.1, anneal_epochs=-1)
