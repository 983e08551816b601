"""Helpers shared by the op families: dtype promotion of operands, dims, scalar tensors."""

from __future__ import annotations

import contextlib
import numbers

from minitorch import _dtype
from minitorch._arg_errors import REQUIRED
from minitorch._backend import cpu as _CPU
from minitorch._backend import host_blas
from minitorch._backend import numpy_backend as _nb
from minitorch._call_site import passed_by_keyword
from minitorch._tensor import Tensor, _make, _tp_name
from minitorch._tensor_methods import _index as index
from minitorch._tensor_methods import _int_list
from minitorch._tensor_methods import _is_index as is_index

__all__ = ["promote", "promote_float", "scalar_like", "number", "wrap_dim", "dims_arg",
           "as_tensor_arg", "cast", "is_floating", "opmath_array", "opmath_dtype", "quiet_extreme",
           "zeros_of", "wrap_int", "not_tensor", "same_device", "index", "is_index", "int_list",
           "ints", "type_name", "no_overload", "wrapped_big_ints", "wrong_type", "check_tensors",
           "check_bool", "check_float", "check_int", "arg_types", "broadcast_pair"]


class LazyImport:
    """A module imported at its first attribute access: error-path helpers (minitorch._ops.
    _parser_errors) need not load with `import minitorch`."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


def type_name(x) -> str:
    """x's type as torch's errors name it: CPython's tp_name, which is the bare name of a class
    defined in Python ("NT" for __main__.NT) and the dotted one of a C type
    ("collections.OrderedDict", "numpy.ndarray"); "Tensor" for a tensor, its class's name for
    a subclass's (a Parameter: "Parameter")."""
    if isinstance(x, Tensor):
        return "Tensor" if x.__class__ is Tensor else x.__class__.__name__
    return _tp_name(x)


def ints(seq, op: str, name: str, pos: int | None = None) -> tuple:
    """An int[] argument (sizes, strides, repeats) as a tuple of Python ints: a tuple of ints as
    it is, anything else through int_list (torch's TypeError for a float: x.repeat(2., 1), where
    int() would truncate it; NOTE [ Int-like arguments ])."""
    if seq.__class__ is tuple and all(s.__class__ is int for s in seq):
        return seq
    return int_list(seq, op, name, pos)


def broadcast_pair(sa, sb) -> tuple:
    """The broadcast of shapes sa and sb, with torch's error for sizes that do not match (its
    last mismatch, scanning from the right, with sa as tensor a)."""
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + tuple(sa)
    sb = (1,) * (n - len(sb)) + tuple(sb)
    out = []
    for i in range(n - 1, -1, -1):
        x, y = sa[i], sb[i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {i}"
            )
        out.append(y if x == 1 else x)
    return tuple(out[::-1])


def wrap_dim(dim, ndim: int, op: str = "dim", name: str = "dim", pos: int | None = None) -> int:
    """dim in [0, ndim) (a negative dim counts from the end), with torch's IndexError; a dim that
    is not a plain int is read as one first (NOTE [ Int-like arguments ]: np.int64, 0-d integer
    tensors; bools and floats raise TypeError naming `op`'s argument `name` at position `pos`
    of the function, as check_int).

    _tensor._wrap_dim plus that reading, written out rather than wrapping it: every op with a dim
    calls this, and a plain int pays one class check, not a second call."""
    if dim.__class__ is not int:
        dim = index(dim, None, name) if op == "dim" else check_int(op, dim, name, pos)
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


_from_numpy = _dtype.from_numpy
wrap_int = _dtype.wrap_int  # (beside checked_int: one home for c10's int conversions)


def cast(t: Tensor, dt) -> Tensor:
    """t converted to dtype `dt` (differentiable; no copy when it already has it)."""
    if t._data.dtype == dt.np:
        return t
    from minitorch._ops.convert import to_dtype

    return to_dtype(t, dt)


def scalar_like(value, ref: Tensor) -> Tensor:
    """A Python number as a 0-d tensor on ref's device (int64, bool or the default float)."""
    if isinstance(value, Tensor):
        return value
    value = number(value)
    if isinstance(value, bool):
        dt = _dtype.bool
    elif isinstance(value, int):
        dt = _dtype.int64
    elif isinstance(value, float):
        # The dtype the result will have: 0.1 / float64 tensor must not round 0.1 to float32.
        dt = _dtype.scalar_dtype(_from_numpy(ref._data.dtype), value)
    else:
        raise _OperandTypeError(f"expected a Tensor or a Python number, got {type(value).__name__}")
    xp = ref._device.backend.xp
    data = xp.asarray(_dtype.via_float32(value, dt.np), dtype=dt.np)
    return _make(data, ref._device, False, None)


def number(x):
    """x, or the Python number a NumPy scalar holds (torch treats np.float64(2.0) as 2.0)."""
    cls = x.__class__
    if cls is float or cls is int or cls is bool or x is None or isinstance(x, Tensor):
        return x
    if hasattr(x, "dtype") and hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        return _numpy_scalar(x)
    return x


