"""Inference tensors (NOTE [ Inference tensors ] in minitorch/autograd/grad_mode.py): which
tensors inference_mode makes inference tensors, torch's refusals outside inference mode (saving
for backward, in-place changes before anything is written, requires_grad, _version), and the
per-op constructors swapped only while an inference_mode block is open. torch 2.13's messages
are written as literals."""

from __future__ import annotations

import copy
import pickle
import threading

import numpy as np
import pytest

import minitorch as mt
from minitorch import _tensor
from minitorch.autograd import function

SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)


def _made_inside(*shape):
    with mt.inference_mode():
        return mt.ones(*shape)


def test_which_tensors_are_inference_tensors():
    n = mt.arange(6.0).reshape(2, 3)
    with mt.inference_mode():
        x = mt.ones(2, 3)
        made = [x, x * 2, n.exp(), x[:, 1:], x.detach(), n.clone(), mt.tensor([1.0]), n.sum()]
        normal = [n[0], n.t(), n.detach(), n.view(6), n.unsqueeze(0)]
        assert all(t.is_inference() for t in made)
        assert not any(t.is_inference() for t in normal)
    assert x[1].is_inference() and x.t().is_inference() and x.detach().is_inference()
    assert mt.is_inference(x) and not mt.is_inference(n)
    assert not (x + 1).is_inference() and not x.clone().is_inference()
    with mt.no_grad():
        assert not (x * 2).is_inference()
    with mt.inference_mode(), mt.inference_mode(False):
        assert not mt.ones(2).is_inference()
    # every object made is a plain Tensor again, and results compute as before
    assert type(x) is mt.Tensor and type(x * 2) is mt.Tensor
    np.testing.assert_array_equal((x * 2 + n).numpy(), 2 + np.arange(6.0).reshape(2, 3))


def test_constructors_swapped_only_while_a_block_is_open():
    assert _tensor._new is object.__new__ and function._new_object is object.__new__
    with mt.inference_mode():
        assert _tensor._new is not object.__new__
        with mt.inference_mode():
            pass
        assert function._new_object is not object.__new__
    assert _tensor._new is object.__new__ and function._new_object is object.__new__
    with pytest.raises(ZeroDivisionError), mt.inference_mode():
        1 / 0  # noqa: B018
    assert _tensor._new is object.__new__

    @mt.inference_mode()
    def gen():
        yield mt.ones(1)

    assert next(gen()).is_inference()
    assert _tensor._new is object.__new__


def test_other_threads_make_normal_tensors_meanwhile():
    inside, outside, done = threading.Event(), threading.Event(), []

    def infer():
        with mt.inference_mode():
            done.append(mt.ones(2).is_inference())
            inside.set()
            outside.wait(5)

    t = threading.Thread(target=infer)
    t.start()
    inside.wait(5)
    made_meanwhile = mt.ones(2) * 3
    outside.set()
    t.join()
    assert done == [True]
    assert not made_meanwhile.is_inference() and type(made_meanwhile) is mt.Tensor
    assert _tensor._new is object.__new__


def test_version_counter():
    x = _made_inside(3)
    for inside in (False, True):
        with mt.inference_mode(inside), pytest.raises(RuntimeError) as e:
            x._version  # noqa: B018
        assert str(e.value) == "Inference tensors do not track version counter."
    assert mt.ones(2)._version == 0


def test_saving_for_backward_is_refused():
    w = mt.ones(3, requires_grad=True)
    x = _made_inside(3)
    with mt.inference_mode():
        index = mt.zeros(2, dtype=mt.int64)

    class Keep(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    calls = [
        lambda: x * w,
        lambda: w * x,
        lambda: w @ x,
        lambda: Keep.apply(w, x),
        lambda: mt.gather(w, 0, index),  # a watched index
    ]
    for call in calls:
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == SAVE
    with mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="cannot be saved for backward"):
            x * w
    # ops that save nothing of it take it, and make normal tensors
    y = w + x
    assert not y.is_inference()
    y.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.ones(3))
    # a clone is a normal tensor
    (x.clone() * w).sum().backward()


