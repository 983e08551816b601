"""Random number generators: one default Generator per device, seeding, Generator objects."""

from __future__ import annotations

import random as _pyrandom

from minitorch._backend import Device, backend_of
from minitorch._backend import device as as_device

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "generator_for"]

_DEFAULT_SEED = 67280421310721  # torch's default CPU seed, so initial_seed() reads the same


class Generator:
    """A seeded random stream on one device. Mirrors torch.Generator.

    Differences from torch: the streams come from NumPy's PCG64 (CuPy's on the GPU), so the
    numbers differ from torch's for the same seed; each seed is reproducible within minitorch.
    """

    def __init__(self, device="cpu"):
        self.device = device if isinstance(device, Device) else as_device(device)
        self._seed = _DEFAULT_SEED
        self._rng = None  # created on first draw (CuPy is imported only then)

    @property
    def rng(self):
        if self._rng is None:
            self._rng = backend_of(self.device).make_rng(self._seed)
        return self._rng

    def manual_seed(self, seed) -> Generator:
        seed = int(seed)
        if seed < 0:
            seed &= (1 << 64) - 1  # torch accepts negative seeds by wrapping them
        self._seed = seed
        self._rng = None
        return self

    def seed(self) -> int:
        s = _pyrandom.SystemRandom().getrandbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        from minitorch._factories import tensor

        import pickle

        state = pickle.dumps((self._seed, self.rng.bit_generator.state))
        return tensor(list(state), dtype="uint8")

    def set_state(self, new_state) -> Generator:
        import pickle

        seed, bg_state = pickle.loads(bytes(new_state.tolist()))
        self._seed = seed
        self.rng.bit_generator.state = bg_state
        return self

    def __repr__(self):
        return f"<minitorch.Generator object at {hex(id(self))}>"


_defaults: dict = {}
_last_seed = _DEFAULT_SEED


def generator_for(device: Device, generator: Generator | None = None) -> Generator:
    """The generator an op draws from: the one given, else the device's default."""
    if generator is not None:
        if generator.device.type != device.type:
            raise RuntimeError(
                f"Expected a '{device.type}' device type for generator but found "
                f"'{generator.device.type}'"
            )
        return generator
    key = (device.type, device.index or 0)
    g = _defaults.get(key)
    if g is None:
        # A device first used after manual_seed() starts from that seed too.
        g = _defaults[key] = Generator(device).manual_seed(_last_seed)
    return g


default_generator = generator_for(as_device("cpu"))


def manual_seed(seed) -> Generator:
    """Seeds every device's default generator. Mirrors torch.manual_seed."""
    global _last_seed
    _last_seed = int(seed)
    for g in _defaults.values():
        g.manual_seed(seed)
    return default_generator


def seed() -> int:
    """Seeds the default generators from the OS. Mirrors torch.seed."""
    s = default_generator.seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)
