"""Session 21, h14: a seeded slice of the dtype-promotion fuzzer, against torch itself.

Every pair of dtypes and operand kinds (n-d tensor, 0-d tensor, Python number) through a few
binary ops, out-of-place and in place: result dtype, values (exact for integers) and the
exception type and message must be torch's."""

import math
import operator
import random

import pytest

import minitorch

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]  # fmt: skip
NUMBERS = [True, 3, -2, 300, 0.5, -2.5, 2.0]
# values that give no integer division by zero and no INT_MIN / -1 (torch's CPU kernels trap)
_INT_VALUES = [1, 2, 3, 5, -1, -3, 7]


def _values(dt, n, rng):
    if dt == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if dt == "uint8":
        return [rng.choice([1, 2, 9, 130, 255]) for _ in range(n)]
    if dt.startswith("int"):
        return [rng.choice(_INT_VALUES) for _ in range(n)]
    return [rng.randint(-24, 24) / 4 or 0.25 for _ in range(n)]


def _operands(rng):
    kinds = [("t", dt, zero) for dt in DTYPES for zero in (False, True)]
    return kinds + [("n", v) for v in NUMBERS]


def _make(lib, spec, rng_values):
    if spec[0] == "n":
        return spec[1]
    _, dt, zero = spec
    t = lib.tensor(rng_values, dtype=getattr(lib, dt))
    return t.reshape(()) if zero else t.reshape(2, 3)


def _observe(lib, fn, specs, values):
    try:
        args = [_make(lib, s, v) for s, v in zip(specs, values, strict=True)]
        r = fn(lib, *args)
    except Exception as e:  # the error itself is what is compared
        return ("error", type(e).__name__, str(e).split("\n")[0])
    first = args[0]
    return ("ok", str(r.dtype), tuple(r.shape), _flat(lib, r), _flat(lib, first))


def _flat(lib, t):
    if not t.dtype.is_floating_point:
        return t.reshape(-1).tolist()
    return t.detach().to(lib.float64).reshape(-1).tolist()


def _close(a, b, dtype):
    tol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}.get(dtype, 0)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y, dtype) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return a == b


OPS = {
    "add": lambda T, a, b: T.add(a, b),
    "add_alpha": lambda T, a, b: T.add(a, b, alpha=0.5),
    "mul": lambda T, a, b: T.mul(a, b),
    "div": lambda T, a, b: a / b,
    "logical_and": lambda T, a, b: T.logical_and(a, b),
    "logical_or_": lambda T, a, b: a.logical_or_(b),
    "eq": lambda T, a, b: T.eq(a, b),
    "maximum": lambda T, a, b: T.maximum(a, b),
    "lcm": lambda T, a, b: T.lcm(a, b),
    "imul": lambda T, a, b: operator.imul(a, b),
    "itruediv": lambda T, a, b: operator.itruediv(a, b),
    "floor_divide_": lambda T, a, b: a.floor_divide_(b),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_binary_promotion_matches_torch(name):
    rng = random.Random(f"h14-{name}")
    fn = OPS[name]
    first = [k for k in _operands(rng) if k[0] == "t"]
    mismatches = []
    for a in first:
        for b in _operands(rng):
            values = [_values(s[1], 1 if s[2] else 6, rng) if s[0] == "t" else None
                      for s in (a, b)]  # fmt: skip
            want = _observe(torch, fn, (a, b), values)
            got = _observe(minitorch, fn, (a, b), values)
            if want[0] != got[0] or want[:3] != got[:3]:
                mismatches.append((a, b, want, got))
            elif want[0] == "ok" and not (
                _close(want[3], got[3], want[1].split(".")[-1])
                and _close(want[4], got[4], str(a[1]))
            ):
                mismatches.append((a, b, want, got))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
