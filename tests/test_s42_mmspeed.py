"""The no-grad fast paths of the products (matmul, @, mm, bmm, addmm) and of cat and stack
(NOTE [ Products on the no-grad fast path ] in minitorch/_ops/linalg.py, NOTE [ Joins on the
no-grad fast path ] in minitorch/_ops/shape_join.py): what they return is what the full path
(Function.apply) returns, bit for bit and in layout; what they cannot take (errors, promotion,
subclasses, recording, profiles, FLOP counting, autocast) still goes the full path's way."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import function

FLOATS = (torch.float32, torch.float64)
DTYPES = FLOATS + (torch.float16, torch.bfloat16, torch.int64, torch.bool)


class _FullPath:
    """Turns the fast paths off, as a profile does (so the full path's result is the reference)."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def make(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if dtype is torch.bool:
        return x > 0
    if not dtype.is_floating_point:
        return (x * 10).to(dtype)
    return x.to(dtype)


def same(fast, full, version=0):
    assert type(fast) is type(full) is torch.Tensor
    assert fast.dtype == full.dtype and fast.shape == full.shape and fast.device == full.device
    assert fast.stride() == full.stride()
    assert fast.is_contiguous() == full.is_contiguous()
    assert (fast.requires_grad, fast.grad_fn, fast.is_leaf, fast._base) == (False, None, True, None)
    assert fast._version == full._version == version
    a, b = fast.numpy(), full.numpy()
    assert a.dtype == b.dtype
    assert a.tobytes() == b.tobytes()  # bit for bit (NaN payloads, signed zeros)


def both(fn):
    """fn() on the fast path and on the full path (under no_grad), or their two errors."""
    with torch.no_grad():
        try:
            fast = fn()
        except Exception as e:
            fast = e
        with _FullPath():
            try:
                full = fn()
            except Exception as e:
                full = e
    return fast, full


def check(fn, version=0):
    fast, full = both(fn)
    if isinstance(full, Exception):
        assert type(fast) is type(full), (fast, full)
        assert str(fast) == str(full)
        return
    assert not isinstance(fast, Exception), fast
    same(fast, full, version)


PRODUCTS = {
    "@": lambda a, b: a @ b,
    "matmul": torch.matmul,
    "Tensor.matmul": lambda a, b: a.matmul(b),
    "mm": torch.mm,
    "Tensor.mm": lambda a, b: a.mm(b),
    "bmm": torch.bmm,
}

# (shape a, shape b): the ranks each path knows, the sizes that pick _product's branches
# (dot below _BLAS_COPY_MIN elements, matmul above it, inner size 1), empty ones, and mismatches
SHAPE_PAIRS = [
    ((32, 32), (32, 32)), ((3, 5), (5, 2)), ((1, 1), (1, 4)), ((4, 1), (1, 1)), ((4, 1), (1, 3)),
    ((0, 3), (3, 2)), ((3, 0), (0, 2)), ((80, 64), (64, 70)), ((3, 4), (5, 2)), ((3, 4), (4,)),
    ((3, 4), (5,)), ((4,), (4, 3)), ((0,), (0, 3)), ((4,), (5, 3)), ((4,), (4,)),
    ((2, 3, 4), (4, 5)), ((2, 3, 4), (5, 6)), ((0, 3, 4), (4, 5)), ((4, 8, 8), (4, 8, 8)),
    ((4, 8, 8), (3, 8, 8)), ((4, 8, 8), (4, 7, 8)), ((1, 8, 8), (4, 8, 8)),
    ((2, 40, 70), (2, 70, 60)), ((3,), (2, 3, 4)), ((2, 3), (4, 3, 5)), ((), (3,)), ((3, 4), ()),
]  # fmt: skip


@pytest.mark.parametrize("name", list(PRODUCTS))
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_products_match_the_full_path(name, shapes):
    op = PRODUCTS[name]
    for dt in FLOATS:
        a, b = make(shapes[0], dt, 1), make(shapes[1], dt, 2)
        version = 1 if len(shapes[0]) == 1 and len(shapes[1]) == 2 and "mm" not in name else 0
        check(lambda a=a, b=b: op(a, b), version)


@pytest.mark.parametrize("name", list(PRODUCTS))
@pytest.mark.parametrize("dtype", DTYPES[2:], ids=str)
def test_products_of_other_dtypes_take_the_full_path(name, dtype):
    shapes = ((4, 3, 5), (4, 5, 2)) if name == "bmm" else ((3, 5), (5, 2))
    a, b = make(shapes[0], dtype, 3), make(shapes[1], dtype, 4)
    check(lambda: PRODUCTS[name](a, b))
    c = make(shapes[1], torch.float64, 5)  # two dtypes: the full path's error
    check(lambda: PRODUCTS[name](make(shapes[0], torch.float32, 6), c))


def test_products_of_strided_operands():
    """Transposed, sliced, expanded (zero strides) and column-major operands: the kernel each
    path picks for them (NOTE [ Products of repeated rows ], NOTE [ Batched products with a
    transposed right operand ]) is the same, so are the bits."""
    big = make((96, 80), torch.float32, 7)
    small = make((6, 5), torch.float64, 8)
    cases = [
        (big.t(), make((96, 50), seed=9)), (big[::2], make((80, 30), seed=10)),
        (make((1, 80), seed=11).expand(64, 80), big.t()[:80, :70]),
        (make((70, 80), seed=12), make((80, 1), seed=13).expand(80, 90)),
        (small.t(), small), (small, small.t()), (small[:, ::2].t(), small[:3]),
        (make((50, 60), seed=14).t().contiguous().t(), make((60, 70), seed=15)),
        (make((2, 3, 40, 64), seed=16)[0], make((3, 64, 40), seed=17).transpose(-1, -2).mT),
        (make((4, 64, 128), seed=18), make((4, 64, 128), seed=19).transpose(-1, -2)),
        (make((4, 6, 5), torch.float64, 20), make((4, 6, 5), torch.float64, 21).mT),
        (make((2, 8, 6), seed=22).transpose(0, 1)[:, :2], make((6, 4), seed=23)),
    ]  # fmt: skip
    for a, b in cases:
        check(lambda a=a, b=b: a @ b)
        if a.dim() == b.dim() == 2:
            check(lambda a=a, b=b: torch.mm(a, b))
            check(lambda a=a, b=b: torch.addmm(make((b.shape[1],), a.dtype, 24), a, b))
        if a.dim() == b.dim() == 3:
            check(lambda a=a, b=b: torch.bmm(a, b))


def test_products_of_special_values():
    """inf and nan through the products: a 1x1 operand that dot would scale (NOTE [ Two entry
    points to one GEMM ]), zeros against inf, signed zeros."""
    nan, inf = float("nan"), float("inf")
    for dt in FLOATS:
        z = torch.zeros(1, 1, dtype=dt)
        row = torch.tensor([[nan, inf, -inf, 1.0]], dtype=dt)
        m = torch.tensor([[0.0, -0.0], [inf, 1.0]], dtype=dt)
        for a, b in ((z, row), (row.t(), z), (m, m), (-m, m.t()), (m, torch.zeros(2, 3, dtype=dt))):
            check(lambda a=a, b=b: a @ b)
            check(lambda a=a, b=b: torch.mm(a, b))


ADDMM_CASES = [
    ((5,), (3, 4), (4, 5)), ((3, 5), (3, 4), (4, 5)), ((1, 5), (3, 4), (4, 5)),
    ((), (3, 4), (4, 5)), ((3, 1), (3, 4), (4, 5)), ((4,), (3, 4), (4, 5)),
    ((2, 3, 5), (3, 4), (4, 5)), ((5,), (3, 4), (6, 5)), ((5,), (3, 4, 1), (4, 5)),
    ((5,), (0, 4), (4, 5)), ((0,), (3, 0), (0, 0)), ((64,), (40, 128), (128, 64)),
]  # fmt: skip


@pytest.mark.parametrize("shapes", ADDMM_CASES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_addmm_matches_the_full_path(shapes, dtype):
    bias, a, b = (make(s, dtype, k) for k, s in enumerate(shapes, 30))
    check(lambda: torch.addmm(bias, a, b))
    check(lambda: bias.addmm(a, b))
    check(lambda: torch.addmm(bias, a, b, beta=0.5, alpha=2))  # (scalars: the full path)
    check(lambda: torch.addmm(bias, a, b, beta=1.0))
    check(lambda: torch.addmm(bias.to(torch.float64), a, b))


JOINS = {
    "cat": lambda ts, d: torch.cat(ts, d),
    "cat_kw": lambda ts, d: torch.cat(ts, dim=d),
    "concat": lambda ts, d: torch.concat(ts, d),
    "stack": lambda ts, d: torch.stack(ts, d),
    "stack_kw": lambda ts, d: torch.stack(tuple(ts), dim=d),
}

JOIN_SHAPES = [
    [(3, 4), (3, 4)], [(3, 4), (2, 4)], [(3, 4), (3, 5)], [(3, 4)], [(2, 3, 4)] * 3, [(5,), (0,)],
    [(0,), (3, 4)], [(3, 4), (0,), (3, 4)], [(0,), (0,)], [(0, 4), (2, 4)], [(), ()],
    [(3, 4), (3,)], [(2, 3, 4, 5), (2, 3, 4, 5)], [(1, 2, 2, 3, 2)] * 2, [(2, 2, 2, 2, 2, 2)] * 2,
]  # fmt: skip


@pytest.mark.parametrize("name", list(JOINS))
@pytest.mark.parametrize("shapes", JOIN_SHAPES, ids=str)
def test_joins_match_the_full_path(name, shapes):
    op = JOINS[name]
    for dt in DTYPES:
        ts = [make(s, dt, k) for k, s in enumerate(shapes, 40)]
        for d in (0, 1, -1, -2, 3, 7, -8):
            check(lambda ts=ts, d=d: op(ts, d))


@pytest.mark.parametrize("name", list(JOINS))
def test_joins_of_strided_inputs(name):
    """Transposed, sliced, expanded and channels-last inputs keep the full path's layout."""
    op = JOINS[name]
    x = make((6, 8), seed=50)
    cl = make((2, 3, 4, 5), seed=51).to(memory_format=torch.channels_last)
    cl3 = make((2, 3, 2, 4, 5), seed=52).to(memory_format=torch.channels_last_3d)
    cases = [
        [x.t(), x.t()], [x[::2], x[1::2]], [x[:1].expand(3, 8), x[:3]], [x.t()[:, :3], x[:8, :3]],
        [cl, cl], [cl, cl.contiguous()], [cl3, cl3], [make((3, 1, 4), seed=53).expand(3, 5, 4)] * 2,
    ]  # fmt: skip
    for ts in cases:
        for d in range(-ts[0].dim(), ts[0].dim()):
            check(lambda ts=ts, d=d: op(ts, d))


def test_joins_of_mixed_arguments_take_the_full_path():
    x, y = make((2, 3), seed=60), make((2, 3), torch.float64, 61)
    for fn in (torch.cat, torch.stack):
        check(lambda fn=fn: fn([x, y]))  # promotion
        check(lambda fn=fn: fn([x, y.to(torch.int64)], 1))
        check(lambda fn=fn: fn([x, 1.0]))  # a number in the list: the full path's TypeError
        check(lambda fn=fn: fn([]))
        check(lambda fn=fn: fn(x))
        check(lambda fn=fn: fn([x, x], torch.tensor(1)))  # an int-like dim
        check(lambda fn=fn: fn([x, x], True))
        check(lambda fn=fn: fn([x, x], 0.0))
        check(lambda fn=fn: fn((x for _ in range(2)), 0))
        check(lambda fn=fn: fn([x, x], axis=1))
        with torch.no_grad():
            out = torch.empty(0)
            r = fn([x, x], out=out)
            assert r is out and out.shape == ((4, 3) if fn is torch.cat else (2, 2, 3))


def test_fast_path_results_are_fresh_tensors():
    """The result owns its memory: writing it leaves the inputs (and a second result) alone."""
    x, w = make((3, 3), seed=70), make((3, 3), seed=71)
    with torch.no_grad():
        for r in (x @ w, torch.cat([x, w]), torch.stack([x, w]), torch.addmm(x[0], x, w)):
            before = (x.clone(), w.clone())
            r.zero_()
            assert r._version == 1
            assert torch.equal(x, before[0]) and torch.equal(w, before[1])
        v = torch.matmul(x[0].contiguous(), w)  # the vector form: squeezed in place, version 1
        assert v._version == 1 and v._base is None


def test_fast_path_is_taken_only_with_nothing_to_record():
    x = make((3, 4), seed=80).requires_grad_()
    w = make((4, 2), seed=81).requires_grad_()
    b3 = make((2, 4, 5), seed=82).requires_grad_()
    y = make((3, 4), seed=83)
    m = make((5, 2), seed=84)

    def ops():
        return {
            "MmBackward0": x @ w, "MvBackward0": x @ w[:, 0].detach(),
            "SqueezeBackward4": x[0] @ w, "UnsafeViewBackward0": b3 @ m,
            "BmmBackward0": torch.bmm(b3, b3.mT), "AddmmBackward0": torch.addmm(w[0], y, w),
            "CatBackward0": torch.cat([y, x]), "StackBackward0": torch.stack([x, y], 1),
        }  # fmt: skip

    for name, out in ops().items():
        assert out.requires_grad and type(out.grad_fn).__name__ == name, name
    with torch.no_grad():
        for out in ops().values():
            assert not out.requires_grad and out.grad_fn is None
    with torch.enable_grad():  # nothing requires grad: no node either way
        assert (y @ y.t()).grad_fn is None and torch.cat([y, y]).grad_fn is None
    (torch.cat([x @ w, y @ w]).sum() + torch.stack([x, y]).pow(2).sum()).backward()
    np.testing.assert_allclose(
        x.grad.numpy(), (w.sum(1).expand(3, 4) + 2 * x).detach().numpy(), rtol=1e-6
    )


def test_profile_and_flop_counter_see_the_ops():
    from minitorch.utils.flop_counter import FlopCounterMode

    x, y = make((4, 4), seed=90), make((4, 4), seed=91)
    b = make((2, 4, 4), seed=92)
    with torch.no_grad(), torch.profiler.profile() as prof:
        (torch.cat([x @ y, torch.mm(x, y)]), torch.stack([x, y]), torch.bmm(b, b))
    names = [e.key for e in prof.key_averages()]
    for op in ("Mm", "Cat", "Stack", "Bmm"):
        assert op in names, (op, names)
    assert function.fast_path[0]
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        x @ y, torch.mm(x, y), torch.bmm(b, b), torch.addmm(x[0], x, y), x @ y[0], b @ y
    # (4 x 4 x 4 products: 128 FLOPs; the batch 256; the vector 32; the fold 256)
    assert counter.get_total_flops() == 128 * 3 + 256 + 256, counter.get_flop_counts()
    with torch.no_grad():  # and the fast path is back once the mode exits
        same(x @ y, torch.from_numpy(x.numpy() @ y.numpy()))


def test_autocast_inference_mode_and_subclasses_take_their_paths():
    x, y = make((4, 4), seed=100), make((4, 4), seed=101)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        assert (x @ y).dtype is torch.bfloat16
        assert torch.mm(x, y).dtype is torch.bfloat16
        assert torch.addmm(x[0], x, y).dtype is torch.bfloat16
        with pytest.raises(RuntimeError):  # the join's promote check under autocast
            torch.cat([x.half(), x.half()])
    with torch.inference_mode():
        for r in (x @ y, torch.cat([x, y]), torch.stack([x, y]), torch.mm(x, y)):
            assert r.is_inference()
    p = torch.nn.Parameter(y)
    with torch.no_grad():
        r = x @ p
        assert type(r) is torch.Tensor and torch.equal(r, x @ y)
        assert type(torch.cat([p, x])) is torch.Tensor


def test_cat_errors_and_recorded_graph_unchanged():
    """The full path's checks, rewritten for speed, keep torch's messages and its graph."""
    x = make((2, 3), seed=110).requires_grad_()
    e = torch.zeros(0, requires_grad=True)
    msgs = {
        "zero-dimensional tensor (at position 1) cannot be concatenated": [x, x.sum()],
        "Tensors must have same number of dimensions: got 2 and 3": [x, x[None]],
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
        "tensor number 2 in the list.": [x, e, x.t()],
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 1 for "
        "tensor number 1 in the list.": [x, x[:1]],
    }
    for msg, ts in msgs.items():
        for grad in (True, False):
            with torch.set_grad_enabled(grad), pytest.raises(RuntimeError) as info:
                torch.cat(ts, 1 if "dimension 1" in msg else 0)
            assert str(info.value) == msg
    r = torch.cat([e, x, e, x * 2], -1)
    assert r.grad_fn._saved_dim == 2**64 - 1 and r.shape == (2, 6)  # (torch: -1 read as unsigned)
    g = make((2, 6), seed=111)
    r.backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), (g[:, :3] + 2 * g[:, 3:]).numpy())
    assert e.grad.shape == (0,)
    s = torch.stack([x, x * 3], -1)
    assert s.grad_fn._saved_dim == 2**64 - 1
    x.grad = None
    s.backward(make((2, 3, 2), seed=112))
    assert x.grad is not None and x.grad.shape == (2, 3)


