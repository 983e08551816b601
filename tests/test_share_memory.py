"""Tensor.share_memory_ / is_shared and Module.share_memory: memory that a forked child writes
and the parent reads (the hogwild pattern of pytorch/examples' mnist_hogwild)."""

from __future__ import annotations

import mmap
import multiprocessing
import sys

import numpy as np
import pytest

import minitorch

needs_fork = pytest.mark.skipif(
    sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods(),
    reason="needs the fork start method",
)


def _run_forked(target, *args):
    proc = minitorch.multiprocessing.get_context("fork").Process(target=target, args=args)
    proc.start()
    proc.join(timeout=60)
    assert proc.exitcode == 0


def _add_one(t):
    t.add_(1)


@needs_fork
def test_child_in_place_update_reaches_parent():
    t = minitorch.zeros(2, 3).share_memory_()
    assert t.is_shared()
    _run_forked(_add_one, t)
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 3), dtype=np.float32))


@needs_fork
def test_share_through_a_view_moves_the_base():
    base = minitorch.arange(6.0)
    view = base[1:4]
    assert view.share_memory_() is view
    assert base.is_shared() and view.is_shared() and base.detach().is_shared()
    assert view.stride() == (1,) and view.storage_offset() == 1
    _run_forked(_add_one, view)
    np.testing.assert_array_equal(base.numpy(), [0.0, 2.0, 3.0, 4.0, 4.0, 5.0])
    # the view still aliases its base after the move
    base[1] = -1.0
    assert view[0].item() == -1.0


def _train_step(model):
    opt = minitorch.optim.SGD(model.parameters(), lr=0.5)
    model(minitorch.ones(1, 2)).sum().backward()
    opt.step()


@needs_fork
def test_module_share_memory_hogwild_step():
    model = minitorch.nn.Linear(2, 1)
    with minitorch.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)
    weight = model.weight
    assert model.share_memory() is model
    assert model.weight is weight  # parameters keep their identity
    assert all(p.is_shared() for p in model.parameters())
    _run_forked(_train_step, model)
    # d(sum)/dw = x = 1, d/db = 1: one step of lr 0.5
    np.testing.assert_array_equal(model.weight.detach().numpy(), [[0.5, 0.5]])
    np.testing.assert_array_equal(model.bias.detach().numpy(), [-0.5])


def test_module_share_memory_covers_grads_and_buffers():
    model = minitorch.nn.BatchNorm1d(3)
    model(minitorch.randn(4, 3)).sum().backward()
    assert not model.weight.is_shared() and not model.running_mean.is_shared()
    model.share_memory()
    assert model.weight.grad.is_shared()
    assert all(b.is_shared() for b in model.buffers())


def test_values_strides_and_numpy_alias():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = minitorch.from_numpy(a).t()  # a non-contiguous view of memory NumPy owns
    t.share_memory_()
    assert t.is_shared() and t.stride() == (1, 3) and t.dtype == minitorch.float64
    np.testing.assert_array_equal(t.numpy(), a.T)
    t.add_(10)  # as in torch, the NumPy array no longer shares memory with the tensor
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float64).reshape(2, 3))


def test_is_shared_queries():
    t = minitorch.zeros(3)
    assert not t.is_shared() and not t.untyped_storage().is_shared()
    t.share_memory_()
    assert t.untyped_storage().is_shared() and t.view(3, 1).is_shared()
    assert t.clone().is_shared() is False  # a copy lives in ordinary memory
    data = t.numpy()
    t.share_memory_()  # already shared: the memory stays where it is
    assert np.shares_memory(data, t.numpy())
    empty = minitorch.zeros(0, 2).share_memory_()
    assert empty.is_shared() and empty.shape == (0, 2)
    # a user's own mmap-backed array is not memory that share_memory_ made
    assert not minitorch.from_numpy(np.frombuffer(mmap.mmap(-1, 16), dtype=np.float64)).is_shared()
