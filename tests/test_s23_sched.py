"""Session 23: lr_scheduler / swa_utils fixes found by differential fuzzing against torch.

Expected values are literals obtained by running torch 2.13.0."""

from __future__ import annotations

import pytest

import minitorch as torch
from minitorch.optim.swa_utils import AveragedModel


def _bn_model():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2)).double()
    for p in model.parameters():
        p.data.fill_(1.0)
    return model


def test_multi_avg_fn_called_once_per_dtype_group_int_first():
    # torch groups the averaged tensors by (device, dtype) and calls multi_avg_fn per group;
    # for float64 parameters + the int64 num_batches_tracked buffer the int64 group comes first.
    model = _bn_model()
    calls = []

    def multi(avg, cur, n):
        calls.append([str(a.dtype) for a in avg])
        for a, c in zip(avg, cur, strict=True):
            a.mul_(0.5).add_(c, alpha=0.5)

    swa = AveragedModel(model, multi_avg_fn=multi, use_buffers=True)
    swa.update_parameters(model)
    for p in model.parameters():
        p.data.fill_(3.0)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        swa.update_parameters(model)
    # torch: [[torch.int64]]; the float parameters were never reached
    assert calls == [["torch.int64"]]
    assert [p.tolist() for p in swa.parameters()] == [
        [[1.0, 1.0], [1.0, 1.0]],
        [1.0, 1.0],
        [1.0, 1.0],
        [1.0, 1.0],
    ]
    assert swa.n_averaged.item() == 1


def test_multi_avg_fn_sees_one_dtype_per_call():
    model = _bn_model()
    calls = []

    def multi(avg, cur, n):
        calls.append(([str(a.dtype) for a in avg], int(n)))
        for a, c in zip(avg, cur, strict=True):
            if a.dtype.is_floating_point:
                a.lerp_(c, 0.25)

    swa = AveragedModel(model, multi_avg_fn=multi, use_buffers=True)
    swa.update_parameters(model)
    for p in model.parameters():
        p.data.fill_(3.0)
    swa.update_parameters(model)
    # torch: [(['torch.int64'], 1), (['torch.float64'] * 6, 1)]
    assert calls == [(["torch.int64"], 1), (["torch.float64"] * 6, 1)]
    # torch: weights 1 + 0.25 * 2 = 1.5; running_var 1 -> 1
    assert swa.module[0].weight.tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert swa.module[1].running_var.tolist() == [1.0, 1.0]
