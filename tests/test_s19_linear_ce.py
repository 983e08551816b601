"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss, LinearCrossEntropyOptions (new in torch
2.13) and nn.MultiheadAttention.merge_masks against torch 2.13's behaviour. Expected values
were printed by torch for the same calls."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn import LinearCrossEntropyLoss, LinearCrossEntropyOptions
from minitorch.nn import functional as F

D = minitorch.float64
_FALLBACK = "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in"


def _x(**kw):
    return minitorch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=D, **kw)


def _w():
    rows = [[0.1, 0.2, -0.3], [0.4, -0.5, 0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 0.2]]
    return minitorch.tensor(rows, dtype=D)


def _wk():  # C=2, out_features=(2, 2), in_features=3
    return minitorch.arange(24, dtype=D).reshape(2, 2, 2, 3).sin()


_T = [1, 3]
_TK = [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]
_CW = [1.0, 2.0, 0.5, 3.0]
_P = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.5, 0.0]]


def _close(out, expected, dtype=D):
    assert out.dtype is dtype
    np.testing.assert_allclose(out.detach().numpy(), np.array(expected), rtol=1e-7, atol=1e-9)


# --- values ---


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T)), 0.7835074514),
        (
            lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T), reduction="sum"),
            1.5670149028,
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T), reduction="none"),
            [0.9011068085, 0.6659080943],
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(),
                _w(),
                minitorch.tensor(_T),
                linear_bias=minitorch.tensor([0.1, -0.2, 0.3, 0.0], dtype=D),
            ),
            0.8727983908,
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(), _w(), minitorch.tensor(_T), weight=minitorch.tensor(_CW, dtype=D)
            ),
            0.75998758,
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T), label_smoothing=0.2),
            0.9860074514,
        ),
        # ignore_index=None is -100 for class indices; an explicit one is honoured
        (lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor([1, -100])), 0.9011068085),
        (
            lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T), ignore_index=3),
            0.9011068085,
        ),
        (lambda: F.linear_cross_entropy(_x()[0], _w(), minitorch.tensor(2)), 2.1511068085),
        (lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_P, dtype=D)), 1.9460074514),
        (
            lambda: F.linear_cross_entropy(
                _x(),
                _w(),
                minitorch.tensor(_P, dtype=D),
                label_smoothing=0.1,
                weight=minitorch.tensor(_CW, dtype=D),
            ),
            2.0164625214,
        ),
        (
            lambda: F.linear_cross_entropy(
                _x()[0], _w(), minitorch.tensor(_P[0], dtype=D), reduction="none"
            ),
            1.5011068085,
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _wk(), minitorch.tensor(_TK), reduction="none"),
            [
                [[0.5477305194, 0.5895137941], [0.754150124, 0.7008574878]],
                [[1.2922657513, 0.3461468105], [0.3783430483, 1.0735214537]],
            ],
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(),
                _wk(),
                minitorch.arange(16, dtype=D).reshape(2, 2, 2, 2).cos().abs(),
                reduction="none",
            ),
            [
                [[1.221388426, 0.5479346856], [0.9241719285, 1.2070138054]],
                [[1.1372033312, 1.4338690986], [0.475411376, 0.3224910262]],
            ],
        ),
        (lambda: F.linear_cross_entropy(_x()[:0], _w(), minitorch.tensor(_T)[:0]), float("nan")),
    ],
)
def test_linear_cross_entropy_values(call, expected):
    _close(call(), expected)


def test_linear_cross_entropy_float32():
    x, w = _x().float(), _w().float()
    _close(F.linear_cross_entropy(x, w, minitorch.tensor(_T)), 0.7835074663, minitorch.float32)


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: F.linear_cross_entropy(_x()[None], _w(), minitorch.tensor(_T)),
            RuntimeError,
            "expected input with dimensionality 1 or 2, got 3",
        ),
        (
            lambda: F.linear_cross_entropy(_x()[0, 0], _w(), minitorch.tensor(_T)),
            RuntimeError,
            "expected input with dimensionality 1 or 2, got 0",
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _w()[0], minitorch.tensor(_T)),
            RuntimeError,
            "expected linear_weight with dimensionality at least 2, got 1",
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _w()[:, :2], minitorch.tensor(_T)),
            RuntimeError,
            "expected equal input and linear_weight last dimensions (in_features), got 3 and 2, "
            "respectively",
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(), _w(), minitorch.tensor(_T), linear_bias=minitorch.zeros(3, dtype=D)
            ),
            RuntimeError,
            "expected linear_bias shape (4,), got (3,)",
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(), _wk(), minitorch.tensor(_TK), linear_bias=minitorch.zeros(2, 2, dtype=D)
            ),
            RuntimeError,
            "expected linear_bias shape (2, 2, 2), got (2, 2)",
        ),
        (
            lambda: F.linear_cross_entropy(_x()[0], _wk(), minitorch.tensor(_TK)[0]),
            RuntimeError,
            "K-dimensional loss defined by linear_weight shape (2, 2, 2, 3) requires batched "
            "input, (N, 3), got unbatched input with shape (3,)",
        ),
        (
            lambda: F.linear_cross_entropy(
                _x(), _w(), minitorch.tensor(_P, dtype=D), ignore_index=-100
            ),
            RuntimeError,
            "ignore_index cannot be specified when target contains probabilities",
        ),
        (
            lambda: F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_T), reduction="bogus"),
            ValueError,
            "bogus is not a valid value for reduction",
        ),
    ],
)
def test_linear_cross_entropy_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == msg


