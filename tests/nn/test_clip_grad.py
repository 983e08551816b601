"""nn.utils: clip_grad_norm_ (total norm returned without host reads), clip_grad_value_,
parameters_to_vector / vector_to_parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn
from minitorch._backend.strict import count_transfers
from minitorch.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)


def _params(device="cpu", grads=((3.0, 4.0), (12.0,))):
    ps = []
    for g in grads:
        p = nn.Parameter(minitorch.zeros(len(g), device=device, dtype=minitorch.float64))
        p.grad = minitorch.tensor(g, device=device, dtype=minitorch.float64)
        ps.append(p)
    return ps


@pytest.mark.parametrize(
    "norm_type, total",
    [(2.0, 13.0), (1.0, 19.0), (math.inf, 12.0), ("inf", 12.0), (3.0, (27 + 64 + 1728) ** (1 / 3))],
)
def test_clip_grad_norm_returns_the_total_norm_and_scales(norm_type, total, device):
    ps = _params(device)
    with count_transfers() as transfers:
        norm = clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
    if device == "strict":
        assert transfers.count == 0
    assert isinstance(norm, minitorch.Tensor) and norm.device == minitorch.device(device)
    np.testing.assert_allclose(norm.cpu().numpy(), total, rtol=1e-12)
    scale = 1.0 / (total + 1e-6)
    np.testing.assert_allclose(ps[0].grad.cpu().numpy(), np.array([3.0, 4.0]) * scale)
    np.testing.assert_allclose(ps[1].grad.cpu().numpy(), np.array([12.0]) * scale)


def test_clip_grad_norm_leaves_small_gradients_and_skips_missing_ones():
    ps = _params()
    ps.append(nn.Parameter(minitorch.zeros(2)))  # no grad
    norm = clip_grad_norm_(ps, max_norm=100.0)
    assert float(norm) == 13.0
    np.testing.assert_array_equal(ps[0].grad.numpy(), [3.0, 4.0])
    assert float(clip_grad_norm_([nn.Parameter(minitorch.ones(2))], 1.0)) == 0.0
    one = _params(grads=((6.0, 8.0),))[0]
    assert float(clip_grad_norm_(one, 5.0)) == 10.0  # a single tensor is accepted


def test_error_if_nonfinite():
    ps = _params(grads=((1.0, math.nan),))
    with pytest.raises(
        RuntimeError,
        match="The total norm of order 2.0 for gradients from `parameters` is non-finite",
    ):
        clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
    assert math.isnan(float(clip_grad_norm_(ps, 1.0)))
    assert float(get_total_norm([minitorch.tensor([3.0, 4.0])])) == 5.0


def test_clip_grad_value(device):
    ps = _params(device, grads=((-3.0, 0.5), (2.0,)))
    with count_transfers() as transfers:
        assert clip_grad_value_(ps, 1.0) is None
    if device == "strict":
        assert transfers.count == 0
    np.testing.assert_array_equal(ps[0].grad.cpu().numpy(), [-1.0, 0.5])
    np.testing.assert_array_equal(ps[1].grad.cpu().numpy(), [1.0])


def test_parameters_to_vector_and_back():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (8 + 3,)
    np.testing.assert_array_equal(
        vec.detach().numpy()[:6], model[0].weight.detach().numpy().reshape(-1)
    )
    vector_to_parameters(minitorch.arange(11.0), model.parameters())
    np.testing.assert_array_equal(model[0].weight.detach().numpy(), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(model[1].bias.detach().numpy(), [10.0])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], model.parameters())
    with pytest.raises(TypeError, match="Found two parameters on different devices"):
        parameters_to_vector(
            [nn.Parameter(minitorch.ones(1)), nn.Parameter(minitorch.ones(1, device="strict"))]
        )
