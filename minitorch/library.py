"""User-defined operators: custom_op, Library and the registrations on them. Mirrors
torch.library.

An operator wraps a Python function (often one that leaves minitorch for NumPy or another
library) so that it has a schema, per-device kernels, an autograd formula and a shape-only
("fake") implementation, and is reachable as `minitorch.ops.<namespace>.<name>`. How a call runs
is in NOTE [ Dispatching a user-defined operator ] (minitorch/_op_registry.py).

Differences from torch: minitorch has no tracing or compilation, so the fake implementation is
only run by opcheck (on real tensors, comparing aliasing, shapes, dtypes and devices; a size
from get_ctx().new_dynamic_size() matches any); register_vmap,
register_autocast and register_torch_dispatch store their function without using it (vmap runs
an operator once per sample). `minitorch.ops.aten.<name>` calls minitorch's function of that
name whatever overload is named, and has no schema.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
import weakref

from minitorch import _op_registry as _reg
from minitorch._op_registry import OpOverload

__all__ = [
    "Library",
    "CustomOpDef",
    "custom_op",
    "define",
    "impl",
    "impl_abstract",
    "register_fake",
    "register_autograd",
    "register_kernel",
    "register_vmap",
    "register_autocast",
    "register_torch_dispatch",
    "infer_schema",
    "opcheck",
    "get_ctx",
    "fallthrough_kernel",
    "OpOverload",
]

_KINDS = ("DEF", "IMPL", "FRAGMENT")
_DEF_LIBRARIES = {}  # namespace -> the place its DEF Library was made


def _caller_site(depth: int = 2) -> str:
    frame = sys._getframe(depth)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _device_types(device_types):
    if device_types is None:
        return (None,)
    if isinstance(device_types, str):
        device_types = (device_types,)
    from minitorch._backend import Device

    out = []
    for d in device_types:
        kind = Device(d).type if isinstance(d, str) else str(d).split(":")[0].lower()
        if kind not in ("cpu", "cuda"):
            raise ValueError(f"Unsupported device type: {d} (minitorch has cpu and cuda)")
        out.append(kind)
    return tuple(out)


def _split_qualname(qualname: str):
    ns, sep, name = qualname.partition("::")
    if not sep or not ns or not name:
        raise ValueError(
            f"Expected there to be a namespace in {qualname}, i.e. The operator name should look "
            "something like ns::foo"
        )
    name, _, overload = name.partition(".")
    return ns, name, overload


def _entry_of(op):
    """The registry entry for an operator given as 'ns::name', an OpOverload or a CustomOpDef."""
    if isinstance(op, CustomOpDef):
        return op._entry
    if isinstance(op, OpOverload):
        if op._entry is None:
            raise ValueError(f"{op} is one of minitorch's own operators; register on operators "
                             "made with custom_op or Library.define")  # fmt: skip
        return op._entry
    if isinstance(op, _reg.OpOverloadPacket):
        op = f"{op._namespace}::{op._opname}"
    if isinstance(op, str):
        ns, name, overload = _split_qualname(op)
        entry = (_reg.lookup(ns, name) or {}).get(overload or "default")
        if entry is None:
            raise RuntimeError(f"operator {op} does not exist")
        return entry
    raise TypeError(
        "expected an operator (a 'ns::name' string, an OpOverload or a CustomOpDef), got "
        f"{type(op).__name__}"
    )


# --- Library ---


class Library:
    """A set of operator definitions (kind 'DEF': one per namespace, 'FRAGMENT': more of them)
    or implementations ('IMPL') in a namespace. Mirrors torch.library.Library: its operators are
    dropped when the Library is garbage collected."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim", "aten") and kind in ("DEF", "FRAGMENT"):
            raise ValueError(
                ns, " is a reserved namespace. Please try creating a library with another name."
            )
        site = _caller_site()
        if kind == "DEF":
            previous = _DEF_LIBRARIES.get(ns)
            if previous is not None:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block.  If you "
                    "were trying to specify implementations, consider using TORCH_LIBRARY_IMPL "
                    "(which can be duplicated).  If you really intended to define operators for "
                    "a single namespace in a distributed way, you can use TORCH_LIBRARY_FRAGMENT "
                    "to explicitly indicate this.  Previous registration of TORCH_LIBRARY was "
                    f"registered at {previous}; latest registration was registered at {site}"
                )
            _DEF_LIBRARIES[ns] = site
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._site = site
        self._defined = []
        self._impls = []
        weakref.finalize(self, _release, kind, ns, self._defined, self._impls)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Defines an operator from torch's schema text 'name(Tensor x, ...) -> Tensor';
        returns its name. Mirrors torch.library.Library.define."""
        if self.kind == "IMPL":
            name = re.match(r"\s*([\w.]*)", schema).group(1)
            raise RuntimeError(
                f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  '
                "All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                "namespace.  (Error occurred while processing TORCH_LIBRARY_IMPL block at "
                f"{self._site})"
            )
        parsed = _reg.parse_schema(schema)
        entry = _reg.register(self.ns, parsed.name, parsed.overload_name, parsed)
        site = _caller_site()
        if entry is None:
            old = _reg.lookup(self.ns, parsed.name)[parsed.overload_name or "default"]
            raise RuntimeError(
                f"Tried to register an operator ({self.ns}::{schema}) with the same name and "
                "overload name multiple times. Each overload's schema should only be registered "
                "with a single call to def(). Duplicate registration: registered at "
                f"{site}. Original registration: registered at {old.defined_at}"
            )
        entry.defined_at = site
        self._defined.append(entry)
        return parsed.name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Registers fn as op_name's kernel for dispatch_key ('CPU', 'CUDA',
        'CompositeImplicitAutograd', 'CompositeExplicitAutograd', 'Autograd', ...). Mirrors
        torch.library.Library.impl."""
        if isinstance(op_name, OpOverload):
            entry = _entry_of(op_name)
        else:
            name, _, overload = op_name.partition(".")
            entry = (_reg.lookup(self.ns, name) or {}).get(overload or "default")
            if entry is None:
                raise RuntimeError(f"operator {self.ns}::{op_name} does not exist: define it first")
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if with_keyset:
            fn = _drop_keyset(fn)
        _set_kernel(entry, key, fn)
        self._impls.append((entry, key))

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        raise NotImplementedError(
            "Library.fallback: minitorch has no dispatch keys to fall back on"
        )

    def _destroy(self):
        _release(self.kind, self.ns, self._defined, self._impls)


