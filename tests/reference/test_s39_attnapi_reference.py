"""Session 39 (helper attnapi): modern attention code as LLM and ViT users write it against
torch 2.x, run under torch and minitorch with the same seeds and compared record by record:
F.scaled_dot_product_attention with bool and float masks in every broadcast shape ([L, S],
[B, 1, L, S], [B, H, L, S], ...), is_causal with L == S, L < S and L > S (upper-left), scale,
dropout_p on torch's CPU stream, enable_gqa against repeat_interleave, fully masked rows, learned
float biases (ALiBi, relative position tables) with their gradients, float16 / bfloat16, 3-d and
5-d inputs; its argument errors (shapes, dtypes, devices, is_causal with attn_mask, parser
errors); sdpa_kernel / SDPBackend (one backend, lists, nesting, set_priority, bad arguments,
flash only with torch's "not used because" warnings); nn.attention.bias's causal_lower_right /
causal_upper_left / CausalBias as attn_mask; nn.MultiheadAttention (need_weights, per-head
weights, is_causal, key_padding_mask, kdim/vdim, unbatched); rotary embeddings by hand
(rotate_half, the interleaved stack/flatten/view_as layout, position_ids gathers); KV-cache
decoding by torch.cat and by a preallocated cache; padding masks, F.pad, tril/triu sliding
windows, masked_fill(-inf) + softmax by hand; gradcheck (both CPU paths) and gradgradcheck (the
math path) in float64; the flash node's grad_fn._saved_* attributes; eager flex_attention
(causal block masks, score_mods, and_masks / or_masks, document masks, return_lse, GQA, errors).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- scaled_dot_product_attention took scale and enable_gqa by position; torch's are keyword-only
  ("takes from 3 to 6 positional arguments but 9 were given"), and a missing query / key /
  value is torch's parser's 'missing 1 required positional arguments: "value"'.
- query, key and value on different devices raised the matmul's "Tensor on device ..."; now
  torch's "Expected query, key, and value to have the same device type, ..." and the checks run
  in torch's order (dtypes, devices, dims, then the mask's dtype).
- sdpa_kernel accepted a tuple or a set and refused a list of non-backends; torch refuses
  anything but an SDPBackend or a list ("got tuple") and does not check the list's elements (a
  name or a number enables nothing; minitorch's int-valued SDPBackend no longer matches [0]);
  set_priority=True reads each backend with int() (torch's ValueError for a name).
- Flash-only (sdpa_kernel(FLASH_ATTENTION)) calls the CPU flash kernel refuses: torch's message
  is "No available kernel.  Aborting execution." (minitorch added a prefix and a reason) after
  torch's UserWarnings "Flash attention kernel not used because:" and the reason (dropout, 4-d,
  batch, heads, GQA heads, mask shape, head dims, stride, dtype), checked in torch's order.
- The flash node ScaledDotProductFlashAttentionForCpuBackward0 had no grad_fn._saved_query /
  _key / _value / _output / _attn_mask (a bool mask as its additive bias) / _logsumexp / _dropout_p
  / _is_causal / _scale; the logsumexp (float32 for half inputs, 0 for a fully masked row) is
  recomputed when read.
- CausalBias with a length that is no int (or negative): torch's size parser errors ("new():
  argument 'size' failed to unpack the object at pos 2 ...", "Trying to create tensor with
  negative dimension -1: [1, -1, 3]") instead of a message of minitorch's own.
- flex_attention with a block mask made for longer sequences: torch's full message (with its
  block_mask._adjust hint); create_block_mask / create_mask count a mod's positional parameters
  as torch does ("Expected 4 or 5 positional args, got 2"; a score_mod given to
  create_block_mask: "create-block_mask requires a mask_mod function! Got ...").

Known and left (documented):
- torch's flash kernel has no double backward ("derivative for
  aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"); minitorch's
  sdpa is twice differentiable on every path. gradgradcheck is recorded on torch's math path
  only.
- is_causal with scale <= 0 on torch's flash kernel gives NaN (it fills -inf before scaling, so
  -inf * 0 or * negative); minitorch gives the math path's finite values. Not recorded.
- A float mask of -1e9 over a whole row: torch's flash backward loses that row's logsumexp to
  rounding (its gradient is off by up to the row length); only the forward is recorded.
- torch's flash kernel takes a value whose sequence length differs from the key's (reading past
  it); minitorch runs the math path there, whose matmul raises.
- The gradient of a query laid out as (B, T, H, D).transpose(1, 2) is row-major here; torch's
  flash backward returns it in the query's layout (the forward output's layout does match).
- sdpa_kernel keeps no priority order (torch._C._get_sdp_priority_order), and torch's own order
  mishandles SDPBackend.ERROR (it switches flash on); SDPBackend.MATH == 0 is True here (an int
  enum; torch's pybind enum compares unequal), kept for tests/nn/test_attention_package.py.
- backends.cuda lacks allow_fp16_bf16_reduction_math_sdp / fp16_bf16_reduction_math_sdp_allowed
  / is_ck_sdpa_available, and nn.attention lacks can_use_flash_attention / SDPAParams /
  the flash-implementation registry (activate_flash_attention_impl, ...): CUDA-kernel APIs.
- flex_attention's BlockMask keeps only what the eager computation reads: no kv_num_blocks /
  kv_indices tables, sparsity(), to_string(), indexing, torch's repr; backward works here on the
  CPU where torch's eager CPU path raises NotImplementedError; its warnings (no
  torch.compile, return_lse deprecated) are not given.
- float16 / bfloat16 gradients are within an ulp of torch's, not bit-equal (its flash backward
  rounds intermediates to the half type)."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "masks", "causal_shapes", "scale", "gqa", "fully_masked", "float_mask_grad", "dropout",
    "sdpa_kernel", "causal_bias", "mha", "rotary", "kv_cache", "pad_masks", "node_saved",
]  # fmt: skip
SLOW = ["flex", "gradcheck"]  # (torch's eager flex_attention and gradcheck: float64 only)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


@pytest.mark.parametrize("name", SLOW)
def test_slow_program_matches_torch(name):
    assert_program_matches(globals()["p_" + name], torch, "float64")


def test_half_matches_torch():
    """float16 / bfloat16 values and gradients within an ulp of the largest (torch's flash
    kernel's approximate exp flips a last bit here and there; its backward rounds its
    intermediates to the half type, minitorch rounds once)."""

    def tol(name, a):
        ulp = 2.0**-8 if name.startswith("bfloat16") else 2.0**-11
        return (4 if ".g" in name else 1) * ulp

    assert_program_matches(p_float16, torch, "float32", tol=tol)


CALLS = ["errors", "flash_only"]


@pytest.mark.parametrize("name", CALLS)
def test_calls_match_torch(name):
    assert_calls_match(globals()["p_" + name], torch)


def _qkv(lib, dt, seed, B, H, L, S, E, Ev=None, Hkv=None, grad=True):
    """query (B, H, L, E), key (B, Hkv, S, E), value (B, Hkv, S, Ev), leaves requiring grad."""
    Hkv = H if Hkv is None else Hkv
    q = _randn(lib, dt, seed, B, H, L, E)
    k = _randn(lib, dt, seed + 1, B, Hkv, S, E)
    v = _randn(lib, dt, seed + 2, B, Hkv, S, E if Ev is None else Ev)
    return [t.requires_grad_(grad) for t in (q, k, v)]


def _rec_grads(rec, tag, out, leaves, seed=99):
    """Backward of out against a seeded random upstream gradient; records out and each grad."""
    lib = _lib_of(out)
    w = _randn(lib, out.dtype, seed, *out.shape)
    grads = lib.autograd.grad((out * w).sum(), leaves, allow_unused=True)
    rec(tag, out)
    for i, g in enumerate(grads):
        if g is not None:
            rec(f"{tag}.g{i}", g)


def _lib_of(t):
    import sys

    return sys.modules[type(t).__module__.split(".")[0]]


# --- the programs: each takes the library, a dtype and a recorder ---


def p_masks(lib, dt, rec):
    """bool and float masks in every broadcast shape users pass."""
    F = lib.nn.functional
    B, H, L, S, E = 2, 3, 4, 5, 6
    q, k, v = _qkv(lib, dt, 1, B, H, L, S, E, Ev=7)
    keep = _randn(lib, dt, 10, B, H, L, S) > -0.5
    keep[..., 0] = True
    add = _randn(lib, dt, 11, B, H, L, S)
    shapes = {"LS": keep[0, 0], "B1LS": keep[:, :1], "BHLS": keep, "1HLS": keep[:1],
              "11LS": keep[:1, :1], "B11S": keep[:, :1, :1], "S": None}  # fmt: skip
    for name, m in shapes.items():
        if m is None:
            continue
        _rec_grads(rec, f"bool.{name}", F.scaled_dot_product_attention(q, k, v, m), (q, k, v))
        a = add[tuple(slice(0, n) for n in m.shape)] if m.ndim == 4 else add[0, 0]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=a)
        _rec_grads(rec, f"float.{name}", out, (q, k, v))
        rec(f"float.{name}.node", type(out.grad_fn).__name__)
    # a float mask made from a bool one by masked_fill, as older code builds it
    fm = lib.zeros(L, S, dtype=dt).masked_fill(~keep[0, 0], float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=fm)
    _rec_grads(rec, "masked_fill", out, (q, k, v))
    # 3-d inputs (no heads) and 5-d inputs
    out = F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=keep[0])
    _rec_grads(rec, "3d", out, (q, k, v))
    rec("3d.node", type(out.grad_fn).__name__)
    q5 = q.unsqueeze(0).expand(2, B, H, L, E)
    out = F.scaled_dot_product_attention(q5, k, v, attn_mask=keep[0, 0])
    _rec_grads(rec, "5d", out, (q, k, v))
    # a float32 mask with float64 inputs (allowed: "bool or float or the query's dtype")
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=add.float())
    _rec_grads(rec, "f32mask", out, (q, k, v))


def p_causal_shapes(lib, dt, rec):
    """is_causal with L == S, L < S and L > S (torch's upper-left alignment), 3-d and 4-d, and
    the same masks built by tril / triu / ones().tril(diagonal) by hand."""
    F = lib.nn.functional
    for L, S in ((5, 5), (3, 6), (6, 3), (1, 4)):
        q, k, v = _qkv(lib, dt, 20 + L, 2, 2, L, S, 4)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _rec_grads(rec, f"causal{L}x{S}", out, (q, k, v))
        rec(f"causal{L}x{S}.node", type(out.grad_fn).__name__)
        up = lib.ones(L, S, dtype=lib.bool).tril()
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=up)
        rec(f"upper_left{L}x{S}", (out - ref).abs().max())
        low = lib.ones(L, S, dtype=lib.bool).tril(diagonal=S - L)
        _rec_grads(rec, f"lower_right{L}x{S}", F.scaled_dot_product_attention(q, k, v, low),
                   (q, k, v))  # fmt: skip
        tri = lib.triu(lib.full((L, S), float("-inf"), dtype=dt), diagonal=1)
        _rec_grads(rec, f"triu{L}x{S}", F.scaled_dot_product_attention(q, k, v, tri), (q, k, v))
        out3 = F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True)
        _rec_grads(rec, f"causal3d{L}x{S}", out3, (q, k, v))


def p_scale(lib, dt, rec):
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 30, 1, 2, 3, 4, 8)
    for scale in (None, 0.125, 1.0, 2.5, 0.0, -0.3):
        _rec_grads(rec, f"scale{scale}", F.scaled_dot_product_attention(q, k, v, scale=scale),
                   (q, k, v))  # fmt: skip
        if scale is None or scale > 0:  # see the module docstring: torch's flash kernel
            out = F.scaled_dot_product_attention(q, k, v, scale=scale, is_causal=True)
            _rec_grads(rec, f"causal{scale}", out, (q, k, v))
    # by hand
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    ref = lib.softmax(att, dim=-1) @ v
    rec("by_hand", (ref - F.scaled_dot_product_attention(q, k, v)).abs().max())
    rec.err("scale_int", lambda: F.scaled_dot_product_attention(q, k, v, scale=2))
    rec.err("scale_str", lambda: F.scaled_dot_product_attention(q, k, v, scale="1"))
    rec.err("scale_tensor", lambda: F.scaled_dot_product_attention(q, k, v, scale=lib.tensor(1.0)))


def p_gqa(lib, dt, rec):
    """enable_gqa with fewer key/value heads, against repeat_interleave by hand, and its errors."""
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 40, 2, 6, 4, 5, 3, Hkv=2)
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    _rec_grads(rec, "gqa", out, (q, k, v))
    rec("gqa.node", type(out.grad_fn).__name__)
    kr, vr = k.repeat_interleave(3, dim=1), v.repeat_interleave(3, dim=1)
    ref = F.scaled_dot_product_attention(q, kr, vr)
    rec("gqa.vs_repeat", (out - ref).abs().max())
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True, is_causal=True)
    _rec_grads(rec, "gqa_causal", out, (q, k, v))
    m = _randn(lib, dt, 41, 2, 6, 4, 5) > 0
    m[..., 0] = True
    _rec_grads(rec, "gqa_mask", F.scaled_dot_product_attention(q, k, v, m, enable_gqa=True),
               (q, k, v))  # fmt: skip
    # multi-query: one kv head
    _rec_grads(rec, "mqa", F.scaled_dot_product_attention(q, k[:, :1], v[:, :1], enable_gqa=True),
               (q, k, v))  # fmt: skip
    # equal heads with enable_gqa is plain attention
    rec("gqa_equal", F.scaled_dot_product_attention(q, kr, vr, enable_gqa=True))
    # 3-d (heads in dim 0)
    rec("gqa3d", F.scaled_dot_product_attention(q[0], k[0], v[0], enable_gqa=True))
    rec.err("no_flag", lambda: F.scaled_dot_product_attention(q, k, v))
    rec.err(
        "not_divisible",
        lambda: F.scaled_dot_product_attention(
            q, k[:, :1].expand(2, 4, 5, 3), v[:, :1].expand(2, 4, 5, 3), enable_gqa=True
        ),
    )
    rec.err(
        "kv_heads_differ", lambda: F.scaled_dot_product_attention(q, k, v[:, :1], enable_gqa=True)
    )
    rec.err(
        "more_kv_heads", lambda: F.scaled_dot_product_attention(q[:, :2], kr, vr, enable_gqa=True)
    )
    rec.err("gqa_int", lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=1))


def p_fully_masked(lib, dt, rec):
    """A query row whose every key is masked: bool masks, -inf float masks, on both kernels."""
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 50, 1, 2, 3, 4, 5)
    keep = lib.ones(3, 4, dtype=lib.bool)
    keep[1] = False
    _rec_grads(rec, "bool", F.scaled_dot_product_attention(q, k, v, keep), (q, k, v))
    _rec_grads(rec, "bool3d", F.scaled_dot_product_attention(q[0], k[0], v[0], keep), (q, k, v))
    fm = lib.zeros(3, 4, dtype=dt).masked_fill(~keep, float("-inf"))
    _rec_grads(rec, "float", F.scaled_dot_product_attention(q, k, v, fm), (q, k, v))
    _rec_grads(rec, "float3d", F.scaled_dot_product_attention(q[0], k[0], v[0], fm), (q, k, v))
    # a large negative instead of -inf: softmax stays finite (uniform weights)
    big = lib.zeros(3, 4, dtype=dt).masked_fill(~keep, -1e9)
    # (its gradient only forward: torch's flash backward loses that row's lse to rounding)
    rec("big", F.scaled_dot_product_attention(q, k, v, big))
    # by hand: masked_fill(-inf) then softmax gives NaN rows
    s = (q @ k.transpose(-2, -1)).masked_fill(~keep, float("-inf"))
    rec("by_hand", lib.softmax(s, -1) @ v)
    # lower-right causal with L > S masks the first rows completely
    low = lib.ones(4, 2, dtype=lib.bool).tril(diagonal=-2)
    q2, k2, v2 = _qkv(lib, dt, 51, 1, 1, 4, 2, 3)
    _rec_grads(rec, "lower_right", F.scaled_dot_product_attention(q2, k2, v2, low), (q2, k2, v2))


def p_float_mask_grad(lib, dt, rec):
    """A learned float bias (ALiBi / relative position bias) requiring grad."""
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 60, 2, 3, 4, 4, 5)
    slopes = lib.tensor([2.0**-1, 2.0**-2, 2.0**-3], dtype=dt).requires_grad_(True)
    pos = lib.arange(4, dtype=dt)
    rel = (pos[None, :] - pos[:, None]).abs().neg()
    bias = slopes[:, None, None] * rel  # (H, L, S)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    _rec_grads(rec, "alibi", out, (q, k, v, slopes))
    rec("alibi.node", type(out.grad_fn).__name__)
    table = _randn(lib, dt, 61, 3, 7).requires_grad_(True)
    idx = (pos[None, :] - pos[:, None]).long() + 3
    bias = table[:, idx].unsqueeze(0)  # (1, H, L, S)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    _rec_grads(rec, "relpos", out, (q, k, v, table))
    mask = _randn(lib, dt, 62, 2, 3, 4, 4).requires_grad_(True)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3)
    _rec_grads(rec, "full", out, (q, k, v, mask))
    m2 = _randn(lib, dt, 63, 4, 4).requires_grad_(True)
    _rec_grads(rec, "bcast", F.scaled_dot_product_attention(q, k, v, attn_mask=m2), (q, k, v, m2))


def p_errors(lib, rec):
    """Mismatched shapes, dtypes, devices and flags, as users get them wrong."""
    F = lib.nn.functional
    g = _gen(lib, 70)
    q, k, v = lib.randn(2, 3, 4, 5, generator=g), lib.randn(2, 3, 6, 5, generator=g), None
    v = lib.randn(2, 3, 6, 7, generator=g)
    m = lib.ones(4, 6, dtype=lib.bool)
    env = {"F": F, "lib": lib, "q": q, "k": k, "v": v, "m": m}
    sdpa = "F.scaled_dot_product_attention"
    cases = [
        "(q, k[..., :4], v)", "(q, k, v[:, :, :5])", "(q, k[:, :2], v[:, :2])",
        "(q, k, v[:, :2])", "(q, k, v, m, is_causal=True)", "(q, k, v, m.float(), is_causal=True)",
        "(q[0], k[0], v[0], m, is_causal=True)", "(q, k, v, m[:3])", "(q, k, v, m[:, :5])",
        "(q, k, v, m.long())", "(q, k, v, m.double())", "(q, k, v, m.half())",
        "(q, k, v, m.to(lib.uint8))", "(q.double(), k, v)", "(q, k.double(), v)",
        "(q.half(), k.half(), v.half(), m.double())",
        "(q.bfloat16(), k.bfloat16(), v.bfloat16(), m.half())",
        "(q.long(), k.long(), v.long())", "(q.bool(), k.bool(), v.bool())",
        "(q[0, 0, 0], k, v)", "(q[0, 0, 0].double(), k, v)", "(q, k, v, dropout_p=1.5)",
        "(q[0], k[0], v[0], dropout_p=1.5)", "(q, k, v, dropout_p='0.1')",
        "(q, k, v, is_causal=1)", "(q, k, v, is_causal=None)", "(q, k, v, attn_mask=1.0)",
        "(q, k, v, attn_mask=[[True]])", "(q.numpy(), k, v)",
        "(q, k, v, m, 0.0, False, None, False, 1)", "(q, k, v, m, 0.0, False, 0.5)",
        "(q, k, v, foo=1)", "(q, k)", "(q)", "()", "(query=q, key=k)",
        "(q.to('meta'), k, v)", "(q, k.to('meta'), v)", "(q, k, v.to('meta'))",
        "(q[0, 0, 0].to('meta'), k, v)", "(q, k, v, m.to('meta'))",
        "(q.to('meta'), k.to('meta'), v.to('meta'), m.to('meta'), is_causal=True)",
        "(q.transpose(-2, -1), k, v)", "(q, k, v, m[None, None, None])",
        "(q, k, v, m.float().requires_grad_(), is_causal=True)", "(q, k, v, m[0])",
        "(q, k, v, m[0, 0])", "(q, k, v, m[None].expand(3, 4, 6), is_causal=True)",
    ]  # fmt: skip
    run_calls([sdpa + c for c in cases], env, rec)
    for c in ("(q, k[:1], v[:1])", "(q, k, v, m[:, :1])", "(q, k, v, m[:1])",
              "(q[0], k[0], v[0], m[0])", "(q.half(), k.half(), v.half(), m.float())",
              "(q.half(), k.half(), v.half(), m.half())", "(q, k, v, dropout_p=-0.1)",
              "(q.to('meta'), k.to('meta'), v.to('meta'))", "(q, k, v, m, is_causal=False)",
              "(q[:0], k[:0], v[:0], m, is_causal=True)"):  # fmt: skip
        out = eval(sdpa + c, env)  # noqa: S307
        rec(c + ".shape", str(tuple(out.shape)))
        rec(c + ".dtype", str(out.dtype))


def p_float16(lib, dt, rec):
    """float16 and bfloat16 inputs (dt is unused: the programs run the half dtypes), on the
    flash kernel (4-d) and the math path (3-d, a mask requiring grad)."""
    F = lib.nn.functional
    for half in (lib.float16, lib.bfloat16):
        q, k, v = _qkv(lib, lib.float32, 80, 1, 2, 4, 6, 8, grad=False)
        q, k, v = q.to(half), k.to(half), v.to(half)
        tag = str(half).split(".")[-1]
        rec(tag, F.scaled_dot_product_attention(q, k, v))
        rec(tag + ".causal", F.scaled_dot_product_attention(q, k, v, is_causal=True))
        keep = _randn(lib, lib.float32, 81, 4, 6) > -0.3
        rec(tag + ".bool", F.scaled_dot_product_attention(q, k, v, keep))
        add = _randn(lib, lib.float32, 82, 4, 6)
        rec(tag + ".f32mask", F.scaled_dot_product_attention(q, k, v, add))
        rec(tag + ".halfmask", F.scaled_dot_product_attention(q, k, v, add.to(half)))
        rec(tag + ".3d", F.scaled_dot_product_attention(q[0], k[0], v[0], keep))
        qg = q.clone().requires_grad_(True)
        out = F.scaled_dot_product_attention(qg, k, v, is_causal=True)
        out.float().pow(2).sum().backward()
        rec(tag + ".gq", qg.grad)
        rec(tag + ".node", type(out.grad_fn).__name__)


def p_dropout(lib, dt, rec):
    """dropout_p with the global seed (minitorch draws torch's CPU stream): shapes, the zero
    pattern's statistics, train/eval in a module, and its gradient."""
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 90, 2, 2, 8, 8, 4)
    lib.manual_seed(0)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    rec("shape", str(tuple(out.shape)))
    rec("node", type(out.grad_fn).__name__)
    _rec_grads(rec, "out", out, (q, k, v))
    lib.manual_seed(0)
    again = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    rec("same_seed", (again - out).abs().max())
    # dropout_p=1.0 drops everything
    rec("all", F.scaled_dot_product_attention(q, k, v, dropout_p=1.0))
    # with v = identity rows the output is the dropped attention weights themselves
    eye = lib.eye(8, dtype=dt).expand(2, 2, 8, 8)
    lib.manual_seed(1)
    w = F.scaled_dot_product_attention(q, k, eye, dropout_p=0.5)
    rec("zero_fraction", (w == 0).to(dt).mean())
    rec("row_mean", w.sum(-1).mean())
    lib.manual_seed(2)
    rec("causal", F.scaled_dot_product_attention(q, k, v, dropout_p=0.1, is_causal=True))
    lib.manual_seed(3)
    m = lib.ones(8, 8, dtype=lib.bool).tril()
    rec("mask", F.scaled_dot_product_attention(q, k, v, m, dropout_p=0.1))
    # the usual module: dropout only in training
    p = 0.2
    for training in (True, False):
        lib.manual_seed(4)
        rec(
            f"train{training}",
            F.scaled_dot_product_attention(
                q, k, v, dropout_p=p if training else 0.0, is_causal=True
            ),
        )
    g = _gen(lib, 5)
    rec("draw_after", lib.rand(3, generator=g))


def p_sdpa_kernel(lib, dt, rec):
    """sdpa_kernel as a context manager: one backend, lists, nesting, set_priority, its errors,
    and the switches it leaves."""
    att = __import__(lib.__name__ + ".nn.attention", fromlist=["sdpa_kernel"])
    SDPBackend, sdpa_kernel = att.SDPBackend, att.sdpa_kernel
    cuda = lib.backends.cuda
    F = lib.nn.functional

    def state():
        return str([getattr(cuda, f"{n}_sdp_enabled")() for n in
                    ("flash", "mem_efficient", "math", "cudnn")])  # fmt: skip

    q, k, v = _qkv(lib, dt, 100, 1, 2, 3, 3, 4)
    rec("before", state())
    rec("members", str([(n, int(b)) for n, b in SDPBackend.__members__.items()]))
    rec("repr", repr(SDPBackend.FLASH_ATTENTION) + str(SDPBackend.MATH))
    choices = {
        "math": SDPBackend.MATH, "flash": SDPBackend.FLASH_ATTENTION,
        "list": [SDPBackend.MATH, SDPBackend.FLASH_ATTENTION], "dup": [SDPBackend.MATH] * 2,
        "efficient": [SDPBackend.EFFICIENT_ATTENTION], "cudnn": SDPBackend.CUDNN_ATTENTION,
        "empty": [], "error": [SDPBackend.ERROR], "names": ["math"], "ints": [0, 1],
        "over": [SDPBackend.OVERRIDEABLE],
    }  # fmt: skip
    for name, b in choices.items():
        # (torch's priority order mishandles ERROR's -1: it switches flash on)
        for prio in (False,) if name == "error" else (False, True):
            tag = f"{name}.{prio}"
            try:
                with sdpa_kernel(b, set_priority=prio):
                    rec(tag + ".state", state())
                    out = rec.err(tag + ".run", lambda: F.scaled_dot_product_attention(q, k, v))
                    if out is not None:
                        rec(tag + ".out", out)
                        rec(tag + ".node", type(out.grad_fn).__name__)
                    rec.err(tag + ".3d", lambda: F.scaled_dot_product_attention(q[0], k[0], v[0]))
                    rec.err(
                        tag + ".causal_mask",
                        lambda: F.scaled_dot_product_attention(
                            q, k, v, lib.ones(3, 3, dtype=lib.bool), is_causal=True
                        ),
                    )
            except (AssertionError, ValueError) as e:
                rec(tag + ".enter", f"{type(e).__name__}: {e}")
            rec(tag + ".after", state())
    for bad in ((SDPBackend.MATH,), {SDPBackend.MATH}, "math", 0, None):

        def enter(bad=bad):
            with sdpa_kernel(bad):
                pass

        rec.err(f"bad.{type(bad).__name__}", enter)
    with sdpa_kernel(SDPBackend.MATH):
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
            rec("nested.inner", state())
        rec("nested.outer", state())

    # an exception inside restores the switches too
    def boom():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            raise ValueError("inside")

    rec.err("boom", boom)
    rec("after", state())
    # math only: the mask + is_causal error of the math path; flash only: the flash kernel
    with sdpa_kernel(SDPBackend.MATH):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _rec_grads(rec, "math_causal", out, (q, k, v))
        rec("math_causal.node", type(out.grad_fn).__name__)
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _rec_grads(rec, "flash_causal", out, (q, k, v))
        rec("flash_causal.node", type(out.grad_fn).__name__)
        rec.err("flash_dropout", lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))


