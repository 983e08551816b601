"""Session 31 (helper retrieval): torch-free checks of the library fix the retrieval programs in
tests/reference/test_s31_retrieval_reference.py found: topk's choice and order among tied values
is torch's CPU kernel's (libstdc++'s nth_element / partial_sort, replayed on the tied rows), not
input order. The literals are torch 2.13's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import torch_stream_multinomial as tsm


def _idx(x, *args, **kwargs):
    return mt.topk(x, *args, **kwargs).indices.tolist()


def test_topk_ties_small_rows_take_nth_elements_choice():
    x = mt.tensor([[1.0, 3, 3, 2, 3]])
    assert _idx(x, 1) == [[2]]  # not the first maximum
    assert _idx(x, 2) == [[2, 4]]
    assert _idx(x, 3, largest=False) == [[0, 3, 4]]
    assert _idx(x, 5) == [[2, 4, 1, 3, 0]]
    assert mt.topk(x, 2).values.tolist() == [[3.0, 3.0]]


def test_topk_ties_integer_codes_and_unsorted():
    y = mt.tensor([2, 0, 1, 2, 0, 2, 1, 0, 2, 1])
    assert _idx(y, 3) == [3, 5, 0]
    assert _idx(y, 4, largest=False) == [7, 4, 1, 9]
    assert _idx(y, 4, sorted=False) == [3, 5, 0, 8]  # nth_element's order, unsorted
    ham = mt.tensor([[3, 1, 2, 1, 1, 0, 2]], dtype=mt.uint8)  # hamming distances
    assert _idx(ham, 3, largest=False) == [[5, 1, 4]]


def test_topk_ties_nan_half_and_dim0():
    z = mt.tensor([1.0, float("nan"), 0, float("nan"), 1, 0])
    assert _idx(z, 3) == [1, 3, 0]  # NaN ranks above all, ties among the NaNs too
    assert _idx(z, 3, largest=False) == [5, 2, 0]
    h = (mt.arange(200) % 4).to(mt.float16)  # 64 k <= n: the partial_sort (heap) path
    assert _idx(h, 3) == [11, 3, 7]
    assert _idx(h, 2, largest=False) == [4, 0]
    c = mt.tensor([[0, 1], [1, 1], [1, 0], [0, 1], [1, 1]], dtype=mt.float32)
    assert _idx(c, 2, dim=0) == [[2, 1], [4, 4]]
    assert _idx(c.t(), 2, dim=1) == [[2, 4], [1, 4]]


def test_topk_ties_keep_gradients_on_the_chosen_indices():
    x = mt.tensor([1.0, 3, 3, 2, 3], dtype=mt.float64, requires_grad=True)
    v, i = mt.topk(x, 2)
    v.sum().backward()
    assert i.tolist() == [2, 4]
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("n, k", [(300, 2), (5000, 7), (9000, 140)])
def test_heap_topk_matches_the_element_by_element_replay(n, k):
    # the heap path skips chunks of elements that cannot enter the heap: same answer as
    # libstdc++'s partial_sort step by step
    ranks = np.random.RandomState(n).randint(0, 9, n)
    a = list(zip(ranks.tolist(), range(n), strict=True))
    tsm._heap_select(a, 0, k, n)
    tsm._sort_heap(a, 0, k)
    assert tsm._stl_topk(ranks, k) == [i for _, i in a[:k]]
    assert tsm._stl_topk(ranks.tolist(), k) == [i for _, i in a[:k]]


def test_topk_without_ties_is_unchanged():
    x = mt.tensor([[0.5, -1.0, 2.0, 0.25], [3.0, 1.0, -2.0, 0.0]])
    assert _idx(x, 2) == [[2, 0], [0, 1]]
    assert _idx(x, 3, largest=False) == [[1, 3, 0], [2, 3, 1]]
