"""Session 47 (helper npx): a NumPy scalar on the left of a tensor operator, swept against torch:
every NumPy number type (float16/32/64, every int width, bool_) and edge values, every tensor
dtype (with and without requires_grad, 1-d and 0-d), every binary operator (+ - * / // % ** @ &
| ^ << >> < <= > >= == !=). Value (bit for bit), dtype, grad_fn name, gradient and error text
must be torch's (NOTE [ A NumPy scalar on the left of an operator ]).

Not compared: the gradient of `s ** t`, where minitorch's `number ** t` already differs from
torch's in the last bits of float16/bfloat16/float64 and in inf * 0 (nan where torch has 0 or a
finite value: 1e308 ** a float32 tensor). That is pow's backward with a number base, not this
path: the torch-free test checks `s ** t` is minitorch's `number ** t`, gradient included. The
float64 values of `s ** t` are compared to 13 digits: without the pinned CPU environment torch's
vectorised pow differs from NumPy's in the last bit, for a Python number base too."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture

torch = pytest.importorskip("torch")

OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
    "@": lambda a, b: a @ b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b,
    ">>": lambda a, b: a >> b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
DTYPES = [
    "float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool",
]  # fmt: skip


def _scalars():
    out = [np.bool_(True), np.bool_(False)]
    for T in (np.float16, np.float32, np.float64):
        out += [T(2.7), T(-0.3), T(0.0), T(np.finfo(T).max)]
    for T in (np.int8, np.int16, np.int32, np.int64, np.longlong):
        out += [T(3), T(-3), T(np.iinfo(T).min), T(np.iinfo(T).max)]
    for T in (np.uint8, np.uint16, np.uint32, np.uint64):
        out += [T(3), T(np.iinfo(T).max)]
    return out + [np.uint64(2**63), np.uint64(2**63 - 1)]


# one or two of each type, for the sweeps with no gradient or a 0-d tensor
_FEW = [
    np.bool_(True), np.float16(2.7), np.float32(-0.3), np.float64(2.7), np.float64(-0.0),
    np.int8(-3), np.int16(3), np.int32(-3), np.int64(3), np.longlong(-3), np.uint8(250),
    np.uint16(3), np.uint32(2**32 - 1), np.uint64(3), np.uint64(2**64 - 1),
]  # fmt: skip


def _tensor(lib, dt, requires_grad, zero_d):
    dtype = getattr(lib, dt)
    if dt == "bool":
        data = [True, False, True, False, True]
    elif dtype.is_floating_point:
        data = [7.0, -1.1, 0.3, 0.0, -2.0]
    elif dt == "uint8":
        data = [3, 253, 1, 0, 9]
    else:
        data = [3, -7, 1, 0, 70]
    t = lib.tensor(data[2] if zero_d else data, dtype=dtype)
    return t.requires_grad_() if requires_grad and dtype.is_floating_point else t


def _outcome(lib, s, dt, op, requires_grad, zero_d):
    t = _tensor(lib, dt, requires_grad, zero_d)
    try:
        r = OPS[op](s, t)
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return ("error", type(e).__name__, str(e).replace("torch", "minitorch"))
    if not isinstance(r, lib.Tensor):  # np.uint64 past int64 / t: NumPy's array, `==`: a bool
        return (type(r).__name__, str(getattr(r, "dtype", None)), repr(np.asarray(r).tolist()))
    grad = None
    if r.requires_grad and op != "**":
        try:
            r.sum().backward()
            grad = repr(t.grad.tolist())
        except RuntimeError as e:
            grad = str(e)
    name = r.grad_fn.name() if r.grad_fn is not None else None
    values = r.tolist()
    if op == "**" and r.dtype == lib.float64:  # (torch's vectorised pow: last bits, unpinned)
        values = [float(f"{v:.13g}") for v in (values if r.ndim else [values])]
    return (str(r.dtype).replace("torch", "minitorch"), repr(values), name, grad)


def _sweep(lib, requires_grad, zero_d):
    scalars = _scalars() if requires_grad and not zero_d else _FEW
    return {
        (repr(s), dt, op): _outcome(lib, s, dt, op, requires_grad, zero_d)
        for s in scalars
        for dt in DTYPES
        for op in OPS
    }


@pytest.mark.parametrize(
    "requires_grad, zero_d", [(True, False), (False, False), (True, True)], ids=str
)
def test_numpy_scalar_operators_match_torch(requires_grad, zero_d):
    import minitorch

    want = _sweep(torch, requires_grad, zero_d)
    got = _sweep(minitorch, requires_grad, zero_d)
    diffs = [f"{k}: torch {want[k]}, minitorch {got[k]}" for k in want if want[k] != got[k]]
    assert not diffs, f"{len(diffs)} differ:\n" + "\n".join(diffs[:10])


def _in_place(lib, s, op, dt):
    t = _tensor(lib, dt, True, False)
    a = s
    try:
        if op == "+":
            a += t
        elif op == "/":
            a /= t
        elif op == "**":
            a **= t
        elif op == "@":
            a @= t
        else:
            a <<= t
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        return ("error", type(e).__name__, str(e))
    return (str(a.dtype).replace("torch", "minitorch"), repr(a.tolist()), type(a).__name__)


def test_in_place_operators_on_numpy_scalars_match_torch():
    """`a = np.float64(3); a /= t` rebinds a to the tensor's reflected result; the errors name
    the in-place operator (`+=`, `**=`)."""
    import minitorch

    for s in (np.float64(3.0), np.float16(2.7), np.int64(-3), np.bool_(True), np.uint64(2**64 - 1)):
        for op in ("+", "/", "**", "@", "<<"):
            for dt in ("float16", "float32", "int8", "uint8"):
                want = _in_place(torch, s, op, dt)
                assert _in_place(minitorch, s, op, dt) == want, (repr(s), op, dt)
