"""Checkpoint inputs saved through autograd (version checks, outer saved-tensor hooks),
stateless.functional_call's names, get_total_norm with a missing gradient, and the optimizers'
lerp dtype check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.graph import save_on_cpu, saved_tensors_hooks
from minitorch.nn.utils import stateless
from minitorch.utils.checkpoint import checkpoint, checkpoint_sequential

_MODIFIED = r"modified by an inplace operation: .* is at version 1; expected version 0"


def _modified(op):
    return (
        r"modified by an inplace operation: \[torch.FloatTensor \[3\]\], "
        rf"which is output 0 of {op}, is at version 1; expected version 0 instead"
    )


def _x():
    return minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)


# --- checkpoint: inputs changed in place ---


def test_checkpoint_unchanged_input_gives_the_true_gradient():
    x = _x()
    checkpoint(lambda z: z.sin() * z, x * 1, use_reentrant=False).sum().backward()
    xn = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(
        x.grad.numpy(), np.cos(xn) * xn + np.sin(xn), rtol=1e-6, err_msg="checkpoint gradient"
    )


def test_checkpoint_input_modified_after_forward_raises():
    x = _x()
    h = x * 1
    y = checkpoint(lambda z: z.sin() * z, h, use_reentrant=False)
    h.mul_(2)  # recomputing from the new h would give a silently wrong gradient
    with pytest.raises(RuntimeError, match=_modified("Mul")):
        y.sum().backward()
    assert x.grad is None


def test_checkpoint_block_starting_in_place_raises():
    def block(z):
        z.mul_(2)
        return z.sin()

    x = _x()
    y = checkpoint(block, x * 1, use_reentrant=False)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        y.sum().backward()


def test_checkpoint_input_not_requiring_grad_is_version_checked_too():
    w = minitorch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    z = minitorch.ones(1, 3)
    y = checkpoint(lambda a: (a.mul_(2) * w).sum(), z, use_reentrant=False)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        y.backward()


def test_checkpoint_sequential_segment_starting_with_inplace_relu_raises():
    relu_ = nn.ReLU(inplace=True)
    fns = [lambda t: t * 2, relu_, lambda t: t * 3, relu_]
    x = _x()
    checkpoint_sequential(fns, 2, x * 1, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0, 6.0], err_msg="2 segments")
    x = _x()
    out = checkpoint_sequential(fns, 4, x * 1, use_reentrant=False)
    with pytest.raises(RuntimeError, match=_modified("Relu")):
        out.sum().backward()


def test_checkpoint_gradients_float64():
    def fn(a, b):
        return checkpoint(lambda u, v: (u * v).sin() * u, a, b, use_reentrant=False)

    rng = np.random.default_rng(0)
    a = minitorch.tensor(rng.standard_normal(4), dtype=minitorch.float64, requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(4), dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


# --- checkpoint under outer saved-tensor hooks ---


def test_checkpoint_inputs_go_through_outer_saved_tensor_hooks():
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    def unpack(t):
        unpacked.append(tuple(t.shape))
        return t

    x = minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = checkpoint(lambda z, k: z.exp() * z * k, x, 2.0, use_reentrant=False)
    assert packed == [(3,)]
    assert unpacked == []
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert unpacked == [(3,), (3,)]  # once per recomputation
    xn = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(
        x.grad.numpy(), 2 * 2 * np.exp(xn) * (xn + 1), rtol=1e-6, err_msg="two backwards"
    )


def test_checkpoint_under_save_on_cpu():
    x = minitorch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    with save_on_cpu():
        y = checkpoint(lambda z: z.exp() * z, x, use_reentrant=False)
    y.sum().backward()
    xn = np.array([0.5, 1.0, 1.5])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(xn) * (xn + 1), rtol=1e-6)


def test_checkpoint_under_no_grad_packs_nothing():
    packed = []
    x = _x()
    with minitorch.no_grad(), saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = checkpoint(lambda z: z.sin() * z, x, use_reentrant=False)
    assert not y.requires_grad
    assert packed == []


# --- functional_call ---


def test_stateless_functional_call_keyword_name():
    m = nn.Linear(2, 1)
    p = {"weight": minitorch.ones(1, 2), "bias": minitorch.zeros(1)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        out = stateless.functional_call(m, parameters_and_buffers=p, args=(minitorch.ones(1, 2),))
    np.testing.assert_allclose(out.numpy(), [[2.0]])


@pytest.mark.parametrize("name", ["", "0."])
def test_functional_call_empty_tensor_name_raises_key_error(name):
    m = nn.Sequential(nn.Linear(2, 2))
    w = m[0].weight
    given = {"0.weight": minitorch.ones(2, 2), name: minitorch.ones(2)}
    with pytest.raises(KeyError) as info:
        minitorch.func.functional_call(m, given, (minitorch.ones(1, 2),))
    assert info.value.args == ('tensor name can\'t be empty string ""',)
    assert m[0].weight is w  # what was swapped in before the error is put back


# --- get_total_norm ---


def test_get_total_norm_refuses_a_missing_tensor():
    t = minitorch.ones(2)
    with pytest.raises(RuntimeError, match="supposed to be defined but the 2-th Tensor is not"):
        nn.utils.get_total_norm([t, t, None, None])
    # clip_grad_norm_ skips parameters without a gradient, as torch
    a, b = nn.Parameter(minitorch.ones(2)), nn.Parameter(minitorch.ones(2))
    a.grad = minitorch.tensor([3.0, 4.0])
    total = nn.utils.clip_grad_norm_([a, b], 1.0)
    np.testing.assert_allclose(total.item(), 5.0)
    np.testing.assert_allclose(a.grad.numpy(), [0.6, 0.8], rtol=1e-5)


# --- optimizers: torch's m.lerp_(g, w) refuses a gradient of another dtype ---


def _step_after_double(opt_cls, **kw):
    p = nn.Parameter(minitorch.ones(2, 3))
    opt = opt_cls([p], lr=0.1, **kw)
    p.grad = minitorch.full((2, 3), 0.5)
    opt.step()
    p.data = p.data.double()  # e.g. model.double() mid-training: the state stays float32
    p.grad = minitorch.full((2, 3), 0.5, dtype=minitorch.float64)
    opt.step()
    return p


@pytest.mark.parametrize(
    "opt_cls, kw",
    [
        (minitorch.optim.Adam, {}),
        (minitorch.optim.Adam, {"amsgrad": True, "weight_decay": 0.1}),
        (minitorch.optim.AdamW, {}),
        (minitorch.optim.NAdam, {}),
        (minitorch.optim.RAdam, {}),
        (minitorch.optim.Adamax, {}),
        (minitorch.optim.RMSprop, {"centered": True}),
    ],
)
def test_lerp_optimizers_refuse_a_parameter_of_another_dtype(opt_cls, kw):
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype double"):
        _step_after_double(opt_cls, **kw)


def test_optimizers_without_lerp_keep_stepping_after_double():
    # torch's SGD and plain RMSprop take the float64 gradient into their float32 state
    p = _step_after_double(minitorch.optim.SGD, momentum=0.9)
    assert p.dtype is minitorch.float64
    np.testing.assert_allclose(p.sum().item(), 5.13, rtol=1e-6, err_msg="SGD momentum")
    p = _step_after_double(minitorch.optim.RMSprop)
    assert p.dtype is minitorch.float64


def test_adam_first_moment_unchanged_by_the_check():
    p = nn.Parameter(minitorch.tensor([1.0, 2.0]))
    opt = minitorch.optim.Adam([p], lr=0.1, betas=(0.8, 0.99))
    for g in ([0.5, -1.0], [0.25, 2.0]):
        p.grad = minitorch.tensor(g)
        opt.step()
    np.testing.assert_allclose(
        opt.state[p]["exp_avg"].numpy(),
        [0.8 * 0.2 * 0.5 + 0.2 * 0.25, 0.8 * 0.2 * -1.0 + 0.2 * 2.0],
        rtol=1e-6,
    )
