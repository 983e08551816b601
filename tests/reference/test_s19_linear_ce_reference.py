"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss, LinearCrossEntropyOptions and
nn.MultiheadAttention.merge_masks against PyTorch: the same float64 inputs give the same
values and gradients (class indices, class probabilities, K-dimensional weights, bias, class
weights, label smoothing, options); bad calls give torch's errors and warnings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

N, IN, C = 5, 3, 4


def _pair(a, dtype="float64", grad=False):
    return (
        torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=grad),
        minitorch.tensor(a, dtype=getattr(minitorch, dtype), requires_grad=grad),
    )


def _inputs(rng, out_features=(), batched=True, probs=False, ignore=False):
    x = rng.standard_normal((N, IN) if batched else (IN,))
    w = rng.standard_normal((C, *out_features, IN))
    b = rng.standard_normal((C, *out_features))
    batch = (N,) if batched else ()
    if probs:
        t = rng.uniform(size=(*batch, C, *out_features))
        t = t / t.sum(axis=len(batch), keepdims=True)
    else:
        t = rng.integers(0, C, size=(*batch, *out_features))
        if ignore and batched:
            t.reshape(-1)[::3] = -100
    return x, w, b, t


def _run(lib, x, w, b, t, probs, **kw):
    F = lib.nn.functional
    tgt = lib.tensor(t, dtype=lib.float64) if probs else lib.tensor(t)
    loss = F.linear_cross_entropy(x, w, tgt, linear_bias=b, **kw)
    grads = lib.autograd.grad(loss.sum(), (x, w, b))
    return loss, grads


def _compare(rng_seed, kw, options=False, **shape):
    rng = np.random.default_rng(rng_seed)
    x, w, b, t = _inputs(rng, **shape)
    cw = rng.uniform(0.5, 2.0, size=C) if kw.pop("class_weight", False) else None
    outs = []
    for lib, i in ((torch, 0), (minitorch, 1)):
        args = [_pair(a, grad=True)[i] for a in (x, w, b)]
        extra = dict(kw)
        if cw is not None:
            extra["weight"] = _pair(cw)[i]
        if options:
            extra["options"] = lib.nn.LinearCrossEntropyOptions()
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            loss, grads = _run(lib, *args, t, shape.get("probs", False), **extra)
        outs.append((loss, grads, [str(r.message) for r in rec]))
    (tl, tg, tw), (ml, mg, mw) = outs
    assert ml.shape == tuple(tl.shape) and mw == tw
    np.testing.assert_allclose(ml.detach().numpy(), tl.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, e in zip(mg, tg, strict=True):
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-9, atol=1e-12)


KWARGS = [
    {},
    {"reduction": "sum"},
    {"reduction": "none"},
    {"label_smoothing": 0.15},
    {"class_weight": True},
    {"class_weight": True, "label_smoothing": 0.3, "reduction": "none"},
    {"ignore_index": 2},
]
SHAPES = [
    {},
    {"ignore": True},
    {"batched": False},
    {"probs": True},
    {"batched": False, "probs": True},
    {"out_features": (2,)},
    {"out_features": (2, 3), "ignore": True},
    {"out_features": (2, 3), "probs": True},
]


