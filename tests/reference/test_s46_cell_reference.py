"""Session 46, cell: the recorded cells (LSTMCell, GRUCell, RNNCell tanh/relu) and Elman RNN
layers against torch: outputs, the gradients of every leaf (float64, to rounding) and the graph
below each output, node by node (names and edges), as torch's CPU kernels record it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _graph(fn, depth=8):
    if fn is None or depth == 0:
        return None
    return (fn.name(), tuple(_graph(f, depth - 1) for f, _ in fn.next_functions))


def _load(lib, m, seed):
    rs = np.random.RandomState(seed)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rs.uniform(-0.8, 0.8, tuple(p.shape))))
    return m


def _cell_run(lib, kind, states):
    nn = lib.nn
    kw = {"dtype": lib.float64}
    if kind == "lstm":
        m = nn.LSTMCell(5, 4, **kw)
    elif kind == "gru":
        m = nn.GRUCell(5, 4, **kw)
    else:
        m = nn.RNNCell(5, 4, nonlinearity=kind, **kw)
    _load(lib, m, 3)
    rs = np.random.RandomState(8)
    x = lib.tensor(rs.randn(3, 5), requires_grad=True)
    leaves = [x, *m.parameters()]
    hx = None
    if states:
        h = lib.tensor(rs.randn(3, 4), requires_grad=True)
        c = lib.tensor(rs.randn(3, 4), requires_grad=True)
        hx = (h, c) if kind == "lstm" else h
        leaves += [h, c] if kind == "lstm" else [h]
    out = m(x, hx)
    outs = list(out) if kind == "lstm" else [out]
    sum((o * o).sum() for o in outs).backward()
    return (
        [o.detach().numpy() for o in outs] + [t.grad.numpy() for t in leaves],
        [_graph(o.grad_fn) for o in outs],
    )


@pytest.mark.parametrize("kind", ["lstm", "gru", "tanh", "relu"])
@pytest.mark.parametrize("states", [True, False])
def test_cells_match_torch(kind, states):
    got, got_graph = _cell_run(minitorch, kind, states)
    want, want_graph = _cell_run(torch, kind, states)
    assert got_graph == want_graph
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def _elman_run(lib, nonlinearity, bidirectional):
    m = _load(
        lib,
        lib.nn.RNN(
            3,
            4,
            nonlinearity=nonlinearity,
            batch_first=True,
            bidirectional=bidirectional,
            dtype=lib.float64,
        ),
        5,
    )
    x = lib.tensor(np.random.RandomState(9).randn(2, 4, 3), requires_grad=True)
    out, h = m(x)
    ((out * out).sum() + h.sum()).backward()
    return (
        [out.detach().numpy(), h.detach().numpy(), x.grad.numpy()]
        + [p.grad.numpy() for p in m.parameters()],
        [_graph(out.grad_fn, 5), _graph(h.grad_fn, 5)],
    )


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_elman_layers_match_torch(nonlinearity, bidirectional):
    got, got_graph = _elman_run(minitorch, nonlinearity, bidirectional)
    want, want_graph = _elman_run(torch, nonlinearity, bidirectional)
    assert got_graph == want_graph
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
