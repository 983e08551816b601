"""Random numbers: one default Generator per device, seeding, Generator objects, and the
samplers (rand, randn, randint, randperm, normal and their _like forms)."""

from __future__ import annotations

import contextlib
import math
import os
import struct
import threading
import warnings

import numpy as np

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED, missing_positional, unexpected_keyword
from minitorch._backend import Device, backend_of, cpu, default_device, tensor_device
from minitorch._backend import torch_stream as _ts
from minitorch._backend import torch_stream_normal as _tsn
from minitorch._factories import (
    _NO_VARARGS_OVERLOADS,
    _SEQUENCES,
    _SIZE_KWARGS,
    _as_int,
    _check_pin_memory,
    _device,
    _dtype_arg,
    _into_out,
    _laid_like,
    _like,  # (shape, dtype, device) of a *_like result, torch's errors in torch's order
    _require_grad,
    _shape,
    _shape_seq,
    _size_int,
    _size_kwarg,
    _typename,
    bool_flag,
    check_options,
    like_subclass,
    passed_keywords,
    shape_error,
    tensor,
    zeros_like,
)
from minitorch._tensor import Size, Tensor, _make, _tp_name
from minitorch._tensor_methods import _at, _number_arg
from minitorch.autograd.function import Function

# fmt: off
__all__ = [
    "Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    "default_generator", "generator_for", "fork_rng",
    "rand", "randn", "randint", "randperm", "normal", "rand_like", "randn_like", "randint_like",
]
# fmt: on

# Not exported as minitorch.* (they would shadow nothing, but torch does not have them there).
_PRIVATE = ("generator_for", "fork_rng")

# NOTE [ Default seeds ]
# torch seeds a new Generator() and each GPU's default generator with 67280421310721, but the
# CPU's default generator with 64 bits from /dev/urandom (getDefaultCPUGenerator calls
# getNonDeterministicRandom): an unseeded program draws other numbers (weights, dropout masks,
# DataLoader orders) in every run, and torch.initial_seed() reads a new value each time.
# minitorch does the same, and torch.seed() / Generator.seed() take all 64 bits as torch's do.
_DEFAULT_SEED = 67280421310721
_UINT64 = 1 << 64


def _os_seed() -> int:
    """A seed of 64 bits from the OS (torch's getNonDeterministicRandom: 8 bytes of urandom)."""
    return int.from_bytes(os.urandom(8), "little")


def _seed_value(seed) -> int:
    """A seed as torch reads it: int(seed), negative values wrapped to uint64."""
    seed = int(seed)
    if not -(1 << 63) <= seed < _UINT64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _UINT64


def _long_arg(value, op: str) -> int:
    """A Generator method's `long` argument that is not a plain int, as torch reads it: an int
    subclass (an IntEnum) as its value; a NumPy integer passes torch's type check but not its
    unpacking into a C long (TypeError); anything else, a bool included, is a RuntimeError."""
    if isinstance(value, int) and value.__class__ is not bool:
        return int(value)
    if isinstance(value, np.integer):
        raise TypeError("an integer is required")
    raise RuntimeError(f"{op} expected a long, but got {_typename(value)}")


# NOTE [ RNG state bytes ]
# A CPU Generator's get_state() is torch's own CPUGeneratorImplState (5056 bytes: the initial
# seed, mt19937's position and 624 words, the cached normal samples), so a state saved by PyTorch
# continues PyTorch's stream here and back. The bytes are decoded with struct and validated as
# torch validates them (never unpickled); other sizes are refused with torch's RuntimeError.
# minitorch before its torch-exact streams saved a 64-byte PCG64 record (b"mtPCG64\0", version 1,
# has_uint32, uinteger, reserved 0, seed, PCG64 state and odd increment as 128-bit halves): such
# a state (a checkpoint saved by an older minitorch) still loads, validated as then; its stream
# cannot continue (PCG64 is gone), so the generator restarts torch's engine from words derived
# from the record's bytes (TorchStream.restart_from) and keeps its seed: the same checkpoint
# always resumes with the same numbers.
_MASK64 = _UINT64 - 1
_OLD_STATE = struct.Struct("<8sIIIIQQQQQ")
_OLD_MAGIC = b"mtPCG64\0"


def _check_old_state(data: bytes) -> int:
    """The seed of an older minitorch's 64-byte state (RuntimeError if it is not one)."""
    magic, version, has_uint32, _, reserved, seed, _, _, inc_lo, _ = _OLD_STATE.unpack(data)
    if version != 1:
        raise RuntimeError(
            f"Invalid RNG state: expected the header {_OLD_MAGIC!r} version 1, got {magic!r} "
            f"version {version}"
        )
    if has_uint32 > 1 or reserved != 0 or not inc_lo & 1:
        raise RuntimeError("Invalid PCG64 state")
    return seed


class Generator:
    """A seeded random stream on one device. Mirrors torch.Generator.

    The CPU stream is torch's (mt19937 and torch's transformations: NOTE [ torch's CPU streams ]
    in minitorch/_backend/torch_stream.py), so a seed gives torch's numbers; its state bytes are
    torch's (NOTE [ RNG state bytes ]). The strict test device draws the CPU's numbers.

    Differences from torch: CUDA streams are CuPy's (torch's are Philox): other numbers.
    set_state also takes the 64-byte state of an older minitorch, which torch would refuse
    (NOTE [ RNG state bytes ]).
    """

    # torch's prints as torch._C.Generator. See NOTE [ Public module of core classes ] in
    # minitorch/_dtype.py
    __module__ = "minitorch._C"

    def __init__(self, device="cpu"):
        if device is None:  # torch: None is the default device, as for factories
            device = "cpu"
        dev = tensor_device(device)
        if dev is not cpu:
            backend_of(dev)  # RuntimeError now, as torch's, for a device minitorch cannot run
            if dev.type == "meta":  # (its ops draw from a default generator of their own)
                raise RuntimeError("META device type not an accelerator.")
        self._init(dev)

    def _init(self, dev: Device) -> Generator:
        self.device = dev
        self._seed = _DEFAULT_SEED
        self._rng = None  # created on first draw (CuPy is imported only then)
        return self

    @property
    def rng(self):
        """The backend's generator object (numpy.random.Generator or CuPy's) for this stream."""
        rng = self._rng
        if rng is None:
            backend = backend_of(self.device)
            with backend.device_context(self.device):
                rng = self._rng = backend.make_rng(self._seed)
        return rng

    def manual_seed(self, seed, /) -> Generator:
        """Restarts the stream from `seed`; returns self. Mirrors torch.Generator.manual_seed
        (positional only: torch's takes no keyword arguments)."""
        if seed.__class__ is not int:  # no float, bool or str here (torch.manual_seed takes them)
            seed = _long_arg(seed, "manual_seed")
        return self._reseed(_seed_value(seed))

    def _reseed(self, seed: int) -> Generator:
        self._seed = seed
        self._rng = None
        return self

    def seed(self) -> int:
        """Seeds from the OS and returns the seed. Mirrors torch.Generator.seed."""
        s = _os_seed()
        self._reseed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The stream's state as a CPU uint8 tensor (NOTE [ RNG state bytes ]). Mirrors
        torch.Generator.get_state."""
        rng = self.rng
        if not isinstance(rng, _ts.TorchStream):
            backend_of(self.device).rng_get_state(rng)  # CUDA: NotImplementedError
        data = np.frombuffer(rng.get_state(), dtype=np.uint8)
        return tensor(data, dtype=_dtype.uint8, device="cpu")

    def set_state(self, new_state) -> Generator:
        """Restores a state from get_state() (or one saved by PyTorch: see the class docstring).
        Mirrors torch.Generator.set_state."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {_tp_name(new_state)}")
        if new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        rng = self.rng
        if not isinstance(rng, _ts.TorchStream):
            backend_of(self.device).rng_set_state(rng, None)  # CUDA: NotImplementedError
        data = new_state.cpu().numpy().tobytes()
        if len(data) == _OLD_STATE.size and data[:8] == _OLD_MAGIC:
            rng.restart_from(data, _check_old_state(data))
        else:
            rng.set_state(data)
        self._seed = rng.seed
        return self

    def clone_state(self) -> Generator:
        """A new Generator on the same device whose stream continues exactly where this one
        is (both then draw the same numbers). Mirrors torch.Generator.clone_state.

        Differences from torch: a CUDA generator that has drawn cannot be cloned (CuPy keeps its
        stream on the GPU: NotImplementedError, as get_state).
        """
        clone = Generator.__new__(Generator)._init(self.device)
        clone._seed = self._seed
        if self._rng is not None:  # else the seed is the whole state
            if not isinstance(self._rng, _ts.TorchStream):
                backend_of(self.device).rng_get_state(self._rng)  # CUDA: NotImplementedError
            clone._rng = self._rng.copy()
        return clone

    def get_offset(self) -> int:
        """Mirrors torch.Generator.get_offset: only Philox (CUDA) generators have an offset.

        Differences from torch: minitorch's CUDA generators (CuPy's) have none either.
        """
        raise RuntimeError(f"{self._kind_name()} Generator does not use offset")

    def set_offset(self, offset) -> Generator:
        """Mirrors torch.Generator.set_offset (RuntimeError: see get_offset)."""
        if offset.__class__ is not int:
            _long_arg(offset, "manual_offset")
        raise RuntimeError(f"{self._kind_name()} Generator does not use offset")

    def _kind_name(self) -> str:
        return "CPU" if self.device is cpu else self.device.type.upper()

    def graphsafe_get_state(self) -> Generator:
        """Mirrors torch.Generator.graphsafe_get_state, which only CUDA generators support;
        minitorch captures no CUDA graphs, so it raises for every device."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state) -> Generator:
        """Mirrors torch.Generator.graphsafe_set_state (NotImplementedError, as
        graphsafe_get_state)."""
        if not isinstance(state, Generator):
            raise TypeError(f"expected a Generator, but got {type(state).__name__}")
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def __reduce__(self):
        return (_rebuild_generator, (str(self.device), self.get_state()))

    def __repr__(self):
        return f"<minitorch._C.Generator object at {hex(id(self))}>"


def _rebuild_generator(device, state):
    return Generator(device).set_state(state)


_defaults: dict = {}  # str(device) -> the device's default Generator
_last_seed = _DEFAULT_SEED


class _VmapRandomness(threading.local):
    """What the vmaps running on this thread ask of draws from Generators passed explicitly
    (minitorch/func/_vmap.py); the class attributes are each thread's starting values."""

    # a vmap(randomness='error') is running: such a draw is refused before it happens, as
    # torch's (draws from the default generators are found by their states after func ran)
    refuses = False
    # a vmap(randomness='same') is running: {id: _saved_state before its first draw} of such
    # generators, which it rewinds before each sample (the default ones it forks)
    same: dict | None = None


