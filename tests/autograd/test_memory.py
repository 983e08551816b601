"""Memory: graphs die with their last tensor (no reference cycles), saved tensors are released
after backward, and a training loop keeps a flat number of live tensors."""

from __future__ import annotations

import contextlib
import gc
import weakref

import numpy as np

import minitorch as mt


@contextlib.contextmanager
def _gc_disabled():
    # Anything freed in here is freed by reference counting alone, i.e. it was not in a cycle.
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _live_tensors() -> int:
    # issubclass(type(o)) rather than isinstance: it never runs a foreign __class__ property.
    return sum(1 for o in gc.get_objects() if issubclass(type(o), mt.Tensor))


def test_training_loop_keeps_live_tensors_flat_and_makes_no_cycles():
    x = mt.randn(16, 4)
    y = mt.randn(16, 1)
    w = mt.zeros(4, 1, requires_grad=True)
    b = mt.zeros(1, requires_grad=True)

    def step():
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with mt.no_grad():
            w.sub_(w.grad * 0.1)
            b.sub_(b.grad * 0.1)
        w.grad = None  # one parameter's grad reset to None, the other's zeroed in place
        b.grad.zero_()
        return loss.item()

    with _gc_disabled():
        losses = [step() for _ in range(100)]
        before = _live_tensors()
        losses += [step() for _ in range(900)]
        after = _live_tensors()
        cyclic = gc.collect()
    assert after == before, f"live tensors grew from {before} to {after} over 900 steps"
    assert cyclic == 0, f"{cyclic} objects were only collectable as cycles"
    assert losses[-1] < losses[0], "the model did not train"


def test_graph_is_freed_as_soon_as_its_output_dies():
    with _gc_disabled():
        x = mt.ones(3, requires_grad=True)
        h = x.exp()  # saves its output
        y = (h * x).tanh().sum()
        nodes = [weakref.ref(h.grad_fn), weakref.ref(y.grad_fn)]
        del h
        assert all(n() is not None for n in nodes), "the graph is alive while y is"
        del y
        assert all(n() is None for n in nodes), "the graph outlived its last tensor"


def test_graph_is_freed_after_backward_and_grad():
    with _gc_disabled():
        x = mt.ones(3, requires_grad=True)
        y = (x.exp() * x).sum()
        node = weakref.ref(y.grad_fn)
        y.backward()
        del y
        assert node() is None
        s = x.sigmoid()
        node = weakref.ref(s.grad_fn)
        y = (s * x).sum()
        del s
        (g,) = mt.autograd.grad(y, x, create_graph=True)
        del y
        assert node() is not None, "g's graph reuses SigmoidBackward's saved output"
        del g
        assert node() is None


def test_saved_tensors_are_released_by_backward_unless_retained():
    with _gc_disabled():
        x = mt.ones(3, requires_grad=True)
        h = x * 2
        saved = weakref.ref(h)
        y = h * h  # saves h
        del h
        assert saved() is not None
        y.sum().backward(retain_graph=True)
        assert saved() is not None, "retain_graph keeps the saved tensors"
        y.sum().backward()
        assert saved() is None, "saved tensors still held after backward"
        np.testing.assert_allclose(x.grad.numpy(), [16.0, 16.0, 16.0])
        assert y.grad_fn is not None  # the graph itself lives on while y does


def test_custom_function_saving_its_output_is_freed():
    class Sigmoid(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a.sigmoid()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * out * (1 - out)

    with _gc_disabled():
        x = mt.ones(3, requires_grad=True)
        y = Sigmoid.apply(x)
        node = weakref.ref(y.grad_fn)
        out = weakref.ref(y)
        del y
        assert out() is None and node() is None


def test_in_place_and_views_make_no_cycles():
    with _gc_disabled():
        x = mt.ones(4, requires_grad=True)
        y = x * 1
        v = y.view(2, 2)
        v[0].mul_(3)
        nodes = [weakref.ref(y.grad_fn), weakref.ref(v.grad_fn)]
        refs = [weakref.ref(y), weakref.ref(v)]
        del y, v
        assert all(r() is None for r in refs + nodes)


def test_leaf_dies_with_its_last_reference_after_backward():
    with _gc_disabled():
        x = mt.ones(3, requires_grad=True)
        x.register_hook(lambda g: g)
        (x * 2).sum().backward()
        leaf = weakref.ref(x)
        grad = weakref.ref(x.grad)
        del x
        assert leaf() is None and grad() is None
