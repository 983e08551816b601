"""Session 30 (helper moe): torch-free checks of the fix found by the mixture-of-experts
programs in tests/reference/test_s30_moe_reference.py. Values are torch 2.13's.

index_reduce's 'mean' of half values (pooling many routed tokens into one expert slot) sums
in the dtype itself, rounding as it goes, as index_add does (1000 adds of 0.1 stop at 105.1875
in float16 and at 32 in bfloat16), where scatter_reduce's 'mean' sums in float32; for a 1-d
input torch counts the values in the dtype too (a bfloat16 count stops at 256), for a larger
input exactly. The gradients divide by the same counts."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt


def _mean_of_many(dtype, include_self, shape):
    many = mt.zeros(1000, dtype=mt.long)
    src = mt.full((1000,) + shape[1:], 0.1, dtype=dtype, requires_grad=True)
    base = mt.zeros(*shape, dtype=dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce is in beta)
        out = base.index_reduce(0, many, src, "mean", include_self=include_self)
    out.backward(mt.ones_like(out))
    first = (0,) * len(shape)
    return out[first].item(), src.grad[first].item(), base.grad[first].item()


@pytest.mark.parametrize(
    "dtype, include_self, shape, want",
    [
        ("float16", True, (3, 2), (0.1051025390625, 0.00099945068359375, 0.00099945068359375)),
        ("float16", False, (3, 2), (0.10516357421875, 0.0010004043579101562, 0.0)),
        ("float16", True, (3,), (0.1051025390625, 0.00099945068359375, 0.00099945068359375)),
        ("float16", False, (3,), (0.10516357421875, 0.0010004043579101562, 0.0)),
        ("bfloat16", True, (3, 2), (0.031982421875, 0.00099945068359375, 0.00099945068359375)),
        ("bfloat16", False, (3, 2), (0.031982421875, 0.00099945068359375, 0.0)),
        ("bfloat16", True, (3,), (0.125, 0.00390625, 0.00390625)),
        ("bfloat16", False, (3,), (0.125, 0.00390625, 0.0)),
    ],
)
def test_index_reduce_mean_accumulates_half_values_in_their_dtype(dtype, include_self, shape, want):
    assert _mean_of_many(getattr(mt, dtype), include_self, shape) == want


@pytest.mark.parametrize(
    "dtype, want", [("float16", 0.09991455078125), ("bfloat16", 0.10009765625)]
)
def test_scatter_reduce_mean_still_sums_half_values_in_float32(dtype, want):
    dt = getattr(mt, dtype)
    idx = mt.zeros(1000, 2, dtype=mt.long)
    out = mt.zeros(3, 2, dtype=dt).scatter_reduce(0, idx, mt.full((1000, 2), 0.1, dtype=dt), "mean")
    assert out[0, 0].item() == want
