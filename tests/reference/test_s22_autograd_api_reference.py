"""A seeded slice of session 22's autograd-API differential fuzzer: random small float64 graphs
(shared subexpressions, several outputs, detach, retain_grad on non-leaves) run through
backward(gradient=, retain_graph=, create_graph=, inputs=) and autograd.grad(allow_unused,
materialize_grads, create_graph, grad_outputs with None entries), and tensor / node hooks whose
call order is recorded; minitorch's observations must equal torch's."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _obs(T, x):
    if isinstance(x, T.Tensor):
        return (
            "T",
            np.round(x.detach().numpy(), 8).tolist(),
            tuple(x.shape),
            str(x.dtype).replace("minitorch", "torch"),
            x.requires_grad,
            x.is_leaf,
            None if x.grad_fn is None else type(x.grad_fn).__name__,
        )
    if isinstance(x, (list, tuple)):
        return tuple(_obs(T, y) for y in x)
    return x


class _Log:
    def __init__(self, T):
        self.T, self.items = T, []

    def add(self, name, value):
        self.items.append((name, _obs(self.T, value)))

    def call(self, name, fn):
        try:
            self.add(name, fn())
        except Exception as e:  # noqa: BLE001 - the exception is the observation
            self.items.append(
                (name, ("EXC", type(e).__name__, str(e).replace("minitorch", "torch")))
            )


def _arr(rng, shape):
    return np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(shape)))]).reshape(shape)


def _build(T, rng):
    leaves = [
        T.tensor(_arr(rng, (2, 3)), dtype=T.float64, requires_grad=rng.random() < 0.8)
        for _ in range(3)
    ]
    nodes = list(leaves)
    for _ in range(rng.randint(2, 7)):
        a, b = rng.choice(nodes), rng.choice(nodes)
        op = rng.randrange(8)
        if op == 0:
            y = a.sin()
        elif op == 1:
            y = (a * 0.3).exp()
        elif op == 2:
            y = a.detach()
        elif op == 3:
            y = a * a
        elif op == 4:
            y = a + b
        elif op == 5:
            y = a * b
        elif op == 6:
            y = a - b
        else:
            y = a / (b * b + 1)
        nodes.append(y)
    return leaves, nodes


def _program(T, seed):
    rng = random.Random(seed)
    log = _Log(T)
    leaves, nodes = _build(T, rng)
    inner = nodes[len(leaves) :]
    for n in inner:
        if n.requires_grad and rng.random() < 0.3:
            n.retain_grad()
    calls = []
    for i, n in enumerate(nodes):
        if n.requires_grad and rng.random() < 0.3:
            n.register_hook(lambda g, i=i: calls.append(("t", i, np.round(g.numpy(), 8).tolist())))
        if n.grad_fn is not None and rng.random() < 0.2:
            n.grad_fn.register_prehook(lambda go, i=i: calls.append(("pre", i)))
            n.grad_fn.register_hook(lambda gi, go, i=i: calls.append(("post", i)))
    outs = rng.sample(inner, min(len(inner), rng.randint(1, 3)))
    mode = rng.randrange(4)
    g = T.tensor(_arr(rng, (2, 3)), dtype=T.float64)
    if mode == 0:
        kw = {"retain_graph": rng.random() < 0.5}
        if rng.random() < 0.4:
            kw["inputs"] = rng.sample(nodes, rng.randint(1, 2))
        log.call("bwd", lambda: outs[0].backward(g, **kw))
        log.call("bwd2", lambda: outs[0].backward(g, **kw))
    elif mode == 1:
        ins = rng.sample(nodes, rng.randint(1, 3))
        gos = [None if rng.random() < 0.3 else g for _ in outs]
        kw = {
            "allow_unused": rng.random() < 0.5 or None,
            "materialize_grads": rng.random() < 0.3,
            "create_graph": rng.random() < 0.3,
        }
        if kw["materialize_grads"]:
            kw["allow_unused"] = True
        log.call("grad", lambda: T.autograd.grad(outs, ins, gos, **kw))
    elif mode == 2:
        s = sum((o * o * o).sum() for o in outs)
        log.call("c1", lambda: s.backward(create_graph=True))
        gs = [lf.grad for lf in leaves if lf.grad is not None and lf.grad.requires_grad]
        if gs:
            log.call("c2", lambda: sum(x.sum() for x in gs).backward())
    else:
        s = sum((o * (k + 1)).sum() for k, o in enumerate(outs))
        log.call("r1", lambda: s.backward(retain_graph=True))
        log.call("r2", lambda: s.backward())
        log.call("r3", lambda: s.backward())
    log.add("calls", calls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .grad of a non-leaf
        for i, n in enumerate(nodes):
            log.add(f"grad{i}", n.grad)
    return log.items


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-6 * (1 + abs(a))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("block", range(4))
def test_random_autograd_programs_match_torch(block):
    for seed in range(block * 150, (block + 1) * 150):
        t = _program(torch, seed)
        m = _program(minitorch, seed)
        assert _same(m, t), f"seed {seed}:\n torch {t}\n mini  {m}"
