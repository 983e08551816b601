"""torch._foreach_*: an op applied to each tensor of a list (EMA and optimizer code calls them).

torch runs a list in fused kernels; here each entry is the ordinary op, so results, in-place
semantics and gradients are exactly those of the per-tensor calls. The second operand may be a
number, a list of numbers or tensors (one per entry) or, for the binary ops, a single tensor.

Differences from torch: an output's grad_fn is the per-tensor op's node (MulBackward0,
LinalgVectorNormBackward0, ...); torch's foreach nodes are ForeachNormBackward0,
ForeachDivBackward0 or a generic CppFunction.
"""

from __future__ import annotations

import numbers

import numpy as np

from minitorch import _dtype, _ops
from minitorch._arg_errors import too_many_positional
from minitorch._tensor import Tensor

# fmt: off
_TERNARY = ("addcmul", "addcdiv")
_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max")
_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
          "zero")
__all__ = (
    [f"_foreach_{n}" for n in _BINARY] + [f"_foreach_{n}_" for n in _BINARY]
    + [f"_foreach_{n}" for n in _UNARY if n != "zero"] + [f"_foreach_{n}_" for n in _UNARY]
    + [f"_foreach_{n}{s}" for n in _TERNARY for s in ("", "_")]
    + ["_foreach_lerp", "_foreach_lerp_", "_foreach_copy_", "_foreach_norm", "_foreach_max"]
)
# fmt: on


def _tensors(xs, op: str, call=None) -> list:
    """The list of tensors `self`. call: (args, kwargs) of an op with overloads, whose wrong
    `self` torch reports as an invalid combination of arguments."""
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)):
        if call is not None:
            raise _invalid(op, *call)
        raise TypeError(
            f"{op}(): argument 'self' (position 1) must be tuple of Tensors, not "
            f"{type(xs).__name__}"
        )
    if not xs:  # every torch foreach op refuses an empty list (it has no device to run on)
        raise RuntimeError("Tensor list must have at least one tensor.")
    _check_elements(xs, 0)
    return list(xs)


def _is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) or (isinstance(x, Tensor) and x.ndim == 0)


def _check_elements(xs, position: int) -> None:
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument {position}, but got "
                f"{type(x).__name__}"
            )


# the overloads torch's "invalid combination of arguments" message lists, by op
_SCALAR = "(tuple of Tensors self, Number scalar)"
_SCALARS = "(tuple of Tensors self, tuple of Scalars scalars)"
_TENSOR = "(tuple of Tensors self, Tensor other)"
_TENSORS = "(tuple of Tensors self, tuple of Tensors other)"
_ALPHA = ", *, Number alpha = 1)"
_OVERLOADS = {
    "add": (_SCALAR, _SCALARS, _TENSOR[:-1] + _ALPHA, _TENSORS[:-1] + _ALPHA),
    "sub": (_SCALAR, _SCALARS, _TENSORS[:-1] + _ALPHA),
    "mul": (_SCALARS, _TENSOR, _TENSORS, _SCALAR),
    "div": (_SCALARS, _TENSOR, _TENSORS, _SCALAR),
    "pow": tuple(
        f"({a}, {b} exponent)"
        for a, b in (("Number self", "tuple of Tensors"), ("tuple of Tensors self", "Number"),
                     ("tuple of Tensors self", "tuple of Scalars"),
                     ("tuple of Tensors self", "tuple of Tensors"))
    ),  # fmt: skip
    "lerp": tuple(
        f"(tuple of Tensors self, tuple of Tensors tensors1, {w})"
        for w in ("Number weight", "tuple of Scalars weight", "tuple of Tensors weights")
    ),
    **dict.fromkeys(("addcmul", "addcdiv"), tuple(
        f"(tuple of Tensors self, tuple of Tensors tensor1, tuple of Tensors tensor2, {v})"
        for v in ("tuple of Scalars scalars", "Tensor scalars", "Number value = 1")
    )),
}
for _name in ("maximum", "minimum", "clamp_min", "clamp_max"):
    _OVERLOADS[_name] = (_SCALAR, _SCALARS, _TENSORS)