def is_number(x) -> bool:
    """Whether torch's argument parser takes x for a Number: a Python int, float, bool or complex
    or a NumPy scalar (a 0-d array, a Decimal or a Fraction is none)."""
    if isinstance(x, (int, float, complex)):
        return True
    return hasattr(x, "dtype") and getattr(x, "ndim", None) == 0 and hasattr(x, "item") and (
        type(x).__name__ != "ndarray" and not isinstance(x, Tensor)
    )


def is_scalar_arg(x) -> bool:
    """Whether torch's parser reads x as a Scalar argument (alpha, beta, ...): a Number
    (is_number) or a 0-d tensor that does not require grad."""
    cls = x.__class__
    if cls is int or cls is float or cls is bool:
        return True
    if isinstance(x, Tensor):
        return x._data.ndim == 0 and not x._requires_grad
    return is_number(x)


def _numpy_scalar(x):
    """The Python number torch reads from a NumPy scalar: its value, except that a NumPy bool is
    read as a float (torch's argument parser does not take np.bool_ for a bool: t * np.bool_(True)
    is float32, as torch's)."""
    return float(x) if x.dtype.kind == "b" else x.item()


def not_tensor(op: str, x, name: str = "input", pos: int = 1) -> TypeError:
    """torch's TypeError for a non-tensor argument (torch.exp(1.0), torch.mean(list_of_losses))."""
    return wrong_type(op, x, name, pos, "Tensor")


def not_tensor_element(i: int, x, arg: int = 0) -> TypeError:
    """torch's TypeError for element i of a Tensor[] argument (its parser's argument `arg`,
    counted from 0) that is not a tensor: "expected Tensor as element 1 in argument 0, but got
    int"."""
    return TypeError(f"expected Tensor as element {i} in argument {arg}, but got {type_name(x)}")


def check_tensor_list(seq, arg: int = 0) -> None:
    """not_tensor_element for the first element of seq that is not a tensor; None if all are."""
    for i, x in enumerate(seq):
        if not isinstance(x, Tensor):
            raise not_tensor_element(i, x, arg)


def wrong_type(op: str, x, name: str, pos: int | None, expected: str) -> TypeError:
    """torch's TypeError for an argument of the wrong type, as its argument parser words it:
    "svd(): argument 'some' (position 2) must be bool, not NoneType" (no position for a
    keyword-only argument). `expected` is torch's spelling: "Tensor", "bool", "int", "float",
    "str", "tuple of ints". x REQUIRED: the call left the argument out (an op whose only
    required parameter defaults to REQUIRED, as torch.exp(input=REQUIRED) does)."""
    if x is REQUIRED:  # NOTE [ A method given no operand ] (in _parser_errors.py)
        from minitorch._ops._parser_errors import left_out_error

        return left_out_error(op, name)
    if pos is not None and passed_by_keyword(name, op):
        pos = None  # NOTE [ Keyword arguments in argument errors ]
    if pos is not None and pos > 1 and _called_as_method(op):
        pos -= 1
    at = "" if pos is None else f" (position {pos})"
    return TypeError(f"{op}(): argument '{name}'{at} must be {expected}, not {type_name(x)}")


# NOTE [ Argument positions of methods ]
# torch's parser counts a Tensor method's arguments without self: x.matmul("a") is "argument
# 'other' (position 1)", torch.matmul(x, "a") "(position 2)". The functions word the message
# (they do not know how they were called); on this error path only, the caller's frames tell:
# a Tensor method of the op's name, or of its in-place form (minitorch/_tensor_methods.py), a
# few frames up shifts the position by one. The common path pays nothing.
_METHODS_FILE = "_tensor_methods.py"
# the Tensor methods that alias an op under another name (with in-place forms: x.less_("a")),
# whose errors torch words under theirs
_METHOD_ALIASES = {"less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge"}


def _called_as_method(op: str) -> bool:
    import sys

    return _method_name(op, sys._getframe(2)) is not None


def _method_name(op: str, frame) -> str | None:
    """The name of the Tensor method of `op` (op, or its in-place form op + "_", which torch's
    errors name: x.unsqueeze_("a")) among `frame` and the few above it, or None."""
    for _ in range(12):  # (an op may sit under a few wrappers: out=, named tensors, x.op_())
        if frame is None:
            return None
        code = frame.f_code
        name = code.co_name
        if (
            name in (op, op + "_") or _METHOD_ALIASES.get(name.removesuffix("_")) == op
        ) and code.co_filename.endswith(_METHODS_FILE):
            return name
        frame = frame.f_back
    return None


def check_tensors(op: str, *named) -> None:
    """Raise torch's TypeError for the first of `named` ((name, value) pairs, positions 1, 2, ...
    in order; a None name skips a position) that is not a tensor; return when all are.

    For an op's `except AttributeError:` clause (zero cost on the common path; the caller
    re-raises an AttributeError that was not caused by a non-tensor argument) or, off the hot
    path, for a check up front."""
    for pos, (name, x) in enumerate(named, 1):
        if name is not None and not isinstance(x, Tensor):
            raise not_tensor(op, x, name, pos)


