"""Op-test rows for the fused nn kernels (minitorch/_ops/nn_kernels.py): softmax, log_softmax,
linear, the norms, the losses."""

from __future__ import annotations

import warnings

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec
from tests.ops.specs_pointwise import away_from


def _torch(make):
    """The op built for torch; torch is imported only when a reference test calls it."""

    def op(*args, **kwargs):
        import torch

        return make(torch)(*args, **kwargs)

    return op


def _prelu(x, w):
    w = w.reshape(w.shape + (1,) * (x.ndim - 2)) if x.ndim > 1 else w
    return np.where(x > 0, x, w * x)


def row(name, make, ref, shapes, **kw) -> OpSpec:
    """A spec whose minitorch and torch ops are the same code: make(lib) -> callable."""
    return OpSpec(name=name, op=make(mt), ref=ref, shapes=shapes, torch_op=_torch(make), **kw)


def _log_softmax(x, dim):
    if x.ndim == 0:
        return np.zeros_like(x)
    m = x.max(axis=dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def _softmax(x, dim):
    return np.exp(_log_softmax(x, dim))


def _bce(x, t):
    return -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))


def _bce_op(m):
    from minitorch._ops.nn_kernels import binary_cross_entropy_kernel

    def op(x, t):
        if m is mt:
            return binary_cross_entropy_kernel(x, t)
        return m.nn.functional.binary_cross_entropy(x, t, reduction="none")

    return op


def _nll(reduction, weighted=False, ignore=-100, functional=False):
    """nll_loss of log-probabilities (input 0) and int64 targets (input 1); minitorch's kernel,
    or (functional) F.nll_loss with its checks."""

    def make(m):
        def op(x, t):
            w = None
            if weighted:
                w = m.tensor([0.5, 2.0, 1.0, 0.25], dtype=x.dtype, device=x.device)
            if m is mt and not functional:
                from minitorch._ops.nn_kernels import nll_loss_kernel

                return nll_loss_kernel(x, t, w, ignore, reduction)
            return m.nn.functional.nll_loss(x, t, w, ignore_index=ignore, reduction=reduction)

        return op

    def ref(x, t):
        one = x.ndim == 1  # one sample (C,), its target 0-d: a batch of one, a 0-d 'none' loss
        if one:
            x, t = x[None], np.reshape(t, 1)
        w = np.array([0.5, 2.0, 1.0, 0.25]) if weighted else np.ones(x.shape[1])
        keep = t != ignore
        ts = np.where(keep, t, 0)
        wt = w[ts] * keep
        loss = -np.take_along_axis(x, ts[:, None], 1)[:, 0] * wt
        if one and reduction == "none":
            return loss.reshape(())
        return {"none": loss, "sum": loss.sum(), "mean": loss.sum() / wt.sum()}[reduction]

    return make, ref


def nll_row(name, reduction, shapes, **kw):
    make, ref = _nll(
        reduction, kw.pop("weighted", False), kw.pop("ignore", -100), kw.pop("functional", False)
    )
    return row(
        name,
        make,
        ref,
        shapes,
        dtypes=[("float32", "int64"), ("float64", "int64")],
        domain=[(-2.0, 2.0), (0, 3)],
        grad=(0,),
        **kw,
    )


def _linear(m):
    def op(x, w, b=None):
        if m is mt:
            from minitorch._ops.nn_kernels import linear_kernel

            return linear_kernel(x, w, b)
        return m.nn.functional.linear(x, w, b)

    return op


def _linear_ref(x, w, b=None):
    out = x @ w.T
    return out if b is None else out + b


def _linear_laid(m, tx, tw):
    """linear of a column-major input (given transposed) and/or weight (given transposed)."""
    inner = _linear(m)

    def op(x, w, b=None):
        return inner(x.mT if tx else x, w.mT if tw else w, b)

    return op


def _linear_laid_ref(tx, tw):
    return lambda x, w, b=None: _linear_ref(x.T if tx else x, w.T if tw else w, b)


