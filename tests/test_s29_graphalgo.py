"""Session 29 (helper graphalgo): torch-free checks of the fix the graph-algorithm programs of
tests/reference/test_s29_graphalgo_reference.py found, with torch 2.13's values and messages
as literals: writing one value that is a view of the written tensor through a mask or a basic
index (a union-find's comp[comp == cv] = comp[u]) is not an overlap error in torch, which runs
it as masked_fill_, fill_ or a broadcast copy; equal-size and advanced-index copies still are."""

from __future__ import annotations

import pytest

import minitorch as mt

OVERLAP = "unsupported operation: some elements of the input tensor and the written-to tensor"


def test_mask_setitem_of_a_view_of_self():
    comp = mt.tensor([0, 1, 2, 3, 4])
    comp[comp == 3] = comp[2]  # a 0-d view: masked_fill_ reads it first
    assert comp.tolist() == [0, 1, 2, 2, 4]
    c = mt.arange(5.0)
    c[mt.tensor([True, False, False, True, True])] = c[2]
    assert c.tolist() == [2.0, 1.0, 2.0, 2.0, 2.0]
    c = mt.arange(6.0).view(2, 3)
    c[c > 1] = c[0, 1].view(1, 1)  # any one-element value
    assert c.tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    c = mt.arange(6.0).view(2, 3)
    c[0, mt.tensor([True, False, True])] = c[0, 1]
    assert c.tolist() == [[1.0, 1.0, 1.0], [3.0, 4.0, 5.0]]


def test_index_put_mask_of_a_view_of_self():
    c = mt.arange(5.0)
    c.index_put_((c > 2,), c[2])
    assert c.tolist() == [0.0, 1.0, 2.0, 2.0, 2.0]
    c = mt.arange(5.0)
    c.index_put_((mt.tensor([True, False, True, False, True]),), c[2:3])
    assert c.tolist() == [2.0, 1.0, 2.0, 3.0, 2.0]


def test_basic_setitem_of_a_broadcast_view_of_self():
    c = mt.arange(5.0)
    c[1:3] = c[2]  # fill_
    assert c.tolist() == [0.0, 2.0, 2.0, 3.0, 4.0]
    c = mt.arange(5.0)
    c[1:3] = c[2:3]  # a broadcast copy
    assert c.tolist() == [0.0, 2.0, 2.0, 3.0, 4.0]
    for key in (slice(None), Ellipsis, None):
        c = mt.arange(5.0)
        c[key] = c[2]
        assert c.tolist() == [2.0] * 5
    c = mt.arange(6.0).view(2, 3)
    c[0] = c[0, 1:2]
    assert c.tolist() == [[1.0, 1.0, 1.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize(
    "write",
    [
        lambda c: c.__setitem__(mt.tensor([1, 2]), c[2]),  # an advanced index: index_put_
        lambda c: c.index_put_((c > 1,), c[2], accumulate=True),
        lambda c: c.index_put_((mt.tensor([3]),), c[2]),
        lambda c: c.__setitem__(c > 0, c[:4]),  # four values, not one
        lambda c: c.copy_(c[2]),
    ],
)
def test_overlapping_writes_still_refused(write):
    c = mt.arange(5.0)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(c)


def test_view_of_self_writes_record_gradients():
    got = []
    for k in range(4):
        x = mt.arange(6.0, requires_grad=True)
        c = x.view(2, 3) * 1
        if k == 0:
            c[c > 2] = c[0, 2]
        elif k == 1:
            c.index_put_((c > 2,), c[0, 2])
        elif k == 2:
            c[0] = c[1, 1]
        else:
            c[:, 1:] = c[:, 1:2]
        (c * mt.arange(1.0, 7.0).view(2, 3)).sum().backward()
        got.append((c.tolist(), x.grad.tolist(), c.grad_fn.name()))
    assert got == [
        ([[0.0, 1.0, 2.0], [2.0, 2.0, 2.0]], [1.0, 2.0, 18.0, 0.0, 0.0, 0.0], "IndexPutBackward0"),
        ([[0.0, 1.0, 2.0], [2.0, 2.0, 2.0]], [1.0, 2.0, 18.0, 0.0, 0.0, 0.0], "IndexPutBackward0"),
        ([[4.0, 4.0, 4.0], [3.0, 4.0, 5.0]], [0.0, 0.0, 0.0, 4.0, 11.0, 6.0],
         "torch::autograd::CopySlices"),
        ([[0.0, 1.0, 1.0], [3.0, 4.0, 4.0]], [1.0, 5.0, 0.0, 4.0, 11.0, 0.0],
         "torch::autograd::CopySlices"),
    ]  # fmt: skip


def test_view_of_self_writes_on_every_device(device):
    # a broadcast copy is not judged on any device; the masked_fill_ route takes a CPU value
    # only, so a device value that is a view of the written tensor is refused (as torch's CUDA)
    c = mt.arange(5.0, device=device)
    c[1:3] = c[2]
    assert c.cpu().tolist() == [0.0, 2.0, 2.0, 3.0, 4.0]
    c = mt.arange(5.0, device=device)
    if device == "cpu":
        c[c > 2] = c[2]
        assert c.tolist() == [0.0, 1.0, 2.0, 2.0, 2.0]
    else:
        with pytest.raises(RuntimeError, match=OVERLAP):
            c[c > 2] = c[2]
