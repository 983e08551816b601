"""Session 35 (helper decode): text-generation decoding loops written the way they are written
in torch (transformers' logits processors and warpers, fairseq/HF beam search, nanoGPT-style
sampling), run under torch and minitorch with the same seeds and compared record by record:
greedy decoding with and without a KV cache (manual attention and scaled_dot_product_attention
over a cache grown by cat or written by index_copy_), temperature sampling through
torch.multinomial with a seeded Generator (one and many samples, with and without
replacement, expanded and strided probabilities, a replayed Generator state), top-k by topk
(masked_fill under the k-th value, scatter into a -inf tensor), top-p/nucleus (descending sort,
softmax, cumsum, shifted mask, scatter back by the sort indices; the ascending spelling;
per-row p; min_tokens_to_keep), min-p, typical, epsilon and eta sampling, repetition /
presence / frequency penalties (gather, where, scatter_, bincount, scatter_add_), no-repeat
n-gram bans found with unfold, beam search with log-prob accumulation, view(-1)/topk over
beams*vocab, floor division and remainder for beam and token ids, length penalties and EOS
handling, diverse (group) beam search with a Hamming penalty, contrastive search's
degeneration penalty, transition scores and sequence log-probabilities, Gumbel-max sampling
(argmax of logits minus log(-log(u)), argmax of p / Exp(1) by exponential_, gumbel_softmax
with hard=True under the global seed), inverse-CDF sampling by searchsorted, speculative
decoding's residual distribution, REINFORCE gradients through sampled tokens, and the errors
users meet: torch.multinomial's for negative, inf, NaN and all-zero probabilities (from a
temperature of zero or an all -inf row too), its shape and argument errors, and the shape
mistakes of topk, gather, scatter, cat and view in beam bookkeeping.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; token ids exactly.

Found and fixed:
- torch.multinomial of a strided slice of a transposed or permuted probability matrix
  (probs.t()[:4], probs.t()[::2], a permuted 3-d tensor's slice) drew other token ids than
  torch: torch fills its exponential keys in the memory order of empty_like(input), which keeps
  the input's axis order (infer_dense_strides); minitorch read such inputs row-major unless
  their strides were exactly (1, rows). Now the keys follow the input's axis order (an expanded,
  zero-stride input stays row-major, as in torch).
- scaled_dot_product_attention's output was row-major whatever the query's layout; torch's CPU
  flash kernel lays it out in the query's axis order, so nanoGPT's
  y.transpose(1, 2).view(B, T, C) after heads split by view + transpose raised "view size is
  not compatible with input tensor's size and stride" in minitorch only. Now the flash path's
  output follows the query's layout (the math path, with dropout or 3-d inputs, stays
  row-major, as in torch).

Known and left (documented):
- An elementwise op of two full-shape operands in different layouts (w.t()[::2] / r, r of
  row-major) gives a row-major result (NumPy's order="K"); torch's TensorIterator follows the
  first operand's order. Only stride() shows it (and so the memory order a later multinomial
  or exponential_ of the result draws in); changing it would cost every pointwise op.
- Advanced indexing of a permuted tensor (k[beam_idx] of a (B, H, T, D) view of (B, T, H, D)
  memory) gives a row-major result; torch keeps the input's axis order. index_select (what
  beam-search cache reordering calls) matches torch.
- The stride of a size-1 dim can differ from torch's (NumPy normalises it); no program
  records one.
- torch's Tensor.numpy() makes the tensor's storage non-resizable, so a later out= that must
  grow it raises "Trying to resize storage that is not resizable"; minitorch resizes it. The
  programs record out= buffers as clones.
- A missing or extra positional argument gives Python's TypeError ("topk() missing 1 required
  positional argument: 'k'", "Tensor.multinomial() takes from 2 to 3 positional arguments")
  where torch's parser says 'missing 1 required positional arguments: "k"' and counts without
  self: a library-wide difference of Python-level signatures, not recorded.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")

PROGRAMS = [
    "greedy_kv_cache", "temperature", "top_k", "top_p", "min_p", "typical", "eta_epsilon",
    "penalties", "no_repeat_ngram", "beam_search", "diverse_beam", "contrastive",
    "transition_scores", "gumbel", "inverse_cdf", "speculative", "reinforce", "state_replay",
    "mn_prob_errors", "mn_arg_errors", "shape_errors", "global_seed", "batched_eos",
    "index_copy_cache", "strided_sampling", "grad_paths", "out_args", "categorical",
    "generator_errors", "sdpa_heads_view", "inplace_processors",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers: a tiny causal LM with a KV cache, and the logits processors ---

V = 11  # the vocabulary
EOS, PAD = 1, 0


class _TinyLM:
    """One attention layer (2 heads) over token and position embeddings, tied to a head; the
    KV cache is a pair of (B, H, S, D) tensors grown by cat."""

    def __init__(self, lib, dt, seed, d=8, heads=2):
        g = _gen(lib, seed)
        self.lib, self.d, self.h = lib, d, heads
        self.emb = lib.randn(V, d, generator=g, dtype=dt)
        self.pos = lib.randn(32, d, generator=g, dtype=dt) * 0.3
        self.wqkv = lib.randn(d, 3 * d, generator=g, dtype=dt) / math.sqrt(d)
        self.wo = lib.randn(d, d, generator=g, dtype=dt) / math.sqrt(d)
        self.head = lib.randn(d, V, generator=g, dtype=dt)

    def __call__(self, ids, start=0, cache=None, sdpa=False):
        lib, d, nh = self.lib, self.d, self.h
        b, t = ids.shape
        x = self.emb[ids] + self.pos[start : start + t]
        q, k, v = (x @ self.wqkv).split(d, dim=-1)
        q, k, v = (z.view(b, t, nh, d // nh).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            k = lib.cat([cache[0], k], dim=2)
            v = lib.cat([cache[1], v], dim=2)
        s = k.size(2)
        if sdpa:
            mask = lib.ones(t, s, dtype=lib.bool).tril(diagonal=s - t)
            o = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(d // nh)
            causal = lib.ones(t, s, dtype=lib.bool).triu(diagonal=s - t + 1)
            att = att.masked_fill(causal, float("-inf")).softmax(-1)
            o = att @ v
        h = x + o.transpose(1, 2).reshape(b, t, d) @ self.wo
        return h, h @ self.head, (k, v)


def _top_k(lib, logits, k, fill=float("-inf")):
    k = min(k, logits.size(-1))
    kth = lib.topk(logits, k)[0][..., -1, None]
    return logits.masked_fill(logits < kth, fill)


def _top_p(lib, logits, p, min_keep=1):
    """The descending spelling: drop tokens once the mass before them exceeds p."""
    sl, si = lib.sort(logits, descending=True)
    cp = lib.cumsum(lib.softmax(sl, dim=-1), dim=-1)
    remove = cp > p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., :min_keep] = False
    return logits.masked_fill(remove.scatter(-1, si, remove), float("-inf"))


# --- the programs: each takes the library, a dtype and a recorder ---


def p_greedy_kv_cache(lib, dt, rec):
    """Greedy decoding three ways: recomputing the prefix, a KV cache with manual attention,
    and a KV cache with scaled_dot_product_attention; the caches' logits match the full pass."""
    lm = _TinyLM(lib, dt, 1)
    prompt = lib.tensor([[3, 4, 5], [6, 2, 9]])
    with lib.no_grad():
        ids = prompt
        for _ in range(6):
            _, logits, _ = lm(ids)
            ids = lib.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        rec("full_ids", ids)
        rec("full_logits", logits)
        for sdpa in (False, True):
            tag = "sdpa" if sdpa else "manual"
            _, logits, cache = lm(prompt, sdpa=sdpa)
            out, steps = prompt, []
            for _ in range(6):
                nxt = lib.argmax(logits[:, -1, :], dim=-1)
                out = lib.cat((out, nxt[:, None]), dim=-1)
                _, logits, cache = lm(nxt.unsqueeze(1), out.size(1) - 1, cache, sdpa)
                steps.append(logits[:, -1])
            rec(tag + ".ids", out)
            rec(tag + ".steps", lib.stack(steps, 1))
            rec(tag + ".cache", str(tuple(cache[0].shape)))
        # the greedy scores: log-probs of the chosen tokens
        lp = logits.log_softmax(-1)
        rec("greedy_lp", lp.max(-1).values)


