"""Session 59: shape ops and the matmul family where differential fuzzing found minitorch's
errors or results apart from torch 2.13's (expected values written out;
tests/reference/test_s59_shape_linalg_ref.py compares with torch)."""

import math
import warnings

import numpy as np
import pytest

import minitorch as torch

BOOL_MM = "\"addmm_impl_cpu_\" not implemented for 'Bool'"
BOOL_MV = "\"addmv_impl_cpu\" not implemented for 'Bool'"
BOOL_BMM = "\"bmm\" not implemented for 'Bool'"
BOOL_DOT = "\"dot\" not implemented for 'Bool'"
LONG_TO_BOOL = "result type Long can't be cast to the desired output type Bool"
FLOAT_TO_LONG = "result type Float can't be cast to the desired output type Long"
NO_DIMS = "Dimension specified as 0 but tensor has no dimensions"


def _check(t, dtype, shape, values=None):
    assert t.dtype is dtype
    assert tuple(t.shape) == shape
    if values is not None:
        np.testing.assert_array_equal(t.detach().numpy(), np.asarray(values), err_msg=str(t))


# --- stack, cat ---


def test_stack_wraps_its_dim_before_comparing_the_sizes():
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 3\)"):
        torch.stack([torch.zeros(2), torch.zeros(1)], 3)
    with pytest.raises(IndexError, match=r"but got -3\)"):
        torch.stack([torch.zeros(2), torch.zeros(1)], -3)
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        torch.stack([torch.zeros(2), torch.zeros(1)], 1)


@pytest.mark.parametrize(
    ("tensors", "dim", "at"),
    [
        ([(2,), ()], 5, 1),  # before the dim's range
        ([(0,), ()], 5, 1),
        ([(2,), (), (3,)], 5, 1),
        ([(2, 3), (4,), ()], 0, 2),  # before the ranks
        ([(2, 3), (4, 4), ()], 1, 2),  # before the sizes
    ],
)
def test_cat_refuses_a_zero_dim_tensor_anywhere_first(tensors, dim, at):
    with pytest.raises(RuntimeError) as e:
        torch.cat([torch.zeros(s) for s in tensors], dim)
    assert str(e.value) == f"zero-dimensional tensor (at position {at}) cannot be concatenated"


def test_cat_without_zero_dim_tensors_keeps_its_errors():
    with pytest.raises(IndexError, match="but got 5"):
        torch.cat([torch.zeros(2), torch.zeros(3)], 5)
    with pytest.raises(RuntimeError, match="same number of dimensions: got 2 and 1"):
        torch.cat([torch.zeros(2, 3), torch.zeros(4)])


# --- permute ---


def test_permute_wraps_and_checks_repeats_dim_by_dim():
    with pytest.raises(RuntimeError, match=r"^permute\(\): duplicate dims are not allowed\.$"):
        torch.zeros(2, 2, 1, 3).permute(2, 2, 0, -5)  # the repeat comes before -5
    with pytest.raises(IndexError, match=r"range of \[-4, 3\], but got -5\)"):
        torch.zeros(2, 2, 1, 3).permute(2, -5, 2, 0)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        torch.zeros(2, 3).permute(-1, 1)
    with pytest.raises(IndexError, match="but got 5"):
        torch.zeros(2, 3).permute(5, 1)
    with pytest.raises(TypeError, match="must be tuple of ints"):  # the parser's types first
        torch.zeros(2, 3).permute(5, "a")
    assert tuple(torch.zeros(2, 3).permute(-1, 0).shape) == (3, 2)
    assert tuple(torch.zeros(2, 3).permute(torch.tensor(1), 0).shape) == (3, 2)


# --- unflatten ---


def test_unflatten_wraps_infer_size_s_invalid_dimension_error():
    with pytest.raises(RuntimeError) as e:
        torch.zeros(3).unflatten(0, (-2, 3))
    assert str(e.value) == (
        "unflatten got an unexpected error:\ninvalid shape dimension -2 at index 0 of shape [-2, 3]"
    )
    with pytest.raises(RuntimeError, match=r"Provided sizes \[2, 2\] don't multiply up"):
        torch.zeros(3).unflatten(0, (2, 2))


