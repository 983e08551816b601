"""Session 46, rnn: the float32 LSTM layer as one node (MkldnnRnnLayerBackward0, as torch's
oneDNN kernel) against torch: values and gradients (all three outputs, states, every parameter),
the graph next to the outputs, and the errors of a saved tensor changed in place (the node saves
torch's seven tensors)."""

import numpy as np
import pytest

from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


def _graph(fn, depth):
    """Names of fn and of the nodes below it, depth levels down (None for a missing edge)."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return [fn.name(), [_graph(f, depth - 1) for f, _ in fn.next_functions]]


def _prog(kw, uses):
    def prog(lib, dt, rec):
        rs = np.random.RandomState(3)
        m = lib.nn.LSTM(3, 4, **kw).to(dt)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rs.uniform(-0.6, 0.6, tuple(p.shape))))
        dirs = 2 if kw.get("bidirectional") else 1
        layers = kw.get("num_layers", 1)
        shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
        x = lib.tensor(rs.randn(*shape), dtype=dt, requires_grad=True)
        h0 = lib.tensor(rs.randn(layers * dirs, 2, 4), dtype=dt, requires_grad=True)
        c0 = lib.tensor(rs.randn(layers * dirs, 2, 4), dtype=dt, requires_grad=True)
        out, (h, c) = m(x, (h0, c0))
        outs = (out, h, c)
        for name, o in zip(("out", "h", "c"), outs, strict=True):
            rec(name, o)
            rec(name + ".graph", str(_graph(o.grad_fn, 2)))
        loss = sum((outs[i] * lib.tensor(rs.randn(*outs[i].shape), dtype=dt)).sum() for i in uses)
        loss.backward()
        rec("x.grad", x.grad)
        rec("h0.grad", h0.grad)
        rec("c0.grad", c0.grad)
        rec.params("m", m, grads=True)

    return prog


@pytest.mark.parametrize(
    "kw, uses",
    [
        (dict(), (0, 1, 2)),
        (dict(batch_first=True), (0,)),
        (dict(bidirectional=True), (1, 2)),
        (dict(num_layers=2, bidirectional=True, batch_first=True), (0, 2)),
        (dict(bias=False), (0, 1)),
    ],
)
def test_lstm_layer_node_matches_torch(kw, uses):
    assert_program_matches(_prog(kw, uses), torch, "float32", tol=1e-5)


@pytest.mark.parametrize(
    "which", ["x", "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "h0", "c0", "leaf"]
)
def test_in_place_change_before_backward_matches_torch(which):
    import minitorch as mt

    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.LSTM(3, 4)
        x = lib.randn(5, 2, 3, requires_grad=True) * 1
        leaf = lib.randn(1, 2, 4, requires_grad=True)
        h0, c0 = leaf * 1, lib.randn(1, 2, 4, requires_grad=True) * 1
        out, (h, c) = m(x, (h0, c0))
        t = {"x": x, "h0": h0, "c0": c0, "leaf": leaf}.get(which)
        with lib.no_grad():
            (getattr(m, which) if t is None else t).add_(1)
        try:
            (out.sum() + c.sum()).backward()
        except RuntimeError as e:
            return str(e)
        return "no error"

    assert run(mt) == run(torch)
