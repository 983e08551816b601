"""Issue 3's linear-algebra, scatter and copy-variant ops beyond the op table: in-place
semantics, copies that own their memory, errors and warnings, return types, the removed
functions, devices (values and gradients are in specs_linalg*.py, specs_indexing.py,
specs_shape.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _t(a, device="cpu", requires_grad=False):
    return mt.tensor(np.asarray(a, dtype=np.float64), device=device, requires_grad=requires_grad)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


# --- in-place products ---


@pytest.mark.parametrize(
    "name, others",
    [
        ("addmm_", [(2, 3), (3, 4)]),
        ("addbmm_", [(5, 2, 3), (5, 3, 4)]),
        ("baddbmm_", [(1, 2, 3), (1, 3, 4)]),
        ("addr_", [(2,), (4,)]),
    ],
)
def test_inplace_products_write_self_and_bump_version(name, others):
    shape = (1, 2, 4) if name == "baddbmm_" else (2, 4)
    x = _t(_rand(*shape))
    args = [_t(_rand(*s, seed=i + 1)) for i, s in enumerate(others)]
    expected = getattr(mt, name[:-1])(x, *args, beta=0.5, alpha=2)
    version = x._version
    r = getattr(x, name)(*args, beta=0.5, alpha=2)
    assert r is x
    assert x._version == version + 1
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12, err_msg=name)


def test_addmv_function_and_method_are_in_place():
    x, m, v = _t(_rand(2)), _t(_rand(2, 3, seed=1)), _t(_rand(3, seed=2))
    expected = x.numpy() + m.numpy() @ v.numpy()
    assert mt.addmv_(x, m, v) is x
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-12)
    x.addmv_(m, v, beta=0)
    np.testing.assert_allclose(x.numpy(), m.numpy() @ v.numpy(), rtol=1e-12)


def test_inplace_product_on_leaf_requiring_grad_raises():
    x = _t(_rand(2, 4), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.addmm_(_t(_rand(2, 3)), _t(_rand(3, 4)))


def test_inplace_product_on_non_leaf_keeps_gradients():
    a = _t(_rand(2, 4), requires_grad=True)
    m1 = _t(_rand(2, 3, seed=1), requires_grad=True)
    m2 = _t(_rand(3, 4, seed=2))
    y = a * 2
    y.addmm_(m1, m2, alpha=3)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((2, 4), 2.0))
    np.testing.assert_allclose(m1.grad.numpy(), 3 * np.ones((2, 4)) @ m2.numpy().T, rtol=1e-12)


def test_renorm_in_place_and_out_of_place_agree():
    x = _t(_rand(3, 4) * 3)
    y = x.renorm(2, 0, 1.0)
    norms = np.linalg.norm(y.numpy(), axis=1)
    assert np.all(norms <= 1.0 + 1e-6), norms
    assert x.renorm_(2, 0, 1.0) is x
    np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-12)


# --- copies and scatters ---


def test_copy_variants_own_their_memory():
    x = _t(_rand(2, 3))
    copies = [
        mt.view_copy(x, (3, 2)), mt.permute_copy(x, (1, 0)), mt.t_copy(x),
        mt.transpose_copy(x, 0, 1), mt.diagonal_copy(x), mt.expand_copy(x, (2, 2, 3)),
        mt.squeeze_copy(x), mt.unsqueeze_copy(x, 0), mt.select_copy(x, 1, 0),
        mt.slice_copy(x, 1, 0, 2), mt.unfold_copy(x, 1, 2, 1), mt.as_strided_copy(x, (2,), (1,)),
        mt.detach_copy(x), mt.alias_copy(x), mt.narrow_copy(x, 1, 0, 2), x.narrow_copy(0, 1, 1),
        *mt.split_copy(x, 1), *mt.split_with_sizes_copy(x, [1, 2], 1), *mt.unbind_copy(x),
    ]  # fmt: skip
    before = x.numpy().copy()
    for c in copies:
        c.fill_(7.0)
    np.testing.assert_array_equal(x.numpy(), before)


def test_copy_variants_write_out():
    x = _t(_rand(2, 3))
    out = mt.empty(0, dtype=mt.float64)
    r = mt.permute_copy(x, (1, 0), out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), x.numpy().T)


def test_scatters_do_not_touch_input():
    x = _t(np.zeros((3, 4)))
    r = mt.slice_scatter(x, _t(np.ones((3, 2))), 1, 0, 4, 2)
    np.testing.assert_array_equal(x.numpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(r.numpy(), np.tile([1.0, 0.0], (3, 2)))


def test_select_scatter_of_integers_keeps_dtype():
    x = mt.zeros((2, 3), dtype=mt.int64)
    r = x.select_scatter(mt.tensor([1, 2, 3]), 0, 1)
    assert r.dtype == mt.int64
    np.testing.assert_array_equal(r.numpy(), [[0, 0, 0], [1, 2, 3]])


def test_index_reduce_in_place():
    x = _t(np.full((3, 2), 2.0))
    s = _t([[1.0, 2.0], [3.0, 4.0]])
    assert x.index_reduce_(0, mt.tensor([2, 2]), s, "prod") is x
    np.testing.assert_array_equal(x.numpy(), [[2, 2], [2, 2], [6, 16]])


def test_index_reduce_bad_reduce():
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin"):
        _t(np.zeros((2, 2))).index_reduce(0, mt.tensor([0]), _t(np.ones((1, 2))), "sum")


def test_as_strided_in_place_keeps_the_tensor():
    x = mt.arange(6.0)
    assert x.as_strided_((2, 2), (1, 2), 1) is x
    np.testing.assert_array_equal(x.numpy(), [[1, 3], [2, 4]])


# --- linalg functions: errors, return types, removed names ---


def test_cross_without_dim_warns(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once per process
    a, b = _t(_rand(3, 2)), _t(_rand(3, 2, seed=1))
    with pytest.warns(UserWarning, match="without specifying the dim"):
        r = mt.cross(a, b)
    np.testing.assert_allclose(r.numpy(), np.cross(a.numpy(), b.numpy(), axis=0), rtol=1e-12)
    with pytest.raises(RuntimeError, match="no dimension of size 3"):
        with pytest.warns(UserWarning):
            mt.cross(_t(_rand(2, 4)), _t(_rand(2, 4)))


def test_linalg_cross_bad_length():
    with pytest.raises(RuntimeError, match=r"inputs dimension -1 must have length 3. Got 4 and 4"):
        mt.linalg.cross(_t(_rand(2, 4)), _t(_rand(2, 4)))


def test_chain_matmul_warns(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once per process
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        r = mt.chain_matmul(_t(np.eye(2)), _t([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(r.numpy(), [[1, 2], [3, 4]])


def test_multi_dot_errors():
    with pytest.raises(RuntimeError, match="expected at least 2 tensors but got 1"):
        mt.linalg.multi_dot([_t(_rand(3))])
    with pytest.raises(RuntimeError, match=r"tensors 0 and 1 with shapes \[3, 3\] and \[4, 3\]"):
        mt.linalg.multi_dot([_t(_rand(3, 3)), _t(_rand(4, 3))])


def test_cov_degrees_of_freedom_warning():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        r = mt.cov(_t(_rand(2, 1)))
    assert not np.isfinite(r.numpy()).any()


def test_trapezoid_scalar_dx_and_empty():
    y = _t([1.0, 2.0, 4.0])
    assert float(mt.trapezoid(y, 2.0)) == pytest.approx(9.0)
    assert float(mt.trapz(y, dx=0.5)) == pytest.approx(2.25)
    np.testing.assert_allclose(mt.cumulative_trapezoid(y).numpy(), [1.5, 4.5])
    assert float(mt.trapezoid(_t(np.zeros(0)))) == 0.0


def test_frobenius_and_nuclear_norm():
    a = _rand(3, 4)
    assert float(mt.frobenius_norm(_t(a))) == pytest.approx(np.linalg.norm(a))
    assert float(mt.nuclear_norm(_t(a))) == pytest.approx(np.linalg.norm(a, "nuc"))
    assert tuple(mt.nuclear_norm(_t(a), keepdim=True).shape) == (1, 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: mt.eig(_t(np.eye(2))),
        lambda: mt.symeig(_t(np.eye(2))),
        lambda: mt.solve(_t(np.eye(2)), _t(np.eye(2))),
        lambda: mt.lstsq(_t(np.eye(2)), _t(np.eye(2))),
        lambda: mt.matrix_rank(_t(np.eye(2))),
        lambda: _t(np.eye(2)).eig(),
        lambda: _t(np.eye(2)).symeig(eigenvectors=True),
        lambda: _t(np.eye(2)).solve(_t(np.eye(2))),
        lambda: _t(np.eye(2)).lstsq(_t(np.eye(2))),
    ],
)
def test_removed_functions_raise(call):
    with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
        call()


def test_eigvals_refused_like_eig():
    with pytest.raises(NotImplementedError, match="linalg.eigvals: complex tensors"):
        mt.linalg.eigvals(_t(np.eye(2)))


def test_lu_factor_ex_reports_a_zero_pivot(monkeypatch):
    # torch.lu's deprecation warning comes once per process; warn_always shows it every time
    monkeypatch.setitem(mt._settings._state, "warn_always", True)
    a = _t([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    lu, piv, info = mt.linalg.lu_factor_ex(a)
    assert info.dtype == mt.int32 and piv.dtype == mt.int32
    np.testing.assert_array_equal(info.numpy(), [2, 0])
    with pytest.raises(RuntimeError, match=r"\(Batch element 0\): U\[2,2\] is zero"):
        mt.linalg.lu_factor_ex(a, check_errors=True)
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        lu2, piv2, info2 = mt.lu(a, get_infos=True)
        assert len(a.lu()) == 2
    np.testing.assert_array_equal(info2.numpy(), info.numpy())


def test_lu_solve_round_trip_and_method():
    a, b = _t(_rand(3, 3) + 2 * np.eye(3)), _t(_rand(3, 2, seed=1))
    lu, piv = mt.linalg.lu_factor(a)
    x = mt.linalg.lu_solve(lu, piv, b)
    np.testing.assert_allclose((a @ x).numpy(), b.numpy(), atol=1e-12)
    np.testing.assert_allclose(b.lu_solve(lu, piv).numpy(), x.numpy(), atol=1e-12)


def test_solve_ex_info():
    r = mt.linalg.solve_ex(_t(np.eye(3)), _t(np.ones(3)))
    assert r.info.dtype == mt.int32 and r.info.shape == ()
    np.testing.assert_array_equal(r.result.numpy(), np.ones(3))


def test_geqrf_round_trip_and_no_derivative():
    a = _t(_rand(4, 3))
    g = mt.geqrf(a)
    q = mt.linalg.householder_product(g.a, g.tau)
    np.testing.assert_allclose((q @ g.a.triu()[:3]).numpy(), a.numpy(), atol=1e-12)
    q_full = mt.ormqr(g.a, g.tau, _t(np.eye(4)))
    np.testing.assert_allclose((q_full.T @ q_full).numpy(), np.eye(4), atol=1e-12)
    g = mt.geqrf(_t(_rand(3, 3), requires_grad=True))  # as torch: GeqrfBackward0 raises
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        g.a.sum().backward()


def test_tensorinv_round_trip():
    a = _t((_rand(6, 6) + 3 * np.eye(6)).reshape(6, 2, 3))
    ainv = mt.linalg.tensorinv(a, ind=1)
    assert tuple(ainv.shape) == (2, 3, 6)
    np.testing.assert_allclose(mt.tensordot(a, ainv, 2).numpy(), np.eye(6), atol=1e-12)


def test_cdist_zero_distance_has_zero_gradient():
    x = _t(_rand(3, 2), requires_grad=True)
    mt.cdist(x, x).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


# --- devices: no hidden host reads ---


def test_composed_ops_on_every_device(device):
    a = _t(_rand(3, 4), device)
    lu, piv = mt.linalg.lu_factor(_t(_rand(3, 3) + 2 * np.eye(3), device))
    results = [
        mt.addr(a, _t(_rand(3), device), _t(_rand(4), device)),
        mt.cov(a, aweights=_t(np.ones(4), device)), mt.corrcoef(a), mt.cdist(a, a),
        mt.block_diag(a, _t(_rand(2), device)), mt.vander(_t(_rand(3), device)),
        mt.linalg.multi_dot([_t(_rand(4), device), a.T, _t(_rand(3), device)]),
        mt.trapezoid(a, _t(_rand(4), device)), mt.renorm(a, 2, 0, 1.0), mt.dist(a, a),
        mt.linalg.lu_solve(lu, piv, _t(_rand(3, 2), device)),
        mt.linalg.householder_product(a.T, _t(_rand(3), device)),
        mt.index_reduce(a, 0, mt.tensor([2, 0], device=device), a[:2], "amax"),
        mt.diagonal_scatter(a, _t(_rand(3), device)), mt.geqrf(a).a,
    ]  # fmt: skip
    for r in results:
        assert r.device == a.device


def test_lu_factor_gradient_of_non_square():
    # (values and gradchecks: tests/ops/test_linalg_sweep2.py)
    a = _t(_rand(4, 3), requires_grad=True)
    lu, _ = mt.linalg.lu_factor(a)
    assert lu.grad_fn is not None and type(lu.grad_fn).__name__ == "LinalgLuFactorExBackward0"
    lu.sum().backward()
    assert a.grad.shape == (4, 3) and np.isfinite(a.grad.numpy()).all()


def test_cholesky_ex_info_without_raising():
    a = mt.tensor(
        [[[4.0, 2, 0], [2, 1, 3], [0, 3, 5]], [[4.0, 0, 0], [0, 9, 0], [0, 0, 1]]], dtype=mt.float64
    )
    low, info = mt.linalg.cholesky_ex(a)
    assert info.tolist() == [2, 0] and info.dtype == mt.int32
    # batch element 1 is factored; element 0 holds the first column and the failing pivot 1 - 1
    np.testing.assert_allclose(low[1].numpy(), np.diag([2.0, 3.0, 1.0]))
    np.testing.assert_allclose(low[0].numpy(), [[2.0, 0, 0], [1, 0, 0], [0, 3, 5]])
    good = a[1].requires_grad_()
    low, info = mt.linalg.cholesky_ex(good)
    assert int(info) == 0 and low.grad_fn is not None
    with pytest.raises(mt.linalg.LinAlgError, match="leading minor of order 2"):
        mt.linalg.cholesky_ex(a, check_errors=True)


def test_einsum_sublist_form():
    a = mt.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    b = mt.tensor(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(
        mt.einsum(a, [0, 1], b, [1, 2], [0, 2]).detach().numpy(), (a @ b).detach().numpy()
    )
    assert mt.einsum(a, [0, 1], b, [1, 2]).shape == (2, 4)  # implicit output
    assert mt.einsum(a, [Ellipsis, 1], [Ellipsis]).tolist() == [3.0, 12.0]
    assert mt.einsum(a, [27, 1], [1]).tolist() == [3.0, 5.0, 7.0]  # 26-51: a-z
    mt.einsum(a, [0, 1], [1]).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match="range"):
        mt.einsum(a, [0, 52])


def test_cov_refuses_negative_weights_and_promotes_to_the_weights_dtype():
    x = mt.tensor([[1.0, 2.0, 4.0, 7.0], [0.0, 1.0, 0.0, 3.0]])
    with pytest.raises(RuntimeError, match="fweights cannot be negative"):
        mt.cov(x, fweights=mt.tensor([1, -1, 2, 1]))
    with pytest.raises(RuntimeError, match="aweights cannot be negative"):
        mt.cov(x, aweights=mt.tensor([-0.5, 1.0, 1.0, 2.0]))
    aw = mt.tensor([0.5, 1.0, 1.0, 2.0], dtype=mt.float64)
    assert mt.cov(x, aweights=aw).dtype is mt.float64
