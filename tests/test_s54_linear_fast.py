"""Session 54, lead: F.linear's recorded fast path (nn.functional._recorded_linear, NOTE [ The
recorded fast path ] in minitorch/autograd/function.py). Where a node is recorded for plain CPU
matrices, F.linear makes the weight's TBackward0 view and the AddmmBackward0 (MmBackward0
without a bias) node without Function.apply; each must give what the full path (the fast paths'
switch off, as a profile) gives: values, nodes, edges, input metadata, saved values and their
version checks, the view, first and second order gradients, errors. Each test also checks that
the route it means was taken, so that it fails if the route is gone."""

import contextlib
import itertools

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import function
from tests._fastpath import error_of, full_path
from tests.test_s46_loss import compare, randn
from tests.test_s48_lead import _node_state

NEEDS = [n for n in itertools.product((False, True), repeat=3) if any(n)]  # input, weight, bias
DTYPES = (torch.float32, torch.float64)


class _Routes:
    """Counts the calls of the fast path's record_view_apply / record_pair / record_many."""

    def __init__(self, monkeypatch):
        self.calls = []
        for name in ("record_view_apply", "record_pair", "record_many"):
            monkeypatch.setattr(F, name, self._spy(name, getattr(function, name)))

    def _spy(self, name, orig):
        def spy(*args, **kwargs):
            self.calls.append(name)
            return orig(*args, **kwargs)

        return spy


def _operands(needs, dtype, bias=True, parameter=False):
    x = randn(5, 4, dtype=dtype, seed=1).requires_grad_(needs[0])
    w = randn(3, 4, dtype=dtype, seed=2)
    w = torch.nn.Parameter(w, requires_grad=needs[1]) if parameter else w.requires_grad_(needs[1])
    b = randn(3, dtype=dtype, seed=3).requires_grad_(needs[2]) if bias else None
    return x, w, b


def node_state(node):
    """What a node holds: class, edges, input metadata, needs, saved nothing or not, attributes,
    device (None for no node: the weight's TBackward0 where the weight needs no grad)."""
    if node is None:
        return None
    edges = tuple(None if e is None else (type(e[0]).__name__, e[1]) for e in node._next)
    return (
        type(node).__name__,
        edges,
        node._in_meta,
        node.needs_input_grad,
        node._saved is function._NOTHING,
        dict(node.__dict__),
        node._out_device,
    )


def _state(out):
    """The result's node state, the weight-side node's state, and the result's value bits."""
    wt_edge = out.grad_fn._next[-1]
    wt_node = None if wt_edge is None else wt_edge[0]
    if wt_node is not None and type(wt_node).__name__ != "TBackward0":
        wt_node = None  # (an AccumulateGrad: no view node)
    return _node_state(out), node_state(wt_node), out.detach().numpy().tobytes()


CASES = [(n, b) for n in NEEDS for b in (True, False) if b or n[0] or n[1]]  # (needs, bias)


