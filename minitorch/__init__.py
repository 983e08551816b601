"""minitorch: PyTorch's imperative deep learning in pure Python over NumPy (CPU) and CuPy (GPU)."""

from __future__ import annotations

import builtins as _builtins
import math as _math
import warnings as _warnings

import numpy as _np  # (sym_max/sym_min accept NumPy scalars, as torch)

# Each submodule imports what it builds on, so this order is free (ruff sorts it).
from minitorch import (  # noqa: F401
    _dtype,
    _ops,  # binds the Tensor methods: see NOTE [ Late binding of ops ]
    autograd,
    return_types,
)
from minitorch._arg_errors import REQUIRED as _REQUIRED
from minitorch._backend import Device as device  # noqa: F401  (torch.device is the class)
from minitorch._backend import OutOfMemoryError, set_default_device  # noqa: F401
from minitorch._dlpack import from_dlpack  # noqa: F401
from minitorch._dtype import (  # noqa: F401
    bfloat16,
    bool,
    can_cast,
    double,
    dtype,
    finfo,
    float,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from minitorch._factories import *  # noqa: F403
from minitorch._memory_format import *  # noqa: F403
from minitorch._misc_api import *  # noqa: F403
from minitorch._ops import *  # noqa: F403
from minitorch._ops import mm as spmm  # noqa: F401  (torch.spmm is mm for dense tensors)
from minitorch._settings import *  # noqa: F403
from minitorch._tensor import Size, Tensor  # noqa: F401
from minitorch.autograd.anomaly_mode import (  # noqa: F401
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from minitorch.autograd.grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from minitorch.random import (  # noqa: F401
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from minitorch.torch_version import TorchVersion as _TorchVersion

__version__ = _TorchVersion("0.1.0")  # compares as a version: __version__ >= (0, 1)

# torch's constants (torch.pi, -torch.inf in masks, x[:, torch.newaxis])
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None


def get_default_device() -> device:
    """The device factories use when none is given. Mirrors torch.get_default_device."""
    from minitorch._backend import default_device, tensor_device

    d = default_device()
    if d.type != "cuda" or d.index is not None:
        return d  # as set: 'cpu:0' keeps its index, 'cuda:1' is not checked (torch's)
    from minitorch.cuda._utils import lazy_init

    lazy_init()  # 'cuda' takes the current device: torch's AssertionError where there is none
    return tensor_device(d)


def result_type(tensor=_REQUIRED, other=_REQUIRED, *extra):
    """The dtype an op on these operands returns. Mirrors torch.result_type."""
    from minitorch._ops._common import number

    given = tensor, other
    tensor, other = number(tensor), number(other)  # NumPy scalars as numbers
    numbers = (Tensor, _builtins.bool, _builtins.int, _builtins.float)
    if extra or not (isinstance(tensor, numbers) and isinstance(other, numbers)):
        # torch's parser lists the overloads for any misfit: a type, an argument too few or many
        from minitorch._ops._parser_errors import overload_error

        forms = (
            "Tensor tensor, Tensor other", "Number scalar, Tensor tensor",
            "Tensor tensor, Number other", "Number scalar1, Number scalar2",
        )  # fmt: skip
        named = [("tensor", given[0]), ("other", given[1])]
        named += [(f"extra{i}", x) for i, x in enumerate(extra)]
        raise overload_error("result_type", forms, forms, named)
    for t in (tensor, other):  # NOTE [ Ints beyond a Scalar ]
        if t.__class__ is _builtins.int and not _dtype.SCALAR_INT_MIN <= t < _dtype.SCALAR_INT_END:
            raise _dtype.scalar_int_overflow(t)
    ops = [(t.dtype, t.ndim) if isinstance(t, Tensor) else t for t in (tensor, other)]
    return _dtype.result_type(*ops)


def is_tensor(obj) -> bool:
    """Mirrors torch.is_tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    """Mirrors torch.is_floating_point."""
    if not isinstance(input, Tensor):
        from minitorch._ops._common import not_tensor

        raise not_tensor("is_floating_point", input)
    return input.dtype.is_floating_point


def numel(input) -> int:
    """Mirrors torch.numel."""
    if not isinstance(input, Tensor):
        from minitorch._ops._common import not_tensor

        raise not_tensor("numel", input)
    return input.numel()


def _assert(condition, message):
    """Raises AssertionError(message) when condition is false (a bool or a one-element tensor,
    read on the host as torch does). Mirrors torch._assert, the shape check of torchvision's and
    timm's models."""
    if not condition:
        raise AssertionError(message)


def _assert_async(input, assert_msg=None) -> None:
    """RuntimeError(assert_msg) when the one-element tensor input is zero (False). Mirrors
    torch._assert_async.

    Differences from torch: on a GPU the value is not checked (reading it would synchronise;
    torch checks it on the device and reports a failure at a later kernel launch); the element
    count is checked on every device."""
    if not isinstance(input, Tensor):
        from minitorch._ops._common import not_tensor

        raise not_tensor("_assert_async", input)
    n = input.numel()
    if n != 1:
        what = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    if input._device.type != "cpu":
        return
    if not input._device.backend.to_host(input._data).reshape(()) != 0:
        if assert_msg is None:
            raise RuntimeError("Expected Tensor with single nonzero value, but got zero")
        raise RuntimeError(assert_msg or "Assertion is failed")  # torch's words for ""


def _assert_scalar(self, assert_msg) -> None:
    """RuntimeError(assert_msg) when the number (or bool) self is false. Mirrors
    torch._assert_scalar, the runtime check torch.export inserts for symbolic sizes."""
    if not self:
        raise RuntimeError(assert_msg)


# torch's keyword names, though dtype and device shadow minitorch.dtype / minitorch.device here
def _assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None, layout=None):  # noqa: F811
    """RuntimeError when a's size, stride, dtype, device or layout is not the one given (None
    skips a check). Mirrors torch._assert_tensor_metadata."""
    from minitorch._backend import Device
    from minitorch._dtype import CPP_NAMES, scalar_name

    checks = (
        ("sizes", size, lambda: list(a.shape), list),
        ("strides", stride, lambda: list(a.stride()), list),
        ("dtype", dtype, lambda: a.dtype, lambda d: d),
        ("device", device, lambda: a.device, Device),
        ("layout", layout, lambda: a.layout, lambda x: x),
    )
    for what, expected, actual, convert in checks:
        if expected is None:
            continue
        got, expected = actual(), convert(expected)
        if got != expected:
            if what == "dtype":  # torch names the two sides differently: Double vs float
                expected, got = scalar_name(expected), CPP_NAMES[got.name]
            raise RuntimeError(f"Tensor {what} mismatch! Expected: {expected}, Got: {got}")


def typename(obj) -> str:
    """'torch.FloatTensor' for a tensor, else the dotted name of obj (a class or function) or of
    its class: 'numpy.ndarray', 'int', 'minitorch.nn.modules.linear.Linear'. Mirrors
    torch.typename."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# torch computes 1/0, log(0), 0/0 silently (inf, -inf, nan): so do the kernels, whose NumPy
# RuntimeWarnings are attributed to minitorch's op and backend modules (and to the autograd
# engine, which sums the gradients reaching a node: inf + -inf is nan there too; and to _dtype,
# whose casts make a number beyond a 2-byte float's range inf, as c10's do, silently).
_KERNEL_MODULES = r"minitorch\.(_ops|_backend|_dtype|autograd\.engine)"
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=_KERNEL_MODULES)


# NOTE [ Lazy submodules ]
# nn, optim, utils and serialization are imported on first use (`torch.nn`, `from minitorch import
# nn`, `torch.save`): `import minitorch` stays fast for tensor-only scripts.
_LAZY_MODULES = (
    "cuda",  # (which imports no CuPy until a GPU is used)
    "linalg",
    "library",
    "nn",
    "optim",
    "utils",
    "serialization",
    "accelerator",
    "backends",
    "special",
    "testing",
    "amp",
    "cpu",
    "func",
    "distributions",
    "jit",
    "compiler",
    "profiler",
    "storage",
    "multiprocessing",
    "hub",
    "version",
    "signal",
    "fx",
    "functional",
    "types",
    "mps",
    "xpu",
    "distributed",
    "_dynamo",
    "_inductor",
    "_logging",
    "_tensor_str",  # torch._tensor_str.PRINT_OPTS / printoptions / get_printoptions
    "__config__",
    "sparse",
    "__future__",  # torch.__future__ (minitorch/__future__.py), not the standard library module
    "_C",  # the few torch._C helpers libraries call (minitorch/_C.py), no C extension
    "overrides",
    "onnx",
    "_utils",
    "futures",
    "masked",
    "quasirandom",
    "_VF",  # torch._VF, the native functions copied module code calls (minitorch/_VF.py)
)
_LAZY_NAMES = {
    "AcceleratorError": "accelerator",
    "ops": "_op_registry",
    "save": "serialization",
    "load": "serialization",
    "set_printoptions": "_tensor_str",
    "vmap": "func",
    "UntypedStorage": "storage",
    "TypedStorage": "storage",
    "Storage": "storage",  # the legacy storage classes: NOTE [ Legacy storage classes ]
    **dict.fromkeys(
        """DoubleStorage FloatStorage HalfStorage BFloat16Storage LongStorage IntStorage
        ShortStorage CharStorage ByteStorage BoolStorage""".split(),
        "storage",
    ),
    "GradScaler": "amp",  # torch.GradScaler is torch.amp.GradScaler
    "Future": "futures",  # torch.Future: the base of torch.futures.Future, one class here
    "lobpcg": "_lobpcg",
}
# torch.hann_window, ..., torch.tril_indices, torch.unravel_index (minitorch/_windows.py)
_LAZY_NAMES.update(
    dict.fromkeys(
        """hann_window hamming_window blackman_window bartlett_window kaiser_window tril_indices
        triu_indices unravel_index""".split(),
        "_windows",
    )
)
# torch.autocast and autocast's state functions (minitorch/amp/autocast_mode.py)
_LAZY_NAMES.update(
    dict.fromkeys(
        """autocast is_autocast_enabled set_autocast_enabled get_autocast_dtype set_autocast_dtype
        get_autocast_gpu_dtype get_autocast_cpu_dtype set_autocast_gpu_dtype set_autocast_cpu_dtype
        is_autocast_cpu_enabled set_autocast_cpu_enabled clear_autocast_cache
        autocast_increment_nesting autocast_decrement_nesting is_autocast_cache_enabled
        set_autocast_cache_enabled""".split(),
        "amp.autocast_mode",
    )
)
# torch.conv2d, torch.batch_norm, torch.dropout, ...: the torch.* forms of nn ops, kept in
# minitorch/nn/_torch_namespace.py (its __all__ is this list; a test checks they agree)
_NN_TORCH_NAMES = """
    conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d convolution conv_tbc
    avg_pool1d max_pool1d max_pool2d max_pool3d max_pool1d_with_indices adaptive_avg_pool1d
    adaptive_max_pool1d batch_norm layer_norm group_norm instance_norm rms_norm dropout dropout_
    alpha_dropout alpha_dropout_ feature_dropout feature_dropout_ feature_alpha_dropout
    feature_alpha_dropout_ embedding embedding_bag embedding_renorm_ pixel_shuffle
    pixel_unshuffle channel_shuffle native_channel_shuffle cosine_similarity pairwise_distance
    pdist kl_div hinge_embedding_loss margin_ranking_loss cosine_embedding_loss
    triplet_margin_loss poisson_nll_loss binary_cross_entropy_with_logits ctc_loss prelu rrelu
    rrelu_ hardshrink threshold threshold_ constant_pad_nd rnn_tanh_cell rnn_relu_cell lstm_cell
    gru_cell bilinear affine_grid_generator grid_sampler grid_sampler_2d grid_sampler_3d
    native_dropout native_layer_norm native_batch_norm native_group_norm rnn_tanh rnn_relu lstm
    gru norm_except_dim _weight_norm _softmax_backward_data
""".split()
_LAZY_NAMES.update(dict.fromkeys(_NN_TORCH_NAMES, "nn._torch_namespace"))
# torch.sort, torch.cumsum, torch.svd, ...: the ops of minitorch._ops' lazy families (NOTE [ Lazy
# op families ]), bound here on first use
_LAZY_NAMES.update(dict.fromkeys(_ops._LAZY_OPS, "_ops"))


# torch.has_<x>: what torch.backends says of x (the first four warn that they are deprecated, as
# torch's do)
_BUILD_FLAGS = {
    "has_cuda": ("cuda", "is_built"),
    "has_cudnn": ("cudnn", "is_available"),
    "has_mps": ("mps", "is_built"),
    "has_mkldnn": ("mkldnn", "is_available"),
    "has_openmp": ("openmp", "is_available"),
    "has_mkl": ("mkl", "is_available"),
    "has_lapack": None,  # NumPy always brings LAPACK
    "has_spectral": None,
}


def _build_flag(name: str) -> bool:
    spec = _BUILD_FLAGS[name]
    if spec is None:
        return True
    backend, query = spec
    if name in ("has_cuda", "has_cudnn", "has_mps", "has_mkldnn"):
        where = f"torch.backends.{backend}.{query}()"
        _warnings.warn(f"'{name}' is deprecated, please use '{where}'", UserWarning, stacklevel=3)
    import minitorch.backends

    return getattr(getattr(minitorch.backends, backend), query)()


def __getattr__(name):
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"minitorch.{name}")
    if name.startswith("_foreach_"):  # torch._foreach_add_, ... (minitorch/_foreach.py)
        foreach = importlib.import_module("minitorch._foreach")
        if name in foreach.__all__:
            globals()[name] = value = getattr(foreach, name)
            return value
    if name in _BUILD_FLAGS:  # torch.has_cuda, ...: deprecated build flags
        return _build_flag(name)
    if name in _LAZY_NAMES:
        module = _LAZY_NAMES[name]
        value = getattr(importlib.import_module(f"minitorch.{module}"), name)
        if module == "_ops" or module == "_windows":  # later calls find it without coming here
            globals()[name] = value
        return value
    raise AttributeError(f"module 'minitorch' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_MODULES) | set(_LAZY_NAMES))


# --- torch._check*: the guards of torch's meta kernels, HF and torchvision code ---

_CHECK_DEFAULT = "Expected cond to be True, but got False."


def _check_with(error_type, cond, message=None) -> None:
    """Raises error_type(message()) when cond (a Python bool) is False. Mirrors
    torch._check_with.

    Differences from torch: the default message omits torch's request to report it."""
    if not (
        isinstance(error_type, type)
        and issubclass(error_type, Exception)
        and not issubclass(error_type, Warning)
    ):
        raise AssertionError(
            f"error_type must be a subclass of Exception but not Warning, got {error_type}"
        )
    if cond.__class__ is not _builtins.bool:  # torch: no int, NumPy bool or tensor here
        if isinstance(cond, Tensor):
            raise TypeError(
                "cond must be a bool, but got a Tensor. For tensor conditions, use "
                "torch._check_tensor_all() to assert that all elements are true."
            )
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        raise error_type(_CHECK_DEFAULT)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _check(cond, message=None) -> None:
    """RuntimeError(message()) when cond is False. Mirrors torch._check."""
    _check_with(RuntimeError, cond, message)


def _check_value(cond, message=None) -> None:
    """ValueError(message()) when cond is False. Mirrors torch._check_value."""
    _check_with(ValueError, cond, message)


def _check_index(cond, message=None) -> None:
    """IndexError(message()) when cond is False. Mirrors torch._check_index."""
    _check_with(IndexError, cond, message)


def _check_type(cond, message=None) -> None:
    """TypeError(message()) when cond is False. Mirrors torch._check_type."""
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None) -> None:
    """NotImplementedError(message()) when cond is False. Mirrors
    torch._check_not_implemented."""
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(error_type, cond, message=None) -> None:
    """error_type(message()) unless every element of the bool tensor cond is True (read on the
    host, as torch does). Mirrors torch._check_tensor_all_with."""
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype is not bool:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, _builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond, message=None) -> None:
    """RuntimeError unless every element of cond is True. Mirrors torch._check_tensor_all."""
    _check_tensor_all_with(RuntimeError, cond, message)


