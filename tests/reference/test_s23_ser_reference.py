"""save/load interchange with torch (session 23): a seeded slice of the differential fuzzer
(random nested objects of views sharing storages, saved by one library and loaded by the other),
streams holding several checkpoints, and weights_only refusals."""

from __future__ import annotations

import collections
import fractions
import io
import pickle
import random

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32"]
DTYPES.append("float64")


def _tensor(lib, arr, dt):
    if dt == "bfloat16":
        return lib.tensor(arr.astype(np.float32)).to(lib.bfloat16)
    return lib.tensor(arr.astype(dt))


def _spec(seed):
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    bases = []
    for _ in range(r.randint(1, 3)):
        dt = r.choice(DTYPES)
        shape = tuple(r.randint(1, 4) for _ in range(r.randint(1, 3)))
        data = (rng.standard_normal(shape) * 50).astype(np.float64)
        bases.append((dt, shape, data, dt in ("float32", "float64") and r.random() < 0.3))
    items = []
    for i in range(r.randint(1, 6)):
        b = r.randrange(len(bases))
        shape = bases[b][1]
        d = r.randrange(len(shape))
        kind = r.choice(["whole", "slice", "t", "select", "param"])
        items.append((f"k{i}", b, kind, d, r.randrange(shape[d]), r.random() < 0.5))
    return bases, items, r.choice([2, 3]), r.random() < 0.3


def _build(lib, bases, items):
    made = []
    for dt, shape, data, rg in bases:
        t = _tensor(lib, data, dt).reshape(shape)
        made.append(t.requires_grad_(True) if rg else t)
    out = collections.OrderedDict()
    for name, b, kind, d, i, flag in items:
        t = made[b]
        if kind == "slice":
            t = t.narrow(d, i, t.shape[d] - i)
        elif kind == "t":
            t = t.transpose(0, d)
        elif kind == "select":
            t = t.select(d, i)
        elif kind == "param":
            t = lib.nn.Parameter(t.detach(), requires_grad=flag and t.is_floating_point())
        out[name] = t
    return out


def _describe(lib, obj):
    ptrs = {}
    rows = []
    for name, t in obj.items():
        st = t.untyped_storage()
        sid = ptrs.setdefault(st.data_ptr(), len(ptrs))
        vals = t.detach().to(lib.float64).reshape(-1).tolist()
        rows.append(
            (
                name,
                type(t).__name__,
                str(t.dtype),
                tuple(t.shape),
                tuple(s for n, s in zip(t.shape, t.stride(), strict=True) if n != 1),
                t.storage_offset(),
                t.requires_grad,
                sid,
                st.nbytes(),
                [repr(v) for v in vals],
            )
        )
    return rows


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("direction", ["torch->minitorch", "minitorch->torch"])
def test_fuzzed_interchange(seed, direction):
    bases, items, protocol, legacy = _spec(seed)
    src, dst = (torch, minitorch) if direction == "torch->minitorch" else (minitorch, torch)
    buf = io.BytesIO()
    obj = _build(src, bases, items)
    src.save(obj, buf, pickle_protocol=protocol, _use_new_zipfile_serialization=not legacy)
    buf.seek(0)
    loaded = dst.load(buf, weights_only=protocol == 2)
    buf.seek(0)
    same = src.load(buf, weights_only=protocol == 2)
    assert list(loaded) == list(obj)
    assert _describe(dst, loaded) == _describe(src, same)


@pytest.mark.parametrize("legacy", [False, True])
def test_torch_stream_of_checkpoints_read_one_by_one(legacy):
    buf = io.BytesIO()
    kw = {"_use_new_zipfile_serialization": not legacy}
    torch.save({"first": torch.arange(3)}, buf, **kw)
    end = buf.tell()
    torch.save({"second": torch.ones(2)}, buf, **kw)
    torch.save({"third": 3}, buf, **kw)
    buf.seek(0)
    assert minitorch.load(buf)["first"].tolist() == [0, 1, 2]
    assert buf.tell() == end
    assert minitorch.load(buf)["second"].tolist() == [1.0, 1.0]
    assert minitorch.load(buf) == {"third": 3}
    if legacy:  # torch reads a legacy stream one by one too
        buf.seek(0)
        assert list(torch.load(buf)) == ["first"]
        assert buf.tell() == end


def test_minitorch_stream_of_checkpoints_read_by_torch():
    buf = io.BytesIO()
    minitorch.save({"first": 1}, buf)
    end = buf.tell()
    minitorch.save({"second": minitorch.arange(4)}, buf)
    buf.seek(end)
    assert torch.load(buf)["second"].tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("value", [frozenset([1]), fractions.Fraction(1, 3)])
def test_weights_only_refusal_message(value):
    msgs = []
    for lib in (torch, minitorch):
        buf = io.BytesIO()
        lib.save({"v": value, "t": lib.ones(1)}, buf)
        buf.seek(0)
        with pytest.raises(pickle.UnpicklingError) as info:
            lib.load(buf, weights_only=True)
        msgs.append(str(info.value).replace("minitorch", "torch"))
    assert msgs[0] == msgs[1]


def test_unsafe_globals_of_torch_protocol_4_file():
    obj = {
        "a": collections.Counter("ab"),
        "b": collections.deque([1]),
        "c": fractions.Fraction(1, 3),
        "d": torch.nn.Parameter(torch.ones(2)),
        "e": torch.nn.Parameter(torch.zeros(2)),
    }
    expected = None
    for protocol in (2, 4, 5):
        buf = io.BytesIO()
        torch.save(obj, buf, pickle_protocol=protocol)
        buf.seek(0)
        got = sorted(minitorch.serialization.get_unsafe_globals_in_checkpoint(buf))
        if protocol == 2:  # torch's weights-only reader stops at protocol 4's opcodes
            buf.seek(0)
            expected = sorted(torch.serialization.get_unsafe_globals_in_checkpoint(buf))
        assert got == expected


@pytest.mark.parametrize("protocol", [1, 2])
def test_torch_legacy_low_protocol_file(protocol):
    buf = io.BytesIO()
    kw = {"pickle_protocol": protocol, "_use_new_zipfile_serialization": False}
    torch.save({"a": torch.arange(3.0)}, buf, **kw)
    buf.seek(0)
    assert minitorch.load(buf, weights_only=False)["a"].tolist() == [0.0, 1.0, 2.0]


def test_torch_empty_storage_saved_with_two_types():
    t = torch.zeros(1, 0, dtype=torch.int16)
    buf = io.BytesIO()
    torch.save([t.untyped_storage(), t, t.t()], buf)
    buf.seek(0)
    storage, a, b = minitorch.load(buf)
    assert storage.size() == 0 and a.dtype == minitorch.int16 and tuple(b.shape) == (0, 1)
