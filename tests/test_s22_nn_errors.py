"""Session 22 (h10): nn layers' and losses' bad-input errors, matched to torch 2.13 (literals
obtained by running torch)."""

import re

import pytest

import minitorch as torch

F = torch.nn.functional
L = torch.long


def _raises(exc, msg, fn):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        fn()


def test_soft_margin_loss_int_input_raises():
    x = torch.zeros(2, dtype=torch.int64)
    msg = "result type Float can't be cast to the desired output type Long"
    _raises(RuntimeError, msg, lambda: F.soft_margin_loss(x, torch.zeros(2)))
    msg = "result type Double can't be cast to the desired output type Int"
    x32 = torch.zeros(2, dtype=torch.int32)
    _raises(RuntimeError, msg, lambda: F.soft_margin_loss(x32, torch.zeros(2, dtype=torch.float64)))
    xb = torch.zeros(2, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="^Negation, the `-` operator, on a bool tensor"):
        F.soft_margin_loss(xb, torch.zeros(2))
    assert F.soft_margin_loss(torch.zeros(2), torch.zeros(2, dtype=L)).dtype == torch.float32


def test_gaussian_nll_loss_int_var_and_check_order():
    x = torch.zeros(2, 2)
    msg = "result type Float can't be cast to the desired output type long int"
    _raises(RuntimeError, msg, lambda: F.gaussian_nll_loss(x, x, torch.ones(2, 2, dtype=L)))
    # a negative var is reported before a wrong size and a bad reduction
    v = -torch.ones(1, 1)
    _raises(
        ValueError,
        "var has negative entry/entries",
        lambda: F.gaussian_nll_loss(torch.zeros(2, 3), torch.zeros(2, 3), v, reduction="bad"),
    )
    _raises(
        ValueError,
        "var is of incorrect size",
        lambda: F.gaussian_nll_loss(
            torch.zeros(2, 3), torch.zeros(2, 3), torch.ones(1, 1), reduction="bad"
        ),
    )


def test_multi_margin_loss_none_takes_target_shape():
    out = F.multi_margin_loss(torch.zeros(1, 3), torch.zeros((), dtype=L), reduction="none")
    assert tuple(out.shape) == ()
    out = F.multi_margin_loss(torch.zeros(3), torch.zeros(1, dtype=L), reduction="none")
    assert tuple(out.shape) == (1,)
    msg = "expected scalar type Double but found Float"
    x = torch.zeros(3, 2, dtype=torch.float64)
    _raises(
        RuntimeError,
        msg,
        lambda: F.multi_margin_loss(x, torch.zeros(3, dtype=L), weight=torch.ones(2)),
    )


def test_nll_loss_spatial_weight_counts_elements():
    msg = "weight tensor should be defined either for all or no classes"
    x, t = torch.zeros(3, 4, 2), torch.zeros(3, 2, dtype=L)
    _raises(RuntimeError, msg, lambda: F.nll_loss(x, t, weight=torch.ones(3)))
    _raises(RuntimeError, msg, lambda: F.cross_entropy(x, t, weight=torch.ones(3)))
    # a (C, 1) weight is taken for a spatial input (torch: 0.5347623229026794 for this input)
    xs = torch.tensor([[-0.3, 1.2, 0.5], [0.1, -0.7, 2.0]]).reshape(2, 3, 1)
    ts = torch.tensor([0, 2]).reshape(2, 1)
    w = torch.arange(3.0)
    ref = F.nll_loss(xs, ts, weight=w)
    got = F.nll_loss(xs, ts, weight=w.reshape(3, 1))
    assert abs(got.item() - ref.item()) < 1e-7
    # but not for a (N, C) one
    msg2 = (
        "weight tensor should be defined either for all 3 classes or no classes but got "
        "weight tensor of shape: [3, 1]"
    )
    _raises(RuntimeError, msg2, lambda: F.nll_loss(xs[..., 0], ts[:, 0], weight=w.reshape(3, 1)))


def test_nll_loss_empty_batch_0d_target():
    t = torch.zeros((), dtype=L)
    msg = "Dimension specified as 0 but tensor has no dimensions"
    _raises(IndexError, msg, lambda: F.nll_loss(torch.zeros(0, 3), t))
    msg = "only batches of spatial targets supported (3D tensors) but got targets of dimension: 0"
    _raises(RuntimeError, msg, lambda: F.nll_loss(torch.zeros(0, 3, 2, 2), t))


