"""save/load against torch's behaviour: defaults of the weights_only allowlist (Counter, layouts),
reading the archive at a file's position, the caller's own errors, and awkward streams."""

from __future__ import annotations

import fractions
import gzip
import io
import pickle
import struct
import sys
import zipfile
from collections import Counter

import numpy as np
import pytest

import minitorch


def _saved(obj, **kwargs) -> io.BytesIO:
    buf = io.BytesIO()
    minitorch.save(obj, buf, **kwargs)
    buf.seek(0)
    return buf


def _checkpoint(pickled: bytes) -> io.BytesIO:
    """A zip checkpoint holding the given data.pkl (no storages)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickled)
        zf.writestr("archive/version", "3\n")
    buf.seek(0)
    return buf


# --- the weights_only=True allowlist: what torch allows by default ---


def test_weights_only_load_accepts_counter():
    opt = minitorch.optim.SGD([minitorch.nn.Parameter(minitorch.ones(2))], lr=0.1)
    sched = minitorch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4, 4])
    out = minitorch.load(_saved({"sched": sched.state_dict(), "c": Counter("abca")}))
    milestones = out["sched"]["milestones"]
    assert type(milestones) is Counter and dict(milestones) == {2: 1, 4: 2}
    assert type(out["c"]) is Counter and dict(out["c"]) == {"a": 2, "b": 1, "c": 1}


def test_layout_is_written_as_torch_writes_it_and_read_back():
    buf = _saved({"layout": minitorch.strided, "w": minitorch.ones(1)})
    with zipfile.ZipFile(buf) as zf:
        pickled = zf.read("archive/data.pkl")
    # torch.serialization._get_layout("torch.strided"): the global torch's allowlist holds
    assert b"ctorch.serialization\n_get_layout\n" in pickled
    assert b"torch.strided" in pickled
    buf.seek(0)
    out = minitorch.load(buf)  # weights_only=True
    assert out["layout"] is minitorch.strided
    np.testing.assert_array_equal(out["w"].numpy(), [1.0])


def test_layout_minitorch_lacks_is_refused_by_name():
    # torch.save(torch.sparse_coo): GLOBAL torch.serialization _get_layout, 'torch.sparse_coo'
    pickled = b"\x80\x02ctorch.serialization\n_get_layout\nX\x10\x00\x00\x00torch.sparse_coo\x85R."
    with pytest.raises(pickle.UnpicklingError, match="no equivalent of layout 'torch.sparse_coo'"):
        minitorch.load(_checkpoint(pickled))
    strided = pickled.replace(b"\x10\x00\x00\x00torch.sparse_coo", b"\x0d\x00\x00\x00torch.strided")
    assert minitorch.load(_checkpoint(strided)) is minitorch.strided


# --- reading the archive at the file's position ---


def test_load_reads_the_archive_at_the_position():
    buf = io.BytesIO()
    starts = []
    objs = [minitorch.ones(2), {"z": minitorch.zeros(1000)}, [minitorch.arange(3.0)]]
    for obj in objs:
        starts.append(buf.tell())
        minitorch.save(obj, buf)
    for start, expected in zip(starts, [[1.0, 1.0], None, [0.0, 1.0, 2.0]], strict=True):
        buf.seek(start)
        out = minitorch.load(buf)
        if start == starts[0]:
            np.testing.assert_array_equal(out.numpy(), expected)
        elif start == starts[1]:
            assert out["z"].shape == (1000,)
        else:
            np.testing.assert_array_equal(out[0].numpy(), expected)


def test_load_reads_the_first_of_two_checkpoints_in_a_file(tmp_path):
    path = tmp_path / "two.pt"
    with open(path, "wb") as f:
        minitorch.save({"a": minitorch.arange(4.0)}, f)
        minitorch.save({"b": minitorch.arange(9.0)}, f)
    for mmap in (False, True):
        out = minitorch.load(path, mmap=mmap)
        assert list(out) == ["a"]
        np.testing.assert_array_equal(out["a"].numpy(), [0.0, 1.0, 2.0, 3.0])


def test_archive_written_after_other_data_counts_offsets_from_its_start():
    buf = io.BytesIO(b"header")
    buf.seek(0, 2)
    minitorch.save({"w": minitorch.arange(5.0)}, buf)
    data = buf.getvalue()[len(b"header") :]
    # torch (miniz) reads offsets relative to the archive: the first central directory entry
    # must point at the local header at offset 0 of the archive, not of the stream
    entry = data.index(b"PK\x01\x02")
    assert struct.unpack_from("<I", data, entry + 42)[0] == 0
    np.testing.assert_array_equal(minitorch.load(io.BytesIO(data))["w"].numpy(), np.arange(5.0))
    buf.seek(len(b"header"))
    np.testing.assert_array_equal(minitorch.load(buf)["w"].numpy(), np.arange(5.0))


# --- errors that are the caller's, not the file's ---


@pytest.mark.parametrize("legacy", [False, True])
def test_map_location_errors_propagate_as_they_are(legacy):
    buf = _saved({"w": minitorch.ones(2)}, _use_new_zipfile_serialization=not legacy)

    def broken(storage, location):
        raise KeyError("no such device mapping")

    with pytest.raises(KeyError, match="no such device mapping"):
        minitorch.load(buf, map_location=broken)
    buf.seek(0)
    with pytest.raises(TypeError, match="'int' object is not callable"):
        minitorch.load(buf, map_location=0)
    buf.seek(0)
    with pytest.raises(TypeError, match="map_location must return a storage or None, not int"):
        minitorch.load(buf, map_location=lambda storage, location: 3)


def test_explicit_pickle_module_defaults_to_a_full_unpickle():
    obj = {"w": minitorch.ones(2), "f": fractions.Fraction(1, 3)}
    out = minitorch.load(_saved(obj), pickle_module=pickle)
    assert out["f"] == fractions.Fraction(1, 3)
    np.testing.assert_array_equal(out["w"].numpy(), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="explicit pickle_module is specified"):
        minitorch.load(_saved(obj), pickle_module=pickle, weights_only=True)
    with pytest.raises(pickle.UnpicklingError, match="Fraction"):
        minitorch.load(_saved(obj))  # no pickle_module: weights_only=True


def test_empty_checkpoint_raises_eoferror(tmp_path):
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    with pytest.raises(EOFError, match="empty"):
        minitorch.load(path)
    buf = _saved(minitorch.ones(1))
    buf.seek(0, 2)  # at the end: nothing left to read
    with pytest.raises(EOFError, match="empty"):
        minitorch.load(buf)


def test_save_into_a_directory_raises_runtimeerror(tmp_path):
    with pytest.raises(RuntimeError, match="open file failed with strerror: Is a directory"):
        minitorch.save(minitorch.ones(1), tmp_path)


def test_save_of_a_local_function_raises_the_c_picklers_error():
    def local(x):
        return x

    try:  # what Python's own pickler (torch's) raises for it
        pickle.dumps(local)
    except Exception as e:
        expected = type(e)
    if sys.version_info < (3, 14):
        assert expected is AttributeError
    with pytest.raises(expected, match="local"):
        minitorch.save({"fn": local}, io.BytesIO())


# --- streams that cannot seek back ---


def test_save_into_gzip_and_load_back(tmp_path):
    path = tmp_path / "ck.pt.gz"
    with gzip.open(path, "wb") as f:
        minitorch.save({"w": minitorch.arange(6.0)}, f)
    with gzip.open(path, "rb") as f:
        out = minitorch.load(f)
    np.testing.assert_array_equal(out["w"].numpy(), np.arange(6.0))


class _WriteOnly:
    def __init__(self):
        self.data = bytearray()

    def write(self, b):
        self.data += b
        return len(b)


def test_save_into_write_only_and_append_mode_streams(tmp_path):
    sink = _WriteOnly()
    minitorch.save({"w": minitorch.arange(3.0)}, sink)
    out = minitorch.load(io.BytesIO(bytes(sink.data)))
    np.testing.assert_array_equal(out["w"].numpy(), [0.0, 1.0, 2.0])

    path = tmp_path / "log.bin"
    path.write_bytes(b"head")
    with open(path, "ab") as f:  # every write lands at the end, whatever the seeks
        minitorch.save({"w": minitorch.arange(4.0)}, f)
    with open(path, "rb") as f:
        f.seek(4)
        out = minitorch.load(f)
    np.testing.assert_array_equal(out["w"].numpy(), [0.0, 1.0, 2.0, 3.0])
