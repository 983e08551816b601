"""minitorch.save / minitorch.load in PyTorch's zip checkpoint format, and safetensors files.

A checkpoint is a zip archive: `archive/data.pkl` (the pickled object, tensors as
`torch._utils._rebuild_tensor_v2` calls on persistent storage ids), one `archive/data/<key>`
record of raw bytes per storage, and small `byteorder` / `version` records. minitorch writes
torch's global names without importing torch, so torch.load reads minitorch's files and
minitorch.load reads torch's.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import io
import mmap as _mmap
import os
import pickle
import re
import secrets
import struct
import sys
import tempfile
import warnings
import zipfile
import zlib

import numpy as np

from minitorch import _dtype, _serialization_unpickle
from minitorch._arg_errors import unexpected_keyword
from minitorch._backend import Device, backend_of, cpu, device, tensor_device
from minitorch._serialization_legacy import (
    LegacyStoragePlan,
    is_legacy,
    load_legacy,
    write_legacy,
)
from minitorch._serialization_pickle import dumps, torch_global
from minitorch._serialization_storage import (
    RecordReader,
    Storage,
    StoragePlan,
    StorageType,
    typed_storage,
)
from minitorch._serialization_unpickle import FullUnpickler, WeightsUnpickler
from minitorch._tensor import Tensor, _make

__all__ = [
    "save",
    "load",
    "save_safetensors",
    "load_safetensors",
    "DEFAULT_PROTOCOL",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "safe_globals",
    "default_restore_location",
    "location_tag",
    "register_package",
    "normalize_storage_type",
    "SourceChangeWarning",
    "LoadEndianness",
    "get_default_load_endianness",
    "set_default_load_endianness",
    "get_crc32_options",
    "set_crc32_options",
    "get_default_mmap_options",
    "set_default_mmap_options",
    "skip_data",
]

DEFAULT_PROTOCOL = 2
_ALIGNMENT = 64  # storage records start at multiples of this in the file, as torch's do

try:
    from lzma import LZMAError as _LZMAError  # a zip member may claim LZMA compression
except ImportError:  # pragma: no cover - Python built without lzma
    _LZMAError = zlib.error

# What a damaged file can raise from zipfile, zlib, struct or the interpreter: reported as one
# RuntimeError (UnpicklingError, the other documented error, passes through untouched).
_CORRUPT = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    _LZMAError,
    EOFError,
    OSError,
    struct.error,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
    OverflowError,
    NotImplementedError,
    RecursionError,
    MemoryError,
)


# ---------------------------------------------------------------------------------------------
# save


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol: int = DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Saves `obj` (tensors, state dicts, nested containers, ...) to the path or binary file `f`
    in torch's zip checkpoint format, or with `_use_new_zipfile_serialization=False` in torch's
    legacy (pre-1.6) format. Mirrors torch.save.

    Tensors sharing memory (views, tied weights) share one storage record. A path is written
    to a temporary file in its directory first and renamed over `f` only when complete, so a
    failure mid-save leaves any previous file intact.

    Differences from torch: only the standard `pickle` module.
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("minitorch.save: only the standard pickle module is supported")
    legacy = not _use_new_zipfile_serialization
    skip = _skip_data_state["skip_data"]
    if skip and legacy:
        raise RuntimeError("Cannot use skip_data=True with _use_new_zipfile_serialization=False")
    plan_type = LegacyStoragePlan if legacy else StoragePlan
    # torch's typed storage classes by their torch.X names, its untyped one (the storage of the
    # shell unsigned dtypes) as torch.storage.UntypedStorage, as torch writes them
    plan = plan_type(
        lambda name: torch_global("torch.storage" if name == "UntypedStorage" else "torch", name)
    )
    pickled = dumps(obj, pickle_protocol, plan)  # fails before any file is touched

    def write(fobj):
        if legacy:
            write_legacy(fobj, pickled, plan.storages, pickle_protocol)
        else:
            _write_checkpoint(fobj, pickled, plan.storages, not _disable_byteorder_record, skip)

    if isinstance(f, (str, os.PathLike)):
        _atomic_write(f, lambda fobj, _: write(fobj))
    elif legacy:
        write(f)  # plain sequential writes: any stream takes them
    else:
        _write_to_stream(f, write)


# Streams zipfile may seek back in (it rewrites each member's local header once the member is
# written): real files and in-memory buffers.
_SEEK_BACK_STREAMS = (io.BytesIO, io.BufferedRandom, io.BufferedWriter, io.FileIO)


def _write_to_stream(f, write) -> None:
    """write(fileobj) writes the archive into the caller's stream `f`, at its position.

    torch writes an archive front to back without seeking, so any stream takes it; zipfile
    seeks back over each member. A stream that cannot (gzip.open(..., "wb") claims to seek but
    only forward, a pipe, a file opened for appending, a wrapper of unknown kind) gets the
    archive built in memory and written with one call. Offsets in the archive count from its
    own start, as torch's do, so an archive written after other data reads on its own."""
    if (
        isinstance(f, _SEEK_BACK_STREAMS)
        and f.seekable()
        and "a" not in getattr(f, "mode", "")  # O_APPEND sends every write to the end
    ):
        start = f.tell()
        write(f if start == 0 else _Window(f, start))
        return
    buf = io.BytesIO()
    write(buf)
    with buf.getbuffer() as view:
        f.write(view)


