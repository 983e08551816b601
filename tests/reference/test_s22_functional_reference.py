"""Session 22 (h9): a seeded slice of the differential fuzzer for nn.functional's non-layer
functions (pooling, unpooling, conv / conv_transpose, unfold / fold, pad, grid_sample,
distances, embedding_bag) against torch: values, dtypes, shapes, float64 gradients, and
exception type + message.

Known torch bugs / undefined behaviour are kept out of the generated cases (see the notes at
each generator): all-padding max-pool windows (torch's backward writes out of bounds),
antialias with an output width of 1, negative-and-positive circular pads (uninitialised
memory), include_last_offset with a last offset short of len(indices) (torch's float32 and
float64 kernels disagree), and embedding_bag's scale_grad_by_freq (torch's CPU counts are
shifted)."""

import random

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


def _run(T, fn, arrays):
    ins = []
    for a in arrays:
        t = T.tensor(a.copy())
        if a.dtype == np.float64:
            t.requires_grad_(True)
        ins.append(t)
    try:
        out = fn(T, *ins)
    except Exception as e:  # noqa: BLE001 - the type and message are compared
        return ("err", type(e).__name__, str(e).split("\n")[0]), None
    outs = out if isinstance(out, tuple) else (out,)
    vals = [(str(o.dtype).split(".")[-1], tuple(o.shape), o.detach().numpy().copy()) for o in outs]
    grads = None
    leaves = [t for t in ins if t.requires_grad]
    floats = [o for o in outs if o.requires_grad]
    if leaves and floats:
        rs = np.random.RandomState(1)
        loss = sum((o * T.tensor(rs.standard_normal(tuple(o.shape)))).sum() for o in floats)
        gs = T.autograd.grad(loss, leaves, allow_unused=True)
        grads = [None if g is None else g.numpy().copy() for g in gs]
    return ("ok", vals), grads


def _compare(fn, arrays):
    tol = 1e-9 if any(a.dtype == np.float64 for a in arrays) else 2e-4
    theirs, tg = _run(torch, fn, arrays)
    ours, mg = _run(minitorch, fn, arrays)
    if theirs[0] == "err" or ours[0] == "err":
        assert theirs == ours
        return
    for (td, ts, tv), (md, ms, mv) in zip(theirs[1], ours[1], strict=True):
        assert (td, ts) == (md, ms)
        if tv.dtype.kind in "biu":
            np.testing.assert_array_equal(tv, mv)
        else:
            np.testing.assert_allclose(mv, tv, rtol=tol, atol=tol)
    assert (tg is None) == (mg is None)
    for a, b in zip(tg or [], mg or [], strict=True):
        if a is None and b is None:
            continue
        a = np.zeros_like(b) if a is None else a
        b = np.zeros_like(a) if b is None else b
        np.testing.assert_allclose(b, a, rtol=tol * 10, atol=tol * 10)


def _tup(rnd, n, lo, hi):
    v = tuple(rnd.randint(lo, hi) for _ in range(n))
    return v[0] if rnd.random() < 0.3 else v


def _pool_case(rnd, rs):
    n = rnd.randint(1, 3)
    shape = [rnd.randint(1, 2), rnd.randint(1, 2)] + [rnd.randint(1, 6) for _ in range(n)]
    x = rs.standard_normal(shape).astype(rnd.choice([np.float64, np.float32]))
    kind = rnd.choice(["max", "avg", "amax", "aavg"])
    kw = {}
    if kind in ("max", "avg"):
        kw["kernel_size"] = _tup(rnd, n, 1, 3)
        kw["stride"] = _tup(rnd, n, 1, 3)
        kw["padding"] = 0 if rnd.random() < 0.5 else 1
        if rnd.random() < 0.4:
            kw["ceil_mode"] = True
        if kind == "max":
            # dilation 1 keeps windows out of the padding alone (torch UB there)
            kw["return_indices"] = rnd.random() < 0.5
        elif rnd.random() < 0.5:
            kw["count_include_pad"] = False
        name = f"{kind}_pool{n}d"
    else:
        size = tuple(rnd.randint(1, 7) for _ in range(n))
        kw["output_size"] = size
        if kind == "amax" and rnd.random() < 0.5:
            kw["return_indices"] = True
        name = f"adaptive_{kind[1:]}_pool{n}d"
    return lambda T, a: getattr(T.nn.functional, name)(a, **kw), [x]


