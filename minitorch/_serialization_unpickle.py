"""Reading a checkpoint's pickle: an allowlist interpreter for weights_only=True that can only
build data, and the standard unpickler (any global: unsafe) for weights_only=False."""

from __future__ import annotations

import _compat_pickle
import functools
import importlib
import pickle
import pickletools
import struct
from collections import Counter, OrderedDict

from minitorch import _dtype
from minitorch._backend import device
from minitorch._serialization_storage import (
    STORAGE_NAMES,
    StorageType,
    _rebuild_from_type_v2,
    _rebuild_meta_tensor_no_storage,
    _rebuild_parameter,
    _rebuild_parameter_with_state,
    _rebuild_tensor,
    _rebuild_tensor_v2,
    _rebuild_tensor_v3,
)
from minitorch._tensor import Size, Tensor

UnpicklingError = pickle.UnpicklingError


def _encode(obj, encoding="utf-8"):
    # protocol 2 pickles bytes as _codecs.encode(str, 'latin1'): allow exactly that
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1"):
        raise UnpicklingError("_codecs.encode is allowed only for latin1 strings")
    return obj.encode("latin1")


def _bytearray(obj=b"", encoding=None):
    if isinstance(obj, str) and encoding in ("latin1", "latin-1"):
        return bytearray(obj.encode("latin1"))
    if isinstance(obj, (bytes, bytearray)) and encoding is None:
        return bytearray(obj)
    raise UnpicklingError("bytearray() is allowed only from bytes or latin1 strings")


def _get_layout(name):
    """The layout a checkpoint names as `torch.serialization._get_layout("torch.strided")`.
    Mirrors torch.serialization._get_layout for the one layout minitorch has."""
    from minitorch._ops import strided  # a lazy op family: NOTE [ Lazy op families ]

    if name != "torch.strided":
        raise UnpicklingError(f"minitorch.load: minitorch has no equivalent of layout {name!r}")
    return strided


def _allowlist() -> dict:
    from minitorch.nn.parameter import Parameter

    allowed = {
        ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
        ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
        ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
        ("torch._utils", "_rebuild_meta_tensor_no_storage"): _rebuild_meta_tensor_no_storage,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter_with_state,
        ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
        ("torch", "Tensor"): Tensor,
        ("torch._tensor", "Tensor"): Tensor,
        ("torch.nn.parameter", "Parameter"): Parameter,
        ("torch", "device"): device,
        ("torch", "Size"): Size,
        ("torch.storage", "UntypedStorage"): StorageType("UntypedStorage", _dtype.uint8),
        ("torch", "UntypedStorage"): StorageType("UntypedStorage", _dtype.uint8),
        ("torch.serialization", "_get_layout"): _get_layout,
        ("collections", "OrderedDict"): OrderedDict,
        # torch allows it by default: MultiStepLR.state_dict()["milestones"] is one
        ("collections", "Counter"): Counter,
        # torch's default allowlist has set but neither frozenset nor slice: a checkpoint
        # holding one needs add_safe_globals([frozenset]) / ([slice]) with weights_only=True
        ("builtins", "set"): set,
        ("builtins", "complex"): complex,
        ("builtins", "bytearray"): _bytearray,
        ("_codecs", "encode"): _encode,
    }
    for dt, name in STORAGE_NAMES.items():
        allowed["torch", name] = StorageType(name, dt)
        # old checkpoints of CUDA tensors name the storage class torch.cuda.FloatStorage (the
        # location tag says where); torch allows these by default
        allowed["torch.cuda", name] = StorageType(name, dt)
    for dt in _dtype.ALL_DTYPES + _dtype.SHELL_UINTS + _dtype.FLOAT8:
        allowed["torch", dt.name] = dt
    return allowed


_ALLOWED: dict = {}
# The callables REDUCE may call (checked by identity; classes such as Tensor are not among them).
_CALLABLES: set = set()
_NEWOBJ_CLASSES = (OrderedDict, set, Size)


def _allowed() -> dict:
    if not _ALLOWED:
        _ALLOWED.update(_allowlist())
        _CALLABLES.update(
            {
                _rebuild_tensor_v2,
                _rebuild_tensor_v3,
                _rebuild_tensor,
                _rebuild_meta_tensor_no_storage,
                _rebuild_parameter,
                _rebuild_parameter_with_state,
                _rebuild_from_type_v2,
                device,
                Size,
                OrderedDict,
                Counter,
                _get_layout,
                set,
                complex,
                _bytearray,
                _encode,
            }
        )
    return _ALLOWED