def _batch_norm(training, affine=True):
    """batch_norm of input 0 (weight and bias inputs 1, 2 when affine); eval mode uses fixed
    running statistics, training fresh ones (updated in place, not compared here)."""

    def stats(m, x):
        c = x.shape[1]
        rm = m.linspace(-0.5, 0.5, c, dtype=x.dtype, device=x.device)
        rv = m.linspace(0.5, 1.5, c, dtype=x.dtype, device=x.device)
        return rm, rv

    def make(m):
        def op(x, *wb):
            rm, rv = stats(m, x)
            return m.nn.functional.batch_norm(x, rm, rv, *wb, training=training, eps=1e-5)

        return op

    def ref(x, *wb):
        c = x.shape[1]
        shape = (1, c) + (1,) * (x.ndim - 2)
        axes = (0,) + tuple(range(2, x.ndim))
        if training:
            mean = x.mean(axes, keepdims=True)
            var = ((x - mean) ** 2).mean(axes, keepdims=True)
        else:
            mean = np.linspace(-0.5, 0.5, c).reshape(shape)
            var = np.linspace(0.5, 1.5, c).reshape(shape)
        out = (x - mean) / np.sqrt(var + 1e-5)
        if wb:
            out = out * wb[0].reshape(shape) + wb[1].reshape(shape)
        return out

    return make, ref


def bn_row(name, shapes, training=True, **kw):
    make, ref = _batch_norm(training)
    return row(name, make, ref, shapes, **kw)


def _group_norm(groups):
    def make(m):
        def op(x, *wb):
            return m.nn.functional.group_norm(x, groups, *wb, eps=1e-5)

        return op

    def ref(x, *wb):
        n, c = x.shape[:2]
        g = x.reshape(n, groups, -1)
        d = g - g.mean(2, keepdims=True)
        out = (d / np.sqrt((d * d).mean(2, keepdims=True) + 1e-5)).reshape(x.shape)
        if wb:
            shape = (1, c) + (1,) * (x.ndim - 2)
            out = out * wb[0].reshape(shape) + wb[1].reshape(shape)
        return out

    return make, ref


def gn_row(name, shapes, groups, **kw):
    make, ref = _group_norm(groups)
    return row(name, make, ref, shapes, **kw)


def _reduce(loss, reduction):
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


def _regression(name, reduction, ref_terms, **kw):
    """A row of F.<name>(x, t, reduction=, **kw) (minitorch and torch alike) and its NumPy
    reference; a target shaped unlike the input broadcasts, with the size warning both libraries
    give silenced. The losses' kernels (MseLoss, SmoothL1Loss, HuberLoss) sit inside composite
    nodes; these rows run their data-level and Tensor backwards (test_data_backward.py)."""

    def make(m):
        fn = getattr(m.nn.functional, name)

        def op(x, t):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return fn(x, t, reduction=reduction, **kw)

        return op

    def ref(x, t):
        return _reduce(ref_terms(x - t, **kw), reduction)

    return make, ref


def _mse_terms(d):
    return d * d


def _smooth_l1_terms(d, beta=1.0):
    a = np.abs(d)
    return np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)


def _huber_terms(d, delta=1.0):
    a = np.abs(d)
    return np.where(a < delta, 0.5 * a * a, delta * (a - 0.5 * delta))


def loss_row(name, reduction, shapes, terms, row_name=None, **kw):
    """A regression loss row: F.<name> with reduction (and beta= / delta= in kw)."""
    params = {k: kw.pop(k) for k in ("beta", "delta") if k in kw}
    make, ref = _regression(name, reduction, terms, **params)
    return row(row_name or name, make, ref, shapes, **kw)


_BCE_WEIGHT = [0.5, 2.0, 1.0, 0.25]


def _bce_functional(reduction, weighted=False):
    """F.binary_cross_entropy(x, t, weight, reduction) of probabilities; a class weight of
    shape (4,) broadcasts over the rows."""

    def make(m):
        def op(x, t):
            w = None
            if weighted:
                w = m.tensor(_BCE_WEIGHT, dtype=x.dtype, device=x.device)
            return m.nn.functional.binary_cross_entropy(x, t, w, reduction=reduction)

        return op

    def ref(x, t):
        loss = _bce(x, t) * (np.array(_BCE_WEIGHT) if weighted else 1.0)
        return _reduce(loss, reduction)

    return make, ref


