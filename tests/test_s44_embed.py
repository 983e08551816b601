"""F.embedding's common case (NOTE [ Embedding's common case ] in
minitorch/nn/_functional_sparse.py) gives exactly what the general route gives: the result,
its EmbeddingBackward0 node and saved values, gradients and double backward, errors, and the
modes that observe ops. The general route is called directly (`_general_embedding`) or forced
with the fast paths off."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import function
from minitorch.nn import _functional_sparse as sparse
from tests._cycles import cycles

F = mt.nn.functional
SAVED = ("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")


@pytest.fixture
def general():
    """Runs F.embedding by the general route (the fast paths off) inside its `with`."""

    class Off:
        def __enter__(self):
            function.fast_path[0] = False

        def __exit__(self, *exc):
            function.fast_path[0] = True

    return Off()


def _pair(shape=(8, 16), n=10, d=4, dtype=mt.int64, wdtype=mt.float32, seed=0):
    g = mt.Generator().manual_seed(seed)
    idx = mt.randint(0, n, shape, generator=g, dtype=dtype)
    w = mt.randn(n, d, generator=g, dtype=wdtype)
    return idx, w


def _names(fn, depth=0, out=None):
    out = [] if out is None else out
    if fn is not None:
        out.append((depth, type(fn).__name__))
        for e in fn.next_functions:
            _names(e[0], depth + 1, out)
    return out


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a.requires_grad == b.requires_grad and a.is_leaf == b.is_leaf
    assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()


def _run(embed, idx, w, grad_seed=1, nonleaf=False):
    """Forward, the node's view, a first gradient under create_graph and a second one."""
    w = w.detach().requires_grad_()
    weight = w * 2 if nonleaf else w
    out = embed(idx, weight)
    node = out.grad_fn
    seen = {
        "name": type(node).__name__,
        "class": type(node),
        "next": [type(e[0]).__name__ for e in node.next_functions],
        "saved": {k: getattr(node, "_saved_" + k) for k in SAVED},
    }
    go = mt.randn(out.shape, generator=mt.Generator().manual_seed(grad_seed)).requires_grad_()
    (gw,) = mt.autograd.grad(out, w, go, create_graph=True)
    seen["graph"] = _names(gw.grad_fn)
    (ggo,) = mt.autograd.grad((gw * gw).sum(), go)
    return out, gw, ggo, seen


@pytest.mark.parametrize(
    "shape, dtype, wdtype, nonleaf",
    [
        ((8, 16), mt.int64, mt.float32, False),
        ((5,), mt.int32, mt.float64, False),
        ((), mt.int64, mt.float32, False),
        ((0, 3), mt.int64, mt.float32, False),
        ((3, 4, 2), mt.int64, mt.float16, True),
    ],
)
def test_matches_the_general_route(shape, dtype, wdtype, nonleaf, monkeypatch):
    idx, w = _pair(shape, n=6, dtype=dtype, wdtype=wdtype)
    slow = _run(sparse._general_embedding, idx, w, nonleaf=nonleaf)
    monkeypatch.setattr(sparse, "_general_embedding", None)  # (the common case's route only)
    fast = _run(F.embedding, idx, w, nonleaf=nonleaf)
    for a, b in zip(fast[:3], slow[:3], strict=True):
        _same(a, b)
    fs, ss = fast[3], slow[3]
    assert fs["class"] is ss["class"] and fs["name"] == "EmbeddingBackward0"
    assert fs["next"] == ss["next"] == (["MulBackward0"] if nonleaf else ["AccumulateGrad"])
    assert fs["graph"] == ss["graph"]
    assert (0 + nonleaf, "IndexPutImplBackward0") in fs["graph"]
    saved_f, saved_s = fs["saved"], ss["saved"]
    assert saved_f.pop("indices") is idx and saved_s.pop("indices") is idx
    assert saved_f == saved_s
    assert saved_f["weight_sym_argsize_0"] == 6 and saved_f["padding_idx"] == 2**64 - 1


