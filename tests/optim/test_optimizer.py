"""The Optimizer base: param groups, state, zero_grad, state dicts, hooks, repr, errors."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minitorch
from minitorch import nn, optim
from minitorch.optim.optimizer import (
    Optimizer,
    register_optimizer_step_post_hook,
    register_optimizer_step_pre_hook,
    required,
)


def _param(*values):
    return nn.Parameter(minitorch.tensor(values or (1.0, 2.0), dtype=minitorch.float64))


def _grad(p, *values):
    p.grad = minitorch.tensor(values, dtype=p.dtype)


class Toy(Optimizer):
    """p -= lr * grad; counts its steps in state."""

    def __init__(self, params, lr=required, scale=1.0):
        super().__init__(params, {"lr": lr, "scale": scale})

    def step(self, closure=None):
        loss = None if closure is None else closure()
        self.grad_enabled_in_step = minitorch.is_grad_enabled()
        with minitorch.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.add_(p.grad, alpha=-group["lr"] * group["scale"])
                        state = self.state[p]
                        state["n"] = state.get("n", 0) + 1
        return loss


# --- construction and param groups ---


def test_params_become_one_group_with_the_defaults():
    a, b = _param(), _param()
    opt = Toy([a, b], lr=0.5)
    assert len(opt.param_groups) == 1
    group = opt.param_groups[0]
    assert group["params"][0] is a and group["params"][1] is b
    assert group["lr"] == 0.5 and group["scale"] == 1.0
    assert opt.defaults == {"lr": 0.5, "scale": 1.0}
    assert len(opt.state) == 0


def test_generators_and_module_parameters_are_accepted():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    assert [id(p) for p in opt.param_groups[0]["params"]] == [id(model.weight), id(model.bias)]
    named = optim.SGD(model.named_parameters(), lr=0.1)
    assert named.param_groups[0]["param_names"] == ["weight", "bias"]


def test_dict_groups_override_defaults_and_keep_order():
    a, b, c = _param(), _param(), _param()
    opt = Toy([{"params": [a, b]}, {"params": c, "lr": 0.1, "extra": 7}], lr=1.0)
    assert [g["lr"] for g in opt.param_groups] == [1.0, 0.1]
    assert opt.param_groups[1]["params"] == [c]  # a lone tensor becomes a list
    assert opt.param_groups[1]["extra"] == 7


def test_required_hyperparameter_must_be_given():
    with pytest.raises(
        ValueError, match="didn't specify a value of required optimization parameter lr"
    ):
        Toy([_param()])
    assert repr(required) == "<required parameter>"


def test_add_param_group_and_its_errors():
    a, b = _param(), _param()
    opt = Toy([a], lr=1.0)
    opt.add_param_group({"params": [b], "lr": 0.25})
    assert opt.param_groups[1]["lr"] == 0.25 and opt.param_groups[1]["scale"] == 1.0
    with pytest.raises(ValueError, match="some parameters appear in more than one"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict, but got <class 'list'>"):
        opt.add_param_group([b])
    with pytest.raises(TypeError, match="ordering of tensors in sets will change"):
        opt.add_param_group({"params": {_param()}})
    with pytest.raises(ValueError, match="with/without names"):
        opt.add_param_group({"params": [("c", _param())]})


@pytest.mark.parametrize(
    "params, exc, message",
    [
        (None, TypeError, "should be an iterable of Tensors or dicts, but got torch.FloatTensor"),
        ([], ValueError, "optimizer got an empty parameter list"),
        ([1.0], TypeError, "optimizer can only optimize Tensors, but one of the params is float"),
        ("non-leaf", ValueError, "can't optimize a non-leaf Tensor"),
    ],
)
def test_construction_errors(params, exc, message):
    if params is None:
        params = minitorch.ones(2)
    elif params == "non-leaf":
        params = [nn.Parameter(minitorch.ones(2)) * 2]
    with pytest.raises(exc, match=message):
        optim.SGD(params, lr=0.1)


def test_duplicate_parameters_warn():
    p = _param()
    with pytest.warns(UserWarning, match="duplicate parameters"):
        Toy([p, p], lr=1.0)


# --- zero_grad and step ---


def test_zero_grad_sets_none_or_zeros():
    p = _param()
    opt = Toy([p], lr=1.0)
    _grad(p, 1.0, 2.0)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_step_runs_without_recording_a_graph_and_returns_the_closure_loss():
    p = _param(1.0, 2.0)
    opt = optim.SGD([p], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        assert minitorch.is_grad_enabled()  # closures run with grad enabled
        return loss

    loss = opt.step(closure)
    assert float(loss.detach()) == 5.0
    np.testing.assert_allclose(p.detach().numpy(), [0.0, 0.0])
    assert p.is_leaf and p.grad_fn is None
    assert minitorch.is_grad_enabled()


def test_a_custom_step_runs_in_the_callers_grad_mode_and_builtins_under_no_grad():
    opt = Toy([_param()], lr=1.0)
    opt.step()
    assert opt.grad_enabled_in_step  # as in torch: only the built-in steps turn grad off
    p = _param()
    p.grad = minitorch.ones(2, dtype=minitorch.float64)
    seen = []
    sgd = optim.SGD([p], lr=0.1)
    sgd.register_step_post_hook(lambda o, a, k: seen.append(minitorch.is_grad_enabled()))
    sgd.step(lambda: seen.append(minitorch.is_grad_enabled()))
    assert seen == [True, True]  # the closure with grad on; post-hooks outside the no_grad


def test_parameters_without_grad_are_skipped():
    a, b = _param(1.0), _param(1.0)
    opt = optim.Adam([a, b], lr=0.1)
    _grad(a, 1.0)
    opt.step()
    assert b.item() == 1.0 and b not in opt.state and a in opt.state


# --- state dicts ---


def test_state_dict_layout_uses_indices():
    a, b, c = _param(), _param(), _param()
    opt = optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, c):
        _grad(p, 1.0, 1.0)
    opt.step()
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert list(sd["state"]) == [0, 2]
    assert list(sd["state"][0]) == ["momentum_buffer"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert set(sd["param_groups"][0]) == {
        "lr",
        "momentum",
        "dampening",
        "weight_decay",
        "nesterov",
        "maximize",
        "foreach",
        "differentiable",
        "fused",
        "params",
    }
    # the live groups are untouched
    assert opt.param_groups[0]["params"][0] is a


def test_load_state_dict_restores_state_and_hyperparameters():
    a, b = _param(1.0, 2.0), _param(3.0)
    opt = optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.2}], lr=0.1)
    _grad(a, 1.0, -1.0)
    _grad(b, 2.0)
    opt.step()
    sd = copy.deepcopy(opt.state_dict())

    a2, b2 = _param(1.0, 2.0), _param(3.0)
    opt2 = optim.Adam([{"params": [a2]}, {"params": [b2]}], lr=0.9)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[1]["lr"] == 0.2
    assert opt2.param_groups[0]["params"][0] is a2
    state = opt2.state[a2]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"]
    assert state["step"].item() == 1.0 and state["step"].dtype == minitorch.float32
    np.testing.assert_allclose(state["exp_avg"].numpy(), [0.1, -0.1])


def test_load_state_dict_casts_to_the_parameters_dtype_and_keeps_step():
    p = nn.Parameter(minitorch.ones(2, dtype=minitorch.float32))
    opt = optim.Adam([p], lr=0.1)
    sd = {
        "state": {
            0: {
                "step": minitorch.tensor(3.0),
                "exp_avg": minitorch.ones(2, dtype=minitorch.float64),
                "exp_avg_sq": minitorch.ones(2, dtype=minitorch.float64),
            }
        },
        "param_groups": [dict(opt.state_dict()["param_groups"][0])],
    }
    opt.load_state_dict(sd)
    assert opt.state[p]["exp_avg"].dtype == minitorch.float32
    assert opt.state[p]["step"] is sd["state"][0]["step"]


def test_load_state_dict_errors():
    opt = optim.SGD([_param()], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]})


def test_deepcopy_and_pickle_keep_groups_and_state():
    p = _param(1.0, 2.0)
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    _grad(p, 1.0, 1.0)
    opt.step()
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        q = clone.param_groups[0]["params"][0]
        np.testing.assert_allclose(clone.state[q]["momentum_buffer"].numpy(), [1.0, 1.0])
        assert clone.param_groups[0]["lr"] == 0.1
        clone.step()  # hooks dicts restored


# --- hooks ---


def test_step_hooks_run_in_order_and_can_be_removed():
    p = _param()
    opt = Toy([p], lr=1.0)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", args[0] is o)))
    h2 = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", len(args))))
    g1 = register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global pre"))
    g2 = register_optimizer_step_post_hook(lambda o, a, k: calls.append("global post"))
    try:
        opt.step()
    finally:
        g1.remove()
        g2.remove()
    assert calls == ["global pre", ("pre", True), ("post", 1), "global post"]
    h1.remove()
    h2.remove()
    calls.clear()
    opt.step()
    assert calls == []


def test_pre_hook_can_replace_arguments():
    p = _param()
    opt = Toy([p], lr=1.0)
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 42}))
    assert opt.step() == 42
    opt2 = Toy([_param()], lr=1.0)
    opt2.register_step_pre_hook(lambda o, args, kwargs: 3)
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        opt2.step()


def test_state_dict_hooks():
    p = _param()
    opt = Toy([p], lr=1.0)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load post"))
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    assert seen == ["pre", "load pre", "load post"]


# --- repr ---


def test_repr_lists_groups_with_sorted_keys():
    opt = optim.SGD([{"params": [_param()]}, {"params": [_param()], "lr": 0.5}], lr=0.1)
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    fused: None\n    lr: 0.1\n    maximize: False\n"
        "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n\n"
        "Parameter Group 1\n    dampening: 0\n    differentiable: False\n"
        "    foreach: None\n    fused: None\n    lr: 0.5\n    maximize: False\n"
        "    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)"
    )


def test_repr_of_a_tensor_lr_prints_its_value():
    opt = optim.Adam([_param()], lr=minitorch.tensor(0.01))
    assert "    lr: 0.009999999776482582\n" in repr(opt)


def test_a_subclass_calling_super_step_runs_the_hooks_once():
    class Clipped(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    p = _param()
    p.grad = minitorch.ones(2, dtype=minitorch.float64)
    opt = Clipped([p], lr=0.5)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    opt.step()
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(p.detach().numpy(), [0.5, 1.5])
