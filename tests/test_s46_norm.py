"""Session 46's norm work: LayerNorm's small calls run flat copies of its blocked kernels, its
big ones compute in aligned scratch blocks and copy an expanded gradient (the gradient of
`.sum()`) block by block before BLAS reads it; layer_norm and batch_norm go straight to their
kernels when every check would pass; batch_norm reads a weight or bias of C elements in any
shape flat (torch's dense kernel) and refuses running statistics that are not 1-D. Each fast
route gives what the general one gives, bit for bit; an expanded gradient gives what the same
gradient made dense gives."""

import itertools

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import nn_kernels as K
from minitorch.nn import _functional_norm as FN

F = torch.nn.functional


def randn(*shape, dtype=torch.float32, seed=0, scale=2.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


def same(got, want, msg=""):
    """Bit-for-bit equality of two arrays (or None), with dtypes and shapes."""
    if want is None or got is None:
        assert got is None and want is None, msg
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (msg, got.dtype, want.dtype)
    assert got.shape == want.shape, (msg, got.shape, want.shape)
    assert got.tobytes() == want.tobytes(), msg


def arrays(shape, dt, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3 + 2).astype(dt)
    w = rng.standard_normal(shape[1]).astype(dt)
    b = rng.standard_normal(shape[1]).astype(dt)
    g = rng.standard_normal(shape).astype(dt)
    return x, w, b, g


NEEDS = [n for n in itertools.product([True, False], repeat=3) if any(n)]


# --- the flat small-call kernels against the general (one-block) ones -------------------------


@pytest.mark.parametrize("shape", [(8, 16), (3, 4), (1, 7), (7, 1), (100, 163), (2, 5000)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_small_layer_norm_kernels_match_the_general_ones(shape, dt, affine):
    x, w, b, g = arrays(shape, dt, 1)
    w = w if affine in ("both", "weight") else None
    b = b if affine in ("both", "bias") else None
    assert shape[0] * shape[1] < K._GEMV_MIN_SIZE
    # blocked=False runs the general code over one block: the same calls as the small path
    got = K._ln_forward(np, x, w, b, 1e-5, True, True)
    want = K._ln_forward(np, x, w, b, 1e-5, False, True)
    for p, q in zip(got, want, strict=True):
        same(p, q, (shape, affine))
    _, xhat, rstd = want
    for needs in NEEDS:
        got = K._ln_backward(np, g, xhat, rstd, w, needs, True)
        want = K._ln_backward(np, g, xhat, rstd, w, needs, False)
        for p, q in zip(got, want, strict=True):
            same(p, q, (shape, affine, needs))


# --- expanded gradients: copied block by block, the dense gradient's values -------------------


def _expanded(kind, shape, dt, seed):
    rng = np.random.default_rng(seed)
    if kind == "scalar":  # .sum()'s gradient
        return np.broadcast_to(dt(0.37), shape)
    if kind == "row":
        return np.broadcast_to(rng.standard_normal((1, shape[1])).astype(dt), shape)
    return np.broadcast_to(rng.standard_normal((shape[0], 1)).astype(dt), shape)


@pytest.mark.parametrize("shape", [(2048, 128), (129, 257), (8, 16), (40, 5000)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["scalar", "row", "column"])
def test_expanded_gradient_gives_the_dense_gradients(shape, dt, kind):
    x, w, _, _ = arrays(shape, dt, 2)
    _, xhat, rstd = K._ln_forward(np, x, w, None, 1e-5, True, True)
    g = _expanded(kind, shape, dt, 3)
    for weight in (w, None):
        for needs in NEEDS:
            got = K._ln_backward(np, g, xhat, rstd, weight, needs, True)
            want = K._ln_backward(np, np.ascontiguousarray(g), xhat, rstd, weight, needs, True)
            for p, q in zip(got, want, strict=True):
                same(p, q, (shape, kind, needs, weight is None))


@pytest.mark.parametrize("shape", [(32, 64, 128), (8, 16)])
def test_sum_backward_equals_backward_of_ones(shape):
    x = randn(*shape, seed=4).requires_grad_()
    ln = torch.nn.LayerNorm(shape[-1])
    with torch.no_grad():
        ln.weight.copy_(randn(shape[-1], seed=5))
        ln.bias.copy_(randn(shape[-1], seed=6))
    params = (x, ln.weight, ln.bias)
    got = torch.autograd.grad(ln(x).sum(), params)
    out = ln(x)
    want = torch.autograd.grad(out, params, torch.ones_like(out))
    for p, q in zip(got, want, strict=True):
        same(p.numpy(), q.numpy(), shape)
    # and the gradient is right (float64 formula)
    xd = x.detach().double().numpy().reshape(-1, shape[-1])
    mu = xd.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((xd - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    xhat = (xd - mu) * rstd
    gh = np.broadcast_to(ln.weight.detach().double().numpy(), xhat.shape)
    gx = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    np.testing.assert_allclose(got[0].numpy().reshape(gx.shape), gx, rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(got[1].numpy(), xhat.sum(0), rtol=2e-4, atol=2e-3)


# --- aligned scratch: no value depends on it --------------------------------------------------


def _misaligned(xp, shape, f):
    """An array like _aligned_empty's, one element past a 64-byte boundary."""
    n = int(np.prod(shape))
    buf = xp.empty(n + 32, f)
    off = (-buf.__array_interface__["data"][0] % 64) // buf.itemsize + 1
    return buf[off : off + n].reshape(shape)


def test_aligned_empty_is_aligned_and_owns_nothing_returned():
    for shape, f in [((256, 128), np.float32), ((3, 5), np.float64), ((7,), np.float32)]:
        a = K._aligned_empty(np, shape, f)
        assert a.shape == shape and a.dtype == f and a.flags.c_contiguous
        assert a.__array_interface__["data"][0] % 64 == 0
    # the forward's result and the backward's gradients own their memory (torch's results do)
    x, w, b, g = arrays((2048, 128), np.float32, 7)
    out, xhat, rstd = K._ln_forward(np, x, w, b, 1e-5, True, True)
    assert out.base is None and xhat.base is not None
    gx, gw, gb = K._ln_backward(np, g, xhat, rstd, w, (True, True, True), True)
    assert gx.base is None


@pytest.mark.parametrize("shape", [(700, 128), (40, 5000)])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_alignment_changes_no_value(monkeypatch, shape, dt):
    x, w, b, g = arrays(shape, dt, 8)
    gexp = _expanded("row", shape, dt, 9)
    runs = []
    for empty in (K._aligned_empty, _misaligned):
        monkeypatch.setattr(K, "_aligned_empty", empty)
        rec = list(K._ln_forward(np, x, w, b, 1e-5, True, True))
        _, xhat, rstd = rec
        for weight, grad, needs in itertools.product((w, None), (g, gexp), NEEDS):
            rec += K._ln_backward(np, grad, xhat, rstd, weight, needs, True)
        runs.append(rec)
    for i, (p, q) in enumerate(zip(*runs, strict=True)):
        same(p, q, (shape, i))


# --- straight to the kernel: what the checked path gives --------------------------------------


def _ln_run(x, w, b, shape):
    out = F.layer_norm(x, shape, w, b, 1e-5)
    ins = [t for t in (x, w, b) if t is not None and t.requires_grad]
    grads = torch.autograd.grad(out, ins, randn(*out.shape, seed=11))
    return out, grads


@pytest.mark.parametrize("case", ["both", "weight", "none", "params", "3d", "float64"])
def test_layer_norm_shortcut_matches_the_checked_path(monkeypatch, case):
    dt = torch.float64 if case == "float64" else torch.float32
    shape = (4, 6, 10) if case == "3d" else (8, 10)
    x = randn(*shape, dtype=dt, seed=12).requires_grad_(case != "params")
    nshape = shape[-2:] if case == "3d" else shape[-1:]
    w = randn(*nshape, dtype=dt, seed=13).requires_grad_() if case != "none" else None
    b = (
        randn(*nshape, dtype=dt, seed=14).requires_grad_()
        if case not in ("none", "weight")
        else None
    )
    assert FN._fused_args(x, tuple(nshape), w, b)
    out, grads = _ln_run(x, w, b, tuple(nshape))
    monkeypatch.setattr(FN, "_fused_args", lambda *args: False)
    out2, grads2 = _ln_run(x, w, b, tuple(nshape))
    assert out.grad_fn.name() == out2.grad_fn.name() == "NativeLayerNormBackward0"
    same(out.detach().numpy(), out2.detach().numpy(), case)
    assert len(grads) == len(grads2)
    for p, q in zip(grads, grads2, strict=True):
        same(p.numpy(), q.numpy(), case)


def test_layer_norm_shortcut_declines_what_the_checks_decide():
    x = randn(4, 8)
    w = randn(8)
    assert FN._fused_args(x, (8,), w, None)
    assert not FN._fused_args(x, (4, 8), w, None)  # the weight's shape is not normalized's
    assert not FN._fused_args(x, (7,), None, None)
    assert not FN._fused_args(x, (), None, None)
    assert not FN._fused_args(x, (8,), w.double(), None)
    assert not FN._fused_args(x.half(), (8,), None, None)  # half: the full path
    assert not FN._fused_args(randn(0, 8), (8,), None, None)
    assert not FN._fused_args(x, (8,), None, [1.0] * 8)
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        F.layer_norm(x, (8,), randn(4, 8))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("stats", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(8, 5), (4, 5, 6), (2, 5, 3, 3)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_shortcut_matches_the_checked_path(
    monkeypatch, training, stats, affine, shape, dtype
):
    if not training and not stats:
        pytest.skip("evaluation needs running statistics")
    c = shape[1]

    def run():
        x = randn(*shape, dtype=dtype, seed=22).requires_grad_()
        rm = randn(c, dtype=dtype, seed=23) if stats else None
        rv = randn(c, dtype=dtype, seed=24).abs() + 0.5 if stats else None
        w = randn(c, dtype=dtype, seed=25).requires_grad_() if affine else None
        b = randn(c, dtype=dtype, seed=26).requires_grad_() if affine else None
        out = F.batch_norm(x, rm, rv, w, b, training, 0.1, 1e-5)
        node = out.grad_fn
        recs = [out.detach().numpy(), node._saved_result1.numpy(), node._saved_result2.numpy()]
        recs += [r.numpy() for r in (rm, rv) if r is not None]
        ins = [t for t in (x, w, b) if t is not None]
        recs += [g.numpy() for g in torch.autograd.grad(out, ins, randn(*shape, seed=21))]
        return node.name(), recs

    x = randn(*shape, dtype=dtype)
    rm = randn(c, dtype=dtype) if stats else None
    assert FN._plain_batch_args(x, rm, rm, None, None, training, 1e-5)
    name, want = run()
    monkeypatch.setattr(FN, "_plain_batch_args", lambda *args: False)
    name2, got = run()
    assert name == name2 == "NativeBatchNormBackward0"
    assert len(got) == len(want)
    for p, q in zip(got, want, strict=True):
        same(p, q, (training, stats, affine, shape))


def test_batch_norm_shortcut_declines_what_the_checks_decide():
    x = randn(4, 3, 5)
    c = randn(3)
    ok = FN._plain_batch_args
    assert ok(x, c, c, c, c, True, 1e-5)
    assert not ok(x, c, None, None, None, True, 1e-5)  # one statistic: the checks' ValueError
    assert not ok(x, None, None, None, None, False, 1e-5)  # evaluation without statistics
    assert not ok(x, None, None, None, None, True, 0.0)  # eps must be positive while training
    assert ok(x, c, c, None, None, False, 0.0)  # and non-negative otherwise
    assert not ok(randn(1, 3), None, None, None, None, True, 1e-5)  # one value per channel
    assert not ok(randn(0, 3), None, None, None, None, True, 1e-5)
    assert not ok(randn(3), None, None, None, None, True, 1e-5)
    assert not ok(x, None, None, randn(3, 1), None, True, 1e-5)  # C elements, another shape
    assert not ok(x, None, None, randn(4), None, True, 1e-5)
    assert not ok(x, None, None, c.double(), None, True, 1e-5)
    assert not ok(x.double(), c, c, None, None, True, 1e-5)
    assert not ok(x.half(), None, None, None, None, True, 1e-5)
    with pytest.raises(ValueError, match="must either both be None"):
        F.batch_norm(x, c, None, training=True)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(randn(1, 3), None, None, training=True)


def test_batch_norm_module_with_cumulative_average_still_updates():
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(4, momentum=None)  # a 0-d tensor factor: the checked path
    x = randn(6, 4, seed=30)
    bn(x)
    bn(x * 2)
    want_mean = (x.mean(0) + (x * 2).mean(0)) / 2
    np.testing.assert_allclose(bn.running_mean.numpy(), want_mean.numpy(), rtol=1e-6, atol=1e-6)
    assert int(bn.num_batches_tracked) == 2


# --- batch_norm's parameters of C elements in other shapes ------------------------------------

_ACCESSOR = "TensorAccessor expected 1 dims but tensor has {}"
_ASSERT = FN._NOT_ONE_DIM


@pytest.mark.parametrize("wshape", [(3, 1), (1, 3), (1, 3, 1)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "2d", "float64", "half"])
def test_batch_norm_reads_weight_and_bias_flat(wshape, training, layout):
    shape = {"channels_last": (2, 3, 4, 4), "2d": (6, 3)}.get(layout, (4, 3, 5))
    dt = {"float64": torch.float64, "half": torch.float16}.get(layout, torch.float32)
    x = randn(*shape, dtype=dt, seed=31)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    w, b = randn(3, dtype=dt, seed=32), randn(3, dtype=dt, seed=33)
    rm, rv = randn(3, dtype=dt, seed=34), randn(3, dtype=dt, seed=35).abs() + 0.5
    want = F.batch_norm(x, rm.clone(), rv.clone(), w, b, training)
    got = F.batch_norm(x, rm.clone(), rv.clone(), w.reshape(wshape), b.reshape(wshape), training)
    same(got.float().numpy(), want.float().numpy(), (wshape, layout))
    assert got.shape == x.shape


def test_batch_norm_backward_refuses_a_weight_that_is_not_1d():
    x = randn(4, 3, 5).requires_grad_()
    w = randn(3, 1).requires_grad_()
    out = F.batch_norm(x, None, None, w, None, training=True)
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    assert out.grad_fn._saved_weight.shape == (3, 1)
    with pytest.raises(RuntimeError, match=_ACCESSOR.format(2)):
        out.sum().backward()
    out = F.batch_norm(x, None, None, w, None, training=True)  # create_graph: the graph backward
    with pytest.raises(RuntimeError, match=_ACCESSOR.format(2)):
        torch.autograd.grad(out.sum(), x, create_graph=True)
    out = F.batch_norm(x.detach(), randn(3), randn(3).abs(), w.reshape(1, 3), None, False)
    with pytest.raises(RuntimeError, match=_ACCESSOR.format(2)):
        out.sum().backward()


def test_batch_norm_bias_not_1d_gradient_refused_by_the_engine():
    x = randn(4, 3, 5).requires_grad_()
    b = randn(1, 3).requires_grad_()
    out = F.batch_norm(x.detach(), None, None, None, b, training=True)
    msg = "invalid gradient at index 2 - got [3] but expected shape compatible with [1, 3]"
    with pytest.raises(RuntimeError, match=msg.replace("[", r"\[").replace("]", r"\]")):
        out.sum().backward()
    # only the input's gradient: the bias is not read; it is the flat bias's
    b = b.detach()
    (gx,) = torch.autograd.grad(F.batch_norm(x, None, None, None, b, True).sum(), x)
    (want,) = torch.autograd.grad(F.batch_norm(x, None, None, None, b.reshape(3), True).sum(), x)
    same(gx.numpy(), want.numpy())


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_refuses_running_statistics_that_are_not_1d(training):
    x = randn(4, 3, 5)
    for rm, rv, nd in [
        (randn(3, 1), randn(3, 1), 2),
        (randn(3), randn(1, 3), 2),
        (randn(1, 3, 1), randn(3), 3),
    ]:
        with pytest.raises(RuntimeError, match=_ACCESSOR.format(nd)):
            F.batch_norm(x, rm, rv.abs(), training=training)
    with pytest.raises(RuntimeError, match=_ACCESSOR.format(0)):
        F.batch_norm(randn(4, 1), torch.tensor(0.5), torch.tensor(2.0), training=training)
    # the numbers of elements are checked first, and an empty input reads nothing
    with pytest.raises(RuntimeError, match="running_var should contain 3 elements not 4"):
        F.batch_norm(x, randn(3, 1), randn(4), training=training)
    assert F.batch_norm(randn(0, 3, 5), randn(3, 1), randn(3, 1), training=training).shape == (
        0,
        3,
        5,
    )


def test_batch_norm_strided_input_refuses_weight_not_1d():
    x = randn(3, 4).t()  # neither contiguous nor channels-last
    for kw in [{"weight": randn(3, 1)}, {"bias": randn(1, 3)}]:
        with pytest.raises(RuntimeError) as err:
            F.batch_norm(x, None, None, training=True, **kw)
        assert str(err.value) == _ASSERT
    with pytest.raises(RuntimeError) as err:  # any operand that is not dense
        F.batch_norm(randn(4, 3, 5), randn(6)[::2], randn(3).abs(), randn(3, 1), None, True)
    assert str(err.value) == _ASSERT
    # 1-D parameters are fine there
    out = F.batch_norm(x, None, None, randn(3), randn(3), training=True)
    assert out.shape == (4, 3)
