"""Session 37 (helper bits): torch-free regression tests of the library fixes the bit
manipulation programs of tests/reference/test_s37_bits_reference.py found: Python ints outside
[-2**63, 2**64) as operands of narrow integer tensors and of shifts (CPython's OverflowError, as
torch's parser reads a Scalar), a number shifted by a tensor wrapped as torch reads it; shifts
and bitwise_not of the shell unsigned dtypes (torch's NotImplementedError); the argument errors
of the bitwise functions and methods (torch's overload lists for the shifts, for a left-out or
extra operand, for out= of no tensor type or beside a number); the order of the errors for float
operands (shapes, then out='s cast, then the kernel's refusal); iinfo's call errors. torch's
messages are written here as literals."""

from __future__ import annotations

import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _forms(op, got, marked=None, method=False):
    """torch's overload-list TypeError of a bitwise function (or method)."""
    bad = "      didn't match because some of the arguments have invalid types: "
    if method:
        lines = [" * (Tensor other)", " * (Number other)"]
        if marked is not None:
            lines = [lines[0] + "\n" + bad + marked, lines[1] + "\n" + bad + marked]
        body = "\n".join(lines) + "\n"
    else:
        second = " * (Number self, Tensor other)\n"
        if marked is not None:
            second += bad + marked + "\n"
        body = (
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            + second
            + " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    return (
        f"{op}() received an invalid combination of arguments - got {got}, but expected one "
        f"of:\n{body}"
    )


@pytest.mark.parametrize("dtype", [mt.int32, mt.uint8, mt.int8, mt.int64])
@pytest.mark.parametrize(
    "fn, msg",
    [
        (lambda t: t & 2**70, "int too big to convert"),
        (lambda t: t | 2**64, "int too big to convert"),
        (lambda t: t ^ (-(2**63) - 1), "can't convert negative int to unsigned"),
        (lambda t: t + 2**64, "int too big to convert"),
        (lambda t: t.clone().add_(2**64), "int too big to convert"),
        (lambda t: t.clone().__ior__(2**65), "int too big to convert"),
        (lambda t: t << 2**64, "int too big to convert"),
        (lambda t: t >> -(2**64), "can't convert negative int to unsigned"),
        (lambda t: 2**64 << t, "int too big to convert"),
    ],
)
def test_ints_beyond_a_scalar_overflow(dtype, fn, msg):
    t = mt.tensor([1, 2, 3], dtype=dtype)
    assert _message(OverflowError, lambda: fn(t)) == msg


def test_in_range_ints_still_wrap():
    i32 = mt.tensor([1, 2, -3], dtype=mt.int32)
    assert (i32 & (2**40 + 7)).tolist() == [1, 2, 5]
    assert (i32 ^ 0xFFFFFFFFFFFFFFFF).tolist() == [-2, -3, 2]
    assert (mt.tensor([1, 2, 3]) << 2**63).tolist() == [0, 0, 0]
    assert (2**63 << mt.tensor([0, 1])).tolist() == [-(2**63), 0]
    assert (0xFFFFFFFFFFFFFFFF >> mt.tensor([0, 1, 63])).tolist() == [-1, -1, -1]
    assert mt.bitwise_left_shift(2**63, mt.tensor([0])).tolist() == [-(2**63)]
    # add's alpha * other is the kernel's own product: it wraps, it is no Scalar
    t = mt.tensor([1], dtype=mt.int8)
    assert t.add(2**62, alpha=4).tolist() == [1]
    assert t.add(200, alpha=2).tolist() == [-111]


@pytest.mark.parametrize("name, short", [("uint16", "UInt16"), ("uint32", "UInt32"),
                                         ("uint64", "UInt64")])  # fmt: skip
def test_shell_uint_shifts_and_not(name, short):
    x = mt.tensor([1, 2, 40000], dtype=getattr(mt, name))
    lshift = f"\"lshift_cpu\" not implemented for '{short}'"
    rshift = f"\"rshift_cpu\" not implemented for '{short}'"
    bnot = f"\"bitwise_not_cpu\" not implemented for '{short}'"
    assert _message(NotImplementedError, lambda: x << 1) == lshift
    assert _message(NotImplementedError, lambda: 1 << x) == lshift
    assert _message(NotImplementedError, lambda: x >> x) == rshift
    assert _message(NotImplementedError, lambda: x.clone().__ilshift__(1)) == lshift
    assert _message(NotImplementedError, lambda: x.clone().bitwise_right_shift_(1)) == rshift
    assert _message(NotImplementedError, lambda: ~x) == bnot
    assert _message(NotImplementedError, lambda: x.clone().bitwise_not_()) == bnot
    assert (x & 3).tolist() == [1, 2, 0]  # and/or/xor are built for them
    assert (x ^ x).tolist() == [0, 0, 0]


def test_shift_overload_errors():
    t = mt.tensor([1, 2, 3])
    for op in ("bitwise_left_shift", "bitwise_right_shift"):
        fn = getattr(mt, op)
        assert _message(TypeError, lambda fn=fn: fn(3, 5)) == _forms(
            op, "(int, int)", "(!int!, !int!)"
        )
        assert _message(TypeError, lambda fn=fn: fn(t, "a")) == _forms(
            op, "(Tensor, str)", "(!Tensor!, !str!)"
        )
        assert _message(TypeError, lambda fn=fn: fn(None, t)) == _forms(
            op, "(NoneType, Tensor)", "(!NoneType!, Tensor)"
        )
        assert _message(TypeError, lambda op=op: getattr(t, op)("a")) == _forms(
            op, "(str)", "(!str!)", method=True
        )


