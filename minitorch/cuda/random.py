"""torch.cuda.random: the CUDA generators' seeding functions, also reachable as torch.cuda.*
(they live in minitorch/cuda/__init__.py). Mirrors torch.cuda.random."""

from __future__ import annotations

from minitorch.cuda import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)

__all__ = [
    "get_rng_state",
    "get_rng_state_all",
    "set_rng_state",
    "set_rng_state_all",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "initial_seed",
]
