"""Session 59: tensor construction and the factories where differential fuzzing found
minitorch's values, errors or warnings apart from torch 2.13's (expected values written out;
tests/reference/test_s59_factories_ref.py compares with torch)."""

import math
import warnings

import numpy as np
import pytest

import minitorch as torch

INT64_MIN = -(2**63)
NO_INT64 = "value cannot be converted to type int64 without overflow"
NO_INT64_T = "value cannot be converted to type int64_t without overflow"
LONG_LONG = "Overflow when unpacking long long"


def _check(t, dtype, shape, values=None):
    assert t.dtype is dtype
    assert tuple(t.shape) == shape
    if values is not None:
        np.testing.assert_array_equal(t.detach().numpy(), np.asarray(values), err_msg=str(t))


def _first_line(excinfo) -> str:
    return str(excinfo.value).split("\n")[0]


# --- tensor(): ints beyond int64, mixed ints and floats, NumPy and tensor leaves ---


def test_bool_tensor_of_an_int_beyond_int64_holds_an_array():
    t = torch.tensor(2**64, dtype=torch.bool)
    assert isinstance(t.numpy(), np.ndarray) and t.numpy().shape == ()
    assert t.fill_(False).item() is False
    assert torch.tensor(2**64, dtype=torch.bool).logical_not_().item() is False
    _check(torch.tensor([[2**64], [0.5]], dtype=torch.bool), torch.bool, (2, 1), [[True], [True]])


def test_ints_mixed_with_floats_keep_every_bit_of_an_int64():
    assert torch.tensor([2**53 + 1, 0.5], dtype=torch.int64).tolist() == [2**53 + 1, 0]
    assert torch.tensor([np.int64(2**53 + 1), 0.5], dtype=torch.int64).tolist() == [2**53 + 1, 0]
    leaf = torch.tensor(2**53 + 1)
    assert torch.tensor([leaf, 0.5], dtype=torch.int64).tolist() == [2**53 + 1, 0]
    got = torch.tensor([[1, 2.5], [3, 2**60]], dtype=torch.int64).tolist()
    assert got == [[1, 2], [3, 2**60]]


def test_an_int_beyond_int64_among_floats_is_the_unpacking_error():
    with pytest.raises(ValueError, match=f"^{LONG_LONG}$"):
        torch.tensor([-(2**63) - 1, 0.5], dtype=torch.int64)
    with pytest.raises(ValueError, match=f"^{LONG_LONG}$"):
        torch.tensor([2**63, 0.5], dtype=torch.int8)
    with pytest.raises(ValueError, match=f"^{LONG_LONG}$"):
        torch.tensor([np.uint64(2**64 - 1), 0.5], dtype=torch.int64)


def test_numpy_and_tensor_int_leaves_convert_as_python_ints():
    _check(torch.tensor([np.int64(-1), 0.5], dtype=torch.uint8), torch.uint8, (2,), [255, 0])
    _check(torch.tensor([torch.tensor(-1), 0.5], dtype=torch.uint8), torch.uint8, (2,), [255, 0])
    t = torch.tensor([np.int64(2**63 - 1), 0.5], dtype=torch.int64)
    assert t.tolist() == [2**63 - 1, 0]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint8 without"):
        torch.tensor([np.int64(-300), 0.5], dtype=torch.uint8)