# --- gradients: composed from linear and cross_entropy ---


def test_linear_cross_entropy_grads():
    x = _x(requires_grad=True)
    w = minitorch.arange(24, dtype=D).reshape(4, 2, 3).sin().requires_grad_()
    b = minitorch.tensor([[0.1, 0.2], [0.3, 0.4], [-0.1, 0.0], [0.2, 0.5]], dtype=D)
    b.requires_grad_()
    t = minitorch.tensor([[1, 3], [0, -100]])
    cw = minitorch.tensor(_CW, dtype=D)
    loss = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, label_smoothing=0.1)
    gx, gw, gb = minitorch.autograd.grad(loss, (x, w, b))
    _close(
        gx,
        [
            [-0.1911265104, -0.2254781484, -0.0525262166],
            [-0.0322464907, -0.0247476129, 0.0055041061],
        ],
    )
    _close(
        gb,
        [
            [-0.0189005657, 0.1203216045],
            [-0.1666034892, 0.1213113488],
            [0.0906776872, 0.0797717008],
            [0.0948263678, -0.3214046541],
        ],
    )
    _close(
        gw[0],
        [[-0.0877093573, -0.0789232773, 0.1774113232], [0.0601608022, -0.1203216045, 0.2406432089]],
    )

    def f(x, w, b):
        return F.linear_cross_entropy(x, w, t, linear_bias=b, label_smoothing=0.1)

    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    p = minitorch.arange(16, dtype=D).reshape(2, 4, 2).cos().abs()

    def g(x, w, b):
        return F.linear_cross_entropy(x, w, p, linear_bias=b, reduction="none")

    assert gradcheck(g, (x, w, b))
    assert gradgradcheck(g, (x, w, b))


# --- options ---


