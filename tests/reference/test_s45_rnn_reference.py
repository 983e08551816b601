"""Session 45, rnn: the recurrent layers with one transpose of W_hh per layer direction and the
fused GRU step (_GRUGates) against torch: float64 values and gradients, the nodes next to the
outputs."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _run(lib, kind, packed, kw):
    rs = np.random.RandomState(0)
    m = getattr(lib.nn, kind)(3, 4, **kw).double()
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rs.uniform(-0.6, 0.6, tuple(p.shape))))
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    x = lib.tensor(rs.randn(5, 2, 3), requires_grad=True)
    h0 = lib.tensor(rs.randn(layers * dirs, 2, kw.get("proj_size") or 4), requires_grad=True)
    leaves = [x, h0]
    hx = h0
    if kind == "LSTM":
        c0 = lib.tensor(rs.randn(layers * dirs, 2, 4), requires_grad=True)
        leaves.append(c0)
        hx = (h0, c0)
    inp = x
    if packed:
        inp = lib.nn.utils.rnn.pack_padded_sequence(x, [3, 5], enforce_sorted=False)
    out, hn = m(inp, hx)
    if packed:
        out = lib.nn.utils.rnn.pad_packed_sequence(out)[0]
    outs = [out, *(hn if isinstance(hn, tuple) else (hn,))]
    loss = sum((o * lib.tensor(rs.randn(*o.shape))).sum() for o in outs)
    grads = lib.autograd.grad(loss, [*leaves, *m.parameters()])
    names = [(o.grad_fn.name(), [f[0].name() for f in o.grad_fn.next_functions]) for o in outs]
    return [o.detach().numpy() for o in outs], [g.numpy() for g in grads], names


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize(
    "kind, kw",
    [
        ("GRU", dict()),
        ("GRU", dict(num_layers=2, bidirectional=True)),
        ("LSTM", dict(num_layers=2, bidirectional=True)),
        ("LSTM", dict(proj_size=2)),
        ("RNN", dict(num_layers=2)),
    ],
)
def test_layers_match_torch_float64(kind, kw, packed):
    got = _run(mt, kind, packed, kw)
    want = _run(torch, kind, packed, kw)
    for a, b in zip(got[0] + got[1], want[0] + want[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    if kind != "LSTM":  # (minitorch's float64 LSTM shows its fused steps, _LSTMGatesBackward0)
        assert got[2] == want[2]
