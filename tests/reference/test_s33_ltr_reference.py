"""Session 33 (helper ltr): learning-to-rank and recommendation programs written the way such
code is written in torch, run under torch and minitorch with the same seeds and compared record
by record: pairwise RankNet (broadcast score differences, triu masks and triu_indices, BCE with
logits, logsigmoid, sigma and |delta label| weights) and hinge losses (relu/clamp/maximum at the
kink), MarginRankingLoss (reductions, broadcast targets, 0-d and empty), ListNet (softmax cross
entropy, cross_entropy with probabilities, KL, padded lists), ListMLE (stable sort by label,
gather, flip + logcumsumexp, masks), LambdaRank with |delta NDCG| weights (argsort, scatter of
ranks, 1/log2(rank + 1) discounts, hand-written lambdas fed to backward), ApproxNDCG with
sigmoid soft ranks, NeuralSort and SoftSort relaxations, Sinkhorn, LambdaLoss (NDCG-Loss2++),
Plackett-Luce sampling (Gumbel, multinomial) with a REINFORCE gradient, NDCG@k/MAP/MRR/P@k/
recall@k/hit rate with topk, sort(stable=True), cumsum, cummax, searchsorted, bucketize and
quantile, AUC and AP at distinct thresholds (unique_consecutive, trapezoid), padded lists with
-inf fill (fully padded rows, nan_to_num, pad_sequence, torch.masked), ties in sort/argsort
(stable, NaN, -0.0, bool, lexicographic), fractional ranks, ignore masks (allRank's -1 labels,
ignore_index), in-place writes into an expanded rank template, LightGBM-style qid groups
(scatter_reduce, index_add, segment_reduce, split + pad), BPR matrix factorisation, DeepFM,
GRU4Rec over packed sessions, a SetRank-style transformer reranker, a LambdaMART-like MLP
trained with SGD, the optimizers torch allows on Embedding(sparse=True)
gradients, sampled softmax with the logQ correction, multilabel/multi-margin, cosine and triplet
losses, gradchecks, double backward, Hessians, the deprecation warnings of these losses, rank
cutoffs written into reused out= buffers, and an argument-error sweep (sort of a wrong dim,
gather index dtypes, topk k too large, swapped dim/index, out= of sort/argsort, the losses'
shapes and reductions). float64 must agree to 1e-10 of each record's scale, float32 to 1e-4;
integers and texts exactly.

Found and fixed:
- gather(x, index, 1) / x.gather(index, 1) / scatter_add(x, index, 1, src) (dim and index
  swapped) named index ("argument 'index' (position 3) must be Tensor, not int"); torch's parser
  reads dim's type first: "gather(): argument 'dim' (position 2) must be int, not Tensor".
- x.scatter_add_(index, 1, src) and x.scatter_add_(dim=index, ...): the message named
  scatter_add(); torch names the in-place method ("scatter_add_(): argument 'dim' ...").
- scatter/scatter_ with reduce= of no str (reduce=1): the kernel's "reduce argument must be
  either add or multiply." RuntimeError (after the deprecation warning); torch's parser gives
  its "invalid combination" TypeError listing scatter's four overloads.
- argsort(x, out=o) without stable= ran; torch's out= belongs to its stable= overload only:
  "invalid combination" (dim= given: "didn't match because ... keywords were incorrect: out,
  dim"), dim= and descending= given: 'missing 1 required positional arguments: "stable"'. And
  out= now counts among the arguments of any sort/argsort call the parser refuses (argsort(x, 1,
  stable=True, out=o): "takes from 2 to 1 positional arguments but 2 were given"; sort(x,
  stable=1, out=(v, i)): "got (Tensor, out=tuple, stable=int)").
- kthvalue/mode with out= of another shape: the resize warning named out's shape and the
  result's; torch's kernels unsqueeze out at dim first (kthvalue: an out one dim short of
  input; mode: any out of at least dim dims) and resize to the keepdim shape, so torch warns
  "had shape [3, 1] ... required output shape [2, 1]" ("[2, 1, 1]" for mode's [2, 1] out, and
  none where the unsqueezed out fits); mode of a 0-d input resizes out silently.

Known and left (documented):
- Adam/AdamW/NAdam/RAdam/Adamax/ASGD/Adadelta/RMSprop/Rprop/Adafactor/Muon on an
  Embedding(sparse=True)'s gradient: torch raises "Adam does not support sparse gradients,
  please consider SparseAdam instead" (and "weight_decay option is not compatible with sparse
  gradients" for Adagrad, "add(sparse, dense) is not supported" for SGD's weight_decay);
  minitorch has no sparse tensors (its sparse gradients are dense, as documented), so these
  steps run. The programs use SparseAdam, Adagrad and SGD (momentum, nesterov) without
  weight decay, which agree.
- A missing required argument (torch.topk(x), x.gather(1), torch.flip(x)): Python's wording
  ("missing 1 required positional argument: 'k'"), not the parser's ('... arguments: "k"').
- An unknown keyword of sort/argsort (x.sort(foo=1)): Python's "unexpected keyword argument";
  torch lists the overloads.
- embedding_bag with decreasing offsets: torch's "Expected i < index_size to be true ..."
  internal assert; minitorch says "offsets must be monotonically increasing".
- NumPy's RuntimeWarnings (invalid value in add/subtract, divide by zero) show under a user's
  "always" filter in logcumsumexp's backward with -inf entries, softmax of all -inf rows and
  scatter_reduce amax/amin of NaN; torch gives the same numbers silently.
- In float32, Adam on a parameter whose true gradient is zero (a key bias, a score bias before
  a listwise softmax) turns rounding noise into full steps: the SetRank program uses SGD and a
  bias-free head.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

from functools import partial

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_calls_match, assert_program_matches, run_calls
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "ranknet", "pairwise_hinge", "margin_ranking", "listnet", "listmle", "lambdarank",
    "approx_ndcg", "ndcg_at_k", "map_mrr", "padded_lists", "ties_sort", "ignore_masks",
    "gradcheck", "errors", "searchsorted", "rec_metrics", "bpr_mf", "neuralsort",
    "multilabel_margin", "qid_groups", "logcumsumexp_edges", "train_lambdamart",
    "topk_variants", "double_backward", "ranks_scatter", "cosine_embedding",
    "sparse_embeddings", "plackett_luce", "softsort", "lambdaloss", "sampled_softmax", "auc",
    "fm_model", "gru4rec", "setrank", "warnings", "cutoff_outs", "masked_lists",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _labels(lib, seed, *shape, high=4):
    return lib.randint(0, high, shape, generator=_gen(lib, seed))


def _dcg(lib, gains, dt):
    """DCG of gains (..., n) already in rank order: sum (2^g - 1) / log2(rank + 1)."""
    n = gains.shape[-1]
    disc = 1.0 / lib.log2(lib.arange(2, n + 2, dtype=dt))
    return ((2.0 ** gains.to(dt) - 1.0) * disc).sum(-1)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_ranknet(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 1, 3, 6)
    y = _labels(lib, 2, 3, 6).to(dt)
    s = s0.clone().requires_grad_(True)
    diff = s.unsqueeze(-1) - s.unsqueeze(-2)  # s_i - s_j
    sij = lib.sign(y.unsqueeze(-1) - y.unsqueeze(-2))
    mask = lib.triu(lib.ones(6, 6, dtype=lib.bool), diagonal=1) & (sij != 0)
    target = (sij + 1) / 2
    loss = F.binary_cross_entropy_with_logits(
        diff[mask.expand(3, 6, 6)], target[mask.expand(3, 6, 6)]
    )
    loss.backward()
    rec("loss", loss)
    rec("grad", s.grad)
    rec("npairs", mask.expand(3, 6, 6).sum())
    # the same with sigma and per-pair weights, reduction="none" then masked mean
    s2 = s0.clone().requires_grad_(True)
    sigma = 2.0
    d = sigma * (s2[:, :, None] - s2[:, None, :])
    per = F.binary_cross_entropy_with_logits(d, target, reduction="none")
    w = mask.to(dt) * lib.abs(y[:, :, None] - y[:, None, :])
    loss2 = (per * w).sum() / w.sum()
    loss2.backward()
    rec("loss2", loss2)
    rec("grad2", s2.grad)
    # the logsigmoid spelling
    s3 = s0.clone().requires_grad_(True)
    d3 = s3[:, :, None] - s3[:, None, :]
    pos = lib.triu((sij > 0).to(dt), 1) + lib.tril((sij > 0).to(dt), -1)
    loss3 = -(F.logsigmoid(d3) * pos).sum() / pos.sum()
    loss3.backward()
    rec("loss3", loss3)
    rec("grad3", s3.grad)
    rec("triu_idx", lib.triu_indices(6, 6, 1))
    i, j = lib.triu_indices(6, 6, offset=1)
    rec("pairs_ij", s0[:, i] - s0[:, j])


def p_pairwise_hinge(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 3, 4, 5)
    y = _labels(lib, 4, 4, 5)
    s = s0.clone().requires_grad_(True)
    diff = s[:, :, None] - s[:, None, :]
    better = (y[:, :, None] > y[:, None, :]).to(dt)
    hinge = F.relu(1.0 - diff) * better
    loss = hinge.sum((1, 2)) / better.sum((1, 2)).clamp(min=1)
    loss.mean().backward()
    rec("loss", loss)
    rec("grad", s.grad)
    # squared hinge and a clamp spelling
    s2 = s0.clone().requires_grad_(True)
    d2 = s2.unsqueeze(2) - s2.unsqueeze(1)
    sq = (0.5 - d2).clamp(min=0).pow(2) * better
    sq.sum().backward()
    rec("sq", sq.sum((1, 2)))
    rec("grad_sq", s2.grad)
    # ties exactly on the hinge kink: relu's and clamp's gradients at 0
    s3 = lib.tensor([[1.0, 0.0, 2.0, 1.0]], dtype=dt, requires_grad=True)
    d3 = s3[:, :, None] - s3[:, None, :]
    b3 = lib.ones(1, 4, 4, dtype=dt).triu(1)
    (F.relu(1.0 - d3) * b3).sum().backward()
    rec("kink_relu", s3.grad)
    s3.grad = None
    ((1.0 - d3).clamp(min=0) * b3).sum().backward()
    rec("kink_clamp", s3.grad)
    s3.grad = None
    ((1.0 - d3).clamp_min(0.0) * b3).sum().backward()
    rec("kink_clamp_min", s3.grad)
    s3.grad = None
    (lib.maximum(1.0 - d3, lib.zeros((), dtype=dt)) * b3).sum().backward()
    rec("kink_maximum", s3.grad)


def p_margin_ranking(lib, dt, rec):
    F = lib.nn.functional
    x1 = _randn(lib, dt, 5, 8).requires_grad_(True)
    x2 = _randn(lib, dt, 6, 8).requires_grad_(True)
    t = lib.where(_rand(lib, dt, 7, 8) > 0.5, 1.0, -1.0).to(dt)
    for red in ("mean", "sum", "none"):
        for margin in (0.0, 0.3):
            out = F.margin_ranking_loss(x1, x2, t, margin=margin, reduction=red)
            rec(f"{red}.{margin}", out)
    crit = lib.nn.MarginRankingLoss(margin=0.5)
    loss = crit(x1, x2, t)
    loss.backward()
    rec("module", loss)
    rec("g1", x1.grad)
    rec("g2", x2.grad)
    rec("repr", repr(crit))
    rec("grad_fn", type(loss.grad_fn).__name__)
    # broadcasting target: (B, 1) vs (B, n)
    a = _randn(lib, dt, 8, 3, 4).requires_grad_(True)
    b = _randn(lib, dt, 9, 3, 4)
    tt = lib.tensor([[1.0], [-1.0], [1.0]], dtype=dt)
    out = F.margin_ranking_loss(a, b, tt, margin=0.1, reduction="none")
    rec("bcast", out)
    out.sum().backward()
    rec("bcast_g", a.grad)
    # 0-d and empty inputs
    z = lib.zeros(0, dtype=dt)
    rec("empty_mean", F.margin_ranking_loss(z, z, z))
    rec("empty_sum", F.margin_ranking_loss(z, z, z, reduction="sum"))
    one = lib.tensor(0.2, dtype=dt)
    rec("zero_d", F.margin_ranking_loss(one, -one, lib.tensor(1.0, dtype=dt), margin=0.5))
    # a target of the wrong sign convention (0/1) is not validated
    rec("zero_one", F.margin_ranking_loss(x1.detach(), x2.detach(), (t > 0).to(dt)))
    # ints target
    rec.err("int_target", lambda: F.margin_ranking_loss(x1.detach(), x2.detach(), t.long()))


def p_listnet(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 11, 4, 7)
    y = _labels(lib, 12, 4, 7, high=5).to(dt)
    s = s0.clone().requires_grad_(True)
    p_true = F.softmax(y, dim=-1)
    loss = -(p_true * F.log_softmax(s, dim=-1)).sum(-1).mean()
    loss.backward()
    rec("loss", loss)
    rec("grad", s.grad)
    # the cross_entropy with probabilities spelling (class dim 1 => transpose to (B, n))
    s2 = s0.clone().requires_grad_(True)
    loss2 = F.cross_entropy(s2, p_true)
    loss2.backward()
    rec("loss_ce", loss2)
    rec("grad_ce", s2.grad)
    # KL divergence spelling
    s3 = s0.clone().requires_grad_(True)
    kl = F.kl_div(
        F.log_softmax(s3, -1), F.log_softmax(y, -1), reduction="batchmean", log_target=True
    )
    kl.backward()
    rec("kl", kl)
    rec("grad_kl", s3.grad)
    # temperature and top-1 probability over a list with a padded tail
    mask = lib.arange(7) < lib.tensor([[7], [5], [3], [1]])
    s4 = s0.clone().requires_grad_(True)
    logits = s4.masked_fill(~mask, float("-inf")) / 0.5
    yt = y.masked_fill(~mask, float("-inf"))
    pt = lib.softmax(yt, -1)
    lp = lib.log_softmax(logits, -1)
    loss4 = -(pt * lp.masked_fill(~mask, 0.0)).sum(-1)
    loss4.sum().backward()
    rec("pad_loss", loss4)
    rec("pad_grad", s4.grad)
    rec("pad_lp", lp)
    rec("pad_pt", pt)


def _listmle(lib, s, y, mask=None):
    """ListMLE: -log P(pi_y | s) with pi_y the ordering by y (descending, ties in input order)."""
    order = lib.sort(y, dim=-1, descending=True, stable=True).indices
    ss = lib.gather(s, -1, order)
    if mask is not None:
        m = lib.gather(mask, -1, order)
        ss = ss.masked_fill(~m, float("-inf"))
    rev = lib.logcumsumexp(ss.flip(-1), dim=-1).flip(-1)
    terms = rev - ss
    if mask is not None:
        terms = terms.masked_fill(~m, 0.0)
    return terms.sum(-1)


def p_listmle(lib, dt, rec):
    s0 = _randn(lib, dt, 21, 3, 6)
    y = _labels(lib, 22, 3, 6).to(dt)
    s = s0.clone().requires_grad_(True)
    loss = _listmle(lib, s, y)
    loss.mean().backward()
    rec("loss", loss)
    rec("grad", s.grad)
    rec("order", lib.sort(y, dim=-1, descending=True, stable=True).indices)
    rec("argsort", lib.argsort(y, dim=-1, descending=True, stable=True))
    # with a padding mask: padded items are -inf and drop out of every term
    mask = lib.tensor([[True] * 6, [True] * 4 + [False] * 2, [True, False] * 3])
    s2 = s0.clone().requires_grad_(True)
    y2 = y.masked_fill(~mask, -1.0)
    loss2 = _listmle(lib, s2, y2, mask)
    loss2.sum().backward()
    rec("mask_loss", loss2)
    rec("mask_grad", s2.grad)
    # the cumsum of exp spelling with a max shift
    s3 = s0.clone().requires_grad_(True)
    order = y.argsort(dim=-1, descending=True, stable=True)
    ss = s3.gather(1, order)
    mx = ss.max(dim=-1, keepdim=True).values
    e = (ss - mx).exp()
    cs = e.flip(1).cumsum(1).flip(1)
    loss3 = (cs.log() + mx - ss).sum(1)
    loss3.sum().backward()
    rec("cumsum_loss", loss3)
    rec("cumsum_grad", s3.grad)


def _ndcg_weights(lib, s, y, dt):
    """|delta NDCG| of swapping each pair (B, n, n) under the current ranking by s."""
    n = s.shape[-1]
    order = s.argsort(dim=-1, descending=True, stable=True)
    ranks = lib.empty_like(order).scatter_(-1, order, lib.arange(n).expand_as(order).contiguous())
    disc = 1.0 / lib.log2(ranks.to(dt) + 2.0)
    gains = 2.0**y - 1.0
    ideal = y.sort(dim=-1, descending=True, stable=True).values
    idcg = _dcg(lib, ideal, dt).clamp(min=1e-10)
    dg = gains[:, :, None] - gains[:, None, :]
    dd = disc[:, :, None] - disc[:, None, :]
    return (dg * dd).abs() / idcg[:, None, None], ranks


def p_lambdarank(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 31, 3, 6)
    y = _labels(lib, 32, 3, 6).to(dt)
    s = s0.clone().requires_grad_(True)
    with lib.no_grad():
        w, ranks = _ndcg_weights(lib, s, y, dt)
    rec("ranks", ranks)
    rec("delta", w)
    sigma = 1.0
    diff = s[:, :, None] - s[:, None, :]
    pos = (y[:, :, None] > y[:, None, :]).to(dt)
    loss = (w * pos * F.softplus(-sigma * diff)).sum() / s.shape[0]
    loss.backward()
    rec("loss", loss)
    rec("grad", s.grad)
    # the hand-written lambdas: lambda_i = sum_j w_ij * (-sigma) * sigmoid(-sigma * diff)
    with lib.no_grad():
        lam = -sigma * lib.sigmoid(-sigma * diff) * w * pos
        lambdas = lam.sum(-1) - lam.sum(-2)
    rec("lambdas", lambdas)
    s2 = s0.clone().requires_grad_(True)
    s2.backward(lambdas / s.shape[0])
    rec("manual_grad", s2.grad)
    # gather-based discount lookup and index_select
    disc_table = 1.0 / lib.log2(lib.arange(2, 8, dtype=dt))
    rec("disc_gather", disc_table[ranks])
    rec("disc_index_select", disc_table.index_select(0, ranks.flatten()).view_as(ranks))


def p_approx_ndcg(lib, dt, rec):
    s0 = _randn(lib, dt, 41, 3, 8)
    y = _labels(lib, 42, 3, 8).to(dt)
    mask = lib.arange(8) < lib.tensor([[8], [6], [3]])
    for temp in (1.0, 0.1):
        s = s0.clone().requires_grad_(True)
        diff = (s[:, None, :] - s[:, :, None]) / temp  # s_j - s_i
        eye = lib.eye(8, dtype=lib.bool)
        pm = mask[:, None, :] & mask[:, :, None] & ~eye
        soft_rank = 1.0 + (lib.sigmoid(diff) * pm.to(dt)).sum(-1)
        gains = (2.0**y - 1.0) * mask.to(dt)
        dcg = (gains / lib.log2(1.0 + soft_rank)).sum(-1)
        ideal = gains.sort(-1, descending=True).values
        idcg = (ideal / lib.log2(lib.arange(2, 10, dtype=dt))).sum(-1)
        ndcg = dcg / idcg
        (-ndcg.mean()).backward()
        rec(f"soft_rank.{temp}", soft_rank)
        rec(f"ndcg.{temp}", ndcg)
        rec(f"grad.{temp}", s.grad)
    # hard ranks for comparison: 1 + count of higher scores
    hard = 1 + (s0[:, None, :] > s0[:, :, None]).sum(-1)
    rec("hard_rank", hard)
    rec("hard_rank_dtype", str(hard.dtype))


def p_ndcg_at_k(lib, dt, rec):
    s = _randn(lib, dt, 51, 4, 10)
    y = _labels(lib, 52, 4, 10).to(dt)
    y[3] = 0.0  # a query with no relevant item: ndcg 0/0
    for k in (1, 3, 5, 10):
        top = s.topk(k, dim=-1)
        g = y.gather(-1, top.indices)
        dcg = _dcg(lib, g, dt)
        ideal = y.sort(dim=-1, descending=True, stable=True).values[:, :k]
        idcg = _dcg(lib, ideal, dt)
        ndcg = dcg / idcg
        rec(f"ndcg@{k}", ndcg)
        rec(f"ndcg@{k}.nan0", lib.nan_to_num(ndcg, nan=0.0))
        rec(
            f"ndcg@{k}.where", lib.where(idcg > 0, dcg / idcg.clamp(min=1e-12), lib.zeros_like(dcg))
        )
        rec(f"topk_idx@{k}", top.indices)
    # the cumulative form: ndcg at every cutoff with cumsum
    order = s.argsort(dim=-1, descending=True, stable=True)
    g = (2.0 ** y.gather(1, order) - 1.0) / lib.log2(lib.arange(2, 12, dtype=dt))
    ig = (2.0 ** y.sort(1, descending=True).values - 1.0) / lib.log2(lib.arange(2, 12, dtype=dt))
    rec("cum_ndcg", g.cumsum(1) / ig.cumsum(1))
    rec("cum_dtype", str(g.cumsum(1).dtype))
    # linear gains and sorted values via msort on the transpose
    rec("msort", lib.msort(y.t()))
    rec("sort_values_dim0", y.sort(dim=0, stable=True).values)
    rec("sort_indices_dim0", y.sort(dim=0, stable=True).indices)


def p_map_mrr(lib, dt, rec):
    s = _randn(lib, dt, 61, 5, 9)
    rel = _rand(lib, dt, 62, 5, 9) > 0.6
    rel[4] = False
    order = s.argsort(dim=1, descending=True)
    hits = rel.gather(1, order).to(dt)
    cum = hits.cumsum(1)
    prec = cum / lib.arange(1, 10, dtype=dt)
    ap = (prec * hits).sum(1) / hits.sum(1).clamp(min=1)
    rec("ap", ap)
    rec("map", ap.mean())
    # MRR: first hit by argmax of a bool/int row, and by nonzero
    first = hits.argmax(dim=1)
    has = hits.any(dim=1)
    rr = lib.where(has, 1.0 / (first + 1).to(dt), lib.zeros((), dtype=dt))
    rec("first", first)
    rec("has", has)
    rec("rr", rr)
    rec("mrr", rr.mean())
    nz = lib.nonzero(hits)
    rec("nonzero", nz)
    rec("first_int_argmax", hits.to(lib.int64).argmax(1))
    rec("first_bool_argmax", hits.bool().to(lib.uint8).argmax(1))
    # precision / recall at k and hit rate
    for k in (1, 3, 5):
        topk = s.topk(k, dim=1).indices
        h = rel.gather(1, topk)
        rec(f"p@{k}", h.to(dt).mean(1))
        rec(f"r@{k}", h.sum(1) / rel.sum(1).clamp(min=1))
        rec(f"hr@{k}", h.any(1).to(dt).mean())
    # cummax of hits: whether a hit was seen by each cutoff
    cm = hits.cummax(dim=1)
    rec("cummax_v", cm.values)
    rec("cummax_i", cm.indices)


def p_padded_lists(lib, dt, rec):
    F = lib.nn.functional
    lens = lib.tensor([5, 3, 0, 1])
    n = 5
    mask = lib.arange(n)[None, :] < lens[:, None]
    s0 = _randn(lib, dt, 71, 4, n)
    s = s0.clone().requires_grad_(True)
    masked = s.masked_fill(~mask, float("-inf"))
    p = F.softmax(masked, dim=-1)  # the empty row is all NaN
    rec("p", p)
    rec("lse", lib.logsumexp(masked, dim=-1))
    rec("max", masked.max(dim=-1).values)
    rec("sorted", masked.sort(dim=-1, descending=True).values)
    rec("sorted_idx", masked.sort(dim=-1, descending=True, stable=True).indices)
    rec("topk2", masked.topk(2, dim=-1).values)
    lp = F.log_softmax(masked, dim=-1)
    rec("lp", lp)
    y = _labels(lib, 72, 4, n).to(dt)
    pt = F.softmax(y.masked_fill(~mask, float("-inf")), -1)
    term = lib.where(mask, pt * lp, lib.zeros((), dtype=dt))
    loss = -term.sum(-1)
    rec("loss", loss)
    loss.sum().backward()
    rec("grad", s.grad)
    # nan_to_num on the softmax of an empty row, then a masked mean over valid lists
    valid = lens > 0
    rec("valid_mean", loss[valid].mean())
    rec("p_nan_to_num", lib.nan_to_num(p))
    # pad_sequence of ragged lists with -inf, then argsort
    seqs = [s0[0, :5], s0[1, :3], s0[3, :1]]
    padded = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=float("-inf"))
    rec("pad_seq", padded)
    rec("pad_argsort", padded.argsort(dim=-1, descending=True, stable=True))
    rec("pad_finfo_min", padded.nan_to_num(neginf=lib.finfo(dt).min))


def p_ties_sort(lib, dt, rec):
    y = lib.tensor([[2.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0]], dtype=dt).repeat(2, 1)
    y[1] = y[1].flip(0)
    for desc in (False, True):
        r = y.sort(dim=-1, descending=desc, stable=True)
        rec(f"sort.{desc}.v", r.values)
        rec(f"sort.{desc}.i", r.indices)
        rec(f"argsort.{desc}", lib.argsort(y, dim=1, descending=desc, stable=True))
    # keyword stable spelling and sort of ints / bools
    yi = y.long()
    rec("int_sort", lib.sort(yi, stable=True, descending=True).indices)
    yb = y > 1
    rec("bool_sort", lib.sort(yb, dim=1, stable=True).indices)
    rec("bool_sort_v", lib.sort(yb, dim=1, stable=True).values)
    # lexicographic sort by (label desc, score desc): two stable sorts
    sc = lib.tensor([[0.3, 0.9, 0.1, 0.5, 0.4, 0.2, 0.8, 0.7]], dtype=dt).repeat(2, 1)
    o1 = sc.argsort(dim=-1, descending=True, stable=True)
    o2 = y.gather(-1, o1).argsort(dim=-1, descending=True, stable=True)
    rec("lex", o1.gather(-1, o2))
    # ranks with ties: average (fractional) ranks by unique/scatter
    v = y[0]
    uniq, inv, counts = lib.unique(v, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("counts", counts)
    start = counts.cumsum(0) - counts
    avg = start.to(dt) + (counts.to(dt) + 1) / 2
    rec("avg_rank", avg[inv])
    # sort of NaN: NaN is the largest
    nanv = lib.tensor([0.5, float("nan"), -1.0, 0.5, float("nan")], dtype=dt)
    rec("nan_sort", nanv.sort(stable=True).indices)
    rec("nan_sort_desc", nanv.sort(descending=True, stable=True).indices)
    rec("nan_argmax", nanv.argmax())
    rec("nan_topk", nanv.topk(2).values)
    # -0.0 and 0.0 compare equal: stable keeps order
    z = lib.tensor([0.0, -0.0, 0.0, -0.0], dtype=dt)
    rec("zero_sort", z.sort(stable=True).indices)


def p_ignore_masks(lib, dt, rec):
    F = lib.nn.functional
    # labels -1 mark padded items (the allRank convention)
    y = lib.tensor([[3, 2, 0, -1, -1], [1, 0, 2, 1, 0], [-1, -1, -1, -1, -1]])
    s0 = _randn(lib, dt, 81, 3, 5)
    mask = y != -1
    s = s0.clone().requires_grad_(True)
    yt = y.to(dt)
    # pairwise RankNet over valid pairs only, per query then averaged over non-empty queries
    valid = mask[:, :, None] & mask[:, None, :] & (y[:, :, None] > y[:, None, :])
    diff = s[:, :, None] - s[:, None, :]
    per = F.softplus(-diff) * valid
    npairs = valid.sum((1, 2))
    per_q = per.sum((1, 2)) / npairs.clamp(min=1)
    loss = per_q[npairs > 0].mean()
    loss.backward()
    rec("npairs", npairs)
    rec("per_q", per_q)
    rec("loss", loss)
    rec("grad", s.grad)
    # ListNet with the mask and a fully-padded query (its loss is excluded before the mean)
    s2 = s0.clone().requires_grad_(True)
    logits = s2.masked_fill(~mask, float("-inf"))
    tgt = yt.masked_fill(~mask, float("-inf"))
    lp = F.log_softmax(logits, -1)
    pt = F.softmax(tgt, -1)
    loss_q = -(pt * lp).nan_to_num(0.0).sum(-1)
    rec("listnet_q", loss_q)
    loss2 = loss_q[mask.any(-1)].mean()
    loss2.backward()
    rec("listnet_grad", s2.grad)
    # masked_select and masked_scatter round trip
    sel = lib.masked_select(s0, mask)
    rec("masked_select", sel)
    back = lib.zeros_like(s0).masked_scatter(mask, sel * 2)
    rec("masked_scatter", back)
    # cross_entropy with ignore_index on the top-1 label (the "softmax over list" classification)
    target = lib.where(mask.any(-1), yt.argmax(-1), lib.tensor(-100))
    s3 = s0.clone().requires_grad_(True)
    ce = F.cross_entropy(s3.masked_fill(~mask, -1e4), target, ignore_index=-100)
    ce.backward()
    rec("ce_ignore", ce)
    rec("ce_grad", s3.grad)
    rec("ce_none", F.cross_entropy(s0.masked_fill(~mask, -1e4), target, reduction="none"))


def p_gradcheck(lib, dt, rec):
    if dt != lib.float64:
        rec("skipped", "float32")
        return
    F = lib.nn.functional
    s = _randn(lib, dt, 91, 2, 5).requires_grad_(True)
    y = _labels(lib, 92, 2, 5).to(dt)
    gc = lib.autograd.gradcheck
    ggc = lib.autograd.gradgradcheck
    ranknet = lambda s: F.softplus(-(s[:, :, None] - s[:, None, :]))[  # noqa: E731
        (y[:, :, None] > y[:, None, :])
    ].sum()
    listnet = lambda s: -(F.softmax(y, -1) * F.log_softmax(s, -1)).sum()  # noqa: E731
    listmle = lambda s: _listmle(lib, s, y).sum()  # noqa: E731
    mrl = lambda a: F.margin_ranking_loss(a[0], a[1], lib.sign(y[0] - y[1]), margin=0.2)  # noqa: E731
    approx = lambda s: lib.sigmoid(s[:, None, :] - s[:, :, None]).sum(-1)  # noqa: E731
    lcse = lambda s: lib.logcumsumexp(s, dim=1)  # noqa: E731
    for name, fn in [("ranknet", ranknet), ("listnet", listnet), ("listmle", listmle),
                     ("mrl", mrl), ("approx", approx), ("lcse", lcse)]:  # fmt: skip
        rec(f"gc.{name}", gc(fn, (s,)))
        rec(f"ggc.{name}", ggc(fn, (s,)))
    # logcumsumexp with -inf (padded) entries and along dim 0
    pad = s.detach().clone()
    pad[0, 3:] = float("-inf")
    rec("lcse_pad", lib.logcumsumexp(pad, 1))
    rec("lcse_dim0", lib.logcumsumexp(s.detach(), 0))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    s = _randn(lib, dt, 101, 3, 5)
    idx = lib.tensor([[0, 1], [2, 3], [4, 0]])
    rec.err("sort_dim", lambda: s.sort(dim=2))
    rec.err("sort_dim_neg", lambda: lib.sort(s, dim=-3))
    rec.err("argsort_dim", lambda: s.argsort(dim=5, stable=True))
    rec.err("sort_stable_kw", lambda: s.sort(-1, True, True))
    rec.err("sort_pos_dim_stable", lambda: s.sort(-1, descending=True, stable=True))
    rec.err("argsort_pos_dim_stable", lambda: s.argsort(1, stable=True))
    rec.err("torch_argsort_pos_dim_stable", lambda: lib.argsort(s, -1, True, stable=True))
    rec.err("sort_stable_none", lambda: lib.sort(s, stable=None))
    rec.err("gather_float_idx", lambda: s.gather(1, idx.to(dt)))
    rec.err("gather_int32_idx", lambda: s.gather(1, idx.int()))
    rec.err("gather_rank", lambda: s.gather(1, idx[0]))
    rec.err("gather_oob", lambda: s.gather(1, idx + 4))
    rec.err("gather_neg", lambda: s.gather(1, idx - 5))
    rec.err("gather_dim", lambda: s.gather(2, idx))
    rec.err("gather_size", lambda: s.gather(1, lib.zeros(4, 2, dtype=lib.long)))
    rec.err("topk_big", lambda: s.topk(6))
    rec.err("topk_big_dim0", lambda: s.topk(4, dim=0))
    rec.err("topk_neg", lambda: s.topk(-1))
    rec.err("topk_dim", lambda: s.topk(2, dim=3))
    rec.err("topk_float_k", lambda: s.topk(2.0))
    rec.err("topk_int", lambda: lib.topk(idx, 5))
    rec.err("scatter_float_idx", lambda: lib.zeros_like(s).scatter_(1, idx.to(dt), 1.0))
    rec.err("scatter_src_dtype", lambda: lib.zeros_like(idx).scatter_(1, idx, idx.to(dt)))
    rec.err("scatter_oob", lambda: lib.zeros_like(s).scatter_(1, idx + 5, 1.0))
    rec.err("mrl_size", lambda: F.margin_ranking_loss(s, s[:, :4], lib.ones(3, 5, dtype=dt)))
    rec.err("mrl_red", lambda: F.margin_ranking_loss(s, s, s, reduction="avg"))
    rec.err("mrl_dim", lambda: F.margin_ranking_loss(s[0, 0], s[0], s[0]))
    rec.err("lcse_int", lambda: lib.logcumsumexp(idx, 1))
    rec.err("lcse_dim", lambda: lib.logcumsumexp(s, 2))
    rec.err("lcse_nodim", lambda: lib.logcumsumexp(s))
    rec.err("cumsum_dim", lambda: s.cumsum(dim=2))
    rec.err("searchsorted_shape", lambda: lib.searchsorted(s.sort().values, s[:2]))
    rec.err("searchsorted_dtype", lambda: lib.searchsorted(s.sort().values, idx))
    rec.err("searchsorted_side", lambda: lib.searchsorted(s[0], s[0], side="middle"))
    rec.err(
        "searchsorted_side_right", lambda: lib.searchsorted(s[0], s[0], right=False, side="right")
    )
    rec.err("triu_1d", lambda: lib.triu(s[0]))
    rec.err("kthvalue_big", lambda: s.kthvalue(6))
    rec.err("softmax_nodim", lambda: F.softmax(s, dim=3))
    rec.err("take_along_dim", lambda: lib.take_along_dim(s, idx.to(dt), dim=1))
    rec.err("argsort_str", lambda: s.argsort(descending="yes"))
    rec.err("flip_dup", lambda: s.flip(0, 0))
    rec.err("flip_dim", lambda: s.flip(2))
    rec.err("index_select_float", lambda: s.index_select(1, idx[0].to(dt)))
    rec.err("masked_fill_float_mask", lambda: s.masked_fill(s, 0.0))
    rec.err("masked_fill_tensor_value", lambda: s.masked_fill(s > 0, s))


def p_searchsorted(lib, dt, rec):
    # rank of a score among a sorted candidate pool: searchsorted; thresholds for recall@score
    pool = _randn(lib, dt, 111, 3, 12).sort(-1).values
    q = _randn(lib, dt, 112, 3, 4)
    rec("left", lib.searchsorted(pool, q))
    rec("right", lib.searchsorted(pool, q, right=True))
    rec("side", lib.searchsorted(pool, q, side="right"))
    rec("int32", lib.searchsorted(pool, q, out_int32=True))
    # exact ties with the pool values
    qt = pool[:, [0, 5, 11]]
    rec("ties_left", lib.searchsorted(pool, qt))
    rec("ties_right", lib.searchsorted(pool, qt, right=True))
    # with a sorter argument (unsorted pool + argsort)
    raw = _randn(lib, dt, 113, 3, 12)
    sorter = raw.argsort(dim=-1, stable=True)
    rec("sorter", lib.searchsorted(raw, q, sorter=sorter))
    # bucketize of scores into grade boundaries
    b = lib.tensor([-1.0, 0.0, 0.5, 1.5], dtype=dt)
    rec("bucketize", lib.bucketize(q, b))
    rec("bucketize_right", lib.bucketize(q, b, right=True))
    # a 1-d sorted sequence with a scalar and a 2-d value tensor
    rec("scalar", lib.searchsorted(b, 0.25))
    rec("1d_2d", lib.searchsorted(b, q))
    # descending pool: rank of each query = count of pool items strictly above
    desc = pool.flip(-1)
    rank = (desc[:, None, :] > q[:, :, None]).sum(-1)
    rec("rank_desc", rank)
    rec("rank_desc_ss", 12 - lib.searchsorted(pool, q, right=True))
    # percentiles of score distributions (quantile with interpolation modes)
    for mode in ("linear", "lower", "higher", "nearest", "midpoint"):
        rec(
            f"quantile.{mode}",
            lib.quantile(raw, lib.tensor([0.1, 0.5, 0.9], dtype=dt), dim=1, interpolation=mode),
        )


def p_rec_metrics(lib, dt, rec):
    # scores over a catalogue with already-seen items removed (-inf) before topk
    n_users, n_items = 4, 15
    scores = _randn(lib, dt, 121, n_users, n_items)
    seen = _rand(lib, dt, 122, n_users, n_items) < 0.3
    truth = (_rand(lib, dt, 123, n_users, n_items) < 0.2) & ~seen
    masked = scores.masked_fill(seen, float("-inf"))
    k = 5
    top = masked.topk(k, dim=1)
    rec("top_v", top.values)
    rec("top_i", top.indices)
    hits = truth.gather(1, top.indices)
    rec("hits", hits)
    rec("recall", hits.sum(1).to(dt) / truth.sum(1).clamp(min=1).to(dt))
    rec("precision", hits.to(dt).mean(1))
    rec(
        "ndcg",
        _dcg(lib, hits.to(dt), dt)
        / _dcg(lib, truth.to(dt).sort(1, descending=True).values[:, :k], dt),
    )
    # the same via scatter into a multi-hot prediction matrix
    pred = lib.zeros_like(truth).scatter_(1, top.indices, True)
    rec("pred", pred)
    rec("tp", (pred & truth).sum(1))
    # isin against a per-user list of held-out ids
    held = lib.tensor([3, 7, 11])
    rec("isin", lib.isin(top.indices, held))
    rec("isin_inv", lib.isin(top.indices, held, invert=True))
    # coverage: distinct recommended items
    uniq = lib.unique(top.indices)
    rec("coverage", uniq.numel() / n_items)
    rec("bincount", lib.bincount(top.indices.flatten(), minlength=n_items))
    # popularity-weighted novelty with log2
    pop = lib.bincount(top.indices.flatten(), minlength=n_items).to(dt) + 1
    rec("novelty", -lib.log2(pop / pop.sum())[top.indices].mean(1))
    # sorted=False topk: only the set is compared
    t2 = masked.topk(k, dim=1, sorted=False)
    rec("unsorted_set", t2.values.sort(1, descending=True).values)
    # largest=False: the worst items
    rec("worst", scores.topk(3, dim=1, largest=False).values)


def p_bpr_mf(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    n_users, n_items, d = 6, 10, 4
    users = lib.nn.Embedding(n_users, d, dtype=dt)
    items = lib.nn.Embedding(n_items, d, dtype=dt)
    bias = lib.nn.Embedding(n_items, 1, dtype=dt)
    with lib.no_grad():
        users.weight.copy_(_randn(lib, dt, 131, n_users, d) * 0.1)
        items.weight.copy_(_randn(lib, dt, 132, n_items, d) * 0.1)
        bias.weight.zero_()
    params = [*users.parameters(), *items.parameters(), *bias.parameters()]
    opt = lib.optim.Adam(params, lr=0.05, weight_decay=1e-4)
    u = lib.tensor([0, 1, 2, 3, 4, 5, 0, 2])
    pos = lib.tensor([1, 2, 3, 4, 5, 6, 7, 8])
    neg = lib.tensor([9, 0, 1, 2, 3, 4, 5, 6])
    for step in range(4):
        opt.zero_grad()
        eu = users(u)
        xp = (eu * items(pos)).sum(-1) + bias(pos).squeeze(-1)
        xn = (eu * items(neg)).sum(-1) + bias(neg).squeeze(-1)
        loss = -F.logsigmoid(xp - xn).mean()
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec("users", users.weight)
    rec("items", items.weight)
    rec("bias", bias.weight)
    # sparse embedding gradients with SGD
    emb = lib.nn.Embedding(n_items, d, sparse=True, dtype=dt)
    with lib.no_grad():
        emb.weight.copy_(_randn(lib, dt, 133, n_items, d))
    sgd = lib.optim.SGD(emb.parameters(), lr=0.1)
    out = emb(pos).sum() - emb(neg).pow(2).sum()
    out.backward()
    rec("sparse_dense_grad", emb.weight.grad.to_dense())
    sgd.step()
    rec("sparse_after", emb.weight)
    # full scoring with matmul, then recommend the top 3 excluding training positives
    sc = users.weight @ items.weight.t() + bias.weight.t()
    sc = sc.detach().index_put((u, pos), lib.tensor(float("-inf"), dtype=dt))
    rec("full_scores", sc)
    rec("recs", sc.topk(3, dim=1).indices)


def p_neuralsort(lib, dt, rec):
    # NeuralSort's relaxed permutation matrix (Grover et al.)
    s0 = _randn(lib, dt, 141, 2, 5)
    s = s0.clone().requires_grad_(True)
    n = 5
    tau = 0.5
    su = s.unsqueeze(-1)
    a = (su - su.transpose(1, 2)).abs()
    bsum = a.sum(-1, keepdim=True).expand(-1, -1, n)  # (B, n, n)
    scaling = n + 1 - 2 * (lib.arange(n, dtype=dt) + 1)
    c = su * scaling  # (B, n, n): s_i * (n + 1 - 2j)
    p_max = (c - bsum).transpose(1, 2)  # row j over items
    p_hat = lib.softmax(p_max / tau, dim=-1)
    rec("p_hat", p_hat)
    rec("rowsum", p_hat.sum(-1))
    y = _labels(lib, 142, 2, 5).to(dt)
    sorted_y = lib.bmm(p_hat, y.unsqueeze(-1)).squeeze(-1)
    gains = (2.0**sorted_y - 1.0) / lib.log2(lib.arange(2, n + 2, dtype=dt))
    ideal = y.sort(-1, descending=True).values
    idcg = ((2.0**ideal - 1.0) / lib.log2(lib.arange(2, n + 2, dtype=dt))).sum(-1)
    ndcg = gains.sum(-1) / idcg
    (-ndcg.mean()).backward()
    rec("ndcg", ndcg)
    rec("grad", s.grad)
    # the hard permutation: argmax of rows equals the descending argsort
    rec("hard", p_hat.argmax(-1))
    rec("argsort", s0.argsort(-1, descending=True))
    # straight-through estimator with one_hot
    s2 = s0.clone().requires_grad_(True)
    soft = lib.softmax((s2.unsqueeze(-1) * scaling - bsum.detach()).transpose(1, 2) / tau, -1)
    hard = lib.nn.functional.one_hot(soft.argmax(-1), n).to(dt)
    st = hard - soft.detach() + soft
    (st @ y.unsqueeze(-1)).sum().backward()
    rec("st_grad", s2.grad)


def p_multilabel_margin(lib, dt, rec):
    F = lib.nn.functional
    x0 = _randn(lib, dt, 151, 3, 6)
    # targets: relevant class ids, padded by -1
    tgt = lib.tensor([[3, 0, -1, 1, 2, 5], [1, 2, 4, 5, 0, -1], [-1, 0, 0, 0, 0, 0]])
    for red in ("mean", "sum", "none"):
        x = x0.clone().requires_grad_(True)
        out = F.multilabel_margin_loss(x, tgt, reduction=red)
        out.sum().backward()
        rec(f"mlm.{red}", out)
        rec(f"mlm.{red}.g", x.grad)
    x = x0[0].clone().requires_grad_(True)
    out = F.multilabel_margin_loss(x, tgt[0])
    out.backward()
    rec("mlm_1d", out)
    rec("mlm_1d_g", x.grad)
    multi = (tgt.clamp(min=0) == 1).to(dt)
    multi = lib.zeros(3, 6, dtype=dt).scatter_(1, tgt.clamp(min=0), 1.0)
    for red in ("mean", "none"):
        x = x0.clone().requires_grad_(True)
        out = F.multilabel_soft_margin_loss(x, multi, reduction=red)
        out.sum().backward()
        rec(f"msm.{red}", out)
        rec(f"msm.{red}.g", x.grad)
    w = lib.tensor([1.0, 2.0, 0.5, 1.0, 1.0, 3.0], dtype=dt)
    rec("msm_weight", F.multilabel_soft_margin_loss(x0, multi, weight=w))
    # multi-class hinge with margin p=1 and p=2
    t = lib.tensor([2, 0, 5])
    for p in (1, 2):
        x = x0.clone().requires_grad_(True)
        out = F.multi_margin_loss(x, t, p=p, margin=0.7)
        out.backward()
        rec(f"mm.p{p}", out)
        rec(f"mm.p{p}.g", x.grad)
    rec.err("mlm_float_target", lambda: F.multilabel_margin_loss(x0, tgt.to(dt)))
    rec.err("mlm_shape", lambda: F.multilabel_margin_loss(x0, tgt[:, :4]))


def p_qid_groups(lib, dt, rec):
    # a flat batch of (qid, score, label) rows grouped by query, as LightGBM-style data arrives
    qid = lib.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2, 3])
    s0 = _randn(lib, dt, 161, 10)
    y = lib.tensor([2, 0, 1, 0, 0, 3, 1, 0, 2, 1]).to(dt)
    s = s0.clone().requires_grad_(True)
    nq = 4
    # segment softmax: subtract the per-query max (scatter_reduce amax), exp, per-query sums
    mx = lib.full((nq,), float("-inf"), dtype=dt).scatter_reduce(0, qid, s.detach(), "amax")
    e = (s - mx[qid]).exp()
    den = lib.zeros(nq, dtype=dt).index_add(0, qid, e)
    p = e / den[qid]
    rec("seg_max", mx)
    rec("seg_softmax", p)
    ey = (
        y - lib.zeros(nq, dtype=dt).scatter_reduce(0, qid, y, "amax", include_self=False)[qid]
    ).exp()
    py = ey / lib.zeros(nq, dtype=dt).scatter_add(0, qid, ey)[qid]
    loss = -(py * p.log()).sum() / nq
    loss.backward()
    rec("loss", loss)
    rec("grad", s.grad)
    # group sizes, offsets and per-query means
    counts = lib.bincount(qid)
    rec("counts", counts)
    rec("offsets", lib.cumsum(counts, 0) - counts)
    rec("mean_y", lib.zeros(nq, dtype=dt).scatter_reduce(0, qid, y, "mean", include_self=False))
    rec("unique_consec", lib.unique_consecutive(qid, return_counts=True)[1])
    # split into lists and pad
    parts = lib.split(s0, counts.tolist())
    padded = lib.nn.utils.rnn.pad_sequence(parts, batch_first=True, padding_value=float("-inf"))
    rec("padded", padded)
    # same-query pair mask
    same = qid[:, None] == qid[None, :]
    pairs = same & (y[:, None] > y[None, :])
    rec("pair_count", pairs.sum())
    idx_i, idx_j = pairs.nonzero(as_tuple=True)
    rec("pairs_i", idx_i)
    rec("pairs_j", idx_j)
    s2 = s0.clone().requires_grad_(True)
    l2 = lib.nn.functional.softplus(s2[idx_j] - s2[idx_i]).mean()
    l2.backward()
    rec("pair_loss", l2)
    rec("pair_grad", s2.grad)
    # index_reduce of the max label per query
    rec("index_reduce", lib.zeros(nq, dtype=dt).index_reduce(0, qid, y, "amax", include_self=False))
    rec("segment_reduce_max", lib.segment_reduce(y, "max", lengths=counts))


def p_logcumsumexp_edges(lib, dt, rec):
    x0 = lib.tensor([[0.5, float("-inf"), 1.0, float("-inf")],
                     [float("-inf"), float("-inf"), 2.0, 0.0],
                     [float("-inf")] * 4,
                     [30.0, -30.0, 29.0, 1e-3]], dtype=dt)  # fmt: skip
    x = x0.clone().requires_grad_(True)
    out = lib.logcumsumexp(x, dim=1)
    rec("out", out)
    w = _randn(lib, dt, 171, 4, 4)
    (out * w).sum().backward()
    rec("grad", x.grad)
    rec("flip_rev", lib.logcumsumexp(x0.flip(1), 1).flip(1))
    rec("dim0", lib.logcumsumexp(x0, 0))
    rec("dim_neg", x0.logcumsumexp(-1))
    rec("inf", lib.logcumsumexp(lib.tensor([1.0, float("inf"), 2.0], dtype=dt), 0))
    rec("nan", lib.logcumsumexp(lib.tensor([1.0, float("nan"), 2.0], dtype=dt), 0))
    rec("empty", lib.logcumsumexp(lib.zeros(0, 3, dtype=dt), 0))
    rec("zero_d", lib.logcumsumexp(lib.tensor(1.5, dtype=dt), 0))
    # out= variant and dtype
    o = lib.empty(4, 4, dtype=dt)
    lib.logcumsumexp(x0, 1, out=o)
    rec("out_kw", o)
    # large magnitudes: no overflow
    big = _randn(lib, dt, 172, 2, 6) * 300
    bg = big.clone().requires_grad_(True)
    ob = lib.logcumsumexp(bg, 1)
    ob.sum().backward()
    rec("big", ob)
    rec("big_grad", bg.grad)
    # cumulative logsumexp via logaddexp.accumulate-style loop
    acc = big[:, 0]
    outs = [acc]
    for i in range(1, 6):
        acc = lib.logaddexp(acc, big[:, i])
        outs.append(acc)
    rec("logaddexp_loop", lib.stack(outs, 1))


def p_train_lambdamart(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(3)
    feats = _randn(lib, dt, 181, 4, 6, 5)
    y = _labels(lib, 182, 4, 6).to(dt)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt)
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(_randn(lib, dt, 190 + i, *p.shape) * 0.3)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        opt.zero_grad()
        s = model(feats).squeeze(-1)
        with lib.no_grad():
            w, _ = _ndcg_weights(lib, s, y, dt)
        diff = s[:, :, None] - s[:, None, :]
        pos = (y[:, :, None] > y[:, None, :]).to(dt)
        loss = (w * pos * F.softplus(-diff)).sum((1, 2)).mean()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", model, grads=True)
    # evaluation ndcg@3 after training
    with lib.no_grad():
        s = model(feats).squeeze(-1)
        top = s.topk(3, -1).indices
        ndcg = _dcg(lib, y.gather(-1, top), dt) / _dcg(
            lib, y.sort(-1, descending=True).values[:, :3], dt
        )
    rec("ndcg3", ndcg)


def p_topk_variants(lib, dt, rec):
    x = _randn(lib, dt, 201, 3, 7)
    rec("k0", x.topk(0, dim=1).values)
    rec("k0_idx", x.topk(0, dim=1).indices)
    rec("kall", x.topk(7).indices)
    rec("dim0", x.topk(2, dim=0).indices)
    rec("noncontig", x.t().topk(2, dim=0).indices)
    r = lib.topk(x, 3, largest=False, sorted=True)
    rec("smallest", r.values)
    rec("smallest_i", r.indices)
    rec("type", type(r).__name__)
    rec("fields", str(r._fields) if hasattr(r, "_fields") else "none")
    v, i = x.topk(2)
    rec("unpack", v - x.gather(1, i))
    # out= tuple
    vo = lib.empty(0, dtype=dt)
    io = lib.empty(0, dtype=lib.long)
    lib.topk(x, 2, out=(vo, io))
    rec("out_v", vo)
    rec("out_i", io)
    # topk gradient scatters back to the chosen positions
    xg = x.clone().requires_grad_(True)
    xg.topk(3, dim=1).values.pow(2).sum().backward()
    rec("grad", xg.grad)
    # sort gradient
    xs = x.clone().requires_grad_(True)
    vs = xs.sort(dim=1, descending=True).values
    (vs * lib.arange(7, dtype=dt)).sum().backward()
    rec("sort_grad", xs.grad)
    # kthvalue / median as rank cutoffs
    kv = x.kthvalue(3, dim=1)
    rec("kth_v", kv.values)
    rec("kth_i", kv.indices)
    rec("median", x.median(dim=1).values)
    rec("0d_topk", lib.tensor(2.0, dtype=dt).topk(1).values)
    rec("1d_topk_k0", lib.tensor([1.0, 2.0], dtype=dt).topk(0).values)
    rec("int_topk", lib.tensor([[3, 1, 2, 5]]).topk(2).values)
    # 0-d tensor k
    rec("tensor_k", x.topk(lib.tensor(2)).values)


def p_double_backward(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 211, 2, 5)
    y = _labels(lib, 212, 2, 5).to(dt)
    # gradient penalty on a listwise loss: create_graph through log_softmax and logcumsumexp
    s = s0.clone().requires_grad_(True)
    loss = -(F.softmax(y, -1) * F.log_softmax(s, -1)).sum() + _listmle(lib, s, y).sum()
    (g,) = lib.autograd.grad(loss, s, create_graph=True)
    pen = g.pow(2).sum()
    pen.backward()
    rec("g", g)
    rec("pen", pen)
    rec("gg", s.grad)
    # Hessian-vector product of a pairwise loss
    s2 = s0.clone().requires_grad_(True)
    l2 = F.softplus(-(s2[:, :, None] - s2[:, None, :]))[(y[:, :, None] > y[:, None, :])].sum()
    (g2,) = lib.autograd.grad(l2, s2, create_graph=True)
    v = _randn(lib, dt, 213, 2, 5)
    (hv,) = lib.autograd.grad((g2 * v).sum(), s2)
    rec("hvp", hv)
    # full hessian via torch.autograd.functional
    h = lib.autograd.functional.hessian(lambda t: _listmle(lib, t, y[0]).sum(), s0[0])
    rec("hessian", h)
    # margin ranking double backward
    a = s0[0].clone().requires_grad_(True)
    b = s0[1].clone().requires_grad_(True)
    m = F.margin_ranking_loss(a, b, lib.sign(y[0] - y[1]), margin=0.5, reduction="sum")
    (ga, gb) = lib.autograd.grad(m, (a, b), create_graph=True)
    rec("mrl_ga", ga)
    rec("mrl_ga_requires_grad", ga.requires_grad)


def p_ranks_scatter(lib, dt, rec):
    s = _randn(lib, dt, 221, 3, 6)
    order = s.argsort(dim=-1, descending=True)
    n = s.shape[-1]
    ar = lib.arange(n).expand(3, n)
    r1 = lib.empty_like(order).scatter_(1, order, ar)
    r2 = order.argsort(dim=-1)
    r3 = lib.zeros_like(order).scatter(1, order, ar)
    r4 = lib.zeros(3, n, dtype=lib.long)
    r4[lib.arange(3)[:, None], order] = ar
    rec("r1", r1)
    rec("r2", r2)
    rec("r3", r3)
    rec("r4", r4)
    # scatter_add of per-rank discount to item positions
    disc = 1.0 / lib.log2(lib.arange(n, dtype=dt) + 2)
    rec("disc_item", lib.zeros(3, n, dtype=dt).scatter_add(1, order, disc.expand(3, n)))
    # scatter with reduce="add"/"multiply" and a scalar value
    rec("scatter_reduce_add", lib.ones(3, n, dtype=dt).scatter(1, order[:, :2], 2.0, reduce="add"))
    rec(
        "scatter_reduce_mul",
        lib.ones(3, n, dtype=dt).scatter(1, order[:, :2], 3.0, reduce="multiply"),
    )
    # take_along_dim spelling
    rec("take_along", lib.take_along_dim(s, order, dim=1))
    rec("take_along_flat", lib.take_along_dim(s, order.flatten()[:4]))
    # gradient through gather with repeated indices (a rank list sampled with replacement)
    sg = s.clone().requires_grad_(True)
    idx = lib.tensor([[0, 0, 1], [2, 2, 2], [5, 4, 5]])
    sg.gather(1, idx).mul(lib.tensor([1.0, 2.0, 3.0], dtype=dt)).sum().backward()
    rec("gather_grad", sg.grad)
    # scatter gradient (src and self)
    src = _randn(lib, dt, 222, 3, 2).requires_grad_(True)
    base = lib.zeros(3, n, dtype=dt, requires_grad=True)
    out = base.scatter(1, order[:, :2], src)
    (out * _randn(lib, dt, 223, 3, n)).sum().backward()
    rec("scatter_g_src", src.grad)
    rec("scatter_g_self", base.grad)


def p_cosine_embedding(lib, dt, rec):
    F = lib.nn.functional
    a0 = _randn(lib, dt, 231, 4, 6)
    b0 = _randn(lib, dt, 232, 4, 6)
    t = lib.tensor([1, -1, 1, -1])
    for red in ("mean", "none"):
        a = a0.clone().requires_grad_(True)
        b = b0.clone().requires_grad_(True)
        out = F.cosine_embedding_loss(a, b, t.to(dt), margin=0.2, reduction=red)
        out.sum().backward()
        rec(f"cel.{red}", out)
        rec(f"cel.{red}.ga", a.grad)
        rec(f"cel.{red}.gb", b.grad)
    # triplet ranking with a margin and distance functions
    anchor = a0.clone().requires_grad_(True)
    pos = b0 * 0.5 + a0 * 0.5
    neg = _randn(lib, dt, 233, 4, 6)
    tl = F.triplet_margin_loss(anchor, pos, neg, margin=1.0, p=2, swap=True)
    tl.backward()
    rec("triplet", tl)
    rec("triplet_g", anchor.grad)
    anchor.grad = None
    cos_d = lambda x, y: 1.0 - F.cosine_similarity(x, y)  # noqa: E731
    tl2 = F.triplet_margin_with_distance_loss(anchor, pos, neg, distance_function=cos_d, margin=0.3)
    tl2.backward()
    rec("triplet_cos", tl2)
    rec("triplet_cos_g", anchor.grad)
    # soft margin loss on pairwise differences
    d = a0[:, 0] - b0[:, 0]
    rec("soft_margin", F.soft_margin_loss(d, t.to(dt)))
    rec("hinge_embedding", F.hinge_embedding_loss(d, t.to(dt), margin=0.5))
    rec.err("cel_target_int", lambda: F.cosine_embedding_loss(a0, b0, t))
    rec.err("cel_shape", lambda: F.cosine_embedding_loss(a0, b0[:, :5], t.to(dt)))


def p_sparse_embeddings(lib, dt, rec):
    # the optimizers torch allows on an Embedding(sparse=True)'s gradients
    g = _gen(lib, 241)
    configs = [
        ("SparseAdam", {}),
        ("Adagrad", {"lr_decay": 0.01}),
        ("SGD", {"momentum": 0.9}),
        ("SGD", {"momentum": 0.9, "nesterov": True, "maximize": True}),
    ]
    for name, kw in configs:
        emb = lib.nn.Embedding(8, 3, sparse=True, dtype=dt)
        with lib.no_grad():
            emb.weight.copy_(lib.randn(8, 3, generator=g, dtype=dt))
        opt = getattr(lib.optim, name)(emb.parameters(), lr=0.1, **kw)
        for step in range(3):
            opt.zero_grad()
            idx = lib.tensor([[1, 2, 2], [5, 1, 0]]) if step != 1 else lib.tensor([[7, 7]])
            loss = emb(idx).pow(2).sum()
            loss.backward()
            opt.step()
        tag = name + "." + ".".join(kw)
        rec(tag + ".w", emb.weight)
        rec(tag + ".state", str(sorted(opt.state[emb.weight].keys())))
    # EmbeddingBag with per_sample_weights and padding_idx; Embedding with max_norm
    bag = lib.nn.EmbeddingBag(10, 4, mode="sum", padding_idx=0, dtype=dt)
    with lib.no_grad():
        bag.weight.copy_(lib.randn(10, 4, generator=g, dtype=dt))
    inp = lib.tensor([1, 0, 3, 4, 4, 9])
    off = lib.tensor([0, 2, 5])
    psw = lib.randn(6, generator=g, dtype=dt)
    out = bag(inp, off, per_sample_weights=psw)
    out.sum().backward()
    rec("bag", out)
    rec("bag_g", bag.weight.grad)
    e = lib.nn.Embedding(10, 4, max_norm=1.0, dtype=dt)
    with lib.no_grad():
        e.weight.copy_(lib.randn(10, 4, generator=g, dtype=dt) * 2)
    o = e(lib.tensor([1, 2, 2, 5]))
    rec("maxnorm_out", o)
    rec("maxnorm_w", e.weight)


def p_plackett_luce(lib, dt, rec):
    F = lib.nn.functional
    s0 = _randn(lib, dt, 251, 2, 6)
    # Gumbel-max sampling of rankings: argsort of s + Gumbel noise
    u = _rand(lib, dt, 252, 4, 2, 6).clamp(1e-9, 1 - 1e-9)
    gumbel = -lib.log(-lib.log(u))
    perms = (s0.unsqueeze(0) + gumbel).argsort(dim=-1, descending=True)
    rec("perms", perms)
    # log-likelihood of each sampled ranking under PL(s): sum_i s_pi(i) - logsumexp(s_pi(i:))
    s = s0.clone().requires_grad_(True)
    ss = s.unsqueeze(0).expand(4, 2, 6).gather(-1, perms)
    ll = (ss - lib.logcumsumexp(ss.flip(-1), -1).flip(-1)).sum(-1)
    rec("ll", ll)
    # REINFORCE (PG-Rank): reward = DCG of the sampled ranking, baseline = the mean
    y = _labels(lib, 253, 2, 6).to(dt)
    rel = y.unsqueeze(0).expand(4, 2, 6).gather(-1, perms)
    reward = _dcg(lib, rel, dt)
    adv = reward - reward.mean(0, keepdim=True)
    loss = -(adv.detach() * ll).mean()
    loss.backward()
    rec("reward", reward)
    rec("pg_grad", s.grad)
    # sampling without replacement by multinomial over softmax(s)
    probs = F.softmax(s0, -1)
    rec("multinomial", lib.multinomial(probs, 6, generator=_gen(lib, 254)))
    rec("multinomial_3", lib.multinomial(probs, 3, generator=_gen(lib, 255)))
    rec("multinomial_rep", lib.multinomial(probs, 8, replacement=True, generator=_gen(lib, 256)))
    # the first-position marginal by the Gumbel trick vs the softmax
    big = _rand(lib, dt, 257, 4000, 6).clamp(1e-9, 1 - 1e-9)
    top1 = (s0[0] - lib.log(-lib.log(big))).argmax(-1)
    rec("top1_freq", lib.bincount(top1, minlength=6).to(dt) / 4000)
    rec("softmax", probs[0])


def p_softsort(lib, dt, rec):
    s0 = _randn(lib, dt, 261, 2, 5)
    y = _labels(lib, 262, 2, 5).to(dt)
    for tau in (1.0, 0.1):
        s = s0.clone().requires_grad_(True)
        sorted_s = s.sort(dim=-1, descending=True).values
        p = lib.softmax(-(sorted_s.unsqueeze(-1) - s.unsqueeze(-2)).abs() / tau, dim=-1)
        est = (p @ y.unsqueeze(-1)).squeeze(-1)
        disc = 1.0 / lib.log2(lib.arange(2, 7, dtype=dt))
        ndcg = ((2**est - 1) * disc).sum(-1)
        ndcg.sum().backward()
        rec(f"p.{tau}", p)
        rec(f"est.{tau}", est)
        rec(f"grad.{tau}", s.grad)
    # Sinkhorn normalisation of exp(-cost / eps): rows and columns sum to one
    cost = (s0.unsqueeze(-1) - lib.arange(5, dtype=dt)).pow(2)
    logk = -cost / 0.5
    for _ in range(20):
        logk = logk - lib.logsumexp(logk, dim=-1, keepdim=True)
        logk = logk - lib.logsumexp(logk, dim=-2, keepdim=True)
    pk = logk.exp()
    rec("sinkhorn", pk)
    rec("sinkhorn_rows", pk.sum(-1))
    rec("sinkhorn_assign", pk.argmax(-1))


def p_lambdaloss(lib, dt, rec):
    # NDCG-Loss2++ (Wang et al., the LambdaLoss framework) on padded lists
    s0 = _randn(lib, dt, 271, 3, 6)
    y = lib.tensor([[3, 2, 1, 0, 0, -1], [1, 1, 0, 2, -1, -1], [0, 0, 0, 0, 0, 0]]).to(dt)
    mask = y != -1
    s = s0.clone().requires_grad_(True)
    eps = 1e-10
    ranked = s.masked_fill(~mask, float("-inf"))
    sorted_s, idx = ranked.sort(dim=-1, descending=True)
    true_sorted = y.gather(1, idx)
    pairs_mask = lib.isfinite(true_sorted[:, :, None] - true_sorted[:, None, :])
    pairs_mask = pairs_mask & (true_sorted[:, :, None] != -1) & (true_sorted[:, None, :] != -1)
    pos = lib.arange(1, 7, dtype=dt)
    dist = (pos[:, None] - pos[None, :]).abs()
    d = 1.0 / lib.log2(1.0 + dist)
    d = lib.where(lib.eye(6, dtype=lib.bool), lib.zeros((), dtype=dt), d)
    dp = 1.0 / lib.log2(2.0 + dist)
    delta = (d - dp).abs()
    gains = 2 ** true_sorted.clamp(min=0) - 1
    gd = (gains[:, :, None] - gains[:, None, :]).abs()
    ideal = y.clamp(min=0).sort(dim=-1, descending=True).values
    maxdcg = ((2**ideal - 1) / lib.log2(pos + 1)).sum(-1).clamp(min=eps)
    gd = gd / maxdcg[:, None, None]
    w = (0.5 * gd * delta + gd * (d - 0.0)) * pairs_mask.to(dt)
    diffs = (sorted_s[:, :, None] - sorted_s[:, None, :]).nan_to_num(nan=0.0)
    diffs = diffs.clamp(min=-1e8, max=1e8)
    probs = lib.sigmoid(diffs).clamp(min=eps) ** w
    better = (true_sorted[:, :, None] > true_sorted[:, None, :]) & pairs_mask
    loss = -lib.log2(probs[better]).sum() / 3
    loss.backward()
    rec("idx", idx)
    rec("w", w)
    rec("loss", loss)
    rec("grad", s.grad)


def p_sampled_softmax(lib, dt, rec):
    F = lib.nn.functional
    # two-tower in-batch negatives with the logQ correction and accidental-hit masking
    q0 = F.normalize(_randn(lib, dt, 281, 6, 8), dim=-1)
    k0 = F.normalize(_randn(lib, dt, 282, 6, 8), dim=-1)
    item_ids = lib.tensor([4, 9, 4, 2, 7, 9])
    freq = lib.tensor([0.05, 0.2, 0.05, 0.1, 0.02, 0.2], dtype=dt)
    q = q0.clone().requires_grad_(True)
    k = k0.clone().requires_grad_(True)
    logits = q @ k.t() / 0.07 - lib.log(freq)[None, :]
    hit = (item_ids[:, None] == item_ids[None, :]) & ~lib.eye(6, dtype=lib.bool)
    logits = logits.masked_fill(hit, float("-inf"))
    target = lib.arange(6)
    loss = F.cross_entropy(logits, target)
    loss.backward()
    rec("logits", logits)
    rec("loss", loss)
    rec("gq", q.grad)
    rec("gk", k.grad)
    for ls in (0.1, 0.3):
        rec(f"ls.{ls}", F.cross_entropy(logits.detach(), target, label_smoothing=ls))
    rec("ls_none", F.cross_entropy(logits.detach(), target, label_smoothing=0.1, reduction="none"))
    # recall@1 of the in-batch retrieval and the rank of the positive
    pos = logits.detach().diagonal()
    rank = (logits.detach() > pos[:, None]).sum(-1)
    rec("rank", rank)
    rec("acc", (logits.detach().argmax(-1) == target).to(dt).mean())
    # a mixed negative: a shared random pool concatenated after the batch
    pool = F.normalize(_randn(lib, dt, 283, 10, 8), dim=-1)
    allk = lib.cat([k0, pool], 0)
    lg = q0 @ allk.t()
    rec("mixed", F.cross_entropy(lg / 0.1, target))
    rec("mixed_top3", lg.topk(3, dim=-1).indices)


def _trapz_auc(lib, scores, labels, dt):
    order = scores.argsort(descending=True, stable=True)
    lab = labels[order].to(dt)
    tps = lab.cumsum(0)
    fps = (1 - lab).cumsum(0)
    # keep the last of each run of equal scores (sklearn's thresholds)
    ss = scores[order]
    keep = lib.cat([ss[1:] != ss[:-1], lib.tensor([True])])
    tps, fps = tps[keep], fps[keep]
    zero = lib.zeros(1, dtype=dt)
    tpr = lib.cat([zero, tps / tps[-1]])
    fpr = lib.cat([zero, fps / fps[-1]])
    return lib.trapezoid(tpr, fpr), tpr, fpr


def p_auc(lib, dt, rec):
    scores = (_rand(lib, dt, 291, 40) * 8).round() / 8  # ties
    labels = _rand(lib, dt, 292, 40) < 0.4
    auc, tpr, fpr = _trapz_auc(lib, scores, labels, dt)
    rec("auc", auc)
    rec("tpr", tpr)
    rec("fpr", fpr)
    # pairwise AUC with ties counted as one half
    pos = scores[labels]
    neg = scores[~labels]
    cmp = (pos[:, None] > neg[None, :]).to(dt) + 0.5 * (pos[:, None] == neg[None, :]).to(dt)
    rec("pair_auc", cmp.mean())
    # average precision at the distinct thresholds
    order = scores.argsort(descending=True, stable=True)
    ss = scores[order]
    lab = labels[order].to(dt)
    last = lib.cat([ss[1:] != ss[:-1], lib.tensor([True])])
    tps = lab.cumsum(0)[last]
    n = lib.arange(1, 41, dtype=dt)[last]
    precision = tps / n
    recall = tps / tps[-1]
    ap = ((recall - lib.cat([lib.zeros(1, dtype=dt), recall[:-1]])) * precision).sum()
    rec("ap", ap)
    rec("recall_diff", lib.diff(recall, prepend=lib.zeros(1, dtype=dt)))
    # unique_consecutive over the sorted scores: thresholds and run lengths
    thr, counts = lib.unique_consecutive(ss, return_counts=True)
    rec("thr", thr)
    rec("counts", counts)
    rec("cumulative_trapezoid", lib.cumulative_trapezoid(tpr, fpr))
    # a differentiable surrogate: the WMW statistic with a sigmoid
    sc = scores.clone().requires_grad_(True)
    surr = lib.sigmoid((sc[labels][:, None] - sc[~labels][None, :]) / 0.1).mean()
    surr.backward()
    rec("surr", surr)
    rec("surr_grad", sc.grad)


def p_fm_model(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    # a factorization machine with a deep part (DeepFM) over 3 categorical fields, trained by
    # BCE on clicks for a few Adam steps
    g = _gen(lib, 301)
    n_feat, k = 20, 4
    lin = nn.Embedding(n_feat, 1, dtype=dt)
    v = nn.Embedding(n_feat, k, dtype=dt)
    mlp = nn.Sequential(nn.Linear(3 * k, 8), nn.ReLU(), nn.Linear(8, 1)).to(dt)
    params = [*lin.parameters(), *v.parameters(), *mlp.parameters()]
    with lib.no_grad():
        for p in params:
            p.copy_(lib.randn(p.shape, generator=g, dtype=dt) * 0.2)
    bias = nn.Parameter(lib.zeros(1, dtype=dt))
    opt = lib.optim.Adam([*params, bias], lr=0.02)
    x = lib.randint(0, n_feat, (16, 3), generator=g)
    clicks = (lib.rand(16, generator=g, dtype=dt) < 0.3).to(dt)
    for step in range(4):
        opt.zero_grad()
        e = v(x)  # (B, 3, k)
        inter = 0.5 * (e.sum(1).pow(2) - e.pow(2).sum(1)).sum(1)
        logit = bias + lin(x).sum((1, 2)) + inter + mlp(e.flatten(1)).squeeze(-1)
        loss = F.binary_cross_entropy_with_logits(logit, clicks)
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("bias", bias)
    rec("v", v.weight)
    with lib.no_grad():
        p = lib.sigmoid(logit)
    auc, _, _ = _trapz_auc(lib, p, clicks > 0, dt)
    rec("auc", auc)
    rec("logloss", F.binary_cross_entropy(p, clicks))


def p_gru4rec(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    # session-based recommendation: an embedding + GRU over padded sessions, scored against all
    # items, BPR-max loss over in-batch negatives, Adagrad steps
    lib.manual_seed(0)
    n_items, d = 12, 6
    emb = nn.Embedding(n_items, d, padding_idx=0, dtype=dt)
    gru = nn.GRU(d, d, batch_first=True, dtype=dt)
    g = _gen(lib, 311)
    with lib.no_grad():
        for p in [*emb.parameters(), *gru.parameters()]:
            p.copy_(lib.randn(p.shape, generator=g, dtype=dt) * 0.3)
        emb.weight[0] = 0.0
    opt = lib.optim.Adagrad([*emb.parameters(), *gru.parameters()], lr=0.05)
    sess = lib.tensor([[3, 5, 7, 0], [2, 2, 9, 11], [4, 1, 0, 0]])
    lens = (sess != 0).sum(1)
    nxt = lib.tensor([8, 6, 10])
    for step in range(3):
        opt.zero_grad()
        packed = nn.utils.rnn.pack_padded_sequence(emb(sess), lens, batch_first=True,
                                                   enforce_sorted=False)  # fmt: skip
        _, h = gru(packed)
        h = h[-1]
        scores = h @ emb.weight.t()  # (B, n_items)
        pos = scores.gather(1, nxt[:, None])
        negs = scores[:, nxt]  # in-batch targets as negatives
        eye = lib.eye(3, dtype=lib.bool)
        negs_m = negs.masked_fill(eye, float("-inf"))
        wts = F.softmax(negs_m, -1)
        bpr_max = -lib.log((wts * lib.sigmoid(pos - negs)).sum(-1) + 1e-24)
        reg = (wts * negs.pow(2)).sum(-1)
        loss = (bpr_max + 0.1 * reg).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("emb", emb.weight)
    rec("gru_w", gru.weight_hh_l0)
    with lib.no_grad():
        packed = nn.utils.rnn.pack_padded_sequence(emb(sess), lens, batch_first=True,
                                                   enforce_sorted=False)  # fmt: skip
        out, h = gru(packed)
        unpacked, ul = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        rec("unpacked", unpacked)
        rec("unpacked_lens", ul)
        scores = h[-1] @ emb.weight.t()
        scores[:, 0] = float("-inf")
        rec("top3", scores.topk(3, -1).indices)
        rec("mrr", (1.0 / (1 + (scores > scores.gather(1, nxt[:, None])).sum(1)).to(dt)).mean())


def p_setrank(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    # a listwise reranker: self-attention over each list with a key padding mask (SetRank-style)
    lib.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0,
                                       batch_first=True, dtype=dt)  # fmt: skip
    head = nn.Linear(8, 1, bias=False, dtype=dt)
    g = _gen(lib, 321)
    with lib.no_grad():
        for p in [*layer.parameters(), *head.parameters()]:
            p.copy_(lib.randn(p.shape, generator=g, dtype=dt) * 0.3)
    x = lib.randn(3, 5, 8, generator=g, dtype=dt)
    pad = lib.tensor(
        [[False] * 5, [False, False, False, True, True], [False, True, True, True, True]]
    )
    y = lib.randint(0, 3, (3, 5), generator=g).to(dt)
    # (SGD: the key bias's and a score bias's gradients are zero up to rounding, which Adam's
    # normalisation would turn into full float32 steps)
    opt = lib.optim.SGD([*layer.parameters(), *head.parameters()], lr=0.1, momentum=0.9)
    for step in range(3):
        opt.zero_grad()
        h = layer(x, src_key_padding_mask=pad)
        s = head(h).squeeze(-1).masked_fill(pad, float("-inf"))
        tgt = F.softmax(y.masked_fill(pad, float("-inf")), -1)
        loss = -(tgt * F.log_softmax(s, -1)).masked_fill(pad, 0.0).sum(-1).mean()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"scores{step}", s)
    rec("head", head.weight)
    layer.eval()
    with lib.no_grad():
        h = layer(x, src_key_padding_mask=pad)
        rec("eval_valid", h[~pad])


# --- argument sweep: calls compiled as written (keywords read from the call), texts compared ---


def _env(lib):
    return {
        "lib": lib,
        "F_": lib.nn.functional,
        "s": lib.tensor([[0.3, 0.1, 0.3, 0.9], [0.5, -0.2, 0.0, 0.5], [0.1, 0.2, 0.3, 0.4]]),
        "y": lib.tensor([[2, 0, 1, 0], [1, 1, 0, 2], [0, 0, 0, 1]]),
        "i": lib.zeros(3, 4, dtype=lib.long),
        "o": lib.empty(0, dtype=lib.long),
        "ov": lib.empty(0),
        "t": lib.tensor([1.0, -1.0, 1.0, -1.0]),
    }


CALLS = [
    # swapped dim and index: the parser reads dim's type first
    "lib.gather(s, i, 1)", "s.gather(i, 1)", "lib.gather(s, i, 1, sparse_grad=True)",
    "lib.scatter_add(s, i, 1, s)", "s.scatter_add(i, 1, s)", "s.clone().scatter_add_(i, 1, s)",
    "s.clone().scatter_add_(dim=i, index=1, src=s)", "s.clone().scatter_(i, 1, s)",
    "s.clone().scatter_(i, 1, 2.0)", "s.scatter(i, 1, s)", "lib.scatter(s, i, 1, s)",
    "s.gather(lib.tensor(1), i)", "s.gather(lib.tensor([1]), i)", "s.gather(1.0, i)",
    "s.clone().scatter_(1, i, s, reduce=1)", "s.scatter(1, i, s, reduce=1)",
    "s.clone().scatter_(1, i, 2.0, reduce='mean')", "s.clone().scatter_(1, i, 'a')",
    "s.scatter_reduce(i, 1, s, 'sum')", "s.clone().index_add_(i, 1, s)",
    # argsort's out= belongs to its stable= overload
    "lib.argsort(s, out=o)", "lib.argsort(s, 1, out=o)", "lib.argsort(s, dim=1, out=o)",
    "lib.argsort(s, dim=1, descending=True, out=o)", "lib.argsort(s, 1, stable=True, out=o)",
    "lib.argsort(s, 1, True, stable=True, out=o)", "lib.argsort(s, stable=None, out=o)",
    "lib.argsort(s, stable=1, out=o)", "lib.argsort(s, out=ov)",
    "lib.argsort(s, stable=True, out=ov)",
    "lib.argsort(s, stable=True, out=(o,))", "lib.argsort(s, stable=True, dim=0, out=o)",
    "lib.sort(s, stable=1, out=(ov, o))", "lib.sort(s, 1, stable=True, out=(ov, o))",
    "lib.sort(s, stable=None, out=(ov, o))", "lib.sort(s, 1, True, out=(ov, o))",
    # positional dim beside stable=
    "s.sort(-1, descending=True, stable=True)", "s.argsort(1, stable=True)",
    "lib.argsort(s, -1, True, stable=True)", "lib.sort(s, 1, True, stable=True)",
    "s.sort(dim=1, stable='x')", "s.argsort(stable='x')", "s.sort(1, 'x')",
    # topk
    "s.topk(5)", "s.topk(4, dim=0)", "s.topk(-1)", "s.topk(2, dim=2)", "s.topk(2.0)",
    "s.topk(lib.tensor(2.0))", "s.topk(None)", "s.topk(2, 1, 'a')", "s.topk(2, sorted='a')",
    "lib.topk(s, 2, out=(ov, lib.empty(0, dtype=lib.int32)))", "lib.topk(s, 2, out=ov)",
    "s.topk(True)", "s.topk(lib.tensor([2]))", "lib.tensor(3.0).topk(2)",
    # gather/scatter index dtypes and shapes
    "s.gather(1, y.float())", "s.gather(1, y.int())", "s.gather(1, y[0])", "s.gather(1, y + 4)",
    "s.gather(2, y)", "s.gather(1, lib.zeros(4, 2, dtype=lib.long))", "s.gather(1, [[0]])",
    "lib.take_along_dim(s, y.float(), dim=1)", "lib.take_along_dim(s, y[:2], dim=1)",
    "s.clone().scatter_(1, y.float(), 1.0)", "y.clone().scatter_(1, y, s)",
    "s.index_select(1, y[0].float())",
    # sort/argsort/logcumsumexp dims
    "s.sort(dim=2)", "lib.sort(s, dim=-3)", "s.argsort(dim=5, stable=True)", "s.sort(dim=None)",
    "lib.logcumsumexp(y, 1)", "lib.logcumsumexp(s, 2)", "lib.logcumsumexp(s, dim=None)",
    "lib.logcumsumexp(s, 1, out=lib.empty(0, dtype=lib.long))", "s.kthvalue(5)",
    # the ranking losses
    "F_.margin_ranking_loss(s, s[:, :3], s)", "F_.margin_ranking_loss(s, s, s, reduction='avg')",
    "F_.margin_ranking_loss(s[0, 0], s[0], s[0])", "F_.margin_ranking_loss(t, t, t.long())",
    "F_.margin_ranking_loss(t, t.double(), t)", "F_.margin_ranking_loss(t, [1.0] * 4, t)",
    "F_.margin_ranking_loss(t, t, t, margin=lib.tensor(0.5))", "lib.nn.MarginRankingLoss()(t, t)",
    "lib.nn.MarginRankingLoss(reduction='avg')", "lib.margin_ranking_loss(t, t, t, 0.0, 1)",
    "F_.multilabel_margin_loss(s, y.float())", "F_.multilabel_margin_loss(s, y[:, :3])",
    "F_.multi_margin_loss(s, y[:, 0], p=3)", "F_.multi_margin_loss(s, y[:, 0].float())",
    "F_.cosine_embedding_loss(s, s, y[:, 0])", "F_.cosine_embedding_loss(s, s[:, :3], t[:3])",
    "F_.hinge_embedding_loss(s, y)", "F_.soft_margin_loss(s, y)",
    # searchsorted and bucketize
    "lib.searchsorted(s, s[:2])", "lib.searchsorted(s, y)",
    "lib.searchsorted(s[0], s[0], side='x')",
    "lib.searchsorted(s[0], s[0], right=False, side='right')", "lib.searchsorted(s, 0.5)",
    "lib.searchsorted(s, s, sorter=y[:, :3])", "lib.searchsorted(s, s, sorter=y.int())",
    "lib.bucketize(s, s)", "lib.bucketize(0.3, s[0])", "lib.searchsorted([0.1], s)",
]  # fmt: skip


def p_arg_sweep(lib, rec):
    run_calls(CALLS, _env(lib), rec)


def test_arg_sweep_matches_torch():
    assert_calls_match(p_arg_sweep, torch)


def p_warnings(lib, dt, rec):
    F = lib.nn.functional
    s = _randn(lib, dt, 331, 3, 4)
    y = F.softmax(s * 2, -1)
    rec.warns("kl_mean", lambda: F.kl_div(F.log_softmax(s, -1), y))
    rec.warns("kl_batchmean", lambda: F.kl_div(F.log_softmax(s, -1), y, reduction="batchmean"))
    rec.warns("mrl_size_average", lambda: F.margin_ranking_loss(s, s, s, size_average=False))
    rec.warns("mrl_module_reduce", lambda: lib.nn.MarginRankingLoss(reduce=False))
    rec.warns("softmax_nodim", lambda: F.softmax(s))
    rec.warns("log_softmax_nodim", lambda: F.log_softmax(s))
    rec.warns("softmin_nodim", lambda: F.softmin(s))
    rec.warns("nn_softmax_nodim", lambda: lib.nn.Softmax()(s))
    rec.warns("mse_bcast", lambda: F.mse_loss(s, s[0:1]))
    rec.warns("l1_bcast", lambda: F.l1_loss(s[:, :1], s))
    rec.warns("smooth_bcast", lambda: F.smooth_l1_loss(s, s[:1]))
    rec.err("bce_shape", lambda: F.binary_cross_entropy_with_logits(s, s[0]))
    rec.warns("ce_probs", lambda: F.cross_entropy(s, y, label_smoothing=0.2))
    rec.warns("sort_bool", lambda: (s > 0).sort(stable=True))
    multi = (y > 0.2).to(dt)
    rec.warns(
        "mlsm_size_average",
        lambda: F.multilabel_soft_margin_loss(s, multi, size_average=True),
    )
    rec("ce_probs_v", F.cross_entropy(s, y, label_smoothing=0.2))
    rec("kl_mean_v", F.kl_div(F.log_softmax(s, -1), y))


def _cutoff(lib, fn, x, dim, keepdim, out):
    """fn's rank cutoff along dim written into out (kthvalue: the 2nd smallest, of a 0-d x the
    1st; topk: the top)."""
    if fn == "kthvalue":
        return lib.kthvalue(x, 2 if x.ndim else 1, dim, keepdim, out=out)
    if fn == "topk":
        return lib.topk(x, 1, dim, out=out)
    return getattr(lib, fn)(x, dim, keepdim, out=out)


def p_cutoff_outs(lib, dt, rec):
    # rank cutoffs written into preallocated out= buffers reused across batches of other sizes
    x = _randn(lib, dt, 341, 2, 5)
    x[0, 3] = x[0, 1]  # a tie
    for fn in ("kthvalue", "mode", "median", "topk"):
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                for shape in ((), (0,), (2,), (3,), (2, 1), (1, 5), (3, 2), (1, 2, 5)):
                    out = (lib.empty(shape, dtype=dt), lib.empty(shape, dtype=lib.long))
                    tag = f"{fn}.{dim}.{int(keepdim)}.{shape}"
                    r = rec.warns(tag, partial(_cutoff, lib, fn, x, dim, keepdim, out))
                    rec(tag + ".type", type(r).__name__)
                    rec(tag + ".v", out[0])
                    rec(tag + ".shape", str(tuple(out[1].shape)))
                    rec(tag + ".stride", str(out[0].stride()))
    # a 0-d input (kthvalue resizes with the warning, mode silently) and empty inputs
    for fn in ("kthvalue", "mode"):
        out = (lib.empty(2, 2, dtype=dt), lib.empty(2, 2, dtype=lib.long))
        rec.warns(fn + ".0d", partial(_cutoff, lib, fn, lib.tensor(2.0, dtype=dt), 0, False, out))
        rec(fn + ".0d.shape", str(tuple(out[0].shape)))
    out = (lib.empty(3, dtype=dt), lib.empty(3, dtype=lib.long))
    rec.warns("mode.empty", partial(_cutoff, lib, "mode", lib.ones(2, 0, dtype=dt), 0, False, out))
    rec("mode.empty.shape", str(tuple(out[0].shape)))
    out = (lib.empty(3, 1, dtype=dt), lib.empty(3, 1, dtype=lib.long))
    x = lib.ones(0, 2, dtype=dt)
    rec.warns("kth.empty", partial(_cutoff, lib, "kthvalue", x, 1, False, out))
    rec("kth.empty.shape", str(tuple(out[0].shape)))


def p_masked_lists(lib, dt, rec):
    # padded lists through torch.masked: softmax/log_softmax/means/maxima over the valid items
    s0 = _randn(lib, dt, 351, 3, 5)
    mask = lib.tensor([[True] * 5, [True, True, False, True, False], [False] * 5])
    y = _labels(lib, 352, 3, 5).to(dt)
    s = s0.clone().requires_grad_(True)
    lp = lib.masked.log_softmax(s, 1, mask=mask)
    pt = lib.masked.softmax(y, 1, mask=mask)
    rec("lp", lp)
    rec("pt", pt)
    loss = -lib.masked.sum(pt * lp, 1, mask=mask)
    rec("loss", loss)
    loss[:2].sum().backward()
    rec("grad", s.grad)
    for name in ("sum", "mean", "amax", "amin", "logsumexp", "prod"):
        rec("red." + name, getattr(lib.masked, name)(s0, 1, mask=mask))
    rec("argmax", lib.masked.argmax(s0, 1, mask=mask))
    rec("var", lib.masked.var(s0, 1, unbiased=False, mask=mask))
    rec("norm", lib.masked.norm(s0, 2, 1, mask=mask))
    rec("cumsum", lib.masked.cumsum(s0, 1, mask=mask))
    rec("normalize", lib.masked.normalize(s0, 2.0, 1, mask=mask))
    rec("mean_all", lib.masked.mean(s0, mask=mask))
    # in-place writes into an expanded rank template: torch's overlap refusal
    order = s0.argsort(dim=1, descending=True)
    template = lib.arange(5).expand(3, 5)
    rec.err("scatter_expanded", lambda: template.scatter_(1, order, order))
    rec.err("add_expanded", lambda: lib.zeros(5, dtype=dt).expand(3, 5).add_(1))
    rec("scatter_clone", template.clone().scatter_(1, order, template))
    rec("scatter_source_expanded", lib.empty_like(order).scatter_(1, order, template))