def check_bool(op: str, x, name: str, pos: int | None = None) -> bool:
    """x, when it is a Python bool; torch's TypeError otherwise (its parser takes neither an int,
    a NumPy bool nor a tensor where a bool belongs)."""
    if x.__class__ is not bool:
        raise wrong_type(op, x, name, pos, "bool")
    return x


def check_int(op: str, x, name: str, pos: int | None = None) -> int:
    """x as a Python int (NumPy integers and 0-d integer tensors read as theirs; NOTE [ Int-like
    arguments ]); torch's TypeError for anything else (a bool, a float, a 9-element tensor)."""
    if x.__class__ is int:
        return x
    try:
        return index(x, op, name, pos)
    except TypeError:
        import sys

        method = None if pos is None or pos < 2 else _method_name(op, sys._getframe(1))
        if method is None:
            raise
    return index(x, method, name, pos - 1)  # NOTE [ Argument positions of methods ]: the error


def int_list(seq, op: str, name: str, pos: int | None = None) -> tuple:
    """_tensor_methods._int_list for an op's int[] argument at position `pos` of the function:
    its TypeError counts the position as a method's when the op was called as one (NOTE
    [ Argument positions of methods ]). The slow path: callers try all-ints first."""
    try:
        return _int_list(seq, op, name, pos)
    except TypeError:
        if seq is REQUIRED:  # NOTE [ A method given no operand ] (in _parser_errors.py)
            from minitorch._ops._parser_errors import left_out_error

            raise left_out_error(op, name) from None
        if pos is None or pos < 2 or not _called_as_method(op):
            raise
    return _int_list(seq, op, name, pos - 1)


def check_float(op: str, x, name: str, pos: int | None = None):
    """x, when torch's parser reads it as a float: a Python or NumPy int or float, a bool, or a
    0-d tensor (as the number it holds; NOTE [ Number-like arguments ]); torch's TypeError
    otherwise (None, a str, a complex, an ndarray, a tensor of more than one element)."""
    cls = x.__class__
    if cls is float or cls is int or cls is bool:
        return x
    if isinstance(x, Tensor):
        if x.ndim == 0 and not x.requires_grad:
            return x.item()
    elif isinstance(x, numbers.Real) or (cls.__module__ == "numpy" and cls.__name__[:4] == "bool"):
        return x  # NumPy scalars (numbers.Real takes its ints and floats, not np.bool_)
    raise wrong_type(op, x, name, pos, "float")


def arg_types(*args) -> str:
    """The types of positional arguments as torch's "got (...)" names them: "Tensor, NoneType"."""
    return ", ".join(type_name(a) for a in args)


def no_overload(op: str, got: str, overloads) -> TypeError:
    """torch's TypeError when no overload of `op` takes the arguments: `got` names their types
    as torch's parser does ("Tensor, list"), `overloads` are the signatures it lists."""
    listed = "".join(f" * ({o})\n" for o in overloads)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{listed}"
    )


def zeros_of(t: Tensor) -> Tensor:
    """A zero tensor of t's shape, dtype and device (no graph).

    NOTE [ Zero gradients of piecewise-linear backward ]
    torch's backward kernels of the piecewise-linear ops (relu's threshold_backward, hardtanh,
    leaky_relu, hardsigmoid, max pooling) take the op's input (or output) as an argument whose
    own gradient is zero: a double backward through them reaches that input and gives the
    parameters behind it a zero .grad, where a mask computed by a comparison would cut the graph
    and leave .grad None (a gradient penalty's critic bias: Adam then skips the parameter instead
    of decaying its moments, and `p.grad.norm()` fails). Their backward Functions return
    zeros_of(input) for it."""
    return _make(t._device.backend.xp.zeros(t._data.shape, t._data.dtype), t._device, False, None)


_ZEROS = {}  # dtype -> its zero, a NumPy scalar (zero_of)


def zero_of(dtype):
    """A zero of dtype (a NumPy scalar, made once per dtype): an operand that keeps an array's
    dtype in a ufunc call where an array of zeros would cost a pass of its own."""
    try:
        return _ZEROS[dtype]
    except KeyError:
        zero = _ZEROS[dtype] = dtype.type(0)
        return zero


def _scalar(x, op, a=None):
    cls = x.__class__
    if cls is float or cls is int or cls is bool:
        return x
    if hasattr(x, "dtype") and hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        # A NumPy scalar acts like a Python number, as in torch: np.sqrt(d) is an np.float64,
        # a float subclass NumPy itself would not treat as weak (q @ k.T / np.sqrt(d) would
        # come out float64)
        return _numpy_scalar(x)
    if isinstance(x, (int, float)):  # bool is an int; other subclasses (IntEnum, ...)
        return x
    raise _OperandTypeError(operand_error(op, a, x))


