"""Session 44, smallops: the flat plans of small gathers and scatters (gather, scatter,
scatter_add, scatter_reduce, take_along_dim, and sort/topk/kthvalue's and cummax/cummin's values),
of x[mask] and masked_select, and cummax/cummin's small running index (NumPy's accumulate) give
the results, gradients, errors and nodes of the paths they stand for (the key of aranges and
index, the general key parser, the doubling scan)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import cumulative, indexing, scatter_gather, selection, sorting
from minitorch._ops._index_key import parse_key
from minitorch._ops.scatter_gather import flat_along_plan

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "bool")


def _parsed_mask_plan(size, mask):
    """x[mask]'s plan from the general key parser (what flat_mask_plan stands for)."""
    return parse_key(torch.empty(mask.shape), torch.from_numpy(mask.copy()), read=True)


def _in_bounds_by_mask(idx, low, n):
    """in_bounds as the elementwise test it stands for."""
    return bool(((idx >= low) & (idx < n)).all())


@pytest.fixture
def no_flat(monkeypatch):
    """Runs a callable with the flat plans off (every index keeps the key of aranges)."""

    def run(fn):
        with monkeypatch.context() as m:
            m.setattr(scatter_gather, "FLAT_PLAN_MAX", 0)
            m.setattr(sorting, "FLAT_PLAN_MAX", 0)
            m.setattr(cumulative, "FLAT_PLAN_MAX", 0)
            m.setattr(cumulative, "_ACCUMULATE_MAX", 0)
            m.setattr(indexing, "flat_mask_plan", _parsed_mask_plan)
            m.setattr(selection, "flat_mask_plan", _parsed_mask_plan)
            m.setattr(selection, "in_bounds", _in_bounds_by_mask)
            m.setattr(scatter_gather, "in_bounds", _in_bounds_by_mask)
            return fn()

    return run


def _summary(value):
    """Everything observable of a result: arrays' bits, dtype, shape, strides, requires_grad,
    grad_fn's name, version; tuples element by element; an error's type and message."""
    if isinstance(value, BaseException):
        return ("error", type(value).__name__, str(value))
    if isinstance(value, tuple | list):
        return tuple(_summary(v) for v in value)
    if isinstance(value, torch.Tensor):
        a = (
            value.detach().float().numpy()
            if value.dtype is torch.bfloat16
            else value.numpy(force=True)
        )
        fn = value.grad_fn
        return (
            str(value.dtype),
            tuple(value.shape),
            value.stride(),
            value.requires_grad,
            None if fn is None else type(fn).__name__,
            value._version,
            a.dtype.str,
            a.tobytes(),
        )
    return value


def _both(no_flat, fn):
    def safe():
        try:
            return _summary(fn())
        except Exception as e:  # noqa: BLE001 - errors are compared too
            return _summary(e)

    return safe(), no_flat(safe)


def _tensor(rng, shape, dtype, device="cpu", requires_grad=False):
    if dtype == "bool":
        t = torch.tensor(rng.random(shape) > 0.5)
    elif dtype in ("int64", "int32"):
        t = torch.tensor(rng.integers(-5, 5, shape)).to(getattr(torch, dtype))
    else:
        # few distinct values: amax/amin ties and equal products are exercised
        t = torch.tensor(rng.integers(-3, 4, shape) * 0.5).to(getattr(torch, dtype))
    t = t.to(device)
    return t.requires_grad_() if requires_grad else t


CASES = [  # (x's shape, dim, index's shape)
    ((6, 5), 1, (6, 5)),
    ((6, 5), 0, (6, 5)),
    ((6, 5), 1, (4, 9)),
    ((6, 5), 0, (3, 2)),
    ((6, 5), -1, (6, 3)),
    ((3, 4, 5), 0, (2, 4, 5)),
    ((3, 4, 5), 1, (3, 7, 2)),
    ((3, 4, 5), 2, (3, 4, 8)),
    ((7,), 0, (9,)),
    ((2, 1, 3, 2), 2, (2, 1, 5, 2)),
]


def _index(rng, xshape, dim, ishape, dtype="int64", device="cpu"):
    n = xshape[dim]
    return torch.tensor(rng.integers(0, n, ishape)).to(getattr(torch, dtype)).to(device)


