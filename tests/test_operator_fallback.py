"""Operators with an operand of a foreign type give Python NotImplemented, as torch's do, so the
operand's reflected method runs or Python raises its own TypeError (NOTE [ Operators with
foreign operands ]); the function and method forms keep raising."""

import operator
import re

import pytest

import minitorch

BINARY = {
    "+": ("add", "radd"), "-": ("sub", "rsub"), "*": ("mul", "rmul"), "/": ("truediv", "rtruediv"),
    "//": ("floordiv", "rfloordiv"), "%": ("mod", "rmod"), "**": ("pow", "rpow"),
    "&": ("and", "rand"), "|": ("or", "ror"), "^": ("xor", "rxor"), "<<": ("lshift", "rlshift"),
    ">>": ("rshift", "rrshift"),
}  # fmt: skip
COMPARE = {"<": "gt", "<=": "ge", ">": "lt", ">=": "le"}  # Python's reflected comparisons


class Reflecting:
    """Answers every reflected operator with its name."""


for _fwd, _refl in BINARY.values():
    setattr(Reflecting, f"__{_refl}__", lambda self, other, n=_refl: n)
for _refl in COMPARE.values():
    setattr(Reflecting, f"__{_refl}__", lambda self, other, n=_refl: n)


class Plain:
    pass


def _x(kind):
    if kind == "bool":
        return minitorch.ones(2, dtype=minitorch.bool)
    return minitorch.ones(2, dtype=minitorch.int64 if kind == "int" else minitorch.float32)


@pytest.mark.parametrize("kind", ["float", "int", "bool"])
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_operators_defer_to_the_reflected_method(kind, op):
    x = _x(kind)
    assert eval(f"x {op} o", {"x": x, "o": Reflecting()}) == BINARY[op][1]
    env = {"x": x.clone(), "o": Reflecting()}
    exec(f"x {op}= o", env)  # the in-place form falls back to x = x op o
    assert env["x"] == BINARY[op][1]


@pytest.mark.parametrize("op", list(COMPARE))
def test_comparisons_defer_to_the_reflected_comparison(op):
    assert eval(f"x {op} o", {"x": _x("float"), "o": Reflecting()}) == COMPARE[op]


@pytest.mark.parametrize("other", [Plain(), "a", None])
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "&", "|"])
def test_python_raises_its_own_error(op, other):
    if op == "*" and isinstance(other, str):
        pytest.skip("str's repetition asks the tensor for an index (torch's error too)")
    name = re.escape(type(other).__name__)
    sym = re.escape(op)
    with pytest.raises(
        TypeError, match=rf"unsupported operand type\(s\) for {sym}.*: 'Tensor' and '{name}'"
    ):  # noqa: E501
        eval(f"x {op} o", {"x": _x("int"), "o": other})
    if not isinstance(other, str):  # str's own + * % act on a Tensor operand
        with pytest.raises(
            TypeError, match=rf"unsupported operand type\(s\) for {sym}.*: '{name}' and 'Tensor'"
        ):  # noqa: E501
            eval(f"o {op} x", {"x": _x("int"), "o": other})


def test_comparison_error_and_equality():
    msg = "'<' not supported between instances of 'Tensor' and 'Plain'"
    with pytest.raises(TypeError, match=msg):
        _ = _x("float") < Plain()
    assert (_x("float") == "a") is False and (_x("float") != None) is True  # noqa: E711


@pytest.mark.parametrize("fn", ["add", "sub", "mul", "div"])
def test_function_and_method_forms_still_raise(fn):
    x = _x("float")
    with pytest.raises(TypeError, match=rf"{fn}\(\): argument 'other'"):
        getattr(minitorch, fn)(x, Reflecting())
    with pytest.raises(TypeError, match=rf"{fn}\(\): argument 'other'"):
        getattr(x, fn)(Reflecting())


def test_error_type_reads_as_type_error_and_numbers_are_unaffected():
    with pytest.raises(TypeError) as info:
        minitorch.add(_x("float"), Plain())
    assert type(info.value).__name__ == "TypeError"
    x = _x("float")
    assert (x + 2).tolist() == [3.0, 3.0] and (2 - x).tolist() == [1.0, 1.0]
    assert operator.truediv(x, 4).tolist() == [0.25, 0.25]
