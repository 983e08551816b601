"""Sweep 4 of sorting/searching/statistics: integer isclose, out= dtype checks and out types,
trapezoid's non-finite values, node names, argument errors, searchsorted over NaN."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

nan, inf = float("nan"), float("inf")
E = mt.empty


# --- isclose / allclose of integers ---


def test_isclose_int64_is_exact_past_2_53():
    a = mt.tensor([1_700_000_000_000_000_001, 2**62, 7])
    b = mt.tensor([1_700_000_000_000_000_000, 2**62 + 1, 7])
    assert mt.isclose(a, b, rtol=0, atol=0).tolist() == [False, False, True]
    assert mt.allclose(a, b, rtol=0, atol=0) is False
    assert mt.allclose(a, a.clone(), rtol=0, atol=0) is True


def test_isclose_integers_with_tolerance_compute_in_default_float_dtype():
    # torch: equal values are close; otherwise |a - b| <= atol + |rtol * b| in the default float
    # dtype (float32 rounds 2**24 + 1 to 2**24), with no integer wrap-around in a - b
    x, y = mt.tensor([16777217, 3, 2**63 - 1]), mt.tensor([16777216, 4, -1])
    assert mt.isclose(x, y, rtol=0, atol=0.5).tolist() == [True, False, False]
    assert mt.isclose(x, y, rtol=0, atol=1).tolist() == [True, True, False]
    assert mt.isclose(mt.tensor([3]), mt.tensor([5]), rtol=0.4, atol=0).tolist() == [True]
    assert mt.isclose(mt.tensor([3]), mt.tensor([5]), rtol=0.39999, atol=0).tolist() == [False]
    u = mt.tensor([0, 200], dtype=mt.uint8)
    v = mt.tensor([255, 1], dtype=mt.uint8)
    assert mt.isclose(u, v, rtol=0, atol=1).tolist() == [False, False]
    old = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.isclose(x, y, rtol=0, atol=0.5).tolist() == [False, False, False]
    finally:
        mt.set_default_dtype(old)


# --- histogramdd ---


@pytest.mark.parametrize(
    "x, exc, msg",
    [
        (mt.tensor([1.0, 2.0, 3.0]), RuntimeError, "should have at least 2 dimensions"),
        (mt.tensor([1, 2]), RuntimeError, "should have at least 2 dimensions"),
        (mt.tensor(1.0), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ],
)
def test_histogramdd_needs_points_of_at_least_2_dims(x, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.histogramdd(x, bins=2)


# --- out= dtypes and out types ---

_X = mt.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
_F32, _F64, _I32, _I64 = mt.float32, mt.float64, mt.int32, mt.int64
_LONG_VALUES = "Expected out tensor to have dtype long int, but got float instead"


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda o: mt.sort(_X, 1, out=o), _LONG_VALUES),
        (lambda o: mt.topk(_X, 2, out=o), _LONG_VALUES),
        (lambda o: mt.kthvalue(_X, 1, out=o), "output indices must be of scalar type Long"),
        (lambda o: mt.cummax(_X, 1, out=o), "expected scalar_type Long but found Float"),
        (lambda o: mt.cummin(_X, 1, out=o), "expected scalar_type Long but found Float"),
    ],
)
def test_float_indices_out_is_refused(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call((E(0), E(0)))
    with pytest.raises(RuntimeError, match=msg.replace("float", "int").replace("Float", "Int")):
        call((E(0), E(0, dtype=_I32)))


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda o: mt.sort(_X, 1, out=o), "dtype float, but got double instead"),
        (lambda o: mt.topk(_X, 2, out=o), "dtype float, but got double instead"),
        (lambda o: mt.kthvalue(_X, 1, out=o), "output values must be of same type as input"),
        (lambda o: mt.cummax(_X, 1, out=o), "expected scalar_type Float but found Double"),
        (lambda o: mt.msort(_X, out=o[0]), "dtype float, but got double instead"),
    ],
)
def test_values_out_of_another_float_dtype_is_refused(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call((E(0, dtype=_F64), E(0, dtype=_I64)))


def test_out_of_the_right_dtypes_still_works():
    v, i = E(0), E(0, dtype=_I64)
    r = mt.sort(_X, 1, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    assert i.tolist() == [[1, 2, 0], [0, 2, 1]]


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: mt.logcumsumexp(_X, 1, out=E(0, dtype=_F64)), "expected scalar_type Float but "),
        (lambda: mt.histc(_X, 3, out=E(0, dtype=_F64)), "got input float and hist double"),
        (lambda: mt.histogram(_X, 2, out=(E(0, dtype=_F64), E(0))), "and hist double"),
        (lambda: mt.histogram(_X, 2, out=(E(0), E(0, dtype=_I64))), "bin_edges long int for"),
        (
            lambda: mt.searchsorted(_X[0].sort().values, _X, out=E(0, dtype=_I32)),
            "dtype Int and out_int32 flag is False",
        ),
        (
            lambda: mt.searchsorted(_X[0].sort().values, _X, out_int32=True, out=E(0, dtype=_I64)),
            "dtype Long and out_int32 flag is True",
        ),
        (lambda: mt.bucketize(_X, mt.tensor([1.0, 2.0]), out=E(0)), "output tensor's dtype is"),
        (lambda: mt.signbit(_X, out=E(0)), "signbit does not support non-boolean outputs."),
        (lambda: mt.isposinf(_X, out=E(0, dtype=_I64)), "isposinf does not support non-boolean"),
    ],
)
def test_out_dtype_checks(call, msg):
    with pytest.raises(RuntimeError, match=msg):
        call()


def test_cummax_cummin_histogram_out_return_types():
    i = E(0, dtype=_I64)
    assert type(mt.cummax(_X, 1, out=(E(0), i))).__name__ == "cummax_out"
    r = mt.cummin(_X, 1, out=(E(0), i))
    assert type(r).__name__ == "cummin_out" and r.indices is i
    assert r.indices.tolist() == [[0, 1, 1], [0, 0, 0]]
    h = mt.histogram(_X, bins=2, out=(E(0), E(0)))
    assert type(h).__name__ == "histogram_out"
    assert h.hist.tolist() == [3.0, 3.0]


# --- trapezoid ---


def test_trapezoid_even_spacing_follows_torchs_formula_at_nonfinite_values():
    # torch: sum(y) - (y_0 + y_last) / 2, so inf - inf and a lone NaN give NaN
    assert np.isnan(mt.trapezoid(mt.tensor([1.0, 2.0, inf])).item())
    assert np.isnan(mt.trapezoid(mt.tensor([nan])).item())
    r = mt.trapezoid(mt.tensor([[nan, 1.0]]), dim=0).tolist()
    assert np.isnan(r[0]) and r[1] == 0.0
    assert mt.trapezoid(mt.tensor([1.0, 2.0, 3.0]), dx=2.0).item() == 8.0
    assert mt.trapezoid(mt.tensor([1, 2, 3])).item() == 4.0
    assert mt.trapezoid(mt.zeros(2, 0)).tolist() == [0.0, 0.0]


def test_trapezoid_even_spacing_gradients():
    rng = np.random.default_rng(0)
    y = mt.tensor(rng.standard_normal((3, 4)), dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: mt.trapezoid(t, dx=0.5, dim=1), (y,))
    assert gradgradcheck(lambda t: mt.trapezoid(t, dim=0), (y,))
    one = mt.tensor([[2.0]], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: mt.trapezoid(t), (one,))


# --- node names ---


def test_cross_and_renorm_node_names_and_gradients():
    rng = np.random.default_rng(1)
    a = mt.tensor(rng.standard_normal((2, 3)), dtype=mt.float64, requires_grad=True)
    b = mt.tensor(rng.standard_normal((2, 3)), dtype=mt.float64, requires_grad=True)
    assert mt.cross(a, b, dim=1).grad_fn.name() == "LinalgCrossBackward0"
    assert mt.linalg.cross(a, b).grad_fn.name() == "LinalgCrossBackward0"
    assert mt.renorm(a, 2, 0, 0.5).grad_fn.name() == "RenormBackward0"
    assert a.clone().renorm_(2, 0, 0.5).grad_fn.name() == "RenormBackward0"
    assert gradcheck(lambda x, y: mt.linalg.cross(x, y), (a, b))
    assert gradgradcheck(lambda x, y: mt.linalg.cross(x, y), (a, b))
    assert gradcheck(lambda x: mt.renorm(x, 2, 0, 0.5), (a,))


# --- argument errors ---


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: mt.bucketize(mt.tensor([1.0]), [1.0, 3.0]), TypeError, r"got \(Tensor, list\)"),
        (lambda: mt.bucketize([1.0], mt.tensor([1.0])), TypeError, r"got \(list, Tensor\)"),
        (
            lambda: mt.bincount(mt.tensor([0, 1]), weights=[1.0, 2.0]),
            TypeError,
            "bincount\\(\\): argument 'weights' must be Tensor, not list",
        ),
        (
            lambda: mt.bincount(mt.tensor([], dtype=mt.int64), weights=np.ones(0)),
            TypeError,
            "must be Tensor, not numpy.ndarray",
        ),
        (
            lambda: mt.trapezoid(mt.tensor([1.0, 2.0]), np.array([0.0, 1.0])),
            TypeError,
            r"trapezoid\(\) received an invalid combination of arguments - got \(Tensor, numpy",
        ),
        (
            lambda: mt.cumulative_trapezoid(mt.tensor([1.0, 2.0]), [0.0, 1.0]),
            TypeError,
            r"got \(Tensor, list\)",
        ),
        (
            lambda: mt.trapezoid(mt.tensor([1.0, 2.0]), mt.tensor([0.0, 1.0]), dx=2.0),
            TypeError,
            r"got \(Tensor, Tensor, dx=float\)",
        ),
        (
            lambda: mt.unique(mt.tensor(3), dim=0),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
        (
            lambda: mt.unique_consecutive(mt.tensor(3), dim=-1),
            IndexError,
            "Dimension specified as -1 but tensor has no dimensions",
        ),
        (
            lambda: mt.cross(mt.tensor(1.0), mt.tensor(1.0), dim=0),
            IndexError,
            "Dimension specified as 0 but tensor has no dimensions",
        ),
    ],
)
def test_argument_errors_are_torchs(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()


def test_bucketize_still_takes_a_number_and_trapezoid_a_positional_dx():
    assert mt.bucketize(1.5, mt.tensor([1.0, 2.0])).item() == 1
    assert mt.trapezoid(mt.tensor([1.0, 2.0, 3.0]), 2.0).item() == 8.0


# --- searchsorted over a sequence holding NaN ---


def test_searchsorted_sequence_ending_in_nan_follows_torchs_search():
    # torch's binary search: a comparison with NaN is false, which steps right
    seq = mt.tensor([1.0, 3.0, nan])
    assert mt.searchsorted(seq, mt.tensor([nan, 4.0, 2.0])).tolist() == [3, 3, 1]
    assert mt.bucketize(mt.tensor([nan, 4.0]), seq).tolist() == [3, 3]
    many = mt.tensor([1.0, 3.0, 5.0] + [nan] * 5)
    assert mt.searchsorted(many, mt.tensor([0.0, 2.0])).tolist() == [8, 8]
    tail = mt.tensor([1.0, 3.0, 5.0, nan])
    assert mt.searchsorted(tail, mt.tensor([2.0, 6.0])).tolist() == [1, 4]
    assert mt.searchsorted(tail, mt.tensor([1.0, 6.0]), right=True).tolist() == [1, 4]


# --- NumPy scalars as a norm order ---


def test_dist_and_renorm_take_numpy_scalar_orders():
    a, b = mt.tensor([[3.0, 4.0], [1.0, 2.0]]), mt.zeros(2, 2)
    assert mt.dist(a, b, np.int64(1)).item() == 10.0
    assert a.dist(b, np.float32(1.0)).item() == 10.0
    r = mt.renorm(a, np.int64(1), 0, np.float32(1.0))
    np.testing.assert_allclose(
        r.numpy(), [[3 / 7, 4 / 7], [1 / 3, 2 / 3]], rtol=1e-6, err_msg="renorm p=np.int64(1)"
    )


def test_norms_take_numpy_scalar_orders():
    x = mt.tensor([[3.0, 4.0]])
    for p, want in ((np.int64(1), 7.0), (np.float32(2.0), 5.0), (np.int32(3), 91.0 ** (1 / 3))):
        assert abs(mt.norm(x, p=p).item() - want) < 1e-5
        assert abs(x.norm(p).item() - want) < 1e-5
        assert abs(mt.linalg.vector_norm(x, p).item() - want) < 1e-5
        assert abs(mt.nn.functional.normalize(x, p=p)[0, 0].item() - 3.0 / want) < 1e-6