def test_split_and_chunk_views_unchanged():
    """chunk runs split's views directly; the outputs' node, saved attributes, marks and
    gradients are split's (torch's)."""
    x = torch.tensor(np.arange(24.0).reshape(6, 4), dtype=torch.float32, requires_grad=True)
    cases = [
        (x.split(4), "SplitBackward0", 0, [(4, 4), (2, 4)]),
        (x.chunk(2), "SplitBackward0", 0, [(3, 4), (3, 4)]),
        (torch.chunk(x, 2, -2), "SplitBackward0", 2**64 - 2, [(3, 4), (3, 4)]),
        (x.chunk(4, dim=np.int64(0)), "SplitBackward0", 0, [(2, 4)] * 3),
        (x.split(2, dim=torch.tensor(1)), "SplitBackward0", 1, [(6, 2)] * 2),
        (x.chunk(3, 1), "SplitBackward0", 1, [(6, 2), (6, 2)]),
        (torch.split(x, [1, 5]), "SplitWithSizesBackward0", 0, [(1, 4), (5, 4)]),
    ]
    for outs, name, dim, shapes in cases:
        fn = outs[0].grad_fn
        assert type(fn).__name__ == name and fn._saved_dim == dim
        assert [tuple(o.shape) for o in outs] == shapes
        assert all(o._base is x and o.grad_fn is fn for o in outs)
    assert x.chunk(4)[0].grad_fn._saved_split_size == 2
    y = x * 1
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being modified"):
        y.chunk(3)[0].add_(1)
    xi = torch.arange(12).reshape(6, 2)  # integer outputs: not differentiable, not marked
    xi.chunk(3)[0].add_(1)
    assert xi[0].tolist() == [1, 2]
    with torch.no_grad():
        y.chunk(3)[1].mul_(2)
    assert y[2:4].tolist() == (x[2:4] * 2).tolist()
    g = torch.arange(24.0).reshape(6, 4) / 7
    torch.cat([o * k for k, o in enumerate(x.chunk(3), 1)]).backward(g)
    factor = torch.tensor([1.0, 1, 2, 2, 3, 3]).unsqueeze(1)
    assert torch.equal(x.grad, g * factor)


