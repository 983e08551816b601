"""Session 31 (helper kan): torch-free regression tests of the library fixes the KAN and spline
programs of tests/reference/test_s31_kan_reference.py found: the order of linalg.lstsq's and
quantile's argument checks (torch's messages, written here as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _raises(fn, message):
    with pytest.raises(RuntimeError) as info:
        fn()
    assert str(info.value) == message


DRIVER = "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
FLOAT_ONLY = "This function doesn't handle types other than float and double"


@pytest.mark.parametrize("dtype", [mt.half, mt.bfloat16, mt.int64, mt.bool])
def test_lstsq_names_a_bad_driver_before_the_dtype(dtype):
    A = mt.ones(5, 3, dtype=dtype)
    _raises(lambda: mt.linalg.lstsq(A, A, driver="foo"), DRIVER)
    _raises(lambda: mt.linalg.lstsq(A, A, driver="gelsd"), FLOAT_ONLY)
    _raises(lambda: mt.linalg.lstsq(A, A), FLOAT_ONLY)
    # the shapes are checked before the driver
    _raises(
        lambda: mt.linalg.lstsq(A, mt.ones(4, 2, dtype=dtype), driver="foo"),
        "torch.linalg.lstsq: input.size(-2) should match other.size(-2)",
    )


def test_lstsq_refuses_an_empty_driver_name():
    A = mt.ones(5, 3, dtype=mt.float64)
    _raises(lambda: mt.linalg.lstsq(A, A, driver=""), DRIVER)
    b = mt.tensor([[1.0], [2.0], [3.0], [4.0], [5.0]], dtype=mt.float64)
    x = mt.linalg.lstsq(mt.eye(5, 3, dtype=mt.float64), b, driver=None).solution
    np.testing.assert_allclose(x.numpy(), [[1.0], [2.0], [3.0]], rtol=1e-12)


HALF = mt.ones(4, dtype=mt.half)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mt.quantile(HALF, 1.5), "quantile() q must be in the range [0, 1] but got 1.5"),
        (
            lambda: mt.nanquantile(mt.arange(4), -0.1, dim=0),
            "quantile() q must be in the range [0, 1] but got -0.1",
        ),
        (
            lambda: mt.quantile(HALF, 0.5, interpolation="cubic"),
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            "but got cubic",
        ),
        (
            lambda: mt.quantile(mt.ones(4), 2.0, interpolation="cubic"),
            "quantile() q must be in the range [0, 1] but got 2",
        ),
        (lambda: mt.quantile(HALF[:0], 0.5), "quantile() input tensor must be non-empty"),
        (
            lambda: mt.quantile(HALF, mt.tensor([[0.5]])),
            "quantile() q must be a scalar or 1D tensor",
        ),
        (
            lambda: mt.quantile(HALF, mt.tensor([0.5], dtype=mt.half)),
            "quantile() input tensor must be either float or double dtype",
        ),
        (
            lambda: mt.quantile(mt.ones(3), mt.tensor([0.5], dtype=mt.float64)),
            "quantile() q tensor must be same dtype as the input tensor",
        ),
        (
            lambda: mt.quantile(mt.ones(3), mt.tensor([0.5, 1.5])),
            "quantile() q values must be in the range [0, 1]",
        ),
    ],
)
def test_quantile_checks_in_torchs_order(call, message):
    _raises(call, message)


def test_quantile_values_unchanged():
    x = mt.tensor([1.0, 3.0, 2.0, 5.0, 4.0], dtype=mt.float64)
    np.testing.assert_allclose(mt.quantile(x, 0.3).item(), 2.2, rtol=1e-12)
    got = mt.nanquantile(x, mt.tensor([0.0, 0.5, 1.0], dtype=mt.float64)).tolist()
    assert got == [1.0, 3.0, 5.0]


def test_histc_checks_the_range_and_out_before_the_dtype():
    i64 = mt.ones(4, dtype=mt.int64)
    _raises(lambda: mt.histc(i64, bins=3, min=3, max=1), "torch.histc: max must be larger than min")
    _raises(
        lambda: mt.histc(i64, bins=3, min=0, max=float("inf")),
        "torch.histc: range of [0, inf] is not finite",
    )
    _raises(
        lambda: mt.histc(mt.ones(4, dtype=mt.int8), bins=3, min=0, max=2, out=mt.ones(3)),
        "torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
        "signed char and hist float",
    )
    _raises(
        lambda: mt.histc(mt.ones(4, dtype=mt.float64), 3, 3, 1, out=mt.ones(3, dtype=mt.int8)),
        "torch.histogram: input tensor and hist tensor should have the same dtype, but got input "
        "double and hist signed char",
    )
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        mt.histc(i64, bins=3)
    # a bool input fails at the bin edges' linspace
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        mt.histc(mt.ones(4, dtype=mt.bool), bins=3)
    out = mt.zeros(3)
    mt.histc(mt.tensor([0.0, 1.0, 1.0, 2.0]), bins=3, out=out)
    assert out.tolist() == [1.0, 2.0, 1.0]


def test_cdist_checks_dims_and_columns_before_dtypes():
    i64 = mt.ones(2, 3, dtype=mt.int64)
    _raises(
        lambda: mt.cdist(i64, mt.ones(2, 4, dtype=mt.int64)),
        "X1 and X2 must have the same number of columns. X1: 3 X2: 4",
    )
    _raises(
        lambda: mt.cdist(i64, mt.ones(3)), "cdist only supports at least 2D tensors, X2 got: 1D"
    )
    _raises(lambda: mt.cdist(i64, i64), "cdist only supports floating-point dtypes, X1 got: Long")
    _raises(
        lambda: mt.cdist(mt.ones(2, 3), i64),
        "cdist only supports floating-point dtypes, X2 got: Long",
    )


def test_searchsorted_checks_before_the_bool_kernel_and_nan_ended_rows():
    b = mt.ones(2, 4, dtype=mt.bool)
    _raises(
        lambda: mt.searchsorted(b, mt.ones(3, 2, dtype=mt.bool)),
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
        "dimensions of boundaries tensor and input value tensor must match, but we got "
        "boundaries tensor [2, 4] and input value tensor [3, 2]",
    )
    _raises(
        lambda: mt.searchsorted(b[0], b[0], sorter=mt.arange(3)),
        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
        "tensor [4]and got sorter tensor [3]",
    )
    with pytest.raises(NotImplementedError, match="searchsorted_out_cpu"):
        mt.searchsorted(b[0], mt.ones(3, dtype=mt.bool))
    # a 1-D sequence ending in NaN takes values of any shape
    seq = mt.tensor([0.0, 1.0, float("nan")])
    assert mt.searchsorted(seq, mt.tensor([[0.5, 2.0]])).tolist() == [[1, 3]]
    assert mt.bucketize(mt.tensor([[0.5], [1.0]]), seq, right=True).tolist() == [[1], [3]]


def test_histogram_of_float16_and_bfloat16_over_a_range_or_edges():
    x = mt.tensor([0.1, 0.5, 0.7, 0.7, 2.0])
    h = mt.histogram(x.half(), bins=3, range=(0.0, 1.0), weight=mt.ones(5).half(), density=True)
    assert h.hist.dtype is mt.float16
    assert h.hist.tolist() == [0.75, 0.7490234375, 1.501953125]
    assert h.bin_edges.tolist() == [0.0, 0.333251953125, 0.6669921875, 1.0]
    hb = mt.histogram(x.bfloat16(), bins=mt.tensor([0.0, 0.5, 1.0]).bfloat16())
    assert (hb.hist.dtype, hb.hist.tolist()) == (mt.bfloat16, [1.0, 3.0])
    dd = mt.histogramdd(x.half().view(-1, 1), bins=[3], range=[0.0, 1.0])
    assert dd.hist.tolist() == [1.0, 1.0, 2.0]
    # the data's own range is read in float32/float64 only
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Half'"):
        mt.histogram(x.half(), bins=3)


def test_histogram_of_integers_and_bools_checks_in_torchs_order():
    xl = mt.tensor([0, 1, 1, 2])
    _raises(
        lambda: mt.histogram(xl, bins=3, range=(2.0, 1.0)),
        "torch.histogramdd: min should not exceed max, but got min 2 max 1 for dimension 0",
    )
    _raises(
        lambda: mt.histogram(xl, bins=3, range=(0.0, 1.0), weight=mt.ones(3).long()),
        "torch.histogramdd: if weight tensor is provided it should have the same shape as the "
        "input tensor excluding its innermost dimension, but got input with shape [4, 1] and "
        "weight with shape [3]",
    )
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        mt.histogram(xl, bins=3, range=(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        mt.histogram(xl, bins=3)
    with pytest.raises(NotImplementedError, match="\"linspace_cpu\" not implemented for 'Bool'"):
        mt.histogram(xl.bool(), bins=3, range=(0.0, 1.0), weight=mt.ones(3))


@pytest.mark.parametrize("dtype", [mt.int64, mt.half, mt.bool])
def test_solve_triangular_checks_shapes_before_the_dtype(dtype):
    A = mt.ones(3, 3, dtype=dtype)
    _raises(
        lambda: mt.linalg.solve_triangular(A, mt.ones(4, 1, dtype=dtype), upper=True),
        "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 "
        "and 4x1)",
    )
    _raises(
        lambda: mt.linalg.solve_triangular(A[:, :2], mt.ones(3, 1, dtype=dtype), upper=True),
        "linalg.solve_triangular: A must be batches of square matrices, but they are 3 by 2 "
        "matrices",
    )
    _raises(
        lambda: mt.linalg.solve_triangular(A, mt.ones(3), upper=True),
        "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.",
    )
    _raises(
        lambda: mt.linalg.solve_triangular(A.expand(2, 3, 3), mt.ones(3, 3, 1), upper=True),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
    )
    name = {mt.int64: "Long", mt.half: "Half", mt.bool: "Bool"}[dtype]
    with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
        mt.linalg.solve_triangular(A, mt.ones(3, 1), upper=True)


def test_solve_checks_an_integer_dtype_first_and_a_half_one_last():
    _raises(
        lambda: mt.linalg.solve(mt.ones(3, dtype=mt.int64), mt.ones(3, dtype=mt.int64)),
        "linalg.solve: Expected a floating point or complex tensor as input. Got Long",
    )
    H = mt.ones(3, 3, dtype=mt.half)
    _raises(
        lambda: mt.linalg.solve(H, mt.ones(4, dtype=mt.half)),
        "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)",
    )
    _raises(
        lambda: mt.linalg.solve(H, mt.ones(3), left=False),
        "linalg.solve: Expected A and B to have the same dtype, but found A of type Half and B of "
        "type Float instead",
    )
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Half'"):
        mt.linalg.solve(H, mt.ones(3, dtype=mt.half))


def test_trace_of_bool_refused_before_its_dims():
    for x in (mt.ones(3, dtype=mt.bool), mt.ones(2, 2, 2, dtype=mt.bool)):
        with pytest.raises(NotImplementedError, match="\"trace\" not implemented for 'Bool'"):
            mt.trace(x)
    _raises(lambda: mt.trace(mt.ones(3)), "trace: expected a matrix, but got tensor with dim 1")


def test_unfold_and_fold_check_shapes_before_an_integer_dtype():
    F = mt.nn.functional
    _raises(
        lambda: F.unfold(mt.ones(1, 1, 2, 2, dtype=mt.int64), 3),
        "Given input with spatial size (2, 2), kernel_size=(3, 3), dilation=(1, 1), "
        "padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), but its "
        "components must be at least one.",
    )
    _raises(
        lambda: F.fold(mt.ones(1, 9, 5, dtype=mt.int64), (4, 4), 3),
        "Given output_size=(4, 4), kernel_size=(3, 3), dilation=(1, 1), padding=(0, 0), "
        "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
        "sliding blocks 2 * 2 = 4, but got input.size(2)=5.",
    )
    with pytest.raises(NotImplementedError, match="\"im2col_out_cpu\" not implemented for 'Long'"):
        F.unfold(mt.ones(1, 1, 4, 4, dtype=mt.int64), 3)
    with pytest.raises(NotImplementedError, match="\"col2im_out_cpu\" not implemented for 'Long'"):
        F.fold(mt.ones(1, 9, 4, dtype=mt.int64), (4, 4), 3)
    assert F.unfold(mt.ones(1, 1, 3, 3, dtype=mt.bool), 3).shape == (1, 9, 1)


@pytest.mark.parametrize("dtype", [mt.int64, mt.half])
def test_cholesky_inverse_and_householder_product_check_shapes_before_the_dtype(dtype):
    _raises(
        lambda: mt.cholesky_inverse(mt.ones(2, 3, dtype=dtype)),
        "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 matrices",
    )
    _raises(
        lambda: mt.cholesky_inverse(mt.ones(3, dtype=dtype)),
        "cholesky_inverse: The input tensor A must have at least 2 dimensions.",
    )
    op = "torch.linalg.householder_product"
    hp = mt.linalg.householder_product
    _raises(
        lambda: hp(mt.ones(2, 2, dtype=dtype), mt.ones(3, dtype=dtype)),
        f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]",
    )
    _raises(
        lambda: hp(mt.ones(2, 3, dtype=dtype), mt.ones(1, dtype=dtype)),
        f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]",
    )
    name = "Long" if dtype is mt.int64 else "Half"
    _raises(
        lambda: hp(mt.ones(3, 2, dtype=dtype), mt.ones(1, dtype=mt.float64)),
        f"{op}: tau dtype Double does not match input dtype {name}",
    )
    with pytest.raises(NotImplementedError, match="orgqr_cpu"):
        hp(mt.ones(3, 2, dtype=dtype), mt.ones(1, dtype=dtype))
    with pytest.raises(NotImplementedError, match="cholesky_inverse_out_cpu"):
        mt.cholesky_inverse(mt.ones(3, 3, dtype=dtype))
