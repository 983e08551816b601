"""Session 45's small-call routes of the pools and interpolate: the argument plans of max_pool2d
and avg_pool2d (NOTE [ Pooling argument plans ]), the kernels' tap plans (NOTE [ Pool plans ]),
the global average's direct mean and nearest interpolation's no-grad path each give what the
general route gives, bit for bit, with the same graph, gradients and errors."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._ops import conv as conv_ops
from minitorch._ops import pool as pool_ops
from minitorch.autograd import function
from minitorch.nn import _functional_interpolate as finterp
from minitorch.nn import _functional_pool as fpool

_SAVED = ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "dim", "keepdim")


def _clear_plans():
    fpool._ARG_PLANS.clear()
    pool_ops._PLANS.clear()
    finterp._NEAREST_INDICES.clear()


def _array(t):
    return t.detach().cpu().numpy()


def _record(out):
    """What a result shows: per tensor its dtype, shape, strides, device, flags, bytes, and its
    grad_fn's name and saved arguments."""
    outs = out if isinstance(out, tuple) else (out,)
    rec = []
    for t in outs:
        a = _array(t)
        fn = t.grad_fn
        saved = {}
        if fn is not None:
            for name in _SAVED:
                try:
                    saved[name] = getattr(fn, "_saved_" + name)
                except AttributeError:
                    pass
        rec.append(
            (
                t.dtype,
                tuple(t.shape),
                t.stride(),
                str(t.device),
                t.requires_grad,
                t._version,
                a.dtype,
                np.ascontiguousarray(a).tobytes(),
                None if fn is None else type(fn).__name__,
                repr(saved),
            )
        )
    return rec


def _run(fn, x, upstream_seed=None):
    """fn(x)'s record, and where x requires grad, x's gradient (first and second order) for a
    random upstream gradient."""
    out = fn(x)
    rec = _record(out)
    if upstream_seed is None:
        return rec, None
    first = out[0] if isinstance(out, tuple) else out
    g = torch.randn(first.shape, generator=torch.Generator().manual_seed(upstream_seed),
                    dtype=first.dtype).to(x.device)  # fmt: skip
    (gx,) = torch.autograd.grad(first, x, g, create_graph=True)
    second = None
    if gx.requires_grad:
        (ggx,) = torch.autograd.grad((gx * gx).sum(), x, allow_unused=True)
        second = None if ggx is None else _array(ggx).tobytes()
    return rec, (_record(gx), second)


def _input(shape, dtype, seed, device, layout=None, requires_grad=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    x[..., 0] = x[..., 1]  # ties
    if not dtype.is_floating_point:
        x = x * 10
    x = x.to(dtype)
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    elif layout == "strided":
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x.to(device).requires_grad_(requires_grad)


POOL_CALLS = {
    "avg2": (lambda x: F.avg_pool2d(x, 2), True),
    "avg_rect": (lambda x: F.avg_pool2d(x, (3, 2), (2, 1), 1), True),
    "avg_stride_none_tuple": (lambda x: F.avg_pool2d(x, (2, 3), None, (1, 0)), True),
    "avg_ceil_nocount": (lambda x: F.avg_pool2d(x, 3, 2, 1, True, False), "cpu"),  # divisors
    "avg_divisor": (lambda x: F.avg_pool2d(x, 2, divisor_override=3), True),
    "avg1d": (lambda x: F.avg_pool1d(x.flatten(-2), 3), True),
    "max2": (lambda x: F.max_pool2d(x, 2), True),
    "max_overlap_ceil": (lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), True),
    "max_dilation": (lambda x: F.max_pool2d(x, (2, 3), (1, 2), 0, (2, 1)), True),
    "max_indices": (lambda x: F.max_pool2d(x, 2, return_indices=True), True),
    "max_empty_stride": (lambda x: F.max_pool2d(x, 3, ()), True),
    "max1d": (lambda x: F.max_pool1d(x.flatten(-2), 4, 2), True),
    "module": (lambda x: torch.nn.MaxPool2d(2, 1)(x), True),
}


