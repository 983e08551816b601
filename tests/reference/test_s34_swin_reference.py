"""Session 34 (helper swin): vision-transformer programs with windowed attention, written the way
Swin/ViT/DeiT/MAE code is written in torch (timm-style modules), run under torch and minitorch
with the same seeds and compared record by record: patch embedding by a strided Conv2d, by
Tensor.unfold, F.unfold/F.fold and reshape/permute (and MAE's unpatchify); cls/distillation
tokens with learned (trunc_normal_) and 2-d sin-cos position embeddings, resized by
F.interpolate (bicubic/bilinear/nearest, align_corners, antialias, DINO's scale factors) and in
a checkpoint filter; window partition/reverse by view/permute/contiguous (and padding to a
multiple of the window); shifted windows by torch.roll with the slicing + masked_fill(-100.0)
mask; relative position indices (meshgrid 'ij', flatten, broadcast difference, in-place +=/*=,
sum), bias tables gathered by them and resized; Swin V2's cosine attention with its log-spaced
continuous position bias MLP; window attention manual and through scaled_dot_product_attention
(float/bool masks, scale, causal, GQA) with gradients; DropPath by rand with a generator +
floor_ and by bernoulli_, under activation checkpointing (global RNG restored, a generator
not); patch merging by strided slicing + cat (and pixel_unshuffle); LayerNorm, GELU (exact and
tanh), SwiGLU, layer scale; whole Swin and ViT/DeiT models trained a few AdamW/SGD steps with
weight-decay groups, clipping, label smoothing, mixup/cutmix soft targets, hard and soft
distillation, an EMA copy; MAE random masking (argsort/gather); EViT token pruning; 2-d rotary
embeddings; state_dict keys with persistent=False buffers, load errors, _load_from_state_dict
overrides and load pre/post hooks; forward/backward hooks; strides and contiguity of the views;
the nodes' _saved_* attributes; a shifted block under CPU autocast to bfloat16 and as a
bfloat16 model (to 1e-2); and the errors users hit (a window size not dividing the grid,
the wrong channel count to a conv, view after permute, sdpa's shape and dtype checks).
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- grad_fn._saved_* of the Swin block's view ops were missing (torchviz's show_saved reads
  them): RollBackward0's _saved_shifts/_saved_dims (tuples, () for a flattened roll, a negative
  shift shown unsigned as torch's binding shows it: -1 -> 2**64 - 1), UnfoldBackward0's
  _saved_dimension/_saved_size/_saved_step/_saved_self_sym_sizes, FlipBackward0's _saved_dims,
  MaskedFillBackward0/1's _saved_mask, UnbindBackward0's and StackBackward0's _saved_dim,
  RepeatBackward0's _saved_repeats/_saved_self_sym_sizes.
- NativeLayerNormBackward0 had none of torch's _saved_input/_saved_weight/_saved_bias/
  _saved_normalized_shape/_saved_result1/_saved_result2 (mean and rstd, shaped (*lead, 1...),
  in the input's dtype); they are read lazily (no forward cost) and, as torch's, raise the
  freed-values error after backward (normalized_shape stays readable).
- Double backward: masked_fill's gradient was a WhereBackward0 node listing (None, grad); now
  MaskedFillBackward0 listing the gradient alone, as torch; unfold's gradient node is named
  UnfoldBackwardBackward0 (was StridedScatterAddBackward0).

Known and left (documented):
- torch stores the dims of its view ops as the user wrote them, a negative one shown as an
  unsigned 64-bit number (roll(x, 1, -1)'s _saved_dims is (18446744073709551615,)); minitorch
  keeps the wrapped dim (2,), as its existing Unsqueeze/Permute/Transpose/Sum/Cat nodes do (the
  ops receive normalized dims). The programs use non-negative dims there.
- One basic-indexing node per key (x[0::2, 1::2] is one SliceBackward0 here, two chained in
  torch), so SliceBackward0/SelectBackward0 have no _saved_start/_saved_end/... ; composite
  nodes (sdpa's ScaledDotProductFlashAttentionForCpuBackward0, interpolate's) have none either.
- Double backward through sdpa's flash-path node works here; torch raises "derivative for
  aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented" (minitorch
  keeps every op twice differentiable, DESIGN.md).
- sdpa with key and value of different sequence lengths: torch's CPU flash kernel reads key
  only up to value's length (no error, or an expand error with a mask); minitorch raises the
  math path's bmm size error. Not recorded.
- The key bias of attention has a zero gradient in exact arithmetic; in float32 its rounding
  noise becomes a full AdamW step (_NOISE_STEP below): float32 training programs record
  parameters as gradients before the first step.
- A fully masked attention row (softmax of all -inf) leaks NumPy's "invalid value encountered"
  RuntimeWarning when the user's own warnings filter shows all warnings (simplefilter
  "always"); minitorch's module-level filter hides it otherwise. torch warns nothing.
- Tensor methods called with too many arguments or an unknown keyword raise Python's
  "Tensor.masked_fill() takes 3 positional arguments ..." TypeError, not torch's "received an
  invalid combination of arguments" (a library-wide gap, not specific to these programs).
- Complex dtypes (the view_as_complex/polar form of rotary embeddings) are a documented gap.
- The records run on the CPU only; the strict test device and CuPy are not exercised here.
"""

from __future__ import annotations

import math
import types

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "patch_embed_conv", "patch_embed_unfold", "cls_pos", "sincos_pos", "pos_interp",
    "window_roundtrip", "shift_mask", "rel_pos_index", "window_attention", "sdpa_vs_manual",
    "drop_path", "patch_merging", "swin_block", "swin_train", "vit_train", "state_dict",
    "errors", "init_weights", "swinv2_attention", "deit_tokens", "mlp_gelu", "mae_masking",
    "roll", "window_pad", "strides", "param_groups", "rel_bias_resize", "attn_hooks",
    "checkpoint_block", "sdpa_errors", "saved_attrs", "checkpoint_drop_path", "mixup_cutmix",
    "model_ema", "load_hooks", "rope_2d", "token_pruning",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


def test_autocast_bf16_block():
    """A shifted Swin block under CPU autocast to bfloat16 (manual and sdpa attention) and as a
    bfloat16 model: to 1e-2 of scale (bfloat16 roundings)."""
    assert_program_matches(p_autocast_bf16, torch, "float32", tol=1e-2)


# _NOISE_STEP: the key bias of an attention layer has a zero gradient in exact arithmetic (softmax
# does not change when q.b_k is added to a whole row), so in float32 it gets a rounding-noise
# gradient that Adam(W) turns into a full step of random sign; the training programs record
# float32 parameters only as gradients before the first step (the losses and logits after it).


def _close(lib, a, b):
    """Whether two ways to compute a value agree to rounding (a bool: their difference itself
    is rounding noise, which the programs do not record)."""
    tol = 1e-10 if a.dtype == lib.float64 else 1e-4
    return bool(lib.allclose(a, b, rtol=tol, atol=tol * float(b.abs().max())))


# --- the model pieces, built for one library ---


