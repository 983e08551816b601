"""Session 35 (helper stable): torch-free regression tests of the library fixes the numerical-
stability programs of tests/reference/test_s35_stable_reference.py found: einsum's (and
tensordot's) contraction no longer lets NumPy's overflow RuntimeWarning out of its einsumfunc
module; var/std reducing to one float32 element take the mean in float32, as torch's CPU kernel
(std_var_all_cpu), while var_mean/std_mean keep the double mean of torch's Welford kernel; two
numbers given to xlogy, special.xlog1py, special.zeta and float_power give torch's list of
overloads. torch's values and messages are written here as literals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


# --- einsum: no NumPy warning from outside minitorch's filter ---


@pytest.mark.parametrize(
    "call",
    [
        lambda x: mt.einsum("ij,kj->ik", x, x),
        lambda x: mt.einsum("i,i,i->", x[0], x[0], x[1]),
        lambda x: mt.einsum("i,j->ij", x[0], x[1]),
        lambda x: mt.tensordot(x, x, dims=([1], [1])),
    ],
)
@pytest.mark.parametrize("dtype", [mt.float32, mt.bfloat16])
def test_einsum_overflow_is_silent(call, dtype):
    x = mt.tensor([[3e19, 3e19], [3e19, 6e19]], dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # (shows even the kernels' filtered warnings)
        out = call(x)
    assert [str(w.message) for w in caught] == []
    assert out.dtype is dtype
    assert bool(mt.isinf(out).all())


def test_einsum_overflow_gradient_is_silent():
    x = mt.tensor([[1.0, 1.0], [1.0, 2.0]], requires_grad=True)
    y = mt.full((2, 2), 3e29)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.einsum("ij,kj->ik", x, y).backward(mt.full((2, 2), 1e10))  # 2 * 1e10 * 3e29: inf
    assert [str(w.message) for w in caught] == []
    assert x.grad.tolist() == [[math.inf, math.inf], [math.inf, math.inf]]


# --- var/std of one output: torch's two-pass kernel with a float32 mean ---

# sums exact in float32, the mean 10000.0104166... not: torch's var takes it rounded to float32
_ROUNDED = [1e4, 1e4 + 2**-6, 1e4 + 2**-6]


@pytest.mark.parametrize(
    "fn, want",
    [
        (lambda x: x.var(), 8.153915405273438e-05),
        (lambda x: x.std(), 0.009029903449118137),
        (lambda x: mt.var(x, correction=0), 5.435943603515625e-05),
        (lambda x: x.view(1, 3).var(1), 8.153915405273438e-05),
        (lambda x: x.view(3, 1).std(0, keepdim=True), 0.009029903449118137),
        (lambda x: x.view(1, 3).var((0, 1)), 8.153915405273438e-05),
        # torch's Welford kernel (var_mean, std_mean, several outputs): the double mean
        (lambda x: mt.var_mean(x)[0], 8.138021075865254e-05),
        (lambda x: mt.std_mean(x)[0], 0.009021097794175148),
        (lambda x: mt.stack([x, x]).var(1), 8.138021075865254e-05),
        (lambda x: x.double().var(), 8.138020833333334e-05),
    ],
)
def test_var_one_output_takes_a_float32_mean(fn, want):
    out = fn(mt.tensor(_ROUNDED))
    np.testing.assert_allclose(out.float().numpy().reshape(-1), want, rtol=1e-6)


def test_var_of_an_overflowing_float32_sum_is_inf():
    x = mt.tensor([3e38, 3e38])
    assert math.isinf(x.var().item())
    assert math.isinf(x.std().item())
    assert x.view(1, 2).expand(2, 2).var(1).tolist() == [0.0, 0.0]
    assert mt.var_mean(x)[0].item() == 0.0


def test_var_std_one_output_gradients():
    gen = mt.Generator().manual_seed(35)
    x = (mt.randn(7, generator=gen, dtype=mt.float64) + 1e3).requires_grad_(True)
    for fn in (lambda t: t.var(), lambda t: t.std(), lambda t: t.std(correction=0)):
        assert mt.autograd.gradcheck(fn, (x,))
        assert mt.autograd.gradgradcheck(fn, (x,))


# --- two numbers: torch's list of overloads ---

_FORMS = (
    " * (Tensor input, Tensor {o}, *, Tensor out = None)\n"
    " * (Number self, Tensor {o}, *, Tensor out = None)\n"
    " * (Tensor input, Number {o}, *, Tensor out = None)\n"
)


@pytest.mark.parametrize(
    "fn, op, got, other",
    [
        (lambda: mt.xlogy(2, 3), "xlogy", "int, int", "other"),
        (lambda: mt.special.xlog1py(2, 3), "special_xlog1py", "int, int", "other"),
        (lambda: mt.special.zeta(2.0, 3), "special_zeta", "float, int", "other"),
        (lambda: mt.float_power(2, 3), "float_power", "int, int", "exponent"),
        (lambda: mt.float_power(2, "a"), "float_power", "int, str", "exponent"),
    ],
)
def test_two_numbers_list_the_overloads(fn, op, got, other):
    want = (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n" + _FORMS.format(o=other)
    )
    assert _message(TypeError, fn) == want


def test_remainder_of_two_numbers_lists_the_overloads():
    assert _message(TypeError, lambda: mt.remainder(2, 3)) == (
        "remainder() received an invalid combination of arguments - got (int, int), but "
        "expected one of:\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Number self, Tensor other)\n"
        "      didn't match because some of the arguments have invalid types: (!int!, !int!)\n"
        " * (Tensor input, Number other, *, Tensor out = None)\n"
    )


def test_var_mean_of_a_0d_tensor_along_its_dim():
    # one output through var_mean's Welford route: a 0-d input (whose deviations are a NumPy
    # scalar) gives torch's values, nan with the default correction
    for dt in (mt.float64, mt.float32, mt.float16):
        x = mt.tensor(2.5, dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s, m = mt.std_mean(x, dim=(0,))
            v, m0 = mt.var_mean(x, dim=0, correction=0)
        assert math.isnan(s.item()) and m.item() == 2.5 and s.dtype == dt
        assert v.item() == 0.0 and m0.item() == 2.5 and v.shape == ()
