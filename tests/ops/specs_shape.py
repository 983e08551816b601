"""Op-test rows for the shape ops (minitorch/_ops/shape.py, shape_join.py, shape_more.py)."""

from __future__ import annotations

import itertools

import numpy as np

import minitorch as mt
from tests.ops.spec import OpSpec


def _torch(make):
    """The op built for torch; torch is imported only when a reference test calls it."""

    def op(*args, **kwargs):
        import torch

        return make(torch)(*args, **kwargs)

    return op


def row(name, make, ref, shapes, torch=True, **kw) -> OpSpec:
    """A spec whose minitorch and torch ops are the same code: make(lib) -> callable
    (torch=False where torch refuses what minitorch computes)."""
    torch_op = _torch(make) if torch else None
    return OpSpec(name=name, op=make(mt), ref=ref, shapes=shapes, torch_op=torch_op, **kw)


def vjp_row(name, make_view, out_shape, in_shape, ref, **kw) -> OpSpec:
    """A row whose op is the backward of a view: g -> d(view(x))/dx^T g, built with
    create_graph=True so that the backward's own Function is tested (and twice differentiated)."""

    def make(T):
        def op(g):
            x = T.zeros(in_shape, dtype=g.dtype, device=g.device, requires_grad=True)
            return T.autograd.grad(make_view(T)(x), x, g, create_graph=True)[0]

        return op

    return row(name, make, ref, [out_shape], **kw)


FLOATS = ("float32", "float64")
ALL = ("float32", "float64", "int64", "bool")


def _m(name, *args, **kw):
    """a.name(*args, **kw) for both libraries."""
    return lambda T: lambda a: getattr(a, name)(*args, **kw)


def _f(name, *args, **kw):
    """T.name(a, *args, **kw) for both libraries."""
    return lambda T: lambda a: getattr(T, name)(a, *args, **kw)


def _f_list(name, *args, **kw):
    """T.name([a, b, ...], *args, **kw) for both libraries."""
    return lambda T: lambda *xs: getattr(T, name)(list(xs), *args, **kw)


# --- NumPy references ---


def _squeeze_dims(a, dims):
    return a.reshape([s for i, s in enumerate(a.shape) if not (i in dims and s == 1)])


def _split_ref(sizes, dim):
    return lambda a: np.split(a, np.cumsum(sizes)[:-1], axis=dim)


def _unbind_ref(dim):
    return lambda a: [np.take(a, i, axis=dim) for i in range(a.shape[dim])]


def _narrow_pad(shape, dim, start):
    def ref(g):
        out = np.zeros(shape, g.dtype)
        key = [slice(None)] * len(shape)
        key[dim] = slice(start, start + g.shape[dim])
        out[tuple(key)] = g
        return out

    return ref


def _diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    i = np.arange(a.shape[-1])
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., r, c] = a
    return np.moveaxis(out, (-2, -1), (dim1, dim2)) if (dim1, dim2) != (-2, -1) else out


def _unfold_ref(dim, size, step):
    def ref(a):
        w = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
        key = [slice(None)] * w.ndim
        key[dim] = slice(None, None, step)
        return w[tuple(key)]

    return ref


def _as_strided_ref(size, stride, offset):
    def ref(a):
        flat = np.ascontiguousarray(a).reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(
            flat, size, [s * flat.itemsize for s in stride]
        ).copy()

    return ref


def _as_strided_backward(in_shape, size, stride, offset):
    def ref(g):
        n = int(np.prod(in_shape))
        pos = _as_strided_ref(size, stride, offset)(np.arange(n))
        out = np.zeros(n, g.dtype)
        np.add.at(out, pos.reshape(-1), g.reshape(-1))
        return out.reshape(in_shape)

    return ref


def _unfold_backward(in_shape, dim, size, step):
    def ref(g):
        pos = _unfold_ref(dim, size, step)(np.arange(np.prod(in_shape)).reshape(in_shape))
        out = np.zeros(int(np.prod(in_shape)), g.dtype)
        np.add.at(out, pos.reshape(-1), g.reshape(-1))
        return out.reshape(in_shape)

    return ref