def operand_error(op: str, a, b) -> str:
    """torch's message for operands `a`, `b` of `op` of which one is of no type it takes: an
    overloaded op's list (NOTE [ Overloaded binary ops ]), else the argument's own error
    (position 2 in a function's call, 1 in a method's, none for a keyword)."""
    from minitorch._ops._parser_errors import BINARY_FORMS, binary_overload_error

    if op in BINARY_FORMS:
        return str(binary_overload_error(op, a, b))
    if isinstance(a, Tensor):
        return str(wrong_type(op, b, "other", 2, "Tensor"))
    return str(not_tensor(op, a))


# NOTE [ Operators with foreign operands ]
# torch's binary operators return NotImplemented for an operand of a type they do not take (a
# str, None, a user's class), so Python tries that operand's reflected method (`x + S()` runs
# S.__radd__, `x < S()` S.__gt__) or raises its own "unsupported operand type(s) for +" error,
# while torch.add(x, S()) raises a TypeError naming the argument. Such an operand raises
# _OperandTypeError (a TypeError) here; the operator methods of Tensor turn it into
# NotImplemented. add, sub, mul and div are the operators themselves (NOTE [ Direct operator
# binding ]), so they tell the two calls apart on this error path only: called_by_operator looks
# at the instruction their caller is running (BINARY_OP; 3.10's BINARY_*/INPLACE_* ones). A try
# around their promote() costs nothing when nothing is raised.


class _OperandTypeError(TypeError):
    """An operand of a type no op takes (NOTE [ Operators with foreign operands ])."""


# a traceback names it as torch's error: TypeError
_OperandTypeError.__name__ = _OperandTypeError.__qualname__ = "TypeError"
_OperandTypeError.__module__ = "builtins"


def called_by_operator() -> bool:
    """Whether the function that calls this was called by an operator instruction of its
    caller (x + y), not by a call (torch.add(x, y)). For error paths only."""
    import dis
    import sys

    try:
        frame = sys._getframe(2)
    except ValueError:  # called from outside any Python frame
        return False
    name = dis.opname[frame.f_code.co_code[frame.f_lasti]]
    return name == "BINARY_OP" or (
        name.startswith(("BINARY_", "INPLACE_")) and name != "BINARY_SUBSCR"
    )


# NOTE [ Scalar operands ]
# `x * 2`, `grad * 0.5`, `1 - p`: a Python number that leaves the tensor's dtype as it is (the
# common case) is found with one dict lookup keyed by (NumPy dtype, number class); the first such
# pair goes through the full promotion and fills the table.
_SCALAR_KEEPS: dict = {}


def is_floating(np_dtype) -> bool:
    """True when a raw array's NumPy dtype holds a floating minitorch dtype: NumPy's kind 'f', or
    ml_dtypes' bfloat16, whose kind is 'V' (so `dtype.kind == "f"` misses it). dtype.name, a
    Python property costing microseconds, is read for a 'V' dtype only."""
    kind = np_dtype.kind
    return kind == "f" or (kind == "V" and np_dtype.name == "bfloat16")


def row_major(xp, a):
    """a, laid out row-major when it has two or more dims: torch writes the new results of
    reductions over a dim, cat/stack, cumulative ops, roll and masked_fill row-major whatever
    the input's strides (so `.view()` works on them), where NumPy keeps the input's layout."""
    return xp.ascontiguousarray(a) if a.ndim > 1 else a


def opmath_array(x):
    """The array x widened to float32 when it is half precision (else x itself): a composite
    kernel computes there and rounds once, as torch's (NOTE [ Half-precision arithmetic ])."""
    return x.astype("float32") if opmath_dtype(x.dtype) else x


def log1p_array(xp, x, out=None):
    """xp.log1p(x, out=out); on the CPU a float32 one from NumPy's vector log (NOTE [ Float32
    log1p and expm1 ] in minitorch/_backend/numpy_backend.py)."""
    return (_nb.log1p if xp is _CPU.backend.xp else xp.log1p)(x, out=out)


def expm1_array(xp, x, out=None):
    """xp.expm1(x, out=out); on the CPU a float32 one from NumPy's vector exp and log (NOTE
    [ Float32 log1p and expm1 ])."""
    return (_nb.expm1 if xp is _CPU.backend.xp else xp.expm1)(x, out=out)


def maximum_array(xp, lo, x, out=None):
    """xp.maximum(lo, x, out=out) for a number lo; on the CPU numpy_backend.maximum_number, the
    same bits by clip's vector loop for a big float32 x (NOTE [ Maximum with a number ])."""
    return (_nb.maximum_number if xp is _CPU.backend.xp else xp.maximum)(lo, x, out=out)


def minimum_array(xp, hi, x, out=None):
    """xp.minimum(hi, x, out=out) for a number hi; on the CPU numpy_backend.minimum_number (as
    maximum_array)."""
    return (_nb.minimum_number if xp is _CPU.backend.xp else xp.minimum)(hi, x, out=out)


