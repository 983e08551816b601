"""nn differences found by the second torch-vs-minitorch sweep, checked without torch:
AdaptiveLogSoftmaxWithLoss, FractionalMaxPool2d/3d, CrossMapLRN2d, lp_pool with p = inf,
gaussian_nll_loss's variance shapes, PackedSequence's integer casts, regression losses with
bool / integer tensors, and the exception types of bad dtypes (norms, PReLU, LSTM, pooling,
embedding_bag)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.utils.rnn import pack_sequence

# a tail projection 6 // 8 wide is empty, and torch warns about it the same way
pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")


def _np(t):
    return t.detach().cpu().numpy()


def _rng(seed=0):
    return np.random.default_rng(seed)


def _log_softmax(a):
    a = a - a.max(1, keepdims=True)
    return a - np.log(np.exp(a).sum(1, keepdims=True))


# --- AdaptiveLogSoftmaxWithLoss ---


def _asm(dtype=mt.float64, **kw):
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 15, cutoffs=[4, 8, 12], div_value=2.0, dtype=dtype, **kw)
    rng = _rng(1)
    with mt.no_grad():
        for p in m.parameters():
            p.copy_(mt.tensor(rng.standard_normal(tuple(p.shape))))
    return m


def _asm_reference(m, x):
    """(n_classes) log-probabilities from the module's weights, in NumPy: head over the
    shortlist and the cluster nodes, each cluster's log-softmax added to its node's."""
    w = {k: _np(v) for k, v in m.state_dict().items()}
    head = x @ w["head.weight"].T
    if "head.bias" in w:
        head = head + w["head.bias"]
    head = _log_softmax(head)
    parts = [head[:, :4]]
    for i in range(3):
        hidden = x @ w[f"tail.{i}.0.weight"].T
        parts.append(_log_softmax(hidden @ w[f"tail.{i}.1.weight"].T) + head[:, 4 + i : 5 + i])
    return np.concatenate(parts, 1)


def test_adaptive_log_softmax_structure():
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 15, cutoffs=[4, 8], div_value=2.0)
    shapes = [(k, tuple(v.shape)) for k, v in m.state_dict().items()]
    assert shapes == [
        ("head.weight", (6, 6)),
        ("tail.0.0.weight", (3, 6)),
        ("tail.0.1.weight", (4, 3)),
        ("tail.1.0.weight", (1, 6)),
        ("tail.1.1.weight", (7, 1)),
    ]
    assert (m.shortlist_size, m.n_clusters, m.head_size, m.cutoffs) == (4, 2, 6, [4, 8, 15])
    assert repr(m) == (
        "AdaptiveLogSoftmaxWithLoss(\n"
        "  (head): Linear(in_features=6, out_features=6, bias=False)\n"
        "  (tail): ModuleList(\n"
        "    (0): Sequential(\n"
        "      (0): Linear(in_features=6, out_features=3, bias=False)\n"
        "      (1): Linear(in_features=3, out_features=4, bias=False)\n"
        "    )\n"
        "    (1): Sequential(\n"
        "      (0): Linear(in_features=6, out_features=1, bias=False)\n"
        "      (1): Linear(in_features=1, out_features=7, bias=False)\n"
        "    )\n"
        "  )\n"
        ")"
    )
    assert nn.AdaptiveLogSoftmaxWithLoss(6, 15, [4], head_bias=True).head.bias.shape == (5,)


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_values(head_bias):
    m = _asm(head_bias=head_bias)
    x = _rng(2).standard_normal((9, 6))
    target = [0, 5, 9, 14, 3, 12, 13, 8, 7]
    out = m(mt.tensor(x), mt.tensor(target))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    full = _asm_reference(m, x)
    want = full[np.arange(9), target]
    np.testing.assert_allclose(_np(out.output), want, rtol=1e-12, err_msg="output")
    np.testing.assert_allclose(_np(out.loss), -want.mean(), rtol=1e-12, err_msg="loss")
    np.testing.assert_allclose(_np(m.log_prob(mt.tensor(x))), full, rtol=1e-12)
    np.testing.assert_array_equal(_np(m.predict(mt.tensor(x))), full.argmax(1))
    # unbatched: a 1-d input with a 0-d target gives 0-d output and loss
    one = m(mt.tensor(x[3]), mt.tensor(14))
    assert one.output.shape == () and one.loss.shape == ()
    np.testing.assert_allclose(_np(one.output), full[3, 14], rtol=1e-12)


def test_adaptive_log_softmax_device_path(device):
    # off the host the tails run on every row (no host read): same values as the reference
    m = _asm().to(device)
    x = _rng(3).standard_normal((7, 6))
    target = [14, 0, 9, 4, 11, 2, 8]
    out = m(mt.tensor(x, device=device), mt.tensor(target, device=device))
    want = _asm_reference(m, x)[np.arange(7), target]
    np.testing.assert_allclose(_np(out.output), want, rtol=1e-12)
    # the two ways of computing one cluster's term agree, rows outside it included (0 there)
    xt, tt = mt.tensor(x, device=device), mt.tensor(target, device=device)
    for i in range(3):
        a = m._cluster_logprob(i, xt, tt, on_host=False)
        b = m._cluster_logprob(i, xt, tt, on_host=True)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, err_msg=f"cluster {i}")


def test_adaptive_log_softmax_gradcheck():
    m = _asm(head_bias=True)
    target = mt.tensor([0, 5, 9, 14, 3])
    x = mt.tensor(_rng(4).standard_normal((5, 6)), requires_grad=True)
    assert gradcheck(lambda a: m(a, target).loss, (x,))
    assert gradcheck(lambda a: m(a, target).output, (x,))
    assert gradgradcheck(lambda a: m(a, target).loss, (x,))


@pytest.mark.parametrize(
    "cutoffs, msg",
    [
        ([], "cutoffs should be a sequence of length larger than 0"),
        ([4, 4], "cutoffs should be a sequence of unique, positive integers"),
        ([8, 4], "cutoffs should be a sequence of unique, positive integers"),
        ([0, 4], "cutoffs should be a sequence of unique, positive integers"),
        ([4, 15], "cutoffs should be a sequence of unique, positive integers"),
        ([4.5], "cutoffs should be a sequence of unique, positive integers"),
    ],
)
def test_adaptive_log_softmax_bad_cutoffs(cutoffs, msg):
    with pytest.raises(ValueError, match=msg):
        nn.AdaptiveLogSoftmaxWithLoss(6, 15, cutoffs=cutoffs)


def test_adaptive_log_softmax_errors():
    m = nn.AdaptiveLogSoftmaxWithLoss(6, 15, cutoffs=[4, 8])
    x = mt.randn(5, 6)
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 14\], but values in "
                       r"range \[0, 15\] were found"):  # fmt: skip
        m(x, mt.tensor([0, 1, 2, 15, 3]))
    with pytest.raises(RuntimeError, match=r"range \[-1, 3\]"):
        m(x, mt.tensor([0, 1, 2, -1, 3]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(x, mt.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        m(mt.randn(5, 2, 6), mt.tensor([0, 1, 2, 3, 4]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors"):
        m(x, mt.tensor(1))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        m(x, mt.zeros(5, 1, dtype=mt.long))


# --- gaussian_nll_loss: a variance shared along any one dim ---


def _gaussian_nll(inp, tgt, var):
    var = np.maximum(var, 1e-6)
    return (0.5 * (np.log(var) + (inp - tgt) ** 2 / var)).mean()


@pytest.mark.parametrize(
    "in_shape, var_shape",
    [((4, 3, 5, 5), (4, 1, 5, 5)), ((4, 3, 5, 5), (1, 3, 5, 5)), ((5, 3), (1, 3)), ((5, 3), (5,))],
)
def test_gaussian_nll_loss_var_broadcast_dim(in_shape, var_shape):
    rng = _rng(5)
    inp, tgt = rng.standard_normal(in_shape), rng.standard_normal(in_shape)
    var = rng.random(var_shape) + 0.5
    got = F.gaussian_nll_loss(mt.tensor(inp), mt.tensor(tgt), mt.tensor(var))
    ref_var = var if len(var_shape) == len(in_shape) else var[..., None]
    np.testing.assert_allclose(_np(got), _gaussian_nll(inp, tgt, ref_var), rtol=1e-12)
    got_m = nn.GaussianNLLLoss()(mt.tensor(inp), mt.tensor(tgt), mt.tensor(var))
    np.testing.assert_allclose(_np(got_m), _np(got), rtol=0)


@pytest.mark.parametrize("var_shape", [(2, 3), (1, 1), (4, 3, 1), (3,)])
def test_gaussian_nll_loss_var_wrong_size(var_shape):
    # torch's rule: same rank, and var's sizes at the dims that differ add up to exactly 1
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(mt.zeros(4, 3), mt.zeros(4, 3), mt.ones(var_shape))


def test_gaussian_nll_loss_var_broadcast_grad():
    rng = _rng(6)
    inp = mt.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    var = mt.tensor(rng.random((3, 1, 4)) + 0.5, requires_grad=True)
    tgt = mt.tensor(rng.standard_normal((3, 2, 4)))
    assert gradcheck(lambda a, v: F.gaussian_nll_loss(a, tgt, v), (inp, var))


# --- lp_pool with norm_type = +-inf ---


def test_lp_pool_inf_is_max_of_abs():
    x = mt.tensor([[[0.5, 2.0, -3.0, 0.1]]])
    np.testing.assert_array_equal(_np(nn.LPPool1d(float("inf"), 2)(x)), [[[2.0, 3.0]]])
    mins = np.array([[[0.5, 0.1]]], np.float32)
    np.testing.assert_array_equal(_np(F.lp_pool1d(x, -math.inf, 2)), mins)
    np.testing.assert_array_equal(
        _np(F.lp_pool2d(x.unsqueeze(0), float("inf"), (1, 2))), [[[[2.0, 3.0]]]]
    )
    np.testing.assert_array_equal(_np(nn.LPPool2d(-math.inf, (1, 2))(x.unsqueeze(0))), mins[None])
    x3 = mt.tensor(_rng(7).standard_normal((1, 2, 4, 4, 4)))
    want = np.abs(_np(x3)).reshape(1, 2, 2, 2, 2, 2, 2, 2).max((3, 5, 7))
    np.testing.assert_array_equal(_np(F.lp_pool3d(x3, math.inf, 2)), want)


def test_lp_pool_inf_gradient():
    x = mt.tensor([[[0.5, 2.0, -3.0, 0.1]]], dtype=mt.float64, requires_grad=True)
    F.lp_pool1d(x, math.inf, 2).backward(mt.tensor([[[2.0, 3.0]]], dtype=mt.float64))
    np.testing.assert_array_equal(_np(x.grad), [[[0.0, 2.0, -3.0, 0.0]]])
    x.grad = None
    F.lp_pool1d(x, -math.inf, 2).backward(mt.tensor([[[2.0, 3.0]]], dtype=mt.float64))
    np.testing.assert_array_equal(_np(x.grad), [[[2.0, 0.0, 0.0, 3.0]]])
    y = mt.tensor(_rng(8).standard_normal((1, 2, 4, 6)), requires_grad=True)
    assert gradcheck(lambda a: F.lp_pool2d(a, math.inf, 2), (y,))


# --- fractional max pooling ---


def _ref_starts(u, size, out, k, npdt):
    """torch's documented sequence: trunc((i + u) * alpha) - trunc(u * alpha), the last window at
    the end, alpha = (size - k) / (out - 1), all in the input's float type."""
    if out == 1:
        return [size - k]
    alpha = npdt(size - k) / npdt(out - 1)
    u = npdt(u)
    return [int((npdt(i) + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - k]


def _ref_fractional(x, k, out, samples, col):
    """(values, flat indices) of x (N, C, *have): the first max of each window."""
    n = len(k)
    have = x.shape[2:]
    N, C = x.shape[:2]
    vals = np.empty((N, C, *out), x.dtype)
    idx = np.empty((N, C, *out), np.int64)
    for b in range(N):
        for c in range(C):
            starts = [
                _ref_starts(samples[b, c, col[d]], have[d], out[d], k[d], x.dtype.type)
                for d in range(n)
            ]
            for o in np.ndindex(*out):
                window = tuple(slice(starts[d][o[d]], starts[d][o[d]] + k[d]) for d in range(n))
                w = x[b, c][window]
                j = np.unravel_index(int(w.argmax()), w.shape)
                pos = tuple(starts[d][o[d]] + j[d] for d in range(n))
                vals[(b, c, *o)] = w[j]
                idx[(b, c, *o)] = np.ravel_multi_index(pos, have)
    return vals, idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "have, k, out", [((10, 11), (2, 2), (4, 5)), ((9, 7), (3, 2), (3, 6)), ((7, 7), (1, 4), (7, 1))]
)
def test_fractional_max_pool2d_given_samples(dtype, have, k, out):
    rng = _rng(9)
    x = rng.standard_normal((2, 3, *have)).astype(dtype)
    u = rng.random((2, 3, 2)).astype(dtype)
    vals, idx = F.fractional_max_pool2d(
        mt.tensor(x), k, output_size=out, return_indices=True, _random_samples=mt.tensor(u)
    )
    # torch's kernel: sample 0 drives the width, sample 1 the height
    want_v, want_i = _ref_fractional(x, k, out, u, col=(1, 0))
    np.testing.assert_array_equal(_np(idx), want_i)
    np.testing.assert_array_equal(_np(vals), want_v)
    assert idx.dtype == mt.int64 and vals.dtype == mt.tensor(x).dtype


def test_fractional_max_pool2d_known_windows():
    # alpha = 8 / 3: u = 0 gives starts 0, 2, 5, 8 and u = 0.9 gives 0, 3, 5, 8
    x = mt.arange(100.0).reshape(1, 1, 10, 10)
    _, idx = F.fractional_max_pool2d_with_indices(
        x, 2, output_size=4, _random_samples=mt.tensor([[[0.0, 0.9]]])
    )
    rows, cols = [1, 4, 6, 9], [1, 3, 6, 9]
    np.testing.assert_array_equal(_np(idx)[0, 0], [[r * 10 + c for c in cols] for r in rows])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool3d_given_samples(dtype):
    rng = _rng(10)
    x = rng.standard_normal((2, 2, 7, 8, 9)).astype(dtype)
    u = rng.random((2, 2, 3)).astype(dtype)
    k, out = (2, 3, 2), (4, 3, 5)
    vals, idx = F.fractional_max_pool3d(
        mt.tensor(x), k, output_size=out, return_indices=True, _random_samples=mt.tensor(u)
    )
    want_v, want_i = _ref_fractional(x, k, out, u, col=(0, 1, 2))  # (time, height, width)
    np.testing.assert_array_equal(_np(idx), want_i)
    np.testing.assert_array_equal(_np(vals), want_v)


def test_fractional_max_pool_nan_and_unbatched():
    x = np.arange(36.0).reshape(1, 6, 6)
    x[0, 0, 1] = x[0, 1, 0] = np.nan  # torch's kernel keeps the window's last NaN
    u = mt.tensor([[[0.0, 0.0]]], dtype=mt.float64)
    vals, idx = F.fractional_max_pool2d(
        mt.tensor(x), 2, output_size=3, return_indices=True, _random_samples=u
    )
    assert vals.shape == (1, 3, 3) and idx.shape == (1, 3, 3)
    assert int(idx[0, 0, 0]) == 6 and math.isnan(float(vals[0, 0, 0]))


def test_fractional_max_pool_gradients():
    rng = _rng(11)
    x = mt.tensor(rng.standard_normal((1, 2, 7, 6)), requires_grad=True)
    u = mt.tensor(rng.random((1, 2, 2)))
    out = F.fractional_max_pool2d(x, 2, output_size=(3, 4), _random_samples=u)
    assert out.grad_fn.name() == "FractionalMaxPool2DBackward0"
    assert gradcheck(lambda a: F.fractional_max_pool2d(a, 2, (3, 4), _random_samples=u), (x,))
    assert gradgradcheck(lambda a: F.fractional_max_pool2d(a, 2, (3, 4), _random_samples=u), (x,))
    y = mt.tensor(rng.standard_normal((1, 1, 5, 6, 5)), requires_grad=True)
    v = mt.tensor(rng.random((1, 1, 3)))
    assert gradcheck(lambda a: F.fractional_max_pool3d(a, 2, 3, _random_samples=v), (y,))


def test_fractional_max_pool_modules():
    m = nn.FractionalMaxPool2d(3, output_ratio=0.5)
    assert repr(m) == "FractionalMaxPool2d()"
    assert (m.kernel_size, m.output_size, m.output_ratio) == ((3, 3), None, (0.5, 0.5))
    assert m(mt.ones(2, 3, 10, 11)).shape == (2, 3, 5, 5)
    m = nn.FractionalMaxPool2d(2, output_size=(4, 5), return_indices=True)
    vals, idx = m(mt.randn(3, 10, 11))
    assert vals.shape == idx.shape == (3, 4, 5)
    assert nn.FractionalMaxPool3d(2, output_ratio=0.5)(mt.ones(1, 2, 8, 8, 8)).shape == (
        1,
        2,
        4,
        4,
        4,
    )
    u = mt.rand(1, 1, 2)
    fixed = nn.FractionalMaxPool2d(2, output_size=3, _random_samples=u)
    assert list(fixed.state_dict()) == ["_random_samples"]
    x = mt.randn(1, 1, 7, 7)
    np.testing.assert_array_equal(_np(fixed(x)), _np(fixed(x)))  # fixed windows
    assert "_random_samples" not in nn.FractionalMaxPool2d(2, output_size=3).state_dict()


def test_fractional_max_pool_errors():
    with pytest.raises(ValueError, match="requires specifying either an output size, or a pool"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.0\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.0)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an output"):
        F.fractional_max_pool3d(mt.ones(1, 1, 4, 4, 4), 2)
    x = mt.randn(2, 3, 10, 11)
    with pytest.raises(RuntimeError, match="pool height 4 too large relative to input height 10"):
        F.fractional_max_pool2d(x, 4, output_size=8)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor, but got: "):
        F.fractional_max_pool2d(mt.ones(1, 2, 3, 10, 11), 2, output_size=4)
    with pytest.raises(RuntimeError, match="size\\(2\\) equals to 2; got 3"):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=mt.rand(2, 3, 3))
    with pytest.raises(RuntimeError, match="no less then input batch size"):
        F.fractional_max_pool2d(x, 2, output_size=4, _random_samples=mt.rand(1, 3, 2))
    with pytest.raises(RuntimeError, match="same dtype as input"):
        F.fractional_max_pool2d(
            x, 2, output_size=4, _random_samples=mt.rand(2, 3, 2, dtype=mt.float64)
        )
    # the 3-d kernel wants the last window to end before the input's end (time, width, height)
    y = mt.randn(1, 1, 5, 4, 6)
    with pytest.raises(RuntimeError, match="fractional_max_pool3d_out\\(\\): pool time 1 too"):
        F.fractional_max_pool3d(y, 1, output_size=(5, 3, 5))
    with pytest.raises(RuntimeError, match="pool width 1 too large relative to input width 6"):
        F.fractional_max_pool3d(y, 1, output_size=(4, 4, 6))
    assert F.fractional_max_pool3d(y, 1, output_size=(4, 3, 5)).shape == (1, 1, 4, 3, 5)


