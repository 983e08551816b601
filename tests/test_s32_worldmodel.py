"""Session 32 (helper worldmodel): torch-free checks of the world-model idioms that
tests/reference/test_s32_worldmodel_reference.py compares with torch (its 49 programs found no
library difference to fix): the straight-through categorical's gradient, Dreamer's lambda-return,
the KL balancing of categorical latents, two-hot bucket indices, and the documented exception
types of an LSTM given a hidden state of the wrong form. torch's values are written as
literals, so these hold where torch is absent."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

D = mt.distributions
F = mt.nn.functional


def test_straight_through_one_hot_takes_the_softmax_gradient():
    logits = mt.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=mt.float64, requires_grad=True)
    probs = mt.softmax(logits, -1)
    hard = F.one_hot(logits.argmax(-1), 3).to(mt.float64)
    sample = hard + probs - probs.detach()
    np.testing.assert_array_equal(sample.detach().argmax(-1).numpy(), [1, 2])
    (sample * mt.tensor([1.0, 2.0, 3.0], dtype=mt.float64)).sum().backward()
    want = [
        [-0.21018725968584803, 0.05718351063411928, 0.15300374905172895],
        [-0.08808046686856823, -0.015255167384208223, 0.10333563425277656],
    ]
    np.testing.assert_allclose(logits.grad.numpy(), want, rtol=1e-12, atol=1e-15)


def test_lambda_return_backwards_over_time():
    reward = mt.tensor([1.0, 0.0, 2.0], dtype=mt.float64)
    value = mt.tensor([0.5, 1.0, 1.5], dtype=mt.float64)
    discount = mt.tensor([0.9, 0.9, 0.0], dtype=mt.float64)
    bootstrap = mt.tensor(2.0, dtype=mt.float64)
    next_values = mt.cat([value[1:], bootstrap[None]])
    inputs = reward + discount * next_values * (1 - 0.95)
    last, outs = bootstrap, []
    for t in reversed(range(3)):
        last = inputs[t] + discount[t] * 0.95 * last
        outs.append(last)
    got = mt.stack(outs).flip(0)
    np.testing.assert_allclose(got.numpy(), [2.5647625, 1.7775, 2.0], rtol=1e-12)


def test_kl_of_independent_straight_through_categoricals_and_its_gradients():
    a = mt.tensor([[0.2, 0.3, 0.5]], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([[1.0, 0.0, -1.0]], dtype=mt.float64, requires_grad=True)

    def dist(logits):
        return D.Independent(D.OneHotCategoricalStraightThrough(logits=logits), 1)

    kl = D.kl_divergence(dist(a), dist(b))
    assert kl.shape == ()
    np.testing.assert_allclose(kl.item(), 0.41823108209000814, rtol=1e-12)
    kl.backward()
    np.testing.assert_allclose(
        a.grad.numpy(), [[-0.3619234211521118, -0.048126877658247025, 0.4100502988103588]],
        rtol=1e-10,
    )  # fmt: skip
    np.testing.assert_allclose(
        b.grad.numpy(), [[0.37580784538055717, -0.07514458528112206, -0.3006632600994352]],
        rtol=1e-10,
    )  # fmt: skip


def test_two_hot_bucket_indices():
    bins = mt.tensor([-2.0, -1.0, 0.0, 1.0, 2.0])
    x = mt.tensor([-3.0, -0.25, 0.0, 1.5, 9.0])
    assert mt.bucketize(x, bins).tolist() == [0, 2, 2, 4, 5]
    assert mt.bucketize(x, bins, right=True).tolist() == [0, 2, 3, 4, 5]


def test_lstm_hidden_state_of_the_wrong_form_raises_torchs_exception_types():
    # the messages say more than torch's (documented); the types are torch's
    lstm = mt.nn.LSTM(3, 5, batch_first=True)
    x, h = mt.zeros(2, 4, 3), mt.zeros(1, 2, 5)
    with pytest.raises(IndexError, match="index 1 is out of bounds for dimension 0 with size 1"):
        lstm(x, h)
    with pytest.raises(RuntimeError, match="two hidden states"):
        lstm(x, (h, h, h))