def _check_is_size(i, message=None, *, max=None) -> None:
    """Checks that i can be a size (0 <= i, and i <= max when given). Mirrors
    torch._check_is_size, deprecated as in torch."""
    _warnings.warn(
        "_check_is_size will be removed in a future PyTorch release along with "
        "guard_size_oblivious. Use _check(i >= 0) instead.",
        FutureWarning,
        stacklevel=2,
    )
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


# --- symbolic-shape helpers: minitorch has no symbolic sizes, so they act on Python numbers ---


class SymInt:
    """The type of torch's symbolic ints; minitorch's sizes are plain ints, so nothing is an
    instance (isinstance(n, torch.SymInt) is False, as for a concrete int in torch)."""


class SymFloat:
    """See SymInt."""


class SymBool:
    """See SymInt."""


def sym_int(a):
    """int(a): a float rounds toward zero, a one-element tensor, a NumPy scalar or a string is
    read as int() reads it, a bool becomes 0 or 1. Mirrors torch.sym_int."""
    return a if a.__class__ is _builtins.int else _builtins.int(a)


def sym_float(a):
    """float(a). Mirrors torch.sym_float."""
    return _builtins.float(a)


def sym_not(a):
    """not a. Mirrors torch.sym_not."""
    return not a


def _sym_number(out, a, b):
    # torch's sym_max/sym_min take only numbers (a tensor fails its assert) and return a float
    # when either is a float (a NumPy float included)
    for x in (a, b):
        if not isinstance(x, _SYM_NUMBERS):
            raise AssertionError(f"expected {_SYM_NUMBERS}, got {type(x)}")
    if isinstance(a, _SYM_FLOATS) or isinstance(b, _SYM_FLOATS):
        return _builtins.float(out)
    return out


