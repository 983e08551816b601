"""Session 35 (helper puzzles): tensor puzzles and autodiff puzzles as teachers set them, run under
torch and minitorch with the same seeds and compared record by record. The tensor side re-implements
ones, sum, outer, diag, eye, triu, cumsum, diff, vstack, roll, flip, compress, pad_to,
sequence_mask, bincount, scatter_add, flatten, linspace, heaviside, repeat and bucketize with only
arange, broadcasting, where, comparisons, indexing and sum, next to torch's own ops; integer, bool
and 0-d promotion (uint8/int8 wrap-around, true and floor division, int reductions, in-place
casts), constructors, reprs, the grader's assert_close/allclose messages and warnings. The
autodiff side checks students' hand-written backward formulas (elementwise, reductions, indexing,
scatter family, matmul, conv1d by unfold, srush's puzzles) against autograd.grad and
autograd.functional's jacobian/hessian/vjp/jvp/hvp/vhp (vectorized and forward-mode too),
torch.func, forward-mode dual numbers and is_grads_batched; create_graph up to third derivatives
of ~80 ops; max/argmax/median/quantile/topk ties; abs, relu, sqrt, pow, norm, std and prod at 0;
where with nan branches; custom autograd.Functions through gradcheck/gradgradcheck; hooks,
retain_grad, grad modes, inference tensors, in-place on leaves and saved tensors; the errors
students hit (shapes, non-scalar grads, no grad, in-place on a leaf) with torch's messages, and
~440 argument-error calls (CALLS). float64 agrees to 1e-10 of each record's scale, float32 to 1e-4;
texts exactly.

Found and fixed:
- matmul of a vector and a batch of matrices (1-d @ 3+-d) did a broadcast bmm; torch folds the
  batch's transpose into one matrix and calls mv when that needs no copy (or the vector requires
  grad): a length mismatch is now mv's "size mismatch, got input (12), mat (12x1), vec (4)", not
  bmm's message, and the graph is UnsafeViewBackward0 -> MvBackward0, as in torch.
- pow with a tensor exponent: the exponent's gradient was where(a == 0 & b >= 0, 0, grad * out *
  log a); torch multiplies grad outside the where, so an inf/nan upstream gradient at a zero base
  gives nan, and the second derivative of 0.0 ** x is nan (0 * log 0 through the untaken branch).
- torch.flip(x) without dims: Python's "missing 1 required positional argument: 'dims'"; now
  torch's parser message 'flip() missing 1 required positional arguments: "dims"'.
- max/min along a dim, amax/amin and the full max/min had no grad_fn._saved_* attributes; now
  torch's: MaxBackward0 _saved_dim (the dim as given, a negative one unsigned), _saved_indices (the
  returned indices tensor itself, torch's freed/modified errors), _saved_keepdim,
  _saved_self_sym_sizes; AmaxBackward0 _saved_dim (a tuple), _saved_keepdim, _saved_self,
  _saved_result; MaxBackward1 _saved_self, _saved_result.
- diag(vector, out=tensor of a dtype it cannot be cast to) gave the exact-dtype message; torch
  checks the cast first: "diag: result type Float can't be cast to the desired out= type Bool".

Known and left (documented):
- torch's float64 trigamma (lgamma's second, digamma's first derivative) is ~1e-10 relative off
  the true value; minitorch's is within 2 ulps (NOTE [ Trigamma ]): those records get 1e-8.
- torch's third derivative of layer_norm is wrong (its double backward treats the saved mean and
  rstd as constants; finite differences agree with minitorch): recorded to second order only.
- pdist/cdist are twice differentiable here; torch raises "the derivative for '_pdist_backward' is
  not implemented": recorded to first order only. Their forward AD works here (torch: not
  implemented).
- torch's linalg results (inv, solve, cholesky, qr's Q) are column-major; minitorch's are
  row-major, so inv(a).view(-1) works here and a ravel() makes no CloneBackward0.
- where(cond, x, 0, out=o): torch's out= overload takes tensors only ("argument 'other' (position
  3) must be Tensor, not int"); minitorch takes the number (tests/ops/test_layouts.py relies on it).
- Factories take requires_grad=1 (torch: "ones(): argument 'requires_grad' must be bool, not
  int", or the overload list for arange/randn/eye/linspace); eye(3, 2, 1) and zero_(1) give
  Python's arity messages, not torch's parser's.
- IndexBackward0, SortBackward0, TopkBackward0 have no _saved_indices; composite graphs (bmm
  through einsum, strided slices) have fewer inner nodes than torch's; AccumulateGrad.variable is
  a weak reference (None once a temporary leaf is gone; torch keeps the leaf alive).
- Not recorded as platform noise: torch's once-per-process warnings, gradcheck messages of
  float32 or fast mode, unflatten's C++ stack trace, vmap of .item() (documented in vmap)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    Rec,
    assert_calls_match,
    assert_program_matches,
    assert_records_match,
    run_calls,
    run_program,
)
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "basics", "outer_diag_eye", "cumsum_diff", "stack_roll_flip", "compress_pad",
    "mask_bincount", "flatten_linspace", "heaviside_repeat_bucketize", "promotion",
    "bool_arith", "int_division", "index_forms",
    "ad_elementwise", "ad_reductions", "ad_indexing", "ad_functional", "ad_hessian",
    "ad_second", "ad_max_ties", "ad_kinks", "ad_where_nan", "ad_errors", "ad_puzzles",
    "ad_matmul_conv", "ad_inplace", "int_reductions", "constructors", "reprs",
    "custom_functions", "func_api", "hooks_retain", "ad_zeros", "ad_ties", "ad_third",
    "promotion_0d", "ad_functional2", "more_puzzle_ops", "grad_modes", "checking_answers",
    "warnings", "ad_scatter",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt, tol=_tol(dt))


def _tol(dt):
    """1e-10 of scale for float64 records of the float64 run, 1e-6 for its float32 records (an
    int or bool tensor through exp or sigmoid is float32, an ulp apart from torch's kernel), 1e-4
    in the float32 run (1e-3 for det's third derivative, which cancels in float32: 1.9e-4 of
    its scale from torch's on an AMD EPYC, whose LAPACK takes other kernels)."""
    if dt == "float32":
        return lambda name, a: 1e-3 if name == "det.3" else 1e-4
    return lambda name, a: (
        1e-8 if name.startswith(_TRIGAMMA) else 1e-10 if a.dtype == np.float64 else 1e-6
    )


# records that are trigamma values (polygamma(1, x): digamma's, lgamma's and mvlgamma's
# derivative): torch's float64 trigamma is ~1e-10 off the true value, minitorch's within 2 ulps
_TRIGAMMA = ("lgamma.2", "digamma", "mvlgamma.2", "polygamma1")


# The argument errors students hit re-implementing the ops and checking their gradients: each
# call's error (or "no error") as text, the same under both libraries.
CALLS = [
    "t.arange(5, dtype=t.bool)",
    "t.arange(1, 4, 0.5, dtype=t.long)",
    "t.arange(10)[t.arange(3) > 1]",
    "t.arange(3)[:, None] == t.arange(4)[:, None]",
    "t.where(t.arange(3) > 1, 1.5, t.arange(3))",
    "t.where(t.arange(3) > 1)",
    "t.where(t.arange(3))",
    "t.where(t.arange(3) > 1, t.arange(3))",
    "t.arange(3) @ t.arange(4)",
    "t.arange(3.) @ t.arange(3)",
    "t.ones(3) @ t.ones(3, 1, 2)",
    "t.ones(2, 3) @ t.ones(2, 3)",
    "t.ones(2, 3).matmul(t.ones(4))",
    "t.ones(3, 1, 2) @ t.ones(3)",
    "t.ones(3)[t.tensor([True, False])]",
    "t.ones(3)[t.tensor([[0, 1]])].shape",
    "t.ones(3).sum(1)",
    "t.ones(3).sum(-2)",
    "t.ones(2, 3).sum((0, 0))",
    "t.ones(2, 3).cumsum()",
    "t.ones(2, 3).cumsum(2)",
    "t.diff(t.ones(3), n=-1)",
    "t.diff(t.ones(3), dim=1)",
    "t.diff(t.ones(2, 3), prepend=t.ones(3))",
    "t.diff(t.tensor(3.))",
    "t.roll(t.ones(3), 1, 1)",
    "t.roll(t.ones(3), (1, 2), (0,))",
    "t.flip(t.ones(3), 1)",
    "t.flip(t.ones(3))",
    "t.flip(t.ones(3), 0)",
    "t.repeat_interleave(t.ones(3), t.tensor([1, 2]))",
    "t.repeat_interleave(t.ones(3), t.tensor([-1, 2, 1]))",
    "t.ones(3).repeat(-1)",
    "t.ones(3).repeat()",
    "t.ones(2, 3).expand(3, 3)",
    "t.ones(2, 3).expand(2, -1, 3)",
    "t.ones(3).expand(-1, 3)",
    "t.ones(2, 3).view(-1, -1)",
    "t.ones(2, 3).view(4, -1)",
    "t.ones(2, 3).reshape(7)",
    "t.ones(2, 3).flatten(1, 0)",
    "t.ones(2, 3).flatten(0, 2)",
    "t.ones(6).unflatten(0, (4, -1))",
    "t.vstack(t.ones(3))",
    "t.vstack([])",
    "t.stack([])",
    "t.cat([t.ones(3), t.ones(3, 1)])",
    "t.cat([t.ones(3), t.ones(2, dtype=t.long)])",
    "t.cat((t.ones(3), t.ones(2, dtype=t.long))).dtype",
    "t.cat([t.ones(2, 3), t.ones(2, 4)])",
    "t.stack([t.ones(3), t.ones(4)])",
    "t.stack([t.ones(3), t.ones(3)], 2)",
    "t.eye(2.5)",
    "t.triu(t.ones(3), 1)",
    "t.tril(t.ones(2, 3), 0.5)",
    "t.diag(t.ones(2, 3, 4))",
    "t.diag(t.ones(3), 1.5)",
    "t.diagonal(t.ones(3))",
    "t.diagonal(t.ones(2, 3), dim1=0, dim2=0)",
    "t.linspace(0, 1)",
    "t.linspace(0, 1, 2.5)",
    "t.linspace(0, 1, 3, dtype=t.bool)",
    "t.bincount(t.tensor([1, 2]), minlength=-1)",
    "t.bincount(t.tensor([1, 2]), weights=t.ones(3))",
    "t.bincount(t.tensor([[1, 2]]))",
    "t.bincount(t.tensor([1.0, 2.0]))",
    "t.bincount(t.tensor([-1, 2]))",
    "t.zeros(3).scatter_add(0, t.tensor([0, 5]), t.ones(2))",
    "t.zeros(3).scatter_add(0, t.tensor([0, 1]), t.ones(2, dtype=t.long))",
    "t.zeros(3).scatter_add(1, t.tensor([0, 1]), t.ones(2))",
    "t.zeros(3).scatter_add(0, t.tensor([0., 1.]), t.ones(2))",
    "t.zeros(3).scatter_add(0, t.tensor([[0, 1]]), t.ones(2))",
    "t.zeros(3).index_add(0, t.tensor([0, 1]), t.ones(3))",
    "t.zeros(3).index_add(0, t.tensor([0, 7]), t.ones(2))",
    "t.zeros(3).index_put_((t.tensor([0, 7]),), t.ones(2), accumulate=True)",
    "t.zeros(3).scatter_(0, t.tensor([0, 1]), 2.0, reduce='add')",
    "t.zeros(3).scatter(0, t.tensor([0, 1]), t.ones(2), reduce='sum')",
    "t.zeros(3).scatter_reduce(0, t.tensor([0, 1]), t.ones(2), 'add')",
    "t.bucketize(t.ones(3), t.ones(2, 2))",
    "t.bucketize(1.5, t.tensor([1., 2.]))",
    "t.bucketize(t.tensor([1.5]), t.tensor([1, 2]))",
    "t.searchsorted(t.tensor([1., 2.]), t.ones(2, 2))",
    "t.searchsorted(t.tensor([1., 2.]), t.ones(2), side='middle')",
    "t.searchsorted(t.tensor([1., 2.]), t.ones(2), side='left', right=True)",
    "t.heaviside(t.ones(3), 0.5)",
    "t.heaviside(t.ones(3), t.ones(2))",
    "t.nn.functional.pad(t.ones(3), (1,))",
    "t.nn.functional.pad(t.ones(3), (1, 1, 1, 1, 1, 1))",
    "t.nn.functional.pad(t.ones(3), (-4, 0))",
    "t.nn.functional.pad(t.ones(3), [1, 2.5])",
    "t.nn.functional.one_hot(t.tensor([0, 3]), 2)",
    "t.nn.functional.one_hot(t.tensor([0, 3]), -2)",
    "t.nn.functional.one_hot(t.tensor([]).long())",
    "t.masked_select(t.ones(3), t.ones(3))",
    "t.ones(3).masked_fill(t.ones(3), 0)",
    "t.ones(3).masked_fill(t.ones(3) > 0, t.ones(3))",
    "t.ones(3).masked_fill(t.ones(2) > 0, 0)",
    "t.ones(3)[t.ones(3)]",
    "t.ones(3)[t.ones(3).long() > 0, None].shape",
    "t.ones(3).gather(0, t.tensor([0, 3]))",
    "t.ones(3).gather(0, t.tensor([[0]]))",
    "t.ones(2, 3).gather(1, t.tensor([0, 1]))",
    "t.ones(3).index_select(0, t.tensor([[0]]))",
    "t.ones(3).index_select(0, t.tensor([0.]))",
    "t.ones(3).index_select(1, t.tensor([0]))",
    "t.take(t.ones(3), t.tensor([3]))",
    "t.ones(3).sort(stable=True)",
    "t.ones(3).sort(1)",
    "t.ones(3).topk(4)",
    "t.ones(3).kthvalue(0)",
    "t.ones(3).argmax(1)",
    "t.ones(0).argmax()",
    "t.ones(0).max()",
    "t.ones(0, 3).max(0)",
    "t.ones(0, 3).max(1).values.shape",
    "t.ones(0).sum()",
    "t.ones(0).mean()",
    "t.ones(0).prod()",
    "t.ones(0).amax()",
    "t.ones(0).median()",
    "t.ones(0).std()",
    "t.ones(1).std()",
    "t.ones(1).var(correction=2)",
    "t.ones(3).var(unbiased=False, correction=1)",
    "t.ones(3).mean(dtype=t.long)",
    "t.ones(3).sum(dtype=t.bool)",
    "t.tensor([1, 2]).mean(0)",
    "t.tensor([1, 2]).float().mean(dtype=t.long)",
    "t.tensor([1, 2]).std(0)",
    "t.tensor([1, 2]).to(t.float16).mean()",
    "t.outer(t.ones(3), t.ones(2, 2))",
    "t.outer(t.ones(3), t.ones(2, dtype=t.long))",
    "t.dot(t.ones(3), t.ones(3, dtype=t.long))",
    "t.dot(t.ones(3), t.ones(4))",
    "t.mv(t.ones(2, 3), t.ones(4))",
    "t.mm(t.ones(2, 3), t.ones(2, 3))",
    "t.mm(t.ones(3), t.ones(3))",
    "t.bmm(t.ones(2, 2, 3), t.ones(3, 3, 2))",
    "t.einsum('ij,jk->ik', t.ones(2, 3), t.ones(4, 5))",
    "t.einsum('ij,jk', t.ones(2, 3))",
    "t.einsum('ii->i', t.ones(2, 3))",
    "t.einsum('i->j', t.ones(2))",
    "t.tensordot(t.ones(2, 3), t.ones(4, 3), dims=([1], [0]))",
    "t.kron(t.ones(2), t.ones(2, dtype=t.long))",
    "t.ones(2, 3).T.view(6)",
    "t.ones(2, 3, 4).T.shape",
    "t.ones(2, 3).mT.shape",
    "t.ones(3).mT",
    "t.ones(2).t().shape",
    "t.ones(2, 3, 4).t()",
    "t.ones(2, 3).transpose(0, 2)",
    "t.ones(2, 3).permute(0)",
    "t.ones(2, 3).permute(0, 0)",
    "t.ones(2, 3).squeeze(2)",
    "t.ones(2, 3).unsqueeze(3)",
    "t.ones(2, 3).unsqueeze(-4)",
    "t.ones(2, 3).narrow(1, 2, 2)",
    "t.ones(2, 3).split(0)",
    "t.ones(2, 3).split([1, 1], 1)",
    "t.ones(2, 3).chunk(0)",
    "t.ones(2, 3).unbind(2)",
    "t.ones(2, 3).movedim(0, 2)",
    "t.ones(2, 3).swapaxes(0, 5)",
    "t.ones(5).unfold(0, 6, 1)",
    "t.ones(5).unfold(0, 2, 0)",
    "t.ones(3).new_tensor([1, 2]).dtype",
    "t.ones(3, dtype=t.long).new_ones(2).dtype",
    "t.ones(3).clamp()",
    "t.ones(3).clamp(2, 1)",
    "t.ones(3, dtype=t.long).clamp(0.5, 1.5)",
    "t.clamp(t.ones(3), t.ones(2))",
    "t.ones(3).clip(min=t.tensor(0.5), max=2)",
    "t.full((2,), 1.5, dtype=t.long)",
    "t.full((2,), 300, dtype=t.uint8)",
    "t.tensor([300], dtype=t.uint8)",
    "t.ones(2, dtype=t.uint8) * 300",
    "t.ones(2, dtype=t.uint8) + 256",
    "t.ones(2, dtype=t.int8) * 1000",
    "t.ones(2, dtype=t.int8).add_(1.5)",
    "t.ones(2, dtype=t.long).add_(1.5)",
    "t.ones(2, dtype=t.long).mul_(t.ones(2))",
    "t.ones(2, dtype=t.long).div_(2)",
    "t.ones(2, dtype=t.bool).add_(1)",
    "t.ones(2).add_(t.ones(3))",
    "t.ones(2, 1).add_(t.ones(2, 3))",
    "t.ones(2).copy_(t.ones(3))",
    "t.ones(2).copy_(t.ones(1))",
    "t.ones(2).fill_(t.ones(2))",
    "t.ones(2).requires_grad_().add_(1)",
    "t.ones(2).requires_grad_()[0].add_(1)",
    "t.ones(2, dtype=t.long).requires_grad_()",
    "t.ones(2).requires_grad_().long().requires_grad",
    "t.ones(2).requires_grad_().numpy()",
    "t.ones(2).requires_grad_().tolist()",
    "t.ones(2).requires_grad_().item()",
    "t.ones(1).requires_grad_().item()",
    "t.ones(2).backward()",
    "t.autograd.grad(t.ones(2).sum(), t.ones(2))",
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), [])",
    "t.autograd.grad([], [])",
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), t.ones(2, requires_grad=True))",
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), t.ones(2, requires_grad=True), allow_unused=True)",  # noqa: E501
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), t.ones(2, requires_grad=True), allow_unused=True, materialize_grads=True)",  # noqa: E501
    "t.autograd.grad(t.ones(2, requires_grad=True) * 2, t.ones(2, requires_grad=True), t.ones(2))",
    "t.autograd.grad((t.ones(2, requires_grad=True) * 2), (t.ones(2),), (t.ones(2), t.ones(2)))",
    "t.autograd.backward(t.ones(2, requires_grad=True) * 2)",
    "t.autograd.backward(t.ones(2, requires_grad=True) * 2, t.ones(3))",
    "t.autograd.backward([t.ones(2, requires_grad=True) * 2], [t.ones(2), t.ones(2)])",
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), t.ones(2, requires_grad=True), is_grads_batched=True)",  # noqa: E501
    "t.autograd.functional.jacobian(lambda x: x, t.ones(2), strategy='backward')",
    "t.autograd.functional.jacobian(lambda x: x, t.ones(2), strategy='forward-mode')",
    "t.autograd.functional.jacobian(lambda x: x.tolist(), t.ones(2))",
    "t.autograd.functional.jacobian(lambda x: 3.0, t.ones(2))",
    "t.autograd.functional.jacobian(lambda x: x, [1.0, 2.0])",
    "t.autograd.functional.jacobian(lambda x, y: x, (t.ones(2), 3))",
    "t.autograd.functional.hessian(lambda x: x.sum(), t.ones(2), strict=True)",
    "t.autograd.functional.hessian(lambda x: x.sum(), t.ones(2), vectorize=True, strict=True)",
    "t.autograd.functional.hessian(lambda x: (x ** 2).sum(), t.ones(2), outer_jacobian_strategy='forward')",  # noqa: E501
    "t.autograd.functional.hessian(lambda x: (x, x), t.ones(2))",
    "t.autograd.functional.vjp(lambda x: x.sum(), t.ones(2), t.ones(2))",
    "t.autograd.functional.vjp(lambda x: x.sum(), t.ones(2))",
    "t.autograd.functional.jvp(lambda x: x.sum(), t.ones(2))",
    "t.autograd.functional.jvp(lambda x: x * 2, t.ones(2))",
    "t.autograd.functional.jvp(lambda x: x * 2, t.ones(1))",
    "t.autograd.functional.hvp(lambda x: x.sum(), t.ones(2))",
    "t.autograd.functional.hvp(lambda x: (x ** 2).sum(), t.ones(2), t.ones(3))",
    "t.autograd.functional.vhp(lambda x: x * 2, t.ones(2), t.ones(2))",
    "t.autograd.functional.hvp(lambda x: x.sum(), t.ones(2), t.ones(2), strict=True)",
    "t.autograd.functional.jacobian(lambda x: x.sum(), t.ones(2), create_graph=True, strict=True)",
    "t.autograd.functional.jacobian(lambda x: x.sum(), t.ones(2), vectorize=True, strategy='forward-mode', create_graph=True)",  # noqa: E501
    "t.autograd.functional.jacobian(lambda x: x.sum(), t.ones(2), vectorize=True, strict=True)",
    "t.func.grad(lambda x: x.sum())(t.ones(2, dtype=t.long))",
    "t.func.grad(lambda x: x)(t.ones(1))",
    "t.func.grad(lambda x: x)(t.ones(()))",
    "t.func.grad(lambda x: (x.sum(), 1))(t.ones(2))",
    "t.func.grad(lambda x: x.sum(), argnums=(0, 0))(t.ones(2))",
    "t.func.grad(lambda x: x.sum(), argnums=-2)(t.ones(2))",
    "t.func.grad(lambda x: x.sum(), argnums=1.5)(t.ones(2))",
    "t.func.grad(lambda x: x.sum())([t.ones(2)])",
    "t.func.grad(lambda x: x.sum())(3.0)",
    "t.func.jacrev(lambda x: x)(3.0)",
    "t.func.vmap(lambda x: x, in_dims=(0, 0))(t.ones(2))",
    "t.func.vmap(lambda x: x)(3.0)",
    "t.func.vmap(lambda x: x, out_dims=2)(t.ones(2, 3))",
    "t.func.vmap(lambda x: t.ones(3))(t.ones(2))",
    "t.func.hessian(lambda x: x)(t.ones(2))",
    "t.ones(1, requires_grad=True).sum(0, keepdim=True).backward()",
    "(t.ones(1, 1, requires_grad=True) * 2).backward()",
    "(t.ones(2, requires_grad=True) * 2).backward(t.ones(2, dtype=t.float64))",
    "(t.ones(2, requires_grad=True) * 2).backward(t.ones(2, dtype=t.long))",
    "(t.ones(2, requires_grad=True) * 2).backward(t.ones(1))",
    "(t.ones(2, requires_grad=True) * 2).backward(2.0)",
    "(t.ones(2, requires_grad=True) * 2).backward([1.0, 1.0])",
    "(t.ones(2, requires_grad=True) * 2).sum().backward(t.tensor(2.0))",
    "(t.ones(2, requires_grad=True) * 2).sum().backward(t.tensor([2.0]))",
    "t.autograd.grad(t.ones(2, requires_grad=True).sum(), t.ones(2, requires_grad=True).sum())",
    "t.autograd.grad([t.ones(2, requires_grad=True).sum()], [])",
    "t.autograd.grad(t.ones(2, requires_grad=True) * 1, t.ones(2, requires_grad=True), grad_outputs=t.ones(2), allow_unused=True)",  # noqa: E501
    "t.autograd.grad(t.ones(2, requires_grad=True) * 1, t.ones(2, requires_grad=True), grad_outputs=[None])",  # noqa: E501
    "t.autograd.grad((t.ones(2, requires_grad=True) * 1).sum(), t.ones(2, requires_grad=True), grad_outputs=[None], allow_unused=True)",  # noqa: E501
    "t.autograd.grad(t.tensor(1.0, requires_grad=True) * 2, t.tensor(1.0, requires_grad=True), grad_outputs=t.tensor(1.0, dtype=t.float64), allow_unused=True)",  # noqa: E501
    "t.autograd.grad(t.tensor(1.0, requires_grad=True) * 2, [t.tensor(1.0, requires_grad=True), 2])",  # noqa: E501
    "t.autograd.grad(t.tensor(1.0, requires_grad=True) * 2, None)",
    "t.autograd.grad(None, t.tensor(1.0, requires_grad=True))",
    "t.autograd.grad(3.0, t.tensor(1.0, requires_grad=True))",
    "t.autograd.backward(3.0)",
    "t.autograd.backward([])",
    "t.autograd.backward(t.tensor(1.0, requires_grad=True) * 2, inputs=[])",
    "t.autograd.backward(t.tensor(1.0, requires_grad=True) * 2, inputs=t.ones(2))",
    "t.tensor(1.0, requires_grad=True).backward(inputs=[t.tensor(2.0, requires_grad=True)])",
    "t.ones(2, requires_grad=True).sum().backward(retain_graph=True, create_graph=False)",
    "t.ones(2, requires_grad=True).grad.zero_()",
    "t.ones(2, requires_grad=True).grad_fn",
    "t.ones(2, requires_grad=True).sum().grad_fn(t.tensor(1.0))",
    "t.ones(2, requires_grad=True).sum().grad_fn.name()",
    "(t.ones(2, requires_grad=True) * 3).grad_fn._saved_other",
    "(t.ones(2, requires_grad=True) * 3).grad_fn._saved_self",
    "(t.ones(2, requires_grad=True) * t.ones(2)).grad_fn._saved_other.shape",
    "t.ones(2, requires_grad=True).exp().grad_fn._saved_result.shape",
    "t.ones(2, requires_grad=True).pow(2).grad_fn._saved_exponent",
    "t.ones(2, requires_grad=True).sum(0).grad_fn._saved_dim",
    "t.ones(2, requires_grad=True).sum().grad_fn._saved_self_sym_sizes",
    "t.ones(2, requires_grad=True).where(t.tensor([True, False]), 0.0).grad_fn._saved_condition",
    "t.ones(2, requires_grad=True).detach().requires_grad",
    "t.ones(2, requires_grad=True).data.requires_grad",
    "t.ones(2, requires_grad=True).clone().is_leaf",
    "t.ones(2, requires_grad=True).to(t.float64).is_leaf",
    "t.ones(2, requires_grad=True).to(t.float32) is not None",
    "t.ones(2).requires_grad_().requires_grad_(False).requires_grad",
    "t.ones(2).requires_grad_(1)",
    "t.ones(2).requires_grad_('yes')",
    "t.zeros(2, requires_grad=True, dtype=t.long)",
    "t.empty(2, requires_grad=True, dtype=t.bool)",
    "t.arange(3.0, requires_grad=True).requires_grad",
    "t.arange(3, requires_grad=True)",
    "t.randint(3, (2,), requires_grad=True)",
    "t.einsum('ij,jk->ik', t.ones(2, 3), t.ones(3, 4, dtype=t.float64))",
    "t.einsum('ij,jk->ik', t.ones(2, 3), t.ones(3, 4).long())",
    "t.einsum('ij->ji', t.ones(2, 3, 4))",
    "t.einsum('ij,j->i', t.ones(2, 3), t.ones(4))",
    "t.einsum('i,i', t.ones(3), t.ones(3))",
    "t.einsum('i,j', t.arange(3), t.arange(2))",
    "t.einsum('...ij,...jk', t.ones(5, 2, 3), t.ones(3, 4))",
    "t.einsum('bij,bjk->bik', t.ones(2, 2, 3), t.ones(3, 3, 4))",
    "t.einsum('ij,jk->iik', t.ones(2, 3), t.ones(3, 4))",
    "t.einsum('iJ->i', t.ones(2, 3))",
    "t.einsum('i1->i', t.ones(2, 3))",
    "t.einsum('ij', t.ones(2, 3), t.ones(2))",
    "t.einsum('ij->k', t.ones(2, 3))",
    "t.einsum('ii', t.ones(2, 3))",
    "t.einsum(t.ones(2), [0], [0])",
    "t.einsum('i->', [t.ones(2)])",
    "t.einsum('ij,kj->ik', [t.ones(2, 3), t.ones(4, 3)])",
    "t.arange(6).reshape(2, 3)[:, t.tensor([0, 3])]",
    "t.arange(6).reshape(2, 3)[t.tensor([[0, 1]]), :, None].shape",
    "t.arange(6).reshape(2, 3)[[0, 1], [0]]",
    "t.arange(6).reshape(2, 3)[[0, 1], [0, 1, 2]]",
    "t.arange(6).reshape(2, 3)[t.tensor([True, True, False])]",
    "t.arange(6).reshape(2, 3)[:, t.tensor([True, True, False])]",
    "t.arange(6).reshape(2, 3)[t.tensor([[True, False, True], [False, True, False]])]",
    "t.arange(6).reshape(2, 3)[t.tensor([[True, False], [False, True]])]",
    "t.arange(6).reshape(2, 3)[1.0]",
    "t.arange(6).reshape(2, 3)['a']",
    "t.arange(6).reshape(2, 3)[None, ..., None, 1].shape",
    "t.arange(6).reshape(2, 3)[..., ...]",
    "t.arange(6).reshape(2, 3)[t.tensor(1), t.tensor([0, 2])]",
    "t.arange(6).reshape(2, 3)[t.tensor(5)]",
    "t.arange(6).reshape(2, 3)[-3]",
    "t.arange(6).reshape(2, 3)[:, -4]",
    "t.arange(6).reshape(2, 3)[::-1]",
    "t.arange(6).reshape(2, 3)[::0]",
    "t.arange(6).reshape(2, 3)[t.tensor([0, 1], dtype=t.int32)]",
    "t.arange(6).reshape(2, 3)[t.tensor([0, 1], dtype=t.uint8)]",
    "t.arange(6).reshape(2, 3)[t.tensor([0, 1], dtype=t.int8)]",
    "t.arange(6).reshape(2, 3)[[True, False]]",
    "t.arange(6).reshape(2, 3)[[[0, 1], [1, 0]]]",
    "t.arange(6).reshape(2, 3)[(0, 1)]",
    "t.arange(6).reshape(2, 3)[[0, 1]]",
    "t.arange(5)[t.arange(5) > 2]",
    "t.arange(5).__setitem__(t.arange(5) > 2, t.tensor([7, 8]))",
    "t.arange(5).__setitem__(t.arange(5) > 2, t.tensor([7, 8, 9.5]))",
    "t.arange(5).__setitem__(slice(0, 2), t.tensor([[1, 2]]))",
    "t.arange(5).__setitem__(slice(0, 2), t.tensor([[1], [2]]))",
    "t.arange(5).__setitem__(0, t.tensor([1, 2]))",
    "t.arange(5).__setitem__(t.tensor([0, 0]), t.tensor([1, 2]))",
    "t.arange(5).__setitem__(0, float('nan'))",
    "t.arange(5).__setitem__(0, 2**70)",
    "t.arange(5).index_put_((t.tensor([0, 1]),), t.tensor([1., 2.]))",
    "t.arange(5.).index_put_((t.tensor([0, 1]),), t.tensor([1, 2]))",
    "t.arange(5.).index_put_((t.tensor([0, 1]),), t.tensor([1., 2., 3.]))",
    "t.arange(5.).index_put_((t.tensor([0, 1]), t.tensor([0])), t.tensor([1.]))",
    "t.arange(5.).index_put_([t.tensor([0, 1])], t.tensor(1.))",
    "t.arange(5.).index_put_(t.tensor([0, 1]), t.tensor(1.))",
    "t.arange(5.).scatter_(0, t.tensor([0, 1]), t.tensor([1, 2]))",
    "t.arange(5.).scatter(0, t.tensor([0, 1]), t.tensor([1., 2.], dtype=t.float64))",
    "t.arange(5.).gather(0, t.tensor([0, 1], dtype=t.int32))",
    "t.arange(5.).gather(0, t.tensor([0, 1], dtype=t.int16))",
    "t.arange(5.).index_select(0, t.tensor([0, 1], dtype=t.int32))",
    "t.arange(5.).index_select(0, t.tensor([0, 1], dtype=t.int16))",
    "t.arange(5.).take(t.tensor([0, 1], dtype=t.int32))",
    "t.arange(5.).masked_fill(t.tensor([1, 0, 0, 0, 0]), 0.)",
    "t.arange(5.).masked_fill(t.tensor([1, 0, 0, 0, 0], dtype=t.uint8) > 0, t.tensor([1.]))",
    "t.arange(5.).masked_fill(t.tensor([True] * 5), t.tensor(1, dtype=t.long))",
    "t.arange(5.).masked_fill_(t.tensor([True] * 5), t.tensor(1., requires_grad=True))",
    "t.arange(5.).requires_grad_().masked_fill(t.tensor([True] * 5), t.tensor(1., requires_grad=True)).grad_fn",  # noqa: E501
    "t.add(t.ones(2), t.ones(2), out=t.zeros(2, dtype=t.long))",
    "t.add(t.ones(2, dtype=t.long), 1, out=t.zeros(2))",
    "t.add(t.ones(2, dtype=t.long), 1.5, out=t.zeros(2, dtype=t.long))",
    "t.mul(t.ones(2, dtype=t.bool), t.ones(2, dtype=t.bool), out=t.zeros(2, dtype=t.bool))",
    "t.div(t.ones(2, dtype=t.long), 2, out=t.zeros(2, dtype=t.long))",
    "t.div(t.ones(2, dtype=t.long), 2, rounding_mode='floor', out=t.zeros(2, dtype=t.long))",
    "t.sum(t.ones(2), 0, out=t.zeros((), dtype=t.long))",
    "t.sum(t.ones(2, dtype=t.long), 0, out=t.zeros(()))",
    "t.cumsum(t.ones(3, dtype=t.long), 0, out=t.zeros(3))",
    "t.cumsum(t.ones(3), 0, out=t.zeros(3, dtype=t.long))",
    "t.cumsum(t.ones(3, dtype=t.bool), 0, out=t.zeros(3, dtype=t.bool))",
    "t.cumsum(t.ones(3), 0, dtype=t.long)",
    "t.cumsum(t.ones(3, dtype=t.long), 0, dtype=t.float16)",
    "t.mean(t.ones(3), 0, out=t.zeros((), dtype=t.long))",
    "t.mean(t.ones(3, dtype=t.long), 0, out=t.zeros(()))",
    "t.eq(t.ones(2), 1, out=t.zeros(2))",
    "t.eq(t.ones(2), 1, out=t.zeros(2, dtype=t.long))",
    "t.gt(t.ones(2), 1, out=t.zeros(2, dtype=t.bool)).dtype",
    "t.arange(5, out=t.zeros(3))",
    "t.arange(5, out=t.zeros(5, dtype=t.long), dtype=t.float32)",
    "t.arange(5., out=t.zeros(5, dtype=t.long))",
    "t.linspace(0, 1, 5, out=t.zeros(5, dtype=t.long))",
    "t.eye(3, out=t.zeros(3, 3, dtype=t.bool))",
    "t.ones(3, out=t.zeros(2))",
    "t.zeros(3, out=t.ones(3, dtype=t.long), dtype=t.float32)",
    "t.matmul(t.ones(2, 2), t.ones(2, 2), out=t.zeros(2, 2, dtype=t.long))",
    "t.matmul(t.ones(2), t.ones(2, 2, 2), out=t.zeros(2, 2))",
    "t.matmul(t.ones(3), t.ones(2, 2, 2), out=t.zeros(2, 2))",
    "t.matmul(t.ones(2), t.ones(2, 2, 2), out=t.zeros(2, 2, dtype=t.float64))",
    "t.mv(t.ones(2, 2), t.ones(2), out=t.zeros(2, dtype=t.long))",
    "t.outer(t.ones(2), t.ones(2), out=t.zeros(2, 2, dtype=t.long))",
    "t.diag(t.ones(2), out=t.zeros(2, 2, dtype=t.long))",
    "t.diff(t.ones(3), out=t.zeros(2, dtype=t.long))",
    "t.flip(t.ones(3), (0,), out=t.zeros(3))",
    "t.roll(t.ones(3), 1, out=t.zeros(3))",
    "t.triu(t.ones(3, 3), out=t.zeros(3, 3, dtype=t.long))",
    "t.bucketize(t.ones(3), t.ones(2), out=t.zeros(3))",
    "t.bucketize(t.ones(3), t.ones(2), out=t.zeros(3, dtype=t.int32))",
    "t.bucketize(t.ones(3), t.ones(2), out_int32=True, out=t.zeros(3, dtype=t.long))",
    "t.searchsorted(t.ones(2), t.ones(3), out=t.zeros(3, dtype=t.int32))",
    "t.heaviside(t.ones(2), t.ones(2), out=t.zeros(2, dtype=t.long))",
    "t.clamp(t.ones(2), 0, 1, out=t.zeros(2, dtype=t.long))",
    "t.clamp(t.ones(2, dtype=t.long), 0.5, 1, out=t.zeros(2, dtype=t.long))",
    "t.abs(t.ones(2), out=t.zeros(2, dtype=t.long))",
    "t.sqrt(t.ones(2, dtype=t.long), out=t.zeros(2, dtype=t.long))",
    "t.sqrt(t.ones(2, dtype=t.long), out=t.zeros(2, dtype=t.float64)).dtype",
    "t.exp(t.ones(2), out=t.zeros(2, dtype=t.float64)).dtype",
    "t.stack([t.ones(2), t.ones(2)], out=t.zeros(2, 2, dtype=t.long))",
    "t.cat([t.ones(2), t.ones(2)], out=t.zeros(4, dtype=t.long))",
    "t.cat([t.ones(2, dtype=t.long), t.ones(2)], out=t.zeros(4, dtype=t.long))",
    "t.vstack([t.ones(2), t.ones(2)], out=t.zeros(2, 2, dtype=t.long))",
    "t.index_select(t.ones(3), 0, t.tensor([0]), out=t.zeros(1, dtype=t.long))",
    "t.gather(t.ones(3), 0, t.tensor([0]), out=t.zeros(1, dtype=t.long))",
    "t.take(t.ones(3), t.tensor([0]), out=t.zeros(1, dtype=t.long))",
    "t.masked_select(t.ones(3), t.ones(3) > 0, out=t.zeros(3, dtype=t.long))",
    "t.nonzero(t.ones(3), out=t.zeros(3, 1))",
    "t.argmax(t.ones(3), out=t.zeros((), dtype=t.int32))",
    "t.max(t.ones(3), 0, out=(t.zeros(()), t.zeros((), dtype=t.int32)))",
    "t.sort(t.ones(3), out=(t.zeros(3), t.zeros(3)))",
    "t.prod(t.ones(3, dtype=t.bool), 0, out=t.zeros((), dtype=t.bool))",
    "t.any(t.ones(3), 0, out=t.zeros((), dtype=t.long))",
    "t.all(t.ones(3), out=t.zeros(()))",
    "t.logical_and(t.ones(2), t.ones(2), out=t.zeros(2))",
    "t.bitwise_and(t.ones(2, dtype=t.long), 1, out=t.zeros(2))",
    "t.pow(t.ones(2, dtype=t.long), 2, out=t.zeros(2, dtype=t.int8))",
    "t.pow(2, t.ones(2, dtype=t.long), out=t.zeros(2))",
    "t.ones(2, dtype=t.long).add_(t.ones(2), alpha=2)",
    "t.ones(2).add_(t.ones(2), alpha=2.5)",
    "t.ones(2, dtype=t.long).add_(1, alpha=2.5)",
    "t.add(t.ones(2, dtype=t.long), t.ones(2, dtype=t.long), alpha=0.5)",
    "t.add(t.ones(2, dtype=t.bool), t.ones(2, dtype=t.bool), alpha=2)",
    "t.sub(t.ones(2), t.ones(2), alpha=True)",
    "t.sub(t.ones(2, dtype=t.bool), t.ones(2, dtype=t.bool), alpha=True)",
    "t.rsub(t.ones(2, dtype=t.bool), True)",
]


