"""Session 60: remainder, fmod and copysign after an operand changed in place, against torch:
the same gradients, or the same error (torch saves an operand only where a formula reads it)."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

OPS = ["remainder", "fmod", "copysign"]


def _run(lib, op: str, which: str, requires_other: bool):
    a = lib.tensor([1.5, -2.25, 3.0], dtype=lib.float64, requires_grad=True)
    v = lib.tensor([2.0, 3.5, -4.0], dtype=lib.float64, requires_grad=requires_other)
    x, w = a * 1, v * 1
    y = getattr(lib, op)(x, w)
    (x if which == "self" else w).mul_(-2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return type(e), str(e).split(":")[0]
    return a.grad.tolist(), None if v.grad is None else v.grad.tolist()


@pytest.mark.parametrize("requires_other", [False, True])
@pytest.mark.parametrize("which", ["self", "other"])
@pytest.mark.parametrize("op", OPS)
def test_changed_operand_matches_torch(op, which, requires_other):
    assert _run(minitorch, op, which, requires_other) == _run(torch, op, which, requires_other)


def _copy_into_itself(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    e = (a * 1).expand(3, 2)
    r = e.copy_(e)
    return r.tolist(), type(r.grad_fn).__name__, type(r.grad_fn.next_functions[0][0]).__name__


def test_copy_of_an_expanded_tensor_into_itself_matches_torch():
    assert _copy_into_itself(minitorch) == _copy_into_itself(torch)
