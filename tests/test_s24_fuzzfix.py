"""Session 24 fuzz fixes (tools/fuzz): index_select/index_add out-of-range exception classes,
take_along_dim's modulo indices, signed zeros of maximum/minimum/clamp on ties, einsum's
dtypes for mixed operands whose summed letters have size 1. Expected values from torch 2.13."""

import math

import pytest

import minitorch as torch


def _err(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


# --- index_select / index_add out of range ---


@pytest.mark.parametrize(
    "dim, expected", [(0, "IndexError"), (1, "RuntimeError"), (2, "IndexError")]
)
def test_index_select_out_of_range_class_by_dim(dim, expected):
    x = torch.zeros(3, 4, 5)
    kind, msg = _err(lambda: x.index_select(dim, torch.tensor([-1])))
    assert kind == expected
    if dim == 1:
        assert msg == "INDICES element is out of DATA bounds, id=-1 axis_dim=4"
    else:
        assert msg == "index out of range in self"


def test_index_select_inner_dim_of_3d_is_index_error():
    x = torch.zeros(3, 1, 3, dtype=torch.int64)
    kind, msg = _err(lambda: torch.index_select(x, 2, torch.tensor([-3], dtype=torch.int32)))
    assert (kind, msg) == ("IndexError", "index out of range in self")


@pytest.mark.parametrize(
    "dim, index, alpha, expected",
    [
        (0, 4, 1, ("RuntimeError", "index 4 is out of bounds for dimension 0 with size 3")),
        (0, 4, 1.0, ("RuntimeError", "index 4 is out of bounds for dimension 0 with size 3")),
        (0, 4, 2, ("IndexError", "index out of range in self")),
        (1, -2, 1, ("IndexError", "index out of range in self")),
        (2, 5, 1, ("RuntimeError", "index 5 is out of bounds for dimension 2 with size 5")),
        (2, -1, 2.5, ("IndexError", "index out of range in self")),
    ],
)
def test_index_add_out_of_range_class(dim, index, alpha, expected):
    # torch scatters for alpha 1 along the first or last dim (RuntimeError), else IndexError
    shape = [3, 4, 5]
    shape[dim] = 1
    x = torch.zeros(3, 4, 5)
    got = _err(lambda: x.index_add(dim, torch.tensor([index]), torch.ones(shape), alpha=alpha))
    assert got == expected


def test_index_add_negative_index_on_middle_dim():
    x = torch.zeros(4, 2, 2)
    got = _err(lambda: x.index_add(1, torch.tensor([-2, 1]), torch.ones(4, 2, 2)))
    assert got == ("IndexError", "index out of range in self")


# --- take_along_dim ---


def test_take_along_dim_indices_modulo_size():
    x = torch.arange(4.0, requires_grad=True)
    y = torch.take_along_dim(x, torch.tensor([-7, 9, -1]), 0)
    assert y.tolist() == [1.0, 1.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0, 1.0]
    x2 = torch.arange(4.0).reshape(2, 2)
    assert torch.take_along_dim(x2, torch.tensor([[-3], [0]]), 1).tolist() == [[1.0], [2.0]]
    assert torch.take_along_dim(x2, torch.tensor([[100], [0]]), 1).tolist() == [[0.0], [2.0]]
    assert torch.take_along_dim(torch.tensor([7]), torch.tensor([1, 0]), 0).tolist() == [7, 7]


def test_take_along_dim_empty_dim():
    x = torch.zeros(2, 0)
    got = _err(lambda: torch.take_along_dim(x, torch.tensor([[0]]), 1))
    assert got == ("RuntimeError", "ZeroDivisionError")


# --- signed zeros on ties ---


def _sign(t):
    return math.copysign(1.0, t.item())


@pytest.mark.parametrize("dt", ["float64", "float32", "bfloat16", "float16"])
@pytest.mark.parametrize("a, b", [(0.0, -0.0), (-0.0, 0.0)])
def test_tie_keeps_first_operand(a, b, dt):
    ta = torch.tensor(a, dtype=getattr(torch, dt))
    tb = torch.tensor(b, dtype=getattr(torch, dt))
    want = math.copysign(1.0, a)  # torch keeps the input where it ties with the other/bound
    results = [
        torch.maximum(ta, tb),
        torch.minimum(ta, tb),
        torch.max(ta, tb),
        torch.min(ta, tb),
        torch.clamp_min(ta, tb),
        torch.clamp_max(ta, tb),
        torch.clamp(ta, min=tb),
        torch.clamp(ta, max=tb),
        torch.clamp(ta, tb, tb),
    ]
    assert [_sign(r) for r in results] == [want] * len(results)


def test_clamp_tensor_bounds_signed_zero():
    T = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
    assert _sign(torch.clamp(T(0.0), T(0.0), T(-0.0))) == 1.0
    assert _sign(torch.clamp(T(0.0), T(-1.0), T(-0.0))) == 1.0
    assert _sign(torch.clamp(T(-0.0), T(-1.0), T(0.0))) == -1.0
    assert _sign(torch.clamp(T(0.0), T(-0.0), T(0.0))) == 1.0
    assert torch.clamp(T(1.0), T(2.0), T(0.0)).item() == 0.0


# --- einsum dtypes ---


def test_einsum_mixed_dtypes_size_one_summed_letter():
    r = torch.einsum("e,aea", torch.tensor([2]), torch.ones(3, 1, 3))
    assert r.dtype is torch.float32 and r.item() == 6.0
    r = torch.einsum(
        "eb,e,bbb->e", torch.ones(2, 1), torch.tensor([1, 2]), torch.ones(1, 1, 1, dtype=torch.bool)
    )
    assert r.dtype is torch.float32 and r.tolist() == [1.0, 2.0]
    r = torch.einsum(
        "bb,ad,eac->",
        torch.ones(1, 1, dtype=torch.bool),
        torch.ones(1, 1, dtype=torch.float64),
        torch.ones(2, 1, 3),
    )
    assert r.dtype is torch.float64 and r.item() == 6.0
    r = torch.einsum("i,i", torch.ones(1, dtype=torch.uint8), torch.ones(1, dtype=torch.uint8))
    assert r.dtype is torch.uint8
    # a summed letter of size > 1 on both sides is a bmm: mixed dtypes are refused
    got = _err(lambda: torch.einsum("i,i", torch.tensor([1, 2]), torch.tensor([1.5, 2.0])))
    assert got == ("RuntimeError", "expected scalar type Long but found Float")
    a, b = torch.ones(1, 2), torch.ones(1, 2, dtype=torch.uint8)
    got = _err(lambda: torch.einsum("ab,ab->", a, b))
    assert got == ("RuntimeError", "expected scalar type Float but found Byte")
    r = torch.einsum(
        "a,b,ab->",
        torch.ones(1, dtype=torch.bool),
        torch.ones(3, dtype=torch.uint8),
        torch.ones(1, 3, dtype=torch.uint8),
    )
    assert r.dtype is torch.uint8 and r.item() == 3
