"""Session 30 (helper errs2): argument errors the sweeps left (after s30 argkw3), compared with
torch message for message: sort/argsort's keywords in the reverse of the call's order; an out=
of a wrong type for the reductions, scans and pointwise ops ("cumsum(): argument 'out' must be
Tensor, not int"; "tuple of Tensors" for cummax/median/mode/aminmax/sort...); randint_like's
overload listing (a missing or ill-typed bound, a non-tensor input); F.gumbel_softmax of a
non-tensor (empty_like's error) and F.binary_cross_entropy's weight (torch reads weight.size()
first); trapezoid/trapz/cumulative_trapezoid's listings (dx, dim); linalg.pinv/matrix_rank's
listings (a non-tensor A, an ill-typed tolerance, the old tolerance with atol/rtol); torch.lu of
a non-tensor (_lu_with_info's error, before the deprecation warning). Each group also runs
well-typed calls of the same ops (a guard).

Known and left (still differing from torch):
- an out= of a wrong type for the ops with several overloads (mean, std, var, all, any, max,
  sort, clamp, quantile, round, eq/lt & co, bitwise ops, pow, linalg.norm, matrix_norm): torch
  lists the overloads, minitorch names the one argument ("mean(): argument 'out' must be
  Tensor, not int"); max(x, 0, out=1) still fails inside; add/sub/mul(x, x, out=1): torch
  reads the int as a tensor (a RuntimeError about casting), minitorch names the argument;
  sum(x, out=1)'s listing shows out=Tensor (it should show int); std_mean/count_nonzero take
  no out= here (Python's own TypeError);
- trapezoid(y, 2) runs (a documented difference: a positional number is dx); a third
  positional argument of trapezoid/trapz gets Python's TypeError, not torch's listing;
- randint_like(x, low=0) (a keyword low without high) draws from an empty range (torch lists).
"""

# ruff: noqa: E501  (the cases are the calls as written)

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import assert_calls_match, run_calls

torch = pytest.importorskip("torch")


def _env(lib):
    return {
        "lib": lib,
        "F_": lib.nn.functional,
        "np": np,
        "x": lib.ones(3, 4),
        "b": lib.ones(3, 4) > 0,
        "i": lib.ones(3, 4, dtype=lib.long),
        "p": lib.arange(4.0),
        "sq": lib.eye(3) + 1,
    }


def _run(cases, lib, rec):
    run_calls(cases, _env(lib), rec)


SORT = [
    "lib.sort(x, 0, descending=True, stable=False)",
    "lib.sort(x, 0, stable=False, descending=True)",
    "lib.argsort(x, 0, descending=True, stable=False)",
    "x.sort(0, descending=True, stable=False)",
    "x.argsort(0, descending=True, stable=False)",
    "lib.sort(x, 0, dim=1, stable=True)",
    "x.sort(0, stable=False, dim=1)",
    "lib.sort(x, 1, True, stable=True)",
    "lib.sort(x, stable=True, dim=0, descending=True)",
    "lib.sort(x, 0, True)",
    "x.argsort(dim=1, descending=True)",
]

OUT = [
    "lib.sum(x, 0, out=1)",
    "lib.prod(x, 0, out=1)",
    "lib.amax(x, 0, out=1)",
    "lib.amin(x, out=1)",
    "lib.argmax(x, 0, out=1)",
    "lib.argmin(x, out=1)",
    "lib.nansum(x, 0, out=1)",
    "lib.nanmean(x, 0, out=1)",
    "lib.logsumexp(x, 0, out=1)",
    "lib.cumsum(x, 0, out=1)",
    "lib.cumsum(x, 0, out=(x,))",
    "lib.cumprod(x, 0, out=1)",
    "lib.cummax(x, 0, out=1)",
    "lib.cummin(x, 0, out=1)",
    "lib.cummax(x, 0, out=x)",
    "lib.logcumsumexp(x, 0, out=1)",
    "lib.median(x, 0, out=1)",
    "lib.median(x, 0, out=x)",
    "lib.median(x, out=1)",
    "lib.nanmedian(x, 0, out=1)",
    "lib.mode(x, 0, out=1)",
    "lib.kthvalue(x, 1, 0, out=1)",
    "lib.topk(x, 2, out=1)",
    "lib.aminmax(x, out=1)",
    "lib.norm(x, out=1)",
    "lib.norm(x, 'fro', out=1)",
    "lib.norm(x, dim=0, out=1)",
    "lib.linalg.vector_norm(x, out=1)",
    "lib.exp(x, out=1)",
    "lib.sin(x, out=1)",
    "lib.sqrt(x, out=1)",
    "lib.abs(x, out=1)",
    "lib.neg(x, out=1)",
    "lib.floor(x, out=1)",
    "lib.sigmoid(x, out=1)",
    "lib.erf(x, out=1)",
    "lib.log1p(x, out=1)",
    "lib.trunc(x, out=1)",
    "lib.sign(x, out=1)",
    "lib.logical_and(b, b, out=1)",
    "lib.logical_not(b, out=1)",
    "lib.atan2(x, x, out=1)",
    "lib.maximum(x, x, out=1)",
    "lib.matmul(x, x.T, out=1)",
    "lib.cat([x, x], out=1)",
    "lib.where(x > 0, x, x, out=1)",
    "lib.diff(x, out=1)",
    "lib.histc(x, out=1)",
    "lib.cross(x[:, :3], x[:, :3], out=1)",
    "lib.cumsum(x, 0, out=lib.empty(3, 4))",
    "lib.cummax(x, 0, out=(lib.empty(3, 4), lib.empty(3, 4, dtype=lib.long)))",
    "lib.median(x, 0, out=(lib.empty(3), lib.empty(3, dtype=lib.long)))",
    "lib.aminmax(x, out=(lib.empty(()), lib.empty(())))",
    "lib.exp(x, out=lib.empty(3, 4))",
]

