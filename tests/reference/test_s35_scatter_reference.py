"""Session 35 (helper scatter): scatter/gather-style tensor programs written the way users write
them in torch, run under torch and minitorch with the same seeds and compared record by record:
scatter_/scatter (src, value, the deprecated reduce='add'/'multiply' with duplicates, one-hot
encodings, an index smaller than src), scatter_add with duplicate indices (3-d, integer
counts, 0-d, empty), scatter_reduce in every reduction with include_self True/False (floats,
integers, NaN and inf, integer mean's floor division) and its gradients (prod with zeros in src
and self, amax/amin ties); index_add/index_copy/index_fill/index_reduce (alpha, dims, integer
tensors, a tensor fill value's gradient); index_put(accumulate=True) with index pairs, rows,
broadcast values, negative indices and masks, on views of non-leaves; masked_scatter with
broadcast masks; put/take (accumulate, negative, non-contiguous); gather, take_along_dim and
their broadcasting rules; torch.unique (sorted, return_inverse, return_counts, dim=, label
remaps) and unique_consecutive (dim=, run-length encoding); bincount (weights of several
dtypes, minlength, class weights); histc, histogram (bin tensors, density, weight) and
histogramdd; segment sums by index_add, scatter_add, cumsum differences, scatter_reduce,
index_reduce and segment_reduce, and a GNN segment softmax; out= forms; non-contiguous
operands; double backward values; float64 gradcheck/gradgradcheck of every differentiable op
of the family; grad_fn._saved_<name>; version errors of saved masks, indices and sources; and
torch's errors (index out of range, dtype and dims mismatches, argument types by position and
keyword, deterministic mode on the CPU). float64 must agree to 1e-10 of each record's scale,
float32 to 1e-4; texts exactly.

Found and fixed:
- expand's "the number of sizes provided" error named every dtype by its legacy class
  (torch.BoolTensor{[4, 3]}); torch names the dtypes without one by their backend type
  (CPUBoolType, CPUBFloat16Type, CPUUInt16Type), as masked_scatter_'s mask expansion shows.
- scatter_reduce's and index_reduce's nodes had no grad_fn._saved_<name> (torch: dim,
  include_self, index, reduce as given ("max", not "amax"), result, self, src / source);
  scatter's ScatterBackward0/ScatterBackward1 had no _saved_dim/_saved_index.
- masked_scatter saved the mask broadcast to the result, so a broadcast mask changed in place
  gave a version error naming [CPUBoolType [2, 3]]; torch saves the mask as given ([3]).
- x.scatter(1, index, src=2.0) (a number by the src keyword) scattered it as a value; torch's
  parser refuses it ("received an invalid combination of arguments ... !src=float!").
- index_reduce/index_reduce_ with a reduce that is no str, an include_self that is no bool
  (None, 1, 'a' ran as truthy), or a list for dim/index/source/input gave a RuntimeError or
  AttributeError; now torch's parser TypeErrors (positions as method or function, the in-place
  op's name).
- index_put/index_put_ dropped a value's leading size-1 dims as setitem does, so ones(1, 2, 4)
  at a (2, 4) result was accepted; torch's index_put_ broadcasts the value as it is ("shape
  mismatch: value tensor of shape [1, 2, 4] cannot be broadcast to indexing result of shape
  [2, 4]"), except on its one-value-at-one-bool-mask masked_fill_ path.

Known and left (documented):
- scatter/scatter_add/scatter_reduce with a src larger than index have gradients here; torch
  refuses their backward (its docs: "only for src.shape == index.shape"; see
  test_s30_moe_reference.py). The programs give src index's shape where they differentiate.
- segment_reduce is twice differentiable here; torch raises "derivative for
  aten::_segment_reduce_backward is not implemented". Not recorded.
- histc's "range of [-nan, -nan] is not finite": torch's sign of a NaN found by its SIMD
  reduction is platform noise. Not recorded.
- torch.unique/unique_consecutive's TypeErrors for an unknown keyword name torch's Python
  dispatch helpers (_return_output, _return_inverse, _consecutive_return_counts, ...);
  minitorch's name unique. Index_reduce's positional-count and missing-argument TypeErrors are
  Python's, not torch's parser's ("takes 4 positional arguments but 5 were given",
  'missing 1 required positional arguments: "reduce"').
- A bytes reduce (b'sum') is read as a str by torch's parser; minitorch's scatter_reduce and
  index_reduce refuse it with the parser's TypeError.
- index_put_ with an empty indices tuple: torch fails an internal assert; minitorch writes the
  whole tensor. masked_scatter_ with a source overlapping self raises the overlap error here
  (the docstring's difference). index_add's complex alpha: minitorch has no complex dtypes.
- The records run on the CPU only; the strict test device and CuPy are not exercised here.
"""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "scatter_basic", "scatter_add_dups", "scatter_reduce_all", "scatter_reduce_grads",
    "index_add", "index_copy_fill", "index_reduce", "index_put_acc", "masked_scatter",
    "put_take", "gather_bcast", "unique_flat", "unique_dim", "unique_consecutive",
    "bincount", "histc", "histogram", "segment_sums", "gradchecks", "scatter_errors",
    "index_errors", "misc_errors", "segment_softmax", "out_variants", "saved_nodes",
    "noncontig", "double_backward",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def test_argument_calls_match_torch():
    assert_calls_match(p_argument_calls, torch)


# --- helpers ---


def _ints(lib, seed, high, *shape):
    return lib.randint(0, high, shape, generator=_gen(lib, seed))


# --- the programs: each takes the library, a dtype and a recorder ---


def p_scatter_basic(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 5)
    # a permutation per row: no duplicate targets, so scatter_ is deterministic
    idx = lib.stack([lib.randperm(5, generator=_gen(lib, 10 + i)) for i in range(3)])
    src = _randn(lib, dt, 2, 3, 5)
    rec("dim1", x.clone().scatter_(1, idx, src))
    rec("dim-1", x.clone().scatter(-1, idx, src))
    rec("value", x.clone().scatter_(1, idx[:, :2], 2.5))
    rec("value_kw", lib.scatter(x, 1, idx[:, :2], value=-1.0))
    idx0 = lib.stack([lib.randperm(4, generator=_gen(lib, 20 + i)) for i in range(5)], 1)
    rec("dim0", x.clone().scatter_(0, idx0[:3], src))
    rec("reduce_add", rec.warns("w_add", lambda: x.clone().scatter_(1, idx, src, reduce="add")))
    rec("reduce_mul", x.clone().scatter_(1, idx, src, reduce="multiply"))
    rec("reduce_val", x.clone().scatter_(1, idx[:, :3], 3.0, reduce="multiply"))
    dup = lib.tensor([[0, 0, 1, 1, 0], [2, 2, 2, 4, 4], [3, 1, 3, 1, 0]])
    rec("reduce_add_dup", x.clone().scatter_(1, dup, src, reduce="add"))
    rec("reduce_mul_dup", x.clone().scatter_(1, dup, src, reduce="multiply"))
    # one-hot encodings, the usual scatter idiom
    labels = _ints(lib, 3, 6, 7)
    oh = lib.zeros(7, 6, dtype=dt).scatter_(1, labels.unsqueeze(1), 1.0)
    rec("onehot", oh)
    rec("onehot_eq", lib.equal(oh, lib.nn.functional.one_hot(labels, 6).to(dt)))
    # smaller index than src in the non-scatter dims
    rec("small_idx", lib.zeros(3, 5, dtype=dt).scatter(1, idx[:2, :3], src))
    # gradients of scatter: input grad is masked, src grad gathered
    xa = x.clone().requires_grad_(True)
    sa = src.clone().requires_grad_(True)
    out = xa.scatter(1, idx[:, :3], sa[:, :3])
    w = _randn(lib, dt, 5, 4, 5)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_src", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    xb = x.clone().requires_grad_(True)
    out = xb.scatter(1, idx[:, :3], 0.5)
    (out * w).sum().backward()
    rec("g_x_value", xb.grad)
    rec("grad_fn_value", type(out.grad_fn).__name__)