def _combinations(r, replace=False):
    pick = itertools.combinations_with_replacement if replace else itertools.combinations

    def ref(a):
        rows = list(pick(range(a.shape[0]), r))
        return a[np.array(rows, dtype=np.int64).reshape(len(rows), r)]

    return ref


def _cartesian(*xs):
    grids = np.meshgrid(*xs, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], 1)


def _repeat_ref(reps):
    return lambda a: np.tile(a.reshape((1,) * (len(reps) - a.ndim) + a.shape), reps)


def _through(view, inplace):
    """A differentiable function written with an in-place op through a view of a copy."""

    def make(T):
        def op(a, b):
            c = a * 1
            inplace(view(c), b)
            return c

        return op

    return make


def _through_ref(view, inplace):
    def ref(a, b):
        c = a.copy()
        inplace(view(c), b)
        return c

    return ref


def _mul_(v, b):
    v.mul_(b) if hasattr(v, "mul_") else v.__imul__(b)


def _add_(v, b):
    v.add_(b) if hasattr(v, "add_") else v.__iadd__(b)


def _np_diagonal(v):
    """A writable view of a 2-d array's main diagonal."""
    n = min(v.shape)
    return np.lib.stride_tricks.as_strided(v, (n,), (v.strides[0] + v.strides[1],))


S = (3, 4)
S3 = (2, 3, 4)

