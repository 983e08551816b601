"""Session 31 (helper kge): knowledge-graph embedding programs written the way KGE code is written
in torch, run under torch and minitorch with the same seeds and compared record by record:
TransE/TransH/TransR (p=1/2 norms, hyperplane and matrix projections), DistMult, ComplEx with
real and imaginary halves, RotatE with cos/sin phases, ConvE (2-D reshape, conv2d, dropout,
BatchNorm), negative sampling by randint under a generator with head/tail corruption,
self-adversarial weighting by softmax of detached scores, margin_ranking_loss and logsigmoid
losses, nn.Embedding with max_norm (renormalised in forward) and padding_idx, filtered ranking
(scatter of -inf / index_put into known triples, ranks by (scores > target).sum and by argsort,
MRR and Hits@k), N3 and L2 regularisers, training with Adam/SGD, state_dict round trips and the
errors of misused APIs; also TuckER, SimplE/HolE (circular correlation by roll), QuatE,
RESCAL by Bilinear, R-GCN/CompGCN message passing (index_add, scatter_reduce edge softmax),
ConvKB/InteractE (circular padding), double backward of gradient penalties through
embeddings, ties in ranks, samplers and schedulers. float64 must agree to 1e-10 of each record's
scale, float32 to 1e-4; texts exactly.

Known and left:
- float32 sqrt may be an ulp off torch's and float32 sums may differ in the last bits
  (summation order): float32 metrics are computed in the program's dtype.
- kthvalue's index among tied values is unspecified (torch's comes from its quickselect): only
  the values are recorded.
- SparseAdam accepts dense gradients (documented; minitorch has no sparse tensors).
- torch's double backward of embedding ignores scale_grad_by_freq; minitorch now does the same,
  so a second derivative through the first gradient's other inputs is not divided by the counts
  (torch's numbers). The first gradient's grad_fn is named IndexPutImplBackward0 here, torch's
  EmbeddingDenseBackwardBackward0."""

from __future__ import annotations

import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "transe_train", "transh", "transr", "distmult_bce", "complex_n3", "rotate_adv",
    "conve", "filtered_ranks", "argsort_ranks", "max_norm", "padding_idx", "neg_sampling",
    "margin_loss", "state_dict", "errors", "embedding_functional", "bce_1toN", "tucker",
    "grad_checks", "sgd_sparse_like", "ties_and_reprs", "version_errors", "simple_hole",
    "eval_loop", "rescal_bilinear", "n3_module", "sampling_apis", "training_loop_sched",
    "quate", "embedding_misc", "zero_distance_grads", "rgcn_compgcn", "convkb_interacte",
    "pretrained_shared",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---

N_ENT, N_REL, DIM = 12, 4, 6


def _triples(lib, n=20, seed=0):
    g = lib.Generator().manual_seed(seed)
    h = lib.randint(0, N_ENT, (n,), generator=g)
    r = lib.randint(0, N_REL, (n,), generator=g)
    t = lib.randint(0, N_ENT, (n,), generator=g)
    return lib.stack([h, r, t], dim=1)


def _emb(lib, dt, n, d, seed, **kw):
    lib.manual_seed(seed)
    e = lib.nn.Embedding(n, d, **kw).to(dt)
    return e


def _corrupt(lib, triples, g, n_ent):
    """Replaces the head or the tail (a coin per triple) by a random entity."""
    n = triples.shape[0]
    coin = lib.rand(n, generator=g) < 0.5
    rnd = lib.randint(0, n_ent, (n,), generator=g)
    neg = triples.clone()
    neg[:, 0] = lib.where(coin, rnd, triples[:, 0])
    neg[:, 2] = lib.where(coin, triples[:, 2], rnd)
    return neg


# --- the programs: each takes the library, a dtype and a recorder ---


def p_transe_train(lib, dt, rec):
    F = lib.nn.functional
    ent = _emb(lib, dt, N_ENT, DIM, 1)
    rel = _emb(lib, dt, N_REL, DIM, 2)
    bound = 6 / math.sqrt(DIM)
    with lib.no_grad():
        lib.nn.init.uniform_(ent.weight, -bound, bound)
        lib.nn.init.uniform_(rel.weight, -bound, bound)
        rel.weight.copy_(F.normalize(rel.weight, p=2, dim=1))
    opt = lib.optim.Adam(list(ent.parameters()) + list(rel.parameters()), lr=0.01)
    tr = _triples(lib)
    g = lib.Generator().manual_seed(5)
    for p in (1, 2):
        for step in range(6):
            with lib.no_grad():
                ent.weight.data = F.normalize(ent.weight.data, p=2, dim=-1)
            neg = _corrupt(lib, tr, g, N_ENT)

            def score(x, p=p):
                h, r, t = ent(x[:, 0]), rel(x[:, 1]), ent(x[:, 2])
                return lib.norm(h + r - t, p=p, dim=-1)

            pos_d, neg_d = score(tr), score(neg)
            loss = F.margin_ranking_loss(neg_d, pos_d, lib.ones_like(pos_d), margin=1.0)
            opt.zero_grad()
            loss.backward()
            if step == 0:
                rec(f"g_ent{p}", ent.weight.grad)
            opt.step()
            rec(f"loss{p}_{step}", loss)
    rec("ent", ent.weight)
    rec("rel", rel.weight)
    rec("pn", (ent.weight[:3] - rel.weight[:3]).norm(p=1, dim=1))
    rec("cdist", lib.cdist(ent.weight[:4], ent.weight[4:7], p=1))


def p_transh(lib, dt, rec):
    F = lib.nn.functional
    ent = _emb(lib, dt, N_ENT, DIM, 3)
    rel = _emb(lib, dt, N_REL, DIM, 4)
    nrm = _emb(lib, dt, N_REL, DIM, 5)
    tr = _triples(lib, 16, 1)
    g = lib.Generator().manual_seed(7)
    params = [*ent.parameters(), *rel.parameters(), *nrm.parameters()]
    opt = lib.optim.SGD(params, lr=0.05, momentum=0.9)

    def proj(e, w):
        w = F.normalize(w, p=2, dim=-1)
        return e - (e * w).sum(-1, keepdim=True) * w

    for step in range(4):
        neg = _corrupt(lib, tr, g, N_ENT)

        def dist(x):
            w = nrm(x[:, 1])
            h, t = proj(ent(x[:, 0]), w), proj(ent(x[:, 2]), w)
            return (h + rel(x[:, 1]) - t).norm(p=2, dim=-1)

        pd, nd = dist(tr), dist(neg)
        loss = F.relu(pd - nd + 2.0).mean()
        # soft constraints: entity norms <= 1 and orthogonality of d_r and w_r
        scale = F.relu(ent.weight.norm(p=2, dim=1) ** 2 - 1).sum()
        w = nrm.weight
        orth = F.relu((w * rel.weight).sum(1) ** 2 / rel.weight.norm(dim=1) ** 2 - 1e-3).sum()
        total = loss + 0.25 * (scale + orth)
        opt.zero_grad()
        total.backward()
        rec(f"loss{step}", total)
        rec(f"gn{step}", nrm.weight.grad)
        opt.step()
    rec("w", nrm.weight)
    rec("proj", proj(ent.weight[:3], nrm.weight[:1]))


def p_transr(lib, dt, rec):
    F = lib.nn.functional
    k = 4
    ent = _emb(lib, dt, N_ENT, DIM, 6)
    rel = _emb(lib, dt, N_REL, k, 7)
    lib.manual_seed(8)
    mat = lib.nn.Embedding(N_REL, DIM * k).to(dt)
    with lib.no_grad():
        mat.weight.copy_(lib.eye(DIM, k, dtype=dt).reshape(1, -1).repeat(N_REL, 1))
        mat.weight.add_(0.05 * lib.randn(N_REL, DIM * k, dtype=dt))
    tr = _triples(lib, 10, 2)
    g = lib.Generator().manual_seed(9)
    opt = lib.optim.Adam([*ent.parameters(), *rel.parameters(), *mat.parameters()], lr=0.02)
    for step in range(4):
        neg = _corrupt(lib, tr, g, N_ENT)

        def dist(x):
            m = mat(x[:, 1]).view(-1, DIM, k)
            h = lib.bmm(ent(x[:, 0]).unsqueeze(1), m).squeeze(1)
            t = lib.matmul(ent(x[:, 2]).unsqueeze(1), m).squeeze(1)
            h, t = F.normalize(h, 2, -1), F.normalize(t, 2, -1)
            return lib.linalg.vector_norm(h + rel(x[:, 1]) - t, ord=1, dim=-1)

        pd, nd = dist(tr), dist(neg)
        loss = F.margin_ranking_loss(pd, nd, -lib.ones_like(pd), margin=0.5, reduction="sum")
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"gm{step}", mat.weight.grad)
        opt.step()
    rec("mat", mat.weight)
    m = mat.weight.view(N_REL, DIM, k)
    rec("einsum", lib.einsum("nd,rdk->nrk", ent.weight[:3], m))


