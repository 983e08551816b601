"""Edge cases of the sequence-model APIs where minitorch differed from torch: ctc_loss with empty
inputs and non-integral lengths, causal float64 masks and misshaped padding masks in the
transformer stacks, packing's lengths and freed graph, and the grad_fn names torch shows."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import functional as F
from minitorch.nn.utils.rnn import pack_padded_sequence, pad_sequence


def _name(t) -> str:
    return type(t.grad_fn).__name__


def _next_names(t) -> list:
    return [None if f is None else type(f).__name__ for f, _ in t.grad_fn.next_functions]


# --- ctc_loss ---


def _ctc_log_probs(dtype=np.float32, requires_grad=False):
    x = np.random.default_rng(0).standard_normal((6, 2, 4)).astype(dtype)
    return mt.tensor(x, requires_grad=requires_grad).log_softmax(2)


def test_ctc_zero_input_length_is_zero_for_empty_target_and_inf_otherwise():
    lp = _ctc_log_probs()
    tg = mt.tensor([[1, 2], [3, 1]])
    empty = F.ctc_loss(lp, tg, [6, 0], [2, 0], reduction="none")
    np.testing.assert_allclose(empty.numpy(), [5.5748, 0.0], rtol=1e-4, err_msg="empty target")
    assert np.signbit(empty.numpy()[1]), "torch's loss is -0.0 (minus a log-probability of 0)"
    full = F.ctc_loss(lp, tg, [6, 0], [2, 1], reduction="none")
    np.testing.assert_allclose(full.numpy(), [5.5748, np.inf], rtol=1e-4, err_msg="no frames")
    zero = F.ctc_loss(lp, tg, [6, 0], [2, 1], reduction="none", zero_infinity=True)
    np.testing.assert_allclose(zero.numpy(), [5.5748, 0.0], rtol=1e-4, err_msg="zero_infinity")
    # tensor lengths take the same path (their values are not read on the host)
    t = F.ctc_loss(lp, tg, mt.tensor([6, 0]), mt.tensor([2, 1]), reduction="none")
    np.testing.assert_allclose(t.numpy(), [5.5748, np.inf], rtol=1e-4, err_msg="tensor lengths")


def test_ctc_zero_input_length_gradients():
    x = mt.tensor(np.random.default_rng(1).standard_normal((3, 3, 4)), requires_grad=True)
    tg = mt.tensor([[1, 2], [3, 1], [1, 1]])
    loss = F.ctc_loss(x.log_softmax(2), tg, [3, 0, 0], [2, 0, 1], reduction="none")
    assert loss.detach().numpy()[2] == np.inf
    loss.backward(mt.ones(3, dtype=mt.float64))
    g = x.grad.numpy()
    assert np.isfinite(g).all()
    np.testing.assert_array_equal(g[:, 1:], 0.0, err_msg="no frames: no gradient (as torch)")
    assert np.abs(g[:, 0]).max() > 1e-3

    def f(x):
        return F.ctc_loss(
            x.log_softmax(2), tg, [3, 0, 2], [2, 0, 1], reduction="sum", zero_infinity=True
        )

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_ctc_lengths_must_be_integral():
    lp = mt.zeros(5, 2, 4).log_softmax(2)
    tg = mt.tensor([[1, 2], [3, 1]])
    with pytest.raises(RuntimeError, match="^input_lengths must be integral"):
        F.ctc_loss(lp, tg, mt.tensor([5.0, 4.0]), mt.tensor([2, 2]))
    with pytest.raises(RuntimeError, match="^target_lengths must be integral"):
        F.ctc_loss(lp, tg, mt.tensor([5, 4]), mt.tensor([2.0, 2.0]))
    with pytest.raises(RuntimeError, match="^input_lengths must be integral"):
        F.ctc_loss(lp, tg, mt.tensor([True, True]), mt.tensor([2, 2]))
    with pytest.raises(TypeError, match=r"ctc_loss\(\) received an invalid combination"):
        F.ctc_loss(lp, tg, [5.0, 4.0], [2, 2])
    ok = F.ctc_loss(lp, tg, mt.tensor([5, 4], dtype=mt.int32), mt.tensor([2, 2]))
    assert np.isfinite(ok.item())


def test_ctc_loss_grad_fn_is_one_node():
    x = mt.zeros(3, 2, 4, requires_grad=True)
    lp = x.log_softmax(2)
    tg = mt.tensor([[1], [2]])
    loss = F.ctc_loss(lp, tg, [3, 3], [1, 1], reduction="none")
    assert _name(loss) == "CtcLossBackward0"
    assert _next_names(loss) == ["LogSoftmaxBackward0"]
    assert _name(F.ctc_loss(lp, tg, [3, 3], [1, 1], reduction="none", zero_infinity=True)) == (
        "WhereBackward0"
    )
    unbatched = F.ctc_loss(lp[:, 0], tg[0], [3], [1], reduction="none")
    assert _name(unbatched) == "SqueezeBackward1"
    assert _next_names(unbatched) == ["CtcLossBackward0"]
    loss.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.sum().backward()
    # torch's node saves log_probs: changing them in place before backward is refused
    lp2 = x.log_softmax(2)
    loss2 = F.ctc_loss(lp2, tg, [3, 3], [1, 1], reduction="none")
    lp2.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss2.sum().backward()


# --- RNN output nodes ---


@pytest.mark.parametrize(
    "cls, name", [(nn.GRU, "TransposeBackward1"), (nn.RNN, "TransposeBackward1"),
                  (nn.LSTM, "TransposeBackward0")],
)  # fmt: skip
def test_batch_first_rnn_output_node(cls, name):
    mt.manual_seed(0)
    m = cls(4, 3, batch_first=True)
    x = mt.tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    out = m(x)[0]
    assert _name(out) == name
    # an unbatched input is one batch_first sequence: (1, L, H) transposed, as torch does
    one = m(x[1])[0]
    assert _name(one) == "SqueezeBackward1"
    assert _next_names(one) == [name]
    np.testing.assert_allclose(one.detach().numpy(), out[1].detach().numpy(), rtol=1e-6)
    assert _name(cls(4, 3)(x.transpose(0, 1))[0]) != name  # time-major: no transpose


# --- pad_sequence / pack_padded_sequence ---


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_copies_into_slices(batch_first, side):
    a = mt.tensor(np.arange(6.0).reshape(3, 2), dtype=mt.float32, requires_grad=True)
    b = mt.tensor([[10.0, 11.0]], dtype=mt.float64, requires_grad=True)
    out = pad_sequence([a, b], batch_first=batch_first, padding_value=-1.0, padding_side=side)
    assert _name(out) == "CopySlices"
    assert out.dtype is mt.float32  # the first sequence's dtype
    pad = [[-1.0, -1.0]] * 2
    want = [np.arange(6.0).reshape(3, 2), [[10.0, 11.0]] + pad if side == "right" else
            pad + [[10.0, 11.0]]]  # fmt: skip
    want = np.stack(want, 0 if batch_first else 1)
    np.testing.assert_array_equal(out.detach().numpy(), want)

    def f(a, b):
        return pad_sequence([a, b], batch_first=batch_first, padding_side=side)

    a64 = a.detach().double().requires_grad_()
    assert gradcheck(f, (a64, b))
    assert gradgradcheck(f, (a64, b))


def test_pack_padded_sequence_second_backward_raises():
    x = mt.ones(2, 3, 4, requires_grad=True)
    p = pack_padded_sequence(x, [3, 2], batch_first=True)
    assert _name(p.data) == "PackPaddedSequenceBackward0"
    assert _next_names(p.data) == ["AccumulateGrad"]
    p.data.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[:, :, 0], [[1, 1, 1], [1, 1, 0]])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        p.data.sum().backward()


def test_pack_padded_sequence_unsorted_sorts_first():
    x = mt.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
    p = pack_padded_sequence(x, [2, 3], batch_first=True, enforce_sorted=False)
    assert _next_names(p.data) == ["IndexSelectBackward0"]
    want = np.arange(24.0).reshape(2, 3, 4)[[1, 0, 1, 0, 1]]
    want = np.stack([want[0][0], want[1][0], want[2][1], want[3][1], want[4][2]])
    np.testing.assert_array_equal(p.data.detach().numpy(), want)
    assert gradcheck(
        lambda x: pack_padded_sequence(x, [2, 3], batch_first=True, enforce_sorted=False).data,
        (x,),
    )


@pytest.mark.parametrize("lengths", [4, mt.tensor(4), [[4]]])
def test_pack_padded_sequence_lengths_must_be_1d(lengths):
    dims = 2 if isinstance(lengths, list) else 0
    with pytest.raises(RuntimeError) as info:
        pack_padded_sequence(mt.ones(1, 4, 2), lengths, batch_first=True)
    assert str(info.value) == (
        f"'lengths' argument should be a 1D CPU int64 tensor, but got {dims}D cpu Long tensor"
    )


def test_pack_padded_sequence_float_lengths_truncate():
    p = pack_padded_sequence(mt.ones(2, 4, 2), [4.7, 3.2], batch_first=True)
    assert p.batch_sizes.tolist() == [2, 2, 2, 1]


# --- transformer masks ---


def _causal64(n):
    return mt.from_numpy(np.triu(np.full((n, n), -np.inf), 1))


def _seeded(module):
    r = np.random.default_rng(1)
    module.load_state_dict(
        {
            k: mt.tensor(r.standard_normal(tuple(v.shape)).astype(np.float32) * 0.3)
            for k, v in module.state_dict().items()
        }
    )
    return module


def test_float64_causal_mask_is_detected():
    x = mt.tensor(np.random.default_rng(0).standard_normal((2, 4, 8)).astype(np.float32))
    f32 = nn.Transformer.generate_square_subsequent_mask(4)
    enc = _seeded(
        nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
            1,
            enable_nested_tensor=False,
        )
    )
    want = enc(x, mask=f32, is_causal=False).detach().numpy()
    np.testing.assert_allclose(enc(x, mask=_causal64(4)).detach().numpy(), want, rtol=1e-5)
    tr = _seeded(nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True))
    want = tr(x, x, src_mask=f32, tgt_mask=f32, src_is_causal=False, tgt_is_causal=False)
    m64 = tr.generate_square_subsequent_mask(4, dtype=mt.float64)
    got = tr(x, x, src_mask=m64, tgt_mask=m64)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5)
    # a given hint is kept, and a non-causal float64 mask is used as given: SDPA refuses it
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        enc(x, mask=_causal64(4), is_causal=False)
    not_causal = mt.from_numpy(np.triu(np.full((4, 4), -np.inf), 2))
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        tr(x, x, tgt_mask=not_causal)
    # torch builds the comparison mask in the mask's dtype first, which refuses an int mask
    with pytest.raises(RuntimeError, match="cannot be converted to type int64_t"):
        tr.decoder(x, x, tgt_mask=mt.ones(4, 4, dtype=mt.int64).triu(1))


def test_eval_encoder_checks_padding_mask_shape_as_runtime_error():
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2).eval()
    x = mt.ones(3, 5, 8)
    transposed = mt.zeros(5, 3, dtype=mt.bool)
    with pytest.raises(RuntimeError, match="^Mask size should match input size$"):
        enc(x, src_key_padding_mask=transposed)
    with pytest.raises(RuntimeError, match="^Mask size should match input size$"):
        nn.Transformer(8, 2, 1, 1, 16, batch_first=True).eval()(
            x, x, src_key_padding_mask=transposed
        )
    with pytest.raises(RuntimeError, match="^Padding mask should be 2D$"):
        enc(x, src_key_padding_mask=mt.zeros(5, dtype=mt.bool))
    with mt.no_grad():  # the conversion checks again without mask_check
        enc.mask_check = False
        with pytest.raises(RuntimeError, match="^Mask size should match input size$"):
            enc(x, src_key_padding_mask=transposed)
    # grad enabled, no mask_check: the layers check (AssertionError), as in train mode
    with pytest.raises(AssertionError, match="key_padded_mask"):
        enc(x, src_key_padding_mask=transposed)
    enc.mask_check = True
    with pytest.raises(AssertionError, match="key_padded_mask"):
        enc.train()(x, src_key_padding_mask=transposed)
