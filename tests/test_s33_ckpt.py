"""Session 33 (helper ckpt): torch-free regression tests of the library fixes the checkpointing
programs of tests/reference/test_s33_ckpt_reference.py found: save's check of `f` before
pickling; load's refusal of streams it cannot seek in, and its reading of an mmap.mmap; the
warning for pickle_load_args with weights_only; .safetensors paths read through safetensors; the
mmap message for legacy files; map_location values restored as torch restores them (no
deserializer for 'cpu:0' or 'xla', "Invalid device string" for 'cuda:x', re's TypeError for a
value that is no str); checkpoints whose records carry no CRC-32 (torch's
set_crc32_options(False)) and the crc32 options; old checkpoints naming
torch.cuda.<X>Storage; lazy modules' uninitialised state dicts and a placeholder's copy_; the
type name in set_rng_state's TypeError. torch's messages are written here as literals."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import minitorch as mt

_SEEK_HINT = (
    ". You can only torch.load from a file that is seekable. Please pre-load the data into a "
    "buffer like io.BytesIO and try to load from it instead."
)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _saved(obj, **kwargs):
    buf = io.BytesIO()
    mt.save(obj, buf, **kwargs)
    return buf.getvalue()


class _ReadOnly:
    """A stream with read but no seek (a socket's or an HTTP response's file)."""

    def __init__(self, data):
        self._b = io.BytesIO(data)

    def read(self, n=-1):
        return self._b.read(n)

    def readinto(self, b):
        return self._b.readinto(b)


class _Unseekable(io.RawIOBase):
    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def readinto(self, b):
        return self._b.readinto(b)


class _Unpicklable:
    def __reduce__(self):
        raise AssertionError("save pickled before checking f")


@pytest.mark.parametrize("f", [None, 3, 2.5, object()])
def test_save_checks_f_before_pickling(f):
    msg = _message(AttributeError, lambda: mt.save(_Unpicklable(), f))
    assert msg == "expected 'f' to be string, path, or a file-like object with a 'write' attribute"


def test_load_refuses_streams_it_cannot_seek_in():
    data = _saved(mt.arange(3.0))
    msg = _message(AttributeError, lambda: mt.load(_ReadOnly(data)))
    assert msg == "'_ReadOnly' object has no attribute 'seek'" + _SEEK_HINT
    msg = _message(io.UnsupportedOperation, lambda: mt.load(_Unseekable(data)))
    assert msg == "seek" + _SEEK_HINT
    msg = _message(io.UnsupportedOperation, lambda: mt.load(io.BufferedReader(_Unseekable(data))))
    assert msg == "seek" + _SEEK_HINT
    msg = _message(AttributeError, lambda: mt.load(data))  # the bytes themselves
    assert msg == "'bytes' object has no attribute 'seek'" + _SEEK_HINT
    # the seek check comes before mmap's
    msg = _message(AttributeError, lambda: mt.load(_ReadOnly(data), mmap=True))
    assert msg.endswith(_SEEK_HINT)
    msg = _message(ValueError, lambda: mt.load(io.BytesIO(data), mmap=True))
    assert msg == "f must be a file path in order to use the mmap argument"
    np.testing.assert_array_equal(mt.load(io.BufferedReader(io.BytesIO(data))).numpy(), [0, 1, 2])


def test_pickle_load_args_warn_under_weights_only():
    data = _saved(mt.ones(2))
    with pytest.warns(UserWarning, match=re.escape("pickle_load_args only works if `weights_onl")):
        mt.load(io.BytesIO(data), encoding="latin1")
    with pytest.warns(UserWarning, match="pickle_load_args"), pytest.raises(TypeError):
        mt.load(io.BytesIO(data), fix_imports=True)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mt.load(io.BytesIO(data), encoding="latin1", weights_only=False)
        mt.load(io.BytesIO(data))


def test_safetensors_paths_load_through_safetensors(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    w = np.arange(6.0).reshape(3, 2)
    path = tmp_path / "m.safetensors"
    st.save_file({"w": w, "b": w[0].copy()}, str(path))
    for ml in (None, "cpu", mt.device("cpu"), 0):
        out = mt.load(path, map_location=ml)
        assert type(out) is dict and sorted(out) == ["b", "w"]
        np.testing.assert_array_equal(out["w"].numpy(), w)
        assert out["w"].dtype == mt.float64
    np.testing.assert_array_equal(mt.load(str(path), mmap=True)["b"].numpy(), w[0])
    for ml, kind in (({"cpu": "cpu"}, "dict"), (lambda s, loc: s, "callable")):
        msg = _message(RuntimeError, lambda ml=ml: mt.load(path, map_location=ml))
        assert msg == (
            f"Loading safetensors file with {kind} map_location is not supported. Use a device "
            "string or torch.device instead."
        )
    # a zip checkpoint under that name is not read as one
    mt.save({"w": mt.ones(1)}, tmp_path / "z.safetensors")
    with pytest.raises(Exception, match="(?i)header|deserializ|invalid"):
        mt.load(tmp_path / "z.safetensors")


def test_mmap_of_a_legacy_file_names_only_a_str_path(tmp_path):
    path = tmp_path / "legacy.pt"
    mt.save(mt.ones(2), path, _use_new_zipfile_serialization=False)
    tail = (
        "_use_new_zipfile_serialization=True), please torch.save your checkpoint with this "
        "option in order to use mmap."
    )
    msg = _message(RuntimeError, lambda: mt.load(path, mmap=True))
    assert msg == "mmap can only be used with files saved with `torch.save(" + tail
    msg = _message(RuntimeError, lambda: mt.load(str(path), mmap=True))
    assert msg == f"mmap can only be used with files saved with `torch.save({path}, " + tail


@pytest.mark.parametrize("legacy", [False, True])
def test_map_location_values_are_restored_as_torch_restores_them(legacy):
    data = _saved({"t": mt.arange(3.0)}, _use_new_zipfile_serialization=not legacy)

    def load(ml):
        return mt.load(io.BytesIO(data), map_location=ml)

    for ml, tag in (("cpu:0", "cpu:0"), ("xla", "xla"), ({"cpu": "xla:1"}, "xla:1")):
        msg = _message(RuntimeError, lambda ml=ml: load(ml))
        assert msg == (
            "don't know how to restore data location of torch.storage.UntypedStorage "
            f"(tagged with {tag})"
        )
    for ml in ("cuda:x", {"cpu": "cuda:x"}):
        assert _message(RuntimeError, lambda ml=ml: load(ml)) == "Invalid device string: 'cuda:x'"
    msg = _message(TypeError, lambda: load({"cpu": 3}))
    assert msg == "expected string or bytes-like object, got 'int'"
    msg = _message(TypeError, lambda: load(b"cpu"))
    assert msg == "cannot use a string pattern on a bytes-like object"
    for ml in ("cpu", {"cpu": "cpu"}, mt.device("cpu"), {"cuda:0": "cpu"}, "meta"):
        assert load(ml)["t"].shape == (3,)
    assert load("meta")["t"].device.type == "meta"


def test_set_rng_state_names_the_type_as_torch_does():
    for value, name in ((np.zeros(3, np.uint8), "numpy.ndarray"), ([1, 2], "list")):
        msg = _message(TypeError, lambda value=value: mt.set_rng_state(value))
        assert msg == f"expected a torch.ByteTensor, but got {name}"
        msg = _message(TypeError, lambda value=value: mt.Generator().set_state(value))
        assert msg == f"expected a torch.ByteTensor, but got {name}"


def test_lazy_state_dict_loads_into_an_uninitialized_lazy_module():
    nn = mt.nn

    def make():
        return nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d())

    src, dst = make(), make()
    assert str(dst.load_state_dict(src.state_dict())) == "<All keys matched successfully>"
    assert all(isinstance(p, nn.parameter.UninitializedParameter) for p in dst.parameters())
    dst(mt.ones(2, 4))  # still materialises on its first forward
    assert dst[0].weight.shape == (3, 4)


def test_placeholder_copy_is_that_of_an_empty_tensor():
    p = mt.nn.parameter.UninitializedParameter()
    msg = _message(RuntimeError, lambda: p.copy_(mt.ones(3)))
    assert msg == "a leaf Variable that requires grad is being used in an in-place operation."
    with mt.no_grad():
        assert p.copy_(mt.ones(0)) is p
        assert p.copy_(mt.nn.parameter.UninitializedBuffer()) is p
        with pytest.raises(RuntimeError):
            p.copy_(mt.ones(3))
    assert type(p) is mt.nn.parameter.UninitializedParameter
    b = mt.nn.parameter.UninitializedBuffer()
    msg = _message(RuntimeError, lambda: b.copy_(mt.ones(1, 0)))
    assert msg == "output with shape [0] doesn't match the broadcast shape [1, 0]"
    assert b.copy_(mt.ones(0)) is b and type(b) is mt.nn.parameter.UninitializedBuffer


@pytest.mark.parametrize("legacy", [False, True])
def test_load_reads_an_mmap_object(tmp_path, legacy):
    import mmap

    path = tmp_path / "m.pt"
    mt.save({"t": mt.arange(3.0)}, path, _use_new_zipfile_serialization=not legacy)
    mt.save({"u": mt.ones(2)}, tmp_path / "b.pt", _use_new_zipfile_serialization=not legacy)
    with open(path, "ab") as f:  # a second checkpoint after the first
        f.write((tmp_path / "b.pt").read_bytes())
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        out = mt.load(mm)  # no seekable(), and a seek that returns None
        np.testing.assert_array_equal(out["t"].numpy(), [0.0, 1.0, 2.0])
        assert 0 < mm.tell() < mm.size()


def _without_crcs(data: bytes) -> bytes:
    """The checkpoint as torch.save writes it under set_crc32_options(False): every record's
    CRC-32 recorded as 0 (local headers and central directory)."""
    import zipfile

    out = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            out[info.header_offset + 14 : info.header_offset + 18] = bytes(4)
    i = out.find(b"PK\x01\x02")
    while i != -1:
        out[i + 16 : i + 20] = bytes(4)
        i = out.find(b"PK\x01\x02", i + 4)
    return bytes(out)


def test_checkpoints_saved_without_crc32_load(tmp_path):
    base = mt.arange(6.0).view(2, 3)
    data = _without_crcs(_saved({"w": base, "t": base.t(), "n": [1, 2]}))
    for out in (
        mt.load(io.BytesIO(data)),
        mt.load(io.BytesIO(data), weights_only=False),
        (tmp_path.joinpath("c.pt").write_bytes(data), mt.load(tmp_path / "c.pt", mmap=True))[1],
    ):
        np.testing.assert_array_equal(out["t"].numpy(), base.numpy().T)
        assert out["n"] == [1, 2]
    assert mt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) == []
    # a record whose CRC is recorded (not 0) is still checked
    good = bytearray(_saved({"w": base}))
    i = good.index(base.numpy().tobytes())
    good[i + 5] ^= 0xFF
    with pytest.raises(RuntimeError, match="CRC"):
        mt.load(io.BytesIO(bytes(good)))


def test_crc32_options():
    ser = mt.serialization
    assert ser.get_crc32_options() is True
    try:
        ser.set_crc32_options(False)
        assert ser.get_crc32_options() is False
        data = _saved(mt.ones(2))  # written with CRC-32s anyway: any zip reader takes it
        np.testing.assert_array_equal(mt.load(io.BytesIO(data)).numpy(), [1.0, 1.0])
    finally:
        ser.set_crc32_options(True)


def test_old_cuda_storage_classes_load_with_a_map_location():
    data = _saved({"w": mt.arange(4.0)}, _use_new_zipfile_serialization=False)
    assert data.count(b"ctorch\nFloatStorage\n") == 1
    data = data.replace(b"ctorch\nFloatStorage\n", b"ctorch.cuda\nFloatStorage\n")
    data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
    for weights_only in (True, False):
        out = mt.load(io.BytesIO(data), map_location="cpu", weights_only=weights_only)
        np.testing.assert_array_equal(out["w"].numpy(), [0.0, 1.0, 2.0, 3.0])