def p_distmult_bce(lib, dt, rec):
    F = lib.nn.functional
    ent = _emb(lib, dt, N_ENT, DIM, 10)
    rel = _emb(lib, dt, N_REL, DIM, 11)
    lib.nn.init.xavier_normal_(ent.weight)
    lib.nn.init.xavier_uniform_(rel.weight)
    tr = _triples(lib, 16, 3)
    g = lib.Generator().manual_seed(12)
    opt = lib.optim.Adagrad([*ent.parameters(), *rel.parameters()], lr=0.1)
    for step in range(4):
        neg = _corrupt(lib, tr, g, N_ENT)
        both = lib.cat([tr, neg])
        y = lib.cat([lib.ones(len(tr), dtype=dt), lib.zeros(len(neg), dtype=dt)])
        s = (ent(both[:, 0]) * rel(both[:, 1]) * ent(both[:, 2])).sum(-1)
        loss = F.binary_cross_entropy_with_logits(s, y, pos_weight=lib.tensor(2.0, dtype=dt))
        reg = ent.weight.pow(2).mean() + rel.weight.pow(2).mean()
        opt.zero_grad()
        (loss + 0.01 * reg).backward()
        rec(f"loss{step}", loss)
        rec(f"s{step}", s)
        opt.step()
    rec("ent", ent.weight)
    # all-tail scores and a softmax cross-entropy over entities
    q = ent(tr[:, 0]) * rel(tr[:, 1])
    allsc = q @ ent.weight.t()
    rec("ce", F.cross_entropy(allsc, tr[:, 2], label_smoothing=0.1))
    rec("lsm", F.log_softmax(allsc, -1)[:3])


def p_complex_n3(lib, dt, rec):
    F = lib.nn.functional
    rank = 4
    ent = _emb(lib, dt, N_ENT, 2 * rank, 13)
    rel = _emb(lib, dt, N_REL, 2 * rank, 14)
    with lib.no_grad():
        ent.weight.mul_(1e-1)
        rel.weight.mul_(1e-1)
    tr = _triples(lib, 18, 4)
    opt = lib.optim.Adam([ent.weight, rel.weight], lr=0.05, betas=(0.9, 0.99))
    for step in range(5):
        lhs, r, rhs = ent(tr[:, 0]), rel(tr[:, 1]), ent(tr[:, 2])
        lr_, li = lhs[:, :rank], lhs[:, rank:]
        rr, ri = r.chunk(2, dim=1)
        tr_, ti = rhs.split(rank, dim=1)
        q_re = lr_ * rr - li * ri
        q_im = lr_ * ri + li * rr
        to_score = ent.weight
        scores = q_re @ to_score[:, :rank].t() + q_im @ to_score[:, rank:].t()
        loss = F.cross_entropy(scores, tr[:, 2])
        factors = (
            lib.sqrt(lr_**2 + li**2),
            lib.sqrt(rr**2 + ri**2),
            lib.sqrt(tr_**2 + ti**2),
        )
        n3 = sum(lib.sum(lib.abs(f) ** 3) for f in factors) / tr.shape[0]
        total = loss + 0.01 * n3
        opt.zero_grad()
        total.backward()
        rec(f"loss{step}", loss)
        rec(f"n3_{step}", n3)
        rec(f"g{step}", rel.weight.grad)
        opt.step()
    rec("ent", ent.weight)
    tri = (q_re * tr_ + q_im * ti).sum(1)
    rec("tri", tri)


def p_rotate_adv(lib, dt, rec):
    F = lib.nn.functional
    hid, gamma, eps = 4, 6.0, 2.0
    rng = (gamma + eps) / hid
    lib.manual_seed(15)
    ent = lib.nn.Parameter(lib.zeros(N_ENT, 2 * hid, dtype=dt))
    rel = lib.nn.Parameter(lib.zeros(N_REL, hid, dtype=dt))
    lib.nn.init.uniform_(ent, -rng, rng)
    lib.nn.init.uniform_(rel, -rng, rng)
    tr = _triples(lib, 8, 5)
    g = lib.Generator().manual_seed(16)
    n_neg = 5
    opt = lib.optim.Adam([ent, rel], lr=0.01)
    pi = 3.14159265358979323846
    for step in range(4):
        neg_t = lib.randint(0, N_ENT, (tr.shape[0], n_neg), generator=g)
        h = lib.index_select(ent, 0, tr[:, 0]).unsqueeze(1)
        r = rel[tr[:, 1]].unsqueeze(1)
        phase = r / (rng / pi)
        re_r, im_r = lib.cos(phase), lib.sin(phase)
        re_h, im_h = lib.chunk(h, 2, dim=2)

        def score(tail, re_h=re_h, im_h=im_h, re_r=re_r, im_r=im_r):
            re_t, im_t = lib.chunk(tail, 2, dim=2)
            re_s = re_h * re_r - im_h * im_r - re_t
            im_s = re_h * im_r + im_h * re_r - im_t
            d = lib.stack([re_s, im_s], dim=0).norm(dim=0)
            return gamma - d.sum(dim=2)

        pos = score(ent[tr[:, 2]].unsqueeze(1)).squeeze(1)
        neg = score(ent[neg_t])
        w = F.softmax(neg * 1.0, dim=1).detach()
        neg_l = (w * F.logsigmoid(-neg)).sum(dim=1)
        pos_l = F.logsigmoid(pos)
        loss = -(pos_l.mean() + neg_l.mean()) / 2
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"w{step}", w)
        rec(f"gr{step}", rel.grad)
        opt.step()
    rec("ent", ent)
    rec("rel", rel)
    rec("atan2", lib.atan2(lib.sin(rel), lib.cos(rel)))


class _ConvE:
    @staticmethod
    def build(lib, dt):
        nn = lib.nn

        class ConvE(nn.Module):
            def __init__(self):
                super().__init__()
                self.ent = nn.Embedding(N_ENT, 8, padding_idx=0)
                self.rel = nn.Embedding(N_REL, 8)
                self.inp_drop = nn.Dropout(0.2)
                self.hid_drop = nn.Dropout(0.3)
                self.feat_drop = nn.Dropout2d(0.2)
                self.conv = nn.Conv2d(1, 3, (3, 3), 1, 0, bias=True)
                self.bn0 = nn.BatchNorm2d(1)
                self.bn1 = nn.BatchNorm2d(3)
                self.bn2 = nn.BatchNorm1d(8)
                self.register_parameter("b", nn.Parameter(lib.zeros(N_ENT)))
                self.fc = nn.Linear(3 * 2 * 2, 8)

            def forward(self, e1, r):
                x = lib.cat([self.ent(e1).view(-1, 1, 2, 4), self.rel(r).view(-1, 1, 2, 4)], 2)
                x = self.bn0(x)
                x = self.inp_drop(x)
                x = self.conv(x)
                x = self.bn1(x)
                x = lib.relu(x)
                x = self.feat_drop(x)
                x = x.view(x.shape[0], -1)
                x = self.fc(x)
                x = self.hid_drop(x)
                x = self.bn2(x)
                x = lib.relu(x)
                x = lib.mm(x, self.ent.weight.transpose(1, 0))
                x = x + self.b.expand_as(x)
                return lib.sigmoid(x)

        lib.manual_seed(17)
        return ConvE().to(dt)


def p_conve(lib, dt, rec):
    F = lib.nn.functional
    m = _ConvE.build(lib, dt)
    rec("repr", repr(m))
    tr = _triples(lib, 10, 6)
    opt = lib.optim.Adam(m.parameters(), lr=0.003, weight_decay=1e-4)
    target = lib.zeros(10, N_ENT, dtype=dt)
    target.scatter_(1, tr[:, 2:3], 1.0)
    target = (1 - 0.1) * target + 1.0 / N_ENT
    lib.manual_seed(18)
    for step in range(3):
        m.train()
        pred = m(tr[:, 0], tr[:, 1])
        loss = F.binary_cross_entropy(pred, target)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"gconv{step}", m.conv.weight.grad)
        opt.step()
    rec("running_mean", m.bn1.running_mean)
    rec("running_var", m.bn2.running_var)
    rec("nbt", m.bn0.num_batches_tracked)
    m.eval()
    with lib.no_grad():
        pred = m(tr[:, 0], tr[:, 1])
    rec("pred", pred)
    rec("pad_row", m.ent.weight[0])