def opmath_dtype(np_dtype):
    """"float32" for a half-precision float dtype (float16, bfloat16), else None: torch computes
    half ops in float32 and rounds once (its "opmath" type), and accumulates their sums there."""
    return "float32" if np_dtype.itemsize < 4 and is_floating(np_dtype) else None


def quiet_extreme(xp, x, reduce, **kwargs):
    """reduce(**kwargs), a bound max or min of the array x, without ml_dtypes' warning where a
    bfloat16 NaN meets a comparison (NumPy's own floats do not warn): NumPy's Python-level
    max/min wrappers raise it from their own module, outside the warning filter for kernels in
    minitorch/__init__.py."""
    if x.dtype.kind != "V" or x.dtype.name != "bfloat16":  # (.name costs 2 us: kind first)
        return reduce(**kwargs)
    with quiet(xp, invalid="ignore"):
        return reduce(**kwargs)


def promote(a, b, op: str, wrap: bool = True):
    """(a, b) with torch's type promotion applied: tensors cast to the result dtype, Python
    scalars kept as scalars (the kernels treat them as weak, like torch). Returns (a, b, dtype)."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            if a._device is not b._device:  # a 0-d CPU tensor acts as a number (torch)
                a, b = _cpu_scalar_to(a, b)
            da = a._data.dtype
            db = b._data.dtype
            if da is db or da == db:
                return a, b, _from_numpy(da)
            dt = _dtype.binary_dtype(_from_numpy(da), a._data.ndim, _from_numpy(db), b._data.ndim)
            # A bool operand needs no cast: NumPy promotes bool with X to X, as torch does.
            a = a if da.kind == "b" else cast(a, dt)
            return a, (b if db.kind == "b" else cast(b, dt)), dt
        key = (a._data.dtype, b.__class__)
        if key[1] is int and not -(1 << 63) <= b < 1 << 63:  # NOTE [ Ints beyond a Scalar ]
            _check_uint64_scalar(a, b)
        dt = _SCALAR_KEEPS.get(key)
        if dt is not None:  # NOTE [ Scalar operands ]
            return a, b, dt
        if b.__class__ is a._device.backend.array_cls:
            return _promote_array(a, b)
        b = _scalar(b, op, a)
        ta = _from_numpy(a._data.dtype)
        dt = _dtype.scalar_dtype(ta, b)
        if dt is ta:
            narrow = key[0].kind in "iu" and key[0].itemsize < 8
            if narrow and b.__class__ is int:  # not cached: a number may need wrapping
                return a, (wrap_int(b, key[0]) if wrap else b), dt
            if key[1] in (int, float, bool):
                _SCALAR_KEEPS[key] = dt
            return a, b, dt
        return cast(a, dt), b, dt
    if isinstance(b, Tensor):
        if a.__class__ is b._device.backend.array_cls:
            b2, a2, dt = _promote_array(b, a)
        else:
            try:
                b2, a2, dt = promote(b, a, op, wrap)
            except _OperandTypeError:  # the first operand is what torch names: input
                raise _OperandTypeError(operand_error(op, a, b)) from None
        return a2, b2, dt
    if op in _NUMBER_PAIR_OPS:
        # torch.div(8, 3, rounding_mode="trunc") on .size() ints (HF's Longformer, wav2vec2):
        # torch's overloads take a Number as `input` here and give a 0-d tensor; NumPy scalars
        # (np.prod(shape)) are numbers there too, a 0-d array is not
        if is_number(a) and is_number(b):  # (np.bool_ too: torch reads it as a float)
            a, b = number(a), number(b)
            if a.__class__ in _NUMBERS and b.__class__ in _NUMBERS:
                return promote(_number_tensor(a), b, op, wrap)
    # two numbers: an overloaded op lists its overloads (xlogy(2, 3)), others name input
    raise TypeError(operand_error(op, a, b))


_NUMBER_PAIR_OPS = frozenset(("add", "sub", "mul", "div", "floor_divide"))


def _check_uint64_scalar(a: Tensor, b: int) -> None:
    """An int operand beyond int64: CPython's OverflowError beyond uint64 too, else torch's
    refusal to promote a bool tensor with the uint64 number it reads (an integer tensor wraps it,
    NOTE [ Unsigned 64-bit numbers ]; a floating one converts it)."""
    if not -(1 << 63) <= b < 1 << 64:
        raise _dtype.scalar_int_overflow(b)
    if a._data.dtype.kind == "b":
        raise _dtype.promotion_error(_dtype.bool, _dtype.uint64)


def uint64_bounds(a: Tensor, lo, hi) -> None:
    """clamp's number bounds where one is an int in [2**63, 2**64), which torch reads as a
    uint64 number: for a tensor that is not floating, torch promotes the bounds among themselves
    first (0 and 2**64 - 1: Long and UInt64, refused; a float bound takes a uint64 one), then
    with a bool tensor (refused; an integer tensor keeps its dtype and the bound's conversion
    overflows)."""
    for b in (lo, hi):  # (the parser's OverflowError for either bound comes first)
        if b.__class__ is int and not -(1 << 63) <= b < 1 << 64:
            raise _dtype.scalar_int_overflow(b)
    if a._data.dtype.kind in "fc":  # a floating tensor's result type is its own: no promotion
        return
    kinds = []
    for b in (lo, hi):
        if b is None:
            continue
        if b.__class__ is bool:
            kinds.append(_dtype.bool)
        elif isinstance(b, int):
            kinds.append(_dtype.uint64 if b >= 1 << 63 else _dtype.int64)
        else:
            kinds.append(_dtype.float64)
    have = kinds[0]
    for k in kinds[1:]:
        if (have is _dtype.uint64) is not (k is _dtype.uint64):
            if have.is_floating_point or k.is_floating_point:
                return  # the bounds promote to a float: no uint64 is left
            raise _dtype.promotion_error(have, k)
    if a._data.dtype.kind == "b":
        raise _dtype.promotion_error(_dtype.bool, _dtype.uint64)


_NUMBERS = (int, float, bool)


def _number_tensor(x) -> Tensor:
    """A Python number as torch wraps it into a 0-d tensor: bool, int64 or the default float."""
    from minitorch._factories import tensor

    return tensor(x)


# NOTE [ Unsigned 64-bit numbers ]
# torch converts a Python int operand of an int64 tensor as a C int64 or, failing that, as a C
# uint64 read back as int64: so 0x9E3779B97F4A7C15 and 0xFFFFFFFFFFFFFFFF (hash constants,
# masks) wrap to negative numbers, and x * 0x9E3779B97F4A7C15 gives the wrapped product; numbers
# outside both ranges raise OverflowError. NumPy raises OverflowError for any number outside
# int64, so the ops retry with wrapped_big_ints only when their kernel raised it: the common path
# of an operator with a number does no range check. NumPy's comparisons do not raise (they compare
# the exact values), so eq/lt/... check the range of an int operand of an int64 tensor themselves.
_INT64 = _dtype.int64.np


def wrapped_big_ints(a, b):
    """(a, b) with a Python int in [2**63, 2**64) wrapped into int64 as torch converts it, for an
    op whose kernel raised on it (NOTE [ Unsigned 64-bit numbers ]); torch's OverflowError for an
    int outside both ranges. Called in the caller's `except` block: where there is nothing to
    wrap, the bare `raise` re-raises the kernel's own exception."""
    wrapped = None
    for v in (a, b):
        if v.__class__ is int:
            if v >= 1 << 64:
                raise OverflowError("int too big to convert")
            if v < -(1 << 63):
                raise OverflowError("can't convert negative int to unsigned")
            if v >= 1 << 63:
                wrapped = True
    if wrapped is None:
        raise  # noqa: PLE0704 (the exception our caller is handling)
    return tuple(wrap_int(v, _INT64) if v.__class__ is int else v for v in (a, b))


