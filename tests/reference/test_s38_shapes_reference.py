"""Session 38 (helper shapes): a table-driven sweep of the shape, join and split ops as
einops-style code uses them, run under torch and minitorch with the same seeds and compared
case by case. Each program is a table of call texts evaluated on seeded inputs; a result is
recorded with its values, dtype and shape, a documented view's strides too (not those of
einsum/tensordot results, views of torch's temporaries), an error as "Type: message". Covered:
reshape/view with -1 and size-0 dims, flatten/unflatten (nn.Flatten/Unflatten), movedim/
moveaxis, swapaxes/swapdims, transpose/permute/t/mT, squeeze (dim tuples)/unsqueeze, expand/
expand_as/broadcast_to/broadcast_tensors/broadcast_shapes, repeat/tile/repeat_interleave (int
and tensor repeats, output_size), cat/concat/concatenate (legacy empty 1-d tensors, dtype
promotion, out=), stack/hstack/vstack/dstack/column_stack/row_stack, split/split_with_sizes/
tensor_split/hsplit/vsplit/dsplit/chunk/unbind, narrow (tensor start), flip/fliplr/flipud,
roll, rot90, diagonal/diag/diag_embed/diagflat, tril/triu, take_along_dim, einsum (ellipsis,
repeated indices, sublists), atleast_1d/2d/3d, einops patterns, the *_copy variants and the
scatter/block_diag/kron/cartesian_prod family; keyword spellings and argument types; writes
through views; every op on integer, bool, half, bfloat16, transposed, stepped and expanded
inputs; out= with autograd; float64 gradients and double gradients with a random upstream
gradient (gradcheck and gradgradcheck of every third case) and grad_fn names.

Found and fixed:
- unflatten with two -1 sizes raised "only one dimension can be inferred"; torch (torch.unflatten,
  Tensor.unflatten, nn.Unflatten) wraps it: "unflatten got an unexpected error:\n...".
- t_() of a 3-d tensor named t() in its error; torch: "t_() expects a tensor with <= 2 ...".
- broadcast_tensors([a, b]) (a list) broadcast the list's tensors, and a number among the
  arguments gave an AttributeError; torch: TypeError "expected Tensor as element 0 in argument
  0, but got list" (float, NoneType ...).
- out= that requires grad while no input does: the refusal had no op name; torch names its
  kernel: "cat(): functions with out=..." (cat, concat/concatenate, hstack/vstack/dstack/
  column_stack), "stack():", "tril():"/"triu():", "gather():" (take_along_dim),
  "narrow_copy():", "index_reduce():" and "aten::permute_copy():" for the view-copy ops and
  slice_scatter.

Known and left (documented):
- torch's stride of a size-1 slice of an expanded (stride-0) dim is 0; minitorch's strides come
  from NumPy's and read such a dim as contiguous (x.expand(3, 4).narrow(1, 3, 1).stride()
  (1, 0) in torch, (1, 1) here): the expanded-input tensor_split records are left out.
- torch.cat([x, x], out=x) resizes x before refusing the overlap; minitorch refuses first and
  leaves x as it was (an error path's side effect; the program passes a clone).
- unsafe_split/unsafe_chunk outputs are tracked views here (_is_view() True, correct gradients
  after an in-place write); torch's are untracked (silently stale gradients). Not recorded.
- The *_copy ops with out= and an input that requires grad: torch writes out and gives it a
  NotImplemented grad_fn (split_with_sizes_copy also with out requiring grad); minitorch
  refuses with the out= autograd error. Not recorded.
- x.split(np.int64(2)): torch 2.13's Tensor.split passes a size that is no int to
  split_with_sizes (TypeError "... must be tuple of ints, not numpy.int64"); minitorch splits,
  as tests/test_generative_sweep4.py asserts. A bool dim or size (squeeze(True), movedim(True,
  0), split(True)) gives "argument 'dim' must be int, not bool" or split_with_sizes' TypeError
  here, torch's parser its "received an invalid combination of arguments". Not recorded.
- Complex dtypes (view(complex128), cat with complex) are not in minitorch; not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches, seeded_gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")
try:
    import einops
except ImportError:  # a test dependency: only the einops program needs it
    einops = None


def _env(lib, dt):
    """The names the case texts use: t (the library), float tensors of dtype dt, an int64 and a
    bool tensor, empties."""
    return {
        "t": lib,
        "a": _randn(lib, dt, 1, 1, 2, 3, 4),
        "b": _randn(lib, dt, 2, 2, 3, 4),
        "m": _randn(lib, dt, 3, 3, 5, 4),
        "v": _randn(lib, dt, 4, 3, 5),
        "s": _randn(lib, dt, 5, 4, 4),
        "w": _randn(lib, dt, 6, 5, 6, 7),
        "c": _randn(lib, dt, 7, 6, 2),
        "e": lib.zeros(0, dtype=dt),
        "z": lib.zeros(2, 0, 3, dtype=dt),
        "i": lib.arange(12).reshape(3, 4),
        "k": lib.tensor([True, False, True]),
        "h": _randn(lib, dt, 8, 3, 4).half(),
        "o": _randn(lib, dt, 9, 7),
        "d": dt,
        "einops": einops,
    }


# ops whose result can be a view of a temporary in torch (not a documented view of the input)
_NOT_VIEWS = ("t.einsum", "einops.einsum", "t.tensordot", "t.inner", "t.unravel_index")


def _record(rec, name, out):
    """A result: a tensor with its shape and strides, a sequence item by item, else as is."""
    if hasattr(out, "stride"):
        rec(name, out)
        rec(name + ".shape", str(tuple(out.shape)))
        if out._base is not None and not name.startswith(_NOT_VIEWS):  # a documented view
            rec(name + ".stride", str(out.stride()))
    elif isinstance(out, (tuple, list)):
        rec(name + ".len", str(len(out)))
        for j, x in enumerate(out):
            _record(rec, f"{name}[{j}]", x)
    else:
        rec(name, str(out).replace("torch.", "t."))


def _sweep(cases):
    def prog(lib, dt, rec):
        env = _env(lib, dt)
        for code in cases:
            out = rec.err(code, lambda code=code: eval(code, env))  # noqa: S307
            n, text = rec.items[-1]  # torch's C++ errors can end with a stack trace
            rec.items[-1] = (n, text.split("\nException raised from")[0])
            if out is not None:
                _record(rec, code, out)

    return prog


CASES = {
    "reshape": [
        "b.reshape(-1)", "b.reshape(4, -1)", "b.reshape(-1, 0)", "z.reshape(-1, 3)",
        "z.reshape(0, -1)", "z.reshape(-1)", "z.reshape(6, -1)", "b.reshape(-1, -1)",
        "b.reshape(5, -1)", "b.reshape(2, 3, 5)", "b.view(6, 4)", "b.view(-1, 12)",
        "b.transpose(0, 1).view(-1)", "b.transpose(0, 1).reshape(-1)", "b.view(t.Size([24]))",
        "b.reshape(())", "t.ones(1, dtype=d).reshape(())", "b.reshape([2, -1])", "b.view(-2, 12)",
        "e.view(0, 5)", "e.reshape(3, 0, -1)", "b.reshape_as(m[:, :2])",
        "b.view_as(s.repeat(2, 3)[:, :6].reshape(6, 4))",
    ],
    "flatten": [
        "b.flatten()", "b.flatten(1)", "b.flatten(0, 1)", "b.flatten(-2, -1)", "b.flatten(2, 1)",
        "b.flatten(0, 5)", "t.tensor(3.0, dtype=d).flatten()", "z.flatten(1)", "a.flatten(1, 2)",
        "b.transpose(1, 2).flatten(1)", "b.flatten(1, 1)", "t.flatten(b, start_dim=1, end_dim=-1)",
        "b.unflatten(1, (3, 1))", "b.unflatten(-1, (2, -1))", "b.unflatten(0, (-1, 1, 1))",
        "b.unflatten(1, (2, 2))", "b.unflatten(1, (-1, -1))", "b.unflatten(1, ())",
        "b.unflatten(3, (1, 2))", "z.unflatten(1, (0, -1))", "t.unflatten(b, 2, [2, 2])",
        "t.nn.Unflatten(1, (3, 1))(b)", "t.nn.Flatten()(b)", "t.nn.Flatten(0, -1)(b)",
    ],
    "movedim": [
        "b.movedim(0, -1)", "b.movedim((0, 1), (2, 0))", "b.movedim([0, 1], [-1, -2])",
        "t.moveaxis(b, 2, 0)", "b.movedim((0, 0), (1, 2))", "b.movedim((0, 1), (1, 1))",
        "b.movedim((0, 1), (2,))", "b.movedim(3, 0)", "b.movedim(-4, 0)", "b.movedim((), ())",
        "t.movedim(a, (1, 3), (0, 1))", "b.swapaxes(0, 2)", "b.swapdims(-1, 0)",
        "t.swapaxes(b, 1, 1)", "b.transpose(0, 3)", "t.transpose(b, -3, -1)",
        "b.permute(2, 0, 1)", "b.permute(-1, 0, 1)", "b.permute((2, 1, 0))", "b.permute(0, 0, 1)",
        "b.permute(0, 1)", "b.permute(0, 1, 3)", "t.permute(b, [1, -1, 0])", "b.mT", "b.mH",
        "s.T", "b.adjoint()", "t.tensor(1.0, dtype=d).permute()", "v.t()", "b.t()",
    ],
    "squeeze": [
        "a.squeeze()", "a.squeeze(0)", "a.squeeze(1)", "a.squeeze((0, 1))", "a.squeeze((0, 0))",
        "a.squeeze(-4)", "a.squeeze(4)", "a.squeeze(())", "t.squeeze(a, dim=(1, 0))",
        "b.unsqueeze(0)", "b.unsqueeze(3)", "b.unsqueeze(-1)", "b.unsqueeze(-4)", "b.unsqueeze(4)",
        "b.unsqueeze(-5)", "t.tensor(2.0, dtype=d).unsqueeze(0)",
        "t.tensor(2.0, dtype=d).unsqueeze(-1)",
        "t.tensor(2.0, dtype=d).squeeze(0)", "t.tensor(2.0, dtype=d).squeeze(-1)",
        "t.tensor(2.0, dtype=d).squeeze(1)", "z.squeeze()", "z.squeeze(1)",
        "b[:, None, :, None].squeeze((1, 3))", "a.transpose(0, 3).squeeze(3)",
    ],
    "expand": [
        "v[:, :1].expand(3, 4)", "v[:, :1].expand(-1, 4)", "v.expand(2, -1, -1)",
        "v.expand(2, 3, 5)", "v.expand(-1, 3, 5)", "v.expand(3, 6)", "v.expand(5)",
        "v[:1].expand(0, 5)", "v.expand(t.Size([2, 3, 5]))", "v.expand((2, 3, 5))",
        "v.expand(1, 2, 3, 5)", "v[:, :1].expand(3, -2)",
        "v.expand_as(m[:, :3].transpose(1, 2).transpose(1, 2)[:, :, :1].expand(3, 3, 5))",
        "v.expand_as(b)", "t.broadcast_to(v, (2, 3, 5))", "t.broadcast_to(v, (3, 4))",
        "t.broadcast_to(v[:1], (-1, 5))", "v.broadcast_to((4, -1, 5))",
        "t.broadcast_shapes((3, 1), (1, 5))", "t.broadcast_shapes((3,), (2, 1), ())",
        "t.broadcast_shapes((3, 2), (4, 2))", "t.broadcast_shapes(3, (1, 3))",
        "t.broadcast_shapes((0, 1), (1, 4))", "t.broadcast_shapes()",
        "t.broadcast_tensors(v, o[:1], b[:1, :, :1])", "t.broadcast_tensors(v, b)",
        "t.broadcast_tensors(v)", "t.broadcast_tensors()",
        "t.broadcast_tensors(z, t.ones(3, dtype=d))",
        "t.tensor(1.0, dtype=d).expand(2, 2)", "t.tensor(1.0, dtype=d).expand(())",
    ],
    "repeat": [
        "v.repeat(2, 1)", "v.repeat(2, 1, 3)", "v.repeat(1)", "v.repeat(0, 2)", "v.repeat(-1, 2)",
        "v.repeat((2, 2))", "v.repeat()", "e.repeat(3)", "t.tile(v, (2,))", "t.tile(v, (2, 2, 2))",
        "v.tile(2)", "v.tile(())", "t.tile(t.tensor(1.0, dtype=d), (2, 3))",
        "t.repeat_interleave(v, 2)", "t.repeat_interleave(v, 2, dim=0)",
        "v.repeat_interleave(2, dim=-1)", "v.repeat_interleave(t.tensor([1, 0, 2]), dim=0)",
        "v.repeat_interleave(t.tensor([2]), dim=1)", "v.repeat_interleave(t.tensor([1, 2]), dim=0)",
        "v.repeat_interleave(t.tensor([1, 0, 2]), dim=0, output_size=3)",
        "v.repeat_interleave(t.tensor([-1, 0, 2]), dim=0)", "v.repeat_interleave(-1)",
        "t.repeat_interleave(t.tensor([2, 0, 3]))", "t.repeat_interleave(t.tensor([[2, 3]]))",
        "v.repeat_interleave(3, dim=0, output_size=9)", "v.repeat_interleave(t.tensor([1, 2, 3]))",
        "v.repeat_interleave(t.tensor(2), dim=1)", "e.repeat_interleave(2)",
        "v.repeat_interleave(t.tensor([1.0, 2.0, 3.0]), dim=0)",
    ],
    "cat": [
        "t.cat([v, v])", "t.cat([v, v], dim=-1)", "t.cat((v, b[:, :, 0].t()), 1)",
        "t.cat([v, e])", "t.cat([e, v], 1)", "t.cat([e, e])", "t.cat([v, i])", "t.cat([i, k])",
        "t.cat([v, h])", "t.cat([k, k])", "t.cat([])", "t.cat([v])", "t.cat([v, b])",
        "t.cat([v, v[:2, :3]])", "t.cat([v, v], 2)", "t.cat([v, v], -3)", "t.concat([v, v.t()])",
        "t.concatenate([v, v], axis=1)", "t.cat([z, z], 1)", "t.cat([z, b[:, :0, :3]], dim=1)",
        "t.cat([t.tensor(1.0, dtype=d), t.tensor(2.0, dtype=d)])", "t.cat(v)",
        "t.cat([v, v.t().t()[:, 1:]], dim=1)", "t.cat([v, v], dim=1).stride()",
        "t.cat([b.transpose(1, 2), b.transpose(1, 2)], dim=0)",
    ],
    "stack": [
        "t.stack([v, v])", "t.stack([v, v], dim=2)", "t.stack([v, v], -1)", "t.stack([v, v], 3)",
        "t.stack([v, v], -4)", "t.stack([v, v.t()])", "t.stack([])",
        "t.stack([v, i[:, :1].expand(3, 5)])",
        "t.stack([e, e])", "t.stack([t.tensor(1.0, dtype=d), t.tensor(2.0, dtype=d)])",
        "t.hstack([v, v])", "t.hstack([o, o])", "t.hstack([t.tensor(1.0, dtype=d), o])",
        "t.vstack([v, o[:5]])", "t.vstack([o, o])", "t.vstack([v, v[:, :2]])", "t.dstack([v, v])",
        "t.dstack([o, o])", "t.dstack([b, b])", "t.column_stack([o, o])",
        "t.column_stack([o, c[:, :1].expand(6, 1)[:1].expand(7, 1)])",
        "t.column_stack([o[:3], v])", "t.row_stack([o[:5], v])", "t.hstack([])", "t.vstack([])",
        "t.dstack([t.tensor(1.0, dtype=d)])",
        "t.column_stack([t.tensor(1.0, dtype=d), t.tensor(2.0, dtype=d)])",
    ],
    "split": [
        "w.split(2)", "w.split(2, dim=1)", "w.split([1, 4], dim=0)", "w.split([2, 2], dim=0)",
        "w.split([2, 4], dim=0)", "w.split(0)", "w.split(-1)", "w.split(10)", "t.split(w, [0, 5])",
        "t.split(w, (3, 3, 1), dim=-1)", "w.split_with_sizes([2, 3])", "w.split_with_sizes([2, 2])",
        "e.split(2)", "e.split(0)", "w.split([5], -3)", "w.split(2, dim=3)",
        "w.tensor_split(3)", "w.tensor_split(3, dim=1)", "w.tensor_split([1, 3])",
        "w.tensor_split((1, 9), dim=2)", "w.tensor_split([4, 1])", "w.tensor_split(0)",
        "w.tensor_split(t.tensor(2))", "w.tensor_split(t.tensor([1, 4]), dim=1)",
        "w.tensor_split(t.tensor([[1]]))", "w.tensor_split(t.tensor(2.0))", "w.tensor_split(-1)",
        "w.tensor_split([-1, 2])", "w.tensor_split(7, dim=2)",
        "t.tensor(1.0, dtype=d).tensor_split(2)",
        "t.hsplit(w, 3)", "t.hsplit(w, [1, 2])", "t.hsplit(w, 4)", "t.hsplit(o, 7)",
        "t.hsplit(o, 2)",
        "t.vsplit(w, 5)", "t.vsplit(o, 7)", "t.vsplit(w, [2])", "t.dsplit(w, 7)", "t.dsplit(v, 5)",
        "t.dsplit(w, [3, 5])", "t.dsplit(w, 2)", "t.hsplit(t.tensor(1.0, dtype=d), 1)",
    ],
    "chunk": [
        "w.chunk(2)", "w.chunk(3)", "w.chunk(4)", "w.chunk(5)", "w.chunk(6)", "w.chunk(3, dim=1)",
        "w.chunk(4, dim=1)", "o.chunk(4)", "o.chunk(5)", "o.chunk(6)", "t.chunk(o, 3, -1)",
        "w.chunk(0)", "w.chunk(-1)", "e.chunk(3)", "z.chunk(2, dim=1)", "w.chunk(2, dim=3)",
        "t.tensor(1.0, dtype=d).chunk(1)",
        "w.unbind()", "w.unbind(1)", "t.unbind(w, -1)", "w.unbind(3)", "e.unbind()",
        "z.unbind(1)", "t.tensor(1.0, dtype=d).unbind()",
    ],
    "narrow": [
        "w.narrow(0, 1, 2)", "w.narrow(-1, 2, 3)", "w.narrow(1, t.tensor(1), 3)",
        "w.narrow(1, -2, 2)", "w.narrow(1, 4, 3)", "w.narrow(1, 7, 0)", "w.narrow(1, 6, 0)",
        "w.narrow(0, 0, -1)", "w.narrow(3, 0, 1)", "w.narrow(0, t.tensor(1.0), 1)",
        "w.narrow(0, t.tensor([1]), 1)", "t.narrow(w, 2, -7, 7)", "t.narrow(w, 2, -8, 1)",
        "t.narrow_copy(w, 1, 1, 2)", "t.tensor(1.0, dtype=d).narrow(0, 0, 1)",
    ],
    "flip": [
        "b.flip(0)", "b.flip((0, 2))", "b.flip(-1)", "b.flip([])", "b.flip(0, 0)", "b.flip(3)",
        "t.flip(b, dims=(1,))", "t.fliplr(v)", "t.fliplr(o)", "t.flipud(o)", "t.flipud(v)",
        "t.flipud(t.tensor(1.0, dtype=d))", "z.flip(1)",
        "b.roll(1)", "b.roll(1, 0)", "b.roll((1, -2), (0, 2))", "b.roll(5, -1)", "b.roll(-25)",
        "b.roll((1, 2), 0)", "b.roll(1, (0, 1))", "b.roll(1, 3)",
        "t.roll(b, shifts=[1, 1], dims=[1, 1])",
        "z.roll(1, 1)", "e.roll(2)", "b.transpose(0, 2).roll(3)", "b.roll(())", "b.roll((), ())",
        "s.rot90()", "b.rot90(1, (1, 2))", "b.rot90(-1)", "b.rot90(2, [0, 2])", "b.rot90(3)",
        "b.rot90(-3, (2, 1))", "b.rot90(5)", "b.rot90(1, (0, 0))", "b.rot90(1, (0,))",
        "b.rot90(1, (0, 3))", "o.rot90()", "b.rot90(0)", "t.rot90(b, -6, (0, -1))",
    ],
    "diag": [
        "s.diagonal()", "s.diagonal(1)", "s.diagonal(-2)", "s.diagonal(4)", "s.diagonal(-5)",
        "b.diagonal(0, 1, 2)", "b.diagonal(1, -1, 0)", "b.diagonal(dim1=0, dim2=0)",
        "b.diagonal(0, 0, 3)", "t.diagonal(w, offset=-1, dim1=2, dim2=0)", "o.diagonal()",
        "t.diag_embed(v)", "t.diag_embed(v, 1)", "t.diag_embed(v, -2, 0, 2)",
        "t.diag_embed(v, 0, 1, 1)", "t.diag_embed(o, offset=3, dim1=-1, dim2=0)",
        "t.diag_embed(v, 0, 0, 3)", "t.diagflat(v)", "t.diagflat(o, 2)", "t.diagflat(s, -1)",
        "t.diagflat(t.tensor(3.0, dtype=d))", "t.diag(o, -1)", "t.diag(s, 1)", "t.diag(b)",
        "s.tril()", "s.tril(1)", "s.tril(-10)", "s.triu(10)", "s.triu(-10)", "b.triu(1)",
        "b.tril(-1)", "z.tril()", "o.tril()", "t.tril(v, diagonal=2)", "t.triu(i, 1)",
        "t.triu(k.reshape(1, 3), -1)",
    ],
    "take": [
        "t.take_along_dim(v, t.tensor([[0], [2], [1]]), dim=1)",
        "t.take_along_dim(v, t.tensor([[0, 4]]), dim=1)", "t.take_along_dim(v, t.tensor([3, 14]))",
        "t.take_along_dim(v, t.tensor([[0], [2], [1]]), dim=-1)",
        "v.take_along_dim(t.tensor([[[1]]]), 1)", "v.take_along_dim(t.tensor([[5]]), 1)",
        "v.take_along_dim(t.tensor([[1.0]]), 1)", "v.take_along_dim(t.tensor([[1]]), 2)",
        "v.take_along_dim(v.argsort(dim=0), 0)", "t.take_along_dim(b, t.tensor([[[0, 1]]]), 2)",
    ],
    "einsum": [
        "t.einsum('...ij,...jk->...ik', b, m[:, :4].transpose(1, 2)[:, :4])",
        "t.einsum('ii->i', s)", "t.einsum('ii', s)",
        "t.einsum('iij->ij', s[:, :, None].expand(4, 4, 2))",
        "t.einsum('bij->bji', b)", "t.einsum('...i->...', b)", "t.einsum('i...->...', b)",
        "t.einsum('...', b)", "t.einsum('b...d,b...d->b...', b, b)", "t.einsum('ij,jk', s, s)",
        "t.einsum(s, [0, 1], s, [1, 2], [0, 2])", "t.einsum(b, [Ellipsis, 0], [Ellipsis])",
        "t.einsum(s, [0, 0])", "t.einsum('ij,jk->ik', [s, s])", "t.einsum('i,j->ij', o, o[:3])",
        "t.einsum('ij->ji', b)", "t.einsum('ij,jk->ik', s)", "t.einsum('ij,jk->il', s, s)",
        "t.einsum('ii->i', v)", "t.einsum('i->ii', o)",
        "t.einsum('ij,ij->', s, i[:, :4].to(d)[:1].expand(4, 4))",
        "t.einsum('bn,anm,bm->ba', v[:1, :4], s[None].expand(2, 4, 4), v[1:2, 1:])",
        "t.einsum('i,i', o, i.flatten()[:7])", "t.einsum('...ii->...i', b[:, :3, :3])",
        "t.einsum('a...,a...->...', b, b[:, :1])", "t.einsum('..i', b)", "t.einsum('Ab->bA', s)",
    ],
    "atleast": [
        "t.atleast_1d(t.tensor(1.0, dtype=d))", "t.atleast_1d(o)", "t.atleast_2d(o)",
        "t.atleast_2d(t.tensor(1.0, dtype=d))", "t.atleast_3d(o)", "t.atleast_3d(v)",
        "t.atleast_3d(t.tensor(1.0, dtype=d))", "t.atleast_3d(w)", "t.atleast_1d(o, v)",
        "t.atleast_2d([o, v])", "t.atleast_3d((o,))", "t.atleast_1d()", "t.atleast_2d(e)",
        "t.atleast_3d(e)", "t.atleast_3d(z)",
    ],
    "args": [
        "b.reshape(t.tensor(4), -1)", "b.reshape(2.0, 12)", "b.reshape((2, 12.0))",
        "b.view(t.tensor([4, 6]))", "b.reshape([t.tensor(4), 6])", "b.reshape(t.Size([4, 6]))",
        "b.view(None)", "b.reshape(2, None)", "b.permute(t.tensor(2), 0, 1)",
        "b.permute([2.0, 0, 1])",
        "b.repeat(t.tensor(2), 1, 1)", "b.repeat([2, 1.5, 1])", "b.expand(t.tensor(2), 2, 3, 4)",
        "b.flatten(t.tensor(1))", "b.squeeze(t.tensor(0))", "b.unsqueeze(1.0)",
        "b.transpose(0, '1')",
        "b.movedim(t.tensor(0), 1)", "b.split(t.tensor(2), 1)", "b.split([t.tensor(1), 2], 1)",
        "b.chunk(t.tensor(2))", "b.narrow(0, 1.0, 1)", "b.narrow(0, 0, t.tensor(1))",
        "t.cat([b, b], dim=t.tensor(1))", "t.stack([b, b], 1.0)", "t.cat(b, b)", "t.cat([b, 1.0])",
        "t.stack([b, None])", "t.cat([b, b], dim='x')", "t.roll(b, 1.5)", "t.flip(b, 0.0)",
        "b.tile(2.0)", "b.unflatten(1, 3)", "b.unflatten(1, [3.0, 1])",
    ],
    "keywords": [
        "t.cat([v, v], axis=1)", "t.stack([v, v], axis=1)", "t.concat(tensors=[v, v], dim=1)",
        "v.squeeze(dim=None)", "b.transpose(dim0=0, dim1=1)", "b.movedim(source=0, destination=1)",
        "t.split(w, split_size_or_sections=2)", "w.split(split_size=2)",
        "t.roll(b, shifts=1, dims=0)",
        "t.flip(b, dims=0)", "t.tile(b, dims=(2,))", "v.repeat(repeats=(2, 1))",
        "v.view(size=(15,))",
        "v.reshape(shape=(15,))", "v.expand(size=(2, 3, 5))", "v.permute(dims=(1, 0))",
        "b.flatten(start_dim=1)", "t.unflatten(b, dim=1, sizes=(3, 1))",
        "t.chunk(w, chunks=2, dim=1)",
        "w.tensor_split(indices=[1, 2])", "w.tensor_split(sections=2)",
        "w.tensor_split(tensor_indices_or_sections=t.tensor(2))",
        "t.narrow(w, dim=0, start=1, length=2)", "t.rot90(b, k=1, dims=[0, 1])",
        "t.diagonal(b, offset=0, dim1=1, dim2=2)",
        "t.hsplit(w, sections=2)", "t.hsplit(w, indices=[2])", "t.movedim(b, 0, destination=2)",
        "b.unsqueeze(dim=0)", "t.swapaxes(b, axis0=0, axis1=1)", "t.swapdims(b, dim0=0, dim1=1)",
        "t.broadcast_to(v, size=(2, 3, 5))", "t.repeat_interleave(v, repeats=2, dim=1)",
        "t.take_along_dim(v, indices=t.tensor([[0]]), dim=1)", "t.atleast_2d(tensors=o)",
    ],
    "views": [
        "b.view(t.int64)", "b.view(t.int32).shape", "b.view(t.float16).stride()",
        "b[:, :, :1].view(t.int32)",
        "b.transpose(1, 2).view(t.int32)", "b.view(t.uint8).shape",
        "t.tensor(1.0, dtype=d).view(t.int32)",
        "o.unfold(0, 3, 2)", "o.unfold(0, 3, 2).stride()", "b.unfold(2, 2, 1)",
        "b.unfold(-1, 4, 4)",
        "b.unfold(2, 5, 1)", "b.unfold(2, 0, 1)", "b.unfold(2, 2, 0)",
        "t.tensor(1.0, dtype=d).unfold(0, 1, 1)",
        "b.as_strided((2, 2), (1, 4))", "b.as_strided((3,), (2,), 5)", "b.as_strided((30,), (1,))",
        "b.as_strided((2,), (-1,))", "b.transpose(0, 1).expand(2, 3, 2, 4).stride()",
        "v[:, None].expand(3, 4, 5).stride()", "t.broadcast_to(v.t(), (2, 5, 3)).stride()",
        "b.movedim(0, 2).stride()", "b[:, ::2].flatten(0, 1).stride()",
        "b[:, ::2].reshape(-1)._base is None",
        "b.transpose(0, 1).reshape(3, 8)._base is None",
        "b.transpose(1, 2).reshape(2, 12)._base is None",
        "b.unsqueeze(1).squeeze(1).stride()", "b[:, :1].squeeze().stride()",
        "z.reshape(3, 0).stride()",
        "z.transpose(0, 2).contiguous().stride()", "t.empty(0, 3, dtype=d).t().stride()",
        "w.split(2)[2].stride()", "w.split(2)[2].storage_offset()",
        "w.chunk(3, 2)[1].storage_offset()",
        "w.unbind(2)[3].stride()", "w.diagonal(1, 1, 2).stride()",
        "w.diagonal(1, 1, 2).storage_offset()",
        "w.narrow(2, 3, 2).storage_offset()", "w.tensor_split([2], 1)[1].storage_offset()",
        "t.diag_embed(v).stride()", "t.atleast_3d(v)._base is v", "t.atleast_2d(v) is v",
    ],
    "errors2": [
        "t.einsum('ij,jk->ik', s, v)", "t.einsum('i->j', o)", "t.einsum('i j -> i', s)",
        "t.einsum('ij->i')",
        "t.einsum('...ij,jk', b, c[:4])", "t.einsum('ij,jk', i, i.t())",
        "t.einsum('->', t.tensor(2.0, dtype=d))",
        "t.einsum('i,i->', o, i.flatten()[:7].to(d))", "t.einsum('ij,jk->ik', s, i)",
        "t.einsum('ij-', s)",
        "t.einsum('ij->ij->', s)", "t.einsum('i...j,...->ij', b, o)", "t.einsum('i..j', s)",
        "t.einsum('ij', s, s)",
        "t.einsum('1i', s)", "t.einsum('ijk', s)", "t.einsum('ij->ii', s)",
        "t.einsum(s, [0, 1], [2])",
        "t.einsum(s, [0, 53])", "t.einsum(s, [0, -1])",
        "t.einsum('bhqd,bhkd->bhqk', b[None], b[None])",
        "v.repeat_interleave(2, dim=2)", "v.repeat_interleave(t.tensor([[1, 2]]), dim=0)",
        "v.repeat_interleave(2, dim=0, output_size=5)",
        "v.repeat_interleave(t.tensor([1, 2, 3]), output_size=6)",
        "t.repeat_interleave(t.tensor([1.5, 2.0]))", "t.repeat_interleave(v, 2.5)",
        "t.cat([v, t.tensor(1.0, dtype=d)])", "t.cat([t.tensor(1.0, dtype=d), v])",
        "t.cat([k, i]).dtype", "t.cat([h, i]).dtype", "t.cat([h.float(), h]).dtype",
        "t.stack([v, v[:, :2]])", "t.stack([v, v], 4)", "t.hstack([v, o])", "t.dstack([v, v[:2]])",
        "t.column_stack([o, v])", "t.vstack([o, o[:3]])",
        "w.split([1, 1], 0)", "w.split([6, -1], 0)", "w.split([], 0)",
        "w.split_with_sizes([5, 0, 0])",
        "w.tensor_split([1.5])", "w.tensor_split(2.0)", "w.tensor_split(t.tensor([1.0]))",
        "w.tensor_split(t.tensor([[1, 2]]))", "w.tensor_split(t.tensor([1, 2]).to(t.int32))",
        "t.hsplit(w, 0)", "t.vsplit(o, 2)", "t.dsplit(s, 2)", "t.hsplit(t.tensor(1.0, dtype=d), 2)",
        "w.chunk(2, 3)", "w.unbind(-4)", "w.narrow(0, 2, 4)", "w.narrow(0, -6, 1)",
        "w.narrow(-4, 0, 1)",
        "b.flip(0, 3)", "b.flip((0, -3))", "b.roll([1, 2], [0])", "b.roll(1, (0, 4))",
        "b.rot90(1, (0, 1, 2))", "b.rot90(1, (4, 1))", "t.rot90(o, 1, (0, 0))",
        "s.diagonal(0, 0, 2)", "t.diag_embed(v, 0, 0, 0)", "t.diag_embed(v, 0, 0, -4)",
        "t.diag(b, 1)",
        "t.tril(o)", "t.triu(t.tensor(1.0, dtype=d))", "b.expand(2, 3)", "b.expand(2, 3, 5)",
        "b.expand(3, 3, 4)",
        "b.expand(2, -1, -2)", "b.expand(1, 2, 3, 4, 5)", "b.expand(-1, -1, -1, -1)",
        "b.movedim(0, 5)", "b.movedim((0, 1), (2, 2))", "b.movedim((0, 0), (1, 2))",
        "b.movedim((0, 1), 1)",
        "b.permute(0, 1, 2, 3)", "b.permute(0, 1, -4)", "b.permute(1, 1, 1)", "b.squeeze(3)",
        "b.squeeze((0, 3))",
        "b.unsqueeze((0, 1))", "b.flatten(0, 3)", "b.flatten(-4)", "b.unflatten(-4, (1, 2))",
        "b.unflatten(1, (2, 3))",
        "t.nn.Unflatten(1, (2, 3))(b)", "t.nn.Unflatten(1, (-1, -1))(b)",
        "t.nn.Unflatten(4, (1,))(b)",
        "b.view(5, -1)", "b.view(-1, 7)", "b.view(2, -1, 0)", "b.transpose(0, 1).view(24)",
        "b.view(1, 2, 3, 4, -1)",
        "b.reshape(-3)", "b.reshape(2, 3, 4, 1, 1, -1)",
    ],
    "edges": [
        "b.reshape(-1, 3, 0)", "z.view(0)", "z.view(-1, 0)", "z.reshape(2, -1, 0)",
        "e.unflatten(0, (0, -1))", "e.unflatten(0, (2, -1))", "b.flatten(-1, 0)",
        "b.squeeze((0, -3))", "b.unsqueeze(0).unsqueeze(0).squeeze((0, 1)).shape",
        "t.squeeze(b, (1,))", "b.expand(0, 2, 3, 4)", "z.expand(2, 2, 0, 3)", "z.expand(2, 3, 3)",
        "t.broadcast_shapes((2, 0), (0,))", "t.broadcast_shapes((2, 3), (2,))",
        "t.broadcast_shapes((-1,), (1,))", "t.broadcast_shapes([2], 3)", "t.broadcast_shapes(2.0)",
        "t.broadcast_shapes((2, 1), t.Size([1, 3]))", "t.broadcast_shapes(t.tensor(2))",
        "t.broadcast_tensors(v, i)", "t.broadcast_tensors(v, o)", "t.broadcast_tensors([v, v])",
        "t.broadcast_tensors(v, 1.0)", "v.repeat(1, 0)", "e.repeat(0, 2)", "z.repeat(2, 1, 1)",
        "v.tile(0)", "t.tile(z, (2,))", "t.repeat_interleave(v, t.tensor([1, 2, 3, 4, 5]), dim=1)",
        "t.repeat_interleave(v, t.tensor([1, 2, 3, 4, 5]), dim=1, output_size=15)",
        "t.repeat_interleave(v, t.tensor([1, 2, 3, 4, 5]), dim=1, output_size=14)",
        "t.repeat_interleave(t.tensor([1, 2, 3]), 2)", "t.repeat_interleave(t.tensor(3))",
        "t.repeat_interleave(t.tensor([3]), output_size=3)",
        "t.repeat_interleave(t.tensor([], dtype=t.int64))", "t.repeat_interleave(v, 0)",
        "t.repeat_interleave(v, t.tensor(0), dim=0)",
        "v.repeat_interleave(t.tensor([1, 2, 3]).int(), dim=0)", "t.cat([e, e], dim=5)",
        "t.cat([e, z], dim=1)", "t.cat([z, e], dim=2)", "t.cat([e, v.int()])",
        "t.cat([e.int(), v])", "t.cat([e, v], dim=-5)", "t.cat([z, z], dim=-1)", "t.cat((v,), 1)",
        "t.cat([v, v], dim=None)", "t.cat([k, h])", "t.cat([i, h])", "t.cat([i.int(), i.short()])",
        "t.cat([i.to(t.uint8), i.to(t.int8)])", "t.cat([t.zeros(0, 3, dtype=d), v])",
        "t.cat([t.zeros(0, 4, dtype=d), v])", "t.cat([t.zeros(0, 4, dtype=d), v], dim=1)",
        "t.cat([v, t.zeros(3, 0, dtype=d)], dim=1)", "t.stack([z, z], 3)", "t.stack([e])",
        "t.stack([v, v.int()])", "t.stack([t.tensor(1), t.tensor(1.5, dtype=d)])",
        "t.hstack([e, e])", "t.hstack([e, v])", "t.vstack([e, e])", "t.vstack([e, o])",
        "t.dstack([e])", "t.column_stack([e, e])", "t.column_stack([e])", "t.row_stack([o])",
        "t.column_stack([t.tensor(1.0, dtype=d), o[:1]])", "t.column_stack([v, w])",
        "t.hstack([v, i])", "t.dstack([k, k])", "t.split(e, 3)", "t.split(e, [0])",
        "t.split(z, 0, dim=1)", "t.split(z, [0, 0], dim=1)", "t.split(w, [2, 3], dim=-3)",
        "o.split(3)", "o.split([3, 4])", "o.split(7)", "o.split(8)", "o.tensor_split(8)",
        "o.tensor_split([10])", "o.tensor_split([10, 2])", "o.tensor_split([])",
        "o.tensor_split(t.tensor([]))", "o.tensor_split(t.tensor([], dtype=t.int64))",
        "o.tensor_split(t.tensor([3]))", "o.tensor_split(t.tensor([[3]]))", "e.tensor_split(3)",
        "t.hsplit(v, [1, 1])", "t.vsplit(v, [1, 1])", "t.vsplit(e, 1)", "t.hsplit(e, 1)",
        "t.dsplit(w, [8])", "o.chunk(7)", "o.chunk(8)", "o.chunk(1)", "z.chunk(3, 0)",
        "w.chunk(3, -1)", "w.chunk(True)", "w.unbind(True)", "o.narrow(0, 7, 0)",
        "o.narrow(0, -7, 7)", "o.narrow(0, 8, 0)", "o.narrow(0, t.tensor(8), 0)",
        "o.narrow(0, 1, 7)", "o.narrow(0, t.tensor(-1), 1)", "b.flip((-1, 2))",
        "b.flip((0, 1, 2))", "t.fliplr(t.tensor(1.0, dtype=d))", "t.flipud(e)", "t.fliplr(e)",
        "b.roll(0)", "b.roll(-1, 0)", "b.roll((1,), (0, 1))", "b.roll((1, 2), ())", "e.roll(3, 0)",
        "z.roll(5)", "b.roll(t.tensor(1), 0)", "b.roll(1, t.tensor(0))", "b.roll(True)",
        "s.rot90(4)", "s.rot90(-4)", "s.rot90(1, (1, 0))", "s.rot90(1, [-1, -2])",
        "s.rot90(1, (0, 2))", "t.rot90(t.tensor(1.0, dtype=d))", "z.rot90(1, (0, 1))",
        "z.rot90(1, (1, 2))", "s.diagonal(0, 1, 0)", "s.diagonal(-4)", "s.diagonal(3)",
        "z.diagonal()", "z.diagonal(1, 1, 2)", "t.diag_embed(e)", "t.diag_embed(z)",
        "t.diag_embed(t.tensor(1.0, dtype=d))", "t.diag_embed(v, 0, -1, -2)",
        "t.diag_embed(v, 0, 2, 1)", "t.diag_embed(v, 2, 2, 1)", "t.diagflat(e)",
        "t.diagflat(e, 2)", "t.diagflat(z)", "t.diagflat(i)", "t.diagflat(o, -8)", "t.diag(e)",
        "t.diag(t.tensor(1.0, dtype=d))", "t.diag(z[0])", "s.tril(3)", "z.tril(1)",
        "t.tril(t.zeros(3, 0, dtype=d))", "b.transpose(1, 2).tril()", "b.transpose(1, 2).triu(-1)",
        "t.tril(k[None].expand(3, 3))", "t.triu(h)", "s.tril(t.tensor(1))", "s.tril(1.0)",
        "t.take_along_dim(v, t.tensor([[0], [2], [1]]))",
        "t.take_along_dim(v, t.tensor([0, 2]), dim=0)",
        "t.take_along_dim(v, t.tensor([[-1]]), dim=1)",
        "t.take_along_dim(v, t.tensor([[1]]).int(), dim=1)",
        "t.take_along_dim(v, t.tensor([[1]], dtype=t.int16), dim=1)",
        "t.take_along_dim(e, t.tensor([], dtype=t.int64))",
        "t.take_along_dim(v, t.zeros(3, 0, dtype=t.int64), dim=1)",
        "t.take_along_dim(v, t.tensor([[0, 1]]), dim=0)",
        "t.take_along_dim(v, t.tensor([[[0]]]), dim=0)", "t.atleast_1d(1.0)", "t.atleast_1d([o])",
        "t.atleast_2d(o, o)", "t.atleast_3d(z)", "t.atleast_3d(c)", "t.atleast_1d(None)",
        "t.atleast_2d([])", "t.atleast_3d(o, [v])",
    ],
    "einsum2": [
        "t.einsum('ij,ij->i', s, s)", "t.einsum('i,i->i', o, o)", "t.einsum('ijk->kji', b)",
        "t.einsum('ii->', s)", "t.einsum('iji->j', t.ones(3, 2, 3, dtype=d))",
        "t.einsum('...,...->...', o, t.tensor(2.0, dtype=d))", "t.einsum('i,j', o, o)",
        "t.einsum('ba', s)", "t.einsum('ab', s)", "t.einsum('Ba,aC', s, s)",
        "t.einsum('zZ->Zz', s)", "t.einsum('...i,...i', b, b)",
        "t.einsum('...ij,...j->...i', b, b[0, 0])", "t.einsum('b...,b->b...', v, v[:, 0])",
        "t.einsum('ab...,ab...->ab', b, b)", "t.einsum('...ab,ab->...', b, b[0])",
        "t.einsum(' ij , jk -> ik ', s, s)", "t.einsum('ij,jk->ik', s, s[:, :2])",
        "t.einsum('i,j->', o, o)", "t.einsum('ij->', e[:, None].expand(0, 3))",
        "t.einsum('ij,jk->ik', t.zeros(2, 0, dtype=d), t.zeros(0, 3, dtype=d))",
        "t.einsum('ij,j->i', i, i[0])", "t.einsum('i,i', k, k)", "t.einsum('ij,jk->ik', h, h.t())",
        "t.einsum('i,j->ij', o, i[0].to(d))", "t.einsum(s, [1, 0])",
        "t.einsum(s, [0, 1], s, [1, 2])",
        "t.einsum(b, [0, Ellipsis], b, [0, Ellipsis], [Ellipsis])",
        "t.einsum(b, [Ellipsis, 1, 2], [2, Ellipsis])", "t.einsum(o, [0], o, [1], [0, 1])",
        "t.einsum(o, (0,), o, (1,), (1, 0))", "t.einsum(o, [52])", "t.einsum(o, [0], [])",
        "t.einsum('i->', o)", "t.einsum('...->...', t.tensor(1.0, dtype=d))",
        "t.einsum('ij...,jk...->ik...', s[..., None], s[..., None])",
        "t.einsum('bhnd,bhmd->bhnm', b[None].expand(2, 2, 3, 4), b[None].expand(2, 2, 3, 4))",
        "t.einsum('b i d, b j d -> b i j', b, b)",
        "t.einsum('ijk,ikl->ijl', b, b.transpose(1, 2))", "t.einsum('i,i,i->', o, o, o)",
        "t.einsum('ij,jk,kl->il', s, s, s)", "t.einsum('ii->ii', s)",
        "t.einsum('i,i->', o, o[:1])", "t.einsum('i,i->', o[:1], o)",
        "t.einsum('ij,ij->ij', s[:1], s)", "t.einsum('...ij,...jk', b[None], s[:, :3])",
        "t.einsum('ij..', s)", "t.einsum('i.j', s)", "t.einsum('...i...', s)",
        "t.einsum('i->i...', o)", "t.einsum('i,->i', o, t.tensor(2.0, dtype=d))",
        "t.einsum('i->i', o, o)", "t.einsum('ij->i', o)", "t.einsum('i->ij', o)",
        "t.einsum('ij->jj', s)", "t.einsum(s, [0, 1], s)", "t.einsum(s, [0, 'a'])", "t.einsum(s)",
        "t.einsum()", "t.einsum('ij')", "t.einsum(1, s)", "t.einsum('ij', [s])",
        "t.einsum('ij', (s,))", "t.einsum('ij,jk', [s, s])", "t.einsum('i', o.int())",
        "t.einsum('i,i', o, o.float())", "t.einsum('ab,ba->', s, s.t().contiguous().t())",
    ],
    "einops": [
        "einops.rearrange(b, 'b h w -> b (h w)')",
        "einops.rearrange(b, 'b h (w c) -> b c h w', c=2)",
        "einops.rearrange(b, 'b h w -> (b h) w')", "einops.rearrange(b, 'b ... -> b (...)')",
        "einops.rearrange(b, '... w -> w ...')", "einops.rearrange([v, v], 'n h w -> h (n w)')",
        "einops.rearrange(b, 'b h w -> b h w 1')", "einops.rearrange(a, '1 b h w -> b h w')",
        "einops.rearrange(b, 'b h (w c) -> b c h w', c=3)", "einops.rearrange(b, 'b h w -> b w')",
        "einops.repeat(v, 'h w -> h w c', c=2)", "einops.repeat(v, 'h w -> (h 2) w')",
        "einops.repeat(v, 'h w -> (2 h) (w 3)')", "einops.repeat(o, 'n -> b n', b=3)",
        "einops.reduce(b, 'b h w -> b', 'mean')", "einops.reduce(b, 'b h w -> b h', 'max')",
        "einops.reduce(b, 'b (h h2) (w w2) -> b h w', 'sum', h2=3, w2=2)",
        "einops.reduce(b, 'b h w -> b h 1', 'min')", "einops.reduce(b, 'b h w -> h w', 'prod')",
        "einops.reduce(b, 'b h w -> b h w', 'mean')", "einops.reduce(i, 'h w -> h', 'mean')",
        "einops.pack([b, v], '* w')", "einops.pack([b, v[:, :4]], '* w')",
        "einops.pack([b, v[:, :4]], '* w')[0]",
        "einops.unpack(w.flatten(0, 1), [[5], [5, 1]], '* w')",
        "einops.unpack(w.flatten(0, 1), [[5], [5, 5]], '* w')",
        "einops.einsum(b, b, 'b i d, b j d -> b i j')",
        "einops.einsum(s, s, s, 'a b, b c, c d -> a d')",
        "einops.rearrange(b, 'b h w -> b h w', h=3)", "einops.rearrange(b, 'b h w -> b h w', h=4)",
        "einops.rearrange(b.transpose(1, 2), 'b w h -> b (w h)')",
        "einops.rearrange(e, '(a b) -> a b', a=2)", "einops.rearrange(z, 'a b c -> (a b) c')",
        "einops.rearrange(z, 'a b c -> b (a c)')", "einops.parse_shape(b, 'b h _')",
        "einops.reduce(b, 'b h w -> b w', 'any')", "einops.reduce(b > 0, 'b h w -> b w', 'any')",
        "einops.reduce(b > 0, 'b h w -> b w', 'all')",
        "einops.reduce(b, 'b h w -> b w', lambda x, axes: x.sum(axes) * 2)",
    ],
    "writes": [
        "(lambda x: x.split(2)[0].mul_(2))(w.clone().requires_grad_())",
        "(lambda x: x.split(2)[0].mul_(2))(w.clone())",
        "(lambda x: (x * 1).split(2)[0].mul_(2))(w.clone().requires_grad_())",
        "(lambda x: (x * 1).unbind(0)[1].add_(1))(w.clone().requires_grad_())",
        "(lambda x: (x * 1).chunk(2)[1].zero_())(w.clone().requires_grad_())",
        "(lambda x: (x * 1).tensor_split(2)[1].zero_())(w.clone().requires_grad_())",
        "(lambda x: (x * 1).split([2, 3])[1].zero_())(w.clone().requires_grad_())",
        "(lambda x: t.hsplit(x * 1, 2)[1].zero_())(w.clone().requires_grad_())",
        "(lambda x: (x * 1).narrow(0, 1, 2).zero_())(w.clone().requires_grad_())",
        "(lambda x: (x * 1).diagonal().zero_())(s.clone().requires_grad_())",
        "(lambda x: (x * 1).expand(2, 3, 5).zero_())(v.clone().requires_grad_())",
        "(lambda x: x.expand(2, 3, 5).add_(1))(v.clone())",
        "(lambda x: x[:, :1].expand(3, 5).mul_(1))(v.clone())",
        "(lambda x: x.expand(2, 3, 5).copy_(t.zeros(2, 3, 5, dtype=d)))(v.clone())",
        "(lambda x: x.unflatten(1, (5, 1)).squeeze(2).add_(1) is None)(v.clone())",
        "(lambda x: (x.split(2)[0].add_(1), x._version, x.split(2)[1]._version))(w.clone())",
        "(lambda x: (x.unbind(0)[0].add_(1), x)[1])(v.clone())",
        "(lambda x: (x.t().reshape(-1).add_(1), x)[1])(v.clone())",
        "(lambda x: (x.reshape(-1).add_(1), x)[1])(v.clone())",
        "(lambda x: (x.flatten().add_(1), x)[1])(v.clone())",
        "(lambda x: (x.movedim(0, 1).flatten(0, 1).add_(1), x)[1])(v.clone())",
        "(lambda x: (x.permute(1, 0).add_(1), x)[1])(v.clone())",
        "(lambda x: (x.squeeze().add_(1), x)[1])(v.clone())",
        "(lambda x: (t.atleast_2d(x).add_(1), x)[1])(o.clone())",
        "(lambda x: (x.flip(0).add_(1), x)[1])(o.clone())",
        "(lambda x: (x.roll(1).add_(1), x)[1])(o.clone())",
        "(lambda x: (x.rot90().add_(1), x)[1])(s.clone())",
        "(lambda x: (x.tril().add_(1), x)[1])(s.clone())",
        "(lambda x: (x.repeat(1, 1).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.tile((1,)).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.broadcast_to(x, (4, 4)).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.broadcast_tensors(x, x)[0].add_(1), x)[1])(s.clone())",
        "(lambda x: (t.take_along_dim(x, t.tensor([[0]]), 1).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.flatten(0, 0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.t().flatten().add_(1), x)[1])(s.clone())",
        "(lambda x: (x.unflatten(0, (2, 2)).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.hstack([x]).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.cat([x]).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.stack([x])[0].add_(1), x)[1])(s.clone())",
        "(lambda x: (x.narrow(0, 0, 4).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.contiguous().add_(1), x)[1])(s.clone())",
        "(lambda x: (x.view_as(x).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.reshape_as(x).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.expand_as(x).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.repeat_interleave(1).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.diagonal(0, 0, 1).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.diag(x).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.swapaxes(0, 0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.movedim(0, 0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.split(4)[0].add_(1), x)[1])(s.clone())",
        "(lambda x: (x.chunk(1)[0].add_(1), x)[1])(s.clone())",
        "(lambda x: (x.tensor_split(1)[0].add_(1), x)[1])(s.clone())",
        "(lambda x: (t.atleast_1d(x).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.einsum('ij->ij', x).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.einsum('ii->i', x).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.einsum('ij->ji', x).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.column_stack([x]).add_(1), x)[1])(s.clone())",
        "(lambda x: (t.unflatten(x, 0, (4,)).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.squeeze(0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.mT.add_(1), x)[1])(s.clone())",
        "(lambda x: (x.fliplr().add_(1), x)[1])(s.clone())",
        "(lambda x: (x.rot90(0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.rot90(4).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.roll(0).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.flip([]).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.tril(5).add_(1), x)[1])(s.clone())",
        "(lambda x: (x.unfold(0, 4, 1)[0].add_(1), x)[1])(s.clone())",
    ],
    "copies": [
        "t.split_copy(w, 2)", "t.split_with_sizes_copy(w, [2, 3])", "t.unbind_copy(w, 1)",
        "t.diagonal_copy(s, 1)", "t.expand_copy(v, (2, 3, 5))", "t.permute_copy(b, (2, 0, 1))",
        "t.t_copy(s)", "t.transpose_copy(b, 0, 2)", "t.unsqueeze_copy(b, 1)", "t.squeeze_copy(a)",
        "t.squeeze_copy(a, 1)", "t.squeeze_copy(a, (0, 1))", "t.view_copy(b, (4, 6))",
        "t.view_copy(b, t.int32)", "t.unfold_copy(o, 0, 2, 2)", "t.alias_copy(b)",
        "t.detach_copy(b)", "t.select_copy(b, 1, 0)", "t.slice_copy(b, 1, 0, 2)",
        "t.as_strided_copy(b, (2, 2), (1, 2))", "t.ravel(b.t() if False else b.transpose(0, 2))",
        "t.ravel(e)", "b.ravel()", "t.select_scatter(b, t.zeros(2, 4, dtype=d), 1, 0)",
        "t.slice_scatter(b, t.zeros(2, 1, 4, dtype=d), 1, 0, 1)",
        "t.slice_scatter(b, t.zeros(2, 2, 4, dtype=d), 1, 0, 3, 2)",
        "t.slice_scatter(b, t.zeros(2, 2, 4, dtype=d), 1, 0, 1)",
        "t.diagonal_scatter(s, t.zeros(3, dtype=d), 1)",
        "t.diagonal_scatter(s, t.zeros(4, dtype=d), 1)",
        "t.as_strided_scatter(o, t.zeros(3, dtype=d), (3,), (2,))", "t.block_diag(s[:2], v, o)",
        "t.block_diag()", "t.block_diag(t.tensor(1.0, dtype=d), o[:2], i)", "t.block_diag(b)",
        "t.cartesian_prod(o[:2], o[:3])", "t.cartesian_prod(o[:2])", "t.combinations(o[:4])",
        "t.combinations(o[:4], 3, with_replacement=True)", "t.combinations(o[:4], 0)",
        "t.tril_indices(3, 4, 1)", "t.triu_indices(4, 3, -1)", "t.tril_indices(0, 0)",
        "t.kron(s[:2, :2], v)", "t.kron(o[:2], b)",
        "t.tensordot(b, m[:, :4].transpose(0, 1)[:4, :3].t()[:3, :4].reshape(3, 4), dims=2)",
        "t.tensordot(b, s, dims=([2], [0]))", "t.tensordot(b, s, dims=1)",
        "t.tensordot(b, s, dims=0).shape", "t.tensordot(b, s, dims=3)",
        "t.tensordot(b, s, dims=([2, 1], [0]))", "t.tensordot(b, s, dims=[[2], [1]])",
        "t.tensordot(b, s, dims=t.tensor(1))", "t.tensordot(b, s, dims=-1)", "t.inner(b, s)",
        "t.outer(o, o[:2])", "t.vdot(o, o)", "t.Tensor.expand(v, 2, 3, 5)",
        "v.resize_as_(t.zeros(5, 3, dtype=d)).shape", "t.swapdims(b, 0, 1)", "t.msort(v)",
        "t.unravel_index(t.tensor([5, 7]), (3, 4))", "t.unravel_index(t.tensor(13), (3, 4))",
        "t.unravel_index(t.tensor([13]), (3, 4))", "t.unravel_index(5, (3, 4))",
        "t.unravel_index(t.tensor([1.0]), (3, 4))", "t.unravel_index(t.tensor([1]), (3, -4))",
        "t.unravel_index(t.tensor([-1]), (3, 4))", "t.unravel_index(t.tensor([1]), ())",
    ],
    "inplace": [
        "t.cat([v, v], out=t.empty(6, 5, dtype=d, requires_grad=True))",
        "t.stack([v, v], out=t.empty(2, 3, 5, dtype=d, requires_grad=True))",
        "t.hstack([v, v], out=t.empty(3, 10, dtype=d, requires_grad=True))",
        "t.vstack([v, v], out=t.empty(6, 5, dtype=d, requires_grad=True))",
        "t.dstack([v, v], out=t.empty(3, 5, 2, dtype=d, requires_grad=True))",
        "t.column_stack([v, v], out=t.empty(3, 10, dtype=d, requires_grad=True))",
        "t.concatenate([v, v], out=t.empty(6, 5, dtype=d, requires_grad=True))",
        "t.tril(v, out=t.empty(3, 5, dtype=d, requires_grad=True))",
        "t.triu(v, 1, out=t.empty(3, 5, dtype=d, requires_grad=True))",
        "t.take_along_dim(v, t.tensor([[0]]), 1, out=t.empty(3, 1, dtype=d, requires_grad=True))",
        "t.cat([v.clone().requires_grad_(), v], out=t.empty(6, 5, dtype=d))",
        "t.tril(v.clone().requires_grad_(), out=t.empty(3, 5, dtype=d))",
        "t.narrow_copy(v, 0, 0, 1, out=t.empty(1, 5, dtype=d, requires_grad=True))",
        "t.permute_copy(v, (1, 0), out=t.empty(5, 3, dtype=d, requires_grad=True))",
        "t.view_copy(v, (15,), out=t.empty(15, dtype=d, requires_grad=True))",
        "t.expand_copy(v, (2, 3, 5), out=t.empty(2, 3, 5, dtype=d, requires_grad=True))",
        "t.diagonal_copy(v, out=t.empty(3, dtype=d, requires_grad=True))",
        "t.unsqueeze_copy(v, 0, out=t.empty(1, 3, 5, dtype=d, requires_grad=True))",
        "t.slice_scatter(v, v, out=t.empty(3, 5, dtype=d, requires_grad=True))",
        "t.unfold_copy(v, 0, 2, 1, out=t.empty(2, 5, 2, dtype=d, requires_grad=True))",
        "t.permute_copy(v, (1, 0), out=t.empty(5, 3, dtype=d))",
        "b.clone().squeeze_(0).shape", "b.clone()[None].squeeze_(0).shape",
        "b.clone().unsqueeze_(1).stride()", "b.clone().t_()", "s.clone().t_().stride()",
        "b.clone().transpose_(0, 2).stride()", "b.clone().swapdims_(0, 1).shape",
        "b.clone().swapaxes_(1, 2).shape", "b.clone().resize_(2, 12)",
        "b.clone().as_strided_((3, 2), (1, 3))",
        "b.clone().squeeze_((0, 1)).shape", "a.clone().squeeze_((0, 1)).shape",
        "t.cat([v, v], out=t.empty(6, 5, dtype=d))", "t.cat([v, v], out=t.empty(0, dtype=d))",
        "t.cat([v, v], out=t.empty(6, 5, dtype=t.int64))",
        "t.stack([v, v], out=t.empty(2, 3, 5, dtype=d))",
        "t.hstack([v, v], out=t.empty(3, 10, dtype=d))", "t.cat([v, v], out=v.clone())",
        "(lambda x: t.cat([x, x], out=x))(v.clone())",
        "t.cat([v.clone(), v], out=t.empty(6, 5, dtype=d)[:, ::2].t())",
        "t.repeat_interleave(t.tensor([1, 2]), output_size=4)",
        "v.repeat_interleave(t.tensor([1, 0, 2]), dim=0, output_size=2)",
    ],
}  # fmt: skip

# (expression of x, x's shape): gradients of a random-weighted sum, float64 ones gradchecked
GRADS = [
    ("x.reshape(-1, 2)", (3, 4)), ("x.flatten(0, 1)", (2, 3, 2)),
    ("x.unflatten(1, (2, -1))", (3, 4)),
    ("x.movedim((0, 1), (2, 0))", (2, 3, 4)), ("x.permute(-1, 0, 1)", (2, 3, 4)),
    ("x.swapaxes(0, 2)", (2, 3, 4)), ("x.squeeze((0, 2))", (1, 3, 1)), ("x.unsqueeze(-2)", (3, 2)),
    ("x.expand(2, -1, 3)", (4, 1)), ("t.broadcast_to(x, (2, 3, 4))", (3, 1)),
    ("t.broadcast_tensors(x, x[:1, None])[1]", (3, 2)), ("x.repeat(2, 1, 3)", (3, 2)),
    ("x.tile((2,))", (3, 2)), ("x.repeat_interleave(2, dim=0)", (3, 2)),
    ("x.repeat_interleave(t.tensor([1, 0, 2]), dim=0)", (3, 2)), ("x.repeat_interleave(3)", (2, 2)),
    ("t.cat([x, x * 2, t.zeros(0, dtype=x.dtype)], -1)", (3, 2)),
    ("t.stack([x, x.flip(0)], 1)", (3, 2)),
    ("t.hstack([x, x])", (4,)), ("t.vstack([x, x])", (4,)), ("t.dstack([x, x])", (2, 2)),
    ("t.column_stack([x, x[:, 0]])", (3, 2)), ("x.split([1, 3], 1)[1]", (2, 4)),
    ("x.tensor_split(3, dim=1)[2]", (2, 7)), ("t.hsplit(x, [1])[1]", (3, 3)),
    ("x.chunk(3)[2]", (7, 2)), ("x.unbind(1)[1] * x.unbind(1)[0]", (3, 2)),
    ("x.narrow(1, t.tensor(1), 2)", (3, 4)), ("t.fliplr(x)", (3, 4)),
    ("x.roll((1, -2), (0, 1))", (3, 4)),
    ("x.roll(5)", (3, 4)), ("x.rot90(-1, (1, 0))", (3, 4)), ("x.rot90(2)", (3, 4)),
    ("x.diagonal(1, 0, 2)", (3, 2, 4)), ("t.diag_embed(x, -1)", (2, 3)),
    ("t.diagflat(x, 2)", (2, 2)),
    ("x.tril(-1) + x.triu(5)", (3, 4)), ("t.take_along_dim(x, t.tensor([[0, 2, 2]]), 1)", (3, 4)),
    ("t.einsum('...ii->...i', x)", (2, 3, 3)), ("t.einsum('bij,bjk->bik', x, x)", (2, 3, 3)),
    ("t.einsum(x, [0, 0, 1], [1])", (3, 3, 2)), ("t.atleast_3d(x)", (4,)),
    ("t.einsum('i,j->ij', x, x) * x[None].mT.sum()", (3,)),
    ("x.repeat_interleave(t.tensor([2, 1]), dim=1, output_size=3)", (2, 2)),
    ("t.take_along_dim(x, t.tensor([[1], [0]]), None)", (2, 3)),
    ("t.take_along_dim(x, t.tensor([[[1, 0]]]), 2)", (2, 3, 2)),
    ("t.diag_embed(x, 1, 2, 0)", (2, 3)), ("t.einsum('iij->ij', x)", (3, 3, 2)),
    ("t.einsum(x, [Ellipsis, 0, 1], x, [Ellipsis, 1, 2], [Ellipsis, 0, 2])", (2, 3, 3)),
    ("t.cat([t.zeros(0, dtype=x.dtype), x, x], 1)", (2, 3)), ("t.stack([x[0], x[1]])", (2,)),
    ("x.tile((2, 1, 2))", ()), ("x.unbind(0)[1]", (3, 2)), ("x.diagonal(-1, 2, 0)", (3, 2, 4)),
    ("x.rot90(3, (0, 2))", (2, 3, 4)), ("x.t().roll(2)", (3, 4)), ("x.expand(2, 0, 3)", (1, 3)),
    ("t.broadcast_tensors(x, x.new_ones(3, 1, 1))[0]", (2, 1)),
    ("x.movedim(-1, 0).flatten()", (2, 3)),
    ("t.atleast_2d(x)", ()), ("x.narrow(0, -2, 2).unsqueeze(0).squeeze()", (3,)),
    ("x.unfold(1, 2, 1)", (2, 4)), ("x.as_strided((2, 2), (1, 2), 1)", (6,)),
    ("t.block_diag(x, x[:1])", (2, 2)), ("t.kron(x, x)", (2, 2)), ("x.view(-1, 2).mT", (2, 2)),
    ("t.tensor_split(x, t.tensor([1, 3]), 1)[1]", (2, 4)), ("t.vsplit(x, [1])[1]", (3, 2)),
    ("t.dsplit(x, 2)[0]", (1, 2, 4)), ("t.column_stack([x, x])", (3,)),
    ("t.row_stack([x, x])", (3,)),
    ("t.diagflat(x)", (2, 2)), ("x.triu(-1) * x.tril(1)", (3, 3)), ("t.flipud(x)", (3, 2)),
]  # fmt: skip


def p_grads(lib, dt, rec):
    for j, (code, shape) in enumerate(GRADS):
        x = lib.randn(shape, generator=seeded_gen(lib, 20 + j), dtype=dt).requires_grad_()
        out = eval(code, {"t": lib, "x": x})  # noqa: S307
        g = lib.randn(out.shape, generator=seeded_gen(lib, 70 + j), dtype=dt)
        (gx,) = lib.autograd.grad(out, x, g, create_graph=True)
        rec(code + ".grad", gx)
        (ggx,) = lib.autograd.grad((gx * gx * x).sum(), x)
        rec(code + ".gradgrad", ggx)
        rec(code + ".grad_fn", type(out.grad_fn).__name__)
        if dt == lib.float64 and j % 3 == 0:

            def f(x, code=code):
                return eval(code, {"t": lib, "x": x})  # noqa: S307

            rec(code + ".gradcheck", str(lib.autograd.gradcheck(f, (x,))))
            rec(code + ".gradgradcheck", str(lib.autograd.gradgradcheck(f, (x,))))


# every template of X on every input of INPUTS (integer, bool, half, bfloat16, transposed,
# stepped and expanded layouts)
TEMPLATES = [
    "X.reshape(-1)", "X.flatten()", "X.unflatten(0, (1, -1))", "X.movedim(0, -1)",
    "X.permute(1, 0)", "X.squeeze()", "X.unsqueeze(1)", "X.expand(2, -1, -1)",
    "t.broadcast_to(X, (2, 3, 4))", "X.repeat(2, 1)", "X.tile((2,))",
    "X.repeat_interleave(2, dim=1)", "X.repeat_interleave(t.tensor([1, 0, 2]), dim=0)",
    "t.cat([X, X], 1)", "t.stack([X, X], -1)", "t.hstack([X, X])", "t.vstack([X, X])",
    "t.dstack([X, X])", "t.column_stack([X, X])", "X.split(2, 1)", "X.tensor_split(3, 1)",
    "t.hsplit(X, 2)", "t.vsplit(X, 3)", "X.chunk(3, 1)", "X.unbind(1)", "X.narrow(1, 1, 2)",
    "X.flip(0)", "t.fliplr(X)", "t.flipud(X)", "X.roll(1)", "X.roll((1, 1), (0, 1))", "X.rot90()",
    "X.rot90(-1)", "X.diagonal()", "X.diagonal(1)", "t.diag_embed(X)", "t.diagflat(X)", "X.tril()",
    "X.triu(1)", "X.tril(-1)", "t.take_along_dim(X, t.tensor([[0], [3], [1]]), 1)",
    "t.einsum('ij->ji', X)", "t.einsum('ij,kj->ik', X, X)", "t.einsum('ij->', X)",
    "t.atleast_3d(X)", "X.t()", "X.mT", "X.swapaxes(0, 1)", "X.view(-1)", "X.view(4, 3)",
    "t.cat([X, X.double()], 0)", "t.cat([X, X.int()], 0)", "t.cat([X, X.bool()], 0)",
    "t.cat([X, X.half()], 0)", "t.stack([X, X.float()])", "t.block_diag(X, X[:1])",
    "t.kron(X, X[:1, :1])", "X.unfold(1, 2, 1)", "t.diag(X)", "X.trace()", "X.ravel()",
    "t.einsum('ii', X[:, :3])", "X.clone().t_()", "X.expand_as(t.empty(2, 3, 4))",
    "t.broadcast_tensors(X, X[:1])", "X.fliplr().roll(2, 1)",
]  # fmt: skip
INPUTS = [
    "i", "k[:, None].expand(3, 4)", "h", "i.t().contiguous().t()", "i.to(t.int32)", "i.to(t.uint8)",
    "v[:, ::2][:, :4]", "i[:, :1].expand(3, 4).to(t.int16)", "t.ones(3, 4, dtype=t.bfloat16)",
    "i.to(t.int8)",
]  # fmt: skip

# NOTE: torch keeps the 0 stride of a size-1 slice of an expanded dim; minitorch's strides come
# from NumPy's and read such a dim as contiguous (Known and left), so that pair is not recorded
CASES["layouts"] = [
    tm.replace("X", f"({x})")
    for x in INPUTS
    for tm in TEMPLATES
    if not ("expand" in x and "tensor_split" in tm)
]


for _name, _cases in CASES.items():
    globals()["p_" + _name] = _sweep(_cases)

PROGRAMS = [*CASES, "grads"]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    if name == "einops" and einops is None:
        pytest.skip("einops is not installed")
    assert_program_matches(globals()["p_" + name], torch, dt)
