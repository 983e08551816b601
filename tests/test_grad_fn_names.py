"""torch's grad_fn names for the fused layer kernels (the name a printed layer output shows)."""

from __future__ import annotations

import pytest

import minitorch as mt
import minitorch.nn.functional as F


@pytest.mark.parametrize(
    "shape, bias, name",
    [
        ((4, 3), True, "AddmmBackward0"),
        ((4, 3), False, "MmBackward0"),
        ((2, 4, 3), True, "ViewBackward0"),
        ((2, 4, 3), False, "UnsafeViewBackward0"),
        ((3,), True, "ViewBackward0"),
        ((3,), False, "SqueezeBackward4"),
    ],
)
def test_linear_node_names(shape, bias, name):
    w = mt.ones(5, 3, requires_grad=True)
    b = mt.zeros(5, requires_grad=True) if bias else None
    out = F.linear(mt.ones(*shape), w, b)
    assert type(out.grad_fn).__name__ == name
    assert repr(out).endswith(f"grad_fn=<{name}>)")


def test_layer_norm_node_name():
    out = mt.nn.LayerNorm(3)(mt.ones(2, 3))
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"