def p_filtered_ranks(lib, dt, rec):
    ent = _emb(lib, dt, N_ENT, DIM, 19)
    rel = _emb(lib, dt, N_REL, DIM, 20)
    train = _triples(lib, 40, 7)
    test = _triples(lib, 10, 8)
    known = lib.cat([train, test])
    with lib.no_grad():
        q = ent(test[:, 0]) + rel(test[:, 1])
        scores = -lib.cdist(q, ent.weight, p=1)
        target = scores.gather(1, test[:, 2:3])
        # filter: every other known tail of (h, r) gets -inf
        filt = lib.zeros(len(test), N_ENT, dtype=lib.bool)
        for i in range(len(test)):
            h, r = test[i, 0], test[i, 1]
            mask = (known[:, 0] == h) & (known[:, 1] == r)
            tails = known[mask, 2]
            filt[i, tails] = True
        filt[lib.arange(len(test)), test[:, 2]] = False
        fscores = scores.masked_fill(filt, float("-inf"))
        rank_raw = (scores > target).sum(1) + 1
        rank = (fscores > target).sum(dim=1) + 1
        rank_opt = (fscores >= target).sum(dim=1)
        rec("scores", scores)
        rec("fscores", fscores)
        rec("rank_raw", rank_raw)
        rec("rank", rank)
        rec("rank_opt", rank_opt)
        rankf = rank.to(dt)
        rec("mrr", (1.0 / rankf).mean())
        rec("mr", rankf.mean())
        for k in (1, 3, 10):
            rec(f"hits{k}", (rank <= k).float().mean())
        # the same filter by scatter of -inf into a copy
        s2 = scores.clone()
        idx = lib.where(filt)
        s2[idx] = -float("inf")
        rec("same", lib.equal(s2, fscores))
        s3 = scores.clone().scatter_(1, lib.tensor([[1, 2]] * len(test)), float("-inf"))
        rec("s3", s3)
        s4 = scores.index_put((idx[0], idx[1]), lib.tensor(-1e9, dtype=dt))
        rec("s4", s4)
        metrics = {
            "mrr": (1.0 / rankf).mean().item(),
            "hits@1": (rank <= 1).to(dt).mean().item(),
        }
        rec("metrics", str({k: round(v, 6) for k, v in metrics.items()}))


def p_argsort_ranks(lib, dt, rec):
    ent = _emb(lib, dt, N_ENT, DIM, 21)
    rel = _emb(lib, dt, N_REL, DIM, 22)
    test = _triples(lib, 8, 9)
    with lib.no_grad():
        s = (ent(test[:, 0]) * rel(test[:, 1])) @ ent.weight.T
        order = lib.argsort(s, dim=1, descending=True)
        rec("order", order)
        pos = (order == test[:, 2].unsqueeze(1)).nonzero()
        rec("pos", pos)
        ranks = pos[:, 1] + 1
        rec("ranks", ranks)
        srt, ix = lib.sort(s, dim=-1, descending=True, stable=True)
        rec("srt", srt)
        rec("ix", ix)
        top = lib.topk(s, k=3, dim=1)
        rec("topv", top.values)
        rec("topi", top.indices)
        rr = lib.reciprocal(ranks.double())
        rec("mrr", rr.mean())
        hits = lib.stack([(ranks <= k).sum() for k in (1, 3, 10)])
        rec("hits", hits)
        rec("hits_frac", hits / len(ranks))
        # ranks by argsort of argsort
        r2 = lib.argsort(lib.argsort(-s, dim=1), dim=1).gather(1, test[:, 2:]).squeeze(1) + 1
        rec("r2", r2)
        rec("amax", s.argmax(1))
        rec("max", s.max(dim=1))


def p_max_norm(lib, dt, rec):
    lib.manual_seed(23)
    for p in (2.0, 1.0, 3.0):
        e = lib.nn.Embedding(N_ENT, DIM, max_norm=1.0, norm_type=p).to(dt)
        with lib.no_grad():
            e.weight.mul_(2.0)
        before = e.weight.detach().clone()
        idx = lib.tensor([[1, 3, 3], [5, 1, 7]])
        out = e(idx)
        rec(f"out{p}", out)
        rec(f"w{p}", e.weight)
        rec(f"changed{p}", (e.weight != before).any(dim=1))
        rec(f"norms{p}", e.weight.norm(p=p, dim=1))
        loss = (out * lib.arange(DIM, dtype=dt)).sum()
        loss.backward()
        rec(f"g{p}", e.weight.grad)
    e = lib.nn.Embedding(5, 3, max_norm=0.5).to(dt)
    rec("repr", repr(e))
    w = lib.randn(6, 3, dtype=dt) * 3
    out = lib.nn.functional.embedding(lib.tensor([0, 2, 2]), w, max_norm=1.5)
    rec("fout", out)
    rec("fw", w)
    with lib.no_grad():
        lib.embedding_renorm_(w, lib.tensor([1, 4]), 1.0, 2.0)
    rec("renorm", w)
    rec("renorm2", lib.renorm(lib.randn(4, 3, dtype=dt) * 4, p=2, dim=0, maxnorm=1.0))


def p_padding_idx(lib, dt, rec):
    for pad in (0, -1, 3):
        lib.manual_seed(24)
        e = lib.nn.Embedding(8, 4, padding_idx=pad).to(dt)
        rec(f"w{pad}", e.weight)
        rec(f"pidx{pad}", str(e.padding_idx))
        idx = lib.tensor([[0, 3, 7, 7], [3, 3, 1, 0]])
        out = e(idx)
        (out**2).sum().backward()
        rec(f"g{pad}", e.weight.grad)
    e = lib.nn.Embedding.from_pretrained(
        lib.arange(12, dtype=dt).view(4, 3), freeze=False, padding_idx=1
    )
    rec("fp_repr", repr(e))
    out = e(lib.tensor([1, 2, 1]))
    out.sum().backward()
    rec("fp_g", e.weight.grad)
    rec("fp_rg", str(e.weight.requires_grad))
    e2 = lib.nn.Embedding.from_pretrained(lib.ones(3, 2, dtype=dt))
    rec("fp2", str(e2.weight.requires_grad))
    bag = lib.nn.EmbeddingBag(8, 3, mode="mean", padding_idx=0).to(dt)
    lib.manual_seed(25)
    with lib.no_grad():
        bag.weight.copy_(lib.randn(8, 3, dtype=dt))
    ob = bag(lib.tensor([0, 2, 3, 0, 5, 6]), lib.tensor([0, 3]))
    rec("bag", ob)
    ob.sum().backward()
    rec("bag_g", bag.weight.grad)


def p_neg_sampling(lib, dt, rec):
    g = lib.Generator().manual_seed(26)
    tr = _triples(lib, 12, 10)
    n_neg = 4
    rec("ri", lib.randint(N_ENT, (3, 4), generator=g))
    rec("ri2", lib.randint(2, 9, size=(5,), generator=g, dtype=lib.int32))
    neg = tr.repeat_interleave(n_neg, dim=0)
    rep = tr.repeat(2, 1)
    rec("rep", rep)
    side = lib.randint(0, 2, (neg.shape[0],), generator=g).bool()
    cand = lib.randint(0, N_ENT, (neg.shape[0],), generator=g)
    neg[side, 0] = cand[side]
    neg[~side, 2] = cand[~side]
    rec("neg", neg)
    rec("collide", (neg[:, 0] == neg[:, 2]).sum())
    perm = lib.randperm(N_ENT, generator=g)
    rec("perm", perm)
    probs = lib.bincount(tr[:, 0], minlength=N_ENT).to(dt) + 1
    probs = probs**0.75
    smp = lib.multinomial(probs, 6, replacement=True, generator=g)
    rec("mult", smp)
    smp2 = lib.multinomial(probs.expand(3, -1), 4, replacement=False, generator=g)
    rec("mult2", smp2)
    # Bernoulli corruption with tph/hpt statistics (TransH's "bern")
    tph = lib.zeros(N_REL, dtype=dt).index_add_(0, tr[:, 1], lib.ones(12, dtype=dt))
    hpt = lib.zeros(N_REL, dtype=dt).scatter_add_(0, tr[:, 1], lib.full((12,), 2.0, dtype=dt))
    pr = tph / (tph + hpt).clamp_min(1)
    coin = lib.bernoulli(pr[tr[:, 1]], generator=g)
    rec("coin", coin)
    rec("uniq", lib.unique(tr[:, 1], return_counts=True))
    rec("uniq_rows", lib.unique(tr[:, :2], dim=0))
    rec("isin", lib.isin(neg[:, 0], tr[:, 0]))
    gstate = g.get_state()
    a = lib.randint(0, 100, (4,), generator=g)
    g.set_state(gstate)
    rec("replay", lib.equal(a, lib.randint(0, 100, (4,), generator=g)))


