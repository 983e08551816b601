"""stack's no-grad fast path along dim 0 (one NumPy array call): the full path's result bit for
bit, with its dtype, shape, strides, memory ownership and errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import shape_join
from minitorch.autograd import function

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool)
SHAPES = ((), (16,), (3, 4), (2, 0, 3), (2, 3, 1, 2))


def _full_path(fn):
    function.fast_path[0] = False
    try:
        return fn()
    finally:
        function.fast_path[0] = True


def _make(shape, dtype, seed, count):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(count):
        x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
        out.append(x > 0 if dtype is torch.bool else x.to(dtype))
    return out


def _same(a, b):
    assert a.dtype is b.dtype and a.shape == b.shape and a.stride() == b.stride()
    assert a._data.dtype == b._data.dtype
    assert a._data.tobytes() == b._data.tobytes()
    assert not a.requires_grad and a.grad_fn is None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dim", [0, "neg"])
def test_stack_dim0_matches_full_path(shape, dtype, dim):
    tensors = _make(shape, dtype, 7, 5)
    d = -(len(shape) + 1) if dim == "neg" else 0
    fast = torch.stack(tensors, d)
    _same(fast, _full_path(lambda: torch.stack(tensors, d)))
    assert fast._data.base is None  # the tensor owns its memory, as concatenate's result
    assert fast._data.flags.c_contiguous
    for i, t in enumerate(tensors):  # a copy: no memory shared with the inputs
        assert not np.shares_memory(fast._data, t._data)
        assert fast[i]._data.tobytes() == t._data.tobytes()


def test_stack_dim0_of_views_and_tuples():
    base = torch.arange(24.0).reshape(2, 3, 4)
    views = (base[0].t(), base[1].t(), base[1, :, ::2].repeat(1, 2).t())
    fast = torch.stack(views)
    _same(fast, _full_path(lambda: torch.stack(views)))
    assert fast.stride() == (12, 3, 1)
    one = [torch.tensor([1.0, 2.0])]
    _same(torch.stack(one), _full_path(lambda: torch.stack(one)))


def test_stack_dim0_taken_and_errors_unchanged(monkeypatch):
    calls = []
    real = shape_join._stack_arrays
    monkeypatch.setattr(shape_join, "_stack_arrays", lambda *a: calls.append(a) or real(*a))
    torch.stack([torch.ones(3), torch.zeros(3)])
    assert calls == []  # dim 0: the one-call route
    torch.stack([torch.ones(3), torch.zeros(3)], 1)
    assert len(calls) == 1
    for bad in ([torch.ones(3), torch.ones(4)], [torch.ones(3), torch.ones(1, 3)]):
        with pytest.raises(RuntimeError) as fast:
            torch.stack(bad)
        with pytest.raises(RuntimeError) as full:
            _full_path(lambda bad=bad: torch.stack(bad))
        assert str(fast.value) == str(full.value)
        assert str(fast.value).startswith("stack expects each tensor to be equal size")
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        torch.stack([])


def test_stack_dim0_mixed_dtypes_and_grad_take_the_full_path():
    a, b = torch.ones(2), torch.ones(2, dtype=torch.float64)
    r = torch.stack([a, b])
    assert r.dtype is torch.float64  # promoted, as before
    w = torch.ones(2, requires_grad=True)
    r = torch.stack([w, a])
    assert r.grad_fn.name() == "StackBackward0"
    r.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]
    with torch.no_grad():
        _same(torch.stack([w, a]), _full_path(lambda: torch.stack([w.detach(), a])))
