"""scaled_dot_product_attention in blocks (NOTE [ SDPA in chunks ], NOTE [ SDPA blocks with
grad ]): big scores are computed a block of (batch, head) positions at a time, and a recorded
call keeps query, key and value only, recomputing each block in backward. Every result must be
the whole computation's, bit for bit: each case runs twice, once whole (the module's
thresholds) and once in small blocks (thresholds lowered), and compares values, dtypes,
strides, nodes and gradients."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn._attention_blocks as A

F = mt.nn.functional


class _Count:
    """Wraps a module function and counts its calls (and those that returned None)."""

    def __init__(self, monkeypatch, name):
        self.fn = getattr(A, name)
        self.calls = self.nones = 0
        monkeypatch.setattr(A, name, self)

    def __call__(self, *args, **kwargs):
        self.calls += 1
        out = self.fn(*args, **kwargs)
        self.nones += out is None
        return out


@pytest.fixture
def routes(monkeypatch):
    """(run, counts): run(fn, size) calls fn whole (size None) or in blocks of about `size`
    score elements; counts: the calls of the block forward and of the block gradients."""
    counts = {
        "forward": _Count(monkeypatch, "_attend_in_chunks"),
        "grads": _Count(monkeypatch, "_block_grads"),
    }
    saved = A._CHUNK_MIN, A._CHUNK_SIZE, A._DEVICE_CHUNK_SIZE

    def run(fn, size=None):
        A._CHUNK_MIN, A._CHUNK_SIZE, A._DEVICE_CHUNK_SIZE = (1, size, size) if size else saved
        try:
            return fn()
        finally:
            A._CHUNK_MIN, A._CHUNK_SIZE, A._DEVICE_CHUNK_SIZE = saved

    return run, counts


def _bits(t):
    """A tensor's values as integers (NaNs, signed zeros and half dtypes compared exactly)."""
    a = t.detach().cpu()
    if a.dtype in (mt.float16, mt.bfloat16):
        a = a.float()  # exact
    a = a.numpy()
    return a.view(f"u{a.dtype.itemsize}")


def _same(a, b, what=""):
    assert a.dtype == b.dtype, what
    assert a.shape == b.shape, what
    assert a.stride() == b.stride(), what
    assert a.requires_grad == b.requires_grad, what
    if a.device.type == "cuda":  # cuBLAS picks its kernels by size: blocks may round otherwise
        tol = {mt.float64: 1e-12, mt.float32: 1e-5}.get(a.dtype, 1e-2)
        x, y = (t.detach().cpu().double().numpy() for t in (a, b))
        np.testing.assert_allclose(x, y, rtol=tol, atol=tol, err_msg=what)
        return
    np.testing.assert_array_equal(_bits(a), _bits(b), err_msg=what)


def _inputs(B, H, L, S, E, *, Hk=None, dt=mt.float32, mask=None, perm=False, device="cpu"):
    g = mt.Generator().manual_seed(B * 1000 + H * 100 + L * 10 + S)
    Hk = Hk or H

    def make(h, n):
        if perm:  # heads split from a (B, T, H * E) projection: (B, T, H, E) transposed
            return mt.randn(B, n, h, E, generator=g).to(dt).to(device).transpose(1, 2)
        return mt.randn(B, h, n, E, generator=g).to(dt).to(device)

    q, k, v = make(H, L), make(Hk, S), make(Hk, S)
    m = None
    if mask == "bool2":
        m = mt.rand(L, S, generator=g) > 0.3
    elif mask == "bool_b":  # broadcast over heads, with a row of every key masked
        m = mt.rand(B, 1, L, S, generator=g) > 0.6
        m[:, :, 0, :] = False
    elif mask == "float_h":  # broadcast over the batch
        m = mt.randn(1, H, L, S, generator=g)
    elif mask == "float_full":
        m = mt.randn(B, H, L, S, generator=g).to(dt)
    if m is not None:
        m = m.to(device)
    return q, k, v, m, g