def p_margin_loss(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(27)
    pos = lib.randn(10, generator=g, dtype=dt).requires_grad_()
    neg = lib.randn(10, 3, generator=g, dtype=dt).requires_grad_()
    for red in ("mean", "sum", "none"):
        y = lib.ones(10, dtype=dt)
        rec(f"mrl_{red}", F.margin_ranking_loss(pos, neg[:, 0], y, margin=0.5, reduction=red))
    rec.err(
        "mrl_dims",
        lambda: F.margin_ranking_loss(pos.unsqueeze(1), neg, lib.tensor(1.0, dtype=dt)),
    )
    loss = F.margin_ranking_loss(pos.unsqueeze(1), neg, lib.ones(1, 1, dtype=dt), margin=1.0)
    loss.backward()
    rec("gp", pos.grad)
    rec("gn", neg.grad)
    crit = lib.nn.MarginRankingLoss(margin=0.3)
    rec("crit", repr(crit))
    rec("crit_v", crit(pos, neg[:, 1], -lib.ones(10, dtype=dt)))
    ls = F.logsigmoid(lib.tensor([-800.0, -20.0, 0.0, 20.0, 800.0], dtype=dt))
    rec("logsig", ls)
    rec("softplus", F.softplus(lib.tensor([-30.0, 0.0, 30.0], dtype=dt), beta=2, threshold=10))
    x = lib.randn(6, generator=g, dtype=dt).requires_grad_()
    y = -F.logsigmoid(x).sum() - lib.nn.LogSigmoid()(-x).mean()
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    rec("gx", gx)
    (ggx,) = lib.autograd.grad(gx.sum(), x)
    rec("ggx", ggx)
    rec.err("sml_tgt_grad", lambda: F.soft_margin_loss(pos, lib.sign(neg[:, 2])))
    rec("sml", F.soft_margin_loss(pos, lib.sign(neg[:, 2]).detach()))
    rec("hinge", F.hinge_embedding_loss(neg, lib.tensor([1, -1, 1], dtype=dt), margin=0.8))
    rec("mml", F.multi_margin_loss(neg, lib.tensor([0, 2, 1, 1, 0, 2, 2, 0, 1, 0]), p=1))
    trip = F.triplet_margin_loss(neg[:4], neg[4:8], neg[6:10], margin=0.4, p=1)
    rec("trip", trip)


def p_state_dict(lib, dt, rec):
    class KGE(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.ent = lib.nn.Embedding(N_ENT, DIM, max_norm=1.0)
            self.rel = lib.nn.Embedding(N_REL, DIM, padding_idx=0)
            self.register_buffer("gamma", lib.tensor(12.0))

        def forward(self, tr):
            return self.gamma - (self.ent(tr[:, 0]) + self.rel(tr[:, 1]) - self.ent(tr[:, 2])).norm(
                p=1, dim=-1
            )

    lib.manual_seed(28)
    m = KGE().to(dt)
    tr = _triples(lib, 6, 11)
    opt = lib.optim.Adam(m.parameters(), lr=0.1)
    m(tr).sum().neg().backward()
    opt.step()
    sd = m.state_dict()
    rec("keys", str(list(sd.keys())))
    buf = io.BytesIO()
    lib.save({"model": sd, "opt": opt.state_dict(), "epoch": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    lib.manual_seed(99)
    m2 = KGE().to(dt)
    res = m2.load_state_dict(ck["model"])
    rec("res", str(res))
    opt2 = lib.optim.Adam(m2.parameters(), lr=0.1)
    opt2.load_state_dict(ck["opt"])
    rec("epoch", ck["epoch"])
    rec("out", m2(tr))
    rec("same", lib.equal(m2.ent.weight, m.ent.weight))
    for o, mm in ((opt, m), (opt2, m2)):
        o.zero_grad()
        mm(tr).sum().neg().backward()
        o.step()
    rec("w1", m.rel.weight)
    rec("w2", m2.rel.weight)
    rec("step", opt2.state_dict()["state"][0]["step"])
    bad = dict(ck["model"])
    bad["ent.weight"] = bad["ent.weight"][:5]
    rec.err("bad", lambda: m2.load_state_dict(bad))
    bad2 = dict(ck["model"])
    del bad2["gamma"]
    bad2["extra"] = lib.zeros(1)
    rec("nonstrict", str(m2.load_state_dict(bad2, strict=False)))
    rec.err("strict", lambda: m2.load_state_dict(bad2))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    e = lib.nn.Embedding(5, 3).to(dt)
    rec.err("oob", lambda: e(lib.tensor([1, 5])))
    rec.err("neg", lambda: e(lib.tensor([-1])))
    rec.err("float_idx", lambda: e(lib.tensor([1.0])))
    rec.err("pad_oob", lambda: lib.nn.Embedding(5, 3, padding_idx=5))
    rec.err("pad_neg_oob", lambda: lib.nn.Embedding(5, 3, padding_idx=-6))
    rec.err("fp_dim", lambda: lib.nn.Embedding.from_pretrained(lib.ones(3)))
    a = lib.ones(4, dtype=dt)
    rec.err("mrl_shape", lambda: F.margin_ranking_loss(a, lib.ones(3, dtype=dt), a))
    rec.err("randint_hi", lambda: lib.randint(5, 5, (2,)))
    rec.err("randint_size", lambda: lib.randint(0, 5))
    rec.err("gather_idx", lambda: lib.ones(2, 3).gather(1, lib.tensor([[0.0]])))
    rec.err("scatter_dim", lambda: lib.zeros(2, 3).scatter_(1, lib.tensor([0, 1]), 1.0))
    rec.err("norm_p", lambda: lib.norm(lib.ones(2, 3, dtype=lib.int64), p=2))
    rec.err("cdist", lambda: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)))
    rec.err("mask_fill", lambda: lib.ones(2, 3).masked_fill(lib.ones(2, 3), 0.0))
    rec.err("topk", lambda: lib.topk(lib.ones(2, 3), 4))
    rec.err("bmm", lambda: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 5, 4)))
    rec.err("chunk0", lambda: lib.ones(4).chunk(0))
    rec.err("mult", lambda: lib.multinomial(lib.ones(3), 4))
    rec.err("bce_range", lambda: F.binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])))
    rec.err("renorm_idx", lambda: F.embedding(lib.tensor([7]), lib.ones(5, 3), max_norm=1.0))


def p_embedding_functional(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(29)
    w = lib.randn(7, 4, generator=g, dtype=dt).requires_grad_()
    idx = lib.tensor([[0, 2, 2], [6, 1, 0]])
    out = F.embedding(idx, w, padding_idx=2)
    rec("out", out)
    (out * lib.randn(2, 3, 4, generator=g, dtype=dt)).sum().backward()
    rec("g", w.grad)
    w.grad = None
    out = F.embedding(idx, w, scale_grad_by_freq=True)
    out.sum().backward()
    rec("g_freq", w.grad)
    rec("bag_sum", F.embedding_bag(idx, w, mode="sum"))
    rec("bag_max", F.embedding_bag(idx, w, mode="max"))
    psw = lib.rand(6, generator=g, dtype=dt)
    rec(
        "bag_psw",
        F.embedding_bag(idx.flatten(), w, lib.tensor([0, 2]), mode="sum", per_sample_weights=psw),
    )
    oh = F.one_hot(idx, 7).to(dt)
    rec("oh", oh @ w)
    rec("ohs", oh.shape)
    ww = w.detach()
    rec("ixsel", ww.index_select(0, idx.flatten()).view(2, 3, 4))
    rec("take", lib.take_along_dim(ww, idx[:, :1].expand(-1, 4), dim=0))


def p_bce_1toN(lib, dt, rec):
    F = lib.nn.functional
    ent = _emb(lib, dt, N_ENT, DIM, 30)
    rel = _emb(lib, dt, 2 * N_REL, DIM, 31)
    tr = _triples(lib, 20, 12)
    # reciprocal relations: (t, r + R, h)
    inv = lib.stack([tr[:, 2], tr[:, 1] + N_REL, tr[:, 0]], 1)
    alltr = lib.cat([tr, inv], 0)
    keys, inverse = lib.unique(alltr[:, :2], dim=0, return_inverse=True)
    labels = lib.zeros(keys.shape[0], N_ENT, dtype=dt)
    labels[inverse, alltr[:, 2]] = 1.0
    rec("labels", labels.sum(1))
    opt = lib.optim.AdamW([*ent.parameters(), *rel.parameters()], lr=0.05, weight_decay=0.01)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for epoch in range(4):
        logits = (ent(keys[:, 0]) * rel(keys[:, 1])) @ ent.weight.t()
        smooth = labels * (1 - 0.1) + 0.1 / N_ENT
        loss = F.binary_cross_entropy_with_logits(logits, smooth)
        loss2 = lib.nn.BCEWithLogitsLoss(reduction="sum")(logits, labels)
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(ent.parameters(), max_norm=0.05)
        rec(f"loss{epoch}", loss)
        rec(f"loss2_{epoch}", loss2)
        rec(f"ge{epoch}", ent.weight.grad)
        opt.step()
        sched.step()
        rec(f"lr{epoch}", sched.get_last_lr())


def p_tucker(lib, dt, rec):
    F = lib.nn.functional
    de, dr = 5, 3
    lib.manual_seed(32)
    E = lib.nn.Embedding(N_ENT, de).to(dt)
    R = lib.nn.Embedding(N_REL, dr).to(dt)
    W = lib.nn.Parameter(
        lib.tensor(__import__("numpy").random.RandomState(0).uniform(-1, 1, (dr, de, de)), dtype=dt)
    )
    bn0 = lib.nn.BatchNorm1d(de).to(dt)
    bn1 = lib.nn.BatchNorm1d(de).to(dt)
    tr = _triples(lib, 9, 13)
    opt = lib.optim.Adam(
        [*E.parameters(), *R.parameters(), W, *bn0.parameters(), *bn1.parameters()], lr=0.01
    )
    for step in range(3):
        e1 = bn0(E(tr[:, 0]))
        x = e1.view(-1, 1, de)
        r = R(tr[:, 1])
        wm = lib.mm(r, W.view(dr, -1)).view(-1, de, de)
        x = lib.bmm(x, wm).view(-1, de)
        x = bn1(x)
        pred = lib.sigmoid(x @ E.weight.transpose(1, 0))
        tgt = F.one_hot(tr[:, 2], N_ENT).to(dt)
        loss = F.binary_cross_entropy(pred, tgt, reduction="mean")
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"gW{step}", W.grad)
        opt.step()
    rec("bn", bn1.running_var)
    core = lib.einsum("rij,bi,br->bj", W, E(tr[:, 0]), R(tr[:, 1]))
    rec("core", core)
    rec("tensordot", lib.tensordot(W, E.weight[:2], dims=([1], [1])))


