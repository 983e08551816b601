"""Session 43 (redspeed): var/std over everything, float32 cumsum and topk's index kernel take
fewer passes; each is checked bit for bit against the formula it replaced, kept here."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch._ops import sorting
from minitorch._ops._common import is_floating

# --- the replaced formulas ---


def old_sum_sq_dev(x, acc):
    """_moments' full-reduction kernel before session 43: sum((x - mean)**2) in acc."""
    n = x.size
    m = np.add.reduce(x, axis=None, keepdims=True) / n
    if acc is not None:
        x, m = x.astype(acc), m.astype(acc)
    with np.errstate(invalid="ignore"):  # (inf - inf in the inputs with inf)
        d = x - m
    return np.add.reduce(d * d, axis=None, keepdims=True)


def old_cumsum(x, dim, reverse):
    """Cumsum.forward before session 43 (float32 input)."""
    if reverse:
        out = np.ascontiguousarray(np.flip(np.flip(x, dim).cumsum(axis=dim, dtype="float64"), dim))
    else:
        out = np.ascontiguousarray(x.cumsum(axis=dim, dtype="float64"))
    np.add(out, 0.0, out=out)
    return out.astype(x.dtype, copy=False)


def old_topk_index(x, k, largest):
    """_topk_index's general case before session 43, along the last dim of a 2-D x."""
    rows, n = x, x.shape[1]
    at = n - k if largest else k - 1
    v = np.partition(rows, at, axis=1)[:, at : at + 1]
    before = rows > v if largest else rows < v
    equal = rows == v
    if is_floating(x.dtype):
        x_nan = np.isnan(rows)
        v_nan = np.isnan(v)
        before = (before | (x_nan & ~v_nan)) if largest else (before | (v_nan & ~x_nan))
        equal |= x_nan & v_nan
    need = k - before.sum(axis=1, keepdims=True)
    if (equal.sum(axis=1, keepdims=True) > need).any():
        equal &= np.cumsum(equal, axis=1) <= need
    before |= equal
    pick = (np.flatnonzero(before) % n).reshape(-1, k)
    order = sorting._stable_argsort(np.take_along_axis(rows, pick, 1), 1, largest, np)
    return np.ascontiguousarray(np.take_along_axis(pick, order, 1))


def _same(new, old, what):
    assert new.dtype == old.dtype, what
    assert new.shape == old.shape, what
    assert new.tobytes() == old.tobytes(), what


# --- var / std over every element ---


def _var_inputs():
    rng = np.random.default_rng(43)
    base = rng.standard_normal((37, 29))
    far = 1e4 + 1e-2 * rng.standard_normal((64, 50))  # the mean's rounding shows here
    return [
        ("2d", base),
        ("far", far),
        ("transposed", base.T),
        ("sliced", base[::2, 3:]),
        ("3d", rng.standard_normal((3, 4, 5))),
        ("1d", rng.standard_normal(11)),
        ("constant", np.full((7, 9), 0.1)),
        ("with inf", np.where(base > 2, np.inf, base)),
        ("with nan", np.where(base > 2, np.nan, base)),
    ]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_var_std_match_the_old_kernel(dtype):
    for name, a in _var_inputs():
        a = a.astype(dtype)
        acc = "float64" if dtype == "float32" else None
        for correction in (0, 1, 2):
            dof = a.size - correction
            ss = old_sum_sq_dev(a, acc).reshape(())
            var_old = (ss / dof).astype(dtype)
            std_old = np.sqrt(ss / dof).astype(dtype)
            x = minitorch.tensor(a) if a.flags.c_contiguous else minitorch.from_numpy(a)
            v = minitorch.var(x, correction=correction)
            s = minitorch.std(x, correction=correction)
            _same(v.numpy(), np.asarray(var_old), f"var {name} {dtype} {correction}")
            _same(s.numpy(), np.asarray(std_old), f"std {name} {dtype} {correction}")
            vk = minitorch.var(x, dim=None, keepdim=True, correction=correction)
            assert vk.shape == (1,) * a.ndim
            _same(vk.numpy().reshape(()), np.asarray(var_old), f"keepdim {name}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_full_moments_in_the_accumulation_dtype(dtype):
    # before the final rounding to float32, where a float32 subtraction would show
    from types import SimpleNamespace

    from minitorch._ops.reduction_more import _moments

    for name, a in _var_inputs():
        a = a.astype(dtype)
        ctx = SimpleNamespace(xp=np)
        got = _moments(ctx, a, None, True, 1)
        old = old_sum_sq_dev(a, "float64" if dtype == "float32" else None) / (a.size - 1)
        _same(got, old, f"{name} {dtype}")
        assert ctx.dof == a.size - 1


def test_full_var_of_0d_and_one_element():
    with pytest.warns(UserWarning, match="degrees of freedom"):
        v = minitorch.tensor(3.0).var()
    assert np.isnan(v.item())
    assert minitorch.tensor(3.0).var(unbiased=False).item() == 0.0
    assert minitorch.tensor([2.5]).std(unbiased=False).item() == 0.0
    assert minitorch.tensor(2.5, dtype=minitorch.float64).var(correction=0).dtype is (
        minitorch.float64
    )


def test_full_var_gradients_unchanged():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 5))
    x = minitorch.tensor(a, requires_grad=True)
    x.var().backward()
    np.testing.assert_allclose(
        x.grad.numpy(), 2 * (a - a.mean()) / (a.size - 1), rtol=1e-12, err_msg="var grad"
    )
    x64 = minitorch.tensor(a, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: t.std(), (x64,))
    assert minitorch.autograd.gradgradcheck(lambda t: t.var(), (x64,))