def window_partition(x, ws):
    """(B, H, W, C) -> (B * nW, ws, ws, C)."""
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def window_reverse(windows, ws, h, w):
    """(B * nW, ws, ws, C) -> (B, H, W, C)."""
    b = int(windows.shape[0] / (h * w / ws / ws))
    x = windows.view(b, h // ws, w // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)


def relative_position_index(lib, ws):
    coords = lib.stack(lib.meshgrid([lib.arange(ws), lib.arange(ws)], indexing="ij"))
    flat = lib.flatten(coords, 1)
    rel = flat[:, :, None] - flat[:, None, :]
    rel = rel.permute(1, 2, 0).contiguous()
    rel[:, :, 0] += ws - 1
    rel[:, :, 1] += ws - 1
    rel[:, :, 0] *= 2 * ws - 1
    return rel.sum(-1)


def shift_attn_mask(lib, h, w, ws, shift, dt):
    img_mask = lib.zeros((1, h, w, 1), dtype=dt)
    cnt = 0
    for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
        for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
            img_mask[:, hs, wsl, :] = cnt
            cnt += 1
    mask_windows = window_partition(img_mask, ws).view(-1, ws * ws)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    return attn_mask.masked_fill(attn_mask != 0, (-100.0)).masked_fill(attn_mask == 0, 0.0)


def drop_path(lib, x, drop_prob, training, generator=None, scale_by_keep=True):
    if drop_prob == 0.0 or not training:
        return x
    keep = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = keep + lib.rand(shape, dtype=x.dtype, device=x.device, generator=generator)
    random_tensor.floor_()
    if keep > 0.0 and scale_by_keep:
        return x.div(keep) * random_tensor
    return x * random_tensor


def _models(lib):
    nn = lib.nn
    F = nn.functional

    class DropPath(nn.Module):
        def __init__(self, p=0.0, seed=0):
            super().__init__()
            self.p = p
            self.gen = lib.Generator().manual_seed(seed)

        def forward(self, x):
            return drop_path(lib, x, self.p, self.training, self.gen)

        def extra_repr(self):
            return f"drop_prob={round(self.p, 3):0.3f}"

    class Mlp(nn.Module):
        def __init__(self, dim, hidden, approximate="none"):
            super().__init__()
            self.fc1 = nn.Linear(dim, hidden)
            self.act = nn.GELU(approximate=approximate)
            self.fc2 = nn.Linear(hidden, dim)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    class WindowAttention(nn.Module):
        def __init__(self, dim, ws, heads, fused=False):
            super().__init__()
            self.dim, self.ws, self.heads, self.fused = dim, ws, heads, fused
            self.scale = (dim // heads) ** -0.5
            self.relative_position_bias_table = nn.Parameter(
                lib.zeros((2 * ws - 1) * (2 * ws - 1), heads)
            )
            self.register_buffer(
                "relative_position_index", relative_position_index(lib, ws), persistent=False
            )
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)
            nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
            self.softmax = nn.Softmax(dim=-1)

        def rel_bias(self):
            n = self.ws * self.ws
            idx = self.relative_position_index.view(-1)
            bias = self.relative_position_bias_table[idx].view(n, n, -1)
            return bias.permute(2, 0, 1).contiguous()

        def forward(self, x, mask=None):
            b_, n, c = x.shape
            qkv = self.qkv(x).reshape(b_, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
            q, k, v = qkv.unbind(0)
            bias = self.rel_bias().unsqueeze(0)
            if mask is not None:
                nw = mask.shape[0]
                bias = bias.view(1, 1, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
                bias = bias.expand(b_ // nw, -1, -1, -1, -1).reshape(-1, self.heads, n, n)
            if self.fused:
                x = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            else:
                attn = (q * self.scale) @ k.transpose(-2, -1)
                attn = self.softmax(attn + bias)
                x = attn @ v
            x = x.transpose(1, 2).reshape(b_, n, c)
            return self.proj(x)

    class SwinBlock(nn.Module):
        def __init__(self, dim, res, heads, ws, shift, drop=0.0, fused=False, seed=0):
            super().__init__()
            self.res, self.ws, self.shift = res, ws, shift
            self.norm1 = nn.LayerNorm(dim)
            self.attn = WindowAttention(dim, ws, heads, fused)
            self.drop_path = DropPath(drop, seed) if drop > 0 else nn.Identity()
            self.norm2 = nn.LayerNorm(dim)
            self.mlp = Mlp(dim, 2 * dim)
            mask = None
            if shift > 0:
                mask = shift_attn_mask(lib, res[0], res[1], ws, shift, lib.get_default_dtype())
            self.register_buffer("attn_mask", mask, persistent=False)

        def forward(self, x):
            h, w = self.res
            b, _, c = x.shape
            shortcut = x
            x = self.norm1(x).view(b, h, w, c)
            if self.shift > 0:
                x = lib.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
            xw = window_partition(x, self.ws).view(-1, self.ws * self.ws, c)
            mask = None if self.attn_mask is None else self.attn_mask.to(x.dtype)
            aw = self.attn(xw, mask=mask).view(-1, self.ws, self.ws, c)
            x = window_reverse(aw, self.ws, h, w)
            if self.shift > 0:
                x = lib.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
            x = shortcut + self.drop_path(x.view(b, h * w, c))
            return x + self.drop_path(self.mlp(self.norm2(x)))

    class PatchMerging(nn.Module):
        def __init__(self, res, dim):
            super().__init__()
            self.res = res
            self.norm = nn.LayerNorm(4 * dim)
            self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

        def forward(self, x):
            h, w = self.res
            b, n, c = x.shape
            x = x.view(b, h, w, c)
            x0 = x[:, 0::2, 0::2, :]
            x1 = x[:, 1::2, 0::2, :]
            x2 = x[:, 0::2, 1::2, :]
            x3 = x[:, 1::2, 1::2, :]
            x = lib.cat([x0, x1, x2, x3], -1).view(b, -1, 4 * c)
            return self.reduction(self.norm(x))

    class PatchEmbed(nn.Module):
        def __init__(self, patch, cin, dim, norm=True):
            super().__init__()
            self.proj = nn.Conv2d(cin, dim, kernel_size=patch, stride=patch)
            self.norm = nn.LayerNorm(dim) if norm else nn.Identity()

        def forward(self, x):
            return self.norm(self.proj(x).flatten(2).transpose(1, 2))

    class TinySwin(nn.Module):
        def __init__(self, classes=3, fused=False):
            super().__init__()
            self.patch_embed = PatchEmbed(2, 3, 8)
            self.layers = nn.Sequential(
                SwinBlock(8, (4, 4), 2, 2, 0, fused=fused),
                SwinBlock(8, (4, 4), 2, 2, 1, drop=0.2, fused=fused, seed=5),
                PatchMerging((4, 4), 8),
                SwinBlock(16, (2, 2), 4, 2, 0, fused=fused),
            )
            self.norm = nn.LayerNorm(16)
            self.head = nn.Linear(16, classes)

        def forward(self, x):
            x = self.norm(self.layers(self.patch_embed(x)))
            return self.head(x.mean(1))

    class ViTBlock(nn.Module):
        def __init__(self, dim, heads, drop=0.0, seed=0):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, eps=1e-6)
            self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
            self.ls1 = nn.Parameter(1e-1 * lib.ones(dim))
            self.drop_path = DropPath(drop, seed) if drop > 0 else nn.Identity()
            self.norm2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = Mlp(dim, 2 * dim, approximate="tanh")

        def forward(self, x):
            y = self.norm1(x)
            y, _ = self.attn(y, y, y, need_weights=False)
            x = x + self.drop_path(self.ls1 * y)
            return x + self.drop_path(self.mlp(self.norm2(x)))

    class TinyViT(nn.Module):
        def __init__(self, img=8, patch=4, dim=8, depth=2, classes=3, dist=False):
            super().__init__()
            self.patch_embed = PatchEmbed(patch, 3, dim, norm=False)
            n = (img // patch) ** 2
            self.cls_token = nn.Parameter(lib.zeros(1, 1, dim))
            self.dist_token = nn.Parameter(lib.zeros(1, 1, dim)) if dist else None
            ntok = 2 if dist else 1
            self.pos_embed = nn.Parameter(lib.zeros(1, n + ntok, dim))
            self.blocks = nn.ModuleList(
                [ViTBlock(dim, 2, drop=0.1 * i, seed=i) for i in range(depth)]
            )
            self.norm = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, classes)
            self.head_dist = nn.Linear(dim, classes) if dist else None
            nn.init.trunc_normal_(self.pos_embed, std=0.02)
            nn.init.trunc_normal_(self.cls_token, std=0.02)
            if dist:
                nn.init.trunc_normal_(self.dist_token, std=0.02)
            self.apply(self._init_weights)

        def _init_weights(self, m):
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.LayerNorm):
                nn.init.constant_(m.bias, 0)
                nn.init.constant_(m.weight, 1.0)

        def forward(self, x):
            x = self.patch_embed(x)
            toks = [self.cls_token.expand(x.shape[0], -1, -1)]
            if self.dist_token is not None:
                toks.append(self.dist_token.expand(x.shape[0], -1, -1))
            x = lib.cat(toks + [x], dim=1) + self.pos_embed
            for blk in self.blocks:
                x = blk(x)
            x = self.norm(x)
            if self.head_dist is None:
                return self.head(x[:, 0])
            return (self.head(x[:, 0]) + self.head_dist(x[:, 1])) / 2

    return types.SimpleNamespace(**{k: v for k, v in locals().items() if isinstance(v, type)})


# --- the programs: each takes the library, a dtype and a recorder ---


def p_patch_embed_conv(lib, dt, rec):
    lib.manual_seed(0)
    m = _models(lib).PatchEmbed(4, 3, 6).to(dt)
    x = _randn(lib, dt, 1, 2, 3, 8, 12).requires_grad_(True)
    out = m(x)
    rec("out", out)
    rec("shape", str(tuple(out.shape)))
    (out * _randn(lib, dt, 2, *out.shape)).sum().backward()
    rec("gx", x.grad)
    rec.params("p", m, grads=True)
    rec("repr", repr(m))
    rec("grad_fn", type(out.grad_fn).__name__)


def p_patch_embed_unfold(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 3, 2, 3, 8, 8)
    w = _randn(lib, dt, 4, 5, 3, 4, 4)
    b = _randn(lib, dt, 5, 5)
    ref = F.conv2d(x, w, b, stride=4).flatten(2).transpose(1, 2)
    # by Tensor.unfold twice
    p = x.unfold(2, 4, 4).unfold(3, 4, 4)  # B, C, 2, 2, 4, 4
    rec("unfold_shape", str(tuple(p.shape)))
    rec("unfold_stride", str(p.stride()))
    patches = p.permute(0, 2, 3, 1, 4, 5).reshape(2, 4, 3 * 16)
    out1 = patches @ w.reshape(5, -1).t() + b
    rec("by_unfold", out1)
    rec("close1", _close(lib, out1, ref))
    # by F.unfold
    cols = F.unfold(x, kernel_size=4, stride=4).transpose(1, 2)
    out2 = cols @ w.view(5, -1).T + b
    rec("by_F_unfold", out2)
    # by reshape (einops-like)
    xr = x.reshape(2, 3, 2, 4, 2, 4).permute(0, 2, 4, 1, 3, 5).reshape(2, 4, -1)
    out3 = lib.einsum("bnk,ok->bno", xr, w.flatten(1)) + b
    rec("by_reshape", out3)
    # gradients through the unfold path
    xg = x.clone().requires_grad_(True)
    g = xg.unfold(2, 4, 4).unfold(3, 4, 4).permute(0, 2, 3, 1, 4, 5).reshape(2, 4, 48)
    (g @ w.reshape(5, -1).t()).pow(2).sum().backward()
    rec("gx", xg.grad)
    # a fold back (unpatchify, MAE-style)
    imgs = patches.reshape(2, 2, 2, 3, 4, 4).permute(0, 3, 1, 4, 2, 5).reshape(2, 3, 8, 8)
    rec("unpatchify_eq", bool(lib.equal(imgs, x)))
    folded = F.fold(cols.transpose(1, 2), output_size=(8, 8), kernel_size=4, stride=4)
    rec("fold_eq", bool(lib.equal(folded, x)))


def p_cls_pos(lib, dt, rec):
    lib.manual_seed(1)
    nn = lib.nn
    cls = nn.Parameter(lib.zeros(1, 1, 6, dtype=dt))
    pos = nn.Parameter(lib.zeros(1, 5, 6, dtype=dt))
    nn.init.trunc_normal_(pos, std=0.02)
    nn.init.normal_(cls, std=1e-6)
    rec("pos", pos)
    rec("cls", cls)
    x = _randn(lib, dt, 5, 3, 4, 6).requires_grad_(True)
    tok = cls.expand(x.shape[0], -1, -1)
    rec("expand_stride", str(tok.stride()))
    y = lib.cat((tok, x), dim=1) + pos
    rec("y", y)
    (y.sin() * _randn(lib, dt, 6, 3, 5, 6)).sum().backward()
    rec("g_cls", cls.grad)
    rec("g_pos", pos.grad)
    rec("g_x", x.grad)
    # no_embed_class: pos only on the patches
    y2 = lib.cat([cls.expand(3, -1, -1), x + pos[:, 1:]], 1)
    rec("y2", y2)
    rec("y2.req", y2.requires_grad)


def _sincos_1d(lib, dim, pos, dt):
    omega = lib.arange(dim // 2, dtype=dt) / (dim / 2.0)
    omega = 1.0 / 10000**omega
    out = lib.einsum("m,d->md", pos.reshape(-1), omega)
    return lib.cat([lib.sin(out), lib.cos(out)], dim=1)


def p_sincos_pos(lib, dt, rec):
    dim, gs = 8, 3
    gh = lib.arange(gs, dtype=dt)
    gw = lib.arange(gs, dtype=dt)
    grid = lib.meshgrid(gw, gh, indexing="xy")
    grid = lib.stack(grid, dim=0).reshape(2, 1, gs, gs)
    emb = lib.cat(
        [_sincos_1d(lib, dim // 2, grid[0], dt), _sincos_1d(lib, dim // 2, grid[1], dt)], 1
    )
    rec("emb", emb)
    emb_cls = lib.cat([lib.zeros(1, dim, dtype=dt), emb], 0)
    rec("emb_cls", emb_cls)
    # the timm way: temperature, outer product
    t = 10000.0
    pos_dim = dim // 4
    omega = lib.arange(pos_dim, dtype=dt) / pos_dim
    omega = 1.0 / (t**omega)
    yy, xx = lib.meshgrid(lib.arange(gs, dtype=dt), lib.arange(gs, dtype=dt), indexing="ij")
    out_y = yy.flatten()[:, None] * omega[None, :]
    out_x = lib.outer(xx.flatten(), omega)
    pe = lib.cat([out_x.sin(), out_x.cos(), out_y.sin(), out_y.cos()], dim=1)
    rec("timm", pe)
    rec("timm_shape", str(pe.shape))
    # 1-d sinusoid as in the original transformer
    pos = lib.arange(5, dtype=dt).unsqueeze(1)
    div = lib.exp(lib.arange(0, dim, 2, dtype=dt) * (-math.log(10000.0) / dim))
    pe1 = lib.zeros(5, dim, dtype=dt)
    pe1[:, 0::2] = lib.sin(pos * div)
    pe1[:, 1::2] = lib.cos(pos * div)
    rec("pe1", pe1)


def p_pos_interp(lib, dt, rec):
    F = lib.nn.functional
    pos = _randn(lib, dt, 7, 1, 1 + 9, 4)
    cls_pos, patch_pos = pos[:, :1], pos[:, 1:]
    for mode, ac, aa in [
        ("bicubic", False, False),
        ("bilinear", False, False),
        ("bicubic", True, False),
        ("bilinear", False, True),
        ("bicubic", False, True),
        ("nearest", None, False),
    ]:
        grid = patch_pos.reshape(1, 3, 3, -1).permute(0, 3, 1, 2)
        kw = {} if ac is None else {"align_corners": ac}
        new = F.interpolate(grid, size=(5, 4), mode=mode, antialias=aa, **kw)
        new = new.permute(0, 2, 3, 1).reshape(1, -1, 4)
        rec(f"{mode}.{ac}.{aa}", lib.cat([cls_pos, new], dim=1))
    # by scale factor, as DINO does (with the 0.1 offset)
    grid = patch_pos.reshape(1, 3, 3, 4).permute(0, 3, 1, 2)
    new = F.interpolate(grid, scale_factor=(7.1 / 3, 5.1 / 3), mode="bicubic", align_corners=False)
    rec("dino", new)
    rec("dino_shape", str(new.shape))
    new = F.interpolate(
        grid, scale_factor=1.5, mode="bicubic", align_corners=False, recompute_scale_factor=True
    )
    rec("recompute", new)
    # downsampling with and without antialias, and gradients
    g = _randn(lib, dt, 8, 1, 4, 6, 6).requires_grad_(True)
    d = F.interpolate(g, size=(4, 3), mode="bicubic", antialias=True, align_corners=False)
    (d * _randn(lib, dt, 9, *d.shape)).sum().backward()
    rec("aa_down", d)
    rec("aa_down.g", g.grad)
    g.grad = None
    d = F.interpolate(g, size=(4, 3), mode="bilinear", align_corners=False)
    (d * _randn(lib, dt, 9, *d.shape)).sum().backward()
    rec("down", d)
    rec("down.g", g.grad)


def p_window_roundtrip(lib, dt, rec):
    x = _randn(lib, dt, 10, 2, 6, 9, 4)
    w = window_partition(x, 3)
    rec("w", w)
    rec("w_shape", str(tuple(w.shape)))
    back = window_reverse(w, 3, 6, 9)
    rec("eq", bool(lib.equal(back, x)))
    # the permuted tensor is not contiguous; reshape copies where view cannot
    b, h, wd, c = x.shape
    y = x.view(b, h // 3, 3, wd // 3, 3, c).permute(0, 1, 3, 2, 4, 5)
    rec("contig", y.is_contiguous())
    rec("reshape", y.reshape(-1, 9, c))
    rec.err("view", lambda: y.view(-1, 9, c))
    # windows of a transposed (channels-first) input
    xc = x.permute(0, 3, 1, 2)
    rec.err("view_cf", lambda: xc.view(b, c, -1))
    rec("cf", window_partition(xc.permute(0, 2, 3, 1), 3))
    # gradients through the round trip
    xg = x.clone().requires_grad_(True)
    wg = window_partition(xg, 3)
    (wg.view(-1, 9, c).softmax(1) * _randn(lib, dt, 11, 12, 9, c)).sum().backward()
    rec("gx", xg.grad)


def p_shift_mask(lib, dt, rec):
    for h, w, ws, s in [(4, 4, 2, 1), (6, 6, 3, 1), (8, 4, 4, 2), (6, 9, 3, 2)]:
        m = shift_attn_mask(lib, h, w, ws, s, dt)
        rec(f"m{h}{w}{ws}{s}", m)
        rec(f"m{h}{w}{ws}{s}.shape", str(m.shape))
    # bool masks and the -inf variant
    m = shift_attn_mask(lib, 4, 4, 2, 1, dt)
    bm = m != 0
    rec("bool", bm)
    rec("ninf", lib.zeros_like(m).masked_fill(bm, float("-inf")))
    rec("where", lib.where(bm, lib.tensor(-100.0, dtype=dt), lib.tensor(0.0, dtype=dt)))
    # masked_fill with a tensor value, and in place
    v = m.clone()
    v.masked_fill_(bm, lib.tensor(-1e4, dtype=dt))
    rec("inplace", v)
    att = _randn(lib, dt, 12, 2, 4, 2, 4, 4)  # B, nW, heads, N, N
    att = att + m.unsqueeze(1).unsqueeze(0)
    rec("softmax", att.softmax(-1))
    rec.err("fill_float_mask", lambda: m.masked_fill(m, -100.0))
    rec.err("fill_vec", lambda: m.masked_fill(bm, lib.tensor([1.0, 2.0], dtype=dt)))


def p_rel_pos_index(lib, dt, rec):
    for ws in (2, 3, 4):
        idx = relative_position_index(lib, ws)
        rec(f"idx{ws}", idx)
        rec(f"idx{ws}.dtype", str(idx.dtype))
    # the same with torch.ones/nonzero style coordinates and the xy meshgrid
    ws = 3
    ch, cw = lib.meshgrid(lib.arange(ws), lib.arange(ws), indexing="xy")
    rec("xy", lib.stack([ch, cw]))
    coords = lib.stack(lib.meshgrid(lib.arange(ws), lib.arange(ws), indexing="ij")).flatten(1)
    rel = coords[:, :, None] - coords[:, None, :]
    rel = rel.permute(1, 2, 0)
    rec("rel_contig", rel.is_contiguous())
    rec.err("rel_view", lambda: rel.view(-1, 2))
    rel = rel + lib.tensor([ws - 1, ws - 1])
    idx = rel[..., 0] * (2 * ws - 1) + rel[..., 1]
    rec("idx_alt", idx)
    # gather the bias by index, and its gradient (index_put accumulation)
    heads = 2
    table = _randn(lib, dt, 13, (2 * ws - 1) ** 2, heads).requires_grad_(True)
    bias = table[idx.view(-1)].view(ws * ws, ws * ws, -1).permute(2, 0, 1).contiguous()
    rec("bias", bias)
    (bias * _randn(lib, dt, 14, heads, 9, 9)).sum().backward()
    rec("g_table", table.grad)
    table.grad = None
    bias2 = lib.index_select(table, 0, idx.flatten()).reshape(9, 9, heads)
    (bias2.permute(2, 0, 1) * _randn(lib, dt, 14, heads, 9, 9)).sum().backward()
    rec("g_table2", table.grad)
    # BEiT-style index with the cls rows
    n = ws * ws
    full = lib.zeros(size=(n + 1,) * 2, dtype=idx.dtype)
    full[1:, 1:] = idx
    full[0, 0:] = (2 * ws - 1) ** 2
    full[0:, 0] = (2 * ws - 1) ** 2 + 1
    full[0, 0] = (2 * ws - 1) ** 2 + 2
    rec("beit", full)


def p_window_attention(lib, dt, rec):
    lib.manual_seed(2)
    m = _models(lib).WindowAttention(8, 2, 2).to(dt)
    x = _randn(lib, dt, 15, 8, 4, 8).requires_grad_(True)
    mask = shift_attn_mask(lib, 4, 4, 2, 1, dt)
    for tag, mk in (("nomask", None), ("mask", mask)):
        x.grad = None
        for p in m.parameters():
            p.grad = None
        out = m(x, mask=mk)
        (out * _randn(lib, dt, 16, *out.shape)).sum().backward()
        rec(tag, out)
        rec(tag + ".gx", x.grad)
        rec.params(tag, m, grads=True)
    rec("rel_bias", m.rel_bias())
    rec("buffers", str([n for n, _ in m.named_buffers()]))
    rec("sd_keys", str(list(m.state_dict().keys())))
    rec("repr", repr(m))
    m.fused = True
    for p in m.parameters():
        p.grad = None
    x.grad = None
    out2 = m(x, mask=mask)
    (out2 * _randn(lib, dt, 16, *out2.shape)).sum().backward()
    rec("fused.gx", x.grad)
    rec.params("fused", m, grads=True)
    m.fused = False
    rec("fused", out2)
    rec("fused_close", _close(lib, out2, m(x, mask=mask)))


def p_sdpa_vs_manual(lib, dt, rec):
    F = lib.nn.functional
    q = _randn(lib, dt, 17, 2, 3, 5, 4).requires_grad_(True)
    k = _randn(lib, dt, 18, 2, 3, 6, 4).requires_grad_(True)
    v = _randn(lib, dt, 19, 2, 3, 6, 4).requires_grad_(True)
    fmask = _randn(lib, dt, 20, 5, 6)
    bmask = _rand(lib, dt, 21, 2, 1, 5, 6) > 0.3
    bmask[..., 0] = True
    up = _randn(lib, dt, 22, 2, 3, 5, 4)

    def manual(mask=None, scale=None, causal=False):
        s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
        a = q @ k.transpose(-2, -1) * s
        if causal:
            keep = lib.ones(5, 6, dtype=lib.bool).tril(diagonal=0)
            a = a.masked_fill(keep.logical_not(), float("-inf"))
        if mask is not None:
            if mask.dtype == lib.bool:
                a = a.masked_fill(~mask, float("-inf"))
            else:
                a = a + mask
        return a.softmax(dim=-1) @ v

    cases = [
        ("plain", {}, {}),
        ("float", {"attn_mask": fmask}, {"mask": fmask}),
        ("bool", {"attn_mask": bmask}, {"mask": bmask}),
        ("scale", {"scale": 0.3}, {"scale": 0.3}),
        ("causal", {"is_causal": True}, {"causal": True}),
    ]
    for tag, kw_f, kw_m in cases:
        outs = []
        fns = (
            lambda kw_f=kw_f: F.scaled_dot_product_attention(q, k, v, **kw_f),
            lambda kw_m=kw_m: manual(**kw_m),
        )
        for fn in fns:
            q.grad = k.grad = v.grad = None
            o = fn()
            (o * up).sum().backward()
            outs.append((o, q.grad, k.grad, v.grad))
        for i, nm in enumerate(("o", "gq", "gk", "gv")):
            rec(f"{tag}.{nm}", outs[0][i])
            rec(f"{tag}.{nm}.close", _close(lib, outs[0][i], outs[1][i]))
    # dropout in training and the enable_gqa broadcast
    kg = _randn(lib, dt, 23, 2, 1, 6, 4)
    vg = _randn(lib, dt, 24, 2, 1, 6, 4)
    o = F.scaled_dot_product_attention(q.detach(), kg, vg, enable_gqa=True)
    rec("gqa", o)
    o0 = F.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), dropout_p=0.0)
    rec("p0", o0)


def p_drop_path(lib, dt, rec):
    x = _randn(lib, dt, 25, 6, 3, 4).requires_grad_(True)
    for p in (0.0, 0.25, 0.5, 0.9):
        gen = _gen(lib, 26)
        y = drop_path(lib, x, p, True, gen)
        rec(f"y{p}", y)
        y2 = drop_path(lib, x, p, True, _gen(lib, 26), scale_by_keep=False)
        rec(f"y{p}.noscale", y2)
    x.grad = None
    y = drop_path(lib, x, 0.5, True, _gen(lib, 27))
    (y * _randn(lib, dt, 28, 6, 3, 4)).sum().backward()
    rec("gx", x.grad)
    rec("eval", drop_path(lib, x, 0.5, False) is x)
    # the module, in train and eval modes, with its repr
    dp = _models(lib).DropPath(0.3, seed=4)
    rec("repr", repr(dp))
    rec("train", dp(x))
    rec("train2", dp(x))
    dp.eval()
    rec("eval_mod", dp(x) is x)
    # bernoulli_ with a generator, the other spelling
    keep = x.new_empty((6, 1, 1)).bernoulli_(0.7, generator=_gen(lib, 29))
    rec("bern", keep)
    rec("bern_div", x * keep.div_(0.7))
    # stochastic depth decay rule
    dpr = [v.item() for v in lib.linspace(0, 0.3, 4)]
    rec("dpr", str([round(v, 6) for v in dpr]))


def p_patch_merging(lib, dt, rec):
    lib.manual_seed(3)
    m = _models(lib).PatchMerging((4, 6), 3).to(dt)
    x = _randn(lib, dt, 30, 2, 24, 3).requires_grad_(True)
    out = m(x)
    rec("out", out)
    (out * _randn(lib, dt, 31, *out.shape)).sum().backward()
    rec("gx", x.grad)
    rec.params("p", m, grads=True)
    xv = x.detach().view(2, 4, 6, 3)
    s = xv[:, 1::2, 0::2, :]
    rec("slice_stride", str(s.stride()))
    rec("slice_offset", s.storage_offset())
    rec("slice_contig", s.is_contiguous())
    # the strided slicing, as channels-first and via unfold / pixel_unshuffle
    cf = xv.permute(0, 3, 1, 2)
    rec("pixel_unshuffle", lib.nn.functional.pixel_unshuffle(cf, 2))
    rec("space2depth", cf.reshape(2, 3, 2, 2, 3, 2).permute(0, 1, 3, 5, 2, 4).reshape(2, 12, 2, 3))
    # odd resolutions: Swin pads first
    xo = _randn(lib, dt, 32, 1, 5, 5, 2)
    xo = lib.nn.functional.pad(xo, (0, 0, 0, 5 % 2, 0, 5 % 2))
    rec("pad_shape", str(tuple(xo.shape)))
    rec("pad_cat", lib.cat([xo[:, 0::2, 0::2], xo[:, 1::2, 1::2]], -1))
    rec("repr", repr(m))


def p_swin_block(lib, dt, rec):
    lib.manual_seed(4)
    M = _models(lib)
    for shift in (0, 1):
        blk = M.SwinBlock(8, (4, 4), 2, 2, shift).to(dt)
        x = _randn(lib, dt, 33, 2, 16, 8).requires_grad_(True)
        out = blk(x)
        (out * _randn(lib, dt, 34, *out.shape)).sum().backward()
        rec(f"s{shift}", out)
        rec(f"s{shift}.gx", x.grad)
        rec.params(f"s{shift}", blk, grads=True)
        rec(f"s{shift}.buffers", str([n for n, _ in blk.named_buffers()]))
    rec("mask", blk.attn_mask)
    rec("repr", repr(blk))


def p_swin_train(lib, dt, rec):
    lib.manual_seed(5)
    model = _models(lib).TinySwin().to(dt)
    decay = [p for n, p in model.named_parameters() if p.ndim > 1 and "table" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.ndim > 1 and "table" not in n)]
    opt = lib.optim.AdamW(
        [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
        lr=1e-2,
    )
    x = _randn(lib, dt, 35, 4, 3, 8, 8)
    y = lib.tensor([0, 1, 2, 1])
    crit = lib.nn.CrossEntropyLoss(label_smoothing=0.1)
    for step in range(3):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if step == 0:
            rec.params("p0", model, grads=True)
        opt.step()
        rec(f"loss{step}", loss)
    if dt == lib.float64:  # See _NOISE_STEP
        rec.params("p", model)
    model.eval()
    with lib.no_grad():
        rec("eval", model(x))
    rec("n_params", sum(p.numel() for p in model.parameters()))


def p_vit_train(lib, dt, rec):
    lib.manual_seed(6)
    model = _models(lib).TinyViT().to(dt)
    opt = lib.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.05)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    x = _randn(lib, dt, 36, 3, 3, 8, 8)
    y = lib.tensor([2, 0, 1])
    for step in range(3):
        opt.zero_grad(set_to_none=True)
        logits = model(x)
        loss = lib.nn.functional.cross_entropy(logits, y)
        loss.backward()
        if step == 0:
            rec.params("p0", model, grads=True)
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"logits{step}", logits)
    if dt == lib.float64:  # See _NOISE_STEP
        rec.params("p", model)
    rec("lr", sched.get_last_lr()[0])


def p_state_dict(lib, dt, rec):
    lib.manual_seed(7)
    M = _models(lib)
    model = M.TinySwin().to(dt)
    sd = model.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("buffers", str([n for n, _ in model.named_buffers()]))
    rec("n_buffers", len(list(model.buffers())))
    lib.manual_seed(8)
    other = M.TinySwin().to(dt)
    res = other.load_state_dict(sd)
    rec("load", str(res))
    rec(
        "eq",
        all(
            bool(lib.equal(a, b))
            for a, b in zip(other.parameters(), model.parameters(), strict=True)
        ),
    )
    # missing and unexpected keys
    bad = dict(sd)
    bad.pop("head.bias")
    bad["layers.0.attn.relative_position_index"] = lib.zeros(4, 4, dtype=lib.long)
    rec.err("strict", lambda: other.load_state_dict(bad))
    rec("nonstrict", str(other.load_state_dict(bad, strict=False)))
    bad = dict(sd)
    bad["head.weight"] = lib.zeros(4, 16, dtype=dt)
    rec.err("size", lambda: other.load_state_dict(bad))
    # a buffer made persistent, then made not
    m = M.WindowAttention(4, 2, 2)
    m.register_buffer("extra", lib.ones(2))
    rec("wa_keys", str(list(m.state_dict().keys())))
    rec("nonpersistent", str(sorted(m._non_persistent_buffers_set)))
    m.register_buffer("extra", lib.ones(2), persistent=False)
    rec("wa_keys2", str(list(m.state_dict().keys())))
    rec.err("bad_name", lambda: m.register_buffer("a.b", lib.ones(1)))
    rec.err("bad_type", lambda: m.register_buffer("c", [1.0]))
    rec.err("exists", lambda: m.register_buffer("qkv", lib.ones(1)))
    # the position embedding resized on load (checkpoint filter)
    vit = M.TinyViT(img=8, patch=4).to(dt)
    sd = vit.state_dict()
    pe = sd["pos_embed"]
    big = M.TinyViT(img=12, patch=4).to(dt)
    rec.err("pe_size", lambda: big.load_state_dict(sd))
    grid = pe[:, 1:].reshape(1, 2, 2, -1).permute(0, 3, 1, 2)
    grid = lib.nn.functional.interpolate(grid, size=(3, 3), mode="bicubic", align_corners=False)
    sd["pos_embed"] = lib.cat([pe[:, :1], grid.permute(0, 2, 3, 1).reshape(1, 9, -1)], 1)
    rec("resized_load", str(big.load_state_dict(sd)))
    rec("resized", big.pos_embed)


def p_errors(lib, dt, rec):
    M = _models(lib)
    x = _randn(lib, dt, 37, 1, 5, 5, 2)
    rec.err("ws_not_dividing", lambda: window_partition(x, 2))
    rec.err("ws_reverse", lambda: window_reverse(_randn(lib, dt, 1, 3, 2, 2, 2), 2, 4, 4))
    conv = lib.nn.Conv2d(3, 4, 2, stride=2).to(dt)
    rec.err("conv_channels", lambda: conv(_randn(lib, dt, 1, 1, 4, 8, 8)))
    rec.err("conv_3d_input", lambda: conv(_randn(lib, dt, 1, 4, 8, 8)))
    rec.err("conv_small", lambda: conv(_randn(lib, dt, 1, 1, 3, 1, 1)))
    rec.err("conv_dtype", lambda: conv(_randn(lib, dt, 1, 1, 3, 4, 4).half()))
    y = _randn(lib, dt, 2, 2, 4, 4, 3).permute(0, 3, 1, 2)
    rec.err("view_noncontig", lambda: y.view(2, 3, 16))
    rec.err("view_bad", lambda: y.reshape(2, 48).view(2, 5, -1))
    rec.err("view_two_neg", lambda: y.reshape(2, 48).view(-1, -1))
    ln = lib.nn.LayerNorm(8).to(dt)
    rec.err("layernorm_dim", lambda: ln(_randn(lib, dt, 3, 2, 4, 6)))
    rec.err("linear_dim", lambda: lib.nn.Linear(8, 4).to(dt)(_randn(lib, dt, 3, 2, 6)))
    rec.err(
        "cat_dims", lambda: lib.cat([lib.zeros(1, 1, 4, dtype=dt), lib.zeros(2, 3, 5, dtype=dt)], 1)
    )
    rec.err(
        "cat_ndim", lambda: lib.cat([lib.zeros(1, 4, dtype=dt), lib.zeros(2, 3, 4, dtype=dt)], 1)
    )
    rec.err("roll_mismatch", lambda: lib.roll(x, shifts=(1, 1), dims=(1,)))
    rec.err("roll_dim", lambda: lib.roll(x, 1, 5))
    rec.err("permute_len", lambda: x.permute(0, 2, 1))
    rec.err("permute_dup", lambda: x.permute(0, 1, 1, 3))
    rec.err("add_pos", lambda: _randn(lib, dt, 1, 2, 10, 8) + _randn(lib, dt, 2, 1, 17, 8))
    rec.err("mha_dim", lambda: lib.nn.MultiheadAttention(10, 3))
    wa = M.WindowAttention(8, 2, 2).to(dt)
    rec.err("wa_tokens", lambda: wa(_randn(lib, dt, 1, 2, 5, 8)))
    rec.err("unfold_step", lambda: x.unfold(1, 6, 1))
    rec.err("unfold_zero", lambda: x.unfold(1, 2, 0))
    rec.err("expand", lambda: lib.zeros(1, 1, 4, dtype=dt).expand(2, 3, 5))
    rec.err("index_oob", lambda: lib.zeros(9, 2, dtype=dt)[lib.tensor([3, 9])])
    rec.err(
        "masked_fill_shape",
        lambda: lib.zeros(2, 4, 4, dtype=dt).masked_fill(lib.ones(3, 4, 4, dtype=lib.bool), 1.0),
    )


def p_init_weights(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(9)
    w = lib.empty(4, 5, dtype=dt)
    nn.init.trunc_normal_(w, mean=0.0, std=0.02, a=-0.04, b=0.04)
    rec("tn", w)
    nn.init.trunc_normal_(w, std=1.0, a=-2.0, b=2.0)
    rec("tn2", w)
    nn.init.trunc_normal_(w, mean=0.5, std=0.1, a=0.45, b=0.7)
    rec("tn3", w)
    rec("bounds", bool(((w >= 0.45) & (w <= 0.7)).all()))
    rec("ret_is", nn.init.trunc_normal_(w) is w)
    nn.init.xavier_uniform_(w)
    rec("xu", w)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    rec("kn", w)
    nn.init.constant_(w, 0.25)
    rec("const", w)
    # a module initialised with apply
    model = _models(lib).TinyViT(dist=True).to(dt)
    rec.params("vit", model)
    # lecun normal, as jax-style ViT init does
    lw = lib.empty(3, 6, dtype=dt)
    fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(lw)
    rec("fans", str((fan_in, fan_out)))
    nn.init.trunc_normal_(lw, std=math.sqrt(1.0 / fan_in) / 0.87962566103423978)
    rec("lecun", lw)
    # trunc_normal_ keeps the graph off
    p = nn.Parameter(lib.zeros(3, dtype=dt))
    nn.init.trunc_normal_(p, std=0.02)
    rec("param_leaf", p.is_leaf and p.grad_fn is None)
    g = lib.Generator().manual_seed(10)
    nn.init.trunc_normal_(w, std=0.1, generator=g)
    rec("gen", w)


def p_swinv2_attention(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(11)
    ws, heads, dim = 3, 2, 8
    logit_scale = nn.Parameter(lib.log(10 * lib.ones((heads, 1, 1), dtype=dt)))
    cpb_mlp = nn.Sequential(
        nn.Linear(2, 16, bias=True), nn.ReLU(inplace=True), nn.Linear(16, heads, bias=False)
    ).to(dt)
    rh = lib.arange(-(ws - 1), ws, dtype=dt)
    table = lib.stack(lib.meshgrid([rh, rh], indexing="ij")).permute(1, 2, 0).contiguous()
    table = table.unsqueeze(0)
    table[:, :, :, 0] /= ws - 1
    table[:, :, :, 1] /= ws - 1
    table *= 8
    table = lib.sign(table) * lib.log2(lib.abs(table) + 1.0) / math.log2(8)
    rec("coords_table", table)
    idx = relative_position_index(lib, ws)
    x = _randn(lib, dt, 40, 2, ws * ws, dim).requires_grad_(True)
    qkv = nn.Linear(dim, 3 * dim, bias=False).to(dt)
    q_bias = nn.Parameter(lib.zeros(dim, dtype=dt))
    v_bias = nn.Parameter(lib.zeros(dim, dtype=dt))
    with lib.no_grad():
        q_bias.normal_(std=0.1)
        v_bias.normal_(std=0.1)
    qkv_bias = lib.cat((q_bias, lib.zeros_like(v_bias, requires_grad=False), v_bias))
    b_, n, c = x.shape
    qkvo = F.linear(input=x, weight=qkv.weight, bias=qkv_bias)
    qkvo = qkvo.reshape(b_, n, 3, heads, -1).permute(2, 0, 3, 1, 4)
    q, k, v = qkvo[0], qkvo[1], qkvo[2]
    attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
    scale = lib.clamp(logit_scale, max=math.log(1.0 / 0.01)).exp()
    attn = attn * scale
    bias_table = cpb_mlp(table).view(-1, heads)
    bias = bias_table[idx.view(-1)].view(n, n, -1).permute(2, 0, 1).contiguous()
    bias = 16 * lib.sigmoid(bias)
    attn = (attn + bias.unsqueeze(0)).softmax(-1)
    out = (attn @ v).transpose(1, 2).reshape(b_, n, c)
    rec("out", out)
    (out * _randn(lib, dt, 41, *out.shape)).sum().backward()
    rec("gx", x.grad)
    rec("g_scale", logit_scale.grad)
    rec("g_qb", q_bias.grad)
    rec("g_vb", v_bias.grad)
    rec.params("cpb", cpb_mlp, grads=True)
    # the post-norm residual of v2
    norm = nn.LayerNorm(dim).to(dt)
    rec("postnorm", x + norm(out))


def p_deit_tokens(lib, dt, rec):
    lib.manual_seed(12)
    model = _models(lib).TinyViT(dist=True).to(dt)
    x = _randn(lib, dt, 42, 2, 3, 8, 8)
    out = model(x)
    rec("out", out)
    # hard distillation loss against a teacher's argmax (no ties)
    teacher = _randn(lib, dt, 43, 2, 3)
    x_cls, x_dist = None, None

    def hook(mod, inp, outp):
        nonlocal x_cls, x_dist
        x_cls, x_dist = outp[:, 0], outp[:, 1]

    h = model.norm.register_forward_hook(hook)
    model(x)
    h.remove()
    F = lib.nn.functional
    y = lib.tensor([1, 2])
    loss = F.cross_entropy(model.head(x_cls), y) * 0.5 + 0.5 * F.cross_entropy(
        model.head_dist(x_dist), teacher.argmax(dim=1)
    )
    rec("hard", loss)
    T = 3.0
    soft = (
        F.kl_div(
            F.log_softmax(model.head_dist(x_dist) / T, dim=1),
            F.log_softmax(teacher / T, dim=1),
            reduction="sum",
            log_target=True,
        )
        * (T * T)
        / model.head_dist(x_dist).numel()
    )
    rec("soft", soft)
    (loss + soft).backward()
    rec("g_dist", model.dist_token.grad)
    rec("g_cls", model.cls_token.grad)
    rec("g_pos", model.pos_embed.grad)


def p_mlp_gelu(lib, dt, rec):
    lib.manual_seed(13)
    M = _models(lib)
    x = _randn(lib, dt, 44, 2, 3, 6).requires_grad_(True)
    for approx in ("none", "tanh"):
        m = M.Mlp(6, 12, approximate=approx).to(dt)
        x.grad = None
        out = m(x)
        out.pow(2).mean().backward()
        rec(approx, out)
        rec(approx + ".gx", x.grad)
        rec(approx + ".repr", repr(m.act))
    F = lib.nn.functional
    z = lib.linspace(-4, 4, 17, dtype=dt)
    rec("gelu", F.gelu(z))
    rec("gelu_tanh", F.gelu(z, approximate="tanh"))
    rec("quick_gelu", z * lib.sigmoid(1.702 * z))
    rec.err("gelu_bad", lambda: F.gelu(z, approximate="fast"))
    # SwiGLU-style gated MLP
    w12 = lib.nn.Linear(6, 16).to(dt)
    w3 = lib.nn.Linear(8, 6).to(dt)
    x1, x2 = w12(x).chunk(2, dim=-1)
    rec("swiglu", w3(F.silu(x1) * x2))
    # layer scale and dropout in eval
    gamma = lib.nn.Parameter(1e-5 * lib.ones(6, dtype=dt))
    rec("ls", x * gamma)
    rec("ls_mul_", x.detach().clone().mul_(gamma))
    drop = lib.nn.Dropout(0.1)
    drop.eval()
    rec("drop_eval", drop(x))


def p_mae_masking(lib, dt, rec):
    x = _randn(lib, dt, 45, 2, 8, 4)
    n, length, d = x.shape
    len_keep = int(length * (1 - 0.75))
    noise = lib.rand(n, length, generator=_gen(lib, 46), dtype=dt)
    ids_shuffle = lib.argsort(noise, dim=1)
    ids_restore = lib.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    x_masked = lib.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, d))
    mask = lib.ones([n, length], dtype=dt)
    mask[:, :len_keep] = 0
    mask = lib.gather(mask, dim=1, index=ids_restore)
    rec("ids_shuffle", ids_shuffle)
    rec("x_masked", x_masked)
    rec("mask", mask)
    # the decoder side: mask tokens appended and unshuffled
    mask_token = lib.zeros(1, 1, d, dtype=dt, requires_grad=True)
    xm = x_masked.clone().requires_grad_(True)
    mask_tokens = mask_token.repeat(n, ids_restore.shape[1] - xm.shape[1], 1)
    x_ = lib.cat([xm, mask_tokens], dim=1)
    x_ = lib.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).expand(-1, -1, d))
    rec("dec_in", x_)
    target = x
    mean = target.mean(dim=-1, keepdim=True)
    var = target.var(dim=-1, keepdim=True)
    target = (target - mean) / (var + 1.0e-6) ** 0.5
    loss = ((x_ - target) ** 2).mean(dim=-1)
    loss = (loss * mask).sum() / mask.sum()
    loss.backward()
    rec("loss", loss)
    rec("g_token", mask_token.grad)
    rec("g_xm", xm.grad)
    # random masking by topk and by multinomial-free randperm
    perm = lib.randperm(8, generator=_gen(lib, 47))
    rec("randperm", perm)
    vals, idx = noise.topk(2, dim=1, largest=False)
    rec("topk_idx", idx)
    rec("topk_vals", vals)