class _Window:
    """A seekable file object seen as starting at `start` and, for reading, ending at `end`:
    zipfile then writes offsets relative to the archive's start, and reads the archive whose end
    record lies just before `end` (it searches from the end of the file)."""

    def __init__(self, f, start: int = 0, end: int | None = None):
        self.f = f
        self.start = start
        self.end = end

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.f.tell() - self.start

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            self.f.seek(self.start + offset)
        elif whence == 2 and self.end is not None:
            self.f.seek(self.end + offset)
        else:
            self.f.seek(offset, whence)
        return self.f.tell() - self.start  # (an mmap.mmap's seek returns None)

    def read(self, n: int | None = -1) -> bytes:
        if self.end is None:
            return self.f.read(n)
        left = max(self.end - self.f.tell(), 0)
        return self.f.read(left if n is None or n < 0 else min(n, left))

    def write(self, data) -> int:
        return self.f.write(data)

    def flush(self) -> None:
        self.f.flush()


def _write_checkpoint(
    fobj, pickled: bytes, storages, byteorder: bool = True, skip_data: bool = False
) -> None:
    with zipfile.ZipFile(fobj, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, "archive/data.pkl", pickled)
        _write_record(zf, "archive/.format_version", b"1")
        _write_record(zf, "archive/.storage_alignment", str(_ALIGNMENT).encode())
        if byteorder:
            _write_record(zf, "archive/byteorder", sys.byteorder.encode())
        for storage in storages:
            if skip_data:  # the record's room, zero-filled, to be written in a later pass
                data = np.zeros(storage.numel * storage.dtype.itemsize, np.uint8)
            else:
                data = storage.host_bytes()
            _write_record(zf, f"archive/data/{storage.key}", data)
        _write_record(zf, "archive/version", b"3\n")
        _write_record(
            zf, "archive/.data/serialization_id", f"{secrets.randbits(128):040d}".encode()
        )


def _write_record(zf: zipfile.ZipFile, name: str, data) -> None:
    """One uncompressed member whose data starts at a multiple of _ALIGNMENT in the file (padded
    through the local header's extra field, as torch does), so it can be memory-mapped."""
    view = memoryview(data).cast("B")
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.file_size = len(view)
    zip64 = info.file_size * 1.05 > zipfile.ZIP64_LIMIT  # zipfile then adds a 20-byte extra
    start = zf.fp.tell() + 30 + len(name.encode()) + 4 + (20 if zip64 else 0)
    pad = -start % _ALIGNMENT
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    with zf.open(info, "w", force_zip64=zip64) as out:
        out.write(view)