@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor",
                                "bitwise_left_shift", "bitwise_right_shift"])  # fmt: skip
def test_bitwise_arity_errors(op):
    t = mt.tensor([1, 2, 3])
    fn = getattr(mt, op)
    assert _message(TypeError, lambda: fn(t)) == _forms(op, "(Tensor)")
    assert _message(TypeError, lambda: fn(t, 1, 2)) == _forms(op, "(Tensor, int, int)")
    assert _message(TypeError, lambda: fn(t, t, out=3)) == _forms(op, "(Tensor, Tensor, out=int)")
    o = mt.empty(3, dtype=mt.int64)
    assert _message(TypeError, lambda: fn(3, t, out=o)) == _forms(op, "(int, Tensor, out=Tensor)")
    assert _message(TypeError, lambda: getattr(t, op)()) == _forms(op, "()", method=True)
    assert _message(TypeError, lambda: getattr(t, op)(1, 2)) == _forms(
        op, "(int, int)", method=True
    )
    assert _message(TypeError, lambda: getattr(t, op + "_")("a")) == _forms(
        op + "_", "(str)", "(!str!)", method=True
    )
    assert _message(TypeError, lambda: getattr(t, op + "_")()) == _forms(
        op + "_", "()", method=True
    )


def test_bitwise_not_arity():
    t = mt.tensor([1])
    msg = 'bitwise_not() missing 1 required positional arguments: "input"'
    assert _message(TypeError, lambda: mt.bitwise_not()) == msg
    msg = "bitwise_not() takes 1 positional argument but 2 were given"
    assert _message(TypeError, lambda: mt.bitwise_not(t, t)) == msg


def test_float_operand_error_order():
    t, f = mt.tensor([1, 2, 3]), mt.tensor([1.5, 2.0])
    size = (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
    )
    assert _message(RuntimeError, lambda: t.bitwise_and(f)) == size
    assert _message(RuntimeError, lambda: t.clone().bitwise_or_(f)) == size
    assert _message(RuntimeError, lambda: t << f) == size
    o = mt.empty(2, dtype=mt.int64)
    cast = "result type Float can't be cast to the desired output type Long"
    assert _message(RuntimeError, lambda: mt.bitwise_or(f, 2, out=o)) == cast
    assert _message(RuntimeError, lambda: mt.bitwise_left_shift(f, 2, out=o)) == cast
    refused = "\"bitwise_and_cpu\" not implemented for 'Float'"
    assert _message(NotImplementedError, lambda: mt.bitwise_and(f, 2, out=mt.empty(2))) == refused
    assert _message(RuntimeError, lambda: mt.bitwise_not(f, out=o)) == (
        "Found dtype Long but expected Float"
    )
    assert _message(NotImplementedError, lambda: mt.bitwise_not(f, out=mt.empty(2))) == (
        "\"bitwise_not_cpu\" not implemented for 'Float'"
    )


def test_iinfo_call_errors():
    missing = 'iinfo() missing 1 required positional arguments: "type"'
    assert _message(TypeError, lambda: mt.iinfo()) == missing
    assert _message(TypeError, lambda: mt.iinfo(dtype=mt.int8)) == missing
    assert _message(TypeError, lambda: mt.iinfo(mt.int8, mt.int8)) == (
        "iinfo() takes 1 positional argument but 2 were given"
    )
    assert _message(TypeError, lambda: mt.iinfo(mt.int8, x=1)) == (
        "iinfo() got an unexpected keyword argument 'x'"
    )
    assert mt.iinfo(type=mt.int8).max == 127


@pytest.mark.parametrize("op", ["remainder", "floor_divide"])
def test_division_arity_errors(op):
    t = mt.tensor([7, -7])
    fn = getattr(mt, op)
    if op == "remainder":
        forms = (" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                 " * (Number self, Tensor other)\n"
                 " * (Tensor input, Number other, *, Tensor out = None)\n")  # fmt: skip
    else:
        forms = (" * (Tensor input, Tensor other, *, Tensor out = None)\n"
                 " * (Tensor input, Number other)\n")  # fmt: skip
    method_forms = " * (Tensor other)\n * (Number other)\n"

    def listed(name, got, body):
        return (
            f"{name}() received an invalid combination of arguments - got {got}, but expected "
            f"one of:\n{body}"
        )

    assert _message(TypeError, lambda: fn(t)) == listed(op, "(Tensor)", forms)
    if op == "remainder":
        assert _message(TypeError, lambda: fn(t, 2, 3)) == listed(op, "(Tensor, int, int)", forms)
    else:  # (one overload takes two arguments: the parser names the count)
        extra = "floor_divide() takes 2 positional arguments but 3 were given"
        assert _message(TypeError, lambda: fn(t, 2, 3)) == extra
    assert _message(TypeError, lambda: getattr(t, op)()) == listed(op, "()", method_forms)
    assert _message(TypeError, lambda: getattr(t, op)(1, 2)) == listed(
        op, "(int, int)", method_forms
    )
    assert _message(TypeError, lambda: getattr(t.clone(), op + "_")()) == listed(
        op + "_", "()", method_forms
    )
    assert fn(t, 3).tolist() == ([1, 2] if op == "remainder" else [2, -3])