def p_roll(lib, dt, rec):
    x = _randn(lib, dt, 48, 2, 4, 5, 3).requires_grad_(True)
    for shifts, dims in [((-1, -1), (1, 2)), ((2, -3), (1, 2)), (3, 1), (-7, 2), ((1,), (0,))]:
        y = lib.roll(x, shifts=shifts, dims=dims)
        rec(f"r{shifts}{dims}", y)
    rec("flat", lib.roll(x, 4))
    rec("flat_neg", x.roll(-13))
    rec("method", x.roll((1, 2), (2, 3)))
    rec("dims_neg", x.roll(1, -1))
    y = lib.roll(x, shifts=(-1, -2), dims=(1, 2))
    (lib.roll(y, shifts=(1, 2), dims=(1, 2)) * _randn(lib, dt, 49, *x.shape)).sum().backward()
    rec("gx", x.grad)
    rec("grad_fn", type(y.grad_fn).__name__)
    # roll undone exactly
    rec("undo", bool(lib.equal(lib.roll(lib.roll(x, (1, 1), (1, 2)), (-1, -1), (1, 2)), x)))
    # roll of a non-contiguous view and of an empty tensor
    rec("noncontig", lib.roll(x.detach().transpose(1, 2), 1, 1))
    rec("empty", lib.roll(lib.zeros(0, 3, dtype=dt), 1, 0))
    rec("zero_d", lib.roll(lib.tensor(2.0, dtype=dt), 1))


