"""Session 29 (helper argkw2): torch's argument-type errors of its overloaded ops, written as
literals (torch 2.13's messages for the same calls; tests/reference/test_s29_argkw2_reference.py
compares them with torch itself): the reductions of several overloads (sum, mean, prod, all,
any, count_nonzero, std, var, var_mean, std_mean, squeeze, sort, argsort; max/min's input),
clamp/clip/clamp_, clamp_min/clamp_max, div's rounding_mode, round's decimals,
true_divide/floor_divide, xlogy, float_power, fill_, narrow, movedim, repeat_interleave, split,
scatter, index_fill, searchsorted, bucketize, eye, linspace/logspace and Tensor.max/min's out=
list their overloads (with torch's "didn't match" lines) or name the one overload the argument
count fits; index_copy and diff name their arguments as torch does."""

# ruff: noqa: E501  (the cases are the calls as written, the messages torch's)

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch


class NT(tuple):
    __slots__ = ()


t = torch.ones(3, 4)
ENV = {
    "lib": torch,
    "F_": torch.nn.functional,
    "np": np,
    "NT": NT,
    "t": t,
    "t3": torch.ones(2, 3, 4),
    "x": torch.ones(2, 3),
    "X": torch.ones(2, 3, 4),
    "b": torch.ones(4),
    "v": torch.ones(4),
    "i": torch.zeros(3, 4, dtype=torch.long),
    "i1": torch.tensor([0, 1]),
    "m": t > 0,
    "sq": torch.eye(3) + 1,
}

