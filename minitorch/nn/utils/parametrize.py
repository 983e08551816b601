"""nn.utils.parametrize: express a module's parameter or buffer as a function of other tensors."""

from __future__ import annotations

import copy
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager

from minitorch._tensor import Tensor
from minitorch.autograd.grad_mode import no_grad
from minitorch.nn.modules.container import ModuleDict, ModuleList
from minitorch.nn.modules.module import Module
from minitorch.nn.parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

# NOTE [ Parametrization cache ]
# Inside `cached()` the first access to a parametrized tensor stores its value under
# (id(module), tensor_name); later accesses reuse it until the outermost `cached()` exits.
_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached():
    """Caches parametrized tensors while the context is active. Mirrors
    torch.nn.utils.parametrize.cached."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(dest: Tensor, src: Tensor) -> None:
    # torch uses dest.set_(src): dest keeps its identity (optimizers still hold it) and takes
    # src's values, shape and memory.
    if dest is not src:
        dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the unconstrained tensor(s)
    they act on (`original`, or `original0`, `original1`... when right_inverse returns a
    sequence). Mirrors torch.nn.utils.parametrize.ParametrizationList."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # The unconstrained value(s): the right inverses applied last to first; a missing or
        # NotImplemented right_inverse counts as the identity.
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _set_in_place(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, item in enumerate(new):
                if not isinstance(item, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(item).__name__}."
                    )
                if isinstance(original, Parameter):
                    item = Parameter(item, original.requires_grad)
                item.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", item)

        if not self.unsafe:
            out = self()
            if not isinstance(out, Tensor):
                raise ValueError(
                    f"A parametrization must return a tensor. Got {type(out).__name__}."
                )
            if out.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {out.dtype}"
                )
            if out.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {out.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Sets the original tensor(s) so that the parametrized tensor equals `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _set_in_place(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(value).__name__}."
                )
            if len(value) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(value)}."
                )
            for i, item in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(item, Tensor):
                    raise ValueError(
                        "`right_inverse` must return a sequence of tensors. "
                        f"Got element {i} of type {type(item).__name__}"
                    )
                if item.dtype != original_i.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {item.dtype} "
                        f"while `original{i}` has dtype {original_i.dtype}"
                    )
                _set_in_place(original_i, item)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _deepcopy_module(self, memo):
    # The class's __getstate__ refuses pickling, so deepcopy needs its own path: copy the
    # instance dict (and any slots) into a fresh instance of the same class.
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module: Module) -> None:
    """Swaps module's class for a subclass of its own (one per module) that will carry one
    property per parametrized tensor."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_module
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        value = _cache.get(key)
        if value is None:
            value = parametrization()
            _cache[key] = value
        return value

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Makes `module.<tensor_name>` the output of `parametrization` applied to the unconstrained
    tensor(s) kept in `module.parametrizations[tensor_name]`. Mirrors
    torch.nn.utils.parametrize.register_parametrization."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_added_parametrization(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built first: it raises before the module is changed
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def _check_added_parametrization(module: Module, tensor_name: str, parametrization) -> None:
    # A parametrization stacked on another must map the tensor's space to itself, and so
    # must its right_inverse.
    current = getattr(module, tensor_name)
    out = parametrization(current)
    if not isinstance(out, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(out).__name__}.")
    if out.dtype != current.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {current.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {out.dtype}"
        )
    if out.shape != current.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {current.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {out.shape}"
        )
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        back = parametrization.right_inverse(out)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(back).__name__}"
        )
    if back.dtype != current.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {current.dtype}\n"
            f"returned dtype: {back.dtype}"
        )
    if back.shape != current.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape as "
            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {current.shape}\n"
            f"returned shape: {back.shape}"
        )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether module has any parametrization (or one on `tensor_name`). Mirrors
    torch.nn.utils.parametrize.is_parametrized."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def _refuse_set(original: Tensor, value: Tensor) -> None:
    """torch's error for leaving a value of another dtype in place: set_'s own for a plain
    tensor (a buffer), its tensor-subclass message (from set_'s) for a Parameter."""
    try:
        original.set_(value)
    except RuntimeError as e:
        if type(original) is Tensor:
            raise
        raise RuntimeError(
            "Calling remove_parametrizations() with leave_parametrized=True for a parameter "
            "that is an instance of a tensor subclass requires set_() to be implemented "
            "correctly for the tensor subclass.Alternatively, one can opt into the swap_tensors "
            "pathEither set leave_parametrized=False or provide a working implementationfor "
            "set_() in the tensor subclass or set "
            "torch.__future__.set_swap_module_params_on_conversion(True)."
        ) from e


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Removes the parametrizations on `tensor_name`, leaving either its current parametrized
    value or the original tensor as a plain parameter/buffer. Mirrors
    torch.nn.utils.parametrize.remove_parametrizations."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
                if value.dtype != original.dtype:  # (unsafe) torch's set_ refuses the change
                    _refuse_set(original, value)
                # keeps the tensor's identity, so an optimizer holding it stays valid
                _set_in_place(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        if value.requires_grad:
            original = Parameter(value.detach(), value.requires_grad)
        else:
            original = value.detach()
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations swapped it. Mirrors
    torch.nn.utils.parametrize.type_before_parametrizations."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Registers from_module's parametrizations (all, or those on `tensor_name`) on to_module
    and shares their original tensors. Mirrors
    torch.nn.utils.parametrize.transfer_parametrizations_and_params."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