_OVERLOADS["pow_"] = _OVERLOADS["pow"][1:]  # no in-place form for a number self


def _type_name(a) -> str:
    if isinstance(a, list):
        return f"list of [{', '.join(type(x).__name__ for x in a)}]"
    if isinstance(a, tuple):
        return f"tuple of {tuple(type(x).__name__ for x in a)!r}".replace("'", "")
    return type(a).__name__


_NO_MATCH = "      didn't match because "


def _invalid(op: str, args: tuple, kwargs: dict) -> TypeError:
    """torch's TypeError for arguments no overload of op takes: the overloads, each one with as
    many entries as arguments given (its "*" counted, as torch's formatter counts it) followed
    by why it did not match: the keywords it has no name for (a name with a default never
    matches there), else every argument marked."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    why = ", ".join(
        [f"!{_type_name(a)}!" for a in args] + [f"!{k}={_type_name(v)}!" for k, v in kwargs.items()]
    )
    lines = []
    name = op.removeprefix("_foreach_")
    for o in _OVERLOADS.get(name) or _OVERLOADS[name.rstrip("_")]:
        lines.append(f" * {o}\n")
        entries = o[1:-1].split(", ")
        if len(entries) != len(args) + len(kwargs):
            continue
        names = {e.split(" ")[-1] for e in entries if "=" not in e}
        wrong = [k for k in kwargs if k not in names]
        if wrong:
            lines.append(f"{_NO_MATCH}some of the keywords were incorrect: {', '.join(wrong)}\n")
        else:
            lines.append(f"{_NO_MATCH}some of the arguments have invalid types: ({why})\n")
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), but "
        f"expected one of:\n{''.join(lines)}"
    )


def _per_entry(other, n: int, op: str, call=None, position: int = 1) -> list:
    """The second operand for each of n entries: a list given one per entry, else repeated.
    call: (args, kwargs) of an op with overloads, for the message of an operand of no kind.
    position: the argument's index in torch's message for a list that is not all numbers
    (torch then reads it as a list of tensors)."""
    if call is not None and not isinstance(other, (Tensor, list, tuple, numbers.Number)):
        raise _invalid(op, *call)
    if isinstance(other, (list, tuple)):
        if not all(isinstance(o, numbers.Number) for o in other):
            _check_elements(other, position)
        if len(other) != n:  # torch's texts do not name the op
            if not any(isinstance(o, Tensor) for o in other):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            raise RuntimeError(
                f"Tensor lists must have the same number of tensors, got {n} and {len(other)}"
            )
        return list(other)
    return [other] * n


# the op a number operand goes to (torch's maximum/minimum take tensors only)
_NUMBER_FORMS = {"maximum": "clamp_min", "minimum": "clamp_max"}


_MISSING = object()

# the operands each keyword of torch's binary overloads takes (a Number may be a 0-d tensor)
_KEYWORD_TAKES = {
    "scalar": lambda x: _is_scalar(x),
    "scalars": lambda x: _kind(x) == "numbers",
    "other": lambda x: _kind(x) == "tensors",
}


def _kind(x) -> str:
    if isinstance(x, numbers.Number):
        return "number"
    if isinstance(x, (list, tuple)) and all(isinstance(v, numbers.Number) for v in x):
        return "numbers"
    return "tensors" if isinstance(x, (Tensor, list, tuple)) else "other"


def _number_like(x) -> bool:
    """A scale's kinds: a number, numbers, or a tensor (0-d, or 1-d for packed scalars)."""
    return isinstance(x, Tensor) or _kind(x) in ("number", "numbers")


