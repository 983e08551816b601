"""Session 33 (helper cupysem): CuPy (14.2) behaviours the library relies on that differ from
NumPy's, read in CuPy's source, and what the strict test device (minitorch/_backend/strict.py)
now emulates. Each was also run once on a real GPU (H200, cupy-cuda13x 14.2) with the fixes.

Found and fixed:
- cupy.bincount reads its input on the host twice, to check it ((x < 0).any()) and to size its
  result (int(cupy.max(x)) + 1), both marked "# synchronize!" (cupy/_statistics/histogram.py).
  histc (whose CUDA kernel in torch takes the range given without waiting on the GPU),
  histogram and histogramdd binned through xp.bincount with a size they know: a GPU wait per
  call. They now go through Backend.bincount (NumPy's bincount on the CPU; a scatter-add into
  the known number of slots elsewhere). Same counts as the CPU's on the GPU.
- cupy.unravel_index checks (indices < 0).any() and (indices >= size).any() on the host
  (cupy/_indexing/generate.py), and a boolean-mask read a[mask] reads the mask's count
  ("count_nonzero = int(scan_index[-1])  # synchronize!", cupy/_core/_routines_indexing.pyx):
  Backend.ufunc_at's sorting path (_ufunc_at_sorted: scatter_reduce 'prod', int64
  'amax'/'amin', index_reduce 'prod' on a GPU) used both to write one value per position. It
  now writes each run's last value to its position and the others to a spare slot, with no
  host read. Same values as the CPU's on the GPU.
- The strict device now emulates: the host reads of xp.bincount (2), xp.unravel_index (2) and of
  the data-sized xp.nonzero/flatnonzero/argwhere/unique and ndarray.nonzero (1 each), counted as
  transfers (_CUPY_SYNCS); CuPy's argument refusals (_CUPY_ARGUMENT_RULES): searchsorted of a
  NumPy scalar v (NotImplementedError, cupy/_sorting/search.py), partition with a NumPy integer
  kth (TypeError, cupy/_core/_routines_sorting.pyx), sort/argsort with a kind other than None
  or 'stable' (ValueError, ndarray._check_kind_sort in cupy/_core/core.pyx), and in-place
  ndarray.sort() of a non-C-contiguous array (NotImplementedError); its sorts are stable, as
  CuPy's (thrust's stable sort); complex inputs to logical_and/or/xor/not, for which CuPy has
  no loops (TypeError, cupy/_logic/ops.py; found by comparing every ufunc's loops with NumPy's:
  the only kinds CuPy lacks; minitorch has no complex tensors, so no library path reaches them).
  The strict suite passes with all of them.

Checked, the same as NumPy for what the library calls (no change):
- sort/argsort of every dtype (bool, float16 and complex included; NaN last, complex NaNs in
  NumPy's order): cupy/cuda/cupy_thrust.cu dispatches them all.
- partition's bitonic kernel compares with `<` (a NaN could be misplaced), but the library
  partitions on the CPU only (rank_index, _topk_index are host kernels); on the GPU a NaN
  case came out as NumPy's.
- matmul/dot of integer and bool arrays: CuPy's own integer GEMM kernel (bool included); float16
  through cublasGemmEx with float32 accumulation; a 0-d operand is a ValueError as in NumPy; an
  out= of another dtype or layout is computed aside and copied (cupy/_core/_routines_linalg.pyx).
- einsum takes optimize=True/False (cupy/linalg/_einsum.py); unique takes axis and equal_nan
  (cupy/_manipulation/add_remove.py); clip takes None bounds (cupy/_math/misc.py); bincount
  takes bool input (and refuses floats, as NumPy); nonzero of a 0-d array is the ValueError
  NumPy 2 raises.
- take has no mode (CuPy wraps out-of-range indices where NumPy raises): the library leaves
  device indices unchecked as torch's CUDA kernels do (see _check_range, explain_bounds).

Known and left:
- cupy.linalg (inv, solve, cholesky, det, ...) never raises LinAlgError by default
  (cupyx.errstate(linalg='ignore'), cupy/linalg/_util.py; on the GPU inv of a zero matrix gave
  nan/inf, cholesky of -I nan): where NumPy raises and the library words torch's error (and
  Det/Slogdet's backward finds a singular matrix through Inv's error), a GPU gives NaN/inf.
  torch's CUDA kernels read the info on the host to raise; matching that is a design choice
  for the linalg owners. The strict device still raises as NumPy does.
- Boolean-mask reads a[mask] synchronize in CuPy but the strict device does not count them:
  tests/test_strict_backend.py::test_device_side_work_makes_no_transfer asserts that s[s > 3]
  makes no transfer (not this helper's file).
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import backend_of, device, strict
from minitorch._backend.strict import count_transfers


def _pair(fn):
    """fn('cpu') and fn('strict') (copied to the CPU after counting), and the transfers the
    strict call made."""
    want = fn("cpu")
    with count_transfers() as c:
        got = fn("strict")
    reads = c.count
    return want, got.cpu(), reads


def test_strict_xp_counts_cupys_host_reads():
    x = strict.xp.asarray(np.array([0, 2, 2, 5]))
    with count_transfers() as c:
        counts = strict.xp.bincount(x, minlength=7)
    assert c.count == 2
    np.testing.assert_array_equal(counts.get(), [1, 0, 2, 0, 0, 1, 0])
    with count_transfers() as c:
        rows, cols = strict.xp.unravel_index(x, (2, 3))
    assert c.count == 2  # CuPy's two checks
    assert (rows.get().tolist(), cols.get().tolist()) == ([0, 0, 0, 1], [0, 2, 2, 2])


@pytest.mark.parametrize("dt", [mt.float32, mt.float64, mt.float16])
def test_histc_waits_on_nothing(dt):
    g = mt.Generator().manual_seed(3)
    x = mt.randn(997, generator=g).to(dt)
    x[5] = float("nan")
    x[6] = 2.0  # the right edge: the last bin
    x[7] = 9.0  # out of range: dropped

    def run(dev):
        return mt.histc(x.to(dev), bins=9, min=-1.5, max=2.0)

    want, got, reads = _pair(run)
    assert reads == 0
    assert got.dtype is dt and mt.equal(got, want), (want, got)
    outside = (x.float() > 2.0).sum().item() + (x.float() < -1.5).sum().item()
    assert float(want.sum()) == 997 - 1 - outside  # the NaN and the values out of range


def test_histogramdd_and_histogram_wait_on_nothing():
    g = mt.Generator().manual_seed(4)
    pts = mt.randn(200, 2, generator=g, dtype=mt.float64)
    w = mt.rand(200, generator=g, dtype=mt.float64)
    edges = mt.tensor([-1.0, 0.0, 0.25, 2.0], dtype=mt.float64)

    def dd(dev):
        r = mt.histogramdd(pts.to(dev), bins=[3, 4], range=[-1.0, 1.0, -2.0, 2.0],
                           weight=w.to(dev), density=True)  # fmt: skip
        return r.hist

    def one(dev):
        return mt.histogram(pts[:, 0].to(dev), bins=edges.to(dev)).hist

    for fn in (dd, one):
        want, got, reads = _pair(fn)
        assert reads == 0, fn.__name__
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=fn.__name__)


def test_backend_bincount_matches_numpy():
    flat = np.array([3, 0, 3, 1, 3, 6], dtype=np.int64)
    w = np.array([0.5, 1.0, 2.0, -1.0, 0.25, 4.0], dtype=np.float32)
    sb = backend_of(device("strict"))
    with count_transfers() as c:
        counts = sb.bincount(strict.xp.asarray(flat), 8)
        sums = sb.bincount(strict.xp.asarray(flat), 8, strict.xp.asarray(w))
    assert c.count == 0
    assert counts.dtype == np.int64 and sums.dtype == np.float64
    np.testing.assert_array_equal(counts.get(), np.bincount(flat, minlength=8))
    np.testing.assert_array_equal(sums.get(), np.bincount(flat, w, minlength=8))
    cpu = backend_of(device("cpu"))
    np.testing.assert_array_equal(cpu.bincount(flat, 8, w), np.bincount(flat, w, minlength=8))


@pytest.mark.parametrize(
    "reduce, dt",
    [("prod", mt.float64), ("prod", mt.int64), ("prod", mt.int16), ("amax", mt.int64),
     ("amin", mt.int64)],
    ids=str,
)  # fmt: skip
def test_sorted_scatter_waits_on_nothing(reduce, dt):
    """scatter_reduce through _ufunc_at_sorted (products; int64 extremes), into a transposed
    (non-contiguous) target, as on the CPU and without a host read."""
    g = mt.Generator().manual_seed(5)
    base = mt.randint(-3, 4, (3, 5), generator=g).to(dt)
    src = mt.randint(-3, 4, (3, 7), generator=g).to(dt)
    idx = mt.tensor([[0, 2, 0, 3, 2, 0, 4]]).expand(3, 7)

    def run(dev):
        b = base.t().contiguous().t().to(dev)  # (3, 5) with column-major strides
        return b.scatter_reduce(1, idx.to(dev), src.to(dev), reduce=reduce)

    want, got, reads = _pair(run)
    assert reads == 0
    assert mt.equal(got, want), (want, got)


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
def test_index_reduce_prod_on_the_strict_device():
    g = mt.Generator().manual_seed(6)
    x = mt.rand(4, 3, generator=g, dtype=mt.float64) + 0.5
    src = mt.rand(5, 3, generator=g, dtype=mt.float64) + 0.5
    idx = mt.tensor([1, 3, 1, 1, 0])

    def run(dev):
        return x.to(dev).index_reduce(0, idx.to(dev), src.to(dev), "prod")

    want, got, reads = _pair(run)
    assert reads == 0
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_strict_counts_data_sized_results():
    s = strict.xp.asarray(np.array([[0.0, 1.5], [2.0, 0.0]]))
    for fn in (strict.xp.nonzero, strict.xp.flatnonzero, strict.xp.argwhere, strict.xp.unique,
               lambda a: a.nonzero()):  # fmt: skip
        with count_transfers() as c:
            fn(s)
        assert c.count == 1, fn


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda xp, a: xp.searchsorted(a, np.int64(1)), NotImplementedError,
         "Only python scalars or ndarrays are supported for v"),
        (lambda xp, a: xp.partition(a, np.int64(1)), TypeError,
         "'numpy.int64' object is not iterable"),
        (lambda xp, a: a.partition(np.int32(1)), TypeError, "'numpy.int32' object is not iterable"),
        (lambda xp, a: xp.sort(a, kind="quicksort"), ValueError,
         "kind can only be None or 'stable'"),
        (lambda xp, a: xp.argsort(a, kind="mergesort"), ValueError,
         "kind can only be None or 'stable'"),
        (lambda xp, a: a.argsort(kind="heapsort"), ValueError, "kind can only be None or 'stable'"),
        (lambda xp, a: xp.stack([a, a], axis=1).T.sort(), NotImplementedError,
         "Sorting non-contiguous array is not supported."),
    ],
)  # fmt: skip
def test_strict_refuses_what_cupy_refuses(call, error, message):
    a = strict.xp.asarray(np.array([3.0, 1.0, 2.0, 1.0]))
    with pytest.raises(error) as info:
        call(strict.xp, a)
    assert str(info.value) == message
    call(np, a.get())  # NumPy takes them


def test_strict_takes_what_cupy_takes():
    a = strict.xp.asarray(np.array([3.0, 1.0, 2.0, 1.0]))
    s = strict.xp.sort(a)
    assert strict.xp.searchsorted(s, 2.0).item() == 2
    assert strict.xp.searchsorted(s, np.float64(2.0)).item() == 2  # a float subclass
    assert strict.xp.searchsorted(s, strict.xp.asarray(np.array([2.0]))).get().tolist() == [2]
    assert strict.xp.partition(a, 1).get().tolist()[1] == 1.0
    assert a.argsort(kind="stable").get().tolist() == [1, 3, 2, 0]  # ties in input order
    a.sort()
    assert a.get().tolist() == [1.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("name", ["logical_not", "logical_and", "logical_or", "logical_xor"])
def test_strict_refuses_complex_logical_ufuncs(name):
    z = strict.xp.asarray(np.array([0j, 1j]))
    args = (z,) * getattr(np, name).nin
    with pytest.raises(TypeError, match=f"of arguments for cupy_{name}"):
        getattr(strict.xp, name)(*args)
    with pytest.raises(TypeError, match=f"of arguments for cupy_{name}"):
        getattr(np, name)(*args)  # through __array_ufunc__
    real = strict.xp.asarray(np.array([0.0, 2.0]))
    got = getattr(strict.xp, name)(*(real,) * len(args))
    np.testing.assert_array_equal(got.get(), getattr(np, name)(*(real.get(),) * len(args)))