def _atomic_write(path, write) -> None:
    """write(fileobj, temp_path) fills a temporary file beside `path`, then it replaces `path`."""
    path = os.fspath(path)
    if os.path.islink(path):  # write where the link points, as open() would, keeping the link
        path = os.path.realpath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    if os.path.isdir(path):  # torch's type and message for it
        raise RuntimeError(f"{path}: open file failed with strerror: {os.strerror(errno.EISDIR)}")
    mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fobj:
            write(fobj, tmp)
            fobj.flush()
            os.fsync(fobj.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):  # make the rename itself durable
        with contextlib.suppress(OSError):
            dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def _new_file_mode(path: str) -> int:
    """The permissions `open(path, 'wb')` would give: the old file's, or 0o666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


# ---------------------------------------------------------------------------------------------
# load


def load(
    f,
    map_location=None,
    pickle_module=None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args,
):
    """Loads an object saved by minitorch.save or torch.save from a path or binary file.
    Mirrors torch.load.

    weights_only=True (the default, as in torch, unless a pickle_module is given): only tensors,
    storages, dtypes, devices, OrderedDict, Counter, layouts, plain containers/primitives and the
    globals marked safe with add_safe_globals / safe_globals are built; any other global raises
    pickle.UnpicklingError and nothing from the file runs. weights_only=False unpickles
    arbitrary objects and so can run arbitrary code: use it only for files you trust.

    map_location: None (each storage where it was saved), 'cpu', a device, a dict
    {saved_location: location}, or a callable(storage, location) -> storage or None.
    mmap=True memory-maps the storages (copy-on-write) instead of reading them.
    A damaged or foreign file raises RuntimeError or pickle.UnpicklingError, an empty one
    EOFError. A file object is read from its position and must be seekable, as in torch (an
    mmap.mmap will do): checkpoints saved one after another into one stream are read back one
    by one. torch's legacy (pre-1.6, non-zip) format is read too. A path ending in
    .safetensors is read with safetensors (a dict of tensors), as torch 2.13 reads it.

    Differences from torch: the legacy format is read into memory whole (mmap does not apply);
    the older tar format (before PyTorch 0.4) is not read. weights_only=True reads pickles of
    protocols 3 to 5 and bytes objects, which torch's weights-only unpickler refuses
    ("Unsupported operand"), and legacy files saved with pickle_protocol 1. A storage saved as
    itself loads as a TypedStorage subclass.
    A stream holding several zip checkpoints is read back one by one, each load leaving the
    stream just past the checkpoint it read; torch does not (it looks for the archive from the
    stream's end and leaves the stream inside it). Both read legacy checkpoints one by one.
    """
    weights_only = _weights_only_from_env(weights_only)
    if weights_only is None:
        # torch's default: an explicit pickle_module asks for the full unpickler
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if weights_only:
        _serialization_unpickle.user_allowed_globals()  # a malformed entry raises here, as in torch
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
        for key in pickle_load_args:  # torch's weights-only unpickler takes `encoding` alone
            if key != "encoding":
                raise unexpected_keyword("Unpickler.__init__", key)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if path.endswith(".safetensors"):  # torch reads these through safetensors too
            return _load_safetensors_path(path, map_location)
        with open(path, "rb") as fobj:
            mmap_path = path if mmap else None
            # torch's mmap message names the file only when given as a str (not a PathLike)
            f_name = f"{f}, " if isinstance(f, str) else ""
            return _load(fobj, mmap_path, map_location, weights_only, pickle_load_args, f_name)
    _check_seekable(f)
    if mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    if not hasattr(f, "seekable"):  # an mmap.mmap seeks, but zipfile asks seekable() too
        f = _Window(f)
    return _load(f, None, map_location, weights_only, pickle_load_args)


def _check_seekable(f) -> None:
    """torch.load reads only streams it can seek in: the error of `f.seek(f.tell())`, told so."""
    try:
        f.seek(f.tell())
    except (io.UnsupportedOperation, AttributeError) as e:
        if "seek" in str(e) or "tell" in str(e):
            raise type(e)(
                f"{e}. You can only torch.load from a file that is seekable. Please pre-load the "
                "data into a buffer like io.BytesIO and try to load from it instead."
            ) from None
        raise


def _load_safetensors_path(path: str, map_location) -> dict:
    """torch.load of a path ending in .safetensors: its tensors on the device map_location
    names (a str or a device; not a dict or a callable)."""
    try:
        _safetensors()
    except ImportError as e:
        raise RuntimeError(
            "Attempting to load a safetensors file but safetensors is not installed. Please "
            "install safetensors with: pip install safetensors"
        ) from e
    where = "cpu"
    if isinstance(map_location, (str, bytes, Device)):
        where = str(map_location)
    elif isinstance(map_location, dict):
        raise RuntimeError(
            "Loading safetensors file with dict map_location is not supported. Use a device "
            "string or torch.device instead."
        )
    elif callable(map_location):
        raise RuntimeError(
            "Loading safetensors file with callable map_location is not supported. Use a device "
            "string or torch.device instead."
        )
    return load_safetensors(path, where)


# torch.load reads these on every call: a deployment can force either default without code changes
_FORCE_WEIGHTS_ONLY = "TORCH_FORCE_WEIGHTS_ONLY_LOAD"
_FORCE_NO_WEIGHTS_ONLY = "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"


def _env_flag(name: str) -> bool:
    return os.getenv(name, "0").lower() in ("1", "y", "yes", "true")


def _weights_only_from_env(weights_only: bool | None) -> bool | None:
    """weights_only as torch.load's environment switches set it: TORCH_FORCE_WEIGHTS_ONLY_LOAD
    overrides even an explicit False; TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD only a value not given."""
    force, force_no = _env_flag(_FORCE_WEIGHTS_ONLY), _env_flag(_FORCE_NO_WEIGHTS_ONLY)
    if force and force_no:
        raise RuntimeError(
            f"Only one of `{_FORCE_WEIGHTS_ONLY}` or `{_FORCE_NO_WEIGHTS_ONLY}` should be set, "
            "but both were set."
        )
    if force:
        return True
    if force_no and weights_only is None:
        warnings.warn(
            f"Environment variable {_FORCE_NO_WEIGHTS_ONLY} detected, since the `weights_only` "
            "argument was not explicitly passed to `minitorch.load`, forcing weights_only=False.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return weights_only


def _load(fobj, mmap_path, map_location, weights_only: bool, pickle_load_args, f_name=""):
    start = fobj.tell()
    magic = fobj.read(4)
    fobj.seek(start)
    if not magic:
        raise EOFError("minitorch.load: the file is empty (nothing to read at its position)")
    if magic != b"PK\x03\x04":
        # a legacy file opens with its magic number pickled: PROTO (protocol 2 and up) or, for
        # a file saved with pickle_protocol 0 or 1 (torch reads those too), a text LONG
        if magic[:1] in (b"\x80", b"L"):
            data = fobj.read()
            if is_legacy(data):
                if mmap_path is not None:
                    raise RuntimeError(
                        f"mmap can only be used with files saved with `torch.save({f_name}"
                        "_use_new_zipfile_serialization=True), please torch.save your "
                        "checkpoint with this option in order to use mmap."
                    )
                result, end = _load_legacy(data, map_location, weights_only, pickle_load_args)
                fobj.seek(start + end)  # as torch, just past this checkpoint: another may follow
                return result
            if magic[:1] == b"L":
                fobj.seek(start)
                raise pickle.UnpicklingError(
                    "minitorch.load: not a checkpoint (a zip archive as torch.save writes): "
                    f"invalid load key, {magic[:1]!r}."
                )
            raise RuntimeError(
                "minitorch.load: this is a plain pickle or torch's legacy (pre-1.6) format, which "
                "minitorch does not read; re-save it with torch.save or minitorch.save"
            )
        raise pickle.UnpicklingError(
            "minitorch.load: not a checkpoint (a zip archive as torch.save writes): "
            f"invalid load key, {magic[:1]!r}."
        )
    zf = None
    try:
        try:
            zf, window, end = _open_archive(fobj, start)
            shared = _mmap_flags[0] == _MAP_SHARED
            reader = RecordReader(zf, window, mmap_path, "r+" if shared else "c")
            prefix = zf.infolist()[0].filename.split("/", 1)[0]
            pickled = reader.read_small(f"{prefix}/data.pkl")
            byteorder = _byteorder_without_record()
            if f"{prefix}/byteorder" in zf.NameToInfo:
                byteorder = reader.read_small(f"{prefix}/byteorder").decode("ascii")
                if byteorder not in ("little", "big"):
                    raise RuntimeError(f"Unknown endianness type: {byteorder}")
        except _CORRUPT as e:
            raise _corrupt(e) from e
        loader = _StorageLoader(reader, prefix, byteorder, map_location)
        if not weights_only:  # the file's own code runs: its errors are its own
            result = FullUnpickler(io.BytesIO(pickled), loader, **pickle_load_args).load()
        else:
            try:
                result = WeightsUnpickler(pickled, loader).load()
            except _CORRUPT as e:
                if e is loader.user_error:
                    raise
                raise _corrupt(e) from e
        # the stream is left just past this archive, where the next checkpoint saved into it
        # starts (not somewhere inside it, where the next load would read this one again)
        fobj.seek(end)
        return result
    finally:
        if zf is not None:
            zf.close()


def _load_legacy(data: bytes, map_location, weights_only: bool, pickle_load_args):
    """(the object, the offset in `data` just past it)."""
    loader = _StorageLoader(None, "", "little", map_location)
    if not weights_only:  # the file's own code runs: its errors are its own
        return load_legacy(data, loader._restore, False, pickle_load_args)
    try:
        return load_legacy(data, loader._restore, True, pickle_load_args)
    except _CORRUPT as e:
        if e is loader.user_error:
            raise
        raise _corrupt(e) from e


def _open_archive(fobj, start: int):
    """(zipfile, file object to read it through, offset where the archive ends) for the zip
    archive starting at `start`.

    zipfile finds an archive by its end record, searched from the end of the file: with several
    checkpoints saved one after the other into one stream, that is the last one, whatever the
    position. torch reads the one at the position. So while the archive found starts after
    `start`, the one before it is found through a window of the file ending where it starts.
    """
    zf, window, end = zipfile.ZipFile(fobj), fobj, None
    while True:
        infos = zf.infolist()
        found = min((i.header_offset for i in infos), default=start)
        if found <= start:
            return zf, window, fobj.seek(0, 2) if end is None else end
        zf.close()  # a ZipFile leaves a file object it was given open
        window, end = _Window(fobj, 0, found), found
        zf = zipfile.ZipFile(window)


def _corrupt(e: BaseException) -> RuntimeError:
    return RuntimeError(
        "minitorch.load: the file is not a valid checkpoint (truncated or corrupted?): "
        f"{type(e).__name__}: {e}"
    )


class _StorageLoader:
    """The unpicklers' persistent_load: ('storage', storage_type, key, location, numel) -> the
    storage, read once per key (tensors sharing it stay shared) and placed by map_location."""

    def __init__(self, reader: RecordReader, prefix: str, byteorder: str, map_location):
        self.reader = reader
        self.prefix = prefix
        self.byteorder = byteorder
        self.map_location = map_location
        self.cache: dict = {}
        # An error of the caller's map_location (or of calling it) propagates as it is, not as a
        # damaged file: the unpickler runs map_location, so the loaders check for this error.
        self.user_error: BaseException | None = None

    def __call__(self, pid):
        if pid.__class__ is not tuple or len(pid) != 5 or pid[0].__class__ is not str:
            raise pickle.UnpicklingError(f"unsupported persistent id of type {type(pid)}")
        kind, stype, key, location, numel = pid
        if (
            kind != "storage"
            or stype.__class__ is not StorageType
            or not isinstance(key, str)
            or not isinstance(location, str)
            or not isinstance(numel, int)
            or numel < 0
        ):
            raise pickle.UnpicklingError("malformed storage record in the checkpoint")
        cached = self.cache.get(key)
        dt = stype.dtype
        if cached is not None:
            if cached.dtype is not dt or cached.size() != numel:
                if numel == 0 and cached.size() == 0:
                    # torch.save files an empty storage saved as itself (bytes) and through a
                    # tensor (typed) under one key with two types: it refuses that by address,
                    # which an empty storage lacks. Each is an empty storage of its own type.
                    return self._restore(self._empty(dt), location, stype.name)
                raise RuntimeError(f"storage {key} is recorded with two different types or sizes")
            return cached
        try:
            _dtype.numpy_dtype(dt)
        except TypeError as e:
            raise RuntimeError(f"minitorch.load: {e}") from None
        name, nbytes = f"{self.prefix}/data/{key}", numel * dt.itemsize
        try:
            if _skip_data_state["skip_data"]:  # the record must be there; its bytes are not read
                self.reader.info(name, nbytes)
                u8 = np.zeros(nbytes, np.uint8)
            else:
                u8 = self.reader.read_storage(name, nbytes)
        except _CORRUPT as e:
            raise _corrupt(e) from e
        host = Storage(typed_storage(u8, dt, self.byteorder), cpu, dt)
        storage = self.cache[key] = self._restore(host, location, stype.name)
        return storage

    def _empty(self, dt) -> Storage:
        return Storage(typed_storage(np.zeros(0, np.uint8), dt, self.byteorder), cpu, dt)

    def _restore(self, storage: Storage, location: str, name: str) -> Storage:
        ml = self.map_location
        if ml is None:
            return _default_restore(storage, location, name)
        try:
            # torch hands a dict's values and a str (or bytes) to the deserializers as they
            # are: a value that is no str fails there, as in torch
            if isinstance(ml, dict):
                return _default_restore(storage, ml.get(location, location), name)
            if isinstance(ml, (str, bytes)):
                return _default_restore(storage, ml, name)
            if isinstance(ml, Device):
                return _default_restore(storage, str(ml), name)
            result = ml(storage, location)
            if result is None:
                return _default_restore(storage, location, name)
            if result.__class__ is not Storage:
                raise TypeError(
                    f"map_location must return a storage or None, not {type(result).__name__}"
                )
        except Exception as e:
            self.user_error = e
            raise
        return result


def default_restore_location(storage, location: str):
    """`storage` placed at `location`, a saved location tag ('cpu', 'cuda:1'), as torch.load
    places a storage without map_location: the registered packages' deserializers (see
    register_package) are asked in priority order. A CPU storage tagged 'cpu' comes back as it
    is. map_location callables call it to keep torch's placement for some tags. Mirrors
    torch.serialization.default_restore_location."""
    return _default_restore(storage, location, "storage.UntypedStorage")


def _default_restore(storage, location: str, name: str):
    for _, _, deserialize in _package_registry:
        result = deserialize(storage, location)
        if result is not None:
            return result
    # torch names the class it restores through, whatever the storage's type in the file
    raise RuntimeError(
        "don't know how to restore data location of torch.storage.UntypedStorage "
        f"(tagged with {location})"
    )


def _cpu_tag(obj) -> str | None:
    return "cpu" if obj.device.type == "cpu" else None


def _device_tag(obj) -> str | None:
    dev = obj.device
    return None if dev.type == "cpu" else f"{dev.type}:{dev.index or 0}"


def _cpu_deserialize(storage, location: str):
    # both storage kinds (the one map_location receives, minitorch.UntypedStorage) have cpu(),
    # which returns a CPU storage itself
    return storage.cpu() if location == "cpu" else None


# the device types torch's registry restores besides cpu and cuda (the ones minitorch has no
# backend for raise when moved to), and minitorch's strict test device
_RESTORED_TYPES = ("mps", "meta", "hpu", "xpu", "mtia", "privateuseone", "strict")


def _device_deserialize(storage, location: str):
    """A CUDA location ('cuda', 'cuda:1') checked as torch checks it, or one of the other device
    types torch restores, moved there. Like torch's, 'cpu:0' or 'xla' are restored by none
    (and a location that is no str raises re's TypeError)."""
    if location == "cuda" or re.match("cuda(:|[0-9]+)", location):
        dev = device(location)  # torch's "Invalid device string" for 'cuda:x'
    else:
        try:
            dev = device(location)
        except (RuntimeError, TypeError):
            return None
        if dev.type not in _RESTORED_TYPES:
            return None
    if dev.type == "cuda":
        from minitorch import cuda

        if not cuda.is_available():
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU."
            )
        index = dev.index if dev.index is not None else cuda.current_device()
        count = cuda.device_count()
        if index >= count:
            raise RuntimeError(
                f"Attempting to deserialize object on CUDA device {index} but "
                f"torch.cuda.device_count() is {count}. Please use torch.load with map_location "
                "to map your storages to an existing device."
            )
    return storage.to(device=dev)