@pytest.mark.parametrize("dim", [0, -1])
def test_unflatten_of_a_zero_dim_tensor_names_the_wrapped_dim(dim):
    with pytest.raises(RuntimeError) as e:
        torch.zeros(()).unflatten(dim, (1, -1))
    assert str(e.value) == f"unflatten got an unexpected error:\n{NO_DIMS}"


# --- repeat, tile ---


def test_repeat_names_the_first_negative_size():
    with pytest.raises(RuntimeError) as e:
        torch.zeros(1, 3).repeat(-2, 6, -2)
    assert str(e.value) == "Trying to create tensor with negative dimension -2: [-2, 6, -6]"
    with pytest.raises(RuntimeError, match=r"dimension -6: \[2, -6, -6\]$"):
        torch.zeros(1, 3).repeat(2, -6, -2)
    with pytest.raises(RuntimeError, match=r"dimension -1: \[-1, 0\]$"):
        torch.zeros(0).repeat(-1, 2)


@pytest.mark.parametrize(
    ("shape", "repeats", "want"),
    [
        ((2, 0), (2, -2), (4, 0)),
        ((0,), (-1,), (0,)),
        ((0,), (0, -1), (0, 0)),
        ((3, 0), (1, -5), (3, 0)),
    ],
)
def test_repeat_takes_a_negative_repeat_of_an_empty_dim(shape, repeats, want):
    _check(torch.zeros(shape).repeat(*repeats), torch.float32, want)


def test_tile_takes_a_negative_repeat_of_an_empty_dim():
    _check(torch.zeros(2, 0).tile(2, -2), torch.float32, (4, 0))
    _check(torch.zeros(2, 0).tile(-2), torch.float32, (2, 0))
    with pytest.raises(RuntimeError, match=r"negative dimension -1: \[-1\]"):
        torch.zeros(1).tile(-1)


def test_repeat_with_a_negative_repeat_fails_in_backward_as_torch():
    x = torch.zeros(2, 0, requires_grad=True)
    y = x.repeat(2, -2)
    with pytest.raises(RuntimeError, match=r"invalid shape dimension -2 at index 2"):
        y.sum().backward()


# --- expand ---


@pytest.mark.parametrize("sizes", [(-1,), (-1, 2), (2, -1), (-3, -1)])
def test_expand_of_a_zero_dim_tensor_takes_minus_one_as_a_negative_size(sizes):
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        torch.zeros(()).expand(*sizes)
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        torch.broadcast_to(torch.zeros(()), sizes)


def test_expand_keeps_refusing_a_new_leading_minus_one():
    with pytest.raises(RuntimeError, match=r"\(-1\) isn't allowed in a leading, non-existing"):
        torch.zeros(2).expand(-1, 2)


# --- mv, matmul's folds ---


def test_mv_of_a_zero_dim_matrix_is_an_index_error():
    for vec in (torch.zeros(3), torch.tensor(1.0)):
        with pytest.raises(IndexError, match=f"^{NO_DIMS}$"):
            torch.mv(torch.tensor(1.0), vec)
    with pytest.raises(RuntimeError, match="got 1, 1, 1"):
        torch.mv(torch.zeros(3), torch.zeros(3))


@pytest.mark.parametrize(
    ("a", "b", "batch"),
    [
        (lambda: torch.zeros(3), lambda: torch.zeros(2, 4, 1), "[2, 3] but got: [2, 4]."),
        (lambda: torch.zeros(3), lambda: torch.zeros(1, 4, 1), "[1, 3] but got: [1, 4]."),
        (lambda: torch.zeros(2, 4, 1).mT, lambda: torch.zeros(5, 2), "[2, 4] but got: [2, 5]."),
        (lambda: torch.zeros(2, 4, 1).mT, lambda: torch.zeros(5), "[2, 4] but got: [2, 5]."),
    ],
)
def test_matmul_does_not_fold_what_torch_s_stride_test_refuses(a, b, batch):
    # NumPy calls (2, 1, 4) with strides (4, 1, 1) contiguous; torch's fold test does not
    with pytest.raises(RuntimeError) as e:
        torch.matmul(a(), b())
    assert str(e.value) == f"Expected size for first two dimensions of batch2 tensor to be: {batch}"


