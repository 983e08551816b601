"""Session 46, lead: the MT19937 engine made without hashing a seed first (NOTE [ A cheap
MT19937 to seed ] in minitorch/_backend/torch_stream.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.random.bit_generator import ISeedSequence

import minitorch as mt
from minitorch._backend import torch_stream

SEEDS = [0, 1, 3, 2**31, 2**32 - 1, 2**32 + 5, 67280421310721, 2**63 - 1]


def _draws(gen):
    return [
        mt.rand(7, generator=gen).numpy(),
        mt.randn(5, generator=gen).numpy(),  # n < 16: the cached Box-Muller value stays
        mt.randn(40, dtype=mt.float64, generator=gen).numpy(),
        mt.randint(0, 1000, (9,), generator=gen).numpy(),
        mt.randperm(300, generator=gen).numpy(),
        np.frombuffer(gen.get_state().numpy().tobytes(), dtype=np.uint8),
    ]


def _run(seed):
    gen = mt.Generator()
    gen.manual_seed(seed)
    out = _draws(gen)
    clone = mt.Generator()  # the state copied into a fresh engine
    clone.set_state(gen.get_state())
    copied = gen.clone_state()  # TorchStream.copy
    return out + _draws(gen) + _draws(clone) + _draws(copied)


@pytest.mark.parametrize("seed", SEEDS)
def test_streams_equal_those_of_an_engine_seeded_by_numpy(monkeypatch, seed):
    new = _run(seed)
    monkeypatch.setattr(torch_stream, "_engine", lambda: np.random.MT19937(0))
    old = _run(seed)
    assert len(new) == len(old) == 24
    for a, b in zip(new, old, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_default_generator_and_clone_keep_the_stream():
    mt.manual_seed(11)
    want = mt.rand(4).numpy()
    gen = mt.default_generator
    mt.manual_seed(11)
    state = gen.get_state()
    fresh = mt.Generator()
    fresh.set_state(state)
    np.testing.assert_array_equal(mt.rand(4, generator=fresh).numpy(), want)
    np.testing.assert_array_equal(mt.rand(4).numpy(), want)


def test_the_constructor_seed_is_a_seed_sequence_of_plain_words():
    # NumPy's constructor takes any ISeedSequence; the words are a list (read fast) of the
    # length asked, and the engine is seeded afterwards, so their value does not matter
    torch_stream._engine()  # (the sequence is made by the first engine)
    seq = torch_stream._UNSEEDED
    assert isinstance(seq, ISeedSequence)
    assert type(seq.generate_state(624)) is list and len(seq.generate_state(624)) == 624
    assert len(seq.generate_state(8)) == 8
    engine = torch_stream._engine()
    assert isinstance(engine, np.random.MT19937)
    engine._legacy_seeding(5)
    reference = np.random.MT19937(0)
    reference._legacy_seeding(5)
    np.testing.assert_array_equal(engine.random_raw(1000), reference.random_raw(1000))


def test_a_shuffled_loader_keeps_its_orders():
    data = mt.utils.data.TensorDataset(mt.arange(40))
    mt.manual_seed(4)
    got = [b[0].tolist() for b in mt.utils.data.DataLoader(data, batch_size=8, shuffle=True)]
    got += [b[0].tolist() for b in mt.utils.data.DataLoader(data, batch_size=8, shuffle=True)]
    # torch 2.13's orders for manual_seed(4), two epochs
    first = sorted(v for b in got[:5] for v in b)
    assert first == list(range(40)) and got[:5] != got[5:]
    assert got[0] == _TORCH_FIRST_BATCH


_TORCH_FIRST_BATCH = [30, 13, 5, 0, 10, 4, 19, 3]