# (priority, tagger, deserializer), lowest priority first: torch's CPU entry (10) and one for the
# devices minitorch knows (torch's CUDA priority, 20); register_package adds others.
_package_registry: list = [(10, _cpu_tag, _cpu_deserialize), (20, _device_tag, _device_deserialize)]


def register_package(priority: int, tagger, deserializer) -> None:
    """Registers tagger(storage) -> location or None and deserializer(storage, location) ->
    storage or None, asked before the packages of higher `priority` values. Mirrors
    torch.serialization.register_package.

    Differences from torch: minitorch.save writes a storage's device as its location without
    asking the taggers; the deserializers place storages on load and in
    default_restore_location, as in torch."""
    entries = [*_package_registry, (priority, tagger, deserializer)]
    entries.sort(key=lambda entry: entry[0])  # a priority that does not compare raises here
    _package_registry[:] = entries


def location_tag(storage) -> str:
    """The location a storage (or tensor) is saved with, from the registered taggers: 'cpu',
    'cuda:0', .... Mirrors torch.serialization.location_tag."""
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location is not None:
            return location
    raise RuntimeError(
        f"don't know how to determine data location of {type(storage).__module__}."
        f"{type(storage).__qualname__}"
    )


def normalize_storage_type(storage_type):
    """The storage class of that name in minitorch (torch maps torch.cuda.FloatStorage to
    torch.FloatStorage). Mirrors torch.serialization.normalize_storage_type.

    Differences from torch: minitorch has no torch.cuda storage classes to map."""
    import minitorch

    return getattr(minitorch, storage_type.__name__)