def _scatter_calls(x, dim, i, src) -> list:
    calls = [
        lambda: x.gather(dim, i),
        lambda: torch.take_along_dim(x, i.long(), dim) if i.shape == x.shape else None,
        lambda: x.scatter(dim, i, src),
        lambda: x.scatter(dim, i, 2),
        lambda: x.scatter_add(dim, i, src),
        lambda: x.clone().scatter_(dim, i, src),
        lambda: x.clone().scatter_add_(dim, i, src),
    ]
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            calls.append(
                lambda r=reduce, s=include_self: x.scatter_reduce(dim, i, src, r, include_self=s)
            )
    return calls


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_values_match_the_key_of_aranges(no_flat, case, dtype):
    rng = np.random.default_rng(CASES.index(case) * 10 + DTYPES.index(dtype))
    xshape, dim, ishape = case
    x = _tensor(rng, xshape, dtype)
    src_shape = tuple(max(a, b) for a, b in zip(xshape, ishape, strict=True))
    src = _tensor(rng, src_shape, dtype)
    for idt in ("int64", "int32"):
        calls = _scatter_calls(x, dim, _index(rng, xshape, dim, ishape, idt), src)
        for k, call in enumerate(calls):
            new, old = _both(no_flat, call)
            assert new == old, (case, dtype, idt, k)


def test_the_flat_plan_is_taken():
    """The plan stands for the key: one 1-d index into x.flatten(), of index's shape."""
    i = np.array([[2, 0, 1], [1, 1, 0]])
    plan = flat_along_plan(i, 1, (2, 4))
    assert plan.v_shape == (8,) and plan.out_shape == (2, 3)
    np.testing.assert_array_equal(plan.adv[0], [2, 0, 1, 5, 5, 4])
    plan = flat_along_plan(i, 0, (3, 3))
    np.testing.assert_array_equal(plan.adv[0], [6, 1, 5, 3, 4, 2])
    # the cached offsets are shared and read-only; the index itself is not changed
    again = flat_along_plan(i, 0, (3, 3))
    np.testing.assert_array_equal(again.adv[0], plan.adv[0])
    np.testing.assert_array_equal(i, [[2, 0, 1], [1, 1, 0]])
    for offsets, _ in scatter_gather._FLAT_OFFSETS.values():
        assert offsets is None or not offsets.flags.writeable


@pytest.mark.parametrize("case", CASES[:8])
def test_gradients_match(no_flat, case):
    rng = np.random.default_rng(7)
    xshape, dim, ishape = case
    src_shape = tuple(max(a, b) for a, b in zip(xshape, ishape, strict=True))
    xa = rng.uniform(0.5, 2.0, xshape)
    sa = rng.uniform(0.5, 2.0, src_shape)
    sa.reshape(-1)[::3] = xa.reshape(-1)[0]  # ties for amax/amin
    ia = rng.integers(0, xshape[dim], ishape)

    def grads(fn):
        def run():
            x = torch.tensor(xa, requires_grad=True)
            s = torch.tensor(sa, requires_grad=True)
            i = torch.tensor(ia)
            out = fn(x, s, i)
            g = torch.tensor(rng_g.standard_normal(tuple(out.shape)))
            gx, gs = torch.autograd.grad(out, (x, s), g, create_graph=True, allow_unused=True)
            total = sum(t.sum() for t in (gx, gs) if t is not None and t.requires_grad)
            second = ()
            if isinstance(total, torch.Tensor):
                second = torch.autograd.grad(total * total, (x, s), allow_unused=True)
            return (out, gx, gs, *second)

        return run

    fns = [
        lambda x, s, i: x.gather(dim, i),
        lambda x, s, i: x.scatter(dim, i, s),
        lambda x, s, i: x.scatter_add(dim, i, s),
        lambda x, s, i: x.sort(dim)[0],
        lambda x, s, i: x.topk(2, dim)[0],
        lambda x, s, i: x.kthvalue(2, dim)[0],
    ]
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            fns.append(
                lambda x, s, i, r=reduce, c=inc: x.scatter_reduce(dim, i, s, r, include_self=c)
            )
    for k, fn in enumerate(fns):
        rng_g = np.random.default_rng(k)
        new = _both(no_flat, grads(fn))[0]
        rng_g = np.random.default_rng(k)
        old = no_flat(lambda f=fn: _summary(grads(f)()))
        assert new == old, (case, k)