def p_causal_bias(lib, dt, rec):
    """torch.nn.attention.bias: causal_lower_right / causal_upper_left / CausalBias as attn_mask
    (a decoding step against a KV cache), against dense masks, with gradients."""
    bias = __import__(lib.__name__ + ".nn.attention.bias", fromlist=["CausalBias"])
    F = lib.nn.functional
    for L, S in ((3, 5), (4, 4), (1, 6)):
        q, k, v = _qkv(lib, dt, 110 + L, 2, 2, L, S, 4)
        for name, fn in (("lower", bias.causal_lower_right), ("upper", bias.causal_upper_left)):
            b = fn(L, S)
            tag = f"{name}{L}x{S}"
            rec(tag + ".variant", str(int(b.variant)))
            rec(tag + ".lens", str((b.seq_len_q, b.seq_len_kv)))
            rec(tag + ".dense", b._materialize())
            rec(tag + ".repr", repr(b))
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=b)
            _rec_grads(rec, tag, out, (q, k, v))
            rec(tag + ".node", type(out.grad_fn).__name__)
            dense = F.scaled_dot_product_attention(q, k, v, attn_mask=b._materialize())
            rec(tag + ".vs_dense", (out - dense).abs().max())
            out = F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=b, scale=0.7)
            _rec_grads(rec, tag + ".3d", out, (q, k, v))
            rec.err(
                tag + ".causal",
                lambda b=b, q=q, k=k, v=v: F.scaled_dot_product_attention(
                    q, k, v, attn_mask=b, is_causal=True
                ),
            )
        qg, kg, vg = _qkv(lib, dt, 115, 1, 4, L, S, 4, Hkv=2)
        out = F.scaled_dot_product_attention(qg, kg, vg, attn_mask=bias.causal_lower_right(L, S),
                                             enable_gqa=True)  # fmt: skip
        _rec_grads(rec, f"gqa{L}x{S}", out, (qg, kg, vg))
    V = bias.CausalVariant
    rec("variants", str([(v.name, int(v)) for v in V]))
    b = bias.CausalBias(V.LOWER_RIGHT, 2, 3)
    rec("ctor", b._materialize())
    rec.warns("warn", lambda: bias.causal_lower_right(5, 3))
    for bad in ((3,), (3, 4, 5), ()):
        rec.err(f"size{len(bad)}", lambda bad=bad: bias.causal_lower_right(*bad))
    rec.err("upper1", lambda: bias.causal_upper_left(7))
    rec.err("variant_int", lambda: bias.CausalBias(1, 2, 3))
    rec.err("len_str", lambda: bias.CausalBias(V.UPPER_LEFT, "a", 3))
    rec.err("len_float", lambda: bias.CausalBias(V.UPPER_LEFT, 3, 4.0))


