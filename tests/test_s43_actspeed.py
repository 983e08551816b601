"""Session 43 (actspeed): activation kernels with fewer passes and temporaries give the old
formulas' results bit for bit (values, dtypes, layouts) on special values, every float dtype and
several layouts; the old formulas are kept here. Their log1p and expm1 are the NumPy backend's
since session 56 (NOTE [ Float32 log1p and expm1 ] in minitorch/_backend/numpy_backend.py),
which the kernels call too."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch._backend import cpu as _cpu_device
from minitorch._backend import numpy_backend
from minitorch._ops.pointwise import SigmoidBackward, TanhBackward

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
TANH_K = math.sqrt(2.0 / math.pi)
TANH_C = 0.044715
SELECT = _cpu_device.backend.select

HALF = {"float16": mt.float16, "bfloat16": mt.bfloat16}


def _values(dtype: str, n: int = 6000) -> np.ndarray:
    """n float64 values that hit every branch, rounded to `dtype` later: zeros of both signs,
    NaN, infinities, subnormals, the kinks of the piecewise ops, overflow for exp."""
    rng = np.random.default_rng(43)
    v = rng.standard_normal(n) * 4
    tiny = np.finfo(np.float32 if dtype != "float64" else np.float64).smallest_subnormal
    special = [0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, tiny, -tiny, 3 * tiny,
               -3.0, 3.0, -3.0000001, 2.9999999, 20.0, 20.5, -20.0, 89.0, -89.0, 100.0, -100.0,
               710.0, -710.0, 1e-30, -1e-30, 1.0, -1.0, 0.5, -0.5]  # fmt: skip
    v[: len(special)] = special
    v[len(special) : 2 * len(special)] = rng.uniform(-1e-3, 1e-3, len(special))
    return v


def _tensors(dtype: str):
    """(name, input tensor) in several layouts: contiguous, transposed, sliced, expanded."""
    v = _values(dtype)
    base = mt.tensor(v.reshape(60, 100), dtype=mt.float64)
    base = base.to(HALF[dtype]) if dtype in HALF else base.to(getattr(mt, dtype))
    yield "contiguous", base
    yield "transposed", base.t()
    yield "sliced", base[::2, 1::3]
    yield "expanded", base[:1].expand(40, 100)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


def _same(new, old, what: str, layout: bool = True) -> None:
    new = new.detach().numpy() if isinstance(new, mt.Tensor) else np.asarray(new)
    assert new.dtype == old.dtype, what
    assert new.shape == old.shape, what
    if layout:
        assert new.strides == old.strides, f"{what}: strides {new.strides} != {old.strides}"
    np.testing.assert_array_equal(_bits(new), _bits(old), err_msg=what)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype("float32") if x.dtype.itemsize < 4 else x


DTYPES = ["float32", "float64", "float16", "bfloat16"]


# --- the old kernels (before session 43), on arrays ---


def old_hardsigmoid(x):
    y = _wide(x)
    return np.asarray((np.clip(y + 3, 0, 6) / 6).astype(x.dtype, copy=False))


def old_elu(x, alpha, scale, input_scale):
    y = _wide(x)
    neg = np.asarray(y * input_scale)
    numpy_backend.expm1(neg, out=neg)
    np.multiply(neg, alpha * scale, out=neg)
    out = SELECT(y >= 0, np.asarray(y * scale), neg)
    return np.asarray(out.astype(x.dtype, copy=False))


def old_elu_backward(a, grad, alpha, scale, input_scale):
    neg = np.asarray(a * input_scale)
    np.exp(neg, out=neg)
    np.multiply(grad, neg, out=neg)
    np.multiply(neg, scale * alpha * input_scale, out=neg)
    return SELECT(a <= 0, neg, grad * scale)


def old_softplus(x, beta, threshold):
    y = _wide(x)
    z = np.asarray(y * beta)
    out = np.asarray(np.exp(z))
    numpy_backend.log1p(out, out=out)
    np.divide(out, beta, out=out)
    out = SELECT(z > threshold, y, out)
    return np.asarray(out.astype(x.dtype, copy=False))


def old_softplus_backward(a, grad, beta, threshold):
    z = a * beta
    e = np.asarray(np.exp(z))
    s = np.asarray(np.multiply(grad, e))
    e += 1
    np.divide(s, e, out=s)
    return SELECT(z > threshold, grad, s)


def old_prelu(x, w):
    return np.asarray(SELECT(x > 0, x, x * w))


def old_gelu_tanh(x):
    y = _wide(x)
    out = 0.5 * y * (1 + np.tanh(TANH_K * (y + TANH_C * y * y * y)))
    return np.asarray(out.astype(x.dtype, copy=False))


def old_gelu_tanh_backward(a, grad):
    # the Tensor formula, which the data path ran before (float32 and float64)
    t = np.tanh((a + a * a * a * TANH_C) * TANH_K)
    d_inner = (a * a * (3 * TANH_C) + 1) * TANH_K
    return grad * ((t + 1) * 0.5 + a * 0.5 * (1 - t * t) * d_inner)


ELUS = [
    ("elu", lambda x: F.elu(x), (1.0, 1, 1)),
    ("elu_alpha", lambda x: F.elu(x, 0.5), (0.5, 1, 1)),
    ("selu", lambda x: F.selu(x), (SELU_ALPHA, SELU_SCALE, 1)),
    ("celu", lambda x: F.celu(x), (1.0, 1, 1.0)),
    ("celu_alpha", lambda x: F.celu(x, 1.5), (1.5, 1, 1.0 / 1.5)),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_kernels_match_the_old_formulas(dtype):
    w_scalar = 0.25
    for layout, x in _tensors(dtype):
        a = x.numpy() if dtype not in HALF else x._data
        with mt.no_grad():
            _same(F.hardsigmoid(x)._data, old_hardsigmoid(a), f"hardsigmoid {dtype} {layout}")
            for name, fn, coefs in ELUS:
                _same(fn(x)._data, old_elu(a, *coefs), f"{name} {dtype} {layout}")
            for beta, th in ((1, 20), (1.0, 5.0), (2.0, 20), (0.5, 3)):
                _same(
                    F.softplus(x, beta, th)._data,
                    old_softplus(a, beta, th),
                    f"softplus({beta}, {th}) {dtype} {layout}",
                )
            _same(F.gelu(x, approximate="tanh")._data, old_gelu_tanh(a), f"gelu tanh {dtype}")
            if dtype not in HALF:
                w = mt.tensor([w_scalar], dtype=x.dtype)
                _same(F.prelu(x, w)._data, old_prelu(a, w._data), f"prelu {dtype} {layout}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_prelu_weights_inside_and_outside_the_maximum_range(dtype):
    # per channel: (0, 1] takes the maximum, anything else (0, negative, above 1, NaN, inf) the
    # select; a subnormal weight and 1 itself are inside
    tiny = float(np.finfo(dtype).smallest_subnormal)
    cases = [[0.25] * 5, [1.0, 0.5, tiny, 1e-3, 0.999], [0.25, 0.0, 0.5, 0.5, 0.5],
             [0.25, -0.1, 0.5, 0.5, 0.5], [0.25, 2.0, 0.5, 0.5, 0.5],
             [0.25, math.nan, 0.5, 0.5, 0.5], [0.25, math.inf, 0.5, 0.5, 0.5]]  # fmt: skip
    v = _values(dtype, 5 * 4 * 120).reshape(4, 5, 120)
    x = mt.tensor(v, dtype=getattr(mt, dtype))
    for ws in cases:
        w = mt.tensor(ws, dtype=x.dtype)
        for layout, xx in (("contiguous", x), ("transposed", x.transpose(0, 2).transpose(0, 2))):
            out = F.prelu(xx, w)
            old = old_prelu(xx._data, w._data.reshape(1, 5, 1))
            _same(out._data, old, f"prelu {ws} {layout}")
    # the gradients go through the unchanged backward: a NaN-free spot check against the select
    xr = mt.tensor(np.random.default_rng(1).standard_normal((4, 5, 120)), requires_grad=True)
    xr = xr.to(getattr(mt, dtype)).detach().requires_grad_()
    w = mt.tensor([0.25, 0.5, 1.0, 0.1, 0.75], dtype=xr.dtype, requires_grad=True)
    F.prelu(xr, w).sum().backward()
    a = xr._data
    want = np.where(a > 0, 1.0, w._data.reshape(1, 5, 1)).astype(dtype)
    np.testing.assert_array_equal(xr.grad.numpy(), want)


def _data_grad(fn, x, g):
    """x's gradient through the engine's data-level path (a plain backward)."""
    xr = x.detach().requires_grad_()
    fn(xr).backward(g)
    return xr.grad


def _tensor_grad(fn, x, g):
    """x's gradient through the Tensor formula (create_graph takes no data-level backward)."""
    xr = x.detach().requires_grad_()
    (gx,) = mt.autograd.grad(fn(xr), xr, g, create_graph=True)
    return gx.detach()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward_kernels_match_the_old_formulas(dtype):
    rng = np.random.default_rng(7)
    for layout, x in _tensors(dtype):
        a = x._data
        g = mt.tensor(rng.standard_normal(a.shape), dtype=x.dtype)
        if a.strides != g._data.strides:
            g = mt.tensor(np.asarray(g._data, order="F") if a.flags.f_contiguous else g._data)
        gd = g._data
        for name, fn, (alpha, scale, input_scale) in ELUS:
            if name.startswith("celu"):
                input_scale = 1.0 / float(np.float32(alpha))  # as torch's derivative formula
            _same(
                _data_grad(fn, x, g).numpy(),
                old_elu_backward(a, gd, alpha, scale, input_scale),
                f"{name} backward {dtype} {layout}",
                layout=False,
            )
        for beta, th in ((1, 20), (1.0, 5.0), (2.0, 20)):
            _same(
                _data_grad(lambda t, b=beta, h=th: F.softplus(t, b, h), x, g).numpy(),
                old_softplus_backward(a, gd, beta, th),
                f"softplus({beta}, {th}) backward {dtype} {layout}",
                layout=False,
            )

        def gelu_tanh(t):
            return F.gelu(t, approximate="tanh")

        new = _data_grad(gelu_tanh, x, g)
        _same(new.numpy(), old_gelu_tanh_backward(a, gd), f"gelu tanh backward {dtype} {layout}")
        _same(new.numpy(), _tensor_grad(gelu_tanh, x, g).numpy(), f"gelu tanh paths {layout}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_backward_unchanged(dtype):
    # half gradients keep the Tensor formulas (widened): the data path declines them
    x = next(_tensors(dtype))[1]
    g = mt.ones(x.shape, dtype=x.dtype) * 0.75
    for fn in (lambda t: F.gelu(t, approximate="tanh"), F.elu, F.softplus, F.selu):
        _same(_data_grad(fn, x, g).numpy(), _tensor_grad(fn, x, g).numpy(), f"{fn} {dtype}")


def test_number_types_keep_their_paths():
    # complex, bool and NumPy coefficients are not "the float 1": their products still run
    x = mt.tensor([-2.0, -0.0, 0.0, 1.5, math.nan], requires_grad=True)
    with pytest.raises(TypeError):  # the complex product's dtype cannot be cast back
        F.elu(x, alpha=1 + 0j)
    y = F.softplus(x, beta=True)
    np.testing.assert_array_equal(y.detach().numpy(), F.softplus(x, beta=1).detach().numpy())
    y.sum().backward()
    assert x.grad is not None


def test_zero_dim_and_empty():
    for x in (mt.tensor(-1.25), mt.tensor(2.5), mt.zeros(0, 3)):
        a = x._data
        with mt.no_grad():
            _same(F.hardsigmoid(x)._data, old_hardsigmoid(a), "hardsigmoid 0-d/empty")
            _same(F.elu(x)._data, old_elu(a, 1.0, 1, 1), "elu 0-d/empty")
            _same(F.softplus(x)._data, old_softplus(a, 1, 20), "softplus 0-d/empty")
            _same(F.gelu(x, approximate="tanh")._data, old_gelu_tanh(a), "gelu 0-d/empty")
        xr = x.detach().requires_grad_()
        F.gelu(xr, approximate="tanh").sum().backward()
        _same(xr.grad._data, old_gelu_tanh_backward(a, np.ones_like(a)), "gelu bw 0-d/empty")


def test_gelu_tanh_second_order():
    x = mt.tensor(np.linspace(-4, 4, 33), requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: F.gelu(t, approximate="tanh"), (x,))
    assert mt.autograd.gradgradcheck(lambda t: F.gelu(t, approximate="tanh"), (x,))


@pytest.fixture(autouse=True)
def _quiet():
    # the old formulas overflow on purpose (inf, NaN inputs): NumPy's warnings are noise here
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def old_leaky_relu_backward(a, grad, slope):
    return SELECT(a > 0, grad, grad * slope)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_leaky_relu_backward_matches_the_old_select(dtype):
    rng = np.random.default_rng(11)
    for layout, x in _tensors(dtype):
        a = x._data
        gd = rng.standard_normal(a.shape).astype(dtype)
        gd[0, :8] = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-45, -1e-45, 3.0]
        if a.flags.f_contiguous and not a.flags.c_contiguous:
            gd = np.asfortranarray(gd)
        g = mt.from_numpy(gd)
        for slope in (0.01, 0.2, 0.5, 1.0, 1, 0.0, 0, 1e-40, 0.3333333333, 1.5, 3.0, -0.1):
            new = _data_grad(lambda t, s=slope: F.leaky_relu(t, s), x, g)
            _same(
                new.numpy(),
                old_leaky_relu_backward(a, gd, slope),
                f"leaky_relu({slope}) backward {dtype} {layout}",
            )
    # every float32 slope's factor in [0, 1] passes its check or is refused (never wrong):
    # a sweep of slopes through the rounding of 1 - slope
    from minitorch._ops.activation import _slope_factor

    for slope in np.linspace(0, 1, 2001).tolist() + [2.0**-k for k in range(1, 60)]:
        for f in (np.float32, np.float64):
            factor = _slope_factor(f, slope)
            assert factor is not None, (slope, f)
            assert f(1) * factor + f(slope) == 1 and f(0) * factor + f(slope) == f(slope)
    assert _slope_factor(np.float32, 1.5) is None and _slope_factor(np.float32, -0.5) is None
    assert _slope_factor(np.float32, True) is None


