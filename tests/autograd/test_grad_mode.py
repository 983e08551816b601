"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local state."""

from __future__ import annotations

import threading

import pytest

import minitorch as mt


def _leaf():
    return mt.ones(2, requires_grad=True)


def test_no_grad_context_records_nothing_and_restores():
    x = _leaf()
    with mt.no_grad():
        y = x * 2
        assert not mt.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert mt.is_grad_enabled()
    assert (x * 2).requires_grad


def test_modes_nest_and_restore_after_exceptions():
    x = _leaf()
    with mt.no_grad():
        with mt.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    with pytest.raises(ValueError):
        with mt.no_grad():
            raise ValueError
    assert mt.is_grad_enabled()


@pytest.mark.parametrize("spelling", ["call", "bare"])
def test_no_grad_as_decorator(spelling):
    x = _leaf()

    def f():
        return (x * 2).requires_grad, mt.is_grad_enabled()

    decorated = mt.no_grad()(f) if spelling == "call" else mt.no_grad(f)
    assert decorated() == (False, False)
    assert mt.is_grad_enabled()
    assert decorated.__name__ == "f"


def test_enable_grad_decorator_inside_no_grad():
    x = _leaf()

    @mt.enable_grad()
    def f():
        return (x * 2).requires_grad

    with mt.no_grad():
        assert f()
        assert not mt.is_grad_enabled()


def test_decorated_generator_keeps_the_mode_across_yields():
    x = _leaf()

    @mt.no_grad()
    def gen():
        for _ in range(2):
            received = yield mt.is_grad_enabled(), (x * 2).requires_grad
            assert received == "ping"

    g = gen()
    assert next(g) == (False, False)
    assert mt.is_grad_enabled(), "the caller's mode between yields"
    assert g.send("ping") == (False, False)
    assert mt.is_grad_enabled()
    with pytest.raises(StopIteration):
        g.send("ping")


def test_set_grad_enabled_as_function_context_and_decorator():
    x = _leaf()
    try:
        mt.set_grad_enabled(False)
        assert not mt.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        mt.set_grad_enabled(True)
    with mt.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert mt.is_grad_enabled()
    with mt.no_grad(), mt.set_grad_enabled(True):
        assert (x * 2).requires_grad

    @mt.set_grad_enabled(False)
    def f():
        return mt.is_grad_enabled()

    assert mt.is_grad_enabled(), "decorating does not change the mode"
    assert f() is False
    assert mt.is_grad_enabled()


def test_inference_mode():
    x = _leaf()
    with mt.inference_mode():
        y = x * 2
        assert mt.is_inference_mode_enabled() and not mt.is_grad_enabled()
    assert not y.requires_grad
    assert not mt.is_inference_mode_enabled()
    with mt.inference_mode(False):
        assert (x * 2).requires_grad and not mt.is_inference_mode_enabled()

    @mt.inference_mode()
    def f():
        return (x * 2).requires_grad

    @mt.inference_mode
    def g():
        return (x * 2).requires_grad

    assert f() is False and g() is False


def test_grad_mode_is_thread_local():
    results = {}

    def worker():
        results["enabled"] = mt.is_grad_enabled()
        with mt.no_grad():
            results["inner"] = mt.is_grad_enabled()

    with mt.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not mt.is_grad_enabled(), "the other thread's no_grad leaked here"
    assert results == {"enabled": True, "inner": False}


def test_autograd_namespace_exports():
    assert mt.autograd.no_grad is mt.no_grad
    assert mt.autograd.enable_grad is mt.enable_grad
    assert mt.autograd.set_grad_enabled is mt.set_grad_enabled
    assert mt.autograd.inference_mode is mt.inference_mode
    assert mt.autograd.grad_mode.no_grad is mt.no_grad


def test_backward_inside_no_grad_still_computes_gradients():
    x = _leaf()
    y = (x * 3).sum()
    with mt.no_grad():
        y.backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert not x.grad.requires_grad


def test_decorated_generator_edge_cases():
    @mt.no_grad()
    def empty():
        return
        yield  # noqa: B901 (a generator function that yields nothing)

    assert list(empty()) == []

    @mt.no_grad()
    def returns():
        yield 1
        return "done"

    g = returns()
    next(g)
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done"

    @mt.no_grad()
    def catches():
        try:
            yield 1
        except ValueError:
            yield mt.is_grad_enabled()

    g = catches()
    next(g)
    assert g.throw(ValueError) is False, "the exception is handled inside the mode"

    seen = []

    @mt.no_grad()
    def closes():
        try:
            yield 1
        finally:
            seen.append(mt.is_grad_enabled())

    g = closes()
    next(g)
    g.close()
    assert seen == [False] and mt.is_grad_enabled()


def test_decorating_a_class_wraps_its_constructor_with_a_warning():
    class Model:
        def __init__(self):
            self.enabled = mt.is_grad_enabled()

    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        make = mt.no_grad()(Model)
    assert make().enabled is False
