"""Session 22 (h4): matmul family and torch.linalg against torch 2.13's values and messages
(expected values obtained by running torch)."""

import re
import warnings

import pytest

import minitorch as torch


def _raises(exc, msg, fn):
    with pytest.raises(exc, match="^" + re.escape(msg) + "$"):
        fn()


def z(*shape, dtype=torch.float32):
    return torch.zeros(shape, dtype=dtype)


# --- addr: the scalars follow the result's dtype, not input's ---


def test_addr_bool_input_with_float_vectors_keeps_beta():
    v1 = torch.tensor([1.0, 2, 3], dtype=torch.float64)
    v2 = torch.tensor([1, 2, 3])
    r = torch.addr(torch.tensor(True), v1, v2, beta=0.5)
    assert r.dtype is torch.float64
    assert r.tolist() == [[1.5, 2.5, 3.5], [2.5, 4.5, 6.5], [3.5, 6.5, 9.5]]
    r = torch.addr(torch.tensor(True), v1, v2, beta=2, alpha=3)
    assert r.tolist() == [[5.0, 8.0, 11.0], [8.0, 14.0, 20.0], [11.0, 20.0, 29.0]]
    r = torch.addr(torch.tensor(True), torch.tensor([True, False]), torch.tensor([1, 1]), beta=2)
    assert r.tolist() == [[3, 3], [2, 2]]


def test_addr_int_input_with_float_vectors_takes_float_beta():
    v1 = torch.tensor([1.0, 2, 3], dtype=torch.float64)
    r = torch.addr(torch.tensor(2), v1, torch.tensor([1, 2, 3]), beta=0.5)
    assert r.tolist() == [[2.0, 3.0, 4.0], [3.0, 5.0, 7.0], [4.0, 7.0, 10.0]]
    _raises(
        RuntimeError,
        "For integral input tensors, argument beta must not be a floating point number.",
        lambda: torch.addr(
            torch.tensor(True), torch.tensor([True]), torch.tensor([True]), beta=0.5
        ),
    )


def test_addr_result_dtype_promotes_a_0d_input_as_a_tensor():
    for beta in (0, 1, 2):
        r = torch.addr(
            z(dtype=torch.float64), z(1, dtype=torch.float16), z(2, dtype=torch.bool), beta=beta
        )
        assert r.dtype is torch.float64


def test_addr_beta_zero_gives_input_a_zero_gradient():
    a = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.addr(a, v, v, beta=0).sum(), a)
    assert g.tolist() == [[0.0, 0.0], [0.0, 0.0]]


# --- product checks: torch's order and words ---


def test_chain_matmul_speaks_as_multi_dot():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises(
            RuntimeError,
            "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 2] cannot be multiplied",
            lambda: torch.chain_matmul(z(2, 3), z(4, 2)),
        )
        _raises(
            RuntimeError,
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and "
            "tensor 1 double",
            lambda: torch.chain_matmul(z(2, 3), z(3, 2, dtype=torch.float64)),
        )


def test_multi_dot_checks_each_pair_in_turn():
    _raises(
        RuntimeError,
        "multi_dot(): tensors 0 and 1 with shapes [2, 1] and [2, 2] cannot be multiplied",
        lambda: torch.linalg.multi_dot([z(2, 1), z(2, 2), z(2, 1, dtype=torch.float16)]),
    )
    _raises(
        RuntimeError,
        "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 2 "
        "double",
        lambda: torch.linalg.multi_dot([z(2, 3), z(3, 2), z(3, 2, dtype=torch.float64)]),
    )


def test_outer_and_vdot_messages():
    _raises(
        RuntimeError,
        "outer: Expected 1-D argument self, but got 2-D",
        lambda: torch.outer(z(2, 1), z(3)),
    )
    _raises(
        RuntimeError, "outer: Expected 1-D argument self, but got 0-D", lambda: torch.ger(z(), z(3))
    )
    _raises(
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
        lambda: torch.vdot(z(2), z(2, dtype=torch.float64)),
    )


def test_cross_checks_length_then_bool_then_dtype():
    _raises(
        RuntimeError,
        "linalg.cross: inputs dimension -1 must have length 3. Got 1 and 1",
        lambda: torch.linalg.cross(z(1), z(1, dtype=torch.float64)),
    )
    _raises(
        NotImplementedError,
        "\"cross\" not implemented for 'Bool'",
        lambda: torch.linalg.cross(z(3, dtype=torch.bool), z(3, dtype=torch.float64)),
    )
    _raises(
        RuntimeError,
        "expected scalar type Float but found Bool",
        lambda: torch.linalg.cross(z(3), z(3, dtype=torch.bool)),
    )


def test_addbmm_shape_messages():
    _raises(
        RuntimeError,
        "Incompatible matrix sizes for bmm (2x3 and 4x3)",
        lambda: torch.addbmm(z(), z(1, 2, 3), z(1, 4, 3)),
    )
    _raises(
        RuntimeError,
        "batch1 and batch2 must have same number of batches, got 2 and 1",
        lambda: torch.addbmm(z(), z(2, 2, 3), z(1, 3, 3)),
    )
    _raises(
        RuntimeError,
        "Incompatible matrix sizes for bmm (2x3 and 4x3)",
        lambda: torch.addbmm(
            z(2, 3, dtype=torch.int32), z(3, 2, 3, dtype=torch.int64), z(3, 4, 3, dtype=torch.int64)
        ),
    )
    with pytest.raises(RuntimeError, match="Target sizes: \\[2, 3\\].  Tensor sizes: \\[2, 4\\]"):
        torch.addbmm(z(2, 4), z(1, 2, 3), z(2, 4, 3))


