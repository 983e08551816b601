"""torch's legacy (pre-1.6, non-zip) checkpoint format: writing it and reading it back.

The file is a run of pickles followed by raw data: the magic number, the protocol version, a
sys_info dict, the pickled object (storages as persistent ids `('storage', storage_type, key,
location, numel, view_metadata)`), the sorted list of storage keys, then for each key in that
order an int64 element count and the storage's bytes, both little-endian.
"""

from __future__ import annotations

import io
import pickle
import struct
import sys

import numpy as np

from minitorch._backend import backend_of, cpu
from minitorch._serialization_storage import (
    Storage,
    StoragePlan,
    StorageType,
    typed_storage,
)
from minitorch._serialization_unpickle import FullUnpickler, WeightsUnpickler

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_SYS_INFO = {
    "protocol_version": PROTOCOL_VERSION,
    "little_endian": sys.byteorder == "little",
    "type_sizes": {
        "short": struct.calcsize("=h"),
        "int": struct.calcsize("=i"),
        "long": struct.calcsize("=l"),
    },
}


# ---------------------------------------------------------------------------------------------
# save


class LegacyStoragePlan(StoragePlan):
    """A StoragePlan whose persistent ids carry the legacy format's sixth field (no view)."""

    def _new(self, array, b, dev, dt, numel, glob=None):
        storage = super()._new(array, b, dev, dt, numel, glob)
        storage.pid = storage.pid + (None,)
        return storage


def write_legacy(fobj, pickled: bytes, storages, protocol: int) -> None:
    """Writes the legacy layout: header pickles, the object's pickle, keys, storage data."""
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _SYS_INFO):
        fobj.write(pickle.dumps(header, protocol=protocol))
    fobj.write(pickled)
    by_key = {s.key: s for s in storages}
    keys = sorted(by_key)
    fobj.write(pickle.dumps(keys, protocol=protocol))
    for key in keys:
        storage = by_key[key]
        data = storage.host_bytes()
        item = storage.dtype.itemsize
        if sys.byteorder != "little" and item > 1:
            data = data.reshape(-1, item)[:, ::-1].copy()
        fobj.write(struct.pack("<q", storage.numel))
        fobj.write(memoryview(np.ascontiguousarray(data)))


# ---------------------------------------------------------------------------------------------
# load


def is_legacy(data: bytes) -> bool:
    """Whether `data` opens with the legacy format's magic-number pickle."""
    try:
        u = WeightsUnpickler(data, _no_storages)
        return u.load() == MAGIC_NUMBER
    except Exception:
        return False


def load_legacy(data: bytes, restore, weights_only: bool, pickle_load_args):
    """(the object of a legacy file's bytes, the offset in `data` where its last storage ends:
    what follows, another checkpoint saved into the same stream, is not its own).
    `restore(storage, location, type_name)` places each storage (map_location). The storages'
    bytes come after the object's pickle, so each is placed while still empty and filled in once
    the pickle is read (see _LegacyStorages)."""
    pos = 0
    for what in ("magic number", "protocol version", "sys_info"):  # sys_info is not used
        u = WeightsUnpickler(data, _no_storages)
        u.pos = pos
        value = u.load()
        pos = u.pos
        if what == "magic number" and value != MAGIC_NUMBER:
            raise RuntimeError("Invalid magic number; corrupt file?")
        if what == "protocol version" and value != PROTOCOL_VERSION:
            raise RuntimeError(f"Invalid protocol version: {value}")
    storages = _LegacyStorages(restore)
    if weights_only:
        u = WeightsUnpickler(data, storages)
        u.pos = pos
        result = u.load()
        pos = u.pos
    else:
        stream = io.BytesIO(data)
        stream.seek(pos)
        result = FullUnpickler(stream, storages, **pickle_load_args).load()
        pos = stream.tell()
    u = WeightsUnpickler(data, _no_storages)
    u.pos = pos
    keys = u.load()
    if not isinstance(keys, list):
        raise pickle.UnpicklingError("legacy checkpoint: the storage key list is malformed")
    return result, storages.fill(data, u.pos, keys)


def _no_storages(pid):
    raise pickle.UnpicklingError("legacy checkpoint: a storage in a header pickle")


class _LegacyStorages:
    """persistent_load for legacy files: each storage is made empty on the host and placed at
    once (the tensors are built on its final memory); `fill` then reads the bytes into the host
    buffer and, for a storage placed elsewhere, copies them into the placed one in place."""

    def __init__(self, restore):
        self.restore = restore
        self.by_key: dict = {}  # key -> (host storage, placed storage)
        self.views: dict = {}

    def __call__(self, pid):
        if pid.__class__ is not tuple or len(pid) != 6 or pid[0] != "storage":
            raise pickle.UnpicklingError(f"unsupported persistent id {str(pid)[:80]}")
        _, stype, key, location, numel, view = pid
        if (
            stype.__class__ is not StorageType
            or not isinstance(key, str)
            or not isinstance(location, str)
            or not isinstance(numel, int)
            or numel < 0
        ):
            raise pickle.UnpicklingError("malformed storage record in the checkpoint")
        dt = stype.dtype
        entry = self.by_key.get(key)
        if entry is None:
            u8 = np.zeros(numel * dt.itemsize, np.uint8)
            host = Storage(typed_storage(u8, dt, sys.byteorder), cpu, dt)
            entry = self.by_key[key] = (host, self.restore(host, location, stype.name))
        elif entry[0].dtype is not dt:
            raise RuntimeError(f"storage {key} is recorded with two different types")
        placed = entry[1]
        if view is None:
            return placed
        view_key, offset, size = view  # an old storage view: elements [offset, offset + size)
        if view_key not in self.views:
            self.views[view_key] = Storage(
                placed.array[offset : offset + size], placed.device, placed.dtype
            )
        return self.views[view_key]

    def fill(self, data: bytes, pos: int, keys: list) -> int:
        # torch writes the counts and the data little-endian whatever the machine
        missing = set(self.by_key).difference(keys)
        if missing or len(set(keys)) != len(keys):
            # a storage the object uses but whose data the file does not hold (a damaged key):
            # never returned unfilled
            what = f"storage {min(missing)!r} has no data" if missing else "a key is listed twice"
            raise RuntimeError(f"legacy checkpoint: {what} (truncated or corrupted file?)")
        for key in keys:
            if key not in self.by_key:
                raise RuntimeError(f"legacy checkpoint: storage {key!r} is not used by the object")
            host, placed = self.by_key[key]
            (numel,) = struct.unpack_from("<q", data, pos)
            pos += 8
            nbytes = host.nbytes()
            if numel != host.size() or pos + nbytes > len(data):
                raise RuntimeError(
                    f"legacy checkpoint: storage {key!r} holds {numel} elements, expected "
                    f"{host.size()} (truncated or corrupted file?)"
                )
            host.array.view(np.uint8)[:] = np.frombuffer(data, np.uint8, nbytes, pos)
            pos += nbytes
            if sys.byteorder != "little" and host.dtype.itemsize > 1:
                host.array.byteswap(inplace=True)
            if placed is not host:
                _copy_into(placed, host)
        return pos


def _copy_into(placed: Storage, host: Storage) -> None:
    if placed.size() != host.size() or placed.dtype is not host.dtype:
        raise RuntimeError(
            "legacy checkpoint: map_location returned a storage of another size or dtype"
        )
    if placed.device is cpu:
        placed.array[...] = host.array
    else:
        placed.array[...] = backend_of(placed.device).from_host(host.array, placed.device)
