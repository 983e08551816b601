"""Session 45's cheaper host kernels of shape and selection ops (tril/triu over kept masks,
flip's key, roll of one dim by joining its pieces, nonzero from one array, topk's tie check in
Python): each gives what the route it replaces gave, bit for bit, in layout, with the same
gradients and errors; the replaced route is reached by switching the new one off."""

import numpy as np
import pytest

import minitorch as torch
from minitorch import _memory_format as _mf
from minitorch._ops import selection, shape_more, sorting
from minitorch._ops._common import row_major
from minitorch.autograd import function

FLOATS = (torch.float16, torch.float32, torch.float64, torch.bfloat16)
DTYPES = FLOATS + (torch.int32, torch.int64, torch.uint8, torch.bool)


class _NotNumpy:
    """Stands for NumPy in the new routes' `xp is _CPU_XP` tests, so they take the old route."""


@pytest.fixture
def old_route(monkeypatch):
    """A function that runs fn() with the new host routes switched off (the reference)."""

    def run(fn):
        with monkeypatch.context() as m:
            m.setattr(shape_more, "_CPU_XP", _NotNumpy())
            m.setattr(selection, "_CPU_XP", _NotNumpy())
            m.setattr(sorting, "_TIES_IN_PYTHON", -1)
            return fn()

    return run


def make(shape, dtype, seed, layout="c"):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if dtype is torch.bool:
        x = x > 0
    elif not dtype.is_floating_point:
        x = (x.abs() * 10).to(dtype)
    else:
        x = x.to(dtype)
        flat = x.view(-1)
        if flat.numel() > 3:  # a NaN, a negative zero, a tie: their bits must survive
            flat[0] = float("nan")
            flat[1] = -0.0
            flat[2] = flat[3]
    if layout == "t" and x.dim() >= 2:
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "step" and x.dim() >= 1:
        return torch.cat([x, x], -1)[..., ::2]
    return x


def same_array(new, old):
    """Same dtype, shape, strides, contiguity and bits (a NaN's payload, zeros' signs)."""
    assert new.dtype == old.dtype and new.shape == old.shape
    assert new.strides == old.strides
    assert new.flags.c_contiguous == old.flags.c_contiguous
    assert new.flags.writeable == old.flags.writeable
    assert new.tobytes() == old.tobytes()


def same_tensor(new, old):
    assert type(new) is type(old)
    if isinstance(old, tuple):
        assert len(new) == len(old)
        for a, b in zip(new, old, strict=True):
            same_tensor(a, b)
        return
    assert new.dtype == old.dtype and new.shape == old.shape and new.device == old.device
    assert new.stride() == old.stride()
    assert new.requires_grad == old.requires_grad and new.is_leaf == old.is_leaf
    assert type(new.grad_fn) is type(old.grad_fn)
    assert new.detach().cpu().numpy().tobytes() == old.detach().cpu().numpy().tobytes()


def both(old_route, fn):
    """fn() on the new route and on the old one; where the old one raises, the new one must
    raise the same error (type and message), and None is returned."""
    try:
        old = old_route(fn)
    except Exception as e:
        with pytest.raises(type(e)) as info:
            fn()
        assert str(info.value) == str(e)
        return None
    return fn(), old


# --- tril / triu ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c", "t", "step"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 5), (1, 1), (0, 3), (2, 0, 2), (70, 70)])
def test_triangles_match_numpy(shape, layout, dtype):
    x = make(shape, dtype, 0, layout)._data
    for k in (-80, -2, -1, 0, 1, 3, 80):
        same_array(shape_more._tril(np, x, k), np.tril(x, k))
        same_array(shape_more._triu(np, x, k), np.triu(x, k))
        t = torch.from_numpy(x) if dtype is not torch.bfloat16 else make(shape, dtype, 0, layout)
        same_array(torch.tril(t, k)._data, row_major(np, np.tril(x, k)))
        same_array(torch.triu(t, k)._data, row_major(np, np.triu(x, k)))


