"""Grad mode inside inference mode: enable_grad reports True there but records nothing (torch)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minitorch as mt


def _leaf():
    return mt.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _records(w) -> bool:
    y = (w * 2).sum()
    assert y.requires_grad == (y.grad_fn is not None)
    return y.requires_grad


def _modes():
    return mt.is_grad_enabled(), mt.is_inference_mode_enabled()


def test_enable_grad_inside_inference_mode_records_nothing():
    w = _leaf()
    with mt.inference_mode():
        assert _modes() == (False, True)
        with mt.enable_grad():
            y = (w * 2).sum()
            assert _modes() == (True, True)
            assert not y.requires_grad and y.grad_fn is None
            with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
                y.backward()
        assert _modes() == (False, True)
    assert _modes() == (True, False)
    assert _records(w)


def test_set_grad_enabled_inside_inference_mode():
    w = _leaf()
    with mt.inference_mode():
        with mt.set_grad_enabled(True):
            assert _modes() == (True, True) and not _records(w)
        assert _modes() == (False, True)
    with mt.no_grad():
        with mt.inference_mode():
            mt.set_grad_enabled(True)  # as a function: inference_mode's exit undoes it
            assert mt.is_grad_enabled() and not _records(w)
        assert _modes() == (False, False) and not _records(w)
    assert _records(w)


def test_decorators_inside_inference_mode():
    w = _leaf()

    @mt.enable_grad()
    def f():
        return mt.is_grad_enabled(), _records(w)

    @mt.set_grad_enabled(True)
    def g():
        return mt.is_grad_enabled(), _records(w)

    @mt.enable_grad()
    def gen():
        yield mt.is_grad_enabled(), _records(w)
        yield mt.is_grad_enabled(), _records(w)

    with mt.inference_mode():
        assert f() == (True, False)
        assert g() == (True, False)
        assert list(gen()) == [(True, False), (True, False)]
        assert _modes() == (False, True)
    assert f() == (True, True)


def test_no_grad_nested_inside_inference_mode():
    w = _leaf()
    with mt.inference_mode(), mt.enable_grad():
        with mt.no_grad():
            assert _modes() == (False, True) and not _records(w)
        assert _modes() == (True, True) and not _records(w)


def test_inference_mode_false_turns_recording_back_on():
    w = _leaf()
    with mt.inference_mode():
        with mt.inference_mode(False):
            assert _modes() == (True, False) and _records(w)
        with mt.enable_grad():
            with mt.inference_mode(False):
                assert _modes() == (True, False) and _records(w)
                with mt.inference_mode():  # nested again: off until inference_mode(False)
                    assert _modes() == (False, True) and not _records(w)
            assert _modes() == (True, True) and not _records(w)
        with mt.no_grad(), mt.inference_mode(False):
            assert _modes() == (True, False) and _records(w)
    with mt.no_grad():
        with mt.inference_mode():
            with mt.enable_grad():
                assert not _records(w)
            with mt.inference_mode(False):
                assert _records(w)
        assert _modes() == (False, False) and not _records(w)


def test_grad_modes_outside_inference_mode_unchanged():
    w = _leaf()
    with mt.no_grad():
        assert _modes() == (False, False) and not _records(w)
        with mt.enable_grad():
            assert _modes() == (True, False) and _records(w)
        with mt.set_grad_enabled(True):
            assert _records(w)
        assert not _records(w)
    with mt.enable_grad(), mt.inference_mode():
        assert _modes() == (False, True) and not _records(w)
    assert _records(w)


def test_exceptions_restore_both_modes():
    w = _leaf()
    with pytest.raises(ValueError):
        with mt.inference_mode(), mt.enable_grad():
            raise ValueError
    assert _modes() == (True, False) and _records(w)
    with mt.no_grad():
        with pytest.raises(ValueError):
            with mt.inference_mode(), mt.set_grad_enabled(True), mt.inference_mode(False):
                raise ValueError
        assert _modes() == (False, False) and not _records(w)
    with mt.inference_mode():
        with pytest.raises(ValueError):
            with mt.enable_grad(), mt.no_grad():
                raise ValueError
        assert _modes() == (False, True)
        with mt.enable_grad():
            with pytest.raises(ValueError):
                with mt.inference_mode(False), mt.no_grad():
                    raise ValueError
            assert _modes() == (True, True) and not _records(w)


def test_modes_are_per_thread():
    w = _leaf()
    seen = []
    entered, release = threading.Event(), threading.Event()

    def worker():
        seen.append((_modes(), _records(w)))  # a new thread starts with torch's defaults
        with mt.inference_mode(), mt.enable_grad():
            entered.set()
            release.wait(5)
            seen.append((_modes(), _records(w)))

    with mt.inference_mode(), mt.enable_grad():
        t = threading.Thread(target=worker)
        t.start()
        entered.wait(5)
        assert _modes() == (True, True) and not _records(w)
    assert _modes() == (True, False) and _records(w)  # the worker's modes are its own
    release.set()
    t.join()
    assert seen == [((True, False), True), ((True, True), False)]


def test_backward_inside_inference_mode_on_outside_graph():
    w = _leaf()
    y = (w * w).sum()
    with mt.inference_mode(), mt.enable_grad():
        y.backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0, 6.0], err_msg="backward in inference")