@pytest.mark.parametrize("options", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kw", KWARGS, ids=str)
def test_linear_cross_entropy_matches_torch(kw, shape, options):
    if "ignore_index" in kw and (shape.get("probs") or shape.get("ignore")):
        pytest.skip("probabilities: an error case (test_errors_match_torch); -100: out of range")
    _compare(0, dict(kw), options=options, **shape)


def _error(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call(lib)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 2, 3), lib.zeros(4, 3), lib.zeros(2, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 3), lib.zeros(3), lib.zeros(2, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 3), lib.zeros(4, 2), lib.zeros(2, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 3),
            lib.zeros(4, 2, 3),
            lib.zeros(2, 2, dtype=lib.int64),
            linear_bias=lib.zeros(4),
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(3), lib.zeros(4, 2, 3), lib.zeros(2, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 3), lib.zeros(4, 3), lib.zeros(2, 4), ignore_index=1
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(2, 3), lib.zeros(4, 3), lib.zeros(2, dtype=lib.int64), reduction="x"
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(8, 3),
            lib.zeros(4, 3),
            lib.zeros(8, dtype=lib.int64),
            options=lib.nn.LinearCrossEntropyOptions(
                batch_chunk_size=3, chunking_method="aspect_ratio:2"
            ),
        ),
        lambda lib: lib.nn.functional.linear_cross_entropy(
            lib.zeros(8, 3),
            lib.zeros(4, 3),
            lib.zeros(8, dtype=lib.int64),
            options=lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.float64),
        ),
        lambda lib: lib.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:-1"),
        lambda lib: lib.nn.LinearCrossEntropyOptions(acc_policy="fast"),
        lambda lib: lib.nn.LinearCrossEntropyOptions(batch_chunk_size=-2),
        lambda lib: lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.bool),
        lambda lib: lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(5)),
        lambda lib: lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=2.0),
    ],
)
def test_errors_match_torch(call):
    expected = _error(torch, call)
    assert expected is not None and _error(minitorch, call) == expected


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("policy", ["auto", "accurate"])
def test_options_low_precision_matches_torch(dtype, policy):
    rng = np.random.default_rng(1)
    x, w, _, t = _inputs(rng)
    res = []
    for lib, i in ((torch, 0), (minitorch, 1)):
        opts = lib.nn.LinearCrossEntropyOptions(acc_policy=policy)
        out = lib.nn.functional.linear_cross_entropy(
            _pair(x, dtype)[i], _pair(w, dtype)[i], lib.tensor(t), options=opts
        )
        res.append(out)
    assert str(res[1].dtype) == str(res[0].dtype)
    tol = 1e-5 if dtype == "float32" else 1e-2
    np.testing.assert_allclose(res[1].float().numpy(), res[0].float().numpy(), rtol=tol)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"out_features": (2, 5), "bias": True, "reduction": "sum", "ignore_index": -1},
        {"label_smoothing": 0.1, "options": "default", "out_features": [3]},
    ],
    ids=str,
)
def test_module_matches_torch(kw):
    rng = np.random.default_rng(2)
    out_features = tuple(kw.get("out_features", ()))
    x, _, _, t = _inputs(rng, out_features=out_features)
    rows = C * int(np.prod(out_features))
    w, b = rng.standard_normal((rows, IN)), rng.standard_normal(rows)
    res = []
    for lib, i in ((torch, 0), (minitorch, 1)):
        extra = dict(kw)
        if extra.get("options") == "default":
            extra["options"] = lib.nn.LinearCrossEntropyOptions()
        m = lib.nn.LinearCrossEntropyLoss(IN, C, dtype=lib.float64, **extra)
        with lib.no_grad():
            m.linear.weight.copy_(_pair(w)[i])
            if m.linear.bias is not None:
                m.linear.bias.copy_(_pair(b)[i])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = m(_pair(x)[i], lib.tensor(t))
        loss.backward()
        res.append((repr(m), list(m.state_dict()), loss, m.linear.weight.grad))
    (tr, tk, tl, tg), (mr, mk, ml, mg) = res
    assert mr == tr and mk == tk
    np.testing.assert_allclose(ml.detach().numpy(), tl.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(mg.numpy(), tg.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("attn", [None, "bool2", "float2", "bool3"])
@pytest.mark.parametrize("padding", [None, "bool", "float"])
def test_merge_masks_matches_torch(attn, padding):
    rng = np.random.default_rng(3)
    batch, heads, seq = 2, 2, 3
    masks = {
        "bool2": rng.uniform(size=(seq, seq)) < 0.5,
        "float2": rng.standard_normal((seq, seq)),
        "bool3": rng.uniform(size=(batch * heads, seq, seq)) < 0.5,
        "bool": rng.uniform(size=(batch, seq)) < 0.5,
        "float": rng.standard_normal((batch, seq)),
    }
    res = []
    for lib in (torch, minitorch):
        m = lib.nn.MultiheadAttention(4, heads, batch_first=True)
        a = lib.tensor(masks[attn]) if attn else None
        k = lib.tensor(masks[padding]) if padding else None
        mask, kind = m.merge_masks(a, k, lib.zeros(batch, seq, 4))
        res.append(
            (kind, None if mask is None else (mask.tolist(), str(mask.dtype), mask.stride()))
        )
    assert res[0] == res[1]
