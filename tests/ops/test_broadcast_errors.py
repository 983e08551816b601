"""Shapes that do not broadcast raise torch's RuntimeError naming the first pair of sizes that
differ, whichever op meets them: comparisons, bitwise and shift ops, integer division and
remainder, and ops of three tensors (where, addcmul) whose third shape is the odd one."""

from __future__ import annotations

import pytest

import minitorch as mt

P = mt.tensor([[0, 1, 2], [1, 1, 0]])  # (2, 3)
T = mt.tensor([1, 2])  # (2,): does not broadcast against (2, 3)
PF, TF = P.float(), T.float()

OPS = {
    "eq": lambda: P == T,
    "ne": lambda: P != T,
    "lt": lambda: P < T,
    "ge": lambda: mt.ge(P, T),
    "eq_": lambda: P.clone().eq_(T),
    "and": lambda: (P > 0) & (T > 0),
    "or": lambda: P | T,
    "xor": lambda: P ^ T,
    "lshift": lambda: P << T,
    "rshift": lambda: P >> T,
    "floordiv_int": lambda: P // T,
    "floordiv_float": lambda: PF // TF,
    "div_trunc": lambda: mt.div(P, T, rounding_mode="trunc"),
    "remainder_int": lambda: P % T,
    "where_other": lambda: mt.where(P > 0, P, T),
    "addcmul_tensor2": lambda: mt.addcmul(PF, PF, TF),
}


@pytest.mark.parametrize("name", list(OPS))
def test_shapes_that_do_not_broadcast_raise_runtime_error(name):
    with pytest.raises(
        RuntimeError,
        match=r"size of tensor a \(3\) must match the size of "
        r"tensor b \(2\) at non-singleton dimension 1",
    ):
        OPS[name]()


def test_where_names_the_condition_first():
    with pytest.raises(RuntimeError, match=r"tensor a \(2\) must match the size of tensor b \(3\)"):
        mt.where(T > 0, P, P)


def test_the_first_mismatching_pair_is_named_after_broadcasting_the_earlier_shapes():
    # (4, 1) and (1, 3) broadcast to (4, 3); the third shape (5,) meets the 3 of dim 1
    a, b, c = mt.zeros(4, 1), mt.zeros(1, 3), mt.zeros(5)
    with pytest.raises(
        RuntimeError,
        match=r"tensor a \(3\) must match .* tensor b \(5\) at "
        "non-singleton dimension 1",
    ):
        mt.addcmul(a, b, c)
