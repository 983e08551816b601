"""LowRankMultivariateNormal: a normal whose covariance is cov_factor @ cov_factor.T + diag."""

from __future__ import annotations

import math

import minitorch
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.multivariate_normal import _batch_mahalanobis, _batch_mv
from minitorch.distributions.utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _eye_like(m: int, like):
    return minitorch.eye(m, dtype=like.dtype, device=like.device)


def _batch_capacitance_tril(W, D):
    """The Cholesky factor of the capacitance matrix C = I + W^T D^-1 W."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    return minitorch.linalg.cholesky(Wt_Dinv @ W + _eye_like(W.shape[-1], W))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log|W W^T + D| = log|C| + log|D| (matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x through Woodbury: (W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """N(loc, cov_factor @ cov_factor.T + diag(cov_diag)); log_prob and entropy only factor the
    small rank x rank capacitance matrix.

    Mirrors torch.distributions.LowRankMultivariateNormal."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = Size(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = minitorch.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + Size(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, m):
        return m.expand(self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W.pow(2).sum(-1) + D).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2, Cholesky of the bracket scaled
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + _eye_like(n, Dinvsqrt_W)
        return self._full(d_sqrt * minitorch.linalg.cholesky(K))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        return self._full(W @ W.mT + minitorch.diag_embed(self._unbroadcasted_cov_diag))

    @lazy_property
    def precision_matrix(self):
        D = self._unbroadcasted_cov_diag
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / D.unsqueeze(-2)
        A = minitorch.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        return self._full(minitorch.diag_embed(D.reciprocal()) - A.mT @ A)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = minitorch.randn(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = minitorch.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (
            self.loc
            + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
            + self._unbroadcasted_cov_diag.sqrt() * eps_D
        )

    def _log_det(self):
        return _batch_lowrank_logdet(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor,
            self._unbroadcasted_cov_diag,
            value - self.loc,
            self._capacitance_tril,
        )
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return H.expand(self._batch_shape) if len(self._batch_shape) else H