@pytest.mark.parametrize("dtype", DTYPES)
def test_softplus_without_values_above_the_threshold(dtype):
    # the select is skipped where no element passes the threshold: same bits and layout, and
    # one element above it (first, last) takes the select again
    v = _values(dtype)
    v = np.where(np.abs(v) > 15, -v, v)  # only -inf, NaN and values up to 15 remain
    v[v > 15] = -1.0
    rng = np.random.default_rng(5)
    for where in (None, 0, -1):
        w = v.copy()
        if where is not None:
            w[where] = 25.0
        base = mt.tensor(w.reshape(60, 100), dtype=mt.float64)
        base = base.to(HALF[dtype]) if dtype in HALF else base.to(getattr(mt, dtype))
        for layout, x in (("contiguous", base), ("transposed", base.t()), ("sliced", base[::2])):
            a = x._data if dtype in HALF else x.numpy()
            for beta, th in ((1, 20), (2.0, 40.0)):
                what = f"softplus({beta}, {th}) {dtype} {layout} {where}"
                with mt.no_grad():
                    _same(F.softplus(x, beta, th)._data, old_softplus(a, beta, th), what)
                if dtype in HALF:
                    continue
                gd = rng.standard_normal(a.shape).astype(dtype)
                if a.flags.f_contiguous and not a.flags.c_contiguous:
                    gd = np.asfortranarray(gd)
                new = _data_grad(lambda t, b=beta, h=th: F.softplus(t, b, h), x, mt.from_numpy(gd))
                _same(new.numpy(), old_softplus_backward(a, gd, beta, th), what + " backward")


