"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (thread-local flags)."""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "set_multithreading_enabled",
    "enforce_grad_layout_policy",
]


# NOTE [ Grad mode and recording ]
# torch keeps two flags: grad mode (what is_grad_enabled reports and no_grad / enable_grad /
# set_grad_enabled set) and inference mode, which removes autograd recording whatever grad mode
# says: enable_grad inside inference_mode reports True yet records nothing. minitorch's per-op
# path reads one flag, `state.enabled`, meaning "record a graph now"; so that flag stays the
# recording flag, and grad mode is kept apart only where the two differ, inside inference mode:
#   outside inference mode  grad mode == state.enabled (every direct writer of state.enabled,
#                           e.g. the engine's create_graph, stays a grad-mode change);
#   inside inference mode   state.enabled is False and grad mode lives in state.grad_mode
#                           (a direct writer turning state.enabled on there records, unlike
#                           torch: replaying a view's history does, on purpose).
# Set grad mode through _set_grad_mode / _restore_grad_mode, never state.enabled alone, where
# the code can run inside inference mode.


class _State(threading.local):
    # Class attributes are the per-thread defaults: every new thread starts with grad enabled.
    enabled = True  # record a graph now (read by Function.apply): grad mode and not inference
    inference = False
    grad_mode = False  # grad mode while `inference` is on (NOTE [ Grad mode and recording ])
    anomaly = False
    anomaly_check_nan = True
    saved_hooks = None  # (pack, unpack) of the innermost autograd.graph.saved_tensors_hooks
    saved_hooks_disabled = None  # the error message of disable_saved_tensors_hooks, while active
    graph_task = None  # the engine's running backward (engine._GraphTask), innermost first
    transforms = 0  # torch.func transforms running the user's function here (backward() refused)
    sample_loop = None  # the innermost vmap's per-sample loop running here (engine.SampleLoop)
    multithreading = True  # set_multithreading_enabled's flag (the engine has one thread anyway)
    grad_layout_enforced = True  # enforce_grad_layout_policy's flag (only recorded)


# Read directly by Function.apply on every op (one attribute load, no function call).
state = _State()


def is_grad_enabled() -> bool:
    """Mirrors torch.is_grad_enabled."""
    if state.inference:
        # (or state.enabled: a direct writer turned recording on here)
        return state.grad_mode or state.enabled
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """Mirrors torch.is_inference_mode_enabled."""
    return state.inference


def _set_grad_mode(mode: bool):
    """Sets grad mode (NOTE [ Grad mode and recording ]); returns what _restore_grad_mode
    takes to undo it."""
    prev = (state.enabled, state.grad_mode)
    if state.inference:
        state.grad_mode = mode
        state.enabled = False  # nothing records in inference mode, whatever grad mode says
    else:
        state.enabled = mode
    return prev


def _restore_grad_mode(prev) -> None:
    state.enabled, state.grad_mode = prev


class _GradModeContext:
    """A context manager that is also a decorator (plain and generator functions)."""

    def __call__(self, fn):
        if inspect.isclass(fn):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = fn

            def fn(*args, **kwargs):
                return cls(*args, **kwargs)

        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, fn):
        # The mode holds while the generator runs, not between its yields (as torch does).
        @functools.wraps(fn)
        def gen_wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    request = gen.send(None)
                while True:
                    try:
                        response = yield request
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as e:
                        with self.clone():
                            request = gen.throw(e)
                    else:
                        with self.clone():
                            request = gen.send(response)
            except StopIteration as stop:  # the generator finished: so does the wrapper
                return stop.value

        return gen_wrapper

    def clone(self):
        return type(self)()


# torch's name for the base class: libraries subclass torch.autograd.grad_mode's (and
# torch.utils._contextlib's) _DecoratorContextManager for their own modes
_DecoratorContextManager = _GradModeContext


class no_grad(_GradModeContext):
    """Disables gradient recording in this thread. Mirrors torch.no_grad."""

    def __new__(cls, orig_func=None):
        # `@no_grad` without parentheses is accepted, as torch does.
        self = super().__new__(cls)
        return self(orig_func) if orig_func is not None and callable(orig_func) else self

    def __init__(self, orig_func=None):
        self.prev = (False, False)  # as torch's: an __exit__ without __enter__ turns grad off

    def __enter__(self):
        # _set_grad_mode(False), inlined (every optimizer step passes here): off either way
        s = state
        self.prev = (s.enabled, s.grad_mode)
        s.enabled = s.grad_mode = False

    def __exit__(self, *exc):
        state.enabled, state.grad_mode = self.prev  # _restore_grad_mode
        return False


