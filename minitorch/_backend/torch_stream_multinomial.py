"""torch's CPU multinomial, number for number, on a TorchStream: exponential keys and topk
without replacement (its ties in the order of libstdc++'s selection, replayed), cumulative sums
and binary search with replacement. See NOTE [ torch's CPU streams ] in torch_stream.py."""

from __future__ import annotations

import numpy as np

from minitorch._backend.torch_stream import _F32, _F64, TorchStream, unit_uniform
from minitorch._backend.torch_stream_normal import exponential

# --- multinomial ---

# NOTE [ torch's multinomial ]
# Without replacement, or one sample: q = empty_like(p).exponential_() (float64 draws cast to
# p's dtype, filled in q's memory order: a transposed p gives a transposed q), keys p / q in p's
# dtype, then argmax (one sample) or topk(keys, k): the k largest keys, largest first. Keys that
# are all distinct (and the k-th above the (k+1)-th) leave one possible answer, computed by
# sorting; otherwise (ties: zero weights when k exceeds the positive ones, equal keys in
# float16; NaN keys, which rank above all) the row goes through libstdc++'s algorithms as
# torch's topk calls them (NOTE [ libstdc++'s selection on ties ]).
# With replacement and k > 1: per row, the running sum of p in p's dtype (float32 for float16
# and bfloat16), divided by the total, the last entry set to 1; then k float64 uniforms, each
# placed at the first index whose cumulative value is >= u (a binary search).


def multinomial(s: TorchStream, p: np.ndarray, k: int, replacement: bool, transposed=False):
    """torch's CPU multinomial of the rows of p (a 2-d host array of a float dtype, checked):
    an int64 array (rows, k). transposed: p's memory is column-major (NOTE above)."""
    rows, n = p.shape
    if rows == 0:
        return np.zeros((0, k), dtype=np.int64)
    if replacement and k > 1:
        acc = _F64 if p.dtype == _F64 else _F32
        with np.errstate(over="ignore", invalid="ignore"):  # a total past the largest float
            cum = np.cumsum(p, axis=1, dtype=acc)  # sequential, as torch's loop
            cum /= cum[:, -1:]
        cum[:, -1] = 1
        u = unit_uniform(s, rows * k, "float64").reshape(rows, k)
        if rows <= 16:
            return np.stack([np.searchsorted(cum[r], u[r]) for r in range(rows)])
        return _lower_bound_rows(cum, u)
    q = exponential(s, p.size, 1.0)
    if p.dtype != _F64:
        q = q.astype(_F32)  # torch's cast of a double to half / bfloat16 goes through float
    q = q.astype(p.dtype, copy=False)
    q = q.reshape((n, rows)).T if transposed else q.reshape(rows, n)
    keys = (p / q).astype(_F64)  # p's dtype's quotient, widened exactly for the comparisons
    if k == 1:
        return np.argmax(keys, axis=1).reshape(rows, 1)  # the first largest (a NaN first)
    return _topk_rows(keys, k)


