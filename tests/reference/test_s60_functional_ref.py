"""Session 60: the cases of tests/test_s60_functional.py, and their neighbours, run under torch
and minitorch alike: results (values, dtypes, shapes), gradients, and exceptions (type and
message)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch_ref = pytest.importorskip("torch")


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return ("raises", type(e).__name__, str(e))
    if isinstance(r, (tuple, list)):
        return tuple(_value(x) for x in r)
    return _value(r)


def _value(r):
    if r is None or isinstance(r, (bool, int, float, str)):
        return r
    r = r.detach()
    return (str(r.dtype).split(".")[-1], tuple(r.shape), np.asarray(r.numpy()))


def _same(fn, rtol=1e-6, atol=1e-9):
    got, want = _outcome(mt, fn), _outcome(torch_ref, fn)
    if got and got[0] == "raises" or want and want[0] == "raises":
        assert got == want
        return
    if not isinstance(want, tuple) or isinstance(want[0], str):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if not isinstance(w, tuple):
            assert g == w
            continue
        assert g[:2] == w[:2]
        np.testing.assert_allclose(g[2], w[2], rtol=rtol, atol=atol, equal_nan=True)


def _with_grads(call, *arrays, seed=0):
    """fn(lib): call(lib, *tensors) on float64 leaves, then backward of a random upstream
    gradient; the result and each leaf's gradient."""

    def fn(lib):
        leaves = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        out = call(lib, *leaves)
        g = np.random.default_rng(seed).standard_normal(tuple(out.shape))
        out.backward(lib.tensor(g))
        return (out, *[x.grad for x in leaves])

    return fn


# --- linear: which bias shapes torch hands to addmm ---

LINEAR_SHAPES = [
    ((4, 1, 3), (2, 3), bs)
    for bs in [(), (1,), (2,), (4,), (1, 1), (1, 2), (4, 1), (4, 2), (1, 1, 2), (4, 1, 1)]
] + [
    ((3,), (2, 3), bs) for bs in [(), (1,), (1, 2), (4, 1), (1, 1, 2)]
] + [
    ((5, 4, 3), (3,), bs) for bs in [(), (1,), (1, 1), (1, 2), (4, 1), (4, 2), (1, 1, 1)]
]


@pytest.mark.parametrize(("xs", "ws", "bs"), LINEAR_SHAPES)
@pytest.mark.parametrize("bias_dtype", ["float32", "float64"])
def test_linear_bias_shapes(xs, ws, bs, bias_dtype):
    def fn(lib):
        x = lib.arange(float(np.prod(xs))).reshape(xs)
        w = lib.arange(float(np.prod(ws))).reshape(ws) / 7
        b = lib.ones(bs, dtype=getattr(lib, bias_dtype))
        return lib.nn.functional.linear(x, w, b)

    _same(fn)


@pytest.mark.parametrize(("xs", "bs"), [((4, 1, 3), (4, 1)), ((3,), (1, 2)), ((5, 4, 3), (1, 2))])
def test_linear_row_bias_grads(xs, bs):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal(xs), rng.standard_normal((2, 3)), rng.standard_normal(bs)]
    _same(_with_grads(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), *arrays))


# --- bilinear: 0 in-features ---


@pytest.mark.parametrize("extra", [(), (5,)])
@pytest.mark.parametrize("sizes", [(b, i1, i2, o) for b in (0, 2) for i1 in (0, 3)
                                   for i2 in (0, 2) for o in (0, 4)])
def test_bilinear_empty_sizes(extra, sizes):
    b, i1, i2, o = sizes
    _same(lambda lib: lib.nn.functional.bilinear(
        lib.ones(*extra, b, i1), lib.ones(*extra, b, i2), lib.ones(o, i1, i2)))


# --- adaptive pools: an empty gradient past the batch dim ---

ADAPTIVE_EMPTY = [
    ("adaptive_avg_pool2d", (1, 2, 4, 3), (0, 3)),
    ("adaptive_max_pool2d", (1, 2, 4, 3), (0, 3)),
    ("adaptive_avg_pool2d", (2, 4, 2), (0, 0)),
    ("adaptive_max_pool2d", (2, 4, 2), (1, 0)),
    ("adaptive_avg_pool2d", (0, 2, 4, 2), (0, 1)),
    ("adaptive_max_pool2d", (0, 2, 4, 2), (1, 1)),
    ("adaptive_avg_pool2d", (2, 0, 4, 2), (1, 1)),
    ("adaptive_avg_pool2d", (2, 0, 4, 2), (0, 1)),
    ("adaptive_avg_pool2d", (1, 0, 3, 3), 2),
    ("adaptive_avg_pool2d", (1, 0, 4, 4), 2),
    ("adaptive_avg_pool2d", (0, 4, 4), 2),
    ("adaptive_avg_pool1d", (1, 2, 4), 0),
    ("adaptive_max_pool1d", (1, 2, 4), 0),
    ("adaptive_avg_pool1d", (2, 0, 4), 0),
    ("adaptive_avg_pool1d", (1, 0, 3), 2),
    ("adaptive_max_pool1d", (0, 2, 4), 0),
    ("adaptive_avg_pool3d", (1, 2, 3, 3, 3), (0, 1, 1)),
    ("adaptive_max_pool3d", (2, 3, 3, 3), (1, 0, 1)),
    ("adaptive_avg_pool3d", (0, 3, 4, 4, 4), 2),
]


@pytest.mark.parametrize(("name", "shape", "out"), ADAPTIVE_EMPTY)
def test_adaptive_pool_empty_backward(name, shape, out):
    def fn(lib):
        x = lib.ones(shape, requires_grad=True)
        y = getattr(lib.nn.functional, name)(x, out)
        y.sum().backward()
        return y, x.grad

    _same(fn)


