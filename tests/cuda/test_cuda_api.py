"""torch.cuda's capability queries and generator-state lists, with and without a (fake) GPU."""

from __future__ import annotations

import pytest

import minitorch as mt


def test_capability_queries_and_rng_state_lists():
    available = mt.cuda.is_available()
    ampere = available and mt.cuda.get_device_capability()[0] >= 8
    assert mt.cuda.is_bf16_supported() is ampere and mt.cuda.is_tf32_supported() is ampere
    states = mt.cuda.get_rng_state_all()
    assert len(states) == mt.cuda.device_count()
    mt.cuda.set_rng_state_all(states)


def test_gpu_generator_states_are_refused_on_the_fake_gpu(fake_cupy):
    # CuPy keeps a generator's stream on the GPU: minitorch says so instead of a made-up state
    with pytest.raises(NotImplementedError, match="snapshot"):
        mt.cuda.get_rng_state_all()
    assert isinstance(mt.cuda.is_bf16_supported(), bool)
