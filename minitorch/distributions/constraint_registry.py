"""biject_to and transform_to: the Transform from unconstrained reals into a constraint's set.
Mirrors torch.distributions.constraint_registry."""

from __future__ import annotations

import numbers

from minitorch.distributions import constraints
from minitorch.distributions.transforms import (
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    identity_transform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint types to factories building a Transform into that constraint.

    Mirrors torch.distributions.constraint_registry.ConstraintRegistry."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register `factory(constraint) -> Transform` for the type of `constraint` (usable as a
        decorator when factory is omitted)."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(
                "Expected constraint to be either a Constraint subclass or instance, "
                f"but got {constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints"
            ) from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _to_real(constraint):
    return identity_transform


def _biject_independent(constraint):
    base = biject_to(constraint.base_constraint)
    return IndependentTransform(base, constraint.reinterpreted_batch_ndims)


def _transform_independent(constraint):
    base = transform_to(constraint.base_constraint)
    return IndependentTransform(base, constraint.reinterpreted_batch_ndims)


def _to_greater_than(constraint):
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


def _to_less_than(constraint):
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


def _to_interval(constraint):
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if (
        isinstance(lower, numbers.Number)
        and lower == 0
        and isinstance(upper, numbers.Number)
        and upper == 1
    ):
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lower, upper - lower)])


# Registration is by constraint type, so `positive` (a greater_than(0.0)) and `nonnegative` get
# the greater_than factory, as in torch.
for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _to_real)
    _registry.register(constraints.greater_than, _to_greater_than)
    _registry.register(constraints.greater_than_eq, _to_greater_than)
    _registry.register(constraints.less_than, _to_less_than)
    _registry.register(constraints.interval, _to_interval)
    _registry.register(constraints.half_open_interval, _to_interval)
    _registry.register(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
biject_to.register(constraints.independent, _biject_independent)
transform_to.register(constraints.independent, _transform_independent)
biject_to.register(constraints.simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
# as torch: the semidefinite set's boundary is unreachable, its interior is positive definite
transform_to.register(constraints.positive_semidefinite, lambda c: PositiveDefiniteTransform())


def _registry_cat(registry):
    def factory(constraint):
        parts = [registry(c) for c in constraint.cseq]
        return CatTransform(parts, constraint.dim, constraint.lengths)

    return factory


def _registry_stack(registry):
    def factory(constraint):
        return StackTransform([registry(c) for c in constraint.cseq], constraint.dim)

    return factory


for _registry in (biject_to, transform_to):
    _registry.register(constraints.cat, _registry_cat(_registry))
    _registry.register(constraints.stack, _registry_stack(_registry))
del _registry
