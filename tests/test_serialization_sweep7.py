"""save/load against torch's behaviour: the storage of a from_numpy slice, loaded stride-0 tensors,
the weights_only environment switches, and torch.serialization's smaller public names."""

from __future__ import annotations

import io
import mmap
import warnings
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch import serialization


def _saved(obj, **kwargs) -> io.BytesIO:
    buf = io.BytesIO()
    minitorch.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


def _record_sizes(buf: io.BytesIO) -> dict:
    with zipfile.ZipFile(buf) as zf:
        sizes = {
            i.filename.rsplit("/", 1)[1]: i.file_size
            for i in zf.infolist()
            if "/data/" in i.filename
        }
    buf.seek(0)
    return sizes


# --- a tensor's storage is its own memory extent, not its NumPy owner's ---


def test_from_numpy_slice_saves_only_its_own_elements():
    big = np.arange(100_000, dtype=np.float32)
    buf = _saved(minitorch.from_numpy(big[5:9]))
    assert _record_sizes(buf) == {"0": 16}  # torch: 4 elements, not the whole parent array
    out = minitorch.load(buf)
    assert out.storage_offset() == 0
    assert out.untyped_storage().nbytes() == 16
    np.testing.assert_array_equal(out.numpy(), [5.0, 6.0, 7.0, 8.0])


def test_as_tensor_row_and_from_numpy_of_numpy_are_storages_of_their_own():
    rows = np.arange(40, dtype=np.float32).reshape(4, 10)
    z = minitorch.arange(12.0).reshape(3, 4)
    w = minitorch.from_numpy(z.numpy()[1])
    buf = _saved([minitorch.as_tensor(rows[1]), z, w])
    assert sorted(_record_sizes(buf).values()) == [16, 40, 48]
    row, lz, lw = minitorch.load(buf)
    assert (row.storage_offset(), lw.storage_offset()) == (0, 0)
    lz[1, 0] = 55.0  # as in torch, w's storage is not z's
    np.testing.assert_array_equal(lw.numpy(), [4.0, 5.0, 6.0, 7.0])
    np.testing.assert_array_equal(row.numpy(), np.arange(10, 20, dtype=np.float32))


def test_strided_from_numpy_slice_saves_its_extent():
    big = np.arange(40, dtype=np.float32).reshape(4, 10)
    buf = _saved(minitorch.from_numpy(big[:, ::2]))
    assert _record_sizes(buf) == {"0": 156}  # first to last element: 39 floats, as torch
    out = minitorch.load(buf)
    assert out.stride() == (10, 2) and out.untyped_storage().nbytes() == 156
    np.testing.assert_array_equal(out.numpy(), big[:, ::2])


def test_tensors_sharing_a_storage_still_share_one_record():
    a = np.arange(10, dtype=np.float32)
    t = minitorch.from_numpy(a)
    p = minitorch.nn.Parameter(t)
    objs = [t, t[2:], t.detach(), t.data, p, minitorch.from_numpy(a), t[1:].detach()]
    buf = _saved(objs)
    assert _record_sizes(buf) == {"0": 40}
    out = minitorch.load(buf)
    assert [o.storage_offset() for o in out] == [0, 2, 0, 0, 0, 0, 1]
    out[0][3] = 100.0
    assert [o[3 - o.storage_offset()].item() for o in out] == [100.0] * len(out)


def test_same_address_different_dtypes_is_refused():
    a = np.arange(4, dtype=np.float32)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        minitorch.save(
            [minitorch.from_numpy(a), minitorch.from_numpy(a.view(np.int32))], io.BytesIO()
        )


def test_loaded_expanded_tensor_keeps_the_saved_storage():
    buf = _saved(minitorch.arange(1000.0).expand(1000, 1000))
    out = minitorch.load(buf)
    assert out.stride() == (0, 1) and out.storage_offset() == 0
    assert out.untyped_storage().nbytes() == 4000  # was the expanded size, 4,000,000
    assert out.detach().untyped_storage().nbytes() == 4000
    assert _record_sizes(_saved(out)) == {"0": 4000}
    np.testing.assert_array_equal(out.numpy()[999], np.arange(1000, dtype=np.float32))


