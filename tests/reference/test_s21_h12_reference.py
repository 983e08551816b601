"""Seeded slice of a differential fuzzer: repr/str/format of tensors built the same way in torch
and minitorch (every dtype, views, Parameters, subclasses, containers, return types, options)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
DTYPES = ["bool", *INTS, *FLOATS]
SHAPES = [(), (0,), (1,), (7,), (2, 0, 3), (3, 4), (1, 1, 5), (2, 3, 2, 2), (1001,), (10, 101),
          (4, 250), (6, 7), (2, 2, 2, 126), (9, 1)]  # fmt: skip
OPTIONS = [{}, {}, {"precision": 2}, {"precision": 0}, {"linewidth": 20}, {"linewidth": 120},
           {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"}, {"profile": "full"},
           {"edgeitems": 0}, {"edgeitems": 1, "threshold": 5}, {"threshold": math.inf}]  # fmt: skip
WRAPS = ["plain", "plain", "rg", "mul", "exp", "slice", "param", "param_nrg", "sub", "psub",
         "list", "dict"]  # fmt: skip
VIEWS = ["none", "none", "t", "step", "flip", "expand", "select"]


@pytest.fixture(autouse=True)
def _restore():
    yield
    for lib in (torch, mt):
        lib.set_printoptions(profile="default")
        lib.set_printoptions()
        lib.set_default_dtype(lib.float32)


def _values(rng: np.random.Generator, dtype: str, shape: tuple) -> np.ndarray:
    n = math.prod(shape)
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype in INTS:
        info = np.iinfo(dtype)
        if rng.random() < 0.5:
            return rng.integers(max(info.min, -20), 21, n).astype(dtype).reshape(shape)
        return rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype).reshape(shape)
    kind = rng.integers(5)
    if kind == 0:  # integral values
        a = rng.integers(-(10 ** rng.integers(1, 7)), 1000, n).astype(np.float64)
    elif kind == 1:  # mixed magnitudes
        a = 10.0 ** rng.uniform(-8, 12, n) * rng.choice([-1.0, 1.0], n)
    elif kind == 2:  # specials
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-5, 9)
        a = np.where(rng.random(n) < 0.4, rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0], n), a)
    elif kind == 3:  # all equal
        a = np.full(n, rng.choice([0.0, -0.0, 1.0, 0.1, 1e-5, 1e8, 123456789.0]))
    else:
        a = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 4)
    with np.errstate(over="ignore"):
        a = a.astype(np.float32 if dtype == "bfloat16" else dtype)
    return a.reshape(shape)


def _build(lib, arr: np.ndarray, dtype: str, view: str, wrap: str):
    if dtype == "bfloat16":
        t = lib.tensor(arr, dtype=lib.float32).to(lib.bfloat16)
    else:
        t = lib.tensor(arr, dtype=getattr(lib, dtype))
    if view == "t" and t.dim() >= 2:
        t = t.transpose(0, -1)
    elif view == "step" and t.dim() >= 1:
        t = t[::2]
    elif view == "flip" and t.dim() >= 1:
        t = t.flip(0)
    elif view == "expand" and t.dim() >= 1:
        t = t.unsqueeze(0).expand(2, *t.shape)
    elif view == "select" and t.dim() >= 1 and t.shape[0]:
        t = t[0]
    floating = dtype in FLOATS
    if wrap == "rg" and floating:
        t = t.clone().requires_grad_()
    elif wrap in ("mul", "exp", "slice") and floating:
        leaf = t.clone().requires_grad_()
        t = {
            "mul": lambda x: x * 2,
            "exp": lambda x: x.exp(),
            "slice": lambda x: x[..., :1] if x.dim() else x[()],
        }[wrap](leaf)
    elif wrap == "param":
        t = lib.nn.Parameter(t.clone(), requires_grad=floating)
    elif wrap == "param_nrg":
        t = lib.nn.Parameter(t.clone(), requires_grad=False)
    elif wrap == "sub":
        t = type("MyT", (lib.Tensor,), {})(t.clone())
    elif wrap == "psub":
        t = type("MyP", (lib.nn.Parameter,), {})(t.clone(), requires_grad=floating)
    return t


def _observe(lib, arr, dtype, view, wrap, options, default) -> list[str]:
    lib.set_printoptions(**options)
    lib.set_default_dtype(getattr(lib, default))
    t = _build(lib, arr, dtype, view, wrap)
    shown = [t, t] if wrap == "list" else {"a": (t,)} if wrap == "dict" else t
    out = [repr(shown), str(shown)]
    if isinstance(shown, lib.Tensor) and shown.dim() == 0:
        for spec in ["", ".2f", ".3e", ">12", "d", "x"]:
            try:
                out.append(format(shown, spec))
            except (TypeError, ValueError) as e:
                out.append(f"{type(e).__name__}: {e}")
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_tensor_printing_matches_torch(chunk):
    r = random.Random(2100 + chunk)
    for _ in range(75):
        dtype, shape = r.choice(DTYPES), r.choice(SHAPES)
        arr = _values(np.random.default_rng(r.randrange(2**32)), dtype, shape)
        case = (dtype, r.choice(VIEWS), r.choice(WRAPS), r.choice(OPTIONS))
        default = r.choice(["float32", "float32", "float64", "float16", "bfloat16"])
        want = _observe(torch, arr, *case, default)
        got = _observe(mt, arr, *case, default)
        assert got == want, (shape, case, default)


RETURN_TYPE_OPS = {
    "max": lambda t: t.max(1),
    "min": lambda t: t.min(0, keepdim=True),
    "median": lambda t: t.median(-1),
    "sort": lambda t: t.sort(descending=True),
    "topk": lambda t: t.topk(2),
    "kthvalue": lambda t: t.kthvalue(2, 0),
    "cummax": lambda t: t.cummax(1),
    "aminmax": lambda t: t.aminmax(dim=0),
    "frexp": lambda t: t.frexp(),
}


@pytest.mark.parametrize("op", sorted(RETURN_TYPE_OPS))
@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
def test_return_type_reprs_match_torch(op, dtype):
    rng = np.random.default_rng(len(op))
    arr = rng.permutation(12).reshape(3, 4) - 5  # distinct values: no ties to break
    reprs = []
    for lib in (torch, mt):
        t = lib.tensor(arr, dtype=getattr(lib, dtype))
        if op == "frexp":
            t = t.double()
        res = RETURN_TYPE_OPS[op](t)
        reprs.append((repr(res), str(res), repr(list(res))))
    assert reprs[1] == reprs[0]
