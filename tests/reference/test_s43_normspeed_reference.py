"""The session-43 norm and loss kernels against PyTorch: log_softmax's backward, smooth_l1 and
huber (forward, both gradients, every reduction) and layer_norm's no-grad forward give torch's
values within the existing tests' tolerances (float32), and torch's exact zeros and signs where
those are exact."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401

MF = minitorch.nn.functional
TF = torch.nn.functional


def arrays(*shapes, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * scale).astype(np.float32) for s in shapes]


def both(a, requires_grad=False):
    return (
        minitorch.from_numpy(a.copy()).requires_grad_(requires_grad),
        torch.from_numpy(a.copy()).requires_grad_(requires_grad),
    )


def close(got, want, msg=""):
    got = got.detach().numpy() if hasattr(got, "detach") else got
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=msg)


@pytest.mark.parametrize("shape,dim", [((64, 33), -1), ((64, 33), 0), ((4, 10, 7), 1)])
def test_log_softmax_backward_vs_torch(shape, dim):
    x, g = arrays(shape, shape)
    (mx, tx), (mg, tg) = both(x, True), both(g)
    (mgx,) = minitorch.autograd.grad(MF.log_softmax(mx, dim), mx, mg)
    (tgx,) = torch.autograd.grad(TF.log_softmax(tx, dim), tx, tg)
    close(mgx, tgx, str((shape, dim)))
    assert mgx.is_contiguous()


@pytest.mark.parametrize("loss", ["smooth_l1", "huber"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("param", [1.0, 0.5, 2.5])
def test_regression_losses_vs_torch(loss, reduction, param):
    x, t, g = arrays((40, 30), (40, 30), (40, 30), scale=1.5)
    x[0, :3] = t[0, :3]  # d == 0
    x[1, :3] = t[1, :3] + param  # the branches' boundary
    (mx, tx), (mt, tt) = both(x, True), both(t, True)
    key = "beta" if loss == "smooth_l1" else "delta"
    mfn, tfn = getattr(MF, loss + "_loss"), getattr(TF, loss + "_loss")
    mo = mfn(mx, mt, reduction=reduction, **{key: param})
    to = tfn(tx, tt, reduction=reduction, **{key: param})
    close(mo, to, loss)
    mg, tg = both(g) if reduction == "none" else both(np.full((), 0.7, np.float32))
    mgr = minitorch.autograd.grad(mo, (mx, mt), mg)
    tgr = torch.autograd.grad(to, (tx, tt), tg)
    for a, b in zip(mgr, tgr, strict=True):
        close(a, b, loss + " grad")
        # exact zeros keep torch's signs (NOTE [ Regression losses' target gradient ])
        zero = b.numpy() == 0
        np.testing.assert_array_equal(np.signbit(a.numpy()[zero]), np.signbit(b.numpy()[zero]))
    with minitorch.no_grad():
        close(mfn(mx, mt, reduction=reduction, **{key: param}), to, loss + " no_grad")


@pytest.mark.parametrize("shape", [(300, 128), (2050, 16), (3, 512)])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm_no_grad_vs_torch(shape, affine):
    (x,) = arrays(shape)
    w, b = arrays(shape[-1:], shape[-1:], seed=1) if affine else (None, None)
    mx, tx = both(x)
    mw, tw = both(w) if affine else (None, None)
    mb, tb = both(b) if affine else (None, None)
    with minitorch.no_grad():
        got = MF.layer_norm(mx, shape[-1:], mw, mb)
    with torch.no_grad():
        want = TF.layer_norm(tx, shape[-1:], tw, tb)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
