"""Session 27 (helper rl): library fixes found by running reinforcement-learning programs (SAC,
TD3, C51, QR-DQN, PPO details, world models, replay buffers) against torch 2.13; the values
below are torch's."""

from __future__ import annotations

import warnings

import numpy as np

import minitorch as mt
from minitorch import _settings


def _count(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def test_list_of_ndarrays_warns_once_per_process():
    # a replay buffer that stacks observations with torch.tensor(list_of_arrays) on every step:
    # torch warns on the first call only (TORCH_WARN_ONCE), not on each one
    obs = [np.zeros(3, np.float32), np.ones(3, np.float32)]
    saved = "list_of_ndarrays" in _settings._warned_once
    _settings._warned_once.discard("list_of_ndarrays")
    try:
        t, first = _count(lambda: mt.tensor(obs))
        assert len(first) == 1 and "list of numpy.ndarrays is extremely slow" in first[0]
        assert t.dtype == mt.float32 and t.tolist() == [[0.0] * 3, [1.0] * 3]
        for make in (mt.tensor, mt.as_tensor, mt.Tensor):
            _, again = _count(lambda make=make: make(obs))
            assert again == []
        _, nested = _count(lambda: mt.tensor([[np.zeros(2)]]))
        assert nested == []
    finally:
        if saved:
            _settings._warned_once.add("list_of_ndarrays")


def test_list_of_ndarrays_warns_again_with_warn_always():
    obs = [np.zeros(2), np.zeros(2)]
    _settings._warned_once.add("list_of_ndarrays")
    old = mt.is_warn_always_enabled()
    mt.set_warn_always(True)
    try:
        _, caught = _count(lambda: mt.tensor(obs))
    finally:
        mt.set_warn_always(old)
    assert len(caught) >= 1 and "extremely slow" in caught[0]


def test_gamma_rsample_gradient_difference_is_documented():
    from minitorch.distributions.gamma import _standard_gamma_grad

    doc = mt.distributions.Gamma.__doc__
    assert "Differences from torch:" in doc and "_standard_gamma_grad" in doc

    def digamma(z):
        return mt.digamma(mt.from_numpy(z)).numpy()

    a, x = np.array([1.0, 2.0, 0.5]), np.array([1.0, 0.7, 3.0])
    got = _standard_gamma_grad(np, digamma, a, x)
    # the exact implicit derivatives (d/da of the inverse CDF at fixed u; 1.173563027224727 at
    # a = x = 1 by quadrature); torch's fitted values differ from the fifth digit on
    torch_values = [1.1736211627259934, 0.6108292806429975, 2.913304453672477]
    np.testing.assert_allclose(got[0], 1.173563027224727, rtol=1e-10)
    np.testing.assert_allclose(got, torch_values, rtol=5e-4)
    assert np.all(np.abs(got - torch_values) > 1e-6)