def p_grad_checks(lib, dt, rec):
    g = lib.Generator().manual_seed(33)
    h = lib.randn(4, 6, generator=g, dtype=dt).requires_grad_()
    r = lib.randn(4, 6, generator=g, dtype=dt).requires_grad_()
    t = lib.randn(4, 6, generator=g, dtype=dt).requires_grad_()
    for p in (1, 2, 3, float("inf")):
        d = lib.linalg.norm(h + r - t, ord=p, dim=-1)
        gh, gr = lib.autograd.grad(d.sum(), (h, r), create_graph=True)
        rec(f"gh{p}", gh)
        if p != 1 and p != float("inf"):
            (hh,) = lib.autograd.grad((gh * gr).sum(), h)
            rec(f"hh{p}", hh)
    x = lib.zeros(3, dtype=dt, requires_grad=True)
    n = x.norm()
    n.backward()
    rec("g_norm0", x.grad)
    x2 = lib.zeros(3, dtype=dt, requires_grad=True)
    lib.norm(x2, p=1).backward()
    rec("g_norm1_0", x2.grad)
    y = lib.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=dt, requires_grad=True)
    F = lib.nn.functional
    z = F.normalize(y, dim=1)
    z.sum().backward()
    rec("g_normalize", y.grad)
    c = lib.randn(3, 4, generator=g, dtype=dt).requires_grad_()
    cos = F.cosine_similarity(c[:, None], c[None], dim=-1)
    cos.sum().backward()
    rec("cos", cos)
    rec("gcos", c.grad)
    dd = lib.randn(5, 4, generator=g, dtype=dt).requires_grad_()
    pd = F.pairwise_distance(dd[:3], dd[2:], p=1.0)
    pd.sum().backward()
    rec("pd", pd)
    rec("gpd", dd.grad)
    # gradient penalties through embeddings (double backward, also with scale_grad_by_freq)
    w = lib.randn(6, 3, generator=g, dtype=dt, requires_grad=True)
    u = lib.randn(2, 3, 3, generator=g, dtype=dt, requires_grad=True)
    idx = lib.tensor([[0, 2, 2], [5, 1, 0]])
    for kw in ({}, {"padding_idx": 2}, {"scale_grad_by_freq": True, "padding_idx": 5}):
        out = F.embedding(idx, w, **kw)
        (gw,) = lib.autograd.grad((out * u).pow(2).sum(), w, create_graph=True)
        g2w, g2u = lib.autograd.grad(gw.pow(2).sum(), (w, u))
        rec(f"gw{len(kw)}", gw)
        rec(f"g2w{len(kw)}", g2w)
        rec(f"g2u{len(kw)}", g2u)
    if dt == lib.float64:
        rec("gc", lib.autograd.gradcheck(lambda a: (a * a.flip(0)).sum(-1).norm(p=3), (h,)))


def p_sgd_sparse_like(lib, dt, rec):
    F = lib.nn.functional
    ent = _emb(lib, dt, N_ENT, DIM, 34)
    rel = _emb(lib, dt, N_REL, DIM, 35)
    opt = lib.optim.Adam(
        [{"params": ent.parameters()}, {"params": rel.parameters(), "lr": 0.05}],
        lr=0.01,
        amsgrad=True,
    )
    tr = _triples(lib, 14, 14)
    ds = lib.utils.data.TensorDataset(tr)
    gl = lib.Generator().manual_seed(36)
    dl = lib.utils.data.DataLoader(ds, batch_size=5, shuffle=True, generator=gl)
    gn = lib.Generator().manual_seed(37)
    for epoch in range(2):
        for i, (batch,) in enumerate(dl):
            rec(f"batch{epoch}_{i}", batch)
            neg_t = lib.randint(0, N_ENT, (batch.shape[0], 3), generator=gn)
            hr = ent(batch[:, 0]) * rel(batch[:, 1])
            pos = (hr * ent(batch[:, 2])).sum(-1)
            neg = lib.einsum("bd,bkd->bk", hr, ent(neg_t))
            loss = -F.logsigmoid(pos).mean() - F.logsigmoid(-neg).mean()
            reg = ent.weight.norm(p=3) ** 3
            opt.zero_grad(set_to_none=False)
            (loss + 1e-3 * reg).backward()
            opt.step()
            rec(f"loss{epoch}_{i}", loss)
    rec("ent", ent.weight)
    rec("state", opt.state[rel.weight]["max_exp_avg_sq"])
    rec("groups", str([g_["lr"] for g_ in opt.param_groups]))


def p_ties_and_reprs(lib, dt, rec):
    # integer-valued scores make ties: ranks by >, >=, the mean of both, argsort and sort
    g = lib.Generator().manual_seed(38)
    s = lib.randint(0, 4, (6, 9), generator=g).to(dt)
    tgt = lib.randint(0, 9, (6,), generator=g)
    t = s[lib.arange(6), tgt].unsqueeze(-1)
    opt_r = (s > t).sum(-1) + 1
    pes_r = (s >= t).sum(-1)
    rec("real", (opt_r + pes_r).to(dt) / 2)
    rec("sorted", lib.sort(s, dim=1, descending=True, stable=True))
    rec.err("sort_args", lambda: lib.sort(s, 1, stable=True))
    rec("sorted_asc", lib.sort(s, dim=1, stable=True).indices)
    rec("argsort", lib.argsort(s, dim=1, stable=True))
    rec("argsort_d", lib.argsort(s, dim=1, descending=True, stable=True))
    rec("rank_ss", lib.searchsorted(lib.sort(s[0]).values, s[0, :3], right=True))
    fs = s.clone()
    fs[s == 0] = float("-inf")
    rec("repr", repr(fs[:2].to(lib.float32)))
    rec("repr_rank", repr(opt_r))
    rec("str_mrr", f"{(1.0 / opt_r.float()).mean().item():.4f}")
    rec("hits_list", str([round(x, 4) for x in (opt_r <= 3).double().cumsum(0).tolist()]))
    rec("kth", lib.kthvalue(s, 2, dim=1).values)  # (which tied index: unspecified)
    rec("mode", lib.mode(s, dim=1))
    rec("cnt", lib.count_nonzero(s == t, dim=1))
    rec("ifill", s.index_fill(1, lib.tensor([0, 4]), -1.0))
    rec("any_inf", lib.isinf(fs).any(1))
    rec("nan_to_num", lib.nan_to_num(fs, neginf=-99.0)[:2])


