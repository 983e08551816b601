"""MultivariateNormal: loc with a covariance, precision or lower-Cholesky scale matrix."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(mat, vec):
    """mat @ vec over broadcast batch dims."""
    return (mat @ vec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(L, x):
    """x^T (L L^T)^-1 x over broadcast batch dims, with L lower triangular."""
    if tuple(L.shape[-2:]) != (x.shape[-1],) * 2:
        _replay_mahalanobis_reshapes(L, x)
    batch = tuple(minitorch.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1])))
    n = L.shape[-1]
    # the batch dims beyond L's (samples, usually) become columns of one right-hand side per
    # matrix of L: one solve of (n, samples) per matrix, not one per sample of an expanded L
    # (100000 samples of 5: 80 ms, torch 4 ms)
    inner = batch[len(batch) - (L.ndim - 2) :] if L.ndim > 2 else ()
    outer = batch[: len(batch) - len(inner)]
    m = math.prod(outer)
    L = L.expand(inner + (n, n))
    x = x.expand(batch + (n,)).reshape((m,) + inner + (n,)).movedim(0, -1)
    z = minitorch.linalg.solve_triangular(L, x, upper=False)
    return z.pow(2).sum(-2).movedim(-1, 0).reshape(outer + inner)


def _replay_mahalanobis_reshapes(L, x):
    """torch's _batch_mahalanobis reshapes x by L's batch sizes and L by x's last size: a loc of
    another size than the matrix fails in one of those reshapes, replayed here for its message
    (an error path)."""
    n = x.shape[-1]
    outer = x.ndim - 1 - (L.ndim - 2)
    shape = tuple(x.shape[:outer])
    for s_l, s_x in zip(L.shape[:-2], x.shape[outer:-1], strict=False):
        shape += (s_x // s_l, s_l)
    x = x.reshape(shape + (n,))
    k = len(shape)
    pairs = list(range(outer, k, 2)) + list(range(outer + 1, k, 2))
    x = x.permute(list(range(outer)) + pairs + [k])
    x.reshape(-1, L.reshape(-1, n, n).shape[0], n)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1."""
    return minitorch.linalg.cholesky(minitorch.linalg.inv(P))


def _need_matrix(name: str, m) -> None:
    """name: how torch's message calls the argument ("scale_tril matrix", "covariance_matrix")."""
    if m.dim() < 2:
        raise ValueError(
            f"{name} must be at least two-dimensional, with optional leading batch dimensions"
        )


class MultivariateNormal(Distribution):
    """The multivariate normal distribution N(loc, Sigma) given by exactly one of
    covariance_matrix, precision_matrix or scale_tril.

    Mirrors torch.distributions.MultivariateNormal.

    Differences from torch: a precision matrix is turned into scale_tril through its inverse
    rather than through torch's flipped-Cholesky route (same values up to rounding)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        if scale_tril is not None:
            _need_matrix("scale_tril matrix", scale_tril)
            matrix = scale_tril
        elif covariance_matrix is not None:
            _need_matrix("covariance_matrix", covariance_matrix)
            matrix = covariance_matrix
        else:
            _need_matrix("precision_matrix", precision_matrix)
            matrix = precision_matrix
        n = matrix.shape[-1]
        if matrix.shape[-2] != n and scale_tril is None:
            self._init_not_square(loc, matrix, covariance_matrix is not None, validate_args)
        batch_shape = minitorch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        # as torch, the matrix keeps its own last sizes and the event is loc's: a loc of another
        # size builds, and the methods that combine the two fail as torch's do
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(full)
        else:
            self.precision_matrix = precision_matrix.expand(full)
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, Size(loc.shape[-1:]), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = minitorch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def _init_not_square(self, loc, matrix, is_covariance, validate_args):
        """A covariance or precision matrix that is not square fails as torch's does: its
        positive-definite check (when arguments are validated), else linalg.cholesky's error."""
        batch_shape = minitorch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        name = "covariance_matrix" if is_covariance else "precision_matrix"
        setattr(self, name, matrix.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, Size(loc.shape[-1:]), validate_args=validate_args)
        minitorch.linalg.cholesky(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        # as torch: a singular scale_tril raises cholesky_inverse's error (no inf/nan matrix)
        return self._full(minitorch.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        var = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return var.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = minitorch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # torch's solve_triangular computes in the matrix's dtype, so a value of another float
        # dtype gives a log_prob in the parameters' dtype (float32 params, float64 value: float32)
        diff = (value - self.loc).to(self._unbroadcasted_scale_tril.dtype)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H.expand(self._batch_shape) if len(self._batch_shape) else H
