"""Every op-table row on non-contiguous inputs: the same values in other memory layouts must give
the same results and gradients, and leave the inputs alone; in-place ops through strided views
must write exactly where the view points.

The op tables (tests/ops/specs_*.py, run by test_ops.py) feed freshly made contiguous arrays, so a
kernel that assumes contiguity (a raw reshape that copies and is then written to, as_strided on a
strided base, out= into a view, a cached stride) passes them. Here each tensor input of a row's
float64 case is rebuilt, holding the same values, as
- "transposed": a contiguous copy with reversed axes, permuted back (reversed strides; ndim >= 2);
- "stepped": the [..., ::2] slice of a tensor twice as long in the last dim;
- "offset": the [1:] slice of a tensor one longer in dim 0;
- "expanded": a size-1 slice `.expand`ed along the last dim (the contiguous run then uses the
  same repeated values; rows that reject such inputs are skipped);
- "mixed": a different one of the first three for each input;
and the upstream gradient of the backward pass gets the same layout (second derivatives are
compared once, on "mixed"). Every result must also have no negative strides and share an input's
memory only as a registered view of it. test_inplace_through_strided_view applies in-place ops
and out= to strided views of a bigger tensor and compares the whole base with NumPy.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import minitorch as mt
from tests.ops.test_ops import (
    SPECS,
    as_list,
    dtype_cases,
    grad_case,
    grad_inputs,
    make_arrays,
)

# float64 on the same values: only the summation order (BLAS blocking, pairwise sums over a
# different axis order) may differ
RTOL, ATOL = 1e-10, 1e-12

LAYOUTS = ("transposed", "stepped", "offset", "mixed")
# "mixed": input i takes _MIXED[i % 3] (a kernel that compares or combines the strides of two
# inputs), the upstream gradient is stepped
_MIXED = ("stepped", "transposed", "offset")

# {spec name: {layout: reason}}: known layout bugs, strict xfails
XFAIL: dict[str, dict[str, str]] = {}

_NO_VIEW = "view size is not compatible with input tensor's size and stride"
# {spec name: {layout: message}}: rows that must refuse the layout, as torch does (checked
# against torch 2.13): a view that cannot be expressed by the input's strides
# Rows whose refusal rests on an elementwise result keeping a permuted input's strides, as
# torch's (and NumPy's) do; CuPy's results are row-major, so on a GPU the view is allowed.
GPU_LAYOUT_ROWS = {"inplace_through_view_shape"}
REFUSED: dict[str, dict[str, str]] = {
    **{
        name: {"transposed": _NO_VIEW, "expanded": _NO_VIEW}
        for name in ("view", "view_infer", "view_tuple", "view_as")
    },
    "inplace_through_view_shape": {"transposed": _NO_VIEW},
    "mul_inplace_through_view": {"transposed": _NO_VIEW, "expanded": _NO_VIEW, "mixed": _NO_VIEW},
}
for _name in (
    "as_strided",
    "as_strided_overlap",
    "as_strided_of_view",
    "as_strided_copy",
    "as_strided_default_offset",
):
    # the expanded input's storage is one column: the strides run past its end (torch agrees)
    REFUSED.setdefault(_name, {})["expanded"] = "out of bounds for storage"

# rows whose values depend on the memory layout by contract: as_strided reads the storage under
# the input (test_as_strided_reads_storage checks that), so they are not compared here
STORAGE_ROWS = {
    "as_strided",
    "as_strided_overlap",
    "as_strided_of_view",
    "as_strided_copy",
    "as_strided_default_offset",
    "as_strided_inplace",
}


def _filler(a):
    """Values for the storage a view does not cover: plausible (valid indices stay valid) but
    wrong, so a kernel that reads outside the view gives a different answer."""
    f = np.flip(a, axis=-1) if a.ndim else a
    return f + 3 if a.dtype.kind == "f" else f.copy()


def _layout_tensor(a, layout, device):
    """A tensor holding the values of array `a` in `layout`, or None where the layout does not
    apply to `a` (0-d inputs, ndim < 2 for "transposed")."""
    if layout == "transposed":
        if a.ndim < 2:
            return None
        axes = tuple(reversed(range(a.ndim)))
        return mt.tensor(np.ascontiguousarray(a.transpose(axes)), device=device).permute(*axes)
    if layout == "stepped":
        if a.ndim == 0:
            return None
        wide = np.concatenate([a[..., None], _filler(a)[..., None]], axis=-1)
        wide = wide.reshape(*a.shape[:-1], 2 * a.shape[-1])
        return mt.tensor(wide, device=device)[..., ::2]
    if layout == "offset":
        if a.ndim == 0:
            return None
        pad = _filler(a)[-1:] if a.shape[0] else np.zeros((1, *a.shape[1:]), a.dtype)
        return mt.tensor(np.concatenate([pad, a], axis=0), device=device)[1:]
    if layout == "expanded":
        if a.ndim == 0 or a.shape[-1] < 2:
            return None
        return mt.tensor(np.ascontiguousarray(a[..., :1]), device=device).expand(*a.shape)
    raise AssertionError(layout)


def _host(t):
    return t.detach().cpu().numpy().copy()


def _run(spec, tensors, wanted, grads_from, device, second=False):
    """(outputs as host arrays or plain values, gradients of the wanted inputs) for one run.
    grads_from(k, shape) makes the upstream gradient of floating output k in some layout.
    second: the gradients also hold those of sum(first gradients * random weights)."""
    mt.manual_seed(0)
    outs = as_list(spec.op(*tensors, **spec.kwargs))
    _no_negative_strides(spec, "output", outs)
    if device == "cpu":
        _no_hidden_alias(spec, outs, tensors)
    values = [(_host(o), o.dtype) if isinstance(o, mt.Tensor) else o for o in outs]
    diff = [
        (o, grads_from(k, tuple(o.shape)))
        for k, o in enumerate(outs)
        if isinstance(o, mt.Tensor) and o.requires_grad
    ]
    grads = []
    if diff and wanted:
        xs = [tensors[i] for i in wanted]
        got = mt.autograd.grad(
            [o for o, _ in diff], xs, [g for _, g in diff], allow_unused=True, create_graph=second
        )
        _no_negative_strides(spec, "gradient", got)
        grads = [None if g is None else _host(g) for g in got]
        if second:
            grads += _second_grads(spec, got, xs, device)
    return values, grads


def _second_grads(spec, firsts, xs, device):
    rng = np.random.default_rng(zlib.crc32(spec.name.encode()) + 99)
    total = None
    for g in firsts:
        if g is not None and g.requires_grad:
            w = mt.tensor(rng.uniform(-1.0, 1.0, size=tuple(g.shape)), device=device)
            total = (g * w).sum() if total is None else total + (g * w).sum()
    if total is None:
        return []
    got = mt.autograd.grad([total], xs, allow_unused=True)
    _no_negative_strides(spec, "second gradient", got)
    return [None if g is None else _host(g) for g in got]


def _root(t):
    return t._base if t._base is not None else t


def _no_hidden_alias(spec, outs, inputs):
    """An output sharing an input's memory must be a registered view of it (same base, so the
    version counter is shared); a bare NumPy view would let an in-place op on the output change
    a saved input unseen."""
    for k, o in enumerate(outs):
        if not isinstance(o, mt.Tensor) or o._data.size == 0:
            continue
        for i, t in enumerate(inputs):
            if np.shares_memory(o._data, t._data):
                assert _root(o) is _root(t), (
                    f"{spec.name}: output {k} shares input {i}'s memory but is not its view"
                )


def _no_negative_strides(spec, what, tensors):
    """torch has no negative strides: a NumPy view with one (a flip) must not leak into a
    result, where .stride(), .numpy() and from_numpy would disagree with torch."""
    for k, t in enumerate(tensors):
        if isinstance(t, mt.Tensor):
            strides = t._data.strides
            assert min(strides, default=0) >= 0, f"{spec.name}: {what} {k} has strides {strides}"


def _upstream(spec, layout, device):
    """Upstream gradients: the same random values for every layout of a spec."""

    def make(k, shape):
        seed = zlib.crc32(spec.name.encode()) + 7 + k
        g = np.random.default_rng(seed).uniform(-1.0, 1.0, size=shape)
        # an expanded upstream gradient would hold other values than the contiguous run's
        t = None
        if layout not in (None, "expanded"):
            t = _layout_tensor(g, "stepped" if layout == "mixed" else layout, device)
        return mt.tensor(g, device=device) if t is None else t

    return make


def _compare(where, want, got):
    want_values, want_grads = want
    got_values, got_grads = got
    assert len(want_values) == len(got_values), f"{where}: number of outputs"
    for k, (w, g) in enumerate(zip(want_values, got_values, strict=True)):
        if not isinstance(w, tuple):
            assert w == g, f"{where}: output {k} {g!r} != {w!r}"
            continue
        (wa, wd), (ga, gd) = w, g
        assert gd == wd, f"{where}: output {k} dtype {gd}, contiguous {wd}"
        assert ga.shape == wa.shape, f"{where}: output {k} shape {ga.shape}, contiguous {wa.shape}"
        _close(ga, wa, f"{where}: output {k}")
    assert len(want_grads) == len(got_grads), f"{where}: number of gradients"
    for i, (w, g) in enumerate(zip(want_grads, got_grads, strict=True)):
        assert (w is None) == (g is None), f"{where}: gradient {i} None-ness"
        if w is not None:
            assert g.shape == w.shape, (
                f"{where}: gradient {i} shape {g.shape}, contiguous {w.shape}"
            )
            _close(g, w, f"{where}: gradient {i}")


def _close(got, want, msg):
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=msg)
    else:
        np.testing.assert_array_equal(got, want, err_msg=msg)


def _layout_run(spec, arrays, layout, wanted, device, second=False):
    """Run spec on `arrays` rebuilt in `layout`: (result, the bases' values before, after), or
    None when no input takes the layout."""
    tensors, bases = [], []
    for i, a in enumerate(arrays):
        t = _layout_tensor(a, _MIXED[i % 3] if layout == "mixed" else layout, device)
        if t is None:
            t = mt.tensor(a, device=device)
        tensors.append(t)
        bases.append(t._base if t._base is not None else t)
    if all(t.is_contiguous() for t in tensors) and layout != "expanded":
        return None
    for i in wanted:
        tensors[i].requires_grad_()
    before = [_host(b) for b in bases]
    result = _run(spec, tensors, wanted, _upstream(spec, layout, device), device, second)
    after = [_host(b) for b in bases]
    return result, before, after


def _contiguous_run(spec, arrays, wanted, device, second=False):
    tensors = [mt.tensor(a, device=device, requires_grad=i in wanted) for i, a in enumerate(arrays)]
    return _run(spec, tensors, wanted, _upstream(spec, None, device), device, second)


def _check_layout(spec, arrays, layout, wanted, device, want, second=False):
    case = f"{spec.name} [{layout}{' 2nd order' if second else ''}] on {device}"
    refused = REFUSED.get(spec.name, {}).get(layout)
    if refused is not None and device.startswith("cuda") and spec.name in GPU_LAYOUT_ROWS:
        return  # CuPy's elementwise results of a permuted input are row-major: view() works
    if refused is not None:
        with pytest.raises(RuntimeError, match=refused):
            _layout_run(spec, arrays, layout, wanted, device, second)
        return
    if spec.name in STORAGE_ROWS:
        return
    reason = XFAIL.get(spec.name, {}).get(layout)
    try:
        got = _layout_run(spec, arrays, layout, wanted, device, second)
        if got is None:
            return
        result, before, after = got
        _compare(case, want, result)
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            _close(a, b, f"{case}: input {i} was modified")
    except Exception:
        if reason is not None:
            pytest.xfail(reason)
        raise
    if reason is not None:
        pytest.fail(f"{case}: XPASS(strict) {reason}")


@pytest.mark.parametrize("spec", [pytest.param(s, id=s.name) for s in SPECS])
def test_layouts(spec, device):
    case = grad_case(spec)
    arrays = make_arrays(spec, case)
    wanted = grad_inputs(spec, case)
    want = _contiguous_run(spec, arrays, wanted, device)
    for layout in LAYOUTS:
        _check_layout(spec, arrays, layout, wanted, device, want)
    _check_expanded(spec, case, wanted, device)
    _check_other_dtypes(spec, case, device)
    if spec.gradgrad and wanted:
        # second derivatives once, on the mixed layout (backward's own saved strided inputs)
        want = _contiguous_run(spec, arrays, wanted, device, second=True)
        _check_layout(spec, arrays, "mixed", wanted, device, want, second=True)


def _check_other_dtypes(spec, checked, device):
    """Forward only, for the dtype cases with integer or bool inputs (integer kernels, masks)."""
    for case in dtype_cases(spec):
        names = tuple("float64" if getattr(mt, n).is_floating_point else n for n in case)
        if names == checked or all(n == "float64" for n in names):
            continue
        arrays = make_arrays(spec, names)
        with np.errstate(all="ignore"):  # integer division by zero, as in test_ops
            try:
                want = _contiguous_run(spec, arrays, [], device)
            except Exception:
                continue  # a case that refuses these dtypes (tested by test_ops)
            for layout in LAYOUTS:
                _check_layout(spec, arrays, layout, [], device, want)
        checked = names


def _check_expanded(spec, case, wanted, device):
    arrays = [
        np.ascontiguousarray(np.broadcast_to(a[..., :1], a.shape)) if a.ndim and a.shape[-1] else a
        for a in make_arrays(spec, case)
    ]
    if all(a.ndim == 0 or a.shape[-1] < 2 for a in arrays):
        return
    wanted = grad_inputs(spec, case)
    with np.errstate(all="ignore"):  # repeated values: singular matrices, zero variances
        try:
            want = _contiguous_run(spec, arrays, wanted, device)
        except Exception:
            return  # the row rejects repeated values (a singular matrix, ties in a sort...)
        _check_layout(spec, arrays, "expanded", wanted, device, want)


# --- in-place ops and out= through strided views of a bigger tensor ---

# view name -> (base shape, the view's key); every view is (3, 4) and non-contiguous
VIEWS = {
    "transposed": ((4, 3), "t"),
    "stepped": ((3, 8), (slice(None), slice(None, None, 2))),
    "offset_stepped": ((5, 9), (slice(1, 4), slice(1, 9, 2))),
    "transposed_sliced": ((6, 4), "t_sliced"),
}


def _view_of(base, key):
    """The (3, 4) view of `base` (a minitorch tensor or a NumPy array)."""
    if key == "t":
        return base.t() if isinstance(base, mt.Tensor) else base.T
    if key == "t_sliced":
        v = base.t() if isinstance(base, mt.Tensor) else base.T
        return v[1:, 1:5]
    return base[key]


def _r(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2.0, 2.0, size=shape)


_IDX = np.array([2, 0])
_MASK = _r(3, 4, seed=5) > 0
_ROWS = np.array([[0, 2, 1, 0], [1, 1, 2, 2]])


def _np_put(v, idx, src, accumulate):
    flat = v.reshape(-1).copy()
    if accumulate:
        np.add.at(flat, idx, src)
    else:
        flat[idx] = src
    v[...] = flat.reshape(v.shape)


def _np_scatter(v, idx, src, add):
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            if add:
                v[idx[i, j], j] += src[i, j]
            else:
                v[idx[i, j], j] = src[i, j]


# name -> (minitorch in-place op on the view (with tensors from `T`), NumPy doing the same)
# T(array) makes a tensor on the test's device.
INPLACE = {
    "add_": (
        lambda v, T: v.add_(T(_r(3, 4, seed=1)), alpha=2),
        lambda v: v.__iadd__(2 * _r(3, 4, seed=1)),
    ),
    "add_bcast": (lambda v, T: v.add_(T(_r(4, seed=1))), lambda v: v.__iadd__(_r(4, seed=1))),
    "add_self_t": (
        lambda v, T: v[:2, :2].add_(v[:2, :2].t()),
        lambda v: v[:2, :2].__iadd__(v[:2, :2].T.copy()),
    ),
    "sub_": (lambda v, T: v.sub_(T(_r(3, 4, seed=1))), lambda v: v.__isub__(_r(3, 4, seed=1))),
    "mul_": (lambda v, T: v.mul_(3.0), lambda v: v.__imul__(3.0)),
    "div_": (
        lambda v, T: v.div_(T(_r(3, 1, seed=2) + 3)),
        lambda v: v.__itruediv__(_r(3, 1, seed=2) + 3),
    ),
    "pow_": (lambda v, T: v.pow_(2), lambda v: v.__ipow__(2)),
    "neg_": (lambda v, T: v.neg_(), lambda v: np.negative(v, out=v)),
    "exp_": (lambda v, T: v.exp_(), lambda v: np.exp(v, out=v)),
    "sigmoid_": (lambda v, T: v.sigmoid_(), lambda v: v.__setitem__(..., 1 / (1 + np.exp(-v)))),
    "relu_": (lambda v, T: v.relu_(), lambda v: np.maximum(v, 0, out=v)),
    "clamp_": (lambda v, T: v.clamp_(-0.5, 0.5), lambda v: np.clip(v, -0.5, 0.5, out=v)),
    "clamp_min_": (lambda v, T: v.clamp_min_(0.1), lambda v: np.maximum(v, 0.1, out=v)),
    "zero_": (lambda v, T: v.zero_(), lambda v: v.fill(0)),
    "fill_": (lambda v, T: v.fill_(7.0), lambda v: v.fill(7.0)),
    "copy_": (
        lambda v, T: v.copy_(T(_r(3, 4, seed=3))),
        lambda v: v.__setitem__(..., _r(3, 4, seed=3)),
    ),
    "copy_from_t": (
        lambda v, T: v.copy_(T(_r(4, 3, seed=3)).t()),
        lambda v: v.__setitem__(..., _r(4, 3, seed=3).T),
    ),
    "copy_bcast": (
        lambda v, T: v.copy_(T(_r(4, seed=3))),
        lambda v: v.__setitem__(..., _r(4, seed=3)),
    ),
    "lerp_": (
        lambda v, T: v.lerp_(T(_r(3, 4, seed=3)), 0.25),
        lambda v: v.__iadd__(0.25 * (_r(3, 4, seed=3) - v)),
    ),
    "addcmul_": (
        lambda v, T: v.addcmul_(T(_r(3, 4, seed=3)), T(_r(3, 4, seed=4)), value=0.5),
        lambda v: v.__iadd__(0.5 * _r(3, 4, seed=3) * _r(3, 4, seed=4)),
    ),
    "tril_": (lambda v, T: v.tril_(), lambda v: v.__setitem__(..., np.tril(v))),
    "triu_": (lambda v, T: v.triu_(1), lambda v: v.__setitem__(..., np.triu(v, 1))),
    "cumsum_": (lambda v, T: v.cumsum_(1), lambda v: v.__setitem__(..., np.cumsum(v, 1))),
    "setitem_int": (lambda v, T: v.__setitem__(1, 5.0), lambda v: v.__setitem__(1, 5.0)),
    "setitem_slice": (
        lambda v, T: v.__setitem__((slice(None), slice(1, 3)), T(_r(3, 2))),
        lambda v: v.__setitem__((slice(None), slice(1, 3)), _r(3, 2)),
    ),
    "setitem_mask": (
        lambda v, T: v.__setitem__(T(_MASK), 9.0),
        lambda v: v.__setitem__(_MASK, 9.0),
    ),
    "setitem_index": (
        lambda v, T: v.__setitem__(T(_IDX), T(_r(2, 4))),
        lambda v: v.__setitem__(_IDX, _r(2, 4)),
    ),
    "setitem_index_col": (
        lambda v, T: v.__setitem__((slice(None), T(_IDX)), T(_r(3, 2))),
        lambda v: v.__setitem__((slice(None), _IDX), _r(3, 2)),
    ),
    "index_put_": (
        lambda v, T: v.index_put_((T(_IDX), T(np.array([1, 3]))), T(_r(2))),
        lambda v: v.__setitem__((_IDX, np.array([1, 3])), _r(2)),
    ),
    "index_put_acc": (
        lambda v, T: v.index_put_((T(np.array([0, 0, 2])),), T(_r(3, 4)), accumulate=True),
        lambda v: np.add.at(v, np.array([0, 0, 2]), _r(3, 4)),
    ),
    "masked_fill_": (
        lambda v, T: v.masked_fill_(T(_MASK), -1.0),
        lambda v: v.__setitem__(_MASK, -1.0),
    ),
    "masked_scatter_": (
        lambda v, T: v.masked_scatter_(T(_MASK), T(_r(12, seed=6))),
        lambda v: v.__setitem__(_MASK, _r(12, seed=6)[: _MASK.sum()]),
    ),
    "index_add_": (
        lambda v, T: v.index_add_(1, T(np.array([3, 0, 3])), T(_r(3, 3))),
        lambda v: np.add.at(v, (slice(None), np.array([3, 0, 3])), _r(3, 3)),
    ),
    "index_copy_": (
        lambda v, T: v.index_copy_(0, T(_IDX), T(_r(2, 4))),
        lambda v: v.__setitem__(_IDX, _r(2, 4)),
    ),
    "index_fill_": (
        lambda v, T: v.index_fill_(1, T(_IDX), 4.0),
        lambda v: v.__setitem__((slice(None), _IDX), 4.0),
    ),
    "scatter_": (
        lambda v, T: v.scatter_(0, T(_ROWS), T(_r(2, 4))),
        lambda v: _np_scatter(v, _ROWS, _r(2, 4), add=False),
    ),
    "scatter_add_": (
        lambda v, T: v.scatter_add_(0, T(_ROWS), T(_r(2, 4))),
        lambda v: _np_scatter(v, _ROWS, _r(2, 4), add=True),
    ),
    "put_": (
        lambda v, T: v.put_(T(np.array([0, 5, 11])), T(_r(3))),
        lambda v: _np_put(v, np.array([0, 5, 11]), _r(3), False),
    ),
    "put_acc": (
        lambda v, T: v.put_(T(np.array([5, 5, 1])), T(_r(3)), accumulate=True),
        lambda v: _np_put(v, np.array([5, 5, 1]), _r(3), True),
    ),
    "fill_diagonal_": (
        lambda v, T: v.fill_diagonal_(3.0),
        lambda v: v.__setitem__((np.arange(3), np.arange(3)), 3.0),
    ),
    "addmm_": (
        lambda v, T: v.addmm_(T(_r(3, 2)), T(_r(2, 4)), beta=0.5),
        lambda v: v.__setitem__(..., 0.5 * v + _r(3, 2) @ _r(2, 4)),
    ),
    "nan_to_num_": (lambda v, T: v.nan_to_num_(), lambda v: None),
    "out_add": (
        lambda v, T: mt.add(T(_r(3, 4)), T(_r(3, 4, seed=1)), out=v),
        lambda v: np.add(_r(3, 4), _r(3, 4, seed=1), out=v),
    ),
    "out_exp": (lambda v, T: mt.exp(T(_r(3, 4)), out=v), lambda v: np.exp(_r(3, 4), out=v)),
    "out_matmul": (
        lambda v, T: mt.matmul(T(_r(3, 2)), T(_r(2, 4)), out=v),
        lambda v: v.__setitem__(..., _r(3, 2) @ _r(2, 4)),
    ),
    "out_sum": (
        lambda v, T: mt.sum(T(_r(3, 4, 2)), dim=2, out=v),
        lambda v: v.__setitem__(..., _r(3, 4, 2).sum(2)),
    ),
    "out_cat": (
        lambda v, T: mt.cat([T(_r(1, 4)), T(_r(2, 4))], out=v),
        lambda v: v.__setitem__(..., np.concatenate([_r(1, 4), _r(2, 4)])),
    ),
    "out_where": (
        lambda v, T: mt.where(T(_MASK), T(_r(3, 4)), T(np.zeros(())), out=v),
        lambda v: v.__setitem__(..., np.where(_MASK, _r(3, 4), 0.0)),
    ),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_through_strided_view(name, view, device):
    """The base changes exactly where the view points, as NumPy's does on the same view."""
    op, ref = INPLACE[name]
    shape, key = VIEWS[view]
    start = np.random.default_rng(11).uniform(-2.0, 2.0, size=shape)
    base = mt.tensor(start, device=device)
    v = _view_of(base, key)
    assert tuple(v.shape) == (3, 4) and not v.is_contiguous()
    version = v._version
    op(v, lambda a: mt.tensor(a, device=device))
    want = start.copy()
    ref(_view_of(want, key))
    where = f"{name} through a {view} view on {device}"
    np.testing.assert_allclose(_host(base), want, rtol=1e-12, atol=1e-12, err_msg=where)
    np.testing.assert_allclose(_host(v), _view_of(want, key), rtol=1e-12, atol=1e-12, err_msg=where)
    assert v._version > version or name == "nan_to_num_", f"{where}: version counter not bumped"


@pytest.mark.parametrize("view", list(VIEWS))
def test_as_strided_reads_storage(view, device):
    """as_strided on a strided view reads the memory under it (its base's), as torch does."""
    shape, key = VIEWS[view]
    start = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    v = _view_of(mt.tensor(start, device=device), key)
    got = v.as_strided((2, 3), (2, 1), 1)
    want = np.lib.stride_tricks.as_strided(start.reshape(-1)[1:], (2, 3), (16, 8))
    np.testing.assert_array_equal(_host(got), want, err_msg=f"as_strided of a {view} view")


def test_new_memory_comes_out_row_major_as_torchs():
    # .view() on these failed (NumPy laid the result out after its input or its contraction)
    x = mt.arange(24.0).reshape(2, 3, 4)
    for r in (
        x[:, [0, 2]],
        x[:, :, [0, 2]],
        x.index_select(2, mt.tensor([0, 2])),
        mt.einsum("ij,jk->ik", mt.ones(3, 4), mt.ones(4, 5)),
        mt.einsum("bij,bjk->bik", mt.ones(2, 3, 4), mt.ones(2, 4, 5)),
        x.transpose(1, 2).softmax(-1),
        x.transpose(1, 2).log_softmax(-1),
        mt.nn.functional.pad(x, (1, 1), mode="replicate"),
    ):
        assert r.is_contiguous(), r.stride()
        r.view(-1)
