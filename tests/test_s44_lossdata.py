"""The losses' data-level backwards and in-place kernels (helper lossdata, session 44).

mse_loss, smooth_l1_loss and huber_loss compute their first-order gradients on arrays
(NOTE [ Regression losses' data-level backward ]), binary_cross_entropy its input gradient
(BinaryCrossEntropy._backward_data), and binary_cross_entropy's forward, its input gradient and
mse's forward work in place (NOTE [ In-place BCE ]). Each must give the Tensor formulas' bits:
values, dtype, shape and strides of every gradient, the same errors, the same graph.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import strict
from minitorch._ops import nn_kernels as K
from minitorch.autograd import engine

F = mt.nn.functional

_REGRESSION = {
    "mse": lambda x, t, r: F.mse_loss(x, t, reduction=r),
    "smooth_l1": lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r),
    "smooth_l1_beta": lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=0.3),
    "smooth_l1_beta2": lambda x, t, r: F.smooth_l1_loss(x, t, reduction=r, beta=2.0),
    "huber": lambda x, t, r: F.huber_loss(x, t, reduction=r),
    "huber_delta": lambda x, t, r: F.huber_loss(x, t, reduction=r, delta=0.7),
}
_BCE = {
    "bce": lambda x, t, r, w: F.binary_cross_entropy(x, t, reduction=r),
    "bce_weighted": lambda x, t, r, w: F.binary_cross_entropy(x, t, w, reduction=r),
}
_SPECIALS = [0.0, -0.0, np.inf, np.nan, 1.0, -1.0, 0.3, 2.0]  # kinks at beta/delta too


def _values(rng, shape, prob=False):
    if prob:
        a = rng.uniform(0, 1, shape)
        a.flat[: min(a.size, 4)] = [0.0, 1.0, 0.5, 1e-30][: min(a.size, 4)]
        return a
    a = rng.standard_normal(shape) * 1.5
    k = min(a.size, len(_SPECIALS))
    a.flat[:k] = _SPECIALS[:k]
    return a


def _bits(t):
    if t is None:
        return None
    a = t.detach().cpu()
    data = a.float().numpy() if a.dtype is mt.bfloat16 else a.numpy()
    return data.tobytes(), tuple(a.shape), a.stride(), str(a.dtype)


def _run(fn, arrays, dt, dev, needs, reduction, layout, walk, data_path, monkeypatch):
    """The gradients of fn's loss (as _bits) through autograd.grad ("grad") or backward()
    ("backward"), with or without the data-level backward."""
    monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
    xa, ta, wa, ga = arrays
    d = getattr(mt, dt)
    x = mt.tensor(xa.T.copy() if layout == "transposed" else xa, dtype=d, device=dev)
    if layout == "transposed":
        x = x.T
    t = mt.tensor(ta, dtype=d, device=dev)
    w = mt.tensor(wa, dtype=d, device=dev)
    x.requires_grad_(needs[0])
    t.requires_grad_(needs[1])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        loss = fn(x, t, reduction, w)
        g = None
        if reduction == "none":
            g = mt.tensor(np.resize(ga, tuple(loss.shape)), dtype=d, device=dev)
        ins = [v for v, k in zip((x, t), needs, strict=True) if k]
        if walk == "grad":
            return [_bits(r) for r in mt.autograd.grad(loss, ins, g)]
        loss.backward(g)
        return [_bits(v.grad) for v in ins]


def _regression(fn):
    return lambda x, t, r, w: fn(x, t, r)


_SHAPES = [((4, 5), (4, 5)), ((4, 5), (5,)), ((4, 1), (4, 5)), ((0, 3), (0, 3)), ((), ())]
_CASES = list(
    itertools.product(
        _SHAPES, ["float32", "float64"], ["mean", "sum", "none"], [(True, False), (True, True)]
    )
)


@pytest.mark.parametrize("name", sorted(_REGRESSION))
def test_regression_data_backward_is_the_tensor_formula(name, device, monkeypatch):
    # every reduction, dtype, broadcast, layout and both walks: the same bits (signed zeros,
    # inf and nan, x == t where the target's gradient is +0.)
    fn = _regression(_REGRESSION[name])
    rng = np.random.default_rng(0)
    ran = []
    real = engine._data_backward

    def spy(node, grads):
        ran.append(node._fn)
        return real(node, grads)

    monkeypatch.setattr(engine, "_data_backward", spy)
    for (sx, st), dt, reduction, needs in _CASES:
        arrays = [_values(rng, sx), _values(rng, st), np.ones(st), rng.uniform(-1, 1, 24)]
        if sx == st and arrays[0].size:
            arrays[0].flat[-1] = arrays[1].flat[-1]
        layouts = ["contiguous", "transposed"] if len(sx) == 2 else ["contiguous"]
        for layout, walk in itertools.product(layouts, ["grad", "backward"]):
            args = (fn, arrays, dt, device, needs, reduction, layout, walk)
            fast = _run(*args, True, monkeypatch)
            slow = _run(*args, False, monkeypatch)
            assert fast == slow, f"{name} {sx} {st} {dt} {reduction} {needs} {layout} {walk}"
    kernels = (K.MseLoss, K.SmoothL1Loss, K.HuberLoss)
    assert any(f in kernels for f in ran), "the loss's data-level backward never ran"


@pytest.mark.parametrize("name", sorted(_BCE))
def test_bce_data_backward_is_the_tensor_formula(name, device, monkeypatch):
    fn = _BCE[name]
    rng = np.random.default_rng(1)
    for shape, dt, reduction, needs in itertools.product(
        [(4, 5), (3,), (), (0, 2)],
        ["float32", "float64"],
        ["mean", "sum", "none"],
        [(True, False), (True, True)],
    ):
        arrays = [
            _values(rng, shape, True),
            _values(rng, shape, True),
            rng.uniform(0.5, 2, shape),
            rng.uniform(-1, 1, 24),
        ]
        layouts = ["contiguous", "transposed"] if len(shape) == 2 else ["contiguous"]
        for layout, walk in itertools.product(layouts, ["grad", "backward"]):
            args = (fn, arrays, dt, device, needs, reduction, layout, walk)
            fast = _run(*args, True, monkeypatch)
            slow = _run(*args, False, monkeypatch)
            assert fast == slow, f"{name} {shape} {dt} {reduction} {needs} {layout} {walk}"


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_losses_take_the_tensor_formula(dt, monkeypatch):
    # half dtypes (NOTE [ Half-precision loss means ], the stepwise kernels) decline the data
    # path: the gradients are the Tensor formulas' bits
    if dt == "bfloat16":
        pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(2)
    calls = _spy(monkeypatch)
    fns = {**{k: _regression(v) for k, v in _REGRESSION.items()}, **_BCE}
    for name, fn in fns.items():
        prob = name.startswith("bce")
        for reduction in ("mean", "sum", "none"):
            arrays = [
                _values(rng, (4, 5), prob),
                _values(rng, (4, 5), prob),
                rng.uniform(0.5, 2, (4, 5)),
                rng.uniform(-1, 1, 20),
            ]
            args = (fn, arrays, dt, "cpu", (True, False), reduction, "contiguous", "grad")
            assert _run(*args, True, monkeypatch) == _run(*args, False, monkeypatch), name
    # the regression losses decline (BCE's input gradient is its backward node's own kernel)
    ran = [name for name, declined in calls if not declined]
    assert calls and not {"MseLoss", "SmoothL1Loss", "HuberLoss"} & set(ran), ran


def _spy(monkeypatch):
    """The (Function name, declined) of each loss node whose data-level backward the engine
    asks from now on."""
    calls = []
    real = engine._data_backward
    losses = (K.MseLoss, K.SmoothL1Loss, K.HuberLoss, K.BinaryCrossEntropy)

    def spy(node, grads):
        r = real(node, grads)
        if node._fn in losses:
            calls.append((node._fn.__name__, r is NotImplemented))
        return r

    monkeypatch.setattr(engine, "_data_backward", spy)
    return calls


def test_data_path_runs_for_float_losses_and_not_under_create_graph(monkeypatch):
    calls = _spy(monkeypatch)
    rng = np.random.default_rng(3)
    x = mt.tensor(rng.uniform(0.1, 0.9, (3, 4)), dtype=mt.float32, requires_grad=True)
    t = mt.tensor(rng.uniform(0.1, 0.9, (3, 4)), dtype=mt.float32)
    # (mse_loss is one node since session 46, whose data-level backward the engine runs
    # inline, past this spy: tests/test_s46_loss.py compares its two backwards)
    for fn in (F.smooth_l1_loss, F.huber_loss, F.binary_cross_entropy):
        fn(x, t).backward()
    assert calls == [
        ("SmoothL1Loss", False),
        ("HuberLoss", False),
        ("BinaryCrossEntropy", False),
    ]
    calls.clear()
    for fn in (F.mse_loss, F.smooth_l1_loss, F.huber_loss, F.binary_cross_entropy):
        (g,) = mt.autograd.grad(fn(x, t), x, create_graph=True)
        assert g.requires_grad
    with pytest.warns(UserWarning, match="Anomaly Detection"):
        with mt.autograd.detect_anomaly(check_nan=False):
            F.mse_loss(x, t).backward()
    assert calls == []


def test_double_backward_unchanged(monkeypatch):
    # second derivatives run the Tensor formulas whatever DATA_BACKWARD says: the same bits
    rng = np.random.default_rng(4)
    xa, ta = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    pa, qa = rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0.1, 0.9, (3, 4))
    results = []
    for data_path in (True, False):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        out = []
        for fn, a, b in [
            (F.mse_loss, xa, ta),
            (lambda x, t: F.smooth_l1_loss(x, t, beta=0.5), xa, ta),
            (lambda x, t: F.huber_loss(x, t, delta=0.7), xa, ta),
            (F.binary_cross_entropy, pa, qa),
        ]:
            x = mt.tensor(a, requires_grad=True)
            t = mt.tensor(b, requires_grad=True)
            gx, gt = mt.autograd.grad(fn(x, t), (x, t), create_graph=True)
            hx, ht = mt.autograd.grad((gx * gx).sum() + (gt * gt).sum(), (x, t))
            out += [_bits(v) for v in (gx, gt, hx, ht)]
        results.append(out)
    assert results[0] == results[1]


def test_node_names_and_edges_unchanged():
    x = mt.randn(3, 4, requires_grad=True)
    t = mt.rand(3, 4)
    p = mt.rand(3, 4).requires_grad_()
    for fn, name, a in [
        (F.mse_loss, "MseLossBackward0", x),
        (F.smooth_l1_loss, "SmoothL1LossBackward0", x),
        (F.huber_loss, "HuberLossBackward0", x),
        (F.binary_cross_entropy, "BinaryCrossEntropyBackward0", p),
    ]:
        loss = fn(a, t)
        assert loss.grad_fn.name() == name
        # one node with an edge per tensor argument (the target's: None, as it needs no grad)
        edges = loss.grad_fn.next_functions
        assert len(edges) == 2 and edges[1] == (None, 0), name
        assert edges[0][0].variable is a, name
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()


@pytest.mark.parametrize("fn", [F.mse_loss, F.smooth_l1_loss, F.huber_loss])
def test_modified_input_still_raises(fn):
    x = mt.randn(3, 4, requires_grad=True)
    t = mt.randn(3, 4)
    loss = fn(x, t)
    t.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_saved_tensor_hooks_apply_on_the_data_path(monkeypatch):
    # a pack/unpack pair that changes the saved values: both paths read the unpacked arrays
    rng = np.random.default_rng(5)
    xa, ta = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    results = []
    for data_path in (True, False):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        x = mt.tensor(xa, requires_grad=True)
        t = mt.tensor(ta)
        with mt.autograd.graph.saved_tensors_hooks(lambda v: v * 2, lambda v: v):
            loss = F.huber_loss(x, t, reduction="sum")
        (g,) = mt.autograd.grad(loss, x)
        results.append(_bits(g))
    assert results[0] == results[1]


def test_in_place_forwards_are_the_expressions(monkeypatch):
    # NOTE [ In-place BCE ] and mse's in-place square: the forward values, strides and the
    # BinaryCrossEntropyBackward node's value (create_graph) against the expressions
    rng = np.random.default_rng(6)
    pa, qa = rng.uniform(0, 1, (64, 33)), rng.uniform(0, 1, (64, 33))
    pa.flat[:3] = [0.0, 1.0, 1e-30]
    qa.flat[:3] = [0.0, 1.0, 0.5]
    wa = rng.uniform(0.5, 2, (33,))
    ga = rng.uniform(-1, 1, (64, 33))
    real_bce = K._in_place_bce
    results = []
    for in_place in (True, False):
        monkeypatch.setattr(K, "_in_place_bce", real_bce if in_place else lambda *a: False)
        out = []
        for dt in (mt.float32, mt.float64):
            p = mt.tensor(pa, dtype=dt, requires_grad=True)
            q = mt.tensor(qa, dtype=dt)
            w = mt.tensor(wa, dtype=dt)
            for weight in (None, w):
                loss = F.binary_cross_entropy(p, q, weight, reduction="none")
                out.append(_bits(loss))
                g = mt.tensor(ga, dtype=dt)
                (gp,) = mt.autograd.grad(loss, p, g, create_graph=True)
                out.append(_bits(gp))
                out.append(_bits(mt.autograd.grad(gp.sum(), p)[0]))
        results.append(out)
    assert results[0] == results[1]


@pytest.mark.parametrize("dt", [mt.float32, mt.float64])
def test_mse_forward_in_place_square(dt):
    rng = np.random.default_rng(7)
    xa, ta = rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    x, t = mt.tensor(xa, dtype=dt), mt.tensor(ta, dtype=dt)
    d = xa.astype(x.numpy().dtype) - ta.astype(x.numpy().dtype)
    got = F.mse_loss(x, t, reduction="none")
    np.testing.assert_array_equal(got.numpy(), d * d)
    assert got.stride() == (6, 1)
    # a transposed input keeps its expression (and NumPy's layout of it)
    got_t = F.mse_loss(x.T, t.T, reduction="none")
    np.testing.assert_array_equal(got_t.numpy(), (d * d).T)


def test_strict_device_backward_reads_nothing_back():
    x = mt.randn(4, 5, device="strict", requires_grad=True)
    t = mt.randn(4, 5, device="strict")
    p = mt.rand(4, 5, device="strict").requires_grad_()
    q = mt.rand(4, 5, device="strict")
    losses = [F.mse_loss(x, t), F.smooth_l1_loss(x, t, beta=0.5), F.huber_loss(x, t)]
    losses.append(F.binary_cross_entropy(p, q))
    with strict.count_transfers() as moved:
        for loss in losses:
            loss.backward()
    assert moved.count == 0
    assert x.grad.device.type == "strict" and p.grad.device.type == "strict"