def bce_row(name, reduction, shapes, weighted=False, **kw):
    make, ref = _bce_functional(reduction, weighted)
    return row(name, make, ref, shapes, domain=(0.05, 0.95), **kw)


def _bce_logits_functional(reduction, weighted=False, pos_weighted=False):
    """F.binary_cross_entropy_with_logits(x, t, weight, reduction=, pos_weight=); the weights
    of shape (4,) broadcast over the rows."""

    def make(m):
        def op(x, t):
            w = pw = None
            if weighted:
                w = m.tensor(_BCE_WEIGHT, dtype=x.dtype, device=x.device)
            if pos_weighted:
                pw = m.tensor(_BCE_WEIGHT[::-1], dtype=x.dtype, device=x.device)
            f = m.nn.functional.binary_cross_entropy_with_logits
            return f(x, t, w, reduction=reduction, pos_weight=pw)

        return op

    def ref(x, t):
        p = np.array(_BCE_WEIGHT[::-1]) if pos_weighted else 1.0
        loss = (1 - t) * x + (1 + (p - 1) * t) * np.logaddexp(0, -x)
        return _reduce(loss * (np.array(_BCE_WEIGHT) if weighted else 1.0), reduction)

    return make, ref


def _logits(rng, shape, dtype):
    return rng.uniform(-4.0, 4.0, shape).astype(dtype)


def _labels(rng, shape, dtype):
    return rng.uniform(0.05, 0.95, shape).astype(dtype)


def bce_logits_row(name, reduction, shapes, weighted=False, pos_weighted=False, **kw):
    make, ref = _bce_logits_functional(reduction, weighted, pos_weighted)
    return row(name, make, ref, shapes, domain=[_logits, _labels], **kw)


HALVES = {"dtypes": ("float16", "bfloat16"), "atol": 1e-2, "rtol": 1e-2}


WIDE = (-200.0, 200.0)  # exp would overflow without the shift by the max
NOGRAD = {"grad": (), "gradgrad": False}


# Fake quantization (minitorch/_ops/quantize.py): steps of 2**-34 (2**-35 for the second
# channel) are far below gradcheck's finite-difference step, so the numerical derivative sees the
# straight-through gradient (1 inside the range, 0 where the value is clamped). The range ends at
# +-2**-10 (+-2**-11), where at most 24-bit quantized values keep the per-tensor op's float32
# dequantization exact; the inputs stay away from those kinks. Values: tests/ops/test_quantize.py.
_FQ_RANGE = 2**24
_FQ_BOUND = 2.0**-10


def _fq_domain(rng, shape, dtype):
    mags = rng.choice([0.1, 0.3, 0.7, 0.9, 1.2, 1.8], size=shape) + rng.uniform(-0.05, 0.05, shape)
    return (mags * _FQ_BOUND * rng.choice([-1.0, 1.0], size=shape)).astype(dtype)


def _fq_tensor_op(T):
    return lambda x: T.fake_quantize_per_tensor_affine(x, 2.0**-34, 0, -_FQ_RANGE, _FQ_RANGE)


def _fq_tensor_qparams_op(T):
    return lambda x: T.fake_quantize_per_tensor_affine(
        x, T.tensor(2.0**-34), T.tensor(0), -_FQ_RANGE, _FQ_RANGE
    )


def _fq_channel_op(zp_dtype):
    def make(T):
        def op(x):
            scale = T.tensor([2.0**-34, 2.0**-35])
            zero_point = T.tensor([0, 0], dtype=getattr(T, zp_dtype))
            return T.fake_quantize_per_channel_affine(
                x, scale, zero_point, 1, -_FQ_RANGE, _FQ_RANGE
            )

        return op

    return make