def _drop_keyset(fn):
    def kernel(*args, **kwargs):
        return fn(None, *args, **kwargs)

    return kernel


def _set_kernel(entry, key, fn):
    k = key.lower()
    if k in ("compositeimplicitautograd",):
        entry.composite = fn
    elif k in ("compositeexplicitautograd", "default"):
        entry.kernels[None] = fn
    elif k in ("cpu", "cuda"):
        entry.kernels[k] = fn
    elif k == "autograd" or k.startswith("autograd"):
        entry.composite = fn  # an autograd kernel: its own ops (or Function) make the graph
    elif k == "meta":
        entry.fake = fn
    else:
        raise ValueError(f"Unsupported dispatch key {key} (minitorch knows CPU, CUDA, Meta, "
                         "Autograd and the Composite keys)")  # fmt: skip


def _release(kind, ns, defined, impls):
    for entry in defined:
        _reg.unregister(entry)
    for entry, key in impls:
        k = key.lower()
        if k in ("cpu", "cuda"):
            entry.kernels.pop(k, None)
        elif k in ("compositeexplicitautograd", "default"):
            entry.kernels.pop(None, None)
        elif k == "meta":
            entry.fake = None
        else:
            entry.composite = None
    if kind == "DEF":
        _DEF_LIBRARIES.pop(ns, None)


def fallthrough_kernel():
    """A dummy kernel for Library.impl. Mirrors torch.library.fallthrough_kernel."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


_FRAGMENTS = {}  # namespace -> the FRAGMENT Library that module-level define/custom_op use


def _fragment(ns):
    lib = _FRAGMENTS.get(ns)
    if lib is None:
        lib = _FRAGMENTS[ns] = Library(ns, "FRAGMENT")
    return lib


def define(qualname, schema, *, lib=None, tags=()):
    """Defines operator qualname ('ns::name') with schema text '(Tensor x) -> Tensor'. Mirrors
    torch.library.define."""
    ns, name, overload = _split_qualname(qualname)
    if not (schema.startswith("(") and ")" in schema and "->" in schema[schema.index(")") :]):
        raise ValueError(
            'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> '
            f'Tensor" but got "{schema}"'
        )
    full = name + (f".{overload}" if overload else "") + schema
    (lib or _fragment(ns)).define(full, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Registers func as qualname's kernel for device types ('cpu', 'cuda', or a dispatch key
    such as 'CompositeImplicitAutograd'); a decorator without func. Mirrors torch.library.impl."""

    def register(fn):
        if isinstance(qualname, Library):
            raise TypeError("impl(lib, name, fn) is the Library.impl form: call lib.impl(...)")
        entry = _entry_of(qualname)
        keys = (types,) if isinstance(types, str) else tuple(types)
        for key in keys:
            key = {"cpu": "CPU", "cuda": "CUDA"}.get(str(key), str(key))
            _set_kernel(entry, key, fn)
        return fn

    return register if func is None else register(func)


