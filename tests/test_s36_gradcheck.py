"""Session 36 (helper gradcheck): torch-free regression tests of the library fixes the programs
of tests/reference/test_s36_gradcheck_reference.py found: gradcheck's negative tolerances
(torch.allclose's RuntimeError, fast mode's scaled atol), fast mode's NaN comparison, the
forward-mode fast check's atol scaled by sum(u), check_batched_grad's grad_outputs drawn from
the default stream, eps=0 without NumPy's warning; assert_close's RuntimeError for a negative
tolerance (torch's pair repr), its two passes (structural errors before value mismatches) and
its ValueError naming the item. torch's messages and numbers are written here as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt
from minitorch.autograd.gradcheck import GradcheckError

gradcheck = mt.autograd.gradcheck


def _x(values=(1.0, 2.0)):
    return mt.tensor(list(values), dtype=mt.float64, requires_grad=True)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _cube(t):
    return t**3


_FWD = dict(check_forward_ad=True, check_backward_ad=False)


@pytest.mark.parametrize(
    "kwargs, name, got",
    [
        (dict(atol=-1.0), "atol", "-1"),
        (dict(rtol=-0.5), "rtol", "-0.5"),
        (dict(rtol=-0.5, fast_mode=True), "rtol", "-0.5"),
        # fast mode: atol * sum(u) * sum(v), u and v from torch's fresh generator
        (dict(atol=-1.0, fast_mode=True), "atol", "-1.75904"),
        (dict(atol=-0.25, **_FWD), "atol", "-0.25"),
        (dict(atol=-0.25, fast_mode=True, **_FWD), "atol", "-0.312262"),
    ],
)
def test_gradcheck_negative_tolerance_is_allclose_error(kwargs, name, got):
    msg = _message(RuntimeError, lambda: gradcheck(_cube, (_x(),), **kwargs))
    assert msg == f"{name} must be greater than or equal to zero, but got {got}"


def test_gradcheck_negative_tolerance_read_only_when_comparing():
    # no differentiable output: nothing is compared, the zero-Jacobian check answers
    msg = _message(GradcheckError, lambda: gradcheck(lambda t: (t * 2).detach(), (_x(),), atol=-1))
    assert msg == "Numerical gradient for function expected to be zero"


def test_gradcheck_fast_mode_nan_fails():
    msg = _message(
        GradcheckError, lambda: gradcheck(lambda t: t * float("nan"), (_x(),), fast_mode=True)
    )
    assert msg.startswith(
        "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:nan\nanalytical:nan\n"
    )
    assert not gradcheck(lambda t: t.exp(), (_x(),), eps=0.0, fast_mode=True, raise_exception=False)


def test_gradcheck_eps_zero_gives_no_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        msg = _message(GradcheckError, lambda: gradcheck(lambda t: t.exp(), (_x(),), eps=0.0))
    assert msg.startswith(
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[nan, nan],\n        [nan, nan]], dtype=torch.float64)\n"
    )


class _ZeroWithOffsetJvp(mt.autograd.Function):
    """A zero function whose jvp is off by 1.5e-5: within fast mode's atol * sum(u), outside
    slow mode's atol on the zero entries."""

    @staticmethod
    def forward(ctx, x):
        return x * 0

    @staticmethod
    def backward(ctx, g):
        return g * 0

    @staticmethod
    def jvp(ctx, t):
        return t * 0 + 1.5e-5


def test_gradcheck_forward_fast_mode_scales_atol():
    x = _x((1.0, 2.0, 3.0, 4.0))
    forward = dict(check_forward_ad=True, check_backward_ad=False)
    assert gradcheck(_ZeroWithOffsetJvp.apply, (x,), fast_mode=True, **forward)
    msg = _message(GradcheckError, lambda: gradcheck(_ZeroWithOffsetJvp.apply, (x,), **forward))
    assert msg.startswith("Jacobian computed with forward mode mismatch for output 0")


def test_gradcheck_batched_grad_draws_from_default_stream():
    mt.manual_seed(0)
    assert gradcheck(lambda t: t.sin(), (_x(),), check_batched_grad=True)
    # torch draws randn_like(output) twice; the next draws are torch's
    after = mt.rand(2, dtype=mt.float64).tolist()
    assert after == pytest.approx([0.6450241201227648, 0.7911478921803037], abs=1e-15)


# --- assert_close ---

_UNEXPECTED_TAIL = (
    "resulted in the unexpected exception above. If you are a user and see this message during "
    "normal operation please file an issue at https://github.com/pytorch/pytorch/issues. If you "
    "are a developer and working on the comparison functions, please except the previous error "
    "and raise an expressive `ErrorMeta` instead."
)


def _pair(id_, actual, expected, rtol, atol, check_dtype=True):
    return (
        "Comparing\n\nTensorLikePair(\n"
        f"    id={id_},\n    actual={actual},\n    expected={expected},\n"
        f"    rtol={rtol},\n    atol={atol},\n    equal_nan=False,\n    check_device=True,\n"
        f"    check_dtype={check_dtype},\n    check_layout=True,\n    check_stride=False,\n)\n\n"
        + _UNEXPECTED_TAIL
    )


