"""Tests of minitorch._dtype: dtype objects, promotion, casting, finfo/iinfo, the default dtype."""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np
import pytest

from minitorch import _dtype as dt


@pytest.fixture
def restore_default():
    yield
    dt.set_default_dtype(dt.float32)


@pytest.fixture
def no_ml_dtypes(monkeypatch):
    """ml_dtypes made unimportable, and any bfloat16 storage resolved before forgotten."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    try:
        del dt.bfloat16.np
    except AttributeError:
        pass
    for key in [k for k, v in dt._FROM_NUMPY.items() if v is dt.bfloat16]:
        monkeypatch.delitem(dt._FROM_NUMPY, key)


def test_repr_and_attributes():
    assert repr(dt.float32) == "torch.float32"
    assert str(dt.bool) == "torch.bool"
    assert dt.float is dt.float32 and dt.double is dt.float64 and dt.half is dt.float16
    assert dt.long is dt.int64 and dt.int is dt.int32 and dt.short is dt.int16
    assert dt.float64.itemsize == 8 and dt.bool.itemsize == 1 and dt.bfloat16.itemsize == 2
    assert dt.bfloat16.is_floating_point and not dt.int64.is_floating_point
    assert not dt.uint8.is_signed and not dt.bool.is_signed and dt.float16.is_signed
    assert not any(d.is_complex for d in dt.ALL_DTYPES)
    assert dt.int8.np == np.int8 and dt.bool.np == np.bool_
    assert len(set(dt.ALL_DTYPES)) == 10


def test_identity_hash_and_no_construction():
    assert dt.float32 != "float32" and dt.float32 != np.float32
    assert {dt.float32: 1}[dt.float] == 1
    with pytest.raises(TypeError, match="cannot create"):
        dt.dtype("float32")


@pytest.mark.parametrize("d", dt.ALL_DTYPES, ids=str)
def test_pickle_and_copy_return_the_singleton(d):
    assert pickle.loads(pickle.dumps(d)) is d
    assert copy.deepcopy(d) is d


def test_from_numpy():
    assert dt.from_numpy(np.dtype("float32")) is dt.float32
    assert dt.from_numpy(np.zeros(2, np.longlong).dtype) is dt.int64
    assert dt.from_numpy(np.float16) is dt.float16
    msg = (
        "can't convert np.ndarray of type numpy.longdouble. The only supported types are: "
        "float64, float32, float16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
        "and bool."
    )
    assert dt.from_numpy(np.dtype("uint16")) is dt.uint16  # a shell dtype, as torch's
    with pytest.raises(TypeError) as info:
        dt.from_numpy(np.dtype("longdouble"))
    assert str(info.value) == msg
    for bad in ["complex64", "O", "U3"]:
        with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy"):
            dt.from_numpy(np.dtype(bad))
    with pytest.raises(ValueError, match="byte order"):
        dt.from_numpy(np.dtype(">f4" if sys.byteorder == "little" else "<f4"))


def test_to_dtype():
    assert dt.to_dtype(dt.int8) is dt.int8
    assert dt.to_dtype(float) is dt.float64
    assert dt.to_dtype(int) is dt.int64
    assert dt.to_dtype(bool) is dt.bool
    assert dt.to_dtype(np.float32) is dt.float32
    assert dt.to_dtype(np.dtype("int16")) is dt.int16
    msg = r"zeros\(\): argument 'dtype' must be torch.dtype, not str"
    with pytest.raises(TypeError, match=msg):
        dt.to_dtype("float32", op="zeros")
    with pytest.raises(TypeError, match="not NoneType"):
        dt.to_dtype(None)
    assert dt.to_dtype(np.uint32) is dt.uint32  # a shell dtype, as torch's
    with pytest.raises(TypeError, match="NumPy dtype complex64"):
        dt.to_dtype(np.complex64)
    with pytest.raises(TypeError, match="complex"):
        dt.to_dtype(complex)


def test_default_dtype(restore_default):
    assert dt.get_default_dtype() is dt.float32 is dt.default_float()
    assert dt.scalar_dtype(dt.int32, 2.5) is dt.float32
    dt.set_default_dtype(dt.float64)
    assert dt.get_default_dtype() is dt.float64 is dt.default_float()
    assert dt.scalar_dtype(dt.int32, 2.5) is dt.float64  # the cache follows the default
    assert dt.result_type((dt.int64, 1), 2.5) is dt.float64
    dt.set_default_dtype(dt.bfloat16)  # allowed, as in torch, even without ml_dtypes
    assert dt.finfo().dtype == "bfloat16"
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        dt.set_default_dtype(dt.int64)
    with pytest.raises(TypeError, match="invalid dtype object"):
        dt.set_default_dtype(float)
    assert dt.get_default_dtype() is dt.bfloat16


@pytest.mark.parametrize(
    "a, b, out",
    [
        ("uint8", "int8", "int16"),
        ("uint8", "int16", "int16"),
        ("int8", "int64", "int64"),
        ("int64", "float16", "float16"),
        ("float16", "bfloat16", "float32"),
        ("bfloat16", "float64", "float64"),
        ("bool", "uint8", "uint8"),
        ("bool", "bool", "bool"),
        ("float32", "float64", "float64"),
    ],
)
def test_promote_types(a, b, out):
    a, b, out = getattr(dt, a), getattr(dt, b), getattr(dt, out)
    assert dt.promote_types(a, b) is out
    assert dt.promote_types(b, a) is out


def test_promote_types_arguments():
    assert dt.promote_types(dt.float32, float) is dt.float64
    with pytest.raises(TypeError, match=r"argument 'type2' \(position 2\) must be torch.dtype"):
        dt.promote_types(dt.float32, None)


F32, F64, F16, I64, I32, I8, U8, B = "float32 float64 float16 int64 int32 int8 uint8 bool".split()


@pytest.mark.parametrize(
    "operands, out",
    [
        ([(I32, 1), 2.5], F32),  # a Python float gives the default dtype
        ([(I64, 1), 2], I64),
        ([(U8, 1), -1000], U8),  # a Python int never widens an int tensor, whatever its value
        ([(F16, 1), 2.5], F16),
        ([(B, 1), 2], I64),  # but it does widen a bool tensor
        ([(B, 1), True], B),
        ([(I8, 1), True], I8),
        ([(F32, 2), (F64, 0)], F32),  # a 0-dim tensor does not widen within its kind
        ([(I32, 2), (F64, 0)], F64),  # but brings its own dtype across kinds
        ([(I8, 1), (U8, 0)], I8),
        ([(B, 1), (U8, 0)], U8),
        ([(I32, 0), 2.5], F32),
        ([(F64, 0), 2.5], F64),
        ([(U8, 0), (I8, 0)], "int16"),
        ([(U8, 1), (I8, 3)], "int16"),
        ([(I32, 1), (F16, 0), 2.5], F16),
        ([(I32, 1), (I64, 0), 2.5], F32),
        ([1, 2.5], F32),
        ([True, 2], I64),
        ([(I64, 1), np.float64(2.5)], F32),  # NumPy scalars count as Python scalars
    ],
)
def test_result_type(operands, out):
    operands = [(getattr(dt, x[0]), x[1]) if isinstance(x, tuple) else x for x in operands]
    assert dt.result_type(*operands) is getattr(dt, out)
    if len(operands) == 2 and all(isinstance(x, tuple) for x in operands):
        assert dt.binary_dtype(*operands[0], *operands[1]) is getattr(dt, out)
    if len(operands) == 2 and isinstance(operands[0], tuple) and not isinstance(operands[1], tuple):
        assert dt.scalar_dtype(operands[0][0], operands[1]) is getattr(dt, out)


def test_result_type_errors():
    with pytest.raises(TypeError, match="result_type"):
        dt.result_type()
    with pytest.raises(TypeError, match="complex"):
        dt.result_type((dt.float32, 1), 1j)
    with pytest.raises(TypeError, match="str"):
        dt.scalar_dtype(dt.float32, "a")


def test_binary_dtype_agrees_with_result_type():
    for a in dt.ALL_DTYPES:
        for b in dt.ALL_DTYPES:
            for na, nb in [(0, 0), (0, 2), (1, 0), (3, 1)]:
                expected = dt.result_type((a, na), (b, nb))
                assert dt.binary_dtype(a, na, b, nb) is expected, (a, na, b, nb)


@pytest.mark.parametrize(
    "a, b, ok",
    [
        ("float32", "int32", False),
        ("float64", "bool", False),
        ("int64", "bool", False),
        ("int64", "int8", True),
        ("float64", "float16", True),
        ("int8", "uint8", True),
        ("bool", "float32", True),
        ("uint8", "bfloat16", True),
    ],
)
def test_can_cast(a, b, ok):
    assert dt.can_cast(getattr(dt, a), getattr(dt, b)) is ok


def test_finfo():
    f = dt.finfo(dt.float32)
    assert f.bits == 32 and f.eps == 2.0**-23 and f.resolution == 1e-06 and f.dtype == "float32"
    assert f.max == float(np.finfo(np.float32).max) and f.min == -f.max
    assert f.tiny == f.smallest_normal == float(np.finfo(np.float32).tiny)
    assert dt.finfo(dt.float16).max == 65504.0
    assert dt.finfo(dt.bfloat16).eps == 2.0**-7 and dt.finfo(dt.bfloat16).resolution == 0.01
    assert dt.finfo() == dt.finfo(dt.float32) != dt.finfo(dt.float64)
    assert dt.finfo(float).dtype == "float64"
    assert repr(dt.finfo(dt.float16)) == (
        "finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
        "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)"
    )
    with pytest.raises(TypeError, match="requires a floating point input type"):
        dt.finfo(dt.int32)
    with pytest.raises(TypeError, match=r"finfo\(\): argument 'type' \(position 1\)"):
        dt.finfo("float32")


def test_iinfo():
    i = dt.iinfo(dt.int8)
    assert (i.bits, i.min, i.max, i.dtype) == (8, -128, 127, "int8")
    assert (dt.iinfo(dt.uint8).min, dt.iinfo(dt.uint8).max) == (0, 255)
    assert dt.iinfo(dt.int64).max == 2**63 - 1 and dt.iinfo(int).dtype == "int64"
    assert repr(dt.iinfo(dt.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        dt.iinfo(dt.bool)
    with pytest.raises(TypeError, match="requires an integer input type"):
        dt.iinfo(dt.float32)


def test_bfloat16_without_ml_dtypes(no_ml_dtypes):
    msg = (
        "bfloat16 needs the optional package ml_dtypes (pip install ml_dtypes); "
        "NumPy has no bfloat16"
    )
    with pytest.raises(TypeError) as info:
        dt.numpy_dtype(dt.bfloat16)
    assert str(info.value) == msg
    with pytest.raises(TypeError, match="needs the optional package ml_dtypes"):
        _ = dt.bfloat16.np
    # Everything but storage still works.
    assert dt.promote_types(dt.bfloat16, dt.float16) is dt.float32
    assert dt.finfo(dt.bfloat16).bits == 16
    assert dt.numpy_dtype(dt.float32) == np.float32


def test_bfloat16_with_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dt.numpy_dtype(dt.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert dt.bfloat16.np == np.dtype(ml_dtypes.bfloat16)
    assert dt.from_numpy(np.zeros(2, ml_dtypes.bfloat16).dtype) is dt.bfloat16
    assert dt.to_dtype(ml_dtypes.bfloat16) is dt.bfloat16


def test_unary_float_ops_keep_bfloat16():
    import minitorch

    pytest.importorskip("ml_dtypes")
    x = minitorch.ones(3, dtype=minitorch.bfloat16, requires_grad=True)
    for name in ("exp", "log", "sqrt", "tanh", "sigmoid", "sin"):
        assert getattr(x, name)().dtype == minitorch.bfloat16, name
    x.exp().sum().backward()
    assert x.grad.dtype == minitorch.bfloat16


def test_bfloat16_arithmetic_with_python_numbers_stays_bfloat16():
    import minitorch

    pytest.importorskip("ml_dtypes")
    x = minitorch.tensor([1.0, 3.7, -2.25], dtype=minitorch.bfloat16, requires_grad=True)
    for y in (x * 0.3, 0.3 * x, x + 0.5, x - 0.5, 0.5 - x, x / 0.3, x / 3, x * 2, x**0.5,
              x.clamp(0, 0.5)):
        assert y.dtype == minitorch.bfloat16
    # computed in float32 and rounded once, as torch's opmath does
    expected = (x.detach().float() * 0.3).bfloat16()
    assert (x * 0.3).float().tolist() == expected.float().tolist()
    (x * 0.3 + x / 0.7).sum().backward()
    assert x.grad.dtype == minitorch.bfloat16
