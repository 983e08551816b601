"""Activation checkpointing: run part of a model without keeping its intermediate tensors and
compute them again when backward needs them. Mirrors torch.utils.checkpoint."""

from __future__ import annotations

import contextlib
import enum
import warnings
import weakref

from minitorch import _autocast_state
from minitorch._tensor import Tensor, _make
from minitorch.autograd import engine
from minitorch.autograd.function import Function
from minitorch.autograd.grad_mode import enable_grad, no_grad, state
from minitorch.autograd.graph import saved_tensors_hooks
from minitorch.random import fork_rng

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
    "get_device_states",
    "set_device_states",
    "DefaultDeviceType",
    "CheckpointPolicy",
    "SelectiveCheckpointContext",
    "create_selective_checkpoint_contexts",
]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved. Mirrors
    torch.utils.checkpoint.CheckpointError."""


def noop_context_fn():
    """The default context_fn: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple) -> tuple:
    """The tensors of `inputs` detached, each keeping its requires_grad; other values as they
    are. Mirrors torch.utils.checkpoint.detach_variable."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Warns when no tensor of `inputs` requires grad. Mirrors
    torch.utils.checkpoint.check_backward_validity."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=3
        )


# What set_checkpoint_debug_enabled set (None outside it: each checkpoint's debug argument).
_debug_override: bool | None = None


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, checkpoints run as if given debug=enabled (None: their own argument).
    Mirrors torch.utils.checkpoint.set_checkpoint_debug_enabled.

    Differences from torch: debug mode adds no operator log to the errors (minitorch's say
    what differed); like torch, it refuses a non-default context_fn.
    """
    global _debug_override
    prev = _debug_override
    _debug_override = enabled
    try:
        yield
    finally:
        _debug_override = prev


# What set_checkpoint_early_stop set (None outside it: each checkpoint's early_stop argument).
_early_stop_override: bool | None = None


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Within the block, non-reentrant checkpoints stop (enable=True) or do not stop (False) their
    recomputation once it has given back every tensor the forward saved, whatever their
    early_stop argument; read when checkpoint() runs, not at backward. Mirrors
    torch.utils.checkpoint.set_checkpoint_early_stop."""
    global _early_stop_override
    prev = _early_stop_override
    _early_stop_override = enable
    try:
        yield
    finally:
        _early_stop_override = prev


class DefaultDeviceType:
    """The device type whose random state checkpointing saves when no argument is on an
    accelerator. Mirrors torch.utils.checkpoint.DefaultDeviceType."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        # As in torch: the current accelerator's type, else "cpu", decided on first use.
        if not DefaultDeviceType._default_device_type:
            from minitorch import accelerator

            acc = accelerator.current_accelerator(True)
            DefaultDeviceType._default_device_type = "cpu" if acc is None else acc.type
        return DefaultDeviceType._default_device_type


def _device_module(device_type: str):
    # minitorch.cuda for "cuda"; a type without a module (or without random state, like "cpu")
    # fails with AttributeError, as in torch.
    import minitorch

    return getattr(minitorch, device_type)


def get_device_states(*args) -> tuple[list, list]:
    """The indices of the GPUs that the tensors among `args` (nested in lists, tuples, dicts) live
    on, one per tensor, and each one's random generator state. Mirrors
    torch.utils.checkpoint.get_device_states."""
    from minitorch.func._pytree import tree_flatten

    ids = [
        x.get_device()
        for x in tree_flatten(args)[0]
        if isinstance(x, Tensor) and x.device.type not in ("cpu", "meta")
    ]
    if not ids:
        return [], []
    module = _device_module("cuda")
    return ids, [module.get_rng_state(i) for i in ids]