def _binary_call(name: str, op_name: str, self, other, extra: tuple, alpha, named: dict):
    """(operand, alpha) of a foreach binary call other than (self, other): the operand given by
    keyword (torch's overloads name it scalar=, scalars= or other=, exponent= for pow; EMA code
    passes it so), alpha for add/sub with tensors, or torch's error for what no overload takes."""
    args = (self,) + (() if other is _MISSING else (other,)) + extra
    kwargs = dict(named, **({} if alpha is _MISSING else {"alpha": alpha}))
    if name == "sub" and len(args) == 2 + len(extra) and len(args) + len(kwargs) == 3:
        # torch's parser finds one overload of sub taking three arguments and names its fault
        if extra:
            raise too_many_positional(op_name, 3, 2)
        if "alpha" in kwargs:
            if not isinstance(other, (list, tuple)):
                raise TypeError(
                    f"{op_name}(): argument 'other' (position 2) must be tuple of Tensors, not "
                    f"{type(other).__name__}"
                )
            _check_elements(other, 1)
            if not _is_scalar(alpha):
                raise TypeError(
                    f"{op_name}(): argument 'alpha' must be Number, not {type(alpha).__name__}"
                )
            return other, alpha
    if len(named) == 1 and other is _MISSING:
        ((key, other),) = named.items()
        if name == "pow":  # its overloads all name the operand exponent
            takes = key == "exponent"
        else:
            takes = key in _KEYWORD_TAKES and _KEYWORD_TAKES[key](other)
        if not takes:
            raise _invalid(op_name, args, kwargs)
    elif named or other is _MISSING:
        raise _invalid(op_name, args, kwargs)
    if extra:
        raise _invalid(op_name, args, kwargs)
    if alpha is not _MISSING:
        if name not in ("add", "sub") or isinstance(other, numbers.Number):
            raise _invalid(op_name, args, kwargs)
        if isinstance(other, (list, tuple)):
            _check_elements(other, 1)  # a list with alpha is a list of tensors
        if not _is_scalar(alpha):
            raise _invalid(op_name, args, kwargs)
    return other, alpha


def _binary(name: str, inplace: bool):
    op_name = f"_foreach_{name}{'_' if inplace else ''}"
    method_name = f"{name}_"

    def op(self, *args, alpha=_MISSING, **named):  # (other by keyword lands in named)
        if len(args) == 1 and not named and alpha is _MISSING:
            other = args[0]
        else:
            other = args[0] if args else _MISSING
            other, alpha = _binary_call(name, op_name, self, other, args[1:], alpha, named)
        if name == "pow" and not inplace and _is_scalar(self):
            # _foreach_pow(scalar, exponents): scalar ** t for each t (torch's foreach Adam
            # computes its bias corrections as beta ** step this way)
            return tuple(_ops.pow(self, t) for t in _tensors(other, op_name))
        call = ((self, other), {} if alpha is _MISSING else {"alpha": alpha})
        xs = _tensors(self, op_name, call)
        if isinstance(other, Tensor) and other.ndim and name != "pow":
            raise RuntimeError(
                f"scalar tensor expected to be 0 dim but it has {other.ndim} dimensions and "
                f"{other.numel()} elements."
            )
        ys = _per_entry(other, len(xs), op_name, call)
        kw = {} if alpha is _MISSING else {"alpha": alpha}
        fn = getattr(_ops, _NUMBER_FORMS.get(name, name))
        if name in _NUMBER_FORMS and ys and isinstance(ys[0], Tensor):
            fn = getattr(_ops, name)
        if inplace:
            mul = name == "mul"
            for x, y in zip(xs, ys, strict=True):
                if mul and not isinstance(y, Tensor) and x.dtype in _dtype.HALF_FLOATS:
                    # torch's in-place foreach mul rounds a number to the half dtype first (its
                    # out-of-place form and Tensor.mul_ do not): a bf16 EMA decay of 0.999 is 1
                    npdt = _dtype.numpy_dtype(x.dtype)
                    y = float(np.asarray(_dtype.via_float32(y, npdt), npdt))
                method = getattr(x, method_name, None)
                if method is None:  # no in-place method (maximum, minimum): computed, written back
                    x.copy_(fn(x, y, **kw))
                elif kw:
                    method(y, **kw)
                else:
                    method(y)
            return self  # torch returns the list it was given
        return tuple(fn(x, y, **kw) for x, y in zip(xs, ys, strict=True))  # a tuple, as torch's

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"{name} of each tensor of a list with the matching operand. Mirrors torch."
    return op


