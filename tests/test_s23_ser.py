"""save/load interchange found by differential fuzzing against torch (session 23): checkpoints saved
one after another into one stream, the weights_only refusal of a builtin, and
get_unsafe_globals_in_checkpoint on pickles of protocols 4 and 5."""

from __future__ import annotations

import collections
import fractions
import io
import pickle
import zipfile

import pytest

import minitorch
from minitorch import serialization


def _two_in_one_stream(first, second, **kwargs) -> tuple[io.BytesIO, int, int]:
    buf = io.BytesIO()
    minitorch.save(first, buf, **kwargs)
    end_first = buf.tell()
    minitorch.save(second, buf, **kwargs)
    end_second = buf.tell()
    buf.seek(0)
    return buf, end_first, end_second


# --- several checkpoints in one stream are read back one by one, each once ---


@pytest.mark.parametrize("weights_only", [True, False])
@pytest.mark.parametrize("protocol", [2, 4])
def test_zip_checkpoints_in_one_stream_read_one_by_one(weights_only, protocol):
    # Before: the stream was left inside the first archive, so the second load found the
    # first archive again and returned {'first': ...} a second time (silently wrong data).
    buf, end_first, end_second = _two_in_one_stream(
        {"first": minitorch.arange(3)}, {"second": minitorch.ones(2, 2)}, pickle_protocol=protocol
    )
    one = minitorch.load(buf, weights_only=weights_only)
    assert list(one) == ["first"] and one["first"].tolist() == [0, 1, 2]
    assert buf.tell() == end_first
    two = minitorch.load(buf, weights_only=weights_only)
    assert list(two) == ["second"] and two["second"].tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert buf.tell() == end_second


def test_zip_checkpoint_then_other_data_in_one_stream():
    buf = io.BytesIO()
    minitorch.save([minitorch.tensor([1.5, 2.5])], buf)
    end = buf.tell()
    minitorch.save({"k": 7}, buf)
    minitorch.save({"k": 8}, buf)
    buf.seek(0)
    assert minitorch.load(buf)[0].tolist() == [1.5, 2.5]
    assert buf.tell() == end
    assert minitorch.load(buf) == {"k": 7}
    assert minitorch.load(buf) == {"k": 8}
    with pytest.raises(EOFError):
        minitorch.load(buf)


@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_checkpoints_in_one_stream_read_one_by_one(weights_only):
    # torch reads a legacy checkpoint sequentially and leaves the stream just past it (torch
    # 2.13: position 164 after {'first': 1}); before, minitorch read the whole stream, so the
    # second load raised EOFError.
    buf, end_first, end_second = _two_in_one_stream(
        {"first": 1}, {"second": minitorch.tensor([3, 4])}, _use_new_zipfile_serialization=False
    )
    assert end_first == 164
    assert minitorch.load(buf, weights_only=weights_only) == {"first": 1}
    assert buf.tell() == end_first
    two = minitorch.load(buf, weights_only=weights_only)
    assert two["second"].tolist() == [3, 4]
    assert buf.tell() == end_second


def test_legacy_checkpoint_with_storages_leaves_the_stream_after_its_data():
    t = minitorch.arange(6, dtype=minitorch.float64)
    buf, end_first, _ = _two_in_one_stream(
        {"a": t, "b": t[2:], "c": minitorch.zeros(0)}, [1, 2], _use_new_zipfile_serialization=False
    )
    one = minitorch.load(buf)
    assert one["b"].tolist() == [2.0, 3.0, 4.0, 5.0]
    assert buf.tell() == end_first
    assert minitorch.load(buf) == [1, 2]


# --- weights_only refusals name builtins as torch does ---