def test_duplicates_accumulate_bit_for_bit():
    idx = mt.tensor([[3, 3, 3, 1], [3, 0, 3, 3]])
    w = mt.randn(5, 7, generator=mt.Generator().manual_seed(3))
    go = mt.randn(2, 4, 7, generator=mt.Generator().manual_seed(4)) * 1e3
    grads = []
    for embed in (F.embedding, sparse._general_embedding):
        wl = w.clone().requires_grad_()
        embed(idx, wl).backward(go)
        grads.append(wl.grad)
    _same(*grads)
    assert not np.array_equal(grads[0][3].numpy(), grads[0][2].numpy())


def test_module_and_parameter(general):
    mt.manual_seed(0)
    emb = mt.nn.Embedding(9, 3)
    idx = mt.tensor([[1, 8, 1]])
    fast = emb(idx)
    with general:
        slow = emb(idx)
    _same(fast, slow)
    assert type(fast.grad_fn) is type(slow.grad_fn)
    assert fast.grad_fn.next_functions[0][0] is slow.grad_fn.next_functions[0][0]
    fast.sum().backward()
    g1 = emb.weight.grad.clone()
    emb.weight.grad = None
    slow.sum().backward()
    _same(g1, emb.weight.grad)


def test_freed_graph_and_changed_indices():
    for embed in (F.embedding, sparse._general_embedding):
        idx, w = _pair((2, 3))
        w.requires_grad_()
        out = embed(idx, w)
        out.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            _ = out.grad_fn._saved_indices
        assert out.grad_fn._saved_weight_sym_argsize_0 == 10
    msgs = []
    for embed in (F.embedding, sparse._general_embedding):
        idx, w = _pair((2, 3))
        w.requires_grad_()
        out = embed(idx, w)
        idx.add_(0)
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        msgs.append(str(err.value))
        msgs.append(out.grad_fn._saved_indices is idx)
    assert msgs[0] == msgs[2] and msgs[1] == msgs[3]
    assert "modified by an inplace operation" in msgs[0] and "is at version 1" in msgs[0]


@pytest.mark.parametrize("grad", [False, True])
def test_errors(grad):
    cases = [
        (mt.tensor([0, 10]), IndexError),
        (mt.tensor([-1, 2]), IndexError),
        (mt.tensor([0.0, 1.0]), RuntimeError),
        (mt.tensor([True]), RuntimeError),
    ]
    for idx, kind in cases:
        w = mt.randn(10, 3, requires_grad=grad)
        msgs = []
        for embed in (F.embedding, sparse._general_embedding):
            with pytest.raises(kind) as err:
                embed(idx, w)
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]
    w = mt.randn(0, 3, requires_grad=grad)  # (a shape check first)
    with pytest.raises(RuntimeError, match="axis dim should be positive"):
        F.embedding(mt.tensor([0]), w)
    w = mt.randn(4, 3, requires_grad=grad)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'norm"):
        F.embedding(mt.tensor([0]), w, norm_type=mt.tensor(2.0, requires_grad=True))


def test_no_grad_inference_and_plain_weight():
    idx, w = _pair((4, 5))
    wg = w.clone().requires_grad_()
    for ctx in (mt.no_grad, mt.inference_mode):
        with ctx():
            a = F.embedding(idx, wg)
            b = sparse._general_embedding(idx, wg)
        _same(a, b)
        assert a.grad_fn is None and a.is_inference() == b.is_inference()
    _same(F.embedding(idx, w), sparse._general_embedding(idx, w))
    with mt.inference_mode():
        inf_idx = idx.clone()
    msgs = []
    for embed in (F.embedding, sparse._general_embedding):
        with pytest.raises(RuntimeError) as err:
            embed(inf_idx, wg)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "Inference tensors cannot be saved" in msgs[0]


def test_hooks_retain_grad_and_saved_tensor_hooks():
    idx, w = _pair((3, 2))
    seen = []
    for embed in (F.embedding, sparse._general_embedding):
        packed = []
        wl = w.clone().requires_grad_()

        def pack(t, packed=packed):
            packed.append(tuple(t.shape))
            return t

        with mt.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = embed(idx, wl)
        out.retain_grad()
        calls = []
        out.register_hook(lambda g, calls=calls: calls.append(tuple(g.shape)) or g * 3)
        out.grad_fn.register_hook(lambda gi, go, calls=calls: calls.append(len(gi)))
        out.sum().backward()
        seen.append((packed, calls, out.grad.numpy().tolist(), wl.grad.numpy().tolist()))
    assert seen[0] == seen[1]
    assert seen[0][1] == [(3, 2, 4), 1]