def test_cross_entropy_check_order():
    msg = "Expected floating point type for target with class probabilities, got Long"
    _raises(
        RuntimeError,
        msg,
        lambda: F.cross_entropy(torch.zeros(2), torch.zeros(2, dtype=L), ignore_index=0),
    )
    msg = "ignore_index is not supported for floating point target"
    _raises(
        RuntimeError,
        msg,
        lambda: F.cross_entropy(
            torch.zeros(2, 2), torch.zeros(2, 2), ignore_index=0, label_smoothing=1.5
        ),
    )
    msg = (
        "cross_entropy: weight tensor should be defined either for all 3 classes or no "
        "classes but got weight tensor of shape: [2]"
    )
    _raises(
        RuntimeError,
        msg,
        lambda: F.cross_entropy(torch.zeros(2, 3), torch.zeros(2, 3), weight=torch.ones(2)),
    )
    msg = "shape '[1, 1, 1, 1]' is invalid for input of size 3"
    _raises(
        RuntimeError,
        msg,
        lambda: F.cross_entropy(
            torch.zeros(2, 3, 1, 1),
            torch.zeros(2, 1, 1, dtype=L),
            weight=torch.ones(1, 3),
            label_smoothing=0.1,
        ),
    )


def test_bilinear_zero_in1_features():
    msg = "in1_features must be > 0, but got (in1_features=0)"
    _raises(ValueError, msg, lambda: torch.nn.Bilinear(0, 1, 2))
    torch.nn.Bilinear(1, 0, 2)


def test_embedding_bag_padding_idx_message():
    _raises(
        AssertionError,
        "padding_idx must be within num_embeddings",
        lambda: torch.nn.EmbeddingBag(4, 2, padding_idx=9),
    )
    _raises(
        AssertionError,
        "Padding_idx must be within num_embeddings",
        lambda: torch.nn.Embedding(4, 2, padding_idx=-9),
    )


def test_local_response_norm_bad_size():
    msg = "kernel size should be greater than zero, but got kH: 0 kW: 1"
    _raises(RuntimeError, msg, lambda: torch.nn.LocalResponseNorm(0)(torch.ones(1, 3, 4)))
    msg = "kernel size should be greater than zero, but got kT: -1 kH: 1 kW: 1"
    _raises(RuntimeError, msg, lambda: torch.nn.LocalResponseNorm(-1)(torch.ones(1, 3, 4, 4)))
    msg = (
        "pad should be at most half of effective kernel size, but got pad=0, kernel_size=-2 "
        "and dilation=1"
    )
    _raises(RuntimeError, msg, lambda: torch.nn.LocalResponseNorm(-2)(torch.ones(1, 3, 4)))
    assert tuple(torch.nn.LocalResponseNorm(0)(torch.ones(0, 3, 4)).shape) == (0, 3, 4)


def test_rms_norm_and_rnn_rank_messages():
    msg = "Input tensor must have at least 2 dimensions, but got 1"
    _raises(ValueError, msg, lambda: torch.nn.RMSNorm((2, 3))(torch.ones(3)))
    _raises(
        ValueError,
        "RNN: Expected input to be 2D or 3D, got 4D tensor instead",
        lambda: torch.nn.RNN(2, 3)(torch.ones(1, 1, 1, 2)),
    )
    _raises(
        ValueError,
        "LSTM: Expected input to be 2D or 3D, got 1D instead",
        lambda: torch.nn.LSTM(2, 3)(torch.ones(2)),
    )


def test_mha_unbatched_mask_checks():
    m = torch.nn.MultiheadAttention(4, 2)
    q, k = torch.ones(3, 4), torch.ones(5, 4)
    msg = (
        "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
        "found 2-D tensor instead"
    )
    _raises(AssertionError, msg, lambda: m(q, k, k, key_padding_mask=torch.zeros(1, 5).bool()))
    msg = (
        "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
        "found 4-D tensor instead"
    )
    _raises(AssertionError, msg, lambda: m(q, k, k, attn_mask=torch.zeros(1, 1, 3, 5).bool()))
    msg = "Expected `attn_mask` shape to be (2, 3, 5) but got torch.Size([1, 3, 5])"
    _raises(AssertionError, msg, lambda: m(q, k, k, attn_mask=torch.zeros(1, 3, 5).bool()))
    assert tuple(m(q, k, k, attn_mask=torch.zeros(2, 3, 5).bool())[0].shape) == (3, 4)
