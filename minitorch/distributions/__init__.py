"""minitorch.distributions: probability distributions and KL divergences (torch.distributions)."""

from __future__ import annotations

from minitorch.distributions import constraints
from minitorch.distributions.bernoulli import Bernoulli
from minitorch.distributions.beta import Beta
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import Categorical, OneHotCategorical
from minitorch.distributions.cauchy import Cauchy
from minitorch.distributions.dirichlet import Dirichlet
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.gamma import Gamma
from minitorch.distributions.geometric import Geometric
from minitorch.distributions.gumbel import Gumbel
from minitorch.distributions.independent import Independent
from minitorch.distributions.kl import kl_divergence, register_kl
from minitorch.distributions.laplace import Laplace
from minitorch.distributions.multivariate_normal import MultivariateNormal
from minitorch.distributions.normal import LogNormal, Normal
from minitorch.distributions.poisson import Poisson
from minitorch.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from minitorch.distributions.student_t import StudentT
from minitorch.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