def p_scatter_add_dups(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 6)
    src = _randn(lib, dt, 2, 3, 8)
    idx = _ints(lib, 3, 6, 3, 8)
    rec("add", x.scatter_add(1, idx, src))
    rec("add_fn", lib.scatter_add(x, 1, idx, src))
    rec("add_inplace", x.clone().scatter_add_(-1, idx, src))
    idx0 = _ints(lib, 4, 3, 2, 6)
    rec("add_dim0", x.scatter_add(0, idx0, src[:2, :6]))
    # 3-d, scatter along the middle dim with an index smaller than src
    x3 = lib.zeros(2, 4, 3, dtype=dt)
    s3 = _randn(lib, dt, 5, 2, 6, 3)
    i3 = _ints(lib, 6, 4, 2, 5, 2)
    rec("add_3d", x3.scatter_add(1, i3, s3))
    xa = x.clone().requires_grad_(True)
    sa = src.clone().requires_grad_(True)
    out = xa.scatter_add(1, idx, sa)
    w = _randn(lib, dt, 7, 3, 6)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_src", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    # integer scatter_add (counts)
    cnt = lib.zeros(3, 6, dtype=lib.int64).scatter_add_(1, idx, lib.ones_like(idx))
    rec("counts", cnt)
    # 0-d
    z = lib.tensor(1.5, dtype=dt)
    rec("zero_d", z.scatter_add(0, lib.tensor(0), lib.tensor(2.0, dtype=dt)))
    rec("empty_idx", x.scatter_add(1, lib.zeros(3, 0, dtype=lib.int64), src))


def p_scatter_reduce_all(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 5)
    src = _randn(lib, dt, 2, 3, 7)
    idx = lib.tensor([[0, 0, 1, 3, 3, 3, 0], [4, 4, 4, 4, 1, 1, 0], [2, 0, 2, 0, 2, 0, 2]])
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            tag = f"{red}.{int(inc)}"
            rec(tag, x.scatter_reduce(1, idx, src, reduce=red, include_self=inc))
            rec(tag + ".ip", x.clone().scatter_reduce_(1, idx, src, red, include_self=inc))
    xi = lib.tensor([[5, 1, 2, 0], [3, 3, 3, 3]])
    si = lib.tensor([[1, 2, 7, 4, 9], [6, 5, 4, 3, 2]])
    ii = lib.tensor([[0, 0, 1, 1, 1], [3, 2, 3, 2, 0]])
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            rec(f"int.{red}.{int(inc)}", xi.scatter_reduce(1, ii, si, red, include_self=inc))
    # mean of integers floors as torch's integer division does
    rec("int.mean.neg", lib.tensor([-3, 0]).scatter_reduce(0, lib.tensor([0, 0]),
                                                          lib.tensor([-4, 0]), "mean"))
    # scatter_reduce along dim 0 with an index smaller than src
    rec("dim0", x.scatter_reduce(0, idx[:2, :4] % 3, src, "amax", include_self=False))
    # with NaN and inf in src
    sn = src.clone()
    sn[0, 0] = float("nan")
    sn[1, 2] = float("inf")
    for red in ("sum", "amax", "amin", "mean", "prod"):
        rec(f"nan.{red}", x.scatter_reduce(1, idx, sn, red, include_self=False))