def test_softplus_skips_the_select_only_where_nothing_passes(monkeypatch):
    calls = []
    select = _cpu_device.backend.select
    monkeypatch.setattr(_cpu_device.backend, "select", lambda *a: calls.append(1) or select(*a))
    for top, selects in ((10.0, 0), (30.0, 2)):
        x = mt.tensor(np.linspace(-10, top, 6000, dtype="float32").reshape(60, 100))
        x.requires_grad_()
        F.softplus(x).backward(mt.ones(60, 100))
        assert len(calls) == selects, (top, calls)
        calls.clear()


OLD_POW = {-0.5: lambda y: 1 / np.sqrt(y), 3: lambda y: y * y * y, -2: lambda y: 1 / (y * y)}


def old_pow(x, e):
    # the old kernel for float32/float64 arrays of 32 elements and more
    special = OLD_POW.get(e)
    return np.asarray(x**e if special is None else special(x))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_number_matches_the_old_kernels(dtype):
    rng = np.random.default_rng(3)
    for layout, x in _tensors(dtype):
        a = x._data
        gd = rng.standard_normal(a.shape).astype(dtype)
        if a.flags.f_contiguous and not a.flags.c_contiguous:
            gd = np.asfortranarray(gd)
        for e in (3, -2, -0.5, 2, 0.5, 1.5, 4, 1, -1, 2.0):
            with mt.no_grad():
                _same(x**e, old_pow(a, e), f"x ** {e} {dtype} {layout}")
            new = _data_grad(lambda t, e=e: t**e, x, mt.from_numpy(gd))
            old = np.asarray(gd * (e * old_pow(a, e - 1)))
            _same(new.numpy(), old, f"x ** {e} backward {dtype} {layout}")
    for v in (mt.tensor(-0.0), mt.tensor(2.5), mt.tensor([1.5, -0.0, 4.0])):
        for e in (3, -2, -0.5):
            _same(v**e, old_pow(v._data, e), f"small x ** {e}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_rsqrt_matches_the_old_kernel(dtype):
    for layout, x in _tensors(dtype):
        a = x._data
        old = np.asarray((1 / np.sqrt(_wide(a))).astype(a.dtype, copy=False))
        with mt.no_grad():
            _same(mt.rsqrt(x)._data, old, f"rsqrt {dtype} {layout}")
    v = mt.tensor(2.5)
    _same(mt.rsqrt(v)._data, np.asarray(1 / np.sqrt(v._data)), "rsqrt 0-d")


@pytest.mark.parametrize("dtype", DTYPES)
def test_tanh_and_sigmoid_backward_match_the_old_kernels(dtype):
    rng = np.random.default_rng(9)
    for layout, x in _tensors(dtype):
        a = x._data
        gd = rng.standard_normal(a.shape).astype(np.float32).astype(a.dtype)
        gd.reshape(-1)[:6] = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-45]
        grads = [gd]
        if a.flags.f_contiguous and not a.flags.c_contiguous:
            grads.append(np.asfortranarray(gd))  # laid out as y; the C one is not
        for (name, fn), gd in itertools.product(
            (("tanh", mt.tanh), ("sigmoid", mt.sigmoid)), grads
        ):
            xr = x.detach().requires_grad_()
            y = fn(xr)
            yd = y._data
            y.backward(mt.from_numpy(gd))
            if dtype in HALF:
                continue  # (unchanged half kernels)
            old = gd * (1 - yd * yd) if name == "tanh" else gd * (yd * (1 - yd))
            what = f"{name} backward {dtype} {layout} {gd.strides}"
            # (a leaf's gradient is laid out as the leaf: values only)
            _same(xr.grad._data, np.asarray(old), what, layout=False)
            # the kernel itself, laid out as the old one
            kernel = TanhBackward.kernel if name == "tanh" else SigmoidBackward.kernel
            _same(kernel(gd, yd, np), np.asarray(old), what + " kernel")
            # the double-backward node's forward takes the same kernel
            xr.grad = None
            (gx,) = mt.autograd.grad(fn(xr), xr, mt.from_numpy(gd), create_graph=True)
            _same(gx.detach()._data, np.asarray(old), what + " node", layout=False)