@pytest.mark.parametrize("name", sorted(POOL_CALLS))
@pytest.mark.parametrize(
    "shape,layout,dtype",
    [
        ((2, 3, 8, 9), None, torch.float64),
        ((2, 3, 8, 9), "channels_last", torch.float64),
        ((3, 7, 6), None, torch.float64),
        ((2, 3, 6, 6), "strided", torch.float32),
        ((1, 2, 7, 8), None, torch.float16),
    ],
)
def test_argument_plans_give_the_general_routes_results(device, name, shape, layout, dtype):
    fn, kept = POOL_CALLS[name]
    grad = dtype is torch.float64
    x = _input(shape, dtype, 1, device, layout, requires_grad=grad)
    _clear_plans()
    seed = 2 if grad else None
    general = _run(fn, x, seed)  # a fresh table: the general route (which keeps the plan)
    assert bool(fpool._ARG_PLANS) == (kept is True or kept == device)
    planned = _run(fn, x, seed)
    assert planned == general
    with torch.no_grad():  # no node either way
        _clear_plans()
        general = _run(fn, x)
        assert _run(fn, x) == general
    if not grad:
        return
    y = _input(shape, torch.int64, 3, device, layout)  # the same plan key but for the dtype
    if name.startswith("avg"):
        _clear_plans()
        general = _run(fn, y)
        assert _run(fn, y) == general


@pytest.mark.parametrize(
    "call",
    [
        lambda x: F.avg_pool2d(x, 2),
        lambda x: F.max_pool2d(x, 2),
        lambda x: F.max_pool2d(x, 2, 2, 1),
    ],
)
def test_errors_are_never_kept(call):
    """A call whose arguments or input a kept plan's key resembles (equal as Python values, or
    the same arguments with another shape or dtype) raises as with an empty table."""
    ok = _input((1, 2, 6, 6), torch.float32, 4, "cpu")
    bad_calls = [
        lambda: call(ok[..., :1, :1]),  # output too small (or a padded pool)
        lambda: call(ok[0, 0, 0]),  # rank
        lambda: call(torch.zeros(1, 2, 6, 6, dtype=torch.bool)),
        lambda: F.avg_pool2d(ok, True),
        lambda: F.avg_pool2d(ok, 2.0),
        lambda: F.max_pool2d(ok, (2, True)),
        lambda: F.max_pool2d(ok, 2, 2, 0, 1, 1),  # ceil_mode 1
        lambda: F.avg_pool2d(ok, 2, 2, 0, False, True, 0),  # divisor 0
        lambda: F.max_pool2d(ok, 2, 2, 3),  # pad > half the kernel
        lambda: F.max_pool2d(ok, [2, 2, 2]),
    ]

    def errors():
        seen = []
        for bad in bad_calls:
            try:
                seen.append(("ok", _record(bad())))  # (True in a tuple reads as 1, as torch)
            except Exception as e:
                seen.append((type(e), str(e)))
        return seen

    _clear_plans()
    fresh = errors()
    assert sum(1 for e in fresh if e[0] != "ok") >= 8
    call(ok)
    F.avg_pool2d(ok, 1)
    F.max_pool2d(ok, 1)
    F.max_pool2d(ok, (2, 1))
    assert fpool._ARG_PLANS
    assert errors() == fresh
    assert errors() == fresh


def test_pool_plans_are_taps_slices():
    for size, kernel, stride, pads, dilation in [
        ((8, 9), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1)),
        ((7, 6), (3, 2), (2, 1), ((1, 2), (0, 1)), (1, 2)),
        ((4, 5, 6), (2, 3, 2), (1, 2, 1), ((1, 1), (0, 0), (1, 1)), (1, 1, 2)),
        ((16,), (16,), (16,), ((0, 0),), (1,)),
    ]:
        pool_ops._PLANS.clear()
        out, index, padded, tile = pool_ops._plan(size, kernel, stride, pads, dilation)
        want = tuple(
            conv_ops.conv_out_size(s, k, st, p, d)
            for s, k, st, p, d in zip(size, kernel, stride, pads, dilation, strict=True)
        )
        assert out == want
        assert index == tuple(
            (Ellipsis, *sl) for _, sl in conv_ops.taps(kernel, stride, dilation, want)
        )
        assert padded == any(lo or hi for lo, hi in pads)
        assert tile == (kernel == stride and set(dilation) == {1} and not padded)
        assert (
            pool_ops._plan(size, kernel, stride, pads, dilation)
            is pool_ops._PLANS[(size, kernel, stride, pads, dilation)]
        )
    pool_ops._PLANS.clear()
    for i in range(pool_ops._PLANS_MAX + 3):  # the table starts afresh when full
        pool_ops._plan((i + 2,), (2,), (1,), ((0, 0),), (1,))
    assert 0 < len(pool_ops._PLANS) <= pool_ops._PLANS_MAX


