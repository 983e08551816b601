"""Session 30 (helper seq2seq): sequence-to-sequence training and decoding programs written the
way NMT, ASR and LM-generation repositories write them, run under torch and minitorch with the
same seeds and compared record by record: a packed bidirectional GRU encoder with Bahdanau
attention and teacher forcing by a seeded coin, LSTMCell decoders with Luong dot/general/concat
attention (bmm, einsum, masked softmax), nn.Transformer with causal, bool/float memory and key
padding masks and label smoothing, greedy Transformer decoding with finished masks, GNMT beam
search (flattened topk, floor division and remainder, index_select/gather reordering, length
penalty), fairseq's SequenceGenerator bookkeeping (cand_size = 2 beams, eos masks,
masked_select, active hypotheses by topk over offsets), transformers-style sampling (left
padding, position ids from the attention mask, a KV cache, repetition penalty by gather/scatter,
top-k with finfo.min, top-p in both spellings, multinomial with a Generator, unfinished
sequences), min-p/typical/Categorical sampling, frequency/presence penalties, speculative
sampling acceptance, a pointer-generator with coverage (scatter_add into an extended vocabulary),
ConvS2S (make_positions, sinusoidal tables, weight_norm both spellings, GLU, causal padding),
PyTorch's two seq2seq tutorials (nn.Transformer with dropout, create_mask's mixed mask types and
their deprecation warning, LambdaLR warmup, greedy_decode; EncoderRNN/AttnDecoderRNN with
topk(1) feeding), CTC training with every reduction, blank index, zero_infinity, tensor and
tuple lengths, 1-d targets, unbatched input; greedy CTC decoding by unique_consecutive (also
along a dim and vectorised), CTC prefix beam search with logaddexp, an ASR model (conv
subsampling lengths by floor division, packed BiLSTM, CTC, edit-distance WER), label-smoothed
cross entropy (weights, ignore_index, soft targets, fairseq's hand-written form, KL to a
smoothed one-hot), pack_padded_sequence/pad_packed_sequence (enforce_sorted=False, total_length,
pack_sequence, unpack_sequence), BLEU n-gram counts by unfold/unique/one_hot/isin,
Transformer-XL relative shift (also by as_strided), ALiBi and T5 buckets, RoPE with a
preallocated KV cache and grouped-query SDPA, length-bucketed DataLoaders, BART noising
(Poisson spans, bernoulli, randperm), label-smoothed training with gradient accumulation,
tied weights, clip_grad_norm_ and checkpoint averaging through save/load, encoder eval paths
(nested-tensor zeros), constrained and diverse beam search, and the errors of seq2seq misuse.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- The order of equal values in topk is implementation-defined; torch's CPU kernel gives ties
  an order of its own, minitorch keeps input order (documented in minitorch.topk). The beam
  programs avoid exact ties (fairseq's adds a position-weighted history term); a real beam
  search over a symmetric model can differ among tied hypotheses.
- float32 sin/cos/exp/log can be an ulp off torch's vectorised kernels and float32 sums differ
  in the last bits (summation order): sinusoidal tables that a float64 program reads are built
  in float64.
- torch's native eval fast path of MultiheadAttention/TransformerEncoderLayer gives NaN for a
  query whose every key is masked by a bool mask (a fully padded sequence under
  TransformerEncoder(enable_nested_tensor=False) or norm_first); its slow path and SDPA give 0,
  as minitorch does everywhere (pytorch issues 107084, 118628; documented in
  minitorch.nn.MultiheadAttention). Not recorded here.
- torch raises on a double backward through ctc_loss; minitorch differentiates its gradient
  again (documented in minitorch.nn.functional.ctc_loss). Target labels >= C read out of
  bounds in torch's CPU kernel (undefined); not recorded.
- Under CPU autocast to bfloat16, a GRU's outputs (and what is computed from them) differ from
  torch's by bfloat16 roundings of its internal products; not recorded."""

from __future__ import annotations

import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "gru_bahdanau", "lstm_luong", "transformer_masks", "greedy_transformer", "beam_search",
    "top_k_top_p", "repetition_penalty", "ctc_train", "ctc_decode", "label_smoothing",
    "packed_encoder", "bleu_unfold", "fairseq_beam", "hf_generate", "speculative",
    "pointer_generator", "convs2s", "tutorial_transformer", "tutorial_gru", "ctc_prefix_beam",
    "rel_attention", "bucket_loader", "bart_noise", "label_smoothed_training",
    "rope_kv_cache", "asr_ctc", "errors", "encoder_eval_paths", "constrained_diverse",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---

PAD, BOS, EOS = 0, 1, 2


def _tokens(lib, g, b, t, v, lengths):
    x = lib.randint(3, v, (b, t), generator=g)
    mask = lib.arange(t).unsqueeze(0) >= lib.tensor(lengths).unsqueeze(1)
    return x.masked_fill(mask, PAD), mask


# --- the programs: each takes the library, a dtype and a recorder ---


def p_gru_bahdanau(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    V, E, H, B, S, T = 13, 6, 8, 3, 7, 5

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, E, padding_idx=PAD)
            self.rnn = nn.GRU(E, H, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(2 * H, H)

        def forward(self, src, lengths):
            packed = nn.utils.rnn.pack_padded_sequence(
                self.emb(src), lengths, batch_first=True, enforce_sorted=False
            )
            out, h = self.rnn(packed)
            out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=S)
            h = lib.tanh(self.fc(lib.cat((h[-2], h[-1]), dim=1)))
            return out, h

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.W = nn.Linear(3 * H, H)
            self.v = nn.Linear(H, 1, bias=False)

        def forward(self, hidden, enc, mask):
            rep = hidden.unsqueeze(1).repeat(1, enc.shape[1], 1)
            energy = lib.tanh(self.W(lib.cat((rep, enc), dim=2)))
            scores = self.v(energy).squeeze(2).masked_fill(mask, float("-inf"))
            return F.softmax(scores, dim=1)

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, E)
            self.attn = Attn()
            self.rnn = nn.GRU(2 * H + E, H)
            self.out = nn.Linear(3 * H + E, V)

        def forward(self, tok, hidden, enc, mask):
            e = self.emb(tok).unsqueeze(0)
            a = self.attn(hidden, enc, mask).unsqueeze(1)
            ctx = lib.bmm(a, enc).permute(1, 0, 2)
            out, h = self.rnn(lib.cat((e, ctx), dim=2), hidden.unsqueeze(0))
            pred = self.out(lib.cat((out.squeeze(0), ctx.squeeze(0), e.squeeze(0)), dim=1))
            return pred, h.squeeze(0), a.squeeze(1)

    enc, dec = Encoder().to(dt), Decoder().to(dt)
    g = lib.Generator().manual_seed(3)
    lengths = [7, 4, 5]
    src, mask = _tokens(lib, g, B, S, V, lengths)
    trg = lib.randint(3, V, (T, B), generator=g)
    opt = lib.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    coin = lib.Generator().manual_seed(9)
    for step in range(3):
        opt.zero_grad()
        out, hidden = enc(src, lib.tensor(lengths))
        tok = trg[0]
        outputs = lib.zeros(T, B, V, dtype=dt)
        for t in range(1, T):
            pred, hidden, a = dec(tok, hidden, out, mask)
            outputs[t] = pred
            teacher = lib.rand(1, generator=coin).item() < 0.5
            tok = trg[t] if teacher else pred.argmax(1)
        rec(f"attn{step}", a)
        loss = F.cross_entropy(outputs[1:].reshape(-1, V), trg[1:].reshape(-1), ignore_index=PAD)
        loss.backward()
        rec(f"gn{step}", nn.utils.clip_grad_norm_(enc.parameters(), 1.0))
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("dec", dec, grads=True)