def weak_scalar(value, ref: Tensor, op: str) -> Tensor:
    """A Python number on the left of a tensor (1 - t, 2 ** t, 10 // t, 7 % t) as a 0-d tensor of
    the dtype the pair promotes to: the number stays weak, as torch's wrapped numbers do (1 - a
    0-d uint8 pixel is uint8 and wraps, 7 % a float16 tensor is float16), where scalar_like's
    int64 or default-float 0-d tensor would take part in promotion as a tensor."""
    if isinstance(value, Tensor):
        return value
    try:
        _, value, dt = promote(ref, value, op)
    except _OperandTypeError:  # named in the call's order: the number is the input
        raise _OperandTypeError(operand_error(op, value, ref)) from None
    xp = ref._device.backend.xp
    try:
        data = xp.asarray(_dtype.via_float32(value, dt.np), dtype=dt.np)
    except RuntimeError:  # 0x9E3779B97F4A7C15 - x: NOTE [ Unsigned 64-bit numbers ]
        if dt.np != _INT64:
            raise
        data = xp.asarray(wrapped_big_ints(value, None)[0], dtype=dt.np)
    return _make(data, ref._device, False, None)


def _cpu_scalar_to(a: Tensor, b: Tensor):
    """(a, b) with a 0-d CPU tensor moved to the other's device (torch's cpu-scalar rule);
    other mixes are left for the op's own device check."""
    if b._data.ndim == 0 and b._device.type == "cpu":
        return a, b.to(a._device)
    if a._data.ndim == 0 and a._device.type == "cpu":
        return a.to(b._device), b
    return a, b


