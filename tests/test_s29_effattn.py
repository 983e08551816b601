"""Session 29 (helper effattn): torch-free regression tests of the library fixes the efficient-
attention programs (tests/reference/test_s29_effattn_reference.py) found. The expected values and
messages are torch 2.13's, written as literals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional


def _sdpa_error(*shapes, **kw):
    q, k, v = (mt.ones(*s) for s in shapes)
    with pytest.raises(RuntimeError) as info:
        F.scaled_dot_product_attention(q, k, v, **kw)
    return str(info.value)


# --- scaled_dot_product_attention: mismatched sizes are the matmuls' errors, as torch's ---


@pytest.mark.parametrize(
    "shapes, kw, want",
    [
        (((1, 2, 4, 8), (1, 2, 4, 4), (1, 2, 4, 8)), {},
         "Expected size for first two dimensions of batch2 tensor to be: [2, 8] but got: [2, 4]."),
        (((4, 8), (4, 4), (4, 8)), {}, "mat1 and mat2 shapes cannot be multiplied (4x8 and 4x4)"),
        (((1, 2, 4, 8), (1, 2, 4, 4), (1, 2, 4, 8)), {"is_causal": True},
         "Expected size for first two dimensions of batch2 tensor to be: [2, 8] but got: [2, 4]."),
        (((2, 1, 4, 8), (1, 2, 4, 4), (1, 2, 4, 8)), {},
         "Expected size for first two dimensions of batch2 tensor to be: [4, 8] but got: [4, 4]."),
        (((1, 4, 4, 8), (1, 2, 4, 4), (1, 2, 4, 8)), {},
         "The size of tensor a (4) must match the size of tensor b (2) at non-singleton "
         "dimension 1"),
        (((4, 8), (4, 8), (3, 8)), {}, "mat1 and mat2 shapes cannot be multiplied (4x4 and 3x8)"),
        (((2, 4, 8), (2, 5, 8), (2, 4, 8)), {"attn_mask": "ones(4, 5)"},
         "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [2, 4]."),
        (((1, 2, 4, 8), (1, 2, 5, 8), (1, 2, 3, 8)), {"dropout_p": 0.2},
         "Expected size for first two dimensions of batch2 tensor to be: [2, 5] but got: [2, 3]."),
    ],
)  # fmt: skip
def test_sdpa_size_mismatches_raise_the_matmul_errors(shapes, kw, want):
    if kw.get("attn_mask") == "ones(4, 5)":
        kw = {"attn_mask": mt.ones(4, 5)}
    assert _sdpa_error(*shapes, **kw) == want


def test_sdpa_gqa_head_count_message_is_torchs_cut_short_one():
    # torch 2.13's message ends after "in " (its text is cut there)
    msg = _sdpa_error((1, 4, 4, 8), (1, 3, 4, 8), (1, 3, 4, 8), enable_gqa=True)
    assert msg == "Number of heads in key and value must divide the number of heads in "


# --- scaled_dot_product_attention of empty inputs ---


@pytest.mark.parametrize(
    "shapes, want",
    [
        (((0, 2, 4, 8), (0, 2, 4, 8), (0, 2, 4, 5)), (0, 2, 4, 5)),
        (((1, 2, 4, 8), (1, 2, 0, 3), (1, 2, 0, 5)), (1, 2, 4, 5)),
        (((1, 2, 0, 8), (1, 2, 3, 3), (1, 2, 3, 5)), (1, 2, 0, 5)),
        (((1, 2, 4, 8), (1, 2, 3, 3), (1, 2, 0, 5)), (1, 2, 4, 5)),
        (((2, 0, 4, 8), (2, 0, 3, 2), (2, 0, 3, 5)), (2, 0, 4, 5)),
        (((3, 1, 4, 8), (2, 0, 3), (5, 2, 0, 5)), (3, 1, 4, 5)),
        (((4, 8), (0, 3), (0, 5)), (4, 5)),
    ],
)
def test_sdpa_empty_inputs_give_zeros_of_query_rows_by_value_width(shapes, want):
    q, k, v = (mt.randn(*s, requires_grad=True) for s in shapes)
    out = F.scaled_dot_product_attention(q, k, v)
    assert tuple(out.shape) == want
    assert type(out.grad_fn).__name__ == "AddBackward0"
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions if f] == ["MulBackward1"]
    np.testing.assert_array_equal(out.detach().numpy(), np.zeros(want, dtype=np.float32))
    grads = mt.autograd.grad(out.sum(), (q, k, v))
    for t, g in zip((q, k, v), grads, strict=True):
        np.testing.assert_array_equal(g.numpy(), np.zeros(t.shape, dtype=np.float32))


def test_sdpa_empty_kv_cache_ignores_mask_and_flags_but_not_dtypes():
    q = mt.arange(8.0).reshape(1, 1, 1, 8).requires_grad_()
    k = mt.zeros(1, 1, 0, 8, requires_grad=True)
    v = mt.zeros(1, 1, 0, 3, requires_grad=True)
    mask = mt.ones(3, dtype=mt.bool)  # would be refused for non-empty inputs
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True, dropout_p=3.0)
    assert out.tolist() == [[[[0.0, 0.0, 0.0]]]]
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mt.ones(3, dtype=mt.int64))
    with pytest.raises(RuntimeError, match="Expected query, key, and value to have the same"):
        F.scaled_dot_product_attention(q.double(), k, v)


def test_sdpa_empty_inputs_spread_a_nan_and_keep_integer_dtypes():
    q = mt.ones(4, 8)
    q[0, 0] = math.inf
    out = F.scaled_dot_product_attention(q, mt.ones(0, 8), mt.ones(0, 5))
    assert out.grad_fn is None
    assert np.isnan(out.numpy()).all()
    out = F.scaled_dot_product_attention(
        mt.ones(2, 4, 8, dtype=mt.int64), mt.ones(2, 0, 3, dtype=mt.int64), mt.ones(2, 0, 5).long()
    )
    assert out.dtype is mt.int64 and tuple(out.shape) == (2, 4, 5)


# --- a saved operand of a batched matmul or einsum changed in place ---


def _modified_message(fn, shape_a, shape_b, modify_second=False):
    a = mt.randn(*shape_a, requires_grad=True).softmax(-1)
    b = mt.randn(*shape_b, requires_grad=True) * 1
    out = fn(a, b)
    (b if modify_second else a).mul_(2)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    return str(info.value).split("which is ")[1].split(",")[0]


@pytest.mark.parametrize(
    "fn, shape_a, shape_b, second, want",
    [
        (lambda a, b: a @ b, (2, 3, 4), (2, 4, 2), False, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (2, 3, 4), (2, 4, 2), True, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (2, 2, 3, 4), (2, 2, 4, 2), False, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (1, 3, 4), (2, 4, 2), False, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (2, 3, 4), (1, 4, 2), True, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (2, 3, 4), (4,), False, "output 0 of AsStrided"),
        (lambda a, b: a @ b, (2, 3, 4), (4, 2), True, "output 0 of Mul"),
        (lambda a, b: a @ b, (3, 4), (4, 2), False, "output 0 of Mul"),
        (lambda a, b: mt.bmm(a, b), (2, 3, 4), (2, 4, 2), False, "output 0 of Mul"),
        (lambda a, b: a * b, (3, 4), (3, 4), False, "output 0 of Mul"),
        (lambda a, b: mt.einsum("bij,bjk->bik", a, b), (2, 3, 4), (2, 4, 2), False,
         "output 0 of AsStrided"),
        (lambda a, b: mt.einsum("ij,jk->ik", a, b), (3, 4), (4, 2), True, "output 0 of AsStrided"),
        (lambda a, b: mt.einsum("ij,ij->i", a, b), (3, 4), (3, 4), True, "output 0 of AsStrided"),
    ],
)  # fmt: skip
def test_saved_operand_modified_names_torchs_saved_view(fn, shape_a, shape_b, second, want):
    assert _modified_message(fn, shape_a, shape_b, second) == want


# --- a 3-d operand with one batch that requires grad folds into one mm (torch 2.13) ---


def _chain(fn):
    names = [type(f).__name__ for f, _ in fn.next_functions if f is not None]
    return type(fn).__name__, [n for n in names if n != "AccumulateGrad"]


def test_single_batch_query_that_requires_grad_folds_into_mm():
    # a learned (1, L, D) query against a batch of keys: torch squeezes it and folds
    query = mt.randn(1, 3, 4, requires_grad=True)
    keys = mt.randn(2, 4, 5, requires_grad=True) * 1
    out = query @ keys
    assert tuple(out.shape) == (2, 3, 5) and out.stride() == (15, 5, 1)
    assert _chain(out.grad_fn) == ("CloneBackward0", ["TransposeBackward0"])
    np.testing.assert_allclose(
        out.detach().numpy(), np.matmul(query.detach().numpy(), keys.detach().numpy()), rtol=1e-6
    )
    # the keys are saved as a copy (their transposed fold), so changing them is harmless
    keys.mul_(2)
    out.sum().backward()
    assert tuple(query.grad.shape) == (1, 3, 4)


def test_single_batch_weight_that_requires_grad_folds_into_mm():
    x = mt.randn(2, 3, 4)
    w = mt.randn(1, 4, 5, requires_grad=True)
    out = x @ w
    assert _chain(out.grad_fn) == ("UnsafeViewBackward0", ["MmBackward0"])
    assert _chain(out.grad_fn.next_functions[0][0]) == ("MmBackward0", ["SqueezeBackward1"])
    # a weight that needs no gradient stays a broadcast batched product
    assert (x.requires_grad_() @ w.detach()).grad_fn.next_functions[0][0].name() != "MmBackward0"
