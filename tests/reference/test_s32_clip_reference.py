"""Session 32 (helper clip): CLIP-style contrastive image-text programs written the way
open_clip/OpenAI CLIP code is written in torch, run under torch and minitorch with the same seeds
and compared record by record: a small ViT image tower (patch embedding by a strided Conv2d,
unfold patchify, class token cat, positional embeddings, pre-norm residual blocks over
nn.MultiheadAttention or hand-written SDPA, QuickGELU), a causal text tower (nn.Embedding,
triu/fill_ masks, features at the argmax of the token ids, CoOp prompt vectors), a
ModifiedResNet with AttentionPool2d (F.multi_head_attention_forward with separate projections),
F.normalize, a learnable logit_scale (exp, clamp to 100, in-place clamp of .data), the symmetric
cross-entropy loss (label smoothing, soft and duplicate-aware targets, local/global gathered
losses, caption loss with ignore_index), SigLIP's sigmoid loss (F.logsigmoid, chunked negatives),
zero-shot classification (prompt ensembles, top-k accuracy), retrieval recall@k (argsort, topk,
ties), linear probes (LBFGS, Adam over a DataLoader, ridge by solve/cholesky/lstsq), AdamW with
decay/no-decay parameter groups, flags and state dicts, LambdaLR warmup+cosine, SequentialLR,
OneCycleLR and warm restarts with resumption, gradient accumulation and cached-feature
accumulation, gradient clipping, EMA/AveragedModel, locked towers, checkpointing, fp16 weight
conversion and CPU autocast, image preprocessing (antialiased bicubic resize, crop, normalise),
patch dropout, attention-map hooks, state_dict save/load/resize/prefix surgery, WiSE-FT weight
interpolation, zero-shot heads, dropout RNG streams, reprs and the errors users hit (shapes,
dtypes, masks, optimizer and scheduler arguments). float64 must agree to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly.

Found and fixed:
- F.layer_norm / nn.LayerNorm compared shapes before refusing a mixed-dtype call (a float64
  input into a float32 LayerNorm of the wrong width named the shape); torch refuses the mixed
  dtypes first (nn/_functional_norm.py layer_norm).
- F.multi_head_attention_forward reshaped the output projection's result to the embedding
  width, so an out_proj of another width (CLIP's AttentionPool2d c_proj to output_dim) raised a
  reshape error; it now keeps the projection's width (nn/_functional_mha.py).

Known and left (documented):
- float32 exp is NumPy's: an ulp off the correctly rounded value in ~40% of the elements, where
  torch's kernels are within ~1%. exp(log(100)) is 100.0 here and 100.0000076 in torch, so
  `logit_scale.exp().clamp(max=100)` with the parameter on its cap passes a gradient here and
  none in torch. Not fixed: computing float32 exp in float64 costs 40% on the pointwise benchmark,
  and doing so only for short or 0-d tensors gives an element other bits in one tensor than in
  another (tests/test_s20_perf_activations.py checks that they agree). The programs clamp the
  parameter (as open_clip does), not exp(). NumPy's float32 log, sin, cos and tanh are ulp-off
  torch's likewise (compared at float32 tolerance); float32 softmax/sums differ in the last bits.
- nn.Embedding(sparse=True) gives dense gradients (minitorch has no sparse layouts; see
  minitorch/nn/modules/sparse.py): the program records the gradient's values, not its layout.
- torch.distributed.is_available() is False here (no backend); the program records the
  `is_available() and is_initialized()` guard CLIP code uses, which is False in both."""

from __future__ import annotations

import copy
import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "patch_embed", "vit_forward", "text_forward", "causal_mask", "clip_loss", "logit_scale",
    "siglip_loss", "zero_shot", "retrieval_recall", "linear_probe", "param_groups",
    "cosine_warmup", "grad_accum", "state_dict_roundtrip", "errors", "sdpa_blocks",
    "mha_internals", "quick_gelu", "eot_pooling", "init_params", "siglip_chunked",
    "normalize_edges", "loss_variants", "attention_pool", "modified_resnet", "half_weights",
    "locked_tower", "checkpointed", "preprocess", "tokenize_pad", "caption_loss", "ema",
    "local_loss", "scheduler_resume", "prompt_learning", "patch_dropout", "attention_maps",
    "reprs", "promotion", "ridge_probe", "soft_targets", "autocast", "clip_grad", "more_errors",
    "transformer_layer", "ranking_ops", "optim_flags", "numerics", "settings",
    "optimizer_state", "error_sweep", "data_and_patches", "train_loop", "dropout_rng",
    "wise_ft",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _quick_gelu(lib):
    class QuickGELU(lib.nn.Module):
        def forward(self, x):
            return x * lib.sigmoid(1.702 * x)

    return QuickGELU