# --- CrossMapLRN2d ---


def _ref_cross_map(x, g, size, alpha, beta, k):
    """torch's CrossMapLRN2d in NumPy: the forward window keeps channel 0 once passed; the
    backward sums over [c - p, c + size - 1 - p] (p = (size + 1) // 2)."""
    C = x.shape[1]
    p = (size + 1) // 2
    sq = x**2
    scale = np.empty_like(x)
    for c in range(C):
        js = set(range(max(c - p + 1, 0), min(c + p - 1, C - 1) + 1)) | {0}
        scale[:, c] = sum(sq[:, j] for j in js)
    scale = k + alpha / size * scale
    out = x * scale**-beta
    ratio = g * out / scale
    grad = scale**-beta * g
    for c in range(C):
        acc = sum(ratio[:, j] for j in range(max(c - p, 0), min(c + size - 1 - p, C - 1) + 1))
        grad[:, c] -= 2 * alpha * beta / size * x[:, c] * acc
    return out, grad


def test_cross_map_lrn2d_repro_values():
    m = nn.CrossMapLRN2d(3, alpha=0.01, beta=0.5, k=2.0)
    assert repr(m) == "CrossMapLRN2d(3, alpha=0.01, beta=0.5, k=2.0)"
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    out = m(mt.ones(1, 4, 2, 2))[0, :, 0, 0]
    # channel sums of squares 2, 3, 4, 3: channel 3's window [2, 3] plus the stale channel 0
    want = [(2 + 0.01 / 3 * n) ** -0.5 for n in (2, 3, 4, 3)]
    np.testing.assert_allclose(_np(out), want, rtol=1e-6)