def _full_path(fn):
    function.fast_path[0] = False
    try:
        return fn()
    finally:
        function.fast_path[0] = True


NEAREST_CALLS = [
    ((2, 3, 5, 7), dict(scale_factor=2)),
    ((2, 3, 5, 7), dict(scale_factor=1.7)),
    ((2, 3, 5, 7), dict(scale_factor=(1.0, 0.6))),
    ((2, 3, 5, 7), dict(size=(4, 9))),
    ((2, 3, 5, 7), dict(size=5, mode="nearest-exact")),
    ((0, 3, 5, 7), dict(scale_factor=2)),
    ((2, 3, 5), dict(scale_factor=2)),
    ((2, 3, 5), dict(scale_factor=1.1)),
    ((1, 2, 3, 4, 5), dict(scale_factor=(2, 1.5, 0.7), mode="nearest-exact")),
    ((1, 2, 3, 4, 5), dict(size=(3, 8, 5))),
]


@pytest.mark.parametrize("shape,kwargs", NEAREST_CALLS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.uint8])
def test_nearest_no_grad_is_the_full_path(shape, kwargs, dtype):
    x = _input(shape, dtype, 5, "cpu")
    with torch.no_grad():
        for _ in range(2):  # the indices computed, then kept
            fast = F.interpolate(x, **kwargs)
            assert fast.grad_fn is None
            assert _record(fast) == _record(_full_path(lambda: F.interpolate(x, **kwargs)))
    rec = _record(F.interpolate(x, **kwargs))  # nothing requires grad: no node either way
    assert rec == _record(_full_path(lambda: F.interpolate(x, **kwargs)))


def test_nearest_paths_that_record_or_are_observed(device):
    x = _input((2, 3, 4, 5), torch.float64, 6, device, requires_grad=True)
    rec, grads = _run(lambda t: F.interpolate(t, scale_factor=2), x, 7)
    assert rec[0][8] == "UpsampleNearest2DBackward0"
    assert _run(lambda t: F.interpolate(t, scale_factor=2), x, 7) == (rec, grads)
    cl = _input((2, 3, 4, 5), torch.float32, 6, "cpu", "channels_last")
    with torch.no_grad():  # a channels-last input: the general route, its layout kept
        out = F.interpolate(cl, scale_factor=2)
        assert out.is_contiguous(memory_format=torch.channels_last)
        assert _record(out) == _record(_full_path(lambda: F.interpolate(cl, scale_factor=2)))
    y = _input((2, 3, 4, 5), torch.float32, 6, "cpu")
    with torch.inference_mode():
        out = F.interpolate(y, scale_factor=2)
    assert out.is_inference()
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.interpolate(y, scale_factor=2)
    assert any("IndexSelect" in e.key for e in prof.key_averages())
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.interpolate(y.long(), scale_factor=2)
    with torch.no_grad():
        out = F.interpolate(y, scale_factor=2)
        out.add_(1)  # the kept indices are not the result's memory
        assert _record(F.interpolate(y, scale_factor=2)) == _record(
            _full_path(lambda: F.interpolate(y, scale_factor=2))
        )


def _old_global(x, n):
    """The global average as adaptive_avg_pool2d/3d took it before session 45."""
    out = x.mean(tuple(range(-1, -n - 1, -1)), keepdim=True)
    out = function.name_node(out, "MeanBackward1", (x,))
    return fpool._mean_layout(out, x)