def p_lstm_luong(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    V, H, B, S, T = 11, 6, 4, 6, 4

    class Luong(nn.Module):
        def __init__(self, method):
            super().__init__()
            self.method = method
            if method == "general":
                self.W = nn.Linear(H, H, bias=False)
            elif method == "concat":
                self.W = nn.Linear(2 * H, H)
                self.v = nn.Parameter(lib.randn(H))

        def forward(self, h, enc, mask):  # h: B,H  enc: B,S,H
            if self.method == "dot":
                s = lib.bmm(enc, h.unsqueeze(2)).squeeze(2)
            elif self.method == "general":
                s = lib.einsum("bsh,bh->bs", self.W(enc), h)
            else:
                x = lib.cat([h.unsqueeze(1).expand(-1, enc.size(1), -1), enc], -1)
                s = lib.tanh(self.W(x)) @ self.v
            s = s.masked_fill(~mask, -1e9)
            return F.softmax(s, dim=-1)

    emb = nn.Embedding(V, H).to(dt)
    encoder = nn.LSTM(H, H, num_layers=2, batch_first=True, dropout=0.0).to(dt)
    cell = nn.LSTMCell(2 * H, H).to(dt)
    proj = nn.Linear(2 * H, V).to(dt)
    g = lib.Generator().manual_seed(5)
    lengths = lib.tensor([6, 3, 5, 2])
    src = lib.randint(3, V, (B, S), generator=g)
    valid = lib.arange(S)[None, :] < lengths[:, None]
    trg = lib.randint(3, V, (B, T), generator=g)
    for method in ["dot", "general", "concat"]:
        att = Luong(method).to(dt)
        enc_out, (h, c) = encoder(emb(src))
        h, c = h[-1], c[-1]
        feed = lib.zeros(B, H, dtype=dt)
        logits = []
        for t in range(T):
            h, c = cell(lib.cat([emb(trg[:, t]), feed], 1), (h, c))
            a = att(h, enc_out, valid)
            ctx = (a.unsqueeze(-1) * enc_out).sum(1)
            feed = lib.tanh(ctx + h)
            logits.append(proj(lib.cat([ctx, h], 1)))
        logits = lib.stack(logits, 1)
        rec(method + ".a", a)
        lp = F.log_softmax(logits, -1)
        nll = F.nll_loss(lp.transpose(1, 2), trg, reduction="none")
        rec(method + ".nll", nll)
        loss = nll.sum() / B
        grads = lib.autograd.grad(loss, [emb.weight, cell.weight_hh] + list(att.parameters()))
        for i, gr in enumerate(grads):
            rec(f"{method}.g{i}", gr)


def p_transformer_masks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(2)
    d, V, B, S, T = 8, 10, 3, 5, 4
    model = nn.Transformer(
        d_model=d, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
        dim_feedforward=16, dropout=0.0, batch_first=True,
    ).to(dt)  # fmt: skip
    emb = nn.Embedding(V, d, padding_idx=PAD).to(dt)
    gen = nn.Linear(d, V).to(dt)
    g = lib.Generator().manual_seed(4)
    src, src_pad = _tokens(lib, g, B, S, V, [5, 3, 4])
    tgt, tgt_pad = _tokens(lib, g, B, T, V, [4, 4, 2])
    tgt_mask = model.generate_square_subsequent_mask(T, dtype=dt)
    rec("tgt_mask", tgt_mask)
    rec("mask_static", nn.Transformer.generate_square_subsequent_mask(3))
    pos = lib.arange(S, dtype=dt).unsqueeze(1)
    div = lib.exp(lib.arange(0, d, 2, dtype=dt) * (-math.log(10000.0) / d))
    pe = lib.zeros(S, d, dtype=dt)
    pe[:, 0::2] = lib.sin(pos * div)
    pe[:, 1::2] = lib.cos(pos * div)
    rec("pe", pe)
    x = emb(src) * math.sqrt(d) + pe
    y = emb(tgt) * math.sqrt(d) + pe[:T]
    out = model(
        x, y, tgt_mask=tgt_mask, src_key_padding_mask=src_pad,
        tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad,
    )  # fmt: skip
    logits = gen(out)
    rec("logits", logits)
    loss = nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, V), tgt[:, 1:].reshape(-1), ignore_index=PAD,
        label_smoothing=0.1,
    )  # fmt: skip
    loss.backward()
    rec("loss", loss)
    rec("g_emb", emb.weight.grad)
    rec("g_in", model.encoder.layers[0].self_attn.in_proj_weight.grad)
    # encode once, decode with a memory mask and a bool causal mask
    mem = model.encoder(x, src_key_padding_mask=src_pad)
    rec("mem", mem)
    bool_mask = lib.triu(lib.ones(T, T, dtype=lib.bool), diagonal=1)
    mem_mask = lib.zeros(T, S, dtype=lib.bool)
    mem_mask[:, -1] = True
    out2 = model.decoder(y, mem, tgt_mask=bool_mask, memory_mask=mem_mask, tgt_is_causal=True)
    rec("dec_bool", out2)
    # a float mask of -inf/0 in eval mode under no_grad
    model.eval()
    with lib.no_grad():
        out3 = model(x, y, tgt_mask=tgt_mask, src_key_padding_mask=src_pad)
    rec("eval", out3)


