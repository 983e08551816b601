"""Session 21 (h13): a seeded slice of the save/load differential fuzzer against torch.

Random objects of tensors of every dtype, views sharing storages (sliced, transposed, expanded,
selected, empty), Parameters and nested containers are built alike in both libraries, saved by
each (zip and legacy formats) and loaded by each; the loaded objects must agree in values,
dtypes, shapes, strides, offsets, requires_grad and in which tensors share memory.
"""

from __future__ import annotations

import io
import random
from collections import OrderedDict

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16"]
DTYPES += ["float32", "float64"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}


def _group(rng):
    dt = rng.choice(DTYPES)
    shape = tuple(rng.randrange(1, 5) for _ in range(rng.randrange(0, 4)))
    n = int(np.prod(shape)) if shape else 1
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    if dt == "bool":
        data = nrng.integers(0, 2, n).astype(bool)
    elif dt in FLOATS:
        data = nrng.standard_normal(n).astype(np.float32)
    else:
        info = np.iinfo(dt)
        data = nrng.integers(info.min, int(info.max) + 1, n)
    return dt, shape, data.reshape(shape).tolist(), dt in FLOATS and rng.random() < 0.3


def _view_ops(rng, shape):
    ops, shape = [], list(shape)
    for _ in range(rng.randrange(0, 3)):
        if shape and rng.random() < 0.5:
            d = rng.randrange(len(shape))
            a = rng.randrange(shape[d] + 1)
            ops.append(("slice", d, a, rng.choice([1, 2])))
            shape[d] = len(range(a, shape[d], ops[-1][3]))
        elif len(shape) >= 2 and rng.random() < 0.5:
            ops.append(("t",))
            shape[0], shape[1] = shape[1], shape[0]
        elif shape and shape[0] > 0 and rng.random() < 0.5:
            ops.append(("select", rng.randrange(shape[0])))
            shape.pop(0)
        else:
            ops.append(("unsqueeze",))
            shape.insert(0, 1)
    return ops


def _spec(seed):
    rng = random.Random(seed)
    groups = [_group(rng) for _ in range(rng.randrange(1, 4))]
    leaves = []
    for _ in range(rng.randrange(1, 6)):
        g = rng.randrange(len(groups))
        leaves.append((g, _view_ops(rng, groups[g][1]), rng.random() < 0.1))
    legacy = rng.random() < 0.3
    return groups, leaves, legacy


def _build(L, spec):
    groups, leaves, _ = spec
    bases = []
    for dt, shape, data, rg in groups:
        t = L.tensor(data, dtype=L.float32 if dt in FLOATS else getattr(L, dt))
        t = t.to(getattr(L, dt)).reshape(shape)
        bases.append(t.requires_grad_(rg))
    out = []
    for g, ops, param in leaves:
        t = bases[g].detach() if param else bases[g]
        for op in ops:
            if op[0] == "slice":
                idx = [slice(None)] * t.dim()
                idx[op[1]] = slice(op[2], None, op[3])
                t = t[tuple(idx)]
            elif op[0] == "t":
                t = t.transpose(0, 1)
            elif op[0] == "select":
                t = t.select(0, op[1])
            else:
                t = t.unsqueeze(0)
        if param and t.dtype.is_floating_point:
            t = L.nn.Parameter(t)
        out.append(t)
    return OrderedDict(base=bases, leaves=out, meta=(L.Size([2, 3]), L.float16, "x", 1.5, None))


def _describe(x):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        v = x.detach()
        if str(v.dtype) == "torch.bfloat16":
            v = v.float()
        values = v.contiguous().numpy().tolist() if v.numel() else []
        size1 = [n != 1 for n in x.shape]  # minitorch reports size-1 dims' strides its own way
        stride = (
            [s for s, keep in zip(x.stride(), size1, strict=True) if keep] if x.numel() else None
        )
        return (
            type(x).__name__,
            str(x.dtype),
            tuple(x.shape),
            stride,
            x.storage_offset() if x.numel() else None,
            x.requires_grad,
            x.untyped_storage().nbytes(),
            values,
        )
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_describe(v) for v in x]
    return str(x)


def _tensors(x, acc):
    if isinstance(x, (torch.Tensor, minitorch.Tensor)):
        acc.append(x)
    elif isinstance(x, dict):
        for v in x.values():
            _tensors(v, acc)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _tensors(v, acc)
    return acc


def _poke(L, obj, k):
    """Writes 1 through one tensor: the tensors sharing its memory show it."""
    ts = [t for t in _tensors(obj, []) if t.numel() and 0 not in t.stride()]
    if ts:
        with L.no_grad():
            ts[k % len(ts)].detach().fill_(1)


def _save(L, obj, legacy):
    buf = io.BytesIO()
    L.save(obj, buf, _use_new_zipfile_serialization=not legacy)
    return buf.getvalue()


@pytest.mark.parametrize("seed", range(60))
def test_round_trips_agree_with_torch(seed):
    spec = _spec(seed)
    legacy = spec[2]
    t_obj, m_obj = _build(torch, spec), _build(minitorch, spec)
    t_file, m_file = _save(torch, t_obj, legacy), _save(minitorch, m_obj, legacy)
    ref = torch.load(io.BytesIO(t_file))
    for loader, data in ((minitorch, t_file), (torch, m_file), (minitorch, m_file)):
        got = loader.load(io.BytesIO(data))
        assert _describe(got) == _describe(ref), (loader.__name__, seed)
        _poke(loader, got, seed)
        fresh = torch.load(io.BytesIO(t_file))
        _poke(torch, fresh, seed)
        assert _describe(got) == _describe(fresh), ("sharing", loader.__name__, seed)
    # torch file -> minitorch -> re-saved by minitorch -> torch
    again = torch.load(io.BytesIO(_save(minitorch, minitorch.load(io.BytesIO(t_file)), legacy)))
    assert _describe(again) == _describe(ref)