def p_mha(lib, dt, rec):
    """nn.MultiheadAttention: need_weights False/True, average_attn_weights, is_causal with its
    attn_mask, key_padding_mask, batch_first, kdim/vdim, and a backward through it."""
    nn = lib.nn
    lib.manual_seed(120)
    for batch_first in (True, False):
        mha = nn.MultiheadAttention(8, 2, batch_first=batch_first, dtype=dt)
        x = _randn(lib, dt, 121, 2, 5, 8)
        if not batch_first:
            x = x.transpose(0, 1)
        causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
        bool_causal = lib.ones(5, 5, dtype=lib.bool).triu(1)
        pad = lib.tensor([[False] * 5, [False, False, False, True, True]])
        tag = f"bf{batch_first}"
        out, w = mha(x, x, x)
        rec(tag + ".out", out)
        rec(tag + ".w", w)
        out, w = mha(x, x, x, need_weights=False)
        rec(tag + ".nw", out)
        rec(tag + ".nw_w", str(w))
        out, w = mha(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)
        rec(tag + ".causal", out)
        out, w = mha(x, x, x, attn_mask=bool_causal, is_causal=True)
        rec(tag + ".causal_w", w)
        out, w = mha(x, x, x, attn_mask=causal, average_attn_weights=False)
        rec(tag + ".per_head", w)
        out, w = mha(x, x, x, key_padding_mask=pad, attn_mask=bool_causal, need_weights=False)
        rec(tag + ".pad", out)
        out, w = mha(x, x, x, key_padding_mask=pad)
        rec(tag + ".pad_w", w)
        rec.err(tag + ".causal_nomask", lambda m=mha, x=x: m(x, x, x, is_causal=True))
        rec.err(
            tag + ".bad_mask", lambda m=mha, x=x: m(x, x, x, attn_mask=lib.zeros(4, 5, dtype=dt))
        )
        mha.zero_grad()
        out, _ = mha(x, x, x, attn_mask=bool_causal, need_weights=False)
        out.pow(2).sum().backward()
        rec.params(tag, mha, grads=True)
    # cross attention with other key / value sizes
    mha = nn.MultiheadAttention(8, 4, kdim=6, vdim=3, batch_first=True, dtype=dt)
    q = _randn(lib, dt, 122, 2, 3, 8)
    k = _randn(lib, dt, 123, 2, 7, 6)
    v = _randn(lib, dt, 124, 2, 7, 3)
    out, w = mha(q, k, v)
    rec("cross", out)
    rec("cross_w", w)
    mha.eval()
    with lib.no_grad():
        out, w = mha(q, k, v, need_weights=False)
    rec("cross_eval", out)
    # unbatched input
    out, w = mha(q[0], k[0], v[0])
    rec("unbatched", out)
    rec("unbatched_w", w)