def test_matmul_folds_where_torch_s_stride_test_does():
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x4\)"):
        torch.zeros(2, 1, 4) @ torch.zeros(5)
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x4\), vec"):
        torch.zeros(3, requires_grad=True) @ torch.zeros(2, 4, 1)  # (a vector needing grad)


def test_matmul_of_a_batch_torch_does_not_fold_has_bmm_s_dtype_error():
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        torch.matmul(torch.zeros(2), torch.zeros(2, 2, 1, dtype=torch.float64))
    with pytest.raises(NotImplementedError, match=BOOL_BMM):
        torch.zeros(2, dtype=torch.bool) @ torch.zeros(2, 2, 1, dtype=torch.bool)
    x = torch.arange(4.0).reshape(2, 2, 1).mT  # the values are the same either way
    np.testing.assert_array_equal((x @ torch.ones(2, 3)).numpy(), [[[1.0] * 3], [[5.0] * 3]])


# --- products of empty bool operands ---


def _bools(*shapes):
    return [torch.zeros(s, dtype=torch.bool) for s in shapes]


_linear = torch.nn.functional.linear


@pytest.mark.parametrize(
    ("fn", "a", "b", "args", "shape"),
    [
        (torch.mm, (2, 0), (0, 3), (), (2, 3)),
        (torch.mm, (0, 2), (2, 3), (), (0, 3)),
        (torch.mm, (2, 2), (2, 0), (), (2, 0)),
        (torch.bmm, (1, 2, 0), (1, 0, 3), (), (1, 2, 3)),
        (torch.bmm, (0, 3, 2), (0, 2, 5), (), (0, 3, 5)),
        (torch.matmul, (2, 0), (0, 3), (), (2, 3)),
        (torch.matmul, (0,), (0, 3), (), (3,)),
        (torch.matmul, (3, 0), (0,), (), (3,)),
        (torch.matmul, (2, 3, 0), (0, 4), (), (2, 3, 4)),
        (torch.matmul, (2, 3, 0), (2, 0, 4), (), (2, 3, 4)),
        (torch.matmul, (0,), (2, 0, 4), (), (2, 4)),
        (torch.matmul, (2, 3, 0), (0,), (), (2, 3)),
        (torch.mv, (0, 3), (3,), (), (0,)),
        (torch.mv, (3, 0), (0,), (), (3,)),
        (torch.tensordot, (2, 0), (0, 3), (1,), (2, 3)),
        (torch.tensordot, (2, 3), (0,), (0,), (2, 3, 0)),
        (torch.inner, (2, 0), (3, 0), (), (2, 3)),
        (torch.inner, (0, 2), (2,), (), (0,)),
        (_linear, (2, 0), (3, 0), (), (2, 3)),
        (_linear, (0,), (3, 0), (), (3,)),
        (_linear, (4, 2, 0), (3, 0), (), (4, 2, 3)),
    ],
)
def test_products_of_empty_bool_operands_are_false(fn, a, b, args, shape):
    out = fn(*_bools(a, b), *args)
    _check(out, torch.bool, shape, np.zeros(shape, dtype=bool))