CASES = [
    (
        "lib.sum('a', 1)",
        "TypeError: sum() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "lib.sum(input='a', dim=1)",
        "TypeError: sum() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "t.sum('a')",
        "TypeError: sum() received an invalid combination of arguments - got (str), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "lib.mean('a', 1)",
        "TypeError: mean() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None, Tensor out = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "lib.mean(input='a', dim=1)",
        "TypeError: mean() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None, Tensor out = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "t.mean('a')",
        "TypeError: mean() received an invalid combination of arguments - got (str), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "lib.prod('a', 1)",
        "TypeError: prod() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "lib.prod(input='a', dim=1)",
        "TypeError: prod() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "t.prod('a')",
        "TypeError: prod() received an invalid combination of arguments - got (str), but expected one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "lib.max('a', 1)",
        "TypeError: max() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n",
    ),
    (
        "lib.max(input='a', dim=1)",
        "TypeError: max() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n",
    ),
    (
        "lib.min('a', 1)",
        "TypeError: min() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n",
    ),
    (
        "lib.min(input='a', dim=1)",
        "TypeError: min() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n",
    ),
    (
        "lib.all('a', 1)",
        "TypeError: all() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    (
        "lib.all(input='a', dim=1)",
        "TypeError: all() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    (
        "t.all('a')",
        "TypeError: all() received an invalid combination of arguments - got (str), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of ints dim = None, bool keepdim = False)\n * (int dim, bool keepdim = False)\n",
    ),
    (
        "lib.any('a', 1)",
        "TypeError: any() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    (
        "lib.any(input='a', dim=1)",
        "TypeError: any() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    (
        "t.any('a')",
        "TypeError: any() received an invalid combination of arguments - got (str), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of ints dim = None, bool keepdim = False)\n * (int dim, bool keepdim = False)\n",
    ),
    (
        "lib.std('a', 1)",
        "TypeError: std() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.std(input='a', dim=1)",
        "TypeError: std() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "t.std('a')",
        "TypeError: std() received an invalid combination of arguments - got (str), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.var('a', 1)",
        "TypeError: var() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.var(input='a', dim=1)",
        "TypeError: var() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "t.var('a')",
        "TypeError: var() received an invalid combination of arguments - got (str), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.count_nonzero('a', 1)",
        "TypeError: count_nonzero() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, int dim = None)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n * (Tensor input, tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.count_nonzero(input='a', dim=1)",
        "TypeError: count_nonzero() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, int dim = None)\n      didn't match because some of the keywords were incorrect: dim\n * (Tensor input, tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!input=str!, !dim=int!, )\n",
    ),
    (
        "t.count_nonzero('a')",
        "TypeError: count_nonzero() received an invalid combination of arguments - got (str), but expected one of:\n * (int dim = None)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.squeeze('a', 1)",
        "TypeError: squeeze() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input)\n * (Tensor input, int dim)\n      didn't match because some of the arguments have invalid types: (!str!, int)\n * (Tensor input, tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.squeeze(input='a', dim=1)",
        "TypeError: squeeze() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input)\n * (Tensor input, int dim)\n      didn't match because some of the arguments have invalid types: (!input=str!, dim=int, )\n * (Tensor input, tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!input=str!, !dim=int!, )\n",
    ),
    (
        "t.squeeze('a')",
        "TypeError: squeeze() received an invalid combination of arguments - got (str), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!str!)\n * (int dim)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.var_mean('a', 1)",
        "TypeError: var_mean() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.var_mean(input='a', dim=1)",
        "TypeError: var_mean() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "lib.std_mean('a', 1)",
        "TypeError: std_mean() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.std_mean(input='a', dim=1)",
        "TypeError: std_mean() received an invalid combination of arguments - got (dim=int, input=str, ), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "t.sort(dim='a')",
        "TypeError: sort() received an invalid combination of arguments - got (dim=str, ), but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n",
    ),
    (
        "t.sort(1, 'a')",
        "TypeError: sort() received an invalid combination of arguments - got (int, str), but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n      didn't match because some of the arguments have invalid types: (!int!, !str!)\n",
    ),
    (
        "lib.argsort(t, 1, 'a')",
        "TypeError: argsort() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n * (Tensor input, int dim = -1, bool descending = False)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n",
    ),
    (
        "lib.argsort(t, 1, descending='a')",
        "TypeError: argsort() received an invalid combination of arguments - got (Tensor, int, descending=str), but expected one of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n * (Tensor input, int dim = -1, bool descending = False)\n      didn't match because some of the keywords were incorrect: descending\n",
    ),
    (
        "t.argsort(dim='a')",
        "TypeError: argsort() received an invalid combination of arguments - got (dim=str, ), but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n",
    ),
    (
        "lib.true_divide('a', t)",
        "TypeError: true_divide() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!str!, !Tensor!)\n",
    ),
    (
        "lib.true_divide(input='a', other=t)",
        "TypeError: true_divide() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!input=str!, !other=Tensor!, )\n",
    ),
    (
        "t.true_divide('a')",
        "TypeError: true_divide() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.floor_divide('a', t)",
        "TypeError: floor_divide() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!str!, !Tensor!)\n",
    ),
    (
        "lib.floor_divide(input='a', other=t)",
        "TypeError: floor_divide() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!input=str!, !other=Tensor!, )\n",
    ),
    (
        "t.floor_divide('a')",
        "TypeError: floor_divide() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.div(t, t, rounding_mode=1)",
        "TypeError: div() received an invalid combination of arguments - got (Tensor, Tensor, rounding_mode=int), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n * (Tensor input, Number other, *, str rounding_mode)\n",
    ),
    (
        "lib.clamp('a', 0.0)",
        "TypeError: clamp() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp(input='a', min=0.0)",
        "TypeError: clamp() received an invalid combination of arguments - got (min=float, input=str, ), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "t.clamp('a')",
        "TypeError: clamp() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor min = None, Tensor max = None)\n * (Number min = None, Number max = None)\n",
    ),
    (
        "lib.clip('a', 0.0)",
        "TypeError: clip() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "lib.clip(input='a', min=0.0)",
        "TypeError: clip() received an invalid combination of arguments - got (min=float, input=str, ), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "lib.round(t, decimals='a')",
        "TypeError: round() received an invalid combination of arguments - got (Tensor, decimals=str), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, *, int decimals, Tensor out = None)\n",
    ),
    (
        "t.clamp_(min='a')",
        "TypeError: clamp_() received an invalid combination of arguments - got (min=str, ), but expected one of:\n * (Tensor min = None, Tensor max = None)\n * (Number min = None, Number max = None)\n",
    ),
    (
        "t.clamp_('a')",
        "TypeError: clamp_() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor min = None, Tensor max = None)\n * (Number min = None, Number max = None)\n",
    ),
    (
        "lib.narrow('a', 0, 0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (str, int, int, int), but expected one of:\n * (Tensor input, int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!str!, int, !int!, int)\n * (Tensor input, int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!str!, int, int, int)\n",
    ),
    (
        "lib.narrow(input='a', dim=0, start=0, length=1)",
        "TypeError: narrow() received an invalid combination of arguments - got (length=int, start=int, dim=int, input=str, ), but expected one of:\n * (Tensor input, int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!input=str!, dim=int, !start=int!, length=int, )\n * (Tensor input, int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!input=str!, dim=int, start=int, length=int, )\n",
    ),
    (
        "t.narrow('a', 0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (str, int, int), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!str!, !int!, int)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!str!, int, int)\n",
    ),
    ("lib.split('a', 2)", "TypeError: must be str or None, not int"),
    ("lib.split(tensor='a', split_size_or_sections=2)", "TypeError: must be str or None, not int"),
    (
        "t.split(2, 'a')",
        "TypeError: split() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, int split_size, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !str!)\n * (Tensor input, tuple of ints split_size, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n",
    ),
    (
        "lib.repeat_interleave('a', 2)",
        "TypeError: repeat_interleave() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n * (Tensor repeats, *, int output_size = None)\n * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n",
    ),
    (
        "lib.repeat_interleave(input='a', repeats=2)",
        "TypeError: repeat_interleave() received an invalid combination of arguments - got (repeats=int, input=str, ), but expected one of:\n * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n * (Tensor repeats, *, int output_size = None)\n * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n",
    ),
    (
        "t.repeat_interleave('a')",
        "TypeError: repeat_interleave() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size = None)\n * (int repeats, int dim = None, *, int output_size = None)\n",
    ),
    (
        "lib.movedim('a', 0, 1)",
        "TypeError: movedim() received an invalid combination of arguments - got (str, int, int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (!str!, int, int)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!str!, !int!, !int!)\n",
    ),
    (
        "lib.movedim(input='a', source=0, destination=1)",
        "TypeError: movedim() received an invalid combination of arguments - got (destination=int, source=int, input=str, ), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (!input=str!, source=int, destination=int, )\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!input=str!, !source=int!, !destination=int!, )\n",
    ),
    (
        "t.movedim('a', 1)",
        "TypeError: movedim() received an invalid combination of arguments - got (str, int), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!str!, int)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "lib.norm(t, 2, dim='a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "t.norm(2, dim='a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "lib.scatter('a', 0, i, t)",
        "TypeError: scatter() received an invalid combination of arguments - got (str, int, Tensor, Tensor), but expected one of:\n * (Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Number value, *, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out = None)\n",
    ),
    (
        "lib.scatter(input='a', dim=0, index=i, src=t)",
        "TypeError: scatter() received an invalid combination of arguments - got (src=Tensor, index=Tensor, dim=int, input=str, ), but expected one of:\n * (Tensor input, int dim, Tensor index, Tensor src, *, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Tensor src, *, str reduce, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Number value, *, Tensor out = None)\n * (Tensor input, int dim, Tensor index, Number value, *, str reduce, Tensor out = None)\n",
    ),
    (
        "t.scatter('a', i, t)",
        "TypeError: scatter() received an invalid combination of arguments - got (str, Tensor, Tensor), but expected one of:\n * (int dim, Tensor index, Tensor src)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, Tensor)\n * (int dim, Tensor index, Tensor src, *, str reduce)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !Tensor!)\n * (int dim, Tensor index, Number value, *, str reduce)\n",
    ),
    (
        "t.index_fill(0, index='a', value=1.0)",
        "TypeError: index_fill() received an invalid combination of arguments - got (int, value=float, index=str), but expected one of:\n * (int dim, Tensor index, Tensor value)\n      didn't match because some of the arguments have invalid types: (int, !index=str!, !value=float!)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (int, !index=str!, !value=float!)\n",
    ),
    (
        "t.index_fill('a', i1, 1.0)",
        "TypeError: index_fill() received an invalid combination of arguments - got (str, Tensor, float), but expected one of:\n * (int dim, Tensor index, Tensor value)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !float!)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !float!)\n",
    ),
    (
        "t.var(0, 0)",
        "TypeError: var() received an invalid combination of arguments - got (int, int), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n",
    ),
    (
        "lib.var(t, 0, 0)",
        "TypeError: var() received an invalid combination of arguments - got (Tensor, int, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "t.std(0, True, 1)",
        "TypeError: std() received an invalid combination of arguments - got (int, bool, int), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n      didn't match because some of the arguments have invalid types: (!int!, !bool!, !int!)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n",
    ),
    (
        "lib.std(t, 1, keepdim=1)",
        "TypeError: std() received an invalid combination of arguments - got (Tensor, int, keepdim=int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "t.var(0, unbiased=1)",
        "TypeError: var() received an invalid combination of arguments - got (int, unbiased=int), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n",
    ),
    (
        "lib.std_mean(t, 0, 1)",
        "TypeError: std_mean() received an invalid combination of arguments - got (Tensor, int, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "t.var(True, keepdim=2)",
        "TypeError: var() received an invalid combination of arguments - got (bool, keepdim=int), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n",
    ),
    (
        "t.sum(1, None)",
        "TypeError: sum(): argument 'keepdim' (position 2) must be bool, not NoneType",
    ),
    (
        "lib.all(t, 1, None)",
        "TypeError: all() received an invalid combination of arguments - got (Tensor, int, NoneType), but expected one of:\n * (Tensor input, *, Tensor out = None)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !NoneType!)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    (
        "t.squeeze(None)",
        "TypeError: squeeze() received an invalid combination of arguments - got (NoneType), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!NoneType!)\n * (int dim)\n      didn't match because some of the arguments have invalid types: (!NoneType!)\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!NoneType!)\n",
    ),
    (
        "t.squeeze(dim=None)",
        "TypeError: squeeze() received an invalid combination of arguments - got (dim=NoneType, ), but expected one of:\n * ()\n      didn't match because some of the keywords were incorrect: dim\n * (int dim)\n      didn't match because some of the arguments have invalid types: (!dim=NoneType!, )\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!dim=NoneType!, )\n",
    ),
    (
        "t.sort(stable=1)",
        "TypeError: sort() received an invalid combination of arguments - got (stable=int, ), but expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n * (int dim = -1, bool descending = False)\n",
    ),
    (
        "lib.argsort(t, stable=1)",
        "TypeError: argsort() received an invalid combination of arguments - got (Tensor, stable=int), but expected one of:\n * (Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None)\n * (Tensor input, int dim = -1, bool descending = False)\n",
    ),
    (
        "lib.max(t, 1, None)",
        "TypeError: max() received an invalid combination of arguments - got (Tensor, int, NoneType), but expected one of:\n * (Tensor input, *, Tensor out = None)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !NoneType!)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n",
    ),
    ("lib.prod(t, 1, dtype=1)", "TypeError: prod(): argument 'dtype' must be torch.dtype, not int"),
    ("t.mean(1, dtype=1)", "TypeError: mean(): argument 'dtype' must be torch.dtype, not int"),
    (
        "lib.count_nonzero(t, 1.5)",
        "TypeError: count_nonzero() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor input, int dim = None)\n      didn't match because some of the arguments have invalid types: (Tensor, !float!)\n * (Tensor input, tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (Tensor, !float!)\n",
    ),
    (
        "t.count_nonzero(dim=1.5)",
        "TypeError: count_nonzero() received an invalid combination of arguments - got (dim=float, ), but expected one of:\n * (int dim = None)\n      didn't match because some of the keywords were incorrect: dim\n * (tuple of ints dim)\n      didn't match because some of the arguments have invalid types: (!dim=float!, )\n",
    ),
    (
        "lib.all([t])",
        "TypeError: all() received an invalid combination of arguments - got (list), but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, Tensor out = None)\n",
    ),
    ("lib.sum([t])", "TypeError: sum(): argument 'input' (position 1) must be Tensor, not list"),
    (
        "lib.std([t], 0)",
        "TypeError: std() received an invalid combination of arguments - got (list, int), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n      didn't match because some of the arguments have invalid types: (!list of [Tensor]!, !int!)\n",
    ),
    (
        "t.std(unbiased=False, keepdim=True)",
        "TypeError: std() received an invalid combination of arguments - got (keepdim=bool, unbiased=bool, ), but expected one of:\n * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (bool unbiased = True)\n",
    ),
    (
        "lib.var(t, True, keepdim=True)",
        "TypeError: var() received an invalid combination of arguments - got (Tensor, bool, keepdim=bool), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "lib.var(t, unbiased=False, keepdim=True)",
        "TypeError: var() received an invalid combination of arguments - got (Tensor, keepdim=bool, unbiased=bool), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "t.var_mean(True, keepdim=False)",
        "AttributeError: 'Tensor' object has no attribute 'var_mean'",
    ),
    (
        "lib.std(x, unbiased=False, keepdim=False)",
        "TypeError: std() received an invalid combination of arguments - got (Tensor, keepdim=bool, unbiased=bool), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "lib.var_mean(x, unbiased=False, keepdim=True)",
        "TypeError: var_mean() received an invalid combination of arguments - got (Tensor, keepdim=bool, unbiased=bool), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n * (Tensor input, bool unbiased = True)\n",
    ),
    (
        "t.prod((0, 1))",
        "TypeError: prod() received an invalid combination of arguments - got (tuple), but expected one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "lib.prod(t, [0])",
        "TypeError: prod() received an invalid combination of arguments - got (Tensor, list), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "t.prod(dim=(0,))",
        "TypeError: prod() received an invalid combination of arguments - got (dim=tuple, ), but expected one of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "t.sum(0.5)",
        "TypeError: sum() received an invalid combination of arguments - got (float), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "lib.sum(t, 0.5)",
        "TypeError: sum() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n",
    ),
    (
        "t.sum(dim=0.5)",
        "TypeError: sum() received an invalid combination of arguments - got (dim=float, ), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "t.mean(True)",
        "TypeError: mean() received an invalid combination of arguments - got (bool), but expected one of:\n * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    ),
    (
        "t.all(0.5)",
        "TypeError: all() received an invalid combination of arguments - got (float), but expected one of:\n * ()\n      didn't match because some of the arguments have invalid types: (!float!)\n * (tuple of ints dim = None, bool keepdim = False)\n * (int dim, bool keepdim = False)\n",
    ),
    (
        "lib.clamp(t, b, 1.0)",
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, Tensor, float), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp(t, min=b, max=1.0)",
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, max=float, min=Tensor), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "t.clamp(b, 1.0)",
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !float!)\n * (Number min = None, Number max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !float!)\n",
    ),
    (
        "t.clamp(min=1.0, max=b)",
        "TypeError: clamp() received an invalid combination of arguments - got (max=Tensor, min=float, ), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the keywords were incorrect: max, min\n * (Number min = None, Number max = None)\n      didn't match because some of the keywords were incorrect: max, min\n",
    ),
    (
        "t.clamp_(b, 1.0)",
        "TypeError: clamp_() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !float!)\n * (Number min = None, Number max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !float!)\n",
    ),
    (
        "lib.clip(t, 0.0, b)",
        "TypeError: clip() received an invalid combination of arguments - got (Tensor, float, Tensor), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        't.clip(None, "a")',
        "TypeError: clip() received an invalid combination of arguments - got (NoneType, str), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the arguments have invalid types: (!NoneType!, !str!)\n * (Number min = None, Number max = None)\n      didn't match because some of the arguments have invalid types: (!NoneType!, !str!)\n",
    ),
    (
        'lib.clamp(t, None, "a")',
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, NoneType, str), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        'lib.clamp("a")',
        "TypeError: clamp() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        't.clamp(t, "a")',
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n * (Number min = None, Number max = None)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n",
    ),
    (
        'lib.clamp(t, t, "a")',
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, Tensor, str), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        't.clip_(0, "a")',
        "TypeError: clip_() received an invalid combination of arguments - got (int, str), but expected one of:\n * (Tensor min = None, Tensor max = None)\n      didn't match because some of the arguments have invalid types: (!int!, !str!)\n * (Number min = None, Number max = None)\n      didn't match because some of the arguments have invalid types: (!int!, !str!)\n",
    ),
    (
        'lib.clamp(t, "a", out=t)',
        "TypeError: clamp() received an invalid combination of arguments - got (Tensor, str, out=Tensor), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp(np.ones(2), 0, 1)",
        "TypeError: clamp() received an invalid combination of arguments - got (numpy.ndarray, int, int), but expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n",
    ),
    (
        "t.div(t, rounding_mode=1)",
        "TypeError: div() received an invalid combination of arguments - got (Tensor, rounding_mode=int), but expected one of:\n * (Tensor other)\n * (Tensor other, *, str rounding_mode)\n * (Number other, *, str rounding_mode)\n",
    ),
    (
        "lib.div(t, 2, rounding_mode=1)",
        "TypeError: div() received an invalid combination of arguments - got (Tensor, int, rounding_mode=int), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n * (Tensor input, Number other, *, str rounding_mode)\n",
    ),
    ('t.round(decimals="a")', "TypeError: round(): argument 'decimals' must be int, not str"),
    (
        "X.narrow(True, 0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (bool, int, int), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!bool!, !int!, int)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!bool!, int, int)\n",
    ),
    (
        "X.narrow(1, 1.0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (int, float, int), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (int, !float!, int)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (int, !float!, int)\n",
    ),
    (
        "X.narrow(lib.tensor(True), 0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (Tensor, int, int), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!Tensor!, !int!, int)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!Tensor!, int, int)\n",
    ),
    (
        "X.narrow(NT((0,)), 0, 1)",
        "TypeError: narrow() received an invalid combination of arguments - got (NT, int, int), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (!NT of (int,)!, !int!, int)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (!NT of (int,)!, int, int)\n",
    ),
    (
        "lib.narrow(X, 0, 0, 1.5)",
        "TypeError: narrow() received an invalid combination of arguments - got (Tensor, int, int, float), but expected one of:\n * (Tensor input, int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !int!, !float!)\n * (Tensor input, int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (Tensor, int, int, !float!)\n",
    ),
    (
        "X.narrow(0, 0, None)",
        "TypeError: narrow() received an invalid combination of arguments - got (int, int, NoneType), but expected one of:\n * (int dim, Tensor start, int length)\n      didn't match because some of the arguments have invalid types: (int, !int!, !NoneType!)\n * (int dim, int start, int length)\n      didn't match because some of the arguments have invalid types: (int, int, !NoneType!)\n",
    ),
    (
        "x.movedim((0,), 1)",
        "TypeError: movedim() received an invalid combination of arguments - got (tuple, int), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!tuple of (int,)!, int)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!tuple of (int,)!, !int!)\n",
    ),
    (
        'lib.movedim(x, (0, 1), "a")',
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, tuple, str), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (int, int)!, !str!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (int, int)!, !str!)\n",
    ),
    (
        "lib.repeat_interleave(t, 2.5)",
        "TypeError: repeat_interleave() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n * (Tensor repeats, *, int output_size = None)\n * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n",
    ),
    (
        't.repeat_interleave(lib.tensor([1, 2, 1]), dim="a")',
        "TypeError: repeat_interleave() received an invalid combination of arguments - got (Tensor, dim=str), but expected one of:\n * (Tensor repeats, int dim = None, *, int output_size = None)\n * (int repeats, int dim = None, *, int output_size = None)\n",
    ),
    (
        "lib.zeros(3).index_fill(0, lib.tensor([0]), None)",
        "TypeError: index_fill() received an invalid combination of arguments - got (int, Tensor, NoneType), but expected one of:\n * (int dim, Tensor index, Tensor value)\n      didn't match because some of the arguments have invalid types: (int, Tensor, !NoneType!)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (int, Tensor, !NoneType!)\n",
    ),
    (
        "lib.zeros(3).index_fill(0, lib.tensor([0]), [1.0])",
        "TypeError: index_fill() received an invalid combination of arguments - got (int, Tensor, list), but expected one of:\n * (int dim, Tensor index, Tensor value)\n      didn't match because some of the arguments have invalid types: (int, Tensor, !list of [float]!)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (int, Tensor, !list of [float]!)\n",
    ),
    (
        't.scatter(0, i, t, reduce="a")',
        "RuntimeError: reduce argument must be either add or multiply.",
    ),
    (
        "t.scatter(0, i)",
        "TypeError: scatter() received an invalid combination of arguments - got (int, Tensor), but expected one of:\n * (int dim, Tensor index, Tensor src)\n * (int dim, Tensor index, Tensor src, *, str reduce)\n * (int dim, Tensor index, Number value)\n * (int dim, Tensor index, Number value, *, str reduce)\n",
    ),
    (
        "t.scatter(0, i, value=None)",
        "TypeError: scatter() received an invalid combination of arguments - got (int, Tensor, value=NoneType), but expected one of:\n * (int dim, Tensor index, Tensor src)\n      didn't match because some of the keywords were incorrect: value\n * (int dim, Tensor index, Tensor src, *, str reduce)\n * (int dim, Tensor index, Number value)\n      didn't match because some of the arguments have invalid types: (int, Tensor, !value=NoneType!)\n * (int dim, Tensor index, Number value, *, str reduce)\n",
    ),
    (
        "t.fill_('a')",
        "TypeError: fill_() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number value)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.fill_(value='a')",
        "TypeError: fill_() received an invalid combination of arguments - got (value=str, ), but expected one of:\n * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!value=str!, )\n * (Number value)\n      didn't match because some of the arguments have invalid types: (!value=str!, )\n",
    ),
    (
        "lib.searchsorted(sorted_sequence='a', input=t)",
        "TypeError: searchsorted() received an invalid combination of arguments - got (input=Tensor, sorted_sequence=str, ), but expected one of:\n * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n",
    ),
    (
        "lib.searchsorted(v, input='a')",
        "TypeError: searchsorted() received an invalid combination of arguments - got (Tensor, input=str), but expected one of:\n * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n",
    ),
    (
        "lib.bucketize(input='a', boundaries=v)",
        "TypeError: bucketize() received an invalid combination of arguments - got (boundaries=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, Tensor out = None)\n * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n",
    ),
    (
        "lib.bucketize(t, boundaries='a')",
        "TypeError: bucketize() received an invalid combination of arguments - got (Tensor, boundaries=str), but expected one of:\n * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, Tensor out = None)\n * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n",
    ),
    (
        "lib.linspace(start='a', end=1, steps=5)",
        "TypeError: linspace() received an invalid combination of arguments - got (steps=int, end=int, start=str, ), but expected one of:\n * (Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.linspace(0, end='a', steps=5)",
        "TypeError: linspace() received an invalid combination of arguments - got (int, steps=int, end=str), but expected one of:\n * (Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.linspace(0, 1, steps='a')",
        "TypeError: linspace() received an invalid combination of arguments - got (int, int, steps=str), but expected one of:\n * (Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.logspace(start='a', end=1, steps=5)",
        "TypeError: logspace() received an invalid combination of arguments - got (steps=int, end=int, start=str, ), but expected one of:\n * (Tensor start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.logspace(0, end='a', steps=5)",
        "TypeError: logspace() received an invalid combination of arguments - got (int, steps=int, end=str), but expected one of:\n * (Tensor start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.logspace(0, 1, steps='a')",
        "TypeError: logspace() received an invalid combination of arguments - got (int, int, steps=str), but expected one of:\n * (Tensor start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, float base = 10.0, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.eye(3, m='a')",
        "TypeError: eye() received an invalid combination of arguments - got (int, m=str), but expected one of:\n * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.eye(3, 'a', dtype=lib.float64)",
        "TypeError: eye() received an invalid combination of arguments - got (int, str, dtype=torch.dtype), but expected one of:\n * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.eye(3.0, dtype=lib.float64, requires_grad=True)",
        "TypeError: eye() received an invalid combination of arguments - got (float, requires_grad=bool, dtype=torch.dtype), but expected one of:\n * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (int n, int m, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.fill_(t, None)",
        "TypeError: fill_() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:\n * (Tensor input, Tensor value)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!)\n * (Tensor input, Number value)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!)\n",
    ),
    (
        "t.clone().fill_([1.0])",
        "TypeError: fill_() received an invalid combination of arguments - got (list), but expected one of:\n * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!list of [float]!)\n * (Number value)\n      didn't match because some of the arguments have invalid types: (!list of [float]!)\n",
    ),
    ("t.max(1, out=(t, t))", "TypeError: max() got an unexpected keyword argument 'out'"),
    (
        "t.min(out=t)",
        "TypeError: min() received an invalid combination of arguments - got (out=Tensor, ), but expected one of:\n * ()\n      didn't match because some of the keywords were incorrect: out\n * (Tensor other)\n      didn't match because some of the keywords were incorrect: out\n * (int dim, bool keepdim = False)\n",
    ),
    ("t.max(t, out=t)", "TypeError: max(): argument 'dim' (position 1) must be int, not Tensor"),
    ("t.max(dim=1, out=t)", "TypeError: max() got an unexpected keyword argument 'out'"),
    (
        "lib.searchsorted(v, 'a', right=True)",
        "TypeError: searchsorted() received an invalid combination of arguments - got (Tensor, str, right=bool), but expected one of:\n * (Tensor sorted_sequence, Tensor input, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n * (Tensor sorted_sequence, Number self, *, bool out_int32 = False, bool right = False, str side = None, Tensor sorter = None, Tensor out = None)\n",
    ),
    (
        "lib.bucketize('a', v, out_int32=True)",
        "TypeError: bucketize() received an invalid combination of arguments - got (str, Tensor, out_int32=bool), but expected one of:\n * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, Tensor out = None)\n * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n",
    ),
    (
        "lib.linspace(0, 'a', 5, dtype=lib.float64)",
        "TypeError: linspace() received an invalid combination of arguments - got (int, str, int, dtype=torch.dtype), but expected one of:\n * (Tensor start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Tensor end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Tensor start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, int steps, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.xlogy('a', t)",
        "TypeError: xlogy() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.xlogy(input='a', other=t)",
        "TypeError: xlogy() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.xlogy(t, 'a')",
        "TypeError: xlogy() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.xlogy(t, other='a')",
        "TypeError: xlogy() received an invalid combination of arguments - got (Tensor, other=str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.float_power('a', t)",
        "TypeError: float_power() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "lib.float_power(input='a', exponent=t)",
        "TypeError: float_power() received an invalid combination of arguments - got (exponent=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "lib.float_power(t, 'a')",
        "TypeError: float_power() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "lib.float_power(t, exponent='a')",
        "TypeError: float_power() received an invalid combination of arguments - got (Tensor, exponent=str), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "t.float_power('a')",
        "TypeError: float_power() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.float_power(exponent='a')",
        "TypeError: float_power() received an invalid combination of arguments - got (exponent=str, ), but expected one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have invalid types: (!exponent=str!, )\n * (Number exponent)\n      didn't match because some of the arguments have invalid types: (!exponent=str!, )\n",
    ),
    (
        "lib.index_copy('a', 0, i1, t[:2])",
        "TypeError: index_copy(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.index_copy(input='a', dim=0, index=i1, source=t[:2])",
        "TypeError: index_copy(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.index_copy(t, 'a', i1, t[:2])",
        "TypeError: index_copy(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.index_copy(t, dim='a', index=i1, source=t[:2])",
        "TypeError: index_copy(): argument 'dim' must be int, not str",
    ),
    (
        "lib.index_copy(t, 0, 'a', t[:2])",
        "TypeError: index_copy(): argument 'index' (position 3) must be Tensor, not str",
    ),
    (
        "lib.index_copy(t, 0, index='a', source=t[:2])",
        "TypeError: index_copy(): argument 'index' must be Tensor, not str",
    ),
    (
        "lib.index_copy(t, 0, i1, 'a')",
        "TypeError: index_copy(): argument 'source' (position 4) must be Tensor, not str",
    ),
    (
        "lib.index_copy(t, 0, i1, source='a')",
        "TypeError: index_copy(): argument 'source' must be Tensor, not str",
    ),
    (
        "t.index_copy('a', i1, t[:2])",
        "TypeError: index_copy(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.index_copy(dim='a', index=i1, source=t[:2])",
        "TypeError: index_copy(): argument 'dim' must be int, not str",
    ),
    (
        "t.index_copy(0, 'a', t[:2])",
        "TypeError: index_copy(): argument 'index' (position 2) must be Tensor, not str",
    ),
    (
        "t.index_copy(0, index='a', source=t[:2])",
        "TypeError: index_copy(): argument 'index' must be Tensor, not str",
    ),
    (
        "t.index_copy(0, i1, 'a')",
        "TypeError: index_copy(): argument 'source' (position 3) must be Tensor, not str",
    ),
    (
        "t.index_copy(0, i1, source='a')",
        "TypeError: index_copy(): argument 'source' must be Tensor, not str",
    ),
    (
        "lib.clamp_min('a', 0.0)",
        "TypeError: clamp_min() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor input, Tensor min, *, Tensor out = None)\n * (Tensor input, Number min, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_min(input='a', min=0.0)",
        "TypeError: clamp_min() received an invalid combination of arguments - got (min=float, input=str, ), but expected one of:\n * (Tensor input, Tensor min, *, Tensor out = None)\n * (Tensor input, Number min, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_min(t, 'a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor min, *, Tensor out = None)\n * (Tensor input, Number min, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_min(t, min='a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (Tensor, min=str), but expected one of:\n * (Tensor input, Tensor min, *, Tensor out = None)\n * (Tensor input, Number min, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_max('a', 1.0)",
        "TypeError: clamp_max() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor input, Tensor max, *, Tensor out = None)\n * (Tensor input, Number max, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_max(input='a', max=1.0)",
        "TypeError: clamp_max() received an invalid combination of arguments - got (max=float, input=str, ), but expected one of:\n * (Tensor input, Tensor max, *, Tensor out = None)\n * (Tensor input, Number max, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_max(t, 'a')",
        "TypeError: clamp_max() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor max, *, Tensor out = None)\n * (Tensor input, Number max, *, Tensor out = None)\n",
    ),
    (
        "lib.clamp_max(t, max='a')",
        "TypeError: clamp_max() received an invalid combination of arguments - got (Tensor, max=str), but expected one of:\n * (Tensor input, Tensor max, *, Tensor out = None)\n * (Tensor input, Number max, *, Tensor out = None)\n",
    ),
    (
        "t.clamp_min('a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor min)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number min)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.clamp_min(min='a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (min=str, ), but expected one of:\n * (Tensor min)\n      didn't match because some of the arguments have invalid types: (!min=str!, )\n * (Number min)\n      didn't match because some of the arguments have invalid types: (!min=str!, )\n",
    ),
    ("lib.diff(t, 1, 'a')", "TypeError: diff(): argument 'dim' (position 3) must be int, not str"),
    ("lib.diff(t, 1, dim='a')", "TypeError: diff(): argument 'dim' must be int, not str"),
    ("t.diff(1, 'a')", "TypeError: diff(): argument 'dim' (position 2) must be int, not str"),
    ("t.diff(1, dim='a')", "TypeError: diff(): argument 'dim' must be int, not str"),
    (
        "lib.std(t, 1, correction='a')",
        "TypeError: std() received an invalid combination of arguments - got (Tensor, int, correction=str), but expected one of:\n * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None)\n * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False, Tensor out = None)\n * (Tensor input, bool unbiased = True)\n",
    ),
    ("lib.diff(t, dim=True)", "TypeError: diff(): argument 'dim' must be int, not bool"),
    ("lib.diff(t, 0, 'a')", "TypeError: diff(): argument 'dim' (position 3) must be int, not str"),
]


