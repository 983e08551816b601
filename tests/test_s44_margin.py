"""The margin loss nodes' saved values (helper margin, session 44): NOTE [ Margin loss nodes'
saved values ] (minitorch/nn/_functional_loss_margin.py). grad_fn._saved_<name> of
SoftMarginLossBackward0, MultiMarginLossBackward0 and MultilabelMarginLossBackward0 read as
torch's: the same objects, the numbers with their Python types, torch's errors once freed or
changed in place (at a read and at backward), no reference cycle; a bool margin is a number.
tests/reference/test_s44_margin_reference.py compares all of it with torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from tests._cycles import cycles

F = mt.nn.functional
_FREED = "Trying to backward through the graph a second time"
_MODIFIED = "modified by an inplace operation"
_INFERENCE = "Inference tensors cannot be saved for backward"
_ENUM = {"none": 0, "mean": 1, "sum": 2}


def _data(device="cpu", dtype=mt.float32):
    g = mt.Generator().manual_seed(0)
    x = mt.randn(4, 3, generator=g, dtype=dtype).to(device).requires_grad_()
    s = mt.randn(4, 3, generator=g).sign().to(device)
    c = mt.tensor([0, 2, 1, 2], device=device)
    ml = mt.tensor([[0, 1, -1], [2, -1, 0], [1, 0, 2], [-1, 0, 0]], device=device)
    w = mt.rand(3, generator=g, dtype=dtype).to(device)
    return x, s, c, ml, w


def _names(node):
    return sorted(k[len("_saved_") :] for k in dir(node) if k.startswith("_saved_"))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nodes_show_their_saved_values(reduction, device):
    x, s, c, ml, w = _data(device)
    node = F.soft_margin_loss(x, s, reduction=reduction).grad_fn
    assert _names(node) == ["reduction", "self", "target"]
    assert node._saved_self is x and node._saved_target is s
    assert node._saved_reduction == _ENUM[reduction] and type(node._saved_reduction) is int
    node = F.multi_margin_loss(x, c, reduction=reduction).grad_fn
    assert _names(node) == ["margin", "p", "reduction", "self", "target", "weight"]
    assert node._saved_self is x and node._saved_target is c and node._saved_weight is None
    assert (node._saved_margin, node._saved_p) == (1.0, 1)
    assert type(node._saved_margin) is float and type(node._saved_p) is int
    assert node._saved_reduction == _ENUM[reduction]
    node = F.multilabel_margin_loss(x, ml, reduction=reduction).grad_fn
    assert _names(node) == ["is_target", "reduction", "self", "target"]
    assert node._saved_self is x and node._saved_target is ml
    assert node._saved_reduction == _ENUM[reduction]
    is_target = node._saved_is_target
    assert is_target is node._saved_is_target  # made once, then the same Tensor
    assert is_target.dtype is mt.float32 and is_target.shape == (4, 3)
    assert is_target.device == x.device and not is_target.requires_grad
    assert is_target.grad_fn is None and is_target.stride() == (3, 1)
    want = [[1, 1, 0], [0, 0, 1], [1, 1, 1], [0, 0, 0]]  # the classes before each row's -1
    np.testing.assert_array_equal(is_target.cpu().numpy(), want)


def test_options_and_shapes():
    x, s, c, ml, w = _data()
    node = F.multi_margin_loss(x, c, p=2, margin=2, weight=w).grad_fn
    assert node._saved_weight is w and node._saved_p == 2
    assert node._saved_margin == 2 and type(node._saved_margin) is int  # as given, as torch's
    node = F.multi_margin_loss(x, c, p=2.0, margin=np.float64(0.5)).grad_fn
    assert type(node._saved_p) is float and type(node._saved_margin) is float
    assert node._saved_margin == 0.5
    node = F.multi_margin_loss(x, c, margin=True).grad_fn
    assert node._saved_margin is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the legacy arguments' deprecation)
        node = F.multi_margin_loss(x, c, size_average=False).grad_fn
    assert node._saved_reduction == 2
    node = F.multi_margin_loss(x[1], c[1]).grad_fn
    assert node._saved_self.shape == (3,) and node._saved_target.shape == ()
    s64 = s.double()  # a target of another dtype: saved as given
    assert F.soft_margin_loss(x, s64).grad_fn._saved_target is s64
    x64 = x.detach().double().requires_grad_()
    node = F.multilabel_margin_loss(x64[0], ml[0]).grad_fn
    assert node._saved_is_target.dtype is mt.float64 and node._saved_is_target.shape == (3,)
    node = F.multilabel_margin_loss(x[0, 0], mt.tensor(0)).grad_fn  # a scalar input
    assert node._saved_is_target.shape == () and node._saved_is_target.item() == 1.0
    node = F.multilabel_margin_loss(mt.zeros(0, 3, requires_grad=True), ml[:0]).grad_fn
    assert node._saved_is_target.shape == (0, 3)


def test_bool_margin_is_the_number():
    # torch's kernel takes margin=True as 1.0; minitorch used to compute True - x (refused)
    got, want = [], []
    for margin, rec in ((True, got), (1, want)):
        x, _, c, _, w = _data(dtype=mt.float64)
        loss = F.multi_margin_loss(x, c, p=2, margin=margin, weight=w, reduction="none")
        (gx,) = mt.autograd.grad(loss.sum(), x, create_graph=True)
        (ggx,) = mt.autograd.grad((gx * gx).sum(), x)
        rec.extend(v.detach().numpy().tobytes() for v in (loss, gx, ggx))
    assert got == want


def test_reads_after_backward():
    x, s, c, ml, w = _data()
    loss = F.multi_margin_loss(x, c, weight=w)
    node = loss.grad_fn
    loss.backward(retain_graph=True)
    assert node._saved_weight is w and node._saved_target is c  # retained: readable
    loss.backward()
    for name in ("self", "target", "weight"):
        with pytest.raises(RuntimeError, match=_FREED):
            getattr(node, f"_saved_{name}")
    assert node._saved_margin == 1.0 and node._saved_p == 1 and node._saved_reduction == 1
    loss = F.multi_margin_loss(x, c)  # an unweighted node's weight reads None even freed
    loss.backward()
    assert loss.grad_fn._saved_weight is None
    for loss in (F.multilabel_margin_loss(x, ml), F.soft_margin_loss(x, s)):
        loss.backward()
        for name in _names(loss.grad_fn):
            if name != "reduction":
                with pytest.raises(RuntimeError, match=_FREED):
                    getattr(loss.grad_fn, f"_saved_{name}")


def test_in_place_changes_are_refused_at_reads_and_at_backward():
    x, s, c, ml, w = _data()
    cases = (
        (lambda t: F.soft_margin_loss(x, t), s, "_saved_target"),
        (lambda t: F.multi_margin_loss(x, t), c, "_saved_target"),
        (lambda t: F.multi_margin_loss(x, c, weight=t), w, "_saved_weight"),
        (lambda t: F.multilabel_margin_loss(x, t), ml, "_saved_target"),
    )
    for fn, arg, attr in cases:
        arg = arg.clone()
        loss = fn(arg)
        arg.add_(0)
        with pytest.raises(RuntimeError, match=_MODIFIED):
            getattr(loss.grad_fn, attr)
        assert loss.grad_fn._saved_self is x  # unchanged itself
        with pytest.raises(RuntimeError, match=_MODIFIED):
            loss.backward()
    loss = F.multilabel_margin_loss(x, ml)
    is_target = loss.grad_fn._saved_is_target
    is_target.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[4, 3\]\] is at version 1"):
        _ = loss.grad_fn._saved_is_target
    with pytest.raises(RuntimeError, match=_MODIFIED):
        loss.backward()  # torch's backward reads it
    x.grad = None
    loss = F.multilabel_margin_loss(x, ml)
    _ = loss.grad_fn._saved_is_target  # read, unchanged: backward runs
    loss.backward()
    assert x.grad is not None


def test_inference_tensors_are_refused_as_torch_does():
    x, s, c, ml, w = _data()
    with mt.inference_mode():
        ci, wi, mli = c.clone(), w.clone(), ml.clone()
    for fn in (
        lambda: F.multi_margin_loss(x, ci),
        lambda: F.multi_margin_loss(x, c, weight=wi),
        lambda: F.multilabel_margin_loss(x, mli),
    ):
        with pytest.raises(RuntimeError, match=_INFERENCE):
            fn()
    with mt.no_grad():  # nothing recorded: nothing saved
        F.multi_margin_loss(x, ci, weight=wi)
        F.multilabel_margin_loss(x, mli)


def test_reading_saved_values_keeps_no_cycle():
    x, s, c, ml, w = _data()

    def step():
        for loss in (
            F.soft_margin_loss(x, s),
            F.multi_margin_loss(x, c, p=2, weight=w),
            F.multilabel_margin_loss(x, ml),
            F.multilabel_margin_loss(x[0], ml[0], reduction="none"),
        ):
            node = loss.grad_fn
            for name in dir(node):
                if name.startswith("_saved_"):
                    getattr(node, name)
            loss.backward()

    assert cycles(step) == 0


def _classes(node, out, seen=None):
    """The classes of the graph's nodes, each node once, depth first."""
    seen = set() if seen is None else seen
    if node is None or id(node) in seen:
        return out
    seen.add(id(node))
    out.append(type(node).__name__)
    for n, _ in node.next_functions:
        _classes(n, out, seen)
    return out


def test_composed_losses_show_torch_kernels_nodes():
    # torch's kernels clamp with clamp_min (ClampMinBackward0, not ClampBackward1) and
    # triplet_margin_loss's adds margin as a Scalar (AddBackward1, listing the tensor alone);
    # the Python-level triplet_margin_with_distance_loss adds a Python number (AddBackward0)
    x, s, _, _, _ = _data()
    y = x.detach().flip(0).requires_grad_()
    sv = mt.tensor([1.0, -1.0, -1.0, 1.0])
    for loss in (
        F.cosine_embedding_loss(x, y, sv, margin=0.1, reduction="none"),
        F.hinge_embedding_loss(x, s),
    ):
        got = _classes(loss.grad_fn, [])
        assert "ClampMinBackward0" in got and "ClampBackward1" not in got
    z = x.detach().roll(1, 0).requires_grad_()
    got = _classes(F.triplet_margin_loss(x, y, z, reduction="none").grad_fn, [])
    assert got[:3] == ["ClampMinBackward0", "SubBackward0", "AddBackward1"]
    got = _classes(F.triplet_margin_with_distance_loss(x, y, z, reduction="none").grad_fn, [])
    assert got[:3] == ["ClampMinBackward0", "SubBackward0", "AddBackward0"]
