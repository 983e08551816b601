"""torch.distributions.relaxed_bernoulli: RelaxedBernoulli (in relaxed.py)."""

from __future__ import annotations

from minitorch.distributions.relaxed import RelaxedBernoulli

__all__ = ["RelaxedBernoulli"]