def p_window_pad(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(14)
    ws = 3
    x = _randn(lib, dt, 50, 2, 5, 7, 4).requires_grad_(True)
    b, h, w, c = x.shape
    pad_r = (ws - w % ws) % ws
    pad_b = (ws - h % ws) % ws
    xp = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
    rec("shape", str(tuple(xp.shape)))
    hp, wp = xp.shape[1], xp.shape[2]
    wins = window_partition(xp, ws).view(-1, ws * ws, c)
    att = wins.softmax(1)
    y = window_reverse(att.view(-1, ws, ws, c), ws, hp, wp)
    y = y[:, :h, :w, :].contiguous()
    (y * _randn(lib, dt, 51, *y.shape)).sum().backward()
    rec("y", y)
    rec("gx", x.grad)
    # other padding modes on channels-first maps
    xc = x.detach().permute(0, 3, 1, 2)
    for mode in ("reflect", "replicate", "circular"):
        rec(mode, F.pad(xc, (0, pad_r, 0, pad_b), mode=mode))
    rec("const", F.pad(xc, (1, 1, 0, 1), value=-1.5))
    rec("neg_pad", F.pad(xc, (-1, 0, 0, -2)))
    rec.err("reflect_big", lambda: F.pad(xc, (0, 9), mode="reflect"))
    rec.err("odd", lambda: F.pad(xc, (1, 2, 3)))


def p_strides(lib, dt, rec):
    x = _randn(lib, dt, 52, 2, 4, 6, 3)
    v = x.view(2, 2, 2, 3, 2, 3)
    p = v.permute(0, 1, 3, 2, 4, 5)
    rec("stride_p", str(p.stride()))
    rec("contig_p", p.is_contiguous())
    c = p.contiguous()
    rec("stride_c", str(c.stride()))
    rec("same", c.data_ptr() == p.data_ptr())
    rec("same2", c.contiguous().data_ptr() == c.data_ptr())
    t = x.transpose(1, 2)
    rec("t_stride", str(t.stride()))
    rec("flat_t", t.flatten(2))
    rec("flatten_shares", x.flatten(1).data_ptr() == x.data_ptr())
    cl = x.permute(0, 3, 1, 2).contiguous(memory_format=lib.channels_last)
    rec("cl_stride", str(cl.stride()))
    rec("cl_contig", cl.is_contiguous(memory_format=lib.channels_last))
    rec("cl_contig_default", cl.is_contiguous())
    rec("size", str(x.size()))
    rec("size_neg", x.size(-1))
    rec("shape_type", type(x.shape).__name__)
    rec("numel", x.numel())
    # views keep sharing with their base after the window permute
    w = x.view(2, 2, 2, 2, 3, 3)
    w[0, 0, 0, 0, 0, 0] = 100.0
    rec("shared", x[0, 0, 0, 0])
    u = x.unfold(1, 2, 2)
    rec("unfold_stride", str(u.stride()))
    rec("unfold_contig", u.is_contiguous())
    rec("expand_stride", str(x[:, :1].expand(2, 3, 6, 3).stride()))


def p_param_groups(lib, dt, rec):
    lib.manual_seed(15)
    model = _models(lib).TinyViT().to(dt)
    skip = {"pos_embed", "cls_token"}
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if param.ndim <= 1 or name.endswith(".bias") or name in skip:
            no_decay.append(name)
        else:
            decay.append(name)
    rec("decay", str(decay))
    rec("no_decay", str(no_decay))
    params = dict(model.named_parameters())
    opt = lib.optim.AdamW(
        [
            {"params": [params[n] for n in no_decay], "weight_decay": 0.0},
            {"params": [params[n] for n in decay], "weight_decay": 0.05},
        ],
        lr=1e-3,
        betas=(0.9, 0.999),
    )
    # layer-wise lr decay by block id
    for g in opt.param_groups:
        g["lr"] = g["lr"] * 0.75
    x = _randn(lib, dt, 53, 2, 3, 8, 8)
    loss = model(x).logsumexp(-1).mean()
    loss.backward()
    rec.params("g", model, grads=True)
    opt.step()
    if dt == lib.float64:  # See _NOISE_STEP
        rec.params("p", model)
    rec("state_keys", str(sorted(opt.state_dict()["state"][0].keys())))
    rec("groups", str([sorted(k for k in g if k != "params") for g in opt.param_groups]))
    rec("n_groups", len(opt.param_groups))


def p_rel_bias_resize(lib, dt, rec):
    F = lib.nn.functional
    heads = 2
    src, dst = 3, 4
    table = _randn(lib, dt, 54, (2 * src - 1) ** 2, heads)
    t = table.permute(1, 0).reshape(1, heads, 2 * src - 1, 2 * src - 1)
    for mode in ("bicubic", "bilinear"):
        new = F.interpolate(t, size=(2 * dst - 1, 2 * dst - 1), mode=mode, align_corners=False)
        rec(mode, new.reshape(heads, -1).permute(1, 0))
    # the gradient flows back to the old table
    tg = table.clone().requires_grad_(True)
    tt = tg.permute(1, 0).reshape(1, heads, 5, 5)
    new = F.interpolate(tt, size=(7, 7), mode="bicubic", align_corners=True)
    new = new.reshape(heads, -1).permute(1, 0)
    idx = relative_position_index(lib, dst)
    bias = new[idx.view(-1)].view(16, 16, -1).permute(2, 0, 1)
    (bias * _randn(lib, dt, 55, heads, 16, 16)).sum().backward()
    rec("g", tg.grad)
    # timm's resize_rel_pos_bias_table with a torch.Size as size
    size = lib.Size([7, 7])
    rec("size_type", F.interpolate(t, size=size, mode="bilinear").shape == (1, 2, 7, 7))


def p_attn_hooks(lib, dt, rec):
    lib.manual_seed(16)
    M = _models(lib)
    blk = M.SwinBlock(8, (4, 4), 2, 2, 1).to(dt)
    maps = []

    def hook(mod, inp, out):
        maps.append(out.detach())

    h = blk.attn.softmax.register_forward_hook(hook)
    x = _randn(lib, dt, 56, 1, 16, 8)
    blk(x)
    h.remove()
    blk(x)
    rec("n", len(maps))
    rec("map", maps[0])
    rec("rowsum", maps[0].sum(-1))
    pre = []
    h = blk.attn.register_forward_pre_hook(
        lambda mod, args, kwargs: pre.append((tuple(args[0].shape), sorted(kwargs))),
        with_kwargs=True,
    )
    blk(x)
    h.remove()
    rec("pre", str(pre))
    # a full backward hook on the projection
    grads = []
    h = blk.attn.proj.register_full_backward_hook(lambda m, gi, go: grads.append(go[0]))
    xg = x.clone().requires_grad_(True)
    blk(xg).sum().backward()
    h.remove()
    rec("bw_hook", grads[0])
    rec("n_bw", len(grads))


def p_checkpoint_block(lib, dt, rec):
    lib.manual_seed(17)
    M = _models(lib)
    blk = M.SwinBlock(8, (4, 4), 2, 2, 1).to(dt)
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint")
    x = _randn(lib, dt, 57, 2, 16, 8).requires_grad_(True)
    up = _randn(lib, dt, 58, 2, 16, 8)
    out = ckpt.checkpoint(blk, x, use_reentrant=False)
    (out * up).sum().backward()
    rec("out", out)
    rec("gx", x.grad)
    g1 = [p.grad.clone() for p in blk.parameters()]
    blk.zero_grad()
    x.grad = None
    out2 = blk(x)
    (out2 * up).sum().backward()
    rec("same_out", _close(lib, out2, out))
    rec("same_g", all(_close(lib, a, p.grad) for a, p in zip(g1, blk.parameters(), strict=True)))
    seq = lib.nn.Sequential(*[M.SwinBlock(8, (4, 4), 2, 2, s % 2) for s in range(3)]).to(dt)
    x.grad = None
    out3 = ckpt.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    out3.pow(2).sum().backward()
    rec("seq", out3)
    rec("seq_gx", x.grad)


def p_sdpa_errors(lib, dt, rec):
    F = lib.nn.functional
    q = _randn(lib, dt, 59, 2, 2, 3, 4)
    k = _randn(lib, dt, 60, 2, 2, 5, 4)
    rec.err("qk_dim", lambda: F.scaled_dot_product_attention(q, k[..., :3], k[..., :3]))
    rec.err(
        "mask_shape",
        lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=lib.zeros(4, 5, dtype=dt)),
    )
    rec.err(
        "mask_dtype",
        lambda: F.scaled_dot_product_attention(q, k, k, attn_mask=lib.zeros(3, 5, dtype=lib.long)),
    )
    rec.err(
        "causal_and_mask",
        lambda: F.scaled_dot_product_attention(
            q, k, k, attn_mask=lib.zeros(3, 5, dtype=dt), is_causal=True
        ),
    )
    rec.err(
        "dtype_mix",
        lambda: F.scaled_dot_product_attention(
            q, k.float() if dt == lib.float64 else k.double(), k
        ),
    )
    rec.err(
        "batch",
        lambda: F.scaled_dot_product_attention(
            q, k[:1].expand(3, 2, 5, 4), k[:1].expand(3, 2, 5, 4)
        ),
    )
    rec.err(
        "gqa_heads",
        lambda: F.scaled_dot_product_attention(
            q,
            k[:, :1].expand(2, 3, 5, 4).contiguous(),
            k[:, :1].expand(2, 3, 5, 4).contiguous(),
            enable_gqa=True,
        ),
    )
    rec.err("softmax_dim", lambda: q.softmax(4))
    rec.err(
        "mha_shape",
        lambda: lib.nn.MultiheadAttention(4, 2, batch_first=True).to(dt)(
            q[0], k[0, :, :, :3], k[0]
        ),
    )


