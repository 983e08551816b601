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


def _tied_rows():
    # torch.randint(0, 4, (6, 12), generator=torch.Generator().manual_seed(0)) in torch
    rows = [
        [0, 3, 1, 0, 3, 3, 3, 3, 1, 3, 1, 2],
        [0, 3, 2, 0, 0, 0, 2, 1, 2, 3, 3, 2],
        [0, 1, 1, 1, 1, 0, 1, 0, 3, 0, 3, 1],
        [2, 3, 3, 0, 2, 3, 0, 1, 3, 1, 3, 3],
        [2, 3, 0, 1, 1, 1, 3, 0, 3, 2, 0, 3],
        [3, 2, 3, 2, 3, 0, 2, 0, 0, 0, 1, 1],
    ]
    return mt.tensor(rows, dtype=mt.float32)


@pytest.mark.parametrize(
    ("k", "want"),
    [
        (1, [0, 4, 5, 3, 7, 9]),
        (3, [2, 0, 9, 9, 2, 7]),
        (6, [11, 8, 3, 0, 5, 11]),
        (12, [5, 9, 8, 11, 11, 0]),
    ],
)
def test_kthvalue_picks_torchs_index_among_equal_values(k, want):
    # torch's CPU quickselect decides which of equal values is reported
    x = _tied_rows()
    assert mt.kthvalue(x, k, dim=1).indices.tolist() == want
    assert mt.kthvalue(x.t(), k, dim=0).indices.tolist() == want
    assert mt.kthvalue(x.double(), k, dim=-1, keepdim=True).indices.flatten().tolist() == want


def test_kthvalue_ties_with_nan_as_torch():
    y = _tied_rows()
    y[0, 3] = math.nan
    y[1, 5] = math.nan
    y[1, 7] = math.nan
    v, i = mt.kthvalue(y, 11, dim=1)
    assert v[0].item() == 3.0 and math.isnan(v[1].item())
    assert i.tolist() == [7, 7, 10, 1, 1, 2]


def test_kthvalue_replays_ties_up_to_a_limit(monkeypatch):
    from minitorch._ops import sorting

    x = mt.zeros(3, 10)
    assert mt.kthvalue(x, 4, dim=1).indices.tolist() == [7, 7, 7]  # torch's
    monkeypatch.setattr(sorting, "_KTH_REPLAY_LIMIT", 20)
    assert mt.kthvalue(x, 4, dim=1).indices.tolist() == [3, 3, 3]  # the 4th equal one
