"""Each optimizer: minimises a quadratic, resumes from a state dict, honours per-group
hyperparameters and `maximize`, and steps on a device without reading anything back."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim
from minitorch._backend.strict import count_transfers

# name -> hyperparameters that converge on the quadratic below within 60 steps
SETTINGS = {
    "SGD": {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-4},
    "Adam": {"lr": 0.1, "amsgrad": True},
    "AdamW": {"lr": 0.1, "weight_decay": 1e-3},
    "Adamax": {"lr": 0.2},
    "NAdam": {"lr": 0.1, "decoupled_weight_decay": True, "weight_decay": 1e-3},
    "RAdam": {"lr": 0.2},
    "RMSprop": {"lr": 0.02, "centered": True, "momentum": 0.5},
    "Adagrad": {"lr": 0.5, "lr_decay": 1e-3},
    "Adadelta": {"lr": 20.0},
    "ASGD": {"lr": 0.05, "t0": 20},
    "Rprop": {"lr": 0.05},
    "Adafactor": {"lr": 0.5, "eps": (None, 0.1)},
}
NAMES = list(SETTINGS)

CENTER = np.array([1.0, -2.0, 0.5, 3.0])
SCALE = np.array([1.0, 2.0, 0.5, 1.5])


def _params(device="cpu", dtype=minitorch.float64):
    x = nn.Parameter(minitorch.zeros(4, dtype=dtype, device=device))
    y = nn.Parameter(minitorch.ones(2, 2, dtype=dtype, device=device))
    return x, y


def _loss(x, y):
    center = minitorch.tensor(CENTER, dtype=x.dtype, device=x.device)
    scale = minitorch.tensor(SCALE, dtype=x.dtype, device=x.device)
    return (scale * (x - center) ** 2).sum() + ((y - 0.5) ** 2).sum()


def _train(opt, x, y, steps, sign=1.0):
    for _ in range(steps):
        opt.zero_grad()
        (sign * _loss(x, y)).backward()
        opt.step()


def _values(*ts):
    return np.concatenate([t.detach().cpu().numpy().ravel() for t in ts])


@pytest.mark.parametrize("name", NAMES)
def test_minimises_a_quadratic(name, device):
    x, y = _params(device)
    opt = getattr(optim, name)([x, y], **SETTINGS[name])
    start = _loss(x, y).item()
    _train(opt, x, y, 60)
    end = _loss(x, y).item()
    assert end < 0.05 * start, (start, end)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_minimises_a_quadratic(line_search_fn):
    x, y = _params()
    opt = optim.LBFGS([x, y], lr=1, max_iter=20, line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = _loss(x, y)
        loss.backward()
        return loss

    first = opt.step(closure).item()
    for _ in range(3):
        opt.step(closure)
    assert _loss(x, y).item() < 1e-8 * first
    np.testing.assert_allclose(x.detach().numpy(), CENTER, atol=1e-5)
    state = opt.state[x]
    assert state["n_iter"] > 1 and state["func_evals"] >= state["n_iter"]


@pytest.mark.parametrize("name", NAMES + ["LBFGS"])
def test_state_dict_round_trip_continues_the_same_trajectory(name):
    settings = SETTINGS.get(name, {"lr": 0.5, "max_iter": 3, "history_size": 4})

    def step(opt, x, y):
        def closure():
            opt.zero_grad()
            loss = _loss(x, y)
            loss.backward()
            return loss

        opt.step(closure)

    x, y = _params()
    opt = getattr(optim, name)([x, y], **settings)
    for _ in range(3):
        step(opt, x, y)
    saved = copy.deepcopy(opt.state_dict())
    resume_from = _values(x, y)
    for _ in range(4):
        step(opt, x, y)

    x2, y2 = _params()
    with minitorch.no_grad():
        x2.copy_(minitorch.tensor(resume_from[:4]))
        y2.copy_(minitorch.tensor(resume_from[4:].reshape(2, 2)))
    opt2 = getattr(optim, name)([x2, y2], lr=123.0)
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["lr"] == settings["lr"]
    for _ in range(4):
        step(opt2, x2, y2)
    # As in torch, loading casts NAdam's mu_product and ASGD's eta/mu to the parameters' dtype
    # (float64 here), so those two continue with slightly more precise scalars.
    np.testing.assert_allclose(_values(x2, y2), _values(x, y), rtol=1e-7, atol=0)
    if name not in ("NAdam", "ASGD"):
        np.testing.assert_array_equal(_values(x2, y2), _values(x, y))


@pytest.mark.parametrize("name", NAMES)
def test_each_group_uses_its_own_lr(name):
    x, y = _params()
    settings = dict(SETTINGS[name])
    if name == "Rprop":
        settings["step_sizes"] = (0.0, 50.0)  # else the step size is clamped up to 1e-6
    opt = getattr(optim, name)([{"params": [x]}, {"params": [y], "lr": 0.0}], **settings)
    _train(opt, x, y, 5)
    np.testing.assert_array_equal(y.detach().numpy(), np.ones((2, 2)))
    assert not np.allclose(x.detach().numpy(), 0.0)
    assert opt.param_groups[0]["lr"] == settings["lr"]


@pytest.mark.parametrize("name", NAMES)
def test_maximize_of_the_negated_loss_is_the_same_trajectory(name):
    runs = []
    for maximize in (False, True):
        x, y = _params()
        opt = getattr(optim, name)([x, y], maximize=maximize, **SETTINGS[name])
        _train(opt, x, y, 6, sign=-1.0 if maximize else 1.0)
        runs.append(_values(x, y))
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_lr_may_change_between_steps_and_be_a_tensor(name):
    runs = []
    for as_tensor in (False, True):
        x, y = _params()
        settings = dict(SETTINGS[name])
        lr = settings.pop("lr")
        opt = getattr(optim, name)([x, y], lr=minitorch.tensor(lr) if as_tensor else lr, **settings)
        for i in range(5):
            _train(opt, x, y, 1)
            new_lr = lr * 0.5 ** (i + 1)
            if as_tensor:
                opt.param_groups[0]["lr"].fill_(new_lr)
            else:
                opt.param_groups[0]["lr"] = new_lr
        runs.append(_values(x, y))
    # a float32 lr tensor holds float32-rounded values
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", [n for n in NAMES if n != "SGD"])
def test_step_state_is_a_float32_count_on_the_cpu(name):
    x, y = _params("strict")
    opt = getattr(optim, name)([x, y], **SETTINGS[name])
    _train(opt, x, y, 3)
    step = opt.state[x]["step"]
    assert step.dtype == minitorch.float32 and step.shape == ()
    assert step.item() == 3.0
    # ASGD keeps its scalars on the parameter's device, like torch
    assert step.device.type == ("strict" if name == "ASGD" else "cpu")
    for key, value in opt.state[x].items():
        if key != "step" and value.ndim:
            assert value.device == x.device and value.dtype == x.dtype, key


SCHEDULERS = [
    lambda opt: optim.lr_scheduler.StepLR(opt, 2, gamma=0.5),
    lambda opt: optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5),
    lambda opt: optim.lr_scheduler.LinearLR(opt, total_iters=3),
    lambda opt: optim.lr_scheduler.ExponentialLR(opt, 0.9),
]


@pytest.mark.parametrize("name", NAMES)
def test_training_step_on_a_device_reads_nothing_back(name):
    """forward, backward, (clip), step, scheduler step, zero_grad: no device-to-host copy."""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.Linear(8, 3)).to("strict")
    x = minitorch.randn(16, 5, device="strict")
    target = minitorch.randn(16, 3, device="strict")
    opt = getattr(optim, name)(model.parameters(), **SETTINGS[name])
    sched = SCHEDULERS[hash(name) % len(SCHEDULERS)](opt)
    clip = getattr(nn.utils, "clip_grad_norm_", None)
    with count_transfers() as transfers:
        for _ in range(3):
            loss = ((model(x) - target) ** 2).mean()
            loss.backward()
            if clip is not None:
                clip(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
    assert transfers.count == 0
    assert all(p.device.type == "strict" for p in model.parameters())


def test_a_tensor_lr_on_a_device_is_read_once_per_group_and_step():
    # As in torch without capturable=True: the kernels take the lr as a number.
    x, y = _params("strict")
    lr = minitorch.tensor(0.1, dtype=minitorch.float64, device="strict")
    opt = optim.Adam([x, y], lr=lr)
    with count_transfers() as transfers:
        _train(opt, x, y, 3)
    assert transfers.count == 3
    x2, y2 = _params()
    opt2 = optim.Adam([x2, y2], lr=0.1)
    _train(opt2, x2, y2, 3)
    np.testing.assert_allclose(_values(x, y), _values(x2, y2), rtol=1e-12)


def test_float32_parameters_keep_their_dtype(device):
    for name in NAMES:
        x, y = _params(device, minitorch.float32)
        opt = getattr(optim, name)([x, y], **SETTINGS[name])
        _train(opt, x, y, 2)
        assert x.dtype == minitorch.float32 and y.dtype == minitorch.float32, name


def test_adagrad_state_exists_before_the_first_step():
    x, y = _params()
    opt = optim.Adagrad([x, y], initial_accumulator_value=0.25)
    assert list(opt.state_dict()["state"]) == [0, 1]
    np.testing.assert_array_equal(opt.state[y]["sum"].numpy(), np.full((2, 2), 0.25))
    assert opt.state[x]["step"].item() == 0.0


def test_sgd_without_momentum_keeps_no_state():
    x, y = _params()
    opt = optim.SGD([x, y], lr=0.1)
    _train(opt, x, y, 2)
    assert opt.state_dict()["state"] == {}


def test_adam_moments_after_one_step_by_hand():
    x = nn.Parameter(minitorch.tensor([1.0, -2.0], dtype=minitorch.float64))
    opt = optim.Adam([x], lr=0.1, betas=(0.9, 0.99), eps=0.0)
    x.grad = minitorch.tensor([0.5, -4.0], dtype=minitorch.float64)
    opt.step()
    state = opt.state[x]
    np.testing.assert_allclose(state["exp_avg"].numpy(), [0.05, -0.4])
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(), [0.0025, 0.16])
    # the first Adam step moves each coordinate by lr * sign(grad)
    np.testing.assert_allclose(x.detach().numpy(), [0.9, -1.9])


def test_sgd_momentum_by_hand():
    x = nn.Parameter(minitorch.tensor([1.0], dtype=minitorch.float64))
    opt = optim.SGD([x], lr=0.1, momentum=0.5, dampening=0.5)
    for _ in range(2):
        x.grad = minitorch.tensor([2.0], dtype=minitorch.float64)
        opt.step()
    # buf: 2, then 0.5 * 2 + 0.5 * 2 = 2;  x = 1 - 0.2 - 0.2
    np.testing.assert_allclose(x.detach().numpy(), [0.6])


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: optim.SGD([p], lr=-1.0), "Invalid learning rate: -1.0"),
        (
            lambda p: optim.SGD([p], lr=0.1, nesterov=True),
            "Nesterov momentum requires a momentum and zero dampening",
        ),
        (lambda p: optim.Adam([p], betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        (lambda p: optim.Adam([p], eps=-1e-8), "Invalid epsilon value: -1e-08"),
        (lambda p: optim.RMSprop([p], momentum=-0.5), "Invalid momentum value: -0.5"),
        (lambda p: optim.Adadelta([p], rho=2.0), "Invalid rho value: 2.0"),
        (lambda p: optim.Rprop([p], etas=(0.5, 0.9)), "Invalid eta values: 0.5, 0.9"),
        (lambda p: optim.SGD([p], lr=minitorch.ones(2)), "Tensor lr must be 1-element"),
        (
            lambda p: optim.LBFGS([{"params": [p]}, {"params": [nn.Parameter(minitorch.ones(1))]}]),
            "LBFGS doesn't support per-parameter options",
        ),
    ],
)
def test_invalid_hyperparameters(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make(nn.Parameter(minitorch.ones(2)))


# --- swa_utils.AveragedModel ---


def test_averaged_model_is_the_mean_of_the_snapshots(device):
    from minitorch.optim.swa_utils import AveragedModel

    model = nn.Linear(3, 2, dtype=minitorch.float64).to(device)
    avg = AveragedModel(model)
    snapshots = []
    with count_transfers() as transfers:
        for i in range(4):
            with minitorch.no_grad():
                model.weight.add_(float(i))
            snapshots.append(model.weight.detach().clone())
            avg.update_parameters(model)
    if device == "strict":
        assert transfers.count == 0
    want = sum(s.cpu().numpy() for s in snapshots) / 4
    np.testing.assert_allclose(avg.module.weight.detach().cpu().numpy(), want, rtol=1e-12)
    assert avg.n_averaged.item() == 4
    x = minitorch.ones(1, 3, dtype=minitorch.float64, device=device)
    np.testing.assert_allclose(avg(x).detach().cpu().numpy(), avg.module(x).detach().cpu().numpy())


def test_averaged_model_ema_and_its_errors():
    from minitorch.optim import swa_utils

    model = nn.Linear(2, 1, dtype=minitorch.float64)
    ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    start = model.weight.detach().clone()
    ema.update_parameters(model)  # the first update copies the model in
    with minitorch.no_grad():
        model.weight.add_(2.0)
    ema.update_parameters(model)
    np.testing.assert_allclose(ema.module.weight.detach().numpy(), start.numpy() + 1.0)
    with pytest.raises(ValueError, match="Invalid decay value 2"):
        swa_utils.get_ema_avg_fn(2)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(
            model, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn()
        )
