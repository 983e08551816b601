"""Session 28 (helper argkw): torch's argument-type errors, by position and by keyword, written as
literals (torch 2.13's messages for the same calls; tests/reference/test_s28_argkw_reference.py
compares them with torch itself). A positional argument's error names its position (counted
without self for a Tensor method), a keyword's none; an op with a Tensor-or-Number overload pair
lists its overloads with the call's keywords."""

# ruff: noqa: E501  (the cases are the calls as written, the messages torch's)

from __future__ import annotations

import pytest

import minitorch as torch

t = torch.ones(3, 4)
ENV = {
    "lib": torch,
    "F_": torch.nn.functional,
    "t": t,
    "t3": torch.ones(2, 3, 4),
    "sq": torch.eye(3) + 1,
    "v": torch.ones(4),
    "i": torch.zeros(3, 4, dtype=torch.long),
    "i1": torch.tensor([0, 1]),
    "m": t > 0,
}

CASES = [
    (
        "lib.fmod('a', t)",
        "TypeError: fmod() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.fmod(input='a', other=t)",
        "TypeError: fmod() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.copysign('a', t)",
        "TypeError: copysign() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.copysign(input='a', other=t)",
        "TypeError: copysign() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    ("lib.randperm(n='a')", "TypeError: randperm(): argument 'n' must be int, not str"),
    (
        "lib.multinomial(t, num_samples='a')",
        "TypeError: multinomial(): argument 'num_samples' must be int, not str",
    ),
    (
        "lib.linalg.solve(sq, 'a')",
        "TypeError: linalg_solve(): argument 'B' (position 2) must be Tensor, not str",
    ),
    (
        "F_.softplus(t, 'a')",
        "TypeError: softplus(): argument 'beta' (position 2) must be Number, not str",
    ),
    (
        "F_.softplus(t, 1.0, 'a')",
        "TypeError: softplus(): argument 'threshold' (position 3) must be Number, not str",
    ),
    (
        "F_.one_hot(i, 'a')",
        "TypeError: one_hot(): argument 'num_classes' (position 2) must be int, not str",
    ),
    (
        "t.clone().lerp_('a', 1)",
        "TypeError: lerp_() received an invalid combination of arguments - got (str, int), but expected one of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n * (Tensor end, Number weight)\n      didn't match because some of the arguments have invalid types: (!str!, !int!)\n",
    ),
    (
        "t.clone().lerp_(t, weight='a')",
        "TypeError: lerp_() received an invalid combination of arguments - got (Tensor, weight=str), but expected one of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the arguments have invalid types: (Tensor, !weight=str!)\n * (Tensor end, Number weight)\n      didn't match because some of the arguments have invalid types: (Tensor, !weight=str!)\n",
    ),
    (
        "t.clone().pow_('a')",
        "TypeError: pow_() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.clone().fmod_(other='a')",
        "TypeError: fmod_() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "t.clone().remainder_('a')",
        "TypeError: remainder_() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.clone().masked_fill_(m, 'a')",
        "TypeError: masked_fill_() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n",
    ),
    (
        "t.clone().masked_fill_(mask='a', value=1.0)",
        "TypeError: masked_fill_() received an invalid combination of arguments - got (value=float, mask=str, ), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n",
    ),
    (
        "t.clone().atan2_(1.0)",
        "TypeError: atan2_(): argument 'other' (position 1) must be Tensor, not float",
    ),
    ("t.clone().add_(other='a')", "TypeError: add_(): argument 'other' must be Tensor, not str"),
    (
        "t.clone().eq_('a')",
        "TypeError: eq_() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.clone().nan_to_num_(neginf='a')",
        "TypeError: nan_to_num_(): argument 'neginf' must be float, not str",
    ),
    (
        "lib.pow('a', t)",
        "TypeError: pow() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "lib.pow(input='a', exponent=t)",
        "TypeError: pow() received an invalid combination of arguments - got (exponent=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out = None)\n * (Number self, Tensor exponent, *, Tensor out = None)\n * (Tensor input, Number exponent, *, Tensor out = None)\n",
    ),
    (
        "t.pow('a')",
        "TypeError: pow() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number exponent)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.pow(exponent='a')",
        "TypeError: pow() received an invalid combination of arguments - got (exponent=str, ), but expected one of:\n * (Tensor exponent)\n      didn't match because some of the arguments have invalid types: (!exponent=str!, )\n * (Number exponent)\n      didn't match because some of the arguments have invalid types: (!exponent=str!, )\n",
    ),
    (
        "lib.fmod(t, 'a')",
        "TypeError: fmod() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.fmod(t, other='a')",
        "TypeError: fmod() received an invalid combination of arguments - got (Tensor, other=str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.fmod('a')",
        "TypeError: fmod() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.fmod(other='a')",
        "TypeError: fmod() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.remainder('a', t)",
        "TypeError: remainder() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.remainder(input='a', other=t)",
        "TypeError: remainder() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other)\n      didn't match because some of the keywords were incorrect: input\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.remainder('a')",
        "TypeError: remainder() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.remainder(other='a')",
        "TypeError: remainder() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.eq(input='a', other=t)",
        "TypeError: eq() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.eq(t, 'a')",
        "TypeError: eq() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.eq('a')",
        "TypeError: eq() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.eq(other='a')",
        "TypeError: eq() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.ne(input='a', other=t)",
        "TypeError: ne() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.ne(t, 'a')",
        "TypeError: ne() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.ne('a')",
        "TypeError: ne() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.ne(other='a')",
        "TypeError: ne() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.lt(input='a', other=t)",
        "TypeError: lt() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.lt(t, 'a')",
        "TypeError: lt() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.lt('a')",
        "TypeError: lt() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.lt(other='a')",
        "TypeError: lt() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.gt(input='a', other=t)",
        "TypeError: gt() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.gt(t, 'a')",
        "TypeError: gt() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.gt('a')",
        "TypeError: gt() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.gt(other='a')",
        "TypeError: gt() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.le(input='a', other=t)",
        "TypeError: le() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.le(t, 'a')",
        "TypeError: le() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.le('a')",
        "TypeError: le() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.le(other='a')",
        "TypeError: le() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.ge(input='a', other=t)",
        "TypeError: ge() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.ge(t, 'a')",
        "TypeError: ge() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.ge('a')",
        "TypeError: ge() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.ge(other='a')",
        "TypeError: ge() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.bitwise_and('a', t)",
        "TypeError: bitwise_and() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.bitwise_and(input='a', other=t)",
        "TypeError: bitwise_and() received an invalid combination of arguments - got (other=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor other)\n      didn't match because some of the keywords were incorrect: input\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.bitwise_and('a')",
        "TypeError: bitwise_and() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.bitwise_and(other='a')",
        "TypeError: bitwise_and() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.copysign(t, 'a')",
        "TypeError: copysign() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "lib.copysign(t, other='a')",
        "TypeError: copysign() received an invalid combination of arguments - got (Tensor, other=str), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n",
    ),
    (
        "t.copysign('a')",
        "TypeError: copysign() received an invalid combination of arguments - got (str), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!)\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!str!)\n",
    ),
    (
        "t.copysign(other='a')",
        "TypeError: copysign() received an invalid combination of arguments - got (other=str, ), but expected one of:\n * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n * (Number other)\n      didn't match because some of the arguments have invalid types: (!other=str!, )\n",
    ),
    (
        "lib.lerp('a', t, 0.5)",
        "TypeError: lerp() received an invalid combination of arguments - got (str, Tensor, float), but expected one of:\n * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n",
    ),
    (
        "lib.lerp(input='a', end=t, weight=0.5)",
        "TypeError: lerp() received an invalid combination of arguments - got (weight=float, end=Tensor, input=str, ), but expected one of:\n * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n",
    ),
    (
        "t.lerp('a', 0.5)",
        "TypeError: lerp() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n * (Tensor end, Number weight)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n",
    ),
    (
        "t.lerp(end='a', weight=0.5)",
        "TypeError: lerp() received an invalid combination of arguments - got (weight=float, end=str, ), but expected one of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the arguments have invalid types: (!end=str!, !weight=float!, )\n * (Tensor end, Number weight)\n      didn't match because some of the arguments have invalid types: (!end=str!, !weight=float!, )\n",
    ),
    (
        "lib.where('a', t, t)",
        "TypeError: where() received an invalid combination of arguments - got (str, Tensor, Tensor), but expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor condition, Number self, Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!, !Tensor!, Tensor)\n * (Tensor condition, Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !Tensor!)\n * (Tensor condition, Number self, Number other)\n      didn't match because some of the arguments have invalid types: (!str!, !Tensor!, !Tensor!)\n",
    ),
    (
        "lib.where(condition='a', input=t, other=t)",
        "TypeError: where() received an invalid combination of arguments - got (other=Tensor, input=Tensor, condition=str, ), but expected one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor condition, Number self, Tensor other)\n      didn't match because some of the keywords were incorrect: input\n * (Tensor condition, Tensor input, Number other)\n      didn't match because some of the arguments have invalid types: (!condition=str!, input=Tensor, !other=Tensor!, )\n * (Tensor condition, Number self, Number other)\n      didn't match because some of the keywords were incorrect: input\n",
    ),
    (
        "t.where('a', t)",
        "TypeError: where() received an invalid combination of arguments - got (str, Tensor), but expected one of:\n * (Tensor condition, Tensor other)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor)\n * (Tensor condition, Number other)\n      didn't match because some of the arguments have invalid types: (!str!, !Tensor!)\n",
    ),
    (
        "t.where(condition='a', other=t)",
        "TypeError: where() received an invalid combination of arguments - got (other=Tensor, condition=str, ), but expected one of:\n * (Tensor condition, Tensor other)\n      didn't match because some of the arguments have invalid types: (!condition=str!, other=Tensor, )\n * (Tensor condition, Number other)\n      didn't match because some of the arguments have invalid types: (!condition=str!, !other=Tensor!, )\n",
    ),
    (
        "lib.isclose(t, t, 'a')",
        "TypeError: isclose(): argument 'rtol' (position 3) must be float, not str",
    ),
    (
        "lib.isclose(t, t, 1e-5, 'a')",
        "TypeError: isclose(): argument 'atol' (position 4) must be float, not str",
    ),
    (
        "lib.allclose(t, t, 'a')",
        "TypeError: allclose(): argument 'rtol' (position 3) must be float, not str",
    ),
    (
        "lib.allclose(t, t, 1e-5, 'a')",
        "TypeError: allclose(): argument 'atol' (position 4) must be float, not str",
    ),
    (
        "lib.nan_to_num(t, 'a')",
        "TypeError: nan_to_num(): argument 'nan' (position 2) must be float, not str",
    ),
    (
        "lib.nan_to_num(t, nan='a')",
        "TypeError: nan_to_num(): argument 'nan' must be float, not str",
    ),
    (
        "t.nan_to_num('a')",
        "TypeError: nan_to_num(): argument 'nan' (position 1) must be float, not str",
    ),
    ("t.nan_to_num(nan='a')", "TypeError: nan_to_num(): argument 'nan' must be float, not str"),
    (
        "lib.sum(t, 1, 'a')",
        "TypeError: sum(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.sum(1, 'a')", "TypeError: sum(): argument 'keepdim' (position 2) must be bool, not str"),
    (
        "lib.prod(t, 1, 'a')",
        "TypeError: prod(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.prod(1, 'a')", "TypeError: prod(): argument 'keepdim' (position 2) must be bool, not str"),
    ("lib.argmax(t, 'a')", "TypeError: argmax(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.argmax(t, 1, 'a')",
        "TypeError: argmax(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.argmax('a')", "TypeError: argmax(): argument 'dim' (position 1) must be int, not str"),
    (
        "t.argmax(1, 'a')",
        "TypeError: argmax(): argument 'keepdim' (position 2) must be bool, not str",
    ),
    ("lib.argmin(t, 'a')", "TypeError: argmin(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.argmin(t, 1, 'a')",
        "TypeError: argmin(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.argmin('a')", "TypeError: argmin(): argument 'dim' (position 1) must be int, not str"),
    (
        "t.argmin(1, 'a')",
        "TypeError: argmin(): argument 'keepdim' (position 2) must be bool, not str",
    ),
    (
        "lib.amax(t, 'a')",
        "TypeError: amax(): argument 'dim' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.amax(t, 1, 'a')",
        "TypeError: amax(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    (
        "t.amax('a')",
        "TypeError: amax(): argument 'dim' (position 1) must be tuple of ints, not str",
    ),
    ("t.amax(1, 'a')", "TypeError: amax(): argument 'keepdim' (position 2) must be bool, not str"),
    (
        "lib.amin(t, 'a')",
        "TypeError: amin(): argument 'dim' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.amin(t, 1, 'a')",
        "TypeError: amin(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    (
        "t.amin('a')",
        "TypeError: amin(): argument 'dim' (position 1) must be tuple of ints, not str",
    ),
    ("t.amin(1, 'a')", "TypeError: amin(): argument 'keepdim' (position 2) must be bool, not str"),
    (
        "lib.logsumexp(t, 'a')",
        "TypeError: logsumexp(): argument 'dim' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.logsumexp(t, 1, 'a')",
        "TypeError: logsumexp(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    (
        "t.logsumexp('a')",
        "TypeError: logsumexp(): argument 'dim' (position 1) must be tuple of ints, not str",
    ),
    (
        "t.logsumexp(1, 'a')",
        "TypeError: logsumexp(): argument 'keepdim' (position 2) must be bool, not str",
    ),
    ("lib.cumsum(t, 'a')", "TypeError: cumsum(): argument 'dim' (position 2) must be int, not str"),
    ("t.cumsum('a')", "TypeError: cumsum(): argument 'dim' (position 1) must be int, not str"),
    (
        "lib.cumprod(t, 'a')",
        "TypeError: cumprod(): argument 'dim' (position 2) must be int, not str",
    ),
    ("t.cumprod('a')", "TypeError: cumprod(): argument 'dim' (position 1) must be int, not str"),
    (
        "lib.softmax(t, 'a')",
        "TypeError: softmax(): argument 'dim' (position 2) must be int, not str",
    ),
    ("t.softmax('a')", "TypeError: softmax(): argument 'dim' (position 1) must be int, not str"),
    (
        "lib.log_softmax(t, 'a')",
        "TypeError: log_softmax(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "t.log_softmax('a')",
        "TypeError: log_softmax(): argument 'dim' (position 1) must be int, not str",
    ),
    ("lib.median(t, 'a')", "TypeError: median(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.median(t, 1, 'a')",
        "TypeError: median(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.median('a')", "TypeError: median(): argument 'dim' (position 1) must be int, not str"),
    (
        "t.median(1, 'a')",
        "TypeError: median(): argument 'keepdim' (position 2) must be bool, not str",
    ),
    (
        "lib.nansum(t, 'a')",
        "TypeError: nansum(): argument 'dim' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.nansum(t, 1, 'a')",
        "TypeError: nansum(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    (
        "t.nansum('a')",
        "TypeError: nansum(): argument 'dim' (position 1) must be tuple of ints, not str",
    ),
    (
        "t.nansum(1, 'a')",
        "TypeError: nansum(): argument 'keepdim' (position 2) must be bool, not str",
    ),
    ("lib.unbind(t, 'a')", "TypeError: unbind(): argument 'dim' (position 2) must be int, not str"),
    ("lib.unbind(t, dim='a')", "TypeError: unbind(): argument 'dim' must be int, not str"),
    ("t.unbind('a')", "TypeError: unbind(): argument 'dim' (position 1) must be int, not str"),
    ("t.unbind(dim='a')", "TypeError: unbind(): argument 'dim' must be int, not str"),
    (
        "lib.unsqueeze(t, 'a')",
        "TypeError: unsqueeze(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "t.unsqueeze('a')",
        "TypeError: unsqueeze(): argument 'dim' (position 1) must be int, not str",
    ),
    ("lib.cummax(t, 'a')", "TypeError: cummax(): argument 'dim' (position 2) must be int, not str"),
    ("t.cummax('a')", "TypeError: cummax(): argument 'dim' (position 1) must be int, not str"),
    ("lib.mode(t, 'a')", "TypeError: mode(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.mode(t, 1, 'a')",
        "TypeError: mode(): argument 'keepdim' (position 3) must be bool, not str",
    ),
    ("t.mode('a')", "TypeError: mode(): argument 'dim' (position 1) must be int, not str"),
    ("t.mode(1, 'a')", "TypeError: mode(): argument 'keepdim' (position 2) must be bool, not str"),
    (
        "lib.norm(t, 2, 'a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "lib.norm(t, 2, 1, 'a')",
        "TypeError: linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, not str",
    ),
    (
        "t.norm(2, 'a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "t.norm(2, 1, 'a')",
        "TypeError: linalg_vector_norm(): argument 'keepdim' (position 4) must be bool, not str",
    ),
    ("lib.topk(t, 2, 'a')", "TypeError: topk(): argument 'dim' (position 3) must be int, not str"),
    (
        "lib.topk(t, 2, 1, 'a')",
        "TypeError: topk(): argument 'largest' (position 4) must be bool, not str",
    ),
    ("t.topk(2, 'a')", "TypeError: topk(): argument 'dim' (position 2) must be int, not str"),
    (
        "t.topk(2, 1, 'a')",
        "TypeError: topk(): argument 'largest' (position 3) must be bool, not str",
    ),
    ("lib.kthvalue(t, k='a')", "TypeError: kthvalue(): argument 'k' must be int, not str"),
    (
        "lib.kthvalue(t, 2, 'a')",
        "TypeError: kthvalue(): argument 'dim' (position 3) must be int, not str",
    ),
    (
        "lib.reshape(t, shape='a')",
        "TypeError: reshape(): argument 'shape' must be tuple of ints, not str",
    ),
    (
        "lib.transpose(t, 'a', 1)",
        "TypeError: transpose(): argument 'dim0' (position 2) must be int, not str",
    ),
    (
        "lib.transpose(t, dim0='a', dim1=1)",
        "TypeError: transpose(): argument 'dim0' must be int, not str",
    ),
    (
        "t.transpose('a', 1)",
        "TypeError: transpose(): argument 'dim0' (position 1) must be int, not str",
    ),
    (
        "t.transpose(dim0='a', dim1=1)",
        "TypeError: transpose(): argument 'dim0' must be int, not str",
    ),
    (
        "lib.swapaxes('a', 0, 1)",
        "TypeError: swapaxes(): argument 'input' (position 1) must be Tensor, not str",
    ),
    (
        "lib.swapaxes(input='a', axis0=0, axis1=1)",
        "TypeError: swapaxes(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.flatten(t, 'a')",
        "TypeError: flatten(): argument 'start_dim' (position 2) must be int, not str",
    ),
    (
        "lib.flatten(t, start_dim='a')",
        "TypeError: flatten(): argument 'start_dim' must be int, not str",
    ),
    (
        "t.flatten('a')",
        "TypeError: flatten(): argument 'start_dim' (position 1) must be int, not str",
    ),
    ("t.flatten(start_dim='a')", "TypeError: flatten(): argument 'start_dim' must be int, not str"),
    (
        "lib.select(t, 'a', 0)",
        "TypeError: select(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.select(t, 0, 'a')",
        "TypeError: select(): argument 'index' (position 3) must be int, not str",
    ),
    ("t.select('a', 0)", "TypeError: select(): argument 'dim' (position 1) must be int, not str"),
    ("t.select(0, index='a')", "TypeError: select(): argument 'index' must be int, not str"),
    (
        "lib.cat(tensors='a')",
        "TypeError: cat(): argument 'tensors' must be tuple of Tensors, not str",
    ),
    ("lib.cat([t, t], 'a')", "TypeError: cat(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.stack(tensors='a')",
        "TypeError: stack(): argument 'tensors' must be tuple of Tensors, not str",
    ),
    (
        "lib.stack([t, t], 'a')",
        "TypeError: stack(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.hstack(tensors='a')",
        "TypeError: hstack(): argument 'tensors' must be tuple of Tensors, not str",
    ),
    (
        "lib.chunk(t, 'a')",
        "TypeError: chunk(): argument 'chunks' (position 2) must be int, not str",
    ),
    (
        "lib.chunk(t, 2, 'a')",
        "TypeError: chunk(): argument 'dim' (position 3) must be int, not str",
    ),
    ("t.chunk('a')", "TypeError: chunk(): argument 'chunks' (position 1) must be int, not str"),
    ("t.chunk(2, 'a')", "TypeError: chunk(): argument 'dim' (position 2) must be int, not str"),
    (
        "lib.gather(t, 'a', i)",
        "TypeError: gather(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.gather(t, 0, 'a')",
        "TypeError: gather(): argument 'index' (position 3) must be Tensor, not str",
    ),
    ("t.gather('a', i)", "TypeError: gather(): argument 'dim' (position 1) must be int, not str"),
    (
        "t.gather(0, 'a')",
        "TypeError: gather(): argument 'index' (position 2) must be Tensor, not str",
    ),
    (
        "t.scatter_add('a', i, t)",
        "TypeError: scatter_add(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.scatter_add(0, 'a', t)",
        "TypeError: scatter_add(): argument 'index' (position 2) must be Tensor, not str",
    ),
    (
        "lib.index_select(t, 'a', i1)",
        "TypeError: index_select(): argument 'dim' (position 2) must be int, not str",
    ),
    (
        "lib.index_select(t, 0, 'a')",
        "TypeError: index_select(): argument 'index' (position 3) must be Tensor, not str",
    ),
    (
        "t.index_select('a', i1)",
        "TypeError: index_select(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.index_select(0, 'a')",
        "TypeError: index_select(): argument 'index' (position 2) must be Tensor, not str",
    ),
    (
        "t.index_add('a', i1, t[:2])",
        "TypeError: index_add(): argument 'dim' (position 1) must be int, not str",
    ),
    (
        "t.index_add(0, 'a', t[:2])",
        "TypeError: index_add(): argument 'index' (position 2) must be Tensor, not str",
    ),
    (
        "lib.masked_fill('a', m, 1.0)",
        "TypeError: masked_fill() received an invalid combination of arguments - got (str, Tensor, float), but expected one of:\n * (Tensor input, Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !float!)\n * (Tensor input, Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!str!, Tensor, !float!)\n",
    ),
    (
        "lib.masked_fill(t, 'a', 1.0)",
        "TypeError: masked_fill() received an invalid combination of arguments - got (Tensor, str, float), but expected one of:\n * (Tensor input, Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !float!)\n * (Tensor input, Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (Tensor, !str!, !float!)\n",
    ),
    (
        "t.masked_fill('a', 1.0)",
        "TypeError: masked_fill() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n",
    ),
    (
        "t.masked_fill(mask='a', value=1.0)",
        "TypeError: masked_fill() received an invalid combination of arguments - got (value=float, mask=str, ), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n",
    ),
    (
        "lib.roll(t, 'a')",
        "TypeError: roll(): argument 'shifts' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.roll(t, 1, 'a')",
        "TypeError: roll(): argument 'dims' (position 3) must be tuple of ints, not str",
    ),
    (
        "t.roll('a')",
        "TypeError: roll(): argument 'shifts' (position 1) must be tuple of ints, not str",
    ),
    (
        "t.roll(1, 'a')",
        "TypeError: roll(): argument 'dims' (position 2) must be tuple of ints, not str",
    ),
    ("lib.flip(t, dims='a')", "TypeError: flip(): argument 'dims' must be tuple of ints, not str"),
    (
        "lib.tril(t, 'a')",
        "TypeError: tril(): argument 'diagonal' (position 2) must be int, not str",
    ),
    ("t.tril('a')", "TypeError: tril(): argument 'diagonal' (position 1) must be int, not str"),
    (
        "lib.triu(t, 'a')",
        "TypeError: triu(): argument 'diagonal' (position 2) must be int, not str",
    ),
    ("t.triu('a')", "TypeError: triu(): argument 'diagonal' (position 1) must be int, not str"),
    (
        "lib.diag(t, 'a')",
        "TypeError: diag(): argument 'diagonal' (position 2) must be int, not str",
    ),
    (
        "lib.diagonal('a')",
        "TypeError: diagonal(): argument 'input' (position 1) must be Tensor, not str",
    ),
    ("lib.diagonal(input='a')", "TypeError: diagonal(): argument 'input' must be Tensor, not str"),
    (
        "t.diagonal('a')",
        "TypeError: diagonal(): argument 'offset' (position 1) must be int, not str",
    ),
    (
        "t.diagonal(0, 'a')",
        "TypeError: diagonal(): argument 'dim1' (position 2) must be int, not str",
    ),
    (
        "lib.tile(t, 'a')",
        "TypeError: tile(): argument 'dims' (position 2) must be tuple of ints, not str",
    ),
    ("t.expand_as(other='a')", "TypeError: expand_as(): argument 'other' must be Tensor, not str"),
    ("t.view_as(other='a')", "TypeError: view_as(): argument 'other' must be Tensor, not str"),
    ("t.type_as(other='a')", "TypeError: type_as(): argument 'other' must be Tensor, not str"),
    (
        "t.reshape_as(other='a')",
        "TypeError: reshape_as(): argument 'other' must be Tensor, not str",
    ),
    (
        "t.unfold('a', 2, 1)",
        "TypeError: unfold(): argument 'dimension' (position 1) must be int, not str",
    ),
    (
        "t.unfold(1, 'a', 1)",
        "TypeError: unfold(): argument 'size' (position 2) must be int, not str",
    ),
    ("t.size(dim='a')", "TypeError: size(): argument 'dim' must be int, not str"),
    ("t.stride(dim='a')", "TypeError: stride(): argument 'dim' must be int, not str"),
    (
        "t.masked_fill_('a', 1.0)",
        "TypeError: masked_fill_() received an invalid combination of arguments - got (str, float), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!str!, !float!)\n",
    ),
    (
        "t.masked_fill_(mask='a', value=1.0)",
        "TypeError: masked_fill_() received an invalid combination of arguments - got (value=float, mask=str, ), but expected one of:\n * (Tensor mask, Tensor value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n * (Tensor mask, Number value)\n      didn't match because some of the arguments have invalid types: (!mask=str!, !value=float!, )\n",
    ),
    (
        "t.new_full(size='a', fill_value=1.0)",
        "TypeError: new_full(): argument 'size' must be tuple of ints, not str",
    ),
    (
        "t.new_full((2,), 'a')",
        "TypeError: new_full(): argument 'fill_value' (position 2) must be Number, not str",
    ),
    (
        "lib.take_along_dim(t, i, 'a')",
        "TypeError: take_along_dim(): argument 'dim' (position 3) must be int, not str",
    ),
    (
        "lib.broadcast_to(t, 'a')",
        "TypeError: broadcast_to(): argument 'size' (position 2) must be tuple of ints, not str",
    ),
    (
        "lib.broadcast_to(t, size='a')",
        "TypeError: broadcast_to(): argument 'size' must be tuple of ints, not str",
    ),
    (
        "lib.full(size='a', fill_value=1.0)",
        "TypeError: full(): argument 'size' must be tuple of ints, not str",
    ),
    (
        "lib.full((2,), fill_value='a')",
        "TypeError: full(): argument 'fill_value' must be Number, not str",
    ),
    ("lib.eye(n='a')", "TypeError: eye(): argument 'n' must be int, not str"),
    (
        "lib.zeros_like(input='a')",
        "TypeError: zeros_like(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.ones_like(input='a')",
        "TypeError: ones_like(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.full_like(input='a', fill_value=1.0)",
        "TypeError: full_like(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.full_like(t, fill_value='a')",
        "TypeError: full_like(): argument 'fill_value' must be Number, not str",
    ),
    (
        "lib.rand_like(input='a')",
        "TypeError: rand_like(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.multinomial(input='a', num_samples=2)",
        "TypeError: multinomial(): argument 'input' must be Tensor, not str",
    ),
    (
        "lib.tril_indices(row='a', col=3)",
        "TypeError: tril_indices(): argument 'row' must be int, not str",
    ),
    (
        "lib.tril_indices(3, col='a')",
        "TypeError: tril_indices(): argument 'col' must be int, not str",
    ),
    (
        "lib.triu_indices(row='a', col=3)",
        "TypeError: triu_indices(): argument 'row' must be int, not str",
    ),
    (
        "lib.triu_indices(3, col='a')",
        "TypeError: triu_indices(): argument 'col' must be int, not str",
    ),
    ("lib.det('a')", "TypeError: det(): argument 'input' (position 1) must be Tensor, not str"),
    ("lib.det(input='a')", "TypeError: det(): argument 'input' must be Tensor, not str"),
    (
        "lib.inverse('a')",
        "TypeError: inverse(): argument 'input' (position 1) must be Tensor, not str",
    ),
    ("lib.inverse(input='a')", "TypeError: inverse(): argument 'input' must be Tensor, not str"),
    (
        "lib.linalg.vector_norm(t, ord='a')",
        "TypeError: linalg_vector_norm(): argument 'ord' must be Number, not str",
    ),
    (
        "lib.linalg.vector_norm(t, 2, 'a')",
        "TypeError: linalg_vector_norm(): argument 'dim' (position 3) must be tuple of ints, not str",
    ),
    (
        "lib.linalg.solve('a', sq)",
        "TypeError: linalg_solve(): argument 'A' (position 1) must be Tensor, not str",
    ),
    (
        "lib.linalg.solve(A='a', B=sq)",
        "TypeError: linalg_solve(): argument 'A' must be Tensor, not str",
    ),
    (
        "lib.linalg.inv('a')",
        "TypeError: linalg_inv(): argument 'A' (position 1) must be Tensor, not str",
    ),
    ("lib.linalg.inv(A='a')", "TypeError: linalg_inv(): argument 'A' must be Tensor, not str"),
    (
        "lib.linalg.qr('a')",
        "TypeError: linalg_qr(): argument 'A' (position 1) must be Tensor, not str",
    ),
    ("lib.linalg.qr(A='a')", "TypeError: linalg_qr(): argument 'A' must be Tensor, not str"),
    (
        "F_.hardshrink(t, lambd='a')",
        "TypeError: hardshrink(): argument 'lambd' must be Number, not str",
    ),
    (
        "F_.pixel_shuffle(lib.ones(1,4,2,2), upscale_factor='a')",
        "TypeError: pixel_shuffle(): argument 'upscale_factor' must be int, not str",
    ),
]


@pytest.mark.parametrize(("code", "message"), CASES)
def test_argument_error_as_torch_words_it(code, message):
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is part of the message
        eval(code, ENV)  # noqa: S307 - compiled as written: its keywords are read from it
    assert f"{type(info.value).__name__}: {info.value}" == message


def test_inplace_method_keeps_its_name_and_method_position():
    # an in-place method's error was counted as the function's before the rename (double shift)
    with pytest.raises(TypeError) as info:
        t.clone().atan2_(1.0)
    assert str(info.value) == "atan2_(): argument 'other' (position 1) must be Tensor, not float"
    with pytest.raises(TypeError) as info:
        t.clone().add_(other="a")
    assert str(info.value) == "add_(): argument 'other' must be Tensor, not str"


def test_lerp_method_lists_overloads():
    with pytest.raises(TypeError) as info:
        torch.ones(3).lerp("a", 1)
    assert str(info.value) == (
        "lerp() received an invalid combination of arguments - got (str, int), but expected one "
        "of:\n * (Tensor end, Tensor weight)\n      didn't match because some of the arguments "
        "have invalid types: (!str!, !int!)\n * (Tensor end, Number weight)\n      didn't match "
        "because some of the arguments have invalid types: (!str!, !int!)\n"
    )


def test_operator_with_foreign_operand_still_falls_back():
    # x == "a" and x != None go to Python's fallback (NotImplemented), not the overload error
    assert (t == "a") is False
    assert (t != None) is True  # noqa: E711