@pytest.mark.parametrize(
    ("fn", "a", "b", "message"),
    [
        (torch.mm, (2, 2), (2, 3), BOOL_MM),
        (torch.mv, (2, 1), (1,), BOOL_MV),
        (torch.matmul, (2, 1), (1,), BOOL_MV),
        (torch.bmm, (1, 4, 2), (1, 2, 3), BOOL_BMM),
        # torch's bmm runs an addmm per batch from 400 multiply-adds a product
        (torch.bmm, (1, 4, 2), (1, 2, 75), BOOL_MM),
        (torch.matmul, (3, 20, 20), (3, 20, 20), BOOL_MM),
        (torch.dot, (0,), (0,), BOOL_DOT),
        (torch.inner, (0,), (0,), BOOL_DOT),
    ],
)
def test_products_of_bool_operands_over_elements_refuse(fn, a, b, message):
    with pytest.raises(NotImplementedError) as e:
        fn(*_bools(a, b))
    assert str(e.value) == message


# --- inner and tensordot of bool operands ---


def test_inner_checks_the_last_sizes_before_the_bool_kernel():
    B = torch.bool
    with pytest.raises(RuntimeError) as e:
        torch.inner(torch.zeros(2, dtype=B), torch.zeros(3, dtype=B))
    assert str(e.value) == (
        "inner() the last dimension must match on both input tensors but got shapes [2] and [3]"
    )
    for a, b in [((2, 2), (2,)), ((2,), (2, 2)), ((2, 2), (2, 2))]:
        with pytest.raises(NotImplementedError, match=BOOL_MM):
            torch.inner(torch.zeros(a, dtype=B), torch.zeros(b, dtype=B))
    with pytest.raises(NotImplementedError, match=BOOL_DOT):
        torch.inner(torch.zeros(2, dtype=B), torch.zeros(2, dtype=B))


@pytest.mark.parametrize(
    ("a", "b", "dims", "message"),
    [
        ((2,), (2,), 1, BOOL_DOT),  # one element each side: torch's dot
        ((0,), (0,), 1, BOOL_DOT),
        ((2, 2), (2, 2), 2, BOOL_DOT),
        ((1, 2), (2, 1), ([1], [0]), BOOL_DOT),
        ((0,), (1,), 1, BOOL_DOT),
        ((), (), 0, BOOL_DOT),
        ((2, 2), (2, 2), 1, BOOL_MM),
        ((), (2,), 0, BOOL_MM),
        ((1, 3), (0, 3), ([0], [0]), BOOL_MM),  # the size-1 side summed first: not empty
    ],
)
def test_tensordot_of_bool_operands_refuses_with_the_kernel_it_runs(a, b, dims, message):
    B = torch.bool
    with pytest.raises(NotImplementedError) as e:
        torch.tensordot(torch.zeros(a, dtype=B), torch.zeros(b, dtype=B), dims)
    assert str(e.value) == message


# --- einsum's bmm errors ---


def test_einsum_dtype_errors_follow_the_bmm_kernel_torch_runs():
    a = torch.zeros(5, 5, 5, 5)
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        torch.einsum("...ij,...jk->...ik", a, torch.zeros(5, 4, dtype=torch.float64))  # gemm
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        torch.einsum("...ij,...jk->...ik", torch.zeros(2, 2, 2), torch.zeros(2, 2).double())
    with pytest.raises(RuntimeError) as e:
        torch.einsum("...ij,...jk->...ik", a, torch.zeros(5, 4, dtype=torch.bool))
    assert str(e.value) == "expected m1 and m2 to have the same dtype, but got: float != bool"
    with pytest.raises(NotImplementedError, match=BOOL_MM):
        B = torch.bool
        torch.einsum("ij,jk->ik", torch.zeros(20, 20, dtype=B), torch.zeros(20, 20, dtype=B))
    with pytest.raises(NotImplementedError, match=BOOL_BMM):
        B = torch.bool
        torch.einsum("ij,jk->ik", torch.zeros(2, 2, dtype=B), torch.zeros(2, 3, dtype=B))


# --- baddbmm ---


