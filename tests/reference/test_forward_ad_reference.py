"""autograd.forward_ad against torch's: tangents, primals, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _probe(lib):
    fw = lib.autograd.forward_ad
    rng = np.random.default_rng(0)
    x, t = lib.tensor(rng.standard_normal(3)), lib.tensor(rng.standard_normal(3))
    w = lib.tensor(rng.standard_normal((3, 3)))
    out = []
    with fw.dual_level():
        d = fw.make_dual(x, t)
        y = lib.tanh(w @ d).exp() * d.sum()
        p, tan = fw.unpack_dual(y)
        out += [tan.numpy(), p.numpy(), fw.unpack_dual((d**2).sum()).tangent.numpy()]
        out += [fw.unpack_dual(w).tangent, type(fw.unpack_dual(d)).__name__]
        try:
            fw.make_dual(x, lib.ones(2, dtype=x.dtype))
        except RuntimeError as e:
            out.append(str(e)[:90])
    try:
        fw.make_dual(x, t)
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_forward_ad_matches_torch():
    got, want = _probe(mt), _probe(torch)
    for g, w in zip(got[:3], want[:3], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    assert got[3:] == want[3:]
