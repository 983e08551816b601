"""Sweep 5 fixes in distances and normalisation: the L-inf gradient of cdist/pdist at ties,
cosine_similarity for norms that overflow, normalize with a string p; and indexing's
out-of-range error without NumPy's error as its context."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

INF = math.inf


def test_cdist_linf_ties_get_the_whole_gradient():
    # row 1 of x against row 1 of y: diff (-2, -2), both coordinates tied for the max; torch gives
    # each the whole sign * grad (linalg.vector_norm would give each half)
    x = torch.tensor([[1.0, 2.0], [0.0, 1.0]], requires_grad=True)
    y = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    torch.cdist(x, y, p=INF).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0], [-1.0, -1.0]])


def test_cdist_linf_ties_random_upstream_batched():
    x = torch.tensor([[[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]]], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([[[0.0, 1.0, -0.5], [2.0, 3.0, 1.0]]], dtype=torch.float64)
    g = torch.tensor([[[0.3, -0.7], [1.5, 2.0]]], dtype=torch.float64)
    out = torch.cdist(x, y, p=INF)
    assert type(out.grad_fn).__name__ == "CdistBackward0"
    out.backward(g)
    np.testing.assert_allclose(
        x.grad.numpy(), [[[1.0, 1.0, 0.3], [-2.0, -2.0, 3.5]]], rtol=0, atol=1e-15
    )


def test_pdist_linf_ties_get_the_whole_gradient():
    x = torch.tensor([[1.0, 2.0], [0.0, 1.0]], requires_grad=True)
    y = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    F.pdist(torch.cat([x, y]), p=INF).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0], [-2.0, -2.0]])


def test_linf_distance_values_and_empty_coordinates():
    x = torch.tensor([[1.0, -4.0], [0.5, 0.5], [3.0, 3.0]])
    np.testing.assert_array_equal(F.pdist(x, p=INF).numpy(), [4.5, 7.0, 2.5])
    np.testing.assert_array_equal(torch.cdist(x, x[:1], p=INF).numpy(), [[0.0], [4.5], [7.0]])
    # no coordinates: distance 0, as torch
    np.testing.assert_array_equal(torch.cdist(torch.zeros(2, 0), torch.zeros(3, 0), p=INF), 0)
    assert F.pdist(torch.zeros(3, 0), p=INF).shape == (3,)


def test_linf_distance_gradcheck_without_ties():
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = torch.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert gradcheck(lambda a, b: torch.cdist(a, b, p=INF), (a, b))
    assert gradgradcheck(lambda a, b: torch.cdist(a, b, p=INF), (a, b))
    assert gradcheck(lambda a: F.pdist(a, p=INF), (a,))
    assert gradgradcheck(lambda a: F.pdist(a, p=INF), (a,))


@pytest.mark.parametrize(
    "dtype, big", [(torch.float32, 1e20), (torch.float16, 5e4), (torch.float64, 1e200)]
)
def test_cosine_similarity_overflowing_norm_is_zero(dtype, big):
    a = torch.tensor([[big, big], [3.0, 4.0]], dtype=dtype)
    b = torch.tensor([[1.0, 1.0], [4.0, 3.0]], dtype=dtype)
    got = F.cosine_similarity(a, a)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.float().numpy(), [0.0, 1.0], rtol=1e-3)
    got = torch.nn.CosineSimilarity(dim=1)(a, b)
    np.testing.assert_allclose(got.float().numpy(), [0.0, 0.96], rtol=1e-3)


def test_cosine_similarity_small_norms_still_clamped_with_gradient():
    # a zero vector and one below eps: the norm is lifted to eps, the gradient flows as through
    # the norm itself
    a = torch.tensor([[0.0, 0.0], [1e-9, 0.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[1.0, 2.0], [1.0, 0.0], [4.0, 3.0]], dtype=torch.float64)
    out = F.cosine_similarity(a, b, eps=1e-8)
    np.testing.assert_allclose(out.detach().numpy(), [0.0, 0.1, 0.96], rtol=1e-12)
    out.sum().backward()
    # torch's values; below eps the norm's own gradient still flows (row 1: 1e8 * (1 - 0.1))
    s5 = 1e8 / math.sqrt(5.0)
    expected = [[s5, 2 * s5], [9e7, 0.0], [0.0448, -0.0336]]
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-9)
    c = torch.tensor([[0.3, -1.2, 2.0], [1.5, 0.2, -0.7]], dtype=torch.float64, requires_grad=True)
    d = torch.tensor([[1.1, 0.4, -0.3], [0.2, 0.9, 1.3]], dtype=torch.float64, requires_grad=True)
    assert gradcheck(F.cosine_similarity, (c, d))
    assert gradgradcheck(F.cosine_similarity, (c, d))


def test_normalize_fro_and_nuc():
    x = torch.tensor([[3.0, 4.0], [1.0, 0.0]])
    np.testing.assert_allclose(
        F.normalize(x, p="fro", dim=1).numpy(), [[0.6, 0.8], [1.0, 0.0]], rtol=1e-6
    )
    np.testing.assert_allclose(
        F.normalize(x, p="fro", dim=(0, 1)).numpy(),
        np.array([[3.0, 4.0], [1.0, 0.0]]) / math.sqrt(26.0),
        rtol=1e-6,
    )
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        F.normalize(x, p="nuc", dim=1)


def test_out_of_range_index_does_not_chain_numpy_error():
    q = torch.zeros(4, 10)
    for key in (torch.tensor([4]), (torch.tensor([0]), torch.tensor([11]))):
        with pytest.raises(IndexError, match="out of bounds for dimension") as info:
            q[key]
        assert info.value.__context__ is None
