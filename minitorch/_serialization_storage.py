"""Checkpoint storages: which saved tensors share one, and reading one back onto a device."""

from __future__ import annotations

import pickle
import struct
import sys
import zipfile
import zlib

import numpy as np

from minitorch import _dtype
from minitorch._backend import backend_of, cpu, strided_view, tensor_device
from minitorch._tensor import Tensor, _make, _storage_root
from minitorch.storage import TypedStorage, UntypedStorage

UnpicklingError = pickle.UnpicklingError

# torch's legacy storage class for each dtype: the `storage_type` of a checkpoint's storage record.
STORAGE_NAMES = {
    _dtype.bool: "BoolStorage",
    _dtype.uint8: "ByteStorage",
    _dtype.int8: "CharStorage",
    _dtype.int16: "ShortStorage",
    _dtype.int32: "IntStorage",
    _dtype.int64: "LongStorage",
    _dtype.float16: "HalfStorage",
    _dtype.bfloat16: "BFloat16Storage",
    _dtype.float32: "FloatStorage",
    _dtype.float64: "DoubleStorage",
}

# deflate expands at most ~1032:1; a member claiming more is lying (a zip bomb or a corrupted size).
_MAX_INFLATE_RATIO = 1040


def contiguous_strides(shape) -> tuple:
    strides, n = [], 1
    for s in reversed(shape):
        strides.append(n)
        n *= max(s, 1)
    return tuple(reversed(strides))


# ---------------------------------------------------------------------------------------------
# Saving: one storage record per memory block


class SavedStorage:
    """One storage record of a checkpoint being written; `pid` is its persistent id."""

    __slots__ = ("key", "dtype", "numel", "pid", "_array", "_backend")

    def __init__(self, key: str, array, backend, dtype, numel: int, location: str, type_global):
        self.key = key
        self.dtype = dtype
        self.numel = numel
        self.pid = ("storage", type_global, key, location, numel)
        self._array = array  # a dense array whose memory is exactly the storage's bytes
        self._backend = backend

    def host_bytes(self) -> np.ndarray:
        """The storage's bytes as a flat uint8 NumPy array (no copy for CPU storages)."""
        host = self._backend.to_host(self._array)
        return np.ravel(host, order="K").view(np.uint8)


