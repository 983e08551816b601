"""nn checks found against torch 2.13's legacy nn test tables and its behaviour: batch_norm's eps
checks (positive while training, non-negative otherwise; torch.batch_norm has none) and
torch.threshold's out=. Expected values and messages were printed by torch for the same calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F

_POS = "batch_norm eps must be positive during training, but got {}"
_NONNEG = "batch_norm eps must be non-negative, but got {}"


def _stats():
    return minitorch.zeros(3), minitorch.ones(3)


@pytest.mark.parametrize(
    "eps, training, msg",
    [
        (0.0, True, _POS.format("0.0")),
        (0, True, _POS.format("0")),
        (-1.0, True, _POS.format("-1.0")),
        (-0.0, True, _POS.format("-0.0")),
        (False, True, _POS.format("False")),
        (-1.0, False, _NONNEG.format("-1.0")),
        (-1e-300, False, _NONNEG.format("-1e-300")),
    ],
)
def test_batch_norm_refuses_bad_eps(eps, training, msg):
    rm, rv = _stats()
    x = minitorch.arange(6.0).view(2, 3)
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        F.batch_norm(x, rm, rv, training=training, eps=eps)


def test_batch_norm_eps_check_order():
    rm, rv = _stats()
    # one value per channel is reported first; the eps before the stats' shapes and momentum
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(minitorch.ones(1, 3), rm, rv, training=True, eps=0)
    with pytest.raises(ValueError, match=re.escape(_POS.format("0"))):
        F.batch_norm(minitorch.ones(2, 4), rm, rv, training=True, eps=0)
    with pytest.raises(ValueError, match=re.escape(_POS.format("0"))):
        F.batch_norm(minitorch.ones(0, 3), rm, rv, training=True, eps=0)
    with pytest.raises(ValueError, match=re.escape(_POS.format("0"))):
        F.batch_norm(minitorch.ones(2, 3), rm, rv, training=True, eps=0, momentum="a")


def test_batchnorm_modules_refuse_bad_eps():
    x = minitorch.arange(6.0).view(2, 3)
    m = minitorch.nn.BatchNorm1d(3, eps=0)
    with pytest.raises(ValueError, match=re.escape(_POS.format("0"))):
        m(x)
    m.eval()  # zero is fine without batch statistics
    assert m(x).shape == (2, 3)
    m = minitorch.nn.BatchNorm1d(3, eps=-1e-5).eval()
    with pytest.raises(ValueError, match=re.escape(_NONNEG.format("-1e-05"))):
        m(x)


def test_batch_norm_eps_limits_and_torch_batch_norm():
    x = minitorch.tensor([[1.0, 2.0, 0.0], [3.0, 1.0, 1.0]])
    rm, rv = _stats()
    with pytest.raises(ValueError, match=re.escape(_POS.format("0.0"))):
        F.batch_norm(x, rm, rv, training=True, eps=0.0)
    for eps in (0.0, -0.0, float("nan")):  # eval: zero and NaN pass
        assert F.batch_norm(x, rm, rv, training=False, eps=eps).shape == (2, 3)
    assert F.batch_norm(x, rm, rv, training=True, eps=float("nan")).shape == (2, 3)
    # torch.batch_norm has no such check
    out = minitorch.batch_norm(x, None, None, rm, rv, True, 0.1, 0.0, False)
    np.testing.assert_allclose(
        out.numpy(), [[-1.0, 1.0, -1.0], [1.0, -1.0, 1.0]], rtol=1e-6, atol=1e-6
    )


def test_threshold_out():
    out = minitorch.empty(3)
    r = minitorch.threshold(minitorch.tensor([1.0, 2.0, 3.0]), 1.5, 0.0, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 3.0])
    # an int input into a float out: cast as torch does
    out = minitorch.empty(3)
    minitorch.threshold(minitorch.tensor([1, 2, 3]), 1, 0, out=out)
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 3.0])
    assert out.dtype is minitorch.float32


def test_threshold_out_errors():
    x = minitorch.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"^threshold\(\): functions with out=\.\.\. arguments"):
        minitorch.threshold(x.clone().requires_grad_(), 1.5, 0.0, out=minitorch.empty(3))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        minitorch.threshold(x, 1.5, 0.0, out=minitorch.empty(3, dtype=minitorch.int64))
    with pytest.raises(TypeError, match=r"threshold\(\): argument 'out' must be Tensor, not list"):
        minitorch.threshold(x, 1.5, 0.0, out=[1])
    with minitorch.no_grad():
        out = minitorch.empty(3)
        minitorch.threshold(x.clone().requires_grad_(), 1.5, 0.0, out=out)
    np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 3.0])


_BAG = "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {}"
_FAST = "Index 2 of input takes value 4 which is not in the valid range [0, 4)"


@pytest.mark.parametrize(
    "dtype, mode, padding_idx, msg",
    [
        ("float64", "sum", None, _BAG.format(4)),  # torch's general kernel: the first bad value
        ("float64", "mean", None, _BAG.format(4)),
        ("float32", "max", None, _BAG.format(4)),
        ("float32", "sum", 1, _BAG.format(4)),
        ("bfloat16", "mean", 1, _BAG.format(4)),
        # float32/half sum and mean without padding_idx: the fast kernel's text, no op prefix
        ("float32", "sum", None, _FAST),
        ("float16", "mean", None, _FAST),
    ],
)
def test_embedding_bag_index_range_messages(dtype, mode, padding_idx, msg):
    w = minitorch.arange(20.0).view(4, 5).to(getattr(minitorch, dtype))
    with pytest.raises(RuntimeError, match="^" + re.escape(msg) + "$"):
        F.embedding_bag(
            minitorch.tensor([0, 2, 4, 2, 1]),
            w,
            minitorch.tensor([0]),
            mode=mode,
            padding_idx=padding_idx,
        )


@pytest.mark.parametrize(
    "call",
    [
        lambda r: F.poisson_nll_loss(minitorch.ones(2), minitorch.ones(2), reduction=r),
        lambda r: F.multilabel_soft_margin_loss(
            minitorch.ones(2, 3), minitorch.ones(2, 3), reduction=r
        ),
    ],
)
def test_strict_reduction_name_is_concatenated(call):
    # torch builds the message with `reduction + "..."`: a reduction that is no str is a TypeError
    with pytest.raises(TypeError, match="unsupported operand type"):
        call(None)
    with pytest.raises(TypeError, match="unsupported operand type"):
        call(1)
    with pytest.raises(ValueError, match="^bad is not"):
        call("bad")
