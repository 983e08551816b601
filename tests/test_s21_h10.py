"""Session 21, h10: distributions fixes found by differential fuzzing against torch 2.13.

Expected values are literals obtained by running torch 2.13.0 on the same inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.distributions as D
from minitorch.distributions import transforms as T


def _t(values):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)


def _close(got, expected, name):
    got = got.detach().numpy() if isinstance(got, minitorch.Tensor) else np.asarray(got)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=name)


# --- moments at their poles: a zero gradient where the moment is undefined, as torch's ---


def _check_grads(f, values):
    """float64 first and second derivatives of f in the region where it is defined."""
    x = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(f, (x,))
    assert minitorch.autograd.gradgradcheck(f, (x,))


def test_fisher_snedecor_mean_gradient_zero_at_pole():
    df1, df2 = _t([3.0, 3.0, 3.0]), _t([4.0, 2.0, 1.0])
    mean = D.FisherSnedecor(df1, df2).mean
    _close(mean, [2.0, math.nan, math.nan], "mean")
    (g,) = minitorch.autograd.grad(mean.nansum(), [df2])
    _close(g, [-0.5, 0.0, 0.0], "d mean / d df2")
    _check_grads(lambda x: D.FisherSnedecor(minitorch.ones_like(x), x).mean, [2.5, 5.0])


def test_student_t_variance_gradient_zero_at_pole():
    df, scale = _t([2.0, 3.0, 1.0, 0.5]), _t([1.0, 2.0, 1.0, 1.0])
    d = D.StudentT(df, 0.0, scale)
    var = d.variance
    _close(var, [math.inf, 12.0, math.nan, math.nan], "variance")
    _close(d.stddev, [math.inf, 3.4641016151377544, math.nan, math.nan], "stddev")
    finite = minitorch.where(var.isfinite(), var, 0.0)
    g_df, g_scale = minitorch.autograd.grad(finite.sum(), [df, scale])
    _close(g_df, [0.0, -8.0, 0.0, 0.0], "d var / d df")
    _close(g_scale, [0.0, 12.0, 0.0, 0.0], "d var / d scale")
    _check_grads(lambda x: D.StudentT(x, 0.0, 2.0).variance, [2.5, 7.0])


def test_generalized_pareto_mean_variance_gradient_zero_at_pole():
    loc, scale, c = _t([0.0, 0.0, 0.0]), _t([1.0, 2.0, 1.0]), _t([1.0, 0.5, 0.25])
    d = D.GeneralizedPareto(loc, scale, c)
    mean = d.mean
    _close(mean, [math.nan, 4.0, 4.0 / 3.0], "mean")
    grads = minitorch.autograd.grad(minitorch.where(mean.isnan(), 0.0, mean).sum(), [loc, scale, c])
    _close(grads[0], [0.0, 1.0, 1.0], "d mean / d loc")
    _close(grads[1], [0.0, 2.0, 4.0 / 3.0], "d mean / d scale")
    _close(grads[2], [0.0, 8.0, 16.0 / 9.0], "d mean / d c")
    var = d.variance
    _close(var, [math.nan, math.nan, 32.0 / 9.0], "variance")
    g_scale, g_c = minitorch.autograd.grad(minitorch.where(var.isnan(), 0.0, var).sum(), [scale, c])
    _close(g_scale, [0.0, 0.0, 64.0 / 9.0], "d var / d scale")
    np.testing.assert_allclose(g_c.numpy(), [0.0, 0.0, 23.703703703703702], rtol=1e-12)
    _check_grads(lambda x: D.GeneralizedPareto(0.0, 1.5, x).mean, [-0.3, 0.2])
    _check_grads(lambda x: D.GeneralizedPareto(0.0, 1.5, x).variance, [-0.3, 0.2])


# --- error messages ---


def test_base_mean_variance_raise_bare_not_implemented():
    d = D.LKJCholesky(2, minitorch.tensor(1.0))
    for attr in ("mean", "variance", "stddev"):
        with pytest.raises(NotImplementedError) as info:
            getattr(d, attr)
        assert str(info.value) == "", attr


def test_set_default_validate_args_bare_value_error():
    with pytest.raises(ValueError) as info:
        D.Distribution.set_default_validate_args(3)
    assert str(info.value) == ""


def test_class_modules_as_torch():
    """torch defines these in modules of their own; their reprs (in messages) name them."""
    d = D.LogisticNormal(minitorch.zeros(2), minitorch.ones(2))
    with pytest.raises(NotImplementedError) as info:
        _ = d.mode
    assert str(info.value) == (
        "<class 'minitorch.distributions.logistic_normal.LogisticNormal'> does not implement mode"
    )
    assert repr(D.HalfNormal) == "<class 'minitorch.distributions.half_normal.HalfNormal'>"
    assert repr(D.Chi2) == "<class 'minitorch.distributions.chi2.Chi2'>"
    assert repr(D.StudentT) == "<class 'minitorch.distributions.studentT.StudentT'>"
    assert D.OneHotCategoricalStraightThrough.__module__ == (
        "minitorch.distributions.one_hot_categorical"
    )
    assert D.CatTransform.__module__ == "minitorch.distributions.transforms"


def test_kl_cross_exponential_family_message():
    p = D.Normal(minitorch.tensor(0.0), 1.0)
    q = D.Bernoulli(minitorch.tensor(0.5))
    with pytest.raises(NotImplementedError) as info:
        D.kl_divergence(p, q)
    assert str(info.value) == (
        "The cross KL-divergence between different exponential families cannot"
        "                             be computed using Bregman divergences"
    )


def test_cat_stack_transform_messages():
    cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 2])
    with pytest.raises(AssertionError, match=r"^x.size\(0\) = 2 must equal length 3$"):
        cat(minitorch.zeros(2))
    stack = T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], dim=0)
    with pytest.raises(AssertionError, match=r"^x.size\(0\) = 3 must equal len\(transforms\) 2$"):
        stack(minitorch.zeros(3))
    with pytest.raises(AssertionError, match=r"^dim 3 out of range for tensor with 1 dimensions$"):
        T.StackTransform([T.ExpTransform()], dim=3)(minitorch.zeros(2))


def test_constraint_repr_drops_first_character_as_torch():
    C = D.constraints

    class Even(C.Constraint):
        def check(self, value):
            return value % 2 == 0

    class Band(C.interval):
        pass

    assert repr(C.Constraint()) == "onstraint()"
    assert repr(Even()) == "ven()"
    assert repr(Band(0.0, 1.0)) == "and(lower_bound=0.0, upper_bound=1.0)"
    assert repr(C.positive) == "GreaterThan(lower_bound=0.0)"


def test_independent_constraint_dim_message():
    c = D.constraints.independent(D.constraints.positive, 3)
    with pytest.raises(ValueError) as info:
        c.check(minitorch.ones(2, 2))
    assert str(info.value) == "Expected value.dim() >= 3 but got 2"
