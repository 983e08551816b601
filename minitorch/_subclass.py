"""Tensor subclasses: as_subclass, _make_subclass and the __torch_function__ protocol for them.

# NOTE [ Tensor subclasses ]
# torch hands every op with a Tensor-subclass argument to the subclasses' __torch_function__;
# the default one (Tensor.__torch_function__) runs the op with subclass dispatch off and turns
# Tensor results (also inside tuples and lists) into the most derived subclass by as_subclass
# (an alias: AliasBackward0 on the graph). nn.Parameter opts out (_disabled_torch_function_impl),
# so ops on Parameters give plain Tensors. Plain tensors must pay nothing for this, so:
# - a subclass gets, when it is defined (Tensor.__init_subclass__), wrappers for Tensor's public
#   methods, operators and tensor-valued properties that it does not define itself: calling them
#   dispatches with torch's `func` (Tensor.add, Tensor.__add__, Tensor.T.__get__);
# - Function.apply, whose loop tells a plain tensor by `a.__class__ is Tensor`, hands an op with
#   an argument of a dispatching subclass to apply_subclass: torch.*/F.* functions, super()
#   calls from a subclass's methods, custom autograd Functions (func = MyFn.apply).
# A subclass defining its own __torch_function__ is called for its methods and operators, for
# handle_torch_function (copies of torch code), and for custom Functions; a built-in op reached
# through a torch.* function has no public `func` to hand it, so that case raises a TypeError
# rather than running a default the subclass did not ask for.
# Ops whose results do not all come from Function.apply (comparisons, integer arithmetic, the
# index results of sort/topk/argmax, meshgrid, ...) test `x.__class__ is not Tensor` at their
# entry and hand a dispatching argument to run_converted, which does what apply_subclass does.
"""

from __future__ import annotations

import threading