def test_baddbmm_checks_ranks_then_sizes_then_dtypes():
    f64 = torch.float64
    with pytest.raises(RuntimeError, match="^batch1 must be a 3D tensor$"):
        torch.baddbmm(torch.zeros(1), torch.zeros(3, 4), torch.zeros(2, 4, 5, dtype=f64))
    with pytest.raises(RuntimeError) as e:
        torch.baddbmm(torch.zeros(1), torch.zeros(2, 3, 5), torch.zeros(4, 4, 5, dtype=f64))
    assert str(e.value) == (
        "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [4, 4]."
    )
    with pytest.raises(RuntimeError, match="^Input dtypes must be the same, got: input double"):
        torch.baddbmm(torch.zeros(1, dtype=f64), torch.zeros(3, 4), torch.zeros(2, 4, 5))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long$"):
        torch.baddbmm(torch.zeros(1), torch.zeros(2, 3, 4), torch.zeros(2, 4, 5).long())
    with pytest.raises(NotImplementedError, match="\"baddbmm\" not implemented for 'Bool'"):
        B = torch.bool
        torch.baddbmm(
            torch.ones(2, 3, 4, dtype=B), torch.zeros(2, 3, 5, dtype=B), torch.zeros(2, 5, 4)
        )


def test_baddbmm_over_no_elements_is_beta_times_input_in_batch2_s_dtype():
    i64 = torch.int64
    r = torch.baddbmm(torch.zeros(1), torch.zeros(2, 3, 0), torch.zeros(2, 0, 5, dtype=i64))
    _check(r, i64, (2, 3, 5), np.zeros((2, 3, 5)))
    r = torch.baddbmm(
        torch.full((1,), 1.7), torch.zeros(2, 3, 0), torch.zeros(2, 0, 5, dtype=i64), beta=2
    )
    _check(r, i64, (2, 3, 5), np.full((2, 3, 5), 2))
    r = torch.baddbmm(torch.ones(1), torch.zeros(0, 3, 2), torch.zeros(0, 2, 5, dtype=i64))
    _check(r, i64, (0, 3, 5))
    r = torch.baddbmm(torch.ones(3, 5), torch.zeros(2, 3, 0), torch.zeros(2, 0, 5).double())
    _check(r, torch.float64, (2, 3, 5), np.ones((2, 3, 5)))
    # alpha is not read: no NaN from 0 * nan
    r = torch.baddbmm(
        torch.ones(2, 2, 3), torch.zeros(2, 2, 0), torch.zeros(2, 0, 3), alpha=math.nan
    )
    _check(r, torch.float32, (2, 2, 3), np.ones((2, 2, 3)))


def test_baddbmm_over_no_elements_scales_its_result_in_place():
    B, i64 = torch.bool, torch.int64
    with pytest.raises(RuntimeError, match=f"^{FLOAT_TO_LONG}$"):
        torch.baddbmm(
            torch.ones(1), torch.zeros(2, 3, 0), torch.zeros(2, 0, 5, dtype=i64), beta=2.5
        )
    with pytest.raises(RuntimeError, match=f"^{LONG_TO_BOOL}$"):
        torch.baddbmm(torch.zeros(1), torch.zeros(2, 3, 0), torch.zeros(2, 0, 5, dtype=B))
    b1, b2 = torch.zeros(2, 3, 0, dtype=B), torch.zeros(2, 0, 5, dtype=B)
    _check(torch.baddbmm(torch.ones(1, dtype=B), b1, b2, beta=0), B, (2, 3, 5), np.zeros((2, 3, 5)))
    _check(
        torch.baddbmm(torch.ones(1, dtype=B), b1, b2, beta=True), B, (2, 3, 5), np.ones((2, 3, 5))
    )
    r = torch.baddbmm(
        torch.ones(1, dtype=B), torch.zeros(0, 3, 1, dtype=B), torch.zeros(0, 1, 5, dtype=B)
    )
    _check(r, B, (0, 3, 5))


def test_baddbmm_over_no_elements_of_two_dtypes_has_input_s_gradient():
    x = torch.ones(1, requires_grad=True)
    r = torch.baddbmm(x, torch.zeros(2, 3, 0), torch.zeros(2, 0, 4, dtype=torch.float64), beta=2)
    assert r.grad_fn.name() == "BaddbmmBackward0"
    r.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [48.0])