def p_scatter_reduce_grads(lib, dt, rec):
    x0 = _randn(lib, dt, 1, 3, 5)
    s0 = _randn(lib, dt, 2, 3, 7)
    idx = lib.tensor([[0, 0, 1, 3, 3, 3, 0], [4, 4, 4, 4, 1, 1, 0], [2, 0, 2, 0, 2, 0, 2]])
    w = _randn(lib, dt, 3, 3, 5)
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            x = x0.clone().requires_grad_(True)
            s = s0.clone().requires_grad_(True)
            out = x.scatter_reduce(1, idx, s, red, include_self=inc)
            (out * w).sum().backward()
            tag = f"{red}.{int(inc)}"
            rec(tag + ".gx", x.grad)
            rec(tag + ".gs", s.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    rec("saved", str(sorted(k for k in dir(out.grad_fn) if k.startswith("_saved_"))))
    rec("saved_reduce", out.grad_fn._saved_reduce)
    rec("saved_dim", out.grad_fn._saved_dim)
    rec("saved_inc", out.grad_fn._saved_include_self)
    # prod with zeros in src and in self (one zero, two zeros in one slot)
    s1 = s0.clone()
    s1[0, 0] = 0.0
    s1[0, 1] = 0.0
    s1[1, 4] = 0.0
    x1 = x0.clone()
    x1[2, 2] = 0.0
    x1[0, 3] = 0.0
    for inc in (True, False):
        x = x1.clone().requires_grad_(True)
        s = s1.clone().requires_grad_(True)
        out = x.scatter_reduce(1, idx, s, "prod", include_self=inc)
        (out * w).sum().backward()
        rec(f"prod0.{int(inc)}", out)
        rec(f"prod0.{int(inc)}.gx", x.grad)
        rec(f"prod0.{int(inc)}.gs", s.grad)
    # ties in amax: the gradient is shared evenly among the tied elements
    st = lib.tensor([[1.0, 2.0, 2.0, 0.5], [3.0, 3.0, 3.0, 1.0]], dtype=dt)
    xt = lib.tensor([[2.0, 0.0], [0.0, 3.0]], dtype=dt)
    it = lib.tensor([[0, 0, 0, 1], [1, 1, 1, 0]])
    for red in ("amax", "amin"):
        for inc in (True, False):
            x = xt.clone().requires_grad_(True)
            s = st.clone().requires_grad_(True)
            out = x.scatter_reduce(1, it, s, red, include_self=inc)
            out.backward(lib.tensor([[1.0, 2.0], [4.0, 8.0]], dtype=dt))
            rec(f"tie.{red}.{int(inc)}", out)
            rec(f"tie.{red}.{int(inc)}.gx", x.grad)
            rec(f"tie.{red}.{int(inc)}.gs", s.grad)


def p_index_add(lib, dt, rec):
    x = _randn(lib, dt, 1, 5, 3)
    src = _randn(lib, dt, 2, 7, 3)
    idx = lib.tensor([0, 4, 4, 2, 0, 0, 1])
    rec("dim0", x.index_add(0, idx, src))
    rec("alpha", x.index_add(0, idx, src, alpha=-0.5))
    rec("fn", lib.index_add(x, 0, idx, src, alpha=2))
    rec("inplace", x.clone().index_add_(0, idx, src))
    idx1 = lib.tensor([2, 0, 2, 2])
    s1 = _randn(lib, dt, 3, 5, 4)
    rec("dim1", x.index_add(1, idx1, s1))
    rec("dim-1", x.index_add(-1, idx1, s1, alpha=3.0))
    rec("int32_idx", x.index_add(0, idx.int(), src))
    rec("int", lib.zeros(4, dtype=lib.int64).index_add_(0, lib.tensor([1, 1, 3]),
                                                        lib.tensor([5, 6, 7]), alpha=2))
    # 0-d index on a 1-d tensor, and 0-d self
    two = lib.tensor([2.0], dtype=dt)
    rec("zero_d_idx", lib.zeros(3, dtype=dt).index_add(0, lib.tensor(1), two))
    rec("zero_d_self", lib.tensor(1.0, dtype=dt).index_add(0, lib.tensor([0]), two[0]))
    xa = x.clone().requires_grad_(True)
    sa = src.clone().requires_grad_(True)
    out = xa.index_add(0, idx, sa, alpha=1.5)
    w = _randn(lib, dt, 4, 5, 3)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_src", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    # in-place on a non-leaf
    y = xa * 2
    y.index_add_(0, idx, sa)
    rec("grad_fn_ip", type(y.grad_fn).__name__)
    xa.grad = None
    sa.grad = None
    (y * w).sum().backward()
    rec("g_x_ip", xa.grad)
    rec("g_src_ip", sa.grad)


def p_index_copy_fill(lib, dt, rec):
    x = _randn(lib, dt, 1, 5, 4)
    src = _randn(lib, dt, 2, 3, 4)
    idx = lib.tensor([4, 0, 2])
    rec("copy0", x.index_copy(0, idx, src))
    rec("copy_ip", x.clone().index_copy_(0, idx, src))
    rec("copy_fn", lib.index_copy(x, 0, idx, src))
    s1 = _randn(lib, dt, 3, 5, 2)
    rec("copy1", x.index_copy(1, lib.tensor([3, 1]), s1))
    rec("fill0", x.index_fill(0, idx, -2.0))
    rec("fill1", x.clone().index_fill_(1, lib.tensor([0, 0, 3]), 7))
    rec("fill_t", x.index_fill(1, lib.tensor([2]), lib.tensor(1.25, dtype=dt)))
    rec("fill_dup", x.index_fill(0, lib.tensor([1, 1, 1]), 0.0))
    rec("fill_int", lib.arange(6).view(2, 3).index_fill(1, lib.tensor([1]), 9))
    rec("fill_bool", lib.zeros(2, 3, dtype=lib.bool).index_fill(1, lib.tensor([2]), True))
    xa = x.clone().requires_grad_(True)
    sa = src.clone().requires_grad_(True)
    w = _randn(lib, dt, 4, 5, 4)
    out = xa.index_copy(0, idx, sa)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_src", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    xb = x.clone().requires_grad_(True)
    out = xb.index_fill(1, lib.tensor([0, 3]), 1.0)
    (out * w).sum().backward()
    rec("g_fill", xb.grad)
    rec("grad_fn_fill", type(out.grad_fn).__name__)
    xc = x.clone().requires_grad_(True)
    v = lib.tensor(2.0, dtype=dt, requires_grad=True)
    out = xc.index_fill(1, lib.tensor([0, 3]), v)
    (out * w).sum().backward()
    rec("g_fill_t", xc.grad)
    rec("g_fill_v", v.grad)


def p_index_reduce(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 3)
    src = _randn(lib, dt, 2, 6, 3)
    idx = lib.tensor([0, 3, 3, 0, 0, 2])
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            tag = f"{red}.{int(inc)}"
            rec(tag, x.index_reduce(0, idx, src, red, include_self=inc))
            rec(tag + ".ip", x.clone().index_reduce_(0, idx, src, red, include_self=inc))
    s1 = _randn(lib, dt, 3, 4, 5)
    i1 = lib.tensor([1, 1, 0, 2, 1])
    rec("dim1", x.index_reduce(1, i1, s1, "amax"))
    rec("dim-1", x.index_reduce(-1, i1, s1, "mean", include_self=False))
    xi = lib.tensor([[4, 1], [2, 2], [8, 3]])
    si = lib.tensor([[1, 2], [3, 4], [5, 6], [7, 8]])
    ii = lib.tensor([0, 0, 2, 0])
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            rec(f"int.{red}.{int(inc)}", xi.index_reduce(0, ii, si, red, include_self=inc))
    w = _randn(lib, dt, 4, 4, 3)
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            xa = x.clone().requires_grad_(True)
            sa = src.clone().requires_grad_(True)
            out = xa.index_reduce(0, idx, sa, red, include_self=inc)
            (out * w).sum().backward()
            rec(f"g.{red}.{int(inc)}.x", xa.grad)
            rec(f"g.{red}.{int(inc)}.s", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)


def p_index_put_acc(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 5)
    v = _randn(lib, dt, 2, 6)
    r = lib.tensor([0, 3, 3, 0, 1, 3])
    c = lib.tensor([1, 2, 2, 1, 4, 0])
    rec("acc", x.index_put((r, c), v, accumulate=True))
    rec("acc_ip", x.clone().index_put_((r, c), v, accumulate=True))
    rec("acc_scalar_v", x.index_put((r, c), lib.tensor(1.0, dtype=dt), accumulate=True))
    rec("acc_rows", x.index_put((r,), _randn(lib, dt, 3, 6, 5), accumulate=True))
    rec("acc_bcast", x.index_put((r,), _randn(lib, dt, 3, 5), accumulate=True))
    rec("acc_neg", x.index_put((lib.tensor([-1, -1, 0]),), lib.ones(3, 5, dtype=dt),
                               accumulate=True))
    m = x > 0
    rec("acc_mask", x.index_put((m,), lib.ones(int(m.sum()), dtype=dt), accumulate=True))
    rec("noacc_unique", x.index_put((lib.tensor([2, 0]), lib.tensor([1, 1])),
                                    lib.tensor([9.0, 8.0], dtype=dt)))
    rec("fn", lib.index_put(x, (r, c), v, True))
    h = lib.zeros(3, 3, dtype=lib.int64)
    h.index_put_((lib.tensor([0, 0, 2, 0]), lib.tensor([1, 1, 2, 1])), lib.tensor(1),
                 accumulate=True)
    rec("int_hist", h)
    xa = x.clone().requires_grad_(True)
    va = v.clone().requires_grad_(True)
    out = xa.index_put((r, c), va, accumulate=True)
    w = _randn(lib, dt, 4, 4, 5)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_v", va.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    xb = x.clone().requires_grad_(True)
    vb = lib.tensor([9.0, 8.0], dtype=dt, requires_grad=True)
    out = xb.index_put((lib.tensor([2, 0]), lib.tensor([1, 1])), vb)
    (out * w).sum().backward()
    rec("g_x_noacc", xb.grad)
    rec("g_v_noacc", vb.grad)
    # index_put_ through a view of a non-leaf
    xc = x.clone().requires_grad_(True)
    y = xc * 1.0
    y[1:].index_put_((r[:3] % 3,), va[:3].unsqueeze(1).expand(3, 5), accumulate=True)
    (y * w).sum().backward()
    rec("g_view_x", xc.grad)


def p_masked_scatter(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    src = _randn(lib, dt, 2, 5, 4)
    m = _rand(lib, dt, 3, 3, 4) > 0.5
    rec("same", x.masked_scatter(m, src))
    rec("ip", x.clone().masked_scatter_(m, src))
    rec("fn", lib.masked_scatter(x, m, src))
    mrow = lib.tensor([True, False, True, True])
    rec("bcast_mask", x.masked_scatter(mrow, src))
    mcol = lib.tensor([[True], [False], [True]])
    rec("bcast_col", x.masked_scatter(mcol, src))
    rec("bcast_self", lib.zeros(4, dtype=dt).masked_scatter(
        lib.tensor([[True, False, True, False], [False, True, True, True]]), src))
    rec("none", x.masked_scatter(lib.zeros(3, 4, dtype=lib.bool), src[:0]))
    rec("int", lib.zeros(2, 3, dtype=lib.int64).masked_scatter(
        lib.tensor([[True, False, True], [False, False, True]]), lib.arange(10, 16)))
    xa = x.clone().requires_grad_(True)
    sa = src.clone().requires_grad_(True)
    out = xa.masked_scatter(m, sa)
    w = _randn(lib, dt, 4, 3, 4)
    (out * w).sum().backward()
    rec("g_x", xa.grad)
    rec("g_src", sa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    xb = x[0].clone().requires_grad_(True)
    sb = src.clone().requires_grad_(True)
    out = xb.masked_scatter(mcol, sb)
    (out * w).sum().backward()
    rec("g_bcast_x", xb.grad)
    rec("g_bcast_src", sb.grad)


def p_put_take(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    src = _randn(lib, dt, 2, 5)
    idx = lib.tensor([0, 11, -1, 5, 6])
    rec("take", x.take(idx))
    rec("take_fn", lib.take(x, lib.tensor([[1, 2], [-3, 7]])))
    rec("take_t", x.t().take(lib.tensor([0, 1, 2, 3])))
    rec("put_unique", x.clone().put_(lib.tensor([0, 5, 7, 9, 2]), src))
    rec("put_fn", lib.put(x, lib.tensor([0, 5, 7, 9, 2]), src))
    rec("put_acc", x.clone().put_(lib.tensor([0, 5, 5, 0, -1]), src, accumulate=True))
    rec("put_acc_m", x.put(lib.tensor([[0, 5], [5, 1]]), src[:4].view(2, 2), accumulate=True))
    rec("put_nc", x.t().clone().t().put_(lib.tensor([1, 4]), src[:2]))
    xa = x.clone().requires_grad_(True)
    out = xa.take(lib.tensor([[0, 0], [3, -1]]))
    out.backward(lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dt))
    rec("g_take", xa.grad)
    rec("grad_fn_take", type(out.grad_fn).__name__)
    xb = x.clone().requires_grad_(True)
    sb = src.clone().requires_grad_(True)
    w = _randn(lib, dt, 3, 3, 4)
    out = xb.put(lib.tensor([0, 5, 5, 0, -1]), sb, accumulate=True)
    (out * w).sum().backward()
    rec("g_put_acc_x", xb.grad)
    rec("g_put_acc_s", sb.grad)
    xc = x.clone().requires_grad_(True)
    sc = src.clone().requires_grad_(True)
    out = xc.put(lib.tensor([0, 5, 7, 9, 2]), sc)
    (out * w).sum().backward()
    rec("g_put_x", xc.grad)
    rec("g_put_s", sc.grad)
    rec("grad_fn_put", type(out.grad_fn).__name__)


def p_gather_bcast(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 6)
    idx = _ints(lib, 2, 6, 2, 3)
    rec("small", x.gather(1, idx))
    rec("fn", lib.gather(x, 1, idx))
    rec("dim0", x.gather(0, _ints(lib, 3, 4, 3, 6)))
    rec("neg", x.gather(-1, idx))
    x3 = _randn(lib, dt, 4, 2, 5, 3)
    rec("3d", x3.gather(1, _ints(lib, 5, 5, 2, 7, 3)))
    rec("3d_small", x3.gather(2, _ints(lib, 6, 3, 1, 2, 2)))
    # take_along_dim broadcasts, gather does not
    ia = lib.argsort(x, dim=1)[:, :2]
    rec("tad", lib.take_along_dim(x, ia, dim=1))
    rec("tad_bcast", lib.take_along_dim(x, lib.tensor([[0, 5]]), dim=1))
    rec("tad_flat", lib.take_along_dim(x, lib.tensor([0, 23, 5])))
    rec("tad_method", x.take_along_dim(lib.tensor([[1], [0], [2], [3]]), 1))
    # gather with expand: a common pattern to pick rows
    rows = lib.tensor([3, 0, 0])
    rec("expand", x.gather(0, rows.unsqueeze(1).expand(-1, 6)))
    xa = x.clone().requires_grad_(True)
    out = xa.gather(1, lib.tensor([[0, 0, 5], [2, 2, 2]]))
    w = _randn(lib, dt, 7, 2, 3)
    (out * w).sum().backward()
    rec("g_gather", xa.grad)
    rec("grad_fn", type(out.grad_fn).__name__)
    rec("saved_dim", out.grad_fn._saved_dim)
    rec("saved_sparse", out.grad_fn._saved_sparse_grad)
    xb = x.clone().requires_grad_(True)
    out = lib.take_along_dim(xb, lib.tensor([[0, 5]]), dim=1)
    (out * w[:1, :2].expand(4, 2)).sum().backward()
    rec("g_tad", xb.grad)
    # empty index
    rec("empty", x.gather(1, lib.zeros(4, 0, dtype=lib.int64)))


def p_unique_flat(lib, dt, rec):
    x = (_randn(lib, dt, 1, 4, 5) * 2).round()
    u = lib.unique(x)
    rec("sorted", u)
    u, inv = lib.unique(x, return_inverse=True)
    rec("u", u)
    rec("inv", inv)
    u, cnt = lib.unique(x, return_counts=True)
    rec("cnt", cnt)
    u, inv, cnt = x.unique(sorted=True, return_inverse=True, return_counts=True)
    rec("all.u", u)
    rec("all.inv", inv)
    rec("all.cnt", cnt)
    rec("roundtrip", lib.equal(u[inv], x))
    # unsorted on CPU still sorts (torch's CPU kernel); values the same set either way
    us = lib.unique(x, sorted=False)
    rec("unsorted_set", lib.sort(us).values)
    xi = _ints(lib, 2, 5, 12)
    u, inv, cnt = lib.unique(xi, return_inverse=True, return_counts=True)
    rec("int.u", u)
    rec("int.inv", inv)
    rec("int.cnt", cnt)
    rec("bool", lib.unique(lib.tensor([True, False, True])))
    rec("empty", lib.unique(lib.zeros(0, dtype=dt), return_inverse=True, return_counts=True))
    rec("zero_d", lib.unique(lib.tensor(3.0, dtype=dt), return_inverse=True))
    # nan: every nan is its own value in torch.unique's CPU sort path
    xn = lib.tensor([1.0, float("nan"), 1.0, 2.0], dtype=dt)
    rec("nan", lib.unique(xn))
    # a label remap, the usual use: dense ids from sparse labels
    labels = lib.tensor([10, 3, 10, 7, 3, 3])
    _, dense = lib.unique(labels, return_inverse=True)
    rec("dense", dense)
    rec("onehot_counts", lib.nn.functional.one_hot(dense).sum(0))


def p_unique_dim(lib, dt, rec):
    x = lib.tensor([[1, 2, 1], [0, 0, 0], [1, 2, 1], [1, 0, 1], [0, 0, 0]], dtype=dt)
    for d in (0, 1, -1):
        u, inv, cnt = lib.unique(x, dim=d, return_inverse=True, return_counts=True)
        rec(f"d{d}.u", u)
        rec(f"d{d}.inv", inv)
        rec(f"d{d}.cnt", cnt)
    rec("plain_d0", lib.unique(x, dim=0))
    rec("method_d1", x.unique(dim=1, return_counts=True)[1])
    x3 = (_randn(lib, dt, 3, 4, 2, 3) > 0).to(dt)
    u, inv = lib.unique(x3, dim=1, return_inverse=True)
    rec("3d.u", u)
    rec("3d.inv", inv)
    xi = _ints(lib, 4, 2, 6, 2)
    u, inv, cnt = lib.unique(xi, dim=0, return_inverse=True, return_counts=True)
    rec("int.u", u)
    rec("int.inv", inv)
    rec("int.cnt", cnt)
    rec("empty_dim", lib.unique(lib.zeros(0, 3, dtype=dt), dim=0))
    rec("err_empty", rec.err("e", lambda: lib.unique(lib.zeros(2, 0, dtype=dt), dim=0)))
    rec("err_dim", rec.err("e2", lambda: lib.unique(x, dim=2)))


def p_unique_consecutive(lib, dt, rec):
    x = lib.tensor([1, 1, 2, 2, 3, 1, 1, 2], dtype=dt)
    rec("plain", lib.unique_consecutive(x))
    u, inv, cnt = lib.unique_consecutive(x, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    rec("method", x.unique_consecutive(return_counts=True)[1])
    x2 = lib.tensor([[1, 1, 2, 2], [3, 3, 1, 1], [3, 3, 1, 1], [1, 1, 2, 2]], dtype=dt)
    x2 = lib.cat([x2, x2[:, :1]], 1)
    for d in (0, 1, -1):
        u, inv, cnt = lib.unique_consecutive(x2, return_inverse=True, return_counts=True, dim=d)
        rec(f"d{d}.u", u)
        rec(f"d{d}.inv", inv)
        rec(f"d{d}.cnt", cnt)
    u, inv = lib.unique_consecutive(x2.view(2, 2, 5), return_inverse=True)
    rec("nd_inv_shape", str(tuple(inv.shape)))
    rec("nd.u", u)
    # run-length encoding, a common use
    bits = (_rand(lib, dt, 5, 20) > 0.5).long()
    vals, counts = lib.unique_consecutive(bits, return_counts=True)
    rec("rle.vals", vals)
    rec("rle.counts", counts)
    rec("rle.ends", counts.cumsum(0))
    rec("empty", lib.unique_consecutive(lib.zeros(0, dtype=dt), return_inverse=True,
                                        return_counts=True))


def p_bincount(lib, dt, rec):
    x = _ints(lib, 1, 7, 30)
    rec("plain", lib.bincount(x))
    rec("minlength", lib.bincount(x, minlength=10))
    rec("minlength_small", x.bincount(minlength=2))
    w = _rand(lib, dt, 2, 30)
    rec("weights", lib.bincount(x, weights=w))
    rec("weights_ml", lib.bincount(x, w, 9))
    rec("w_int", lib.bincount(x, weights=lib.arange(30)))
    rec("w_f16", lib.bincount(x, weights=w.half()))
    rec("empty", lib.bincount(lib.zeros(0, dtype=lib.int64)))
    rec("empty_ml", lib.bincount(lib.zeros(0, dtype=lib.int64), minlength=3))
    rec("empty_w", lib.bincount(lib.zeros(0, dtype=lib.int64), weights=lib.zeros(0, dtype=dt)))
    rec("uint8", lib.bincount(x.to(lib.uint8)))
    rec("int32", lib.bincount(x.int(), minlength=8))
    # class weights for imbalanced labels
    counts = lib.bincount(x, minlength=8).to(dt)
    rec("class_w", counts.sum() / (8 * counts.clamp(min=1)))
    for name, fn in [
        ("neg", lambda: lib.bincount(lib.tensor([1, -1]))),
        ("float", lambda: lib.bincount(lib.tensor([1.0, 2.0], dtype=dt))),
        ("2d", lambda: lib.bincount(x.view(5, 6))),
        ("wshape", lambda: lib.bincount(x, weights=w[:5])),
        ("neg_ml", lambda: lib.bincount(x, minlength=-1)),
        ("bool", lambda: lib.bincount(lib.tensor([True, False]))),
        ("w_2d", lambda: lib.bincount(x, weights=w.view(5, 6))),
    ]:
        rec.err("err." + name, fn)


def p_histc(lib, dt, rec):
    x = _randn(lib, dt, 1, 50)
    rec("default", lib.histc(x))
    rec("bins", lib.histc(x, bins=7, min=-2, max=2))
    rec("method", x.histc(5, -1.0, 1.0))
    rec("auto_range", lib.histc(x, bins=4))
    rec("const", lib.histc(lib.full((4,), 2.0, dtype=dt), bins=4))
    rec("edges", lib.histc(lib.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype=dt), bins=4, min=0, max=4))
    rec("2d", lib.histc(x.view(5, 10), bins=3))
    rec("empty", lib.histc(lib.zeros(0, dtype=dt), bins=3))
    rec("out_range", lib.histc(x, bins=3, min=5, max=6))
    for name, fn in [
        ("int", lambda: lib.histc(lib.tensor([1, 2]), bins=2)),
        ("minmax", lambda: lib.histc(x, bins=3, min=2, max=1)),
        ("bins0", lambda: lib.histc(x, bins=0)),
        ("inf_range", lambda: lib.histc(x, bins=2, min=0, max=float("inf"))),
    ]:
        rec.err("err." + name, fn)


def p_histogram(lib, dt, rec):
    x = _randn(lib, dt, 1, 40)
    h, e = lib.histogram(x, bins=6)
    rec("h", h)
    rec("e", e)
    h, e = lib.histogram(x, bins=5, range=(-1.0, 1.0))
    rec("range.h", h)
    rec("range.e", e)
    w = _rand(lib, dt, 2, 40)
    h, e = lib.histogram(x, bins=4, weight=w)
    rec("w.h", h)
    h, e = lib.histogram(x, bins=4, density=True)
    rec("dens.h", h)
    h, e = lib.histogram(x, bins=4, weight=w, density=True)
    rec("wdens.h", h)
    bins = lib.tensor([-3.0, -0.5, 0.0, 0.25, 3.0], dtype=dt)
    h, e = lib.histogram(x, bins)
    rec("tb.h", h)
    rec("tb.e", e)
    h, e = x.histogram(bins=bins, density=True)
    rec("tb.dens", h)
    h, e = lib.histogram(x, bins=bins, weight=w)
    rec("tb.w", h)
    rec("nt", str(type(lib.histogram(x, 3)).__name__))
    r = lib.histogram(x, 3)
    rec("fields", str((r.hist.shape, r.bin_edges.shape)))
    x2 = _randn(lib, dt, 3, 30, 2)
    hd, ed = lib.histogramdd(x2, bins=[3, 4])
    rec("dd.h", hd)
    rec("dd.e0", ed[0])
    rec("dd.e1", ed[1])
    hd, ed = lib.histogramdd(x2, bins=[3, 2], range=[-1.0, 1.0, -2.0, 2.0], density=True)
    rec("dd.dens", hd)
    for name, fn in [
        ("int", lambda: lib.histogram(lib.tensor([1, 2]), 2)),
        ("bins_dec", lambda: lib.histogram(x, lib.tensor([1.0, 0.0], dtype=dt))),
        ("range_bad", lambda: lib.histogram(x, 3, range=(1.0, 0.0))),
        ("w_shape", lambda: lib.histogram(x, 3, weight=w[:3])),
        ("bins_neg", lambda: lib.histogram(x, -1)),
    ]:
        rec.err("err." + name, fn)


def p_segment_sums(lib, dt, rec):
    # a ragged batch: lengths -> segment ids; segment sums by index_add, cumsum and scatter_add
    lengths = lib.tensor([3, 1, 4, 2])
    vals = _randn(lib, dt, 1, 10, 3)
    seg = lib.repeat_interleave(lib.arange(4), lengths)
    rec("seg", seg)
    s1 = lib.zeros(4, 3, dtype=dt).index_add_(0, seg, vals)
    rec("index_add", s1)
    s2 = lib.zeros(4, 3, dtype=dt).scatter_add_(0, seg.unsqueeze(1).expand(-1, 3), vals)
    rec("scatter_add", s2)
    cs = lib.cat([lib.zeros(1, 3, dtype=dt), vals.cumsum(0)])
    ends = lengths.cumsum(0)
    starts = ends - lengths
    rec("cumsum", cs[ends] - cs[starts])
    rec("reduce_sum", lib.zeros(4, 3, dtype=dt).scatter_reduce(
        0, seg.unsqueeze(1).expand(-1, 3), vals, "sum"))
    mean = s1 / lengths.unsqueeze(1).to(dt)
    rec("mean", mean)
    rec("mean_reduce", lib.zeros(4, 3, dtype=dt).index_reduce_(0, seg, vals, "mean",
                                                                include_self=False))
    rec("segment_reduce", lib.segment_reduce(vals, "sum", lengths=lengths))
    rec("segment_max", lib.segment_reduce(vals, "max", lengths=lengths))
    offsets = lib.cat([lib.tensor([0]), ends])
    rec("segment_offsets", lib.segment_reduce(vals, "mean", offsets=offsets))
    # gradients through each spelling agree
    w = _randn(lib, dt, 2, 4, 3)
    for name, f in [
        ("ia", lambda v: lib.zeros(4, 3, dtype=dt).index_add(0, seg, v)),
        ("sa", lambda v: lib.zeros(4, 3, dtype=dt).scatter_add(
            0, seg.unsqueeze(1).expand(-1, 3), v)),
        ("cs", lambda v: (lambda c: c[ends] - c[starts])(
            lib.cat([lib.zeros(1, 3, dtype=dt), v.cumsum(0)]))),
        ("sr", lambda v: lib.segment_reduce(v, "max", lengths=lengths)),
        ("ir", lambda v: lib.zeros(4, 3, dtype=dt).index_reduce(0, seg, v, "amax",
                                                                include_self=False)),
    ]:
        va = vals.clone().requires_grad_(True)
        (f(va) * w).sum().backward()
        rec("g." + name, va.grad)
    # a segment id out of range
    rec.err("oob", lambda: lib.zeros(3, 3, dtype=dt).index_add_(0, seg, vals))
    # sorted segment ids with unique_consecutive give the lengths back
    rec("lengths_back", lib.unique_consecutive(seg, return_counts=True)[1])


def p_segment_softmax(lib, dt, rec):
    # GNN-style softmax over the incoming edges of each node (torch_scatter idiom)
    n, e = 5, 12
    dst = _ints(lib, 1, n, e)
    score = _randn(lib, dt, 2, e, 2)
    idx = dst.unsqueeze(1).expand(-1, 2)
    sa = score.clone().requires_grad_(True)
    mx = lib.full((n, 2), float("-inf"), dtype=dt).scatter_reduce(0, idx, sa, "amax",
                                                                  include_self=False)
    rec("max", mx)
    ex = (sa - mx.gather(0, idx)).exp()
    den = lib.zeros(n, 2, dtype=dt).scatter_add(0, idx, ex)
    alpha = ex / den.gather(0, idx)
    rec("alpha", alpha)
    rec("alpha_sum", lib.zeros(n, 2, dtype=dt).index_add(0, dst, alpha))
    feat = _randn(lib, dt, 3, e, 2)
    msg = lib.zeros(n, 2, dtype=dt).index_add(0, dst, alpha * feat)
    w = _randn(lib, dt, 4, n, 2)
    (msg * w).sum().backward()
    rec("msg", msg)
    rec("g_score", sa.grad)
    # node degree and mean aggregation
    deg = lib.bincount(dst, minlength=n)
    rec("deg", deg)
    agg = lib.zeros(n, 2, dtype=dt).index_add(0, dst, feat) / deg.clamp(min=1).unsqueeze(1)
    rec("mean_agg", agg)
    rec("mean_agg2", lib.zeros(n, 2, dtype=dt).scatter_reduce(0, idx, feat, "mean",
                                                              include_self=False))


def p_gradchecks(lib, dt, rec):
    if dt != lib.float64:
        rec("skip", "float32")
        return
    ac = lib.autograd
    x = _randn(lib, dt, 1, 3, 4).requires_grad_(True)
    s = _randn(lib, dt, 2, 3, 5).requires_grad_(True)
    idx = lib.tensor([[0, 0, 3, 1, 3], [2, 2, 2, 0, 1], [1, 3, 1, 3, 0]])
    perm = lib.tensor([[3, 0, 1, 2], [2, 1, 0, 3], [0, 2, 3, 1]])
    s4 = _randn(lib, dt, 7, 3, 4).requires_grad_(True)
    i1 = lib.tensor([2, 0, 2, 1, 0])
    s5 = _randn(lib, dt, 8, 3, 5).requires_grad_(True)
    m = _rand(lib, dt, 9, 3, 4) > 0.4
    cases = [
        ("scatter", lambda a, b: a.scatter(1, perm, b), (x, s4)),
        ("scatter_add", lambda a, b: a.scatter_add(1, idx, b), (x, s)),
        ("gather", lambda a: a.gather(1, idx), (x,)),
        ("index_add", lambda a, b: a.index_add(1, i1, b, alpha=0.5), (x, s5)),
        ("index_copy", lambda a, b: a.index_copy(1, lib.tensor([3, 0]), b[:, :2]), (x, s5)),
        ("index_fill", lambda a: a.index_fill(1, i1, 2.0), (x,)),
        ("masked_scatter", lambda a, b: a.masked_scatter(m, b), (x, s)),
        ("put_acc", lambda a, b: a.put(lib.tensor([0, 5, 5, -1, 2]), b[0], accumulate=True),
         (x, s)),
        ("take", lambda a: a.take(lib.tensor([0, 5, 5, -1])), (x,)),
        ("index_put_acc", lambda a, b: a.index_put((i1 % 3, i1), b[0], accumulate=True),
         (x, s)),
        ("tad", lambda a: lib.take_along_dim(a, lib.tensor([[0, 3]]), 1), (x,)),
    ]
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            cases.append((f"sr.{red}.{int(inc)}",
                          lambda a, b, r=red, i=inc: a.scatter_reduce(1, idx, b, r,
                                                                      include_self=i),
                          (x, s)))
    for red in ("prod", "mean", "amax", "amin"):
        for inc in (True, False):
            cases.append((f"ir.{red}.{int(inc)}",
                          lambda a, b, r=red, i=inc: a.index_reduce(1, i1, b, r,
                                                                    include_self=i),
                          (x, s5)))
    for name, f, args in cases:
        rec.err("gc." + name, lambda f=f, args=args: ac.gradcheck(f, args))
        rec.err("ggc." + name, lambda f=f, args=args: ac.gradgradcheck(f, args))


def p_scatter_errors(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    src = _randn(lib, dt, 2, 3, 5)
    idx = lib.tensor([[0, 1], [2, 3], [1, 1]])
    cases = [
        ("oob", lambda: x.scatter(1, lib.tensor([[0, 4]]), src)),
        ("oob_neg", lambda: x.scatter(1, lib.tensor([[0, -1]]), src)),
        ("oob_add", lambda: x.scatter_add(0, lib.tensor([[3]]), src)),
        ("oob_reduce", lambda: x.scatter_reduce(1, lib.tensor([[5]]), src, "sum")),
        ("oob_gather", lambda: x.gather(1, lib.tensor([[4]]))),
        ("oob_gather_neg", lambda: x.gather(1, lib.tensor([[-1]]))),
        ("idx_float", lambda: x.scatter(1, idx.to(dt), src)),
        ("idx_int32", lambda: x.scatter(1, idx.int(), src)),
        ("gather_int32", lambda: x.gather(1, idx.int())),
        ("src_dtype", lambda: x.scatter(1, idx, src.half())),
        ("src_dtype_add", lambda: x.scatter_add(1, idx, src.to(lib.int64))),
        ("src_dtype_reduce", lambda: x.scatter_reduce(1, idx, src.half(), "sum")),
        ("src_dtype_ip", lambda: x.clone().scatter_(1, idx, src.half())),
        ("dims", lambda: x.scatter(1, idx.view(-1), src)),
        ("dims_src", lambda: x.scatter(1, idx, src.view(-1))),
        ("dims_gather", lambda: x.gather(1, idx.view(1, 1, 6))),
        ("big_idx", lambda: x.scatter(1, lib.zeros(4, 2, dtype=lib.int64), src)),
        ("big_idx_src", lambda: x.scatter(1, lib.zeros(3, 6, dtype=lib.int64), src)),
        ("big_gather", lambda: x.gather(1, lib.zeros(4, 2, dtype=lib.int64))),
        ("dim_range", lambda: x.scatter(2, idx, src)),
        ("dim_range_g", lambda: x.gather(-3, idx)),
        ("reduce_bad", lambda: x.scatter_reduce(1, idx, src, "max")),
        ("reduce_bad2", lambda: x.scatter(1, idx, src, reduce="sum")),
        ("reduce_val_bad", lambda: x.scatter(1, idx, 1.0, reduce="mean")),
        ("scalar_src", lambda: x.scatter_add(1, idx, 1.0)),
        ("no_src", lambda: x.scatter(1, idx)),
        ("leaf_ip", lambda: x.clone().requires_grad_(True).scatter_(1, idx, src)),
        ("sparse_grad", lambda: x.gather(1, idx, sparse_grad=True).shape),
        ("gather_out_dtype", lambda: lib.gather(x, 1, idx, out=lib.empty(3, 2, dtype=lib.int64))),
        ("tad_dtype", lambda: lib.take_along_dim(x, idx.int(), 1)),
        ("tad_dims", lambda: lib.take_along_dim(x, idx.view(-1), 1)),
        ("tad_bcast", lambda: lib.take_along_dim(x, lib.zeros(2, 2, dtype=lib.int64), 1)),
    ]
    for name, fn in cases:
        rec.err(name, fn)


def p_index_errors(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 3)
    src = _randn(lib, dt, 2, 2, 3)
    idx = lib.tensor([0, 3])
    cases = [
        ("ia_oob", lambda: x.index_add(0, lib.tensor([0, 4]), src)),
        ("ia_neg", lambda: x.index_add(0, lib.tensor([0, -1]), src)),
        ("ia_float_idx", lambda: x.index_add(0, idx.to(dt), src)),
        ("ia_src_dtype", lambda: x.index_add(0, idx, src.half())),
        ("ia_src_shape", lambda: x.index_add(0, idx, src[:, :2])),
        ("ia_idx_len", lambda: x.index_add(0, lib.tensor([0, 1, 2]), src)),
        ("ia_idx_2d", lambda: x.index_add(0, idx.view(1, 2), src)),
        ("ia_dim", lambda: x.index_add(2, idx, src)),
        ("ia_alpha_int", lambda: lib.zeros(3, dtype=lib.int64).index_add(
            0, idx[:1], lib.tensor([1]), alpha=0.5)),
        ("ic_oob", lambda: x.index_copy(0, lib.tensor([0, 7]), src)),
        ("ic_dtype", lambda: x.index_copy(0, idx, src.half())),
        ("ic_shape", lambda: x.index_copy(0, idx, src[:1])),
        ("ic_int32", lambda: x.index_copy(0, idx.int(), src)),
        ("if_oob", lambda: x.index_fill(0, lib.tensor([5]), 1.0)),
        ("if_float_idx", lambda: x.index_fill(0, idx.to(dt), 1.0)),
        ("if_value_dim", lambda: x.index_fill(0, idx, lib.ones(2, dtype=dt))),
        ("if_int_float", lambda: lib.zeros(3, dtype=lib.int64).index_fill(0, idx[:1], 1.5)),
        ("ir_bad", lambda: x.index_reduce(0, idx, src, "sum")),
        ("ir_oob", lambda: x.index_reduce(0, lib.tensor([0, 9]), src, "prod")),
        ("ir_dtype", lambda: x.index_reduce(0, idx, src.half(), "amax")),
        ("ip_oob", lambda: x.index_put((lib.tensor([4]),), lib.tensor(1.0, dtype=dt),
                                       accumulate=True)),
        ("ip_oob_neg", lambda: x.index_put((lib.tensor([-5]),), lib.tensor(1.0, dtype=dt))),
        ("ip_dtype", lambda: x.index_put((idx,), src.half(), accumulate=True)),
        ("ip_shape", lambda: x.index_put((idx,), src[:, :2], accumulate=True)),
        ("ip_float_idx", lambda: x.index_put((idx.to(dt),), src, accumulate=True)),
        ("ip_too_many", lambda: x.index_put((idx, idx, idx), src[0, 0], accumulate=True)),
        ("ip_list", lambda: x.index_put([idx], src, accumulate=True).shape),
        ("ip_lead1", lambda: x.index_put((idx,), src.unsqueeze(0), accumulate=True)),
        ("ip_lead1_noacc", lambda: x.clone().index_put_((idx,), src.unsqueeze(0))),
        ("ip_lead1_pair", lambda: x.index_put((idx, idx % 3), src[:1, :2], accumulate=True)),
        ("ip_lead1_mask", lambda: x.index_put((x > 0,), lib.ones(1, 1, dtype=dt),
                                              accumulate=True)),
        ("ip_lead1_mask_fill", lambda: x.index_put((x > 0,), lib.ones(1, 1, dtype=dt)).shape),
        ("ip_bcast_ok", lambda: x.index_put((idx,), src[:1, :1], accumulate=True).shape),
        ("setitem_lead1", lambda: x.clone().__setitem__(idx, src.unsqueeze(0))),
        ("ms_dtype_mask", lambda: x.masked_scatter(x.long(), src)),
        ("ms_dtype_src", lambda: x.masked_scatter(x > 0, src.half())),
        ("ms_small_src", lambda: x.masked_scatter(lib.ones(4, 3, dtype=lib.bool), src)),
        ("ms_bcast", lambda: x.masked_scatter(lib.ones(2, 3, dtype=lib.bool), src)),
        ("ms_ip_bcast", lambda: x[0].clone().masked_scatter_(lib.ones(4, 3, dtype=lib.bool),
                                                             src)),
        ("ms_uint8", lambda: x.masked_scatter(lib.ones(4, 3, dtype=lib.uint8), src)),
        ("take_oob", lambda: x.take(lib.tensor([12]))),
        ("take_oob_neg", lambda: x.take(lib.tensor([-13]))),
        ("take_float", lambda: x.take(lib.tensor([1.0]))),
        ("take_int32", lambda: x.take(lib.tensor([1], dtype=lib.int32))),
        ("put_oob", lambda: x.clone().put_(lib.tensor([12]), src[0, :1])),
        ("put_numel", lambda: x.clone().put_(lib.tensor([1, 2]), src[0])),
        ("put_dtype", lambda: x.clone().put_(lib.tensor([1]), src[0, :1].half())),
        ("put_int32", lambda: x.clone().put_(lib.tensor([1], dtype=lib.int32), src[0, :1])),
    ]
    for name, fn in cases:
        rec.err(name, fn)


def p_misc_errors(lib, dt, rec):
    x = _randn(lib, dt, 1, 6)
    cases = [
        ("unique_bad_dim", lambda: lib.unique(x, dim=1)),
        ("uc_bad_dim", lambda: lib.unique_consecutive(x, dim=-2)),
        ("bincount_ml_float", lambda: lib.bincount(lib.tensor([1, 2]), minlength=1.5)),
        ("bincount_w_int_dtype", lambda: lib.bincount(lib.tensor([0, 1]),
                                                      weights=lib.tensor([True, False]))),
        ("histc_bins_float", lambda: lib.histc(x, bins=2.5)),
        ("histogram_w_dtype", lambda: lib.histogram(x, 3, weight=x.long())),
        ("histogram_bins_dtype", lambda: lib.histogram(x, lib.tensor([0, 1]))),
        ("histogram_bins_2d", lambda: lib.histogram(x, lib.zeros(2, 2, dtype=dt))),
        ("histogram_empty_bins", lambda: lib.histogram(x, lib.zeros(0, dtype=dt))),
        ("index_select_oob", lambda: x.index_select(0, lib.tensor([6]))),
        ("index_select_float", lambda: x.index_select(0, lib.tensor([1.0]))),
        ("getitem_oob", lambda: x[lib.tensor([7])]),
        ("setitem_oob", lambda: x.clone().__setitem__(lib.tensor([-7]), 0.0)),
        ("det_scatter_add", lambda: _deterministic(lib, lambda: lib.zeros(3, dtype=dt).scatter_add(
            0, lib.tensor([1, 1]), lib.ones(2, dtype=dt)))),
        ("det_index_add", lambda: _deterministic(lib, lambda: lib.zeros(3, dtype=dt).index_add(
            0, lib.tensor([1, 1]), lib.ones(2, dtype=dt)))),
        ("det_bincount", lambda: _deterministic(lib, lambda: lib.bincount(lib.tensor([1, 1])))),
        ("det_histc", lambda: _deterministic(lib, lambda: lib.histc(x, 3))),
        ("det_put", lambda: _deterministic(lib, lambda: lib.zeros(3, dtype=dt).put_(
            lib.tensor([1, 1]), lib.ones(2, dtype=dt), accumulate=True))),
        ("det_index_put", lambda: _deterministic(lib, lambda: lib.zeros(3, dtype=dt).index_put_(
            (lib.tensor([1, 1]),), lib.ones(2, dtype=dt), accumulate=True))),
    ]
    for name, fn in cases:
        rec.err(name, fn)


def _deterministic(lib, fn):
    """fn's result under use_deterministic_algorithms(True) (on the CPU: no error, no warning)."""
    old = lib.are_deterministic_algorithms_enabled()
    lib.use_deterministic_algorithms(True)
    try:
        return fn()
    finally:
        lib.use_deterministic_algorithms(old)


def p_out_variants(lib, dt, rec):
    x = _randn(lib, dt, 1, 3, 4)
    src = _randn(lib, dt, 2, 3, 4)
    idx = lib.tensor([[0, 0, 3, 1], [2, 2, 2, 2], [1, 3, 0, 0]])
    out = lib.empty(3, 4, dtype=dt)
    r = lib.scatter_add(x, 1, idx, src, out=out)
    rec("sa", out)
    rec("sa_same", r is out)
    out = lib.empty(0, dtype=dt)
    lib.scatter_reduce(x, 1, idx, src, "amax", include_self=False, out=out)
    rec("sr_resized", out)
    out = lib.empty(3, 4, dtype=dt)
    lib.gather(x, 1, idx, out=out)
    rec("gather", out)
    out = lib.empty(3, 4, dtype=dt)
    lib.index_add(x, 1, lib.tensor([3, 3, 0]), src[:, :3], out=out)
    rec("ia", out)
    out = lib.empty(5, dtype=dt)
    lib.take(x, lib.tensor([0, 3, 3, 11, -2]), out=out)
    rec("take", out)
    ho = lib.empty(3, dtype=dt)
    lib.histc(x, bins=3, out=ho)
    rec("histc", ho)
    rec.err("sa_out_dtype", lambda: lib.scatter_add(x, 1, idx, src,
                                                    out=lib.empty(3, 4, dtype=lib.int64)))
    rec.err("gather_out_dtype", lambda: lib.gather(x, 1, idx,
                                                   out=lib.empty(3, 4, dtype=lib.float16)))
    rec.err("take_out_dtype", lambda: lib.take(x, idx, out=lib.empty(3, 4, dtype=lib.int64)))


def p_saved_nodes(lib, dt, rec):
    """grad_fn._saved_<name> of the scatter family's nodes (graph drawers read them), and the
    version-counter error of a saved mask or index changed in place."""
    x = _randn(lib, dt, 1, 3, 4).requires_grad_(True)
    s = _randn(lib, dt, 2, 3, 5).requires_grad_(True)
    idx = lib.tensor([[0, 0, 3, 1, 3], [2, 2, 2, 0, 1], [1, 3, 1, 3, 0]])
    perm = lib.tensor([[3, 0], [2, 1], [0, 2]])

    def names(node):
        return str(sorted(k for k in dir(node) if k.startswith("_saved_")))

    for red, d in (("amax", -1), ("max", 1), ("prod", 1), ("mean", -1)):
        out = x.scatter_reduce(d, idx, s, red, include_self=red != "prod")
        n = out.grad_fn
        tag = f"sr.{red}"
        rec(tag + ".names", names(n))
        rec(tag + ".vals", str((n._saved_dim, n._saved_reduce, n._saved_include_self)))
        rec(tag + ".self", n._saved_self)
        rec(tag + ".src", n._saved_src)
        rec(tag + ".index", n._saved_index)
        rec(tag + ".result", n._saved_result)
    for red in ("prod", "mean", "amax", "amin"):
        out = x.index_reduce(-1, lib.tensor([0, 3, 3, 1, 0]), s, red, include_self=False)
        n = out.grad_fn
        tag = f"ir.{red}"
        rec(tag + ".names", names(n))
        rec(tag + ".vals", str((n._saved_dim, n._saved_reduce, n._saved_include_self)))
        rec(tag + ".source", n._saved_source)
        rec(tag + ".result", n._saved_result)
    for tag, out in (("scatter", x.scatter(-1, perm, s[:, :2])), ("value", x.scatter(1, perm, 2.0)),
                     ("add", x.scatter_add(0, idx[:, :4] % 3, s[:, :4]))):
        n = out.grad_fn
        rec(tag + ".names", names(n))
        rec(tag + ".dim", n._saved_dim)
        rec(tag + ".index", n._saved_index)

    def modified(prog):
        x = _randn(lib, dt, 3, 2, 3).requires_grad_(True)
        s = _randn(lib, dt, 4, 6).requires_grad_(True)
        return rec.err("mod", lambda: prog(x, s))

    def mask_changed(mask, inplace):
        def prog(x, s):
            y = (x * 1).masked_scatter_(mask, s) if inplace else x.masked_scatter(mask, s)
            mask.logical_not_()
            y.sum().backward()

        return prog

    modified(mask_changed(lib.tensor([True, False, True]), False))
    modified(mask_changed(lib.tensor([[True], [False]]), False))
    modified(mask_changed(lib.tensor([[True, False, True]]), True))
    modified(mask_changed(lib.tensor([[True, False, True], [False, True, True]]), False))

    def index_changed(x, s):
        i = lib.tensor([[0, 1, 1], [2, 2, 0]])
        y = x.scatter_reduce(1, i, s.view(2, 3), "amax")
        i.add_(0)
        y.sum().backward()

    modified(index_changed)

    def src_changed(x, s):
        src = s.view(2, 3) * 1
        y = x.scatter_reduce(1, lib.tensor([[0, 1, 1], [2, 2, 0]]), src, "prod")
        src.mul_(2)
        y.sum().backward()

    modified(src_changed)


def p_noncontig(lib, dt, rec):
    """Transposed, flipped, strided and expanded inputs, indices and sources."""
    x = _randn(lib, dt, 1, 4, 5)
    s = _randn(lib, dt, 2, 5, 4)
    i = _ints(lib, 3, 4, 5, 4)
    cases = {
        "t_scatter_add": lambda: x.t().scatter_add(1, i, s),
        "t_gather": lambda: x.t().gather(1, i),
        "t_reduce": lambda: x.t().scatter_reduce(1, i, s.t().t(), "amin"),
        "it_add": lambda: x.scatter_add(0, i.t(), s.t()),
        "flip_gather": lambda: x.gather(0, i.t().flip(0)),
        "strided": lambda: x.scatter_add(0, i.t()[:, ::2], s.t()[:, ::2]),
        "expanded_idx": lambda: x.scatter_add(1, lib.tensor([[1]]).expand(4, 3), s[:4, :3]),
        "ia_t": lambda: x.index_add(1, lib.tensor([4, 0]), s.t()[:, :2]),
        "ia_expanded": lambda: x.index_add(0, lib.tensor([1]).expand(3), s.t()[:3]),
        "ic_t": lambda: x.t().index_copy(1, lib.tensor([3, 0]), s[:, 1:3]),
        "ms_t": lambda: x.t().masked_scatter(x.t() > 0, s),
        "take_t": lambda: x.t().take(i),
        "put_t": lambda: x.t().put(i[:2].t(), s[:2].t(), accumulate=True),
        "ip_t": lambda: x.t().index_put((i[:, 0], lib.tensor([3])), s[0, :1], accumulate=True),
        "unique_t": lambda: lib.unique(x.t().round(), dim=1, return_inverse=True),
        "bincount_strided": lambda: lib.bincount(i.t().reshape(-1)[::3], weights=s.reshape(-1)[:7]),
        "flip_mul": lambda: x.flip(1).scatter_(1, i[:4].flip(0).remainder(5), s[:4].flip(1),
                                               reduce="multiply"),
        "if_neg": lambda: x.index_fill(-1, lib.tensor([-5, -1]), 3),
        "ia_neg": lambda: x.index_add(0, lib.tensor([-1, -4]), x[:2]),
        "ir_neg": lambda: x.index_reduce(0, lib.tensor([-1, -4]), x[:2], "amin"),
        "take_neg": lambda: x.take(lib.tensor([-20])),
    }
    for name, fn in cases.items():
        out = rec.err(name, fn)  # (torch refuses some negative indices)
        for k, v in enumerate(out if isinstance(out, tuple) else (out,) if out is not None else ()):
            rec(f"{name}.{k}", v)


def _grads2(lib, dt, f, *shapes):
    """f's value, first gradients (create_graph) and the gradients of their squared norm."""
    ins = []
    for k, shape in enumerate(shapes):
        n = 1
        for d in shape:
            n *= d
        x = lib.linspace(-1.3, 2.1, n, dtype=dt) + 0.1 * k
        ins.append(x.view(shape).requires_grad_(True))
    out = f(*ins)
    w = lib.linspace(0.5, 1.5, out.numel(), dtype=dt).view(out.shape)
    g = lib.autograd.grad((out * w).sum(), ins, create_graph=True, allow_unused=True)
    live = [t for t in g if t is not None and t.requires_grad]
    g2 = lib.autograd.grad(sum((t * t).sum() for t in live), ins, allow_unused=True)
    return [out, *g, *g2]


def p_double_backward(lib, dt, rec):
    idx = lib.tensor([[0, 0, 2, 1], [1, 1, 1, 0]])
    i3 = lib.tensor([1, 1, 0])
    cases = [
        ("sr_amax", lambda a, b: a.scatter_reduce(1, idx, b * b, "amax"), (2, 3), (2, 4)),
        ("sr_prod", lambda a, b: a.scatter_reduce(1, idx, b, "prod"), (2, 3), (2, 4)),
        ("sr_prod_ex", lambda a, b: a.scatter_reduce(1, idx, b, "prod", include_self=False),
         (2, 3), (2, 4)),
        ("sr_mean", lambda a, b: (a * a).scatter_reduce(1, idx, b * b, "mean"), (2, 3), (2, 4)),
        ("ir_prod", lambda a, b: a.index_reduce(0, i3, b, "prod"), (2, 3), (3, 3)),
        ("ir_amax", lambda a, b: a.index_reduce(0, i3, b * b, "amax"), (2, 3), (3, 3)),
        ("ir_mean", lambda a, b: (a * a).index_reduce(0, i3, b, "mean", include_self=False),
         (2, 3), (3, 3)),
        ("if", lambda a, v: (a * a).index_fill(1, lib.tensor([0, 0, 2]), v * v), (2, 3), ()),
        ("ms", lambda a, b: a.masked_scatter(lib.tensor([[True, False, True]]), b * b),
         (2, 3), (5,)),
        ("put", lambda a, b: (a * a).put(lib.tensor([0, 4, 4]), b * b, accumulate=True),
         (2, 3), (3,)),
        ("ip", lambda a, b: (a * a).index_put((lib.tensor([0, 0]), lib.tensor([1, 1])), b * b,
                                              accumulate=True), (2, 3), (2,)),
        ("tad", lambda a: lib.take_along_dim(a * a, lib.tensor([[0, 2, 2]]), 0), (2, 3)),
        ("take", lambda a: (a * a).take(lib.tensor([[0, 0], [5, -1]])), (2, 3)),
        ("ic", lambda a, b: (a * a).index_copy(1, lib.tensor([2, 0]), b * b), (2, 3), (2, 2)),
        ("ia", lambda a, b: (a * a).index_add(1, lib.tensor([2, 2]), b * b, alpha=-2),
         (2, 3), (2, 2)),
        ("sa", lambda a, b: (a * a).scatter_add(1, idx, b * b), (2, 3), (2, 4)),
        ("sv", lambda a: (a * a).scatter(1, lib.tensor([[0, 2]]), 3.0), (2, 3)),
    ]
    for name, f, *shapes in cases:
        for k, v in enumerate(_grads2(lib, dt, f, *shapes)):
            rec(f"{name}.{k}", "None" if v is None else v)


def p_argument_calls(lib, rec):
    """Argument-type errors as a user's line spells the call (keywords read from its bytecode)."""
    env = {
        "torch": lib,
        "x": lib.zeros(2, 3),
        "i": lib.tensor([0, 0]),
        "i2": lib.tensor([[0, 1], [2, 2]]),
        "s": lib.ones(2, 2),
    }
    cases = [
        "x.scatter(1, i2, src=2.0)", "x.scatter_(1, i2, src=2.0)",
        "torch.scatter(x, 1, i2, src=2.0)", "x.scatter(1, i2, 2.0)",
        "x.scatter_(1, i2, src=2, reduce='add')", "x.scatter(1, i2, src=True)",
        "torch.scatter(x, 1, i2, src=2.0, reduce='multiply')",
        "x.scatter(dim=1, index=i2, src=1.5)", "x.scatter(1, i2, value=2.0)",
        "x.index_reduce(1, i, s, None)", "torch.index_reduce(x, 1, i, s, None)",
        "x.index_reduce_(1, i, s, None)", "x.index_reduce(1, i, s, 'prod', include_self=None)",
        "torch.index_reduce(x, 1, i, s, 'prod', include_self=1)",
        "x.index_reduce_(1, i, s, 'prod', include_self='a')", "x.index_reduce(1.5, i, s, 'prod')",
        "x.index_reduce(1, [0, 0], s, 'prod')", "x.index_reduce(1, i, [1.0], 'prod')",
        "x.index_reduce_(1, i, [1.0], 'prod')", "torch.index_reduce([1.0], 1, i, s, 'prod')",
        "x.index_reduce(1, i, s, 5)", "x.index_reduce(1, i, s, 'foo')",
        "x.index_reduce_(1, i, s, 'foo')",
        "x.index_reduce(dim=1, index=i, source=s, reduce='amax')",
        "x.scatter_reduce(1, i2, s, None)", "torch.scatter_reduce(x, 1.5, i2, s, 'sum')",
        "x.scatter_reduce_(1, i2, s, 'sum', include_self=None)",
    ]  # fmt: skip
    run_calls(cases, env, rec)
