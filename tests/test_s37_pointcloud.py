"""Session 37 (helper pointcloud): torch-free regression tests of the library fixes the
point-cloud programs of tests/reference/test_s37_pointcloud_reference.py found: torch's CPU
bmm (and matmul of batches, baddbmm, and cdist's matrix-product form, a product of the rows
augmented by two columns) words a mixed-dtype error by the size of one product: its naive kernel
below 400 multiply-adds, its gemm path from there on; an empty product of two dtypes is no
error (a result of batch2's dtype). torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


SMALL = "expected scalar type Double but found Float"  # the naive kernel reads batch2
GEMM = "expected scalar type Float but found Double"  # gemm reads batch1 as batch2's dtype


@pytest.mark.parametrize(
    "n, k, m, d1, d2, want",
    [
        (4, 5, 19, mt.float64, mt.float32, SMALL),
        (4, 5, 20, mt.float64, mt.float32, GEMM),
        (30, 5, 5, mt.float32, mt.float64, "expected scalar type Double but found Float"),
        (30, 5, 5, mt.float16, mt.float32, "expected scalar type Float but found Half"),
        (4, 5, 5, mt.float64, mt.float16, "expected scalar type Double but found Half"),
        (
            4, 5, 20, mt.float64, mt.float16,
            "expected m1 and m2 to have the same dtype, but got: double != c10::Half",
        ),
        (
            20, 20, 1, mt.float32, mt.int64,
            "expected m1 and m2 to have the same dtype, but got: float != long int",
        ),
        (
            20, 20, 1, mt.bfloat16, mt.float16,
            "expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != c10::Half",
        ),
    ],
)  # fmt: skip
def test_bmm_mixed_dtypes_by_product_size(n, k, m, d1, d2, want):
    a, b = mt.ones(2, n, k, dtype=d1), mt.ones(2, k, m, dtype=d2)
    assert _message(lambda: mt.bmm(a, b)) == want
    assert _message(lambda: mt.matmul(a, b)) == want
    assert _message(lambda: a @ b[:1]) == want


def test_bmm_gemm_path_checks_dtypes_before_bool():
    a, b = mt.ones(2, 4, 5, dtype=mt.bool), mt.ones(2, 5, 20)
    assert _message(lambda: mt.bmm(a, b)) == "expected scalar type Float but found Bool"
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        mt.bmm(a, b[..., :5])  # (the naive kernel's dispatch speaks first)


def test_baddbmm_gemm_path_words():
    a, b = mt.ones(2, 4, 5, dtype=mt.float64), mt.ones(2, 5, 20, dtype=mt.float16)
    base = mt.zeros(2, 4, 20, dtype=mt.float64)
    assert _message(lambda: mt.baddbmm(base, a, b)) == (
        "mat1 and mat2 must have the same dtype, but got Double and Half"
    )
    assert _message(lambda: mt.baddbmm(base, a, b.float())) == GEMM
    assert _message(lambda: mt.baddbmm(base[..., :5], a, b[..., :5])) == (
        "expected scalar type Double but found Half"
    )


@pytest.mark.parametrize(
    "s1, s2, d2, want",
    [
        ((2, 4, 3), (2, 5, 3), mt.float16, "expected scalar type Double but found Half"),
        (
            (2, 30, 3), (2, 5, 3), mt.float16,
            "expected m1 and m2 to have the same dtype, but got: double != c10::Half",
        ),
        ((2, 30, 3), (2, 5, 3), mt.float32, GEMM),
        ((4, 3), (2, 30, 3), mt.float32, GEMM),
        ((1, 30, 3), (5, 3), mt.float32,
         "expected m1 and m2 to have the same dtype, but got: double != float"),
        ((1, 4, 3), (5, 3), mt.float32,
         "expected m1 and m2 to have the same dtype, but got: double != float"),
        ((30, 3), (1, 5, 3), mt.float32, GEMM),
    ],
)  # fmt: skip
def test_cdist_matrix_product_form_mixed_dtypes(s1, s2, d2, want):
    a, b = mt.ones(s1, dtype=mt.float64), mt.ones(s2, dtype=d2)
    assert _message(lambda: mt.cdist(a, b, compute_mode="use_mm_for_euclid_dist")) == want


def test_cdist_direct_form_mixed_dtypes_unchanged():
    a, b = mt.ones(2, 4, 3, dtype=mt.float64), mt.ones(2, 5, 3)
    assert _message(lambda: mt.cdist(a, b)) == SMALL
    assert _message(lambda: mt.cdist(a, b, p=1.0)) == SMALL


def test_bmm_same_dtype_still_multiplies():
    g = mt.Generator().manual_seed(0)
    a = mt.randn(2, 4, 5, generator=g, dtype=mt.float64)
    b = mt.randn(2, 5, 20, generator=g, dtype=mt.float64)
    want = (a.unsqueeze(-1) * b.unsqueeze(1)).sum(2)
    assert (mt.bmm(a, b) - want).abs().max().item() < 1e-12


@pytest.mark.parametrize(
    "s1, s2, shape",
    [((2, 0, 5), (2, 5, 5), (2, 0, 5)), ((2, 4, 0), (2, 0, 5), (2, 4, 5)),
     ((0, 4, 5), (0, 5, 5), (0, 4, 5))],
)  # fmt: skip
def test_bmm_empty_product_of_two_dtypes_has_batch2s_dtype(s1, s2, shape):
    a = mt.ones(s1, dtype=mt.float64, requires_grad=True)
    b = mt.ones(s2, dtype=mt.float32)
    for out in (mt.bmm(a, b), mt.matmul(a, b)):
        assert out.dtype is mt.float32 and tuple(out.shape) == shape
        assert not out.detach().any().item()
        (g,) = mt.autograd.grad(out.sum(), a)
        assert g.dtype is mt.float64 and tuple(g.shape) == s1
    assert mt.bmm(mt.ones(s1, dtype=mt.int64), b).dtype is mt.float32