def _unary(name: str, inplace: bool):
    op_name = f"_foreach_{name}{'_' if inplace else ''}"

    def op(self):
        xs = _tensors(self, op_name)
        if inplace:
            for x in xs:
                method = getattr(x, f"{name}_", None)
                if method is not None:
                    method()
                else:
                    x.copy_(getattr(x, name)())
            return self  # torch returns the list it was given
        return tuple(getattr(x, name)() for x in xs)

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"{name} of each tensor of a list. Mirrors torch."
    return op


for _name in _BINARY:
    globals()[f"_foreach_{_name}"] = _binary(_name, False)
    globals()[f"_foreach_{_name}_"] = _binary(_name, True)
for _name in _UNARY:
    if _name != "zero":
        globals()[f"_foreach_{_name}"] = _unary(_name, False)
    globals()[f"_foreach_{_name}_"] = _unary(_name, True)
del _name


def _ternary(name: str, inplace: bool):
    """_foreach_addcmul(_) / _foreach_addcdiv(_): the op of each entry with its two tensors."""
    op_name = f"_foreach_{name}{'_' if inplace else ''}"

    def op(*args, **kwargs):
        self, tensor1, tensor2, value, packed = _ternary_args(op_name, args, kwargs)
        xs = _tensors(self, op_name)
        n = len(xs)
        if packed:
            value = _packed_scalars(value, n)
        rows = zip(
            xs,
            _per_entry(tensor1, n, op_name),
            _per_entry(tensor2, n, op_name),
            _per_entry(value, n, op_name),
            strict=True,
        )
        if inplace:
            for x, p, q, w in rows:
                getattr(x, f"{name}_")(p, q, value=w)
            return self  # torch returns the list it was given
        fn = getattr(_ops, name)
        return tuple(fn(x, p, q, value=w) for x, p, q, w in rows)

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"{name} of each tensor of a list with the matching tensors. Mirrors torch."
    return op


def _ternary_args(op: str, args: tuple, kwargs: dict) -> tuple:
    """(self, tensor1, tensor2, value, packed) of an addcmul/addcdiv call: the scale a number
    (value=; a 0-d tensor there is a number), numbers or a 1-d tensor of them (scalars=; packed
    is True for such a tensor), or torch's error for what no overload takes."""
    bound = dict(zip(("self", "tensor1", "tensor2", "value"), args, strict=False))
    if len(args) > 4:
        raise _invalid(op, args, kwargs)
    for key, v in kwargs.items():
        slot = "value" if key == "scalars" else key
        if slot in bound or slot not in ("self", "tensor1", "tensor2", "value"):
            raise _invalid(op, args, kwargs)
        if key == "value" and not _is_scalar(v):
            raise _invalid(op, args, kwargs)
        if key == "scalars" and not isinstance(v, Tensor) and _kind(v) != "numbers":
            raise _invalid(op, args, kwargs)
        bound[slot] = v
    bound.setdefault("value", 1)
    value = bound["value"]
    if len(bound) != 4 or not _number_like(value):
        raise _invalid(op, args, kwargs)
    packed = isinstance(value, Tensor) and "value" not in kwargs
    return bound["self"], bound["tensor1"], bound["tensor2"], value, packed


def _packed_scalars(value: Tensor, n: int) -> list:
    """addcmul/addcdiv's scalars given as a 1-d tensor, one per entry, as numbers. Reading them
    is a host sync on a GPU, as torch's reading of its packed scalars is."""
    if value.ndim != 1:
        raise RuntimeError(
            f"Expected packed scalar Tensor to be of dimension 1. Got {value.ndim} instead."
        )
    if value.shape[0] != n:
        raise RuntimeError(
            f"Expected length of scalars to match input of length {n} but got {value.shape[0]} "
            "instead."
        )
    return value.detach().tolist()


for _name in _TERNARY:
    globals()[f"_foreach_{_name}"] = _ternary(_name, False)
    globals()[f"_foreach_{_name}_"] = _ternary(_name, True)
del _name


