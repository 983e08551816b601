"""Session 31: the legacy typed storage classes without torch (NOTE [ Legacy storage classes ]
in minitorch/storage.py), torch 2.13's values and messages written as literals."""

from __future__ import annotations

import pickle

import pytest

import minitorch as mt

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # TypedStorage is deprecated


def test_constructors_make_typed_storages_that_isinstance_knows():
    s = mt.FloatStorage([1, 2.5])
    assert type(s) is mt.TypedStorage and s.dtype is mt.float32
    assert isinstance(s, mt.FloatStorage) and not isinstance(s, mt.DoubleStorage)
    assert issubclass(mt.FloatStorage, mt.TypedStorage) and mt.Storage is mt.FloatStorage
    assert repr(mt.FloatStorage) == "<class 'minitorch.FloatStorage'>"
    assert pickle.loads(pickle.dumps(mt.FloatStorage)) is mt.FloatStorage
    assert s.tolist() == [1.0, 2.5] and s.size() == 2 and s.nbytes() == 8
    assert mt.FloatStorage(3).size() == 3 and mt.FloatStorage().size() == 0
    assert mt.FloatStorage([[1, 2]]).tolist() == [1.0, 2.0]
    assert mt.IntStorage([1.7, -1.7]).tolist() == [1, -1]
    assert mt.ByteStorage([-1]).tolist() == [255]
    assert mt.FloatStorage(wrap_storage=mt.UntypedStorage(6)).size() == 1
    assert isinstance(mt.arange(3.0).storage(), mt.FloatStorage)
    assert isinstance(mt.arange(3).storage(), mt.LongStorage)
    assert repr(mt.ByteStorage(0)) == (
        " \n[torch.storage.TypedStorage(dtype=torch.uint8, device=cpu) of size 0]"
    )
    assert mt.is_storage(s) and mt.is_storage(mt.zeros(1).untyped_storage())
    assert not mt.is_storage(mt.zeros(1))


def test_constructor_errors():
    forms = (
        "<class 'torch.FloatStorage'>.__new__ received an invalid combination of arguments. "
        "Expected one of:\n * no arguments\n * (int size)\n * (Sequence data)\n"
        " * (*, UntypedStorage wrap_storage)\n"
    )
    with pytest.raises(TypeError) as e:
        mt.FloatStorage(mt.tensor(2))
    assert str(e.value) == forms + "Argument type not recognized: <class 'torch.Tensor'>"
    with pytest.raises(RuntimeError) as e:
        mt.FloatStorage(2, 3)
    assert str(e.value) == forms + "Too many positional arguments"
    with pytest.raises(TypeError) as e:
        mt.FloatStorage(wrap_storage=mt.FloatStorage(2))
    assert str(e.value) == forms + (
        "Argument 'wrap_storage' must be UntypedStorage, but got "
        "<class 'torch.storage.TypedStorage'>"
    )
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'str'$"):
        mt.FloatStorage("ab")
    with pytest.raises(RuntimeError, match="without overflow"):
        mt.ByteStorage([300])
    with pytest.raises(RuntimeError, match="negative number: 18446744073709551612$"):
        mt.FloatStorage(-1)


def test_from_buffer():
    data = b"\x01\x02\x03\x04\x05\x06"
    assert mt.ByteStorage.from_buffer(bytes([1, 2, 250])).tolist() == [1, 2, 250]
    assert mt.IntStorage.from_buffer(bytes(range(8)), "little").tolist() == [50462976, 117835012]
    assert mt.ShortStorage.from_buffer(data[:4], "big").tolist() == [258, 772]
    assert mt.ShortStorage.from_buffer(data, "little", offset=1, count=2).tolist() == [770, 1284]
    owner = bytearray(b"\x01\x02")
    s = mt.ByteStorage.from_buffer(owner)
    owner[0] = 9
    assert s.tolist() == [1, 2]  # a copy
    with pytest.raises(RuntimeError, match="missing required argument 'byte_order' \\(pos 2\\)"):
        mt.BoolStorage.from_buffer(b"\x00")
    with pytest.raises(ValueError, match="buffer size \\(6\\) must be a multiple of element size"):
        mt.ShortStorage.from_buffer(data, "little", offset=1)
    with pytest.raises(ValueError, match="buffer has only 6 elements after offset 0, but spec"):
        mt.ShortStorage.from_buffer(data, "little", count=4)
    with pytest.raises(ValueError, match="invalid byte_order 'middle'"):
        mt.ShortStorage.from_buffer(data, "middle")
    with pytest.raises(TypeError, match="^a bytes-like object is required, not 'list'$"):
        mt.ByteStorage.from_buffer([1, 2])


def test_conversions_and_legacy_tensor_constructors():
    s = mt.FloatStorage([1, 2, 3.5])
    assert s.type() == "torch.FloatStorage" and mt.BoolStorage(1).type() == "torch.BoolStorage"
    assert s.int().tolist() == [1, 2, 3] and s.long().dtype is mt.int64
    assert s.double().tolist() == [1.0, 2.0, 3.5] and s.float() is not s
    assert s.bool().tolist() == [True, True, True] and s.char().dtype is mt.int8
    pixels = mt.ByteStorage.from_buffer(bytes([1, 2, 3, 4, 5, 6]))
    img = mt.ByteTensor(pixels).view(2, 3)
    assert img.tolist() == [[1, 2, 3], [4, 5, 6]] and img.dtype is mt.uint8
    img[0, 0] = 7
    assert pixels[0] == 7  # the tensor is over the storage's memory
    assert mt.Tensor(mt.FloatStorage([1.5])).tolist() == [1.5]
    with pytest.raises(RuntimeError) as e:
        mt.FloatTensor(mt.ByteStorage(2))
    assert str(e.value) == (
        "Expected a Storage of type Float or an UntypedStorage, but got type Byte for argument "
        "1 'storage'"
    )
