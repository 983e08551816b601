"""Session 31 (helper inr): torch-free regression tests of the library fixes made while comparing
the implicit-neural-representation programs of tests/reference/test_s31_inr_reference.py with
torch 2.13. The expected texts are torch's, written as literals:

- torch's argument checks ("... but got X instead (while checking arguments for op)", "but type
  X does not equal Y", map_/map2_, the expand of an assigned value) name a dtype without a legacy
  tensor class (bool, bfloat16, uint16/32/64) by its backend type, CPUUInt32Type;
- embedding_bag's per_sample_weights dtype check reads as torch's (no op prefix, the
  "while checking arguments" suffix), and its 1-D indices and offsets are cast to their
  promoted dtype before the index check (bool or int16 indices with int64 offsets work);
- arange, range, linspace, logspace, randperm and bincount have no uint16/32/64 kernels in torch
  (NotImplementedError), so a 2-D embedding_bag of such indices fails in its offsets' arange."""

from __future__ import annotations

import pytest

import minitorch as mt

F = mt.nn.functional

_EMB = (
    "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
    "Int; but got {} instead (while checking arguments for {})"
)


@pytest.mark.parametrize(
    "dtype, name",
    [
        ("uint16", "CPUUInt16Type"),
        ("uint32", "CPUUInt32Type"),
        ("uint64", "CPUUInt64Type"),
        ("bool", "CPUBoolType"),
        ("bfloat16", "CPUBFloat16Type"),
        ("int16", "torch.ShortTensor"),
        ("uint8", "torch.ByteTensor"),
        ("float16", "torch.HalfTensor"),
        ("float32", "torch.FloatTensor"),
    ],
)
def test_embedding_index_dtype_names_the_backend_type(dtype, name):
    ids = mt.tensor([1, 3]).to(getattr(mt, dtype))
    with pytest.raises(RuntimeError) as e:
        F.embedding(ids, mt.zeros(4, 2))
    assert str(e.value) == _EMB.format(name, "embedding")
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(ids, mt.zeros(4, 2), mt.tensor([0]).to(ids.dtype))
    assert str(e.value) == _EMB.format(name, "embedding_bag")


def test_embedding_bag_weight_and_per_sample_weight_types():
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(mt.tensor([[1]]), mt.zeros(4, 2, dtype=mt.uint16))
    assert str(e.value) == (
        "Expected tensor for argument #1 'weight' to have one of the following scalar types: "
        "Half, BFloat16, Float, Double; but got CPUUInt16Type instead (while checking arguments "
        "for embedding_bag)"
    )
    cases = [
        (mt.bfloat16, mt.float32, "CPUBFloat16Type", "torch.FloatTensor"),
        (mt.float32, mt.float64, "torch.FloatTensor", "torch.DoubleTensor"),
        (mt.float64, mt.float16, "torch.DoubleTensor", "torch.HalfTensor"),
    ]
    for wdt, pdt, wname, pname in cases:
        with pytest.raises(RuntimeError) as e:
            F.embedding_bag(
                mt.tensor([[1, 2]]), mt.zeros(4, 2, dtype=wdt), mode="sum",
                per_sample_weights=mt.ones(1, 2, dtype=pdt),
            )  # fmt: skip
        assert str(e.value) == (
            "Expected tensor for argument #1 'weight' to have the same type as tensor for "
            f"argument #1 'per_sample_weights'; but type {wname} does not equal {pname} (while "
            "checking arguments for embedding_bag)"
        )


@pytest.mark.parametrize("dtype, name", [("uint32", "UInt32"), ("uint16", "UInt16"),
                                         ("uint64", "UInt64"), ("bool", "Bool")])  # fmt: skip
def test_embedding_bag_2d_unsigned_indices_fail_in_the_offsets_arange(dtype, name):
    ids = mt.tensor([[1, 3]]).to(getattr(mt, dtype))
    with pytest.raises(NotImplementedError, match=f"^\"arange_cpu\" not implemented for '{name}'$"):
        F.embedding_bag(ids, mt.zeros(4, 2))


def test_median_out_types():
    x = mt.zeros(3)
    with pytest.raises(RuntimeError) as e:
        mt.median(x, 0, out=(mt.zeros(1), mt.zeros(1, dtype=mt.uint32)))
    assert str(e.value) == (
        "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
        "CPUUInt32Type instead (while checking arguments for median)"
    )
    with pytest.raises(RuntimeError, match="but got CPUBoolType instead"):
        mt.median(x, 0, out=(mt.zeros(1), mt.zeros(1, dtype=mt.bool)))
    with pytest.raises(RuntimeError, match="but got torch.IntTensor instead"):
        mt.median(x, 0, out=(mt.zeros(1), mt.zeros(1, dtype=mt.int32)))
    with pytest.raises(RuntimeError) as e:
        mt.median(x, 0, out=(mt.zeros(1, dtype=mt.bfloat16), mt.zeros(1, dtype=mt.int64)))
    assert str(e.value) == (
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
        "but type CPUBFloat16Type does not equal torch.FloatTensor (while checking arguments for "
        "median)"
    )