from minitorch._arg_errors import (
    REQUIRED,
    missing_positional,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._tensor import Tensor

_local = threading.local()


def dispatch_off() -> bool:
    """Whether subclass dispatch is off on this thread (inside a __torch_function__ default)."""
    return getattr(_local, "off", False)


def dispatching(t) -> bool:
    """Whether t is an instance of a Tensor subclass that dispatches, with dispatch on (False
    for plain tensors, nn.Parameter and non-tensors)."""
    cls = t.__class__
    return cls is not Tensor and isinstance(t, Tensor) and cls._dispatches and not dispatch_off()


class DisableTorchFunctionSubclass:
    """Runs its body with Tensor-subclass dispatch off: ops on subclass instances run as on
    plain tensors and return plain tensors. Mirrors torch._C.DisableTorchFunctionSubclass."""

    def __enter__(self):
        self._old = dispatch_off()
        _local.off = True
        return self

    def __exit__(self, *exc):
        _local.off = self._old
        return False


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """Runs its body with __torch_function__ off altogether. minitorch has no torch function
    modes, so ops behave as under DisableTorchFunctionSubclass; only
    torch._C._is_torch_function_all_disabled() tells the two apart. Mirrors
    torch._C.DisableTorchFunction."""

    def __enter__(self):
        self._old_all = all_disabled()
        _local.all_off = True
        return super().__enter__()

    def __exit__(self, *exc):
        _local.all_off = self._old_all
        return super().__exit__(*exc)


def all_disabled() -> bool:
    """Whether a DisableTorchFunction block is running on this thread."""
    return getattr(_local, "all_off", False)


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """Set as a class's __torch_function__ to opt it out of dispatch (nn.Parameter does): its
    instances take part in ops as plain tensors. Mirrors torch._C._disabled_torch_function_impl."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: runs func with dispatch off and converts Tensor results to
    cls, or NotImplemented when cls is not a subclass of every type in types."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types) or _foreign(func):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in _NO_WRAP:
            return ret
        return convert(ret, cls)


def _foreign(func) -> bool:
    """Whether func is PyTorch's own (torch.add, torch.Tensor.ne, torch.nn.functional.relu):
    PyTorch hands it here when a minitorch tensor meets a torch tensor (torch_t + mt_t), and
    running it would hand it back again, without end; NotImplemented lets torch raise its
    TypeError naming minitorch's Tensor."""
    module = getattr(func, "__module__", None)
    if module is None:  # a method descriptor of torch._C.TensorBase
        module = getattr(getattr(func, "__objclass__", None), "__module__", None)
    return isinstance(module, str) and (module == "torch" or module.startswith("torch."))


def convert(ret, cls):
    """ret with Tensors not already of class cls made cls (by as_subclass), also inside tuples
    and lists (named return types too), as torch's default __torch_function__ converts."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor):
        if not isinstance(ret, cls):
            ret = as_subclass(ret, cls)
        return ret
    if isinstance(ret, (tuple, list)):
        return type(ret)(convert(r, cls) for r in ret)
    return ret


_NOT_TENSOR_CLASS = (
    "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
    "Make sure your class inherits from Tensor."
)


def _check_class(cls) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        if cls is REQUIRED:  # (x.as_subclass())
            raise missing_positional("as_subclass", "cls")
        if not isinstance(cls, type):
            from minitorch._ops._common import type_name  # (an error path)

            raise TypeError(f"cls must be a type (got {type_name(cls)})")
        raise TypeError(_NOT_TENSOR_CLASS)


def _retype(t: Tensor, cls) -> Tensor:
    """t (a tensor no one else holds yet) as an instance of cls."""
    if cls is Tensor:
        return t
    try:
        t.__class__ = cls
    except TypeError:  # a subclass with __slots__ of its own: a new object, t's state copied
        new = object.__new__(cls)
        for name in ("_data", "_device", "_requires_grad", "_grad_fn", "_vc", "_base", "_grad"):
            setattr(new, name, getattr(t, name))
        new.__dict__.update(t.__dict__)
        t = new
    return t


def as_subclass(t: Tensor, cls) -> Tensor:
    """t viewed as an instance of cls: same memory, on t's graph (AliasBackward0).
    Mirrors torch.Tensor.as_subclass."""
    _check_class(cls)
    with DisableTorchFunctionSubclass():
        alias = Tensor.__getitem__(t, ...)
    return _retype(alias, cls)


def make_subclass(cls, data, require_grad=False, *args, **kwargs):
    """A leaf instance of cls sharing data's memory and version counter, requiring grad as
    asked. Mirrors torch.Tensor._make_subclass (its dispatch_* options are accepted and
    ignored)."""
    _check_class(cls)
    bad = not isinstance(data, Tensor) or require_grad.__class__ is not bool
    if bad or args or not kwargs.keys() <= _MAKE_SUBCLASS_KEYWORDS:
        _make_subclass_error(data, require_grad, args, kwargs)
    if require_grad and not data.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    with DisableTorchFunctionSubclass():
        t = Tensor.detach(data)
        if require_grad:
            Tensor.requires_grad_(t, True)
    return _retype(t, cls)


# the keyword-only options of torch.Tensor._make_subclass
_MAKE_SUBCLASS_KEYWORDS = frozenset({
    "dispatch_sizes_strides_policy", "dispatch_device", "dispatch_layout", "_extra_dispatch_keys",
    "storage_size",
})  # fmt: skip


def _make_subclass_error(data, require_grad, args: tuple, kwargs: dict) -> None:
    """torch's parser TypeError for _make_subclass's extra positional arguments, an unknown
    keyword, a data that is no tensor, or a require_grad that is no bool (it takes no int:
    `_make_subclass(cls, x, 1)`)."""
    from minitorch._call_site import passed_by_keyword
    from minitorch._ops._common import type_name

    if args:
        raise too_many_positional("_make_subclass", 3 + len(args), 3, 2)
    unknown = next((k for k in kwargs if k not in _MAKE_SUBCLASS_KEYWORDS), None)
    if unknown is not None:
        raise unexpected_keyword("_make_subclass", unknown)
    if not isinstance(data, Tensor):
        raise TypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
            f"{type(data).__name__}"
        )
    where = "" if passed_by_keyword("require_grad", "_make_subclass") else " (position 3)"
    raise TypeError(
        f"_make_subclass(): argument 'require_grad'{where} must be bool, not "
        f"{type_name(require_grad)}"
    )


def _add_types(found: list, t) -> None:
    """Adds type t to found in torch's order: a subclass before its bases, else left to right."""
    if t in found:
        return
    for i, other in enumerate(found):
        if issubclass(t, other):
            found.insert(i, t)
            return
    found.append(t)


def overloaded_types(args, kwargs=None) -> list:
    """The dispatching subclass types among args (and tensors inside list/tuple arguments)."""
    found: list = []
    values = list(args) + (list(kwargs.values()) if kwargs else [])
    for a in values:
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor) and b.__class__._dispatches:
                    _add_types(found, b.__class__)
        elif isinstance(a, Tensor) and a.__class__._dispatches:
            _add_types(found, a.__class__)
    return found


