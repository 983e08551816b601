"""Helpers shared by the distributions: broadcast_all, probs/logits conversion, lazy_property."""

from __future__ import annotations

import numbers

import minitorch
from minitorch._tensor import Tensor

__all__ = [
    "broadcast_all",
    "count_and_param",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


# the Euler-Mascheroni constant (Gumbel's mean, several KL closed forms)
euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcast tensors and Python numbers to one shape; numbers take the dtype and device of
    the first tensor (the default dtype when there is none).

    Mirrors torch.distributions.utils.broadcast_all."""
    like = None
    for v in values:
        if isinstance(v, Tensor):
            like = v
            break
        if not isinstance(v, numbers.Number):
            raise ValueError(
                "Input arguments must all be instances of Number, torch.Tensor or objects "
                "implementing __torch_function__."
            )
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError(
                "Input arguments must all be instances of Number, torch.Tensor or objects "
                "implementing __torch_function__."
            )
    if like is None:
        dtype = minitorch.get_default_dtype()
        tensors = [minitorch.tensor(float(v), dtype=dtype) for v in values]
    else:
        tensors = [
            v if isinstance(v, Tensor) else like.new_tensor(v, dtype=like.dtype) for v in values
        ]
    return minitorch.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype, device):
    """Standard normal samples of `shape` (a private torch helper some code imports for its own
    distributions, as DrQ-v2's TruncatedNormal)."""
    return minitorch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim: int):
    """Sum out the `dim` rightmost dimensions of value."""
    if dim == 0:
        return value
    # Python slicing as torch: a negative dim keeps -dim leading dims, a dim past value.dim()
    # sums everything
    return value.reshape(tuple(value.shape)[:-dim] + (-1,)).sum(-1)


def clamp_probs(probs):
    """Clamp probabilities into the open interval (eps, 1 - eps) of their dtype.

    Mirrors torch.distributions.utils.clamp_probs."""
    eps = minitorch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary: bool = False):
    """Probabilities from logits: sigmoid for binary, softmax over the last dim otherwise.

    Mirrors torch.distributions.utils.logits_to_probs."""
    if is_binary:
        return minitorch.sigmoid(logits)
    return logits.softmax(-1)


def probs_to_logits(probs, is_binary: bool = False):
    """Logits from probabilities (clamped away from 0 and 1): log-odds for binary, log otherwise.

    Mirrors torch.distributions.utils.probs_to_logits."""
    ps = clamp_probs(probs)
    if is_binary:
        return ps.log() - (-ps).log1p()
    return ps.log()


class lazy_property:
    """A property computed on first access and then cached on the instance (with grad enabled,
    so a cached value keeps its graph). At class level it returns itself.

    Mirrors torch.distributions.utils.lazy_property."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with minitorch.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


def tril_matrix_to_vec(mat, diag: int = 0):
    """The lower-triangular entries (offset diag) of the last two dims, row by row.

    Mirrors torch.distributions.utils.tril_matrix_to_vec."""
    n = mat.shape[-1]
    rows, cols = minitorch.tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag: int = 0):
    """The inverse of tril_matrix_to_vec. Mirrors torch.distributions.utils.vec_to_tril_matrix."""
    m = vec.shape[-1]
    # torch solves n from the element count in closed form and only rejects an n whose fraction
    # rounds up; one that rounds down fails at the assignment (RuntimeError, shape mismatch)
    b = 1 + 2 * diag
    n = (-b + (b * b + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > minitorch.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as the lower "
            "triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (n, n))
    rows, cols = minitorch.tril_indices(n, n, offset=diag, device=vec.device)
    mat[..., rows, cols] = vec
    return mat


class BinaryProbs:
    """probs and logits of a binary-event family, each computed from the other on first use
    (Bernoulli, Binomial, Geometric, RelaxedBernoulli hold whichever they were given)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def count_and_param(dist, total_count, probs, logits) -> None:
    """Sets dist.total_count and dist.probs or dist.logits (broadcast together, the count in the
    parameter's dtype) and dist._param: the constructor of Binomial and NegativeBinomial."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, param = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, param)
    dist.total_count = count.type_as(param)
    setattr(dist, name, param)
    dist._param = param