def test_map_and_map2_type_messages():
    f = mt.zeros(3)
    with pytest.raises(TypeError) as e:
        f.map_(f.to(mt.bfloat16), lambda a, b: a)
    assert str(e.value) == "map_: expected torch.FloatTensor for 'other' (got CPUBFloat16Type)"
    with pytest.raises(TypeError) as e:
        mt.zeros(3, dtype=mt.bfloat16).map_(f, lambda a, b: a)
    assert str(e.value) == "map_: expected CPUBFloat16Type for 'other' (got torch.FloatTensor)"
    with pytest.raises(TypeError) as e:
        f.map2_(f.double(), f.bool(), lambda a, b, c: a)
    assert str(e.value) == (
        "map2_: expected torch.FloatTensor for argument 'x' (got torch.DoubleTensor)"
    )
    with pytest.raises(TypeError) as e:
        f.map2_(f, f.bool(), lambda a, b, c: a)
    assert str(e.value) == "map2_: expected torch.FloatTensor for argument 'y' (got CPUBoolType)"


def test_setitem_expand_message_names_the_backend_type():
    t = mt.zeros(3, dtype=mt.bool)
    with pytest.raises(RuntimeError) as e:
        t[:] = mt.zeros(2, 2, dtype=mt.uint16)
    assert str(e.value) == (
        "expand(CPUUInt16Type{[2, 2]}, size=[3]): the number of sizes provided (1) must be "
        "greater or equal to the number of dimensions in the tensor (2)"
    )
    with pytest.raises(RuntimeError, match=r"^expand\(torch.FloatTensor\{\[2, 2\]\}, size"):
        t[:] = mt.zeros(2, 2)


@pytest.mark.parametrize("dtype, name", [("uint16", "UInt16"), ("uint32", "UInt32"),
                                         ("uint64", "UInt64")])  # fmt: skip
def test_ranges_and_counts_have_no_wide_unsigned_kernels(dtype, name):
    d = getattr(mt, dtype)
    calls = {
        "arange_cpu": lambda: mt.arange(8, dtype=d),
        "range_cpu": lambda: mt.range(0, 8, dtype=d),
        "linspace_cpu": lambda: mt.linspace(0, 8, 3, dtype=d),
        "logspace_cpu": lambda: mt.logspace(0, 2, 3, dtype=d),
        "randperm": lambda: mt.randperm(4, dtype=d),
        "bincount_cpu": lambda: mt.bincount(mt.tensor([1, 2]).to(d)),
    }
    for kernel, call in calls.items():
        with pytest.raises(NotImplementedError) as e:
            call()
        assert str(e.value) == f"\"{kernel}\" not implemented for '{name}'", kernel
    # torch fills zero or one element of any dtype
    assert mt.linspace(0, 8, 1, dtype=d).tolist() == [0]
    assert mt.logspace(0, 2, 1, dtype=d).tolist() == [1]
    assert mt.linspace(0, 8, 0, dtype=d).dtype is d


def test_uint8_and_signed_counts_still_work():
    assert mt.bincount(mt.tensor([1, 3, 3], dtype=mt.uint8)).tolist() == [0, 1, 0, 2]
    assert mt.bincount(mt.tensor([0, 2], dtype=mt.int8), minlength=4).tolist() == [1, 0, 1, 0]
    assert mt.arange(3, dtype=mt.uint8).tolist() == [0, 1, 2]
    with pytest.raises(NotImplementedError, match="^\"bincount_cpu\" not implemented for 'Bool'$"):
        mt.bincount(mt.tensor([True]))


def test_embedding_bag_promotes_indices_and_offsets():
    # torch casts both to their promoted type before its dtype checks
    w = mt.arange(8.0).view(4, 2)
    out = F.embedding_bag(mt.tensor([1, 0]).bool(), w, mt.tensor([0]))
    assert out.tolist() == [[1.0, 2.0]]
    out = F.embedding_bag(mt.tensor([1, 3]).to(mt.int16), w, mt.tensor([0, 1]), mode="max")
    assert out.tolist() == [[2.0, 3.0], [6.0, 7.0]]
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(mt.tensor([1, 0]).to(mt.int16), w, mt.tensor([0]).to(mt.int8))
    assert str(e.value) == _EMB.format("torch.ShortTensor", "embedding_bag")
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(mt.tensor([1, 0]), w, mt.tensor([0]).to(mt.uint32))
    assert str(e.value) == (
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
        "UInt32 and Long"
    )
    with pytest.raises(RuntimeError) as e:
        F.embedding_bag(mt.tensor([1, 0]), w, mt.tensor([0.0], dtype=mt.float64))
    assert str(e.value) == _EMB.format("torch.DoubleTensor", "embedding_bag")
