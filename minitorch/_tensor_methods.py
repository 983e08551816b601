"""Tensor's operators and op methods: each a one-line call into minitorch._ops."""

from __future__ import annotations

import numbers
import operator
import warnings
from collections import OrderedDict

from minitorch import _dtype
from minitorch._arg_errors import (
    DEFAULT_ZERO,
    NOT_GIVEN,
    REQUIRED,
    arity_error,
    missing_positional,
    no_arguments,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._backend import Device, cpu
from minitorch._call_site import passed_by_keyword

# NOTE [ Late binding of ops ]
# The ops build Tensors, so they import this module's class (through minitorch._tensor); this
# module cannot import them back at load time. minitorch._ops sets `_ops` to itself once loaded.
_ops = None


# NOTE [ Int-like arguments ]
# Where torch's signature says int or int[] (a dim, a size, a shift, a kernel size), its argument
# parser reads more than Python ints: NumPy integers (np.prod(shape), rng.integers(...), entries of
# a config array) and 0-d integer tensors (t.argmax(), a dim computed on tensors) are ints through
# __index__. Bools (though bool subclasses int), floats and floating or bool tensors are TypeErrors.
# An int[] also takes one int-like as a one-element list, and iterating a one-element integer
# tensor gives it a 0-d one. Call sites keep plain ints on their fastest path (`x.__class__ is int`
# or the isinstance check they had) and send only what fails it through _is_index / _index /
# _int_list. Reading a tensor's value is a host sync on a GPU, as torch's is; it happens only when
# a tensor is passed where an int is expected.


def _is_index(x) -> bool:
    """Whether x is one int-like value (not a sequence of them): NOTE [ Int-like arguments ]."""
    if isinstance(x, int):
        return x.__class__ is not bool
    if isinstance(x, (tuple, list)):
        return False
    if isinstance(x, TensorMethods):
        return x.ndim == 0 and x.dtype._kind == 1  # an integer dtype, not bool or floating
    try:
        operator.index(x)  # NumPy integers and 0-d integer arrays; np.bool_ and floats refuse
    except TypeError:
        return False
    return True


def _at(pos: int | None, name: str, op: str | None) -> str:
    """" (position N)" for an argument error, or "" where the argument has no position or the
    user passed it by keyword (NOTE [ Keyword arguments in argument errors ]). An error path."""
    if pos is None or op and passed_by_keyword(name, op):
        return ""
    return f" (position {pos})"


def _type_name(x) -> str:
    """x's type as torch's argument errors spell it ("float", "numpy.float64", "Tensor", "NT"
    for a class defined in Python): _ops._common.type_name."""
    from minitorch._ops._common import type_name  # an error path: NOTE [ Late binding of ops ]

    return type_name(x)


def _index(x, op: str | None, name: str, pos: int | None = None) -> int:
    """x, which is not a plain int, as the int torch reads from it, or torch's TypeError naming
    the op and argument, and its position when given (NOTE [ Int-like arguments ]; op None
    leaves the op out)."""
    if _is_index(x):
        return operator.index(x)
    if x is REQUIRED and op:  # (a method's parameter defaulting to REQUIRED: x.cumsum_())
        raise missing_positional(op, name)
    where = f"{op}(): argument" if op else "argument"
    at = _at(pos, name, op)
    raise TypeError(f"{where} '{name}'{at} must be int, not {_type_name(x)}")


def _int_list(seq, op: str, name: str, pos: int | None = None) -> tuple:
    """An int[] argument's elements as a tuple of Python ints (NOTE [ Int-like arguments ]), with
    torch's TypeError for an element that is not int-like, naming the argument's position when
    given. The slow path: callers try all-ints first."""
    at = _at(pos, name, op)
    if not hasattr(seq, "__iter__") or isinstance(seq, str):
        raise TypeError(
            f"{op}(): argument '{name}'{at} must be tuple of ints, not {_type_name(seq)}"
        )
    out = []
    for i, s in enumerate(seq):
        if s.__class__ is not int:
            if isinstance(s, TensorMethods) and s.numel() == 1 and s.dtype._kind == 1:
                s = int(s)  # an int[] reads a one-element integer tensor, of any ndim, as its value
            elif _is_index(s):
                s = operator.index(s)
            elif i and s.__class__ is bool:  # the unpacking reads a bool as an int
                s = int(s)
            elif i:  # torch's parser checks the first element, then unpacks the rest
                raise TypeError(
                    f"{op}(): argument '{name}' failed to unpack the object at pos {i + 1} with "
                    f'error "type must be tuple of ints,but got {_type_name(s)}"'
                )
            elif pos is not None and not at:  # passed by keyword: torch names the sequence
                raise TypeError(
                    f"{op}(): argument '{name}' must be tuple of ints, not {_type_name(seq)}"
                )
            else:
                raise TypeError(
                    f"{op}(): argument '{name}'{at} must be tuple of ints, but found element of "
                    f"type {_type_name(s)} at pos 0"
                )
        out.append(s)
    return tuple(out)


# NOTE [ Size argument forms ]
# A shape method's size comes as varargs (x.view(2, 3)), one sequence (x.view((2, 3))) or a
# keyword (x.view(size=(2, 3))), and torch's parser words a bad element differently for each:
# varargs whose first one is not an int match no signature ("takes 1 positional argument but 2
# were given"; view lists its overloads), one sequence names its position, a keyword whose first
# element is bad names the sequence's type; an element after the first is "failed to unpack" in
# all three. The ops see only the normalised tuple, so the methods call them as they are (no
# extra work for good sizes) and, when an op refuses the size, _size_form_error rewords it.


def _size_form_error(given: tuple, op: str, name: str, keyword: bool = False) -> None:
    """Raises torch's TypeError for a shape method's size holding something not int-like,
    worded for how it was passed (NOTE [ Size argument forms ]): `given` is the varargs, or the
    keyword's value as a 1-tuple. Returns when the size is not what is wrong."""
    if keyword:
        seq = given[0]
        if not isinstance(seq, (tuple, list)) or seq and not _is_int_like(seq[0]):
            if op == "view":
                _view_overload_error(f"size={_type_name(seq)}, ", f"!size={_arg_type(seq)}!, ")
            raise TypeError(
                f"{op}(): argument '{name}' must be tuple of ints, not {_type_name(seq)}"
            )
        _int_list(seq, op, name)
    elif len(given) == 1 and not _is_index(given[0]):
        seq = given[0]
        if isinstance(seq, TensorMethods):
            _tensor_size_error(op, name, False)
        if not isinstance(seq, (tuple, list)) and getattr(seq, "ndim", 0):  # an ndarray
            if op == "view":
                _view_overload_error(_type_name(seq), f"!{_type_name(seq)}!")
            raise TypeError(
                f"{op}(): argument '{name}' (position 1) must be tuple of ints, not "
                f"{_type_name(seq)}"
            )
        if op == "view" and not (
            hasattr(seq, "__iter__") and (len(seq) == 0 or _is_int_like(next(iter(seq))))
        ):
            _view_overload_error(_type_name(seq), f"!{_arg_type(seq)}!")
        _int_list(seq, op, name, 1)
    elif len(given) > 1 and not _is_index(given[0]):
        if op == "view":
            types = ", ".join(_type_name(s) for s in given)
            raise TypeError(
                f"view() received an invalid combination of arguments - got ({types}), but "
                "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
            )
        raise too_many_positional(op, len(given), 1)
    else:
        _int_list(given, op, name)


def _is_int_like(s) -> bool:
    """Whether an int[] element is read as an int (_int_list's rule)."""
    if isinstance(s, TensorMethods):
        return s.numel() == 1 and s.dtype._kind == 1
    return _is_index(s)


def _arg_type(x) -> str:
    """x's type as torch's overload listing spells it: "tuple of (float, int)", "float"."""
    if isinstance(x, tuple):
        return f"tuple of ({', '.join(_type_name(s) for s in x)})"
    if isinstance(x, list):
        return f"list of [{', '.join(_type_name(s) for s in x)}]"
    return _type_name(x)


def _view_overload_error(got: str, bad: str) -> None:
    """view()'s TypeError when its one argument is neither a dtype nor a size."""
    keyword = got.startswith("size=")
    dtype_why = (
        "some of the keywords were incorrect: size"
        if keyword
        else f"some of the arguments have invalid types: ({bad})"
    )
    raise TypeError(
        f"view() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n * (torch.dtype dtype)\n      didn't match because {dtype_why}\n * (tuple of ints "
        f"size)\n      didn't match because some of the arguments have invalid types: ({bad})\n"
    )


# NOTE [ Number-like arguments ]
# Where torch's signature says Scalar or float (a slope, an alpha, a bound, addcmul's value, a
# norm's p, a std), its argument parser reads a 0-d tensor that does not require grad as the number
# it holds (a hyperparameter kept as torch.tensor(0.2)); any other tensor is a TypeError ("must be
# Number, not Tensor"): a 1-element 1-d one, and one that requires grad, whose gradient the number
# would drop. Call sites pass what they were given through _number_arg, which returns non-tensors
# as they are. Reading the value is a host sync on a GPU, as torch's is; it happens only when a
# tensor is passed where a number is expected.


def _number_arg(x, op: str, name: str, pos: int | None = None, kind: str = "Number"):
    """x, or the Python number a 0-d tensor passed for a Number/float argument holds, or torch's
    TypeError naming the op and argument (NOTE [ Number-like arguments ])."""
    if not isinstance(x, TensorMethods):
        return x
    if x.ndim == 0 and not x.requires_grad:
        return x.item()
    raise TypeError(f"{op}(): argument '{name}'{_at(pos, name, op)} must be {kind}, not Tensor")


def _tensor_arg(x, op: str, name: str = "other", pos: int = 1):
    """x, which must be a Tensor, or torch's TypeError naming the method and argument (where
    reading x.shape would raise an AttributeError, or take a NumPy array's); REQUIRED: the
    call left it out."""
    if not isinstance(x, TensorMethods):
        if x is REQUIRED:
            raise missing_positional(op, name)
        raise TypeError(
            f"{op}(): argument '{name}'{_at(pos, name, op)} must be Tensor, not {_type_name(x)}"
        )
    return x


def _size_args(args, op: str | None = None, name: str = "", keyword: bool = False):
    """x.view(2, 3) and x.view((2, 3)) both mean the shape (2, 3). A tensor is a size only as
    one int-like (NOTE [ Int-like arguments ]): torch refuses x.view(torch.tensor([3, 2])), with
    the TypeError of `op` (given) or of the method that catches the op's (_size_form_error)."""
    if len(args) == 1 and not isinstance(args[0], int) and args[0] is not None:
        if isinstance(args[0], TensorMethods) and args[0].numel() != 1:
            if op is not None:
                _tensor_size_error(op, name, keyword)
            return args
        seq = args[0]
        if seq.__class__ is not tuple and seq.__class__ is not list and getattr(seq, "ndim", 0):
            # an ndarray is no int[] for torch: refused here, or by the op (_size_form_error)
            if op is not None:
                at = "" if keyword else " (position 1)"
                raise TypeError(
                    f"{op}(): argument '{name}'{at} must be tuple of ints, not {_type_name(seq)}"
                )
            return args
        try:
            return tuple(seq)
        except TypeError:
            return args
    return args


_NO_DIM = object()  # Tensor.squeeze's dim when not given (None is refused, as torch's)
_WHOLE = slice(None)
_NO_OPERAND = object()  # where's input or other when not given (None is refused)


def _squeeze_none_error(keyword: bool) -> None:
    """Tensor.squeeze's TypeError for a dim of None, given positionally or as dim=None."""
    got, bad = ("dim=NoneType, ", "!dim=NoneType!, ") if keyword else ("NoneType", "!NoneType!")
    why = "some of the arguments have invalid types:"
    first = "some of the keywords were incorrect: dim" if keyword else f"{why} ({bad})"
    raise TypeError(
        f"squeeze() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n * ()\n      didn't match because {first}\n * (int dim)\n      didn't match "
        f"because {why} ({bad})\n * (tuple of ints dim)\n      didn't match because {why} "
        f"({bad})\n"
    )


def _tensor_size_error(op: str, name: str, keyword: bool) -> None:
    """torch's TypeError for a tensor of other than one element given as an int[] size."""
    if op == "view":
        if keyword:
            _view_overload_error("size=Tensor, ", "!size=Tensor!, ")
        _view_overload_error("Tensor", "!Tensor!")
    at = "" if keyword else " (position 1)"
    raise TypeError(f"{op}(): argument '{name}'{at} must be tuple of ints, not Tensor")


def _keyword_sized(fn, self, args, kwargs, op: str, name: str):
    """fn(self, size) for a shape method given its size as the keyword `name` (or none at all:
    x.reshape()), with torch's errors for a refused size (NOTE [ Size argument forms ])."""
    given = kwargs.get(name)
    try:
        return fn(self, _keyword_size(args, kwargs, name, op))
    except TypeError:
        if not args and given is not None and not (kwargs and op == "view"):
            _size_form_error((given,), op, name, keyword=True)
        raise


def _keyword_size(args, kwargs, name: str, op: str):
    """x.reshape(shape=(2, 3)): the keyword form of a varargs size (torch's name for it)."""
    if op == "view" and (args or len(kwargs) > 1 or name not in kwargs):
        # view has two overloads (a dtype, a size): a call of sizes and keywords, or of other
        # keywords, fits neither (x.view(2, 3, size=6))
        forms = ("torch.dtype dtype", "tuple of ints size")
        kwargs = dict(reversed(kwargs.items()))
        raise _ops._parser_errors.invalid_arguments("view", forms, args, kwargs)
    given = name in kwargs
    value = kwargs.pop(name, None)
    if given and not args and not isinstance(value, (tuple, list)):
        # torch reads a lone int (or None) as a size only positionally: x.reshape(shape=6) is
        # its parser's TypeError, before any unknown keyword (view's lists them all)
        if not (kwargs and op == "view"):
            _size_form_error((value,), op, name, keyword=True)
    if kwargs and (args or value is not None or op == "view"):
        # torch's parser reports a missing size before an unknown keyword
        raise unexpected_keyword(op, next(iter(kwargs)))
    if value is None:
        if not args:  # x.reshape(): no size at all (x.reshape(()) is one), torch's parser error
            if op == "view":
                raise TypeError(
                    "view() received an invalid combination of arguments - got (), but expected "
                    "one of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
                )
            raise missing_positional(op, name)
        return _size_args(args, op, name)
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return _size_args((value,), op, name, keyword=True)


def _no_parameters(name: str, args, kwargs) -> TypeError:
    """torch's TypeError for a C method of TensorBase that has no parameters (trace, corrcoef,
    geqrf) given arguments: its keywords are refused first (out= and input= among them)."""
    if kwargs:
        return TypeError(f"TensorBase.{name}() takes no keyword arguments")
    return no_arguments(name, len(args))


def _function_keywords(name: str, args: tuple, kwargs: dict) -> None:
    """torch's TypeError for out= or input= given to the method `name`: keywords its function
    form alone takes (NOTE [ Keywords only the function takes ]). Called with kwargs only, so a
    plain call pays a dict's truthiness test."""
    if "out" in kwargs or "input" in kwargs:
        raise _ops._parser_errors.method_keyword_error(name, args, kwargs)


def _keyword_error(name: str, self, args: tuple, kwargs: dict, error: TypeError) -> None:
    """Raises torch's TypeError for the call of the method `name` that its function refused
    with `error`, where that is a keyword none of its overloads has; returns otherwise (the
    caller re-raises `error`). An error path."""
    from minitorch._ops._parser_errors import given_twice_error

    ours = given_twice_error(name, (self, *args), kwargs, error, method=True)
    if ours is not error:
        raise ours from None


def _takes_no_arguments(name: str, args) -> None:
    """torch's TypeError for a positional argument given to a method taking keywords only
    (x.float(None), x.contiguous(fmt))."""
    raise too_many_positional(name, len(args), 0)


def _cast_in_format(t, target, memory_format, op: str, most=None, **kwargs):
    """t.half(memory_format=...), t.cpu(memory_format=...) and the other shorthand conversions
    given a memory format: t.to(target, memory_format=...), as torch's (a channels_last result
    when asked, row-major for contiguous_format); the TypeError for a bad format names `op`.
    `most`: the positional arguments `op` takes (torch's memory_format is keyword-only: x.cpu(
    fmt) is "cpu() takes 0 positional arguments but 1 was given"), where it takes it by position."""
    from minitorch import _memory_format
    from minitorch._call_site import call_arguments

    called = None if most is None else call_arguments(op)
    if called is not None and called[0] > most:
        raise too_many_positional(op, called[0], most, 0)
    _memory_format.check(memory_format, op)
    return _ops.to(t, target, memory_format=memory_format, **kwargs)


def _type_keywords(kwargs: dict):
    """The keywords Tensor.type() takes besides dtype and non_blocking: `async` (torch's deprecated
    spelling of non_blocking, warned about as torch does) and `memory_format` (returned). Any
    other keyword is a TypeError, as torch's: a misspelled `dtpye=` must not read as no dtype."""
    for key in kwargs:
        if key not in ("async", "memory_format"):
            raise unexpected_keyword("type", key)
    if "async" in kwargs:
        warnings.warn(
            "type(): async= is deprecated; use non_blocking= instead", UserWarning, stacklevel=3
        )
    return kwargs.get("memory_format")


def _scalar_first(op: str, number, rest, n_tensors: int = 1, keyword=1, method: bool = True):
    """torch's deprecated overloads with the number first: add_(Number alpha, Tensor other)
    (old tutorials' p.data.add_(-lr, p.grad.data)), addcmul_(Number value, Tensor, Tensor):
    (the tensor operand(s), the number), with torch's deprecation warning. The number may be a
    0-d tensor (NOTE [ Number-like arguments ]); add/sub (n_tensors 1) also read a number as
    their other, as torch's parser does for them. `keyword` is the alpha=/value= the call gave,
    which these overloads do not take; method False for the function (input first)."""
    from minitorch._tensor import Tensor

    name = "alpha" if n_tensors == 1 else "value"
    refused = too_many_positional(op, len(rest) + 1 + (not method), n_tensors + (not method))
    if len(rest) != n_tensors or keyword.__class__ is not int or keyword != 1:
        if not method:
            raise refused
        if len(rest) == n_tensors:
            raise TypeError(
                f"{op}() received an invalid combination of arguments - got unrecognized "
                f"keyword arguments: {name}"
            )
        form = (
            "Tensor other, *, Number alpha = 1"
            if n_tensors == 1
            else "Tensor tensor1, Tensor tensor2, *, Number value = 1"
        )
        raise _ops._parser_errors.one_form_error(op, form, (number, *rest))
    if not _is_scalar_operand(number) or not all(
        isinstance(t, Tensor)
        or (n_tensors == 1 and isinstance(t, numbers.Number))
        for t in rest
    ):
        raise refused
    if n_tensors == 1:
        old, new = "Number alpha, Tensor other", "Tensor other, *, Number alpha = 1"
    else:
        old = "Number value, Tensor tensor1, Tensor tensor2"
        new = "Tensor tensor1, Tensor tensor2, *, Number value = 1"
    if not method:  # the function's signatures: input first, out last
        old = f"Tensor input, {old}, *, Tensor out = None"
        new = f"Tensor input, {new}, Tensor out = None"
    _warn_deprecated_overload(
        f"This overload of {op} is deprecated:\n\t{op}({old})\nConsider using one of the "
        f"following signatures instead:\n\t{op}({new})"
    )
    number = _number_arg(number, op, name)
    return (rest[0] if n_tensors == 1 else tuple(rest)), number


# The operand names of the add*mm family, for their deprecated overloads' messages.
_PRODUCT_OPERANDS = {
    "addmm": ("mat1", "mat2"),
    "addmv": ("mat", "vec"),
    "addr": ("vec1", "vec2"),
    "addbmm": ("batch1", "batch2"),
    "baddbmm": ("batch1", "batch2"),
}


def _beta_alpha_first(op: str, args: tuple, beta, alpha, method: bool):
    """torch's deprecated add*mm overloads with the scalars first, still in old code:
    addmm(Number beta, Tensor input, [Number alpha,] Tensor mat1, Tensor mat2) and the methods'
    M.addmm_(Number beta, [Number alpha,] Tensor mat1, Tensor mat2) (`args` holds every
    positional argument but self; `beta` and `alpha` the keywords, which these overloads do not
    take). Returns (the tensors, beta, alpha), with torch's deprecation warning."""
    from minitorch._tensor import Tensor

    first, second = _PRODUCT_OPERANDS[op.rstrip("_")]
    n_tensors = 2 if method else 3
    with_alpha = len(args) == n_tensors + 2
    if with_alpha:  # beta, [input,] alpha, mat1, mat2
        scalars = (args[0], args[1 if method else 2])
        tensors = args[2:] if method else (args[1], *args[3:])
    else:  # beta, [input,] mat1, mat2
        scalars, tensors = args[:1], args[1:]
    keywords = not all(x.__class__ is int and x == 1 for x in (beta, alpha))
    if (
        keywords
        or len(tensors) != n_tensors
        or not all(isinstance(t, Tensor) for t in tensors)
        or not all(_is_scalar_operand(x) for x in scalars)
    ):
        raise _add_mm_parser_error(op, args, beta, alpha, method)
    operands = f"Tensor {first}, Tensor {second}"
    old = ("Number beta, " if method else "Number beta, Tensor input, ") + (
        "Number alpha, " if with_alpha else ""
    )
    tail = "" if method or op.endswith("_") else ", *, Tensor out = None"
    lead = "" if method else "Tensor input, "
    _warn_deprecated_overload(
        f"This overload of {op} is deprecated:\n\t{op}({old}{operands}{tail})\nConsider using "
        f"one of the following signatures instead:\n\t{op}({lead}{operands}, *, Number beta = 1, "
        f"Number alpha = 1{tail.replace(', *', '')})"
    )
    beta = _number_arg(scalars[0], op, "beta")  # NOTE [ Number-like arguments ]
    alpha = _number_arg(scalars[1], op, "alpha") if with_alpha else 1
    return tensors, beta, alpha


def _add_mm_parser_error(op: str, args: tuple, beta, alpha, method: bool) -> TypeError:
    """torch's argument-parser TypeError for an add*mm call with extra positional arguments
    that no deprecated overload takes (`args`: the positional ones but self; `beta`, `alpha`:
    the keywords, 1 where not given). As torch's parser does, the call is checked against
    the visible signatures whose argument counts could fit it: exactly one gives its "takes N
    positional arguments" error; else every signature is listed, an argument count equal to a
    signature's (its `*` counted) marking the arguments it does not take.

    Differences from torch: a method given too many positional arguments gets the listing, not
    torch's "takes 2 positional arguments" (tests/test_sweep6_legacy.py pins the listing);
    `out=` is not counted; a call past every signature's count
    with both beta and alpha as keywords lists the signatures (torch names the keywords as
    unrecognized, in the reverse of the call's order)."""
    from minitorch._tensor import Tensor

    keywords = sum(not (x.__class__ is int and x == 1) for x in (beta, alpha))
    first, second = _PRODUCT_OPERANDS[op.rstrip("_")]
    n_tensors = 2 if method else 3
    lead = "" if method else "Tensor input, "
    tail = "*, Number beta = 1, Number alpha = 1" + ("" if method else ", Tensor out = None")
    sigs = [(f"{lead}Tensor {first}, Tensor {second}, {tail}", n_tensors)]
    if not method and op in ("addmm", "baddbmm"):  # torch's out_dtype overload
        sigs.append((f"{lead}Tensor {first}, Tensor {second}, torch.dtype out_dtype, {tail}", 4))
    # (sig, positional count); a signature takes its positional ones, beta, alpha [and out]
    extra = 2 if method else 3
    given = len(args) + keywords
    fits = [(sig, n) for sig, n in sigs if n <= given <= n + extra]
    if len(fits) == 1 and len(args) > fits[0][1] and not method:
        return too_many_positional(op, len(args), fits[0][1])
    names = [_type_name(a) for a in args]

    def marked(n):  # the arguments signature n (positional count) does not take, as torch marks
        out = []
        for i, (a, name) in enumerate(zip(args, names, strict=True)):
            ok = isinstance(a, Tensor) if i < n_tensors else i == 3 and n == 4 and "dtype" in name
            out.append(name if ok else f"!{name}!")
        return ", ".join(out)

    got = ", ".join(names)
    if len(sigs) == 1 and keywords == 1:  # (with both, torch names them in reverse call order)
        name = "alpha" if beta.__class__ is int and beta == 1 else "beta"
        return TypeError(
            f"{op}() received an invalid combination of arguments - got unrecognized keyword "
            f"arguments: {name}"
        )
    if len(sigs) == 1:
        desc = marked(n_tensors) if not keywords and len(args) == n_tensors + extra + 1 else got
        return TypeError(
            f"{op}() received an invalid combination of arguments - got ({desc}), but expected "
            f"({sigs[0][0]})"
        )
    listed = ""
    for sig, n in sigs:
        listed += f" * ({sig})\n"
        if not keywords and len(args) == n + extra + 1:
            listed += (
                "      didn't match because some of the arguments have invalid types: "
                f"({marked(n)})\n"
            )
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listed}"
    )