class enable_grad(no_grad):
    """Enables gradient recording in this thread. Mirrors torch.enable_grad."""

    def __enter__(self):
        self.prev = _set_grad_mode(True)


class set_grad_enabled(_GradModeContext):
    """Sets gradient recording on or off, as a function, context manager or decorator.
    Mirrors torch.set_grad_enabled."""

    def __init__(self, mode: bool):
        if mode.__class__ is not bool:  # torch's parser: a bool only (not 0, "no", np.bool_)
            from minitorch._dtype import _typename

            raise TypeError(
                "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{_typename(mode)}"
            )
        self.mode = mode
        self.prev = _set_grad_mode(mode)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _restore_grad_mode(self.prev)
        return False

    def __call__(self, fn):
        _restore_grad_mode(self.prev)
        return super().__call__(fn)

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_GradModeContext):
    """Like no_grad (tensors made inside never require grad), but enable_grad inside does not
    turn recording back on; inference_mode(False) does. The tensors made inside are inference
    tensors (NOTE [ Inference tensors ]). Mirrors torch.inference_mode.
    """

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode) and not isinstance(mode, bool):
            self.mode = True
            return self(mode)
        return self

    def __init__(self, mode: bool = True):
        if not callable(mode) or isinstance(mode, bool):
            self.mode = bool(mode)

    def __enter__(self):
        self.prev = (state.enabled, state.inference, state.grad_mode)
        # As torch's: inference_mode() starts with grad mode off and records nothing;
        # inference_mode(False) turns grad mode (and so recording) on, inside no_grad or
        # inference_mode too. See NOTE [ Grad mode and recording ].
        state.enabled = not self.mode
        state.inference = self.mode
        state.grad_mode = False
        if self.mode:
            _constructors_in_use(1)

    def __exit__(self, *exc):
        state.enabled, state.inference, state.grad_mode = self.prev
        if self.mode:
            _constructors_in_use(-1)
        return False

    def clone(self):
        return inference_mode(self.mode)


class set_multithreading_enabled(_GradModeContext):
    """Turns multithreaded backward on or off, as a function, context manager or decorator.
    Mirrors torch.autograd.set_multithreading_enabled.

    Differences from torch: the flag is only recorded; minitorch's backward always runs in the
    calling thread.
    """

    def __init__(self, mode: bool) -> None:
        self.prev = state.multithreading
        self.mode = bool(mode)
        state.multithreading = self.mode

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.multithreading = self.prev
        return False

    def __call__(self, fn):
        state.multithreading = self.prev
        return super().__call__(fn)

    def clone(self):
        return set_multithreading_enabled(self.mode)


class enforce_grad_layout_policy(_GradModeContext):
    """Turns the enforcement of the gradient layout contract (a leaf's .grad takes the leaf's
    strides) on or off, as a function, context manager or decorator. Mirrors
    torch.autograd.enforce_grad_layout_policy.

    Differences from torch: the flag is only recorded; a new .grad always takes its leaf's
    strides (torch's relaxed policy lets a stolen gradient keep its own, and does not promise
    it).
    """

    def __init__(self, enable: bool = True) -> None:
        if enable.__class__ is not bool:  # torch's parser: a bool only
            from minitorch._dtype import _typename

            raise TypeError(
                "set_grad_layout_enforcement_enabled(): argument 'enabled' (position 1) must be "
                f"bool, not {_typename(enable)}"
            )
        self.prev = state.grad_layout_enforced
        self.mode = enable
        state.grad_layout_enforced = enable

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.grad_layout_enforced = self.prev
        return False

    def __call__(self, fn):
        state.grad_layout_enforced = self.prev
        return super().__call__(fn)

    def clone(self):
        return enforce_grad_layout_policy(self.mode)


