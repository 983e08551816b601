"""Session 26 (stats): library fixes found by the statistics programs of
tests/reference/test_s26_stats_reference.py (torch's values stated as literals)."""

from __future__ import annotations

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def test_binomial_log_prob_sums_in_torchs_order():
    # torch 2.13: k*logits - lgamma(k+1) - lgamma(n-k+1) - (n*relu + n*log1p(e^-|l|) - lgamma(n+1))
    D = torch.distributions
    B = D.Binomial(torch.tensor([10.0, 10.0, 5.0]), probs=torch.tensor([0.0, 1.0, 1e-8]))
    got = B.log_prob(torch.tensor([0.0, 10.0, 0.0])).tolist()
    assert got == [-9.5367431640625e-07, 0.0, -4.76837158203125e-07]
    n = torch.tensor([10.0, 10.0, 10.0, 5.0, 24.0], dtype=torch.float64)
    p = torch.tensor([0.0, 1.0, 0.3, 1e-8, 0.5], dtype=torch.float64)
    got = D.Binomial(n, probs=p).log_prob(torch.tensor([0.0, 10.0, 3.0, 0.0, 7.0]).double())
    want = [
        -1.7763568394002505e-15, 0.0, -1.321151277766889, -5.000000058430487e-08,
        -3.8810377465286763,
    ]  # fmt: skip
    assert got.tolist() == want
    # the reordered sum keeps its gradients (twice differentiable)
    k = torch.tensor([0.0, 3.0, 7.0], dtype=torch.float64)
    n = torch.tensor([4.0, 10.0, 7.0], dtype=torch.float64)

    def f(logits):
        return torch.distributions.Binomial(n, logits=logits).log_prob(k)

    x = torch.tensor([-1.5, 0.3, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
    # softplus's max(l, 0) has gradient 1/2 at 0 (torch's _clamp_by_zero): k - n / 2
    z = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(z).sum(), z)
    assert g.tolist() == [-2.0, -2.0, 3.5]