class StoragePlan:
    """Assigns each saved tensor a storage record, its offset and strides (see NOTE below)."""

    # NOTE [ Storages of saved tensors ]
    # minitorch tensors have no storage object: a tensor is an array, and a checkpoint stores
    # torch's layout instead: storages plus (offset, size, stride) per tensor. A tensor's storage
    # is the memory of the tensor starting it (`_storage_root` in minitorch/_tensor.py: the base
    # of its views, the tensor a detach(), .data or dtype view was taken from, or the tensor
    # itself), from its first element to its last: what untyped_storage() and storage_offset()
    # report, and for from_numpy the given array's extent, not its NumPy owner's (torch's
    # from_numpy(big[5:9]) is a storage of 4 elements). Every tensor whose storage is the same
    # memory becomes a view into one record holding those bytes, whatever the path that made it
    # (a view, `detach()`, a Parameter sharing its data, tied weights, two from_numpy calls on
    # one array). As in torch, saving a slice saves its whole storage, and two tensors starting
    # at one address with different dtypes are refused. Tensors whose layout torch cannot
    # express (negative or non-element strides, memory that is not one dense block) are saved
    # as contiguous copies of their own.

    def __init__(self, type_global):
        self.storages: list[SavedStorage] = []
        self._by_extent: dict = {}  # (device, first byte, byte count) -> record
        self._dtype_at: dict = {}  # (device, first byte) -> dtype of the records starting there
        self._type_global = type_global  # storage class name -> the pickled global for it

    def locate(self, t) -> tuple[SavedStorage, int, tuple, tuple]:
        """(storage, storage_offset, size, stride) of tensor `t`, in elements."""
        a = t._data
        dev = t._device
        b = backend_of(dev)
        shape = tuple(a.shape)
        item = a.itemsize
        # An empty view of a storage is saved as a view of it, as in torch (its strides do not
        # address memory, so any NumPy gives it does)
        if not a.size or all(s >= 0 and s % item == 0 for s in a.strides):
            placed = self._in_storage(t, b, dev)
            if placed is not None:
                # t.stride(): torch's stride for a size-1 dim NumPy strides 0
                return placed[0], placed[1], shape, t.stride()
        if a.size:
            a = b.xp.ascontiguousarray(a)
        return self._new(a, b, dev, t.dtype, a.size), 0, shape, contiguous_strides(shape)

    def _in_storage(self, t, b, dev):
        """(record, offset) of t in the record of its storage's memory; None to save a copy."""
        a = t._data
        owner = _storage_root(t)._data
        item = a.itemsize
        start = b.data_ptr(owner)
        nbytes = _extent(owner)
        off = b.data_ptr(a) - start
        if nbytes is None or off < 0 or off % item or nbytes % item:
            return None
        if a.size and off + _extent(a) > nbytes:  # an empty view may start past the end
            return None
        key = _record_key(dev, start, nbytes, t.dtype)
        storage = self._by_extent.get(key)
        if storage is None:
            block = _dense_block(owner, b, dev, start, nbytes)
            if block is None:
                return None
            if nbytes and self._dtype_at.setdefault((dev, start), t.dtype) is not t.dtype:
                raise _different_types()
            storage = self._by_extent[key] = self._new(block, b, dev, t.dtype, nbytes // item)
        elif storage.dtype is not t.dtype:
            raise _different_types()
        return storage, off // item

    def locate_storage(self, storage, untyped_global) -> SavedStorage:
        """The record of a storage saved as itself (torch.save(t.untyped_storage()), a loaded
        storage): the record of its memory, shared with the tensors viewing that memory."""
        untyped = storage.untyped()
        data = untyped._bytes  # the memory, as uint8
        dev = untyped.device
        b = backend_of(dev)
        dt = _dtype.uint8 if storage is untyped else storage.dtype
        start = b.data_ptr(data)
        key = _record_key(dev, start, int(data.size), dt)
        saved = self._by_extent.get(key)
        if saved is None:
            if data.size and self._dtype_at.setdefault((dev, start), dt) is not dt:
                raise _different_types()
            glob = untyped_global if storage is untyped else None
            saved = self._by_extent[key] = self._new(
                data, b, dev, dt, int(data.size) // dt.itemsize, glob
            )
        elif saved.dtype is not dt:
            raise _different_types()
        return saved

    def _new(self, array, b, dev, dt, numel, glob=None) -> SavedStorage:
        key = str(len(self.storages))
        if glob is None and dt not in STORAGE_NAMES:
            # a shell unsigned dtype has no typed storage class: torch writes the bytes as an
            # untyped storage, counted in bytes (its tensors rebuild by _rebuild_tensor_v3)
            glob, numel = self._type_global("UntypedStorage"), numel * dt.itemsize
        elif glob is None:
            glob = self._type_global(STORAGE_NAMES[dt])
        storage = SavedStorage(key, array, b, dt, numel, str(dev), glob)
        self.storages.append(storage)
        return storage


def _record_key(dev, start: int, nbytes: int, dt) -> tuple:
    """The key of a storage record: its memory; an empty storage's also its dtype (torch checks
    the types only of storages with memory, so empty ones of two dtypes save side by side)."""
    return (dev, start, nbytes) if nbytes else (dev, start, 0, dt)


def _different_types() -> RuntimeError:
    return RuntimeError(
        "Cannot save multiple tensors or storages that view the same data as different types"
    )


def _extent(a) -> int | None:
    """Bytes from the first element of `a` to past its last (None with a negative stride)."""
    if not a.size:
        return 0
    span = a.itemsize
    for n, s in zip(a.shape, a.strides, strict=True):
        if s < 0:
            return None
        span += (n - 1) * s
    return span


def _dense_block(owner, b, dev, start: int, nbytes: int):
    """An array whose memory is exactly the `nbytes` bytes at `start`, where `owner` (the array
    starting a storage) lies: owner itself when dense, else a byte range of the array owning
    its memory (from_numpy of a strided NumPy slice); None when that memory is not one block."""
    flags = owner.flags
    if flags.c_contiguous or (dev is cpu and flags.f_contiguous):
        return owner  # on a device, only a C-ordered array copies to the host byte for byte
    root = _root(owner, b)
    flags = root.flags
    if not (flags.c_contiguous or (dev is cpu and flags.f_contiguous)):
        return None
    off = start - b.data_ptr(root)
    if off < 0 or off + nbytes > root.nbytes:
        return None
    return root.ravel(order="K").view(b.xp.uint8)[off : off + nbytes]


def _root(a, b):
    """The outermost array of `a`'s `.base` chain (as_strided's holder object is stepped over)."""
    cur = a
    while True:
        nxt = getattr(cur, "base", None)
        if nxt is not None and not b.is_array(nxt):
            nxt = getattr(nxt, "base", None)
        if nxt is None or not b.is_array(nxt):
            return cur
        cur = nxt


# ---------------------------------------------------------------------------------------------
# Loading: a storage record's bytes, then its device


class Storage(TypedStorage):
    """A loaded storage: a flat typed array on a device. What a `map_location` callable receives
    (torch passes an UntypedStorage; this one offers the same `cpu()`, `cuda()` and `to()`), and
    what load returns for a storage saved as itself: a TypedStorage, as torch.load returns."""

    def __init__(self, array, device, dtype):
        super().__init__(UntypedStorage(array.view("uint8"), device), dtype)
        self.array = array

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def to(self, device=None, non_blocking: bool = False) -> Storage:
        from minitorch._backend import device as as_device

        dev = tensor_device(as_device(device))
        if dev is self.device:
            return self
        src = backend_of(self.device)
        host = src.to_host(self.array)
        return Storage(backend_of(dev).from_host(host, dev), dev, self.dtype)

    def cpu(self) -> Storage:
        return self.to(cpu)

    def cuda(self, device=None, non_blocking: bool = False) -> Storage:
        if device is None:
            return self.to("cuda")
        return self.to(device if not isinstance(device, int) else f"cuda:{device}")


class RecordReader:
    """Reads a checkpoint's records: small ones through zipfile (CRC-checked), storages straight
    from the file into their final buffer (one copy), or memory-mapped (`mmap_path`; mmap_mode
    "c" copy-on-write, "r+" writes reaching the file, as torch's MAP_PRIVATE / MAP_SHARED)."""

    def __init__(self, zf: zipfile.ZipFile, fobj, mmap_path=None, mmap_mode: str = "c"):
        self.zf = zf
        self.fobj = fobj
        self.mmap_path = mmap_path
        self.mmap_mode = mmap_mode
        fobj.seek(0, 2)
        self.size = fobj.tell()

    def info(self, name: str, nbytes: int | None = None) -> zipfile.ZipInfo:
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found"
            ) from None
        if nbytes is not None and info.file_size != nbytes:
            raise RuntimeError(
                f"checkpoint record {name} holds {info.file_size} bytes but its storage needs "
                f"{nbytes}: the file is corrupted"
            )
        stored = info.compress_type == zipfile.ZIP_STORED
        limit = info.compress_size * (1 if stored else _MAX_INFLATE_RATIO)
        if info.compress_size > self.size or info.file_size > limit + 64:
            raise RuntimeError(
                f"checkpoint record {name} claims {info.file_size} bytes, more than the file can "
                "hold: the file is corrupted"
            )
        return info

    # NOTE [ Records without a CRC-32 ]
    # torch.save under torch.serialization.set_crc32_options(False) records a CRC-32 of 0 for
    # every record, which zipfile's reads would refuse. A stored record whose recorded CRC is 0 is
    # read without the check (a record whose true CRC is 0 loses nothing by that).

    def read_small(self, name: str) -> bytes:
        info = self.info(name)
        if info.CRC == 0 and self._stored(info):
            return self.read_storage(name, info.file_size).tobytes()
        return self.zf.read(info)

    @staticmethod
    def _stored(info: zipfile.ZipInfo) -> bool:
        return info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 0x1

    def read_storage(self, name: str, nbytes: int) -> np.ndarray:
        """The record's bytes as a writable uint8 array."""
        info = self.info(name, nbytes)
        if not self._stored(info):
            return np.frombuffer(bytearray(self.zf.read(info)), np.uint8)
        start = self._data_start(info)
        if start + nbytes > self.size:
            raise RuntimeError(f"checkpoint record {name} is truncated")
        if self.mmap_path is not None and nbytes:
            # copy-on-write by default, as torch's mmap=True: writes never reach the file
            mm = np.memmap(
                self.mmap_path, np.uint8, mode=self.mmap_mode, offset=start, shape=(nbytes,)
            )
            return np.asarray(mm)  # a plain ndarray over the map, not the memmap subclass
        buf = np.empty(nbytes, np.uint8)
        self.fobj.seek(start)
        view, got = memoryview(buf), 0
        while got < nbytes:
            n = _readinto(self.fobj, view[got:])
            if not n:
                raise RuntimeError(f"checkpoint record {name} is truncated")
            got += n
        if info.CRC and zlib.crc32(buf) != info.CRC:  # See NOTE [ Records without a CRC-32 ]
            raise RuntimeError(f"checkpoint record {name} is corrupted (CRC-32 mismatch)")
        return buf

    def _data_start(self, info: zipfile.ZipInfo) -> int:
        self.fobj.seek(info.header_offset)
        header = self.fobj.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise RuntimeError(f"checkpoint record {info.filename} has a bad zip header")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        return info.header_offset + 30 + name_len + extra_len


