"""minitorch.optim against torch.optim: trajectories, state dicts, reprs, errors, lr sequences."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

STEPS = 10

# --- a deterministic gradient sequence: the gradient of a fixed smooth function of the weights ---

_rng = np.random.default_rng(1234)
W0 = _rng.standard_normal((3, 4))
B0 = _rng.standard_normal(4)
_A = _rng.standard_normal((3, 3))
A = _A @ _A.T / 3 + np.eye(3)


def loss_and_grads(w, b):
    """f = 1/2 tr(W^T A W) + 0.025 sum W^4 - sum W + sum(b^2/2 - b/2 - cos b) (convex)."""
    f = 0.5 * np.sum(w * (A @ w)) + 0.025 * np.sum(w**4) - w.sum()
    f += np.sum(b**2 / 2 - 0.5 * b - np.cos(b))
    return f, A @ w + 0.1 * w**3 - 1.0, b - 0.5 + np.sin(b)


def _params(lib, dtype):
    dt = getattr(lib, dtype)
    w = lib.nn.Parameter(lib.tensor(W0.copy(), dtype=dt))
    b = lib.nn.Parameter(lib.tensor(B0.copy(), dtype=dt))
    return w, b


def _numpy(t):
    return t.detach().cpu().numpy().astype(np.float64)


def _set_grads(lib, w, b, with_loss=False):
    f, gw, gb = loss_and_grads(_numpy(w), _numpy(b))
    w.grad = lib.tensor(gw, dtype=w.dtype)
    b.grad = lib.tensor(gb, dtype=b.dtype)
    return lib.tensor(f, dtype=w.dtype) if with_loss else None


def _groups(w, b, kwargs, grouped):
    if not grouped:
        return [w, b]
    return [{"params": [w]}, {"params": [b], "lr": kwargs.get("lr", 0.01) * 0.5}]


def run(lib, name, kwargs, *, steps=STEPS, dtype="float64", grouped=False, lr_tensor=False):
    w, b = _params(lib, dtype)
    kwargs = dict(kwargs)
    if lr_tensor:
        kwargs["lr"] = lib.tensor(kwargs["lr"])
    opt = getattr(lib.optim, name)(_groups(w, b, kwargs, grouped), **kwargs)
    trajectory = []
    for _ in range(steps):
        _set_grads(lib, w, b)
        opt.step()
        trajectory.append(np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]))
    return np.array(trajectory), opt


CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.1}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True}),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.1}),
    ("AdamW", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.5}),
    ("Adamax", {"lr": 0.1}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1}),
    ("RAdam", {"lr": 0.1, "betas": (0.9, 0.9), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "centered": True, "alpha": 0.9, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "eps": 1e-6}),
    ("Adadelta", {"lr": 1.0}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 3, "lambd": 0.01, "alpha": 0.5, "weight_decay": 0.1}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.7), "step_sizes": (1e-3, 0.2), "maximize": True}),
]
NAMES = sorted({name for name, _ in CASES})


def _case_id(case):
    name, kwargs = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kwargs.items())


def _assert_same_state(sd_t, sd_m):
    """The same layout (keys, hyperparameters, indices) and the same state values."""
    assert sd_m["param_groups"] == sd_t["param_groups"]
    assert list(sd_m["state"]) == list(sd_t["state"])
    for i, st_t in sd_t["state"].items():
        st_m = sd_m["state"][i]
        assert list(st_m) == list(st_t), f"state keys of parameter {i}"
        for key, v_t in st_t.items():
            v_m = st_m[key]
            if isinstance(v_t, torch.Tensor):
                assert isinstance(v_m, mt.Tensor), key
                assert str(v_m.dtype) == str(v_t.dtype), key
                assert tuple(v_m.shape) == tuple(v_t.shape), key
                np.testing.assert_allclose(
                    _numpy(v_m),
                    v_t.double().numpy(),
                    rtol=1e-5,
                    atol=1e-12,
                    err_msg=f"state[{i}][{key!r}]",
                )
            else:
                assert v_m == v_t, key


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_trajectory_state_dict_and_repr_match_torch(case):
    name, kwargs = case
    traj_t, opt_t = run(torch, name, kwargs)
    traj_m, opt_m = run(mt, name, kwargs)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-12, err_msg=name)
    _assert_same_state(opt_t.state_dict(), opt_m.state_dict())
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_param_groups_with_their_own_lr_match_torch(name):
    kwargs = dict(next(kw for n, kw in CASES if n == name))
    traj_t, opt_t = run(torch, name, kwargs, grouped=True)
    traj_m, opt_m = run(mt, name, kwargs, grouped=True)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-12, err_msg=name)
    _assert_same_state(opt_t.state_dict(), opt_m.state_dict())
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_float32_trajectories_match_torch(name):
    kwargs = next(kw for n, kw in CASES if n == name)
    traj_t, _ = run(torch, name, kwargs, dtype="float32")
    traj_m, _ = run(mt, name, kwargs, dtype="float32")
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-4, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam", "Adagrad"])
def test_tensor_lr_matches_torch(name):
    # torch does part of the math with a float32 lr tensor in float32 (e.g. AdamW's
    # 1 - lr * weight_decay); minitorch reads the CPU tensor as a Python number: hence atol.
    kwargs = next(kw for n, kw in CASES if n == name)
    traj_t, opt_t = run(torch, name, kwargs, lr_tensor=True)
    traj_m, opt_m = run(mt, name, kwargs, lr_tensor=True)
    np.testing.assert_allclose(traj_m, traj_t, rtol=1e-5, atol=1e-6, err_msg=name)
    assert repr(opt_m) == repr(opt_t)


@pytest.mark.parametrize("name", NAMES)
def test_changing_hyperparameters_between_steps_matches_torch(name):
    kwargs = next(kw for n, kw in CASES if n == name)
    out = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = getattr(lib.optim, name)([w, b], **kwargs)
        for i in range(6):
            _set_grads(lib, w, b)
            opt.step()
            for group in opt.param_groups:
                group["lr"] = group["lr"] * 0.7
                if "weight_decay" in group and i == 2:
                    group["weight_decay"] = 0.05
        out.append(np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]))
    np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_loading_torchs_state_dict_continues_torchs_trajectory(name):
    """torch's state dict (tensors converted) loads into minitorch and continues identically."""
    kwargs = next(kw for n, kw in CASES if n == name)
    _, opt_t = run(torch, name, kwargs, steps=4)
    sd = copy.deepcopy(opt_t.state_dict())

    def convert(v):
        if isinstance(v, torch.Tensor):
            return mt.tensor(v.numpy(), dtype=getattr(mt, str(v.dtype).split(".")[1]))
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v

    w_t, b_t = opt_t.param_groups[0]["params"]
    w, b = (mt.nn.Parameter(mt.tensor(p.detach().numpy().copy())) for p in (w_t, b_t))
    opt_m = getattr(mt.optim, name)([w, b], **kwargs)
    opt_m.load_state_dict(convert(sd))
    for _ in range(4):
        _set_grads(torch, w_t, b_t)
        opt_t.step()
        _set_grads(mt, w, b)
        opt_m.step()
    np.testing.assert_allclose(_numpy(w), _numpy(w_t), rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(_numpy(b), _numpy(b_t), rtol=1e-5, atol=1e-12)


# --- LBFGS ---


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lr": 1, "max_iter": 5},
        {"lr": 0.5, "max_iter": 4, "history_size": 3},
        {"lr": 1, "max_iter": 6, "line_search_fn": "strong_wolfe"},
        {"lr": 1, "max_iter": 20, "history_size": 5, "line_search_fn": "strong_wolfe"},
    ],
    ids=str,
)
def test_lbfgs_matches_torch(kwargs):
    results = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.LBFGS([w, b], **kwargs)

        def closure(lib=lib, w=w, b=b, opt=opt):
            opt.zero_grad()
            return _set_grads(lib, w, b, with_loss=True)

        losses = [float(opt.step(closure)) for _ in range(8)]
        state = opt.state_dict()["state"][0]
        results.append(
            (np.concatenate([_numpy(w).ravel(), _numpy(b).ravel()]), losses, state, repr(opt))
        )
    (x_t, losses_t, state_t, repr_t), (x_m, losses_m, state_m, repr_m) = results
    np.testing.assert_allclose(x_m, x_t, rtol=1e-5, atol=1e-10)
    np.testing.assert_allclose(losses_m, losses_t, rtol=1e-5)
    assert list(state_m) == list(state_t)
    assert state_m["func_evals"] == state_t["func_evals"]
    assert state_m["n_iter"] == state_t["n_iter"]
    assert len(state_m["old_dirs"]) == len(state_t["old_dirs"])
    assert repr_m == repr_t