# --- addmv, addmm, addbmm over no elements ---


@pytest.mark.parametrize(
    ("input", "mat", "vec", "beta", "want"),
    [
        ((1,), (2, 0), (0,), 1, [1.0]),
        ((), (2, 0), (0,), 1, 1.0),
        ((1,), (0, 3), (3,), 1, [1.0]),
        ((), (0, 3), (3,), 1, 1.0),
        ((1,), (2, 0), (0,), 3, [3.0]),
        ((1,), (2, 0), (0,), 0, [0.0, 0.0]),  # beta 0: zeros of the product's shape
        ((2,), (2, 0), (0,), 2.5, [2.5, 2.5]),
    ],
)
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_addmv_of_an_empty_matrix_takes_input_s_shape(input, mat, vec, beta, want):
    r = torch.addmv(torch.ones(input), torch.zeros(mat), torch.zeros(vec), beta=beta)
    want = np.asarray(want, dtype=np.float32)
    _check(r, torch.float32, want.shape, want)


def test_addmv_of_an_empty_matrix_warns_as_torch_resizing_its_result():
    with pytest.warns(
        UserWarning, match=r"had shape \[2\], which does not match the required output shape \[1\]"
    ):
        torch.addmv(torch.ones(1), torch.zeros(2, 0), torch.zeros(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.addmv(torch.ones(2), torch.zeros(2, 0), torch.zeros(0))  # (its own shape)
        torch.addmv(torch.ones(1), torch.zeros(0, 3), torch.zeros(3))  # (an empty result)
        torch.addmv(torch.ones(1), torch.zeros(2, 0), torch.zeros(0), beta=0)  # (zeroed)


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_addmv_of_an_empty_matrix_casts_beta_to_input_s_dtype():
    i64, B = torch.int64, torch.bool
    r = torch.addmv(
        torch.ones(1, dtype=i64), torch.zeros(2, 0, dtype=i64), torch.zeros(0, dtype=i64), beta=2.5
    )
    _check(r, i64, (1,), [2])
    r = torch.addmv(
        torch.ones(1, dtype=B), torch.zeros(2, 0, dtype=B), torch.zeros(0, dtype=B), beta=2
    )
    _check(r, B, (1,), [True])
    r = torch.addmv(torch.ones(2, dtype=B), torch.zeros(2, 0, dtype=B), torch.zeros(0, dtype=B))
    _check(r, B, (2,), [True, True])
    with pytest.raises(NotImplementedError, match=BOOL_MV):
        torch.addmv(torch.ones(1, dtype=B), torch.zeros(2, 1, dtype=B), torch.zeros(1, dtype=B))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_addmv_of_an_empty_matrix_has_input_s_gradient():
    x = torch.ones(1, requires_grad=True)
    r = torch.addmv(x, torch.zeros(2, 0), torch.zeros(0), beta=0.5)
    _check(r, torch.float32, (1,), [0.5])
    r.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.5])


