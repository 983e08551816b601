"""Session 31 (helper vae): torch-free checks of the fix the VAE programs in
tests/reference/test_s31_vae_reference.py led to (binary_cross_entropy's weight broadcast error
comes first, as torch's), and pins of the discrete-latent building blocks those programs lean on
(gumbel_softmax under manual_seed, the VQ straight-through and its codebook gradients,
perplexity, the closed-form Gaussian KL, the IWAE bound). The values are torch 2.13's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


_BROADCAST = (
    "Attempting to broadcast a dimension of length {n} at {d}! Mismatching argument at index 1 "
    "had torch.Size([{shape}]); but expected shape should be broadcastable to [2, 3]"
)


@pytest.mark.parametrize(
    "wshape, msg",
    [
        ((4,), _BROADCAST.format(n=4, d=-1, shape="4")),
        ((3, 1), _BROADCAST.format(n=3, d=-2, shape="3, 1")),
        ((1, 4), _BROADCAST.format(n=4, d=-1, shape="1, 4")),
        ((5, 2, 3), "output with shape [2, 3] doesn't match the broadcast shape [5, 2, 3]"),
    ],
)
def test_bce_weight_that_does_not_broadcast_raises_torchs_error(wshape, msg):
    half = mt.full((2, 3), 0.5)
    with pytest.raises(RuntimeError) as e:
        F.binary_cross_entropy(half, mt.zeros(2, 3), weight=mt.ones(*wshape))
    assert str(e.value) == msg


def test_bce_weight_broadcast_error_comes_before_dtype_and_range_checks():
    half = mt.full((2, 3), 0.5)
    want = _BROADCAST.format(n=4, d=-1, shape="4")
    for target in (mt.zeros(2, 3, dtype=F64), mt.full((2, 3), 2.0)):
        with pytest.raises(RuntimeError) as e:
            F.binary_cross_entropy(half, target, weight=mt.ones(4))
        assert str(e.value) == want
    # a weight that broadcasts leaves the kernel's own checks in place
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(half, mt.zeros(2, 3, dtype=F64), weight=mt.ones(3))
    with pytest.raises(RuntimeError, match="^all elements of target should be between 0 and 1$"):
        F.binary_cross_entropy(half, mt.full((2, 3), 2.0), weight=mt.ones(2, 1))
    loss = F.binary_cross_entropy(half, mt.zeros(2, 3), weight=mt.ones(2, 1))
    np.testing.assert_allclose(loss.item(), math.log(2), rtol=1e-6)


def test_gumbel_softmax_under_manual_seed():
    logits = mt.tensor([[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, -0.5, 0.25]], dtype=F64)
    mt.manual_seed(3)
    soft = F.gumbel_softmax(logits, tau=0.5)
    _close(soft, [
        [0.9770248226712275, 0.0005130581022341167, 0.010754388071055908, 0.011707731155482484],
        [0.15063236834638197, 0.3400368780103657, 0.30289130809464504, 0.2064394455486072],
    ])  # fmt: skip
    mt.manual_seed(3)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert hard.tolist() == [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]


def test_vq_straight_through_codebook_and_commitment_gradients():
    z = mt.tensor([[0.1, 0.2], [0.9, -0.3], [-0.5, 0.5]], dtype=F64, requires_grad=True)
    book = mt.tensor([[0.0, 0.0], [1.0, 0.0], [-1.0, 1.0]], dtype=F64, requires_grad=True)
    idx = mt.cdist(z, book).argmin(1)
    assert idx.tolist() == [0, 1, 0]
    zq = F.embedding(idx, book)
    st = z + (zq - z).detach()
    w = mt.tensor([1.0, 2.0], dtype=F64)
    loss = (st * w).sum() + F.mse_loss(zq, z.detach()) + 0.25 * F.mse_loss(z, zq.detach())
    loss.backward()
    _close(loss.item(), 1.1354166666666667)
    _close(z.grad, [[1.0083333333333333, 2.0166666666666666], [0.9916666666666667, 1.975],
                    [0.9583333333333334, 2.0416666666666665]])  # fmt: skip
    _close(book.grad, [[0.13333333333333333, -0.23333333333333334],
                       [0.033333333333333326, 0.09999999999999999], [0.0, 0.0]])  # fmt: skip
    avg = F.one_hot(idx, 3).double().mean(0)
    _close(mt.exp(-(avg * mt.log(avg + 1e-10)).sum()).item(), 1.8898815744643334)


def test_gaussian_kl_and_iwae_bound():
    D = mt.distributions
    mu = mt.tensor([[0.5, -1.0]], dtype=F64)
    lv = mt.tensor([[0.2, -0.3]], dtype=F64)
    kl = D.kl_divergence(D.Normal(mu, (0.5 * lv).exp()), D.Normal(0.0, 1.0))
    _close(kl, [[0.13570137908008495, 0.5204091103408589]])
    _close(-0.5 * (1 + lv - mu**2 - lv.exp()), kl.tolist())
    lw = mt.tensor([[-3.0, -1.0], [-2.5, -4.0], [-2.0, -1.5]], dtype=F64)
    _close(mt.logsumexp(lw, 0) - math.log(3.0), [-2.418342618026375, -1.5940153863258262])
