"""The loss nodes' saved values against torch (helper loss2, session 44): for each loss of
nn.functional (and a few nn loss modules) whose node is torch's loss kernel, every reduction and
the options (weight, pos_weight, beta, delta, ignore_index, label smoothing), grad_fn's class,
next_functions and every grad_fn._saved_<name> torch's node has: tensors by value and by which
argument they are (the same object as torch's), numbers exactly; then what each reads after a
backward freed the graph, and after an argument changed in place (NOTE [ Loss nodes' saved
values ], NOTE [ nll_loss's saved values ]).

Not compared: _raw_saved_<name> (the composite nodes keep no SavedTensor; see the NOTE), and the
losses whose nodes are composed ops (l1, kl_div, poisson, gaussian, cosine, triplet, ...), whose
ops' own nodes the op tables compare.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((4, 3))
_P = _RNG.uniform(0.05, 0.95, (4, 3))
_T = _RNG.uniform(0, 1, (4, 3))
_W = _RNG.uniform(0.5, 2, 3)
_C = np.array([0, 2, 1, 2])


def _args(lib):
    t = lib.tensor
    return {
        "x": t(_X, dtype=lib.float32, requires_grad=True),
        "p": t(_P, dtype=lib.float32, requires_grad=True),
        "t": t(_T, dtype=lib.float32),
        "w": t(_W, dtype=lib.float32),
        "pw": t(_W[::-1].copy(), dtype=lib.float32),
        "c": t(_C),
        "t64": t(_T, dtype=lib.float64),
        "w64": t(_W, dtype=lib.float64),
        "c8": t(_C, dtype=lib.uint8),
    }


def _cases(lib, a, reduction):
    F = lib.nn.functional
    r = reduction
    x, p, t, w, pw, c, t64, w64, c8 = (
        a[k] for k in ("x", "p", "t", "w", "pw", "c", "t64", "w64", "c8")
    )
    return {
        "mse": lambda: F.mse_loss(x, t, reduction=r),
        "mse_broadcast": lambda: F.mse_loss(x, t[0], reduction=r),
        "mse_module": lambda: lib.nn.MSELoss(reduction=r)(x, t),
        "smooth_l1": lambda: F.smooth_l1_loss(x, t, reduction=r, beta=0.5),
        "smooth_l1_default": lambda: lib.nn.SmoothL1Loss(reduction=r)(x, t),
        "huber": lambda: F.huber_loss(x, t, reduction=r, delta=0.7),
        "huber_module": lambda: lib.nn.HuberLoss(reduction=r, delta=2.0)(x, t),
        "bce": lambda: F.binary_cross_entropy(p, t, reduction=r),
        "bce_weight": lambda: F.binary_cross_entropy(p, t, w, reduction=r),
        "bce_target_grad": lambda: F.binary_cross_entropy(p, p.detach().requires_grad_(), None),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, t, reduction=r),
        "bce_logits_weights": lambda: F.binary_cross_entropy_with_logits(
            x, t, w, reduction=r, pos_weight=pw
        ),
        "bce_logits_module": lambda: lib.nn.BCEWithLogitsLoss(pos_weight=pw, reduction=r)(x, t),
        "nll": lambda: F.nll_loss(x, c, reduction=r),
        "nll_weight_ignore": lambda: F.nll_loss(x, c, w, ignore_index=1, reduction=r),
        "nll_1d": lambda: F.nll_loss(x[0], c[0], reduction=r),
        "nll_4d": lambda: F.nll_loss(
            x.reshape(1, 3, 2, 2), c.reshape(1, 2, 2).clamp(max=2), reduction=r
        ),
        "cross_entropy": lambda: F.cross_entropy(x, c, reduction=r),
        "cross_entropy_module": lambda: lib.nn.CrossEntropyLoss(w, ignore_index=2)(x, c),
        # mixed dtypes: torch's node saves (and its edges lead to) the tensors as given
        "mse_mixed": lambda: F.mse_loss(x, t64, reduction=r),
        "smooth_l1_mixed_int_beta": lambda: F.smooth_l1_loss(x, t64, reduction=r, beta=2),
        "huber_int_delta": lambda: F.huber_loss(x, t, reduction=r, delta=2),
        "bce_weight64": lambda: F.binary_cross_entropy(p, t, w64, reduction=r),
        "bce_logits_weights64": lambda: F.binary_cross_entropy_with_logits(
            x, t, w64, reduction=r, pos_weight=w64
        ),
        "nll_uint8": lambda: F.nll_loss(x, c8, reduction=r),
        "nll_1d_uint8": lambda: F.nll_loss(x[1], c8[1], reduction=r),
    }


def _describe(rec, name, node, args):
    """grad_fn's class, next_functions and its _saved_<name> values (not the raw ones)."""
    rec(f"{name}.class", type(node).__name__)
    nxt = [(None if n is None else type(n).__name__, i) for n, i in node.next_functions]
    rec(f"{name}.next", str(nxt))
    names = sorted(k for k in dir(node) if k.startswith("_saved_"))
    rec(f"{name}.names", str(names))
    for k in names:
        _read(rec, f"{name}.{k}", node, k, args)
    return names


def _read(rec, label, node, attr, args):
    try:
        v = getattr(node, attr)
    except Exception as e:  # noqa: BLE001 - the error is the record
        rec(label, f"{type(e).__name__}: {str(e)[:80]}")
        return
    if hasattr(v, "detach"):
        same = [k for k, a in args.items() if v is a]
        rec(label + ".is", str(same))
        rec(label + ".dtype", str(v.dtype).split(".")[-1])
        rec(label, v)
    else:
        rec(label, repr(v))


def _program(reduction):
    def prog(lib, rec):
        for name in _cases(lib, _args(lib), reduction):
            args = _args(lib)
            loss = _cases(lib, args, reduction)[name]()
            node = loss.grad_fn
            names = _describe(rec, name, node, args)
            loss.sum().backward()  # frees the graph
            for k in names:
                _read(rec, f"{name}.{k}.freed", node, k, args)
            args = _args(lib)  # then each argument changed in place before a read
            loss = _cases(lib, args, reduction)[name]()
            node = loss.grad_fn
            with lib.no_grad():
                for k in args:
                    args[k].add_(0)
            for k in names:
                _read(rec, f"{name}.{k}.modified", node, k, args)

    return prog


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_loss_nodes_saved_values_match_torch(reduction):
    import minitorch

    want = run_program(_program(reduction), torch, rec=Rec())
    got = run_program(_program(reduction), minitorch, rec=Rec())
    assert_records_match(want, got, 1e-6)  # (log_softmax's values: torch's last bits)