def p_temperature(lib, dt, rec):
    g0 = _gen(lib, 2)
    logits = lib.randn(4, V, generator=g0, dtype=dt) * 2
    g = lib.Generator().manual_seed(11)
    for t in (0.5, 1.0, 1.7):
        probs = lib.softmax(logits / t, dim=-1)
        rec(f"p{t}", probs)
        rec(f"s1.{t}", lib.multinomial(probs, num_samples=1, generator=g))
        rec(f"s5r.{t}", lib.multinomial(probs, 5, replacement=True, generator=g))
        rec(f"s5.{t}", lib.multinomial(probs, 5, generator=g))
    # un-normalised weights, a 1-d distribution, exp of logits, probs.T made contiguous or not
    w = logits.exp()
    rec("w1", w[0].multinomial(3, generator=g))
    rec("w20r", lib.multinomial(w[1], 20, True, generator=g))
    rec("wT", lib.multinomial(w.t()[:4], 2, generator=g))
    rec("wexp", lib.multinomial(w[:1].expand(3, V), 1, generator=g))
    rec("wstep", lib.multinomial(w[:, ::2], 4, replacement=True, generator=g))
    # softmax in float64 of float32 logits, and a zero weight never drawn
    p64 = lib.softmax(logits, -1, dtype=lib.float64)
    rec("p64", p64)
    p0 = p64.clone()
    p0[:, 3] = 0
    draws = lib.multinomial(p0, V - 1, generator=g)
    rec("no3", draws)
    rec("has3", (draws == 3).any())


def p_top_k(lib, dt, rec):
    g = _gen(lib, 3)
    logits = lib.randn(3, V, generator=g, dtype=dt)
    rec("masked", _top_k(lib, logits, 4))
    rec("k_big", _top_k(lib, logits, 50))
    v, i = lib.topk(logits, 4)
    rec("v", v)
    rec("i", i)
    sc = lib.full_like(logits, float("-inf")).scatter(1, i, v)
    rec("scatter", sc)
    sc2 = lib.full_like(logits, float("-inf"))
    sc2.scatter_(-1, i, v)
    rec("scatter_", sc2)
    fmin = _top_k(lib, logits, 2, fill=lib.finfo(logits.dtype).min)
    rec("finfo_min", fmin)
    rec("finfo_softmax", fmin.softmax(-1))
    # sorted=False then sorted by value: the same set
    v2, i2 = logits.topk(5, dim=-1, sorted=False)
    order = v2.argsort(dim=-1, descending=True)
    rec("unsorted_set", i2.gather(-1, order))
    rec("smallest", logits.topk(2, largest=False).indices)
    g2 = lib.Generator().manual_seed(4)
    probs = _top_k(lib, logits / 0.8, 3).softmax(-1)
    rec("probs", probs)
    rec("draw", lib.multinomial(probs, 2, generator=g2))
    rec("nucleus_after_k", _top_p(lib, _top_k(lib, logits, 6), 0.8))


def p_top_p(lib, dt, rec):
    g = _gen(lib, 5)
    logits = lib.randn(4, V, generator=g, dtype=dt) * 1.5
    for p in (0.3, 0.9):
        rec(f"desc{p}", _top_p(lib, logits, p))
    rec("keep3", _top_p(lib, logits, 0.1, min_keep=3))
    # the ascending (transformers) spelling
    sl, si = lib.sort(logits, descending=False)
    cp = sl.softmax(dim=-1).cumsum(dim=-1)
    remove = cp <= (1 - 0.75)
    remove[..., -1:] = 0
    asc = logits.masked_fill(remove.scatter(1, si, remove), -float("inf"))
    rec("asc", asc)
    # per-row p as a tensor, and the scatter back written with an index tensor on a new tensor
    ps = lib.tensor([0.2, 0.5, 0.8, 0.95], dtype=dt)
    sp, sidx = lib.softmax(logits, -1).sort(-1, descending=True)
    mass_before = sp.cumsum(-1) - sp
    sp = sp.masked_fill(mass_before > ps[:, None], 0.0)
    sp = sp / sp.sum(-1, keepdim=True)
    back = lib.zeros_like(sp).scatter_(-1, sidx, sp)
    rec("per_row", back)
    gs = lib.Generator().manual_seed(6)
    # nanoGPT-style: sample in the sorted order, then map back through the sort indices
    pick = lib.multinomial(sp, 1, generator=gs)
    rec("pick_sorted", pick)
    rec("token", lib.gather(sidx, -1, pick))
    rec("token_back", lib.multinomial(back, 1, generator=gs))
    rec("kept", (back > 0).sum(-1))


def p_min_p(lib, dt, rec):
    g = _gen(lib, 7)
    logits = lib.randn(3, V, generator=g, dtype=dt) * 2
    for mp in (0.05, 0.3):
        probs = lib.softmax(logits, dim=-1)
        top = probs.amax(dim=-1, keepdim=True)
        remove = probs < mp * top
        # keep the top token whatever min_p is (transformers' min_tokens_to_keep)
        sidx = lib.argsort(logits, descending=True, dim=-1)
        srem = lib.gather(remove, -1, sidx)
        srem[..., :1] = False
        remove = srem.scatter(1, sidx, srem)
        out = logits.masked_fill(remove, -float("inf"))
        rec(f"minp{mp}", out)
        rec(f"n{mp}", (~remove).sum(-1))
    gs = lib.Generator().manual_seed(8)
    rec("draw", lib.multinomial(out.softmax(-1), 3, replacement=True, generator=gs))


def p_typical(lib, dt, rec):
    """transformers' TypicalLogitsWarper."""
    g = _gen(lib, 9)
    scores = lib.randn(3, V, generator=g, dtype=dt) * 2
    mass = 0.6
    normalized = lib.nn.functional.log_softmax(scores, dim=-1)
    p = lib.exp(normalized)
    ent = -(normalized * p).nansum(-1, keepdim=True)
    shifted = lib.abs((-normalized) - ent)
    sorted_scores, sorted_indices = lib.sort(shifted, descending=False)
    sorted_logits = scores.gather(-1, sorted_indices)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    last_ind = (cumulative_probs < mass).sum(dim=1)
    last_ind.clamp_(max=sorted_scores.shape[-1] - 1)
    rec("ent", ent)
    rec("last_ind", last_ind)
    remove = sorted_scores > sorted_scores.gather(1, last_ind.view(-1, 1))
    remove[..., :1] = 0
    indices_to_remove = remove.scatter(1, sorted_indices, remove)
    out = scores.masked_fill(indices_to_remove, -float("inf"))
    rec("typical", out)
    # an entropy with -inf logits: nansum skips 0 * -inf
    masked = scores.masked_fill(scores < 0, float("-inf"))
    lsm = masked.log_softmax(-1)
    rec("ent_masked", -(lsm * lsm.exp()).nansum(-1))
    rec("ent_sum_nan", (lsm * lsm.exp()).sum(-1).isnan())


