"""Top-level odds and ends of torch's namespace: compile (runs eagerly), cond and while_loop (run
eagerly), frombuffer, binomial, to_dlpack, get_device, is_distributed, the build queries, and
Tensor.resize_."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from minitorch import _dtype, _settings
from minitorch._arg_errors import REQUIRED, missing_positional
from minitorch._backend import backend_of, cpu
from minitorch._dlpack import to_dlpack
from minitorch._factories import _require_grad
from minitorch._tensor import Tensor, _make
from minitorch.autograd.function import Function, name_node, reshaped_in_place
from minitorch.autograd.grad_mode import state
from minitorch.random import _sample, _stream

# fmt: off
__all__ = [
    "binomial", "compile", "compiled_with_cxx11_abi", "cond", "frombuffer", "get_device",
    "is_distributed", "is_vulkan_available", "resize_as_", "to_dlpack", "while_loop",
]
# fmt: on

# --- compile ---

_COMPILE_MODES = (
    "default",
    "lite",
    "reduce-overhead",
    "max-autotune-no-cudagraphs",
    "max-autotune",
)
# the names torch._dynamo.list_backends(exclude_tags=()) gives that a user would pass
_COMPILE_BACKENDS = (
    "inductor", "eager", "aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner",
    "aot_ts", "cudagraphs", "openxla", "openxla_eval", "tvm", "ts", "pre_dispatch_eager",
    "eager_debug", "eager_noexcept", "invoke_subgraph",
)  # fmt: skip


class InvalidBackend(RuntimeError):
    """An unknown backend name given to compile (torch._dynamo.exc.InvalidBackend)."""


def _check_compile_options(fullgraph, dynamic, backend, mode, options, disable=False):
    # torch's order: the mode/options clash, then the backend's own checks (inductor reads mode
    # and options, any other backend is looked up by name), then dynamic unless compiling is
    # disabled (fullgraph is unchecked)
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if backend == "inductor":
        if mode is not None and mode not in _COMPILE_MODES:
            raise RuntimeError(
                f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}"
            )
        if options and not isinstance(options, dict):
            raise AttributeError(f"'{type(options).__name__}' object has no attribute 'items'")
    elif backend is not None and not callable(backend) and backend not in _COMPILE_BACKENDS:
        raise InvalidBackend(
            f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for available "
            "backends."
        )
    if not disable and dynamic is not None and not isinstance(dynamic, bool):
        raise AssertionError(f"Expected enable to be a bool, got {type(dynamic)}")


def compile(
    model: Callable | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable | None = "inductor",
    mode: str | None = None,
    options: dict | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec=None,
):
    """An nn.Module wrapped in an OptimizedModule (its original in `_orig_mod`, its state_dict
    keys prefixed `_orig_mod.`, as torch's); any other callable unchanged; `model` itself when
    disable is set. Mirrors torch.compile's signature and argument checks (mode, backend,
    options), and works as `compile(fn)`, `@compile` and `@compile(mode=...)`.

    Differences from torch: nothing is compiled, every call runs eagerly: a callable backend is
    never called, the inductor option names are not checked, and a function is returned as
    given (torch wraps it in a function that compiles on first call). name, recompile_limit,
    isolate_recompiles and shapes_spec are accepted and ignored (a misspelled keyword is
    torch's TypeError)."""
    if backend is None:
        backend = "inductor"
    if model is None:  # @compile(...): torch checks the options when the decorator is applied

        def decorate(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(
                model,
                fullgraph=fullgraph,
                dynamic=dynamic,
                backend=backend,
                mode=mode,
                options=options,
                name=name,
                disable=disable,
                recompile_limit=recompile_limit,
                isolate_recompiles=isolate_recompiles,
                shapes_spec=shapes_spec,
            )

        return decorate
    _check_compile_options(fullgraph, dynamic, backend, mode, options, disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    from minitorch import nn

    if disable or not isinstance(model, nn.Module):
        return model
    from minitorch._dynamo.eval_frame import OptimizedModule

    return OptimizedModule(model)


# --- control flow, run eagerly ---


def _truth(pred, op: str) -> bool:
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(
                f"Expected pred to be bool or single-element tensor, but got {pred}."
            )
        return bool(pred.item())  # a host sync on a device: see the docstrings
    if isinstance(pred, (bool, int, float)):
        return bool(pred)
    raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")


def cond(pred, true_fn: Callable, false_fn: Callable, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands). Mirrors torch.cond.

    Differences from torch: evaluated eagerly, always (torch traces both branches under
    torch.compile). pred is a Python bool or number or a one-element tensor; a tensor on a GPU
    is read back to the host to decide (a synchronisation)."""
    return true_fn(*operands) if _truth(pred, "cond") else false_fn(*operands)


def while_loop(cond_fn: Callable, body_fn: Callable, carried_inputs):
    """Runs `carried = body_fn(*carried)` while cond_fn(*carried) is true; returns the last
    body_fn result (carried_inputs when the loop never runs). Mirrors torch.while_loop.

    Differences from torch: evaluated eagerly in a Python loop; each test of cond_fn's result
    on a GPU reads it back to the host (a synchronisation per iteration)."""
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(
            "while_loop: carried_inputs must be a tuple or list, got "
            f"{type(carried_inputs).__name__}"
        )
    result = carried_inputs
    carried = tuple(carried_inputs)
    while _truth(cond_fn(*carried), "while_loop"):
        result = body_fn(*carried)
        carried = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(carried) != len(carried_inputs):
            raise RuntimeError(
                f"while_loop: body_fn returned {len(carried)} values for "
                f"{len(carried_inputs)} carried inputs"
            )
    return result


# --- frombuffer, binomial, small queries ---


def frombuffer(
    buffer, *, dtype=REQUIRED, count: int = -1, offset: int = 0, requires_grad: bool = False
):
    """A 1-D CPU tensor over the bytes of a buffer-protocol object, sharing its memory.
    Mirrors torch.frombuffer.

    Differences from torch: a read-only buffer (bytes) gives a tensor that in-place ops refuse
    to write (NumPy's read-only flag), after torch's warning."""
    if dtype is REQUIRED:
        raise missing_positional("frombuffer", "dtype")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    size = view.nbytes
    dtype = _dtype.to_dtype(dtype, "frombuffer")  # (a Python type too: dtype=float)
    item = _dtype.numpy_dtype(dtype).itemsize
    if size == 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if offset < 0 or offset >= size:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({size} bytes) minus 1"
        )
    if count < 0:
        if (size - offset) % item:
            raise ValueError(
                f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a "
                f"multiple of element size ({item})"
            )
        count = (size - offset) // item
    elif offset + count * item > size:
        raise ValueError(
            f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({size} bytes)"
        )
    if view.readonly:
        _settings.warn_once(
            "buffer_not_writable",
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
        )
    arr = np.frombuffer(view, dtype=_dtype.numpy_dtype(dtype), count=count, offset=offset)
    return _require_grad(_make(arr, cpu, False, None), requires_grad)


class _Binomial(Function):
    """out = samples of Binomial(count, prob);  no derivative (torch has none)"""

    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, count, prob, *, arr):
        return arr

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::binomial is not implemented")


def binomial(count, prob, generator=None):
    """Samples of Binomial(count, prob), elementwise and broadcast, in count's float dtype,
    drawn from minitorch's generator. Mirrors torch.binomial.

    On the CPU torch's numbers (NOTE [ torch's count draws ] in
    minitorch/_backend/torch_stream_counts.py). As in torch, counts below 0 give 0 and
    probabilities are clamped to [0, 1].

    Differences from torch: a NaN count or probability gives NaN (torch's loop may never end);
    on a GPU the stream is CuPy's."""
    from minitorch._ops import broadcast_tensors

    for name, pos, x in (("count", 1, count), ("prob", 2, prob)):
        if not isinstance(x, Tensor):
            raise TypeError(
                f"binomial(): argument '{name}' (position {pos}) must be Tensor, not "
                f"{type(x).__name__}"
            )
    for name, x in (("count", count), ("prob", prob)):
        if not x.dtype.is_floating_point:
            kind = _dtype.scalar_name(x.dtype)
            raise ValueError(
                f"binomial only supports floating-point dtypes for {name}, got: {kind}"
            )
    count_b, prob_b = broadcast_tensors(count, prob)  # torch checks the sizes first
    if prob.dtype != count.dtype:
        raise RuntimeError(
            f"Found dtype {_dtype.scalar_name(prob.dtype)} but expected "
            f"{_dtype.scalar_name(count.dtype)}"
        )
    if count._device is cpu and count.dtype.itemsize < 4:  # torch's CPU kernel: float, double
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{_dtype.scalar_name(count.dtype)}'"
        )
    xp = backend_of(count._device).xp
    n = count_b._data.astype("float64")
    p = prob_b._data.astype("float64")
    bad = xp.isnan(n) | xp.isnan(p)
    n_int = xp.floor(xp.clip(xp.where(bad, 0.0, n), 0.0, 2.0**62)).astype("int64")
    p_clip = xp.clip(xp.where(bad, 0.0, p), 0.0, 1.0)
    s = _stream(count._device, generator, "binomial")
    if s is not None:  # torch's draws (NOTE [ torch's count draws ])
        from minitorch._backend.torch_stream_counts import binomial as torch_binomial

        f32 = count.dtype == _dtype.float32
        out = s.wrap(torch_binomial(s, s.unwrap(n), s.unwrap(p), f32).astype(count._data.dtype))
        return _Binomial.apply(count_b, prob_b, arr=out)
    draws = _sample(count._device, generator, "binomial", lambda rng: rng.binomial(n_int, p_clip))
    out = xp.where(bad, math.nan, draws).astype(count._data.dtype)
    return _Binomial.apply(count_b, prob_b, arr=xp.asarray(out))


def get_device(input: Tensor) -> int:
    """-1 for a CPU tensor, else its device index. Mirrors torch.get_device."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"get_device(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return input.get_device()


def is_distributed(input: Tensor) -> bool:
    """False: no tensor is distributed here. Mirrors torch.is_distributed."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_distributed(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return False


def is_vulkan_available() -> bool:
    """False: minitorch has no Vulkan backend. Mirrors torch.is_vulkan_available."""
    return False


def compiled_with_cxx11_abi() -> bool:
    """True, as every current torch build; minitorch compiles nothing. Mirrors
    torch.compiled_with_cxx11_abi."""
    return True


# --- Tensor.resize_, resize_as_ ---


def _sizes(args, op: str) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if not all(s.__class__ is int for s in args):  # NOTE [ Int-like arguments ]
        from minitorch._tensor_methods import _int_list

        args = _int_list(args, op, "size")
    if any(s < 0 for s in args):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(args)}")
    return tuple(args)


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Gives self the shape `sizes`, row-major over its memory from where self starts (as
    torch keeps the storage and its offset: a transposed 3x2 resized to 2x3 reads the storage in
    order, not the transposed values). Mirrors torch.Tensor.resize_.

    A memory_format lays the same memory out in that format, even at the same shape (as
    torch restrides then, without a version bump).

    Differences from torch: new elements are zeros (torch leaves them uninitialised); growing
    past the memory moves self and its base to new memory holding the old bytes, so other views
    taken earlier no longer see it (torch grows the storage that every view shares)."""
    from minitorch import _memory_format
    from minitorch._ops.inplace import restride_

    fmt = None if memory_format is None else _memory_format.check(memory_format, "resize_")
    shape = _sizes(sizes, "resize_")
    if self.requires_grad and not state.inference:  # (autograd's check: inference mode skips it)
        raise RuntimeError("cannot resize variables that require grad")
    if fmt is _memory_format.preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")  # (sic: torch's text)
    order = _memory_format._ORDERS.get(fmt)
    if order is not None and len(shape) != order[0]:
        raise _memory_format._rank_error(fmt, len(shape))
    if tuple(self.shape) == shape and fmt is None:
        return self
    if tuple(self.shape) != shape:
        self._vc[0] += 1
    old = self._data
    restride_(self, shape)  # (grows the memory where it is too short: see there)
    if (self._grad_fn or self._grad_acc) is not None:  # (in inference mode: no record)
        reshaped_in_place(self, old.shape, old.dtype)
    if order is not None:  # the same elements of memory, read in the format's order
        perm = order[1]
        back = sorted(range(len(perm)), key=perm.__getitem__)
        self._data = self._data.reshape([shape[a] for a in perm]).transpose(back)
    return self


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """input resized in place to the_template's shape. Mirrors torch.resize_as_ (and the
    method, torch.Tensor.resize_as_)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            "resize_as_(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return _resize_as(input, the_template, memory_format, 2)