def _conv_case(rnd, rs):
    n = rnd.randint(1, 3)
    tr = rnd.random() < 0.4
    g = rnd.choice([1, 2])
    cin, cout = g * rnd.randint(1, 2), g * rnd.randint(1, 2)
    k = [rnd.randint(1, 3) for _ in range(n)]
    dt = rnd.choice([np.float64, np.float32])
    x = rs.standard_normal([rnd.randint(1, 2), cin] + [rnd.randint(3, 6) for _ in range(n)])
    w = rs.standard_normal(([cin, cout // g] if tr else [cout, cin // g]) + k)
    b = rs.standard_normal(cout)
    kw = {"groups": g, "stride": _tup(rnd, n, 1, 2), "dilation": _tup(rnd, n, 1, 2)}
    if tr:
        kw["output_padding"] = 0 if rnd.random() < 0.6 else 1
        name = f"conv_transpose{n}d"
    else:
        kw["padding"] = rnd.choice([0, 1, "valid"])
        name = f"conv{n}d"
    fn = lambda T, a, ww, bb: getattr(T.nn.functional, name)(a, ww, bb, **kw)  # noqa: E731
    return fn, [x.astype(dt), w.astype(dt), b.astype(dt)]


def _fold_case(rnd, rs):
    kw = {"kernel_size": _tup(rnd, 2, 1, 3), "dilation": _tup(rnd, 2, 1, 2)}
    kw["padding"], kw["stride"] = _tup(rnd, 2, 0, 1), _tup(rnd, 2, 1, 2)
    x = rs.standard_normal([rnd.randint(1, 2), 2, rnd.randint(3, 6), rnd.randint(3, 6)])
    if rnd.random() < 0.5:
        return lambda T, a: T.nn.functional.unfold(a, **kw), [x]
    size = tuple(x.shape[2:])
    try:
        cols = torch.nn.functional.unfold(torch.tensor(x), **kw).numpy()
    except RuntimeError:  # no block fits: fold must refuse a made-up input the same way
        cols = rs.standard_normal([2, 3])
    return lambda T, a: T.nn.functional.fold(a, size, **kw), [cols]


def _pad_case(rnd, rs):
    nd = rnd.randint(3, 5)
    x = rs.standard_normal([rnd.randint(2, 5) for _ in range(nd)])
    mode = rnd.choice(["constant", "reflect", "replicate", "circular"])
    pairs = min(nd - 2, 3) if mode != "constant" else rnd.randint(1, nd)
    if mode == "circular":  # same-signed pairs (a mixed pair reads uninitialised memory)
        pad = tuple(v for _ in range(pairs) for v in [rnd.randint(0, 2)] * 2)
    else:
        pad = tuple(rnd.randint(-1, 3) for _ in range(2 * pairs))
    return lambda T, a: T.nn.functional.pad(a, pad, mode=mode), [x]


def _grid_case(rnd, rs):
    n = rnd.choice([2, 3])
    x = rs.standard_normal([rnd.randint(1, 2), 2] + [rnd.randint(1, 5) for _ in range(n)])
    grid = rs.uniform(-1.5, 1.5, [x.shape[0]] + [rnd.randint(1, 4) for _ in range(n)] + [n])
    modes = ["bilinear", "nearest"] + (["bicubic"] if n == 2 else [])
    kw = {"mode": rnd.choice(modes), "align_corners": rnd.random() < 0.5}
    kw["padding_mode"] = rnd.choice(["zeros", "border", "reflection"])
    return lambda T, a, gg: T.nn.functional.grid_sample(a, gg, **kw), [x, grid]


def _dist_case(rnd, rs):
    a = rs.standard_normal([rnd.randint(1, 4), rnd.randint(1, 4)])
    b = rs.standard_normal([rnd.randint(1, 4), a.shape[1]])
    p = rnd.choice([0, 1, 2, 3, 1.5, float("inf")])
    kind = rnd.choice(["cdist", "pdist", "pairwise", "cosine"])
    if kind == "cdist":
        return lambda T, x, y: T.cdist(x, y, p=p), [a, b]
    if kind == "pdist":
        return lambda T, x: T.nn.functional.pdist(x, p), [a]
    b = b[:1]
    if kind == "pairwise":
        return lambda T, x, y: T.nn.functional.pairwise_distance(x, y, p, keepdim=True), [a, b]
    return lambda T, x, y: T.nn.functional.cosine_similarity(x, y), [a, b]


def _bag_case(rnd, rs):
    w = rs.standard_normal([rnd.randint(2, 6), rnd.randint(1, 3)])
    length = rnd.randint(0, 7)
    idx = rs.randint(0, w.shape[0], length)
    offs = sorted(rs.randint(0, length + 1, rnd.randint(1, 3)).tolist())
    offs[0] = 0
    kw = {"mode": rnd.choice(["sum", "mean", "max"])}
    if rnd.random() < 0.3:
        kw["padding_idx"] = rnd.randint(0, w.shape[0] - 1)
    if rnd.random() < 0.3:
        kw["include_last_offset"] = True
        offs.append(length)
    offsets = np.array(offs, dtype=np.int64)
    fn = lambda T, i, ww, o: T.nn.functional.embedding_bag(i, ww, o, **kw)  # noqa: E731
    return fn, [idx.astype(np.int64), w, offsets]


_GENERATORS = {
    "pool": _pool_case,
    "conv": _conv_case,
    "fold": _fold_case,
    "pad": _pad_case,
    "grid_sample": _grid_case,
    "distance": _dist_case,
    "embedding_bag": _bag_case,
}


@pytest.mark.parametrize("family", sorted(_GENERATORS))
def test_fuzz_slice_matches_torch(family):
    rnd = random.Random(22)
    rs = np.random.RandomState(22)
    for _ in range(40):
        fn, arrays = _GENERATORS[family](rnd, rs)
        _compare(fn, arrays)


def test_max_unpool_output_size_errors_match_torch():
    for size in [(1, 9), [1, 1, 9], (9,), [9], (1, 1, 1, 9), ()]:
        x = np.array([[[5.0, 7.0]]])
        i = np.array([[[1, 3]]])
        _compare(
            lambda T, a, j, s=size: T.nn.functional.max_unpool1d(a, j, 2, output_size=s), [x, i]
        )
