"""How many objects Python's cyclic GC sees per recorded op (NOTE [ Interned input metadata ]).

A graph that lives across many ops (an ODE rollout integrated step by step, an RNN) keeps every
node's objects alive until backward: the GC-tracked ones count toward the collector's
thresholds and are traversed by each collection. These tests count them; the values of
`needs_input_grad` they also check are torch's.
"""

import gc

import minitorch as torch

N = 200


def _net_allocs(build):
    """GC-tracked objects allocated and still alive per op while `build(N)` records N ops."""
    build(N)  # warm: node classes, caches
    gc.collect()
    gc.disable()
    try:
        c0 = gc.get_count()[0]
        keep = build(N)
        c1 = gc.get_count()[0]
    finally:
        gc.enable()
    return (c1 - c0) / N, keep


def _leaf(seed=0):
    torch.manual_seed(seed)
    return torch.randn(8, dtype=torch.float64, requires_grad=True)


def test_tracked_allocations_per_unary_op():
    x = _leaf()

    def build(n):
        y = x
        for _ in range(n):
            y = torch.sin(y)
        return y

    per_op, y = _net_allocs(build)
    # node, output tensor, its version counter, edges tuple, edge, saved tuple, saved entry:
    # the input (shape, dtype) adds nothing (10 per op before)
    assert per_op < 7.5, per_op
    assert y.grad_fn.needs_input_grad == (True,)
    y.sum().backward()
    assert x.grad.shape == (8,)


def test_tracked_allocations_per_binary_op():
    x = _leaf()
    w = _leaf(1)

    def build(n):
        y = x
        for _ in range(n):
            y = y * w
        return y

    per_op, y = _net_allocs(build)
    # 15 per op before: the two (shape, dtype) pairs, their shapes and the needs_input_grad tuple
    assert per_op < 10.5, per_op
    assert y.grad_fn.needs_input_grad == (True, True)


def test_tracked_allocations_per_scalar_op():
    x = _leaf()

    def build(n):
        y = x
        for _ in range(n):
            y = y + 1.0
        return y

    per_op, y = _net_allocs(build)
    # node, edges tuple, edge, the tuple of input metadata (7 per op before)
    assert per_op < 4.5, per_op
    assert y.grad_fn.needs_input_grad == (True, False)
    z = 2.0 - x
    assert z.grad_fn.needs_input_grad == (False, True)


def test_input_metadata_untracked_after_one_collection():
    # One young-generation collection leaves no tuple of a node's input metadata tracked (a
    # tuple of tuples used to need a collection per nesting level, so its pairs reached the
    # older generations)
    x = _leaf()
    w = torch.randn(3, 8, dtype=torch.float64, requires_grad=True)

    def build(n):
        y = x
        for _ in range(n):
            y = torch.tanh(y) * w[0] + w[1]
        return y

    build(2)
    for _ in range(3):  # the interned tuples, now old, untracked (a nesting level a collection)
        gc.collect()
    gc.disable()
    try:
        y = build(50)
        gc.collect(0)
    finally:
        gc.enable()
    nodes, todo = set(), [y.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in nodes:
            continue
        nodes.add(n)
        todo.extend(e[0] for e in n._next if e is not None)
    tracked = 0
    for n in nodes:
        meta = n._in_meta
        tracked += gc.is_tracked(meta)
        tracked += sum(gc.is_tracked(m) or gc.is_tracked(m[0]) for m in meta if m is not None)
    assert len(nodes) > 200
    assert tracked == 0, tracked


def test_needs_input_grad_of_two_input_custom_function():
    # ctx.needs_input_grad per input, as torch's: (False, True) when only the second requires
    # grad; the node's input metadata are shared tuples of (shape, dtype)
    seen = []

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen.append(ctx.needs_input_grad)
            return a * b

        @staticmethod
        def backward(ctx, g):
            return None, g * 2

    a = torch.ones(3, dtype=torch.float64)
    b = torch.ones(3, dtype=torch.float64, requires_grad=True)
    y1 = Mul.apply(a, b)
    y2 = Mul.apply(b, b)
    y1.sum().backward()
    assert seen == [(False, True), (True, True)]
    assert b.grad.tolist() == [2.0, 2.0, 2.0]
    assert y2.grad_fn._in_meta[0] is y2.grad_fn._in_meta[1]
    assert y2.grad_fn._in_meta[0] is y1.grad_fn._in_meta[1]
