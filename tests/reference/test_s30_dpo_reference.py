"""Session 30 (helper dpo): preference-optimisation and RL fine-tuning programs for language models,
written the way TRL/OpenRLHF-style code writes them, run under torch and minitorch with the same
seeds and compared record by record.

Covered (55 programs): a tiny causal transformer (embeddings, causal masks by tril/triu and
masked_fill or scaled_dot_product_attention with is_causal / boolean masks, LayerNorm/RMSNorm,
GELU/SiLU MLPs, tied heads, left and right padding); GQA with rotary embeddings and a KV cache;
an nn.TransformerEncoder LM; per-token log-probs by log_softmax + gather with -100 label masks, by
cross_entropy(ignore_index), by TRL's selective_log_softmax (also in bfloat16) and by a chunked
lm head; DPO (sigmoid, cDPO, robust, hinge, IPO, EXO, NCA, BCO, SPPO, AOT, APO), SimPO, ORPO, KTO
with its detached KL estimate; reference models deep-copied and frozen, run under no_grad, as
LoRA-disabled bases, by functional_call, and synced by _foreach ops, lerp_ and AveragedModel
EMAs; reward models read at the last real token with Bradley-Terry margins and a gradient
penalty (double backward through the whole model); PPO (GAE by a reversed loop, masked
whitening, clipped ratios, value clipping, k1/k2/k3 KL estimators, an adaptive KL controller,
clip fractions), GRPO and DAPO normalisation, RLOO, REINFORCE and ReMax; entropies from logits
and Categorical (also at -inf logits); best-of-n, rejection sampling, top-k/top-p/min-p rollouts
under inference_mode, Gumbel and exponential-race sampling, multinomial edge cases;
padding-free packing with cu_seqlens; gradient accumulation with token-count scaling,
checkpointing, activation-offloading hooks, per-sample gradients by vmap(grad); AdamW parameter
groups without decay on biases/norms, cosine-with-warmup LambdaLR and other schedules (with
their warnings and resume errors), many optimizer variants, GradScaler, autocast to bfloat16
and float16 (the dtype policy), clipping, state_dict round trips and module bookkeeping;
data collation of preference rows; empty batches; user errors and warnings. float64 must agree
to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- float32 sqrt/exp can be an ulp off torch's and float32 sums differ in the last bits (summation
  order): allclose checks of two float32 gradient computations use atol=1e-5, and float32 values
  computed inside a float64 program (a bfloat16 policy's log-probs upcast) are compared to 1e-6;
  programs that run in bfloat16 are compared to 1e-2 (an ulp of bfloat16 is 2**-8).
- torch's CPU scaled_dot_product_attention has no double backward (its flash kernel's backward
  is not differentiable); minitorch's is, so the gradient-penalty program uses the explicit
  softmax attention.
- torch.multinomial without replacement on CPU draws more samples than a row has non-zero
  categories without an error; the indices drawn then are unspecified and are not recorded.
"""

from __future__ import annotations

import copy
import io
import math

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "logprobs", "dpo_sigmoid", "dpo_variants", "simpo", "orpo", "kto", "reward_model",
    "gae_whiten", "ppo_step", "grpo", "rloo_reinforce", "entropy", "best_of_n", "rollout_top_p",
    "grad_accum", "adamw_groups_cosine", "errors", "sdpa_model", "concat_forward",
    "kl_controller", "value_head", "state_roundtrip", "selective_log_softmax", "checkpointed",
    "lora_ref", "functional_ref", "printing", "autocast_bf16", "finfo_mask", "hooks_left_pad",
    "exponential_sampling", "categorical_masked", "gqa_rope_kvcache", "packing", "grad_scaler",
    "running_moments", "chunked_ce_function", "scheduler_warnings", "loss_edges",
    "multinomial_edges", "embedding_padding", "ref_sync_ema", "optim_variants", "bf16_ops",
    "dropout_data_init", "user_errors_warnings", "prompt_groups", "encoder_lm",
    "reward_grad_penalty", "per_sample_grads", "grad_edges", "collate_batches",
    "autocast_fp16_policy", "empty_batch", "module_state",
]  # fmt: skip


# programs that compute in float32 or bfloat16 whatever dt is
FLOAT32_INSIDE = {"selective_log_softmax"}
# programs in bfloat16 or float16 whatever dt is: an ulp of bfloat16 is 2**-8 of the value
HALF_INSIDE = {"bf16_ops", "autocast_fp16_policy"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-6 if name in FLOAT32_INSIDE and dt == "float64" else None
    tol = 1e-2 if name in HALF_INSIDE else tol
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- helpers: a tiny causal LM ---

VOCAB, D, HEADS, MAXLEN = 13, 16, 2, 12


def _make_lm(lib, dt, *, seed=0, sdpa=False, rms=False, value_head=False):
    nn = lib.nn
    F = nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.RMSNorm(D) if rms else nn.LayerNorm(D)
            self.qkv = nn.Linear(D, 3 * D)
            self.proj = nn.Linear(D, D)
            self.ln2 = nn.RMSNorm(D) if rms else nn.LayerNorm(D)
            self.mlp = nn.Sequential(
                nn.Linear(D, 4 * D), nn.SiLU() if rms else nn.GELU(), nn.Linear(4 * D, D)
            )

        def forward(self, x, attention_mask=None):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, HEADS, C // HEADS).transpose(1, 2) for t in (q, k, v))
            if sdpa:
                if attention_mask is None:
                    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                else:
                    causal = lib.ones(T, T, dtype=lib.bool, device=x.device).tril()
                    m = causal[None, None] & attention_mask[:, None, None, :].bool()
                    m = m | lib.eye(T, dtype=lib.bool)  # a left-padded row sees itself
                    y = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
            else:
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                mask = lib.triu(lib.ones(T, T, dtype=lib.bool), diagonal=1)
                if attention_mask is not None:
                    pad = attention_mask[:, None, None, :] == 0
                    mask = (mask | pad) & ~lib.eye(T, dtype=lib.bool)
                att = att.masked_fill(mask, float("-inf"))
                y = F.softmax(att, dim=-1) @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(VOCAB, D)
            self.wpe = nn.Embedding(MAXLEN, D)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.ln_f = nn.LayerNorm(D)
            self.lm_head = nn.Linear(D, VOCAB, bias=False)
            self.lm_head.weight = self.wte.weight  # tied
            if value_head:
                self.v_head = nn.Sequential(nn.Dropout(0.0), nn.Linear(D, 1))

        def forward(self, ids, attention_mask=None):
            T = ids.size(1)
            if attention_mask is None:
                pos = lib.arange(T, device=ids.device)[None]
            else:
                pos = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
            x = self.wte(ids) + self.wpe(pos)
            for b in self.blocks:
                x = b(x, attention_mask)
            h = self.ln_f(x)
            logits = self.lm_head(h)
            if value_head:
                return logits, self.v_head(h).squeeze(-1)
            return logits

    lib.manual_seed(seed)
    return TinyLM().to(dt)


def _ids(lib, B, T, *, seed=1, low=1):
    g = lib.Generator().manual_seed(seed)
    return lib.randint(low, VOCAB, (B, T), generator=g)


def _token_logps(lib, logits, labels):
    """Per-token log-probs of labels under shifted logits; -100 labels masked (TRL style)."""
    labels = labels[:, 1:].clone()
    logits = logits[:, :-1, :]
    mask = labels != -100
    labels[labels == -100] = 0
    per_tok = lib.gather(logits.log_softmax(-1), dim=2, index=labels.unsqueeze(2)).squeeze(2)
    return per_tok, mask


def _seq_logps(lib, logits, labels, average=False):
    per_tok, mask = _token_logps(lib, logits, labels)
    s = (per_tok * mask).sum(-1)
    return s / mask.sum(-1) if average else s


def _pair_batch(lib, B=3, T=10, seed=3):
    """Chosen/rejected sequences sharing a prompt; prompt and padding labels are -100."""
    g = lib.Generator().manual_seed(seed)
    prompt_len = 4
    chosen = lib.randint(1, VOCAB, (B, T), generator=g)
    rejected = lib.randint(1, VOCAB, (B, T), generator=g)
    rejected[:, :prompt_len] = chosen[:, :prompt_len]
    lens_c = lib.tensor([10, 8, 9])[:B]
    lens_r = lib.tensor([7, 10, 6])[:B]
    ar = lib.arange(T)
    mask_c = (ar[None] < lens_c[:, None]).long()
    mask_r = (ar[None] < lens_r[:, None]).long()
    chosen = chosen.masked_fill(mask_c == 0, 0)
    rejected = rejected.masked_fill(mask_r == 0, 0)
    lab_c = chosen.clone()
    lab_r = rejected.clone()
    lab_c[:, :prompt_len] = -100
    lab_r[:, :prompt_len] = -100
    lab_c[mask_c == 0] = -100
    lab_r[mask_r == 0] = -100
    return chosen, rejected, mask_c, mask_r, lab_c, lab_r


def _masked_mean(x, mask, dim=None):
    if dim is None:
        return (x * mask).sum() / mask.sum()
    return (x * mask).sum(dim) / mask.sum(dim)


def _masked_var(x, mask, unbiased=True):
    mean = _masked_mean(x, mask)
    centered = x - mean
    var = _masked_mean(centered**2, mask)
    if unbiased:
        n = mask.sum()
        var = var * (n / (n - 1))
    return var


def _masked_whiten(lib, x, mask, shift_mean=True):
    mean, var = _masked_mean(x, mask), _masked_var(x, mask)
    out = (x - mean) * lib.rsqrt(var + 1e-8)
    if not shift_mean:
        out = out + mean
    return out


# --- the programs: each takes the library, a dtype and a recorder ---


def p_logprobs(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt)
    chosen, _, mask_c, _, lab_c, _ = _pair_batch(lib)
    logits = model(chosen, mask_c)
    rec("logits", logits[:, -3:])
    per_tok, mask = _token_logps(lib, logits, lab_c)
    rec("per_tok", per_tok)
    rec("mask", mask)
    rec("sum", (per_tok * mask).sum(-1))
    rec("avg", _seq_logps(lib, logits, lab_c, average=True))
    # the same by cross_entropy with ignore_index
    ce = F.cross_entropy(
        logits[:, :-1].reshape(-1, VOCAB), lab_c[:, 1:].reshape(-1), reduction="none"
    ).view(lab_c.size(0), -1)
    rec("ce", ce)
    rec("ce_mean", F.cross_entropy(logits[:, :-1].transpose(1, 2), lab_c[:, 1:]))
    rec("nll", F.nll_loss(logits[:, :-1].log_softmax(-1).flatten(0, 1), lab_c[:, 1:].flatten()))
    rec("same", lib.allclose(-ce, per_tok * mask))
    # by take_along_dim and logsumexp
    lp2 = lib.take_along_dim(logits[:, :-1], lab_c[:, 1:].clamp(min=0)[..., None], dim=-1)
    lp2 = lp2.squeeze(-1) - logits[:, :-1].logsumexp(-1)
    rec("lse", lp2.masked_fill(~mask, 0.0))
    # token counts, perplexity
    n_tok = mask.sum()
    rec("n_tok", n_tok)
    rec("ppl", lib.exp(-(per_tok * mask).sum() / n_tok))
    nll = -(per_tok * mask).sum() / n_tok
    nll.backward()
    rec("g_wte", model.wte.weight.grad)
    rec("g_ln", model.blocks[0].ln1.weight.grad)
    rec("g_qkv_b", model.blocks[1].qkv.bias.grad)


def _dpo_logits(lib, dt, model, ref, batch):
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = batch
    pc = _seq_logps(lib, model(chosen, mask_c), lab_c)
    pr = _seq_logps(lib, model(rejected, mask_r), lab_r)
    with lib.no_grad():
        rc = _seq_logps(lib, ref(chosen, mask_c), lab_c)
        rr = _seq_logps(lib, ref(rejected, mask_r), lab_r)
    return pc, pr, rc, rr


def p_dpo_sigmoid(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=0)
    ref = copy.deepcopy(model)
    ref.requires_grad_(False).eval()
    # perturb the policy so it differs from the reference
    with lib.no_grad():
        for p in model.parameters():
            p.add_(
                lib.randn(p.shape, generator=lib.Generator().manual_seed(p.numel()), dtype=p.dtype),
                alpha=0.05,
            )
    batch = _pair_batch(lib)
    pc, pr, rc, rr = _dpo_logits(lib, dt, model, ref, batch)
    rec("pc", pc)
    rec("pr", pr)
    rec("rc", rc)
    rec("rr.requires_grad", str(rr.requires_grad))
    beta = 0.1
    pi_logratios = pc - pr
    ref_logratios = rc - rr
    logits = pi_logratios - ref_logratios
    losses = -F.logsigmoid(beta * logits)
    rec("losses", losses)
    chosen_rewards = beta * (pc - rc).detach()
    rejected_rewards = beta * (pr - rr).detach()
    rec("chosen_rewards", chosen_rewards)
    rec("acc", (chosen_rewards > rejected_rewards).float().mean())
    rec("margins", (chosen_rewards - rejected_rewards).mean())
    loss = losses.mean()
    rec("loss", loss)
    loss.backward()
    rec("g_head", model.lm_head.weight.grad)
    rec("g_pos", model.wpe.weight.grad)
    rec("g_mlp", model.blocks[0].mlp[2].weight.grad)
    rec("ref_grad_none", str(ref.wte.weight.grad))
    # softplus form equals -logsigmoid
    rec("softplus", F.softplus(-beta * logits.detach()))
    # a step of AdamW then the loss again
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
    opt.step()
    opt.zero_grad()
    pc2, pr2, _, _ = _dpo_logits(lib, dt, model, ref, batch)
    rec("loss2", -F.logsigmoid(beta * ((pc2 - pr2) - ref_logratios)).mean())


def p_dpo_variants(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(5)
    pc = (lib.randn(6, generator=g, dtype=dt) * 3 - 20).requires_grad_()
    pr = (lib.randn(6, generator=g, dtype=dt) * 3 - 22).requires_grad_()
    rc = lib.randn(6, generator=g, dtype=dt) * 3 - 21
    rr = lib.randn(6, generator=g, dtype=dt) * 3 - 21
    logits = (pc - pr) - (rc - rr)
    beta, ls = 0.2, 0.1
    variants = {
        "cdpo": -F.logsigmoid(beta * logits) * (1 - ls) - F.logsigmoid(-beta * logits) * ls,
        "robust": (-F.logsigmoid(beta * logits) * (1 - ls) + F.logsigmoid(-beta * logits) * ls)
        / (1 - 2 * ls),
        "hinge": lib.relu(1 - beta * logits),
        "ipo": (logits - 1 / (2 * beta)) ** 2,
        "exo": beta * logits.sigmoid() * (F.logsigmoid(beta * logits) - math.log(1 - ls))
        + (-beta * logits).sigmoid() * (F.logsigmoid(-beta * logits) - math.log(ls)),
        "nca": -F.logsigmoid(beta * (pc - rc))
        - 0.5 * F.logsigmoid(-beta * (pc - rc))
        - 0.5 * F.logsigmoid(-beta * (pr - rr)),
        "bco": -F.logsigmoid(beta * (pc - rc) - 0.3) - F.logsigmoid(-(beta * (pr - rr) - 0.3)),
        "sppo": (beta * (pc - rc) - 0.5 / beta) ** 2 + (beta * (pr - rr) + 0.5 / beta) ** 2,
        "aot": -F.logsigmoid(beta * (lib.sort(pc - pr).values - lib.sort(rc - rr).values)),
        "apo_zero": 1 - F.sigmoid(beta * (pc - rc)) + F.sigmoid(beta * (pr - rr)),
    }
    for name, losses in variants.items():
        rec(name, losses)
        gc, gr = lib.autograd.grad(losses.mean(), (pc, pr), retain_graph=True)
        rec(name + ".gc", gc)
        rec(name + ".gr", gr)
    # the IPO loss with average log-probs, second derivative
    ipo = ((logits - 1 / (2 * beta)) ** 2).mean()
    (g1,) = lib.autograd.grad(ipo, pc, create_graph=True)
    (g2,) = lib.autograd.grad(g1.sum(), pc)
    rec("ipo_hess", g2)


def p_simpo(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=2, rms=True)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = _pair_batch(lib, seed=4)
    # one concatenated forward over chosen and rejected
    ids = lib.cat([chosen, rejected], dim=0)
    am = lib.cat([mask_c, mask_r], dim=0)
    labels = lib.cat([lab_c, lab_r], dim=0)
    logits = model(ids, am)
    avg = _seq_logps(lib, logits, labels, average=True)
    pc, pr = avg.chunk(2)
    rec("avg", avg)
    beta, gamma = 2.0, 0.5
    gamma_beta_ratio = gamma / beta
    lg = pc - pr - gamma_beta_ratio
    losses = -F.logsigmoid(beta * lg)
    rec("losses", losses)
    # SFT term on chosen by cross_entropy
    sft = F.cross_entropy(
        logits[:3, :-1].reshape(-1, VOCAB), labels[:3, 1:].reshape(-1), ignore_index=-100
    )
    rec("sft", sft)
    loss = losses.mean() + 0.1 * sft
    loss.backward()
    rec("g_rms", model.blocks[0].ln1.weight.grad)
    rec("g_qkv", model.blocks[1].qkv.weight.grad)
    rec("reward_acc", (beta * pc > beta * pr).float().mean())


def p_orpo(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=3)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = _pair_batch(lib, seed=6)
    lc = model(chosen, mask_c)
    lr = model(rejected, mask_r)
    pc = _seq_logps(lib, lc, lab_c, average=True)
    pr = _seq_logps(lib, lr, lab_r, average=True)
    rec("pc", pc)
    rec("pr", pr)
    beta = 0.1
    log_odds = (pc - pr) - (lib.log1p(-lib.exp(pc)) - lib.log1p(-lib.exp(pr)))
    ratio = F.logsigmoid(log_odds)
    rec("log_odds", log_odds)
    rec("ratio", ratio)
    nll = F.cross_entropy(lc[:, :-1].flatten(0, 1), lab_c[:, 1:].flatten())
    loss = nll - beta * ratio.mean()
    rec("loss", loss)
    # the same through expm1 and special.log1mexp-free form
    log_odds2 = (pc - pr) - (lib.log(-lib.expm1(pc)) - lib.log(-lib.expm1(pr)))
    rec("log_odds2", log_odds2)
    loss.backward()
    rec("g_wte", model.wte.weight.grad)
    rec("g_lnf", model.ln_f.bias.grad)
    lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    rec("g_clipped", model.blocks[1].mlp[0].weight.grad)
    tot = lib.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]).norm()
    rec("clipped_norm", tot)


