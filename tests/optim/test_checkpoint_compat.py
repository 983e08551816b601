"""Optimizer state dicts from older releases: param groups missing newer keys, `step` saved as a
Python number; and the old scheduler base-class name `_LRScheduler`."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim

# What torch's per-optimizer __setstate__ fills into a param group that lacks the key.
FILLED = {
    "Adadelta": {"foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "Adafactor": {"foreach": None},
    "Adagrad": {"foreach": None, "maximize": False, "differentiable": False, "fused": None},
    "Adam": {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "fused": None,
    },
    "AdamW": {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": True,
        "fused": None,
    },
    "Adamax": {"foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "ASGD": {"foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "LBFGS": {},
    "NAdam": {
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
    },
    "RAdam": {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "capturable": False,
    },
    "RMSprop": {
        "momentum": 0,
        "centered": False,
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    },
    "Rprop": {"foreach": None, "maximize": False, "differentiable": False, "capturable": False},
    "SGD": {
        "nesterov": False,
        "maximize": False,
        "foreach": None,
        "differentiable": False,
        "fused": False,
    },
}
# Keys added to param groups over the releases: an old checkpoint lacks them.
NEWER = {
    "maximize",
    "foreach",
    "capturable",
    "differentiable",
    "fused",
    "decoupled_weight_decay",
    "amsgrad",
    "nesterov",
    "momentum",
    "centered",
}
# The scalar state older releases saved as Python numbers.
SCALARS = {"ASGD": ("step", "eta", "mu"), "NAdam": ("step", "mu_product")}
STEPPED = [n for n in FILLED if n not in ("LBFGS", "SGD")]


def _param(device="cpu"):
    return nn.Parameter(minitorch.tensor([1.0, -2.0], device=device))


def _closure(opt, p):
    def closure():
        opt.zero_grad()
        loss = (p**4 + p * p - p).sum()  # convex, minimum away from 0
        loss.backward()
        return loss

    return closure


def _old_groups(opt):
    groups = opt.state_dict()["param_groups"]
    return [{k: v for k, v in g.items() if k not in NEWER} for g in groups]


@pytest.mark.parametrize("name", list(FILLED))
def test_old_param_groups_get_torchs_defaults(name):
    p = _param()
    opt = getattr(optim, name)([p], lr=0.1)
    old = _old_groups(opt)
    if name == "SGD":
        old[0]["momentum"] = 0  # every SGD checkpoint has it; torch does not fill it in
    opt.load_state_dict({"state": {}, "param_groups": old})
    group = opt.param_groups[0]
    for key, value in FILLED[name].items():
        assert key in group and group[key] == value, (key, group.get(key))
    # keys torch does not fill stay missing (e.g. SGD's momentum, Adam's betas are kept)
    assert set(group) == set(old[0]) | set(FILLED[name]) | {"params"}
    for _ in range(2):
        opt.step(_closure(opt, p))
    assert np.isfinite(p.detach().numpy()).all()


def test_old_adam_checkpoint_steps():
    # the layout of an Adam checkpoint written by PyTorch 1.x
    p = nn.Parameter(minitorch.ones(2))
    opt = optim.Adam([p])
    group = {"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0}
    opt.load_state_dict({"state": {}, "param_groups": [{**group, "amsgrad": False, "params": [0]}]})
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9], rtol=1e-6)


@pytest.mark.parametrize("name", STEPPED)
def test_step_saved_as_a_number_becomes_a_tensor(name):
    def run(resume_with_numbers):
        p = _param()
        opt = getattr(optim, name)([p], lr=0.1)
        for _ in range(2):
            opt.step(_closure(opt, p))
        sd = copy.deepcopy(opt.state_dict())
        if resume_with_numbers:
            for key in SCALARS.get(name, ("step",)):
                value = sd["state"][0][key].item()
                sd["state"][0][key] = int(value) if key == "step" else value
        opt = getattr(optim, name)([p], lr=0.1)
        opt.load_state_dict(sd)
        state = opt.state[p]
        for key in SCALARS.get(name, ("step",)):
            assert isinstance(state[key], minitorch.Tensor), key
            assert state[key].dtype == minitorch.float32 and state[key].shape == (), key
        for _ in range(2):
            opt.step(_closure(opt, p))
        assert state["step"].item() == 4.0
        return p.detach().numpy()

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6, err_msg=name)


def test_number_state_goes_where_torch_puts_it(device):
    for name, where in (("Adam", "cpu"), ("NAdam", "cpu"), ("ASGD", device)):
        p = _param(device)
        opt = getattr(optim, name)([p], lr=0.1)
        opt.step(_closure(opt, p))
        sd = opt.state_dict()
        for key in SCALARS.get(name, ("step",)):
            sd["state"][0][key] = sd["state"][0][key].item()
        opt.load_state_dict(sd)
        for key in SCALARS.get(name, ("step",)):
            assert opt.state[p][key].device.type == minitorch.device(where).type, (name, key)
        opt.step(_closure(opt, p))


def test_scalar_state_follows_a_float64_default_dtype():
    previous = minitorch.get_default_dtype()
    minitorch.set_default_dtype(minitorch.float64)
    try:
        p = _param()
        for name in ("Adam", "NAdam", "ASGD", "Adagrad"):
            opt = getattr(optim, name)([p], lr=0.1)
            opt.step(_closure(opt, p))
            for key in SCALARS.get(name, ("step",)):
                assert opt.state[p][key].dtype == minitorch.float64, (name, key)
            sd = opt.state_dict()
            sd["state"][0]["step"] = 1
            opt.load_state_dict(sd)
            assert opt.state[p]["step"].dtype == minitorch.float64, name
    finally:
        minitorch.set_default_dtype(previous)


def test_unpickled_optimizer_gets_the_defaults_too():
    p = _param()
    opt = optim.Adam([p], lr=0.1)
    opt.step(_closure(opt, p))
    state = opt.__getstate__()
    for group in state["param_groups"]:
        for key in NEWER:
            group.pop(key, None)
    state["state"][p]["step"] = 1
    clone = optim.Adam.__new__(optim.Adam)  # what unpickling an optimizer does
    clone.__setstate__(state)
    assert clone.param_groups[0]["decoupled_weight_decay"] is False
    assert isinstance(clone.state[p]["step"], minitorch.Tensor)


def test_lr_scheduler_old_base_class_name():
    lr_scheduler = optim.lr_scheduler
    assert issubclass(lr_scheduler._LRScheduler, lr_scheduler.LRScheduler)
    assert lr_scheduler._LRScheduler.__name__ == "_LRScheduler"

    class Warmup(lr_scheduler._LRScheduler):
        def __init__(self, opt, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(opt, last_epoch)

        def get_lr(self):
            return [b * min(1.0, (self.last_epoch + 1) / self.warmup) for b in self.base_lrs]

    opt = optim.SGD([nn.Parameter(minitorch.ones(1))], lr=0.1)
    sched = Warmup(opt, 4)
    lrs = [sched.get_last_lr()[0]]
    for _ in range(4):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, [0.025, 0.05, 0.075, 0.1, 0.1], rtol=1e-12)
    assert isinstance(sched, lr_scheduler.LRScheduler)


_SQUARING = ["Adam", "AdamW", "NAdam", "RAdam", "RMSprop", "Adadelta"]  # (Adagrad sums g²: inf)


@pytest.mark.parametrize("name", _SQUARING)
def test_half_parameters_with_large_gradients_keep_finite_state(name):
    # the float16 square of a gradient above 256 is inf: computed in float32 (torch's addcmul_)
    p = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0], dtype=minitorch.float16))
    opt = getattr(minitorch.optim, name)([p], lr=1e-1)
    p.grad = minitorch.tensor([300.0, -500.0], dtype=minitorch.float16)
    opt.step()
    assert minitorch.isfinite(p).all(), name
    for key, v in opt.state[p].items():
        assert not isinstance(v, minitorch.Tensor) or minitorch.isfinite(v).all(), (name, key)
    h = minitorch.tensor([300.0]).half()
    assert minitorch.addcmul(minitorch.ones(1).half(), h, h, value=1e-3).item() == 91.0
