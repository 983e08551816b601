"""Session 35 (helper decode): torch-free regression tests of the library fixes the decoding
programs of tests/reference/test_s35_decode_reference.py found: torch.multinomial of a
strided slice of a transposed or permuted probability matrix (torch draws its exponential keys
in the memory order of empty_like(input), which keeps the input's axis order), and
scaled_dot_product_attention's output layout (torch's CPU flash kernel writes it in the
query's axis order, so heads merged by transpose + view work). The token ids and strides are
torch 2.13's, written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

MAKERS = {
    "transposed_rows": lambda w, g: w.t()[:4],
    "transposed_step": lambda w, g: w.t()[::2],
    "permuted": lambda w, g: mt.rand(3, 4, 5, generator=g, dtype=mt.float64).permute(1, 2, 0)[:, 1],
    "transposed": lambda w, g: w.t()[:, :3],
    "expanded": lambda w, g: w[:1].expand(5, 11),
}

# (strides, two samples without replacement, then one sample), as torch 2.13 draws them
WANT = {
    "transposed_rows": ((1, 11), [[0, 2], [0, 3], [3, 1], [0, 1]], [[0], [0], [3], [3]]),
    "transposed_step": (
        (2, 11),
        [[0, 3], [1, 0], [2, 1], [0, 3], [2, 1], [2, 1]],
        [[1], [1], [1], [2], [2], [1]],
    ),
    "permuted": ((5, 20), [[0, 2], [1, 2], [0, 1], [2, 1]], [[2], [0], [1], [0]]),
    "transposed": (
        (1, 11),
        [[0, 1], [0, 1], [2, 1], [1, 0], [1, 2], [1, 2], [1, 2], [1, 0], [2, 0], [2, 1], [1, 2]],
        [[0], [2], [0], [0], [0], [1], [0], [1], [1], [1], [0]],
    ),
    "expanded": ((0, 1), [[3, 8], [3, 6], [8, 2], [0, 3], [5, 1]], [[1], [5], [3], [3], [1]]),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_multinomial_of_a_strided_input_draws_in_its_memory_order(name):
    g = mt.Generator().manual_seed(0)
    w = mt.rand(4, 11, generator=g, dtype=mt.float64)
    p = MAKERS[name](w, g)
    strides, two, one = WANT[name]
    assert p.stride() == strides
    np.testing.assert_array_equal(mt.multinomial(p, 2, generator=g).numpy(), two, err_msg=name)
    np.testing.assert_array_equal(mt.multinomial(p, 1, generator=g).numpy(), one, err_msg=name)


def test_multinomial_of_a_strided_input_equals_its_column_major_copy():
    # the draws depend on the memory order only: a column-major copy of the same values (which
    # torch's empty_like also lays out column-major) draws the same ids
    w = mt.rand(4, 11, generator=mt.Generator().manual_seed(1), dtype=mt.float64)
    strided = w.t()[::2]
    dense = strided.t().contiguous().t()
    assert dense.stride() == (1, 6)
    a = mt.multinomial(strided, 3, generator=mt.Generator().manual_seed(2))
    b = mt.multinomial(dense, 3, generator=mt.Generator().manual_seed(2))
    c = mt.multinomial(strided.contiguous(), 3, generator=mt.Generator().manual_seed(2))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


def _heads(x, nh):
    b, t, c = x.shape
    return x.view(b, t, nh, c // nh).transpose(1, 2)


def test_sdpa_output_follows_the_query_layout_so_heads_merge_by_view():
    F = mt.nn.functional
    g = mt.Generator().manual_seed(3)
    x = mt.randn(2, 5, 24, generator=g, dtype=mt.float64)
    q, k, v = (_heads(t, 2) for t in x.split(8, dim=2))
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert y.stride() == (40, 4, 8, 1)  # torch 2.13: (B, T, H, D) memory, as the query's
    merged = y.transpose(1, 2).view(2, 5, 8)  # raised before: view of a row-major output
    want = F.scaled_dot_product_attention(q.contiguous(), k, v, is_causal=True)
    assert want.stride() == (40, 20, 4, 1)  # a contiguous query: row-major, as torch
    np.testing.assert_allclose(merged.numpy(), want.transpose(1, 2).reshape(2, 5, 8).numpy(),
                               rtol=1e-12, atol=1e-12)  # fmt: skip
    # a query sliced from a wider projection: its axis order, made dense (torch's empty_like)
    wide = mt.randn(2, 5, 2, 8, generator=g, dtype=mt.float64)[..., :4].transpose(1, 2)
    assert F.scaled_dot_product_attention(wide, k, v).stride() == (40, 4, 8, 1)


def test_sdpa_math_path_output_stays_row_major():
    F = mt.nn.functional
    g = mt.Generator().manual_seed(4)
    q = _heads(mt.randn(2, 5, 8, generator=g, dtype=mt.float64), 2)
    # dropout (the math path) and a 3-d query: row-major outputs, as torch's
    mt.manual_seed(0)
    assert F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).stride() == (40, 20, 4, 1)
    assert F.scaled_dot_product_attention(q[0], q[0], q[0]).stride() == (20, 4, 1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=0.5).transpose(1, 2).view(2, 5, 8)


def test_sdpa_layout_keeps_gradients():
    F = mt.nn.functional
    g = mt.Generator().manual_seed(5)
    w = mt.randn(8, 24, generator=g, dtype=mt.float64, requires_grad=True)
    x = mt.randn(2, 4, 8, generator=g, dtype=mt.float64)

    def f(w):
        q, k, v = (_heads(t, 2) for t in (x @ w).split(8, dim=2))
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).view(2, 4, 8)

    assert type(f(w).grad_fn).__name__ == "ViewBackward0"
    assert mt.autograd.gradcheck(f, (w,))
    assert mt.autograd.gradgradcheck(f, (w,))
