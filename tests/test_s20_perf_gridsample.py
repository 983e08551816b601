"""grid_sample reads its taps as channel rows of a pixel table (NOTE [ grid_sample's taps ]):
values and gradients against torch's, the zero row read outside the input, and that path."""

import numpy as np
import pytest

import minitorch as torch
from minitorch import _ops
from minitorch.autograd import gradcheck, gradgradcheck

F = torch.nn.functional


def _inputs():
    x = torch.arange(12, dtype=torch.float64).reshape(1, 1, 3, 4) * 0.5 - 1
    x = torch.cat([x, -x * x], 1)  # channel 1 holds a -0.0
    g = torch.tensor(
        [[[[0.25, -0.5], [1.2, 0.9], [-1.5, 0.0], [0.25, -0.5]]]], dtype=torch.float64
    )  # a point partly outside, one fully outside, and a repeated point
    go = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=torch.float64).reshape(1, 1, 1, 4)
    go = go * torch.tensor([1.0, 0.25], dtype=torch.float64).reshape(1, 2, 1, 1)
    return x, g, go


# torch 2.13 (CPU), padding_mode="zeros", align_corners=False: output, grad input, grad grid
EXPECTED = {
    "bilinear": (
        [[[[0.5, 0.29249999999999915, 0.0, 0.5]], [[-1.0, -1.3162499999999961, 0.0, -1.0]]]],
        [
            [
                [[0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, -0.12999999999999962]],
                [
                    [0.0, 0.0, 0.75, 0.0],
                    [0.0, 0.0, 0.25, 0.0],
                    [0.0, 0.0, 0.0, -0.032499999999999904],
                ],
            ]
        ],
        [[[[0.625, 1.5], [-1.4625000000000004, -0.1687499999999994], [0.0, 0.0], [1.875, 4.5]]]],
    ),
    "nearest": (
        [[[[0.0, 0.0, 0.0, 0.0]], [[-0.0, 0.0, 0.0, -0.0]]]],
        [
            [
                [[0.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
            ]
        ],
        [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]],
    ),
    "bicubic": (
        [
            [
                [[0.3828125, 0.2665860234374996, -0.09375, 0.3828125]],
                [[-0.484375, -1.255611246093748, 0.09375, -0.484375]],
            ]
        ],
        [
            [
                [
                    [0.0, 0.0, 3.515625, 0.0],
                    [-0.046875, 0.0, 1.045377765625, 0.019685859374999965],
                    [0.0, 0.0, -0.13012242187500028, -0.13808945312499957],
                ],
                [
                    [0.0, 0.0, 0.87890625, 0.0],
                    [-0.01171875, 0.0, 0.26134444140625, 0.004921464843749991],
                    [0.0, 0.0, -0.03253060546875007, -0.03452236328124989],
                ],
            ]
        ],
        [
            [
                [
                    [1.37109375, 1.8984375],
                    [-2.1368450390625013, -0.17267291015624897],
                    [-0.140625, -0.10546875],
                    [4.11328125, 5.6953125],
                ]
            ]
        ],
    ),
}


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_values_and_grads_match_torch(mode):
    x, g, go = _inputs()
    x.requires_grad_()
    g.requires_grad_()
    out = F.grid_sample(x, g, mode=mode, padding_mode="zeros", align_corners=False)
    gx, gg = torch.autograd.grad(out, (x, g), go)
    want_out, want_gx, want_gg = EXPECTED[mode]
    # the values agree to the last bit but for bilinear's grid gradient and bicubic's values,
    # which minitorch sums in another order
    np.testing.assert_allclose(out.detach().numpy(), want_out, rtol=1e-14, atol=0)
    assert np.array_equal(np.signbit(out.detach().numpy()), np.signbit(np.array(want_out)))
    assert out.is_contiguous() and out.shape == (1, 2, 1, 4)
    np.testing.assert_allclose(gx.numpy(), want_gx, rtol=1e-14, atol=0)
    np.testing.assert_allclose(gg.numpy(), want_gg, rtol=1e-14, atol=0)


def test_taps_read_channel_rows_not_a_per_channel_gather(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("per-channel gather")

    monkeypatch.setattr(_ops, "gather", refuse)
    x, g, go = _inputs()
    x.requires_grad_()
    for mode in ("bilinear", "nearest", "bicubic"):
        out = F.grid_sample(x, g, mode=mode, align_corners=False)
        torch.autograd.grad(out, (x,), go)
        np.testing.assert_allclose(out.detach().numpy(), EXPECTED[mode][0], rtol=1e-14, atol=0)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_gradcheck_3d(mode, padding_mode):
    r = np.random.default_rng(0)
    x = torch.tensor(r.standard_normal((1, 2, 2, 3, 2)), requires_grad=True)
    g = torch.tensor(r.uniform(-1.2, 1.2, (1, 1, 2, 2, 3)), requires_grad=True)

    def f(x, g):
        return F.grid_sample(x, g, mode=mode, padding_mode=padding_mode, align_corners=False)

    assert gradcheck(f, (x, g))
    if padding_mode == "zeros":
        assert gradgradcheck(f, (x, g))


def test_gradcheck_2d_noncontiguous_input():
    r = np.random.default_rng(1)
    x = torch.tensor(r.standard_normal((2, 3, 5, 4))).transpose(2, 3).requires_grad_()
    g = torch.tensor(r.uniform(-1.2, 1.2, (2, 3, 2, 2)), requires_grad=True)

    def f(x, g):
        return F.grid_sample(x, g, mode="bilinear", align_corners=True)

    assert gradcheck(f, (x, g))
    assert gradgradcheck(f, (x, g))


@pytest.mark.parametrize("shapes", [((0, 2, 3, 3), (0, 2, 2, 2)), ((2, 0, 3, 3), (2, 4, 1, 2))])
def test_empty_batch_or_channels(shapes):
    x = torch.zeros(shapes[0], requires_grad=True)
    g = torch.zeros(shapes[1], requires_grad=True)
    out = F.grid_sample(x, g, align_corners=False)
    assert out.shape == (shapes[0][0], shapes[0][1], *shapes[1][1:3])
    gx, gg = torch.autograd.grad(out.sum(), (x, g))
    assert gx.shape == x.shape and gg.shape == g.shape
