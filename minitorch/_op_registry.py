"""Operator schemas, the registry of user-defined operators and the `torch.ops` namespaces.

torch.library (minitorch/library.py) defines operators here: each has a schema (torch's
"ns::name.overload(Tensor x, int n=1) -> Tensor" text), kernels per device type, and optionally an
autograd formula and a fake (shape-only) implementation. `minitorch.ops.<ns>.<name>` finds them
as OpOverloadPacket / OpOverload objects, and `minitorch.ops.aten.<name>` calls minitorch's own
function of that name.

NOTE [ Dispatching a user-defined operator ]
A call binds its arguments to the schema (torch's dispatcher errors: a missing or unknown
argument, a value of the wrong type), picks the kernel of the device its first tensor argument
is on, and runs it:
- an operator with an autograd formula (register_autograd), or made by custom_op, runs its
  kernel under no_grad inside a generated autograd.Function named
  GeneratedBackwardFor_<ns>_<name>_<overload>, when grad mode is on and a tensor argument
  requires grad. The Function's last argument is a marker (torch passes its dispatch metadata
  there), so its backward returns one gradient more than the operator has arguments, and
  torch's count errors read the same. Without a formula that backward raises torch's "no
  autograd formula was registered";
- a kernel registered as CompositeImplicitAutograd is called as it is: its own tensor ops
  record the graph;
- a Library kernel for a device type, with no formula, also runs with grad mode as it is (torch's
  deprecated fallback) and warns when a gradient flows back through its outputs.
custom_op's outputs may not be (or share memory with) its inputs, as in torch, and the version
of each argument it declares mutated is bumped once after its kernel ran.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
import warnings

__all__ = ["ops", "OpOverload", "OpOverloadPacket", "FunctionSchema", "Argument"]

_NO_DEFAULT = object()
_BASE_TYPES = frozenset(
    (
        "Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Device",
        "Layout", "MemoryFormat", "Generator", "Any",
    )
)  # fmt: skip
_TYPE_RE = re.compile(r"^(\w+)(\([a-z0-9]+!?\))?(\?)?(?:\[(\d*)\])?(\?)?$")


def _format_float(v: float) -> str:
    """A float default as torch's schema printer writes it: 17 significant digits, and a
    trailing '.' where that leaves no point or exponent (2.0 -> '2.')."""
    text = format(v, ".17g")
    if not any(c in text for c in ".en"):  # n: inf / nan
        text += "."
    return text


def _format_default(v, registered: bool) -> str:
    """A default value in a schema: as infer_schema writes it (Python's reprs) or, once
    registered, as torch's schema printer does."""
    if v is None or isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return _format_float(v) if registered else repr(v)
    if isinstance(v, str):
        return '"' + (v.replace("'", "\\'") if registered else v) + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_default(x, registered) for x in v) + "]"
    from minitorch._dtype import dtype as _dtype_cls

    if isinstance(v, _dtype_cls):
        return str(v).rsplit(".", 1)[-1]
    from minitorch._backend import Device

    if isinstance(v, Device):
        return str(v) if registered else f'"{v}"'
    return str(v)


class Argument:
    """One argument (or return) of a schema. Mirrors torch._C.Argument's name / type /
    default_value / kwarg_only / alias_info (the alias annotation, e.g. '(a!)')."""

    def __init__(self, name, type_text, default=_NO_DEFAULT, kwarg_only=False):
        m = _TYPE_RE.match(type_text)
        if m is None or m.group(1) not in _BASE_TYPES:
            raise RuntimeError(f"Unknown type name '{type_text}' in schema")
        self.name = name
        self.base = m.group(1)
        self.alias = m.group(2) or ""
        self.is_list = m.group(4) is not None
        self.list_size = int(m.group(4)) if m.group(4) else None
        self.elem_optional = bool(m.group(3)) and self.is_list
        self.optional = bool(m.group(5)) or (bool(m.group(3)) and not self.is_list)
        self._default = default
        self.kwarg_only = kwarg_only

    @property
    def type(self) -> str:
        """The type as torch's Argument.type prints: 'Optional[List[int]]', 'number', ..."""
        return _type_name(self)

    def _schema_type(self) -> str:
        """The type as the schema text writes it: 'int[]?', 'Tensor(a!)'."""
        text = self.base + self.alias
        if self.is_list:
            text += ("?" if self.elem_optional else "") + f"[{self.list_size or ''}]"
        return text + ("?" if self.optional else "")

    @property
    def alias_info(self):
        """None, or the alias annotation ('(a!)': is_write, before_set {'a'}). Mirrors
        torch._C.Argument.alias_info."""
        if not self.alias:
            return None
        return _AliasInfo(self.alias[1:-1].rstrip("!"), self.is_write)

    @property
    def has_default_value(self) -> bool:
        return self._default is not _NO_DEFAULT

    @property
    def default_value(self):
        return None if self._default is _NO_DEFAULT else self._default

    @property
    def is_write(self) -> bool:
        return self.alias.endswith("!)")

    @property
    def is_tensor_like(self) -> bool:
        return self.base == "Tensor"

    def text(self, registered: bool = True) -> str:
        kind = self._schema_type()
        out = kind if not self.name else f"{kind} {self.name}"
        if self.has_default_value:
            out += "=" + _format_default(self._default, registered)
        return out

    def __repr__(self):
        return self.text()