def _fq_learnable_op(T):
    def op(x):
        scale, zero_point = T.tensor([2.0**-34]), T.tensor([0.2])
        return T._fake_quantize_learnable_per_tensor_affine(
            x, scale, zero_point, -_FQ_RANGE, _FQ_RANGE, 0.5
        )

    return op


def _fq_learnable_channel_op(T):
    def op(x):
        scale, zero_point = T.tensor([2.0**-34, 2.0**-35]), T.tensor([0.2, -0.4])
        return T._fake_quantize_learnable_per_channel_affine(
            x, scale, zero_point, 1, -_FQ_RANGE, _FQ_RANGE, 0.5
        )

    return op


def _fq_ref(x):
    return np.clip(x, -_FQ_BOUND, _FQ_BOUND)


def _fq_channel_ref(x):
    bound = np.array([_FQ_BOUND, _FQ_BOUND / 2])[:, None]
    return np.clip(x, -bound, bound)


# fmt: off
SPECS = [
    row("softmax", lambda m: lambda x: m.softmax(x, 1), lambda x: _softmax(x, 1), [(3, 4)]),
    row("softmax__dim0", lambda m: lambda x: m.softmax(x, 0), lambda x: _softmax(x, 0),
        [(2, 3, 4)]),
    row("softmax__last", lambda m: lambda x: x.softmax(-1), lambda x: _softmax(x, -1),
        [(2, 3, 4)]),
    row("softmax__0d", lambda m: lambda x: m.softmax(x, 0), lambda x: _softmax(x, 0), [()]),
    row("softmax__empty", lambda m: lambda x: m.softmax(x, 1), lambda x: x, [(0, 3)]),
    row("softmax__wide", lambda m: lambda x: m.softmax(x, 1), lambda x: _softmax(x, 1),
        [(3, 5)], domain=WIDE, **NOGRAD),
    row("softmax__dtype", lambda m: lambda x: m.softmax(x, 1, dtype=m.float64),
        lambda x: _softmax(x, 1), [(3, 4)], dtypes=("float32",)),
    row("log_softmax", lambda m: lambda x: m.log_softmax(x, 1), lambda x: _log_softmax(x, 1),
        [(3, 4)]),
    row("log_softmax__dim0", lambda m: lambda x: x.log_softmax(0),
        lambda x: _log_softmax(x, 0), [(4, 2, 3)]),
    row("log_softmax__0d", lambda m: lambda x: m.log_softmax(x, -1),
        lambda x: _log_softmax(x, -1), [()]),
    row("log_softmax__wide", lambda m: lambda x: m.log_softmax(x, -1),
        lambda x: _log_softmax(x, -1), [(3, 5)], domain=WIDE, rtol=1e-4, **NOGRAD),
    row("log_softmax__half", lambda m: lambda x: m.log_softmax(x, -1),
        lambda x: _log_softmax(x, -1), [(3, 5)], dtypes=("float16",), **NOGRAD),
    row("linear", _linear, _linear_ref, [(3, 4), (5, 4), (5,)]),
    row("linear__3d_nobias", _linear, _linear_ref, [(2, 3, 4), (5, 4)]),
    row("linear__1d", _linear, _linear_ref, [(4,), (2, 4), (2,)]),
    row("linear__2d_nobias", _linear, _linear_ref, [(3, 4), (5, 4)]),
    row("linear__1d_nobias", _linear, _linear_ref, [(4,), (2, 4)]),
    row("linear__empty", _linear, _linear_ref, [(0, 4), (5, 4), (5,)]),
    # column-major operands: each gradient in its operand's layout (LinearLaid / LinearMmLaid)
    row(
        "linear__column_major_x",
        lambda m: _linear_laid(m, True, False),
        _linear_laid_ref(True, False),
        [(4, 3), (5, 4), (5,)],
    ),
    row(
        "linear__column_major_w_nobias",
        lambda m: _linear_laid(m, False, True),
        _linear_laid_ref(False, True),
        [(3, 4), (4, 5)],
    ),
    bn_row("batch_norm", [(4, 3, 5), (3,), (3,)]),
    bn_row("batch_norm__2d_no_affine", [(6, 3)]),
    bn_row("batch_norm__4d", [(2, 3, 2, 3), (3,), (3,)]),
    bn_row("batch_norm__eval", [(4, 3, 5), (3,), (3,)], training=False),
    bn_row("batch_norm__eval_no_affine", [(2, 3, 2, 2)], training=False),
    gn_row("group_norm", [(2, 4, 3), (4,), (4,)], groups=2),
    gn_row("group_norm__4d_no_affine", [(2, 6, 2, 2)], groups=3),
    gn_row("group_norm__2d_one_group", [(3, 4), (4,), (4,)], groups=1),
    nll_row("nll_loss", "mean", [(5, 4), (5,)]),
    nll_row("nll_loss__sum_weighted", "sum", [(5, 4), (5,)], weighted=True),
    nll_row("nll_loss__none_kdim", "none", [(2, 4, 3), (2, 3)], weighted=True),
    nll_row("nll_loss__ignore", "mean", [(6, 4), (6,)], weighted=True, ignore=1),
    # an unbatched (C,) input: NllLoss takes it as it is (torch's graph, no unsqueeze)
    nll_row("nll_loss__unbatched", "mean", [(4,), ()], functional=True),
    nll_row("nll_loss__unbatched_none_weighted", "none", [(4,), ()], weighted=True,
            functional=True),
    row("binary_cross_entropy", _bce_op, _bce, [(3, 4), (3, 4)], domain=(0.05, 0.95)),
    row("binary_cross_entropy__0d", _bce_op, _bce, [(), ()], domain=(0.05, 0.95)),
    row("binary_cross_entropy__saturated", _bce_op, _bce, [(4,), (4,)],
        domain=[lambda rng, shape, dt: np.array([0.0, 1.0, 1e-50, 0.5]),
                lambda rng, shape, dt: np.array([1.0, 0.0, 0.5, 0.5])], **NOGRAD),
    # F.binary_cross_entropy: the input's gradient on arrays (BinaryCrossEntropy._backward_data)
    bce_row("binary_cross_entropy__mean", "mean", [(3, 4), (3, 4)], grad=(0,)),
    bce_row("binary_cross_entropy__sum_weighted", "sum", [(5, 4), (5, 4)], weighted=True,
            grad=(0,)),
    bce_row("binary_cross_entropy__none_weighted", "none", [(2, 3, 4), (2, 3, 4)],
            weighted=True, grad=(0,)),
    bce_row("binary_cross_entropy__target_grad", "mean", [(3, 4), (3, 4)]),
    bce_row("binary_cross_entropy__half", "mean", [(3, 4), (3, 4)], **HALVES, **NOGRAD),
    # F.binary_cross_entropy_with_logits: _BceLogitsLearnedTarget's gradients on arrays (the
    # pos_weight and half rows: its Tensor formula)
    bce_logits_row("binary_cross_entropy_with_logits__mean", "mean", [(3, 4), (3, 4)],
                   grad=(0,)),
    bce_logits_row("binary_cross_entropy_with_logits__sum_weighted", "sum", [(5, 4), (5, 4)],
                   weighted=True),
    bce_logits_row("binary_cross_entropy_with_logits__none_weighted", "none",
                   [(2, 3, 4), (2, 3, 4)], weighted=True, grad=(0,)),
    bce_logits_row("binary_cross_entropy_with_logits__target_grad", "mean", [(3, 4), (3, 4)]),
    bce_logits_row("binary_cross_entropy_with_logits__pos_weight", "mean", [(3, 4), (3, 4)],
                   weighted=True, pos_weighted=True),
    bce_logits_row("binary_cross_entropy_with_logits__half", "mean", [(3, 4), (3, 4)],
                   **HALVES, **NOGRAD),
    # the regression losses (NOTE [ Regression losses' data-level backward ]): each reduction,
    # beta / delta below, at and above 1, broadcast targets, both inputs differentiated
    loss_row("mse_loss", "mean", [(3, 4), (3, 4)], _mse_terms),
    loss_row("mse_loss", "sum", [(2, 3, 4), (2, 3, 4)], _mse_terms, "mse_loss__sum"),
    loss_row("mse_loss", "none", [(3, 5), (3, 5)], _mse_terms, "mse_loss__none"),
    loss_row("mse_loss", "mean", [(3, 5), (5,)], _mse_terms, "mse_loss__broadcast_target"),
    loss_row("mse_loss", "sum", [(4, 1), (4, 3)], _mse_terms, "mse_loss__broadcast_input"),
    loss_row("mse_loss", "mean", [(3, 5), (3, 5)], _mse_terms, "mse_loss__half", **HALVES,
             **NOGRAD),
    loss_row("mse_loss", "sum", [(3, 5), (3, 5)], _mse_terms, "mse_loss__half_sum", **HALVES,
             **NOGRAD),
    loss_row("smooth_l1_loss", "mean", [(3, 4), (3, 4)], _smooth_l1_terms),
    loss_row("smooth_l1_loss", "sum", [(4, 5), (4, 5)], _smooth_l1_terms,
             "smooth_l1_loss__beta_sum", beta=0.5),
    loss_row("smooth_l1_loss", "none", [(3, 5), (3, 5)], _smooth_l1_terms,
             "smooth_l1_loss__beta_none", beta=2.0),
    loss_row("smooth_l1_loss", "mean", [(3, 4), (4,)], _smooth_l1_terms,
             "smooth_l1_loss__broadcast_target", beta=0.7),
    loss_row("smooth_l1_loss", "mean", [(3, 5), (3, 5)], _smooth_l1_terms,
             "smooth_l1_loss__half", **HALVES, **NOGRAD),
    loss_row("huber_loss", "mean", [(3, 4), (3, 4)], _huber_terms),
    loss_row("huber_loss", "sum", [(4, 5), (4, 5)], _huber_terms, "huber_loss__delta_sum",
             delta=0.7),
    loss_row("huber_loss", "none", [(3, 5), (3, 5)], _huber_terms, "huber_loss__delta_none",
             delta=1.5),
    loss_row("huber_loss", "sum", [(3, 4), (3, 1)], _huber_terms,
             "huber_loss__broadcast_target", delta=0.5),
    loss_row("huber_loss", "mean", [(3, 5), (3, 5)], _huber_terms, "huber_loss__half",
             **HALVES, **NOGRAD),
    row("fake_quantize_per_tensor_affine", _fq_tensor_op, _fq_ref, [(3, 4)], domain=_fq_domain),
    row("fake_quantize_per_tensor_affine__tensor_qparams", _fq_tensor_qparams_op, _fq_ref, [(5,)],
        domain=_fq_domain),
    # learnable scale and zero point (their LSQ gradients: tests/test_s28_codec.py); no torch_op:
    # torch's backward takes float32 only
    OpSpec(name="fake_quantize_learnable_per_tensor_affine", op=_fq_learnable_op(mt),
           ref=_fq_ref, shapes=[(3, 4)], domain=_fq_domain),
    OpSpec(name="fake_quantize_learnable_per_channel_affine", op=_fq_learnable_channel_op(mt),
           ref=_fq_channel_ref, shapes=[(3, 2, 4)], domain=_fq_domain),
    row("fake_quantize_per_channel_affine", _fq_channel_op("int32"), _fq_channel_ref,
        [(3, 2, 4)], domain=_fq_domain),
    row("fake_quantize_per_channel_affine__float_zero_point", _fq_channel_op("float32"),
        _fq_channel_ref, [(3, 2, 4)], domain=_fq_domain),
    # prelu (minitorch/_ops/activation.py's Prelu): a per-channel and a single weight
    row("prelu", lambda lib: lib.nn.functional.prelu, _prelu, [(2, 3, 4), (3,)],
        domain=away_from(0.0)),
    row("prelu__single", lambda lib: lib.nn.functional.prelu, _prelu, [(5,), (1,)],
        domain=away_from(0.0)),
]
# fmt: on