def _rope(lib, dt, T, D, base=10000.0, offset=0):
    """cos and sin (T, D) of rotary embeddings, the half-split (GPT-NeoX / Llama) layout."""
    inv = 1.0 / (base ** (lib.arange(0, D, 2, dtype=dt) / D))
    t = lib.arange(offset, offset + T, dtype=dt)
    freqs = lib.outer(t, inv)
    emb = lib.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def _rotate_half(lib, x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return lib.cat((-x2, x1), dim=-1)


def _rope_interleaved(lib, x, cos, sin):
    """The GPT-J / Meta-Llama layout: pairs (x0, x1), (x2, x3), ... rotated, written with
    stack / flatten and view_as (no complex numbers)."""
    xr = x.float().reshape(*x.shape[:-1], -1, 2)
    x0, x1 = xr[..., 0], xr[..., 1]
    c, s = cos[..., ::2], sin[..., ::2]
    out = lib.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).flatten(-2)
    return out.view_as(x.float()).type_as(x)


def p_rotary(lib, dt, rec):
    """Rotary position embeddings built by hand (cos/sin, rotate_half, the interleaved layout by
    stack/flatten/view_as), applied to q and k before sdpa, with gradients."""
    F = lib.nn.functional
    B, H, T, D = 2, 2, 6, 8
    q, k, v = _qkv(lib, dt, 130, B, H, T, T, D)
    cos, sin = _rope(lib, dt, T, D)
    rec("cos", cos)
    rec("sin", sin)
    qr = q * cos + _rotate_half(lib, q) * sin
    kr = k * cos + _rotate_half(lib, k) * sin
    out = F.scaled_dot_product_attention(qr, kr, v, is_causal=True)
    _rec_grads(rec, "half_split", out, (q, k, v))
    # relative: the scores depend on positions only through their difference
    s = qr @ kr.transpose(-2, -1)
    cos2, sin2 = _rope(lib, dt, T, D, offset=3)
    s2 = (q * cos2 + _rotate_half(lib, q) * sin2) @ (k * cos2 + _rotate_half(lib, k) * sin2).mT
    rec("shift_invariance", (s - s2).abs().max())
    qi = _rope_interleaved(lib, q, cos, sin)
    ki = _rope_interleaved(lib, k, cos, sin)
    rec("interleaved.dtype_kept", str(qi.dtype))
    out = F.scaled_dot_product_attention(qi, ki, v, is_causal=True)
    _rec_grads(rec, "interleaved", out, (q, k, v))
    # unsqueeze for (B, T, H, D) layouts
    qt = q.transpose(1, 2)
    qt_r = qt * cos.unsqueeze(1) + _rotate_half(lib, qt) * sin.unsqueeze(1)
    rec("bthd", (qt_r.transpose(1, 2) - qr).abs().max())
    # a position_ids gather, as in HF's apply_rotary_pos_emb
    pos = lib.tensor([[0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7]])
    cos_t, sin_t = _rope(lib, dt, 8, D)
    c, s = cos_t[pos].unsqueeze(1), sin_t[pos].unsqueeze(1)
    rec("gathered", q * c + _rotate_half(lib, q) * s)


