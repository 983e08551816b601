"""Session 47 (misc) against torch: the graph of to(memory_format=), and loading one optimizer's
state dict into another."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


# --- to(memory_format=...) ---


def _chain(t):
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(fn.name().replace("torch::autograd::", ""))
        nxt = [f for f, _ in fn.next_functions if f is not None]
        fn = nxt[0] if len(nxt) == 1 else None
    return names


_CALLS = [
    ("to", lambda lib, x, f: x.to(memory_format=f)),
    ("to_f64", lambda lib, x, f: x.to(lib.float64, memory_format=f)),
    ("to_f32_copy", lambda lib, x, f: x.to(lib.float32, copy=True, memory_format=f)),
    ("to_copy", lambda lib, x, f: x.to(memory_format=f, copy=True)),
    ("to_half", lambda lib, x, f: x.to(lib.float16, memory_format=f)),
    ("to_int", lambda lib, x, f: x.to(lib.int64, memory_format=f)),
    ("float", lambda lib, x, f: x.float(memory_format=f)),
    ("double", lambda lib, x, f: x.double(memory_format=f)),
    ("bfloat16", lambda lib, x, f: x.bfloat16(memory_format=f)),
    ("cpu", lambda lib, x, f: x.cpu(memory_format=f)),
    ("to_cpu_f64", lambda lib, x, f: x.to("cpu", lib.float64, memory_format=f)),
    ("to_other", lambda lib, x, f: x.to(lib.zeros(1, dtype=lib.float64), memory_format=f)),
]


def _to_records(lib, shape, layout, fmt, src):
    a = np.random.default_rng(3).standard_normal(shape).astype(src)
    out = []
    for name, call in _CALLS:
        x = lib.from_numpy(a.copy())
        if layout == "cl":
            x = x.to(memory_format=lib.channels_last)
        elif layout == "t":
            x = x.transpose(0, 1)
        x.requires_grad_()
        try:
            y = call(lib, x, getattr(lib, fmt))
        except RuntimeError as e:
            out.append((name, str(e)))
            continue
        rec = [name, y is x, str(y.dtype).split(".")[-1], y.requires_grad, _chain(y)]
        if 1 not in shape:  # (a size-1 dim's stride: a known difference of the copy kernels)
            rec.append(y.stride())
        rec.append(y.detach().double().numpy().tolist())
        if y.requires_grad:
            g = np.random.default_rng(4).standard_normal(tuple(y.shape))
            g = lib.from_numpy(g).to(y.dtype)
            (gx,) = lib.autograd.grad(y, x, g)
            rec += [gx.stride() if 1 not in shape else None, gx.double().numpy().tolist()]
        out.append(tuple(rec))
    return out


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 4), (1, 3, 1, 1), (2, 3, 4)])
@pytest.mark.parametrize("layout", ["c", "cl", "t"])
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
@pytest.mark.parametrize("src", [np.float32, np.float64])
def test_to_memory_format_matches_torch(shape, layout, fmt, src):
    if layout == "cl" and len(shape) != 4:
        return
    want = _to_records(torch, shape, layout, fmt, src)
    got = _to_records(minitorch, shape, layout, fmt, src)
    assert len(want) == len(got)
    for w, g in zip(want, got, strict=True):
        assert w == g, (w[:6], g[:6])


# --- optimizers loading each other's state dicts ---

_OPTIMIZERS = [
    "SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
    "Rprop", "Adafactor",
]  # fmt: skip


def _params(lib):
    w = lib.nn.Parameter(lib.tensor([[0.5, -0.3], [0.2, 0.1]]))
    return [w, lib.nn.Parameter(lib.tensor([0.1, -0.2]))]


def _optimizer(lib, name, ps):
    kw = {"lr": 0.1, "momentum": 0.9} if name == "SGD" else {"lr": 0.01}
    return getattr(lib.optim, name)(ps, **kw)


def _stepped_state(lib, name):
    ps = _params(lib)
    opt = _optimizer(lib, name, ps)
    for _ in range(2):
        opt.zero_grad()
        ((lib.tensor([[1.0, 2.0]]) @ ps[0] + ps[1]) ** 2).sum().backward()
        opt.step()
    return opt.state_dict()


def _load(lib, name, sd):
    opt = _optimizer(lib, name, _params(lib))
    try:
        opt.load_state_dict(sd)
    except Exception as e:  # noqa: BLE001 - the error is the record
        return f"{type(e).__name__}: {e}"
    return "loaded", sorted((k, type(v).__name__) for s in opt.state.values() for k, v in s.items())


def _load_records(lib, dst):
    out = []
    for src in _OPTIMIZERS:
        out.append((src, _load(lib, dst, _stepped_state(lib, src))))
    own = _stepped_state(lib, dst)
    for key in sorted({k for s in own["state"].values() for k in s}):
        for value in ("drop", None, 2):
            sd = _stepped_state(lib, dst)
            for s in sd["state"].values():
                if key not in s:  # (Adafactor's keys differ between matrices and vectors)
                    continue
                if value == "drop":
                    del s[key]
                else:
                    s[key] = value
            out.append((key, value, _load(lib, dst, sd)))
    return out


@pytest.mark.parametrize("dst", _OPTIMIZERS)
def test_load_state_dict_of_another_optimizer_matches_torch(dst):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _load_records(torch, dst)
        got = _load_records(minitorch, dst)
    assert got == want