class _AliasInfo:
    """An argument's alias annotation. Mirrors torch._C._AliasInfo."""

    def __init__(self, name, is_write):
        self.is_write = is_write
        self.before_set = {name}
        self.after_set = {name}


class FunctionSchema:
    """An operator's signature. Mirrors torch._C.FunctionSchema (name, overload_name,
    arguments, returns; str() is torch's text)."""

    def __init__(self, name, overload_name, arguments, returns, registered=True):
        self.name = name
        self.overload_name = overload_name
        self.arguments = arguments
        self.returns = returns
        self._registered = registered

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    def _args_text(self) -> str:
        parts = []
        star = False
        for a in self.arguments:
            if a.kwarg_only and not star:
                parts.append("*")
                star = True
            parts.append(a.text(self._registered))
        return "(" + ", ".join(parts) + ")"

    def _returns_text(self) -> str:
        rets = [r.text(self._registered) for r in self.returns]
        if len(rets) == 1 and not self.returns[0].name:
            return rets[0]
        return "(" + ", ".join(rets) + ")"

    def __str__(self):
        name = self.name + (f".{self.overload_name}" if self.overload_name else "")
        return f"{name}{self._args_text()} -> {self._returns_text()}"

    def __repr__(self):
        return str(self)


# --- parsing torch's schema text ---


