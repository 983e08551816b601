"""Tensor: an array on a device and its autograd state; methods are one-line calls into the ops."""

from __future__ import annotations

import numbers
import os
import sys
import warnings
import weakref
from collections import OrderedDict

from minitorch import _dtype
from minitorch._arg_errors import (
    REQUIRED,
    arity_error,
    missing_positional,
    no_arguments,
    too_many_positional,
    unexpected_keyword,
)
from minitorch._backend import Device, backend_of
from minitorch._tensor_methods import (
    TensorMethods,
    _at,
    _index,
    _name_as_tensor_methods,
    _type_name,
)

__all__ = ["Tensor", "Size"]


_INT_ONLY = frozenset((int,))
_SAME_DTYPE = object()  # grad_dtype not set: the tensor's own dtype (NOTE [ grad_dtype ])


class Size(tuple):
    """A shape: a tuple of ints. Mirrors torch.Size (whose messages name its type torch.Size)."""

    __slots__ = ()

    def __new__(cls, sizes=(), /, *extra, **kwargs):
        if extra or kwargs:
            raise TypeError(
                "tuple() takes no keyword arguments"
                if kwargs
                else f"tuple expected at most 1 argument, got {1 + len(extra)}"
            )
        # A tuple of plain ints (array shapes) passes one C-level scan of its element types
        # (~0.3 us; .shape itself skips __new__ through _new_size). Anything else is converted
        # element by element as torch does: an int-like (bool, NumPy int, one-element integer
        # tensor) becomes its int, so hashes and equality match a tuple of ints.
        if sizes.__class__ is tuple and _INT_ONLY.issuperset(map(type, sizes)):
            if sizes and not _I64_MIN <= min(sizes) <= max(sizes) <= _I64_MAX:
                raise ValueError("Overflow when unpacking long long")
            return tuple.__new__(cls, sizes)
        items = []
        for i, s in enumerate(sizes):
            if s.__class__ is not int:
                try:
                    s = s.__index__()  # a Tensor's refuses floats and several elements
                except (AttributeError, TypeError):
                    raise TypeError(
                        f"torch.Size() takes an iterable of 'int' (item {i} is "
                        f"'{_tp_name(s)}')"
                    ) from None
            if not _I64_MIN <= s <= _I64_MAX:
                raise ValueError("Overflow when unpacking long long")
            items.append(s)
        return tuple.__new__(cls, items)

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:  # object's refusal, naming the type as torch's does
            raise TypeError("unsupported format string passed to torch.Size.__format__")
        return str(self)

    def numel(self) -> int:
        """The product of the sizes, in int64 arithmetic as torch's (an overflow wraps)."""
        n = 1
        for s in self:
            n *= s
        if not _I64_MIN <= n <= _I64_MAX:
            n = (n + 2**63) % 2**64 - 2**63
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return tuple.__new__(Size, out) if isinstance(key, slice) else out  # ints already

    def __add__(self, other):
        if not isinstance(other, tuple):
            if hasattr(type(other), "__radd__") and type(other).__module__ != "builtins":
                return NotImplemented  # (a NumPy array adds elementwise)
            raise TypeError(f"can only concatenate tuple (not {_tp_name(other)}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            # What Python says after this, with torch's name for the type
            if isinstance(other, (list, str)):
                what = type(other).__name__
                raise TypeError(f'can only concatenate {what} (not "torch.Size") to {what}')
            if type(other).__module__ == "builtins" and not isinstance(other, (bytes, bytearray)):
                raise TypeError(
                    f"unsupported operand type(s) for +: '{_tp_name(other)}' and 'torch.Size'"
                )
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        if not hasattr(type(n), "__index__"):
            what = "torch.Size" if isinstance(n, Size) else _tp_name(n)
            raise TypeError(f"can't multiply sequence by non-int of type '{what}'")
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


_TORCH_C_TYPES = frozenset({"dtype", "device", "layout", "memory_format"})


def _tp_name(x) -> str:
    """x's type as CPython's tp_name gives it, which torch's messages print: the bare name of a
    class defined in Python ("NT"), the dotted one of a C type ("collections.OrderedDict",
    "numpy.float64"); "torch.Size" for a Size."""
    cls = type(x)
    if cls is Size:
        return "torch.Size"
    if cls.__name__ in _TORCH_C_TYPES and cls.__module__ == "minitorch":
        return f"torch.{cls.__name__}"  # torch's C types: "torch.dtype", "torch.device", ...
    if cls.__module__ == "minitorch._C":
        return f"torch._C.{cls.__name__}"  # (a Generator)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1
_new_size = tuple.__new__  # Size(shape) without Size.__new__'s Python frame (~0.25 us)


class Tensor(TensorMethods):
    """A multi-dimensional array with autograd. Mirrors torch.Tensor.

    `_data` is the raw NumPy/CuPy array (what kernels read); `.data` is torch's detached view.
    """

    # NOTE [ Tensor attributes ]
    # Hot attributes live in slots; rarely set ones (`_output_nr`, hooks, view bookkeeping) are
    # class defaults overridden in the instance __dict__, so building a tensor sets only the
    # slots below.
    __slots__ = (
        "_data",
        "_device",
        "_requires_grad",
        "_grad_fn",
        "_vc",
        "_base",
        "_grad",
        "__dict__",
        "__weakref__",
    )

    _output_nr = 0
    _grad_acc = None
    _hooks = None
    _view_version = 0
    _view_chain = ()
    _retains_grad = False
    _post_acc_hooks = None  # register_post_accumulate_grad_hook's {handle id: hook}
    _grad_views = None  # a base's views that follow its requires_grad (function.py GradViews)
    _rg_inherited = False  # a leaf view requiring grad only through its base's flag

    # numpy defers `ndarray op tensor` to our reflected operators.
    __array_priority__ = 1000

    # Whether instances hand ops to their class's __torch_function__: read only for subclasses
    # (Function.apply tells a plain tensor by its class). See NOTE [ Tensor subclasses ].
    _dispatches = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        from minitorch._subclass import setup_subclass

        setup_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Runs func with subclass dispatch off and returns its Tensor results as cls (inside
        tuples and lists too). Mirrors torch.Tensor.__torch_function__."""
        from minitorch._subclass import default_torch_function

        return default_torch_function(cls, func, types, args, kwargs)

    def as_subclass(self, cls=REQUIRED):
        """This tensor as an instance of cls: same memory, on this tensor's graph.
        Mirrors torch.Tensor.as_subclass."""
        from minitorch._subclass import as_subclass

        return as_subclass(self, cls)

    @staticmethod
    def _make_subclass(cls, data, require_grad=False, *args, **kwargs):
        """A detached leaf instance of cls over data's memory. Mirrors
        torch.Tensor._make_subclass."""
        from minitorch._subclass import make_subclass

        return make_subclass(cls, data, require_grad, *args, **kwargs)

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(...) legacy constructor: Tensor(2, 3) is uninitialised float, Tensor([..])
        # copies data as the default float dtype. As torch's, it runs in __new__, so a subclass's
        # own __new__ builds its instance with super().__new__(cls, data) and its __init__ need
        # not call Tensor's (snnTorch's _SpikeTensor). Internal tensors never come here (_make).
        from minitorch._factories import _legacy_tensor_init

        self = _new(cls)
        _legacy_tensor_init(self, *args, **kwargs)
        return self

    def __init__(self, *args, **kwargs):
        pass  # built by __new__; any arguments are taken, as torch's

    # --- identity and metadata ---

    @property
    def dtype(self):
        return _dtype.from_numpy(self._data.dtype)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def shape(self) -> Size:
        return _new_size(Size, self._data.shape)  # an array's shape is ints: no checks needed

    def size(self, dim=None, *extra, axis=None):
        if dim is None:
            if axis is not None:  # torch takes NumPy's name too
                return self.size(axis)
            return _new_size(Size, self._data.shape)
        if extra:  # x.size(1, 2): torch's count leaves out self
            raise too_many_positional("size", 1 + len(extra), 1, 0)
        return self._data.shape[_dim_arg(dim, self._data.ndim, "size")]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def stride(self, dim=None, *extra, axis=None):
        """Strides in elements. Mirrors torch.Tensor.stride (axis= is NumPy's name for dim)."""
        if axis is not None and dim is None:
            dim = axis
        if extra:  # x.stride(0, 1): torch's count leaves out self
            raise too_many_positional("stride", 1 + len(extra), 1, 0)
        x = self._data
        # an empty view of memory (x[:, :0], x.expand(0, 3)) keeps its view op's strides, as torch;
        # so does an empty array given strides (an empty reshape's, a channels_last copy's, one
        # as_strided made, whose base is no array: NOTE [ Empty views ] in minitorch/_ops/shape.py)
        if x.size or any(x.strides) or getattr(x.base, "size", x.base is not None):
            item = x.itemsize
            strides = tuple(s // item for s in x.strides)
            if 0 in strides and 1 in x.shape and (x.size or getattr(x.base, "size", 0)):
                strides = _size_one_strides(x.shape, strides)
        else:  # NumPy gives an empty array zero strides; torch the contiguous ones
            strides, n = [], 1
            for s in reversed(x.shape):
                strides.append(n)
                n *= max(s, 1)
            strides = tuple(reversed(strides))
        if dim is None:
            return strides
        return strides[_dim_arg(dim, self._data.ndim, "stride")]

    def storage_offset(self) -> int:
        root = _storage_root(self)
        if root is self:
            return 0
        b = backend_of(self._device)
        return (b.data_ptr(self._data) - b.data_ptr(root._data)) // self._data.itemsize

    def is_contiguous(self, *args, memory_format=None) -> bool:
        """Whether the elements lie densely in memory_format's order (row-major by default).
        Mirrors torch.Tensor.is_contiguous."""
        if args:
            from minitorch._tensor_methods import _takes_no_arguments

            _takes_no_arguments("is_contiguous", args)
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        from minitorch import _memory_format

        fmt = _memory_format.check(memory_format, "is_contiguous", _memory_format.contiguous_format)
        return _memory_format.is_in(self._data, fmt)

    def dim_order(self, *, ambiguity_check=False) -> tuple:
        """The dims from the outermost to the innermost in memory. ambiguity_check=True (or a
        list of memory formats the layout must match exactly one of) refuses a layout that more
        than one order describes. Mirrors torch.Tensor.dim_order (experimental in torch)."""
        if isinstance(ambiguity_check, bool):
            formats, check = (), ambiguity_check
        elif isinstance(ambiguity_check, list):
            formats, check = ambiguity_check, True
        else:
            raise TypeError(
                "The ambiguity_check argument must be a bool or a list of memory formats."
            )
        shape, strides = self.shape, self.stride()
        # a size-1 dim or two neighbours with one stride can sit anywhere: torch's check first
        repeated = any(a == b for a, b in zip(strides, strides[1:], strict=False))
        if check and (1 in shape or repeated):
            if sum(bool(self.is_contiguous(memory_format=f)) for f in formats) != 1:
                raise RuntimeError(
                    "The tensor does not have unique dim order, or cannot map to exact one of "
                    "the given memory formats."
                )
        order, sorted_ = _dim_order(self, shape, strides)
        if ambiguity_check and sorted_ and _order_ambiguous(order, shape, strides):
            raise RuntimeError("The tensor does not have unique dim order.")
        return tuple(order)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def data_ptr(self) -> int:
        if not self._data.size:  # torch's tensors without elements point nowhere
            return 0
        if self._device.type == "meta":  # torch's meta storages start at 0 (NOTE [ The meta
            return self.storage_offset() * self._data.itemsize  # device ])
        return self._device.backend.data_ptr(self._data)

    def const_data_ptr(self) -> int:
        """data_ptr() for reading (minitorch has no copy-on-write memory to materialise).
        Mirrors torch.Tensor.const_data_ptr."""
        return self.data_ptr()

    def get_device(self) -> int:
        if self._device.type in ("cpu", "meta"):
            return -1
        return self._device.index or 0

    @property
    def is_leaf(self) -> bool:
        if self._base is not None:
            # a view whose base changed in place takes its new history first, as torch's
            # is_leaf reads grad_fn (x[i] = w through a leaf view makes it a non-leaf)
            return self.grad_fn is None
        return self._grad_fn is None

    @property
    def _version(self) -> int:
        if self._vc.__class__ is not list:
            _refuse_inference_version(self)
        return self._vc[0]

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (its _base). Mirrors torch.Tensor._is_view."""
        return self._base is not None

    def __hash__(self):
        return id(self)

    # --- autograd state ---

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:  # torch's setter takes a bool only (1, None refused)
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None and value:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if value and self._grad_fn is None and not self.dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad.__class__ is not bool:
            from minitorch._dtype import _typename

            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{_typename(requires_grad)}"
            )
        from minitorch.autograd.grad_mode import state

        if state.transforms:
            _refuse_requires_grad_in_transform()
        if (self._grad_fn if self._base is None else self.grad_fn) is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._vc.__class__ is not list:
            _refuse_inference_requires_grad(self)
        base = self._base
        if base is not None and base._requires_grad:
            # a leaf view of a base that requires grad requires grad with it; its own flag says
            # whether it has a gradient of its own (NOTE [ Views and grad mode ])
            d = self.__dict__
            if requires_grad:
                d.pop("_rg_inherited", None)
            elif not d.get("_rg_inherited"):
                d["_rg_inherited"] = True
                self._grad_acc = None  # graphs recorded already keep accumulating, as torch's
            self._requires_grad = True
            return self
        if self._grad_acc is not None and requires_grad != self._requires_grad:
            from minitorch.autograd.function import _leaf_requires_grad

            _leaf_requires_grad(self, requires_grad)  # graphs recorded already see the change
        self._requires_grad = requires_grad
        if base is None and self._grad_views is not None:
            from minitorch.autograd.function import _views_follow_base

            _views_follow_base(self, requires_grad)
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._vc[0]:
            from minitorch.autograd.function import _regenerate_view_grad_fn

            _regenerate_view_grad_fn(self)
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed "
                "want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() "
                "on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
                "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
                "for more information.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            # torch checks dtype, then device, then size; the dtype is the grad_dtype's, which
            # defaults to the tensor's own and None lifts (NOTE [ grad_dtype ])
            want = self.__dict__.get("_grad_dtype", _SAME_DTYPE)
            if want is _SAME_DTYPE:
                want = self.dtype
            if want is not None and value.dtype is not want:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_dtype.CPP_NAMES[value.dtype.name]}' to a tensor with grad_dtype "
                    f"'{_dtype.scalar_name(want)}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match."
                )
            if value._device is not self._device:
                raise RuntimeError(
                    f"attempting to assign a gradient with device type '{value._device.type}' "
                    f"to a tensor with device type '{self._device.type}'. Please ensure that the "
                    "gradient and the tensor are on the same device"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor "
                    f"of size '{list(self.shape)}'. Please ensure that the gradient and the "
                    "tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    # NOTE [ grad_dtype ]
    # torch 2.13's Tensor.grad_dtype: the dtype a leaf's .grad must have. It defaults to the
    # tensor's dtype (so follows .to()/.data changes), can be pinned to another dtype, or None
    # to accept any. Set only when changed, in the instance __dict__ (NOTE [ Tensor
    # attributes ]); the .grad setter reads it. detach() and other new tensors start from the
    # default again, as torch's do.

    @property
    def grad_dtype(self):
        """The dtype .grad must have (None: any). Mirrors torch.Tensor.grad_dtype.

        Differences from torch: backward does not cast incoming gradients to a grad_dtype that
        differs from the tensor's dtype; only assignments to .grad are checked against it.
        """
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        want = self.__dict__.get("_grad_dtype", _SAME_DTYPE)
        return self.dtype if want is _SAME_DTYPE else want

    @grad_dtype.setter
    def grad_dtype(self, value):
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and value.__class__ is not _dtype.dtype:
            raise RuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
            )
        grad = self._grad
        if value is not None and grad is not None and grad.dtype is not value:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{_dtype.scalar_name(value)}' because there is "
                f"already a gradient with dtype '{_dtype.CPP_NAMES[grad.dtype.name]}'. "
                "Please clear the gradient (.grad = None) before changing grad_dtype, or ensure "
                "the new grad_dtype matches the existing gradient's dtype."
            )
        self.__dict__["_grad_dtype"] = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keeps .grad for this non-leaf tensor after backward. Mirrors torch.Tensor.retain_grad."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        # torch's leaf test reads the tensor's node as it is; a view written in place has one
        # (torch makes it then; here on next use: `_rebased`), a view whose base was written
        # through another view does not yet
        if (self._grad_fn is None and not self.__dict__.get("_rebased")) or self._retains_grad:
            return
        fn = self.grad_fn
        if fn._retains is None:
            fn._retains = {}
            fn._hooked = True
        fn._retains[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """hook(grad) -> Tensor or None runs when this tensor's gradient is computed."""
        from minitorch.autograd.function import _Handle

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        # OrderedDicts, as torch's: _backward_hooks hands out this very storage
        fn = self._grad_fn if self._base is None else self.grad_fn  # (a view's, made current)
        if fn is None:
            if self._hooks is None:
                self._hooks = OrderedDict()
            return _Handle(self._hooks, hook)
        if fn._pre_hooks is None:
            fn._pre_hooks = {}
            fn._hooked = True
        hooks = fn._pre_hooks.get(self._output_nr)
        if hooks is None:
            hooks = fn._pre_hooks[self._output_nr] = OrderedDict()
        return _Handle(hooks, hook)

    # NOTE [ torch's private tensor attributes ]
    # Library code (hook tooling, FSDP-like wrappers, debuggers) reads three private attributes
    # of torch.Tensor: _backward_hooks and _post_accumulate_grad_hooks, None until the first hook
    # and then the OrderedDict {handle id: hook} the handles remove from, and _cdata, an int
    # naming the live tensor. minitorch keeps its hooks elsewhere (a leaf's in _hooks, a
    # non-leaf's on its grad_fn, keyed by output), so these are read-only properties over that
    # storage: computed when read, nothing added to building a tensor or registering a hook.

    @property
    def _backward_hooks(self):
        """The hooks register_hook added, {handle id: hook}, or None before the first."""
        if self._grad_fn is None:
            return self._hooks
        pre = self.grad_fn._pre_hooks
        return None if pre is None else pre.get(self._output_nr)

    @property
    def _post_accumulate_grad_hooks(self):
        """The hooks register_post_accumulate_grad_hook added, {handle id: hook}, or None."""
        return self._post_acc_hooks

    @property
    def _cdata(self) -> int:
        """An int unique among live tensors (torch's is the address of its C++ tensor)."""
        return id(self)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """The gradient of this tensor w.r.t. graph leaves. Mirrors torch.Tensor.backward."""
        _engine_backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new tensor sharing data and version counter, out of the graph."""
        t = _make(self._data, self._device, False, None)
        t._vc = self._vc
        if self._base is not None or "_storage_root" in self.__dict__:
            _keep_storage_root(t, self)
        return t

    def detach_(self) -> Tensor:
        """Takes this tensor out of the graph in place. Mirrors torch.Tensor.detach_ (which in
        inference mode leaves the tensor as it is, views too: the mode skips autograd's
        kernels)."""
        from minitorch.autograd.grad_mode import state

        if state.inference:
            return self
        if self._base is not None:
            # torch refuses any view, even one that never had history: the view and its base
            # share autograd metadata, which detaching one alone would leave inconsistent.
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._grad_acc is not None and self._requires_grad:
            from minitorch.autograd.function import _leaf_requires_grad

            # a leaf frozen between forward and backward (a mean teacher's parameters): graphs
            # recorded already stop accumulating into it, as after requires_grad_(False)
            _leaf_requires_grad(self, False)
        self._grad_fn = None
        self._requires_grad = False
        self.__dict__.pop("_output_nr", None)
        if self._grad_views is not None:  # (views taken under no_grad follow it)
            from minitorch.autograd.function import _views_follow_base

            _views_follow_base(self, False)
        return self

    @property
    def data(self) -> Tensor:
        # Shares memory but not the version counter: changes through .data escape autograd.
        t = _make(self._data, self._device, False, None)
        if t._vc.__class__ is not self._vc.__class__:  # a normal tensor's, in inference mode:
            t._vc = [0]  # normal, as torch's (NOTE [ Inference tensors ])
        if self._base is not None or "_storage_root" in self.__dict__:
            _keep_storage_root(t, self)
        return t

    @data.setter
    def data(self, value: Tensor):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(value)}")
        if self._requires_grad and not value.dtype.is_floating_point:
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        if value._device is not self._device and (value._device.type == "meta") is not (
            self._device.type == "meta"
        ):  # torch's meta tensors are of another tensor type than the dense ones
            raise RuntimeError(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have "
                "incompatible tensor type."
            )
        root = _storage_root(value)  # self takes value's storage, offset included
        root = None if root is value else _make(root._data, value._device, False, None)
        if self._grad_fn is not None or self._grad_acc is not None:
            from minitorch.autograd.function import reshaped_in_place  # NOTE [ Outputs
            # reshaped in place ] in minitorch/autograd/engine.py

            old, self._data = self._data, value._data
            device, self._device = self._device, value._device
            reshaped_in_place(self, old.shape, old.dtype, device)
        self._data = value._data
        self._device = value._device
        self.__dict__.pop("_storage_root", None)
        if root is not None:
            self._storage_root = root

    # --- conversion to Python and NumPy ---

    def _host(self):
        """The data as a NumPy array: no copy on CPU, an explicit device-to-host copy elsewhere."""
        return self._device.backend.to_host(self._data)

    def _host_or_shape(self):
        """What repr shows: the host values, or a stand-in of the shape for a meta tensor."""
        if self._device.type == "meta":
            import numpy as np

            return np.broadcast_to(np.zeros(()), self._data.shape)
        return self._host()

    def item(self, *args):
        if args:
            raise no_arguments("item", len(args))
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._value()

    def _value(self):
        """The one element as a Python number (item() and the conversions)."""
        if self._device.type == "meta":
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._host().item()

    def tolist(self, *args):
        if args:
            raise no_arguments("tolist", len(args))
        return self._host().tolist()

    def numpy(self, *, force: bool = False):
        if force is not False:
            if force is not True:  # (torch's parser takes a bool only)
                raise TypeError(f"numpy(): argument 'force' must be bool, not {_type_name(force)}")
            return self.detach().cpu()._data
        if self._requires_grad:
            from minitorch.autograd.grad_mode import state

            # torch refuses only while grad mode is on: under no_grad (a custom Function's
            # forward calling NumPy) the array cannot carry the tensor into a recorded graph.
            if state.enabled:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                    "instead."
                )
        if self._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        a = self._data
        # a new ndarray object over the memory, as torch's: reshaping it or setting its flags
        # (`w = p.detach().numpy(); w.shape = (6,)`) must not change the tensor
        return a.view() if a.flags.writeable else _writable_alias(a)

    def __array__(self, dtype=None, copy=None):
        # Differences from torch: a tensor requiring grad is detached rather than refused, so
        # plotting and printing just work. See issue on NumPy interop.
        if self._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        a = self._data
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a.view()  # (a new object: see numpy())

    # NumPy drop-in: np.exp(t), np.sum(t, axis=0), ... run minitorch ops (see _numpy_interop).
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from minitorch._numpy_interop import array_ufunc

        return array_ufunc(self, ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from minitorch._numpy_interop import array_function

        return array_function(self, func, types, args, kwargs)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        from minitorch._dlpack import tensor_dlpack

        return tensor_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from minitorch._dlpack import tensor_dlpack_device

        return tensor_dlpack_device(self)

    def __bool__(self):
        n = self._data.size
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self._value())

    def __float__(self):
        if self._requires_grad:  # (torch warns first, whatever the size)
            _warn_scalar_of_grad()
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self._value())

    def __int__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._value())

    def __complex__(self):
        if self._requires_grad:  # (torch warns first, whatever the size)
            _warn_scalar_of_grad()
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return complex(self._value())

    def __index__(self):
        if self._data.size != 1 or self.dtype.is_floating_point:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._value())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        """`v in t`: whether any element equals v (a number or a broadcastable tensor)."""
        if not isinstance(element, (Tensor, numbers.Number)):  # np.int32(2) in t, as torch
            raise RuntimeError(
                f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        if isinstance(element, complex):  # (complex tensors are out of scope) 2+0j in t
            return element.imag == 0 and element.real in self
        return bool((element == self).any())

    def __format__(self, spec):
        # as torch, only a plain Tensor formats as its number; a subclass formats as an object
        if self._data.ndim == 0 and type(self) is Tensor and self._device.type != "meta":
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None):
        from minitorch._tensor_str import tensor_repr

        # torch prints a subclass under its own name: MyTensor([1., 2.]); str() (object's)
        # calls the subclass's own __repr__, so Tensor defines no __str__.
        prefix = "tensor("
        if type(self) is not Tensor:
            from minitorch.nn.parameter import Parameter

            if type(self) is not Parameter:
                prefix = f"{type(self).__name__}("
        try:
            fn = self.grad_fn  # a view written in place shows its regenerated node, as torch
            name = None if fn is None else type(fn).__name__
        except RuntimeError:  # a view whose history cannot be regenerated any more
            name = "Invalid"
        requires_grad, tangent = self._requires_grad, None
        if requires_grad:
            from minitorch.autograd import forward_ad

            if forward_ad._level["current"] is not None:
                # torch prints a dual tensor's tangent (as f"{tangent}"); a dual whose primal
                # needs no grad shows no grad (NOTE [ Tangents through double backward ])
                try:
                    primal, tangent = forward_ad.unpack_dual(self)
                except RuntimeError:  # a saved tensor modified in place: no tangent to show
                    primal = self
                if not primal.requires_grad:
                    requires_grad, name = False, None
                tangent = None if tangent is None else f"{tangent}"
        return tensor_repr(
            self._host_or_shape(),
            dtype_name=self.dtype.name,
            default_float_name=_dtype.get_default_dtype().name,
            device=None if self._device.type == "cpu" else str(self._device),
            requires_grad=requires_grad,
            grad_fn_name=name,
            prefix=prefix,
            contents=tensor_contents,
            tangent=tangent,
        )

    def __reduce_ex__(self, protocol):
        # Pickling (DataLoader workers, copy) keeps values, dtype, device, requires_grad and the
        # Python attributes set on the tensor (see NOTE [ Python state of a tensor ]).
        if self._device.type == "meta" and type(self) is Tensor:  # NOTE [ The meta device ]
            from minitorch._serialization_storage import _rebuild_meta_tensor_no_storage as meta

            return (meta, (self.dtype, tuple(self.shape), self.stride(), self._requires_grad))
        args = (self._host(), str(self._device), self._requires_grad, type(self))
        state = _python_state(self)
        return (_rebuild, args, state) if state else (_rebuild, args)

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        import copy

        if self.__class__ is not Tensor:
            _check_subclass_deepcopy(self)
        t = _deepcopy_data(self, memo)
        memo[id(self)] = t
        if self._grad is not None:
            t._grad = copy.deepcopy(self._grad, memo)
        for k, v in _python_state(self).items():
            t.__dict__[k] = copy.deepcopy(v, memo)
        return t

    # --- new tensors like this one (same dtype and device unless given) ---

    def new_tensor(
        self,
        data=REQUIRED,
        *extra,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
    ) -> Tensor:
        """Mirrors torch.Tensor.new_tensor."""
        from minitorch import _factories

        if extra or data is REQUIRED:  # torch's wording (its count leaves out self)
            raise arity_error("new_tensor", extra, 1, data=data)
        if layout is not None:  # (torch's new_tensor has no layout)
            raise unexpected_keyword("new_tensor", "layout")

        if isinstance(data, Tensor):
            warnings.warn(
                _factories._COPY_WARNING.format("tensor.new_tensor"), UserWarning, stacklevel=2
            )
            data = data.detach()
        dt = self.dtype if dtype is None else _factories._dtype_arg(dtype, None, "new_tensor")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return _factories.tensor(
                data,
                dtype=dt,
                device=self._device if device is None else device,
                requires_grad=requires_grad,
            )

    def new_zeros(
        self,
        *size,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
        **kwargs,
    ) -> Tensor:
        """Mirrors torch.Tensor.new_zeros."""
        return self._new("zeros", size, dtype, device, requires_grad, kwargs, pin_memory, layout)

    def new_ones(
        self,
        *size,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
        **kwargs,
    ) -> Tensor:
        """Mirrors torch.Tensor.new_ones."""
        return self._new("ones", size, dtype, device, requires_grad, kwargs, pin_memory, layout)

    def new_empty(
        self,
        *size,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
        **kwargs,
    ) -> Tensor:
        """Mirrors torch.Tensor.new_empty (zero-filled, as minitorch.empty)."""
        return self._new("empty", size, dtype, device, requires_grad, kwargs, pin_memory, layout)

    def new_full(
        self,
        size=REQUIRED,
        fill_value=REQUIRED,
        *extra,
        dtype=None,
        device=None,
        requires_grad=False,
        layout=None,
        pin_memory=False,
    ) -> Tensor:
        """Mirrors torch.Tensor.new_full (this tensor's dtype, whatever fill_value's type)."""
        from minitorch import _factories

        if extra or size is REQUIRED or fill_value is REQUIRED:  # (a count without self)
            raise arity_error("new_full", extra, 2, size=size, fill_value=fill_value)
        if layout is not None:
            _factories.check_layout(layout, "new_full", dtype)
        # checked here so that torch's errors name new_full, not full
        size = _factories._shape_seq(size, "new_full", 1)
        fill_value = _factories._fill_number(fill_value, "new_full")
        return _factories.full(
            size,
            fill_value,
            dtype=self.dtype if dtype is None else _factories._dtype_arg(dtype, None, "new_full"),
            device=self._device if device is None else device,
            requires_grad=requires_grad,
            pin_memory=pin_memory,
        )

    def _new(
        self, kind, size, dtype, device, requires_grad, kwargs=None, pin_memory=False, layout=None
    ):
        from minitorch import _factories

        op = f"new_{kind}"
        if layout is not None:
            _factories.check_layout(layout, op, dtype)
        if kwargs:  # new_zeros(size=(2, 3))
            keyed = kwargs.pop("size", None)
            if kwargs:
                if not size and keyed is None:  # x.new_ones(out=t): torch's parser's order
                    raise missing_positional(op, "size")
                raise unexpected_keyword(op, next(iter(kwargs)))
            # the factory's parsing with torch's errors naming new_zeros, not zeros
            size = _factories._shape(size, keyed, op)
        elif not size:
            raise missing_positional(op, "size")
        else:
            size = _factories._shape(size, None, op)

        return getattr(_factories, kind)(
            size,
            dtype=self.dtype if dtype is None else _factories._dtype_arg(dtype, None, op),
            device=self._device if device is None else device,
            requires_grad=requires_grad,
            pin_memory=pin_memory,
        )

    def new(self, *args, **kwargs) -> Tensor:
        """The legacy constructor with this tensor's dtype and device: new(2, 3), new(data)."""
        from minitorch import _factories

        kwargs.setdefault("device", self._device)
        return _factories._legacy_new(self.dtype, self._device.type, args, kwargs)

    @staticmethod
    def _init_from(t, data, device, requires_grad=False):
        t._data = data
        t._device = device
        t._requires_grad = requires_grad
        t._grad_fn = None
        t._vc = fresh_version()
        t._base = None
        t._grad = None


_name_as_tensor_methods(Tensor)  # NOTE [ Names of Tensor methods ] (in _tensor_methods.py)


def __getattr__(name: str):
    """A Tensor method by its bare name (NOTE [ Names of Tensor methods ]), as pickle finds it."""
    fn = getattr(Tensor, name, None)
    if getattr(fn, "__qualname__", None) == name and fn.__module__ == __name__:
        return fn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Swapped for grad_mode._new_inference while a thread is in inference mode (NOTE [ Inference
# tensors ] in minitorch/autograd/grad_mode.py).
_new = object.__new__


def _engine_backward(*args, **kwargs):
    """autograd.backward, which minitorch.autograd.engine binds in this name when it is imported
    (an import statement in Tensor.backward took ~1 us of every training step)."""
    from minitorch.autograd.engine import backward

    return backward(*args, **kwargs)


def fresh_version() -> list:
    from minitorch.autograd.grad_mode import fresh_version

    return fresh_version()


def _refuse_inference_version(t):
    from minitorch.autograd.grad_mode import is_inference_tensor

    if is_inference_tensor(t):
        raise RuntimeError("Inference tensors do not track version counter.")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_AUTOGRAD_FUNCTIONAL = os.path.join(_PACKAGE, "autograd", "functional.py")


def _refuse_requires_grad_in_transform():
    """torch.func's transforms refuse Tensor.requires_grad_ inside the function they transform:
    the user's call, or autograd.functional's (whose jacobian, vjp, ... call it); minitorch's
    own calls (the transforms' private leaves, the requires_grad setter, which torch allows
    there) are not refused. For calls inside a transform only."""
    caller = sys._getframe(2).f_code.co_filename
    if not caller.startswith(_PACKAGE) or caller == _AUTOGRAD_FUNCTIONAL:
        raise RuntimeError(
            "You are attempting to call Tensor.requires_grad_() (or perhaps using "
            "torch.autograd.functional.* APIs) inside of a function being transformed by a "
            "functorch transform. This is unsupported, please attempt to use the functorch "
            "transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() "
            "outside of a function being transformed instead."
        )


def _refuse_inference_requires_grad(t):
    from minitorch.autograd.grad_mode import (
        INFERENCE_REQUIRES_GRAD_MESSAGE,
        is_inference_tensor,
        state,
    )

    if is_inference_tensor(t) and not state.inference:
        raise RuntimeError(INFERENCE_REQUIRES_GRAD_MESSAGE)


def _not_writable(name):
    def refuse(self, value):
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")

    return refuse


# torch's read-only attributes refuse assignment in its words (a setter costs the getter nothing)
for _name in (
    "dtype", "device", "is_cuda", "is_cpu", "shape", "ndim", "itemsize", "nbytes", "is_leaf",
    "_version", "grad_fn", "retains_grad", "_cdata",
):
    setattr(Tensor, _name, Tensor.__dict__[_name].setter(_not_writable(_name)))
del _name


# print(type(x)) shows <class 'minitorch.Tensor'> (torch: <class 'torch.Tensor'>), and pickles
# name the class where users import it from
Tensor.__module__ = "minitorch"
Size.__module__ = "minitorch"


# NOTE [ Dim order ]
# Tensor.dim_order() reads the memory order of the dims off the strides, as torch's elementwise
# ops choose their output's layout: a row-major (or channels_last) tensor answers at once;
# otherwise the dims are insertion-sorted, innermost first, by _outer below. Its answer for a pair
# is "outside" (a larger stride, or an equal stride over more elements), "inside" (a smaller
# stride) or "either" (a stride of 0, or an equal stride over no more elements): an "either" pair
# keeps its relative order, so an expanded dim stays where its index puts it.


def _outer(a: int, b: int, shape, strides) -> int:
    """1 when dim a lies outside dim b in memory, -1 inside, 0 undecided (NOTE [ Dim order ])."""
    sa, sb = strides[a], strides[b]
    if sa == 0 or sb == 0:
        return 0
    if sa == sb:
        return 1 if shape[a] > shape[b] else 0
    return 1 if sa > sb else -1


def _dim_order(t, shape, strides) -> tuple[list, bool]:
    """The dims of t, outermost first, and whether they were sorted by stride (an order read
    off a memory format is not checked for ambiguity; NOTE [ Dim order ])."""
    n = len(shape)
    if n < 2:
        return list(range(n)), False
    from minitorch import _memory_format

    rows = t.is_contiguous()
    last = _memory_format.is_in(t._data, _memory_format.channels_last)
    if rows and not last:
        return list(range(n)), False
    if last and not rows:
        return [0, *range(2, n), 1], False
    inner = list(range(n - 1, -1, -1))  # innermost first while sorting
    for i in range(1, n):
        at = i  # where the dim being placed now sits; it moves inward past dims outside it
        for j in range(i - 1, -1, -1):
            side = _outer(inner[j], inner[at], shape, strides)
            if side > 0:
                inner[j], inner[at] = inner[at], inner[j]
                at = j
            elif side < 0:
                break
    return inner[::-1], True


def _order_ambiguous(order, shape, strides) -> bool:
    """Whether some neighbours of `order` (outermost first) could swap: NOTE [ Dim order ]."""
    return any(_outer(b, a, shape, strides) != -1 for a, b in zip(order, order[1:], strict=False))


def _size_one_strides(shape, strides) -> tuple:
    """torch's stride of a size-1 dim that NumPy gives 0 (x[None], unsqueeze, expand to a new
    leading dim): that of the dims after it, as if contiguous there (stride of the next dim
    times its size, 1 for the last); a size > 1 expanded dim keeps its 0."""
    out = list(strides)
    for d in range(len(shape) - 1, -1, -1):
        if shape[d] == 1 and out[d] == 0:
            out[d] = out[d + 1] * shape[d + 1] if d + 1 < len(shape) else 1
    return tuple(out)


def _make(data, device, requires_grad, grad_fn, output_nr=0):
    """The private constructor on the per-op path: no validation, no copies."""
    t = _new(Tensor)
    t._vc = [0]  # first: NOTE [ Inference tensors ] in minitorch/autograd/grad_mode.py
    t._data = data
    t._device = device
    t._requires_grad = requires_grad
    t._grad_fn = grad_fn
    t._base = None
    t._grad = None
    if output_nr:
        t._output_nr = output_nr
    return t


def _rebuild(host_array, device_str, requires_grad, cls=None):
    from minitorch._backend import device as as_device

    dev = as_device(device_str)
    t = _make(backend_of(dev).from_host(host_array, dev), dev, False, None)
    if requires_grad:
        t._requires_grad = True
    if cls is not None and cls is not Tensor:
        if hasattr(cls, "_from_tensor"):
            t = cls._from_tensor(t)
        else:  # torch's _rebuild_from_type_v2: as_subclass (an alias when requiring grad)
            from minitorch._subclass import as_subclass

            t = as_subclass(t, cls)
    return t


# NOTE [ Python state of a tensor ]
# Attributes users set on a tensor or parameter (`p._no_weight_decay = True`, `t.meta = ...`,
# Buffer's `persistent`) live in its __dict__ beside minitorch's own autograd bookkeeping (see
# NOTE [ Tensor attributes ]). Pickling, torch.save and deepcopy carry the former, as torch
# carries a tensor's __dict__, and never the latter: hooks, views' replay chains and grad
# accumulators belong to one process's graph.
_AUTOGRAD_KEYS = frozenset(
    (
        "_output_nr",
        "_grad_acc",
        "_hooks",
        "_post_acc_hooks",
        "_retains_grad",
        "_view_version",
        "_view_chain",
        "_no_grad_view",
        "_rg_inherited",
        "_view_lags",
        "_grad_views",
        "_storage_root",
    )
)


def _python_state(t: Tensor) -> dict:
    """The user-set attributes of `t` (empty for almost every tensor: a dict look-up)."""
    d = t.__dict__
    if not d:
        return d
    return {k: v for k, v in d.items() if k not in _AUTOGRAD_KEYS}


def _check_subclass_deepcopy(t: Tensor) -> None:
    """torch deep-copies a Tensor subclass into what its new_empty([]) gives (with subclass
    dispatch off, a plain tensor unless the subclass defines new_empty), and refuses when that
    is not of the subclass."""
    from minitorch._subclass import DisableTorchFunctionSubclass

    with DisableTorchFunctionSubclass():
        new = t.new_empty([])
    if type(new) is not type(t):
        raise RuntimeError(
            "The default implementation of __deepcopy__() for non-wrapper subclasses only works "
            "for subclass types that implement new_empty() and for which that function returns "
            "another instance of the same subclass. You should either properly implement "
            "new_empty() for your subclass or override __deepcopy__() if it is intended behavior "
            "for new_empty() to return an instance of a different type."
        )


def _deepcopy_data(t: Tensor, memo) -> Tensor:
    """A new leaf of t's class with a copy of its data; tensors that shared memory before share
    it in the copies, as torch memoizes storages: a view is replayed (same strides, same
    offset, same version counter) on the copy of its base, and two tensors holding one array
    (x and x.detach()) get one copied array."""
    base = t._base
    if base is not None and _in_base_memory(t):
        # A leaf view: of a base that does not require grad, or taken under no_grad.
        new_base = memo.get(("storage", id(base._data)))
        if new_base is None:
            if base.is_leaf and type(base).__deepcopy__ is Tensor.__deepcopy__:
                import copy

                copy.deepcopy(base, memo)
                new_base = memo[("storage", id(base._data))]
            else:
                # Only the memory is shared with the copy of the view: a non-leaf base cannot be
                # deep-copied, and a Parameter's copy has memory of its own (as in torch).
                new_base = _deepcopy_data(base.detach(), memo)
        from minitorch.autograd.function import _replay_view
        from minitorch.autograd.grad_mode import enable_grad, no_grad

        # The mode the view was taken in (see NOTE [ Views and grad mode ]); no node is recorded
        # either way, since a leaf view's base does not require grad or it was taken under no_grad.
        with no_grad() if t.__dict__.get("_no_grad_view") else enable_grad():
            view = _replay_view(new_base, t._view_chain)
            if view._data.shape != t._data.shape or view._data.strides != t._data.strides:
                # the chain no longer describes t (resize_ of the view): its place in memory does
                view = new_base.as_strided(t.shape, t.stride(), _storage_offset(t))
        out = _new(type(t))
        Tensor._init_from(out, view._data, t._device, t._requires_grad)
        out._vc = view._vc
        out._base = view._base
        out.__dict__.update(view.__dict__)
        return out
    key = ("storage", id(t._data))
    shared = memo.get(key)
    out = _new(type(t))
    if shared is None:
        Tensor._init_from(out, t._data.copy(order="K"), t._device, t._requires_grad)
        memo[key] = out
        memo.setdefault(id(memo), []).append(t._data)  # keeps the id in `key` unique
    else:
        Tensor._init_from(out, shared._data, t._device, t._requires_grad)
        out._vc = shared._vc
    return out


def _warn_scalar_of_grad():
    # torch gives this warning once per process (Python's own once-per-call-site rule would
    # repeat it)
    from minitorch._settings import warn_once

    warn_once(
        "scalar_of_grad",
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first.",
        stacklevel=3,  # (as before: the line of float(t), our caller's caller)
    )


def _dim_arg(dim, ndim, op):
    """A size()/stride() dim: an int in range, with torch's errors (no dim of a 0-d tensor)."""
    if dim.__class__ is not int and (isinstance(dim, bool) or not hasattr(dim, "__index__")):
        raise TypeError(
            f"{op}(): argument 'dim'{_at(1, 'dim', op)} must be int, not {type(dim).__name__}"
        )
    dim = dim.__index__()
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim, op)


def _wrap_dim(dim, ndim, op="dim"):
    if dim.__class__ is not int:  # NumPy integers, 0-d integer tensors; bools refused
        dim = _index(dim, None, "dim")  # NOTE [ Int-like arguments ]
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def _in_base_memory(t) -> bool:
    """Whether the view t still lies in its base's memory: `.data =` and resize_ give it memory
    of its own (as torch's set_ gives it a new storage), though it stays a view for autograd."""
    return _lies_in(t, t._base)


def _lies_in(t, owner) -> bool:
    b = backend_of(t._device)
    a = owner._data
    start = b.data_ptr(a)
    x = t._data
    if not x.size:
        # an empty view may start at or past its owner's end (x[3:] of 3 elements; x[2] of x of
        # shape (3, 0, 2) at offset 4: NOTE [ Empty views ] in minitorch/_ops/shape.py), and
        # still lies in its storage, as in torch: it views the same memory
        return b.data_ptr(x) >= start and _memory_key(x, b) == _memory_key(a, b)
    # the bytes the owner spans, gaps included (a diagonal or strided owner spans more than
    # its nbytes)
    span = 1
    if a.size:
        span = sum((n - 1) * abs(s) for n, s in zip(a.shape, a.strides, strict=True)) + a.itemsize
    return start <= b.data_ptr(t._data) < start + max(a.nbytes, span)


def _memory_key(a, b) -> tuple:
    """What owns array a's memory (the end of its chain of bases), as a comparable key."""
    while (base := getattr(a, "base", None)) is not None:
        a = base
    if b.is_array(a):
        return (True, b.data_ptr(a))
    # an array the backend wraps (the strict test device's NumPy arrays): where its data starts
    face = getattr(a, "__array_interface__", None) or getattr(a, "__cuda_array_interface__", None)
    return (True, face["data"][0]) if face else (False, id(a))


def _storage_root(t):
    """The tensor whose first element starts t's storage (t itself when t owns its memory): its
    base, or the tensor a dtype view reinterprets (NOTE [ Dtype views ] in
    minitorch/_ops/shape.py), for storage_offset()."""
    base = t._base
    owner = base if base is not None and _in_base_memory(t) else t
    root = owner.__dict__.get("_storage_root")
    if root is None and owner is t and base is not None:
        # past its base's elements but inside the base's grown storage (resize_ of a view)
        root = base.__dict__.get("_storage_root")
    if root is not None and _lies_in(t, root):
        return root
    return owner


def _keep_storage_root(alias, t) -> None:
    """An alias of t that is no autograd view (detach(), .data) still lies in t's storage: it
    remembers the tensor starting it, so storage_offset() and untyped_storage() agree with t's
    (a detached x[3:] is at offset 3 of x's storage, as in torch)."""
    root = _storage_root(t)
    if root is not t:
        alias._storage_root = root


def _storage_offset(t) -> int:
    base = t._base._data
    b = backend_of(t._device)
    return (b.data_ptr(t._data) - b.data_ptr(base)) // t._data.itemsize


class _ArrayInterface:
    """An __array_interface__ holder for NumPy to wrap; `base` keeps the memory's owner alive."""

    __slots__ = ("__array_interface__", "base")


def _writable_alias(a):
    """Tensor.numpy() of a read-only view over writable memory (an expanded tensor: NumPy's
    broadcast_to marks its result read-only): a writable array over the same memory, as torch's
    numpy() gives (writes show in every alias, the broadcast element in each position). The
    tensor keeps its own read-only array. Memory that is read-only at its owner (a tensor made
    from a read-only buffer) stays read-only."""
    import numpy as np

    owner = a.base
    while owner is not None and not (isinstance(owner, np.ndarray) and owner.flags.writeable):
        owner = getattr(owner, "base", None)
    if owner is None:
        return a
    holder = _ArrayInterface()
    interface = dict(a.__array_interface__)
    interface["data"] = (interface["data"][0], False)  # (address, read-only flag)
    holder.__array_interface__ = interface
    holder.base = owner
    out = np.asarray(holder)
    # the interface spells an extension dtype (ml_dtypes' bfloat16) as raw bytes: restore it
    return out if out.dtype == a.dtype else out.view(a.dtype)


# NOTE [ Generated method docstrings ]
# Most Tensor methods are one-line calls into an op whose public function carries the
# documentation, so the methods themselves had none (help(x.sum) showed nothing; libraries that
# build wrappers append to a method's __doc__). Rather than repeat ~500 docstrings, the end of
# `import minitorch` gives every public method and property without one a generated docstring:
# a method named as a loaded minitorch function points to it and carries its docstring; one named
# as a function of a lazy op family (NOTE [ Lazy op families ] in minitorch/_ops) only points to
# it, since reading its docstring would load the family; `<name>_` is the in-place `<name>`; the
# rest say which torch attribute they mirror. Written docstrings are never replaced.


def _fill_method_docs(namespace: dict, lazy_functions) -> None:
    """Fills the generated docstrings (NOTE [ Generated method docstrings ]); `namespace` is
    minitorch's module dict, `lazy_functions` the names its lazy op families define."""
    function_type = _FunctionType
    done = set()
    for cls in (Tensor, TensorMethods):
        for name, raw in vars(cls).items():
            if name[0] == "_" or name in done:
                continue
            done.add(name)  # Tensor's own definition shadows the mixin's
            if raw.__class__ is not function_type and raw.__class__ is not property:
                continue
            if raw.__doc__:
                continue
            fn = namespace.get(name)
            if raw.__class__ is property:
                raw.__doc__ = f"Mirrors torch.Tensor.{name}."
            elif fn.__class__ is function_type and fn.__doc__ and fn is not raw:
                raw.__doc__ = (
                    f"Tensor.{name}(...): minitorch.{name} with self as the input; see its "
                    f"documentation.\n\n{_dedented(fn.__doc__)}"
                )
            elif name in lazy_functions:
                raw.__doc__ = (
                    f"Tensor.{name}(...): minitorch.{name} with self as the input; see "
                    f"help(minitorch.{name})."
                )
            elif name[-1] == "_" and (name[:-1] in namespace or hasattr(Tensor, name[:-1])):
                raw.__doc__ = f"In-place version of Tensor.{name[:-1]}."
            else:
                raw.__doc__ = f"Mirrors torch.Tensor.{name}."


def _dedented(doc: str) -> str:
    # A docstring's lines after the first carry the source's indentation; below another first
    # line that indentation would show, so it is removed (inspect.cleandoc, without the import).
    if "\n" not in doc:
        return doc.strip()
    lines = doc.expandtabs().split("\n")
    margin = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=0)
    return "\n".join([lines[0].strip(), *(line[margin:] for line in lines[1:])]).rstrip()


_FunctionType = type(_dedented)
