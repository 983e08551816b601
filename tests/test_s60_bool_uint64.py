"""Session 60: a bool tensor with a Python int in [2**63, 2**64). torch reads such a number as a
uint64 and refuses to promote Bool with UInt64; an integer tensor wraps it and a floating one
converts it (tests/reference/test_s60_bool_uint64_reference.py compares with torch)."""

import operator

import pytest

import minitorch as torch

REFUSED = (
    "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and "
    "UInt64"
)
BOOL_SUB = "Subtraction, the `-` operator, with a bool tensor is not supported."

OPS = [operator.add, operator.mul, operator.truediv, operator.eq, operator.lt, operator.and_]


@pytest.mark.parametrize("number", [2**63, 2**64 - 1])
@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
def test_a_bool_tensor_refuses_a_uint64_number(op, number):
    with pytest.raises(RuntimeError, match=f"^{REFUSED}$"):
        op(torch.tensor([True, False]), number)


def test_the_number_first_and_the_functions_refuse_it_too():
    t = torch.tensor(True)
    with pytest.raises(RuntimeError, match=f"^{REFUSED}$"):
        2**63 * t
    with pytest.raises(RuntimeError, match=f"^{REFUSED}$"):
        t.add(2**63)
    with pytest.raises(RuntimeError, match=f"^{REFUSED}$"):
        torch.where(t, t, 2**63)


def test_subtraction_names_the_bool_operand_first():
    with pytest.raises(RuntimeError, match=f"^{BOOL_SUB}"):
        torch.tensor(True) - 2**63


def test_other_dtypes_and_numbers_are_unchanged():
    assert (torch.tensor(True) + (-(2**63))).item() == -(2**63) + 1
    assert (torch.tensor(1) + 2**63).item() == -(2**63) + 1  # int64 wraps the number
    assert (torch.tensor([1], dtype=torch.uint8) + 2**63).tolist() == [1]
    assert (torch.tensor(1.0) + 2**63).item() == 2.0**63
    with pytest.raises(OverflowError, match="int too big to convert"):
        torch.tensor(True) + 2**64
