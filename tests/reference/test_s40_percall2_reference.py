"""The per-op paths (recording, the backward walk, products, sums, in-place updates) against torch:
values, gradients, layouts, saved values and errors of the common calls and their neighbours."""

from __future__ import annotations

import pytest

from tests.reference._programs import assert_program_matches, seeded_randn

torch = pytest.importorskip("torch")


def _bias_gradients(T, dt, rec):
    # gradients that broadcasting sends back over leading dims only (a bias over a batch), over
    # leading dims and dims of size 1, and to a 0-d input; accumulated over two backward calls
    x = seeded_randn(T, dt, 1, 4, 5)
    w = seeded_randn(T, dt, 2, 5, 3).requires_grad_()
    b = seeded_randn(T, dt, 3, 3).requires_grad_()
    c = seeded_randn(T, dt, 4, 1, 3).requires_grad_()
    s = seeded_randn(T, dt, 5, 1).reshape(()).requires_grad_()
    y = seeded_randn(T, dt, 6, 2, 4, 3).requires_grad_()
    for _ in range(2):
        h = (x @ w + b).relu()
        out = (h * c + s) * (y + b) - s
        out.sum().backward()
    for name, t in (("w", w), ("b", b), ("c", c), ("s", s), ("y", y)):
        rec(name, t.grad)
        rec(name + ".shape", str(tuple(t.grad.shape)))
        rec(name + ".stride", str(t.grad.stride()))
    b.grad.mul_(2)  # the gradient is the leaf's own, writable memory
    rec("b.doubled", b.grad)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_bias_gradients(dt):
    assert_program_matches(_bias_gradients, torch, dt)


def _half_bias_gradients(T, dt, rec):
    x = seeded_randn(T, dt, 1, 6, 4)
    b = seeded_randn(T, dt, 2, 4).requires_grad_()
    (x * b + b).sum().backward()
    rec("b", b.grad)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_bias_gradients(dt):
    assert_program_matches(_half_bias_gradients, torch, dt, tol=1e-2)


def _products(T, dt, rec):
    # operands BLAS can and cannot read in place (expanded rows, stepped slices), large and
    # small, transposed, with their gradients
    w = seeded_randn(T, dt, 1, 80, 70).requires_grad_()
    v = seeded_randn(T, dt, 2, 1, 80).requires_grad_()
    a = seeded_randn(T, dt, 3, 90, 160).requires_grad_()
    m = seeded_randn(T, dt, 4, 6, 5).requires_grad_()
    n = seeded_randn(T, dt, 5, 6, 4).requires_grad_()
    outs = {
        "expanded": v.expand(80, 80) @ w,
        "stepped": a[:, ::2] @ w,
        "transposed": a[:, :80].t() @ a[:, 80:],
        "small_t": m.t() @ n,
        "small_tt": m.t() @ n.t().t(),
    }
    for name, out in outs.items():
        rec(name, out)
        rec(name + ".stride", str(out.stride()))
    total = sum(o.sum() * (i + 1) for i, o in enumerate(outs.values()))
    total.backward()
    for name, t in (("w", w), ("v", v), ("a", a), ("m", m), ("n", n)):
        rec("grad." + name, t.grad)
        rec("grad." + name + ".stride", str(t.grad.stride()))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_products(dt):
    assert_program_matches(_products, torch, dt)


def _product_errors(T, dt, rec):
    x = T.ones(2, 3, dtype=dt)
    flags = T.ones(2, 2, dtype=T.bool)
    rec.err("matmul other number", lambda: T.matmul(x, 2))
    rec.err("matmul input number", lambda: T.matmul(2, x))
    rec.err("matmul input list", lambda: T.matmul([1.0], x))
    rec.err("matmul both lists", lambda: T.matmul([1.0], [2.0]))
    rec.err("matmul bool", lambda: T.matmul(flags, flags))
    rec.err("mm bool", lambda: T.mm(flags, flags))
    rec.err("matmul shapes", lambda: T.matmul(x, x))
    rec.err("matmul dtypes", lambda: T.matmul(x, x.t().double()))