_vmap_randomness = _VmapRandomness()
VMAP_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out of "
    "vmap"
)


def generator_for(device: Device, generator: Generator | None = None, op: str = "random"):
    """The generator an op on `device` draws from: the one given, else the device's default."""
    if generator is not None:
        if not isinstance(generator, Generator):
            raise TypeError(
                f"{op}(): argument 'generator' must be torch.Generator, not "
                f"{type(generator).__name__}"
            )
        if generator.device.type != device.type:
            if device.type == "meta":  # torch's meta kernels take any generator, draw nothing
                return generator_for(device, None, op)
            raise RuntimeError(
                f"Expected a '{device.type}' device type for generator but found "
                f"'{generator.device.type}'"
            )
        vr = _vmap_randomness
        if vr.refuses:
            raise RuntimeError(VMAP_RANDOM_ERROR)
        if vr.same is not None and id(generator) not in vr.same:
            vr.same[id(generator)] = _saved_state(generator)
        return generator
    g = _defaults.get(device._str)  # a str key: hashed once, unlike a Device
    if g is None:
        # A device first used after manual_seed() starts from that seed too.
        g = _defaults[device._str] = Generator.__new__(Generator)._init(device)
        g._reseed(_last_seed)  # lazily: no backend is loaded until the first draw
    return g


default_generator = generator_for(tensor_device("cpu"))
default_generator._reseed(_os_seed())  # See NOTE [ Default seeds ]


def manual_seed(seed) -> Generator:
    """Seeds every device's default generator; returns the CPU one. Mirrors torch.manual_seed."""
    global _last_seed
    _last_seed = _seed_value(seed)
    for g in _defaults.values():
        g._reseed(_last_seed)
    return default_generator


def seed() -> int:
    """Seeds every device's default generator from the OS; returns the seed. Mirrors torch.seed."""
    s = _os_seed()
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
def fork_rng(
    devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None
):
    """Restores the default generators' streams on exit. Mirrors torch.random.fork_rng.

    Differences from torch: all default generators minitorch has created are saved (CPU and the
    strict test device); CUDA streams cannot be snapshot and are restarted from their seed; no
    warning when devices is None and there are several GPUs.
    """
    if device_type == "meta":  # torch forks nothing then, not even the CPU stream
        yield
        return
    from minitorch import accelerator, cuda, get_device_module

    if device_type is None:
        acc = accelerator.current_accelerator()
        device_type = acc.type if acc is not None else "cuda"
    # torch's errors for a device type with no module ("hpu", "foo", 3), enabled or not
    device_mod = get_device_module(device_type)
    if not enabled:
        yield
        return
    devices = list(range(device_mod.device_count())) if devices is None else list(devices)
    device_states = []
    if device_mod is cuda:
        if devices:
            # torch reads each listed device's state first, which sets CUDA up: without it,
            # its AssertionError (CudaUnavailableError is one) before the block runs.
            from minitorch.cuda._utils import lazy_init

            lazy_init()
    else:  # torch's errors: minitorch.cpu has no get_rng_state, mps and xpu have no device
        device_states = [(d, device_mod.get_rng_state(d)) for d in devices]
    saved = _snapshot()
    try:
        yield
    finally:
        _restore(saved)
        for d, state in device_states:
            device_mod.set_rng_state(state, d)


def _saved_state(g) -> tuple:
    """(g, its state or None, its seed, None), what _restore puts back."""
    state = None
    if g._rng is not None:  # else nothing was drawn since seeding: the seed is the state
        try:
            state = g.get_state()
        except NotImplementedError:  # a CUDA stream: restarted from its seed
            pass
    return (g, state, g._seed, None)  # (4 fields: func/_vmap.py reads them)


def _snapshot() -> list:
    """The state of every default generator created so far (fork_rng, checkpointing)."""
    return [_saved_state(g) for g in list(_defaults.values())]


def _restore(saved: list) -> None:
    for g, state, seed_, _ in saved:
        if state is not None:
            g.set_state(state)
        else:
            g._reseed(seed_)


# ---------------------------------------------------------------------------------------------
# Samplers

_LABELS = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
}
_C_TYPES = {
    "int64": "long",
    "int32": "int",
    "int16": "short",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _dtype_label(dt) -> str:
    """torch's kernel-error name of a dtype: 'Long', 'Float', ..."""
    return _LABELS[dt.name]


def _float_dtype(dtype, op: str, kernel: str):
    dt = _dtype_arg(dtype, _dtype.default_float(), op)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype_label(dt)}'")
    if dt.itemsize == 1:  # NOTE [ Float8 dtypes ]
        raise _dtype.float8_error(kernel, dt)
    return dt


def _sample(dev: Device, generator, op: str, draw):
    """draw(rng) run on the device's stream of `generator` (or the device's default)."""
    rng = generator_for(dev, generator, op).rng
    if isinstance(rng, _ts.TorchStream):  # no torch-exact transformation: a NumPy generator
        return draw(rng.wrap(rng.numpy_generator()))
    b = backend_of(dev)
    with b.device_context(dev):
        return draw(rng)


