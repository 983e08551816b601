"""ConvTranspose one kernel tap at a time (conv3d's input gradient, conv_transpose3d): the route
taken, values vs torch (literals obtained from torch 2.13) and float64 gradients."""

import numpy as np

import minitorch as torch
import minitorch._ops.conv as conv
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


def _spy(monkeypatch, name, calls):
    real = getattr(conv, name)

    def wrapper(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(conv, name, wrapper)


def test_conv3d_input_grad_goes_by_taps(monkeypatch):
    # (2, 16, 16^3) into 16 channels, 3x3x3: a 14 MB column matrix, so one GEMM per tap, and
    # not the wide route (its junk columns are 27% more work in 3-d)
    calls = []
    for name in ("_col2im_taps", "_col2im_wide", "col2im"):
        _spy(monkeypatch, name, calls)
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 16, 16, 16, 16)).astype(np.float32)
    w = (rng.standard_normal((16, 16, 3, 3, 3)) * 0.1).astype(np.float32)
    r = rng.standard_normal((2, 16, 16, 16, 16))
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    y = F.conv3d(xt, wt, None, 1, 1)
    gx, gw = torch.autograd.grad(y, (xt, wt), torch.tensor(r.astype(np.float32)))
    assert calls == ["_col2im_taps"]
    assert gx.dtype == torch.float32 and gx.shape == (2, 16, 16, 16, 16)
    # torch's float64 values for the same (float32-rounded) inputs
    np.testing.assert_allclose(
        (gx.numpy().astype(np.float64) * r).sum(), 1849.4896160781393, rtol=1e-5
    )
    np.testing.assert_allclose(
        gx.numpy()[1, 3, 0, 5, :4],
        [-1.6679945442613502, 0.44899640267456975, 2.9235132413499545, -0.5751112465137405],
        rtol=1e-5,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        gw.numpy()[2, 5, 1, :, 2],
        [144.1260283319014, 35.84755150779062, -38.58770906270646],
        rtol=1e-5,
    )


def test_conv_transpose3d_by_taps_strided_grouped_dilated(monkeypatch):
    monkeypatch.setattr(conv, "TAPS_MIN_BYTES", 0)
    calls = []
    _spy(monkeypatch, "_col2im_taps", calls)
    rng = np.random.default_rng(21)
    rng.standard_normal((2, 16, 16, 16, 16))  # the first test's draws: the same numbers as torch's
    rng.standard_normal((16, 16, 3, 3, 3))
    rng.standard_normal((2, 16, 16, 16, 16))
    x = torch.tensor(rng.standard_normal((2, 8, 5, 6, 4)))
    w = torch.tensor(rng.standard_normal((8, 3, 3, 2, 3)))
    y = F.conv_transpose3d(x, w, None, (2, 1, 2), (1, 0, 1), (1, 0, 0), 2, (1, 2, 1))
    assert calls == ["_col2im_taps"]
    assert y.shape == (2, 6, 10, 8, 7)
    np.testing.assert_allclose(
        y.numpy()[1, 4, :3, 2, 3],
        [-0.963932282303885, -2.870353531283257, -3.1292475202980032],
        rtol=1e-12,
    )
    np.testing.assert_allclose(float(y.sum()), -430.4597031194379, rtol=1e-12)
    np.testing.assert_allclose(float((y**2).sum()), 91351.00020006976, rtol=1e-12)


def test_taps_route_gradients_float64(monkeypatch):
    monkeypatch.setattr(conv, "TAPS_MIN_BYTES", 0)
    calls = []
    _spy(monkeypatch, "_col2im_taps", calls)
    rng = np.random.default_rng(3)

    def t(*shape):
        return torch.tensor(rng.standard_normal(shape), requires_grad=True)

    x, w, b = t(1, 4, 3, 4, 3), t(4, 1, 2, 2, 2), t(2)
    kw = dict(stride=(2, 1, 2), padding=(1, 0, 0), output_padding=(1, 0, 0), groups=2)
    kw["dilation"] = (1, 2, 1)
    fn = lambda *a: F.conv_transpose3d(*a, **kw)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    # conv3d's input gradient is the transposed convolution: by taps in stride 1 too
    x, w = t(2, 2, 4, 3, 4), t(3, 2, 3, 2, 3)
    conv3 = lambda *a: F.conv3d(*a, padding=1, dilation=(1, 2, 1))  # noqa: E731
    assert gradcheck(conv3, (x, w))
    assert gradgradcheck(conv3, (x, w))
    assert "_col2im_taps" in calls


def test_device_route_no_host_reads_on_strict(monkeypatch):
    # a device takes one correlation over the spread input, whatever the size (NOTE [ Fewer
    # kernel launches on a device ]): not the taps, even where the host would
    from minitorch._backend.strict import count_transfers

    monkeypatch.setattr(conv, "TAPS_MIN_BYTES", 0)
    calls = []
    _spy(monkeypatch, "_col2im_taps", calls)
    _spy(monkeypatch, "_transpose_by_columns", calls)
    torch.manual_seed(0)
    x = torch.randn(2, 4, 5, 6, 5, device="strict", requires_grad=True)
    w = torch.randn(6, 2, 3, 3, 3, device="strict", requires_grad=True)
    with count_transfers() as moved:
        F.conv3d(x, w, padding=1, groups=2).sum().backward()
    assert moved.count == 0
    assert calls == ["_transpose_by_columns"]
    assert x.grad.device == torch.device("strict")