def p_kv_cache(lib, dt, rec):
    """Greedy decoding with a KV cache: a prompt pass with is_causal, then one token at a time,
    the cache grown by torch.cat (and by writing into a preallocated cache); both must equal
    the full causal pass, and GQA through repeat_interleave."""
    F = lib.nn.functional
    B, H, Hkv, T, D = 2, 4, 2, 7, 4
    q, k, v = _qkv(lib, dt, 140, B, H, T, T, D, Hkv=Hkv, grad=False)
    full = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    rec("full", full)
    P = 3
    out = [F.scaled_dot_product_attention(q[:, :, :P], k[:, :, :P], v[:, :, :P], is_causal=True,
                                          enable_gqa=True)]  # fmt: skip
    kc, vc = k[:, :, :P], v[:, :, :P]
    cache_k = lib.zeros(B, Hkv, T, D, dtype=dt)
    cache_v = lib.zeros(B, Hkv, T, D, dtype=dt)
    cache_k[:, :, :P], cache_v[:, :, :P] = kc, vc
    pre = [out[0]]
    for t in range(P, T):
        kc = lib.cat([kc, k[:, :, t : t + 1]], dim=2)
        vc = lib.cat([vc, v[:, :, t : t + 1]], dim=2)
        qt = q[:, :, t : t + 1]
        # one new query sees the whole cache: no mask (is_causal would keep key 0 only)
        out.append(F.scaled_dot_product_attention(qt, kc, vc, enable_gqa=True))
        rec(f"wrong_causal{t}", F.scaled_dot_product_attention(qt, kc, vc, is_causal=True,
                                                               enable_gqa=True))  # fmt: skip
        cache_k[:, :, t], cache_v[:, :, t] = k[:, :, t], v[:, :, t]
        n = t + 1
        rep_k = cache_k[:, :, :n].repeat_interleave(H // Hkv, dim=1)
        rep_v = cache_v[:, :, :n].repeat_interleave(H // Hkv, dim=1)
        pre.append(F.scaled_dot_product_attention(qt, rep_k, rep_v))
    step = lib.cat(out, dim=2)
    rec("steps", step)
    rec("steps_vs_full", (step - full).abs().max())
    rec("prealloc_vs_full", (lib.cat(pre, dim=2) - full).abs().max())
    # two new tokens at once against the cache: lower-right alignment
    m = lib.ones(2, T, dtype=lib.bool).tril(diagonal=T - 2)
    two = F.scaled_dot_product_attention(q[:, :, -2:], k, v, attn_mask=m, enable_gqa=True)
    rec("two_vs_full", (two - full[:, :, -2:]).abs().max())
    # sliding-window mask by tril / triu
    W = 3
    ones = lib.ones(T, T, dtype=lib.bool)
    window = ones.tril() & ones.triu(diagonal=-(W - 1))
    rec("window", F.scaled_dot_product_attention(q, k, v, attn_mask=window, enable_gqa=True))


def p_pad_masks(lib, dt, rec):
    """Padding masks from lengths, F.pad to grow masks to a new length, and the masked_fill(-inf)
    then softmax attention written by hand, against sdpa."""
    F = lib.nn.functional
    B, H, L, E = 3, 2, 5, 4
    q, k, v = _qkv(lib, dt, 150, B, H, L, L, E)
    lengths = lib.tensor([5, 3, 1])
    key_keep = lib.arange(L)[None, :] < lengths[:, None]  # (B, S)
    rec("key_keep", key_keep)
    mask = key_keep[:, None, None, :]  # (B, 1, 1, S)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    _rec_grads(rec, "padding", out, (q, k, v))
    both = mask & lib.ones(L, L, dtype=lib.bool).tril()
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=both)
    _rec_grads(rec, "pad_causal", out, (q, k, v))
    # by hand: masked_fill(-inf), softmax, nan_to_num for the empty rows
    s = (q @ k.transpose(-2, -1)) / math.sqrt(E)
    s = s.masked_fill(~both, float("-inf"))
    w = F.softmax(s, dim=-1)
    rec("hand_w", w)
    rec("hand", lib.nan_to_num(w) @ v)
    rec("hand_vs_sdpa", (w @ v - out).abs().max())
    # F.pad grows a (B, S) mask by a new token (value True) and a float mask by -inf columns
    grown = F.pad(key_keep, (0, 1), value=True)
    rec("grown", grown)
    fmask = lib.zeros(B, L, dtype=dt).masked_fill(~key_keep, float("-inf"))
    rec("fgrown", F.pad(fmask, (1, 0), value=float("-inf")))
    rec("fgrown0", F.pad(fmask, (0, 2)))
    k2, v2 = F.pad(k, (0, 0, 0, 1)), F.pad(v, (0, 0, 0, 1))
    out = F.scaled_dot_product_attention(q, k2, v2, attn_mask=grown[:, None, None, :])
    _rec_grads(rec, "padded_kv", out, (q, k, v))
    # float mask from a bool one by where, as HF builds its 4-d masks
    fm = lib.zeros(both.shape, dtype=dt).masked_fill(~both, lib.finfo(dt).min)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=fm)
    rec("finfo_min", out)
    rec.err("pad_bad", lambda: F.pad(key_keep, (0, 1, 2)))