def _stream(dev: Device, generator, op: str):
    """The device's torch stream (CPU, strict), or None for a CuPy generator."""
    rng = generator_for(dev, generator, op).rng
    return rng if isinstance(rng, _ts.TorchStream) else None


# NOTE [ random factories draw in memory order ]
# torch draws rand / randn / randint / normal(.., size) with an out= of the drawn shape, and the
# *_like factories, in place into the tensor they return: its elements take the stream's numbers
# in memory order, and normal_ of a tensor that is not contiguous takes its per-element path. So
# a transposed out=, a channels_last or transposed *_like result, gets other numbers than a
# row-major one. A layout that is not contiguous is drawn so here (the in-place fills walk
# memory order); a contiguous one draws as a plain factory (the same numbers, no empty tensor).


def _out_drawn_in_place(out, shape_of, make, fill):
    """make(dt, dev) for a random factory's out=: when out is a CPU tensor of the drawn shape
    (shape_of()) that is not contiguous and has no overlapping elements, a tensor with out's
    strides drawn in place by fill(t) (whose values _into_out writes into out); else make's."""

    def made(dt, dev):
        if (
            isinstance(out, Tensor)
            and dev is cpu
            and dt.is_floating_point is out.dtype.is_floating_point
            and not out.is_contiguous()
            and tuple(out.shape) == tuple(shape_of())
            and all(st != 0 for st, n in zip(out.stride(), out.shape, strict=True) if n > 1)
        ):
            from minitorch._ops.tensor_misc import empty_strided

            t = empty_strided(out.shape, out.stride(), dtype=dt, device=dev)
            fill(t)
            return t
        return make(dt, dev)

    return made


def _like_drawn_in_place(op, input, memory_format, dt, dev, requires_grad, make, fill):
    """A *_like result: drawn in place into empty_like's layout by fill(t) when that layout is
    not contiguous (a CPU one), else make() (NOTE [ random factories draw in memory order ])."""
    if dev is cpu and (memory_format is not None or not input._data.flags.c_contiguous):
        from minitorch._factories import empty_like

        t = empty_like(input, dtype=dt, device=dev, memory_format=memory_format)
        if not t.is_contiguous():
            fill(t)
            return _require_grad(t, requires_grad)
    return _laid_like(make(), input, memory_format, op)


def _floats(dev, generator, op, method: str, shape, dt):
    """Uniform [0, 1) or standard normal samples of dtype dt (float16/bfloat16 drawn as float32)."""
    npdt = _dtype.numpy_dtype(dt)
    s = _stream(dev, generator, op)
    if s is not None:
        return s.wrap(torch_floats(s, method, shape, dt))
    draw_dt = npdt if dt is _dtype.float32 or dt is _dtype.float64 else np.dtype(np.float32)

    def draw(rng):
        arr = getattr(rng, method)(shape, dtype=draw_dt)
        if draw_dt != npdt:
            arr = arr.astype(npdt)
            if method == "random":  # rounding may reach 1.0: keep [0, 1)
                below_one = npdt.type(1.0 - _dtype.finfo(dt).eps / 2)
                xp = backend_of(dev).xp
                arr = xp.asarray(xp.minimum(arr, below_one))  # an array when 0-d, too
        return arr

    return _sample(dev, generator, op, draw)


def torch_floats(s, method: str, shape, dt, mean=0.0, std=1.0, lo=0.0, hi=1.0, dense=True):
    """torch's uniform_(lo, hi) ('random') or normal_(mean, std) ('standard_normal') samples of
    dtype dt and the given shape from the torch stream s (host arrays); dense=False: a strided
    tensor's (torch's one-at-a-time normal path)."""
    shape = tuple(shape)
    n = math.prod(shape)
    npdt = _dtype.numpy_dtype(dt)
    if method == "random":
        arr = _ts.uniform(s, n, dt.name, lo, hi, npdt)
    elif n >= 16 and dense:
        arr = _tsn.normal_fill(s, n, dt.name, mean, std).astype(npdt, copy=False)
    else:
        # torch's serial normal computes in float32 for the half types, then rounds: two steps
        arr = _tsn.normal_serial(s, n, mean, std)
        if npdt.itemsize == 2:
            arr = arr.astype("float32")
        arr = arr.astype(npdt, copy=False)
    if arr.base is None:  # fresh: shaped in place, so the tensor owns its memory as zeros()'s
        arr.shape = shape  # does (a reshape() view has a base: expand's and the engine's
        return arr  # owned-array routes passed such tensors by)
    return arr.reshape(shape)


# NOTE [ torch's trunc_normal_ ]
# torch 2.x's nn.init.trunc_normal_ is a rejection sampler that reads its masks on the host.
# When [a, b] holds more than 0.3 of N(mean, std)'s mass: normal_(mean, std), then while any
# value lies outside [a, b] (the bounds rounded to the dtype), a fresh full-size normal_ draw
# replaces exactly those. Otherwise: uniform_(a, b) candidates, accepted where
# log(uniform_()) > -((c - mean) / std)^2 / 2 - log_peak (each step one dtype operation, the
# numbers in float32 for float16 / bfloat16); the pending ones get fresh candidates and fresh
# uniforms (both full size) until none is pending. torch_trunc_normal replays both on the host
# stream; the float32 log is NumPy's, so an acceptance could differ only for a draw whose
# log lands within an ulp of its threshold.


def torch_trunc_normal(s, shape, dt, mean, std, a, b, dense=True):
    """torch.nn.init.trunc_normal_'s values (dtype dt, host array) from the torch stream s."""
    shape = tuple(shape)
    npdt = _dtype.numpy_dtype(dt)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
        lo, hi = npdt.type(a), npdt.type(b)
        out = torch_floats(s, "standard_normal", shape, dt, mean, std, dense=dense)
        while True:
            bad = (out < lo) | (out > hi)
            if not bad.any():
                return out
            out = np.where(bad, torch_floats(s, "standard_normal", shape, dt, mean, std), out)
    work = np.float64 if dt is _dtype.float64 else np.float32
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def threshold(c):  # -((c - mean) / std)^2 / 2 - log_peak, rounded to dt at each step
        # (torch's sub_ rounds its number to dt first; div_ keeps it in float32 for float16)
        c = (c.astype(work) - work(npdt.type(mean))).astype(npdt).astype(work)
        c = (c / work(std)).astype(npdt).astype(work)
        c = (c * c).astype(npdt).astype(work)
        c = (c * work(-0.5)).astype(npdt).astype(work)
        return (c - work(npdt.type(log_peak))).astype(npdt)

    def rejected(c):
        with np.errstate(divide="ignore"):
            u = torch_floats(s, "random", shape, dt).astype(work)
            return np.log(u).astype(npdt) > threshold(c)

    out = torch_floats(s, "random", shape, dt, lo=a, hi=b)
    pending = rejected(out)
    while pending.any():
        cand = torch_floats(s, "random", shape, dt, lo=a, hi=b)
        out = np.where(pending, cand, out)
        pending &= rejected(cand)
    return out


_LIKE_KWARGS = (
    "torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False"
)


def _overloads(op: str) -> tuple:
    """torch's overloads of rand, randn, randperm, rand(n)_like or randint_like, as it lists
    them."""
    if op == "randint_like":
        heads = ("int low, int high", "Tensor high", "int high")
        gens = ("torch.Generator generator, ", "")
        return tuple(f"Tensor input, {h}, *, {g}{_LIKE_KWARGS}" for h in heads for g in gens)
    if op.endswith("_like"):
        return (f"Tensor input, *, torch.Generator generator, {_LIKE_KWARGS}",
                f"Tensor input, *, {_LIKE_KWARGS}")  # fmt: skip
    if op == "randperm":
        return (f"int n, *, torch.Generator generator, {_SIZE_KWARGS}", f"int n, *, {_SIZE_KWARGS}")
    if op == "randint":
        return _RANDINT_OVERLOADS
    return _NO_VARARGS_OVERLOADS[op]


