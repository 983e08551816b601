"""Session 60: what remainder, fmod and copysign save for backward, and copy_ of a tensor into
itself. torch saves an operand only where a gradient formula reads it, so changing one it does not
read in place afterwards is no error (tests/reference/test_s60_autograd_reference.py compares with
torch)."""

import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

MODIFIED = "one of the variables needed for gradient computation has been modified by an inplace"


def _operands(requires_other: bool):
    a = torch.tensor([1.5, -2.25, 3.0], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([2.0, 3.5, -4.0], dtype=torch.float64, requires_grad=requires_other)
    return a, v


@pytest.mark.parametrize("op", [torch.remainder, torch.fmod])
def test_a_constant_divisor_saves_nothing(op):
    a, v = _operands(False)
    x = a * 1
    y = op(x, v)
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other is None
    x.mul_(2)  # the dividend changed in place: its gradient (grad itself) does not read it
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("op", [torch.remainder, torch.fmod])
def test_a_divisor_that_requires_grad_saves_both(op):
    a, v = _operands(True)
    x = a * 1
    y = op(x, v)
    assert y.grad_fn._saved_other is v
    x.mul_(2)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


def test_remainder_backward_of_the_dividend_alone():
    # the backward used to divide the two saved tensors even where none was saved
    a, v = _operands(False)
    torch.remainder(a * 1, v).sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]


def test_copysign_does_not_save_its_sign_source():
    a, v = _operands(True)
    w = v * 1
    y = torch.copysign(a.detach(), w)
    w.mul_(-1)  # copysign's gradient in other is zero: other is not saved
    y.sum().backward()
    assert v.grad.tolist() == [0.0, 0.0, 0.0]
    assert not hasattr(y.grad_fn, "_saved_other")


def test_copysign_still_saves_self():
    a, v = _operands(False)
    x = a * 1
    y = torch.copysign(x, v)
    x.mul_(2)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.sum().backward()


def test_copysign_gradients_with_the_new_saving():
    a, v = _operands(True)
    x = torch.tensor([1.5, -2.25, 0.0], dtype=torch.float64, requires_grad=True)
    y = torch.copysign(x, v)
    y.backward(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    assert x.grad.tolist() == [1.0, 2.0 * -1.0, 0.0]  # out / a: +1, -1 (sign flipped), 0 at a = 0
    assert v.grad.tolist() == [0.0, 0.0, 0.0] and v.grad.dtype is torch.float64
    assert gradcheck(torch.copysign, (a, v))
    assert gradgradcheck(torch.copysign, (a, v))
    # the other operand broadcast, of another dtype: its zeros take its own shape and dtype
    w = torch.tensor([-1.0], requires_grad=True)
    torch.copysign(a, w).sum().backward()
    assert w.grad.shape == (1,) and w.grad.dtype is torch.float32 and w.grad.item() == 0.0


def test_copy_of_an_expanded_tensor_into_itself_records():
    # the very same view: no overlap error on the write (torch returns at once), a graph kept
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    e = (a * 1).expand(3, 2)
    r = e.copy_(e)
    assert r is e and type(r.grad_fn).__name__ == "AsStridedBackward0"
    assert type(r.grad_fn.next_functions[0][0]).__name__ == "CopySlices"
    assert r.tolist() == [[1.0, 2.0]] * 3
    # its backward writes through the expanded view, which torch refuses then
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        r.sum().backward()


def test_copy_into_an_expanded_tensor_from_another_is_still_refused():
    b = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.zeros(3, 2).expand(2, 3, 2).copy_(b)
