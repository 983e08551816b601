"""c10's checked-conversion overflow errors name each dtype in c10's spelling, from one table
(minitorch/_dtype.py C10_NAMES); literals from torch 2.13."""

import pytest

import minitorch as torch


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: torch.randperm(2**31 + 5, dtype=torch.int32), "int"),
        (lambda: torch.randperm(300, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.full((2,), 300, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.full((2,), 1e39), "float"),
        (lambda: torch.zeros(3, dtype=torch.int32).fill_(2**40), "int"),
        (lambda: torch.linspace(0, 300, 5, dtype=torch.uint8), "uint8_t"),
        (lambda: torch.zeros(2).half().masked_fill(torch.tensor([True, False]), 1e9), "c10::Half"),
        (lambda: torch.tensor([300], dtype=torch.uint8), "uint8"),  # tensor() names it so
        (lambda: torch.tensor([2**40], dtype=torch.int32), "int32"),
    ],
)
def test_overflow_error_names_the_dtype_as_c10(call, name):
    with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {name} without"):
        call()
