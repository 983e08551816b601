"""Session 29 (helper audio): torch-free regression tests of the library fixes the audio programs
in tests/reference/test_s29_audio_reference.py led to. The expected values and messages are
torch 2.13's, written as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

_OPTIONS = (
    "*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)


def _tensor_options(cpp_name):
    return (
        f"TensorOptions(dtype={cpp_name}, device=cpu, layout=Strided (default), "
        "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))"
    )


@pytest.mark.parametrize(
    "fn, dtype, cpp_name",
    [
        (mt.hann_window, mt.int64, "long int"),
        (mt.hamming_window, mt.int32, "int"),
        (mt.blackman_window, mt.int16, "short int"),
        (mt.bartlett_window, mt.uint8, "unsigned char"),
        (mt.kaiser_window, mt.int8, "signed char"),
        (mt.hann_window, mt.bool, "bool"),
    ],
)
def test_integer_window_error_prints_tensor_options(fn, dtype, cpp_name):
    # torch's message ends with its C++ TensorOptions printout, not the dtype's Python name
    with pytest.raises(RuntimeError) as info:
        fn(5, dtype=dtype)
    name = fn.__name__
    assert str(info.value) == (
        f"{name} expects floating point dtypes, got: {_tensor_options(cpp_name)}"
    )


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.kaiser_window(6, beta=2.0), "int, beta=float"),
        (lambda: mt.hamming_window(6, alpha=0.5), "int, alpha=float"),
        (lambda: mt.hamming_window(6, True, beta=0.5), "int, bool, beta=float"),
        (lambda: mt.hamming_window(6, alpha=0.5, beta=0.1), "int, beta=float, alpha=float"),
        (
            lambda: mt.kaiser_window(5, beta=1.0, dtype=mt.float64, requires_grad=True),
            "int, requires_grad=bool, dtype=torch.dtype, beta=float",
        ),
    ],
)
def test_window_coefficient_without_the_parameter_before_it_finds_no_overload(call, got):
    # torch's overloads take beta only after periodic (kaiser) or alpha (hamming)
    with pytest.raises(TypeError) as info:
        call()
    msg = str(info.value)
    name = msg.split("(")[0]
    assert msg.startswith(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (int window_length, " + _OPTIONS + ")\n"
    )


def test_window_coefficients_by_keyword_after_periodic_still_work():
    np.testing.assert_allclose(
        mt.kaiser_window(6, periodic=True, beta=2.0, dtype=mt.float64).tolist(),
        [
            0.4386762798370488,
            0.7183974012205961,
            0.9243138756260794,
            1.0,
            0.9243138756260794,
            0.7183974012205961,
        ],  # fmt: skip
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        mt.hamming_window(6, periodic=False, alpha=0.5, beta=0.5, dtype=mt.float64).tolist(),
        [
            0.0,
            0.3454915028125263,
            0.9045084971874737,
            0.9045084971874737,
            0.3454915028125264,
            0.0,
        ],  # fmt: skip
        atol=1e-15,
    )
    assert mt.hamming_window(6).shape == (6,)
    assert mt.kaiser_window(6, False).shape == (6,)


def test_exponential_window_of_one_point_with_a_center():
    # the formula at n = 0: exp(-|center| / tau), not the 1 of a one-point window
    w = mt.signal.windows.exponential(1, center=2.0, tau=4.0, sym=False, dtype=mt.float64)
    np.testing.assert_allclose(w.tolist(), [0.6065306597126334], rtol=1e-15)
    w = mt.signal.windows.exponential(1, tau=4.0, sym=False, dtype=mt.float64)
    assert w.tolist() == [1.0]


def test_blackman_errors_name_blackman():
    with pytest.raises(ValueError, match="^blackman expects float32 or float64 dtypes, got: "):
        mt.signal.windows.blackman(4, dtype=mt.float16)
    with pytest.raises(ValueError, match="^blackman requires non-negative window length, got"):
        mt.signal.windows.blackman(-1)
    # hann and hamming name general_cosine, as torch's do
    with pytest.raises(ValueError, match="^general_cosine expects float32"):
        mt.signal.windows.hann(4, dtype=mt.float16)


def test_general_cosine_takes_any_iterable_of_coefficients():
    w = mt.signal.windows.general_cosine(4, a=mt.tensor([0.3], dtype=mt.float64), dtype=mt.float64)
    np.testing.assert_allclose(w.tolist(), [0.3, 0.3, 0.3, 0.3], rtol=1e-15)
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value"):
        mt.signal.windows.general_cosine(4, a=mt.tensor([0.5, 0.5]))
    with pytest.raises(TypeError, match="^Coefficients must be a list/tuple$"):
        mt.signal.windows.general_cosine(4, a=0.5)
    with pytest.raises(ValueError, match="^Coefficients cannot be empty$"):
        mt.signal.windows.general_cosine(4, a=[])