def test_a_float_checked_in_double_against_int64_wraps_as_a_c_cast():
    _check(torch.tensor(2.0**63, dtype=torch.int64), torch.int64, (), INT64_MIN)
    _check(torch.tensor(np.float64(2.0**63), dtype=torch.int64), torch.int64, (), INT64_MIN)
    _check(torch.tensor([2.0**63, 2.5], dtype=torch.int64), torch.int64, (2,), [INT64_MIN, 2])
    _check(torch.full((1,), 2.0**63, dtype=torch.int64), torch.int64, (1,), [INT64_MIN])
    _check(torch.full((2,), np.float32(2.0**63), dtype=torch.int64), torch.int64, (2,))
    _check(torch.full((1,), 2.0**64, dtype=torch.uint64), torch.uint64, (1,), [0])
    for value in (2.0**64, 1e19, -(2.0**64)):
        with pytest.raises(RuntimeError, match=f"^{NO_INT64}$"):
            torch.tensor(value, dtype=torch.int64)
    with pytest.raises(RuntimeError, match=f"^{NO_INT64_T}$"):
        torch.full((1,), 2.0**64, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8 without"):
        torch.tensor(127.5, dtype=torch.int8)


def test_a_given_dtype_reads_uint64_leaves_without_promoting_them():
    _check(torch.tensor([np.uint64(5), 1], dtype=torch.float32), torch.float32, (2,), [5, 1])
    _check(torch.tensor([np.uint64(5), 1], dtype=torch.int64), torch.int64, (2,), [5, 1])
    _check(torch.tensor([np.uint64(2**63), True], dtype=torch.bool), torch.bool, (2,), [1, 1])
    _check(torch.tensor([np.uint64(255), 1], dtype=torch.uint8), torch.uint8, (2,), [255, 1])
    with pytest.raises(RuntimeError, match="^Promotion for uint16, uint32, uint64 types"):
        torch.tensor([np.uint64(5), 1])


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.tensor(np.uint64(5)),
        lambda: torch.tensor([np.uint64(5)]),
        lambda: torch.tensor(np.uint64(5), dtype=torch.uint64),
        lambda: torch.tensor(np.float16(1), dtype=torch.uint64),
        lambda: torch.tensor(np.bool_(True), dtype=torch.uint64),
        lambda: torch.tensor([np.int64(-1)], dtype=torch.uint64),
        lambda: torch.tensor([torch.tensor(3), 2], dtype=torch.uint64),
        lambda: torch.tensor([np.array([1, 2], dtype=np.uint64)]),
        lambda: torch.tensor([0.5, -1], dtype=torch.uint64),
        lambda: torch.tensor(2.0**64, dtype=torch.uint64),
    ],
)
@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays")
def test_uint64_reads_python_ints_only(make):
    with pytest.raises(TypeError, match="^an integer is required$"):
        make()


def test_uint64_reports_the_first_bad_element():
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        torch.tensor([-1, 0.5], dtype=torch.uint64)
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        torch.tensor([2**64, -1], dtype=torch.uint64)
    _check(torch.tensor([True, 2], dtype=torch.uint64), torch.uint64, (2,), [1, 2])