def set_device_states(devices, states, *, device_type=None) -> None:
    """Sets the random generator state of each device index in `devices`. Mirrors
    torch.utils.checkpoint.set_device_states."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    module = _device_module(device_type)
    for index, st in zip(devices, states, strict=False):
        module.set_rng_state(st, index)


class CheckpointPolicy(enum.Enum):
    """Whether selective checkpointing saves an op's output or recomputes it. Mirrors
    torch.utils.checkpoint.CheckpointPolicy."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """What a selective checkpointing policy function is told about the op it decides on.
    Mirrors torch.utils.checkpoint.SelectiveCheckpointContext."""

    def __init__(self, *, is_recompute, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """Mirrors torch.utils.checkpoint.create_selective_checkpoint_contexts, but cannot work here.

    Differences from torch: raises NotImplementedError after validating its argument. Selective
    checkpointing asks the policy about every aten op the function runs (a TorchDispatchMode);
    minitorch has no per-op dispatch to intercept nor aten op objects to name. Plain
    checkpoint(..., use_reentrant=False) gives the same values and gradients, recomputing all.
    """
    if isinstance(policy_fn_or_list, list):
        raise NotImplementedError(
            "create_selective_checkpoint_contexts: a list of ops needs torch.ops.aten op "
            "overloads, which minitorch does not have; use checkpoint() without context_fn "
            "(everything is recomputed, with the same gradients)"
        )
    if not callable(policy_fn_or_list):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    raise NotImplementedError(
        "create_selective_checkpoint_contexts: minitorch has no per-op dispatch to ask the "
        "policy function about each op; use checkpoint() without context_fn (everything is "
        "recomputed, with the same gradients)"
    )


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


def checkpoint(
    function,
    *args,
    use_reentrant: bool | None = None,
    context_fn=noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs,
):
    """function(*args, **kwargs), keeping none of its intermediate tensors for backward: they are
    recomputed (with the forward's random state and autocast state) when backward needs them.
    Mirrors torch.utils.checkpoint.checkpoint.

    use_reentrant=False (recommended) records the function's graph as usual but stores its saved
    tensors as placeholders (NOTE [ Saved tensor hooks ]); backward, autograd.grad and double
    backward work as without checkpointing. use_reentrant=True (the default, with torch's warning)
    runs the function under no_grad into one CheckpointFunctionBackward node whose backward
    recomputes it and runs a nested backward: gradients reach parameters, but autograd.grad and
    backward(inputs=...) are refused, as in torch.

    With early_stop (the default; see set_checkpoint_early_stop) the recomputation stops as
    soon as it has saved as many tensors as the forward did, so code after the last save (a
    module's forward hooks, say) does not run again.

    Differences from torch: `debug` adds nothing (it still refuses a non-default context_fn);
    CheckpointError messages end without torch's tip about debug mode and torch.compile; arrays
    some built-in ops keep on their nodes besides saved tensors stay in memory.
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:  # checked first, as torch does
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    if (debug if _debug_override is None else _debug_override) and (
        context_fn is not noop_context_fn
    ):
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if _early_stop_override is not None:
        early_stop = _early_stop_override
    # The inputs are saved by a node of their own, outside the frame's hooks: see NOTE
    # [ Non-reentrant checkpoint ] (why) and _NoopSaveInputs.
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    saver = _NoopSaveInputs.apply(
        _empty_requiring_grad(), tuple(args[i] for i in positions)
    ).grad_fn
    if saver is None:
        # grad mode is off: nothing is saved, so nothing to recompute; as in torch, the
        # function runs outside context_fn's forward context too
        return function(*args, **kwargs)
    frame = _Frame(
        function,
        args,
        kwargs,
        saver,
        positions,
        preserve,
        recompute_context,
        determinism_check,
        early_stop,
    )
    failed = True
    with forward_context:
        with saved_tensors_hooks(frame.pack, frame.unpack):
            out = function(*args, **kwargs)
        failed = False
    if failed:  # the function raised and the forward context swallowed the exception
        raise RuntimeError(
            "torch.utils.checkpoint: the forward context provided by context_fn suppressed an "
            "exception raised during the checkpointed forward. This is not supported because "
            "checkpoint cannot return a value for a failed forward."
        )
    frame.forward_completed = True
    return out


def _empty_requiring_grad() -> Tensor:
    import minitorch

    return minitorch.empty(0, requires_grad=True)


def checkpoint_sequential(
    functions, segments: int, input, use_reentrant: bool | None = None, **kwargs
):
    """Runs a Sequential (or a list of modules/functions) in `segments` chunks, checkpointing all
    but the last. Mirrors torch.utils.checkpoint.checkpoint_sequential."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
            "the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from minitorch.nn.modules.container import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    # anything else is used as given: indexed (a list, a ModuleList) and measured with len(), so
    # an iterator fails with len()'s TypeError, as in torch

    def run(start, end):
        def forward(x):
            for i in range(start, end + 1):
                x = functions[i](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)


# --- the forward's state, given back to the recomputation ---


class _ForwardState:
    """The random generators' and autocast's state when the checkpointed forward ran."""

    def __init__(self, preserve_rng: bool):
        self.rng = _rng_snapshot() if preserve_rng else None
        st = _autocast_state.state
        self.autocast = (dict(st.enabled), dict(st.dtype))

    @contextlib.contextmanager
    def restored(self):
        st = _autocast_state.state
        prev = (st.enabled, st.dtype)
        with fork_rng(enabled=self.rng is not None):
            if self.rng is not None:
                _rng_restore(self.rng)
            st.enabled, st.dtype = dict(self.autocast[0]), dict(self.autocast[1])
            st.refresh()
            try:
                yield
            finally:
                st.enabled, st.dtype = prev
                st.refresh()


def _rng_snapshot():
    from minitorch import random

    return random._snapshot()


def _rng_restore(snapshot):
    from minitorch import random

    random._restore(snapshot)


# --- use_reentrant=True ---


class CheckpointFunction(Function):
    """out = run_function(*args) computed under no_grad;  backward: run_function again with grad
    on, on detached inputs, and a nested backward of its outputs. Mirrors
    torch.utils.checkpoint.CheckpointFunction."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.forward_state = _ForwardState(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        task = state.graph_task
        if task is not None and task.targets is not None:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the `inputs` "
                "argument."
            )
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx._stored_tensors, strict=True):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with ctx.forward_state.restored(), enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grads, strict=False)
            if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        engine.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


