"""Session 25 (helper ext): LR-scheduler call-order warnings for user code that steps the
optimizer before attaching a scheduler or overrides optimizer.step afterwards, and the type
aliases custom optimizers import from minitorch.optim.optimizer. Expected values from torch 2.13."""

from __future__ import annotations

import warnings

import minitorch

_ORDER = "Detected call of `lr_scheduler.step()` before `optimizer.step()`."
_OVERRIDDEN = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`. "
    "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _opt():
    w = minitorch.nn.Parameter(minitorch.zeros(2))
    return minitorch.optim.SGD([w], lr=0.1)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


def test_step_before_the_scheduler_is_built_does_not_count():
    # torch starts watching optimizer.step() when the first scheduler attaches
    opt = _opt()
    opt.step()
    sched = minitorch.optim.lr_scheduler.StepLR(opt, step_size=2)
    msgs = _messages(sched.step)
    assert len(msgs) == 1 and msgs[0][0] is UserWarning, msgs
    assert msgs[0][1].startswith(_ORDER), msgs
    # a second scheduler sees the steps taken since the first attached
    opt.step()
    second = minitorch.optim.lr_scheduler.StepLR(opt, step_size=2)
    assert _messages(second.step) == []


def test_one_cycle_after_an_early_step_warns_too():
    opt = _opt()
    opt.step()
    sched = minitorch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5)
    assert [m[1][: len(_ORDER)] for m in _messages(sched.step)] == [_ORDER]


def test_step_overridden_after_the_scheduler_warns():
    opt = _opt()
    sched = minitorch.optim.lr_scheduler.StepLR(opt, step_size=2)
    original = opt.step
    opt.step = lambda *a, **k: original(*a, **k)

    def run():
        opt.step()
        sched.step()
        sched.step()

    assert _messages(run) == [(UserWarning, _OVERRIDDEN)]
    # the usual order stays silent
    opt = _opt()
    sched = minitorch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)

    def usual():
        for _ in range(3):
            opt.step()
            sched.step()

    assert _messages(usual) == []
    assert sched.get_last_lr() == [0.0125]


def test_optimizer_type_aliases():
    from minitorch.optim.optimizer import Kwargs, ParamsT, StateDict

    assert repr(StateDict) == "dict[str, typing.Any]"
    assert repr(Kwargs) == "dict[str, typing.Any]"
    assert ParamsT is not None