RANDINT_LIKE = [
    "lib.randint_like(x, 'a')",
    "lib.randint_like(x, 1, 'a')",
    "lib.randint_like('a', 5)",
    "lib.randint_like(x)",
    "lib.randint_like(x, 0)",
    "lib.randint_like(x, 'a', dtype=lib.float64)",
    "lib.randint_like(x, 1.5)",
    "lib.randint_like(x, 2, 1.0)",
    "lib.randint_like(x, None)",
    "lib.randint_like(x, requires_grad=True)",
    "lib.randint_like(x, 5).shape",
    "lib.randint_like(x, 2, 5).dtype",
    "lib.randint_like(x, high=5).shape",
    "lib.randint_like(x, lib.tensor(5)).shape",
]

FUNCTIONAL = [
    "F_.gumbel_softmax('a')",
    "F_.gumbel_softmax([1.0, 2.0])",
    "F_.gumbel_softmax(x, tau='a')",
    "F_.gumbel_softmax(i)",
    "F_.gumbel_softmax(x).shape",
    "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight='a')",
    "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, 'a')",
    "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight=[1.0])",
    "F_.binary_cross_entropy(x.sigmoid(), x[:2] * 0.5, weight='a')",
    "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight=x[0])",
]

TRAPEZOID = [
    f"lib.{op}({a})"
    for op in ("trapezoid", "trapz", "cumulative_trapezoid")
    for a in (
        "x, 'a'", "x, dx='a'", "x, dim='a'", "'a'", "x, p, dx=2", "x, dx=2, dim=0",
        "x, p, dim='a'", "x, dx=True", "x, dim=1.0", "x, dx='a', dim=0", "x, dim=0, dx='a'",
        "x, 2.0, dim='a'", "x, p", "x, dx=0.5", "x, p, dim=-1", "x, dim=lib.tensor(0)",
    )
]  # fmt: skip

PINV_RANK = [
    f"lib.linalg.{op}({a.format(t=t)})"
    for op, t in (("pinv", "rcond"), ("matrix_rank", "tol"))
    for a in (
        "'a'", "x, 'a'", "x, {t}='a'", "x, hermitian='a'", "x, 0.1, 'a'",
        "x, 0.1, hermitian=1", "[[1.0]]", "'a', atol=0.1", "x, 'a', True", "x, atol='a'",
        "x, rtol='a'", "x, 'a', False", "x, {t}=0.1, atol=0.2", "x, 0.1, rtol=0.2", "x, 1", "x, lib.tensor(0.1)",
        "x, 0.1, False", "sq, hermitian=True", "x, rtol=0.1", "x, atol=lib.tensor(0.1)",
        "x, atol=0.1, rtol=0.2",
    )
]  # fmt: skip

LU = [
    "lib.lu('a')",
    "lib.lu([1, 2])",
    "lib.lu(None)",
    "lib.lu(sq)[0].shape",
]


def p_sort(lib, rec):
    """sort/argsort (functions and methods) with keywords in either order."""
    _run(SORT, lib, rec)


def p_out_types(lib, rec):
    """an out= of a wrong type (a number, a tuple for one tensor, a tensor for a pair) for the
    reductions, scans, order statistics, norms and pointwise ops; good outs still written."""
    _run(OUT, lib, rec)


def p_randint_like(lib, rec):
    """randint_like's overloads: bounds missing or ill-typed, a non-tensor input."""
    _run(RANDINT_LIKE, lib, rec)


def p_functional(lib, rec):
    """F.gumbel_softmax of a non-tensor or an integer tensor; F.binary_cross_entropy's weight."""
    _run(FUNCTIONAL, lib, rec)


def p_trapezoid(lib, rec):
    """trapezoid/trapz/cumulative_trapezoid: ill-typed dx/dim, the keywords' order."""
    _run(TRAPEZOID, lib, rec)


def p_pinv_rank(lib, rec):
    """linalg.pinv/matrix_rank: a non-tensor A, ill-typed tolerances, old and new tolerances."""
    _run(PINV_RANK, lib, rec)


def p_lu(lib, rec):
    """torch.lu of a non-tensor: _lu_with_info's parser error."""
    _run(LU, lib, rec)


PROGRAMS = ["sort", "out_types", "randint_like", "functional", "trapezoid", "pinv_rank", "lu"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name):
    assert_calls_match(globals()["p_" + name], torch)
