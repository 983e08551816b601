"""Session 30 (helper argkw3): torch's argument-type errors, written as literals (torch 2.13's
messages for the same calls; tests/reference/test_s30_argkw3_reference.py compares them with
torch itself): bincount/histc/renorm/put/masked_scatter/unflatten positions, unique's kernels,
scatter_reduce's and index_add's parser errors, the pools' positions, addcmul/addcdiv's value,
rsub's and tensor_split's overloads, quantile's keywords, atleast_nd's listing, F.softmax's
method position, F.embedding, pairwise_distance/cdist's floats, linalg's argument names and
shorthands, lu_solve, chain_matmul, copy_'s other, NumPy keyword spellings, arange's and
conv1d/2d/3d's overloads, movedim/moveaxis, ctc_loss, scaled_dot_product_attention, and
nn.functional's losses' ignore_index/label_smoothing/beta."""

# ruff: noqa: E501  (the cases are the calls as written, the messages torch's)

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch

t = torch.ones(3, 4)
ENV = {
    "lib": torch,
    "F_": torch.nn.functional,
    "np": np,
    "t": t,
    "t3": torch.ones(2, 3, 4),
    "x": torch.ones(2, 3),
    "X": torch.ones(2, 3, 4),
    "v": torch.ones(4),
    "b": torch.ones(4),
    "i": torch.zeros(3, 4, dtype=torch.long),
    "i1": torch.tensor([0, 1]),
    "m": t > 0,
    "sq": torch.eye(3) + 1,
    "img": torch.ones(2, 3, 8, 8),
    "w4": torch.ones(5, 3, 3, 3),
    "tgt": torch.tensor([0, 1, 2]),
    "seq": torch.ones(2, 3, 8),
}

