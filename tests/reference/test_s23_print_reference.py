"""Session 23: a seeded slice of the printing fuzzer, against PyTorch. repr/str/format of whole
tensors (every dtype, 0-d to 5-d, empty dims, views, expanded, requires_grad/grad_fn, Parameters,
tensors inside lists/tuples/dicts) under random print options and default dtypes, and the reprs of
Size, dtype, device, finfo/iinfo and the named tuples ops return. Strings are compared exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

LIBS = (torch, mt)
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
try:
    import ml_dtypes  # noqa: F401

    DTYPES.append("bfloat16")
except ImportError:
    pass
HOST = {"bool": np.bool_, "bfloat16": np.float32}
INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-(2**15), 2**15 - 1)}
INT_RANGE.update(int32=(-(2**31), 2**31 - 1), int64=(-(2**63), 2**63 - 1))
FLOAT_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3.0, 1e-5, 1e9])
BOUNDARIES = np.array([1e-4, 9.99e-5, 1e8, 1e8 + 1, 1000.0, 0.001, 0.99995, 9.99995, 65504.0, 1e16])
MODIFIERS = ["none"] * 4 + ["T", "step", "expand", "flip", "rg", "gradfn", "param"]
WRAPS = ["repr"] * 3 + ["str", "list", "tuple", "dict", "format"]
SPECS = ["", ".2f", ".3e", ">12", "g", "d", "+", "x"]


def _shape(r: random.Random) -> tuple:
    nd = r.choice([0, 1, 1, 2, 2, 3, 4, 5])
    shape = [r.choice([0, 1, 1, 2, 3, 4, 5, 7, 8, 12, 20]) for _ in range(nd)]
    while np.prod(shape) > 2000:
        shape[r.randrange(nd)] //= 2
    return tuple(shape)


def _values(r: random.Random, dt: str, shape: tuple) -> np.ndarray:
    n = int(np.prod(shape))
    rng = np.random.default_rng(r.randrange(2**31))
    if dt == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dt in INT_RANGE:
        lo, hi = INT_RANGE[dt]
        kind = r.choice(["small", "full", "edge"])
        if kind == "small":
            v = rng.integers(max(lo, -20), min(hi, 20) + 1, n)
        elif kind == "full":
            v = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
        else:
            v = rng.choice(np.array([lo, hi, 0, 1, max(lo, -1)], dtype=np.int64), n)
        return v.astype(HOST.get(dt, dt)).reshape(shape)
    kind = r.choice(["normal", "magnitudes", "integral", "specials", "equal", "boundary"])
    if kind == "normal":
        v = rng.standard_normal(n) * 10 ** r.uniform(-3, 4)
    elif kind == "magnitudes":
        v = 10 ** rng.uniform(-8, 10, n) * rng.choice([-1, 1], n)
    elif kind == "integral":
        v = rng.integers(-1000, 1000, n).astype(float) * r.choice([1, 1000, 1e6, 1e9])
    elif kind == "specials":
        v = rng.choice(FLOAT_SPECIALS, n)
    elif kind == "equal":
        v = np.full(n, r.choice([0.0, -0.0, 1.0, 0.1, 1e-9, 1e12, np.nan, np.inf, 2.0**60]))
    else:
        v = rng.choice(BOUNDARIES, n) * rng.choice([-1, 1], n)
    with np.errstate(over="ignore"):
        return v.astype(HOST.get(dt, dt)).reshape(shape)


def _options(r: random.Random) -> dict | None:
    if r.random() < 0.3:
        return None
    o = {}
    if r.random() < 0.3:
        o["profile"] = r.choice(["default", "short", "full"])
    if r.random() < 0.5:
        o["precision"] = r.choice([0, 1, 2, 6, 10])
    if r.random() < 0.6:
        o["threshold"] = r.choice([0, 1, 5, 20, 100, 1000])
    if r.random() < 0.5:
        o["edgeitems"] = r.choice([0, 1, 2, 3, 4])
    if r.random() < 0.5:
        o["linewidth"] = r.choice([1, 10, 25, 40, 80, 150])
    if r.random() < 0.5:
        o["sci_mode"] = r.choice([True, False, None])
    return o


def _case(seed: int) -> dict:
    r = random.Random(seed)
    dt = r.choice(DTYPES)
    vals = _values(r, dt, _shape(r))
    return dict(
        dt=dt, vals=vals, opts=_options(r), default64=r.random() < 0.15,
        mod=r.choice(MODIFIERS), wrap=r.choice(WRAPS), spec=r.choice(SPECS),
    )  # fmt: skip


def _build(lib, c: dict):
    x = lib.tensor(c["vals"]) if c["vals"].ndim else lib.tensor(c["vals"].item())
    if c["dt"] == "bfloat16":
        x = x.to(lib.float32)
    x = x.to(getattr(lib, c["dt"]))
    mod, floating = c["mod"], x.is_floating_point()
    if mod == "T" and x.dim() >= 2:
        x = x.transpose(0, -1)
    elif mod == "step" and x.dim() >= 1:
        x = x[..., ::2]
    elif mod == "expand" and x.dim() >= 1 and x.shape[-1] == 1:
        x = x.expand(*x.shape[:-1], 4)
    elif mod == "flip" and x.dim() >= 1:
        x = x.flip(0)
    elif mod == "rg" and floating:
        x.requires_grad_()
    elif mod == "gradfn" and floating:
        x = x.requires_grad_() * 1
    elif mod == "param" and floating:
        x = lib.nn.Parameter(x)
    return x


def _reset(lib) -> None:
    lib.set_printoptions(profile="default")
    lib.set_printoptions(sci_mode=None)
    lib.set_default_dtype(lib.float32)


def _render(lib, c: dict) -> str:
    try:
        if c["default64"]:
            lib.set_default_dtype(lib.float64)
        if c["opts"] is not None:
            lib.set_printoptions(**c["opts"])
        x = _build(lib, c)
        wrap = c["wrap"]
        if wrap == "format":
            return format(x, c["spec"])
        return {
            "repr": repr, "str": str, "list": lambda t: str([t, 1]),
            "tuple": lambda t: repr((t,)), "dict": lambda t: str({"k": t}),
        }[wrap](x)  # fmt: skip
    except Exception as e:  # noqa: BLE001 (the error is compared)
        return f"{type(e).__name__}: {e}"
    finally:
        _reset(lib)


@pytest.mark.parametrize("block", range(8))
def test_tensor_printing_matches_torch(block):
    for seed in range(block * 100, (block + 1) * 100):
        c = _case(seed)
        want, got = _render(torch, c), _render(mt, c)
        assert got == want, f"seed {seed}: {c['dt']} {c['vals'].shape} {c['opts']} {c['mod']}"


# Each lambda takes the library; the results' reprs (or errors) are compared.
MISC = {
    "size": lambda m: [m.Size([]), m.Size([0, 3]), m.zeros(2, 3).shape, m.Size([2, 3, 4])[1:]],
    "size_concat": lambda m: [m.Size([2]) + (3,), (1,) + m.Size([3]), m.Size([2]) * 2],
    "size_str": lambda m: [str(m.Size([5])), f"{m.Size([1, 2])}"],
    "dtypes": lambda m: [getattr(m, d) for d in DTYPES + ["float", "double", "half", "long"]],
    "devices": lambda m: [m.device("cpu"), m.device("cuda", 1), str(m.device("cuda:0"))],
    "finfo": lambda m: [m.finfo(d) for d in (m.float16, m.bfloat16, m.float32, m.float64)],
    "finfo_str": lambda m: [str(m.finfo(m.float16)), str(m.finfo())],
    "iinfo": lambda m: [m.iinfo(d) for d in (m.uint8, m.int8, m.int16, m.int32, m.int64)],
    "max": lambda m: m.tensor([[1.0, 2], [3, 0]]).max(1),
    "min_keepdim": lambda m: m.min(m.tensor([[1, 2], [3, 0]]), dim=0, keepdim=True),
    "sort": lambda m: m.sort(m.tensor([3, 1, 2]), descending=True),
    "topk": lambda m: m.topk(m.arange(6.0), 2),
    "kthvalue": lambda m: m.kthvalue(m.tensor([3.0, 1, 2]), 2),
    "aminmax": lambda m: m.aminmax(m.tensor([3.0, 1, 2])),
    "cummax": lambda m: m.cummax(m.tensor([1.0, 3, 2]), 0),
    "frexp": lambda m: m.frexp(m.tensor([1.0, 3, 2])),
    "slogdet": lambda m: m.linalg.slogdet(m.eye(2, dtype=m.float64)),
    "qr": lambda m: m.linalg.qr(m.eye(2)),
    "histogram": lambda m: m.histogram(m.tensor([1.0, 2, 1]), bins=2),
    "parameters": lambda m: [
        m.nn.Parameter(m.tensor([1, 2]), requires_grad=False),
        m.nn.Parameter(m.empty(0, 2)),
        str(m.nn.Parameter(m.tensor(1.0))),
        (m.nn.Parameter(m.ones(2, dtype=m.float64)),),
    ],
    "empty": lambda m: (
        [m.empty(*s) for s in [(0,), (0, 3), (3, 0), (2, 0, 4)]]
        + [m.empty(0, dtype=m.int64), m.empty(0, 2, dtype=m.bool), m.empty(0, requires_grad=True)]
    ),
    "format_0d": lambda m: [
        format(m.tensor(v, dtype=getattr(m, d)), s)
        for v, d, s in [(2.5, "float32", ".3f"), (3, "int64", "04d"), (True, "bool", "")]
        + [(1.1, "float16", ""), (7, "uint8", "x"), (1e20, "float64", "g")]
    ],
    "contents": lambda m: m.ones(2).__repr__(tensor_contents="[values]"),
}


@pytest.mark.parametrize("name", sorted(MISC))
def test_misc_reprs_match_torch(name):
    outs = []
    for lib in LIBS:
        try:
            outs.append(repr(MISC[name](lib)))
        except Exception as e:  # noqa: BLE001 (the error is compared)
            outs.append(f"{type(e).__name__}: {e}")
    assert outs[1] == outs[0]