# --- cumsum of float32 ---


def _cumsum_inputs():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((13, 17)).astype("float32")
    z = a.copy()
    z[:3, :4] = -0.0  # a leading run of -0.0: torch's sums start from +0
    z[5, 0] = -0.0
    z[6, 2] = np.nan
    z[7, 3] = np.inf
    z[8, 1] = -np.inf
    big = (rng.standard_normal((40, 300)) * 1e4).astype("float32")
    return [
        ("2d", a),
        ("signed zeros, nan, inf", z),
        ("big", big),
        ("transposed", a.T),
        ("sliced", a[1::2, ::3]),
        ("3d", rng.standard_normal((3, 4, 5)).astype("float32")),
        ("1d", rng.standard_normal(50).astype("float32")),
        ("empty", np.zeros((0, 3), "float32")),
    ]


def test_float32_cumsum_matches_the_old_kernel():
    for name, a in _cumsum_inputs():
        for dim in range(a.ndim):
            x = minitorch.from_numpy(a)
            r = minitorch.cumsum(x, dim).numpy()
            _same(r, old_cumsum(a, dim, False), f"cumsum {name} dim {dim}")
            assert r.flags.c_contiguous, name
            xn = minitorch.from_numpy(a)
            neg = minitorch.cumsum(xn, dim - a.ndim).numpy()  # the same, by a negative dim
            _same(neg, r, f"cumsum {name} dim {dim - a.ndim}")


def test_float32_reverse_cumsum_matches_the_old_kernel():
    # the reverse scan is cumsum's backward: x.grad is the reversed running sum of g
    rng = np.random.default_rng(3)
    for name, g in _cumsum_inputs():
        if g.size == 0:
            continue
        for dim in range(g.ndim):
            x = minitorch.zeros(g.shape, requires_grad=True)
            x.cumsum(dim).backward(minitorch.tensor(np.ascontiguousarray(g)))
            _same(x.grad.numpy(), old_cumsum(g, dim, True), f"reverse {name} dim {dim}")
            assert x.grad.numpy().flags.c_contiguous
    a = rng.standard_normal((4, 6)).astype("float32")
    x = minitorch.tensor(a, requires_grad=True)
    y = x.cumsum(1)
    assert y.grad_fn.name() == "CumsumBackward0"
    assert y.grad_fn._saved_dim == 1
    assert y.dtype is minitorch.float32


def test_cumsum_leading_negative_zero_is_positive_zero():
    x = minitorch.tensor([-0.0, -0.0, 1.0, -1.0, -0.0])
    r = x.cumsum(0).numpy()
    assert list(np.signbit(r)) == [False] * 5
    np.testing.assert_array_equal(r, [0.0, 0.0, 1.0, 0.0, 0.0])


def test_cumsum_other_dtypes_unchanged():
    a = np.arange(12).reshape(3, 4)
    r = minitorch.tensor(a).cumsum(1)
    assert r.dtype is minitorch.int64
    np.testing.assert_array_equal(r.numpy(), a.cumsum(1))
    d = np.random.default_rng(0).standard_normal((5, 6))
    _same(minitorch.tensor(d).cumsum(0).numpy(), d.cumsum(0), "float64")


def test_cumsum_second_order():
    x = minitorch.tensor(np.random.default_rng(2).standard_normal((3, 4)), requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda t: (t.cumsum(1) ** 2).sum(), (x,))


# --- topk's index kernel ---


