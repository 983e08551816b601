"""gradcheck and gradgradcheck: they pass correct gradients and catch wrong ones, like torch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import Function, GradcheckError, gradcheck, gradgradcheck


def _leaf(values, device, dtype="float64"):
    return mt.tensor(values, dtype=getattr(mt, dtype), device=device, requires_grad=True)


def _x(device):
    return _leaf([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]], device)


def _y(device):
    return _leaf([0.2, 1.1, -0.4], device)


class WrongSquare(Function):
    """forward x*x with a backward missing the factor 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


class DetachedSquare(Function):
    """x*x with a right first derivative whose own derivative is lost (x detached in backward)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 2 * x.detach()


class NoisyDouble(Function):
    """2x with a backward that adds tiny noise: right Jacobian, not reentrant."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * (2 + mt.rand(grad.shape, dtype=grad.dtype, device=grad.device) * 1e-9)


class NotLinearInGrad(Function):
    """2x whose backward is right for one-hot grad_outputs but not zero for a zero one."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 + (1 - grad.abs().sum())


def test_gradcheck_is_exported_like_torch():
    from minitorch.autograd.gradcheck import GradcheckError as direct

    assert direct is GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    assert mt.autograd.gradcheck is gradcheck


def test_passes_correct_gradients(device):
    def f(a, b):
        return (a * b).exp() / (b * b + 1), a.tanh() - b

    assert gradcheck(f, (_x(device), _y(device)))
    assert gradcheck(f, (_x(device), _y(device)), fast_mode=True)
    assert gradcheck(f, (_x(device), _y(device)), check_batched_grad=True)


def test_inputs_may_be_one_tensor_and_include_non_tensors(device):
    assert gradcheck(lambda a: a.sigmoid(), _x(device))
    assert gradcheck(lambda a, k, b: a * k + b, [_x(device), 3.0, mt.ones(3, device=device)])


def test_inputs_are_restored(device):
    x = _x(device)
    before = x.detach().cpu().numpy().copy()
    gradcheck(lambda a: a * a, (x,))
    gradcheck(lambda a: a * a, (x,), fast_mode=True)
    np.testing.assert_array_equal(x.detach().cpu().numpy(), before)
    assert x.grad is None


def test_wrong_gradient_raises_with_both_jacobians(device):
    x = _leaf([0.0, 1.0, 2.0], device)
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSquare.apply, (x,))
    msg = str(info.value)
    assert msg.startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:")
    assert "\nanalytical:" in msg
    assert "[0.0000, 2.0000, 0.0000]" in msg  # the numerical row of element 1: d(x*x)/dx = 2
    assert gradcheck(WrongSquare.apply, (x,), raise_exception=False) is False


def test_fast_mode_catches_it_and_shows_the_slow_jacobians(device):
    x = _leaf([0.5, 1.0, 2.0], device)
    with pytest.raises(GradcheckError, match="in slow mode") as info:
        gradcheck(WrongSquare.apply, (x,), fast_mode=True)
    assert "The max per-element difference (slow mode) is: 2.0" in str(info.value)


def test_mismatch_names_the_input_and_output():
    a, b = _x("cpu"), _y("cpu")
    with pytest.raises(GradcheckError, match="output 1 with respect to input 1"):
        gradcheck(lambda p, q: (p * 2, WrongSquare.apply(q)), (a, b))


def test_float32_inputs_warn_like_torch():
    x = _leaf([0.5, 1.0], "cpu", "float32")
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_no_input_requiring_grad_is_a_value_error():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (mt.ones(3, dtype=mt.float64),))


def test_stride_zero_input_is_refused():
    x = _leaf([1.0], "cpu").expand(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="has a dimension with stride 0"):
            gradcheck(lambda a: a * 2, (x,))


def test_non_differentiable_outputs(device):
    x = _x(device)
    assert gradcheck(lambda a: (a * 0).detach(), (x,))
    assert gradcheck(lambda a: a > 0, (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: (a * 2).detach(), (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: (a * 2).detach(), (x,), fast_mode=True)


def test_integer_outputs_are_skipped(device):
    assert gradcheck(lambda a: (a * 3, (a > 0).long()), (_x(device),))


def test_empty_and_zero_dim_inputs(device):
    assert gradcheck(lambda a, b: a * b, (_leaf(np.zeros((0, 3)), device), _y(device)))
    assert gradcheck(lambda a, b: a * b, (_leaf(1.5, device), _y(device)))
    assert gradgradcheck(lambda a, b: a * a * b, (_leaf(1.5, device), _leaf(0.5, device)))


def test_backward_not_reentrant():
    x = _leaf([0.5, 1.0], "cpu")
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(NoisyDouble.apply, (x,))
    assert gradcheck(NoisyDouble.apply, (x,), nondet_tol=1e-6)


def test_backward_must_be_multiplied_by_grad_output():
    x = _leaf([0.5, 1.0], "cpu")
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(NotLinearInGrad.apply, (x,))


def test_forward_ad_is_checked_and_backward_cannot_be_skipped():
    assert gradcheck(lambda a: a * 2, (_y("cpu"),), check_forward_ad=True)
    with pytest.raises(AssertionError):
        gradcheck(lambda a: a * 2, (_y("cpu"),), check_backward_ad=False)


def test_gradgradcheck_passes_correct_second_derivatives(device):
    def f(a, b):
        return (a * b).sin() * b, (a * a).sum(dim=0)

    assert gradgradcheck(f, (_x(device), _y(device)))
    assert gradgradcheck(f, (_x(device), _y(device)), gen_non_contig_grad_outputs=True)
    assert gradgradcheck(f, (_x(device), _y(device)), fast_mode=True)


def test_gradgradcheck_catches_a_lost_second_derivative(device):
    x = _leaf([0.5, 1.0, 2.0], device)
    assert gradcheck(DetachedSquare.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(DetachedSquare.apply, (x,))
    assert gradgradcheck(DetachedSquare.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_with_given_grad_outputs():
    x = _y("cpu")
    g = _leaf([1.0, -2.0, 0.5], "cpu")
    assert gradgradcheck(lambda a: a * a * a, (x,), (g,))
    assert gradgradcheck(lambda a: a * a * a, (x,), g.detach())  # grad_outputs not differentiated


def test_gradgradcheck_draws_its_grad_outputs_from_the_global_stream():
    # as torch's (testing.make_tensor): the numbers drawn after it are torch 2.13's
    mt.manual_seed(3)
    gradgradcheck(lambda a: a * a * a, (_y("cpu"),))
    expected = [0.7718658447265625, 0.7436993718147278, 0.5944212079048157, 0.887856662273407]
    assert mt.rand(4).tolist() == expected


def test_strict_device_reads_back_only_verdicts():
    from minitorch._backend.strict import count_transfers

    x = _x("strict")
    with count_transfers() as t:
        gradcheck(lambda a: a.exp() * a, (x,))
    # a few .item() per check (allclose, reentrancy, zero grad_output), not one per element
    assert t.count <= 10
