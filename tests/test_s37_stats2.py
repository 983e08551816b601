"""Session 37 (helper stats2): torch-free regression tests of the library fixes the statistics
programs of tests/reference/test_s37_stats2_reference.py found: bincount's float32 weights
summed in float32 in the input's order; count_nonzero's parser TypeError for keepdim= and
extra positional arguments; cov's half mean (a rounded sum divided), its TypeError for weights
that are no tensors, its degrees-of-freedom warning with weights and its refusal of NaN
aweights; histogram/histogramdd results requiring grad through edges tensors, histogramdd
giving its edges tensors back and refusing bins mixing tensors and counts; logcumsumexp's out
dtype checked before its kernel's dtype; and the TypeError of the Tensor methods that take no
out= (cummax, cummin, cumsum, cumprod, logcumsumexp, mode, aminmax, histc, bincount). torch's
values and messages are written here as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_bincount_float32_weights_add_up_in_float32():
    # torch: float32 weights accumulate into a float32 output, one by one in the input's order
    idx = mt.zeros(5, dtype=mt.int64)
    w = mt.tensor([1.0] + [2.0**-25] * 4)
    out = mt.bincount(idx, weights=w)
    assert out.dtype is mt.float32
    assert out.tolist() == [1.0]
    assert mt.bincount(idx, weights=w.double()).tolist() == [1.0000001192092896]
    assert mt.bincount(mt.tensor([2, 0, 2]), weights=mt.tensor([0.5, 1.0, 0.25])).tolist() == [
        1.0, 0.0, 0.75,
    ]  # fmt: skip


COUNT_NONZERO = (
    "count_nonzero() received an invalid combination of arguments - got ({got}), but expected "
    "one of:\n * ({input}int dim = None)\n * ({input}tuple of ints dim)\n"
)


@pytest.mark.parametrize(
    "call, got, method",
    [
        (lambda x: mt.count_nonzero(x, dim=0, keepdim=True), "Tensor, keepdim=bool, dim=int", 0),
        (lambda x: mt.count_nonzero(x, keepdim=True, dim=0), "Tensor, dim=int, keepdim=bool", 0),
        (lambda x: mt.count_nonzero(x, 0, True), "Tensor, int, bool", 0),
        (lambda x: x.count_nonzero(dim=0, keepdim=True), "keepdim=bool, dim=int, ", 1),
        (lambda x: x.count_nonzero(0, 1, keepdim=True), "int, int, keepdim=bool", 1),
    ],
)
def test_count_nonzero_keepdim_is_a_parser_error(call, got, method):
    x = mt.ones(2, 3)
    want = COUNT_NONZERO.format(got=got, input="" if method else "Tensor input, ")
    assert _message(TypeError, lambda: call(x)) == want
    unknown = _message(TypeError, lambda: mt.count_nonzero(x, foo=1))
    assert unknown.endswith(
        " * (Tensor input, int dim = None)\n"
        "      didn't match because some of the keywords were incorrect: foo\n"
        " * (Tensor input, tuple of ints dim)\n"
        "      didn't match because some of the keywords were incorrect: foo\n"
    )
    assert x.count_nonzero(0, 1).tolist() == 6  # (the method's varargs dims still count)


def test_cov_half_divides_a_rounded_sum():
    # torch: avg = sum(x) / n in half (the sum rounded first), not mean's float division
    x = mt.tensor([[0.1, 0.7, 0.3], [1.3, 2.9, 0.2]]).half()
    got = mt.cov(x)
    assert got.dtype is mt.float16
    assert got.tolist() == [[0.09344482421875, 0.303466796875], [0.303466796875, 1.84375]]


def test_cov_weights_must_be_tensors_after_correction():
    x = mt.randn(3, 5, generator=mt.Generator().manual_seed(0))
    msg = _message(TypeError, lambda: mt.cov(x, fweights=[1, 2, 3, 4, 5]))
    assert msg == "cov(): argument 'fweights' must be Tensor, not list"
    msg = _message(TypeError, lambda: mt.cov(x, aweights=(1.0,) * 5))
    assert msg == "cov(): argument 'aweights' must be Tensor, not tuple"
    msg = _message(TypeError, lambda: mt.cov(x, correction=1.5, fweights=[1]))
    assert msg == "cov(): argument 'correction' must be int, not float"


def test_cov_warns_of_no_degrees_of_freedom_with_weights():
    x = mt.randn(3, 5, generator=mt.Generator().manual_seed(1), dtype=mt.float64)
    want = (
        "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
        "of observations."
    )
    fw = mt.tensor([1, 1, 2, 1, 1])
    for kwargs, warned in (
        (dict(correction=6, fweights=fw), True),
        (dict(correction=5, fweights=fw), False),
        (dict(correction=2, aweights=mt.tensor([1.0, 0, 0, 0, 0], dtype=mt.float64)), True),
        (dict(correction=0, aweights=mt.ones(5, dtype=mt.float64)), False),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = mt.cov(x, **kwargs)
        user = [w for w in caught if issubclass(w.category, UserWarning)]
        assert [str(w.message) for w in user] == ([want] if warned else []), kwargs
        assert all(w.filename == __file__ for w in user)  # (the user's line, as torch's)
        if warned:  # the factor is clamped to 0, as torch's
            assert not mt.isfinite(out).any()


def test_cov_refuses_nan_aweights():
    x = mt.randn(3, 4, generator=mt.Generator().manual_seed(2))
    aw = mt.tensor([1.0, float("nan"), 1.0, 1.0])
    assert _message(RuntimeError, lambda: mt.cov(x, aweights=aw)) == (
        "cov(): aweights cannot be negative"
    )


def _flags(t):
    return t.requires_grad, t.grad_fn is not None and type(t.grad_fn).__name__


def test_histogram_edges_tensor_requiring_grad():
    x = mt.randn(10, generator=mt.Generator().manual_seed(3), dtype=mt.float64)
    b = mt.tensor([-2.0, 0.0, 2.0], dtype=mt.float64, requires_grad=True)
    h = mt.histogram(x, b)
    assert _flags(h.hist) == (True, "NotImplemented")
    assert _flags(h.bin_edges) == (True, "NotImplemented")
    assert h.bin_edges is not b
    msg = _message(RuntimeError, lambda: h.hist.sum().backward())
    assert msg == "derivative for aten::histogram is not implemented"
    with mt.no_grad():
        assert not mt.histogram(x, b).hist.requires_grad


def test_histogramdd_gives_its_edges_tensors_back():
    x = mt.randn(5, 2, generator=mt.Generator().manual_seed(4), dtype=mt.float64)
    b = mt.tensor([-2.0, 0.0, 2.0], dtype=mt.float64, requires_grad=True)
    bs = mt.tensor([-2.0, 5.0, 0.0, 7.0, 2.0], dtype=mt.float64)[::2]
    h = mt.histogramdd(x, [b, bs])
    assert h.bin_edges[0] is b and h.bin_edges[1] is bs
    assert _flags(h.hist) == (True, "NotImplemented")
    msg = _message(RuntimeError, lambda: h.hist.sum().backward())
    assert msg == "derivative for aten::_histogramdd_from_bin_tensors is not implemented"
    h = mt.histogramdd(x, [bs, bs])
    assert not h.hist.requires_grad
    h = mt.histogramdd(x.clone().requires_grad_(True), 2)  # counted bins: new edges
    assert [_flags(e) for e in h.bin_edges] == [(True, "NotImplemented")] * 2
    assert mt.histogramdd(x, [mt.tensor(3), 2]).hist.shape == (3, 2)  # a 0-d int is a count


def test_histogramdd_bins_mixing_tensors_and_counts():
    x = mt.randn(5, 2, generator=mt.Generator().manual_seed(5), dtype=mt.float64)
    b = mt.tensor([-2.0, 0.0, 2.0], dtype=mt.float64)
    msg = _message(TypeError, lambda: mt.histogramdd(x, [b, 3]))
    assert msg == "expected Tensor as element 1 in argument 1, but got int"
    msg = _message(TypeError, lambda: mt.histogramdd(x, [3, b]))
    assert msg == (
        "histogramdd(): argument 'bins' failed to unpack the object at pos 2 with error \"type "
        'must be tuple of ints,but got Tensor"'
    )


def test_logcumsumexp_checks_out_dtype_first():
    msg = _message(
        RuntimeError, lambda: mt.logcumsumexp(mt.arange(3), 0, out=mt.empty(0, dtype=mt.float64))
    )
    assert msg == "expected scalar_type Long but found Double"
    msg = _message(
        NotImplementedError, lambda: mt.logcumsumexp(mt.arange(3), 0, out=mt.empty(0).long())
    )
    assert msg == "\"logcumsumexp_out_cpu\" not implemented for 'Long'"


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x, e, i: x.logcumsumexp(0, out=e), "logcumsumexp"),
        (lambda x, e, i: x.cummax(0, out=(e, i)), "cummax"),
        (lambda x, e, i: x.cummin(0, out=(e, i)), "cummin"),
        (lambda x, e, i: x.cumsum(0, out=e), "cumsum"),
        (lambda x, e, i: x.cumprod(0, out=None), "cumprod"),
        (lambda x, e, i: x.mode(0, out=(e, i)), "mode"),
        (lambda x, e, i: x.aminmax(dim=0, out=(e, e)), "aminmax"),
        (lambda x, e, i: x.histc(3, out=e), "histc"),
        (lambda x, e, i: i.bincount(out=e), "bincount"),
    ],
)
def test_methods_take_no_out(call, op):
    x, e, i = mt.randn(3, 4), mt.empty(0), mt.tensor([0, 1, 1])
    msg = _message(TypeError, lambda: call(x, e, i))
    assert msg == f"{op}() got an unexpected keyword argument 'out'"


def test_methods_argument_counts_and_keywords():
    x = mt.randn(3, 4)
    assert _message(TypeError, lambda: x.histc(3, 0, 1, 2)) == (
        "histc() takes from 0 to 3 positional arguments but 4 were given"
    )
    assert _message(TypeError, lambda: x.histc(foo=1)) == (
        "histc() got an unexpected keyword argument 'foo'"
    )
    assert x.histc(bins=2, min=0, max=1).shape == (2,)
    assert mt.tensor([0, 2]).bincount(minlength=4).tolist() == [1, 0, 1, 0]
    assert x.cumsum(dim=0, dtype=mt.float64).dtype is mt.float64
    assert x.mode(dim=0, keepdim=True).values.shape == (1, 4)