def p_saved_attrs(lib, dt, rec):
    """What graph drawers (torchviz's show_saved) read from the nodes of a Swin block's view
    ops, and the double-backward nodes of unfold and masked_fill."""

    def saved(tag, y):
        fn = y.grad_fn
        names = [k for k in dir(fn) if k.startswith("_saved_")]
        rec(tag + ".names", str(names))
        for k in names:
            v = getattr(fn, k)
            rec(f"{tag}.{k}", v if hasattr(v, "shape") else str(v))

    x = _randn(lib, dt, 61, 2, 4, 4, 3).requires_grad_(True)
    saved("roll", lib.roll(x, shifts=(-1, -1), dims=(1, 2)))
    saved("roll_back", lib.roll(x, shifts=(1, 2), dims=(2, 1)))
    saved("roll_flat", lib.roll(x, -5))
    saved("unfold", x.unfold(1, 2, 2))
    saved("unfold3", x.unfold(3, 1, 1))
    saved("flip", x.flip(0, 2))
    m = shift_attn_mask(lib, 4, 4, 2, 1, dt)
    att = _randn(lib, dt, 62, 4, 4, 4).requires_grad_(True)
    saved("masked_fill", att.masked_fill(m != 0, -100.0))
    saved("masked_fill_t", att.masked_fill(m != 0, lib.tensor(-100.0, dtype=dt)))
    qkv = _randn(lib, dt, 63, 3, 2, 2, 4, 4).requires_grad_(True)
    saved("unbind", qkv.unbind(0)[1])
    saved("stack", lib.stack([x, x], 1))
    saved("repeat", x.repeat(1, 1, 2, 1))
    saved("repeat_more", x[0].repeat(2, 1, 1, 2))
    saved("cat", lib.cat([x, x], 3))
    ln = lib.nn.LayerNorm(3).to(dt)
    y = ln(x)
    saved("layer_norm", y)
    rec("ln_is", str([y.grad_fn._saved_weight is ln.weight, y.grad_fn._saved_bias is ln.bias]))
    saved("layer_norm_2d", lib.nn.functional.layer_norm(x, (4, 3), eps=1e-6))
    y.sum().backward()
    rec("ln_shape_after", str(y.grad_fn._saved_normalized_shape))
    rec.err("ln_freed", lambda: y.grad_fn._saved_result1)
    # double backward: the gradient's node is the backward op's own
    for tag, f in (
        ("unfold", lambda t: t.unfold(1, 2, 2)),
        ("masked_fill", lambda t: t.masked_fill(t > 0, 2.0)),
        ("roll", lambda t: lib.roll(t, 1, 2)),
    ):
        (g,) = lib.autograd.grad(f(x).pow(3).sum(), x, create_graph=True)
        rec(f"gg.{tag}", g.grad_fn.name())
        rec(f"gg.{tag}.next", str([n.name() for n, _ in g.grad_fn.next_functions if n]))
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        rec(f"gg.{tag}.value", gg)


