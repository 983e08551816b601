"""Gamma distribution."""

from __future__ import annotations

import minitorch
from minitorch._ops._common import quiet
from minitorch._tensor import _make
from minitorch.autograd.function import Function
from minitorch.distributions import constraints
from minitorch.distributions._scalar_family import _Elementwise
from minitorch.distributions.exp_family import ExponentialFamily

__all__ = ["Chi2", "Gamma"]

# NOTE [ Implicit gamma reparameterisation ]
# A Gamma(a, 1) draw x = F^{-1}(u; a) moves with a at fixed u, so dx/da = -(dF/da) / f(x; a)
# (Figurnov et al. 2018). Both factors share x^a e^-x / Gamma(a), which cancels:
#   x < a + 1:  F = x^a e^-x / Gamma(a+1) * S,  S = sum_n prod_{k<=n} x / (a + k)  (series), so
#               dx/da = -(x / a) * (S * (log x - digamma(a + 1)) + dS/da);
#   x >= a + 1: 1 - F = x^a e^-x / Gamma(a) / D with D Legendre's continued fraction
#               D = b0 + a1 / (b1 + a2 / (b2 + ...)), b_n = x + 2n + 1 - a, a_n = -n (n - a), so
#               dx/da = x * (log x - digamma(a) - D'/D) / D  (D' carried through the recurrence);
#   a > 1000:   the Wilson-Hilferty cube-root normal approximation differentiated at fixed z
#               (relative error below 2e-4 even in the 1e-8 tails there).
# With _GAMMA_TERMS terms the series and fraction agree with high-precision derivatives of the
# CDF to ~1e-12 for a <= 1000. Computed in float64 on the sample's backend, without host reads.
_GAMMA_TERMS = 360
_GAMMA_LARGE = 1000.0


def _standard_gamma_grad(xp, digamma, a, x):
    """d x / d a for standard-gamma draws x of concentration a (float64 arrays)."""
    x = xp.maximum(x, 2.2250738585072014e-308)  # float64's smallest normal: log(x) stays finite
    left = x < a + 1
    # the series on the left of a + 1 (other elements get a harmless stand-in)
    xs = xp.where(left, x, a)
    log_xs = xp.log(xs)
    r = xp.ones_like(xs)
    s = xp.ones_like(xs)
    ds = xp.zeros_like(xs)
    c = xp.zeros_like(xs)
    for k in range(1, _GAMMA_TERMS + 1):
        r = r * (xs / (a + k))
        c = c + 1.0 / (a + k)
        s = s + r
        ds = ds - r * c
    series = -(xs / a) * (s * (log_xs - digamma(a + 1.0)) + ds)
    # the continued fraction on the right, evaluated from its tail backwards
    xc = xp.where(left, a + 2.0, x)
    h = xc + (2 * _GAMMA_TERMS + 1) - a
    dh = -xp.ones_like(h)
    for n in range(_GAMMA_TERMS, 0, -1):
        an = -n * (n - a)
        h, dh = xc + (2 * n - 1) - a + an / h, -1.0 + n / h - an * dh / (h * h)
    fraction = xc * (xp.log(xc) - digamma(a) - dh / h) / h
    out = xp.where(left, series, fraction)
    # Wilson-Hilferty for large concentrations
    sq = xp.sqrt(a)
    z = ((x / a) ** (1.0 / 3.0) - 1.0 + 1.0 / (9.0 * a)) * 3.0 * sq
    cube = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * sq)
    dcube = 1.0 / (9.0 * a * a) - z / (6.0 * a * sq)
    wh = cube**3 + 3.0 * a * cube * cube * dcube
    return xp.where(a > _GAMMA_LARGE, wh, out)


class StandardGamma(Function):
    """out ~ Gamma(a, 1);  grad_a = grad * dout/da by implicit reparameterisation.
    See NOTE [ Implicit gamma reparameterisation ]."""

    @staticmethod
    def forward(ctx, a, *, generator=None):
        out = _standard_gamma(a, generator)._data
        ctx.save_for_backward(a)
        ctx.sample = out
        return out

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx._stored_tensors
        xp = ctx.xp
        digamma = a._device.backend.special("digamma")
        a64 = a._data.astype("float64")
        x64 = ctx.sample.astype("float64")
        with quiet(xp, all="ignore"):  # the branches where() discards
            d = _standard_gamma_grad(xp, digamma, a64, x64)
        # (a node of a under create_graph: a second derivative raises, as torch's)
        return grad * _StandardGammaGrad.apply(a, value=d.astype(a._data.dtype, copy=False))