def _sort_calls(t, dim) -> list:
    return [
        lambda: t.sort(dim),
        lambda: t.sort(dim, descending=True, stable=True),
        lambda: t.topk(2, dim),
        lambda: t.topk(3, dim, largest=False),
        lambda: t.topk(1, dim),
        lambda: t.topk(1, dim, largest=False),
        lambda: t.kthvalue(2, dim),
        lambda: t.kthvalue(1, dim, keepdim=True),
        lambda: torch.msort(t),
        lambda: t.median(dim),
    ]


def test_sorting_values_match(no_flat):
    rng = np.random.default_rng(11)
    for shape in ((5, 7), (3, 4, 6), (8,), (0, 4), (3, 0)):
        x = torch.tensor(rng.integers(-3, 3, shape) * 1.0)
        if x.numel():
            x[(0,) * len(shape)] = float("nan")
        xt = x.transpose(0, -1)  # non-contiguous: the flat gather reads a row-major copy
        for t in (x, xt):
            for dim in range(-t.dim(), t.dim()):
                for call in _sort_calls(t, dim):
                    new, old = _both(no_flat, call)
                    assert new == old, (shape, dim)


def test_errors_and_saved_state_match(no_flat):
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    src = torch.ones(3, 4, requires_grad=True)
    bad = [
        torch.tensor([[0, 4]]),
        torch.tensor([[0, -1]]),
        torch.tensor([[5], [0]]),
        torch.tensor([[0, 1]], dtype=torch.int32) - 3,
    ]
    for i in bad:
        for call in (
            lambda i=i: x.gather(1, i),
            lambda i=i: x.scatter(1, i, src),
            lambda i=i: x.scatter_add(1, i, src),
            lambda i=i: x.scatter_reduce(1, i, src, "amax"),
        ):
            new, old = _both(no_flat, call)
            assert new[0] == "error" and new == old
    i = torch.tensor([[0, 3, 3], [1, 1, 2]])

    def saved():
        out = x.scatter_reduce(1, i, src, "amax")
        g = x.gather(1, i)
        return (out.grad_fn._saved_dim, out.grad_fn._saved_reduce, out.grad_fn._saved_index,
                g.grad_fn._saved_dim, g.grad_fn._saved_index, g.grad_fn._saved_self)  # fmt: skip

    new, old = _both(no_flat, saved)
    assert new == old
    # an index changed in place after a gather or scatter_add refuses backward, as before
    for fn in (lambda k: x.gather(1, k), lambda k: x.scatter_add(1, k, src)):

        def changed(fn=fn):
            k = i.clone()
            out = fn(k)
            k.add_(0)
            out.sum().backward()

        new, old = _both(no_flat, changed)
        assert new[0] == "error" and new == old


def test_inference_and_no_grad_and_subclass_match(no_flat):
    rng = np.random.default_rng(5)
    xa = rng.standard_normal((6, 5)).astype(np.float32)
    ia = rng.integers(0, 5, (6, 5))

    class Sub(torch.Tensor):
        pass

    def calls():
        out = []
        with torch.inference_mode():
            x, i = torch.tensor(xa), torch.tensor(ia)
            out += [x.gather(1, i), x.scatter_add(1, i, x), x.scatter(1, i, x)]
        with torch.no_grad():
            x = torch.tensor(xa, requires_grad=True)
            out += [x.gather(1, torch.tensor(ia)), x.scatter_reduce(1, torch.tensor(ia), x, "mean")]
        s = torch.tensor(xa).as_subclass(Sub)
        r = s.gather(1, torch.tensor(ia))
        out += [r, type(r).__name__, s.scatter_add(1, torch.tensor(ia), s)]
        return out

    new, old = _both(no_flat, calls)
    assert new == old


def test_profiler_sees_the_same_ops(no_flat):
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))
    i = torch.tensor([[0, 1, 4], [2, 2, 3], [1, 0, 0], [4, 4, 4]])

    def profiled():
        with torch.profiler.profile() as prof:
            a = x.gather(1, i)
            b = x.scatter_add(1, i, a)
        return a, b, sorted({e.name for e in prof.events()})

    new, old = _both(no_flat, profiled)
    assert new == old