# --- errors and reprs ---


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


ERROR_CASES = [
    ("tensor as params", lambda lib, p: lib.optim.SGD(p, lr=0.1)),
    ("empty", lambda lib, p: lib.optim.SGD([], lr=0.1)),
    ("set in a group", lambda lib, p: lib.optim.SGD([{"params": {p}}], lr=0.1)),
    ("non-tensor", lambda lib, p: lib.optim.SGD([1.0], lr=0.1)),
    ("non-leaf", lambda lib, p: lib.optim.SGD([p * 2], lr=0.1)),
    ("duplicate group", lambda lib, p: lib.optim.SGD([{"params": [p]}, {"params": [p]}], lr=1)),
    ("names mixed", lambda lib, p: lib.optim.SGD([("a", p), p * 1], lr=0.1)),
    ("negative lr", lambda lib, p: lib.optim.Adam([p], lr=-0.1)),
    ("beta", lambda lib, p: lib.optim.Adam([p], betas=(1.0, 0.9))),
    ("beta1", lambda lib, p: lib.optim.NAdam([p], betas=(0.9, -0.1))),
    ("eps", lambda lib, p: lib.optim.Adamax([p], eps=-1.0)),
    ("weight decay", lambda lib, p: lib.optim.RAdam([p], weight_decay=-1.0)),
    ("momentum", lambda lib, p: lib.optim.SGD([p], lr=0.1, momentum=-1.0)),
    ("nesterov", lambda lib, p: lib.optim.SGD([p], lr=0.1, nesterov=True)),
    ("rho", lambda lib, p: lib.optim.Adadelta([p], rho=1.5)),
    ("alpha", lambda lib, p: lib.optim.RMSprop([p], alpha=-1.0)),
    ("lr_decay", lambda lib, p: lib.optim.Adagrad([p], lr_decay=-1.0)),
    ("initial acc", lambda lib, p: lib.optim.Adagrad([p], initial_accumulator_value=-1.0)),
    ("etas", lambda lib, p: lib.optim.Rprop([p], etas=(1.5, 1.2))),
    ("momentum_decay", lambda lib, p: lib.optim.NAdam([p], momentum_decay=-1.0)),
    ("betas mixed", lambda lib, p: lib.optim.Adam([p], betas=(0.9, 1))),
    ("tensor lr numel", lambda lib, p: lib.optim.SGD([p], lr=lib.tensor([0.1, 0.2]))),
    ("lbfgs groups", lambda lib, p: lib.optim.LBFGS([{"params": [p]}, {"params": [p * 1]}])),
    ("group not dict", lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group([p])),
    ("group dup", lambda lib, p: lib.optim.SGD([p], lr=0.1).add_param_group({"params": p})),
    (
        "load groups",
        lambda lib, p: lib.optim.SGD([p], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": []}
        ),
    ),
    (
        "load sizes",
        lambda lib, p: lib.optim.SGD([p], lr=0.1).load_state_dict(
            {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}
        ),
    ),
    ("lbfgs line search", lambda lib, p: _lbfgs_bad_line_search(lib, p)),
]


def _lbfgs_bad_line_search(lib, p):
    opt = lib.optim.LBFGS([p], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    opt.step(closure)


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(case):
    _, make = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _error(lambda: make(torch, torch.nn.Parameter(torch.ones(2))))
        got = _error(lambda: make(mt, mt.nn.Parameter(mt.ones(2))))
    assert want is not None
    assert got == want


def test_duplicate_parameter_warning_matches_torch():
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.ones(2))
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p, p], lr=0.1)


@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_default_repr_matches_torch(name):
    reprs = []
    for lib in (torch, mt):
        p = lib.nn.Parameter(lib.ones(2))
        kwargs = {"lr": 0.1} if name == "SGD" else {}
        reprs.append(repr(getattr(lib.optim, name)([p], **kwargs)))
    assert reprs[1] == reprs[0]


def test_named_parameters_state_dict_matches_torch():
    sds = []
    for lib in (torch, mt):
        w, b = _params(lib, "float64")
        opt = lib.optim.Adam([("w", w), ("b", b)], lr=0.1)
        _set_grads(lib, w, b)
        opt.step()
        sds.append(opt.state_dict())
    _assert_same_state(*sds)
    assert sds[1]["param_groups"][0]["param_names"] == ["w", "b"]


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
