"""Half-precision (float16/bfloat16) kernels rounded as torch 2.13's CPU kernels round them."""

from __future__ import annotations

import numpy as np

import minitorch
import minitorch.nn.functional as F


def _bf16_case():
    rng = np.random.default_rng(18)
    x = minitorch.tensor(rng.standard_normal((64, 32)).astype(np.float32)).bfloat16()
    w = minitorch.tensor(rng.standard_normal(32).astype(np.float32)).bfloat16()
    b = minitorch.tensor(rng.standard_normal(32).astype(np.float32)).bfloat16()
    g = minitorch.tensor(rng.standard_normal((64, 32)).astype(np.float32)).bfloat16()
    return x.requires_grad_(), w.requires_grad_(), b.requires_grad_(), g


def test_layer_norm_bf16_input_grad_reads_the_rounded_statistics():
    # torch 2.13's values (CPU): grad_input from the mean and rstd rounded to bfloat16
    x, w, b, g = _bf16_case()
    gx, gw, gb = minitorch.autograd.grad(F.layer_norm(x, (32,), w, b), [x, w, b], g)
    assert gx.dtype is minitorch.bfloat16 and gw.dtype is minitorch.bfloat16
    np.testing.assert_array_equal(
        gx[0, :4].float().numpy(), [0.255859375, -0.0206298828125, -0.150390625, 1.0234375]
    )
    # the weight/bias gradients: float32 sums rounded once (torch sums in bfloat16 per thread)
    xs, gs = x.detach().float().numpy(), g.float().numpy()
    xhat = (xs - xs.mean(1, keepdims=True)) / np.sqrt(xs.var(1, keepdims=True) + 1e-5)
    want_gb = minitorch.tensor(gs.sum(0)).bfloat16().float().numpy()
    np.testing.assert_array_equal(gb.float().numpy(), want_gb)
    np.testing.assert_allclose(gw.float().numpy(), (gs * xhat).sum(0), rtol=1e-2, atol=1e-2)


def test_layer_norm_fp16_backward_two_dims_no_affine():
    rng = np.random.default_rng(5)
    x = minitorch.tensor(rng.standard_normal((7, 3, 4)).astype(np.float32)).half()
    g = minitorch.tensor(rng.standard_normal((7, 3, 4)).astype(np.float32)).half()
    x.requires_grad_()
    (gx,) = minitorch.autograd.grad(F.layer_norm(x, (3, 4)), [x], g)
    # torch 2.13's values
    want = [
        -1.2578125,
        0.62451171875,
        -0.9375,
        0.320556640625,
        0.9765625,
        0.05181884765625,
        0.20703125,
        1.662109375,
        0.242919921875,
        -0.2093505859375,
        -1.4306640625,
        -0.249755859375,
    ]
    np.testing.assert_array_equal(gx.flatten()[:12].float().numpy(), want)
