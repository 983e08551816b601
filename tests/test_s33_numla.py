"""Session 33 (helper numla): torch-free regression tests of the library fixes the numerical
linear algebra programs of tests/reference/test_s33_numla_reference.py found: triangular_solve's
argument checks, lu_solve's and lu_unpack's pivot checks, eig/eigvals' checks before the complex
refusal, vecdot of two vectors (torch's vdot), eigh's lower-case UPLO, lstsq's parsed rcond and
driver and gelsd's rcond >= 1, the batch element a singular solve names, tensorinv's and
tensorsolve's messages, matrix_norm's parser error for an int dim, the saved tensor a version
error names (torch's alphabetical unpacking; _saved_* of pow/maximum/minimum/atan2/hypot/fmax/
fmin), cholesky_ex's graph when a matrix fails, NaN matrices in det/slogdet/inv/solve, and cond's
NaN read as inf. torch's messages are written here as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

LA = mt.linalg
F64 = mt.float64


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


# --- triangular_solve ---


@pytest.mark.parametrize(
    "b_shape, a_shape, kwargs, message",
    [
        ((3,), (3, 3), {}, "torch.triangular_solve: Expected b to have at least 2 dimensions, "
         "but it has 1 dimensions instead"),
        ((3, 2), (3,), {}, "torch.triangular_solve: Expected A to have at least 2 dimensions, "
         "but it has 1 dimensions instead"),
        ((3, 2), (3, 2), {}, "A must be batches of square matrices, but they are 3 by 2 matrices"),
        ((3, 2), (2, 3), {"transpose": True},
         "A must be batches of square matrices, but they are 2 by 3 matrices"),
        ((4, 2), (3, 3), {}, "Incompatible matrix sizes for triangular_solve: each A matrix is 3 "
         "by 3 but each b matrix is 4 by 2"),
        ((2, 3, 2), (4, 3, 3), {}, "The size of tensor a (2) must match the size of tensor b (4) "
         "at non-singleton dimension 0"),
    ],
)  # fmt: skip
def test_triangular_solve_checks(b_shape, a_shape, kwargs, message):
    b, a = mt.ones(*b_shape), mt.ones(*a_shape)
    assert _message(RuntimeError, lambda: mt.triangular_solve(b, a, **kwargs)) == message


def test_triangular_solve_dtype_before_sizes():
    got = _message(RuntimeError, lambda: mt.triangular_solve(mt.ones(4, 2, dtype=F64), mt.eye(3)))
    assert got == (
        "Expected b and A to have the same dtype, but found b of type Double and A of type Float "
        "instead."
    )


# --- lu_solve / lu_unpack pivots ---


@pytest.mark.parametrize(
    "pivots, bound",
    [([0, 2, 3], "greater or equal to 1"), ([4, 0, 3], "greater or equal to 1"),
     ([4, 2, 3], "smaller or equal to LU.size(-2)")],
)  # fmt: skip
def test_lu_solve_pivots_out_of_range(pivots, bound):
    piv = mt.tensor(pivots, dtype=mt.int32)
    got = _message(RuntimeError, lambda: LA.lu_solve(mt.eye(3), piv, mt.ones(3, 2)))
    assert got == (
        f"Pivots given to lu_solve must all be {bound}. Did you properly pass the result of "
        "lu_factor?"
    )


@pytest.mark.parametrize("pivots", [[0, 2, 3], [4, 2, 3], [-1, 2, 3]])
@pytest.mark.parametrize("unpack_data", [True, False])
def test_lu_unpack_pivots_out_of_range(pivots, unpack_data):
    piv = mt.tensor(pivots, dtype=mt.int32)
    got = _message(RuntimeError, lambda: mt.lu_unpack(mt.eye(3), piv, unpack_data=unpack_data))
    assert got == (
        "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
        "pass the result of lu_factor?"
    )
    # unread pivots are not checked
    mt.lu_unpack(mt.eye(3), piv, unpack_pivots=False)


def test_lu_unpack_pivots_dtype_note():
    got = _message(RuntimeError, lambda: mt.lu_unpack(mt.eye(3), mt.ones(3, dtype=mt.int64)))
    assert got == (
        "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
        "Note: this function is intended to be used with the output produced by "
        "torch.linalg.lu_factor"
    )


# --- eig / eigvals, eigh ---


@pytest.mark.parametrize("op", ["eig", "eigvals"])
def test_eig_checks_before_the_complex_refusal(op):
    fn = getattr(LA, op)
    assert _message(RuntimeError, lambda: fn(mt.ones(2, 3, dtype=mt.int64))) == (
        "Unknown Complex ScalarType for Long"
    )
    assert _message(RuntimeError, lambda: fn(mt.ones(3))) == (
        f"linalg.{op}: The input tensor A must have at least 2 dimensions."
    )
    assert _message(RuntimeError, lambda: fn(mt.ones(2, 3))) == (
        f"linalg.{op}: A must be batches of square matrices, but they are 2 by 3 matrices"
    )
    with pytest.raises(NotImplementedError):
        fn(mt.eye(3))


def test_eigh_lower_case_uplo():
    a = mt.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=F64)
    upper = [(5 - 5**0.5) / 2, (5 + 5**0.5) / 2]  # of [[2, 1], [1, 3]]
    np.testing.assert_allclose(LA.eigvalsh(a, UPLO="u").numpy(), upper, err_msg="u")
    np.testing.assert_allclose(LA.eigh(a, UPLO="l").eigenvalues.numpy(), [2.0, 3.0], err_msg="l")
    assert _message(RuntimeError, lambda: LA.eigh(a, UPLO="uu")) == (
        "Expected UPLO argument to be 'L' or 'U', but got uu"
    )


# --- vecdot ---


def test_vecdot_of_vectors_is_vdot():
    x, y = mt.tensor([1.0, 2.0, 3.0]), mt.tensor([4.0, 5.0, 6.0])
    assert LA.vecdot(x, y, dim=5).item() == 32.0  # dim is not read
    got = _message(RuntimeError, lambda: LA.vecdot(x, mt.ones(1)))
    assert got == (
        "inconsistent tensor size, expected tensor [3] and src [1] to have the same number of "
        "elements, but got 3 and 1 elements respectively"
    )
    r = LA.vecdot(x.requires_grad_(True), y)
    assert type(r.grad_fn).__name__ == "VdotBackward0"
    assert type(LA.vecdot(x.expand(2, 3), y).grad_fn).__name__ == "SumBackward1"


# --- lstsq ---


def test_lstsq_parsed_rcond_and_driver():
    a, b = mt.ones(3, 3), mt.ones(3, 2)
    assert _message(TypeError, lambda: LA.lstsq(a, b, rcond="a")) == (
        "linalg_lstsq(): argument 'rcond' must be float, not str"
    )
    assert _message(TypeError, lambda: LA.lstsq(a, b, "a")) == (
        "linalg_lstsq(): argument 'rcond' (position 3) must be float, not str"
    )
    assert _message(TypeError, lambda: LA.lstsq(a, b, driver=3)) == (
        "linalg_lstsq(): argument 'driver' must be str, not int"
    )


def test_lstsq_gelsd_rcond_of_one_or_more_is_the_default():
    rng = np.random.default_rng(0)
    a = mt.tensor(rng.standard_normal((5, 3)))
    b = mt.tensor(rng.standard_normal((5, 2)))
    for rcond in (1, 2.0):
        assert LA.lstsq(a, b, rcond=rcond, driver="gelsd").rank.item() == 3
    assert LA.lstsq(a, b, rcond=1, driver="gelss").rank.item() == 0  # gelss reads it as given


# --- solve / tensorinv / tensorsolve messages ---


def test_singular_solve_names_the_batch_element_of_a():
    ones = mt.ones(3, 3)
    got = _message(LA.LinAlgError, lambda: LA.solve(ones, mt.ones(2, 3, 3)))
    assert got == "torch.linalg.solve: The solver failed because the input matrix is singular."
    two = mt.stack([mt.eye(3), ones]).unsqueeze(1)
    got = _message(LA.LinAlgError, lambda: LA.solve(two, mt.ones(2, 4, 3, 1)))
    assert got == (
        "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is "
        "singular."
    )


def test_tensorinv_and_tensorsolve_messages():
    got = _message(LA.LinAlgError, lambda: LA.tensorinv(mt.ones(2, 3, 6), ind=2))
    assert got == (
        "inv: The diagonal element 2 is zero, the inversion could not be completed because the "
        "input matrix is singular."
    )
    req = "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
    req += "prod(self.shape[:other.ndim]), but got "
    assert _message(RuntimeError, lambda: LA.tensorsolve(mt.ones(2, 3, 6), mt.ones(2, 2))) == (
        req + "6 != 4"
    )
    got = _message(RuntimeError, lambda: LA.tensorsolve(mt.ones(2, 3, 6), mt.ones(2, 3), (0,)))
    assert got == req + "2 != 6"
    b = mt.arange(6.0, dtype=F64).reshape(2, 3)
    x = LA.tensorsolve(mt.eye(6, dtype=F64).reshape(2, 3, 6), b)
    np.testing.assert_allclose(x.numpy(), np.arange(6.0))


def test_matrix_norm_int_dim_is_a_parser_error():
    rest = "tuple of ints dim = {-2,-1}, bool keepdim = False, *, torch.dtype dtype = None, "
    rest += "Tensor out = None"
    listing = f' * (Tensor input, Number ord, {rest})\n * (Tensor input, str ord = "fro", {rest})\n'
    head = "linalg_matrix_norm() received an invalid combination of arguments - got "
    m = mt.ones(3, 3)
    got = _message(TypeError, lambda: LA.matrix_norm(m, ord="nuc", dim=0))
    assert got == head + "(Tensor, dim=int, ord=str), but expected one of:\n" + listing
    got = _message(TypeError, lambda: LA.matrix_norm(m, dim=0))
    assert got == head + "(Tensor, dim=int), but expected one of:\n" + listing
    got = _message(TypeError, lambda: LA.matrix_norm(m, "fro", 0))
    assert got == head + "(Tensor, str, int), but expected one of:\n" + listing


# --- the saved tensor a version error names ---


def _stale_error(fn):
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = mt.tensor([3.0, 4.0], requires_grad=True)
    a, b = x * 1, y * 2
    out = fn(a, b)
    a.add_(1)
    b.mul_(2)
    b.mul_(2)
    return _message(RuntimeError, lambda: out.sum().backward())


@pytest.mark.parametrize(
    "op, second",
    [(lambda a, b: a * b, True), (lambda a, b: b * a, False), (lambda a, b: a**b, True),
     (mt.atan2, True), (mt.maximum, True), (mt.minimum, True), (mt.hypot, True),
     (mt.fmax, True), (mt.fmin, True), (mt.dot, False), (lambda a, b: a / b, True)],
)  # fmt: skip
def test_version_error_names_what_torch_unpacks_first(op, second):
    """torch's nodes check their saved inputs in the alphabetical order of their names
    (exponent, other, self, tensor): b (the second operand) first, except for dot."""
    got = _stale_error(op)
    if second:
        assert "output 0 of Mul, is at version 2; expected version 0" in got, got
    else:
        assert "output 0 of Add, is at version 1; expected version 0" in got, got


def test_saved_attributes_of_binary_nodes():
    a = mt.tensor([1.5, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 0.5], requires_grad=True)
    for fn in (mt.maximum, mt.minimum, mt.atan2, mt.fmax, mt.fmin):
        node = fn(a, b).grad_fn
        assert [k for k in dir(node) if k.startswith("_saved_")] == ["_saved_other", "_saved_self"]
        assert node._saved_self is a and node._saved_other is b
    node = (a**b).grad_fn
    assert node._saved_exponent is b
    np.testing.assert_allclose(node._saved_result.detach().numpy(), (a**b).detach().numpy())
    node = mt.hypot(a, b).grad_fn
    assert [k for k in dir(node) if k.startswith("_saved_")] == [
        "_saved_other",
        "_saved_result",
        "_saved_self",
    ]


# --- cholesky_ex of a batch with a failure ---


def test_cholesky_ex_keeps_the_graph_when_a_matrix_fails():
    good = mt.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=F64)
    batch = mt.stack([good, -mt.eye(2, dtype=F64)]).requires_grad_(True)
    low, info = LA.cholesky_ex(batch)
    assert info.tolist() == [0, 1]
    assert type(low.grad_fn).__name__ == "LinalgCholeskyExBackward0"
    low[0].sum().backward()
    alone = good.clone().requires_grad_(True)
    LA.cholesky(alone).sum().backward()
    np.testing.assert_allclose(batch.grad[0].numpy(), alone.grad.numpy(), err_msg="good matrix")
    np.testing.assert_allclose(batch.grad[1].numpy(), np.zeros((2, 2)), err_msg="unused")
    # the partial factor's own gradient: torch's formula applied to it
    x = (-mt.eye(2, dtype=F64)).requires_grad_(True)
    LA.cholesky_ex(x).L.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 2), -0.5))


def test_cholesky_ex_failure_path_gradcheck():
    bad = -mt.eye(2, dtype=F64)

    def fn(a):
        spd = a @ a.mT + mt.eye(2, dtype=F64)
        return LA.cholesky_ex(mt.stack([spd, bad])).L[0]

    a = mt.tensor([[0.3, -0.2], [0.5, 0.9]], dtype=F64, requires_grad=True)
    assert mt.autograd.gradcheck(fn, (a,))
    assert mt.autograd.gradgradcheck(fn, (a,))


# --- NaN matrices ---


def test_nan_matrices_give_nan_not_an_error():
    nan = float("nan")
    a = mt.tensor([[nan, 1.0], [1.0, 1.0]])
    assert math.isnan(LA.det(a).item())
    sign, logabs = LA.slogdet(a)
    assert sign.item() == 0 and math.isnan(logabs.item())
    assert np.isnan(LA.inv(a).numpy()).all()
    assert np.isnan(LA.solve(a, mt.ones(2)).numpy()).all()
    assert LA.inv_ex(a).info.item() == 0
    # the other matrices of the batch are computed as usual
    batch = mt.stack([2 * mt.eye(2), a])
    inv = LA.inv(batch).numpy()
    np.testing.assert_allclose(inv[0], 0.5 * np.eye(2))
    assert np.isnan(inv[1]).all()
    np.testing.assert_allclose(LA.det(batch).numpy()[:1], [4.0])
    # a singular matrix next to it still raises, naming its batch element
    got = _message(LA.LinAlgError, lambda: LA.inv(mt.stack([mt.zeros(2, 2), a])))
    assert got.startswith("linalg.inv: (Batch element 0): The diagonal element 1 is zero")


def test_cond_reads_nan_as_inf():
    a = mt.tensor([[float("nan"), 1.0], [1.0, 1.0]])
    for p in (1, -1, "fro", math.inf):
        assert LA.cond(a, p).item() == math.inf, p
    x = mt.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=F64, requires_grad=True)
    r = LA.cond(x, "fro")
    assert type(r.grad_fn).__name__ == "NanToNumBackward0"
    assert mt.autograd.gradcheck(lambda t: LA.cond(t, 1), (x,))
    assert mt.autograd.gradgradcheck(lambda t: LA.cond(t, "fro"), (x,))


def test_old_svd_checks_the_rank_first():
    for x in (mt.ones(3), mt.ones(3, dtype=mt.int64), mt.ones(())):
        got = _message(RuntimeError, lambda x=x: mt.svd(x))
        assert got == (
            f"linalg.svd: input should have at least 2 dimensions, but has {x.ndim} dimensions "
            "instead"
        )
    assert _message(RuntimeError, lambda: mt.ones(3).svd()).startswith("linalg.svd: input should")
    got = _message(RuntimeError, lambda: mt.svd(mt.ones(3, 3, dtype=mt.int64)))
    assert got == "linalg.svd: Expected a floating point or complex tensor as input. Got Long"


# --- forward mode through ops without a derivative ---

_FILE_AN_ISSUE = (
    "\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
)


@pytest.mark.parametrize(
    "fn, message",
    [
        (lambda m: LA.ldl_factor(m).LD,
         "Trying to use forward AD with aten::linalg_ldl_factor_ex that does not support it."),
        (lambda m: mt.bincount(mt.tensor([0, 1, 1]), m[0]),
         "Trying to use forward AD with aten::bincount that does not support it."),
        (lambda m: mt.geqrf(m)[0],
         "Trying to use forward AD with geqrf that does not support it because it has not been "
         "implemented yet." + _FILE_AN_ISSUE),
    ],
)  # fmt: skip
def test_forward_mode_refuses_ops_without_a_derivative(fn, message):
    a = mt.eye(3, dtype=F64) * 3 + 1
    f = mt.func
    assert _message(NotImplementedError, lambda: f.jacfwd(fn)(a)) == message
    assert _message(NotImplementedError, lambda: f.jvp(fn, (a,), (a,))) == message
    assert _message(NotImplementedError, lambda: f.hessian(lambda m: fn(m).sum())(a)) == message
    fa = mt.autograd.forward_ad
    with fa.dual_level():
        dual = fa.make_dual(a, a.clone())
        assert _message(NotImplementedError, lambda: fa.unpack_dual(fn(dual))) == message
    # reverse mode keeps its own words
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        f.jacrev(fn)(a)
    assert not str(info.value).startswith("Trying to use forward AD")
