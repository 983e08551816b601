"""examples/quickstart.py in a reduced mode: it trains, plots, saves and reloads a checkpoint."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


def test_quickstart_reduced(tmp_path):
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("quickstart", EXAMPLE)
    quickstart = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(quickstart)
    history = quickstart.main(["--epochs", "2", "--device", "cpu", "--out", str(tmp_path)])
    assert len(history["test_acc"]) == 2
    assert history["test_acc"][-1] > 0.8, history  # two epochs already learn most digits
    assert (tmp_path / "quickstart.pt").stat().st_size > 0
