"""Session 37 (helper imputation): torch-free regression tests of the library fixes the
missing-data programs of tests/reference/test_s37_imputation_reference.py found: nansum's and
nan_to_num's nodes answer torch's grad_fn._saved_* (nan_to_num now saves its input, so an
in-place change of it refuses the backward, and multiplies by the finite mask, so an infinite
upstream gradient gives NaN, as torch's); fmax/fmin and the nansum/nanmean/nan_to_num methods
raise torch's parser wording for missing or extra positional arguments. torch's messages are
written here as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

NAN, INF = math.nan, math.inf


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _x():
    return mt.tensor([[NAN, 1.0, -2.0], [3.0, INF, 0.5]], dtype=mt.float64, requires_grad=True)


@pytest.mark.parametrize(
    "call, dim, keepdim",
    [
        (lambda x: x.nansum(), None, False),
        (lambda x: x.nansum(-1), (2**64 - 1,), False),
        (lambda x: mt.nansum(x, (0, -1), keepdim=True), (0, 2**64 - 1), True),
        (lambda x: x.nansum([1]), (1,), False),
        (lambda x: x.nansum(dim=None, keepdim=True), None, True),
    ],
)
def test_nansum_saved_attributes(call, dim, keepdim):
    x = _x()
    node = call(x).grad_fn
    assert type(node).__name__ == "NansumBackward0"
    names = [k for k in dir(node) if k.startswith("_saved_")]
    assert names == ["_saved_dim", "_saved_keepdim", "_saved_self"]
    assert node._saved_self is x
    assert node._saved_dim == dim
    assert node._saved_keepdim is keepdim


def test_nan_to_num_saved_self():
    x = _x()
    node = x.nan_to_num(nan=1.0).grad_fn
    assert [k for k in dir(node) if k.startswith("_saved_")] == ["_saved_self"]
    assert node._saved_self is x


MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.DoubleTensor [2, 3]], which is output 0 of Add, is at version 1; "
    "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
    "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
    "check_nan=False)."
)


@pytest.mark.parametrize("op", ["nan_to_num", "nansum"])
def test_modified_input_refuses_backward(op):
    a = _x() * 2.0
    y = getattr(a, op)()
    a.add_(1.0)
    msg = _message(RuntimeError, lambda: y.sum().backward())
    assert msg == MODIFIED.replace("torch", "minitorch") or msg == MODIFIED


def test_nan_to_num_backward_is_a_product():
    # torch: grad * isfinite(self), so an infinite upstream gradient at a replaced entry is NaN
    s = mt.tensor([1.5, NAN, -INF, INF, 0.0], dtype=mt.float64, requires_grad=True)
    g = mt.autograd.grad(s.nan_to_num(posinf=1e300, neginf=-1e300).exp().sum(), s)[0]
    np.testing.assert_array_equal(g.numpy(), [math.exp(1.5), 0.0, 0.0, NAN, 1.0])
    g = mt.autograd.grad(s.nan_to_num().pow(2).sum(), s, create_graph=True)[0]
    np.testing.assert_array_equal(g.detach().numpy(), [3.0, 0.0, NAN, NAN, 0.0])
    gg = mt.autograd.grad(g.nansum(), s)[0]
    np.testing.assert_array_equal(gg.numpy(), [2.0, 0.0, 0.0, 0.0, 2.0])
    # a negative upstream gradient gives -0. at the replaced entries, as torch's product
    g = mt.autograd.grad(s.nan_to_num(), s, -mt.ones(5, dtype=mt.float64))[0]
    assert np.signbit(g.numpy()).tolist() == [True] * 5


def test_nan_to_num_gradchecks():
    x = mt.tensor([[0.3, NAN], [NAN, -1.2]], dtype=mt.float64, requires_grad=True)

    def fn(t):
        return mt.nan_to_num(t, nan=0.5) * t.nan_to_num()

    assert mt.autograd.gradcheck(fn, (x,))
    assert mt.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x: mt.fmax(x), 'fmax() missing 1 required positional arguments: "other"'),
        (lambda x: mt.fmin(x), 'fmin() missing 1 required positional arguments: "other"'),
        (lambda x: mt.fmax(), 'fmax() missing 2 required positional argument: "input", "other"'),
        (lambda x: mt.fmin(x, x, x), "fmin() takes 2 positional arguments but 3 were given"),
        (lambda x: x.fmax(), 'fmax() missing 1 required positional arguments: "other"'),
        (lambda x: x.fmin(), 'fmin() missing 1 required positional arguments: "other"'),
        (lambda x: x.fmax(x, x), "fmax() takes 1 positional argument but 2 were given"),
        (
            lambda x: mt.fmax(x, 2.0),
            "fmax(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda x: x.nan_to_num(1.0, 2.0, 3.0, 4.0),
            "nan_to_num() takes from 0 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: x.nan_to_num_(1.0, 2.0, 3.0, 4.0),
            "nan_to_num_() takes from 0 to 3 positional arguments but 4 were given",
        ),
        (
            lambda x: x.nansum(0, False, mt.float64, 5),
            "nansum() takes from 0 to 2 positional arguments but 4 were given",
        ),
        (
            lambda x: x.nanmean(0, False, mt.float64),
            "nanmean() takes from 0 to 2 positional arguments but 3 were given",
        ),
    ],
)
def test_argument_errors(call, message):
    x = mt.tensor([1.0, NAN])
    assert _message(TypeError, lambda: call(x)) == message


def test_fmax_fmin_and_methods_still_work():
    a = mt.tensor([1.0, NAN, 3.0, NAN])
    b = mt.tensor([2.0, 0.5, NAN, NAN])
    np.testing.assert_array_equal(mt.fmax(a, b).numpy(), [2.0, 0.5, 3.0, NAN])
    np.testing.assert_array_equal(a.fmin(b).numpy(), [1.0, 0.5, 3.0, NAN])
    np.testing.assert_array_equal(a.nan_to_num(0.0, 1.0, -1.0).numpy(), [1.0, 0.0, 3.0, 0.0])
    np.testing.assert_array_equal(a.view(2, 2).nansum(1, True).numpy(), [[1.0], [3.0]])
    np.testing.assert_array_equal(a.view(2, 2).nanmean(0, False).numpy(), [2.0, NAN])