def test_triangle_masks_are_kept_read_only():
    shape_more._TRI_MASKS.clear()
    x = torch.ones(3, 4)
    a = torch.tril(x, 1)
    mask = shape_more._TRI_MASKS[(3, 4, 1)]
    assert not mask.flags.writeable
    np.testing.assert_array_equal(mask, np.tri(3, 4, 1, dtype=bool))
    torch.triu(x, 2)  # triu's mask is tri at k - 1
    np.testing.assert_array_equal(shape_more._TRI_MASKS[(3, 4, 1)], np.tri(3, 4, 1, dtype=bool))
    a += 1  # the result is its own memory
    np.testing.assert_array_equal(mask, np.tri(3, 4, 1, dtype=bool))
    torch.tril(torch.ones(100, 100))  # too big to keep
    assert (100, 100, 0) not in shape_more._TRI_MASKS


# --- flip ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c", "t", "step"])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (0, 3)])
def test_flip_matches_numpy(shape, layout, dtype):
    x = make(shape, dtype, 1, layout)._data
    n = x.ndim
    for dims in (
        {()} | {(d,) for d in range(n)} | ({(0, n - 1), tuple(range(n))} if n > 1 else set())
    ):
        new = shape_more._flip_copy(np, x, dims)
        if 0 in x.strides:  # (an expanded or empty input: the layout torch gives, as before)
            old = _mf.into_layout_of(np, x, np.flip(x, axis=dims))
        else:
            old = np.flip(x, axis=dims).copy(order="K")
        if n == 0:  # (NumPy's scalar, as before)
            assert type(new) is type(old) and new.tobytes() == old.tobytes()
        else:
            same_array(new, old)
    if n and 0 not in x.strides:
        same_array(shape_more._flip_copy(np, x, n - 1), np.flip(x, n - 1).copy(order="K"))


# --- roll ---

