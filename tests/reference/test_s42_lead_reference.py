"""Python ints beyond a Scalar's range (NOTE [ Ints beyond a Scalar ]) as torch's arithmetic
takes them, on the no-grad fast path and the full path alike."""

import operator

import pytest

import minitorch
from minitorch.autograd import function

torch = pytest.importorskip("torch")

DTYPES = ("float32", "float64", "int64", "int32", "uint8", "float16")
VALUES = (2**70, -(2**70), 2**64, 2**64 - 1, 2**63, -(2**63), -(2**63) - 1, 10**400)
OPS = {
    "mul": operator.mul, "add": operator.add, "sub": operator.sub, "truediv": operator.truediv,
    "rmul": lambda x, v: v * x, "radd": lambda x, v: v + x, "rsub": lambda x, v: v - x,
    "torch.add": lambda x, v: x.add(v), "pow_float": lambda x, v: x.float() ** v,
}  # fmt: skip


def outcome(lib, dtype, value, op, grad):
    x = lib.ones(3, dtype=getattr(lib, dtype), requires_grad=grad and dtype.startswith("float"))
    try:
        r = OPS[op](x, value)
    except Exception as e:  # noqa: BLE001 (compared by type and message)
        return type(e).__name__, str(e)
    return str(r.dtype).replace("minitorch", "torch"), None


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("grad", [False, True], ids=["plain", "requires_grad"])
@pytest.mark.parametrize("fast", [True, False], ids=["fast_path", "full_path"])
def test_big_int_operands_as_torch(op, grad, fast):
    function.fast_path[0] = fast
    try:
        with minitorch.no_grad() if not grad else minitorch.enable_grad():
            got = [outcome(minitorch, d, v, op, grad) for d in DTYPES for v in VALUES]
    finally:
        function.fast_path[0] = True
    want = [outcome(torch, d, v, op, grad) for d in DTYPES for v in VALUES]
    bad = [(d, v, g, w) for (d, v), g, w in zip(
        [(d, v) for d in DTYPES for v in VALUES], got, want, strict=True) if g != w]  # fmt: skip
    assert not bad, bad[:5]
