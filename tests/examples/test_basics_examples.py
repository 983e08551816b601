"""examples/autograd_basics.py and examples/custom_function.py in a reduced mode."""

from __future__ import annotations

import importlib.util
import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_autograd_basics_reduces_the_loss(capsys):
    first = _load("autograd_basics").main(["--steps", "1"])
    last = _load("autograd_basics").main(["--steps", "300"])
    assert last < first / 10, (first, last)
    assert "AddBackward0" in capsys.readouterr().out  # the printed graph


def test_custom_function_checks_and_fits(capsys):
    first = _load("custom_function").main(["--steps", "1"])
    last = _load("custom_function").main(["--steps", "300"])
    out = capsys.readouterr().out
    assert "gradcheck: True" in out and "gradgradcheck: True" in out
    assert last < first / 2, (first, last)


def test_custom_function_runs_on_the_device_given(capsys):
    # the strict test device refuses any implicit host round-trip the example might make
    loss = _load("custom_function").main(["--steps", "3", "--device", "strict"])
    assert loss > 0
    out = capsys.readouterr().out
    assert "grad_fn AddBackward0" in out
    assert "on strict:" in out  # the tensors were made on the device asked for
