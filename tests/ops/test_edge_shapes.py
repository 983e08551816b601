"""Empty, zero-dimensional and integer/bool inputs where minitorch once differed from torch (found
by tests/reference/test_edge_shapes_reference.py); torch's answers written out, so these run
without torch."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

# --- empty tensors ---


@pytest.mark.parametrize("op", ["add_", "mul_", "abs_", "zero_", "clamp_"])
def test_inplace_on_an_empty_tensor(op):
    # NumPy may give an empty array zero strides: no element overlaps another
    x = mt.zeros(3, 0)
    args = {"add_": (1.0,), "mul_": (2.0,), "clamp_": (0.0,)}.get(op, ())
    assert getattr(x, op)(*args) is x
    assert tuple(x.shape) == (3, 0)


def test_inplace_on_an_expanded_tensor_still_raises():
    with pytest.raises(RuntimeError, match="single memory location"):
        mt.zeros(1, 3).expand(2, 3).add_(1.0)
    with pytest.raises(RuntimeError, match="single memory location"):
        mt.zeros(1, 3).expand(2, 3).copy_(mt.ones(2, 3))


def test_masked_fill_and_index_put_on_an_expanded_tensor_warn_and_write_the_selection():
    # torch deprecates these but still writes only the selected elements (an expanded causal
    # mask filled in place in Hugging Face-style code); they raised here
    m = mt.tensor([[True, False, False, False], [False, False, True, False]])
    base = mt.zeros(1, 4)
    with pytest.warns(UserWarning, match="masked_fill_ on expanded tensors is deprecated"):
        assert base.expand(2, 4).masked_fill_(m, -1.0).tolist() == [[-1.0, 0.0, -1.0, 0.0]] * 2
    assert base.tolist() == [[-1.0, 0.0, -1.0, 0.0]]
    base = mt.zeros(1, 4)
    with pytest.warns(UserWarning, match="index_put_ on expanded tensors is deprecated"):
        base.expand(2, 4).index_put_((m,), mt.tensor(2.0))
    assert base.tolist() == [[2.0, 0.0, 2.0, 0.0]]
    base = mt.zeros(1, 4)
    with pytest.warns(UserWarning, match="index_put_"):
        base.expand(3, 4).index_put_((mt.tensor([0, 2]),), mt.tensor(1.0), accumulate=True)
    assert base.tolist() == [[2.0, 2.0, 2.0, 2.0]]


def test_writes_through_an_expanded_tensor_reach_its_memory():
    # torch allows fill_, zero_ and setitem on repeated elements (one value per location), and
    # any in-place op on a slice of an expanded tensor that repeats nothing
    x = mt.zeros(3)
    e = x.expand(2, 3)
    e.fill_(1.0)
    assert x.tolist() == [1.0, 1.0, 1.0]
    e[0] = 5.0
    assert x.tolist() == [5.0, 5.0, 5.0]
    e[1] = mt.tensor([1.0, 2.0, 3.0])
    assert x.tolist() == [1.0, 2.0, 3.0] and e.tolist() == [[1.0, 2.0, 3.0]] * 2
    e[0].add_(1.0)
    assert x.tolist() == [2.0, 3.0, 4.0]
    y = mt.zeros(2, 1)
    f = y.expand(2, 3)
    f[:, 0] = mt.tensor([7.0, 8.0])
    assert y.tolist() == [[7.0], [8.0]]
    f.zero_()
    assert y.tolist() == [[0.0], [0.0]]


def test_aminmax_over_an_empty_named_dim_is_an_index_error():
    with pytest.raises(IndexError, match="aminmax"):
        mt.aminmax(mt.zeros(3, 0), dim=1)
    with pytest.raises(RuntimeError, match="aminmax"):
        mt.aminmax(mt.zeros(3, 0))
    lo, hi = mt.aminmax(mt.zeros(0, 3), dim=1)
    assert tuple(lo.shape) == tuple(hi.shape) == (0,)


def test_kthvalue_over_an_empty_dim_is_an_index_error():
    with pytest.raises(IndexError, match="kthvalue"):
        mt.kthvalue(mt.zeros(0, 3), 1, 0)
    with pytest.raises(RuntimeError, match="out of range"):
        mt.kthvalue(mt.zeros(2, 3), 4, 1)


def test_median_of_nothing_is_nan_and_keeps_the_graph():
    x = mt.zeros(0, 4, dtype=mt.float64, requires_grad=True)
    m = x.median()
    assert math.isnan(m.item()) and m.requires_grad
    m.backward()
    assert tuple(x.grad.shape) == (0, 4)
    assert math.isnan(mt.zeros(0).nanmedian().item())


@pytest.mark.parametrize(
    ("shape", "ord", "want"),
    [
        ((2, 3, 0), 1, (2,)),
        ((2, 0, 3), math.inf, (2,)),
        ((2, 3, 0), 2, (2,)),
        ((0, 3, 3), 1, (0,)),
        ((2, 0, 3), "nuc", (2,)),
    ],
)
def test_matrix_norm_of_empty_matrices_is_zero(shape, ord, want):
    r = mt.linalg.matrix_norm(mt.zeros(*shape), ord)
    assert tuple(r.shape) == want
    np.testing.assert_array_equal(r.numpy(), np.zeros(want))


@pytest.mark.parametrize(("shape", "ord"), [((2, 3, 0), -1), ((2, 0, 3), -math.inf)])
def test_matrix_norm_min_over_an_empty_dim_raises(shape, ord):
    with pytest.raises(IndexError):
        mt.linalg.matrix_norm(mt.zeros(*shape), ord)


@pytest.mark.parametrize("shape", [(2, 3, 0), (0, 3), (3, 0), (0, 0)])
def test_lu_of_empty_matrices(shape):
    a = mt.zeros(*shape, dtype=mt.float64, requires_grad=True)
    p, low, up = mt.linalg.lu(a)
    m, n = shape[-2:]
    k = min(m, n)
    assert tuple(p.shape)[-2:] == (m, m)
    assert tuple(low.shape)[-2:] == (m, k) and tuple(up.shape)[-2:] == (k, n)
    (low.sum() + up.sum()).backward()  # no "derivative for non-square" for an empty matrix
    assert tuple(a.grad.shape) == shape
    lu, piv = mt.linalg.lu_factor(mt.zeros(*shape))
    assert tuple(lu.shape) == shape and tuple(piv.shape) == shape[:-2] + (k,)


def test_geqrf_of_empty_rows():
    a, tau = mt.geqrf(mt.zeros(0, 3))
    assert tuple(a.shape) == (0, 3) and tuple(tau.shape) == (0,)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0)])
def test_cond_of_empty_matrices_is_zero(shape):
    assert mt.linalg.cond(mt.zeros(*shape)).item() == 0.0
    np.testing.assert_array_equal(mt.linalg.cond(mt.zeros(2, 0, 0)).numpy(), [0.0, 0.0])


def test_cholesky_factor_must_be_square():
    with pytest.raises(RuntimeError, match="cholesky_inverse: A must be batches of square"):
        mt.cholesky_inverse(mt.zeros(0, 3))
    with pytest.raises(RuntimeError, match="A must be batches of square"):
        mt.cholesky_solve(mt.zeros(0, 2), mt.zeros(0, 3))


def test_ormqr_checks_the_length_of_tau():
    with pytest.raises(RuntimeError, match="tau.shape"):
        mt.ormqr(mt.zeros(0, 3), mt.zeros(3), mt.zeros(0, 2))
    with pytest.raises(RuntimeError, match="tau.shape"):
        mt.ormqr(mt.randn(4, 3), mt.randn(2), mt.randn(4, 2))
    assert tuple(mt.ormqr(mt.zeros(0, 3), mt.zeros(0), mt.zeros(0, 2)).shape) == (0, 2)


# --- integer and bool inputs ---


def test_add_of_bools_with_alpha_stays_bool():
    a, b = mt.tensor([True, False, False]), mt.tensor([True, True, False])
    r = mt.add(a, b, alpha=2)
    assert r.dtype == mt.bool and r.tolist() == [True, True, False]
    assert mt.add(a, b, alpha=0).tolist() == [True, False, False]
    c = a.clone()
    assert c.add_(b, alpha=2) is c and c.tolist() == [True, True, False]


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, b: a - b,
        lambda a, b: a.clone().sub_(b),
        lambda a, b: 3.0 - a,
        lambda a, b: a - 1,
        lambda a, b: mt.tensor([1, 2, 3]) - a,
        lambda a, b: mt.rsub(a, 2),
    ],
)
def test_subtraction_with_a_bool_operand_raises(fn):
    a, b = mt.tensor([True, False, True]), mt.tensor([True, True, False])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator"):
        fn(a, b)


def test_addr_of_bools_is_logical():
    a = mt.tensor([[True, False], [False, False]])
    u, v = mt.tensor([True, False]), mt.tensor([True, True])
    for kw in ({}, {"beta": 2, "alpha": 3}, {"beta": 0}):
        r = mt.addr(a, u, v, **kw)
        assert r.dtype == mt.bool and r.tolist() == [[True, True], [False, False]], kw
    assert mt.addr(a, u, v, alpha=0).tolist() == [[True, False], [False, False]]
    with pytest.raises(RuntimeError, match="argument beta must not be a floating point"):
        mt.addr(a, u, v, beta=0.5)


def test_integer_pow_with_negative_exponents():
    base = mt.tensor([0, 1, -1, 2, -2, 3])
    for e, want in ((-1, [0, 1, -1, 0, 0, 0]), (-2, [0, 1, 1, 0, 0, 0])):
        r = base ** mt.tensor(e)
        assert r.dtype == mt.int64 and r.tolist() == want
    mixed = base ** mt.tensor([1, 2, 3, -1, -2, 2])
    assert mixed.tolist() == [0, 1, -1, 0, 0, 9]
    small = mt.tensor([0, 5], dtype=mt.int32) ** mt.tensor([-1, -1], dtype=mt.int32)
    assert small.dtype == mt.int32 and small.tolist() == [0, 0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda b: b**b,
        lambda b: mt.div(b, b, rounding_mode="floor"),
        lambda b: mt.div(b, b, rounding_mode="trunc"),
        lambda b: mt.floor_divide(b, b),
        lambda b: mt.remainder(b, b),
        lambda b: mt.clamp(b, b, b),
        lambda b: mt.median(b),
        lambda b: mt.median(b, 0),
        lambda b: mt.nanmedian(b),
        lambda b: mt.kthvalue(b, 1),
        lambda b: mt.zeros(3, dtype=mt.bool).scatter_reduce(0, mt.tensor([0, 1]), b, "mean"),
        lambda b: mt.zeros(3, dtype=mt.bool).index_reduce(
            0, mt.tensor([0, 1]), b, "amax", include_self=False
        ),
        lambda b: mt.einsum("i,i->", b, b),
    ],
)
def test_bool_kernels_torch_does_not_implement(fn):
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        fn(mt.tensor([True, False]))


@pytest.mark.parametrize(
    ("fn", "match"),
    [
        (lambda b: mt.topk(b, 1), "topk does not support bool"),
        (lambda b: mt.mvlgamma(b, 1), "may not be a boolean"),
        (lambda b: mt.cov(b), r"cov\(\): bool"),
        (lambda b: mt.corrcoef(b), r"cov\(\): bool"),
        (lambda b: mt.trapezoid(b), "trapezoid: received a bool input for `y`"),
        (lambda b: mt.cumulative_trapezoid(b), "received a bool input"),
        (lambda b: mt.linalg.vander(b), "linalg.vander supports"),
        (lambda b: mt.gradient(b), "Subtraction"),
    ],
)
def test_bool_inputs_torch_refuses(fn, match):
    with pytest.raises(RuntimeError, match=match):
        fn(mt.tensor([True, False, True]))


def test_bool_ops_torch_accepts_still_work():
    b = mt.tensor([True, False])
    assert (b**2).tolist() == [1, 0]
    assert mt.clamp(b, b).tolist() == [True, False]
    assert mt.remainder(b, 2).tolist() == [1, 0]
    assert mt.mode(mt.tensor([[True, False], [True, True]])).values.tolist() == [False, True]


def test_einsum_integer_dtypes():
    b = mt.tensor([[True, False], [True, True]])
    assert mt.einsum("ij->", b).dtype == mt.int64 and mt.einsum("ij->", b).item() == 3
    assert mt.einsum("ii", b).item() == 2
    assert mt.einsum("ij->j", b).tolist() == [2, 1]
    assert mt.einsum("ij->ji", b).dtype == mt.bool
    assert mt.einsum("ij,ij->ij", b, b).dtype == mt.bool
    assert mt.einsum("ij,k->k", b, b[0]).tolist() == [3, 0]
    i32 = mt.tensor([[1, 2], [3, 4]], dtype=mt.int32)
    assert mt.einsum("ij->", i32).dtype == mt.int64
    assert mt.einsum("ij,jk->ik", i32, i32).dtype == mt.int32
    with pytest.raises(RuntimeError, match="expected scalar type Long"):
        mt.einsum("ij,j->", i32, i32[0])
    i64 = i32.long()
    assert mt.einsum("ij,j->", i64, i64[0]).item() == 16


def test_matrix_power_of_integer_and_bool_matrices():
    r = mt.linalg.matrix_power(mt.ones(3, 3, dtype=mt.int64), 3)
    assert r.dtype == mt.int64 and r.tolist() == [[9] * 3] * 3
    eye = mt.linalg.matrix_power(mt.ones(2, 3, 3, dtype=mt.bool), 0)
    assert eye.dtype == mt.bool and eye[0].tolist() == np.eye(3, dtype=bool).tolist()
    with pytest.raises(RuntimeError, match="floating point"):
        mt.linalg.matrix_power(mt.ones(3, 3, dtype=mt.int64), -1)


@pytest.mark.parametrize(
    ("fn", "exc"),
    [
        (lambda a: mt.linalg.matrix_norm(a, 1), RuntimeError),
        (lambda a: mt.qr(a), RuntimeError),
        (lambda a: mt.linalg.householder_product(a, a[0]), NotImplementedError),
        (lambda a: mt.ormqr(a, a[0], a), NotImplementedError),
        (lambda a: mt.cholesky_inverse(a), NotImplementedError),
        (lambda a: mt.cholesky_solve(a, a), NotImplementedError),
    ],
)
def test_float_only_linalg_refuses_integers(fn, exc):
    with pytest.raises(exc, match="Long"):
        fn(mt.tensor([[2, 1], [1, 2]]))


def test_bool_inputs_refused_by_pool_conv_hardtanh_and_products():
    F = mt.nn.functional
    b = mt.ones(1, 1, 4, 4, dtype=mt.bool)
    for call in (
        lambda: F.max_pool2d(b, 2),
        lambda: F.avg_pool2d(b, 2),
        lambda: F.conv2d(b, mt.ones(1, 1, 2, 2, dtype=mt.bool)),
        lambda: mt.inner(b[0, 0], b[0, 0]),
        lambda: mt.tensordot(b[0, 0], b[0, 0], 1),
    ):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            call()
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.relu6(b)
    assert mt.inner(mt.tensor(True), b[0, 0]).dtype == mt.bool  # 0-d: a product, as torch
    assert F.max_pool2d(b.long(), 2).dtype == mt.int64  # integers are fine


def test_batch_norm_with_zero_channels_returns_the_empty_input():
    F = mt.nn.functional
    out = F.batch_norm(mt.ones(6, 0), mt.ones(0), mt.ones(0), training=True)
    assert tuple(out.shape) == (6, 0)


def test_integer_addmm_family_truncates_float_scalars():
    a = mt.tensor([[3, 5], [7, 9]])
    m = mt.tensor([[1, 2], [3, 4]])
    # torch casts beta and alpha to the integer type: 1.5 -> 1, 2.5 -> 2, 0.5 -> 0
    assert mt.addmm(a, m, m, beta=1.5, alpha=2.5).tolist() == [[17, 25], [37, 53]]
    assert mt.addmm(a, m, m, beta=0.5).tolist() == [[7, 10], [15, 22]]
    assert mt.addmv(a[0], m, m[0], beta=0.5).dtype == mt.int64


def test_integer_inputs_refused_by_norms_and_fold():
    F = mt.nn.functional
    ints = mt.ones(2, 2, 3, dtype=mt.int64)
    for call, kernel in (
        (lambda: F.batch_norm(ints, None, None, training=True), "batch_norm"),
        (lambda: F.instance_norm(ints), "batch_norm"),
        (lambda: F.group_norm(ints, 1), "GroupNormKernelImpl"),
        (lambda: F.unfold(ints[None], 2), "im2col_out_cpu"),
        (lambda: F.fold(mt.ones(1, 4, 1, dtype=mt.int64), (2, 2), 2), "col2im_out_cpu"),
    ):
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for .Long.'):
            call()
    assert F.unfold(mt.ones(1, 1, 2, 2, dtype=mt.bool), 2).dtype == mt.bool  # as torch
