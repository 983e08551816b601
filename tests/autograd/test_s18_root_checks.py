"""The order of autograd.grad/backward's argument checks, and post-accumulate hooks that return
the leaf (sweep 8)."""

import pytest

import minitorch as torch


def _error(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


NO_GRAD = "element {} of tensors does not require grad and does not have a grad_fn"
IMPLICIT = "grad can be implicitly created only for scalar outputs"
INPUT = "One of the differentiated Tensors does not require grad"


def test_outputs_are_checked_before_inputs():
    x = torch.ones(2)
    # neither the output nor the input requires grad: torch names the output
    assert _error(lambda: torch.autograd.grad((x * 2).sum(), x)) == NO_GRAD.format(0)


def test_implicit_gradients_are_checked_before_outputs_without_grad():
    x = torch.ones(2)
    w = torch.ones(2, requires_grad=True)
    assert _error(lambda: torch.autograd.grad([(x * 2).sum(), w * 2], w)) == IMPLICIT
    assert _error(lambda: torch.autograd.backward([(x * 2).sum(), w * 2])) == IMPLICIT
    assert _error(lambda: torch.autograd.grad(w * 2, x)) == IMPLICIT
    # a non-scalar output that does not require grad needs no implicit gradient
    assert _error(lambda: torch.autograd.grad(x * 2, x)) == NO_GRAD.format(0)
    assert _error(lambda: torch.autograd.grad([(w * 2).sum(), (x * 2).sum()], x)) == (
        NO_GRAD.format(1)
    )
    assert _error(lambda: torch.autograd.grad((w * 2).sum(), x)) == INPUT


def test_post_accumulate_hook_may_return_the_leaf():
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert v.tolist() == pytest.approx([-0.01, -0.02, -0.03])
    w = torch.tensor([1.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: p.detach())
    with pytest.raises(RuntimeError, match="should return None"):
        (w * 2).sum().backward()