def p_greedy_transformer(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(3)
    d, V, B, S, L = 8, 9, 3, 6, 6
    layer = nn.TransformerDecoderLayer(d, 2, 16, dropout=0.0, batch_first=True, norm_first=True)
    dec = nn.TransformerDecoder(layer, num_layers=2, norm=nn.LayerNorm(d)).to(dt)
    emb = nn.Embedding(V, d).to(dt)
    head = nn.Linear(d, V).to(dt)
    head.bias.data[EOS] += 0.3
    g = lib.Generator().manual_seed(6)
    memory = lib.randn(B, S, d, generator=g, dtype=dt)
    ys = lib.full((B, 1), BOS, dtype=lib.long)
    finished = lib.zeros(B, dtype=lib.bool)
    scores = lib.zeros(B, dtype=dt)
    dec.eval()
    with lib.no_grad():
        for _ in range(L):
            mask = nn.Transformer.generate_square_subsequent_mask(ys.size(1), dtype=dt)
            h = dec(emb(ys), memory, tgt_mask=mask)
            lp = head(h[:, -1]).log_softmax(-1)
            best, nxt = lp.max(-1)
            nxt = lib.where(finished, lib.full_like(nxt, PAD), nxt)
            scores += best.masked_fill(finished, 0.0)
            ys = lib.cat([ys, nxt.unsqueeze(1)], dim=1)
            finished |= nxt == EOS
            if finished.all():
                break
    rec("ys", ys)
    rec("scores", scores)
    rec("finished", finished)
    lengths = (ys != PAD).sum(1)
    rec("lengths", lengths)
    eos_pos = (ys == EOS).int().argmax(1)
    rec("eos_pos", eos_pos)


def p_beam_search(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(4)
    V, H, K, L, B = 8, 6, 3, 5, 2
    emb = nn.Embedding(V, H).to(dt)
    rnn = nn.GRU(H, H, batch_first=True).to(dt)
    out = nn.Linear(H, V).to(dt)
    g = lib.Generator().manual_seed(7)
    h0 = lib.randn(1, B, H, generator=g, dtype=dt)
    alpha = 0.6
    with lib.no_grad():
        hidden = h0.repeat_interleave(K, dim=1)  # 1, B*K, H
        tokens = lib.full((B * K, 1), BOS, dtype=lib.long)
        beam_scores = lib.zeros(B, K, dtype=dt)
        beam_scores[:, 1:] = float("-inf")
        beam_scores = beam_scores.view(-1)
        done = lib.zeros(B * K, dtype=lib.bool)
        for step in range(L):
            o, hidden = rnn(emb(tokens[:, -1:]), hidden)
            lp = out(o[:, -1]).log_softmax(-1)
            lp[done] = float("-inf")
            lp[done, PAD] = 0.0
            cand = (beam_scores.unsqueeze(1) + lp).view(B, K * V)
            top_scores, top_ids = cand.topk(K, dim=1, largest=True, sorted=True)
            beam_ids = lib.div(top_ids, V, rounding_mode="floor")
            tok_ids = top_ids % V
            base = (lib.arange(B) * K).unsqueeze(1)
            sel = (base + beam_ids).view(-1)
            hidden = hidden.index_select(1, sel)
            tokens = lib.cat([tokens[sel], tok_ids.view(-1, 1)], dim=1)
            done = done[sel] | (tok_ids.view(-1) == EOS)
            beam_scores = top_scores.view(-1)
            rec(f"beam{step}", beam_ids)
            rec(f"tok{step}", tok_ids)
            rec(f"sc{step}", top_scores)
        lengths = ((tokens != PAD) & (tokens != BOS)).sum(1).to(dt)
        lp_norm = ((5.0 + lengths) / 6.0).pow(alpha)
        final = (beam_scores / lp_norm).view(B, K)
        best = final.argmax(1)
        rec("final", final)
        rec("best", tokens.view(B, K, -1)[lib.arange(B), best])
        # gather-based reorder matches index_select
        hid2 = h0.repeat_interleave(K, dim=1).squeeze(0).view(B, K, H)
        idx = beam_ids.unsqueeze(-1).expand(-1, -1, H)
        rec("gathered", hid2.gather(1, idx))
        rec("floordiv", top_ids // V)
        rec("fmod", lib.fmod(top_ids, V))
        rec("remainder", lib.remainder(top_ids - 2 * V, V))


def p_top_k_top_p(lib, dt, rec):
    lib.manual_seed(8)
    g0 = lib.Generator().manual_seed(8)
    logits = lib.randn(4, 12, generator=g0, dtype=dt) * 2
    logits[0, 3] = logits[0, 5]  # a tie

    def top_k(lg, k):
        v, _ = lib.topk(lg, k)
        return lg.masked_fill(lg < v[..., -1, None], float("-inf"))

    def top_p(lg, p):
        sl, si = lib.sort(lg, descending=True)
        cp = lib.cumsum(lib.softmax(sl, dim=-1), dim=-1)
        remove = cp > p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        rm = remove.scatter(1, si, remove)
        return lg.masked_fill(rm, float("-inf"))

    def top_p_hf(lg, p):  # the "ascending" spelling
        sl, si = lib.sort(lg, descending=False)
        cp = sl.softmax(dim=-1).cumsum(dim=-1)
        remove = cp <= (1 - p)
        remove[..., -1:] = 0
        rm = remove.scatter(1, si, remove)
        return lg.masked_fill(rm, -float("inf"))

    rec("topk", top_k(logits, 3))
    rec("topp", top_p(logits, 0.7))
    rec("topp_hf", top_p_hf(logits, 0.7))
    both = top_p(top_k(logits / 0.8, 5), 0.9)
    rec("both", both)
    probs = lib.softmax(both, dim=-1)
    rec("probs", probs)
    g = lib.Generator().manual_seed(21)
    rec("sample1", lib.multinomial(probs, 1, generator=g))
    rec("sample5", lib.multinomial(probs, 3, replacement=True, generator=g))
    rec("sample_nr", lib.multinomial(lib.softmax(logits, -1), 4, generator=g))
    # min-p and typical
    p = lib.softmax(logits, -1)
    minp = p < 0.1 * p.max(-1, keepdim=True).values
    rec("minp", logits.masked_fill(minp, float("-inf")))
    ent = -(p * p.log()).sum(-1, keepdim=True)
    shifted = (-p.log() - ent).abs()
    rec("typical_order", shifted.argsort(-1))
    # epsilon sampling with Categorical
    dist = lib.distributions.Categorical(logits=both)
    rec("cat_sample", dist.sample((2,)))
    rec("cat_entropy", dist.entropy())
    rec("cat_lp", dist.log_prob(lib.tensor([0, 1, 2, 3])))


def p_repetition_penalty(lib, dt, rec):
    g = lib.Generator().manual_seed(10)
    logits = lib.randn(3, 10, generator=g, dtype=dt)
    prev = lib.tensor([[1, 4, 4, 7], [0, 0, 2, 9], [3, 5, 6, 8]])
    pen = 1.3
    score = lib.gather(logits, 1, prev)
    score = lib.where(score < 0, score * pen, score / pen)
    out = logits.scatter(1, prev, score)
    rec("rep", out)
    # frequency / presence penalties with bincount and scatter_add
    counts = lib.zeros(3, 10, dtype=dt).scatter_add_(1, prev, lib.ones(prev.shape, dtype=dt))
    rec("counts", counts)
    rec("bincount", lib.bincount(prev[1], minlength=10))
    freq = logits - 0.5 * counts - 0.2 * (counts > 0).to(dt)
    rec("freq", freq)
    # no-repeat-ngram: ban tokens that would repeat a bigram
    seq = [1, 4, 5, 1, 4]
    banned = [seq[i + 1] for i in range(len(seq) - 1) if seq[i] == seq[-1]]
    lg = logits[0].clone()
    lg[banned] = float("-inf")
    rec("ngram", lg)
    # the same penalty applied in place via index_put_ with accumulate
    lg2 = logits.clone()
    rows = lib.arange(3).unsqueeze(1).expand_as(prev)
    lg2.index_put_((rows.reshape(-1), prev.reshape(-1)), lib.full((12,), -0.1, dtype=dt),
                   accumulate=True)  # fmt: skip
    rec("index_put_acc", lg2)
    # temperature and a logit bias dict
    bias = {2: 5.0, 7: -100.0}
    lg3 = logits / 0.7
    lg3[:, list(bias)] += lib.tensor(list(bias.values()), dtype=dt)
    rec("bias", lg3)


def p_ctc_train(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)
    T, N, C, S = 12, 3, 6, 4
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, C)).to(dt)
    g = lib.Generator().manual_seed(11)
    feats = lib.randn(T, N, 5, generator=g, dtype=dt)
    targets = lib.randint(1, C, (N, S), generator=g)
    in_len = lib.tensor([12, 10, 8])
    tg_len = lib.tensor([4, 2, 3])
    for red in ["mean", "sum", "none"]:
        crit = nn.CTCLoss(blank=0, reduction=red)
        lp = model(feats).log_softmax(2)
        loss = crit(lp, targets, in_len, tg_len)
        rec("loss_" + red, loss)
        model.zero_grad()
        loss.sum().backward()
        rec("g_" + red, model[2].weight.grad)
    # concatenated 1-d targets with tuple lengths, a non-zero blank
    lp = model(feats).log_softmax(-1)
    flat = lib.cat([targets[i, : int(tg_len[i])] for i in range(N)]) - 1
    loss = F.ctc_loss(lp, flat, (12, 10, 8), (4, 2, 3), blank=C - 1)
    rec("flat_blank", loss)
    # an impossible alignment: inf, then zero_infinity
    short = lib.tensor([2, 10, 8])
    lp = model(feats).log_softmax(-1).detach().requires_grad_()
    inf = F.ctc_loss(lp, targets, short, tg_len, reduction="none")
    rec("inf", inf)
    z = F.ctc_loss(lp, targets, short, tg_len, reduction="sum", zero_infinity=True)
    z.backward()
    rec("zinf", z)
    rec("zinf_g", lp.grad)
    # unbatched input
    loss1 = F.ctc_loss(lp[:, 0].detach(), targets[0], lib.tensor(12), lib.tensor(4))
    rec("unbatched", loss1)
    # training a few steps with AdamW
    opt = lib.optim.AdamW(model.parameters(), lr=0.05)
    crit = nn.CTCLoss(zero_infinity=True)
    for step in range(3):
        opt.zero_grad()
        loss = crit(model(feats).log_softmax(2), targets, in_len, tg_len)
        loss.backward()
        opt.step()
        rec(f"step{step}", loss)


def p_ctc_decode(lib, dt, rec):
    g = lib.Generator().manual_seed(12)
    T, N, C = 10, 3, 5
    lp = lib.randn(T, N, C, generator=g, dtype=dt).log_softmax(-1)
    best = lp.argmax(-1).t()  # N, T
    rec("best", best)
    lens = lib.tensor([10, 7, 9])
    hyps = []
    for i in range(N):
        seq = best[i, : lens[i]]
        u, cnt = lib.unique_consecutive(seq, return_counts=True)
        rec(f"u{i}", u)
        rec(f"cnt{i}", cnt)
        u = u[u != 0]
        hyps.append(u.tolist())
    rec("hyps", str(hyps))
    u, inv, cnt = lib.unique_consecutive(best, return_inverse=True, return_counts=True, dim=1)
    rec("u_dim", u)
    rec("inv_dim", inv)
    rec("cnt_dim", cnt)
    # the vectorised version: keep where different from previous and not blank
    prev = lib.nn.functional.pad(best, (1, 0), value=-1)[:, :-1]
    keep = (best != prev) & (best != 0)
    keep &= lib.arange(T)[None] < lens[:, None]
    rec("keep", keep)
    rec("kept", best[keep])
    rec("per_row", keep.sum(1))
    split = lib.split(best[keep], keep.sum(1).tolist())
    rec("split", str([s.tolist() for s in split]))
    # sequence score of the greedy path
    rec("path_score", lp.max(-1).values.sum(0))
    # unique with sorted
    vals, counts = lib.unique(best, sorted=True, return_counts=True)
    rec("uniq", vals)
    rec("uniq_cnt", counts)


def p_label_smoothing(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(13)
    N, C = 7, 5
    logits = lib.randn(N, C, generator=g, dtype=dt, requires_grad=True)
    target = lib.tensor([0, 3, -100, 2, 4, -100, 1])
    for red in ["mean", "sum", "none"]:
        loss = F.cross_entropy(logits, target, label_smoothing=0.2, reduction=red)
        rec("ce_" + red, loss)
    w = lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=dt)
    loss = F.cross_entropy(logits, target, weight=w, label_smoothing=0.15)
    (gr,) = lib.autograd.grad(loss, logits)
    rec("weighted", loss)
    rec("weighted_g", gr)
    # a hand-written label-smoothed NLL (fairseq style)
    lprobs = F.log_softmax(logits, -1)
    pad_mask = target.eq(-100)
    tgt = target.masked_fill(pad_mask, 0).unsqueeze(-1)
    nll = -lprobs.gather(dim=-1, index=tgt).squeeze(-1)
    smooth = -lprobs.sum(dim=-1)
    nll = nll.masked_fill(pad_mask, 0.0)
    smooth = smooth.masked_fill(pad_mask, 0.0)
    eps = 0.1
    loss = (1 - eps - eps / (C - 1)) * nll.sum() + eps / (C - 1) * smooth.sum()
    rec("fairseq", loss)
    rec("fairseq_g", lib.autograd.grad(loss, logits)[0])
    # with ignore_index = pad 0 and 3-d (N, C, T) input
    lg3 = lib.randn(2, C, 4, generator=g, dtype=dt)
    t3 = lib.tensor([[1, 0, 2, 0], [0, 0, 0, 0]])
    rec("ce3", F.cross_entropy(lg3, t3, ignore_index=0, label_smoothing=0.1))
    rec("ce3_none", F.cross_entropy(lg3, t3, ignore_index=0, reduction="none"))
    rec("ce_all_ignored", F.cross_entropy(lg3[1:], t3[1:], ignore_index=0))
    # soft targets with smoothing
    soft = lib.softmax(lib.randn(N, C, generator=g, dtype=dt), -1)
    rec("soft", F.cross_entropy(logits, soft, label_smoothing=0.3))
    # KLDiv against a smoothed one-hot
    true = lib.full((N, C), 0.1 / (C - 1), dtype=dt)
    true.scatter_(1, target.clamp(min=0).unsqueeze(1), 0.9)
    rec("kl", F.kl_div(lprobs, true, reduction="batchmean"))
    rec("nll_ignore", F.nll_loss(lprobs, target, reduction="sum"))


def p_packed_encoder(lib, dt, rec):
    nn = lib.nn
    rnn_utils = nn.utils.rnn
    lib.manual_seed(6)
    g = lib.Generator().manual_seed(14)
    seqs = [lib.randn(n, 3, generator=g, dtype=dt) for n in (4, 6, 2, 5)]
    padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=0.0)
    lengths = lib.tensor([len(s) for s in seqs])
    rec("padded", padded)
    packed = rnn_utils.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    rec("data", packed.data)
    rec("batch_sizes", packed.batch_sizes)
    rec("sorted_idx", packed.sorted_indices)
    rec("unsorted_idx", packed.unsorted_indices)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).to(dt)
    out, (h, c) = lstm(packed)
    unpacked, lens = rnn_utils.pad_packed_sequence(
        out, batch_first=True, padding_value=-1.0, total_length=8
    )
    rec("unpacked", unpacked)
    rec("lens", lens)
    rec("h", h)
    rec("c", c)
    # last valid output per sequence by gather, against h of the top layer forward
    idx = (lens - 1).view(-1, 1, 1).expand(-1, 1, unpacked.size(2))
    last = unpacked.gather(1, idx).squeeze(1)
    rec("last_fw_eq_h", lib.allclose(last[:, :4], h[-2]))
    # pack_sequence and its round trip
    ps = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    rec("ps_data", ps.data)
    back = rnn_utils.unpack_sequence(ps)
    rec("back", str([tuple(b.shape) for b in back]))
    # a GRU on the packed data, loss and grads
    gru = nn.GRU(3, 5).to(dt)
    o, hn = gru(ps)
    o, _ = rnn_utils.pad_packed_sequence(o)
    loss = o.pow(2).sum() + hn.sum()
    loss.backward()
    rec("gru_o", o)
    rec("gru_g", gru.weight_ih_l0.grad)
    # errors
    rec.err("err_sorted", lambda: rnn_utils.pack_padded_sequence(padded, lengths, batch_first=True))
    rec.err(
        "err_total",
        lambda: rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=3),
    )
    rec.err(
        "err_zero",
        lambda: rnn_utils.pack_padded_sequence(
            padded, lib.tensor([4, 0, 2, 5]), batch_first=True, enforce_sorted=False
        ),
    )