def test_addmm_over_no_elements_scales_its_result_in_place():
    B, i64 = torch.bool, torch.int64
    with pytest.raises(RuntimeError, match=f"^{LONG_TO_BOOL}$"):
        torch.addmm(torch.ones(1, dtype=B), torch.zeros(2, 0, dtype=B), torch.zeros(0, 3, dtype=B))
    with pytest.raises(RuntimeError, match=f"^{LONG_TO_BOOL}$"):  # F.linear's addmm
        torch.nn.functional.linear(
            torch.zeros(2, 0, dtype=B), torch.zeros(3, 0, dtype=B), torch.zeros(3, dtype=B)
        )
    with pytest.raises(RuntimeError, match=f"^{FLOAT_TO_LONG}$"):
        torch.addmm(
            torch.ones(1, dtype=i64),
            torch.zeros(2, 0, dtype=i64),
            torch.zeros(0, 3, dtype=i64),
            beta=2.5,
        )
    m1, m2 = torch.zeros(2, 0, dtype=B), torch.zeros(0, 3, dtype=B)
    _check(torch.addmm(torch.ones(1, dtype=B), m1, m2, beta=0), B, (2, 3), np.zeros((2, 3)))
    _check(torch.addmm(torch.ones(1, dtype=B), m1, m2, beta=True), B, (2, 3), np.ones((2, 3)))
    r = torch.addmm(torch.ones(1, dtype=B), torch.zeros(0, 2, dtype=B), torch.zeros(2, 3, dtype=B))
    _check(r, B, (0, 3))  # an empty result: nothing scaled
    r = torch.addmm(torch.ones(2, 3), torch.zeros(2, 0), torch.zeros(0, 3), beta=2, alpha=math.nan)
    _check(r, torch.float32, (2, 3), np.full((2, 3), 2.0))
    with pytest.raises(RuntimeError, match="must match the existing size"):  # the broadcast first
        torch.addmm(
            torch.ones(3, 3, dtype=i64),
            torch.zeros(2, 0, dtype=i64),
            torch.zeros(0, 3, dtype=i64),
            beta=2.5,
        )
    r = torch.addmm(
        torch.ones(1, dtype=i64),
        torch.zeros(2, 1, dtype=i64),
        torch.zeros(1, 3, dtype=i64),
        beta=2.5,
    )
    _check(r, i64, (2, 3), np.full((2, 3), 2))  # (a product over elements casts beta)


def test_addbmm_over_no_elements_scales_its_result_in_place():
    B, i64 = torch.bool, torch.int64
    with pytest.raises(RuntimeError, match=f"^{LONG_TO_BOOL}$"):  # (by 1 after the first batch)
        torch.addbmm(
            torch.ones(1, dtype=B),
            torch.zeros(2, 2, 0, dtype=B),
            torch.zeros(2, 0, 3, dtype=B),
            beta=0,
        )
    with pytest.raises(RuntimeError, match=f"^{LONG_TO_BOOL}$"):  # (no batch: by beta)
        torch.addbmm(
            torch.ones(1, dtype=B), torch.zeros(0, 2, 1, dtype=B), torch.zeros(0, 1, 3, dtype=B)
        )
    with pytest.raises(RuntimeError, match=f"^{FLOAT_TO_LONG}$"):
        torch.addbmm(
            torch.ones(1, dtype=i64),
            torch.zeros(2, 2, 0, dtype=i64),
            torch.zeros(2, 0, 3, dtype=i64),
            beta=2.5,
        )
    r = torch.addbmm(
        torch.ones(1, dtype=B),
        torch.zeros(1, 2, 0, dtype=B),
        torch.zeros(1, 0, 3, dtype=B),
        beta=True,
    )
    _check(r, B, (2, 3), np.ones((2, 3)))
    r = torch.addbmm(
        torch.ones(1, dtype=i64),
        torch.zeros(0, 2, 1, dtype=i64),
        torch.zeros(0, 1, 3, dtype=i64),
        beta=2,
    )
    _check(r, i64, (2, 3), np.full((2, 3), 2))
    r = torch.addbmm(torch.ones(2, 3), torch.zeros(2, 2, 0), torch.zeros(2, 0, 3), alpha=math.nan)
    _check(r, torch.float32, (2, 3), np.ones((2, 3)))


def test_addbmm_sizes_input_s_broadcast_before_the_ranks():
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 2\)"):
        torch.addbmm(torch.ones(1), torch.zeros(1, 2, 0), torch.zeros(0, 3))
    with pytest.raises(RuntimeError, match="^batch1 must be a 3D tensor$"):
        torch.addbmm(torch.ones(1), torch.zeros(2, 0), torch.zeros(1, 0, 3))
    with pytest.raises(RuntimeError, match="must match the existing size"):
        torch.addbmm(torch.ones(5), torch.zeros(2, 0), torch.zeros(1, 0, 3))