# NOTE [ Inference tensors ]
# A tensor made inside inference mode is an inference tensor, as torch's: it has no version
# counter (`_version` raises), cannot be saved for backward, and cannot change in place or start
# requiring grad outside inference mode; ops that only read it are free to, and make normal
# tensors. Its mark is its version counter, INFERENCE_VERSION (one counter of class
# InferenceVersion, shared by all inference tensors), which views share with their base: a view
# of an inference tensor is one wherever it is taken, a view of a normal tensor taken inside is
# normal (both as torch).
#
# The per-op paths make their results with two private constructors, minitorch._tensor._new
# (in _make) and minitorch.autograd.function._new_object (in Function.apply), whose first store
# is a fresh version counter `[0]`. So that ops outside inference mode pay nothing for the mark,
# while any thread is in inference mode those two names point to _new_inference, whose object
# is a _Newborn: a Tensor subclass of the same layout whose first version-counter store turns it
# into a plain Tensor and stores INFERENCE_VERSION instead if the storing thread is in inference
# mode (a view's later store of its base's counter is then a plain store). An op made inside
# costs about 0.5 us more than under no_grad for this. Other constructors (Tensor._init_from)
# ask fresh_version().
#
# The checks: saving for backward is refused where tensors are packed (autograd/function.py,
# autograd/composite.py, batch norm's running statistics); an in-place change outside inference
# mode by the in-place checks before the write (_ops/inplace.py check_inference_write), and at
# any other version bump by InferenceVersion.__setitem__ (after the write, as some of torch's
# kernels do); requires_grad and requires_grad_ by Tensor's own; detach() keeps the mark,
# `.data`, pickling and copies made outside drop it.
# torch.func's transforms and forward AD differentiate through a normal alias of an inference
# input or tangent (normal_alias), as torch's wrappers do, and save one the function captures
# (refuse_inference_save reads state.transforms); increment_version leaves an inference
# tensor alone (torch's has no counter to bump).

INFERENCE_SAVE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_REQUIRES_GRAD_MESSAGE = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)


class InferenceVersion(list):
    """The version counter of inference tensors (NOTE [ Inference tensors ]): bumped as a normal
    one inside inference mode; a bump outside it is torch's in-place refusal."""

    __slots__ = ()

    def __setitem__(self, index, value):
        if not state.inference:
            raise RuntimeError(INFERENCE_INPLACE_MESSAGE)
        list.__setitem__(self, index, value)


# Inference tensors track no versions (torch's have no version counter): they all share this one,
# so that making one costs no new counter.
INFERENCE_VERSION = InferenceVersion((0,))


def fresh_version() -> list:
    """A new tensor's version counter: INFERENCE_VERSION inside inference mode."""
    return INFERENCE_VERSION if state.inference else [0]


def is_inference_tensor(t) -> bool:
    return t._vc.__class__ is InferenceVersion


def normal_alias(t):
    """t, or for an inference tensor a detached alias of it with a version counter of its own: a
    normal tensor, what torch.func's and forward AD's wrappers of an inference tensor are (they
    can require grad and be saved for backward)."""
    if t._vc.__class__ is list:
        return t
    alias = t.detach()
    alias._vc = [0]
    return alias


_newborn = None  # the _Newborn class, made at the first use of inference mode
_new_inference = None  # the per-op constructors' stand-in, made with it
_constructor_names = ()  # (module, name) of the swapped constructors, found at the first use
_constructor_users = 0  # the inference_mode blocks open now, in all threads
_constructor_lock = threading.Lock()


def _constructors_in_use(change: int) -> None:
    """Points the per-op constructors at _new_inference while an inference_mode block is open in
    any thread, and back at object.__new__ after the last one closes."""
    global _constructor_users
    if _newborn is None:
        _make_newborn_class()
    with _constructor_lock:
        _constructor_users += change
        new = _new_inference if _constructor_users > 0 else object.__new__
        for module, name in _constructor_names:
            setattr(module, name, new)


def _make_newborn_class():
    global _newborn, _new_inference, _constructor_names
    from minitorch import _tensor
    from minitorch._subclass import _disabled_torch_function_impl
    from minitorch._tensor import Tensor
    from minitorch.autograd import function

    _constructor_names = ((_tensor, "_new"), (function, "_new_object"))
    slot = Tensor.__dict__["_vc"]

    def set_first_version(self, vc, _set=slot.__set__):
        self.__class__ = Tensor
        _set(self, INFERENCE_VERSION if state.inference and vc.__class__ is list else vc)

    class _Newborn(Tensor):
        """A Tensor being built by a per-op constructor while some thread is in inference mode
        (NOTE [ Inference tensors ]); a plain Tensor from its first version-counter store."""

        __slots__ = ()
        __torch_function__ = _disabled_torch_function_impl
        _vc = property(slot.__get__, set_first_version)

    def new(cls, _new=object.__new__):
        return _new(_Newborn) if cls is Tensor else _new(cls)

    _newborn, _new_inference = _Newborn, new