def _like_call_error(op: str, named, extra: tuple, unknown: dict, **keywords) -> TypeError:
    """torch's TypeError for a rand(n)_like or randint_like call without its input (REQUIRED in
    `named`, the (name, value) pairs of the arguments given before `extra`), with the `extra`
    positional arguments past its last one or with `unknown` keywords: the overloads listed, or
    the one overload the argument count fits named (NOTE [ Argument parser errors ]). For error
    paths only."""
    from minitorch._ops._parser_errors import overload_error, with_extra

    named = with_extra(named, extra)
    named += [(k, v) for k, v in keywords.items() if v is not None and v is not False]
    named += list(unknown.items())
    forms = _overloads(op)
    return overload_error(op, forms, forms, named, unknown=tuple(unknown))


def _not_a_generator(op: str, args: tuple, **keywords) -> TypeError:
    """torch's TypeError for rand, randn, randperm, rand(n)_like or randint_like given a
    `generator=` that is no Generator: the call matches none of the overloads. torch lists the
    keywords given in about the reverse of the call's order; here: the reverse of the
    signature's (as randint's)."""
    forms = _overloads(op)
    given = passed_keywords(op, keywords)  # (dtype=None given is listed too)
    got = [_typename(a) for a in args] + [f"{k}={_typename(v)}" for k, v in reversed(given.items())]
    text = ", ".join(got) + (", " if given and not args else "")
    listed = "".join(f" * ({o})\n" for o in forms)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({text}), but expected "
        f"one of:\n{listed}"
    )


def _option_error(
    op: str, error: TypeError, named: list, extra: tuple, kwargs: dict, **options
) -> TypeError:
    """option_error for a call of rand, randn, randint, randperm or a random *_like
    (`_overloads(op)`) that raised `error`: `named`, the (name, value) pairs of its first
    arguments, then the positional `extra` (rand's sizes, randint's arguments); `kwargs`, other
    arguments given by keyword (size=, low=, ...) or collected by its signature (those no
    overload has among them); `options`, its options. NOTE [ Factory option errors ]. For error
    paths only."""
    from minitorch._ops._parser_errors import _params, option_error, overload_error, with_extra

    forms = _overloads(op)
    params = {p[0] for form in forms for p in _params(form) if p is not None}
    named = with_extra(named, extra) + [(k, v) for k, v in kwargs.items() if k in params]
    unknown = {k: v for k, v in kwargs.items() if k not in params}
    err = option_error(op, forms, named, options, unknown, error)
    text = str(error)
    if err is error and " must be " in text and "failed to unpack" not in text:
        # an argument of the wrong type: with an option passed (even at its default), the call
        # fits two overloads by its count, and torch lists them instead of naming it
        passed = passed_keywords(op, options)
        if passed:
            err = overload_error(op, forms, forms, named + list(passed.items()))
    return err


def _no_arguments(op: str, *given) -> None:
    """torch's parser error for rand() or randn() called with no argument at all: no overload
    is plausible then (one keyword alone makes the generator-free one plausible, and torch
    names the missing size)."""
    if all(v is None or v is False for v in given):
        from minitorch._call_site import call_keywords

        if not call_keywords(op):  # (rand(generator=None): torch names the missing size)
            raise _not_a_generator(op, ())


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kwargs,
) -> Tensor:
    """Uniform samples on [0, 1). Mirrors torch.rand (see Generator for the streams)."""
    if size and generator is None and out is None and layout is None and not kwargs:
        t = _plain_samples("random", size, dtype, device, requires_grad, pin_memory)
        if t is not None:
            return t
    return _samples(
        "rand", size, kwargs, generator, out, dtype, layout, device, requires_grad, pin_memory
    )


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **kwargs,
) -> Tensor:
    """Standard normal samples. Mirrors torch.randn."""
    if size and generator is None and out is None and layout is None and not kwargs:
        t = _plain_samples("standard_normal", size, dtype, device, requires_grad, pin_memory)
        if t is not None:
            return t
    return _samples(
        "randn", size, kwargs, generator, out, dtype, layout, device, requires_grad, pin_memory
    )


# NOTE [ The random factories' plain calls ]
# rand(3, 4), randn(2, 3, dtype=float64, requires_grad=True), randint(0, 10, (3, 4)),
# randperm(n) and normal(0., 1., (3, 4)) are called in every step of many loops; their general
# routes read every argument the way torch's parser does, which costs more than the draw itself
# for small sizes. A plain call (Python ints for the bounds and the size, no generator, out,
# layout or device, the default or a float32/float64 dtype) on the CPU default device first
# tries a helper that tests exactly that and makes the tensor the general route makes: the same
# stream functions in the same order, so the numbers and the generator's state after the draw
# are the same. Anything else (a keyword the helper does not take, a negative size, a bound out
# of range, another default device) returns None and takes the general route, which raises
# torch's errors. tests/test_s45_factories.py compares each with the general route (the
# helpers patched to return None).


def _plain_size(size):
    """rand's and randn's *size as a shape where it is Python ints >= 0, as varargs or one
    tuple, list or Size (_shape's common case), else None."""
    a = size[0]
    seq = a if len(size) == 1 and a.__class__ in _SEQUENCES else size
    for n in seq:
        if n.__class__ is not int or n < 0:
            return None
    return tuple(seq)


def _plain_samples(method, size, dtype, device, requires_grad, pin_memory):
    """rand's ('random') or randn's ('standard_normal') result for a plain call on the CPU, or
    None (NOTE [ The random factories' plain calls ])."""
    if dtype is None:
        dt = _dtype.default_float()
    elif dtype is _dtype.float32 or dtype is _dtype.float64:
        dt = dtype
    else:
        return None
    if (
        device is not None
        or pin_memory is not False
        or (requires_grad is not False and requires_grad is not True)
    ):
        return None
    shape = _plain_size(size)
    if shape is None or default_device() is not cpu:
        return None
    s = _stream(cpu, None, "rand" if method == "random" else "randn")
    if s is None:
        return None
    n = math.prod(shape)
    if n < 16 and method == "standard_normal":
        arr = _few_normals(s, n, dt)
        arr.shape = shape
    else:
        try:
            arr = torch_floats(s, method, shape, dt)
        except (ValueError, MemoryError) as e:  # too big: torch's parser's or allocator's error
            raise shape_error(shape, dt.itemsize, error=e) from None
    t = _make(s.wrap(arr), cpu, False, None)
    if requires_grad:
        t._requires_grad = True
    return t


def _few_normals(s, n: int, dt):
    """torch_floats' n < 16 standard normals of float32/float64 dt (torch's serial path): the
    numbers and the stream's state after them as normal_serial's (its cached second Box-Muller
    value first, then fresh pairs, one left cached for an odd count), made into the array from
    the Python floats at once: no float64 array filled and then cast (randn(5): ~0.6 us less);
    a float64 value rounds to float32 as astype rounds it."""
    vals = []
    if n and s.normal_double is not None:
        vals.append(s.normal_double)
        s.normal_double = None
    if n > len(vals):
        vals += _tsn._normal_pairs(s, n - len(vals))
    return np.array(vals, dtype=_dtype.numpy_dtype(dt))


# op -> (the NumPy-like Generator method drawing its floats, the kernel torch's dtype error names,
# the in-place method drawing into an out= tensor)
_SAMPLERS = {
    "rand": ("random", "check_uniform_bounds", "uniform_"),
    "randn": ("standard_normal", "normal_kernel_cpu", "normal_"),
}