def p_gradcheck(lib, dt, rec):
    """gradcheck of sdpa in float64 (q, k, v and a float mask) on both of torch's CPU paths, and
    gradgradcheck on its math path (torch's flash kernel has no double backward: see the
    module docstring); a double backward's numbers (a gradient penalty)."""
    F = lib.nn.functional
    d64 = lib.float64
    q, k, v = _qkv(lib, d64, 160, 1, 2, 3, 4, 3)
    m = _randn(lib, d64, 161, 3, 4).requires_grad_(True)
    gc, ggc = lib.autograd.gradcheck, lib.autograd.gradgradcheck
    flash = {
        "plain": lambda q, k, v: F.scaled_dot_product_attention(q, k, v),
        "causal": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "scale": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.4),
    }
    for name, fn in flash.items():
        rec(name + ".gc", str(gc(fn, (q, k, v))))
    math_path = {
        "3d": lambda q, k, v: F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True),
        "5d": lambda q, k, v: F.scaled_dot_product_attention(q[None], k[None], v[None], scale=-0.7),
    }
    for name, fn in math_path.items():
        rec(name + ".gc", str(gc(fn, (q, k, v))))
        rec(name + ".ggc", str(ggc(fn, (q, k, v))))

    def masked(q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)

    rec("mask.gc", str(gc(masked, (q, k, v, m))))
    rec("mask.ggc", str(ggc(masked, (q, k, v, m))))
    qg, kg, vg = _qkv(lib, d64, 162, 1, 4, 2, 3, 2, Hkv=2)
    gqa = lambda q, k, v: F.scaled_dot_product_attention(q[0], k[0], v[0], enable_gqa=True)  # noqa: E731
    rec("gqa.ggc", str(ggc(gqa, (qg, kg, vg))))
    # a double backward's numbers (a gradient penalty on q's gradient), on the math path
    q2, k2, v2 = _qkv(lib, dt, 163, 2, 2, 3, 3, 4)
    out = F.scaled_dot_product_attention(q2[0], k2[0], v2[0], is_causal=True)
    gq, gk = lib.autograd.grad(out.pow(2).sum(), (q2, k2), create_graph=True)
    pen = gq.pow(2).sum() + (gk * k2).sum()
    rec("penalty", pen)
    rec("penalty.g", lib.autograd.grad(pen, (q2, k2, v2)))


