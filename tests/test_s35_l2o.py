"""Session 35 (helper l2o): torch-free regression tests of the library fixes the learned-optimiser
and hypergradient programs of tests/reference/test_s35_l2o_reference.py found, all in the
differentiable=True optimizer steps: RAdam's update spelt as torch's add_(alpha=-1.0) (p's node
AddBackward0), ASGD's float32 step no longer saving the eta state its own copy_ then changes,
Adamax's update through addcdiv_ (saving exp_avg and exp_inf, as torch's), and Rprop's torch
formulas (step_size carrying sign's graph, clamped in place), and Rprop's TypeError for a
tensor lr that requires grad in either mode. torch's messages and values are written here as
literals."""

from __future__ import annotations

import pytest

import minitorch as mt

_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def _modified(dtype, what, version, expected):
    kind = {mt.float32: "FloatTensor", mt.float64: "DoubleTensor"}[dtype]
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.{kind} [4]], which is output 0 of {what}, is at version {version}; "
        f"expected version {expected} instead. {_HINT}"
    )


def _leaves(dtype, seed=0):
    gen = mt.Generator().manual_seed(seed)
    p0 = mt.randn(4, generator=gen, dtype=dtype).requires_grad_()
    c = mt.randn(4, generator=gen, dtype=dtype).requires_grad_()
    return p0, c


def test_radam_differentiable_step_is_an_add():
    p0, c = _leaves(mt.float64)
    p = p0.clone()
    opt = mt.optim.RAdam([p], lr=mt.tensor(0.05, dtype=mt.float64), differentiable=True)
    p.grad = c * 2
    opt.step()
    assert type(p.grad_fn).__name__ == "AddBackward0"


def test_radam_differentiable_error_names_the_add():
    p0, c = _leaves(mt.float64)
    p = p0.clone()
    opt = mt.optim.RAdam([p], lr=0.05, differentiable=True)
    for _ in range(2):
        p.grad = mt.autograd.grad((p**3).sum(), p, create_graph=True)[0]
        opt.step()
    with pytest.raises(RuntimeError) as info:
        mt.autograd.grad(p.sum(), p0)
    assert str(info.value) == _modified(mt.float64, "Add", 2, 1)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_asgd_differentiable_step_backpropagates(dtype):
    # torch reads eta as a number; here the float32 step saved eta itself, which the step's
    # own eta.copy_ then changed: backward raised "[torch.FloatTensor []] is at version 1"
    p0, c = _leaves(dtype)
    lr = mt.tensor(0.05, dtype=dtype, requires_grad=True)
    p = p0.clone()
    opt = mt.optim.ASGD([p], lr=lr, lambd=1e-4, differentiable=True)
    p.grad = c * 3
    opt.step()
    g_p0, g_c, g_lr = mt.autograd.grad(p.sum(), (p0, c, lr), allow_unused=True)
    tol = 1e-6  # (eta is kept in the default dtype, float32)
    mt.testing.assert_close(g_p0, mt.full((4,), 1 - 1e-4 * 0.05, dtype=dtype), atol=tol, rtol=0)
    mt.testing.assert_close(g_c, mt.full((4,), -3 * 0.05, dtype=dtype), atol=tol, rtol=0)
    assert g_lr is None


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_adamax_differentiable_saves_exp_avg(dtype):
    p0, c = _leaves(dtype)
    p = p0.clone()
    opt = mt.optim.Adamax([p], lr=0.05, differentiable=True, weight_decay=0.01)
    for k in range(3):
        p.grad = c * (k + 1) - 0.5 * c**2
        opt.step()
    assert type(p.grad_fn).__name__ == "AddcdivBackward0"
    with pytest.raises(RuntimeError) as info:
        mt.autograd.grad(p.sum(), (p0, c))
    assert str(info.value) == _modified(dtype, "Lerp", 3, 2)


def test_adamax_differentiable_one_step_gradients():
    # p = p0 - lr/(1 - b1) * (1 - b1) g / (|g| + eps) = p0 - lr sign(g) (g = c, weight decay 0)
    p0, c = _leaves(mt.float64, seed=1)
    p = p0.clone()
    opt = mt.optim.Adamax([p], lr=0.05, differentiable=True)
    p.grad = c
    opt.step()
    mt.testing.assert_close(p, p0 - 0.05 * c / (c.abs() + 1e-8), atol=1e-12, rtol=0)
    g_p0, g_c = mt.autograd.grad(p.sum(), (p0, c))
    mt.testing.assert_close(g_p0, mt.ones(4, dtype=mt.float64))
    # d/dc of c / (|c| + eps) = eps / (|c| + eps)^2
    want = -0.05 * 1e-8 / (c.detach().abs() + 1e-8) ** 2
    mt.testing.assert_close(g_c, want, atol=1e-20, rtol=1e-6)


