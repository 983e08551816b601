"""nn.functional distances and normalisation: pairwise_distance, cosine_similarity, pdist,
normalize (composed from linalg.vector_norm)."""

from __future__ import annotations

import functools
import math

from minitorch import _dtype, _ops
from minitorch._arg_errors import too_many_positional, unexpected_keyword
from minitorch._ops import _with_numpy_aliases
from minitorch._ops._common import not_tensor
from minitorch._ops._parser_errors import missing_arguments
from minitorch._ops.distance import (
    LinfDistance,
    PairwiseDistance1,
    PairwiseDistance2,
    zero_diffs_selected,
)
from minitorch._ops.inplace import check_out
from minitorch._ops.reduction_more import vector_norm
from minitorch._tensor import Tensor, _make
from minitorch.autograd.composite import as_node, saved_value, show_saved
from minitorch.autograd.function import Function, named, scalar_node
from minitorch.nn import _argcheck as _arg

__all__ = ["pairwise_distance", "cosine_similarity", "pdist", "normalize"]


@named("NormBackward1")
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim. Mirrors torch.nn.functional.pairwise_distance."""
    if x1.__class__ is not Tensor or x2.__class__ is not Tensor:  # a number would broadcast
        _arg.tensor(x1, "pairwise_distance", "x1", 1)
        _arg.tensor(x2, "pairwise_distance", "x2", 2)
    if eps.__class__ is not float:  # (a one-element tensor eps would broadcast)
        _arg.floating(p, "pairwise_distance", "p", 3)
        _arg.floating(eps, "pairwise_distance", "eps", 4)
    try:
        diff = scalar_node(x1 - x2 + eps)
        if diff.ndim == 0:
            return _ops.abs(diff)
        return vector_norm(diff, p, dim=-1, keepdim=keepdim)
    except TypeError:  # torch's parser's words for p, eps or keepdim (no cost on success)
        _arg.floating(p, "pairwise_distance", "p", 3)
        _arg.floating(eps, "pairwise_distance", "eps", 4)
        _arg.boolean(keepdim, "pairwise_distance", "keepdim", 5)
        raise


# torch's parser takes NumPy's keepdims= (and axis= below) here too: see NOTE [ NumPy argument
# aliases ]
pairwise_distance = _with_numpy_aliases(pairwise_distance)


def _norm_at_least(x: Tensor, dim: int, eps: float) -> Tensor:
    """||x||_2 along dim (kept), clamped at eps without affecting the gradient: torch clamps its
    norm in place under no_grad."""
    return ClampedNorm.apply(vector_norm(x, 2, dim=dim, keepdim=True), eps=eps)


class ClampedNorm(Function):
    """out = n lifted up to eps where it is smaller;  grad_n = grad. torch clamps a clone of the
    norm in place under no_grad: its graph shows the clone, CloneBackward0, with its one edge to
    the norm's node."""

    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, n, *, eps):
        # the lift up to eps, zero elsewhere: clamp(n) - n would be inf - inf = NaN for a norm
        # that overflows (float32 values ~1e20), where torch's clamped norm stays inf and x / inf
        # gives 0 (Tensor ops on the detached norm: their dtype rules, half's rounding)
        nd = n.detach()
        return (nd + _ops.where(nd < eps, eps - nd, 0.0))._data

    @staticmethod
    def backward(ctx, grad):
        return grad


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim. Mirrors
    torch.nn.functional.cosine_similarity."""
    try:
        dt = _dtype.promote_types(x1.dtype, x2.dtype)
    except AttributeError:  # a list where a tensor belongs: zero-cost when tensors
        raise _not_tensors(x1, x2) from None
    if not dt.is_floating_point:
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{_dtype.scalar_name(dt)}"
        )
    if not eps >= 0:  # (NaN too) before the shapes, as torch
        raise RuntimeError(f"eps must be non-negative, got: {eps:g}")
    if x1.dtype is not x2.dtype:
        # torch converts only an integer (or bool) operand to the common dtype: a float one is
        # normalised in its own dtype (float16 rounds x2 / ||x2|| to half) and the product
        # promotes, which gives other digits than normalising both in the common dtype
        x1, x2 = (x if x.dtype.is_floating_point else x.to(dt) for x in (x1, x2))
    if x1.shape != x2.shape:
        # torch expands both to the common shape (a view even of the one already of that shape,
        # so a saved input changed in place is named AsStrided in the version error, as torch's)
        shape = _ops.broadcast_tensors(x1, x2)[0].shape
        x1, x2 = x1.expand(shape), x2.expand(shape)
    return ((x1 / _norm_at_least(x1, dim, eps)) * (x2 / _norm_at_least(x2, dim, eps))).sum(dim)


_cosine_similarity = cosine_similarity


@functools.wraps(_cosine_similarity)
def cosine_similarity(*args, **kwargs):
    # torch's parser names a wrong-typed dim or eps with its position only when it was passed by
    # position: this wrapper (which also takes NumPy's axis=, NOTE [ NumPy argument aliases ])
    # sees which
    if kwargs or len(args) != 2:  # (the defaults need no check)
        _check_cosine_args(args, kwargs)
    return _cosine_similarity(*args, **kwargs)


def _check_cosine_args(args, kwargs) -> None:
    """NumPy's axis= read as dim (in place), then torch's TypeErrors for a dim that is no int
    and an eps that is no float, with the position of one passed by position; before them,
    too many or too few arguments in its parser's words."""
    if len(args) > 4:
        raise too_many_positional("cosine_similarity", len(args), 4, 2)
    if len(args) < 2:
        params = (("x1", False), ("x2", False))
        missing = missing_arguments("cosine_similarity", params, args, kwargs)
        if missing is not None:
            raise missing
    if "axis" in kwargs:
        names = ("x1", "x2", "dim", "eps")
        if "dim" in kwargs or len(args) > 2 or any(k not in (*names, "axis") for k in kwargs):
            # torch's parser takes the alias only where the call fits; else it is unknown, and
            # the first unknown keyword of the call is named
            raise unexpected_keyword("cosine_similarity", next(k for k in kwargs if k not in names))
        kwargs["dim"] = kwargs.pop("axis")
    for pos, name, default in ((3, "dim", 1), (4, "eps", 1e-8)):
        if len(args) >= pos:
            value, at = args[pos - 1], pos
        else:
            value, at = kwargs.get(name, default), None
        if name == "dim":
            if value.__class__ is not int:
                _arg.integer(value, "cosine_similarity", name, at)
        elif value.__class__ is not float:
            _arg.floating(value, "cosine_similarity", name, at)