def test_strict_device_matches_cpu(no_flat, device):
    rng = np.random.default_rng(9)
    xa = rng.standard_normal((5, 6))
    ia = rng.integers(0, 6, (5, 4))

    def run(dev):
        x = torch.tensor(xa, device=dev, requires_grad=True)
        i = torch.tensor(ia, device=dev)
        outs = [
            x.gather(1, i),
            x.scatter_add(1, i, x),
            x.scatter(1, i, x),
            x.scatter_reduce(1, i, x, "amin", include_self=False),
            x.topk(2, 1)[0],
        ]
        (g,) = torch.autograd.grad(sum(o.sum() for o in outs), x)
        return [o.detach().cpu().numpy() for o in (*outs, g)]

    for a, b in zip(run(device), no_flat(lambda: run("cpu")), strict=True):
        np.testing.assert_array_equal(a, b, err_msg=device)


def _cum_calls(t, dim) -> list:
    return [
        lambda: t.cummax(dim),
        lambda: t.cummin(dim),
        lambda: torch.cummax(t, dim),
    ]


@pytest.mark.parametrize("dtype", DTYPES)
def test_cummax_cummin_match(no_flat, dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for shape in ((6, 7), (3, 4, 5), (9,), (1, 8), (0, 3), ()):
        x = _tensor(rng, shape, dtype)
        if x.is_floating_point() and x.numel():
            flat = x.view(-1)
            flat[::5] = float("nan")
            flat[1::4] = -0.0
            flat[2::4] = 0.0
        views = [x] if x.dim() < 2 else [x, x.transpose(0, -1)]
        for t in views:
            for dim in range(-max(t.dim(), 1), max(t.dim(), 1)):
                for call in _cum_calls(t, dim):
                    new, old = _both(no_flat, call)
                    assert new == old, (shape, dim)


def test_cummax_gradients_and_out_match(no_flat):
    rng = np.random.default_rng(21)
    xa = rng.integers(-2, 3, (5, 6)).astype(np.float64)

    def run(dim, op):
        x = torch.tensor(xa, requires_grad=True)
        values, indices = getattr(x, op)(dim)
        g = torch.tensor(np.random.default_rng(dim + 5).standard_normal(values.shape))
        g.requires_grad_()
        (gx,) = torch.autograd.grad(values, x, g, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), g)  # through the backward's scatter
        out = (torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long))
        torch.cummax(x.detach(), dim, out=out)
        return (values, indices, gx, ggx, *out, values.grad_fn._saved_dim)

    for dim in (0, 1, -1):
        for op in ("cummax", "cummin"):
            new, old = _both(no_flat, lambda d=dim, o=op: run(d, o))
            assert new == old
            assert new[0][4] == ("CummaxBackward0" if op == "cummax" else "CumminBackward0")


@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_reads_match(no_flat, dtype):
    rng = np.random.default_rng(40 + DTYPES.index(dtype))
    for shape in ((3, 4), (2, 3, 4), (5,), (1, 1), (4, 1, 3)):
        x = _tensor(rng, shape, dtype)
        views = [x, x.transpose(0, -1), x[..., :1].expand(shape)]
        for t in views:
            for m in (
                torch.tensor(rng.random(t.shape) > 0.4),
                torch.zeros(t.shape, dtype=torch.bool),
                torch.ones(t.shape, dtype=torch.bool),
            ):
                for call in (
                    lambda t=t, m=m: t[m],
                    lambda t=t, m=m: t.masked_select(m),
                    lambda t=t, m=m: torch.masked_select(t, m[:1]),  # a broadcast mask
                    lambda t=t, m=m: torch.masked_select(t[:1], m),  # a broadcast input
                ):
                    new, old = _both(no_flat, call)
                    assert new == old, (shape, dtype)


def test_mask_gradients_and_nodes_match(no_flat):
    rng = np.random.default_rng(41)
    xa = rng.standard_normal((4, 5))
    ma = rng.random((4, 5)) > 0.5

    def run(select):
        x = torch.tensor(xa, requires_grad=True)
        m = torch.tensor(ma)
        out = x.masked_select(m) if select else x[m]
        g = torch.tensor(np.arange(out.shape[0], dtype=np.float64) - 2.5, requires_grad=True)
        (gx,) = torch.autograd.grad(out, x, g, create_graph=True)
        (gg,) = torch.autograd.grad((gx * gx).sum(), g)
        fn = out.grad_fn
        saved = sorted(a for a in dir(fn) if a.startswith("_saved_"))
        values = []
        for a in saved:
            try:
                values.append(getattr(fn, a))
            except Exception as e:  # noqa: BLE001 - compared too
                values.append(e)
        m.add_(False)  # the mask changed in place: backward refuses, as before
        try:
            out.sum().backward()
            refused = None
        except RuntimeError as e:
            refused = e
        return (out, gx, gg, type(gx.grad_fn).__name__, saved, *values, refused)

    for select in (True, False):
        new, old = _both(no_flat, lambda s=select: run(s))
        assert new == old and new[-1][0] == "error"
    with torch.inference_mode():
        new, old = _both(no_flat, lambda: torch.tensor(xa)[torch.tensor(ma)])
    assert new == old
    # a 0-d tensor and mask, an empty one, and a mask on the strict device keep the parser
    for t, m in (
        (torch.tensor(2.0), torch.tensor(True)),
        (torch.zeros(0, 3), torch.zeros(0, 3, dtype=torch.bool)),
    ):
        new, old = _both(no_flat, lambda t=t, m=m: (t[m], t.masked_select(m)))
        assert new == old


