"""What the user's call looked like, read from the caller's bytecode on error paths only.

NOTE [ Keyword arguments in argument errors ]
torch's argument parser names a wrong argument's position only when it was passed by position:
`torch.add(x, "a")` is "argument 'other' (position 2) must be Tensor, not str", `torch.add(x,
other="a")` is "argument 'other' must be Tensor, not str". minitorch's functions receive both
alike, so the error path asks the call being executed in the first frame outside minitorch (the
user's line) which keyword names it passed, when it called the op itself (most of
nn.functional is torch Python code calling the op positionally). Where that cannot be told (a
call through **kwargs, a bytecode this reader does not know), the position stays."""

from __future__ import annotations

import dis
import os
import sys

from minitorch._arg_errors import NOT_GIVEN

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NN = _PACKAGE + "nn" + os.sep
_TORCH_NAMESPACE = _NN + "_torch_namespace.py"  # torch.<op>s defined in nn: parsed, all of them
# the torch.nn.functional functions that are torch's parsed (C++) functions themselves; the rest
# are Python that passes its arguments on by position
_PARSED_FUNCTIONAL = frozenset({
    "adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "bilinear", "celu_",
    "channel_shuffle", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "cosine_similarity", "elu_", "gelu", "hardshrink",
    "hardtanh_", "leaky_relu_", "linear", "logsigmoid", "native_channel_shuffle", "one_hot",
    "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu", "relu_",
    "rrelu_", "scaled_dot_product_attention", "selu_", "softplus", "softshrink", "threshold_",
    "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell",
})  # fmt: skip
# torch.functional's Python functions that call their parsed op positionally (outside nn)
_PYTHON_FUNCTIONS = frozenset({"cdist", "norm", "unique"})
# Tensor methods torch writes in Python (torch/_tensor.py) over a parsed function of the same
# arguments, called positionally, where the function itself is parsed: t.unflatten(dim="a")
_METHODS = _PACKAGE + "_tensor_methods.py"
_PYTHON_METHODS = frozenset({"unflatten"})
# nn.functional's Python functions (as _PARSED_FUNCTIONAL's comment) that minitorch writes in
# _ops/activation.py; celu and selu are left out: there one function is also torch.celu/selu
_ACTIVATION = _PACKAGE + "_ops" + os.sep + "activation.py"
_FUNCTIONAL_IN_OPS = frozenset({
    "elu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "mish", "relu6", "silu",
    "threshold",
})  # fmt: skip

# the NumPy spellings torch's parser takes for its argument names (vector_norm(x=...))
_NUMPY_SPELLINGS = {"input": ("x", "a", "x1"), "other": ("x2",), "dim": ("axis",),
                    "keepdim": ("keepdims",)}  # fmt: skip

# the inner functions of minitorch's decorators (one_node, with_out, the NumPy aliases), which
# stand for the function they wrap
_WRAPPERS = frozenset({"wrapper", "aliased", "spelled_x"})

# the call instructions of Python 3.10 - 3.13, and where each finds its keyword names
_PLAIN_CALLS = frozenset({"CALL_FUNCTION", "CALL_METHOD", "PRECALL"})
_CONST_KW_CALLS = frozenset({"CALL_FUNCTION_KW", "CALL_KW"})  # names: the LOAD_CONST before


_CACHE = dis.opmap.get("CACHE")  # 3.11+: the inline cache entries after an instruction
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]


def _before(raw: bytes, at: int) -> int:
    """The offset of the instruction before the one at `at` (past inline caches), or -1."""
    at -= 2
    while at >= 0 and raw[at] == _CACHE:
        at -= 2
    return at


def _arg(raw: bytes, at: int) -> int:
    """The argument of the instruction at `at`, with its EXTENDED_ARG prefixes."""
    arg, shift = raw[at + 1], 8
    while at >= 2 and raw[at - 2] == _EXTENDED_ARG:
        at -= 2
        arg |= raw[at + 1] << shift
        shift += 8
    return arg


def _call_keywords(frame):
    """The keyword names of the call `frame` is executing, or None where it cannot be told.
    Reads only the few instructions at the frame's position (co_code, which Python gives
    unspecialized and with zeroed caches), so it costs the same in a frame of any size."""
    code = frame.f_code
    raw = code.co_code
    at = frame.f_lasti
    if not 0 <= at < len(raw) - 1:
        return None
    while at > 0 and raw[at] == _CACHE:  # 3.11/3.12 may point into the call's inline cache
        at -= 2
    opname = dis.opname[raw[at]]
    if opname in _PLAIN_CALLS:
        return ()
    before = _before(raw, at)
    if opname in _CONST_KW_CALLS:
        if before >= 0 and dis.opname[raw[before]] == "LOAD_CONST":
            return tuple(code.co_consts[_arg(raw, before)])
        return None
    if opname == "CALL_FUNCTION_EX":  # f(*args, **kw) of a local mapping kw: its keys
        return _mapping_keywords(frame, raw, at)
    if opname == "CALL":  # 3.11/3.12: a KW_NAMES (then PRECALL in 3.11) just before
        for _ in range(2):
            if before < 0:
                break
            if dis.opname[raw[before]] == "KW_NAMES":  # (its argument indexes the constants)
                return tuple(code.co_consts[_arg(raw, before)])
            before = _before(raw, before)
        return ()
    return None


