"""Session 32 (lead): torch-free checks of small fixes, torch 2.13's values and messages written
as literals."""

from __future__ import annotations

import math
import warnings

import pytest

import minitorch as mt

F = mt.nn.functional


@pytest.mark.parametrize(
    ("kernel", "want"),
    [(0, [0, 3, 5, 8, 24, 27]), (-1, [0, 3, 6, 9, 24, 27]), ((2, 0), [0, 3, 5, 8, 16, 19])],
)
def test_fractional_max_pool_windows_of_no_element(kernel, want):
    # torch's kernel: -inf, each index the window's start; the values stay on the graph
    x = mt.randn(1, 1, 8, 8, generator=mt.Generator().manual_seed(0), requires_grad=True)
    u = mt.full((1, 1, 2), 0.5)
    out, idx = F.fractional_max_pool2d(
        x, kernel_size=kernel, output_size=4, return_indices=True, _random_samples=u
    )
    assert out.shape == (1, 1, 4, 4) and all(v == -math.inf for v in out.flatten().tolist())
    assert idx.flatten()[:6].tolist() == want
    assert type(out.grad_fn).__name__ == "FractionalMaxPool2DBackward0"
    out.sum().backward()
    assert x.grad.abs().sum().item() == 0.0


def test_fractional_max_pool3d_window_of_no_element():
    x = mt.randn(2, 8, 8, 8, generator=mt.Generator().manual_seed(1))
    u = mt.full((1, 2, 3), 0.5)
    _, idx = F.fractional_max_pool3d(
        x, kernel_size=(1, 0, 1), output_size=3, return_indices=True, _random_samples=u
    )
    assert idx[0, 0].tolist() == [[0, 4, 7], [32, 36, 39], [64, 68, 71]]


def test_warn_once_under_warn_always_leaves_the_flag_unset(monkeypatch):
    # torch's TORCH_WARN_ONCE: under set_warn_always(True) it warns without using up its once
    monkeypatch.setattr(mt._settings, "_warned_once", set())
    monkeypatch.setitem(mt._settings._state, "warn_always", True)
    with pytest.warns(UserWarning, match="indexing"):
        mt.meshgrid(mt.arange(2), mt.arange(3))
    monkeypatch.setitem(mt._settings._state, "warn_always", False)
    with pytest.warns(UserWarning, match="indexing"):
        mt.meshgrid(mt.arange(2), mt.arange(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.meshgrid(mt.arange(2), mt.arange(3))