def p_eta_epsilon(lib, dt, rec):
    """transformers' EpsilonLogitsWarper and EtaLogitsWarper."""
    g = _gen(lib, 10)
    scores = lib.randn(3, V, generator=g, dtype=dt) * 2
    probs = scores.softmax(dim=-1)
    remove = probs < 0.05
    top_k = min(1, scores.size(-1))
    remove = remove & (scores < lib.topk(scores, top_k)[0][..., -1, None])
    rec("eps", scores.masked_fill(remove, -float("inf")))
    eps = lib.tensor(0.02, dtype=dt)
    entropy = lib.distributions.Categorical(logits=scores).entropy()
    eta = lib.min(eps, lib.sqrt(eps) * lib.exp(-entropy))[..., None]
    rec("eta", eta)
    remove = probs < eta
    remove = remove & (scores < lib.topk(scores, 1)[0][..., -1, None])
    rec("eta_out", scores.masked_fill(remove, -float("inf")))


def p_penalties(lib, dt, rec):
    g = _gen(lib, 12)
    logits = lib.randn(3, V, generator=g, dtype=dt)
    prev = lib.tensor([[2, 5, 5, 7, 2, 2], [0, 1, 1, 10, 3, 4], [9, 9, 9, 9, 8, 6]])
    # repetition penalty (CTRL): gather, where, scatter_
    score = lib.gather(logits, 1, prev)
    score = lib.where(score < 0, score * 1.5, score / 1.5)
    rep = logits.clone()
    rep.scatter_(1, prev, score)
    rec("rep", rep)
    # frequency and presence penalties (OpenAI): counts per row by bincount and scatter_add_
    counts = lib.stack([lib.bincount(row, minlength=V) for row in prev])
    rec("counts", counts)
    counts2 = lib.zeros_like(logits).scatter_add_(1, prev, lib.ones_like(prev, dtype=dt))
    rec("counts2", counts2)
    freq = logits - counts.to(dt) * 0.4 - (counts > 0).to(dt) * 0.6
    rec("freq", freq)
    # weighted bincount: a decaying penalty by recency
    w = lib.linspace(0.2, 1.0, prev.size(1), dtype=dt)
    rec("decay", lib.bincount(prev[0], weights=w, minlength=V))
    rec("decay2", logits[0] - lib.bincount(prev[2], weights=w, minlength=V))
    # a logit bias dict and bad-word ids
    bias = lib.zeros(V, dtype=dt)
    bias[lib.tensor([3, 4])] = lib.tensor([2.0, -5.0], dtype=dt)
    rec("bias", logits + bias)
    banned = lib.zeros_like(logits, dtype=lib.bool)
    banned[:, [6, 8]] = True
    rec("banned", logits.masked_fill(banned, float("-inf")))
    # an encoder repetition penalty (penalty < 1 favours the input ids)
    enc = lib.tensor([[4, 4, 1]] * 3)
    s = logits.gather(1, enc)
    s = lib.where(s > 0, s * 1 / 0.8, s * 0.8)
    rec("enc_rep", logits.scatter(1, enc, s))


def p_no_repeat_ngram(lib, dt, rec):
    """Ban every token that would complete an n-gram already in the row (n=2 and 3), the
    n-grams found by unfold."""
    g = _gen(lib, 13)
    logits = lib.randn(3, V, generator=g, dtype=dt)
    ids = lib.tensor([[3, 4, 5, 3, 4, 6, 3, 4], [1, 2, 1, 2, 1, 2, 7, 1], [5, 5, 5, 5, 5, 5, 5, 5]])
    for n in (2, 3):
        grams = ids.unfold(1, n, 1)  # (B, L - n + 1, n)
        prefix = ids[:, -(n - 1) :]  # the last n - 1 tokens
        hit = (grams[:, :, :-1] == prefix[:, None, :]).all(-1)  # (B, L - n + 1)
        ban = lib.zeros(3, V, dtype=lib.bool)
        rows, cols = hit.nonzero(as_tuple=True)
        ban[rows, grams[rows, cols, -1]] = True
        rec(f"hit{n}", hit)
        rec(f"ban{n}", ban)
        rec(f"out{n}", logits.masked_fill(ban, -float("inf")))
    # the tolist() way transformers writes it gives the same bans
    n, bans = 3, []
    for row in ids.tolist():
        seen = {}
        for i in range(len(row) - n + 1):
            seen.setdefault(tuple(row[i : i + n - 1]), []).append(row[i + n - 1])
        bans.append(seen.get(tuple(row[len(row) - n + 1 :]), []))
    rec("bans", str(bans))


def _beam(lib, dt, lm, prompt, k, steps, alpha, rec, tag):
    """Beam search over the tiny LM with a KV cache reordered by index_select."""
    b = prompt.size(0)
    with lib.no_grad():
        ids = prompt.repeat_interleave(k, dim=0)  # (B*K, T)
        _, logits, cache = lm(ids)
        scores = lib.zeros(b, k, dtype=dt)
        scores[:, 1:] = -1e9
        scores = scores.view(-1)
        done = lib.zeros(b * k, dtype=lib.bool)
        for step in range(steps):
            lp = logits[:, -1].log_softmax(-1)
            lp = lp.masked_fill(done[:, None], float("-inf"))
            lp[:, EOS] = lp[:, EOS].masked_fill(done, 0.0)
            cand = (scores[:, None] + lp).view(b, -1)  # (B, K*V)
            top, idx = cand.topk(k, dim=1)
            beam = lib.div(idx, V, rounding_mode="floor")
            tok = idx % V
            sel = (beam + lib.arange(b)[:, None] * k).view(-1)
            ids = lib.cat([ids[sel], tok.view(-1, 1)], dim=-1)
            done = done[sel] | (tok.view(-1) == EOS)
            scores = top.view(-1)
            cache = tuple(c.index_select(0, sel) for c in cache)
            _, logits, cache = lm(tok.view(-1, 1), ids.size(1) - 1, cache)
            rec(f"{tag}.beam{step}", beam)
            rec(f"{tag}.tok{step}", tok)
            rec(f"{tag}.sc{step}", top)
        gen = ids[:, prompt.size(1) :]
        first_eos = lib.where(
            (gen == EOS).any(-1), (gen == EOS).int().argmax(-1) + 1, lib.tensor(gen.size(1))
        )
        lengths = first_eos.to(dt)
        final = (scores / lengths**alpha).view(b, k)
        rec(tag + ".lengths", first_eos)
        rec(tag + ".final", final)
        best = final.argmax(-1)
        rec(tag + ".best", gen.view(b, k, -1)[lib.arange(b), best])