def p_bleu_unfold(lib, dt, rec):
    hyp = lib.tensor([5, 3, 7, 3, 7, 9, 2, 4])
    ref = lib.tensor([5, 3, 7, 9, 3, 7, 2])
    V = 10
    precisions = []
    for n in range(1, 5):
        h = hyp.unfold(0, n, 1)
        r = ref.unfold(0, n, 1)
        rec(f"h{n}", h)
        # hash each n-gram to an integer
        powers = V ** lib.arange(n - 1, -1, -1)
        hk = (h * powers).sum(1)
        rk = (r * powers).sum(1)
        hu, hc = lib.unique(hk, return_counts=True)
        ru, rc = lib.unique(rk, return_counts=True)
        match = (hu.unsqueeze(1) == ru.unsqueeze(0)).to(lib.long)
        clipped = lib.minimum(hc, (match * rc).sum(1))
        clipped = lib.where(match.any(1), clipped, lib.zeros_like(clipped))
        rec(f"clip{n}", clipped)
        precisions.append(clipped.sum().to(dt) / max(len(h), 1))
    p = lib.stack(precisions)
    rec("p", p)
    bp = min(1.0, math.exp(1 - len(ref) / len(hyp)))
    bleu = bp * lib.exp(lib.log(p.clamp(min=1e-9)).mean())
    rec("bleu", bleu)
    # batched with 2-d unfold on padded tokens and a count by one_hot
    toks = lib.tensor([[4, 5, 4, 5, 0], [1, 2, 3, 1, 2]])
    bi = toks.unfold(1, 2, 1)
    rec("bi", bi)
    codes = bi[..., 0] * 6 + bi[..., 1]
    oh = lib.nn.functional.one_hot(codes, 36)
    rec("oh_counts", oh.sum(1).nonzero())
    rec("isin", lib.isin(codes, lib.tensor([29, 13])))
    rec("eq_any", (codes.unsqueeze(-1) == lib.tensor([29, 13])).any(-1))
    # smoothing "add-k" on the float precisions
    rec("smooth", (p * len(hyp) + 1) / (len(hyp) + 1))
    rec("geo", lib.exp(lib.sum(lib.log(p + 1e-10) * lib.tensor([0.25] * 4, dtype=dt))))


def p_fairseq_beam(lib, dt, rec):
    """fairseq's SequenceGenerator bookkeeping: cand_size = 2 * beam, eos masks, active hypos."""
    g = lib.Generator().manual_seed(15)
    bsz, beam, V, maxlen = 2, 3, 7, 6
    W = lib.randn(V, V, generator=g, dtype=dt)
    W[:, EOS] += 0.6
    W[EOS, EOS] -= 4.0
    u = lib.rand(V, generator=g, dtype=dt) * 0.05
    sent_bias = lib.randn(bsz, 1, V, generator=g, dtype=dt).expand(-1, beam, -1).reshape(-1, V)
    tokens = lib.zeros(bsz * beam, maxlen + 2).long().fill_(PAD)
    tokens[:, 0] = EOS  # fairseq starts from eos
    scores = lib.zeros(bsz * beam, maxlen + 1, dtype=dt)
    bbsz_offsets = (lib.arange(0, bsz) * beam).unsqueeze(1).type_as(tokens)
    cand_offsets = lib.arange(0, 2 * beam).type_as(tokens)
    finalized = [[] for _ in range(bsz)]
    finished = [False] * bsz
    for step in range(maxlen):
        # (a position-weighted history term: no two hypotheses tie exactly)
        hist = (tokens[:, : step + 1] * lib.arange(1, step + 2)).sum(1, keepdim=True).to(dt)
        lprobs = lib.log_softmax(W[tokens[:, step]] + hist * u + sent_bias, dim=-1)
        lprobs[:, PAD] = -math.inf
        if step == 0:
            lprobs = lprobs[::beam]
            cand = lprobs
        else:
            cand = lprobs + scores[:, step - 1].unsqueeze(-1)
        cand = cand.view(bsz, -1)
        top = lib.topk(cand, k=min(2 * beam, cand.size(1) - 1))
        cand_scores, cand_indices = top
        cand_beams = cand_indices // V
        cand_indices = cand_indices.fmod(V)
        cand_bbsz_idx = cand_beams.add(bbsz_offsets)
        eos_mask = cand_indices.eq(EOS) & cand_scores.ne(-math.inf)
        eos_mask[:, :beam][lib.tensor(finished)] = False
        eos_bbsz_idx = lib.masked_select(cand_bbsz_idx[:, :beam], mask=eos_mask[:, :beam])
        if eos_bbsz_idx.numel() > 0:
            eos_scores = lib.masked_select(cand_scores[:, :beam], mask=eos_mask[:, :beam])
            for idx, sc in zip(eos_bbsz_idx.tolist(), eos_scores.tolist(), strict=True):
                sent = idx // beam
                if len(finalized[sent]) < beam:
                    hyp = tokens[idx, 1 : step + 1].tolist() + [EOS]
                    finalized[sent].append((round(sc / (step + 1), 4), hyp))
            for sent in range(bsz):
                finished[sent] = finished[sent] or len(finalized[sent]) >= beam
        rec(f"eos{step}", eos_mask)
        active_mask = lib.add(eos_mask.type_as(cand_offsets) * 2 * beam, cand_offsets)
        new_blacklist, active_hypos = lib.topk(active_mask, k=beam, dim=1, largest=False)
        rec(f"active{step}", active_hypos)
        active_bbsz_idx = lib.gather(cand_bbsz_idx, dim=1, index=active_hypos).view(-1)
        active_scores = lib.gather(cand_scores, dim=1, index=active_hypos)
        tokens[:, : step + 1] = lib.index_select(
            tokens[:, : step + 1], dim=0, index=active_bbsz_idx
        )
        tokens.view(bsz, beam, -1)[:, :, step + 1] = lib.gather(cand_indices, 1, active_hypos)
        if step > 0:
            scores[:, :step] = lib.index_select(scores[:, :step], 0, active_bbsz_idx)
        scores.view(bsz, beam, -1)[:, :, step] = active_scores
        rec(f"tokens{step}", tokens)
        rec(f"scores{step}", scores[:, step])
    rec("finalized", str(finalized))
    best = [max(f, key=lambda x: x[0]) if f else None for f in finalized]
    rec("best", str(best))


def p_hf_generate(lib, dt, rec):
    """transformers-style sampling loop: left padding, position ids from the attention mask,
    logits processors, unfinished_sequences, a KV cache and stopping at max_length."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(16)
    V, d, H = 12, 8, 2
    emb = nn.Embedding(V, d).to(dt)
    pos_emb = nn.Embedding(16, d).to(dt)
    qkv = nn.Linear(d, 3 * d).to(dt)
    lm = nn.Linear(d, V, bias=False).to(dt)
    prompts = [[5, 6, 7], [8, 9], [3, 4, 10, 11]]
    L = max(map(len, prompts))
    input_ids = lib.tensor([[PAD] * (L - len(p)) + p for p in prompts])
    attn = (input_ids != PAD).long()
    rec("attn", attn)
    pos = attn.cumsum(-1) - 1
    pos.masked_fill_(attn == 0, 1)
    rec("pos", pos)
    unfinished = lib.ones(input_ids.shape[0], dtype=lib.long)
    g = lib.Generator().manual_seed(17)
    k_cache = v_cache = None
    cur = input_ids
    cur_pos = pos
    for _step in range(5):
        x = emb(cur) + pos_emb(cur_pos)
        q, k, v = qkv(x).split(d, dim=-1)
        B, T = cur.shape
        q, k, v = (t.view(B, T, H, d // H).transpose(1, 2) for t in (q, k, v))
        k_cache = k if k_cache is None else lib.cat([k_cache, k], dim=2)
        v_cache = v if v_cache is None else lib.cat([v_cache, v], dim=2)
        S = k_cache.size(2)
        causal = lib.ones(T, S, dtype=lib.bool).tril(diagonal=S - T)
        mask = causal[None, None] & attn[:, None, None, :].bool()
        o = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask)
        o = o.transpose(1, 2).reshape(B, T, d)
        scores = lm(o[:, -1, :])
        # repetition penalty over everything generated so far
        prev = lib.gather(scores, 1, input_ids)
        prev = lib.where(prev < 0, prev * 1.2, prev / 1.2)
        scores = scores.scatter(1, input_ids, prev)
        # top-k with a finfo-min filter, then top-p keeping at least one token
        fill = lib.finfo(scores.dtype).min
        kth = lib.topk(scores, 4)[0][..., -1, None]
        scores = scores.masked_fill(scores < kth, fill)
        sorted_logits, sorted_idx = lib.sort(scores, descending=False)
        cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove = cum <= (1 - 0.8)
        remove[..., -1:] = 0
        scores = scores.masked_fill(remove.scatter(1, sorted_idx, remove), fill)
        probs = F.softmax(scores / 0.9, dim=-1)
        nxt = lib.multinomial(probs, num_samples=1, generator=g).squeeze(1)
        nxt = nxt * unfinished + PAD * (1 - unfinished)
        input_ids = lib.cat([input_ids, nxt[:, None]], dim=-1)
        attn = lib.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)
        unfinished = unfinished & (nxt != EOS).long()
        cur = nxt[:, None]
        cur_pos = pos[:, -1:] + 1
        pos = lib.cat([pos, cur_pos], dim=-1)
        rec(f"probs{_step}", probs)
        if unfinished.max() == 0:
            break
    rec("ids", input_ids)
    rec("unfinished", unfinished)
    rec("cache", k_cache.shape)


def p_speculative(lib, dt, rec):
    """Speculative sampling acceptance: draft tokens accepted while u < p/q, the first rejection
    resampled from normalised max(p - q, 0)."""
    g = lib.Generator().manual_seed(18)
    B, K, V = 3, 4, 6
    q = lib.softmax(lib.randn(B, K, V, generator=g, dtype=dt), -1)
    p = lib.softmax(lib.randn(B, K + 1, V, generator=g, dtype=dt), -1)
    draft = lib.multinomial(q.view(-1, V), 1, generator=g).view(B, K)
    rec("draft", draft)
    pq = p[:, :K].gather(-1, draft[..., None]).squeeze(-1)
    qq = q.gather(-1, draft[..., None]).squeeze(-1)
    u = lib.rand(B, K, generator=g, dtype=dt)
    accept = u < lib.clamp(pq / qq, max=1.0)
    rec("accept", accept)
    n_acc = accept.long().cumprod(-1).sum(-1)
    rec("n_acc", n_acc)
    first_rej = (~accept).int().argmax(-1)
    rec("first_rej", first_rej)
    idx = n_acc.clamp(max=K - 1)
    resid = (p[lib.arange(B), idx] - q[lib.arange(B), idx]).clamp(min=0)
    resid = resid / resid.sum(-1, keepdim=True)
    rec("resid", resid)
    bonus = p[:, K]
    final_dist = lib.where((n_acc == K)[:, None], bonus, resid)
    rec("final_dist", final_dist)
    rec("next", lib.multinomial(final_dist, 1, generator=g))
    rec("torch_bincount", lib.bincount(n_acc, minlength=K + 1))
    # expected acceptance rate sum min(p, q)
    rec("alpha", lib.minimum(p[:, :K], q).sum(-1))


def p_pointer_generator(lib, dt, rec):
    """See et al.'s pointer-generator: copy distribution scattered into an extended vocabulary,
    coverage loss, masked attention over source OOVs."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(19)
    V, n_oov, H, B, S, T = 8, 3, 6, 2, 5, 3
    enc = lib.randn(B, S, H, dtype=dt, requires_grad=True)
    src_ext = lib.tensor([[3, 8, 4, 9, 0], [10, 5, 5, 6, 7]])  # ids >= V are OOVs
    src_mask = src_ext != PAD
    W_h = nn.Linear(H, H, bias=False).to(dt)
    W_s = nn.Linear(H, H).to(dt)
    w_c = nn.Linear(1, H, bias=False).to(dt)
    v = nn.Linear(H, 1, bias=False).to(dt)
    p_gen_l = nn.Linear(2 * H, 1).to(dt)
    out = nn.Linear(2 * H, V).to(dt)
    s = lib.zeros(B, H, dtype=dt)
    coverage = lib.zeros(B, S, dtype=dt)
    targets = lib.tensor([[8, 4, 2], [5, 10, 2]])
    losses = []
    for t in range(T):
        e = v(lib.tanh(W_h(enc) + W_s(s).unsqueeze(1) + w_c(coverage.unsqueeze(2)))).squeeze(2)
        e = e.masked_fill(~src_mask, -math.inf)
        a = F.softmax(e, dim=1)
        ctx = lib.bmm(a.unsqueeze(1), enc).squeeze(1)
        p_gen = lib.sigmoid(p_gen_l(lib.cat([ctx, s], 1)))
        p_vocab = F.softmax(out(lib.cat([ctx, s], 1)), dim=1)
        extra = lib.zeros(B, n_oov, dtype=dt)
        final = lib.cat([p_gen * p_vocab, extra], 1)
        final = final.scatter_add(1, src_ext, (1 - p_gen) * a)
        rec(f"final{t}", final)
        gold = final.gather(1, targets[:, t : t + 1]).squeeze(1)
        cov_loss = lib.sum(lib.min(a, coverage), 1)
        losses.append(-lib.log(gold + 1e-12) + cov_loss)
        coverage = coverage + a
        s = lib.tanh(ctx + s)
    loss = lib.stack(losses, 1).sum(1).mean()
    rec("loss", loss)
    loss.backward()
    rec("g_enc", enc.grad)
    rec("g_wc", w_c.weight.grad)
    rec("g_pgen", p_gen_l.weight.grad)
    # index_add_ spelling of the same scatter
    acc = lib.zeros(B, V + n_oov, dtype=dt)
    for b in range(B):
        acc[b].index_add_(0, src_ext[b], a[b].detach())
    rec("index_add", acc)


