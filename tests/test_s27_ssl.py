"""Session 27 (helper ssl): the library fixes found by the self-supervised-learning programs,
with torch 2.13's behaviour stated as literals.

EMA teachers update their parameters with torch._foreach_mul_/_foreach_add_; passing
`model.parameters()` (a generator) instead of a list, or a list with a number in it, must raise
torch's TypeError and message."""

from __future__ import annotations

import pytest

import minitorch as torch


def _gen():
    return (p for p in [torch.ones(2)])


def _err(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


MUL_OVERLOADS = [
    "(tuple of Tensors self, tuple of Scalars scalars)",
    "(tuple of Tensors self, Tensor other)",
    "(tuple of Tensors self, tuple of Tensors other)",
    "(tuple of Tensors self, Number scalar)",
]


def test_foreach_mul_generator_self():
    msg = _err(lambda: torch._foreach_mul_(_gen(), 0.9))
    why = "(!generator!, !float!)"
    want = (
        "_foreach_mul_() received an invalid combination of arguments - got (generator, float), "
        "but expected one of:\n"
        + "".join(
            f" * {o}\n      didn't match because some of the arguments have invalid types: {why}\n"
            for o in MUL_OVERLOADS
        )
    )
    assert msg == want


def test_foreach_add_generator_other_with_alpha():
    msg = _err(lambda: torch._foreach_add_([torch.ones(2)], _gen(), alpha=0.1))
    assert msg == (
        "_foreach_add_() received an invalid combination of arguments - got (list, generator, "
        "alpha=float), but expected one of:\n"
        " * (tuple of Tensors self, Number scalar)\n"
        " * (tuple of Tensors self, tuple of Scalars scalars)\n"
        " * (tuple of Tensors self, Tensor other, *, Number alpha = 1)\n"
        " * (tuple of Tensors self, tuple of Tensors other, *, Number alpha = 1)\n"
    )


def test_foreach_add_tuple_and_set():
    msg = _err(lambda: torch._foreach_add((torch.ones(2),), {1.0}))
    why = "(!tuple of (Tensor,)!, !set!)"
    assert msg == (
        "_foreach_add() received an invalid combination of arguments - got (tuple, set), but "
        "expected one of:\n"
        " * (tuple of Tensors self, Number scalar)\n"
        f"      didn't match because some of the arguments have invalid types: {why}\n"
        " * (tuple of Tensors self, tuple of Scalars scalars)\n"
        f"      didn't match because some of the arguments have invalid types: {why}\n"
        " * (tuple of Tensors self, Tensor other, *, Number alpha = 1)\n"
        " * (tuple of Tensors self, tuple of Tensors other, *, Number alpha = 1)\n"
    )


def test_foreach_lerp_bad_weight():
    msg = _err(lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(2)], "a"))
    why = "(!list of [Tensor]!, !list of [Tensor]!, !str!)"
    weights = ("Number weight", "tuple of Scalars weight", "tuple of Tensors weights")
    assert msg == (
        "_foreach_lerp_() received an invalid combination of arguments - got (list, list, str), "
        "but expected one of:\n"
        + "".join(
            f" * (tuple of Tensors self, tuple of Tensors tensors1, {w})\n"
            f"      didn't match because some of the arguments have invalid types: {why}\n"
            for w in weights
        )
    )


def test_foreach_pow_generator_self():
    msg = _err(lambda: torch._foreach_pow(_gen(), 2))
    assert msg.startswith(
        "_foreach_pow() received an invalid combination of arguments - got (generator, int), "
        "but expected one of:\n * (Number self, tuple of Tensors exponent)\n"
    )


def test_foreach_single_signature_ops():
    assert _err(lambda: torch._foreach_sqrt(torch.ones(2))) == (
        "_foreach_sqrt(): argument 'self' (position 1) must be tuple of Tensors, not Tensor"
    )
    assert _err(lambda: torch._foreach_norm(_gen())) == (
        "_foreach_norm(): argument 'self' (position 1) must be tuple of Tensors, not generator"
    )
    assert _err(lambda: torch._foreach_copy_([torch.ones(2)], _gen())) == (
        "_foreach_copy_(): argument 'src' (position 2) must be tuple of Tensors, not generator"
    )


def test_foreach_non_tensor_elements():
    # was AttributeError: 'float' object has no attribute 'dtype'
    assert _err(lambda: torch._foreach_mul_([torch.ones(2), 1.0], 2.0)) == (
        "expected Tensor as element 1 in argument 0, but got float"
    )
    assert _err(lambda: torch._foreach_add_([torch.ones(2)] * 2, [torch.ones(2), 3])) == (
        "expected Tensor as element 1 in argument 1, but got int"
    )
    assert _err(lambda: torch._foreach_sqrt([torch.ones(2), 3])) == (
        "expected Tensor as element 1 in argument 0, but got int"
    )


def test_foreach_lerp_single_tensor_end_and_pow_tensor_base():
    # a lone tensor is no list of ends (was broadcast); a 1-d tensor is no scalar base
    msg = _err(lambda: torch._foreach_lerp([torch.ones(2)], torch.ones(2), 0.5))
    assert msg.startswith(
        "_foreach_lerp() received an invalid combination of arguments - got (list, Tensor, "
        "float), but expected one of:\n"
    )
    msg = _err(lambda: torch._foreach_pow(torch.ones(2), [torch.ones(2)]))
    assert msg.splitlines()[2] == (
        "      didn't match because some of the arguments have invalid types: (!Tensor!, "
        "!list of [Tensor]!)"
    )
    assert torch._foreach_pow(torch.tensor(2.0), [torch.ones(2)])[0].tolist() == [2.0, 2.0]
