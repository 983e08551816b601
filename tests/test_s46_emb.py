"""F.embedding's EmbeddingBackward0 node (NOTE [ The Embedding node ] in
minitorch/nn/_functional_sparse.py) against the composite route it replaced, which is kept for
dispatching subclasses (`_composite_embedding`): the same results, gradients bit for bit
(backward's data-level path and the Tensor formula, create_graph and the second order), the
same double-backward graph and saved values, for every option (padding_idx, scale_grad_by_freq,
sparse, max_norm), index and weight dtype and index shape; float64 gradcheck/gradgradcheck;
the result is no view of an intermediate; errors; the fast path against the general route."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import engine, function
from minitorch.nn import _functional_sparse as sparse

F = mt.nn.functional
SAVED = ("indices", "padding_idx", "scale_grad_by_freq", "sparse", "weight_sym_argsize_0")


@pytest.fixture
def data_backward_off():
    """Runs every node's Tensor backward (NOTE [ Data-level backward ]) inside its `with`."""

    class Off:
        def __enter__(self):
            engine.DATA_BACKWARD = False

        def __exit__(self, *exc):
            engine.DATA_BACKWARD = True

    return Off()


def _pair(shape, n=6, d=4, dtype=mt.int64, wdtype=mt.float32, seed=0):
    g = mt.Generator().manual_seed(seed)
    idx = mt.randint(0, n, shape, generator=g, dtype=dtype)
    if idx.numel() > 2:
        idx.view(-1)[:3] = 2  # duplicates (and the padding row of the options below)
    w = mt.randn(n, d, generator=g, dtype=mt.float64).to(wdtype)
    return idx, w


def _bits(t):
    return (str(t.dtype), tuple(t.shape), t.stride(), t.detach().numpy().tobytes())


def _names(fn, out=None, depth=0):
    out = [] if out is None else out
    if fn is not None:
        out.append((depth, type(fn).__name__))
        for e in fn.next_functions:
            _names(e[0], out, depth + 1)
    return out


def _run(embed, idx, w, kw, seed=1):
    """Forward, the node's view, backward(), a first gradient under create_graph and the
    second-order gradient through it."""
    w = w.detach().clone().requires_grad_()
    out = embed(idx, w, **kw)
    node = out.grad_fn
    seen = {
        "out": _bits(out),
        "name": type(node).__name__,
        "next": [type(e[0]).__name__ for e in node.next_functions],
        "saved": {k: getattr(node, "_saved_" + k) for k in SAVED},
    }
    gen = mt.Generator().manual_seed(seed)
    go = (mt.randn(out.shape, generator=gen, dtype=mt.float64) * 3).to(out.dtype)
    embed(idx, w, **kw).backward(go)
    seen["grad"] = _bits(w.grad)
    go = go.requires_grad_()
    (gw,) = mt.autograd.grad(embed(idx, w, **kw), w, go, create_graph=True)
    seen["grad_cg"] = _bits(gw)
    seen["graph"] = _names(gw.grad_fn)
    (ggo,) = mt.autograd.grad((gw * gw).sum(), go)
    seen["gg"] = _bits(ggo)
    return seen


OPTIONS = [
    {},
    {"padding_idx": 2},
    {"padding_idx": -4},
    {"scale_grad_by_freq": True},
    {"padding_idx": 2, "scale_grad_by_freq": True},
    {"sparse": True},
]


@pytest.mark.parametrize("kw", OPTIONS)
@pytest.mark.parametrize(
    "shape, dtype, wdtype",
    [
        ((4, 5), mt.int64, mt.float32),
        ((7,), mt.int32, mt.float64),
        ((), mt.int64, mt.float32),
        ((0, 3), mt.int64, mt.float64),
        ((3, 2, 4), mt.int32, mt.float16),
    ],
)
def test_matches_the_composite_route(shape, dtype, wdtype, kw):
    idx, w = _pair(shape, dtype=dtype, wdtype=wdtype)
    old = _run(sparse._composite_embedding, idx, w, kw)
    new = _run(F.embedding, idx, w, kw)
    assert new == old
    assert new["name"] == "EmbeddingBackward0" and new["next"] == ["AccumulateGrad"]
    padding = kw.get("padding_idx")
    assert new["saved"]["padding_idx"] == (2**64 - 1 if padding is None else padding % 6)
    assert new["saved"]["indices"] is idx
    assert ("IndexPutImplBackward0" in dict(new["graph"]).values()) == bool(idx.numel() or 1)


