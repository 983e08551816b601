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
}
for _name in ("maximum", "minimum", "clamp_min", "clamp_max"):
    _OVERLOADS[_name] = (_SCALAR, _SCALARS, _TENSORS)


def _type_name(a) -> str:
    if isinstance(a, list):
        return f"list of [{', '.join(type(x).__name__ for x in a)}]"
    if isinstance(a, tuple):
        return f"tuple of {tuple(type(x).__name__ for x in a)!r}".replace("'", "")
    return type(a).__name__


def _invalid(op: str, args: tuple, kwargs: dict) -> TypeError:
    """torch's TypeError for arguments no overload of op takes: the overloads, each but those
    taking alpha= followed (when no keyword was given) by the arguments it refused."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    why = ", ".join(f"!{_type_name(a)}!" for a in args)
    lines = "".join(
        f" * {o}\n"
        + ("" if kwargs or "alpha" in o else f"      didn't match because some of the arguments "
           f"have invalid types: ({why})\n")
        for o in _OVERLOADS[op.strip("_").removeprefix("foreach_")]
    )  # fmt: skip
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), but "
        f"expected one of:\n{lines}"
    )


def _per_entry(other, n: int, op: str, call=None) -> list:
    """The second operand for each of n entries: a list given one per entry, else repeated.
    call: (args, kwargs) of an op with overloads, for the message of an operand of no kind."""
    if call is not None and not isinstance(other, (Tensor, list, tuple, numbers.Number)):
        raise _invalid(op, *call)
    if isinstance(other, (list, tuple)):
        if any(isinstance(o, Tensor) for o in other):
            _check_elements(other, 1)
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


def _operand(op_name: str, other, named: dict, names: tuple):
    """The second operand given by keyword: torch's overloads name it scalar=, scalars= or
    other= (exponent= for pow), and EMA code passes it so."""
    for key in named:
        if key not in names or other is not _MISSING:
            raise TypeError(f"{op_name}() got an unexpected keyword argument '{key}'")
        other = named[key]
    if other is _MISSING:
        raise TypeError(f"{op_name}() missing 1 required positional argument: 'other'")
    return other


_MISSING = object()


def _binary(name: str, inplace: bool):
    op_name = f"_foreach_{name}{'_' if inplace else ''}"
    names = ("exponent",) if name == "pow" else ("scalar", "scalars", "other")

    def op(self, other=_MISSING, *, alpha=None, **named):
        if named or other is _MISSING:
            other = _operand(op_name, other, named, names)
        if name == "pow" and not inplace and _is_scalar(self):
            # _foreach_pow(scalar, exponents): scalar ** t for each t (torch's foreach Adam
            # computes its bias corrections as beta ** step this way)
            return tuple(_ops.pow(self, t) for t in _tensors(other, op_name))
        call = ((self, other), {} if alpha is None else {"alpha": alpha})
        xs = _tensors(self, op_name, call)
        if isinstance(other, Tensor) and other.ndim and name != "pow":
            raise RuntimeError(
                f"scalar tensor expected to be 0 dim but it has {other.ndim} dimensions and "
                f"{other.numel()} elements."
            )
        ys = _per_entry(other, len(xs), op_name, call)
        kw = {} if alpha is None else {"alpha": alpha}
        fn = getattr(_ops, _NUMBER_FORMS.get(name, name))
        if name in _NUMBER_FORMS and ys and isinstance(ys[0], Tensor):
            fn = getattr(_ops, name)
        if inplace:
            for x, y in zip(xs, ys, strict=True):
                if name == "mul" and not isinstance(y, Tensor) and x.dtype in _dtype.HALF_FLOATS:
                    # torch's in-place foreach mul rounds a number to the half dtype first (its
                    # out-of-place form and Tensor.mul_ do not): a bf16 EMA decay of 0.999 is 1
                    npdt = _dtype.numpy_dtype(x.dtype)
                    y = float(np.asarray(_dtype.via_float32(y, npdt), npdt))
                method = getattr(x, f"{name}_", None)
                if method is not None:
                    method(y, **kw)
                else:  # no in-place method (maximum, minimum): computed, then written back
                    x.copy_(fn(x, y, **kw))
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

    def op(self, tensor1, tensor2, value=1):
        xs = _tensors(self, op_name)
        n = len(xs)
        if isinstance(value, Tensor):
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


def _lerp_entries(op: str, self, tensors1, weight):
    """(entries, ends, weights) of a _foreach_lerp(_) call, or torch's argument errors."""
    call = ((self, tensors1, weight), {})
    xs = _tensors(self, op, call)
    if not isinstance(tensors1, (list, tuple)):
        raise _invalid(op, *call)
    return xs, _per_entry(tensors1, len(xs), op, call), _per_entry(weight, len(xs), op, call)


def _foreach_lerp(self, tensors1, weight):
    """lerp of each entry towards the matching tensor. Mirrors torch._foreach_lerp."""
    xs, ends, ws = _lerp_entries("_foreach_lerp", self, tensors1, weight)
    return tuple(_ops.lerp(x, e, w) for x, e, w in zip(xs, ends, ws, strict=True))


def _foreach_lerp_(self, tensors1, weight):
    """In-place lerp of each entry (an EMA's update). Mirrors torch._foreach_lerp_."""
    xs, ends, ws = _lerp_entries("_foreach_lerp_", self, tensors1, weight)
    for x, e, w in zip(xs, ends, ws, strict=True):
        x.lerp_(e, w)
    return self


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
    from minitorch.linalg import vector_norm

    return tuple(vector_norm(x, ord, dtype=dtype) for x in _tensors(self, "_foreach_norm"))


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
