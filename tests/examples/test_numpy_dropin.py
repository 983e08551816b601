"""examples/numpy_dropin.py in a reduced mode: a NumPy-written model learns from minitorch grads."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "numpy_dropin.py"


def _load():
    spec = importlib.util.spec_from_file_location("numpy_dropin", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_numpy_dropin_reduced(device, capsys):
    result = _load().main(["--steps", "60", "--n", "64", "--device", device])
    assert len(result["loss"]) == 60
    assert result["final"] < 0.3 * result["baseline"], result["final"]
    assert "final loss" in capsys.readouterr().out
