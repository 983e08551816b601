"""Session 33 (helper calib): torch-free regression tests of the library fixes the uncertainty
and calibration programs of tests/reference/test_s33_calib_reference.py found: quantile's and
nanquantile's parser TypeError for a keyword they have not (NumPy's method=) and for more than
four positional arguments; bucketize's for searchsorted's side= and for right given by
position; dropout's drop rate read as a double (a float32 number or a 0-d tensor p draws
torch's scalar-p mask and scales by the double 1 / (1 - p)); binary_cross_entropy's range
error naming the tensor of the first element out of [0, 1], as torch's element-wise kernel
does; histogram's parser TypeErrors (a density that is no bool, range by position, a weight or
input that is no tensor, unknown keywords, a range item that is no number); linspace's for
NumPy's num=. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


_Q_FORMS = (
    " * (Tensor input, Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "
    '"linear", Tensor out = None)\n'
    " * (Tensor input, float q, int dim = None, bool keepdim = False, *, str interpolation = "
    '"linear", Tensor out = None)\n'
)
_Q_METHOD_FORMS = (
    ' * (Tensor q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
    ' * (float q, int dim = None, bool keepdim = False, *, str interpolation = "linear")\n'
)
X = mt.rand(10, generator=mt.Generator().manual_seed(0), dtype=mt.float64)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: mt.quantile(X, 0.5, method="higher"),
            "quantile() received an invalid combination of arguments - got (Tensor, float, "
            "method=str), but expected one of:\n" + _Q_FORMS,
        ),
        (
            lambda: X.quantile(0.5, method="higher"),
            "quantile() received an invalid combination of arguments - got (float, method=str), "
            "but expected one of:\n" + _Q_METHOD_FORMS,
        ),
        (
            lambda: mt.nanquantile(X, 0.5, 0, method="x", foo=2),
            "nanquantile() received an invalid combination of arguments - got (Tensor, float, "
            "int, foo=int, method=str), but expected one of:\n" + _Q_FORMS,
        ),
        (
            lambda: mt.quantile(X, 0.5, 0, True, "linear"),
            "quantile() received an invalid combination of arguments - got (Tensor, float, int, "
            "bool, str), but expected one of:\n" + _Q_FORMS,
        ),
        (
            lambda: mt.quantile(X, 0.5, None, False, "linear", out=None),
            "quantile() received an invalid combination of arguments - got (Tensor, float, "
            "NoneType, bool, str, out=NoneType), but expected one of:\n" + _Q_FORMS,
        ),
        (
            lambda: X.nanquantile(0.5, 0, True, "lower"),
            "nanquantile() received an invalid combination of arguments - got (float, int, bool, "
            "str), but expected one of:\n" + _Q_METHOD_FORMS,
        ),
        (
            lambda: mt.quantile(X, [0.5], dim=None),
            "quantile() received an invalid combination of arguments - got (Tensor, list, "
            "dim=NoneType), but expected one of:\n" + _Q_FORMS,
        ),
    ],
)
def test_quantile_parser_errors(call, message):
    assert _message(TypeError, call) == message


def test_quantile_values_still_computed():
    got = mt.quantile(X, mt.tensor([0.1, 0.9], dtype=mt.float64), interpolation="higher")
    want = np.quantile(X.numpy(), [0.1, 0.9], method="higher")
    np.testing.assert_allclose(got.numpy(), want, rtol=0, atol=0)


_B_FORMS = (
    " * (Tensor input, Tensor boundaries, *, bool out_int32 = False, bool right = False, "
    "Tensor out = None)\n"
    " * (Number self, Tensor boundaries, *, bool out_int32 = False, bool right = False)\n"
)


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.bucketize(X, mt.tensor([0.2, 0.5]), side="right"), "Tensor, Tensor, side=str"),
        (
            lambda: mt.bucketize(0.3, mt.tensor([0.2, 0.5]), side="left", out_int32=True),
            "float, Tensor, out_int32=bool, side=str",
        ),
        (lambda: mt.bucketize(X, mt.tensor([0.2, 0.5]), True), "Tensor, Tensor, bool"),
        (
            lambda: mt.bucketize(0.5, mt.tensor([0.2]), True, right=True),
            "float, Tensor, bool, right=bool",
        ),
    ],
)
def test_bucketize_unknown_keyword_or_positional(call, got):
    message = _message(TypeError, call)
    assert message == (
        f"bucketize() received an invalid combination of arguments - got ({got}), but expected "
        "one of:\n" + _B_FORMS
    )


def _dropped(fn, seed=0):
    mt.manual_seed(seed)
    return fn(mt.ones(3, 4, dtype=mt.float64)).numpy()


@pytest.mark.parametrize(
    "p",
    [mt.tensor(0.3), np.float32(0.3), mt.tensor(0.3, dtype=mt.float64), np.float64(0.3)],
    ids=["tensor32", "np32", "tensor64", "np64"],
)
def test_dropout_reads_p_as_a_double(p):
    value = float(p)
    want = _dropped(lambda x: F.dropout(x, value, training=True))
    got = _dropped(lambda x: F.dropout(x, p, training=True))
    np.testing.assert_array_equal(got, want)  # the same mask: the scalar-p draw
    # the scale is the double 1 / (1 - p): torch's 1.4285714528998554 for float32 0.3
    assert set(np.unique(got)) <= {0.0, 1.0 / (1.0 - value)}
    alpha = _dropped(lambda x: F.alpha_dropout(x, p, training=True))
    np.testing.assert_array_equal(alpha, _dropped(lambda x: F.alpha_dropout(x, value, True)))
    feat = _dropped(lambda x: F.dropout2d(x[None, :, :, None], p, training=True))
    np.testing.assert_array_equal(
        feat, _dropped(lambda x: F.dropout2d(x[None, :, :, None], value, True))
    )


def test_dropout_float32_p_scale_literal():
    got = _dropped(lambda x: F.dropout(x, mt.tensor(0.3), training=True))
    kept = got[got != 0]
    assert kept.size and np.all(kept == 1.4285714528998554)


@pytest.mark.parametrize(
    "input, target, which",
    [
        ([0.5, 2.0], [2.0, 0.5], "target"),  # (the target's element comes first)
        ([0.5, 1.5], [0.5, 0.5], "input"),
        ([0.5, float("nan")], [0.5, 2.0], "input"),  # (the same element: the input's check first)
        ([[0.1, 0.2], [0.3, 1.2]], [[0.1, 0.2], [1.3, 0.2]], "target"),
        ([-0.1], [-0.1], "input"),
    ],
)
def test_binary_cross_entropy_names_the_first_element_out_of_range(input, target, which):
    x, y = mt.tensor(input), mt.tensor(target)
    message = _message(RuntimeError, lambda: F.binary_cross_entropy(x, y))
    assert message == f"all elements of {which} should be between 0 and 1"


_H_FORMS = (
    " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple of "
    "Tensors out = None)\n"
    " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, "
    "bool density = False, tuple of Tensors out = None)\n"
)
_H_METHOD_FORMS = (
    " * (Tensor bins, *, Tensor weight = None, bool density = False)\n"
    " * (int bins = 100, *, tuple of floats range = None, Tensor weight = None, bool density = "
    "False)\n"
)


@pytest.mark.parametrize(
    "call, got, forms",
    [
        (lambda: mt.histogram(X, density="yes"), "Tensor, density=str", _H_FORMS),
        (lambda: mt.histogram(X, 100, density=1), "Tensor, int, density=int", _H_FORMS),
        (lambda: mt.histogram(X, 10, (0.0, 1.0)), "Tensor, int, tuple", _H_FORMS),
        (lambda: X.histogram(10, (0.0, 1.0)), "int, tuple", _H_METHOD_FORMS),
        (lambda: X.histogram(density="a"), "density=str, ", _H_METHOD_FORMS),
        (lambda: mt.histogram([1.0], 3), "list, int", _H_FORMS),
        (lambda: mt.histogram(X, 3, weight=[1.0]), "Tensor, int, weight=list", _H_FORMS),
        (lambda: mt.histogram(X, 3, range=3), "Tensor, int, range=int", _H_FORMS),
        (
            lambda: mt.histogram(X, bins=3, range=(0.0, 1.0), side=1),
            "Tensor, side=int, range=tuple, bins=int",
            _H_FORMS,
        ),
        (
            lambda: mt.histogram(X, bins=3, range=None, density=None),
            "Tensor, density=NoneType, range=NoneType, bins=int",
            _H_FORMS,
        ),
    ],
)
def test_histogram_parser_errors(call, got, forms):
    message = _message(TypeError, call)
    assert message == (
        f"histogram() received an invalid combination of arguments - got ({got}), but expected "
        "one of:\n" + forms
    )


def test_histogram_range_item_and_values():
    message = _message(TypeError, lambda: mt.histogram(X, 3, range=(0, "a")))
    assert message == (
        "histogram(): argument 'range' must be tuple of floats, but found element of type str "
        "at pos 2"
    )
    hist, edges = X.histogram(4, range=(0.0, 1.0), density=True)
    want, want_edges = np.histogram(X.numpy(), 4, range=(0.0, 1.0), density=True)
    np.testing.assert_allclose(hist.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(edges.numpy(), want_edges, rtol=1e-12)


def test_linspace_numpy_keyword():
    message = _message(TypeError, lambda: mt.linspace(0, 1, num=11))
    assert message.startswith(
        "linspace() received an invalid combination of arguments - got (int, int, num=int), but "
        "expected one of:\n * (Tensor start, Tensor end, int steps, *, Tensor out = None, "
        "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
        "pin_memory = False, bool requires_grad = False)\n"
    )
    assert message.count("\n * (") == 4
    message = _message(TypeError, lambda: mt.linspace(0.0, 1.0, num=5, dtype=mt.float64))
    assert "got (float, float, dtype=torch.dtype, num=int)" in message
    np.testing.assert_array_equal(mt.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5, dtype="f4"))


@pytest.mark.parametrize(
    "q, shown", [(2.0, "2"), (1.5, "1.5"), (-0.25, "-0.25"), (3.0000001, "3"), (2, "2")]
)
def test_quantile_and_label_smoothing_print_numbers_as_torch(q, shown):
    """torch prints the double with C++'s default stream format (six significant digits)."""
    with pytest.raises(RuntimeError) as info:
        mt.quantile(mt.ones(3), q)
    assert str(info.value) == f"quantile() q must be in the range [0, 1] but got {shown}"
    if q < 0:  # a negative label_smoothing means none, in torch too
        return
    with pytest.raises(RuntimeError) as info:
        F.cross_entropy(mt.zeros(2, 3), mt.tensor([0, 1]), label_smoothing=q)
    assert str(info.value) == f"label_smoothing must be between 0.0 and 1.0. Got: {shown}"