def p_convs2s(lib, dt, rec):
    """ConvS2S: weight-normalised causal convolutions with GLU, fairseq's make_positions and
    sinusoidal positional embeddings, attention with a sqrt(0.5) residual scale."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)
    V, d, B, T, S = 10, 6, 2, 5, 4
    tokens = lib.tensor([[4, 5, 6, 7, 8], [PAD, PAD, 3, 4, 9]])
    mask = tokens.ne(PAD).int()
    positions = (lib.cumsum(mask, dim=1).type_as(mask) * mask).long() + PAD
    rec("positions", positions)
    half = d // 2
    f = math.log(10000) / (half - 1)
    freqs = lib.exp(lib.arange(half, dtype=dt) * -f)
    ang = lib.arange(12, dtype=dt).unsqueeze(1) * freqs.unsqueeze(0)
    table = lib.cat([lib.sin(ang), lib.cos(ang)], dim=1).view(12, -1)
    table[PAD, :] = 0
    rec("table", table)
    emb = nn.Embedding(V, d, padding_idx=PAD).to(dt)
    x = emb(tokens) + table.index_select(0, positions.view(-1)).view(B, T, -1)
    conv = nn.utils.parametrizations.weight_norm(nn.Conv1d(d, 2 * d, 3).to(dt), dim=0)
    k = conv.kernel_size[0]
    h = x.transpose(1, 2)
    h = F.pad(h, (k - 1, 0))
    h = F.glu(conv(h), dim=1)
    h = (h + x.transpose(1, 2)) * math.sqrt(0.5)
    rec("glu", h)
    enc = lib.randn(B, S, d, dtype=dt)
    att = lib.bmm(h.transpose(1, 2), enc.transpose(1, 2))
    att = F.softmax(att, dim=-1).type_as(att)
    ctx = lib.bmm(att, enc) * (S * math.sqrt(1.0 / S))
    out = (h.transpose(1, 2) + ctx) * math.sqrt(0.5)
    rec("out", out)
    loss = out.pow(2).mean()
    loss.backward()
    rec("g_v", conv.parametrizations.weight.original1.grad)
    rec("g_g", conv.parametrizations.weight.original0.grad)
    rec("g_emb", emb.weight.grad)
    # the old-style hook weight_norm gives the same forward
    conv2 = nn.Conv1d(d, 2 * d, 3).to(dt)
    conv2.load_state_dict({"weight": conv.weight.detach(), "bias": conv.bias.detach()})
    conv2 = nn.utils.weight_norm(conv2)
    rec(
        "same",
        lib.allclose(
            conv2(F.pad(x.transpose(1, 2), (2, 0))), conv(F.pad(x.transpose(1, 2), (2, 0)))
        ),
    )


def p_tutorial_transformer(lib, dt, rec):
    """PyTorch's translation tutorial: Seq2SeqTransformer with dropout, create_mask's mixed mask
    types, the float causal mask built by masked_fill, an inverse-sqrt warmup and greedy_decode."""
    nn = lib.nn
    lib.manual_seed(21)
    V, d, B = 11, 8, 3

    class PositionalEncoding(nn.Module):
        def __init__(self, emb_size, dropout, maxlen=20):
            super().__init__()
            # (built in float64: float32 sin/cos may be an ulp off torch's vectorised ones)
            den = lib.exp(
                -lib.arange(0, emb_size, 2.0, dtype=lib.float64) * math.log(10000) / emb_size
            )
            pos = lib.arange(0, maxlen).reshape(maxlen, 1)
            pe = lib.zeros((maxlen, emb_size), dtype=lib.float64)
            pe[:, 0::2] = lib.sin(pos * den)
            pe[:, 1::2] = lib.cos(pos * den)
            pe = pe.float()
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("pos_embedding", pe.unsqueeze(-2))

        def forward(self, tok):
            return self.dropout(tok + self.pos_embedding[: tok.size(0), :])

    class Seq2SeqTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(
                d_model=d, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                dim_feedforward=16, dropout=0.1,
            )  # fmt: skip
            self.generator = nn.Linear(d, V)
            self.src_tok = nn.Embedding(V, d)
            self.tgt_tok = nn.Embedding(V, d)
            self.pe = PositionalEncoding(d, 0.1)

        def forward(self, src, trg, src_mask, tgt_mask, src_pad, tgt_pad, mem_pad):
            s = self.pe(self.src_tok(src.long()) * math.sqrt(d))
            t = self.pe(self.tgt_tok(trg.long()) * math.sqrt(d))
            outs = self.transformer(s, t, src_mask, tgt_mask, None, src_pad, tgt_pad, mem_pad)
            return self.generator(outs)

        def encode(self, src, src_mask):
            return self.transformer.encoder(self.pe(self.src_tok(src) * math.sqrt(d)), src_mask)

        def decode(self, tgt, memory, tgt_mask):
            t = self.pe(self.tgt_tok(tgt) * math.sqrt(d))
            return self.transformer.decoder(t, memory, tgt_mask)

    def square_mask(sz):
        mask = (lib.triu(lib.ones((sz, sz))) == 1).transpose(0, 1)
        return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)

    def create_mask(src, tgt):
        tgt_mask = square_mask(tgt.shape[0]).to(dt)
        src_mask = lib.zeros((src.shape[0], src.shape[0])).type(lib.bool)
        return src_mask, tgt_mask, (src == PAD).transpose(0, 1), (tgt == PAD).transpose(0, 1)

    model = Seq2SeqTransformer().to(dt)
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    g = lib.Generator().manual_seed(22)
    src = _tokens(lib, g, B, 6, V, [6, 4, 5])[0].t()
    tgt = _tokens(lib, g, B, 5, V, [5, 5, 3])[0].t()
    tgt[0] = BOS
    opt = lib.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    sched = lib.optim.lr_scheduler.LambdaLR(
        opt, lambda s: d**-0.5 * min((s + 1) ** -0.5, (s + 1) * 4**-1.5)
    )
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    model.train()
    for step in range(3):
        tgt_in = tgt[:-1, :]
        masks = create_mask(src, tgt_in)
        logits = rec.warns(f"warn{step}", lambda: model(src, tgt_in, *masks, masks[2]))  # noqa: B023
        opt.zero_grad()
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[1:, :].reshape(-1))
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr()[0])
    model.eval()
    with lib.no_grad():
        s = src[:, :1]
        memory = model.encode(s, lib.zeros(6, 6).type(lib.bool))
        ys = lib.ones(1, 1).fill_(BOS).type(lib.long)
        for _ in range(5):
            out = model.decode(ys, memory, square_mask(ys.size(0)).type(lib.bool))
            out = out.transpose(0, 1)
            prob = model.generator(out[:, -1])
            _, next_word = lib.max(prob, dim=1)
            next_word = next_word.item()
            ys = lib.cat([ys, lib.ones(1, 1).type_as(s.data).fill_(next_word)], dim=0)
            if next_word == EOS:
                break
    rec("ys", ys)
    rec("memory", memory)


def p_tutorial_gru(lib, dt, rec):
    """PyTorch's "NLP from scratch" seq2seq tutorial: batched EncoderRNN, BahdanauAttention and
    AttnDecoderRNN with topk(1) feeding, NLLLoss over log_softmax, two Adam optimisers."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(23)
    V_in, V_out, H, L = 9, 8, 6, 5

    class EncoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(V_in, H)
            self.gru = nn.GRU(H, H, batch_first=True)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x):
            return self.gru(self.dropout(self.embedding(x)))

    class BahdanauAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.Wa, self.Ua, self.Va = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, 1)

        def forward(self, query, keys):
            scores = self.Va(lib.tanh(self.Wa(query) + self.Ua(keys)))
            scores = scores.squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            return lib.bmm(weights, keys), weights

    class AttnDecoderRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(V_out, H)
            self.attention = BahdanauAttention()
            self.gru = nn.GRU(2 * H, H, batch_first=True)
            self.out = nn.Linear(H, V_out)
            self.dropout = nn.Dropout(0.1)

        def forward(self, enc_out, enc_hidden, target=None):
            B = enc_out.size(0)
            inp = lib.empty(B, 1, dtype=lib.long).fill_(BOS)
            hidden, outs, atts = enc_hidden, [], []
            for i in range(L):
                emb = self.dropout(self.embedding(inp))
                ctx, w = self.attention(hidden.permute(1, 0, 2), enc_out)
                o, hidden = self.gru(lib.cat((emb, ctx), dim=2), hidden)
                o = self.out(o)
                outs.append(o)
                atts.append(w)
                if target is not None:
                    inp = target[:, i].unsqueeze(1)
                else:
                    _, topi = o.topk(1)
                    inp = topi.squeeze(-1).detach()
            outs = F.log_softmax(lib.cat(outs, dim=1), dim=-1)
            return outs, hidden, lib.cat(atts, dim=1)

    enc, dec = EncoderRNN().to(dt), AttnDecoderRNN().to(dt)
    eo = lib.optim.Adam(enc.parameters(), lr=0.01)
    do = lib.optim.Adam(dec.parameters(), lr=0.01)
    crit = nn.NLLLoss()
    g = lib.Generator().manual_seed(24)
    inp = lib.randint(3, V_in, (4, L), generator=g)
    inp[1, 3:] = EOS
    tgt = lib.randint(3, V_out, (4, L), generator=g)
    tgt[:, -1] = EOS
    for epoch in range(3):
        eo.zero_grad()
        do.zero_grad()
        e_out, e_hid = enc(inp)
        d_out, _, _ = dec(e_out, e_hid, tgt)
        loss = crit(d_out.view(-1, d_out.size(-1)), tgt.view(-1))
        loss.backward()
        eo.step()
        do.step()
        rec(f"loss{epoch}", loss)
    enc.eval()
    dec.eval()
    with lib.no_grad():
        e_out, e_hid = enc(inp)
        d_out, _, att = dec(e_out, e_hid)
        _, topi = d_out.topk(1)
        rec("decoded", topi.squeeze())
        rec("att", att)
    rec.params("enc", enc)