def test_product_errors():
    assert_program_matches(_product_errors, torch, "float32")


def _sums(T, dt, rec):
    x = seeded_randn(T, dt, 1, 4, 3)
    for name, out in (
        ("sum", x.sum()),
        ("sum_t", x.t().sum()),
        ("dim_none", T.sum(x, dim=None)),
        ("dim_none_keep", T.sum(x, None, True)),
        ("ints", T.arange(6).reshape(2, 3).t().sum()),
        ("dim", x.t().sum(1)),
    ):
        rec(name, out)
        rec(name + ".layout", f"{tuple(out.shape)} {out.stride()} {out.is_contiguous()}")
    rec.err("list", lambda: T.sum([1.0, 2.0]))
    rec.err("str dim", lambda: x.sum("a"))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_sums(dt):
    assert_program_matches(_sums, torch, dt)


def _adds(T, dt, rec):
    x = seeded_randn(T, dt, 1, 3, 2)
    y = seeded_randn(T, dt, 2, 3, 2)
    o = T.empty(3, 2, dtype=dt)
    rec("add", T.add(x, y))
    rec("add_alpha", T.add(x, y, alpha=2))
    rec("add_out", T.add(x, y, out=o))
    rec("add_out.same", str(T.add(x, y, out=o) is o))
    rec("add_float_alpha", T.add(x, y, alpha=0.5))
    rec.err("add_bool_alpha", lambda: T.add(x, y, alpha=True))
    h = x.to(T.float16)
    rec("half", T.add(h, h))
    rec("half_alpha", T.add(h, h, alpha=3))
    i = T.arange(4)
    rec("int", T.add(i, i, alpha=2))
    rec.err("int_float_alpha", lambda: T.add(i, i, alpha=0.5))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_adds(dt):
    assert_program_matches(_adds, torch, dt)


def _inplace_updates(T, dt, rec):
    p = seeded_randn(T, dt, 1, 3, 4)
    g = seeded_randn(T, dt, 2, 3, 4)
    before = p._version
    with T.no_grad():
        p -= 0.1 * g
        p.sub_(g, alpha=0.5)
        p += 1
    rec("p", p)
    rec("p.version", str(p._version - before))
    t = T.arange(6)
    t -= 2
    t.sub_(3)
    rec("int", t)
    rec.err("int -= float", lambda: t.sub_(0.5))
    for half in (T.float16, T.bfloat16):
        q = T.ones(4, dtype=half)
        q -= 0.1
        q.sub_(T.full((4,), 0.3, dtype=half))
        rec(f"{half}", q)
    flags = T.ones(3, dtype=T.bool)
    rec.err("bool -= True", lambda: flags.sub_(True))


def test_inplace_updates():
    assert_program_matches(_inplace_updates, torch, "float32")


def _nodes(T, dt, rec):
    x = seeded_randn(T, dt, 1, 3).requires_grad_()
    y = seeded_randn(T, dt, 2, 3).requires_grad_()
    z = x * y
    e = (z + x).exp()
    acc = z.grad_fn.next_functions[0][0]
    rec("one accumulator", str(acc is (x + y).grad_fn.next_functions[0][0]))
    rec("accumulator.variable", str(acc.variable is x))
    rec("names", str([type(n).__name__ for n, _ in e.grad_fn.next_functions]))
    rec("saved_self", z.grad_fn._saved_self)
    rec("saved_other", z.grad_fn._saved_other)
    rec("saved_result", e.grad_fn._saved_result)
    (z * 2).sum().backward(retain_graph=True)
    e.sum().backward()
    rec("x.grad", x.grad)
    rec("y.grad", y.grad)
    rec.err("freed", lambda: e.grad_fn._saved_result)
    rec.err("backward twice", lambda: e.sum().backward())
    w = seeded_randn(T, dt, 3, 3).requires_grad_()
    u = w * 1
    v = u * u
    with T.no_grad():
        u.add_(1)
    rec.err("modified", lambda: v.sum().backward())


def test_nodes():
    assert_program_matches(_nodes, torch, "float64")