@pytest.mark.parametrize("kw", OPTIONS[:5])
def test_tensor_formula_matches_the_data_path(kw, data_backward_off):
    idx, w = _pair((5, 3), wdtype=mt.float64, seed=4)
    fast = _run(F.embedding, idx, w, kw, seed=5)
    with data_backward_off:
        slow = _run(F.embedding, idx, w, kw, seed=5)
    assert fast == slow
    # the padding row gets no gradient, even a NaN one
    if kw.get("padding_idx") is not None:
        wl = w.clone().requires_grad_()
        out = F.embedding(idx, wl, **kw)
        go = mt.full(out.shape, float("nan"), dtype=out.dtype)
        out.backward(go)
        assert wl.grad[2].tolist() == [0.0] * 4
        assert bool(wl.grad[idx.view(-1)[3]].isnan().all()) == (int(idx.view(-1)[3]) != 2)


def test_duplicates_accumulate_bit_for_bit():
    idx = mt.tensor([[3, 3, 3, 1], [3, 0, 3, 3]])
    w = mt.randn(5, 7, generator=mt.Generator().manual_seed(3))
    go = mt.randn(2, 4, 7, generator=mt.Generator().manual_seed(4)) * 1e3
    grads = []
    for embed in (F.embedding, sparse._composite_embedding):
        wl = w.clone().requires_grad_()
        embed(idx, wl).backward(go)
        grads.append(_bits(wl.grad))
    assert grads[0] == grads[1]
    expect = (go[0, 0] + go[0, 1] + go[0, 2] + go[1, 0] + go[1, 2] + go[1, 3]).numpy()
    got = np.frombuffer(grads[0][3], dtype=np.float32).reshape(5, 7)[3]
    np.testing.assert_allclose(got, expect, rtol=1e-5, err_msg="row 3's six gradients")


@pytest.mark.parametrize("kw", OPTIONS)
def test_gradcheck(kw):
    idx, w = _pair((3, 4), wdtype=mt.float64, seed=6)
    w.requires_grad_()

    def f(w):
        return F.embedding(idx, w, **kw)

    if "padding_idx" not in kw and "scale_grad_by_freq" not in kw:  # (not the derivative)
        assert mt.autograd.gradcheck(f, (w,))
    if "scale_grad_by_freq" not in kw:  # (its double backward ignores the scale, as torch's)
        assert mt.autograd.gradgradcheck(f, (w,))


def test_max_norm_renorms_in_place_first():
    idx = mt.tensor([[0, 2], [2, 5]])
    results = []
    for embed in (F.embedding, sparse._composite_embedding):
        w = (mt.randn(6, 3, generator=mt.Generator().manual_seed(8)) * 3).requires_grad_()
        with mt.no_grad():
            base = w.clone()
        out = embed(idx, w, max_norm=1.0)
        out.backward(mt.ones_like(out))
        results.append((_bits(out), _bits(w), _bits(w.grad), w._version))
        norms = w.detach().norm(dim=1)
        assert float(norms[1]) == pytest.approx(float(base[1].norm()))  # not looked up
        assert float(norms[2]) <= 1.0 + 1e-6
    assert results[0] == results[1]


def test_result_is_no_view_and_changes_in_place():
    idx, w = _pair((2, 3))
    w.requires_grad_()
    out = F.embedding(idx, w)
    assert out._base is None and not out._is_view() and out.is_contiguous()
    assert out.grad_fn.name() == "EmbeddingBackward0"
    out.mul_(2)
    assert type(out.grad_fn).__name__ == "MulBackward0"
    assert type(out.grad_fn.next_functions[0][0]).__name__ == "EmbeddingBackward0"
    out.sum().backward()
    counts = np.bincount(idx.view(-1).numpy(), minlength=6).astype(np.float32)
    np.testing.assert_array_equal(w.grad.numpy(), np.repeat(counts[:, None] * 2, 4, axis=1))