SPECS = [
    # view / reshape / flatten
    row("view", _m("view", 4, 3), lambda a: a.reshape(4, 3), [S], dtypes=ALL),
    row("view_infer", _m("view", -1, 2), lambda a: a.reshape(-1, 2), [S]),
    row("view_tuple", _m("view", (2, 2, 3)), lambda a: a.reshape(2, 2, 3), [S]),
    row("view_0d", _m("view", 1, 1), lambda a: a.reshape(1, 1), [()]),
    row("view_to_0d", _m("view", ()), lambda a: a.reshape(()), [(1, 1)]),
    row("view_empty", _m("view", 3, 0), lambda a: a.reshape(3, 0), [(0, 3)]),
    row(
        "view_of_transposed",
        lambda T: lambda a: a.t().view(4, 1, 3),
        lambda a: a.T.reshape(4, 1, 3),
        [S],
    ),
    row(
        "view_as",
        lambda T: lambda a, b: a.view_as(b),
        lambda a, b: a.reshape(b.shape),
        [S, (2, 6)],
        grad=(0,),
    ),
    row("reshape", _f("reshape", (2, -1)), lambda a: a.reshape(2, -1), [S], dtypes=ALL),
    row("reshape_copy", lambda T: lambda a: a.t().reshape(-1), lambda a: a.T.reshape(-1), [S]),
    row("reshape_0d", _m("reshape", ()), lambda a: a.reshape(()), [(1,)]),
    row("flatten", _f("flatten"), lambda a: a.reshape(-1), [S3], dtypes=ALL),
    row("flatten_dims", _f("flatten", 1, 2), lambda a: a.reshape(2, 12), [S3]),
    row("flatten_same_dim", _f("flatten", 1, 1), lambda a: a, [S3]),
    row("flatten_0d", _f("flatten"), lambda a: a.reshape(1), [()]),
    row(
        "flatten_noncontiguous",
        lambda T: lambda a: a.transpose(0, 2).flatten(1),
        lambda a: a.transpose(2, 1, 0).reshape(4, 6),
        [S3],
    ),
    row("unflatten", _f("unflatten", 1, (2, -1)), lambda a: a.reshape(3, 2, 2), [S]),
    row("ravel", _f("ravel"), lambda a: a.reshape(-1), [S3]),
    # squeeze / unsqueeze
    row("squeeze", _f("squeeze"), np.squeeze, [(1, 3, 1, 4)], dtypes=ALL),
    row("squeeze_dim", _f("squeeze", 2), lambda a: a.squeeze(2), [(1, 3, 1, 4)]),
    row("squeeze_dim_noop", _f("squeeze", 1), lambda a: a, [(1, 3, 1, 4)]),
    row(
        "squeeze_dims",
        _f("squeeze", (0, -1, 1)),
        lambda a: _squeeze_dims(a, (0, 3, 1)),
        [(1, 3, 1, 1)],
    ),
    row("squeeze_0d", _f("squeeze", 0), lambda a: a, [()]),
    row("unsqueeze", _f("unsqueeze", 1), lambda a: np.expand_dims(a, 1), [S], dtypes=ALL),
    row("unsqueeze_last", _f("unsqueeze", -1), lambda a: np.expand_dims(a, -1), [S]),
    row("unsqueeze_0d", _f("unsqueeze", 0), lambda a: a.reshape(1), [()]),
    # permutations of dims
    row("permute", _f("permute", (2, 0, 1)), lambda a: a.transpose(2, 0, 1), [S3], dtypes=ALL),
    row("permute_neg", _m("permute", -1, 0, 1), lambda a: a.transpose(2, 0, 1), [S3]),
    row("permute_0d", _f("permute", ()), lambda a: a, [()]),
    row("transpose", _f("transpose", 0, 2), lambda a: a.swapaxes(0, 2), [S3], dtypes=ALL),
    row("transpose_same", _f("transpose", 1, -2), lambda a: a, [S3]),
    row("swapaxes", _f("swapaxes", 0, 1), lambda a: a.swapaxes(0, 1), [S3]),
    row("swapdims", _f("swapdims", -1, 0), lambda a: a.swapaxes(-1, 0), [S3]),
    row("t", _f("t"), lambda a: a.T, [S], dtypes=ALL),
    row("t_1d", _f("t"), lambda a: a, [(3,)]),
    row("t_0d", _f("t"), lambda a: a, [()]),
    row("T", lambda T: lambda a: a.T, lambda a: a.T, [S]),
    row("mT", lambda T: lambda a: a.mT, lambda a: a.swapaxes(-1, -2), [S3]),
    row("adjoint", _f("adjoint"), lambda a: a.swapaxes(-1, -2), [S3]),
    row("movedim", _f("movedim", 0, 2), lambda a: np.moveaxis(a, 0, 2), [S3]),
    row(
        "movedim_many",
        _f("movedim", (0, 1), (2, 0)),
        lambda a: np.moveaxis(a, (0, 1), (2, 0)),
        [S3],
    ),
    row("moveaxis", _f("moveaxis", -1, 0), lambda a: np.moveaxis(a, -1, 0), [S3]),
    # broadcasting
    row(
        "expand",
        _m("expand", 2, 3, 4),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
        [(3, 1)],
        dtypes=ALL,
    ),
    row("expand_keep", _m("expand", -1, 5), lambda a: np.broadcast_to(a, (3, 5)), [(3, 1)]),
    row("expand_same", _m("expand", 3, 4), lambda a: a, [S]),
    row("expand_0d", _m("expand", 2, 3), lambda a: np.broadcast_to(a, (2, 3)), [()]),
    row(
        "expand_as",
        lambda T: lambda a, b: a.expand_as(b),
        lambda a, b: np.broadcast_to(a, b.shape),
        [(4,), S],
        grad=(0,),
    ),
    row(
        "broadcast_to",
        _f("broadcast_to", (2, 3, 4)),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
        [(1, 4)],
    ),
    row(
        "broadcast_tensors",
        lambda T: lambda a, b: T.broadcast_tensors(a, b),
        lambda a, b: np.broadcast_arrays(a, b),
        [(3, 1), (2, 1, 4)],
    ),
    # narrow / split / chunk / unbind
    row("narrow", _f("narrow", 1, 1, 2), lambda a: a[:, 1:3], [S], dtypes=ALL),
    row("narrow_neg_start", _f("narrow", -1, -3, 2), lambda a: a[:, 1:3], [S]),
    row("narrow_empty", _f("narrow", 0, 3, 0), lambda a: a[3:], [S]),
    vjp_row(
        "narrow_backward", lambda T: lambda x: x.narrow(1, 1, 2), (3, 2), S, _narrow_pad(S, 1, 1)
    ),
    row("split", _f("split", 2), _split_ref([2, 1], 0), [S], dtypes=ALL),
    row("split_dim", _f("split", 3, 1), _split_ref([3, 1], 1), [S]),
    row("split_sizes", _f("split", [1, 0, 3], -1), _split_ref([1, 0, 3], 1), [S]),
    row("split_empty", _f("split", 2), lambda a: [a], [(0, 3)]),
    row("split_one_used", lambda T: lambda a: a.split(2, 1)[1], lambda a: a[:, 2:], [S]),
    row("chunk", _f("chunk", 3, 1), _split_ref([2, 2, 1], 1), [(3, 5)], dtypes=ALL),
    row("chunk_fewer", _f("chunk", 3), _split_ref([2, 2], 0), [(4, 2)]),
    row("unbind", _f("unbind"), _unbind_ref(0), [S], dtypes=ALL),
    row("unbind_dim", _f("unbind", -1), _unbind_ref(1), [S]),
    row("unbind_one_used", lambda T: lambda a: a.unbind(1)[2], lambda a: a[:, 2], [S]),
    row("tensor_split_sections", _f("tensor_split", 3, 1), _split_ref([2, 2, 1], 1), [(3, 5)]),
    row(
        "tensor_split_indices",
        _f("tensor_split", [1, 5, 3]),
        lambda a: [a[:1], a[1:5], a[5:3], a[3:]],
        [(4, 2)],
    ),
    row("hsplit", _f("hsplit", 2), _split_ref([2, 2], 1), [S]),
    row("vsplit", _f("vsplit", [1]), _split_ref([1, 2], 0), [S]),
    row("dsplit", _f("dsplit", 2), _split_ref([2, 2], 2), [S3]),
    # cat / stack and their kin
    row("cat", _f_list("cat"), lambda a, b: np.concatenate([a, b]), [S, (2, 4)], dtypes=ALL),
    row("cat_dim", _f_list("cat", 1), lambda *xs: np.concatenate(xs, 1), [S, (3, 1), (3, 2)]),
    row("cat_neg_dim", _f_list("cat", -1), lambda a, b: np.concatenate([a, b], -1), [S, S]),
    row(
        "cat_promote",
        _f_list("cat"),
        lambda a, b: np.concatenate([a, b]),
        [S, S],
        dtypes=(("int64", "float32"), ("float32", "float64"), ("bool", "int32")),
    ),
    row(
        "cat_skips_1d_empty",
        _f_list("cat", 1),
        lambda a, b, c: np.concatenate([a, c], 1),
        [S, (0,), (3, 2)],
    ),
    row("cat_empty_rows", _f_list("cat"), lambda a, b: np.concatenate([a, b]), [(0, 4), S]),
    row("cat_single", _f_list("cat"), lambda a: a, [S]),
    row("concat", _f_list("concat", 1), lambda a, b: np.concatenate([a, b], 1), [S, S]),
    row("concatenate", _f_list("concatenate"), lambda a, b: np.concatenate([a, b]), [S, S]),
    row("stack", _f_list("stack"), lambda a, b: np.stack([a, b]), [S, S], dtypes=ALL),
    row("stack_last", _f_list("stack", -1), lambda *xs: np.stack(xs, -1), [S, S, S]),
    row("stack_0d", _f_list("stack"), lambda a, b: np.stack([a, b]), [(), ()]),
    row(
        "stack_promote",
        _f_list("stack", 1),
        lambda a, b: np.stack([a, b], 1),
        [S, S],
        dtypes=(("int64", "float32"),),
    ),
    row("hstack", _f_list("hstack"), lambda a, b: np.hstack([a, b]), [S, (3, 2)]),
    row("hstack_1d", _f_list("hstack"), lambda a, b: np.hstack([a, b]), [(3,), (2,)]),
    row("vstack", _f_list("vstack"), lambda a, b: np.vstack([a, b]), [(4,), S]),
    row("dstack", _f_list("dstack"), lambda a, b: np.dstack([a, b]), [S, S]),
    row(
        "column_stack", _f_list("column_stack"), lambda *xs: np.column_stack(xs), [(3,), S, (3, 1)]
    ),
    row("atleast_1d", _f("atleast_1d"), np.atleast_1d, [()]),
    row("atleast_2d", _f("atleast_2d"), np.atleast_2d, [(3,)]),
    row("atleast_3d", _f("atleast_3d"), np.atleast_3d, [(3,)]),
    row("atleast_3d_2d", _f("atleast_3d"), np.atleast_3d, [S]),
    row(
        "atleast_2d_many",
        lambda T: lambda a, b: T.atleast_2d(a, b),
        lambda a, b: np.atleast_2d(a, b),
        [(), S],
    ),
    # grids
    row(
        "meshgrid_ij",
        lambda T: lambda a, b: T.meshgrid(a, b, indexing="ij"),
        lambda a, b: np.meshgrid(a, b, indexing="ij"),
        [(3,), (2,)],
    ),
    row(
        "meshgrid_xy",
        lambda T: lambda a, b, c: T.meshgrid(a, b, c, indexing="xy"),
        lambda a, b, c: np.meshgrid(a, b, c, indexing="xy"),
        [(3,), (2,), (4,)],
    ),
    row("cartesian_prod", lambda T: T.cartesian_prod, _cartesian, [(3,), (2,)]),
    row("combinations", _f("combinations"), _combinations(2), [(4,)]),
    row("combinations_replace", _f("combinations", 3, True), _combinations(3, True), [(3,)]),
    vjp_row(
        "combinations_backward",
        lambda T: lambda x: T.combinations(x, 2),
        (6, 2),
        (4,),
        lambda g: np.bincount(
            np.array(list(itertools.combinations(range(4), 2))).ravel(), g.ravel(), minlength=4
        ),
    ),
    # repeats and flips
    row("repeat", _m("repeat", 2, 1, 3), _repeat_ref((2, 1, 3)), [S], dtypes=ALL),
    row("repeat_0d", _m("repeat", 2), _repeat_ref((2,)), [()]),
    row("tile", _f("tile", (2,)), lambda a: np.tile(a, 2), [S]),
    row("repeat_interleave", _f("repeat_interleave", 2), lambda a: np.repeat(a, 2), [S]),
    row("repeat_interleave_dim", _f("repeat_interleave", 3, 1), lambda a: np.repeat(a, 3, 1), [S]),
    row(
        "repeat_interleave_tensor",
        lambda T: lambda a: a.repeat_interleave(T.tensor([1, 0, 2]), dim=0),
        lambda a: np.repeat(a, [1, 0, 2], 0),
        [S],
    ),
    vjp_row(
        "repeat_interleave_backward",
        lambda T: lambda x: x.repeat_interleave(T.tensor([2, 0, 1]), dim=1),
        (3, 3),
        (3, 3),
        lambda g: np.stack([g[:, 0] + g[:, 1], 0 * g[:, 0], g[:, 2]], 1),
    ),
    row("flip", _f("flip", (0, 2)), lambda a: np.flip(a, (0, 2)), [S3], dtypes=ALL),
    row("flip_none", _f("flip", ()), lambda a: a, [S]),
    row("fliplr", _f("fliplr"), np.fliplr, [S]),
    row("flipud", _f("flipud"), np.flipud, [(4,)]),
    row("roll", _f("roll", 2), lambda a: np.roll(a, 2), [S], dtypes=ALL),
    row("roll_dims", _f("roll", (1, -1), (0, 2)), lambda a: np.roll(a, (1, -1), (0, 2)), [S3]),
    row("rot90", _f("rot90"), np.rot90, [S]),
    row("rot90_2", _f("rot90", 2, (1, 2)), lambda a: np.rot90(a, 2, (1, 2)), [S3]),
    row("rot90_neg", _f("rot90", -1), lambda a: np.rot90(a, -1), [S]),
    # diagonals and triangles
    row("diagonal", _f("diagonal"), lambda a: a.diagonal().copy(), [S], dtypes=ALL),
    row("diagonal_offset", _f("diagonal", 1, 0, 2), lambda a: a.diagonal(1, 0, 2).copy(), [S3]),
    row(
        "diagonal_neg_offset",
        _f("diagonal", -1, -1, 1),
        lambda a: a.diagonal(-1, 2, 1).copy(),
        [S3],
    ),
    row("diagonal_out_of_range", _f("diagonal", 5), lambda a: a.diagonal(5).copy(), [S]),
    row("diag_1d", _f("diag"), np.diag, [(3,)]),
    row("diag_1d_offset", _f("diag", -2), lambda a: np.diag(a, -2), [(3,)]),
    row("diag_2d", _f("diag", 1), lambda a: np.diag(a, 1), [S]),
    row("diag_embed", _f("diag_embed"), _diag_embed, [(2, 3)]),
    row("diag_embed_dims", _f("diag_embed", 1, 0, 2), lambda a: _diag_embed(a, 1, 0, 2), [(2, 3)]),
    row("diagflat", _f("diagflat", -1), lambda a: np.diagflat(a, -1), [(2, 2)]),
    row("tril", _f("tril"), np.tril, [S], dtypes=ALL),
    row("tril_batched", _f("tril", -1), lambda a: np.tril(a, -1), [S3]),
    row("triu", _f("triu", 1), lambda a: np.triu(a, 1), [S3], dtypes=ALL),
    row("tril_inplace", lambda T: lambda a: (a * 1).tril_(1), lambda a: np.tril(a, 1), [S]),
    row("triu_inplace", lambda T: lambda a: (a * 1).triu_(), np.triu, [S]),
    # strided views
    row("unfold", _m("unfold", 1, 2, 1), _unfold_ref(1, 2, 1), [S3], dtypes=ALL),
    row("unfold_step", _m("unfold", -1, 2, 3), _unfold_ref(1, 2, 3), [(2, 7)]),
    row("unfold_0d", _m("unfold", 0, 1, 1), lambda a: a.reshape(1), [()]),
    row("as_strided", _m("as_strided", (3, 2), (1, 3)), _as_strided_ref((3, 2), (1, 3), 0), [S]),
    row(
        "as_strided_overlap",
        _m("as_strided", (3, 3), (2, 1), 1),
        _as_strided_ref((3, 3), (2, 1), 1),
        [S],
    ),
    row(
        "as_strided_of_view",
        lambda T: lambda a: a[1].as_strided((2, 2), (1, 1), 5),
        _as_strided_ref((2, 2), (1, 1), 5),
        [S],
    ),
    row(
        "as_strided_default_offset",
        lambda T: lambda a: a[1:].as_strided((2, 3), (2, 1)),
        _as_strided_ref((2, 3), (2, 1), 4),
        [S],
    ),
    vjp_row(
        "as_strided_backward",
        lambda T: lambda x: x[1:].as_strided((2, 3), (2, 1)),
        (2, 3),
        S,
        _as_strided_backward(S, (2, 3), (2, 1), 4),
    ),
    vjp_row(
        "unfold_backward",
        lambda T: lambda x: x.unfold(1, 3, 1),
        (3, 2, 3),
        S,
        _unfold_backward(S, 1, 3, 1),
    ),
    # in-place ops through views: CopySlices replays these views on the base
    row(
        "inplace_through_transpose",
        _through(lambda v: v.t(), _mul_),
        _through_ref(lambda v: v.T, _mul_),
        [S, (4, 3)],
    ),
    row(
        "inplace_through_view_shape",
        _through(lambda v: v.view(-1), _add_),
        _through_ref(lambda v: v.reshape(-1), _add_),
        [S, (12,)],
    ),
    row(
        "inplace_through_narrow",
        _through(lambda v: v.narrow(1, 1, 2), _mul_),
        _through_ref(lambda v: v[:, 1:3], _mul_),
        [S, (3, 2)],
    ),
    row(
        # torch refuses in-place changes of split/chunk/unbind outputs (NOTE [ Multi-output
        # views ]); its unsafe_* forms allow them, here through the same narrow/squeeze replay
        "inplace_through_unsafe_split",
        _through(lambda v: v.unsafe_split(1)[1], _mul_),
        _through_ref(lambda v: v[1:2], _mul_),
        [S, (4,)],
        torch=False,  # torch's unsafe_split outputs are no views: its gradient misses the write
    ),
    row(
        "inplace_through_unsafe_chunk_squeezed",
        _through(lambda v: v.unsafe_chunk(v.shape[1], 1)[2].squeeze(1), _mul_),
        _through_ref(lambda v: v[:, 2], _mul_),
        [S, (3,)],
        torch=False,  # torch's unsafe_chunk outputs are no views: its gradient misses the write
    ),
    row(
        "inplace_through_diagonal",
        _through(lambda v: v.diagonal(), _mul_),
        _through_ref(_np_diagonal, _mul_),
        [S, (3,)],
    ),
    row(
        "inplace_through_unsqueeze_permute",
        _through(lambda v: v.unsqueeze(0).permute(2, 0, 1).squeeze(1), _add_),
        _through_ref(lambda v: v.T, _add_),
        [S, (4, 3)],
    ),
]