# (B, H, L, S, E, options): heads or batches in blocks, odd lengths, masks of each broadcast,
# grouped heads, half dtypes (computed in float32), permuted layouts, softmax sums by BLAS
# (scores of 2**14 elements or more) and by NumPy's reduction
_CASES = [
    (2, 8, 64, 64, 16, {"Hk": 2, "mask": "bool_b"}),
    (2, 8, 64, 64, 16, {"Hk": 4, "mask": "float_h", "causal": True}),
    (4, 4, 20, 30, 8, {"mask": "float_full", "scale": 0.3, "perm": True, "size": 1 << 10}),
    (4, 4, 20, 30, 8, {"mask": "bool2", "causal": True, "size": 1 << 10}),
    (4, 4, 20, 30, 8, {"dt": mt.float16, "mask": "bool_b", "causal": True, "size": 1 << 10}),
    (4, 4, 20, 30, 8, {"dt": mt.bfloat16, "perm": True, "size": 1 << 10}),
    (4, 4, 20, 30, 8, {"dt": mt.float64, "causal": True, "size": 1 << 10}),
    (9, 6, 37, 80, 16, {"mask": "bool_b"}),
    (2, 16, 36, 100, 8, {"mask": "float_h", "size": 1 << 14}),
    (3, 16, 64, 100, 8, {"causal": True, "size": 1 << 14, "Hk": 8}),
    (16, 1, 64, 64, 8, {}),  # one head: blocks of batches
    (8, 4, 64, 32, 8, {"Hk": 1, "mask": "bool2"}),  # one key head: two batches a block
]
_IDS = [f"case{i}" for i in range(len(_CASES))]


def _size(case) -> int:
    """The block size (score elements) the case is cut with."""
    return case[-1].get("size", 1 << 12)


def _call(case, device="cpu", needs=(False, False, False)):
    B, H, L, S, E, opts = case
    keys = ("Hk", "dt", "mask", "perm")
    q, k, v, m, g = _inputs(B, H, L, S, E, device=device, **{k: opts[k] for k in keys if k in opts})
    for t, n in zip((q, k, v), needs, strict=True):
        t.requires_grad_(n)
    kw = {"is_causal": opts.get("causal", False), "scale": opts.get("scale")}
    kw["enable_gqa"] = opts.get("Hk", H) != H
    return (q, k, v, m, g), (lambda: F.scaled_dot_product_attention(q, k, v, m, **kw))


@pytest.mark.parametrize("case", _CASES, ids=_IDS)
def test_no_grad_blocks_give_the_whole_result(routes, device, case):
    run, counts = routes
    size = _size(case)
    _, fn = _call(case, device)
    with mt.no_grad():
        whole = run(fn)
        assert counts["forward"].calls == 0
        blocks = run(fn, size)
    assert counts["forward"].calls == 1
    _same(whole, blocks)
    assert blocks.grad_fn is None and blocks._base is None and blocks._version == 0


def test_nothing_requiring_grad_takes_the_no_grad_blocks(routes):
    run, counts = routes
    _, fn = _call(_CASES[2])
    _same(run(fn), run(fn, _size(_CASES[2])))  # grad mode on, no input requiring grad
    assert counts["forward"].calls == 1


def test_inference_mode_result(routes):
    run, counts = routes
    _, fn = _call(_CASES[0])
    with mt.inference_mode():
        whole, blocks = run(fn), run(fn, 1 << 12)
    assert counts["forward"].calls == 1
    _same(whole, blocks)
    assert whole.is_inference() and blocks.is_inference()


def test_dropout_and_the_math_path_stay_whole(routes):
    run, counts = routes
    (q, k, v, m, g), _ = _call(_CASES[3])

    def dropped():
        mt.manual_seed(5)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.3)

    def three_dims():  # the math path
        return F.scaled_dot_product_attention(q[0], k[0], v[0], m)

    for fn in (dropped, three_dims):
        _same(run(fn), run(fn, 1 << 12))
    assert counts["forward"].calls == 0


def test_blocks_below_the_thresholds_stay_whole(routes):
    # the module's thresholds: test-sized and benchmark-sized attention runs whole
    run, counts = routes
    for shape in ((2, 4, 50, 70, 8), (32, 1, 64, 64, 128), (4, 16, 128, 128, 64)):
        q = mt.randn(*shape[:3], shape[4])
        k = v = mt.randn(*shape[:2], shape[3], shape[4])
        with mt.no_grad():
            run(lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v))
    assert counts["forward"].calls == 0
    assert A._chunk_spans(q, k, v) is None