def p_kto(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=4)
    ref = _make_lm(lib, dt, seed=5)
    for p in ref.parameters():
        p.requires_grad = False
    g = lib.Generator().manual_seed(7)
    ids = lib.randint(1, VOCAB, (6, 9), generator=g)
    labels = ids.clone()
    labels[:, :3] = -100
    desirable = lib.tensor([True, False, True, True, False, False])
    # the KL batch pairs each completion with a mismatched prompt
    kl_ids = lib.cat([ids[:, :3], ids.roll(1, dims=0)[:, 3:]], dim=1)
    logps = _seq_logps(lib, model(ids), labels)
    kl_logps = _seq_logps(lib, model(kl_ids), labels.roll(1, dims=0))
    with lib.no_grad():
        ref_logps = _seq_logps(lib, ref(ids), labels)
        ref_kl = _seq_logps(lib, ref(kl_ids), labels.roll(1, dims=0))
    kl = (kl_logps - ref_kl).mean().clamp(min=0).detach()
    rec("kl", kl)
    beta, dw, uw = 0.1, 1.0, 1.33
    ch = logps[desirable]
    rj = logps[~desirable]
    ch_ref = ref_logps[desirable]
    rj_ref = ref_logps[~desirable]
    chosen_losses = 1 - F.sigmoid(beta * ((ch - ch_ref) - kl))
    rejected_losses = 1 - F.sigmoid(beta * (kl - (rj - rj_ref)))
    rec("chosen_losses", chosen_losses)
    rec("rejected_losses", rejected_losses)
    losses = lib.cat((dw * chosen_losses, uw * rejected_losses), 0)
    rec("losses", losses)
    rec("n", lib.tensor([ch.numel(), rj.numel()]))
    rec("idx", desirable.nonzero().flatten())
    loss = losses.nanmean()
    loss.backward()
    rec("g_head", model.lm_head.weight.grad)
    rec("g_b0", model.blocks[0].proj.bias.grad)
    # an empty side (all desirable) gives an empty tensor and a nan mean
    empty = logps.detach()[lib.zeros(6, dtype=lib.bool)]
    rec("empty", empty)
    rec("empty_mean", empty.mean())
    rec("empty_nansum", empty.nansum())