def test_matmul_batch_mismatch_reports_the_last_dimension():
    _raises(
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (0) at non-singleton dimension 1",
        lambda: torch.matmul(z(3, 2, 1, 1), z(2, 0, 2, 1)),
    )


def test_bmm_refuses_bool_before_the_dtype_mix():
    _raises(
        NotImplementedError,
        "\"bmm\" not implemented for 'Bool'",
        lambda: torch.bmm(z(2, 2, 3, dtype=torch.bool), z(2, 3, 2, dtype=torch.int64)),
    )
    _raises(
        RuntimeError,
        "expected scalar type Long but found Bool",
        lambda: torch.bmm(z(2, 2, 3, dtype=torch.int64), z(2, 3, 2, dtype=torch.bool)),
    )


def test_addmv_checks():
    _raises(
        RuntimeError,
        "size mismatch, got input (1), mat (3x2), vec (3)",
        lambda: torch.addmv(z(1), z(3, 2), z(3)),
    )
    _raises(
        IndexError,
        "Dimension specified as 0 but tensor has no dimensions",
        lambda: torch.addmv(z(), z(3, 2), z(3)),
    )
    _raises(
        RuntimeError,
        "vector + matrix @ vector expected, got 2, 2, 1",
        lambda: torch.addmv(z(1, 1), z(3, 2), z(2)),
    )
    _raises(
        RuntimeError,
        "size mismatch, got input (1), mat (1x1), vec (2)",
        lambda: torch.addmv(z(1, dtype=torch.float64), z(1, 1, dtype=torch.int32), z(2)),
    )
    assert torch.addmv(z(), z(3, 2), z(2)).shape == (3,)


# --- torch.linalg: the checks' order and words ---


def test_linalg_messages_name_the_op_torch_checks_in():
    i64 = torch.int64
    _raises(
        RuntimeError,
        "linalg.svd: Expected a floating point or complex tensor as input. Got Long",
        lambda: torch.linalg.svdvals(z(2, 2, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "linalg.svd: Expected a floating point or complex tensor as input. Got Long",
        lambda: torch.linalg.cond(z(2, 2, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "linalg.inv: Expected a floating point or complex tensor as input. Got Long",
        lambda: torch.linalg.cond(z(2, 2, dtype=i64), "fro"),
    )
    _raises(
        RuntimeError,
        "linalg.inv: Expected a floating point or complex tensor as input. Got Long",
        lambda: torch.linalg.matrix_power(z(2, 2, dtype=i64), -1),
    )
    _raises(
        RuntimeError,
        "linalg.eigh: The input tensor A must have at least 2 dimensions.",
        lambda: torch.linalg.eigvalsh(z(2)),
    )
    _raises(
        RuntimeError,
        "linalg.pinv(Long{[2, 2]}): expected a tensor with 2 or more dimensions of float, double, "
        "cfloat or cdouble types",
        lambda: torch.linalg.pinv(z(2, 2, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "linalg.pinv(Float{[2]}): expected a tensor with 2 or more dimensions of float, double, "
        "cfloat or cdouble types",
        lambda: torch.linalg.pinv(z(2)),
    )
    _raises(
        RuntimeError,
        "This function doesn't handle types other than float and double",
        lambda: torch.linalg.matrix_rank(z(2, 2, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.",
        lambda: torch.linalg.matrix_rank(z(2)),
    )
    _raises(
        RuntimeError,
        "linalg.cond: The input tensor must have at least 2 dimensions.",
        lambda: torch.linalg.cond(z(2), 1),
    )
    _raises(
        RuntimeError,
        "linalg.cond(ord=fro): The input tensor A must have at least 2 dimensions.",
        lambda: torch.linalg.cond(z(2), "fro"),
    )
    _raises(
        RuntimeError,
        "linalg.cond(ord=1): A must be batches of square matrices, but they are 2 by 3 matrices",
        lambda: torch.linalg.cond(z(2, 3, dtype=i64), 1),
    )
    _raises(
        RuntimeError,
        "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [2] instead",
        lambda: torch.linalg.lu(z(2)),
    )
    _raises(
        RuntimeError,
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [2] instead",
        lambda: torch.linalg.lu_factor(z(2)),
    )


def test_linalg_square_check_before_dtype_except_solve():
    i64 = torch.int64
    _raises(
        RuntimeError,
        "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices",
        lambda: torch.linalg.det(z(2, 3, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices",
        lambda: torch.linalg.matrix_exp(z(2, 3, dtype=i64)),
    )
    _raises(
        RuntimeError,
        "linalg.solve_triangular: A must be batches of square matrices, but they are 2 by 3 "
        "matrices",
        lambda: torch.linalg.solve_triangular(z(2, 3, dtype=i64), z(2, 3, dtype=i64), upper=True),
    )
    _raises(
        RuntimeError,
        "linalg.solve: Expected a floating point or complex tensor as input. Got Long",
        lambda: torch.linalg.solve(z(2, 3, dtype=i64), z(2, 3)),
    )
    _raises(
        RuntimeError,
        "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices",
        lambda: torch.linalg.solve(z(2, 3, dtype=torch.float16), z(2, 3, dtype=torch.float16)),
    )