def p_flex(lib, dt, rec):
    """flex_attention in eager mode (torch's CPU path: forward only, inputs not requiring grad):
    a causal block_mask, score_mods (relative bias, ALiBi, tanh soft-capping), a sliding window
    by and_masks, document masking from a captured tensor, return_lse, GQA, and its errors."""
    fa = __import__(lib.__name__ + ".nn.attention.flex_attention", fromlist=["flex_attention"])
    F = lib.nn.functional
    B, H, L, E = 2, 4, 8, 4
    q, k, v = _qkv(lib, dt, 170, B, H, L, L, E, grad=False)

    def causal(b, h, qi, ki):
        return qi >= ki

    def window(b, h, qi, ki):
        return qi - ki < 3

    def rel(score, b, h, qi, ki):
        return score + (qi - ki) * 0.1

    slopes = lib.tensor([0.5, 0.25, 0.125, 0.0625], dtype=dt)

    def alibi(score, b, h, qi, ki):
        return score - slopes[h] * (qi - ki)

    def softcap(score, b, h, qi, ki):
        return 2.0 * lib.tanh(score / 2.0)

    bm = fa.create_block_mask(causal, None, None, L, L, device="cpu")
    rec("bm.shape", str(bm.shape))
    rec("bm.dense", bm.to_dense())
    out = fa.flex_attention(q, k, v, block_mask=bm)
    rec("causal", out)
    rec(
        "causal_vs_sdpa",
        (out - F.scaled_dot_product_attention(q, k, v, is_causal=True)).abs().max(),
    )
    rec("rel", fa.flex_attention(q, k, v, score_mod=rel))
    rec("alibi", fa.flex_attention(q, k, v, score_mod=alibi, block_mask=bm))
    rec("softcap", fa.flex_attention(q, k, v, score_mod=softcap, scale=0.3))
    sw = fa.create_block_mask(fa.and_masks(causal, window), 1, H, L, L, device="cpu")
    rec("window", fa.flex_attention(q, k, v, block_mask=sw))
    rec("window_mask", fa.create_mask(fa.and_masks(causal, window), 1, 1, L, L, device="cpu"))
    rec("or_mask", fa.create_mask(fa.or_masks(causal, window), None, None, L, L, device="cpu"))
    rec("noop", fa.create_mask(fa.noop_mask, 1, 1, 3, 4, device="cpu"))
    docs = lib.tensor([0, 0, 0, 1, 1, 2, 2, 2])

    def document(b, h, qi, ki):
        return (docs[qi] == docs[ki]) & (qi >= ki)

    dm = fa.create_block_mask(document, None, None, L, L, device="cpu")
    out = fa.flex_attention(q, k, v, block_mask=dm)
    dense = docs[:, None] == docs[None, :]
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=dense & lib.ones(L, L).bool().tril())
    rec("document_vs_sdpa", (out - ref).abs().max())
    out, lse = fa.flex_attention(q, k, v, score_mod=rel, block_mask=bm, return_lse=True)
    rec("lse", lse)
    s = (q @ k.mT) / math.sqrt(E)
    rec(
        "lse_by_hand",
        (
            s.masked_fill(~lib.ones(L, L).bool().tril(), float("-inf"))
            + 0.1 * (lib.arange(L)[:, None] - lib.arange(L)[None, :])
        ).logsumexp(-1),
    )
    kg, vg = k[:, :2], v[:, :2]
    out = fa.flex_attention(q, kg, vg, block_mask=bm, enable_gqa=True)
    rec("gqa", out)
    rec(
        "gqa_vs_sdpa",
        (out - F.scaled_dot_product_attention(q, kg, vg, is_causal=True, enable_gqa=True))
        .abs()
        .max(),
    )
    rec.err("gqa_off", lambda: fa.flex_attention(q, kg, vg))
    rec.err("gqa_bad", lambda: fa.flex_attention(q, k[:, :3], v[:, :3], enable_gqa=True))
    rec.err("len_big", lambda: fa.flex_attention(q[:, :, :4], k, v, block_mask=bm))
    rec.err("head_dim", lambda: fa.flex_attention(q, k[..., :3], v))
    rec.err("3d", lambda: fa.flex_attention(q[0], k[0], v[0]))
    rec.err("mod_args", lambda: fa.create_block_mask(lambda b, h: b, 1, 1, 4, 4, device="cpu"))
    rec.err("mod_args3", lambda: fa.create_mask(lambda b, h, q, k=0: b, 1, 1, 4, 4, "cpu"))

    class Bias:
        def __call__(self, score, b, h, q_idx, kv_idx):
            return score + 1.0

        def __repr__(self):
            return "Bias()"

    rec.err("score_as_mask", lambda: fa.create_block_mask(Bias(), 1, 1, 4, 4, device="cpu"))
    rec("callable_mod", fa.flex_attention(q, k, v, score_mod=Bias()))