def same_device(a, b, op: str):
    """(a, b) on one device: a 0-d CPU tensor is moved to the other's (torch's cpu-scalar rule),
    any other mix of devices raises torch's RuntimeError naming both."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._device is not b._device:
        a, b = _cpu_scalar_to(a, b)
        if a._device is not b._device:
            if "meta" in (a._device.type, b._device.type):
                from minitorch._backend.meta import device_mismatch

                raise device_mismatch(a._device, b._device)
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, "
                f"{a._device} and {b._device}! (when checking arguments for {op})"
            )
    return a, b


def _promote_array(a: Tensor, b):
    """`tensor op array` (an array of the tensor's backend): torch hands that to the array's own
    reflected operator, so the result has NumPy's promotion (float32 tensor + float64 array is
    float64, a 0-d array included); the array becomes a tensor of that dtype."""
    xp = a._device.backend.xp
    dt = _from_numpy(xp.result_type(a._data.dtype, b.dtype))
    return cast(a, dt), _make(xp.asarray(b, dtype=dt.np), a._device, False, None), dt


def promote_float(a, b, op: str):
    """Like promote, then integral/bool results go to the default float dtype (true division:
    a number is not wrapped into an integer tensor's range first, as it is not cast to it)."""
    if a.__class__ in _NUMBERS and b.__class__ in _NUMBERS and op in _NUMBER_PAIR_OPS:
        a = _number_tensor(a)  # torch.div(8, 3): a 0-d tensor of the default float
    a1, b1, dt = promote(a, b, op, wrap=False)
    if dt.is_floating_point:
        return a1, b1, dt
    dt = _dtype.default_float()
    # the operands as given go to the float dtype, not through the integer result dtype: that
    # would wrap a 0-d int64 tensor's 32768 into an int16 tensor's -32768 (pcm / tensor(32768))
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a._device is not b._device:
        a, b = _cpu_scalar_to(a, b)
    a = cast(a, dt) if isinstance(a, Tensor) else (cast(a1, dt) if isinstance(a1, Tensor) else a1)
    b = cast(b, dt) if isinstance(b, Tensor) else b1
    return a, b, dt


def dims_arg(dim, ndim: int, op: str):
    """A reduction's dim argument (None, int, or sequence) as a sorted tuple of axes, or None."""
    if dim is None:
        return None
    if isinstance(dim, int) or is_index(dim):
        return (wrap_dim(dim, ndim, op),)
    dims = tuple(wrap_dim(d, ndim, op) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}: dim {dims} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def as_tensor_arg(x, ref: Tensor) -> Tensor:
    return x if isinstance(x, Tensor) else scalar_like(x, ref)


def quiet(xp, **states):
    """NumPy's errstate silencing its floating-point warnings (`states`, errstate's keywords;
    by default invalid, overflow and division by zero) for a kernel whose infinities and NaNs
    are the answer. CuPy warns of none and has no errstate: there, a context that does nothing
    (every kernel goes through here rather than xp.errstate)."""
    errstate = getattr(xp, "errstate", None)
    if errstate is None:
        return contextlib.nullcontext()
    if not states:
        return errstate(invalid="ignore", over="ignore", divide="ignore")
    return errstate(**states)


# NOTE [ Fewer kernel launches on a device ]
# Each array operation on a GPU is a kernel launch, which costs CuPy 10-40 us of host time
# whatever the array's size, where a NumPy pass over a small array costs about a microsecond:
# the CNN training step of bench/gpu_check.py spent ~45 us of host time per launch on an H200
# (250 launches, 11 ms per step against torch's 2 ms with 41). So where NumPy is fastest with
# several cheap passes (a max pool's per-tap loop), a device takes the route with the fewest
# operations; `on_host` tells the two apart (the strict test device counts as a device, so the
# suite runs the device routes on CPU-only machines).
_HOST_XP = []


def on_host(xp) -> bool:
    """Whether xp is the CPU backend's array module (NumPy) rather than a device's
    (NOTE [ Fewer kernel launches on a device ])."""
    if not _HOST_XP:
        from minitorch._backend import backend_of, cpu

        _HOST_XP.append(backend_of(cpu).xp)
    return xp is _HOST_XP[0]


# NOTE [ Fused multiply-adds ]
# torch's CPU kernels of add/sub with alpha (a + alpha * b) and of addcmul (x + (v * a) * b)
# compute with one fused multiply-add (vec::fmadd): the sum of the exact product, rounded once.
# Rounding the product first differs in the last bit in 10-30% of the elements of float32 and
# float64 results (every SGD step, `p.add_(grad, alpha=-lr)`, would drift from torch's). NumPy has
# no fma: float32 operands are widened to float64, where the product is exact and the sum is
# rounded twice (which differs from one rounding only when the float64 sum lands on a float32
# tie); float64 operands go through Dekker's exact product (a split of each factor into 26-bit
# halves) and an exact sum (Knuth's TwoSum), the two error terms added last: some 20 array
# operations, exact on 12 million random cases against torch. Where an intermediate overflows
# (operands near the float64 range) the plain product and sum stand in, as they do for
# subnormal residues. Large host operands with a number factor (add_/sub_ with alpha, lerp with a
# number weight) skip all of this where NumPy's BLAS has a fused axpy (NOTE [ axpy through
# NumPy's BLAS ] in minitorch/_backend/host_blas.py).
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's splitter for float64


def _split(v):
    c = _SPLIT * v
    hi = c - (c - v)
    return hi, v - hi


def fused_multiply_add(xp, p, b, x):
    """p * b + x rounded once (NOTE [ Fused multiply-adds ]): p an array of float32 or float64
    (the result's dtype), b and x arrays or numbers of that dtype's values."""
    if b.__class__ is float:
        out = fma_via_blas(xp, p, b, x)
        if out is not None:
            return out
    return _fused_numpy(xp, p, b, x)


_AXPY_MIN = host_blas.AXPY_MIN  # (the dicts themselves: a threshold changed there is seen here)
_AXPY_TAIL_MIN = host_blas.AXPY_TAIL_MIN
_NO_SIZE = float("inf")  # no axpy for other dtypes


def _axpy_pays(a) -> bool:
    """Whether an update of a's size and dtype is worth BLAS's call (AXPY_MIN, AXPY_TAIL_MIN in
    minitorch/_backend/host_blas.py): a small array's test stops at one lookup, before axpy's
    own checks."""
    n = a.size
    char = a.dtype.char
    if n < _AXPY_MIN.get(char, _NO_SIZE):
        return False
    return not n % host_blas.BLOCK or n >= _AXPY_TAIL_MIN[char]


def fma_via_blas(xp, p, b, x, in_place=False):
    """p * b + x rounded once through NumPy's BLAS (NOTE [ axpy through NumPy's BLAS ]), as a
    new array or written into x itself (in_place), for host arrays p and x of one shape and
    float dtype and a float b exact in it; None, having written nothing, where that does not
    apply."""
    if not _axpy_pays(p) or not host_blas.axpy_fits(p, x, b):
        return None
    out = x if in_place else x.copy()
    return out if fma_into(xp, p, b, out) else None


def fma_into(xp, p, b, x) -> bool:
    """x <- p * b + x rounded once, in place, through NumPy's BLAS (NOTE [ axpy through NumPy's
    BLAS ]) for host arrays p and x of one shape and float dtype and a number b exact in it;
    False, having written nothing, where that does not apply."""
    if not _axpy_pays(x):
        return False
    k = host_blas.axpy(b, p, x)
    if not k:
        return False
    if k < x.size:  # the tail BLAS leaves (both arrays are C-contiguous)
        xt = x.reshape(-1)[k:]
        xt[...] = _fused_numpy(xp, p.reshape(-1)[k:], b, xt)
    return True


def _fused_numpy(xp, p, b, x):
    """fused_multiply_add in NumPy (or CuPy) array operations."""
    dt = p.dtype
    if dt.kind == "f" and dt.itemsize == 4:
        with quiet(xp):
            return (p.astype("float64") * b + x).astype(dt)
    if dt.kind != "f" or dt.itemsize != 8:
        return p * b + x
    with quiet(xp):
        if p.size > _FMA_BLOCK and type(p).__module__ == "numpy":  # host arrays: in blocks
            blocks = _fma_blocks(xp, p, b, x)
            if blocks is not None:
                return blocks
        return _fma64(xp, p, b, x)


_FMA_BLOCK = 1 << 14  # elements per block: the ~20 temporaries stay in the CPU's cache


def _fma_blocks(xp, p, b, x):
    """_fma64 over flat blocks of same-shape C-contiguous operands (b or x may be a number);
    None for other layouts (broadcasting)."""
    shape = p.shape
    ops = []
    for v in (p, b, x):
        if isinstance(v, (int, float)) or getattr(v, "ndim", None) == 0:
            ops.append((v, False))
        elif v.shape == shape and v.flags.c_contiguous:
            ops.append((v.reshape(-1), True))
        else:
            return None
    out = xp.empty(shape, p.dtype)
    flat = out.reshape(-1)
    n = flat.size
    for i in range(0, n, _FMA_BLOCK):
        j = min(i + _FMA_BLOCK, n)
        pb, bb, xb = (v[i:j] if sliced else v for v, sliced in ops)
        flat[i:j] = _fma64(xp, pb, bb, xb)
    return out


def _fma64(xp, p, b, x):
    r = p * b
    ph, pl = _split(p)
    bh, bl = _split(b)
    e = ((ph * bh - r) + ph * bl + pl * bh) + pl * bl  # p * b - r, exactly
    s = r + x
    v = s - x
    t = (x - (s - v)) + (r - v)  # r + x - s, exactly
    c = t + e
    out = xp.asarray(s + c)  # (an array also for NumPy scalar operands)
    xp.copyto(out, s, where=c == 0)  # (s itself keeps the sign of a zero sum)
    xp.copyto(out, s, where=xp.isnan(out))  # an overflow inside: the plain sum, except where
    if type(out).__module__ == "numpy":  # the product alone overflowed (host arrays only)
        over = xp.isinf(r) & xp.isfinite(p) & xp.isfinite(b)
        if over.any():  # scaled down by an exact power of two, then back (rare: all of it)
            k = 2.0**-600
            xp.copyto(out, _fma64(xp, p * k, b, x * k) / k, where=over)
    return out