# --- custom_op ---


class CustomOpDef:
    """The operator made by custom_op: call it like its function; register its fake
    implementation, autograd formula and per-device kernels on it. Mirrors
    torch.library.CustomOpDef."""

    def __init__(self, namespace, name, schema_text, fn, device_types):
        parsed = _reg.parse_schema(schema_text, name=name)
        entry = _reg.register(namespace, name, "", parsed, replace=True)
        entry.has_autograd = True
        entry.custom = self
        for d in device_types:
            entry.kernels[d] = fn
        self._entry = entry
        self._namespace = namespace
        self._name = name
        self._qualname = f"{namespace}::{name}"
        self._init_fn = fn
        self._schema = schema_text
        self._vmap_fn = None
        self._autocast = None
        self._torch_dispatch_fns = {}
        self._disabled = {}  # device type -> its kernel, put aside by set_kernel_enabled

    @property
    def _opoverload(self):
        return getattr(getattr(_reg.ops, self._namespace), self._name).default

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args, **kwargs):
        # the operator registered under this name now: a custom_op defined again under it
        # replaces this one's kernels and formulas for every holder, as torch's dispatcher does
        live = (_reg.lookup(self._namespace, self._name) or {}).get("default", self._entry)
        return _reg.call(live, args, kwargs)

    def register_fake(self, fn, /):
        """fn(*args) gives outputs of the right shapes, dtypes and devices without computing
        them (minitorch runs it only in opcheck)."""
        self._entry.fake = fn
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """backward(ctx, *grads) gives a gradient per input (None for non-tensors);
        setup_context(ctx, inputs, output) saves what it needs, as autograd.Function's."""
        if not callable(backward):
            raise TypeError(f"Expected backward to be a function but got {type(backward)}")
        self._entry.backward = backward
        self._entry.setup_context = setup_context

    def register_kernel(self, device_types, fn=None, /):
        """fn as the kernel for device_types ('cpu', 'cuda'); a decorator without fn."""

        def register(f):
            for d in _device_types(device_types):
                if d in self._disabled:  # set_kernel_enabled(d, False) is in force
                    self._disabled[d] = f
                else:
                    self._entry.kernels[d] = f
            return f

        return register if fn is None else register(fn)

    def register_vmap(self, func=None, /):
        def register(f):
            self._vmap_fn = f
            return f

        return register if func is None else register(func)

    def register_autocast(self, device_type, cast_inputs):
        self._autocast = (device_type, cast_inputs)
        return self

    def register_torch_dispatch(self, torch_dispatch_class, fn=None, /):
        def register(f):
            self._torch_dispatch_fns[torch_dispatch_class] = f
            return f

        return register if fn is None else register(fn)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """A context in which device_type's registered kernel is used (enabled) or not, the
        function custom_op wrapped running instead; the previous state is restored after it."""
        was_disabled = device_type in self._disabled
        self._enable_kernel(device_type, enabled)
        try:
            yield
        finally:
            self._enable_kernel(device_type, not was_disabled)

    def _enable_kernel(self, device_type, enabled):
        kernels = self._entry.kernels
        if enabled and device_type in self._disabled:
            kernels[device_type] = self._disabled.pop(device_type)
        elif not enabled and device_type not in self._disabled and device_type in kernels:
            self._disabled[device_type] = kernels[device_type]
            kernels[device_type] = self._init_fn


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Wraps fn (annotated with Tensor, int, float, bool, str, dtype, device, their Optional
    and list forms) as the operator `name` ('ns::name'). Mirrors torch.library.custom_op: its
    kernel runs under no_grad, and gradients come from register_autograd."""

    def inner(f):
        if schema is None:  # torch reads the annotations before the name
            schema_text = infer_schema(f, mutates_args=mutates_args)
        else:
            schema_text = schema
        ns, opname, _ = _split_qualname(name)
        return CustomOpDef(ns, opname, schema_text, f, _device_types(device_types))

    return inner if fn is None else inner(fn)


def infer_schema(prototype_function, /, *, mutates_args, op_name=None):
    """The schema text of a function from its type annotations, e.g.
    '(Tensor x, SymInt n=1) -> Tensor'; mutated tensors are written Tensor(a0!). Mirrors
    torch.library.infer_schema."""
    return _reg.infer_schema_text(prototype_function, mutates_args, op_name)


def _registration(op, setter, func):
    entry = _entry_of(op)
    if func is None:

        def register(f):
            setter(entry, f)
            return f

        return register
    setter(entry, func)
    return func


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Registers func as op's fake (shape-only) implementation. Mirrors
    torch.library.register_fake."""
    return _registration(op, lambda e, f: setattr(e, "fake", f), func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """Deprecated name of register_fake. Mirrors torch.library.impl_abstract."""
    warnings.warn(
        "torch.library.impl_abstract was renamed to torch.library.register_fake. Please use "
        "that instead; we will remove torch.library.impl_abstract in a future version of "
        "PyTorch.",
        FutureWarning,
        stacklevel=2,
    )
    return register_fake(qualname, func, lib=lib)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Registers op's autograd formula (see CustomOpDef.register_autograd). Mirrors
    torch.library.register_autograd."""
    if isinstance(op, CustomOpDef):
        return op.register_autograd(backward, setup_context=setup_context)
    entry = _entry_of(op)
    entry.backward = backward
    entry.setup_context = setup_context


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Registers func as op's kernel for device_types. Mirrors torch.library.register_kernel."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)

    def setter(entry, f):
        for d in _device_types(device_types):
            entry.kernels[d] = f

    return _registration(op, setter, func)


def register_vmap(op, func=None, /, *, lib=None):
    """Stored, not used: minitorch's vmap runs an operator once per sample."""
    if isinstance(op, CustomOpDef):
        return op.register_vmap(func)
    return _registration(op, lambda e, f: None, func)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """Stored, not used (see the module docstring)."""
    if isinstance(op, CustomOpDef):
        return op.register_autocast(device_type, cast_inputs)
    _entry_of(op)


def register_torch_dispatch(op, torch_dispatch_class, func=None, /, *, lib=None):
    """Stored, not used (see the module docstring)."""
    if isinstance(op, CustomOpDef):
        return op.register_torch_dispatch(torch_dispatch_class, func)
    return _registration(op, lambda e, f: None, func)


class _FakeImplCtx:
    """What get_ctx() gives inside a fake implementation run by opcheck.

    Differences from torch: with no symbolic sizes, new_dynamic_size gives its `min` as a plain
    int, and opcheck accepts any size where the fake output has one it was given."""

    def __init__(self):
        self.dynamic_sizes = set()

    def new_dynamic_size(self, *, min=0, max=None):  # noqa: A002 - torch's names
        if min < 0:
            raise ValueError(
                f"ctx.new_dynamic_size(min={min}, ...): expected min to be greater than or "
                "equal to 0: this API can only create non-negative sizes."
            )
        self.dynamic_sizes.add(min)
        return min

    create_unbacked_symint = new_dynamic_size


_FAKE_CTX = []


def get_ctx():
    """The context of the fake implementation being run (None outside one). Mirrors
    torch.library.get_ctx."""
    return _FAKE_CTX[-1] if _FAKE_CTX else None


# --- opcheck ---

_DEFAULT_TESTS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)
_ALL_TESTS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_static",
    "test_aot_dispatch_dynamic",
)


