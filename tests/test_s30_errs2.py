"""Session 30 (helper errs2): torch's argument errors, written as literals (torch 2.13's
messages for the same calls; tests/reference/test_s30_errs2_reference.py compares them with torch
itself): sort/argsort's keywords in the reverse of the call's order; an out= of a wrong type for
reductions, scans, order statistics, norms and pointwise ops; randint_like's overload listing;
F.gumbel_softmax of a non-tensor and F.binary_cross_entropy's weight; trapezoid/trapz/
cumulative_trapezoid's and linalg.pinv/matrix_rank's listings; torch.lu of a non-tensor."""

# ruff: noqa: E501  (the cases are the calls as written, the messages torch's)

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch


def _env():
    return {
        "lib": torch,
        "F_": torch.nn.functional,
        "np": np,
        "x": torch.ones(3, 4),
        "b": torch.ones(3, 4) > 0,
        "i": torch.ones(3, 4, dtype=torch.long),
        "p": torch.arange(4.0),
        "sq": torch.eye(3) + 1,
    }


_LISTING1 = " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None)\n * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None)\n"
_LISTING2 = " * (Tensor input, int low, int high, *, torch.Generator generator, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor input, int low, int high, *, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor input, Tensor high, *, torch.Generator generator, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor input, Tensor high, *, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor input, int high, *, torch.Generator generator, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor input, int high, *, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
_LISTING3 = (
    " * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"
)
_LISTING4 = (
    " * (Tensor y, *, float dx = 1, int dim = -1)\n * (Tensor y, Tensor x, *, int dim = -1)\n"
)
_LISTING5 = " * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, Tensor out = None)\n * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, Tensor out = None)\n * (Tensor input, Tensor rcond, bool hermitian = False, *, Tensor out = None)\n * (Tensor input, float rcond, bool hermitian = False, *, Tensor out = None)\n"
_LISTING6 = " * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, Tensor out = None)\n * (Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, Tensor out = None)\n * (Tensor input, Tensor tol, bool hermitian = False, *, Tensor out = None)\n * (Tensor input, float tol, bool hermitian = False, *, Tensor out = None)\n"

