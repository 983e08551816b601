"""The fused kernels' array paths at sizes where they switch to matrix-vector row sums.

layer_norm, softmax and log_softmax sum rows of 16K+ element arrays through a matrix-vector
product (minitorch/_ops/nn_kernels.py _sum_last); the op table checks them on small shapes,
where NumPy's own reduction runs. Here: forward and first-order backward (computed on arrays,
with grad mode off) against NumPy formulas in float64, on every device.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import nn_kernels

SHAPE = (40, 30, 24)  # 28,800 elements, rows of 24


def _arrays(seed, *shapes):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _tensor(a, device, grad=False):
    return mt.tensor(a, device=device, requires_grad=grad)


def test_big_arrays_take_the_matrix_vector_path():
    x = np.ones(SHAPE)
    assert x.size >= 1 << 14
    calls = []
    real = np.matmul

    def spy(*args, **kwargs):
        calls.append(args[0].shape)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(np, "matmul", spy)
        out = nn_kernels._sum_last(np, x)
    assert calls and out.shape == SHAPE[:-1] + (1,)
    np.testing.assert_array_equal(out, 24.0)


def test_layer_norm_big(device):
    x, w, b, g = _arrays(0, SHAPE, SHAPE[-1:], SHAPE[-1:], SHAPE)
    xt, wt, bt = (_tensor(a, device, True) for a in (x, w, b))
    out = mt.nn.functional.layer_norm(xt, SHAPE[-1:], wt, bt, eps=1e-5)
    gx, gw, gb = mt.autograd.grad(out, (xt, wt, bt), _tensor(g, device))

    mu = x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    xhat = (x - mu) * rstd
    np.testing.assert_allclose(out.detach().cpu().numpy(), xhat * w + b, rtol=1e-10, atol=1e-10)
    gh = g * w
    want_gx = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    np.testing.assert_allclose(gx.cpu().numpy(), want_gx, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gw.cpu().numpy(), (g * xhat).sum((0, 1)), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(gb.cpu().numpy(), g.sum((0, 1)), rtol=1e-9, atol=1e-9)


def _layer_norm_ref(x, w, b, g, eps=1e-5):
    """out, gx, gw, gb of layer_norm over the last dim, in float64."""
    mu = x.mean(-1, keepdims=True)
    rstd = 1 / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + eps)
    xhat = (x - mu) * rstd
    out = xhat * (1 if w is None else w) + (0 if b is None else b)
    gh = g * (1 if w is None else w)
    gx = rstd * (gh - gh.mean(-1, keepdims=True) - xhat * (gh * xhat).mean(-1, keepdims=True))
    lead = tuple(range(x.ndim - 1))
    return out, gx, (g * xhat).sum(lead), g.sum(lead)


# NOTE [ Blocked LayerNorm ]: on the CPU, blocks of rows of about 32768 elements. (700, 128):
# blocks of 234, 234 and 232 rows; (4, 5, 5000): rows longer than the matrix-vector row sums
# take (pairwise sums instead), in blocks of 7, 7 and 6 rows; (20, 24): one block.
@pytest.mark.parametrize("shape", [(700, 128), (4, 5, 5000), (20, 24)])
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
@pytest.mark.parametrize("wants", ["all", "input", "params"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_layer_norm_blocks(device, shape, affine, wants, dtype):
    if wants == "params" and affine == "none":
        pytest.skip("nothing requires grad")
    x, w, b, g = _arrays(3, shape, shape[-1:], shape[-1:], shape)
    x = x * 3 + 2  # rows with a mean
    w = w if affine in ("both", "weight") else None
    b = b if affine in ("both", "bias") else None
    dt = getattr(mt, dtype)

    def tensor(a, grad):
        return None if a is None else mt.tensor(a, dtype=dt, device=device, requires_grad=grad)

    xt = tensor(x, wants in ("all", "input"))
    wt, bt = tensor(w, wants != "input"), tensor(b, wants != "input")
    out = mt.nn.functional.layer_norm(xt, shape[-1:], wt, bt)
    want_out, *want_grads = _layer_norm_ref(x, w, b, g)
    pairs = [(t, want) for t, want in zip((xt, wt, bt), want_grads, strict=True) if t is not None]
    pairs = [(t, want) for t, want in pairs if t.requires_grad]
    grads = mt.autograd.grad(out, [t for t, _ in pairs], tensor(g, False))
    tol = dict(rtol=1e-9, atol=1e-9) if dtype == "float64" else dict(rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(out.detach().cpu().numpy(), want_out, **tol)
    for got, (_, want) in zip(grads, pairs, strict=True):
        np.testing.assert_allclose(got.cpu().numpy(), want, **tol)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_big(device, log):
    x, g = _arrays(1, SHAPE, SHAPE)
    xt = _tensor(x * 5, device, True)
    out = (mt.log_softmax if log else mt.softmax)(xt, -1)
    (gx,) = mt.autograd.grad(out, xt, _tensor(g, device))

    z = x * 5 - (x * 5).max(-1, keepdims=True)
    y = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    if log:
        want, want_gx = np.log(y), g - y * g.sum(-1, keepdims=True)
    else:
        want, want_gx = y, y * (g - (g * y).sum(-1, keepdims=True))
    np.testing.assert_allclose(out.detach().cpu().numpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gx.cpu().numpy(), want_gx, rtol=1e-9, atol=1e-12)


# --- matmul operands BLAS cannot read in place (linalg.blas_ready) ---


def test_blas_ready_tells_what_blas_cannot_read():
    from minitorch._ops.linalg import blas_ready

    a = np.ones((64, 256), np.float32)
    assert blas_ready(a)
    assert blas_ready(a.T)  # a transpose is read as is
    assert blas_ready(a[:, :50])  # rows longer than the slice: fine
    for odd in (np.broadcast_to(np.float32(1), (64, 256)), a[:, ::2], a[::-1]):
        assert not blas_ready(odd)


@pytest.mark.parametrize("case", ["expanded", "stepped", "batched-expanded"])
def test_matmul_of_operands_blas_cannot_read(device, case):
    rng = np.random.default_rng(3)
    w, g = rng.standard_normal((130, 90)), rng.standard_normal((3, 70, 90))
    x = rng.standard_normal({"expanded": (1, 130), "stepped": (70, 260)}.get(case, (1, 70, 130)))
    xt, wt = (mt.tensor(a, device=device, requires_grad=True) for a in (x, w))
    if case == "expanded":  # zero row stride
        a, view, g = np.broadcast_to(x, (70, 130)), xt.expand(70, 130), g[0]
    elif case == "stepped":  # column stride of two elements
        a, view, g = x[:, ::2], xt[:, ::2], g[0]
    else:  # a zero batch stride
        a, view = np.broadcast_to(x, (3, 70, 130)), xt.expand(3, 70, 130)
    out = view @ wt
    np.testing.assert_allclose(out.detach().cpu().numpy(), a @ w, rtol=1e-12, atol=1e-12)
    out.backward(mt.tensor(g, device=device))
    gx = g @ w.T
    if case == "stepped":
        want_x = np.zeros_like(x)
        want_x[:, ::2] = gx
    else:  # summed over the expanded dim
        want_x = gx.sum(0, keepdims=True)
    want_w = a.reshape(-1, 130).T @ g.reshape(-1, 90)
    np.testing.assert_allclose(xt.grad.cpu().numpy(), want_x, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(wt.grad.cpu().numpy(), want_w, rtol=1e-10, atol=1e-10)


# --- 2-D products: `dot` below linalg._DOT_MAX multiply-adds, xp.matmul above ---


@pytest.mark.parametrize("shapes", [((16, 64), (64, 64)), ((130, 90), (90, 100))])
@pytest.mark.parametrize("transposed", [False, True])
def test_products_on_both_sides_of_the_gemm_switch(device, shapes, transposed):
    from minitorch._ops import linalg

    (m, k), (_, n) = shapes
    assert (m * k * n < linalg._DOT_MAX) == (shapes[0] == (16, 64))
    rng = np.random.default_rng(4)
    x, w, b, g = (
        rng.standard_normal(s) for s in ((m, k), (n, k) if transposed else (k, n), n, (m, n))
    )
    xt, wt, bt = (mt.tensor(a, device=device, requires_grad=True) for a in (x, w, b))
    out = mt.nn.functional.linear(xt, wt, bt) if transposed else xt @ wt + bt
    ww = w.T if transposed else w
    np.testing.assert_allclose(out.detach().cpu().numpy(), x @ ww + b, rtol=1e-12, atol=1e-12)
    out.backward(mt.tensor(g, device=device))
    np.testing.assert_allclose(xt.grad.cpu().numpy(), g @ ww.T, rtol=1e-12, atol=1e-12)
    gw = x.T @ g
    np.testing.assert_allclose(
        wt.grad.cpu().numpy(), gw.T if transposed else gw, rtol=1e-12, atol=1e-12
    )


# --- the row max that shifts softmax, log_softmax and logsumexp (reduction.max_last) ---


# the transposed copy: (256, 10), (40000, 4), (32, 64, 64); argmax and a gather: (300, 96),
# (8192, 64), (70, 200); NumPy's max: (3, 4), (2, 5, 7), (50, 97), (100, 600), (5,)
@pytest.mark.parametrize(
    "shape",
    [(256, 10), (40000, 4), (32, 64, 64), (300, 96), (8192, 64), (70, 200), (3, 4), (2, 5, 7)]
    + [(50, 97), (100, 600), (5,)],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_last_is_numpys_row_max(shape, dtype, kind):
    from minitorch._ops.reduction import max_last

    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    if x.ndim > 1 and dtype != "int64":  # specials in some rows
        x.reshape(-1, shape[-1])[1, 0] = np.nan
        x.reshape(-1, shape[-1])[2, :] = -np.inf
        x.reshape(-1, shape[-1])[0, :] = np.inf
        x.reshape(-1, shape[-1])[-1, -1] = np.inf
    for a in (x, x[..., ::-1]):  # contiguous and not
        got = max_last(np, a, kind)
        want = a.max(axis=-1, keepdims=True) if kind == "max" else a.min(axis=-1, keepdims=True)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == a.dtype


@pytest.mark.parametrize("shape", [(256, 10), (300, 96), (3, 4)])  # the three paths of max_last
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_over_the_last_dim(device, shape, keepdim):
    rng = np.random.default_rng(8)
    x = np.round(rng.standard_normal(shape) * 2)  # ties within rows share the gradient
    x[1, 0] = np.nan
    for op, ref in (("amax", np.max), ("amin", np.min)):
        xt = _tensor(x, device).requires_grad_()
        out = getattr(mt, op)(xt, -1, keepdim=keepdim)
        want = ref(x, axis=-1, keepdims=keepdim)
        np.testing.assert_array_equal(out.detach().cpu().numpy(), want)
        g = rng.standard_normal(want.shape)
        out.backward(_tensor(g, device))
        m = ref(x, axis=-1, keepdims=True)
        hit = x == m
        g_keep = g if keepdim else g[:, None]
        want_grad = np.where(hit, g_keep / np.maximum(hit.sum(-1, keepdims=True), 1), 0.0)
        want_grad[np.isnan(m[:, 0])] = np.nan  # a nan row: no element equals its max (torch)
        np.testing.assert_allclose(xt.grad.cpu().numpy(), want_grad, rtol=1e-12, atol=0)
    ints = _tensor(x[2:], device).nan_to_num().long()
    assert mt.amin(ints, 1).tolist() == np.min(np.nan_to_num(x[2:]).astype(np.int64), 1).tolist()


def test_short_row_softmax_and_logsumexp(device):
    # (40, 10) takes max_last's transposed path; one row holds a nan, one is all -inf
    rng = np.random.default_rng(6)
    x = rng.standard_normal((40, 10)) * 30
    x[3, 2], x[5] = np.nan, -np.inf
    xt = _tensor(x, device)
    with np.errstate(invalid="ignore"):
        z = x - x.max(-1, keepdims=True)
        y = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
        log_y = z - np.log(np.exp(z).sum(-1, keepdims=True))
        m = np.where(np.isinf(x.max(-1, keepdims=True)), 0, x.max(-1, keepdims=True))
        lse = (np.log(np.exp(x - m).sum(-1, keepdims=True)) + m)[:, 0]
    np.testing.assert_allclose(mt.softmax(xt, -1).cpu().numpy(), y, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(mt.log_softmax(xt, -1).cpu().numpy(), log_y, rtol=1e-12)
    np.testing.assert_allclose(mt.logsumexp(xt, -1).cpu().numpy(), lse, rtol=1e-12)
