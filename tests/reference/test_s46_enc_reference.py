"""nn.MultiheadAttention's SDPA path (need_weights=False) and nn.TransformerEncoderLayer against
torch where the heads are split by one permute (NOTE [ MHA heads split by one permute ]) and
where the composed route runs: outputs, input and parameter gradients, the output's grad_fn."""

from __future__ import annotations

import pytest

from tests.reference._programs import assert_program_matches, seeded_randn

torch = pytest.importorskip("torch")


def _seed_params(lib, dt, module):
    """Every parameter drawn from its own seeded generator (the same in both libraries)."""
    with lib.no_grad():
        for i, (_, p) in enumerate(sorted(module.named_parameters())):
            p.copy_(seeded_randn(lib, dt, 100 + i, *p.shape) * 0.3)


def _record(lib, rec, name, module, out, inputs):
    rec(f"{name}.out", out)
    rec(f"{name}.grad_fn", type(out.grad_fn).__name__)
    grad = seeded_randn(lib, out.dtype, 7, *out.shape)
    params = [p for _, p in sorted(module.named_parameters())]
    got = lib.autograd.grad(out, [*params, *inputs], grad)
    for i, g in enumerate(got):
        rec(f"{name}.grad{i}", g)


def _prog(lib, dt, rec):
    for N, L, S, E, H in [(2, 5, 5, 16, 4), (1, 5, 5, 16, 4), (3, 4, 6, 12, 2), (2, 5, 5, 8, 1)]:
        m = lib.nn.MultiheadAttention(E, H, batch_first=True, dtype=dt)
        _seed_params(lib, dt, m)
        q = seeded_randn(lib, dt, 1, N, L, E).requires_grad_()
        k = seeded_randn(lib, dt, 2, N, S, E).requires_grad_()
        v = seeded_randn(lib, dt, 3, N, S, E).requires_grad_()
        tag = f"{N}x{L}x{S}x{E}x{H}"
        if L == S:
            out = m(q, q, q, need_weights=False)[0]
            _record(lib, rec, f"self{tag}", m, out, [q])
            mask = lib.arange(S)[None].expand(N, S) >= S - 1
            out = m(q, q, q, need_weights=False, key_padding_mask=mask)[0]
            _record(lib, rec, f"kpm{tag}", m, out, [q])
        _record(lib, rec, f"cross{tag}", m, m(q, k, v, need_weights=False)[0], [q, k, v])
        _record(lib, rec, f"kv{tag}", m, m(q, k, k, need_weights=False)[0], [q, k])
    for norm_first in (False, True):
        layer = lib.nn.TransformerEncoderLayer(
            16, 4, 32, dropout=0.0, batch_first=True, norm_first=norm_first, dtype=dt
        )
        _seed_params(lib, dt, layer)
        x = seeded_randn(lib, dt, 4, 2, 6, 16).requires_grad_()
        _record(lib, rec, f"layer{norm_first}", layer, layer(x), [x])
        causal = lib.nn.Transformer.generate_square_subsequent_mask(6, dtype=dt)
        _record(lib, rec, f"causal{norm_first}", layer, layer(x, causal, is_causal=True), [x])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_sdpa_path_and_encoder_layer_match_torch(dt):
    assert_program_matches(_prog, torch, dt)
