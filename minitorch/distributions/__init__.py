"""minitorch.distributions: probability distributions and KL divergences (torch.distributions)."""

from __future__ import annotations

# torch's package imports every distribution module, so each is an attribute of the package
# (torch.distributions.half_normal, ...) without an import of its own. chi2, half_cauchy, ...
# only re-export classes defined elsewhere: they are imported here for that alone.
from minitorch.distributions import (  # noqa: F401
    chi2,
    constraints,
    half_cauchy,
    half_normal,
    inverse_gamma,
    kumaraswamy,
    logistic_normal,
    one_hot_categorical,
    pareto,
    studentT,
    transforms,
    weibull,
)
from minitorch.distributions.bernoulli import Bernoulli
from minitorch.distributions.beta import Beta
from minitorch.distributions.binomial import Binomial
from minitorch.distributions.categorical import (
    Categorical,
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from minitorch.distributions.cauchy import Cauchy
from minitorch.distributions.constraint_registry import biject_to, transform_to
from minitorch.distributions.continuous_bernoulli import ContinuousBernoulli
from minitorch.distributions.dirichlet import Dirichlet
from minitorch.distributions.distribution import Distribution
from minitorch.distributions.exp_family import ExponentialFamily
from minitorch.distributions.exponential import Exponential
from minitorch.distributions.fishersnedecor import FisherSnedecor
from minitorch.distributions.gamma import Chi2, Gamma
from minitorch.distributions.generalized_pareto import GeneralizedPareto
from minitorch.distributions.geometric import Geometric
from minitorch.distributions.gumbel import Gumbel
from minitorch.distributions.independent import Independent
from minitorch.distributions.kl import kl_divergence, register_kl
from minitorch.distributions.laplace import Laplace
from minitorch.distributions.lkj_cholesky import LKJCholesky
from minitorch.distributions.log_normal import LogNormal
from minitorch.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal
from minitorch.distributions.mixture_same_family import MixtureSameFamily
from minitorch.distributions.multinomial import Multinomial
from minitorch.distributions.multivariate_normal import MultivariateNormal
from minitorch.distributions.negative_binomial import NegativeBinomial
from minitorch.distributions.normal import Normal
from minitorch.distributions.poisson import Poisson
from minitorch.distributions.relaxed_bernoulli import RelaxedBernoulli
from minitorch.distributions.relaxed_categorical import RelaxedOneHotCategorical
from minitorch.distributions.student_t import StudentT
from minitorch.distributions.transformed_distribution import (
    HalfCauchy,
    HalfNormal,
    InverseGamma,
    Kumaraswamy,
    LogisticNormal,
    Pareto,
    TransformedDistribution,
    Weibull,
)
from minitorch.distributions.transforms import *  # noqa: F403  (torch exports them here too)
from minitorch.distributions.transforms import __all__ as _transforms_all
from minitorch.distributions.uniform import Uniform
from minitorch.distributions.von_mises import VonMises
from minitorch.distributions.wishart import Wishart

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Chi2",
    "Cauchy",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LowRankMultivariateNormal",
    "LogisticNormal",
    "MixtureSameFamily",
    "Multinomial",
    "NegativeBinomial",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
] + list(_transforms_all)
