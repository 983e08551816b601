"""A shared harness for nn.functional reference tests: the same inputs through minitorch and torch,
outputs and input gradients (with a random upstream gradient) compared in float64."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitorch


@dataclass
class Case:
    """fn(F, lib, *tensors) -> tensor; make(rng) -> list of numpy arrays (float arrays are
    differentiated unless `grad` names the inputs to differentiate)."""

    name: str
    fn: Callable
    make: Callable
    grad: tuple | None = None
    atol: float = 1e-7
    rtol: float = 1e-6
    extra: dict = field(default_factory=dict)

    def __repr__(self):
        return self.name


def floats(*shapes, low=-2.0, high=2.0):
    def make(rng):
        return [rng.uniform(low, high, size=s) for s in shapes]

    return make


def run(lib, case: Case, arrays) -> tuple[list, list]:
    """(outputs, input gradients) of case in lib, as float64/int NumPy arrays."""
    F = lib.nn.functional
    tensors = []
    for i, a in enumerate(arrays):
        t = lib.tensor(a.copy())
        wanted = case.grad is None or i in case.grad
        if a.dtype.kind == "f" and wanted:
            t.requires_grad_(True)
        tensors.append(t)
    out = case.fn(F, lib, *tensors)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    diff = [o for o in outs if o.requires_grad]
    grads = []
    if diff:
        rng = np.random.default_rng(zlib.crc32(case.name.encode()) + 7)
        gs = [lib.tensor(rng.uniform(-1, 1, size=tuple(o.shape))).to(o.dtype) for o in diff]
        lib.autograd.backward(diff, gs)
        grads = [None if t.grad is None else _np(t.grad) for t in tensors if t.requires_grad]
    return [_np(o) for o in outs], grads


def _np(t):
    return t.detach().cpu().numpy()


def compare(case: Case, torch) -> None:
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    arrays = case.make(rng)
    got_out, got_grad = run(minitorch, case, arrays)
    want_out, want_grad = run(torch, case, arrays)
    assert len(got_out) == len(want_out), case.name
    for k, (g, w) in enumerate(zip(got_out, want_out, strict=True)):
        assert g.shape == w.shape, f"{case.name} output {k}: shape {g.shape}, torch {w.shape}"
        assert str(g.dtype) == str(w.dtype), f"{case.name} output {k}: {g.dtype}, torch {w.dtype}"
        np.testing.assert_allclose(
            g, w, rtol=case.rtol, atol=case.atol, err_msg=f"{case.name} output {k}"
        )
    assert len(got_grad) == len(want_grad), case.name
    for k, (g, w) in enumerate(zip(got_grad, want_grad, strict=True)):
        if w is None or g is None:
            assert g is None and w is None or _all_zero(g) and _all_zero(w), (
                f"{case.name} grad {k}: minitorch {g is not None}, torch {w is not None}"
            )
            continue
        np.testing.assert_allclose(
            g, w, rtol=case.rtol, atol=case.atol, err_msg=f"{case.name} gradient of input {k}"
        )


def _all_zero(a: Any) -> bool:
    return a is None or not np.any(a)
