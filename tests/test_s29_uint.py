"""Session 29 (helper uint): torch's shell unsigned dtypes uint16, uint32 and uint64 — creation,
conversion, promotion errors, iinfo, reprs, checkpoints and random_ — with torch 2.13's values
and messages written as literals (no torch needed)."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

import minitorch as torch
from minitorch import _dtype

PROMOTION = "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "


def test_dtypes_and_reprs():
    assert [repr(d) for d in (torch.uint16, torch.uint32, torch.uint64)] == [
        "torch.uint16", "torch.uint32", "torch.uint64"
    ]  # fmt: skip
    assert [d.itemsize for d in _dtype.SHELL_UINTS] == [2, 4, 8]
    assert not any(d.is_signed or d.is_floating_point for d in _dtype.SHELL_UINTS)
    assert pickle.loads(pickle.dumps(torch.uint32)) is torch.uint32
    assert repr(torch.tensor([1, 2, 65535], dtype=torch.uint16)) == (
        "tensor([    1,     2, 65535], dtype=torch.uint16)"
    )
    assert repr(torch.tensor([1, 2, 2**64 - 1], dtype=torch.uint64)) == (
        "tensor([                   1,                    2, 18446744073709551615],\n"
        "       dtype=torch.uint64)"
    )
    assert repr(torch.tensor(5, dtype=torch.uint32)) == "tensor(5, dtype=torch.uint32)"
    assert torch.tensor([1], dtype=torch.uint16).type() == "torch.UInt16Tensor"


def test_iinfo():
    assert repr(torch.iinfo(torch.uint32)) == "iinfo(min=0, max=4.29497e+09, dtype=uint32)"
    info = torch.iinfo(torch.uint64)
    assert (info.min, info.max, info.bits, info.dtype) == (0, 2**64 - 1, 64, "uint64")
    assert torch.iinfo(torch.uint16).max == 65535
    with pytest.raises(TypeError, match="requires a floating point input type"):
        torch.finfo(torch.uint16)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_numpy_arrays_become_shell_tensors(name):
    arr = np.array([1, 2, 3], name)
    for make in (torch.from_numpy, torch.as_tensor, torch.tensor, torch.asarray):
        t = make(arr)
        assert t.dtype is getattr(torch, name)
        np.testing.assert_array_equal(t.numpy(), arr, err_msg=make.__name__)
        assert t.numpy().dtype == arr.dtype
    t = torch.from_numpy(arr)
    arr[0] = 9
    assert t[0].item() == 9  # memory shared


def test_from_numpy_message_lists_the_new_types():
    with pytest.raises(TypeError) as info:
        torch.from_numpy(np.zeros(2, np.longdouble))
    assert str(info.value) == (
        "can't convert np.ndarray of type numpy.longdouble. The only supported types are: "
        "float64, float32, float16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
        "and bool."
    )


def test_tensor_from_python_numbers():
    assert torch.tensor([-1], dtype=torch.uint16).tolist() == [65535]
    assert torch.tensor([-70000], dtype=torch.uint32).tolist() == [4294897296]
    assert torch.tensor([1.5, 2.7], dtype=torch.uint32).tolist() == [1, 2]
    assert torch.tensor([2**64 - 1, True], dtype=torch.uint64).tolist() == [2**64 - 1, 1]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint16 without"):
        torch.tensor([70000], dtype=torch.uint16)
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        torch.tensor([-1], dtype=torch.uint64)
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        torch.tensor([2**64], dtype=torch.uint64)
    with pytest.raises(TypeError, match="^an integer is required$"):
        torch.tensor([1, 2.5], dtype=torch.uint64)
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        torch.tensor([2**63], dtype=torch.uint32)


def test_promote_types():
    assert torch.promote_types(torch.uint16, torch.uint16) is torch.uint16
    assert torch.promote_types(torch.uint64, torch.float16) is torch.float16
    assert torch.promote_types(torch.bfloat16, torch.uint32) is torch.bfloat16
    for a, b, names in [
        (torch.uint16, torch.uint8, "UInt16 and Byte"),
        (torch.uint8, torch.uint16, "Byte and UInt16"),
        (torch.int64, torch.uint32, "Long and UInt32"),
        (torch.uint64, torch.bool, "UInt64 and Bool"),
        (torch.uint32, torch.uint16, "UInt32 and UInt16"),
    ]:
        with pytest.raises(RuntimeError) as info:
            torch.promote_types(a, b)
        assert str(info.value) == PROMOTION + names


def test_result_type_and_mixed_ops():
    x = torch.tensor([1, 2, 3], dtype=torch.uint16)
    assert torch.result_type(x, 1) is torch.uint16
    assert torch.result_type(x, True) is torch.uint16
    assert torch.result_type(x, 1.0) is torch.float32
    assert torch.result_type(x, torch.tensor(1)) is torch.uint16
    assert torch.result_type(torch.tensor(1, dtype=torch.uint16), torch.tensor([1])) is torch.int64
    with pytest.raises(RuntimeError) as info:
        x * torch.tensor([1, 2, 3], dtype=torch.uint8)
    assert str(info.value) == PROMOTION + "UInt16 and Byte"
    with pytest.raises(RuntimeError) as info:
        torch.eq(x, torch.tensor([1, 2, 3]))
    assert str(info.value) == PROMOTION + "UInt16 and Long"
    with pytest.raises(RuntimeError) as info:
        torch.cat([x, x.to(torch.uint32)])
    assert str(info.value) == PROMOTION + "UInt16 and UInt32"
    assert (x * 2).tolist() == [2, 4, 6] and (x * 2).dtype is torch.uint16
    assert (x * 2.5).dtype is torch.float32
    assert (torch.tensor([1, 2]) * torch.tensor(3, dtype=torch.uint16)).tolist() == [3, 6]
    assert torch.can_cast(torch.uint16, torch.int32)
    assert not torch.can_cast(torch.uint16, torch.bool)


def test_conversions():
    x = torch.tensor([0, 1, 65535], dtype=torch.uint16)
    assert x.view(torch.int16).tolist() == [0, 1, -1]
    assert x.to(torch.uint64).tolist() == [0, 1, 65535]
    assert torch.tensor([-1, 70000]).to(torch.uint16).tolist() == [65535, 4464]
    assert torch.tensor([1.0, -2.0]).view(torch.uint32).tolist() == [1065353216, 3221225472]
    assert torch.tensor([70000, 4294967295], dtype=torch.uint32).to(torch.int32).tolist() == [
        70000, -1
    ]  # fmt: skip


def test_save_load_writes_torchs_layout():
    sd = {"a": torch.tensor([1, 2, 65535], dtype=torch.uint16)}
    sd["v"] = sd["a"][1:]
    buf = io.BytesIO()
    torch.save(sd, buf)
    pkl = next(
        zipfile.ZipFile(io.BytesIO(buf.getvalue())).read(n)
        for n in zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()
        if n.endswith("data.pkl")
    )
    assert b"_rebuild_tensor_v3" in pkl and b"torch.storage\nUntypedStorage" in pkl
    buf.seek(0)
    got = torch.load(buf)
    assert got["a"].dtype is torch.uint16 and got["a"].tolist() == [1, 2, 65535]
    assert got["v"].tolist() == [2, 65535] and got["v"].storage_offset() == 1


def test_random_():
    with pytest.raises(NotImplementedError) as info:
        torch.empty(3, dtype=torch.uint32).random_()
    assert str(info.value) == "\"random_kernel_cpu\" not implemented for 'UInt32'"
    with pytest.raises(RuntimeError, match="^to - 1 is out of bounds for long unsigned int$"):
        torch.empty(3, dtype=torch.uint64).random_(2, None)
    with pytest.raises(RuntimeError, match="^from is out of bounds for short unsigned int$"):
        torch.empty(3, dtype=torch.uint16).random_(-1, 5)
    torch.manual_seed(0)
    assert torch.empty(3, dtype=torch.uint16).random_(2, None).tolist() == [9134, 55739, 5287]
    with pytest.raises(NotImplementedError) as info:
        torch.rand(3, dtype=torch.uint16)
    assert str(info.value) == "\"check_uniform_bounds\" not implemented for 'UInt16'"