def _func_name(func) -> str:
    module = getattr(func, "__module__", None) or ""
    if module == "minitorch._tensor":  # a Tensor method (NOTE [ Names of Tensor methods ])
        return f"minitorch.Tensor.{func.__name__}"
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
    return f"{module}.{name}" if module and module != "builtins" else name


def _dispatch_failed(name: str, types) -> TypeError:
    listed = "".join(f"  - tensor subclass {t}\n" for t in types)
    return TypeError(
        f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
        f"NotImplemented:\n\n{listed}\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented"
    )


def dispatch(func, types, args, kwargs, name=None):
    """Calls each type's __torch_function__ in turn until one does not return NotImplemented
    (torch's handle_torch_function)."""
    for t in types:
        ret = t.__torch_function__(func, types, args, kwargs)
        if ret is not NotImplemented:
            return ret
    raise _dispatch_failed(name or _func_name(func), types)


def apply_subclass(fn, args, kwargs):
    """Function.apply of op fn with an argument of a dispatching subclass (see NOTE [ Tensor
    subclasses ])."""
    from minitorch.autograd.function import Function

    types = overloaded_types(args, kwargs)

    if not fn._builtin:  # a custom Function: torch's func is MyFn.apply
        return dispatch(fn.apply, types, args, kwargs)
    cls = _default_class(types, fn.__name__)
    with DisableTorchFunctionSubclass():
        ret = Function.apply.__func__(fn, *args, **kwargs)
        return convert(ret, cls)


def refuse_own(types, where: str) -> None:
    """TypeError when one of types has its own __torch_function__, which minitorch cannot hand
    a `func` `where` (a torch.* function, an in-place op on a plain tensor): the documented
    difference of NOTE [ Tensor subclasses ]."""
    for t in types:
        if _tf_func(t) is not _DEFAULT:
            raise TypeError(
                f"{t.__name__}.__torch_function__: minitorch calls a subclass's own "
                f"__torch_function__ for Tensor methods and operators only, not {where}; "
                "call the method, or pass x.as_subclass(torch.Tensor)"
            )


def _default_class(types, name: str):
    """The class the default __torch_function__ converts a built-in op's results to (the most
    derived of types), or torch's errors: a subclass's own __torch_function__ (refuse_own),
    classes not on one line of descent."""
    refuse_own(types, f"for torch.* functions (here {name})")
    cls = types[0]
    if not all(issubclass(cls, t) for t in types):
        raise _dispatch_failed(f"torch.{name.lower()}", types)
    return cls


def any_dispatching(args) -> bool:
    """Whether an argument in args, or a tensor in a list/tuple argument, is an instance of a
    dispatching subclass (see dispatching)."""
    for a in args:
        if a.__class__ is list or a.__class__ is tuple:
            if any_dispatching(a):
                return True
        elif a.__class__ is not Tensor and dispatching(a):
            return True
    return False


def run_converted(op, args, kwargs=None):
    """torch.* op called with an argument of a dispatching subclass, for the ops whose results
    do not all come from Function.apply (comparisons, integer arithmetic, index results of
    sort/topk/argmax, meshgrid, ...): runs op with dispatch off and converts its Tensor results
    to the most derived subclass, as torch's default __torch_function__ does. Their entry
    points call it behind one `x.__class__ is not Tensor` test and any_dispatching (see NOTE
    [ Tensor subclasses ])."""
    if kwargs is None:
        kwargs = {}
    types = overloaded_types(args, kwargs)
    cls = _default_class(types, getattr(op, "__name__", "op"))
    with DisableTorchFunctionSubclass():
        return convert(op(*args, **kwargs), cls)