def test_rprop_differentiable_follows_torchs_formulas():
    p0, c = _leaves(mt.float64, seed=2)
    p = p0.clone()
    opt = mt.optim.Rprop([p], lr=0.05, differentiable=True, step_sizes=(1e-3, 0.06))
    p.grad = c * -0.5 + 0.3
    opt.step()
    step_size = opt.state[p]["step_size"]
    assert type(p.grad_fn).__name__ == "AddcmulBackward0"
    assert type(step_size.grad_fn).__name__ == "ClampBackward1"
    mt.testing.assert_close(p, p0 - 0.05 * (c * -0.5 + 0.3).sign())
    g_p0, g_c = mt.autograd.grad(p.sum(), (p0, c), retain_graph=True)
    mt.testing.assert_close(g_p0, mt.ones(4, dtype=mt.float64))
    mt.testing.assert_close(g_c, mt.zeros(4, dtype=mt.float64))
    p.grad = c * 0.5 + 0.3
    opt.step()
    with pytest.raises(RuntimeError) as info:
        mt.autograd.grad(p.sum(), (p0, c))
    assert str(info.value) == _modified(mt.float64, "Clamp1", 4, 2)


def test_rprop_differentiable_step_sizes_match_the_plain_step():
    # the differentiable branch moves by the same step sizes as the default one
    gen = mt.Generator().manual_seed(3)
    start = mt.randn(6, generator=gen, dtype=mt.float64)
    grads = [mt.randn(6, generator=gen, dtype=mt.float64) for _ in range(4)]
    a = start.clone().requires_grad_()
    b = start.clone().requires_grad_().clone()
    opt_a = mt.optim.Rprop([a], lr=0.01)
    opt_b = mt.optim.Rprop([b], lr=0.01, differentiable=True)
    for g in grads:
        a.grad, b.grad = g.clone(), g.clone()
        opt_a.step()
        opt_b.step()
    mt.testing.assert_close(b.detach(), a.detach(), atol=1e-15, rtol=0)
    mt.testing.assert_close(
        opt_b.state[b]["step_size"].detach(), opt_a.state[a]["step_size"], atol=1e-15, rtol=0
    )


@pytest.mark.parametrize("differentiable", [False, True])
def test_rprop_lr_that_requires_grad_is_no_number(differentiable):
    # torch's full_like(grad, lr) takes the lr as a Number in either mode; the default step
    # read it as one
    p = mt.zeros(3, requires_grad=True)
    p.grad = mt.ones(3)
    lr = mt.tensor(0.1, requires_grad=True)
    opt = mt.optim.Rprop([p], lr=lr, differentiable=differentiable)
    with pytest.raises(TypeError) as info:
        opt.step()
    assert (
        str(info.value)
        == "full_like(): argument 'fill_value' (position 2) must be Number, not Tensor"
    )


def test_rprop_one_element_lr_tensor():
    p = mt.ones(3, requires_grad=True)
    opt = mt.optim.Rprop([p], lr=mt.tensor([0.3]))
    p.grad = mt.tensor([1.0, -1.0, 2.0])
    opt.step()
    mt.testing.assert_close(opt.state[p]["step_size"], mt.full((3,), 0.3))
    mt.testing.assert_close(p.detach(), mt.tensor([0.7, 1.3, 0.7]))


@pytest.mark.parametrize(
    "name, kw",
    [
        ("RAdam", {}),
        ("ASGD", {"lambd": 1e-3}),
        ("Adamax", {"weight_decay": 0.01}),
        ("Rprop", {}),
    ],
)
def test_differentiable_steps_on_every_device(device, name, kw):
    # the fixed differentiable branches read nothing back to the host
    gen = mt.Generator().manual_seed(4)
    p0 = mt.randn(5, generator=gen).to(device).requires_grad_()
    c = mt.randn(5, generator=gen).to(device).requires_grad_()
    p = p0.clone()
    opt = getattr(mt.optim, name)([p], lr=0.05, differentiable=True, **kw)
    p.grad = c * 2 + 0.5
    opt.step()
    g_p0, g_c = mt.autograd.grad(p.sum(), (p0, c))
    assert g_p0.device == p0.device and g_c.device == c.device
    assert tuple(g_p0.shape) == (5,) and tuple(g_c.shape) == (5,)