@pytest.mark.parametrize("parameter", [False, True], ids=["tensor", "parameter"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize(("needs", "bias"), CASES, ids=str)
def test_recorded_linear_matches_the_full_path(needs, bias, dtype, parameter, monkeypatch):
    x, w, b = _operands(needs, dtype, bias, parameter)
    routes = _Routes(monkeypatch)
    fast = F.linear(x, w, b)
    assert routes.calls[-1] == ("record_many" if bias else "record_pair")
    assert ("record_view_apply" in routes.calls) == needs[1]
    with full_path():
        full = F.linear(x, w, b)
    assert _state(fast) == _state(full)
    assert fast.grad_fn.name() == ("AddmmBackward0" if bias else "MmBackward0")
    inputs = [a for a in (x, w, b) if a is not None]
    compare(lambda *a: F.linear(*a), inputs)


@pytest.mark.parametrize("needs", [(True, True, True), (False, True, True), (True, False, False)])
def test_the_weight_view_is_the_full_paths(needs):
    x, w, b = _operands(needs, torch.float32)
    views = []
    for route in (contextlib.nullcontext(), full_path()):
        with route:
            out = F.linear(x, w, b)
        wt = [e for e in out.grad_fn._saved if e is not None and e[1] is not x]
        views.append(wt)
    fast, full = views
    assert len(fast) == len(full)
    for a, c in zip(fast, full, strict=True):
        va, vc = a[1], c[1]
        assert va._base is w and vc._base is w
        assert va._vc is w._vc and vc._vc is w._vc
        assert va._view_version == vc._view_version
        assert va._view_chain == vc._view_chain
        assert va.requires_grad == vc.requires_grad
        assert va.stride() == vc.stride() == (1, 4)


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error: compared by type and message)
        return type(e), str(e)
    return None


@pytest.mark.parametrize(
    "needs", [(True, True, True), (True, True, False), (True, False, False), (False, True, True)]
)
def test_a_weight_changed_in_place_after_the_forward_is_refused_as_on_the_full_path(needs):
    outcomes = []
    for route in (contextlib.nullcontext(), full_path()):
        x, w, b = _operands(needs, torch.float32)
        with route:
            out = F.linear(x, w, b)
        with torch.no_grad():
            w.mul_(2)
        outcomes.append(_outcome(lambda out=out: out.sum().backward()))
    assert outcomes[0] == outcomes[1]
    if needs[0]:  # the weight is saved for the input's gradient only (as torch's addmm)
        assert outcomes[0][0] is RuntimeError
        assert "modified by an inplace operation" in outcomes[0][1]
    else:
        assert outcomes[0] is None


def test_an_input_changed_in_place_after_the_forward_is_refused_as_on_the_full_path():
    errors = []
    for route in (contextlib.nullcontext(), full_path()):
        x, w, b = _operands((False, True, True), torch.float32)
        with route:
            out = F.linear(x, w, b)
        x.add_(1)
        errors.append(error_of(lambda out=out: out.sum().backward()))
    assert errors[0] == errors[1]
    assert "modified by an inplace operation" in errors[0][1]


def test_saved_tensor_hooks_take_the_full_path(monkeypatch):
    x, w, b = _operands((True, True, True), torch.float64)
    routes = _Routes(monkeypatch)
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = F.linear(x, w, b)
    assert routes.calls == []
    assert packed == [(5, 4), (4, 3)]  # the input and the weight's view, as the full path saves
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.tile(x.detach().numpy().sum(0), (3, 1)))


def test_anomaly_mode_pauses_the_fast_path_and_records_the_creation_trace(monkeypatch):
    x, w, b = _operands((True, True, True), torch.float64)
    routes = _Routes(monkeypatch)
    with torch.autograd.detect_anomaly(check_nan=False):
        out = F.linear(x, w, b)
    assert routes.calls == []
    t_node = out.grad_fn.next_functions[2][0]
    for node in (out.grad_fn, t_node):
        assert any("test_s54_linear_fast.py" in line for line in node.metadata["traceback_"])
    F.linear(x, w, b)  # the region over, the fast path again
    assert routes.calls == ["record_view_apply", "record_many"]


def test_gradients_check_in_float64_through_the_fast_path(monkeypatch):
    x, w, b = _operands((True, True, True), torch.float64)
    routes = _Routes(monkeypatch)
    assert torch.autograd.gradcheck(F.linear, (x, w, b))
    assert torch.autograd.gradgradcheck(F.linear, (x, w, b))
    assert "record_many" in routes.calls


def test_a_module_step_gives_the_full_paths_gradients():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    x = torch.randn(6, 4)
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    grads = []
    for route in (contextlib.nullcontext(), full_path()):
        model.zero_grad()
        with route:
            torch.nn.functional.cross_entropy(model(x), y).backward()
        grads.append([p.grad.numpy().tobytes() for p in model.parameters()])
    assert grads[0] == grads[1]


def test_a_frozen_weight_gets_a_view_without_a_node(monkeypatch):
    x, w, b = _operands((True, False, False), torch.float32)
    routes = _Routes(monkeypatch)
    out = F.linear(x, w, b)
    assert routes.calls == ["record_many"]
    assert [type(f).__name__ if f else None for f, _ in out.grad_fn.next_functions] == [
        None,
        "AccumulateGrad",
        None,
    ]
    out.sum().backward()
    assert w.grad is None and b.grad is None
    np.testing.assert_allclose(x.grad.numpy(), np.tile(w.numpy().sum(0), (5, 1)))