class OpCheckError(Exception):
    """An opcheck test failed. Mirrors torch.testing._internal.optests.OpCheckError."""


class MetadataMismatchError(Exception):
    """A fake implementation's output differs from the kernel's in shape, dtype or device.
    Mirrors torch._subclasses.fake_utils.MetadataMismatchError."""


def _clone_tree(v):
    from minitorch._tensor import Tensor

    if isinstance(v, Tensor):
        return v.detach().clone()
    if isinstance(v, (list, tuple)):
        return type(v)(_clone_tree(x) for x in v)
    if isinstance(v, dict):
        return {k: _clone_tree(x) for k, x in v.items()}
    return v


def _same_values(a, b) -> bool:
    from minitorch._tensor import Tensor

    if isinstance(a, Tensor):
        return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_values(x, y) for x, y in zip(a, b, strict=True))
    return True


def _op_label(op, entry) -> str:
    return repr(op) if isinstance(op, CustomOpDef) else entry.dotted


def _test_schema(op, entry, args, kwargs):
    args, kwargs = _clone_tree(list(args)), _clone_tree(dict(kwargs))
    before = _clone_tree([*args, *kwargs.values()])
    _call_op(op, entry, args, kwargs)
    params = {a.name: a for a in entry.schema.arguments}
    names = [a.name for a in entry.schema.arguments][: len(args)] + list(kwargs)
    for name, old, new in zip(names, before, [*args, *kwargs.values()], strict=True):
        arg = params.get(name)
        if arg is not None and not arg.is_write and not _same_values(old, new):
            raise RuntimeError(f"Argument {name} is not defined as mutable but was mutated")