CASES = [
    (
        "t.unflatten(dim='a', sizes=(2, 2))",
        "TypeError: unflatten(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.unflatten(1, sizes='a')",
        "TypeError: unflatten(): argument 'sizes' (position 2) must be tuple of ints, not str",
    ),
    (
        "t.split('a')",
        "TypeError: split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not str",
    ),
    (
        "t.split(split_size='a')",
        "TypeError: split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not str",
    ),
    (
        "t.split(2, dim='a')",
        "TypeError: split() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, int split_size, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !str!)\n * (Tensor input, tuple of ints split_size, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n",
    ),
    (
        "t.unique(dim='a')",
        "TypeError: unique_dim(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "t.unique(sorted='a')",
        "TypeError: _unique2(): argument 'sorted' must be bool, not str",
    ),
    (
        "t.norm(p='a')",
        "RuntimeError: linalg.matrix_norm: Order a not supported.",
    ),
    (
        "t.norm(2, dim='a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "t.norm(2, 1, keepdim='a')",
        "TypeError: linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, not str",
    ),
    (
        "t.unique_consecutive(dim='a')",
        "TypeError: unique_consecutive(): argument 'dim' must be int, not str",
    ),
    (
        "t.unique(return_inverse=1)",
        "TypeError: _unique2(): argument 'return_inverse' must be bool, not int",
    ),
    (
        "lib.unique(t, return_counts=None)",
        "TypeError: _unique2(): argument 'return_counts' must be bool, not NoneType",
    ),
    (
        "lib.unique(t, dim=1, sorted=0)",
        "TypeError: unique_dim(): argument 'sorted' must be bool, not int",
    ),
    (
        "lib.unique(t, dim='a')",
        "TypeError: unique_dim(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.unique(t, 1)",
        "TypeError: _unique2(): argument 'sorted' must be bool, not int",
    ),
    (
        "lib.unique(input='a')",
        "TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.unique('a')",
        "TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.unflatten(t, 'a', (2, 2))",
        "TypeError: unflatten(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.unflatten(t, dim='a', sizes=(2, 2))",
        "TypeError: unflatten(): argument 'dim' must be int, not str",
    ),
    (
        "t.unflatten('a', (2, 2))",
        "TypeError: unflatten(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.unflatten(1, 'a')",
        "TypeError: unflatten(): argument 'sizes' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.unflatten(t, 1, sizes='a')",
        "TypeError: unflatten(): argument 'sizes' must be tuple of ints, not str",
    ),
    (
        "t.unflatten(1, sizes=[2, 'a'])",
        "TypeError: unflatten(): argument 'sizes' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "t.unflatten(axis=1, sizes=(2,2))",
        "TypeError: Tensor.unflatten() got an unexpected keyword argument 'axis'",
    ),
    (
        "lib.renorm(t, 2, 'a', 1.0)",
        "TypeError: renorm(): argument 'dim' (position 3) must be int, not str",
    ),
    (
        "lib.renorm(t, 2, dim='a', maxnorm=1.0)",
        "TypeError: renorm(): argument 'dim' must be int, not str",
    ),
    (
        "t.renorm(2, 'a', 1.0)",
        "TypeError: renorm(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "t.renorm(2, dim=1.5, maxnorm=1.0)",
        "TypeError: renorm(): argument 'dim' must be int, not float",
    ),
    (
        "t.renorm_(2, 'a', 1.0)",
        "TypeError: renorm_(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "F_.avg_pool1d(t3, kernel_size='a')",
        "TypeError: avg_pool1d(): argument 'kernel_size' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d(t3, 'a')",
        "TypeError: avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d('a', 2)",
        "TypeError: avg_pool1d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, stride='a')",
        "TypeError: avg_pool1d(): argument 'stride' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 'a')",
        "TypeError: avg_pool1d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 1, padding='a')",
        "TypeError: avg_pool1d(): argument 'padding' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 1, 0, ceil_mode='a')",
        "TypeError: avg_pool1d(): argument 'ceil_mode' must be bool, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 1, 0, 'a')",
        "TypeError: avg_pool1d(): argument 'ceil_mode' (position 5) must be bool, not str",
    ),
    (
        "lib.put(t, i1, source='a')",
        "TypeError: put(): argument 'source' must be Tensor, not str",
    ),
    (
        "lib.put(t, i1, 'a')",
        "TypeError: put(): argument 'source' (position 3) must be Tensor, not str",
    ),
    (
        "t.put(i1, source='a')",
        "TypeError: put(): argument 'source' must be Tensor, not str",
    ),
    (
        "t.put(i1, 'a')",
        "TypeError: put(): argument 'source' (position 2) must be Tensor, not str",
    ),
    (
        "t.put_(i1, 'a')",
        "TypeError: put_(): argument 'source' (position 2) must be Tensor, not str",
    ),
    (
        "lib.masked_scatter(t, 'a', t)",
        "TypeError: masked_scatter(): argument 'mask' (position 2) must be Tensor, not str",
    ),
    (
        "lib.masked_scatter(t, mask='a', source=t)",
        "TypeError: masked_scatter(): argument 'mask' must be Tensor, not str",
    ),
    (
        "lib.masked_scatter(t, m, 'a')",
        "TypeError: masked_scatter(): argument 'source' (position 3) must be Tensor, not str",
    ),
    (
        "lib.masked_scatter(t, m, source='a')",
        "TypeError: masked_scatter(): argument 'source' must be Tensor, not str",
    ),
    (
        "t.masked_scatter('a', t)",
        "TypeError: masked_scatter(): argument 'mask' (position 1) must be Tensor, not str",
    ),
    (
        "t.masked_scatter(mask='a', source=t)",
        "TypeError: masked_scatter(): argument 'mask' must be Tensor, not str",
    ),
    (
        "t.masked_scatter(m, source='a')",
        "TypeError: masked_scatter(): argument 'source' must be Tensor, not str",
    ),
    (
        "t.masked_scatter(m, 'a')",
        "TypeError: masked_scatter(): argument 'source' (position 2) must be Tensor, not str",
    ),
    (
        "t.masked_scatter_('a', t)",
        "TypeError: masked_scatter_(): argument 'mask' (position 1) must be Tensor, not str",
    ),
    (
        "t.masked_scatter_(m, 'a')",
        "TypeError: masked_scatter_(): argument 'source' (position 2) must be Tensor, not str",
    ),
    (
        "lib.masked_scatter('a', m, t)",
        "TypeError: masked_scatter(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.avg_pool1d(input='a', kernel_size=2)",
        "TypeError: avg_pool1d(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.scatter_reduce('a', 0, i, t, 'sum')",
        "TypeError: scatter_reduce(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.scatter_reduce(input='a', dim=0, index=i, src=t, reduce='sum')",
        "TypeError: scatter_reduce(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.scatter_reduce(t, 0, i, t, 1)",
        "TypeError: scatter_reduce(): argument 'reduce' (position 5) must be str, not int",
    ),
    (
        "lib.scatter_reduce(t, 0, i, t, reduce=1)",
        "TypeError: scatter_reduce(): argument 'reduce' must be str, not int",
    ),
    (
        "t.scatter_reduce(0, i, t, 1)",
        "TypeError: scatter_reduce(): argument 'reduce' (position 4) must be str, not int",
    ),
    (
        "t.scatter_reduce(0, i, t, reduce=1)",
        "TypeError: scatter_reduce(): argument 'reduce' must be str, not int",
    ),
    (
        "t.scatter_reduce_(0, i, t, 1)",
        "TypeError: scatter_reduce_(): argument 'reduce' (position 4) must be str, not int",
    ),
    (
        "t.scatter_reduce_(0, i, t, reduce=None)",
        "TypeError: scatter_reduce_(): argument 'reduce' must be str, not NoneType",
    ),
    (
        "t.scatter_reduce_(0, i, 'a', 'sum')",
        "TypeError: scatter_reduce_(): argument 'src' (position 3) must be Tensor, not str",
    ),
    (
        "t.scatter_reduce_('a', i, t, 1)",
        "TypeError: scatter_reduce_(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "lib.scatter_reduce(t, 'a', i, t, 1)",
        "TypeError: scatter_reduce(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.scatter_reduce(t, 0, 'a', t, 1)",
        "TypeError: scatter_reduce(): argument 'index' (position 3) must be Tensor, not str",
    ),
    (
        "lib.scatter_reduce(t, 0, i, t, 'bad')",
        "RuntimeError: reduce argument must be either sum, prod, mean, amax or amin, got bad",
    ),
    (
        "t.scatter_reduce(0, i, t, 'sum', include_self='a')",
        "TypeError: scatter_reduce(): argument 'include_self' must be bool, not str",
    ),
    (
        "lib.index_add('a', 0, i1, t[:2])",
        "TypeError: index_add(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.index_add(input='a', dim=0, index=i1, source=t[:2])",
        "TypeError: index_add(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.index_add(t, 'a', i1, t[:2])",
        "TypeError: index_add(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.index_add(t, 0, 'a', t[:2])",
        "TypeError: index_add(): argument 'index' (position 3) must be Tensor, not str",
    ),
    (
        "lib.index_add(t, 0, i1, 'a')",
        "TypeError: index_add(): argument 'source' (position 4) must be Tensor, not str",
    ),
    (
        "lib.index_add(t, 0, i1, source='a')",
        "TypeError: index_add(): argument 'source' must be Tensor, not str",
    ),
    (
        "lib.index_add(t, 0, i1, t[:2], alpha='a')",
        "TypeError: index_add(): argument 'alpha' must be Number, not str",
    ),
    (
        "t.index_add(0, i1, 'a')",
        "TypeError: index_add(): argument 'source' (position 3) must be Tensor, not str",
    ),
    (
        "t.index_add_(0, i1, 'a')",
        "TypeError: index_add_(): argument 'source' (position 3) must be Tensor, not str",
    ),
    (
        't.index_add_(0, i1, lib.ones(2, 4), alpha="a")',
        "TypeError: index_add_(): argument 'alpha' must be Number, not str",
    ),
    (
        "t.index_add(0, i1, lib.ones(2, 4), alpha=lib.ones(2))",
        "TypeError: index_add(): argument 'alpha' must be Number, not Tensor",
    ),
    (
        "lib.index_add(t, 0, i1, lib.ones(2, 4), alpha=None)",
        "TypeError: index_add(): argument 'alpha' must be Number, not NoneType",
    ),
    (
        "t.index_add_('a', i1, lib.ones(2, 4))",
        "TypeError: index_add_(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.index_add_(0, [0, 1], lib.ones(2, 4))",
        "TypeError: index_add_(): argument 'index' (position 2) must be Tensor, not list",
    ),
    (
        "F_.avg_pool2d(img, 2, 'a')",
        "TypeError: avg_pool2d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, stride='a')",
        "TypeError: avg_pool2d(): argument 'stride' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, 1, 'a')",
        "TypeError: avg_pool2d(): argument 'padding' (position 4) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, 1, 0, 'a')",
        "TypeError: avg_pool2d(): argument 'ceil_mode' (position 5) must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, 1, 0, ceil_mode='a')",
        "TypeError: avg_pool2d(): argument 'ceil_mode' must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, 1, 0, False, 'a')",
        "TypeError: avg_pool2d(): argument 'count_include_pad' (position 6) must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 'a')",
        "TypeError: avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, kernel_size='a')",
        "TypeError: avg_pool2d(): argument 'kernel_size' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d('a', 2)",
        "TypeError: avg_pool2d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.avg_pool2d(input='a', kernel_size=2)",
        "TypeError: avg_pool2d(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.max_pool2d(img, 'a')",
        "TypeError: max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, kernel_size='a')",
        "TypeError: max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, stride='a')",
        "TypeError: max_pool2d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, 1, 0, 1, 'a')",
        "TypeError: max_pool2d(): argument 'ceil_mode' (position 6) must be bool, not str",
    ),
    (
        "F_.max_pool2d(input='a', kernel_size=2)",
        "TypeError: max_pool2d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.max_pool1d(t3, kernel_size='a')",
        "TypeError: max_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool1d(t3, 2, stride='a')",
        "TypeError: max_pool1d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 1, 0, False, 'a')",
        "TypeError: avg_pool1d(): argument 'count_include_pad' (position 6) must be bool, not str",
    ),
    (
        "F_.avg_pool1d(t3, 2, 1, 0, False, count_include_pad='a')",
        "TypeError: avg_pool1d(): argument 'count_include_pad' must be bool, not str",
    ),
    (
        "F_.avg_pool3d(img, 2, 1, 0, 'a')",
        "TypeError: avg_pool3d(): argument 'ceil_mode' (position 5) must be bool, not str",
    ),
    (
        "F_.avg_pool3d(img, 'a')",
        "TypeError: avg_pool3d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool3d(img, kernel_size='a')",
        "TypeError: avg_pool3d(): argument 'kernel_size' must be tuple of ints, not str",
    ),
    (
        "lib.avg_pool1d(t3, 'a')",
        "TypeError: avg_pool1d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.avg_pool1d(t3, kernel_size='a')",
        "TypeError: avg_pool1d(): argument 'kernel_size' must be tuple of ints, not str",
    ),
    (
        "lib.avg_pool1d(t3, 2, 1, 0, 'a')",
        "TypeError: avg_pool1d(): argument 'ceil_mode' (position 5) must be bool, not str",
    ),
    (
        "F_.adaptive_avg_pool2d(img, 'a')",
        "TypeError: adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.adaptive_avg_pool2d(img, output_size='a')",
        "TypeError: adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.adaptive_max_pool2d(img, 'a')",
        "TypeError: adaptive_max_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.adaptive_avg_pool1d(t3, 'a')",
        "TypeError: adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.adaptive_avg_pool1d(t3, output_size='a')",
        "TypeError: adaptive_avg_pool1d(): argument 'output_size' must be tuple of ints, not str",
    ),
    (
        "lib.addcmul(t, t, t, value='a')",
        "TypeError: addcmul(): argument 'value' must be Number, not str",
    ),
    (
        "lib.addcdiv(t, t, t, value='a')",
        "TypeError: addcdiv(): argument 'value' must be Number, not str",
    ),
    (
        "t.addcmul(t, t, value='a')",
        "TypeError: addcmul(): argument 'value' must be Number, not str",
    ),
    (
        "t.addcdiv(t, t, value=None)",
        "TypeError: addcdiv(): argument 'value' must be Number, not NoneType",
    ),
    (
        "t.addcmul_(t, t, value='a')",
        "TypeError: addcmul_(): argument 'value' must be Number, not str",
    ),
    (
        "t.addcdiv_(t, t, value=[1])",
        "TypeError: addcdiv_(): argument 'value' must be Number, not list",
    ),
    (
        "lib.addcmul(t, t, t, value=lib.ones(2))",
        "TypeError: addcmul(): argument 'value' must be Number, not Tensor",
    ),
    (
        "lib.rsub(input='a', other=t)",
        "TypeError: rsub() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "lib.rsub(t, 'a')",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "lib.rsub(t, other='a')",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, other=str), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "lib.rsub('a', t)",
        "TypeError: rsub() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "lib.rsub(1, t)",
        "TypeError: rsub() received an invalid combination of arguments - got (int, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "lib.rsub(t, 'a', alpha=2)",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, str, alpha=int), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n      didn't match because some of the keywords were incorrect: alpha\n",
    ),
    (
        "lib.rsub(t, None)",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, NoneType), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n",
    ),
    (
        "'a' - t",
        "TypeError: unsupported operand type(s) for -: 'str' and 'Tensor'",
    ),
    (
        "None - t",
        "TypeError: unsupported operand type(s) for -: 'NoneType' and 'Tensor'",
    ),
    (
        "lib.rsub(t, t, alpha='a')",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, Tensor, alpha=str), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n      didn't match because some of the keywords were incorrect: alpha\n",
    ),
    (
        "lib.rsub(t, 2, 'a')",
        "TypeError: rsub() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, Tensor other, *, Number alpha = 1)\n * (Tensor input, Number other, Number alpha = 1)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n",
    ),
    (
        "t.copy_('a')",
        "TypeError: copy_(): argument 'other' (position 1) must be Tensor, not str",
    ),
    (
        "t.copy_(other='a')",
        "TypeError: copy_(): argument 'other' must be Tensor, not str",
    ),
    (
        "t.copy_(None)",
        "TypeError: copy_(): argument 'other' (position 1) must be Tensor, not NoneType",
    ),
    (
        "t.copy_([1.0])",
        "TypeError: copy_(): argument 'other' (position 1) must be Tensor, not list",
    ),
    (
        "lib.Tensor.copy_(t, 'a')",
        "TypeError: copy_(): argument 'other' (position 1) must be Tensor, not str",
    ),
    (
        "F_.softmax(t, 'a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.softmax(t, dim='a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.log_softmax(t, 'a')",
        "TypeError: log_softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.log_softmax(t, dim='a')",
        "TypeError: log_softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.softmin(t, dim='a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.softmin(t, 1.5)",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not float",
    ),
    (
        "F_.softmax(t, dim=1, dtype='a')",
        "TypeError: softmax(): argument 'dtype' must be torch.dtype, not str",
    ),
    (
        "F_.softmax('a', 1)",
        "AttributeError: 'str' object has no attribute 'softmax'",
    ),
    (
        "F_.softmax(t, dim=5)",
        "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)",
    ),
    (
        "lib.softmax(t, 'a')",
        "TypeError: softmax(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.softmax(t, dim='a')",
        "TypeError: softmax(): argument 'dim' must be int, not str",
    ),
    (
        "t.softmax('a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.log_softmax(dim='a')",
        "TypeError: log_softmax(): argument 'dim' must be int, not str",
    ),
    (
        "F_.embedding(i, 'a')",
        "TypeError: embedding(): argument 'weight' (position 1) must be Tensor, not str",
    ),
    (
        "F_.embedding(i, weight='a')",
        "TypeError: embedding(): argument 'weight' (position 1) must be Tensor, not str",
    ),
    (
        "F_.embedding('a', t)",
        "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str",
    ),
    (
        "F_.embedding(input='a', weight=t)",
        "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str",
    ),
    (
        "F_.embedding(i, t, padding_idx='a')",
        "TypeError: '>' not supported between instances of 'str' and 'int'",
    ),
    (
        "F_.embedding(i, t, max_norm='a')",
        "TypeError: embedding_renorm_(): argument 'max_norm' (position 3) must be float, not str",
    ),
    (
        "lib.embedding(t, 'a')",
        "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str",
    ),
    (
        "lib.embedding('a', i)",
        "TypeError: embedding(): argument 'weight' (position 1) must be Tensor, not str",
    ),
    (
        "F_.embedding(i, t, padding_idx=1.0)",
        "TypeError: embedding(): argument 'padding_idx' (position 3) must be int, not float",
    ),
    (
        "F_.embedding(i, t, 1.0)",
        "TypeError: embedding(): argument 'padding_idx' (position 3) must be int, not float",
    ),
    (
        "F_.embedding(i, t, padding_idx=None, max_norm=1.0, norm_type='a')",
        "TypeError: embedding_renorm_(): argument 'norm_type' (position 4) must be float, not str",
    ),
    (
        "F_.embedding(i, t, padding_idx=[1])",
        "TypeError: '>' not supported between instances of 'list' and 'int'",
    ),
    (
        "F_.embedding(i, t, scale_grad_by_freq='a')",
        "TypeError: embedding(): argument 'scale_grad_by_freq' (position 4) must be bool, not str",
    ),
    (
        "F_.embedding(i, t, sparse='a')",
        "TypeError: embedding(): argument 'sparse' (position 5) must be bool, not str",
    ),
    (
        "F_.embedding(i.float(), t)",
        "RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)",
    ),
    (
        "lib.cdist(t, t, 'a')",
        "TypeError: cdist(): argument 'p' (position 3) must be float, not str",
    ),
    (
        "lib.cdist(t, t, p='a')",
        "TypeError: cdist(): argument 'p' (position 3) must be float, not str",
    ),
    (
        "lib.cdist('a', t)",
        "TypeError: cdist(): argument 'x1' (position 1) must be Tensor, not str",
    ),
    (
        "lib.cdist(t, 'a')",
        "TypeError: cdist(): argument 'x2' (position 2) must be Tensor, not str",
    ),
    (
        "lib.cdist(t, t, 2.0, 'a')",
        "ValueError: a is not a valid value for compute_mode",
    ),
    (
        "F_.pairwise_distance(t, t, 'a')",
        "TypeError: pairwise_distance(): argument 'p' (position 3) must be float, not str",
    ),
    (
        "F_.pairwise_distance(t, t, p='a')",
        "TypeError: pairwise_distance(): argument 'p' must be float, not str",
    ),
    (
        "F_.pairwise_distance(t, t, 2.0, 'a')",
        "TypeError: pairwise_distance(): argument 'eps' (position 4) must be float, not str",
    ),
    (
        "F_.pairwise_distance(t, t, eps='a')",
        "TypeError: pairwise_distance(): argument 'eps' must be float, not str",
    ),
    (
        "F_.pairwise_distance(t, t, keepdim='a')",
        "TypeError: pairwise_distance(): argument 'keepdim' must be bool, not str",
    ),
    (
        "F_.pairwise_distance('a', t)",
        "TypeError: pairwise_distance(): argument 'x1' (position 1) must be Tensor, not str",
    ),
    (
        "F_.one_hot(input='a')",
        "TypeError: one_hot(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.one_hot('a')",
        "TypeError: one_hot(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.one_hot(i, 'a')",
        "TypeError: one_hot(): argument 'num_classes' (position 2) must be int, not str",
    ),
    (
        "F_.one_hot(i, num_classes='a')",
        "TypeError: one_hot(): argument 'num_classes' must be int, not str",
    ),
    (
        "F_.cosine_similarity(t, t, dim='a')",
        "TypeError: cosine_similarity(): argument 'dim' must be int, not str",
    ),
    (
        "F_.cosine_similarity(t, t, 1, 'a')",
        "TypeError: cosine_similarity(): argument 'eps' (position 4) must be float, not str",
    ),
    (
        "F_.cosine_similarity(t, 'a')",
        "TypeError: cosine_similarity(): argument 'x2' (position 2) must be Tensor, not str",
    ),
    (
        "lib.tensor_split('a', 2)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(input='a', indices_or_sections=2)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (indices_or_sections=int, input=str, ), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, 'a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, indices_or_sections='a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, indices_or_sections=str), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, 2, 'a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n * (Tensor input, int sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !str!)\n",
    ),
    (
        "lib.tensor_split(t, 2, dim='a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, int, dim=str), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n * (Tensor input, int sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "t.tensor_split('a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (str), but expected one of:\n * (tuple of ints indices, int dim = 0)\n * (Tensor tensor_indices_or_sections, int dim = 0)\n * (int sections, int dim = 0)\n",
    ),
    (
        "t.tensor_split(2, 'a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (int, str), but expected one of:\n * (tuple of ints indices, int dim = 0)\n      didn't match because some of the arguments have invalid types: (!int!, !str!)\n * (Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (!int!, !str!)\n * (int sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (int, !str!)\n",
    ),
    (
        "t.tensor_split(2, dim='a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (int, dim=str), but expected one of:\n * (tuple of ints indices, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n * (Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n * (int sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: dim\n",
    ),
    (
        "t.tensor_split(sections='a')",
        "TypeError: tensor_split() received an invalid combination of arguments - got (sections=str, ), but expected one of:\n * (tuple of ints indices, int dim = 0)\n * (Tensor tensor_indices_or_sections, int dim = 0)\n * (int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, sections=2.0)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, sections=float), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, indices=2)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, indices=int), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, indices=[1, 'a'])",
        "TypeError: tensor_split(): argument 'indices' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "lib.tensor_split(t, [1, 'a'])",
        "TypeError: tensor_split(): argument 'indices' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "lib.tensor_split(t, 2.0)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, 2, sections=2)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, int, sections=int), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n      didn't match because some of the keywords were incorrect: sections\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: sections\n * (Tensor input, int sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: sections\n",
    ),
    (
        "lib.tensor_split(t, sections=2, indices=[1])",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, indices=list, sections=int), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n      didn't match because some of the keywords were incorrect: sections\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: indices, sections\n * (Tensor input, int sections, int dim = 0)\n      didn't match because some of the keywords were incorrect: indices\n",
    ),
    (
        "lib.tensor_split(t, tensor_indices_or_sections=2)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, tensor_indices_or_sections=int), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n",
    ),
    (
        "lib.tensor_split(t, 2, 1.0)",
        "TypeError: tensor_split() received an invalid combination of arguments - got (Tensor, int, float), but expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !float!)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !float!)\n * (Tensor input, int sections, int dim = 0)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !float!)\n",
    ),
    (
        "lib.tensor_split(lib.tensor(1.), 2)",
        "RuntimeError: tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims",
    ),
    (
        "lib.quantile(input='a', q=0.5)",
        'TypeError: quantile() received an invalid combination of arguments - got (q=float, input=str, ), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile('a', 0.5)",
        'TypeError: quantile() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile([1.0, 2.0], 0.9)",
        'TypeError: quantile() received an invalid combination of arguments - got (list, float), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile('a', 0.5, dim=1)",
        'TypeError: quantile() received an invalid combination of arguments - got (str, float, dim=int), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile('a', 0.5, 1, True)",
        'TypeError: quantile() received an invalid combination of arguments - got (str, float, int, bool), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.nanquantile(input='a', q=0.5)",
        'TypeError: nanquantile() received an invalid combination of arguments - got (q=float, input=str, ), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile(t, q='a')",
        'TypeError: quantile() received an invalid combination of arguments - got (Tensor, q=str), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "lib.quantile(t, 0.5, dim='a')",
        'TypeError: quantile() received an invalid combination of arguments - got (Tensor, float, dim=str), but expected one of:\n * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "linear", Tensor out = None)\n',
    ),
    (
        "t.quantile('a')",
        'TypeError: quantile() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n',
    ),
    (
        "t.quantile(0.5, keepdim='a')",
        'TypeError: quantile() received an invalid combination of arguments - got (float, keepdim=str), but expected one of:\n * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n',
    ),
    (
        "lib.trapezoid(t, 'a')",
        "TypeError: trapezoid() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n",
    ),
    (
        "lib.trapezoid('a')",
        "TypeError: trapezoid(): argument 'y' (position 1) must be Tensor, not str",
    ),
    (
        "lib.atleast_2d('a')",
        "TypeError: atleast_2d() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor input)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of Tensors tensors)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.atleast_1d('a')",
        "TypeError: atleast_1d() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor input)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of Tensors tensors)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.atleast_3d('a')",
        "TypeError: atleast_3d() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor input)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (tuple of Tensors tensors)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "lib.atleast_2d(t, 'a')",
        "TypeError: expected Tensor as element 1 in argument 0, but got str",
    ),
    (
        "lib.atleast_2d([t, 'a'])",
        "TypeError: expected Tensor as element 1 in argument 0, but got str",
    ),
    (
        "lib.arange('a')",
        "TypeError: arange(): argument 'end' (position 1) must be Number, not str",
    ),
    (
        "lib.arange(start='a')",
        'TypeError: arange() missing 1 required positional arguments: "end"',
    ),
    (
        "lib.arange(0, 'a')",
        "TypeError: arange() received an invalid combination of arguments - got (int, str), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(0, end='a')",
        "TypeError: arange() received an invalid combination of arguments - got (int, end=str), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(0, 4, 'a')",
        "TypeError: arange() received an invalid combination of arguments - got (int, int, str), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(0, 4, step='a')",
        "TypeError: arange() received an invalid combination of arguments - got (int, int, step=str), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(end='a')",
        "TypeError: arange(): argument 'end' must be Number, not str",
    ),
    (
        "lib.arange(None)",
        "TypeError: arange(): argument 'end' (position 1) must be Number, not NoneType",
    ),
    (
        "lib.rot90(t, 1, [0, 'a'])",
        "TypeError: rot90(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "lib.rot90(t, 1, ['a', 1])",
        "TypeError: rot90(): argument 'dims' (position 3) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "lib.rot90(t, 1, dims=[0, 'a'])",
        "TypeError: rot90(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "t.rot90(1, [0, 1.5])",
        "TypeError: rot90(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\"",
    ),
    (
        "lib.rot90(t, 'a')",
        "TypeError: rot90(): argument 'k' (position 2) must be int, not str",
    ),
    (
        "t.reshape(x=2)",
        'TypeError: reshape() missing 1 required positional arguments: "shape"',
    ),
    (
        "lib.movedim(t, source=0, destination='a')",
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, destination=str, source=int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, source=int, !destination=str!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !source=int!, !destination=str!)\n",
    ),
    (
        "lib.movedim(t, 0, 'a')",
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, int, str), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !str!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !str!)\n",
    ),
    (
        "t.movedim(source='a', destination=1)",
        "TypeError: movedim() received an invalid combination of arguments - got (destination=int, source=str, ), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!source=str!, destination=int, )\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!source=str!, !destination=int!, )\n",
    ),
    (
        "lib.movedim(t, source=(0,), destination=1)",
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, destination=int, source=tuple), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !source=tuple of (int,)!, destination=int)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !source=tuple of (int,)!, !destination=int!)\n",
    ),
    (
        "lib.arange()",
        "TypeError: arange() received an invalid combination of arguments - got (), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(step=2)",
        'TypeError: arange() missing 1 required positional arguments: "end"',
    ),
    (
        "lib.arange(end=None)",
        "TypeError: arange(): argument 'end' must be Number, not NoneType",
    ),
    (
        "lib.arange(0.5, 'a', dtype=lib.float64)",
        "TypeError: arange() received an invalid combination of arguments - got (float, str, dtype=torch.dtype), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.arange(0, 4, 'a', dtype=lib.float64)",
        "TypeError: arange() received an invalid combination of arguments - got (int, int, str, dtype=torch.dtype), but expected one of:\n * (Number end, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n * (Number start, Number end, Number step = 1, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n",
    ),
    (
        "lib.movedim(t, (0,), 1)",
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, tuple, int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (int,)!, int)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (int,)!, !int!)\n",
    ),
    (
        "lib.movedim(t, 0, [1])",
        "TypeError: movedim() received an invalid combination of arguments - got (Tensor, int, list), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !list of [int]!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !list of [int]!)\n",
    ),
    (
        "t.movedim(0, (1,))",
        "TypeError: movedim() received an invalid combination of arguments - got (int, tuple), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (int, !tuple of (int,)!)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!int!, !tuple of (int,)!)\n",
    ),
    (
        "t.movedim([0], destination=1)",
        "TypeError: movedim() received an invalid combination of arguments - got (list, destination=int), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!list of [int]!, destination=int)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!list of [int]!, !destination=int!)\n",
    ),
    (
        "lib.moveaxis(t, 0, [1])",
        "TypeError: moveaxis() received an invalid combination of arguments - got (Tensor, int, list), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, int, !list of [int]!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !int!, !list of [int]!)\n",
    ),
    (
        "t.moveaxis((0,), 1)",
        "TypeError: moveaxis() received an invalid combination of arguments - got (tuple, int), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!tuple of (int,)!, int)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!tuple of (int,)!, !int!)\n",
    ),
    (
        "t.moveaxis(0, [1])",
        "TypeError: moveaxis() received an invalid combination of arguments - got (int, list), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (int, !list of [int]!)\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!int!, !list of [int]!)\n",
    ),
    (
        "lib.moveaxis(t, source=0, destination='a')",
        "TypeError: moveaxis() received an invalid combination of arguments - got (Tensor, destination=str, source=int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (Tensor, source=int, !destination=str!)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (Tensor, !source=int!, !destination=str!)\n",
    ),
    (
        "t.movedim(source=(0,), destination=1)",
        "TypeError: movedim() received an invalid combination of arguments - got (destination=int, source=tuple, ), but expected one of:\n * (int source, int destination)\n      didn't match because some of the arguments have invalid types: (!source=tuple of (int,)!, destination=int, )\n * (tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!source=tuple of (int,)!, !destination=int!, )\n",
    ),
    (
        "lib.movedim('a', 0, 1)",
        "TypeError: movedim() received an invalid combination of arguments - got (str, int, int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (!str!, int, int)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!str!, !int!, !int!)\n",
    ),
    (
        "lib.moveaxis('a', 0, 1)",
        "TypeError: moveaxis() received an invalid combination of arguments - got (str, int, int), but expected one of:\n * (Tensor input, int source, int destination)\n      didn't match because some of the arguments have invalid types: (!str!, int, int)\n * (Tensor input, tuple of ints source, tuple of ints destination)\n      didn't match because some of the arguments have invalid types: (!str!, !int!, !int!)\n",
    ),
    (
        "lib.linalg.cholesky('a')",
        "TypeError: linalg_cholesky(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.cholesky_ex('a')",
        "TypeError: linalg_cholesky_ex(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.eigh('a')",
        "TypeError: linalg_eigh(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.eigvalsh('a')",
        "TypeError: linalg_eigvalsh(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.inv('a')",
        "TypeError: linalg_inv(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.inv_ex('a')",
        "TypeError: linalg_inv_ex(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.det('a')",
        "TypeError: linalg_det(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.slogdet('a')",
        "TypeError: linalg_slogdet(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.matrix_exp('a')",
        "TypeError: linalg_matrix_exp(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.matrix_power('a', 2)",
        "TypeError: linalg_matrix_power(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.svd('a')",
        "TypeError: linalg_svd(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.svdvals('a')",
        "TypeError: linalg_svdvals(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.qr('a')",
        "TypeError: linalg_qr(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu('a')",
        "TypeError: linalg_lu(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_factor('a')",
        "TypeError: linalg_lu_factor(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_factor_ex('a')",
        "TypeError: linalg_lu_factor_ex(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.matrix_norm('a')",
        "TypeError: linalg_matrix_norm(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.norm('a')",
        "TypeError: linalg_norm(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.vector_norm('a')",
        "TypeError: linalg_vector_norm(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.cond('a')",
        "TypeError: linalg_cond(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.solve('a', sq)",
        "TypeError: linalg_solve(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.solve_ex('a', sq)",
        "TypeError: linalg_solve_ex(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.lstsq('a', sq)",
        "TypeError: linalg_lstsq(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.multi_dot('a')",
        "TypeError: linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not str",
    ),
    (
        "lib.linalg.cross('a', sq)",
        "TypeError: linalg_cross(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.vander('a')",
        "TypeError: linalg_vander(): argument 'x' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.diagonal('a')",
        "TypeError: linalg_diagonal(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.vecdot('a', sq)",
        "TypeError: linalg_vecdot(): argument 'x' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.solve_triangular('a', sq, upper=True)",
        "TypeError: linalg_solve_triangular(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_solve('a', i1, sq)",
        "TypeError: linalg_lu_solve(): argument 'LU' (position 1) must be Tensor, not str",
    ),
    (
        "lib.logdet('a')",
        "TypeError: logdet(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.logdet(input='a')",
        "TypeError: logdet(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.slogdet('a')",
        "TypeError: slogdet(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.slogdet(input='a')",
        "TypeError: slogdet(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.pinverse('a')",
        "TypeError: pinverse(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.pinverse(input='a')",
        "TypeError: pinverse(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.matrix_exp('a')",
        "TypeError: matrix_exp(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.matrix_exp(input='a')",
        "TypeError: matrix_exp(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.det('a')",
        "TypeError: det(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.det(input='a')",
        "TypeError: det(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.inverse('a')",
        "TypeError: inverse(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.inverse(input='a')",
        "TypeError: inverse(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.cholesky('a')",
        "TypeError: cholesky(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.cholesky(input='a')",
        "TypeError: cholesky(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.cholesky_inverse('a')",
        "TypeError: cholesky_inverse(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.cholesky_inverse(input='a')",
        "TypeError: cholesky_inverse(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.svd('a')",
        "TypeError: svd(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.svd(input='a')",
        "TypeError: svd(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.qr('a')",
        "TypeError: qr(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.qr(input='a')",
        "TypeError: qr(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.trace('a')",
        "TypeError: trace(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.trace(input='a')",
        "TypeError: trace(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.matrix_power('a', 2)",
        "TypeError: matrix_power(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.matrix_power(input='a', n=2)",
        "TypeError: matrix_power(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.matrix_power(sq, 'a')",
        "TypeError: matrix_power(): argument 'n' (position 2) must be int, not str",
    ),
    (
        "lib.matrix_power(sq, n='a')",
        "TypeError: matrix_power(): argument 'n' must be int, not str",
    ),
    (
        "sq.matrix_power('a')",
        "TypeError: matrix_power(): argument 'n' (position 1) must be int, not str",
    ),
    (
        "lib.linalg.matrix_power(sq, 'a')",
        "TypeError: linalg_matrix_power(): argument 'n' (position 2) must be int, not str",
    ),
    (
        "lib.linalg.eigh(input='a')",
        "TypeError: linalg_eigh(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.linalg.cholesky(input='a')",
        "TypeError: linalg_cholesky(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.linalg.inv(A='a')",
        "TypeError: linalg_inv(): argument 'A' must be Tensor, not str",
    ),
    (
        "lib.linalg.det(A='a')",
        "TypeError: linalg_det(): argument 'A' must be Tensor, not str",
    ),
    (
        "lib.lu_solve('a', sq, lib.tensor([1, 2, 3], dtype=lib.int32))",
        "TypeError: lu_solve(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.lu_solve(sq, 'a', lib.tensor([1, 2, 3], dtype=lib.int32))",
        "TypeError: lu_solve(): argument 'LU_data' (position 2) must be Tensor, not str",
    ),
    (
        "lib.lu_solve(sq, LU_data='a', LU_pivots=lib.tensor([1, 2, 3], dtype=lib.int32))",
        "TypeError: lu_solve(): argument 'LU_data' must be Tensor, not str",
    ),
    (
        "lib.lu_solve(sq, sq, 'a')",
        "TypeError: lu_solve(): argument 'LU_pivots' (position 3) must be Tensor, not str",
    ),
    (
        "lib.lu_solve(sq, sq, LU_pivots='a')",
        "TypeError: lu_solve(): argument 'LU_pivots' must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_solve(sq, 'a', sq)",
        "TypeError: linalg_lu_solve(): argument 'pivots' (position 2) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_solve(sq, lib.tensor([1, 2, 3], dtype=lib.int32), 'a')",
        "TypeError: linalg_lu_solve(): argument 'B' (position 3) must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_solve(sq, lib.tensor([1, 2, 3], dtype=lib.int32), B='a')",
        "TypeError: linalg_lu_solve(): argument 'B' must be Tensor, not str",
    ),
    (
        "lib.linalg.lu_solve(LU='a', pivots=i1, B=sq)",
        "TypeError: linalg_lu_solve(): argument 'LU' must be Tensor, not str",
    ),
    (
        "lib.chain_matmul('a')",
        "TypeError: expected Tensor as element 0 in argument 0, but got str",
    ),
    (
        "lib.chain_matmul(sq, 'a')",
        "TypeError: expected Tensor as element 1 in argument 0, but got str",
    ),
    (
        "lib.chain_matmul(sq, sq, 'a')",
        "TypeError: expected Tensor as element 2 in argument 0, but got str",
    ),
    (
        "lib.linalg.multi_dot([sq, 'a'])",
        "TypeError: expected Tensor as element 1 in argument 0, but got str",
    ),
    (
        "lib.triangular_solve('a', sq)",
        "TypeError: triangular_solve(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.triangular_solve(sq, 'a')",
        "TypeError: triangular_solve(): argument 'A' (position 2) must be Tensor, not str",
    ),
    (
        "lib.triangular_solve(sq, A='a')",
        "TypeError: triangular_solve(): argument 'A' must be Tensor, not str",
    ),
    (
        "lib.triangular_solve(sq, sq, upper='a')",
        "TypeError: triangular_solve(): argument 'upper' must be bool, not str",
    ),
    (
        "lib.linalg.solve_triangular(sq, 'a', upper=True)",
        "TypeError: linalg_solve_triangular(): argument 'B' (position 2) must be Tensor, not str",
    ),
    (
        "lib.linalg.solve_triangular(sq, sq, upper='a')",
        "TypeError: linalg_solve_triangular(): argument 'upper' must be bool, not str",
    ),
    (
        "lib.linalg.inv_ex(A='a')",
        "TypeError: linalg_inv_ex(): argument 'A' must be Tensor, not str",
    ),
    (
        "lib.linalg.cholesky_ex(input='a')",
        "TypeError: linalg_cholesky_ex(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.linalg.eigh(sq, UPLO=1)",
        "TypeError: linalg_eigh(): argument 'UPLO' must be str, not int",
    ),
    (
        "lib.linalg.eigh(sq, 1)",
        "TypeError: linalg_eigh(): argument 'UPLO' (position 2) must be str, not int",
    ),
    (
        "lib.linalg.vector_norm(x='a')",
        "TypeError: linalg_vector_norm(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.linalg.vector_norm(input='a')",
        "TypeError: linalg_vector_norm(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.sum(t, 1, keepdims='a')",
        "TypeError: sum(): argument 'keepdim' must be bool, not str",
    ),
    (
        "lib.argmax(t, axis='a')",
        "TypeError: argmax(): argument 'dim' must be int, not str",
    ),
    (
        "lib.cumsum(t, axis='a')",
        "TypeError: cumsum(): argument 'dim' must be int, not str",
    ),
    (
        "lib.softmax(t, axis='a')",
        "TypeError: softmax(): argument 'dim' must be int, not str",
    ),
    (
        "lib.unsqueeze(t, axis='a')",
        "TypeError: unsqueeze(): argument 'dim' must be int, not str",
    ),
    (
        "lib.flatten(t, start_dim='a')",
        "TypeError: flatten(): argument 'start_dim' must be int, not str",
    ),
    (
        "lib.transpose(t, 0, 'a')",
        "TypeError: transpose(): argument 'dim1' (position 3) must be int, not str",
    ),
    (
        "lib.linalg.norm(t, 'a')",
        "RuntimeError: linalg.matrix_norm: Order a not supported.",
    ),
    (
        "lib.linalg.norm(t, ord='a')",
        "RuntimeError: linalg.matrix_norm: Order a not supported.",
    ),
    (
        "F_.scaled_dot_product_attention(query='a', key=t3, value=t3)",
        "TypeError: scaled_dot_product_attention(): argument 'query' must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, key='a', value=t3)",
        "TypeError: scaled_dot_product_attention(): argument 'key' must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, value='a')",
        "TypeError: scaled_dot_product_attention(): argument 'value' must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention('a', t3, t3)",
        "TypeError: scaled_dot_product_attention(): argument 'query' (position 1) must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, 'a')",
        "TypeError: scaled_dot_product_attention(): argument 'attn_mask' (position 4) must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, attn_mask='a')",
        "TypeError: scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, None, 'a')",
        "TypeError: scaled_dot_product_attention(): argument 'dropout_p' (position 5) must be float, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, dropout_p='a')",
        "TypeError: scaled_dot_product_attention(): argument 'dropout_p' must be float, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, None, 0.0, 'a')",
        "TypeError: scaled_dot_product_attention(): argument 'is_causal' (position 6) must be bool, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, is_causal='a')",
        "TypeError: scaled_dot_product_attention(): argument 'is_causal' must be bool, not str",
    ),
    (
        "F_.scaled_dot_product_attention(t3, t3, t3, scale='a')",
        "TypeError: scaled_dot_product_attention(): argument 'scale' must be float, not str",
    ),
    (
        "F_.affine_grid(lib.zeros(2, 2, 3), (2, 3, 4, 4), 'a')",
        "TypeError: affine_grid_generator(): argument 'align_corners' (position 3) must be bool, not str",
    ),
    (
        "F_.affine_grid(lib.zeros(2, 2, 3), (2, 3, 4, 4), align_corners='a')",
        "TypeError: affine_grid_generator(): argument 'align_corners' (position 3) must be bool, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, 'a')",
        "TypeError: cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, ignore_index='a')",
        "TypeError: cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, ignore_index=1.0)",
        "TypeError: cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not float",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, -100, None, 'mean', 'a')",
        "TypeError: cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, label_smoothing='a')",
        "TypeError: cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, label_smoothing=None)",
        "TypeError: cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, not NoneType",
    ),
    (
        "F_.nll_loss(t, tgt, None, None, 'a')",
        "TypeError: nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.nll_loss(t, tgt, ignore_index='a')",
        "TypeError: nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.smooth_l1_loss(t, t, None, None, 'mean', 'a')",
        "TypeError: smooth_l1_loss(): argument 'beta' (position 4) must be float, not str",
    ),
    (
        "F_.smooth_l1_loss(t, t, beta='a')",
        "TypeError: smooth_l1_loss(): argument 'beta' (position 4) must be float, not str",
    ),
    (
        "F_.glu(t, 'a')",
        "TypeError: glu(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "F_.glu(t, dim='a')",
        "TypeError: glu(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "F_.glu(t, 1.0)",
        "TypeError: glu(): argument 'dim' (position 2) must be int, not float",
    ),
    (
        "F_.normalize(t, 2.0, 1, 'a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor min)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number min)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "F_.normalize(t, 2.0, 1, eps='a')",
        "TypeError: clamp_min() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor min)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number min)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "F_.normalize(t, eps=None)",
        "TypeError: clamp_min() received an invalid combination of arguments - got (NoneType), but expected one of:\n * (Tensor min)\n      didn't match because some of the arguments have invalid types: (!NoneType!)\n * (Number min)\n      didn't match because some of the arguments have invalid types: (!NoneType!)\n",
    ),
    (
        "F_.cross_entropy('a', tgt)",
        "TypeError: cross_entropy_loss(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(input='a', target=tgt)",
        "TypeError: cross_entropy_loss(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(t, 'a')",
        "TypeError: cross_entropy_loss(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(t, target='a')",
        "TypeError: cross_entropy_loss(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, 'a')",
        "TypeError: cross_entropy_loss(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, weight='a')",
        "TypeError: cross_entropy_loss(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, ignore_index='a')",
        "TypeError: cross_entropy_loss(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, -100, None, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, -100, None, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.cross_entropy(t, tgt, None, None, -100, None, 'mean', label_smoothing='a')",
        "TypeError: cross_entropy_loss(): argument 'label_smoothing' (position 6) must be float, not str",
    ),
    (
        "F_.nll_loss('a', tgt)",
        "TypeError: nll_loss_nd(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(input='a', target=tgt)",
        "TypeError: nll_loss_nd(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(t, 'a')",
        "TypeError: nll_loss_nd(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(t, target='a')",
        "TypeError: nll_loss_nd(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(t, tgt, 'a')",
        "TypeError: nll_loss_nd(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(t, tgt, weight='a')",
        "TypeError: nll_loss_nd(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.nll_loss(t, tgt, None, None, ignore_index='a')",
        "TypeError: nll_loss_nd(): argument 'ignore_index' (position 5) must be int, not str",
    ),
    (
        "F_.mse_loss('a', t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.mse_loss(input='a', target=t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.mse_loss(t, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.mse_loss(t, target='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.mse_loss(t, t, None, None, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.mse_loss(t, t, None, None, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.l1_loss('a', t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.l1_loss(input='a', target=t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.l1_loss(t, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.l1_loss(t, target='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.l1_loss(t, t, None, None, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.l1_loss(t, t, None, None, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.smooth_l1_loss('a', t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.smooth_l1_loss(input='a', target=t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.smooth_l1_loss(t, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.smooth_l1_loss(t, target='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.smooth_l1_loss(t, t, None, None, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.smooth_l1_loss(t, t, None, None, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.smooth_l1_loss(t, t, None, None, 'mean', beta='a')",
        "TypeError: smooth_l1_loss(): argument 'beta' (position 4) must be float, not str",
    ),
    (
        "F_.binary_cross_entropy_with_logits('a', t*0.5)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy_with_logits(input='a', target=t*0.5)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy_with_logits(t, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy_with_logits(t, target='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.binary_cross_entropy_with_logits(t, t*0.5, 'a')",
        "TypeError: binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.binary_cross_entropy_with_logits(t, t*0.5, weight='a')",
        "TypeError: binary_cross_entropy_with_logits(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.kl_div('a', t)",
        "TypeError: kl_div(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.kl_div(input='a', target=t)",
        "TypeError: kl_div(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.kl_div(t, 'a')",
        "TypeError: kl_div(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.kl_div(t, target='a')",
        "TypeError: kl_div(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.kl_div(t, t, None, None, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.kl_div(t, t, None, None, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.max_pool2d('a', 2)",
        "TypeError: max_pool2d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.max_pool2d(input='a', kernel_size=2)",
        "TypeError: max_pool2d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.max_pool2d(img, 'a')",
        "TypeError: max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, kernel_size='a')",
        "TypeError: max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, 'a')",
        "TypeError: max_pool2d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, stride='a')",
        "TypeError: max_pool2d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, 'a')",
        "TypeError: max_pool2d(): argument 'padding' (position 4) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, padding='a')",
        "TypeError: max_pool2d(): argument 'padding' (position 4) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, 0, 'a')",
        "TypeError: max_pool2d(): argument 'dilation' (position 5) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, 0, dilation='a')",
        "TypeError: max_pool2d(): argument 'dilation' (position 5) must be tuple of ints, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, 0, 1, 'a')",
        "TypeError: max_pool2d(): argument 'ceil_mode' (position 6) must be bool, not str",
    ),
    (
        "F_.max_pool2d(img, 2, None, 0, 1, ceil_mode='a')",
        "TypeError: max_pool2d(): argument 'ceil_mode' (position 6) must be bool, not str",
    ),
    (
        "F_.avg_pool2d('a', 2)",
        "TypeError: avg_pool2d(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.avg_pool2d(input='a', kernel_size=2)",
        "TypeError: avg_pool2d(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.avg_pool2d(img, 'a')",
        "TypeError: avg_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, kernel_size='a')",
        "TypeError: avg_pool2d(): argument 'kernel_size' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, 'a')",
        "TypeError: avg_pool2d(): argument 'stride' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, stride='a')",
        "TypeError: avg_pool2d(): argument 'stride' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, 'a')",
        "TypeError: avg_pool2d(): argument 'padding' (position 4) must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, padding='a')",
        "TypeError: avg_pool2d(): argument 'padding' must be tuple of ints, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, 0, 'a')",
        "TypeError: avg_pool2d(): argument 'ceil_mode' (position 5) must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, 0, ceil_mode='a')",
        "TypeError: avg_pool2d(): argument 'ceil_mode' must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, 0, False, 'a')",
        "TypeError: avg_pool2d(): argument 'count_include_pad' (position 6) must be bool, not str",
    ),
    (
        "F_.avg_pool2d(img, 2, None, 0, False, count_include_pad='a')",
        "TypeError: avg_pool2d(): argument 'count_include_pad' must be bool, not str",
    ),
    (
        "F_.adaptive_avg_pool2d('a', 1)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.adaptive_avg_pool2d(input='a', output_size=1)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.adaptive_avg_pool2d(img, 'a')",
        "TypeError: adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.adaptive_avg_pool2d(img, output_size='a')",
        "TypeError: adaptive_avg_pool2d(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.interpolate('a', None)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.interpolate(input='a', size=None)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.interpolate(img, 'a')",
        "TypeError: upsample_nearest2d() received an invalid combination of arguments - got (Tensor, list, NoneType), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !list of [str, str]!, !NoneType!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F_.interpolate(img, size='a')",
        "TypeError: upsample_nearest2d() received an invalid combination of arguments - got (Tensor, list, NoneType), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !list of [str, str]!, !NoneType!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F_.interpolate(img, None, 'a')",
        "TypeError: upsample_nearest2d() received an invalid combination of arguments - got (Tensor, NoneType, list), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!, !list of [str, str]!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F_.interpolate(img, None, scale_factor='a')",
        "TypeError: upsample_nearest2d() received an invalid combination of arguments - got (Tensor, NoneType, list), but expected one of:\n * (Tensor input, tuple of ints output_size, tuple of floats scale_factors)\n      didn't match because some of the arguments have invalid types: (Tensor, !NoneType!, !list of [str, str]!)\n * (Tensor input, tuple of ints output_size, float scales_h = None, float scales_w = None, *, Tensor out = None)\n",
    ),
    (
        "F_.interpolate(img, None, 2.0, 1)",
        "NotImplementedError: Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got 1)",
    ),
    (
        "F_.interpolate(img, None, 2.0, mode=1)",
        "NotImplementedError: Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got 1)",
    ),
    (
        "F_.pad('a', (1, 1))",
        "TypeError: pad(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.pad(input='a', pad=(1, 1))",
        "TypeError: pad(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.pad(t, 'a')",
        "TypeError: pad(): argument 'pad' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.pad(t, pad='a')",
        "TypeError: pad(): argument 'pad' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.pad(t, (1, 1), 1)",
        "TypeError: pad(): argument 'mode' (position 3) must be str, not int",
    ),
    (
        "F_.pad(t, (1, 1), mode=1)",
        "TypeError: pad(): argument 'mode' (position 3) must be str, not int",
    ),
    (
        "F_.pad(t, (1, 1), 'constant', 'a')",
        "TypeError: pad(): argument 'value' (position 4) must be float, not str",
    ),
    (
        "F_.pad(t, (1, 1), 'constant', value='a')",
        "TypeError: pad(): argument 'value' (position 4) must be float, not str",
    ),
    (
        "F_.softmax('a', 1)",
        "AttributeError: 'str' object has no attribute 'softmax'",
    ),
    (
        "F_.softmax(input='a', dim=1)",
        "AttributeError: 'str' object has no attribute 'softmax'",
    ),
    (
        "F_.softmax(t, 'a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.softmax(t, dim='a')",
        "TypeError: softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.log_softmax('a', 1)",
        "AttributeError: 'str' object has no attribute 'log_softmax'",
    ),
    (
        "F_.log_softmax(input='a', dim=1)",
        "AttributeError: 'str' object has no attribute 'log_softmax'",
    ),
    (
        "F_.log_softmax(t, 'a')",
        "TypeError: log_softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.log_softmax(t, dim='a')",
        "TypeError: log_softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "F_.dropout('a')",
        "TypeError: dropout(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.dropout(input='a')",
        "TypeError: dropout(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.dropout(t, 'a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.dropout(t, p='a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.dropout(t, 0.5, 'a')",
        "TypeError: dropout(): argument 'train' (position 3) must be bool, not str",
    ),
    (
        "F_.dropout(t, 0.5, training='a')",
        "TypeError: dropout(): argument 'train' (position 3) must be bool, not str",
    ),
    (
        "F_.dropout2d('a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.dropout2d(input='a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.dropout2d(img, 'a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.dropout2d(img, p='a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.dropout2d(img, 0.5, 'a')",
        "TypeError: feature_dropout(): argument 'train' (position 3) must be bool, not str",
    ),
    (
        "F_.dropout2d(img, 0.5, training='a')",
        "TypeError: feature_dropout(): argument 'train' (position 3) must be bool, not str",
    ),
    (
        "F_.layer_norm('a', (4,))",
        "TypeError: layer_norm(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(input='a', normalized_shape=(4,))",
        "TypeError: layer_norm(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(t, 'a')",
        "TypeError: layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.layer_norm(t, normalized_shape='a')",
        "TypeError: layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not str",
    ),
    (
        "F_.layer_norm(t, (4,), 'a')",
        "TypeError: layer_norm(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(t, (4,), weight='a')",
        "TypeError: layer_norm(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(t, (4,), None, 'a')",
        "TypeError: layer_norm(): argument 'bias' (position 4) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(t, (4,), None, bias='a')",
        "TypeError: layer_norm(): argument 'bias' (position 4) must be Tensor, not str",
    ),
    (
        "F_.layer_norm(t, (4,), None, None, 'a')",
        "TypeError: layer_norm(): argument 'eps' (position 5) must be float, not str",
    ),
    (
        "F_.layer_norm(t, (4,), None, None, eps='a')",
        "TypeError: layer_norm(): argument 'eps' (position 5) must be float, not str",
    ),
    (
        "F_.batch_norm('a', lib.zeros(4))",
        "TypeError: batch_norm() missing 1 required positional argument: 'running_var'",
    ),
    (
        "F_.batch_norm(input='a', running_mean=lib.zeros(4))",
        "TypeError: batch_norm() missing 1 required positional argument: 'running_var'",
    ),
    (
        "F_.batch_norm(t, 'a')",
        "TypeError: batch_norm() missing 1 required positional argument: 'running_var'",
    ),
    (
        "F_.batch_norm(t, running_mean='a')",
        "TypeError: batch_norm() missing 1 required positional argument: 'running_var'",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), 'a')",
        "TypeError: batch_norm(): argument 'running_var' (position 5) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), running_var='a')",
        "TypeError: batch_norm(): argument 'running_var' (position 5) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), 'a')",
        "TypeError: batch_norm(): argument 'weight' (position 2) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), weight='a')",
        "TypeError: batch_norm(): argument 'weight' (position 2) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, 'a')",
        "TypeError: batch_norm(): argument 'bias' (position 3) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, bias='a')",
        "TypeError: batch_norm(): argument 'bias' (position 3) must be Tensor, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, 'a')",
        "TypeError: batch_norm(): argument 'training' (position 6) must be bool, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, training='a')",
        "TypeError: batch_norm(): argument 'training' (position 6) must be bool, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, False, 'a')",
        "TypeError: batch_norm(): argument 'momentum' (position 7) must be float, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, False, momentum='a')",
        "TypeError: batch_norm(): argument 'momentum' (position 7) must be float, not str",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, False, 0.1, 'a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.batch_norm(t, lib.zeros(4), lib.ones(4), None, None, False, 0.1, eps='a')",
        "TypeError: '<' not supported between instances of 'str' and 'float'",
    ),
    (
        "F_.group_norm('a', 3)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.group_norm(input='a', num_groups=3)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.group_norm(img, 'a')",
        "TypeError: unsupported operand type(s) for //: 'int' and 'str'",
    ),
    (
        "F_.group_norm(img, num_groups='a')",
        "TypeError: unsupported operand type(s) for //: 'int' and 'str'",
    ),
    (
        "F_.group_norm(img, 3, 'a')",
        "TypeError: group_norm(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.group_norm(img, 3, weight='a')",
        "TypeError: group_norm(): argument 'weight' (position 3) must be Tensor, not str",
    ),
    (
        "F_.group_norm(img, 3, None, 'a')",
        "TypeError: group_norm(): argument 'bias' (position 4) must be Tensor, not str",
    ),
    (
        "F_.group_norm(img, 3, None, bias='a')",
        "TypeError: group_norm(): argument 'bias' (position 4) must be Tensor, not str",
    ),
    (
        "F_.group_norm(img, 3, None, None, 'a')",
        "TypeError: group_norm(): argument 'eps' (position 5) must be float, not str",
    ),
    (
        "F_.group_norm(img, 3, None, None, eps='a')",
        "TypeError: group_norm(): argument 'eps' (position 5) must be float, not str",
    ),
    (
        "F_.instance_norm('a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.instance_norm(input='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.one_hot('a')",
        "TypeError: one_hot(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.one_hot(tgt, 'a')",
        "TypeError: one_hot(): argument 'num_classes' (position 2) must be int, not str",
    ),
    (
        "F_.one_hot(tgt, num_classes='a')",
        "TypeError: one_hot(): argument 'num_classes' must be int, not str",
    ),
    (
        "F_.normalize('a')",
        "AttributeError: 'str' object has no attribute 'norm'",
    ),
    (
        "F_.normalize(input='a')",
        "AttributeError: 'str' object has no attribute 'norm'",
    ),
    (
        "F_.normalize(t, 'a')",
        "RuntimeError: linalg.matrix_norm: Order a not supported.",
    ),
    (
        "F_.normalize(t, p='a')",
        "RuntimeError: linalg.matrix_norm: Order a not supported.",
    ),
    (
        "F_.normalize(t, 2.0, 'a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.normalize(t, 2.0, dim='a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "F_.relu('a')",
        "TypeError: relu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.relu(input='a')",
        "TypeError: relu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.gelu('a')",
        "TypeError: gelu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.gelu(input='a')",
        "TypeError: gelu(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.gelu(t, approximate=1)",
        "TypeError: gelu(): argument 'approximate' must be str, not int",
    ),
    (
        "F_.silu('a')",
        "TypeError: silu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.silu(input='a')",
        "TypeError: silu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.leaky_relu('a')",
        "TypeError: leaky_relu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.leaky_relu(input='a')",
        "TypeError: leaky_relu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.leaky_relu(t, 'a')",
        "TypeError: leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
    ),
    (
        "F_.leaky_relu(t, negative_slope='a')",
        "TypeError: leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
    ),
    (
        "F_.elu('a')",
        "TypeError: elu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.elu(input='a')",
        "TypeError: elu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.elu(t, 'a')",
        "TypeError: elu(): argument 'alpha' (position 2) must be Number, not str",
    ),
    (
        "F_.elu(t, alpha='a')",
        "TypeError: elu(): argument 'alpha' (position 2) must be Number, not str",
    ),
    (
        "F_.glu('a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.glu(input='a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.embedding('a', t)",
        "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str",
    ),
    (
        "F_.embedding(input='a', weight=t)",
        "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str",
    ),
    (
        "F_.embedding(tgt, 'a')",
        "TypeError: embedding(): argument 'weight' (position 1) must be Tensor, not str",
    ),
    (
        "F_.embedding(tgt, weight='a')",
        "TypeError: embedding(): argument 'weight' (position 1) must be Tensor, not str",
    ),
    (
        "F_.embedding(tgt, t, 'a')",
        "TypeError: '>' not supported between instances of 'str' and 'int'",
    ),
    (
        "F_.embedding(tgt, t, padding_idx='a')",
        "TypeError: '>' not supported between instances of 'str' and 'int'",
    ),
    (
        "F_.linear('a', t)",
        "TypeError: linear(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.linear(input='a', weight=t)",
        "TypeError: linear(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.linear(t, 'a')",
        "TypeError: linear(): argument 'weight' (position 2) must be Tensor, not str",
    ),
    (
        "F_.linear(t, weight='a')",
        "TypeError: linear(): argument 'weight' must be Tensor, not str",
    ),
    (
        "F_.linear(t, t, 'a')",
        "TypeError: linear(): argument 'bias' (position 3) must be Tensor, not str",
    ),
    (
        "F_.linear(t, t, bias='a')",
        "TypeError: linear(): argument 'bias' must be Tensor, not str",
    ),
    (
        "F_.cosine_similarity('a', t)",
        "TypeError: cosine_similarity(): argument 'x1' (position 1) must be Tensor, not str",
    ),
    (
        "F_.cosine_similarity(x1='a', x2=t)",
        "TypeError: cosine_similarity(): argument 'x1' must be Tensor, not str",
    ),
    (
        "F_.cosine_similarity(t, 'a')",
        "TypeError: cosine_similarity(): argument 'x2' (position 2) must be Tensor, not str",
    ),
    (
        "F_.cosine_similarity(t, x2='a')",
        "TypeError: cosine_similarity(): argument 'x2' must be Tensor, not str",
    ),
    (
        "F_.cosine_similarity(t, t, 'a')",
        "TypeError: cosine_similarity(): argument 'dim' (position 3) must be int, not str",
    ),
    (
        "F_.cosine_similarity(t, t, dim='a')",
        "TypeError: cosine_similarity(): argument 'dim' must be int, not str",
    ),
    (
        "F_.cosine_similarity(t, t, 1, 'a')",
        "TypeError: cosine_similarity(): argument 'eps' (position 4) must be float, not str",
    ),
    (
        "F_.cosine_similarity(t, t, 1, eps='a')",
        "TypeError: cosine_similarity(): argument 'eps' must be float, not str",
    ),
    (
        "F_.triplet_margin_loss('a', t, t)",
        "TypeError: triplet_margin_loss(): argument 'anchor' (position 1) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(anchor='a', positive=t, negative=t)",
        "TypeError: triplet_margin_loss(): argument 'anchor' (position 1) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(t, 'a', t)",
        "TypeError: triplet_margin_loss(): argument 'positive' (position 2) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(t, positive='a', negative=t)",
        "TypeError: triplet_margin_loss(): argument 'positive' (position 2) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(t, t, 'a')",
        "TypeError: triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(t, t, negative='a')",
        "TypeError: triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not str",
    ),
    (
        "F_.triplet_margin_loss(t, t, t, 'a')",
        "TypeError: '<=' not supported between instances of 'str' and 'int'",
    ),
    (
        "F_.triplet_margin_loss(t, t, t, margin='a')",
        "TypeError: '<=' not supported between instances of 'str' and 'int'",
    ),
    (
        "F_.margin_ranking_loss('a', t, t)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(input1='a', input2=t, target=t)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(t, 'a', t)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(t, input2='a', target=t)",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(t, t, 'a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(t, t, target='a')",
        "AttributeError: 'str' object has no attribute 'dim'",
    ),
    (
        "F_.margin_ranking_loss(t, t, t, 'a')",
        "TypeError: margin_ranking_loss(): argument 'margin' (position 4) must be float, not str",
    ),
    (
        "F_.margin_ranking_loss(t, t, t, margin='a')",
        "TypeError: margin_ranking_loss(): argument 'margin' (position 4) must be float, not str",
    ),
    (
        "F_.hinge_embedding_loss('a', t)",
        "TypeError: hinge_embedding_loss(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.hinge_embedding_loss(input='a', target=t)",
        "TypeError: hinge_embedding_loss(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.hinge_embedding_loss(t, 'a')",
        "TypeError: hinge_embedding_loss(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.hinge_embedding_loss(t, target='a')",
        "TypeError: hinge_embedding_loss(): argument 'target' (position 2) must be Tensor, not str",
    ),
    (
        "F_.hinge_embedding_loss(t, t, 'a')",
        "TypeError: hinge_embedding_loss(): argument 'margin' (position 3) must be float, not str",
    ),
    (
        "F_.hinge_embedding_loss(t, t, margin='a')",
        "TypeError: hinge_embedding_loss(): argument 'margin' (position 3) must be float, not str",
    ),
    (
        "F_.huber_loss('a', t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.huber_loss(input='a', target=t)",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.huber_loss(t, 'a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.huber_loss(t, target='a')",
        "AttributeError: 'str' object has no attribute 'size'",
    ),
    (
        "F_.huber_loss(t, t, 1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.huber_loss(t, t, reduction=1)",
        "ValueError: 1 is not a valid value for reduction",
    ),
    (
        "F_.huber_loss(t, t, 'mean', 'a')",
        "TypeError: huber_loss(): argument 'delta' (position 4) must be float, not str",
    ),
    (
        "F_.huber_loss(t, t, 'mean', delta='a')",
        "TypeError: huber_loss(): argument 'delta' (position 4) must be float, not str",
    ),
    (
        "F_.softplus('a')",
        "TypeError: softplus(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.softplus(input='a')",
        "TypeError: softplus(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.softplus(t, 'a')",
        "TypeError: softplus(): argument 'beta' (position 2) must be Number, not str",
    ),
    (
        "F_.softplus(t, beta='a')",
        "TypeError: softplus(): argument 'beta' must be Number, not str",
    ),
    (
        "F_.softplus(t, 1.0, 'a')",
        "TypeError: softplus(): argument 'threshold' (position 3) must be Number, not str",
    ),
    (
        "F_.softplus(t, 1.0, threshold='a')",
        "TypeError: softplus(): argument 'threshold' must be Number, not str",
    ),
    (
        "F_.unfold('a', 2)",
        "TypeError: im2col(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.unfold(input='a', kernel_size=2)",
        "TypeError: im2col(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.unfold(img, 'a')",
        "TypeError: im2col(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.unfold(img, kernel_size='a')",
        "TypeError: im2col(): argument 'kernel_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.fold('a', (4, 4), 2)",
        "TypeError: col2im(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.fold(input='a', output_size=(4, 4), kernel_size=2)",
        "TypeError: col2im(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.fold(lib.ones(1, 12, 9), 'a', 2)",
        "TypeError: col2im(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.fold(lib.ones(1, 12, 9), output_size='a', kernel_size=2)",
        "TypeError: col2im(): argument 'output_size' (position 2) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.fold(lib.ones(1, 12, 9), (4, 4), 'a')",
        "TypeError: col2im(): argument 'kernel_size' (position 3) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.fold(lib.ones(1, 12, 9), (4, 4), kernel_size='a')",
        "TypeError: col2im(): argument 'kernel_size' (position 3) must be tuple of ints, but found element of type str at pos 0",
    ),
    (
        "F_.grid_sample('a', lib.zeros(2, 4, 4, 2))",
        "TypeError: grid_sampler(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.grid_sample(input='a', grid=lib.zeros(2, 4, 4, 2))",
        "TypeError: grid_sampler(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.grid_sample(img, 'a')",
        "TypeError: grid_sampler(): argument 'grid' (position 2) must be Tensor, not str",
    ),
    (
        "F_.grid_sample(img, grid='a')",
        "TypeError: grid_sampler(): argument 'grid' (position 2) must be Tensor, not str",
    ),
    (
        "F_.pixel_shuffle('a', 2)",
        "TypeError: pixel_shuffle(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.pixel_shuffle(input='a', upscale_factor=2)",
        "TypeError: pixel_shuffle(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.pixel_shuffle(lib.ones(1, 4, 2, 2), 'a')",
        "TypeError: pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not str",
    ),
    (
        "F_.pixel_shuffle(lib.ones(1, 4, 2, 2), upscale_factor='a')",
        "TypeError: pixel_shuffle(): argument 'upscale_factor' must be int, not str",
    ),
    (
        "F_.softsign('a')",
        "AttributeError: 'str' object has no attribute 'abs'",
    ),
    (
        "F_.softsign(input='a')",
        "AttributeError: 'str' object has no attribute 'abs'",
    ),
    (
        "F_.mish('a')",
        "TypeError: mish(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.mish(input='a')",
        "TypeError: mish(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.prelu('a', lib.ones(1))",
        "TypeError: prelu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.prelu(input='a', weight=lib.ones(1))",
        "TypeError: prelu(): argument 'input' must be Tensor, not str",
    ),
    (
        "F_.prelu(t, 'a')",
        "TypeError: prelu(): argument 'weight' (position 2) must be Tensor, not str",
    ),
    (
        "F_.prelu(t, weight='a')",
        "TypeError: prelu(): argument 'weight' must be Tensor, not str",
    ),
    (
        "F_.rrelu('a')",
        "TypeError: rrelu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.rrelu(input='a')",
        "TypeError: rrelu(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "F_.rrelu(t, 'a')",
        "TypeError: rrelu(): argument 'lower' (position 2) must be Number, not str",
    ),
    (
        "F_.rrelu(t, lower='a')",
        "TypeError: rrelu(): argument 'lower' (position 2) must be Number, not str",
    ),
    (
        "F_.rrelu(t, 0.125, 'a')",
        "TypeError: rrelu(): argument 'upper' (position 3) must be Number, not str",
    ),
    (
        "F_.rrelu(t, 0.125, upper='a')",
        "TypeError: rrelu(): argument 'upper' (position 3) must be Number, not str",
    ),
    (
        "F_.conv2d('a', w4)",
        'TypeError: conv2d() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(input='a', weight=w4)",
        'TypeError: conv2d() received an invalid combination of arguments - got (weight=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, 'a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, weight='a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, weight=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, 'a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, bias='a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, bias=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, None, 'a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, None, stride='a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, stride=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, None, 1, 'a')",
        "RuntimeError: Invalid padding string: 'a'",
    ),
    (
        "F_.conv2d(img, w4, None, 1, padding='a')",
        "RuntimeError: Invalid padding string: 'a'",
    ),
    (
        "F_.conv2d(img, w4, None, 1, 0, 'a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, None, 1, 0, dilation='a')",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, dilation=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, None, 1, 0, 1, 'a')",
        "TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, int, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !NoneType!, !int!, !int!, !int!, !str!)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !NoneType!, !int!, !int!, !int!, !str!)\n",
    ),
    (
        "F_.conv2d(img, w4, None, 1, 0, 1, groups='a')",
        "TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, int, groups=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the keywords were incorrect: groups\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the keywords were incorrect: groups\n",
    ),
    (
        "F_.conv1d('a', lib.ones(4, 3, 3))",
        'TypeError: conv1d() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(input='a', weight=lib.ones(4, 3, 3))",
        'TypeError: conv1d() received an invalid combination of arguments - got (weight=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, 'a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, weight='a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, weight=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), 'a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), bias='a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, bias=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 'a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, stride='a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, stride=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, 'a')",
        "RuntimeError: Invalid padding string: 'a'",
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, padding='a')",
        "RuntimeError: Invalid padding string: 'a'",
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, 0, 'a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, 0, dilation='a')",
        'TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, dilation=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, 0, 1, 'a')",
        "TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, int, str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !NoneType!, !int!, !int!, !int!, !str!)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !NoneType!, !int!, !int!, !int!, !str!)\n",
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), None, 1, 0, 1, groups='a')",
        "TypeError: conv1d() received an invalid combination of arguments - got (Tensor, Tensor, NoneType, int, int, int, groups=str), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the keywords were incorrect: groups\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", tuple of ints dilation = 1, int groups = 1)\n      didn't match because some of the keywords were incorrect: groups\n",
    ),
    (
        "F_.conv2d(img, w4, stride=1.5)",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, stride=float), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, padding=[1, 'a'])",
        "TypeError: conv2d(): argument 'padding' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "F_.conv2d(img, w4, padding=1.0)",
        'TypeError: conv2d() received an invalid combination of arguments - got (Tensor, Tensor, padding=float), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(np.ones((2, 3, 8, 8)), w4)",
        'TypeError: conv2d() received an invalid combination of arguments - got (numpy.ndarray, Tensor), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, padding='bad')",
        "RuntimeError: Invalid padding string: 'bad'",
    ),
    (
        "F_.conv3d(lib.ones(1, 3, 4, 4, 4), lib.ones(2, 3, 2, 2, 2), groups=1.0)",
        'TypeError: conv3d() received an invalid combination of arguments - got (Tensor, Tensor, groups=float), but expected one of:\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)\n * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = "valid", tuple of ints dilation = 1, int groups = 1)\n',
    ),
    (
        "F_.conv2d(img, w4, stride=(1, 1.5))",
        "TypeError: conv2d(): argument 'stride' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\"",
    ),
    (
        "F_.conv2d(img, w4, None, (1, 'a'))",
        "TypeError: conv2d(): argument 'stride' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got str\"",
    ),
    (
        "F_.conv1d(seq, lib.ones(4, 3, 3), dilation=[1, None])",
        "TypeError: conv1d(): argument 'dilation' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got NoneType\"",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), np.array([5, 5]), np.array([3, 3]))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, numpy.ndarray, numpy.ndarray, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !numpy.ndarray!, !numpy.ndarray!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !numpy.ndarray!, !numpy.ndarray!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), lib.tensor([5, 5]), [3, 3], reduction='sum')",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, list, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !Tensor!, !list of [int, int]!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, Tensor, !list of [int, int]!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), [5, 5], [3, 3], blank=0.0)",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, list, list, float, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !list of [int, int]!, !list of [int, int]!, !float!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !list of [int, int]!, !list of [int, int]!, !float!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), [5, 5], [3, 3], zero_infinity=1)",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, list, list, int, int, int), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !list of [int, int]!, !list of [int, int]!, !int!, !int!, !int!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !list of [int, int]!, !list of [int, int]!, !int!, !int!, !int!)\n",
    ),
    (
        "F_.ctc_loss('a', lib.ones(2, 3, dtype=lib.long), (5, 5), (3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (str, Tensor, tuple, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(log_probs='a', targets=lib.ones(2, 3, dtype=lib.long), input_lengths=(5, 5), target_lengths=(3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (str, Tensor, tuple, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), 'a', (5, 5), (3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, str, tuple, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), targets='a', input_lengths=(5, 5), target_lengths=(3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, str, tuple, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !tuple of (int, int)!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), 'a', (3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, str, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !str!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !str!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), input_lengths='a', target_lengths=(3, 3))",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, str, tuple, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !str!, !tuple of (int, int)!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !str!, !tuple of (int, int)!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), (5, 5), 'a')",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, tuple, str, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !tuple of (int, int)!, !str!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !tuple of (int, int)!, !str!, !int!, !int!, !bool!)\n",
    ),
    (
        "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), (5, 5), target_lengths='a')",
        "TypeError: ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, tuple, str, int, int, bool), but expected one of:\n * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !tuple of (int, int)!, !str!, !int!, !int!, !bool!)\n * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False)\n      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !tuple of (int, int)!, !str!, !int!, !int!, !bool!)\n",
    ),
]