def _lerp_entries(op: str, args: tuple, kwargs: dict):
    """(entries, ends, weights) of a _foreach_lerp(_) call, or torch's argument errors: the
    weight is a number (or 0-d tensor), numbers or tensors, one per entry; by keyword it is
    weight= (a number or numbers) or weights= (tensors)."""
    bound = dict(zip(("self", "tensors1", "weight"), args, strict=False))
    if len(args) > 3:
        raise _invalid(op, args, kwargs)
    for key, value in kwargs.items():
        slot = "weight" if key == "weights" else key
        if slot in bound or slot not in ("self", "tensors1", "weight"):
            raise _invalid(op, args, kwargs)
        if key == "weights":  # the overload of tensors
            if not isinstance(value, (list, tuple)):
                raise _invalid(op, args, kwargs)
            _check_elements(value, 2)
        elif key == "weight" and not _number_like(value):
            raise _invalid(op, args, kwargs)
        bound[slot] = value
    if len(bound) != 3:
        raise _invalid(op, args, kwargs)
    self, tensors1, weight = bound["self"], bound["tensors1"], bound["weight"]
    xs = _tensors(self, op, (args, kwargs))
    if not isinstance(tensors1, (list, tuple)):
        raise _invalid(op, args, kwargs)
    _check_elements(tensors1, 1)  # torch reads the ends before the weight
    if isinstance(weight, Tensor) and weight.ndim:
        raise _invalid(op, args, kwargs)
    ends = _per_entry(tensors1, len(xs), op, (args, kwargs))
    return xs, ends, _per_entry(weight, len(xs), op, (args, kwargs), position=2)


def _foreach_lerp(*args, **kwargs):
    """lerp of each entry towards the matching tensor. Mirrors torch._foreach_lerp."""
    xs, ends, ws = _lerp_entries("_foreach_lerp", args, kwargs)
    return tuple(_ops.lerp(x, e, w) for x, e, w in zip(xs, ends, ws, strict=True))


def _foreach_lerp_(*args, **kwargs):
    """In-place lerp of each entry (an EMA's update). Mirrors torch._foreach_lerp_."""
    xs, ends, ws = _lerp_entries("_foreach_lerp_", args, kwargs)
    for x, e, w in zip(xs, ends, ws, strict=True):
        x.lerp_(e, w)
    return args[0] if args else kwargs["self"]


def _foreach_copy_(self, src, non_blocking=False):
    """Copies each source into the matching tensor. Mirrors torch._foreach_copy_."""
    xs = _tensors(self, "_foreach_copy_")
    if isinstance(src, Tensor) or not isinstance(src, (list, tuple)):
        raise TypeError(
            "_foreach_copy_(): argument 'src' (position 2) must be tuple of Tensors, not "
            f"{type(src).__name__}"
        )
    for x, s in zip(xs, _per_entry(src, len(xs), "_foreach_copy_"), strict=True):
        x.copy_(s, non_blocking=non_blocking)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    """The vector norm of each tensor (a list of 0-d tensors). Mirrors torch._foreach_norm."""
    from minitorch._call_site import passed_by_keyword
    from minitorch.linalg import vector_norm

    xs = _tensors(self, "_foreach_norm")
    if not isinstance(ord, numbers.Number):
        where = "" if passed_by_keyword("ord", "_foreach_norm") else " (position 2)"
        raise TypeError(
            f"_foreach_norm(): argument 'ord'{where} must be Number, not {type(ord).__name__}"
        )
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        pos = None if passed_by_keyword("dtype", "_foreach_norm") else 3
        _dtype._dtype_arg(dtype, "_foreach_norm", "dtype", pos)
    return tuple(vector_norm(x, ord, dtype=dtype) for x in xs)


def _foreach_max(self):
    """The maximum of each tensor (a tuple of 0-d tensors). Mirrors torch._foreach_max."""
    xs = _tensors(self, "_foreach_max")
    for x in xs:
        if x.numel() == 0:  # torch's own message, rather than max()'s
            raise RuntimeError(
                "_foreach_max cannot compute the maximum of an empty tensor; max over zero "
                "elements is undefined."
            )
    return tuple(x.max() for x in xs)
