"""cnn_digits.py, tiny_transformer.py and char_lstm.py in a reduced mode: each trains and learns."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cnn_digits_reduced():
    pytest.importorskip("sklearn")
    acc = load("cnn_digits").main(["--epochs", "2", "--device", "cpu"])
    assert acc > 0.6, acc  # chance is 10%


def test_tiny_transformer_reduced():
    result = load("tiny_transformer").main(
        ["--steps", "60", "--length", "4", "--eval-every", "60", "--device", "cpu"]
    )
    first, last = result["loss"][:10], result["loss"][-10:]
    assert sum(last) < 0.7 * sum(first), result["loss"]
    assert result["digit_acc"] > 0.2, result  # chance is 10% per digit


def test_char_lstm_reduced(capsys):
    losses = load("char_lstm").main(
        [
            "--epochs",
            "3",
            "--stride",
            "16",
            "--seq-len",
            "32",
            "--sample-length",
            "40",
            "--device",
            "cpu",
        ]
    )
    assert len(losses) == 3
    assert losses[-1] < losses[0], losses
    out = capsys.readouterr().out
    assert "sample (temperature" in out
    assert "Beautiful is better than ugly" not in out.split("---")[0]  # `import this` stayed quiet


def test_vae_digits_reduced(capsys):
    pytest.importorskip("sklearn")
    history = load("vae_digits").main(["--epochs", "3", "--device", "cpu"])
    assert len(history) == 3 and history[-1] < history[0], history
    assert "test loss" in capsys.readouterr().out


def test_per_sample_grads_reduced():
    pytest.importorskip("sklearn")
    result = load("per_sample_grads").main(["--epochs", "2"])
    assert result["max_diff"] < 1e-6, result  # vmap(grad(...)) equals the backward() loop
    assert result["accuracy"] > 0.4, result  # chance is 10%