def _split_top(text: str) -> list:
    """text split at the commas outside brackets and quotes."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_default(text: str, arg: Argument):
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if text[:1] in "'\"":
        text = text[1:-1].replace("\\'", "'").replace('\\"', '"')
        if arg.base == "Device":
            from minitorch._backend import Device

            return Device(text)
        return text
    if text.startswith("["):
        return [_parse_default(p, arg) for p in _split_top(text[1:-1])]
    try:
        if arg.base == "float" or any(c in text for c in ".eE"):
            return float(text)
        return int(text)
    except ValueError:
        if arg.base == "ScalarType":
            return text
        raise RuntimeError(f"invalid default value '{text}' for argument '{arg.name}'") from None


def _parse_arg(text: str, kwarg_only: bool, schema_text: str) -> Argument:
    default = _NO_DEFAULT
    if "=" in text:
        text, default_text = text.split("=", 1)
        text = text.strip()
    else:
        default_text = None
    pieces = text.rsplit(None, 1)
    type_text, name = (pieces[0], pieces[1]) if len(pieces) == 2 else (pieces[0], "")
    try:
        arg = Argument(name, type_text, kwarg_only=kwarg_only)
    except RuntimeError:
        word = re.match(r"\w*", type_text).group(0) or type_text
        at = re.search(rf"[(,>]\s*({re.escape(word)})\b", schema_text)
        col = at.start(1) if at else 0
        raise RuntimeError(
            "\nunknown type specifier. Common valid schema types include Tensor, SymInt, int, "
            "float, bool, Scalar; for a full list, please see "
            "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func "
            f":\n{schema_text}\n{' ' * col}{'~' * len(word)} <--- HERE\n"
        ) from None
    if default_text is not None:
        default = _parse_default(default_text.strip(), arg)
        arg._default = default
    return arg


def parse_schema(text: str, name: str | None = None) -> FunctionSchema:
    """A FunctionSchema from torch's text ("ns::name.overload(args) -> returns"; the name may be
    left out when given as `name`)."""
    m = re.match(r"^\s*([\w:.]*)\s*\((.*)\)\s*->\s*(.*?)\s*$", text, re.S)
    if m is None:
        raise RuntimeError(f"expected '(' and '->' in the schema:\n{text}")
    full = m.group(1) or name or ""
    op_name, _, overload = full.partition(".")
    arguments, kwarg_only = [], False
    for part in _split_top(m.group(2)):
        if part == "*":
            kwarg_only = True
            continue
        arguments.append(_parse_arg(part, kwarg_only, text))
    ret_text = m.group(3)
    if ret_text.startswith("(") and ret_text.endswith(")"):
        ret_parts = _split_top(ret_text[1:-1])
    else:
        ret_parts = [ret_text]
    returns = [_parse_arg(p, False, text) for p in ret_parts]
    return FunctionSchema(op_name, overload, arguments, returns)


# --- schemas inferred from a Python function's annotations ---


def _canonical(ann):
    """An annotation as nested tuples: ('list', X) for list/List/Sequence of X, ('optional', X)
    for Optional[X] and X | None, ('union', (...)) for other unions, else the class itself."""
    import collections.abc
    import typing

    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin in (list, collections.abc.Sequence) and len(args) == 1:
        return ("list", _canonical(args[0]))
    if origin is typing.Union or isinstance(ann, types.UnionType):
        rest = tuple(a for a in args if a is not type(None))
        if len(rest) < len(args):
            inner = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007
            return ("optional", _canonical(inner))
        return ("union", frozenset(rest))
    return ann


def _schema_type(ann, returns=False):
    """The schema type of an annotation (infer_schema's table), or None."""
    from minitorch._backend import Device
    from minitorch._dtype import dtype as dtype_cls
    from minitorch._tensor import Tensor

    scalars = {int: "SymInt", float: "float", bool: "bool", str: "str"}
    scalars[("union", frozenset((int, float, bool)))] = "Scalar"
    c = _canonical(ann)
    if returns:
        if c is Tensor or c == ("list", Tensor):
            return "Tensor" if c is Tensor else "Tensor[]"
        return None if c is str else scalars.get(c)
    optional = c.__class__ is tuple and c[0] == "optional"
    if optional:
        c = c[1]
    if c is Tensor:
        return "Tensor?" if optional else "Tensor"
    if c.__class__ is tuple and c[0] == "list":
        elem = c[1]
        if elem == ("optional", Tensor):
            return None if optional else "Tensor?[]"
        if elem is Tensor:
            return None if optional else "Tensor[]"
        if elem is str:
            return None
        text = scalars.get(elem)
        return None if text is None else text + "[]" + ("?" if optional else "")
    text = {dtype_cls: "ScalarType", Device: "Device"}.get(c) if isinstance(c, type) else None
    if text is None:
        try:
            text = scalars.get(c)
        except TypeError:  # an unhashable annotation
            return None
    return None if text is None else text + ("?" if optional else "")


def _annotation(ann, globalns, error):
    if isinstance(ann, str):
        import typing

        import minitorch

        scope = {"torch": minitorch, "Tensor": minitorch.Tensor, "typing": typing}
        scope.update(globalns)
        try:
            ann = eval(ann, scope)  # noqa: S307 - an annotation string, as typing.get_type_hints
        except Exception as e:
            error(
                f"Unsupported type annotation {ann}. It is not a type. ({e}). If you are using "
                "'from __future__ import annotations', note that annotations are evaluated "
                "lazily as strings; make sure all types referenced in annotations are importable "
                "at module scope, not only inside a local function."
            )
    return ann


def infer_schema_text(fn, mutates_args, op_name=None) -> str:
    """torch.library.infer_schema's text of fn's signature (see library.infer_schema)."""
    sig = inspect.signature(fn)
    globalns = getattr(fn, "__globals__", {})

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    if mutates_args != "unknown":
        if isinstance(mutates_args, str) or not hasattr(mutates_args, "__iter__"):
            raise ValueError(
                "mutates_args must either be a sequence of the names of the arguments that are "
                "mutated or the string 'unknown'. "
            )
        mutates = set(mutates_args)
    else:
        mutates = None
    parts, seen_kw = [], False
    for alias, p in enumerate(sig.parameters.values()):  # a mutated tensor's alias: its position
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if p.annotation is p.empty:
            error(f"Parameter {p.name} must have a type annotation.")
        ann = _annotation(p.annotation, globalns, error)
        type_text = _schema_type(ann)
        if type_text is None:
            shown = p.annotation  # as torch: the annotation as written
            if isinstance(ann, type):
                name = f"{ann.__module__}.{ann.__qualname__}".replace("minitorch.", "torch.")
                shown = f"<class '{name.removeprefix('builtins.')}'>"
            tuple_hint = ""
            if getattr(ann, "__origin__", None) is tuple:
                elems = set(ann.__args__)
                example = "\n\n"
                if len(elems) == 1 and _schema_type(list[next(iter(elems))]) is not None:
                    example = f"For example, list[{next(iter(elems)).__name__}].\n\n"
                tuple_hint = ("We do not support Tuple inputs in schema. As a workaround, please "
                              f"try to use List instead. {example}")  # fmt: skip
            error(
                f"Parameter {p.name} has unsupported type {shown}. {tuple_hint}The valid types "
                "are: Tensor, int, float, bool, str, torch.dtype, torch.device, their Optional and "
                "list forms, and Union[int, float, bool]."
            )
        if p.default is not p.empty and not (
            p.default is None or isinstance(p.default, (int, float, bool, str))
        ):
            from minitorch._backend import Device
            from minitorch._dtype import dtype as dtype_cls

            if not isinstance(p.default, (dtype_cls, Device)):
                error(
                    f"Parameter {p.name} has an unsupported default value type "
                    f"{type(p.default)}. Please file an issue on GitHub so we can prioritize "
                    "this."
                )
        if type_text.startswith("Tensor") and (mutates is None or p.name in mutates):
            type_text = type_text.replace("Tensor", f"Tensor(a{alias}!)", 1)
        elif mutates is not None and p.name in mutates:
            error(f"Parameter {p.name} is in mutable_args but only Tensors or collections of "
                  "Tensors can be mutated")  # fmt: skip
        text = f"{type_text} {p.name}"
        if p.default is not p.empty:
            text += "=" + _format_default(p.default, registered=False)
        if p.kind == p.KEYWORD_ONLY and not seen_kw:
            parts.append("*")
            seen_kw = True
        parts.append(text)
    if mutates:
        missing = mutates - set(sig.parameters)
        if missing:
            error(
                f"{missing} in mutates_args were not found in the custom op's signature. "
                "mutates_args should contain the names of all args that the custom op mutates, "
                "or just the string 'unknown' if you don't know."
            )
    ret = sig.return_annotation
    if ret is sig.empty:
        error("No return type annotation was provided. Please add one.")
    ret_text = _returns_text(_annotation(ret, globalns, error), error)
    name = op_name or ""
    return f"{name}({', '.join(parts)}) -> {ret_text}"


def _returns_text(ret, error) -> str:
    import typing

    if ret is None or ret is type(None):
        return "()"
    origin = typing.get_origin(ret)
    if origin is tuple:
        items = [_returns_text(a, error) for a in typing.get_args(ret)]
        return "(" + ", ".join(items) + ")"
    text = _schema_type(ret, returns=True)
    if text is None:
        error(
            f"Return has unsupported type {ret}. The valid types are: Tensor, list[Tensor], "
            "int, float, bool, Union[int, float, bool], a tuple of these or None."
        )
    return text


# --- the registry ---


class _OpEntry:
    """What is registered for one operator overload."""

    def __init__(self, namespace, name, overload, schema):
        self.namespace = namespace
        self.name = name
        self.overload = overload or "default"
        self.schema = schema
        self.kernels = {}  # device type ('cpu', 'cuda') or None (every device) -> function
        self.composite = None  # a CompositeImplicitAutograd kernel
        self.backward = None
        self.setup_context = None
        self.has_autograd = False  # custom_op's ops always go through the generated Function
        self.fake = None
        self.custom = None  # the CustomOpDef made by custom_op
        self.defined_at = None
        self._function = None

    @property
    def qualname(self) -> str:
        return f"{self.namespace}::{self.name}"

    @property
    def dotted(self) -> str:
        return f"{self.namespace}.{self.name}.{self.overload}"


_REGISTRY = {}  # (namespace, name) -> {overload: _OpEntry}


def lookup(namespace, name):
    return _REGISTRY.get((namespace, name))


def register(namespace, name, overload, schema, replace=False) -> _OpEntry:
    overloads = _REGISTRY.setdefault((namespace, name), {})
    key = overload or "default"
    if key in overloads and not replace:
        return None
    entry = _OpEntry(namespace, name, overload, schema)
    overloads[key] = entry
    return entry


def unregister(entry) -> None:
    overloads = _REGISTRY.get((entry.namespace, entry.name))
    if overloads is not None and overloads.get(entry.overload) is entry:
        del overloads[entry.overload]
        if not overloads:
            del _REGISTRY[(entry.namespace, entry.name)]


# --- binding and checking arguments (torch's dispatcher messages) ---


def _declaration(entry) -> str:
    return f"{entry.qualname}{str(entry.schema)[len(entry.schema.name) :]}"


def _type_name(arg) -> str:
    # torch names the enum types (ScalarType, Layout, MemoryFormat) by the int they are passed as
    base = {"SymInt": "int", "Scalar": "number", "ScalarType": "int", "Layout": "int",
            "MemoryFormat": "int"}.get(arg.base, arg.base)  # fmt: skip
    if arg.is_list:
        base = f"List[{'Optional[' + base + ']' if arg.elem_optional else base}]"
    return f"Optional[{base}]" if arg.optional else base


def _fits(arg, value, elem=False) -> bool:
    from minitorch._tensor import Tensor

    if value is None:
        return arg.optional if not elem else arg.elem_optional
    if arg.is_list and not elem:
        if arg.list_size and isinstance(value, int) and arg.base in ("int", "SymInt"):
            return True  # int[2] k=3 means (3, 3)
        if isinstance(value, Tensor) and arg.base in ("int", "SymInt", "float"):
            return value.dim() == 1 and not value.dtype.is_floating_point
        return isinstance(value, (list, tuple)) and all(_fits(arg, v, True) for v in value)
    base = arg.base
    if base == "Tensor":
        return isinstance(value, Tensor)
    if base in ("int", "SymInt"):
        if isinstance(value, Tensor):
            return value.dim() == 0 and not value.dtype.is_floating_point
        return isinstance(value, int) or _is_numpy_scalar(value, "iub")
    if base == "float":
        if isinstance(value, Tensor):
            return value.dim() == 0
        return isinstance(value, (int, float)) or _is_numpy_scalar(value, "iubf")
    if base == "bool":
        return isinstance(value, bool) or _is_numpy_scalar(value, "b")
    if base == "Scalar":
        if isinstance(value, Tensor):
            return value.dim() == 0
        return isinstance(value, (int, float, complex)) or _is_numpy_scalar(value, "iubfc")
    if base == "str":
        return isinstance(value, str)
    if base == "ScalarType":
        from minitorch._dtype import dtype as dtype_cls

        return isinstance(value, dtype_cls)
    if base == "Device":
        from minitorch._backend import Device

        return isinstance(value, (Device, str, int))
    return True


def _is_numpy_scalar(value, kinds) -> bool:
    dt = getattr(value, "dtype", None)
    return dt is not None and getattr(value, "ndim", None) == 0 and dt.kind in kinds


def bind(entry, args, kwargs):
    """(positional values, keyword-only values) of a call, checked against the schema and
    completed with its defaults."""
    schema = entry.schema
    params = schema.arguments
    positional = [a for a in params if not a.kwarg_only]
    if len(args) > len(positional):
        if len(positional) < len(params):  # torch words it so when keyword-only ones exist
            raise RuntimeError(
                f"{entry.qualname}() takes {len(positional)} positional argument(s) but "
                f"{len(args)} was/were given.  Declaration: {_declaration(entry)}"
            )
        raise RuntimeError(
            f"{entry.qualname}() expected at most {len(positional)} argument(s) but received "
            f"{len(args)} argument(s). Declaration: {_declaration(entry)}"
        )
    names = {a.name for a in params}
    for k in kwargs:
        if k not in names:
            raise RuntimeError(
                f"Unknown keyword argument '{k}' for operator '{entry.qualname}'. Schema: "
                f"{_declaration(entry)}"
            )
    values = []
    for i, a in enumerate(params):
        if i < len(args):
            v = args[i]
        elif a.name in kwargs:
            v = kwargs[a.name]
        elif a.has_default_value:
            v = a.default_value
        else:
            raise RuntimeError(
                f"{entry.qualname}() is missing value for argument '{a.name}'. Declaration: "
                f"{_declaration(entry)}"
            )
        if not _fits(a, v):
            culprit = v  # in a list, torch names the first element that does not fit
            if a.is_list and isinstance(v, (list, tuple)):
                culprit = next((x for x in v if not _fits(a, x, True)), v)
            detail = (
                f"Unable to cast {v!r} to Tensor"
                if a.base == "Tensor" and not a.is_list
                else f"Unable to cast Python instance of type {type(culprit)} to C++ type '?' "
                "(#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for details)"
            )
            raise RuntimeError(
                f"{entry.qualname}() Expected a value of type '{_type_name(a)}' for argument "
                f"'{a.name}' but instead found type '{type(v).__name__}'.\nPosition: {i}\n"
                f"Value: {v!r}\nDeclaration: {_declaration(entry)}\nCast error details: {detail}"
            )
        values.append(v)
    n_pos = len(positional)
    kw_only = {a.name: v for a, v in zip(params[n_pos:], values[n_pos:], strict=True)}
    return values[:n_pos], kw_only


def _tensors_in(values):
    from minitorch._tensor import Tensor

    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for x in v:
                if isinstance(x, Tensor):
                    yield x


def _device_type(values) -> str:
    for t in _tensors_in(values):
        kind = t.device.type
        return "cuda" if kind == "strict" else kind  # the test device stands for a GPU
    return "cpu"


def _no_kernel(entry, device_type):
    key = {"cpu": "CPU", "cuda": "CUDA"}.get(device_type, device_type)
    have = sorted({"CPU" if k == "cpu" else "CUDA" for k in entry.kernels if k is not None})
    return NotImplementedError(
        f"Could not run '{entry.qualname}' with arguments from the '{key}' backend. This could "
        "be because the operator doesn't exist for this backend, or was omitted during the "
        f"selective/custom build process (if using custom build). '{entry.qualname}' is only "
        f"available for these backends: [{', '.join([*have, 'Meta'] if have else ['Meta'])}]."
    )


# --- running an operator ---


class _Marker:
    """The generated Function's last argument (torch passes its dispatch metadata there)."""

    __slots__ = ("kw_only", "layout")

    def __init__(self, kw_only, layout):
        self.kw_only = kw_only
        self.layout = layout  # where tensor lists were spread into single arguments


def _generated_function(entry):
    """The autograd.Function through which entry's kernel runs when a gradient may be needed
    (NOTE [ Dispatching a user-defined operator ])."""
    if entry._function is not None:
        return entry._function
    from minitorch.autograd.function import Function
    from minitorch.autograd.grad_mode import no_grad

    def forward(ctx, *args):
        marker = args[-1]
        ctx._op_layout = marker.layout
        args = _unflatten(args[:-1], marker.layout)
        with no_grad():
            out = _run_kernel(entry, args, marker.kw_only)
        if entry.setup_context is not None:
            if marker.kw_only:
                entry.setup_context(
                    ctx=ctx, inputs=tuple(args), keyword_only_inputs=marker.kw_only, output=out
                )
            else:
                entry.setup_context(ctx=ctx, inputs=tuple(args), output=out)
        ctx._op_list_out = isinstance(out, list)
        return tuple(out) if isinstance(out, list) else out

    def backward(ctx, *grads):
        if entry.backward is None:
            raise RuntimeError(
                f"Trying to backward through {entry.dotted} but no autograd formula was "
                "registered. Please use register_autograd to add one."
            )
        layout = ctx._op_layout
        full = ctx.needs_input_grad
        ctx.needs_input_grad = tuple(_unflatten(full[:-1], layout))
        try:
            if ctx._op_list_out:
                result = entry.backward(ctx, list(grads))
            else:
                result = entry.backward(ctx, *grads)
        finally:
            ctx.needs_input_grad = full
        if not isinstance(result, tuple):
            result = (result,)  # a list too, as torch: its count error follows
        return (*_flatten_grads(result, layout), None)

    name = f"GeneratedBackwardFor_{entry.namespace}_{entry.name}_{entry.overload}"
    attrs = {
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "_user_defined": True,  # user code: forward takes and returns tensors
        "__module__": "minitorch.autograd.function",
    }
    cls = type(name, (Function,), attrs)
    entry._function = cls
    return cls


def _flatten(values):
    """Tensor lists spread into single arguments (autograd.Function sees tensors only at the
    top level) and the layout to put them back."""
    flat, layout = [], []
    for v in values:
        if isinstance(v, list) and v and all(_is_tensor(x) or x is None for x in v):
            flat.extend(v)
            layout.append(len(v))
        else:
            flat.append(v)
            layout.append(None)
    return flat, tuple(layout)


def _is_tensor(x) -> bool:
    from minitorch._tensor import Tensor

    return isinstance(x, Tensor)


def _unflatten(flat, layout):
    out, i = [], 0
    for n in layout:
        if n is None:
            out.append(flat[i])
            i += 1
        else:
            out.append(list(flat[i : i + n]))
            i += n
    return out


def _flatten_grads(result, layout):
    """The user's gradients per argument, tensor lists spread as _flatten spread them (a
    short or long result stays so: autograd.Function's count check reports it)."""
    if all(n is None for n in layout):
        return result
    out = []
    for k, g in enumerate(result):
        n = layout[k] if k < len(layout) else None
        if n is None:
            out.append(g)
        else:
            out.extend(g if g is not None else [None] * n)
    return out


def _run_kernel(entry, args, kw_only):
    device_type = _device_type([*args, *kw_only.values()])
    kernel = entry.kernels.get(device_type) or entry.kernels.get(None)
    if kernel is None:
        if entry.composite is not None:
            return entry.composite(*args, **kw_only)
        raise _no_kernel(entry, device_type)
    return kernel(*args, **kw_only)


def _check_no_alias(entry, args, kw_only, out):
    """custom_op's outputs may not be its inputs or share their memory (torch's error)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    outs = [o for o in outs if _is_tensor(o)]
    if not outs:
        return
    ins = list(_tensors_in([*args, *kw_only.values()]))
    seen = []
    for o in outs:
        for other in ins + seen:
            if o is other or _shares_memory(o, other):
                fn = entry.custom._init_fn if entry.custom is not None else None
                name = getattr(fn, "__name__", entry.name)
                raise RuntimeError(
                    f"{name} (with implementation in {sys.modules[__name__]!r}): The output of "
                    "this custom operator (1) must not also be an input to this custom operator "
                    "and (2) may not alias any inputs to this custom operator or other returns. "
                    "The most common way to trigger this error is if we have y = custom_op(x) "
                    "and y and x are the same Tensor. Please instead return a clone of the "
                    "offending output tensor(s) (e.g. return x.clone()) or refactor the custom "
                    "operator to not return y."
                )
        seen.append(o)


def _shares_memory(a, b) -> bool:
    if a.device != b.device:
        return False
    x, y = a._data, b._data
    base_x = x if x.base is None else x.base
    base_y = y if y.base is None else y.base
    return base_x is base_y and x.size > 0 and y.size > 0


def _warn_no_autograd(entry):
    def hook(grad):
        warnings.warn(
            f"{entry.qualname}: an autograd kernel was not registered to the Autograd key(s) "
            "but we are trying to backprop through it. This may lead to silently incorrect "
            "behavior. This behavior is deprecated and will be removed in a future version of "
            "PyTorch. If your operator is differentiable, please ensure you have registered an "
            "autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, "
            "DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, "
            "or to squash this warning and use the previous behavior, please register "
            "torch::CppFunction::makeFallthrough() to DispatchKey::Autograd.",
            UserWarning,
            stacklevel=2,
        )
        return grad

    return hook


FLOP_COUNTERS = []  # utils.flop_counter.FlopCounterModes active in any thread (custom_mapping)


def call(entry, args, kwargs):
    """Runs a user-defined operator (NOTE [ Dispatching a user-defined operator ])."""
    if FLOP_COUNTERS:
        from minitorch.utils import flop_counter

        counters = flop_counter._modes()  # this thread's
        if not counters or flop_counter._depth():
            return _call(entry, args, kwargs)
        flop_counter._state.depth = 1  # torch counts the operator, not the ops inside it
        try:
            out = _call(entry, args, kwargs)
        finally:
            flop_counter._state.depth = 0
        for counter in counters:
            counter._count_user_op(entry, args, kwargs, out)
        return out
    return _call(entry, args, kwargs)


def _call(entry, args, kwargs):
    from minitorch.autograd.grad_mode import is_grad_enabled, no_grad

    args, kw_only = bind(entry, args, kwargs)
    if entry.composite is not None and not entry.kernels and not entry.has_autograd:
        return entry.composite(*args, **kw_only)
    needs_grad = is_grad_enabled() and any(
        t.requires_grad for t in _tensors_in([*args, *kw_only.values()])
    )
    if entry.has_autograd or entry.backward is not None:
        if needs_grad:
            flat, layout = _flatten(args)
            out = _generated_function(entry).apply(*flat, _Marker(kw_only, layout))
            if isinstance(out, tuple) and _list_return(entry):
                out = list(out)
        else:
            with no_grad():
                out = _run_kernel(entry, args, kw_only)
    else:
        out = _run_kernel(entry, args, kw_only)
        if needs_grad:
            for o in out if isinstance(out, (tuple, list)) else (out,):
                if _is_tensor(o) and o.requires_grad:
                    o.register_hook(_warn_no_autograd(entry))
    if entry.custom is not None:
        _check_no_alias(entry, args, kw_only, out)
        _check_returns(entry, out)
        _bump_mutated(entry, args, kw_only)
    return out


def _bump_mutated(entry, args, kw_only):
    """custom_op bumps the version of each argument it declares mutated, once, whatever its
    kernel did to it (torch's ADInplaceOrView kernel): a backward that saved it then refuses."""
    values = [*args, *kw_only.values()]
    for a, v in zip(entry.schema.arguments, values, strict=True):
        if a.is_write:
            for t in _tensors_in((v,)):
                t._vc[0] += 1


def _list_return(entry) -> bool:
    rets = entry.schema.returns
    return len(rets) == 1 and rets[0].is_list


def _check_returns(entry, out):
    rets = entry.schema.returns
    if not rets:
        return
    if len(rets) > 1 or rets[0].is_list:
        if not isinstance(out, (tuple, list)):
            raise TypeError(
                f"Object of type '{type(out).__name__}' is not an instance of 'sequence'"
            )
        return
    if rets[0].base == "Tensor" and not _is_tensor(out):
        raise RuntimeError(f"Unable to cast {out!r} to Tensor")


# --- torch.ops ---


class OpOverload:
    """One overload of an operator: `minitorch.ops.<ns>.<name>.<overload>`. Mirrors
    torch._ops.OpOverload."""

    def __init__(self, packet, overload, entry=None, fn=None):
        self._packet = packet
        self._overloadname = overload
        self._entry = entry
        self._fn = fn
        self._namespace = packet._namespace
        self._opname = packet._opname
        self.__name__ = f"{packet._opname}.{overload}"
        self.__qualname__ = self.__name__
        self.__module__ = "minitorch.ops"

    @property
    def _schema(self):
        if self._entry is None:
            raise AttributeError(
                f"minitorch has no schema for {self._namespace}.{self._opname}: its aten "
                "namespace calls minitorch's functions"
            )
        return _RegisteredSchema(self._entry)

    @property
    def overloadpacket(self):
        return self._packet

    @property
    def namespace(self) -> str:
        return self._namespace

    def name(self) -> str:
        return f"{self._namespace}::{self._opname}"

    @property
    def tags(self) -> list:
        return []  # minitorch keeps no operator tags

    def has_kernel_for_dispatch_key(self, key) -> bool:
        """Whether a kernel was registered for 'CPU' / 'CUDA' (or 'Meta': a fake)."""
        entry = self._entry
        if entry is None:
            return str(key) in ("CPU", "CUDA") and self._fn is not None
        k = str(key).lower()
        if k == "meta":
            return entry.fake is not None
        return k in entry.kernels

    def __call__(self, *args, **kwargs):
        if self._entry is None:
            return self._fn(*args, **kwargs)
        return call(self._entry, args, kwargs)

    def __repr__(self):
        return (
            f"<OpOverload(op='{self._namespace}.{self._opname}', overload='{self._overloadname}')>"
        )

    def __str__(self):
        return f"{self._namespace}.{self._opname}.{self._overloadname}"

    def __hash__(self):
        return hash((self._namespace, self._opname, self._overloadname))

    def __eq__(self, other):
        return isinstance(other, OpOverload) and (
            other._namespace,
            other._opname,
            other._overloadname,
        ) == (self._namespace, self._opname, self._overloadname)


class _RegisteredSchema(FunctionSchema):
    """An entry's schema as torch shows a registered one: named ns::name."""

    def __init__(self, entry):
        s = entry.schema
        overload = "" if entry.overload == "default" else entry.overload
        super().__init__(entry.qualname, overload, s.arguments, s.returns, registered=True)


class OpOverloadPacket:
    """All overloads of an operator: `minitorch.ops.<ns>.<name>`; calling it runs the first
    overload (in definition order) that accepts the arguments. Mirrors
    torch._ops.OpOverloadPacket."""

    def __init__(self, namespace, name, fn=None):
        self._namespace = namespace
        self._opname = name
        self._fn = fn  # aten: minitorch's function
        self._overloads = {}
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = "minitorch.ops"

    @property
    def _qualified_op_name(self) -> str:
        return f"{self._namespace}::{self._opname}"

    def overloads(self) -> list:
        if self._fn is not None:
            return ["default"]
        return list(lookup(self._namespace, self._opname) or {})

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        got = self._overloads.get(overload)
        if got is not None:
            return got
        if self._fn is not None:
            if overload.startswith("_"):
                raise AttributeError(
                    f"The underlying op of '{self._namespace}.{self._opname}' has no overload "
                    f"name '{overload}'"
                )
            op = OpOverload(self, overload, fn=self._fn)  # NOTE: any overload name calls it
        else:
            entry = (lookup(self._namespace, self._opname) or {}).get(overload)
            if entry is None:
                raise AttributeError(
                    f"The underlying op of '{self._namespace}.{self._opname}' has no overload "
                    f"name '{overload}'"
                )
            op = OpOverload(self, overload, entry)
        self._overloads[overload] = op
        return op

    def __call__(self, *args, **kwargs):
        if self._fn is not None:
            return self._fn(*args, **kwargs)
        overloads = lookup(self._namespace, self._opname)
        if not overloads:
            raise RuntimeError(f"{self._namespace}::{self._opname} is no longer registered")
        if len(overloads) == 1:
            return call(next(iter(overloads.values())), args, kwargs)
        errors = []  # as torch's dispatcher: the first overload (in definition order) that binds
        for entry in overloads.values():
            try:
                bound = bind(entry, args, kwargs)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            del bound
            return call(entry, args, kwargs)
        raise RuntimeError("\n".join(errors))

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self):
        return f"{self._namespace}.{self._opname}"


class _OpNamespace(types.ModuleType):
    """`minitorch.ops.<ns>`: the operators registered in namespace ns (aten: minitorch's own
    functions). Mirrors torch._ops._OpNamespace."""

    def __init__(self, name):
        super().__init__(f"minitorch.ops.{name}")
        self.name = name
        self._packets = {}

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        packet = self._packets.get(op_name)
        if packet is not None and (packet._fn is not None or lookup(self.name, op_name)):
            return packet
        fn = _aten_function(op_name) if self.name == "aten" else None
        if fn is None and not lookup(self.name, op_name):
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'"
            )
        packet = OpOverloadPacket(self.name, op_name, fn)
        self._packets[op_name] = packet
        return packet

    def __dir__(self):
        names = [n for ns, n in _REGISTRY if ns == self.name]
        return sorted({*super().__dir__(), *names})

    def __repr__(self):
        return f"<module 'minitorch.ops.{self.name}' from 'minitorch.ops'>"