def p_checkpoint_drop_path(lib, dt, rec):
    """Activation checkpointing of a block with stochastic depth: the global RNG's state is
    restored for the recomputation (the same masks), an explicit generator's is not (it draws
    again, in torch as here)."""
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint")
    F = lib.nn.functional
    for reentrant in (False, True):
        lib.manual_seed(18)
        lin = lib.nn.Linear(4, 4).to(dt)
        x = _randn(lib, dt, 64, 6, 4).requires_grad_(True)
        gen = _gen(lib, 65)

        def f(x, lin=lin, gen=gen):
            y = lin(x)
            keep = y.new_empty((y.shape[0], 1)).bernoulli_(0.5)  # timm's drop_path: global RNG
            y = y * keep / 0.5 + F.dropout(y, 0.3, training=True)
            return drop_path(lib, y, 0.4, True, gen)

        out = ckpt.checkpoint(f, x, use_reentrant=reentrant)
        out.pow(2).sum().backward()
        tag = f"r{int(reentrant)}"
        rec(tag, out)
        rec(tag + ".gx", x.grad)
        rec.params(tag, lin, grads=True)
        rec(tag + ".rng_after", lib.rand(3, dtype=dt))
        rec(tag + ".gen_after", lib.rand(3, generator=gen, dtype=dt))