def _samples(op, size, kwargs, generator, out, dtype, layout, device, requires_grad, pin_memory):
    """rand or randn (`op`), their arguments as the user gave them."""
    method, kernel, fill = _SAMPLERS[op]
    try:
        if generator is not None and not isinstance(generator, Generator):
            raise _not_a_generator(
                op, size, **kwargs, generator=generator, out=out, dtype=dtype, layout=layout,
                device=device, requires_grad=requires_grad, pin_memory=pin_memory,
            )  # fmt: skip
        if layout is not None or pin_memory is not False:
            check_options(op, layout, pin_memory)
        if out is not None:
            return _into_out(
                out,
                dtype,
                op,
                _out_drawn_in_place(
                    out,
                    lambda: _shape(size, _size_kwarg(dict(kwargs), op), op),
                    lambda dt, dev: _samples(
                        op, size, kwargs, generator, None, dt, None, dev, False, False
                    ),
                    lambda t: getattr(t, fill)(generator=generator),
                ),
            )
        if not size and not kwargs:
            _no_arguments(op, generator, dtype, layout, device, requires_grad, pin_memory)
        shape = _shape(size, _size_kwarg(kwargs, op), op)
        dev = _device(device)
        if op == "randn" and not math.prod(shape):
            return _empty_normals(shape, dtype, dev, requires_grad, op)
        dt = _float_dtype(dtype, op, kernel)
        try:
            arr = _floats(dev, generator, op, method, shape, dt)
        except (ValueError, MemoryError) as e:  # too big: torch's parser's or allocator's error
            raise shape_error(shape, dt.itemsize, op, e) from None
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    except TypeError as e:
        raise _option_error(
            op, e, [], size, kwargs, generator=generator, out=out, dtype=dtype, layout=layout,
            device=device, pin_memory=pin_memory, requires_grad=requires_grad,
        ) from None  # fmt: skip


def _empty_normals(shape, dtype, dev, requires_grad, op: str) -> Tensor:
    """randn's or normal's result of no element: torch's normal_ runs no kernel on an empty
    tensor, so any dtype passes (randn(0, dtype=torch.int64) is an empty int64 tensor)."""
    from minitorch._factories import _filled

    dt = _dtype_arg(dtype, _dtype.default_float(), op)
    return _filled(0, shape, dt, dev, requires_grad)


def _int_arg(x, op: str, name: str, pos: int) -> int:
    n = _as_int(x)
    if n is None:
        raise TypeError(
            f"{op}(): argument '{name}'{_at(pos, name, op)} must be int, not {_typename(x)}"
        )
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return n


_RANDINT_OVERLOADS = tuple(
    f"{head}, *, {gen}{_SIZE_KWARGS}"
    for head in ("int high, tuple of ints size", "int low, int high, tuple of ints size")
    for gen in ("torch.Generator generator, ", "")
)
_RANDINT_FORMS = "".join(f" * ({form})\n" for form in _RANDINT_OVERLOADS)


def _randint_invalid(args, keywords) -> TypeError:
    """torch's TypeError for randint arguments no overload takes. torch lists the keywords in
    about the reverse of the call's order; here: the reverse of the signature's."""
    got = [_typename(a) for a in args]
    got += [f"{k}={_typename(v)}" for k, v in reversed(keywords.items())]
    text = ", ".join(got) + (", " if keywords and not args else "")
    return TypeError(
        f"randint() received an invalid combination of arguments - got ({text}), but expected "
        f"one of:\n{_RANDINT_FORMS}"
    )


def _randint_check_types(args, names, keywords, dtype) -> None:
    """Raises TypeError when an argument of randint has a type no overload takes, or size or
    high is missing."""
    values = dict(zip(names, args, strict=False))
    if "high" not in values and "high" not in keywords or "size" not in values | keywords:
        raise TypeError("missing")
    for name in ("low", "high"):
        if name in values or name in keywords:
            _int_arg(values.get(name, keywords.get(name)), "randint", name, 1)
    size = values.get("size", keywords.get("size"))
    # torch's overload check reads a size's first element only: a bad later one is reported by
    # the overload that matched, as it unpacks the size ("failed to unpack the object at pos")
    if not (isinstance(size, (tuple, list)) and size and _size_int(size[0]) is not None):
        _shape_seq(size, "randint", None)
    if dtype is not None:
        _dtype_arg(dtype, _dtype.int64, "randint")
    gen = keywords.get("generator")
    if gen is not None and not isinstance(gen, Generator):
        raise TypeError("generator")


def _plain_randint(args):
    """randint(low, high, size) or randint(high, size) of Python ints (the bounds within int64,
    low < high, a tuple, list or Size of ints >= 0) and no keyword on the CPU: the general
    route's int64 draw, or None (NOTE [ The random factories' plain calls ])."""
    if len(args) == 3:
        lo, hi, size = args
    elif len(args) == 2:
        lo = 0
        hi, size = args
    else:
        return None
    if not (
        lo.__class__ is int
        and hi.__class__ is int
        and size.__class__ in _SEQUENCES
        and -(1 << 63) <= lo < hi < (1 << 63)
    ):
        return None
    for n in size:
        if n.__class__ is not int or n < 0:
            return None
    if default_device() is not cpu:
        return None
    s = _stream(cpu, None, "randint")
    if s is None:
        return None
    shape = tuple(size)
    try:
        arr = _ts.random_from_to(s, math.prod(shape), hi - lo, lo, "int64")
    except (ValueError, MemoryError) as e:  # too big: torch's parser's or allocator's error
        raise shape_error(shape, 8, "randint", e) from None
    return _make(s.wrap(arr.astype(np.int64).reshape(shape)), cpu, False, None)


def randint(
    *args,
    low=None,
    high=None,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """Integers drawn uniformly from [low, high); randint(high, size) or randint(low, high, size).
    Mirrors torch.randint (int64 unless dtype= is given)."""
    if (
        low is None
        and high is None
        and size is None
        and generator is None
        and out is None
        and dtype is None
        and layout is None
        and device is None
        and requires_grad is False
        and pin_memory is False
        and not unknown
    ):
        t = _plain_randint(args)
        if t is not None:
            return t
    try:
        if unknown:  # (torch lists the overloads: the handler below)
            raise unexpected_keyword("randint", next(iter(unknown)))
        if layout is not None or pin_memory is not False:
            check_options("randint", layout, pin_memory)
        given = {"low": low, "high": high, "size": size}
        if len(args) == 3 or (len(args) == 2 and size is not None):
            names = ("low", "high", "size")[: len(args)]
        elif len(args) == 2 or (len(args) == 1 and size is not None and high is None):
            names = ("high", "size")[: len(args)]
        elif len(args) == 1 and high is not None:
            names = ("low",)
        elif not args:
            names = ()
        else:
            raise _randint_invalid(args, {})
        # torch names the bad argument only when one overload takes that many arguments (two);
        # else it lists the overloads. Keywords given their default value are not seen here.
        keywords = {"low": low, "high": high, "size": size, "generator": generator, "out": out}
        keywords.update(dtype=dtype, layout=layout, device=device)
        keywords.update(pin_memory=pin_memory or None, requires_grad=requires_grad or None)
        keywords = {k: v for k, v in keywords.items() if v is not None}
        if len(args) + len(keywords) != 2:
            try:
                _randint_check_types(args, names, keywords, dtype)
            except TypeError:
                raise _randint_invalid(args, keywords) from None
        for name, value in zip(names, args, strict=False):
            if given[name] is not None:
                raise TypeError(f"randint() got multiple values for argument '{name}'")
            given[name] = value
        if given["high"] is None or given["size"] is None:
            missing = "high" if given["high"] is None else "size"
            raise TypeError(f"randint() missing required argument '{missing}'")
        if out is not None:
            lo_hi = (given["high"],) if given["low"] is None else (given["low"], given["high"])
            return _into_out(
                out,
                dtype,
                "randint",
                _out_drawn_in_place(
                    out,
                    lambda: _shape_seq(given["size"], "randint", None),
                    lambda dt, dev: randint(
                        *lo_hi, given["size"], generator=generator, dtype=dt, device=dev
                    ),
                    lambda t: t.random_(*lo_hi, generator=generator),
                ),
            )
        pos = 2 if "low" in names else 1
        dims = given["size"]
        if not (dims.__class__ in _SEQUENCES and (not dims or _size_int(dims[0]) is not None)):
            # torch's parser checks the size's type before it unpacks the bounds (an int past
            # int64 is an error of the unpacking): randint(2**63, (2.5,)) names the size
            _shape_seq(dims, "randint", pos + 1 if "size" in names else None)
        hi = _int_arg(given["high"], "randint", "high", pos)
        lo = 0 if given["low"] is None else _int_arg(given["low"], "randint", "low", 1)
        shape = _shape_seq(given["size"], "randint", pos + 1 if "size" in names else None)
        if lo >= hi:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
            )
        dt = _dtype_arg(dtype, _dtype.int64, "randint")
        if dt.is_floating_point:  # torch's random_(low, high): update_from / update_to
            half = dt is _dtype.float16
            lo, hi = _ts.float_bounds(lo, hi, _ts._DIGITS[dt.name], 65504 if half else None)
            if lo >= hi:
                raise RuntimeError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    f"but got from={lo} >= to={hi}"
                )
            if half and (lo < -65504 or hi - 1 > 65504):
                which = "from" if lo < -65504 else "to - 1"
                raise RuntimeError(f"{which} is out of bounds for c10::Half")
            _warn_float_bounds(lo, hi, dt)
        if dt._kind < 2:  # the bounds must fit the integer / bool dtype
            info = (
                (0, 1) if dt is _dtype.bool
                else (int(np.iinfo(dt.np).min), int(np.iinfo(dt.np).max))
            )  # fmt: skip
            if not info[0] <= lo <= info[1]:
                raise RuntimeError(f"from is out of bounds for {_C_TYPES[dt.name]}")
            if hi - 1 > info[1]:
                raise RuntimeError(f"to - 1 is out of bounds for {_C_TYPES[dt.name]}")
        dev = _device(device)
        npdt = _dtype.numpy_dtype(dt)
        s = _stream(dev, generator, "randint")
        if s is not None:
            n = math.prod(shape)
            try:
                arr = _ts.random_from_to(s, n, hi - lo, lo, dt.name)
            except (ValueError, MemoryError) as e:  # too big: torch's parser's or allocator's
                raise shape_error(shape, npdt.itemsize, "randint", e) from None
            arr = s.wrap(arr.astype(npdt).reshape(shape))
        else:
            arr = _sample(
                dev,
                generator,
                "randint",
                lambda rng: rng.integers(lo, hi, size=shape, dtype=np.int64).astype(npdt),
            )
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    except TypeError as e:
        given = {"low": low, "high": high, "size": size, **unknown}
        raise _option_error(
            "randint", e, [], args, {k: v for k, v in given.items() if v is not None},
            generator=generator, out=out, dtype=dtype, layout=layout, device=device,
            pin_memory=pin_memory, requires_grad=requires_grad,
        ) from None  # fmt: skip


