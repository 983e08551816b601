"""The backend seam: devices and the one backend object per device kind (NumPy, CuPy, strict)."""

from __future__ import annotations

import threading

__all__ = ["Device", "device", "backend_of", "Backend", "register_backend", "cpu"]


class Device:
    """A device: 'cpu', 'cuda:N', or the test-only 'strict'. Mirrors torch.device.

    Instances are interned (one object per type/index), so ops compare devices with `is`.
    """

    __slots__ = ("type", "index", "_str", "backend")

    def __new__(cls, type_or_spec, index=None):
        return device(type_or_spec, index)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self._str

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, ValueError):
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self._str,))

    def __enter__(self):
        # `with torch.device('cuda'):` changes the default device of factories.
        default_device_stack().append(self)
        return self

    def __exit__(self, *exc):
        default_device_stack().pop()
        return False


_DEVICE_TYPES = ("cpu", "cuda", "strict")
_interned: dict = {}


def _make(type_: str, index):
    key = (type_, index)
    d = _interned.get(key)
    if d is None:
        d = object.__new__(Device)
        d.type = type_
        d.index = index
        d._str = type_ if index is None else f"{type_}:{index}"
        d.backend = None
        _interned[key] = d
    return d


def device(spec, index=None) -> Device:
    """Parse 'cpu', 'cuda', 'cuda:1', a Device, or an int (a CUDA ordinal) into a Device."""
    if spec.__class__ is Device:
        if index is not None:
            raise RuntimeError("device(): type (Device) and index given together")
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        if spec < 0:
            raise RuntimeError(f"Device index must not be negative, got {spec}")
        return _make("cuda", spec)
    if not isinstance(spec, str):
        raise TypeError(f"device(): argument must be str, int or device, not {type(spec).__name__}")
    type_, _, idx = spec.partition(":")
    if type_ not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: "
            f"{spec}"
        )
    if idx:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was "
                               f"passed explicitly: {spec}")
        if not idx.isdigit():
            raise RuntimeError(f"Invalid device string: '{spec}'")
        index = int(idx)
    if type_ == "cpu":
        if index not in (None, 0, -1):
            raise RuntimeError(f"CPU device index must be -1 or zero, got {index}")
        index = None
    return _make(type_, index)


cpu = _make("cpu", None)


class Backend:
    """What a device kind provides: `xp` (numpy or cupy-like module) and the helpers the two
    modules spell differently. Subclasses: NumpyBackend, CupyBackend, StrictBackend."""

    name = "abstract"
    xp = None

    def from_host(self, array, device):
        """A host (NumPy) array copied onto `device`; no copy for the CPU backend."""
        raise NotImplementedError

    def to_host(self, array):
        """An explicit device-to-host copy as a NumPy array (shares memory on CPU)."""
        raise NotImplementedError

    def is_array(self, obj) -> bool:
        raise NotImplementedError

    def scatter_add(self, target, index, values):
        """target[index] += values with duplicate indices accumulating (never a lost update)."""
        raise NotImplementedError

    def synchronize(self, device):
        pass

    def owns_data(self, array) -> bool:
        """True when `array` is not a view of another array (used to steal gradients safely)."""
        return array.base is None


_backends: dict = {}
_default = threading.local()


def register_backend(type_: str, backend: Backend) -> None:
    _backends[type_] = backend
    for (t, _), d in _interned.items():
        if t == type_:
            d.backend = backend


def backend_of(dev: Device) -> Backend:
    """The backend that runs kernels for `dev` (imports CuPy on first use of a CUDA device)."""
    b = dev.backend
    if b is None:
        b = _backends.get(dev.type)
        if b is None:
            b = _load(dev.type)
        dev.backend = b
    return b


def _load(type_: str) -> Backend:
    if type_ == "cuda":
        from minitorch._backend.cupy_backend import CupyBackend

        b = CupyBackend()
    elif type_ == "strict":
        from minitorch._backend.strict import StrictBackend

        b = StrictBackend()
    else:  # pragma: no cover - cpu is registered at import
        raise RuntimeError(f"no backend for device type '{type_}'")
    register_backend(type_, b)
    return b


def default_device_stack() -> list:
    stack = getattr(_default, "stack", None)
    if stack is None:
        stack = _default.stack = []
    return stack


def default_device() -> Device:
    stack = default_device_stack()
    return stack[-1] if stack else cpu


from minitorch._backend.numpy_backend import NumpyBackend  # noqa: E402

register_backend("cpu", NumpyBackend())
