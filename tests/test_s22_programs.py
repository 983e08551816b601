"""Session 22: tutorial-style training programs run under torch and minitorch (see
tests/reference/test_s22_programs_reference.py); what they found, pinned with torch 2.13's values.

The spatial-transformer tutorial starts from an identity theta, so affine_grid puts every sample on
a pixel centre and grid_sample's floor() decides which pixel pair the grid's gradient comes from:
an ulp either way changes theta's gradient and the whole training run. torch builds the base grid
as linspace(-1, 1, n) * (n - 1) / n and its 2-d CPU kernel unnormalises with one rounding
((g + 1) * n / 2 - 0.5 fused); its 3-d kernel rounds each step. A Gumbel-softmax VAE drew other
noise: torch's gumbel_softmax draws it with exponential_."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _hex(values):
    return [float(v).hex() for v in values]


def test_affine_grid_base_coordinates_round_as_torch():
    got64 = F.affine_grid(mt.eye(2, 3, dtype=mt.float64)[None], (1, 1, 1, 7), align_corners=False)
    assert _hex(got64[0, 0, :, 0].tolist()) == [
        "-0x1.b6db6db6db6dbp-1",
        "-0x1.2492492492492p-1",
        "-0x1.2492492492492p-2",
        "0x1.b6db6db6db6dbp-55",  # torch's centre is 4.76e-17, not 0
        "0x1.2492492492492p-2",
        "0x1.2492492492492p-1",
        "0x1.b6db6db6db6dbp-1",
    ]
    got32 = F.affine_grid(mt.eye(2, 3)[None], (1, 1, 1, 7), align_corners=False)
    assert _hex(got32[0, 0, :, 0].tolist()) == [
        "-0x1.b6db6e0000000p-1",
        "-0x1.2492480000000p-1",
        "-0x1.2492480000000p-2",
        "-0x1.b6db6e0000000p-26",
        "0x1.2492480000000p-2",
        "0x1.2492480000000p-1",
        "0x1.b6db6e0000000p-1",
    ]


@pytest.mark.parametrize(
    "n, dtype, expect",
    [
        (3, mt.float64, [[[6.0, -6.0, 18.0], [-6.0, -9.0, -13.5]]]),
        (11, mt.float32, [[[-232.0, 2.0, -33.0], [-5.0, -220.0, 44.0]]]),
    ],
)
def test_grid_sample_identity_theta_gradient(n, dtype, expect):
    # 3 x 3: the last column sits at x == 2.0 - 1ulp in torch's 2-d kernel, so its gradient
    # comes from pixels 1 and 2 (the stepwise x == 2.0 took pixels 2 and 3, a zero pad)
    x = mt.arange(n * n, dtype=dtype).reshape(1, 1, n, n) ** 2 % 7
    theta = mt.eye(2, 3, dtype=dtype)[None].requires_grad_(True)
    grid = F.affine_grid(theta, (1, 1, n, n), align_corners=False)
    F.grid_sample(x, grid, align_corners=False).sum().backward()
    np.testing.assert_allclose(theta.grad.numpy(), expect, rtol=1e-5, atol=1e-4)


def test_grid_sample_2d_unnormalises_fused_3d_stepwise():
    g = float.fromhex("0x1.2492492492492p-2")  # (g + 1) * 7 / 2 - 0.5 is 4 - 2**-51 exactly
    w = mt.arange(7, dtype=mt.float64) ** 2
    grid2 = mt.zeros(1, 1, 1, 2, dtype=mt.float64)
    grid2[..., 0] = g
    grid2.requires_grad_(True)
    out2 = F.grid_sample(w.reshape(1, 1, 1, 7), grid2, align_corners=False)
    out2.sum().backward()
    assert out2.item() == 15.999999999999996
    assert grid2.grad.reshape(-1).tolist() == [24.5, -7.999999999999998]
    grid3 = mt.zeros(1, 1, 1, 1, 3, dtype=mt.float64)
    grid3[..., 0] = g
    grid3.requires_grad_(True)
    out3 = F.grid_sample(w.reshape(1, 1, 1, 1, 7), grid3, align_corners=False)
    out3.sum().backward()
    assert out3.item() == 16.0
    assert grid3.grad.reshape(-1).tolist() == [31.5, -8.0, -8.0]
    # the one-rounding correction is detached: gradients (and their gradients) stay exact
    gen = mt.Generator().manual_seed(0)
    x = mt.rand(1, 2, 4, 5, dtype=mt.float64, generator=gen, requires_grad=True)
    grid = (mt.rand(1, 3, 2, 2, dtype=mt.float64, generator=gen) * 1.8 - 0.9).requires_grad_()
    for pad in ("zeros", "border", "reflection"):

        def f(a, b, pad=pad):
            return F.grid_sample(a, b, padding_mode=pad, align_corners=False)

        assert gradcheck(f, (x, grid))
        assert gradgradcheck(f, (x, grid))


def test_spatial_transformer_from_identity_trains_as_torch():
    nn = mt.nn
    mt.manual_seed(0)
    loc = nn.Linear(4, 6).double()
    loc.weight.data.zero_()
    loc.bias.data.copy_(mt.tensor([1.0, 0, 0, 0, 1, 0], dtype=mt.float64))
    head = nn.Linear(49, 2).double()
    x = mt.arange(98, dtype=mt.float64).reshape(2, 1, 7, 7).sin()
    feat = mt.arange(8, dtype=mt.float64).reshape(2, 4).cos()
    y = mt.tensor([0, 1])
    opt = mt.optim.SGD(list(loc.parameters()) + list(head.parameters()), lr=0.1)
    losses, grads = [], []
    for _ in range(3):
        grid = F.affine_grid(loc(feat).view(-1, 2, 3), x.size(), align_corners=False)
        loss = F.cross_entropy(head(F.grid_sample(x, grid, align_corners=False).flatten(1)), y)
        opt.zero_grad()
        loss.backward()
        losses.append(loss.item())
        grads.append(loc.bias.grad.tolist())
        opt.step()
    np.testing.assert_allclose(
        losses, [0.4945035026376199, 0.23434813104935726, 0.10337348605902587], rtol=1e-12
    )
    expect = [
        [0.19499324771273432, -0.1627223892354281, -0.14208229507056147,
         0.171982200206174, -0.05399619632991595, 0.13205509638508214],
        [0.30385295274372504, -0.09832393100612802, 0.1355434811507295,
         0.1110416099682067, 0.004898233391682001, -0.06441081888187447],
        [0.1475891574812498, -0.03729284200697716, 0.03365300997865695,
         -0.02312456294228194, 0.07133749748800133, -0.13019735776248723],
    ]  # fmt: skip
    np.testing.assert_allclose(grads, expect, rtol=1e-10, atol=1e-14)


def test_gumbel_softmax_draws_torchs_noise():
    # torch's noise is -log(E), E from exponential_: a seeded run gives its numbers (it was
    # -log(-log(U)) from rand, other numbers)
    mt.manual_seed(0)
    logits = mt.tensor(
        [[0.5, -1.0, 0.2, 0.0], [1.0, 1.0, -0.5, 0.3]], dtype=mt.float64, requires_grad=True
    )
    soft = F.gumbel_softmax(logits, tau=0.5)
    hard = F.gumbel_softmax(logits, tau=2.0, hard=True)
    (soft[:, 0].sum() + (hard * mt.arange(4.0, dtype=mt.float64)).sum()).backward()
    np.testing.assert_allclose(
        soft.tolist(),
        [[0.05008406181252753, 0.020273752394867155, 0.8943556996826916, 0.03528648610991371],
         [0.23634383319818697, 0.10336220874203475, 0.3260561533773957, 0.33423780468238257]],
        rtol=1e-12,
    )  # fmt: skip
    assert hard.tolist() == [[0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]]
    np.testing.assert_allclose(
        logits.grad.tolist(),
        [[-0.10205149698955378, -0.06592817892903018, -0.06048222999626016, 0.22846190591484422],
         [0.13088266799114648, -0.07762870919003782, -0.098379556543877, 0.04512559774276842]],
        rtol=1e-12,
    )  # fmt: skip
