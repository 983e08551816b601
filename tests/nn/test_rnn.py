"""Recurrent layers and packing utilities: values vs NumPy loops, float64 gradients, packed vs
per-sequence runs, parameter names and shapes, torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch._backend.strict import count_transfers
from minitorch.autograd import gradcheck
from minitorch.nn._functional_rnn import rnn_layers
from minitorch.nn.utils.rnn import (
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)


def _np(t):
    return t.detach().cpu().numpy()


def _sig(x):
    return 1 / (1 + np.exp(-x))


def ref_layer(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One direction of one layer, step by step in NumPy (x: (L, N, in))."""
    outs = []
    for xt in x:
        gi = xt @ w_ih.T + b_ih
        gh = h @ w_hh.T + b_hh
        if mode == "LSTM":
            i, f, g, o = np.split(gi + gh, 4, axis=1)
            c = _sig(f) * c + _sig(i) * np.tanh(g)
            h = _sig(o) * np.tanh(c)
            if w_hr is not None:
                h = h @ w_hr.T
        elif mode == "GRU":
            ir, iz, i_n = np.split(gi, 3, axis=1)
            hr, hz, h_n = np.split(gh, 3, axis=1)
            r, z = _sig(ir + hr), _sig(iz + hz)
            n = np.tanh(i_n + r * h_n)
            h = (1 - z) * n + z * h
        else:
            h = np.tanh(gi + gh)
        outs.append(h)
    return np.stack(outs), h, c


def _params(m, layer, suffix=""):
    names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    return [_np(getattr(m, f"{n}_l{layer}{suffix}")) for n in names]


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_two_layer_bidirectional_matches_numpy(mode, device):
    m = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True).double().to(device)
    x = np.random.default_rng(0).normal(size=(5, 2, 3))
    out, hn = m(mt.tensor(x, device=device))
    if mode == "LSTM":
        hn, cn = hn
    layer_in, hs = x, []
    for layer in range(2):
        zeros = np.zeros((2, 4))
        f, hf, _ = ref_layer(mode, layer_in, zeros, zeros, *_params(m, layer))
        b, hb, _ = ref_layer(mode, layer_in[::-1], zeros, zeros, *_params(m, layer, "_reverse"))
        layer_in = np.concatenate([f, b[::-1]], -1)
        hs += [hf, hb]
    np.testing.assert_allclose(_np(out), layer_in, atol=1e-12)
    np.testing.assert_allclose(_np(hn), np.stack(hs), atol=1e-12)
    assert out.device == mt.device(device)


def test_lstm_projection_and_initial_state():
    m = nn.LSTM(3, 5, proj_size=2).double()
    rng = np.random.default_rng(1)
    x, h0, c0 = rng.normal(size=(4, 2, 3)), rng.normal(size=(1, 2, 2)), rng.normal(size=(1, 2, 5))
    out, (hn, cn) = m(mt.tensor(x), (mt.tensor(h0), mt.tensor(c0)))
    ref, h, c = ref_layer("LSTM", x, h0[0], c0[0], *_params(m, 0), _np(m.weight_hr_l0))
    np.testing.assert_allclose(_np(out), ref, atol=1e-12)
    np.testing.assert_allclose(_np(hn[0]), h, atol=1e-12)
    np.testing.assert_allclose(_np(cn[0]), c, atol=1e-12)
    assert out.shape == (4, 2, 2) and cn.shape == (1, 2, 5)


@pytest.mark.parametrize("mode", ["RNN_TANH", "LSTM", "GRU"])
def test_gradients_float64(mode):
    g = {"RNN_TANH": 1, "LSTM": 4, "GRU": 3}[mode]

    def t(*shape):
        return mt.randn(*shape, dtype=mt.float64, requires_grad=True)

    x, h0, c0 = t(3, 2, 2), t(1, 2, 3), t(1, 2, 3)
    w_ih, w_hh, b_ih, b_hh = t(g * 3, 2), t(g * 3, 3), t(g * 3), t(g * 3)
    cx = c0 if mode == "LSTM" else None

    def f(x, h0, w_ih, w_hh, b_ih, b_hh):
        out, hn, _ = rnn_layers(mode, x, h0, cx, [(w_ih, w_hh, b_ih, b_hh, None)], 1, 1, 0.0, False)
        return out, hn

    assert gradcheck(f, (x, h0, w_ih, w_hh, b_ih, b_hh))


def test_batch_first_and_unbatched():
    m = nn.GRU(3, 4, batch_first=True)
    x = mt.randn(2, 5, 3)
    out, hn = m(x)
    assert out.shape == (2, 5, 4) and hn.shape == (1, 2, 4)
    out1, hn1 = m(x[1])
    np.testing.assert_allclose(_np(out1), _np(out[1]), atol=1e-6)
    assert hn1.shape == (1, 4)
    lstm = nn.LSTM(3, 4, num_layers=2)
    o, (h, c) = lstm(mt.randn(5, 3))
    assert o.shape == (5, 4) and h.shape == (2, 4) and c.shape == (2, 4)


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_matches_per_sequence_runs(mode, bidirectional):
    m = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional).double()
    rng = np.random.default_rng(2)
    lengths = [3, 5, 1]
    seqs = [mt.tensor(rng.normal(size=(n, 3))) for n in lengths]
    packed = pack_sequence(seqs, enforce_sorted=False)
    out, hn = m(packed)
    hn = hn[0] if mode == "LSTM" else hn
    padded, lens = pad_packed_sequence(out)
    assert lens.tolist() == lengths
    for b, s in enumerate(seqs):
        o, h = m(s)  # an unbatched run of one sequence
        h = h[0] if mode == "LSTM" else h
        np.testing.assert_allclose(_np(padded[: lengths[b], b]), _np(o), atol=1e-12)
        assert float(padded[lengths[b] :, b].abs().sum()) == 0
        np.testing.assert_allclose(_np(hn[:, b]), _np(h), atol=1e-12)


