"""Session 61: in-place ops on tensors whose arrays NumPy made read-only though nothing repeats in
them (a gradient of a full reduction of a 0-d tensor, and views of it; x.expand(x.shape)) write
as torch's do, where a NumPy ValueError escaped before
(tests/reference/test_s61_readonly_reference.py compares with torch)."""

import pytest

import minitorch as torch

OPS = [
    ("neg_", lambda t: t.neg_(), -2.0),
    ("add_", lambda t: t.add_(1), 3.0),
    ("sub_ alpha", lambda t: t.sub_(torch.ones(()), alpha=2), 0.0),
    ("lerp_", lambda t: t.lerp_(torch.zeros(()), 0.5), 1.0),
    ("addcmul_", lambda t: t.addcmul_(torch.ones(()), torch.ones(())), 3.0),
    ("addcdiv_", lambda t: t.addcdiv_(torch.ones(()), torch.full((), 2.0)), 2.5),
    ("copy_", lambda t: t.copy_(torch.full((), 5.0)), 5.0),
    ("fill_", lambda t: t.fill_(4.0), 4.0),
]


def _gradient():
    s = torch.tensor(1.5, requires_grad=True)
    (g,) = torch.autograd.grad(s.sum() * 2, [s])  # SumBackward0 spreads a 0-d gradient
    return g


@pytest.mark.parametrize("op", OPS, ids=[o[0] for o in OPS])
def test_a_0d_gradient_and_a_view_of_it_are_written(op):
    _, fn, expected = op
    g = _gradient()
    fn(g)
    assert g.item() == expected
    g = _gradient()
    fn(g[None][0])
    assert g.item() == expected


@pytest.mark.parametrize("make", [lambda c: c.expand_as(c), lambda c: c.expand(2, 3)])
def test_an_expand_to_its_own_shape_is_written_under_no_grad(make):
    c = torch.tensor([[1.0, 2.0, -3.0], [0.5, -0.5, 1.5]], dtype=torch.float64)
    with torch.no_grad():
        make(c).sub_(torch.tensor(0.5, dtype=torch.float64), alpha=2)
        ones = torch.ones(1, 3, dtype=torch.float64)
        make(c).addcmul_(ones, ones)
        make(c).lerp_(torch.zeros(2, 3, dtype=torch.float64), 0.5)
    assert c.tolist() == [[0.5, 1.0, -1.5], [0.25, -0.25, 0.75]]


def test_an_expand_that_repeats_elements_is_still_refused():
    c = torch.ones(1, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        c.expand(2, 3).sub_(torch.tensor(0.5), alpha=2)


@pytest.mark.parametrize(
    "view", [lambda g: g.unbind(0)[0], lambda g: g[1], lambda g: g[None][0, 2]]
)
def test_a_view_of_a_spread_gradient_writes_its_one_element(view):
    b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad(b.sum(), [b])  # one element spread over (3,), as torch's expand
    view(g).mul_(3)
    assert g.tolist() == [3.0, 3.0, 3.0]
