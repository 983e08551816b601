"""Session 27 (gp): library fixes found by Gaussian-process / kernel / optimal-transport programs
(tests/reference/test_s27_gp_reference.py). Expected values are torch 2.13's, stated as literals.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

# five points, two of them equal: exact zero distances off the diagonal too
_X = [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [1.0, 1.0]]


def _mm_cdist(x):
    return minitorch.cdist(x, x, compute_mode="use_mm_for_euclid_dist")


def test_cdist_mm_double_backward_at_zero_distance():
    # torch: the ratio grad / dist is filled with 0 where dist is 0, so the second backward's
    # 0 / 0 there is dropped (was NaN everywhere)
    x = minitorch.tensor(_X, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.arange(25, dtype=minitorch.float64).view(5, 5) / 10
    (g1,) = minitorch.autograd.grad((_mm_cdist(x) * w).sum(), x, create_graph=True)
    (gg,) = minitorch.autograd.grad(g1.pow(2).sum(), x)
    want_g1 = [
        [-2.297056274847714, -2.897056274847714],
        [3.8049844718999246, -4.609968943799848],
        [-3.350568884171495, 8.35555335607142],
        [-5.369848480983499, -5.969848480983499],
        [7.212489168102785, 5.121320343559642],
    ]
    want_gg = [
        [-1.2663822793597035, 4.586092613290784],
        [-19.578488531209807, 4.905196398742646],
        [-14.729058768244883, -19.08941260448868],
        [-10.48638425889542, -2.0988763100221206],
        [46.06031383770984, 11.696999902477387],
    ]
    np.testing.assert_allclose(g1.detach().numpy(), want_g1, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gg.numpy(), want_gg, rtol=1e-12, atol=1e-12)


def test_cdist_mm_nan_upstream_gradient_at_zero_distance_is_dropped():
    # torch's matrix-product form masks the gradient at zero distances (a NaN there too); the
    # direct form and pdist keep it (unchanged)
    x = minitorch.tensor(_X, dtype=minitorch.float64, requires_grad=True)
    g = minitorch.ones(5, 5, dtype=minitorch.float64)
    g[0, 0] = float("nan")
    g[3, 0] = float("nan")
    _mm_cdist(x).backward(g)
    want = [
        [-3.414213562373095, -3.414213562373095],
        [4.894427190999916, -3.7888543819998315],
        [-2.3086407533730107, 7.203067944372926],
        [-3.414213562373095, -3.414213562373095],
        [4.242640687119285, 3.414213562373095],
    ]
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, atol=1e-12)


def test_cdist_mm_gradcheck():
    minitorch.manual_seed(0)
    a = minitorch.randn(4, 3, dtype=minitorch.float64, requires_grad=True)
    b = minitorch.randn(30, 3, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(minitorch.cdist, (a, b))
    assert gradgradcheck(minitorch.cdist, (a, b))


_T = minitorch.zeros(3, 4)

# (call, torch 2.13's message): the Tensor method's parser counts the arguments without self;
# when one overload alone takes that many, its own complaint is raised
_SORT_ERRORS = [
    (
        lambda: _T.sort(0, descending=True, stable=True),
        "sort() takes from 1 to 0 positional arguments but 1 were given",
    ),
    (
        lambda: _T.sort(0, True, stable=True),
        "sort() takes from 1 to 0 positional arguments but 2 were given",
    ),
    (
        lambda: _T.sort(0, True, True),
        "sort() takes from 1 to 0 positional arguments but 3 were given",
    ),
    (
        lambda: _T.argsort(0, stable=False, descending=True),
        "argsort() takes from 1 to 0 positional arguments but 1 were given",
    ),
    (
        lambda: _T.sort(stable=1, dim=0, descending=True),
        "sort(): argument 'stable' must be bool, not int",
    ),
    (
        lambda: _T.sort(dim=0.5, stable=True, descending=True),
        "sort(): argument 'dim' must be int, not float",
    ),
    (
        lambda: _T.sort(stable=None, dim=0, descending=1),
        "sort(): argument 'descending' must be bool, not int",
    ),
    (
        lambda: _T.argsort(stable=None, dim=0, descending=1),
        "argsort(): argument 'stable' must be bool, not NoneType",
    ),
    (
        lambda: minitorch.sort(_T, 0, True, stable=True, descending=True),
        "sort() takes from 2 to 1 positional arguments but 3 were given",
    ),
    (
        lambda: minitorch.argsort(_T, 0, stable=True, descending=True),
        "argsort() takes from 2 to 1 positional arguments but 2 were given",
    ),
    (
        lambda: _T.argsort(0, stable=True),
        "argsort() received an invalid combination of arguments - got (int, stable=bool), but "
        "expected one of:\n * (*, bool stable, int dim = -1, bool descending = False)\n"
        " * (int dim = -1, bool descending = False)\n",
    ),
    (
        lambda: _T.sort(0, 1),
        "sort() received an invalid combination of arguments - got (int, int), but expected one "
        "of:\n * (*, bool stable, int dim = -1, bool descending = False)\n"
        " * (int dim = -1, bool descending = False)\n",
    ),
    (
        lambda: minitorch.sort(_T, 0, stable=True),
        "sort() received an invalid combination of arguments - got (Tensor, int, stable=bool), "
        "but expected one of:\n"
        " * (Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of "
        "Tensors out = None)\n"
        " * (Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = "
        "None)\n",
    ),
]


@pytest.mark.parametrize("i", range(len(_SORT_ERRORS)))
def test_sort_argument_errors_as_torch(i):
    call, message = _SORT_ERRORS[i]
    with pytest.raises(TypeError) as info:
        call()
    got = str(info.value)
    # torch appends a "didn't match because ..." line to an invalid combination
    assert got == message or (got.startswith(message) and "invalid combination" in message)


def test_sort_stable_method_keywords_still_work():
    x = minitorch.tensor([[3.0, 1.0, 2.0, 1.0]])
    v, i = x.sort(dim=1, descending=True, stable=True)
    assert v.tolist() == [[3.0, 2.0, 1.0, 1.0]]
    assert i.tolist() == [[0, 2, 1, 3]]
    assert x.argsort(stable=True).tolist() == [[1, 3, 2, 0]]
    assert x.sort(1, True).indices.tolist() == [[0, 2, 1, 3]]
