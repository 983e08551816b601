"""Dirichlet distribution."""

from __future__ import annotations

import minitorch
from minitorch._ops._common import quiet
from minitorch._ops.random_ops import _gamma_input
from minitorch._tensor import Size, _make
from minitorch.autograd.function import Function, once_differentiable
from minitorch.distributions import constraints
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily

__all__ = ["Dirichlet"]

# NOTE [ torch's Dirichlet gradient ]
# torch differentiates a Dirichlet draw x through the marginal of each coordinate,
# x_i ~ Beta(a_i, total - a_i): dx_i/da_i = -(d/da_i CDF) / pdf, which it approximates piecewise
# (torch._dirichlet_grad, dirichlet_grad_one in ATen/native/Distributions.h): Taylor series
# near x = 0 and x = 1, a Rice saddle-point expansion when both concentrations exceed 6, and a
# fitted rational correction to an analytic approximation elsewhere. The same formulas are
# evaluated here (in float64, as torch's CPU kernel does) so that rsample's gradients are
# torch's numbers; the function returns the derivative scaled by 1 / (1 - x).
_DIRICHLET_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)  # fmt: skip


def _beta_grad_alpha_small(xp, digamma, x, alpha, beta):
    """Taylor series of the Beta(alpha, beta) gradient in alpha for x near 0."""
    factor = digamma(alpha) - digamma(alpha + beta) - xp.log(x)
    numer = xp.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    out = x * (1 - x) ** (-beta) * series
    return xp.where(xp.isnan(out), 0.0, out)


def _beta_grad_beta_small(xp, digamma, x, alpha, beta):
    """Taylor series of the Beta(alpha, beta) gradient in beta for x near 0."""
    factor = digamma(alpha + beta) - digamma(beta)
    numer = xp.ones_like(x)
    betas = xp.ones_like(x)
    dbetas = xp.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    out = -((1 - x) ** (1 - beta)) * series
    return xp.where(xp.isnan(out), 0.0, out)


def _beta_grad_alpha_mid(xp, x, alpha, beta):
    """Rice saddle-point expansion of the Beta gradient in alpha when alpha, beta > 6."""
    total = alpha + beta
    mean = alpha / total
    std = xp.sqrt(alpha * beta / (total + 1)) / total
    bb = beta * beta
    poly = 47 * x * bb * bb + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * bb * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * bb + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))  # fmt: skip
    pre_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    pre_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near_mean = pre_num / (1 - x) * poly / pre_den
    prefactor = -x / xp.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * bb
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (xp.sqrt(2 * alpha / beta) * total**1.5 * axbx * axbx)
    term2 = 0.5 * xp.log(alpha / (total * x))
    term3 = xp.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = (
        beta * xp.log(beta / (total * (1 - x))) + alpha * xp.log(alpha / (total * x))
    ) ** -1.5
    term1234 = term1 + term2 * (term3 + xp.where(x < mean, term4, -term4))
    away = stirling * prefactor * term1234
    return xp.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near_mean, away)


def _dirichlet_grad(xp, digamma, x, alpha, total, branch_dtype):
    """torch._dirichlet_grad on float64 arrays; the branch is chosen in `branch_dtype` (the
    samples' dtype), as torch's kernel does. See NOTE [ torch's Dirichlet gradient ]."""
    xs, ts = x.astype(branch_dtype), total.astype(branch_dtype)
    boundary = ts * xs * (1 - xs)
    beta_s = ts - alpha.astype(branch_dtype)
    near0 = (xs <= 0.5) & (boundary < 2.5)
    near1 = ~near0 & (xs >= 0.5) & (boundary < 0.75)
    mid = ~near0 & ~near1 & (alpha > 6) & (beta_s > 6)
    beta = total - alpha
    u = xp.log(x)
    a = xp.log(alpha) - u
    b = xp.log(total) - a
    p = xp.zeros_like(x)
    q = xp.zeros_like(x)
    for i, pu in enumerate((1.0, u, u * u)):
        for j, pa in enumerate((1.0, a, a * a)):
            cp, cq = _DIRICHLET_C[0][i][j], _DIRICHLET_C[1][i][j]
            p = p + pu * pa * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + pu * pa * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    rational = p / q * (x * (digamma(total) - digamma(alpha)) / beta)
    out = xp.where(mid, _beta_grad_alpha_mid(xp, x, alpha, beta), rational)
    out = xp.where(near1, -_beta_grad_beta_small(xp, digamma, 1 - x, beta, alpha), out)
    return xp.where(near0, _beta_grad_alpha_small(xp, digamma, x, alpha, beta), out)


class _Dirichlet(Function):
    """out ~ Dirichlet(c) (torch._sample_dirichlet);
    grad_c = G * (grad - sum(out * grad, -1)),  G = torch._dirichlet_grad(out, c, sum(c)).
    See NOTE [ torch's Dirichlet gradient ]; once differentiable, as torch's."""

    _node_name = "_DirichletBackward"  # torch's name for its Python Function's node

    @staticmethod
    def forward(ctx, c):
        out = minitorch._sample_dirichlet(c.detach())._data
        ctx.save_for_backward(c)
        ctx.sample = out
        return out

    @staticmethod
    @once_differentiable  # as torch's: a second derivative raises (G depends on c)
    def backward(ctx, grad):
        (c,) = ctx._stored_tensors
        xp = ctx.xp
        digamma = c._device.backend.special("digamma")
        total = c._data.sum(-1, keepdims=True)
        alpha = c._data.astype("float64")
        with quiet(xp):
            g = _dirichlet_grad(
                xp, digamma, ctx.sample.astype("float64"), alpha,
                xp.broadcast_to(total, alpha.shape).astype("float64"), c._data.dtype,
            )  # fmt: skip
        g = _make(g.astype(c._data.dtype, copy=False), c._device, False, None)
        x = _make(ctx.sample, c._device, False, None)
        return g * (grad - (x * grad).sum(-1, keepdim=True))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex, with concentration over the last dim.

    Mirrors torch.distributions.Dirichlet; rsample() has torch's gradient (see NOTE [ torch's
    Dirichlet gradient ]), differentiable once as torch's."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # natural parameters (concentration,); see ExponentialFamily
    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        m = (c - 1).clamp(min=0.0)
        m = m / m.sum(-1, keepdim=True)
        # every concentration below 1: a corner of the simplex. torch takes the argmax of the
        # all-NaN row 0/0 above, which is always the first corner; we give the same.
        corner = minitorch.zeros_like(c)
        if c.shape[-1]:
            corner[..., 0] = 1
        return minitorch.where((c < 1).all(-1, keepdim=True), corner, m)

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        if not self.concentration.requires_grad:  # torch's sampler, so torch's numbers
            return minitorch._sample_dirichlet(self.concentration.expand(shape))
        _gamma_input(self.concentration, "_sample_dirichlet", "dirichlet")
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return minitorch.xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (
            c.lgamma().sum(-1)
            - a0.lgamma()
            - (k - a0) * a0.digamma()
            - ((c - 1.0) * c.digamma()).sum(-1)
        )