def test_assert_close_negative_tolerance_is_torch_runtime_error():
    ac = mt.testing.assert_close
    msg = _message(RuntimeError, lambda: ac(mt.ones(2), mt.ones(2), rtol=0, atol=-1, msg="x"))
    assert msg == _pair("()", "tensor([1., 1.])", "tensor([1., 1.])", 0, -1)
    msg = _message(
        RuntimeError,
        lambda: ac({"a": [mt.tensor([1, 2])]}, {"a": [mt.tensor([1, 2])]}, rtol=-1.0, atol=0.0),
    )
    assert msg == _pair("('a', 0)", "tensor([1, 2])", "tensor([1, 2])", -1.0, 0.0)
    # a later pair's error wins over an earlier pair's mismatch; numbers take no isclose
    actual, expected = [1.0, mt.zeros(2), mt.ones(1)], [2.0, mt.ones(2), mt.ones(1)]
    msg = _message(RuntimeError, lambda: ac(actual, expected, rtol=-1.0, atol=0.0))
    assert msg == _pair("(1,)", "tensor([0., 0.])", "tensor([1., 1.])", -1.0, 0.0)
    # attribute mismatches come first
    msg = _message(AssertionError, lambda: ac(mt.ones(2), mt.ones(3), rtol=-1.0, atol=0.0))
    assert msg.startswith("The values for attribute 'shape' do not match")


def test_assert_close_structure_before_values():
    ac = mt.testing.assert_close
    msg = _message(TypeError, lambda: ac([mt.ones(2), "a"], [mt.zeros(2), "a"]))
    assert msg == (
        "No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>."
        "\n\nThe failure occurred for item [1]"
    )
    msg = _message(AssertionError, lambda: ac([mt.ones(2), [1, 2]], [mt.zeros(2), [1]]))
    assert (
        msg == "The length of the sequences mismatch: 2 != 1\n\nThe failure occurred for item [1]"
    )
    # two value mismatches: the first is reported
    actual, expected = [mt.ones(2), mt.ones(3)], [mt.ones(2) * 2, mt.zeros(3)]
    msg = _message(AssertionError, lambda: ac(actual, expected))
    assert msg.endswith("The failure occurred for item [0]")
    assert "Mismatched elements: 2 / 2 (100.0%)" in msg


def test_assert_close_rtol_without_atol_names_the_item():
    ac = mt.testing.assert_close
    text = "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
    assert _message(ValueError, lambda: ac(mt.ones(1), mt.ones(1), rtol=0.1)) == text
    msg = _message(ValueError, lambda: ac([mt.ones(1), "a"], [mt.ones(1), "a"], rtol=0.1))
    assert msg == text + "\n\nThe failure occurred for item [0]"
    assert _message(ValueError, lambda: ac([1.0], [1.0], rtol=0.1)).endswith("item [0]")
    ac(None, None, rtol=0.1)  # no pair reads the tolerances


def test_gradcheck_bfloat16_jacobians_keep_the_dtype():
    x = mt.tensor([1.0, 2.0], dtype=mt.bfloat16, requires_grad=True)
    y = _x()
    numerical = (
        "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 3.9375]], dtype=torch.bfloat16)\n"
    )
    with pytest.warns(UserWarning, match="Input #0 requires gradient"):
        msg = _message(
            GradcheckError, lambda: gradcheck(lambda t: t * t.detach(), (x,), eps=0.125, atol=0.1)
        )
    assert msg == (
        "Jacobian mismatch for output 0 with respect to input 0,\n" + numerical + "analytical:"
        "tensor([[1., 0.],\n        [0., 2.]], dtype=torch.bfloat16)\n"
    )
    # a bfloat16 output of a float64 input: differenced, not skipped
    msg = _message(
        GradcheckError,
        lambda: gradcheck(lambda t: (t * t.detach()).bfloat16(), (y,), eps=0.125, atol=0.1),
    )
    assert msg == (
        "Jacobian mismatch for output 0 with respect to input 0,\n" + numerical + "analytical:"
        "tensor([[1., 0.],\n        [0., 2.]], dtype=torch.float64)\n"
    )


def test_gradcheck_perturbed_output_messages_name_torch_types():
    x = mt.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mt.float64, requires_grad=True)
    msg = _message(AssertionError, lambda: gradcheck(lambda t: t[t > 2.0000001], (x,)))
    assert msg == (
        "Expected `func` to return outputs with the same shape when inputs are perturbed on index "
        "(0, 1) by 1e-06, but got: shapes torch.Size([2]) and torch.Size([3])."
    )
    switch = lambda t: t.float() if t[0, 0] > 1 else t  # noqa: E731
    msg = _message(AssertionError, lambda: gradcheck(switch, (x,), fast_mode=True))
    assert msg == (
        "Expected `func` to return outputs with the same dtype when inputs are perturbed by 1e-06, "
        "but got: dtypes torch.float64 and torch.float32."
    )


def test_gradcheck_fast_mode_empty_input_is_a_zero_direction():
    # a deliberate difference (see gradcheck's docstring): NaN outputs of an empty input are
    # not differenced in fast mode; the NaN comparison above still fails real NaNs
    x = mt.zeros(0, 3, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: t.mean(0), (x,), fast_mode=True)
    assert gradcheck(lambda t: t.mean(0), (x,))