def p_calls(lib, rec):
    run_calls(CALLS, {"t": lib}, rec)


def test_calls_match_torch():
    assert_calls_match(p_calls, torch)


# --- the tensor puzzles: each written with arange, broadcasting, where, comparisons, indexing ---


def _arange(lib, n):
    return lib.arange(n)


def _where(lib, q, a, b):
    return (q * a) + (~q) * b


def _ones(lib, i):
    return _where(lib, _arange(lib, i) >= 0, 1, 0)


def _sum(lib, a):
    return _ones(lib, a.shape[0]).to(a.dtype) @ a[:, None]


def _outer(lib, a, b):
    return a[:, None] * b[None, :]


def _diag(lib, a):
    return a[_arange(lib, a.shape[0]), _arange(lib, a.shape[0])]


def _eye(lib, j):
    return _where(lib, _arange(lib, j)[:, None] == _arange(lib, j), 1, 0)


def _triu(lib, j):
    return _where(lib, _arange(lib, j)[:, None] <= _arange(lib, j), 1, 0)


def _cumsum(lib, a):
    return a @ _triu(lib, a.shape[0]).to(a.dtype)


def _diff(lib, a):
    return a[1:] - a[:-1]


def _vstack(lib, a, b):
    return lib.where(_arange(lib, 2)[:, None] == _ones(lib, a.shape[0]), b, a)