def _readinto(fobj, view) -> int:
    readinto = getattr(fobj, "readinto", None)
    if readinto is not None:
        return readinto(view) or 0
    data = fobj.read(len(view))
    view[: len(data)] = data
    return len(data)


def typed_storage(u8: np.ndarray, dt, byteorder: str) -> np.ndarray:
    """The bytes viewed as dtype `dt`, byte-swapped when written with the other byte order."""
    arr = u8.view(_dtype.numpy_dtype(dt))
    if byteorder != sys.byteorder and arr.itemsize > 1:
        arr.byteswap(inplace=True)
    return arr


# ---------------------------------------------------------------------------------------------
# Rebuilding tensors on load (what torch's rebuild globals map to)


def _int_tuple(x, what: str) -> tuple:
    if not isinstance(x, (tuple, list)) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in x
    ):
        raise RuntimeError(f"_rebuild_tensor_v2: invalid {what} {repr(x)[:80]} in the checkpoint")
    return tuple(x)


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None, metadata=None
):
    """A tensor viewing `storage`. Mirrors torch._utils._rebuild_tensor_v2."""
    if storage.__class__ is not Storage:
        raise UnpicklingError(f"_rebuild_tensor_v2: expected a storage, got {type(storage)}")
    size = _int_tuple(size, "size")
    stride = _int_tuple(stride, "stride")
    (offset,) = _int_tuple((storage_offset,), "storage offset")
    if len(size) != len(stride):
        raise RuntimeError(f"_rebuild_tensor_v2: size {size} and stride {stride} differ in length")
    arr = storage.array
    n = 1
    for s in size:
        n *= s
    if n:
        need = offset + 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))
        if need > arr.size:
            item = arr.itemsize
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
                f"and itemsize {item} requiring a storage size of {need * item} are out of bounds "
                f"for storage of size {arr.size * item}"
            )
        if offset or need != arr.size:
            t = _view_of_storage(storage, offset, size, stride)
        elif stride == contiguous_strides(size):
            t = _make(arr.reshape(size), storage.device, False, None)
        else:
            xp = backend_of(storage.device).xp
            data = strided_view(xp, arr, size, [st * arr.itemsize for st in stride])
            t = _make(data, storage.device, False, None)
            # An expanded or gapped layout is no dense block: the tensor over the whole storage
            # starts its storage, so untyped_storage() (and a re-save) is the loaded storage,
            # not the span of the layout (a stride-0 row is 4 KB, not 4 MB, as in torch).
            t._storage_root = _make(arr, storage.device, False, None)
    elif arr.size or offset:
        # an empty view of a storage keeps it and its offset too, even at or past the storage's
        # end (NOTE [ Empty views ] in minitorch/_ops/shape.py)
        t = _view_of_storage(storage, offset, size, stride)
    elif stride == contiguous_strides(size):
        t = _make(arr.reshape(size), storage.device, False, None)
    else:
        # an empty tensor keeps its saved strides too (a transposed one, empty_strided's), as
        # in torch: they address no memory
        xp = backend_of(storage.device).xp
        data = strided_view(xp, arr, size, [st * arr.itemsize for st in stride])
        t = _make(data, storage.device, False, None)
    if requires_grad:
        t.requires_grad_(True)
    return t