def p_version_errors(lib, dt, rec):
    # max_norm renormalises the weight in place: a graph that saved the weight must refuse
    lib.manual_seed(39)
    e = lib.nn.Embedding(N_ENT, DIM, max_norm=0.5).to(dt)
    idx = lib.tensor([0, 1, 2])
    q = e(idx)
    allsc = q @ e.weight.t()
    e(lib.tensor([5, 6]))
    rec.err("version", lambda: allsc.sum().backward())
    rec("ver", e.weight._version if hasattr(e.weight, "_version") else -1)
    e.zero_grad()
    # renormalising first, then scoring, is the usual fix
    with lib.no_grad():
        lib.embedding_renorm_(e.weight, lib.arange(N_ENT), 0.5, 2.0)
    q = e(idx)
    allsc = q @ e.weight.t()
    allsc.sum().backward()
    rec("g", e.weight.grad)
    w = lib.randn(4, 3, dtype=dt, requires_grad=True)
    rec.err("leaf_renorm", lambda: lib.embedding_renorm_(w, lib.tensor([0]), 1.0, 2.0))
    rec.err("func_leaf", lambda: lib.nn.functional.embedding(lib.tensor([0]), w, max_norm=0.1))
    rec("w_after", w)
    w2 = lib.ones(5, 3, dtype=dt) * 2
    for name, ix in (
        ("i32", lib.tensor([1, 3], dtype=lib.int32)),
        ("f", lib.tensor([1.0])),
        ("b", lib.tensor([True])),
        ("i16", lib.tensor([1], dtype=lib.int16)),
        ("neg", lib.tensor([-1, 2])),
    ):
        rec.err("renorm_" + name, lambda ix=ix: lib.embedding_renorm_(w2, ix, 1.0, 2.0))
    rec("w2", w2)


def p_simple_hole(lib, dt, rec):
    F = lib.nn.functional
    d = 4
    lib.manual_seed(40)
    eh = lib.nn.Embedding(N_ENT, d).to(dt)
    et = lib.nn.Embedding(N_ENT, d).to(dt)
    rf = lib.nn.Embedding(N_REL, d).to(dt)
    ri = lib.nn.Embedding(N_REL, d).to(dt)
    tr = _triples(lib, 10, 15)
    y = lib.where(lib.arange(10) % 3 == 0, -1.0, 1.0).to(dt)
    params = [p for m in (eh, et, rf, ri) for p in m.parameters()]
    opt = lib.optim.Adagrad(params, lr=0.1, initial_accumulator_value=0.1)
    for step in range(3):
        h, r, t = tr[:, 0], tr[:, 1], tr[:, 2]
        s1 = lib.sum(eh(h) * rf(r) * et(t), dim=1)
        s2 = lib.sum(eh(t) * ri(r) * et(h), dim=1)
        s = lib.clamp((s1 + s2) / 2, -20, 20)
        loss = F.softplus(-y * s).mean()
        reg = sum(m.weight.pow(2).sum() for m in (eh, et, rf, ri)) / 2
        opt.zero_grad()
        (loss + 0.001 * reg).backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec("ri", ri.weight)
    # HolE: circular correlation by rolls
    a, b = eh.weight[:3], et.weight[3:6]
    corr = lib.stack([(a * lib.roll(b, -k, dims=1)).sum(1) for k in range(d)], 1)
    rec("corr", corr)
    idx = (lib.arange(d).unsqueeze(0) + lib.arange(d).unsqueeze(1)) % d
    corr2 = (a.unsqueeze(1) * b[:, idx]).sum(-1)
    rec("corr2", corr2)
    rec("hole", lib.sigmoid((corr * rf.weight[:3]).sum(1)))


def p_eval_loop(lib, dt, rec):
    ent = _emb(lib, dt, N_ENT, DIM, 41)
    rel = _emb(lib, dt, N_REL, DIM, 42)
    test = _triples(lib, 13, 16)
    known = _triples(lib, 50, 17)
    # hr -> set of tails, as a dict of Python sets (the common preprocessing)
    filt = {}
    for h, r, t in known.tolist():
        filt.setdefault((h, r), set()).add(t)
    ranks = []
    with lib.inference_mode():
        for batch in lib.split(test, 4):
            q = ent(batch[:, 0]) - rel(batch[:, 1])
            s = -lib.linalg.vector_norm(q[:, None, :] - ent.weight[None], ord=2, dim=-1)
            for i, (h, r, t) in enumerate(batch.tolist()):
                other = [x for x in filt.get((h, r), ()) if x != t]
                if other:
                    s[i, lib.tensor(other)] = -float("inf")
            tgt = s[lib.arange(len(batch)), batch[:, 2]]
            ranks.append(1 + (s > tgt[:, None]).long().sum(1))
    ranks = lib.cat(ranks)
    rec("ranks", ranks)
    rec("mrr", ranks.to(dt).reciprocal().mean())
    rec("hits", {k: (ranks <= k).double().mean().item() for k in (1, 3, 10)}.__repr__())
    rec("ranks_t", lib.tensor(ranks.tolist()).dtype.__repr__())


def p_rescal_bilinear(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(43)
    ent = lib.nn.Embedding(N_ENT, 3).to(dt)
    bil = lib.nn.Bilinear(3, 3, N_REL).to(dt)
    rec("bil_repr", repr(bil))
    tr = _triples(lib, 15, 18)
    opt = lib.optim.RMSprop([*ent.parameters(), *bil.parameters()], lr=0.01, alpha=0.9)
    for step in range(3):
        logits = bil(ent(tr[:, 0]), ent(tr[:, 2]))
        loss = F.cross_entropy(logits, tr[:, 1], reduction="sum")
        nll = F.nll_loss(F.log_softmax(logits, 1), tr[:, 1], weight=lib.arange(1.0, 5.0).to(dt))
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"nll{step}", nll)
        rec(f"gb{step}", bil.weight.grad)
        opt.step()
    rescal = lib.einsum("bi,rij,bj->br", ent(tr[:, 0]), bil.weight, ent(tr[:, 2])) + bil.bias
    rec("rescal", rescal)
    rec("argmax", rescal.argmax(-1))
    rec("acc", (rescal.argmax(-1) == tr[:, 1]).to(dt).mean())


def p_n3_module(lib, dt, rec):
    nn = lib.nn

    class N3(nn.Module):
        def __init__(self, weight):
            super().__init__()
            self.weight = weight

        def forward(self, factors):
            return (
                self.weight * sum(lib.sum(lib.abs(f) ** 3) for f in factors) / factors[0].shape[0]
            )

    class DURA(nn.Module):
        def forward(self, h, r, t):
            return (h**2 + t**2).sum() + (h**2 * r**2 + t**2 * r**2).sum()

    g = lib.Generator().manual_seed(44)
    fs = [lib.randn(5, 4, generator=g, dtype=dt).requires_grad_() for _ in range(3)]
    reg = N3(0.05)
    v = reg(fs)
    v.backward()
    rec("n3", v)
    rec("g0", fs[0].grad)
    rec("dura", DURA()(*fs))
    rec("l2", sum(f.norm(2) ** 2 for f in fs))
    rec("lp", lib.linalg.vector_norm(lib.stack(fs), ord=3, dim=(1, 2)))
    rec("frob", lib.linalg.matrix_norm(fs[1], ord="fro"))
    rec("nuc", lib.linalg.matrix_norm(fs[1].detach(), ord="nuc"))
    x = fs[2].detach().clone().requires_grad_()
    h = lib.autograd.functional.hessian(lambda a: a.abs().pow(3).sum(), x[0])
    rec("hess", h)


def p_sampling_apis(lib, dt, rec):
    g = lib.Generator().manual_seed(45)
    tr = _triples(lib, 10, 19)
    neg = tr.clone()
    neg[:, 2].random_(0, N_ENT, generator=g)
    rec("random_", neg)
    neg[:, 0].random_(N_ENT, generator=g)
    rec("random_hi", neg[:, 0])
    rec("rint_like", lib.randint_like(tr, 3, 9).shape)
    rec("rint_kw", lib.randint(low=2, high=7, size=(2, 3), generator=g))
    rec("perm_k", lib.randperm(N_ENT, generator=g)[:5])
    rec("rand_argsort", lib.rand(3, N_ENT, generator=g).argsort(dim=1)[:, :4])
    w = lib.empty(4, 3, dtype=dt)
    w.uniform_(-0.5, 0.5, generator=g)
    rec("uniform_", w)
    w.normal_(0.0, 0.1, generator=g)
    rec("normal_", w)
    rec("new_full", tr.new_full((2, 2), 7))
    rec("new_zeros", w.new_zeros(3).dtype.__repr__())
    stats = lib.zeros(N_REL, dtype=dt).scatter_reduce(
        0, tr[:, 1], tr[:, 0].to(dt), reduce="amax", include_self=False
    )
    rec("amax", stats)
    mean_h = lib.zeros(N_REL, dtype=dt).scatter_reduce(0, tr[:, 1], tr[:, 0].to(dt), "mean")
    rec("mean_h", mean_h)
    rec("bucket", lib.bucketize(tr[:, 0], lib.tensor([2, 5, 9])))
    sampler = lib.utils.data.WeightedRandomSampler(
        lib.tensor([0.1, 0.5, 0.2, 0.2], dtype=dt), 8, replacement=True, generator=g
    )
    rec("wrs", list(sampler))
    rs = lib.utils.data.RandomSampler(range(6), generator=g)
    rec("rs", list(rs))


