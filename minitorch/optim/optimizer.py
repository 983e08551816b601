"""Optimizer: torch's data model (param_groups + per-parameter state), state dicts, step hooks."""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import minitorch
from minitorch import _dtype
from minitorch._backend import cpu as _CPU
from minitorch._tensor import Tensor
from minitorch.autograd.function import fast_path
from minitorch.autograd.grad_mode import enable_grad, set_grad_enabled
from minitorch.autograd.grad_mode import state as grad_state
from minitorch.autograd.profiler import record_function
from minitorch.nn.modules._hooks import RemovableHandle
from minitorch.nn.parameter import Parameter as _Parameter

# What an optimizer's `params` may be (custom optimizers annotate with it, as torch's)
ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]
StateDict = dict[str, Any]  # the annotations torch's optimizers (and copies of them) use
Args = tuple[Any, ...]
Kwargs = dict[str, Any]

__all__ = [
    "Optimizer",
    "ParamsT",
    "required",
    "register_optimizer_step_pre_hook",
    "register_optimizer_step_post_hook",
]


class _RequiredParameter:
    """Singleton for a hyperparameter a param group must give (no default)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()

_global_pre_hooks: OrderedDict = OrderedDict()
_global_post_hooks: OrderedDict = OrderedDict()
# (torch's names for them, which code that inspects or clears the global hooks reads)
_global_optimizer_pre_hooks = _global_pre_hooks
_global_optimizer_post_hooks = _global_post_hooks


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """hook(optimizer, args, kwargs) before every optimizer's step. Mirrors
    torch.optim.optimizer.register_optimizer_step_pre_hook."""
    handle = RemovableHandle(_global_pre_hooks)
    _global_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """hook(optimizer, args, kwargs) after every optimizer's step."""
    handle = RemovableHandle(_global_post_hooks)
    _global_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(step):
    """Runs a built-in optimizer's step under no_grad, or with grad enabled when the optimizer
    was built with differentiable=True. Mirrors torch's decorator of the same name."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)

    return wrapper


def _hooked_step(func):
    """Wraps every subclass's `step` (as torch patches it): step pre-hooks, the step, step
    post-hooks. As in torch, hooks receive `args` with the optimizer itself first. A step
    that calls super().step() runs the hooks once (the outermost call)."""

    @functools.wraps(func)
    def step(*args, **kwargs):
        self = args[0]
        if self.__dict__.get("_in_step") or "_optimizer_step_pre_hooks" not in self.__dict__:
            # (a wrapper that never ran Optimizer.__init__, Lookahead-style: torch patches
            # `step` in __init__, so such a class has no hooks there either; its LR scheduler
            # still sees the call, as torch's patches the instance's step)
            self._opt_called = True
            return func(*args, **kwargs)
        self._in_step = True
        try:
            # the profiler's range for the step, hooks included, as torch names it
            with record_function(f"Optimizer.step#{type(self).__name__}.step"):
                return _run_with_hooks(self, func, args, kwargs)
        finally:
            self._in_step = False

    step._hooked = True
    return step


def _run_with_hooks(self, func, args, kwargs):
    for hook in chain(_global_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                    f"{result}."
                )
            args, kwargs = result
    self._opt_called = True  # read by LRScheduler's call-order warning
    out = func(*args, **kwargs)
    for hook in chain(self._optimizer_step_post_hooks.values(), _global_post_hooks.values()):
        hook(self, args, kwargs)
    return out


# NOTE [ Optimizer scalars stay off the device ]
# `step` never reads a device value back to the host (no .item()/float()/bool() of a device
# tensor). The step count and the other scalar state (`state["step"]`, NAdam's `mu_product`)
# are 0-d tensors on the CPU, float32 (float64 under a float64 default dtype), as torch keeps
# them: they are the host-side count, read for free, and the bias corrections are Python
# numbers computed from them. A tensor `lr` is read the same way (see _scalar). ASGD, whose
# `eta`/`mu`/`step` torch keeps on the parameter's device, updates them with tensor math
# instead. LBFGS and ReduceLROnPlateau read the loss on the host by design, as in torch.

# NOTE [ Updates through the in-place fast path ]
# With no graph recorded, add_/sub_/mul_/div_ (also with `alpha`) with a same-dtype tensor or a
# number write straight into the array, and lerp_/addcmul_/addcdiv_ compute their result once
# and copy it in (inplace.fast_ternary), skipping the general in-place machinery. torch's CPU
# kernels round a + alpha * b (add_/sub_ with alpha), x + (v * a) * b (addcmul_) and lerp_
# once, as fused multiply-adds (NOTE [ Fused multiply-adds ] in minitorch/_ops/_common.py);
# addcdiv_ is x + (v * a) / b with no fused step. So each update is spelt with torch's own ops
# (p.add_(g, alpha=-lr), not p.sub_(g.mul(lr)); v.addcmul_(g, g, value=c), not
# v.add_(g.mul(g).mul_(c))): an unfused spelling moves 10-30% of the elements an ulp off
# torch's at every step. p.addcdiv_(m, d, value=-s) may be spelt p.add_(m.mul(-s).div_(d)):
# the same roundings, one copy fewer.


# NOTE [ Differentiable optimizer steps ]
# With differentiable=True, step() runs with grad mode on (see _use_grad_for_differentiable), so
# the update is recorded and one can backprop through steps (hypergradients, meta-learning).
# The default updates (NOTE [ Updates through the in-place fast path ]) write in place into
# tensors that a backward saves (sqrt's output, a moment a division saved last step) and
# read tensor hyperparameters as numbers; so each optimizer takes torch's own formulas for
# that mode on a separate branch: out-of-place where torch is, clones where torch clones
# (a moment before the parameter update saves it), and a tensor hyperparameter that requires
# grad kept as a tensor where torch keeps it (_keep_grad) -- or a TypeError where torch
# takes it as a Number (_scalar's `arg`). Adam's, NAdam's and RAdam's lr stays a tensor even
# without grad, as torch's: their step sizes then round in its dtype, not the step count's.
# Where torch's own formulas save a tensor that the next step changes in place (AMSGrad's
# maximum, Adamax, a centered RMSprop), backward through several steps raises here as it does
# in torch. The default path is unchanged.


class Optimizer:
    """Base class of all optimizers. Mirrors torch.optim.Optimizer.

    `param_groups` is a list of dicts, each holding its `params` and every hyperparameter
    (the group's own values merged over `defaults`); `state` maps a parameter to its dict of
    optimizer state. Hyperparameters may be changed in `param_groups` between steps (that is
    how the LR schedulers work). Subclasses implement `step` (the built-in ones run it under
    `no_grad`, see _use_grad_for_differentiable).
    """

    # NOTE [ Loading old checkpoints ]
    # State dicts (and pickled optimizers) from older torch releases lack the param-group keys
    # added since, and keep scalar state (`step`, ...) as Python numbers. As each torch
    # optimizer's __setstate__ does, loading fills each group's missing keys from
    # `_group_setdefaults` (torch's values, in torch's order) and turns the `_scalar_state`
    # entries into 0-d tensors of torch's scalar dtype, on the CPU, or on the parameter's
    # device where `_scalar_state_on_param_device` is True or names a group flag that is set
    # (`capturable`, `fused`; a fused group's are float32). Keys torch does not fill in stay
    # missing. Like torch's, the conversion reads each of those keys of a parameter's
    # non-empty state by indexing: a state without one (another optimizer's state dict, SGD's
    # loaded into Adam) raises KeyError in load_state_dict, not at the next step.
    _group_setdefaults: dict[str, Any] = {}
    _scalar_state: tuple[str, ...] = ()
    _scalar_state_on_param_device: bool | tuple[str, ...] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _hooked_step(step)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + minitorch.typename(params)
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        # as torch's: the health check's warn-once flag starts set, so only an optimizer
        # unpickled (its state lacks the flag) can give that warning
        self._warned_capturable_if_run_uncaptured = True

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        # See NOTE [ Loading old checkpoints ]
        for group in self.param_groups:
            for key, value in self._group_setdefaults.items():
                group.setdefault(key, value)
            if not self._scalar_state:
                continue
            for p in group["params"]:
                p_state = self.state.get(p)
                if p_state:
                    self._scalar_state_to_tensors(p, p_state, group)

    def _scalar_state_to_tensors(self, p: Tensor, p_state: dict[str, Any], group) -> None:
        """Turns the scalar state an older release saved as Python numbers into 0-d tensors
        (a missing key: KeyError, as torch's; see NOTE [ Loading old checkpoints ])."""
        where = self._scalar_state_on_param_device
        if where is True or (where and any(group.get(flag) for flag in where)):
            device, dt = p.device, _scalar_dtype(fused=bool(group.get("fused")))
        else:
            device, dt = "cpu", _scalar_dtype()
        for key in self._scalar_state:
            value = p_state[key]
            if not isinstance(value, Tensor):
                # torch converts the step with float() (its TypeError for None), the rest as
                # given to tensor()
                value = float(value) if key == "step" else value
                p_state[key] = minitorch.tensor(value, dtype=dt, device=device)

    def __repr__(self) -> str:
        out = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            out += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    out += f"    {key}: {group[key]}\n"
        return out + ")"

    # --- param groups ---

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own hyperparameters. Mirrors
        torch.optim.Optimizer.add_param_group."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        tensors, names = [], []
        for param in params:  # (name, tensor) pairs, as named_parameters() gives
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + minitorch.typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen: set[int] = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    f"group {which} to the optimizer"
                )
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # --- gradients and stepping ---

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all optimized tensors: None by default, else zeros.
        Mirrors torch.optim.Optimizer.zero_grad."""
        with record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            for group in self.param_groups:
                if set_to_none:
                    _grads_to_none(group["params"])
                    continue
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    @_hooked_step  # (a subclass without a step runs the hooks, then raises, as torch's)
    def step(self, closure=None):
        """Performs one optimization step. Mirrors torch.optim.Optimizer.step."""
        raise NotImplementedError

    # torch's name for the wrapper that runs the step hooks around a step function
    profile_hook_step = staticmethod(_hooked_step)

    def _patch_step_function(self) -> None:
        """Wraps the class's step with the step hooks where it is not wrapped yet: one
        assigned to the class after it was defined (__init_subclass__ wraps the others).
        torch patches here, from __init__ and __setstate__. Mirrors
        torch.optim.Optimizer._patch_step_function."""
        cls = type(self)
        if not getattr(cls.step, "_hooked", False):
            cls.step = _hooked_step(cls.step)

    def _accelerator_graph_capture_health_check(self) -> None:
        """The check torch's optimizers make at the start of step() (and copies of their code
        call): a step under CUDA-graph capture needs capturable param groups; a capturable one
        run without capture warns once, where the flag __init__ sets is missing (an unpickled
        optimizer). Mirrors torch.optim.Optimizer's method of that name (minitorch never
        captures, so on a GPU it is the warning only; nothing without one)."""
        accelerator = minitorch.accelerator.current_accelerator(check_available=True)
        if accelerator is None:
            return
        # (torch reads group["capturable"] only when the flag is missing: a KeyError there for
        # an optimizer without that hyperparameter, as torch's)
        if not getattr(self, "_warned_capturable_if_run_uncaptured", False) and all(
            group["capturable"] for group in self.param_groups
        ):
            kind = accelerator.type.upper()
            warnings.warn(
                "This instance was constructed with capturable=True or some of all the "
                "param_groups came with capturable=True, but step() is running without "
                f"{kind} graph capture. If you never intend to graph-capture this instance, "
                "capturable=True can impair performance, and you should set capturable=False.",
                stacklevel=2,
            )
            self._warned_capturable_if_run_uncaptured = True

    def _cuda_graph_capture_health_check(self) -> None:
        """The older name of _accelerator_graph_capture_health_check, which torch keeps for
        callers (copies of its optimizers) with a DeprecationWarning on each call."""
        warnings.warn(
            "Use _accelerator_graph_capture_health_check instead", DeprecationWarning, stacklevel=2
        )
        self._accelerator_graph_capture_health_check()

    def _optimizer_step_code(self) -> None:
        """torch's entry point for its profiler, called after step(); nothing here."""

    @staticmethod
    def _group_tensors_by_device_and_dtype(tensorlistlist, with_indices: bool = False):
        """{(device, dtype): (tensorlistlist's lists cut to that group, indices)}: the
        positions of the first list grouped by its tensors' device and dtype, the other
        lists (which may hold None, or be empty) cut at the same positions; `indices` lists
        the positions only with_indices. Copies of torch's multi-tensor optimizers call it.
        Mirrors torch.optim.Optimizer._group_tensors_by_device_and_dtype.

        Differences from torch: the groups come in the order first seen (torch's order is
        unspecified)."""
        first = tensorlistlist[0]
        groups: dict = {}
        for i, t in enumerate(first):
            if t is None:
                raise RuntimeError(
                    "Tensors of the first list of nested Tensor lists are supposed to be "
                    f"defined but the {i}-th Tensor is not."
                )
            lists, indices = groups.setdefault(
                (t.device, t.dtype), ([[] for _ in tensorlistlist], [])
            )
            for out, tensors in zip(lists, tensorlistlist, strict=True):
                if len(tensors):
                    out.append(tensors[i])
            if with_indices:
                indices.append(i)
        return groups

    # --- hooks ---

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs), before step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """hook(optimizer, args, kwargs) -> None, after step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) before state_dict()."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> state_dict or None, after state_dict()."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer, state_dict) -> state_dict or None, before load_state_dict()."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """hook(optimizer) after load_state_dict()."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # --- state dicts ---

    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: {...}}, 'param_groups': [{hyperparameters..., 'params': [index]}]}.

        Parameters are numbered in group order. As in torch, the state tensors are the live
        ones, not copies. Mirrors torch.optim.Optimizer.state_dict."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            # (as torch's: a parameter listed twice in one group takes its last position
            # there; one already numbered by an earlier group keeps that number)
            mapping = {id(p): i for i, p in enumerate(group["params"], start)}
            for key, i in mapping.items():
                index.setdefault(key, i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(
        param: Tensor, value: Tensor, param_id, param_groups, key=None
    ) -> Tensor:
        """A loaded state tensor for `param`: the `step` count kept as saved, or made float32
        on the parameter's device where the parameter's loaded group is fused or capturable;
        any other tensor moved to the parameter's device (and cast to its dtype when that is
        floating). Mirrors torch.optim.Optimizer's static method of that name."""
        if param_groups is None:
            raise AssertionError("Expected param_groups to be set")
        fused = capturable = False
        for group in param_groups:
            if param_id in group["params"]:
                fused = group.get("fused", False)
                capturable = group.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_dtype.float32, device=param.device)
            return value
        if param.dtype.is_floating_point:
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state_dict() (ours or torch's layout): hyperparameters and per-parameter
        state, tensors moved to each parameter's device (and float ones to its dtype; the
        `step` count is kept as saved, or made float32 in a fused or capturable group, see
        _process_value_according_to_param_policy). A checkpoint from an older release gets torch's
        defaults for missing group keys and tensors for number state (NOTE [ Loading old
        checkpoints ]). Mirrors torch.optim.Optimizer.load_state_dict."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v, k, state_dict["param_groups"])
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)


