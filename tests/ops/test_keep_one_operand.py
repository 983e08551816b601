"""Ops keep each operand only for the gradients that read it, as torch: changing an operand no
requested gradient reads in place between forward and backward is allowed; changing one that is
read raises torch's error."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

_rng = np.random.default_rng(7)


def _arr(*shape, shift=0.0):
    return _rng.standard_normal(shape) + shift


# name: (function, operand values); kept small, float64
OPS = {
    "einsum_mv": (lambda a, x: mt.einsum("ij,j->i", a, x), [_arr(3, 3), _arr(3)]),
    "einsum_own_letter": (lambda a, x: mt.einsum("ij,j->", a, x), [_arr(2, 3), _arr(3)]),
    "einsum_one": (lambda a: mt.einsum("ij->j", a), [_arr(2, 3)]),
    "einsum_three": (
        lambda a, b, c: mt.einsum("i,ij,j->", a, b, c),
        [_arr(2), _arr(2, 3), _arr(3)],
    ),
    "tensordot": (lambda a, b: mt.tensordot(a, b, dims=([0], [0])), [_arr(3, 2), _arr(3, 2)]),
    "kron": (lambda a, b: mt.kron(a, b), [_arr(2, 2), _arr(2, 3)]),
    "cross": (lambda a, b: mt.cross(a, b, dim=0), [_arr(3, 2), _arr(3, 2)]),
    "linalg_cross": (lambda a, b: mt.linalg.cross(a, b), [_arr(2, 3), _arr(2, 3)]),
    "addcmul": (
        lambda x, a, b: mt.addcmul(x, a, b, value=2),
        [_arr(2, 3), _arr(2, 3), _arr(2, 3)],
    ),
    "addcdiv": (
        lambda x, a, b: mt.addcdiv(x, a, b, value=2),
        [_arr(2, 3), _arr(2, 3), _arr(2, 3, shift=4.0)],
    ),
    "lerp": (lambda a, b, w: mt.lerp(a, b, w), [_arr(2, 3), _arr(2, 3), _arr(2, 3)]),
    "lerp_scalar": (lambda a, b: mt.lerp(a, b, 0.3), [_arr(2, 3), _arr(2, 3)]),
    "bilinear": (
        lambda x1, x2, w, bias: F.bilinear(x1, x2, w, bias),
        [_arr(2, 3), _arr(2, 2), _arr(2, 3, 2), _arr(2)],
    ),
}

# (op, the operands whose gradient is asked for, the operand changed in place): torch runs
RUNS = [
    ("einsum_mv", (0,), 0),
    ("einsum_mv", (1,), 1),
    ("einsum_own_letter", (1,), 0),  # kept as its sum over i (torch sums i out first)
    ("einsum_one", (0,), 0),
    ("einsum_three", (0,), 0),
    ("tensordot", (0,), 0),
    ("tensordot", (1,), 1),
    ("kron", (0,), 0),
    ("kron", (1,), 1),
    ("cross", (0,), 0),
    ("linalg_cross", (1,), 1),
    ("addcmul", (0,), 1),
    ("addcmul", (0,), 2),
    ("addcmul", (1,), 1),
    ("addcmul", (0, 2), 2),
    ("addcdiv", (0,), 1),
    ("addcdiv", (1,), 1),
    ("lerp", (0, 1), 0),
    ("lerp", (0, 1), 1),
    ("lerp_scalar", (0, 1), 1),
    ("bilinear", (2,), 2),
    ("bilinear", (0, 3), 0),
    ("bilinear", (1,), 1),
]

# (op, asked-for gradients, the operand changed in place): torch raises
RAISES = [
    ("einsum_mv", (0,), 1),
    ("einsum_mv", (1,), 0),
    ("einsum_own_letter", (0,), 1),
    ("einsum_three", (1,), 0),
    ("tensordot", (1,), 0),
    ("kron", (0,), 1),  # torch runs here, silently with the changed values: minitorch refuses
    ("cross", (0,), 1),
    ("linalg_cross", (1,), 0),
    ("addcmul", (1,), 2),
    ("addcdiv", (0,), 2),  # torch keeps tensor2 whatever is asked for
    ("addcdiv", (2,), 1),
    ("lerp", (2,), 2),  # torch keeps the weight whatever is asked for
    ("lerp", (0,), 2),
    ("lerp", (2,), 0),
    ("bilinear", (2,), 0),
    ("bilinear", (0,), 2),
]


def _forward(name, needs):
    fn, values = OPS[name]
    leaves = [
        mt.tensor(v, dtype=mt.float64, requires_grad=i in needs) for i, v in enumerate(values)
    ]
    # a non-leaf stands for each operand that needs a gradient, so it may change in place
    ops = [t * 1 if i in needs else t.clone() for i, t in enumerate(leaves)]
    y = fn(*ops)
    weight = mt.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
    return leaves, ops, y, weight


@pytest.mark.parametrize("name,needs,changed", RUNS)
def test_an_operand_no_asked_gradient_reads_may_change_in_place(name, needs, changed):
    leaves, _, y, weight = _forward(name, needs)
    (y * weight).sum().backward()
    expected = [t.grad.numpy().copy() for t in leaves if t.grad is not None]
    leaves, ops, y, weight = _forward(name, needs)
    ops[changed].mul_(2)
    (y * weight).sum().backward()
    got = [t.grad.numpy() for t in leaves if t.grad is not None]
    assert len(got) == len(expected) == len(needs)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12, err_msg=f"{name} {needs} {changed}")


@pytest.mark.parametrize("name,needs,changed", RAISES)
def test_an_operand_an_asked_gradient_reads_may_not_change_in_place(name, needs, changed):
    _, ops, y, weight = _forward(name, needs)
    ops[changed].mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * weight).sum().backward()


def test_einsum_mv_as_in_torch_doc_example():
    w = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64, requires_grad=True)
    a = w * 1
    x = mt.tensor([5.0, 7.0], dtype=mt.float64)
    y = mt.einsum("ij,j->i", a, x)
    a.mul_(2)  # only x is read by a's gradient
    y.sum().backward()
    assert w.grad.tolist() == [[5.0, 7.0], [5.0, 7.0]]


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradients_for_each_subset_of_operands(name):
    fn, values = OPS[name]
    n = len(values)
    for r in range(1, n + 1):
        for needs in itertools.combinations(range(n), r):
            inputs = [
                mt.tensor(v, dtype=mt.float64, requires_grad=i in needs)
                for i, v in enumerate(values)
            ]
            assert gradcheck(fn, inputs), (name, needs)
            assert gradgradcheck(fn, inputs), (name, needs)