def test_options_dataclass():
    o = LinearCrossEntropyOptions()
    assert repr(o) == (
        "LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=None, "
        "chunking_method='auto', acc_policy='auto', acc_dtype=None)"
    )
    assert o == LinearCrossEntropyOptions() and hash(o) == hash(LinearCrossEntropyOptions())
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.batch_chunk_size = 3
    assert LinearCrossEntropyOptions.__slots__ == (
        "allow_retain_graph",
        "batch_chunk_size",
        "chunking_method",
        "acc_policy",
        "acc_dtype",
    )
    o = LinearCrossEntropyOptions(True, 4, None, "compact", minitorch.float32)
    assert "acc_policy='compact', acc_dtype=torch.float32)" in repr(o)
    LinearCrossEntropyOptions(chunking_method="aspect_ratio:3")
    from minitorch.nn.modules.linear_cross_entropy_options import LinearCrossEntropyOptions as O

    assert O is LinearCrossEntropyOptions


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(acc_policy="bad"), "invalid acc_policy: 'bad'"),
        (dict(chunking_method="bad"), "invalid chunking_method: 'bad'"),
        (dict(chunking_method="aspect_ratio:0"), "invalid chunking_method: 'aspect_ratio:0'"),
        (dict(chunking_method="aspect_ratio:"), "invalid chunking_method: 'aspect_ratio:'"),
        (dict(batch_chunk_size=0), "batch_chunk_size must be positive int or None, got 0"),
        (dict(batch_chunk_size=2.5), "batch_chunk_size must be positive int or None, got 2.5"),
        (
            dict(acc_dtype=minitorch.int64),
            "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
            "torch.float64}, got torch.int64. Pass acc_dtype=None to let the op pick "
            "automatically.",
        ),
    ],
)
def test_options_validation(kw, msg):
    with pytest.raises(ValueError) as info:
        LinearCrossEntropyOptions(**kw)
    assert str(info.value) == msg


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_options_give_reference_values(reduction):
    t = minitorch.tensor(_T)
    expected = {"mean": 0.7835074514, "sum": 1.5670149028, "none": [0.9011068085, 0.6659080943]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.linear_cross_entropy(
            _x(), _w(), t, reduction=reduction, options=LinearCrossEntropyOptions()
        )
    _close(out, expected[reduction])
    o = LinearCrossEntropyOptions(batch_chunk_size=1)
    out = F.linear_cross_entropy(_x().float(), _w().float(), t, reduction=reduction, options=o)
    assert out.dtype is minitorch.float32
    np.testing.assert_allclose(out.numpy(), expected[reduction], rtol=1e-6)


def test_options_half_accumulates_in_float32():
    x, w, t = _x().half(), _w().half(), minitorch.tensor(_T)
    out = F.linear_cross_entropy(x, w, t, options=LinearCrossEntropyOptions())
    assert out.dtype is minitorch.float16 and out.item() == 0.783203125


def test_options_fallback_warns():
    opts = LinearCrossEntropyOptions()
    with pytest.warns(UserWarning) as rec:
        out = F.linear_cross_entropy(_x(), _wk(), minitorch.tensor(_TK), options=opts)
    _close(out, 0.7103161236)
    assert str(rec[0].message) == (
        _FALLBACK + " {'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
        "out_features == (). Got reduction='mean', label_smoothing=0.0, "
        "target.dtype=torch.int64, out_features=(2, 2), tracing=False, linear_bias.shape=None."
    )
    with pytest.warns(UserWarning, match="label_smoothing=0.2, target.dtype=torch.int64"):
        out = F.linear_cross_entropy(
            _x(), _w(), minitorch.tensor(_T), label_smoothing=0.2, options=opts
        )
    _close(out, 0.9860074514)
    with pytest.warns(UserWarning, match="target.dtype=torch.float64"):
        F.linear_cross_entropy(_x(), _w(), minitorch.tensor(_P, dtype=D), options=opts)


@pytest.mark.parametrize(
    "x, kw, exc, msg",
    [
        (
            _x(),
            dict(batch_chunk_size=2, chunking_method="aspect_ratio"),
            ValueError,
            "batch_chunk_size (=2) and chunking_method ('aspect_ratio') give different chunk "
            "sizes (2 vs 1); pass only one.",
        ),
        (
            _x(),
            dict(batch_chunk_size=2, chunking_method="aspect_ratio:2"),
            ValueError,
            "batch_chunk_size (=2) and chunking_method ('aspect_ratio:2') give different chunk "
            "sizes (2 vs 0); pass only one.",
        ),
        (
            _x(),
            dict(acc_dtype=minitorch.float32),
            RuntimeError,
            "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
            "torch.float32 acc_dtype and torch.float64 inputs.",
        ),
        (
            _x().bfloat16(),
            dict(acc_dtype=minitorch.float16),
            RuntimeError,
            "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
            "torch.float16 acc_dtype and torch.bfloat16 inputs.",
        ),
    ],
)
def test_options_call_errors(x, kw, exc, msg):
    w = _w().to(x.dtype)
    with pytest.raises(exc) as info:
        F.linear_cross_entropy(x, w, minitorch.tensor(_T), options=LinearCrossEntropyOptions(**kw))
    assert str(info.value) == msg


def test_options_agreeing_chunk_size():
    x = minitorch.arange(40, dtype=D).reshape(10, 4).sin()
    w = minitorch.arange(24, dtype=D).reshape(6, 4).cos()
    t = minitorch.arange(10) % 6
    o = LinearCrossEntropyOptions(batch_chunk_size=8, chunking_method="aspect_ratio")
    out = F.linear_cross_entropy(x, w, t, options=o)
    np.testing.assert_allclose(out.item(), 3.3301240197960214)
    with pytest.raises(ValueError, match=r"\(4 vs 8\)"):
        o = LinearCrossEntropyOptions(batch_chunk_size=4, chunking_method="aspect_ratio")
        F.linear_cross_entropy(x, w, t, options=o)


# --- the module ---


def test_module_repr_state_and_errors():
    m = LinearCrossEntropyLoss(3, 4)
    assert repr(m) == (
        "LinearCrossEntropyLoss(\n  in_features=3, num_classes=4, out_features=(), bias=False, "
        "reduction=mean, ignore_index=None, label_smoothing=0.0, options=None\n"
        "  (linear): Linear(in_features=3, out_features=4, bias=False)\n)"
    )
    assert list(m.state_dict()) == ["linear.weight"]
    m = LinearCrossEntropyLoss(
        3,
        4,
        out_features=(2, 5),
        bias=True,
        reduction="sum",
        weight=minitorch.ones(4),
        ignore_index=-1,
        label_smoothing=0.1,
        options=LinearCrossEntropyOptions(batch_chunk_size=2),
        dtype=D,
    )
    assert repr(m).splitlines()[1] == (
        "  in_features=3, num_classes=4, out_features=(2, 5), bias=True, reduction=sum, "
        "ignore_index=-1, label_smoothing=0.1, options=LinearCrossEntropyOptions("
        "allow_retain_graph=False, batch_chunk_size=2, chunking_method='auto', "
        "acc_policy='auto', acc_dtype=None)"
    )
    state = m.state_dict()
    assert list(state) == ["weight", "linear.weight", "linear.bias"]
    assert state["linear.weight"].shape == (40, 3) and state["linear.bias"].dtype is D
    assert state["weight"].dtype is minitorch.float32
    assert m.__constants__ == [
        "num_classes",
        "out_features",
        "reduction",
        "ignore_index",
        "label_smoothing",
    ]
    for kw, msg in [
        (dict(weight=minitorch.ones(3)), "expected weight shape to be (4,), got (3,)"),
        (dict(label_smoothing=1.5), "expected label_smoothing to be in range [0, 1], got 1.5"),
        (dict(label_smoothing=-0.1), "expected label_smoothing to be in range [0, 1], got -0.1"),
    ]:
        with pytest.raises(RuntimeError) as info:
            LinearCrossEntropyLoss(3, 4, **kw)
        assert str(info.value) == msg


def test_module_forward():
    m = LinearCrossEntropyLoss(
        3,
        4,
        out_features=(2, 5),
        bias=True,
        reduction="sum",
        weight=minitorch.ones(4, dtype=D) * 1.5,
        ignore_index=-1,
        label_smoothing=0.1,
        dtype=D,
    )
    with minitorch.no_grad():
        m.linear.weight.copy_(minitorch.arange(120, dtype=D).reshape(40, 3).sin())
        m.linear.bias.copy_(minitorch.arange(40, dtype=D).cos())
    t = minitorch.tensor([[[0, 1, 2, 3, 0], [1, 2, 3, 0, 1]], [[3, 3, 2, 1, -1], [0, 0, 0, 1, 1]]])
    _close(m(_x(), t), 49.99277016982638)
    m.ignore_index = None
    p = minitorch.arange(80, dtype=D).reshape(2, 4, 2, 5).cos().abs()
    _close(m(_x(), p), 159.65123817503934)
    m(_x(), p).backward()
    assert m.linear.weight.grad.shape == (40, 3) and m.linear.bias.grad.shape == (40,)


# --- MultiheadAttention.merge_masks ---


def test_merge_masks():
    m = minitorch.nn.MultiheadAttention(4, 2, batch_first=True)
    q = minitorch.zeros(2, 3, 4)
    am = minitorch.tensor([[False, True, False], [False, False, True], [True, False, False]])
    kp = minitorch.tensor([[False, False, True], [True, False, False]])
    assert m.merge_masks(None, None, q) == (None, None)
    mask, kind = m.merge_masks(None, kp, q)
    assert mask is kp and kind == 1
    mask, kind = m.merge_masks(am, None, q)
    assert kind == 2 and mask.shape == (2, 2, 3, 3) and mask.stride() == (0, 0, 3, 1)
    assert mask.tolist() == [[am.tolist()] * 2] * 2
    mask, kind = m.merge_masks(am, kp, q)
    assert kind == 2 and mask.dtype is minitorch.bool and mask.stride() == (18, 9, 3, 1)
    assert mask[1, 1].tolist() == [[True, True, False], [True, False, True], [True, False, False]]
    mask, kind = m.merge_masks(am.float() * -1e9, kp.float(), q)
    assert mask.dtype is minitorch.float32 and mask[0, 0, 0].tolist() == [0.0, -1e9, 1.0]
    a3 = minitorch.arange(36).reshape(4, 3, 3) % 2 == 0
    mask, kind = m.merge_masks(a3, kp, q)
    assert mask[1, 1].tolist() == [[True, True, False], [True, False, True], [True, True, False]]
    with pytest.raises(RuntimeError, match=r"'\[1, 1, 3, 3\]' is invalid for input of size 4"):
        m.merge_masks(minitorch.zeros(2, 2, dtype=minitorch.bool), None, q)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        m.merge_masks(am, None, minitorch.zeros(3, 4))