def _call_op(op, entry, args, kwargs):
    return _reg.call(entry, tuple(args), dict(kwargs))


def _test_autograd_registration(op, entry, args, kwargs):
    from minitorch._op_registry import _tensors_in

    if entry.has_autograd or entry.backward is not None or entry.composite is not None:
        return
    if any(t.requires_grad for t in _tensors_in([*args, *kwargs.values()])):
        raise RuntimeError(
            f"{entry.qualname}: at least one output of this operator has requires_grad=True but "
            "the operator does not have an autograd kernel defined at an autograd key (e.g. "
            "DispatchKey::Autograd). This could mean that you have incorrectly registered an "
            "autograd kernel to a non-Autograd DispatchKey, which may lead to silently "
            "incorrect results. If your operator consists of regular PyTorch operations, "
            "consider not using an operator at all or registering your operator as "
            "CompositeImplicitAutograd. If you have an autograd.Function registered to a "
            "backend (CPU/CUDA/XPU) key, the correct location for it is the Autograd key."
        )


def _test_faketensor(op, entry, args, kwargs):
    from minitorch.autograd.grad_mode import no_grad

    if entry.fake is None:
        if entry.composite is not None or (entry.custom is not None and not entry.schema.returns):
            return  # torch makes the fake of a custom_op that returns nothing
        if isinstance(op, CustomOpDef):
            raise RuntimeError(
                f"There was no fake impl registered for {op!r}. This is necessary for "
                f"torch.compile/export/fx tracing to work. Please use "
                f"`{op._init_fn.__name__}.register_fake` to add an fake impl."
            )
        raise RuntimeError(
            f"{entry.qualname}: There was no fake impl or Meta kernel registered. You may need "
            "to register one in order for torch.compile / export / fx tracing to work."
        )
    with no_grad():
        real_args, real_kwargs = _clone_tree(args), _clone_tree(kwargs)
        real = _call_op(op, entry, real_args, real_kwargs)
        fake_args, fake_kwargs = _reg.bind(entry, tuple(_clone_tree(args)), _clone_tree(kwargs))
        ctx = _FakeImplCtx()
        _FAKE_CTX.append(ctx)
        try:
            fake = entry.fake(*fake_args, **fake_kwargs)
        finally:
            _FAKE_CTX.pop()
    _compare_aliasing(entry, (real, [*real_args, *real_kwargs.values()]),
                      (fake, [*fake_args, *fake_kwargs.values()]))  # fmt: skip
    _compare_meta(entry, real, fake, ctx.dynamic_sizes)


def _aliasing(out, ins):
    """(an output shares memory with an input, an output is an input, two outputs share
    memory): what torch's fake-tensor check compares between the kernel and the fake."""
    from minitorch._op_registry import _shares_memory, _tensors_in

    outs = list(_tensors_in(out if isinstance(out, (tuple, list)) else (out,)))
    ins = list(_tensors_in(ins))
    return (
        any(_shares_memory(o, i) for o in outs for i in ins),
        any(o is i for o in outs for i in ins),
        any(_shares_memory(a, b) for k, a in enumerate(outs) for b in outs[k + 1 :]),
    )