def test_anomaly_mode_and_profiler():
    idx, w = _pair((2, 2))
    w.requires_grad_()
    with pytest.warns(UserWarning, match="Anomaly"), mt.autograd.detect_anomaly(check_nan=True):
        out = F.embedding(idx, w)
        assert type(out.grad_fn).__name__ == "EmbeddingBackward0"
        out.sum().backward()
    names = []
    for embed in (F.embedding, sparse._general_embedding):
        with mt.autograd.profiler.profile() as prof:
            embed(idx, w).sum().backward()
        names.append(sorted(e.name for e in prof.function_events))
    assert names[0] == names[1] and names[0]


def test_other_arguments_take_the_general_route(general):
    idx = mt.tensor([[0, 2, 2], [1, 0, 3]])
    kwargs = [
        {"padding_idx": 2},
        {"scale_grad_by_freq": True},
        {"sparse": True},
        {"max_norm": 1.0},
        {"norm_type": 2},
    ]
    for kw in kwargs:
        outs = []
        for off in (False, True):
            w = mt.randn(4, 3, generator=mt.Generator().manual_seed(5)).requires_grad_()
            if off:
                with general:
                    out = F.embedding(idx, w, **kw)
            else:
                out = F.embedding(idx, w, **kw)
            out.backward(mt.ones_like(out))
            outs.append((out, w.grad))
        _same(outs[0][0], outs[1][0])
        _same(outs[0][1], outs[1][1])


def test_device(device):
    idx = mt.tensor([[0, 2, 2]], device=device)
    w = mt.randn(4, 3, generator=mt.Generator().manual_seed(6)).to(device).requires_grad_()
    out = F.embedding(idx, w)
    assert out.device == w.device and type(out.grad_fn).__name__ == "EmbeddingBackward0"
    out.sum().backward()
    assert w.grad.cpu().numpy().tolist()[2] == [2.0, 2.0, 2.0]
    _same(out.cpu(), sparse._general_embedding(idx, w).cpu())


def test_no_referencecycles():
    def step(create_graph):
        idx = mt.tensor([[1, 2], [2, 0]])
        w = mt.randn(4, 3, requires_grad=True)
        out = F.embedding(idx, w)
        if create_graph:
            go = mt.ones(2, 2, 3, requires_grad=True)
            (g,) = mt.autograd.grad(out, w, go, create_graph=True)
            g.sum().backward()
        else:
            out.sum().backward()

    assert cycles(lambda: step(False)) == 0
    assert cycles(lambda: step(True)) == 0


def test_walk_order():
    # the node is made after its inner nodes, as as_node makes it: the backward runs the nodes
    # of a graph in the same order (the hooks see it)
    orders = []
    for embed in (F.embedding, sparse._general_embedding):
        idx, w = _pair((2, 3))
        w.requires_grad_()
        order = []
        a = w * 3
        b = embed(idx, w)
        c = w.exp()
        d = embed(idx, a)
        for name, t in (("a", a), ("b", b), ("c", c), ("d", d)):
            t.grad_fn.register_prehook(lambda g, name=name, order=order: order.append(name))
        (a.sum() + c.sum() + d.sum() + b.sum()).backward()
        orders.append(order)
    assert orders[0] == orders[1] and sorted(orders[0]) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("case", ["strided indices", "strided weight", "view weight", "twice"])
def test_more_layouts(case):
    results = []
    for embed in (F.embedding, sparse._general_embedding):
        idx, w = _pair((4, 3), n=7)
        w.requires_grad_()
        rec = []
        if case == "strided indices":
            out = embed(idx.t(), w)
        elif case == "strided weight":
            out = embed(idx, w.t().contiguous().t())
        elif case == "view weight":
            base = w * 1
            view = base[1:]
            view.mul_(2)  # (the view's grad_fn is regenerated at the next use)
            out = embed(idx.clamp(max=5), view)
        else:
            out = embed(idx, w)
            out.backward(mt.ones_like(out), retain_graph=True)
        rec.append(type(out.grad_fn).__name__)
        rec.append([type(e[0]).__name__ for e in out.grad_fn.next_functions])
        out.backward(out.detach() * 3)
        results.append((out, w.grad, rec))
    _same(results[0][0], results[1][0])
    _same(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]
