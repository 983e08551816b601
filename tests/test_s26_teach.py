"""Session 26 (teach): what an autograder prints for a student's mistake. The expected numbers
and texts are torch 2.13's, obtained by running torch."""

from __future__ import annotations

import re
import warnings

import pytest

import minitorch as mt
from minitorch.autograd.gradcheck import GradcheckError


def _square(backward):
    """A student's y = x * x Function with the given backward(g, x)."""

    class Square(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return backward(g, x)

    return Square.apply


def _fast_numbers(func, inputs):
    """(output, input, numerical, analytical) of a fast-mode gradcheck failure."""
    with pytest.raises(GradcheckError) as info:
        mt.autograd.gradcheck(func, inputs, fast_mode=True)
    m = re.match(
        r"Jacobian mismatch for output (\d) with respect to input (\d),\n"
        r"numerical:(\S+)\nanalytical:(\S+)\n",
        str(info.value),
    )
    assert m is not None, str(info.value)
    return int(m[1]), int(m[2]), float(m[3]), float(m[4])


WRONG = _square(lambda g, x: g * x)  # the derivative is 2x


@pytest.mark.parametrize(
    "make, want",
    [
        # torch draws fast mode's directions from a fresh CPU generator in the default dtype
        (lambda: mt.tensor([1.0, 2.0], dtype=mt.float64), (3.3147731476242064, 1.6573865738089877)),
        (
            lambda: (mt.manual_seed(0), mt.randn(3, dtype=mt.float64))[1],
            (-0.7640715031608402, -0.38203575157179936),
        ),
    ],
)
def test_fast_gradcheck_prints_torchs_directional_numbers(make, want):
    x = make().requires_grad_()
    out, inp, numerical, analytical = _fast_numbers(WRONG, (x,))
    assert (out, inp) == (0, 0)
    assert numerical == pytest.approx(want[0], rel=1e-12)
    assert analytical == pytest.approx(want[1], rel=1e-12)


def test_fast_gradcheck_directions_follow_the_default_dtype():
    mt.set_default_dtype(mt.float64)
    try:
        x = mt.tensor([1.0, 2.0, 0.5], requires_grad=True)
        got = _fast_numbers(WRONG, (x,))
    finally:
        mt.set_default_dtype(mt.float32)
    assert got[:2] == (0, 0)
    assert got[2:] == pytest.approx((2.6824035973612155, 1.3412017987626803), rel=1e-12)


def test_fast_gradcheck_two_inputs_two_outputs_and_user_stream_untouched():
    class MulSub(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a - b

        @staticmethod
        def backward(ctx, g1, g2):
            a, b = ctx.saved_tensors
            return g1 * b + g2, g1 * a + g2  # d(a - b)/db is -1

    a = mt.tensor([[1.0, 2.0], [0.5, 1.5]], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([[3.0, 5.0], [2.0, -1.0]], dtype=mt.float64, requires_grad=True)
    mt.manual_seed(0)
    got = _fast_numbers(MulSub.apply, (a, b))
    assert got[:2] == (1, 1)
    assert got[2:] == pytest.approx((-0.814532674636914, 0.8145326744655201), rel=1e-9)
    assert mt.rand(2).tolist() == [0.49625658988952637, 0.7682217955589294]  # seed 0's first


@pytest.mark.parametrize(
    "call, text",
    [
        (
            lambda: mt.allclose(mt.ones(2), 1.0),
            "allclose(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda: mt.allclose(1.0, mt.ones(2)),
            "allclose(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: mt.isclose(mt.ones(2), 1.0),
            "isclose(): argument 'other' (position 2) must be Tensor, not float",
        ),
    ],
)
def test_allclose_names_itself_for_a_non_tensor(call, text):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == text


def test_assert_close_msg_neither_str_nor_callable_keeps_the_message():
    with pytest.raises(AssertionError) as info:
        mt.testing.assert_close(mt.ones(2), mt.zeros(2), msg=3)
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError) as info:
        mt.testing.assert_close(mt.ones(2), mt.zeros(2), msg="")
    assert str(info.value) == ""


def test_assert_allclose_deprecation_text():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.testing.assert_allclose(mt.ones(2), mt.ones(2))
    assert [(w.category, str(w.message)) for w in caught] == [
        (
            FutureWarning,
            "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
            "future release. Please use `torch.testing.assert_close()` instead. You can find "
            "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        )
    ]