def test_nested_data_fails_at_its_first_bad_element():
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8 without"):
        torch.tensor([[1e40, 1], []], dtype=torch.int8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8 without"):
        torch.tensor([1e40, np.float16(0.5)], dtype=torch.int8)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8 without"):
        torch.tensor([1e40, None], dtype=torch.int8)
    with pytest.raises(TypeError, match="'numpy.float16' object cannot be interpreted as an int"):
        torch.tensor([np.float16(0.5), 1e40], dtype=torch.int8)
    with pytest.raises(TypeError, match="^must be real number, not NoneType$"):
        torch.tensor([[1, None], []], dtype=torch.float32)
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        torch.tensor([[1, -1], [2]], dtype=torch.uint64)
    with pytest.raises(ValueError, match=r"^expected sequence of length 2 at dim 1 \(got 0\)$"):
        torch.tensor([[1, 1], []], dtype=torch.int8)


def test_numpy_strings_are_an_invalid_data_type():
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'numpy.str_'$"):
        torch.tensor(np.str_("a"))
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'numpy.bytes_'$"):
        torch.tensor(np.bytes_(b"a"))
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'numpy.str_'$"):
        torch.as_tensor(np.str_("a"))
    with pytest.raises(ValueError, match="^too many dimensions 'str'$"):
        torch.tensor([np.str_("a")])


def test_as_tensor_refuses_a_positional_dtype_of_the_wrong_type_by_its_count():
    with pytest.raises(TypeError, match="^as_tensor\\(\\) takes 1 positional argument but 2 were"):
        torch.as_tensor([1], [2])
    with pytest.raises(TypeError, match="^as_tensor\\(\\): argument 'dtype' must be torch.dtype"):
        torch.as_tensor([1], dtype=[2])


def test_from_numpy_reports_a_negative_stride_before_the_byte_order():
    with pytest.raises(ValueError, match="^At least one stride in the given numpy array is neg"):
        torch.from_numpy(np.zeros((2, 3), dtype=">f8")[::-1])
    with pytest.raises(ValueError, match="^given numpy array has byte order different"):
        torch.from_numpy(np.zeros((2, 3), dtype=">f8"))


# --- zeros, full, eye: sizes and argument errors ---

UNPACK = "{}(): argument 'size' failed to unpack the object at pos {} with error \"{}"


@pytest.mark.parametrize(
    ("make", "op", "pos"),
    [
        (lambda: torch.zeros(2**63), "zeros", 1),
        (lambda: torch.zeros(2, 2**63), "zeros", 2),
        (lambda: torch.ones((2**64,)), "ones", 1),
        (lambda: torch.empty(-(2**63) - 1), "empty", 1),
        (lambda: torch.full((2, 2**63), 1.0), "full", 2),
        (lambda: torch.rand(2**63), "rand", 1),
        (lambda: torch.randn(2, 2**63), "randn", 2),
        (lambda: torch.randint(5, (2**63,)), "randint", 1),
    ],
)
def test_a_size_beyond_int64_is_the_parsers_unpacking_error(make, op, pos):
    with pytest.raises(TypeError) as e:
        make()
    assert _first_line(e) == UNPACK.format(op, pos, LONG_LONG)


def test_sizes_too_big_to_store_are_the_storage_error():
    for make in (
        lambda: torch.zeros(2**62),
        lambda: torch.rand(2**62),
        lambda: torch.randint(5, (2**62,)),
    ):
        with pytest.raises(RuntimeError, match="^Storage size calculation overflowed with sizes="):
            make()


def test_size_none_given_is_of_the_wrong_type():
    for op in ("zeros", "ones", "rand"):
        with pytest.raises(TypeError, match=f"^{op}\\(\\): argument 'size' must be tuple of ints"):
            getattr(torch, op)(size=None)


def test_option_types_are_checked_before_a_negative_size():
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'dtype' must be torch.dtype, not"):
        torch.zeros(-1, dtype="float32")
    with pytest.raises(TypeError, match="^ones\\(\\): argument 'dtype' must be torch.dtype, not"):
        torch.ones(-1, dtype=5)
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'device' must be torch.device"):
        torch.zeros(-1, device=5.5)
    with pytest.raises(TypeError, match="^full\\(\\): argument 'fill_value' \\(position 2\\)"):
        torch.full((-1,), None)


def test_full_reads_its_size_before_its_fill_value():
    for fill in (None, 2**64, 1.0):
        with pytest.raises(TypeError, match="^full\\(\\): argument 'size' \\(position 1\\) must"):
            torch.full(2, fill)


def test_a_negative_size_with_out_fails_counting_the_elements():
    out = torch.zeros(1)
    for make in (
        lambda: torch.rand(-1, out=out),
        lambda: torch.randn(2, -1, out=out),
        lambda: torch.zeros(-1, out=out),
        lambda: torch.ones(-1, out=out),
        lambda: torch.full((-1,), 1.0, out=out),
        lambda: torch.normal(0.0, 1.0, (-1,), out=out),
        lambda: torch.randint(5, (-1,), out=torch.zeros(1, dtype=torch.int64)),
    ):
        with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
            make()
    with pytest.raises(RuntimeError, match="^Trying to create tensor with negative dimension"):
        torch.empty(-1, out=out)
    with pytest.raises(RuntimeError, match="^n must be non-negative, got-1$"):
        torch.randperm(-1, out=torch.zeros(1, dtype=torch.int64))


EYE_LISTING = "eye() received an invalid combination of arguments - got ({}), but expected one of:"


@pytest.mark.parametrize(
    ("make", "got"),
    [
        (lambda: torch.eye(3, None), "int, NoneType"),
        (lambda: torch.eye(3, m=None), "int, m=NoneType"),
        (lambda: torch.eye(2.5, dtype=None), "float, dtype=NoneType"),
        (lambda: torch.eye(2.5, out=None), "float, out=NoneType"),
        (lambda: torch.eye(3, 2.5, dtype=None), "int, float, dtype=NoneType"),
    ],
)
def test_eye_lists_its_overloads_for_an_explicit_none(make, got):
    with pytest.raises(TypeError) as e:
        make()
    assert _first_line(e) == EYE_LISTING.format(got)


def test_eye_sizes_beyond_int64_and_too_big():
    for make in (lambda: torch.eye(2**63), lambda: torch.eye(2, 2**63)):
        with pytest.raises(ValueError, match=f"^{LONG_LONG}$"):
            make()
    with pytest.raises(RuntimeError, match="^numel: integer multiplication overflow$"):
        torch.eye(2**62)
    with pytest.raises(RuntimeError, match=r"^Storage size calculation overflowed with sizes=\["):
        torch.eye(2**31)
    _check(torch.eye(2, 3), torch.float32, (2, 3), [[1, 0, 0], [0, 1, 0]])


# --- random factories ---


def test_randn_and_normal_of_no_element_take_any_dtype():
    _check(torch.randn(0, dtype=torch.int64), torch.int64, (0,))
    _check(torch.randn(0, 2, dtype=torch.bool), torch.bool, (0, 2))
    _check(torch.randn_like(torch.zeros(0), dtype=torch.int64), torch.int64, (0,))
    _check(torch.normal(torch.zeros(2, 0, dtype=torch.int64), 1.0), torch.int64, (2, 0))
    _check(torch.normal(0.0, 1.0, (0,), dtype=torch.int64), torch.int64, (0,))
    with pytest.raises(NotImplementedError, match='"normal_kernel_cpu" not implemented for \'L'):
        torch.randn(2, dtype=torch.int64)
    with pytest.raises(NotImplementedError, match='"check_uniform_bounds" not implemented for'):
        torch.rand(0, dtype=torch.int64)


def test_normal_checks_its_size_then_std_then_dtype():
    with pytest.raises(RuntimeError, match="^Trying to create tensor with negative dimension -1"):
        torch.normal(0.0, -1.0, (-1,))
    with pytest.raises(RuntimeError, match="^normal expects std >= 0.0, but found std -1$"):
        torch.normal(torch.zeros(3, dtype=torch.int64), -1.0)
    with pytest.raises(RuntimeError, match="^normal expects std >= 0.0, but found std -1$"):
        torch.normal(0.0, -1.0, (0,), dtype=torch.int64)


WARN = (
    "{} is out of bounds [-(2^{}), 2^{}]. Due to precision limitations {} can support discrete "
    "uniform distribution only within this range. This warning will become an error in version "
    "1.7 release, please fix the code in advance"
)


@pytest.mark.parametrize(
    ("low", "high", "dtype", "want"),
    [
        (0, 2**31, "float32", [("to - 1", 24, "float")]),
        (-(2**31), 2, "float32", [("from", 24, "float")]),
        (-(2**31), 2**31, "float32", [("from", 24, "float"), ("to - 1", 24, "float")]),
        (0, 2**54, "float64", [("to - 1", 53, "double")]),
        (0, 2**10, "bfloat16", [("to - 1", 8, "c10::BFloat16")]),
        (0, 2**12, "float16", [("to - 1", 11, "c10::Half")]),
        (0, 2**24 + 1, "float32", []),
    ],
)
def test_randint_warns_of_bounds_a_float_dtype_cannot_count(low, high, dtype, want):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = torch.randint(low, high, (3,), dtype=getattr(torch, dtype))
    assert [str(x.message) for x in w] == [
        WARN.format(which, bits, bits, name) for which, bits, name in want
    ]
    assert all(x.category is UserWarning for x in w)
    assert tuple(t.shape) == (3,)


def test_randint_checks_from_against_both_ends_of_the_dtype():
    with pytest.raises(RuntimeError, match="^from is out of bounds for bool$"):
        torch.randint(3, 10, (2,), dtype=torch.bool)
    with pytest.raises(RuntimeError, match="^from is out of bounds for unsigned char$"):
        torch.randint(300, 400, (2,), dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="^to - 1 is out of bounds for bool$"):
        torch.randint(0, 3, (2,), dtype=torch.bool)
    _check(torch.randint(1, 2, (2,), dtype=torch.bool), torch.bool, (2,), [True, True])


def test_randint_reads_the_size_type_before_unpacking_the_bounds():
    with pytest.raises(TypeError) as e:
        torch.randint(2**63, (2.5,))
    assert _first_line(e) == (
        "randint(): argument 'size' (position 2) must be tuple of ints, but found element of "
        "type float at pos 0"
    )
    with pytest.raises(ValueError, match=f"^{LONG_LONG}$"):
        torch.randint(2**63, (2,))


LISTING = "{}() received an invalid combination of arguments - got ({}), but expected one of:"


@pytest.mark.parametrize(
    ("make", "op", "got"),
    [
        (lambda: torch.rand(2.5, dtype=torch.float32), "rand", "float, dtype=torch.dtype"),
        (lambda: torch.rand(2.5, generator=None), "rand", "float, generator=NoneType"),
        (lambda: torch.randn(2.5, device="cpu"), "randn", "float, device=str"),
        (lambda: torch.rand((2.5,), dtype=torch.float32), "rand", "tuple, dtype=torch.dtype"),
        (
            lambda: torch.rand_like([1, 2], dtype=torch.float64),
            "rand_like",
            "list, dtype=torch.dtype",
        ),
        (lambda: torch.randn_like([1, 2], device="cpu"), "randn_like", "list, device=str"),
        (
            lambda: torch.randint_like(torch.zeros(2), 2.5, dtype=None),
            "randint_like",
            "Tensor, float, dtype=NoneType",
        ),
        (
            lambda: torch.randperm(2.5, generator=torch.Generator()),
            "randperm",
            "float, generator=torch._C.Generator",
        ),
        (lambda: torch.logspace(0, 1, True, base=10.0), "logspace", "int, int, bool, base=float"),
        (lambda: torch.logspace(0, 1, True, 10.0), "logspace", "int, int, bool, float"),
        (
            lambda: torch.logspace(0, 1, 2.5, dtype=None),
            "logspace",
            "int, int, float, dtype=NoneType",
        ),
        (
            lambda: torch.linspace(0, 1, 2.5, dtype=None),
            "linspace",
            "int, int, float, dtype=NoneType",
        ),
    ],
)
def test_a_keyword_given_makes_the_parser_list_the_overloads(make, op, got):
    with pytest.raises(TypeError) as e:
        make()
    assert _first_line(e) == LISTING.format(op, got)


def test_argument_errors_that_name_the_argument():
    with pytest.raises(TypeError, match="^rand\\(\\): argument 'size' \\(position 1\\) must be"):
        torch.rand(2.5)
    with pytest.raises(TypeError, match="^rand\\(\\): argument 'size' failed to unpack the object"):
        torch.rand(2, 2.5, dtype=torch.float32)
    for kw in ({"generator": None}, {"dtype": None}, {"out": None}, {"requires_grad": False}):
        with pytest.raises(TypeError, match="^rand\\(\\) missing 1 required positional arguments"):
            torch.rand(**kw)
    with pytest.raises(TypeError, match="^rand\\(\\) received an invalid combination"):
        torch.rand()


# --- arange, range, linspace, logspace ---


def test_arange_counts_int64_elements_in_wrapping_int64_arithmetic():
    with pytest.raises(RuntimeError, match="^invalid size, possible overflow\\?$"):
        torch.arange(-(2**62), 2**62, 2**61)
    with pytest.raises(RuntimeError, match="^invalid size, possible overflow\\?$"):
        torch.arange(0.0, 2.0**63, 2.0**62, dtype=torch.int64)
    _check(torch.arange(-(2**63), 2**63 - 1, 2**62), torch.int64, (0,))
    _check(torch.arange(0, 10, 2**63 - 1), torch.int64, (0,))
    _check(torch.arange(5, 0, -(2**63)), torch.int64, (0,))
    _check(torch.arange(0, 2**62, 2**61), torch.int64, (2,), [0, 2**61])
    _check(torch.arange(-(2**62), 2**62, 2**61, dtype=torch.float64), torch.float64, (4,))


def test_arange_reads_its_numbers_as_torch_s_scalars():
    for make in (lambda: torch.arange(0, 10**20), lambda: torch.arange(0, 10, 10**20)):
        with pytest.raises(OverflowError, match="^int too big to convert$"):
            make()
    with pytest.raises(OverflowError, match="^can't convert negative int to unsigned$"):
        torch.arange(-(2**63) - 1, 0)
    for make in (
        lambda: torch.arange(2**63),
        lambda: torch.arange(0, 5, 2**63),
        lambda: torch.arange(0, 1e19, dtype=torch.int64),
    ):
        with pytest.raises(RuntimeError, match=f"^{NO_INT64_T}$"):
            make()
    _check(torch.arange(0, 5, 2**63, dtype=torch.float32), torch.float32, (1,), [0])


def test_arange_sizes_too_big():
    with pytest.raises(RuntimeError, match=r"^Storage size calculation overflowed with sizes=\[46"):
        torch.arange(2**62)
    with pytest.raises(RuntimeError, match="^IntArrayRef contains an int that cannot be represe"):
        torch.arange(0.0, 2.0**63)
    with pytest.raises(RuntimeError, match="^\\[enforce fail at alloc_cpu.cpp:127\\] err == 0."):
        torch.arange(2**62, dtype=torch.int8)


def test_arange_checks_the_step_sign_before_truncating_it():
    with pytest.raises(RuntimeError, match="^upper bound and lower bound inconsistent with step"):
        torch.arange(0, 5, -0.5, dtype=torch.int64)
    with pytest.raises(ValueError, match="^step must be nonzero$"):
        torch.arange(5, 0, -0.5, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="^step must be nonzero$"):
        torch.arange(0, 10, float("nan"))


def test_range_messages_write_numbers_as_torch_does():
    with pytest.raises(RuntimeError, match="^unsupported range: 1.23457e\\+08 -> inf$"):
        torch.arange(123456789.0, float("inf"))
    with pytest.raises(RuntimeError, match="^unsupported range: 1e-07 -> nan$"):
        torch.arange(1e-7, float("nan"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch.range's deprecation)
        with pytest.raises(RuntimeError, match=f"^{NO_INT64_T}$"):
            torch.range(0, 1e19, dtype=torch.int64)
        with pytest.raises(RuntimeError, match="^Storage size calculation overflowed with sizes"):
            torch.range(0, 2**62, dtype=torch.int64)


def test_one_step_fills_start_with_fill_s_checks():
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without"):
        torch.linspace(1e308, 0, 1)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without"):
        torch.logspace(40, 0, 1)
    _check(torch.linspace(1e5, 0, 1, dtype=torch.float16), torch.float16, (1,), [math.inf])
    _check(torch.linspace(1, float("nan"), 1, dtype=torch.int64), torch.int64, (1,), [1])
    _check(torch.logspace(1e308, 0, 1), torch.float32, (1,), [math.inf])
    _check(torch.logspace(0, 1e308, 1), torch.float32, (1,), [1])
    _check(torch.logspace(5, 0, 1, dtype=torch.float16), torch.float16, (1,), [math.inf])
    _check(torch.logspace(1, float("nan"), 1, dtype=torch.int64), torch.int64, (1,), [10])
    _check(torch.logspace(1, 300, 1, dtype=torch.uint8), torch.uint8, (1,), [10])
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without"):
        torch.logspace(1, float("nan"), 2, dtype=torch.int64)


@pytest.mark.parametrize(
    ("args", "dtype", "want"),
    [
        ((1, 10, 2), "int32", [10, -(2**31)]),
        ((1, 10, 2), "int16", [10, 0]),
        ((1, 20, 2), "int64", [10, INT64_MIN]),
        ((1, 4, 4), "int8", [10, 100, -24, 16]),
        ((1, 4, 4), "uint8", [10, 100, 232, 16]),
        ((2, 15, 2, 2.0), "int16", [4, -32768]),
        ((0, 1, 3, -2.0), "int32", [1, -(2**31), -2]),
        ((0, 1, 3, -2.0), "uint8", [1, 0, 254]),
    ],
)
def test_logspace_converts_to_integers_as_a_c_cast(args, dtype, want):
    dt = getattr(torch, dtype)
    _check(torch.logspace(*args, dtype=dt), dt, (len(want),), want)