# --- TORCH_FORCE_WEIGHTS_ONLY_LOAD / TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD ---


class _Config:  # a global that weights_only=True refuses
    lr = 0.1


def _config_checkpoint() -> io.BytesIO:
    return _saved({"cfg": _Config(), "w": minitorch.ones(2)})


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "y", "Yes"])
def test_force_no_weights_only_applies_when_weights_only_not_given(monkeypatch, value):
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", value)
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected"):
        out = minitorch.load(_config_checkpoint())
    assert type(out["cfg"]) is _Config
    with pytest.raises(pickle_error()):  # an explicit True wins, without a warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            minitorch.load(_config_checkpoint(), weights_only=True)


@pytest.mark.parametrize("value", ["0", "", "on", "2", "true "])
def test_other_values_are_not_true(monkeypatch, value):
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", value)
    with pytest.raises(pickle_error()):
        minitorch.load(_config_checkpoint())
    monkeypatch.delenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", value)
    assert type(minitorch.load(_config_checkpoint(), weights_only=False)["cfg"]) is _Config


def test_force_weights_only_overrides_an_explicit_false(monkeypatch):
    import pickle

    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError):
        minitorch.load(_config_checkpoint(), weights_only=False)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        minitorch.load(_config_checkpoint(), pickle_module=pickle)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD`"):
        minitorch.load(_config_checkpoint(), weights_only=False)


def pickle_error():
    import pickle

    return pickle.UnpicklingError


# --- torch.serialization's smaller public names ---


def test_source_change_warning_filters():
    assert issubclass(serialization.SourceChangeWarning, Warning)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=serialization.SourceChangeWarning)


def test_location_tag_and_register_package():
    t = minitorch.ones(2)
    assert serialization.location_tag(t) == "cpu"
    assert serialization.location_tag(t.untyped_storage()) == "cpu"
    with pytest.raises(AttributeError):
        serialization.location_tag(5)
    saved = list(serialization._package_registry)
    moved = []

    def tagger(obj):
        return "fake" if getattr(obj, "fake", False) else None

    def deserializer(storage, location):
        if location == "fake":
            moved.append(location)
            return storage.cpu()
        return None

    try:
        serialization.register_package(11, tagger, deserializer)
        storage = t.untyped_storage()
        assert serialization.default_restore_location(storage, "fake") is storage
        assert moved == ["fake"]
        out = minitorch.load(_saved(t), map_location={"cpu": "fake"})
        assert moved == ["fake", "fake"]
        np.testing.assert_array_equal(out.numpy(), [1.0, 1.0])
        storage.fake = True
        assert serialization.location_tag(storage) == "cpu"  # cpu's tagger (10) comes first
        serialization.register_package(5, tagger, deserializer)
        assert serialization.location_tag(storage) == "fake"
        with pytest.raises(TypeError):
            serialization.register_package("a", tagger, deserializer)
    finally:
        serialization._package_registry[:] = saved
    with pytest.raises(RuntimeError, match=r"don't know how to restore .*tagged with fake"):
        serialization.default_restore_location(t.untyped_storage(), "fake")


def test_normalize_storage_type():
    assert (
        serialization.normalize_storage_type(minitorch.UntypedStorage) is minitorch.UntypedStorage
    )


def test_skip_data_writes_and_reads_no_bytes():
    x = minitorch.arange(6.0) + 1
    with serialization.skip_data():
        buf = _saved({"x": x, "y": x[2:]})
    assert _record_sizes(buf) == {"0": 24}
    with zipfile.ZipFile(buf) as zf:
        assert zf.read("archive/data/0") == bytes(24)
    buf.seek(0)
    out = minitorch.load(buf)
    np.testing.assert_array_equal(out["y"].numpy(), np.zeros(4, np.float32))
    assert out["y"].storage_offset() == 2
    with serialization.skip_data(materialize_fake_tensors=True):
        loaded = minitorch.load(_saved(x))
    np.testing.assert_array_equal(loaded.numpy(), np.zeros(6, np.float32))
    np.testing.assert_array_equal(minitorch.load(_saved(x)).numpy(), [1, 2, 3, 4, 5, 6])
    with serialization.skip_data(), pytest.raises(RuntimeError, match="skip_data=True"):
        minitorch.save(x, io.BytesIO(), _use_new_zipfile_serialization=False)


def test_default_mmap_options(tmp_path):
    assert serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    with pytest.raises(ValueError, match="expected mmap.MAP_PRIVATE or mmap.MAP_SHARED"):
        serialization.set_default_mmap_options(5)
    path = tmp_path / "w.pt"
    minitorch.save(minitorch.zeros(3), path)
    minitorch.load(path, mmap=True)[0] = 7.0  # copy-on-write: the file keeps its zeros
    np.testing.assert_array_equal(minitorch.load(path).numpy(), [0.0, 0.0, 0.0])
    with serialization.set_default_mmap_options(mmap.MAP_SHARED):
        assert serialization.get_default_mmap_options() == mmap.MAP_SHARED
        t = minitorch.load(path, mmap=True)
        t[0] = 7.0
        del t
    assert serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    # the write reached the file (read back mapped: the record's CRC no longer matches)
    np.testing.assert_array_equal(minitorch.load(path, mmap=True).numpy(), [7.0, 0.0, 0.0])


def test_default_load_endianness_for_files_without_a_byteorder_record():
    LE = serialization.LoadEndianness
    assert [e.value for e in LE] == [
        1,
        2,
        3,
    ] and serialization.get_default_load_endianness() is None
    with pytest.raises(TypeError, match="set_default_load_endianness"):
        serialization.set_default_load_endianness("big")
    values = np.array([1.0, 2.0], np.float32)
    data = _saved(minitorch.from_numpy(values), _disable_byteorder_record=True).getvalue()
    swapped = values.view(">f4").astype(np.float32)  # the same bytes read big-endian
    try:
        for setting, expected in [(None, values), (LE.LITTLE, values), (LE.BIG, swapped)]:
            serialization.set_default_load_endianness(setting)
            assert serialization.get_default_load_endianness() is setting
            np.testing.assert_array_equal(minitorch.load(io.BytesIO(data)).numpy(), expected)
        serialization.set_default_load_endianness(LE.BIG)  # a byteorder record wins
        np.testing.assert_array_equal(minitorch.load(_saved(minitorch.ones(2))).numpy(), [1, 1])
    finally:
        serialization.set_default_load_endianness(None)


def test_untyped_storage_to():
    s = minitorch.ones(2).untyped_storage()
    assert s.to(device="cpu") is s
    assert s.to(device=minitorch.device("cpu"), non_blocking=True) is s
    with pytest.raises(TypeError):
        s.to("cpu")  # keyword-only, as in torch
    meta = serialization.default_restore_location(s, "meta")  # (was AttributeError: no .to)
    assert meta.device == minitorch.device("meta") and meta.size() == s.size()
    assert repr(meta) == "...\n[torch.storage.UntypedStorage(device=meta) of size 8]"


def test_parameter_of_a_view_shares_its_storage_in_a_checkpoint():
    x = minitorch.arange(6.0)
    p = minitorch.nn.Parameter(x[2:])
    assert p.storage_offset() == 2
    assert p.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    buf = io.BytesIO()
    minitorch.save({"x": x, "p": p}, buf)
    buf.seek(0)
    d = minitorch.load(buf)
    assert d["p"].storage_offset() == 2
    assert d["p"].untyped_storage().data_ptr() == d["x"].untyped_storage().data_ptr()
    d["x"][3] = 40.0
    assert d["p"][1].item() == 40.0
