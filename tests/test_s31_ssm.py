"""Session 31 (helper ssm): torch-free regression tests of the library fixes the state-space
model programs (tests/reference/test_s31_ssm_reference.py) led to. The expected values are
torch 2.13's, written as literals."""

from __future__ import annotations

import numpy as np

import minitorch as mt

F = mt.nn.functional


def test_rms_norm_of_a_transposed_input_is_contiguous():
    # torch makes rms_norm's result contiguous (a clone) before casting back, so a normalised
    # (b, l, d) view of a (b, d, l) activation can be .view()ed, as RMSNorm blocks of SSMs do
    x = mt.arange(1.0, 13.0, dtype=mt.float64).view(2, 3, 2)
    w = mt.tensor([1.0, 2.0, 0.5], dtype=mt.float64)
    y = F.rms_norm(x.transpose(1, 2), (3,), w, eps=1e-6)
    assert y.stride() == (6, 3, 1)
    assert y.is_contiguous()
    np.testing.assert_allclose(
        y.view(2, 6).numpy(),
        [
            [0.29277000933727415, 1.756620056023645, 0.7319250233431853,
             0.46291003748689985, 1.8516401499475994, 0.6943650562303498],
            [0.7652825383595522, 1.9678693843531343, 0.601293422996791,
             0.7895420301065506, 1.9738550752663764, 0.5921565225799129],
        ],
        rtol=1e-13,
    )  # fmt: skip


def test_rms_norm_graph_of_a_transposed_input_ends_in_a_clone():
    x = mt.arange(1.0, 13.0, dtype=mt.float64).view(2, 3, 2).requires_grad_()
    y = F.rms_norm(x.transpose(1, 2), (3,))
    assert type(y.grad_fn).__name__ == "CloneBackward0"
    assert y.stride() == (6, 3, 1)
    # a contiguous input keeps the Mul node on top (nothing to copy)
    z = F.rms_norm(x, (2,))
    assert type(z.grad_fn).__name__ == "MulBackward0"
    # half: normalised in float32, made contiguous, then cast back
    h = F.rms_norm(x.transpose(1, 2).half(), (3,))
    assert (type(h.grad_fn).__name__, h.stride(), h.dtype) == (
        "ToCopyBackward0",
        (6, 3, 1),
        mt.float16,
    )
    (g,) = mt.autograd.grad(y.sum(), x)
    assert g.shape == (2, 3, 2)


def test_rms_norm_module_and_sliced_inputs_are_contiguous():
    x = mt.arange(1.0, 13.0).view(2, 3, 2)
    assert mt.nn.RMSNorm(3)(x.transpose(1, 2)).stride() == (6, 3, 1)
    assert F.rms_norm(mt.arange(12.0).view(3, 4)[:, ::2], (2,)).stride() == (2, 1)
    assert F.rms_norm(mt.ones(1, 3).expand(4, 3), (3,)).stride() == (3, 1)
    assert F.rms_norm(mt.ones(2, 3, 5).transpose(0, 2), (2,)).stride() == (6, 2, 1)


def test_logsigmoid_of_a_transposed_input_is_contiguous():
    # GLA / xLSTM gates take logsigmoid of (B, L, H) views of (B, H, L) activations
    x = mt.arange(-3.0, 3.0, dtype=mt.float64).view(2, 3)
    y = F.logsigmoid(x.t())
    assert y.stride() == (2, 1)
    np.testing.assert_allclose(
        y.view(-1).numpy(),
        [-3.048587351573742, -0.6931471805599453, -2.1269280110429727, -0.31326168751822286,
         -1.3132616875182228, -0.1269280110429725],
        rtol=1e-14,
    )  # fmt: skip
    xr = x.clone().requires_grad_()
    (g,) = mt.autograd.grad(F.logsigmoid(xr.t()).sum(), xr)
    np.testing.assert_allclose(g.numpy(), mt.sigmoid(-x).numpy(), rtol=1e-14)


def test_batch_norm_of_a_transposed_3d_input_is_contiguous():
    # S4's example model normalises (B, H, L) by BatchNorm1d; torch lays the result out in the
    # input's suggested memory format, which is row-major for 3-d inputs
    h = mt.arange(12.0, dtype=mt.float64).view(2, 3, 2) ** 1.5
    z = F.batch_norm(h.transpose(1, 2), None, None, training=True)
    assert z.stride() == (6, 3, 1)
    np.testing.assert_allclose(
        z.view(-1).numpy(),
        [-1.1977906433637917, -0.9429860204767333, -0.4770943364793119, -1.2637701798050247,
         -0.9230338137158552, -0.4371052569465892, 0.12621301516764638, 0.8406463397326753,
         1.651011645419514, 0.1589115637753915, 0.8474842804426358, 1.617513406249442],
        rtol=1e-12,
    )  # fmt: skip
    rm, rv = mt.zeros(2, dtype=mt.float64), mt.full((2,), 4.0, dtype=mt.float64)
    z = F.batch_norm(h.transpose(1, 2), rm, rv)
    assert z.stride() == (6, 3, 1)
    np.testing.assert_allclose(
        z.view(-1).numpy(),
        [0.0, 1.4142117946094568, 3.999995000009375, 0.49999937500117186, 2.598072963764141,
         5.590162956050147, 7.348460042780222, 11.313694356875654, 15.811368536643577,
         9.260118013585783, 13.49998312503164, 18.24141354520202],
        rtol=1e-12,
    )  # fmt: skip
    # a channels-last 4-d input keeps its layout
    c = F.batch_norm(
        mt.ones(2, 3, 4, 5).to(memory_format=mt.channels_last), None, None, training=True
    )
    assert c.stride() == (60, 1, 15, 3)


def test_logsumexp_over_a_permuted_input_is_row_major():
    x = mt.arange(30.0, dtype=mt.float64).view(2, 3, 5).permute(2, 0, 1) / 7
    y = x.logsumexp(1)
    assert y.stride() == (3, 1)
    assert x.logsumexp(1, keepdim=True).stride() == (3, 3, 1)
    np.testing.assert_allclose(y.sum().item(), 48.80684035827848, rtol=1e-13)