def _warn_deprecated_overload(message: str) -> None:
    """torch warns about a deprecated overload once per process, for the first one used (one flag
    for all of them: a later add_(Number, Tensor) after an addcmul_(Number, ...) is silent)."""
    from minitorch._settings import warn_once

    warn_once("deprecated_overload", message)


def _is_scalar_operand(x) -> bool:
    """A Number where torch's deprecated overloads take one: a number, a 0-d tensor that does
    not require grad (NOTE [ Number-like arguments ])."""
    if isinstance(x, TensorMethods):
        return x.ndim == 0 and not x.requires_grad
    return isinstance(x, numbers.Number)


def _legacy_type_arg(target):
    """Tensor.type's argument other than a dtype: torch.Tensor and 'torch.Tensor' name the
    default tensor type (a CPU tensor of the default dtype, as torch's old
    `labels.type(torch.Tensor)` gives), a legacy class or type name passes through, and anything
    that is not a type or a str is torch's TypeError."""
    from minitorch._tensor import Tensor

    if target is Tensor or target == "torch.Tensor":
        from minitorch._backend import cpu
        from minitorch._ops.convert import type_name

        return type_name(_dtype.get_default_dtype(), cpu)  # 'torch.FloatTensor'
    if not isinstance(target, (type, str)):
        raise TypeError("dtype must be a type, str, or dtype object")
    return target


def _check_one_operand(op, name, args, kwargs) -> None:
    """torch's TypeError for a Tensor method of one operand (`name`: mm's mat2, dot's tensor)
    given more than one positional argument, or none and no `name=`."""
    if len(args) > 1:
        raise too_many_positional(op, len(args), 1)
    if name not in kwargs:
        raise missing_positional(op, name)


def _shape_change(self, make, name: str):
    """set_shape_ of self to the view make() builds (squeeze_, unsqueeze_, transpose_); where
    make's own checks fail, torch's autograd refusals of the change come first."""
    try:
        viewed = make()
    except (IndexError, RuntimeError):
        _ops.check_shape_change(self)
        raise
    return _ops.set_shape_(self, viewed, name)