# --- the wrappers a dispatching subclass gets ---

# Tensor attributes that are Python machinery or must reach the tensor itself, never wrapped.
_NOT_WRAPPED = frozenset(
    (
        "__init__",
        "__new__",
        "__init_subclass__",
        "__torch_function__",
        "__getattribute__",
        "__getattr__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__class__",
        "__reduce__",
        "__reduce_ex__",
        "__deepcopy__",
        "__getstate__",
        "__setstate__",
        "__hash__",
        "__sizeof__",
        "__repr__",
        "__str__",
        "__format__",
        "__array__",
        "__array_ufunc__",
        "__array_function__",
        "__array_priority__",
        "__array_interface__",
        "__dlpack__",
        "__dlpack_device__",
        "__bool__",
        "__float__",
        "__int__",
        "__index__",
        "__complex__",
        "__len__",
        "__iter__",
        "__contains__",
        "__weakref__",
        "__dict__",
        "__slots__",
        "__module__",
        "__doc__",
        "__qualname__",
        "as_subclass",
        "_make_subclass",
    )
)

# Properties whose value is a tensor, wrapped (torch dispatches every attribute; minitorch only
# these, so that metadata reads cost a subclass nothing)
_WRAPPED_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data", "grad")

def _is_operator(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _method_wrapper(name: str, func):
    operator = _is_operator(name)

    def method(*args, **kwargs):
        if dispatch_off():
            return func(*args, **kwargs)
        types = overloaded_types(args, kwargs)
        if not types:  # e.g. self opted out in a subclass of this class
            return func(*args, **kwargs)
        try:
            return dispatch(func, types, args, kwargs)
        except TypeError as e:
            if operator and str(e).startswith("Multiple dispatch failed"):
                return NotImplemented  # Python then raises its unsupported-operand TypeError
            raise

    method.__name__ = name
    method.__qualname__ = getattr(func, "__qualname__", name)
    method.__doc__ = func.__doc__
    method._subclass_wraps = func
    return method


def _property_wrapper(name: str, prop: property):
    getter = prop.__get__

    def get(self):
        if dispatch_off():
            return getter(self)
        return dispatch(getter, overloaded_types((self,)) or [type(self)], (self,), {})

    return property(get, prop.fset, prop.fdel, prop.__doc__)


_API = None


def _tensor_api() -> dict:
    """{name: Tensor's attribute} for what a dispatching subclass wraps, read once."""
    global _API
    if _API is None:
        api = {}
        for klass in reversed(Tensor.__mro__[:-1]):
            for name, value in vars(klass).items():
                if name in _NOT_WRAPPED:
                    continue
                if isinstance(value, property):
                    if name in _WRAPPED_PROPERTIES:
                        api[name] = value
                    else:
                        api.pop(name, None)
                elif callable(value) and not isinstance(value, (type, staticmethod, classmethod)):
                    if name.startswith("_") and not _is_operator(name):
                        api.pop(name, None)
                    else:
                        api[name] = value
                else:
                    api.pop(name, None)
        _API = api
    return _API


def _static_lookup(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _tf_func(cls):
    """The function behind cls's __torch_function__ (a classmethod's, a staticmethod's)."""
    tf = _static_lookup(cls, "__torch_function__")
    return getattr(tf, "__func__", tf)


def setup_subclass(cls) -> None:
    """Tensor.__init_subclass__: whether cls dispatches, and its wrappers when it does."""
    cls._dispatches = _tf_func(cls) is not _disabled_torch_function_impl
    if not cls._dispatches:
        return
    for name, original in _tensor_api().items():
        if _static_lookup(cls, name) is not original:
            continue  # defined by cls or a base below Tensor, or wrapped there already
        if isinstance(original, property):
            setattr(cls, name, _property_wrapper(name, original))
        else:
            setattr(cls, name, _method_wrapper(name, original))


# What torch's default __torch_function__ returns unconverted (get_default_nowrap_functions)
_NO_WRAP = frozenset((Tensor.grad.__get__, Tensor._base.__get__))
_DEFAULT = _tf_func(Tensor)
