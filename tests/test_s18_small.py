"""Small parity fixes: kthvalue/cumsum/clamp on bool, dist's operands, bincount's allocation
error, shape-before-dtype errors, index_fill on an empty dim, softmax of empty integers."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck

T = torch.tensor


def test_kthvalue_bool_0d_and_empty():
    values, indices = T(True).kthvalue(1)
    assert values.dtype is torch.bool and values.item() is True
    assert indices.dtype is torch.int64 and indices.item() == 0
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        T(True).kthvalue(2)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        T([], dtype=torch.bool).kthvalue(1)
    with pytest.raises(NotImplementedError, match="kthvalue_cpu"):
        T([True, False]).kthvalue(1)


def test_dist_needs_tensor_operands():
    for other in (1, 1.0, -2.5):
        with pytest.raises(TypeError, match=r"argument 'other' \(position 2\) must be Tensor"):
            torch.dist(T([1.0, 2.0]), other)
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        T([1.0, 2.0]).dist(1)
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\)"):
        torch.dist(1, T([1.0]))
    assert torch.dist(T([1.0, 2.0]), T([0.0, 0.0]), 1).item() == 3.0
    a = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([0.3, 0.7, -1.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(torch.dist, (a, b))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scan_into_bool_dtype(op):
    for x in (T([True, True]), T([1.0, 2.0]), torch.zeros(1, 1)):
        with pytest.raises(NotImplementedError, match=f'"{op}_out_cpu" not implemented for'):
            getattr(x, op)(-1, dtype=torch.bool)
    # no kernel runs for a 0-d or empty input: torch gives the bool result
    assert getattr(T(True), op)(0, dtype=torch.bool).item() is True
    e = getattr(torch.zeros(2, 0), op)(0, dtype=torch.bool)
    assert e.dtype is torch.bool and e.shape == (2, 0)
    assert getattr(T([1.0, 2.0]), op)(0, dtype=torch.int32).tolist() == (
        [1, 3] if op == "cumsum" else [1, 2]
    )


def test_clamp_bool_number_bounds():
    x = T([True, False])
    cases = [
        (lambda: x.clamp(max=True), "clamp_max_scalar_cpu"),
        (lambda: x.clamp(min=False), "clamp_min_scalar_cpu"),
        (lambda: x.clamp(False, True), "clamp_scalar_cpu"),
        (lambda: x.clamp(T(False), True), "clamp_scalar_cpu"),
        (lambda: x.clamp(T([False]), T([True])), "clamp_cpu"),
        (lambda: torch.clamp_max(x, True), "clamp_max_scalar_cpu"),
        (lambda: x.clone().clamp_(min=True), "clamp_min_scalar_cpu"),
        (lambda: T([], dtype=torch.bool).clip(max=True), "clamp_max_scalar_cpu"),
    ]
    for f, kernel in cases:
        with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
            f()
    # one tensor bound, or a bound that promotes the bool, still computes
    assert x.clamp(min=T([True])).tolist() == [True, True]
    r = x.clamp(max=1)
    assert r.dtype is torch.int64 and r.tolist() == [1, 0]


def test_bincount_too_large_is_runtime_error():
    with pytest.raises(RuntimeError, match="you tried to allocate 8796093022216 bytes"):
        torch.bincount(T([2**40]))
    with pytest.raises(RuntimeError, match="you tried to allocate 8796093022208 bytes"):
        torch.bincount(T([1]), minlength=2**40)
    with pytest.raises(RuntimeError, match="you tried to allocate 4398046511108 bytes"):
        torch.bincount(T([2**40]), T([1.0]))
    with pytest.raises(RuntimeError, match=r"overflowed with sizes=\[4611686018427387905\]"):
        torch.bincount(T([2**62]))
    assert torch.bincount(T([1, 3])).tolist() == [0, 1, 0, 1]
    np.testing.assert_array_equal(torch.bincount(T([1, 3]), T([0.5, 1.0])).numpy(), [0, 0.5, 0, 1])


@pytest.mark.parametrize("op", ["hypot", "logaddexp", "logaddexp2", "igamma", "igammac"])
def test_bad_shapes_reported_before_dtype(op):
    f = getattr(torch, op)
    a, b = torch.ones(2, 3, dtype=torch.long), torch.ones(5, dtype=torch.long)
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match .* \(5\)"):
        f(a, b)
    with pytest.raises(NotImplementedError, match=f"{op}_cpu"):
        f(a, torch.ones(3, dtype=torch.long))


def test_index_fill_on_empty_input():
    idx = T([0])
    for x, dim in ((torch.zeros(0), 0), (torch.zeros(3, 0), 1)):
        for index in (idx, T(0), T([-1])):
            with pytest.raises(RuntimeError, match="^setStorage: .* storage of size 0$"):
                x.index_fill(dim, index, 1.0)
        with pytest.raises(RuntimeError, match="size 0"):
            x.clone().index_fill_(dim, idx, T(1.0))
        assert x.index_fill(dim, T([], dtype=torch.int64), 1.0).shape == x.shape
    # an empty input with a non-empty filled dim: torch checks no bound and fills nothing
    for index in (T([5]), T([1])):
        assert torch.zeros(0, 3).index_fill(1, index, 1.0).shape == (0, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        torch.zeros(3).index_fill(0, T([5]), 1.0)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_empty_integer(op):
    for dt in (torch.int8, torch.int64, torch.uint8, torch.bool):
        x = torch.zeros(2, 0, dtype=dt)
        r = getattr(torch, op)(x, 1)
        assert r.dtype is dt and r.shape == (2, 0)
        assert getattr(torch.nn.functional, op)(x, 0).dtype is dt
    assert getattr(torch, op)(torch.zeros(0), 0, dtype=torch.int32).dtype is torch.int32
    with pytest.raises(NotImplementedError, match=f"{op}_lastdim_kernel_impl"):
        getattr(torch, op)(T([1, 2]), 0)