def test_freed_graph_changed_indices_and_retain_graph():
    idx, w = _pair((2, 3))
    w.requires_grad_()
    out = F.embedding(idx, w)
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    np.testing.assert_array_equal(
        w.grad.numpy()[2], np.full(4, 2.0 * int((idx == 2).sum()), dtype=np.float32)
    )
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = out.grad_fn._saved_indices
    assert out.grad_fn._saved_weight_sym_argsize_0 == 6
    msgs = []
    for embed in (F.embedding, sparse._composite_embedding):
        idx = idx.clone()
        out = embed(idx, w, padding_idx=1)
        idx.add_(0)
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        msgs.append(str(err.value))
        assert out.grad_fn._saved_indices is idx  # (read back unchecked, as before)
    assert msgs[0] == msgs[1]
    assert "[torch.LongTensor [2, 3]] is at version" in msgs[0]


def test_errors_match_the_composite_route():
    w = mt.randn(6, 3, requires_grad=True)
    bad = [
        (mt.tensor([0, 6]), {}),
        (mt.tensor([[-1, 2]], dtype=mt.int32), {}),
        (mt.tensor([0.0]), {}),
        (mt.tensor([0, 9]), {"padding_idx": 1}),
        (mt.tensor([0]), {"padding_idx": 6}),
        (mt.tensor([0]), {"sparse": 1}),
        (mt.tensor([0]), {"norm_type": mt.tensor(2.0, requires_grad=True)}),
        (mt.tensor([0]), {"max_norm": mt.tensor(2.0, requires_grad=True)}),
    ]
    for idx, kw in bad:
        msgs = []
        for embed in (F.embedding, sparse._general_embedding, sparse._composite_embedding):
            with pytest.raises((IndexError, RuntimeError, TypeError, AssertionError)) as err:
                embed(idx, w, **kw)
            msgs.append((type(err.value), str(err.value)))
        assert msgs[0] == msgs[1] == msgs[2], (idx, kw)
    with pytest.raises(IndexError, match="^index out of range in self$"):
        F.embedding(mt.tensor([3, 6]), w)


@pytest.mark.parametrize("grad", [False, True])
def test_a_weight_without_columns_names_the_bad_index(grad):
    w = mt.zeros(3, 0, requires_grad=grad)
    for embed in (F.embedding, sparse._general_embedding):
        with pytest.raises(RuntimeError, match=r"^INDICES element is out of DATA bounds, id=7 "):
            embed(mt.tensor([[1, 7], [-1, 2]]), w)
    out = F.embedding(mt.tensor([[1, 2]]), w)
    assert tuple(out.shape) == (1, 2, 0) and out.requires_grad == grad


def test_fast_path_matches_the_general_route():
    idx, w = _pair((3, 5), dtype=mt.int32, seed=9)
    for kw in ({}, {"padding_idx": 2}):
        seen = []
        for on in (True, False):
            function.fast_path[0] = on
            try:
                seen.append(_run(F.embedding, idx, w, kw))
                with mt.no_grad():
                    seen.append(_bits(F.embedding(idx, w.requires_grad_(), **kw)))
            finally:
                function.fast_path[0] = True
        assert seen[0] == seen[2] and seen[1] == seen[3]


def test_module_padding_row_and_no_grad():
    mt.manual_seed(0)
    emb = mt.nn.Embedding(9, 3, padding_idx=0)
    idx = mt.tensor([[0, 8, 0], [4, 4, 1]])
    out = emb(idx)
    assert out.grad_fn._saved_padding_idx == 0
    out.pow(2).sum().backward()
    assert emb.weight.grad[0].tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_array_equal(emb.weight.grad[4].numpy(), 4 * emb.weight[4].detach().numpy())
    with mt.no_grad():
        plain = emb(idx)
    assert plain.grad_fn is None and not plain.requires_grad and plain._base is None
    np.testing.assert_array_equal(plain.numpy(), out.detach().numpy())