def _resblock(lib, d, heads, use_sdpa=False):
    nn = lib.nn
    QuickGELU = _quick_gelu(lib)

    class ResidualAttentionBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d)
            if use_sdpa:
                self.qkv = nn.Linear(d, 3 * d)
                self.proj = nn.Linear(d, d)
            else:
                self.attn = nn.MultiheadAttention(d, heads)
            self.ln_2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, d * 4), QuickGELU(), nn.Linear(d * 4, d))

        def attention(self, x, mask):
            if not use_sdpa:
                return self.attn(x, x, x, need_weights=False, attn_mask=mask)[0]
            # x: (L, N, D) -> (N, H, L, Dh)
            L, N, D = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            q, k, v = (t.reshape(L, N, heads, D // heads).permute(1, 2, 0, 3) for t in (q, k, v))
            out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            return self.proj(out.permute(2, 0, 1, 3).reshape(L, N, D))

        def forward(self, x, mask=None):
            x = x + self.attention(self.ln_1(x), mask)
            return x + self.mlp(self.ln_2(x))

    return ResidualAttentionBlock


def _vit(lib, width=16, layers=2, heads=2, patch=4, image=8, out_dim=8, sdpa=False):
    nn = lib.nn
    Block = _resblock(lib, width, heads, sdpa)

    class VisionTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, width, kernel_size=patch, stride=patch, bias=False)
            scale = width**-0.5
            self.class_embedding = nn.Parameter(scale * lib.randn(width))
            n = (image // patch) ** 2 + 1
            self.positional_embedding = nn.Parameter(scale * lib.randn(n, width))
            self.ln_pre = nn.LayerNorm(width)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_post = nn.LayerNorm(width)
            self.proj = nn.Parameter(scale * lib.randn(width, out_dim))

        def forward(self, x):
            x = self.conv1(x)
            x = x.reshape(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
            cls = self.class_embedding.to(x.dtype) + lib.zeros(
                x.shape[0], 1, x.shape[-1], dtype=x.dtype, device=x.device
            )
            x = lib.cat([cls, x], dim=1)
            x = x + self.positional_embedding.to(x.dtype)
            x = self.ln_pre(x).permute(1, 0, 2)
            for b in self.blocks:
                x = b(x)
            x = x.permute(1, 0, 2)
            x = self.ln_post(x[:, 0, :])
            return x @ self.proj

    return VisionTransformer


def _text(lib, vocab=20, ctx=6, width=16, layers=2, heads=2, out_dim=8, sdpa=False):
    nn = lib.nn
    Block = _resblock(lib, width, heads, sdpa)

    class TextTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding = nn.Embedding(vocab, width)
            self.positional_embedding = nn.Parameter(lib.empty(ctx, width))
            nn.init.normal_(self.positional_embedding, std=0.01)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_final = nn.LayerNorm(width)
            self.text_projection = nn.Parameter(lib.empty(width, out_dim))
            nn.init.normal_(self.text_projection, std=width**-0.5)
            self.register_buffer("attn_mask", self.build_attention_mask(), persistent=False)

        def build_attention_mask(self):
            mask = lib.empty(ctx, ctx)
            mask.fill_(float("-inf"))
            mask.triu_(1)
            return mask

        def forward(self, text):
            x = self.token_embedding(text)
            x = x + self.positional_embedding
            x = x.permute(1, 0, 2)
            for b in self.blocks:
                x = b(x, self.attn_mask.to(x.dtype))
            x = x.permute(1, 0, 2)
            x = self.ln_final(x)
            x = x[lib.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
            return x

    return TextTransformer


def _clip(lib, dt, sdpa=False):
    nn = lib.nn
    Vit = _vit(lib, sdpa=sdpa)
    Txt = _text(lib, sdpa=sdpa)

    class CLIP(nn.Module):
        def __init__(self):
            super().__init__()
            self.visual = Vit()
            self.text = Txt()
            self.logit_scale = nn.Parameter(lib.ones([]) * math.log(1 / 0.07))

        def encode_image(self, x):
            return self.visual(x)

        def encode_text(self, t):
            return self.text(t)

        def forward(self, image, text):
            img = lib.nn.functional.normalize(self.encode_image(image), dim=-1)
            txt = lib.nn.functional.normalize(self.encode_text(text), dim=-1)
            return img, txt, self.logit_scale.exp()

    return CLIP().to(dt)


def _tokens(lib, n, ctx=6, vocab=20, g=None):
    # each caption: <sot>=1, random body, <eot>=vocab-1 (the largest id), zero padding
    lens = lib.randint(1, ctx - 1, (n,), generator=g)
    body = lib.randint(2, vocab - 2, (n, ctx), generator=g)
    pos = lib.arange(ctx).unsqueeze(0)
    toks = lib.where(pos <= lens.unsqueeze(1), body, lib.zeros_like(body))
    toks[:, 0] = 1
    toks[lib.arange(n), lens] = vocab - 1
    return toks


def _clip_loss(lib, img, txt, scale):
    F = lib.nn.functional
    logits_per_image = scale * img @ txt.t()
    logits_per_text = logits_per_image.t()
    labels = lib.arange(img.shape[0], device=img.device)
    return (
        F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)
    ) / 2


# --- the programs: each takes the library, a dtype and a recorder ---


def p_patch_embed(lib, dt, rec):
    lib.manual_seed(0)
    conv = lib.nn.Conv2d(3, 6, kernel_size=4, stride=4, bias=False).to(dt)
    x = lib.randn(2, 3, 8, 12, dtype=dt, requires_grad=True)
    y = conv(x)
    rec("y.shape", str(tuple(y.shape)))
    tokens = y.flatten(2).transpose(1, 2)
    rec("tokens", tokens)
    rec("contig", tokens.is_contiguous())
    cls = lib.zeros(2, 1, 6, dtype=dt)
    seq = lib.cat([cls, tokens], dim=1)
    rec("seq", seq)
    seq.sum().backward()
    rec("gx", x.grad)
    rec("gw", conv.weight.grad)
    # unfold-based patchify gives the same result
    patches = x.detach().unfold(2, 4, 4).unfold(3, 4, 4)
    rec("patches.shape", str(tuple(patches.shape)))
    p = patches.permute(0, 2, 3, 1, 4, 5).reshape(2, -1, 3 * 16)
    rec("linear_patch", p @ conv.weight.detach().reshape(6, -1).t())
    # image size not divisible by the patch: conv floors
    rec("odd", str(tuple(conv(lib.randn(1, 3, 10, 9, dtype=dt)).shape)))
    rec("small", rec.err("small", lambda: conv(lib.randn(1, 3, 3, 3, dtype=dt))))


def p_vit_forward(lib, dt, rec):
    lib.manual_seed(1)
    vit = _vit(lib)().to(dt)
    x = lib.randn(3, 3, 8, 8, dtype=dt)
    out = vit(x)
    rec("out", out)
    out.pow(2).sum().backward()
    rec.params("vit", vit, grads=True)
    rec("n_params", sum(p.numel() for p in vit.parameters()))
    rec("names", str([n for n, _ in vit.named_parameters()][:8]))


def p_text_forward(lib, dt, rec):
    lib.manual_seed(2)
    txt = _text(lib)().to(dt)
    toks = _tokens(lib, 4)
    rec("toks", toks)
    rec("eot", toks.argmax(dim=-1))
    out = txt(toks)
    rec("out", out)
    out.sum().backward()
    rec("g_emb", txt.token_embedding.weight.grad)
    rec("g_pos", txt.positional_embedding.grad)
    rec("buffers", str([n for n, _ in txt.named_buffers()]))
    rec("sd_keys", str([k for k in txt.state_dict() if "mask" in k]))


def p_causal_mask(lib, dt, rec):
    ctx = 5
    m = lib.empty(ctx, ctx, dtype=dt)
    m.fill_(float("-inf"))
    m.triu_(1)
    rec("mask", m)
    m2 = lib.full((ctx, ctx), float("-inf"), dtype=dt).triu(diagonal=1)
    rec("eq", lib.equal(m, m2))
    b = lib.ones(ctx, ctx, dtype=lib.bool).triu(1)
    rec("bool", b)
    lib.manual_seed(3)
    s = lib.randn(2, ctx, ctx, dtype=dt)
    rec("softmax", (s + m).softmax(-1))
    rec("masked_fill", s.masked_fill(b, float("-inf")).softmax(-1))
    rec("tril", lib.tril(lib.ones(ctx, ctx, dtype=dt)))
    q = lib.randn(2, 2, ctx, 4, dtype=dt)
    k = lib.randn(2, 2, ctx, 4, dtype=dt)
    v = lib.randn(2, 2, ctx, 4, dtype=dt)
    F = lib.nn.functional
    a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    b2 = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    b3 = F.scaled_dot_product_attention(q, k, v, attn_mask=~b)
    rec("sdpa_causal", a)
    rec("sdpa_float", b2)
    rec("sdpa_bool", b3)
    rec(
        "both",
        rec.err(
            "both", lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True)
        ),
    )


def p_clip_loss(lib, dt, rec):
    lib.manual_seed(4)
    model = _clip(lib, dt)
    img = lib.randn(4, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 4)
    i, t, s = model(img, toks)
    rec("img_norm", i.norm(dim=-1))
    rec("scale", s)
    loss = _clip_loss(lib, i, t, s)
    rec("loss", loss)
    loss.backward()
    rec("g_scale", model.logit_scale.grad)
    rec("g_cls", model.visual.class_embedding.grad)
    rec("g_tproj", model.text.text_projection.grad)
    with lib.no_grad():
        logits = s * i @ t.T
        rec("acc_i2t", (logits.argmax(dim=1) == lib.arange(4)).float().mean())
        rec("probs", logits.softmax(dim=-1))


def p_logit_scale(lib, dt, rec):
    ls = lib.nn.Parameter(lib.ones([], dtype=dt) * math.log(1 / 0.07))
    rec("init", ls)
    rec("exp", ls.exp())
    opt = lib.optim.SGD([ls], lr=10.0)
    for step in range(3):
        # open_clip clamps the parameter itself (exp(log(100)) on the cap is an ulp off torch's
        # in float32, so a second clamp of exp() at 100 would compare ulps: see the docstring)
        scale = ls.exp()
        loss = -scale
        opt.zero_grad()
        loss.backward()
        rec(f"grad{step}", ls.grad)
        opt.step()
        with lib.no_grad():
            ls.clamp_(0, math.log(100))
        rec(f"ls{step}", ls)
    # clamp on exp: gradient vanishes above the cap
    x = lib.tensor(5.0, dtype=dt, requires_grad=True)
    y = lib.clamp(x.exp(), max=100)
    y.backward()
    rec("capped_grad", x.grad)
    rec("capped", y)
    rec("data_clamp", ls.data.clamp_(0, 4.6052))
    rec("repr", repr(lib.nn.Parameter(lib.tensor(2.6593, dtype=dt))))


def p_siglip_loss(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(5)
    n, d = 5, 8
    img = F.normalize(lib.randn(n, d, dtype=dt), dim=-1).requires_grad_()
    txt = F.normalize(lib.randn(n, d, dtype=dt), dim=-1).requires_grad_()
    t_prime = lib.nn.Parameter(lib.tensor(math.log(10.0), dtype=dt))
    bias = lib.nn.Parameter(lib.tensor(-10.0, dtype=dt))
    logits = img @ txt.T * t_prime.exp() + bias
    labels = 2 * lib.eye(n, dtype=dt) - lib.ones(n, n, dtype=dt)
    loss = -F.logsigmoid(labels * logits).sum() / n
    rec("loss", loss)
    loss.backward()
    rec("g_img", img.grad)
    rec("g_t", t_prime.grad)
    rec("g_b", bias.grad)
    # equivalent with BCE-with-logits
    tgt = lib.eye(n, dtype=dt)
    bce = F.binary_cross_entropy_with_logits(logits.detach(), tgt, reduction="sum") / n
    rec("bce", bce)
    rec("softplus", F.softplus(-labels * logits.detach()).sum() / n)
    big = lib.tensor([-1000.0, 0.0, 1000.0], dtype=dt)
    rec("logsigmoid_ext", F.logsigmoid(big))
    rec("module", lib.nn.LogSigmoid()(big))


def p_zero_shot(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(6)
    model = _clip(lib, dt).eval()
    n_cls, n_tmpl = 4, 3
    with lib.no_grad():
        weights = []
        for _ in range(n_cls):
            toks = _tokens(lib, n_tmpl)
            emb = model.encode_text(toks)
            emb = emb / emb.norm(dim=-1, keepdim=True)
            emb = emb.mean(dim=0)
            emb /= emb.norm()
            weights.append(emb)
        zeroshot = lib.stack(weights, dim=1)
        rec("weights", zeroshot)
        images = lib.randn(6, 3, 8, 8, dtype=dt)
        feats = F.normalize(model.encode_image(images), dim=-1)
        logits = 100.0 * feats @ zeroshot
        rec("logits", logits)
        target = lib.tensor([0, 1, 2, 3, 0, 1])
        pred = logits.topk(2, 1, True, True)[1].t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        rec("top1", correct[:1].reshape(-1).float().sum(0, keepdim=True))
        rec("top2", correct[:2].reshape(-1).float().sum(0, keepdim=True))
        probs = logits.softmax(dim=-1)
        vals, idx = probs[0].topk(3)
        rec("vals", vals)
        rec("idx", idx)
        rec("pct", [f"{100 * v.item():.2f}%" for v in vals])


def p_retrieval_recall(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(7)
    n = 8
    img = F.normalize(lib.randn(n, 6, dtype=dt), dim=-1)
    txt = F.normalize(img + 0.8 * lib.randn(n, 6, dtype=dt), dim=-1)
    sim = img @ txt.T
    rec("sim", sim)
    ranks = sim.argsort(dim=1, descending=True)
    gt = lib.arange(n).view(-1, 1)
    pos = (ranks == gt).nonzero()[:, 1]
    rec("pos", pos)
    for k in (1, 3, 5):
        rec(f"r@{k}", (pos < k).float().mean().item())
        topk = sim.topk(k, dim=1).indices
        rec(f"hit@{k}", (topk == gt).any(dim=1).sum())
    t2i = sim.T.topk(3, dim=1)
    rec("t2i.values", t2i.values)
    rec("t2i.indices", t2i.indices)
    rec("mean_rank", (pos.float() + 1).mean())
    rec("median_rank", (pos + 1).median())
    # multiple captions per image: caption j belongs to image j // 2
    txt2 = F.normalize(lib.randn(2 * n, 6, dtype=dt), dim=-1)
    s2 = img @ txt2.T
    owner = lib.arange(2 * n) // 2
    top = s2.T.argmax(dim=1)
    rec("t2i_acc", (top == owner).float().mean())
    best = s2.topk(5, dim=1).indices
    rec("i2t_r5", (owner[best] == lib.arange(n).unsqueeze(1)).any(1).float().mean())


def p_linear_probe(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(8)
    feats = lib.randn(40, 8, dtype=dt)
    w_true = lib.randn(8, 3, dtype=dt)
    labels = (feats @ w_true).argmax(1)
    probe = nn.Linear(8, 3).to(dt)
    opt = lib.optim.LBFGS(probe.parameters(), lr=1, max_iter=20)

    def closure():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(probe(feats), labels) + 1e-3 * probe.weight.pow(2).sum()
        loss.backward()
        return loss

    for _ in range(2):
        rec("lbfgs_loss", opt.step(closure))
    rec("acc", (probe(feats).argmax(1) == labels).float().mean())
    probe2 = nn.Linear(8, 3).to(dt)
    opt2 = lib.optim.Adam(probe2.parameters(), lr=0.05, weight_decay=1e-4)
    ds = lib.utils.data.TensorDataset(feats, labels)
    dl = lib.utils.data.DataLoader(
        ds, batch_size=16, shuffle=True, generator=lib.Generator().manual_seed(0)
    )
    for ep in range(3):
        tot = 0.0
        for xb, yb in dl:
            opt2.zero_grad()
            loss = nn.functional.cross_entropy(probe2(xb), yb, label_smoothing=0.1)
            loss.backward()
            opt2.step()
            tot += loss.item() * len(xb)
        rec(f"ep{ep}", tot / len(ds))
    rec.params("probe2", probe2)


def p_param_groups(lib, dt, rec):
    lib.manual_seed(9)
    model = _clip(lib, dt)
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or "bn" in n or "ln" in n or "bias" in n or "logit_scale" in n:
            no_decay.append(p)
        else:
            decay.append(p)
    rec("counts", [len(decay), len(no_decay)])
    opt = lib.optim.AdamW(
        [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": 0.2}],
        lr=1e-3,
        betas=(0.9, 0.98),
        eps=1e-6,
    )
    rec("groups", str([(g["weight_decay"], len(g["params"])) for g in opt.param_groups]))
    rec("defaults", str(sorted(opt.defaults.items())))
    lib.manual_seed(9)
    img = lib.randn(4, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 4)
    for _ in range(2):
        opt.zero_grad()
        i, t, s = model(img, toks)
        loss = _clip_loss(lib, i, t, s)
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("ls", model.logit_scale)
    rec("proj", model.visual.proj)
    st = opt.state_dict()
    rec("state_keys", str(sorted(st["state"][0].keys())))
    rec("step", st["state"][0]["step"])
    dup = rec.err("dup", lambda: lib.optim.AdamW([{"params": decay}, {"params": decay[:1]}]))
    rec("dup_", str(dup is None))


def p_cosine_warmup(lib, dt, rec):
    p = lib.nn.Parameter(lib.zeros(2, dtype=dt))
    opt = lib.optim.AdamW([p], lr=5e-4, weight_decay=0.1)
    warmup, total = 3, 10

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1 + math.cos(math.pi * progress))

    sched = lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    lrs = []
    for _ in range(total):
        p.grad = lib.ones(2, dtype=dt)
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    rec("lrs", lrs)
    rec("p", p)
    rec("sd", str(sorted(k for k in sched.state_dict() if k != "lr_lambdas")))
    # open_clip style: assign lr by hand each step
    opt2 = lib.optim.AdamW([lib.nn.Parameter(lib.zeros(1, dtype=dt))], lr=1.0)
    hand = []
    for step in range(total):
        lr = (
            1e-3 * (step + 1) / warmup
            if step < warmup
            else 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))) * 1e-3
        )
        for g in opt2.param_groups:
            g["lr"] = lr
        hand.append(opt2.param_groups[0]["lr"])
    rec("hand", hand)
    # warmup + cosine via SequentialLR
    opt3 = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1, dtype=dt))], lr=0.1)
    s1 = lib.optim.lr_scheduler.LinearLR(opt3, start_factor=0.1, total_iters=warmup)
    s2 = lib.optim.lr_scheduler.CosineAnnealingLR(opt3, T_max=total - warmup, eta_min=1e-4)
    seq = lib.optim.lr_scheduler.SequentialLR(opt3, [s1, s2], milestones=[warmup])
    got = []
    for _ in range(total):
        opt3.step()
        seq.step()
        got.append(opt3.param_groups[0]["lr"])
    rec("seq", got)