def p_flash_only(lib, rec):
    """sdpa_kernel(FLASH_ATTENTION) on the CPU: the calls its flash kernel refuses raise "No
    available kernel" after torch's warnings saying why (checked in torch's order)."""
    att = __import__(lib.__name__ + ".nn.attention", fromlist=["sdpa_kernel"])
    F = lib.nn.functional
    g = _gen(lib, 180)
    q, k, v = (lib.randn(2, 3, n, 5, generator=g) for n in (4, 6, 6))
    w7 = lib.randn(2, 3, 6, 7, generator=g)
    q4 = lib.randn(2, 4, 4, 5, generator=g)
    env = {"F": F, "lib": lib, "q": q, "k": k, "v": v, "w7": w7, "q4": q4}
    cases = [
        "(q, k, v, dropout_p=0.5)", "(q[0], k[0], v[0])", "(q[0], k, v)",
        "(q.long(), k.long(), v.long())", "(q, k, w7)", "(q, k[:1], v[:1])",
        "(q, k[:, :1], v[:, :1])", "(q4, k[:, :2], v[:, :2], enable_gqa=True)",
        "(q.mT.contiguous().mT, k, v)", "(q, k, v, lib.ones(3, 4, 6, dtype=lib.bool))",
        "(q, k, w7, lib.ones(3, 4, 6, dtype=lib.bool))",
        "(q, k, v, lib.zeros(4, 6, requires_grad=True))",
        "(q, k, w7, lib.zeros(4, 6, requires_grad=True))", "(q, k, v, lib.zeros(2, 2, 3, 4, 6))",
        "(q, k, v, lib.zeros(4, 6), is_causal=True)", "(q.half(), k.half(), v.half())",
        "(q4, k, v, enable_gqa=True)", "(q4, k[:, :2], v[:, :1], enable_gqa=True)",
        "(q[0], k[0], v[0], dropout_p=0.5)", "(q.long().mT.contiguous().mT, k.long(), v.long())",
        "(q, k, v, lib.zeros(4, 6, requires_grad=True), dropout_p=0.2)", "(q, k[:1], w7[:1])",
        "(q.long(), k.long(), w7.long())", "(q[:0], k[:0], v[:0])",
        "(q, k, v, lib.ones(6, dtype=lib.bool))",
    ]  # fmt: skip
    B = att.SDPBackend
    flash_cuda = [B.FLASH_ATTENTION, B.EFFICIENT_ATTENTION, B.CUDNN_ATTENTION]
    for backends in ([B.FLASH_ATTENTION], flash_cuda):
        with att.sdpa_kernel(backends):
            for c in cases:

                def call(c=c):
                    try:
                        out = eval("F.scaled_dot_product_attention" + c, env)  # noqa: S307
                        return "shape " + str(tuple(out.shape))
                    except (RuntimeError, IndexError) as e:
                        return f"{type(e).__name__}: {e}"

                result = rec.warns(f"{len(backends)}{c}.warns", call)
                rec(f"{len(backends)}{c}", result)


def p_node_saved(lib, dt, rec):
    """The flash kernel's node as graph drawers read it: grad_fn._saved_query / key / value /
    output / attn_mask (a bool mask as its additive bias) / logsumexp / dropout_p / is_causal /
    scale, and the freed-graph error after backward."""
    F = lib.nn.functional
    q, k, v = _qkv(lib, dt, 190, 2, 2, 3, 5, 4)
    keep = lib.tensor([[True] * 5, [False] * 5, [True, False] * 2 + [True]])
    add = _randn(lib, dt, 191, 3, 5)
    calls = {"plain": {}, "causal": {"is_causal": True}, "float": {"attn_mask": add},
             "bool": {"attn_mask": keep}, "scale": {"scale": 0.3},
             "both": {"attn_mask": add[None, None], "is_causal": True}}  # fmt: skip
    for name, kw in calls.items():
        out = F.scaled_dot_product_attention(q, k, v, **kw)
        node = out.grad_fn
        rec(name + ".names", str(sorted(n for n in dir(node) if n.startswith("_saved_"))))
        rec(name + ".lse", node._saved_logsumexp)
        rec(name + ".mask", str(node._saved_attn_mask is None))
        if node._saved_attn_mask is not None:
            rec(name + ".mask_value", node._saved_attn_mask)
        rec(name + ".flags", str((node._saved_dropout_p, node._saved_is_causal, node._saved_scale)))
        rec(name + ".is", str([node._saved_query is q, node._saved_key is k,
                               node._saved_value is v, node._saved_output.equal(out)]))  # fmt: skip
    qg = _randn(lib, dt, 192, 2, 4, 3, 4).requires_grad_(True)
    out = F.scaled_dot_product_attention(qg, k, v, enable_gqa=True, is_causal=True)
    rec("gqa.lse", out.grad_fn._saved_logsumexp)
    out.sum().backward()
    rec.err("freed", lambda: out.grad_fn._saved_query)
    rec.err("freed_lse", lambda: out.grad_fn._saved_logsumexp)
    rec("freed_scale", str(out.grad_fn._saved_scale))
    qh = q.detach().half().requires_grad_(True)
    out = F.scaled_dot_product_attention(qh, k.half(), v.half(), keep)
    if dt == lib.float32:  # (a float32 result: compared to float32's tolerance)
        rec("half.lse", out.grad_fn._saved_logsumexp)
    rec("half.mask", out.grad_fn._saved_attn_mask)
