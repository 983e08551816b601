"""Wishart distribution over positive definite matrices."""

from __future__ import annotations

import math
import numbers
import warnings

import minitorch
from minitorch._backend import cpu
from minitorch._tensor import Size
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.gamma import Chi2
from minitorch.distributions.multivariate_normal import _precision_to_scale_tril
from minitorch.distributions.utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)
_NO_SHAPE = Size()


def _mvdigamma(x, p: int):
    """The derivative of mvlgamma(x, p): sum of digamma(x - i / 2) for i < p."""
    half = minitorch.arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - half).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution W(df, Sigma) of S = sum_i x_i x_i^T over df draws of N(0, Sigma),
    Sigma given by exactly one of covariance_matrix, precision_matrix or scale_tril.

    rsample uses Bartlett's decomposition S = (L A)(L A)^T, A lower triangular with
    sqrt(Chi2(df - i)) on its diagonal and N(0, 1) below it.

    Mirrors torch.distributions.Wishart.

    As torch's, rsample warns "Singular sample detected." and draws again whenever a sample is
    positive definite (NOTE [ Wishart's first redraw ]).

    Differences from torch: the df > dim - 1 check of the constructor and the redraw of
    singular samples in rsample read values back to the host, so they run on the CPU only."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name, param = next(
            (n, m)
            for n, m in (
                ("scale_tril", scale_tril),
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
            )
            if m is not None
        )
        if param.dim() < 2:
            # torch names scale_tril whichever matrix was given
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = minitorch.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = Size(minitorch.broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = Size(param.shape[-2:])
        p = event_shape[-1]
        if self.df._device is cpu and (self.df._data <= p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if self.df._device is cpu and (self.df._data < p).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        self._batch_dims = list(range(-len(batch_shape), 0))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = minitorch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        # Chi2(df - i) for the i-th diagonal entry of Bartlett's factor
        steps = minitorch.arange(p, dtype=self.df.dtype, device=self.df.device)
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - steps.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        full = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(full)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = list(range(-len(batch_shape), 0))
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(full))
        new._dist_chi2 = self._dist_chi2.expand(batch_shape + self.event_shape[-1:])
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, m):
        return m.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        eye = minitorch.eye(self.event_shape[-1], dtype=self.df.dtype, device=self.df.device)
        return self._full(minitorch.cholesky_solve(eye, self._unbroadcasted_scale_tril))

    def _df_matrix(self):
        return self.df.view(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.event_shape[-1] - 1
        factor = minitorch.where(factor <= 0, minitorch.full_like(factor, float("nan")), factor)
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        d = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=_NO_SHAPE):
        p = self.event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = chi.clamp(min=minitorch.finfo(chi.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = minitorch.tril_indices(p, p, offset=-1, device=noise.device)
        below = minitorch.randn(
            tuple(noise.shape[:-2]) + (p * (p - 1) // 2,), dtype=noise.dtype, device=noise.device
        )
        noise = noise.clone()
        noise[..., i, j] = below
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape=_NO_SHAPE, max_try_correction=None):
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        if sample._device is not cpu:
            return sample
        # NOTE [ Wishart's first redraw ]: torch's first test marks the samples that pass the
        # support check (not those that fail it), so with any positive definite sample it warns
        # and redraws those; later rounds redraw the redrawn ones that fail. Kept for its numbers.
        redo = self.support.check(sample)
        if self._batch_shape:
            redo = redo.amax(self._batch_dims)
        if not redo._data.any():
            return sample
        warnings.warn("Singular sample detected.", stacklevel=2)
        for _ in range(max_try_correction):
            redraw = self._bartlett_sampling(Size((int(redo._data.sum()),)))
            sample[redo] = redraw
            still = ~self.support.check(redraw)
            if self._batch_shape:
                still = still.amax(self._batch_dims)
            redo[redo.clone()] = still
            if not redo._data.any():
                break
        return sample  # torch warns once only, however many tries fail

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self.event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = minitorch.cholesky_solve(value, self._unbroadcasted_scale_tril)
        return (
            -nu * (p * _LOG_2 / 2 + log_det_L)
            - minitorch.mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * minitorch.linalg.slogdet(value).logabsdet
            - trace.diagonal(dim1=-2, dim2=-1).sum(-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self.event_shape[-1]
        log_det_L = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + log_det_L)
            + minitorch.mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    # natural parameters (-precision / 2, (df - p - 1) / 2); see ExponentialFamily
    @property
    def _natural_params(self):
        nu = self.df
        p = self.event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self.event_shape[-1]
        a = y + (p + 1) / 2
        logdet = minitorch.linalg.slogdet(-2 * x).logabsdet
        return a * (-logdet + p * _LOG_2) + minitorch.mvlgamma(a, p)