def aten_packet(name):
    """minitorch.ops.aten.<name>, also for the aten ops minitorch has no function of (the keys
    of utils.flop_counter's counts: aten.convolution_backward, ...)."""
    ns = ops.aten
    packet = ns._packets.get(name)
    if packet is None:
        fn = _aten_function(name) or _no_function(name)
        packet = ns._packets[name] = OpOverloadPacket("aten", name, fn)
    return packet


def _no_function(name):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"minitorch has no function for aten.{name}")

    return missing


def _aten_function(name):
    import minitorch

    if name.startswith("_"):
        return None
    fn = getattr(minitorch, name, None)
    if fn is None:
        import minitorch.nn.functional as F

        fn = getattr(F, name, None)
    if fn is None:
        method = getattr(minitorch.Tensor, name, None)  # in-place forms: aten.add_
        if callable(method):
            return method
    return fn if callable(fn) and not isinstance(fn, type) else None


class _Ops(types.ModuleType):
    """`minitorch.ops`: one namespace object per name. Mirrors torch.ops."""

    def __init__(self):
        super().__init__("minitorch.ops")
        self._namespaces = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ns = self._namespaces.get(name)
        if ns is None:
            ns = self._namespaces[name] = _OpNamespace(name)
        return ns

    def __repr__(self):
        return "<module 'minitorch.ops' from '_ops.py'>"


ops = _Ops()
