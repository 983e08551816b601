"""torch.special.airy_ai (new in session 19): values against torch 2.13's (printed for the same
calls) through SciPy's airy where installed and through minitorch's own series and expansions
without it; dtypes, errors, no gradient, out=."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from minitorch._backend import numpy_special

nan, inf = math.nan, math.inf

_X = [0.0, 0.5, -0.5, 1.0, -2.0, 2.0, 2.5, -3.0, 5.0, -7.5, 10.0, -10.5, -25.0, 40.0, 103.0,
      104.0, inf, -inf, nan]  # fmt: skip
# torch.special.airy_ai(torch.tensor(_X, dtype=torch.float64))
_TORCH = [0.3550280538878172, 0.23169360648083345, 0.4757280916105395, 0.13529241631288144,
          0.22740742820168564, 0.03492413042327433, 0.015725923380470484, -0.3788142883304339,
          0.00010834442813607433, 0.3217757163806479, 1.1047532552898654e-10,
          -0.3119260350510507, 0.1635265788304309, 6.36574265855276e-75, 1.956232022933906e-304,
          0.0, nan, nan, nan]  # fmt: skip
# mpmath.airyai at 30 digits where torch's Cephes approximations are good to ~5e-9 only (x < -2)
_EXACT_NEGATIVE = {-3.0: -0.37881429367765806, -7.5: 0.3217757163806479,
                   -10.5: -0.3119260350510506, -25.0: 0.16352657883042948}  # fmt: skip


def _check(out, exact_negative_atol):
    got = out.numpy()
    x = np.array(_X)
    expected = np.array(_TORCH)
    right = ~(x < -2.0)  # torch is accurate there: relative comparison
    np.testing.assert_allclose(got[right], expected[right], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got[~right], expected[~right], rtol=0, atol=1e-8)
    for v, exact in _EXACT_NEGATIVE.items():
        assert abs(got[_X.index(v)] - exact) < exact_negative_atol


def test_airy_ai_values_by_default():
    out = minitorch.special.airy_ai(minitorch.tensor(_X, dtype=minitorch.float64))
    assert out.dtype == minitorch.float64 and out.shape == (len(_X),)
    _check(out, 1e-13)


def test_airy_ai_values_without_scipy(monkeypatch):
    monkeypatch.setitem(numpy_special._cache, "airy_ai", None)  # as without SciPy
    out = minitorch.special.airy_ai(minitorch.tensor(_X, dtype=minitorch.float64))
    _check(out, 1e-13)
    # the seams between the methods (-10 and 2) and a dense grid: smooth and bounded
    grid = np.linspace(-30.0, 30.0, 6001)
    y = minitorch.special.airy_ai(minitorch.tensor(grid)).numpy()
    assert np.all(np.abs(y) < 0.54) and np.all(y[grid > 0] > 0)
    seams = minitorch.special.airy_ai(
        minitorch.tensor(
            [-10.0000001, -10.0, -9.9999999, 1.9999999, 2.0, 2.0000001], dtype=minitorch.float64
        )
    ).numpy()
    np.testing.assert_allclose(seams[:3], 0.04024123848644196, rtol=0, atol=1e-7)
    np.testing.assert_allclose(seams[3:], 0.03492413042327433, rtol=1e-6, atol=0)


def test_airy_ai_uses_the_backend_table(monkeypatch):
    # SciPy's function (the table's entry) replaces the computation; inf and the cutoff after it
    monkeypatch.setitem(numpy_special._cache, "airy_ai", lambda a: np.full_like(a, 7.0))
    out = minitorch.special.airy_ai(minitorch.tensor([1.0, -50.0, 200.0, inf]))
    assert out.tolist()[:3] == [7.0, 7.0, 0.0] and math.isnan(out.tolist()[3])
    assert numpy_special.FALLBACKS["airy_ai"] is None
    scipy = pytest.importorskip("scipy.special")
    numpy_special._cache.pop("airy_ai")
    fn = numpy_special.special("airy_ai")
    assert fn(np.array([0.0]))[0] == scipy.airy(0.0)[0]


def test_airy_ai_dtypes_and_errors():
    y = minitorch.special.airy_ai(minitorch.tensor([[0.5, -4.0], [3.0, 20.0]]))
    assert y.dtype == minitorch.float32 and y.shape == (2, 2)
    expected = [[0.23169362545013428, -0.07026553899049759],
                [0.006591140292584896, 1.6916735000545776e-27]]  # fmt: skip
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-5, atol=5e-6)
    i = minitorch.special.airy_ai(minitorch.tensor([1, -1, 3]))
    assert i.dtype == minitorch.float32
    np.testing.assert_allclose(i.numpy(), [0.13529238, 0.5355609, 0.00659114], rtol=1e-6)
    b = minitorch.special.airy_ai(minitorch.tensor([True, False]))
    assert b.dtype == minitorch.float32
    np.testing.assert_allclose(b.numpy(), [0.13529238, 0.35502806], rtol=1e-6)
    with pytest.raises(NotImplementedError, match="\"airy_ai_cpu\" not implemented for 'Half'"):
        minitorch.special.airy_ai(minitorch.tensor([1.0], dtype=minitorch.float16))
    s = minitorch.special.airy_ai(x=minitorch.tensor(-1.5, dtype=minitorch.float64))
    assert s.shape == () and abs(s.item() - 0.46425657774886947) < 1e-14


def test_airy_ai_no_gradient_and_out():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = minitorch.special.airy_ai(x)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        y.sum().backward()
    out = minitorch.empty(3, dtype=minitorch.float64)
    r = minitorch.special.airy_ai(minitorch.tensor([1.0, 2.0, 3.0]), out=out)
    assert r is out and out.dtype == minitorch.float64
    np.testing.assert_allclose(out.numpy(), [0.13529241, 0.03492413, 0.00659114], rtol=1e-6)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        bad = minitorch.empty(1, dtype=minitorch.int64)
        minitorch.special.airy_ai(minitorch.tensor([1.0]), out=bad)
