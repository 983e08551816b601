"""Session 31 (helper wavelet): torch-free checks of the library fixes the wavelet and signal
processing programs (tests/reference/test_s31_wavelet_reference.py) found. The values and
messages are torch 2.13's, written as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

W = mt.signal.windows


def test_cosine_windows_in_torchs_order_of_operations():
    # cos(.) (-beta) + alpha, torch's float64 bits
    assert mt.hann_window(7, periodic=False, dtype=mt.float64).tolist() == [
        0.0, 0.24999999999999994, 0.7499999999999999, 1.0, 0.7500000000000002,
        0.25000000000000033, 0.0,
    ]  # fmt: skip
    assert mt.hamming_window(7, False, dtype=mt.float64).tolist() == [
        0.08000000000000002, 0.30999999999999994, 0.7699999999999999, 1.0, 0.7700000000000002,
        0.31000000000000033, 0.08000000000000002,
    ]  # fmt: skip
    assert mt.hann_window(6, periodic=False, dtype=mt.float64).tolist() == [
        0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264, 0.0,
    ]  # fmt: skip
    assert mt.hamming_window(4, True, 0.6, 0.4, dtype=mt.float64).tolist() == [
        0.19999999999999996, 0.6, 1.0, 0.6000000000000001,
    ]  # fmt: skip


def test_bartlett_window_is_torchs_rising_then_falling_ramp():
    # 2 n / (N - 1), then 2 minus that past the middle, in the window's dtype
    assert mt.bartlett_window(7).tolist() == [
        0.0, 0.2857142984867096, 0.5714285969734192, 0.8571429252624512, 0.8571428060531616,
        0.5714285373687744, 0.28571414947509766,
    ]  # fmt: skip
    assert mt.bartlett_window(6, periodic=False, dtype=mt.float64).tolist() == [
        0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999, 0.0,
    ]  # fmt: skip


_GRADIENT_FORMS = (
    " * (Tensor input, *, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, Number spacing = None, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Scalars spacing, tuple of ints dim, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, int dim = None, int edge_order = 1)\n"
    " * (Tensor input, *, tuple of Tensors spacing, tuple of ints dim, int edge_order = 1)\n"
)


def test_gradient_refuses_a_bare_coordinates_tensor_as_torchs_parser():
    x = mt.arange(4.0)
    with pytest.raises(TypeError) as e:
        mt.gradient(x, spacing=mt.arange(4.0))
    assert str(e.value) == (
        "gradient() received an invalid combination of arguments - got (Tensor, "
        "spacing=Tensor), but expected one of:\n" + _GRADIENT_FORMS
    )
    with pytest.raises(TypeError) as e:
        mt.gradient(x, spacing=mt.arange(4.0), dim=0)
    assert str(e.value).startswith(
        "gradient() received an invalid combination of arguments - got (Tensor, dim=int, "
        "spacing=Tensor), but"
    )
    # a tuple of coordinates and a 0-d spacing are taken
    assert mt.gradient(x**2, spacing=(mt.arange(4.0) * 2,))[0].tolist() == [0.5, 1.0, 2.0, 2.5]
    assert mt.gradient(x**2, spacing=mt.tensor(2.0))[0].tolist() == [0.5, 1.0, 2.0, 2.5]


@pytest.mark.parametrize(
    "name, M, grad_fn",
    [
        ("hann", 6, "SumBackward1"),
        ("nuttall", 6, "SumBackward1"),
        ("bartlett", 6, "RsubBackward1"),
        ("cosine", 6, "SinBackward0"),
        ("gaussian", 6, "ExpBackward0"),
        ("exponential", 6, "ExpBackward0"),
        ("kaiser", 6, "DivBackward0"),
        ("cosine", 1, "SinBackward0"),
        ("gaussian", 1, "ExpBackward0"),
        ("exponential", 1, "ExpBackward0"),
        ("hann", 1, None),
        ("kaiser", 1, None),
        ("cosine", 0, None),
    ],
)
def test_signal_windows_with_requires_grad_are_their_last_ops_output(name, M, grad_fn):
    w = getattr(W, name)(M, sym=False, requires_grad=True)
    assert w.requires_grad
    assert (None if w.grad_fn is None else type(w.grad_fn).__name__) == grad_fn
    assert w.is_leaf == (grad_fn is None)


def test_a_signal_window_requiring_grad_takes_in_place_writes():
    w = W.hann(4, dtype=mt.float64, requires_grad=True)
    w[0] = 0.5  # a leaf would refuse this; torch's window is not one
    w.retain_grad()
    (w * mt.arange(4.0, dtype=mt.float64)).sum().backward()
    assert w.grad.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert w.tolist() == pytest.approx([0.5, 0.7499999999999999, 0.7499999999999998, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert W.kaiser(5, requires_grad=True).grad is None  # a non-leaf's .grad


_WINDOW_FORMS = (
    " * (int window_length, *, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (int window_length, bool periodic, *, torch.dtype dtype = None, torch.layout layout = "
    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


def test_window_factories_take_their_options_by_keyword_only():
    with pytest.raises(TypeError) as e:
        mt.hann_window(8, False, mt.float64)
    assert str(e.value) == (
        "hann_window() received an invalid combination of arguments - got (int, bool, "
        "torch.dtype), but expected one of:\n" + _WINDOW_FORMS
    )
    with pytest.raises(TypeError) as e:
        mt.kaiser_window(5, False, 1.0, 2.0)
    assert str(e.value).startswith(
        "kaiser_window() received an invalid combination of arguments - got (int, bool, float, "
        "float), but expected one of:\n" + _WINDOW_FORMS
    )
    assert str(e.value).endswith(
        " * (int window_length, bool periodic, float beta, *, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
        "bool requires_grad = False)\n"
    )


def test_pad_unpacks_the_elements_after_the_first_as_torchs_parser():
    x = mt.ones(1, 1, 4)
    with pytest.raises(TypeError) as e:
        mt.nn.functional.pad(x, (1, 1, 2.0, 1))
    assert str(e.value) == (
        "pad(): argument 'pad' failed to unpack the object at pos 3 with error \"type must be "
        'tuple of ints,but got float"'
    )
    with pytest.raises(TypeError) as e:
        mt.nn.functional.pad(x, (1.5, 1))
    assert str(e.value) == (
        "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
        "float at pos 0"
    )
    # a later bool or one-element integer tensor is read as its int
    assert mt.nn.functional.pad(x, (1, True)).tolist() == [[[0.0, 1.0, 1.0, 1.0, 1.0, 0.0]]]
    assert mt.nn.functional.pad(x, (0, mt.tensor([2]))).shape == (1, 1, 6)
