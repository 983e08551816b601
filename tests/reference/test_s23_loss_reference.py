"""Session 23: a seeded slice of the loss fuzzer, against torch (float64 values and input
gradients, warnings, exception type and message) over the losses' option spaces."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _cases(seed):
    r = random.Random(seed)
    rs = np.random.RandomState(seed)
    red = r.choice(["none", "mean", "sum", "elementwise_mean", "avg", "batchmean"])
    legacy = {}
    if r.random() < 0.2:
        legacy = {"size_average": r.choice([True, False]), "reduce": r.choice([None, False])}
    n, c = r.randint(0, 3), r.randint(1, 4)
    x = rs.uniform(-2, 2, (n, c))
    out = []
    t = rs.randint(0, c, n)
    ii = r.choice([-100, 0, -1])
    if r.random() < 0.3:
        t = np.full(n, ii)
    ce = {"ignore_index": ii, "label_smoothing": r.choice([0.0, 0.2, 1.0]), "reduction": red}
    if r.random() < 0.5:
        ce["weight"] = ("T", rs.uniform(0.1, 2, c))
    out.append(("cross_entropy", [("G", x), ("L", t)], {**ce, **legacy}))
    out.append(
        ("cross_entropy", [("G", x), ("G", rs.dirichlet(np.ones(c), n))], {"reduction": red})
    )
    sh = (n, c)
    p = np.where(rs.rand(*sh) < 0.3, rs.randint(0, 2, sh), rs.uniform(0.01, 0.99, sh))
    out.append(
        ("binary_cross_entropy", [("G", p), ("G", rs.uniform(0, 1, sh))], {"reduction": red})
    )
    bk = {"reduction": red, "pos_weight": ("T", rs.uniform(0.1, 2, (c,)))}
    out.append(("binary_cross_entropy_with_logits", [("G", x), ("G", rs.uniform(0, 1, sh))], bk))
    kl = {"reduction": red, "log_target": r.random() < 0.5, **legacy}
    out.append(("kl_div", [("G", np.log(rs.uniform(0.1, 1, sh))), ("G", rs.uniform(0, 1, sh))], kl))
    pk = {"log_input": r.random() < 0.5, "full": r.random() < 0.5, "reduction": red}
    out.append(
        ("poisson_nll_loss", [("G", rs.uniform(0.1, 2, sh)), ("G", rs.randint(0, 4, sh))], pk)
    )
    vs = r.choice([sh, sh[:-1], sh[:-1] + (1,)])
    out.append(
        ("gaussian_nll_loss", [("G", x), ("G", x[::-1].copy()), ("G", rs.uniform(0, 2, vs))],
         {"full": r.random() < 0.5, "reduction": red}),
    )  # fmt: skip
    w = {"weight": ("T", rs.uniform(0.1, 2, sh))} if r.random() < 0.4 else {}
    for f in ("mse_loss", "l1_loss"):
        out.append((f, [("G", x), ("G", rs.uniform(-2, 2, sh))], {"reduction": red, **w, **legacy}))
    out.append(
        ("huber_loss", [("G", x), ("G", rs.uniform(-2, 2, sh))],
         {"reduction": red, "delta": r.choice([0.5, 1.0]), **w}),
    )  # fmt: skip
    out.append(
        ("smooth_l1_loss", [("G", x), ("G", rs.uniform(-2, 2, sh))],
         {"reduction": red, "beta": r.choice([0.0, 1.0])}),
    )  # fmt: skip
    mm = {"p": r.choice([1, 2]), "margin": r.choice([0.5, 1.0]), "reduction": red}
    if n:  # (torch's mean over an empty batch reads uninitialised memory)
        out.append(("multi_margin_loss", [("G", x), ("L", rs.randint(0, c, n))], mm))
    out.append(
        ("multilabel_soft_margin_loss", [("G", x), ("G", rs.randint(0, 2, sh))], {"reduction": red})
    )
    return out


def _build(lib, spec):
    kind, a = spec
    dt = lib.int64 if kind == "L" else lib.float64
    t = lib.tensor(np.asarray(a).tolist(), dtype=dt).reshape(np.asarray(a).shape)
    return t.requires_grad_() if kind == "G" else t


def _run(lib, name, args, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            a = [_build(lib, s) for s in args]
            k = {n: _build(lib, v) if isinstance(v, tuple) else v for n, v in kw.items()}
            out = getattr(lib.nn.functional, name)(*a, **k)
            ins = [t for t in a if t.requires_grad]
            g = lib.autograd.grad(out.sum(), ins, allow_unused=True) if out.requires_grad else []
            res = (out.detach().numpy(), [None if x is None else x.numpy() for x in g])
        except Exception as e:  # noqa: BLE001
            res = (type(e).__name__, str(e))
    msgs = sorted({str(m.message) for m in w if "encountered in" not in str(m.message)})
    return res, msgs


@pytest.mark.parametrize("seed", range(40))
def test_losses_match_torch(seed):
    for name, args, kw in _cases(seed):
        (rt, wt), (rm, wm) = _run(torch, name, args, kw), _run(minitorch, name, args, kw)
        where = f"{name} {kw}"
        assert wt == wm, where
        if isinstance(rt[0], str):
            assert rm == rt, where
            continue
        assert not isinstance(rm[0], str), (where, rm)
        np.testing.assert_allclose(rm[0], rt[0], rtol=1e-10, atol=1e-12, err_msg=where)
        assert len(rm[1]) == len(rt[1]), where
        for gm, gt in zip(rm[1], rt[1], strict=True):
            if gt is None:
                continue
            # (1e-8: at a probability of exactly 0 or 1 torch's BCE gradient divides by
            # float32's 1e-12, 4e-9 below the 1e-12 of minitorch's kernel)
            np.testing.assert_allclose(gm, gt, rtol=1e-8, atol=1e-12, err_msg=where)