def test_inplace_outside_is_refused_before_the_write():
    n = mt.full((3,), 2.0)
    x = _made_inside(3)
    calls = {
        "add_": lambda: x.add_(1),
        "iadd": lambda: x.__iadd__(n),
        "sub_": lambda: x.sub_(n, alpha=0.5),
        "mul_": lambda: x.mul_(2.0),
        "zero_": lambda: x.zero_(),
        "fill_": lambda: x.fill_(3.0),
        "clamp_": lambda: x.clamp_(0.0, 0.5),
        "exp_": lambda: x.exp_(),
        "addcmul_": lambda: x.addcmul_(n, n),
        "lerp_": lambda: x.lerp_(n, 0.5),
        "setitem": lambda: x.__setitem__(0, 5.0),
        "index_put_": lambda: x.index_put_((mt.tensor([0]),), mt.tensor(5.0)),
        "masked_fill_": lambda: x.masked_fill_(mt.tensor([True, False, True]), 5.0),
        "copy_": lambda: x.copy_(n),
        "out": lambda: mt.exp(n, out=x),
        "unsqueeze_": lambda: x.unsqueeze_(0),
        "uniform_": lambda: x.uniform_(),
        "view": lambda: x[1:].add_(1),
    }
    for name, call in calls.items():
        for mode in (mt.enable_grad, mt.no_grad):
            with mode(), pytest.raises(RuntimeError) as e:
                call()
            assert str(e.value) == INPLACE, name
            assert x.shape == (3,) and x.tolist() == [1.0, 1.0, 1.0], name
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        x._vc[0] += 1  # any other version bump: the counter itself refuses
    # a leaf that requires grad gets the leaf's error first, as torch
    with mt.inference_mode():
        z = mt.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        z.add_(1)
    # inside inference mode it changes, and normal tensors change anywhere
    with mt.inference_mode():
        x.add_(1)
        x[0] = 7.0
        n.add_(1)
    assert x.tolist() == [7.0, 2.0, 2.0] and n.tolist() == [3.0, 3.0, 3.0]
    assert n._version == 1


def test_requires_grad_outside_is_refused():
    x = _made_inside(3)
    with pytest.raises(RuntimeError) as e:
        x.requires_grad_()
    assert str(e.value) == REQUIRES_GRAD
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
        x.requires_grad = True
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
        mt.nn.Parameter(x)
    assert mt.nn.Parameter(x, requires_grad=False).is_inference()
    assert x.requires_grad_(False) is x
    with mt.inference_mode():
        i = mt.ones(2, dtype=mt.int64)
        p = mt.nn.Parameter(mt.ones(2))
        assert x.requires_grad_().requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        i.requires_grad_()  # the dtype's error first, as torch
    assert p.is_inference() and p.requires_grad


def test_module_built_inside_inference_mode():
    mt.manual_seed(0)
    with mt.inference_mode():
        net = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.BatchNorm1d(4))
    assert all(t.is_inference() for t in net.state_dict().values())
    x = mt.randn(5, 3)
    with pytest.raises(RuntimeError) as e:
        net(x)  # training: the running statistics would change in place
    assert str(e.value) == INPLACE
    assert net[1].running_mean.tolist() == [0.0] * 4
    net.eval()
    with pytest.raises(RuntimeError) as e:
        net(x)  # recording: the running statistics would be saved for backward
    assert str(e.value) == SAVE
    with mt.no_grad():
        assert net(x).shape == (5, 4)
    before = net[0].weight.clone()
    for p in net.parameters():
        p.grad = mt.ones_like(p)
    for foreach in (False, True):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            mt.optim.SGD(net.parameters(), lr=0.1, foreach=foreach).step()
        assert mt.equal(net[0].weight, before)


def test_copies_are_normal_tensors():
    x = _made_inside(2)
    for y in (copy.deepcopy(x), pickle.loads(pickle.dumps(x)), x.clone(), mt.tensor(x.tolist())):
        assert not y.is_inference()
        y.add_(1)