_SYM_NUMBERS = (_np.integer, _np.floating, _builtins.int, _builtins.float)
_SYM_FLOATS = (_np.floating, _builtins.float)


def sym_max(a, b):
    """The larger of a and b, a float if either is. Mirrors torch.sym_max."""
    return _sym_number(_builtins.max(a, b), a, b)


def sym_min(a, b):
    """The smaller of a and b, a float if either is. Mirrors torch.sym_min."""
    return _sym_number(_builtins.min(a, b), a, b)


_DEVICE_MODULES = ("cpu", "cuda", "mps", "xpu")


def get_device_module(device=None):
    """The module for a device type (minitorch.cuda for "cuda:1"); with no device, the current
    accelerator's, else minitorch.cpu. Mirrors torch.get_device_module."""
    import importlib

    from minitorch._backend import Device

    if device is None:
        from minitorch import accelerator

        current = accelerator.current_accelerator()
        kind = "cpu" if current is None else current.type
    elif isinstance(device, (Device, str)):
        kind = (device if isinstance(device, Device) else Device(device)).type
    else:  # an index, bytes, ...: torch refuses them before parsing
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    if kind not in _DEVICE_MODULES:
        raise RuntimeError(
            f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'."
        )
    return importlib.import_module(f"minitorch.{kind}")


def _fill_tensor_docs() -> None:
    # last, once every eagerly loaded function is bound here (NOTE [ Generated method
    # docstrings ] in minitorch/_tensor.py); under 0.5 ms for ~540 docstrings
    from minitorch._tensor import _fill_method_docs

    _fill_method_docs(globals(), _ops._LAZY_OPS)


_fill_tensor_docs()
del _fill_tensor_docs

from minitorch import _einops  # noqa: E402 (after the package is complete)

_einops.install()  # NOTE [ einops backend ]