class SourceChangeWarning(Warning):
    """Mirrors torch.serialization.SourceChangeWarning, for warnings filters.

    Differences from torch: never issued (torch issues it when the source of a module class
    saved whole changed since; minitorch does not store module sources)."""


# ---------------------------------------------------------------------------------------------
# load settings: byte order of files without a byteorder record, mmap flags, skip_data


class LoadEndianness(enum.Enum):
    """Mirrors torch.serialization.LoadEndianness."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endianness: list = [None]


def get_default_load_endianness() -> LoadEndianness | None:
    """The byte order assumed for checkpoints without a byteorder record (None: little, as
    torch). Mirrors torch.serialization.get_default_load_endianness."""
    return _default_load_endianness[0]


def set_default_load_endianness(endianness) -> None:
    """Mirrors torch.serialization.set_default_load_endianness."""
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _default_load_endianness[0] = endianness


def _byteorder_without_record() -> str:
    endianness = _default_load_endianness[0]
    if endianness is LoadEndianness.BIG:
        return "big"
    if endianness is LoadEndianness.NATIVE:
        return sys.byteorder
    return "little"


# Windows' mmap module has neither flag; torch's values on Linux and macOS stand in there.
_MAP_PRIVATE = getattr(_mmap, "MAP_PRIVATE", 2)
_MAP_SHARED = getattr(_mmap, "MAP_SHARED", 1)
_mmap_flags: list = [_MAP_PRIVATE]


_compute_crc32 = [True]


def set_crc32_options(compute_crc32: bool) -> None:
    """Sets whether save computes and writes a CRC-32 for each record. Mirrors
    torch.serialization.set_crc32_options.

    Differences from torch: minitorch.save writes the CRC-32 either way (zipfile computes it);
    the setting is kept for get_crc32_options. Files torch saved without it load (see NOTE
    [ Records without a CRC-32 ])."""
    _compute_crc32[0] = compute_crc32


def get_crc32_options() -> bool:
    """Whether save computes and writes a CRC-32 for each record (True unless set otherwise).
    Mirrors torch.serialization.get_crc32_options."""
    return _compute_crc32[0]


def get_default_mmap_options() -> int:
    """The mmap flags of load(..., mmap=True): mmap.MAP_PRIVATE (copy-on-write) unless set.
    Mirrors torch.serialization.get_default_mmap_options."""
    return _mmap_flags[0]


class set_default_mmap_options:
    """Sets the mmap flags of load(..., mmap=True) to mmap.MAP_PRIVATE or mmap.MAP_SHARED
    (writes to the loaded tensors reach the file); as a context manager, until its exit.
    Mirrors torch.serialization.set_default_mmap_options.

    Differences from torch: a file changed through MAP_SHARED fails load's CRC-32 check of its
    records when read without mmap=True (torch checks no CRC)."""

    def __init__(self, flags: int):
        if flags not in (_MAP_PRIVATE, _MAP_SHARED):
            raise ValueError(
                "Invalid argument in function set_default_mmap_options, expected "
                f"mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}"
            )
        self.prev = _mmap_flags[0]
        _mmap_flags[0] = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _mmap_flags[0] = self.prev


_skip_data_state = {"skip_data": False, "materialize_fake_tensors": False}


class skip_data:
    """Context manager: save writes each storage record's room zero-filled instead of its bytes
    (to be filled in a later pass), and load leaves the loaded storages unread (zeros). Mirrors
    torch.serialization.skip_data.

    Differences from torch: minitorch has no fake tensors (materialize_fake_tensors is
    accepted and ignored); loading the legacy format reads its data."""

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self) -> None:
        self.prev = dict(_skip_data_state)
        _skip_data_state["skip_data"] = True
        _skip_data_state["materialize_fake_tensors"] = self.materialize_fake_tensors

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _skip_data_state.update(self.prev)


# ---------------------------------------------------------------------------------------------
# globals marked safe for weights_only=True loads


def add_safe_globals(safe_globals: list) -> None:
    """Marks classes/functions as safe for weights_only=True loads: they may be named, called,
    instantiated and given their state by a checkpoint. An entry is the object, matched by
    `{__module__}.{__qualname__}`, or an (object, "module.qualname") pair naming it as the
    checkpoint does. Mirrors torch.serialization.add_safe_globals."""
    _serialization_unpickle._safe_globals.update(safe_globals)


def get_safe_globals() -> list:
    """The globals marked safe by add_safe_globals. Mirrors torch.serialization.get_safe_globals."""
    return list(_serialization_unpickle._safe_globals)


def clear_safe_globals() -> None:
    """Forgets the globals marked safe. Mirrors torch.serialization.clear_safe_globals."""
    _serialization_unpickle._safe_globals.clear()


class safe_globals:
    """Context manager marking globals safe for weights_only=True loads within it (as
    add_safe_globals, removed again on exit). Mirrors torch.serialization.safe_globals."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _serialization_unpickle._safe_globals.difference_update(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The "module.name" globals a checkpoint's pickle names that a weights_only=True load
    would refuse (neither allowed by default nor marked safe), found without unpickling.
    Mirrors torch.serialization.get_unsafe_globals_in_checkpoint."""
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "rb") as fobj:
            return get_unsafe_globals_in_checkpoint(fobj)
    data = f.read()
    if data[:4] != b"PK\x03\x04":
        raise ValueError("Expected input to be a checkpoint returned by torch.save")
    buf = io.BytesIO(data)
    with zipfile.ZipFile(buf) as zf:
        prefix = zf.infolist()[0].filename.split("/", 1)[0]
        pickled = RecordReader(zf, buf).read_small(f"{prefix}/data.pkl")
    safe = {f"{m}.{n}" for m, n in _serialization_unpickle._allowed()}
    safe.update(_serialization_unpickle.user_allowed_globals())
    return list(_serialization_unpickle.globals_in_pickle(pickled) - safe)


# ---------------------------------------------------------------------------------------------
# safetensors (the optional `safetensors` package)


def _safetensors():
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError(
            "safetensors support needs the optional package safetensors "
            "(pip install 'minitorch-np[safetensors]')"
        ) from None
    return safetensors


def save_safetensors(tensors, filename, metadata: dict | None = None) -> None:
    """Saves a dict of tensors (a state dict) as a .safetensors file, written atomically like
    save. Mirrors safetensors.torch.save_file: tensors sharing memory are refused.

    Differences from safetensors: a non-contiguous tensor is saved as a contiguous copy.
    """
    st = _safetensors()
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise ValueError(
                f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}"
            )
    failing = _shared_groups(tensors)
    if failing:
        raise RuntimeError(
            "Some tensors share memory, this will lead to duplicate memory on disk and potential "
            f"differences when loading them again: {failing}.\nA potential way to correctly save "
            "your model is to save only one of each group (clone the others)."
        )
    arrays = {}
    for name, t in tensors.items():
        host = t._host()
        arrays[name] = host if host.flags.c_contiguous else host.copy(order="C")
    _atomic_write(filename, lambda _, tmp: st.numpy.save_file(arrays, tmp, metadata=metadata))


def load_safetensors(filename, device="cpu") -> dict:
    """The tensors of a .safetensors file, by name, on `device`. Mirrors
    safetensors.torch.load_file."""
    st = _safetensors()
    from minitorch._backend import device as as_device

    dev = tensor_device(as_device(device))
    b = backend_of(dev)
    out = {}
    with st.safe_open(os.fspath(filename), framework="np") as f:
        for name in f.keys():
            arr = f.get_tensor(name)
            _dtype.from_numpy(arr.dtype)  # TypeError for a dtype minitorch lacks
            if not arr.flags.writeable:
                arr = arr.copy()
            out[name] = _make(b.from_host(arr, dev), dev, False, None)
    return out


def _shared_groups(tensors) -> list[set]:
    """Groups (of 2 or more names) of tensors whose memory overlaps."""
    spans = []
    for name, t in tensors.items():
        a = t._data
        if a.size == 0:
            continue
        lo = hi = t._device.backend.data_ptr(a)
        for n, s in zip(a.shape, a.strides, strict=True):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        spans.append((str(t._device), lo, hi + a.itemsize, name))
    spans.sort()
    groups, end, key = [], None, None
    for dev, lo, hi, name in spans:
        if key == dev and lo < end:
            groups[-1].add(name)
            end = max(end, hi)
        else:
            groups.append({name})
            key, end = dev, hi
    return [g for g in groups if len(g) > 1]
