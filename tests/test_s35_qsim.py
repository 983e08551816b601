"""Session 35 (helper qsim): torch-free regression tests of the library fixes the quantum-circuit
programs of tests/reference/test_s35_qsim_reference.py found: tensordot's order of argument
checks (an int dims reads a.dim() and b.dim(), as torch's Python does; otherwise the kernel's
parser names input and other) and einsum's sublist subscripts (compared with 0, 26 and 52
before chr(), as torch's Python does); unravel_index of a non-tensor (torch reads
indices.is_complex() first). torch's messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


A = mt.ones(2, 3)
B = mt.ones(3, 4)


@pytest.mark.parametrize(
    "call, exc_type, message",
    [
        # an int dims: torch's Python reads a.dim(), then b.dim()
        (lambda: mt.tensordot(A, "b"), AttributeError, "'str' object has no attribute 'dim'"),
        (lambda: mt.tensordot([1.0], B), AttributeError, "'list' object has no attribute 'dim'"),
        (
            lambda: mt.tensordot(None, None, dims=0),
            AttributeError,
            "'NoneType' object has no attribute 'dim'",
        ),
        # a negative int dims is refused before the operands are looked at
        (
            lambda: mt.tensordot(A, None, dims=-1),
            RuntimeError,
            "tensordot expects dims >= 0, but got dims=-1",
        ),
        # dims as lists or a tensor: the kernel's parser, input then other, then the dims
        (
            lambda: mt.tensordot(A, "b", dims=([1], [0])),
            TypeError,
            "tensordot(): argument 'other' (position 2) must be Tensor, not str",
        ),
        (
            lambda: mt.tensordot("a", B, dims=([1.5], [0])),
            TypeError,
            "tensordot(): argument 'input' (position 1) must be Tensor, not str",
        ),
        (
            lambda: mt.tensordot(A, 3, dims=mt.tensor([[1], [0]])),
            TypeError,
            "tensordot(): argument 'other' (position 2) must be Tensor, not int",
        ),
        (
            lambda: mt.tensordot("a", B, dims=mt.tensor(-1)),
            RuntimeError,
            "tensordot expects dims >= 0, but got dims=-1",
        ),
        (
            lambda: mt.tensordot("a", B, dims=1.5),
            RuntimeError,
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
            "containing two lists, but got dims=1.5",
        ),
        (
            lambda: mt.tensordot(A, B, dims=([1.5], [0])),
            TypeError,
            "tensordot(): argument 'dims_self' (position 3) must be tuple of ints, but found "
            "element of type float at pos 0",
        ),
    ],
)
def test_tensordot_argument_order(call, exc_type, message):
    assert _message(exc_type, call) == message


def test_tensordot_still_contracts():
    a = mt.arange(6.0).reshape(2, 3)
    b = mt.arange(12.0).reshape(3, 4)
    want = (a @ b).tolist()
    assert mt.tensordot(a, b, dims=1).tolist() == want
    assert mt.tensordot(a, b, dims=([1], [0])).tolist() == want
    assert mt.tensordot(a, b, dims=mt.tensor([[1], [0]])).tolist() == want
    assert mt.tensordot(a, b, dims=mt.tensor(1)).tolist() == want


RANGE = "einsum(): subscript in subscript list is not within the valid range [0, 52)"


@pytest.mark.parametrize(
    "sublist, exc_type, message",
    [
        # the comparisons come first: a str cannot be compared, a float out of range is a
        # ValueError, a many-element tensor has no truth value
        ([0, "x"], TypeError, "'>=' not supported between instances of 'str' and 'int'"),
        ([0, None], TypeError, "'>=' not supported between instances of 'NoneType' and 'int'"),
        ([0, 60.0], ValueError, RANGE),
        ([0, -1], ValueError, RANGE),
        ([0, 52], ValueError, RANGE),
        (
            [0, mt.tensor([1, 2])],
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        # then chr(): a float in range cannot be a code point
        ([0, 1.5], TypeError, "'float' object cannot be interpreted as an integer"),
    ],
)
def test_einsum_sublist_errors(sublist, exc_type, message):
    assert _message(exc_type, lambda: mt.einsum(A, sublist)) == message


def test_einsum_sublist_output_errors():
    # an odd count: the last argument is the output sublist, even a tensor
    msg = _message(RuntimeError, lambda: mt.einsum(A, [0, 1], B))
    assert msg == "Boolean value of Tensor with more than one value is ambiguous"
    msg = _message(TypeError, lambda: mt.einsum(A, [0, 1], B, [1, 2], [2, 0.5]))
    assert msg == "'float' object cannot be interpreted as an integer"


def test_einsum_sublist_letters():
    a = mt.arange(6.0).reshape(2, 3)
    b = mt.arange(12.0).reshape(3, 4)
    want = (a @ b).tolist()
    # 0-25 are A-Z, 26-51 a-z; a bool and a one-element integer tensor are read as ints
    assert mt.einsum(a, [0, 51], b, [51, 3]).tolist() == want
    assert mt.einsum(a, [0, True], b, [1, 2], [0, 2]).tolist() == want
    assert mt.einsum(a, [0, mt.tensor(30)], b, [30, 2]).tolist() == want
    assert mt.einsum(a, [0, 1], b, [1, 2], [2, 0]).tolist() == (a @ b).T.tolist()
    assert mt.einsum(a, [Ellipsis, 1], [Ellipsis]).tolist() == a.sum(1).tolist()


@pytest.mark.parametrize(
    "indices, name", [(5, "int"), ([5, 6], "list"), (None, "NoneType"), (2.0, "float")]
)
def test_unravel_index_of_a_non_tensor(indices, name):
    msg = _message(AttributeError, lambda: mt.unravel_index(indices, (2, 2, 2)))
    assert msg == f"'{name}' object has no attribute 'is_complex'"


def test_unravel_index_of_a_tensor():
    coords = mt.unravel_index(mt.tensor([5, 6]), (2, 2, 2))
    assert [c.tolist() for c in coords] == [[1, 1], [0, 1], [1, 0]]