def _not_tensors(x1, x2) -> TypeError:
    """torch's TypeError for cosine_similarity's first non-tensor argument."""
    if isinstance(x1, Tensor):
        return not_tensor("cosine_similarity", x2, "x2", 2)
    return not_tensor("cosine_similarity", x1, "x1", 1)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between the rows of an (N, M) input, i < j in row-major order.
    Mirrors torch.nn.functional.pdist."""
    out = _pdist(input, p)
    if not out._requires_grad:
        return out
    # torch's one node, which saves the input and the result (refused once changed in place)
    attrs = {"kept_device": out._device, "p": float(p)}
    return as_node(out, "PdistBackward0", (input,), saved=(input, out), attrs=attrs)


show_saved("PdistBackward0", {"self": saved_value(0), "result": saved_value(1), "p": "p"})


def _pdist(input: Tensor, p) -> Tensor:
    """pdist's distances, recorded as the ops that compute them."""
    if not isinstance(input, Tensor) or (p.__class__ is not float and p.__class__ is not int):
        _arg.tensor(input, "pdist")
        _arg.floating(p, "pdist", "p", 2)
        if not isinstance(p, Tensor):
            p = float(p)  # a bool or a NumPy number
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:  # (a NaN p too)
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if input.dtype.itemsize == 2 and n > 1 and input.shape[1] and input.device.type == "cpu":
        # torch's CPU kernel has no half-precision version (it is not reached without a pair
        # of non-empty rows)
        name = _dtype.scalar_name(input.dtype)
        raise NotImplementedError(f"\"pdist\" not implemented for '{name}'")
    if p == 2 and n > 1:
        return PairwiseDistance2.apply(input)
    if p == 1 and n > 1 and input.shape[1]:
        return PairwiseDistance1.apply(input)
    dev = input.device
    xp = dev.backend.xp
    i, j = (_make(k.astype(xp.int64), dev, False, None) for k in xp.triu_indices(n, 1))
    diff = input[i] - input[j]
    if p == 0:
        # The count of differing coordinates. torch's pdist gives its input a zero gradient here
        # (vector_norm's count has none at all) and NaN for a NaN difference (the count says 1):
        # so count through sign, whose gradient is zero, and take the NaNs from a detached copy.
        d = diff.detach()
        return _ops.where(_ops.isnan(d), d, diff.sign().abs()).sum(1)
    if p == math.inf:
        return LinfDistance.apply(diff)
    if p < 1:
        diff = zero_diffs_selected(diff)
    return vector_norm(diff, p, dim=1)


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """input / max(||input||_p along dim, eps). Mirrors torch.nn.functional.normalize."""
    if not isinstance(input, Tensor):  # torch's F.normalize calls input.norm(...) first
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'norm'")
    if p is None or isinstance(p, str):  # torch's input.norm(p, dim): None, 'fro' work, 'nuc' not
        norm = _ops.norm(input, p, dim, keepdim=True)
    else:
        norm = vector_norm(input, p, dim=dim, keepdim=True)
    try:
        denom = _ops.clamp_min(norm, eps)
    except TypeError:  # torch calls the method, norm.clamp_min(eps): its overloads
        from minitorch._ops._parser_errors import invalid_arguments

        raise invalid_arguments("clamp_min", ("Tensor min", "Number min"), (eps,), {}) from None
    if out is not None:  # torch divides into out: div's out= rules (cast, resize, no autograd)
        check_out(out, "div", input)
        return _ops.div(input, denom.expand_as(input), out=out)
    return input / denom.expand_as(input)
