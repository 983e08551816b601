"""Session 46 (helper red) against torch: var/std on their no-grad fast path and recorded (values
and gradients), add/sub with a float32 or float64 alpha (one rounding, as torch's fused kernel),
and the PowBackward2 of a number base saving the number (tests/test_s46_red.py compares each
with minitorch's general route)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _pair(a: np.ndarray, requires_grad=False):
    return (
        mt.tensor(a, requires_grad=requires_grad),
        torch.tensor(a, requires_grad=requires_grad),
    )


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_var_std_as_torch(dt):
    rng = np.random.default_rng(46)
    # (well-conditioned data: far from 0 the sums' order, NumPy's or torch's, shows)
    for base in (rng.standard_normal((3, 4)), rng.standard_normal((5, 6)) + 3.0):
        a = base.astype(dt)
        m, t = _pair(a)
        for call in (
            lambda x: x.var(),
            lambda x: x.std(),
            lambda x: x.var(1),
            lambda x: x.std(0, keepdim=True),
            lambda x: x.var(-1, keepdim=True),
        ):
            with mt.no_grad():
                got = call(m).numpy()
            np.testing.assert_allclose(
                got, call(t).numpy(), rtol=2e-6 if dt == "float32" else 1e-13
            )
        m, t = _pair(a, True)
        g = rng.standard_normal(a.shape[0]).astype(dt)
        m.var(1).backward(mt.tensor(g))
        t.var(1).backward(torch.tensor(g))
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)
        m.grad = t.grad = None
        m.std().backward()
        t.std().backward()
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [2, 0.5, -3, 0.1])
def test_add_sub_alpha_bits_as_torch(alpha, dt):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((3, 4)).astype(dt) for _ in range(2))
    (ma, ta), (mb, tb) = _pair(a), _pair(b)
    with mt.no_grad():
        for name in ("add", "sub"):
            got = getattr(mt, name)(ma, mb, alpha=alpha).numpy()
            want = getattr(torch, name)(ta, tb, alpha=alpha).numpy()
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("base", [2, 2.5, True, -3, np.int64(2), np.float32(1.5)])
def test_pow_number_base_saved_self_as_torch(base):
    mx, tx = _pair(np.array([1.0, -1.0, 2.0], dtype="float32"), True)
    mf, tf = mt.pow(base, mx).grad_fn, torch.pow(base, tx).grad_fn
    assert mf.name() == tf.name() == "PowBackward2"
    assert type(mf._saved_self) is type(tf._saved_self) and mf._saved_self == tf._saved_self
    names = sorted(n for n in dir(mf) if "saved" in n)
    assert names == sorted(n for n in dir(tf) if "saved" in n)