def test_refused_builtin_global_is_named_without_builtins_prefix():
    buf = io.BytesIO()
    minitorch.save({"g": frozenset([1])}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError) as info:
        minitorch.load(buf, weights_only=True)
    msg = str(info.value)
    # torch 2.13's wording: "GLOBAL frozenset", "add_safe_globals([frozenset])"
    assert "Unsupported global: GLOBAL frozenset was not an allowed global by default." in msg
    assert "`minitorch.serialization.add_safe_globals([frozenset])`" in msg
    assert "`minitorch.serialization.safe_globals([frozenset])`" in msg
    assert "builtins.frozenset" not in msg
    # a global of another module keeps its module
    buf = io.BytesIO()
    minitorch.save({"f": fractions.Fraction(1, 3)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL fractions\.Fraction was not an"):
        minitorch.load(buf, weights_only=True)


# --- get_unsafe_globals_in_checkpoint reads STACK_GLOBAL through the memo ---


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_unsafe_globals_with_memoized_module_names(protocol):
    # Protocols 4 and 5 name a global by two strings on the stack (STACK_GLOBAL); a module named
    # a second time ("collections" for deque, after Counter) is a memo read, not a string.
    # Before, the two most recent strings were taken: "b.deque" instead of "collections.deque".
    # torch 2.13 reports ['fractions.Fraction', 'collections.deque'] (protocol 2).
    obj = {
        "a": collections.Counter("ab"),
        "b": collections.deque([1]),
        "c": fractions.Fraction(1, 3),
        "d": minitorch.nn.Parameter(minitorch.ones(2)),
        "e": minitorch.nn.Parameter(minitorch.zeros(2)),
    }
    buf = io.BytesIO()
    minitorch.save(obj, buf, pickle_protocol=protocol)
    buf.seek(0)
    found = sorted(serialization.get_unsafe_globals_in_checkpoint(buf))
    assert found == ["collections.deque", "fractions.Fraction"]


# --- legacy files of pickle protocol 1 (as torch.save writes them) are read ---


@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_protocol_1_checkpoint_is_read(weights_only):
    # torch.save(..., pickle_protocol=1, _use_new_zipfile_serialization=False) starts with a
    # text LONG (b"L119547037146038801333356L\n"): torch 2.13 loads it (weights_only=False);
    # before, minitorch refused its own file ("invalid load key, b'L'")
    buf = io.BytesIO()
    kw = {"pickle_protocol": 1, "_use_new_zipfile_serialization": False}
    minitorch.save({"a": minitorch.arange(3.0)}, buf, **kw)
    minitorch.save([5], buf, **kw)
    assert buf.getvalue()[:4] == b"L119"
    buf.seek(0)
    assert minitorch.load(buf, weights_only=weights_only)["a"].tolist() == [0.0, 1.0, 2.0]
    assert minitorch.load(buf, weights_only=weights_only) == [5]
    with pytest.raises(pickle.UnpicklingError, match=r"invalid load key, b'L'"):
        minitorch.load(io.BytesIO(b"L12\n."), weights_only=weights_only)


# --- weights_only=True takes no unpickler argument but encoding, as torch's ---


def test_weights_only_refuses_unknown_pickle_load_args():
    buf = io.BytesIO()
    minitorch.save({"a": 1}, buf)
    buf.seek(0)
    with pytest.raises(TypeError, match=r"^Unpickler.__init__\(\) got an unexpected keyword "):
        minitorch.load(buf, weights_only=True, foo=1)
    buf.seek(0)
    assert minitorch.load(buf, weights_only=True, encoding="latin1") == {"a": 1}


# --- an empty storage filed by torch under one key with two types ---

# torch 2.13's data.pkl for torch.save([t.untyped_storage(), t]) with t = torch.zeros(0,
# dtype=torch.int16): key '0' as UntypedStorage, then as ShortStorage (torch refuses two types for
# one non-empty storage, by address; an empty one has none). torch.load reads it back as
# [TypedStorage(dtype=uint8) of size 0, tensor([], dtype=int16)].
_TORCH_EMPTY_TWO_TYPES = (
    b"\x80\x02]q\x00((X\x07\x00\x00\x00storageq\x01ctorch.storage\nUntypedStorage\nq\x02X\x01"
    b"\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K\x00tq\x05Qctorch._utils\n_rebuild_tensor_v2"
    b"\nq\x06((h\x01ctorch\nShortStorage\nq\x07h\x03h\x04K\x00tq\x08QK\x00K\x00\x85q\tK\x01"
    b"\x85q\n\x89ccollections\nOrderedDict\nq\x0b)Rq\x0ctq\rRq\x0ee."
)


@pytest.mark.parametrize("weights_only", [True, False])
def test_empty_storage_recorded_with_two_types_loads(weights_only):
    # before: RuntimeError "storage 0 is recorded with two different types or sizes"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", _TORCH_EMPTY_TWO_TYPES)
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/data/0", b"")
        zf.writestr("archive/version", "3\n")
    buf.seek(0)
    storage, t = minitorch.load(buf, weights_only=weights_only)
    assert storage.dtype == minitorch.uint8 and storage.size() == 0
    assert t.dtype == minitorch.int16 and t.shape == (0,)


# --- a storage used twice is pickled as torch pickles it ---

# torch 2.13's data.pkl for torch.save([t, t[1:]]) with t = torch.arange(4.0): the second
# persistent id is spelled again from memoized parts (BINGETs, MARK ... TUPLE)
_TORCH_TWO_VIEWS_PKL = (
    b"\x80\x02]q\x00(ctorch._utils\n_rebuild_tensor_v2\nq\x01((X\x07\x00\x00\x00storageq\x02"
    b"ctorch\nFloatStorage\nq\x03X\x01\x00\x00\x000q\x04X\x03\x00\x00\x00cpuq\x05K\x04tq\x06QK"
    b"\x00K\x04\x85q\x07K\x01\x85q\x08\x89ccollections\nOrderedDict\nq\t)Rq\ntq\x0bRq\x0ch\x01(("
    b"h\x02h\x03h\x04h\x05K\x04tq\rQK\x01K\x03\x85q\x0eK\x01\x85q\x0f\x89h\t)Rq\x10tq\x11Rq\x12e."
)


def test_shared_storage_pickle_is_torchs_bytes():
    # before: the persistent id tuple was memoized whole, its second use one BINGET
    t = minitorch.arange(4.0)
    buf = io.BytesIO()
    minitorch.save([t, t[1:]], buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert zf.read("archive/data.pkl") == _TORCH_TWO_VIEWS_PKL
    buf.seek(0)
    a, b = minitorch.load(buf)
    b[0] = 9.0
    assert a.tolist() == [0.0, 9.0, 2.0, 3.0]
