"""utils.checkpoint: recomputation instead of saved activations, both variants."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential


def _model(seed=0):
    mt.manual_seed(seed)
    return nn.Linear(4, 8), nn.Linear(8, 3)


def _block(lin1, lin2):
    def block(h):
        return lin2(nn.functional.dropout(mt.tanh(lin1(h)), 0.3, training=True))

    return block


def _grads(lin1, lin2, x):
    return [x.grad.numpy().copy()] + [
        p.grad.numpy().copy() for p in (*lin1.parameters(), *lin2.parameters())
    ]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_same_values_and_gradients_as_without(use_reentrant):
    lin1, lin2 = _model()
    block = _block(lin1, lin2)
    x = mt.randn(5, 4, requires_grad=True)
    mt.manual_seed(7)  # dropout's mask is drawn again in the recomputation: same state
    y = block(x)
    (y**2).sum().backward()
    want, want_y = _grads(lin1, lin2, x), y.detach().numpy()
    for p in (x, *lin1.parameters(), *lin2.parameters()):
        p.grad = None
    mt.manual_seed(7)
    y = checkpoint(block, x, use_reentrant=use_reentrant)
    after = mt.rand(1).item()  # the recomputation leaves the random stream where it was
    (y**2).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), want_y, rtol=1e-6, err_msg="output")
    for got, w in zip(_grads(lin1, lin2, x), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-7, err_msg="gradients")
    mt.manual_seed(7)
    block(x)
    assert mt.rand(1).item() == after
    name = "CheckpointFunctionBackward" if use_reentrant else "AddmmBackward0"
    assert type(y.grad_fn).__name__ == name


def test_non_reentrant_keeps_no_intermediate_and_recomputes_once_per_backward():
    x = mt.randn(6, dtype=mt.float64, requires_grad=True)
    calls, kept = [], []

    def f(a):
        calls.append(1)
        h = a.exp()
        kept.append(weakref.ref(h._data))
        return (h * a).sum()

    plain = f(x)
    gc.collect()
    assert kept[0]() is not None  # exp's output is saved by the plain graph
    y = checkpoint(f, x, use_reentrant=False)
    gc.collect()
    assert kept[1]() is None  # ... and not by the checkpointed one
    y.backward(retain_graph=True)
    y.backward()
    assert len(calls) == 4  # plain forward, checkpointed forward, one recomputation per backward
    plain.backward()
    xv = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(xv) * (xv + 1), rtol=1e-12)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_non_reentrant_grad_and_double_backward():
    def f(a, b):
        return checkpoint(lambda u, v: (u.sin() * v).sum(0) / v.exp(), a, b, use_reentrant=False)

    rng = np.random.default_rng(0)
    a = mt.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = mt.tensor(rng.standard_normal(2), requires_grad=True)
    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def test_reentrant_refuses_grad_and_inputs():
    lin1, lin2 = _model()
    x = mt.randn(2, 4, requires_grad=True)
    msg = "incompatible with .grad\\(\\) or passing an `inputs` parameter"
    y = checkpoint(lin1, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match=msg):
        mt.autograd.grad(y.sum(), x)
    y = checkpoint(lin1, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match=msg):
        y.sum().backward(inputs=[x])
    y = checkpoint(lambda a: (a * 2).detach(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        y.sum().backward()


def test_arguments_and_warnings():
    x = mt.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = checkpoint(lambda a: a * 2, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(lambda a: a * 2, mt.randn(3), use_reentrant=True)
    assert not y.requires_grad
    with pytest.raises(ValueError, match="Unexpected keyword arguments: b"):
        checkpoint(lambda a, b=1: a * b, x, b=2, use_reentrant=True)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    y = checkpoint(lambda a, b=1: a * b, x, b=3, use_reentrant=False)  # kwargs are fine here
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant"):
        checkpoint_sequential(nn.Sequential(nn.ReLU(), nn.ReLU()), 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda a: a * 2, x, use_reentrant=False)


def test_recomputation_that_differs_is_refused():
    x = mt.randn(3, requires_grad=True)
    runs = []

    def grows(a):
        runs.append(1)
        return (a.exp() * a).sum() if len(runs) == 1 else a.exp().sum()

    y = checkpoint(grows, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="(?s)different number.*forward: 3.*recomputation: 1"):
        y.backward()
    assert issubclass(CheckpointError, RuntimeError)
    runs.clear()

    def shrinks(a):
        runs.append(1)
        return a.exp().sum() if len(runs) == 1 else a[:2].exp().sum()

    y = checkpoint(shrinks, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"(?s)different metadata.*position 0.*\[3\].*\[2\]"):
        y.backward()
    runs.clear()

    def saves_more(a):
        runs.append(1)
        return a.exp().sum() if len(runs) == 1 else a.exp().sum() + (a * a).sum() * 0

    y = checkpoint(saves_more, x, use_reentrant=False, determinism_check="none")
    y.backward()  # unchecked: the caller vouches for the recomputation (here its first tensor)
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()), rtol=1e-6)
    with pytest.raises(ValueError, match="determinism_check should be one of"):
        checkpoint(shrinks, x, use_reentrant=False, determinism_check="strict")


def test_context_fn_and_autocast_state():
    x = mt.randn(4, 4, requires_grad=True)
    entered = []

    class Ctx:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    y = checkpoint(
        lambda a: (a @ a).sum(),
        x,
        use_reentrant=False,
        context_fn=lambda: (Ctx("forward"), Ctx("recompute")),
    )
    y.backward()
    assert entered == ["forward", "recompute"]
    # The forward ran under autocast: so does the recomputation (else its saved dtypes differ).
    with mt.autocast("cpu", dtype=mt.bfloat16):
        y = checkpoint(lambda a: (a @ a).float().sum(), x, use_reentrant=False)
    y.backward()
    assert x.grad.dtype == mt.float32


def test_checkpoint_sequential_matches_plain():
    mt.manual_seed(3)
    seq = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2))
    x = mt.randn(3, 4, requires_grad=True)
    seq(x).pow(2).sum().backward()
    want = [p.grad.numpy().copy() for p in seq.parameters()]
    seq.zero_grad()
    for use_reentrant in (False, True):
        out = checkpoint_sequential(seq, 2, x, use_reentrant=use_reentrant)
        out.pow(2).sum().backward()
        for p, w in zip(seq.parameters(), want, strict=True):
            np.testing.assert_allclose(p.grad.numpy(), w, rtol=1e-5, err_msg=str(use_reentrant))
        seq.zero_grad()
