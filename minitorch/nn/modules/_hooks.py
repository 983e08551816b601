"""Module hook machinery: removable handles, global hooks, and full backward hooks via autograd."""

from __future__ import annotations

import functools
import warnings
import weakref
from collections import OrderedDict

from minitorch._tensor import Tensor, _make
from minitorch.autograd.engine import _check_hook_result
from minitorch.autograd.function import Function, RemovableHandle
from minitorch.autograd.grad_mode import state as _grad_state

__all__ = [
    "RemovableHandle",
    "BackwardHook",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_backward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_buffer_registration_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
]


class _WrappedHook:
    """A hook called with its module prepended (held weakly, so a hook keeps no module alive)."""

    def __init__(self, hook, module=None) -> None:
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        state = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            state["module"] = self.module()
        return state

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# --- global hooks: run for every module (debugging, profiling) ---

_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()


class _GlobalState:
    is_full_backward_hook: bool | None = None


_global_state = _GlobalState()


def _register(hooks: OrderedDict, hook, **extra) -> RemovableHandle:
    handle = RemovableHandle(hooks, extra_dict=list(extra.values()) or None)
    hooks[handle.id] = hook
    return handle


def register_module_buffer_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, buffer) -> None or a replacement, for every register_buffer."""
    return _register(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, submodule) -> None or a replacement, for every submodule added."""
    return _register(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook) -> RemovableHandle:
    """hook(module, name, param) -> None or a replacement, for every register_parameter."""
    return _register(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook run for every module, before its own."""
    return _register(_global_forward_pre_hooks, hook)


def register_module_forward_hook(
    hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """A forward hook run for every module, before its own."""
    handle = RemovableHandle(
        _global_forward_hooks,
        extra_dict=[_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs],
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _check_backward_kind(full: bool):
    if _global_state.is_full_backward_hook is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_state.is_full_backward_hook = full


def register_module_backward_hook(hook) -> RemovableHandle:
    """The deprecated non-full backward hook, for every module."""
    _check_backward_kind(False)
    return _register(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A full backward pre-hook run for every module."""
    return _register(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A full backward hook run for every module."""
    _check_backward_kind(True)
    return _register(_global_backward_hooks, hook)


# --- full backward hooks ---
# NOTE [ Module backward hooks ]
# A module has no node of its own in the graph, so `__call__` brackets its forward with two
# identity nodes (BackwardHookFunction): one on the inputs that require grad, one on the outputs.
# In backward the output node runs first: it records grad_output and runs the backward pre-hooks
# (which may replace it). The input node runs once every gradient w.r.t. the inputs is summed:
# it calls hook(module, grad_input, grad_output) (which may replace grad_input). Inputs that do
# not require grad are not routed through the node and show up as None in grad_input. When no
# input requires grad, the hooks run from the output node with grad_input all None.
# As in torch, the node's outputs are its inputs returned as-is, so they are views made by a
# custom Function (See NOTE [ Views made by custom Functions ]): changing one in place (a
# ReLU(inplace=True) after a hooked conv, `out += identity` after a hooked bn) raises; cloning
# first does not. And like the hooks of torch's node, what the module's hooks return must keep
# each gradient's dtype, device and shape (the engine's tensor-hook checks, named 'hook' as
# torch names its wrapper).


class BackwardHookFunction(Function):
    """out_i = a_i;  grad_a_i = grad_i after the module's backward (pre-)hooks ran"""

    _node_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx, *tensors, hook, side):
        # As in torch, the pre-hooks see None for an output that got no gradient, the hooks see
        # zeros for an input that got none.
        ctx.set_materialize_grads(side == "input")
        ctx.hook = hook
        ctx.side = side
        return tensors  # as-is: views of the inputs, as in torch

    @staticmethod
    def backward(ctx, *grads):
        if ctx.side == "output":
            return ctx.hook._on_grad_outputs(grads)
        return ctx.hook._on_grad_inputs(grads)


# Not a built-in op: its forward returns its Tensor inputs (made views by Function.apply, as a
# user Function's are) and its node is a custom Function's, as torch's
# BackwardHookFunctionBackward is.
BackwardHookFunction._builtin = False


def _node_hook(*_):
    """Stands for torch's wrapper of the module's hooks, whose name its checks print."""


_node_hook.__name__ = "hook"


def _check_hook_grads(old, new) -> None:
    """The module's hooks replaced the gradients `old` by `new`: each keeps its type, device and
    size, checked as a tensor hook's result (torch checks its node hooks' results so)."""
    for o, n in zip(old, new, strict=True):
        if o is not None and n is not None:
            _check_hook_result(_node_hook, o, n)


class BackwardHook:
    """The per-call state linking a module's input and output nodes. Mirrors
    torch.utils.hooks.BackwardHook. See NOTE [ Module backward hooks ]."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = -1
        self.n_outputs = -1
        self.input_tensors_index = None
        self.output_tensors_index = None
        self._constant_inputs = ()  # (position, tensor) of tensor inputs that need no grad

    def _wrap(self, args, side):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad]
        if not index or not _grad_state.enabled:
            return args, None
        wrapped = BackwardHookFunction.apply(*(args[i] for i in index), hook=self, side=side)
        out = list(args)
        for i, t in zip(index, wrapped, strict=True):
            out[i] = t
        # A namedtuple output stays one (torch rebuilds it with its type).
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index

    def setup_input_hook(self, args):
        result, self.input_tensors_index = self._wrap(args, "input")
        if self.input_tensors_index is not None:
            self._constant_inputs = tuple(
                (i, a)
                for i, a in enumerate(args)
                if isinstance(a, Tensor) and i not in self.input_tensors_index
            )
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        outs = result if is_tuple else (result,)
        wrapped, self.output_tensors_index = self._wrap(outs, "output")
        self.n_outputs = len(outs)
        return wrapped if is_tuple else wrapped[0]

    @staticmethod
    def _pack_with_none(index, values, size):
        res = [None] * size
        for i, v in zip(index, values, strict=True):
            res[i] = v
        return tuple(res)

    def _on_grad_outputs(self, grads):
        given = self.grad_outputs = self._pack_with_none(
            self.output_tensors_index, grads, self.n_outputs
        )
        expected = len(given)
        for user_hook in self.user_pre_hooks:
            out = user_hook(self.module, self.grad_outputs)
            if out is None:
                continue
            if len(out) != expected:
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(out)}, but expected {expected}"
                )
            self.grad_outputs = tuple(out)
        local = self.grad_outputs
        if self.input_tensors_index is None:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module "
                "outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                stacklevel=5,
            )
            grad_inputs = (None,) * self.n_inputs
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        if local is not given:
            _check_hook_grads(given, local)
        # torch's hook replaces what its node returned: what the pre-hooks left None (an
        # unused output, or a None a pre-hook returned) stays None, so no gradient flows on
        # into the module along it (its parameters that only it reaches keep grad None). With
        # all None, the engine still runs the module's nodes (NOTE [ Nodes no gradient
        # reached ]): the input node's hooks see zeros.
        return tuple(local[i] for i in self.output_tensors_index)

    def _on_grad_inputs(self, grads):
        if self.grad_outputs is None:
            return grads
        res = list(self._pack_with_none(self.input_tensors_index, grads, self.n_inputs))
        for i, a in self._constant_inputs:  # torch passes them zeros, as the gradient of a constant
            res[i] = _make(a._device.backend.xp.zeros_like(a._data), a._device, False, None)
        given = res = tuple(res)
        for user_hook in self.user_hooks:
            out = user_hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(out)}, but expected {len(res)}"
                )
            res = out
        self.grad_outputs = None
        if res is not given:
            _check_hook_grads(given, res)
        return tuple(res[i] for i in self.input_tensors_index)