CheckpointFunction._builtin = False  # its forward computes with Tensor ops, like a user's


# --- use_reentrant=False ---


# NOTE [ Non-reentrant checkpoint ]
# The checkpointed forward runs with grad on, so its nodes are recorded as usual, but under
# saved-tensor hooks whose pack keeps only a placeholder (_Holder: the frame and a position).
# The first unpack in a backward runs the function again, with the forward's random and autocast
# state, under hooks that keep every tensor it saves; the k-th of those is the k-th placeholder's
# tensor. The recomputed tensors are kept for the rest of that backward (keyed weakly by the
# engine's running task), so a second backward with retain_graph recomputes again.
# The inputs: the tensors among the positional arguments are saved for backward by a node of
# their own (_NoopSaveInputs, recorded before the frame's hooks apply, off the output's graph),
# and the recomputation reads them back through that node's saved_tensors, as torch does. So an
# input changed in place after checkpoint() returned, or by the function itself (a block that
# starts with ReLU(inplace=True) or z.mul_(2)), raises autograd's "modified by an inplace
# operation" error instead of recomputing from the new values (a silently wrong gradient); and
# saved-tensor hooks around the checkpoint (save_on_cpu) pack the inputs once and unpack them at
# backward. The frame keeps only the non-tensor arguments.
# The recomputation's own saved-tensor hooks hand each tensor back as it is. A backward run inside
# the function itself (autograd.grad in it) recomputes while the forward has saved only part of
# its tensors (forward_completed is still False): saves past those belong to the recomputation's
# inner backward and the counts are not compared, as in torch.
# Early stop: the pack hook that receives the last tensor the forward saved raises
# _StopRecomputation, which ends the function mid-way; _recompute catches it. What the function
# would have done after its last save (later ops, forward hooks, prints) is not run again.


class _StopRecomputation(Exception):
    """Raised through the recomputed function once it has saved everything (early stop)."""


class _Holder:
    __slots__ = ("frame", "index")

    def __init__(self, frame, index):
        self.frame = frame
        self.index = index


class _NoopSaveInputs(Function):
    """out = an empty tensor; saves `tensors` (the checkpoint's tensor arguments) for the
    recomputation to read back, version-checked and through any saved-tensor hooks (NOTE
    [ Non-reentrant checkpoint ]). Nothing backpropagates through it: its output is unused.
    The tensors come in a tuple, so that arguments on several devices do not make apply refuse
    the call."""

    @staticmethod
    def forward(ctx, dummy, tensors):
        ctx.save_for_backward(*tensors)
        return dummy.new_empty(0)

    @staticmethod
    def backward(ctx, *grads):
        raise AssertionError("_NoopSaveInputs: its output is never used, so never backwarded")