def p_ctc_prefix_beam(lib, dt, rec):
    """CTC prefix beam search over log-probabilities with logaddexp bookkeeping, against the
    greedy path, and the forward score of the best prefix by ctc_loss."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(25)
    T, C, beam = 7, 4, 3
    logits = lib.randn(T, C, generator=g, dtype=dt) * 2
    logits[:, 0] += 0.5
    lp = logits.log_softmax(-1)
    ninf = lib.tensor(float("-inf"), dtype=dt)
    beams = {(): (lib.tensor(0.0, dtype=dt), ninf)}  # prefix -> (log p_blank, log p_nonblank)
    for t in range(T):
        nxt = {}

        def add(prefix, pb, pnb, nxt=nxt):
            ob, onb = nxt.get(prefix, (ninf, ninf))
            nxt[prefix] = (lib.logaddexp(ob, pb), lib.logaddexp(onb, pnb))

        for prefix, (pb, pnb) in beams.items():
            total = lib.logaddexp(pb, pnb)
            add(prefix, total + lp[t, 0], ninf)
            for c in range(1, C):
                p = lp[t, c]
                if prefix and prefix[-1] == c:
                    add(prefix + (c,), ninf, pb + p)
                    add(prefix, ninf, pnb + p)
                else:
                    add(prefix + (c,), ninf, total + p)
        scored = sorted(
            nxt.items(), key=lambda kv: -lib.logaddexp(*kv[1]).item()
        )  # fmt: skip
        beams = dict(scored[:beam])
        rec(f"beams{t}", str([k for k, _ in scored[:beam]]))
    best, (pb, pnb) = next(iter(beams.items()))
    score = lib.logaddexp(pb, pnb)
    rec("score", score)
    # the prefix probability is the CTC forward score of that labelling
    ctc = F.ctc_loss(lp.unsqueeze(1), lib.tensor([best]), (T,), (len(best),), reduction="sum")
    rec("ctc", -ctc)
    greedy = lib.unique_consecutive(lp.argmax(-1))
    rec("greedy", greedy[greedy != 0])
    rec("logsumexp", lib.logsumexp(lib.stack([pb, pnb]), 0))


def p_rel_attention(lib, dt, rec):
    """Transformer-XL's relative shift (pad, view, narrow), ALiBi slopes and biases, T5-style
    log-bucketed relative positions, and a memory of the previous segment detached by cat."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(26)
    qlen, mlen, H, dh = 4, 3, 2, 3
    klen = qlen + mlen
    x = lib.randn(qlen, klen, H, generator=g, dtype=dt)
    zero_pad = lib.zeros((x.size(0), 1, *x.size()[2:]), dtype=dt)
    padded = lib.cat([zero_pad, x], dim=1).view(x.size(1) + 1, x.size(0), *x.size()[2:])
    shifted = padded[1:].view_as(x)
    rec("relshift", shifted)
    # the same by as_strided on a contiguous padded copy
    xp = F.pad(x.permute(2, 0, 1), (1, 0)).contiguous()
    n = xp.size(-1)
    st = xp.as_strided((H, qlen, klen), (xp.stride(0), n - 1, 1), storage_offset=qlen)
    rec("strided", st)

    def slopes(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    sl = lib.tensor(slopes(4), dtype=dt)
    rec("slopes", sl)
    pos = lib.arange(klen)
    rel = pos[None, :] - pos[:, None]
    alibi = sl[:, None, None] * rel.abs().neg().unsqueeze(0)
    rec("alibi", alibi)
    # T5 buckets
    nb, maxd = 8, 16
    rp = -rel
    ret = (rp < 0).long() * (nb // 2)
    rp = rp.abs()
    exact = nb // 4
    large = exact + (lib.log(rp.to(dt) / exact) / math.log(maxd / exact) * (nb // 2 - exact)).to(
        lib.long
    )
    large = lib.min(large, lib.full_like(large, nb // 2 - 1))
    bucket = ret + lib.where(rp < exact, rp, large)
    rec("buckets", bucket)
    # attention over [mem; cur] with content and position terms
    mem = lib.randn(mlen, H, dh, generator=g, dtype=dt)
    cur = lib.randn(qlen, H, dh, generator=g, dtype=dt, requires_grad=True)
    k = lib.cat([mem.detach(), cur], 0)
    r_w_bias = lib.randn(H, dh, generator=g, dtype=dt)
    ac = lib.einsum("ind,jnd->ijn", cur + r_w_bias, k)
    bd = lib.einsum("ind,jnd->ijn", cur, k.flip(0))
    bd = lib.cat([lib.zeros(qlen, 1, H, dtype=dt), bd], 1).view(klen + 1, qlen, H)[1:]
    score = (ac + bd.view_as(ac)) / math.sqrt(dh)
    causal = lib.triu(lib.ones(qlen, klen, dtype=lib.bool), diagonal=1 + mlen)
    score = score.masked_fill(causal[:, :, None], float("-inf"))
    prob = F.softmax(score, dim=1)
    rec("prob", prob)
    out = lib.einsum("ijn,jnd->ind", prob, k)
    out.pow(2).sum().backward()
    rec("g_cur", cur.grad)


def p_bucket_loader(lib, dt, rec):
    """Length-bucketed batches: a BatchSampler over lengths sorted within shuffled chunks, a
    collate_fn padding source and target by pad_sequence, DataLoader with a seeded generator."""
    data_mod = lib.utils.data
    g = lib.Generator().manual_seed(27)
    lengths = lib.randint(2, 9, (14,), generator=g).tolist()
    pairs = [
        (lib.randint(3, 20, (n,), generator=g), lib.randint(3, 20, (max(1, n - 1),), generator=g))
        for n in lengths
    ]

    class Pairs(data_mod.Dataset):
        def __len__(self):
            return len(pairs)

        def __getitem__(self, i):
            return pairs[i]

    class Bucket(data_mod.Sampler):
        def __init__(self, lens, bs, gen):
            self.lens, self.bs, self.gen = lens, bs, gen

        def __iter__(self):
            perm = lib.randperm(len(self.lens), generator=self.gen).tolist()
            chunks = [perm[i : i + 6] for i in range(0, len(perm), 6)]
            batches = []
            for c in chunks:
                c = sorted(c, key=lambda i: -self.lens[i])
                batches += [c[i : i + self.bs] for i in range(0, len(c), self.bs)]
            order = lib.randperm(len(batches), generator=self.gen).tolist()
            return iter([batches[i] for i in order])

        def __len__(self):
            return sum(math.ceil(min(6, len(self.lens) - i) / self.bs) for i in range(0, 14, 6))

    def collate(batch):
        src, tgt = zip(*batch, strict=True)
        src_len = lib.tensor([len(s) for s in src])
        src = lib.nn.utils.rnn.pad_sequence(src, batch_first=True, padding_value=PAD)
        tgt = [lib.cat([lib.tensor([BOS]), t, lib.tensor([EOS])]) for t in tgt]
        tgt = lib.nn.utils.rnn.pad_sequence(tgt, padding_value=PAD)
        return src, src_len, tgt

    loader = data_mod.DataLoader(
        Pairs(), batch_sampler=Bucket(lengths, 4, lib.Generator().manual_seed(28)),
        collate_fn=collate,
    )  # fmt: skip
    rec("n_batches", len(loader))
    ntok = 0
    emb = lib.nn.Embedding(20, 4, padding_idx=PAD).to(dt)
    for i, (src, src_len, tgt) in enumerate(loader):
        rec(f"src{i}", src)
        rec(f"len{i}", src_len)
        rec(f"tgt{i}", tgt)
        ntok += int((tgt[1:] != PAD).sum())
        packed = lib.nn.utils.rnn.pack_padded_sequence(emb(src), src_len, batch_first=True)
        rec(f"bs{i}", packed.batch_sizes)
    rec("ntok", ntok)
    # a plain shuffled loader with a generator and a default collate of equal-length pairs
    dl = data_mod.DataLoader(
        data_mod.TensorDataset(lib.arange(10), lib.arange(10) * 2),
        batch_size=3, shuffle=True, generator=lib.Generator().manual_seed(29), drop_last=True,
    )  # fmt: skip
    rec("shuffled", str([b[0].tolist() for b in dl]))
    rs = data_mod.RandomSampler(range(8), replacement=True, num_samples=5,
                                generator=lib.Generator().manual_seed(30))  # fmt: skip
    rec("rs", str(list(rs)))
    ws = data_mod.WeightedRandomSampler([0.1, 0.5, 0.2, 0.2], 6,
                                        generator=lib.Generator().manual_seed(31))  # fmt: skip
    rec("ws", str(list(ws)))


def p_bart_noise(lib, dt, rec):
    """BART's text infilling and word noise: Poisson span lengths, bernoulli word dropout, random
    token replacement, sentence permutation, and a denoising loss through the noisy input."""
    lib.manual_seed(32)
    V, MASK = 30, 3
    tokens = lib.randint(4, V, (20,))
    rec("tokens", tokens)
    spans = lib.distributions.Poisson(lib.tensor([2.5])).sample((4,)).long().squeeze(-1)
    rec("spans", spans)
    starts = lib.randperm(16)[:4].sort().values
    rec("starts", starts)
    keep = lib.ones(20, dtype=lib.bool)
    noisy = tokens.clone()
    for s, n in zip(starts.tolist(), spans.tolist(), strict=True):
        noisy[s] = MASK
        keep[s + 1 : s + max(n, 1)] = False
    noisy = noisy[keep]
    rec("noisy", noisy)
    drop = lib.bernoulli(lib.full(noisy.shape, 0.1)).bool()
    rand_tok = lib.rand(noisy.shape) < 0.1
    noisy2 = lib.where(rand_tok, lib.randint(4, V, noisy.shape), noisy)[~drop]
    rec("noisy2", noisy2)
    sents = lib.tensor_split(tokens, lib.tensor([5, 12]))
    order = lib.randperm(len(sents))
    rec("permuted", lib.cat([sents[i] for i in order.tolist()]))
    # word dropout on embeddings (scaled by 1 / (1 - p)) and its gradient
    emb = lib.nn.Embedding(V, 4).to(dt)
    wd = lib.empty(len(noisy2), 1, dtype=dt).bernoulli_(0.8) / 0.8
    x = emb(noisy2) * wd
    loss = lib.nn.functional.cross_entropy(x @ emb.weight.t(), noisy2, label_smoothing=0.1)
    loss.backward()
    rec("loss", loss)
    rec("g", emb.weight.grad)


def p_label_smoothed_training(lib, dt, rec):
    """A small Transformer trained with label smoothing, gradient accumulation over two
    micro-batches normalised by the token count, inverse-sqrt warmup and clip_grad_norm_, then
    checkpoint averaging of three state_dicts through save/load."""
    import io

    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(33)
    V, d = 10, 8
    model = nn.Transformer(d, 2, 1, 1, 16, dropout=0.0, batch_first=True).to(dt)
    emb = nn.Embedding(V, d, padding_idx=PAD).to(dt)
    proj = nn.Linear(d, V, bias=False).to(dt)
    proj.weight = emb.weight  # tied
    params = list(model.parameters()) + list(emb.parameters())
    rec("n_params", sum(p.numel() for p in params))
    opt = lib.optim.AdamW(params, lr=5e-3, betas=(0.9, 0.98), weight_decay=0.01)
    warm = 2
    sched = lib.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, (warm / (s + 1)) ** 0.5)
    )
    g = lib.Generator().manual_seed(34)
    snaps = []
    for step in range(3):
        opt.zero_grad(set_to_none=True)
        batches = [_tokens(lib, g, 2, 6, V, lens) for lens in ([6, 4], [5, 3])]
        ntok = sum(int((b[0][:, 1:] != PAD).sum()) for b in batches)
        total = 0.0
        for src, pad in batches:
            tgt_in, tgt_out = src[:, :-1], src[:, 1:]
            mask = model.generate_square_subsequent_mask(tgt_in.size(1), dtype=dt)
            h = model(emb(src), emb(tgt_in), tgt_mask=mask, src_key_padding_mask=pad,
                      tgt_key_padding_mask=pad[:, :-1], memory_key_padding_mask=pad)  # fmt: skip
            logits = proj(h)
            loss = F.cross_entropy(logits.transpose(1, 2), tgt_out, ignore_index=PAD,
                                   label_smoothing=0.1, reduction="sum")  # fmt: skip
            (loss / ntok).backward()
            total += loss.item()
        rec(f"loss{step}", total / ntok)
        rec(f"gnorm{step}", nn.utils.clip_grad_norm_(params, max_norm=0.5, norm_type=2.0))
        opt.step()
        sched.step()
        rec(f"lr{step}", sched.get_last_lr()[0])
        buf = io.BytesIO()
        lib.save(model.state_dict(), buf)
        snaps.append(buf.getvalue())
    states = [lib.load(io.BytesIO(b)) for b in snaps]
    avg = {k: sum(s[k] for s in states) / len(states) for k in states[0]}
    model.load_state_dict(avg)
    rec("avg_w", model.encoder.layers[0].linear1.weight)
    rec("avg_keys", str(list(avg)[:4]))
    rec("opt_state", opt.state_dict()["state"][0]["exp_avg_sq"])


def p_rope_kv_cache(lib, dt, rec):
    """Rotary embeddings by rotate_half, a preallocated KV cache filled by index_copy_ and
    slicing, grouped-query attention by repeat_interleave, prefill by is_causal and one-token
    decode steps, checked against a full recomputation."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(35)
    B, Hq, Hk, dh, P, steps, maxlen = 2, 4, 2, 4, 3, 3, 8
    inv = 1.0 / (10000 ** (lib.arange(0, dh, 2, dtype=dt) / dh))
    t = lib.arange(maxlen, dtype=dt)
    freqs = lib.outer(t, inv)
    embf = lib.cat((freqs, freqs), dim=-1)
    cos, sin = embf.cos(), embf.sin()

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
        return lib.cat((-x2, x1), dim=-1)

    def rope(x, pos):
        return x * cos[pos] + rotate_half(x) * sin[pos]

    Wq = lib.randn(8, Hq * dh, generator=g, dtype=dt) * 0.3
    Wk = lib.randn(8, Hk * dh, generator=g, dtype=dt) * 0.3
    Wv = lib.randn(8, Hk * dh, generator=g, dtype=dt) * 0.3
    xs = lib.randn(B, P + steps, 8, generator=g, dtype=dt)
    k_cache = lib.zeros(B, Hk, maxlen, dh, dtype=dt)
    v_cache = lib.zeros(B, Hk, maxlen, dh, dtype=dt)

    def project(x, pos):
        T = x.shape[1]
        q = (x @ Wq).view(B, T, Hq, dh).transpose(1, 2)
        k = (x @ Wk).view(B, T, Hk, dh).transpose(1, 2)
        v = (x @ Wv).view(B, T, Hk, dh).transpose(1, 2)
        return rope(q, pos), rope(k, pos), v

    pos = lib.arange(P)
    q, k, v = project(xs[:, :P], pos)
    k_cache.index_copy_(2, pos, k)
    v_cache[:, :, :P] = v
    out = F.scaled_dot_product_attention(
        q, k.repeat_interleave(Hq // Hk, dim=1), v.repeat_interleave(Hq // Hk, dim=1),
        is_causal=True,
    )  # fmt: skip
    outs = [out]
    for s in range(steps):
        p = P + s
        q, k, v = project(xs[:, p : p + 1], lib.tensor([p]))
        k_cache[:, :, p : p + 1] = k
        v_cache.index_copy_(2, lib.tensor([p]), v)
        kk = k_cache[:, :, : p + 1]
        vv = v_cache[:, :, : p + 1]
        o = F.scaled_dot_product_attention(q, kk, vv, enable_gqa=True)
        outs.append(o)
    inc = lib.cat(outs, dim=2)
    rec("incremental", inc)
    q, k, v = project(xs, lib.arange(P + steps))
    full = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    rec("full", full)
    rec("same", lib.allclose(inc, full, atol=1e-5))
    rec("cache_norm", k_cache.norm(dim=-1))
    # manual attention with a causal mask built by arange comparisons
    T = P + steps
    kr = k.repeat_interleave(2, 1)
    att = (q @ kr.transpose(-2, -1)) * dh**-0.5
    att = att.masked_fill(lib.arange(T)[None, :] > lib.arange(T)[:, None], float("-inf"))
    rec("manual", att.softmax(-1) @ v.repeat_interleave(2, 1))


def p_asr_ctc(lib, dt, rec):
    """An ASR model: conv subsampling with output lengths by floor division, a packed BiLSTM,
    CTC training over two steps, greedy decoding and a WER by edit distance on tensors."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(36)
    N, T, Fdim, C = 3, 20, 6, 5
    feats = lib.randn(N, T, Fdim, dtype=dt)
    feat_len = lib.tensor([20, 15, 11])
    conv = nn.Sequential(nn.Conv1d(Fdim, 8, 3, stride=2), nn.GELU(),
                         nn.Conv1d(8, 8, 3, stride=2, padding=1)).to(dt)  # fmt: skip
    lstm = nn.LSTM(8, 6, batch_first=True, bidirectional=True).to(dt)
    head = nn.Linear(12, C).to(dt)
    targets = lib.tensor([[1, 2, 3, 4], [2, 2, 1, 0], [3, 1, 0, 0]])
    tgt_len = lib.tensor([4, 3, 2])
    opt = lib.optim.SGD(
        [*conv.parameters(), *lstm.parameters(), *head.parameters()], lr=0.1, momentum=0.9,
        nesterov=True,
    )  # fmt: skip

    def forward():
        h = conv(feats.transpose(1, 2)).transpose(1, 2)
        lens = lib.div(feat_len - 3, 2, rounding_mode="floor") + 1
        lens = (lens + 2 - 3) // 2 + 1
        packed = nn.utils.rnn.pack_padded_sequence(h, lens, batch_first=True, enforce_sorted=False)
        o, _ = lstm(packed)
        o, out_len = nn.utils.rnn.pad_packed_sequence(o, batch_first=True)
        return head(o).log_softmax(-1), out_len

    for step in range(2):
        lp, out_len = forward()
        loss = F.ctc_loss(lp.transpose(0, 1), targets, out_len, tgt_len, zero_infinity=True)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"out_len{step}", out_len)
    rec("g_head", head.weight.grad)
    with lib.no_grad():
        lp, out_len = forward()
    best = lp.argmax(-1)
    hyps = []
    for i in range(N):
        seq = lib.unique_consecutive(best[i, : out_len[i]])
        hyps.append(seq[seq != 0])
    rec("hyps", str([h.tolist() for h in hyps]))

    def edit_distance(a, b):
        d = lib.arange(len(b) + 1)
        for i in range(1, len(a) + 1):
            prev = d.clone()
            d[0] = i
            for j in range(1, len(b) + 1):
                sub = prev[j - 1] + (a[i - 1] != b[j - 1]).long()
                d[j] = lib.min(lib.stack([prev[j] + 1, d[j - 1] + 1, sub]))
        return d[-1]

    errs = lib.stack([edit_distance(h, targets[i, : tgt_len[i]]) for i, h in enumerate(hyps)])
    rec("errs", errs)
    rec("wer", errs.sum() / tgt_len.sum())


def p_errors(lib, dt, rec):
    """The errors seq2seq code meets: mask and shape mismatches in attention and Transformer,
    CTC argument checks, packing misuse, sampling from bad distributions, beam indexing."""
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(37)
    m = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True).to(dt)
    s, t = lib.randn(2, 5, 8, dtype=dt), lib.randn(2, 3, 8, dtype=dt)
    rec.err("tr_batch", lambda: m(s, t[:1]))
    rec.err("tr_dmodel", lambda: m(s[..., :4], t[..., :4]))
    rec.err("tr_tgt_mask", lambda: m(s, t, tgt_mask=lib.zeros(4, 4, dtype=dt)))
    rec.err("tr_kpm", lambda: m(s, t, src_key_padding_mask=lib.zeros(5, 2, dtype=lib.bool)))
    rec.err("tr_nhead", lambda: nn.Transformer(8, 3))
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    rec.err("mha_mask", lambda: mha(s, s, s, attn_mask=lib.zeros(4, 5, dtype=lib.bool)))
    rec.err("mha_3d", lambda: mha(s, s, s, attn_mask=lib.zeros(3, 5, 5, dtype=lib.bool)))
    rec.err("mha_causal", lambda: mha(s, s, s, is_causal=True))
    rec.err("sdpa_mask", lambda: F.scaled_dot_product_attention(s, s, s, attn_mask=lib.ones(4, 4)))
    lp = lib.randn(6, 2, 4, dtype=dt).log_softmax(-1)
    tg = lib.tensor([[1, 2, 2], [3, 1, 0]])
    rec.err("ctc_len", lambda: F.ctc_loss(lp, tg, [7, 5], [3, 2]))
    rec.err("ctc_tlen", lambda: F.ctc_loss(lp, tg, [6, 5], [4, 2]))
    rec.err("ctc_blank", lambda: F.ctc_loss(lp, tg, [6, 5], [3, 2], blank=4))
    rec.err("ctc_bs", lambda: F.ctc_loss(lp, tg, [6], [3, 2]))
    rec.err("ctc_mixed", lambda: F.ctc_loss(lp, tg, lib.tensor([6, 5]), [3, 2]))
    rec.err("ctc_red", lambda: F.ctc_loss(lp, tg, [6, 5], [3, 2], reduction="avg"))
    pad = lib.randn(3, 4, 2, dtype=dt)
    rnn_utils = nn.utils.rnn
    rec.err("pack_sorted", lambda: rnn_utils.pack_padded_sequence(pad, [2, 4, 1], True))
    rec.err("pack_zero", lambda: rnn_utils.pack_padded_sequence(pad, [4, 0, 1], True, False))
    rec.err("pack_2d", lambda: rnn_utils.pack_padded_sequence(pad, lib.tensor([[4, 2, 1]]), True))
    rec.err("pack_n", lambda: rnn_utils.pack_padded_sequence(pad, [4, 2], True))
    packed = rnn_utils.pack_padded_sequence(pad, [4, 2, 1], batch_first=True)
    rec.err("pad_total", lambda: rnn_utils.pad_packed_sequence(packed, total_length=2))
    rec.err("pad_seq", lambda: rnn_utils.pad_sequence([lib.ones(2, 3), lib.ones(2, 4)]))
    rec.err("mn_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("mn_zero", lambda: lib.multinomial(lib.zeros(2, 3, dtype=dt), 1))
    rec.err("mn_inf", lambda: lib.multinomial(lib.tensor([1.0, math.inf], dtype=dt), 1))
    rec.err("mn_many", lambda: lib.multinomial(lib.tensor([0.5, 0.5], dtype=dt), 3))
    rec.err("mn_3d", lambda: lib.multinomial(lib.ones(1, 1, 2, dtype=dt), 1))
    rec.err("topk_k", lambda: lib.randn(2, 4, dtype=dt).topk(5))
    rec.err("gather_dim", lambda: lib.randn(2, 4, dtype=dt).gather(1, lib.tensor([0, 1])))
    rec.err("gather_oob", lambda: lib.randn(2, 4, dtype=dt).gather(1, lib.tensor([[0, 4]])))
    rec.err("isel_oob", lambda: lib.randn(6, 4, dtype=dt).index_select(0, lib.tensor([6])))
    rec.err("emb_oob", lambda: nn.Embedding(5, 2)(lib.tensor([[1, 5]])))
    rec.err("one_hot", lambda: F.one_hot(lib.tensor([1, 4]), 3))
    rec.err("ce_oob", lambda: F.cross_entropy(lib.randn(2, 3, dtype=dt), lib.tensor([0, 3])))
    rec.err("ce_ls", lambda: F.cross_entropy(lib.randn(2, 3, dtype=dt), lib.tensor([0, 1]),
                                             label_smoothing=1.2))  # fmt: skip
    rec.err("uc_dim", lambda: lib.unique_consecutive(lib.tensor([[1, 1]]), dim=2))
    rec.err("masked_fill", lambda: lib.ones(2, 3).masked_fill(lib.ones(2, 3), 0.0))
    rec.err("div_mode", lambda: lib.div(lib.tensor([7]), 2, rounding_mode="round"))
    rec.err("bmm", lambda: lib.bmm(lib.ones(2, 1, 4, dtype=dt), lib.ones(2, 5, 4, dtype=dt)))


def p_encoder_eval_paths(lib, dt, rec):
    """A Transformer encoder in training and in eval under no_grad (torch's nested-tensor path
    zeroes padded positions), with bool and float key padding masks, a causal mask detected
    from its values, norm_first layers and a final norm, and the same encoder run unbatched."""
    nn = lib.nn
    lib.manual_seed(38)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, activation="gelu")
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8)).to(dt)
    pre = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=True),
        2, enable_nested_tensor=False,
    ).to(dt)  # fmt: skip
    x = lib.randn(3, 5, 8, dtype=dt)
    kpm = lib.arange(5)[None, :] >= lib.tensor([5, 3, 4])[:, None]
    fkpm = lib.zeros(3, 5, dtype=dt).masked_fill(kpm, float("-inf"))
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    for mode in ["train", "eval"]:
        enc.train(mode == "train")
        pre.train(mode == "train")
        with lib.no_grad():
            rec(mode + ".kpm", enc(x, src_key_padding_mask=kpm))
            rec(mode + ".fkpm", enc(x, src_key_padding_mask=fkpm))
            rec(mode + ".causal", enc(x, mask=causal, src_key_padding_mask=kpm))
            rec(mode + ".pre", pre(x, src_key_padding_mask=kpm))
            rec(mode + ".pre_causal", pre(x, mask=causal, is_causal=True))
            rec(mode + ".unbatched", enc(x[1], src_key_padding_mask=kpm[1]))
    enc.train()
    out = enc(x, mask=causal, src_key_padding_mask=kpm)
    out.masked_fill(kpm[..., None], 0.0).pow(2).sum().backward()
    rec("g_in_proj", enc.layers[1].self_attn.in_proj_weight.grad)
    rec("g_norm", enc.norm.weight.grad)