def p_reward_model(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn

    class RM(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = _make_lm(lib, dt, seed=6)
            self.score = nn.Linear(VOCAB, 1, bias=False, dtype=dt)

        def forward(self, ids, mask):
            h = self.body(ids, mask)
            rewards = self.score(h).squeeze(-1)
            last = mask.sum(-1) - 1
            return rewards.gather(1, last.unsqueeze(-1)).squeeze(-1), rewards

    lib.manual_seed(11)
    rm = RM()
    chosen, rejected, mask_c, mask_r, _, _ = _pair_batch(lib, seed=8)
    opt = lib.optim.AdamW(rm.parameters(), lr=3e-3, betas=(0.9, 0.95), eps=1e-6)
    margin = lib.tensor([0.5, 1.0, 0.0], dtype=dt)
    for step in range(3):
        rc, all_c = rm(chosen, mask_c)
        rr, _ = rm(rejected, mask_r)
        loss = -F.logsigmoid(rc - rr - margin).mean()
        # centring regulariser
        loss = loss + 0.01 * ((rc + rr) ** 2).mean()
        rec(f"rc{step}", rc)
        rec(f"loss{step}", loss)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    rec("all_c", all_c)
    rec("acc", (rc > rr).float().mean())
    rec("bt_prob", lib.sigmoid(rc - rr))
    rec("score_w", rm.score.weight)
    st = opt.state_dict()
    rec("n_state", len(st["state"]))
    rec("step", st["state"][0]["step"])
    rec("exp_avg_sq", st["state"][1]["exp_avg_sq"])
    # BCE-with-logits form of the Bradley-Terry loss
    bce = F.binary_cross_entropy_with_logits(
        (rc - rr).detach(), lib.ones_like(rc), reduction="none"
    )
    rec("bce", bce)


def _gae(lib, rewards, values, mask, gamma=1.0, lam=0.95):
    lastgaelam = 0
    adv_rev = []
    T = rewards.shape[-1]
    for t in reversed(range(T)):
        nextvalues = values[:, t + 1] if t < T - 1 else 0.0
        delta = rewards[:, t] + gamma * nextvalues - values[:, t]
        lastgaelam = delta + gamma * lam * lastgaelam
        adv_rev.append(lastgaelam)
    adv = lib.stack(adv_rev[::-1], dim=1)
    returns = adv + values
    return adv * mask, returns


def p_gae_whiten(lib, dt, rec):
    g = lib.Generator().manual_seed(9)
    B, T = 4, 7
    values = lib.randn(B, T, generator=g, dtype=dt)
    lens = lib.tensor([7, 5, 3, 6])
    mask = (lib.arange(T)[None] < lens[:, None]).to(dt)
    logprobs = -lib.rand(B, T, generator=g, dtype=dt) * 3
    ref_logprobs = logprobs + lib.randn(B, T, generator=g, dtype=dt) * 0.2
    score = lib.randn(B, generator=g, dtype=dt)
    kl_coef = 0.05
    log_ratio = (logprobs - ref_logprobs) * mask
    k1 = log_ratio
    k2 = 0.5 * log_ratio**2
    k3 = (lib.exp(-log_ratio) - 1) + log_ratio
    rec("k1", k1)
    rec("k2", k2)
    rec("k3", k3)
    rewards = -kl_coef * k1
    # the score goes on the last real token
    last = (lens - 1).unsqueeze(1)
    rewards = rewards.scatter_add(1, last, score.unsqueeze(1))
    rec("rewards", rewards)
    values = values * mask
    adv, returns = _gae(lib, rewards, values, mask, gamma=0.99, lam=0.95)
    rec("adv", adv)
    rec("returns", returns)
    w = _masked_whiten(lib, adv, mask)
    rec("whiten", w)
    rec("whiten_keep", _masked_whiten(lib, adv, mask, shift_mean=False))
    rec("mmean", _masked_mean(w, mask))
    rec("mvar", _masked_var(w, mask))
    rec("mvar_b", _masked_var(adv, mask, unbiased=False))
    # the same by boolean indexing and torch's var/std
    sel = adv[mask.bool()]
    rec("sel_var", sel.var())
    rec("sel_std", sel.std(correction=0))
    vm = lib.var_mean(sel, unbiased=True)
    rec("var_mean", lib.stack(vm))
    rec("per_seq", _masked_mean(adv, mask, dim=1))
    # discounted returns by cumulative ops
    disc = 0.9 ** lib.arange(T, dtype=dt)
    ret2 = (rewards * disc).flip(1).cumsum(1).flip(1) / disc
    rec("ret2", ret2)


def p_ppo_step(lib, dt, rec):
    F = lib.nn.functional
    policy = _make_lm(lib, dt, seed=7, value_head=True)
    ref = _make_lm(lib, dt, seed=7, value_head=True).requires_grad_(False)
    g = lib.Generator().manual_seed(10)
    B, P, R = 4, 4, 5
    query = lib.randint(1, VOCAB, (B, P), generator=g)
    response = lib.randint(1, VOCAB, (B, R), generator=g)
    ids = lib.cat([query, response], 1)
    resp_mask = lib.ones(B, R, dtype=dt)
    resp_mask[1, 3:] = 0
    resp_mask[3, 4:] = 0
    score = lib.tensor([1.0, -0.5, 0.3, 2.0], dtype=dt)
    with lib.no_grad():
        logits, values = policy(ids)
        old_logps = lib.gather(
            F.log_softmax(logits[:, P - 1 : -1], -1), 2, response.unsqueeze(-1)
        ).squeeze(-1)
        old_values = values[:, P - 1 : -1]
        rlogits, _ = ref(ids)
        ref_logps = lib.gather(
            F.log_softmax(rlogits[:, P - 1 : -1], -1), 2, response.unsqueeze(-1)
        ).squeeze(-1)
    kl = old_logps - ref_logps
    rewards = -0.1 * kl * resp_mask
    last = resp_mask.sum(1).long() - 1
    rewards[lib.arange(B), last] += score
    adv, returns = _gae(lib, rewards, old_values * resp_mask, resp_mask)
    adv = _masked_whiten(lib, adv, resp_mask)
    rec("adv", adv)
    opt = lib.optim.Adam(policy.parameters(), lr=1e-3, eps=1e-5)
    cliprange, cliprange_value, vf_coef = 0.2, 0.2, 0.1
    for epoch in range(2):
        for mb in (lib.tensor([0, 2]), lib.tensor([1, 3])):
            logits, vpred = policy(ids[mb])
            logits = logits[:, P - 1 : -1] / 0.7
            new_logps = lib.gather(
                F.log_softmax(logits, -1), 2, response[mb].unsqueeze(-1)
            ).squeeze(-1)
            m = resp_mask[mb]
            vpred = vpred[:, P - 1 : -1]
            vclip = lib.clamp(
                vpred,
                old_values[mb] - cliprange_value,
                old_values[mb] + cliprange_value,
            )
            vf1 = (vpred - returns[mb]) ** 2
            vf2 = (vclip - returns[mb]) ** 2
            vf_loss = 0.5 * _masked_mean(lib.max(vf1, vf2), m)
            vf_clipfrac = _masked_mean((vf2 > vf1).float(), m)
            ratio = lib.exp(new_logps - old_logps[mb])
            pg1 = -adv[mb] * ratio
            pg2 = -adv[mb] * lib.clamp(ratio, 1.0 - cliprange, 1.0 + cliprange)
            pg_loss = _masked_mean(lib.maximum(pg1, pg2), m)
            clipfrac = _masked_mean(lib.gt(pg2, pg1).float(), m)
            approxkl = 0.5 * _masked_mean((new_logps - old_logps[mb]) ** 2, m)
            ent = lib.logsumexp(logits, -1) - (F.softmax(logits, -1) * logits).sum(-1)
            loss = pg_loss + vf_coef * vf_loss
            opt.zero_grad()
            loss.backward()
            gn = lib.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            tag = f"{epoch}.{mb[0].item()}"
            rec("loss" + tag, loss)
            rec("ratio" + tag, ratio)
            rec("clipfrac" + tag, clipfrac)
            rec("vf_clipfrac" + tag, vf_clipfrac)
            rec("approxkl" + tag, approxkl)
            rec("ent" + tag, _masked_mean(ent, m))
            rec("gn" + tag, gn)
    rec("v_head", policy.v_head[1].weight)


def p_grpo(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=8)
    ref = copy.deepcopy(model).eval()
    for p in ref.parameters():
        p.requires_grad_(False)
    G, prompts, P, C = 4, 2, 3, 5
    g = lib.Generator().manual_seed(12)
    prompt = lib.randint(1, VOCAB, (prompts, P), generator=g)
    prompt = prompt.repeat_interleave(G, dim=0)
    completion = lib.randint(1, VOCAB, (prompts * G, C), generator=g)
    eos = 3
    completion[2, 2] = eos
    completion[5, 0] = eos
    is_eos = completion == eos
    eos_idx = lib.full((is_eos.size(0),), is_eos.size(1), dtype=lib.long)
    eos_idx[is_eos.any(dim=1)] = is_eos.int().argmax(dim=1)[is_eos.any(dim=1)]
    seq_idx = lib.arange(is_eos.size(1)).expand(is_eos.size(0), -1)
    cmask = (seq_idx <= eos_idx.unsqueeze(1)).int()
    rec("cmask", cmask)
    rewards = lib.tensor([1.0, 0.0, 0.5, 0.0, 1.0, 1.0, 1.0, 1.0], dtype=dt)
    mean_g = rewards.view(-1, G).mean(dim=1).repeat_interleave(G, dim=0)
    std_g = rewards.view(-1, G).std(dim=1).repeat_interleave(G, dim=0)
    adv = (rewards - mean_g) / (std_g + 1e-4)
    rec("std_g", std_g)
    rec("adv", adv)
    ids = lib.cat([prompt, completion], 1)
    logits = model(ids)[:, P - 1 : -1]
    logits = logits / 0.9
    logps = lib.gather(logits.log_softmax(-1), 2, completion.unsqueeze(-1)).squeeze(-1)
    with lib.no_grad():
        ref_logps = lib.gather(
            ref(ids)[:, P - 1 : -1].div(0.9).log_softmax(-1), 2, completion.unsqueeze(-1)
        ).squeeze(-1)
    beta, eps = 0.04, 0.2
    per_token_kl = lib.exp(ref_logps - logps) - (ref_logps - logps) - 1
    old = logps.detach()
    coef1 = lib.exp(logps - old)
    coef2 = lib.clamp(coef1, 1 - eps, 1 + eps)
    per_tok = -lib.min(coef1 * adv.unsqueeze(1), coef2 * adv.unsqueeze(1))
    per_tok = per_tok + beta * per_token_kl
    loss = ((per_tok * cmask).sum(dim=1) / cmask.sum(dim=1)).mean()
    rec("loss", loss)
    # DAPO's token-level normalisation
    rec("loss_tok", (per_tok * cmask).sum() / cmask.sum().clamp(min=1.0))
    loss.backward()
    rec("g_head", model.wte.weight.grad)
    rec("g_ln2", model.blocks[1].ln2.weight.grad)
    rec("kl", ((per_token_kl * cmask).sum(1) / cmask.sum(1)).mean())
    # groups with zero std
    rec("zero_std", (std_g < 1e-6).sum())
    F.normalize(rewards.view(-1, G), dim=1)  # just must run
    rec("norm", F.normalize(rewards.view(-1, G) - mean_g.view(-1, G), dim=1))


def p_rloo_reinforce(lib, dt, rec):
    D_ = lib.distributions
    g = lib.Generator().manual_seed(13)
    k, n = 4, 3
    rlhf_reward = lib.randn(k * n, generator=g, dtype=dt)
    r = rlhf_reward.reshape(k, n)
    baseline = (r.sum(0) - r) / (k - 1)
    adv = (r - baseline).flatten()
    rec("rloo_adv", adv)
    # REINFORCE with a Categorical policy over the vocab
    logits = lib.randn(k * n, VOCAB, generator=g, dtype=dt).requires_grad_()
    dist = D_.Categorical(logits=logits)
    lib.manual_seed(3)
    a = dist.sample()
    rec("a", a)
    lp = dist.log_prob(a)
    rec("lp", lp)
    rec("ent", dist.entropy())
    loss = -(adv.detach() * lp).mean() - 0.01 * dist.entropy().mean()
    loss.backward()
    rec("g_logits", logits.grad)
    # probs and logits parametrisations agree
    d2 = D_.Categorical(probs=logits.detach().softmax(-1))
    rec("lp2", d2.log_prob(a))
    rec("kl", D_.kl_divergence(dist, d2))
    # OneHotCategorical and sample with a shape
    lib.manual_seed(4)
    s = D_.Categorical(logits=logits.detach()[:2]).sample((3,))
    rec("s", s)
    rec("s.shape", str(tuple(s.shape)))
    # ReMax-style baseline: reward minus greedy reward
    greedy = logits.detach().argmax(-1)
    rec("greedy", greedy)
    rec("remax", rlhf_reward - rlhf_reward[greedy % (k * n)])


def p_entropy(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(14)
    logits = (lib.randn(3, 5, VOCAB, generator=g, dtype=dt) * 2).requires_grad_()
    mask = lib.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], dtype=lib.bool)
    pd = F.softmax(logits, dim=-1)
    ent = lib.logsumexp(logits, dim=-1) - lib.sum(pd * logits, dim=-1)
    rec("ent", ent)
    ent2 = -(pd * F.log_softmax(logits, -1)).sum(-1)
    rec("ent2", ent2)
    ent3 = lib.distributions.Categorical(logits=logits).entropy()
    rec("ent3", ent3)
    rec("ent_special", -lib.special.xlogy(pd, pd).sum(-1))
    rec("entr", lib.special.entr(pd).sum(-1))
    masked = ent.masked_select(mask)
    rec("masked", masked)
    loss = -masked.mean()
    loss.backward()
    rec("g", logits.grad[0, 0])
    # entropy in chunks (memory-saving) with no_grad and torch.split
    with lib.no_grad():
        parts = [lib.logsumexp(c, -1) - (c.softmax(-1) * c).sum(-1) for c in logits.split(2, dim=1)]
    rec("chunks", lib.cat(parts, 1))
    # top-k entropy (entropy of renormalised top tokens)
    tv, ti = logits.detach().topk(4, dim=-1)
    rec("ti", ti)
    rec("topk_ent", -(tv.softmax(-1) * tv.log_softmax(-1)).sum(-1))
    # KL between two token distributions
    other = logits.detach() + 0.3 * lib.randn(3, 5, VOCAB, generator=g, dtype=dt)
    kl = F.kl_div(other.log_softmax(-1), logits.detach().log_softmax(-1), reduction="none",
                  log_target=True).sum(-1)  # fmt: skip
    rec("kl", kl)
    rec("kl_bm", F.kl_div(other.log_softmax(-1), logits.detach().softmax(-1),
                          reduction="batchmean"))  # fmt: skip


def p_best_of_n(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=9)
    g = lib.Generator().manual_seed(15)
    n, P, L = 6, 3, 4
    prompt = lib.randint(1, VOCAB, (1, P), generator=g).expand(n, -1)
    ids = prompt.clone()
    with lib.no_grad():
        for _ in range(L):
            logits = model(ids)[:, -1, :]
            probs = F.softmax(logits / 1.3, dim=-1)
            nxt = lib.multinomial(probs, num_samples=1, generator=g)
            ids = lib.cat([ids, nxt], dim=1)
    rec("ids", ids)
    # a toy reward: count of even tokens minus a length-free bias
    rewards = (ids[:, P:] % 2 == 0).to(dt).sum(-1) + lib.linspace(0, 0.1, n, dtype=dt)
    rec("rewards", rewards)
    best = rewards.argmax()
    rec("best", ids[best])
    top_r, top_i = rewards.topk(2)
    rec("top_i", top_i)
    rec("top_r", top_r)
    # rejection sampling: keep with probability exp((r - max)/beta)
    accept_p = lib.exp((rewards - rewards.max()) / 0.5)
    u = lib.rand(n, generator=g, dtype=dt)
    keep = u < accept_p
    rec("keep", keep)
    rec("kept", ids[keep])
    # sampling without replacement and with a 2-D input
    w = lib.tensor([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], dtype=dt)
    rec("mn_norep", lib.multinomial(w, 3, replacement=False, generator=g))
    rec("mn_rep", lib.multinomial(w[0], 8, replacement=True, generator=g))
    # a generator's state replays a draw
    state = g.get_state()
    a = lib.multinomial(w, 2, generator=g)
    g.set_state(state)
    b = lib.multinomial(w, 2, generator=g)
    rec("replay", lib.equal(a, b))
    # best-of-n score by log-probs of the sample under the model
    with lib.no_grad():
        lp = _seq_logps(lib, model(ids), lib.cat([lib.full((n, P), -100), ids[:, P:]], 1))
    rec("lp", lp)


def _top_k_top_p(lib, logits, top_k=0, top_p=1.0, filter_value=-float("inf")):
    if top_k > 0:
        kth = lib.topk(logits, top_k)[0][..., -1, None]
        logits = logits.masked_fill(logits < kth, filter_value)
    if top_p < 1.0:
        sorted_logits, sorted_indices = lib.sort(logits, descending=True)
        cum = lib.cumsum(lib.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = 0
        indices_to_remove = remove.scatter(1, sorted_indices, remove)
        logits = logits.masked_fill(indices_to_remove, filter_value)
    return logits


def p_rollout_top_p(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=10)
    model.eval()
    g = lib.Generator().manual_seed(16)
    B, P, L, eos, pad = 3, 3, 6, 2, 0
    ids = lib.randint(3, VOCAB, (B, P), generator=g)
    finished = lib.zeros(B, dtype=lib.bool)
    with lib.inference_mode():
        for step in range(L):
            logits = model(ids)[:, -1, :] / 0.8
            filt = _top_k_top_p(lib, logits, top_k=8, top_p=0.9)
            if step == 0:
                rec("filt", filt)
                rec("n_kept", lib.isfinite(filt).sum(-1))
            probs = F.softmax(filt, dim=-1)
            nxt = lib.multinomial(probs, 1, generator=g).squeeze(1)
            nxt = lib.where(finished, lib.full_like(nxt, pad), nxt)
            finished |= nxt == eos
            ids = lib.cat([ids, nxt[:, None]], dim=-1)
    rec("ids", ids)
    rec("finished", finished)
    # the response mask up to and including eos, by cumsum over eos hits
    resp = ids[:, P:]
    after = (resp == eos).long().cumsum(-1) - (resp == eos).long()
    rec("resp_mask", after == 0)
    # greedy decoding equals top_k=1
    with lib.no_grad():
        logits = model(ids[:, :P])[:, -1, :]
    rec("greedy", logits.argmax(-1))
    rec("topk1", _top_k_top_p(lib, logits, top_k=1).argmax(-1))
    # min-p filtering
    p = logits.softmax(-1)
    thresh = 0.1 * p.max(-1, keepdim=True).values
    rec("min_p", (p >= thresh).sum(-1))


def p_grad_accum(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=11)
    twin = copy.deepcopy(model)
    g = lib.Generator().manual_seed(17)
    ids = lib.randint(1, VOCAB, (6, 8), generator=g)
    labels = ids.clone()
    labels[:, :2] = -100
    labels[4, 5:] = -100
    # full batch, token-mean loss
    logits = model(ids)
    loss_full = F.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())
    loss_full.backward()
    rec("loss_full", loss_full)
    # micro-batches of 2, each scaled by its share of the valid tokens
    n_valid = (labels[:, 1:] != -100).sum()
    accum = 3
    for i, mb in enumerate(ids.chunk(accum)):
        lb = labels[2 * i : 2 * i + 2]
        out = twin(mb)
        s = F.cross_entropy(out[:, :-1].flatten(0, 1), lb[:, 1:].flatten(), reduction="sum")
        (s / n_valid).backward()
    for (name, p), p2 in zip(model.named_parameters(), twin.parameters(), strict=True):
        if name.endswith("qkv.weight") or name == "wte.weight":
            rec("g_" + name, p.grad)
            rec("g2_" + name, p2.grad)
    pairs = zip(model.parameters(), twin.parameters(), strict=True)
    rec("same", all(lib.allclose(a.grad, b.grad, atol=1e-6) for a, b in pairs))
    # per-micro-batch mean loss divided by accum: a different (biased) gradient
    twin.zero_grad()
    for i, mb in enumerate(ids.chunk(accum)):
        lb = labels[2 * i : 2 * i + 2]
        out = twin(mb)
        (F.cross_entropy(out[:, :-1].flatten(0, 1), lb[:, 1:].flatten()) / accum).backward()
    rec("g_biased", twin.ln_f.weight.grad)
    rec("grad_none", str([p.grad is None for p in twin.parameters()][:3]))
    # SGD with momentum step on accumulated grads
    opt = lib.optim.SGD(twin.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    opt.step()
    rec("after_sgd", twin.ln_f.weight)


def _no_decay_groups(model, wd):
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if p.ndim < 2 or "ln" in n or n.endswith(".bias"):
            no_decay.append(p)
        else:
            decay.append(p)
    return [{"params": decay, "weight_decay": wd}, {"params": no_decay, "weight_decay": 0.0}]


def _cosine_with_warmup(warmup, total, cycles=0.5, min_ratio=0.0):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        progress = float(step - warmup) / float(max(1, total - warmup))
        cos = 0.5 * (1.0 + math.cos(math.pi * float(cycles) * 2.0 * progress))
        return max(min_ratio, cos * (1 - min_ratio) + min_ratio)

    return f


def p_adamw_groups_cosine(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=12)
    groups = _no_decay_groups(model, 0.1)
    rec("n_groups", lib.tensor([len(g["params"]) for g in groups]))
    opt = lib.optim.AdamW(groups, lr=5e-3, betas=(0.9, 0.98), eps=1e-8)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, _cosine_with_warmup(2, 8))
    g = lib.Generator().manual_seed(18)
    ids = lib.randint(1, VOCAB, (4, 9), generator=g)
    lrs = []
    for step in range(8):
        logits = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=2.0)
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        rec(f"loss{step}", loss)
    rec("lrs", lrs)
    rec("group_lrs", [g["lr"] for g in opt.param_groups])
    rec("ln_w", model.ln_f.weight)
    rec("wte", model.wte.weight[:3])
    rec("sched_state", str(sorted(k for k in sched.state_dict() if k != "lr_lambdas")))
    rec("last_epoch", sched.last_epoch)
    # a two-lambda scheduler (one per group) and a OneCycle/Cosine alternative
    opt2 = lib.optim.AdamW(_no_decay_groups(model, 0.01), lr=1.0)
    s2 = lib.optim.lr_scheduler.LambdaLR(opt2, [lambda s: 0.9**s, _cosine_with_warmup(1, 4)])
    hist = []
    for _ in range(4):
        opt2.step()
        s2.step()
        hist.append(s2.get_last_lr())
    rec("two_lambdas", hist)
    opt3 = lib.optim.AdamW(model.parameters(), lr=1e-3)
    warm = lib.optim.lr_scheduler.LinearLR(opt3, start_factor=0.1, total_iters=2)
    cos = lib.optim.lr_scheduler.CosineAnnealingLR(opt3, T_max=4, eta_min=1e-5)
    seq = lib.optim.lr_scheduler.SequentialLR(opt3, [warm, cos], milestones=[2])
    hist = []
    for _ in range(6):
        opt3.step()
        seq.step()
        hist.append(seq.get_last_lr()[0])
    rec("sequential", hist)


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    d = dt
    logits = lib.zeros(2, 4, 5, dtype=d)
    rec.err("gather_int32", lambda: lib.gather(logits, 2, lib.zeros(2, 4, 1, dtype=lib.int32)))
    rec.err("gather_dims", lambda: lib.gather(logits, 2, lib.zeros(2, 4, dtype=lib.long)))
    rec.err("gather_oob", lambda: lib.gather(logits, 2, lib.full((2, 4, 1), 5)))
    rec.err("ce_oob", lambda: F.cross_entropy(logits[0], lib.tensor([0, 1, 7, 2])))
    rec.err("ce_shape", lambda: F.cross_entropy(logits, lib.zeros(2, 5, dtype=lib.long)))
    rec.err("ce_float_target_shape", lambda: F.cross_entropy(logits[0], lib.zeros(4, 3, dtype=d)))
    rec.err("nll_neg", lambda: F.nll_loss(logits[0], lib.tensor([0, -5, 1, 2])))
    rec.err("mn_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1, 0.6], dtype=d), 1))
    rec.err("mn_zero", lambda: lib.multinomial(lib.zeros(3, dtype=d), 1))
    rec.err("mn_many", lambda: lib.multinomial(lib.tensor([0.5, 0.5, 0.0], dtype=d), 3))
    rec.err("mn_3d", lambda: lib.multinomial(lib.ones(2, 2, 2, dtype=d), 1))
    rec.err("log_softmax_int", lambda: F.log_softmax(lib.tensor([1, 2, 3]), dim=0))
    rec.err("logsigmoid_int", lambda: F.logsigmoid(lib.tensor([1, 2, 3])))
    rec.err("take_along", lambda: lib.take_along_dim(logits, lib.zeros(2, 4, 1), dim=2))
    rec.err("softmax_dim", lambda: F.softmax(logits, dim=3))
    rec.err("lambda_len", lambda: lib.optim.lr_scheduler.LambdaLR(
        lib.optim.AdamW(_no_decay_groups(_make_lm(lib, dt), 0.1)), [lambda s: 1.0]
    ))  # fmt: skip
    rec.err("adamw_lr", lambda: lib.optim.AdamW([lib.zeros(2, requires_grad=True)], lr=-1.0))
    rec.err(
        "adamw_wd", lambda: lib.optim.AdamW([lib.zeros(2, requires_grad=True)], weight_decay=-1)
    )
    rec.err(
        "adam_beta", lambda: lib.optim.AdamW([lib.zeros(2, requires_grad=True)], betas=(1.0, 0.9))
    )
    rec.err("dup_params", lambda: lib.optim.AdamW([
        {"params": [p := lib.nn.Parameter(lib.zeros(2))]}, {"params": [p]}
    ]))  # fmt: skip
    x = lib.zeros(3, dtype=d, requires_grad=True)
    rec.err("backward_twice", lambda: [y := (x.exp() * 2).sum(), y.backward(), y.backward()])
    rec.err("no_grad_backward", lambda: _nograd_backward(lib, x))
    rec.err("clip_nonfinite", lambda: lib.nn.utils.clip_grad_norm_(
        [_with_grad(lib, d, float("inf"))], 1.0, error_if_nonfinite=True
    ))  # fmt: skip
    rec.err(
        "ce_label_smooth",
        lambda: F.cross_entropy(logits[0], lib.tensor([0, 1, 2, 3]), label_smoothing=1.5),
    )
    z = lib.zeros(1, 2, 3, 4, dtype=d)
    rec.err("sdpa_mask", lambda: F.scaled_dot_product_attention(
        z, z, z, attn_mask=lib.ones(3, 3, dtype=lib.bool), is_causal=True
    ))  # fmt: skip
    rec.err("embedding_oob", lambda: lib.nn.Embedding(5, 3)(lib.tensor([[1, 5]])))
    rec.err("topk_big", lambda: lib.topk(logits, 6))


def _nograd_backward(lib, x):
    with lib.no_grad():
        y = (x * 2).sum()
    y.backward()


def _with_grad(lib, d, v):
    p = lib.nn.Parameter(lib.ones(2, dtype=d))
    p.grad = lib.tensor([v, 1.0], dtype=d)
    return p


def p_sdpa_model(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=13, sdpa=True)
    manual = _make_lm(lib, dt, seed=13, sdpa=False)
    ids = _ids(lib, 2, 7, seed=19)
    a = model(ids)
    b = manual(ids)
    rec("sdpa", a)
    rec("diff", (a - b).abs().max() < 1e-5)
    # left padding with a boolean attention mask
    am = lib.tensor([[0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]])
    a2 = model(ids, am)
    b2 = manual(ids, am)
    rec("sdpa_pad", a2[:, 2:])
    rec("diff_pad", (a2[:, 2:] - b2[:, 2:]).abs().max() < 1e-5)
    # logits at the last position agree with the unpadded sequence's
    a3 = model(ids[:1, 2:])
    rec("pad_vs_unpad", (a3[0, -1] - a2[0, -1]).abs().max() < 1e-5)
    loss = F.cross_entropy(a2[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
    loss.backward()
    rec("g_qkv", model.blocks[0].qkv.weight.grad)
    # sdpa with scale, dropout off and a float mask
    q = lib.randn(1, 2, 4, 8, generator=lib.Generator().manual_seed(1), dtype=dt)
    fm = lib.zeros(4, 4, dtype=dt).masked_fill(
        lib.ones(4, 4, dtype=lib.bool).triu(1), float("-inf")
    )
    o1 = F.scaled_dot_product_attention(q, q, q, attn_mask=fm, scale=0.5)
    o2 = F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.5)
    rec("o1", o1)
    rec("o_same", lib.allclose(o1, o2))


def p_concat_forward(lib, dt, rec):
    F = lib.nn.functional
    pad = lib.nn.utils.rnn.pad_sequence
    model = _make_lm(lib, dt, seed=14)
    g = lib.Generator().manual_seed(20)
    chosen = [lib.randint(1, VOCAB, (n,), generator=g) for n in (5, 8, 6)]
    rejected = [lib.randint(1, VOCAB, (n,), generator=g) for n in (7, 4, 6)]
    seqs = chosen + rejected
    ids = pad(seqs, batch_first=True, padding_value=0)
    labels = pad(seqs, batch_first=True, padding_value=-100)
    am = pad([lib.ones_like(s) for s in seqs], batch_first=True)
    rec("ids", ids)
    rec("am", am)
    logits = model(ids, am)
    lp = _seq_logps(lib, logits, labels)
    rec("lp", lp)
    pc, pr = lp.split(3)
    # with a reference model's log-probs precomputed as constants
    ref_c = pc.detach() - 0.1
    ref_r = pr.detach() + 0.2
    loss = -F.logsigmoid(0.5 * ((pc - pr) - (ref_c - ref_r))).mean()
    rec("loss", loss)
    loss.backward()
    rec("g", model.blocks[0].mlp[0].bias.grad)
    # right-pad vs per-sequence forward agree at real positions
    one = model(chosen[0][None])
    rec("pad_ok", (one[0] - logits[0, :5]).abs().max() < 1e-5)
    # padding side left by flip
    left = pad([s.flip(0) for s in seqs], batch_first=True).flip(1)
    rec("left", left)
    # pack_padded_sequence lengths bookkeeping
    lens = am.sum(1)
    rec("lens", lens)
    rec("sorted", lens.sort(descending=True, stable=True).indices)


def p_kl_controller(lib, dt, rec):
    class AdaptiveKLController:
        def __init__(self, init_kl_coef, target, horizon):
            self.value = init_kl_coef
            self.target = target
            self.horizon = horizon

        def update(self, current, n_steps):
            proportional_error = max(min(current / self.target - 1, 0.2), -0.2)
            mult = 1 + proportional_error * n_steps / self.horizon
            self.value *= mult

    g = lib.Generator().manual_seed(21)
    ctl = AdaptiveKLController(0.2, 6.0, 10000)
    coefs = []
    for _ in range(5):
        lp = -lib.rand(8, 6, generator=g, dtype=dt) * 4
        ref = lp + lib.randn(8, 6, generator=g, dtype=dt)
        kl = (lp - ref).sum(-1).mean()
        ctl.update(kl.item(), 8)
        coefs.append(ctl.value)
    rec("coefs", coefs)
    # k3 is unbiased and positive; compare the three estimators on samples of two Normals
    p = lib.distributions.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt))
    q = lib.distributions.Normal(lib.tensor(0.1, dtype=dt), lib.tensor(1.0, dtype=dt))
    lib.manual_seed(0)
    x = q.sample((2000,))
    logr = p.log_prob(x) - q.log_prob(x)
    rec("k1", (-logr).mean())
    rec("k2", (logr**2 / 2).mean())
    rec("k3", ((logr.exp() - 1) - logr).mean())
    rec("true", lib.distributions.kl_divergence(q, p))
    rec("k3_min", ((logr.exp() - 1) - logr).min() >= 0)
    # the clamp of the log-ratio used by some trainers
    rec("clamped", logr.clamp(-10, 10)[:5])