_NoopSaveInputs._builtin = False  # its forward computes with Tensor ops, like a user's


class _Frame:
    def __init__(
        self,
        function,
        args,
        kwargs,
        saver,
        positions,
        preserve_rng,
        recompute_context,
        check,
        early_stop,
    ):
        self.function = function
        # the tensors are read back from `saver` (the node that saved them) at recomputation
        args = list(args)
        for i in positions:
            args[i] = None
        self.args = args
        self.saver = saver
        self.positions = positions
        self.kwargs = kwargs
        self.forward_state = _ForwardState(preserve_rng)
        self.recompute_context = recompute_context
        self.check = check
        self.early_stop = bool(early_stop)
        self.metadata = []  # (shape, dtype, device) of each tensor the forward saved
        self.recomputed = weakref.WeakKeyDictionary()  # engine task -> the recomputed tensors
        # a backward inside the checkpointed function (autograd.grad in it) recomputes before
        # the forward has saved everything: see _recompute
        self.forward_completed = False

    def pack(self, t):
        self.metadata.append(_metadata(t))
        return _Holder(self, len(self.metadata) - 1)

    def unpack(self, holder):
        task = state.graph_task
        saved = self.recomputed.get(task) if task is not None else None
        if saved is None:
            saved = self._recompute()
            if task is not None:
                self.recomputed[task] = saved
        return saved[holder.index]

    def _recompute(self):
        args = list(self.args)
        for i, t in zip(self.positions, self.saver.saved_tensors, strict=True):
            args[i] = t  # raises if the input was changed in place since checkpoint() ran
        saved = []
        count = len(self.metadata)
        # Recomputing for a backward run inside the forward itself (autograd.grad within the
        # function, without early stop), the forward has not saved everything yet: the saves
        # past those are the recomputation's own (its inner backward's) and the counts are not
        # compared, as in torch.
        partial = not self.forward_completed

        def keep(t):
            if len(saved) == count:  # only without early stop: it would have stopped here
                if partial:
                    return t
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation "
                    "than during the original forward pass."
                )
            saved.append(t)
            if self.early_stop and len(saved) == count:
                raise _StopRecomputation
            return t if t._grad_fn is None else _data_alias(t)

        try:
            with (
                self.forward_state.restored(),
                self.recompute_context,
                enable_grad(),
                saved_tensors_hooks(keep, _identity),
            ):
                self.function(*args, **self.kwargs)
        except _StopRecomputation:
            pass
        if partial:
            return saved
        # the count is checked whatever determinism_check says (it only picks the metadata)
        if len(saved) != count:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {count}\n"
                f"Number of tensors saved during recomputation: {len(saved)}."
            )
        if self.check != "none":
            self._check(saved)
        return saved

    def _check(self, saved):
        bad = []
        for i, (t, meta) in enumerate(zip(saved, self.metadata, strict=True)):
            again = _metadata(t)
            if again != meta:
                bad.append(
                    f"tensor at position {i}:\nsaved metadata: {_fmt(meta)}\n"
                    f"recomputed metadata: {_fmt(again)}\n"
                )
        if bad:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                "different metadata than during the forward pass.\n" + "".join(bad) + "."
            )


def _identity(t):
    return t


def _data_alias(t: Tensor) -> Tensor:
    """t's array and version counter without its history, for a recomputed node to keep. The
    recomputed graph keeps no reference to a tensor it made: an output kept by its own node would
    be a reference cycle (output -> node -> output) holding the recomputed activations until the
    garbage collector runs. A hooked save hands back only the data and version counter of what
    unpack returns, the place in the graph coming from the save (NOTE [ Saved tensor hooks ]), so
    the alias reads back as t would."""
    alias = _make(t._data, t._device, False, None)
    alias._vc = t._vc
    return alias


def _metadata(t: Tensor) -> tuple:
    return (t.shape, t.dtype, t.device)


def _fmt(meta) -> str:
    shape, dtype, device = meta
    return f"{{'shape': {shape!r}, 'dtype': {dtype!r}, 'device': {device!r}}}"
