"""The device routes of NOTE [ Fewer kernel launches on a device ] (minitorch/_ops/_common.py).

On a device (the strict test device stands for one here) a max pool whose windows tile the input
reads them as one (..., K) array whatever K, and a convolution's input gradient (a transposed
convolution) is one correlation over the spread-out input; the host keeps its per-tap routes.
Each device route must give the host route's values, indices and gradients.
"""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._ops import conv, pool
from minitorch.autograd import gradcheck, gradgradcheck


def _spy(monkeypatch, module, name, calls):
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)


def _pair(a, dtype=torch.float32):
    """a as a leaf on the CPU and on the strict device."""
    return [torch.tensor(a, dtype=dtype, device=d, requires_grad=True) for d in ("cpu", "strict")]


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_pool_tiles_on_device_only(monkeypatch, dims):
    calls = []
    _spy(monkeypatch, pool, "_tile_argmax", calls)
    rng = np.random.default_rng(dims)
    a = rng.standard_normal((2, 3) + (6,) * dims)
    a[0, 1, 2] = np.nan  # NaN windows: the last NaN is the tap (torch's choice)
    pool_fn = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[dims - 1]
    results = []
    for x in _pair(a, torch.float64):
        calls.clear()
        y, idx = pool_fn(x, 2, return_indices=True)
        y.backward(torch.arange(y.numel(), dtype=y.dtype, device=y.device).reshape(y.shape))
        results.append((y.detach().cpu().numpy(), idx.cpu().numpy(), x.grad.cpu().numpy()))
        assert calls == ([] if x.device.type == "cpu" else ["_tile_argmax"])
    for host, device in zip(*results, strict=True):
        np.testing.assert_array_equal(host, device)


def test_max_pool_device_tie_of_zeros_keeps_the_first_sign():
    # torch returns the first maximum: -0. here (the host's per-tap maximum keeps the last one)
    x = torch.tensor([[[-0.0, 0.0, -1.0, -2.0], [0.0, -0.0, -3.0, -4.0]]], device="strict")
    y = F.max_pool1d(x, 2)
    assert np.signbit(y.cpu().numpy()).tolist() == [[[True, True], [False, True]]]


def test_max_pool_device_double_backward(monkeypatch):
    calls = []
    _spy(monkeypatch, pool, "_at_taps", calls)
    rng = np.random.default_rng(5)
    x = torch.tensor(rng.standard_normal((1, 2, 4, 6)), device="strict", requires_grad=True)
    assert gradcheck(lambda t: F.max_pool2d(t, (2, 3)), (x,))
    assert gradgradcheck(lambda t: F.max_pool2d(t, (2, 3)), (x,))
    assert "_at_taps" in calls  # the forward's gather and TapGather's


@pytest.mark.parametrize(
    "dims, kw",
    [
        (1, dict(stride=2, padding=1, output_padding=1)),
        (2, dict(stride=1, padding=1)),
        (2, dict(stride=(2, 3), padding=(1, 0), dilation=(1, 2), groups=2, output_padding=(1, 0))),
        (3, dict(stride=2, groups=2)),
    ],
)
def test_conv_transpose_device_route(monkeypatch, dims, kw):
    calls = []
    _spy(monkeypatch, conv, "_transpose_by_columns", calls)
    rng = np.random.default_rng(dims)
    groups = kw.get("groups", 1)
    a = rng.standard_normal((2, 4) + (5,) * dims)
    w = rng.standard_normal((4, 6 // groups) + (3,) * dims)
    fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
    outs = []
    for x, wt in zip(_pair(a, torch.float64), _pair(w, torch.float64), strict=True):
        calls.clear()
        outs.append(fn(x, wt, **kw).detach().cpu().numpy())
        assert calls == ([] if x.device.type == "cpu" else ["_transpose_by_columns"])
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12, atol=1e-12)
    if dims < 3:
        x, wt = (torch.tensor(v, device="strict", requires_grad=True) for v in (a, w))
        assert gradcheck(lambda s, t: fn(s, t, **kw), (x, wt))
        assert gradgradcheck(lambda s, t: fn(s, t, **kw), (x, wt))


def test_conv_input_gradient_device_route(monkeypatch):
    # conv2d's input gradient is the transposed convolution: the device route there too
    calls = []
    _spy(monkeypatch, conv, "_transpose_by_columns", calls)
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((3, 4, 9, 8)), rng.standard_normal((6, 2, 3, 3))
    grads = []
    for x, wt in zip(_pair(a), _pair(w), strict=True):
        F.conv2d(x, wt, stride=2, padding=1, groups=2).square().sum().backward()
        grads.append(x.grad.cpu().numpy())
    assert calls == ["_transpose_by_columns"]
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_float32_update_rounded_once(device):
    # p.add_(g, alpha=-lr): the exact product and one rounding of the sum (NOTE [ Fused
    # multiply-adds ]), now in two passes
    rng = np.random.default_rng(1)
    p0 = rng.standard_normal(4096).astype(np.float32)
    g = rng.standard_normal(4096).astype(np.float32)
    p = torch.tensor(p0, device=device)
    p.add_(torch.tensor(g, device=device), alpha=-0.01)
    al = float(np.float32(-0.01))
    want = (p0.astype(np.float64) + g.astype(np.float64) * al).astype(np.float32)
    assert p._version == 1
    np.testing.assert_array_equal(p.cpu().numpy().view(np.int32), want.view(np.int32))