def p_value_head(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=15, value_head=True)
    ids = _ids(lib, 3, 8, seed=22)
    am = lib.tensor([[1] * 8, [1] * 6 + [0] * 2, [1] * 4 + [0] * 4])
    logits, values = model(ids, am)
    rec("values", values)
    returns = lib.randn(3, 8, generator=lib.Generator().manual_seed(23), dtype=dt)
    m = am.to(values.dtype)
    old = values.detach() + 0.1
    vclip = old + (values - old).clamp(-0.2, 0.2)
    l1 = (values - returns).square()
    l2 = (vclip - returns).square()
    vf = 0.5 * _masked_mean(lib.maximum(l1, l2), m)
    rec("vf", vf)
    hub = F.huber_loss(values, returns, reduction="none", delta=0.5)
    sl1 = F.smooth_l1_loss(values, returns, reduction="none", beta=0.5)
    rec("huber", _masked_mean(hub, m))
    rec("sl1_ratio", _masked_mean(hub, m) / _masked_mean(sl1, m))
    mse = F.mse_loss(values[m.bool()], returns[m.bool()])
    rec("mse", mse)
    (vf + 0.5 * mse).backward()
    rec("g_v", model.v_head[1].weight.grad)
    rec("g_vb", model.v_head[1].bias.grad)
    rec("g_lm_none", model.lm_head.weight.grad is not None)
    # the explained variance metric
    y = returns[m.bool()]
    yp = values.detach()[m.bool()]
    rec("ev", 1 - (y - yp).var() / y.var())


def p_state_roundtrip(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=16)
    opt = lib.optim.AdamW(_no_decay_groups(model, 0.05), lr=1e-2)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, _cosine_with_warmup(1, 5))
    ids = _ids(lib, 2, 6, seed=24)

    def step():
        loss = F.cross_entropy(model(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        return loss

    step()
    buf = io.BytesIO()
    lib.save(
        {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf
    )
    a = [step().detach() for _ in range(2)]
    rec("a", lib.stack(a))
    buf.seek(0)
    ck = lib.load(buf, weights_only=False)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    sched.load_state_dict(ck["sched"])
    b = [step().detach() for _ in range(2)]
    rec("b", lib.stack(b))
    rec("lr", sched.get_last_lr())
    rec("keys", str(list(model.state_dict().keys())[:6]))
    rec("tied", model.lm_head.weight is model.wte.weight)
    rec("n_params", sum(p.numel() for p in model.parameters()))
    rec("missing", str(model.load_state_dict(ck["model"], strict=False)))
    # a frozen copy loaded from the policy
    ref = _make_lm(lib, dt, seed=99)
    ref.load_state_dict(model.state_dict())
    ref.requires_grad_(False)
    rec("ref_eq", lib.equal(ref(ids), model(ids)))
    rec("ref_rg", str(ref(ids).requires_grad))


def p_selective_log_softmax(lib, dt, rec):
    """TRL's selective_log_softmax: logsumexp row by row for float32/64, log_softmax by row for
    half types."""
    g = lib.Generator().manual_seed(25)
    logits = (lib.randn(3, 6, VOCAB, generator=g, dtype=dt) * 3).requires_grad_()
    index = lib.randint(0, VOCAB, (3, 6), generator=g)
    sel = lib.gather(logits, dim=-1, index=index.unsqueeze(-1)).squeeze(-1)
    lse = lib.stack([lib.logsumexp(lg, dim=-1) for lg in logits])
    out = sel - lse
    rec("out", out)
    ref = logits.log_softmax(-1).gather(-1, index[..., None])[..., 0]
    rec("close", lib.allclose(out, ref))
    out.sum().backward()
    rec("g", logits.grad)
    # half precision path, in float32 afterwards
    half = logits.detach().to(lib.bfloat16)
    rows = []
    for row_logits, row_labels in zip(half, index, strict=True):
        row_lp = lib.nn.functional.log_softmax(row_logits, dim=-1)
        rows.append(row_lp.gather(dim=-1, index=row_labels.unsqueeze(-1)).squeeze(-1))
    bf = lib.stack(rows)
    rec("bf.dtype", str(bf.dtype))
    rec("bf", bf.float())
    rec("bf_upcast", half.float().log_softmax(-1).gather(-1, index[..., None]).squeeze(-1))
    rec("ls_dtype", lib.log_softmax(half, -1, dtype=lib.float32)[0, 0])
    # log-probs of a chunked vocab projection (memory-saving chunked lm head)
    h = lib.randn(2, 5, D, generator=g, dtype=dt)
    w = lib.randn(VOCAB, D, generator=g, dtype=dt, requires_grad=True)
    tgt = lib.randint(0, VOCAB, (2, 5), generator=g)
    parts = []
    for hc, tc in zip(h.split(2, dim=1), tgt.split(2, dim=1), strict=True):
        lg = hc @ w.t()
        parts.append(lg.gather(-1, tc[..., None]).squeeze(-1) - lg.logsumexp(-1))
    lp = lib.cat(parts, dim=1)
    rec("chunked", lp)
    lp.mean().backward()
    rec("g_w", w.grad)


def p_checkpointed(lib, dt, rec):
    F = lib.nn.functional
    cp = lib.utils.checkpoint.checkpoint
    model = _make_lm(lib, dt, seed=17)
    twin = copy.deepcopy(model)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = _pair_batch(lib, seed=26)

    def forward(m, ids, am, use_cp):
        T = ids.size(1)
        pos = (am.long().cumsum(-1) - 1).clamp(min=0)
        x = m.wte(ids) + m.wpe(pos)
        for b in m.blocks:
            x = cp(b, x, am, use_reentrant=False) if use_cp else b(x, am)
        assert x.shape[1] == T
        return m.lm_head(m.ln_f(x))

    out = {}
    for tag, m, use in (("cp", model, True), ("plain", twin, False)):
        ids = lib.cat([chosen, rejected])
        am = lib.cat([mask_c, mask_r])
        pc = _seq_logps(lib, forward(m, ids, am, use), lib.cat([lab_c, lab_r]))
        a, b = pc.chunk(2)
        loss = -F.logsigmoid(0.3 * (a - b)).mean()
        loss.backward()
        out[tag] = loss
        rec(tag + ".loss", loss)
        rec(tag + ".g", m.blocks[0].mlp[0].weight.grad)
    rec("same", lib.allclose(model.blocks[1].qkv.weight.grad, twin.blocks[1].qkv.weight.grad))
    # reentrant checkpoint needs an input that requires grad
    x = model.wte(chosen)
    y = cp(model.blocks[0], x, None, use_reentrant=True)
    y.pow(2).mean().backward()
    rec("reent", model.wte.weight.grad)
    # checkpoint_sequential over an nn.Sequential
    seq = lib.nn.Sequential(*[lib.nn.Linear(D, D, dtype=dt) for _ in range(4)])
    xs = lib.randn(3, D, generator=lib.Generator().manual_seed(2), dtype=dt, requires_grad=True)
    ys = lib.utils.checkpoint.checkpoint_sequential(seq, 2, xs, use_reentrant=False)
    ys.sum().backward()
    rec("cs", ys)
    rec("cs_g", xs.grad)


def p_lora_ref(lib, dt, rec):
    """A policy as a frozen base with LoRA adapters; the reference is the base with the adapters
    disabled (as peft's disable_adapter())."""
    F = lib.nn.functional
    nn = lib.nn

    class LoRALinear(nn.Module):
        def __init__(self, base, r=4, alpha=8):
            super().__init__()
            self.base = base
            self.lora_A = nn.Parameter(lib.empty(r, base.in_features, dtype=dt))
            self.lora_B = nn.Parameter(lib.zeros(base.out_features, r, dtype=dt))
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            self.scaling = alpha / r
            self.disabled = False

        def forward(self, x):
            out = self.base(x)
            if self.disabled:
                return out
            return out + (x @ self.lora_A.T @ self.lora_B.T) * self.scaling

    model = _make_lm(lib, dt, seed=18)
    model.requires_grad_(False)
    lib.manual_seed(19)
    for b in model.blocks:
        b.qkv = LoRALinear(b.qkv)
        b.proj = LoRALinear(b.proj)
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    rec("trainable", str(trainable))
    rec("n_train", sum(p.numel() for p in model.parameters() if p.requires_grad))
    rec("n_all", sum(p.numel() for p in model.parameters()))
    loras = [m for m in model.modules() if isinstance(m, LoRALinear)]
    opt = lib.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-2)
    batch = _pair_batch(lib, seed=27)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = batch
    for step in range(3):
        with lib.no_grad():
            for m in loras:
                m.disabled = True
            rc = _seq_logps(lib, model(chosen, mask_c), lab_c)
            rr = _seq_logps(lib, model(rejected, mask_r), lab_r)
            for m in loras:
                m.disabled = False
        pc = _seq_logps(lib, model(chosen, mask_c), lab_c)
        pr = _seq_logps(lib, model(rejected, mask_r), lab_r)
        loss = -F.logsigmoid(0.1 * ((pc - pr) - (rc - rr))).mean()
        rec(f"loss{step}", loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("rc", rc)
    rec("B", model.blocks[0].qkv.lora_B)
    rec("A_grad", model.blocks[1].proj.lora_A.grad)
    rec("base_grad", str(model.blocks[0].qkv.base.weight.grad))
    # merging the adapter into the base weight gives the same logits
    with lib.no_grad():
        before = model(chosen, mask_c)
        for m in loras:
            m.base.weight += (m.lora_B @ m.lora_A) * m.scaling
            m.disabled = True
        after = model(chosen, mask_c)
    rec("merged_same", (before - after).abs().max() < 1e-4)


def p_functional_ref(lib, dt, rec):
    """The reference model as a frozen copy of the parameters run by functional_call, and
    per-pair DPO gradients by vmap(grad)."""
    F = lib.nn.functional
    fc = lib.func.functional_call
    model = _make_lm(lib, dt, seed=20)
    ref_params = {k: v.detach().clone() for k, v in model.named_parameters()}
    with lib.no_grad():
        for p in model.parameters():
            p.mul_(1.02)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = _pair_batch(lib, seed=28)
    with lib.no_grad():
        rc = _seq_logps(lib, fc(model, ref_params, (chosen, mask_c)), lab_c)
        rr = _seq_logps(lib, fc(model, ref_params, (rejected,), {"attention_mask": mask_r}),
                        lab_r)  # fmt: skip
    rec("rc", rc)
    pc = _seq_logps(lib, model(chosen, mask_c), lab_c)
    pr = _seq_logps(lib, model(rejected, mask_r), lab_r)
    rec("pc", pc)
    loss = -F.logsigmoid(0.1 * ((pc - pr) - (rc - rr))).mean()
    loss.backward()
    rec("g_head", model.wte.weight.grad)

    # the DPO loss as a function of the four log-prob vectors, per pair by vmap(grad)
    def dpo(pc_, pr_, rc_, rr_):
        return -F.logsigmoid(0.1 * ((pc_ - pr_) - (rc_ - rr_)))

    gr = lib.func.vmap(lib.func.grad(dpo, argnums=(0, 1)))(pc.detach(), pr.detach(), rc, rr)
    rec("per_pair_gc", gr[0])
    rec("per_pair_gr", gr[1])
    # jacrev of the loss vector with respect to the policy log-probs
    jac = lib.func.jacrev(dpo)(pc.detach(), pr.detach(), rc, rr)
    rec("jac", jac)
    # only a few parameters of the policy: functional_call with a partial dict, strict=False
    head_only = {"ln_f.weight": model.ln_f.weight.detach() * 0.5}
    out = fc(model, head_only, (chosen[:1],), strict=False)
    rec("partial", out[0, -1])


def p_printing(lib, dt, rec):
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=21)
    batch = _pair_batch(lib, seed=29)
    chosen, rejected, mask_c, mask_r, lab_c, lab_r = batch
    pc = _seq_logps(lib, model(chosen, mask_c), lab_c)
    pr = _seq_logps(lib, model(rejected, mask_r), lab_r)
    losses = -F.logsigmoid(0.1 * (pc - pr))
    loss = losses.mean()
    rec("loss_repr", repr(loss.detach().float().round(decimals=3)))
    rec("fn", type(loss.grad_fn).__name__)
    rec("fn_losses", str(losses.grad_fn.name()))
    rec("next", str([type(f).__name__ for f, _ in losses.grad_fn.next_functions]))
    rec("mask_repr", repr(mask_c))
    rec("lab_repr", repr(lab_c[:1]))
    metrics = {
        "rewards/chosen": pc.detach().mean().item(),
        "rewards/accuracies": (pc > pr).float().mean().item(),
        "logps/rejected": pr.detach().mean().cpu(),
    }
    rec("metrics", str({k: round(float(v), 3) for k, v in metrics.items()}))
    opt = lib.optim.AdamW(_no_decay_groups(model, 0.01), lr=1e-3, betas=(0.9, 0.95))
    rec("opt", repr(opt))
    rec("sched", type(lib.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)).__name__)
    rec("module", repr(model.blocks[0]))
    rec("emb", repr(model.wte))
    rec("tensor_list", str([round(x, 2) for x in pc.tolist()]))
    rec("fmt", f"{loss.item():.4f}")
    rec("dtype_str", str(pc.dtype))
    rec("size", str(pc.size()))


def p_autocast_bf16(lib, dt, rec):
    """A forward under CPU autocast in bfloat16; log-probs and the loss in float32 afterwards."""
    model = _make_lm(lib, dt, seed=22)
    chosen, _, mask_c, _, lab_c, _ = _pair_batch(lib, seed=30)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        logits = model(chosen, mask_c)
        rec("logits.dtype", str(logits.dtype))
        lp32 = logits.float().log_softmax(-1)
        rec("ls.dtype", str(lp32.dtype))
    per_tok, mask = _token_logps(lib, logits.float(), lab_c)
    s = (per_tok * mask).sum(-1)
    rec("finite", lib.isfinite(s).all())
    rec("close_to_fp", (s - _seq_logps(lib, model(chosen, mask_c), lab_c)).abs().max() < 0.5)
    loss = -s.mean()
    loss.backward()
    rec("g.dtype", str(model.wte.weight.grad.dtype))
    rec("g_finite", lib.isfinite(model.wte.weight.grad).all())
    # a bf16 model with float32 master weights: cast, forward, copy grads back
    master = [p.detach().clone().float() for p in model.parameters()]
    bf = copy.deepcopy(model).to(lib.bfloat16)
    rec("bf_param", str(next(bf.parameters()).dtype))
    out = bf(chosen, mask_c)
    rec("bf_out.dtype", str(out.dtype))
    rec("n_master", len(master))


def p_finfo_mask(lib, dt, rec):
    """Hugging Face's additive masks by finfo.min, fully masked rows, nan from -inf logits."""
    F = lib.nn.functional
    fmin = lib.finfo(dt).min
    rec("fmin", fmin)
    am = lib.tensor([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]])
    T = am.size(1)
    causal = lib.full((T, T), fmin, dtype=dt).triu(1)
    ext = causal[None, None] + (1.0 - am[:, None, None, :].to(dt)) * fmin
    ext = ext.clamp(min=fmin)
    rec("ext", ext[0, 0])
    g = lib.Generator().manual_seed(31)
    scores = lib.randn(2, 1, T, T, generator=g, dtype=dt)
    p = (scores + ext).softmax(-1)
    rec("p", p)
    rec("rowsum", p.sum(-1))
    # masked_fill with finfo.min where the pad is (a padded query attends uniformly)
    p2 = scores.masked_fill(ext < 0, fmin).softmax(-1)
    rec("p2", p2)
    # -inf everywhere in a row: softmax gives nan; nan_to_num cleans it
    row = lib.full((1, 4), float("-inf"), dtype=dt)
    sm = row.softmax(-1)
    rec("nan_row", sm)
    rec("nan_to_num", sm.nan_to_num(0.0))
    rec("lse_ninf", row.logsumexp(-1))
    # entropy of top-p filtered logits: softmax * logits has 0 * -inf = nan
    logits = lib.tensor([[2.0, 1.0, float("-inf"), 0.5]], dtype=dt)
    pd = logits.softmax(-1)
    rec("ent_nan", lib.logsumexp(logits, -1) - (pd * logits).sum(-1))
    safe = lib.where(lib.isinf(logits), lib.zeros_like(logits), pd * logits)
    rec("ent_safe", lib.logsumexp(logits, -1) - safe.sum(-1))
    rec("log_softmax_inf", logits.log_softmax(-1))
    rec("xlogy", -lib.special.xlogy(pd, pd).sum(-1))
    # where on the masked log-probs; a masked_fill of -100 labels gathered at 0
    lp = logits.log_softmax(-1)
    rec("where", lib.where(lib.isfinite(lp), lp, lib.tensor(0.0, dtype=dt)))
    rec("clamp_min", lp.clamp(min=fmin))
    x = lib.tensor([fmin, 0.0, 1.0], dtype=dt, requires_grad=True)
    y = F.logsigmoid(x).sum() + F.softplus(-x).sum()
    y.backward()
    rec("ls_fmin", F.logsigmoid(x.detach()))
    rec("ls_grad", x.grad)