# NOTE [ Loaded views keep their storage offset ]
# A minitorch tensor has no storage object: storage_offset() and as_strided() address the memory
# of the tensor's `_base` (the tensor its views come from), or the tensor's own memory when it has
# none. A saved tensor that covers only part of its storage (a slice saved with its base, one of
# several tensors sharing a storage) is therefore rebuilt as an as_strided view of a tensor over
# the whole loaded storage, made for it alone (so it shares no version counter with the other
# tensors of that storage, as in torch): storage_offset() then reads the saved offset and
# as_strided() addresses the whole storage, as in torch. A tensor covering its whole storage
# (every separately saved parameter) stays a plain tensor.
# Differences from torch: such a tensor reports `_base` (the storage's tensor) and `_is_view()`,
# and refuses detach_() as a view does; a Parameter rebuilt from it keeps only its own memory
# (storage_offset() 0), as Parameter(view) does elsewhere in minitorch.


def _view_of_storage(storage: Storage, offset: int, size: tuple, stride: tuple) -> Tensor:
    """The tensor at (offset, size, stride) of the storage, as a view of a fresh tensor over the
    whole storage (see NOTE [ Loaded views keep their storage offset ])."""
    from minitorch._ops.shape_more import as_strided
    from minitorch.autograd.grad_mode import enable_grad

    whole = _make(storage.array, storage.device, False, None)
    # Taken with grad mode on even inside no_grad (torch.load under no_grad is common): a view
    # taken under no_grad would not carry gradients of later in-place ops (NOTE [ Views and grad
    # mode ]); `whole` requires no grad, so no node is recorded either way.
    with enable_grad():
        return as_strided(whole, size, stride, offset)


