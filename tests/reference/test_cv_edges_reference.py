"""tests/nn/test_cv_edges.py's cases against torch: interpolate with scale factors that leave
sizes unchanged (every mode and dimensionality), norms of an empty batch, gradient penalties
through prelu and padding, hardsigmoid's backward."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

_MODES = [
    ("linear", 1),
    ("bilinear", 2),
    ("trilinear", 3),
    ("bicubic", 2),
    ("nearest", 1),
    ("nearest", 2),
    ("nearest", 3),
    ("nearest-exact", 1),
    ("nearest-exact", 2),
    ("nearest-exact", 3),
    ("area", 1),
    ("area", 2),
    ("area", 3),
]
_SCALES = (0.5, 0.7, 0.95, 1.01, 1.05, 1.1, 1.2, 1.3, 1.45, 1.5, 1.9, 2.0, 2.1, 2.5, 3.0)


def _cases(n, seed, count=40):
    rng = np.random.default_rng(seed)
    cases = []
    while len(cases) < count:
        shape = tuple(int(v) for v in rng.integers(1, 10 if n < 3 else 6, n))
        scales = tuple(float(rng.choice(_SCALES)) for _ in range(n))
        if all(math.floor(L * s) >= 1 for L, s in zip(shape, scales, strict=True)):
            cases.append((shape, scales, bool(rng.integers(2))))
    return cases


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,n", _MODES, ids=[f"{m}-{n}d" for m, n in _MODES])
def test_interpolate_scale_factor_vs_torch(mode, n, dtype):
    rng = np.random.default_rng(7)
    for shape, scales, align in _cases(n, seed=len(mode) * 10 + n):
        x = rng.standard_normal((2, 3) + shape).astype(dtype)
        kw = dict(scale_factor=scales, mode=mode)
        if mode in ("linear", "bilinear", "trilinear", "bicubic"):
            kw["align_corners"] = align
        xt = torch.from_numpy(x).requires_grad_()
        xm = mt.tensor(x, requires_grad=True)
        yt, ym = TF.interpolate(xt, **kw), F.interpolate(xm, **kw)
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(
            ym.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol, err_msg=str(kw)
        )
        sizes = [(L, math.floor(L * s)) for L, s in zip(shape, scales, strict=True)]
        if mode == "bicubic" and any(o == L for L, o in sizes):
            continue  # torch's backward copies the dim its forward resampled (see interpolate)
        if mode == "nearest" and n != 2 and any(o in (L, 2 * L) for L, o in sizes):
            continue  # torch's backward copies (or halves) what its forward resampled
        g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
        yt.backward(torch.from_numpy(g))
        ym.backward(mt.tensor(g))
        np.testing.assert_allclose(
            xm.grad.numpy(), xt.grad.numpy(), rtol=tol, atol=tol, err_msg=f"grad {kw}"
        )


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("shape", [(0, 3, 2, 2), (2, 3, 0, 2)])
def test_batch_norm_empty_batch_vs_torch(shape, momentum):
    results = []
    for lib in (torch, mt):
        bn = lib.nn.BatchNorm2d(3, momentum=momentum)
        bn(lib.ones(4, 3, 2, 2) * lib.tensor([1.0, 2.0, 3.0]).view(1, 3, 1, 1))
        x = lib.zeros(shape, requires_grad=True)
        out = bn(x)
        out.sum().backward()
        results.append(
            [
                tuple(out.shape),
                bn.running_mean.detach().numpy().tolist(),
                bn.running_var.detach().numpy().tolist(),
                int(bn.num_batches_tracked),
                bn.weight.grad.numpy().tolist(),
                bn.bias.grad.numpy().tolist(),
            ]
        )
    for got, want in zip(results[1], results[0], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 0), (0, 3, 4)])
def test_instance_norm_empty_vs_torch(shape):
    stats = []
    for lib in (torch, mt):
        rm, rv = lib.tensor([0.5, -1.0, 2.0]), lib.tensor([1.5, 2.0, 3.0])
        lib.nn.functional.instance_norm(lib.zeros(shape), rm, rv)
        stats.append(np.concatenate([rm.numpy(), rv.numpy()]))
    np.testing.assert_array_equal(stats[1], stats[0])


_PENALTY_OPS = {
    "prelu1": lambda nn, y, p: nn.functional.prelu(y, p[:1]),
    "prelu2": lambda nn, y, p: nn.functional.prelu(y, p),
    "reflect": lambda nn, y, p: nn.functional.pad(y, (1, 2, 2, 1), mode="reflect"),
    "replicate": lambda nn, y, p: nn.functional.pad(y, (2, 1, 1, 0), mode="replicate"),
    "reflect1d": lambda nn, y, p: nn.functional.pad(y.flatten(2), (2, 3), mode="reflect"),
    "constant": lambda nn, y, p: nn.functional.pad(y, (1, 1, 1, 1)),
    "circular": lambda nn, y, p: nn.functional.pad(y, (1, 1, 1, 1), mode="circular"),
}


@pytest.mark.parametrize("name", list(_PENALTY_OPS))
def test_gradient_penalty_vs_torch(name):
    rng = np.random.default_rng(11)
    xv, wv, bv = (rng.standard_normal(s) for s in ((2, 2, 5, 5), (2, 2, 3, 3), (2,)))
    grads = []
    for lib in (torch, mt):
        x = lib.tensor(xv, requires_grad=True)
        w, b = lib.tensor(wv, requires_grad=True), lib.tensor(bv, requires_grad=True)
        p = lib.tensor([0.25, -0.5], dtype=lib.float64, requires_grad=True)
        out = _PENALTY_OPS[name](lib.nn, lib.nn.functional.conv2d(x, w, b, padding=1), p)
        gy = lib.tensor(np.random.default_rng(12).standard_normal(tuple(out.shape)))
        (gx,) = lib.autograd.grad((out * gy).sum(), x, create_graph=True)
        gx.sin().sum().backward()
        grads.append([None if t.grad is None else t.grad.numpy() for t in (x, w, b, p)])
    for gt, gm, what in zip(grads[0], grads[1], ("x", "weight", "bias", "prelu"), strict=True):
        assert (gm is None) == (gt is None), what
        if gt is not None:
            np.testing.assert_allclose(gm, gt, rtol=1e-10, atol=1e-12, err_msg=what)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_hardsigmoid_backward_vs_torch(dtype):
    rng = np.random.default_rng(13)
    x = rng.uniform(-4, 4, 5000).astype(np.float32)
    g = (rng.standard_normal(5000) * 10).astype(np.float32)
    out = []
    for lib in (torch, mt):
        dt = getattr(lib, dtype)
        xt = lib.tensor(x).to(dt).requires_grad_()
        lib.nn.functional.hardsigmoid(xt).backward(lib.tensor(g).to(dt))
        out.append(xt.grad.double().numpy())
    np.testing.assert_array_equal(out[1], out[0])
