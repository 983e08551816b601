"""Session 39 (helper redfuzz): torch-free regression tests of the library fixes the reduction
and scan fuzzer of tests/reference/test_s39_redfuzz_reference.py found: sum(x, None, out=) is
torch's dim overload (it takes out=); out= or dtype= with the dim left out is torch's parser
error (its 'missing "dim"' once dtype= is given too); torch checks out='s dtype before the dims
(amax, amin, cummax, cummin, logcumsumexp, logsumexp's empty tuple) and median's dim and empty
dim before out='s dtypes; mean(x, None, out=) has the dim overload's messages; a bool out= of a
scan and an integral out= of an empty nansum reach no kernel; cumsum's bool kernel error comes
before autograd's dtype check; vector_norm's empty-input identity check comes before dtype='s;
prod's gradient over a dim of one factor with a zero is the upstream gradient as it is. torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return f"{exc_type.__name__}: {info.value}"


def _x():
    return mt.tensor([[1.5, 2.0, 3.0], [4.0, 5.0, 6.5]])


def _forms(dim_type):
    return (
        " * (Tensor input, *, torch.dtype dtype = None)\n"
        f" * (Tensor input, {dim_type} dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None)\n"
    )


def test_sum_dim_none_takes_out():
    x = _x()
    for keepdim, shape in ((False, ()), (True, (1, 1))):
        o = mt.empty(0)
        r = mt.sum(x, None, keepdim, out=o)
        assert r is o and tuple(o.shape) == shape
        np.testing.assert_allclose(o.numpy(), np.full(shape, 22.0))
    o = mt.empty(0, dtype=mt.int64)
    assert mt.sum(x, dim=None, out=o).item() == 21  # each factor truncated first, as torch's


def test_out_or_dtype_without_dim_is_the_parser_error():
    x = _x()
    missing = 'TypeError: {}() missing 1 required positional arguments: "dim"'
    for op in ("sum", "prod"):
        fn = getattr(mt, op)
        want = missing.format(op)
        assert _message(TypeError, lambda fn=fn: fn(x, keepdim=True, dtype=mt.float64)) == want
        assert _message(TypeError, lambda fn=fn: fn(x, out=mt.empty(0), dtype=mt.float64)) == want
        assert _message(TypeError, lambda fn=fn: fn(x, dtype=mt.float64, out=mt.empty(0))) == want
    assert _message(TypeError, lambda: x.sum(keepdim=True, dtype=mt.float32)) == missing.format(
        "sum"
    )
    got = _message(TypeError, lambda: mt.prod(x, out=mt.empty(0)))
    assert got == (
        "TypeError: prod() received an invalid combination of arguments - got (Tensor, "
        "out=Tensor), but expected one of:\n" + _forms("int")
    )
    got = _message(TypeError, lambda: mt.mean(x, keepdim=True, dtype=mt.float32))
    assert got == (
        "TypeError: mean() received an invalid combination of arguments - got (Tensor, "
        "dtype=torch.dtype, keepdim=bool), but expected one of:\n"
        " * (Tensor input, *, torch.dtype dtype = None, Tensor out = None)\n"
        " * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None)\n"
    )


def test_mean_dim_none_out_messages():
    x = _x()
    b = mt.empty(0, dtype=mt.bool)
    assert _message(RuntimeError, lambda: mt.mean(x, out=b)) == (
        "RuntimeError: mean.dtype_out(): input types can't be cast to the desired output type Bool"
    )
    assert _message(RuntimeError, lambda: mt.mean(x, None, True, out=b)) == (
        "RuntimeError: result type Float can't be cast to the desired output type Bool"
    )
    got = _message(
        RuntimeError,
        lambda: mt.mean(x.double(), None, dtype=mt.float64, out=mt.empty(0, dtype=mt.int64)),
    )
    assert got == "RuntimeError: Expected out tensor to have dtype double, but got long int instead"
    o = mt.empty(0, dtype=mt.float64)
    np.testing.assert_allclose(mt.mean(x, None, out=o).numpy(), 22.0 / 6, rtol=1e-7)


def test_out_dtype_checked_before_dims():
    x, f64 = _x(), mt.float64
    amax_msg = (
        "RuntimeError: Expected the dtype for input and out to match, but got Float for input's "
        "dtype and Double for out's dtype."
    )
    assert _message(RuntimeError, lambda: mt.amax(x, 5, out=mt.empty(0, dtype=f64))) == amax_msg
    assert _message(RuntimeError, lambda: mt.amin(x, (1, 1), out=mt.empty(0, dtype=f64))) == (
        amax_msg
    )
    empty = mt.ones(4, 0)
    assert _message(RuntimeError, lambda: mt.amin(empty, 1, out=mt.empty(0, dtype=f64))) == (
        amax_msg
    )
    scan_msg = "RuntimeError: expected scalar_type Float but found Double"
    pair = (mt.empty(0, dtype=f64), mt.empty(0, dtype=mt.int64))
    assert _message(RuntimeError, lambda: mt.cummin(x, 5, out=pair)) == scan_msg
    assert _message(RuntimeError, lambda: mt.cummax(mt.tensor(2.0), 5, out=pair)) == scan_msg
    got = _message(RuntimeError, lambda: mt.cummax(x, 5, out=(mt.empty(0), mt.empty(0))))
    assert got == "RuntimeError: expected scalar_type Long but found Float"
    assert _message(RuntimeError, lambda: mt.logcumsumexp(x, 5, out=mt.empty(0, dtype=f64))) == (
        scan_msg
    )
    assert _message(TypeError, lambda: mt.logcumsumexp(x, "a", out=mt.empty(0, dtype=f64))) == (
        "TypeError: logcumsumexp(): argument 'dim' (position 2) must be int, not str"
    )
    got = _message(RuntimeError, lambda: mt.logsumexp(x, (), out=mt.empty(0, dtype=mt.bool)))
    assert got == (
        "RuntimeError: logsumexp(): Expected floating point type for result tensor, but got: Bool"
    )


def test_median_dim_checked_before_out():
    x, pair = _x(), (mt.empty(0, dtype=mt.int64), mt.empty(0, dtype=mt.int64))
    for op in (mt.median, mt.nanmedian):
        assert _message(IndexError, lambda op=op: op(x, 5, out=pair)) == (
            "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)"
        )
        assert _message(IndexError, lambda op=op: op(mt.ones(4, 0), 1, out=pair)) == (
            "IndexError: median(): Expected reduction dim 1 to have non-zero size."
        )
    got = _message(RuntimeError, lambda: mt.median(x, 1, out=pair))
    assert got.startswith("RuntimeError: Expected tensor for 'values' to have the same type")


def test_scan_bool_out_and_kernel_order():
    x = _x()
    o = mt.empty(0, dtype=mt.bool)
    assert mt.cumsum(mt.tensor(2.0), 0, out=o).item() is True  # a 0-d scan is a copy
    assert tuple(mt.cumprod(mt.ones(4, 0), 0, out=mt.empty(0, dtype=mt.bool)).shape) == (4, 0)
    assert _message(NotImplementedError, lambda: mt.cumsum(x, 0, out=o)) == (
        "NotImplementedError: \"cumsum_out_cpu\" not implemented for 'Bool'"
    )
    got = _message(RuntimeError, lambda: mt.cumsum(x, 0, dtype=mt.float64, out=o))
    assert got == "RuntimeError: Expected out tensor to have dtype double, but got bool instead"
    xg = x.clone().requires_grad_(True)
    assert _message(NotImplementedError, lambda: mt.cumprod(xg, 0, dtype=mt.bool)) == (
        "NotImplementedError: \"cumprod_out_cpu\" not implemented for 'Bool'"
    )
    assert _message(
        RuntimeError, lambda: mt.cumsum(mt.ones(0, 2, requires_grad=True), 0, dtype=mt.bool)
    ) == ("RuntimeError: Autograd not support dtype: Bool")


def test_nansum_empty_into_integral_out():
    o = mt.empty(0, dtype=mt.int64)
    r = mt.nansum(mt.ones(0), out=o)
    assert r is o and r.item() == 0
    assert _message(
        NotImplementedError, lambda: mt.nansum(_x(), 0, out=mt.empty(0, dtype=mt.int32))
    ) == ("NotImplementedError: \"nansum_cpu\" not implemented for 'Int'")


def test_vector_norm_identity_before_dtype():
    e = mt.ones(5, 0, 2)
    ident = (
        "RuntimeError: linalg.vector_norm cannot compute the inf norm on an empty tensor because "
        "the operation does not have an identity"
    )
    inf = float("inf")
    assert _message(RuntimeError, lambda: mt.norm(e, p=inf, dtype=mt.int64)) == ident
    assert (
        _message(RuntimeError, lambda: mt.linalg.vector_norm(e.double(), inf, dtype=mt.float32))
        == ident
    )
    assert _message(IndexError, lambda: mt.linalg.vector_norm(e, inf, 5, dtype=mt.int64)) == (
        "IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 5)"
    )
    assert _message(TypeError, lambda: mt.linalg.vector_norm(e, -1, dtype=3)) == (
        "TypeError: linalg_vector_norm(): argument 'dtype' must be torch.dtype, not int"
    )
    assert _message(RuntimeError, lambda: mt.linalg.vector_norm(e, 2, dtype=mt.int64)) == (
        "RuntimeError: linalg.vector_norm: dtype should be floating point or complex, but got Long"
    )


def test_prod_of_one_factor_with_a_zero_passes_the_gradient():
    rng = np.random.default_rng(0)
    w = mt.tensor(rng.standard_normal((2, 1)), dtype=mt.float64)
    for vals, dim in (([[0.0], [2.0]], 1), ([[3.0, 0.0]], 0), ([0.0], None)):
        x = mt.tensor(vals, dtype=mt.float64, requires_grad=True)
        out = x.prod() if dim is None else x.prod(dim, keepdim=True)
        up = w[: out.shape[0]] if out.ndim else w[0, 0]
        up = up.expand(out.shape) if out.ndim else up
        (g,) = mt.autograd.grad(out, x, up, create_graph=True)
        assert not g.requires_grad  # torch's: grad as it is, no graph
        np.testing.assert_allclose(g.numpy(), np.broadcast_to(up.numpy(), x.shape))
    # with more than one factor the gradient stays twice differentiable
    x = mt.tensor([[0.0, 2.0, 3.0]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda t: t.prod(1), (x,))
    x = mt.tensor([[0.0], [2.0]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.prod(1), (x,))