def p_hooks_left_pad(lib, dt, rec):
    F = lib.nn.functional
    pad = lib.nn.utils.rnn.pad_sequence
    model = _make_lm(lib, dt, seed=23)
    g = lib.Generator().manual_seed(32)
    prompts = [lib.randint(3, VOCAB, (n,), generator=g) for n in (3, 5, 2)]
    left = pad(prompts, batch_first=True, padding_value=0, padding_side="left")
    rec("left", left)
    am = pad([lib.ones_like(p) for p in prompts], batch_first=True, padding_side="left")
    rec("am", am)
    # F.pad to a fixed length on the left
    fixed = lib.stack([F.pad(p, (6 - p.numel(), 0), value=0) for p in prompts])
    rec("fixed", fixed)
    pos = (am.cumsum(-1) - 1).masked_fill(am == 0, 1)
    rec("pos", pos)
    # a tensor hook scales the logits' gradient; a module hook records output norms
    seen = []
    h = model.ln_f.register_forward_hook(lambda m, i, o: seen.append(o.detach().norm()))
    hb = model.blocks[1].register_full_backward_hook(
        lambda m, gi, go: seen.append(go[0].detach().abs().sum())
    )
    logits = model(left, am)
    logits.register_hook(lambda g_: g_ * 0.5)
    lp = logits[:, -1].log_softmax(-1)
    loss = -lp[:, 4].mean()
    loss.backward()
    h.remove()
    hb.remove()
    rec("seen", lib.stack(seen))
    rec("g", model.wte.weight.grad[4])
    # per-parameter gradient norms and a global norm as trainers log them
    norms = {n: p.grad.norm(2) for n, p in model.named_parameters() if p.grad is not None}
    rec("norms", lib.stack(list(norms.values())))
    rec("total", lib.nn.utils.get_total_norm([p.grad for p in model.parameters()]))
    lib.nn.utils.clip_grad_value_(model.parameters(), 0.01)
    rec("clipv", model.wpe.weight.grad[:3])
    vec = lib.nn.utils.parameters_to_vector(model.blocks[0].parameters())
    rec("vec", vec[:10])
    rec("vec_n", vec.numel())


def p_exponential_sampling(lib, dt, rec):
    """vLLM-style sampling by probs / Exp(1) noise (the Gumbel-max trick) with a Generator per
    request, and Gumbel noise by -log(-log(u))."""
    g = lib.Generator().manual_seed(33)
    logits = lib.randn(4, VOCAB, generator=g, dtype=dt) * 2
    probs = logits.softmax(-1)
    q = lib.empty_like(probs).exponential_(1.0, generator=g)
    rec("q", q)
    rec("tok", probs.div(q).argmax(dim=-1))
    # per-request generators
    gens = [lib.Generator().manual_seed(100 + i) for i in range(4)]
    qs = lib.stack([lib.empty(VOCAB, dtype=dt).exponential_(generator=gg) for gg in gens])
    rec("tok2", probs.div(qs).argmax(-1))
    u = lib.rand(4, VOCAB, generator=g, dtype=dt).clamp(1e-10, 1 - 1e-10)
    gumbel = -lib.log(-lib.log(u))
    rec("tok3", (logits + gumbel).argmax(-1))
    lib.manual_seed(5)
    y = lib.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    rec("gs", y)
    # temperature 0 => greedy; a batch with a mix
    temps = lib.tensor([0.0, 0.7, 1.0, 1.5], dtype=dt)
    scaled = logits / temps.clamp(min=1e-5)[:, None]
    pr = scaled.softmax(-1)
    sample = lib.multinomial(pr, 1, generator=g).squeeze(-1)
    rec("mixed", lib.where(temps == 0, logits.argmax(-1), sample))
    # log-probs of the sampled tokens (returned with the rollout)
    rec("lp", logits.log_softmax(-1).gather(-1, sample[:, None]).squeeze(-1))
    # a seeded bernoulli keep-mask and randperm minibatch order
    rec("keep", lib.bernoulli(lib.full((6,), 0.5, dtype=dt), generator=g))
    rec("perm", lib.randperm(8, generator=g))


def p_categorical_masked(lib, dt, rec):
    D_ = lib.distributions
    logits = lib.tensor(
        [[2.0, 1.0, float("-inf"), 0.5], [0.1, float("-inf"), float("-inf"), 0.3]], dtype=dt
    )
    d = D_.Categorical(logits=logits)
    rec("probs", d.probs)
    rec("logits", d.logits)
    rec("entropy", d.entropy())
    rec("lp", d.log_prob(lib.tensor([0, 3])))
    rec("lp_masked", d.log_prob(lib.tensor([2, 1])))
    lib.manual_seed(9)
    rec("sample", d.sample((5,)))
    rec("mode", d.mode)
    rec("support", str(d.support))
    rec("param_shape", str((d.batch_shape, d.event_shape)))
    e = D_.Categorical(probs=lib.tensor([[0.5, 0.5, 0.0, 0.0], [0.2, 0.2, 0.3, 0.3]], dtype=dt))
    rec("e_entropy", e.entropy())
    rec("kl", D_.kl_divergence(e, D_.Categorical(logits=lib.zeros(2, 4, dtype=dt))))
    rec("kl_inf", D_.kl_divergence(D_.Categorical(logits=lib.zeros(2, 4, dtype=dt)), e))
    rec.err("bad_value", lambda: d.log_prob(lib.tensor([4, 0])))
    rec.err("bad_probs", lambda: D_.Categorical(probs=lib.tensor([0.5, -0.1], dtype=dt)))
    rec.err("both", lambda: D_.Categorical(probs=e.probs, logits=logits))
    ohc = D_.OneHotCategorical(logits=logits)
    lib.manual_seed(10)
    rec("ohc", ohc.sample())
    rec("ohc_ent", ohc.entropy())


def _rotate_half(lib, x):
    x1, x2 = x.chunk(2, dim=-1)
    return lib.cat((-x2, x1), dim=-1)


def p_gqa_rope_kvcache(lib, dt, rec):
    """Grouped-query attention with rotary embeddings and a KV cache, as Llama-style policies
    decode during rollouts; the cached decode must give the full forward's logits."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(24)
    H, KV, hd = 4, 2, 4
    q_proj = nn.Linear(D, H * hd, bias=False, dtype=dt)
    k_proj = nn.Linear(D, KV * hd, bias=False, dtype=dt)
    v_proj = nn.Linear(D, KV * hd, bias=False, dtype=dt)
    emb = nn.Embedding(VOCAB, D, dtype=dt)
    head = nn.Linear(H * hd, VOCAB, bias=False, dtype=dt)
    inv_freq = 1.0 / (10000 ** (lib.arange(0, hd, 2, dtype=lib.int64).to(dt) / hd))

    def rope(pos):
        freqs = lib.outer(pos.to(dt), inv_freq)
        e = lib.cat((freqs, freqs), dim=-1)
        return e.cos()[None, None], e.sin()[None, None]

    def attend(x, pos, cache=None):
        B, T, _ = x.shape
        q = q_proj(x).view(B, T, H, hd).transpose(1, 2)
        k = k_proj(x).view(B, T, KV, hd).transpose(1, 2)
        v = v_proj(x).view(B, T, KV, hd).transpose(1, 2)
        cos, sin = rope(pos)
        q = q * cos + _rotate_half(lib, q) * sin
        k = k * cos + _rotate_half(lib, k) * sin
        if cache is not None:
            k = lib.cat([cache[0], k], dim=2)
            v = lib.cat([cache[1], v], dim=2)
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        else:
            y = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        # the same by repeat_interleave of the KV heads
        kr = k.repeat_interleave(H // KV, dim=1)
        vr = v.repeat_interleave(H // KV, dim=1)
        if cache is None:
            y2 = F.scaled_dot_product_attention(q, kr, vr, is_causal=True)
        else:
            y2 = F.scaled_dot_product_attention(q, kr, vr)
        return y.transpose(1, 2).reshape(B, T, H * hd), (k, v), (y - y2).abs().max()

    g = lib.Generator().manual_seed(34)
    ids = lib.randint(0, VOCAB, (2, 6), generator=g)
    full, _, d = attend(emb(ids), lib.arange(6))
    full_logits = head(full)
    rec("full", full_logits)
    rec("gqa_eq", d < 1e-6)
    with lib.no_grad():
        out, cache, _ = attend(emb(ids[:, :3]), lib.arange(3))
        steps = [head(out)[:, -1]]
        for t in range(3, 6):
            o, cache, _ = attend(emb(ids[:, t : t + 1]), lib.tensor([t]), cache)
            steps.append(head(o)[:, -1])
    rec("cache_shape", str(tuple(cache[0].shape)))
    dec = lib.stack(steps, 1)
    rec("dec", dec)
    rec("dec_eq", (dec - full_logits[:, 2:].detach()).abs().max() < 1e-5)
    full_logits.logsumexp(-1).mean().backward()
    rec("g_k", k_proj.weight.grad)
    rec("g_q", q_proj.weight.grad)


def p_packing(lib, dt, rec):
    """Padding-free packing: several sequences in one row with position ids restarting per
    sequence, a block-diagonal causal mask from segment ids and cu_seqlens."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(35)
    lens = lib.tensor([3, 5, 2, 4])
    seqs = [lib.randint(1, VOCAB, (int(n),), generator=g) for n in lens]
    packed = lib.cat(seqs)[None]
    cu = F.pad(lens.cumsum(0, dtype=lib.int32), (1, 0))
    rec("cu", cu)
    seg = lib.repeat_interleave(lib.arange(len(seqs)), lens)
    rec("seg", seg)
    starts = cu[:-1].long().repeat_interleave(lens)
    pos = lib.arange(packed.size(1)) - starts
    rec("pos", pos)
    T = packed.size(1)
    allowed = (seg[:, None] == seg[None, :]) & lib.ones(T, T, dtype=lib.bool).tril()
    rec("n_allowed", allowed.sum())
    lib.manual_seed(25)
    emb = lib.nn.Embedding(VOCAB, D, dtype=dt)
    pemb = lib.nn.Embedding(MAXLEN, D, dtype=dt)
    qkv = lib.nn.Linear(D, 3 * D, dtype=dt)
    head = lib.nn.Linear(D, VOCAB, dtype=dt)
    x = emb(packed) + pemb(pos)[None]
    q, k, v = qkv(x).view(1, T, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4).unbind(0)
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    logits = head(y.transpose(1, 2).reshape(1, T, D))
    # labels: the next token within the same sequence, -100 at each sequence's last token
    labels = packed.roll(-1, dims=1)
    last = cu[1:].long() - 1
    labels[0, last] = -100
    rec("labels", labels)
    lp = -F.cross_entropy(logits[0], labels[0], reduction="none")
    per_seq = lib.zeros(len(seqs), dtype=dt).index_add(0, seg, lp)
    rec("per_seq", per_seq)
    rec(
        "segment_reduce",
        lib.segment_reduce(lp, "sum", lengths=lens) if hasattr(lib, "segment_reduce") else per_seq,
    )
    per_seq.sum().backward()
    rec("g_head_b", head.bias.grad)
    # unpack with split and compare with one padded batch
    parts = lp.detach().split(lens.tolist())
    rec("parts", lib.stack([p.sum() for p in parts]))
    rec("searchsorted", lib.searchsorted(cu[1:], lib.arange(T, dtype=lib.int32), right=True))
    rec("bucketize", lib.bucketize(lib.arange(T), cu[1:].long(), right=True))