def test_joins_and_products_on_every_device(device):
    """Off the CPU (the strict test device: CuPy-like) the full path runs, with the stack kernel
    of the fast path; the results are the CPU's."""
    x, y = make((3, 4), seed=130), make((3, 4), seed=131)
    cl = make((2, 3, 4, 5), seed=132).to(memory_format=torch.channels_last)
    for grad in (False, True):
        with torch.set_grad_enabled(grad):
            for fn in (
                lambda a, b: torch.stack([a, b.t().t()], 1),
                lambda a, b: torch.stack((a.t(), b.t()), -1),
                lambda a, b: torch.cat([a, b], 1),
                lambda a, b: a @ b.t(),
                lambda a, b: torch.addmm(b[0, :3], a, b.t()),
            ):
                want = fn(x, y)
                got = fn(x.to(device), y.to(device))
                assert got.device == torch.device(device) and got.stride() == want.stride()
                if device.startswith("cuda"):  # cuBLAS's products round in another order
                    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6)
                else:
                    assert got.cpu().numpy().tobytes() == want.numpy().tobytes()
            want = torch.stack([cl, cl], 2)
            got = torch.stack([cl.to(device), cl.to(device)], 2)
            # README: CuPy's results of permuted (here channels-last) inputs are row-major
            assert got.stride() == want.stride() or device.startswith("cuda")
            assert torch.equal(got.cpu(), want)


