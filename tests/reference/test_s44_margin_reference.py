"""The margin loss nodes' saved values against torch (helper margin, session 44): for
soft_margin_loss, multi_margin_loss and multilabel_margin_loss (the losses of
minitorch/nn/_functional_loss_margin.py whose torch node is their kernel's), every reduction and
the options (weight, p, an int / float / bool margin, vector and scalar inputs, a target of
another dtype, the legacy size_average), grad_fn's class, next_functions and every
grad_fn._saved_<name> torch's node has: tensors by value and by which argument they are, numbers
exactly with their Python type; then what each reads after a backward freed the graph, after an
argument changed in place, and what backward raises then (NOTE [ Margin loss nodes' saved
values ]). Also the other losses of that file and the composed ones of
minitorch/nn/_functional_loss.py (l1, kl_div, poisson_nll): their result node's class, edges and
saved names, where they match torch's.

Not compared: _raw_saved_<name> (composite nodes keep no SavedTensor entries), and the inner
nodes of the composed losses (their ops' own nodes; see the report of helper margin).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((4, 3))
_Y = _RNG.standard_normal((4, 3))
_Z = _RNG.standard_normal((4, 3))
_S = np.sign(_RNG.standard_normal((4, 3)))
_SV = np.sign(_RNG.standard_normal(4))
_W = _RNG.uniform(0.5, 2, 3)
_C = np.array([0, 2, 1, 2])
_ML = np.array([[0, 1, -1], [2, -1, 0], [1, 0, 2], [-1, 0, 0]])


def _args(lib):
    t = lib.tensor
    return {
        "x": t(_X, dtype=lib.float32, requires_grad=True),
        "x64": t(_X, dtype=lib.float64, requires_grad=True),
        "y": t(_Y, dtype=lib.float32, requires_grad=True),
        "z": t(_Z, dtype=lib.float32, requires_grad=True),
        "s": t(_S, dtype=lib.float32),
        "s64": t(_S, dtype=lib.float64),
        "sv": t(_SV, dtype=lib.float32),
        "w": t(_W, dtype=lib.float32),
        "w64": t(_W, dtype=lib.float64),
        "c": t(_C),
        "ml": t(_ML),
        "pos": t(np.abs(_Y), dtype=lib.float32),
    }


def _cases(lib, a, r):
    F = lib.nn.functional
    x, x64, y, z, s, s64, sv, w, w64, c, ml, pos = (
        a[k] for k in ("x", "x64", "y", "z", "s", "s64", "sv", "w", "w64", "c", "ml", "pos")
    )
    return {
        "soft_margin": lambda: F.soft_margin_loss(x, s, reduction=r),
        "soft_margin_target64": lambda: F.soft_margin_loss(x, s64, reduction=r),
        "soft_margin_1d": lambda: F.soft_margin_loss(x[0], s[0], reduction=r),
        "soft_margin_module": lambda: lib.nn.SoftMarginLoss(reduction=r)(x64, s),
        "multi_margin": lambda: F.multi_margin_loss(x, c, reduction=r),
        "multi_margin_p2_weight": lambda: F.multi_margin_loss(
            x, c, p=2, margin=0.5, weight=w, reduction=r
        ),
        "multi_margin_int_margin": lambda: F.multi_margin_loss(x64, c, margin=2, weight=w64),
        "multi_margin_bool_margin_float_p": lambda: F.multi_margin_loss(
            x, c, p=2.0, margin=True, reduction=r
        ),
        "multi_margin_1d": lambda: F.multi_margin_loss(x[1], c[1], reduction=r),
        "multi_margin_module": lambda: lib.nn.MultiMarginLoss(weight=w, reduction=r)(x, c),
        "multi_margin_legacy": lambda: F.multi_margin_loss(x, c, size_average=False),
        "multilabel_margin": lambda: F.multilabel_margin_loss(x, ml, reduction=r),
        "multilabel_margin_64": lambda: F.multilabel_margin_loss(x64, ml, reduction=r),
        "multilabel_margin_1d": lambda: F.multilabel_margin_loss(x[0], ml[0], reduction=r),
        "multilabel_margin_0d": lambda: F.multilabel_margin_loss(x[0, 0], c[0] * 0, reduction=r),
        "multilabel_margin_module": lambda: lib.nn.MultiLabelMarginLoss(reduction=r)(x, ml),
        # composed losses: the result's node only (its edges lead to their ops' nodes)
        "hinge": lambda: F.hinge_embedding_loss(x, s, reduction=r),
        "cosine": lambda: F.cosine_embedding_loss(x, y, sv, reduction=r),
        "ranking": lambda: F.margin_ranking_loss(x[:, 0], y[:, 0], sv, reduction=r),
        "triplet": lambda: F.triplet_margin_loss(x, y, z, reduction=r),
        "triplet_distance": lambda: F.triplet_margin_with_distance_loss(x, y, z, reduction=r),
        "multilabel_soft_margin": lambda: F.multilabel_soft_margin_loss(x, pos, w, reduction=r),
        "l1": lambda: F.l1_loss(x, y, reduction=r),
        "kl_div": lambda: F.kl_div(x.log_softmax(1), pos, reduction=r),
        "poisson_nll": lambda: F.poisson_nll_loss(x, pos, reduction=r),
        "gaussian_nll": lambda: F.gaussian_nll_loss(x, y, pos, reduction=r),
    }


_COMPOSED = (
    "hinge", "cosine", "ranking", "triplet", "triplet_distance", "multilabel_soft_margin", "l1",
    "kl_div", "poisson_nll", "gaussian_nll",
)  # fmt: skip


def _read(rec, label, node, attr, args):
    try:
        v = getattr(node, attr)
    except Exception as e:  # noqa: BLE001 - the error is the record
        rec(label, f"{type(e).__name__}: {str(e)[:120]}")
        return
    if hasattr(v, "detach"):
        rec(label + ".is", str([k for k, a in args.items() if v is a]))
        rec(label + ".dtype", str(v.dtype).split(".")[-1])
        fn = None if v.grad_fn is None else type(v.grad_fn).__name__
        rec(label + ".meta", str((tuple(v.shape), v.stride(), v.requires_grad, fn)))
        rec(label, v)
    else:
        rec(label, f"{type(v).__name__} {v!r}")


def _backward(rec, label, loss):
    try:
        loss.sum().backward()
        rec(label, "ok")
    except RuntimeError as e:
        rec(label, f"{type(e).__name__}: {str(e)[:160]}")


def _program(reduction):
    def prog(lib, rec):
        for name in _cases(lib, _args(lib), reduction):
            args = _args(lib)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the legacy and kl_div 'mean' warnings)
                loss = _cases(lib, args, reduction)[name]()
            node = loss.grad_fn
            rec(f"{name}.class", type(node).__name__)
            nxt = [(None if n is None else type(n).__name__, i) for n, i in node.next_functions]
            rec(f"{name}.next", str(nxt))
            names = sorted(k for k in dir(node) if k.startswith("_saved_"))
            rec(f"{name}.names", str(names))
            if name in _COMPOSED:
                continue
            for k in names:
                _read(rec, f"{name}.{k}", node, k, args)
            _read(rec, f"{name}.again", node, "_saved_self", args)
            _backward(rec, f"{name}.backward", loss)  # frees the graph
            for k in names:
                _read(rec, f"{name}.{k}.freed", node, k, args)
            for changed in args:  # one argument changed in place: the reads, then backward
                args = _args(lib)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    loss = _cases(lib, args, reduction)[name]()
                node = loss.grad_fn
                with lib.no_grad():
                    args[changed].add_(0)
                for k in names:
                    _read(rec, f"{name}.{changed}.{k}.modified", node, k, args)
                _backward(rec, f"{name}.{changed}.backward", loss)

    return prog


def _graph(node, seen, out, depth=0):
    """The graph below node: each node's class, in next_functions' order (a node met again
    shown once more by name only)."""
    if node is None:
        out.append(f"{depth} None")
        return
    out.append(f"{depth} {type(node).__name__}{' again' if id(node) in seen else ''}")
    if id(node) in seen:
        return
    seen.add(id(node))
    for n, _ in node.next_functions:
        _graph(n, seen, out, depth + 1)


# the composed losses whose whole graph is torch's, node for node. Not hinge and cosine: torch's
# margin - input and 1 - cos are SubBackward0 of a filled tensor (minitorch: RsubBackward1), and
# cosine's + eps and - margin are Scalar ops (AddBackward1, SubBackward1; minitorch: Backward0
# with an undefined edge); nor gaussian_nll and poisson_nll(log_input=False)
# (minitorch/nn/_functional_loss.py)
_WHOLE = ("ranking", "triplet", "triplet_distance", "multilabel_soft_margin", "l1", "kl_div")


def _graph_program(reduction):
    def prog(lib, rec):
        for name in _WHOLE:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loss = _cases(lib, _args(lib), reduction)[name]()
            out = []
            _graph(loss.grad_fn, set(), out)
            rec(name, "\n".join(out))

    return prog


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_composed_loss_graphs_match_torch(reduction):
    import minitorch

    want = run_program(_graph_program(reduction), torch, rec=Rec())
    got = run_program(_graph_program(reduction), minitorch, rec=Rec())
    assert_records_match(want, got, 0)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_margin_loss_nodes_saved_values_match_torch(reduction):
    import minitorch

    want = run_program(_program(reduction), torch, rec=Rec())
    got = run_program(_program(reduction), minitorch, rec=Rec())
    assert_records_match(want, got, 1e-6)


def _is_target_program(lib, rec):
    # torch's is_target: the same Tensor at each read, a plain tensor of input's dtype, refused
    # (also at backward? no: torch's backward reads its own saved copy) once changed in place
    F = lib.nn.functional
    a = _args(lib)
    for x in (a["x"], a["x64"]):
        loss = F.multilabel_margin_loss(x, a["ml"])
        node = loss.grad_fn
        first = node._saved_is_target
        rec("same", str(first is node._saved_is_target))
        rec("version", str(first._version))
        first.add_(1)
        _read(rec, "changed", node, "_saved_is_target", a)
        _backward(rec, "backward", loss)
    loss = F.multilabel_margin_loss(a["x"], a["ml"])
    loss.backward(retain_graph=True)
    _read(rec, "retained", loss.grad_fn, "_saved_is_target", a)


def test_multilabel_is_target_matches_torch():
    import minitorch

    want = run_program(_is_target_program, torch, rec=Rec())
    got = run_program(_is_target_program, minitorch, rec=Rec())
    assert_records_match(want, got, 0)