def test_profiler_and_anomaly_mode():
    idx, w = _pair((2, 2))
    w.requires_grad_()
    with mt.autograd.profiler.profile() as prof:
        F.embedding(idx, w, padding_idx=1).sum().backward()
    assert prof.function_events
    with pytest.warns(UserWarning, match="Anomaly"), mt.autograd.detect_anomaly(check_nan=True):
        out = F.embedding(idx, w)
        assert type(out.grad_fn).__name__ == "EmbeddingBackward0"
        out.sum().backward()


# --- embedding_bag (NOTE [ The EmbeddingBag node ]) ---


def _bag_composite(input, weight, offsets=None, mode="mean", include_last_offset=False, **kw):
    padding_idx = kw.get("padding_idx")
    return sparse._embedding_bag(
        input, weight, offsets, None, 2, False, mode, False, None, include_last_offset, padding_idx
    )


def _bag_run(bag, idx, w, offsets, kw, seed=2):
    w = w.detach().clone().requires_grad_()
    out = bag(idx, w, offsets, **kw)
    node = out.grad_fn
    seen = {
        "out": _bits(out),
        "name": type(node).__name__,
        "next": [None if e[0] is None else type(e[0]).__name__ for e in node.next_functions],
    }
    gen = mt.Generator().manual_seed(seed)
    go = (mt.randn(out.shape, generator=gen, dtype=mt.float64) * 3).to(out.dtype)
    bag(idx, w, offsets, **kw).backward(go)
    seen["grad"] = _bits(w.grad)
    out = bag(idx, w, offsets, **kw)
    out.backward(go, retain_graph=True)
    out.backward(go)
    seen["grad 3"] = _bits(w.grad)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward(go)
    go = go.requires_grad_()
    (gw,) = mt.autograd.grad(bag(idx, w, offsets, **kw), w, go, create_graph=True)
    seen["grad_cg"] = _bits(gw)
    seen["graph"] = _names(gw.grad_fn)
    (ggo,) = mt.autograd.grad((gw * gw).sum(), go)
    seen["gg"] = _bits(ggo)
    return seen


BAG_CASES = [
    ([4, 1, 4, 0, 2, 4, 3], [0, 2, 2, 5], {}),
    ([4, 1, 4, 0, 2, 4, 3], [0, 2, 2, 5, 7], {"include_last_offset": True}),
    ([4, 1, 4, 0, 2, 4, 3], [0, 3], {"padding_idx": 4}),
    ([[4, 1, 4], [0, 2, 4]], None, {}),
    ([[4, 4], [4, 4]], None, {"padding_idx": -2}),
    ([], [0, 0], {}),
    ([1, 2], [0], {"include_last_offset": True}),
]


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("dtype, wdtype", [(mt.int64, mt.float32), (mt.int32, mt.float64)])
@pytest.mark.parametrize("case", range(len(BAG_CASES)))
def test_bag_matches_the_composite(case, dtype, wdtype, mode):
    idx, offsets, kw = BAG_CASES[case]
    idx = mt.tensor(idx, dtype=dtype)
    offsets = None if offsets is None else mt.tensor(offsets, dtype=dtype)
    w = mt.randn(6, 3, generator=mt.Generator().manual_seed(case), dtype=mt.float64).to(wdtype)
    kw = dict(kw, mode=mode)
    new = _bag_run(F.embedding_bag, idx, w, offsets, kw)
    old = _bag_run(_bag_composite, idx, w, offsets, kw)
    assert new == old
    assert new["name"] == "EmbeddingBagBackward0" and new["next"] == ["AccumulateGrad", None]


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_bag_tensor_formula_and_gradcheck(mode, data_backward_off):
    idx = mt.tensor([4, 1, 4, 0, 2, 4, 3, 3])
    offsets = mt.tensor([0, 3, 3, 6])
    w = mt.randn(6, 3, generator=mt.Generator().manual_seed(3), dtype=mt.float64)
    kw = {"mode": mode, "padding_idx": 3}
    fast = _bag_run(F.embedding_bag, idx, w, offsets, kw)
    with data_backward_off:
        slow = _bag_run(F.embedding_bag, idx, w, offsets, kw)
    assert fast == slow
    w.requires_grad_()
    assert mt.autograd.gradcheck(lambda w: F.embedding_bag(idx, w, offsets, mode=mode), (w,))
    assert mt.autograd.gradgradcheck(lambda w: F.embedding_bag(idx, w, offsets, mode=mode), (w,))