ERRORS = [
    (
        "lib.sort(x, 0, descending=True, stable=False)",
        "TypeError: sort() received an invalid combination of arguments - got (Tensor, int, stable=bool, descending=bool), but expected one of:\n"
        + _LISTING1,
    ),
    (
        "lib.sort(x, 0, stable=False, descending=True)",
        "TypeError: sort() received an invalid combination of arguments - got (Tensor, int, descending=bool, stable=bool), but expected one of:\n"
        + _LISTING1,
    ),
    (
        "lib.argsort(x, 0, descending=True, stable=False)",
        "TypeError: argsort() takes from 2 to 1 positional arguments but 2 were given",
    ),
    (
        "x.sort(0, descending=True, stable=False)",
        "TypeError: sort() takes from 1 to 0 positional arguments but 1 were given",
    ),
    (
        "x.argsort(0, descending=True, stable=False)",
        "TypeError: argsort() takes from 1 to 0 positional arguments but 1 were given",
    ),
    (
        "lib.sort(x, 0, dim=1, stable=True)",
        "TypeError: sort() received an invalid combination of arguments - got (Tensor, int, stable=bool, dim=int), but expected one of:\n"
        + _LISTING1,
    ),
    (
        "x.sort(0, stable=False, dim=1)",
        "TypeError: sort() takes from 1 to 0 positional arguments but 1 were given",
    ),
    (
        "lib.sort(x, 1, True, stable=True)",
        "TypeError: sort() received an invalid combination of arguments - got (Tensor, int, bool, stable=bool), but expected one of:\n"
        + _LISTING1,
    ),
    ("lib.sum(x, 0, out=1)", "TypeError: sum(): argument 'out' must be Tensor, not int"),
    ("lib.prod(x, 0, out=1)", "TypeError: prod(): argument 'out' must be Tensor, not int"),
    ("lib.amax(x, 0, out=1)", "TypeError: amax(): argument 'out' must be Tensor, not int"),
    ("lib.amin(x, out=1)", "TypeError: amin(): argument 'out' must be Tensor, not int"),
    ("lib.argmax(x, 0, out=1)", "TypeError: argmax(): argument 'out' must be Tensor, not int"),
    ("lib.argmin(x, out=1)", "TypeError: argmin(): argument 'out' must be Tensor, not int"),
    ("lib.nansum(x, 0, out=1)", "TypeError: nansum(): argument 'out' must be Tensor, not int"),
    ("lib.nanmean(x, 0, out=1)", "TypeError: nanmean(): argument 'out' must be Tensor, not int"),
    (
        "lib.logsumexp(x, 0, out=1)",
        "TypeError: logsumexp(): argument 'out' must be Tensor, not int",
    ),
    ("lib.cumsum(x, 0, out=1)", "TypeError: cumsum(): argument 'out' must be Tensor, not int"),
    ("lib.cumsum(x, 0, out=(x,))", "TypeError: cumsum(): argument 'out' must be Tensor, not tuple"),
    ("lib.cumprod(x, 0, out=1)", "TypeError: cumprod(): argument 'out' must be Tensor, not int"),
    (
        "lib.cummax(x, 0, out=1)",
        "TypeError: cummax(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.cummin(x, 0, out=1)",
        "TypeError: cummin(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.cummax(x, 0, out=x)",
        "TypeError: cummax(): argument 'out' must be tuple of Tensors, not Tensor",
    ),
    (
        "lib.logcumsumexp(x, 0, out=1)",
        "TypeError: logcumsumexp(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.median(x, 0, out=1)",
        "TypeError: median(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.median(x, 0, out=x)",
        "TypeError: median(): argument 'out' must be tuple of Tensors, not Tensor",
    ),
    ("lib.median(x, out=1)", 'TypeError: median() missing 1 required positional arguments: "dim"'),
    (
        "lib.nanmedian(x, 0, out=1)",
        "TypeError: nanmedian(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.mode(x, 0, out=1)",
        "TypeError: mode(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.kthvalue(x, 1, 0, out=1)",
        "TypeError: kthvalue(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.topk(x, 2, out=1)",
        "TypeError: topk(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.aminmax(x, out=1)",
        "TypeError: aminmax(): argument 'out' must be tuple of Tensors, not int",
    ),
    (
        "lib.norm(x, out=1)",
        "TypeError: linalg_vector_norm(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.norm(x, 'fro', out=1)",
        "TypeError: linalg_vector_norm(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.norm(x, dim=0, out=1)",
        "TypeError: linalg_vector_norm(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.linalg.vector_norm(x, out=1)",
        "TypeError: linalg_vector_norm(): argument 'out' must be Tensor, not int",
    ),
    ("lib.exp(x, out=1)", "TypeError: exp(): argument 'out' must be Tensor, not int"),
    ("lib.sin(x, out=1)", "TypeError: sin(): argument 'out' must be Tensor, not int"),
    ("lib.sqrt(x, out=1)", "TypeError: sqrt(): argument 'out' must be Tensor, not int"),
    ("lib.abs(x, out=1)", "TypeError: abs(): argument 'out' must be Tensor, not int"),
    ("lib.neg(x, out=1)", "TypeError: neg(): argument 'out' must be Tensor, not int"),
    ("lib.floor(x, out=1)", "TypeError: floor(): argument 'out' must be Tensor, not int"),
    ("lib.sigmoid(x, out=1)", "TypeError: sigmoid(): argument 'out' must be Tensor, not int"),
    ("lib.erf(x, out=1)", "TypeError: erf(): argument 'out' must be Tensor, not int"),
    ("lib.log1p(x, out=1)", "TypeError: log1p(): argument 'out' must be Tensor, not int"),
    ("lib.trunc(x, out=1)", "TypeError: trunc(): argument 'out' must be Tensor, not int"),
    ("lib.sign(x, out=1)", "TypeError: sign(): argument 'out' must be Tensor, not int"),
    (
        "lib.logical_and(b, b, out=1)",
        "TypeError: logical_and(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.logical_not(b, out=1)",
        "TypeError: logical_not(): argument 'out' must be Tensor, not int",
    ),
    ("lib.atan2(x, x, out=1)", "TypeError: atan2(): argument 'out' must be Tensor, not int"),
    ("lib.maximum(x, x, out=1)", "TypeError: maximum(): argument 'out' must be Tensor, not int"),
    ("lib.matmul(x, x.T, out=1)", "TypeError: matmul(): argument 'out' must be Tensor, not int"),
    ("lib.cat([x, x], out=1)", "TypeError: cat(): argument 'out' must be Tensor, not int"),
    ("lib.where(x > 0, x, x, out=1)", "TypeError: where(): argument 'out' must be Tensor, not int"),
    ("lib.diff(x, out=1)", "TypeError: diff(): argument 'out' must be Tensor, not int"),
    ("lib.histc(x, out=1)", "TypeError: histc(): argument 'out' must be Tensor, not int"),
    (
        "lib.cross(x[:, :3], x[:, :3], out=1)",
        "TypeError: cross(): argument 'out' must be Tensor, not int",
    ),
    (
        "lib.randint_like(x, 'a')",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, 1, 'a')",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like('a', 5)",
        "TypeError: randint_like() received an invalid combination of arguments - got (str, int), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, 0)",
        "RuntimeError: random_ expects 'from' to be less than 'to', but got from=0 >= to=0",
    ),
    (
        "lib.randint_like(x, 'a', dtype=lib.float64)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, str, dtype=torch.dtype), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, 1.5)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, 2, 1.0)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, int, float), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, None)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "lib.randint_like(x, requires_grad=True)",
        "TypeError: randint_like() received an invalid combination of arguments - got (Tensor, requires_grad=bool), but expected one of:\n"
        + _LISTING2,
    ),
    (
        "F_.gumbel_softmax('a')",
        "TypeError: empty_like(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.gumbel_softmax([1.0, 2.0])",
        "TypeError: empty_like(): argument 'input' (position 1) must be Tensor, not list",
    ),
    (
        "F_.gumbel_softmax(x, tau='a')",
        "TypeError: unsupported operand type(s) for /: 'Tensor' and 'str'",
    ),
    (
        "F_.gumbel_softmax(i)",
        "RuntimeError: Exponential distribution is a continuous probability distribution. dtype must be a floating point but you specified Long",
    ),
    (
        "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight=[1.0])",
        "AttributeError: 'list' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy(x.sigmoid(), x[:2] * 0.5, weight='a')",
        "ValueError: Using a target size (torch.Size([2, 4])) that is different to the input size (torch.Size([3, 4])) is deprecated. Please ensure they have the same size.",
    ),
    (
        "lib.trapezoid(x, 'a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, dx='a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, dx=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, dim='a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid('a')",
        "TypeError: trapezoid(): argument 'y' (position 1) must be Tensor, not str",
    ),
    (
        "lib.trapezoid(x, p, dx=2)",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=int), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, p, dim='a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, dx=True)",
        "RuntimeError: trapezoid: Currently, we only support dx as a real number.",
    ),
    (
        "lib.trapezoid(x, dim=1.0)",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, dim=float), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, dx='a', dim=0)",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, dim=int, dx=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, dim=0, dx='a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, dx=str, dim=int), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapezoid(x, 2.0, dim='a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, float, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.trapz(x, 'a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, dx='a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, dx=str), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, dim='a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, dim=str), but expected one of:\n"
        + _LISTING4,
    ),
    ("lib.trapz('a')", "TypeError: trapz(): argument 'y' (position 1) must be Tensor, not str"),
    (
        "lib.trapz(x, p, dx=2)",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, Tensor, dx=int), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, p, dim='a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, Tensor, dim=str), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, dim=1.0)",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, dim=float), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, dx='a', dim=0)",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, dim=int, dx=str), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, dim=0, dx='a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, dx=str, dim=int), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.trapz(x, 2.0, dim='a')",
        "TypeError: trapz() received an invalid combination of arguments - got (Tensor, float, dim=str), but expected one of:\n"
        + _LISTING4,
    ),
    (
        "lib.cumulative_trapezoid(x, 'a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, dx='a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, dx=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, dim='a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid('a')",
        "TypeError: cumulative_trapezoid(): argument 'y' (position 1) must be Tensor, not str",
    ),
    (
        "lib.cumulative_trapezoid(x, p, dx=2)",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dx=int), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, p, dim='a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, Tensor, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, dx=True)",
        "RuntimeError: cumulative_trapezoid: Currently, we only support dx as a real number.",
    ),
    (
        "lib.cumulative_trapezoid(x, dim=1.0)",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, dim=float), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, dx='a', dim=0)",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, dim=int, dx=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, dim=0, dx='a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, dx=str, dim=int), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.cumulative_trapezoid(x, 2.0, dim='a')",
        "TypeError: cumulative_trapezoid() received an invalid combination of arguments - got (Tensor, float, dim=str), but expected one of:\n"
        + _LISTING3,
    ),
    (
        "lib.linalg.pinv('a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 'a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, rcond='a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, rcond=str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, hermitian='a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, hermitian=str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 0.1, 'a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, float, str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 0.1, hermitian=1)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, float, hermitian=int), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv([[1.0]])",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (list), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv('a', atol=0.1)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (str, atol=float), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 'a', True)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, str, bool), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, atol='a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, atol=str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, rtol='a')",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, rtol=str), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 'a', False)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, str, bool), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, rcond=0.1, atol=0.2)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, atol=float, rcond=float), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.pinv(x, 0.1, rtol=0.2)",
        "TypeError: linalg_pinv() received an invalid combination of arguments - got (Tensor, float, rtol=float), but expected one of:\n"
        + _LISTING5,
    ),
    (
        "lib.linalg.matrix_rank('a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 'a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, tol='a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, tol=str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, hermitian='a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, hermitian=str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 0.1, 'a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, float, str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 0.1, hermitian=1)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, float, hermitian=int), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank([[1.0]])",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (list), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank('a', atol=0.1)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (str, atol=float), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 'a', True)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, str, bool), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, atol='a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, atol=str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, rtol='a')",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, rtol=str), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 'a', False)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, str, bool), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, tol=0.1, atol=0.2)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, atol=float, tol=float), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.linalg.matrix_rank(x, 0.1, rtol=0.2)",
        "TypeError: linalg_matrix_rank() received an invalid combination of arguments - got (Tensor, float, rtol=float), but expected one of:\n"
        + _LISTING6,
    ),
    (
        "lib.lu('a')",
        "TypeError: _lu_with_info(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.lu([1, 2])",
        "TypeError: _lu_with_info(): argument 'input' (position 1) must be Tensor, not list",
    ),
    (
        "lib.lu(None)",
        "TypeError: _lu_with_info(): argument 'input' (position 1) must be Tensor, not NoneType",
    ),
]

