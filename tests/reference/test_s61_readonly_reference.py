"""Session 61: in-place ops on a 0-d gradient, views of it and expands to a tensor's own shape,
against torch (tests/test_s61_readonly.py)."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

OPS = [
    "neg_()", "abs_()", "exp_()", "add_(1)", "mul_(2)", "sub_(1, alpha=2)", "clamp_(0)",
    "fill_(3)", "zero_()", "copy_(L.ones(1))", "lerp_(L.ones(1), 0.5)",
    "addcmul_(L.ones(1), L.ones(1))", "addcdiv_(L.ones(1), L.ones(1) + 1)", "sigmoid_()",
    "masked_fill_(L.tensor([True]), 2)",
]


def _apply(L, op, t, shown):
    """t.<op> under no_grad (L: the library), then `shown` as a list, or the error."""
    try:
        with L.no_grad():
            eval("t." + op, {"L": L, "t": t})  # noqa: S307 - the ops above, for both libraries
    except (RuntimeError, ValueError) as e:
        return type(e).__name__, str(e)[:60]
    return shown.tolist()


def _on_gradient(L, op, view):
    s = L.tensor(1.7, dtype=L.float64, requires_grad=True)
    (g,) = L.autograd.grad(s.sum() * 2, [s])
    return _apply(L, op, g[None] if view else g.reshape(1), g)


@pytest.mark.parametrize("view", [False, True])
@pytest.mark.parametrize("op", OPS)
def test_in_place_on_a_gradient_matches_torch(op, view):
    assert _on_gradient(minitorch, op, view) == _on_gradient(torch, op, view)


def _on_expand(L, op, how):
    c = L.tensor([[1.0, 2.0, -3.0], [0.5, -0.5, 1.5]], dtype=L.float64)
    t = {"expand_as": c.expand_as(c), "expand": c.expand(2, 3), "repeat": c[:1].expand(2, 3)}[how]
    return _apply(L, op.replace("L.ones(1)", "L.ones(1, 3, dtype=L.float64)"), t, c)


@pytest.mark.parametrize("how", ["expand_as", "expand", "repeat"])
@pytest.mark.parametrize("op", OPS)
def test_in_place_on_an_expand_matches_torch(op, how):
    assert _on_expand(minitorch, op, how) == _on_expand(torch, op, how)


def _on_spread(L, op, how):
    d = L.ones(2, 3, dtype=L.float64, requires_grad=True)
    (g,) = L.autograd.grad(d.sum(), [d])
    t = {"unbind": g.unbind(0)[0][1], "select": g[1, 2], "mT": g.mT[0, 0]}[how]
    return _apply(L, op, t, g)


@pytest.mark.parametrize("how", ["unbind", "select", "mT"])
@pytest.mark.parametrize("op", OPS)
def test_in_place_on_a_view_of_a_spread_gradient_matches_torch(op, how):
    assert _on_spread(minitorch, op, how) == _on_spread(torch, op, how)
