"""minitorch.optim.lr_scheduler and swa_utils against torch: lr sequences, state dict keys,
errors, averaged models."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(4321)
W0 = _rng.standard_normal((3, 4))
B0 = _rng.standard_normal(4)


def _params(lib, dtype):
    dt = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(W0.copy(), dtype=dt))
    b = lib.nn.Parameter(lib.tensor(B0.copy(), dtype=dt))
    return w, b


def _numpy(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


# --- schedulers ---


def _sched_cases():
    S = "optim.lr_scheduler"  # noqa: N806

    def sched(name, **kw):
        return lambda lib, opt: getattr(_get(lib, S), name)(opt, **kw)

    return [
        ("StepLR", sched("StepLR", step_size=7, gamma=0.5)),
        ("MultiStepLR", sched("MultiStepLR", milestones=[3, 8, 8, 20], gamma=0.3)),
        ("ConstantLR", sched("ConstantLR", factor=0.25, total_iters=6)),
        ("LinearLR", sched("LinearLR", start_factor=0.1, end_factor=0.9, total_iters=12)),
        ("ExponentialLR", sched("ExponentialLR", gamma=0.93)),
        ("PolynomialLR", sched("PolynomialLR", total_iters=20, power=2.0)),
        ("CosineAnnealingLR", sched("CosineAnnealingLR", T_max=9, eta_min=0.001)),
        (
            "CosineAnnealingWarmRestarts",
            sched("CosineAnnealingWarmRestarts", T_0=4, T_mult=2, eta_min=0.01),
        ),
        (
            "CyclicLR-triangular",
            sched("CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6),
        ),
        (
            "CyclicLR-triangular2",
            sched("CyclicLR", base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=5, mode="triangular2"),
        ),
        (
            "CyclicLR-exp_range",
            sched(
                "CyclicLR", base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.95
            ),
        ),
        (
            "CyclicLR-scale_fn",
            sched(
                "CyclicLR",
                base_lr=0.01,
                max_lr=0.1,
                step_size_up=3,
                scale_fn=lambda x: 1 / (1 + 0.1 * x),
                scale_mode="iterations",
            ),
        ),
        ("OneCycleLR-cos", sched("OneCycleLR", max_lr=0.5, total_steps=40)),
        (
            "OneCycleLR-linear",
            sched(
                "OneCycleLR",
                max_lr=[0.5, 0.3],
                epochs=4,
                steps_per_epoch=10,
                anneal_strategy="linear",
                pct_start=0.25,
            ),
        ),
        (
            "OneCycleLR-three_phase",
            sched("OneCycleLR", max_lr=0.5, total_steps=40, three_phase=True, div_factor=10.0),
        ),
        ("LambdaLR", sched("LambdaLR", lr_lambda=lambda e: 1 / (1 + e) ** 0.5)),
        (
            "LambdaLR-list",
            sched("LambdaLR", lr_lambda=[lambda e: 0.95**e, lambda e: 1.0 / (e + 1)]),
        ),
        ("MultiplicativeLR", sched("MultiplicativeLR", lr_lambda=lambda e: 0.97)),
        (
            "SequentialLR",
            lambda lib, opt: _get(lib, S).SequentialLR(
                opt,
                [
                    _get(lib, S).LinearLR(opt, start_factor=0.1, total_iters=5),
                    _get(lib, S).CosineAnnealingLR(opt, T_max=15),
                    _get(lib, S).ExponentialLR(opt, gamma=0.9),
                ],
                milestones=[5, 20],
            ),
        ),
        (
            "ChainedScheduler",
            lambda lib, opt: _get(lib, S).ChainedScheduler(
                [
                    _get(lib, S).ConstantLR(opt, factor=0.5, total_iters=4),
                    _get(lib, S).ExponentialLR(opt, gamma=0.95),
                ]
            ),
        ),
    ]


def _get(lib, dotted):
    for part in dotted.split("."):
        lib = getattr(lib, part)
    return lib


SCHED_CASES = _sched_cases()


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("case", SCHED_CASES, ids=[c[0] for c in SCHED_CASES])
def test_scheduler_lr_sequences_match_torch(case, opt_name):
    _, make = case
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        kw = {"momentum": 0.9} if opt_name == "SGD" else {}
        opt = getattr(lib.optim, opt_name)(
            [{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1, **kw
        )
        sched = make(lib, opt)
        seq = [sched.get_last_lr()]
        momenta = []
        for _ in range(40):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
            momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
        out.append((seq, momenta, sorted(sched.state_dict()), getattr(sched, "last_epoch", None)))
    (seq_t, mom_t, keys_t, last_t), (seq_m, mom_m, keys_m, last_m) = out
    assert seq_m == seq_t  # torch's formulas, so the very same floats
    assert mom_m == mom_t
    assert keys_m == keys_t
    assert last_m == last_t


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"mode": "max", "factor": 0.5, "patience": 2, "threshold": 0.1, "threshold_mode": "abs"},
        {"patience": 1, "cooldown": 2, "min_lr": [0.02, 0.001], "factor": 0.3},
        {"patience": 0, "eps": 0.01, "threshold_mode": "abs"},
    ],
    ids=str,
)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    metrics = [1.0, 0.9, 0.95, 0.95, 0.97, 0.8, 0.8, 0.81, 0.85, 0.7] * 4
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.05}], lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seq = []
        for m in metrics:
            opt.step()
            sched.step(lib.tensor(m) if len(seq) % 2 else m)
            seq.append(sched.get_last_lr())
        out.append((seq, sorted(sched.state_dict()), sched.num_bad_epochs, sched.best))
    assert out[1] == out[0]


def test_scheduler_epoch_argument_uses_closed_form_like_torch():
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.SGD([w, b], lr=0.1)
        s = lib.optim.lr_scheduler
        scheds = [s.StepLR(opt, 3), s.CosineAnnealingLR(opt, 10), s.PolynomialLR(opt, 8)]
        seq = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [2, 5, 7, 4, 9]:
                for sched in scheds:
                    opt.step()
                    sched.step(epoch)
                    seq.append(sched.get_last_lr())
        out.append(seq)
    assert out[1] == out[0]


def test_warm_restarts_fractional_epochs_match_torch():
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.SGD([w, b], lr=0.1)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        seq = []
        for epoch in np.arange(0, 12, 0.37):
            opt.step()
            sched.step(float(epoch))
            seq.append(sched.get_last_lr())
        out.append(seq)
    assert out[1] == out[0]


def test_scheduler_errors_match_torch():
    def make(lib):
        w, _ = _params(lib, "float64")
        return lib.optim.SGD([w], lr=0.1)

    cases = [
        lambda lib: lib.optim.lr_scheduler.StepLR(object(), 3),
        lambda lib: lib.optim.lr_scheduler.StepLR(make(lib), 3, last_epoch=4),
        lambda lib: lib.optim.lr_scheduler.ConstantLR(make(lib), factor=2.0),
        lambda lib: lib.optim.lr_scheduler.LinearLR(make(lib), start_factor=0.0),
        lambda lib: lib.optim.lr_scheduler.LinearLR(make(lib), end_factor=2.0),
        lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make(lib), T_0=0),
        lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make(lib), 2, T_mult=0),
        lambda lib: lib.optim.lr_scheduler.CyclicLR(make(lib), 0.1, 1.0, mode="bad"),
        lambda lib: lib.optim.lr_scheduler.CyclicLR(make(lib), [0.1, 0.2], 1.0),
        lambda lib: lib.optim.lr_scheduler.OneCycleLR(make(lib), 1.0),
        lambda lib: lib.optim.lr_scheduler.OneCycleLR(make(lib), 1.0, total_steps=0),
        lambda lib: lib.optim.lr_scheduler.OneCycleLR(make(lib), 1.0, 10, pct_start=1),
        lambda lib: lib.optim.lr_scheduler.OneCycleLR(make(lib), 1.0, 10, anneal_strategy="x"),
        lambda lib: lib.optim.lr_scheduler.OneCycleLR(
            lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))]), 1.0, 10
        ),
        lambda lib: _overstep(lib),
        lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make(lib), factor=1.0),
        lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make(lib), mode="avg"),
        lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make(lib), threshold_mode="x"),
        lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make(lib), min_lr=[0, 0]),
        lambda lib: lib.optim.lr_scheduler.LambdaLR(make(lib), [lambda e: 1, lambda e: 2]),
        lambda lib: lib.optim.lr_scheduler.MultiplicativeLR(make(lib), 0.5),
        lambda lib: lib.optim.lr_scheduler.SequentialLR(make(lib), [], []),
        lambda lib: _sequential_mismatch(lib),
        lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    ]
    for i, case in enumerate(cases):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = _error(lambda: case(torch)), _error(lambda: case(mt))  # noqa: B023
        assert want is not None, i
        assert got == want, i


def _overstep(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, 1.0, total_steps=3)
    for _ in range(4):
        opt.step()
        sched.step()


def _sequential_mismatch(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
    s1 = lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)
    return lib.optim.lr_scheduler.SequentialLR(opt, [s1], milestones=[3])


def test_call_order_warning_matches_torch():
    for lib in (torch, mt):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            sched.step()


# --- swa_utils ---


@pytest.mark.parametrize("strategy, epochs", [("cos", 5), ("linear", 3), ("cos", 0)])
def test_swalr_matches_torch(strategy, epochs):
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.3}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(
            opt, swa_lr=[0.05, 0.01], anneal_epochs=epochs, anneal_strategy=strategy
        )
        seq = [sched.get_last_lr()]
        for _ in range(12):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        out.append((seq, sorted(sched.state_dict())))
    assert out[1] == out[0]


def _averaging_fns(lib):
    swa = lib.optim.swa_utils
    return [
        {},
        {"avg_fn": swa.get_ema_avg_fn(0.8)},
        {"avg_fn": swa.get_swa_avg_fn()},
        {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.9)},
        {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
    ]


@pytest.mark.parametrize("which", range(5))
def test_averaged_model_matches_torch(which):
    out = []
    for lib in (torch, mt):
        model = lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            model.weight.copy_(lib.tensor(W0[:2, :3].copy()))
            model.bias.copy_(lib.tensor(B0[:2].copy()))
        avg = lib.optim.swa_utils.AveragedModel(model, **_averaging_fns(lib)[which])
        for _ in range(6):
            with lib.no_grad():
                model.weight.mul_(1.1).add_(0.3)
                model.bias.sub_(0.2)
            avg.update_parameters(model)
        x = lib.tensor(W0[:, :3].copy())
        out.append((_numpy(avg(x)), int(avg.n_averaged), list(avg.state_dict())))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-12)
    assert out[1][1:] == out[0][1:]


def test_update_bn_matches_torch():
    if not hasattr(mt.nn, "BatchNorm1d"):
        pytest.skip("minitorch.nn.BatchNorm1d not available yet")
    data = _rng.standard_normal((5, 8, 3))
    out = []
    for lib in (torch, mt):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)).double()
        with lib.no_grad():
            model[0].weight.copy_(lib.tensor(W0.T.copy()))
            model[0].bias.zero_()
        loader = [(lib.tensor(batch), 0) for batch in data]
        model.eval()
        lib.optim.swa_utils.update_bn(loader, model)
        bn = model[1]
        out.append((_numpy(bn.running_mean), _numpy(bn.running_var), bn.momentum, model.training))
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-10)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-10)
    assert out[1][2:] == out[0][2:]
