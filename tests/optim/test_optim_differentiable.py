"""Optimizers with differentiable=True (backprop through steps), capturable=True on the CPU, and
LR schedulers after add_param_group: torch's behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim
from minitorch.autograd import gradcheck
from minitorch.optim import lr_scheduler as S

f64 = minitorch.float64

# --- schedulers and param groups added after them ---------------------------------------------


def _unfreeze(make, steps=4):
    """SGD with one group, a scheduler, one step, then a second group added: the lrs of the
    steps that follow (as [[group0, group1], ...])."""
    opt = optim.SGD([nn.Parameter(minitorch.ones(1))], lr=0.1, momentum=0.9)
    sched = make(opt)
    opt.step()
    sched.step()
    opt.add_param_group({"params": [nn.Parameter(minitorch.ones(1))], "lr": 0.2})
    out = []
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append([g["lr"] for g in opt.param_groups])
    return sched, out


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda o: S.LambdaLR(o, lambda e: 0.9**e), "argument 2 is shorter than argument 1"),
        (lambda o: S.MultiplicativeLR(o, lambda e: 0.9), "argument 2 is longer than argument 1"),
        (lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3), "argument 2 is shorter"),
        (lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2), "argument 2 is short"),
        (
            lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, cycle_momentum=False),
            "argument 2 is shorter",
        ),
        (
            lambda o: S.ChainedScheduler([S.ExponentialLR(o, 0.5), S.LambdaLR(o, lambda e: 1)]),
            "argument 2 is shorter",
        ),
    ],
)
def test_schedulers_with_per_group_values_raise_for_a_group_added_later(make, message):
    # torch pairs groups with the values it recorded through zip(strict=True): the new group
    # has none, so the next step raises instead of leaving its lr unscheduled.
    with pytest.raises(ValueError, match=message):
        _unfreeze(make)


def test_schedulers_that_scale_the_current_lr_schedule_a_group_added_later():
    _, got = _unfreeze(lambda o: S.StepLR(o, 1, 0.5))
    want = [[0.025, 0.1], [0.0125, 0.05], [0.00625, 0.025], [0.003125, 0.0125]]
    np.testing.assert_allclose(got, want, rtol=1e-15, err_msg="StepLR")
    _, got = _unfreeze(lambda o: S.LinearLR(o, 0.5, 1.0, 3))
    want = [[0.1 / 1.2, 0.25], [0.1, 0.3], [0.1, 0.3], [0.1, 0.3]]
    np.testing.assert_allclose(got, want, rtol=1e-14, err_msg="LinearLR")


def test_a_closed_form_step_raises_for_a_group_added_later():
    sched, _ = _unfreeze(lambda o: S.StepLR(o, 1, 0.5))
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="argument 2 is shorter"):
        sched.step(5)  # the closed form has one value per base_lr


def test_cosine_annealing_raises_at_the_bottom_of_a_cosine_for_a_group_added_later():
    with pytest.raises(ValueError, match="argument 2 is longer than argument 1"):
        _unfreeze(lambda o: S.CosineAnnealingLR(o, 3))


# --- differentiable=True -------------------------------------------------------------------

# Each row: optimizer, its arguments ("T" / "T<v>" a float64 tensor hyperparameter that requires
# grad), the number of steps, then torch 2.13's parameter after the steps and the gradients of
# sum(w^2 + w) with respect to the initial parameter, the gradient seed and each tensor
# hyperparameter (in argument order).
CASES = [
    (
        "SGD",
        {"lr": "T", "momentum": 0.9, "nesterov": True, "weight_decay": 0.1},
        3,
        [0.8641658704999999, -1.6963530836250003, 0.4160936065625],
        [
            [2.6523614766780272, -2.32608138066735, 1.7811700494946612],
            [-0.5436324109912314, 0.4767575009111423, -0.3650715699599556],
            [-24.864428784280026],
        ],
    ),
    (
        "SGD",
        {"lr": "T", "weight_decay": "T0.1"},
        3,
        [0.9401495, -1.865323875, 0.4625871875],
        [
            [2.837310177387625, -2.6898924910002813, 1.8964409068063284],
            [-0.43132837562375004, 0.40891791387218757, -0.28829726912421877],
            [-12.213777005900155],
            [-1.3738834407250784],
        ],
    ),
    (
        "Adam",
        {"lr": "T", "betas": ("T0.9", "T0.99")},
        3,
        [0.9246949555672277, -1.9246949543880898, 0.4246949565989731],
        [
            [2.8493899111344554, -2.8493899087761796, 1.849389913197946],
            [-1.959896733794153e-08, 3.5998105191170637e-09, -2.8621493786129548e-08],
            [-11.368305171791448],
            [-0.04918834560438601],
            [-0.07714542678726843],
        ],
    ),
    (
        "AdamW",
        {"lr": "T", "weight_decay": 0.1},
        3,
        [0.9101639427961785, -1.895238816624479, 0.4176265063214154],
        [
            [2.7782341393589056, -2.748829405763013, 1.8078616320225098],
            [-1.927669579515623e-08, 3.503143858329949e-09, -2.822353739606598e-08],
            [-13.851481487042275],
        ],
    ),
    (
        "Adam",
        {"lr": 0.05, "amsgrad": True},
        1,
        [0.9500003342100791, -1.9500003332577107, 0.45000033504340153],
        [
            [2.9000006684201582, -2.9000006665154214, 1.9000006700868033],
            [-1.611090361119949e-08, 2.9591456784938686e-09, -2.3749696320685132e-08],
        ],
    ),
    (
        "Adagrad",
        {"lr": 0.05, "lr_decay": 0.1, "weight_decay": 0.1},
        3,
        [0.9327459269378494, -1.9342352066135116, 0.4360172355115636],
        [
            [2.830732504087992, -2.8533560959959363, 1.837674405933495],
            [0.1115511265295332, -0.04240399672253033, 0.07989276497350642],
        ],
    ),
    (
        "Adadelta",
        {"lr": 0.5, "weight_decay": 0.1},
        3,
        [0.9972241657067707, -1.9972760667307576, 0.49731463909335577],
        [
            [2.9933363995041393, -2.99409091612574, 1.9935831092590188],
            [0.0037006806552518567, -0.0013168729099555438, 0.0026063061613641964],
        ],
    ),
    (
        "RMSprop",
        {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.1},
        3,
        [-0.296539400991102, -0.6894440492094273, -0.6993729752855303],
        [
            [0.3100580633454168, -0.3384670825138994, -0.26522982503631837],
            [0.20921757858488504, -0.09529857916091175, -0.11408818702935652],
        ],
    ),
    (
        "NAdam",
        {"lr": 0.05, "weight_decay": 0.1},
        3,
        [0.9162728747658455, -1.9180937266445843, 0.4203426221608312],
        [
            [2.790167341968044, -2.8176783248392447, 1.7986351940459548],
            [0.1356747435749105, -0.0518684135740975, 0.0973118810980887],
        ],
    ),
    (
        "RAdam",
        {"lr": "T", "weight_decay": 0.1},
        7,
        [0.9208596176358654, -1.8252282283935581, 0.45105310270480836],
        [
            [2.7703783948669365, -2.5842774235877712, 1.854107755553972],
            [-0.5007181839648523, 0.4683498280640297, -0.3349211432471121],
            [-15.542488052638756],
        ],
    ),
    (
        "Adamax",
        {"lr": 0.05},
        1,
        [0.9500000016666666, -1.9500000007142857, 0.4500000024999999],
        [
            [2.900000003333333, -2.9000000014285714, 1.9000000049999999],
            [-1.611111011268207e-08, 2.9591835926101595e-09, -2.3749997635214015e-08],
        ],
    ),
]


def _hyper(value, tensors):
    if isinstance(value, tuple):
        return tuple(_hyper(v, tensors) for v in value)
    if isinstance(value, str):
        t = minitorch.tensor(0.05 if value == "T" else float(value[1:]), dtype=f64)
        tensors.append(t.requires_grad_())
        return t
    return value


def _run(name, kwargs, steps, w0, g0):
    """The parameter after `steps` differentiable steps from w0 with gradients built from g0."""
    tensors = []
    kwargs = {k: _hyper(v, tensors) for k, v in kwargs.items()}
    w = w0.clone()
    opt = getattr(optim, name)([w], differentiable=True, **kwargs)
    for i in range(steps):
        w.grad = g0 * (i + 1) * (1.0 if i % 2 == 0 else -0.5)
        opt.step()
    return w, tensors


@pytest.mark.parametrize("name, kwargs, steps, want_w, want_grads", CASES)
def test_differentiable_steps_give_torchs_gradients(name, kwargs, steps, want_w, want_grads):
    w0 = minitorch.tensor([1.0, -2.0, 0.5], dtype=f64, requires_grad=True)
    g0 = minitorch.tensor([0.3, -0.7, 0.2], dtype=f64, requires_grad=True)
    w, tensors = _run(name, kwargs, steps, w0, g0)
    np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-13, err_msg=name)
    grads = minitorch.autograd.grad((w * w).sum() + w.sum(), [w0, g0, *tensors])
    assert len(grads) == len(want_grads)
    for i, (got, want) in enumerate(zip(grads, want_grads, strict=True)):
        np.testing.assert_allclose(
            got.numpy().reshape(-1), want, rtol=1e-9, atol=1e-11, err_msg=f"{name} grad {i}"
        )


@pytest.mark.parametrize(
    "name, kwargs, steps",
    [
        ("SGD", {"weight_decay": 0.1, "maximize": True}, 3),
        ("Adam", {"weight_decay": 0.1}, 3),
        ("Adam", {"amsgrad": True}, 1),
        ("Adagrad", {"lr_decay": 0.1}, 3),
        ("RMSprop", {"momentum": 0.9}, 3),
        ("RAdam", {}, 7),
    ],
)
def test_differentiable_steps_pass_gradcheck(name, kwargs, steps):
    # (not SGD with momentum: as torch, its first buffer is a detached copy of the gradient)
    # The final parameter as a function of the lr (kept as a tensor where torch keeps it: SGD,
    # Adam, RAdam), the initial parameter and the gradient seed.
    keep_lr = name in ("SGD", "Adam", "RAdam")

    def f(lr, w0, g0):
        args = dict(kwargs, lr=lr if keep_lr else 0.05)
        w = w0.clone()
        opt = getattr(optim, name)([w], differentiable=True, **args)
        for i in range(steps):
            w.grad = g0 * (i + 1) * (1.0 if i % 2 == 0 else -0.5)
            opt.step()
        return w

    lr = minitorch.tensor(0.05, dtype=f64, requires_grad=keep_lr)
    w0 = minitorch.tensor([1.0, -2.0, 0.5], dtype=f64, requires_grad=True)
    g0 = minitorch.tensor([0.3, -0.7, 0.2], dtype=f64, requires_grad=True)
    assert gradcheck(f, (lr, w0, g0), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "name, message",
    [
        ("Adagrad", "addcdiv_(): argument 'value' must be Number, not Tensor"),
        ("Adadelta", "add_(): argument 'alpha' must be Number, not Tensor"),
        ("RMSprop", "addcdiv_(): argument 'value' must be Number, not Tensor"),
        ("Adamax", "addcdiv_(): argument 'value' must be Number, not Tensor"),
        ("Rprop", r"full_like\(\): argument 'fill_value' \(position 2\) must be Number"),
    ],
)
def test_an_lr_that_requires_grad_where_torch_takes_a_number_raises(name, message):
    w = minitorch.tensor([1.0, -2.0], dtype=f64, requires_grad=True).clone()
    lr = minitorch.tensor(0.05, dtype=f64, requires_grad=True)
    opt = getattr(optim, name)([w], lr=lr, differentiable=True)
    w.grad = minitorch.tensor([0.3, -0.7], dtype=f64)
    with pytest.raises(TypeError, match=message.replace("(): ", r"\(\): ")):
        opt.step()


def test_a_non_differentiable_step_reads_a_tensor_lr_as_a_number():
    # Without differentiable=True the step records no graph (and raises no TypeError).
    w = nn.Parameter(minitorch.tensor([1.0, -2.0], dtype=f64))
    lr = minitorch.tensor(0.5, dtype=f64, requires_grad=True)
    opt = optim.Adagrad([w], lr=lr)
    w.grad = minitorch.tensor([0.3, -0.7], dtype=f64)
    opt.step()
    assert w.grad_fn is None
    np.testing.assert_allclose(w.detach().numpy(), [0.5, -1.5], rtol=1e-9)


# --- capturable=True -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, what",
    [
        ("Adam", "params and state_steps"),
        ("AdamW", "params and state_steps"),
        ("NAdam", "params, mu_products and state_steps"),
        ("RAdam", "params and state_steps"),
        ("Adamax", "params and state_steps"),
        ("ASGD", "params, mus, etas, and state_steps"),
        ("RMSprop", "params and state_steps"),
        ("Rprop", "params and state_steps"),
        ("Adadelta", "params and state_steps"),
    ],
)
def test_capturable_on_cpu_parameters_asserts_at_step(name, what):
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    opt = getattr(optim, name)([p], lr=0.1, capturable=True)
    p.grad = minitorch.ones(2)
    devices = "['cuda', 'xpu', 'hpu', 'privateuseone'" + ("]" if name == "Adadelta" else ", 'xla']")
    with pytest.raises(AssertionError) as info:
        opt.step()
    assert str(info.value) == (
        f"If capturable=True, {what} must be on supported devices: {devices}."
    )
    assert p.tolist() == [1.0, 2.0]


def test_capturable_on_a_device_steps():
    p = nn.Parameter(minitorch.tensor([1.0, 2.0], device="strict"))
    q = nn.Parameter(minitorch.tensor([1.0, 2.0]))  # no gradient: not checked, as in torch
    opt = optim.Adam([p, q], lr=0.1, capturable=True)
    p.grad = minitorch.ones(2, device="strict")
    opt.step()
    np.testing.assert_allclose(p.detach().cpu().numpy(), [0.9, 1.9], rtol=1e-6)


@pytest.mark.parametrize(
    "name, want",
    [
        # torch 2.13's fused kernels on these float16 steps (its values, printed as floats)
        ("AdamW", [0.479248046875, -0.98388671875, 2.0, 0.23486328125]),
        ("Adam", [0.479248046875, -0.984375, 2.0, 0.23486328125]),
        ("Adagrad", [0.48095703125, -0.994140625, 2.0, 0.241943359375]),
    ],
)
def test_fused_steps_of_half_parameters_compute_in_float32(name, want):
    # NOTE [ Fused half-precision steps ]: the default path computes in float16, where eps=1e-8
    # is 0 and a zero gradient's update is 0 / 0
    p = nn.Parameter(minitorch.tensor([0.5, -1.0, 2.0, 0.25], dtype=minitorch.float16))
    opt = getattr(optim, name)([p], lr=1e-2, fused=True)
    for g in ([1e-3, -2e-4, 0.0, 5.0], [2e-3, 1e-4, 0.0, -1.0]):
        p.grad = minitorch.tensor(g, dtype=minitorch.float16)
        opt.step()
    assert p.dtype == minitorch.float16 and p.detach().float().tolist() == want
    assert all(v.dtype == minitorch.float16 for k, v in opt.state[p].items() if k != "step")
