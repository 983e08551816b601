"""Session 23: strides of expand and unsqueeze views against torch (a seeded fuzz slice)."""

import random

import pytest

import minitorch

torch = pytest.importorskip("torch")


def _start(lib, kind, shape):
    n = 1
    for s in shape:
        n *= s
    t = lib.arange(float(n))
    if kind == "transposed":
        return t.reshape(shape[::-1]).permute(tuple(range(len(shape) - 1, -1, -1)))
    t = t.reshape(shape)
    if kind == "channels_last":
        return t.contiguous(memory_format=lib.channels_last)
    return t


@pytest.mark.parametrize("seed", range(200))
def test_expand_unsqueeze_strides(seed):
    r = random.Random(seed)
    kind = r.choice(["contiguous", "transposed", "channels_last"])
    nd = 4 if kind == "channels_last" else r.randint(1, 4)
    shape = tuple(r.choice([0, 1, 1, 2, 3]) for _ in range(nd))
    a, b = _start(torch, kind, shape), _start(minitorch, kind, shape)
    for _ in range(3):
        if r.random() < 0.5:
            d = r.randint(-a.ndim - 1, a.ndim)
            a, b = a.unsqueeze(d), b.unsqueeze(d)
        else:
            lead = [r.choice([1, 2]) for _ in range(r.randint(0, 2))]
            size = lead + [r.choice([1, 2]) if s == 1 else s for s in a.shape]
            a, b = a.expand(*size), b.expand(*size)
        assert b.shape == a.shape
        assert b.stride() == a.stride(), (kind, shape)
        assert b.storage_offset() == a.storage_offset()
        assert b.is_contiguous() == a.is_contiguous()
