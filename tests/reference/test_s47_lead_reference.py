"""Session 47, lead, against torch: the node of a regenerated view (NOTE [ The node of a
regenerated view ])."""

from __future__ import annotations

import pytest

import minitorch

torch = pytest.importorskip("torch")

MAKERS = {
    "slice": lambda y: y[1:3],
    "t_select": lambda y: y.t()[0],
    "flat_step": lambda y: y.view(24)[3:9:2],
    "transpose": lambda y: y.transpose(0, 1),
    "unsqueeze": lambda y: y.unsqueeze(0),
    "expand": lambda y: y.expand(2, 4, 6),
    "diagonal": lambda y: y.diagonal(),
    "permute_select": lambda y: y.permute(1, 0)[2],
    "view": lambda y: y.view(2, 12),
    "column": lambda y: y[:, 1],
    "narrow_of_slice": lambda y: y[1:].narrow(1, 2, 3),
}


def _node(lib, make):
    y = lib.randn(4, 6, requires_grad=True) * 1
    v = make(y)
    y.mul_(2)
    g = v.grad_fn
    saved = [a for a in dir(g) if a.startswith(("_saved_", "_raw_saved_"))]
    return type(g).__name__, [(a, getattr(g, a)) for a in saved]


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_regenerated_view_node_matches_torch(name):
    assert _node(minitorch, MAKERS[name]) == _node(torch, MAKERS[name])


def _rosenbrock_lbfgs(lib, dtype, steps=6, **options):
    x = lib.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=1, max_iter=5, **options)
    losses = []

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    for _ in range(steps):
        losses.append(opt.step(closure).item())
    return losses, x.detach().tolist()


@pytest.mark.parametrize("options", [{}, {"history_size": 3}])
def test_float32_lbfgs_follows_torch(options):
    # q.add_(y, alpha=-al[i]) with al[i] a 0-d tensor: one rounding, as torch's kernel
    want = _rosenbrock_lbfgs(torch, torch.float32, **options)
    got = _rosenbrock_lbfgs(minitorch, minitorch.float32, **options)
    assert got == want
