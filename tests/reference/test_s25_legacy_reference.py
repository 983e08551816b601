"""Old-style PyTorch programs (PyTorch 0.4-1.x course material) run under torch and minitorch:
values, warnings (category, text, how often in a process) and errors must agree."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

# Each line is called 3 times in a fresh process; the warnings of each call are recorded.
_SCRIPT = r"""
import json, sys, warnings
import numpy as np
t = __import__(sys.argv[1])
t.manual_seed(0)
F = t.nn.functional
E = t.eye(3)
U8 = t.tensor([1, 0, 1], dtype=t.uint8)
P, G = t.ones(3), t.full((3,), 0.5)
M = t.ones(2, 2)
CASES = [
    lambda: t.meshgrid(t.arange(2), t.arange(3))[0],
    lambda: t.cross(E, E),
    lambda: E.cross(E),
    lambda: t.chain_matmul(E, E),
    lambda: t.where(U8, E[0], E[1]),
    lambda: t.tensor(1.0).T,
    lambda: t.ones(2, 2, 2).T,
    lambda: t.tensor(1.0).mT,
    lambda: t.adjoint(t.tensor(1.0)),
    lambda: E[0][U8],
    lambda: P.clone().add_(-0.1, G),
    lambda: P.clone().addcmul_(0.5, G, G),
    lambda: t.addcmul(P, 0.5, G, G),
    lambda: t.addmm(0.5, M, 2.0, M, M),
    lambda: t.range(0, 3),
    lambda: F.log_softmax(t.arange(6.0).view(2, 3)),
    lambda: F.softmax(t.arange(24.0).view(2, 3, 4)),
    lambda: F.mse_loss(P, G, size_average=False),
    lambda: t.nn.init.xavier_uniform(t.empty(2, 2)),
    lambda: F.upsample(t.ones(1, 1, 2, 2), scale_factor=2),
    lambda: t.autograd.Variable(P, volatile=True),
    lambda: t.FloatTensor(2, 3).shape,
    lambda: t.LongTensor([1, 2]).type(),
    lambda: t.arange(3).type("torch.DoubleTensor"),
    lambda: P.new(2, 3).shape,
]
rows = []
for f in CASES:
    row = []
    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = f()
                if hasattr(r, "tolist"):  # values to 5 decimals: last bits may differ
                    r = np.round(np.array(r.tolist(), dtype=np.float64), 5).tolist()
                else:
                    r = str(r)
            except Exception as e:
                r = [type(e).__name__, str(e)]
        row.append([r, [[w.category.__name__, str(w.message)] for w in caught]])
    rows.append(row)
print(json.dumps(rows))
"""

_SUFFIX = re.compile(r" \(Triggered internally at [^)]*\)$")


def _run(lib):
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, lib], capture_output=True, text=True, check=True
    )
    rows = json.loads(out.stdout)
    for row in rows:
        for call in row:
            for w in call[1]:
                w[1] = _SUFFIX.sub("", w[1])  # torch names its C++ source; minitorch has none
    return rows


def test_legacy_calls_warn_like_torch_in_a_fresh_process():
    expected, got = _run("torch"), _run("minitorch")
    assert len(expected) == len(got)
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        assert g == e, f"case {i}"


def _sgd_with_data(lib):
    lib.manual_seed(0)
    w = lib.autograd.Variable(lib.randn(3, 2), requires_grad=True)
    x = lib.randn(5, 3)
    out = []
    for _ in range(3):
        loss = ((x @ w) ** 2).mean()
        loss.backward()
        w.data -= 0.1 * w.grad.data
        w.grad.data.zero_()
        out.append(loss.item())
    try:
        loss.data[0]
    except IndexError as e:
        out.append(str(e))
    return out, w.detach().numpy().ravel().tolist()


def test_old_style_sgd_with_data_and_variable():
    import minitorch

    e, g = _sgd_with_data(torch), _sgd_with_data(minitorch)
    assert e[0][3] == g[0][3]  # loss.data[0] on a 0-d tensor: torch's IndexError text
    assert g[0][:3] == pytest.approx(e[0][:3], rel=1e-6)
    assert g[1] == pytest.approx(e[1], rel=1e-6)
