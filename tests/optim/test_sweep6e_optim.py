"""Sweep 6e: torch.optim's private helpers and functional API, and a float32 tensor lr on
float64 parameters rounding its derived scalars in float32 as torch does."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.optim import optimizer as optim_mod


def test_private_helpers_and_docs_import():
    from minitorch.optim.optimizer import (  # noqa: F401
        _capturable_doc,
        _differentiable_doc,
        _foreach_doc,
        _fused_doc,
        _maximize_doc,
        _params_doc,
    )

    assert optim_mod._get_value(minitorch.tensor(3.0)) == 3.0
    assert optim_mod._get_value(2) == 2
    assert optim_mod._get_scalar_dtype() == minitorch.float32
    assert optim_mod._get_scalar_dtype(is_fused=True) == minitorch.float32
    xs = [minitorch.tensor(1.0)]
    assert optim_mod._stack_if_compiling(xs) is xs

    def f(x):
        return x + 1

    assert optim_mod._disable_dynamo_if_unsupported(single_tensor_fn=f)(f) is f
    cpu = [minitorch.ones(2)]
    assert optim_mod._default_to_fused_or_foreach(cpu, False, use_fused=True) == (False, False)
    params, grads = [minitorch.ones(2)], [minitorch.ones(2)]
    before = params[0]
    optim_mod._view_as_real(params, grads)  # real tensors: left as they are
    assert params[0] is before
    for doc in (_foreach_doc, _maximize_doc, _params_doc):
        assert doc.startswith(doc.split(" ")[0]) and "(" in doc


def test_functional_modules_import():
    functional = importlib.import_module("minitorch.optim._functional")
    from minitorch.optim.adam import adam
    from minitorch.optim.adamw import adamw
    from minitorch.optim.sgd import sgd

    assert functional.adam is adam and functional.adamw is adamw and functional.sgd is sgd


@pytest.mark.parametrize("fn,decoupled", [("adam", False), ("adamw", True)])
@pytest.mark.parametrize("amsgrad", [False, True])
def test_functional_adam_matches_class(fn, decoupled, amsgrad):
    from minitorch.optim import _functional as F

    rng = np.random.default_rng(0)
    p0, grads = rng.standard_normal(4), [rng.standard_normal(4) for _ in range(3)]
    p_cls = minitorch.nn.Parameter(minitorch.tensor(p0))
    opt = minitorch.optim.Adam(
        [p_cls], lr=0.1, weight_decay=0.1, amsgrad=amsgrad, decoupled_weight_decay=decoupled
    )
    p = minitorch.tensor(p0)
    m, v = minitorch.zeros(4).double(), minitorch.zeros(4).double()
    vmax, step = minitorch.zeros(4).double(), minitorch.tensor(0.0)
    for g in grads:
        p_cls.grad = minitorch.tensor(g)
        opt.step()
        getattr(F, fn)(
            [p], [minitorch.tensor(g)], [m], [v], [vmax], [step], amsgrad=amsgrad, beta1=0.9,
            beta2=0.999, lr=0.1, weight_decay=0.1, eps=1e-8, maximize=False,
        )  # fmt: skip
    assert step.item() == 3.0
    np.testing.assert_allclose(p.numpy(), p_cls.detach().numpy(), rtol=0, atol=0)
    np.testing.assert_allclose(m.numpy(), opt.state[p_cls]["exp_avg"].numpy(), rtol=0, atol=0)


def test_functional_adam_value_and_state_steps_check():
    from minitorch.optim.adam import adam

    p, g = minitorch.ones(3), minitorch.full((3,), 0.5)
    m, v = minitorch.zeros(3), minitorch.zeros(3)
    kw = dict(amsgrad=False, beta1=0.9, beta2=0.999, lr=0.1, weight_decay=0.0, eps=1e-8)
    adam([p], [g], [m], [v], [], [minitorch.tensor(0.0)], maximize=False, **kw)
    np.testing.assert_allclose(p.numpy(), [0.9000000357627869] * 3, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="state_steps"):
        adam([p], [g], [m], [v], [], [0], maximize=False, **kw)


def test_functional_sgd_fills_momentum_buffers():
    from minitorch.optim.sgd import sgd

    p, g = minitorch.tensor([1.0, 2.0]), minitorch.tensor([0.5, -1.0])
    bufs = [None]
    kw = dict(weight_decay=0.1, momentum=0.9, lr=0.1, dampening=0.0, nesterov=True)
    sgd([p], [g], bufs, maximize=False, **kw)
    d = np.array([0.5, -1.0], np.float32) + np.float32(0.1) * np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(bufs[0].numpy(), d, rtol=1e-6)
    expected = np.array([1.0, 2.0], np.float32) - 0.1 * (d + 0.9 * d)
    np.testing.assert_allclose(p.numpy(), expected, rtol=1e-6)
    sgd([p], [g], bufs, maximize=True, **kw)  # the buffer is updated in place
    assert bufs[0] is not None and not np.allclose(bufs[0].numpy(), d)


# torch 2.x values: float64 params, lr=torch.tensor(0.01) (float32), weight_decay=0.01, 3 steps
_TENSOR_LR_EXPECTED = {
    ("Adam", False): [0.326391193368225, -0.22999797955088835],
    ("AdamW", False): [0.32643463106473364, -0.2299369887431143],
    ("Adamax", False): [0.32190517905513505, -0.22999671913197453],
    ("Adafactor", False): [0.30416480885363995, -0.2076571644497702],
    ("NAdam", True): [0.3166280879400412, -0.22566062596928604],
    ("RAdam", True): [0.30431302003990685, -0.201439845992018],
}


@pytest.mark.parametrize("name,decoupled", list(_TENSOR_LR_EXPECTED))
def test_float32_tensor_lr_rounds_like_torch(name, decoupled):
    p = minitorch.nn.Parameter(minitorch.tensor([0.3, -0.2], dtype=minitorch.float64))
    kw = {"decoupled_weight_decay": True} if decoupled else {}
    opt = getattr(minitorch.optim, name)([p], lr=minitorch.tensor(0.01), weight_decay=0.01, **kw)
    for i in range(3):
        p.grad = minitorch.tensor([0.1 * i - 0.2, 0.05], dtype=minitorch.float64)
        opt.step()
    np.testing.assert_allclose(
        p.detach().numpy(), _TENSOR_LR_EXPECTED[(name, decoupled)], rtol=0, atol=1e-16,
        err_msg=name,
    )  # fmt: skip


@pytest.mark.parametrize("wd,expected", [(0.01, 0.989899984202113), (0.0, 0.990000000796046)])
def test_adamw_float32_tensor_lr_one_step(wd, expected):
    p = minitorch.nn.Parameter(minitorch.ones(1, dtype=minitorch.float64))
    opt = minitorch.optim.AdamW([p], lr=minitorch.tensor(0.01), weight_decay=wd)
    p.grad = minitorch.full((1,), 0.5, dtype=minitorch.float64)
    opt.step()
    np.testing.assert_allclose(p.item(), expected, rtol=0, atol=5e-16)


def test_float_lr_unchanged_by_tensor_lr_path():
    # a Python lr keeps float64 arithmetic: lr / (1 - 0.9) exactly, not rounded to float32
    p = minitorch.nn.Parameter(minitorch.ones(1, dtype=minitorch.float64))
    opt = minitorch.optim.Adam([p], lr=0.01)
    p.grad = minitorch.full((1,), 0.5, dtype=minitorch.float64)
    opt.step()
    np.testing.assert_allclose(p.item(), 1 - 0.01 * 0.5 / (0.5 + 1e-8), rtol=0, atol=1e-16)


def test_scheduler_sees_the_step_of_a_wrapper_without_optimizer_init():
    # Lookahead-style wrappers never call Optimizer.__init__; stepping them before the scheduler
    # is the right order and must not warn
    class Wrapper(minitorch.optim.Optimizer):
        def __init__(self, base):
            self.base = base
            self.param_groups = base.param_groups
            self.state = base.state

        def step(self, closure=None):
            return self.base.step(closure)

    p = minitorch.nn.Parameter(minitorch.ones(2))
    opt = Wrapper(minitorch.optim.SGD([p], lr=0.1))
    sched = minitorch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    p.grad = minitorch.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9], rtol=1e-6)
    assert sched.get_last_lr() == [0.05]
