"""Session 56, lead: the ops on the float32 log1p and expm1 kernels (NOTE [ Float32 log1p and
expm1 ] in minitorch/_backend/numpy_backend.py) against torch, on arrays big enough to take them
(tests/test_s56_log1p_expm1.py): values and gradients within a few float32 ulp, and the special
values (zeros with their signs, infinities, NaN) as torch's."""

import numpy as np
import pytest

import minitorch
from minitorch._backend import numpy_backend

torch = pytest.importorskip("torch")

N = 3 * numpy_backend._FAST_LOG1P_MIN
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 100.0, -100.0, 1e-8, -1e-8]


def _x():
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32) * 4
    x[: len(SPECIAL)] = SPECIAL
    return x


CASES = {
    "log1p": (lambda L, t: L.log1p(t), "abs"),
    "expm1": (lambda L, t: L.expm1(t), None),
    "elu": (lambda L, t: L.nn.functional.elu(t), None),
    "selu": (lambda L, t: L.nn.functional.selu(t), None),
    "celu": (lambda L, t: L.nn.functional.celu(t, 0.7), None),
    "softplus": (lambda L, t: L.nn.functional.softplus(t), None),
    "softplus_beta": (lambda L, t: L.nn.functional.softplus(t, 2.0, 30.0), None),
    "logsigmoid": (lambda L, t: L.nn.functional.logsigmoid(t), None),
    "mish": (lambda L, t: L.nn.functional.mish(t), None),
    "bce": (
        lambda L, t: L.nn.functional.binary_cross_entropy(
            t, L.full_like(t, 0.25), reduction="none"
        ),
        "prob",
    ),
}


def _run(lib, name, x):
    fn, domain = CASES[name]
    if domain == "abs":
        x = np.abs(x)
    elif domain == "prob":
        x = 1 / (1 + np.exp(-np.nan_to_num(x, nan=0.0)))
    t = lib.tensor(x, requires_grad=True)
    y = fn(lib, t)
    (gx,) = lib.autograd.grad(y, t, lib.ones_like(y))
    return y.detach().numpy(), gx.numpy()


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    x = _x()
    with np.errstate(all="ignore"):
        want = _run(torch, name, x)
        got = _run(minitorch, name, x)
    for what, w, g in zip(("value", "gradient"), want, got, strict=True):
        if what == "gradient":  # (not at NaN: torch's vector loops give the ELUs' NaN there,
            w, g = w[~np.isnan(x)], g[~np.isnan(x)]  # their scalar loops and minitorch 1)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{name} {what} NaN")
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w), err_msg=f"{name} {what} inf")
        ok = np.isfinite(w)
        # a derivative near 0 computed from a value near -1 (expm1's result + 1) keeps the
        # value's absolute error: a few ulp of 1
        atol = 6e-7 if what == "gradient" else 1e-30
        np.testing.assert_allclose(g[ok], w[ok], rtol=2e-6, atol=atol, err_msg=f"{name} {what}")
        zero = (w == 0) & ok
        np.testing.assert_array_equal(
            np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{name} {what} zero's sign"
        )
