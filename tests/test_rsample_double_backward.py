"""A second derivative through Gamma- and Dirichlet-family rsample raises torch's errors: the
draws' gradient factors depend on the parameters, and torch differentiates them once only (a
silently partial second derivative is what treating them as constants would give)."""

import pytest

import minitorch as torch
from minitorch import distributions as D

F64 = torch.float64


@pytest.mark.parametrize(
    "make",
    [
        lambda a: D.Gamma(a, torch.ones(2, dtype=F64)),
        lambda a: D.Chi2(a),
        lambda a: D.StudentT(a),
    ],
)
def test_gamma_family_second_derivative_raises(make):
    torch.manual_seed(0)
    a = torch.tensor([1.5, 2.0], dtype=F64, requires_grad=True)
    x = make(a).rsample()
    (g,) = torch.autograd.grad((x * a).sum(), a, create_graph=True)
    assert g.requires_grad
    with pytest.raises(
        NotImplementedError, match="the derivative for '_standard_gamma_grad' is not implemented."
    ):
        torch.autograd.grad(g.sum(), a)


def test_gamma_first_derivative_unchanged_and_named():
    torch.manual_seed(0)
    a = torch.tensor([1.5, 2.0], dtype=F64, requires_grad=True)
    x = D.Gamma(a, torch.ones(2, dtype=F64)).rsample()
    (g,) = torch.autograd.grad(x.sum(), a, create_graph=True)
    assert type(g.grad_fn).__name__ == "MulBackward0"
    factor = g.grad_fn.next_functions[1][0]
    assert type(factor).__name__ == "StandardGammaGradBackward0"
    torch.manual_seed(0)
    b = a.detach().requires_grad_()
    D.Gamma(b, torch.ones(2, dtype=F64)).rsample().sum().backward()
    assert torch.equal(b.grad, g.detach())


@pytest.mark.parametrize("dist", ["dirichlet", "beta"])
def test_dirichlet_family_is_once_differentiable(dist):
    torch.manual_seed(0)
    c = torch.tensor([1.5, 2.0, 0.7], dtype=F64, requires_grad=True)
    d = D.Dirichlet(c) if dist == "dirichlet" else D.Beta(c[:2], c[1:])
    x = d.rsample()
    (g,) = torch.autograd.grad((x * c[: x.shape[-1]]).sum(), c, create_graph=True)
    if dist == "dirichlet":  # (Beta's Error node sits deeper, under its slices)
        nodes = [type(n).__name__ for n, _ in g.grad_fn.next_functions if n is not None]
        assert "Error" in nodes
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()
    # a grad alone, whose incoming gradient needs none: no graph, as torch
    (h,) = torch.autograd.grad(d.rsample().sum(), c, create_graph=True)
    assert not h.requires_grad