@pytest.mark.parametrize(("code", "message"), CASES)
def test_argument_error_as_torch_words_it(code, message):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is part of the message
        eval(code, ENV)  # noqa: S307 - compiled as written: its keywords are read from it
    assert f"{type(info.value).__name__}: {info.value}" == message


def test_overloaded_reductions_still_compute():
    # the error paths wrap the dims' parsing: the common calls are unchanged
    y = torch.arange(12.0).reshape(3, 4)
    assert y.sum(1).tolist() == [6.0, 22.0, 38.0]
    assert torch.mean(y, dim=0, keepdim=True).shape == (1, 4)
    assert y.prod(0).tolist() == [0.0, 45.0, 120.0, 231.0]
    assert y.std(1, keepdim=True).shape == (3, 1)
    assert torch.var(y, unbiased=False).item() == pytest.approx(143 / 12)
    assert (y > 3).all(1).tolist() == [False, True, True]
    assert torch.count_nonzero(y, 1).tolist() == [3, 4, 4]
    assert y.narrow(1, 1, 2).tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    assert y.movedim(0, 1).shape == (4, 3)
    assert torch.repeat_interleave(torch.tensor([1, 2]), 2).tolist() == [1, 1, 2, 2]
    assert torch.clamp(y, 2.0, 3.0).unique().tolist() == [2.0, 3.0]
    assert torch.true_divide(torch.tensor([3]), 2).tolist() == [1.5]
    assert torch.round(torch.tensor([1.25]), decimals=1).tolist() == [1.2000000476837158]
    idx = torch.tensor([[0, 1, 2, 0]])
    assert torch.zeros(3, 4).scatter(0, idx, 1.0).sum().item() == 4.0
    assert torch.zeros(3).index_fill(0, torch.tensor([1]), 5.0).tolist() == [0.0, 5.0, 0.0]
    assert [p.shape for p in torch.split(y, 2, 1)] == [(3, 2), (3, 2)]


def test_split_of_a_non_tensor_is_its_own_split():
    # torch.split is Python calling tensor.split(split_size, dim): a str's split, dim 0 read as
    # its maxsplit
    assert torch.split("a b", None) == ["a b"]
    with pytest.raises(TypeError, match="^must be str or None, not int$"):
        torch.split("a", 2)