def _roll(lib, a):
    i = a.shape[0]
    return a[(_arange(lib, i) + 1) % i]


def _flip(lib, a):
    i = a.shape[0]
    return a[i - _arange(lib, i) - 1]


def _compress(lib, g, v, i):
    return lib.where(g, v, 0) @ ((_cumsum(lib, g.long()) - 1)[:, None] == _arange(lib, i)).to(
        v.dtype
    )


def _pad_to(lib, a, j):
    i = a.shape[0]
    return a @ (_arange(lib, i)[:, None] == _arange(lib, j)).to(a.dtype)


def _sequence_mask(lib, values, length):
    return lib.where(length[:, None] > _arange(lib, values.shape[1]), values, 0)


def _bincount(lib, a, j):
    return _eye(lib, j)[a].sum(0)


def _scatter_add(lib, values, link, j):
    return (_eye(lib, j)[link].to(values.dtype) * values[:, None]).sum(0)


def _flatten(lib, a):
    i, j = a.shape
    k = _arange(lib, i * j)
    return a[k // j, k % j]


def _linspace(lib, i, j, n, dt):
    return i + (j - i) * _arange(lib, n).to(dt) / max(1, n - 1)


def _heaviside(lib, a, b):
    return lib.where(a == 0, b, (a > 0).to(a.dtype))


def _repeat(lib, a, d):
    return _ones(lib, d)[:, None] * a


def _bucketize(lib, v, boundaries):
    return (v[:, None] >= boundaries).sum(1)


def p_basics(lib, dt, rec):
    a = _randn(lib, dt, 1, 7)
    rec("ones", _ones(lib, 5))
    rec("ones_ref", lib.ones(5, dtype=lib.long))
    rec("sum", _sum(lib, a))
    rec("sum_ref", a.sum(0, keepdim=True))
    rec("where_q", _where(lib, a > 0, a, -a))
    rec("abs", a.abs())
    rec("ones0", _ones(lib, 0))
    m = _randn(lib, dt, 2, 4, 3)
    rec.err("sum_m", lambda: _sum(lib, m))
    rec("sum_m_ref", m.sum(0, keepdim=True))
    rec("sum_int", _sum(lib, lib.arange(6)))
    rec("arange_f", lib.arange(0.5, 3, 0.5, dtype=dt))
    rec("arange_neg", lib.arange(5, -3, -2))
    rec("arange_float_default", lib.arange(1.0, 2.0, 0.25))


def p_outer_diag_eye(lib, dt, rec):
    a = _randn(lib, dt, 3, 4)
    b = _randn(lib, dt, 4, 5)
    rec("outer", _outer(lib, a, b))
    rec("outer_ref", lib.outer(a, b))
    rec("ger", lib.ger(a, b))
    m = _randn(lib, dt, 5, 5, 5)
    rec("diag", _diag(lib, m))
    rec("diag_ref", lib.diag(m))
    rec("diagonal1", m.diagonal(1))
    rec("diag_of_vec", lib.diag(a, -1))
    rec("eye", _eye(lib, 4))
    rec("eye_ref", lib.eye(4, dtype=lib.long))
    rec("eye_rect", lib.eye(2, 3, dtype=dt))
    rec("triu", _triu(lib, 4))
    rec("triu_ref", lib.triu(lib.ones(4, 4, dtype=lib.long)))
    rec("triu_k", lib.triu(m, 1))
    rec("tril_k", lib.tril(m, -2))
    rec("triu_idx", lib.triu_indices(4, 5, 1))
    rec("tril_idx", lib.tril_indices(3, 3))
    rec("diag_embed", lib.diag_embed(_randn(lib, dt, 6, 2, 3)))


def p_cumsum_diff(lib, dt, rec):
    a = _randn(lib, dt, 7, 6)
    rec("cumsum", _cumsum(lib, a))
    rec("cumsum_ref", a.cumsum(0))
    ai = lib.tensor([3, -1, 4, 1, -5, 9])
    rec("cumsum_int", _cumsum(lib, ai))
    rec("cumsum_int_ref", lib.cumsum(ai, 0))
    rec("cumsum_bool", lib.cumsum(ai > 0, 0))
    rec("cumprod", lib.cumprod(a, 0))
    rec("diff", _diff(lib, a))
    rec("diff_ref", lib.diff(a))
    rec("diff2", lib.diff(a, n=2))
    rec("diff_prepend", lib.diff(a, prepend=lib.zeros(1, dtype=dt), append=a[:2]))
    rec("diff_bool", lib.diff(ai > 0))
    rec("diff_int", lib.diff(ai))
    m = _randn(lib, dt, 8, 3, 4)
    rec("diff_dim0", lib.diff(m, dim=0))
    rec("cummax", lib.cummax(ai, 0).values)
    rec("cummax_i", lib.cummax(ai, 0).indices)
    rec("logcumsumexp", lib.logcumsumexp(a, 0))


def p_stack_roll_flip(lib, dt, rec):
    a = _randn(lib, dt, 9, 5)
    b = _randn(lib, dt, 10, 5)
    rec("vstack", _vstack(lib, a, b))
    rec("vstack_ref", lib.vstack([a, b]))
    rec("hstack", lib.hstack([a, b]))
    rec("stack1", lib.stack([a, b], 1))
    rec("dstack", lib.dstack([a, b]))
    rec("column_stack", lib.column_stack([a, b]))
    rec("roll", _roll(lib, a))
    rec("roll_ref", lib.roll(a, -1))
    m = _randn(lib, dt, 11, 3, 4)
    rec("roll2", lib.roll(m, (1, -2), (0, 1)))
    rec("roll_flat", lib.roll(m, 5))
    rec("flip", _flip(lib, a))
    rec("flip_ref", lib.flip(a, [0]))
    rec("fliplr", lib.fliplr(m))
    rec("flipud", lib.flipud(m))
    rec("rot90", lib.rot90(m, 1, [0, 1]))
    rec("rot90_3", lib.rot90(m, -1))


def p_compress_pad(lib, dt, rec):
    g = lib.tensor([True, False, True, True, False, False, True])
    v = _randn(lib, dt, 12, 7)
    rec("compress", _compress(lib, g, v, 7))
    rec("masked_select", v[g])
    rec("masked_select2", lib.masked_select(v, g))
    rec("nonzero", lib.nonzero(g))
    rec("nonzero_tuple", lib.nonzero(g, as_tuple=True)[0])
    rec("argwhere", lib.argwhere(g))
    rec("count", lib.count_nonzero(g))
    rec("pad_to_long", _pad_to(lib, v, 10))
    rec("pad_to_short", _pad_to(lib, v, 4))
    rec("F_pad", lib.nn.functional.pad(v, (0, 3)))
    rec("F_pad_neg", lib.nn.functional.pad(v, (0, -3)))
    rec("F_pad_value", lib.nn.functional.pad(v, (2, 1), value=7.5))


def p_mask_bincount(lib, dt, rec):
    values = _randn(lib, dt, 13, 4, 6)
    length = lib.tensor([0, 2, 6, 3])
    rec("seqmask", _sequence_mask(lib, values, length))
    mask = lib.arange(6)[None, :] < length[:, None]
    rec("seqmask_ref", values.masked_fill(~mask, 0))
    rec("seqmask_mul", values * mask)
    a = lib.tensor([3, 1, 4, 1, 5, 2, 6, 5, 3, 5])
    rec("bincount", _bincount(lib, a, 8))
    rec("bincount_ref", lib.bincount(a, minlength=8))
    rec("bincount_min", lib.bincount(a))
    w = _rand(lib, dt, 14, 10)
    rec("bincount_w", lib.bincount(a, weights=w))
    rec("bincount_empty", lib.bincount(lib.tensor([], dtype=lib.long)))
    rec("scatter_add", _scatter_add(lib, w, a, 8))
    rec("scatter_add_ref", lib.zeros(8, dtype=dt).scatter_add(0, a, w))
    rec("index_add", lib.zeros(8, dtype=dt).index_add(0, a, w))
    rec("scatter_reduce", lib.zeros(8, dtype=dt).scatter_reduce(0, a, w, "amax"))
    rec("scatter_reduce_mean", lib.zeros(8, dtype=dt).scatter_reduce(0, a, w, "mean"))
    rec(
        "scatter_reduce_noself",
        lib.zeros(8, dtype=dt).scatter_reduce(0, a, w, "mean", include_self=False),
    )
    rec("index_put_acc", lib.zeros(8, dtype=dt).index_put_((a,), w, accumulate=True))
    rec("histc", lib.histc(w, bins=4, min=0, max=1))


def p_flatten_linspace(lib, dt, rec):
    m = _randn(lib, dt, 15, 3, 4)
    rec("flatten", _flatten(lib, m))
    rec("flatten_ref", m.flatten())
    rec("flatten_T", _flatten(lib, m.T))
    rec("flatten_T_ref", m.T.flatten())
    rec("ravel", m.T.ravel())
    rec("unflatten", m.flatten().unflatten(0, (2, -1)))
    rec("linspace", _linspace(lib, -1.5, 2.0, 7, dt))
    rec("linspace_ref", lib.linspace(-1.5, 2.0, 7, dtype=dt))
    rec("linspace1", lib.linspace(3, 5, 1, dtype=dt))
    rec("linspace0", lib.linspace(3, 5, 0, dtype=dt))
    rec("linspace_int", lib.linspace(0, 10, 4, dtype=lib.long))
    rec("logspace", lib.logspace(0, 2, 5, dtype=dt))
    rec("linspace_default", lib.linspace(0, 1, 5))


def p_heaviside_repeat_bucketize(lib, dt, rec):
    a = lib.tensor([-1.5, 0.0, 2.0, 0.0, -0.0, 3.0], dtype=dt)
    b = lib.tensor([0.5], dtype=dt)
    rec("heaviside", _heaviside(lib, a, b))
    rec("heaviside_ref", lib.heaviside(a, b))
    rec("heaviside_vec", lib.heaviside(a, lib.arange(6, dtype=dt)))
    rec.err("heaviside_err", lambda: lib.heaviside(a, lib.tensor(1)))
    rec("heaviside_int", lib.heaviside(lib.tensor([-2, 0, 3]), lib.tensor([7])))
    v = _randn(lib, dt, 16, 4)
    rec("repeat", _repeat(lib, v, 3))
    rec("repeat_ref", v.repeat(3, 1))
    rec("repeat_3d", v.repeat(2, 1, 2))
    rec("repeat_interleave", v.repeat_interleave(2))
    rec("repeat_interleave_t", lib.repeat_interleave(v, lib.tensor([1, 0, 2, 3])))
    rec("repeat_interleave_n", lib.repeat_interleave(lib.tensor([2, 0, 3])))
    rec("tile", lib.tile(v, (2,)))
    bounds = lib.tensor([-1.0, 0.0, 0.5, 1.0], dtype=dt)
    x = lib.tensor([-2.0, -1.0, 0.0, 0.2, 0.5, 1.0, 3.0], dtype=dt)
    rec("bucketize", _bucketize(lib, x, bounds))
    rec("bucketize_ref", lib.bucketize(x, bounds, right=True))
    rec("bucketize_left", lib.bucketize(x, bounds))
    rec("searchsorted", lib.searchsorted(bounds, x))
    rec("searchsorted_r", lib.searchsorted(bounds, x, side="right"))
    rec("bucketize_i32", lib.bucketize(x, bounds, out_int32=True))


def p_promotion(lib, dt, rec):
    i = lib.arange(4)
    b = i > 1
    f = lib.ones(4, dtype=dt)
    i32 = i.to(lib.int32)
    u8 = i.to(lib.uint8)
    i8 = i.to(lib.int8)
    for name, v in [
        ("i+b", i + b), ("b+b", b + b), ("b*b", b * b), ("b+1", b + 1), ("b+1.5", b + 1.5),
        ("i+1.5", i + 1.5), ("i+f", i + f), ("i32+i", i32 + i), ("u8+i8", u8 + i8),
        ("u8+1", u8 + 1), ("u8-5", u8 - 5), ("i32*2.0", i32 * 2.0), ("b/b", b / (b | True)),
        ("i/2", i / 2), ("i//2", i // 2), ("i%3", i % 3), ("-i//3", -i // 3),
        ("i**2", i ** 2), ("2**i", 2 ** i), ("i**0.5", i ** 0.5), ("f**i", f ** i),
        ("i.sum", i.sum()), ("b.sum", b.sum()), ("u8.sum", u8.sum()), ("i32.sum", i32.sum()),
        ("b.mean_f", b.float().mean()), ("i.prod", (i + 1).prod()), ("b.any", b.any()),
        ("b.all", b.all()), ("i.max", i.max()), ("where_if", lib.where(b, i, f)),
        ("where_sc", lib.where(b, i, 2.5)), ("where_ss", lib.where(b, 1, 0)),
        ("where_ssf", lib.where(b, 1.0, 0)), ("where_bi", lib.where(b, b, i32)),
        ("mm_int", i[:, None] @ i[None, :]), ("dot_int", i @ i), ("cumsum_u8", u8.cumsum(0)),
        ("cumsum_i32", i32.cumsum(0)), ("f+b", f + b), ("neg_b", ~b), ("i&1", i & 1),
        ("i|b", i | b), ("i<<1", i << 1), ("b^b", b ^ b), ("sign_i", (i - 2).sign()),
        ("abs_i8", (i8 - 2).abs()), ("clamp_i", i.clamp(1, 2)), ("clamp_if", i.clamp(0.5)),
    ]:  # fmt: skip
        rec(name, v)
    rec("result_type", str(lib.result_type(i, 1.5)))
    rec("result_type2", str(lib.result_type(u8, i8)))
    rec("promote", str(lib.promote_types(lib.uint8, lib.int8)))
    rec("can_cast", lib.can_cast(lib.float32, lib.int32))
    rec.err("neg_bool", lambda: -b)
    rec.err("sub_bool", lambda: b - b)
    rec.err("div_int_floor", lambda: i // 0)
    rec.err("bool_pow", lambda: b**2)
    rec.err("mm_mixed", lambda: i[:, None].float() @ i[None, :])
    rec.err("dot_mixed", lambda: lib.dot(i, f))
    rec.err("shift_float", lambda: f << 1)
    rec.err("and_float", lambda: f & 1)


def p_bool_arith(lib, dt, rec):
    x = _randn(lib, dt, 17, 3, 5)
    pos = x > 0
    rec("count_rows", pos.sum(1))
    rec("frac", pos.float().mean())
    rec("frac_dt", pos.to(dt).mean(1))
    rec("relu_by_mask", x * pos)
    rec("sign_by_mask", pos.long() * 2 - 1)
    rec("any_rows", pos.any(1))
    rec("all_cols", pos.all(0))
    rec("logical_xor", lib.logical_xor(pos, x.abs() > 1))
    rec("logical_not_f", lib.logical_not(x))
    rec("logical_and_f", lib.logical_and(x, x > 1))
    rec("argmax_bool", (x > 0.5).int().argmax(1))
    rec("masked_fill", x.masked_fill(pos, float("-inf")).softmax(1))
    rec("where_inf", lib.where(pos, x, lib.tensor(float("inf"), dtype=dt)))
    rec("isclose", lib.isclose(x, x + 1e-9))
    rec("eq_int_float", lib.arange(3) == lib.tensor([0.0, 1.5, 2.0], dtype=dt))
    rec("bool_index_sum", x[pos].sum())
    rec("nonzero_2d", pos.nonzero())
    rec("tensor_bool_list", lib.tensor([True, False]) + lib.tensor([1, 2]))
    rec("minmax_bool", lib.stack([pos.max(), pos.min()]))
    rec("sort_bool", pos.int().sort(dim=1, stable=True).indices)
    rec.err("sort_stable_positional_dim", lambda: pos.int().sort(1, stable=True))


def p_int_division(lib, dt, rec):
    a = lib.tensor([7, -7, 7, -7, 0, 5])
    b = lib.tensor([2, 2, -2, -2, 3, 5])
    rec("div", a / b)
    rec("div_floor", lib.div(a, b, rounding_mode="floor"))
    rec("div_trunc", lib.div(a, b, rounding_mode="trunc"))
    rec("floordiv", a // b)
    rec("remainder", a % b)
    rec("fmod", lib.fmod(a, b))
    rec("remainder_f", lib.remainder(a.to(dt) + 0.5, -2.5))
    rec("fmod_f", lib.fmod(a.to(dt) + 0.5, -2.5))
    rec("floordiv_f", (a.to(dt) + 0.5) // 2)
    rec("div_scalar_int", a / 2)
    rec("true_divide", lib.true_divide(a, 4))
    rec.err("int_zero_div", lambda: a // lib.zeros_like(a))
    rec.err("int_zero_rem", lambda: a % 0)
    rec("float_zero_div", a.to(dt) / 0)
    rec("mod_zero_f", lib.remainder(a.to(dt), 0.0))
    rec.err("bad_rounding", lambda: lib.div(a, b, rounding_mode="round"))


def p_index_forms(lib, dt, rec):
    x = _randn(lib, dt, 18, 4, 5)
    rows = lib.tensor([0, 2, 3])
    cols = lib.tensor([1, 4, 0])
    rec("pairs", x[rows, cols])
    rec("block", x[rows[:, None], cols])
    rec("neg_idx", x[lib.tensor([-1, -4])])
    rec("ellipsis", x[..., 1])
    rec("none", x[None, :, None, 2].shape.__repr__())
    rec("bool_row", x[lib.tensor([True, False, True, False])])
    rec("gather", x.gather(1, lib.tensor([[0, 1], [2, 3], [4, 4], [1, 0]])))
    rec("take", lib.take(x, lib.tensor([0, 7, 19])))
    rec("take_along", lib.take_along_dim(x, x.argsort(1), 1))
    rec("index_select", x.index_select(1, cols))
    rec("arange_index", x[lib.arange(4), lib.arange(4)])
    rec("int_tensor_scalar", x[lib.tensor(2)])
    rec.err("oob", lambda: x[lib.tensor([4])])
    rec.err("oob2", lambda: x[:, lib.tensor([5])])
    rec.err("float_index", lambda: x[lib.tensor([1.0])])
    rec.err("shape_mismatch", lambda: x[lib.tensor([0, 1]), lib.tensor([0, 1, 2])])
    rec.err("bool_shape", lambda: x[lib.tensor([True, False])])
    rec.err("too_many", lambda: x[0, 0, 0])


# --- the autodiff puzzles: hand-written backward formulas against autograd ---


def _grad(lib, f, *xs, gout=None, create_graph=False):
    out = f(*xs)
    return lib.autograd.grad(out, xs, gout, create_graph=create_graph)


def p_ad_elementwise(lib, dt, rec):
    x = (_rand(lib, dt, 20, 6) * 2 + 0.2).requires_grad_(True)
    g = _randn(lib, dt, 21, 6)
    cases = [
        ("exp", lib.exp, lambda x: lib.exp(x)),
        ("log", lib.log, lambda x: 1 / x),
        ("sqrt", lib.sqrt, lambda x: 0.5 / lib.sqrt(x)),
        ("rsqrt", lib.rsqrt, lambda x: -0.5 * x**-1.5),
        ("sin", lib.sin, lambda x: lib.cos(x)),
        ("cos", lib.cos, lambda x: -lib.sin(x)),
        ("tan", lib.tan, lambda x: 1 + lib.tan(x) ** 2),
        ("tanh", lib.tanh, lambda x: 1 - lib.tanh(x) ** 2),
        ("sigmoid", lib.sigmoid, lambda x: lib.sigmoid(x) * (1 - lib.sigmoid(x))),
        ("reciprocal", lib.reciprocal, lambda x: -1 / x**2),
        ("square", lib.square, lambda x: 2 * x),
        ("pow3", lambda x: x**3, lambda x: 3 * x**2),
        ("rpow", lambda x: 2**x, lambda x: 2**x * 0.6931471805599453),
        ("xpowx", lambda x: x**x, lambda x: x**x * (lib.log(x) + 1)),
        ("log1p", lib.log1p, lambda x: 1 / (1 + x)),
        ("expm1", lib.expm1, lambda x: lib.exp(x)),
        ("atan", lib.atan, lambda x: 1 / (1 + x * x)),
        ("asinh", lib.asinh, lambda x: 1 / lib.sqrt(x * x + 1)),
        ("erf", lib.erf, lambda x: 2 / 3.141592653589793**0.5 * lib.exp(-x * x)),
        ("softplus", lib.nn.functional.softplus, lambda x: lib.sigmoid(x)),
        ("gelu", lib.nn.functional.gelu, None),
        ("silu", lib.nn.functional.silu, lambda x: lib.sigmoid(x) * (1 + x * (1 - lib.sigmoid(x)))),
        ("log_sigmoid", lib.nn.functional.logsigmoid, lambda x: 1 - lib.sigmoid(x)),
        ("xlogy", lambda x: lib.xlogy(x, x), lambda x: lib.log(x) + 1),
        ("lgamma", lib.lgamma, lambda x: lib.digamma(x)),
        ("sinc", lib.sinc, None),
        ("logit", lambda x: lib.logit(x / 3), lambda x: 1 / (x * (1 - x / 3))),
        ("clamp", lambda x: x.clamp(0.5, 1.5), lambda x: ((x >= 0.5) & (x <= 1.5)).to(x.dtype)),
    ]
    for name, f, df in cases:
        (auto,) = _grad(lib, f, x, gout=g)
        rec(name, auto)
        if df is not None:
            rec(name + ".hand_err", (auto - g * df(x.detach())).abs().max())
    a = _randn(lib, dt, 22, 6).requires_grad_(True)
    b = (_rand(lib, dt, 23, 6) + 0.5).requires_grad_(True)
    for name, f in [
        ("mul", lambda a, b: a * b), ("div", lambda a, b: a / b), ("pow", lambda a, b: b ** a),
        ("atan2", lib.atan2), ("hypot", lib.hypot), ("max", lib.maximum), ("min", lib.minimum),
        ("copysign", lib.copysign), ("fmod", lib.fmod), ("rem", lib.remainder),
        ("lerp", lambda a, b: lib.lerp(a, b, 0.3)), ("addcmul", lambda a, b: a.addcmul(a, b)),
    ]:  # fmt: skip
        ga, gb = _grad(lib, f, a, b, gout=g)
        rec(name + ".a", ga)
        rec(name + ".b", gb)


def p_ad_reductions(lib, dt, rec):
    x = _randn(lib, dt, 24, 3, 4).requires_grad_(True)
    g1 = _randn(lib, dt, 25, 3)
    for name, f, gout in [
        ("sum", lambda x: x.sum(), None),
        ("mean", lambda x: x.mean(), None),
        ("sum1", lambda x: x.sum(1), g1),
        ("mean1", lambda x: x.mean(1), g1),
        ("prod1", lambda x: x.prod(1), g1),
        ("var1", lambda x: x.var(1), g1),
        ("std1", lambda x: x.std(1, correction=0), g1),
        ("norm1", lambda x: x.norm(dim=1), g1),
        ("lse1", lambda x: x.logsumexp(1), g1),
        ("amax1", lambda x: x.amax(1), g1),
        ("max1", lambda x: x.max(1).values, g1),
        ("min1", lambda x: x.min(1)[0], g1),
        ("median1", lambda x: x.median(1).values, g1),
        ("softmax", lambda x: x.softmax(1)[:, 0], g1),
        ("log_softmax", lambda x: x.log_softmax(1)[:, 1], g1),
        ("cumsum", lambda x: x.cumsum(1)[:, 2], g1),
        ("cumprod", lambda x: x.cumprod(1)[:, 3], g1),
        ("norm_all", lambda x: x.norm(), None),
        ("sort", lambda x: x.sort(1).values[:, 0], g1),
        ("topk", lambda x: x.topk(2, 1).values.sum(1), g1),
    ]:
        (auto,) = _grad(lib, f, x, gout=gout)
        rec(name, auto)
    xd = x.detach()
    # hand-written formulas, compared with autograd
    (auto,) = _grad(lib, lambda x: x.var(1), x, gout=g1)
    rec("var_hand", (auto - g1[:, None] * 2 * (xd - xd.mean(1, keepdim=True)) / 3).abs().max())
    (auto,) = _grad(lib, lambda x: x.logsumexp(1), x, gout=g1)
    rec("lse_hand", (auto - g1[:, None] * xd.softmax(1)).abs().max())
    (auto,) = _grad(lib, lambda x: x.norm(dim=1), x, gout=g1)
    rec("norm_hand", (auto - g1[:, None] * xd / xd.norm(dim=1, keepdim=True)).abs().max())
    (auto,) = _grad(lib, lambda x: x.prod(1), x, gout=g1)
    rec("prod_hand", (auto - g1[:, None] * xd.prod(1, keepdim=True) / xd).abs().max())
    s = xd.softmax(1)
    gs = _randn(lib, dt, 26, 3, 4)
    (auto,) = _grad(lib, lambda x: x.softmax(1), x, gout=gs)
    hand = s * (gs - (gs * s).sum(1, keepdim=True))
    rec("softmax_hand", (auto - hand).abs().max())


def p_ad_indexing(lib, dt, rec):
    x = _randn(lib, dt, 27, 5, 4).requires_grad_(True)
    idx = lib.tensor([0, 2, 2, 4, 0])
    for name, f, shape in [
        ("rows_dup", lambda x: x[idx], (5, 4)),
        ("pairs", lambda x: x[idx, lib.tensor([0, 1, 1, 3, 0])], (5,)),
        ("mask", lambda x: x[x > 0], None),
        ("gather", lambda x: x.gather(1, lib.tensor([[0, 0]] * 5)), (5, 2)),
        ("index_select", lambda x: x.index_select(0, idx), (5, 4)),
        ("take", lambda x: lib.take(x, lib.tensor([1, 1, 19])), (3,)),
        ("slice_step", lambda x: x[::2, 1::2], (3, 2)),
        ("diag", lambda x: x[:4].diagonal(), (4,)),
        ("flip", lambda x: x.flip(0), (5, 4)),
        ("roll", lambda x: x.roll(1, 1), (5, 4)),
        ("where", lambda x: lib.where(x > 0, x, x * 3), (5, 4)),
        ("masked_fill", lambda x: x.masked_fill(x < 0, 0.0), (5, 4)),
        ("repeat", lambda x: x.repeat(2, 1), (10, 4)),
        ("expand", lambda x: x[:1].expand(3, 4), (3, 4)),
        ("triu", lambda x: x.triu(1), (5, 4)),
        ("unfold", lambda x: x.unfold(0, 2, 1), (4, 4, 2)),
    ]:
        out = f(x)
        gshape = out.shape if shape is None else shape
        gout = lib.arange(int(lib.tensor(gshape).prod()) if gshape else 1, dtype=dt)
        gout = gout.reshape(gshape) * 0.5 - 1.0
        (auto,) = lib.autograd.grad(out, x, gout)
        rec(name, auto)
    # scatter_add of a hand-written index_select backward
    g = _randn(lib, dt, 28, 5, 4)
    (auto,) = _grad(lib, lambda x: x[idx], x, gout=g)
    hand = lib.zeros(5, 4, dtype=dt).index_add(0, idx, g)
    rec("index_hand", (auto - hand).abs().max())
    src = _randn(lib, dt, 29, 5).requires_grad_(True)
    base = _randn(lib, dt, 30, 3).requires_grad_(True)
    link = lib.tensor([2, 0, 2, 1, 2])
    out = base.scatter_add(0, link, src)
    gs, gb = lib.autograd.grad(out, (src, base), lib.tensor([1.0, -2.0, 3.0], dtype=dt))
    rec("scatter_add.src", gs)
    rec("scatter_add.base", gb)
    out = base.index_put((link,), src, accumulate=True)
    gs, gb = lib.autograd.grad(out, (src, base), lib.tensor([1.0, -2.0, 3.0], dtype=dt))
    rec("index_put.src", gs)
    rec("index_put.base", gb)


def p_ad_functional(lib, dt, rec):
    AF = lib.autograd.functional
    x = _randn(lib, dt, 31, 3)
    y = _randn(lib, dt, 32, 2)
    v3 = _randn(lib, dt, 33, 3)

    def f(x):
        return lib.stack([x[0] * x[1], x[1].sin() + x[2] ** 2, x.exp().sum(), x.prod()])

    def g(x, y):
        return (x[:2] * y).sum() + x.pow(2).sum() * y.tanh().sum()

    rec("jac", AF.jacobian(f, x))
    rec("jac_fwd", AF.jacobian(f, x, vectorize=True, strategy="forward-mode"))
    jx, jy = AF.jacobian(g, (x, y))
    rec("jac_g.x", jx)
    rec("jac_g.y", jy)
    hxx = AF.hessian(g, (x, y))
    rec("hess.xx", hxx[0][0])
    rec("hess.xy", hxx[0][1])
    rec("hess.yx", hxx[1][0])
    rec("hess.yy", hxx[1][1])
    out, vjp = AF.vjp(f, x, _randn(lib, dt, 34, 4))
    rec("vjp.out", out)
    rec("vjp", vjp)
    out, jvp = AF.jvp(f, x, v3)
    rec("jvp", jvp)
    out, hvp = AF.hvp(lambda x: (x.sin() * x).sum(), x, v3)
    rec("hvp.out", out)
    rec("hvp", hvp)
    out, vhp = AF.vhp(lambda x: (x.sin() * x).sum(), x, v3)
    rec("vhp", vhp)
    # the hand-written Hessian of sum(sin(x) * x): diag(2 cos x - x sin x)
    rec("hvp_hand", (hvp - (2 * x.cos() - x * x.sin()) * v3).abs().max())
    rec("jac_lin", AF.jacobian(lambda x: x @ lib.eye(3, dtype=dt) * 2, x))
    rec("jac_const", AF.jacobian(lambda x: lib.ones(2, dtype=dt), x))
    rec.err("jac_strict", lambda: AF.jacobian(lambda x: lib.ones(2, dtype=dt), x, strict=True))
    rec.err("vjp_nov", lambda: AF.vjp(f, x))
    rec.err("vjp_badv", lambda: AF.vjp(f, x, v3))
    rec.err("hvp_nonscalar", lambda: AF.hvp(f, x, v3))
    rec.err("jvp_badv", lambda: AF.jvp(f, x, y))
    rec.err("hess_vec", lambda: AF.hessian(f, x))
    rec("jac_create", AF.jacobian(f, x, create_graph=True).requires_grad)


def p_ad_hessian(lib, dt, rec):
    AF = lib.autograd.functional
    a = _randn(lib, dt, 35, 4, 4)
    A = a @ a.T + lib.eye(4, dtype=dt)
    b = _randn(lib, dt, 36, 4)
    x = _randn(lib, dt, 37, 4)

    def quad(x):
        return 0.5 * x @ A @ x - b @ x

    rec("hess_quad", AF.hessian(quad, x))
    rec("hess_quad_err", (AF.hessian(quad, x) - A).abs().max())
    rec("grad_quad", AF.jacobian(quad, x))

    def rosen(x):
        return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()

    rec("hess_rosen", AF.hessian(rosen, x))
    rec("hess_rosen_vec", AF.hessian(rosen, x, vectorize=True))
    rec(
        "hess_rosen_fwd",
        AF.hessian(rosen, x, vectorize=True, outer_jacobian_strategy="forward-mode"),
    )

    def lse(x):
        return x.logsumexp(0)

    h = AF.hessian(lse, x)
    p = x.softmax(0)
    rec("hess_lse", h)
    rec("hess_lse_hand", (h - (lib.diag(p) - lib.outer(p, p))).abs().max())
    # Newton step on the quadratic: one step lands on the minimum
    xn = x - lib.linalg.solve(AF.hessian(quad, x), AF.jacobian(quad, x))
    rec("newton", xn)
    rec("newton_grad", AF.jacobian(quad, xn).abs().max())
    m = _randn(lib, dt, 38, 2, 3)
    rec("hess_matrix_in", AF.hessian(lambda m: (m**3).sum(), m))


def p_ad_second(lib, dt, rec):
    x = (_rand(lib, dt, 39, 5) + 0.3).requires_grad_(True)
    y = x.sin() * x.log()
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    rec("g", g)
    rec("g.requires_grad", g.requires_grad)
    rec("g.grad_fn", type(g.grad_fn).__name__ if g.grad_fn is not None else "None")
    (gg,) = lib.autograd.grad(g.sum(), x, create_graph=True)
    rec("gg", gg)
    (ggg,) = lib.autograd.grad(gg.sum(), x)
    rec("ggg", ggg)
    xd = x.detach()
    hand = -xd.sin() * xd.log() + 2 * xd.cos() / xd - xd.sin() / xd**2
    rec("gg_hand", (gg.detach() - hand).abs().max())
    # backward twice with create_graph; .grad accumulates a graph
    z = (x**3).sum()
    z.backward(create_graph=True)
    rec("x.grad", x.grad)
    rec("x.grad.rg", x.grad.requires_grad)
    gx = x.grad
    x.grad = None
    gx.sum().backward()
    rec("x.grad2", x.grad)
    x.grad = None
    # gradient penalty style: || dL/dx ||^2 differentiated once more
    w = _randn(lib, dt, 40, 5, 3).requires_grad_(True)
    out = (x @ w).tanh().sum()
    (gx,) = lib.autograd.grad(out, x, create_graph=True)
    pen = gx.pow(2).sum()
    gw, gx2 = lib.autograd.grad(pen, (w, x))
    rec("pen", pen)
    rec("pen.gw", gw)
    rec("pen.gx", gx2)
    # no create_graph: the first grad does not require grad
    (g1,) = lib.autograd.grad((x**2).sum(), x)
    rec("nocg", g1.requires_grad)
    rec.err("nocg_again", lambda: lib.autograd.grad(g1.sum(), x))
    # grad of grad w.r.t. the upstream gradient (double backward trick, a vjp to a jvp)
    u = lib.zeros(5, dtype=dt, requires_grad=True)
    y = x.exp() * 2
    (vjp,) = lib.autograd.grad(y, x, u, create_graph=True)
    v = _randn(lib, dt, 41, 5)
    (jvp,) = lib.autograd.grad(vjp, u, v)
    rec("jvp_trick", jvp)
    rec("jvp_hand", (jvp - 2 * xd.exp() * v).abs().max())


def p_ad_max_ties(lib, dt, rec):
    x = lib.tensor([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 5.0], [0.0, -1.0, 0.0, -1.0]], dtype=dt)
    x.requires_grad_(True)
    g1 = lib.tensor([1.0, 2.0, 3.0], dtype=dt)
    for name, f, gout in [
        ("max_all", lambda x: x.max(), None),
        ("amax_all", lambda x: x.amax(), None),
        ("min_all", lambda x: x.min(), None),
        ("max_dim", lambda x: x.max(1).values, g1),
        ("amax_dim", lambda x: x.amax(1), g1),
        ("amin_dim", lambda x: x.amin(1), g1),
        ("min_dim", lambda x: x.min(1).values, g1),
        ("maximum", lambda x: lib.maximum(x, x.flip(1)).sum(1), g1),
        ("minimum", lambda x: lib.minimum(x, lib.full_like(x, 3.0)).sum(1), g1),
        ("fmax", lambda x: lib.fmax(x, lib.full_like(x, 3.0)).sum(1), g1),
        ("clamp_edge", lambda x: x.clamp(min=3.0, max=5.0).sum(1), g1),
        ("clamp_min", lambda x: x.clamp_min(0.0).sum(1), g1),
        ("median_all", lambda x: x.median(), None),
        ("kthvalue", lambda x: x.kthvalue(2, 1).values, g1),
        ("norm_inf", lambda x: x.norm(float("inf"), dim=1), g1),
        ("logsumexp", lambda x: x.logsumexp(1), g1),
        ("sort_ties", lambda x: x.sort(dim=1, stable=True).values[:, -1], g1),
        ("cummax", lambda x: x.cummax(1).values[:, -1], g1),
    ]:
        (auto,) = _grad(lib, f, x, gout=gout)
        rec(name, auto)
    # what a lesson prints of the graph: the index the gradient goes to, the dims as given
    for name, r in [
        ("max1", x.max(1)), ("min-1", x.min(-1)), ("max0k", x.max(0, keepdim=True)),
        ("amax", x.amax(-1)), ("amin", x.amin((0, -1))), ("amax_all", x.amax()),
        ("max_all", x.max()),
    ]:  # fmt: skip
        node = (r if isinstance(r, lib.Tensor) else r.values).grad_fn
        keys = sorted(k for k in dir(node) if k.startswith("_saved_"))
        rec(name + ".saved", str(keys))
        for k in keys:
            rec(f"{name}.{k}", getattr(node, k))
        if not isinstance(r, lib.Tensor):
            rec(name + ".same_indices", node._saved_indices is r.indices)
    rec("argmax", x.argmax(1))
    rec("argmin", x.argmin(1))
    rec("argmax_all", x.argmax())
    rec("max_idx", x.max(1).indices)
    rec("argmax.rg", x.argmax(1).requires_grad)
    rec.err("argmax_grad", lambda: x.argmax().backward())
    rec.err("argmax_float", lambda: lib.autograd.grad(x.argmax(1).float().sum(), x))
    # a one-hot from argmax carries no gradient; a soft argmax does
    oh = lib.nn.functional.one_hot(x.argmax(1), 4).to(dt)
    rec("one_hot", oh)
    rec("soft_argmax", _grad(lib, lambda x: (x.softmax(1) * lib.arange(4, dtype=dt)).sum(), x)[0])


def p_ad_kinks(lib, dt, rec):
    z = lib.tensor([-1.0, 0.0, -0.0, 2.0], dtype=dt, requires_grad=True)
    F = lib.nn.functional
    for name, f in [
        ("abs", lib.abs), ("relu", lib.relu), ("relu6", F.relu6), ("sign", lib.sign),
        ("sgn", lib.sgn), ("sqrt", lib.sqrt), ("rsqrt", lib.rsqrt), ("log", lib.log),
        ("cbrt", lambda z: z.pow(1 / 3)), ("pow_half", lambda z: z ** 0.5),
        ("pow_0", lambda z: z ** 0), ("pow_2", lambda z: z ** 2), ("pow_1", lambda z: z ** 1),
        ("pow_neg", lambda z: z ** -1.0), ("xlogy", lambda z: lib.xlogy(z, z)),
        ("leaky", lambda z: F.leaky_relu(z, 0.1)), ("elu", F.elu), ("hardtanh", F.hardtanh),
        ("hardsigmoid", F.hardsigmoid), ("hardswish", F.hardswish),
        ("softshrink", F.softshrink), ("hardshrink", F.hardshrink),
        ("threshold", lambda z: F.threshold(z, 0.0, -3.0)), ("norm", lambda z: z[1:3].norm()),
        ("norm1", lambda z: z.norm(1)), ("dist", lambda z: lib.dist(z[1:3], z[1:3] * 0)),
        ("floor", lib.floor), ("round", lib.round), ("frac", lib.frac),
        ("clamp0", lambda z: z.clamp(min=0)), ("max0", lambda z: lib.maximum(z, lib.zeros_like(z))),
        ("sqrt_sq", lambda z: (z * z).sqrt()), ("hypot0", lambda z: lib.hypot(z, z * 0)),
        ("atan2", lambda z: lib.atan2(z, z * 0)), ("div0", lambda z: z / z),
        ("acos1", lambda z: lib.acos(z.clamp(-1, 1))),
        ("erfinv", lambda z: lib.erfinv(z.clamp(-1, 1))),
    ]:  # fmt: skip
        (auto,) = _grad(lib, lambda z, f=f: f(z).sum(), z)
        rec(name, auto + 0)  # sgn's gradient is torch's ZeroTensor, which has no .numpy()
    zero = lib.zeros((), dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(lib.sqrt(zero), zero, create_graph=True)
    rec("sqrt0.g", g)
    (gg,) = lib.autograd.grad(g, zero)
    rec("sqrt0.gg", gg)
    (g,) = lib.autograd.grad(zero.abs(), zero, create_graph=True)
    rec("abs0.g", g)
    rec("abs0.gg", lib.autograd.grad(g, zero, allow_unused=True)[0] is None)
    # cosine similarity and normalize at the zero vector (eps keeps them finite)
    v = lib.zeros(3, dtype=dt, requires_grad=True)
    w = lib.ones(3, dtype=dt)
    rec("cos0", _grad(lib, lambda v: F.cosine_similarity(v, w, dim=0), v)[0])
    rec("normalize0", _grad(lib, lambda v: F.normalize(v, dim=0).sum(), v)[0])
    rec("norm0", _grad(lib, lambda v: v.norm(), v)[0])
    rec("vnorm0", _grad(lib, lambda v: lib.linalg.vector_norm(v), v)[0])
    rec("std1", _grad(lib, lambda v: v[:1].std(), v)[0])
    rec("var_same", _grad(lib, lambda v: v.var(), v)[0])
    rec("std_same", _grad(lib, lambda v: v.std(), v)[0])


def p_ad_where_nan(lib, dt, rec):
    x = lib.tensor([-1.0, 0.0, 0.5, 4.0], dtype=dt, requires_grad=True)
    # the where trap: the untaken branch's nan gradient still flows (0 * inf = nan)
    (g,) = _grad(lib, lambda x: lib.where(x > 0, x.sqrt(), lib.zeros_like(x)).sum(), x)
    rec("where_sqrt", g)
    (g,) = _grad(lib, lambda x: lib.where(x > 0, x.log(), x).sum(), x)
    rec("where_log", g)
    # the fix: a safe input to the branch
    safe = lambda x: lib.where(x > 0, x, lib.ones_like(x))  # noqa: E731
    (g,) = _grad(lib, lambda x: lib.where(x > 0, safe(x).sqrt(), lib.zeros_like(x)).sum(), x)
    rec("where_safe", g)
    (g,) = _grad(lib, lambda x: lib.where(x != 0, 1 / x, x).sum(), x)
    rec("where_recip", g)
    (g,) = _grad(lib, lambda x: (x.sqrt() * (x > 0)).sum(), x)
    rec("mask_mul", g)
    (g,) = _grad(lib, lambda x: x.sqrt().nan_to_num(0.0).sum(), x)
    rec("nan_to_num", g)
    (g,) = _grad(lib, lambda x: x.sqrt().masked_fill(x <= 0, 0.0).sum(), x)
    rec("masked_fill", g)
    (g,) = _grad(lib, lambda x: x.sqrt()[x > 0].sum(), x)
    rec("bool_index", g)
    (g,) = _grad(lib, lambda x: lib.nansum(x.log()), x)
    rec("nansum", g)
    (g,) = _grad(lib, lambda x: lib.nanmean(x.log()), x)
    rec("nanmean", g)
    (g,) = _grad(lib, lambda x: x.log().clamp(min=-5).sum(), x)
    rec("clamp_log", g)
    (g,) = _grad(lib, lambda x: lib.where(x > 0, x, x * float("nan")).sum(), x)
    rec("where_nan_branch", g)
    (g,) = _grad(lib, lambda x: (x * float("inf")).clamp(-1, 1).sum(), x)
    rec("inf_clamp", g)
    (g,) = _grad(lib, lambda x: lib.where(x > 1, x**2, 0.0).sum(), x)
    rec("where_scalar", g)
    y = x.detach().clone()
    y[1] = float("nan")
    y.requires_grad_(True)
    (g,) = _grad(lib, lambda y: y.max(), y)
    rec("max_nan", g)
    (g,) = _grad(lib, lambda y: y.amax(), y)
    rec("amax_nan", g)
    (g,) = _grad(lib, lambda y: lib.maximum(y, lib.zeros_like(y)).sum(), y)
    rec("maximum_nan", g)
    (g,) = _grad(lib, lambda y: lib.fmax(y, lib.zeros_like(y)).sum(), y)
    rec("fmax_nan", g)
    (g,) = _grad(lib, lambda y: y.relu().sum(), y)
    rec("relu_nan", g)
    (g,) = _grad(lib, lambda y: y.clamp(0, 1).sum(), y)
    rec("clamp_nan", g)
    (g,) = _grad(lib, lambda y: y.abs().sum(), y)
    rec("abs_nan", g)
    (g,) = _grad(lib, lambda y: y.sort().values[0], y)
    rec("sort_nan", g)


def p_ad_errors(lib, dt, rec):
    x = _randn(lib, dt, 42, 3, 4).requires_grad_(True)
    y = x * 2
    rec.err("nonscalar_backward", lambda: y.backward())
    rec.err("nonscalar_grad", lambda: lib.autograd.grad(y, x))
    rec.err("grad_shape", lambda: lib.autograd.grad(y, x, lib.ones(4, 3, dtype=dt)))
    rec.err("grad_shape_bc", lambda: y.backward(lib.ones(4, dtype=dt)))
    rec.err("backward_gradient_scalar", lambda: y.sum().backward(lib.ones(1, dtype=dt)))
    rec.err("grad_dtype", lambda: lib.autograd.grad(y, x, lib.ones(3, 4, dtype=lib.long)))
    rec.err("no_grad", lambda: (x.detach() * 2).sum().backward())
    rec.err("grad_no_grad", lambda: lib.autograd.grad((x.detach() * 2).sum(), x))
    rec.err(
        "unused", lambda: lib.autograd.grad(x.sum(), [x, _randn(lib, dt, 43, 2).requires_grad_()])
    )
    rec.err("twice", lambda: [z.backward() for z in [(x.exp()).sum()] * 2])
    rec.err("inplace_leaf", lambda: x.add_(1))
    rec.err("inplace_leaf_idx", lambda: x.__setitem__(0, 1.0))
    rec.err("inplace_leaf_zero", lambda: x.zero_())
    rec.err("inplace_saved", lambda: _inplace_saved(lib, x))
    rec.err("int_requires_grad", lambda: lib.arange(3).requires_grad_())
    rec.err("int_tensor_rg", lambda: lib.tensor([1, 2], requires_grad=True))
    rec.err("nonleaf_rg", lambda: y.requires_grad_(False))
    rec.err("matmul_shape", lambda: x @ x)
    rec.err("mul_shape", lambda: x * x[:2])
    rec.err("add_shape", lambda: x + lib.ones(4, 3, dtype=dt))
    rec.err("mv_shape", lambda: lib.mv(x, lib.ones(3, dtype=dt)))
    rec.err("dot_1d", lambda: lib.dot(x, x))
    rec.err("dot_len", lambda: lib.dot(x[0], x[0, :3]))
    rec.err("view_noncontig", lambda: x.T.view(12))
    rec.err("cat_shape", lambda: lib.cat([x, x.T]))
    rec.err("stack_shape", lambda: lib.stack([x, x[:2]]))
    rec.err("expand_bad", lambda: x.expand(3, 5))
    rec.err("reshape_bad", lambda: x.reshape(5, -1))
    rec.err("numpy_rg", lambda: x.numpy())
    rec.err("item_many", lambda: x.item())
    rec.err("jac_int", lambda: lib.autograd.functional.jacobian(lambda t: t * 2, lib.arange(3)))
    rec.err("grad_int", lambda: lib.autograd.grad(x.sum(), lib.arange(3)))
    rec.err("grad_not_tensor", lambda: lib.autograd.grad(x.sum(), 3.0))
    rec.err("retain_grad_leaf", lambda: y.grad)
    rec("nonleaf_grad_none", str(y.grad))


def _inplace_saved(lib, x):
    a = x * 1
    b = a.exp()
    a.mul_(2)
    b.sum().backward()


def p_ad_puzzles(lib, dt, rec):
    """srush's autodiff puzzles: forward f, hand-written dx (the vjp); checked against autograd."""
    x = _randn(lib, dt, 44, 8).requires_grad_(True)
    y = _randn(lib, dt, 45, 8).requires_grad_(True)
    g = _randn(lib, dt, 46, 8)
    xd, yd = x.detach(), y.detach()
    puzzles = [
        ("id", lambda x, y: x, lambda g: (g, None)),
        ("cosine", lambda x, y: x.cos(), lambda g: (-xd.sin() * g, None)),
        ("mean", lambda x, y: x.mean()[None], lambda g: (g[:1].expand(8) / 8, None)),
        ("product", lambda x, y: x * y, lambda g: (g * yd, g * xd)),
        ("where", lambda x, y: lib.where(x > 0, x, y), lambda g: (g * (xd > 0), g * (xd <= 0))),
        ("relu", lambda x, y: x.relu(), lambda g: (g * (xd > 0), None)),
        ("repeat_sum", lambda x, y: x.repeat(2)[:8] + x.flip(0), lambda g: (g + g.flip(0), None)),
        (
            "sum_x_y",
            lambda x, y: (x[:, None] * y[None, :]).sum(0),
            lambda g: ((yd * g).sum().expand(8), xd.sum() * g),
        ),
        (
            "sigmoid",
            lambda x, y: x.sigmoid(),
            lambda g: (g * xd.sigmoid() * (1 - xd.sigmoid()), None),
        ),
        ("max", lambda x, y: lib.maximum(x, y), lambda g: (g * (xd > yd), g * (yd > xd))),
        (
            "softmax",
            lambda x, y: x.softmax(0),
            lambda g: (xd.softmax(0) * (g - (g * xd.softmax(0)).sum()), None),
        ),
        (
            "shift",
            lambda x, y: lib.cat([x[1:], lib.zeros(1, dtype=dt)]),
            lambda g: (lib.cat([lib.zeros(1, dtype=dt), g[:-1]]), None),
        ),
        ("cumsum", lambda x, y: x.cumsum(0), lambda g: (g.flip(0).cumsum(0).flip(0), None)),
        ("sq_dist", lambda x, y: (x - y) ** 2, lambda g: (2 * (xd - yd) * g, -2 * (xd - yd) * g)),
    ]
    for name, f, hand in puzzles:
        out = f(x, y)
        gx, gy = lib.autograd.grad(out, (x, y), g[: out.shape[0]], allow_unused=True)
        hx, hy = hand(g[: out.shape[0]])
        rec(name + ".x", gx)
        rec(name + ".y", "None" if gy is None else gy)
        rec(name + ".hx_err", (gx - hx).abs().max())
        if hy is not None:
            rec(name + ".hy_err", (gy - hy).abs().max())
    # the Jacobian of each puzzle, checked by torch.autograd.functional.jacobian
    J = lib.autograd.functional.jacobian(lambda x: x.softmax(0), xd)
    s = xd.softmax(0)
    rec("softmax_jac", J)
    rec("softmax_jac_hand", (J - (lib.diag(s) - s[:, None] * s[None, :])).abs().max())
    J = lib.autograd.functional.jacobian(lambda x: x.cumsum(0), xd)
    rec("cumsum_jac", J)
    rec("cumsum_jac_tril", lib.equal(J, lib.tril(lib.ones(8, 8, dtype=dt))))


def p_ad_matmul_conv(lib, dt, rec):
    A = _randn(lib, dt, 47, 3, 4).requires_grad_(True)
    B = _randn(lib, dt, 48, 4, 5).requires_grad_(True)
    G = _randn(lib, dt, 49, 3, 5)
    gA, gB = lib.autograd.grad(A @ B, (A, B), G)
    rec("mm.A", gA)
    rec("mm.B", gB)
    rec("mm.hand", (gA - G @ B.detach().T).abs().max() + (gB - A.detach().T @ G).abs().max())
    v = _randn(lib, dt, 50, 4).requires_grad_(True)
    gA2, gv = lib.autograd.grad(A @ v, (A, v), G[:, 0])
    rec("mv.A", gA2)
    rec("mv.v", gv)
    rec("mv.hand", (gA2 - lib.outer(G[:, 0], v.detach())).abs().max())
    # conv1d by unfold: out[i] = sum_k x[i + k] w[k]
    x = _randn(lib, dt, 51, 10).requires_grad_(True)
    w = _randn(lib, dt, 52, 3).requires_grad_(True)
    out = (x.unfold(0, 3, 1) * w).sum(1)
    ref = lib.nn.functional.conv1d(x[None, None], w[None, None])[0, 0]
    rec("conv", out)
    rec("conv_ref", ref)
    g = _randn(lib, dt, 53, 8)
    gx, gw = lib.autograd.grad(out, (x, w), g)
    rec("conv.x", gx)
    rec("conv.w", gw)
    rx, rw = lib.autograd.grad(ref, (x, w), g)
    rec("conv_ref.x", rx)
    rec("conv_ref.w", rw)
    # hand: dw[k] = sum_i g[i] x[i+k]; dx = full correlation of g with flipped w
    hw = (x.detach().unfold(0, 3, 1) * g[:, None]).sum(0)
    gp = lib.nn.functional.pad(g, (2, 2))
    hx = (gp.unfold(0, 3, 1) * w.detach().flip(0)).sum(1)
    rec("conv.hand", (gw - hw).abs().max() + (gx - hx).abs().max())
    # einsum and bmm
    P = _randn(lib, dt, 54, 2, 3, 4).requires_grad_(True)
    Q = _randn(lib, dt, 55, 2, 4, 2).requires_grad_(True)
    out = lib.einsum("bij,bjk->bik", P, Q)
    gP, gQ = lib.autograd.grad(out, (P, Q), lib.ones_like(out))
    rec("einsum.P", gP)
    rec("einsum.Q", gQ)
    rec("bmm_same", (lib.bmm(P, Q) - out).abs().max())
    tr = lib.autograd.grad(lib.einsum("ii->", A[:, :3]), A)[0]
    rec("trace", tr)
    rec("trace2", lib.autograd.grad(A[:, :3].trace(), A)[0])


def p_ad_inplace(lib, dt, rec):
    x = _randn(lib, dt, 56, 5).requires_grad_(True)
    with lib.no_grad():
        x.add_(1)
    rec("nograd_add", x)
    rec("version", x._version)
    y = x.clone()
    y[1:3] = 0
    y.mul_(2)
    y.sum().backward()
    rec("clone_setitem", x.grad)
    x.grad = None
    y = x * 1
    y.relu_()
    y.sum().backward()
    rec("relu_", x.grad)
    x.grad = None
    y = x.exp()
    rec.err("exp_add_", lambda: (y.add_(1), y.sum().backward()))
    rec("exp_add_.grad", str(x.grad))
    x.grad = None
    y = x.sigmoid()
    rec.err("sigmoid_mul_", lambda: y.mul_(2).sum().backward())
    x.grad = None
    y = x.tanh()
    rec.err("tanh_then_mod", lambda: (y.add_(0), y.sum().backward()))
    x.grad = None
    v = x * 1
    view = v[1:4]
    view.mul_(3)
    v.sum().backward()
    rec("view_mul_", x.grad)
    rec("view_grad_fn", type(v.grad_fn).__name__)
    x.grad = None
    b = x.detach()
    b.zero_()
    rec("detach_shares", x)
    rec.err("after_detach_zero", lambda: x.sum().backward())
    rec("x.grad_after", x.grad)
    w = lib.ones(3, dtype=dt, requires_grad=True)
    rec.err("leaf_view_inplace", lambda: w[0].mul_(2))
    with lib.no_grad():
        w[0] = 5
    rec("w", w)
    rec("w.is_leaf", w.is_leaf)
    rec.err("leaf_in_graph", lambda: w.copy_(lib.zeros(3, dtype=dt)))
    with lib.no_grad():
        w -= 0.5 * lib.ones(3, dtype=dt)
    rec("w.sgd", w)
    rec("w.requires_grad", w.requires_grad)
    u = w * 2
    rec.err("leaf_sub_eq", lambda: _isub(w))
    (u.sum()).backward()
    rec("w.grad", w.grad)
    w.grad.zero_()
    rec("w.grad0", w.grad)
    rec.err("data_swap", lambda: setattr(w, "data", lib.zeros(4, dtype=dt)))
    rec("w.shape", str(w.shape))


def _isub(w):
    w -= 1


def p_int_reductions(lib, dt, rec):
    i = lib.tensor([[3, -1, 4], [1, -5, 9]])
    b = i > 0
    u8 = lib.tensor([250, 3, 7], dtype=lib.uint8)
    i8 = lib.tensor([100, -100, 27], dtype=lib.int8)
    for name, fn in [
        ("mean_int", lambda: i.mean()), ("mean_bool", lambda: b.mean()),
        ("var_int", lambda: i.var()), ("std_bool", lambda: b.std()),
        ("median_int", lambda: i.median()), ("prod_bool", lambda: b.prod()),
        ("sum_bool_dim", lambda: b.sum(0)), ("sum_u8", lambda: u8.sum()),
        ("sum_u8_dtype", lambda: u8.sum(dtype=lib.uint8)), ("u8_add_wrap", lambda: u8 + u8),
        ("u8_sub_wrap", lambda: u8 - 251), ("i8_mul_wrap", lambda: i8 * 2),
        ("i8_neg", lambda: -lib.tensor([-128], dtype=lib.int8)),
        ("mean_dtype", lambda: i.mean(dtype=dt)), ("sum_dtype_f", lambda: i.sum(dtype=dt)),
        ("cumsum_bool", lambda: b.cumsum(1)), ("cumprod_u8", lambda: u8.cumprod(0)),
        ("max_bool", lambda: b.max()), ("argmax_bool", lambda: b.argmax()),
        ("amax_bool", lambda: b.amax(1)), ("sort_bool", lambda: b.sort(dim=1, stable=True)),
        ("clamp_bool", lambda: b.clamp(0, 1)), ("abs_bool", lambda: b.abs()),
        ("sqrt_int", lambda: i.sqrt()), ("exp_bool", lambda: b.exp()),
        ("log_u8", lambda: u8.log()), ("sigmoid_int", lambda: i.sigmoid()),
        ("softmax_int", lambda: i.softmax(0)), ("norm_int", lambda: i.norm()),
        ("logsumexp_int", lambda: i.logsumexp(1)), ("floor_int", lambda: i.floor()),
        ("round_int", lambda: i.round()), ("sign_bool", lambda: b.sign()),
        ("neg_bool", lambda: b.neg()), ("pow_int_neg", lambda: i ** -1),
        ("pow_int_negf", lambda: i ** -1.0), ("pow_tensor_neg", lambda: i ** lib.tensor(-2)),
        ("int_pow_int", lambda: lib.tensor(2) ** lib.tensor([0, 3, 10])),
        ("bitwise_not_int", lambda: ~i), ("bitwise_not_float", lambda: ~i.to(dt)),
        ("mm_bool", lambda: b.T.int() @ b.int()), ("mm_bool_bool", lambda: b.T @ b),
        ("dot_bool", lambda: b[0] @ b[1]), ("matmul_u8", lambda: u8 @ u8),
        ("trace_int", lambda: i[:, :2].trace()), ("outer_bool", lambda: lib.outer(b[0], b[1])),
        ("diff_bool", lambda: lib.diff(b.int(), dim=1)), ("all_int", lambda: i.all(1)),
        ("nanmean_int", lambda: i.nanmean()), ("count_nonzero", lambda: lib.count_nonzero(i, 1)),
        ("quantile_int", lambda: i.quantile(0.5)), ("histc_int", lambda: lib.histc(i)),
        ("bincount_neg", lambda: lib.bincount(i[1])), ("bincount_2d", lambda: lib.bincount(i)),
        ("bincount_float", lambda: lib.bincount(i[0].to(dt))),
        ("bincount_wlen", lambda: lib.bincount(i[0].abs(), lib.ones(2))),
        ("one_hot_neg", lambda: lib.nn.functional.one_hot(i[0])),
        ("one_hot_float", lambda: lib.nn.functional.one_hot(i[0].to(dt))),
        ("one_hot_small", lambda: lib.nn.functional.one_hot(i[0].abs(), 3)),
        ("searchsorted_unsorted_ok", lambda: lib.searchsorted(lib.tensor([3, 1, 2]), i)),
        ("bucketize_2d_bounds", lambda: lib.bucketize(i, i)),
        ("arange_zero_step", lambda: lib.arange(0, 5, 0)),
        ("arange_bad_sign", lambda: lib.arange(5, 0, 1)),
        ("linspace_neg", lambda: lib.linspace(0, 1, -1)),
        ("eye_neg", lambda: lib.eye(-1)),
        ("repeat_few", lambda: i.repeat(2)),
        ("roll_no_dims", lambda: lib.roll(i, (1, 2))),
        ("roll_bad_dim", lambda: lib.roll(i, 1, 2)),
        ("flip_dup", lambda: lib.flip(i, (0, 0))),
        ("diag_3d", lambda: lib.diag(i[None])),
        ("triu_1d", lambda: lib.triu(i[0])),
        ("vstack_mismatch", lambda: lib.vstack([i, i[:, :2]])),
        ("where_shape", lambda: lib.where(b, i, i[:, :2])),
        ("where_nonbool", lambda: lib.where(i, i, 0)),
        ("heaviside_f_i", lambda: lib.heaviside(i.to(dt), i)),
        ("cumsum_no_dim", lambda: lib.cumsum(i)),
    ]:  # fmt: skip
        out = rec.err(name, fn)
        if out is not None:
            rec(name + ".value", out if not isinstance(out, tuple) else out[0])


def p_constructors(lib, dt, rec):
    for name, fn in [
        ("list_mixed", lambda: lib.tensor([1, 2.0])),
        ("list_bool_int", lambda: lib.tensor([True, 2])),
        ("nested", lambda: lib.tensor([[1, 2], [3, 4]])), ("scalar_f", lambda: lib.tensor(3.5)),
        ("ragged", lambda: lib.tensor([[1, 2], [3]])), ("empty_list", lambda: lib.tensor([])),
        ("tensor_list", lambda: lib.tensor([lib.tensor(1), lib.tensor(2)])),
        ("tensor_list_f", lambda: lib.tensor([lib.tensor(1.5), lib.tensor(2)])),
        ("arange_int", lambda: lib.arange(5)), ("arange_f", lambda: lib.arange(5.0)),
        ("arange_len", lambda: lib.arange(0, 1, 0.1)),
        ("arange_len2", lambda: lib.arange(1, 2.5, 0.5)),
        ("arange_dt", lambda: lib.arange(5, dtype=dt)),
        ("arange_tensor", lambda: lib.arange(lib.tensor(4))),
        ("full_int", lambda: lib.full((2,), 3)), ("full_f", lambda: lib.full((2,), 3.0)),
        ("full_bool", lambda: lib.full((2,), True)),
        ("zeros_like_b", lambda: lib.zeros_like(lib.tensor([True]))),
        ("ones_int_dt", lambda: lib.ones(2, dtype=lib.int32)), ("eye_f", lambda: lib.eye(3)),
        ("as_tensor", lambda: lib.as_tensor([1, 2], dtype=dt)),
        ("tensor_dt", lambda: lib.tensor([1, 2], dtype=dt)),
        ("ones_tuple", lambda: lib.ones((2, 3)).shape),
        ("ones_list", lambda: lib.ones([2, 3]).shape),
        ("zeros_neg", lambda: lib.zeros(-1)), ("zeros_float", lambda: lib.zeros(2.0)),
        ("randn_bad", lambda: lib.ones(2, "3")), ("tensor_str", lambda: lib.tensor("abc")),
        ("tensor_none", lambda: lib.tensor(None)), ("tensor_big", lambda: lib.tensor(2 ** 63)),
        ("tensor_neg_u8", lambda: lib.tensor([-1], dtype=lib.uint8)),
        ("tensor_f_to_int", lambda: lib.tensor([1.7, -1.7], dtype=lib.long)),
        ("long_cast", lambda: lib.tensor([1.7, -1.7, 2.5]).long()),
        ("bool_cast", lambda: lib.tensor([0.0, -0.0, 0.1, float("nan")]).bool()),
        ("int_of_tensor", lambda: int(lib.tensor(2.9))),
        ("float_of_vec", lambda: float(lib.tensor([1.0, 2.0]))),
        ("bool_of_vec", lambda: bool(lib.tensor([1, 0]))),
        ("bool_of_empty", lambda: bool(lib.tensor([]))),
        ("len_scalar", lambda: len(lib.tensor(3))), ("iter_scalar", lambda: list(lib.tensor(3))),
        ("index_scalar", lambda: lib.tensor(3)[0]),
        ("item_float", lambda: lib.tensor([2.5], dtype=dt).item()),
        ("tolist", lambda: lib.tensor([[1, 2], [3, 4]]).tolist()),
        ("range_index", lambda: [0, 1, 2][lib.tensor(1)]),
    ]:  # fmt: skip
        out = rec.err(name, fn)
        if out is not None:
            if hasattr(out, "dtype"):
                rec(name + ".value", out)
            else:
                rec(name + ".repr", repr(out))


def p_reprs(lib, dt, rec):
    rec("ones", str(_ones(lib, 4)))
    rec("eye", str(_eye(lib, 3)))
    rec("mask", str(_arange(lib, 4) > 1))
    rec("cumsum", str(_cumsum(lib, lib.arange(5))))
    rec("lin", str(_linspace(lib, 0, 1, 5, dt)))
    rec("lin_ref", str(lib.linspace(0, 1, 5, dtype=dt)))
    x = lib.tensor([1.5, -2.0, 3.25], dtype=dt, requires_grad=True)
    rec("leaf", repr(x))
    rec("nonleaf", repr(x * 2))
    rec("sum", repr(x.sum()))
    rec("max", repr(x.max(0)))
    rec("sort", repr(x.sort()))
    rec("grad_scalar", repr(lib.autograd.grad(x.sum(), x)[0]))
    rec("empty", repr(lib.arange(0)))
    rec("empty2", repr(lib.ones(0, 3, dtype=dt)))
    rec("u8", repr(lib.arange(3, dtype=lib.uint8)))
    rec("i32", repr(lib.arange(3, dtype=lib.int32)))
    rec("bool0", repr(lib.tensor(True)))
    rec("big", repr(lib.arange(12.0, dtype=dt).reshape(3, 4) * 1e5))
    rec("small", repr(lib.tensor([1e-5, 1.0], dtype=dt)))
    rec("inf", repr(lib.tensor([float("inf"), float("nan"), -1.0], dtype=dt)))
    rec("long_vec", repr(lib.arange(1200)))
    rec("shape", repr(lib.ones(2, 3).shape))
    rec("size1", repr(lib.ones(2, 3).size(1)))
    rec("dtype", repr(lib.ones(2, dtype=dt).dtype))
    rec("grad_fn", repr((x * 2).grad_fn).split(" object")[0])
    rec("next_fns", str([type(f).__name__ for f, _ in (x * 2).sum().grad_fn.next_functions]))
    rec("jac_repr", repr(lib.autograd.functional.jacobian(lambda x: x**2, x.detach())))


def _functions(lib):
    """Students' autograd.Functions: right and wrong backward formulas."""

    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class BadSigmoid(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sigmoid()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.sigmoid()  # forgot the (1 - s)

    class MyMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            ctx.save_for_backward(a, b)
            ctx.scale = scale
            return a * b * scale

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            ga = g * b * ctx.scale if ctx.needs_input_grad[0] else None
            gb = g * a * ctx.scale if ctx.needs_input_grad[1] else None
            return ga, gb, None

    class TooFew(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    class WrongShape(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return g.reshape(1)

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class ArgMax(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(x, i)
            return x.max(), i

        @staticmethod
        def backward(ctx, g, gi):
            x, i = ctx.saved_tensors
            out = lib.zeros_like(x)
            out.view(-1)[i] = g
            return out

    class SaveNonTensor(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    class NoStatic(lib.autograd.Function):
        def forward(ctx, x):
            return x * 1

    class WrongDtype(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return lib.ones(g.shape, dtype=lib.long)

    return dict(
        MyExp=MyExp,
        BadSigmoid=BadSigmoid,
        MyMul=MyMul,
        TooFew=TooFew,
        WrongShape=WrongShape,
        Once=Once,
        ArgMax=ArgMax,
        SaveNonTensor=SaveNonTensor,
        NoStatic=NoStatic,
        WrongDtype=WrongDtype,
    )


def p_custom_functions(lib, dt, rec):
    fs = _functions(lib)
    gc = lib.autograd.gradcheck
    x = _randn(lib, dt, 60, 4).requires_grad_(True)
    y = _randn(lib, dt, 61, 4).requires_grad_(True)
    out = fs["MyExp"].apply(x)
    rec("myexp", out)
    rec("myexp.fn", type(out.grad_fn).__name__)
    rec("myexp.g", lib.autograd.grad(out.sum(), x)[0])
    out = fs["MyMul"].apply(x, y, 2.5)
    rec("mymul.g", lib.autograd.grad(out.sum(), (x, y)))
    out = fs["MyMul"].apply(x, y.detach(), 2.5)
    rec("mymul.ga", lib.autograd.grad(out.sum(), x)[0])
    m, i = fs["ArgMax"].apply(x)
    rec("argmax.i.rg", i.requires_grad)
    rec("argmax.g", lib.autograd.grad(m, x)[0])
    rec.err("toofew", lambda: fs["TooFew"].apply(x, y).sum().backward())
    rec.err("wrongshape", lambda: fs["WrongShape"].apply(x).backward())
    rec.err("wrongdtype", lambda: fs["WrongDtype"].apply(x).sum().backward())
    rec.err("savenontensor", lambda: fs["SaveNonTensor"].apply(x))
    rec.err("nostatic", lambda: fs["NoStatic"].apply(x))
    rec.err("call_instance", lambda: fs["MyExp"]()(x))
    o = fs["Once"].apply(x)
    (g,) = lib.autograd.grad(o.sum(), x, create_graph=True)
    rec("once.g", g)
    rec("once.g.rg", g.requires_grad)
    rec.err("once.gg", lambda: g.sum().backward())
    if dt == "float64":
        xs = x.detach().clone().requires_grad_(True)
        rec.err("gc_myexp", lambda: gc(fs["MyExp"].apply, (xs,)))
        rec.err("ggc_myexp", lambda: lib.autograd.gradgradcheck(fs["MyExp"].apply, (xs,)))
        rec.err("gc_mymul", lambda: gc(lambda a, b: fs["MyMul"].apply(a, b, 0.5), (xs, xs * 1)))
        rec.err("gc_bad_raise", lambda: gc(fs["BadSigmoid"].apply, (xs,)))
        rec("gc_bad_noraise", gc(fs["BadSigmoid"].apply, (xs,), raise_exception=False))
        rec.err("gc_once_gg", lambda: lib.autograd.gradgradcheck(fs["Once"].apply, (xs,)))
    else:
        # (its message prints the float32 numerical Jacobian, rounding noise: not recorded)
        rec("gc_float32", gc(fs["MyExp"].apply, (x,), raise_exception=False))
    rec.err("gc_no_rg", lambda: gc(lib.exp, (x.detach(),)))


def p_func_api(lib, dt, rec):
    fn = lib.func
    x = _randn(lib, dt, 62, 4)
    W = _randn(lib, dt, 63, 3, 4)

    def f(x):
        return (W @ x).tanh().sum()

    rec("grad", fn.grad(f)(x))
    g, v = fn.grad_and_value(f)(x)
    rec("grad_and_value", g)
    rec("value", v)
    rec("jacrev", fn.jacrev(lambda x: (W @ x).tanh())(x))
    rec("jacfwd", fn.jacfwd(lambda x: (W @ x).tanh())(x))
    rec("hessian", fn.hessian(f)(x))
    out, vjp_fn = fn.vjp(lambda x: (W @ x).sin(), x)
    rec("vjp", vjp_fn(lib.ones(3, dtype=dt))[0])
    rec("jvp", fn.jvp(lambda x: (W @ x).sin(), (x,), (lib.ones(4, dtype=dt),))[1])
    xs = _randn(lib, dt, 64, 5, 4)
    rec("vmap_grad", fn.vmap(fn.grad(f))(xs))
    rec("vmap_jac", fn.vmap(fn.jacrev(lambda x: (W @ x).tanh()))(xs))
    rec("grad_argnums", fn.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x * 2))
    rec("grad_aux", fn.grad(lambda x: (f(x), x.sum()), has_aux=True)(x))
    rec.err("grad_nonscalar", lambda: fn.grad(lambda x: x * 2)(x))
    rec.err("grad_int", lambda: fn.grad(f)(lib.arange(4)))
    rec.err("grad_bad_argnums", lambda: fn.grad(f, argnums=1)(x))
    rec.err("vmap_bad_dim", lambda: fn.vmap(lambda x: x.sum(), in_dims=2)(xs))
    rec.err("vmap_sizes", lambda: fn.vmap(lambda a, b: a + b)(xs, xs[:3]))
    rec.err("grad_aux_bad", lambda: fn.grad(f, has_aux=True)(x))
    # the max puzzle: per-example gradient of a max with ties
    t = lib.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=dt)
    rec("vmap_max", fn.vmap(fn.grad(lambda r: r.max()))(t))
    rec("vmap_amax", fn.vmap(fn.grad(lambda r: r.amax()))(t))
    rec("vmap_relu0", fn.vmap(fn.grad(lambda r: r.relu().sum()))(t - 2))


def p_hooks_retain(lib, dt, rec):
    x = _randn(lib, dt, 65, 4).requires_grad_(True)
    y = x * 3
    y.retain_grad()
    z = y.sin()
    seen = []
    h = z.register_hook(lambda g: seen.append(g.clone()))
    x.register_hook(lambda g: g * 2)
    z.sum().backward()
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)
    rec("seen", seen[0])
    rec("z.grad", str(z.grad))
    h.remove()
    rec.warns("nonleaf_grad_warns", lambda: z.grad)
    rec("is_leaf", str([x.is_leaf, y.is_leaf, z.is_leaf]))
    rec("retains", str([x.retains_grad, y.retains_grad, z.retains_grad]))
    rec.err("hook_on_nograd", lambda: x.detach().register_hook(lambda g: g))
    rec.err("retain_leaf_nograd", lambda: x.detach().retain_grad())
    rec.err("hook_bad_shape", lambda: _bad_hook(lib, x))
    rec.err("hook_bad_dtype", lambda: _bad_hook(lib, x, dtype=True))
    # accumulation across two backward calls, then zeroing
    x.grad = None
    (x**2).sum().backward()
    (x**2).sum().backward()
    rec("accum", x.grad)
    x.grad.zero_()
    rec("zeroed", x.grad)
    rec.err("set_bad_grad", lambda: setattr(x, "grad", lib.zeros(3, dtype=dt)))
    rec.err("set_bad_grad_dtype", lambda: setattr(x, "grad", lib.zeros(4, dtype=lib.long)))
    # retain_graph lets a second backward through
    x.grad = None
    w = x.exp()
    s = w.sum()
    s.backward(retain_graph=True)
    s.backward()
    rec("retain_graph", x.grad)
    rec.err("third", lambda: s.backward())


def _bad_hook(lib, x, dtype=False):
    y = x * 1
    if dtype:
        y.register_hook(lambda g: g.long())
    else:
        y.register_hook(lambda g: g[:2])
    y.sum().backward()


def _grads2(lib, f, x):
    """f's gradient and the gradient of its sum (second derivative along ones)."""
    (g,) = lib.autograd.grad(f(x), x, create_graph=True)
    if not g.requires_grad:
        return g, None
    (gg,) = lib.autograd.grad(g.sum(), x, allow_unused=True)
    return g, gg


def p_ad_zeros(lib, dt, rec):
    rows = [
        [2.0, 3.0, 4.0],
        [2.0, 0.0, 4.0],
        [0.0, 0.0, 4.0],
        [0.0, 0.0, 0.0],
    ]
    for k, r in enumerate(rows):
        x = lib.tensor(r, dtype=dt, requires_grad=True)
        for name, f in [
            ("prod", lambda x: x.prod()),
            ("cumprod", lambda x: x.cumprod(0).sum()),
            ("prod_dim", lambda x: x[None].prod(1).sum()),
            ("norm", lambda x: x.norm()),
            ("norm3", lambda x: x.norm(3)),
            ("norm_half", lambda x: x.norm(0.5)),
            ("norm0", lambda x: x.norm(0)),
            ("norm_inf", lambda x: x.norm(float("inf"))),
            ("std", lambda x: x.std()),
            ("var", lambda x: x.var()),
            ("lse", lambda x: (x.log()).logsumexp(0)),
            ("pow0", lambda x: (x**0).sum()),
            ("zero_pow", lambda x: (0.0**x).sum()),
            ("xpow2", lambda x: (x**2.5).sum()),
            ("sqrt", lambda x: x.sqrt().sum()),
            ("dist", lambda x: lib.dist(x, lib.zeros_like(x))),
            ("normalize", lambda x: lib.nn.functional.normalize(x, dim=0)[0]),
            ("softmax_log", lambda x: x.log().softmax(0)[0]),
            ("xlogx", lambda x: lib.special.xlogy(x, x).sum()),
            ("entr", lambda x: lib.special.entr(x).sum()),
            ("vector_norm", lambda x: lib.linalg.vector_norm(x, 1.5)),
        ]:
            res = rec.err(f"{name}{k}", lambda f=f, x=x: _grads2(lib, f, x))
            if res is None:  # norm(0) has no gradient path at all
                continue
            g, gg = res
            rec(f"{name}{k}.g", g + 0)  # (+ 0: torch's ZeroTensors have no .numpy())
            rec(f"{name}{k}.gg", "None" if gg is None else gg + 0)
        # pdist and cdist: first derivatives only (torch has no double backward for them)
        for name, f in [
            ("pdist", lambda x: lib.pdist(x[:, None]).sum()),
            ("cdist", lambda x: lib.cdist(x[None, :, None], x[None, :1, None]).sum()),
            ("cdist1", lambda x: lib.cdist(x[None, :, None], x[None, :1, None], p=1).sum()),
            (
                "cdist_inf",
                lambda x: lib.cdist(x[None, :, None], x[None, :, None], p=float("inf")).sum(),
            ),
        ]:
            rec(f"{name}{k}.g", lib.autograd.grad(f(x), x)[0])


def p_ad_ties(lib, dt, rec):
    x = lib.tensor([[2.0, 7.0, 7.0, 1.0, 7.0], [3.0, 3.0, 0.0, 0.0, 5.0]], dtype=dt)
    x.requires_grad_(True)
    gv = lib.tensor([1.0, -2.0], dtype=dt)
    for name, f in [
        ("median", lambda x: x.median(1).values),
        ("median_i", lambda x: x.median(1).indices),
        ("mode", lambda x: x.mode(1).values),
        ("kth3", lambda x: x.kthvalue(3, 1).values),
        ("topk", lambda x: x.topk(2, 1).values.sum(1)),
        ("nanmedian", lambda x: x.nanmedian(1)[0]),
        ("quantile", lambda x: x.quantile(0.5, 1)),
        ("quantile_lin", lambda x: x.quantile(0.3, 1)),
        ("quantile_near", lambda x: x.quantile(0.3, 1, interpolation="nearest")),
        ("quantile_mid", lambda x: x.quantile(0.3, 1, interpolation="midpoint")),
        ("cummax", lambda x: x.cummax(1).values.sum(1)),
        ("cummin", lambda x: x.cummin(1)[0].sum(1)),
        ("max_kd", lambda x: x.max(1, keepdim=True).values[:, 0]),
        ("aminmax", lambda x: lib.aminmax(x, dim=1).max),
        ("maxpool", lambda x: lib.nn.functional.max_pool1d(x[None], 2, 1)[0].sum(1)),
        ("adaptive_max", lambda x: lib.nn.functional.adaptive_max_pool1d(x[None], 1)[0, :, 0]),
        ("sort_desc", lambda x: x.sort(1, descending=True).values[:, 0]),
        ("msort", lambda x: lib.msort(x.T)[-1]),
    ]:
        out = f(x)
        if not out.dtype.is_floating_point:
            rec(name, out)
            continue
        (g,) = lib.autograd.grad(out, x, gv)
        rec(name, g)
    rec("median_all", lib.autograd.grad(x.median(), x)[0])
    rec("max_all", lib.autograd.grad(x.max(), x)[0])
    rec("min_all", lib.autograd.grad(x.min(), x)[0])
    rec("quantile_all", lib.autograd.grad(x.quantile(0.75), x)[0])


def _unary_ops(lib):
    F = lib.nn.functional
    return [
        ("exp", lib.exp), ("log", lib.log), ("sqrt", lib.sqrt), ("rsqrt", lib.rsqrt),
        ("sin", lib.sin), ("cos", lib.cos), ("tan", lib.tan), ("tanh", lib.tanh),
        ("sigmoid", lib.sigmoid), ("reciprocal", lib.reciprocal), ("log1p", lib.log1p),
        ("expm1", lib.expm1), ("log2", lib.log2), ("log10", lib.log10), ("exp2", lib.exp2),
        ("asin", lambda x: lib.asin(x / 3)), ("acos", lambda x: lib.acos(x / 3)),
        ("atan", lib.atan), ("sinh", lib.sinh), ("cosh", lib.cosh), ("asinh", lib.asinh),
        ("acosh", lambda x: lib.acosh(x + 1)), ("atanh", lambda x: lib.atanh(x / 3)),
        ("erf", lib.erf), ("erfc", lib.erfc), ("erfinv", lambda x: lib.erfinv(x / 3)),
        ("lgamma", lib.lgamma), ("digamma", lib.digamma), ("sinc", lib.sinc),
        ("logit", lambda x: lib.logit(x / 3)), ("softplus", F.softplus),
        ("softplus_b", lambda x: F.softplus(x, beta=2.0, threshold=1.0)), ("gelu", F.gelu),
        ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh")), ("silu", F.silu),
        ("mish", F.mish), ("elu", F.elu), ("selu", F.selu), ("celu", F.celu),
        ("logsigmoid", F.logsigmoid), ("softsign", F.softsign), ("tanhshrink", F.tanhshrink),
        ("square", lib.square), ("pow_2_5", lambda x: x**2.5), ("pow_neg", lambda x: x**-1.5),
        ("rpow", lambda x: 1.7**x), ("xpowx", lambda x: x**x), ("i0", lib.i0),
        ("xlogy", lambda x: lib.xlogy(x, x + 1)), ("xlog1py", lambda x: lib.special.xlog1py(x, x)),
        ("entr", lib.special.entr),
        ("ndtr", lib.special.ndtr), ("ndtri", lambda x: lib.special.ndtri(x / 3)),
        ("log_ndtr", lib.special.log_ndtr), ("polygamma1", lambda x: lib.polygamma(1, x)),
        ("mvlgamma", lambda x: lib.mvlgamma(x + 1, 2)), ("i0e", lib.special.i0e),
        ("i1", lib.special.i1), ("i1e", lib.special.i1e), ("erfcx", lib.special.erfcx),
        ("hypot", lambda x: lib.hypot(x, 2 * x + 0.5)),
        ("atan2", lambda x: lib.atan2(x, x * x + 1)),
        ("logaddexp", lambda x: lib.logaddexp(x, 1 - x)),
        ("logaddexp2", lambda x: lib.logaddexp2(x, x * x)),
        ("lerp", lambda x: lib.lerp(x, x * x, x / 3)), ("cumprod", lambda x: x.cumprod(0)),
        ("logcumsumexp", lambda x: x.logcumsumexp(0)), ("softmax", lambda x: x.softmax(0)),
        ("log_softmax", lambda x: x.log_softmax(0)), ("norm", lambda x: x.norm().expand(4)),
        ("norm3", lambda x: x.norm(3).expand(4)), ("prod", lambda x: x.prod().expand(4)),
        ("std", lambda x: x.std().expand(4)), ("lse", lambda x: x.logsumexp(0).expand(4)),
        ("normalize", lambda x: F.normalize(x, dim=0)),
        ("layer_norm", lambda x: F.layer_norm(x, (4,))),
        ("trace_outer", lambda x: lib.outer(x, x).trace().expand(4)),
        ("det", lambda x: lib.linalg.det(x.reshape(2, 2) + lib.eye(2, dtype=x.dtype)).expand(4)),
        ("inv", lambda x: lib.linalg.inv(x.reshape(2, 2) + 2 * lib.eye(2, dtype=x.dtype)).ravel()),
        ("cross_entropy", lambda x: F.cross_entropy(x[None], lib.tensor([2])).expand(4)),
        ("bce", lambda x: F.binary_cross_entropy(x / 3, x / 4).expand(4)),
        ("bce_logits", lambda x: F.binary_cross_entropy_with_logits(x, x / 3).expand(4)),
        ("smooth_l1", lambda x: F.smooth_l1_loss(x * x, x, beta=0.5).expand(4)),
        ("huber", lambda x: F.huber_loss(x * x, x, delta=0.5).expand(4)),
        ("kl_div", lambda x: F.kl_div(x.log_softmax(0), x / 6, reduction="sum").expand(4)),
        ("cosine_sim", lambda x: F.cosine_similarity(x, x * x, dim=0).expand(4)),
        ("pdist_sq", lambda x: (x[:, None] - x[None]).pow(2).sum(1)),
    ]  # fmt: skip


def p_ad_third(lib, dt, rec):
    """Students' hessian checks: first, second and third derivatives of many ops at one point
    (inside every domain), through autograd.grad with create_graph."""
    x0 = lib.tensor([0.3, 0.9, 1.4, 2.2], dtype=dt)
    w = lib.tensor([0.5, -1.0, 2.0, 0.25], dtype=dt)
    for name, f in _unary_ops(lib):
        x = x0.clone().requires_grad_(True)
        (g,) = lib.autograd.grad(f(x), x, w, create_graph=True)
        rec(name, g)
        (gg,) = lib.autograd.grad(g, x, w, create_graph=True)
        rec(name + ".2", gg)
        if name == "layer_norm":  # torch's third derivative is wrong: see the docstring
            continue
        # (a quadratic's second derivative is a constant: its third is the grad error)
        ggg = rec.err(name + ".3", lambda gg=gg, x=x: lib.autograd.grad(gg, x, w)[0])
        if ggg is not None:
            rec(name + ".3", ggg)


def p_promotion_0d(lib, dt, rec):
    i = lib.arange(3)
    i32 = i.int()
    u8 = i.to(lib.uint8)
    b = i > 0
    f = lib.ones(3, dtype=dt)
    h = lib.ones(3, dtype=lib.float16)
    s_f64 = lib.tensor(1.5, dtype=lib.float64)
    s_f = lib.tensor(1.5)
    s_i = lib.tensor(-1)
    s_b = lib.tensor(True)
    for name, fn in [
        ("i+s_f", lambda: i + s_f), ("i+s_f64", lambda: i + s_f64), ("u8+s_i", lambda: u8 + s_i),
        ("i32+s_i", lambda: i32 + s_i), ("b+s_i", lambda: b + s_i), ("b+s_b", lambda: b + s_b),
        ("f+s_f64", lambda: f + s_f64),
        ("h+s_f64", lambda: h + s_f64), ("s_i+s_f64", lambda: s_i + s_f64),
        ("s_b*s_b", lambda: s_b * s_b),
        ("s_i/s_i", lambda: s_i / s_i), ("u8*s_f", lambda: u8 * s_f),
        ("h*i", lambda: h * i),
        ("i32*u8", lambda: i32 * u8), ("where_0d", lambda: lib.where(b, s_i, s_f)),
        ("where_f_u8", lambda: lib.where(b, f, u8)), ("cat_mixed", lambda: lib.cat([i, f])),
        ("stack_mixed", lambda: lib.stack([u8, i32])), ("max_mixed", lambda: lib.maximum(u8, h)),
        ("i.add_(s_f)", lambda: i.clone().add_(s_f)),
        ("u8.add_(s_i)", lambda: u8.clone().add_(s_i)),
        ("f.add_(s_f64)", lambda: f.clone().add_(s_f64)),
        ("b.mul_(s_b)", lambda: b.clone().mul_(s_b)),
        ("b.add_(b)", lambda: b.clone().add_(b)), ("i.mul_(f)", lambda: i.clone().mul_(f)),
        ("f.masked_fill(s_i)", lambda: f.masked_fill(b, s_i)),
        ("i.masked_fill(1.5)", lambda: i.masked_fill(b, 1.5)),
        ("i.index_fill", lambda: i.index_fill(0, lib.tensor([0]), 2.7)),
        ("i.fill_", lambda: i.clone().fill_(2.7)), ("i[b]=f", lambda: _setitem(i.clone(), b, 2.7)),
        ("u8[0]=-1", lambda: _setitem(u8.clone(), 0, -1)),
        ("u8[0]=300", lambda: _setitem(u8.clone(), 0, 300)),
        ("b[0]=5", lambda: _setitem(b.clone(), 0, 5)), ("i32.sum", lambda: i32.sum().dtype),
        ("scatter_add_mixed", lambda: f.scatter_add(0, i, i.to(dt))),
        ("scatter_add_bad", lambda: f.scatter_add(0, i, i)),
        ("index_add_bad", lambda: f.index_add(0, i, i)),
        ("lerp_mixed", lambda: lib.lerp(f, i, 0.5)),
        ("addcmul_mixed", lambda: f.addcmul(i, i)),
        ("clamp_mixed", lambda: i.clamp(s_f, 2)),
        ("pow_i_s_f", lambda: i ** s_f), ("pow_s_i_f", lambda: s_i ** f),
        ("floor_divide_mixed", lambda: i // s_f), ("fmod_mixed", lambda: lib.fmod(i, s_f)),
        ("eq_mixed", lambda: i == s_f),
        ("lt_u8_neg", lambda: u8 < -1), ("u8_eq_neg", lambda: u8 == 255),
    ]:  # fmt: skip
        out = rec.err(name, fn)
        if out is not None:
            rec(name + ".v", out if hasattr(out, "shape") else str(out))


def _setitem(t, k, v):
    t[k] = v
    return t


def p_ad_functional2(lib, dt, rec):
    AF = lib.autograd.functional
    a = _randn(lib, dt, 70, 2, 3)
    b = _randn(lib, dt, 71, 3)

    def f(a, b):
        return (a @ b).exp(), a.sum(0) * b

    for kw in [{}, {"vectorize": True}, {"create_graph": True}]:
        tag = ",".join(kw) or "plain"
        J = AF.jacobian(f, (a, b), **kw)
        rec(f"jac.{tag}.len", str([len(row) for row in J]))
        for i, row in enumerate(J):
            for j, blk in enumerate(row):
                rec(f"jac.{tag}.{i}{j}", blk)
                rec(f"jac.{tag}.{i}{j}.shape", str(tuple(blk.shape)))
        rec(f"jac.{tag}.rg", J[0][0].requires_grad)
    rec("jac_single_tuple", str(type(AF.jacobian(lambda a: (a.sum(),), a)).__name__))
    rec("jac_matrix", AF.jacobian(lambda a: a.T @ a, a).shape.__repr__())
    H = AF.hessian(lambda a, b: (a @ b).pow(2).sum(), (a, b), create_graph=True)
    rec("hess.ab", H[0][1])
    rec("hess.rg", H[0][1].requires_grad)
    rec("hess_vec", AF.hessian(lambda a: a.pow(3).sum(), a, vectorize=True))
    v_out, v = AF.vjp(f, (a, b), (lib.ones(2, dtype=dt), lib.ones(3, dtype=dt)))
    rec("vjp.a", v[0])
    rec("vjp.b", v[1])
    _, j = AF.jvp(f, (a, b), (lib.ones_like(a), lib.ones_like(b)))
    rec("jvp.0", j[0])
    rec("jvp.1", j[1])
    # grads of a batch of upstream vectors at once: the rows of a Jacobian
    x = _randn(lib, dt, 72, 3).requires_grad_(True)
    y = x.sin() * x.sum()
    (J,) = lib.autograd.grad(y, x, lib.eye(3, dtype=dt), is_grads_batched=True)
    rec("batched_jac", J)
    rec("batched_jac_ref", AF.jacobian(lambda x: x.sin() * x.sum(), x.detach()))
    # forward-mode dual numbers: a jvp puzzle
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        dual = fwAD.make_dual(x.detach(), lib.ones(3, dtype=dt))
        out = (dual.sin() * dual.sum()).exp()
        p, t = fwAD.unpack_dual(out)
        rec("fwd.primal", p)
        rec("fwd.tangent", t)
    rec(
        "fwd.ref", AF.jvp(lambda x: (x.sin() * x.sum()).exp(), x.detach(), lib.ones(3, dtype=dt))[1]
    )


def p_more_puzzle_ops(lib, dt, rec):
    x = _randn(lib, dt, 73, 6)
    a = lib.tensor([3, 1, 3, 0, 1, 1, 7])
    m = _randn(lib, dt, 74, 3, 4)
    for name, fn in [
        ("vander", lambda: lib.vander(x[:3], 4)),
        ("vander_inc", lambda: lib.vander(x[:3], increasing=True)),
        ("cartesian", lambda: lib.cartesian_prod(a[:2], a[2:5])),
        ("combinations", lambda: lib.combinations(a[:4], 2)),
        ("combinations_r", lambda: lib.combinations(a[:3], 2, with_replacement=True)),
        ("block_diag", lambda: lib.block_diag(m[:2, :2], x[None, :2], a[:1, None].to(dt))),
        ("trapz", lambda: lib.trapezoid(x)), ("trapz_x", lambda: lib.trapezoid(x, dx=0.5)),
        ("cumtrapz", lambda: lib.cumulative_trapezoid(m, dim=1)),
        ("unique", lambda: lib.unique(a)),
        ("unique_inv", lambda: lib.unique(a, return_inverse=True)[1]),
        ("unique_cnt", lambda: lib.unique(a, return_counts=True)[1]),
        ("unique_consec", lambda: lib.unique_consecutive(a, return_counts=True)[1]),
        ("unique_dim", lambda: lib.unique(lib.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)),
        ("kron", lambda: lib.kron(m[:2, :2], lib.eye(2, dtype=dt))),
        ("tensor_split", lambda: lib.tensor_split(x, 4)[3]),
        ("tensor_split_idx", lambda: lib.tensor_split(x, (1, 4))[1]),
        ("split_sizes", lambda: x.split([2, 4])[1]),
        ("histogram", lambda: lib.histogram(x, 3).hist),
        ("histogram_edges", lambda: lib.histogram(x, 3).bin_edges),
        ("meshgrid", lambda: lib.meshgrid(a[:2], a[:3], indexing="ij")[1]),
        ("atleast_2d", lambda: lib.atleast_2d(x).shape),
        ("clone_T", lambda: m.T.clone().stride()),
        ("contig", lambda: m.T.contiguous().is_contiguous()),
        ("nonzero_static", lambda: lib.nonzero_static(a, size=8)),
        ("argsort_stable", lambda: a.argsort(stable=True)),
        ("sort_desc_stable", lambda: a.sort(descending=True, stable=True).indices),
        ("topk_int", lambda: a.topk(3).values),
        ("mode", lambda: a.mode().values), ("isin", lambda: lib.isin(a, lib.tensor([1, 7]))),
        ("cross", lambda: lib.linalg.cross(m[:, :3], m[:, 1:])),
        ("cumsum_rev", lambda: x.flip(0).cumsum(0).flip(0)),
        ("renorm", lambda: m.renorm(2, 0, 1.0)),
        ("addmv", lambda: lib.addmv(x[:3], m, x[:4], beta=0.5, alpha=2)),
        ("baddbmm", lambda: lib.baddbmm(m[None, :, :3], m[None], m[None].mT, alpha=0.5)),
        ("narrow_copy", lambda: m.narrow_copy(1, 1, 2)),
        ("select_scatter", lambda: lib.select_scatter(m, x[:4], 0, 1)),
        ("slice_scatter", lambda: lib.slice_scatter(m, m[:, :2] * 0, 1, 0, 4, 2)),
        ("diagonal_scatter", lambda: lib.diagonal_scatter(m, x[:3], 1)),
        ("index_reduce", lambda: lib.zeros(8, dtype=dt).index_reduce(0, a, a.to(dt) - 3, "amax")),
        ("masked_scatter", lambda: x.masked_scatter(x > 0, -x.abs() * 10)),
        ("put", lambda: x.clone().put_(lib.tensor([0, 0, 5]), x[:3], accumulate=True)),
        ("take_along_neg", lambda: lib.take_along_dim(m, lib.tensor([[-1], [0], [2]]), 1)),
        ("rot90_2", lambda: lib.rot90(m, 2)),
        ("tril_indices_off", lambda: lib.tril_indices(4, 3, -1)),
        ("cumsum_dtype", lambda: a.cumsum(0, dtype=dt)),
        ("logical_ops", lambda: (a > 1) & ~(a == 3) | (a == 0)),
        ("any_dims", lambda: (m > 0).any(dim=(0, 1))), ("sum_dims", lambda: m.sum((-1, 0))),
        ("mean_neg_dims", lambda: m.mean(-2, keepdim=True)),
        ("count_nonzero_dims", lambda: lib.count_nonzero(m > 0, (0, 1))),
        ("std_mean", lambda: lib.std_mean(m, 1)[0]),
        ("var_mean", lambda: lib.var_mean(m, 1, correction=0)[1]),
        ("aminmax", lambda: lib.aminmax(a).min),
        ("bincount_w_int", lambda: lib.bincount(a, weights=a)),
        ("bincount_w_f32", lambda: lib.bincount(a, weights=a.float())),
    ]:  # fmt: skip
        out = rec.err(name, fn)
        if out is not None:
            rec(name + ".v", out if hasattr(out, "shape") else str(out))


def p_grad_modes(lib, dt, rec):
    x = _randn(lib, dt, 75, 4).requires_grad_(True)
    with lib.no_grad():
        y = x * 2
        with lib.enable_grad():
            z = x * 3
    rec("nograd.rg", str([y.requires_grad, z.requires_grad]))
    with lib.set_grad_enabled(False):
        rec("set_false", (x + 1).requires_grad)
    rec("is_enabled", lib.is_grad_enabled())

    @lib.no_grad()
    def step(p):
        p -= 0.1 * p.grad
        return p

    (x**2).sum().backward()
    step(x)
    rec("sgd_step", x)
    rec("sgd_leaf", str([x.is_leaf, x.requires_grad, x.grad_fn]))
    with lib.inference_mode():
        t = x * 2
    rec("inference", str([t.requires_grad, t.is_inference()]))
    rec.err("inference_save", lambda: (t * x).sum().backward())
    rec.err("inference_inplace", lambda: t.add_(1))
    rec.err("inference_rg", lambda: t.requires_grad_())
    # a saved tensor read after backward freed it
    w = x.exp()
    w.sum().backward()
    rec.err("saved_after_free", lambda: w.grad_fn._saved_result)
    rec.err("second_backward", lambda: w.sum().backward())
    v = x.sin()
    rec("saved_self_is_x", v.grad_fn._saved_self is x)
    # .data and .detach() edits do not reach the graph's version check / do
    u = x.clone()
    s = u.exp()
    u.data.mul_(2)
    s.sum().backward()
    rec("data_edit_grad", x.grad)
    x.grad = None
    u = x.clone()
    s = u.exp()
    u.detach().mul_(2)
    rec.err("detach_edit", lambda: s.sum().backward())
    rec.err("detach_on_view", lambda: x[:2].detach_())
    view = (x * 1)[:2]
    rec.err("view_detach_", lambda: view.detach_())
    rec.err("nonleaf_rg_false", lambda: (x * 1).requires_grad_(False))
    rec("nonleaf_rg_true", (x * 1).requires_grad_(True).requires_grad)
    rec.err("grad_in_nograd", lambda: _backward_in_no_grad(lib, x))


def _backward_in_no_grad(lib, x):
    with lib.no_grad():
        y = (x * 2).sum()
    y.backward()


def p_checking_answers(lib, dt, rec):
    """How a teacher's grader compares a student's answer with the reference: assert_close,
    allclose, equal, and their messages."""
    ac = lib.testing.assert_close
    ref = lib.arange(5, dtype=dt) / 3
    a = ref.clone()
    a[1] += 1e-3
    a[3] -= 0.5
    rec.err("close_ok", lambda: ac(ref + 1e-9, ref))
    rec.err("close_bad", lambda: ac(a, ref))
    rec.err("close_rtol", lambda: ac(a, ref, rtol=0, atol=0.6))
    rec.err("close_dtype", lambda: ac(lib.arange(5), ref))
    rec.err("close_dtype_off", lambda: ac(lib.arange(5), lib.arange(5.0), check_dtype=False))
    rec.err("close_shape", lambda: ac(ref[:4], ref))
    rec.err("close_int", lambda: ac(lib.tensor([1, 2, 3]), lib.tensor([1, 2, 4])))
    rec.err("close_bool", lambda: ac(lib.tensor([True, False]), lib.tensor([True, True])))
    rec.err("close_nan", lambda: ac(lib.tensor([float("nan")]), lib.tensor([float("nan")])))
    rec.err(
        "close_nan_eq",
        lambda: ac(lib.tensor([float("nan")]), lib.tensor([float("nan")]), equal_nan=True),
    )
    rec.err("close_scalar", lambda: ac(lib.tensor(1.0), 1.0))
    rec.err("close_number", lambda: ac(1.0, 1.1))
    rec.err("close_list", lambda: ac([lib.tensor(1.0)], [lib.tensor(1.5)]))
    rec.err("close_2d", lambda: ac(lib.eye(3, dtype=dt), lib.ones(3, 3, dtype=dt)))
    rec.err("close_msg", lambda: ac(a, ref, msg="wrong answer"))
    rec.err("close_rg", lambda: ac(ref.clone().requires_grad_(), ref))
    rec.err("close_only_rtol", lambda: ac(a, ref, rtol=1e-3))
    rec("allclose", lib.allclose(a, ref))
    rec("allclose_atol", lib.allclose(a, ref, atol=0.6))
    rec.err("allclose_int_float", lambda: lib.allclose(lib.arange(3), lib.arange(3.0)))
    rec("equal", lib.equal(ref, ref.clone()))
    rec("equal_dtype", lib.equal(lib.arange(3), lib.arange(3.0)))
    rec("equal_shape", lib.equal(ref, ref[None]))
    rec("isclose", lib.isclose(a, ref, rtol=0, atol=1e-2))
    rec.err("eq_shape", lambda: ref == ref[:2])
    rec.err("assert_equal_legacy", lambda: lib.testing.assert_allclose(a, ref))


def p_warnings(lib, dt, rec):
    # (torch's once-per-process warnings are left out: x.T of 3 dims, backward with
    # create_graph, torch.lu, a list of tensors that require grad given to tensor())
    x = _randn(lib, dt, 76, 3).requires_grad_(True)
    rec.warns("copy_construct", lambda: lib.tensor(x))
    rec.warns("range", lambda: lib.range(0, 3))
    rec.warns("nonleaf_grad", lambda: (x * 2).grad)
    rec.warns("retained", lambda: _retained_grad(x))
    rec.warns("mse_broadcast", lambda: lib.nn.functional.mse_loss(x, x[:1, None]))
    rec.warns("l1_broadcast", lambda: lib.nn.functional.l1_loss(x[None], x[:, None]))
    rec.warns("softmax_nodim", lambda: lib.nn.functional.softmax(x))
    rec.warns("log_softmax_nodim", lambda: lib.nn.functional.log_softmax(x))
    rec.warns("floor_divide", lambda: lib.floor_divide(lib.arange(5), 2))
    rec.warns("numpy_bool", lambda: lib.tensor([1, 2])[lib.tensor([True, False]).numpy()])
    rec.warns("chained_bool_idx", lambda: lib.arange(3)[[True, False, True]])
    rec.warns("as_tensor_rg", lambda: lib.as_tensor(x))
    rec.warns("new_tensor", lambda: x.new_tensor(x))
    rec.warns("torch_norm", lambda: lib.norm(x, p="fro"))
    rec.warns("zero_grad_none", lambda: lib.optim.SGD([x], 0.1).zero_grad())


def _retained_grad(x):
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    x.grad = None
    return y.grad


def p_ad_scatter(lib, dt, rec):
    """Gradients of the scatter family students re-implement with eye()[link] (ties and
    duplicates included)."""
    link = lib.tensor([0, 2, 0, 1, 2, 2])
    src0 = lib.tensor([1.0, 3.0, 1.0, -2.0, 3.0, 0.5], dtype=dt)
    base0 = lib.tensor([1.0, 0.0, 3.0], dtype=dt)
    g = lib.tensor([1.0, -2.0, 0.5], dtype=dt)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            src = src0.clone().requires_grad_(True)
            base = base0.clone().requires_grad_(True)
            out = base.scatter_reduce(0, link, src, reduce, include_self=include_self)
            tag = f"{reduce}.{int(include_self)}"
            rec(tag, out)
            gs, gb = lib.autograd.grad(out, (src, base), g)
            rec(tag + ".src", gs)
            rec(tag + ".base", gb)
    src = src0.clone().requires_grad_(True)
    base = base0.clone().requires_grad_(True)
    for name, f in [
        ("scatter", lambda: base.scatter(0, lib.tensor([2, 0]), src[:2])),
        ("scatter_value", lambda: base.scatter(0, lib.tensor([2]), 5.0)),
        ("index_put", lambda: base.index_put((lib.tensor([2, 0]),), src[:2])),
        ("index_copy", lambda: base.index_copy(0, lib.tensor([2, 0]), src[:2])),
        ("index_fill", lambda: base.index_fill(0, lib.tensor([1]), -1.0)),
        ("masked_scatter", lambda: base.masked_scatter(base > 0.5, src)),
        ("put", lambda: base.put(lib.tensor([1, 1]), src[:2], accumulate=True)),
        ("index_reduce", lambda: base.index_reduce(0, link, src, "amax")),
        ("index_reduce_mean", lambda: base.index_reduce(0, link, src, "mean", include_self=False)),
        ("gather_dup", lambda: src.gather(0, lib.tensor([1, 1, 4]))),
        ("eye_link", lambda: (lib.eye(3, dtype=dt)[link] * src[:, None]).sum(0)),
    ]:
        out = f()
        gs, gb = lib.autograd.grad(out, (src, base), g, allow_unused=True)
        rec(name, out)
        rec(name + ".src", "None" if gs is None else gs)
        rec(name + ".base", "None" if gb is None else gb)
    # the double backward of gather / scatter_add (a hand-written Hessian-vector product)
    x = src0.clone().requires_grad_(True)
    y = x.gather(0, lib.tensor([1, 1, 4])).pow(2).sum()
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    rec("gather.gg", lib.autograd.grad((gx * src0).sum(), x)[0])
    y = base0.scatter_add(0, link, x.pow(3)).pow(2).sum()
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    rec("scatter_add.gg", lib.autograd.grad(gx.sum(), x)[0])


def p_gradcheck(lib, rec):
    """Students' Functions through gradcheck and gradgradcheck: the verdicts and messages
    (float64 only; a float32 check's message prints rounding noise, fast mode's analytical
    number a summation order, and check_forward_ad imports torch's jit with warnings)."""
    gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck
    x = lib.tensor([0.3, -0.7, 1.2], dtype=lib.float64, requires_grad=True)
    x32 = x.detach().float().requires_grad_()

    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x

    class BadGG(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2

    for name, fn in [
        ("ok", lambda: gc(lib.sin, (x,))),
        ("fast", lambda: gc(lib.sin, (x,), fast_mode=True)),
        ("bad", lambda: gc(Bad.apply, (x,))),
        ("bad_eps", lambda: gc(Bad.apply, (x,), eps=1e-3, atol=1e-2)),
        ("badgg", lambda: ggc(BadGG.apply, (x,))),
        ("badgg_gc", lambda: gc(BadGG.apply, (x,))),
        ("f32_warn", lambda: gc(lib.sin, (x32,), raise_exception=False)),
        ("no_rg", lambda: gc(lib.sin, (x.detach(),))),
        ("int_in", lambda: gc(lambda a, i: a * i, (x, lib.arange(3)))),
        ("nontensor_out", lambda: gc(lambda a: 3.0, (x,))),
        ("tuple_out", lambda: gc(lambda a: (a.sin(), a.cos()), (x,))),
        (
            "abs_kink",
            lambda: gc(lib.abs, (lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True),)),
        ),
        (
            "relu_kink",
            lambda: gc(lib.relu, (lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True),)),
        ),
        (
            "max_ties",
            lambda: gc(
                lambda a: a.max(), (lib.tensor([1.0, 1.0], dtype=lib.float64, requires_grad=True),)
            ),
        ),
        ("batched", lambda: gc(lib.sin, (x,), check_batched_grad=True)),
        ("undefined", lambda: gc(lib.sin, (x,), check_undefined_grad=False)),
        ("ggc_ok", lambda: ggc(lambda a: a.exp() * a, (x,))),
        (
            "ggc_gg",
            lambda: ggc(
                lambda a: a.exp() * a, (x,), grad_outputs=(lib.ones(3, dtype=lib.float64),)
            ),
        ),
        ("inplace_view", lambda: gc(lambda a: a.expand(2, 3).clone().add_(1), (x,))),
        ("nondet", lambda: gc(lib.sin, (x,), nondet_tol=1e-3)),
        ("both_none", lambda: gc(lambda a: a.sin(), (x,), check_backward_ad=False)),
    ]:
        with lib.random.fork_rng():
            lib.manual_seed(0)  # gradgradcheck draws its random grad_outputs
            out = rec.err(name, fn)
        rec(name + ".v", str(out))


def test_gradcheck_matches_torch():
    import minitorch

    want = run_program(p_gradcheck, torch, rec=Rec(err_warnings=True))
    got = run_program(p_gradcheck, minitorch, rec=Rec(err_warnings=True))
    assert_records_match(want, got, 0.0, rename=True)
