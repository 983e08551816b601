"""Session 32 (helper causal): torch-free regression tests of the library fixes the causal-inference
programs of tests/reference/test_s32_causal_reference.py found: the dtype errors of the binary
cross-entropy losses, of bernoulli_ with an integer probability tensor and of the special
functions without half-precision kernels, bernoulli's p printed as torch prints it, and the
argument-parser errors of std/var with both unbiased= and correction= and of where with a
missing operand (torch's messages, written here as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F


def _raises(kind, fn, message):
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == message


# --- binary cross entropy of integer and bool inputs ---


@pytest.mark.parametrize("dtype, name", [(mt.int64, "Long"), (mt.uint8, "Byte"), (mt.bool, "Bool")])
def test_bce_refuses_integer_inputs_with_torchs_kernel_error(dtype, name):
    x = mt.tensor([0, 1, 1]).to(dtype)
    bce = f"\"binary_cross_entropy\" not implemented for '{name}'"
    _raises(NotImplementedError, lambda: F.binary_cross_entropy(x, x), bce)
    _raises(NotImplementedError, lambda: mt.nn.BCELoss(reduction="none")(x, x), bce)
    _raises(NotImplementedError, lambda: F.binary_cross_entropy(x[:0], x[:0]), bce)
    # the target's dtype is checked first
    _raises(
        RuntimeError,
        lambda: F.binary_cross_entropy(x, x.float()),
        f"Found dtype Float but expected {name}",
    )
    logsig = f"\"log_sigmoid_cpu\" not implemented for '{name}'"
    for target in (x, x.long(), x.float(), x.bool()):
        _raises(
            NotImplementedError,
            lambda target=target: F.binary_cross_entropy_with_logits(x, target),
            logsig,
        )
    _raises(
        NotImplementedError,
        lambda: F.binary_cross_entropy_with_logits(x, x.double(), pos_weight=mt.ones(3)),
        logsig,
    )
    # the size check comes first
    _raises(
        ValueError,
        lambda: F.binary_cross_entropy_with_logits(x, x[:2]),
        "Target size (torch.Size([2])) must be the same as input size (torch.Size([3]))",
    )


def test_bce_kernel_error_comes_after_the_weight_broadcast_and_before_the_range():
    x = mt.tensor([2, 0])
    _raises(
        NotImplementedError,
        lambda: F.binary_cross_entropy(x, x),
        "\"binary_cross_entropy\" not implemented for 'Long'",
    )
    _raises(
        RuntimeError,
        lambda: F.binary_cross_entropy(x, x, weight=mt.ones(3)),
        "Attempting to broadcast a dimension of length 3 at -1! Mismatching argument at index 1 "
        "had torch.Size([3]); but expected shape should be broadcastable to [2]",
    )
    # float logits with integer targets keep their error
    _raises(
        RuntimeError,
        lambda: F.binary_cross_entropy_with_logits(mt.zeros(2), x),
        "result type Float can't be cast to the desired output type Long",
    )


# --- bernoulli ---


@pytest.mark.parametrize(
    "p, shown",
    [(2.0, "2"), (1.5, "1.5"), (-0.25, "-0.25"), (1e20, "1e+20"), (3, "3"), (1.0000001, "1"),
     (-1e-7, "-1e-07")],
)  # fmt: skip
def test_bernoulli_prints_p_as_torch(p, shown):
    message = f"bernoulli_ expects p to be in [0, 1], but got p={shown}"
    _raises(RuntimeError, lambda: mt.zeros(2).bernoulli_(p), message)
    _raises(RuntimeError, lambda: mt.bernoulli(mt.zeros(2), p), message)


@pytest.mark.parametrize("dtype, name", [(mt.int64, "Long"), (mt.uint8, "Byte"), (mt.bool, "Bool")])
def test_bernoulli_refuses_an_integer_probability_tensor(dtype, name):
    message = f"\"bernoulli_tensor_cpu_p_\" not implemented for '{name}'"
    p = mt.ones(3, dtype=dtype)
    _raises(NotImplementedError, lambda: mt.zeros(3).bernoulli_(p), message)
    _raises(NotImplementedError, lambda: mt.zeros(3, dtype=mt.int64).bernoulli_(p), message)
    _raises(NotImplementedError, lambda: mt.zeros(3).bernoulli_(p[0].clone()), message)
    # the expand comes first; nothing to draw, nothing refused
    with pytest.raises(RuntimeError, match="expanded size"):
        mt.zeros(3).bernoulli_(p[:2])
    assert mt.zeros(0).bernoulli_(p[:0]).shape == (0,)
    assert mt.zeros(0).bernoulli_(p[:1]).shape == (0,)
    out = mt.zeros(3).bernoulli_(mt.ones(3, dtype=mt.half))
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0, 1.0])


# --- std / var with both unbiased= and correction= ---

STD_METHOD = (
    "std() received an invalid combination of arguments - got (correction=int, unbiased=bool, ), "
    "but expected one of:\n"
    " * (tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
    " * (tuple of ints dim = None, *, Number correction = None, bool keepdim = False)\n"
    " * (bool unbiased = True)\n"
)
STD_MEAN = (
    "std_mean() received an invalid combination of arguments - got (Tensor, correction=int, "
    "unbiased=bool), but expected one of:\n"
    " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
    " * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = "
    "False)\n"
    " * (Tensor input, bool unbiased = True)\n"
)


def test_std_with_unbiased_and_correction_is_torchs_parser_error():
    w = mt.ones(5)
    _raises(TypeError, lambda: w.std(unbiased=True, correction=1), STD_METHOD)
    _raises(TypeError, lambda: mt.std_mean(w, unbiased=True, correction=1), STD_MEAN)
    _raises(
        TypeError,
        lambda: w.var(unbiased=True, correction=1.5),
        STD_METHOD.replace("std()", "var()").replace("correction=int", "correction=float"),
    )


# --- where with a missing operand ---

WHERE_FORMS = (
    " * (Tensor condition)\n"
    " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
    " * (Tensor condition, Number self, Tensor other)\n"
    " * (Tensor condition, Tensor input, Number other)\n"
    " * (Tensor condition, Number self, Number other)\n"
)


def _where_message(got, forms=WHERE_FORMS):
    return (
        f"where() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{forms}"
    )


def test_where_with_a_missing_operand_is_torchs_parser_error():
    c, y = mt.tensor([True, False]), mt.ones(2)
    _raises(TypeError, lambda: mt.where(c, y), _where_message("Tensor, Tensor"))
    _raises(TypeError, lambda: mt.where(c, other=y), _where_message("Tensor, other=Tensor"))
    _raises(TypeError, lambda: mt.where(c, input=y), _where_message("Tensor, input=Tensor"))
    _raises(TypeError, lambda: mt.where(c, None), _where_message("Tensor, NoneType"))
    _raises(TypeError, lambda: mt.where(c, out=y), _where_message("Tensor, out=Tensor"))
    method_forms = " * (Tensor condition, Tensor other)\n * (Tensor condition, Number other)\n"
    _raises(TypeError, lambda: y.where(c), _where_message("Tensor", method_forms))
    # an explicit None is an argument of the wrong type, not a missing one
    with pytest.raises(TypeError, match=r"got \(Tensor, NoneType, NoneType\)"):
        mt.where(c, None, None)
    with pytest.raises(TypeError, match=r"got \(Tensor, NoneType\), .*\n.*\n.*!NoneType!"):
        y.where(c, None)
    np.testing.assert_array_equal(mt.where(c)[0].numpy(), [0])
    np.testing.assert_array_equal(y.where(c, other=2.0).numpy(), [1.0, 2.0])


# --- special functions without half-precision kernels ---


@pytest.mark.parametrize("dtype, name", [(mt.float16, "Half"), (mt.bfloat16, "BFloat16")])
@pytest.mark.parametrize(
    "fn, kernel",
    [
        (mt.special.ndtri, "ndtri_cpu"),
        (mt.special.log_ndtr, "log_ndtr_cpu"),
        (mt.special.erfcx, "erfcx_cpu"),
        (mt.special.bessel_j0, "bessel_j0_cpu"),
        (mt.special.bessel_j1, "bessel_j1_cpu"),
        (mt.special.spherical_bessel_j0, "spherical_bessel_j0_cpu"),
    ],
)
def test_special_functions_without_half_kernels_refuse_half(fn, kernel, dtype, name):
    x = mt.tensor([0.25, 0.5], dtype=dtype)
    _raises(NotImplementedError, lambda: fn(x), f"\"{kernel}\" not implemented for '{name}'")
    assert fn(x.float()).dtype is mt.float32
    assert fn(mt.tensor([1, 2])).dtype is mt.float32  # integers still promote


def test_ndtr_keeps_its_half_kernel():
    x = mt.tensor([0.25, 1.0], dtype=mt.float16)
    assert mt.special.ndtr(x).dtype is mt.float16
    np.testing.assert_allclose(
        mt.special.ndtri(mt.tensor([0.025, 0.5], dtype=mt.float64)).numpy(),
        [-1.959963984540054, 0.0],
        rtol=1e-12,
    )
