"""Session 36 (helper semisup): torch-free regression tests of the library fixes the
semi-supervised and teacher-student programs of tests/reference/test_s36_semisup_reference.py
found, all in minitorch/_foreach.py (the EMA updates' _foreach_lerp_/_foreach_mul_/_foreach_add_):
torch's argument-parser errors for the calls none of the overloads takes (the overload list,
with "didn't match" lines only for the overloads of as many entries as arguments given), alpha
only with tensor operands, operands by keyword checked for their kind, a 1-d tensor weight of
lerp refused, lists that are not all numbers read as lists of tensors, addcmul/addcdiv's value=
and scalars=, and _foreach_norm's ord and dtype types. torch's messages are written here as
literals."""

from __future__ import annotations

import re

import pytest

import minitorch as mt


def _lists():
    a = [mt.ones(3), mt.ones(2, 2)]
    b = [mt.zeros(3), mt.zeros(2, 2)]
    return a, b


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


LERP = [
    "(tuple of Tensors self, tuple of Tensors tensors1, Number weight)",
    "(tuple of Tensors self, tuple of Tensors tensors1, tuple of Scalars weight)",
    "(tuple of Tensors self, tuple of Tensors tensors1, tuple of Tensors weights)",
]
ADD = [
    "(tuple of Tensors self, Number scalar)",
    "(tuple of Tensors self, tuple of Scalars scalars)",
    "(tuple of Tensors self, Tensor other, *, Number alpha = 1)",
    "(tuple of Tensors self, tuple of Tensors other, *, Number alpha = 1)",
]
MUL = [
    "(tuple of Tensors self, tuple of Scalars scalars)",
    "(tuple of Tensors self, Tensor other)",
    "(tuple of Tensors self, tuple of Tensors other)",
    "(tuple of Tensors self, Number scalar)",
]
ADDC = [
    "(tuple of Tensors self, tuple of Tensors tensor1, tuple of Tensors tensor2, " + v + ")"
    for v in ("tuple of Scalars scalars", "Tensor scalars", "Number value = 1")
]
LL = "!list of [Tensor, Tensor]!"


def _invalid(op, got, overloads, reasons=None):
    """torch's message: each overload, with its "didn't match" line where reasons has one."""
    reasons = reasons or [None] * len(overloads)
    lines = "".join(
        f" * {o}\n" + (f"      didn't match because {r}\n" if r else "")
        for o, r in zip(overloads, reasons, strict=True)
    )
    return (
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{lines}"
    )


def test_lerp_missing_or_extra_weight_lists_the_overloads():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b))
    assert msg == _invalid("_foreach_lerp_", "list, list", LERP)
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, 0.3, 0.2))
    assert msg == _invalid("_foreach_lerp_", "list, list, float, float", LERP)


def test_lerp_refuses_a_1d_weight_tensor():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, mt.tensor([0.3, 0.2])))
    why = f"some of the arguments have invalid types: ({LL}, {LL}, !Tensor!)"
    assert msg == _invalid("_foreach_lerp_", "list, list, Tensor", LERP, [why] * 3)
    assert a[0].tolist() == [1.0, 1.0, 1.0]  # nothing written


def test_lerp_weight_keywords():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, weights=0.3))
    kw = "some of the keywords were incorrect: weights"
    why = f"some of the arguments have invalid types: ({LL}, {LL}, !weights=float!)"
    assert msg == _invalid("_foreach_lerp_", "list, list, weights=float", LERP, [kw, kw, why])
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, weight=b))
    why = (
        f"some of the arguments have invalid types: ({LL}, {LL}, !weight=list of [Tensor, Tensor]!)"
    )
    kw = "some of the keywords were incorrect: weight"
    assert msg == _invalid("_foreach_lerp_", "list, list, weight=list", LERP, [why, why, kw])
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, weights=[0.1, 0.2]))
    assert msg == "expected Tensor as element 0 in argument 2, but got float"
    mt._foreach_lerp_(a, b, weights=[mt.full((3,), 0.5), mt.full((2, 2), 0.25)])
    mt._foreach_lerp_(a, b, weight=[0.5, 0.0])
    assert a[0].tolist() == [0.25] * 3 and a[1].tolist() == [[0.75, 0.75]] * 2


def test_lerp_lists_that_are_not_all_numbers():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_lerp_(a, b, [0.1, "x"]))
    assert msg == "expected Tensor as element 0 in argument 2, but got float"
    msg = _message(TypeError, lambda: mt._foreach_lerp_(tuple(a), (1.0, 2.0), "x"))
    assert msg == "expected Tensor as element 0 in argument 1, but got float"


def test_alpha_only_with_tensor_operands():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_add_(a, 1.0, alpha=2))
    assert msg == _invalid("_foreach_add_", "list, float, alpha=int", ADD)
    assert a[0].tolist() == [1.0, 1.0, 1.0]  # torch adds nothing
    msg = _message(TypeError, lambda: mt._foreach_add_(a, [1.0, 2.0], alpha=2))
    assert msg == "expected Tensor as element 0 in argument 1, but got float"
    msg = _message(TypeError, lambda: mt._foreach_add_(a, b, alpha="x"))
    assert msg == _invalid("_foreach_add_", "list, list, alpha=str", ADD)
    msg = _message(TypeError, lambda: mt._foreach_mul_(a, b, alpha=2))
    assert msg == _invalid("_foreach_mul_", "list, list, alpha=int", MUL)
    msg = _message(TypeError, lambda: mt._foreach_add_(a, b, 2))
    assert msg == _invalid("_foreach_add_", "list, list, int", ADD)
    kw = "some of the keywords were incorrect: alpha"
    msg = _message(TypeError, lambda: mt._foreach_add(a, alpha=2))
    assert msg == _invalid("_foreach_add", "list, alpha=int", ADD, [kw, kw, None, None])
    out = mt._foreach_add(a, mt.tensor(2.0), alpha=2)
    assert out[0].tolist() == [5.0, 5.0, 5.0]


