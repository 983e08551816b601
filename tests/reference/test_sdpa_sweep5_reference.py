"""scaled_dot_product_attention vs torch: the flash/math choice (node names, mask with causal)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

CASES = [  # (query, key, value shapes, mask shape or None, mask requires grad, kwargs)
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), None, False, {}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3), False, {}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3), True, {}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3), False, {"dropout_p": 0.5}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 3), False, {}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (2, 3, 3), False, {}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 1), False, {}),
    ((2, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3), False, {}),
    ((1, 2, 3, 4), (1, 1, 3, 4), (1, 1, 3, 4), (3, 3), False, {}),
    ((1, 4, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4), (3, 3), False, {"enable_gqa": True}),
    ((1, 4, 3, 4), (1, 2, 3, 4), (1, 1, 3, 4), (3, 3), False, {"enable_gqa": True}),
    ((1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 5), (3, 3), False, {}),
    ((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), (3, 5), False, {}),
    ((2, 3, 4), (2, 3, 4), (2, 3, 4), (3, 3), False, {}),
    ((1, 1, 2, 3, 4), (1, 1, 2, 3, 4), (1, 1, 2, 3, 4), (3, 3), False, {}),
    ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4), (1, 1, 1, 5, 5), False, {}),
]


def _run(lib, qs, ks, vs, ms, mrg, kw, causal, dtype):
    rng = np.random.default_rng(0)
    q, k, v = (
        lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype), requires_grad=True)
        for s in (qs, ks, vs)
    )
    m = None if ms is None else lib.zeros(ms, requires_grad=mrg)
    try:
        out = lib.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=m, is_causal=causal, **kw
        )
    except RuntimeError as e:
        return ("raise", str(e).split(": ")[-1])
    return (tuple(out.shape), type(out.grad_fn).__name__)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_path_choice_matches_torch(case, causal, dtype):
    want = _run(torch, *case, causal, dtype)
    got = _run(minitorch, *case, causal, dtype)
    assert got == want, f"{case} causal={causal} {dtype}: torch {want}, minitorch {got}"