@pytest.mark.parametrize(
    "shape,n,size,layout,dtype",
    [
        ((2, 3, 8, 8), 2, 1, None, torch.float64),
        ((2, 3, 8, 8), 2, (1, 1), "channels_last", torch.float64),
        ((3, 8, 8), 2, (1, None), None, torch.float64),  # no shortcut: (1, 8)
        ((3, 1, 8), 2, (None, 1), None, torch.float64),
        ((2, 3, 4, 4, 4), 3, 1, None, torch.float64),
        ((1, 1, 3, 4, 4, 4), 3, 1, None, torch.float64),
        ((2, 3, 5, 5), 2, 1, None, torch.float16),
        ((2, 3, 5, 5), 2, 1, None, torch.bfloat16),
        ((2, 0, 5, 5), 2, 1, None, torch.float32),
    ],
)
def test_global_average_is_the_mean_it_was(device, shape, n, size, layout, dtype):
    grad = dtype is torch.float64
    x = _input(shape, dtype, 8, device, layout, requires_grad=grad)
    pool = F.adaptive_avg_pool2d if n == 2 else F.adaptive_avg_pool3d
    seed = 9 if grad else None
    got = _run(lambda t: pool(t, size), x, seed)
    if fpool._global_average(x, n, size):
        assert got == _run(lambda t: _old_global(t, n), x, seed)
    with torch.no_grad():
        fast = _record(pool(x, size))
        assert fast == _record(_full_path(lambda: pool(x, size)))
        if fpool._global_average(x, n, size):
            assert fast == _record(_old_global(x, n))


def test_global_average_errors_are_means():
    for x in (torch.randn(5), torch.tensor(2.0), torch.ones(2, 3, 4, 4, dtype=torch.int64)):
        with pytest.raises(Exception) as old:
            _old_global(x, 2)
        with pytest.raises(type(old.value)) as new:
            F.adaptive_avg_pool2d(x, 1)
        assert str(new.value) == str(old.value)


def _outcome(run):
    """run()'s record under no_grad, or its error."""
    try:
        with torch.no_grad():
            return _record(run())
    except Exception as e:  # (an integer max_pool1d, -1 into uint8, ...)
        return (type(e), str(e))


@pytest.mark.parametrize("name", sorted(POOL_CALLS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64])
def test_pool_no_grad_is_the_full_path(name, dtype):
    fn = POOL_CALLS[name][0]
    for layout in (None, "channels_last"):
        x = _input((2, 3, 7, 8), dtype, 10, "cpu", layout)
        x[0, 0, 1, 1] = float("nan") if dtype.is_floating_point else 5
        fast = _outcome(lambda x=x: fn(x))
        assert fast == _outcome(lambda x=x: _full_path(lambda: fn(x)))


def test_pool_fast_paths_are_observed():
    x = _input((2, 3, 6, 6), torch.float32, 11, "cpu")
    with torch.inference_mode():
        outs = [F.avg_pool2d(x, 2), F.max_pool2d(x, 2), F.adaptive_avg_pool2d(x, 1)]
        outs.append(F.pad(x, (1, 1, 1, 1)))
    assert all(o.is_inference() for o in outs)
    with torch.no_grad(), torch.profiler.profile() as prof:
        F.avg_pool2d(x, 2)
        F.max_pool2d(x, 2)
        F.adaptive_avg_pool2d(x, 1)
        F.pad(x, (1, 1, 1, 1))
    names = [e.key for e in prof.key_averages()]
    for op in ("AvgPool2D", "MaxPool2D", "MeanDim", "ConstantPadNd"):
        assert op in names, (op, names)
    assert function.fast_path[0]
    x.requires_grad_()
    with torch.enable_grad():  # a node to record: the full path
        assert F.avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"
        assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
        assert F.pad(x, (1, 1)).grad_fn.name() == "ConstantPadNdBackward0"


@pytest.mark.parametrize(
    "pad,value",
    [((1, 1, 1, 1), None), ((0, 2), 3.5), ((1, 0, 0, 0, 2, 1), -1), ((1, -1), 0.0), ((0, 0), 1)],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.uint8])
@pytest.mark.parametrize("layout", [None, "channels_last"])
def test_constant_pad_no_grad_is_the_full_path(pad, value, dtype, layout):
    x = _input((2, 3, 4, 5), dtype, 12, "cpu", layout)
    fast = _outcome(lambda: F.pad(x, pad, value=value))
    assert fast == _outcome(lambda: _full_path(lambda: F.pad(x, pad, value=value)))