def _compare_aliasing(entry, real, fake):
    checks = ("outputs_alias_inputs", "outputs_are_inputs", "outputs_alias_each_other")
    for name, r, f in zip(checks, _aliasing(*real), _aliasing(*fake), strict=True):
        if r != f:
            raise MetadataMismatchError(
                f"When comparing the output of {entry.dotted} on FakeTensor and concrete "
                f"Tensors, found mismatch in {name} check {f} != {r}"
            )


def _same_shape(real, fake, dynamic) -> bool:
    return len(real) == len(fake) and all(
        r == f or f in dynamic for r, f in zip(real, fake, strict=True)
    )


def _compare_meta(entry, real, fake, dynamic=()):
    from minitorch._tensor import Tensor

    reals = real if isinstance(real, (tuple, list)) else (real,)
    fakes = fake if isinstance(fake, (tuple, list)) else (fake,)
    prefix = (
        f"When comparing the output of {entry.dotted} on FakeTensor and concrete Tensors, "
        "found mismatched tensor metadata: "
    )
    if len(reals) != len(fakes):
        raise AssertionError(
            f"When comparing the output of {entry.dotted} on FakeTensor and concrete Tensors, "
            f"found mismatch in number of returns {len(fakes)} != {len(reals)}"
        )
    for r, f in zip(reals, fakes, strict=True):
        if not isinstance(r, Tensor):
            continue
        if not isinstance(f, Tensor):
            raise MetadataMismatchError(f"{prefix}a Tensor and a {type(f).__name__}")
        if not _same_shape(r.shape, f.shape, dynamic):
            raise MetadataMismatchError(f"{prefix}Shapes {r.shape} and {f.shape} are not equal!")
        if r.dtype != f.dtype:
            raise MetadataMismatchError(f"{prefix}Dtypes {r.dtype} and {f.dtype} are not equal!")
        if r.device != f.device:
            raise MetadataMismatchError(f"{prefix}Devices {r.device} and {f.device} are not equal!")


def _test_aot_dispatch_dynamic(op, entry, args, kwargs):
    from minitorch._op_registry import _tensors_in

    args, kwargs = _clone_with_grad(args), _clone_with_grad(kwargs)
    out = _call_op(op, entry, args, kwargs)
    outs = [o for o in _tensors_in(out if isinstance(out, (tuple, list)) else (out,))]
    needed = [o for o in outs if o.requires_grad]
    if needed:
        from minitorch.autograd import grad as autograd_grad

        inputs = [t for t in _tensors_in([*args, *kwargs.values()]) if t.requires_grad]
        autograd_grad(
            sum((o.float().sum() if o.is_floating_point() else o.sum()) for o in needed),
            inputs,
            allow_unused=True,
        )


def _clone_with_grad(v):
    from minitorch._tensor import Tensor

    if isinstance(v, Tensor):
        return v.detach().clone().requires_grad_(v.requires_grad)
    if isinstance(v, (list, tuple)):
        return type(v)(_clone_with_grad(x) for x in v)
    if isinstance(v, dict):
        return {k: _clone_with_grad(x) for k, x in v.items()}
    return v


_TESTS = {
    "test_schema": _test_schema,
    "test_autograd_registration": _test_autograd_registration,
    "test_faketensor": _test_faketensor,
    "test_aot_dispatch_static": _test_aot_dispatch_dynamic,  # no tracing: the same backward
    "test_aot_dispatch_dynamic": _test_aot_dispatch_dynamic,
}


def opcheck(
    op, args, kwargs=None, *, test_utils=_DEFAULT_TESTS, raise_exception=True, atol=None, rtol=None
):
    """Checks that op was registered correctly: its schema's mutation annotations, its
    autograd registration, its fake implementation, and a backward through it. Returns
    {test: 'SUCCESS' or the error}; raises OpCheckError on the first failure unless
    raise_exception=False. Mirrors torch.library.opcheck."""
    kwargs = {} if kwargs is None else kwargs
    entry = _entry_of(op)  # a packet: its default overload, as torch
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not set(test_utils) <= set(_TESTS):
        raise ValueError(
            f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be subset of "
            f"{_ALL_TESTS} but it was not"
        )
    results = {}
    for name in test_utils:
        try:
            _TESTS[name](op, entry, args, kwargs)
        except Exception as e:
            if not raise_exception:
                results[name] = e
                continue
            raise OpCheckError(
                f"opcheck(op, ...): {name} failed with {e} (scroll up for stack trace)"
            ) from e
        results[name] = "SUCCESS"
    return results