def _lower_bound_rows(cum: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each row r: the first index i with cum[r, i] >= u[r, j], for all j (vectorised)."""
    rows, n = cum.shape
    flat = cum.ravel()
    base = (np.arange(rows, dtype=np.int64) * n)[:, None]
    left = np.zeros(u.shape, dtype=np.int64)
    right = np.full(u.shape, n, dtype=np.int64)
    while True:
        open_ = left < right
        if not open_.any():
            return left
        mid = (left + right) >> 1
        below = flat[base + np.minimum(mid, n - 1)] < u
        left = np.where(open_ & below, mid + 1, left)
        right = np.where(open_ & ~below, mid, right)


def _topk_rows(keys: np.ndarray, k: int) -> np.ndarray:
    """torch's topk(keys, k).indices per row (float64 keys)."""
    rows, n = keys.shape
    kk = min(k + 1, n)  # the k-th must also be above the (k+1)-th
    if kk < n and kk * 8 < n:
        part = np.argpartition(-keys, kk - 1, axis=1)[:, :kk]
        order = np.take_along_axis(part, np.argsort(-np.take_along_axis(keys, part, 1), 1), 1)
    else:
        order = np.argsort(-keys, axis=1, kind="stable")[:, :kk]
    top = np.take_along_axis(keys, order, 1)
    clear = (top[:, :-1] > top[:, 1:]).all(axis=1)  # False for NaN too
    out = order[:, :k].copy()
    for r in np.flatnonzero(~clear).tolist():
        ranks = np.unique(keys[r], return_inverse=True)[1].ravel()  # NaN: the top rank
        out[r] = _stl_topk(ranks.tolist(), k)
    return out


# NOTE [ libstdc++'s selection on ties ]
# torch's CPU topk puts (key, index) pairs in a vector and, with `a > b` on keys as the order,
# calls std::partial_sort(first, first + k, last) when 64 k <= n, else
# std::nth_element(first, first + k - 1, last) followed by std::sort(first, first + k - 1). Which
# of several equal keys comes out where is fixed by libstdc++'s algorithms (median-of-three
# introselect / introsort with a final insertion sort, heap select + heap sort): the functions
# below replay them on integer ranks of the keys (equal keys, equal ranks), step for step.


def _stl_topk(ranks, k: int, sort: bool = True) -> list:
    """torch's CPU topk(ranks, k, sorted=sort) indices (larger ranks first); ranks: a list or
    an integer array."""
    n = len(ranks)
    if k * 64 <= n:
        return _heap_topk(np.asarray(ranks), k)
    keys = ranks.tolist() if isinstance(ranks, np.ndarray) else ranks
    a = list(zip(keys, range(n), strict=True))
    _nth_element(a, k - 1, n)
    if sort:
        _std_sort(a, 0, k - 1)
    return [i for _, i in a[:k]]


def _heap_topk(ranks: np.ndarray, k: int) -> list:
    """_heap_select(a, 0, k, n) then _sort_heap(a, 0, k), keeping only the heap: an element
    enters it only when above its top, which never falls, so each chunk of the rest is first
    narrowed to the elements above the top at the chunk's start (a long row with few such
    elements costs NumPy passes rather than a Python step per element)."""
    a = list(zip(ranks[:k].tolist(), range(k), strict=True))
    for parent in range((k - 2) // 2, -1, -1) if k >= 2 else ():
        _adjust_heap(a, 0, parent, k, a[parent])
    start, n = k, ranks.shape[0]
    while start < n:
        chunk = ranks[start : start + min(max(start, 64), 4096)]  # the top rises early: grow
        for i in np.flatnonzero(chunk > a[0][0]).tolist():
            r = int(chunk[i])
            if r > a[0][0]:
                _adjust_heap(a, 0, 0, k, (r, start + i))
        start += chunk.shape[0]
    _sort_heap(a, 0, k)
    return [i for _, i in a]


def _move_median_to_first(a, res, i, j, m):
    x, y, z = a[i][0], a[j][0], a[m][0]
    if x > y:
        pick = j if y > z else (m if x > z else i)
    else:
        pick = i if x > z else (m if y > z else j)
    a[res], a[pick] = a[pick], a[res]


def _partition_pivot(a, first, last):
    _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1)
    pivot = a[first][0]
    lo, hi = first + 1, last
    while True:
        while a[lo][0] > pivot:
            lo += 1
        hi -= 1
        while pivot > a[hi][0]:
            hi -= 1
        if lo >= hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _linear_insert(a, last):
    val = a[last]
    while val[0] > a[last - 1][0]:
        a[last] = a[last - 1]
        last -= 1
    a[last] = val


def _insertion_sort(a, first, last):
    for i in range(first + 1, last):
        if a[i][0] > a[first][0]:
            val = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i)


def _adjust_heap(a, first, hole, length, value):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] > a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] > value[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a, first, middle, last):
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else ():
        _adjust_heap(a, first, parent, length, a[first + parent])
    for i in range(middle, last):
        if a[i][0] > a[first][0]:  # pop the heap's top into i
            value = a[i]
            a[i] = a[first]
            _adjust_heap(a, first, 0, length, value)


def _sort_heap(a, first, last):
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value)


def _std_sort(a, first, last):
    if last - first < 2:
        return
    _introsort_loop(a, first, last, 2 * ((last - first).bit_length() - 1))
    if last - first > 16:
        _insertion_sort(a, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(a, i)
    else:
        _insertion_sort(a, first, last)


def _introsort_loop(a, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _heap_select(a, first, last, last)
            _sort_heap(a, first, last)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        _introsort_loop(a, cut, last, depth)
        last = cut


def _nth_element(a, nth, last):
    first = 0
    if nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last)


# NOTE [ torch's quickselect on ties ]
# torch's CPU kthvalue copies each row with its indices and runs its own quickselect on them
# (not the standard library's): the classic select with a median-of-three pivot (the middle
# element swapped next to the first, the first, second and last put in order), a partition
# from both ends that stops on elements equal to the pivot, and the pivot swapped into place;
# "greater" is x > y, with NaN greater than any number. Which of several equal values lands at
# position k follows from those swaps; _quick_select replays them on integer ranks of the values
# (equal values, equal ranks; NaN the highest).


def _quick_select(ranks: list, k: int) -> int:
    """The input index torch's CPU kthvalue reports for 0-based position k of ranks."""
    a = list(ranks)
    at = list(range(len(a)))

    def swap(p, q):
        a[p], a[q] = a[q], a[p]
        at[p], at[q] = at[q], at[p]

    lo, hi = 0, len(a) - 1
    while hi > lo:
        if hi == lo + 1:
            if a[lo] > a[hi]:
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        if a[lo + 1] > a[hi]:
            swap(lo + 1, hi)
        if a[lo] > a[hi]:
            swap(lo, hi)
        if a[lo + 1] > a[lo]:
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, a[lo]
        while True:
            i += 1
            while pivot > a[i]:
                i += 1
            j -= 1
            while a[j] > pivot:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return at[k]