def _grads_to_none(params) -> None:
    """p.grad = None for each parameter that has a gradient (zero_grad's default). A Tensor or
    Parameter, whose `grad` property is Tensor's, has its slot read and cleared directly (two
    Python calls fewer per parameter: 100 parameters 9.7 -> 2.8 us); a leaf without a gradient
    is skipped as the property would skip it, and a non-leaf still reads the property, which
    warns there."""
    for p in params:
        cls = p.__class__
        if cls is Tensor or cls is _Parameter:
            if p._grad is not None:
                p._grad = None
                continue
            if p._grad_fn is None:
                continue
        if p.grad is not None:
            p.grad = None


def _add_hook(hooks: OrderedDict, hook, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _cast_state(param: Tensor, value, param_id, param_groups, key=None):
    """A loaded state value for `param` (numbered `param_id` in the loaded `param_groups`):
    tensors as Optimizer._process_value_according_to_param_policy casts them; containers
    rebuilt around their cast items."""
    if isinstance(value, Tensor):
        return Optimizer._process_value_according_to_param_policy(
            param, value, param_id, param_groups, key
        )
    if isinstance(value, dict):
        return {k: _cast_state(param, v, param_id, param_groups, k) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return type(value)(_cast_state(param, v, param_id, param_groups) for v in value)
    return value


# --- helpers the optimizers share ---


def _init_states(optimizer, group, init) -> None:
    """init(p, state, group) for each of the group's parameters with a gradient and no state
    yet, before the step checks its flags or updates anything: torch's _init_group creates the
    whole group's state first, so a step that then raises (foreach=True with differentiable=True,
    capturable=True on the CPU, an in-place update of a leaf in a differentiable step) leaves
    the state created, as here."""
    state = optimizer.state
    for p in group["params"]:
        if p.grad is not None and not state[p]:
            init(p, state[p], group)


def _params_with_grad(group):
    """(param, grad) for the group's parameters that have a gradient; `maximize` negates."""
    maximize = group.get("maximize", False)
    for p in group["params"]:
        grad = p.grad
        if grad is not None:
            yield p, (-grad if maximize else grad)


def _closure_loss(closure):
    """The closure's loss, evaluated with grad enabled (step itself runs under no_grad)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _scalar(x, arg: str | None = None):
    """A hyperparameter as a Python number. A tensor `lr` is read on the host: free for a CPU
    tensor (the usual case); a device tensor costs one read per group per step, as torch's
    non-capturable kernels, which take the lr as a Scalar, also pay.

    `arg` names the torch argument that takes the value as a Number ("addcdiv_(): argument
    'value'"): in a differentiable step a tensor that requires grad cannot become a number
    without losing its gradient, and torch raises TypeError there. See NOTE [ Differentiable
    optimizer steps ]."""
    if isinstance(x, Tensor):
        if arg is not None and x.requires_grad and grad_state.enabled:
            raise TypeError(f"{arg} must be Number, not Tensor")
        return x.item()
    return x


# NOTE [ A tensor lr rounds in its own dtype ]
# torch's default (single-tensor) steps keep a tensor `lr` a tensor, so the numbers derived
# from it -- lr / bias_correction, 1 - lr * weight_decay, NAdam's and Adamax's step sizes,
# ASGD's eta, Adafactor's alpha -- are 0-d tensors of lr's dtype (float32 for
# torch.tensor(0.01)), rounded there before they scale a float64 parameter. _lr_operand gives
# such an lr as a 0-d CPU tensor, read once per group as _scalar reads it (no further host
# read, whatever its device), so the expressions written for a Python lr round as torch's;
# _scalar then reads each result. A Python lr takes the same expressions unchanged. Adam's
# tensor betas are read the same way (1 - beta1, beta2 ** step round in the betas' dtype).


def _lr_operand(lr):
    """lr for the step's scalar arithmetic: a number as is, a tensor as a 0-d CPU tensor of its
    dtype. See NOTE [ A tensor lr rounds in its own dtype ]."""
    if isinstance(lr, Tensor):
        return lr.detach().reshape(()).cpu()
    return lr


def _keep_grad(x):
    """A hyperparameter for an update that carries its gradient: a tensor that requires grad,
    in a differentiable step, stays a tensor; anything else is read as _scalar does. See NOTE
    [ Differentiable optimizer steps ]."""
    if isinstance(x, Tensor):
        return x if x.requires_grad and grad_state.enabled else x.item()
    return x


def _requires_grad(x) -> bool:
    return isinstance(x, Tensor) and x.requires_grad


# The device types torch's capturable optimizers accept (its AssertionError lists them)
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def _check_capturable(group, what: str = "params and state_steps", xla: bool = True) -> None:
    """capturable=True (steps for CUDA-graph capture) on CPU parameters: torch asserts at step()
    that the stepped parameters are on a device. Any non-CPU device passes here (the strict
    test device stands in for CUDA)."""
    for p in group["params"]:
        if p.grad is not None and p.device.type == "cpu":
            devices = _CAPTURABLE_DEVICES if xla else _CAPTURABLE_DEVICES[:-1]
            raise AssertionError(
                f"If capturable=True, {what} must be on supported devices: {devices}."
            )


def _check_foreach_step(
    group, order: tuple[str, ...], what: str = "params and state_steps", xla: bool = False
) -> None:
    """A group with foreach=True: the checks torch's multi-tensor step makes before updating,
    in that optimizer's order. "differentiable": its kernels record no graph (AssertionError);
    "empty": a group with no gradient returns early, skipping the checks after it;
    "tensor_hparams": Adam's refusal of a tensor lr/beta (from a param group) without
    capturable; "capturable": the device assertion, whose list of devices on this path names
    'xla' for RMSprop and Rprop only (`xla`). minitorch then takes its one update loop."""
    for check in order:
        if check == "empty":
            if all(p.grad is None for p in group["params"]):
                return
        elif check == "differentiable":
            if group["differentiable"]:
                raise AssertionError("_foreach ops don't support autograd")
        elif check == "tensor_hparams":
            if group["capturable"]:
                continue
            if isinstance(group["lr"], Tensor):
                raise RuntimeError(
                    "lr as a Tensor is not supported for capturable=False and foreach=True"
                )
            for i, beta in enumerate(group["betas"]):
                if isinstance(beta, Tensor):
                    raise ValueError(
                        f"beta{i + 1} as a Tensor is not supported for capturable=False and "
                        "foreach=True"
                    )
        elif group["capturable"]:
            _check_capturable(group, what, xla)


def _scalar_dtype(fused: bool = False):
    """The dtype of scalar optimizer state: float64 under a float64 default dtype, else
    float32; always float32 for fused=True, whose kernels read the step as a float.
    Mirrors torch.optim.optimizer._get_scalar_dtype."""
    if fused:
        return _dtype.float32
    return _dtype.float64 if minitorch.get_default_dtype() == _dtype.float64 else _dtype.float32


def _new_step(value: float = 0.0, fused: bool = False) -> Tensor:
    """A 0-d CPU tensor of _scalar_dtype(fused): how torch keeps the step count (see NOTE
    [ Optimizer scalars stay off the device ])."""
    return minitorch.full((), value, dtype=_scalar_dtype(fused), device="cpu")


def _with_decay(grad: Tensor, p: Tensor, weight_decay) -> Tensor:
    """grad + weight_decay * p, a new tensor: torch's grad.add(p, alpha=weight_decay), rounded
    once (NOTE [ Updates through the in-place fast path ]); a tensor weight_decay (a
    differentiable step's) as p * weight_decay + grad."""
    if isinstance(weight_decay, Tensor):
        return p.mul(weight_decay).add_(grad)
    return grad.add(p, alpha=weight_decay)


def _add_square_(acc: Tensor, grad: Tensor, weight: float) -> Tensor:
    """acc += weight * grad * grad, in place: torch's acc.addcmul_(grad, grad, value=weight),
    (weight * grad) * grad + acc rounded once (NOTE [ Updates through the in-place fast
    path ]); half-precision gradients computed in float32 and rounded once, as torch's (the
    float16 square of a gradient above 256 is inf, and the parameter would never move again)."""
    return acc.addcmul_(grad, grad, value=weight)


def _maximum_(x: Tensor, other: Tensor) -> Tensor:
    """x <- max(x, other) in place: minitorch.maximum(x, other, out=x), as torch's AMSGrad and
    Adamax write it. Where nothing is recorded or observed (as for _added), both are plain CPU
    float32/float64 tensors of one dtype and shape and x is a writable non-view, it is
    x.copy_(minitorch.maximum(x, other)): the same kernel, values and version bump, without
    out='s general path (64 elements 4.7 -> 1.5 us)."""
    if (
        not grad_state.enabled
        and fast_path[0]
        and x.__class__ is Tensor
        and other.__class__ is Tensor
        and x._device is _CPU
        and other._device is _CPU
        and x._base is None
        and x._vc.__class__ is list
    ):
        a, b = x._data, other._data
        if (
            a.dtype is b.dtype
            and a.dtype.char in "fd"
            and a.shape == b.shape
            and a.flags.writeable
            and 0 not in a.strides
        ):
            return x.copy_(minitorch.maximum(x, other))
    return minitorch.maximum(x, other, out=x)


def _sub_quotient_(p: Tensor, num: Tensor, den: Tensor, step: float) -> Tensor:
    """p -= step * num / den in place: torch's p.addcdiv_(num, den, value=-step). Half-precision
    parameters go through addcdiv_, which computes in float32 and rounds once as torch's does
    (the quotient rounded to half first moves the parameter an ulp off torch's); float32/float64
    take the in-place fast path (NOTE [ Updates through the in-place fast path ])."""
    if p.dtype.itemsize == 2:
        return p.addcdiv_(num, den, value=-step)
    # (torch's kernel computes p + (value * num) / den, in that order, with no fused step: its
    # bits)
    return p.add_(num.mul(-step).div_(den))


def _lerp_(m: Tensor, end: Tensor, weight: float) -> Tensor:
    """m.lerp_(end, weight) for a number weight (NOTE [ Updates through the in-place fast
    path ]): torch's two formulas, m + weight * (end - m) for weight < 0.5, else end - (end - m)
    * (1 - weight), each one fused multiply-add, exact at weight 1 (Adam's beta1 = 0 keeps the
    gradient itself). It refuses an `end` of another dtype (a parameter made float64 by
    `p.data = p.data.double()` while its state stays float32), as torch's m.lerp_(g, 1 - beta1)
    does."""
    return m.lerp_(end, weight)


# NOTE [ Fused half-precision steps ]
# torch's fused=True kernels (Adam, AdamW, Adagrad) read half-precision parameters, gradients and
# optimizer states into float32, compute the whole update there and round each result once;
# the default path computes in the half dtype, where eps = 1e-8 rounds to 0 and a zero sqrt(v)
# gives inf (an fp16 model trained with HF's adamw_torch_fused). With fused=True minitorch runs
# its update on float32 copies and writes them back: torch's values to the last bits.
_HALF = (minitorch.float16, minitorch.bfloat16)


def _in_float32(update, p: Tensor, grad: Tensor, state: dict, args) -> None:
    """update(p, grad, state, *args) computed on float32 copies of p, grad and the state's half
    tensors, the results written back rounded once (NOTE [ Fused half-precision steps ])."""
    wide = {
        k: (v.float() if isinstance(v, Tensor) and v.dtype in _HALF else v)
        for k, v in state.items()
    }
    p32 = p.float()
    update(p32, grad.float(), wide, *args)
    p.copy_(p32)
    for k, v in wide.items():
        if v is not state[k]:
            state[k].copy_(v)


# NOTE [ Updates on arrays ]
# Where every operand of an update is a plain CPU float32/float64 tensor of one dtype and shape
# (the parameter, its gradient, its state tensors), none a view, expanded, read-only or an
# inference tensor, the hyperparameters are Python numbers, and nothing records or observes
# the ops (grad mode off, no profile), Adam's (and AdamW's) update makes on the arrays the very
# NumPy calls its tensor ops make through the in-place fast path (NOTE [ Updates through the
# in-place fast path ]), in the same order, and bumps each tensor's version as those ops do:
# the same bits and versions, without ~40 tensor-op calls per parameter (Adam on a small MLP's
# six parameters: 337 -> 190 us a step, torch 275-306). tests/test_s54_adam_arrays.py holds it to
# the tensor path.
_NUMBER_CLASSES = (int, float)


def update_arrays(p: Tensor, grad: Tensor, *state: Tensor):
    """The arrays of p, its gradient and its state tensors where an update may run on them
    (NOTE [ Updates on arrays ]), or None."""
    if grad_state.enabled or not fast_path[0] or p._device is not _CPU:
        return None
    x = p._data
    dt, shape = x.dtype, x.shape
    if (
        (p.__class__ is not Tensor and p.__class__ is not _Parameter)
        or dt.char not in "fd"
        or not shape  # (0-d: NumPy's results would be scalars, not arrays to write into)
        or p._base is not None
        or p._vc.__class__ is not list
    ):
        return None
    arrays = [x]
    for t in (grad, *state):
        a = t._data
        if not (
            t.__class__ is Tensor
            and t._device is _CPU
            and t._base is None
            and t._vc.__class__ is list
            and a.shape == shape
            and (a.dtype is dt or a.dtype == dt)
        ):
            return None
        arrays.append(a)
    for a in (x, *arrays[2:]):  # the arrays written: no read-only or self-overlapping one
        if 0 in a.strides or not a.flags.writeable:
            return None
    return arrays


def count_step(step_t: Tensor) -> float:
    """_advance(step_t) where step_t is a plain CPU 0-d float tensor: the same add into its
    array and version bump, without the tensor ops (NOTE [ Updates on arrays ])."""
    a = step_t._data
    if (
        step_t.__class__ is Tensor
        and step_t._device is _CPU
        and step_t._base is None
        and step_t._vc.__class__ is list
        and a.shape == ()
        and a.dtype.char in "fd"
        and a.flags.writeable
    ):
        _CPU.backend.xp.add(a, 1, out=a)
        step_t._vc[0] += 1
        return float(a)
    return _advance(step_t)


def _advance(step_t: Tensor) -> float:
    """step_t += 1 in place; the new count as a Python number."""
    step_t.add_(1)
    return step_t.item()


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def _check_nonneg(name: str, value) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name} value: {value}")


# --- torch.optim.optimizer's private helpers ---
# Optimizers copied from torch's sources (research code: Lion, Sophia, Adan ...) import these at
# load time, so they exist under torch's names. minitorch has no compiler and one update loop,
# so the compile- and foreach-related ones reduce to their eager, for-loop meaning.

_params_doc = r"""params (iterable): the parameters to optimize (tensors or (name, tensor)
            pairs), or dicts that each define a parameter group"""
_foreach_doc = r"""foreach (bool, optional): whether to use the multi-tensor implementation
            (None lets the optimizer choose; minitorch steps one loop either way) (default: None)"""
_fused_doc = r"""fused (bool, optional): whether to use the fused implementation, which
            computes half-precision updates in float32 (default: None)"""
_capturable_doc = r"""capturable (bool, optional): whether the step may be captured in a
            CUDA graph; keeps the parameters on the device (default: False)"""
_differentiable_doc = r"""differentiable (bool, optional): whether autograd records the step,
            so one can backpropagate through it (slower) (default: False)"""
_maximize_doc = r"""maximize (bool, optional): step towards larger values of the objective
            instead of smaller ones (default: False)"""


def _to_scalar(x):
    """A 1-element tensor hyperparameter with dimensions as a 0-d tensor (others unchanged).
    Mirrors torch.optim.optimizer._to_scalar."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_capturable_supported_devices(supports_xla: bool = True) -> list[str]:
    """The device types a capturable optimizer accepts. Mirrors
    torch.optim.optimizer._get_capturable_supported_devices."""
    return list(_CAPTURABLE_DEVICES if supports_xla else _CAPTURABLE_DEVICES[:-1])


def _get_value(x):
    """A 0-d tensor as a Python number (others unchanged). Mirrors
    torch.optim.optimizer._get_value in eager mode."""
    return x.item() if isinstance(x, Tensor) else x


def _get_scalar_dtype(is_fused=None):
    """The dtype of scalar optimizer state (see _scalar_dtype). Mirrors
    torch.optim.optimizer._get_scalar_dtype."""
    return _scalar_dtype(bool(is_fused))


def _stack_if_compiling(x):
    """torch stacks a list of scalars while compiling; minitorch never compiles."""
    return x


def _disable_dynamo_if_unsupported(single_tensor_fn=None):
    """A decorator factory torch uses to keep TorchDynamo out of some optimizer functions;
    without a compiler the decorated function is returned as is."""

    def decorator(func):
        return func

    return decorator


def _default_to_fused_or_foreach(
    params: list[Tensor], differentiable: bool, use_fused: bool = False
) -> tuple[bool, bool]:
    """(fused, foreach) torch picks when the user gave neither: the faster kernels only for
    parameters all on an accelerator, never for a differentiable step. Mirrors
    torch.optim.optimizer._default_to_fused_or_foreach (minitorch's one loop ignores both)."""
    if differentiable:
        return False, False
    on_device = all(p is None or (isinstance(p, Tensor) and p.device.type != "cpu") for p in params)
    fused = use_fused and on_device
    return fused, not fused and on_device


# The device types torch's fused optimizer kernels accept (its RuntimeError lists them)
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]


def _device_dtype_check_for_fused(p: Tensor, cuda_unsupported: bool = False) -> None:
    """fused=True needs floating-point parameters on a device with fused kernels: torch's
    RuntimeError otherwise (copies of torch's optimizers call it as they build their state).
    Mirrors torch.optim.optimizer._device_dtype_check_for_fused (the strict test device stands
    in for CUDA)."""
    devices = [d for d in _FUSED_DEVICES if not (cuda_unsupported and d == "cuda")]
    kind = "cuda" if p.device.type == "strict" else p.device.type
    if not (kind in devices and p.dtype.is_floating_point):
        raise RuntimeError(
            "`fused=True` requires all the params to be floating point Tensors of "
            f"supported devices: {devices} but {p.dtype} and {kind}"
        )


def _view_as_real(params, *state_and_grads) -> None:
    """torch replaces complex tensors in these lists by real views, in place. minitorch's
    optimizers have no complex support, so a complex parameter raises."""
    for p in params:
        if p.is_complex():
            raise NotImplementedError(
                f"_view_as_real: complex parameters ({p.dtype}) are not supported by "
                "minitorch's optimizers"
            )
