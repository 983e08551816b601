"""F.embedding's EmbeddingBackward0 node (NOTE [ The Embedding node ]) against torch, for every
option a model passes (padding_idx given as a row or from the end, scale_grad_by_freq, both),
index dtypes and shapes (0-d, 1-d, N-d, empty) and weight dtypes: the result and its layout
(no view: `_base` None, an in-place change records MulBackward0), grad_fn's name and every
_saved_<name>, the gradient with duplicate indices, a first gradient under create_graph and the
second order through it, and the errors of bad indices (a weight without columns names the bad
index). Not compared: the double-backward graph's node names (see test_s44_embed_reference)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

SAVED = ("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")
OPTIONS = [
    {},
    {"padding_idx": 3},
    {"padding_idx": -2},
    {"scale_grad_by_freq": True},
    {"padding_idx": 3, "scale_grad_by_freq": True},
]


def _program(shape, idx_dtype, wdtype, kw, module):
    rng = np.random.default_rng(11)
    idx_np = rng.integers(0, 6, size=shape)
    if idx_np.size > 3:
        idx_np.reshape(-1)[:3] = 3  # duplicates, on the padding row
    w_np = rng.standard_normal((6, 5))
    go_np = rng.standard_normal((*shape, 5))

    def prog(lib, rec):
        F = lib.nn.functional
        idx = lib.tensor(idx_np, dtype=getattr(lib, idx_dtype))
        dt = getattr(lib, wdtype)
        if module:
            emb = lib.nn.Embedding(6, 5, dtype=dt, **kw)
            with lib.no_grad():
                emb.weight.copy_(lib.tensor(w_np, dtype=dt))
            w = emb.weight

            def embed(i):
                return emb(i)
        else:
            w = lib.tensor(w_np, dtype=dt, requires_grad=True)

            def embed(i):
                return F.embedding(i, w, **kw)

        out = embed(idx)
        rec("out", out)
        rec("layout", str((list(out.stride()), out._base is None, out._is_view())))
        node = out.grad_fn
        rec("node", type(node).__name__)
        rec("next", str([type(e[0]).__name__ for e in node.next_functions]))
        for k in SAVED:
            v = getattr(node, "_saved_" + k)
            rec(k, "idx" if v is idx else v)
        go = lib.tensor(go_np, dtype=dt, requires_grad=True)
        (g,) = lib.autograd.grad(out, w, go, create_graph=True)
        rec("g", g)
        if idx_np.size:  # (torch's double backward fails to reshape an empty gradient)
            (gg,) = lib.autograd.grad((g * g).sum(), go)
            rec("gg", gg)
        embed(idx).backward(go.detach())
        rec("w.grad", w.grad)
        changed = embed(idx).mul_(2)
        rec("changed node", type(changed.grad_fn).__name__)
        changed.sum().backward()
        rec("w.grad 2", w.grad)
        with lib.no_grad():
            plain = embed(idx)
            rec("no_grad", plain)
            rec("no_grad layout", str((plain._base is None, plain.requires_grad)))

    return prog


@pytest.mark.parametrize("kw", OPTIONS)
@pytest.mark.parametrize(
    "shape, idx_dtype, wdtype, module",
    [
        ((4, 7), "int64", "float32", False),
        ((9,), "int32", "float64", True),
        ((), "int64", "float64", False),
        ((0, 2), "int64", "float32", True),
        ((2, 3, 4), "int32", "float64", False),
    ],
)
def test_embedding_matches_torch(shape, idx_dtype, wdtype, kw, module):
    torch = pytest.importorskip("torch")
    import minitorch

    prog = _program(shape, idx_dtype, wdtype, kw, module)
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    tol = 1e-12 if wdtype == "float64" else 1e-6
    assert_records_match(want, got, tol, floor=tol, rename=True)
    assert ("node", "EmbeddingBackward0") in got and ("changed node", "MulBackward0") in got


@pytest.mark.parametrize("kw", OPTIONS[:3])
def test_half_weight_matches_torch(kw):
    torch = pytest.importorskip("torch")
    import minitorch

    prog = _program((3, 8), "int64", "float16", kw, False)
    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 0.0, floor=0.0, rename=True)


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    import minitorch

    def prog(lib, rec):
        F = lib.nn.functional
        for grad in (False, True):
            w = lib.ones(6, 3, requires_grad=grad)
            for bad in ([0, 6], [[-1, 2]], [0.0], [True]):
                rec.err(f"{grad} {bad}", lambda bad=bad, w=w: F.embedding(lib.tensor(bad), w))
            rec.err(f"{grad} int32", lambda w=w: F.embedding(lib.tensor([7], dtype=lib.int32), w))
            rec.err(f"{grad} pad", lambda w=w: F.embedding(lib.tensor([0, 9]), w, padding_idx=1))
            empty = lib.zeros(3, 0, requires_grad=grad)
            rec.err(
                f"{grad} no columns", lambda e=empty: F.embedding(lib.tensor([[1, 7], [-1, 2]]), e)
            )
            out = F.embedding(lib.tensor([[1, 2]]), empty)
            rec(f"{grad} no columns out", str((list(out.shape), out.requires_grad)))

    want = run_program(prog, torch, rec=Rec())
    got = run_program(prog, minitorch, rec=Rec())
    assert_records_match(want, got, 0.0, rename=True)


BAG_CASES = [
    ([4, 1, 4, 0, 2, 4, 3], [0, 2, 2, 5], {}),
    ([4, 1, 4, 0, 2, 4, 3], [0, 2, 2, 5, 7], {"include_last_offset": True}),
    ([4, 1, 4, 0, 2, 4, 3], [0, 3], {"padding_idx": 4}),
    ([[4, 1, 4], [0, 2, 4]], None, {}),
    ([[4, 4], [4, 1]], None, {"padding_idx": -2}),
]


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("case", range(len(BAG_CASES)))
def test_embedding_bag_matches_torch(case, mode):
    torch = pytest.importorskip("torch")
    import minitorch

    idx_l, offsets_l, kw = BAG_CASES[case]
    rng = np.random.default_rng(case)
    w_np = rng.standard_normal((6, 3))

    def prog(lib, rec):
        F = lib.nn.functional
        idx = lib.tensor(idx_l)
        offsets = None if offsets_l is None else lib.tensor(offsets_l)
        w = lib.tensor(w_np, requires_grad=True)
        out = F.embedding_bag(idx, w, offsets, mode=mode, **kw)
        rec("out", out)
        rec("node", type(out.grad_fn).__name__)
        rec("next", str([type(e[0]).__name__ for e in out.grad_fn.next_functions]))
        go = lib.tensor(rng_go(out.shape))  # (torch's bag has no double backward)
        (g,) = lib.autograd.grad(out, w, go, retain_graph=True)
        rec("g", g)
        out.backward(go)
        rec("w.grad", w.grad)
        rec.err("again", lambda: out.backward(go))
        if offsets is not None:  # (a 2-D input: torch names its flattened view, minitorch it)
            out = F.embedding_bag(idx, w, offsets, mode=mode, **kw)
            idx.add_(0)
            rec.err("changed", lambda: out.sum().backward())

    def rng_go(shape):
        return np.random.default_rng(99).standard_normal(tuple(shape))

    want = run_program(prog, torch, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True))
    assert_records_match(want, got, 1e-12, floor=1e-12, rename=True)
    assert ("node", "EmbeddingBagBackward0") in got
