"""Session 54, lead: recorded view ops through record_view_apply (shape.py view_apply; NOTE [ The
recorded fast path ] in minitorch/autograd/function.py). Where a view op of a plain CPU tensor
records its node, it skips Function.apply's general tests; the node (class, edges, metadata,
saved attributes as torch shows them), the view (base, version counter, replay chain), the
values and the first and second order gradients must be the full path's (the fast paths'
switch off, as a profile). Each test also checks that the route it means was taken."""

import contextlib

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import indexing, shape
from minitorch.autograd import function
from tests._fastpath import full_path
from tests.test_s46_loss import compare, randn
from tests.test_s54_linear_fast import node_state

VIEWS = {
    "view": lambda a: a.view(6, 4),
    "view(-1)": lambda a: a.view(-1),
    "reshape": lambda a: a.reshape(2, 12),
    "flatten": lambda a: a.flatten(1),
    "transpose": lambda a: a.transpose(0, 2),
    "transpose(-1, -2)": lambda a: a.transpose(-1, -2),
    "t": lambda a: a[0].t(),
    "mT": lambda a: a.mT,
    "permute": lambda a: a.permute(2, 0, 1),
    "unsqueeze": lambda a: a.unsqueeze(1),
    "unsqueeze(-1)": lambda a: a.unsqueeze(-1),
    "squeeze": lambda a: a[:, :1].squeeze(1),
    "squeeze()": lambda a: a[:1].squeeze(),
    "expand": lambda a: a[:, :1].expand(2, 3, 4),
    "narrow": lambda a: a.narrow(2, 1, 2),
    "narrow(-1)": lambda a: a.narrow(-1, 1, 2),
    "x[i]": lambda a: a[1],
    "x[-1]": lambda a: a[-1],
    "x[a:b]": lambda a: a[0:1],
    "x[:, i]": lambda a: a[:, 2],
    "x[..., None]": lambda a: a[..., None],
    "x[:, 1:3]": lambda a: a[:, 1:3],
}


class _Route:
    """Counts the calls of record_view_apply from shape.py and indexing.py."""

    def __init__(self, monkeypatch):
        self.calls = 0
        self.last = None
        orig = function.record_view_apply

        def spy(*args, **kwargs):
            self.calls += 1
            self.last = orig(*args, **kwargs)
            return self.last

        monkeypatch.setattr(shape, "record_view_apply", spy)


def _view_state(t):
    """A view's node (class, edges, metadata, needs, saved, attributes), view bookkeeping and
    value."""
    node = t.grad_fn
    shown = {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}
    return (
        node_state(node),
        repr(shown),
        t._base is not None,
        t._view_version,
        t._view_chain,
        t.stride(),
        t.detach().numpy().tobytes(),
    )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(VIEWS))
def test_recorded_view_matches_the_full_path(name, dtype, monkeypatch):
    fn = VIEWS[name]
    leaf = randn(2, 3, 4, dtype=dtype, seed=1).requires_grad_()
    a = leaf * 1.5  # a non-leaf base
    route = _Route(monkeypatch)
    fast = fn(a)
    assert route.last is fast  # the op named took the route
    with full_path():
        full = fn(a)
    assert _view_state(fast) == _view_state(full)
    assert fast._base is a and full._base is a
    compare(fn, (leaf,))


def test_a_leaf_base_and_a_view_of_a_view(monkeypatch):
    route = _Route(monkeypatch)
    leaf = randn(4, 6).requires_grad_()
    states = []
    for ctx in (contextlib.nullcontext(), full_path()):
        with ctx:
            v = leaf.view(2, 12).transpose(0, 1)[3:5]
        states.append(_view_state(v))
        assert v._base is leaf
    assert route.calls == 3
    assert states[0] == states[1]


def test_an_in_place_change_through_a_recorded_view_gives_the_full_paths_gradients():
    results = []
    for ctx in (contextlib.nullcontext(), full_path()):
        leaf = randn(3, 4, dtype=torch.float64).requires_grad_()
        with ctx:
            base = leaf * 2
            v = base.transpose(0, 1)
            v[1].mul_(3)  # base changes through its view
            out = (base * base).sum()
        (g,) = torch.autograd.grad(out, leaf)
        results.append(g.numpy().tobytes())
        assert type(base.grad_fn).__name__ == "CopySlices"
    assert results[0] == results[1]


def test_a_stale_view_regenerates_its_node_as_on_the_full_path():
    names = []
    for ctx in (contextlib.nullcontext(), full_path()):
        with ctx:
            base = randn(3, 4).requires_grad_().clone()
            v = base.unsqueeze(0)
            base.add_(1)  # the view's node is now stale
            names.append(type(v.grad_fn).__name__)
    assert names[0] == names[1] == "AsStridedBackward0"


def test_saved_tensor_hooks_and_other_devices_take_apply(monkeypatch):
    route = _Route(monkeypatch)
    a = randn(2, 3).requires_grad_() * 1
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        v = a.transpose(0, 1)
    assert route.calls == 0
    assert type(v.grad_fn).__name__ == "TransposeBackward0"
    with torch.no_grad():
        w = a.transpose(0, 1)
    assert route.calls == 0 and w.grad_fn is None and w._base is a


def test_anomaly_mode_pauses_the_route_and_records_the_creation_trace(monkeypatch):
    route = _Route(monkeypatch)
    a = randn(2, 3).requires_grad_() * 1
    with torch.autograd.detect_anomaly(check_nan=False):
        v = a.unsqueeze(0)
    assert route.calls == 0
    assert any("test_s54_view_record.py" in line for line in v.grad_fn.metadata["traceback_"])
    a.unsqueeze(0)  # the region over, the route again
    assert route.calls == 1


def test_gradcheck_through_recorded_views():
    a = randn(2, 3, 4, dtype=torch.float64).requires_grad_()

    def f(x):
        y = x * 1.0
        return y.transpose(0, 2).reshape(4, 6)[1:3].unsqueeze(0).expand(2, 2, 6).sum(0)

    assert torch.autograd.gradcheck(f, (a,))
    assert torch.autograd.gradgradcheck(f, (a,))


def test_indexing_views_take_the_route(monkeypatch):
    calls = []
    orig = function.record_view_apply
    monkeypatch.setattr(shape, "record_view_apply", lambda *a: calls.append(1) or orig(*a))
    a = randn(3, 4).requires_grad_() * 1
    assert indexing.view_apply is shape.view_apply
    a[1], a[:, 1:3], a[0:2]
    assert len(calls) == 3
    np.testing.assert_array_equal(a[:, 1:3].detach().numpy(), a.detach().numpy()[:, 1:3])
