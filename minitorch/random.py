"""Random number generators: one default Generator per device, seeding, Generator objects."""

from __future__ import annotations

import contextlib
import pickle
import random as _pyrandom

from minitorch._backend import Device, backend_of, tensor_device

__all__ = [
    "Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "default_generator", "generator_for", "fork_rng",
]

_DEFAULT_SEED = 67280421310721  # torch's default CPU seed, so initial_seed() reads the same
_UINT64 = 1 << 64


def _seed_value(seed) -> int:
    """A seed as torch reads it: int(seed), negative values wrapped to uint64."""
    seed = int(seed)
    if not -(1 << 63) <= seed < _UINT64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _UINT64


class Generator:
    """A seeded random stream on one device. Mirrors torch.Generator.

    Differences from torch: the streams come from NumPy's PCG64 (CuPy's generator on the GPU),
    so the numbers differ from torch's for the same seed; each seed is reproducible within
    minitorch, and the CPU and the strict test device give the same numbers.
    """

    def __init__(self, device="cpu"):
        self.device = tensor_device(device)
        self._seed = _DEFAULT_SEED
        self._rng = None  # created on first draw (CuPy is imported only then)

    @property
    def rng(self):
        """The backend's generator object (numpy.random.Generator or CuPy's) for this stream."""
        rng = self._rng
        if rng is None:
            backend = backend_of(self.device)
            with backend.device_context(self.device):
                rng = self._rng = backend.make_rng(self._seed)
        return rng

    def manual_seed(self, seed) -> Generator:
        """Restarts the stream from `seed`; returns self. Mirrors torch.Generator.manual_seed."""
        self._seed = _seed_value(seed)
        self._rng = None
        return self

    def seed(self) -> int:
        """Seeds from the OS and returns the seed. Mirrors torch.Generator.seed."""
        s = _pyrandom.SystemRandom().getrandbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The stream's state as a uint8 tensor. Mirrors torch.Generator.get_state."""
        from minitorch import _dtype
        from minitorch._factories import tensor

        state = backend_of(self.device).rng_get_state(self.rng)
        return tensor(list(pickle.dumps((self._seed, state))), dtype=_dtype.uint8)

    def set_state(self, new_state) -> Generator:
        """Restores a state from get_state(). Mirrors torch.Generator.set_state."""
        from minitorch._tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(
                f"expected a torch.ByteTensor, but got {type(new_state).__name__}"
            )
        if new_state.dtype.name != "uint8":
            raise RuntimeError(
                f"expected a torch.ByteTensor, but got a tensor of dtype {new_state.dtype}"
            )
        seed, state = pickle.loads(bytes(new_state.tolist()))
        self._seed = seed
        backend_of(self.device).rng_set_state(self.rng, state)
        return self

    def __reduce__(self):
        return (_rebuild_generator, (str(self.device), self.get_state()))

    def __repr__(self):
        return f"<minitorch.Generator object at {hex(id(self))}>"


def _rebuild_generator(device, state):
    return Generator(device).set_state(state)


_defaults: dict = {}  # Device -> its default Generator
_last_seed = _DEFAULT_SEED


def generator_for(device: Device, generator: Generator | None = None, op: str = "random"):
    """The generator an op on `device` draws from: the one given, else the device's default."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(
                f"{op}(): argument 'generator' must be torch.Generator, not "
                f"{type(generator).__name__}"
            )
        if generator.device.type != device.type:
            raise RuntimeError(
                f"Expected a '{device.type}' device type for generator but found "
                f"'{generator.device.type}'"
            )
        return generator
    g = _defaults.get(device)
    if g is None:
        # A device first used after manual_seed() starts from that seed too.
        g = _defaults[device] = Generator(device).manual_seed(_last_seed)
    return g


default_generator = generator_for(tensor_device("cpu"))


def manual_seed(seed) -> Generator:
    """Seeds every device's default generator; returns the CPU one. Mirrors torch.manual_seed."""
    global _last_seed
    _last_seed = _seed_value(seed)
    for g in _defaults.values():
        g.manual_seed(_last_seed)
    return default_generator


def seed() -> int:
    """Seeds every device's default generator from the OS; returns the seed. Mirrors torch.seed."""
    s = _pyrandom.SystemRandom().getrandbits(63)
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The CPU default generator's seed. Mirrors torch.initial_seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The CPU default generator's state (a uint8 tensor). Mirrors torch.get_rng_state."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Mirrors torch.set_rng_state."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Restores the default generators' streams on exit. Mirrors torch.random.fork_rng.

    Differences from torch: all default generators minitorch has created are saved (CPU and the
    strict test device); CUDA streams cannot be snapshot and are restarted from their seed.
    """
    if not enabled:
        yield
        return
    saved = []
    for g in list(_defaults.values()):
        try:
            saved.append((g, g.get_state(), None))
        except NotImplementedError:
            saved.append((g, None, g.initial_seed()))
    try:
        yield
    finally:
        for g, state, seed_ in saved:
            if state is not None:
                g.set_state(state)
            else:
                g.manual_seed(seed_)