ROLLS = [
    (1, 0), (-1, 0), (5, 1), (0, 0), (4, 1), (2**70, 0), (-(2**63), 1),
    ((1, 2), (0, 1)), ((1, 4), (0, 1)), ((2, 1), (0, 0)), ((1, -1), (1, 1)), ((1, 1, 3), (0, 1, 1)),
    ((2, 1), (-1, -2)), (3, None), ((1,), (-1,)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c", "t", "step"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_roll_matches_the_old_route(old_route, shape, layout, dtype):
    x = make(shape, dtype, 2, layout)
    for shifts, dims in ROLLS:
        if dims is not None and np.max(np.abs(dims)) >= x.dim():
            continue
        new, old = both(old_route, lambda: torch.roll(x, shifts, dims))  # noqa: B023
        same_tensor(new, old)
        same_array(new._data, old._data)
        if dims is not None:  # and as NumPy's roll, made row-major
            d = (dims,) if isinstance(dims, int) else dims
            s = (shifts,) if isinstance(shifts, int) else shifts
            s = tuple(v % 60 for v in s)  # (NumPy takes int64 shifts; 60: every size's multiple)
            same_array(new._data, row_major(np, np.roll(x._data, s, axis=d)))


def test_roll_pieces_are_new_memory():
    x = torch.arange(12.0).reshape(3, 4)
    y = x.roll(1, 1)
    y += 100
    assert x.tolist() == torch.arange(12.0).reshape(3, 4).tolist()
    assert y._data.flags.writeable and y._data.flags.owndata


# --- nonzero ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["c", "t", "step"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 4), (2, 3, 4), (0, 3), (1, 1, 1)])
@pytest.mark.parametrize("zeros", ["some", "all", "one"])
def test_nonzero_matches_the_old_route(old_route, shape, layout, dtype, zeros):
    x = make(shape, dtype, 3, layout)
    if zeros == "all":
        x = x * 0 if dtype is not torch.bool else x & False
    elif zeros == "one" and x.numel():
        x = torch.zeros_like(x)
        x[(-1,) * x.dim()] = 1
    new, old = both(old_route, lambda: torch.nonzero(x))
    same_tensor(new, old)
    same_array(new._data, old._data)
    out_new, out_old = torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int64)
    torch.nonzero(x, out=out_new)
    old_route(lambda: torch.nonzero(x, out=out_old))
    same_tensor(out_new, out_old)
    same_tensor(x.nonzero(as_tuple=True), old_route(lambda: x.nonzero(as_tuple=True)))
    same_tensor(torch.argwhere(x), old)


def test_nonzero_errors_unchanged():
    x = torch.ones(2, 2)
    with pytest.raises(RuntimeError, match="Expected out tensor to have scalar type Long"):
        torch.nonzero(x, out=torch.empty(0))
    with pytest.raises(TypeError, match="as_tuple"):
        torch.nonzero(x, as_tuple=1)


# --- topk's tie check ---


def _tied(dtype, seed, shape, kind):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 4 if kind == "ties" else 1000, shape, generator=g).to(torch.float64)
    if kind == "nan":
        x.view(-1)[:: max(1, x.numel() // 3)] = float("nan")
    if kind == "zeros":
        x = torch.where(x > 500, torch.tensor(-0.0, dtype=x.dtype), torch.zeros_like(x))
    if dtype is torch.bool:
        return x > 1
    return x.to(dtype)


TOPK_DTYPES = (
    torch.float16,
    torch.float32,
    torch.float64,
    torch.bfloat16,
    torch.int64,
    torch.uint8,
)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["ties", "distinct", "nan", "zeros"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 5), (8, 8), (1, 1), (4, 17)])
def test_topk_matches_the_old_route(old_route, shape, kind, dtype):
    if kind in ("nan", "zeros") and not dtype.is_floating_point:
        pytest.skip("integers have no NaN or signed zero")
    for seed in range(2):
        x = _tied(dtype, seed, shape, kind)
        n = shape[-1]
        for k in sorted({1, 2, n // 2, n - 1, n}):
            for dim in (-1, 0):
                if k > x.shape[dim]:
                    continue
                for largest in (True, False):
                    for sorted_ in (True, False):
                        fn = lambda: torch.topk(x, k, dim, largest, sorted_)  # noqa: E731, B023
                        new, old = both(old_route, fn)
                        same_tensor(new.values, old.values)
                        same_tensor(new.indices, old.indices)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("kind", ["ties", "distinct", "nan", "zeros"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 5), (8, 8), (1, 1), (4, 17), (0, 3)])
def test_kthvalue_matches_the_old_route(old_route, shape, kind, dtype):
    if kind in ("nan", "zeros") and not dtype.is_floating_point:
        pytest.skip("integers have no NaN or signed zero")
    for seed in range(2):
        x = _tied(dtype, seed, shape, kind)
        for dim in range(-1, len(shape)):
            n = shape[dim]
            for k in sorted({1, 2, n // 2, n - 1, n} - {0}):
                if k > n:
                    continue
                for keepdim in (False, True):
                    fn = lambda: torch.kthvalue(x, k, dim, keepdim)  # noqa: E731, B023
                    got = both(old_route, fn)
                    if got is not None:
                        same_tensor(got[0].values, got[1].values)
                        same_tensor(got[0].indices, got[1].indices)


@pytest.mark.parametrize("kind", ["ties", "distinct", "nan"])
def test_topk_small_tie_check_agrees_with_numpy_passes(kind):
    for seed in range(20):
        x = _tied(torch.float32, seed, (3, 5), kind)._data
        for k in range(1, 5):
            for largest in (True, False):
                order = sorting._stable_argsort(x, 1, largest, np)
                small = sorting._sorted_ties(np, x, 1, k, order)
                saved = sorting._TIES_IN_PYTHON
                sorting._TIES_IN_PYTHON = -1
                try:
                    passes = sorting._sorted_ties(np, x, 1, k, order)
                finally:
                    sorting._TIES_IN_PYTHON = saved
                assert small == passes, (seed, k, largest)


# --- gradients, recorded nodes, inference mode, the profiler ---

RECORDED = {
    "tril": lambda x: torch.tril(x, 1),
    "triu": lambda x: x.triu(-1),
    "flip": lambda x: x.flip(0),
    "flip2": lambda x: torch.flip(x, (0, 1)),
    "roll": lambda x: x.roll(1, 0),
    "roll2": lambda x: torch.roll(x, (1, 2), (1, 1)),
    "topk": lambda x: x.topk(2).values,
    "topk_dim0": lambda x: torch.topk(x, 2, 0, largest=False).values,
}


@pytest.mark.parametrize("name", list(RECORDED))
def test_recorded_path_matches_the_old_route(old_route, name):
    op = RECORDED[name]

    def run():
        x = make((3, 4), torch.float64, 5).nan_to_num(1.5).requires_grad_()
        out = op(x * x)  # (a second derivative that is not zero)
        g = torch.Generator().manual_seed(7)
        up = torch.randn(out.shape, generator=g, dtype=torch.float64)
        (gx,) = torch.autograd.grad(out, x, up, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), x)
        return out, gx, ggx

    new, old = both(old_route, run)
    for a, b in zip(new, old, strict=True):
        assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
        same_tensor(a, b)
    g = torch.Generator().manual_seed(9)
    x = torch.randn(3, 4, generator=g, dtype=torch.float64, requires_grad=True)  # (no ties)
    assert torch.autograd.gradcheck(op, (x,))
    assert torch.autograd.gradgradcheck(op, (x,))


@pytest.mark.parametrize("name", list(RECORDED))
def test_inference_mode_and_profiler(old_route, name):
    op = RECORDED[name]
    x = make((3, 4), torch.float32, 6)
    with torch.inference_mode():
        new = op(x)
        assert new.is_inference()
    same_tensor(new, old_route(lambda: op(x)))
    with torch.profiler.profile() as prof:
        op(x)
    assert function.fast_path[0]  # (the profile restores it on exit)
    assert len(prof.key_averages()) > 0


def test_on_the_device(device):
    """The strict device (or a GPU) takes its own xp's kernels: the same values as the host's."""
    x = make((3, 4), torch.float32, 8)
    d = x.to(device)
    cases = [
        lambda t: torch.tril(t, 1), lambda t: t.triu(), lambda t: t.flip(0, 1),
        lambda t: t.roll(1, 0), lambda t: t.roll((1, 1), (1, 1)), lambda t: torch.nonzero(t),
        lambda t: t.topk(2).values, lambda t: t.topk(2).indices,
    ]  # fmt: skip
    for op in cases:
        host, dev = op(x), op(d)
        assert dev.device == d.device and dev.dtype == host.dtype and dev.shape == host.shape
        assert dev.stride() == host.stride()
        np.testing.assert_array_equal(dev.cpu().numpy(), host.numpy())


# --- one_hot's host route (NOTE [ The no-grad fast path ]) ---


def _full_path(fn):
    function.fast_path[0] = False
    try:
        return fn()
    finally:
        function.fast_path[0] = True


ONE_HOT_INPUTS = {
    "row": lambda: torch.tensor([0, 2, 1]),
    "0d": lambda: torch.tensor(3),
    "2d": lambda: torch.tensor([[0, 1], [3, 3], [2, 0]]),
    "t": lambda: torch.tensor([[0, 1], [3, 3], [2, 0]]).t(),
    "step": lambda: torch.arange(8)[::2] % 4,
    "empty": lambda: torch.zeros(0, 2, dtype=torch.int64),
    "one": lambda: torch.tensor([1]),
}


@pytest.mark.parametrize("name", list(ONE_HOT_INPUTS))
@pytest.mark.parametrize("num_classes", [-1, 4, 5, 9])
def test_one_hot_matches_the_full_path(name, num_classes):
    F = torch.nn.functional
    x = ONE_HOT_INPUTS[name]()
    if name == "empty" and num_classes == -1:
        with pytest.raises(RuntimeError, match="Can not infer"):
            F.one_hot(x)
        return
    for mode in (torch.enable_grad, torch.no_grad, torch.inference_mode):
        with mode():
            new = F.one_hot(x, num_classes)
            old = _full_path(lambda: F.one_hot(x, num_classes))  # noqa: B023
        same_tensor(new, old)
        same_array(new._data, old._data)
        assert new.is_inference() == old.is_inference()
        assert new._base is old._base is None
        if not new.is_inference():
            assert new._version == old._version == 0


@pytest.mark.parametrize(
    "values,n,message",
    [
        ([0, -1, 2], 3, "non-negative"), ([0, 3, 2], 3, "smaller than"),
        ([-1, 5], 3, "non-negative"), ([0, 1], 0, "smaller than"), ([0, 1], -2, "smaller than"),
        ([2**62], 4, "smaller than"), ([-(2**63)], 4, "non-negative"),
    ],
)  # fmt: skip
def test_one_hot_errors_unchanged(values, n, message):
    x = torch.tensor(values)
    with pytest.raises(RuntimeError, match=message):
        torch.nn.functional.one_hot(x, n)
    with pytest.raises(RuntimeError, match=message):
        _full_path(lambda: torch.nn.functional.one_hot(x, n))


def test_one_hot_profile_and_subclass_take_the_composite():
    x = torch.tensor([0, 2, 1])
    with torch.profiler.profile() as prof:
        torch.nn.functional.one_hot(x, 3)
    names = {e.key for e in prof.key_averages()}
    assert {"Unsqueeze", "ToCopy"} <= names, names

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(torch.nn.functional.one_hot(s, 3)) is Sub


# --- diag_embed's write view ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(4,), (1,), (0,), (2, 3), (2, 0), (2, 3, 4), ()])
def test_diag_embed_matches_the_old_route(old_route, shape, dtype):
    x = make(shape, dtype, 11, "step" if shape and shape[-1] > 1 else "c")
    calls = [lambda k=k: torch.diag_embed(x, k, -2, -1) for k in (-3, -1, 0, 2)]
    calls += [lambda: torch.diag_embed(x, 1, 0, -1), lambda: torch.diag_embed(x, -1, -1, 0)]
    if len(shape) == 1:
        calls += [lambda k=k: torch.diag(x, k) for k in (-2, 0, 1, 5)]
    if len(shape) >= 1:
        calls += [lambda: torch.diagflat(x, -1)]
    for fn in calls:
        got = both(old_route, fn)
        if got is None:
            assert shape == ()  # (a 0-d input has no dims -2, -1 to embed into)
            continue
        same_tensor(*got)
        same_array(got[0]._data, got[1]._data)


def test_diagonal_backward_matches_the_old_route(old_route):
    def run():
        x = make((3, 4, 5), torch.float64, 12).nan_to_num(0.5).requires_grad_()
        out = x.diagonal(1, 0, 2) * x.diagonal(-1, 1, 2)[:3].sum() + torch.diag(x[0, 0]).sum()
        g = torch.Generator().manual_seed(13)
        up = torch.randn(out.shape, generator=g, dtype=torch.float64)
        (gx,) = torch.autograd.grad(out, x, up, create_graph=True)
        (ggx,) = torch.autograd.grad((gx * gx).sum(), x)
        return out, gx, ggx

    for a, b in zip(*both(old_route, run), strict=True):
        same_tensor(a, b)


# --- scatter's number src, sort & co. without out= ---


def test_scatter_number_src_by_position_or_keyword():
    x = torch.zeros(3, 4)
    i = torch.tensor([[0], [2], [1]])
    assert x.scatter(1, i, 1.5).sum().item() == 4.5
    assert torch.scatter(x, 1, i, 2.0).sum().item() == 6.0
    calls = {
        "x.scatter(1, i, src=1.0)": lambda: x.scatter(1, i, src=1.0),
        "torch.scatter(x, 1, i, src=1.0)": lambda: torch.scatter(x, 1, i, src=1.0),
        "x.scatter(1, i, 1.0, value=2.0)": lambda: x.scatter(1, i, 1.0, value=2.0),
        "x.scatter_(1, i, src=1.0)": lambda: x.scatter_(1, i, src=1.0),
    }
    for call, fn in calls.items():
        with pytest.raises(TypeError, match="received an invalid combination") as info:
            fn()
        assert "float" in str(info.value), call
    assert x.sum().item() == 0.0


@pytest.mark.parametrize("op", ["sort", "argsort", "topk", "kthvalue", "msort"])
def test_sorting_ops_with_and_without_out(op):
    g = torch.Generator().manual_seed(21)
    x = torch.randn(3, 5, generator=g)
    call = {
        "sort": lambda **kw: torch.sort(x, 1, True, **kw),
        "argsort": lambda **kw: torch.argsort(x, stable=True, dim=0, **kw),
        "topk": lambda **kw: torch.topk(x, 2, **kw),
        "kthvalue": lambda **kw: torch.kthvalue(x, 2, 0, **kw),
        "msort": lambda **kw: torch.msort(x, **kw),
    }[op]
    plain = call()
    if isinstance(plain, tuple):
        out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
        got = call(out=out)
        assert got[0] is out[0] and got[1] is out[1]
        for a, b in zip(got, plain, strict=True):
            assert a.dtype == b.dtype and a.tolist() == b.tolist()
        with pytest.raises(RuntimeError):  # an out= of another dtype: the exact check still runs
            call(out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int64)))
    else:
        out = torch.empty(0, dtype=plain.dtype)
        assert call(out=out) is out and out.tolist() == plain.tolist()
    with pytest.raises(TypeError, match="unexpected keyword argument|invalid combination"):
        call(foo=1)


