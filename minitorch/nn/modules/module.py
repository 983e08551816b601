"""Module: the base class of every layer; registries of parameters, buffers, submodules, hooks."""

from __future__ import annotations

import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import minitorch as _minitorch
import minitorch.__future__ as _future
from minitorch import _dtype
from minitorch._arg_errors import too_many_positional, unexpected_keyword
from minitorch._backend import Device, tensor_device
from minitorch._backend import device as as_device
from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules._hooks import (
    BackwardHook,
    RemovableHandle,
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_buffer_registration_hooks,
    _global_forward_hooks,
    _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs,
    _global_forward_pre_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    _global_state,
    _WrappedHook,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from minitorch.nn.parameter import Buffer, Parameter, is_lazy

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
# torch's text for "this should never happen" (its get/set_extra_state messages end with it)
_FILE_AN_ISSUE = (
    "Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
    "template=bug-report.yml to report this bug."
)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns. Mirrors torch's (same repr)."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, num_spaces: int) -> str:
    """Indents every line but the first (blank lines stay empty), as torch's module repr does."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    rest = [" " * num_spaces + line if line.strip() else "" for line in lines[1:]]
    return "\n".join([lines[0], *rest])


_typename = _minitorch.typename  # torch's messages name types as torch.typename does


def _forward_unimplemented(self, *input: Any) -> None:
    """The computation of every call; subclasses override it (call the module, not forward,
    so hooks run). Mirrors torch.nn.Module.forward."""
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


_TO_SIGNATURES = "".join(
    f" * ({first}bool non_blocking = False, bool copy = False, *, torch.memory_format "
    "memory_format = None)\n"
    for first in (
        "torch.device device = None, torch.dtype dtype = None, ",
        "torch.dtype dtype, ",
        "Tensor tensor, ",
    )
)


def _arg_type_name(a) -> str:
    if isinstance(a, Tensor):
        return "Tensor"
    if isinstance(a, (_dtype.dtype, Device, _minitorch.memory_format)):
        return "torch." + type(a).__name__.lower()
    return type(a).__name__


# NOTE [ Module.to's argument parsing ]
# torch parses Module.to's arguments with its C++ argument parser against three signatures
# (_TO_SIGNATURES), tried in order; the first that binds every argument with the right type wins:
#   (device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)
#   (dtype, non_blocking=False, copy=False, *, memory_format=None)
#   (tensor, non_blocking=False, copy=False, *, memory_format=None)
# A device is a torch.device, a str or an int; a dtype a torch.dtype or one of Python's number
# types (not complex: minitorch has none); a tensor a Tensor. When none binds, the error is the
# specific one of the only signature whose argument count fits (e.g. "argument 'device'
# (position 1) must be torch.device, not bool"), or else the list of all three signatures.
# torch's parser also takes a Python number as the tensor (a CPU scalar tensor: to(1.5) casts to
# float64); minitorch refuses it (see Module.to's docstring).

_TO_PARAMS = (
    (("device", "dtype", "non_blocking", "copy"), 0),
    (("dtype", "non_blocking", "copy"), 1),
    (("tensor", "non_blocking", "copy"), 1),
)
_TO_TYPE_NAMES = {
    "device": "torch.device",
    "dtype": "torch.dtype",
    "tensor": "Tensor",
    "non_blocking": "bool",
    "copy": "bool",
    "memory_format": "torch.memory_format",
}
_PY_NUMBER_TYPES = (bool, int, float)  # complex: minitorch has no complex dtype


def _to_arg_ok(name: str, value, sig: int) -> bool:
    if name == "device":
        return value is None or (
            isinstance(value, (str, Device, int)) and not isinstance(value, bool)
        )
    if name == "dtype":
        if value is None:
            return sig == 0
        return isinstance(value, _dtype.dtype) or value in _PY_NUMBER_TYPES
    if name == "tensor":
        return isinstance(value, Tensor)
    if name == "memory_format":
        return value is None or isinstance(value, _minitorch.memory_format)
    return isinstance(value, bool)  # non_blocking, copy


def _bind_to(sig: int, args, kwargs):
    """The arguments bound to signature `sig` by name, or (why, name, position) of the first
    argument it cannot take."""
    names, _ = _TO_PARAMS[sig]
    if len(args) > len(names):
        return ("count", None, None)
    bound = {}
    for i, (name, value) in enumerate(zip(names, args, strict=False)):
        if not _to_arg_ok(name, value, sig):
            return ("type", name, i + 1)
        bound[name] = value
    for name, value in kwargs.items():
        if name not in names and name != "memory_format":
            return ("unknown", name, None)
        if name in bound:
            return ("twice", name, names.index(name) + 1)
        if not _to_arg_ok(name, value, sig):
            return ("type", name, None)
        bound[name] = value
    if sig and names[0] not in bound:
        return ("missing", names[0], None)
    return bound


def _to_error(args, kwargs, failures) -> TypeError:
    """torch's error for a Module.to call that binds to no signature (see NOTE [ Module.to's
    argument parsing ])."""
    n = len(args) + len(kwargs)
    fits = [i for i, (names, least) in enumerate(_TO_PARAMS) if least <= n <= len(names) + 1]
    if len(fits) == 1:
        why, name, pos = failures[fits[0]]
        value = args[pos - 1] if why == "type" and pos else kwargs.get(name)
        if why == "type":
            at = f" (position {pos})" if pos else ""
            return TypeError(
                f"to(): argument '{name}'{at} must be {_TO_TYPE_NAMES[name]}, not "
                f"{_arg_type_name(value)}"
            )
        if why == "unknown":
            return unexpected_keyword("to", name)
        if why == "twice":
            return TypeError(f"to() got multiple values for argument '{name}'")
    pos = [_arg_type_name(a) for a in args]
    kws = [f"{k}={_arg_type_name(v)}" for k, v in reversed(kwargs.items())]
    got = ", ".join(pos + kws) if pos else "".join(k + ", " for k in kws)
    # torch explains a signature's keywords (all of them) when it is the only one taking that
    # many positional arguments
    room = [i for i, (names, _) in enumerate(_TO_PARAMS) if len(args) <= len(names)]
    lines = _TO_SIGNATURES.splitlines(keepends=True)
    if len(room) == 1 and kwargs:
        lines[room[0]] += (
            "      didn't match because some of the keywords were incorrect: "
            + ", ".join(reversed(kwargs))
            + "\n"
        )
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{''.join(lines)}"
    )


def _parse_to(args, kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's arguments, in all of
    Tensor.to's forms (see NOTE [ Module.to's argument parsing ])."""
    if len(args) > 4:
        raise too_many_positional("to", len(args), 4, 0)
    failures = []
    for sig in range(len(_TO_PARAMS)):
        bound = _bind_to(sig, args, kwargs)
        if isinstance(bound, dict):
            break
        failures.append(bound)
    else:
        raise _to_error(args, kwargs, failures)
    if "copy" in bound:  # torch's parser reads copy, then refuses it (a module is not copied)
        raise RuntimeError(".to() does not accept copy argument")
    device = bound.get("device")
    dt = bound.get("dtype")
    like = bound.get("tensor")
    if like is not None:
        device, dt = like.device, like.dtype
    if device is not None and not isinstance(device, Device):
        device = as_device(device)
    if dt is not None and not isinstance(dt, _dtype.dtype):
        dt = _dtype.to_dtype(dt, "to")
    return device, dt, bound.get("non_blocking", False), bound.get("memory_format")


