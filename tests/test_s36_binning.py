"""Session 36 (helper binning): torch-free regression tests of the library fixes the binning and
order-statistics programs of tests/reference/test_s36_binning_reference.py found: the parser
TypeErrors of searchsorted/bucketize (sorter= and out= that are no tensors), histogram,
quantile and nanquantile (an out= of the other overload's kind), mode (dim=None's position),
histogram/histogramdd (range's first element no number, a later one no float) and
histogramdd's count of explicit edges and its density=/weight= types; the bins of
histogram/histogramdd/histc over a range that collapses in the input's dtype. torch's
messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


SEARCHSORTED_FORMS = (
    " * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
    " * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, "
    "str side = None, Tensor sorter = None, Tensor out = None)\n"
)
HISTOGRAM_FORMS = (
    " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple of "
    "Tensors out = None)\n"
    " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
    "bool density = False, tuple of Tensors out = None)\n"
)
QUANTILE_FORMS = "".join(
    f" * (Tensor input, {k} q, int dim = None, bool keepdim = False, *, str interpolation = "
    '"linear", Tensor out = None)\n'
    for k in ("Tensor", "float")
)
HISTOGRAMDD_FORMS = "".join(
    f" * (Tensor input, {k} bins, tuple of floats range = None, Tensor weight = None, bool "
    "density = False)\n"
    for k in ("int", "tuple of ints", "tuple of Tensors")
)


def _invalid(op, got, forms):
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{forms}"
    )


def test_searchsorted_sorter_and_out_not_tensors():
    x, b = mt.zeros(3, 4), mt.tensor([0.0, 1.0])
    got = _message(TypeError, lambda: mt.searchsorted(b, x, sorter=[0, 1]))
    assert got == _invalid("searchsorted", "Tensor, Tensor, sorter=list", SEARCHSORTED_FORMS)
    got = _message(TypeError, lambda: mt.searchsorted(b, 0.5, sorter=np.arange(2)))
    assert got == _invalid(
        "searchsorted", "Tensor, float, sorter=numpy.ndarray", SEARCHSORTED_FORMS
    )
    got = _message(TypeError, lambda: mt.searchsorted(b, x, out=1))
    assert got == _invalid("searchsorted", "Tensor, Tensor, out=int", SEARCHSORTED_FORMS)
    got = _message(TypeError, lambda: mt.bucketize(x, b, out=[1]))
    assert got == _invalid(
        "bucketize",
        "Tensor, Tensor, out=list",
        " * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
        "Tensor out = None)\n"
        " * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n",
    )
    # a tensor sorter and out still work
    o = mt.empty(0, dtype=mt.int64)
    mt.searchsorted(mt.tensor([1.0, 0.0]), x, sorter=mt.tensor([1, 0]), right=True, out=o)
    np.testing.assert_array_equal(o.numpy(), np.ones((3, 4), dtype=np.int64))


def test_out_of_the_other_kind_lists_the_overloads():
    x = mt.zeros(3, 4)
    got = _message(TypeError, lambda: mt.histogram(x, 2, out=x))
    assert got == _invalid("histogram", "Tensor, int, out=Tensor", HISTOGRAM_FORMS)
    got = _message(TypeError, lambda: mt.quantile(x, 0.5, out=(x,)))
    assert got == _invalid("quantile", "Tensor, float, out=tuple", QUANTILE_FORMS)
    got = _message(TypeError, lambda: mt.nanquantile(x, mt.tensor(0.5), 1, out=1))
    assert got == _invalid("nanquantile", "Tensor, Tensor, int, out=int", QUANTILE_FORMS)
    # the right kinds still work
    v, i = mt.empty(0), mt.empty(0, dtype=mt.int64)
    mt.sort(mt.tensor([2.0, 1.0]), stable=True, out=(v, i))
    np.testing.assert_array_equal(i.numpy(), [1, 0])
    q = mt.empty(0)
    mt.quantile(mt.tensor([1.0, 3.0]), 0.5, out=q)
    np.testing.assert_allclose(q.numpy(), 2.0)


@pytest.mark.parametrize("op", ["mode"])
def test_dim_none_position(op):
    x = mt.zeros(3, 4)
    fn = getattr(mt, op)
    want = f"{op}(): argument 'dim' (position 2) must be int, not NoneType"
    assert _message(TypeError, lambda: fn(x, None)) == want
    want = f"{op}(): argument 'dim' (position 1) must be int, not NoneType"
    assert _message(TypeError, lambda: getattr(x, op)(None)) == want
    want = f"{op}(): argument 'dim' must be int, not NoneType"
    assert _message(TypeError, lambda: fn(x, dim=None)) == want


def test_histogram_range_elements():
    x = mt.zeros(3, 4)
    got = _message(TypeError, lambda: mt.histogram(x, 3, range=(None, 1.0)))
    assert got == _invalid("histogram", "Tensor, int, range=tuple", HISTOGRAM_FORMS)
    got = _message(TypeError, lambda: mt.histogram(x, 3, range=(0.0, None)))
    assert got == (
        "histogram(): argument 'range' must be tuple of floats, but found element of type "
        "NoneType at pos 2"
    )
    got = _message(
        TypeError, lambda: mt.histogramdd(x, 3, range=[mt.tensor(0.0)] * 8, density=True)
    )
    assert got == _invalid(
        "histogramdd", "Tensor, int, density=bool, range=list", HISTOGRAMDD_FORMS
    )
    got = _message(TypeError, lambda: mt.histogramdd(x, 2, range=[0.0, 1.0] * 3 + [0.0, "a"]))
    assert got == (
        "histogramdd(): argument 'range' must be tuple of floats, but found element of type str "
        "at pos 8"
    )
    # a number first, a 0-d tensor later: taken
    h = mt.histogram(x, 2, range=(np.float32(-1.0), mt.tensor(1.0)))
    np.testing.assert_array_equal(h.hist.numpy(), [0.0, 12.0])


def test_histogramdd_count_of_explicit_edges():
    x = mt.zeros(3, 4)
    got = _message(RuntimeError, lambda: mt.histogramdd(x, [mt.tensor([0.0, 1.0])]))
    assert got == (
        "torch.histogramdd: expected 4 sequences of bin edges for a 4-dimensional histogram but "
        "got 1"
    )
    got = _message(RuntimeError, lambda: mt.histogramdd(x, [3]))
    assert got == (
        "histogramdd: The size of bins must be equal to the innermost dimension of the input."
    )


def test_collapsed_range_bins():
    # min and max that round to one float32 value: all edges equal; torch's upper_bound over
    # edges [pos - 1, pos + 2) puts the samples at 1.0 into bin 1 (histogram), histc's 0 / 0
    # position into bin 0
    x = mt.tensor([1.0, 1.0, 2.0, 0.5])
    h = mt.histogram(x, 3, range=(1, 1 + 2**-30))
    np.testing.assert_array_equal(h.hist.numpy(), [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(h.bin_edges.numpy(), [1.0, 1.0, 1.0, 1.0])
    hd = mt.histogramdd(x[:, None], 3, range=[1, 1 + 2**-30])
    np.testing.assert_array_equal(hd.hist.numpy(), [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(mt.histc(x, 3, 1, 1 + 2**-30).numpy(), [2.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        mt.histc(x.half(), 3, 1, 1 + 2**-15).float().numpy(), [2.0, 0.0, 0.0]
    )
    # edges 1, 1, 1, 1 + ulp, 1 + ulp: a sample at 1.0 goes to bin 1 (not 2)
    h = mt.histogram(mt.tensor([1.0, 1.0 + 2**-23]), 4)
    np.testing.assert_array_equal(h.hist.numpy(), [0.0, 1.0, 0.0, 1.0])
    # ordinary ranges are unchanged
    h = mt.histogram(mt.arange(100, dtype=mt.float64) / 10, 7, range=(0.0, 9.9))
    np.testing.assert_array_equal(h.hist.numpy(), [15, 14, 14, 14, 14, 14, 15])


def test_histogramdd_density_and_weight_types():
    x = mt.zeros(6, 2)
    got = _message(TypeError, lambda: mt.histogramdd(x, 3, density=1))
    assert got == _invalid("histogramdd", "Tensor, int, density=int", HISTOGRAMDD_FORMS)
    got = _message(TypeError, lambda: mt.histogramdd(x, 3, density=None))
    assert got == _invalid("histogramdd", "Tensor, int, density=NoneType", HISTOGRAMDD_FORMS)
    got = _message(TypeError, lambda: mt.histogramdd(x, 3, weight=[1.0] * 6))
    assert got == _invalid("histogramdd", "Tensor, int, weight=list", HISTOGRAMDD_FORMS)
