"""Session 36 (helper posenc): torch-free regression tests of the library fixes the
positional-encoding programs of tests/reference/test_s36_posenc_reference.py found: arange's
argument parsing (torch's parser errors for a tensor that is no 0-d Number, an explicit None,
a step or an unknown keyword no overload takes, a fourth positional argument, a dtype, layout
or requires_grad of another type), linspace's and logspace's parser error for a dtype of
another type, the refusal to record an in-place change of a view taken under no_grad (of a
base that requires no grad) from an operand that requires grad, and copy_ into an integer
tensor taking values without history. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


_KW = (
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)
_ARANGE_FORMS = (
    f" * (Number end, *, Tensor out = None, {_KW})\n"
    f" * (Number start, Number end, *, {_KW})\n"
    f" * (Number start, Number end, Number step = 1, *, Tensor out = None, {_KW})\n"
)


def _arange_listing(got):
    return (
        f"arange() received an invalid combination of arguments - got ({got}), but expected "
        "one of:\n" + _ARANGE_FORMS
    )


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.arange(2, None), "int, NoneType"),
        (lambda: mt.arange(None, 5), "NoneType, int"),
        (lambda: mt.arange(5, end=None), "int, end=NoneType"),
        (lambda: mt.arange(5, step=2), "int, step=int"),
        (lambda: mt.arange(end=5, step=2), "step=int, end=int, "),
        (lambda: mt.arange(5, 6, step=None), "int, int, step=NoneType"),
        (lambda: mt.arange(1, 2, 3, 4), "int, int, int, int"),
        (lambda: mt.arange(5, foo=3), "int, foo=int"),
        (lambda: mt.arange(5, dtype="float"), "int, dtype=str"),
        (lambda: mt.arange(0, 5, dtype=3), "int, int, dtype=int"),
        (lambda: mt.arange(5, layout="a"), "int, layout=str"),
        (lambda: mt.arange(5, requires_grad=1), "int, requires_grad=int"),
        (lambda: mt.arange(5, out=3), "int, out=int"),
        (lambda: mt.arange(0, mt.tensor([3])), "int, Tensor"),
        (lambda: mt.arange(mt.zeros(2), 5), "Tensor, int"),
    ],
)
def test_arange_calls_no_overload_takes(call, got):
    assert _message(TypeError, call) == _arange_listing(got)


@pytest.mark.parametrize(
    "call, typename",
    [
        (lambda: mt.arange(mt.tensor([3])), "Tensor"),
        (lambda: mt.arange(mt.tensor(3.0, requires_grad=True)), "Tensor"),
        (lambda: mt.arange(np.array(3)), "numpy.ndarray"),
    ],
)
def test_arange_end_that_is_no_number(call, typename):
    assert _message(TypeError, call) == (
        f"arange(): argument 'end' (position 1) must be Number, not {typename}"
    )


def test_arange_forms_torch_takes():
    assert mt.arange(end=4).tolist() == [0, 1, 2, 3]
    assert mt.arange(0, end=5, step=2).tolist() == [0, 2, 4]
    assert mt.arange(step=2, end=5, start=1).tolist() == [1, 3]
    assert mt.arange(5, requires_grad=None, pin_memory=None).tolist() == [0, 1, 2, 3, 4]
    assert mt.arange(0.0, 2.5, layout=mt.strided).tolist() == [0.0, 1.0, 2.0]
    assert mt.arange(3, dtype=float).dtype is mt.float64
    assert mt.arange(mt.tensor(2, dtype=mt.int8), mt.tensor(4.5)).tolist() == [2.0, 3.0, 4.0]
    assert mt.arange(np.float64(2.5)).tolist() == [0.0, 1.0, 2.0]


def test_linspace_logspace_dtype_of_another_type():
    msg = _message(TypeError, lambda: mt.linspace(0, 1, 5, dtype="float"))
    assert msg.startswith(
        "linspace() received an invalid combination of arguments - got (int, int, int, "
        "dtype=str), but expected one of:\n * (Tensor start, Tensor end, int steps, *, "
    )
    msg = _message(TypeError, lambda: mt.logspace(0, 1, 5, 2.0, dtype="float"))
    assert msg.startswith(
        "logspace() received an invalid combination of arguments - got (int, int, int, float, "
        "dtype=str), but expected one of:\n * (Tensor start, Tensor end, int steps, float base "
    )
    assert mt.linspace(0, 1, 3, dtype=float).dtype is mt.float64


NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)


@pytest.mark.parametrize(
    "write",
    [
        lambda v, s: v.copy_(s),
        lambda v, s: v.__setitem__(0, s[0]),
        lambda v, s: v.masked_fill_(mt.tensor([True, False]), s[0, 0]),
        lambda v, s: v.add_(s),
        lambda v, s: v.clamp_(min=s),
        lambda v, s: v.index_put_((mt.tensor([1]),), s[0]),
    ],
)
def test_no_grad_view_written_from_a_tensor_that_requires_grad(write):
    base = mt.zeros(2, 4, dtype=mt.float64)
    with mt.no_grad():
        v = base[:, ::2]
    src = mt.ones(2, 2, dtype=mt.float64, requires_grad=True)
    assert _message(RuntimeError, lambda: write(v, src)) == NO_GRAD_VIEW
    assert not base.requires_grad and base.grad_fn is None
    assert base.tolist() == [[0.0] * 4] * 2


def test_no_grad_view_writes_torch_allows():
    base = mt.zeros(2, 4)
    with mt.no_grad():
        v = base[:, ::2]
        u = base.unbind(0)[1]
    v.mul_(2.0)  # nothing requires grad
    src = mt.ones(2, 2, requires_grad=True)
    with mt.no_grad():
        v.copy_(src)
    assert not base.requires_grad
    assert base.tolist() == [[1.0, 0.0, 1.0, 0.0]] * 2
    assert _message(RuntimeError, lambda: u.copy_(mt.ones(4, requires_grad=True))) == NO_GRAD_VIEW
    # a view taken with grad mode on records the write
    w = base[:, 1::2]
    w.copy_(src * 3)
    assert base.requires_grad and type(base.grad_fn).__name__ == "CopySlices"
    base.sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), np.full((2, 2), 3.0))


def test_copy_into_an_integer_tensor_takes_values_only():
    src = mt.tensor([[1.4, 2.6], [3.2, 4.9]], requires_grad=True)
    ids = mt.zeros(2, 4, dtype=mt.int64)
    ids[:, ::2].copy_(src * 2)
    ids[1] = mt.tensor([7.0, 8.0, 9.0, 10.0], requires_grad=True) + 0.5
    assert ids.tolist() == [[2, 0, 5, 0], [7, 8, 9, 10]]
    assert not ids.requires_grad and ids.grad_fn is None
    flat = mt.zeros(2, dtype=mt.int32)
    flat.copy_(src[0])
    assert flat.tolist() == [1, 2] and not flat.requires_grad
    # fill_ with a tensor value records even into an integer tensor, as torch's FillBackward3
    filled = mt.zeros(3, dtype=mt.int64)
    filled.fill_(src[0, 0])
    assert filled.requires_grad and type(filled.grad_fn).__name__ == "FillBackward3"