# ---------------------------------------------------------------------------------------------
# globals the user marks safe (torch.serialization.add_safe_globals and friends)

# Each entry is an object or an (object, "module.qualname") pair, as torch keeps them.
_safe_globals: set = set()
# Modules whose globals are refused even when marked safe, as torch refuses them.
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


def user_allowed_globals() -> dict:
    """{"module.qualname": object} for the globals the user marked safe. Mirrors
    torch._weights_only_unpickler._get_user_allowed_globals."""
    allowed: dict = {}
    for entry in _safe_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), but got "
                    f"tuple of length: {len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, but got: "
                    f"{type(entry[1])}"
                )
            allowed[entry[1]] = entry[0]
        else:
            allowed[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return allowed


def globals_in_pickle(data: bytes) -> set[str]:
    """The "module.name" of every GLOBAL / STACK_GLOBAL in a pickle, read without running it,
    by its Python 3 name (protocol 2's `__builtin__ set` is builtins.set), as a load looks it
    up."""
    # STACK_GLOBAL's operands are the two values pushed just before it, either strings or
    # memo reads of strings pickled earlier (a module named twice is memoized once): `pushed`
    # follows what each opcode pushes (None for anything but a string), `memo` the memo.
    found, pushed, memo = set(), [None, None], {}
    for op, arg, _ in pickletools.genops(data):
        name = op.name
        if name == "GLOBAL":
            found.add(".".join(_python3_name(*arg.split(" ", 1))))
            pushed.append(None)
        elif name == "STACK_GLOBAL":
            module, qualname = pushed[-2], pushed[-1]
            if isinstance(module, str) and isinstance(qualname, str):
                found.add(".".join(_python3_name(module, qualname)))
            pushed.append(None)
        elif name == "MEMOIZE":
            memo[len(memo)] = pushed[-1]
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = pushed[-1]
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            pushed.append(memo.get(arg))
        elif name not in ("PROTO", "FRAME"):  # these push nothing
            pushed.append(arg if isinstance(arg, str) else None)
    return found


# torch.load's wording around a weights_only refusal (torch.serialization's UNSAFE_MESSAGE and
# the framing of its _get_wo_message), with minitorch's names
_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `minitorch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the file "
    "from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of minitorch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def _refused(what: str) -> UnpicklingError:
    """The error of a weights_only=True load refusing something other than a global."""
    return UnpicklingError(
        f"Weights only load failed. {_UNSAFE_MESSAGE}\n\n\nUnsupported {what}{_DOCS_MESSAGE}"
    )


def _refused_global(full: str) -> UnpicklingError:
    """torch's error (and wording) for a global neither allowed by default nor marked safe.
    A builtin is named without its module (`frozenset`, not `builtins.frozenset`), as torch
    names it."""
    if full.startswith("builtins."):
        full = full[len("builtins.") :]
    return UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
        f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
        "please check the recommended steps in the following error message.\n\tWeightsUnpickler "
        f"error: Unsupported global: GLOBAL {full} was not an allowed global by default. Please "
        f"use `minitorch.serialization.add_safe_globals([{full}])` or the "
        f"`minitorch.serialization.safe_globals([{full}])` context manager to allowlist this "
        f"global if you trust this class/function.{_DOCS_MESSAGE}"
    )


@functools.cache
def _unsafe_torch_names() -> dict:
    """torch's names minitorch maps for weights_only=False only: like torch, weights_only=True
    refuses them unless the user marks them safe."""
    from minitorch.nn.parameter import UninitializedBuffer, UninitializedParameter

    return {
        ("torch.nn.parameter", "UninitializedParameter"): UninitializedParameter,
        ("torch.nn.parameter", "UninitializedBuffer"): UninitializedBuffer,
    }


def _python3_name(module: str, name: str) -> tuple[str, str]:
    # pickles of protocol < 3 name Python 2's modules (__builtin__, commands for subprocess, ...)
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def find_torch_class(module: str, name: str, weights_only: bool, user: dict | None = None):
    """The object a checkpoint's global names, or None (weights_only=False: not a torch name).
    `user`: the globals marked safe (user_allowed_globals()), for weights_only=True."""
    module, name = _python3_name(module, name)
    obj = _allowed().get((module, name))
    if obj is not None:
        return obj
    unsafe = _unsafe_torch_names().get((module, name))
    if weights_only:
        full = f"{module}.{name}"
        if user and full in user:
            if module in _BLOCKED_MODULES:
                raise UnpicklingError(
                    f"Weights only load failed. {_UNSAFE_MESSAGE}\n\n\nTrying to load unsupported "
                    f"GLOBAL {full} whose module {module} is blocked.{_DOCS_MESSAGE}"
                )
            return user[full]
        # The user marks minitorch's class safe, which the file names by torch's name.
        if user and unsafe is not None and any(unsafe is v for v in user.values()):
            return unsafe
        raise _refused_global(full)
    if unsafe is not None:
        return unsafe
    if module == "torch" or module.startswith("torch."):
        obj = _minitorch_equivalent(module, name)
        if obj is None:
            raise UnpicklingError(f"minitorch.load: minitorch has no equivalent of {module}.{name}")
        return obj
    return None


# NOTE [ torch's classes in a whole pickled object ]
# torch.save(model) (or an optimizer, a scheduler) pickles its class by reference,
# `torch.nn.modules.container.Sequential`, and the instance's __dict__ as BUILD state. minitorch
# keeps torch's module layout (minitorch.nn.modules.container.Sequential) and a Module's
# __dict__ holds the registries under torch's names, so the name maps by swapping the leading
# package, and Module.__setstate__ takes torch's state. Where minitorch files a class elsewhere
# (the lazy modules live in minitorch.nn.modules.lazy) the enclosing packages, which re-export
# it, are searched. A user's own subclass is pickled under the user's module (`__main__.Net`)
# and is found as plain pickle finds it: in the loading program, where it subclasses
# minitorch.nn.Module. weights_only=True refuses all of these, as torch does.


# torch's classes that minitorch files under another module (the walk up below misses them);
# none at present (NonDynamicallyQuantizableLinear moved to minitorch.nn.modules.linear)
_RELOCATED: dict = {}


def _minitorch_equivalent(module: str, name: str):
    """minitorch's object for torch's global `module.name`, or None."""
    if (module, name) in _RELOCATED:
        return getattr(importlib.import_module(_RELOCATED[module, name]), name)
    parts = ["minitorch", *module.split(".")[1:]]
    # the module, then its parents; bare `minitorch` only for torch's own top-level names
    while parts and (len(parts) > 1 or module == "torch"):
        try:
            owner = importlib.import_module(".".join(parts))
        except ImportError:
            owner = None
        obj = owner
        for attr in name.split("."):  # a nested class's qualname
            obj = getattr(obj, attr, None)
        # only minitorch's own objects: a name its module merely imported (numpy's, typing's)
        # is not torch's object of that name
        if obj is not None and getattr(obj, "__module__", "").startswith("minitorch"):
            return obj
        parts.pop()
    return None


class FullUnpickler(pickle.Unpickler):
    """weights_only=False: any global (unsafe for untrusted files), torch's names mapped."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._load_storage = persistent_load

    def find_class(self, module, name):
        obj = find_torch_class(module, name, weights_only=False)
        return obj if obj is not None else super().find_class(module, name)

    def persistent_load(self, pid):
        return self._load_storage(pid)


# ---------------------------------------------------------------------------------------------
# weights_only=True: a pickle interpreter that can only build data


class WeightsUnpickler:
    """Runs a pickle's opcodes with an allowlist: globals from `_allowlist` only, REDUCE only of
    allowlisted callables, SETITEM(S) only on dicts, APPEND(S) only on lists, BUILD only on an
    OrderedDict (its `_metadata`). Anything else raises UnpicklingError before it runs; every
    opcode consumes input, so a hostile stream cannot loop. Globals the user marked safe
    (`user_allowed_globals`) may also be named, called (REDUCE), instantiated (NEWOBJ) and
    given their state (BUILD), as torch's weights-only unpickler allows."""

    def __init__(self, data: bytes, persistent_load):
        self.data = data
        self.pos = 0
        self.persistent_load = persistent_load
        self.user_globals = user_allowed_globals()  # ValueError/TypeError for a malformed entry
        self.user_objects = list(self.user_globals.values())
        self.stack: list = []
        self.metastack: list = []
        self.memo: dict = {}

    # --- reading ---

    def read(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise UnpicklingError("pickle data was truncated")
        out = self.data[self.pos : end]
        self.pos = end
        return out

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def readline(self) -> bytes:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise UnpicklingError("pickle data was truncated")
        line = self.data[self.pos : end]
        self.pos = end + 1
        return line

    # --- the stacks ---

    def pop(self):
        if not self.stack:
            raise UnpicklingError("unpickling stack underflow")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise UnpicklingError("unpickling stack underflow")
        return self.stack[-1]

    def pop_mark(self) -> list:
        if not self.metastack:
            raise UnpicklingError("could not find MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def is_user_allowed(self, obj) -> bool:
        return any(obj is v for v in self.user_objects)

    def load(self):
        ops = _OPS
        while True:
            op = self.read(1)
            handler = ops.get(op)
            if handler is None:
                raise _refused(f"opcode {op!r} at byte {self.pos - 1}.")
            if handler is _stop:
                return self.pop()
            handler(self)


def _push(value):
    return lambda u: u.stack.append(value)


def _pushing(fn):
    return lambda u: u.stack.append(fn(u))


def _from_mark(kind):
    def build(u):
        items = kind(u.pop_mark())  # before reading u.stack: popping the mark replaces it
        u.stack.append(items)

    return build


def _stop(u):
    pass


def _proto(u):
    if u.read(1)[0] > pickle.HIGHEST_PROTOCOL:
        raise UnpicklingError("unsupported pickle protocol")


def _int_line(u):
    line = u.readline()
    if line in (b"00", b"01"):
        return line == b"01"
    return int(line)


def _long_line(u):
    line = u.readline()
    return int(line[:-1] if line.endswith(b"L") else line)


def _long4(u):
    n = u.unpack("<i")
    if n < 0:
        raise UnpicklingError("LONG pickle has negative byte count")
    return int.from_bytes(u.read(n), "little", signed=True)


def _text(fmt):
    return lambda u: u.read(u.unpack(fmt)).decode("utf-8", "surrogatepass")


def _bytes(fmt):
    return lambda u: bytes(u.read(u.unpack(fmt)))


def _put(read_index):
    def put(u):
        i = read_index(u)
        if i < 0:
            raise UnpicklingError("negative PUT argument")
        u.memo[i] = u.top()

    return put


def _get(read_index):
    def get(u):
        i = read_index(u)
        if i not in u.memo:
            raise UnpicklingError(f"Memo value not found at index {i}")
        u.stack.append(u.memo[i])

    return get


def _tuple_n(n):
    def tup(u):
        if len(u.stack) < n:
            raise UnpicklingError("unpickling stack underflow")
        items = tuple(u.stack[len(u.stack) - n :])
        del u.stack[len(u.stack) - n :]
        u.stack.append(items)

    return tup


def _appends(u):
    items = u.pop_mark()
    target = u.top()
    if target.__class__ is not list:
        raise _refused(f"APPENDS to {type(target).__name__}.")
    target.extend(items)


def _append(u):
    value = u.pop()
    target = u.top()
    if target.__class__ is not list:
        raise _refused(f"APPEND to {type(target).__name__}.")
    target.append(value)


def _set_items(target, items):
    if target.__class__ not in (dict, OrderedDict):
        raise _refused(f"SETITEMS on {type(target).__name__}.")
    if len(items) % 2:
        raise UnpicklingError("odd number of items for SETITEMS")
    for i in range(0, len(items), 2):
        target[items[i]] = items[i + 1]


def _setitem(u):
    value = u.pop()
    key = u.pop()
    _set_items(u.top(), [key, value])


def _setitems(u):
    items = u.pop_mark()
    _set_items(u.top(), items)


def _dict(u):
    target = {}
    _set_items(target, u.pop_mark())
    u.stack.append(target)


def _additems(u):
    items = u.pop_mark()
    target = u.top()
    if target.__class__ is not set:
        raise _refused(f"ADDITEMS to {type(target).__name__}.")
    target.update(items)


def _global(u):
    module = u.readline().decode("utf-8")
    name = u.readline().decode("utf-8")
    u.stack.append(find_torch_class(module, name, True, u.user_globals))


def _stack_global(u):
    name = u.pop()
    module = u.pop()
    if not isinstance(module, str) or not isinstance(name, str):
        raise UnpicklingError("STACK_GLOBAL requires str")
    u.stack.append(find_torch_class(module, name, True, u.user_globals))


def _callable(u, func):
    _allowed()
    try:
        if func in _CALLABLES:
            return func
    except TypeError:  # unhashable
        pass
    if u.is_user_allowed(func):
        return func
    raise _refused(f"call: REDUCE of {func!r}, which is not an allowed callable.")


def _reduce(u):
    args = u.pop()
    func = _callable(u, u.pop())
    if args.__class__ is not tuple:
        raise UnpicklingError("REDUCE arguments must be a tuple")
    u.stack.append(func(*args))


def _newobj(u):
    args = u.pop()
    cls = u.pop()
    if args.__class__ is not tuple or not (
        any(cls is c for c in _NEWOBJ_CLASSES) or u.is_user_allowed(cls)
    ):
        raise _refused(f"class: NEWOBJ of {cls!r}.")
    u.stack.append(cls.__new__(cls, *args))


def _build(u):
    state = u.pop()
    inst = u.top()
    if inst.__class__ is not OrderedDict and u.is_user_allowed(inst.__class__):
        _build_allowed(inst, state)
        return
    if inst.__class__ is not OrderedDict or state.__class__ is not dict:
        raise _refused(f"BUILD of {type(inst).__name__} with {type(state).__name__} state.")
    for k, v in state.items():
        if not isinstance(k, str) or k.startswith("__"):
            raise _refused(f"BUILD setting attribute {k!r}.")
        inst.__dict__[k] = v


def _build_allowed(inst, state) -> None:
    """BUILD on an instance of a class the user marked safe: what pickle's load_build does."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slotstate = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slotstate = state
    if state:
        inst.__dict__.update(state)
    if slotstate:
        for k, v in slotstate.items():
            setattr(inst, k, v)


def _binpersid(u):
    u.stack.append(u.persistent_load(u.pop()))


def _pop_op(u):
    if u.stack:
        u.stack.pop()
    else:
        u.pop_mark()


def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


_OPS = {
    pickle.PROTO: _proto,
    pickle.FRAME: lambda u: u.read(8),
    pickle.STOP: _stop,
    pickle.MARK: _mark,
    pickle.POP: _pop_op,
    pickle.POP_MARK: lambda u: u.pop_mark(),
    pickle.DUP: lambda u: u.stack.append(u.top()),
    pickle.NONE: _push(None),
    pickle.NEWTRUE: _push(True),
    pickle.NEWFALSE: _push(False),
    pickle.INT: _pushing(_int_line),
    pickle.BININT: _pushing(lambda u: u.unpack("<i")),
    pickle.BININT1: _pushing(lambda u: u.read(1)[0]),
    pickle.BININT2: _pushing(lambda u: u.unpack("<H")),
    pickle.LONG: _pushing(_long_line),
    pickle.LONG1: _pushing(lambda u: int.from_bytes(u.read(u.read(1)[0]), "little", signed=True)),
    pickle.LONG4: _pushing(_long4),
    pickle.FLOAT: _pushing(lambda u: float(u.readline())),
    pickle.BINFLOAT: _pushing(lambda u: u.unpack(">d")),
    pickle.UNICODE: _pushing(lambda u: u.readline().decode("raw-unicode-escape")),
    pickle.BINUNICODE: _pushing(_text("<I")),
    pickle.SHORT_BINUNICODE: _pushing(_text("<B")),
    pickle.BINUNICODE8: _pushing(_text("<Q")),
    pickle.BINBYTES: _pushing(_bytes("<I")),
    pickle.SHORT_BINBYTES: _pushing(_bytes("<B")),
    pickle.BINBYTES8: _pushing(_bytes("<Q")),
    pickle.BYTEARRAY8: _pushing(lambda u: bytearray(u.read(u.unpack("<Q")))),
    pickle.EMPTY_TUPLE: lambda u: u.stack.append(()),
    pickle.TUPLE: _from_mark(tuple),
    pickle.TUPLE1: _tuple_n(1),
    pickle.TUPLE2: _tuple_n(2),
    pickle.TUPLE3: _tuple_n(3),
    pickle.EMPTY_LIST: lambda u: u.stack.append([]),
    pickle.LIST: _from_mark(list),
    pickle.APPEND: _append,
    pickle.APPENDS: _appends,
    pickle.EMPTY_DICT: lambda u: u.stack.append({}),
    pickle.DICT: _dict,
    pickle.SETITEM: _setitem,
    pickle.SETITEMS: _setitems,
    pickle.EMPTY_SET: lambda u: u.stack.append(set()),
    pickle.ADDITEMS: _additems,
    pickle.FROZENSET: _from_mark(frozenset),
    pickle.GLOBAL: _global,
    pickle.STACK_GLOBAL: _stack_global,
    pickle.REDUCE: _reduce,
    pickle.NEWOBJ: _newobj,
    pickle.BUILD: _build,
    pickle.BINPERSID: _binpersid,
    pickle.PUT: _put(lambda u: int(u.readline())),
    pickle.BINPUT: _put(lambda u: u.read(1)[0]),
    pickle.LONG_BINPUT: _put(lambda u: u.unpack("<I")),
    pickle.MEMOIZE: lambda u: u.memo.__setitem__(len(u.memo), u.top()),
    pickle.GET: _get(lambda u: int(u.readline())),
    pickle.BINGET: _get(lambda u: u.read(1)[0]),
    pickle.LONG_BINGET: _get(lambda u: u.unpack("<I")),
}