@pytest.mark.parametrize("size", [2, 3, 4, 5])
@pytest.mark.parametrize("channels", [1, 3, 7])
def test_cross_map_lrn2d_matches_reference(size, channels):
    rng = _rng(size * 10 + channels)
    x = rng.standard_normal((2, channels, 3, 2))
    g = rng.standard_normal(x.shape)
    xt = mt.tensor(x, requires_grad=True)
    out = nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.5)(xt)
    out.backward(mt.tensor(g))
    want_out, want_grad = _ref_cross_map(x, g, size, 0.3, 0.7, 1.5)
    np.testing.assert_allclose(_np(out), want_out, rtol=1e-12, err_msg="forward")
    np.testing.assert_allclose(_np(xt.grad), want_grad, rtol=1e-10, err_msg="backward")
    assert out.grad_fn.name() == "CrossMapLRN2dBackward"


def test_cross_map_lrn2d_errors():
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead"):
        nn.CrossMapLRN2d(3)(mt.ones(2, 3, 4))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        nn.CrossMapLRN2d(3)(mt.ones(1, 2, 2, 2, dtype=mt.long))


# --- PackedSequence casts ---


@pytest.mark.parametrize(
    "method, dtype",
    [("long", mt.int64), ("int", mt.int32), ("short", mt.int16), ("char", mt.int8),
     ("byte", mt.uint8)],
)  # fmt: skip
def test_packed_sequence_integer_casts(method, dtype):
    p = pack_sequence([mt.tensor([1.0, 2.0, 3.0]), mt.tensor([4.0, 5.0])], enforce_sorted=False)
    q = getattr(p, method)()
    assert type(q) is type(p) and q.data.dtype == dtype
    np.testing.assert_array_equal(_np(q.data), [1, 4, 2, 5, 3])
    assert q.batch_sizes is p.batch_sizes
    np.testing.assert_array_equal(_np(q.sorted_indices), _np(p.sorted_indices))