def _topk_cases():
    rng = np.random.default_rng(11)
    cases = []
    for trial in range(120):
        r, n = int(rng.integers(1, 30)), int(rng.integers(4, 80))
        kind = trial % 5
        if kind == 0:
            a = rng.standard_normal((r, n)).astype("float32")
        elif kind == 1:
            a = rng.integers(0, 5, (r, n)).astype("float32")  # ties everywhere
        elif kind == 2:
            a = rng.integers(0, 5, (r, n)).astype("int64")
        elif kind == 3:
            a = rng.integers(0, 4, (r, n)).astype("float64")
            a[rng.random((r, n)) < 0.3] = np.nan  # nan v in some rows
        else:
            a = rng.standard_normal((r, n)).astype("float32")
            a[rng.random((r, n)) < 0.05] = np.nan
        k = int(rng.integers(2, max(3, n // 4 + 1)))
        cases.append((a, k))
    return cases


def test_topk_index_matches_the_old_kernel():
    for i, (a, k) in enumerate(_topk_cases()):
        for largest in (True, False):
            new = sorting._topk_index(np, a, 1, k, largest)
            old = old_topk_index(a, k, largest)
            _same(new, old, f"case {i} k={k} largest={largest}")
            assert new.flags.c_contiguous


def test_topk_public_results_unchanged(monkeypatch):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 50, (64, 40)).astype("float32")  # ties, beyond the sort-all size
    a[3, :7] = np.nan
    for dim, largest in ((1, True), (1, False), (0, True), (0, False)):
        x = minitorch.tensor(a)
        v_new, i_new = minitorch.topk(x, 5, dim=dim, largest=largest)

        def old_kernel(xp, x, d, k, lg):
            rows = np.moveaxis(x, d, -1)
            return np.ascontiguousarray(np.moveaxis(old_topk_index(rows, k, lg), -1, d))

        with monkeypatch.context() as m:
            m.setattr(sorting, "_topk_index", old_kernel)
            v_old, i_old = minitorch.topk(x, 5, dim=dim, largest=largest)
        _same(v_new.numpy(), v_old.numpy(), f"values dim {dim} {largest}")
        _same(i_new.numpy(), i_old.numpy(), f"indices dim {dim} {largest}")
        assert i_new.stride() == i_old.stride()


# --- accumulating puts into distinct rows ---


def _puts(x, idx, src):
    """The accumulating puts: index_add, index_put(accumulate=True), index_put_ in place and
    the gradient of x[idx] (a scatter-add into zeros)."""
    out = [x.index_put((idx,), src, accumulate=True)]
    if bool((idx >= 0).all()):  # (index_add refuses negative indices)
        out.append(x.index_add(0, idx, src))
    y = x.clone()
    y.index_put_((idx,), src, accumulate=True)
    out.append(y)
    if x.dtype.is_floating_point:
        leaf = x.detach().requires_grad_(True)
        leaf[idx].backward(src)
        out.append(leaf.grad)
    return out


def _put_cases():
    rng = np.random.default_rng(17)
    cases = []
    for dtype in ("float32", "float64", "float16", "int64", "int32"):
        a = (rng.standard_normal((40, 1024)) * 10).astype(dtype)
        s = (rng.standard_normal((20, 1024)) * 10).astype(dtype)
        rows = rng.permutation(40)[:20]
        cases.append((f"{dtype} distinct", a, rows, s))
        neg = rows.copy()
        neg[::3] -= 40  # negative indices for the same rows
        cases.append((f"{dtype} negative", a, neg, s))
        dup = rows.copy()
        dup[5] = dup[11]
        cases.append((f"{dtype} duplicate", a, dup, s))
        dup_neg = rows.copy()
        dup_neg[4] = dup_neg[9] - 40  # the same row, once negative
        cases.append((f"{dtype} duplicate by sign", a, dup_neg, s))
    z = np.zeros((40, 1024), "float32")
    sz = np.full((20, 1024), -0.0, "float32")
    sz[0, 0], sz[1, 1], sz[2, 2] = np.nan, np.inf, -np.inf
    cases.append(("signed zeros", z, rng.permutation(40)[:20], sz))
    big = rng.standard_normal((300, 64)).astype("float32")
    cases.append(("all rows", big, rng.permutation(300), rng.standard_normal((300, 64))))
    cases.append(("few rows", big, np.array([3, 1]), rng.standard_normal((2, 64))))
    some = rng.integers(0, 300, 300)  # each row up to a few times: in rounds
    assert 1 < np.bincount(some).max() <= 8
    cases.append(("random rows", big, some, rng.standard_normal((300, 64))))
    cases.append(("many times", big, rng.integers(0, 5, 300), rng.standard_normal((300, 64))))
    three = rng.standard_normal((30, 4, 200)).astype("float32")
    cases.append(("3d", three, rng.permutation(30)[:25], rng.standard_normal((25, 4, 200))))
    return cases


def test_accumulating_puts_match_the_scatter_add(monkeypatch):
    from minitorch._ops import indexing

    for name, a, rows, s in _put_cases():
        x = minitorch.tensor(a)
        idx = minitorch.tensor(rows)
        src = minitorch.tensor(np.asarray(s).astype(a.dtype))
        new = _puts(x, idx, src)
        with monkeypatch.context() as m:
            m.setattr(indexing, "_add_to_rows", lambda v, key, values: False)
            old = _puts(x, idx, src)
        for k, (n, o) in enumerate(zip(new, old, strict=True)):
            _same(n.numpy(), o.numpy(), f"{name} put {k}")
            assert n.dtype is o.dtype and n.stride() == o.stride(), name


def test_rows_path_taken_and_declined():
    from minitorch._backend import cpu
    from minitorch._ops.indexing import _ROW_ROUNDS, _add_to_rows

    rng = np.random.default_rng(2)
    v = rng.standard_normal((64, 1024)).astype("float32")
    vals = rng.standard_normal((16, 1024)).astype("float32")
    rows = rng.permutation(64)[:16]
    dup = rows.copy()
    dup[1] = dup[0]
    dup[9] = dup[0] - 64  # three times, once negative
    dup[2] = dup[3]
    for key, values in (
        ((rows,), vals),
        ((dup,), vals),
        ((dup,), vals[:1]),  # one row of values for all (broadcast)
        ((dup, slice(None)), vals[0]),
    ):
        got, want = v.copy(), v.copy()
        assert _add_to_rows(got, key, values)
        cpu.backend.scatter_add(want, key, values)
        _same(got, want, f"{key[0][:4]} {values.shape}")
    many = np.repeat(rows[:4], _ROW_ROUNDS + 1)
    before = v.copy()
    assert not _add_to_rows(v, (many,), vals[:1])  # too many rounds: left to ufunc.at
    np.testing.assert_array_equal(v, before)  # (untouched when declined)
    assert not _add_to_rows(v, (slice(None), rows), vals.T)  # not along dim 0
    assert not _add_to_rows(v, (rows, rows), vals[:, 0])  # two index arrays
    assert not _add_to_rows(v, (rows,), vals.astype("float64"))  # another dtype
    assert not _add_to_rows(v, (rows.astype("uint64"),), vals)
    assert not _add_to_rows(v, (rows,), v[rows[0] : rows[0] + 16])  # may alias v
    assert not _add_to_rows(np.zeros(64, "float32"), (rows,), vals[:, 0])  # 1-d
    assert not _add_to_rows(np.zeros((64, 2), "float32"), (rows,), vals[:, :2])  # small
    e = np.broadcast_to(np.zeros((1, 1024), "float32"), (64, 1024))
    assert not _add_to_rows(e, (rows,), vals)  # overlapping elements
    assert not _add_to_rows(np.zeros((1024, 64), "float32").T, (rows[:8],), vals[:8])


def test_put_into_expanded_and_aliased_inputs_unchanged(monkeypatch):
    from minitorch._ops import indexing

    def run():
        rng = np.random.default_rng(4)
        base = minitorch.tensor(rng.standard_normal((1, 32)).astype("float32"))
        e = base.expand(64, 32)
        idx = minitorch.tensor(rng.permutation(64)[:20])
        with pytest.warns(UserWarning):
            e.index_put_((idx,), minitorch.ones(20, 32), accumulate=True)
        x = minitorch.tensor(rng.standard_normal((64, 32)).astype("float32"))
        x.index_put_((minitorch.tensor(rng.permutation(64)),), x, accumulate=True)  # x itself
        return base.numpy().copy(), x.numpy().copy()

    new = run()
    with monkeypatch.context() as m:
        m.setattr(indexing, "_add_to_rows", lambda v, key, values: False)
        old = run()
    for n, o in zip(new, old, strict=True):
        _same(n, o, "expanded / aliased")


# --- max/min along a dim: a data-level backward ---


def _max_dim_grads(a, dim, keepdim, kind, g):
    x = minitorch.tensor(a, requires_grad=True)
    values, idx = getattr(x, kind)(dim, keepdim=keepdim)
    values.backward(minitorch.tensor(g))
    return x.grad.numpy(), idx.numpy()


def test_max_min_dim_data_backward_matches_the_tensor_formula():
    from minitorch.autograd import engine

    rng = np.random.default_rng(9)
    for dtype in ("float32", "float64", "float16"):
        for shape in ((6, 9), (3, 4, 5), (7,)):
            a = rng.integers(0, 4, shape).astype(dtype)  # ties: the first index takes it
            a.flat[1] = np.nan
            for dim in range(len(shape)):
                for keepdim in (False, True):
                    for kind in ("max", "min"):
                        gshape = list(shape)
                        gshape[dim] = 1
                        if not keepdim:
                            del gshape[dim]
                        g = rng.standard_normal(gshape).astype(dtype)
                        g.flat[0] = np.inf
                        if g.size > 1:
                            g.flat[1] = -0.0
                        if g.size > 2:
                            g.flat[2] = np.nan
                        new, idx_new = _max_dim_grads(a, dim, keepdim, kind, g)
                        engine.DATA_BACKWARD = False
                        try:
                            old, idx_old = _max_dim_grads(a, dim, keepdim, kind, g)
                        finally:
                            engine.DATA_BACKWARD = True
                        what = f"{dtype} {shape} {dim} {keepdim} {kind}"
                        _same(new, old, what)
                        _same(idx_new, idx_old, what)
                        assert new.flags.c_contiguous, what


def test_max_dim_backward_refuses_changed_indices_and_keeps_second_order():
    x = minitorch.tensor([[1.0, 3.0, 2.0], [0.5, 0.1, 0.2]], requires_grad=True)
    values, idx = x.max(1)
    idx.add_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()
    x64 = minitorch.tensor(np.random.default_rng(1).standard_normal((4, 5)), requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda t: t.max(1)[0] ** 2, (x64,))
    assert minitorch.autograd.gradcheck(lambda t: t.min(0)[0], (x64,))
    s = minitorch.tensor(2.0, requires_grad=True)  # a 0-d input: the Tensor formula
    s.max(0)[0].backward()
    assert s.grad.item() == 1.0


def _amax_grad(a, kind, dim, keepdim, g):
    x = minitorch.tensor(a, requires_grad=True)
    out = getattr(x, kind)(**({} if dim is None else {"dim": dim}), keepdim=keepdim)
    out.backward(minitorch.tensor(g))
    return x.grad.numpy()


def test_amax_amin_data_backward_matches_the_tensor_formula():
    from minitorch.autograd import engine

    rng = np.random.default_rng(21)
    for dtype in ("float32", "float64", "float16"):
        for shape in ((6, 9), (3, 4, 5), (7,), ()):
            a = rng.integers(0, 3, shape).astype(dtype)  # ties: the gradient is shared
            if a.ndim:
                a[(-1,) * a.ndim] = np.nan  # a NaN slice (the last): NaN across it
            dims = [None] + list(range(a.ndim)) + ([(0, a.ndim - 1)] if a.ndim > 1 else [])
            for dim in dims:
                for keepdim in (False, True):
                    for kind in ("amax", "amin"):
                        x = minitorch.tensor(a)
                        out = getattr(x, kind)(**({} if dim is None else {"dim": dim}))
                        oshape = getattr(x, kind)(
                            **({} if dim is None else {"dim": dim}), keepdim=keepdim
                        ).shape
                        g = rng.standard_normal(tuple(oshape)).astype(dtype)
                        if g.size:
                            g.flat[0] = -np.inf
                        if g.size > 1:
                            g.flat[1] = -0.0
                        new = _amax_grad(a, kind, dim, keepdim, g)
                        engine.DATA_BACKWARD = False
                        try:
                            old = _amax_grad(a, kind, dim, keepdim, g)
                        finally:
                            engine.DATA_BACKWARD = True
                        what = f"{dtype} {shape} {dim} {keepdim} {kind}"
                        _same(new, old, what)
                        assert new.flags.c_contiguous, what
                        del out


def test_max_all_keeps_its_own_backward():
    x = minitorch.tensor([[1.0, 3.0], [3.0, -2.0]], requires_grad=True)
    x.max().backward(minitorch.tensor(-1.0))
    assert list(np.signbit(x.grad.numpy()).ravel()) == [False, True, True, False]  # +0 else
    y = minitorch.tensor([[1.0, 3.0], [3.0, -2.0]], requires_grad=True)
    y.amax().backward(minitorch.tensor(-1.0))
    assert list(np.signbit(y.grad.numpy()).ravel()) == [True, True, True, True]  # -0 else
    x64 = minitorch.tensor(np.random.default_rng(3).standard_normal((4, 5)), requires_grad=True)
    assert minitorch.autograd.gradgradcheck(lambda t: t.amax(1) ** 2, (x64,))