class _StandardGammaGrad(Function):
    """out = d sample / d a, computed by _StandardGamma's backward (torch's
    _standard_gamma_grad(a, sample)); torch implements no derivative of it, so its backward
    raises torch's NotImplementedError rather than treat the factor as a constant."""

    _node_name = "StandardGammaGradBackward0"

    @staticmethod
    def forward(ctx, a, *, value):
        return value

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


def _standard_gamma(concentration, generator=None):
    """Gamma(concentration, 1) draws with no gradient from `generator` (None: the device's
    default), clamped to the dtype's smallest positive value; a concentration that is not
    positive (or NaN) gives that smallest value, as torch's sampler does. On the CPU torch's
    draws (NOTE [ torch's gamma draws ] in minitorch/_backend/torch_stream_gamma.py)."""
    from minitorch import _dtype
    from minitorch.random import _sample, _stream

    a = concentration.detach()
    s = _stream(a._device, generator, "_standard_gamma")
    if s is not None and a.dtype in (_dtype.float32, _dtype.float64):
        from minitorch._backend.torch_stream_gamma import gamma_sample

        return _make(s.wrap(gamma_sample(s, s.unwrap(a._data))), a._device, False, None)
    xp = a._device.backend.xp
    valid = a._data > 0  # NumPy raises on those; torch gives 0, clamped to tiny below
    safe = xp.where(valid, a._data, 1)
    draw = _sample(a._device, generator, "_standard_gamma", lambda rng: rng.standard_gamma(safe))
    # a Python float for a 0-d concentration: asarray keeps it 0-d
    draw = xp.where(valid, xp.asarray(draw, dtype=a._data.dtype), 0).astype(a._data.dtype)
    return _make(draw, a._device, False, None).clamp(min=minitorch.finfo(a.dtype).tiny)


def _rsample_standard_gamma(concentration, generator=None, kernel="gamma_cpu"):
    """Gamma(concentration, 1) draws, differentiable with respect to concentration, clamped to
    the dtype's smallest positive value (torch._standard_gamma). The distributions draw through
    here: a concentration torch's kernel refuses (half on the CPU) raises its error, naming
    `kernel`."""
    from minitorch._ops.random_ops import _gamma_input

    _gamma_input(concentration, "_standard_gamma", kernel)
    if not concentration.requires_grad:
        return _standard_gamma(concentration, generator)
    return StandardGamma.apply(concentration, generator=generator)


class Gamma(_Elementwise, ExponentialFamily):
    """The gamma distribution with shape `concentration` and inverse scale `rate`.

    Mirrors torch.distributions.Gamma. rsample() is differentiable with respect to both
    parameters (see NOTE [ Implicit gamma reparameterisation ]).

    Differences from torch: the gradient of rsample() with respect to the concentration is the
    exact implicit derivative (to ~1e-12); torch's (torch._standard_gamma_grad) is a fitted
    approximation, so per-sample gradients differ from torch's by up to ~5e-4 relative."""

    _params = ("concentration", "rate")
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        super().__init__(concentration, rate, validate_args=validate_args)

    # natural parameters (concentration - 1, -rate); see ExponentialFamily
    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _rsample_standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # as torch: clamped in place through a detached alias, so the graph ends in the division
        value.detach().clamp_(min=minitorch.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        # as torch: the value takes the parameters' dtype (float16 Gamma: float16 log_prob), and
        # a Python number is accepted
        value = minitorch.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return minitorch.xlogy(c, r) + minitorch.xlogy(c - 1, value) - r * value - c.lgamma()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return minitorch.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()


class Chi2(Gamma):
    """The chi-squared distribution with df degrees of freedom: Gamma(df / 2, 1 / 2).

    Mirrors torch.distributions.Chi2."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


Chi2.__module__ = "minitorch.distributions.chi2"  # the module torch's class repr names