def _rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    """A tensor of `dtype` viewing a storage of bytes, as torch saves the shell unsigned dtypes
    (uint16, uint32, uint64). Mirrors torch._utils._rebuild_tensor_v3."""
    if storage.__class__ is not Storage or dtype.__class__ is not _dtype.dtype:
        raise UnpicklingError("_rebuild_tensor_v3: expected a storage and a dtype")
    if storage.dtype is not dtype:
        if storage.array.nbytes % dtype.itemsize:
            raise RuntimeError(
                f"_rebuild_tensor_v3: a storage of {storage.array.nbytes} bytes holds no whole "
                f"number of {dtype} elements"
            )
        storage = Storage(storage.array.view(dtype.np), storage.device, dtype)
    return _rebuild_tensor_v2(
        storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata
    )


def _rebuild_tensor(storage, storage_offset, size, stride):
    """Mirrors torch._utils._rebuild_tensor (older checkpoints)."""
    return _rebuild_tensor_v2(storage, storage_offset, size, stride)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    """A meta tensor of that dtype, size and stride (torch writes meta tensors without a
    storage: NOTE [ The meta device ]). Mirrors torch._utils._rebuild_meta_tensor_no_storage."""
    from minitorch import empty_strided

    if dtype.__class__ is not _dtype.dtype:
        raise UnpicklingError(f"_rebuild_meta_tensor_no_storage: expected a dtype, got {dtype!r}")
    size = _int_tuple(size, "size")
    stride = _int_tuple(stride, "stride")
    t = empty_strided(size, stride, dtype=dtype, device="meta")
    if requires_grad:
        t.requires_grad_()
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """Mirrors torch._utils._rebuild_parameter."""
    from minitorch.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise UnpicklingError(f"_rebuild_parameter: expected a tensor, got {type(data)}")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """Mirrors torch._utils._rebuild_parameter_with_state: the Parameter with its Python
    attributes set again."""
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_python_state(p, state)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    """Mirrors torch._tensor._rebuild_from_type_v2 for Tensor, Parameter and Tensor
    subclasses (as_subclass: an alias, not a leaf, when it requires grad, as torch)."""
    from minitorch.nn.parameter import Parameter

    if not any(func is f for f in _TENSOR_REBUILDERS) or args.__class__ is not tuple:
        raise UnpicklingError(f"_rebuild_from_type_v2: {func!r} does not rebuild a tensor")
    t = func(*args)
    if new_type is Parameter and not isinstance(t, Parameter):
        t = Parameter(t, t.requires_grad)
    elif type(t) is not new_type and new_type is not Tensor:
        if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
            raise UnpicklingError(f"_rebuild_from_type_v2: {new_type!r} is not a Tensor class")
        t = t.as_subclass(new_type)
    _set_python_state(t, state)
    return t


def _set_python_state(t, state) -> None:
    """Sets the attributes torch pickled from a tensor's __dict__ (and slots: `(dict, slots)`)."""
    if not state:
        return
    if isinstance(state, tuple) and len(state) == 2:
        parts = state
    else:
        parts = (state,)
    for part in parts:
        if not part:
            continue
        if not isinstance(part, dict):
            raise UnpicklingError(f"tensor state: expected a dict, got {type(part).__name__}")
        for k, v in part.items():
            setattr(t, k, v)


_TENSOR_REBUILDERS = (_rebuild_tensor_v2, _rebuild_tensor, _rebuild_parameter)


class StorageType:
    """What torch's storage classes (torch.FloatStorage, ...) unpickle to: a name and a dtype."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype):
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return f"torch.{self.name}"
