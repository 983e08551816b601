"""Session 29 (helper opt): torch-free checks of the building blocks the optimisation programs in
tests/reference/test_s29_opt_reference.py lean on: the subgradients torch picks at kinks (abs,
clamp, max/median ties, norms at zero), and torch.optim.LBFGS's strong-Wolfe state after one step.
The session found no library difference in this domain; the values below are torch 2.13's, so
these keep the behaviour pinned where torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


@pytest.mark.parametrize(
    "name, fn, want",
    [
        ("abs", lambda x: x.abs().sum(), [-1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
        ("clamp", lambda x: x.clamp(0.0, 2.0).sum(), [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
        ("max", lambda x: x.max(), [0.0, 0.0, 0.0, 0.5, 0.5, 0.0]),
        ("max_dim", lambda x: x.view(2, 3).max(dim=1).values.sum(), [0, 1.0, 0, 1.0, 0, 0]),
        ("norm", lambda x: (x * mt.tensor([0, 1, 1, 0, 0, 0.0], dtype=F64)).norm(), [0.0] * 6),
        ("median", lambda x: x.median(), [0.0, 0.5, 0.5, 0.0, 0.0, 0.0]),
        ("maximum", lambda x: mt.maximum(x, mt.zeros_like(x)).sum(), [0, 0.5, 0.5, 1, 1, 1]),
        ("vnorm_inf", lambda x: mt.linalg.vector_norm(x, ord=float("inf")), [0, 0, 0, 0.5, 0.5, 0]),
    ],
)
def test_subgradients_at_kinks(name, fn, want):
    x = mt.tensor([-1.0, 0.0, 0.0, 2.0, 2.0, 0.5], dtype=F64, requires_grad=True)
    fn(x).backward()
    _close(x.grad, want, name)


def test_lbfgs_strong_wolfe_state_after_one_step():
    w = mt.tensor([-1.2, 1.0, -0.5, 0.3], dtype=F64, requires_grad=True)
    opt = mt.optim.LBFGS([w], lr=1, max_iter=6, history_size=4, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = (5 * (w[1:] - w[:-1] ** 2) ** 2 + (1 - w[:-1]) ** 2).sum() + 0.1 * (w**4).sum()
        loss.backward()
        return loss

    np.testing.assert_allclose(opt.step(closure).item(), 19.634919999999997, rtol=1e-13)
    st = opt.state[w]
    assert (st["n_iter"], st["func_evals"]) == (6, 8)
    np.testing.assert_allclose(float(st["t"]), 0.5440803751335278, rtol=1e-9)
    want_d = [1.420802935448461, -0.20298884566463637, 0.04031816332033251, 0.13605620436339902]
    np.testing.assert_allclose(st["d"].numpy(), want_d, rtol=1e-9)
    want_w = [0.5016461498793455, 0.26657727343334975, 0.32324189232833994, 0.16003937796195702]
    np.testing.assert_allclose(w.detach().numpy(), want_w, rtol=1e-9)
    np.testing.assert_allclose(closure().item(), 1.5867774331817044, rtol=1e-9)


def test_soft_threshold_and_simplex_projection():
    v = mt.tensor([0.3, -1.2, 2.0, 0.05, -0.4], dtype=F64)
    soft = mt.sign(v) * mt.clamp(v.abs() - 0.25, min=0)
    _close(soft, [0.04999999999999999, -0.95, 1.75, 0.0, -0.15000000000000002])
    _close(mt.nn.functional.softshrink(v, 0.25), soft)
    u, _ = mt.sort(v, descending=True)
    css = mt.cumsum(u, 0) - 1
    ind = mt.arange(1, 6, dtype=F64)
    rho = ((u - css / ind > 0) * ind).argmax()
    p = mt.clamp(v - css[rho] / (rho + 1), min=0)
    _close(p, [0.0, 0.0, 1.0, 0.0, 0.0])