def test_pack_pad_roundtrip_and_errors():
    x = mt.arange(24.0).reshape(4, 3, 2)
    p = pack_padded_sequence(x, [4, 2, 1])
    assert p.batch_sizes.tolist() == [3, 2, 1, 1] and p.sorted_indices is None
    assert p.data[:, 0].tolist() == [0, 2, 4, 6, 8, 12, 18]
    back, lens = pad_packed_sequence(p, batch_first=True, total_length=5)
    assert back.shape == (3, 5, 2) and lens.tolist() == [4, 2, 1]
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="Expected `len\\(lengths\\)` to be equal"):
        pack_padded_sequence(x, [2, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        pad_packed_sequence(p, total_length=3)
    seqs = [mt.ones(2, 3), mt.ones(4, 3) * 2]
    assert pad_sequence(seqs).shape == (4, 2, 3)
    left = pad_sequence(seqs, batch_first=True, padding_value=-1, padding_side="left")
    assert left[0, :, 0].tolist() == [-1, -1, 1, 1]
    assert [t.shape[0] for t in unpad_sequence(pad_sequence(seqs), mt.tensor([2, 4]))] == [2, 4]
    assert [t.shape[0] for t in unpack_sequence(pack_sequence(seqs, False))] == [2, 4]


def test_no_host_reads_on_strict():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True).to("strict")
    x = mt.randn(5, 2, 3, device="strict", requires_grad=True)
    with count_transfers() as t:
        out, (h, c) = m(x)
        (out.sum() + h.sum() + c.sum()).backward()
    assert t.count == 0


def test_parameter_names_shapes_and_init():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert list(shapes)[:5] == [
        "weight_ih_l0",
        "weight_hh_l0",
        "bias_ih_l0",
        "bias_hh_l0",
        "weight_hr_l0",
    ]
    assert shapes["weight_ih_l1_reverse"] == (16, 4) and shapes["weight_hr_l1"] == (2, 4)
    for p in m.parameters():
        assert float(p.abs().max()) <= 0.5  # U(-1/sqrt(4), 1/sqrt(4))
    assert repr(m) == "LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)"
    assert repr(nn.RNN(3, 4, 2, nonlinearity="relu", bias=False)) == (
        "RNN(3, 4, num_layers=2, bias=False)"
    )
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"


def test_cells_match_numpy():
    rng = np.random.default_rng(3)
    x, h = rng.normal(size=(2, 3)), rng.normal(size=(2, 4))
    for cls, mode in ((nn.RNNCell, "RNN"), (nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU")):
        cell = cls(3, 4).double()
        ws = [_np(cell.weight_ih), _np(cell.weight_hh), _np(cell.bias_ih), _np(cell.bias_hh)]
        out = cell(mt.tensor(x), (mt.tensor(h), mt.tensor(h)) if mode == "LSTM" else mt.tensor(h))
        _, want, _ = ref_layer(mode, x[None], h, h, *ws)
        got = out[0] if mode == "LSTM" else out
        np.testing.assert_allclose(_np(got), want, atol=1e-12)
        unbatched = cell(mt.tensor(x[0]))
        assert (unbatched[0] if mode == "LSTM" else unbatched).shape == (4,)


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: nn.LSTM(3, 4)(mt.randn(5, 2, 2)),
            RuntimeError,
            "input.size\\(-1\\) must be equal to input_size. Expected 3, got 2",
        ),
        (
            lambda: nn.LSTM(3, 4)(mt.randn(5, 2, 3, 1)),
            ValueError,
            "LSTM: Expected input to be 2D or 3D, got 4D instead",
        ),
        (
            lambda: nn.LSTM(3, 4, 2)(mt.randn(5, 2, 3), (mt.randn(1, 2, 4), mt.randn(2, 2, 4))),
            RuntimeError,
            "Expected hidden\\[0\\] size \\(2, 2, 4\\), got \\[1, 2, 4\\]",
        ),
        (
            lambda: nn.GRU(3, 4)(mt.randn(5, 2, 3), mt.randn(2, 2, 4)),
            RuntimeError,
            "Expected hidden size \\(1, 2, 4\\), got \\[2, 2, 4\\]",
        ),
        (lambda: nn.LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller"),
        (lambda: nn.GRU(3, 4, proj_size=2), ValueError, "only supported for LSTM"),
        (lambda: nn.RNN(3, 4, nonlinearity="foo"), ValueError, "Unknown nonlinearity 'foo'"),
        (lambda: nn.LSTM(3, 4, dropout=1.5), ValueError, "dropout should be a number"),
        (
            lambda: nn.LSTMCell(3, 4)(mt.randn(2, 5)),
            RuntimeError,
            "input has inconsistent input_size: got 5 expected 3",
        ),
        (
            lambda: nn.RNNCell(3, 4)(mt.randn(2, 3), mt.randn(2, 5)),
            RuntimeError,
            "hidden0 has inconsistent hidden_size: got 5, expected 4",
        ),
    ],
)
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_dropout_warning_and_training_dropout():
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        nn.LSTM(3, 4, dropout=0.5)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = mt.randn(5, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert float((a - b).abs().max()) == 0
