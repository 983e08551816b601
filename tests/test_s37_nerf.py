"""Session 37 (helper nerf): torch-free regression tests of the library fix the NeRF programs of
tests/reference/test_s37_nerf_reference.py found: set_default_tensor_type reads a name as
torch's _import_dotted_name does (the first component imported, the rest attributes), so a
mistyped name raises torch's ModuleNotFoundError/ValueError/AttributeError; and a NeRF render
step (rays, stratified samples, alpha compositing by cumprod with an exclusive shift,
inverse-CDF resampling by searchsorted/gather, sort of merged samples, cumprod's double
backward at zeros) on the strict test device, equal to the CPU's and without host reads.
torch's messages are written here as literals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend import strict


@pytest.fixture(autouse=True)
def _restore_default_dtype(monkeypatch):
    # warn_always: the deprecation warning is given here without using up its once-per-process
    # flag (tests/reference/test_s28_render_reference.py records the first one)
    monkeypatch.setitem(mt._settings._state, "warn_always", True)
    yield
    mt.set_default_dtype(mt.float32)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize(
    "name, exc_type, message",
    [
        ("float", ModuleNotFoundError, "No module named 'float'"),
        ("", ValueError, "Empty module name"),
        (".x", ValueError, "Empty module name"),
        ("torch..FloatTensor", AttributeError, "module 'minitorch' has no attribute ''"),
        ("torch.Foo", AttributeError, "module 'minitorch' has no attribute 'Foo'"),
        ("torch.cuda.Foo", AttributeError, "module 'minitorch.cuda' has no attribute 'Foo'"),
        (
            "os.path",
            TypeError,
            "invalid type object: only floating-point types are supported as the default type",
        ),
        (
            "torch.nn.Linear",
            TypeError,
            "invalid type object: only floating-point types are supported as the default type",
        ),
        (
            "numpy.float32",
            TypeError,
            "invalid type object: only floating-point types are supported as the default type",
        ),
    ],
)
def test_set_default_tensor_type_names(name, exc_type, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _message(exc_type, lambda: mt.set_default_tensor_type(name)) == message
    assert mt.get_default_dtype() is mt.float32


def test_set_default_tensor_type_dotted_names_resolve():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mt.set_default_tensor_type("torch.DoubleTensor")
        assert mt.get_default_dtype() is mt.float64
        assert mt.Tensor([10.0]).dtype is mt.float64
        mt.set_default_tensor_type("torch.FloatTensor")
        assert mt.get_default_dtype() is mt.float32
        if not mt.cuda.is_available():
            msg = _message(TypeError, lambda: mt.set_default_tensor_type("torch.cuda.FloatTensor"))
            assert msg == (
                "type torch.cuda.FloatTensor not available. Torch not compiled with CUDA enabled."
            )


# --- a NeRF render step on the strict test device ---


def _render_step(dev):
    dt = mt.float64
    gen = mt.Generator().manual_seed(1)
    raw = mt.randn(4, 6, 4, generator=gen, dtype=dt).to(dev).requires_grad_(True)
    rays_d = mt.randn(4, 3, generator=gen, dtype=dt).to(dev)
    t = mt.linspace(0.0, 1.0, 6, dtype=dt, device=dev)
    z = (2.0 * (1.0 - t) + 6.0 * t).expand(4, 6)
    dists = mt.cat([z[..., 1:] - z[..., :-1], mt.full((4, 1), 1e10, dtype=dt, device=dev)], -1)
    dists = dists * mt.norm(rays_d[..., None, :], dim=-1)
    alpha = 1.0 - mt.exp(-mt.nn.functional.relu(raw[..., 3]) * dists)
    ones = mt.ones((4, 1), dtype=dt, device=dev)
    trans = mt.cumprod(mt.cat([ones, 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    weights = alpha * trans
    rgb = mt.sum(weights[..., None] * mt.sigmoid(raw[..., :3]), -2)
    # inverse-CDF resampling
    bins = (0.5 * (z[..., 1:] + z[..., :-1])).clone().requires_grad_(True)
    w = weights.detach()[..., 1:-1] + 1e-5
    cdf = mt.cumsum(w / w.sum(-1, keepdim=True), -1)
    cdf = mt.cat([mt.zeros_like(cdf[..., :1]), cdf], -1)
    u = mt.linspace(0.05, 0.95, 5, dtype=dt, device=dev).expand(4, 5).contiguous()
    inds = mt.searchsorted(cdf, u, right=True)
    below = mt.clamp(inds - 1, min=0)
    above = mt.clamp(inds, max=cdf.shape[-1] - 1)
    inds_g = mt.stack([below, above], -1)
    shape = [4, 5, cdf.shape[-1]]
    cdf_g = mt.gather(cdf.unsqueeze(1).expand(shape), 2, inds_g)
    bins_g = mt.gather(bins.unsqueeze(1).expand(shape), 2, inds_g)
    denom = cdf_g[..., 1] - cdf_g[..., 0]
    denom = mt.where(denom < 1e-5, mt.ones_like(denom), denom)
    samples = bins_g[..., 0] + (u - cdf_g[..., 0]) / denom * (bins_g[..., 1] - bins_g[..., 0])
    z_all, _ = mt.sort(mt.cat([z, samples], -1), -1)
    loss = ((rgb - 0.5) ** 2).mean() + (z_all * mt.arange(11, dtype=dt, device=dev)).mean()
    loss.backward()
    # cumprod's first and second derivatives at zeros (opaque samples)
    x = mt.rand(3, 5, generator=gen, dtype=dt).to(dev)
    x[0, 1] = 0.0
    x[2, 0] = 0.0
    x[2, 3] = 0.0
    x.requires_grad_(True)
    (g,) = mt.autograd.grad((mt.cumprod(x, 1) * x.detach()).sum(), x, create_graph=True)
    (gg,) = mt.autograd.grad((g * g).sum(), x)
    return [rgb, weights, inds, samples, z_all, raw.grad, bins.grad, g, gg]


def test_render_step_on_strict_device_matches_cpu():
    want = [t.detach().numpy() for t in _render_step("cpu")]
    with strict.count_transfers() as transfers:
        got = _render_step("strict")
    assert transfers.count == 0
    for i, (a, t) in enumerate(zip(want, got, strict=True)):
        assert t.device.type == "strict"
        np.testing.assert_allclose(t.detach().cpu().numpy(), a, rtol=1e-12, atol=1e-12, err_msg=i)