def _resize_as(self: Tensor, the_template: Tensor, memory_format, pos: int) -> Tensor:
    """resize_as_ of the function (the template's position 2) or the method (position 1)."""
    if not isinstance(the_template, Tensor):
        raise TypeError(
            f"resize_as_(): argument 'the_template' (position {pos}) must be Tensor, not "
            f"{type(the_template).__name__}"
        )
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


def resize(self: Tensor, *sizes) -> Tensor:
    """The deprecated out-of-place resize: self's elements, in row-major order, in the shape
    `sizes`, which must hold as many (a reshape sharing self's memory when self is contiguous).
    Mirrors torch.Tensor.resize, with its deprecation warning.

    Differences from torch: `sizes` may also be one tuple, as for resize_ (torch's varargs
    take only separate ints)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=3)
    return _resize_out_of_place(self, sizes)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """resize to tensor's shape. Mirrors torch.Tensor.resize_as, with its deprecation warning."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"resize_as(): argument 'tensor' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=3)
    return _resize_out_of_place(self, tuple(tensor.shape))


def _resize_out_of_place(self: Tensor, sizes) -> Tensor:
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not all(s.__class__ is int for s in sizes):  # NOTE [ Int-like arguments ]
        from minitorch._tensor_methods import _int_list

        sizes = _int_list(sizes, "resize", "size")
    n = math.prod(sizes)
    if n != self.numel():
        # torch's autograd Resize (a reshape, unlike resize_, which may change the element count)
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in total), but the "
            f"given tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} "
            "elements). autograd's resize can only change the shape of a given tensor, while "
            "preserving the number of elements. "
        )
    # torch's node: its Python autograd Function Resize's (torch.autograd.function.ResizeBackward)
    return name_node(self.contiguous().view(sizes), "ResizeBackward", (self,))