# --- *_copy variants and as_strided_ (minitorch/_ops/view_variants.py) ---


def _np_strided_copy(a, size, stride, offset):
    flat = np.ascontiguousarray(a).reshape(-1)[offset:]
    return np.lib.stride_tricks.as_strided(flat, size, [s * flat.itemsize for s in stride]).copy()


SPECS += [
    row("view_copy", lambda T: lambda x: T.view_copy(x, (4, 3)), lambda a: a.reshape(4, 3),
        [(3, 4)]),
    row("permute_copy", lambda T: lambda x: T.permute_copy(x, (2, 0, 1)),
        lambda a: a.transpose(2, 0, 1), [(2, 3, 4)]),
    row("t_copy", lambda T: T.t_copy, lambda a: a.T, [(2, 3)]),
    row("transpose_copy", lambda T: lambda x: T.transpose_copy(x, 0, -1),
        lambda a: np.swapaxes(a, 0, -1), [(2, 3, 4)]),
    row("diagonal_copy", lambda T: lambda x: T.diagonal_copy(x, -1), lambda a: np.diagonal(a, -1),
        [(3, 4)]),
    row("expand_copy", lambda T: lambda x: T.expand_copy(x, (2, 3, 4)),
        lambda a: np.broadcast_to(a, (2, 3, 4)).copy(), [(3, 1)]),
    row("squeeze_copy", lambda T: lambda x: T.squeeze_copy(x, 1), lambda a: a[:, 0],
        [(3, 1, 2)]),
    row("unsqueeze_copy", lambda T: lambda x: T.unsqueeze_copy(x, -1), lambda a: a[..., None],
        [(3, 2)]),
    row("select_copy", lambda T: lambda x: T.select_copy(x, 0, -2), lambda a: a[-2], [(3, 2)]),
    row("slice_copy", lambda T: lambda x: T.slice_copy(x, 1, 1, None, 2),
        lambda a: a[:, 1::2], [(2, 5)]),
    row("split_copy", lambda T: lambda x: T.split_copy(x, 2, 1),
        lambda a: [a[:, :2], a[:, 2:]], [(2, 3)]),
    row("split_with_sizes_copy", lambda T: lambda x: T.split_with_sizes_copy(x, [1, 2]),
        lambda a: [a[:1], a[1:]], [(3, 2)]),
    row("unbind_copy", lambda T: lambda x: T.unbind_copy(x, 1), lambda a: [a[:, 0], a[:, 1]],
        [(3, 2)]),
    row("unfold_copy", lambda T: lambda x: T.unfold_copy(x, 1, 2, 1),
        lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, 1).copy(), [(2, 4)]),
    row("as_strided_copy", lambda T: lambda x: T.as_strided_copy(x, (2, 2), (1, 3), 1),
        lambda a: _np_strided_copy(a, (2, 2), (1, 3), 1), [(2, 3)]),
    row("as_strided_inplace", lambda T: lambda x: (x * 1).as_strided_((2, 2), (1, 3), 1),
        lambda a: _np_strided_copy(a, (2, 2), (1, 3), 1), [(2, 3)]),
    row("detach_copy", lambda T: T.detach_copy, lambda a: a.copy(), [(2, 3)], **{"grad": (),
        "gradgrad": False}),
    row("alias_copy", lambda T: T.alias_copy, lambda a: a.copy(), [(2, 3)]),
    row("narrow_copy", lambda T: lambda x: x.narrow_copy(1, 1, 2), lambda a: a[:, 1:3],
        [(2, 4)]),
    row("linalg_diagonal", lambda T: lambda x: T.linalg.diagonal(x, offset=1),
        lambda a: np.diagonal(a, 1, -2, -1), [(2, 3, 4)]),
]  # fmt: skip
