"""An attention + MLP block's forward and backward against torch: expanded gradients reaching
matmul and linear (the gradient of `.sum()` passed on by residual adds) and GELU."""

from __future__ import annotations

import pytest

from tests.reference._programs import assert_program_matches, seeded_randn

torch = pytest.importorskip("torch")


def p_attention_block(lib, dt, rec):
    """Pre-norm single-head attention + GELU MLP (batch 8, seq 32, dim 32), summed; the block's
    output, input and every parameter gradient, and the strides of the gradients."""
    nn, F = lib.nn, lib.nn.functional
    dim = 32
    lib.manual_seed(0)
    norm1, norm2 = nn.LayerNorm(dim, dtype=dt), nn.LayerNorm(dim, dtype=dt)
    qkv, proj = nn.Linear(dim, 3 * dim, dtype=dt), nn.Linear(dim, dim, dtype=dt)
    fc1, fc2 = nn.Linear(dim, 4 * dim, dtype=dt), nn.Linear(4 * dim, dim, dtype=dt)
    mods = {"norm1": norm1, "norm2": norm2, "qkv": qkv, "proj": proj, "fc1": fc1, "fc2": fc2}
    for i, m in enumerate(mods.values()):  # the same weights in both libraries
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(seeded_randn(lib, dt, 10 + i, *p.shape) * 0.3)
    x = seeded_randn(lib, dt, 1, 8, 32, dim).requires_grad_()
    h = norm1(x)
    q, k, v = qkv(h).chunk(3, dim=-1)
    att = F.softmax(q @ k.transpose(-2, -1) / dim**0.5, dim=-1)
    h = x + proj(att @ v)
    out = h + fc2(F.gelu(fc1(norm2(h))))
    out.sum().backward()
    rec("out", out)
    rec("x.grad", x.grad)
    for name, m in mods.items():
        for pname, p in m.named_parameters():
            rec(f"{name}.{pname}.grad", p.grad)
            rec(f"{name}.{pname}.grad.stride", list(p.grad.stride()))


def p_products_of_expanded_operands(lib, dt, rec):
    """mm / matmul / linear with an expanded operand (rows or columns repeating) past the size
    where BLAS's path applies, and their gradients."""
    a = seeded_randn(lib, dt, 2, 1, 96).requires_grad_()
    b = seeded_randn(lib, dt, 3, 96, 40).requires_grad_()
    c = seeded_randn(lib, dt, 4, 70, 96).requires_grad_()
    col = seeded_randn(lib, dt, 5, 96, 1).requires_grad_()
    outs = {
        "rows @ b": a.expand(80, 96) @ b,
        "c @ cols": c @ col.expand(96, 60),
        "rows.T @ c.T": a.expand(70, 96).t() @ c,
        "batched rows @ b": a.expand(3, 50, 96).matmul(b),
        "linear(rows)": lib.nn.functional.linear(a.expand(64, 96), b.t()),
        "full @ b": lib.ones(1, 1, dtype=dt).expand(80, 96) @ b,
    }
    for name, out in outs.items():
        rec(name, out)
        rec(name + ".contiguous", out.is_contiguous())
        g = lib.autograd.grad(out.sum(), [t for t in (a, b, c, col) if t.requires_grad],
                              allow_unused=True)  # fmt: skip
        for i, gi in enumerate(g):
            if gi is not None:
                rec(f"{name}.grad{i}", gi)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_attention_block_matches_torch(dt):
    assert_program_matches(p_attention_block, torch, dt, tol=2e-5 if dt == "float32" else None)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_products_of_expanded_operands_match_torch(dt):
    assert_program_matches(p_products_of_expanded_operands, torch, dt)