CALLS = [
    "lib.sort(x, stable=True, dim=0, descending=True)",
    "lib.sort(x, 0, True)",
    "x.argsort(dim=1, descending=True)",
    "lib.cumsum(x, 0, out=lib.empty(3, 4))",
    "lib.cummax(x, 0, out=(lib.empty(3, 4), lib.empty(3, 4, dtype=lib.long)))",
    "lib.median(x, 0, out=(lib.empty(3), lib.empty(3, dtype=lib.long)))",
    "lib.aminmax(x, out=(lib.empty(()), lib.empty(())))",
    "lib.exp(x, out=lib.empty(3, 4))",
    "lib.randint_like(x, 5).shape",
    "lib.randint_like(x, 2, 5).dtype",
    "lib.randint_like(x, high=5).shape",
    "lib.randint_like(x, lib.tensor(5)).shape",
    "F_.gumbel_softmax(x).shape",
    "F_.binary_cross_entropy(x.sigmoid(), x * 0.5, weight=x[0])",
    "lib.trapezoid(x, dx=2, dim=0)",
    "lib.trapezoid(x, p)",
    "lib.trapezoid(x, dx=0.5)",
    "lib.trapezoid(x, p, dim=-1)",
    "lib.trapezoid(x, dim=lib.tensor(0))",
    "lib.trapz(x, dx=2, dim=0)",
    "lib.trapz(x, dx=True)",
    "lib.trapz(x, p)",
    "lib.trapz(x, dx=0.5)",
    "lib.trapz(x, p, dim=-1)",
    "lib.trapz(x, dim=lib.tensor(0))",
    "lib.cumulative_trapezoid(x, dx=2, dim=0)",
    "lib.cumulative_trapezoid(x, p)",
    "lib.cumulative_trapezoid(x, dx=0.5)",
    "lib.cumulative_trapezoid(x, p, dim=-1)",
    "lib.cumulative_trapezoid(x, dim=lib.tensor(0))",
    "lib.linalg.pinv(x, 1)",
    "lib.linalg.pinv(x, lib.tensor(0.1))",
    "lib.linalg.pinv(x, 0.1, False)",
    "lib.linalg.pinv(sq, hermitian=True)",
    "lib.linalg.pinv(x, rtol=0.1)",
    "lib.linalg.pinv(x, atol=lib.tensor(0.1))",
    "lib.linalg.pinv(x, atol=0.1, rtol=0.2)",
    "lib.linalg.matrix_rank(x, 1)",
    "lib.linalg.matrix_rank(x, lib.tensor(0.1))",
    "lib.linalg.matrix_rank(x, 0.1, False)",
    "lib.linalg.matrix_rank(sq, hermitian=True)",
    "lib.linalg.matrix_rank(x, rtol=0.1)",
    "lib.linalg.matrix_rank(x, atol=lib.tensor(0.1))",
    "lib.linalg.matrix_rank(x, atol=0.1, rtol=0.2)",
    "lib.lu(sq)[0].shape",
]


@pytest.mark.parametrize(("code", "message"), ERRORS)
def test_argument_error_as_torch_words_it(code, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:  # noqa: PT011 - the type is part of the message
            eval(code, _env())  # noqa: S307 - compiled as written: its keywords are read from it
    assert f"{type(info.value).__name__}: {info.value}" == message


@pytest.mark.parametrize("code", CALLS)
def test_well_typed_calls_still_run(code):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eval(code, _env())  # noqa: S307


def test_lu_of_a_non_tensor_raises_before_the_deprecation_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match="_lu_with_info"):
            torch.lu("a")
    assert not caught


def test_out_written_after_the_type_checks():
    x = torch.arange(6.0).reshape(2, 3)
    out = torch.empty(2, 3)
    assert torch.cumsum(x, 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 3], [3, 7, 12]])
    values, indices = torch.empty(2), torch.empty(2, dtype=torch.long)
    r = torch.median(x, 1, out=(values, indices))
    assert r.values is values
    np.testing.assert_array_equal(indices.numpy(), [1, 1])