def test_sub_names_its_one_overloads_fault():
    a, b = _lists()
    msg = _message(TypeError, lambda: mt._foreach_sub_(a, b, alpha="x"))
    assert msg == "_foreach_sub_(): argument 'alpha' must be Number, not str"
    msg = _message(TypeError, lambda: mt._foreach_sub_(a, 1.0, alpha=2))
    assert (
        msg == "_foreach_sub_(): argument 'other' (position 2) must be tuple of Tensors, not float"
    )
    msg = _message(TypeError, lambda: mt._foreach_sub_(a, b, 2))
    assert msg == "_foreach_sub_() takes 2 positional arguments but 3 were given"
    assert mt._foreach_sub(a, b, alpha=2)[1].tolist() == [[1.0, 1.0]] * 2


def test_operands_by_keyword_are_checked_for_their_kind():
    a, _ = _lists()
    msg = _message(TypeError, lambda: mt._foreach_mul(a, other=2.0))
    kw = "some of the keywords were incorrect: other"
    why = f"some of the arguments have invalid types: ({LL}, !other=float!)"
    assert msg == _invalid("_foreach_mul", "list, other=float", MUL, [kw, why, why, kw])
    msg = _message(TypeError, lambda: mt._foreach_mul(a, scalars=2.0))
    kw = "some of the keywords were incorrect: scalars"
    why = f"some of the arguments have invalid types: ({LL}, !scalars=float!)"
    assert msg == _invalid("_foreach_mul", "list, scalars=float", MUL, [why, kw, kw, kw])
    assert mt._foreach_mul(a, scalar=2.0)[0].tolist() == [2.0, 2.0, 2.0]
    assert mt._foreach_pow(a, exponent=2.0)[0].tolist() == [1.0, 1.0, 1.0]


def test_addcmul_value_and_scalars():
    a, b = _lists()
    c = [mt.full((3,), 2.0), mt.full((2, 2), 2.0)]
    msg = _message(TypeError, lambda: mt._foreach_addcdiv_(a, b, c, value="x"))
    kw = "some of the keywords were incorrect: value"
    assert msg == _invalid("_foreach_addcdiv_", "list, list, list, value=str", ADDC, [kw, kw, kw])
    msg = _message(TypeError, lambda: mt._foreach_addcmul(a, b, b, [1.0, "x"]))
    why = f"some of the arguments have invalid types: ({LL}, {LL}, {LL}, !list of [float, str]!)"
    assert msg == _invalid("_foreach_addcmul", "list, list, list, list", ADDC, [why] * 3)
    msg = _message(TypeError, lambda: mt._foreach_addcmul_(a, b, c, 0.5, 1))
    assert msg == _invalid("_foreach_addcmul_", "list, list, list, float, int", ADDC)
    out = mt._foreach_addcmul(a, c, c, value=mt.tensor(0.5))  # a 0-d value= is a number
    assert out[0].tolist() == [3.0, 3.0, 3.0]
    out = mt._foreach_addcmul(a, c, c, scalars=mt.tensor([1.0, 0.25]))
    assert out[1].tolist() == [[2.0, 2.0]] * 2


def test_foreach_norm_argument_types():
    a, _ = _lists()
    msg = _message(TypeError, lambda: mt._foreach_norm(a, "fro"))
    assert msg == "_foreach_norm(): argument 'ord' (position 2) must be Number, not str"
    msg = _message(TypeError, lambda: mt._foreach_norm(a, ord=None))
    assert msg == "_foreach_norm(): argument 'ord' must be Number, not NoneType"
    msg = _message(TypeError, lambda: mt._foreach_norm(a, 2, "x"))
    assert msg == "_foreach_norm(): argument 'dtype' (position 3) must be torch.dtype, not str"
    assert re.fullmatch(r"tensor\(1\.7321\)", repr(mt._foreach_norm(a)[0]))


def test_a_0d_tensor_is_a_number_for_alpha_and_scalar():
    a, b = _lists()
    assert mt._foreach_add_(a, b, alpha=mt.tensor(2.0))[0].tolist() == [1.0, 1.0, 1.0]
    assert mt._foreach_sub_(a, b, alpha=mt.tensor(2.0))[0].tolist() == [1.0, 1.0, 1.0]
    assert mt._foreach_mul_(a, scalar=mt.tensor(3.0))[0].tolist() == [3.0, 3.0, 3.0]
    msg = _message(TypeError, lambda: mt._foreach_add_(a, b, alpha=mt.ones(2)))
    assert msg == _invalid("_foreach_add_", "list, list, alpha=Tensor", ADD)


def test_in_place_pow_lists_no_number_self_overload():
    a, _ = _lists()
    msg = _message(TypeError, lambda: mt._foreach_pow_(a, scalar=2.0))
    kw = "some of the keywords were incorrect: scalar"
    overloads = [
        f"(tuple of Tensors self, {e} exponent)"
        for e in ("Number", "tuple of Scalars", "tuple of Tensors")
    ]
    assert msg == _invalid("_foreach_pow_", "list, scalar=float", overloads, [kw] * 3)