class Module:
    """Base class for all neural network modules. Mirrors torch.nn.Module.

    Assigning a Parameter, a Module or (to a registered name) a Tensor as an attribute registers
    it in the ordered `_parameters`, `_modules` or `_buffers` dict; everything that walks a model
    (parameters(), state_dict(), to(), repr) reads those dicts in registration order.

    Differences from torch: no TorchScript, compile, DataParallel replication or meta tensors.
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__ skips Module.__setattr__, which needs these dicts to exist.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # --- registration ---

    def _check_name(self, name, kind: str, registry: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a buffer (state that is not a parameter, e.g. running statistics)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        for hook in _global_buffer_registration_hooks.values():
            out = hook(self, name, tensor)
            if out is not None:
                tensor = out
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or None, keeping the name) to the module."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter", self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param._grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        for hook in _global_parameter_registration_hooks.values():
            out = hook(self, name, param)
            if out is not None:
                param = out
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module, reachable as an attribute `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            out = hook(self, name, module)
            if out is not None:
                module = out
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for add_module."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path ('' is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replaces (or with strict=False, adds) the submodule at a dotted path."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at a dotted path."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at a dotted path."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self) -> Any:
        """Override (with set_extra_state) to save non-tensor state in the state_dict."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            + _FILE_AN_ISSUE
        )

    def set_extra_state(self, state: Any) -> None:
        """Override (with get_extra_state) to restore the state get_extra_state saved, when a
        state_dict is loaded. Mirrors torch.nn.Module.set_extra_state."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            + _FILE_AN_ISSUE
        )

    # --- attribute protocol ---
    # NOTE [ Module attribute registries ]
    # Parameters, buffers and submodules live only in their ordered dicts, never in __dict__, so
    # normal lookup misses them and __getattr__ finds them; __setattr__ routes by value type and
    # by which registry already holds the name, so `self.w = None` keeps `w` a (None) parameter.

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*registries):
            for r in registries:
                if name in r:
                    if isinstance(r, dict):
                        del r[name]
                    else:
                        r.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            for hook in _global_module_registration_hooks.values():
                out = hook(self, name, value)
                if out is not None:
                    value = out
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = [
            *dir(self.__class__),
            *self.__dict__,
            *self._parameters,
            *self._modules,
            *self._buffers,
        ]
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        self.__dict__.update(state)
        # A module pickled by torch may hold as a plain attribute what minitorch's class computes
        # as a property: the property hides that entry, so drop it
        # rather than keep a stale copy (see NOTE [ torch's classes in a whole pickled object ]
        # in minitorch/_serialization_unpickle.py).
        cls = type(self)
        for name in [k for k in state if isinstance(getattr(cls, k, None), property)]:
            del self.__dict__[name]
        # Modules pickled before a registry existed get an empty one.
        for name in (
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
            "_backward_pre_hooks",
        ):
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    # --- walking the tree ---

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and its descendants), each once, in registration order."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) pairs of this module and, with recurse, its descendants.
        Mirrors torch.nn.Module.named_parameters."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module (and, with recurse, its descendants), each once. Mirrors
        torch.nn.Module.buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """(dotted name, buffer) pairs of this module and, with recurse, its descendants.
        Mirrors torch.nn.Module.named_buffers."""
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def children(self) -> Iterator[Module]:
        """The direct submodules, each once. Mirrors torch.nn.Module.children."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, module) pairs of the direct submodules, each module once. Mirrors
        torch.nn.Module.named_children."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and all its descendants, depth first. Mirrors torch.nn.Module.modules."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        """(dotted name, module) for self and every descendant, depth first, each once."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # --- modes and gradients ---

    def train(self, mode: bool = True) -> Module:
        """Sets training mode (dropout, batch statistics) on this module and its descendants;
        returns self. Mirrors torch.nn.Module.train."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """train(False): evaluation mode. Mirrors torch.nn.Module.eval."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets requires_grad on every parameter (e.g. to freeze a part); returns self. Mirrors
        torch.nn.Module.requires_grad_."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the parameters' gradients: to None (default) or to zeros in place."""
        for p in self.parameters():
            g = p.grad  # warns for a non-leaf parameter (a MAML clone's), as torch's does
            if g is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if g._grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    # --- moving and casting ---

    # NOTE [ Module conversion flags ]
    # torch.__future__ holds two flags (minitorch/__future__.py) that change how a conversion
    # (_apply: .to(), .double(), .cuda(), ...) and load_state_dict treat parameters:
    # - neither (the default): `param.data = converted`, the Parameter object stays;
    #   load_state_dict copies in place, or with assign=True registers the checkpoint's tensors.
    # - overwrite: _apply registers a new Parameter (with a new .grad); the old one is untouched.
    # - swap (wins over overwrite): utils.swap_tensors moves the new values into the existing
    #   Parameter and .grad objects, so references held elsewhere (an optimizer) see the new
    #   dtype/device. load_state_dict asks each parameter and buffer for the value to swap in
    #   through Tensor.module_load(value, assign) (the extension point a subclass overrides)
    #   and swaps it into the existing object, with or without assign.
    # Buffers are always replaced by _apply, as in torch.

    def _apply(self, fn, recurse: bool = True) -> Module:
        """Applies `fn` to every parameter, gradient and buffer (e.g. a cast or device move).

        Parameters keep their identity by default: their data is replaced in place
        (`param.data = ...`), so an optimizer built before `model.to(...)` still holds the right
        tensors. Buffers are replaced by fn's result. The torch.__future__ flags change how
        parameters are converted: see NOTE [ Module conversion flags ].
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        swap = _future._swap_module_params_on_conversion
        overwrite = _future._overwrite_module_params_on_conversion
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            grad = param.grad  # warns for a non-leaf parameter, as torch's _apply does
            if swap:
                self._swap_applied(key, param, applied, grad, fn)
                continue
            # torch sets the data of a parameter in place only across compatible tensor types:
            # to or from the meta device makes a new Parameter (which unties tied weights)
            if overwrite or param.is_meta is not applied.is_meta:
                # a new Parameter (and a new grad): the old object keeps its dtype and device
                new_param = Parameter(applied, param.requires_grad)
                self._parameters[key] = new_param
                if grad is not None:
                    with no_grad():
                        grad_applied = fn(grad)
                    new_param.grad = grad_applied.requires_grad_(grad.requires_grad)
                continue
            param.data = applied
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def _swap_applied(self, key, param, applied, grad, fn) -> None:
        """_apply's swap path: the converted values move into the existing Parameter (and its
        existing .grad) objects, as torch.utils.swap_tensors does."""
        from minitorch.utils import swap_tensors

        try:
            if grad is not None:
                param.grad = None  # the grad is swapped on its own below, then put back
            swap_tensors(param, Parameter(applied, requires_grad=param.requires_grad))
        except Exception as e:
            if grad is not None:
                param.grad = grad
            raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
        if grad is None:
            return
        with no_grad():
            grad_applied = fn(grad)
        grad_applied.requires_grad_(grad.requires_grad)
        try:
            if grad_applied is not grad:  # fn returned grad itself: nothing to swap
                swap_tensors(grad, grad_applied)
        except Exception as e:
            raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}.grad") from e
        param.grad = grad

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls fn on every submodule (children first) and then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs) -> Module:
        """Moves and/or casts parameters and buffers. Mirrors torch.nn.Module.to.

        Integer tensors keep their dtype; only floating tensors are cast.

        Differences from torch: a Python number is not taken as the `tensor` argument (torch
        makes a CPU scalar tensor of it, so to(1.5) casts to float64); it raises TypeError.
        """
        device, dt, non_blocking, fmt = _parse_to(args, kwargs)
        if device is not None:
            # torch converts a module's tensors in place: 'cpu:0' keeps CPU tensors as they
            # are, where Tensor.to('cpu:0') would copy them (so the canonical device here)
            device = tensor_device(device)
        if dt is not None and not dt.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dt}"
            )

        def convert(t):
            # a memory format applies to the 4-d and 5-d tensors (conv weights), as in torch
            kw = {"memory_format": fmt} if fmt is not None and t.dim() in (4, 5) else {}
            try:
                return t.to(
                    device=device,
                    dtype=dt if t.is_floating_point() else None,
                    non_blocking=non_blocking,
                    **kw,
                )
            except NotImplementedError as e:
                from minitorch._backend.meta import NO_DATA

                if str(e) != NO_DATA:
                    raise
                raise NotImplementedError(  # torch's hint (NOTE [ The meta device ])
                    f"{NO_DATA} Please use torch.nn.Module.to_empty() instead of "
                    "torch.nn.Module.to() when moving module from meta to a different device."
                ) from None

        return self._apply(convert)

    def cuda(self, device=None) -> Module:
        """Moves parameters and buffers to the GPU, in place; returns self. Mirrors
        torch.nn.Module.cuda."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        """Moves parameters and buffers to the CPU, in place; returns self. Mirrors
        torch.nn.Module.cpu."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        """Casts every parameter and buffer to dst_type, in place; returns self. Mirrors
        torch.nn.Module.type."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        """Casts floating-point parameters and buffers to float32, in place; returns self.
        Mirrors torch.nn.Module.float."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        """Casts floating-point parameters and buffers to float64, in place; returns self.
        Mirrors torch.nn.Module.double."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        """Casts floating-point parameters and buffers to float16, in place; returns self.
        Mirrors torch.nn.Module.half."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Casts floating-point parameters and buffers to bfloat16, in place; returns self.
        Mirrors torch.nn.Module.bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Replaces parameters and buffers by uninitialised ones of the same shape on device
        (e.g. after building on the meta device); returns self. Mirrors
        torch.nn.Module.to_empty."""
        from minitorch._factories import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self) -> Module:
        """Moves parameters, their gradients and buffers into memory shared with forked
        children (Tensor.share_memory_). Mirrors torch.nn.Module.share_memory."""
        return self._apply(lambda t: t.share_memory_())

    def xpu(self, device=None) -> Module:
        """Moves parameters and buffers to an Intel XPU: minitorch has none, so it raises as a
        torch built without XPU does (a module holding no tensor is returned). Mirrors
        torch.nn.Module.xpu."""

        def no_xpu(t):
            raise AssertionError("Torch not compiled with XPU enabled")

        return self._apply(no_xpu)

    def compile(self, *args, **kwargs) -> None:
        """Compiles this module's calls in place with minitorch.compile (the same arguments);
        returns None. Mirrors torch.nn.Module.compile.

        Differences from torch: minitorch.compile compiles nothing, so the module keeps running
        eagerly; the arguments are still checked as torch.compile checks them."""
        from minitorch._misc_api import compile as compile_fn

        compile_fn(self._call_impl, *args, **kwargs)

    # --- hooks ---

    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs) ->
        None or (new_args, new_kwargs). Runs before forward."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) -> None
        or a new output. Runs after forward."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_output) -> None or new grad_output, when the gradients w.r.t. the
        module's outputs are computed."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(module, grad_input, grad_output) -> None or new grad_input, when the gradients
        w.r.t. the module's inputs are computed. See NOTE [ Module backward hooks ]."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated in torch: hook(module, grad_input, grad_output) on the output's grad_fn."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def _get_backward_hooks(self):
        full, non_full = [], []
        if _global_state.is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        if _global_state.is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # --- calling ---

    def _call_impl(self, *args, **kwargs):
        # See NOTE [ The per-op path ]: a module without hooks costs one check and one call.
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_pre_hooks
            or _global_forward_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            if kwargs:
                return self.forward(*args, **kwargs)
            return self.forward(*args)  # (no empty dict unpacked: most calls)
        called_always = set()
        # The output as the forward hooks have changed it so far: an always_call hook that runs
        # because a later hook raised sees it, as in torch.
        hooked = [None]
        try:
            args, kwargs = self._run_forward_pre_hooks(args, kwargs)
            full_hooks, non_full_hooks = [], []
            if self._backward_hooks or _global_backward_hooks:
                full_hooks, non_full_hooks = self._get_backward_hooks()
            pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                pre_hooks = self._get_backward_pre_hooks()
            bw_hook = None
            if full_hooks or pre_hooks:
                bw_hook = BackwardHook(self, full_hooks, pre_hooks)
                args = bw_hook.setup_input_hook(args)

            hooked[0] = self.forward(*args, **kwargs)
            result = self._run_forward_hooks(args, kwargs, hooked, called_always)

            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or a "
                        f"tuple of Tensors but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            if non_full_hooks:
                var = result
                while not isinstance(var, Tensor):
                    var = (
                        next(v for v in var.values() if isinstance(v, Tensor))
                        if isinstance(var, dict)
                        else var[0]
                    )
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    self._maybe_warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            self._run_always_called_hooks(args, kwargs, hooked[0], called_always)
            raise

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        """torch's FutureWarning for a deprecated non-full backward hook: it sees the grads of
        the output's one node, which are the module's only when the forward is that one node
        with the module's inputs as its next functions."""
        ending = " Please use register_full_backward_hook to get the documented behavior."
        outputs = (result,) if isinstance(result, Tensor) else result
        if not (isinstance(outputs, tuple) and all(isinstance(r, Tensor) for r in outputs)):
            msg = (
                "Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                "This hook will be missing some of the grad_output." + ending
            )
        elif not all(isinstance(i, Tensor) for i in inputs):
            msg = (
                "Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                "versions. This hook will be missing some of the grad_input." + ending
            )
        else:
            out_fns = {r.grad_fn for r in outputs if r.grad_fn is not None}
            if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
                msg = (
                    "Using a non-full backward hook when outputs are nested in python data "
                    "structure is deprecated and will be removed in future versions. This hook "
                    "will be missing some grad_output."
                )
            elif len(out_fns) > 1:
                msg = (
                    "Using a non-full backward hook when outputs are generated by different "
                    "autograd Nodes is deprecated and will be removed in future versions. This "
                    "hook will be missing some grad_output." + ending
                )
            elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {
                fn for fn, _ in grad_fn.next_functions
            }:
                msg = (
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    "be missing some grad_input." + ending
                )
            else:
                return
        # attributed to this line, as torch's to its module.py: shown once a process by default
        warnings.warn(msg, FutureWarning, stacklevel=1)

    def _run_forward_pre_hooks(self, args, kwargs):
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                out = hook(self, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {out}."
                        )
                    args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        return args, kwargs

    def _run_forward_hooks(self, args, kwargs, hooked, called_always):
        """The forward hooks on hooked[0], the output; each hook's replacement is stored back
        there before the next hook runs."""
        result = hooked[0]
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if (
                hook_id in self._forward_hooks_always_called
                or hook_id in _global_forward_hooks_always_called
            ):
                called_always.add(hook_id)
            if (
                hook_id in self._forward_hooks_with_kwargs
                or hook_id in _global_forward_hooks_with_kwargs
            ):
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = hooked[0] = out
        return result

    def _run_always_called_hooks(self, args, kwargs, result, called):
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            always = (
                hook_id in self._forward_hooks_always_called
                or hook_id in _global_forward_hooks_always_called
            )
            if not always or hook_id in called:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
            except Exception as e:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that was "
                    f"silenced as another error was raised in forward: {e}",
                    stacklevel=2,
                )

    __call__ = _call_impl

    # --- state dict ---

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """hook(module, prefix, keep_vars) runs before state_dict saves this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata) -> None, after state_dict."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False) -> RemovableHandle:
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None
        )
        return handle

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) runs before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """hook(module, incompatible_keys) runs after load_state_dict (may edit the lists)."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        """Writes this module's own parameters and persistent buffers (not its children's).
        Override to save extra entries (see BatchNorm)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer by dotted name (detached
        unless keep_vars), in registration order, children after their parent's own entries."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if out is not None:
                    destination = out
            elif out is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        """Loads this module's own entries (not its children's) from `state_dict`, recording
        problems in the lists. Override to accept older layouts (see BatchNorm)."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        swap = _future._swap_module_params_on_conversion  # NOTE [ Module conversion flags ]
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            # a placeholder (a lazy module's uninitialised parameter) has no shape to compare:
            # its module's load hook materialised it already if the checkpoint's value has one
            lazy = is_lazy(param)
            if not lazy and param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                value = value.reshape(())  # old checkpoints stored scalars as shape [1]
            if not lazy and value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            if swap:
                self._swap_loaded(key, param, value, assign, error_msgs)
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(value, Parameter):
                                value = Parameter(value, requires_grad=param.requires_grad)
                            else:
                                value.requires_grad_(param.requires_grad)
                        setattr(self, name, value)
                    else:
                        if param.is_meta and not value.is_meta:
                            warnings.warn(
                                f"for {key}: copying from a non-meta parameter in the checkpoint "
                                "to a meta parameter in the current model, which is a no-op. "
                                "(Did you mean to pass `assign=True` to assign items in the state "
                                "dictionary to their corresponding key in the module instead of "
                                "copying them in place?)",
                                stacklevel=2,
                            )
                        param.copy_(value)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{value.size()}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    parts = key[len(prefix) :].split(".", 1)
                    if len(parts) > 1:
                        if parts[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif parts[0] not in local_state:
                        unexpected_keys.append(key)

    def _swap_loaded(self, key, param, value, assign, error_msgs) -> None:
        """_load_from_state_dict's swap path (NOTE [ Module conversion flags ]): the value
        param.module_load gives for the checkpoint's tensor is swapped into param itself."""
        from minitorch.utils import swap_tensors

        try:
            with no_grad():
                loaded = param.module_load(value, assign=assign)
                if loaded is value or loaded is param:
                    # swapping one of them would leave the other (a checkpoint tensor, or the
                    # module's own) holding the old contents
                    raise RuntimeError(
                        "module_load returned one of self or other, please .detach() the "
                        "result if returning one of the inputs in module_load"
                    )
                if isinstance(param, Parameter):
                    if not isinstance(loaded, Parameter):
                        loaded = Parameter(loaded, requires_grad=param.requires_grad)
                    else:
                        loaded.requires_grad_(param.requires_grad)
                swap_tensors(param, loaded)
        except Exception as ex:
            error_msgs.append(
                f'While swapping the parameter named "{key}", whose dimensions in the model '
                f"are {param.size()} and whose dimensions in the checkpoint are "
                f"{value.size()}, an exception occurred : {ex.args}."
            )

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copies parameters and buffers from `state_dict` into this module (in place, unless
        assign=True). strict=True raises listing missing and unexpected keys; shape mismatches
        always raise. Returns (missing_keys, unexpected_keys). Mirrors torch."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be modified, "
                        "it should be done inplace."
                    )

        try:
            load(self, state_dict)
        finally:
            load = None  # the nested function reaches itself through its cell: a cycle otherwise
        if strict:
            if unexpected_keys:
                keys = ", ".join(f'"{k}"' for k in unexpected_keys)
                error_msgs.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing_keys:
                keys = ", ".join(f'"{k}"' for k in missing_keys)
                error_msgs.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if error_msgs:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(error_msgs)
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # --- printing ---

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in repr; override it in layers."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"
