"""torch's argument-parser TypeErrors for a call given too many or too few positional
arguments, in one wording for every op that checks its own arguments."""


def too_many_positional(op: str, given: int, most: int, least: int | None = None) -> TypeError:
    """torch's TypeError for `op` given `given` positional arguments where it takes `most`, or
    from `least` to `most` when its overload's required count differs (torch prints the two
    counts as they are, even "from 3 to 2" where a keyword-only argument is required)."""
    if least is None or least == most:
        s = "" if most == 1 else "s"
        verb = "was" if given == 1 else "were"
        return TypeError(f"{op}() takes {most} positional argument{s} but {given} {verb} given")
    return TypeError(
        f"{op}() takes from {least} to {most} positional arguments but {given} were given"
    )


def unexpected_keyword(op: str, name: str) -> TypeError:
    """torch's (and Python's) TypeError for `op` called with a keyword `name` it has not."""
    return TypeError(f"{op}() got an unexpected keyword argument '{name}'")


def no_arguments(method: str, given: int) -> TypeError:
    """torch's TypeError for a Tensor method of no parameters (a C method of TensorBase: item,
    tolist) given `given` positional arguments."""
    return TypeError(f"TensorBase.{method}() takes no arguments ({given} given)")


def missing_positional(op: str, *names: str) -> TypeError:
    """torch's TypeError for `op` called without the required `names` (the first one missing
    and every required one after it). torch writes "arguments" for one and "argument" for more."""
    s = "s" if len(names) == 1 else ""
    shown = ", ".join(f'"{name}"' for name in names)
    return TypeError(f"{op}() missing {len(names)} required positional argument{s}: {shown}")


class _Required:
    """The default of a parameter torch requires: an op checks it with `is` and raises torch's
    parser wording (missing_required) where Python's own would name the function differently."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<required>"


REQUIRED = _Required()


class _DefaultZero(int):
    """The default of a keyword torch reads differently when given, even as 0 (round's
    decimals: torch.round(x) records RoundBackward0 and passes integer tensors through, where
    torch.round(x, decimals=0) records RoundBackward1 and refuses them): the number 0, shown as
    0 in signatures, which an op tells from an explicit 0 with `is DEFAULT_ZERO`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "0"

    __str__ = __repr__


DEFAULT_ZERO = _DefaultZero()


class _NotGiven:
    """The default of a keyword whose explicit None torch reads differently from its absence
    (where's out=: an explicit out=None picks the out= overload); the error path's
    keyword_given reads it as not passed."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not given>"


NOT_GIVEN = _NotGiven()


def missing_required(op: str, **params) -> TypeError:
    """missing_positional for `op` whose required parameters are `params` (in order, each
    REQUIRED where the call left it out): the first one left out and every one after it."""
    from minitorch._ops._parser_errors import given_type_error  # (an error path: ops load later)

    error = given_type_error(op, params)  # NOTE [ Types before a missing argument ]
    if error is not None:
        return error
    names = list(params)
    first = next(i for i, v in enumerate(params.values()) if v is REQUIRED)
    return missing_positional(op, *names[first:])


def arity_error(op: str, extra: tuple, most: int, **required) -> TypeError:
    """torch's TypeError for `op` (`most` positional parameters, `required` the required ones
    in order, REQUIRED where left out) given the `extra` positional arguments past them, or
    else left a required one out. For ops whose required parameters default to REQUIRED, where
    Python's own words would count them as optional ("takes from 0 to 2")."""
    if extra:
        return too_many_positional(op, most + len(extra), most, len(required))
    return missing_required(op, **required)
