"""Session 38 (helper factories): torch-free regression tests of the library fixes the creation
programs of tests/reference/test_s38_factories_reference.py found: frombuffer's requires_grad
check and its missing-dtype wording; empty/zeros/ones' preserve_format message and empty(out=,
memory_format=); asarray of buffer-protocol objects (frombuffer's reading); tensor/as_tensor/
asarray/scalar_tensor without data; the storage-size overflow of zeros/ones/empty/full;
empty_strided's rank message; rand()/randn() with no argument; normal_ with std 0 giving +0.
torch's messages are written here as literals."""

from __future__ import annotations

import array

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_frombuffer_refuses_requires_grad_of_an_integer_dtype():
    for dt in (mt.int32, mt.uint8, mt.bool):
        msg = _message(
            RuntimeError, lambda dt=dt: mt.frombuffer(bytearray(8), dtype=dt, requires_grad=True)
        )
        assert msg == "Only Tensors of floating point and complex dtype can require gradients"
    t = mt.frombuffer(bytearray(8), dtype=mt.float32, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.shape == (2,)
    assert not mt.frombuffer(bytearray(8), dtype=mt.int32).requires_grad


def test_frombuffer_without_dtype_names_it_as_torch_parser():
    msg = _message(TypeError, lambda: mt.frombuffer(bytearray(4), count=1))
    assert msg == 'frombuffer() missing 1 required positional arguments: "dtype"'


def test_preserve_format_of_a_new_tensor():
    for fn in (mt.empty, mt.zeros, mt.ones):
        msg = _message(RuntimeError, lambda fn=fn: fn(2, 3, memory_format=mt.preserve_format))
        assert msg == "unsupported memory format Preserve"


def test_empty_out_refuses_a_memory_format():
    incompatible = "'memory_format' argument is incompatible with 'out' tensor argument"
    for fmt in (mt.contiguous_format, mt.channels_last):
        out = mt.empty(0)
        msg = _message(
            RuntimeError, lambda fmt=fmt, out=out: mt.empty(2, 3, 4, 5, out=out, memory_format=fmt)
        )
        assert msg == incompatible
        assert out.shape == (0,)
    # the dtype check comes first
    msg = _message(
        RuntimeError,
        lambda: mt.empty(
            2, out=mt.empty(0, dtype=mt.int32), dtype=mt.float32, memory_format=mt.channels_last
        ),
    )
    assert msg == "dtype Float does not match dtype of out parameter (Int)"
    out = mt.empty(0)
    assert mt.empty(2, out=out, memory_format=None) is out and out.shape == (2,)


@pytest.mark.parametrize(
    "call, sizes",
    [
        (lambda: mt.zeros(2**31, 2**31), [2**31, 2**31]),
        (lambda: mt.ones(2**62, 2), [2**62, 2]),
        (lambda: mt.empty(2**60, 2), [2**60, 2]),
        (lambda: mt.full((2**62, 2**62), 1.5), [2**62, 2**62]),
        (lambda: mt.ones(1).new_zeros(2**40, 2**40), [2**40, 2**40]),
    ],
)
def test_storage_size_overflow(call, sizes):
    msg = _message(RuntimeError, call)
    assert msg == f"Storage size calculation overflowed with sizes={sizes}"


def test_empty_strided_rank_mismatch_message():
    msg = _message(RuntimeError, lambda: mt.empty_strided((2, 3), (3,)))
    assert msg == "dimensionality of sizes (2) must match dimensionality of strides (1)"


def test_rand_and_randn_without_any_argument():
    for op in ("rand", "randn"):
        msg = _message(TypeError, getattr(mt, op))
        assert msg == (
            f"{op}() received an invalid combination of arguments - got (), but expected one "
            "of:\n"
            " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, "
            "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False)\n"
            " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, "
            "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
            "bool requires_grad = False)\n"
        )
        # one keyword and no size: torch names the missing size
        msg = _message(TypeError, lambda op=op: getattr(mt, op)(dtype=mt.float64))
        assert msg == f'{op}() missing 1 required positional arguments: "size"'
    assert mt.randn(2).shape == (2,) and mt.rand(size=(3,)).shape == (3,)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64, mt.float16])
@pytest.mark.parametrize("n", [3, 20])
def test_normal_with_std_zero_gives_positive_zeros(dtype, n):
    g = mt.Generator().manual_seed(8)
    for t in (
        mt.empty(n, dtype=dtype).normal_(0, 0, generator=g),
        mt.normal(0.0, 0.0, (n,), generator=g, dtype=dtype),
    ):
        values = t.float().numpy()
        np.testing.assert_array_equal(values, np.zeros(n, np.float32))
        assert not np.signbit(values).any(), values
    # a non-zero std keeps its draws' signs
    z = mt.empty(n, dtype=dtype).normal_(0, 1, generator=mt.Generator().manual_seed(8))
    assert np.signbit(z.float().numpy()).any()


def test_asarray_reads_a_buffer_as_frombuffer():
    b = bytearray(np.array([1.0, 2.5], np.float32).tobytes())
    t = mt.asarray(b)  # the default float dtype, sharing the bytes
    assert t.dtype is mt.float32 and t.tolist() == [1.0, 2.5]
    t[0] = 4.0
    assert np.frombuffer(bytes(b), np.float32).tolist() == [4.0, 2.5]
    c = mt.asarray(b, copy=True)
    c[1] = 0.0
    assert np.frombuffer(bytes(b), np.float32).tolist() == [4.0, 2.5]
    assert mt.asarray(bytearray(b"ab"), dtype=mt.uint8).tolist() == [97, 98]
    assert mt.asarray(array.array("d", [1.0, 2.0])).shape == (4,)  # bytes, not items
    assert mt.asarray(memoryview(bytearray(8)), dtype=mt.int32).tolist() == [0, 0]
    assert mt.asarray(bytearray(8), requires_grad=True).requires_grad
    msg = _message(ValueError, lambda: mt.asarray(bytearray(b"ab")))
    assert msg == (
        "buffer length (2 bytes) after offset (0 bytes) must be a multiple of element size (4)"
    )
    msg = _message(
        RuntimeError, lambda: mt.asarray(bytearray(8), dtype=mt.int32, requires_grad=True)
    )
    assert msg == "Only Tensors of floating point and complex dtype can require gradients"
    old = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.asarray(bytearray(8)).dtype is mt.float64
    finally:
        mt.set_default_dtype(old)
    # sequences and scalars are not buffers
    assert mt.asarray([1, 2]).dtype is mt.int64 and mt.asarray(2.5).dtype is mt.float32


@pytest.mark.parametrize(
    "op, name",
    [
        ("tensor", "data"),
        ("as_tensor", "data"),
        ("asarray", "obj"),
        ("scalar_tensor", "s"),
    ],  # fmt: skip
)
def test_data_factories_without_their_data(op, name):
    msg = _message(TypeError, getattr(mt, op))
    assert msg == f'{op}() missing 1 required positional arguments: "{name}"'
    assert getattr(mt, op)(**{name: 2}).item() == 2