def p_mixup_cutmix(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 66, 4, 3, 8, 8)
    y = lib.tensor([0, 2, 1, 2])
    num_classes, smoothing, lam = 3, 0.1, 0.7
    off, on = smoothing / num_classes, 1.0 - smoothing + smoothing / num_classes
    y1 = lib.full((4, num_classes), off, dtype=dt).scatter_(1, y.view(-1, 1), on)
    y2 = y1.flip(0)
    # mixup
    xm = x * lam + x.flip(0).mul_(1.0 - lam)
    rec("mixup", xm)
    rec("target", y1 * lam + y2 * (1.0 - lam))
    # cutmix: a box pasted from the flipped batch, lambda corrected by its area
    yl, yh, xl, xh = 2, 6, 1, 5
    xc = x.clone()
    xc[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]
    lam_c = 1.0 - (yh - yl) * (xh - xl) / (8 * 8)
    rec("cutmix", xc)
    target = y1 * lam_c + y2 * (1.0 - lam_c)
    rec("one_hot", F.one_hot(y, num_classes))
    # soft-target cross entropy two ways
    lib.manual_seed(19)
    model = _models(lib).TinyViT().to(dt)
    logits = model(xc)
    soft = lib.sum(-target * F.log_softmax(logits, dim=-1), dim=-1).mean()
    rec("soft_ce", soft)
    rec("ce_probs", F.cross_entropy(logits, target))
    rec("ce_smooth", F.cross_entropy(logits, y, label_smoothing=smoothing))
    soft.backward()
    rec("g_pos", model.pos_embed.grad)
    rec("g_patch", model.patch_embed.proj.weight.grad)
    rec.err("ce_bad_probs", lambda: F.cross_entropy(logits, target[:, :2]))
    rec.err("one_hot_big", lambda: F.one_hot(lib.tensor([1, 3]), 3))