def test_bag_refuses_changed_indices_and_offsets():
    w = mt.randn(6, 3, requires_grad=True)
    for change in ("input", "offsets"):
        msgs = []
        for bag in (F.embedding_bag, _bag_composite):
            idx, offsets = mt.tensor([1, 2, 5, 0]), mt.tensor([0, 1])
            out = bag(idx, w, offsets, mode="sum")
            (idx if change == "input" else offsets).add_(0)
            with pytest.raises(RuntimeError) as err:
                out.sum().backward()
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]
        assert f"[torch.LongTensor [{4 if change == 'input' else 2}]] is at version 1" in msgs[0]


def test_bag_module_and_other_cases_take_the_composite():
    mt.manual_seed(0)
    bag = mt.nn.EmbeddingBag(7, 4, mode="mean", padding_idx=0)
    idx, offsets = mt.tensor([0, 3, 3, 6, 0]), mt.tensor([0, 2])
    out = bag(idx, offsets)
    assert type(out.grad_fn).__name__ == "EmbeddingBagBackward0"
    assert type(out.grad_fn).__mro__[1].__name__ == "Node"  # the one node
    out.sum().backward()
    assert bag.weight.grad[0].tolist() == [0.0] * 4
    # row 3: once in bag 0 (one row kept besides the padding) and once in bag 1 (two kept)
    np.testing.assert_allclose(bag.weight.grad[3].numpy(), np.full(4, 1 / 1 + 1 / 2), rtol=0)
    with mt.no_grad():
        plain = bag(idx, offsets)
    np.testing.assert_array_equal(plain.numpy(), out.detach().numpy())
    psw = mt.ones(5)
    for kw in ({"mode": "max"}, {"mode": "sum", "per_sample_weights": psw}):
        out = F.embedding_bag(idx, bag.weight, offsets, **kw)
        assert type(out.grad_fn).__name__ == "EmbeddingBagBackward0"
        assert "_Composite" in type(out.grad_fn)._fn.__name__


def test_device_paths_match_the_cpu(device):
    # the strict test device runs the nodes' non-CPU branches (no host reads: the range checks
    # read CPU indices only)
    idx = mt.tensor([[4, 1, 4], [0, 2, 4]])
    w = mt.randn(6, 3, generator=mt.Generator().manual_seed(12), dtype=mt.float64)
    seen = []
    for dev in ("cpu", device):
        wd = w.to(dev).clone().requires_grad_()
        out = F.embedding(idx.to(dev), wd, padding_idx=4)
        out.backward(mt.ones_like(out))
        bag = F.embedding_bag(idx.to(dev), wd, mode="mean")
        bag.backward(mt.ones_like(bag))
        seen.append((out.cpu().tolist(), bag.cpu().tolist(), wd.grad.cpu().tolist()))
        assert type(out.grad_fn).__name__ == "EmbeddingBackward0" and out.device == wd.device
    assert seen[0] == seen[1]
    assert seen[0][2][4] == [1.0, 1.0, 1.0]  # the bags' 2/3 + 1/3, none from the padding row


def test_strided_indices():
    idx = mt.randint(0, 6, (3, 4), generator=mt.Generator().manual_seed(1)).t()
    w = mt.randn(6, 2, generator=mt.Generator().manual_seed(2))
    new = _run(F.embedding, idx, w, {"padding_idx": 1})
    old = _run(sparse._composite_embedding, idx, w, {"padding_idx": 1})
    assert new == old and new["out"][1] == (4, 3, 2)
