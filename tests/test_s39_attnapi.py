"""Session 39 (helper attnapi): torch-free regression tests of the library fixes the attention
programs of tests/reference/test_s39_attnapi_reference.py found: scaled_dot_product_attention's
keyword-only scale / enable_gqa and torch's parser messages, its device check and the order of
its input checks; sdpa_kernel's argument types and set_priority; the flash-only "No available
kernel" error with torch's warnings saying why; CausalBias's size errors; flex_attention's
message for a block mask made for longer sequences; and the flash node's grad_fn._saved_*
attributes. torch's messages are written here as literals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.nn.attention import SDPBackend, sdpa_kernel
from minitorch.nn.attention import bias as attn_bias
from minitorch.nn.attention import flex_attention as flex

F = mt.nn.functional
SDPA = F.scaled_dot_product_attention


def _qkv(seed=0, L=4, S=6, E=5, Ev=5, dtype=mt.float32):
    g = mt.Generator().manual_seed(seed)
    return (
        mt.randn(2, 3, L, E, generator=g, dtype=dtype),
        mt.randn(2, 3, S, E, generator=g, dtype=dtype),
        mt.randn(2, 3, S, Ev, generator=g, dtype=dtype),
    )


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_sdpa_scale_and_enable_gqa_are_keyword_only():
    q, k, v = _qkv()
    msg = _message(TypeError, lambda: SDPA(q, k, v, None, 0.0, False, 0.5))
    assert (
        msg
        == "scaled_dot_product_attention() takes from 3 to 6 positional arguments but 7 were given"
    )
    msg = _message(TypeError, lambda: SDPA(q, k, v, None, 0.0, False, None, False, 1))
    assert (
        msg
        == "scaled_dot_product_attention() takes from 3 to 6 positional arguments but 9 were given"
    )
    # as keywords they work
    np.testing.assert_allclose(
        SDPA(q, k, v, scale=0.5).numpy(),
        SDPA(q * 0.5 * math.sqrt(5), k, v).numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    "call, missing",
    [
        (lambda q: SDPA(q, q), '"value"'),
        (lambda q: SDPA(q), '"key", "value"'),
        (lambda q: SDPA(), '"query", "key", "value"'),
        (lambda q: SDPA(query=q, key=q), '"value"'),
    ],
)
def test_sdpa_missing_arguments_in_torchs_words(call, missing):
    q = _qkv()[0]
    n = missing.count('"') // 2
    s = "s" if n == 1 else ""  # torch writes "arguments" for one, "argument" for more
    want = f"scaled_dot_product_attention() missing {n} required positional argument{s}: {missing}"
    assert _message(TypeError, lambda: call(q)) == want


def test_sdpa_device_check_and_check_order():
    q, k, v = _qkv()
    want = (
        "Expected query, key, and value to have the same device type, but got query.device: "
        "{} key.device: {} and value.device: {} instead."
    )
    msg = _message(RuntimeError, lambda: SDPA(q.to("meta"), k, v))
    assert msg == want.format("meta", "cpu", "cpu")
    msg = _message(RuntimeError, lambda: SDPA(q, k.to("meta"), v.to("meta")))
    assert msg == want.format("cpu", "meta", "meta")
    # the device is checked before the dims, the dtype before the device
    msg = _message(RuntimeError, lambda: SDPA(q[0, 0, 0].to("meta"), k, v))
    assert msg == want.format("meta", "cpu", "cpu")
    msg = _message(RuntimeError, lambda: SDPA(q[0, 0, 0].double(), k.to("meta"), v))
    assert msg.startswith("Expected query, key, and value to have the same dtype, but got ")


def _switches():
    cuda = mt.backends.cuda
    return [cuda.flash_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.math_sdp_enabled()]


@pytest.mark.parametrize("bad", [(SDPBackend.MATH,), {SDPBackend.MATH}, "math", 0])
def test_sdpa_kernel_takes_a_backend_or_a_list_only(bad):
    def enter():
        with sdpa_kernel(bad):
            pass

    msg = _message(AssertionError, enter)
    assert msg == (
        "Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
        f"{type(bad).__name__}"
    )
    assert _switches() == [True, True, True]


@pytest.mark.parametrize("listed", [["math"], [0, 1], []])
def test_sdpa_kernel_list_elements_are_not_checked(listed):
    # torch compares each backend to the list's elements: names and numbers enable nothing
    with sdpa_kernel(listed):
        assert _switches() == [False, False, False]
    assert _switches() == [True, True, True]


def test_sdpa_kernel_set_priority_reads_the_backends_as_ints():
    def enter():
        with sdpa_kernel(["math"], set_priority=True):
            pass

    assert _message(ValueError, enter) == "invalid literal for int() with base 10: 'math'"
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
        assert _switches() == [True, False, True]
    assert _switches() == [True, True, True]


def _flash_only(fn):
    """fn's error and warnings under sdpa_kernel(FLASH_ATTENTION)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            msg = _message(RuntimeError, fn)
    return msg, [str(w.message) for w in caught]