def p_grad_accum(lib, dt, rec):
    lib.manual_seed(10)
    model = _clip(lib, dt)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    img = lib.randn(6, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 6)
    accum = 3
    opt.zero_grad()
    for k in range(accum):
        sl = slice(2 * k, 2 * k + 2)
        i, t, s = model(img[sl], toks[sl])
        loss = _clip_loss(lib, i, t, s) / accum
        loss.backward()
        rec(f"loss{k}", loss)
    rec("g_ls", model.logit_scale.grad)
    norm = lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    rec("norm", norm)
    rec("g_ls_clipped", model.logit_scale.grad)
    opt.step()
    rec("conv1", model.visual.conv1.weight)
    # open_clip's cached-feature accumulation: features without grad, then recompute one chunk
    with lib.no_grad():
        feats = [model(img[2 * k : 2 * k + 2], toks[2 * k : 2 * k + 2]) for k in range(accum)]
    all_i = lib.cat([f[0] for f in feats])
    all_t = lib.cat([f[1] for f in feats])
    opt.zero_grad()
    i, t, s = model(img[:2], toks[:2])
    ii = lib.cat([i, all_i[2:]])
    tt = lib.cat([t, all_t[2:]])
    loss = _clip_loss(lib, ii, tt, s)
    loss.backward()
    rec("cached_loss", loss)
    rec("cached_g", model.visual.proj.grad)


