"""Scatters on a GPU-like device for every dtype: CuPy's ufunc.at kernels (atomic operations)
exist for a few ufuncs and dtypes only (add: int32, uint32, uint64 and the floats; maximum and
minimum: int32, uint32, uint64, float32, float64; no multiply), and the strict device refuses
the rest as CuPy does. Backend.ufunc_at scatters an int64 sum as uint64 (the same bits), a
narrower dtype in int32/float32, and the rest (products, int64 extremes) by sorting; here every
path gives the CPU's values. Before, index_add/scatter_add/index_put(accumulate=True) of int64,
int8, int16, uint8 and bool tensors, and scatter_reduce of any dtype with 'prod' or of int64,
float16 and small integers with 'amax'/'amin', raised on a GPU."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import DEVICE_UFUNC_AT, strict

DTYPES = [
    mt.int64, mt.int32, mt.int16, mt.int8, mt.uint8, mt.bool, mt.float16, mt.float32, mt.float64,
]  # fmt: skip
OPS = ["index_add", "scatter_add", "index_put", "amax", "amin", "prod", "sum", "mean"]


def _case(op, dt, device):
    g = mt.Generator().manual_seed(1)
    low, high = (0, 2) if dt is mt.bool else (-5, 6)
    base = mt.randint(low, high, (4, 3), generator=g).to(dt).to(device)
    src = mt.randint(low, high, (6, 3), generator=g).to(dt).to(device)
    idx = mt.tensor([0, 2, 0, 3, 2, 0]).to(device)
    if op == "index_add":
        return base.index_add(0, idx, src)
    if op == "scatter_add":
        return base.scatter_add(0, idx.view(6, 1).expand(6, 3), src)
    if op == "index_put":
        return base.index_put((idx,), src, accumulate=True)
    return base.scatter_reduce(0, idx.view(6, 1).expand(6, 3), src, reduce=op)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_scatters_on_the_strict_device_match_the_cpu(op, dt):
    if dt is mt.bool and op not in ("index_add", "scatter_add", "index_put"):
        pytest.skip("torch refuses these reductions of bool")
    want = _case(op, dt, "cpu")
    got = _case(op, dt, "strict")
    assert got.dtype is dt and mt.equal(got.cpu(), want), (want, got)


def test_int64_sums_wrap_as_on_the_cpu():
    big = mt.tensor([2**62, -(2**62), 5])
    src = mt.tensor([2**62, 2**62, -(2**62), 7])
    idx = mt.tensor([0, 0, 1, 2])
    want = big.index_add(0, idx, src)
    assert mt.equal(big.to("strict").index_add(0, idx.to("strict"), src.to("strict")).cpu(), want)


def test_int64_extremes_and_products_by_sorting():
    x = mt.tensor([[2**40, -3], [7, 2**50]]).to("strict")
    idx = mt.tensor([[1, 0], [1, 0]]).to("strict")
    src = mt.tensor([[2**41, -2], [-(2**45), 9]]).to("strict")
    for reduce in ("amax", "amin", "prod"):
        got = x.scatter_reduce(0, idx, src, reduce=reduce).cpu()
        want = x.cpu().scatter_reduce(0, idx.cpu(), src.cpu(), reduce=reduce)
        assert mt.equal(got, want), reduce


@pytest.mark.parametrize("dtype", ["int64", "int8", "bool", "uint8"])
def test_strict_refuses_the_add_at_dtypes_cupy_lacks(dtype):
    a = strict.xp.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match=r"cupy\.add\.at only supports"):
        strict.xp.add.at(a, strict.xp.asarray([0, 0]), strict.xp.ones(2, dtype=dtype))


def test_strict_refuses_extremes_at_of_int64_and_float16():
    for dtype in ("int64", "float16", "int8"):
        a = strict.xp.zeros(3, dtype=dtype)
        with pytest.raises(TypeError, match=r"cupy\.maximum\.at only supports"):
            strict.xp.maximum.at(a, strict.xp.asarray([0]), strict.xp.ones(1, dtype=dtype))
    assert DEVICE_UFUNC_AT["maximum"] == {"int32", "uint32", "uint64", "float32", "float64"}
    a = strict.xp.zeros(3, dtype="float64")
    strict.xp.maximum.at(a, strict.xp.asarray([1, 1]), strict.xp.asarray([2.0, 5.0]))
    np.testing.assert_array_equal(a.get(), [0.0, 5.0, 0.0])