RECORDED_NAMES = {(2, 2): "MmBackward0", (2, 1): "MvBackward0", (3, 3): "UnsafeViewBackward0"}


@pytest.mark.parametrize("name", ["@", "mm", "bmm"])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_recorded_products_keep_their_checks_and_nodes(name, shapes):
    """Where a node is recorded, matmul and mm of operands whose checks pass call the Function
    at once: the values are the unrecorded ones, the errors the full path's, the node as before."""
    op = PRODUCTS[name]
    for needs in ((True, True), (True, False), (False, True)):
        a = make(shapes[0], torch.float64, 140).requires_grad_(needs[0])
        b = make(shapes[1], torch.float64, 141).requires_grad_(needs[1])
        with torch.no_grad(), _FullPath():
            try:
                want = op(a, b)
            except Exception as e:
                with pytest.raises(type(e)) as info:
                    op(a, b)
                assert str(info.value) == str(e)
                continue
        out = op(a, b)
        assert out.detach().numpy().tobytes() == want.numpy().tobytes()
        assert out.stride() == want.stride()
        ranks = (a.dim(), b.dim())
        if name != "@" or (ranks in RECORDED_NAMES and (ranks != (3, 3) or shapes[0][0] > 1)):
            names = {"mm": "MmBackward0", "bmm": "BmmBackward0"}
            assert type(out.grad_fn).__name__ == names.get(name, RECORDED_NAMES.get(ranks))
            edges = [e[0] is not None for e in out.grad_fn.next_functions]
            assert edges == list(needs)
        g = make(out.shape, torch.float64, 142)
        out.backward(g)
        if ranks == (2, 2) or name == "bmm":
            ad, bd, gd = a.detach().numpy(), b.detach().numpy(), g.numpy()
            if needs[0]:
                np.testing.assert_allclose(a.grad.numpy(), gd @ np.swapaxes(bd, -1, -2), rtol=1e-12)
            if needs[1]:
                np.testing.assert_allclose(b.grad.numpy(), np.swapaxes(ad, -1, -2) @ gd, rtol=1e-12)
