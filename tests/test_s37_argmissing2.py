"""Session 37 (helper argmissing2): torch-free regression tests of the library fixes the
argument sweeps of tests/reference/test_s37_argmissing2_reference.py found: torch's parser
wording for the unary ops, joins, *_like factories and scans called without their tensor or
with positional arguments too many; the reductions' and the overloaded ops' (fmod, clamp_min,
clamp_max, lerp, masked_fill, index_fill, where) counts and "invalid combination" listings;
the Tensor methods' counts without self (tril, flatten, clone, flip, ...); F.sigmoid/F.tanh as
Python functions. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


def _env():
    g = mt.Generator().manual_seed(0)
    return dict(
        mt=mt,
        F=F,
        x=mt.randn(2, 3, generator=g),
        s=mt.ones(2, 3),
        i1=mt.tensor([0, 1]),
        mask=mt.tensor([[True, False, True], [False, True, False]]),
    )


# fmt: off
CASES = [
    ('mt.exp()', 'exp() missing 1 required positional arguments: "input"'),
    ('mt.sigmoid(x, 1)', 'sigmoid() takes 1 positional argument but 2 were given'),
    ('mt.abs()', 'abs() missing 1 required positional arguments: "input"'),
    ('mt.abs(x, x)', 'abs() takes 1 positional argument but 2 were given'),
    ('mt.neg()', 'neg() missing 1 required positional arguments: "input"'),
    ('mt.sign(x, 1, 2)', 'sign() takes 1 positional argument but 3 were given'),
    ('mt.relu()', 'relu() missing 1 required positional arguments: "input"'),
    ('mt.relu(x, 0)', 'relu() takes 1 positional argument but 2 were given'),
    ('mt.sin()', 'sin() missing 1 required positional arguments: "input"'),
    ('mt.sin(x, 1)', 'sin() takes 1 positional argument but 2 were given'),
    ('mt.floor()', 'floor() missing 1 required positional arguments: "input"'),
    ('mt.trunc(x, 0)', 'trunc() takes 1 positional argument but 2 were given'),
    ('mt.square()', 'square() missing 1 required positional arguments: "input"'),
    ('mt.square(x, 2)', 'square() takes 1 positional argument but 2 were given'),
    ('mt.rsqrt(out=x)', 'rsqrt() missing 1 required positional arguments: "input"'),
    ('mt.sum(x, 0, True, 0)', 'sum() takes from 2 to 3 positional arguments but 4 were given'),
    ('x.sum(0, True, 0)', 'sum() takes from 1 to 2 positional arguments but 3 were given'),
    ('x.mean(1, False, mt.float64)',
     'mean() takes from 1 to 2 positional arguments but 3 were given'),
    ('mt.prod(x, 0, True, 1, 2)',
     'prod() takes from 2 to 3 positional arguments but 5 were given'),
    ('mt.where(mask, x, s, 0)', 'where() takes 3 positional arguments but 4 were given'),
    ('mt.cat()', 'cat() missing 1 required positional arguments: "tensors"'),
    ('mt.stack(x, s)',
     "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ('mt.cat([x, s], 0, 0)', 'cat() takes from 1 to 2 positional arguments but 3 were given'),
    ('mt.hstack(x, s)', 'hstack() takes 1 positional argument but 2 were given'),
    ('mt.vstack(x, s, x)', 'vstack() takes 1 positional argument but 3 were given'),
    ('mt.dstack()', 'dstack() missing 1 required positional arguments: "tensors"'),
    ('mt.column_stack(x, s)', 'column_stack() takes 1 positional argument but 2 were given'),
    ('mt.row_stack(x, s)', 'row_stack() takes 1 positional argument but 2 were given'),
    ('mt.zeros_like()', 'zeros_like() missing 1 required positional arguments: "input"'),
    ('mt.ones_like(x, mt.float64)', 'ones_like() takes 1 positional argument but 2 were given'),
    ('mt.empty_like(x, 1, 2)', 'empty_like() takes 1 positional argument but 3 were given'),
    ('x.tril(0, 1)', 'tril() takes from 0 to 1 positional arguments but 2 were given'),
    ('x.triu(0, 1, 1)', 'triu() takes from 0 to 1 positional arguments but 3 were given'),
    ('x.diag(0, 1)', 'diag() takes from 0 to 1 positional arguments but 2 were given'),
    ('x.diagonal(0, 0, 1, 1)',
     'diagonal() takes from 0 to 3 positional arguments but 4 were given'),
    ('x.diag_embed(0, -2, -1, 1)',
     'diag_embed() takes from 0 to 3 positional arguments but 4 were given'),
    ('x.unbind(1, 1)', 'unbind() takes from 0 to 1 positional arguments but 2 were given'),
    ('x.flatten(0, 1, 1)', 'flatten() takes from 0 to 2 positional arguments but 3 were given'),
    ('x.rot90(1, (0, 1), 1)', 'rot90() takes from 0 to 2 positional arguments but 3 were given'),
    ('x.clone(1)', 'clone() takes 0 positional arguments but 1 was given'),
    ('x.view_as()', 'view_as() missing 1 required positional arguments: "other"'),
    ('x.type_as(x, 1)', 'type_as() takes 1 positional argument but 2 were given'),
    ('x.expand_as()', 'expand_as() missing 1 required positional arguments: "other"'),
    ('x.flip((0,), 1)', 'flip() takes 1 positional argument but 2 were given'),
    ('mt.cumsum()', 'cumsum() missing 2 required positional argument: "input", "dim"'),
    ('mt.cumprod(dim=1)', 'cumprod() missing 2 required positional argument: "input", "dim"'),
    ('mt.logcumsumexp()', 'logcumsumexp() missing 2 required positional argument: "input", "dim"'),
    ('F.sigmoid()', "sigmoid() missing 1 required positional argument: 'input'"),
    ('F.tanh(x, 1)', 'tanh() takes 1 positional argument but 2 were given'),
]
# fmt: on


@pytest.mark.parametrize("code,want", CASES)
def test_torchs_parser_wording(code, want):
    env = _env()
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


def _listing(op, got, *forms):
    head = f"{op}() received an invalid combination of arguments - got {got}, but expected one of:"
    return head + "\n" + "".join(f" * ({form})\n" for form in forms)


LISTINGS = [
    ("x.fmod()", _listing("fmod", "()", "Tensor other", "Number other")),
    ("x.clamp_min(0.0, 1)", _listing("clamp_min", "(float, int)", "Tensor min", "Number min")),
    ("x.lerp(s)", _listing("lerp", "(Tensor)", "Tensor end, Tensor weight",
                           "Tensor end, Number weight")),
    ("x.masked_fill(mask)", _listing("masked_fill", "(Tensor)", "Tensor mask, Tensor value",
                                     "Tensor mask, Number value")),
    ("x.index_fill(1)", _listing("index_fill", "(int)", "int dim, Tensor index, Tensor value",
                                 "int dim, Tensor index, Number value")),
    ("mt.index_fill(x, 1, i1, 1.0, 0)", _listing(
        "index_fill", "(Tensor, int, Tensor, float, int)",
        "Tensor input, int dim, Tensor index, Tensor value",
        "Tensor input, int dim, Tensor index, Number value")),
    ("mask.where(x, s, 1)", _listing("where", "(Tensor, Tensor, int)",
                                     "Tensor condition, Tensor other",
                                     "Tensor condition, Number other")),
    ("mt.where()", _listing(
        "where", "()", "Tensor condition",
        "Tensor condition, Tensor input, Tensor other, *, Tensor out = None",
        "Tensor condition, Number self, Tensor other",
        "Tensor condition, Tensor input, Number other",
        "Tensor condition, Number self, Number other")),
    ("mt.fmod(x, 2.0, 0)", _listing(
        "fmod", "(Tensor, float, int)", "Tensor input, Tensor other, *, Tensor out = None",
        "Tensor input, Number other, *, Tensor out = None")),
    ("mt.clamp_max(x)", _listing(
        "clamp_max", "(Tensor)", "Tensor input, Tensor max, *, Tensor out = None",
        "Tensor input, Number max, *, Tensor out = None")),
    ("mt.lerp(x, s)", _listing(
        "lerp", "(Tensor, Tensor)", "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
        "Tensor input, Tensor end, Number weight, *, Tensor out = None")),
    ("mt.masked_fill(x, mask, 1.0, 0)", _listing(
        "masked_fill", "(Tensor, Tensor, float, int)", "Tensor input, Tensor mask, Tensor value",
        "Tensor input, Tensor mask, Number value")),
    ("mt.var(x, 0, True, False, 0)", _listing(
        "var", "(Tensor, int, bool, bool, int)",
        "Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor "
        "out = None",
        "Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = "
        "False, Tensor out = None",
        "Tensor input, bool unbiased = True")),
    ("mt.sum()", _listing(
        "sum", "()", "Tensor input, *, torch.dtype dtype = None",
        "Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None")),
    ("x.sum(0, True, None, 0, 0)", _listing(
        "sum", "(int, bool, NoneType, int, int)", "*, torch.dtype dtype = None",
        "tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None")),
]  # fmt: skip


@pytest.mark.parametrize("code,want", LISTINGS)
def test_overloaded_ops_list_their_overloads(code, want):
    env = _env()
    assert _message(lambda: eval(code, env)) == want  # noqa: S307


def test_results_unchanged():
    g = mt.Generator().manual_seed(1)
    x = mt.randn(3, 4, generator=g, dtype=mt.float64)
    a = x.numpy()
    np.testing.assert_allclose(mt.exp(input=x).numpy(), np.exp(a), rtol=1e-12)
    np.testing.assert_allclose(mt.abs(x).numpy(), np.abs(a), rtol=0)
    np.testing.assert_allclose(mt.sin(x).numpy(), np.sin(a), rtol=1e-12)
    np.testing.assert_allclose(mt.square(x).numpy(), a * a, rtol=1e-12)
    np.testing.assert_allclose(x.sum(1, True).numpy(), a.sum(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(mt.var(x, 0).numpy(), a.var(0, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(mt.fmod(x, 0.5).numpy(), np.fmod(a, 0.5), rtol=1e-12)
    np.testing.assert_allclose(x.clamp_min(0.1).numpy(), np.maximum(a, 0.1), rtol=0)
    np.testing.assert_allclose(mt.lerp(x, x * 2, 0.5).numpy(), a * 1.5, rtol=1e-12)
    np.testing.assert_allclose(mt.where(x > 0, x, 0.0).numpy(), np.where(a > 0, a, 0.0))
    np.testing.assert_allclose(mt.cat([x, x], 1).numpy(), np.concatenate([a, a], 1))
    np.testing.assert_allclose(mt.hstack([x, x]).numpy(), np.hstack([a, a]))
    np.testing.assert_allclose(mt.cumsum(x, dim=1).numpy(), a.cumsum(1), rtol=1e-12)
    np.testing.assert_allclose(x.tril(1).numpy(), np.tril(a, 1))
    np.testing.assert_allclose(x.flip(0, 1).numpy(), a[::-1, ::-1])
    assert mt.zeros_like(x, dtype=mt.int64).dtype is mt.int64
    np.testing.assert_allclose(F.sigmoid(x).numpy(), 1 / (1 + np.exp(-a)), rtol=1e-12)
    assert F.tanh is not mt.tanh and F.sigmoid.__name__ == "sigmoid"
