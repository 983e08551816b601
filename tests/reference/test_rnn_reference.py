"""RNN/LSTM/GRU and their cells against torch: torch's state dict loads into minitorch, and the
same inputs give the same outputs, final states, input and parameter gradients, reprs; packed
sequences included."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _load(tm, mm):
    mm.load_state_dict({k: minitorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})


def _close(a, b, what):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-10, err_msg=what)


CONFIGS = [
    ("RNN", dict()),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)),
    ("LSTM", dict(batch_first=True, bias=False)),
    ("GRU", dict(num_layers=2, batch_first=True)),
    ("GRU", dict(bidirectional=True)),
]


def _states(mode, out):
    return list(out[1]) if mode == "LSTM" else [out[1]]


@pytest.mark.parametrize("mode, kw", CONFIGS, ids=lambda c: str(c))
def test_layers_match_torch(mode, kw):
    tm = getattr(torch.nn, mode)(3, 4, **kw).double()
    mm = getattr(minitorch.nn, mode)(3, 4, **kw).double()
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _load(tm, mm)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 3) if kw.get("batch_first") else (5, 2, 3))
    layers = tm.num_layers * (2 if tm.bidirectional else 1)
    h0 = rng.normal(size=(layers, 2, tm.proj_size or 4))
    c0 = rng.normal(size=(layers, 2, 4))
    res = []
    for lib, m in ((torch, tm), (minitorch, mm)):
        xt = lib.tensor(x, requires_grad=True)
        hx = (lib.tensor(h0), lib.tensor(c0)) if mode == "LSTM" else lib.tensor(h0)
        out = m(xt, hx)
        loss = (
            out[0] * lib.tensor(np.linspace(-1, 1, out[0].numel())).reshape(tuple(out[0].shape))
        ).sum()
        for k, s in enumerate(_states(mode, out)):
            loss = loss + s.sum() * (k + 2)
        loss.backward()
        res.append((out, xt.grad, [p.grad for p in m.parameters()]))
    (to, tg, tpg), (mo, mg, mpg) = res
    _close(mo[0], to[0], "output")
    for a, b in zip(_states(mode, mo), _states(mode, to), strict=True):
        _close(a, b, "final state")
    _close(mg, tg, "input gradient")
    for (name, _), a, b in zip(mm.named_parameters(), mpg, tpg, strict=True):
        _close(a, b, f"gradient of {name}")


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_packed_sequences_match_torch(mode):
    from torch.nn.utils import rnn as trnn

    from minitorch.nn.utils import rnn as mrnn

    tm = getattr(torch.nn, mode)(3, 4, num_layers=2, bidirectional=True).double()
    mm = getattr(minitorch.nn, mode)(3, 4, num_layers=2, bidirectional=True).double()
    _load(tm, mm)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 3, 3))
    lengths = [3, 5, 2]
    outs = []
    for lib, m, R in ((torch, tm, trnn), (minitorch, mm, mrnn)):
        xt = lib.tensor(x, requires_grad=True)
        packed = R.pack_padded_sequence(xt, lengths, enforce_sorted=False)
        out = m(packed)
        padded, lens = R.pad_packed_sequence(out[0], total_length=6)
        state = out[1][0] if mode == "LSTM" else out[1]
        (padded.sum() + (state * 3).sum()).backward()
        outs.append((packed, padded, lens, state, xt.grad))
    (tp, tpad, tl, ts, tg), (mp, mpad, ml, ms, mg) = outs
    _close(mp.data, tp.data, "packed data")
    assert mp.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert mp.sorted_indices.tolist() == tp.sorted_indices.tolist()
    assert mp.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    _close(mpad, tpad, "padded output")
    assert ml.tolist() == tl.tolist()
    _close(ms, ts, "h_n")
    _close(mg, tg, "input gradient")


def test_pad_sequence_matches_torch():
    from torch.nn.utils import rnn as trnn

    from minitorch.nn.utils import rnn as mrnn

    seqs = [np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3)]
    for kw in (dict(), dict(batch_first=True, padding_value=-1.0, padding_side="left")):
        got = mrnn.pad_sequence([minitorch.tensor(s) for s in seqs], **kw)
        want = trnn.pad_sequence([torch.tensor(s) for s in seqs], **kw)
        _close(got, want, str(kw))


@pytest.mark.parametrize(
    "cls, kw",
    [
        ("RNNCell", {}),
        ("RNNCell", {"nonlinearity": "relu"}),
        ("LSTMCell", {}),
        ("GRUCell", {"bias": False}),
    ],
)
def test_cells_match_torch(cls, kw):
    tm = getattr(torch.nn, cls)(3, 4, **kw).double()
    mm = getattr(minitorch.nn, cls)(3, 4, **kw).double()
    assert repr(mm) == repr(tm)
    assert list(mm.state_dict()) == list(tm.state_dict())
    _load(tm, mm)
    rng = np.random.default_rng(2)
    x, h = rng.normal(size=(2, 3)), rng.normal(size=(2, 4))
    res = []
    for lib, m in ((torch, tm), (minitorch, mm)):
        xt = lib.tensor(x, requires_grad=True)
        hx = (lib.tensor(h), lib.tensor(h * 2)) if cls == "LSTMCell" else lib.tensor(h)
        out = m(xt, hx)
        out = out[0] + out[1] * 2 if cls == "LSTMCell" else out
        out.sum().backward()
        res.append((out, xt.grad))
    _close(res[1][0], res[0][0], "output")
    _close(res[1][1], res[0][1], "input gradient")
