"""The linear-algebra, scatter and copy-variant ops of issue 3 against PyTorch: errors (type and
message) on bad input, warnings, return types, geqrf/LU outputs. Values and gradients of the same
ops are compared through their op-table rows (tests/ops/specs_*.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _pair(a, dtype=np.float64):
    a = np.asarray(a, dtype=dtype)
    return mt.tensor(a), torch.tensor(a)


def _rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(dtype)


def _i(values, dtype=np.int64):
    return np.asarray(values, dtype=dtype)


# Each case builds the call for a library T from NumPy inputs (converted per library).
BAD = {
    "addr_vec1_2d": lambda T: T.addr(_t(T, _rand(2, 3)), _t(T, _rand(2, 1)), _t(T, _rand(3))),
    "addr_int_float_beta": lambda T: T.addr(
        _t(T, _i([[1, 2]])), _t(T, _i([1])), _t(T, _i([1, 2])), beta=2.5
    ),
    "cross_no_size3": lambda T: T.cross(_t(T, _rand(2, 4)), _t(T, _rand(2, 4))),
    "linalg_cross_length": lambda T: T.linalg.cross(_t(T, _rand(2, 4)), _t(T, _rand(2, 4))),
    "linalg_cross_ndim": lambda T: T.linalg.cross(_t(T, _rand(2, 3)), _t(T, _rand(5, 1, 3))),
    "linalg_cross_dim0": lambda T: T.linalg.cross(_t(T, _rand(2, 3)), _t(T, _rand(2, 3)), dim=0),
    "dist_int": lambda T: T.dist(_t(T, _i([1, 2])), _t(T, _i([1, 3]))),
    "renorm_p": lambda T: T.renorm(_t(T, _rand(3, 4)), -1, 0, 1.0),
    "renorm_maxnorm": lambda T: T.renorm(_t(T, _rand(3, 4)), 2, 0, -1.0),
    "renorm_1d": lambda T: T.renorm(_t(T, _rand(3)), 2, 0, 1.0),
    "cdist_1d": lambda T: T.cdist(_t(T, _rand(3)), _t(T, _rand(3))),
    "cdist_columns": lambda T: T.cdist(_t(T, _rand(2, 3)), _t(T, _rand(4, 4))),
    "cdist_negative_p": lambda T: T.cdist(_t(T, _rand(2, 3)), _t(T, _rand(4, 3)), p=-1),
    "cdist_int": lambda T: T.cdist(_t(T, _i([[1, 2]])), _t(T, _i([[1, 2]]))),
    "cdist_mode": lambda T: T.cdist(_t(T, _rand(2, 3)), _t(T, _rand(4, 3)), compute_mode="x"),
    "cov_3d": lambda T: T.cov(_t(T, _rand(2, 3, 4))),
    "cov_float_fweights": lambda T: T.cov(_t(T, _rand(2, 3)), fweights=_t(T, _rand(3))),
    "cov_int_aweights": lambda T: T.cov(_t(T, _rand(2, 3)), aweights=_t(T, _i([1, 2, 3]))),
    "cov_aweights_numel": lambda T: T.cov(_t(T, _rand(2, 3)), aweights=_t(T, _rand(2))),
    "corrcoef_3d": lambda T: T.corrcoef(_t(T, _rand(2, 3, 4))),
    "block_diag_3d": lambda T: T.block_diag(_t(T, _rand(2, 2, 2))),
    "vander_2d": lambda T: T.vander(_t(T, _rand(2, 3))),
    "vander_negative_n": lambda T: T.vander(_t(T, _rand(3)), N=-1),
    "linalg_vander_n1": lambda T: T.linalg.vander(_t(T, _rand(3)), N=1),
    "chain_matmul_empty": lambda T: T.chain_matmul(),
    "chain_matmul_1d": lambda T: T.chain_matmul(_t(T, _rand(2, 3)), _t(T, _rand(3))),
    "multi_dot_one": lambda T: T.linalg.multi_dot([_t(T, _rand(3))]),
    "multi_dot_first_3d": lambda T: T.linalg.multi_dot([_t(T, _rand(3, 2, 3)), _t(T, _rand(3))]),
    "multi_dot_middle_1d": lambda T: T.linalg.multi_dot(
        [_t(T, _rand(3, 3)), _t(T, _rand(3)), _t(T, _rand(3, 3))]
    ),
    "multi_dot_shapes": lambda T: T.linalg.multi_dot([_t(T, _rand(3, 3)), _t(T, _rand(4, 3))]),
    "multi_dot_dtypes": lambda T: T.linalg.multi_dot(
        [_t(T, _rand(3, 3, dtype=np.float32)), _t(T, _rand(3, 3))]
    ),
    "tensorinv_ind0": lambda T: T.linalg.tensorinv(_t(T, _rand(4, 6, 2, 3)), ind=0),
    "tensorinv_shape": lambda T: T.linalg.tensorinv(_t(T, _rand(4, 6, 2, 3)), ind=2),
    "tensorsolve_shape": lambda T: T.linalg.tensorsolve(_t(T, _rand(2, 3, 5)), _t(T, _rand(2, 3))),
    "lu_solve_b_1d": lambda T: T.linalg.lu_solve(
        _t(T, _rand(3, 3)), _t(T, _i([1, 2, 3], np.int32)), _t(T, _rand(3))
    ),
    "lu_solve_right_shape": lambda T: T.linalg.lu_solve(
        _t(T, _rand(3, 3)), _t(T, _i([1, 2, 3], np.int32)), _t(T, _rand(3, 2)), left=False
    ),
    "lu_factor_ex_check_errors": lambda T: T.linalg.lu_factor_ex(
        _t(T, np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])), check_errors=True
    ),
    "householder_wide": lambda T: T.linalg.householder_product(_t(T, _rand(3, 4)), _t(T, _rand(2))),
    "householder_tau_long": lambda T: T.linalg.householder_product(
        _t(T, _rand(4, 3)), _t(T, _rand(4))
    ),
    "householder_1d": lambda T: T.linalg.householder_product(_t(T, _rand(4)), _t(T, _rand(4))),
    "householder_tau_ndim": lambda T: T.linalg.householder_product(
        _t(T, _rand(2, 4, 3)), _t(T, _rand(3))
    ),
    "select_scatter_size": lambda T: T.select_scatter(_t(T, _rand(3, 4)), _t(T, _rand(4)), 1, 0),
    "select_scatter_index": lambda T: T.select_scatter(_t(T, _rand(3, 4)), _t(T, _rand(4)), 0, 5),
    "slice_scatter_size": lambda T: T.slice_scatter(
        _t(T, _rand(3, 4)), _t(T, _rand(3, 3)), 1, 0, 4, 2
    ),
    "diagonal_scatter_size": lambda T: T.diagonal_scatter(_t(T, _rand(3, 4)), _t(T, _rand(4))),
    "as_strided_scatter_size": lambda T: T.as_strided_scatter(
        _t(T, _rand(3, 4)), _t(T, _rand(3, 2)), (2, 2), (1, 2), 1
    ),
    "index_reduce_sum": lambda T: _t(T, _rand(3, 3)).index_reduce(
        0, _t(T, _i([0, 2, 0, 0])), _t(T, _rand(4, 3)), "sum"
    ),
    "index_reduce_count": lambda T: _t(T, _rand(3, 3)).index_reduce(
        0, _t(T, _i([0, 2, 0])), _t(T, _rand(4, 3)), "prod"
    ),
    "index_reduce_float_index": lambda T: _t(T, _rand(3, 3)).index_reduce(
        0, _t(T, _rand(4)), _t(T, _rand(4, 3)), "prod"
    ),
    "index_reduce_2d_index": lambda T: _t(T, _rand(3, 3)).index_reduce(
        0, _t(T, _i([[0, 2], [0, 0]])), _t(T, _rand(4, 3)), "prod"
    ),
    "index_reduce_dtypes": lambda T: _t(T, _rand(3, 3)).index_reduce(
        0, _t(T, _i([0, 2, 0, 0])), _t(T, _rand(4, 3, dtype=np.float32)), "prod"
    ),
    "removed_eig": lambda T: T.eig(_t(T, _rand(3, 3))),
    "removed_symeig": lambda T: _t(T, _rand(3, 3)).symeig(),
    "removed_solve": lambda T: T.solve(_t(T, _rand(3, 3)), _t(T, _rand(3, 3))),
    "removed_lstsq": lambda T: _t(T, _rand(3, 3)).lstsq(_t(T, _rand(3, 3))),
    "removed_matrix_rank": lambda T: T.matrix_rank(_t(T, _rand(3, 3))),
}


def _t(T, a):
    return T.tensor(a)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_matches_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            BAD[case](torch)
        with pytest.raises(Exception) as ours:
            BAD[case](mt)
    assert type(ours.value).__name__ == type(theirs.value).__name__, (ours.value, theirs.value)
    # torch appends C++ context to some messages; the sentence itself must agree.
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


def test_cross_without_dim_warns_and_picks_first_size3_dim(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once
    a, b = _rand(3, 2, seed=1), _rand(3, 2, seed=2)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        ours = mt.cross(mt.tensor(a), mt.tensor(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


def test_cov_zero_degrees_of_freedom_warns_like_torch():
    a = _rand(2, 1)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        ours = mt.cov(mt.tensor(a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.cov(torch.tensor(a))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("shape", [(1, 5), (5,), (), (3, 1)])
def test_cov_and_corrcoef_shapes(shape):
    a = _rand(*shape, seed=3)
    for name in ("cov", "corrcoef"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = getattr(mt, name)(mt.tensor(a)), getattr(torch, name)(torch.tensor(a))
        assert tuple(ours.shape) == tuple(theirs.shape), name
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, err_msg=name)


def test_cov_and_corrcoef_of_integers_are_float():
    a = _i([[1, 2, 4], [3, 1, 0]])
    for name in ("cov", "corrcoef"):
        ours, theirs = getattr(mt, name)(mt.tensor(a)), getattr(torch, name)(torch.tensor(a))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, err_msg=name)


def test_block_diag_empty_and_mixed_dtypes():
    assert tuple(mt.block_diag().shape) == tuple(torch.block_diag().shape)
    parts = [np.asarray(1), _rand(2), np.ones((2, 2), dtype=np.int64)]
    ours = mt.block_diag(*[mt.tensor(p) for p in parts])
    theirs = torch.block_diag(*[torch.tensor(p) for p in parts])
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def test_vander_integer_and_empty():
    x = _i([1, 2, 3])
    for kw in ({}, {"N": 0}, {"N": 5, "increasing": True}):
        ours, theirs = mt.vander(mt.tensor(x), **kw), torch.vander(torch.tensor(x), **kw)
        assert str(ours.dtype) == str(theirs.dtype), kw
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=str(kw))


def test_chain_matmul_warns_and_multiplies(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once
    mats = [_rand(2, 3, seed=1), _rand(3, 4, seed=2), _rand(4, 2, seed=3)]
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        ours = mt.chain_matmul(*[mt.tensor(m) for m in mats])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.chain_matmul(*[torch.tensor(m) for m in mats])
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_geqrf_matches_lapack_through_torch():
    a = _rand(2, 4, 3, seed=4)
    ours, theirs = mt.geqrf(mt.tensor(a)), torch.geqrf(torch.tensor(a))
    assert type(ours).__name__ == type(theirs).__name__ == "geqrf"
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), rtol=1e-10, atol=1e-12)
    q = mt.linalg.householder_product(ours.a, ours.tau)
    tq = torch.linalg.householder_product(theirs.a, theirs.tau)
    np.testing.assert_allclose(q.numpy(), tq.numpy(), rtol=1e-10, atol=1e-12)


def test_lu_functions_match_torch():
    a = _rand(2, 3, 3, seed=5)
    ours, theirs = mt.linalg.lu_factor_ex(mt.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))
    assert type(ours).__name__ == type(theirs).__name__
    for o, t in zip(ours, theirs, strict=True):
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tl = torch.lu(torch.tensor(a), get_infos=True)
    ml = mt.lu(mt.tensor(a), get_infos=True)
    assert len(ml) == len(tl) == 3
    np.testing.assert_array_equal(ml[1].numpy(), tl[1].numpy())
    assert len(mt.tensor(a).lu()) == len(torch.tensor(a).lu()) == 2


def test_solve_ex_return_type():
    a, b = _rand(3, 3, seed=6) + 2 * np.eye(3), _rand(3, seed=7)
    ours = mt.linalg.solve_ex(mt.tensor(a), mt.tensor(b))
    theirs = torch.linalg.solve_ex(torch.tensor(a), torch.tensor(b))
    assert type(ours).__name__ == type(theirs).__name__
    assert str(ours.info.dtype) == str(theirs.info.dtype)
    assert tuple(ours.info.shape) == tuple(theirs.info.shape)


def test_index_reduce_every_mode_matches_torch():
    x, s = _rand(3, 3, seed=8), _rand(4, 3, seed=9)
    idx = _i([0, 2, 0, 0])
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            ours = mt.tensor(x).index_reduce(
                0, mt.tensor(idx), mt.tensor(s), reduce, include_self=include_self
            )
            theirs = torch.tensor(x).index_reduce(
                0, torch.tensor(idx), torch.tensor(s), reduce, include_self=include_self
            )
            np.testing.assert_allclose(
                ours.numpy(), theirs.numpy(), rtol=1e-12, err_msg=f"{reduce} {include_self}"
            )


def test_as_strided_in_place_restrides():
    ours, theirs = mt.arange(6.0), torch.arange(6.0)
    r = ours.as_strided_((2, 2), (1, 2), 1)
    theirs.as_strided_((2, 2), (1, 2), 1)
    assert r is ours
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "a",
    [
        [[[4.0, 2, 0], [2, 1, 3], [0, 3, 5]], [[4.0, 0, 0], [0, 9, 0], [0, 0, 1]]],
        [[1.0, 2, 3, 4], [2, 1, 0, 0], [3, 0, 1, 0], [4, 0, 0, 1]],
        [[4.0, 2, 3, 4], [2, 5, 0, 0], [3, 0, 1, 0], [4, 0, 0, 1]],
        [[-1.0, 0], [0, 1]],
    ],
)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_reports_the_failing_minor_as_torch(a, upper):
    m, t = _pair(a)
    got, want = mt.linalg.cholesky_ex(m, upper=upper), torch.linalg.cholesky_ex(t, upper=upper)
    np.testing.assert_array_equal(got.info.numpy(), want.info.numpy(), err_msg="info")
    np.testing.assert_allclose(got.L.numpy(), want.L.numpy(), rtol=1e-12, err_msg="L")
    with pytest.raises(Exception) as e_torch:
        torch.linalg.cholesky_ex(t, check_errors=True)
    with pytest.raises(mt.linalg.LinAlgError) as e_mt:
        mt.linalg.cholesky_ex(m, check_errors=True)
    assert str(e_mt.value) == str(e_torch.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"p": "fro", "dim": [0, 1, 2]},
        {"p": "fro", "dim": [0, 1]},
        {"p": "fro", "dim": 1},
        {"p": "nuc", "dim": [0, 1, 2]},
        {"p": "nuc", "dim": [0, 1]},
        {"p": "nuc"},
        {"p": "fro"},
        {"p": 3, "dim": (0, 2), "keepdim": True},
    ],
    ids=repr,
)
def test_norm_chooses_vector_or_matrix_norm_as_torch(kwargs):
    m, t = _pair(np.arange(24.0).reshape(2, 3, 4))
    try:
        want = torch.norm(t, **kwargs)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            mt.norm(m, **kwargs)
        assert str(got.value) == str(e)
        return
    np.testing.assert_allclose(mt.norm(m, **kwargs).numpy(), want.numpy(), rtol=1e-12)
