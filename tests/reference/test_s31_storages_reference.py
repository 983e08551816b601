"""Session 31: the legacy typed storage classes (torch.FloatStorage, ByteStorage, ...) compared
with torch: constructors (no argument, a size, a sequence, wrap_storage=) and their argument
errors, from_buffer (byte orders, count, offset and their errors), isinstance tests against
tensors' storages, conversions (.double(), .long(), ... and .type()), reprs, is_storage, and
the legacy tensor constructors over a storage (torch.ByteTensor(storage)), as old image code
uses them. Storage memory made by a size is uninitialised in torch: only its size is compared.
See NOTE [ Legacy storage classes ] in minitorch/storage.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")

_B = b"\x01\x02\x03\x04\x05\x06"


def p_constructors(lib, rec):
    F = lib.FloatStorage
    rec("size", F(3).size())
    rec("seq", F([1, 2.5]).tolist())
    rec("repr", repr(F([1, 2.5])))
    rec("repr_empty", repr(lib.ByteStorage(0)))
    rec("repr_untyped_empty", repr(lib.tensor([]).untyped_storage()))
    s = F([1, 2.5])
    rec("attrs", [s.size(), len(s), s[1], str(s.dtype), s.element_size(), s.nbytes()])
    rec("class", [type(F(3)).__name__, isinstance(F(3), F), isinstance(F(3), lib.TypedStorage)])
    rec("subclass", issubclass(F, lib.TypedStorage))
    rec("other_dtype", isinstance(lib.DoubleStorage(1), F))
    rec("class_repr", repr(F))
    rec("names", [F.__name__, F.__qualname__, str(F.dtype)])  # (module: torch / minitorch)
    rec("Storage", lib.Storage is F)
    rec("nested", F([[1, 2]]).tolist())
    rec("tuple_range", [F((1, 2)).tolist(), F(range(3)).tolist()])
    rec("int_trunc", lib.IntStorage([1.7, -1.7]).tolist())
    rec("bools", [lib.BoolStorage([2, 0]).tolist(), lib.ByteStorage(True).size()])
    rec("half", lib.HalfStorage([1.1]).tolist())
    rec("wrap", F(wrap_storage=lib.UntypedStorage(8)).size())
    rec("wrap_partial", F(wrap_storage=lib.UntypedStorage(6)).size())
    rec("np_int_size", F(np.int64(2)).size())
    rec("zero_d_in_list", F([lib.tensor(1.5)]).tolist())
    rec("wrap_minus_one", lib.ByteStorage([-1]).tolist())
    for name, fn in {
        "overflow_u8": lambda: lib.ByteStorage([300]),
        "overflow_i32": lambda: lib.IntStorage([2**40]),
        "overflow_i64": lambda: lib.LongStorage([2**63]),
        "float_size": lambda: lib.ByteStorage(2.5),
        "untyped_pos": lambda: F(lib.UntypedStorage(8)),
        "two_args": lambda: F(2, 3),
        "wrap_typed": lambda: F(wrap_storage=F(2)),
        "wrap_and_pos": lambda: F(2, wrap_storage=lib.UntypedStorage(8)),
        "keyword": lambda: F(dtype=lib.float32),
        "str_item": lambda: F([1, "a"]),
        "tensor": lambda: F(lib.tensor(2)),
        "negative": lambda: F(-1),
        "negative_double": lambda: lib.DoubleStorage(-2),
        "none": lambda: F(None),
        "dict": lambda: F({1: 2}),
        "typed": lambda: F(F([1.0])),
        "ndarray": lambda: F(np.array([1.0, 2.0])),
        "str": lambda: F("ab"),
    }.items():
        rec.err(name, fn)


def p_from_buffer(lib, rec):
    rec("bytes", lib.ByteStorage.from_buffer(bytes([1, 2, 3, 250])).tolist())
    rec("little", lib.IntStorage.from_buffer(bytes(range(8)), "little").tolist())
    rec("big", lib.IntStorage.from_buffer(bytes(range(8)), "big").tolist())
    rec("native", lib.DoubleStorage.from_buffer(np.arange(2.0).tobytes(), "native").tolist())
    rec("float", lib.FloatStorage.from_buffer(b"\x00\x00\x80\x3f", "little").tolist())
    S = lib.ShortStorage
    rec("count0", S.from_buffer(_B, "little", count=0).tolist())
    rec("offset_count", S.from_buffer(_B, "little", offset=1, count=2).tolist())
    rec("u8_count_all", lib.ByteStorage.from_buffer(_B, count=-2).tolist())
    rec("bool", lib.BoolStorage.from_buffer(b"\x00\x01\x02", "little").tolist())
    rec("u8_big", lib.ByteStorage.from_buffer(_B, "big").tolist())
    rec("memoryview", lib.ByteStorage.from_buffer(memoryview(_B)[1:]).tolist())
    rec("ndarray", lib.ByteStorage.from_buffer(np.arange(3, dtype="uint8")).tolist())
    rec("empty", lib.FloatStorage.from_buffer(b"", "little").tolist())
    rec("i8", lib.CharStorage.from_buffer(b"\xff").tolist())
    owner = bytearray(b"\x01\x02")
    copy = lib.ByteStorage.from_buffer(owner)
    owner[0] = 9
    rec("copied", copy.tolist())
    for name, fn in {
        "no_order": lambda: lib.IntStorage.from_buffer(bytes(range(8))),
        "no_order_bool": lambda: lib.BoolStorage.from_buffer(b"\x00"),
        "offset_past": lambda: S.from_buffer(_B, "little", offset=7),
        "offset_negative": lambda: S.from_buffer(_B, "little", offset=-1),
        "count_past": lambda: S.from_buffer(_B, "little", count=4),
        "ragged": lambda: S.from_buffer(_B, "little", offset=1),
        "ragged2": lambda: S.from_buffer(b"\x01\x02\x03", "little"),
        "bad_order": lambda: S.from_buffer(_B, "middle"),
        "list": lambda: lib.ByteStorage.from_buffer([1, 2]),
    }.items():
        rec.err(name, fn)


def p_conversions_and_tensors(lib, rec):
    s = lib.FloatStorage([1, 2, 3.5])
    rec("type", [s.type(), lib.ByteStorage(1).type(), lib.BoolStorage(1).type()])
    rec("type2", [lib.BFloat16Storage(1).type(), lib.HalfStorage(1).type()])
    rec("int", s.int().tolist())
    rec("bool", s.bool().tolist())
    rec("double", s.double().tolist())
    rec("dtypes", [str(x.dtype) for x in (s.char(), s.byte(), s.short(), s.half(), s.long())])
    rec("dtypes2", [str(s.bfloat16().dtype), s.float() is s])
    rec("fill_long", lib.LongStorage(2).fill_(3).long().tolist())
    rec("misc", [s.is_pinned(), s.clone().tolist(), s.is_shared(), s.is_cuda])
    rec("copy_", lib.FloatStorage([1, 2]).copy_(lib.FloatStorage([3, 4])).tolist())
    rec("untyped", lib.FloatStorage([1, 2]).untyped().tolist())
    t = lib.arange(4.0)
    st = t.storage()
    rec("tensor_storage", [isinstance(st, lib.FloatStorage), type(st).__name__, st.type()])
    rec(
        "long_storage",
        [isinstance(lib.arange(4).storage(), k) for k in (lib.LongStorage, lib.IntStorage)],
    )
    rec("untyped_is_byte", isinstance(lib.UntypedStorage(2), lib.ByteStorage))
    rec(
        "is_storage", [lib.is_storage(x) for x in (t.untyped_storage(), st, lib.FloatStorage(1), t)]
    )
    rec("set_", lib.empty(0).set_(lib.FloatStorage([1.0, 2, 3])))
    rec("FloatTensor", lib.FloatTensor(lib.FloatStorage([1, 2])))
    rec("LongTensor", lib.LongTensor(lib.LongStorage([3, 4])))
    rec("Tensor", lib.Tensor(lib.FloatStorage([1.5])))
    rec("ByteTensor_untyped", lib.ByteTensor(lib.ByteStorage([1, 2]).untyped()))
    pixels = lib.ByteStorage.from_buffer(bytes([1, 2, 3, 4, 5, 6]))
    img = lib.ByteTensor(pixels).view(2, 3)
    rec("image", img)
    rec("shares", lib.ByteTensor(pixels).data_ptr() == pixels.data_ptr())
    img[0, 0] = 7
    rec("writes_through", pixels.tolist())
    rec.err("Tensor_of_bytes", lambda: lib.Tensor(lib.ByteStorage(2)))
    rec.err("FloatTensor_of_bytes", lambda: lib.FloatTensor(lib.ByteStorage(2)))
    rec.err("DoubleTensor_of_floats", lambda: lib.DoubleTensor(lib.FloatStorage(2)))


PROGRAMS = ["constructors", "from_buffer", "conversions_and_tensors"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name):
    import minitorch

    prog = globals()["p_" + name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation warning
        want = run_program(prog, torch, rec=Rec())
        got = run_program(prog, minitorch, rec=Rec())
    assert_records_match(want, got, 0.0, rename=True)
