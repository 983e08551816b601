"""Von Mises distribution: the circular normal on [-pi, pi)."""

from __future__ import annotations

import math

import minitorch
from minitorch._backend import cpu
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz & Stegun
# 9.8.1-9.8.4), lowest order first: for x < 3.75 in (x / 3.75)**2 (I1's times x), for x >= 3.75
# of sqrt(x) exp(-x) I(x) in 3.75 / x. torch evaluates log I the same way, so its log_prob and
# variance carry the same ~1e-7 relative approximation error, which is matched here.
_I_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3),
)
_I_LARGE = (
    (
        0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
        -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2,
    ),
    (
        0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
        0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2,
    ),
)  # fmt: skip


def _horner(y, coef):
    out = coef[-2] + y * coef[-1]
    for c in reversed(coef[:-2]):
        out = c + y * out
    return out


def _log_bessel_i(x, order: int):
    """log I_order(x) for x > 0 (order 0 or 1), by the polynomial approximations above."""
    is_small = x < 3.75
    # each branch sees only the arguments it is chosen for (others replaced by 3.75), so the
    # unused one neither overflows nor takes the log of a negative polynomial
    split = minitorch.full_like(x, 3.75)
    xs = minitorch.where(is_small, x, split)
    xl = minitorch.where(is_small, split, x)
    small = _horner((xs / 3.75).pow(2), _I_SMALL[order])
    if order == 1:
        small = xs.abs() * small
    small = small.log()
    large = xl - 0.5 * xl.log() + _horner(3.75 / xl, _I_LARGE[order]).log()
    return minitorch.where(is_small, small, large)


class VonMises(Distribution):
    """density exp(concentration * cos(x - loc)) / (2 pi I0(concentration)) on the circle.

    Samples use Best and Fisher's (1979) rejection sampler, run in float64 and given back in
    loc's dtype, wrapped into [-pi, pi). On the CPU it takes torch's draws in torch's order (a
    rand((3,) + shape) a round until every element has accepted, each keeping the last proposal
    it accepted), so after manual_seed the samples, and the generator's state after them, are
    torch's. No rsample, entropy or cdf, as torch.

    Mirrors torch.distributions.VonMises.

    Differences from torch: torch's vectorised float64 sqrt, cos and acos (in its x86 CPU
    builds) are not NumPy's to the last bit, so about 0.15% of the samples differ from torch's by
    a few ulps (measured: at most 7e-12; were a rounding to flip an accept test, none did in
    22,000, the draws after it would differ). On a GPU the sampler draws 64 proposals per element
    at once instead of looping until every element is accepted (which needs a device read):
    an element without an accepted one, a chance below 1e-29, would be the mode loc."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = minitorch.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        out = self.concentration * (value - self.loc).cos()
        return out - math.log(2 * math.pi) - _log_bessel_i(self.concentration, 0)

    @property
    def mean(self):
        """The circular mean, loc."""
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        """The circular variance 1 - I1(k) / I0(k)."""
        c = self.concentration
        return 1 - (_log_bessel_i(c, 1) - _log_bessel_i(c, 0)).exp()

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with minitorch.no_grad():
            loc = self.loc.detach().to(minitorch.float64)
            kappa = self.concentration.detach().to(minitorch.float64)
            x = self._best_fisher(kappa, self._proposal_r(kappa), shape)
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @staticmethod
    def _proposal_r(kappa):
        """The wrapped-Cauchy envelope's r; 1 / kappa + kappa (its Taylor form) for tiny kappa."""
        tau = 1 + (1 + 4 * kappa.pow(2)).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return minitorch.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho.pow(2)) / (2 * rho))

    @staticmethod
    def _proposals(kappa, r, shape, device):
        """One wrapped-Cauchy proposal per element of `shape` (kappa and r broadcast to its
        trailing dims) from rand((3,) + shape): the angle and whether it is accepted."""
        u1, u2, u3 = minitorch.rand((3,) + shape, dtype=minitorch.float64, device=device).unbind(0)
        z = (math.pi * u1).cos()
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        # c >= 0 but for rounding: clamped so that its log is finite and rejects (as the nan of
        # a negative one does)
        ratio = (c / u2).clamp(min=minitorch.finfo(minitorch.float64).tiny)
        accept = ((c * (2 - c) - u2) > 0) | (ratio.log() + 1 - c >= 0)
        return (u3 - 0.5).sign() * f.acos(), accept

    @classmethod
    def _best_fisher(cls, kappa, r, shape, device_tries: int = 64):
        """Angles around 0 of the given shape. On the CPU as torch, round by round until all
        are accepted: one proposal per element a round, and an element keeps the last proposal
        it accepted. On a GPU (where the loop's test would read the device) `device_tries`
        proposals per element at once, keeping the first accepted."""
        shape = tuple(shape)
        device = kappa.device
        x = minitorch.zeros(shape, dtype=minitorch.float64, device=device)
        if kappa._device is not cpu:
            angle, accept = cls._proposals(kappa, r, (device_tries,) + shape, device)
            first = accept.to(minitorch.int8).argmax(0, keepdim=True)
            picked = angle.gather(0, first).squeeze(0)
            return minitorch.where(accept.any(0), picked, x)
        done = minitorch.zeros(shape, dtype=minitorch.bool, device=device)
        while not done._data.all():
            angle, accept = cls._proposals(kappa, r, shape, device)
            x = minitorch.where(accept, angle, x)
            done = done | accept
        return x