CALLS = [
    "t.index_add(0, i1, lib.ones(2, 4), alpha=2).sum()",
    "t.addcmul_(t, t, value=lib.tensor(2.0)).sum()",
    "lib.addcmul(t, t, t, value=np.float64(0.5)).sum()",
    "lib.addcdiv(t, t, t, value=True).sum()",
    "(1 - t).sum()",
    "lib.rsub(t, 2).sum()",
    "lib.rsub(t, t, alpha=2).sum()",
    "t.copy_(1.5).sum()",
    "F_.softmax(t, dim=lib.tensor(1)).sum()",
    "F_.embedding(i, t, padding_idx=np.int64(1)).sum()",
    "F_.embedding(i, t, padding_idx=lib.tensor(1)).sum()",
    "lib.tensor_split(t, 2, dim=np.int64(1))[0].shape",
    "lib.tensor_split(t, lib.tensor(2))[0].shape",
    "lib.tensor_split(t, (1, 2))[0].shape",
    "t.tensor_split([1, 2], 1)[0].shape",
    "lib.arange(5).sum()",
    "lib.arange(end=5).sum()",
    "lib.arange(start=1, end=5).sum()",
    "lib.arange(1, 5, 2, dtype=lib.float64).sum()",
    "lib.arange(0, 4, step=lib.tensor(1)).sum()",
    "lib.movedim(t, [0, 1], [1, 0]).shape",
    "lib.movedim(t, np.int64(0), 1).shape",
    "lib.moveaxis(t, 0, 1).shape",
    "t.moveaxis(0, 1).shape",
    "F_.affine_grid(lib.zeros(2, 2, 3), (2, 3, 4, 4), align_corners=False).shape",
    "F_.cross_entropy(t, tgt, ignore_index=lib.tensor(1)).item()",
    "F_.cross_entropy(t, tgt, label_smoothing=1).item()",
    "F_.smooth_l1_loss(t, t, beta=2).item()",
    "F_.cross_entropy(t, tgt, None, 'a')",
    "F_.cross_entropy(t, tgt, None, size_average='a')",
    "F_.cross_entropy(t, tgt, None, None, -100, 'a')",
    "F_.cross_entropy(t, tgt, None, None, -100, reduce='a')",
    "F_.nll_loss(t, tgt, None, 'a')",
    "F_.nll_loss(t, tgt, None, size_average='a')",
    "F_.mse_loss(t, t, 'a')",
    "F_.mse_loss(t, t, size_average='a')",
    "F_.mse_loss(t, t, None, 'a')",
    "F_.mse_loss(t, t, None, reduce='a')",
    "F_.l1_loss(t, t, 'a')",
    "F_.l1_loss(t, t, size_average='a')",
    "F_.l1_loss(t, t, None, 'a')",
    "F_.l1_loss(t, t, None, reduce='a')",
    "F_.smooth_l1_loss(t, t, 'a')",
    "F_.smooth_l1_loss(t, t, size_average='a')",
    "F_.smooth_l1_loss(t, t, None, 'a')",
    "F_.smooth_l1_loss(t, t, None, reduce='a')",
    "F_.kl_div(t, t, 'a')",
    "F_.kl_div(t, t, size_average='a')",
    "F_.kl_div(t, t, None, 'a')",
    "F_.kl_div(t, t, None, reduce='a')",
    "F_.dropout(t, 0.5, True, 'a')",
    "F_.dropout(t, 0.5, True, inplace='a')",
    "F_.relu(t, 'a')",
    "F_.relu(t, inplace='a')",
    "F_.silu(t, 'a')",
    "F_.silu(t, inplace='a')",
    "F_.leaky_relu(t, 0.01, 'a')",
    "F_.leaky_relu(t, 0.01, inplace='a')",
    "F_.elu(t, 1.0, 'a')",
    "F_.elu(t, 1.0, inplace='a')",
    "F_.conv2d(img, w4, padding='same').shape",
    "F_.conv2d(img, w4, None, 1, 'same').shape",
    "F_.conv2d(img, w4, lib.zeros(5), 2, 1).shape",
    "F_.ctc_loss(lib.ones(5, 2, 4).log_softmax(2), lib.ones(2, 3, dtype=lib.long), (5, 5), (3, 3)).item()",
]


@pytest.mark.parametrize(("code", "message"), CASES)
def test_argument_error_as_torch_words_it(code, message):
    env = dict(ENV, t=torch.ones(3, 4))  # (some calls write into t)
    env["m"] = env["t"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:  # noqa: PT011 - the type is part of the message
            eval(code, env)  # noqa: S307 - compiled as written: its keywords are read from it
    assert f"{type(info.value).__name__}: {info.value}" == message


@pytest.mark.parametrize("code", CALLS)
def test_well_typed_calls_still_run(code):
    env = dict(ENV, t=torch.ones(3, 4))
    env["m"] = env["t"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eval(code, env)  # noqa: S307