HEADER = "Flash attention kernel not used because:"


@pytest.mark.parametrize(
    "call, reason",
    [
        (lambda q, k, v: SDPA(q, k, v, dropout_p=0.5),
         "Both fused kernels do not support non-zero dropout."),
        (lambda q, k, v: SDPA(q[0], k, v),
         "All fused kernels requires query, key and value to be 4 dimensional, but got Query "
         "dim: 3, Key dim: 4, Value dim: 4 instead."),
        (lambda q, k, v: SDPA(q, k[:1], v[:1]),
         "For dense inputs, both fused kernels require query, key and value to have the same "
         "batch_size. Query.sizes(): [2, 3, 4, 5], Key.sizes(): [1, 3, 6, 5], Value.sizes(): "
         "[1, 3, 6, 5] instead. To broadcast dense inputs, try using unsqueeze and expand_to "
         "before passing them into the kernel."),
        (lambda q, k, v: SDPA(q, k[:, :1], v[:, :1]),
         "For dense input, both fused kernels require query, key and value to have the same "
         "num_heads. Query.sizes(): [2, 3, 4, 5], Key sizes(): [2, 1, 6, 5], Value sizes(): "
         "[2, 1, 6, 5] instead. To broadcast dense inputs, try using unsqueeze and expand_to "
         "before passing them into the kernel."),
        (lambda q, k, v: SDPA(q[:, :2], k, v, enable_gqa=True),
         "The number of heads in key/value must divide number of heads in query.Got input Key "
         "sizes(): 3, Value sizes(): 3, Query sizes(): 2 instead."),
        (lambda q, k, v: SDPA(q, k, v[:, :1], enable_gqa=True),
         "Both fused kernels require key and value to have the same num_heads and batch_size "
         "but got: Key sizes: [2, 3, 6, 5], Value sizes: [2, 1, 6, 5], Query sizes: "
         "[2, 3, 4, 5] instead."),
        (lambda q, k, v: SDPA(q, k, v, mt.ones(3, 4, 6, dtype=mt.bool)),
         "Please use the following attn mask shapes: 2d - ({Q_seq_len, 1}  x {KV_seq_len, 1}); "
         "4d - ({Batch, 1} x {Num_heads, 1} x {Q_seq_len, 1}  x {KV_seq_len, 1})"),
        (lambda q, k, v: SDPA(q, k, mt.zeros(2, 3, 6, 7)),
         "Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): 5, "
         "Key.size(-1): 5, Value.size(-1): 7 instead."),
        (lambda q, k, v: SDPA(q.mT.contiguous().mT.long(), k.long(), v.long()),
         "All fused kernels require the last dimension of the input to have stride 1. Got "
         "Query.stride(-1): 4, Key.stride(-1): 1, Value.stride(-1): 1"),
        (lambda q, k, v: SDPA(q.long(), k.long(), v.long()),
         "Expected query, key and value to all be of dtype: {Float, Double, BFloat16, Half}. "
         "Got Query dtype: long int, Key dtype: long int, and Value dtype: long int instead."),
        (lambda q, k, v: SDPA(q, k, v, mt.zeros(4, 6, requires_grad=True)), None),
    ],
)  # fmt: skip
def test_flash_only_refusals_warn_torchs_reason(call, reason):
    q, k, v = _qkv()
    msg, warned = _flash_only(lambda: call(q, k, v))
    assert msg == "No available kernel.  Aborting execution."
    assert warned == [HEADER] if reason is None else [HEADER, reason]


def test_flash_only_runs_what_the_flash_kernel_takes_without_warnings():
    q, k, v = _qkv()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            out = SDPA(q, k, v, mt.zeros(4, 6), is_causal=True)
    assert out.shape == (2, 3, 4, 5) and not caught


@pytest.mark.parametrize(
    "lens, exc, msg",
    [
        (("a", 3), TypeError, "new(): argument 'size' failed to unpack the object at pos 2 with "
         'error "type must be tuple of ints,but got str"'),
        ((3, 4.0), TypeError, "new(): argument 'size' failed to unpack the object at pos 3 with "
         'error "type must be tuple of ints,but got float"'),
        ((None, 3), TypeError, "new(): argument 'size' failed to unpack the object at pos 2 "
         'with error "type must be tuple of ints,but got NoneType"'),
        ((-1, 3), RuntimeError, "Trying to create tensor with negative dimension -1: [1, -1, 3]"),
    ],
)  # fmt: skip
def test_causal_bias_length_errors(lens, exc, msg):
    variant = attn_bias.CausalVariant.UPPER_LEFT
    assert _message(exc, lambda: attn_bias.CausalBias(variant, *lens)) == msg