def test_packed_sequence_pin_memory():
    p = pack_sequence([mt.tensor([1.0, 2.0]), mt.tensor([3.0])])
    try:
        p.data.pin_memory()
    except RuntimeError as e:  # no accelerator here: the same error as the tensor's
        with pytest.raises(RuntimeError, match=str(e)[:30]):
            p.pin_memory()
        return
    q = p.pin_memory()
    assert q.is_pinned() and q.batch_sizes is p.batch_sizes


# --- regression losses: promotion before the float-only kernels ---


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_loss_bool_target(name):
    pred = np.array([0.2, 0.9, 0.4], np.float32)
    d = np.abs(pred - [0.0, 1.0, 0.0])
    want = {
        "mse_loss": (d**2).mean(),
        "smooth_l1_loss": np.where(d < 1, 0.5 * d**2, d - 0.5).mean(),
        "huber_loss": np.where(d < 1, 0.5 * d**2, d - 0.5).mean(),
    }[name]
    x = mt.tensor(pred, requires_grad=True)
    got = getattr(F, name)(x, mt.tensor([False, True, False]))
    assert got.dtype == mt.float32
    np.testing.assert_allclose(_np(got), want, rtol=1e-6)
    if name == "huber_loss":  # torch's backward kernel takes one dtype (test_s60_functional.py)
        with pytest.raises(RuntimeError, match="^Found dtype Bool but expected Float$"):
            got.backward()
    else:
        got.backward()
        assert x.grad is not None and x.grad.dtype == mt.float32
    x64 = mt.tensor([0.5, 0.5], dtype=mt.float64)
    assert getattr(F, name)(x64, mt.tensor([False, True])).dtype == mt.float64