def p_grad_scaler(lib, dt, rec):
    """A GradScaler loop on CPU: scale, unscale_, clip, step (skipped on inf), update."""
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=26)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=2)
    ids = _ids(lib, 3, 7, seed=36)
    for step in range(5):
        loss = F.cross_entropy(model(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad()
        scaler.scale(loss).backward()
        if step == 2:
            model.ln_f.weight.grad[0] = float("inf")
        scaler.unscale_(opt)
        gn = lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        rec(f"scale{step}", scaler.get_scale())
        rec(f"gn{step}", gn)
    rec("ln_f", model.ln_f.weight)
    st = scaler.state_dict()
    rec("state", str(sorted(st)))
    rec("growth", st["_growth_tracker"])
    rec.err("unscale_twice", lambda: _unscale_twice(lib, scaler, opt, model, ids))


def _unscale_twice(lib, scaler, opt, model, ids):
    loss = model(ids).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.unscale_(opt)


def p_running_moments(lib, dt, rec):
    """Reward normalisation by running moments (Chan et al.'s parallel update) and reward
    clipping by quantiles."""

    class RunningMoments:
        def __init__(self):
            self.mean, self.std, self.var, self.count = 0.0, 1.0, 1.0, 1e-24

        def update(self, xs):
            xs_count = xs.numel()
            xs_var, xs_mean = lib.var_mean(xs, unbiased=False)
            xs_mean, xs_var = xs_mean.item(), xs_var.item()
            delta = xs_mean - self.mean
            tot = self.count + xs_count
            new_sum = xs_var * xs_count
            old_sum = self.var * self.count + delta**2 * self.count * xs_count / tot
            tot_sum = old_sum + new_sum
            self.mean += delta * xs_count / tot
            self.var = tot_sum / tot
            self.std = (self.var * tot / (tot - 1)) ** 0.5
            self.count = tot
            return xs_mean, (xs_var * xs_count / (xs_count - 1)) ** 0.5

    g = lib.Generator().manual_seed(37)
    rm = RunningMoments()
    allx = []
    for _ in range(4):
        xs = lib.randn(16, generator=g, dtype=dt) * 2 + 1
        allx.append(xs)
        m, s = rm.update(xs)
        rec("batch", [m, s])
        rec("running", [rm.mean, rm.std])
    cat = lib.cat(allx)
    rec("true", lib.stack([cat.mean(), cat.std()]))
    sm = lib.std_mean(cat, dim=0, correction=1)
    rec("std_mean", lib.stack(sm))
    norm = (cat - rm.mean) / rm.std
    rec("norm", norm[:8])
    lo, hi = lib.quantile(cat, lib.tensor([0.05, 0.95], dtype=dt))
    rec("clip", cat.clamp(lo, hi)[:8])
    rec("nanq", lib.nanquantile(lib.cat([cat[:5], lib.tensor([float("nan")], dtype=dt)]), 0.5))
    rec("clamp_t", cat[:6].clamp(min=lib.zeros(6, dtype=dt), max=lib.full((6,), 1.5, dtype=dt)))


class _ChunkedCE:
    """A memory-saving linear + cross-entropy as a custom autograd Function that computes its
    gradients in the forward pass chunk by chunk (as Liger kernels do)."""

    @staticmethod
    def make(lib):
        class ChunkedLinearCE(lib.autograd.Function):
            @staticmethod
            def forward(ctx, h, w, target, chunk):
                n = h.size(0)
                total = target.ne(-100).sum().clamp(min=1)
                loss = h.new_zeros(())
                gh = lib.zeros_like(h)
                gw = lib.zeros_like(w)
                for s in range(0, n, chunk):
                    hc, tc = h[s : s + chunk], target[s : s + chunk]
                    logits = hc @ w.t()
                    valid = tc.ne(-100)
                    t = tc.masked_fill(~valid, 0)
                    lse = logits.logsumexp(-1)
                    picked = logits.gather(-1, t[:, None]).squeeze(-1)
                    loss = loss + ((lse - picked) * valid).sum()
                    gl = logits.softmax(-1)
                    gl[lib.arange(gl.size(0)), t] -= 1
                    gl = gl * valid[:, None]
                    gh[s : s + chunk] = gl @ w
                    gw += gl.t() @ hc
                ctx.save_for_backward(gh / total, gw / total)
                return loss / total

            @staticmethod
            def backward(ctx, grad):
                gh, gw = ctx.saved_tensors
                return gh * grad, gw * grad, None, None

        return ChunkedLinearCE


def p_chunked_ce_function(lib, dt, rec):
    F = lib.nn.functional
    fn = _ChunkedCE.make(lib)
    g = lib.Generator().manual_seed(38)
    h = lib.randn(10, D, generator=g, dtype=dt, requires_grad=True)
    w = lib.randn(VOCAB, D, generator=g, dtype=dt, requires_grad=True)
    tgt = lib.randint(0, VOCAB, (10,), generator=g)
    tgt[[1, 7]] = -100
    loss = fn.apply(h, w, tgt, 3)
    rec("loss", loss)
    rec("fn", type(loss.grad_fn).__name__)
    (loss * 2).backward()
    rec("gh", h.grad)
    rec("gw", w.grad)
    h2 = h.detach().requires_grad_()
    w2 = w.detach().requires_grad_()
    ref = F.cross_entropy(h2 @ w2.t(), tgt) * 2
    ref.backward()
    rec("ref", ref / 2)
    rec("eq_h", lib.allclose(h.grad, h2.grad, atol=1e-5))
    rec("eq_w", lib.allclose(w.grad, w2.grad, atol=1e-5))
    rec("once", str(lib.is_grad_enabled()))
    rec.err("no_grad_input", lambda: fn.apply(h.detach(), w.detach(), tgt, 4).backward())
    # F.linear + cross_entropy with label smoothing and ignore_index
    ls = F.cross_entropy(F.linear(h2, w2), tgt, label_smoothing=0.1, ignore_index=-100)
    rec("ls", ls)
    wt = lib.linspace(0.5, 1.5, VOCAB, dtype=dt)
    rec("weighted", F.cross_entropy(F.linear(h2, w2), tgt, weight=wt, label_smoothing=0.2))


def p_scheduler_warnings(lib, dt, rec):
    """Scheduler misuse that trainers hit: stepping the scheduler before the optimizer, get_lr()
    outside step, and resuming a LambdaLR by last_epoch."""
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    opt = lib.optim.AdamW([p], lr=0.1)
    sched = lib.optim.lr_scheduler.LambdaLR(opt, _cosine_with_warmup(2, 6))
    rec.warns("before_opt", sched.step)
    rec.warns("get_lr", sched.get_lr)
    rec("lr", sched.get_last_lr())
    opt2 = lib.optim.AdamW([p], lr=0.1)
    for group in opt2.param_groups:
        group["initial_lr"] = 0.1
    s2 = lib.optim.lr_scheduler.LambdaLR(opt2, _cosine_with_warmup(2, 6), last_epoch=3)
    rec("resume", s2.get_last_lr())
    rec("resume_lr", opt2.param_groups[0]["lr"])
    opt3 = lib.optim.AdamW([p], lr=0.1)
    rec.err("resume_no_initial", lambda: lib.optim.lr_scheduler.LambdaLR(opt3, lambda s: 1.0,
                                                                         last_epoch=2))  # fmt: skip
    # OneCycleLR and CosineAnnealingWarmRestarts histories
    opt4 = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    oc = lib.optim.lr_scheduler.OneCycleLR(opt4, max_lr=0.5, total_steps=6)
    hist = []
    for _ in range(6):
        opt4.step()
        oc.step()
        hist.append((oc.get_last_lr()[0], opt4.param_groups[0]["momentum"]))
    rec("onecycle", hist)
    rec.err("onecycle_over", oc.step)
    opt5 = lib.optim.AdamW([p], lr=0.1)
    wr = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt5, T_0=3, T_mult=2, eta_min=0.01)
    hist = []
    for _ in range(8):
        opt5.step()
        wr.step()
        hist.append(wr.get_last_lr()[0])
    rec("restarts", hist)


def p_loss_edges(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(39)
    logits = lib.randn(4, VOCAB, generator=g, dtype=dt, requires_grad=True)
    allign = lib.full((4,), -100)
    ce = F.cross_entropy(logits, allign)
    rec("all_ignored", ce)
    ce.backward()
    rec("all_ignored_g", logits.grad)
    rec("sum_ignored", F.cross_entropy(logits, allign, reduction="sum"))
    rec("none_ignored", F.cross_entropy(logits, allign, reduction="none"))
    rec("ls_ignored", F.cross_entropy(logits, allign, label_smoothing=0.1))
    tgt = lib.tensor([1, -100, 3, -100])
    wt = lib.rand(VOCAB, generator=g, dtype=dt)
    rec("w_ignored", F.cross_entropy(logits, tgt, weight=wt))
    rec("nll_w", F.nll_loss(logits.log_softmax(-1), tgt, weight=wt, reduction="sum"))
    rec("ls_w", F.cross_entropy(logits, tgt, weight=wt, label_smoothing=0.3))
    rec("ls_none", F.cross_entropy(logits, tgt, label_smoothing=0.3, reduction="none"))
    # a custom ignore_index and probability targets with label smoothing
    rec("ign0", F.cross_entropy(logits, lib.tensor([0, 1, 0, 2]), ignore_index=0))
    soft = lib.softmax(lib.randn(4, VOCAB, generator=g, dtype=dt), -1)
    rec("soft", F.cross_entropy(logits, soft, label_smoothing=0.2))
    rec("soft_none", F.cross_entropy(logits, soft, reduction="none"))
    # logsigmoid/softplus at large magnitudes, BCE with pos_weight
    x = lib.tensor([-800.0, -40.0, 0.0, 40.0, 800.0], dtype=dt, requires_grad=True)
    y = F.logsigmoid(x)
    rec("ls", y)
    y.sum().backward()
    rec("ls_g", x.grad)
    rec("sp", F.softplus(x, beta=2.0, threshold=10.0))
    rec("bce", F.binary_cross_entropy_with_logits(x, lib.ones(5, dtype=dt),
                                                  pos_weight=lib.tensor(2.0, dtype=dt),
                                                  reduction="none"))  # fmt: skip
    rec("sig", lib.sigmoid(x) * (1 - lib.sigmoid(x)))
    rec("logit", lib.special.logit(lib.tensor([0.0, 0.3, 1.0], dtype=dt), eps=1e-6))
    rec("log1p_exp", lib.log1p(-lib.exp(lib.tensor([-1e-20, -1.0, -50.0], dtype=dt))))
    rec("margin", F.margin_ranking_loss(x[:3], x[2:], lib.tensor([1.0, -1.0, 1.0], dtype=dt),
                                        margin=0.5, reduction="none"))  # fmt: skip


def p_multinomial_edges(lib, dt, rec):
    g = lib.Generator().manual_seed(40)
    p = lib.tensor([[0.0, 0.5, 0.0, 0.5], [0.1, 0.0, 0.0, 0.0]], dtype=dt)
    rec("norep", lib.multinomial(p, 1, generator=g))
    rec.err("too_many", lambda: lib.multinomial(p, 3, generator=g))
    rec("rep", lib.multinomial(p, 6, replacement=True, generator=g))
    rec("unnorm", lib.multinomial(lib.tensor([2.0, 6.0, 0.0], dtype=dt), 2, generator=g))
    rec("one_hot", lib.multinomial(lib.tensor([0.0, 0.0, 1.0], dtype=dt), 4, True, generator=g))
    rec.err("nan", lambda: lib.multinomial(lib.tensor([float("nan"), 1.0], dtype=dt), 1))
    rec.err("inf", lambda: lib.multinomial(lib.tensor([float("inf"), 1.0], dtype=dt), 1))
    rec.err("zero_samples", lambda: lib.multinomial(p, 0))
    rec.err("int_probs", lambda: lib.multinomial(lib.tensor([1, 2]), 1))
    rec.err("empty", lambda: lib.multinomial(lib.zeros(2, 0, dtype=dt), 1))
    out = lib.empty(2, 2, dtype=lib.long)
    r = lib.multinomial(p, 2, generator=g, out=out)
    rec("out", out)
    rec("out_same", r is out)
    rec("empty_rows", lib.multinomial(lib.zeros(0, 4, dtype=dt), 2).shape)
    rec("fp16", lib.multinomial(lib.tensor([0.2, 0.8], dtype=lib.float16), 3, True, generator=g))
    rec("Tensor", p.multinomial(1, generator=g))


def p_embedding_padding(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(27)
    emb = nn.Embedding(VOCAB, D, padding_idx=0, dtype=dt)
    rec("pad_row", emb.weight[0])
    ids = lib.tensor([[0, 3, 4, 0], [5, 0, 5, 6]])
    out = emb(ids)
    out.pow(2).sum().backward()
    rec("g_pad", emb.weight.grad[0])
    rec("g5", emb.weight.grad[5])
    frozen = nn.Embedding.from_pretrained(emb.weight.detach() * 2, freeze=True, padding_idx=0)
    rec("frozen_rg", frozen.weight.requires_grad)
    rec("frozen", frozen(ids)[1])
    # max_norm renormalises looked-up rows in place
    mn = nn.Embedding(VOCAB, D, max_norm=1.0, dtype=dt)
    with lib.no_grad():
        mn(ids)
    rec("renorm", mn.weight[[3, 4, 5, 6]].norm(dim=-1))
    rec("untouched", mn.weight[[1, 2]].norm(dim=-1))
    F = nn.functional
    rec("fe", F.embedding(ids, emb.weight.detach(), padding_idx=0)[0, 1])
    bag = nn.EmbeddingBag(VOCAB, D, mode="mean", dtype=dt)
    rec("bag", bag(ids))
    # resizing the token embedding for a new special token, as trainers do
    new = nn.Embedding(VOCAB + 1, D, dtype=dt)
    with lib.no_grad():
        new.weight[:VOCAB] = emb.weight
        new.weight[VOCAB] = emb.weight[1:].mean(0)
    rec("new_row", new.weight[VOCAB])
    rec("repr", repr(emb))


def p_ref_sync_ema(lib, dt, rec):
    """Syncing the reference model to the policy: TRL's foreach mix, lerp_, and an EMA by
    AveragedModel."""
    F = lib.nn.functional
    policy = _make_lm(lib, dt, seed=28)
    ref = _make_lm(lib, dt, seed=29)
    ref2 = copy.deepcopy(ref)
    alpha = 0.3
    with lib.no_grad():
        ref_ps = list(ref.parameters())
        pol_ps = list(policy.parameters())
        lib._foreach_mul_(ref_ps, 1.0 - alpha)
        lib._foreach_add_(ref_ps, pol_ps, alpha=alpha)
        for r, p in zip(ref2.parameters(), policy.parameters(), strict=True):
            r.lerp_(p, alpha)
    rec("foreach", ref.blocks[0].qkv.weight)
    rec("lerp_same", all(lib.allclose(a, b) for a, b in zip(ref.parameters(), ref2.parameters(),
                                                            strict=True)))  # fmt: skip
    norms = lib._foreach_norm([p.detach() for p in pol_ps[:4]])
    rec("foreach_norm", lib.stack(norms))
    swa = lib.optim.swa_utils
    ema = swa.AveragedModel(policy, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    opt = lib.optim.AdamW(policy.parameters(), lr=1e-2)
    ids = _ids(lib, 2, 6, seed=41)
    for _ in range(3):
        loss = F.cross_entropy(policy(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(policy)
    rec("n_averaged", ema.n_averaged)
    rec("ema_w", ema.module.ln_f.weight)
    rec("ema_out", ema(ids)[0, -1])
    avg = swa.AveragedModel(policy)
    avg.update_parameters(policy)
    rec("avg_w", avg.module.ln_f.bias)
    lin = lib.nn.Linear(3, 2, dtype=dt)
    ema2 = swa.AveragedModel(lin, avg_fn=swa.get_ema_avg_fn(0.5))
    with lib.no_grad():
        lin.weight.add_(1.0)
    ema2.update_parameters(lin)
    with lib.no_grad():
        lin.weight.add_(1.0)
    ema2.update_parameters(lin)
    rec("ema2", ema2.module.weight)


def p_optim_variants(lib, dt, rec):
    F = lib.nn.functional
    ids = _ids(lib, 2, 6, seed=42)
    configs = [
        ("amsgrad", lambda ps: lib.optim.AdamW(ps, lr=1e-2, amsgrad=True)),
        ("maximize", lambda ps: lib.optim.AdamW(ps, lr=1e-2, maximize=True)),
        ("foreach", lambda ps: lib.optim.AdamW(ps, lr=1e-2, foreach=True, weight_decay=0.1)),
        (
            "adam_decoupled",
            lambda ps: lib.optim.Adam(ps, lr=1e-2, weight_decay=0.1, decoupled_weight_decay=True),
        ),  # fmt: skip
        ("adam_l2", lambda ps: lib.optim.Adam(ps, lr=1e-2, weight_decay=0.1)),
        ("tensor_lr", lambda ps: lib.optim.AdamW(ps, lr=lib.tensor(1e-2), foreach=False)),
        ("rmsprop", lambda ps: lib.optim.RMSprop(ps, lr=1e-3, centered=True, momentum=0.5)),
        ("adafactor", lambda ps: lib.optim.Adafactor(ps, lr=1e-2)),
        (
            "sgd_nesterov",
            lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-3),
        ),  # fmt: skip
    ]
    for name, make in configs:
        model = _make_lm(lib, dt, seed=30)
        opt = make(model.parameters())
        for _ in range(2):
            loss = F.cross_entropy(model(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
            opt.zero_grad(set_to_none=False)
            loss.backward()
            opt.step()
        rec(name + ".ln", model.ln_f.weight)
        rec(name + ".wte", model.wte.weight[1])
        rec(name + ".keys", str(sorted(opt.state[model.ln_f.weight].keys())))
    # adding the value head's group later, and the post-step hook
    model = _make_lm(lib, dt, seed=30)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-2)
    vh = lib.nn.Linear(D, 1, dtype=dt)
    opt.add_param_group({"params": vh.parameters(), "lr": 1e-3, "weight_decay": 0.0})
    calls = []
    h = opt.register_step_post_hook(lambda o, a, k: calls.append(len(o.state)))
    loss = vh(model.ln_f(model.wte(ids))).sum() + model(ids).logsumexp(-1).mean()
    loss.backward()
    opt.step()
    h.remove()
    opt.step()
    rec("calls", calls)
    rec("vh", vh.weight)
    pg = opt.state_dict()["param_groups"]
    rec("pg", str([{k: v for k, v in g.items() if k != "params"} for g in pg]))
    rec("pg_params", str([g["params"] for g in pg]))
    rec.err("add_dup", lambda: opt.add_param_group({"params": [vh.weight]}))


def p_bf16_ops(lib, dt, rec):
    """The ops of a bfloat16 policy's loss: log_softmax, logsigmoid, finfo masks, gather,
    cross_entropy, norms and attention, and their gradients in bfloat16."""
    F = lib.nn.functional
    bf = lib.bfloat16
    g = lib.Generator().manual_seed(43)
    x = (lib.randn(3, 5, VOCAB, generator=g) * 3).to(bf).requires_grad_()
    lp = F.log_softmax(x, -1)
    rec("lp", lp)
    rec("ls", F.logsigmoid(x[..., 0]))
    rec("sp", F.softplus(x[..., 1]))
    fmin = lib.finfo(bf).min
    rec("fmin", fmin)
    mf = x.masked_fill(x > 2, fmin)
    rec("mf_sm", mf.softmax(-1))
    rec("ent", lib.distributions.Categorical(logits=x.detach()).entropy())
    rec("mn", lib.multinomial(x.detach()[0].float().softmax(-1), 2, generator=g))
    rec("topk", x.detach().topk(3).values)
    rec("cs", (x > 0).cumsum(-1))
    rec("div", (x > 0).sum(-1) / 5)
    idx = lib.randint(0, VOCAB, (3, 5), generator=g)
    sel = lp.gather(-1, idx[..., None]).squeeze(-1)
    rec("sel", sel)
    loss = -F.logsigmoid(0.1 * (sel[:, 0] - sel[:, 1])).mean()
    rec("loss", loss)
    loss.backward()
    rec("g", x.grad)
    h = lib.randn(4, 8, generator=g).to(bf)
    w = lib.randn(6, 8, generator=g).to(bf).requires_grad_()
    o = F.linear(h, w)
    rec("lin", o)
    ce = F.cross_entropy(o, lib.tensor([0, 1, -100, 5]))
    rec("ce", ce)
    ce.backward()
    rec("gw", w.grad)
    rec("ls_f32", lib.log_softmax(o, -1, dtype=lib.float32))
    rec("mean", o.mean(-1))
    rec("var", o.float().var(-1))
    lib.manual_seed(0)
    rec("ln", lib.nn.LayerNorm(8).to(bf)(h))
    rec("rms", lib.nn.RMSNorm(8).to(bf)(h))
    rec("silu", F.silu(h))
    rec("gelu", F.gelu(h, approximate="tanh"))
    q = h[None, None]
    rec("sdpa", F.scaled_dot_product_attention(q, q, q, is_causal=True))
    rec("lse", o.logsumexp(-1))
    rec("where", lib.where(o > 0, o, 0.5))
    rec("sig", lib.sigmoid(o))
    rec("tolist", str(o[0, :3].tolist()))


def p_dropout_data_init(lib, dt, rec):
    """A reward model trained with dropout on: the dropout masks, attention dropout, a shuffled
    DataLoader with a padding collator, splits and samplers, GPT-2 style initialisation."""
    F = lib.nn.functional
    DL = lib.utils.data
    lib.manual_seed(0)
    x = lib.randn(2, 2, 5, 4, dtype=dt)
    rec("sdpa_drop", F.scaled_dot_product_attention(x, x, x, dropout_p=0.3, is_causal=True))
    lib.manual_seed(1)
    rec("drop", lib.nn.Dropout(0.2)(x))
    rec("fdrop", F.dropout(x, 0.5, training=True))
    seqs = [lib.arange(i + 1) for i in range(7)]
    g = lib.Generator().manual_seed(5)

    def collate(b):
        return lib.nn.utils.rnn.pad_sequence(b, batch_first=True, padding_value=-1)

    dl = DL.DataLoader(seqs, batch_size=3, shuffle=True, generator=g, collate_fn=collate)
    for i, b in enumerate(dl):
        rec(f"b{i}", b)
    tr, va = DL.random_split(seqs, [0.7, 0.3], generator=lib.Generator().manual_seed(2))
    rec("split", [len(t) for t in tr])
    rec("split_va", [len(t) for t in va])
    rs = DL.RandomSampler(range(10), replacement=True, num_samples=5,
                          generator=lib.Generator().manual_seed(3))  # fmt: skip
    rec("rs", list(rs))
    ws = DL.WeightedRandomSampler([0.1, 0.5, 0.4], 6, generator=lib.Generator().manual_seed(4))
    rec("ws", list(ws))
    lib.manual_seed(7)
    mdl = lib.nn.Sequential(
        lib.nn.Linear(4, 8, dtype=dt), lib.nn.LayerNorm(8, dtype=dt), lib.nn.Linear(8, 4, dtype=dt)
    )

    def init(mod):
        if isinstance(mod, lib.nn.Linear):
            lib.nn.init.normal_(mod.weight, mean=0.0, std=0.02)
            lib.nn.init.zeros_(mod.bias)

    mdl.apply(init)
    lib.nn.init.normal_(mdl[2].weight, std=0.02 / 2**0.5)
    lib.nn.init.trunc_normal_(mdl[0].weight, std=0.02, a=-0.04, b=0.04)
    rec("w0", mdl[0].weight)
    rec("w2", mdl[2].weight)
    rec("sub", type(mdl.get_submodule("1")).__name__)
    lib.nn.init.xavier_uniform_(mdl[2].weight, gain=lib.nn.init.calculate_gain("relu"))
    rec("xav", mdl[2].weight)
    lib.nn.init.orthogonal_(mdl[0].weight, gain=0.01)
    rec("orth", mdl[0].weight.abs())
    # activation offloading by saved-tensor hooks
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t.clone()

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        w = lib.randn(4, 4, dtype=dt, requires_grad=True)
        y = (w.exp() @ w).sin().sum()
    y.backward()
    rec("packed", str(packed))
    rec("wg", w.grad)
    with lib.autograd.graph.save_on_cpu():
        y2 = (w.exp() @ w).sin().sum()
    rec("soc", lib.autograd.grad(y2, w)[0])
    # the optimizer stepped from a post-accumulate-grad hook (optimizer in backward)
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    opt = lib.optim.SGD([p], lr=0.5)

    def hook(param):
        opt.step()
        opt.zero_grad()

    p.register_post_accumulate_grad_hook(hook)
    (p * lib.tensor([1.0, 2.0, 3.0], dtype=dt)).sum().backward()
    rec("p", p)
    rec("pgrad", str(p.grad))


def p_user_errors_warnings(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(44)
    x = lib.randn(3, 4, dtype=dt, requires_grad=True)
    y = x * 2
    rec.warns("nonleaf_grad", lambda: y.grad)
    rec.warns("copy_construct", lambda: lib.tensor(x.detach()))
    rec.warns("copy_construct_rg", lambda: lib.tensor(x))
    rec("list0d", lib.tensor([x[0, 0], x[1, 1]]))
    rec.err("list1d", lambda: lib.tensor([x[0], x[1]]))
    rec.err("stack_float", lambda: lib.stack([1.0, 2.0]))
    rec.err("float_multi", lambda: float(x))
    rec.err("item_multi", lambda: x.item())
    rec.err("numpy_rg", lambda: x.numpy())
    rec.err("rg_nonleaf", lambda: y.requires_grad_(False))
    rec.warns("kl_mean", lambda: F.kl_div(x.log_softmax(-1), x.softmax(-1), reduction="mean"))
    rec.warns("cuda_scaler", lambda: lib.cuda.amp.GradScaler())
    rec.warns("cpu_autocast", lambda: lib.cpu.amp.autocast())
    rec.warns("amp_scaler_cpu", lambda: lib.amp.GradScaler())
    no_grad = lib.nn.Parameter(lib.ones(2, dtype=dt))
    rec("clip_empty", lib.nn.utils.clip_grad_norm_([no_grad], 1.0))
    p = lib.nn.Parameter(lib.ones(3, dtype=dt))
    p.grad = lib.tensor([3.0, -4.0, 0.0], dtype=dt)
    rec("clip_inf", lib.nn.utils.clip_grad_norm_([p], 1.0, norm_type="inf"))
    rec("pg", p.grad)
    rec("mixed_list", lib.tensor([1, 2.5, True]))
    z = x.exp()
    z.retain_grad()
    z.sum().backward()
    rec("retained", z.grad)
    x.grad = None
    w = lib.ones(4, dtype=dt, requires_grad=True)
    (x @ w).sum().backward(inputs=[w])
    rec("inputs", w.grad)
    rec("xg", str(x.grad))
    with lib.no_grad():
        with lib.enable_grad():
            z = x * 3
    rec("eg", z.requires_grad)
    lib.set_grad_enabled(False)
    rec("sge", (x * 2).requires_grad)
    lib.set_grad_enabled(True)
    rec.err("grad_unused", lambda: lib.autograd.grad((x * 2).sum(), [x, w]))
    rec("unused", str(lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)[1]))
    rec("mat", lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True,
                                 materialize_grads=True)[1])  # fmt: skip
    rec("go", lib.autograd.grad(x * 2, x, grad_outputs=lib.ones_like(x) * 0.5)[0])
    rec.err("go_shape", lambda: lib.autograd.grad(x * 2, x, grad_outputs=lib.ones(4, dtype=dt)))
    rec.err("implicit", lambda: lib.autograd.grad(x * 2, x))
    rec.err("mf_leaf", lambda: x.masked_fill_(x > 0, 0.0))
    rec.err("mf_view_leaf", lambda: x[0].zero_())
    rec.err("detach_view", lambda: x[0].detach_())
    rec("loss_repr", repr((x.detach() * 0 + 0.5).sum().requires_grad_().mul(2)))


def p_prompt_groups(lib, dt, rec):
    """Grouping completions by prompt (unique over rows), per-group means by scatter_reduce and
    index_reduce, eos detection, single-completion groups (std over one sample)."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(45)
    prompts = lib.tensor([[1, 2, 3], [4, 5, 6], [1, 2, 3], [4, 5, 6], [7, 7, 7], [1, 2, 3]])
    u, inv, cnt = lib.unique(prompts, dim=0, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    r = lib.randn(6, generator=g, dtype=dt)
    zeros = lib.zeros(len(u), dtype=dt)
    rec("grp_mean", zeros.scatter_reduce(0, inv, r, reduce="mean", include_self=False))
    rec("grp_max", zeros.scatter_reduce(0, inv, r, reduce="amax", include_self=False))
    rec("ir", zeros.clone().index_reduce_(0, inv, r, "mean", include_self=False))
    rec("adv", r - zeros.index_add(0, inv, r).div(cnt)[inv])
    rec("uc", lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 1]), return_counts=True)[1])
    is_eos = lib.tensor([[False, True, True], [False, False, False]])
    rec.err("argmax_bool", lambda: is_eos.argmax(1))
    rec("argmax_int", is_eos.int().argmax(1))
    rec("argmax_ties", lib.tensor([[1.0, 3.0, 3.0]], dtype=dt).argmax(-1))
    rec("argmin_nan", lib.tensor([1.0, float("nan"), 0.0], dtype=dt).argmin())
    rec("max_nan", lib.tensor([1.0, float("nan"), 0.0], dtype=dt).max())
    rec("nz", str(is_eos.nonzero(as_tuple=True)))
    rec("where1", str(lib.where(is_eos)))
    rec("argwhere", lib.argwhere(is_eos))
    rec("oh", F.one_hot(lib.tensor([0, 3, 1])))
    rec("bc", lib.bincount(lib.tensor([1, 1, 3]), minlength=6))
    rec("bcw", lib.bincount(lib.tensor([1, 1, 3]), weights=lib.tensor([0.5, 0.25, 2.0], dtype=dt)))
    rec("sort_stable", lib.sort(lib.tensor([2, 1, 2, 1, 3]), descending=True, stable=True).indices)
    rec("topk_small", lib.topk(r, 2, largest=False))
    rec("kth", lib.kthvalue(r, 2))
    rec("diff", lib.diff(r, prepend=lib.zeros(1, dtype=dt)))
    rec("cdist", lib.cdist(r.view(3, 2), r.view(3, 2)))
    rec("cos", F.cosine_similarity(r.view(3, 2), r.view(3, 2).flip(0), dim=-1))
    one = lib.tensor([[1.0], [2.0]], dtype=dt)
    rec.warns("std1", lambda: one.std(1))
    rec("std1v", one.std(1))
    rec.warns("std_mean1", lambda: lib.std_mean(one, dim=1))
    rec("nanmean", lib.nanmean(lib.tensor([float("nan"), 1.0, 2.0], dtype=dt)))
    mask = lib.tensor([True, False, True, False, True])
    rec("ms", lib.zeros(5, dtype=dt).masked_scatter(mask, r))
    rec("tile", r[:2].tile(2, 2))
    rec("roll", prompts.roll((1, 1), (0, 1)))
    logits = lib.randn(2, 5, 4, generator=g, dtype=dt)
    tgt = lib.tensor([[0, 1, -100, 4], [2, -100, -100, 3]])
    wt = lib.linspace(0.5, 2, 5, dtype=dt)
    rec("ce3d", F.cross_entropy(logits, tgt, weight=wt, label_smoothing=0.15))
    rec("ce3d_sum", F.cross_entropy(logits, tgt, weight=wt, label_smoothing=0.15,
                                    reduction="sum"))  # fmt: skip
    rec("ce_mod", repr(lib.nn.CrossEntropyLoss(ignore_index=-1, label_smoothing=0.1)))


def p_encoder_lm(lib, dt, rec):
    """A small LM on nn.TransformerEncoder with a causal square mask and key padding, and
    MultiheadAttention/TransformerDecoderLayer read the same way."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(46)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True,
                                       norm_first=True, activation="gelu", dtype=dt)  # fmt: skip
    enc = rec.warns("enc", lambda: nn.TransformerEncoder(layer, 2, enable_nested_tensor=True))
    layer2 = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1, batch_first=True,
                                        dtype=dt)  # fmt: skip
    norm = nn.LayerNorm(16, dtype=dt)
    enc2 = rec.warns("enc2", lambda: nn.TransformerEncoder(layer2, 2, norm=norm))
    emb = nn.Embedding(11, 16, dtype=dt)
    head = nn.Linear(16, 11, dtype=dt)
    g = lib.Generator().manual_seed(1)
    ids = lib.randint(0, 11, (3, 6), generator=g)
    mask = nn.Transformer.generate_square_subsequent_mask(6, dtype=dt)
    rec("mask", mask)
    pad = lib.tensor([[False] * 6, [False] * 4 + [True] * 2, [False] * 3 + [True] * 3])
    h = enc(emb(ids), mask=mask, src_key_padding_mask=pad, is_causal=True)
    rec("h", h)
    loss = F.cross_entropy(head(h)[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
    loss.backward()
    rec("g", head.weight.grad)
    rec("g_in", layer.self_attn.in_proj_weight.grad)
    enc.eval()
    with lib.no_grad():
        h2 = enc(emb(ids), mask=mask, src_key_padding_mask=pad)
    rec("h2", h2)
    enc2.eval()
    with lib.no_grad():
        h3 = enc2(emb(ids), mask=mask, src_key_padding_mask=pad)
    rec("h3", lib.nan_to_num(h3, nan=123.0))
    mha = nn.MultiheadAttention(16, 4, batch_first=True, dtype=dt)
    o, w = mha(h2, h2, h2, attn_mask=mask.isinf(), key_padding_mask=pad,
               average_attn_weights=False)  # fmt: skip
    rec("o", o)
    rec("w", w)
    dec = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True, dtype=dt)
    rec("dec", dec(h2, h2, tgt_mask=mask, tgt_is_causal=True, memory_key_padding_mask=pad))


def p_reward_grad_penalty(lib, dt, rec):
    """A gradient penalty on a reward model's input embeddings: the reward's gradient with
    create_graph, then the penalty's gradient (second derivatives through attention, LayerNorm
    or RMSNorm, GELU or SiLU, embeddings and cross_entropy)."""
    F = lib.nn.functional
    for tag, kw in (("ln", {}), ("rms", {"rms": True})):
        model = _make_lm(lib, dt, seed=31, **kw)
        ids = _ids(lib, 2, 6, seed=47)
        am = lib.tensor([[1] * 6, [0, 0, 1, 1, 1, 1]])
        emb = model.wte(ids).detach().requires_grad_()
        pos = (am.cumsum(-1) - 1).clamp(min=0)
        x = emb + model.wpe(pos)
        for b in model.blocks:
            x = b(x, am)
        logits = model.lm_head(model.ln_f(x))
        r = logits[:, -1].logsumexp(-1) + F.cross_entropy(
            logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten()
        )
        (ge,) = lib.autograd.grad(r.sum(), emb, create_graph=True)
        rec(tag + ".ge", ge)
        pen = ge.pow(2).sum()
        pen.backward()
        rec(tag + ".g_qkv", model.blocks[0].qkv.weight.grad)
        rec(tag + ".g_ln", model.blocks[1].ln1.weight.grad)
        rec(tag + ".g_emb", emb.grad)
        rec(tag + ".g_pos", model.wpe.weight.grad)


def p_per_sample_grads(lib, dt, rec):
    """Per-sequence gradient norms by vmap(grad) over functional_call (for logging or
    per-sample clipping), grad_and_value, and per-token entropies by nested vmap."""
    F = lib.nn.functional
    fn = lib.func
    model = _make_lm(lib, dt, seed=32)
    params = {k: v.detach() for k, v in model.named_parameters()}
    ids = _ids(lib, 3, 6, seed=48)

    def loss_fn(p, x):
        logits = fn.functional_call(model, p, (x[None],))
        return F.cross_entropy(logits[0, :-1], x[1:])

    g = fn.vmap(fn.grad(loss_fn), in_dims=(None, 0))(params, ids)
    rec("g_ln", g["ln_f.weight"])
    rec("g_wte", g["wte.weight"][:, :3])
    rec("norms", lib.stack([v.flatten(1).norm(dim=1) for v in g.values()]).norm(dim=0))
    gg, loss = fn.grad_and_value(loss_fn)(params, ids[0])
    rec("loss", loss)
    rec("gg", gg["blocks.0.qkv.bias"])
    logits = model(ids).detach()
    ent = fn.vmap(fn.vmap(lambda z: -(z.softmax(-1) * z.log_softmax(-1)).sum()))(logits)
    rec("ent", ent)


def p_grad_edges(lib, dt, rec):
    """Gradients at the edges these losses reach: a learned fill value in masked_fill/where,
    tensor clamp bounds, discounts by cumprod through zeros (and its second derivative),
    logcumsumexp and Categorical/log_softmax at -inf logits, logaddexp, softplus past its
    threshold, lerp weights, straight-through Gumbel-softmax, gather/scatter_add, and in-place
    chains on non-leaves (with the version-counter errors)."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(49)
    x = lib.randn(3, 5, generator=g, dtype=dt, requires_grad=True)
    b = lib.tensor(-3.0, dtype=dt, requires_grad=True)
    m = x.detach() > 0.5
    y = x.masked_fill(m, b)
    y2 = lib.where(m, x, b)
    (y.sum() + y2.pow(2).sum()).backward()
    rec("xg", x.grad)
    rec("bg", b.grad)
    lo = lib.full((3, 5), -0.2, dtype=dt, requires_grad=True)
    rec.err("clamp_mixed", lambda: lib.clamp(x, min=lo, max=0.4))
    lib.clamp(x, min=lo, max=lib.tensor(0.4, dtype=dt)).sum().backward()
    rec("log", lo.grad)
    done = lib.tensor([[1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]], dtype=dt, requires_grad=True)
    cp = (done * 0.9).cumprod(-1)
    cp.sum().backward()
    rec("cp", cp)
    rec("cpg", done.grad)
    dd = lib.tensor([[1.0, 0.0, 2.0]], dtype=dt, requires_grad=True)
    (g1,) = lib.autograd.grad(dd.cumprod(-1).sum(), dd, create_graph=True)
    rec("cpg1", g1)
    rec("cpg2", lib.autograd.grad(g1.sum(), dd)[0])
    inf = float("-inf")
    lc = lib.tensor([[inf, 0.0, 1.0, inf]], dtype=dt, requires_grad=True)
    o = lc.logcumsumexp(-1)
    o.sum().backward()
    rec("lcs", o)
    rec("lcsg", lc.grad)
    lg = lib.tensor([[2.0, inf, 0.5]], dtype=dt, requires_grad=True)
    d = lib.distributions.Categorical(logits=lg)
    (d.entropy().sum() + d.log_prob(lib.tensor([0])).sum()).backward()
    rec("cat_g", lg.grad)
    lg2 = lib.tensor([[2.0, inf, 0.5]], dtype=dt, requires_grad=True)
    lg2.log_softmax(-1)[:, 0].sum().backward()
    rec("ls_g", lg2.grad)
    lg3 = lib.tensor([[2.0, inf, 0.5]], dtype=dt, requires_grad=True)
    p = lg3.softmax(-1)
    (-(p * lib.where(p > 0, p.log(), lib.zeros_like(p))).sum()).backward()
    rec("ent_g", lg3.grad)
    a = lib.tensor([0.5, -1.0], dtype=dt, requires_grad=True)
    bb = lib.tensor([0.2, 3.0], dtype=dt, requires_grad=True)
    la = lib.logaddexp(a, bb)
    la.sum().backward()
    rec("lae", la)
    rec("lae_g", lib.stack([a.grad, bb.grad]))
    rec("expit", lib.special.expit(a.detach()))
    rec("slse", lib.special.logsumexp(x.detach(), 1))
    sp_in = lib.tensor([-30.0, 0.0, 5.0, 30.0], dtype=dt, requires_grad=True)
    s = F.softplus(sp_in, beta=0.5, threshold=5.0)
    s.sum().backward()
    rec("softplus", s)
    rec("softplus_g", sp_in.grad)
    w = lib.tensor([0.1, 0.9], dtype=dt, requires_grad=True)
    lib.lerp(a, bb, w).sum().backward()
    rec("lerp_wg", w.grad)
    gs_in = lib.randn(2, 4, generator=g, dtype=dt, requires_grad=True)
    lib.manual_seed(3)
    gs = F.gumbel_softmax(gs_in, tau=0.7, hard=True)
    (gs * lib.arange(4, dtype=dt)).sum().backward()
    rec("gs", gs)
    rec("gs_g", gs_in.grad)
    xs = lib.randn(4, 6, generator=g, dtype=dt, requires_grad=True)
    idx = lib.tensor([[0, 2], [1, 1], [5, 0], [3, 3]])
    (xs.gather(-1, idx) * lib.tensor([1.0, 2.0], dtype=dt)).sum().backward()
    rec("ga_g", xs.grad)
    z = lib.zeros(2, 6, dtype=dt, requires_grad=True)
    z.scatter_add(1, idx[:2], xs[:2, :2]).sum().backward()
    rec("sa_g", z.grad)
    t = lib.randn(3, generator=g, dtype=dt, requires_grad=True)
    u = t * 1
    u.sigmoid_()
    u.exp_()
    rec.err("inpl", lambda: u.sum().backward())
    u = t * 1
    u.exp_()
    u.mul_(2)
    rec.err("inpl2", lambda: u.sum().backward())
    u = t * 1
    u.mul_(2)
    u.add_(1)
    u.sigmoid_()
    u.sum().backward()
    rec("inpl3", t.grad)


def p_collate_batches(lib, dt, rec):
    """Preference rows as dicts through default_collate and DataLoader (strings stay lists,
    lists of ints are transposed into tensors), ragged rows refused, datasets and samplers."""
    DL = lib.utils.data
    rows = [
        {
            "prompt": f"p{i}",
            "chosen_ids": list(range(i, i + 3)),
            "score": 0.5 * i,
            "label": i % 2,
            "t": lib.arange(3, dtype=dt) + i,
            "flag": bool(i % 2),
            "np": np.float32(i),
        }
        for i in range(5)
    ]
    b = DL.default_collate(rows[:3])
    rec("keys", str(sorted(b)))
    rec("prompt", str(b["prompt"]))
    rec("chosen", str(b["chosen_ids"]))
    for k in ("score", "label", "t", "flag", "np"):
        rec(k, b[k])
    rec.err("ragged", lambda: DL.default_collate([lib.arange(3), lib.arange(4)]))
    rec.err("ragged_list", lambda: DL.default_collate([[1, 2], [3]]))
    rec.err("none", lambda: DL.default_collate([None, None]))
    dl = DL.DataLoader(rows, batch_size=2, drop_last=True)
    rec("len", len(dl))
    rec("batches", str([bb["prompt"] for bb in dl]))
    ds = DL.TensorDataset(lib.arange(6), lib.arange(6, dtype=dt) * 2)
    rec("ds", str(ds[2]))
    sub = DL.Subset(ds, [4, 1])
    rec("sub", str([s[0].item() for s in sub]))
    cat = DL.ConcatDataset([ds, sub])
    rec("cat", len(cat))
    rec("cat_last", str(cat[7]))
    rec("bs", str(list(DL.BatchSampler(DL.SequentialSampler(range(7)), 3, drop_last=False))))
    rec("wi", str(DL.get_worker_info()))
    dl2 = DL.DataLoader(ds, batch_size=4, shuffle=True, generator=lib.Generator().manual_seed(0))
    rec("dl2", str([x[0].tolist() for x in dl2]))
    rec.err("ds_oob", lambda: ds[7])
    rec.err("bad_bs", lambda: DL.DataLoader(ds, batch_size=0))
    seq = DL.SequentialSampler(ds)
    rec.err("sampler_and_shuffle", lambda: DL.DataLoader(ds, shuffle=True, sampler=seq))


def p_autocast_fp16_policy(lib, dt, rec):
    """CPU autocast to float16 over a float32 policy: which ops run in float16, which in float32
    (cross_entropy, kl_div, mse, BCE, prod, cdist) and which promote to the widest input."""
    F = lib.nn.functional
    model = _make_lm(lib, lib.float32, seed=33)
    ids = _ids(lib, 2, 6, seed=50)
    ones = lib.ones(2, 6, VOCAB)
    with lib.autocast("cpu", dtype=lib.float16):
        logits = model(ids)
        sm = logits.softmax(-1)
        lsm = logits.log_softmax(-1)
        ce = F.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten())
        outs = {
            "logits": logits,
            "ce": ce,
            "logsigmoid": F.logsigmoid(logits[..., 0]),
            "softmax": sm,
            "log_softmax": lsm,
            "logsumexp": logits.logsumexp(-1),
            "gather": lib.gather(lsm, -1, ids[..., None]),
            "entropy": -(sm * lsm).sum(-1),
            "layer_norm": F.layer_norm(logits, (VOCAB,)),
            "matmul": logits @ logits.transpose(1, 2),
            "softplus": F.softplus(logits),
            "kl_div": F.kl_div(lsm, sm, reduction="batchmean"),
            "mse": F.mse_loss(logits, logits.detach() + 1),
            "bce": F.binary_cross_entropy_with_logits(logits, lib.ones_like(logits)),
            "cumsum": logits.cumsum(-1),
            "sum": logits.sum(),
            "prod": logits.prod(-1),
            "norm": logits.norm(),
            "exp": logits.exp(),
            "cdist": lib.cdist(logits, logits),
            "sdpa": F.scaled_dot_product_attention(logits[None], logits[None], logits[None]),
            "bmm": lib.bmm(logits, logits.transpose(1, 2)),
            "add64": logits + lib.ones(VOCAB, dtype=lib.float64),
            "cat": lib.cat([logits, ones], 0),
            "stack": lib.stack([logits, ones]),
        }
        for k, v in outs.items():
            rec(k + ".dt", str(v.dtype))
        rec("ce_val", ce.float())
    ce.backward()
    rec("g", model.wte.weight.grad)


def p_empty_batch(lib, dt, rec):
    """A step where every rollout was filtered out: an empty batch through the model and the
    losses, and the errors of reductions and joins over nothing."""
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=34)
    ids = lib.zeros(0, 6, dtype=lib.long)
    logits = model(ids)
    rec("shape", str(logits.shape))
    lp = logits.log_softmax(-1)
    flat, tgt = logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten()
    rec("ce", F.cross_entropy(flat, tgt))
    rec("ce_sum", F.cross_entropy(flat, tgt, reduction="sum"))
    loss = -F.logsigmoid(lp.sum((1, 2)) * 0.1).mean()
    rec("loss", loss)
    loss.backward()
    rec("g", model.wte.weight.grad)
    rec.err("max_empty", lambda: lp.max())
    rec("amax_dim", str(lp.amax(1).shape))
    rec.err("stack_empty", lambda: lib.stack([]))
    rec.err("cat_empty", lambda: lib.cat([]))
    rec("std_empty", lib.zeros(0, dtype=dt).std())
    rec("mn_empty", str(lib.multinomial(lib.ones(0, 3, dtype=dt), 1).shape))
    rec.err("argmax_empty", lambda: lib.zeros(0, dtype=dt).argmax())
    rec("topk_empty", str(lib.zeros(0, 5, dtype=dt).topk(2).values.shape))
    rec.err("quantile_empty", lambda: lib.quantile(lib.zeros(0, dtype=dt), 0.5))
    mask = lib.zeros(3, dtype=dt)
    rec("masked_mean0", (lib.ones(3, dtype=dt) * mask).sum() / mask.sum())
    seqs = [lib.zeros(0, dtype=dt), lib.ones(2, dtype=dt)]
    rec("pad_empty", lib.nn.utils.rnn.pad_sequence(seqs, batch_first=True))
    rec.err("pad_none", lambda: lib.nn.utils.rnn.pad_sequence([]))
    rec("clip_none", lib.nn.utils.clip_grad_norm_([], 1.0))


def p_module_state(lib, dt, rec):
    """Policy bookkeeping: a non-persistent causal-mask buffer, tied weights listed with
    remove_duplicate=False, load_state_dict's missing/unexpected/size errors, new-token rows
    trained alone by a gradient hook, forward pre-hooks with kwargs, buffers across .to()."""
    F = lib.nn.functional
    model = _make_lm(lib, dt, seed=35)
    model.register_buffer("causal", lib.tril(lib.ones(6, 6)).view(1, 1, 6, 6), persistent=False)
    model.register_buffer("step_count", lib.zeros((), dtype=lib.long))
    rec("np", len(list(model.named_parameters())))
    dup = [n for n, _ in model.named_parameters(remove_duplicate=False)]
    rec("np_dup", str(dup[-3:]))
    keys = [k for k in model.state_dict() if "step" in k or "causal" in k or "head" in k]
    rec("sd_keys", str(keys))
    rec("kv", type(model.state_dict(keep_vars=True)["wte.weight"]).__name__)
    rec("gp", model.get_parameter("blocks.1.qkv.bias")[:3])
    rec("gb", model.get_buffer("causal").sum())
    sd = model.state_dict()
    sd["extra.weight"] = lib.ones(2)
    del sd["ln_f.bias"]
    rec.err("strict", lambda: model.load_state_dict(sd))
    rec("nonstrict", str(model.load_state_dict(sd, strict=False)))
    sd2 = model.state_dict()
    sd2["ln_f.weight"] = lib.ones(3, dtype=dt)
    rec.err("shape", lambda: model.load_state_dict(sd2))
    keep = lib.zeros(VOCAB, 1, dtype=dt)
    keep[lib.tensor([11, 12])] = 1
    h = model.wte.weight.register_hook(lambda g: g * keep)
    ids = _ids(lib, 2, 6, seed=51)
    F.cross_entropy(model(ids)[:, :-1].flatten(0, 1), ids[:, 1:].flatten()).backward()
    rec("g_rows", model.wte.weight.grad.abs().sum(1))
    h.remove()
    calls = []

    def pre(mod, args, kwargs):
        calls.append((len(args), sorted(kwargs)))
        return args, kwargs

    hp = model.register_forward_pre_hook(pre, with_kwargs=True)
    model(ids, attention_mask=lib.ones(2, 6, dtype=lib.long))
    hp.remove()
    rec("calls", str(calls))
    rec("buffers", str([n for n, _ in model.named_buffers()]))
    model.to(lib.float32 if dt == lib.float64 else lib.float64)
    rec("buf_dtype", str(model.causal.dtype) + str(model.step_count.dtype))
    rec("wte_dtype", str(model.wte.weight.dtype))
    model.eval()
    rec("eval", str([mm.training for mm in model.modules()][:3]))
    model.zero_grad()
    rec("zg", str(model.wte.weight.grad))
