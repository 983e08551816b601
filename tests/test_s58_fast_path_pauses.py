"""Saved-tensor hooks and anomaly mode pause the recorded fast paths (NOTE [ The recorded fast
path ] in minitorch/autograd/function.py): the ops then record through Function.apply, which
packs through the hooks and keeps the creation trace; the paths come back when the last region
ends, nested, overlapping, in another thread or left by an exception."""

import threading
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import pointwise
from minitorch.autograd import function


def _count(monkeypatch) -> list:
    """The calls of the recorded fast paths' record_pair / record_unary from pointwise ops."""
    calls = []
    for name in ("record_pair", "record_unary"):
        orig = getattr(function, name)
        monkeypatch.setattr(pointwise, name, lambda *a, _f=orig: calls.append(1) or _f(*a))
    return calls


def _leaf():
    return torch.tensor([0.5, 1.5, 2.0], dtype=torch.float64, requires_grad=True)


def _hooks(packed):
    return torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t)


def test_saved_tensor_hooks_pause_and_resume(monkeypatch):
    count = _count(monkeypatch)
    a = _leaf()
    packed = []
    with _hooks(packed):
        assert not function.fast_path[0]
        y = (a * a).exp()
    assert not count
    assert len(packed) == 3  # a twice (mul), the result (exp)
    assert function.fast_path[0]
    y.sum().backward()
    np.testing.assert_allclose(
        a.grad.numpy(), 2 * a.detach().numpy() * np.exp(a.detach().numpy() ** 2)
    )
    (a * a).exp()
    assert len(count) == 2


def test_nested_and_repeated_regions_resume_after_the_last():
    packed = []
    outer, inner = _hooks(packed), _hooks(packed)
    with outer:
        with inner:
            assert not function.fast_path[0]
        assert not function.fast_path[0]
        with outer:  # (one object nested in itself, as torch allows)
            pass
        assert not function.fast_path[0]
    assert function.fast_path[0]


def test_a_region_left_by_an_exception_resumes():
    with pytest.raises(ValueError, match="boom"):
        with _hooks([]):
            raise ValueError("boom")
    assert function.fast_path[0]


def test_a_refused_region_leaves_the_paths_on():
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with _hooks([]):
                pass
        assert function.fast_path[0]
    with pytest.raises(TypeError):
        with torch.autograd.graph.saved_tensors_hooks(1, 2):
            pass
    assert function.fast_path[0]


def test_hooks_in_one_thread_leave_another_threads_ops_unhooked(monkeypatch):
    count = _count(monkeypatch)
    packed = []
    entered, done = threading.Event(), threading.Event()

    def hooked():
        with _hooks(packed):
            entered.set()
            done.wait(10)

    t = threading.Thread(target=hooked)
    t.start()
    try:
        assert entered.wait(10)
        a = _leaf()
        y = (a * a).sum()  # the full path here: no hooks of this thread, nothing packed
        assert not count and packed == []
        y.backward()
        np.testing.assert_allclose(a.grad.numpy(), 2 * a.detach().numpy())
    finally:
        done.set()
        t.join()
    assert function.fast_path[0]
    (_leaf() * 2).exp()
    assert len(count) == 2


def test_anomaly_mode_pauses_once_per_switch(monkeypatch):
    count = _count(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.autograd.set_detect_anomaly(True)
        try:
            torch.autograd.set_detect_anomaly(True)  # (on again: still one pause)
            assert not function.fast_path[0]
            y = _leaf().exp()
            assert "traceback_" in y.grad_fn.metadata
            assert not count
        finally:
            torch.autograd.set_detect_anomaly(False)
    assert function.fast_path[0]
    torch.set_anomaly_enabled(False)  # (off again: no resume below zero)
    assert function.fast_path[0]
    y = _leaf().exp()
    assert len(count) == 1
    assert "traceback_" not in y.grad_fn.metadata


def test_anomaly_inside_hooks_and_hooks_inside_anomaly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            with _hooks([]):
                assert not function.fast_path[0]
            assert not function.fast_path[0]
        assert function.fast_path[0]
        with _hooks([]):
            with torch.autograd.detect_anomaly():
                pass
            assert not function.fast_path[0]
    assert function.fast_path[0]