# torch's name of a float dtype in its random_ warnings
_FLOAT_C_NAMES = {"float64": "double", "float32": "float", "float16": "c10::Half",
                  "bfloat16": "c10::BFloat16"}  # fmt: skip


def _warn_float_bounds(lo: int, hi: int, dt) -> None:
    """torch's warning for a randint bound (from, to - 1) beyond the integers float dtype dt
    holds exactly, one for each."""
    digits = _ts._DIGITS[dt.name]
    for which, value in (("from", lo), ("to - 1", hi - 1)):
        if not -(1 << digits) <= value <= 1 << digits:
            warnings.warn(
                f"{which} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                f"limitations {_FLOAT_C_NAMES[dt.name]} can support discrete uniform "
                "distribution only within this range. This warning will become an error in "
                "version 1.7 release, please fix the code in advance",
                UserWarning,
                stacklevel=3,
            )


def _plain_randperm(n: int):
    """randperm(n) of a Python int n >= 0 and no keyword on the CPU: the general route's int64
    permutation, or None (NOTE [ The random factories' plain calls ])."""
    if not 0 <= n < (1 << 63) or default_device() is not cpu:
        return None
    s = _stream(cpu, None, "randperm")
    if s is None:
        return None
    return _make(s.wrap(_ts.randperm(s, n).astype(np.int64)), cpu, False, None)


