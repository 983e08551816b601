"""Session 30 (helper fed): torch-free checks of federated-learning idioms whose torch results are
written as literals. The fed reference programs found no library difference to fix; these keep the
behaviours they lean on (weighted state_dict averaging, cancelling secure-aggregation masks,
parameters_to_vector's refusal of a non-contiguous parameter) pinned without torch."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch as torch


def test_weighted_state_dict_average_keeps_keys_and_integer_buffers():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    a, b = copy.deepcopy(m), copy.deepcopy(m)
    with torch.no_grad():
        b[0].weight.add_(1.0)
    states, ws = [a.state_dict(), b.state_dict()], [1.0, 3.0]
    avg = {}
    for k, v in states[0].items():
        if v.dtype.is_floating_point:
            avg[k] = torch.stack(
                [s[k] * (w / sum(ws)) for s, w in zip(states, ws, strict=False)]
            ).sum(0)
        else:
            avg[k] = v.clone()
    res = m.load_state_dict(avg)
    assert str(res) == "<All keys matched successfully>"
    np.testing.assert_allclose(
        m[0].weight.detach().numpy(), a[0].weight.detach().numpy() + 0.75, rtol=1e-6
    )
    assert m.state_dict()["1.num_batches_tracked"].dtype == torch.int64


def test_pairwise_masks_cancel():
    n, d = 3, 5
    masked = []
    for i in range(n):
        m = torch.zeros(d, dtype=torch.float64)
        for j in range(n):
            if i != j:
                g = torch.Generator().manual_seed(100 * min(i, j) + max(i, j))
                mask = torch.randn(d, generator=g, dtype=torch.float64)
                m = m + mask if i < j else m - mask
        masked.append(m)
    np.testing.assert_allclose(torch.stack(masked).sum(0).numpy(), np.zeros(d), atol=1e-12)


def test_parameters_to_vector_refuses_non_contiguous():
    w = torch.nn.Parameter(torch.zeros(3, 2).t())
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size"):
        torch.nn.utils.parameters_to_vector([w])
