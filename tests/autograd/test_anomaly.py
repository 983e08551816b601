"""Anomaly mode: the switches, NaN checks in backward, forward tracebacks naming the user's line."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import Function


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    mt.set_anomaly_enabled(False)  # a failing test must not leave it on for the others


def _nan_model(x):
    y = (x - 1).sqrt()  # the op whose backward makes NaN at x = 1: 0 / (2 * sqrt(0))
    return (y * 0).sum()


def _line_of(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_switches_and_exports():
    assert mt.autograd.set_detect_anomaly is mt.autograd.anomaly_mode.set_detect_anomaly
    assert not mt.is_anomaly_enabled()
    mt.autograd.set_detect_anomaly(True)
    assert mt.is_anomaly_enabled() and mt.is_anomaly_check_nan_enabled()
    mt.autograd.set_detect_anomaly(False)
    assert not mt.is_anomaly_enabled()
    with mt.autograd.set_detect_anomaly(True, check_nan=False):
        assert mt.is_anomaly_enabled() and not mt.is_anomaly_check_nan_enabled()
    assert not mt.is_anomaly_enabled() and mt.is_anomaly_check_nan_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = mt.autograd.detect_anomaly()
    with ctx:
        assert mt.is_anomaly_enabled()
    assert not mt.is_anomaly_enabled()


def test_anomaly_mode_is_process_wide_like_torch():
    seen = []
    with mt.autograd.set_detect_anomaly(True):
        t = threading.Thread(target=lambda: seen.append(mt.is_anomaly_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_nan_in_backward_names_the_op_and_the_users_forward_line():
    x = mt.ones(2, requires_grad=True)
    with mt.autograd.set_detect_anomaly(True):
        out = _nan_model(x)
        with pytest.warns(UserWarning) as record:
            with pytest.raises(
                RuntimeError,
                match=r"^Function 'SqrtBackward0' returned nan "
                r"values in its 0th output.$",
            ):
                out.backward()
    messages = [str(w.message) for w in record if "Error detected" in str(w.message)]
    assert len(messages) == 1
    msg = messages[0]
    assert msg.startswith(
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
    )
    line = _line_of(_nan_model, "(x - 1).sqrt()")
    assert f'File "{__file__}", line {line}, in _nan_model' in msg
    assert "y = (x - 1).sqrt()" in msg
    assert "minitorch/" not in msg.replace(__file__, ""), "library frames are left out"
    warned_at = [w for w in record if "Error detected" in str(w.message)][0]
    assert warned_at.filename == __file__, "the warning points at the user's backward() call"


def test_check_nan_false_lets_nan_through_and_off_means_no_check():
    x = mt.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0/0 warning, if any
        with mt.autograd.set_detect_anomaly(True, check_nan=False):
            _nan_model(x).backward()
        assert np.isnan(x.grad.numpy()).all()
        x.grad = None
        _nan_model(x).backward()  # anomaly mode off: no check either
    assert np.isnan(x.grad.numpy()).all()


def test_error_raised_by_a_custom_backward_reports_the_forward_traceback():
    class Broken(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("broken backward")

    def run(a):
        return Broken.apply(a).sum()

    x = mt.ones(2, requires_grad=True)
    with mt.autograd.set_detect_anomaly(True):
        out = run(x)
        with pytest.warns(UserWarning, match="Error detected in BrokenBackward") as record:
            with pytest.raises(ValueError, match="broken backward"):
                out.backward()
    msg = next(str(w.message) for w in record if "Error detected" in str(w.message))
    assert f"line {_line_of(run, 'Broken.apply')}, in run" in msg


def test_modified_saved_tensor_error_gets_the_anomaly_hint():
    x = mt.ones(2, requires_grad=True)
    with mt.autograd.set_detect_anomaly(True):
        y = x.exp()
        s = y.sum()
        y.add_(1)
        with pytest.warns(UserWarning, match="Error detected in ExpBackward0"):
            with pytest.raises(
                RuntimeError,
                match="which is output 0 of Exp, is at version 1; "
                "expected version 0 instead. Hint: the "
                "backtrace further above shows the operation "
                "that failed to compute its gradient. The "
                "variable in question was changed in there or "
                "anywhere later. Good luck!$",
            ):
                s.backward()


def test_double_backward_error_names_the_backward_that_created_the_op():
    x = mt.tensor([0.0, 1.0], requires_grad=True)
    with mt.autograd.set_detect_anomaly(True):
        y = x.sqrt()
        (g,) = mt.autograd.grad(y.sum(), x, create_graph=True)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="returned nan values"):
                (g * 0).sum().backward()
    msg = next(str(w.message) for w in record if "Error detected" in str(w.message))
    assert (
        "Previous calculation was induced by SqrtBackward0. Traceback of forward call that "
        "induced the previous calculation:" in msg
    )
    assert "y = x.sqrt()" in msg


def test_nodes_record_no_traceback_when_anomaly_mode_is_off():
    x = mt.ones(2, requires_grad=True)
    y = x * 2
    assert not hasattr(y.grad_fn, "_trace")
    with mt.autograd.set_detect_anomaly(True):
        z = x * 2
    assert "z = x * 2" in "".join(z.grad_fn._trace)


def test_anomaly_matches_torch():
    torch = pytest.importorskip("torch")
    messages = []
    for lib in (mt, torch):
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                out = _nan_model(x)
                with pytest.raises(RuntimeError) as info:
                    out.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