def p_model_ema(lib, dt, rec):
    import copy

    lib.manual_seed(20)
    model = _models(lib).TinySwin().to(dt)
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    rec("ema_buffers", str([n for n, _ in ema.named_buffers()]))
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    x = _randn(lib, dt, 67, 2, 3, 8, 8)
    y = lib.tensor([1, 0])
    decay = 0.9
    for step in range(2):
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        with lib.no_grad():
            msd = model.state_dict()
            for k, ev in ema.state_dict().items():
                ev.copy_(ev * decay + (1.0 - decay) * msd[k])
    with lib.no_grad():
        rec("ema_out", ema(x))
        ema2 = copy.deepcopy(model)
        lib._foreach_lerp_(list(ema2.parameters()), list(model.parameters()), 0.5)
        rec(
            "lerp_same",
            all(
                bool(lib.equal(a, b))
                for a, b in zip(ema2.parameters(), model.parameters(), strict=True)
            ),
        )
    rec("ema_grad_none", all(p.grad is None for p in ema.parameters()))
    rec.params("ema", ema)
    rec("drop_path_gen_copied", ema.layers[1].drop_path.gen is not model.layers[1].drop_path.gen)


def p_load_hooks(lib, dt, rec):
    """Checkpoint filters as Swin/ViT code writes them: a module resizing its relative bias
    table in _load_from_state_dict, a pre-hook dropping the buffers a checkpoint carries, a
    post-hook clearing the missing keys it expects."""
    nn = lib.nn
    F = nn.functional

    class Attn(nn.Module):
        def __init__(self, ws):
            super().__init__()
            self.table = nn.Parameter(lib.zeros((2 * ws - 1) ** 2, 2, dtype=dt))
            self.register_buffer("relative_position_index", relative_position_index(lib, ws))

        def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errors):
            k = prefix + "table"
            if k in sd and sd[k].shape != self.table.shape:
                n_old = int(math.sqrt(sd[k].shape[0]))
                n_new = int(math.sqrt(self.table.shape[0]))
                t = sd[k].permute(1, 0).reshape(1, -1, n_old, n_old)
                t = F.interpolate(t, size=(n_new, n_new), mode="bicubic", align_corners=False)
                sd[k] = t.reshape(-1, n_new * n_new).permute(1, 0)
            super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errors)

    src = nn.Sequential(Attn(3))
    with lib.no_grad():
        src[0].table.copy_(_randn(lib, dt, 68, 25, 2))
    sd = src.state_dict()
    rec("src_keys", str(list(sd)))
    dst = nn.Sequential(Attn(4))
    rec.err("strict_index", lambda: dst.load_state_dict(sd))
    calls = []

    def pre(module, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append((prefix, sorted(sd)))
        for k in [k for k in sd if k.endswith("relative_position_index")]:
            del sd[k]

    def post(module, incompatible):
        calls.append(str(incompatible))
        incompatible.missing_keys[:] = [
            k for k in incompatible.missing_keys if not k.endswith("relative_position_index")
        ]

    dst = nn.Sequential(Attn(4))
    h1 = dst[0].register_load_state_dict_pre_hook(pre)
    h2 = dst.register_load_state_dict_post_hook(post)
    res = dst.load_state_dict(dict(sd))
    rec("res", str(res))
    rec("calls", str(calls))
    rec("table", dst[0].table)
    h1.remove()
    h2.remove()
    rec.err("after_remove", lambda: dst.load_state_dict(dict(sd)))


def p_rope_2d(lib, dt, rec):
    """EVA-style 2-d rotary embeddings on the patch grid: per-axis frequencies, sin/cos tables
    by einsum/outer, repeat_interleave, rotate_half by stack/flatten, applied to q and k."""
    dim, heads, gh, gw = 8, 2, 3, 4
    half = dim // 2
    freqs = 1.0 / (10000 ** (lib.arange(0, half, 2, dtype=dt) / half))
    t_h = lib.arange(gh, dtype=dt)
    t_w = lib.arange(gw, dtype=dt)
    f_h = lib.einsum("i,j->ij", t_h, freqs).repeat_interleave(2, dim=-1)
    f_w = lib.outer(t_w, freqs).repeat_interleave(2, dim=-1)
    f = lib.cat([f_h[:, None, :].expand(gh, gw, -1), f_w[None, :, :].expand(gh, gw, -1)], -1)
    f = f.reshape(gh * gw, dim)
    cos, sin = f.cos(), f.sin()
    rec("cos", cos)
    rec("sin", sin)

    def rotate_half(x):
        x = x.unflatten(-1, (-1, 2))
        x1, x2 = x.unbind(dim=-1)
        return lib.stack((-x2, x1), dim=-1).flatten(-2)

    q = _randn(lib, dt, 69, 2, heads, gh * gw, dim).requires_grad_(True)
    k = _randn(lib, dt, 70, 2, heads, gh * gw, dim).requires_grad_(True)
    qr = q * cos + rotate_half(q) * sin
    kr = k * cos + rotate_half(k) * sin
    rec("qr", qr)
    # the relative property: scores depend on position differences only
    rec("norm_kept", _close(lib, qr.norm(dim=-1), q.norm(dim=-1)))
    attn = (qr @ kr.transpose(-2, -1)) * dim**-0.5
    out = attn.softmax(-1)
    (out * _randn(lib, dt, 71, *out.shape)).sum().backward()
    rec("attn", out)
    rec("gq", q.grad)
    rec("gk", k.grad)
    # with a cls token left unrotated
    x = _randn(lib, dt, 72, 2, heads, 1 + gh * gw, dim)
    xr = lib.cat([x[:, :, :1], x[:, :, 1:] * cos + rotate_half(x[:, :, 1:]) * sin], dim=2)
    rec("cls_rope", xr)
    # (the view_as_complex / polar form: complex dtypes are a documented gap, README)


def p_token_pruning(lib, dt, rec):
    """EViT/DynamicViT-style token pruning: keep the patch tokens the cls token attends to
    most (topk of distinct scores), gather them with an expanded index, fuse the rest into one
    token weighted by attention, and the gradients through the gather."""
    x = _randn(lib, dt, 73, 2, 1 + 8, 4).requires_grad_(True)
    attn = _rand(lib, dt, 74, 2, 2, 9, 9).softmax(-1)
    cls_attn = attn[:, :, 0, 1:].mean(dim=1)  # (B, N)
    keep = 5
    _, idx = lib.topk(cls_attn, keep, dim=1, largest=True, sorted=True)
    rec("idx", idx)
    index = idx.unsqueeze(-1).expand(-1, -1, x.shape[-1])
    tokens = x[:, 1:]
    kept = lib.gather(tokens, dim=1, index=index)
    rec("kept", kept)
    mask = lib.ones_like(cls_attn, dtype=lib.bool).scatter_(1, idx, False)
    rest = tokens[mask].view(2, -1, 4)
    w = cls_attn[mask].view(2, -1, 1)
    fused = (rest * w).sum(1, keepdim=True) / w.sum(1, keepdim=True)
    y = lib.cat([x[:, :1], kept, fused], dim=1)
    rec("y", y)
    (y * _randn(lib, dt, 75, *y.shape)).sum().backward()
    rec("gx", x.grad)
    # the same keep by sort + index_select per batch, and by take_along_dim
    order = cls_attn.argsort(dim=1, descending=True)[:, :keep]
    rec("same_idx", bool(lib.equal(order, idx)))
    rec("take", lib.take_along_dim(tokens.detach(), order.unsqueeze(-1), dim=1))
    rec.err("gather_bad", lambda: lib.gather(tokens, 1, idx))
    rec.err("gather_dtype", lambda: lib.gather(tokens, 1, index.float()))


def p_autocast_bf16(lib, dt, rec):
    lib.manual_seed(21)
    M = _models(lib)
    x = _randn(lib, dt, 76, 2, 16, 8).requires_grad_(True)
    for tag, fused in (("manual", False), ("sdpa", True)):
        blk = M.SwinBlock(8, (4, 4), 2, 2, 1, fused=fused)
        x.grad = None
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = blk(x)
            rec(tag + ".dtype", str(out.dtype))
        out.float().pow(2).sum().backward()
        rec(tag, out.float())
        rec(tag + ".gx", x.grad)
        rec.params(tag, blk, grads=True)
    blk = M.SwinBlock(8, (4, 4), 2, 2, 1).to(lib.bfloat16)
    out = blk(x.detach().bfloat16())
    rec("bf16_model", out.float())
    rec("bf16_model.dtype", str(out.dtype))