def test_bounds_checks_match(no_flat):
    x = torch.arange(20.0).reshape(4, 5)
    for index in ([0, 3], [4], [-1], [-4], [-5], [7, -9], [3, 2, 1, 0]):
        for dtype in (torch.int64, torch.int32):
            i = torch.tensor(index, dtype=dtype)
            for call in (
                lambda i=i: x.index_select(0, i),
                lambda i=i: x.index_select(1, i),
                lambda i=i: x.index_fill(1, i, -1.0),
                lambda i=i: x.index_copy(0, i, torch.ones(len(i), 5)),
                lambda i=i: x.index_add(1, i, torch.ones(4, len(i))),
                lambda i=i: x.take(i.long() * 5),
                lambda i=i: x.gather(1, i.reshape(1, -1)),
                lambda i=i: x.scatter_add(0, i.reshape(-1, 1), x[: len(i), :1]),
            ):
                new, old = _both(no_flat, call)
                assert new == old, index
    assert selection.in_bounds(np.array([0, 4]), 0, 5)
    assert not selection.in_bounds(np.array([0, -1]), 0, 5)
    assert not selection.in_bounds(np.array([5], dtype=np.int32), 0, 5)
    assert selection.in_bounds(np.array([-5, 4], dtype=np.int16), -5, 5)
    assert not selection.in_bounds(np.array([-6, 0]), -5, 5)


def test_masks_on_the_strict_device(no_flat, device):
    rng = np.random.default_rng(43)
    xa = rng.standard_normal((4, 6))
    ma = rng.random((4, 6)) > 0.5

    def run(dev):
        x = torch.tensor(xa, device=dev, requires_grad=True)
        m = torch.tensor(ma, device=dev)
        outs = [x[m], x.masked_select(m), x.index_select(1, torch.tensor([5, 0, 2], device=dev))]
        (g,) = torch.autograd.grad(sum((o * o).sum() for o in outs), x)
        return [o.detach().cpu().numpy() for o in (*outs, g)]

    for a, b in zip(run(device), no_flat(lambda: run("cpu")), strict=True):
        np.testing.assert_array_equal(a, b, err_msg=device)


def test_three_operands_of_one_dtype():
    """addcmul's and addcdiv's operands of one dtype skip the promotion: the same tensors and
    dtype the general path gives; other dtypes and subclasses still promote and check."""
    from minitorch._ops.pointwise_binary import _three

    class Sub(torch.Tensor):
        pass

    x, a, b = torch.ones(3), torch.full((2, 3), 2.0), torch.tensor(3.0)
    got = _three(x, a, b, "addcmul")
    assert got[0] is x and got[1] is a and got[2] is b and got[3] is torch.float32
    got = _three(x, a, b.double(), "addcmul")  # a 0-d float64 does not widen float32
    assert got[3] is torch.float32 and got[2].dtype is torch.float32
    got = _three(x.long(), a.long(), b.double(), "addcmul")
    assert got[3] is torch.float64 and all(t.dtype is torch.float64 for t in got[:3])
    s = x.as_subclass(Sub)
    got = _three(s, a, b, "addcdiv")
    assert got[0] is s and got[3] is torch.float32
    with pytest.raises(TypeError, match="tensor1"):
        _three(x, 2.0, b, "addcmul")
    out = torch.addcmul(x, a, b, value=0.5)
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 4.0, np.float32))
    out = torch.addcdiv(x.double(), a.double(), b.double(), value=0.5)
    assert out.dtype is torch.float64
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 1 + 1 / 3))