def test_flex_block_mask_for_longer_sequences_message():
    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    bm = flex.create_block_mask(causal, None, None, 8, 8, device="cpu")
    g = mt.Generator().manual_seed(3)
    q = mt.randn(1, 1, 4, 4, generator=g)
    k = mt.randn(1, 1, 8, 4, generator=g)
    msg = _message(ValueError, lambda: flex.flex_attention(q, k, k, block_mask=bm))
    assert msg == (
        "block_mask was created for block_mask.shape=(1, 1, 8, 8) but got q_len=4 and kv_len=8. "
        "As the block mask was created for a larger length than you're using it for, you can "
        "either 1. create a new block mask with the correct length, or 2. 'adjust' the existing "
        "block mask to the correct length by calling block_mask._adjust(q_len, kv_len). This "
        "essentially 'crops' the block mask to the upper left corner, which does not work for "
        "all mask_mods!"
    )


def _np_lse(q, k, factor, bias=None):
    s = np.einsum("bhle,bhse->bhls", q, k) * factor
    if bias is not None:
        s = s + bias
    top = s.max(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        lse = (np.log(np.exp(s - np.where(np.isfinite(top), top, 0)).sum(-1, keepdims=True))
               + top)[..., 0]  # fmt: skip
    return np.where(np.isneginf(lse) | np.isnan(lse), 0.0, lse)


def test_flash_node_saved_attributes():
    q, k, v = _qkv(5, dtype=mt.float64)
    q.requires_grad_(True)
    keep = mt.tensor([[True] * 6, [False] * 6, [True, False] * 3, [True] * 6])
    out = SDPA(q, k, v, keep, scale=0.3)
    node = out.grad_fn
    assert type(node).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    assert names == [
        "_saved_attn_mask", "_saved_dropout_p", "_saved_is_causal", "_saved_key",
        "_saved_logsumexp", "_saved_output", "_saved_query", "_saved_scale", "_saved_value",
    ]  # fmt: skip
    assert node._saved_query is q and node._saved_key is k and node._saved_value is v
    assert node._saved_output.equal(out)
    assert (node._saved_dropout_p, node._saved_is_causal, node._saved_scale) == (0.0, False, 0.3)
    bias = np.where(keep.numpy(), 0.0, -np.inf)
    np.testing.assert_array_equal(node._saved_attn_mask.numpy(), bias)
    assert node._saved_attn_mask.dtype is mt.float64
    want = _np_lse(q.detach().numpy(), k.numpy(), 0.3, bias)
    np.testing.assert_allclose(node._saved_logsumexp.numpy(), want, rtol=1e-12, atol=1e-12)
    assert (node._saved_logsumexp.numpy()[:, :, 1] == 0).all()  # the fully masked row
    # causal, default scale, GQA
    q4 = mt.randn(2, 6, 4, 5, generator=mt.Generator().manual_seed(6), dtype=mt.float64)
    out = SDPA(q4.requires_grad_(True), k, v, is_causal=True, enable_gqa=True)
    node = out.grad_fn
    assert (node._saved_attn_mask, node._saved_is_causal, node._saved_scale) == (None, True, None)
    causal = np.where(np.tril(np.ones((4, 6), bool)), 0.0, -np.inf)
    want = _np_lse(q4.detach().numpy(), np.repeat(k.numpy(), 2, 1), 1 / math.sqrt(5), causal)
    np.testing.assert_allclose(node._saved_logsumexp.numpy(), want, rtol=1e-12, atol=1e-12)
    out.sum().backward()
    msg = _message(RuntimeError, lambda: node._saved_query)
    assert msg.startswith("Trying to backward through the graph a second time")
    assert node._saved_is_causal is True
    # half inputs: a float32 logsumexp, the bool mask as a half bias
    qh = q.detach().half().requires_grad_(True)
    node = SDPA(qh, k.half(), v.half(), keep).grad_fn
    assert node._saved_logsumexp.dtype is mt.float32
    assert node._saved_attn_mask.dtype is mt.float16


def test_flex_mods_need_four_or_five_positional_parameters():
    def two(b, h):
        return b

    def with_default(b, h, q_idx, kv_idx=0):
        return b

    assert _message(
        AssertionError, lambda: flex.create_block_mask(two, 1, 1, 4, 4, device="cpu")
    ) == ("Expected 4 or 5 positional args, got 2")
    assert _message(AssertionError, lambda: flex.create_mask(with_default, 1, 1, 4, 4, "cpu")) == (
        "Expected 4 or 5 positional args, got 3"
    )

    class Bias:
        def __call__(self, score, b, h, q_idx, kv_idx):
            return score + 1.0

        def __repr__(self):
            return "Bias()"

    msg = _message(AssertionError, lambda: flex.create_block_mask(Bias(), 1, 1, 4, 4, "cpu"))
    assert msg == "create-block_mask requires a mask_mod function! Got Bias()"
    # a callable object is read by its signature
    q = mt.randn(1, 1, 3, 2, generator=mt.Generator().manual_seed(7))
    np.testing.assert_allclose(
        flex.flex_attention(q, q, q, score_mod=Bias()).numpy(),
        flex.flex_attention(q, q, q).numpy(),
        rtol=1e-6,
        atol=1e-6,
    )
