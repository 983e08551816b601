"""F.embedding's common case against torch (helper embed, session 44; NOTE [ Embedding's common
case ]): the result, grad_fn's class and next_functions, every grad_fn._saved_<name> (the
indices by identity), the gradient with duplicate indices, a first gradient under create_graph
and the second-order gradient through it, the freed-graph and in-place refusals, and the
errors for bad indices.

Not compared: the node names of the double-backward graph (torch's kernel is one
EmbeddingDenseBackwardBackward0 node; minitorch's backward runs index_select's, an
IndexPutImplBackward0 node), which tests/test_s44_embed.py compares with the general route."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

SAVED = ("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")


def _program(shape, idx_dtype, wdtype, module=False):
    rng = np.random.default_rng(7)
    idx_np = rng.integers(0, 6, size=shape)
    idx_np.reshape(-1)[:2] = 3  # duplicates
    w_np = rng.standard_normal((6, 5))
    go_np = rng.standard_normal((*shape, 5))

    def prog(lib, rec):
        F = lib.nn.functional
        idx = lib.tensor(idx_np, dtype=getattr(lib, idx_dtype))
        dt = getattr(lib, wdtype)
        if module:
            emb = lib.nn.Embedding(6, 5, dtype=dt)
            with lib.no_grad():
                emb.weight.copy_(lib.tensor(w_np, dtype=dt))
            w = emb.weight
            out = emb(idx)
        else:
            w = lib.tensor(w_np, dtype=dt, requires_grad=True)
            out = F.embedding(idx, w)
        rec("out", out)
        rec("stride", list(out.stride()))
        node = out.grad_fn
        rec("node", type(node).__name__)
        rec("next", str([type(e[0]).__name__ for e in node.next_functions]))
        for k in SAVED:
            v = getattr(node, "_saved_" + k)
            rec(k, "idx" if v is idx else v)
        go = lib.tensor(go_np, dtype=dt, requires_grad=True)
        (g,) = lib.autograd.grad(out, w, go, create_graph=True)
        rec("g", g)
        rec("g.requires_grad", str(g.requires_grad))
        (gg,) = lib.autograd.grad((g * g).sum(), go)
        rec("gg", gg)
        rec.err("saved after grad", lambda: node._saved_indices)
        out2 = F.embedding(idx, w)
        out2.backward(go.detach())
        rec("w.grad", w.grad)
        out3 = F.embedding(idx, w)
        idx.add_(0)
        rec.err("changed indices", lambda: out3.sum().backward())
        with lib.no_grad():
            rec("no_grad", F.embedding(idx, w))
        for bad in ([0, 6], [-1], [7.0]):
            rec.err(f"bad {bad}", lambda bad=bad: F.embedding(lib.tensor(bad), w))

    return prog


@pytest.mark.parametrize(
    "shape, idx_dtype, wdtype, module",
    [
        ((8, 16), "int64", "float32", False),
        ((7,), "int32", "float64", False),
        ((2, 3, 4), "int64", "float32", True),
    ],
)
def test_embedding_matches_torch(shape, idx_dtype, wdtype, module):
    torch = pytest.importorskip("torch")
    import minitorch

    prog = _program(shape, idx_dtype, wdtype, module)
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 1e-12, floor=1e-12, rename=True)
    assert ("node", "EmbeddingBackward0") in got
