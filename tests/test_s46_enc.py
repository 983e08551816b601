"""nn.MultiheadAttention's SDPA path splits the heads by one permute (NOTE [ MHA heads split by
one permute ]): the same bits, strides and gradients as the composed reshape/transpose route."""

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn
from minitorch.nn import functional as F


def _composed(m, query, key, value):
    """The attention of m (batch_first, packed weights, no masks) by the composed route: heads
    split as view(L, N * heads, d).transpose(0, 1) and a reshape to 4-D."""
    q, k, v = (t.transpose(1, 0) for t in (query, key, value))
    (L, N, E), S, H = q.shape, k.shape[0], m.num_heads
    d = E // H
    if query is key and key is value:
        q, k, v = F.linear(q, m.in_proj_weight, m.in_proj_bias).chunk(3, -1)
    else:
        w, b = m.in_proj_weight.chunk(3), m.in_proj_bias.chunk(3)
        q, k, v = (F.linear(t, w[i], b[i]) for i, t in enumerate((q, k, v)))
    q = q.reshape((L, N * H, d)).transpose(0, 1).reshape((N, H, L, d))
    k = k.reshape((S, N * H, d)).transpose(0, 1).reshape((N, H, S, d))
    v = v.reshape((S, N * H, d)).transpose(0, 1).reshape((N, H, S, d))
    out = F.scaled_dot_product_attention(q, k, v).permute((2, 0, 1, 3)).reshape((N * L, E))
    out = F.linear(out, m.out_proj.weight, m.out_proj.bias).reshape((L, N, E))
    return out.transpose(1, 0)


def _bits(a, b, what):
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape, what
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8), err_msg=what)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 5, 5, 16, 4), (1, 5, 5, 16, 4), (3, 4, 6, 12, 2)])
@pytest.mark.parametrize("kind", ["self", "cross"])
def test_sdpa_path_matches_composed_route(dtype, shape, kind):
    N, L, S, E, H = shape
    if kind == "self" and L != S:
        pytest.skip("self-attention needs L == S")
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(46)
    torch.manual_seed(46)
    m = nn.MultiheadAttention(E, H, batch_first=True, dtype=dt)
    with torch.no_grad():
        m.in_proj_bias.normal_(generator=gen)
        m.out_proj.bias.normal_(generator=gen)
    q = torch.randn(N, L, E, dtype=dt, generator=gen, requires_grad=True)
    k = v = q
    if kind == "cross":
        k = torch.randn(N, S, E, dtype=dt, generator=gen, requires_grad=True)
        v = torch.randn(N, S, E, dtype=dt, generator=gen, requires_grad=True)
    grad = torch.randn(N, L, E, dtype=dt, generator=gen)
    ins = [*m.parameters(), *{id(t): t for t in (q, k, v)}.values()]
    got = m(q, k, v, need_weights=False)[0]
    want = _composed(m, q, k, v)
    _bits(got, want, "output")
    assert got.stride() == want.stride()
    for i, (a, b) in enumerate(
        zip(torch.autograd.grad(got, ins, grad), torch.autograd.grad(want, ins, grad), strict=True)
    ):
        _bits(a, b, f"gradient {i}")
    with torch.no_grad():
        _bits(m(q, k, v, need_weights=False)[0], want, "no-grad output")


def _below_attention(out):
    """The names of the nodes feeding the attention node under out's output projection."""
    node = out.grad_fn
    while node.name() != "ScaledDotProductFlashAttentionForCpuBackward0":
        node = next(
            f for f, _ in node.next_functions if f is not None and "Accumulate" not in f.name()
        )
    return [f.name() for f, _ in node.next_functions]


@pytest.mark.parametrize(
    "shape, split",
    [((2, 5, 16, 4), True), ((1, 5, 16, 4), False), ((2, 5, 16, 1), False), ((2, 1, 16, 4), False)],
)
def test_heads_split_taken_only_where_the_strides_agree(shape, split):
    N, L, E, H = shape
    torch.manual_seed(0)
    m = nn.MultiheadAttention(E, H, batch_first=True)
    x = torch.randn(N, L, E, requires_grad=True)
    names = _below_attention(m(x, x, x, need_weights=False)[0])
    if split:
        assert names == ["PermuteBackward0"] * 3
    else:  # the composed route's 4-D reshape (a view node of either name)
        assert set(names) <= {"ReshapeAliasBackward0", "ViewBackward0"}, names


def test_encoder_layer_double_backward_and_weights_path():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=torch.float64)
    x = torch.randn(2, 3, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: layer(t), (x,))
    assert torch.autograd.gradgradcheck(lambda t: layer(t), (x,))
    # the weights path keeps the composed split (its scores need (N * heads, L, d))
    m = layer.self_attn
    out, w = m(x, x, x)
    assert w.shape == (2, 3, 3)
    np.testing.assert_allclose(
        out.detach().numpy(), m(x, x, x, need_weights=False)[0].detach().numpy(), rtol=1e-12
    )
