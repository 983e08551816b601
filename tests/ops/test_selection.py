"""gather/scatter, index_*, masked_*, take/put, nonzero, sort/topk, unique, searchsorted, bincount,
histograms: values, dtypes and gradients against torch, on every device."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers
from tests.ops.test_indexing import check_grads

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X34 = RNG.standard_normal((3, 4))
X234 = RNG.standard_normal((2, 3, 4))
TIES = np.array([[1.0, 3.0, 2.0, 3.0], [0.5, 0.5, -1.0, 2.0], [4.0, 1.0, 4.0, 4.0]])


def _mk(T, dev, a, grad=False):
    t = T.tensor(np.asarray(a), device=dev)
    if grad:
        t.requires_grad_(True)
    return t


def _i(T, dev, a):
    return T.tensor(np.asarray(a, dtype=np.int64), device=dev)


def _b(T, dev, a):
    return T.tensor(np.asarray(a, dtype=bool), device=dev)


# Each case: (name, fn(T, dev, *float_inputs) -> output(s), float inputs (differentiated)).
CASES = [
    ("gather_dim1", lambda T, d, x: x.gather(1, _i(T, d, [[0, 0], [3, 1], [2, 2]])), [X34]),
    ("gather_dim0_small", lambda T, d, x: T.gather(x, 0, _i(T, d, [[2, 1, 2]])), [X34]),
    ("gather_neg_dim", lambda T, d, x: x.gather(-1, _i(T, d, [[[3], [0], [0]]] * 2)), [X234]),
    ("gather_empty", lambda T, d, x: x.gather(1, _i(T, d, np.zeros((3, 0)))), [X34]),
    (
        "scatter_src",
        lambda T, d, x, s: x.scatter(1, _i(T, d, [[0, 2], [3, 1]]), s),
        [X34, RNG.standard_normal((2, 3))],
    ),
    ("scatter_value", lambda T, d, x: x.scatter(0, _i(T, d, [[2, 0, 1, 1]]), 1.5), [X34]),
    (
        "scatter_reduce_add",
        lambda T, d, x: x.scatter(1, _i(T, d, [[0, 0]]), 2.0, reduce="add"),
        [X34],
    ),
    (
        "scatter_add_dups",
        lambda T, d, x, s: x.scatter_add(1, _i(T, d, [[0, 0, 3], [1, 1, 1]]), s),
        [X34, RNG.standard_normal((2, 3))],
    ),
    ("take_along_dim", lambda T, d, x: T.take_along_dim(x, _i(T, d, [[0], [3], [1]]), 1), [X34]),
    ("take_along_dim_bcast", lambda T, d, x: T.take_along_dim(x, _i(T, d, [[0, 2]]), dim=1), [X34]),
    ("take_along_dim_flat", lambda T, d, x: T.take_along_dim(x, _i(T, d, [0, 11, 11])), [X34]),
    ("index_select", lambda T, d, x: x.index_select(1, _i(T, d, [3, 0, 3])), [X34]),
    ("index_select_0d_index", lambda T, d, x: T.index_select(x, 0, _i(T, d, 2)), [X34]),
    (
        "index_add_dups",
        lambda T, d, x, s: x.index_add(0, _i(T, d, [0, 2, 0]), s, alpha=2.0),
        [X34, RNG.standard_normal((3, 4))],
    ),
    (
        "index_copy",
        lambda T, d, x, s: x.index_copy(1, _i(T, d, [3, 1]), s),
        [X34, RNG.standard_normal((3, 2))],
    ),
    ("index_fill", lambda T, d, x: x.index_fill(1, _i(T, d, [0, 2]), -1.0), [X34]),
    (
        "index_fill_tensor_value",
        lambda T, d, x, v: x.index_fill(0, _i(T, d, [1]), v),
        [X34, np.array(3.0)],
    ),
    (
        "index_put_acc",
        lambda T, d, x, v: x.index_put((_i(T, d, [0, 0]), _i(T, d, [1, 1])), v, accumulate=True),
        [X34, RNG.standard_normal(2)],
    ),
    (
        "masked_fill",
        lambda T, d, x: x.masked_fill(_b(T, d, [True, False, True, False]), 0.5),
        [X34],
    ),
    (
        "masked_fill_tensor",
        lambda T, d, x, v: x.masked_fill(_b(T, d, X34 > 0), v),
        [X34, np.array(2.0)],
    ),
    (
        "masked_fill_bigger_mask",
        lambda T, d, x: x.masked_fill(_b(T, d, np.ones((2, 3, 4))), 1.0),
        [X34],
    ),
    ("masked_select", lambda T, d, x: x.masked_select(_b(T, d, X34 > 0)), [X34]),
    (
        "masked_select_bcast",
        lambda T, d, x: T.masked_select(x, _b(T, d, [True, False, True, True])),
        [X34],
    ),
    (
        "masked_scatter",
        lambda T, d, x, s: x.masked_scatter(_b(T, d, X34 > 0), s),
        [X34, RNG.standard_normal((4, 4))],
    ),
    ("take", lambda T, d, x: T.take(x, _i(T, d, [[0, 11], [-1, 5]])), [X34]),
    (
        "put_acc",
        lambda T, d, x, s: x.put(_i(T, d, [0, 5, 5]), s, accumulate=True),
        [X34, RNG.standard_normal(3)],
    ),
    ("put", lambda T, d, x, s: x.put(_i(T, d, [[0, 5]]), s), [X34, RNG.standard_normal((1, 2))]),
    ("sort", lambda T, d, x: tuple(T.sort(x)), [TIES]),
    ("sort_desc_dim0", lambda T, d, x: tuple(T.sort(x, 0, descending=True)), [TIES]),
    ("sort_stable_kw", lambda T, d, x: tuple(x.sort(stable=True, dim=1)), [TIES]),
    ("argsort", lambda T, d, x: T.argsort(x, dim=1, descending=True, stable=True), [TIES]),
    ("msort", lambda T, d, x: T.msort(x), [TIES]),
    ("topk", lambda T, d, x: tuple(T.topk(x, 2)), [X34]),  # torch breaks ties arbitrarily
    ("topk_smallest_dim0", lambda T, d, x: tuple(x.topk(2, dim=0, largest=False)), [X34]),
    ("kthvalue", lambda T, d, x: tuple(T.kthvalue(x, 2)), [X34]),
    ("kthvalue_keepdim", lambda T, d, x: tuple(x.kthvalue(3, 0, keepdim=True)), [X34]),
    ("sort_0d", lambda T, d, x: tuple(T.sort(x)), [np.array(2.0)]),
    (
        "scatter_reduce_sum",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 2, 2]), s, "sum"),
        [RNG.standard_normal(3), RNG.standard_normal(4)],
    ),
    (
        "scatter_reduce_sum_noself",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 2]), s, "sum", include_self=False),
        [RNG.standard_normal(3), RNG.standard_normal(3)],
    ),
    (
        "scatter_reduce_mean",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 2]), s, "mean"),
        [RNG.standard_normal(3), RNG.standard_normal(3)],
    ),
    (
        "scatter_reduce_mean_noself",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 2]), s, "mean", include_self=False),
        [RNG.standard_normal(3), RNG.standard_normal(3)],
    ),
    (
        "scatter_reduce_amax",
        lambda T, d, x, s: x.scatter_reduce(1, _i(T, d, [[0, 0, 1]] * 2), s, "amax"),
        [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))],
    ),
    (
        "scatter_reduce_amin_noself",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [1, 1, 1]), s, "amin", include_self=False),
        [RNG.standard_normal(3), RNG.standard_normal(3)],
    ),
    (
        "scatter_reduce_amax_ties",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 1]), s, "amax"),
        [np.array([1.0, 5.0]), np.array([1.0, 1.0, 2.0])],
    ),
    (
        "scatter_reduce_prod",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 1, 2]), s, "prod"),
        [RNG.standard_normal(3), RNG.standard_normal(4)],
    ),
    (
        "scatter_reduce_prod_noself",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 1]), s, "prod", include_self=False),
        [RNG.standard_normal(3), RNG.standard_normal(3)],
    ),
    (
        "scatter_reduce_prod_zeros",
        lambda T, d, x, s: x.scatter_reduce(0, _i(T, d, [0, 0, 1, 1]), s, "prod"),
        [np.array([2.0, 0.0, 3.0]), np.array([0.0, 4.0, 0.5, 2.0])],
    ),
]


def _np_out(o):
    return o.detach().cpu().numpy() if hasattr(o, "detach") else o


def _as_tuple(o):
    return o if isinstance(o, tuple) else (o,)


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_match_torch(device, name, fn, inputs):
    for dt in (np.float64, np.float32):
        arrs = [np.asarray(a, dtype=dt) for a in inputs]
        expected = _as_tuple(fn(torch, "cpu", *[_mk(torch, "cpu", a) for a in arrs]))
        got = _as_tuple(fn(mt, device, *[_mk(mt, device, a) for a in arrs]))
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert g.dtype.name == str(e.dtype).replace("torch.", ""), name
            assert tuple(g.shape) == tuple(e.shape), name
            np.testing.assert_allclose(_np_out(g), _np_out(e), rtol=1e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch(device, name, fn, inputs):
    arrs = [np.asarray(a, dtype=np.float64) for a in inputs]
    tin = [_mk(torch, "cpu", a, grad=True) for a in arrs]
    min_ = [_mk(mt, device, a, grad=True) for a in arrs]
    tout = _as_tuple(fn(torch, "cpu", *tin))[0]
    mout = _as_tuple(fn(mt, device, *min_))[0]
    assert (mout.grad_fn is None) == (tout.grad_fn is None), name
    if tout.grad_fn is None:
        return
    w = RNG.standard_normal(tuple(tout.shape))
    try:
        tg = torch.autograd.grad((tout * torch.from_numpy(w)).sum(), tin)
    except RuntimeError:  # torch's scatter backward refuses a src bigger than index
        check_grads(lambda *xs: _as_tuple(fn(mt, device, *xs))[0], inputs, device)
        return
    mg = mt.autograd.grad((mout * mt.tensor(w, device=device)).sum(), min_)
    for g, e in zip(mg, tg, strict=True):
        np.testing.assert_allclose(_np_out(g), e.numpy(), rtol=1e-7, atol=1e-10, err_msg=name)


SECOND_ORDER = [
    "gather_dim1", "scatter_src", "scatter_add_dups", "index_select", "index_add_dups",
    "index_copy", "index_fill_tensor_value", "masked_fill_tensor", "masked_select",
    "masked_scatter", "take", "put_acc", "sort", "topk", "kthvalue", "scatter_reduce_mean",
    "scatter_reduce_amax", "scatter_reduce_prod", "scatter_reduce_prod_zeros",
]  # fmt: skip


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives(device, name):
    fn, inputs = next((c[1], c[2]) for c in CASES if c[0] == name)
    if inputs[0] is TIES:
        inputs = [X34]  # finite differences need distinct values
    check_grads(lambda *xs: _as_tuple(fn(mt, device, *xs))[0], inputs, device)


def test_grad_fn_names_match_torch():
    names = [
        "gather_dim1",
        "scatter_src",
        "scatter_add_dups",
        "index_select",
        "index_add_dups",
        "index_copy",
        "index_fill",
        "masked_fill",
        "take",
        "put_acc",
        "sort",
        "topk",
        "kthvalue",
    ]
    for name in names:
        fn, inputs = next((c[1], c[2]) for c in CASES if c[0] == name)
        tout = _as_tuple(fn(torch, "cpu", *[_mk(torch, "cpu", a, True) for a in inputs]))[0]
        mout = _as_tuple(fn(mt, "cpu", *[_mk(mt, "cpu", a, True) for a in inputs]))[0]
        assert type(mout.grad_fn).__name__ == tout.grad_fn.name(), name


# --- in-place variants ---

INPLACE = [
    ("scatter_", lambda T, d, x, s: x.scatter_(1, _i(T, d, [[0, 2]]), s[:1, :2])),
    ("scatter_add_", lambda T, d, x, s: x.scatter_add_(1, _i(T, d, [[0, 0]]), s[:1, :2])),
    (
        "scatter_reduce_",
        lambda T, d, x, s: x.scatter_reduce_(1, _i(T, d, [[0, 0]]), s[:1, :2], "amax"),
    ),
    ("index_add_", lambda T, d, x, s: x.index_add_(1, _i(T, d, [0, 0]), s[:3, :2])),
    ("index_copy_", lambda T, d, x, s: x.index_copy_(1, _i(T, d, [3, 0]), s[:3, :2])),
    ("index_fill_", lambda T, d, x, s: x.index_fill_(0, _i(T, d, [1]), s[0, 0])),
    ("masked_fill_", lambda T, d, x, s: x.masked_fill_(_b(T, d, X34 > 0), s[0, 0])),
    ("masked_scatter_", lambda T, d, x, s: x.masked_scatter_(_b(T, d, X34 > 0), s)),
    ("put_", lambda T, d, x, s: x.put_(_i(T, d, [1, 1]), s[0, :2], accumulate=True)),
    ("index_put_", lambda T, d, x, s: x.index_put_((_i(T, d, [1, 1]),), s[0, :4], True)),
]


@pytest.mark.parametrize("name,fn", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_variants(device, name, fn):
    s_np = RNG.standard_normal((4, 4))
    res = {}
    for T, d in ((torch, "cpu"), (mt, device)):
        leaf = _mk(T, d, X34, grad=True)
        s = _mk(T, d, s_np, grad=True)
        x = leaf * 1
        v0 = x._version
        out = fn(T, d, x, s)
        assert out is x
        assert x._version > v0
        (x * T.tensor(X34, device=d)).sum().backward()
        res[T] = (_np_out(x), _np_out(leaf.grad), _np_out(s.grad))
    for g, e in zip(res[mt], res[torch], strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7, err_msg=name)


def test_inplace_without_grad_writes_in_place(device):
    x = mt.zeros(3, 4, device=device)
    x.scatter_(1, _i(mt, device, [[1], [2], [3]]), 1.0)
    x.index_fill_(0, _i(mt, device, [0]), 2.0)
    x.masked_fill_(_b(mt, device, [True, False, False, False]), -1.0)
    assert x._version == 3
    np.testing.assert_array_equal(_np_out(x), [[-1, 2, 2, 2], [-1, 0, 1, 0], [-1, 0, 0, 1]])


# --- non-differentiable selections ---

INT = np.array([[3, 1, 1], [2, 3, 1], [3, 1, 1]])

NONDIFF = [
    ("nonzero", lambda T, d: T.nonzero(_i(T, d, [[0, 1], [2, 0]]))),
    ("nonzero_tuple", lambda T, d: T.nonzero(_i(T, d, [[0, 1], [2, 0]]), as_tuple=True)),
    ("nonzero_0d", lambda T, d: T.nonzero(_i(T, d, 3))),
    ("nonzero_0d_false", lambda T, d: T.nonzero(_i(T, d, 0))),
    ("nonzero_0d_tuple", lambda T, d: T.nonzero(_i(T, d, 3), as_tuple=True)),
    ("nonzero_empty", lambda T, d: T.nonzero(_mk(T, d, np.zeros((0, 3))))),
    ("argwhere", lambda T, d: T.argwhere(_b(T, d, INT > 1))),
    ("where_1arg", lambda T, d: T.where(_b(T, d, INT > 1))),
    ("unique", lambda T, d: T.unique(_i(T, d, INT))),
    ("unique_all", lambda T, d: T.unique(_i(T, d, INT), return_inverse=True, return_counts=True)),
    (
        "unique_dim",
        lambda T, d: T.unique(_i(T, d, INT), dim=0, return_inverse=True, return_counts=True),
    ),
    ("unique_dim1", lambda T, d: T.unique(_i(T, d, INT), dim=1, return_counts=True)),
    ("unique_float", lambda T, d: _mk(T, d, [2.0, -1.0, 2.0]).unique(return_inverse=True)),
    (
        "unique_consecutive",
        lambda T, d: T.unique_consecutive(
            _i(T, d, [3, 1, 1, 2, 2, 3]), return_inverse=True, return_counts=True
        ),
    ),
    (
        "unique_consecutive_2d",
        lambda T, d: T.unique_consecutive(_i(T, d, INT), return_inverse=True),
    ),
    (
        "unique_consecutive_dim",
        lambda T, d: T.unique_consecutive(
            _i(T, d, [[3, 1], [3, 1], [1, 2]]), dim=0, return_inverse=True, return_counts=True
        ),
    ),
    (
        "unique_consecutive_empty",
        lambda T, d: T.unique_consecutive(_i(T, d, np.zeros(0)), return_counts=True),
    ),
    (
        "searchsorted",
        lambda T, d: T.searchsorted(_i(T, d, [1, 3, 5, 7]), _i(T, d, [[3, 6], [0, 9]])),
    ),
    (
        "searchsorted_right",
        lambda T, d: T.searchsorted(_i(T, d, [1, 3, 5, 7]), _i(T, d, [3, 7]), right=True),
    ),
    (
        "searchsorted_side_int32",
        lambda T, d: T.searchsorted(
            _mk(T, d, [1.0, 3.0]), _mk(T, d, [3.0]), side="right", out_int32=True
        ),
    ),
    (
        "searchsorted_nd",
        lambda T, d: T.searchsorted(
            _i(T, d, [[1, 3, 5, 7], [2, 4, 6, 8]]), _i(T, d, [[3, 6], [0, 9]]), right=True
        ),
    ),
    ("searchsorted_scalar", lambda T, d: T.searchsorted(_i(T, d, [1, 3, 5, 7]), 3)),
    (
        "searchsorted_sorter",
        lambda T, d: T.searchsorted(
            _i(T, d, [5, 1, 7, 3]), _i(T, d, [4]), sorter=_i(T, d, [1, 3, 0, 2])
        ),
    ),
    ("bucketize", lambda T, d: T.bucketize(_i(T, d, [[3, 6], [0, 9]]), _i(T, d, [1, 3, 5, 7]))),
    (
        "bucketize_right",
        lambda T, d: T.bucketize(_mk(T, d, [3.0, 6.5]), _mk(T, d, [1.0, 3.0]), right=True),
    ),
    ("bincount", lambda T, d: T.bincount(_i(T, d, [1, 1, 3]))),
    ("bincount_minlength", lambda T, d: _i(T, d, [1, 1, 3]).bincount(minlength=6)),
    (
        "bincount_weights",
        lambda T, d: T.bincount(_i(T, d, [1, 1, 3]), _mk(T, d, np.float32([1, 2, 3]))),
    ),
    ("bincount_int_weights", lambda T, d: T.bincount(_i(T, d, [1, 1, 3]), _i(T, d, [1, 2, 3]))),
    ("bincount_empty", lambda T, d: T.bincount(_i(T, d, np.zeros(0)), minlength=2)),
    ("histc", lambda T, d: T.histc(_mk(T, d, np.float32([1, 2, 1])), bins=4, min=0, max=3)),
    ("histc_auto", lambda T, d: _mk(T, d, [1.0, 2.0, 1.0, 7.0]).histc(bins=4)),
    ("histc_outside", lambda T, d: T.histc(_mk(T, d, [-1.0, 0.0, 0.5, 1.0, 2.0]), 2, 0, 1)),
    ("histogram", lambda T, d: tuple(T.histogram(_mk(T, d, [1.0, 2.0, 1.0]), bins=4))),
    (
        "histogram_edges",
        lambda T, d: tuple(
            T.histogram(_mk(T, d, [1.0, 2.0, 1.0, 5.0]), _mk(T, d, [0.0, 1.5, 2.0, 4.0]))
        ),
    ),
    (
        "histogram_range_weight_density",
        lambda T, d: tuple(
            T.histogram(
                _mk(T, d, [1.0, 2.0, 1.0, 5.0]),
                3,
                range=(0.0, 3.0),
                weight=_mk(T, d, [1.0, 2.0, 0.5, 1.0]),
                density=True,
            )
        ),
    ),
    ("isin", lambda T, d: T.isin(_i(T, d, [[1, 2], [3, 4]]), _i(T, d, [2, 5, 4]))),
    ("isin_invert", lambda T, d: T.isin(_i(T, d, [1, 2, 3]), _i(T, d, [2]), invert=True)),
    ("isin_scalar_test", lambda T, d: T.isin(_i(T, d, [1, 2, 3]), 2)),
    ("isin_scalar_elements", lambda T, d: T.isin(2, _i(T, d, [1, 2, 3]))),
    ("argsort_bool", lambda T, d: T.argsort(_b(T, d, [True, False, True]), stable=True)),
    ("sort_nan", lambda T, d: tuple(T.sort(_mk(T, d, [1.0, np.nan, 2.0, 1.0])))),
    (
        "sort_nan_desc",
        lambda T, d: tuple(T.sort(_mk(T, d, [1.0, np.nan, 2.0, 1.0]), descending=True)),
    ),
    ("sort_int_desc", lambda T, d: tuple(T.sort(_i(T, d, INT), dim=0, descending=True))),
]


@pytest.mark.parametrize("name,fn", NONDIFF, ids=[c[0] for c in NONDIFF])
def test_nondifferentiable_match_torch(device, name, fn):
    expected = _as_tuple(fn(torch, "cpu"))
    got = _as_tuple(fn(mt, device))
    assert len(got) == len(expected), name
    for g, e in zip(got, expected, strict=True):
        assert g.dtype.name == str(e.dtype).replace("torch.", ""), name
        assert tuple(g.shape) == tuple(e.shape), name
        np.testing.assert_allclose(_np_out(g), _np_out(e), rtol=1e-6, err_msg=name)


def test_return_types_have_torch_fields():
    x = mt.tensor(TIES)
    assert type(x.sort()).__name__ == "sort"
    assert x.sort().values.shape == x.sort().indices.shape
    assert x.topk(2).indices.dtype is mt.int64
    assert x.kthvalue(1).values.shape == (3,)
    h = mt.histogram(mt.tensor([1.0, 2.0]), 2)
    assert h.hist.shape == (2,) and h.bin_edges.shape == (3,)


# --- errors ---


def _same_error(fn, exc=RuntimeError):
    with pytest.raises(exc) as e_torch:
        fn(torch)
    with pytest.raises(exc) as e_mt:
        fn(mt)
    assert str(e_mt.value) == str(e_torch.value)


def _x(T):
    return T.arange(12.0).reshape(3, 4)


ERRORS = [
    ("gather_oob", lambda T: _x(T).gather(1, T.tensor([[5]])), RuntimeError),
    ("gather_big_index", lambda T: _x(T).gather(1, T.zeros(4, 1, dtype=T.long)), RuntimeError),
    ("gather_rank", lambda T: _x(T).gather(1, T.zeros(4, dtype=T.long)), RuntimeError),
    ("gather_float_index", lambda T: _x(T).gather(1, T.zeros(3, 1)), RuntimeError),
    ("scatter_oob", lambda T: _x(T).scatter(1, T.tensor([[5]]), 1.0), RuntimeError),
    (
        "scatter_src_small",
        lambda T: _x(T).scatter(1, T.tensor([[0, 1]]), T.ones(1, 1)),
        RuntimeError,
    ),
    (
        "scatter_dtype",
        lambda T: _x(T).scatter(1, T.tensor([[0]]), T.ones(1, 1).double()),
        RuntimeError,
    ),
    (
        "scatter_bad_reduce",
        lambda T: _x(T).scatter(1, T.tensor([[0]]), 2.0, reduce="max"),
        RuntimeError,
    ),
    (
        "scatter_reduce_bad",
        lambda T: _x(T).scatter_reduce(1, T.tensor([[0]]), _x(T), "foo"),
        RuntimeError,
    ),
    ("index_select_2d", lambda T: _x(T).index_select(1, T.tensor([[0]])), IndexError),
    ("index_select_float", lambda T: _x(T).index_select(1, T.tensor([1.0])), RuntimeError),
    ("masked_fill_nonbool", lambda T: _x(T).masked_fill(T.tensor([1, 0, 1, 0]), 1.5), RuntimeError),
    (
        "masked_fill_1d_value",
        lambda T: _x(T).masked_fill(T.tensor([True] * 4), T.tensor([1.0])),
        RuntimeError,
    ),
    (
        "masked_scatter_short",
        lambda T: _x(T).masked_scatter(T.tensor([True] * 4), T.ones(2)),
        RuntimeError,
    ),
    ("take_oob", lambda T: T.take(_x(T), T.tensor([[0, 12]])), IndexError),
    ("topk_k", lambda T: T.topk(T.tensor([1.0, 2.0]), 3), RuntimeError),
    ("kthvalue_k", lambda T: T.kthvalue(_x(T), 5), RuntimeError),
    ("bincount_neg", lambda T: T.bincount(T.tensor([-1, 1])), RuntimeError),
    ("bincount_2d", lambda T: T.bincount(T.tensor([[1]])), RuntimeError),
    ("histc_int", lambda T: T.histc(T.tensor([1, 2])), NotImplementedError),
    ("bucketize_2d", lambda T: T.bucketize(T.tensor([1]), T.tensor([[1, 2]])), RuntimeError),
]


@pytest.mark.parametrize("name,fn,exc", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(name, fn, exc):
    _same_error(fn, exc)


def test_no_host_sync_for_gather_scatter_on_device():
    x = mt.randn(3, 4, device="strict", requires_grad=True)
    i = mt.tensor([[0, 0], [3, 1], [2, 2]], device="strict")
    m = mt.tensor([True, False, True, False], device="strict")
    with count_transfers() as c:
        y = x.gather(1, i).sum() + x.scatter_add(1, i, x[:, :2]).sum()
        y = y + x.index_select(0, i[:, 1]).sum() + x.masked_fill(m, 0.0).sum()
        y = y + x.masked_scatter(m, x).sum() + x.scatter_reduce(1, i, x, "amax").sum()
        y = y + mt.sort(x).values.sum() + x.topk(2).values.sum() + mt.take(x, i).sum()
        y.backward()
    assert c.count == 0


def test_out_of_range_index_error_classes_are_torchs():
    """torch raises RuntimeError for index_add and IndexError for index_select/fill/copy."""
    x = mt.zeros(2, 3)
    i = mt.tensor([5])
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0"):
        x.index_add(0, i, mt.ones(1, 3))
    with pytest.raises(IndexError):
        x.index_select(0, i)
    with pytest.raises(IndexError):
        x.index_fill(0, i, 1.0)
    with pytest.raises(IndexError):
        x.index_copy(0, i, mt.ones(1, 3))
    with pytest.raises(IndexError):  # a vector's index_add: IndexError in torch
        mt.zeros(6).index_add(0, mt.tensor([6]), mt.ones(1))


@pytest.mark.parametrize(
    "name, call, exc",
    [
        ("index_select", lambda x, i: x.index_select(0, i), IndexError),
        ("gather", lambda x, i: x.gather(0, i), RuntimeError),
        ("scatter", lambda x, i: x.scatter(0, i, mt.tensor([9.0])), RuntimeError),
        ("scatter_add", lambda x, i: x.scatter_add(0, i, mt.tensor([9.0])), RuntimeError),
        ("scatter_reduce", lambda x, i: x.scatter_reduce(0, i, mt.tensor([9.0]), "sum"),
         RuntimeError),
        ("index_add", lambda x, i: x.index_add(0, i, mt.tensor([9.0])), IndexError),
        ("index_copy", lambda x, i: x.index_copy(0, i, mt.tensor([9.0])), IndexError),
        ("index_reduce", lambda x, i: x.index_reduce(0, i, mt.tensor([9.0]), "prod"), IndexError),
        ("take_along_dim", lambda x, i: mt.take_along_dim(x, i), RuntimeError),
    ],
)
def test_negative_indices_are_refused_as_in_torch(name, call, exc):
    # these read or wrote the last element before (NumPy's wrap-around)
    with pytest.raises(exc):
        call(mt.arange(6.0), mt.tensor([-1]))


def test_negative_indices_that_torch_wraps():
    x = mt.arange(6.0)
    i = mt.tensor([-1])
    assert x.index_fill(0, i, 9.0).tolist() == [0, 1, 2, 3, 4, 9]
    assert x.take(i).tolist() == [5.0] and x.put(i, mt.tensor([9.0])).tolist()[-1] == 9.0
    # take_along_dim along a dim wraps first, as torch
    assert mt.take_along_dim(x.view(2, 3), mt.tensor([[-1]]), 1).tolist() == [[2.0], [5.0]]


def test_zero_dim_index_of_a_vector():
    # the tutorials' one-hot: zeros(10).scatter_(0, tensor(y), value=1)
    assert mt.zeros(5).scatter_(0, mt.tensor(3), value=1).tolist() == [0, 0, 0, 1, 0]
    assert mt.zeros(5).scatter(0, mt.tensor(1), mt.tensor(2.0)).tolist() == [0, 2, 0, 0, 0]
    assert mt.zeros(5).scatter_add(0, mt.tensor(1), mt.tensor(2.0)).tolist()[1] == 2.0
    x = mt.arange(5.0, requires_grad=True)
    g = x.gather(0, mt.tensor(2))
    assert g.shape == () and g.item() == 2.0
    g.backward()
    assert x.grad.tolist() == [0, 0, 1, 0, 0]


def test_index_count_mismatch_is_named():
    x = mt.zeros(5, 4)
    with pytest.raises(RuntimeError, match=r"Number of indices \(2\) should be equal to "):
        x.index_add_(0, mt.tensor([0, 1]), mt.ones(5, 4))
    with pytest.raises(IndexError, match=r"Number of indices \(2\) should be equal to "):
        x.index_copy_(0, mt.tensor([0, 1]), mt.ones(5, 4))