def randperm(
    n=REQUIRED,
    *args,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """A random permutation of 0..n-1. Mirrors torch.randperm (int64 unless dtype= is given)."""
    if (
        n.__class__ is int
        and not args
        and generator is None
        and out is None
        and dtype is None
        and layout is None
        and device is None
        and requires_grad is False
        and pin_memory is False
        and not unknown
    ):
        t = _plain_randperm(n)
        if t is not None:
            return t
    try:
        if n is REQUIRED and not args:  # with no keyword either, torch's parser lists the overloads
            from minitorch._call_site import call_keywords

            if call_keywords("randperm", depth=1):
                raise missing_positional("randperm", "n")
        if (
            n is REQUIRED
            or args
            or (generator is not None and not isinstance(generator, Generator))
            # torch's parser names a non-int n only when n is the one argument given; with a
            # keyword too (random_split's generator=) no overload matches
            or (
                _as_int(n) is None
                and (
                    any(v is not None for v in (generator, out, dtype, layout, device))
                    or requires_grad
                    or pin_memory
                )
            )
        ):
            # a second positional (randperm(3, 4)) matches no overload either
            raise _not_a_generator(
                "randperm", () if n is REQUIRED else (n, *args), generator=generator, out=out,
                dtype=dtype, layout=layout, device=device, requires_grad=requires_grad,
                pin_memory=pin_memory,
            )  # fmt: skip
        if unknown:  # (torch lists the overloads: the handler below)
            raise unexpected_keyword("randperm", next(iter(unknown)))
        if layout is not None or pin_memory is not False:
            check_options("randperm", layout, pin_memory)
        if out is not None:

            def make(dt, dev):
                count = _int_arg(n, "randperm", "n", 1)
                if count < 0:  # (torch's randperm_out checks n before it resizes out)
                    raise RuntimeError(f"n must be non-negative, got{count}")
                return randperm(count, generator=generator, dtype=dt, device=dev)

            return _into_out(out, dtype, "randperm", make)
        n = _int_arg(n, "randperm", "n", 1)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        dt = _dtype_arg(dtype, _dtype.int64, "randperm")
        if dt.name in _dtype.NO_RANGE_KERNEL:
            name = _dtype.scalar_name(dt)
            raise NotImplementedError(f"\"randperm\" not implemented for '{name}'")
        if dt is _dtype.float16 and n > 2049:  # beyond it float16 cannot hold every integer
            raise RuntimeError("n cannot be greater than 2049 for Half type.")
        if dt is _dtype.float32 and n > (1 << 24) + 1:  # (torch checks no such bound for bfloat16)
            raise RuntimeError("n cannot be greater than 2^24+1 for Float type.")
        if dt._kind == 1 and n - 1 > np.iinfo(dt.np).max:
            raise _dtype.overflow_error(_dtype.numpy_dtype(dt).name)
        dev = _device(device)
        npdt = _dtype.numpy_dtype(dt)
        b = backend_of(dev)
        s = _stream(dev, generator, "randperm")
        if s is not None:
            arr = s.wrap(_ts.randperm(s, n).astype(npdt))
        else:
            arr = _sample(dev, generator, "randperm", lambda rng: b.randperm(rng, n).astype(npdt))
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    except TypeError as e:
        raise _option_error(
            "randperm", e, [] if n is REQUIRED else [("n", n)], args, unknown,
            generator=generator, out=out, dtype=dtype, layout=layout, device=device,
            pin_memory=pin_memory, requires_grad=requires_grad,
        ) from None  # fmt: skip


# --- normal ---


# NOTE [ normal is not reparameterised ]
# torch.normal(mean, std) with tensor arguments records a node (NormalBackward1/2/3, so the result
# requires grad) whose gradients are defined as zero: it samples, it is not the
# reparameterisation mean + std * z (distributions.Normal.rsample is). minitorch does the same.


def _no_grad_for(grad):
    return zeros_like(grad)  # a new tensor without history, also under create_graph


class _Normal(Function):
    """out = mean + std * z, z ~ N(0, 1);  grad_mean = grad_std = 0 (see NOTE above)"""

    _node_name = "NormalBackward3"

    @staticmethod
    def forward(ctx, mean, std, *, z):
        return (mean._data + std._data * z).astype(z.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        need = ctx.needs_input_grad
        return (
            _no_grad_for(grad) if need[0] else None,
            _no_grad_for(grad) if need[1] else None,
        )


class _NormalMean(Function):
    """out = mean + std * z (a number std);  grad_mean = 0"""

    _node_name = "NormalBackward1"

    @staticmethod
    def forward(ctx, mean, *, std, z):
        return (mean._data + std * z).astype(z.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return _no_grad_for(grad)


class _NormalStd(Function):
    """out = mean + std * z (a number mean);  grad_std = 0"""

    _node_name = "NormalBackward2"

    @staticmethod
    def forward(ctx, std, *, mean, z):
        return (std._data * z + mean).astype(z.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return _no_grad_for(grad)


def _fmt_number(x) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


_NORMAL_FORMS = (
    "Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None",
    "Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None",
    "float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None",
    "float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    f"{_SIZE_KWARGS}",
)


def _normal_error(args: tuple, keywords: dict) -> TypeError:
    """torch's parser error for a call of normal that no overload takes, with the arguments as
    the user's call gave them (NOTE [ Argument parser errors ]): read from the call, or where
    that cannot be told, `args` (mean, std, size and any more) by position and the keywords
    not at their defaults. For error paths only."""
    from minitorch._call_site import call_arguments, called_name
    from minitorch._ops._parser_errors import _shown_order, invalid_arguments

    values = dict(zip(("mean", "std", "size"), args, strict=False), **keywords)
    call = call_arguments("normal") if called_name() == "normal" else None
    if call is None:
        n = len(args) if len(args) > 3 else next((i for i, a in enumerate(args) if a is None), 3)
        names = [k for k, v in keywords.items() if v is not None and v is not False]
    else:
        n, names = call
    kwargs = _shown_order({k: values[k] for k in names if k in values}, "normal")
    return invalid_arguments("normal", _NORMAL_FORMS, args[:n], kwargs)


def _normal_parses(mean, std, size, generator, out, dtype, layout, flags) -> bool:
    """Whether torch's (float mean, float std, tuple of ints size, ...) overload takes these
    argument types (a later element of size is checked when it is read); flags: requires_grad
    and pin_memory."""
    from minitorch._ops._parser_errors import _fits

    if not (_fits(mean, "float", True) and _fits(std, "float", True)):
        return False
    if size.__class__ not in (tuple, list, Size) or size and _size_int(size[0]) is None:
        return False  # (a bare int is no size here: size is not an int[N] argument)
    return (
        (generator is None or isinstance(generator, Generator))
        and (out is None or isinstance(out, Tensor))
        and (dtype is None or isinstance(dtype, _dtype.dtype))
        and (layout is None or layout.__class__.__name__ == "layout")
        and all(f.__class__ is bool for f in flags)
    )


_EXACT = 2**53  # the ints a float holds exactly (normal's plain mean and std)


def _plain_normal(mean: float, std: float, size):
    """normal(mean, std, size) of Python numbers (std >= 0) and a size of ints >= 0, no keyword,
    on the CPU: the general route's normal_(mean, std), or None (NOTE [ The random factories'
    plain calls ])."""
    for n in size:
        if n.__class__ is not int or n < 0:
            return None
    if default_device() is not cpu:
        return None
    s = _stream(cpu, None, "normal")
    if s is None:
        return None
    arr = torch_floats(s, "standard_normal", tuple(size), _dtype.default_float(), mean, std)
    return _make(s.wrap(arr), cpu, False, None)


def normal(
    mean=None,
    std=None,
    size=None,
    *more,  # (none: torch's parser error)
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """Normal samples: mean and std tensors (broadcast, differentiable) or numbers with a size.
    Mirrors torch.normal.

    Differences from torch: on a device other than the CPU a negative element of a std tensor is
    not reported (checking it would read the device's data back to the host); std=None beside a
    tensor mean is read as std left out (torch refuses a None std).
    """
    if (
        (mean.__class__ is float or mean.__class__ is int and -_EXACT < mean < _EXACT)
        and (std.__class__ is float or std.__class__ is int and -_EXACT < std < _EXACT)
        and size.__class__ in _SEQUENCES
        and std >= 0  # (not NaN)
        and not more
        and generator is None
        and out is None
        and dtype is None
        and layout is None
        and device is None
        and requires_grad is False
        and pin_memory is False
        and not unknown
    ):
        t = _plain_normal(float(mean), float(std), size)
        if t is not None:
            return t
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    keywords = dict(generator=generator, out=out, dtype=dtype, layout=layout, device=device)
    keywords.update(pin_memory=pin_memory, requires_grad=requires_grad)
    if std is None and mean_t and size is None:
        std = 1.0  # (Tensor mean, float std = 1): torch's only default of mean and std
    if more or mean is None or std is None or unknown:  # (normal(x, foo=1): the listing)
        raise _normal_error((mean, std, size, *more), {**keywords, **unknown})
    if size is not None and (mean_t or std_t):
        # with a size, torch's only overload takes two floats: a 0-d tensor is read as one
        # (NOTE [ Number-like arguments ]), any other tensor matches no overload
        try:
            mean, std = _number_arg(mean, "normal", "mean"), _number_arg(std, "normal", "std")
        except TypeError:
            raise _normal_error((mean, std, size), keywords) from None
        mean_t = std_t = False
    if not (mean_t or std_t):
        typed = (generator, out, dtype, layout, (requires_grad, pin_memory))
        if size is None or not _normal_parses(mean, std, size, *typed):
            raise _normal_error((mean, std, size), keywords)
        if pin_memory:
            _check_pin_memory()
        if out is not None:
            return _into_out(
                out,
                dtype,
                "normal",
                _out_drawn_in_place(
                    out,
                    lambda: _shape_seq(size, "normal", 3),
                    lambda dt, dev: normal(
                        mean, std, size, generator=generator, dtype=dt, device=dev
                    ),
                    lambda t: t.normal_(mean, std, generator=generator),
                ),
            )
        shape = _shape_seq(size, "normal", 3)  # (torch makes the tensor, then normal_ checks)
        if not float(std) >= 0:  # NaN too
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_number(std)}")
        dev = _device(device)
        if not math.prod(shape):
            return _empty_normals(shape, dtype, dev, requires_grad, "normal")
        dt = _float_dtype(dtype, "normal", "normal_kernel_cpu")
        st = _stream(dev, generator, "normal")
        if st is not None:  # torch: normal_(mean, std), its fused arithmetic included
            arr = st.wrap(torch_floats(st, "standard_normal", shape, dt, float(mean), float(std)))
        else:
            z = _floats(dev, generator, "normal", "standard_normal", shape, dt)
            arr = (z * z.dtype.type(std) + z.dtype.type(mean)).astype(z.dtype, copy=False)
        return _require_grad(_make(arr, dev, False, None), requires_grad)
    ref = mean if mean_t else std
    other = std if mean_t else mean
    if (
        (generator is not None and not isinstance(generator, Generator))
        or (out is not None and not isinstance(out, Tensor))
        or (not (mean_t and std_t) and not isinstance(other, (int, float, np.number)))
        or any(v is not None for v in (dtype, layout, device))
        or requires_grad is not False
        or pin_memory is not False
    ):
        # the tensor overloads take no other generator or out, no factory keywords;
        # normal(mean_tensor, "a"): the float beside a tensor is no number
        raise _normal_error((mean, std, size), keywords)
    dev = ref._device
    if std_t:
        if dev is cpu and std._data.size and not bool((std._data >= 0).all()):  # NaN too
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not float(std) >= 0:  # NaN too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt_number(std)}")
    from minitorch._ops._common import broadcast_pair

    shape = broadcast_pair(mean.shape, std.shape) if mean_t and std_t else ref.shape
    if not ref.dtype.is_floating_point:  # (an empty result runs no kernel: See _empty_normals)
        if out is None and not math.prod(shape):
            return _empty_normals(tuple(shape), ref.dtype, dev, False, "normal")
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{_dtype_label(ref.dtype)}'"
        )
    if out is not None and not (isinstance(out, Tensor) and out.dtype.is_floating_point):
        if isinstance(out, Tensor):
            raise NotImplementedError(
                f"\"normal_kernel_cpu\" not implemented for '{_dtype_label(out.dtype)}'"
            )
        raise TypeError(f"normal(): argument 'out' must be Tensor, not {_typename(out)}")
    z = _out_drawn_in_place(
        out,
        lambda: shape,
        lambda dt, dev: _floats(dev, generator, "normal", "standard_normal", tuple(shape), dt),
        lambda t: t.normal_(generator=generator),
    )(ref.dtype, dev)
    if isinstance(z, Tensor):  # drawn into out's layout (torch: out.normal_(), then the rest)
        z = z._data
    if mean_t and std_t:
        result = _Normal.apply(mean, std, z=z)
    elif mean_t:
        result = _NormalMean.apply(mean, std=float(std), z=z)
    else:
        result = _NormalStd.apply(std, mean=float(mean), z=z)
    if out is None:
        return result
    from minitorch._ops.inplace import write_out  # torch's out= of an op: resize warning etc.

    return write_out(out, result)


# --- _like ---


def _like_options(
    op, named, input, generator, memory_format, dtype, layout, device, pin_memory, requires_grad
):
    """(shape, dtype, device, requires_grad) of rand_like, randn_like or randint_like (`op`)
    from its options, or torch's listing of its overloads for a TypeError among them (`named`:
    the (name, value) pairs of its first arguments)."""
    try:
        if layout is not None or pin_memory is not False:
            check_options(op, layout, pin_memory)
        if requires_grad.__class__ is not bool:
            requires_grad = bool_flag(requires_grad, "requires_grad")
        return (*_like(input, dtype, device, op, memory_format), requires_grad)
    except TypeError as e:
        raise _option_error(
            op, e, named, (), {}, generator=generator, memory_format=memory_format, dtype=dtype,
            layout=layout, device=device, pin_memory=pin_memory, requires_grad=requires_grad,
        ) from None  # fmt: skip


def rand_like(
    input=REQUIRED,
    *extra,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """Mirrors torch.rand_like (laid out as memory_format asks, input's order by default)."""
    if extra or unknown or input is REQUIRED:
        raise _like_call_error(
            "rand_like", [("input", input)], extra, unknown, generator=generator,
            memory_format=memory_format, dtype=dtype, layout=layout, device=device,
            pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip
    if generator is not None and not isinstance(generator, Generator):
        raise _not_a_generator(
            "rand_like", (input,), generator=generator, memory_format=memory_format, dtype=dtype,
            layout=layout, device=device, pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip
    if getattr(input, "_dispatches", False):  # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(rand_like, locals())
        if r is not None:
            return r
    shape, dt, dev, requires_grad = _like_options(
        "rand_like", [("input", input)], input, generator, memory_format, dtype, layout,
        device, pin_memory, requires_grad,
    )  # fmt: skip
    return _like_drawn_in_place(
        "rand_like",
        input,
        memory_format,
        dt,
        dev,
        requires_grad,
        lambda: rand(shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad),
        lambda t: t.uniform_(generator=generator),
    )


def randn_like(
    input=REQUIRED,
    *extra,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """Mirrors torch.randn_like (laid out as memory_format asks, input's order by default)."""
    if extra or unknown or input is REQUIRED:
        raise _like_call_error(
            "randn_like", [("input", input)], extra, unknown, generator=generator,
            memory_format=memory_format, dtype=dtype, layout=layout, device=device,
            pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip
    if generator is not None and not isinstance(generator, Generator):
        raise _not_a_generator(
            "randn_like", (input,), generator=generator, memory_format=memory_format, dtype=dtype,
            layout=layout, device=device, pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip
    if getattr(input, "_dispatches", False):  # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(randn_like, locals())
        if r is not None:
            return r
    shape, dt, dev, requires_grad = _like_options(
        "randn_like", [("input", input)], input, generator, memory_format, dtype, layout,
        device, pin_memory, requires_grad,
    )  # fmt: skip
    return _like_drawn_in_place(
        "randn_like",
        input,
        memory_format,
        dt,
        dev,
        requires_grad,
        lambda: randn(
            shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad
        ),
        lambda t: t.normal_(generator=generator),
    )


def _randint_like_given(input, low, high) -> tuple:
    """The positional arguments of a randint_like call: randint_like(input) passes no bound
    (low's default 0 then stands for none). For error paths only."""
    if high is not None:
        return (input, low, high)
    if low.__class__ is int and low == 0:
        from minitorch._call_site import call_arguments

        called = call_arguments("randint_like")
        if called is not None and called[0] == 1 and "low" not in called[1]:
            return (input,)
    return (input, low)


def _randint_like_named(input, low, high) -> list:
    """The (name, value) pairs of the arguments a randint_like call gave before any past high
    (without input: by keyword only). For error paths only."""
    if input is not REQUIRED:
        given = _randint_like_given(input, low, high)
        return list(zip(("input", "low", "high"), given, strict=False))
    from minitorch._call_site import passed_by_keyword

    named = [("input", input)]
    if not (low.__class__ is int and low == 0) or passed_by_keyword("low", "randint_like"):
        named.append(("low", low))
    return named + ([] if high is None else [("high", high)])


def _randint_like_parses(input, low, high) -> bool:
    """Whether one of torch's randint_like overloads takes these arguments: (input, low, high)
    of ints or (input, high) of an int or a tensor."""
    from minitorch._ops._parser_errors import _fits

    if not isinstance(input, Tensor):
        return False
    if high is None:
        if low.__class__ is int and low == 0:  # randint_like(input, 0) or randint_like(input)
            return len(_randint_like_given(input, low, high)) == 2
        return isinstance(low, Tensor) or _fits(low, "int", parsing=True)
    return _fits(low, "int", parsing=True) and _fits(high, "int", parsing=True)


def randint_like(
    input=REQUIRED,
    low=0,
    high=None,
    *extra,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    pin_memory=False,
    **unknown,
) -> Tensor:
    """randint_like(input, high) or randint_like(input, low, high). Mirrors torch.randint_like."""
    if extra or unknown or input is REQUIRED:
        raise _like_call_error(
            "randint_like", _randint_like_named(input, low, high), extra, unknown,
            generator=generator, memory_format=memory_format, dtype=dtype, layout=layout,
            device=device, pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip
    if getattr(input, "_dispatches", False):  # NOTE [ *_like factories of a Tensor subclass ]
        r = like_subclass(randint_like, locals())
        if r is not None:
            return r
    if generator is not None and not isinstance(generator, Generator):
        raise _not_a_generator(
            "randint_like", (input, low) if high is None else (input, low, high),
            generator=generator, dtype=dtype, layout=layout, device=device,
            requires_grad=requires_grad, memory_format=memory_format, pin_memory=pin_memory,
        )  # fmt: skip
    if not _randint_like_parses(input, low, high):
        raise _not_a_generator(
            "randint_like", _randint_like_given(input, low, high),
            generator=generator, dtype=dtype, layout=layout, device=device,
            requires_grad=requires_grad, memory_format=memory_format, pin_memory=pin_memory,
        )  # fmt: skip
    shape, dt, dev, requires_grad = _like_options(
        "randint_like", _randint_like_named(input, low, high), input, generator, memory_format,
        dtype, layout, device, pin_memory, requires_grad,
    )  # fmt: skip
    if high is None:
        low, high = 0, low
    return _like_drawn_in_place(
        "randint_like",
        input,
        memory_format,
        dt,
        dev,
        requires_grad,
        lambda: randint(
            low, high, shape, generator=generator, dtype=dt, device=dev, requires_grad=requires_grad
        ),
        lambda t: t.random_(low, high, generator=generator),
    )