def p_training_loop_sched(lib, dt, rec):
    import copy

    F = lib.nn.functional
    nn = lib.nn

    class TransE(nn.Module):
        def __init__(self, n_ent, n_rel, dim, margin):
            super().__init__()
            self.ent = nn.Embedding(n_ent, dim, max_norm=1.0)
            self.rel = nn.Embedding(n_rel, dim)
            self.margin = margin
            nn.init.xavier_uniform_(self.ent.weight.data)
            nn.init.xavier_uniform_(self.rel.weight.data)

        def distance(self, tr):
            h, r, t = self.ent(tr[:, 0]), self.rel(tr[:, 1]), self.ent(tr[:, 2])
            return (h + r - t).norm(p=1, dim=1)

        def forward(self, pos, neg):
            pd, nd = self.distance(pos), self.distance(neg)
            tgt = lib.tensor([-1], dtype=pd.dtype)
            return F.margin_ranking_loss(pd, nd, tgt, margin=self.margin), pd, nd

    lib.manual_seed(46)
    model = TransE(N_ENT, N_REL, DIM, 1.0).to(dt)
    rec("repr", repr(model))
    opt = lib.optim.SGD(model.parameters(), lr=0.1, nesterov=True, momentum=0.5)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=0)
    tr = _triples(lib, 16, 20)
    gl = lib.Generator().manual_seed(47)
    dl = lib.utils.data.DataLoader(tr, batch_size=6, shuffle=True, generator=gl, drop_last=True)
    best, best_state = -1.0, None
    gn = lib.Generator().manual_seed(48)
    for epoch in range(3):
        model.train()
        total = 0.0
        for batch in dl:
            neg = _corrupt(lib, batch, gn, N_ENT)
            loss, pd, nd = model(batch, neg)
            opt.zero_grad()
            loss.backward()
            lib.nn.utils.clip_grad_value_(model.parameters(), 0.5)
            opt.step()
            total += loss.item()
        model.eval()
        with lib.no_grad():
            d = model.distance(tr)
            mrr = (1.0 / (1.0 + d)).mean().item()
        sched.step(mrr)
        rec(f"total{epoch}", total)
        rec(f"mrr{epoch}", mrr)
        rec(f"lr{epoch}", opt.param_groups[0]["lr"])
        rec(f"fmt{epoch}", f"epoch {epoch}: loss={loss:.4f} mrr={mrr:.4f}")
        if mrr > best:
            best, best_state = mrr, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    rec("best", best)
    rec("ent", model.ent.weight)
    rec("norms", model.ent.weight.norm(dim=1))


def p_quate(lib, dt, rec):
    F = lib.nn.functional
    d = 3
    lib.manual_seed(49)
    ent = lib.nn.Embedding(N_ENT, 4 * d).to(dt)
    rel = lib.nn.Embedding(N_REL, 4 * d).to(dt)
    tr = _triples(lib, 8, 21)
    opt = lib.optim.Adam([*ent.parameters(), *rel.parameters()], lr=0.02)
    for step in range(3):
        s_a, x_a, y_a, z_a = lib.chunk(ent(tr[:, 0]), 4, dim=1)
        s_b, x_b, y_b, z_b = lib.chunk(rel(tr[:, 1]), 4, dim=1)
        s_c, x_c, y_c, z_c = lib.tensor_split(ent(tr[:, 2]), 4, dim=1)
        den = lib.sqrt(s_b**2 + x_b**2 + y_b**2 + z_b**2)
        s_b, x_b, y_b, z_b = s_b / den, x_b / den, y_b / den, z_b / den
        a = s_a * s_b - x_a * x_b - y_a * y_b - z_a * z_b
        b = s_a * x_b + s_b * x_a + y_a * z_b - y_b * z_a
        c = s_a * y_b + s_b * y_a + z_a * x_b - z_b * x_a
        e = s_a * z_b + s_b * z_a + x_a * y_b - x_b * y_a
        score = (a * s_c + b * x_c + c * y_c + e * z_c).sum(-1)
        y = lib.ones_like(score)
        y[::2] = -1
        loss = lib.mean(F.softplus(-y * score))
        opt.zero_grad()
        loss.backward()
        rec(f"score{step}", score)
        rec(f"g{step}", rel.weight.grad)
        opt.step()
    rec("ent", ent.weight)
    w = rel.weight.detach().clone()
    rec("renorm_", w.view(N_REL, 4, d).renorm_(2, 1, 0.5))
    rec("fro", lib.norm(w, p="fro"))
    rec("vn0", lib.linalg.vector_norm(w, ord=0, dim=1))
    rec("vninf", lib.linalg.vector_norm(w, ord=-float("inf"), dim=1))