@pytest.mark.parametrize(
    "B,H,L,S,group",
    [
        (2, 8, 64, 64, 1),
        (9, 6, 37, 80, 1),
        (2, 16, 36, 100, 2),
        (16, 1, 64, 64, 1),
        (8, 4, 64, 64, 4),
        (2, 10, 64, 64, 2),
        (6, 4, 64, 64, 4),
        (24, 6, 5, 100, 3),
    ],
)
def test_spans_cover_each_position_once_at_aligned_rows(monkeypatch, B, H, L, S, group):
    monkeypatch.setattr(A, "_CHUNK_MIN", 1)
    for size in (1 << 10, 1 << 12, 1 << 14):
        monkeypatch.setattr(A, "_CHUNK_SIZE", size)
        q = mt.empty(B, H, L, 8)
        k = mt.empty(B, H // group, S, 8)
        for recorded in (False, True):
            spans = A._chunk_spans(q, k, k, recorded=recorded)
            seen = np.zeros((B, H), int)
            whole = B * H * L * S
            for b0, b1, h0, h1 in spans:
                seen[b0:b1, h0:h1] += 1
                assert (b0 * H + h0) * L % A._ROW_ALIGN == 0  # the block's first score row
                assert h0 % group == 0 and h1 % group == 0
                if whole >= A._GEMV_MIN_SIZE:
                    assert (b1 - b0) * (h1 - h0) * L * S >= A._GEMV_MIN_SIZE
                if recorded:  # no two size-1 dims: (batch, key heads) of a block
                    assert (h1 - h0) // group >= 2 or b1 - b0 >= 2
            assert (seen == 1).all()
            assert len(spans) > 1


def _grads(fn, inputs, grad, create=False):
    out = fn()
    gs = mt.autograd.grad(out, inputs, grad, create_graph=create)
    return out, gs


@pytest.mark.parametrize("case", _CASES, ids=_IDS)
def test_recorded_blocks_give_the_whole_gradients(routes, device, case):
    run, counts = routes
    size = _size(case)
    B, H, L, S, E, opts = case
    needs = [(True, True, True), (False, True, True), (True, False, False)][len(opts) % 3]
    (q, k, v, m, g), fn = _call(case, device, needs)
    dt = opts.get("dt", mt.float32)
    up = mt.randn(B, L, H, E, generator=g).to(dt).to(device).transpose(1, 2)
    inputs = [t for t in (q, k, v) if t.requires_grad]
    whole_out, whole = run(lambda: _grads(fn, inputs, up))
    assert counts["grads"].calls == 0
    out, got = run(lambda: _grads(fn, inputs, up), size)
    assert counts["grads"].calls == 1 and counts["grads"].nones == 0
    _same(whole_out, out)
    for a, b in zip(whole, got, strict=True):
        _same(a, b, "gradient")
    node = out.grad_fn
    assert type(node).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    edges = [(type(n).__name__ if n else None, nr) for n, nr in node.next_functions]
    old = [(type(n).__name__ if n else None, nr) for n, nr in whole_out.grad_fn.next_functions]
    assert edges == old


def test_recorded_saved_attributes(routes):
    run, counts = routes
    (q, k, v, m, g), fn = _call(_CASES[1], needs=(True, True, True))
    whole, blocks = run(fn), run(fn, 1 << 12)
    a, b = whole.grad_fn, blocks.grad_fn
    for name in ("output", "logsumexp", "query", "key", "value", "attn_mask"):
        _same(getattr(a, f"_saved_{name}"), getattr(b, f"_saved_{name}"), name)
    for name in ("dropout_p", "is_causal", "scale"):
        assert getattr(a, f"_saved_{name}") == getattr(b, f"_saved_{name}")
    assert b._saved_output.grad_fn is b


@pytest.mark.parametrize("which", ["query", "key", "value", "output"])
def test_in_place_change_before_backward_raises_as_before(routes, which):
    run, counts = routes

    def step():
        (q, k, v, m, g), fn = _call(_CASES[3], needs=(True, True, True))
        out = fn()
        target = {"query": q, "key": k, "value": v, "output": out}[which]
        with mt.no_grad():
            target.add_(1.0)
        with pytest.raises(RuntimeError) as info:
            out.backward(mt.ones_like(out))
        return str(info.value)

    assert run(step) == run(step, _size(_CASES[3]))
    assert counts["forward"].calls == 1 and counts["grads"].calls == 0


def test_mask_changed_after_forward_keeps_the_forward_mask(routes):
    run, counts = routes

    def step():
        (q, k, v, m, g), fn = _call(_CASES[2], needs=(True, True, True))
        out = fn()
        m.mul_(3.0)
        return mt.autograd.grad(out, (q, k, v), mt.ones_like(out) * 0.5)

    for a, b in zip(run(step), run(step, _size(_CASES[2])), strict=True):
        _same(a, b)
    assert counts["grads"].calls == 1


def test_second_backward_raises_the_freed_graph_error(routes):
    run, counts = routes

    def step():
        (q, k, v, m, g), fn = _call(_CASES[0], needs=(True, True, True))
        out = fn().sum()
        out.backward(retain_graph=False)
        first = q.grad.clone()
        with pytest.raises(RuntimeError) as info:
            out.backward()
        return first, str(info.value)

    (a, ma), (b, mb) = run(step), run(step, 1 << 12)
    _same(a, b)
    assert ma == mb and "second time" in ma
    # .sum()'s gradient is expanded (no BLAS-ready layout): the blocks here are big enough for
    # the products to take it by the whole's route
    assert counts["grads"].calls == 1 and counts["grads"].nones == 0


def test_retain_graph_backward_twice(routes):
    run, counts = routes

    def step():
        (q, k, v, m, g), fn = _call(_CASES[0], needs=(True, True, True))
        out = fn()
        up = mt.randn(out.shape, generator=g)
        out.backward(up, retain_graph=True)
        out.backward(up)
        return q.grad, k.grad, v.grad

    for a, b in zip(run(step), run(step, 1 << 12), strict=True):
        _same(a, b)
    assert counts["grads"].calls == 2


def test_small_blocks_of_an_expanded_gradient_recompute_the_whole(routes):
    run, counts = routes
    case = (2, 16, 64, 100, 8, {"causal": True})
    (q, k, v, m, g), fn = _call(case, needs=(True, True, True))
    up = mt.ones(1).expand(2, 16, 64, 8)  # blocks of 3 heads: 1,536 gradient elements each
    whole = run(lambda: _grads(fn, (q, k, v), up)[1])
    got = run(lambda: _grads(fn, (q, k, v), up)[1], 1 << 14)
    for a, b in zip(whole, got, strict=True):
        _same(a, b)
    assert counts["forward"].calls == 1 and counts["grads"].calls == 0


@pytest.mark.parametrize("case", [_CASES[0], _CASES[6]], ids=["gqa_mask", "causal_f64"])
def test_double_backward_is_the_whole_graphs(routes, case):
    run, counts = routes
    B, H, L, S, E, opts = case
    (q, k, v, m, g), fn = _call(case, needs=(True, True, True))
    up = mt.randn(B, H, L, E, generator=g).to(q.dtype).requires_grad_()

    def step():
        out, gs = _grads(fn, (q, k, v), up, create=True)
        total = sum((x * x).sum() for x in gs)
        return (*gs, *mt.autograd.grad(total, (q, k, v, up)))

    for a, b in zip(run(step), run(step, _size(case)), strict=True):
        _same(a, b)
    assert counts["forward"].calls == 1 and counts["grads"].calls == 0


def test_gradcheck_through_the_blocks(monkeypatch):
    monkeypatch.setattr(A, "_CHUNK_MIN", 1)
    monkeypatch.setattr(A, "_CHUNK_SIZE", 1 << 8)
    gen = mt.Generator().manual_seed(3)
    q, k, v = (mt.randn(2, 4, 8, 3, generator=gen, dtype=mt.float64) for _ in range(3))
    mask = mt.rand(2, 1, 8, 8, generator=gen) > 0.3
    ins = [t.requires_grad_() for t in (q, k, v)]

    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, mask, scale=0.7)

    assert A._chunk_spans(q, k, v, recorded=True) is not None
    assert mt.autograd.gradcheck(fn, ins)
    assert mt.autograd.gradgradcheck(fn, ins)