class TensorMethods:
    """Mixed into Tensor; holds no state."""

    __slots__ = ()

    # __add__, __radd__, __sub__, __mul__, __rmul__, __truediv__, __neg__ and __getitem__ are the
    # op functions themselves (add, mul, ...): see NOTE [ Direct operator binding ].

    # --- arithmetic operators ---

    # NOTE [ In-place operators with an array ]
    # torch's in-place operators return NotImplemented for a NumPy array, so Python falls back to
    # `x = x + arr`: a new tensor with NumPy's promotion (a float32 x += a float64 array is
    # float64; an int64 x += a float array is float), other names for the old x unchanged. The
    # check is one class comparison; x.add_(arr) and the other methods are left as they were.

    def __iadd__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.add_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rsub__(self, other):
        try:
            if other.__class__ is bool:
                # sub's own check refuses the bool (torch's RuntimeError): rsub would first make it
                # a weak number of self's dtype, 1.0 - x
                return _ops.sub(other, self)
            return _ops.rsub(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __isub__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.sub_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __imul__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.mul_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rtruediv__(self, other):
        try:
            # torch defines `number / tensor` as reciprocal(tensor) * number: its rounding and its
            # grad_fn (MulBackward0 of ReciprocalBackward0), not div's
            if not isinstance(other, (int, float, bool)):
                return _ops.div(_ops.scalar_like(other, self), self)
            return _ops.mul(_ops.reciprocal(self), other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    __rdiv__ = __rtruediv__  # torch keeps Python 2's name as an alias

    def __itruediv__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.div_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __floordiv__(self, other):
        try:
            return _ops.floor_divide(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rfloordiv__(self, other):
        try:
            return _ops.floor_divide(_ops.weak_scalar(other, self, "floor_divide"), self)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ifloordiv__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.floor_divide_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __mod__(self, other):
        try:
            return _ops.remainder(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rmod__(self, other):
        try:  # (a number stays one: torch's number % tensor has no derivative)
            return _ops.remainder(other, self)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __imod__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.remainder_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            return NotImplemented  # pow(t, 2, 5): CPython's TypeError, as torch's
        try:
            if other.__class__ is self._device.backend.array_cls:
                # torch's __pow__ hands an array to NumPy's reflected pow: NumPy's promotion (as for
                # `tensor + array`, _promote_array), where torch.pow(t, array) is a TypeError
                from minitorch._ops._common import _promote_array

                a, b, _ = _promote_array(self, other)
                return _ops.pow(a, b)
            return _ops.pow(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rpow__(self, other):
        try:
            return _ops.pow(other, self)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ipow__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.pow_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __reversed__(self):
        # torch: the tensor flipped along dim 0 (a Tensor, so `reversed(t) * 10` works), or the
        # 0-d tensor itself
        return self if self._data.ndim == 0 else _ops.flip(self, (0,))

    def __matmul__(self, other):
        if not isinstance(other, TensorMethods):
            return NotImplemented  # torch: "unsupported operand type(s) for @"
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, TensorMethods):
            return NotImplemented
        return _ops.matmul(other, self)

    def __pos__(self):
        return _ops.positive(self)  # self, or torch's error for a bool tensor

    def __abs__(self):
        return _ops.abs(self)

    def __invert__(self):
        if self.dtype.is_floating_point:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _ops.bitwise_not(self)

    def __and__(self, other):
        try:
            return _ops.bitwise_and(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    __rand__ = __and__

    def __or__(self, other):
        try:
            return _ops.bitwise_or(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    __ror__ = __or__

    def __xor__(self, other):
        try:
            return _ops.bitwise_xor(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    __rxor__ = __xor__

    def __iand__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.bitwise_and_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ior__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.bitwise_or_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ixor__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.bitwise_xor_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __lshift__(self, other):
        try:
            return _ops.bitwise_left_shift(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rshift__(self, other):
        try:
            return _ops.bitwise_right_shift(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    # --- comparisons (bool results, never differentiable) ---

    def __eq__(self, other):
        try:
            return _ops.eq(self, other)
        except TypeError:  # as torch: `t == None`, `t == "cpu"` are False, not an error
            return NotImplemented

    def __ne__(self, other):
        try:
            return _ops.ne(self, other)
        except TypeError:
            return NotImplemented

    def __lt__(self, other):
        try:
            return _ops.lt(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __le__(self, other):
        try:
            return _ops.le(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __gt__(self, other):
        try:
            return _ops.gt(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ge__(self, other):
        try:
            return _ops.ge(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    # --- indexing ---

    def __setitem__(self, key, value):
        _ops.setitem(self, key, value)

    def __delitem__(self, key):
        raise TypeError("Tensor does not support deleting items")

    # --- indexing and selection (_ops/indexing.py, scatter_gather.py, selection.py, sorting.py) ---

    def index_put(self, indices, values, accumulate=False):
        return _ops.index_put(self, indices, values, accumulate)

    def index_put_(self, indices=REQUIRED, values=REQUIRED, accumulate=False, *extra):
        if extra or values is REQUIRED or indices is REQUIRED:
            raise arity_error("index_put_", extra, 3, indices=indices, values=values)
        return _ops.index_put_(self, indices, values, accumulate)

    def gather(self, dim=REQUIRED, index=REQUIRED, *extra, sparse_grad=False):
        if extra:
            raise too_many_positional("gather", 2 + len(extra), 2)
        return _ops.gather(self, dim, index, sparse_grad=sparse_grad)

    # src's keyword-ness told, not read from the caller's frame (a number src by keyword is
    # refused: NOTE [ A number src by keyword ] in minitorch/_ops/scatter_gather.py)
    def scatter(self, dim=REQUIRED, index=REQUIRED, *args, src=NOT_GIVEN, value=None, reduce=None):
        return _ops.scatter_gather.scatter_by("scatter", self, dim, index, args, src, value, reduce)

    def scatter_(self, dim=REQUIRED, index=REQUIRED, *args, src=NOT_GIVEN, value=None, reduce=None):
        return _ops.scatter_gather.scatter_by(
            "scatter_", self, dim, index, args, src, value, reduce
        )

    # scatter_add/scatter_reduce/put take no number for src (scatter does): torch's TypeError
    # names the method's position of the argument, not the function's
    def scatter_add(self, dim=REQUIRED, index=REQUIRED, src=REQUIRED, *extra):
        if extra or src is REQUIRED:
            raise arity_error("scatter_add", extra, 3, dim=dim, index=index, src=src)
        return _ops.scatter_add(self, dim, index, _tensor_arg(src, "scatter_add", "src", 3))

    def scatter_add_(self, dim=REQUIRED, index=REQUIRED, src=REQUIRED, *extra):
        if extra or src is REQUIRED or index is REQUIRED or dim is REQUIRED:
            raise arity_error("scatter_add_", extra, 3, dim=dim, index=index, src=src)
        return _ops.scatter_add_(self, dim, index, _tensor_arg(src, "scatter_add_", "src", 3))

    def scatter_reduce(
        self, dim=REQUIRED, index=REQUIRED, src=REQUIRED, reduce=REQUIRED, *extra, include_self=True
    ):
        if extra or reduce is REQUIRED or src is REQUIRED or index is REQUIRED or dim is REQUIRED:
            args = dict(dim=dim, index=index, src=src, reduce=reduce)
            raise arity_error("scatter_reduce", extra, 4, **args)
        src = _tensor_arg(src, "scatter_reduce", "src", 3)
        return _ops.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(
        self, dim=REQUIRED, index=REQUIRED, src=REQUIRED, reduce=REQUIRED, *extra, include_self=True
    ):
        if extra or reduce is REQUIRED or src is REQUIRED or index is REQUIRED or dim is REQUIRED:
            args = dict(dim=dim, index=index, src=src, reduce=reduce)
            raise arity_error("scatter_reduce_", extra, 4, **args)
        src = _tensor_arg(src, "scatter_reduce_", "src", 3)
        return _ops.scatter_reduce_(self, dim, index, src, reduce, include_self=include_self)

    def take_along_dim(self, indices=REQUIRED, dim=None, *extra):
        if extra or indices is REQUIRED:
            raise arity_error("take_along_dim", extra, 2, indices=indices)
        return _ops.take_along_dim(self, indices, dim)

    def index_select(self, dim=REQUIRED, index=REQUIRED, *extra):
        if extra:
            raise too_many_positional("index_select", 2 + len(extra), 2)
        return _ops.index_select(self, dim, index)

    def index_add(self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, *extra, alpha=1):
        if extra:
            raise too_many_positional("index_add", 3 + len(extra), 3)
        return _ops.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, *extra, alpha=1):
        if extra or source is REQUIRED or index is REQUIRED or dim is REQUIRED:
            raise arity_error("index_add_", extra, 3, dim=dim, index=index, source=source)
        return _ops.index_add_(self, dim, index, source, alpha=alpha)

    def index_copy(self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, *extra):
        if extra or source is REQUIRED or index is REQUIRED or dim is REQUIRED:
            raise arity_error("index_copy", extra, 3, dim=dim, index=index, source=source)
        return _ops.index_copy(self, dim, index, source)

    def index_copy_(self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, *extra):
        if extra or source is REQUIRED or index is REQUIRED or dim is REQUIRED:
            raise arity_error("index_copy_", extra, 3, dim=dim, index=index, source=source)
        return _ops.index_copy_(self, dim, index, source)

    def index_fill(self, dim=REQUIRED, index=REQUIRED, value=REQUIRED, *extra):
        if extra:  # (as fmod's)
            return _ops.index_fill(self, dim, index, value, *extra)
        return _ops.index_fill(self, dim, index, value)

    def index_fill_(self, dim=REQUIRED, index=REQUIRED, value=REQUIRED):
        return _ops.index_fill_(self, dim, index, value)

    def masked_fill(self, mask=REQUIRED, value=REQUIRED, *extra):
        if extra:  # (as fmod's)
            return _ops.masked_fill(self, mask, value, *extra)
        return _ops.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        try:
            return _ops.masked_fill_(self, mask, value)
        except TypeError:  # (free when nothing is raised)
            _ops.selection.masked_fill_overloads("masked_fill_", self, mask, value)
            raise

    def masked_select(self, mask=REQUIRED, *extra):
        if extra:
            raise too_many_positional("masked_select", 1 + len(extra), 1)
        return _ops.masked_select(self, mask)

    def masked_scatter(self, mask, source):
        return _ops.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        return _ops.masked_scatter_(self, mask, source)

    def take(self, index):
        return _ops.take(self, index)

    def put(self, index=REQUIRED, source=REQUIRED, accumulate=False, *extra):
        if extra or source is REQUIRED or index is REQUIRED:
            raise arity_error("put", extra, 3, index=index, source=source)
        return _ops.put(self, index, _tensor_arg(source, "put", "source", 2), accumulate)

    def put_(self, index=REQUIRED, source=REQUIRED, accumulate=False, *extra):
        if extra or source is REQUIRED or index is REQUIRED:
            raise arity_error("put_", extra, 3, index=index, source=source)
        return _ops.put_(self, index, _tensor_arg(source, "put_", "source", 2), accumulate)

    def nonzero(self, *, as_tuple=False):
        return _ops.nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return _ops.argwhere(self)

    def sort(self, *args, **kwargs):  # (torch's overloads tell a positional dim from dim=)
        if kwargs and ("out" in kwargs or "input" in kwargs):
            forms = _ops.sorting._SORT_METHOD_FORMS
            raise _ops._parser_errors.method_keyword_error("sort", args, kwargs, forms)
        try:
            return _ops.sort(self, *args, **kwargs)
        except TypeError as e:
            raise _ops.sorting.sort_method_error(e, "sort", self, args, kwargs) from None

    def argsort(self, *args, **kwargs):
        if kwargs and ("out" in kwargs or "input" in kwargs):
            forms = _ops.sorting._SORT_METHOD_FORMS
            raise _ops._parser_errors.method_keyword_error("argsort", args, kwargs, forms)
        try:
            return _ops.argsort(self, *args, **kwargs)
        except TypeError as e:
            raise _ops.sorting.sort_method_error(e, "argsort", self, args, kwargs) from None

    def msort(self):
        return _ops.msort(self)

    def topk(self, k=REQUIRED, dim=-1, largest=True, sorted=True, *extra):
        if extra:
            raise too_many_positional("topk", 4 + len(extra), 4, 1)
        return _ops.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k=REQUIRED, dim=-1, keepdim=False, *extra):
        if extra:
            raise too_many_positional("kthvalue", 3 + len(extra), 3, 1)
        return _ops.kthvalue(self, k, dim, keepdim)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique_consecutive(self, return_inverse, return_counts, dim)

    def bincount(self, weights=None, minlength=0, *extra, **kwargs):
        if extra:
            raise too_many_positional("bincount", 2 + len(extra), 2, 0)
        if kwargs:  # (torch's parser names the op alone, where Python's names Tensor.bincount)
            raise unexpected_keyword("bincount", next(iter(kwargs)))
        return _ops.bincount(self, weights, minlength)

    def histc(self, bins=100, min=0, max=0, *extra, **kwargs):
        if extra:
            raise too_many_positional("histc", 3 + len(extra), 3, 0)
        if kwargs:
            raise unexpected_keyword("histc", next(iter(kwargs)))
        return _ops.histc(self, bins, min, max)

    def histogram(self, *args, **kwargs):
        if kwargs and "input" in kwargs:  # (out= is the function's own parser error)
            forms = _ops.sorting.HISTOGRAM_METHOD_FORMS
            raise _ops._parser_errors.method_keyword_error("histogram", args, kwargs, forms)
        return _ops.histogram(self, *args, **kwargs)

    # --- end of indexing and selection ---

    # --- pointwise ---

    def add(self, other=REQUIRED, *args, alpha=1):
        if args:  # the deprecated add(Number alpha, Tensor other)
            other, alpha = _scalar_first("add", other, args, 1, alpha)
        return _ops.add(self, other, alpha=alpha)

    def add_(self, other=REQUIRED, *args, alpha=1):
        if args:
            other, alpha = _scalar_first("add_", other, args, 1, alpha)
        return _ops.add_(self, other, alpha=alpha)

    def sub(self, other, *args, alpha=1):
        if args:
            other, alpha = _scalar_first("sub", other, args, 1, alpha)
        return _ops.sub(self, other, alpha=alpha)

    def sub_(self, other, *args, alpha=1):
        if args:
            other, alpha = _scalar_first("sub_", other, args, 1, alpha)
        return _ops.sub_(self, other, alpha=alpha)

    subtract = sub
    subtract_ = sub_

    def mul(self, other):
        return _ops.mul(self, other)

    def mul_(self, other):
        return _ops.mul_(self, other)

    multiply = mul
    multiply_ = mul_

    def div(self, other=REQUIRED, *, rounding_mode=None):
        return _ops.div(self, other, rounding_mode=rounding_mode)

    def div_(self, other=REQUIRED, *, rounding_mode=None):
        return _ops.div_(self, other, rounding_mode=rounding_mode)

    divide = div
    divide_ = div_

    def true_divide(self, other):  # (its own frame: errors name true_divide, as torch's)
        return _ops.true_divide(self, other)

    true_divide_ = div_

    def neg(self):
        return _ops.neg(self)

    def neg_(self):
        return _ops.neg_(self)

    negative = neg
    negative_ = neg_

    def pow(self, exponent):
        return _ops.pow(self, exponent)

    def pow_(self, exponent):
        return _ops.pow_(self, exponent)

    def exp(self):
        return _ops.exp(self)

    def exp_(self):
        return _ops.exp_(self)

    def log(self):
        return _ops.log(self)

    def log_(self):
        return _ops.log_(self)

    def sqrt(self):
        return _ops.sqrt(self)

    def sqrt_(self):
        return _ops.sqrt_(self)

    def abs(self):
        return _ops.abs(self)

    def abs_(self):
        return _ops.abs_(self)

    absolute = abs
    absolute_ = abs_

    def tanh(self):
        return _ops.tanh(self)

    def tanh_(self):
        return _ops.tanh_(self)

    def sigmoid(self):
        return _ops.sigmoid(self)

    def sigmoid_(self):
        return _ops.sigmoid_(self)

    def relu(self):
        return _ops.relu(self)

    def sign(self):
        return _ops.sign(self)

    def relu_(self):
        return _ops.relu_(self)

    def maximum(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("maximum", 1 + len(extra), 1)
        return _ops.maximum(self, other)

    def minimum(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("minimum", 1 + len(extra), 1)
        return _ops.minimum(self, other)

    def clamp(self, min=None, max=None, *extra):
        if extra:
            raise _ops._parser_errors.clamp_error("clamp", self, min, max, extra=extra)
        try:
            return _ops.clamp(self, min, max)
        except TypeError as e:  # NOTE [ Argument parser errors ]: the method's own wording
            raise _ops._parser_errors.clamp_method_error("clamp", min, max, e) from e.__cause__

    def clamp_(self, min=None, max=None, *extra):
        if extra:
            raise _ops._parser_errors.clamp_error("clamp_", self, min, max, extra=extra)
        try:
            return _ops.clamp_(self, min, max)
        except TypeError as e:
            raise _ops._parser_errors.clamp_method_error("clamp_", min, max, e) from e.__cause__

    def clip(self, min=None, max=None, *extra):
        if extra:
            raise _ops._parser_errors.clamp_error("clip", self, min, max, extra=extra)
        try:
            return _ops.clamp(self, min, max)
        except TypeError as e:
            raise _ops._parser_errors.clamp_method_error("clip", min, max, e) from e.__cause__

    def clip_(self, min=None, max=None, *extra):
        if extra:
            raise _ops._parser_errors.clamp_error("clip_", self, min, max, extra=extra)
        try:
            return _ops.clamp_(self, min, max)
        except TypeError as e:
            raise _ops._parser_errors.clamp_method_error("clip_", min, max, e) from e.__cause__

    def clamp_min(self, min=REQUIRED, *extra):
        if extra:  # (as fmod's)
            return _ops.clamp_min(self, min, *extra)
        return _ops.clamp_min(self, min)

    def clamp_max(self, max=REQUIRED, *extra):
        if extra:  # (as fmod's)
            return _ops.clamp_max(self, max, *extra)
        return _ops.clamp_max(self, max)

    def where(self, condition=REQUIRED, other=_NO_OPERAND, *extra):
        if extra:  # (as fmod's)
            return _ops.where(condition, self, other, *extra)
        return _ops.where(condition, self, other)

    def eq(self, other=REQUIRED):
        return _ops.eq(self, other)

    def ne(self, other):
        return _ops.ne(self, other)

    def lt(self, other=REQUIRED):
        return _ops.lt(self, other)

    def le(self, other=REQUIRED):
        return _ops.le(self, other)

    def gt(self, other=REQUIRED):
        return _ops.gt(self, other)

    def ge(self, other=REQUIRED):
        return _ops.ge(self, other)

    not_equal = ne

    # aliases with frames of their own, so that their argument errors name them, as torch's
    # (x.less("a"): NOTE [ Argument positions of methods ] in minitorch/_ops/_common.py)
    def less(self, other=REQUIRED):
        return _ops.lt(self, other)

    def less_equal(self, other=REQUIRED):
        return _ops.le(self, other)

    def greater(self, other=REQUIRED):
        return _ops.gt(self, other)

    def greater_equal(self, other=REQUIRED):
        return _ops.ge(self, other)

    # --- pointwise catalogue (minitorch/_ops/pointwise_more.py, pointwise_binary.py, special.py,
    # activation.py, logical.py) ---

    def floor(self):
        return _ops.floor(self)

    def floor_(self):
        return _ops.floor_(self)

    def ceil(self):
        return _ops.ceil(self)

    def ceil_(self):
        return _ops.ceil_(self)

    def trunc(self):
        return _ops.trunc(self)

    def trunc_(self):
        return _ops.trunc_(self)

    def fix(self):
        return _ops.fix(self)

    def fix_(self):
        return _ops.fix_(self)

    def frac(self):
        return _ops.frac(self)

    def frac_(self):
        return _ops.frac_(self)

    def sgn(self):
        return _ops.sgn(self)

    def sgn_(self):
        return _ops.sgn_(self)

    def exp2(self):
        return _ops.exp2(self)

    def exp2_(self):
        return _ops.exp2_(self)

    def expm1(self):
        return _ops.expm1(self)

    def expm1_(self):
        return _ops.expm1_(self)

    def log2(self):
        return _ops.log2(self)

    def log2_(self):
        return _ops.log2_(self)

    def log10(self):
        return _ops.log10(self)

    def log10_(self):
        return _ops.log10_(self)

    def log1p(self):
        return _ops.log1p(self)

    def log1p_(self):
        return _ops.log1p_(self)

    def rsqrt(self):
        return _ops.rsqrt(self)

    def rsqrt_(self):
        return _ops.rsqrt_(self)

    def square(self):
        return _ops.square(self)

    def square_(self):
        return _ops.square_(self)

    def reciprocal(self):
        return _ops.reciprocal(self)

    def reciprocal_(self):
        return _ops.reciprocal_(self)

    def sin(self):
        return _ops.sin(self)

    def sin_(self):
        return _ops.sin_(self)

    def cos(self):
        return _ops.cos(self)

    def cos_(self):
        return _ops.cos_(self)

    def tan(self):
        return _ops.tan(self)

    def tan_(self):
        return _ops.tan_(self)

    def asin(self):
        return _ops.asin(self)

    def asin_(self):
        return _ops.asin_(self)

    def acos(self):
        return _ops.acos(self)

    def acos_(self):
        return _ops.acos_(self)

    def atan(self):
        return _ops.atan(self)

    def atan_(self):
        return _ops.atan_(self)

    def sinh(self):
        return _ops.sinh(self)

    def sinh_(self):
        return _ops.sinh_(self)

    def cosh(self):
        return _ops.cosh(self)

    def cosh_(self):
        return _ops.cosh_(self)

    def asinh(self):
        return _ops.asinh(self)

    def asinh_(self):
        return _ops.asinh_(self)

    def acosh(self):
        return _ops.acosh(self)

    def acosh_(self):
        return _ops.acosh_(self)

    def atanh(self):
        return _ops.atanh(self)

    def atanh_(self):
        return _ops.atanh_(self)

    def arcsin(self):
        return _ops.arcsin(self)

    def arcsin_(self):
        return _ops.arcsin_(self)

    def arccos(self):
        return _ops.arccos(self)

    def arccos_(self):
        return _ops.arccos_(self)

    def arctan(self):
        return _ops.arctan(self)

    def arctan_(self):
        return _ops.arctan_(self)

    def arcsinh(self):
        return _ops.arcsinh(self)

    def arcsinh_(self):
        return _ops.arcsinh_(self)

    def arccosh(self):
        return _ops.arccosh(self)

    def arccosh_(self):
        return _ops.arccosh_(self)

    def arctanh(self):
        return _ops.arctanh(self)

    def arctanh_(self):
        return _ops.arctanh_(self)

    def erf(self):
        return _ops.erf(self)

    def erf_(self):
        return _ops.erf_(self)

    def erfc(self):
        return _ops.erfc(self)

    def erfc_(self):
        return _ops.erfc_(self)

    def erfinv(self):
        return _ops.erfinv(self)

    def erfinv_(self):
        return _ops.erfinv_(self)

    def lgamma(self):
        return _ops.lgamma(self)

    def lgamma_(self):
        return _ops.lgamma_(self)

    def digamma(self):
        return _ops.digamma(self)

    def digamma_(self):
        return _ops.digamma_(self)

    def logical_not(self):
        return _ops.logical_not(self)

    def logical_not_(self):
        return _ops.logical_not_(self)

    def bitwise_not(self):
        return _ops.bitwise_not(self)

    def bitwise_not_(self):
        return _ops.bitwise_not_(self)

    def round(self, *args, decimals=DEFAULT_ZERO):  # NOTE [ round's decimals ]
        if args:
            return _ops.round(self, *args, decimals=decimals)
        return _ops.round(self, decimals=decimals)

    def round_(self, *args, decimals=DEFAULT_ZERO):
        return _ops.round_(self, *args, decimals=decimals)

    def atan2(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("atan2", 1 + len(extra), 1)
        return _ops.atan2(self, other)

    def atan2_(self, other=REQUIRED):
        return _ops.atan2_(self, other)

    def arctan2(self, other=REQUIRED):
        return _ops.arctan2(self, other)

    def arctan2_(self, other=REQUIRED):
        return _ops.arctan2_(self, other)

    def fmod(self, other=REQUIRED, *extra):
        if extra:  # (the function raises torch's listing of the method's overloads)
            return _ops.fmod(self, other, *extra)
        return _ops.fmod(self, other)

    def fmod_(self, other=REQUIRED):
        return _ops.fmod_(self, other)

    def hypot(self, other=REQUIRED):
        return _ops.hypot(self, other)

    def hypot_(self, other=REQUIRED):
        return _ops.hypot_(self, other)

    def xlogy(self, other):
        return _ops.xlogy(self, other)

    def xlogy_(self, other):
        return _ops.xlogy_(self, other)

    def logical_and(self, other=REQUIRED):
        return _ops.logical_and(self, other)

    def logical_and_(self, other=REQUIRED):
        return _ops.logical_and_(self, other)

    def logical_or(self, other=REQUIRED):
        return _ops.logical_or(self, other)

    def logical_or_(self, other=REQUIRED):
        return _ops.logical_or_(self, other)

    def logical_xor(self, other=REQUIRED):
        return _ops.logical_xor(self, other)

    def logical_xor_(self, other=REQUIRED):
        return _ops.logical_xor_(self, other)

    def bitwise_and(self, other=REQUIRED, *extra):
        return _ops.bitwise_and(self, other, *extra)

    def bitwise_and_(self, other=REQUIRED, *extra):
        return _ops.bitwise_and_(self, other, *extra)

    def bitwise_or(self, other=REQUIRED, *extra):
        return _ops.bitwise_or(self, other, *extra)

    def bitwise_or_(self, other=REQUIRED, *extra):
        return _ops.bitwise_or_(self, other, *extra)

    def bitwise_xor(self, other=REQUIRED, *extra):
        return _ops.bitwise_xor(self, other, *extra)

    def bitwise_xor_(self, other=REQUIRED, *extra):
        return _ops.bitwise_xor_(self, other, *extra)

    def bitwise_left_shift(self, other=REQUIRED, *extra):
        return _ops.bitwise_left_shift(self, other, *extra)

    def bitwise_left_shift_(self, other=REQUIRED, *extra):
        return _ops.bitwise_left_shift_(self, other, *extra)

    def bitwise_right_shift(self, other=REQUIRED, *extra):
        return _ops.bitwise_right_shift(self, other, *extra)

    def bitwise_right_shift_(self, other=REQUIRED, *extra):
        return _ops.bitwise_right_shift_(self, other, *extra)

    def fmax(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("fmax", 1 + len(extra), 1)
        return _ops.fmax(self, other)

    def fmin(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("fmin", 1 + len(extra), 1)
        return _ops.fmin(self, other)

    def logaddexp(self, other=REQUIRED):
        return _ops.logaddexp(self, other)

    def logaddexp2(self, other=REQUIRED):
        return _ops.logaddexp2(self, other)

    def lerp(self, end=REQUIRED, weight=REQUIRED, *extra):
        if extra:  # (as fmod's)
            return _ops.lerp(self, end, weight, *extra)
        return _ops.lerp(self, end, weight)

    def lerp_(self, end=REQUIRED, weight=REQUIRED):
        return _ops.lerp_(self, end, weight)

    def addcmul(self, tensor1=REQUIRED, tensor2=REQUIRED, *args, value=1):
        if args:  # the deprecated addcmul(Number value, Tensor tensor1, Tensor tensor2)
            (tensor1, tensor2), value = _scalar_first(
                "addcmul", tensor1, (tensor2, *args), 2, value
            )
        return _ops.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1=REQUIRED, tensor2=REQUIRED, *args, value=1):
        if args:
            (tensor1, tensor2), value = _scalar_first(
                "addcmul_", tensor1, (tensor2, *args), 2, value
            )
        return _ops.addcmul_(self, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1=REQUIRED, tensor2=REQUIRED, *args, value=1):
        if args:
            (tensor1, tensor2), value = _scalar_first(
                "addcdiv", tensor1, (tensor2, *args), 2, value
            )
        return _ops.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1=REQUIRED, tensor2=REQUIRED, *args, value=1):
        if args:
            (tensor1, tensor2), value = _scalar_first(
                "addcdiv_", tensor1, (tensor2, *args), 2, value
            )
        return _ops.addcdiv_(self, tensor1, tensor2, value=value)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None, *extra):
        if extra:
            raise too_many_positional("nan_to_num", 3 + len(extra), 3, 0)
        return _ops.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None, *extra):
        if extra:
            raise too_many_positional("nan_to_num_", 3 + len(extra), 3, 0)
        return _ops.nan_to_num_(self, nan, posinf, neginf)

    def logit(self, eps=None):
        return _ops.logit(self, eps)

    def logit_(self, eps=None):
        return _ops.logit_(self, eps)

    def polygamma(self, n):
        return _ops.polygamma(n, self)

    def polygamma_(self, n):
        return _ops.polygamma_(self, n)

    def isclose(self, other=REQUIRED, rtol=1e-05, atol=1e-08, equal_nan=False, *extra):
        if extra:
            raise too_many_positional("isclose", 4 + len(extra), 4, 1)
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def allclose(self, other=REQUIRED, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.allclose(self, other, rtol, atol, equal_nan)

    def equal(self, other=REQUIRED, *extra):
        if extra:
            raise too_many_positional("equal", 1 + len(extra), 1)
        return _ops.equal(self, other)

    def isnan(self):
        return _ops.isnan(self)

    def isinf(self):
        return _ops.isinf(self)

    def isposinf(self):
        return _ops.isposinf(self)

    def isneginf(self):
        return _ops.isneginf(self)

    def isfinite(self):
        return _ops.isfinite(self)

    def signbit(self):
        return _ops.signbit(self)

    def __rlshift__(self, other):
        try:
            return _ops.bitwise_left_shift(other, self)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __rrshift__(self, other):
        try:
            return _ops.bitwise_right_shift(other, self)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __ilshift__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.bitwise_left_shift_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    def __irshift__(self, other):
        try:
            if other.__class__ is self._device.backend.array_cls:
                return NotImplemented  # See NOTE [ In-place operators with an array ]
            return _ops.bitwise_right_shift_(self, other)
        except _ops._OperandTypeError:  # NOTE [ Operators with foreign operands ]
            return NotImplemented

    # --- end of pointwise catalogue ---

    # --- reductions (arguments forwarded as given: torch's overloads are parsed in _ops) ---

    # The out= and input= of methods whose functions take them, checked only where keywords were
    # given: See NOTE [ Keywords only the function takes ] (in minitorch/_ops/_parser_errors.py).

    def sum(self, *args, **kwargs):
        if kwargs:
            _function_keywords("sum", args, kwargs)
        try:
            return _ops.sum(self, *args, **kwargs)
        except TypeError as e:  # (a keyword no overload has: NOTE [ Arguments given twice ])
            _keyword_error("sum", self, args, kwargs, e)
            raise

    def mean(self, *args, **kwargs):
        if kwargs:
            _function_keywords("mean", args, kwargs)
        try:
            return _ops.mean(self, *args, **kwargs)
        except TypeError as e:  # (a keyword no overload has: NOTE [ Arguments given twice ])
            _keyword_error("mean", self, args, kwargs, e)
            raise

    def prod(self, *args, **kwargs):
        if kwargs:
            _function_keywords("prod", args, kwargs)
        try:
            return _ops.prod(self, *args, **kwargs)
        except TypeError as e:  # (a keyword no overload has: NOTE [ Arguments given twice ])
            _keyword_error("prod", self, args, kwargs, e)
            raise

    def max(self, *args, **kwargs):
        if kwargs and ("out" in kwargs or "input" in kwargs):  # (the method has neither)
            raise _ops._parser_errors.max_min_method_error("max", args, kwargs, None)
        try:
            return _ops.max(self, *args, **kwargs)
        except TypeError as e:  # NOTE [ Argument parser errors ]: the method's own wording
            raise _ops._parser_errors.max_min_method_error("max", args, kwargs, e) from e.__cause__

    def min(self, *args, **kwargs):
        if kwargs and ("out" in kwargs or "input" in kwargs):  # (the method has neither)
            raise _ops._parser_errors.max_min_method_error("min", args, kwargs, None)
        try:
            return _ops.min(self, *args, **kwargs)
        except TypeError as e:
            raise _ops._parser_errors.max_min_method_error("min", args, kwargs, e) from e.__cause__

    def amax(self, *args, **kwargs):
        if kwargs:
            _function_keywords("amax", args, kwargs)
        if len(args) > 2:
            raise too_many_positional("amax", len(args), 2, 0)
        return _ops.amax(self, *args, **kwargs)

    def amin(self, *args, **kwargs):
        if kwargs:
            _function_keywords("amin", args, kwargs)
        if len(args) > 2:
            raise too_many_positional("amin", len(args), 2, 0)
        return _ops.amin(self, *args, **kwargs)

    def aminmax(self, *args, **kwargs):
        if args:  # (the method's dim and keepdim are keyword-only, as the function's)
            _takes_no_arguments("aminmax", args)
        if kwargs:
            _function_keywords("aminmax", args, kwargs)
        return _ops.aminmax(self, **kwargs)

    def argmax(self, *args, **kwargs):
        if kwargs:
            _function_keywords("argmax", args, kwargs)
        if len(args) > 2:
            raise too_many_positional("argmax", len(args), 2, 0)
        return _ops.argmax(self, *args, **kwargs)

    def argmin(self, *args, **kwargs):
        if kwargs:
            _function_keywords("argmin", args, kwargs)
        if len(args) > 2:
            raise too_many_positional("argmin", len(args), 2, 0)
        return _ops.argmin(self, *args, **kwargs)

    def logsumexp(self, *args, **kwargs):
        if kwargs:
            if not args and len(kwargs) == 1 and "dim" in kwargs:
                # x.logsumexp(dim=d), the usual call: the function's body without the relay of
                # its NumPy-alias wrapper, which has nothing to do here (7.7k instructions)
                return _ops.reduction._logsumexp("logsumexp", self, kwargs["dim"], False, None)
            _function_keywords("logsumexp", args, kwargs)
        if len(args) > 2:  # torch's parser counts dim as required
            raise too_many_positional("logsumexp", len(args), 2, 1)
        return _ops.logsumexp(self, *args, **kwargs)

    def softmax(self, dim=REQUIRED, dtype=None, *extra):
        if dim is REQUIRED or extra:
            raise arity_error("softmax", extra, 2, dim=dim)
        if dtype is not None:  # dtype=float too (float64): the kernel's cast takes dtypes only
            dtype = _dtype._dtype_arg(dtype, "softmax", "dtype", 2)
        return _ops.softmax(self, dim, dtype)

    def log_softmax(self, dim=REQUIRED, dtype=None, *extra):
        if dim is REQUIRED or extra:
            raise arity_error("log_softmax", extra, 2, dim=dim)
        if dtype is not None:
            dtype = _dtype._dtype_arg(dtype, "log_softmax", "dtype", 2)
        return _ops.log_softmax(self, dim, dtype)

    def all(self, *args, **kwargs):
        if kwargs:
            _function_keywords("all", args, kwargs)
        return _ops.all(self, *args, **kwargs)

    def any(self, *args, **kwargs):
        if kwargs:
            _function_keywords("any", args, kwargs)
        return _ops.any(self, *args, **kwargs)

    def count_nonzero(self, *args, **kwargs):
        if kwargs:
            _function_keywords("count_nonzero", args, kwargs)
        if len(args) > 1 and not kwargs:  # x.count_nonzero(0, 1): the method takes varargs dims
            args = (args,)
        return _ops.count_nonzero(self, *args, **kwargs)

    def nansum(self, *args, **kwargs):
        if kwargs:
            _function_keywords("nansum", args, kwargs)
        if len(args) > 2:  # (dim, keepdim; counted without self, as torch's parser counts)
            raise too_many_positional("nansum", len(args), 2, 0)
        return _ops.nansum(self, *args, **kwargs)

    def nanmean(self, *args, **kwargs):
        if kwargs:
            _function_keywords("nanmean", args, kwargs)
        if len(args) > 2:
            raise too_many_positional("nanmean", len(args), 2, 0)
        return _ops.nanmean(self, *args, **kwargs)

    def std(self, *args, **kwargs):
        if kwargs:
            _function_keywords("std", args, kwargs)
        return _ops.std(self, *args, **kwargs)

    def var(self, *args, **kwargs):
        if kwargs:
            _function_keywords("var", args, kwargs)
        return _ops.var(self, *args, **kwargs)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        # torch's Tensor.norm is a Python function of this signature (no out=, dtype the 4th
        # argument): it takes no NumPy aliases (keepdims=, axis=), so call past the alias
        # wrapper (NOTE [ NumPy argument aliases ] in minitorch/_ops)
        return _ops.reduction_more.norm(self, p, dim, keepdim, dtype=dtype)

    def cumsum(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cumsum", args, kwargs)
        return _ops.cumsum(self, *args, **kwargs)

    def cumprod(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cumprod", args, kwargs)
        return _ops.cumprod(self, *args, **kwargs)

    def cummax(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cummax", args, kwargs)
        return _ops.cummax(self, *args, **kwargs)

    def cummin(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cummin", args, kwargs)
        return _ops.cummin(self, *args, **kwargs)

    def logcumsumexp(self, *args, **kwargs):
        if kwargs:
            _function_keywords("logcumsumexp", args, kwargs)
        return _ops.logcumsumexp(self, *args, **kwargs)

    def median(self, *args, **kwargs):
        if kwargs:
            _function_keywords("median", args, kwargs)
        return _ops.median(self, *args, **kwargs)

    def nanmedian(self, *args, **kwargs):
        if kwargs:
            _function_keywords("nanmedian", args, kwargs)
        return _ops.nanmedian(self, *args, **kwargs)

    def mode(self, *args, **kwargs):
        if kwargs:
            _function_keywords("mode", args, kwargs)
        return _ops.mode(self, *args, **kwargs)

    def quantile(self, *args, **kwargs):
        if kwargs:
            _function_keywords("quantile", args, kwargs)
        return _ops.quantile(self, *args, **kwargs)

    def nanquantile(self, *args, **kwargs):
        if kwargs:
            _function_keywords("nanquantile", args, kwargs)
        return _ops.nanquantile(self, *args, **kwargs)

    def diff(self, *args, **kwargs):
        if kwargs:
            _function_keywords("diff", args, kwargs)
        return _ops.diff(self, *args, **kwargs)

    # --- shape (minitorch/_ops/shape.py, shape_join.py, shape_more.py, shape_repeat.py) ---

    def reshape(self, *shape, **kwargs):
        if kwargs or not shape:
            return _keyword_sized(_ops.reshape, self, shape, kwargs, "reshape", "shape")
        try:
            first = shape[0].__class__  # x.reshape(2, 3) or x.reshape((2, 3)): _size_args's
            if first is int:
                return _ops.reshape(self, shape)
            if first is tuple and len(shape) == 1:
                return _ops.reshape(self, shape[0])
            return _ops.reshape(self, _size_args(shape))
        except TypeError:
            _size_form_error(shape, "reshape", "shape")
            raise

    def view(self, *shape, **kwargs):
        if shape and not kwargs:
            first = shape[0].__class__  # x.view(2, 3) or x.view((2, 3)): _size_args's result
            if first is int or first is tuple and len(shape) == 1:
                try:
                    return _ops.view(self, shape if first is int else shape[0])
                except TypeError:
                    _size_form_error(shape, "view", "size")
                    raise
        if "dtype" in kwargs and not shape and len(kwargs) == 1:
            return _ops.view_dtype(self, kwargs["dtype"])
        if kwargs or not shape:
            return _keyword_sized(_ops.view, self, shape, kwargs, "view", "size")
        if (
            len(shape) == 1
            and not isinstance(shape[0], (int, TensorMethods))
            # a dtype (NumPy integers have an itemsize too), or a Python type: x.view(float)
            and (hasattr(shape[0], "itemsize") or shape[0] in (float, int, bool))
            and not _is_index(shape[0])
            and not getattr(shape[0], "ndim", 0)  # an ndarray: no size either (_size_args)
        ):
            return _ops.view_dtype(self, shape[0])
        try:
            return _ops.view(self, _size_args(shape))
        except TypeError:
            _size_form_error(shape, "view", "size")
            raise

    def view_as(self, other=REQUIRED, *extra):
        if extra:  # (other REQUIRED: _tensor_arg words x.view_as())
            raise too_many_positional("view_as", 1 + len(extra), 1)
        if getattr(other.__class__, "_dispatches", False) and _subclass_other(other):
            return _dispatch_other(TensorMethods.view_as, self, other)
        return _ops.view(self, _tensor_arg(other, "view_as")._data.shape)

    def reshape_as(self, other=REQUIRED, *extra):
        if extra:  # (as view_as's)
            raise too_many_positional("reshape_as", 1 + len(extra), 1)
        if getattr(other.__class__, "_dispatches", False) and _subclass_other(other):
            return _dispatch_other(TensorMethods.reshape_as, self, other)
        return _ops.reshape(self, _tensor_arg(other, "reshape_as")._data.shape)

    def ravel(self):
        return _ops.ravel(self)

    def flatten(self, start_dim=0, end_dim=-1, *extra):
        if extra:  # (torch's parser counts without self: "takes from 0 to 1")
            raise too_many_positional("flatten", 2 + len(extra), 2, 0)
        return _ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        if not sizes:  # torch's Python method checks this before its parser reads dim
            raise RuntimeError("unflatten: sizes must be non-empty")
        return _ops.shape.unflatten(self, dim, sizes)  # (positional: no NumPy alias to read)

    def squeeze(self, *dims, dim=_NO_DIM):
        # z.squeeze(0, 2): the method takes its dims as varargs too (torch.squeeze does not);
        # None is no dim for torch's overloads (squeeze(None), squeeze(dim=None) are TypeErrors)
        if dim is not _NO_DIM:
            if dims:
                got = ", ".join(_type_name(d) for d in dims)
                raise TypeError(
                    f"squeeze() received an invalid combination of arguments - got ({got}, "
                    f"dim={_type_name(dim)}), but expected one of:\n * ()\n * (int dim)\n"
                    " * (tuple of ints dim)\n"
                )
            if dim is None:
                _squeeze_none_error(True)
            return _ops.squeeze(self, dim)
        if len(dims) == 1:
            if dims[0] is None:
                _squeeze_none_error(False)
            return _ops.shape.squeeze(self, dims[0])  # (positional: no NumPy alias to read)
        if not dims:
            return _ops.shape.squeeze(self)
        try:
            return _ops.squeeze(self, dims)
        except TypeError as e:  # z.squeeze(0.5, 2): torch's parser reads varargs as given
            if "failed to unpack" in str(e):  # (a later dim: its wording names the element)
                raise
            parser = _ops._parser_errors
            forms = parser.OVERLOADS["squeeze"][1]
            raise parser.invalid_arguments("squeeze", forms, dims, {}) from None

    def unsqueeze(self, dim=REQUIRED, *extra):
        if extra:
            raise too_many_positional("unsqueeze", 1 + len(extra), 1)
        return _ops.shape.unsqueeze(self, dim)  # (positional: no NumPy alias to read)

    def squeeze_(self, dim=None, *dims):
        if dims:
            dim = (dim, *dims)
        if dim is None:
            name = "SqueezeBackward3"
        elif isinstance(dim, int) or _is_index(dim):
            name = "SqueezeBackward4"
        else:
            name = "SqueezeBackward5"
        return _shape_change(self, lambda: _ops.squeeze(self, dim), name)

    def unsqueeze_(self, dim):
        return _shape_change(self, lambda: _ops.unsqueeze(self, dim), "UnsqueezeBackward1")

    def permute(self, *dims, **kwargs):
        if kwargs or not dims:
            return _keyword_sized(_ops.permute, self, dims, kwargs, "permute", "dims")
        try:
            return _ops.permute(self, _size_args(dims))
        except TypeError:  # See NOTE [ Size argument forms ]
            _size_form_error(dims, "permute", "dims")
            raise

    def transpose(self, dim0=REQUIRED, dim1=REQUIRED, *extra):
        if extra or dim1 is REQUIRED or dim0 is REQUIRED:
            raise arity_error("transpose", extra, 2, dim0=dim0, dim1=dim1)
        return _ops.transpose(self, dim0, dim1)

    def t(self):
        return _ops.t(self)

    def transpose_(self, dim0, dim1):
        return _shape_change(
            self, lambda: _ops.transpose(self, dim0, dim1), "TransposeBackward1"
        )

    def t_(self):
        if self._data.ndim > 2:  # (t's check, in t_'s words, after torch's autograd refusals)
            _ops.check_shape_change(self)
            raise RuntimeError(
                f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
            )
        return _ops.set_shape_(self, _ops.t(self), "TBackward1")

    def swapaxes(self, axis0=REQUIRED, axis1=REQUIRED, *extra):
        if extra or axis0 is REQUIRED or axis1 is REQUIRED:
            raise arity_error("swapaxes", extra, 2, axis0=axis0, axis1=axis1)
        return _ops.swapaxes(self, axis0, axis1)  # (its errors name axis0/axis1, as torch's)

    def swapaxes_(self, axis0, axis1):
        return self.transpose_(axis0, axis1)

    swapdims = transpose
    swapdims_ = transpose_

    def movedim(self, source=REQUIRED, destination=REQUIRED, *extra):
        return _ops.movedim(self, source, destination, *extra)  # (its errors: the method's)

    def moveaxis(self, source=REQUIRED, destination=REQUIRED, *extra):
        return _ops.moveaxis(self, source, destination, *extra)

    def adjoint(self):
        return _ops.adjoint(self)

    @property
    def T(self):
        return _ops.numpy_T(self)

    @property
    def mT(self):
        return _ops.matrix_T(self, "mT")

    @property
    def H(self):
        return _ops.matrix_T(self, "H")

    @property
    def mH(self):
        return _ops.matrix_T(self, "mH")

    def expand(self, *sizes, **kwargs):
        if kwargs or not sizes:
            kwargs.pop("implicit", None)
            return _keyword_sized(_ops.expand, self, sizes, kwargs, "expand", "size")
        try:
            return _ops.expand(self, _size_args(sizes))
        except TypeError:  # See NOTE [ Size argument forms ]
            _size_form_error(sizes, "expand", "size")
            raise

    def expand_as(self, other=REQUIRED, *extra):
        if extra:  # (as view_as's)
            raise too_many_positional("expand_as", 1 + len(extra), 1)
        if getattr(other.__class__, "_dispatches", False) and _subclass_other(other):
            return _dispatch_other(TensorMethods.expand_as, self, other)
        return _ops.expand(self, _tensor_arg(other, "expand_as").shape)

    def broadcast_to(self, *size, **kwargs):
        if kwargs or not size:
            return _keyword_sized(_ops.expand, self, size, kwargs, "broadcast_to", "size")
        try:
            return _ops.expand(self, _size_args(size))
        except TypeError:  # See NOTE [ Size argument forms ]
            _size_form_error(size, "broadcast_to", "size")
            raise

    def unbind(self, dim=0, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("unbind", 1 + len(extra), 1, 0)
        return _ops.unbind(self, dim)

    def split(self, split_size, dim=0):
        return _ops.split(self, split_size, dim)

    def split_with_sizes(self, split_sizes, dim=0):
        return _ops.split_with_sizes(self, split_sizes, dim)

    def chunk(self, chunks=REQUIRED, dim=0, *extra):
        if extra:
            raise too_many_positional("chunk", 2 + len(extra), 2, 1)
        return _ops.chunk(self, chunks, dim)

    def tensor_split(self, indices_or_sections=None, dim=0, *extra, **overload_kw):
        # overload_kw: torch's sections= / indices= / tensor_indices_or_sections=
        return _ops.tensor_split(self, indices_or_sections, dim, *extra, **overload_kw)

    # x.hsplit(1, 3): the methods take split indices as varargs too (torch.hsplit does not);
    # overload_kw: torch's sections= / indices=

    def hsplit(self, indices_or_sections=None, *more, **overload_kw):
        arg = (indices_or_sections, *more) if more else indices_or_sections
        return _ops.hsplit(self, arg, **overload_kw)

    def vsplit(self, indices_or_sections=None, *more, **overload_kw):
        arg = (indices_or_sections, *more) if more else indices_or_sections
        return _ops.vsplit(self, arg, **overload_kw)

    def dsplit(self, indices_or_sections=None, *more, **overload_kw):
        arg = (indices_or_sections, *more) if more else indices_or_sections
        return _ops.dsplit(self, arg, **overload_kw)

    def narrow(self, dim=REQUIRED, start=REQUIRED, length=REQUIRED, *extra):
        if extra or dim is REQUIRED or start is REQUIRED or length is REQUIRED:
            raise _ops.shape.narrow_arity_error((dim, start, length, *extra), True)
        return _ops.shape.narrow(self, dim, start, length)  # (positional: no NumPy alias)

    def diagonal(self, offset=0, dim1=0, dim2=1, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("diagonal", 3 + len(extra), 3, 0)
        return _ops.diagonal(self, offset, dim1, dim2)

    def diag(self, diagonal=0, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("diag", 1 + len(extra), 1, 0)
        return _ops.diag(self, diagonal)

    def diag_embed(self, offset=0, dim1=-2, dim2=-1, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("diag_embed", 3 + len(extra), 3, 0)
        return _ops.diag_embed(self, offset, dim1, dim2)

    def diagflat(self, offset=0):
        return _ops.diagflat(self, offset)

    def tril(self, diagonal=0, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("tril", 1 + len(extra), 1, 0)
        return _ops.tril(self, diagonal)

    def triu(self, diagonal=0, *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("triu", 1 + len(extra), 1, 0)
        return _ops.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return _ops.apply_inplace(self, lambda s: _ops.tril(s, diagonal), "tril_")

    def triu_(self, diagonal=0):
        return _ops.apply_inplace(self, lambda s: _ops.triu(s, diagonal), "triu_")

    def unfold(self, dimension, size, step):
        return _ops.unfold(self, dimension, size, step)

    def as_strided(self, size=REQUIRED, stride=REQUIRED, storage_offset=None):
        return _ops.as_strided(self, size, stride, storage_offset)

    def repeat(self, *sizes, **kwargs):
        if kwargs or not sizes:
            return _keyword_sized(_ops.repeat, self, sizes, kwargs, "repeat", "repeats")
        try:
            return _ops.repeat(self, _size_args(sizes))
        except TypeError:  # See NOTE [ Size argument forms ]
            _size_form_error(sizes, "repeat", "repeats")
            raise

    def tile(self, *dims, **kwargs):
        if kwargs or not dims:
            return _keyword_sized(_ops.tile, self, dims, kwargs, "tile", "dims")
        try:
            return _ops.tile(self, _size_args(dims))
        except TypeError:  # See NOTE [ Size argument forms ]
            _size_form_error(dims, "tile", "dims")
            raise

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        return _ops.repeat_interleave(self, repeats, dim, output_size=output_size)

    def flip(self, *dims, **kwargs):
        # dims is an unsized int[] (a tuple or list): torch's varargs form reads x.flip(1) (one
        # int-like, or a one-element integer tensor) as (1,), but x.flip(dims=1) and
        # torch.flip(x, 1) are TypeErrors.
        if kwargs:
            if dims or len(kwargs) > 1 or "dims" not in kwargs:
                _keyword_size(dims, kwargs, "dims", "flip")  # raises torch's TypeError
            seq, where = kwargs["dims"], ""
        elif len(dims) == 1:
            seq, where = dims[0], " (position 1)"
            if seq.__class__ is int:
                return _ops.flip(self, dims)
            if _is_index(seq) or (
                isinstance(seq, TensorMethods) and seq.numel() == 1 and seq.dtype._kind == 1
            ):
                return _ops.flip(self, dims)
        elif dims:
            if isinstance(dims[0], (tuple, list)):  # x.flip((0,), 1): no varargs form
                raise too_many_positional("flip", len(dims), 1)
            return _ops.flip(self, dims)
        else:  # x.flip(): torch's dims has no default (x.flip(()) is fine)
            raise missing_positional("flip", "dims")
        if not isinstance(seq, (tuple, list)):
            raise TypeError(
                f"flip(): argument 'dims'{where} must be tuple of ints, not {_type_name(seq)}"
            )
        return _ops.flip(self, seq)

    def fliplr(self):
        return _ops.fliplr(self)

    def flipud(self):
        return _ops.flipud(self)

    def roll(self, shifts=REQUIRED, dims=None, *extra):
        if extra:
            raise too_many_positional("roll", 2 + len(extra), 2, 1)
        return _ops.roll(self, shifts, dims)

    def rot90(self, k=1, dims=(0, 1), *extra):
        if extra:  # (as flatten's)
            raise too_many_positional("rot90", 2 + len(extra), 2, 0)
        return _ops.rot90(self, k, dims)

    # --- end of shape ---

    # --- linear algebra ---

    def matmul(self, *args, **kwargs):
        if kwargs:
            _function_keywords("matmul", args, kwargs)
        if len(args) != 1:
            _check_one_operand("matmul", "other", args, kwargs)
        return _ops.matmul(self, *args, **kwargs)

    def mm(self, *args, **kwargs):
        if kwargs:
            _function_keywords("mm", args, kwargs)
        if len(args) != 1:
            _check_one_operand("mm", "mat2", args, kwargs)
        return _ops.mm(self, *args, **kwargs)

    def bmm(self, *args, **kwargs):
        if kwargs:
            _function_keywords("bmm", args, kwargs)
        if len(args) != 1:
            _check_one_operand("bmm", "mat2", args, kwargs)
        return _ops.bmm(self, *args, **kwargs)

    def mv(self, *args, **kwargs):
        if kwargs:
            _function_keywords("mv", args, kwargs)
        if len(args) != 1:
            _check_one_operand("mv", "vec", args, kwargs)
        return _ops.mv(self, *args, **kwargs)

    def dot(self, *args, **kwargs):
        if kwargs:
            _function_keywords("dot", args, kwargs)
        if len(args) != 1:
            _check_one_operand("dot", "tensor", args, kwargs)
        return _ops.dot(self, *args, **kwargs)

    def vdot(self, *args, **kwargs):
        if kwargs:
            _function_keywords("vdot", args, kwargs)
        if len(args) != 1:
            _check_one_operand("vdot", "other", args, kwargs)
        return _ops.vdot(self, *args, **kwargs)

    def outer(self, *args, **kwargs):
        if kwargs:
            _function_keywords("outer", args, kwargs)
        if len(args) != 1:
            _check_one_operand("outer", "vec2", args, kwargs)
        return _ops.outer(self, *args, **kwargs)

    def ger(self, *args, **kwargs):
        if kwargs:
            _function_keywords("ger", args, kwargs)
        return _ops.ger(self, *args, **kwargs)

    def inner(self, *args, **kwargs):
        if kwargs:
            _function_keywords("inner", args, kwargs)
        if len(args) != 1:
            _check_one_operand("inner", "other", args, kwargs)
        return _ops.inner(self, *args, **kwargs)

    def addmm(self, mat1=REQUIRED, mat2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (mat1, mat2, *args)
            (mat1, mat2), beta, alpha = _beta_alpha_first("addmm", args, beta, alpha, True)
        _ops.linalg.check_scalars("addmm", beta, alpha)  # (the method names the argument)
        return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat=REQUIRED, vec=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (mat, vec, *args)
            (mat, vec), beta, alpha = _beta_alpha_first("addmv", args, beta, alpha, True)
        return _ops.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addbmm(self, batch1=REQUIRED, batch2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (batch1, batch2, *args)
            (batch1, batch2), beta, alpha = _beta_alpha_first("addbmm", args, beta, alpha, True)
        return _ops.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1=REQUIRED, batch2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (batch1, batch2, *args)
            (batch1, batch2), beta, alpha = _beta_alpha_first("baddbmm", args, beta, alpha, True)
        _ops.linalg.check_scalars("baddbmm", beta, alpha)  # (the method names the argument)
        return _ops.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def kron(self, *args, **kwargs):
        if kwargs:
            _function_keywords("kron", args, kwargs)
        if len(args) != 1:
            _check_one_operand("kron", "other", args, kwargs)
        return _ops.kron(self, *args, **kwargs)

    def trace(self, *args, **kwargs):
        if args or kwargs:
            raise _no_parameters("trace", args, kwargs)
        return _ops.trace(self)

    # --- decompositions and solvers (minitorch/_ops/linalg_solve.py, _factor.py, _matfn.py) ---

    def inverse(self):
        return _ops.inverse(self)

    def det(self):
        return _ops.det(self)

    def slogdet(self):
        return _ops.slogdet(self)

    def logdet(self):
        return _ops.logdet(self)

    def cholesky(self, upper=False):
        return _ops.cholesky(self, upper)

    def cholesky_solve(self, input2=REQUIRED, upper=False):
        return _ops.cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        return _ops.cholesky_inverse(self, upper)

    def qr(self, some=True):
        return _ops.qr(self, some)

    def svd(self, some=True, compute_uv=True):
        return _ops.svd(self, some, compute_uv)

    def pinverse(self, rcond=1e-15):
        return _ops.pinverse(self, rcond)

    def matrix_power(self, n=REQUIRED, *extra):
        if n is REQUIRED or extra:  # x.matrix_power(), x.matrix_power(2, 3): torch's parser
            raise arity_error("matrix_power", extra, 1, n=n)
        return _ops.matrix_power(self, n)

    def matrix_exp(self):
        return _ops.matrix_exp(self)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        return _ops.triangular_solve(self, A, upper, transpose, unitriangular)

    # --- end of decompositions and solvers ---

    # --- copies, dtypes and devices ---

    def clone(self, *extra, memory_format=None):
        if extra:  # (as flatten's)
            raise too_many_positional("clone", len(extra), 0)
        return _ops.clone(self, memory_format=memory_format)

    def contiguous(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("contiguous", args)
        if memory_format is None and self._data.flags.c_contiguous:
            return self
        return _ops.convert.contiguous_as(self, memory_format)

    def to(self, *args, **kwargs):
        out = _ops.to(self, *args, **kwargs)
        if out is self:
            # torch compares the device asked for with self's as given: 'cpu:0' is not a CPU
            # tensor's 'cpu' (tensors hold no CPU index), so it copies (into 'cpu'). Checked
            # only when nothing was converted, so conversions pay nothing for it.
            d = args[0] if args else kwargs.get("device")
            if (d.__class__ is str and d[:4] == "cpu:") or (
                d.__class__ is Device and d.index is not None and d.type == "cpu"
            ):
                return _ops.convert.ToCopy.apply(self, np_dtype=self._data.dtype, device=cpu)
        return out

    def cpu(self, memory_format=None):
        if memory_format is None:
            return _ops.to(self, "cpu")
        return _cast_in_format(self, "cpu", memory_format, "cpu", 0)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        where = "cuda" if device is None else _ops.cuda_device(device)
        if memory_format is None:
            return _ops.to(self, where, non_blocking=non_blocking)
        return _cast_in_format(self, where, memory_format, "cuda", 2, non_blocking=non_blocking)

    def xpu(self, device=None, non_blocking=False, memory_format=None):
        """Raises as torch built without XPU does: minitorch has no Intel XPU backend (see
        minitorch/xpu.py). Mirrors torch.Tensor.xpu."""
        if memory_format is not None:
            from minitorch import _memory_format

            _memory_format.check(memory_format, "xpu")
        raise AssertionError("Torch not compiled with XPU enabled")

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if kwargs:  # rare: torch's deprecated async= and its memory_format=, nothing else
            memory_format = _type_keywords(kwargs)
            if memory_format is not None and dtype is not None:
                if dtype.__class__ is _dtype.dtype:  # one conversion (one ToCopyBackward0)
                    return _cast_in_format(self, dtype, memory_format, "type")
                return _cast_in_format(self.type(dtype), None, memory_format, "type")
        if dtype is not None and dtype.__class__ is not _dtype.dtype:
            dtype = _legacy_type_arg(dtype)
        return _ops.type_(self, dtype)

    @property
    def volatile(self):
        """Removed with Variable (always False), as torch says."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", stacklevel=2)
        return False

    @volatile.setter
    def volatile(self, value):
        warnings.warn(
            "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
            stacklevel=2,
        )

    def type_as(self, other=REQUIRED, *extra):
        if extra:  # (as view_as's)
            raise too_many_positional("type_as", 1 + len(extra), 1)
        # torch's self.type(other.type()): other's dtype and device
        _tensor_arg(other, "type_as")
        return self.to(device=other.device, dtype=other.dtype)

    def float(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("float", args)
        if memory_format is None:
            return _ops.to_dtype(self, "float32")
        return _cast_in_format(self, _dtype.float32, memory_format, "float")

    def double(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("double", args)
        if memory_format is None:
            return _ops.to_dtype(self, "float64")
        return _cast_in_format(self, _dtype.float64, memory_format, "double")

    def half(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("half", args)
        if memory_format is None:
            return _ops.to_dtype(self, "float16")
        return _cast_in_format(self, _dtype.float16, memory_format, "half")

    def bfloat16(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("bfloat16", args)
        if memory_format is None:
            return _ops.to_dtype(self, "bfloat16")
        return _cast_in_format(self, _dtype.bfloat16, memory_format, "bfloat16")

    def long(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("long", args)
        if memory_format is None:
            return _ops.to_dtype(self, "int64")
        return _cast_in_format(self, _dtype.int64, memory_format, "long")

    def int(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("int", args)
        if memory_format is None:
            return _ops.to_dtype(self, "int32")
        return _cast_in_format(self, _dtype.int32, memory_format, "int")

    def short(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("short", args)
        if memory_format is None:
            return _ops.to_dtype(self, "int16")
        return _cast_in_format(self, _dtype.int16, memory_format, "short")

    def char(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("char", args)
        if memory_format is None:
            return _ops.to_dtype(self, "int8")
        return _cast_in_format(self, _dtype.int8, memory_format, "char")

    def byte(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("byte", args)
        if memory_format is None:
            return _ops.to_dtype(self, "uint8")
        return _cast_in_format(self, _dtype.uint8, memory_format, "byte")

    def bool(self, *args, memory_format=None):
        if args:
            _takes_no_arguments("bool", args)
        if memory_format is None:
            return _ops.to_dtype(self, "bool")
        return _cast_in_format(self, _dtype.bool, memory_format, "bool")

    # --- in-place fills and copies ---

    def zero_(self):
        return _ops.zero_(self)

    def fill_(self, value=REQUIRED):
        return _ops.fill_(self, value)

    def copy_(self, other=REQUIRED, non_blocking=False):
        # `other` is torch's keyword for the source (src= is its TypeError too)
        return _ops.copy_(self, other, non_blocking=non_blocking)

    def module_load(self, other, assign=False):
        """The tensor that Module.load_state_dict swaps into `self` (a parameter or buffer) for
        the checkpoint's `other`, when torch.__future__'s swap flag is on: other copied into
        self (self's dtype and device) or, with assign=True, other itself; detached either way,
        as the result must be neither self nor other. A subclass overrides it to load its own
        layout. Mirrors torch.Tensor.module_load."""
        if assign:
            return other.detach()
        return self.copy_(other).detach()

    # --- random sampling, diagonal fill and host callbacks (minitorch/_ops/random_ops.py) ---

    def bernoulli(self, p=None, *extra, generator=None, **unknown):
        if extra or unknown:  # torch's parser's listing
            params = {"p": p, "generator": generator}
            raise _ops.random_ops._bernoulli_call_error("Tensor.bernoulli", params, extra, unknown)
        if generator is not None:  # torch's errors for a generator= that is no Generator
            args = () if p is None else (p,)
            _ops.random_ops._check_generator(generator, "Tensor.bernoulli", args, {})
        if p is not None:  # the method's overloads, in torch's TypeError for a tensor p
            _ops.random_ops._check_bernoulli_p(p, (p,), generator)
        return _ops.bernoulli(self, p, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return _ops.random_ops.bernoulli_(self, p, generator=generator)

    def multinomial(self, num_samples=REQUIRED, replacement=False, *extra, generator=None):
        if num_samples is REQUIRED or extra:  # x.multinomial(): torch's parser error
            raise arity_error("multinomial", extra, 2, num_samples=num_samples)
        return _ops.multinomial(self, num_samples, replacement, generator=generator)

    def uniform_(self, *args, **kwargs):  # uniform_(from=0, to=1, *, generator=None)
        if "from" in kwargs:
            kwargs["from_"] = kwargs.pop("from")
        return _ops.random_ops.uniform_(self, *args, **kwargs)

    def random_(self, *args, **kwargs):  # random_(from, to) / random_(to) / random_()
        return _ops.random_ops.random_(self, *args, **kwargs)

    def normal_(self, mean=0, std=1, *, generator=None):
        return _ops.random_ops.normal_(self, mean, std, generator=generator)

    def log_normal_(self, mean=1, std=2, *, generator=None):
        return _ops.random_ops.log_normal_(self, mean, std, generator=generator)

    def exponential_(self, lambd=1, *, generator=None):
        return _ops.random_ops.exponential_(self, lambd, generator=generator)

    def geometric_(self, p=REQUIRED, *, generator=None):
        return _ops.random_ops.geometric_(self, p, generator=generator)

    def cauchy_(self, median=0, sigma=1, *, generator=None):
        return _ops.random_ops.cauchy_(self, median, sigma, generator=generator)

    def fill_diagonal_(self, fill_value=REQUIRED, wrap=False):
        return _ops.random_ops.fill_diagonal_(self, fill_value, wrap)

    def apply_(self, callable):
        return _ops.random_ops.apply_(self, callable)

    def map_(self, other, callable):
        return _ops.random_ops.map_(self, other, callable)

    # --- end of random sampling, diagonal fill and host callbacks ---

    # --- pointwise, comparison and tensor-kind methods ---

    # pointwise math (minitorch/_ops/pointwise_misc.py, special.py)

    def angle(self):
        return _ops.angle(self)

    def copysign(self, other=REQUIRED):
        return _ops.copysign(self, other)

    def copysign_(self, other=REQUIRED):
        return _ops.pointwise_misc.copysign_(self, other)

    def deg2rad(self):
        return _ops.deg2rad(self)

    def deg2rad_(self):
        return _ops.deg2rad_(self)

    def rad2deg(self):
        return _ops.rad2deg(self)

    def rad2deg_(self):
        return _ops.rad2deg_(self)

    def float_power(self, exponent=REQUIRED):
        return _ops.float_power(self, exponent)

    def float_power_(self, exponent=REQUIRED):
        return _ops.pointwise_misc.float_power_(self, exponent)

    def floor_divide(self, other=REQUIRED, *extra):
        return _ops.floor_divide(self, other, *extra)

    def floor_divide_(self, other=REQUIRED, *extra):
        return _ops.floor_divide_(self, other, *extra)

    def remainder(self, other=REQUIRED, *extra):
        return _ops.remainder(self, other, *extra)

    def remainder_(self, other=REQUIRED, *extra):
        return _ops.remainder_(self, other, *extra)

    def frexp(self):
        return _ops.frexp(self)

    def gcd(self, other=REQUIRED):
        return _ops.gcd(self, other)

    def gcd_(self, other=REQUIRED):
        return _ops.gcd_(self, other)

    def lcm(self, other=REQUIRED):
        return _ops.lcm(self, other)

    def lcm_(self, other=REQUIRED):
        return _ops.lcm_(self, other)

    def heaviside(self, values=REQUIRED):
        return _ops.heaviside(self, values)

    def heaviside_(self, values=REQUIRED):
        return _ops.pointwise_misc.heaviside_(self, values)

    def ldexp(self, other=REQUIRED):
        return _ops.ldexp(self, other)

    def ldexp_(self, other=REQUIRED):
        return _ops.ldexp_(self, other)

    def nextafter(self, other):
        return _ops.nextafter(self, other)

    def nextafter_(self, other):
        return _ops.pointwise_misc.nextafter_(self, other)

    def i0(self):
        return _ops.i0(self)

    def i0_(self):
        return _ops.i0_(self)

    def sinc(self):
        return _ops.sinc(self)

    def sinc_(self):
        return _ops.sinc_(self)

    def igamma(self, other=REQUIRED):
        return _ops.igamma(self, other)

    def igamma_(self, other=REQUIRED):
        return _ops.special.igamma_(self, other)

    def igammac(self, other=REQUIRED):
        return _ops.igammac(self, other)

    def igammac_(self, other=REQUIRED):
        return _ops.special.igammac_(self, other)

    def mvlgamma(self, p):
        return _ops.mvlgamma(self, p)

    def mvlgamma_(self, p):
        return _ops.special.mvlgamma_(self, p)

    def sign_(self):
        return _ops.pointwise_misc.sign_(self)

    def positive(self):
        return _ops.positive(self)

    def clamp_min_(self, min=REQUIRED):
        return _ops.clamp_min_(self, min)

    def clamp_max_(self, max=REQUIRED):
        return _ops.clamp_max_(self, max)

    # in-place comparisons (minitorch/_ops/logical.py)

    def eq_(self, other=REQUIRED):
        return _ops.logical.eq_(self, other)

    def ne_(self, other):
        return _ops.logical.ne_(self, other)

    def lt_(self, other=REQUIRED):
        return _ops.logical.lt_(self, other)

    def le_(self, other=REQUIRED):
        return _ops.logical.le_(self, other)

    def gt_(self, other=REQUIRED):
        return _ops.logical.gt_(self, other)

    def ge_(self, other=REQUIRED):
        return _ops.logical.ge_(self, other)

    not_equal_ = ne_

    def less_(self, other=REQUIRED):  # (as less's)
        return _ops.logical.lt_(self, other)

    def less_equal_(self, other=REQUIRED):
        return _ops.logical.le_(self, other)

    def greater_(self, other=REQUIRED):
        return _ops.logical.gt_(self, other)

    def greater_equal_(self, other=REQUIRED):
        return _ops.logical.ge_(self, other)

    # in-place scans, sums to a size, splits, select (cumulative.py, tensor_misc.py)

    def cumsum_(self, dim=REQUIRED, *, dtype=None):
        return _ops.cumulative.cumsum_(self, dim, dtype=dtype)

    def cumprod_(self, dim=REQUIRED, *, dtype=None):
        return _ops.cumulative.cumprod_(self, dim, dtype=dtype)

    def sum_to_size(self, *size, **kwargs):
        if kwargs or not size:
            return _ops.tensor_misc.sum_to_size(
                self, _keyword_size(size, kwargs, "size", "sum_to_size")
            )
        return _ops.tensor_misc.sum_to_size(self, *size)

    def map2_(self, x, y, callable):
        return _ops.tensor_misc.map2_(self, x, y, callable)

    def unsafe_chunk(self, chunks, dim=0):
        return _ops.unsafe_chunk(self, chunks, dim)

    def unsafe_split(self, split_size, dim=0):
        return _ops.unsafe_split(self, split_size, dim)

    def unsafe_split_with_sizes(self, split_sizes, dim=0):
        return _ops.unsafe_split_with_sizes(self, split_sizes, dim)

    def select(self, dim=REQUIRED, index=REQUIRED, *extra):
        if extra:
            raise too_many_positional("select", 2 + len(extra), 2)
        if dim.__class__ is int and index.__class__ is int:  # (torch.select's checks, which
            shape = self._data.shape  # pass for these, and its key)
            n = len(shape)
            if n and 0 <= dim < n and -shape[dim] <= index < shape[dim]:
                return self[(_WHOLE,) * dim + (index,)]
        # (a negative dim too: torch.select keeps it as given, grad_fn._saved_dim)
        return _ops.select(self, dim, index)

    def nonzero_static(self, *, size, fill_value=-1):
        return _ops.nonzero_static(self, size=size, fill_value=fill_value)

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                          layout=None, pin_memory=False):
        return _ops.tensor_misc.new_empty_strided(
            self,
            size,
            stride,
            dtype=dtype,
            device=device,
            requires_grad=requires_grad,
            layout=layout,
            pin_memory=pin_memory,
        )

    # tensor kind: real, dense, strided (see minitorch/_ops/tensor_misc.py)

    def is_nonzero(self):
        return _ops.is_nonzero(self)

    def is_same_size(self, other=REQUIRED):
        return _ops.is_same_size(self, other)

    def isreal(self):
        return _ops.isreal(self)

    def is_conj(self):
        return False

    def is_neg(self):
        return False

    def is_inference(self):
        return self._vc.__class__ is not list  # NOTE [ Inference tensors ]

    def is_distributed(self):
        return False  # torch's answer for every dense tensor

    def is_shared(self):
        from minitorch import storage  # storage imports this module's Tensor

        return storage.is_shared(self)

    def share_memory_(self):
        """Moves the memory into memory shared with forked children (see NOTE [ Shared memory ]
        in minitorch/storage.py). Mirrors torch.Tensor.share_memory_.

        Differences from torch: views and aliases made before the call keep the old memory;
        spawned children get a copy."""
        from minitorch import storage

        return storage.share_memory_(self)

    def conj(self):
        return self

    def conj_physical(self):
        return self

    def conj_physical_(self):
        return _ops.conj_physical_(self)

    def resolve_conj(self):
        return self

    def resolve_neg(self):
        return self

    @property
    def real(self):
        return self

    @real.setter
    def real(self, value):
        _ops.copy_(self, value)

    @property
    def imag(self):
        return _ops.imag(self)

    def cfloat(self, *args, memory_format=None):
        if args:  # (as float's: memory_format is keyword-only)
            _takes_no_arguments("cfloat", args)
        return _ops.tensor_misc.complex_unsupported(self, "cfloat")

    def cdouble(self, *args, memory_format=None):
        if args:  # (as float's: memory_format is keyword-only)
            _takes_no_arguments("cdouble", args)
        return _ops.tensor_misc.complex_unsupported(self, "cdouble")

    def chalf(self, *args, memory_format=None):
        if args:  # (as float's: memory_format is keyword-only)
            _takes_no_arguments("chalf", args)
        return _ops.tensor_misc.complex_unsupported(self, "chalf")

    @property
    def layout(self):
        return _ops.tensor_misc.strided

    @property
    def output_nr(self):
        return self._output_nr

    is_meta = property(lambda self: self._device.type == "meta")
    is_sparse = is_sparse_csr = is_quantized = is_mps = is_xpu = property(lambda self: False)
    is_ipu = is_mkldnn = is_vulkan = is_xla = is_mtia = is_maia = is_nested = property(
        lambda self: False
    )

    def to_dense(self, dtype=None, *, masked_grad=None):
        # every tensor is strided (dense): torch returns such a tensor itself (code written for
        # sparse embedding gradients calls grad.to_dense())
        if dtype is None:
            return self
        if not isinstance(dtype, _dtype.dtype) and dtype not in (bool, int, float, complex):
            from minitorch._ops._common import wrong_type

            raise wrong_type("to_dense", dtype, "dtype", 1, "torch.dtype")
        return self.to(dtype)

    # --- linear algebra, scatter and copy-variant methods ---

    def addmm_(self, mat1=REQUIRED, mat2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (mat1, mat2, *args)
            (mat1, mat2), beta, alpha = _beta_alpha_first("addmm_", args, beta, alpha, True)
        return _ops.addmm_(self, mat1, mat2, beta=beta, alpha=alpha)

    def addbmm_(self, batch1=REQUIRED, batch2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (batch1, batch2, *args)
            (batch1, batch2), beta, alpha = _beta_alpha_first("addbmm_", args, beta, alpha, True)
        return _ops.addbmm_(self, batch1, batch2, beta=beta, alpha=alpha)

    def addmv_(self, mat=REQUIRED, vec=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (mat, vec, *args)
            (mat, vec), beta, alpha = _beta_alpha_first("addmv_", args, beta, alpha, True)
        return _ops.addmv_(self, mat, vec, beta=beta, alpha=alpha)

    def baddbmm_(self, batch1=REQUIRED, batch2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (batch1, batch2, *args)
            (batch1, batch2), beta, alpha = _beta_alpha_first("baddbmm_", args, beta, alpha, True)
        return _ops.baddbmm_(self, batch1, batch2, beta=beta, alpha=alpha)

    def addr(self, vec1=REQUIRED, vec2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (vec1, vec2, *args)
            (vec1, vec2), beta, alpha = _beta_alpha_first("addr", args, beta, alpha, True)
        return _ops.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addr_(self, vec1=REQUIRED, vec2=REQUIRED, *args, beta=1, alpha=1):
        if args:  # See NOTE [ Deprecated add*mm overloads ]
            args = (vec1, vec2, *args)
            (vec1, vec2), beta, alpha = _beta_alpha_first("addr_", args, beta, alpha, True)
        return _ops.addr_(self, vec1, vec2, beta=beta, alpha=alpha)

    def cross(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cross", args, kwargs)
        return _ops.cross(self, *args, **kwargs)

    def dist(self, *args, **kwargs):
        if kwargs:
            _function_keywords("dist", args, kwargs)
        return _ops.dist(self, *args, **kwargs)

    def renorm(self, *args, **kwargs):
        if kwargs:
            _function_keywords("renorm", args, kwargs)
        from minitorch._ops.linalg_more import renorm_method_args  # (the method's positions)

        renorm_method_args("renorm", args, kwargs)
        return _ops.renorm(self, *args, **kwargs)

    def renorm_(self, *args, **kwargs):
        from minitorch._ops.linalg_more import renorm_method_args

        renorm_method_args("renorm_", args, kwargs)
        return _ops.renorm_(self, *args, **kwargs)

    def cov(self, *args, **kwargs):
        if kwargs:
            _function_keywords("cov", args, kwargs)
        return _ops.cov(self, *args, **kwargs)

    def corrcoef(self, *args, **kwargs):
        if args or kwargs:
            raise _no_parameters("corrcoef", args, kwargs)
        return _ops.corrcoef(self)

    def lu(self, pivot=True, get_infos=False):  # (torch's is a Python method: no out=)
        return _ops.lu(self, pivot, get_infos)

    def lu_solve(self, *args, **kwargs):
        if kwargs:
            _function_keywords("lu_solve", args, kwargs)
        return _ops.lu_solve(self, *args, **kwargs)

    # (torch's removed eig, symeig, solve, lstsq are Python methods of these signatures, whose
    # own TypeErrors come before the RuntimeError: x.eig(out=o))

    def eig(self, eigenvectors=False):
        return _ops.eig(self, eigenvectors)

    def symeig(self, eigenvectors=False):
        return _ops.symeig(self, eigenvectors)

    def solve(self, other):
        return _ops.solve(self, other)

    def lstsq(self, other):
        return _ops.lstsq(self, other)

    def geqrf(self, *args, **kwargs):
        if args or kwargs:
            raise _no_parameters("geqrf", args, kwargs)
        return _ops.geqrf(self)

    def orgqr(self, *args, **kwargs):
        if kwargs:
            _function_keywords("orgqr", args, kwargs)
        return _ops.orgqr(self, *args, **kwargs)

    def ormqr(self, *args, **kwargs):
        if kwargs:
            _function_keywords("ormqr", args, kwargs)
        return _ops.ormqr(self, *args, **kwargs)

    def select_scatter(self, *args, **kwargs):
        if kwargs:
            _function_keywords("select_scatter", args, kwargs)
        return _ops.select_scatter(self, *args, **kwargs)

    def slice_scatter(self, *args, **kwargs):
        if kwargs:
            _function_keywords("slice_scatter", args, kwargs)
        return _ops.slice_scatter(self, *args, **kwargs)

    def diagonal_scatter(self, *args, **kwargs):
        if kwargs:
            _function_keywords("diagonal_scatter", args, kwargs)
        return _ops.diagonal_scatter(self, *args, **kwargs)

    def as_strided_scatter(self, *args, **kwargs):
        if kwargs:
            _function_keywords("as_strided_scatter", args, kwargs)
        return _ops.as_strided_scatter(self, *args, **kwargs)

    def index_reduce(
        self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, reduce=REQUIRED, *extra, **kwargs
    ):
        if extra or (
            reduce is REQUIRED or source is REQUIRED or index is REQUIRED or dim is REQUIRED
        ):
            args = dict(dim=dim, index=index, source=source, reduce=reduce)
            raise arity_error("index_reduce", extra, 4, **args)
        if kwargs and ("out" in kwargs or "input" in kwargs):
            args = (dim, index, source, reduce)
            raise _ops._parser_errors.method_keyword_error("index_reduce", args, kwargs)
        return _ops.index_reduce(self, dim, index, source, reduce, **kwargs)

    def index_reduce_(
        self, dim=REQUIRED, index=REQUIRED, source=REQUIRED, reduce=REQUIRED, *extra, **kwargs
    ):
        if extra or (
            reduce is REQUIRED or source is REQUIRED or index is REQUIRED or dim is REQUIRED
        ):
            args = dict(dim=dim, index=index, source=source, reduce=reduce)
            raise arity_error("index_reduce_", extra, 4, **args)
        return _ops.index_reduce_(self, dim, index, source, reduce, **kwargs)

    def narrow_copy(self, *args, **kwargs):
        if kwargs:
            _function_keywords("narrow_copy", args, kwargs)
        return _ops.narrow_copy(self, *args, **kwargs)

    def as_strided_(self, *args, **kwargs):
        return _ops.as_strided_(self, *args, **kwargs)

    # --- end of linear algebra, scatter and copy-variant methods ---

    # --- nn methods ---

    def hardshrink(self, lambd=0.5):
        from minitorch.nn import functional as F  # nn is imported lazily: NOTE [ Lazy submodules ]

        if lambd.__class__ is not float:  # the method's position in the message, not F's
            from minitorch._ops.activation import _number

            lambd = _number(lambd, "hardshrink", "lambd", 1)
        return F.hardshrink(self, lambd)

    def prelu(self, weight):
        from minitorch.nn import functional as F

        return F.prelu(self, weight)

    # --- resize (minitorch/_misc_api.py) ---

    def resize_(self, *sizes, memory_format=None, **kwargs):
        from minitorch._misc_api import resize_

        if kwargs or not sizes:  # x.resize_(size=(3, 2)): torch's keyword; x.resize_() refused
            def fn(t, size):
                return resize_(t, size, memory_format=memory_format)

            return _keyword_sized(fn, self, sizes, kwargs, "resize_", "size")
        try:
            return resize_(self, *sizes, memory_format=memory_format)
        except TypeError:  # (NOTE [ Size argument forms ]; one argument only, see there)
            if len(sizes) == 1:
                _size_form_error(sizes, "resize_", "size")
            raise

    def resize_as_(self, the_template, memory_format=None):
        from minitorch._misc_api import _resize_as

        return _resize_as(self, the_template, memory_format, 1)

    def resize(self, *sizes):
        from minitorch._misc_api import resize

        return resize(self, *sizes)

    def resize_as(self, tensor):
        from minitorch._misc_api import resize_as

        return resize_as(self, tensor)

    # --- storage (minitorch/storage.py) ---

    def untyped_storage(self):
        from minitorch.storage import untyped_storage

        return untyped_storage(self)

    def storage(self):
        from minitorch.storage import storage

        return storage(self)

    def storage_type(self):
        from minitorch.storage import storage_type

        return storage_type(self)

    def set_(self, source=None, storage_offset=None, size=None, stride=None):
        from minitorch.storage import set_

        return set_(self, source, storage_offset, size, stride)

    def is_set_to(self, tensor=REQUIRED):
        from minitorch.storage import is_set_to

        return is_set_to(self, tensor)

    # --- GPU: pinned memory and streams ---

    def pin_memory(self, device=None):
        return _ops.pin_memory(self, device)

    def is_pinned(self, device=None):
        return _ops.is_pinned(self, device)

    def record_stream(self, stream):
        return _ops.record_stream(self, stream)

    # --- autograd hooks ---

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after backward() has accumulated this leaf's .grad; returns a handle.

        Mirrors torch.Tensor.register_post_accumulate_grad_hook (leaves only; autograd.grad,
        which accumulates nothing, does not run it).
        """
        from minitorch.autograd.function import _Handle

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        hooks = self.__dict__.get("_post_acc_hooks")
        if hooks is None:
            # an OrderedDict, as torch's: Tensor._post_accumulate_grad_hooks hands it out
            hooks = self.__dict__["_post_acc_hooks"] = OrderedDict()
        return _Handle(hooks, hook)


# NOTE [ Names of Tensor methods ]
# torch's Tensor methods are C methods of TensorBase read by its argument parser, which names a
# method by its bare name ("topk() got an unexpected keyword argument 'out'", "cumsum() got
# multiple values for argument 'dim'"); only the methods torch writes in Python (torch/_tensor.py:
# split, norm, lu, unique, ...) read "Tensor.split() ...". Python's own TypeErrors for a call's
# arguments name the function by its __qualname__, so each method carries the name torch's
# has, and those errors read as torch's at no cost to any call. Private and dunder methods keep
# Tensor.<name>. pickle finds a method by its module and qualname: minitorch._tensor's
# __getattr__ hands out the bare-named ones (pickle.dumps(minitorch.Tensor.transpose)).
_PYTHON_LEVEL_METHODS = frozenset(
    """backward dim_order eig is_shared istft lstsq lu module_load norm register_hook
    register_post_accumulate_grad_hook reinforce resize resize_as share_memory_ solve split stft
    storage storage_type symeig to_sparse_coo unflatten unique unique_consecutive""".split()
)


def _name_as_tensor_methods(cls) -> None:
    """Names each method of cls (TensorMethods, Tensor) as torch's Tensor methods are named
    (NOTE [ Names of Tensor methods ]), in Tensor's module, not the mixin's."""
    prefix = cls.__qualname__ + "."
    for fn in vars(cls).values():
        if fn.__class__ is _FunctionType and fn.__qualname__.startswith(prefix):
            name = fn.__qualname__[len(prefix) :]
            python_level = name[0] == "_" or name in _PYTHON_LEVEL_METHODS
            fn.__qualname__ = "Tensor." + name if python_level else name
            fn.__module__ = "minitorch._tensor"


_FunctionType = type(_name_as_tensor_methods)
_name_as_tensor_methods(TensorMethods)


def _subclass_other(other) -> bool:
    """Whether `other` (a tensor argument besides self of a plain tensor's method) is of a Tensor
    subclass that dispatches: then, as torch, the call goes to its __torch_function__."""
    from minitorch._subclass import dispatch_off

    return isinstance(other, TensorMethods) and not dispatch_off()


def _dispatch_other(func, self, other):
    from minitorch._subclass import dispatch, overloaded_types

    return dispatch(func, overloaded_types((self, other)), (self, other), {})