def p_constrained_diverse(lib, dt, rec):
    """Constrained and diverse decoding: an allowed-token mask from index_fill_, a prefix trie's
    next tokens, diverse beam search groups with a Hamming penalty from bincount, and
    temperature-scaled sampling restricted by the mask."""
    g = lib.Generator().manual_seed(39)
    B, V, G, K = 2, 9, 2, 2
    logits = lib.randn(B, G * K, V, generator=g, dtype=dt)
    allowed = lib.zeros(V, dtype=lib.bool).index_fill_(0, lib.tensor([2, 3, 5, 7, 8]), True)
    masked = logits.masked_fill(~allowed, float("-inf"))
    rec("masked", masked)
    trie = {(): [3, 5], (3,): [7], (5,): [2, 8]}
    prefixes = [(), (3,), (5,), ()]
    tmask = lib.ones(G * K, V, dtype=lib.bool)
    for i, p in enumerate(prefixes):
        tmask[i, trie[p]] = False
    lp = masked.masked_fill(tmask, float("-inf")).log_softmax(-1)
    rec("trie_lp", lp)
    chosen = []
    for grp in range(G):
        scores = lp[:, grp * K : (grp + 1) * K].clone()
        if chosen:
            prev = lib.cat(chosen, dim=1)
            pen = lib.stack([lib.bincount(prev[b], minlength=V) for b in range(B)]).to(dt)
            scores = scores - 0.5 * pen[:, None, :]
        flat = scores.reshape(B, -1)
        top, idx = flat.topk(K, dim=1)
        rec(f"top{grp}", top)
        rec(f"beam{grp}", lib.div(idx, V, rounding_mode="floor"))
        tok = idx.remainder(V)
        rec(f"tok{grp}", tok)
        chosen.append(tok)
    rec("all", lib.cat(chosen, 1))
    probs = lib.softmax(masked[:, 0] / 0.7, dim=-1)
    rec("probs", probs)
    s = lib.multinomial(probs, 4, replacement=True, generator=g)
    rec("samples", s)
    rec("in_allowed", allowed[s].all())
