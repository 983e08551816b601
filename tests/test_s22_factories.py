"""Session 22 fuzzing of tensor creation and dtype conversion against torch 2.13 (no torch here:
the expected values are literals obtained by running torch on this CPU)."""

import warnings

import numpy as np
import pytest

import minitorch as torch

NAN, INF = float("nan"), float("inf")


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert (g != g and w != w) or g == w, (got, want)


def test_float64_to_uint8_wraps_through_int64():
    # c10 converts a double to uint8 through int64: -2147483649.0 -> 255, 4294967301.0 -> 5
    # (NumPy's cast gives 0 for both)
    src = [-2147483649.0, 4294967301.0, 1e10, 300.0, -1.0, -300.5]
    want = [255, 5, 0, 44, 255, 212]
    x = torch.tensor(src, dtype=torch.float64)
    assert x.to(torch.uint8).tolist() == want
    assert x.byte().tolist() == want
    assert torch.tensor(np.array(src), dtype=torch.uint8).tolist() == want
    assert torch.as_tensor(np.array(src), dtype=torch.uint8).tolist() == want
    assert torch.zeros(6, dtype=torch.uint8).copy_(x).tolist() == want
    # float32 keeps NumPy's (equal) values: its values that far out are multiples of 256
    assert x.float().to(torch.uint8).tolist() == [0, 0, 0, 44, 255, 212]


