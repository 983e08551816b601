"""The op-test row format: one OpSpec per case, read by the generic tests in test_ops.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class OpSpec:
    """One case of one op.

    op:      the minitorch callable; takes the input tensors positionally (bind other arguments
             with a lambda), e.g. `lambda a, b: mt.add(a, b, alpha=2)`.
    ref:     the NumPy reference on float64/int arrays with the same signature, or None.
    shapes:  the shape of each tensor input, e.g. [(3, 4), (4,)] (broadcasting, (), (0, 3)...).
    domain:  (low, high) for uniform random inputs, or a callable `(rng, shape, dtype) -> ndarray`
             for inputs that need care (away from kinks, positive, distinct values...).
    dtypes:  the input dtypes checked for forward values and result dtype (names of minitorch
             dtypes); gradients are always checked in float64.
    grad:    which inputs to differentiate (indices); () for non-differentiable ops.
    gradgrad: check second derivatives too.
    torch_op: the same op written for torch (for tests/reference), or None.
    atol/rtol: forward tolerances vs the NumPy reference.
    """

    name: str
    op: Callable
    ref: Callable | None
    shapes: list
    domain: Any = (-2.0, 2.0)
    dtypes: tuple = ("float32", "float64")
    grad: tuple | None = None  # None: every input
    gradgrad: bool = True
    torch_op: Callable | None = None
    atol: float = 1e-5
    rtol: float = 1e-5
    kwargs: dict = field(default_factory=dict)

    def __repr__(self):
        return self.name
