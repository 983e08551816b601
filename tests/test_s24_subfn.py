"""Tensor subclasses through the torch.* function forms of ops whose results do not come from
Function.apply (comparisons, logical/bitwise ops, predicates, integer arithmetic, index results,
grids): torch 2.13 returns the most derived subclass. Expected values are torch's, run by hand."""

import pytest

import minitorch as torch


class A(torch.Tensor):
    pass


class B(A):
    pass


def names(r):
    if isinstance(r, (tuple, list)):
        return tuple(type(t).__name__ for t in r)
    return type(r).__name__


def _ints():
    x = torch.tensor([[3, 1, 2], [0, 5, 4]])
    return x, x.as_subclass(A), x.as_subclass(B)


def test_comparisons_logical_bitwise_keep_the_subclass():
    x, a, b = _ints()
    assert names(torch.eq(x, a)) == "A"  # the subclass second: still A
    assert names(torch.lt(a, 2)) == "A"
    assert names(torch.greater(x, b)) == "B"
    assert names(torch.logical_and(x, b)) == "B"
    assert names(torch.logical_not(a)) == "A"
    assert names(torch.bitwise_xor(a, b)) == "B"  # the most derived
    assert names(torch.bitwise_not(a)) == "A"
    assert names(torch.bitwise_left_shift(x, a)) == "A"
    assert torch.eq(x, a).tolist() == [[True, True, True], [True, True, True]]
    assert names(torch.eq(x, x)) == "Tensor"


def test_predicates_and_isclose_keep_the_subclass():
    f = torch.tensor([1.5, float("nan"), -2.0]).as_subclass(A)
    assert names(torch.isnan(f)) == "A"
    assert torch.isnan(f).tolist() == [False, True, False]
    assert names(torch.signbit(f)) == "A"
    assert names(torch.isposinf(f)) == "A"
    assert names(torch.isfinite(f)) == "A"
    assert names(torch.isclose(torch.tensor([1.5, 0.0, -2.0]), f)) == "A"


def test_integer_arithmetic_keeps_the_subclass():
    x, a, b = _ints()
    assert names(torch.div(a, 2, rounding_mode="floor")) == "A"
    assert torch.div(a, 2, rounding_mode="floor").tolist() == [[1, 0, 1], [0, 2, 2]]
    assert names(torch.floor_divide(x, a + 1)) == "A"
    assert names(torch.remainder(a, 3)) == "A"
    assert names(torch.fmod(x, b + 1)) == "B"
    assert names(torch.gcd(x, a)) == "A"
    assert names(torch.lcm(a, x)) == "A"
    assert names(torch.nan_to_num(a)) == "A"


def test_index_results_keep_the_subclass():
    x, a, b = _ints()
    f = torch.tensor([1.5, float("nan"), -2.0]).as_subclass(A)
    assert names(torch.argmax(a, 1)) == "A"
    assert torch.argmax(b, 1).tolist() == [0, 1]
    assert names(torch.argmin(a)) == "A"
    assert names(torch.any(a, 1)) == "A"
    assert names(torch.count_nonzero(a, 0)) == "A"
    assert names(torch.argsort(a)) == "A"
    for r in (
        torch.sort(a),
        torch.topk(a, 2),
        torch.kthvalue(a, 1),
        torch.cummin(a, 1),
        torch.cummax(a, 1),
        torch.median(a, 1),
        torch.nanmedian(f, 0),
        torch.frexp(f),
    ):
        assert names(r) == ("A", "A")
    assert torch.sort(a).indices.tolist() == [[1, 2, 0], [0, 2, 1]]
    assert names(torch.nonzero_static(a, size=3)) == "A"


def test_grids_and_quantile_take_the_most_derived_subclass():
    x, a, b = _ints()
    assert names(torch.meshgrid(x[0], b[1], indexing="ij")) == ("B", "B")
    assert names(torch.broadcast_tensors(a, x[0])) == ("A", "A")
    assert names(torch.atleast_2d(x[0], a[0])) == ("A", "A")
    q = torch.tensor([0.25, 0.5]).as_subclass(B)
    r = torch.quantile(torch.tensor([1.0, 2.0, 3.0]), q)
    assert names(r) == "B"
    assert r.tolist() == [1.5, 2.0]
    assert names(torch.linalg.matrix_power(torch.eye(2).as_subclass(A), 0)) == "A"
    assert names(torch.special.bessel_j0(torch.tensor([0.5]).as_subclass(A))) == "A"


def test_parameter_and_disabled_dispatch_give_plain_tensors():
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert names(torch.eq(p, p)) == "Tensor"
    assert names(torch.eq(p, torch.tensor([1.0, 3.0]).as_subclass(A))) == "A"
    x, a, _ = _ints()
    with torch._C.DisableTorchFunctionSubclass():
        assert names(torch.sort(a)) == ("Tensor", "Tensor")
        assert names(torch.eq(a, x)) == "Tensor"


def test_own_torch_function_is_refused_for_function_forms():
    class C(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "called"

    c = torch.tensor([1, 2]).as_subclass(C)
    assert (c == c) == "called"  # operators reach it, as in torch
    with pytest.raises(TypeError, match="C.__torch_function__: minitorch calls"):
        torch.eq(c, c)  # torch would call it; minitorch cannot name the op's func
