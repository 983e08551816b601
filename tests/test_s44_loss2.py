"""Loss nodes' saved values, binary_cross_entropy_with_logits' data-level backward and BCE's
range check (helper loss2, session 44).

NOTE [ Loss nodes' saved values ] (minitorch/nn/_functional_loss.py) and NOTE [ nll_loss's saved
values ] (minitorch/_ops/nn_kernels.py): grad_fn._saved_<name> of the loss nodes, read as torch's
saved tensors (the same objects; torch's errors once freed or changed in place; no cycle).
_BceLogitsLearnedTarget._backward_data: the Tensor formula's bits. _first_outside_unit: one
pass for the common case, the same answers and errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import engine
from minitorch.nn import _functional_loss as L
from tests._cycles import cycles
from tests.test_s44_lossdata import _run, _values

F = mt.nn.functional
_FREED = "Trying to backward through the graph a second time"
_MODIFIED = "modified by an inplace operation"


def _leaves(seed=0):
    g = mt.Generator().manual_seed(seed)
    x = mt.randn(4, 3, generator=g).requires_grad_()
    p = mt.rand(4, 3, generator=g).requires_grad_()
    t = mt.rand(4, 3, generator=g)
    w = mt.rand(3, generator=g)
    return x, p, t, w


@pytest.mark.parametrize("reduction, enum", [("none", 0), ("mean", 1), ("sum", 2)])
def test_regression_nodes_show_their_saved_values(reduction, enum):
    x, _, t, _ = _leaves()
    for fn, extra in (
        (lambda: F.mse_loss(x, t, reduction=reduction), {}),
        (lambda: F.smooth_l1_loss(x, t, reduction=reduction, beta=0.5), {"beta": 0.5}),
        (lambda: F.huber_loss(x, t, reduction=reduction, delta=0.7), {"delta": 0.7}),
    ):
        node = fn().grad_fn
        assert node._saved_self is x and node._saved_target is t
        assert node._saved_reduction == enum and type(node._saved_reduction) is int
        for k, v in extra.items():
            assert getattr(node, f"_saved_{k}") == v
        assert not hasattr(node, "_saved_weight")


def test_nodes_show_the_tensors_as_given():
    # mixed dtypes: torch's node saves, and its edges lead to, the tensors its kernel got (the
    # converted copies stay inside the node); an int beta / delta reads as a float
    x, p, t, w = _leaves()
    t64 = t.double()
    for loss in (F.mse_loss(x, t64), F.smooth_l1_loss(x, t64, beta=2), F.huber_loss(x, t, delta=2)):
        node = loss.grad_fn
        assert node._saved_self is x and any(node._saved_target is v for v in (t, t64))
        assert type(node.next_functions[0][0]).__name__ == "AccumulateGrad"
        for k in ("_saved_beta", "_saved_delta"):
            if hasattr(node, k):
                assert getattr(node, k) == 2.0 and type(getattr(node, k)) is float
    w64 = w.double()
    node = F.binary_cross_entropy(p, t, w64).grad_fn
    assert node._saved_weight.dtype is mt.float64 and node._saved_weight.shape == (4, 3)
    c8 = mt.tensor([0, 2, 1, 2], dtype=mt.uint8)
    assert F.nll_loss(x, c8).grad_fn._saved_target is c8
    loss = F.mse_loss(x, t64)  # the tensor as given is the one checked at backward
    with mt.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        loss.backward()


def test_bce_nodes_show_their_weights():
    x, p, t, w = _leaves()
    node = F.binary_cross_entropy(p, t, reduction="sum").grad_fn
    assert node._saved_self is p and node._saved_target is t and node._saved_weight is None
    assert node._saved_reduction == 2
    node = F.binary_cross_entropy(p, t, w).grad_fn  # torch saves the weight expanded
    assert node._saved_weight.shape == (4, 3)
    np.testing.assert_array_equal(node._saved_weight.numpy(), np.broadcast_to(w.numpy(), (4, 3)))
    pw = mt.rand(3)
    node = F.binary_cross_entropy_with_logits(x, t, w, pos_weight=pw, reduction="none").grad_fn
    assert node._saved_weight is w and node._saved_pos_weight is pw
    assert node._saved_self is x and node._saved_reduction == 0
    node = F.binary_cross_entropy_with_logits(x, t).grad_fn
    assert node._saved_weight is None and node._saved_pos_weight is None


def test_saved_values_after_backward_and_in_place_changes():
    x, _, t, w = _leaves()
    loss = F.binary_cross_entropy_with_logits(x, t, w)
    node = loss.grad_fn
    loss.backward(retain_graph=True)
    assert node._saved_weight is w  # retained: still readable
    loss.backward()
    for name in ("_saved_self", "_saved_target", "_saved_weight"):
        with pytest.raises(RuntimeError, match=_FREED):
            getattr(node, name)
    assert node._saved_pos_weight is None and node._saved_reduction == 1
    loss = F.binary_cross_entropy_with_logits(x, t, pos_weight=w)
    w.add_(1)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        _ = loss.grad_fn._saved_pos_weight
    assert loss.grad_fn._saved_weight is None
    t2 = t.clone()
    loss = F.mse_loss(x, t2)
    t2.mul_(2)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        _ = loss.grad_fn._saved_target


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_nodes_show_their_saved_values(reduction):
    x, _, _, w = _leaves()
    c = mt.tensor([0, 2, 1, 2])
    node = F.nll_loss(x, c, reduction=reduction).grad_fn
    assert type(node).__name__ == "NllLossBackward0"
    assert node._saved_self is x and node._saved_target is c and node._saved_weight is None
    assert node._saved_ignore_index == 2**64 - 100
    assert node._saved_reduction == ("none", "mean", "sum").index(reduction)
    total = node._saved_total_weight
    assert total.dtype is mt.float32 and total.shape == ()
    assert total.item() == (0.0 if reduction == "none" else 4.0)
    node = F.nll_loss(x, c, w, ignore_index=1, reduction=reduction).grad_fn
    assert node._saved_weight is w and node._saved_ignore_index == 1
    want = 0.0 if reduction == "none" else w.numpy()[[0, 2, 2]].sum(dtype=np.float32)
    assert node._saved_total_weight.item() == want
    logp = x.log_softmax(1)
    node = F.nll_loss(logp, c, reduction=reduction).grad_fn
    assert node._saved_self is logp


def test_nll_saved_values_after_backward():
    x, _, _, w = _leaves()
    c = mt.tensor([0, 2, 1, 2])
    loss = F.cross_entropy(x, c)
    node = loss.grad_fn
    assert node._saved_self.grad_fn is not None  # the log-probabilities torch's node saved
    loss.backward()
    for name in ("_saved_self", "_saved_target", "_saved_total_weight"):
        with pytest.raises(RuntimeError, match=_FREED):
            getattr(node, name)
    assert node._saved_weight is None and node._saved_reduction == 1
    c2 = c.clone()
    loss = F.nll_loss(x, c2, w, reduction="sum")
    c2[0] = 1
    with pytest.raises(RuntimeError, match=_MODIFIED):
        _ = loss.grad_fn._saved_target
    assert loss.grad_fn._saved_weight is w  # unchanged itself
    # the K-dimensional node and the half 'sum' (its total from torch's cascade)
    node = F.nll_loss(mt.randn(2, 3, 4, 5, requires_grad=True), mt.zeros(2, 4, 5).long()).grad_fn
    assert type(node).__name__ == "NllLoss2DBackward0" and node._saved_total_weight.item() == 40
    h = mt.randn(5, 3, dtype=mt.float16, requires_grad=True)
    node = F.nll_loss(h, mt.tensor([0, 1, 2, 1, 0]), reduction="sum").grad_fn
    assert node._saved_total_weight.dtype is mt.float16 and node._saved_total_weight.item() == 5


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched_nll_node_takes_the_input_itself(reduction):
    # torch's graph: NllLossBackward0 -> the (C,) input (no unsqueeze or view node); values,
    # gradients and second derivatives those of the batch of one
    g = mt.Generator().manual_seed(7)
    for dt, kw, target in itertools.product(
        (mt.float32, mt.float64),
        ({}, {"weight": mt.rand(5, generator=g)}, {"ignore_index": 2}),
        (mt.tensor(3), mt.tensor(2), mt.tensor(3, dtype=mt.uint8)),
    ):
        kw = {k: v.to(dt) if isinstance(v, mt.Tensor) else v for k, v in kw.items()}
        got, want = [], []
        for batched, rec in ((False, got), (True, want)):
            x = mt.randn(5, generator=mt.Generator().manual_seed(8), dtype=dt).requires_grad_()
            xin, t = (x[None], target.reshape(1)) if batched else (x, target)
            loss = F.nll_loss(xin.log_softmax(-1), t, reduction=reduction, **kw)
            if batched and reduction == "none":
                loss = loss.reshape(())
            elif not batched:
                node = loss.grad_fn
                assert type(node).__name__ == "NllLossBackward0" and loss.shape == ()
                assert type(node.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
                assert node._saved_target is t
            (gx,) = mt.autograd.grad(loss, x, create_graph=True)
            (ggx,) = mt.autograd.grad((gx * mt.arange(5, dtype=dt)).sum(), x)
            F.nll_loss(xin.log_softmax(-1), t, reduction=reduction, **kw).sum().backward()
            for v in (loss, gx, ggx, x.grad):
                rec.append((v.detach().numpy().tobytes(), tuple(v.shape), str(v.dtype)))
        assert got == want, (dt, kw, target)


def test_reading_saved_values_keeps_no_cycle():
    x, p, t, w = _leaves()
    c = mt.tensor([0, 2, 1, 2])

    def step():
        for loss in (
            F.mse_loss(x, t),
            F.huber_loss(x, t, delta=0.5),
            F.binary_cross_entropy(p, t, w),
            F.binary_cross_entropy_with_logits(x, t, w, pos_weight=w),
            F.cross_entropy(x, c, w),
        ):
            node = loss.grad_fn
            for name in dir(node):
                if name.startswith("_saved_"):
                    getattr(node, name)
            loss.backward()

    assert cycles(step) == 0


# --- binary_cross_entropy_with_logits: the data-level backward ---

_BCE_LOGITS = {
    "plain": lambda x, t, r, w: F.binary_cross_entropy_with_logits(x, t, reduction=r),
    "weighted": lambda x, t, r, w: F.binary_cross_entropy_with_logits(x, t, w, reduction=r),
    "row_weight": lambda x, t, r, w: F.binary_cross_entropy_with_logits(
        x, t, w[..., :1] if w.ndim else w, reduction=r
    ),
    "pos_weight": lambda x, t, r, w: F.binary_cross_entropy_with_logits(
        x, t, reduction=r, pos_weight=w
    ),
}


def _spy(monkeypatch) -> list:
    """For each data-level backward the engine asks of _BceLogitsLearnedTarget's node: whether
    it answered (False: NotImplemented, the Tensor formula ran)."""
    ran = []
    real = engine._data_backward

    def spy(node, grads):
        out = real(node, grads)
        if node._fn is L._BceLogitsLearnedTarget:
            ran.append(out is not NotImplemented)
        return out

    monkeypatch.setattr(engine, "_data_backward", spy)
    return ran


@pytest.mark.parametrize("name", sorted(_BCE_LOGITS))
def test_bce_logits_data_backward_is_the_tensor_formula(name, device, monkeypatch):
    fn = _BCE_LOGITS[name]
    rng = np.random.default_rng(3)
    ran = _spy(monkeypatch)
    for shape, dt, reduction, needs in itertools.product(
        [(4, 5), (3,), (), (0, 2)],
        ["float32", "float64"],
        ["mean", "sum", "none"],
        [(True, False), (True, True), (False, True)],
    ):
        xa = _values(rng, shape) * 20  # saturated logits, inf, nan, signed zeros
        arrays = [xa, _values(rng, shape, True), rng.uniform(0.5, 2, shape), rng.uniform(-1, 1, 24)]
        layouts = ["contiguous", "transposed"] if len(shape) == 2 else ["contiguous"]
        for layout, walk in itertools.product(layouts, ["grad", "backward"]):
            args = (fn, arrays, dt, device, needs, reduction, layout, walk)
            fast = _run(*args, True, monkeypatch)
            slow = _run(*args, False, monkeypatch)
            assert fast == slow, f"{name} {shape} {dt} {reduction} {needs} {layout} {walk}"
    if name == "pos_weight":
        assert ran and not any(ran), "pos_weight takes the Tensor formula"
    else:
        assert any(ran), "the data-level backward never ran"


def test_bce_logits_mixed_and_half_take_the_tensor_formula(monkeypatch):
    calls = _spy(monkeypatch)
    for xd, td in ((mt.float16, mt.float16), (mt.float64, mt.float32), (mt.float32, mt.float64)):
        grads = []
        for data_path in (True, False):
            monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
            x = mt.randn(3, 4, generator=mt.Generator().manual_seed(5), dtype=xd)
            x.requires_grad_()
            t = mt.rand(3, 4, generator=mt.Generator().manual_seed(6), dtype=td)
            F.binary_cross_entropy_with_logits(x, t).backward()
            grads.append((x.grad.numpy().tobytes(), x.grad.dtype))
        assert grads[0] == grads[1]
    assert calls and not any(calls)


# --- the range check of binary_cross_entropy ---


def _first_bad_elementwise(a):
    ok = (a >= 0) & (a <= 1)
    return None if ok.all() else int((~ok).reshape(-1).argmax())


@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_first_outside_unit_is_the_elementwise_search(dt):
    rng = np.random.default_rng(6)
    cases = [rng.uniform(0, 1, (5, 4)), np.array(0.5), np.array([0.0, -0.0, 1.0])]
    for bad in (np.nan, -1e-30, 1.0000001, np.inf, -np.inf, 2.0):
        for pos in (0, 7, 19):
            a = rng.uniform(0, 1, (5, 4))
            a.flat[pos] = bad
            cases.append(a)
    a = rng.uniform(0, 1, (4, 5))
    a.flat[[3, 9]] = [np.nan, -2.0]
    cases.append(a.T)  # a transposed layout: the flat index is in the logical order
    for a in cases:
        t = mt.tensor(a, dtype=getattr(mt, dt))
        want = _first_bad_elementwise(t.numpy())
        assert L._first_outside_unit(t) == want, (a, want)
    assert L._first_outside_unit(mt.zeros(0, 3)) is None


def test_bce_range_errors(device):
    x = mt.rand(3, 4, device=device)
    t = mt.rand(3, 4, device=device)
    for name, a, b in (("input", x * 2, t), ("target", x, t - 2), ("input", x * np.nan, t)):
        if device == "strict":  # NOTE [ Checks that read values ]: no host read on a device
            F.binary_cross_entropy(a, b)
            continue
        with pytest.raises(RuntimeError, match=f"all elements of {name} should be between 0 and 1"):
            F.binary_cross_entropy(a, b)
    both = x.clone()
    both[0, 1] = 3.0
    bad_t = t.clone()
    bad_t[0, 0] = -1.0
    if device == "cpu":  # the earlier element names its tensor
        with pytest.raises(RuntimeError, match="elements of target"):
            F.binary_cross_entropy(both, bad_t)