@pytest.mark.parametrize(
    "name, kernel", [("mse_loss", "mse_cpu"), ("smooth_l1_loss", "smooth_l1_cpu"),
                     ("huber_loss", "huber_cpu")],
)  # fmt: skip
def test_regression_loss_integer_inputs(name, kernel):
    fn = getattr(F, name)
    long = mt.tensor([0, 1, 2])
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
        fn(long, long)
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Long'"):
        fn(long, mt.tensor([True, False, True]), reduction="none")
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
        fn(mt.tensor([True]), mt.tensor([False]))


def test_regression_loss_mixed_dtypes():
    f = mt.tensor([0.2, 0.9, 0.4])
    long = mt.tensor([0, 1, 2])
    # mse / smooth_l1 promote an integer input; huber writes into the input's dtype
    np.testing.assert_allclose(_np(F.mse_loss(long, f)), 0.87, rtol=1e-6)
    assert F.smooth_l1_loss(long, f.double()).dtype == mt.float64
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output"):
        F.huber_loss(long, f)
    with pytest.raises(
        RuntimeError, match="result type Double can't be cast to the desired output"
    ):
        F.huber_loss(mt.tensor([True, False, True]), f.double())
    assert F.huber_loss(f, f.double()).dtype == mt.float32


# --- exception types for bad dtypes ---


