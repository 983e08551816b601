"""optim.SparseAdam: a lazy Adam over the rows an Embedding(sparse=True) step touches, against a
NumPy reference; torch's trajectory in tests/reference/test_optim_reference.py."""

from __future__ import annotations

import numpy as np

import minitorch as mt


def test_sparse_adam_updates_only_the_looked_up_rows():
    w0 = np.random.default_rng(0).normal(size=(6, 3))
    e = mt.nn.Embedding(6, 3, sparse=True, dtype=mt.float64)
    e.weight.data = mt.tensor(w0)
    opt = mt.optim.SparseAdam(e.parameters(), lr=0.1)
    w, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for t, ids in enumerate(([1, 3, 1], [0, 3], [5, 5, 2]), 1):
        opt.zero_grad()
        (e(mt.tensor(ids)) ** 2).sum().backward()
        opt.step()
        g = np.zeros_like(w)
        np.add.at(g, ids, 2 * w[ids])
        r = np.unique(ids)
        m[r] += (g[r] - m[r]) * 0.1
        v[r] += (g[r] ** 2 - v[r]) * 0.001
        w[r] -= 0.1 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m[r] / (np.sqrt(v[r]) + 1e-8)
        np.testing.assert_allclose(e.weight.detach().numpy(), w, rtol=1e-12)
    assert opt.state[e.weight]["step"] == 3 and w[4].tolist() == w0[4].tolist()  # row 4 untouched
