"""Session 23, recurrent and attention layers fuzzed against torch 2.13: the cases where
minitorch differed, with torch's values and messages as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

Q = [[0.5, -1.0], [1.5, 0.25]]
K = [[1.0, 0.0], [-0.5, 2.0], [0.3, -0.7]]
V = [[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]]


def _qkv(lead=()):
    out = []
    for a in (Q, K, V):
        t = mt.tensor(a, dtype=mt.float64)
        for n in reversed(lead):
            t = t.unsqueeze(0).repeat(n, *([1] * t.ndim))
        out.append(t.requires_grad_())
    return out


@pytest.mark.parametrize(
    "mask, want",
    [
        (
            [True, False, True],
            [[0.4384420384606044, 1.1576630576909066], [0.703955592506144, 1.555933388759216]],
        ),
        (
            [0.0, -1.0, 0.5],
            [[0.36591766231958656, 0.9490897881871087], [0.7334043507008958, 1.244352265891563]],
        ),
        (
            -0.5,
            [[0.5896215205414083, 1.030320874353948], [1.0933608172416691, 1.1224514350085117]],
        ),
    ],
)
def test_sdpa_takes_1d_and_0d_masks_for_2d_and_3d_query(mask, want):
    # torch broadcasts a 0-d or 1-d mask over (L, S); only its 4-d flash selection reads dim -2
    dt = mt.bool if isinstance(mask, list) and isinstance(mask[0], bool) else mt.float64
    m = mt.tensor(mask, dtype=dt)
    q, k, v = _qkv()
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)
    q3, k3, v3 = _qkv((2,))
    out3 = F.scaled_dot_product_attention(q3, k3, v3, attn_mask=m)
    np.testing.assert_allclose(out3.detach().numpy()[1], want, rtol=1e-12, atol=1e-12)


def test_sdpa_1d_mask_gradients():
    q, k, v = _qkv((2,))
    m = mt.tensor([True, False, True])
    F.scaled_dot_product_attention(q, k, v, attn_mask=m).sum().backward()
    want = [[0.30467009500067227, 0.30467009500067227], [0.25788446186839303, 0.2578844618683928]]
    np.testing.assert_allclose(q.grad.numpy()[0], want, rtol=1e-12, atol=1e-12)

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    args = _qkv((2,))
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_sdpa_low_dim_mask_errors_only_where_torch_reads_dim_minus_2():
    def call(q_shape, k_shape, v_shape, mask_shape, **kw):
        q, k, v = (mt.ones(*s, dtype=mt.float64) for s in (q_shape, k_shape, v_shape))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mt.ones(mask_shape), **kw)

    q4, kv4 = (1, 2, 2, 4), (1, 2, 3, 4)
    msg = r"Dimension out of range \(expected to be in range of \[-1, 0\], but got -2\)"
    with pytest.raises(IndexError, match=msg):
        call(q4, kv4, kv4, (3,))
    with pytest.raises(IndexError, match=msg):  # before the causal check, as torch
        call(q4, kv4, kv4, (3,), is_causal=True)
    with pytest.raises(IndexError, match="Dimension specified as -2 but tensor has no dimensions"):
        call(q4, kv4, kv4, ())
    # where torch's flash selection stops earlier, the mask broadcasts
    assert call(q4, kv4, kv4, (3,), dropout_p=0.5).shape == (1, 2, 2, 4)
    assert call((2, 2, 2, 4), kv4, kv4, (3,)).shape == (2, 2, 2, 4)  # batch sizes differ
    assert call(q4, (1, 1, 3, 4), (1, 1, 3, 4), (3,)).shape == (1, 2, 2, 4)  # heads differ
    with pytest.raises(IndexError, match=msg):  # ... unless enable_gqa makes them fit
        call(q4, (1, 1, 3, 4), (1, 1, 3, 4), (3,), enable_gqa=True)
    assert call((1, 1, 2, 2, 4), (1, 1, 2, 3, 4), (1, 1, 2, 3, 4), (3,)).shape == (1, 1, 2, 2, 4)
    # a 2-d query with is_causal and a mask: the math path's error, not an IndexError
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        call((2, 4), (3, 4), (3, 4), (3,), is_causal=True)


@pytest.mark.parametrize(
    "zero_attn, bias_kv, kpm_shape, msg",
    [
        (False, False, (1, 4), "Expected key_padded_mask.shape[1] to be 3, but got 4"),
        (True, False, (1, 4), "Expected key_padded_mask.shape[1] to be 4, but got 5"),
        (True, False, (1, 2), "Expected key_padded_mask.shape[1] to be 4, but got 3"),
        (False, True, (1, 4), "Expected key_padded_mask.shape[1] to be 4, but got 5"),
        (False, True, (2, 3), "Expected key_padded_mask.shape[0] to be 1, but got 2"),
    ],
)
def test_mha_key_padding_mask_shape_checked_after_bias_kv_and_zero_attn(
    zero_attn, bias_kv, kpm_shape, msg
):
    # torch checks the padding mask where it merges it, against the key length that bias_k
    # and the zero attention have grown (and the mask with them)
    m = mt.nn.MultiheadAttention(6, 2, kdim=3, vdim=3, add_zero_attn=zero_attn, add_bias_kv=bias_kv)
    q, k = mt.randn(2, 1, 6), mt.randn(3, 1, 3)
    kpm = mt.zeros(*kpm_shape, dtype=mt.bool)
    with pytest.raises(AssertionError) as e:
        m(q, k, k, key_padding_mask=kpm)
    assert str(e.value) == msg


def test_mha_is_causal_without_mask_is_reported_before_the_padding_mask_shape():
    m = mt.nn.MultiheadAttention(6, 2, kdim=3, vdim=3)
    q, k = mt.randn(2, 1, 6), mt.randn(3, 1, 3)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(q, k, k, key_padding_mask=mt.zeros(1, 4), is_causal=True, need_weights=False)


def test_unpad_sequence_keeps_positions_below_length():
    # torch keeps the positions t < length: a negative length gives an empty sequence (not a
    # slice from the end), a length past the padding all of it, a float length its ceiling
    pad = mt.nn.utils.rnn.pad_sequence([mt.ones(2, 1), mt.ones(3, 1)], batch_first=True)
    cases = {(2, -1): [(2, 1), (0, 1)], (5, 0): [(3, 1), (0, 1)], (1.5, 2.0): [(2, 1), (2, 1)]}
    for lengths, shapes in cases.items():
        out = mt.nn.utils.rnn.unpad_sequence(pad, mt.tensor(lengths), batch_first=True)
        assert [tuple(t.shape) for t in out] == shapes, lengths
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is shorter than argument 1"):
        mt.nn.utils.rnn.unpad_sequence(pad, mt.tensor([2]), batch_first=True)
    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is longer than argument 1"):
        mt.nn.utils.rnn.unpad_sequence(pad, mt.tensor([1, 2, 3]), batch_first=True)


def test_mha_module_refuses_integer_attn_mask_even_with_is_causal():
    # torch's module canonicalises its masks first: is_causal without need_weights would drop
    # the mask, but an integer one is refused before that
    m = mt.nn.MultiheadAttention(4, 2, batch_first=True).eval()
    x = mt.randn(2, 3, 4, requires_grad=True)
    mask = mt.ones(3, 3, dtype=mt.int64).triu(1)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        m(x, x, x, attn_mask=mask, is_causal=True, need_weights=False)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        m(x, x, x, attn_mask=mt.ones(3, dtype=mt.int64))  # before the shape check
    # a bool causal mask still runs and equals the float one
    causal = mt.ones(3, 3, dtype=mt.bool).triu(1)
    a = m(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)[0]
    b = m(x, x, x, attn_mask=causal.float().masked_fill(causal, float("-inf")))[0]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def _lstm_cell():
    cell = mt.nn.LSTMCell(3, 4, dtype=mt.float64)
    with mt.no_grad():
        for i, p in enumerate(cell.parameters()):
            n = p.numel()
            p.copy_(mt.linspace(-1, 1, n, dtype=mt.float64).reshape(p.shape) * (i + 1) / 3)
    return cell


def test_lstm_cell_takes_a_stacked_hx_tensor_for_an_unbatched_input():
    # torch's LSTMCell indexes hx[0] and hx[1], so an unbatched input runs with a (2, H) Tensor
    cell = _lstm_cell()
    x = mt.linspace(-1, 1, 3, dtype=mt.float64)
    hx = mt.linspace(-1, 1, 8, dtype=mt.float64).reshape(2, 4).requires_grad_()
    h, c = cell(x, hx)
    want_h = [0.06063397980369892, 0.17363583079472364, 0.29719320146368433, 0.42002818695167937]
    want_c = [0.09459840481112987, 0.26545513587075364, 0.457059080503546, 0.6684962289105147]
    np.testing.assert_allclose(h.detach().numpy(), want_h, rtol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), want_c, rtol=1e-12)
    (h.sum() + 2 * c.sum()).backward()
    want_g = [
        [0.04391201827156354, 0.16204834760629322, 0.2801846769410228, 0.3983210062757525],
        [1.0882113655287753, 1.158428684287554, 1.2083492542734544, 1.2368480114483067],
    ]
    np.testing.assert_allclose(hx.grad.numpy(), want_g, rtol=1e-12)
    with pytest.raises(IndexError, match="index 1 is out of bounds for dimension 0 with size 1"):
        cell(x, mt.zeros(1, 4, dtype=mt.float64))
    with pytest.raises(TypeError, match=r"lstm_cell\(\): argument 'hx' \(position 2\) must be"):
        cell(x.reshape(1, 3), mt.zeros(2, 1, 4, dtype=mt.float64))


def test_recurrent_checks_run_in_torchs_order():
    # the states' rank (Python) before the input's dtype and size, the hidden sizes before the
    # dtypes and the sequence length (kernel); a cell's state rank before its input size
    rnn = mt.nn.RNN(3, 4, dtype=mt.float64)
    rank = "For batched 3-D input, hx should also be 3-D but got 2-D tensor"
    with pytest.raises(RuntimeError, match=rank):
        rnn(mt.ones(2, 1, 3, dtype=mt.float32), mt.ones(1, 4))
    with pytest.raises(RuntimeError, match=rank):
        rnn(mt.ones(2, 1, 5, dtype=mt.float64), mt.ones(1, 4, dtype=mt.float64))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 4\), got \[1, 2, 4\]"):
        rnn(mt.ones(0, 1, 3, dtype=mt.float64), mt.ones(1, 2, 4, dtype=mt.float64))
    with pytest.raises(ValueError, match=r"RNN input dtype \(torch.float32\) does not match"):
        rnn(mt.ones(2, 1, 5, dtype=mt.float32))  # the dtype before the feature size
    lstm = mt.nn.LSTM(3, 4, dtype=mt.float64)
    hx = (mt.ones(1, 2, 4), mt.ones(1, 2, 2))  # float32 states, the cell state's size wrong
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 4\), got \[1, 2, 2\]"
    ):
        lstm(mt.ones(2, 2, 3, dtype=mt.float64), hx)
    cell = mt.nn.RNNCell(3, 4, dtype=mt.float64)
    with pytest.raises(ValueError, match="RNNCell: Expected hidden to be 1D or 2D, got 3D instead"):
        cell(mt.ones(1, dtype=mt.float64), mt.ones(4, 2, 2, dtype=mt.float64))