@pytest.mark.parametrize("dtype", DTYPES + (torch.float8_e4m3fn,), ids=str)
def test_unique_matches_the_old_kernel_call(dtype):
    x = make((3, 5), dtype if dtype is not torch.float8_e4m3fn else torch.float32, 14)
    if dtype is torch.float8_e4m3fn:
        x = x.to(dtype)
    for flags in [(True, False, False), (True, True, True), (False, True, False)]:
        got = torch.unique(x, *flags)
        got = got if isinstance(got, tuple) else (got,)
        a = x._data if x._data.dtype.kind != "V" or dtype is not torch.bfloat16 else None
        flat = (x._data.astype("float32") if a is None else a).reshape(-1)
        values, inverse, counts = np.unique(
            flat, return_inverse=True, return_counts=True, equal_nan=False
        )
        assert got[0].dtype == x.dtype
        assert got[0]._data.tobytes() == values.astype(x._data.dtype, copy=False).tobytes()
        if flags[1]:
            assert got[1].tolist() == inverse.reshape(x.shape).tolist()
        if flags[2]:
            assert got[2].tolist() == counts.tolist()


def test_unique_flag_errors_unchanged():
    x = torch.tensor([1, 2, 2])
    for kw in ({"sorted": 1}, {"return_inverse": None}, {"return_counts": "no"}):
        name = next(iter(kw))
        with pytest.raises(TypeError, match=f"argument '{name}' must be bool"):
            torch.unique(x, **kw)
    with pytest.raises(TypeError, match="unique_dim.*'return_counts' must be bool"):
        torch.unique(x, return_counts=1, dim=0)


@pytest.mark.parametrize("dtype", TOPK_DTYPES + (torch.bool,), ids=str)
@pytest.mark.parametrize("kind", ["ties", "distinct", "nan", "zeros"])
def test_stable_argsort_host_method_matches_the_kernel(dtype, kind):
    from minitorch._ops.reduction_more import stable_argsort

    if kind in ("nan", "zeros") and not dtype.is_floating_point:
        pytest.skip("integers have no NaN or signed zero")
    x = _tied(dtype, 3, (4, 6), kind)._data
    for dim in (0, 1):
        for descending in (False, True):
            new = sorting._stable_argsort(x, dim, descending, np)
            if descending:
                flip = (slice(None),) * dim + (slice(None, None, -1),)
                old = (x.shape[dim] - 1) - stable_argsort(np, x[flip], dim)[flip]
            else:
                old = stable_argsort(np, x, dim)
            same_array(new, old)