def test_norm_dtype_errors():
    long = mt.ones(2, 4, dtype=mt.long)
    # integer input with float parameters: the mixed-dtype check comes first (RuntimeError)
    with pytest.raises(RuntimeError, match="mixed dtype"):
        nn.LayerNorm(4)(long)
    with pytest.raises(RuntimeError, match="mixed dtype"):
        nn.GroupNorm(2, 4)(long)
    with pytest.raises(NotImplementedError, match="LayerNormKernelImpl"):
        F.layer_norm(long, (4,))
    with pytest.raises(NotImplementedError, match="GroupNormKernelImpl"):
        F.group_norm(long, 2)
    # batch_norm refuses the integer input before comparing dtypes
    with pytest.raises(NotImplementedError, match="\"batch_norm\" not implemented for 'Long'"):
        nn.BatchNorm1d(4)(long)
    with pytest.raises(NotImplementedError, match="\"batch_norm\" not implemented for 'Long'"):
        nn.BatchNorm1d(4).eval()(long)
    with pytest.raises(NotImplementedError, match="\"rms_norm\" not implemented for 'Long'"):
        F.rms_norm(long, (4,))
    with pytest.raises(NotImplementedError, match="\"rms_norm\" not implemented for 'Bool'"):
        nn.RMSNorm(4)(long.bool())
    with pytest.raises(RuntimeError, match="mixed dtype"):
        nn.BatchNorm1d(4)(long.double())


def test_lstm_packed_dtype_mismatch_is_runtime_error():
    packed = pack_sequence([mt.ones(2, 4, dtype=mt.float64)])
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                       "Double and Float"):  # fmt: skip
        nn.LSTM(4, 3)(packed)
    # GRU and RNN check packed input as torch's do; LSTM checks a padded one
    with pytest.raises(ValueError, match="does not match weight dtype"):
        nn.GRU(4, 3)(packed)
    with pytest.raises(ValueError, match="does not match weight dtype"):
        nn.LSTM(4, 3)(mt.ones(2, 4, dtype=mt.float64))


