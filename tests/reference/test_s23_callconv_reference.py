"""Calling conventions against torch (session 23): the same calls in both libraries give the
same values, dtypes and shapes, or the same exception type."""

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

CALLS = [
    "x.add(2, 3)",
    "x.add(2, x)",
    "x.add(x, 3)",
    "x.add(lib.tensor(2), x)",
    "x.add(2, x, alpha=3)",
    "x.sub(2.5, 1)",
    "x.clone().sub_(2, -1)",
    "x.addcmul(2, x, x)",
    "x.addcmul(2, 3, x)",
    "x.addcmul(2, x, x, value=3)",
    "lib.addcmul(x, 2, x, x, value=3)",
    "lib.rsub(x, 2, 5)",
    "lib.rsub(x, x, 2)",
    "lib.add(np.int64(2), 3)",
    "lib.add(np.float64(2), 3)",
    "lib.div(np.int64(2), np.int64(4))",
    "lib.floor_divide(np.int64(7), 2)",
    "lib.add(np.array(2), 3)",
    "lib.isclose(x, x + 0.5, rtol=0, atol=lib.tensor(0.6))",
    "lib.isclose(x, x, rtol=lib.tensor([1.0]))",
    "lib.isclose(x, x, rtol=None)",
    "lib.isclose(x, x, 1e-5, 1e-8, 1)",
    "lib.allclose(x, x + 0.5, 0.0, lib.tensor(0.6))",
    "lib.nonzero_static(x, size=lib.tensor([2]))",
    "lib.nonzero_static(x, size=np.int64(9), fill_value=np.int64(7))",
    "lib.nonzero_static(x, size=2, fill_value=1.5)",
    "lib.nonzero_static(x, size=None)",
    "x.round(decimals=1.0)",
    "x.round(decimals=lib.tensor(1))",
    "x.argmax(False)",
    "x.argmax(np.int64(1))",
    "x.select(0, True)",
    "x.select(0, lib.tensor([1]))",
    "x.view(lib.tensor([3, 2]))",
    "x.view(lib.tensor([[6]]))",
    "x.reshape(lib.tensor([3, 2]))",
    "x.expand(lib.tensor([2, 3]))",
    "x.repeat(lib.tensor([2, 1]))",
    "x.permute(lib.tensor([1, 0]))",
    "x.sum(lib.tensor(1))",
    "x.sum(dim=[0, 1], keepdim=True)",
    "x.new_zeros(np.int64(2))",
    "lib.zeros(lib.Size([2]))",
]


def _run(lib, call):
    x = lib.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(call, {"lib": lib, "x": x, "np": np})
        except Exception as e:
            return ("err", type(e).__name__)
    if isinstance(r, (bool, int, float)):
        return ("ok", r)
    return ("ok", str(r.dtype), tuple(r.shape), np.asarray(r.tolist()).tolist())


@pytest.mark.parametrize("call", CALLS)
def test_call_matches_torch(call):
    assert _run(minitorch, call) == _run(torch, call)