def p_beam_search(lib, dt, rec):
    lm = _TinyLM(lib, dt, 14)
    prompt = lib.tensor([[3, 4], [7, 2]])
    _beam(lib, dt, lm, prompt, 3, 5, 1.0, rec, "k3")
    _beam(lib, dt, lm, prompt[:1], 4, 4, 0.6, rec, "k4")
    # floor-divide spellings of the beam ids agree
    idx = lib.tensor([[0, 12, 25], [34, 10, 21]])
    rec("floordiv", idx // V)
    rec("floor_divide", lib.floor_divide(idx, V))
    rec("div_trunc", lib.div(idx, V, rounding_mode="trunc"))
    rec("remainder", lib.remainder(idx, V))
    rec("fmod", idx.fmod(V))
    rec("unravel", str(lib.unravel_index(idx, (3, V))))


def p_diverse_beam(lib, dt, rec):
    """Group beam search (Vijayakumar et al.): each group's scores are lowered by the Hamming
    penalty of the tokens earlier groups chose at this step (bincount over the vocabulary)."""
    g = _gen(lib, 15)
    groups, per, steps = 3, 2, 3
    beam_scores = lib.zeros(groups * per, dtype=dt)
    chosen_all = []
    for step in range(steps):
        lp = lib.randn(groups * per, V, generator=g, dtype=dt).log_softmax(-1)
        chosen = lib.zeros(0, dtype=lib.long)
        for gi in range(groups):
            rows = slice(gi * per, (gi + 1) * per)
            lpg = lp[rows].clone()
            if chosen.numel():
                freq = lib.bincount(chosen, minlength=V).to(dt)
                lpg -= 0.7 * freq
            cand = (beam_scores[rows, None] + lpg).view(-1)
            top, idx = cand.topk(per)
            beam_scores[rows] = top
            tok = idx % V
            chosen = lib.cat([chosen, tok])
            rec(f"s{step}.g{gi}", top)
            rec(f"t{step}.g{gi}", idx // V)
        chosen_all.append(chosen)
    rec("chosen", lib.stack(chosen_all))
    rec("unique", lib.unique(lib.stack(chosen_all), dim=1))


def p_contrastive(lib, dt, rec):
    """Contrastive search (Su et al.): the top-k candidates scored by model confidence minus
    alpha times their largest cosine similarity to the context's hidden states."""
    lm = _TinyLM(lib, dt, 16)
    ids = lib.tensor([[3, 8, 5], [2, 6, 4]])
    k, alpha = 3, 0.6
    with lib.no_grad():
        for step in range(4):
            hid, logits, _ = lm(ids)
            probs = logits[:, -1].softmax(-1)
            top_p, top_i = probs.topk(k, dim=-1)  # (B, k)
            cand = lib.cat([ids.repeat_interleave(k, 0), top_i.view(-1, 1)], dim=1)
            chid, _, _ = lm(cand)
            ctx = hid.repeat_interleave(k, 0)  # (B*k, T, d)
            nxt = chid[:, -1:]  # (B*k, 1, d)
            cos = lib.nn.functional.cosine_similarity(ctx, nxt, dim=-1)  # (B*k, T)
            degen = cos.max(-1).values.view(-1, k)
            score = (1 - alpha) * top_p - alpha * degen
            pick = score.argmax(-1)
            ids = lib.cat([ids, top_i.gather(1, pick[:, None])], dim=1)
            rec(f"degen{step}", degen)
            rec(f"score{step}", score)
        rec("ids", ids)
        # the normalised-matmul spelling of the same similarities
        n1 = lib.nn.functional.normalize(ctx, dim=-1)
        n2 = lib.nn.functional.normalize(nxt, dim=-1)
        rec("cos_mm", (n1 @ n2.transpose(1, 2)).squeeze(-1).max(-1).values)


def p_transition_scores(lib, dt, rec):
    """compute_transition_scores: the log-prob of each generated token (gather from stacked
    per-step scores), their sum, length-normalised scores and perplexity."""
    lm = _TinyLM(lib, dt, 17)
    g = lib.Generator().manual_seed(18)
    ids = lib.tensor([[5, 6], [9, 3], [2, 2]])
    step_scores = []
    with lib.no_grad():
        _, logits, cache = lm(ids)
        for _ in range(5):
            sc = logits[:, -1] / 0.9
            step_scores.append(sc)
            nxt = lib.multinomial(sc.softmax(-1), 1, generator=g)
            ids = lib.cat([ids, nxt], -1)
            _, logits, cache = lm(nxt, ids.size(1) - 1, cache)
    scores = lib.stack(step_scores, dim=1).log_softmax(-1)  # (B, steps, V)
    gen = ids[:, 2:]
    trans = scores.gather(2, gen.unsqueeze(-1)).squeeze(-1)
    rec("ids", ids)
    rec("trans", trans)
    rec("seq", trans.sum(-1))
    rec("mean", trans.mean(-1))
    rec("ppl", lib.exp(-trans.mean(-1)))
    # the same through a take_along_dim and cross_entropy
    rec("take", lib.take_along_dim(scores, gen[..., None], dim=-1)[..., 0])
    ce = lib.nn.functional.cross_entropy(
        lib.stack(step_scores, 1).transpose(1, 2), gen, reduction="none"
    )
    rec("ce", ce)
    # a teacher-forced pass over the sampled ids gives the same log-probs at T = 1
    _, full, _ = lm(ids)
    lp_full = (full[:, 1:-1] / 0.9).log_softmax(-1).gather(-1, gen[:, :, None]).squeeze(-1)
    rec("teacher", lp_full)


def p_gumbel(lib, dt, rec):
    g = _gen(lib, 19)
    logits = lib.randn(5, V, generator=g, dtype=dt) * 2
    # Gumbel-max: argmax(logits + G), G = -log(-log(u))
    u = lib.rand(5, V, generator=g, dtype=dt)
    gum = -lib.log(-lib.log(u))
    rec("gumbel", gum)
    rec("gmax", (logits + gum).argmax(-1))
    # the exponential race: argmax(p / E), E ~ Exp(1), filled by exponential_
    probs = logits.softmax(-1)
    q = lib.empty_like(probs).exponential_(1, generator=g)
    rec("q", q)
    rec("race", lib.argmax(probs / q, dim=-1, keepdim=True))
    q2 = lib.empty_like(probs).exponential_(lambd=2.0, generator=g)
    rec("q2", q2)
    # gumbel_softmax with the global seed, hard and soft; its straight-through gradient
    lib.manual_seed(20)
    x = logits.clone().requires_grad_(True)
    y = lib.nn.functional.gumbel_softmax(x, tau=0.5, hard=True)
    rec("hard", y)
    (y * lib.arange(V, dtype=dt)).sum().backward()
    rec("hard.grad", x.grad)
    ys = lib.nn.functional.gumbel_softmax(logits, tau=2.0, dim=0)
    rec("soft", ys)
    # Gumbel-top-k: k samples without replacement
    u2 = lib.rand(5, V, generator=g, dtype=dt)
    rec("gtopk", (logits - lib.log(-lib.log(u2))).topk(3, dim=-1).indices)


def p_inverse_cdf(lib, dt, rec):
    """Manual inverse-CDF sampling: searchsorted of uniforms in the running sum."""
    g = _gen(lib, 21)
    probs = lib.rand(3, V, generator=g, dtype=dt)
    probs = probs / probs.sum(-1, keepdim=True)
    cdf = probs.cumsum(-1)
    u = lib.rand(3, 4, generator=g, dtype=dt)
    rec("cdf", cdf)
    rec("left", lib.searchsorted(cdf, u))
    rec("right", lib.searchsorted(cdf, u, right=True))
    rec("side", lib.searchsorted(cdf, u, side="right", out_int32=True))
    # clamp for a u past the last rounded value, then a bucketize of one row
    rec("clamped", lib.searchsorted(cdf, u * 1.5).clamp(max=V - 1))
    rec("bucketize", lib.bucketize(u[0], cdf[0]))
    # the (u < cdf) count spelling
    rec("count", (u[:, :, None] > cdf[:, None, :]).sum(-1))


def p_speculative(lib, dt, rec):
    """Speculative decoding with a draft from the tiny LM at a high temperature: accepted
    while u < p/q; a rejection is resampled from normalised max(p - q, 0)."""
    lm = _TinyLM(lib, dt, 22)
    g = lib.Generator().manual_seed(23)
    ids = lib.tensor([[4, 7]])
    k = 4
    with lib.no_grad():
        draft, qs = ids, []
        for _ in range(k):
            q = (lm(draft)[1][:, -1] / 4.0).softmax(-1)
            qs.append(q)
            draft = lib.cat([draft, lib.multinomial(q, 1, generator=g)], 1)
        q = lib.stack(qs, 1)  # (1, k, V)
        p = lm(draft)[1][:, ids.size(1) - 1 :].softmax(-1)  # (1, k + 1, V)
        toks = draft[:, ids.size(1) :]
        ratio = p[:, :k].gather(-1, toks[..., None])[..., 0] / q.gather(-1, toks[..., None])[..., 0]
        u = lib.rand(1, k, generator=g, dtype=dt)
        accepted = (u < ratio.clamp(max=1)).cumprod(-1)
        n = int(accepted.sum())
        rec("draft", draft)
        rec("ratio", ratio)
        rec("n", n)
        j = min(n, k - 1)  # (the residual at the last draft when all were accepted)
        resid = (p[:, j] - q[:, j]).clamp(min=0)
        resid = resid / resid.sum(-1, keepdim=True)
        rec("resid", resid)
        final = resid if n < k else p[:, k]
        rec("next", lib.multinomial(final, 1, generator=g))
        rec("next5", lib.multinomial(final, 5, replacement=True, generator=g))


def p_reinforce(lib, dt, rec):
    """REINFORCE on sampled sequences: log-probs of multinomial draws by gather, a baseline,
    and the gradient of the policy's parameters; an entropy bonus."""
    g = _gen(lib, 24)
    w = (lib.randn(6, V, generator=g, dtype=dt) * 0.5).requires_grad_(True)
    x = lib.randn(4, 6, generator=g, dtype=dt)
    gs = lib.Generator().manual_seed(25)
    logits = x @ w
    logp = logits.log_softmax(-1)
    acts = lib.multinomial(logp.exp().detach(), 3, replacement=True, generator=gs)
    rec("acts", acts)
    reward = (acts == 2).to(dt).sum(-1) - (acts == 5).to(dt).sum(-1)
    chosen = logp.gather(1, acts).sum(-1)
    adv = reward - reward.mean()
    ent = -(logp * logp.exp()).sum(-1)
    loss = -(adv * chosen).mean() - 0.01 * ent.mean()
    loss.backward()
    rec("loss", loss)
    rec("grad", w.grad)
    # a Categorical log_prob of the same actions agrees with the gather
    d = lib.distributions.Categorical(logits=logits.detach())
    rec("cat_lp", d.log_prob(acts.t()).t())


def p_state_replay(lib, dt, rec):
    """A Generator's state saved and restored replays the same draws; a cloned state, and
    torch.random.fork_rng around a sampling loop keep the global stream."""
    g = lib.Generator().manual_seed(26)
    probs = lib.softmax(_randn(lib, dt, 27, 3, V), -1)
    state = g.get_state()
    a = lib.multinomial(probs, 2, generator=g)
    b = lib.multinomial(probs, 4, True, generator=g)
    g.set_state(state)
    rec("a", a)
    rec("b", b)
    rec("a_again", lib.multinomial(probs, 2, generator=g))
    rec("b_again", lib.multinomial(probs, 4, True, generator=g))
    rec("initial_seed", g.initial_seed())
    lib.manual_seed(28)
    with lib.random.fork_rng():
        lib.multinomial(probs, 1)
    rec("after_fork", lib.multinomial(probs, 1))
    lib.manual_seed(28)
    rec("fresh", lib.multinomial(probs, 1))


def p_mn_prob_errors(lib, dt, rec):
    """torch.multinomial's errors for bad probabilities: as given, and as decoding code
    produces them (a temperature of zero, a row of all -inf logits, NaN logits)."""
    mn = lib.multinomial
    t = lambda v: lib.tensor(v, dtype=dt)  # noqa: E731
    bad = {
        "neg": [0.5, -0.1, 0.6],
        "inf": [[0.5, math.inf, 0.6]],
        "ninf": [[0.5, -math.inf, 0.6]],
        "nan": [0.5, math.nan, 0.6],
        "zero": [[0.5, 0.5, 0.0], [0.0, 0.0, 0.0]],
    }
    for rep in (False, True):
        for ns in (1, 2):
            for name, v in bad.items():
                rec.err(f"{name}{int(rep)}.{ns}", lambda v=v, ns=ns, rep=rep: mn(t(v), ns, rep))
    logits = _randn(lib, dt, 29, 2, 5)
    rec.err("temp0", lambda: mn((logits / 0.0).softmax(-1), 1))
    rec("temp0_probs", (logits / 0.0).softmax(-1))
    allinf = logits.clone()
    allinf[1] = float("-inf")
    rec("allinf_probs", allinf.softmax(-1))
    rec.err("allinf", lambda: mn(allinf.softmax(-1), 1))
    rec.err("allinf_rep", lambda: mn(allinf.softmax(-1), 3, True))
    nanl = logits.clone()
    nanl[0, 2] = math.nan
    rec.err("nan_logits", lambda: mn(nanl.softmax(-1), 1))
    # too few non-zero categories without replacement is no error in torch
    g = lib.Generator().manual_seed(30)
    rec("few_nonzero", mn(t([0.0, 0.7, 0.0, 0.3]), 3, generator=g))
    rec("last_zero", mn(t([0.0, 0.0, 1.0]), 3, generator=g))


def p_mn_arg_errors(lib, dt, rec):
    mn = lib.multinomial
    p = lib.softmax(_randn(lib, dt, 31, 2, 4), -1)
    rec.err("too_many", lambda: mn(p, 5))
    rec.err("zero_samples", lambda: mn(p, 0))
    rec.err("neg_samples", lambda: mn(p, -2))
    rec.err("3d", lambda: mn(p[None], 1))
    rec.err("0d", lambda: mn(p[0, 0], 1))
    rec.err("int", lambda: mn(lib.tensor([1, 2, 3]), 1))
    rec.err("bool", lambda: mn(p > 0.2, 1))
    rec.err("float_ns", lambda: mn(p, 1.0))
    rec.err("tensor_ns", lambda: mn(p, lib.tensor(2)))
    rec.err("list", lambda: mn([0.3, 0.7], 1))
    rec.err("rep_int", lambda: mn(p, 1, 1))
    rec.err("gen_int", lambda: mn(p, 1, generator=3))
    rec.err("empty_rows", lambda: mn(p[:0], 2))
    rec.err("empty_cats", lambda: mn(p[:, :0], 2, True))
    rec.err("empty_cats1", lambda: mn(p[:, :0], 1))
    rec.err("out_int32", lambda: mn(p, 1, out=lib.empty(2, 1, dtype=lib.int32)))
    o = lib.empty(0, dtype=lib.long)
    mn(p, 3, generator=lib.Generator().manual_seed(32), out=o)
    rec("out", o)
    rec.err("method_many", lambda: p.multinomial(5))
    rec.err("method_neg", lambda: (p - 0.5).multinomial(1))


def p_shape_errors(lib, dt, rec):
    """Shape mistakes of beam bookkeeping: topk's k, gather's index rank and extent, scatter's
    index larger than its source, cat of caches of other lengths, view of beams*vocab."""
    logits = _randn(lib, dt, 33, 6, V)
    idx = lib.tensor([[0, 1], [2, 3]])
    rec.err("topk_k", lambda: logits.topk(V + 1))
    rec.err("topk_neg", lambda: logits.topk(-1))
    rec.err("topk_dim", lambda: logits.topk(2, dim=2))
    rec.err("topk_float", lambda: logits.topk(2.0))
    rec.err("gather_rank", lambda: logits.gather(1, lib.tensor([0, 1])))
    rec.err("gather_oob", lambda: logits.gather(1, lib.tensor([[0, V]])))
    rec.err("gather_neg", lambda: logits.gather(1, lib.tensor([[0, -1]])))
    rec.err("gather_big", lambda: logits.gather(1, lib.zeros(7, 1, dtype=lib.long)))
    rec.err("gather_int32", lambda: logits.gather(1, idx.int()))
    rec.err("gather_float", lambda: logits.gather(1, idx.to(dt)))
    rec.err("scatter_src", lambda: logits.scatter(1, idx, lib.zeros(2, 1, dtype=dt)))
    rec.err("scatter_dtype", lambda: logits.scatter(1, idx, lib.zeros(2, 2, dtype=lib.int64)))
    rec.err("scatter_oob", lambda: logits.scatter(1, idx + V - 1, float("-inf")))
    rec.err("scatter_rank", lambda: logits.scatter(1, idx[0], 0.0))
    rec.err("scatter_add_val", lambda: logits.scatter_add(1, idx, 1.0))
    rec.err("masked_fill_int", lambda: logits.masked_fill(lib.zeros(6, V, dtype=lib.long), 0.0))
    rec.err("masked_fill_shape", lambda: logits.masked_fill(lib.zeros(6, 2, dtype=lib.bool), 0.0))
    k = _randn(lib, dt, 34, 2, 2, 3, 4)
    rec.err("cat_len", lambda: lib.cat([k, _randn(lib, dt, 35, 2, 2, 1, 5)], dim=2))
    rec.err("cat_rank", lambda: lib.cat([k, _randn(lib, dt, 35, 2, 1, 4)], dim=2))
    rec.err("cat_dim", lambda: lib.cat([k, k], dim=4))
    rec.err("cat_empty", lambda: lib.cat([], dim=0))
    rec("cat_legacy_empty", lib.cat([lib.tensor([], dtype=dt), k], dim=2).shape)
    rec.err("view_beams", lambda: logits.view(4, -1))
    rec.err("view_two", lambda: logits.view(-1, -1))
    rec.err("view_T", lambda: logits.t().view(-1))
    rec.err("isel_2d", lambda: logits.index_select(0, idx))
    rec.err("isel_oob", lambda: logits.index_select(0, lib.tensor([6])))
    rec.err("ri_len", lambda: logits.repeat_interleave(lib.tensor([1, 2]), dim=0))
    rec.err("ri_neg", lambda: logits.repeat_interleave(-1, dim=0))
    rec.err("bincount_neg", lambda: lib.bincount(lib.tensor([1, -1])))
    rec.err("bincount_2d", lambda: lib.bincount(idx))
    rec.err("bincount_float", lambda: lib.bincount(idx[0].to(dt)))
    rec.err("bincount_w", lambda: lib.bincount(idx[0], weights=lib.ones(3, dtype=dt)))
    rec.err("bincount_min", lambda: lib.bincount(idx[0], minlength=-1))
    rec.err("sort_dim", lambda: logits.sort(dim=2))
    rec.err("cumsum_dim", lambda: logits.cumsum(2))
    rec.err("unfold_size", lambda: idx.unfold(1, 3, 1))
    rec.err("unfold_step", lambda: idx.unfold(1, 1, 0))
    rec.err("argmax_dim", lambda: logits.argmax(2))
    rec.err("argmax_empty", lambda: logits[:, :0].argmax(1))
    rec.err("div_mode", lambda: lib.div(idx, V, rounding_mode="round"))
    rec.err("int_div0", lambda: idx // 0)
    rec.err("int_mod0", lambda: idx % 0)


def p_global_seed(lib, dt, rec):
    """Sampling from the global stream after torch.manual_seed: multinomial, Categorical's
    sample, randint for random tokens and bernoulli masks (token dropout)."""
    lib.manual_seed(36)
    logits = lib.randn(3, V, dtype=dt)
    rec("logits", logits)
    rec("mn", lib.multinomial(logits.softmax(-1), 2))
    d = lib.distributions.Categorical(logits=logits)
    rec("cat", d.sample((4,)))
    rec("cat_probs", d.probs)
    rec("randint", lib.randint(2, V, (3, 2)))
    rec("bern", lib.bernoulli(lib.full((3, 5), 0.3, dtype=dt)))
    rec("perm", lib.randperm(V)[:4])
    rec("mn_rep", lib.multinomial(logits[0].softmax(-1), 6, replacement=True))
    oh = lib.distributions.OneHotCategorical(logits=logits)
    rec("onehot", oh.sample())


def p_batched_eos(lib, dt, rec):
    """A batched sampling loop: unfinished sequences padded after EOS, an attention mask grown
    by cat, position ids by cumsum of the mask (left padding), a max-new-tokens stop."""
    lm = _TinyLM(lib, dt, 37)
    g = lib.Generator().manual_seed(38)
    prompts = [[5, 6, 7], [8, 9], [3, 4, 10, 2]]
    width = max(map(len, prompts))
    ids = lib.tensor([[PAD] * (width - len(p)) + p for p in prompts])
    mask = (ids != PAD).long()
    unfinished = lib.ones(ids.size(0), dtype=lib.long)
    lm.head[:, EOS] += 0.5
    with lib.no_grad():
        for step in range(7):
            pos = (mask.cumsum(-1) - 1).clamp(min=0)
            _, logits, _ = lm(ids)
            rec(f"pos{step}", pos[:, -1])
            sc = logits[:, -1] / 0.7
            sc = _top_p(lib, _top_k(lib, sc, 6), 0.9)
            nxt = lib.multinomial(lib.softmax(sc, -1), 1, generator=g).squeeze(1)
            nxt = nxt * unfinished + PAD * (1 - unfinished)
            ids = lib.cat([ids, nxt[:, None]], dim=-1)
            mask = lib.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)
            unfinished = unfinished & (nxt != EOS).long()
            if unfinished.max() == 0:
                break
    rec("ids", ids)
    rec("mask", mask)
    rec("unfinished", unfinished)
    rec("lengths", (ids != PAD).sum(-1))
    rec("eos_at", (ids == EOS).int().argmax(-1))


def p_index_copy_cache(lib, dt, rec):
    """A static (preallocated) KV cache written by index_copy_ and slice assignment at the
    cache position, read through a mask of the filled slots; equal to the cat-grown cache."""
    lm = _TinyLM(lib, dt, 39)
    ids = lib.tensor([[3, 4, 5, 6, 7, 8]])
    b, nh, dh, max_len = 1, 2, 4, 8
    with lib.no_grad():
        _, want, _ = lm(ids)
        kc = lib.zeros(b, nh, max_len, dh, dtype=dt)
        vc = lib.zeros(b, nh, max_len, dh, dtype=dt)
        outs = []
        for t in range(ids.size(1)):
            x = lm.emb[ids[:, t : t + 1]] + lm.pos[t : t + 1]
            q, k, v = (x @ lm.wqkv).split(8, dim=-1)
            q, k, v = (z.view(b, 1, nh, dh).transpose(1, 2) for z in (q, k, v))
            kc.index_copy_(2, lib.tensor([t]), k)
            vc[:, :, t : t + 1] = v
            filled = (lib.arange(max_len) <= t).view(1, max_len)
            o = lib.nn.functional.scaled_dot_product_attention(q, kc, vc, attn_mask=filled)
            h = x + o.transpose(1, 2).reshape(b, 1, 8) @ lm.wo
            outs.append(h @ lm.head)
        got = lib.cat(outs, dim=1)
    rec("want", want)
    rec("got", got)
    rec("kc", kc)
    rec.err("copy_oob", lambda: kc.index_copy_(2, lib.tensor([max_len]), k))
    rec.err("copy_len", lambda: kc.index_copy_(2, lib.tensor([0, 1]), k))
    rec.err("copy_dtype", lambda: kc.index_copy_(2, lib.tensor([0]), k.float().double()
                                                  if dt == lib.float32 else k.float()))  # fmt: skip


def p_strided_sampling(lib, dt, rec):
    """Sampling from probability matrices that are views: a vocabulary-major score matrix
    transposed and sliced, every other row, a permuted (heads, vocab, batch) tensor, an
    expanded row; torch draws the exponential keys in the input's own memory order."""
    g = lib.Generator().manual_seed(40)
    scores = lib.randn(V, 6, generator=g, dtype=dt)  # (vocab, batch): a tied-embedding matmul
    probs = scores.softmax(0)
    views = {
        "T": probs.t(),
        "T_rows": probs.t()[:4],
        "T_step": probs.t()[::2],
        "T_cols": probs.t()[:, 2:9],
        "perm": lib.rand(3, V, 5, generator=g, dtype=dt).permute(2, 1, 0)[:, :, 1],
        "expand": probs.t()[:1].expand(4, V),
        "row": probs[:, 2],
    }
    for name, p in views.items():
        rec(name + ".stride", str(p.stride()))
        rec(name + ".1", lib.multinomial(p, 1, generator=g))
        rec(name + ".3", lib.multinomial(p, 3, generator=g))
        rec(name + ".3r", lib.multinomial(p, 3, replacement=True, generator=g))
    # the exponential race by hand on the same layout draws the same ids
    p = views["T_step"]
    state = g.get_state()
    want = lib.multinomial(p, 2, generator=g)
    g.set_state(state)
    q = lib.empty_like(p).exponential_(generator=g)
    rec("race_stride", str(q.stride()))
    rec("race", (p / q).topk(2, dim=-1).indices)
    rec("multinomial", want)


def p_grad_paths(lib, dt, rec):
    """Gradients through the processors: the sorted softmax's cumsum (top-p's mass), a top-k
    scatter into -inf, a repetition penalty written by scatter, a sequence log-probability by
    gather, a masked entropy; and their second derivatives."""
    x0 = _randn(lib, dt, 41, 3, V)
    w = _randn(lib, dt, 42, 3, V)
    ids = lib.tensor([[0, 0, 4], [1, 7, 7], [10, 2, 3]])

    def topp_mass(x):
        s, _ = x.sort(-1, descending=True)
        return s.softmax(-1).cumsum(-1)

    def topk_scatter(x):
        v, i = x.topk(4)
        return lib.full_like(x, float("-inf")).scatter(1, i, v).log_softmax(-1).clamp(min=-30)

    def penalty(x):
        sc = x.gather(1, ids)
        return x.scatter(1, ids, lib.where(sc < 0, sc * 1.3, sc / 1.3)).softmax(-1)

    def seq_lp(x):
        return x.log_softmax(-1).gather(1, ids).sum(-1, keepdim=True).expand(3, V)

    def masked_entropy(x):
        lp = x.masked_fill(x < -0.5, float("-inf")).log_softmax(-1)
        return -(lp.exp() * lp).nansum(-1, keepdim=True).expand(3, V)

    for name, fn in [("topp", topp_mass), ("topk", topk_scatter), ("pen", penalty),
                     ("seq", seq_lp), ("ent", masked_entropy)]:  # fmt: skip
        x = x0.clone().requires_grad_(True)
        y = fn(x)
        (gx,) = lib.autograd.grad((y * w).sum(), x, create_graph=True)
        rec(name, y)
        rec(name + ".g", gx)
        (ggx,) = lib.autograd.grad((gx * w.flip(0)).sum(), x)
        rec(name + ".gg", ggx)


def p_out_args(lib, dt, rec):
    """out= forms decoding code uses to avoid allocations: multinomial into a preallocated or
    strided buffer, topk/sort into (values, indices), argmax and cumsum; their dtype errors."""
    g = lib.Generator().manual_seed(43)
    probs = lib.softmax(_randn(lib, dt, 44, 2, 6), -1)
    o = lib.empty(2, 5, dtype=lib.long)
    lib.multinomial(probs, 3, generator=g, out=o)
    rec("resized", o)
    buf = lib.zeros(2, 5, dtype=lib.long)
    lib.multinomial(probs, 3, generator=g, out=buf[:, :3])
    rec("slice", buf)
    ot = lib.zeros(3, 2, dtype=lib.long).t()
    lib.multinomial(probs, 3, True, generator=g, out=ot)
    rec("transposed", ot)
    rec("transposed.stride", str(ot.stride()))
    rec.err("float_out", lambda: lib.multinomial(probs, 3, out=lib.empty(2, 3, dtype=dt)))
    x = _randn(lib, dt, 45, 2, 6)
    v, i = lib.empty(0, dtype=dt), lib.empty(0, dtype=lib.long)
    lib.topk(x, 3, out=(v, i))
    # (recorded as clones: torch's numpy() makes a tensor's storage non-resizable, and the
    # sort below resizes these buffers)
    rec("topk_v", v.clone())
    rec("topk_i", i.clone())
    lib.sort(x, dim=-1, descending=True, out=(v, i))
    rec("sort_v", v)
    rec("sort_i", i)
    rec.err("topk_i32", lambda: lib.topk(x, 3, out=(v, i.int())))
    rec.err("topk_one", lambda: lib.topk(x, 3, out=v))
    am = lib.empty(2, dtype=lib.long)
    lib.argmax(x, 1, out=am)
    rec("argmax", am)
    rec.err("argmax_i32", lambda: lib.argmax(x, 1, out=lib.empty(2, dtype=lib.int32)))
    cs = lib.empty(2, 6, dtype=dt)
    lib.cumsum(x.softmax(-1), 1, out=cs)
    rec("cumsum", cs)
    rec.err("cumsum_long", lambda: lib.cumsum(x, 1, out=lib.empty(2, 6, dtype=lib.long)))


def p_categorical(lib, dt, rec):
    """Categorical over filtered logits (-inf entries): probs, entropy, log_prob, mode, samples
    from the global stream, enumerate_support, KL between two steps; and its argument errors."""
    C = lib.distributions.Categorical
    lib.manual_seed(46)
    logits = lib.randn(2, V, dtype=dt)
    filt = _top_k(lib, logits, 4)
    d = C(logits=filt)
    rec("probs", d.probs)
    rec("logits", d.logits)
    rec("entropy", d.entropy())
    rec("mode", d.mode)
    rec("sample", d.sample((3,)))
    rec("lp", d.log_prob(lib.tensor([[0], [3], [10]])))
    rec("support", d.enumerate_support(expand=False).view(-1))
    rec("kl", lib.distributions.kl_divergence(C(logits=logits), C(logits=logits.flip(-1))))
    rec("shapes", str((d.batch_shape, d.event_shape, d.param_shape)))
    rec("expand", d.expand((3, 2)).sample())
    t = lambda v: lib.tensor(v, dtype=dt)  # noqa: E731
    rec.err("neg", lambda: C(probs=t([0.5, -0.1, 0.6])))
    rec.err("nan_logits", lambda: C(logits=t([math.nan, 1.0])))
    rec.err("inf_logits", lambda: C(logits=t([math.inf, 1.0])))
    rec.err("both", lambda: C(probs=t([0.5, 0.5]), logits=t([0.0, 0.0])))
    rec.err("neither", lambda: C())
    rec.err("scalar", lambda: C(t(0.5)))
    rec.err("lp_range", lambda: d.log_prob(lib.tensor([V])))
    rec.err("lp_float", lambda: d.log_prob(t([0.5, 1.0])))
    rec.err("lp_shape", lambda: d.log_prob(lib.tensor([0, 1, 2])))


def p_generator_errors(lib, dt, rec):
    """Seeding mistakes: seeds out of range, of the wrong type, a state of the wrong kind, a
    generator= that is no Generator; and a state restored after a failed draw."""
    g = lib.Generator()
    rec("neg_seed", lib.rand(2, generator=g.manual_seed(-1), dtype=dt))
    rec("big_seed", lib.rand(2, generator=g.manual_seed(2**64 - 1), dtype=dt))
    rec.err("too_big", lambda: g.manual_seed(2**64))
    rec.err("too_small", lambda: g.manual_seed(-(2**63) - 1))
    rec.err("float_seed", lambda: g.manual_seed(1.5))
    rec.err("str_seed", lambda: g.manual_seed("3"))
    rec.err("state_len", lambda: g.set_state(lib.zeros(5, dtype=lib.uint8)))
    rec.err("state_dtype", lambda: g.set_state(g.get_state().float()))
    rec.err("state_list", lambda: g.set_state([1, 2]))
    p = lib.tensor([[0.2, 0.8], [0.5, -0.5], [0.3, 0.7]], dtype=dt)
    g.manual_seed(47)
    rec.err("bad_row_rep", lambda: lib.multinomial(p, 3, True, generator=g))
    rec("after_rep", lib.rand(3, generator=g, dtype=dt))
    rec.err("bad_row", lambda: lib.multinomial(p, 2, generator=g))
    rec("after", lib.rand(3, generator=g, dtype=dt))
    rec.err("gen_type", lambda: lib.multinomial(p.abs(), 1, generator="g"))
    rec.err("rand_gen_type", lambda: lib.rand(2, generator=3))


def p_sdpa_heads_view(lib, dt, rec):
    """nanoGPT-style attention: heads split from a (B, T, C) projection by view and transpose,
    scaled_dot_product_attention, and the heads merged back by transpose and view (no
    contiguous: torch's flash kernel lays the output out in the query's axis order); the same
    in a decode step over a KV cache; gradients of the projection; the math path (dropout)."""
    B, T, C, nh = 2, 5, 8, 2
    x = _randn(lib, dt, 48, B, T, C)
    w = (_randn(lib, dt, 49, C, 3 * C) / math.sqrt(C)).requires_grad_(True)
    q, k, v = (x @ w).split(C, dim=2)
    q, k, v = (t.view(B, T, nh, C // nh).transpose(1, 2) for t in (q, k, v))
    y = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    rec("y.stride", str(y.stride()))
    merged = y.transpose(1, 2).view(B, T, C)
    rec("merged", merged)
    (merged * _randn(lib, dt, 50, B, T, C)).sum().backward()
    rec("w.grad", w.grad)
    # one decode step: a 1-token query over the cached keys (flash kernel, query-ordered)
    with lib.no_grad():
        q1 = (x[:, -1:] @ w)[..., :C].view(B, 1, nh, C // nh).transpose(1, 2)
        y1 = lib.nn.functional.scaled_dot_product_attention(q1, k, v)
        rec("y1.merged_contiguous", y1.transpose(1, 2).is_contiguous())
        rec("y1", y1.transpose(1, 2).view(B, 1, C))
        # a float mask and a bool mask with is_causal (the flash kernel takes both)
        mask = lib.zeros(T, T, dtype=dt)
        y2 = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        rec("y2.stride", str(y2.stride()))
        keep = lib.ones(T, T, dtype=lib.bool)
        y3 = lib.nn.functional.scaled_dot_product_attention(q, k, v, keep, is_causal=True)
        rec("y3", y3.transpose(1, 2).view(B, T, C))
        # the math path (dropout, a 3-d query) is row-major: view needs reshape there
        lib.manual_seed(51)
        yd = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
        rec("yd.stride", str(yd.stride()))
        rec.err("yd.view", lambda: yd.transpose(1, 2).view(B, T, C))
        y3d = lib.nn.functional.scaled_dot_product_attention(q[0], k[0], v[0])
        rec("y3d.stride", str(y3d.stride()))
        # a contiguous query gives a row-major output
        yc = lib.nn.functional.scaled_dot_product_attention(q.contiguous(), k, v)
        rec("yc.stride", str(yc.stride()))
        rec.err("yc.view", lambda: yc.transpose(1, 2).view(B, T, C))


def p_inplace_processors(lib, dt, rec):
    """Logits processors written in place (transformers modifies scores in place): scatter_,
    masked_fill_, index assignment and a cumsum_ on non-leaf tensors, with gradients; and the
    errors of in-place writes to a leaf and to a tensor saved for backward."""
    w0 = _randn(lib, dt, 52, 3, 7)
    ids = lib.tensor([[0, 1], [2, 2], [3, 4]])

    def grad_of(fn):
        w = w0.clone().requires_grad_(True)
        out = fn(w)
        out.backward(_randn(lib, dt, 53, *out.shape))
        return out, w.grad

    def rep(w):
        lg = w * 1.0
        sc = lg.gather(1, ids)
        lg.scatter_(1, ids, lib.where(sc < 0, sc * 1.3, sc / 1.3))
        return lg.softmax(-1)

    def mask(w):
        lg = w / 0.7
        lg.masked_fill_(lg < lg.topk(3)[0][..., -1:], float("-inf"))
        lg[:, 0] = -1.0
        return lg.log_softmax(-1).clamp(min=-40)

    def cum(w):
        c = w.sort(-1, descending=True)[0].softmax(-1)
        c.cumsum_(-1)
        return c

    out, g = grad_of(mask)
    rec("mask", out)
    rec("mask.grad", g)
    # gather saves the scores that scatter_ then overwrites; cumsum_ overwrites the softmax
    # output its backward needs
    rec.err("rep", lambda: grad_of(rep))
    rec.err("cum", lambda: grad_of(cum))
    with lib.no_grad():  # as transformers runs its processors
        rec("rep_no_grad", rep(w0))
    leaf = w0.clone().requires_grad_(True)
    rec.err("leaf_masked_fill", lambda: leaf.masked_fill_(leaf < 0, 0.0))
    rec.err("leaf_scatter", lambda: leaf.scatter_(1, ids, 0.0))
    rec.err("leaf_setitem", lambda: leaf.__setitem__((slice(None), 0), 1.0))

    def saved():
        p = leaf.exp()
        p.masked_fill_(p < 0.5, 0.0)
        p.sum().backward()

    rec.err("saved_output", saved)

    def saved_softmax():
        p = leaf.softmax(-1)
        p[:, 0] = 0.0
        p.sum().backward()

    rec.err("saved_softmax", saved_softmax)
    rec("indices_grad", str((leaf.topk(2).indices.requires_grad, leaf.argmax(-1).requires_grad)))