def p_state_dict_roundtrip(lib, dt, rec):
    lib.manual_seed(11)
    model = _clip(lib, dt)
    sd = model.state_dict()
    rec("keys", str(list(sd.keys())[:12]))
    rec("nkeys", len(sd))
    rec("ls_shape", str(tuple(sd["logit_scale"].shape)))
    buf = io.BytesIO()
    lib.save({"model": sd, "epoch": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("epoch", ck["epoch"])
    m2 = _clip(lib, dt)
    res = m2.load_state_dict(ck["model"])
    rec("res", str(res))
    rec(
        "same",
        all(lib.equal(a, b) for a, b in zip(model.parameters(), m2.parameters(), strict=True)),
    )
    # "module." prefix from DataParallel
    pref = {"module." + k: v for k, v in sd.items()}
    rec.err("prefix_err", lambda: m2.load_state_dict(pref))
    fixed = {k[len("module.") :]: v for k, v in pref.items() if k.startswith("module.")}
    rec("fixed", str(m2.load_state_dict(fixed)))
    # drop the text tower, load non-strict
    vis = {k: v for k, v in sd.items() if k.startswith("visual.")}
    r = m2.load_state_dict(vis, strict=False)
    rec("missing", str(r.missing_keys[:4]))
    rec("n_missing", len(r.missing_keys))
    # wrong positional embedding size
    bad = dict(sd)
    bad["visual.positional_embedding"] = lib.zeros(7, 16, dtype=dt)
    rec.err("size", lambda: m2.load_state_dict(bad))
    # resize by interpolation, as when changing image size
    pe = sd["visual.positional_embedding"]
    cls_pe, grid = pe[:1], pe[1:]
    g = grid.reshape(1, 2, 2, -1).permute(0, 3, 1, 2)
    g = lib.nn.functional.interpolate(g, size=(3, 3), mode="bicubic", align_corners=False)
    new = lib.cat([cls_pe, g.permute(0, 2, 3, 1).reshape(9, -1)])
    rec("resized", new)
    m3 = copy.deepcopy(model)
    rec("deepcopy", lib.equal(m3.logit_scale, model.logit_scale))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(12)
    a = lib.randn(4, 8, dtype=dt)
    b = lib.randn(5, 6, dtype=dt)
    rec.err("sim_shape", lambda: a @ b.T)
    rec.err("ce_labels_dtype", lambda: F.cross_entropy(a, lib.arange(4).float()))
    rec.err("ce_labels_oob", lambda: F.cross_entropy(a[:, :3], lib.arange(4)))
    rec.err("ce_batch", lambda: F.cross_entropy(a, lib.arange(3)))
    rec.err("emb_oob", lambda: nn.Embedding(5, 3)(lib.tensor([[1, 5]])))
    rec.err("emb_float", lambda: nn.Embedding(5, 3)(lib.tensor([1.0])))
    mha = nn.MultiheadAttention(8, 2).to(dt)
    x = lib.randn(3, 2, 8, dtype=dt)
    rec.err("mha_heads", lambda: nn.MultiheadAttention(8, 3))
    rec.err("mha_mask", lambda: mha(x, x, x, attn_mask=lib.zeros(4, 4, dtype=dt)))
    rec.err("mha_mask_dtype", lambda: mha(x, x, x, attn_mask=lib.zeros(3, 3, dtype=lib.int64)))
    rec.err("mha_dtype", lambda: mha(x.float() if dt == lib.float64 else x.double(), x, x))
    rec.err("conv_channels", lambda: nn.Conv2d(3, 4, 2, 2).to(dt)(lib.randn(1, 4, 4, 4, dtype=dt)))
    rec.err("normalize_dim", lambda: F.normalize(a, dim=2))
    rec.err("cat_shape", lambda: lib.cat([lib.zeros(2, 1, 8), lib.zeros(2, 4, 6)], dim=1))
    rec.err("ln_shape", lambda: nn.LayerNorm(16)(a))
    rec.err("topk_big", lambda: a.topk(9, dim=1))
    rec.err("argmax_float_index", lambda: a[lib.arange(4), a.argmax(-1).float()])
    ls = nn.Parameter(lib.tensor(1.0))
    rec.err("inplace_leaf", lambda: ls.clamp_(0, 4.6))
    rec.err("item_multi", lambda: a.item())
    rec.err("sdpa_shape", lambda: F.scaled_dot_product_attention(a[None], b[None], b[None]))


def p_sdpa_blocks(lib, dt, rec):
    lib.manual_seed(13)
    model = _clip(lib, dt, sdpa=True)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    img = lib.randn(3, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 3)
    for _ in range(2):
        i, t, s = model(img, toks)
        loss = _clip_loss(lib, i, t, s)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("qkv_g", model.text.blocks[0].qkv.weight.grad)
    rec("pos", model.visual.positional_embedding)


def p_mha_internals(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(14)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    rec("repr", repr(mha))
    rec("keys", str(list(mha.state_dict().keys())))
    x = lib.randn(2, 5, 8, dtype=dt)
    kpm = lib.tensor([[False, False, False, True, True], [False] * 5])
    out, w = mha(x, x, x, key_padding_mask=kpm)
    rec("out", out)
    rec("w", w)
    out2, w2 = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
    rec("w_heads", w2)
    rec("w_none", str(mha(x, x, x, need_weights=False)[1]))
    # by hand from in_proj_weight
    q, k, v = F.linear(x, mha.in_proj_weight, mha.in_proj_bias).chunk(3, dim=-1)
    q, k, v = (t.reshape(2, 5, 2, 4).transpose(1, 2) for t in (q, k, v))
    att = (q @ k.transpose(-2, -1)) / math.sqrt(4)
    att = att.masked_fill(kpm[:, None, None, :], float("-inf")).softmax(-1)
    by_hand = mha.out_proj((att @ v).transpose(1, 2).reshape(2, 5, 8))
    rec("by_hand", by_hand)
    # float and bool masks together (torch merges them)
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    rec("causal", causal)
    o3, w3 = mha(x, x, x, attn_mask=causal, key_padding_mask=kpm)
    rec("o3", o3)
    rec("w3", w3)
    o4 = mha(x, x, x, attn_mask=causal.isinf(), is_causal=True, need_weights=False)[0]
    rec("o4", o4)
    # eval mode (fast path in torch) gives the same numbers
    mha.eval()
    with lib.no_grad():
        rec("eval", mha(x, x, x, need_weights=False)[0])
    # 3-d attn mask per head
    m3 = lib.zeros(2 * 2, 5, 5, dtype=dt)
    m3[:, :, 0] = float("-inf")
    rec("m3", mha(x, x, x, attn_mask=m3)[1])
    rec.err("m3_bad", lambda: mha(x, x, x, attn_mask=lib.zeros(3, 5, 5, dtype=dt)))
    rec.err("kpm_bad", lambda: mha(x, x, x, key_padding_mask=lib.zeros(2, 4, dtype=lib.bool)))


def p_quick_gelu(lib, dt, rec):
    QuickGELU = _quick_gelu(lib)
    F = lib.nn.functional
    x = lib.linspace(-4, 4, 17, dtype=dt, requires_grad=True)
    y = QuickGELU()(x)
    rec("y", y)
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.sum(), x)
    rec("gg", gg)
    rec("gelu", F.gelu(x))
    rec("gelu_tanh", F.gelu(x, approximate="tanh"))
    rec("silu_1702", F.silu(1.702 * x) / 1.702)
    rec("diff", (F.gelu(x) - y).abs().max())
    rec("repr", repr(lib.nn.Sequential(lib.nn.Linear(2, 8), QuickGELU(), lib.nn.GELU("tanh"))))
    rec.err("gelu_bad", lambda: F.gelu(x, approximate="fast"))
    if dt == lib.float64:
        f = lambda t: t * lib.sigmoid(1.702 * t)  # noqa: E731
        xx = lib.randn(5, dtype=dt, requires_grad=True)
        rec("gradcheck", lib.autograd.gradcheck(f, (xx,)))
        rec("gradgradcheck", lib.autograd.gradgradcheck(f, (xx,)))


def p_eot_pooling(lib, dt, rec):
    lib.manual_seed(15)
    x = lib.randn(3, 6, 4, dtype=dt, requires_grad=True)
    toks = lib.tensor([[1, 5, 9, 0, 0, 0], [1, 3, 9, 9, 0, 0], [1, 2, 3, 4, 5, 9]])
    idx = toks.argmax(dim=-1)
    rec("idx", idx)  # ties: the first maximum
    pooled = x[lib.arange(x.shape[0]), idx]
    rec("pooled", pooled)
    g = x.gather(1, idx.view(-1, 1, 1).expand(-1, 1, x.shape[-1])).squeeze(1)
    rec("gather", g)
    rec("same", lib.equal(pooled, g))
    eot_id = 9
    first = (toks == eot_id).int().argmax(dim=-1)
    rec("first_eot", first)
    lengths = (toks != 0).sum(-1)
    rec("lengths", lengths)
    mask = lib.arange(6)[None] < lengths[:, None]
    mean = (x * mask[..., None]).sum(1) / lengths[:, None]
    rec("mean_pool", mean)
    (pooled.sum() + mean.pow(2).sum()).backward()
    rec("gx", x.grad)
    rec("take_along", lib.take_along_dim(x, idx[:, None, None], dim=1))
    rec("index_select", x.detach().index_select(1, idx))
    rec("argmax_keep", toks.argmax(dim=-1, keepdim=True))
    rec.err("argmax_empty", lambda: lib.zeros(2, 0, dtype=lib.int64).argmax(-1))


def p_init_params(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(16)
    model = _clip(lib, dt)
    text = model.text
    width, layers = 16, 2
    proj_std = (width**-0.5) * ((2 * layers) ** -0.5)
    attn_std = width**-0.5
    fc_std = (2 * width) ** -0.5
    nn.init.normal_(text.token_embedding.weight, std=0.02)
    nn.init.normal_(text.positional_embedding, std=0.01)
    for block in text.blocks:
        nn.init.normal_(block.attn.in_proj_weight, std=attn_std)
        nn.init.normal_(block.attn.out_proj.weight, std=proj_std)
        nn.init.normal_(block.mlp[0].weight, std=fc_std)
        nn.init.normal_(block.mlp[2].weight, std=proj_std)
    nn.init.normal_(text.text_projection, std=width**-0.5)
    rec("emb", text.token_embedding.weight)
    rec("in_proj", text.blocks[1].attn.in_proj_weight)
    rec("mlp", text.blocks[0].mlp[2].weight)
    rec("in_proj_bias", text.blocks[0].attn.in_proj_bias)
    rec("out_bias", text.blocks[0].attn.out_proj.bias)
    rec("ln", text.ln_final.weight)
    nn.init.constant_(model.logit_scale, math.log(1 / 0.07))
    rec("ls", model.logit_scale)
    lin = nn.Linear(16, 8).to(dt)
    nn.init.trunc_normal_(lin.weight, std=0.02)
    nn.init.zeros_(lin.bias)
    rec("trunc", lin.weight)
    nn.init.xavier_uniform_(lin.weight)
    rec("xavier", lin.weight)
    nn.init.orthogonal_(lin.weight)
    rec("orth", lin.weight @ lin.weight.T)


def p_siglip_chunked(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(17)
    world, bs, d = 3, 2, 6
    img = F.normalize(lib.randn(world * bs, d, dtype=dt), dim=-1).requires_grad_()
    txt = F.normalize(lib.randn(world * bs, d, dtype=dt), dim=-1).requires_grad_()
    scale = lib.tensor(10.0, dtype=dt, requires_grad=True)
    bias = lib.tensor(-10.0, dtype=dt, requires_grad=True)

    def loss_fn(i, t, negative_only=False):
        logits = scale * i @ t.T + bias
        n = i.shape[0]
        labels = -lib.ones((n, n), dtype=dt)
        if not negative_only:
            labels = 2 * lib.eye(n, dtype=dt) + labels
        return -F.logsigmoid(labels * logits).sum() / n

    total = 0
    for r in range(world):
        ii = img[r * bs : (r + 1) * bs]
        total = total + loss_fn(ii, txt[r * bs : (r + 1) * bs])
        for o in range(world):
            if o != r:
                total = total + loss_fn(ii, txt[o * bs : (o + 1) * bs], negative_only=True)
    total = total / world
    full = loss_fn(img, txt) * (world * bs) / bs / world
    rec("chunked", total)
    rec("full", full)
    total.backward()
    rec("g_img", img.grad)
    rec("g_scale", scale.grad)
    rec("g_bias", bias.grad)
    # roll-based neighbour exchange
    rolled = lib.roll(txt.detach(), shifts=bs, dims=0)
    rec("rolled", rolled)
    rec("sig", lib.sigmoid(scale.detach() * img.detach() @ txt.detach().T + bias.detach()))


def p_normalize_edges(lib, dt, rec):
    F = lib.nn.functional
    x = lib.tensor([[3.0, 4.0], [0.0, 0.0], [1e-13, 0.0]], dtype=dt, requires_grad=True)
    y = F.normalize(x, dim=-1)
    rec("y", y)
    y.sum().backward()
    rec("g", x.grad)
    rec("p1", F.normalize(x.detach(), p=1, dim=1))
    rec("dim0", F.normalize(x.detach(), dim=0))
    rec("eps", F.normalize(x.detach(), dim=-1, eps=1e-3))
    rec("pinf", F.normalize(x.detach(), p=float("inf"), dim=1))
    out = lib.empty(3, 2, dtype=dt)
    F.normalize(x.detach(), dim=1, out=out)
    rec("out", out)
    rec("norm_keep", x.detach().norm(dim=-1, keepdim=True))
    rec("by_hand", x.detach() / x.detach().norm(dim=-1, keepdim=True))
    rec("lnorm", lib.linalg.vector_norm(x.detach(), ord=2, dim=-1))
    rec("cos", F.cosine_similarity(x.detach()[:1], x.detach(), dim=-1))
    a = lib.randn(4, 1, 5, dtype=dt, generator=lib.Generator().manual_seed(0))
    b = lib.randn(1, 3, 5, dtype=dt, generator=lib.Generator().manual_seed(1))
    rec("cos_bcast", F.cosine_similarity(a, b, dim=-1))
    rec("empty", F.normalize(lib.zeros(0, 4, dtype=dt), dim=-1))
    rec.err("int", lambda: F.normalize(lib.arange(4), dim=0))


def p_loss_variants(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(18)
    i = F.normalize(lib.randn(5, 4, dtype=dt), dim=-1).requires_grad_()
    t = F.normalize(lib.randn(5, 4, dtype=dt), dim=-1).requires_grad_()
    temp = nn.Parameter(lib.tensor(0.07, dtype=dt))
    logits = lib.einsum("nd,md->nm", i, t) / temp
    labels = lib.arange(5)
    ce = nn.CrossEntropyLoss(label_smoothing=0.1)
    loss = 0.5 * (ce(logits, labels) + ce(logits.T, labels))
    rec("loss", loss)
    loss.backward()
    rec("g_temp", temp.grad)
    rec("g_i", i.grad)
    rec("none", F.cross_entropy(logits.detach(), labels, reduction="none"))
    rec("lse", logits.detach().logsumexp(-1) - logits.detach().diagonal())
    # soft targets (distillation / UniCL style)
    soft = lib.eye(5, dtype=dt) * 0.8 + 0.04
    rec("soft", F.cross_entropy(logits.detach(), soft))
    rec("kl", F.kl_div(F.log_softmax(logits.detach(), -1), soft, reduction="batchmean"))
    # hard negatives: mask the diagonal
    neg = logits.detach().masked_fill(lib.eye(5, dtype=lib.bool), float("-inf"))
    rec("hardest", neg.max(dim=1))
    rec("hardest_vals", neg.max(dim=1).values)
    # weights per sample
    w = lib.tensor([1.0, 0.5, 0.0, 2.0, 1.0], dtype=dt)
    rec(
        "weighted", (F.cross_entropy(logits.detach(), labels, reduction="none") * w).sum() / w.sum()
    )
    rec("ignore", F.cross_entropy(logits.detach(), lib.tensor([0, 1, -100, 3, 4])))
    rec("nll", F.nll_loss(F.log_softmax(logits.detach(), 1), labels))
    rec.err(
        "ce_dtype",
        lambda: F.cross_entropy(
            logits.detach(), soft.float() if dt == lib.float64 else soft.double()
        ),
    )


def p_attention_pool(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(19)

    class AttentionPool2d(nn.Module):
        def __init__(self, spacial_dim, embed_dim, num_heads, output_dim=None):
            super().__init__()
            self.positional_embedding = nn.Parameter(
                lib.randn(spacial_dim**2 + 1, embed_dim) / embed_dim**0.5
            )
            self.k_proj = nn.Linear(embed_dim, embed_dim)
            self.q_proj = nn.Linear(embed_dim, embed_dim)
            self.v_proj = nn.Linear(embed_dim, embed_dim)
            self.c_proj = nn.Linear(embed_dim, output_dim or embed_dim)
            self.num_heads = num_heads

        def forward(self, x):
            x = x.flatten(start_dim=2).permute(2, 0, 1)  # NCHW -> (HW)NC
            x = lib.cat([x.mean(dim=0, keepdim=True), x], dim=0)
            x = x + self.positional_embedding[:, None, :].to(x.dtype)
            x, _ = F.multi_head_attention_forward(
                query=x[:1],
                key=x,
                value=x,
                embed_dim_to_check=x.shape[-1],
                num_heads=self.num_heads,
                q_proj_weight=self.q_proj.weight,
                k_proj_weight=self.k_proj.weight,
                v_proj_weight=self.v_proj.weight,
                in_proj_weight=None,
                in_proj_bias=lib.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
                bias_k=None,
                bias_v=None,
                add_zero_attn=False,
                dropout_p=0,
                out_proj_weight=self.c_proj.weight,
                out_proj_bias=self.c_proj.bias,
                use_separate_proj_weight=True,
                training=self.training,
                need_weights=False,
            )
            return x.squeeze(0)

    pool = AttentionPool2d(3, 8, 2, 5).to(dt)
    x = lib.randn(2, 8, 3, 3, dtype=dt, requires_grad=True)
    y = pool(x)
    rec("y", y)
    y.pow(2).sum().backward()
    rec("gx", x.grad)
    rec.params("pool", pool, grads=True)
    rec.err("bad_dim", lambda: pool(lib.randn(2, 6, 3, 3, dtype=dt)))


def p_modified_resnet(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(20)

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.avgpool = nn.AvgPool2d(stride) if stride > 1 else nn.Identity()
            self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride > 1 or inplanes != planes * 4:
                self.downsample = nn.Sequential(
                    nn.AvgPool2d(stride),
                    nn.Conv2d(inplanes, planes * 4, 1, stride=1, bias=False),
                    nn.BatchNorm2d(planes * 4),
                )

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.avgpool(out)
            out = self.bn3(self.conv3(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    stem = nn.Sequential(
        nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(inplace=True),
        nn.Conv2d(4, 4, 3, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(inplace=True),
        nn.AvgPool2d(2),
    )
    net = nn.Sequential(stem, Bottleneck(4, 2, stride=2), Bottleneck(8, 2)).to(dt)
    x = lib.randn(2, 3, 16, 16, dtype=dt)
    y = net(x)
    rec("y", y)
    y.mean().backward()
    rec("g_conv", net[0][0].weight.grad)
    rec("rm", net[1].bn1.running_mean)
    rec("nbt", net[1].bn1.num_batches_tracked)
    net.eval()
    rec("eval", net(x))
    # freeze BatchNorm as open_clip's lock() does
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            for p in m.parameters():
                p.requires_grad = False
    rec("trainable", sum(p.numel() for p in net.parameters() if p.requires_grad))
    frozen = nn.BatchNorm2d(4).to(dt)
    rec("frozen_repr", repr(frozen))
    rec("sd_keys", str(list(net[1].state_dict().keys())[:7]))


def p_half_weights(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(21)
    model = _clip(lib, dt)

    def convert_weights(layer):
        if isinstance(layer, (nn.Conv1d, nn.Conv2d, nn.Linear)):
            layer.weight.data = layer.weight.data.half()
            if layer.bias is not None:
                layer.bias.data = layer.bias.data.half()
        if isinstance(layer, nn.MultiheadAttention):
            for attr in [*[f"{s}_proj_weight" for s in ["in", "q", "k", "v"]], "in_proj_bias"]:
                tensor = getattr(layer, attr)
                if tensor is not None:
                    tensor.data = tensor.data.half()
        for name in ["text_projection", "proj"]:
            if hasattr(layer, name):
                attr = getattr(layer, name)
                if attr is not None and isinstance(attr, nn.Parameter):
                    attr.data = attr.data.half()

    model.apply(convert_weights)
    dts = sorted({str(p.dtype) for p in model.parameters()})
    rec("dtypes", str(dts))
    rec("conv", str(model.visual.conv1.weight.dtype))
    rec("ls", str(model.logit_scale.dtype))
    rec("ln", str(model.visual.ln_pre.weight.dtype))
    rec("proj", model.visual.proj.float())
    x = lib.randn(2, 3, 8, 8, dtype=dt)
    rec.err("mixed", lambda: model.encode_image(x))
    model.float()
    rec("after_float", str(sorted({str(p.dtype) for p in model.parameters()})))
    h = lib.randn(4, 8).half()
    rec("half_mm", (h @ h.T).float())
    rec("half_norm", lib.nn.functional.normalize(h, dim=-1).float())
    bf = model.to(lib.bfloat16)
    rec("bf", str(bf.logit_scale.dtype))
    rec("bf_val", bf.logit_scale.float())


def p_locked_tower(lib, dt, rec):
    lib.manual_seed(22)
    model = _clip(lib, dt)
    for p in model.visual.parameters():
        p.requires_grad = False
    model.visual.eval()
    # unlock the last block and the post-norm, as lock(unlocked_groups=1)
    for p in list(model.visual.blocks[-1].parameters()) + list(model.visual.ln_post.parameters()):
        p.requires_grad = True
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    rec("n_trainable", len(trainable))
    rec("first", str(trainable[:3]))
    opt = lib.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1, momentum=0.9)
    img = lib.randn(3, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 3)
    i, t, s = model(img, toks)
    loss = _clip_loss(lib, i, t, s)
    loss.backward()
    rec("conv_grad", str(model.visual.conv1.weight.grad))
    rec("blk_grad", model.visual.blocks[-1].mlp[0].weight.grad)
    opt.step()
    rec("momentum", opt.state[model.visual.ln_post.weight]["momentum_buffer"])
    rec("training", str([m.training for m in (model, model.visual, model.text)]))
    model.train()
    rec("training2", str(model.visual.training))
    frozen = model.visual.requires_grad_(False)
    rec("ret", str(frozen is model.visual))
    rec.err("no_grad_params", lambda: lib.optim.SGD([], lr=0.1))


def p_checkpointed(lib, dt, rec):
    from functools import partial

    lib.manual_seed(23)
    model = _clip(lib, dt)
    ckpt = partial(lib.utils.checkpoint.checkpoint, use_reentrant=False)
    img = lib.randn(2, 3, 8, 8, dtype=dt)
    vis = model.visual
    x = vis.conv1(img).flatten(2).transpose(1, 2)
    cls = vis.class_embedding.expand(2, 1, -1)
    x = lib.cat([cls, x], 1) + vis.positional_embedding
    x = vis.ln_pre(x).permute(1, 0, 2)
    for b in vis.blocks:
        x = ckpt(b, x)
    out = vis.ln_post(x.permute(1, 0, 2)[:, 0]) @ vis.proj
    rec("out", out)
    out.sum().backward()
    g1 = [p.grad.clone() for p in vis.parameters()]
    vis.zero_grad()
    vis(img).sum().backward()
    g2 = [p.grad for p in vis.parameters()]
    rec("same_grads", max((a - b).abs().max() for a, b in zip(g1, g2, strict=True)) < 1e-5)
    rec("g_pos", g1[1])
    seq = lib.nn.Sequential(*[copy.deepcopy(b) for b in vis.blocks])
    xx = lib.randn(5, 2, 16, dtype=dt, requires_grad=True)
    y = lib.utils.checkpoint.checkpoint_sequential(seq, 2, xx, use_reentrant=False)
    y.sum().backward()
    rec("seq_g", xx.grad)


def p_preprocess(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(24)
    mean = lib.tensor([0.48145466, 0.4578275, 0.40821073], dtype=dt).view(3, 1, 1)
    std = lib.tensor([0.26862954, 0.26130258, 0.27577711], dtype=dt).view(3, 1, 1)
    img = (lib.rand(3, 12, 16, dtype=dt) * 255).round().to(lib.uint8)
    rec("img", img)
    x = img.to(dt) / 255.0
    # resize the short side to 8 with bicubic, then centre crop 8x8
    h, w = x.shape[-2:]
    scale = 8 / min(h, w)
    nh, nw = round(h * scale), round(w * scale)
    r = F.interpolate(x[None], size=(nh, nw), mode="bicubic", align_corners=False, antialias=True)
    rec("resized", r)
    top, left = (nh - 8) // 2, (nw - 8) // 2
    crop = r[..., top : top + 8, left : left + 8].clamp(0, 1)
    rec("crop", crop)
    norm = (crop - mean) / std
    rec("norm", norm)
    rec("bilinear", F.interpolate(x[None], size=(6, 8), mode="bilinear", antialias=True))
    rec("area", F.adaptive_avg_pool2d(x[None], (4, 4)))
    flipped = lib.flip(crop, dims=[-1])
    rec("flip", flipped)
    batch = lib.stack([norm[0], norm[0].flip(-1)])
    rec("batch", batch.shape)
    rec("mean_std", lib.std_mean(batch, dim=(0, 2, 3)))
    rec.err("bad_size", lambda: F.interpolate(x, size=(4, 4), mode="bicubic"))


def p_tokenize_pad(lib, dt, rec):
    vocab = {"<sot>": 1, "<eot>": 19, "a": 2, "photo": 3, "of": 4, "cat": 5, "dog": 6, "car": 7}
    ctx = 7

    def tokenize(texts, truncate=False):
        result = lib.zeros(len(texts), ctx, dtype=lib.long)
        for i, t in enumerate(texts):
            toks = [vocab["<sot>"]] + [vocab[w] for w in t.split()] + [vocab["<eot>"]]
            if len(toks) > ctx:
                if not truncate:
                    raise RuntimeError(f"Input {t} is too long for context length {ctx}")
                toks = toks[:ctx]
                toks[-1] = vocab["<eot>"]
            result[i, : len(toks)] = lib.tensor(toks)
        return result

    toks = tokenize(["a photo of a cat", "dog", "a car"])
    rec("toks", toks)
    rec("dtype", str(toks.dtype))
    rec.err("too_long", lambda: tokenize(["a photo of a cat cat"]))
    rec("trunc", tokenize(["a photo of a cat cat"], truncate=True))
    rec("attn_mask", (toks != 0).long())
    rec("lens", (toks != 0).sum(dim=1))
    rec.err("assign_long", lambda: toks.__setitem__((0, slice(0, 3)), lib.tensor([1, 2, 3, 4])))
    emb = lib.nn.Embedding(20, 4, padding_idx=0).to(dt)
    rec("pad_row", emb.weight[0])
    out = emb(toks)
    out.sum().backward()
    rec("pad_grad", emb.weight.grad[0])
    rec("grad_rows", emb.weight.grad.sum(1))
    sp = lib.nn.Embedding(20, 4, sparse=True).to(dt)
    sp(toks).sum().backward()
    rec("sparse_dense", sp.weight.grad.to_dense().sum(1))
    rec.err("pad_oob", lambda: lib.nn.Embedding(5, 3, padding_idx=5))


def p_caption_loss(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(25)
    vocab, pad = 12, 0
    toks = lib.tensor([[1, 5, 7, 11, 0, 0], [1, 3, 11, 0, 0, 0]])
    logits = lib.randn(2, 6, vocab, dtype=dt, requires_grad=True)
    labels = toks[:, 1:]
    lg = logits[:, :-1]
    loss = F.cross_entropy(lg.permute(0, 2, 1), labels, ignore_index=pad)
    rec("loss", loss)
    loss2 = nn.CrossEntropyLoss(ignore_index=pad)(lg.reshape(-1, vocab), labels.reshape(-1))
    rec("loss2", loss2)
    loss.backward()
    rec("g", logits.grad)
    rec("sum", F.cross_entropy(lg.transpose(1, 2), labels, ignore_index=pad, reduction="sum"))
    rec("none", F.cross_entropy(lg.transpose(1, 2), labels, ignore_index=pad, reduction="none"))
    rec(
        "smooth", F.cross_entropy(lg.transpose(1, 2), labels, ignore_index=pad, label_smoothing=0.1)
    )
    all_pad = lib.zeros(2, 5, dtype=lib.long)
    rec("all_ignored", F.cross_entropy(lg.transpose(1, 2), all_pad, ignore_index=pad))
    rec.err("shape", lambda: F.cross_entropy(lg, labels))
    rec.err("target_oob", lambda: F.cross_entropy(lg.transpose(1, 2), labels + vocab))
    # combined CoCa objective
    i = F.normalize(lib.randn(2, 4, dtype=dt), dim=-1)
    t = F.normalize(lib.randn(2, 4, dtype=dt), dim=-1)
    total = _clip_loss(lib, i, t, lib.tensor(20.0, dtype=dt)) + 2.0 * loss.detach()
    rec("total", total)


def p_ema(lib, dt, rec):
    lib.manual_seed(26)
    model = _clip(lib, dt)
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    opt = lib.optim.SGD(model.parameters(), lr=0.5)
    img = lib.randn(2, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 2)
    decay = 0.9
    for _ in range(2):
        opt.zero_grad()
        i, t, s = model(img, toks)
        _clip_loss(lib, i, t, s).backward()
        opt.step()
        with lib.no_grad():
            for e, p in zip(ema.parameters(), model.parameters(), strict=True):
                e.mul_(decay).add_(p.detach(), alpha=1 - decay)
            for e, b in zip(ema.buffers(), model.buffers(), strict=True):
                e.copy_(b)
    rec("ema_proj", ema.visual.proj)
    rec("ema_ls", ema.logit_scale)
    ema2 = copy.deepcopy(model)
    ep = list(ema2.parameters())
    mp = list(model.parameters())
    with lib.no_grad():
        lib._foreach_lerp_(ep, mp, 0.5)
        lib._foreach_mul_(ep, 2.0)
    rec("foreach", ep[0])
    avg = lib.optim.swa_utils.AveragedModel(
        model, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.99)
    )
    with lib.no_grad():
        for p in model.parameters():
            p.add_(0.1)
    avg.update_parameters(model)
    avg.update_parameters(model)
    rec("n_averaged", avg.n_averaged)
    rec("avg_ls", avg.module.logit_scale)


def p_local_loss(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(27)
    world, bs, d = 2, 3, 5
    imgs = [F.normalize(lib.randn(bs, d, dtype=dt), dim=-1).requires_grad_() for _ in range(world)]
    txts = [F.normalize(lib.randn(bs, d, dtype=dt), dim=-1).requires_grad_() for _ in range(world)]
    scale = lib.tensor(1 / 0.07, dtype=dt)
    total = 0
    for rank in range(world):
        all_txt = lib.cat([t if r == rank else t.detach() for r, t in enumerate(txts)])
        all_img = lib.cat([i if r == rank else i.detach() for r, i in enumerate(imgs)])
        lpi = scale * imgs[rank] @ all_txt.T
        lpt = scale * txts[rank] @ all_img.T
        labels = lib.arange(bs) + rank * bs
        loss = (F.cross_entropy(lpi, labels) + F.cross_entropy(lpt, labels)) / 2
        rec(f"loss{rank}", loss)
        total = total + loss
    total.backward()
    rec("g_img0", imgs[0].grad)
    rec("g_txt1", txts[1].grad)
    gi = lib.cat(imgs).detach()
    gt = lib.cat(txts).detach()
    rec("global", _clip_loss(lib, gi, gt, scale))
    # fixed labels cached by batch size, as open_clip keeps them
    cache = {}

    def get_labels(n, offset):
        if n not in cache:
            cache[n] = lib.arange(n) + offset
        return cache[n]

    rec("cached", get_labels(3, 3))
    rec("cached_again", get_labels(3, 0))


def p_scheduler_resume(lib, dt, rec):
    lib.manual_seed(28)
    lin = lib.nn.Linear(4, 2).to(dt)
    opt = lib.optim.AdamW(lin.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.2)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=8, pct_start=0.25)
    x = lib.randn(6, 4, dtype=dt)
    lrs = []
    for _step in range(4):
        opt.zero_grad()
        lin(x).pow(2).mean().backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    rec("lrs", lrs)
    rec("betas", str(opt.param_groups[0]["betas"]))
    buf = io.BytesIO()
    lib.save({"opt": opt.state_dict(), "sched": sched.state_dict(), "model": lin.state_dict()}, buf)
    buf.seek(0)
    ck = lib.load(buf)
    lin2 = lib.nn.Linear(4, 2).to(dt)
    lin2.load_state_dict(ck["model"])
    opt2 = lib.optim.AdamW(
        lin2.parameters(), lr=1e-2, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.2
    )
    sched2 = lib.optim.lr_scheduler.OneCycleLR(opt2, max_lr=1e-2, total_steps=8, pct_start=0.25)
    opt2.load_state_dict(ck["opt"])
    sched2.load_state_dict(ck["sched"])
    for _step in range(4):
        opt.zero_grad()
        opt2.zero_grad()
        lin(x).pow(2).mean().backward()
        lin2(x).pow(2).mean().backward()
        opt.step()
        opt2.step()
        sched.step()
        sched2.step()
    rec("lr2", sched2.get_last_lr())
    rec("w", lin2.weight)
    rec("same", lib.equal(lin.weight, lin2.weight))
    rec.err("past_end", lambda: sched2.step())
    opt3 = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1, dtype=dt))], lr=0.1)
    wr = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt3, T_0=3, T_mult=2, eta_min=0.01)
    got = []
    for _ in range(10):
        opt3.step()
        wr.step()
        got.append(opt3.param_groups[0]["lr"])
    rec("restarts", got)
    rec.err(
        "lambdas", lambda: lib.optim.lr_scheduler.LambdaLR(opt3, [lambda s: 1.0, lambda s: 2.0])
    )


def p_prompt_learning(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(29)
    txt = _text(lib)().to(dt)
    for p in txt.parameters():
        p.requires_grad_(False)
    n_ctx, n_cls, width = 2, 3, 16
    ctx_vectors = nn.Parameter(lib.empty(n_ctx, width, dtype=dt))
    nn.init.normal_(ctx_vectors, std=0.02)
    names = lib.tensor([[5, 19, 0], [6, 7, 19], [8, 19, 0]])
    prefix = txt.token_embedding(lib.ones(n_cls, 1, dtype=lib.long))
    suffix = txt.token_embedding(names)
    ctx = ctx_vectors.unsqueeze(0).expand(n_cls, -1, -1)
    prompts = lib.cat([prefix, ctx, suffix], dim=1)
    rec("prompts.shape", str(tuple(prompts.shape)))
    x = prompts + txt.positional_embedding
    x = x.permute(1, 0, 2)
    for b in txt.blocks:
        x = b(x, txt.attn_mask.to(x.dtype))
    x = txt.ln_final(x.permute(1, 0, 2))
    eot = lib.cat([lib.zeros(n_cls, 1 + n_ctx, dtype=lib.long), names], 1).argmax(-1)
    feats = x[lib.arange(n_cls), eot] @ txt.text_projection
    rec("eot", eot)
    feats = feats / feats.norm(dim=-1, keepdim=True)
    img = nn.functional.normalize(lib.randn(4, 8, dtype=dt), dim=-1)
    logits = 100 * img @ feats.t()
    loss = nn.functional.cross_entropy(logits, lib.tensor([0, 1, 2, 0]))
    rec("loss", loss)
    loss.backward()
    rec("g_ctx", ctx_vectors.grad)
    rec("frozen_grad", str(txt.token_embedding.weight.grad))
    rec("trainable", sum(p.numel() for p in [ctx_vectors] if p.requires_grad))


def p_patch_dropout(lib, dt, rec):
    lib.manual_seed(30)
    x = lib.randn(2, 1 + 9, 4, dtype=dt, requires_grad=True)
    prob = 0.5
    cls, tokens = x[:, :1], x[:, 1:]
    batch, n = tokens.shape[:2]
    keep = max(1, int(n * (1 - prob)))
    rand = lib.randn(batch, n)
    keep_idx = rand.topk(keep, dim=-1).indices
    rec("keep_idx", keep_idx)
    kept = tokens[lib.arange(batch)[..., None], keep_idx]
    out = lib.cat([cls, kept], dim=1)
    rec("out", out)
    out.sum().backward()
    rec("g", x.grad)
    perm = lib.rand(batch, n).argsort(dim=-1)[:, :keep]
    rec("perm", perm)
    g2 = tokens.detach().gather(1, perm[..., None].expand(-1, -1, 4))
    rec("gathered", g2)
    mask = lib.zeros(batch, n, dtype=lib.bool).scatter_(1, perm, True)
    rec("mask", mask)
    rec("masked_select", tokens.detach()[mask].reshape(batch, keep, 4))
    rec("bernoulli", lib.bernoulli(lib.full((2, 5), 0.5)))
    rec("randperm", lib.randperm(9)[:4])


def p_attention_maps(lib, dt, rec):
    lib.manual_seed(31)
    vit = _vit(lib)().to(dt).eval()
    x = lib.randn(1, 3, 8, 8, dtype=dt)
    maps = []

    def hook(mod, args, kwargs, out):
        maps.append(out[1])

    blk = vit.blocks[-1]
    handle = blk.attn.register_forward_hook(hook, with_kwargs=True)
    orig = blk.attention

    def attention(x, mask):
        return blk.attn(x, x, x, need_weights=True, attn_mask=mask)[0]

    blk.attention = attention
    with lib.no_grad():
        vit(x)
    handle.remove()
    blk.attention = orig
    a = maps[0]
    rec("a.shape", str(tuple(a.shape)))
    cls_attn = a[0, 0, 1:].reshape(1, 1, 2, 2)
    rec("cls_attn", cls_attn)
    up = lib.nn.functional.interpolate(cls_attn, size=(8, 8), mode="bilinear", align_corners=False)
    rec("up", up)
    rec("minmax", (up - up.min()) / (up.max() - up.min()))
    rec("n_hooks", len(blk.attn._forward_hooks))


def p_reprs(lib, dt, rec):
    lib.manual_seed(32)
    model = _clip(lib, dt)
    rec("visual", repr(model.visual.blocks[0]))
    rec("text_head", repr(model.text.ln_final))
    lin = lib.nn.Linear(3, 2).to(dt)
    opt = lib.optim.AdamW(
        [
            {"params": [lin.weight], "weight_decay": 0.1},
            {"params": [lin.bias], "weight_decay": 0.0},
        ],
        lr=1e-3,
    )
    rec("opt", repr(opt))
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    rec("sched", type(sched).__name__)
    logits = lib.tensor([[14.2857, -3.5], [0.25, 100.0]], dtype=dt, requires_grad=True)
    loss = logits.logsumexp(-1).mean()
    rec("loss", repr(loss))
    rec("logits", repr(logits.detach() * 100))
    rec("scale", repr(model.logit_scale))
    rec("exp", repr(model.logit_scale.exp()))
    rec("fmt", f"{model.logit_scale.exp().item():.4f}")
    rec("probs", repr(logits.detach().softmax(-1)))
    rec("grad_fn", str(_clip_loss(lib, lib.eye(2, dtype=dt), lib.eye(2, dtype=dt), 1.0).grad_fn))


def p_promotion(lib, dt, rec):
    other = lib.float32 if dt == lib.float64 else lib.float64
    ls = lib.nn.Parameter(lib.tensor(2.5, dtype=other))
    feats = lib.randn(3, 4, dtype=dt, generator=lib.Generator().manual_seed(0))
    out = ls * feats @ feats.T
    rec("out", out)
    out.sum().backward()
    rec("g", ls.grad)
    rec("py_scalar", (feats * 100.0).dtype)
    rec("int_labels", (lib.arange(3) + 0.5).dtype)
    rec("mix_mm", rec.err("mix_mm", lambda: feats @ feats.to(other).T))
    rec.err("ce_mixed", lambda: lib.nn.functional.cross_entropy(feats, lib.arange(3).int()))
    rec("ce_uint8", lib.nn.functional.cross_entropy(feats, lib.arange(3, dtype=lib.uint8)))
    rec("where", lib.where(feats > 0, feats, lib.tensor(0.0)))
    rec("cat_mixed", lib.cat([feats, feats.to(other)]).dtype)


def p_ridge_probe(lib, dt, rec):
    lib.manual_seed(33)
    X = lib.randn(20, 6, dtype=dt)
    Y = lib.nn.functional.one_hot(lib.randint(0, 3, (20,)), 3).to(dt)
    rec("Y", Y)
    lam = 0.1
    A = X.T @ X + lam * lib.eye(6, dtype=dt)
    W = lib.linalg.solve(A, X.T @ Y)
    rec("W", W)
    L = lib.linalg.cholesky(A)
    W2 = lib.cholesky_solve(X.T @ Y, L)
    rec("chol", W2)
    sol = lib.linalg.lstsq(X, Y).solution
    rec("lstsq", sol)
    evals = lib.linalg.eigvalsh(A)
    rec("evals", evals)
    rec("pred", (X @ W).argmax(1))
    # standardise features by train statistics
    mu, sd = X.mean(0, keepdim=True), X.std(0, keepdim=True)
    rec("z", (X - mu) / sd)
    rec.err(
        "singular", lambda: lib.linalg.solve(lib.zeros(3, 3, dtype=dt), lib.ones(3, 1, dtype=dt))
    )
    rec.err("shape", lambda: lib.linalg.solve(A, lib.ones(5, 1, dtype=dt)))


def p_soft_targets(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(34)
    ids = lib.tensor([3, 1, 3, 2, 1])
    same = (ids[:, None] == ids[None, :]).to(dt)
    rec("same", same)
    targets = same / same.sum(1, keepdim=True)
    logits = lib.randn(5, 5, dtype=dt, requires_grad=True)
    loss = F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets.T)
    rec("loss", loss)
    loss.backward()
    rec("g", logits.grad)
    mask = same.bool() & ~lib.eye(5, dtype=lib.bool)
    rec("mask", mask)
    lm = logits.detach().masked_fill(mask, -1e4)
    rec("masked_ce", F.cross_entropy(lm, lib.arange(5)))
    rec("unique", lib.unique(ids, return_inverse=True, return_counts=True))
    # supervised-contrastive style
    log_prob = logits.detach() - logits.detach().logsumexp(1, keepdim=True)
    pos = same.fill_diagonal_(0)
    rec("supcon", -(pos * log_prob).sum(1) / pos.sum(1).clamp(min=1))


def p_autocast(lib, dt, rec):
    lib.manual_seed(35)
    model = _clip(lib, lib.float32)
    img = lib.randn(2, 3, 8, 8)
    toks = _tokens(lib, 2)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        i = model.encode_image(img)
        t = model.encode_text(toks)
        rec("i.dtype", str(i.dtype))
        lin = model.visual.conv1(img)
        rec("conv.dtype", str(lin.dtype))
        ln = model.visual.ln_pre(lin.flatten(2).transpose(1, 2))
        rec("ln.dtype", str(ln.dtype))
        n = lib.nn.functional.normalize(i, dim=-1)
        rec("norm.dtype", str(n.dtype))
        logits = model.logit_scale.exp() * n @ lib.nn.functional.normalize(t, dim=-1).T
        rec("logits.dtype", str(logits.dtype))
        loss = lib.nn.functional.cross_entropy(logits, lib.arange(2))
        rec("loss.dtype", str(loss.dtype))
    rec("i", i.float().round(decimals=1))
    loss.backward()
    rec("g.dtype", str(model.visual.proj.grad.dtype))
    rec("is_autocast", lib.is_autocast_enabled("cpu"))


def p_clip_grad(lib, dt, rec):
    lib.manual_seed(36)
    model = _clip(lib, dt)
    img = lib.randn(2, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 2)
    i, t, s = model(img, toks)
    _clip_loss(lib, i, t, s).backward()
    params = [p for p in model.parameters() if p.grad is not None]
    rec("n", len(params))
    rec("inf", lib.nn.utils.clip_grad_norm_(params, 1.0, norm_type=float("inf")))
    rec("norm2", lib.nn.utils.get_total_norm([p.grad for p in params]))
    lib.nn.utils.clip_grad_value_(params, 0.01)
    rec("max", max(p.grad.abs().max() for p in params))
    model.logit_scale.grad.fill_(float("nan"))
    rec.err("nonfinite", lambda: lib.nn.utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True))
    rec("nan_norm", lib.nn.utils.clip_grad_norm_(params, 1.0))
    rec("unscaled", lib.isnan(model.visual.proj.grad).any())


def p_more_errors(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    p = [nn.Parameter(lib.zeros(2, dtype=dt))]
    rec.err("lr", lambda: lib.optim.AdamW(p, lr=-1.0))
    rec.err("betas", lambda: lib.optim.AdamW(p, betas=(0.9, 1.0)))
    rec.err("eps", lambda: lib.optim.AdamW(p, eps=-1e-6))
    rec.err("wd", lambda: lib.optim.AdamW(p, weight_decay=-0.1))
    rec.err("group_no_params", lambda: lib.optim.AdamW([{"lr": 0.1}]))
    rec.err("param_int", lambda: nn.Parameter(lib.tensor([1, 2])))
    rec.err("logsigmoid_int", lambda: F.logsigmoid(lib.tensor([1, 2])))
    rec.err("triu_1d", lambda: lib.ones(3, dtype=dt).triu(1))
    rec.err("exp_int", lambda: lib.tensor(2).exp())
    rec.err(
        "sdpa_mask",
        lambda: F.scaled_dot_product_attention(
            lib.zeros(1, 2, 3, 4, dtype=dt),
            lib.zeros(1, 2, 3, 4, dtype=dt),
            lib.zeros(1, 2, 3, 4, dtype=dt),
            attn_mask=lib.zeros(4, 4, dtype=dt),
        ),
    )
    rec.err(
        "ce_soft_shape",
        lambda: F.cross_entropy(lib.zeros(3, 4, dtype=dt), lib.zeros(3, 5, dtype=dt)),
    )
    rec.err(
        "bce_shape",
        lambda: F.binary_cross_entropy_with_logits(
            lib.zeros(3, 3, dtype=dt), lib.zeros(3, 2, dtype=dt)
        ),
    )
    rec.err("clamp_none", lambda: lib.zeros(2).clamp())
    rec.err("randint_bad", lambda: lib.randint(5, 2, (3,)))
    rec.err(
        "mha_kdim",
        lambda: nn.MultiheadAttention(8, 2, kdim=4)(
            lib.zeros(3, 1, 8), lib.zeros(3, 1, 8), lib.zeros(3, 1, 8)
        ),
    )
    rec.err("conv_stride0", lambda: nn.Conv2d(3, 4, 4, stride=0)(lib.zeros(1, 3, 8, 8)))
    rec.err(
        "interp_pos",
        lambda: F.interpolate(
            lib.zeros(1, 4, 2, 2),
            size=(3, 3),
            mode="bicubic",
            align_corners=True,
            antialias=True,
            scale_factor=2,
        ),
    )
    rec.err("topk_dim", lambda: lib.zeros(3, 4).topk(2, dim=2))
    rec.err("argsort_dim", lambda: lib.zeros(3, 4).argsort(dim=-3))
    m = nn.Linear(2, 2)
    rec.err(
        "load_unexpected",
        lambda: m.load_state_dict(
            {"weight": lib.zeros(2, 2), "bias": lib.zeros(2), "extra": lib.zeros(1)}
        ),
    )
    rec.err("load_missing", lambda: m.load_state_dict({"weight": lib.zeros(2, 2)}))
    rec.err("load_not_dict", lambda: m.load_state_dict([1, 2]))
    rec.err(
        "lambdalr_bad",
        lambda: lib.optim.lr_scheduler.LambdaLR(lib.optim.SGD(p, lr=0.1), lr_lambda=3),
    )


def p_transformer_layer(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(37)
    layer = nn.TransformerEncoderLayer(
        16, 2, 64, dropout=0.0, activation=lambda x: x * lib.sigmoid(1.702 * x),
        norm_first=True, batch_first=True,
    ).to(dt)  # fmt: skip
    x = lib.randn(2, 5, 16, dtype=dt, requires_grad=True)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    y = layer(x, src_mask=mask, is_causal=True)
    rec("y", y)
    y.sum().backward()
    rec("gx", x.grad)
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    rec("enc", enc(x, mask=mask))
    layer.eval()
    with lib.no_grad():
        rec("eval", layer(x, src_mask=mask))
        kpm = lib.tensor([[False] * 5, [False, False, False, True, True]])
        rec("eval_kpm", layer(x, src_key_padding_mask=kpm))
    mha = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=4).to(dt)
    q = lib.randn(3, 2, 8, dtype=dt)
    k = lib.randn(4, 2, 6, dtype=dt)
    v = lib.randn(4, 2, 4, dtype=dt)
    o, w = mha(q, k, v)
    rec("o", o)
    rec("w", w)
    rec("mha_keys", str(list(mha.state_dict())))
    o, w = mha(q, k, v, key_padding_mask=lib.tensor([[False, False, True, True], [False] * 4]))
    rec("o2", o)
    rec("w2", w)
    F = nn.functional
    qq = lib.randn(2, 4, 3, 8, dtype=dt)
    kk = lib.randn(2, 2, 5, 8, dtype=dt)
    vv = lib.randn(2, 2, 5, 8, dtype=dt)
    rec("gqa", F.scaled_dot_product_attention(qq, kk, vv, enable_gqa=True, scale=0.3))
    rec("causal_rect", F.scaled_dot_product_attention(qq[:, :2], kk, vv, is_causal=True))


def p_ranking_ops(lib, dt, rec):
    t = lib.tensor([3.0, 1.0, 3.0, 2.0, 1.0], dtype=dt)
    rec("argsort_stable", t.argsort(stable=True, descending=True))
    rec("sort_stable", lib.sort(t, stable=True))
    rec("topk_small", t.topk(2, largest=False))
    m = lib.ones(4, 6, dtype=dt).t()
    m.triu_(1)
    rec("triu_nc", m)
    rec("triu_batch", lib.full((2, 3, 3), float("-inf"), dtype=dt).triu(1))
    a = lib.randn(4, 3, dtype=dt, generator=lib.Generator().manual_seed(3))
    b = lib.randn(5, 3, dtype=dt, generator=lib.Generator().manual_seed(4))
    rec("cdist", lib.cdist(a, b))
    sim = lib.nn.functional.normalize(a, dim=-1) @ lib.nn.functional.normalize(b, dim=-1).T
    rec("rank_of_best", (sim.argsort(1, descending=True) == sim.argmax(1, keepdim=True)).nonzero())
    lib.manual_seed(38)
    probs = lib.softmax(a @ b.T, -1)
    rec("multinomial", lib.multinomial(probs, 2, replacement=False))
    rec("multinomial_r", lib.multinomial(probs, 3, replacement=True))
    rec("onehot", lib.nn.functional.one_hot(lib.tensor([0, 3, 1])))
    rec.err("onehot_neg", lambda: lib.nn.functional.one_hot(lib.tensor([-1, 2])))
    rec.err("onehot_small", lambda: lib.nn.functional.one_hot(lib.tensor([0, 3]), num_classes=2))
    h = lib.randn(3, 5).half()
    rec("topk_half", h.topk(2, dim=1).values.float())


def p_optim_flags(lib, dt, rec):
    nn = lib.nn
    for kw in (
        dict(amsgrad=True), dict(maximize=True), dict(foreach=False), dict(foreach=True),
        dict(capturable=False),
    ):  # fmt: skip
        pp = nn.Parameter(lib.ones(3, dtype=dt))
        o = lib.optim.AdamW([pp], lr=0.1, **kw)
        for _ in range(3):
            pp.grad = lib.tensor([1.0, -2.0, 0.5], dtype=dt)
            o.step()
        rec(str(kw), pp)
    p = nn.Parameter(lib.ones(3, dtype=dt))
    o = lib.optim.AdamW([p], lr=0.1)
    o.add_param_group(
        {"params": [nn.Parameter(lib.zeros(2, dtype=dt))], "weight_decay": 0.0, "betas": (0.8, 0.9)}
    )
    rec(
        "groups",
        str([sorted((k, v) for k, v in g.items() if k != "params") for g in o.param_groups]),
    )
    rec.err("dup_group", lambda: o.add_param_group({"params": [p]}))
    opt = lib.optim.AdamW([nn.Parameter(lib.zeros(2, dtype=dt))], lr=0.1)
    rec.err("resume", lambda: lib.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0, last_epoch=5))
    opt.param_groups[0]["initial_lr"] = 0.1
    s2 = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5**s, last_epoch=2)
    rec("resumed", s2.get_last_lr())
    rec("resumed_lr", opt.param_groups[0]["lr"])


def p_numerics(lib, dt, rec):
    F = lib.nn.functional
    rec("lse_inf", lib.tensor([[float("-inf")] * 3], dtype=dt).logsumexp(-1))
    row = lib.tensor([[float("-inf"), 0.0, 1.0]], dtype=dt)
    rec("ce_inf_row", F.cross_entropy(row, lib.tensor([1])))
    rec(
        "ce_big",
        F.cross_entropy(lib.tensor([[1e4, -1e4], [0.0, 0.0]], dtype=dt), lib.tensor([1, 0])),
    )
    xs = lib.tensor([-800.0, -30.0, 0.0, 30.0, 800.0], dtype=dt, requires_grad=True)
    (g,) = lib.autograd.grad(F.logsigmoid(xs).sum(), xs, create_graph=True)
    rec("ls_g", g)
    (gg,) = lib.autograd.grad(g.sum(), xs)
    rec("ls_gg", gg)
    s = lib.tensor([1e30, -1e30], dtype=dt)
    rec("sig_ext", lib.sigmoid(s))
    rec("exp_cap", lib.tensor([4.6052, 4.6051702, 10.0], dtype=dt).exp().clamp(max=100))
    half = lib.tensor([[0.5, 0.25], [0.1, 0.9]]).half()
    rec("half_softmax", (100 * half).softmax(-1).float())


def p_settings(lib, dt, rec):
    lib.backends.cuda.matmul.allow_tf32 = True
    lib.backends.cudnn.benchmark = True
    lib.set_float32_matmul_precision("high")
    rec("prec", lib.get_float32_matmul_precision())
    lib.set_float32_matmul_precision("highest")
    lib.backends.cudnn.benchmark = False
    lib.backends.cuda.matmul.allow_tf32 = False
    rec("dist_init", lib.distributed.is_available() and lib.distributed.is_initialized())
    coll = lib.utils.data.default_collate(
        [{"image": lib.zeros(3, 2, 2, dtype=dt), "text": lib.tensor([1, 2]), "id": 3, "cap": "a"}]
        * 2
    )
    rec("coll", str({k: (tuple(v.shape), str(v.dtype)) if hasattr(v, "shape") else v
                     for k, v in coll.items()}))  # fmt: skip
    lib.manual_seed(39)
    conv = lib.nn.Conv2d(3, 4, 2, 2).to(dt).to(memory_format=lib.channels_last)
    rec("cl", conv.weight.is_contiguous(memory_format=lib.channels_last))
    y = conv(lib.randn(1, 3, 4, 4, dtype=dt).to(memory_format=lib.channels_last))
    rec("cl_out", y.is_contiguous(memory_format=lib.channels_last))
    rec("cl_y", y)
    mha = lib.nn.MultiheadAttention(8, 2).to(dt)
    sd = mha.state_dict()
    new = {"q.weight": sd["in_proj_weight"][:8], "k.weight": sd["in_proj_weight"][8:16]}
    buf = io.BytesIO()
    lib.save(new, buf)
    buf.seek(0)
    back = lib.load(buf)
    same = (
        back["q.weight"].untyped_storage().data_ptr()
        == back["k.weight"].untyped_storage().data_ptr()
    )
    rec("back_shared", same)
    rec("back_storage", len(back["q.weight"].untyped_storage()))
    e = lib.nn.Embedding(10, 4, max_norm=1.0).to(dt)
    rec("maxnorm", e(lib.tensor([1, 2, 1])).norm(dim=-1))
    rec("maxnorm_w", e.weight[1].norm())


def p_optimizer_state(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(40)
    a = nn.Linear(3, 2).to(dt)
    b = nn.Linear(3, 2).to(dt)
    o1 = lib.optim.AdamW([{"params": [a.weight]}, {"params": [a.bias], "weight_decay": 0.0}])
    o2 = lib.optim.AdamW(a.parameters())
    o3 = lib.optim.AdamW([{"params": [a.weight, a.bias]}, {"params": [b.weight]}])
    other = lib.optim.AdamW([{"params": [a.weight]}, {"params": [b.weight, b.bias]}])
    rec.err("ngroups", lambda: o2.load_state_dict(o1.state_dict()))
    rec.err("gsize", lambda: o3.load_state_dict(other.state_dict()))
    a(lib.ones(1, 3, dtype=dt)).sum().backward()
    o1.step()
    sd = o1.state_dict()
    rec("sd_groups", str(sd["param_groups"]))
    buf = io.BytesIO()
    lib.save(sd, buf)
    buf.seek(0)
    back = lib.load(buf, weights_only=True)
    rec("back_state", back["state"][0]["exp_avg"])
    rec("back_step", back["state"][0]["step"])
    o4 = lib.optim.AdamW(
        [{"params": [a.weight]}, {"params": [a.bias], "weight_decay": 0.0}], lr=5.0
    )
    o4.load_state_dict(back)
    rec("lr_after_load", o4.param_groups[0]["lr"])
    rec("state_dtype", str(o4.state[a.weight]["exp_avg"].dtype))
    q = nn.Parameter(lib.ones(3, dtype=dt))
    o = lib.optim.AdamW([q], lr=lib.tensor(0.01))
    q.grad = lib.ones(3, dtype=dt)
    o.step()
    rec("tensor_lr", q)
    o.zero_grad(set_to_none=False)
    rec("zeroed", q.grad)
    rec("p2v", nn.utils.parameters_to_vector(a.parameters()))
    nn.utils.vector_to_parameters(lib.zeros(8, dtype=dt), a.parameters())
    rec("v2p", a.bias)


def p_error_sweep(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    mha = nn.MultiheadAttention(8, 2).to(dt)
    x = lib.zeros(3, 2, 8, dtype=dt)
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec.err("mask2d", lambda: mha(x, x, x, attn_mask=lib.zeros(3, 4, dtype=dt)))
    rec.err("mask4d", lambda: mha(x, x, x, attn_mask=lib.zeros(1, 2, 3, 3, dtype=dt)))
    rec.err("q_dim", lambda: mha(lib.zeros(3, 2, 6, dtype=dt), x, x))
    rec.err("kv_mismatch", lambda: mha(x, x, lib.zeros(4, 2, 8, dtype=dt)))
    y = lib.zeros(3, 3, 8, dtype=dt)
    rec.err("batch_mismatch", lambda: mha(x, y, y))
    rec.err("kpm_int", lambda: mha(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.int64)))
    rec.err("is_causal_no_mask", lambda: mha(x, x, x, is_causal=True))
    rec.err("sdpa_dtype", lambda: F.scaled_dot_product_attention(x, x.to(other), x))
    imask = lib.zeros(3, 3, dtype=lib.int64)
    rec.err("sdpa_mask_dtype", lambda: F.scaled_dot_product_attention(x, x, x, attn_mask=imask))
    rec.err("emb_1d_weight", lambda: F.embedding(lib.tensor([1]), lib.zeros(3, dtype=dt)))
    rec.err("emb_neg", lambda: nn.Embedding(5, 2)(lib.tensor([-1])))
    rec.err("conv_small", lambda: nn.Conv2d(3, 4, 5, 5)(lib.zeros(1, 3, 4, 4)))
    rec.err("conv_5d_in", lambda: nn.Conv2d(3, 4, 2, 2)(lib.zeros(3, 4, 4, 4, 4)))
    rec.err("normalize_p", lambda: F.normalize(lib.zeros(2, 2), p="fro"))
    rec.err(
        "ce_target", lambda: F.cross_entropy(lib.zeros(2, 3, 4), lib.zeros(2, 3, dtype=lib.long))
    )
    empty_t = lib.zeros(0, dtype=lib.long)
    rec("ce_empty", F.cross_entropy(lib.zeros(0, 3, dtype=dt), empty_t))
    rec("ce_empty_sum", F.cross_entropy(lib.zeros(0, 3, dtype=dt), empty_t, reduction="sum"))
    rec.err("cat_empty", lambda: lib.cat([]))
    rec.err("stack_shapes", lambda: lib.stack([lib.zeros(2), lib.zeros(3)]))
    rec.err("nonleaf_grad", lambda: (nn.Parameter(lib.tensor(1.0)) * 2).grad)

    def twice():
        loss = nn.Parameter(lib.tensor(1.0, dtype=dt)).exp() * 2
        loss.backward()
        loss.backward()

    rec.err("backward_twice", twice)
    rec.err("nonscalar", lambda: nn.Parameter(lib.ones(2, dtype=dt)).exp().backward())
    rec.err("no_grad_backward", lambda: lib.ones(2, dtype=dt).sum().backward())
    rec.err("sched_bad_opt", lambda: lib.optim.lr_scheduler.LambdaLR(object(), lambda s: 1.0))


def p_data_and_patches(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(41)
    seqs = [lib.tensor([1, 5, 9]), lib.tensor([1, 9]), lib.tensor([1, 4, 6, 9])]
    rec("pad", nn.utils.rnn.pad_sequence(seqs, batch_first=True))
    left = nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1, padding_side="left")
    rec("pad_left", left)
    rec("fpad", F.pad(seqs[1], (0, 4), value=0))
    rec.err("tensor_of_tensors", lambda: lib.tensor([lib.zeros(2), lib.zeros(2)]))
    ds = lib.utils.data.TensorDataset(lib.arange(10).to(dt), lib.arange(10))
    gen = lib.Generator().manual_seed(1)
    tr, va = lib.utils.data.random_split(ds, [0.8, 0.2], generator=gen)
    rec("split", str(list(tr.indices)) + str(list(va.indices)))
    rec.err("persist", lambda: lib.utils.data.DataLoader(ds, persistent_workers=True))
    dl = lib.utils.data.DataLoader(
        ds, batch_size=4, drop_last=True, collate_fn=lambda b: lib.stack([x for x, _ in b])
    )
    rec("n_batches", len(dl))
    rec("batches", [b.tolist() for b in dl])
    sub = lib.utils.data.SubsetRandomSampler([1, 3, 5, 7], generator=lib.Generator().manual_seed(2))
    rec("subset", [b[1].tolist() for b in lib.utils.data.DataLoader(ds, batch_size=3, sampler=sub)])
    x = lib.randn(2, 3, 8, 8, dtype=dt)
    p = x.unfold(2, 4, 4).unfold(3, 4, 4)
    rec("unfold", p.contiguous().view(2, 3, -1, 16).permute(0, 2, 1, 3).reshape(2, 4, 48))
    cols = F.unfold(x, kernel_size=4, stride=4)
    rec("F.unfold", cols.transpose(1, 2))
    rec("fold", F.fold(cols, output_size=(8, 8), kernel_size=4, stride=4))
    rec("pixel", F.pixel_unshuffle(x, 4).flatten(2).transpose(1, 2))
    idx = lib.tensor([0, 1, 0, 2])
    src = lib.randn(4, 3, dtype=dt)
    mean = lib.zeros(3, 3, dtype=dt).scatter_reduce(
        0, idx[:, None].expand(-1, 3), src, reduce="mean", include_self=False
    )
    rec("scatter_mean", mean)
    counts = lib.bincount(idx, minlength=3).clamp(min=1)[:, None]
    proto = lib.zeros(3, 3, dtype=dt).index_add_(0, idx, src) / counts
    rec("protos", F.normalize(proto, dim=-1))
    # 1-d sin-cos position embedding (MAE/SigLIP style)
    omega = 1.0 / 10000 ** (lib.arange(4, dtype=dt) / 4.0)
    out = lib.einsum("m,d->md", lib.arange(6, dtype=dt), omega)
    rec("sincos", lib.cat([out.sin(), out.cos()], dim=1))
    grid = lib.stack(lib.meshgrid(lib.arange(2), lib.arange(3), indexing="ij"))
    rec("meshgrid", grid)


def p_train_loop(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(42)
    model = _clip(lib, dt)
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "embedding" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "embedding" not in n)]
    opt = lib.optim.AdamW(
        [{"params": decay, "weight_decay": 0.2}, {"params": rest, "weight_decay": 0.0}],
        lr=2e-3, betas=(0.9, 0.98), eps=1e-6,
    )  # fmt: skip
    warmup, total = 2, 6

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))

    sched = lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    imgs = lib.randn(8, 3, 8, 8, dtype=dt)
    toks = _tokens(lib, 8)
    losses = []
    for step in range(total):
        sl = slice(4 * (step % 2), 4 * (step % 2) + 4)
        model.train()
        i, t, s = model(imgs[sl], toks[sl])
        loss = _clip_loss(lib, i, t, s)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        with lib.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        losses.append(loss.item())
    rec("losses", losses)
    rec("lr", sched.get_last_lr())
    rec("ls", model.logit_scale)
    rec("tproj", model.text.text_projection)
    model.eval()
    with lib.no_grad():
        i, t, s = model(imgs, toks)
        sim = i @ t.T
        if dt == lib.float64:  # (in float32 a near-tie in sim's rows flips with the last
            # bits of any gradient: sim itself is compared within tolerance)
            rec("r@1", (sim.argmax(1) == lib.arange(8)).float().mean())
        rec("sim", sim)


def p_dropout_rng(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(43)
    mha = nn.MultiheadAttention(8, 2, dropout=0.25).to(dt)
    x = lib.randn(4, 2, 8, dtype=dt)
    lib.manual_seed(1)
    o, w = mha(x, x, x)
    rec("o", o)
    rec("w", w)
    lib.manual_seed(2)
    rec("o_nw", mha(x, x, x, need_weights=False)[0])
    q = lib.randn(2, 2, 4, 4, dtype=dt)
    lib.manual_seed(3)
    rec("sdpa_drop", F.scaled_dot_product_attention(q, q, q, dropout_p=0.5))
    lib.manual_seed(5)
    rec("drop_path", lib.empty((3, 1, 1), dtype=dt).bernoulli_(0.8) / 0.8)
    lib.manual_seed(6)
    rec("rand_keep", (lib.rand(3, 1, 1, dtype=dt) + 0.8).floor_())
    lib.manual_seed(7)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2).to(dt)
    rec("tel", layer(x))


def p_wise_ft(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(44)
    m0 = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.LazyLinear(5))
    m0 = m0.to(dt)
    m0(lib.randn(2, 3, 5, 5, dtype=dt))
    m1 = copy.deepcopy(m0)
    with lib.no_grad():
        for p in m1.parameters():
            p.add_(0.5)
    m1(lib.randn(2, 3, 5, 5, dtype=dt))
    sd0, sd1 = m0.state_dict(), m1.state_dict()
    a = 0.3
    theta = {k: (1 - a) * sd0[k] + a * sd1[k] for k in sd0}  # WiSE-FT weight-space ensembling
    rec("nbt_dtype", str(theta["1.num_batches_tracked"].dtype))
    rec("nbt", theta["1.num_batches_tracked"])
    m2 = copy.deepcopy(m0)
    rec("load", str(m2.load_state_dict(theta)))
    rec("nbt_after", m2[1].num_batches_tracked)
    rec("w", m2[3].weight)
    rec("lazy_repr", repr(m0[3]))
    # a zero-shot head initialised from class embeddings
    head = nn.Linear(5, 3, bias=False).to(dt)
    zs = F.normalize(lib.randn(3, 5, dtype=dt), dim=-1)
    head.weight.data.copy_(zs)
    rec("head", head(lib.eye(5, dtype=dt)))
    rec.err("load_T", lambda: head.load_state_dict({"weight": zs.T}))
    rec("load_f32", str(head.load_state_dict({"weight": zs.float()})))
    rec("after_f32_dtype", str(head.weight.dtype))
    rec("assign", str(head.load_state_dict({"weight": zs.float()}, assign=True)))
    rec("assign_dtype", str(head.weight.dtype))
    rec("assign_type", type(head.weight).__name__)
    rec("rg", head.weight.requires_grad)
