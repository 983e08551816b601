"""Session 34 (helper treenn): torch-free regression tests of the library fixes the tree and
recursive network programs of tests/reference/test_s34_treenn_reference.py found: the
grad_fn._saved_<name> attributes of index_select, index_add, scatter_add and gather nodes
(torch's saved dims, read back as unsigned when negative; the saved index, input and source
tensors, and torch's error once a backward freed them), and index_add saving its source for the
source's gradient, so a change in place of it before backward raises as in torch. torch's
values and messages are written here as literals."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch as mt

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed)"
)


def _states(requires_grad=True):
    g = mt.Generator().manual_seed(0)
    return mt.randn(6, 3, generator=g, dtype=mt.float64).requires_grad_(requires_grad)


def _saved_names(node):
    return [k for k in dir(node) if k.startswith("_saved_")]


def test_index_select_saved():
    x, idx = _states(), mt.tensor([0, 3])
    node = x.index_select(0, idx).grad_fn
    assert _saved_names(node) == ["_saved_dim", "_saved_index", "_saved_self_sym_sizes"]
    assert node._saved_dim == 0
    assert node._saved_index is idx
    assert node._saved_self_sym_sizes == (6, 3)
    assert x.index_select(-1, idx[:1]).grad_fn._saved_dim == 18446744073709551615


def test_gather_saved_and_freed():
    x, idx = _states(), mt.tensor([[0, 1, 2]])
    y = x.gather(-2, idx)
    node = y.grad_fn
    assert _saved_names(node) == ["_saved_dim", "_saved_index", "_saved_self", "_saved_sparse_grad"]
    assert node._saved_dim == 18446744073709551614
    assert node._saved_index is idx and node._saved_self is x
    assert node._saved_sparse_grad is False
    y.sum().backward()
    assert node._saved_dim == 18446744073709551614  # a number stays readable
    for name in ("_saved_index", "_saved_self"):
        with pytest.raises(RuntimeError, match="^" + re.escape(FREED)):
            getattr(node, name)


def test_cummax_of_0d_lists_no_gather_attrs():
    node = mt.tensor(2.0, requires_grad=True).cummax(0)[0].grad_fn
    assert type(node).__name__ == "CummaxBackward0"
    assert _saved_names(node) == []


def test_scatter_add_saved():
    x, idx = _states(), mt.tensor([[4, 5, 4]])
    node = mt.zeros(6, 3, dtype=mt.float64).scatter_add(-2, idx, x[:1]).grad_fn
    assert _saved_names(node) == ["_saved_dim", "_saved_index"]
    assert node._saved_dim == 18446744073709551614
    assert node._saved_index is idx


def test_index_add_saved():
    x, idx = _states(), mt.tensor([4, 5])
    src = x[:2] * 1.0
    node = mt.zeros(6, 3, dtype=mt.float64).index_add(0, idx, src, alpha=2).grad_fn
    assert _saved_names(node) == [
        "_saved_alpha", "_saved_dim", "_saved_index", "_saved_source", "_saved_source_dim",
    ]  # fmt: skip
    assert (node._saved_alpha, node._saved_dim, node._saved_source_dim) == (2, 0, 2)
    assert node._saved_index is idx and node._saved_source is src
    # a source wanting no gradient: torch saves neither it nor the index
    node = x.index_add(-2, idx, mt.ones(2, 3, dtype=mt.float64)).grad_fn
    assert (node._saved_index, node._saved_source) == (None, None)
    assert (node._saved_alpha, node._saved_dim) == (1, 18446744073709551614)


def test_index_add_source_modified_raises():
    x = _states()
    src = x[:2] * 1.5
    out = mt.zeros(6, 3, dtype=mt.float64).index_add(0, mt.tensor([4, 5]), src, alpha=0.5)
    src.mul_(2)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor [2, 3]], which is output 0 of Mul, is at "
        "version 1; expected version 0 instead."
    )


def test_index_add_constant_source_modified_is_fine():
    base = mt.zeros(6, 3, dtype=mt.float64, requires_grad=True)
    const = mt.ones(2, 3, dtype=mt.float64)
    out = base.index_add(0, mt.tensor([4, 5]), const)
    const.add_(1)
    (out * 3).sum().backward()
    np.testing.assert_array_equal(base.grad.numpy(), np.full((6, 3), 3.0), err_msg="grad")