def p_embedding_misc(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    rec("r1", repr(nn.Embedding(5, 3, padding_idx=0, max_norm=1, norm_type=1.0,
                                scale_grad_by_freq=True)))  # fmt: skip
    rec("r2", repr(nn.Embedding(5, 3, norm_type=3)))
    rec("r3", repr(nn.EmbeddingBag(5, 3, max_norm=2.0, mode="sum", padding_idx=1)))
    rec("r4", repr(nn.Embedding.from_pretrained(lib.ones(3, 2, dtype=dt), max_norm=1.0)))
    rec.err("wshape", lambda: nn.Embedding(5, 3, _weight=lib.ones(4, 3)))
    e = nn.Embedding(5, 3, _weight=lib.arange(15.0).view(5, 3).to(dt), _freeze=True)
    rec("frozen", str(e.weight.requires_grad))
    rec("w", e.weight)
    rec("scalar_idx", e(lib.tensor(2)))
    rec("i32", e(lib.tensor([1, 4], dtype=lib.int32)))
    rec.err("u8", lambda: e(lib.tensor([1], dtype=lib.uint8)))
    rec.err("bool", lambda: e(lib.tensor([True])))
    rec("empty", e(lib.zeros(0, 2, dtype=lib.long)).shape)
    ix32 = lib.tensor([[0, 0], [4, 1]], dtype=lib.int32)
    rec("maxn_int_idx", F.embedding(ix32, e.weight.clone(), max_norm=5, norm_type=float("inf")))
    w0 = e.weight.clone()
    rec("maxn0", F.embedding(lib.tensor([1, 2]), w0, max_norm=0.0))
    rec("w0", w0)
    a = lib.tensor([1.0, 2.0, 3.0], dtype=dt)
    b = lib.tensor([2.0, 2.0, 1.0], dtype=dt)
    y = lib.tensor([1.0, -1.0, 1.0], dtype=dt)
    rec(
        "warn_sa",
        str(rec.warns("w_sa", lambda: F.margin_ranking_loss(a, b, y, size_average=False)).item()),
    )
    rec("crit_red", str(rec.warns("w_c", lambda: nn.MarginRankingLoss(reduce=False))))
    rec.err("int_mrl", lambda: F.margin_ranking_loss(a.long(), b.long(), y.long()))
    rec(
        "bcast",
        F.margin_ranking_loss(a[:, None], b[None, :], lib.ones(1, 1, dtype=dt), reduction="none"),
    )
    rec.err("bce_shape", lambda: F.binary_cross_entropy_with_logits(a, b[:2]))
    rec.err("ls_int", lambda: F.logsigmoid(lib.tensor([1, 2])))
    rec.err("norm_dim", lambda: a.norm(dim=1))
    rec.err("emb_2d_w", lambda: F.embedding(lib.tensor([0]), lib.ones(3)))
    rec.err("bag_mode", lambda: nn.EmbeddingBag(5, 3, mode="median"))


def p_zero_distance_grads(lib, dt, rec):
    # h + r - t == 0 exactly (a self-loop with a zero relation): norms' subgradients at 0
    F = lib.nn.functional
    e = lib.tensor([[0.5, -0.25, 1.0], [0.5, -0.25, 1.0], [1.0, 2.0, 0.0]], dtype=dt)
    for p in (1, 2, 3, 0.5, float("inf")):
        h = e.clone().requires_grad_()
        r = lib.zeros(3, 3, dtype=dt, requires_grad=True)
        d = lib.norm(h[[0, 0, 2]] + r - h[[1, 0, 0]], p=p, dim=1)
        d.sum().backward()
        rec(f"d{p}", d)
        rec(f"gh{p}", h.grad)
        rec(f"gr{p}", r.grad)
    x = e.clone().requires_grad_()
    cd = lib.cdist(x, x, p=2)
    cd.sum().backward()
    rec("cd", cd)
    rec("gcd", x.grad)
    x.grad = None
    cd1 = lib.cdist(x[:2], x, p=1)
    cd1.sum().backward()
    rec("gcd1", x.grad)
    x.grad = None
    pd = F.pairwise_distance(x[0:1], x[1:2])
    pd.backward()
    rec("pd", pd)
    rec("gpd", x.grad)
    x.grad = None
    n = F.normalize(x - x[0], dim=1)
    n.sum().backward()
    rec("nz", n)
    rec("gnz", x.grad)
    x.grad = None
    c = F.cosine_similarity(x, x[[1, 0, 2]] * 2, dim=1)
    c.sum().backward()
    rec("cs", c)
    rec("gcs", x.grad)
    z = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    v = lib.linalg.vector_norm(z, ord=2, dim=1)
    (g1,) = lib.autograd.grad(v.sum(), z, create_graph=True)
    rec("g1", g1)
    sq = (z**2).sum(1).sqrt()
    sq.sum().backward()
    rec("g_sqrt0", z.grad)


def p_rgcn_compgcn(lib, dt, rec):
    F, nn = lib.nn.functional, lib.nn
    tr = _triples(lib, 24, 22)
    src, rel, dst = tr[:, 0], tr[:, 1], tr[:, 2]
    # reciprocal edges and self loops
    src2 = lib.cat([src, dst, lib.arange(N_ENT)])
    dst2 = lib.cat([dst, src, lib.arange(N_ENT)])
    rel2 = lib.cat([rel, rel + N_REL, lib.full((N_ENT,), 2 * N_REL)])
    n_rel = 2 * N_REL + 1
    lib.manual_seed(50)
    x = nn.Parameter(lib.randn(N_ENT, 4, dtype=dt))
    bases = nn.Parameter(lib.randn(2, 4, 5, dtype=dt) * 0.3)
    comp = nn.Parameter(lib.randn(n_rel, 2, dtype=dt))
    relemb = nn.Parameter(lib.randn(n_rel, 4, dtype=dt))
    att = nn.Parameter(lib.randn(10, dtype=dt))
    opt = lib.optim.Adam([x, bases, comp, relemb, att], lr=0.01)
    for step in range(3):
        # R-GCN with basis decomposition and degree normalisation
        w = lib.einsum("rb,bio->rio", comp, bases)
        msg = lib.bmm(x[src2].unsqueeze(1), w[rel2]).squeeze(1)
        deg = lib.zeros(N_ENT, dtype=dt).index_add_(0, dst2, lib.ones(len(dst2), dtype=dt))
        norm = 1.0 / deg[dst2]
        agg = lib.zeros(N_ENT, 5, dtype=dt).index_add(0, dst2, msg * norm[:, None])
        h1 = F.leaky_relu(agg, 0.2)
        # CompGCN composition (subtraction / multiplication) and GAT-like edge softmax
        m_sub = x[src2] - relemb[rel2]
        m_mul = x[src2] * relemb[rel2]
        e = F.leaky_relu(lib.cat([m_sub, m_mul, lib.ones(len(src2), 2, dtype=dt)], 1) @ att, 0.2)
        emax = lib.full((N_ENT,), -float("inf"), dtype=dt).scatter_reduce(
            0, dst2, e, reduce="amax", include_self=True
        )
        ex = lib.exp(e - emax[dst2])
        den = lib.zeros(N_ENT, dtype=dt).scatter_add(0, dst2, ex)
        alpha = ex / den[dst2]
        h2 = lib.zeros(N_ENT, 4, dtype=dt).index_add(0, dst2, alpha[:, None] * m_mul)
        h2 = lib.tanh(h2)
        score = (h1[:, :4] * h2).sum(1)
        loss = F.mse_loss(score, lib.linspace(-1, 1, N_ENT, dtype=dt)) + 1e-3 * bases.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"alpha{step}", alpha)
        rec(f"gcomp{step}", comp.grad)
        rec(f"gatt{step}", att.grad)
        opt.step()
    rec("x", x)
    rec("segsum", lib.segment_reduce(alpha.detach()[: 3 * 4], "sum", lengths=lib.tensor([3, 4, 5]))
        if hasattr(lib, "segment_reduce") else "none")  # fmt: skip


def p_convkb_interacte(lib, dt, rec):
    F, nn = lib.nn.functional, lib.nn
    lib.manual_seed(51)
    ent = nn.Embedding(N_ENT, 8).to(dt)
    rel = nn.Embedding(N_REL, 8).to(dt)
    conv1 = nn.Conv1d(3, 2, kernel_size=1).to(dt)
    conv2 = nn.Conv2d(1, 2, 3, padding=0, bias=False).to(dt)
    conv_same = nn.Conv2d(1, 2, 3, padding="same", padding_mode="circular").to(dt)
    fc = nn.Linear(2 * 8, 1, bias=False).to(dt)
    rec("rep", repr(conv_same))
    tr = _triples(lib, 6, 23)
    g = lib.Generator().manual_seed(52)
    perm = lib.stack([lib.randperm(16, generator=g) for _ in range(2)])
    rec("perm", perm)
    opt = lib.optim.Adam([*ent.parameters(), *rel.parameters(), *conv1.parameters(),
                          *conv2.parameters(), *conv_same.parameters(), *fc.parameters()],
                         lr=0.01)  # fmt: skip
    for step in range(2):
        h, r, t = ent(tr[:, 0]), rel(tr[:, 1]), ent(tr[:, 2])
        # ConvKB: [h, r, t] as 3 channels of a length-8 sequence
        x = lib.stack([h, r, t], dim=1)
        c = F.relu(conv1(x))
        s_kb = fc(F.dropout(c.view(len(tr), -1), p=0.0, training=True)).squeeze(-1)
        # InteractE: permuted, chequered 4x4 feature maps, circular convolution
        hr = lib.cat([h, r], 1)
        chk = hr[:, perm].view(len(tr), 2, 4, 4)
        circ = F.pad(chk.view(-1, 1, 4, 4), (1, 1, 1, 1), mode="circular")
        f1 = conv2(circ)
        f2 = conv_same(chk.view(-1, 1, 4, 4))
        s_ie = (f1 - f2).pow(2).mean(dim=(1, 2, 3)).view(len(tr), 2).sum(1)
        loss = F.soft_margin_loss(s_kb, lib.tensor([1.0, -1, 1, -1, 1, -1], dtype=dt)) + s_ie.mean()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"skb{step}", s_kb)
        rec(f"gc1_{step}", conv1.weight.grad)
        rec(f"gcs{step}", conv_same.weight.grad)
        opt.step()
    rec("circ", circ[:1])
    rec("unfold", F.unfold(chk[:1, :1], kernel_size=2, stride=2))


def p_pretrained_shared(lib, dt, rec):
    import copy

    nn = lib.nn
    pre = lib.tensor([[3.0, 4.0], [0.1, 0.1], [1.0, -1.0]], dtype=dt)
    e = nn.Embedding.from_pretrained(pre, max_norm=1.0)
    rec("out", e(lib.tensor([0, 2])))
    rec("pre_shared", pre)
    rec("pre_ver", pre._version)
    w = pre.clone() * 2
    e2 = nn.Embedding(3, 2, _weight=w, max_norm=2.0)
    e2(lib.tensor([0, 1]))
    rec("w_shared", w)
    with lib.no_grad():
        rec("nograd_rg", str(e2(lib.tensor([1])).requires_grad))
    res = e2.load_state_dict({"weight": lib.ones(3, 2, dtype=dt) * 5})
    rec("load", str(res))
    rec("after_load", e2(lib.tensor([2])))
    rec("weight_after", e2.weight)
    e3 = copy.deepcopy(e2)
    rec("deepcopy", repr(e3))
    rec("dc_shared", str(e3.weight.data_ptr() == e2.weight.data_ptr()))
    buf = io.BytesIO()
    lib.save(e2, buf)
    buf.seek(0)
    e4 = lib.load(buf, weights_only=False)
    rec("loaded", e4(lib.tensor([[0, 1]])))
    md = nn.ModuleDict({"e": nn.Embedding(2, 2), "r": nn.Embedding(2, 2, padding_idx=0)})
    rec("names", str([n for n, _ in md.named_parameters()]))
    rec("nparams", sum(p.numel() for p in md.parameters()))