def test_transformer_layer_step(routes):
    run, counts = routes

    def step():
        mt.manual_seed(0)
        layer = mt.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0)
        x = mt.randn(4, 24, 32)
        mask = mt.nn.Transformer.generate_square_subsequent_mask(24)
        out = layer(x, src_mask=mask, is_causal=True)
        out.pow(2).sum().backward()
        return [out] + [p.grad for p in layer.parameters()]

    for a, b in zip(run(step), run(step, 1 << 10), strict=True):
        _same(a, b)
    assert counts["forward"].calls == 1 and counts["grads"].calls == 1


def test_no_reference_cycles():
    saved = A._CHUNK_MIN, A._CHUNK_SIZE
    A._CHUNK_MIN, A._CHUNK_SIZE = 1, 1 << 12
    try:
        (q, k, v, m, g), fn = _call(_CASES[0], needs=(True, True, True))

        def step():
            fn().pow(2).sum().backward()

        gc.collect(0)
        gc.disable()
        try:
            step()
            assert gc.collect(0) == 0
        finally:
            gc.enable()
    finally:
        A._CHUNK_MIN, A._CHUNK_SIZE = saved


def _peak(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_blocks_lower_the_peak_memory(routes):
    # scores of 2**22 float32 elements (16 MiB): the module's own thresholds block them
    run, counts = routes
    gen = mt.Generator().manual_seed(0)
    q, k, v = (mt.randn(1, 4, 1024, 16, generator=gen) for _ in range(3))
    scores = 4 * 1024 * 1024 * 4
    assert A._chunk_spans(q, k, v) is not None

    def forward():
        with mt.no_grad():
            F.scaled_dot_product_attention(q, k, v, is_causal=True)

    def train():
        ins = [t.detach().requires_grad_() for t in (q, k, v)]
        out = F.scaled_dot_product_attention(*ins, is_causal=True)
        out.backward(mt.ones_like(out))

    blocks = _peak(forward), _peak(train)
    saved = A._CHUNK_MIN
    A._CHUNK_MIN = 1 << 62
    try:
        whole = _peak(forward), _peak(train)
    finally:
        A._CHUNK_MIN = saved
    assert counts["forward"].calls == 2 and counts["grads"].calls == 1
    # measured: no grad 52.1 -> 16.4 MiB, forward + backward 80.8 -> 34.0 MiB (one head's
    # 4 MiB block of scores at a time)
    assert whole[0] > 3 * scores and whole[1] > 5 * scores
    assert blocks[0] < 0.4 * whole[0] and blocks[1] < 0.5 * whole[1]


def test_blocks_off_the_cpu_are_bigger():
    # a GPU pays each block's Python time: blocks of _DEVICE_CHUNK_SIZE score elements
    q = mt.empty(8, 16, 512, 8)
    k = mt.empty(8, 16, 512, 8)
    on_cpu = A._chunk_spans(q, k, k)
    off = A._chunk_spans(q.to("strict"), k.to("strict"), k.to("strict"))
    assert len(on_cpu) == 8 * 16 // 4 and len(off) == 8 * 16 // 32


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("how", ["saved_hooks", "anomaly", "profiler", "same_tensor"])
def test_observed_graphs_keep_the_composed_nodes(routes, how):
    # saved-tensor hooks, anomaly mode and the profiler see the composed graph's ops; a tensor
    # passed twice sums its gradients in that graph's order
    run, counts = routes
    (q, k, v, m, g), fn = _call(_CASES[0], needs=(True, True, True))
    if how == "same_tensor":
        fn = lambda: F.scaled_dot_product_attention(q, q, q)  # noqa: E731
    contexts = {
        "saved_hooks": lambda: mt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
        "anomaly": mt.autograd.detect_anomaly,
        "profiler": mt.autograd.profiler.profile,
    }

    def step():
        with contexts.get(how, mt.enable_grad)():
            out = fn()
            out.backward(mt.ones_like(out) * 0.25)
        return out, q.grad

    whole = run(step)
    q.grad = None
    got = run(step, _size(_CASES[0]))
    for a, b in zip(whole, got, strict=True):
        _same(a, b)
    assert counts["forward"].calls == 0
