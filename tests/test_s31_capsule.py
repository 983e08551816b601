"""Session 31 (helper capsule): torch-free checks of the capsule-network building blocks the
reference programs in tests/reference/test_s31_capsule_reference.py lean on (one_hot masks,
squash at a zero capsule, the margin loss), and of the one library fix the session made:
F.one_hot on a device refuses num_classes < 1 as torch's CUDA path does. The values below are
torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


@pytest.mark.parametrize("num_classes", [0, -2])
def test_one_hot_on_a_device_refuses_a_non_positive_class_count(num_classes):
    # torch's CUDA one_hot checks no class values (that would sync) but does check num_classes;
    # on the CPU the value check fires first, and the meta device runs arange
    labels = mt.tensor([0, 1], device="strict")
    with pytest.raises(RuntimeError, match="^num_classes should be positive$"):
        F.one_hot(labels, num_classes)
    with pytest.raises(RuntimeError, match="^Class values must be smaller than num_classes.$"):
        F.one_hot(mt.tensor([0, 1]), num_classes)


def test_one_hot_on_a_device_and_on_meta():
    labels = mt.tensor([2, 0, 1], device="strict")
    got = F.one_hot(labels, 3)
    assert got.dtype is mt.int64 and got.device.type == "strict"
    assert got.cpu().tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]
    # out-of-range values are not checked on a device (no host read), as on CUDA
    assert F.one_hot(mt.tensor([5], device="strict"), 3).cpu().tolist() == [[0, 0, 0]]
    assert F.one_hot(mt.tensor([0, 1], device="meta"), 0).shape == (2, 0)
    with pytest.raises(RuntimeError, match="^upper bound and lower bound inconsistent"):
        F.one_hot(mt.tensor([0, 1], device="meta"), -2)
    with pytest.raises(RuntimeError, match="^Can not infer total number of classes"):
        F.one_hot(mt.zeros(0, dtype=mt.int64, device="strict"), 0)


def test_squash_of_a_zero_capsule_has_a_zero_gradient():
    s = mt.tensor([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]], dtype=F64, requires_grad=True)
    n = s.norm(dim=-1, keepdim=True)
    v = n**2 / (1 + n**2) * s / (n + 1e-8)
    (g,) = mt.autograd.grad(v.sum(), s)
    _close(v.detach(), [[0.0, 0.0, 0.0], [0.5769230757692307, 0.7692307676923077, 0.0]])
    _close(g, [[0.0, 0.0, 0.0], [0.04319526650887576, -0.006508875295858002, 0.19230769192307692]])


def test_margin_loss_and_routing_softmax():
    lengths = mt.tensor([[0.95, 0.2, 0.05], [0.5, 0.7, 0.3]], dtype=F64)
    t = F.one_hot(mt.tensor([0, 2]), 3).to(F64)
    pos = t * F.relu(0.9 - lengths) ** 2
    neg = 0.5 * (1 - t) * F.relu(lengths - 0.1) ** 2
    _close((pos + neg).sum(1).mean(), 0.31250000000000006)
    b = mt.tensor([[[0.0, 1.0, 2.0]]], dtype=F64)
    _close(F.softmax(b, dim=2), [[[0.09003057317038045, 0.2447284710547976, 0.6652409557748218]]])