@pytest.mark.parametrize(
    ("shape", "sf"), [((1, 1, 1, 5), (0.5, 3.0)), ((1, 1, 5), 0.1), ((1, 0, 3, 3), 0.7)]
)
def test_interpolate_area_empty_backward(shape, sf):
    def fn(lib):
        x = lib.ones(shape, requires_grad=True)
        y = lib.nn.functional.interpolate(x, scale_factor=sf, mode="area")
        y.sum().backward()
        return y, x.grad

    _same(fn)


# --- huber_loss of two dtypes ---


@pytest.mark.parametrize(
    ("x_dtype", "t_dtype", "x_grad", "t_grad"),
    [
        ("float32", "float64", False, True),
        ("float64", "float32", True, False),
        ("float16", "float32", True, False),
        ("float32", "float16", True, True),
        ("float32", "int64", True, False),
        ("float32", "bfloat16", True, False),
        ("float32", "float64", False, False),
        ("float64", "float64", True, True),
    ],
)
@pytest.mark.parametrize(
    "kw", [{}, {"reduction": "none"}, {"reduction": "sum", "delta": 0.5}, {"weight": True}]
)
def test_huber_loss_dtypes(x_dtype, t_dtype, x_grad, t_grad, kw):
    def fn(lib):
        x = lib.tensor([1.0, -3.0], dtype=getattr(lib, x_dtype), requires_grad=x_grad)
        t = lib.zeros(2, dtype=getattr(lib, t_dtype), requires_grad=t_grad)
        k = {**kw, "weight": lib.ones(2)} if "weight" in kw else kw
        out = lib.nn.functional.huber_loss(x, t, **k)
        if out.requires_grad:
            out.sum().backward()
        return out.float(), x.grad, t.grad

    _same(fn)


# --- convolution: the dilated kernel's dtypes ---


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("bias", [None, "float32", "same"])
@pytest.mark.parametrize(
    "kw", [{"dilation": 2}, {"dilation": 2, "padding": "same"}, {"dilation": (1, 2)},
           {"stride": 2}, {"dilation": 2, "groups": 2}]
)
def test_conv2d_integer_dilated(dtype, bias, kw):
    def fn(lib):
        dt = getattr(lib, dtype)
        x = lib.ones(2, 2, 5, 5, dtype=dt)
        w = lib.ones(2, 2 // kw.get("groups", 1), 3, 3, dtype=dt)
        b = None if bias is None else lib.ones(2, dtype=dt if bias == "same" else lib.float32)
        return lib.nn.functional.conv2d(x, w, b, **kw)

    _same(fn)


# --- instance_norm: dtypes of the running statistics, weight and bias ---

_NORM_DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("x_dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("stats", [None] + [(m, v) for m in _NORM_DTYPES for v in _NORM_DTYPES])
@pytest.mark.parametrize("w_dtype", [None, "float32", "float64"])
@pytest.mark.parametrize("b_dtype", [None, "float64"])
@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("n", [2, 0])
def test_instance_norm_dtypes(x_dtype, stats, w_dtype, b_dtype, use_input_stats, n):
    def fn(lib):
        x = lib.tensor(np.arange(n * 6.0).reshape(n, 2, 3) % 4, dtype=getattr(lib, x_dtype))
        rm = rv = None
        if stats is not None:
            rm = lib.zeros(2, dtype=getattr(lib, stats[0]))
            rv = lib.ones(2, dtype=getattr(lib, stats[1]))
        w = None if w_dtype is None else lib.ones(2, dtype=getattr(lib, w_dtype))
        b = None if b_dtype is None else lib.zeros(2, dtype=getattr(lib, b_dtype))
        out = lib.nn.functional.instance_norm(x, rm, rv, w, b, use_input_stats, momentum=0.5)
        return out.float(), *(t.float() for t in (rm, rv) if t is not None)

    _same(fn, rtol=1e-3, atol=1e-3)


# --- interpolate(mode="area"): dtypes and sizes ---


@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8", "float32"])
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("have", [1, 2, 0])
@pytest.mark.parametrize(
    "kw", [{"size": 1}, {"size": 2}, {"scale_factor": 0.7},
           {"scale_factor": 0.5, "recompute_scale_factor": True}]
)
@pytest.mark.parametrize("lead", [(1, 1), (0, 1)])
def test_interpolate_area_dtypes(dtype, n, have, kw, lead):
    def fn(lib):
        x = lib.ones(lead + (have,) * n, dtype=getattr(lib, dtype))
        return lib.nn.functional.interpolate(x, mode="area", **kw).float()

    _same(fn)


# --- pad of bool: size checks before the dtype ---

PAD_CASES = [
    ((1, 2, 3), (3, 1)), ((1, 2, 3), (1, 1)), ((1, 2, 3), (-4, 0)), ((1, 2, 3), (-1, -2)),
    ((2, 2, 3), (1, 2, 3, 2)), ((2, 2, 3), (1, 2, 1, 1)), ((1, 2, 2, 3), (0, 0, 2, 0)),
    ((1, 1, 2, 2, 2), (1, 1, 1, 1, 2, 1)), ((1, 1, 2, 2, 2), (1, 1, 1, 1, 1, 1)),
    ((1, 2, 3), (0, 3)),
]


@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(("shape", "pads"), PAD_CASES)
def test_pad_modes_dtypes(dtype, mode, shape, pads):
    _same(lambda lib: lib.nn.functional.pad(lib.ones(shape, dtype=getattr(lib, dtype)), pads,
                                            mode=mode).float())
