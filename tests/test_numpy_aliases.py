"""torch's NumPy argument aliases: axis= for dim=, keepdims= for keepdim=."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

CASES = [
    ("amax", lambda T, x, **k: T.amax(x, **k)),
    ("std", lambda T, x, **k: x.std(**k)),
    ("prod", lambda T, x, **k: x.prod(**k)),
    ("cumsum", lambda T, x, **k: x.cumsum(**k)),
    ("logsumexp", lambda T, x, **k: x.logsumexp(**k)),
    ("argmax", lambda T, x, **k: x.argmax(**k)),
    ("squeeze", lambda T, x, **k: x[:1].squeeze(**k)),
    ("unsqueeze", lambda T, x, **k: x.unsqueeze(**k)),
    ("softmax", lambda T, x, **k: x.softmax(**k)),
    ("cat", lambda T, x, **k: T.cat([x, x], **k)),
    ("mean", lambda T, x, **k: x.mean(**k)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_axis_is_dim(name, fn):
    x = mt.tensor(np.random.default_rng(0).standard_normal((2, 3)))
    want = fn(mt, x, dim=0)
    got = fn(mt, x, axis=0)
    np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)


def test_keepdims_is_keepdim():
    x = mt.ones(2, 3)
    assert x.amax(axis=1, keepdims=True).shape == (2, 1)
    assert mt.std(x, axis=0, keepdims=True).shape == (1, 3)


def test_dim_and_axis_together_is_an_error():
    with pytest.raises(TypeError, match=r"amax\(\) got an unexpected keyword argument 'axis'"):
        mt.amax(mt.ones(2), dim=0, axis=0)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_same_as_torch(name, fn):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((2, 3))
    got = fn(mt, mt.tensor(a), axis=0)
    want = fn(torch, torch.tensor(a), axis=0)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=name)