def test_casts_of_nan_inf_and_out_of_range_values_do_not_warn():
    x = torch.tensor([NAN, INF, -INF, 1e300, -1e10, 2.5], dtype=torch.float64)
    b = torch.tensor([NAN, 1e10, -300.0], dtype=torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's RuntimeWarnings: torch casts silently
        assert x.to(torch.int64).tolist() == [-(2**63)] * 4 + [-10000000000, 2]
        assert x.int().tolist() == [-(2**31)] * 5 + [2]
        _same(x.half().tolist(), [NAN, INF, -INF, INF, -INF, 2.5])
        _same(x.bfloat16().float().tolist(), [NAN, INF, -INF, INF, -9999220736.0, 2.5])
        assert torch.tensor([70000, -70000, 2**62]).half().tolist() == [INF, -INF, INF]
        assert b[1:].half().tolist() == [INF, -300.0]
        assert b.to(torch.uint8).tolist() == [0, 0, 212]
        arr = np.array([NAN, 1e10, -2.5])
        assert torch.tensor(arr, dtype=torch.int16).tolist() == [0, 0, -2]
        assert torch.tensor(np.array([70000, 1]), dtype=torch.float16).tolist() == [INF, 1.0]
    # (float64 -> float32 keeps NumPy's overflow warning, see _dtype.cast_may_warn)
    _same(x.float().tolist(), [NAN, INF, -INF, INF, -10000000000.0, 2.5])


@pytest.mark.parametrize(
    "leaf, dtype, name",
    [
        (np.float32(2.5), torch.int64, "numpy.float32"),
        (np.float16(2.5), torch.uint8, "numpy.float16"),
        (np.float32(3.0), torch.bool, "numpy.float32"),
        (np.bool_(True), torch.int64, "numpy.bool"),
        (np.bool_(True), torch.int8, "numpy.bool"),
    ],
)
def test_numpy_scalar_read_with_index_into_integer_dtypes(leaf, dtype, name):
    # torch reads such a leaf with __index__ (np.float64 is a Python float and passes)
    msg = f"'{name}' object cannot be interpreted as an integer"
    for data in (leaf, [leaf], [leaf, 1], [[leaf], [2]]):
        with pytest.raises(TypeError, match=msg):
            torch.tensor(data, dtype=dtype)
    with pytest.raises(TypeError, match=msg):
        torch.as_tensor([leaf], dtype=dtype)


def test_float_tensor_leaf_into_bool_dtype_raises():
    # (the leaves torch does take)
    assert torch.tensor(np.float64(2.5), dtype=torch.int64).tolist() == 2
    assert torch.tensor([np.bool_(True), 0], dtype=torch.bool).tolist() == [True, False]
    assert torch.tensor([np.int8(3)], dtype=torch.bool).tolist() == [True]
    assert torch.tensor([np.bool_(True)], dtype=torch.float16).tolist() == [1.0]
    assert torch.tensor([np.float32(2.5)], dtype=torch.float64).tolist() == [2.5]
    msg = "only integer tensors of a single element can be converted to an index"
    with pytest.raises(TypeError, match=msg):
        torch.tensor([torch.tensor(2.5), 1], dtype=torch.bool)
    with pytest.raises(TypeError, match=msg):
        torch.as_tensor([torch.tensor(2.0, dtype=torch.float16)], dtype=torch.bool)
    assert torch.tensor([torch.tensor(2), torch.tensor(True)], dtype=torch.bool).tolist() == [
        True,
        True,
    ]


def test_list_starting_with_a_0d_array_is_measured_as_a_sequence():
    for data in ([np.array(3)], [[np.array(3)]], ([np.array(2.5)],)):
        with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
            torch.tensor(data)
    # after a number, a 0-d array is a scalar, read with __index__ into an integer or bool dtype
    assert torch.tensor([1, np.array(3)]).tolist() == [1, 3]
    assert torch.tensor([1, np.array(2.5)], dtype=torch.float16).tolist() == [1.0, 2.5]
    for leaf in (np.array(2.5), np.array(True), np.array(2.5, dtype=np.float32)):
        for dt in (torch.int64, torch.bool):
            msg = "only integer scalar arrays can be converted to a scalar index"
            with pytest.raises(TypeError, match=msg):
                torch.tensor([1, leaf], dtype=dt)
    assert torch.tensor(np.array(2)).tolist() == 2


def test_scalar_tensor_checked_conversion():
    def err(dtype, value):
        with pytest.raises(RuntimeError) as info:
            torch.scalar_tensor(value, dtype=dtype)
        return str(info.value)

    assert err(torch.int8, 300) == "value cannot be converted to type int8_t without overflow"
    assert err(torch.uint8, NAN) == "value cannot be converted to type uint8_t without overflow"
    assert err(torch.int32, 2**31) == "value cannot be converted to type int without overflow"
    assert err(torch.int16, 1e39) == "value cannot be converted to type int16_t without overflow"
    assert err(torch.float32, 1e39) == "value cannot be converted to type float without overflow"
    assert err(None, -1e300) == "value cannot be converted to type float without overflow"
    big = torch.tensor(1e39, dtype=torch.float64)
    assert err(None, big) == "value cannot be converted to type float without overflow"
    assert torch.scalar_tensor(1e39, dtype=torch.float16).item() == INF
    assert torch.scalar_tensor(70000.0, dtype=torch.int64).item() == 70000
    assert torch.scalar_tensor(2.5, dtype=torch.int8).item() == 2
    assert torch.scalar_tensor(2**63).item() == 9.223372036854776e18
    with pytest.raises(OverflowError, match="int too big to convert"):
        torch.scalar_tensor(2**64)
    for bad, name in (([1], "list"), (None, "NoneType"), (np.array(2.0), "numpy.ndarray")):
        msg = f"scalar_tensor\\(\\): argument 's' \\(position 1\\) must be Number, not {name}"
        with pytest.raises(TypeError, match=msg):
            torch.scalar_tensor(bad)
    assert torch.scalar_tensor(np.bool_(True)).tolist() == 1.0


def test_set_default_dtype_errors():
    rule = "only floating-point types are supported as the default type"
    with pytest.raises(TypeError) as info:
        torch.set_default_dtype(torch.int64)
    assert str(info.value) == rule
    for bad in (None, "float64", float):
        with pytest.raises(TypeError) as info:
            torch.set_default_dtype(bad)
        assert str(info.value) == "invalid dtype object: " + rule
    assert torch.get_default_dtype() is torch.float32


def test_eye_with_a_bad_second_argument_lists_both_overloads():
    rest = (
        "*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
        "torch.device device = None, bool pin_memory = False, bool requires_grad = False)"
    )
    tail = f"but expected one of:\n * (int n, {rest}\n * (int n, int m, {rest}\n"
    head = "eye() received an invalid combination of arguments - got "
    for args, kwargs, got in (
        ((2.0, 2), {}, "(float, int), "),
        ((2, 2.0), {"dtype": torch.int32}, "(int, float, dtype=torch.dtype), "),
        ((2, "x"), {"requires_grad": True}, "(int, str, requires_grad=bool), "),
        ((2.0,), {"dtype": torch.int8}, "(float, dtype=torch.dtype), "),
        (("x",), {"out": torch.empty(2, 2)}, "(str, out=Tensor), "),
    ):
        with pytest.raises(TypeError) as info:
            torch.eye(*args, **kwargs)
        assert str(info.value) == head + got + tail
    with pytest.raises(
        TypeError, match="eye\\(\\): argument 'n' \\(position 1\\) must be int, not float"
    ):
        torch.eye(2.0)


def test_like_factories_check_the_memory_format_rank_first():
    msg = "required rank 4 tensor to use channels_last format"
    x = torch.ones(3, 4)[:, ::2]
    cl = torch.channels_last
    with pytest.raises(RuntimeError, match=msg):
        torch.empty_like(x, dtype=torch.uint8, memory_format=cl, requires_grad=True)
    with pytest.raises(RuntimeError, match=msg):
        torch.zeros_like(torch.tensor(True), memory_format=cl, requires_grad=True)
    with pytest.raises(RuntimeError, match=msg):
        torch.full_like(torch.ones(2, 3, requires_grad=True), 1e300, memory_format=cl)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        torch.ones_like(
            x, dtype=torch.int8, memory_format=torch.channels_last_3d, requires_grad=True
        )


def test_full_of_one_half_element_skips_the_overflow_check():
    # torch fills a one-element float16 / bfloat16 tensor without its overflow check
    assert torch.full((), 1e300, dtype=torch.float16).item() == INF
    assert torch.full((1, 1), -1e39, dtype=torch.bfloat16).tolist() == [[-INF]]
    assert torch.full_like(torch.zeros(1, dtype=torch.float16), 70000.0).tolist() == [INF]
    msg = "value cannot be converted to type c10::Half without overflow"
    with pytest.raises(RuntimeError, match=msg):
        torch.full((2,), 1e300, dtype=torch.float16)
    torch.set_default_dtype(torch.float16)
    try:
        assert torch.full((1,), 1e39).tolist() == [INF]
    finally:
        torch.set_default_dtype(torch.float32)


def test_asarray_copies_a_0d_array():
    # torch reads a 0-d NumPy array as a scalar: the tensor never shares its memory
    for a in (np.array(2.0), np.array(3, dtype=np.int32), np.array(True)):
        for kwargs in ({}, {"copy": False}, {"copy": None}):
            t = torch.asarray(a, **kwargs)
            assert t.dtype == torch.from_numpy(a).dtype
            assert not np.shares_memory(t.numpy(), a)
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Int' into dtype 'Double'"):
        torch.asarray(np.array(3, dtype=np.int32), copy=False, dtype=torch.float64)
    a = np.array([1.5, 2.0])
    assert np.shares_memory(torch.asarray(a, copy=False).numpy(), a)
