"""torch.special's orthogonal polynomials: huge degrees without a hang (the running elements
shrink, NaN ones leave early, the last few go on Python floats) and the same values as torch
(literals from torch 2.13) for mixed degrees, edge values and float32."""

import math
import time

import numpy as np
import pytest

import minitorch as torch
import minitorch.special as S

NAN = math.nan


def test_laguerre_huge_degree_is_fast_and_as_torch():
    # torch leaves each element's loop at NaN; a bounded value (x = 7) takes all 5e6 steps
    x = torch.tensor([-1e20, 1e20, -50.0, NAN, 7.0, 0.5], dtype=torch.float64)
    n = torch.tensor([5e6, 5e6, 5e6, 5e6, 5e6, 20.0], dtype=torch.float64)
    start = time.perf_counter()
    got = S.laguerre_polynomial_l(x, n).numpy()
    assert time.perf_counter() - start < 8.0  # 38 s before
    want = [NAN, NAN, NAN, NAN, 0.24065922242613375, 0.31201748708001575]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_legendre_long_runs_inside_the_interval():
    x = torch.tensor([0.3, -0.7, 3.0], dtype=torch.float64)
    n = torch.tensor([300000.0, 299999.0, 5e6], dtype=torch.float64)
    start = time.perf_counter()
    got = S.legendre_polynomial_p(x, n).numpy()
    assert time.perf_counter() - start < 2.0  # 2.7 s before
    np.testing.assert_allclose(got, [0.0014703105670685866, 0.0006181269832011697, NAN], rtol=1e-9)


_X = [-2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 1.5]
_N = [-2.0, 0.0, 1.0, 2.9, 7.0, 40.0, 1000.0]
# torch's values on the grid x (rows) by n (columns)
_GRID = {
    "chebyshev_polynomial_u": [
        [0.0, 1.0, -4.0, 15.0, -10864.0, 8.133150819505116e22, NAN],
        [0.0, 1.0, -2.0, 3.0, -8.0, 41.0, 1001.0],
        [0.0, 1.0, -1.0, 0.0, -1.0, -1.0000000000000078, -1.0000000000000036],
        [0.0, 1.0, 0.0, -1.0, -0.0, 1.0, 1.0],
        [0.0, 1.0, 0.5, -0.75, -0.9296875, -0.613199543712651, -0.03585845924817447],
        [0.0, 1.0, 2.0, 3.0, 8.0, 41.0, 1001.0],
        [0.0, 1.0, 3.0, 8.0, 987.0, 6.130579072161158e16, NAN],
    ],
    "hermite_polynomial_he": [
        [0.0, 1.0, -2.0, 3.0, -86.0, 8.696022932433949e23, NAN],
        [0.0, 1.0, -1.0, 0.0, 20.0, 4.1016721976316186e23, NAN],
        [0.0, 1.0, -0.5, -0.75, 40.0234375, -3.40321505261946e23, NAN],
        [0.0, 1.0, 0.0, -1.0, -0.0, 3.1983098677287775e23, NAN],
        [0.0, 1.0, 0.25, -0.9375, -24.62982177734375, -6.547003059828617e21, NAN],
        [0.0, 1.0, 1.0, 0.0, -20.0, 4.1016721976316186e23, NAN],
        [0.0, 1.0, 1.5, 1.25, 54.4921875, -5.60506373978118e23, NAN],
    ],
    "laguerre_polynomial_l": [
        [0.0, 1.0, 3.0, 7.0, 133.24761904761903, 2366992.6775452164, 1.1188472309250216e37],
        [0.0, 1.0, 2.0, 3.5, 25.9765873015873, 23365.472434397707, 9.104096023821478e25],
        [0.0, 1.0, 1.5, 2.125, 7.950934709821428, 855.0637623081569, 1.246631544979937e18],
        [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [0.0, 1.0, 0.75, 0.53125, -0.17936775570824035, 0.26782184873292747,
         0.13490739563281876],
        [0.0, 1.0, 0.0, -0.5, -0.040476190476190554, 0.29464033076018864, 0.15476933911840612],
        [0.0, 1.0, -0.5, -0.875, 0.5987583705357143, -0.25394689792003494,
         0.05337573095180946],
    ],
    "legendre_polynomial_p": [
        [0.0, 1.0, -2.0, 5.5, -2199.125, 6.971581995736784e21, NAN],
        [0.0, 1.0, -1.0, 1.0, -1.0, 1.0, 1.0],
        [0.0, 1.0, -0.5, -0.125, -0.22314453125, -0.09542943523261548, -0.01916825109165026],
        [0.0, 1.0, 0.0, -0.5, -0.0, 0.12537068761957926, 0.025225018178360814],
        [0.0, 1.0, 0.25, -0.40625, -0.2799186706542969, -0.08788847202405253,
         0.002344429656018726],
        [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [0.0, 1.0, 1.5, 2.875, 192.37646484375, 5043893826899856.0, NAN],
    ],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_GRID))
def test_mixed_degrees_broadcast_as_torch(name):
    # every element its own degree: sorted, run as a shrinking prefix, NaN ones dropped
    x = torch.tensor(_X, dtype=torch.float64)[:, None]
    n = torch.tensor(_N, dtype=torch.float64)[None, :]
    got = getattr(S, name)(x, n).numpy()
    np.testing.assert_allclose(got, _GRID[name], rtol=1e-12, atol=1e-15)
    # the same with a Python degree, one column at a time
    for j, degree in enumerate(_N):
        col = getattr(S, name)(x[:, 0], degree).numpy()
        np.testing.assert_allclose(col, np.array(_GRID[name])[:, j], rtol=1e-12, atol=1e-15)


def test_float32_fused_steps_and_own_degrees():
    x = torch.tensor([0.75, -1.25, 2.0])
    got = S.hermite_polynomial_h(x, torch.tensor([30, 50, 3])).numpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.float32([-2.4436243066261183e20, -math.inf, 40.0]))
    np.testing.assert_array_equal(
        S.legendre_polynomial_p(x, 25).numpy(),
        np.float32([0.06842763721942902, -4365176.5, 23200360562688.0]),
    )


def test_many_elements_with_spread_degrees():
    # 20000 elements, degrees 0..299: the same as one degree at a time
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1.2, 1.2, 20000)
    ns = rng.integers(0, 300, 20000)
    got = S.laguerre_polynomial_l(torch.tensor(xs), torch.tensor(ns)).numpy()
    for degree in (0, 1, 2, 57, 299):
        at = ns == degree
        want = S.laguerre_polynomial_l(torch.tensor(xs[at]), degree).numpy()
        np.testing.assert_array_equal(got[at], want)