def test_prelu_dtype_errors():
    with pytest.raises(RuntimeError, match="prelu: Type promoting not supported. Got Double and "
                       "Float"):  # fmt: skip
        nn.PReLU()(mt.ones(3, dtype=mt.float64))
    with pytest.raises(RuntimeError, match="Got Long and Float"):
        nn.PReLU()(mt.ones(3, dtype=mt.long))
    with pytest.raises(RuntimeError, match="Got Float and Double"):
        F.prelu(mt.ones(2, 3), mt.ones(3, dtype=mt.float64))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.prelu(mt.ones(3, dtype=mt.long), mt.ones(1, dtype=mt.long))
    out = nn.PReLU(dtype=mt.float64)(mt.tensor([-2.0, 3.0], dtype=mt.float64))
    np.testing.assert_allclose(_np(out), [-0.5, 3.0])


def test_max_pool1d_integer_values_only():
    x = mt.tensor([[[1, 5, 2, 7]]])
    with pytest.raises(NotImplementedError, match="\"max_pool1d_impl\" not implemented for 'Long'"):
        F.max_pool1d(x, 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        nn.MaxPool1d(2)(x)
    vals, idx = F.max_pool1d(x, 2, return_indices=True)  # torch's indices path takes integers
    np.testing.assert_array_equal(_np(vals), [[[5, 7]]])
    np.testing.assert_array_equal(_np(idx), [[[1, 3]]])
    assert F.max_pool2d(x.unsqueeze(0), (1, 2)).dtype == mt.int64


def test_embedding_bag_max_mode_options():
    w = mt.ones(3, 2)
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient by the "
                       "frequency"):  # fmt: skip
        F.embedding_bag(mt.tensor([1, 2]), w, mt.tensor([0]), mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        F.embedding_bag(mt.tensor([1, 2]), w, mt.tensor([0]), mode="max", sparse=True)
    with pytest.raises(ValueError, match="max mode does not support scaling"):
        nn.EmbeddingBag(3, 2, mode="max", scale_grad_by_freq=True)(mt.tensor([[1, 2]]))


def test_avg_pool3d_input_smaller_than_kernel():
    # torch's 3-d check ignores the padding: a 2-long side is too small for a 3-wide kernel
    with pytest.raises(RuntimeError, match=r"input image \(T: 2 H: 2 W: 2\) smaller than kernel "
                       r"size \(kT: 3 kH: 3 kW: 3\)"):  # fmt: skip
        F.avg_pool3d(mt.ones(1, 1, 2, 2, 2), 3, 2, 1)
    assert F.avg_pool3d(mt.ones(1, 1, 3, 3, 3), 3, 2, 1, ceil_mode=True).shape == (1, 1, 2, 2, 2)
    assert F.max_pool3d(mt.ones(1, 1, 2, 2, 2), 3, 2, 1).shape == (1, 1, 1, 1, 1)


@pytest.mark.parametrize("mode, kernel", [("reflect", "reflection"), ("replicate", "replication")])
def test_pad_bool_modes(mode, kernel):
    for k, shape in ((1, (1, 1, 3)), (2, (1, 1, 3, 3)), (3, (1, 1, 3, 3, 3))):
        x = mt.ones(shape, dtype=mt.bool)
        with pytest.raises(NotImplementedError, match=f'"{kernel}_pad{k}d" not implemented'):
            F.pad(x, (1, 1) * k, mode=mode)
    assert F.pad(mt.ones(1, 1, 3, dtype=mt.bool), (1, 1), mode="circular").dtype == mt.bool
    assert F.pad(mt.ones(1, 1, 3, dtype=mt.long), (1, 1), mode=mode).dtype == mt.int64


def test_max_unpool_indices_shape_mismatch():
    with pytest.raises(RuntimeError, match=r"same as that of the input tensor \(\[1, 1, 2, 2\]\) "
                       r"but got indices tensor with shape: \[1, 1, 1, 2\]"):  # fmt: skip
        F.max_unpool2d(mt.ones(1, 1, 2, 2), mt.zeros(1, 1, 1, 2, dtype=mt.long), 2)
    with pytest.raises(RuntimeError, match=r"\(\[1, 1, 2, 1\]\) but got indices tensor with "
                       r"shape: \[1, 1, 1, 1\]"):  # fmt: skip
        F.max_unpool1d(mt.ones(1, 1, 2), mt.zeros(1, 1, 1, dtype=mt.long), 2)


def test_linear_with_a_bias_reports_dtype_mismatches_as_addmm():
    # torch runs linear with a bias as addmm: its check and wording (a float model given a
    # .double() input); without a bias it is matmul's message
    x = mt.ones(2, 3, dtype=mt.float64)
    w, b = mt.ones(5, 3), mt.ones(5)
    with pytest.raises(
        RuntimeError, match="mat1 and mat2 must have the same dtype, but got Double and Float"
    ):
        F.linear(x, w, b)
    with pytest.raises(
        RuntimeError, match="self and mat2 must have the same dtype, but got Double and Float"
    ):
        F.linear(mt.ones(2, 3), w, b.double())
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype"):
        F.linear(x, w)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_norms_of_half_inputs_with_float32_parameters_round_once(dtype):
    # a half model that keeps its norm weights in float32: torch's unfused path computes in
    # float32 (rms_norm's default eps is float32's) and rounds once
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    dt = getattr(mt, dtype)
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((16, 64)).astype(np.float32) * 3).to(dt)
    w, b = (
        mt.tensor(rng.standard_normal(64).astype(np.float32)),
        mt.tensor(rng.standard_normal(64).astype(np.float32)),
    )
    got = F.rms_norm(x, (64,), w)
    assert got.dtype is dt
    assert got.tolist() == F.rms_norm(x.float(), (64,), w).to(dt).tolist()
    got = F.layer_norm(x, (64,), w, b)
    assert got.dtype is dt
    assert got.tolist() == F.layer_norm(x.float(), (64,), w, b).to(dt).tolist()