def _mapping_keywords(frame, raw: bytes, at: int):
    """The keys of the mapping a CALL_FUNCTION_EX at `at` passes as **kw, where the call spells
    it as a plain local (`BUILD_MAP 0, LOAD_FAST kw, DICT_MERGE`), or None."""
    if not raw[at + 1] & 1:  # no **mapping: positional only
        return ()
    merge = _before(raw, at)
    load = _before(raw, merge) if merge >= 0 else -1
    empty = _before(raw, load) if load >= 0 else -1
    if (
        empty < 0
        or dis.opname[raw[merge]] != "DICT_MERGE"
        or dis.opname[raw[load]] != "LOAD_FAST"
        or dis.opname[raw[empty]] != "BUILD_MAP"
        or _arg(raw, empty) != 0
    ):
        return None
    kw = frame.f_locals.get(frame.f_code.co_varnames[_arg(raw, load)])
    return tuple(kw) if isinstance(kw, dict) else None


def passed_by_keyword(name: str, op: str) -> bool:
    """True when the user's call (the first frame outside minitorch) passed `name` by keyword to
    minitorch's `op` itself: a call of an nn.functional function torch writes in Python
    (F.cross_entropy over its parsed cross_entropy_loss, F.group_norm over torch.group_norm),
    which passes its arguments on by position, does not count."""
    names = call_keywords(op, depth=2)
    if names is None:
        return False
    return name in names or any(a in names for a in _NUMPY_SPELLINGS.get(name, ()))


def call_arguments(op: str):
    """(the number of positional arguments, the keyword names) of the user's call of `op`, as
    call_keywords finds it, or None where that cannot be told. For error paths only."""
    names = call_keywords(op, depth=2)
    if names is None:
        return None
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    raw, at = frame.f_code.co_code, frame.f_lasti
    while at > 0 and raw[at] == _CACHE:
        at -= 2
    if dis.opname[raw[at]] not in _PLAIN_CALLS | _CONST_KW_CALLS | {"CALL"}:
        return None  # (** of a mapping: its positional arguments are a tuple)
    return _arg(raw, at) - len(names), names


def _entered_frames():
    """minitorch's frames of the call being executed, the one the user's call entered last
    (first to pop), or None where no user frame is found."""
    frame = sys._getframe(2)
    frames = []
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frames.append(frame)
        frame = frame.f_back
    return None if frame is None or not frames else frames


def keyword_given(name: str, op: str, default=None):
    """The value the user's call of `op` passed for the keyword-only argument `name` of default
    None (the first of minitorch's frames from the one it entered whose function has that
    argument holds it), or `default` where it passed none or that cannot be told (None passed
    through **kwargs). For error paths only: out= in "got (..., out=Tensor)" (NOTE [ Keyword
    arguments in argument errors ])."""
    for frame in reversed(_entered_frames() or ()):
        code = frame.f_code  # (an argument of the function, not a local of the same name)
        if name in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
            value = frame.f_locals.get(name)
            if value is NOT_GIVEN:
                break
            if value is not None or passed_by_keyword(name, op):
                return value
            break
    return default


def called_name(through_nn: bool = False) -> str | None:
    """The name of the minitorch function the user's call entered (the function a decorator
    wraps), or None where no user frame is found. through_nn: past the frames of nn code that
    torch writes in Python (a module's __init__, most of nn.functional), to the function they
    called, which torch's error names (nn.Linear(2, 3, device=1.5): empty()). For error paths
    only."""
    frames = _entered_frames()
    if frames is None:
        return None
    called = frames.pop()
    while frames and (
        called.f_code.co_name in _WRAPPERS or (through_nn and _torch_python(called.f_code))
    ):
        called = frames.pop()
    if called.f_code.co_name == "op":  # a function a factory made (exp, eq, bitwise_and, ...)
        name = called.f_locals.get("name")
        return name if isinstance(name, str) else None
    return called.f_code.co_name


def _torch_python(code) -> bool:
    """Whether `code` is nn code that torch writes in Python (see _PARSED_FUNCTIONAL)."""
    return (
        code.co_filename.startswith(_NN)
        and code.co_filename != _TORCH_NAMESPACE
        and code.co_name not in _PARSED_FUNCTIONAL
    )


def call_keywords(op: str, depth: int = 1):
    """The keyword names the user's call of `op` passed, in the call's order (see
    passed_by_keyword), or None where they cannot be told."""
    frame = sys._getframe(depth)
    codes = []
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        codes.append(frame.f_code)
        frame = frame.f_back
    if frame is None or not codes:
        return None
    called = codes.pop()
    while codes and called.co_name in _WRAPPERS:  # the function a decorator wraps decides
        called = codes.pop()
    if (
        called.co_filename.startswith(_NN)
        and called.co_filename != _TORCH_NAMESPACE
        and called.co_name not in _PARSED_FUNCTIONAL
    ):
        return None  # torch's nn.functional Python, calling its parsed op positionally
    if (
        called.co_name in _PYTHON_FUNCTIONS
        or (called.co_filename == _ACTIVATION and called.co_name in _FUNCTIONAL_IN_OPS)
        or (called.co_filename == _METHODS and called.co_name in _PYTHON_METHODS)
    ):
        return None
    try:
        return _call_keywords(frame)
    except Exception:  # an unknown bytecode layout: keep torch's positional wording
        return None