def test_functional_norms_want_a_shape_sequence_and_split_wants_sizes_not_a_tensor():
    x = mt.ones(2, 4)
    for fn in (F.layer_norm, F.rms_norm):
        with pytest.raises(
            TypeError, match="argument 'normalized_shape' .* must be tuple of ints, not int"
        ):
            fn(x, 4)
    assert nn.LayerNorm(4)(x).shape == (2, 4) and nn.RMSNorm(4)(x).shape == (2, 4)
    with pytest.raises(TypeError, match="'split_sizes' .* must be tuple of ints, not Tensor"):
        mt.zeros(6, 3).split(mt.tensor([1, 3, 0, 2]))
    assert [t.shape[0] for t in mt.zeros(6, 3).split(mt.tensor([1, 3, 0, 2]).tolist())] == [
        1,
        3,
        0,
        2,
    ]


def test_small_error_paths_are_torchs():
    with pytest.raises(RuntimeError, match="weight should have at least three dimensions"):
        F.conv1d(mt.ones(2, 4, 10), mt.ones(8, 4))
    from minitorch.nn.utils.rnn import pad_sequence

    with pytest.raises(RuntimeError, match="padding_side to be one of left or right"):
        pad_sequence([mt.ones(2), mt.ones(3)], padding_side="middle")
    with pytest.raises(
        NotImplementedError, match="repeat_interleave_cpu.* not implemented for 'Float'"
    ):
        mt.ones(2, 3).repeat_interleave(mt.tensor([1.0, 2.0, 3.0]), dim=1)


def test_cosine_similarity_of_integers_and_index_select_of_a_scalar_raise_as_torch():
    with pytest.raises(
        RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"
    ):
        F.cosine_similarity(mt.tensor([[1, 2]]), mt.tensor([[3, 1]]))
    assert F.cosine_similarity(mt.tensor([[1, 2]]), mt.tensor([[3.0, 1.0]])).dtype is mt.float32
    with pytest.raises(RuntimeError, match="Index to scalar can have only 1 value, got 2"):
        mt.tensor(5.0).index_select(0, mt.tensor([0, 0]))
    assert mt.tensor(5.0).index_select(0, mt.tensor([0])).item() == 5.0


def test_embedding_bag_max_ties_offsets_and_pad_sequence_edges_as_torch():
    w = mt.tensor([[1.0, 2.0], [1.0, 0.0], [0.0, 2.0]], requires_grad=True)
    F.embedding_bag(mt.tensor([0, 1, 2]), w, mt.tensor([0]), mode="max").sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]  # the first of tied maxima
    w2 = mt.tensor([[1.0, 2.0], [1.0, 0.0]], requires_grad=True)
    F.embedding_bag(mt.tensor([[0, 1]]), w2, mode="max").sum().backward()
    assert w2.grad.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    W = mt.arange(24.0).view(8, 3)
    inp = mt.tensor([0, 1, 2, 4])
    assert F.embedding_bag(inp, W, mt.tensor([0]), include_last_offset=True).shape == (0, 3)
    with pytest.raises(
        RuntimeError, match="offsets\\[-1\\] can not be greater than input's length 4"
    ):
        F.embedding_bag(inp, W, mt.tensor([0, 6]))
    with pytest.raises(RuntimeError, match="monotonically increasing"):
        F.embedding_bag(inp, W, mt.tensor([0, 3, 1]))
    from minitorch.nn.utils.rnn import pad_sequence

    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        pad_sequence([])
    out = pad_sequence([mt.tensor([1, 2]), mt.tensor([1.5])])
    assert out.dtype is mt.int64 and out.tolist() == [[1, 1], [2, 0]]
