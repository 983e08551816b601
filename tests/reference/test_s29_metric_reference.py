"""Session 29 (helper metric): metric learning, knowledge distillation and continual learning
written by hand the way their reference code does, run under torch and minitorch with the same
seeds and compared record by record (float64 to 1e-10 of each record's scale, float32 to 1e-4,
texts exactly).

Covered: siamese/contrastive training (PairwiseDistance, CosineEmbeddingLoss,
MarginRankingLoss, hinge/multi-margin/soft-margin losses), triplet losses (TripletMarginLoss
with swap and p=1, TripletMarginWithDistanceLoss with lambdas and modules), batch-hard,
batch-all and semi-hard mining from label masks (also over 40 samples, cdist's matrix-product
form), N-pair, multi-similarity, circle, lifted-structure, SupCon and NT-Xent losses,
proxy-NCA and proxy-anchor, ArcFace/CosFace/SphereFace heads (easy margin, scatter one-hot,
acos at the clamp), center loss with its own optimizer, prototypical/matching/relation
networks over sampled episodes (cdist, LSTM full-context embeddings, checkpointing, unique
with inverse and counts), MAML (second order through functional_call, torch.func first order,
Reptile), retrieval metrics (recall@k by topk, mAP@R, searchsorted, histc), distillation (KL
with temperature, batchmean, log_target, legacy reductions, double backward, DKD, CRD with a
memory bank, FitNets regressors and attention transfer through forward hooks, backward hooks
and Grad-CAM, RKD distance/angle, EMA/DINO teachers with weight-normed heads, _foreach ops
and AveragedModel, SwAV's Sinkhorn), continual learning (EWC with empirical and sampled
Fisher, as buffers, by vmap(grad); SI; LwF; reservoir replay and data-utility streams with
herding; GEM/A-GEM projections with parameters_to_vector; PackNet masks and HAT gates;
growing class-incremental heads with add_param_group and BiC; iCaRL NME and DER++;
ModuleDict task heads), custom autograd Functions (gradient reversal, a hand-written ArcFace
backward under gradcheck, once_differentiable), backward refused after a distance matrix or
its inputs were changed in place, errors and reprs of the domain's modules.

Found and fixed here: cdist (every p and form but the matrix-product one), pdist, dist and
prod did not refuse backward after their result (or inputs) were changed in place, as torch's
nodes, which save them, do; repeat_interleave given output_size read a device's counts back
to the host.

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order).
- cdist's matrix-product form gives self-distances that are rounding noise (the sqrt of
  ~1e-16, 1e-8 in float64): they are masked before recording.
- A parameter whose gradient is only rounding noise (the last bias under a loss of relative
  distances; a conv bias followed by BatchNorm) is blown up by Adam/Adagrad's normalisation
  into arbitrary steps in either library: such biases are not recorded (or not used).
- The order of tied values in topk/kthvalue is implementation-defined: the programs avoid
  ties there (sort(stable=True) is compared with ties).
- cdist's second derivative: torch raises "the derivative for '_cdist_backward' is not
  implemented", minitorch differentiates it (every op is twice differentiable). Where torch
  returns a ZeroTensor second derivative (of sign/abs), minitorch returns zeros.
- The in-place refusal's message for einsum names the input's shape, torch's the shape of the
  bmm operand it made of it ([4, 3] here, [1, 4, 3] in torch); prod(dtype=...) saves the cast
  input, so changing the original in place is not refused there.
- NumPy's floating-point RuntimeWarnings show under an "always" filter (a logsumexp of an
  all -inf row, sqrt's backward at zero distance)."""

from __future__ import annotations

import copy
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "siamese", "triplet", "batch_mining", "npair_ms", "proxies", "margins", "center_loss",
    "protonet", "matching_net", "retrieval", "kd_logits", "feature_kd", "rkd", "ema_teacher",
    "ewc", "si", "lwf", "replay", "gem", "task_heads", "errors", "reprs", "backward_hooks",
    "dino", "kl_grads", "ewc_buffers", "replay_data", "pair_losses", "incremental_head",
    "packnet", "sinkhorn", "maml", "custom_functions", "proto_unique", "relation_net", "supcon",
    "dkd", "crd", "icarl_der", "mining_large", "inplace_distances",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _data(lib, dt, n=12, d=6, classes=3, seed=0):
    g = lib.Generator().manual_seed(seed)
    y = lib.arange(n) % classes
    centers = lib.randn(classes, d, generator=g, dtype=dt) * 2
    x = centers[y] + 0.5 * lib.randn(n, d, generator=g, dtype=dt)
    return x, y


def _embedder(lib, dt, d_in=6, d_out=4, seed=0):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(nn.Linear(d_in, 8), nn.ReLU(), nn.Linear(8, d_out)).to(dt)


def _classifier(lib, dt, d_in=6, hidden=10, classes=3, seed=0):
    lib.manual_seed(seed)
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, classes),
    ).to(dt)  # fmt: skip


def _label_masks(lib, y):
    same = y.unsqueeze(0) == y.unsqueeze(1)
    eye = lib.eye(y.shape[0], dtype=lib.bool)
    return same & ~eye, ~same


# --- the programs: each takes the library, a dtype and a recorder ---


def p_siamese(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt)
    net = _embedder(lib, dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    pdist = lib.nn.PairwiseDistance(p=2, eps=1e-6, keepdim=False)
    cos_loss = lib.nn.CosineEmbeddingLoss(margin=0.2)
    rank = lib.nn.MarginRankingLoss(margin=0.5, reduction="sum")
    g = lib.Generator().manual_seed(5)
    for step in range(4):
        i = lib.randperm(12, generator=g)
        j = lib.randperm(12, generator=g)
        a, b = net(x[i]), net(x[j])
        same = (y[i] == y[j]).to(dt)
        d = pdist(a, b)
        contrastive = 0.5 * (same * d.pow(2) + (1 - same) * F.relu(1.0 - d).pow(2)).mean()
        target = same * 2 - 1
        lc = cos_loss(a, b, target)
        anchor = net(x)
        d_pos = F.pairwise_distance(anchor, a, p=1.5)
        d_neg = F.pairwise_distance(anchor, b, p=1.5)
        lr_ = rank(d_neg, d_pos, lib.ones_like(d_pos))
        loss = contrastive + lc + 0.1 * lr_
        opt.zero_grad()
        loss.backward()
        rec(f"d{step}", d)
        rec(f"parts{step}", lib.stack([contrastive, lc, lr_]))
        rec(f"g{step}", net[0].weight.grad)
        opt.step()
    rec.params("net", net)
    rec("cos_none", F.cosine_embedding_loss(a, b, target, reduction="none"))
    rec("cos_sim", F.cosine_similarity(a, b, dim=1, eps=1e-8))
    rec("pd_keep", lib.nn.PairwiseDistance(p=float("inf"), keepdim=True)(a, b))
    rec("pd_p0", F.pairwise_distance(a, b, p=0))
    rec("rank_none", F.margin_ranking_loss(d_neg, d_pos, -lib.ones_like(d_pos), reduction="none"))
    rec("opt_state", opt.state_dict()["state"][0]["momentum_buffer"])


def p_triplet(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=9)
    net = _embedder(lib, dt, seed=1)
    anc_i, pos_i, neg_i = lib.tensor([0, 1, 2]), lib.tensor([3, 4, 5]), lib.tensor([4, 5, 3])
    crit = lib.nn.TripletMarginLoss(margin=0.3, p=2, swap=True)
    crit_p1 = lib.nn.TripletMarginLoss(margin=1.0, p=1, eps=1e-6, reduction="none")

    def cos_dist(u, v):
        return 1.0 - F.cosine_similarity(u, v)

    crit_cos = lib.nn.TripletMarginWithDistanceLoss(distance_function=cos_dist, margin=0.4)
    crit_l2 = lib.nn.TripletMarginWithDistanceLoss(
        distance_function=lib.nn.PairwiseDistance(), margin=0.5, swap=True, reduction="sum"
    )
    opt = lib.optim.Adam(net.parameters(), lr=0.01, betas=(0.8, 0.99), weight_decay=1e-3)
    for step in range(4):
        e = net(x)
        a, p, n = e[anc_i], e[pos_i], e[neg_i]
        l1 = crit(a, p, n)
        l2 = crit_p1(a, p, n)
        l3 = crit_cos(a, p, n)
        l4 = crit_l2(a, p, n)
        l5 = F.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: (u - v).pow(2).sum(1), margin=2.0
        )
        loss = l1 + l2.mean() + l3 + 0.1 * l4 + 0.01 * l5
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([l1, l3, l4, l5]))
        rec(f"l2_{step}", l2)
        opt.step()
    rec.params("net", net, grads=True)
    rec("f_swap", F.triplet_margin_loss(a, p, n, margin=5.0, swap=True, reduction="none"))
    rec("f_p3", F.triplet_margin_loss(a, p, n, margin=5.0, p=3))
    # anchors of one sample (1-D) broadcast the way the functional does
    rec("one_d", F.triplet_margin_loss(a[0], p[0], n[0], margin=3.0))
    st = opt.state_dict()
    rec("adam_step", st["state"][0]["step"])
    rec("adam_v", st["state"][1]["exp_avg_sq"])


def p_batch_mining(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=12, seed=2)
    net = _embedder(lib, dt, seed=2)
    opt = lib.optim.SGD(net.parameters(), lr=0.1, weight_decay=5e-4)
    pos_mask, neg_mask = _label_masks(lib, y)
    rec("pos_mask", pos_mask)
    margin = 0.5
    for step in range(3):
        e = F.normalize(net(x), p=2, dim=1)
        dist = lib.cdist(e, e, p=2)
        # batch-hard: furthest positive, closest negative
        hardest_pos = (dist * pos_mask).max(dim=1).values
        big = dist.max().detach() + 1
        hardest_neg = (dist + big * (~neg_mask)).min(dim=1).values
        bh = F.relu(hardest_pos - hardest_neg + margin).mean()
        # batch-all: every valid triplet (i, j, k)
        trip = dist.unsqueeze(2) - dist.unsqueeze(1) + margin
        valid = pos_mask.unsqueeze(2) & neg_mask.unsqueeze(1)
        trip = F.relu(trip) * valid.to(dt)
        n_pos = (trip > 1e-16).sum()
        ba = trip.sum() / (n_pos.to(dt) + 1e-16)
        frac = n_pos.to(dt) / valid.sum()
        # semi-hard: negatives further than the positive but within the margin
        dp = dist.unsqueeze(2)
        dn = dist.unsqueeze(1)
        semi = valid & (dn > dp) & (dn < dp + margin)
        sh_vals = lib.where(semi, dn, lib.full_like(dn, float("inf")))
        sh_min = sh_vals.amin(dim=2)
        has = lib.isfinite(sh_min)
        sh = (F.relu(dp.squeeze(2) - sh_min.masked_fill(~has, 0) + margin) * has).sum()
        sh = sh / has.sum().clamp(min=1)
        loss = bh + ba + sh
        opt.zero_grad()
        loss.backward()
        rec(f"losses{step}", lib.stack([bh, ba, sh, frac]))
        rec(f"npos{step}", n_pos)
        rec(f"has{step}", has.sum())
        rec(f"argmin{step}", (dist + big * (~neg_mask)).argmin(dim=1))
        opt.step()
    rec.params("net", net, grads=True)
    # pdist/pairwise by expansion and by torch.cdist's mm path agree
    sq = (e.pow(2).sum(1, keepdim=True) + e.pow(2).sum(1) - 2 * e @ e.T).clamp_min(0)
    rec("sq", sq)
    rec("pdist", F.pdist(e))
    # (the self-distances of the matrix-product form are rounding noise: sqrt of ~1e-16)
    mm = lib.cdist(e, e, compute_mode="use_mm_for_euclid_dist")
    rec("cdist_mm", mm.masked_fill(lib.eye(12, dtype=lib.bool), 0))
    rec("cdist_p1", lib.cdist(e[:4], e[4:], p=1))
    rec("triu", lib.triu_indices(4, 4, offset=1))
    rec("nonzero", pos_mask[:4].nonzero())


def p_npair_ms(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=12, seed=3)
    net = _embedder(lib, dt, seed=3)
    opt = lib.optim.Adam(net.parameters(), lr=0.02, amsgrad=True)
    pos_mask, neg_mask = _label_masks(lib, y)
    # N-pair: anchor/positive pairs from classes 0,1,2 (one pair each, two pairs per class)
    anc = lib.tensor([0, 1, 2, 3, 4, 5])
    pos = lib.tensor([6, 7, 8, 9, 10, 11])
    for step in range(3):
        e = net(x)
        logits = e[anc] @ e[pos].T
        npair = F.cross_entropy(logits, lib.arange(6)) + 0.002 * e.pow(2).sum(1).mean()
        # multi-similarity loss
        en = F.normalize(e, dim=-1)
        sim = en @ en.T
        alpha, beta, lam = 2.0, 40.0, 0.5
        pos_term = lib.log1p((lib.exp(-alpha * (sim - lam)) * pos_mask).sum(1)) / alpha
        neg_term = lib.log1p((lib.exp(beta * (sim - lam)) * neg_mask).sum(1)) / beta
        ms = (pos_term + neg_term).mean()
        # the same written with logsumexp over masked logits
        neg_logits = (beta * (sim - lam)).masked_fill(~neg_mask, float("-inf"))
        zero = lib.zeros(12, 1, dtype=dt)
        ms_lse = (lib.logsumexp(lib.cat([zero, neg_logits], 1), dim=1) / beta).mean()
        loss = npair + ms
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([npair, ms, ms_lse]))
        rec(f"sim{step}", sim)
        opt.step()
    rec.params("net", net)
    rec("max_exp_avg_sq", opt.state[net[0].weight]["max_exp_avg_sq"])
    rec("softplus", F.softplus(sim, beta=2.0, threshold=5.0))
    rec("lse_empty", lib.logsumexp(neg_logits[:, :0], dim=1))


def p_proxies(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    x, y = _data(lib, dt, n=12, seed=4)

    class ProxyAnchor(nn.Module):
        def __init__(self, n_classes, dim, margin=0.1, alpha=32.0):
            super().__init__()
            self.proxies = nn.Parameter(lib.randn(n_classes, dim, dtype=dt))
            nn.init.kaiming_normal_(self.proxies, mode="fan_out")
            self.margin, self.alpha = margin, alpha

        def forward(self, e, y):
            cos = F.linear(F.normalize(e), F.normalize(self.proxies))
            p_one = F.one_hot(y, self.proxies.shape[0]).to(cos.dtype)
            n_one = 1 - p_one
            pos_exp = lib.exp(-self.alpha * (cos - self.margin))
            neg_exp = lib.exp(self.alpha * (cos + self.margin))
            with_pos = lib.nonzero(p_one.sum(dim=0) != 0).squeeze(dim=1)
            p_sim = lib.where(p_one == 1, pos_exp, lib.zeros_like(pos_exp)).sum(dim=0)
            n_sim = lib.where(n_one == 1, neg_exp, lib.zeros_like(neg_exp)).sum(dim=0)
            pos_term = lib.log(1 + p_sim).sum() / len(with_pos)
            neg_term = lib.log(1 + n_sim).sum() / self.proxies.shape[0]
            return pos_term + neg_term

    lib.manual_seed(4)
    net = _embedder(lib, dt, seed=4)
    pa = ProxyAnchor(3, 4)
    proxies_nca = nn.Parameter(lib.randn(3, 4, dtype=dt) * 0.1)
    opt = lib.optim.AdamW(
        [
            {"params": net.parameters()},
            {"params": pa.parameters(), "lr": 0.1},
            {"params": [proxies_nca], "lr": 0.05, "weight_decay": 0.0},
        ],
        lr=0.01,
    )
    for step in range(3):
        e = net(x)
        la = pa(e, y)
        # proxy-NCA: softmax over negative squared distances to normalised proxies
        d = lib.cdist(F.normalize(e) * 3, F.normalize(proxies_nca) * 3).pow(2)
        nca = F.cross_entropy(-d, y, label_smoothing=0.1)
        nca2 = -F.log_softmax(-d, dim=1).gather(1, y[:, None]).mean()
        loss = la + nca
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([la, nca, nca2]))
        rec(f"gp{step}", pa.proxies.grad)
        opt.step()
    rec.params("pa", pa)
    rec("nca_proxies", proxies_nca)
    rec("pred", (-d).argmax(1))
    rec("lr", [gr["lr"] for gr in opt.param_groups])


def p_margins(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn

    class MarginHead(nn.Module):
        def __init__(self, dim, n, s=16.0, m=0.4, kind="arc", easy=False):
            super().__init__()
            self.weight = nn.Parameter(lib.empty(n, dim, dtype=dt))
            nn.init.xavier_uniform_(self.weight)
            self.s, self.m, self.kind, self.easy = s, m, kind, easy
            self.cos_m, self.sin_m = math.cos(m), math.sin(m)
            self.th = math.cos(math.pi - m)
            self.mm = math.sin(math.pi - m) * m

        def forward(self, e, y):
            cos = F.linear(F.normalize(e), F.normalize(self.weight)).clamp(-1 + 1e-7, 1 - 1e-7)
            one_hot = lib.zeros_like(cos)
            one_hot.scatter_(1, y.view(-1, 1).long(), 1)
            if self.kind == "cos":
                target = cos - self.m
            elif self.kind == "sphere":
                theta = lib.acos(cos)
                target = lib.cos(2 * theta)
            else:
                sin = lib.sqrt((1.0 - cos.pow(2)).clamp(0, 1))
                phi = cos * self.cos_m - sin * self.sin_m
                if self.easy:
                    target = lib.where(cos > 0, phi, cos)
                else:
                    target = lib.where(cos > self.th, phi, cos - self.mm)
            out = one_hot * target + (1.0 - one_hot) * cos
            return out * self.s

    x, y = _data(lib, dt, n=12, seed=5)
    for kind, easy in [("arc", False), ("arc", True), ("cos", False), ("sphere", False)]:
        net = _embedder(lib, dt, seed=5)
        lib.manual_seed(6)
        head = MarginHead(4, 3, kind=kind, easy=easy)
        opt = lib.optim.SGD(list(net.parameters()) + list(head.parameters()), lr=0.05)
        for step in range(3):
            logits = head(net(x), y)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            rec(f"{kind}{easy}.loss{step}", loss)
            opt.step()
        rec(f"{kind}{easy}.logits", logits)
        rec(f"{kind}{easy}.w", head.weight)
        rec(f"{kind}{easy}.g", net[2].weight.grad)
    # acos at the clamp edges and the theta + m form
    c = lib.tensor([-1.0, -0.5, 0.0, 0.5, 1.0], dtype=dt, requires_grad=True)
    theta = lib.acos(c.clamp(-1 + 1e-7, 1 - 1e-7))
    out = lib.cos(theta + 0.5)
    out.sum().backward()
    rec("theta", theta)
    rec("cos_tm", out)
    rec("g_c", c.grad)
    rec("one_hot", F.one_hot(lib.tensor([2, 0, 1]), num_classes=4))
    rec("one_hot_auto", F.one_hot(lib.tensor([[1], [3]])))


def p_center_loss(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    x, y = _data(lib, dt, n=12, seed=6)

    class CenterLoss(nn.Module):
        def __init__(self, n, dim):
            super().__init__()
            self.centers = nn.Parameter(lib.randn(n, dim, dtype=dt))

        def forward(self, e, y):
            b = e.size(0)
            dist = (
                e.pow(2).sum(dim=1, keepdim=True).expand(b, 3)
                + self.centers.pow(2).sum(dim=1, keepdim=True).expand(3, b).t()
            )
            dist.addmm_(e, self.centers.t(), beta=1, alpha=-2)
            classes = lib.arange(3).long()
            mask = y.unsqueeze(1).expand(b, 3).eq(classes.expand(b, 3))
            d = dist * mask.to(dt)
            return d.clamp(min=1e-12, max=1e12).sum() / b

    lib.manual_seed(7)
    net = _embedder(lib, dt, seed=7)
    fc = nn.Linear(4, 3).to(dt)
    closs = CenterLoss(3, 4)
    opt = lib.optim.SGD(list(net.parameters()) + list(fc.parameters()), lr=0.05, momentum=0.9)
    opt_c = lib.optim.SGD(closs.parameters(), lr=0.5)
    w = 0.1
    for step in range(4):
        e = net(x)
        loss = F.cross_entropy(fc(e), y) + w * closs(e, y)
        opt.zero_grad()
        opt_c.zero_grad()
        loss.backward()
        # the centres learn at their own rate, independent of the loss weight
        for p in closs.parameters():
            p.grad.data *= 1.0 / w
        opt.step()
        opt_c.step()
        rec(f"loss{step}", loss)
        rec(f"centers{step}", closs.centers)
    # centre update by index_add_ (the classic moving-average rule)
    with lib.no_grad():
        c = closs.centers.detach().clone()
        diff = c[y] - e
        upd = lib.zeros_like(c).index_add_(0, y, diff)
        counts = lib.bincount(y, minlength=3).to(dt).unsqueeze(1)
        c -= 0.5 * upd / (1 + counts)
    rec("c_new", c)
    rec("counts", lib.bincount(y, minlength=5))
    rec("scatter_mean", lib.zeros(3, 4, dtype=dt).index_reduce_(0, y, e.detach(), "mean"))


def p_protonet(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(8)
    n_cls, n_per, d = 6, 5, 6
    centers = lib.randn(n_cls, d, generator=g, dtype=dt) * 1.5
    data = centers.repeat_interleave(n_per, 0) + 0.6 * lib.randn(n_cls * n_per, d, generator=g,
                                                                  dtype=dt)  # fmt: skip
    labels = lib.arange(n_cls).repeat_interleave(n_per)
    net = _embedder(lib, dt, seed=8)
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    way, shot, query = 3, 2, 3
    for ep in range(4):
        classes = lib.randperm(n_cls, generator=g)[:way]
        sup, qry = [], []
        for c in classes.tolist():
            idx = (labels == c).nonzero(as_tuple=True)[0]
            perm = idx[lib.randperm(len(idx), generator=g)]
            sup.append(data[perm[:shot]])
            qry.append(data[perm[shot : shot + query]])
        sup = lib.stack(sup)  # way, shot, d
        qry = lib.cat(qry)  # way*query, d
        tgt = lib.arange(way).repeat_interleave(query)
        emb_s = net(sup.view(-1, d)).view(way, shot, -1)
        protos = emb_s.mean(1)
        emb_q = net(qry)
        dists = lib.cdist(emb_q, protos).pow(2)
        logp = F.log_softmax(-dists, dim=1)
        loss = F.nll_loss(logp, tgt)
        acc = (logp.argmax(1) == tgt).float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"classes{ep}", classes)
        rec(f"loss{ep}", loss)
        rec(f"acc{ep}", acc)
        rec(f"logp{ep}", logp)
    # (the last bias has no gradient but rounding noise: distances ignore a common shift)
    rec.params("net", net, view=lambda n, p: p if n != "2.bias" else p.shape[0])
    # squared euclidean by broadcasting equals cdist**2
    d2 = (emb_q.unsqueeze(1) - protos.unsqueeze(0)).pow(2).sum(-1)
    rec("d2", d2)
    rec("softmax", F.softmax(-d2, dim=-1))


def p_matching_net(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(9)
    B, way, shot, q, d = 2, 3, 2, 4, 6
    sup = lib.randn(B, way * shot, d, generator=g, dtype=dt)
    sup_y = lib.arange(way).repeat_interleave(shot).expand(B, -1)
    qry = sup[:, lib.tensor([0, 2, 4, 1])] + 0.3 * lib.randn(B, q, d, generator=g, dtype=dt)
    qry_y = lib.tensor([0, 1, 2, 0]).expand(B, -1)
    lib.manual_seed(9)
    enc = nn.Sequential(nn.Linear(d, 8), nn.LayerNorm(8), nn.GELU(), nn.Linear(8, 5)).to(dt)
    lstm = nn.LSTM(5, 5, batch_first=True, bidirectional=True).to(dt)
    opt = lib.optim.RMSprop(list(enc.parameters()) + list(lstm.parameters()), lr=0.01)
    for step in range(3):
        es = enc(sup)
        ctx, _ = lstm(es)
        es = es + ctx[..., :5] + ctx[..., 5:]  # full-context embedding
        eq = enc(qry)
        sim = F.cosine_similarity(eq.unsqueeze(2), es.unsqueeze(1), dim=-1)  # B, q, way*shot
        att = F.softmax(sim * 10, dim=-1)
        one_hot = F.one_hot(sup_y, way).to(dt)
        probs = lib.bmm(att, one_hot)  # B, q, way
        loss = F.nll_loss(lib.log(probs.clamp_min(1e-8)).flatten(0, 1), qry_y.flatten())
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(enc.parameters(), max_norm=1.0)
        rec(f"loss{step}", loss)
        rec(f"probs{step}", probs)
        opt.step()
    rec.params("enc", enc)
    rec("lstm_w", lstm.weight_hh_l0_reverse)
    rec("einsum", lib.einsum("bqd,bkd->bqk", F.normalize(eq, dim=-1), F.normalize(es, dim=-1)))


def p_retrieval(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(10)
    n, d, n_cls = 20, 5, 4
    y = lib.randint(0, n_cls, (n,), generator=g)
    emb = F.normalize(lib.randn(n, d, generator=g, dtype=dt) + lib.eye(n_cls, d, dtype=dt)[y] * 2)
    sim = emb @ emb.T
    sim.fill_diagonal_(float("-inf"))
    same = y[:, None] == y[None, :]
    same.fill_diagonal_(False)
    for k in (1, 2, 4, 8):
        idx = sim.topk(k, dim=1).indices
        hit = same.gather(1, idx).any(dim=1)
        rec(f"recall@{k}", hit.float().mean())
    # mAP@R: R = number of relevant items per query
    R = same.sum(1)
    order = sim.argsort(dim=1, descending=True, stable=True)
    rel = same.gather(1, order).to(dt)
    ranks = lib.arange(1, n + 1, dtype=dt)
    within = ranks.unsqueeze(0) <= R.unsqueeze(1)
    prec = rel.cumsum(1) / ranks
    ap = (prec * rel * within).sum(1) / R.clamp(min=1).to(dt)
    rec("R", R)
    rec("mapr", ap.mean())
    rec("ap", ap)
    rec("order", order[:5])
    # precision@1 and r-precision by sort values, then cosine top-k with largest=False on distances
    d = lib.cdist(emb, emb)
    d.fill_diagonal_(float("inf"))
    vals, nn_idx = d.topk(3, dim=1, largest=False, sorted=True)
    rec("nn_vals", vals)
    rec("nn_idx", nn_idx)
    rec("p@1", (y[nn_idx[:, 0]] == y).to(dt).mean())
    rp = [(same[i].gather(0, order[i, : int(R[i])]).sum() / max(int(R[i]), 1)) for i in range(n)]
    rec("r_prec", lib.stack(rp).to(dt))
    # recall at k from a sorted relevance matrix via searchsorted
    first = rel.argmax(dim=1)
    rec("first_hit", first)
    rec("hist", lib.histc(first.to(dt), bins=5, min=0, max=5))
    rec("ss", lib.searchsorted(lib.tensor([1, 2, 4, 8]), first, right=True))


def p_kd_logits(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=12, seed=11)
    teacher = _classifier(lib, dt, hidden=16, seed=11)
    student = _classifier(lib, dt, hidden=6, seed=12)
    teacher.eval()
    opt = lib.optim.SGD(student.parameters(), lr=0.1, momentum=0.9, dampening=0.1)
    kl = lib.nn.KLDivLoss(reduction="batchmean")
    kl_log = lib.nn.KLDivLoss(reduction="batchmean", log_target=True)
    T, alpha = 4.0, 0.7
    for step in range(4):
        with lib.no_grad():
            t_logits = teacher(x)
        s_logits = student(x)
        soft = kl(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1)) * T * T
        soft2 = kl_log(F.log_softmax(s_logits / T, dim=1), F.log_softmax(t_logits / T, dim=1))
        hard = F.cross_entropy(s_logits, y)
        loss = alpha * soft + (1 - alpha) * hard
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([soft, soft2 * T * T, hard]))
        rec(f"g{step}", student[4].weight.grad)
        opt.step()
    rec.params("student", student)
    ls = F.log_softmax(s_logits, 1)
    pt = F.softmax(t_logits, 1)
    rec("kl_sum", F.kl_div(ls, pt, reduction="sum"))
    rec("kl_none", F.kl_div(ls, pt, reduction="none"))
    rec("kl_zero_target", F.kl_div(ls, lib.zeros_like(pt), reduction="sum"))
    rec.warns("kl_mean", lambda: F.kl_div(ls, pt, reduction="mean"))
    rec("soft_ce", F.cross_entropy(s_logits, pt))
    rec("soft_ce_ls", F.cross_entropy(s_logits, pt, label_smoothing=0.2))
    # JS divergence by hand
    m = 0.5 * (F.softmax(s_logits, 1) + pt)
    js = 0.5 * (F.kl_div(m.log(), pt, reduction="batchmean")
                + F.kl_div(m.log(), F.softmax(s_logits, 1), reduction="batchmean"))  # fmt: skip
    rec("js", js)
    rec("entropy", lib.distributions.Categorical(logits=t_logits).entropy())
    rec("xlogy", lib.special.xlogy(pt, pt / F.softmax(s_logits, 1)).sum(1))


def p_feature_kd(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(13)
    x = lib.randn(4, 3, 8, 8, generator=g, dtype=dt)
    y = lib.tensor([0, 1, 2, 1])

    def cnn(ch, seed):
        lib.manual_seed(seed)
        return nn.Sequential(
            nn.Conv2d(3, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(ch, 3),
        ).to(dt)  # fmt: skip

    teacher, student = cnn(8, 13), cnn(4, 14)
    teacher.eval()
    feats = {}

    def save(name):
        def hook(module, inp, out):
            feats[name] = out

        return hook

    handles = [
        teacher[2].register_forward_hook(save("t1")),
        teacher[4].register_forward_hook(save("t2")),
        student[2].register_forward_hook(save("s1")),
        student[4].register_forward_hook(save("s2")),
    ]
    lib.manual_seed(15)
    regress = nn.ModuleList([nn.Conv2d(4, 8, 1, bias=False), nn.Conv2d(4, 8, 1)]).to(dt)
    opt = lib.optim.Adam(list(student.parameters()) + list(regress.parameters()), lr=0.01)

    def at(f):
        return F.normalize(f.pow(2).mean(1).view(f.size(0), -1))

    for step in range(3):
        with lib.no_grad():
            teacher(x)
        logits = student(x)
        pairs = (("s1", "t1"), ("s2", "t2"))
        fitnet = sum(
            F.mse_loss(r(feats[s]), feats[t]) for r, (s, t) in zip(regress, pairs, strict=True)
        )
        at_loss = sum((at(feats[s]) - at(feats[t])).pow(2).mean() for s, t in pairs)
        loss = F.cross_entropy(logits, y) + fitnet + 100 * at_loss
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([fitnet, at_loss, loss]))
        rec(f"g{step}", student[0].weight.grad)
        opt.step()
    for h in handles:
        h.remove()
    teacher(x)
    rec("hooks_removed", len(teacher[2]._forward_hooks))
    rec("bn_mean", student[1].running_mean)
    rec("bn_var", student[1].running_var)
    rec("bn_nbt", student[1].num_batches_tracked)
    rec.params("regress", regress)
    # a hook that returns a replacement output, and a pre-hook that scales the input
    h1 = student[2].register_forward_hook(lambda m, i, o: o * 0)
    h2 = student[0].register_forward_pre_hook(lambda m, i: (i[0] * 2,))
    student.eval()
    rec("hooked", student(x))
    h1.remove()
    h2.remove()
    rec("unhooked", student(x))


def p_rkd(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=10, seed=16)
    teacher = _embedder(lib, dt, d_out=5, seed=16)
    student = _embedder(lib, dt, d_out=3, seed=17)
    opt = lib.optim.Adagrad(student.parameters(), lr=0.05, lr_decay=0.01)

    def pdist(e, squared=False, eps=1e-12):
        prod = e @ e.t()
        sq = prod.diag()
        res = (sq.unsqueeze(1) + sq.unsqueeze(0) - 2 * prod).clamp(min=eps)
        if not squared:
            res = res.sqrt()
        res = res.clone()
        res[range(len(e)), range(len(e))] = 0
        return res

    def rkd_dist(s, t):
        with lib.no_grad():
            td = pdist(t)
            td = td / td[td > 0].mean()
        sd = pdist(s)
        sd = sd / sd[sd > 0].mean()
        return F.smooth_l1_loss(sd, td, reduction="mean")

    def rkd_angle(s, t):
        with lib.no_grad():
            tv = t.unsqueeze(0) - t.unsqueeze(1)
            tn = F.normalize(tv, p=2, dim=2)
            ta = lib.bmm(tn, tn.transpose(1, 2)).view(-1)
        sv = s.unsqueeze(0) - s.unsqueeze(1)
        sn = F.normalize(sv, p=2, dim=2)
        sa = lib.bmm(sn, sn.transpose(1, 2)).view(-1)
        return F.smooth_l1_loss(sa, ta, beta=0.5)

    for step in range(3):
        with lib.no_grad():
            t = teacher(x)
        s = student(x)
        ld, la = rkd_dist(s, t), rkd_angle(s, t)
        loss = ld + 2 * la
        opt.zero_grad()
        loss.backward()
        rec(f"l{step}", lib.stack([ld, la]))
        rec(f"g{step}", student[0].bias.grad)
        opt.step()
    # (the last bias has no gradient but rounding noise: relative distances ignore a shift)
    rec.params("student", student, view=lambda n, p: p if n != "2.bias" else p.shape[0])
    rec("sum_sq", opt.state[student[0].weight]["sum"])
    rec("huber", F.huber_loss(s, s.flip(0), delta=0.3, reduction="none"))
    rec("pd", pdist(s, squared=True))


def p_ema_teacher(lib, dt, rec):
    F = lib.nn.functional
    x, y = _data(lib, dt, n=12, seed=18)
    student = _classifier(lib, dt, seed=18)
    student.insert(2, lib.nn.Dropout(0.0)) if hasattr(student, "insert") else None
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    opt = lib.optim.SGD(student.parameters(), lr=0.2)
    decay = 0.9
    g = lib.Generator().manual_seed(19)
    for step in range(4):
        noise = 0.1 * lib.randn(x.shape, generator=g, dtype=dt)
        s_out = student(x + noise)
        with lib.no_grad():
            t_out = teacher(x - noise)
        cons = F.mse_loss(F.softmax(s_out, 1), F.softmax(t_out, 1), reduction="sum") / x.shape[0]
        loss = F.cross_entropy(s_out, y) + 2.0 * cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            for tp, sp in zip(teacher.parameters(), student.parameters(), strict=True):
                tp.mul_(decay).add_(sp.detach(), alpha=1 - decay)
        rec(f"loss{step}", loss)
        rec(f"cons{step}", cons)
    rec.params("teacher", teacher)
    rec("t_req", str([p.requires_grad for p in teacher.parameters()]))
    # the same EMA through torch.optim.swa_utils.AveragedModel and by lerp_ on state_dict
    ema = lib.optim.swa_utils.AveragedModel(
        student, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    )
    for _ in range(3):
        with lib.no_grad():
            for p in student.parameters():
                p.add_(0.01)
        ema.update_parameters(student)
    rec("n_averaged", ema.n_averaged)
    rec.params("ema", ema.module)
    sd_t = teacher.state_dict()
    for k, v in student.state_dict().items():
        sd_t[k].lerp_(v, 0.5)
    rec("lerp", sd_t["0.weight"])
    rec("foreach", lib._foreach_mul(list(teacher.parameters())[:2], 0.5)[1])


def p_ewc(lib, dt, rec):
    F = lib.nn.functional
    x1, y1 = _data(lib, dt, n=12, seed=20)
    x2, y2 = _data(lib, dt, n=12, seed=21)
    net = _classifier(lib, dt, seed=20)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(net(x1), y1).backward()
        opt.step()
    # empirical Fisher from per-sample squared gradients
    fisher = {n: lib.zeros_like(p) for n, p in net.named_parameters()}
    net.eval()
    for i in range(x1.shape[0]):
        net.zero_grad()
        out = net(x1[i : i + 1])
        F.nll_loss(F.log_softmax(out, dim=1), y1[i : i + 1]).backward()
        for n, p in net.named_parameters():
            if p.grad is not None:
                fisher[n] += p.grad.detach() ** 2 / x1.shape[0]
    star = {n: p.detach().clone() for n, p in net.named_parameters()}
    for n in ("0.weight", "4.bias"):
        rec("fisher." + n, fisher[n])
    net.train()
    lam = 50.0
    for step in range(4):
        opt.zero_grad()
        task = F.cross_entropy(net(x2), y2)
        pen = sum((fisher[n] * (p - star[n]).pow(2)).sum() for n, p in net.named_parameters())
        loss = task + lam / 2 * pen
        loss.backward()
        opt.step()
        rec(f"l{step}", lib.stack([task, pen]))
    rec.params("net", net)
    # the Fisher from torch.func: per-sample grads by vmap(grad(functional_call))
    params = {k: v.detach() for k, v in net.named_parameters()}

    def loss_one(p, xi, yi):
        out = lib.func.functional_call(net, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    per = lib.func.vmap(lib.func.grad(loss_one), in_dims=(None, 0, 0))(params, x1, y1)
    rec("func_fisher", per["4.bias"].pow(2).mean(0))
    rec("func_shape", str(tuple(per["0.weight"].shape)))


def p_si(lib, dt, rec):
    F = lib.nn.functional
    x1, y1 = _data(lib, dt, n=12, seed=22)
    x2, y2 = _data(lib, dt, n=12, seed=23)
    net = _classifier(lib, dt, seed=22)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    names = [n for n, _ in net.named_parameters()]
    w = {n: lib.zeros_like(p) for n, p in net.named_parameters()}
    omega = {n: lib.zeros_like(p) for n, p in net.named_parameters()}
    prev = {n: p.detach().clone() for n, p in net.named_parameters()}
    start = {n: p.detach().clone() for n, p in net.named_parameters()}
    c, xi = 0.5, 1e-3

    def train(x, y, steps, anchor=None):
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(net(x), y)
            if anchor is not None:
                loss = loss + c * sum(
                    (omega[n] * (p - anchor[n]).pow(2)).sum() for n, p in net.named_parameters()
                )
            loss.backward()
            grads = {n: p.grad.detach().clone() for n, p in net.named_parameters()}
            opt.step()
            for n, p in net.named_parameters():
                delta = p.detach() - prev[n]
                w[n] -= grads[n] * delta
                prev[n] = p.detach().clone()
        return loss

    rec("l1", train(x1, y1, 4))
    for n, p in net.named_parameters():
        omega[n] += w[n] / ((p.detach() - start[n]).pow(2) + xi)
        w[n].zero_()
    anchor = {n: p.detach().clone() for n, p in net.named_parameters()}
    rec("omega0", omega[names[0]])
    rec("omega_max", lib.stack([o.max() for o in omega.values()]))
    rec("l2", train(x2, y2, 4, anchor))
    rec.params("net", net)
    rec("w", w[names[-1]])


def p_lwf(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    x1, y1 = _data(lib, dt, n=12, seed=24)
    x2, y2 = _data(lib, dt, n=12, seed=25)
    lib.manual_seed(24)
    backbone = nn.Sequential(nn.Linear(6, 10), nn.ReLU()).to(dt)
    heads = nn.ModuleList([nn.Linear(10, 3).to(dt)])
    opt = lib.optim.SGD(list(backbone.parameters()) + list(heads.parameters()), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        F.cross_entropy(heads[0](backbone(x1)), y1).backward()
        opt.step()
    old_backbone, old_heads = copy.deepcopy(backbone), copy.deepcopy(heads)
    old_backbone.requires_grad_(False)
    heads.append(nn.Linear(10, 3).to(dt))
    # warm start the new head from the old one's weights
    heads[1].load_state_dict(heads[0].state_dict())
    opt = lib.optim.SGD(list(backbone.parameters()) + list(heads.parameters()), lr=0.05)
    T = 2.0
    for step in range(4):
        with lib.no_grad():
            old_logits = old_heads[0](old_backbone(x2))
        f = backbone(x2)
        new = F.cross_entropy(heads[1](f), y2)
        distill = -(F.softmax(old_logits / T, 1) * F.log_softmax(heads[0](f) / T, 1)).sum(1)
        loss = new + distill.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"l{step}", lib.stack([new, distill.mean()]))
    rec.params("heads", heads)
    rec("old_same", lib.equal(old_heads[0].weight, heads[0].weight))
    rec("old_req", old_backbone[0].weight.requires_grad)
    rec("heads_len", len(heads))


def p_replay(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(26)
    cap = 8
    buf_x = lib.zeros(cap, 6, dtype=dt)
    buf_y = lib.full((cap,), -1, dtype=lib.long)
    seen = 0
    net = _classifier(lib, dt, seed=26)
    opt = lib.optim.Adam(net.parameters(), lr=0.01)
    for task in range(3):
        x, y = _data(lib, dt, n=12, seed=27 + task)
        for step in range(2):
            bx, by = x[step * 6 : step * 6 + 6], y[step * 6 : step * 6 + 6]
            if seen > 0:
                k = min(seen, cap)
                ridx = lib.randint(0, k, (4,), generator=g)
                tx = lib.cat([bx, buf_x[ridx]])
                ty = lib.cat([by, buf_y[ridx]])
            else:
                tx, ty = bx, by
            loss = F.cross_entropy(net(tx), ty)
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"loss{task}.{step}", loss)
            # reservoir sampling
            for i in range(bx.shape[0]):
                if seen < cap:
                    buf_x[seen] = bx[i]
                    buf_y[seen] = by[i]
                else:
                    j = int(lib.randint(0, seen + 1, (1,), generator=g))
                    if j < cap:
                        buf_x[j] = bx[i]
                        buf_y[j] = by[i]
                seen += 1
        rec(f"buf_y{task}", buf_y)
    rec("buf_x", buf_x)
    rec("seen", seen)
    # the same with a TensorDataset + WeightedRandomSampler over the buffer
    ds = lib.utils.data.TensorDataset(buf_x, buf_y)
    wts = lib.bincount(buf_y, minlength=3).to(dt)[buf_y].reciprocal()
    sampler = lib.utils.data.WeightedRandomSampler(wts, 6, replacement=True, generator=g)
    dl = lib.utils.data.DataLoader(ds, batch_size=3, sampler=sampler)
    for i, (_, by) in enumerate(dl):
        rec(f"dl{i}", by)
    rec.params("net", net)


def p_gem(lib, dt, rec):
    F = lib.nn.functional
    pv, vp = lib.nn.utils.parameters_to_vector, lib.nn.utils.vector_to_parameters
    x1, y1 = _data(lib, dt, n=12, seed=30)
    x2, y2 = _data(lib, dt, n=12, seed=31)
    net = _classifier(lib, dt, seed=30)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)

    def flat_grad(x, y):
        net.zero_grad()
        F.cross_entropy(net(x), y).backward()
        return lib.cat([p.grad.reshape(-1) for p in net.parameters()])

    def set_grad(v):
        i = 0
        for p in net.parameters():
            n = p.numel()
            p.grad.copy_(v[i : i + n].view_as(p))
            i += n

    for _ in range(2):
        g = flat_grad(x1, y1)
        set_grad(g)
        opt.step()
    mem_x, mem_y = x1[:6], y1[:6]
    for step in range(4):
        g_ref = flat_grad(mem_x, mem_y)
        g = flat_grad(x2, y2)
        dot = lib.dot(g, g_ref)
        # A-GEM projection when the new gradient conflicts with the reference one
        proj = lib.where(dot < 0, g - dot / g_ref.dot(g_ref) * g_ref, g)
        set_grad(proj)
        opt.step()
        rec(f"dot{step}", dot)
        rec(f"cos{step}", F.cosine_similarity(proj, g_ref, dim=0))
    rec.params("net", net)
    # GEM with two memories: project onto the cone by a tiny dual problem solved by NNLS steps
    G = lib.stack([flat_grad(x1[:6], y1[:6]), flat_grad(x1[6:], y1[6:])])
    g = flat_grad(x2, y2)
    P = G @ G.T
    q = G @ g
    v = lib.zeros(2, dtype=dt)
    for _ in range(50):
        v = (v - 0.5 * (P @ v + q) / P.diagonal().max()).clamp(min=0)
    g_tilde = g + G.T @ v
    rec("v", v)
    rec("Gg", G @ g_tilde)
    # parameters <-> vector round trip
    vec = pv(net.parameters())
    rec("vec", vec)
    vp(vec * 0.5, net.parameters())
    rec("halved", net[0].bias)
    rec("n", vec.numel())


def p_task_heads(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn

    class MultiHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
            self.heads = nn.ModuleDict()

        def add_task(self, name, n):
            self.heads[name] = nn.Linear(8, n)

        def forward(self, x, task):
            return self.heads[task](self.body(x))

    lib.manual_seed(32)
    m = MultiHead()
    for t, n in (("t0", 3), ("t1", 2)):
        m.add_task(t, n)
    m.to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.5)
    for step in range(3):
        for ti, t in enumerate(m.heads):
            x, y = _data(lib, dt, n=8, classes=3 - ti, seed=33 + ti)
            loss = F.cross_entropy(m(x, t), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"{t}.loss{step}", loss)
    rec("keys", str(list(m.heads.keys())))
    rec("names", str([n for n, _ in m.named_parameters()]))
    sd = m.state_dict()
    rec("sd_keys", str(list(sd.keys())))
    # freeze the body, add a new head and load the old state non-strictly
    m2 = MultiHead()
    m2.add_task("t0", 3)
    m2.add_task("t2", 4)
    m2.to(dt)
    res = m2.load_state_dict(sd, strict=False)
    rec("missing", str(res.missing_keys))
    rec("unexpected", str(res.unexpected_keys))
    rec.err("strict", lambda: m2.load_state_dict(sd))
    m2.body.requires_grad_(False)
    rec("trainable", sum(p.numel() for p in m2.parameters() if p.requires_grad))
    rec("t0_out", m2(_data(lib, dt, n=4)[0], "t0"))
    rec("pop", str(m2.heads.pop("t2")))
    rec("len", len(m2.heads))
    rec("in", "t2" in m2.heads)
    m2.heads.update({"t3": nn.Identity()})
    rec("items", str([k for k, _ in m2.heads.items()]))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    a = lib.ones(4, 3, dtype=dt)
    rec.err("trip_shape", lambda: F.triplet_margin_loss(a, a, lib.ones(4, 2, dtype=dt)))
    rec.err("trip_dims", lambda: F.triplet_margin_loss(a, a[0], a))
    rec.err("cdist_dims", lambda: lib.cdist(a, lib.ones(4, 2, dtype=dt)))
    rec.err("cdist_1d", lambda: lib.cdist(a[0], a[0]))
    rec.err("cdist_p", lambda: lib.cdist(a, a, p=-1))
    rec.err("pdist_2d", lambda: F.pdist(lib.ones(2, 2, 2, dtype=dt)))
    rec.err("cos_emb_target", lambda: F.cosine_embedding_loss(a, a, lib.ones(3, dtype=dt)))
    rec.err("cos_emb_dims", lambda: F.cosine_embedding_loss(a, a[:, :2], lib.ones(4, dtype=dt)))
    rec.err("rank_shape", lambda: F.margin_ranking_loss(a[:, 0], a[:2, 0], a[:, 0]))
    rec.err("one_hot_small", lambda: F.one_hot(lib.tensor([0, 3]), 3))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    rec.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0])))
    rec.err("kl_shape", lambda: F.kl_div(a, lib.ones(4, 2, dtype=dt), reduction="batchmean"))
    rec.err("nll_target", lambda: F.nll_loss(a, lib.tensor([0, 1, 3, 0])))
    rec.err("pd_shape", lambda: F.pairwise_distance(a, lib.ones(3, 3, dtype=dt)))
    rec.err("vec2par", lambda: nn.utils.vector_to_parameters(a, [nn.Parameter(a.clone())]))
    rec.err("moduledict_key", lambda: nn.ModuleDict({"a.b": nn.Identity()}))
    rec.err("moduledict_get", lambda: nn.ModuleDict()["x"])
    rec.err("randperm_neg", lambda: lib.randperm(-1))
    rec.err("topk_k", lambda: a.topk(5, dim=1))
    rec.err("reduction", lambda: F.triplet_margin_loss(a, a, a, reduction="avg"))
    rec.err("td_reduction", lambda: nn.TripletMarginWithDistanceLoss(reduction="x")(a, a, a))
    rec.err("margin_neg", lambda: nn.TripletMarginWithDistanceLoss(margin=-1.0)(a, a, a))
    rec.err("swa_fn", lambda: lib.optim.swa_utils.get_ema_multi_avg_fn(1.5))
    rec.warns("kl_mean", lambda: F.kl_div(a.log_softmax(1), a.softmax(1)))
    rec.warns("cos_sim_bcast", lambda: F.cosine_similarity(a, a[:1]))
    rec.err("trip_zero", lambda: F.triplet_margin_loss(a, a, a, margin=0.0))
    rec("pd_eps", F.pairwise_distance(a, a))
    rec("cos_zero", F.cosine_similarity(lib.zeros(2, 3, dtype=dt), a[:2]))


def p_reprs(lib, dt, rec):
    nn = lib.nn
    rec("trip", repr(nn.TripletMarginLoss(margin=0.3, swap=True)))
    rec("pdist", repr(nn.PairwiseDistance(p=1.0, keepdim=True)))
    rec("pdist_default", repr(nn.PairwiseDistance()))
    rec("cos_emb", repr(nn.CosineEmbeddingLoss(margin=0.1)))
    rec("rank", repr(nn.MarginRankingLoss()))
    rec("kl", repr(nn.KLDivLoss(reduction="batchmean", log_target=True)))
    rec("cos_sim", repr(nn.CosineSimilarity(dim=0)))
    rec("td", repr(nn.TripletMarginWithDistanceLoss(margin=0.5)))
    lib.manual_seed(0)
    md = nn.ModuleDict({"t0": nn.Linear(4, 2), "t1": nn.Sequential(nn.Linear(4, 3), nn.ReLU())})
    rec("md", repr(md))
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    rec("ml", repr(ml))
    rec("pl", repr(nn.ParameterList([nn.Parameter(lib.ones(2, dtype=dt))])))
    rec("pd", repr(nn.ParameterDict({"proxy": nn.Parameter(lib.ones(2, 3, dtype=dt))})))
    ema = lib.optim.swa_utils.AveragedModel(nn.Linear(2, 1))
    rec("ema", repr(ema))
    rec("ema_buf", str([n for n, _ in ema.named_buffers()]))
    rec("flatten", repr(nn.Flatten(0, -1)))
    rec("x", repr(lib.ones(2, dtype=dt) * 0.5))


def p_backward_hooks(lib, dt, rec):
    """Gradient-based distillation: full backward hooks and tensor hooks capture the teacher's
    feature gradients (Grad-CAM maps) that the student's attention is matched to."""
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(40)
    x = lib.randn(3, 2, 6, 6, generator=g, dtype=dt)
    y = lib.tensor([0, 1, 1])
    lib.manual_seed(40)
    teacher = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2),
    ).to(dt)  # fmt: skip
    store = {}

    def fwd(m, args, kwargs, out):
        store["kw"] = sorted(kwargs)
        store["act"] = out

    def bwd(m, grad_in, grad_out):
        store["gin"] = [None if t is None else t.detach().clone() for t in grad_in]
        store["gout"] = grad_out[0].detach().clone()

    h1 = teacher[3].register_forward_hook(fwd, with_kwargs=True)
    h2 = teacher[3].register_full_backward_hook(bwd)
    order = []
    h3 = teacher[3].register_forward_hook(lambda *a: order.append("prepended"), prepend=True)
    h4 = teacher[3].register_forward_hook(lambda *a: order.append("last"))
    out = teacher(x)
    act = store["act"]
    tgrads = []
    act.register_hook(lambda gr: tgrads.append(gr.clone()))
    out.gather(1, y[:, None]).sum().backward()
    rec("order", str(order))
    rec("kw", str(store["kw"]))
    rec("gout", store["gout"])
    rec("gin0", store["gin"][0])
    rec("tensor_hook", tgrads[0])
    cam = F.relu((store["gout"].mean((2, 3), keepdim=True) * act).sum(1))
    cam = cam / cam.flatten(1).amax(1).clamp_min(1e-8)[:, None, None]
    rec("cam", cam)
    for h in (h1, h2, h3, h4):
        h.remove()
    # a backward pre-hook that rescales the incoming gradient and a module-level backward hook
    # that replaces grad_input
    h5 = teacher[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
    h6 = teacher[1].register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.5,))
    teacher.zero_grad()
    teacher(x).sum().backward()
    rec("g_pre", teacher[2].weight.grad)
    rec("g_first", teacher[0].weight.grad)
    h5.remove()
    h6.remove()
    # a parameter hook clipping gradients element-wise while training
    for p in teacher.parameters():
        p.register_hook(lambda gr: gr.clamp(-0.05, 0.05))
    opt = lib.optim.SGD(teacher.parameters(), lr=0.5)
    for _ in range(2):
        opt.zero_grad()
        F.cross_entropy(teacher(x), y).backward()
        opt.step()
    rec.params("teacher", teacher, grads=True)
    # post-accumulate hooks step each parameter as its gradient lands (optimizer in backward)
    lib.manual_seed(41)
    lin = nn.Linear(4, 2).to(dt)
    opts = {p: lib.optim.SGD([p], lr=0.1) for p in lin.parameters()}

    def step_hook(p):
        opts[p].step()
        opts[p].zero_grad()

    for p in lin.parameters():
        p.register_post_accumulate_grad_hook(step_hook)
    lin(x.mean((2, 3)).repeat(1, 2)).pow(2).sum().backward()
    rec.params("lin", lin, grads=True)


def p_dino(lib, dt, rec):
    """Self-distillation without labels: a momentum teacher, centred and sharpened teacher
    outputs, cross-entropy between multi-crop views, a centre kept as a buffer."""
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(42)
    x = lib.randn(8, 6, generator=g, dtype=dt)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(6, 12), nn.GELU(approximate="tanh"),
                                     nn.Linear(12, 4))  # fmt: skip
            self.last = nn.utils.parametrizations.weight_norm(nn.Linear(4, 10, bias=False))
            self.last.parametrizations.weight.original0.data.fill_(1)
            self.last.parametrizations.weight.original0.requires_grad = False

        def forward(self, x):
            return self.last(F.normalize(self.mlp(x), dim=-1, p=2))

    lib.manual_seed(42)
    student = Head().to(dt)
    teacher = copy.deepcopy(student)
    teacher.requires_grad_(False)
    center = lib.zeros(1, 10, dtype=dt)
    params = [p for p in student.parameters() if p.requires_grad]
    opt = lib.optim.AdamW(params, lr=0.01, weight_decay=0.04)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
    for step in range(4):
        v1 = x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt)
        v2 = x * (1 + 0.1 * lib.rand(x.shape, generator=g, dtype=dt))
        s_out = [student(v) / 0.1 for v in (v1, v2)]
        with lib.no_grad():
            t_raw = [teacher(v) for v in (v1, v2)]
            t_out = [F.softmax((t - center) / 0.04, dim=-1) for t in t_raw]
        loss, n = 0, 0
        for i, t in enumerate(t_out):
            for j, s in enumerate(s_out):
                if i == j:
                    continue
                loss = loss + lib.sum(-t * F.log_softmax(s, dim=-1), dim=-1).mean()
                n += 1
        loss = loss / n
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, 3.0, foreach=True)
        opt.step()
        sched.step()
        m = 0.9 + 0.1 * step / 4
        with lib.no_grad():
            ps, pt = list(student.parameters()), list(teacher.parameters())
            lib._foreach_mul_(pt, m)
            lib._foreach_add_(pt, ps, alpha=1 - m)
            center.mul_(0.9).add_(lib.cat(t_raw).mean(0, keepdim=True), alpha=0.1)
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr()[0])
    rec("center", center)
    rec.params("teacher", teacher)
    rec("wn", student.last.weight)
    rec("sharp_entropy", lib.special.entr(t_out[0]).sum(-1))


def p_kl_grads(lib, dt, rec):
    """KL/JS terms with gradients into both sides (mutual learning), second derivatives
    through the distillation loss, and the legacy size_average/reduce spellings."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(43)
    a = lib.randn(5, 4, generator=g, dtype=dt).requires_grad_()
    b = lib.randn(5, 4, generator=g, dtype=dt).requires_grad_()
    T = 3.0
    lp, lq = F.log_softmax(a / T, -1), F.log_softmax(b / T, -1)
    for red in ("batchmean", "sum", "none"):
        kl1 = F.kl_div(lp, lq.exp(), reduction=red)
        kl2 = F.kl_div(lp, lq, reduction=red, log_target=True)
        ga, gb = lib.autograd.grad(kl1.sum(), [a, b], retain_graph=True)
        ga2, gb2 = lib.autograd.grad(kl2.sum(), [a, b], retain_graph=True)
        rec(f"kl.{red}", kl1)
        rec(f"kl_log.{red}", kl2)
        rec(f"g.{red}", lib.stack([ga, gb, ga2, gb2]))
    # Hessian-vector product of the distillation loss (create_graph)
    loss = F.kl_div(lp, lq.detach(), reduction="batchmean", log_target=True) * T * T
    (ga,) = lib.autograd.grad(loss, a, create_graph=True)
    v = lib.ones_like(a)
    (hv,) = lib.autograd.grad((ga * v).sum(), a)
    rec("hv", hv)
    # zero targets with log_target=False give 0 (xlogy convention), gradients stay finite
    t = lib.tensor([[0.0, 0.5, 0.5, 0.0]], dtype=dt).requires_grad_()
    k = F.kl_div(lp[:1], t, reduction="sum")
    rec("kl_zero_t", k)
    rec("g_zero_t", lib.autograd.grad(k, t)[0])
    rec.warns("legacy", lambda: F.kl_div(lp, lq.exp(), size_average=False))
    rec("legacy_val", F.kl_div(lp, lq.exp(), reduce=False))
    rec.warns("mod_legacy", lambda: lib.nn.KLDivLoss(size_average=True))
    rec("mod_legacy_red", lib.nn.KLDivLoss(size_average=True, reduce=True).reduction)
    rec("mse_legacy_red", lib.nn.MSELoss(reduce=False).reduction)
    # label-smoothed CE equals CE against smoothed one-hot targets
    lsm = F.cross_entropy(a, lib.tensor([0, 1, 2, 3, 0]), label_smoothing=0.1)
    soft = F.one_hot(lib.tensor([0, 1, 2, 3, 0]), 4).to(dt) * 0.9 + 0.025
    rec("ls", lib.stack([lsm, F.cross_entropy(a, soft)]))
    rec("ls_w", F.cross_entropy(a, lib.tensor([0, 1, 2, 3, 0]), label_smoothing=0.3,
                                weight=lib.tensor([1.0, 2.0, 0.5, 1.0], dtype=dt)))  # fmt: skip
    rec("ls_ignore", F.cross_entropy(a, lib.tensor([0, -100, 2, 3, 0]), label_smoothing=0.3,
                                     reduction="none"))  # fmt: skip


def p_ewc_buffers(lib, dt, rec):
    """Online EWC kept as a module: Fisher and anchor as registered buffers (dots replaced),
    gradients by autograd.grad with allow_unused / materialize_grads, the penalty through
    state_dict round trips."""
    F = lib.nn.functional
    nn = lib.nn

    class EWC(nn.Module):
        def __init__(self, model, gamma=0.9):
            super().__init__()
            self.model, self.gamma = model, gamma
            for n, p in model.named_parameters():
                key = n.replace(".", "__")
                self.register_buffer(key + "_mean", p.detach().clone())
                self.register_buffer(key + "_fisher", lib.zeros_like(p))

        def consolidate(self, x, y):
            names = [n for n, _ in self.model.named_parameters()]
            ps = list(self.model.parameters())
            logp = F.log_softmax(self.model(x), 1)
            sampled = logp.exp().multinomial(1, generator=lib.Generator().manual_seed(1))
            for i in range(x.shape[0]):
                gs = lib.autograd.grad(logp[i, sampled[i, 0]], ps, retain_graph=True,
                                       allow_unused=True, materialize_grads=True)  # fmt: skip
                for n, gr in zip(names, gs, strict=True):
                    key = n.replace(".", "__")
                    f = getattr(self, key + "_fisher")
                    f.mul_(self.gamma).add_(gr.pow(2), alpha=1.0 / x.shape[0])
            for n, p in self.model.named_parameters():
                getattr(self, n.replace(".", "__") + "_mean").copy_(p.detach())

        def penalty(self):
            tot = 0
            for n, p in self.model.named_parameters():
                key = n.replace(".", "__")
                tot = tot + (getattr(self, key + "_fisher") * (p - getattr(self, key + "_mean"))
                             ** 2).sum()  # fmt: skip
            return tot

    lib.manual_seed(44)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
    model.add_module("unused", nn.Linear(2, 2))
    model.to(dt)

    def forward(x):
        return model[2](model[1](model[0](x)))

    model.forward = forward
    ewc = EWC(model)
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for task in range(2):
        x, y = _data(lib, dt, n=10, seed=45 + task)
        for step in range(3):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y) + 10 * ewc.penalty()
            loss.backward()
            opt.step()
            rec(f"loss{task}.{step}", loss)
        ewc.consolidate(x, y)
    rec("buffers", str([n for n, _ in ewc.named_buffers()][:4]))
    rec("fisher0", ewc.get_buffer("0__weight_fisher"))
    rec("fisher_unused", ewc.unused__weight_fisher)
    sd = ewc.state_dict()
    rec("sd_keys", str(list(sd)[:6]))
    ewc2 = EWC(copy.deepcopy(model))
    ewc2.load_state_dict(sd)
    rec("penalty", lib.stack([ewc.penalty(), ewc2.penalty()]))
    rec.params("model", model, grads=True)
    rec("unused_grad", str(model.unused.weight.grad))


def p_replay_data(lib, dt, rec):
    """A class-incremental stream built from data utilities: Subset per task, ConcatDataset
    with a growing memory, random_split for validation, a seeded RandomSampler, and a
    class-balanced exemplar set by herding."""
    F = lib.nn.functional
    data = lib.utils.data
    x, y = _data(lib, dt, n=24, classes=4, seed=46)
    full = data.TensorDataset(x, y)
    tasks = [[0, 1], [2, 3]]
    net = _classifier(lib, dt, classes=4, seed=46)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    memory_idx = []
    g = lib.Generator().manual_seed(47)
    for t, classes in enumerate(tasks):
        idx = [i for i in range(len(full)) if int(full[i][1]) in classes]
        task_ds = data.Subset(full, idx)
        train_ds, val_ds = data.random_split(task_ds, [0.75, 0.25], generator=g)
        rec(f"val{t}", str(sorted(val_ds.indices)))
        ds = data.ConcatDataset([train_ds, data.Subset(full, memory_idx)]) if memory_idx \
            else train_ds  # fmt: skip
        rec(f"len{t}", len(ds))
        dl = data.DataLoader(ds, batch_size=4, sampler=data.RandomSampler(ds, generator=g),
                             drop_last=True)  # fmt: skip
        for bi, (bx, by) in enumerate(dl):
            logits = net(bx)
            # mask classes not seen yet (task-incremental logits)
            seen = sum(tasks[: t + 1], [])
            mask = lib.full((4,), float("-inf"), dtype=dt)
            mask[seen] = 0
            loss = F.cross_entropy(logits + mask, by)
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"b{t}.{bi}", by)
            rec(f"l{t}.{bi}", loss)
        # herding: pick exemplars whose running mean best approximates the class mean
        with lib.no_grad():
            feats = F.normalize(net[:4](x), dim=1)
        for c in classes:
            cidx = (y == c).nonzero().squeeze(1)
            fc = feats[cidx]
            mu = fc.mean(0)
            chosen, acc = [], lib.zeros_like(mu)
            for k in range(1, 3):
                cand = (mu - (acc + fc) / k).norm(dim=1)
                if chosen:
                    cand[lib.tensor(chosen)] = float("inf")
                j = int(cand.argmin())
                chosen.append(j)
                acc += fc[j]
            memory_idx += cidx[chosen].tolist()
        rec(f"mem{t}", str(memory_idx))
    rec.params("net", net)
    cds = data.ConcatDataset([full, full])
    rec("cum", str(cds.cumulative_sizes))
    rec("item", cds[30][0])
    rec.err("neg_idx", lambda: cds[-50])


def p_pair_losses(lib, dt, rec):
    """The other pair/ranking criteria siamese code reaches for, batched and unbatched, with
    their gradients: hinge embedding on distances, multi-margin (p=1,2, weights), soft margin,
    multilabel margins, cosine embedding on single vectors, ranking with broadcasting."""
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(50)
    a = lib.randn(6, 5, generator=g, dtype=dt).requires_grad_()
    b = lib.randn(6, 5, generator=g, dtype=dt).requires_grad_()
    t = lib.tensor([1, -1, 1, 1, -1, -1], dtype=dt)
    d = F.pairwise_distance(a, b)
    outs = {
        "hinge": nn.HingeEmbeddingLoss(margin=2.0)(d, t),
        "hinge_none": F.hinge_embedding_loss(d, t, reduction="none"),
        "cos1d": F.cosine_embedding_loss(a[0], b[0], lib.tensor(-1, dtype=dt), margin=-0.5),
        "cos_sum": F.cosine_embedding_loss(a, b, t.long(), reduction="sum"),
        "rank_b": F.margin_ranking_loss(d, d.flip(0)[:1], t, margin=0.2),
        "mm1": F.multi_margin_loss(a, lib.tensor([0, 1, 2, 3, 4, 0])),
        "mm2": F.multi_margin_loss(
            a,
            lib.tensor([0, 1, 2, 3, 4, 0]),
            p=2,
            margin=0.5,
            weight=lib.linspace(0.5, 1.5, 5, dtype=dt),
        ),  # fmt: skip
        "mm1d": F.multi_margin_loss(a[0], lib.tensor(3)),
        "soft": F.soft_margin_loss(d - 3, t),
        "mlm": F.multilabel_margin_loss(a, lib.tensor([[0, 2, -1, 1, 1]] * 6)),
        "mlsm": F.multilabel_soft_margin_loss(a, (t[:, None] * lib.ones(6, 5) > 0).to(dt)),
        "cos_sim_1d": F.cosine_similarity(a[0], b[0], dim=0),
        "pd_bcast": F.pairwise_distance(a, b[0]),
        "pd_1d": F.pairwise_distance(a[0], b[0], keepdim=True),
    }
    for k, v in outs.items():
        rec(k, v)
        ga, gb = lib.autograd.grad(
            v.sum(), [a, b], allow_unused=True, materialize_grads=True, retain_graph=True
        )
        rec(k + ".ga", ga)
        rec(k + ".gb", gb)
    rec.err("rank_0d", lambda: F.margin_ranking_loss(d, d, lib.tensor(1.0, dtype=dt)))
    # cosine similarity of near-zero vectors: the eps clamp
    z = lib.tensor([[1e-9, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], dtype=dt).requires_grad_()
    w = lib.tensor([[1.0, 1.0, 0.0]], dtype=dt)
    cs = F.cosine_similarity(z, w, eps=1e-8)
    rec("cs_small", cs)
    rec("cs_small_g", lib.autograd.grad(cs.sum(), z)[0])
    rec("norm_small", F.normalize(z, dim=1, eps=1e-12))
    rec("norm_g", lib.autograd.grad(F.normalize(z, dim=1).sum(), z)[0])


def p_incremental_head(lib, dt, rec):
    """Class-incremental learning: the classifier grows (old rows copied), the optimizer gets
    a new param group, weight aligning rescales the new rows, and duplicate groups are refused."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(51)
    body = nn.Sequential(nn.Linear(6, 8), nn.ReLU()).to(dt)
    head = nn.Linear(8, 2).to(dt)
    opt = lib.optim.Adam(list(body.parameters()) + list(head.parameters()), lr=0.01)
    x, y = _data(lib, dt, n=12, classes=4, seed=51)
    for _ in range(2):
        m = y < 2
        loss = F.cross_entropy(head(body(x[m])), y[m])
        opt.zero_grad()
        loss.backward()
        opt.step()
    # grow the head to 4 classes
    new = nn.Linear(8, 4).to(dt)
    with lib.no_grad():
        new.weight[:2] = head.weight
        new.bias[:2] = head.bias
    old_head = head
    head = new
    opt.param_groups[0]["params"] = list(body.parameters())
    opt.add_param_group({"params": head.parameters(), "lr": 0.02})
    rec("groups", str([len(gr["params"]) for gr in opt.param_groups]))
    rec("group_keys", str(sorted(opt.param_groups[1])))
    rec.err("dup", lambda: opt.add_param_group({"params": [head.weight]}))
    for step in range(3):
        out = head(body(x))
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    # weight aligning: scale new-class rows to the old rows' mean norm
    with lib.no_grad():
        norms = head.weight.norm(dim=1)
        gamma = norms[:2].mean() / norms[2:].mean()
        head.weight[2:] *= gamma
    rec("gamma", gamma)
    rec("head_w", head.weight)
    rec("old_w", old_head.weight)
    try:  # the old head's state is orphaned: state_dict refuses it (KeyError of its id)
        opt.state_dict()
    except KeyError:
        rec("orphan", "KeyError")
    for p in old_head.parameters():
        opt.state.pop(p)
    st = opt.state_dict()
    rec("st_keys", str(sorted(st["state"])))
    rec("pg", str([gr["params"] for gr in st["param_groups"]]))
    # bias correction layer (BiC): a two-parameter affine on the new logits
    alpha = nn.Parameter(lib.ones(1, dtype=dt))
    beta = nn.Parameter(lib.zeros(1, dtype=dt))
    bic_opt = lib.optim.SGD([alpha, beta], lr=0.1)
    for _ in range(3):
        with lib.no_grad():
            logits = head(body(x))
        logits = lib.cat([logits[:, :2], alpha * logits[:, 2:] + beta], dim=1)
        loss = F.cross_entropy(logits, y)
        bic_opt.zero_grad()
        loss.backward()
        bic_opt.step()
    rec("bic", lib.cat([alpha, beta]))


def p_packnet(lib, dt, rec):
    """Parameter isolation: per-task binary masks by magnitude pruning (kthvalue/quantile),
    masks applied in forward pre-hooks, gradients of frozen weights zeroed in hooks, and
    HAT-style sigmoid gates with a scaled embedding."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(52)
    net = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3)).to(dt)
    owner = {n: lib.zeros(p.shape, dtype=lib.int64) for n, p in net.named_parameters()
             if n.endswith("weight")}  # fmt: skip
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for task in range(2):
        x, y = _data(lib, dt, n=12, seed=52 + task)
        hooks = []
        for n, p in net.named_parameters():
            if n in owner:
                frozen = (owner[n] > 0) & (owner[n] <= task)
                hooks.append(p.register_hook(lambda gr, f=frozen: gr.masked_fill(f, 0)))
        for _ in range(3):
            opt.zero_grad()
            F.cross_entropy(net(x), y).backward()
            opt.step()
        # prune half of the free weights of each layer by magnitude
        with lib.no_grad():
            for n, p in net.named_parameters():
                if n not in owner:
                    continue
                free = owner[n] == 0
                vals = p[free].abs()
                k = max(1, vals.numel() // 2)
                thr = vals.kthvalue(k).values
                rec(f"thr{task}.{n}", thr)
                rec(f"q{task}.{n}", lib.quantile(vals, 0.5, interpolation="lower"))
                keep = free & (p.abs() > thr)
                p[free & ~keep] = 0
                owner[n][keep] = task + 1
        for h in hooks:
            h.remove()
        rec(f"owner{task}", owner["0.weight"])

    # inference for task 1 masks weights owned by later tasks (forward pre-hook)
    def pre(m, args):
        m._saved = m.weight.detach().clone()
        with lib.no_grad():
            m.weight.mul_((owner["2.weight"] <= 1).to(dt))

    h = net[2].register_forward_pre_hook(pre)
    x, _ = _data(lib, dt, n=4, seed=60)
    rec("masked_out", net(x))
    h.remove()
    rec.params("net", net)
    # HAT gates
    emb = nn.Embedding(2, 10).to(dt)
    s = 50.0
    gate = lib.sigmoid(s * emb(lib.tensor([1])))
    hid = F.relu(net[0](x)) * gate
    out = net[2](hid)
    reg = gate.sum() / gate.numel()
    (out.sum() + reg).backward()
    rec("gate", gate)
    rec("emb_g", emb.weight.grad)
    # HAT gradient compensation on the embedding
    with lib.no_grad():
        num = lib.cosh(lib.clamp(s * emb.weight, -50, 50)) + 1
        den = lib.cosh(emb.weight) + 1
        emb.weight.grad *= 1 / s * num / den
    rec("emb_g2", emb.weight.grad)


def p_sinkhorn(lib, dt, rec):
    """Swapped prediction (SwAV): prototypes normalised in place each step, Sinkhorn-Knopp
    codes under no_grad, a queue of past features, and cross-entropy between swapped views."""
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(53)
    x = lib.randn(8, 6, generator=g, dtype=dt)
    lib.manual_seed(53)
    enc = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4)).to(dt)
    protos = nn.Linear(4, 5, bias=False).to(dt)
    opt = lib.optim.SGD(list(enc.parameters()) + list(protos.parameters()), lr=0.1,
                        momentum=0.9, weight_decay=1e-4)  # fmt: skip
    queue = lib.zeros(6, 4, dtype=dt)

    @lib.no_grad()
    def sinkhorn(out, eps=0.05, iters=3):
        Q = lib.exp(out / eps).t()
        B, K = Q.shape[1], Q.shape[0]
        Q /= lib.sum(Q)
        for _ in range(iters):
            Q /= lib.sum(Q, dim=1, keepdim=True)
            Q /= K
            Q /= lib.sum(Q, dim=0, keepdim=True)
            Q /= B
        return (Q * B).t()

    for step in range(3):
        with lib.no_grad():
            w = protos.weight.data.clone()
            w = F.normalize(w, dim=1, p=2)
            protos.weight.copy_(w)
        views = [x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt) for _ in range(2)]
        z = [F.normalize(enc(v), dim=1) for v in views]
        scores = [protos(zz) for zz in z]
        loss = 0
        for i in range(2):
            with lib.no_grad():
                out = scores[i].detach()
                if step > 0:
                    out = lib.cat([protos(queue), out])
                q = sinkhorn(out)[-8:]
            p = F.softmax(scores[1 - i] / 0.1, dim=1)
            loss = loss - lib.mean(lib.sum(q * lib.log(p), dim=1))
        loss = loss / 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            queue = lib.roll(queue, 4, dims=0)
            queue[:4] = z[0][:4].detach()
        rec(f"loss{step}", loss)
        rec(f"q{step}", q)
    rec.params("protos", protos)
    rec("queue", queue)
    rec("bn", enc[1].running_var)


def p_maml(lib, dt, rec):
    """Few-shot MAML: second-order inner steps through functional_call (autograd.grad with
    create_graph), the same first-order with torch.func.grad, and Reptile's interpolation."""
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(60)
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dt)
    meta_opt = lib.optim.Adam(net.parameters(), lr=0.01)
    g = lib.Generator().manual_seed(61)

    def episode():
        perm = lib.randperm(3, generator=g)
        x, y = _data(lib, dt, n=12, seed=int(lib.randint(0, 100, (1,), generator=g)))
        y = perm[y]
        return x[:6], y[:6], x[6:], y[6:]

    for it in range(3):
        meta_opt.zero_grad()
        total = 0
        for _ in range(2):
            xs, ys, xq, yq = episode()
            params = dict(net.named_parameters())
            for _ in range(2):
                loss = F.cross_entropy(lib.func.functional_call(net, params, (xs,)), ys)
                grads = lib.autograd.grad(loss, list(params.values()), create_graph=True)
                params = {k: v - 0.4 * gr for (k, v), gr in zip(params.items(), grads, strict=True)}
            q = F.cross_entropy(lib.func.functional_call(net, params, (xq,)), yq)
            (q / 2).backward()
            total += q.item()
        rec(f"meta{it}", total)
        rec(f"g{it}", net[0].weight.grad)
        meta_opt.step()
    rec.params("net", net)

    # first-order with torch.func
    def loss_fn(p, x, y):
        return F.cross_entropy(lib.func.functional_call(net, p, (x,)), y)

    xs, ys, xq, yq = episode()
    p = {k: v.detach() for k, v in net.named_parameters()}
    for _ in range(2):
        gr = lib.func.grad(loss_fn)(p, xs, ys)
        p = {k: p[k] - 0.4 * gr[k] for k in p}
    gq, val = lib.func.grad_and_value(loss_fn)(p, xq, yq)
    rec("fo_val", val)
    rec("fo_g", gq["2.bias"])
    # Reptile: move the initial weights toward the adapted ones
    with lib.no_grad():
        for k, v in net.named_parameters():
            v.lerp_(p[k], 0.5)
    rec.params("reptile", net)
    # the per-task Hessian-vector product through the inner loop
    loss = loss_fn(dict(net.named_parameters()), xs, ys)
    gs = lib.autograd.grad(loss, list(net.parameters()), create_graph=True)
    hv = lib.autograd.grad(gs, list(net.parameters()), grad_outputs=[lib.ones_like(t) for t in gs])
    rec("hv", hv[2])


class _GradReverse:
    """A gradient reversal layer as a custom autograd.Function (built per library)."""

    cache = {}

    @classmethod
    def get(cls, lib):
        if lib not in cls.cache:

            class GradReverse(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x, lam):
                    ctx.lam = lam
                    return x.view_as(x)

                @staticmethod
                def backward(ctx, grad):
                    return grad.neg() * ctx.lam, None

            class ScaledCos(lib.autograd.Function):
                """cos(theta + m) from cos (ArcFace) with a hand-written gradient."""

                @staticmethod
                def forward(ctx, c, m):
                    s = (1 - c * c).clamp_min(0).sqrt()
                    ctx.save_for_backward(c, s)
                    ctx.m = m
                    return c * math.cos(m) - s * math.sin(m)

                @staticmethod
                def backward(ctx, grad):
                    c, s = ctx.saved_tensors
                    d = math.cos(ctx.m) + c / s.clamp_min(1e-6) * math.sin(ctx.m)
                    return (grad * d if ctx.needs_input_grad[0] else None), None

            class Argmax(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    idx = x.argmax(1)
                    ctx.mark_non_differentiable(idx)
                    out = x.gather(1, idx[:, None]).squeeze(1)
                    ctx.save_for_backward(idx)
                    ctx.shape = x.shape
                    return out, idx

                @staticmethod
                @lib.autograd.function.once_differentiable
                def backward(ctx, grad, _):
                    (idx,) = ctx.saved_tensors
                    out = grad.new_zeros(ctx.shape)
                    out.scatter_(1, idx[:, None], grad[:, None])
                    return out

            cls.cache[lib] = (GradReverse, ScaledCos, Argmax)
        return cls.cache[lib]


def p_custom_functions(lib, dt, rec):
    """Domain-adversarial features through a gradient reversal Function, an ArcFace margin with
    a hand-written backward (checked by gradcheck), and a non-differentiable index output."""
    F = lib.nn.functional
    nn = lib.nn
    GradReverse, ScaledCos, Argmax = _GradReverse.get(lib)
    xs, ys = _data(lib, dt, n=12, seed=62)
    xt, _ = _data(lib, dt, n=12, seed=63)
    lib.manual_seed(62)
    feat = nn.Sequential(nn.Linear(6, 8), nn.ReLU()).to(dt)
    cls = nn.Linear(8, 3).to(dt)
    dom = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 1)).to(dt)
    opt = lib.optim.SGD([*feat.parameters(), *cls.parameters(), *dom.parameters()], lr=0.05)
    for step in range(3):
        fs, ft = feat(xs), feat(xt)
        lam = 2 / (1 + math.exp(-10 * step / 3)) - 1
        f_all = GradReverse.apply(lib.cat([fs, ft]), lam)
        d_logit = dom(f_all).squeeze(1)
        d_lab = lib.cat([lib.zeros(12, dtype=dt), lib.ones(12, dtype=dt)])
        ld = F.binary_cross_entropy_with_logits(
            d_logit, d_lab, pos_weight=lib.tensor(2.0, dtype=dt)
        )
        lc = F.cross_entropy(cls(fs), ys)
        opt.zero_grad()
        (lc + ld).backward()
        opt.step()
        rec(f"l{step}", lib.stack([lc, ld]))
        rec(f"gf{step}", feat[0].weight.grad)
    rec("grl_fn", type(f_all.grad_fn).__name__)
    c = lib.linspace(-0.9, 0.9, 7, dtype=lib.float64).requires_grad_()
    rec("gradcheck", lib.autograd.gradcheck(lambda t: ScaledCos.apply(t, 0.3), (c,)))
    out = ScaledCos.apply(c, 0.3)
    out.sum().backward()
    rec("sc", out)
    rec("sc_g", c.grad)
    x = lib.randn(4, 5, generator=lib.Generator().manual_seed(64), dtype=dt, requires_grad=True)
    v, i = Argmax.apply(x)
    rec("req", str((v.requires_grad, i.requires_grad)))
    (v * lib.arange(4, dtype=dt)).sum().backward()
    rec("x_g", x.grad)
    v, _ = Argmax.apply(x)
    (gx,) = lib.autograd.grad(v.sum(), x, create_graph=True)
    rec.err("once", lambda: lib.autograd.grad(gx.sum(), x))


def p_proto_unique(lib, dt, rec):
    """Prototypes from an unsorted episode: unique with inverse and counts, index_add_ sums,
    scatter_reduce means, per-class variance (Gaussian prototypes), and a transductive
    refinement of the prototypes with soft assignments."""
    F = lib.nn.functional
    g = lib.Generator().manual_seed(65)
    lab = lib.tensor([7, 3, 7, 9, 3, 9, 9, 7, 3])
    emb = lib.randn(9, 4, generator=g, dtype=dt).requires_grad_()
    cls_, inv, cnt = lib.unique(lab, sorted=True, return_inverse=True, return_counts=True)
    rec("cls", cls_)
    rec("inv", inv)
    rec("cnt", cnt)
    sums = lib.zeros(len(cls_), 4, dtype=dt).index_add(0, inv, emb)
    protos = sums / cnt[:, None].to(dt)
    protos2 = lib.zeros(len(cls_), 4, dtype=dt).scatter_reduce(
        0, inv[:, None].expand(-1, 4), emb, reduce="mean", include_self=False
    )
    rec("protos", protos)
    rec("same", lib.allclose(protos, protos2))
    var = lib.zeros(len(cls_), 4, dtype=dt).index_add(0, inv, (emb - protos[inv]).pow(2))
    var = var / (cnt[:, None] - 1).to(dt)
    rec("var", var)
    q = lib.randn(5, 4, generator=g, dtype=dt)
    # a Mahalanobis-like distance with per-class diagonal variances
    d = ((q[:, None] - protos[None]) ** 2 / (var[None] + 0.1)).sum(-1)
    logp = F.log_softmax(-d, 1)
    rec("logp", logp)
    # transductive refinement: prototypes pulled toward the soft-assigned queries
    for _ in range(2):
        w = logp.exp()
        protos = (protos * cnt[:, None] + w.T @ q) / (cnt[:, None] + w.sum(0)[:, None])
        d = lib.cdist(q, protos).pow(2)
        logp = F.log_softmax(-d, 1)
    rec("refined", protos)
    loss = -logp.max(1).values.mean()
    loss.backward()
    rec("emb_g", emb.grad)
    u, c2 = lib.unique_consecutive(lab.sort().values, return_counts=True)
    rec("uc", lib.stack([u, c2]))
    rec(
        "unique_dim",
        lib.unique(lib.tensor([[1, 2], [0, 1], [1, 2]]), dim=0, return_inverse=True)[1],
    )
    rec("rep", lib.repeat_interleave(cls_, cnt))
    rec("rep_sz", lib.repeat_interleave(lib.tensor([2, 1, 3]), output_size=6))


def p_relation_net(lib, dt, rec):
    """Relation networks: every (query, support-class) pair concatenated on channels, scored by
    a small conv block, trained with MSE against one-hot relations; activations checkpointed."""
    F = lib.nn.functional
    nn = lib.nn
    g = lib.Generator().manual_seed(66)
    way, q = 3, 4
    sup = lib.randn(way, 2, 5, 5, generator=g, dtype=dt)
    qry = sup[lib.tensor([0, 1, 2, 1])] + 0.3 * lib.randn(q, 2, 5, 5, generator=g, dtype=dt)
    qy = lib.tensor([0, 1, 2, 1])
    lib.manual_seed(66)
    enc = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4, momentum=0.5),
                        nn.LeakyReLU(0.1)).to(dt)  # fmt: skip
    rel = nn.Sequential(nn.Conv2d(8, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(36, 1),
                        nn.Sigmoid()).to(dt)  # fmt: skip
    opt = lib.optim.Adam([*enc.parameters(), *rel.parameters()], lr=0.01)
    for step in range(3):
        fs = lib.utils.checkpoint.checkpoint(enc, sup, use_reentrant=False)
        fq = enc(qry)
        pairs = lib.cat([fs.unsqueeze(0).expand(q, -1, -1, -1, -1),
                         fq.unsqueeze(1).expand(-1, way, -1, -1, -1)], dim=2)  # fmt: skip
        scores = rel(pairs.reshape(q * way, 8, 5, 5)).view(q, way)
        target = F.one_hot(qy, way).to(dt)
        loss = F.mse_loss(scores, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"l{step}", loss)
        rec(f"s{step}", scores)
    rec.params("rel", rel, grads=True)
    rec("rm", enc[1].running_mean)
    enc.eval()
    rec("eval", enc(qry).mean((0, 2, 3)))


def p_supcon(lib, dt, rec):
    """Supervised contrastive and NT-Xent losses written as in their reference code (views
    unbound and concatenated, a logits mask by scatter, the row max subtracted, positives
    averaged with a guarded count), then circle and lifted-structure losses on the same batch."""
    F = lib.nn.functional
    x, y = _data(lib, dt, n=8, classes=3, seed=70)
    net = _embedder(lib, dt, seed=70)
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    g = lib.Generator().manual_seed(71)
    T = 0.2
    for step in range(3):
        v1 = x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt)
        v2 = x.flip(1) * 0.1 + x
        feats = lib.stack([F.normalize(net(v1), dim=1), F.normalize(net(v2), dim=1)], dim=1)
        bsz, n_views = feats.shape[0], feats.shape[1]
        mask = lib.eq(y.contiguous().view(-1, 1), y.contiguous().view(-1, 1).T).to(dt)
        contrast = lib.cat(lib.unbind(feats, dim=1), dim=0)
        adc = lib.div(lib.matmul(contrast, contrast.T), T)
        logits_max, _ = lib.max(adc, dim=1, keepdim=True)
        logits = adc - logits_max.detach()
        mask = mask.repeat(n_views, n_views)
        logits_mask = lib.scatter(lib.ones_like(mask), 1, lib.arange(bsz * n_views).view(-1, 1), 0)
        mask = mask * logits_mask
        exp_logits = lib.exp(logits) * logits_mask
        log_prob = logits - lib.log(exp_logits.sum(1, keepdim=True))
        pos = mask.sum(1)
        pos = lib.where(pos < 1e-6, 1, pos)
        supcon = -(T / 0.07) * ((mask * log_prob).sum(1) / pos).view(n_views, bsz).mean()
        # NT-Xent (SimCLR)
        z = contrast
        sim = z @ z.T / T
        sim = sim.masked_fill(lib.eye(2 * bsz, dtype=lib.bool), -9e15)
        tgt = lib.cat([lib.arange(bsz, 2 * bsz), lib.arange(bsz)])
        ntx = F.cross_entropy(sim, tgt)
        # circle loss
        s = z[:bsz] @ z[:bsz].T
        pm, nm = _label_masks(lib, y)
        sp, sn = s[pm], s[~pm & ~lib.eye(bsz, dtype=lib.bool)]
        m, gamma = 0.25, 8.0
        ap = lib.clamp_min(-sp.detach() + 1 + m, min=0.0)
        an = lib.clamp_min(sn.detach() + m, min=0.0)
        lp = -ap * (sp - (1 - m)) * gamma
        ln = an * (sn - m) * gamma
        circle = F.softplus(lib.logsumexp(ln, dim=0) + lib.logsumexp(lp, dim=0))
        # lifted structure
        d = lib.cdist(z[:bsz], z[:bsz])
        neg = lib.logsumexp((1.0 - d).masked_fill(~nm, float("-inf")), dim=1)
        pair = (neg[:, None] + neg[None, :] + d).masked_select(pm)
        lifted = F.relu(pair).pow(2).mean() / 2
        loss = supcon + ntx + circle + lifted
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"l{step}", lib.stack([supcon, ntx, circle, lifted]))
    rec.params("net", net)
    rec("sp_sn", str((sp.shape, sn.shape)))
    rec("acc", (sim.argmax(1) == tgt).sum())


def p_dkd(lib, dt, rec):
    """Decoupled knowledge distillation: target/non-target masks by scatter, binary
    (target vs rest) KL and non-target KL with the target logit masked by a large negative,
    the legacy size_average=False spelling and keepdims (NumPy's) on sums."""
    F = lib.nn.functional
    x, y = _data(lib, dt, n=10, classes=3, seed=72)
    teacher = _classifier(lib, dt, hidden=16, seed=72)
    student = _classifier(lib, dt, hidden=6, seed=73)
    opt = lib.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    T, alpha, beta = 4.0, 1.0, 8.0

    def cat_mask(t, m1, m2):
        t1 = (t * m1).sum(dim=1, keepdims=True)
        t2 = (t * m2).sum(1, keepdims=True)
        return lib.cat([t1, t2], dim=1)

    for step in range(3):
        with lib.no_grad():
            lt = teacher(x)
        ls = student(x)
        gt = lib.zeros_like(ls).scatter_(1, y.unsqueeze(1), 1).bool()
        other = lib.ones_like(ls).scatter_(1, y.unsqueeze(1), 0).bool()
        ps, pt = F.softmax(ls / T, dim=1), F.softmax(lt / T, dim=1)
        ps, pt = cat_mask(ps, gt, other), cat_mask(pt, gt, other)
        log_ps = lib.log(ps)
        tckd = F.kl_div(log_ps, pt, size_average=False) * (T**2) / y.shape[0]
        pt2 = F.softmax(lt / T - 1000.0 * gt, dim=1)
        lps2 = F.log_softmax(ls / T - 1000.0 * gt, dim=1)
        nckd = F.kl_div(lps2, pt2, size_average=False) * (T**2) / y.shape[0]
        loss = F.cross_entropy(ls, y) + min(step / 2, 1.0) * (alpha * tckd + beta * nckd)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"l{step}", lib.stack([tckd, nckd, loss]))
    rec.params("student", student)
    rec("gt", gt)
    rec("pt2", pt2)


def p_crd(lib, dt, rec):
    """Contrastive representation distillation: a memory bank of past embeddings sampled by
    multinomial, gathered by index_select, scored by bmm, normalised by a running Z, and
    updated by index_copy_ with momentum."""
    F = lib.nn.functional
    nn = lib.nn
    n_data, feat, K = 20, 4, 5
    g = lib.Generator().manual_seed(74)
    x = lib.randn(n_data, 6, generator=g, dtype=dt)
    student = _embedder(lib, dt, d_out=feat, seed=74)
    teacher = _embedder(lib, dt, d_out=feat, seed=75)
    lib.manual_seed(76)
    embed_s, embed_t = nn.Linear(feat, 3).to(dt), nn.Linear(feat, 3).to(dt)
    stdv = 1.0 / math.sqrt(3 / 3)
    mem_s = lib.rand(n_data, 3, generator=g, dtype=dt).mul_(2 * stdv).add_(-stdv)
    mem_t = lib.rand(n_data, 3, generator=g, dtype=dt).mul_(2 * stdv).add_(-stdv)
    params = [*student.parameters(), *embed_s.parameters(), *embed_t.parameters()]
    opt = lib.optim.SGD(params, lr=0.05)
    Z = None
    T_nce, mom = 0.5, 0.5
    probs = lib.ones(n_data, dtype=dt)
    for step in range(3):
        idx = lib.randperm(n_data, generator=g)[:6]
        contrast = lib.multinomial(probs, 6 * (K + 1), replacement=True, generator=g).view(6, -1)
        contrast[:, 0] = idx
        fs = F.normalize(embed_s(student(x[idx])), dim=1)
        with lib.no_grad():
            ft0 = teacher(x[idx])
        ft = F.normalize(embed_t(ft0), dim=1)
        w_t = lib.index_select(mem_t, 0, contrast.view(-1)).detach().view(6, K + 1, 3)
        w_s = lib.index_select(mem_s, 0, contrast.view(-1)).detach().view(6, K + 1, 3)
        out_s = lib.exp(lib.div(lib.bmm(w_t, fs.view(6, 3, 1)), T_nce))
        out_t = lib.exp(lib.div(lib.bmm(w_s, ft.view(6, 3, 1)), T_nce))
        if Z is None:
            Z = (out_s.mean() * n_data).detach()
        out_s, out_t = lib.div(out_s, Z).contiguous(), lib.div(out_t, Z).contiguous()

        def nce(o):
            pn = 1.0 / n_data
            p_pos = o.select(1, 0)
            lp = lib.div(p_pos, p_pos.add(K * pn + 1e-7)).log_()
            p_neg = o.narrow(1, 1, K)
            ln = lib.div(p_neg.clone().fill_(K * pn), p_neg.add(K * pn + 1e-7)).log_()
            return -(lp.sum(0) + ln.view(-1, 1).sum(0)) / o.shape[0]

        loss = (nce(out_s) + nce(out_t)).squeeze()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            pos = lib.index_select(mem_s, 0, idx.view(-1)).mul_(mom).add_(lib.mul(fs, 1 - mom))
            pos = pos.div(pos.pow(2).sum(1, keepdim=True).pow(0.5))
            mem_s.index_copy_(0, idx, pos)
            pos = lib.index_select(mem_t, 0, idx).mul_(mom).add_(ft * (1 - mom))
            mem_t.index_copy_(0, idx, F.normalize(pos, dim=1))
        rec(f"loss{step}", loss)
        rec(f"contrast{step}", contrast)
    rec("Z", Z)
    rec("mem_s", mem_s)
    rec("mem_t", mem_t)
    rec.params("embed_s", embed_s)


def p_icarl_der(lib, dt, rec):
    """iCaRL's nearest-mean-of-exemplars classifier and sigmoid distillation, then dark
    experience replay: logits stored in the buffer and matched by MSE (DER++ adds labels)."""
    F = lib.nn.functional
    x1, y1 = _data(lib, dt, n=12, classes=2, seed=77)
    x2, y2 = _data(lib, dt, n=12, classes=2, seed=78)
    y2 = y2 + 2
    net = _classifier(lib, dt, classes=4, seed=77)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(net(x1), F.one_hot(y1, 4).to(dt)).backward()
        opt.step()
    old = copy.deepcopy(net).eval()
    buf_x, buf_logits, buf_y = x1[::2].clone(), old(x1[::2]).detach(), y1[::2].clone()
    for step in range(3):
        opt.zero_grad()
        out = net(x2)
        with lib.no_grad():
            q = lib.sigmoid(old(x2))
        target = lib.cat([q[:, :2], F.one_hot(y2, 4).to(dt)[:, 2:]], dim=1)
        icarl = F.binary_cross_entropy_with_logits(out, target, reduction="sum") / x2.shape[0]
        der = F.mse_loss(net(buf_x), buf_logits)
        derpp = F.cross_entropy(net(buf_x), buf_y)
        loss = icarl + 0.5 * der + 0.5 * derpp
        loss.backward()
        opt.step()
        rec(f"l{step}", lib.stack([icarl, der, derpp]))
    # NME classifier
    feat = net[:4]
    with lib.no_grad():
        f_all = F.normalize(feat(lib.cat([x1, x2])), dim=1)
        labels = lib.cat([y1, y2])
        means = lib.stack([f_all[labels == c].mean(0) for c in range(4)])
        means = F.normalize(means, dim=1)
        pred = lib.cdist(f_all, means).argmin(1)
    rec("nme_acc", (pred == labels).to(dt).mean())
    rec("means", means)
    rec("confusion", lib.bincount(labels * 4 + pred, minlength=16).view(4, 4))
    rec.params("net", net)


def p_mining_large(lib, dt, rec):
    """Batch-hard mining over a batch of 40: cdist takes its matrix-product form (more than 25
    rows), forward and backward, with the hardest positive by amax over a mask and the
    hardest negative by amin over an inf-filled matrix; repeat_interleave with output_size
    builds the class-balanced labels (P classes x K samples)."""
    F = lib.nn.functional
    x, y = _data(lib, dt, n=40, classes=5, seed=80)
    lib.manual_seed(80)
    net = lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.ReLU(), lib.nn.Linear(16, 8)).to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    pm, nm = _label_masks(lib, y)
    for step in range(3):
        e = net(x)
        dist = lib.cdist(e, e)
        hp = (dist * pm).amax(1)
        hn = dist.masked_fill(~nm, float("inf")).amin(1)
        loss = F.relu(hp - hn + 1.0).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"l{step}", loss)
        rec(f"g{step}", net[0].weight.grad)
    rec("grad_fn", type(dist.grad_fn).__name__)
    # (the self-distances of the matrix-product form are rounding noise: sqrt of ~1e-16)
    rec("off", dist.masked_fill(lib.eye(40, dtype=lib.bool), 0))
    # a P x K sampler's labels and the positive mask they give
    counts = lib.full((5,), 4)
    labels = lib.repeat_interleave(lib.arange(5), counts, output_size=20)
    rec("labels", labels)
    rec("pk_mask", (labels[:, None] == labels[None]).sum(1))
    rec.err("bad_size", lambda: lib.repeat_interleave(lib.arange(5), counts, output_size=21))


def p_inplace_distances(lib, dt, rec):
    """Zeroing a distance matrix's diagonal in place (`d[range(n), range(n)] = 0`) after cdist
    or pdist: torch's nodes save their inputs and result, so backward refuses a change to any
    of them; the fixes people use (a clone first, a multiplicative mask) train as usual."""
    g = lib.Generator().manual_seed(81)
    cases = [(4, 2.0, None), (30, 2.0, None), (4, 1.0, None), (4, 3.0, None),
             (4, float("inf"), None), (30, 2.0, "donot_use_mm_for_euclid_dist")]  # fmt: skip
    for n, p, mode in cases:
        for which in ("out", "x1", "x2"):
            a = lib.randn(n, 3, generator=g, dtype=dt, requires_grad=True)
            b = lib.randn(n, 3, generator=g, dtype=dt, requires_grad=True)
            x1, x2 = a * 1, b * 1
            kw = {} if mode is None else {"compute_mode": mode}
            d = lib.cdist(x1, x2, p=p, **kw)
            if which == "out":
                d[range(n), range(n)] = 0
            elif which == "x1":
                x1.add_(1)
            else:
                x2.mul_(2)
            rec.err(f"cdist.{n}.{p}.{mode}.{which}", lambda d=d: d.sum().backward())
    for p in (2.0, 1.0, 3.0):
        x = lib.randn(5, 3, generator=g, dtype=dt, requires_grad=True) * 1
        d = lib.nn.functional.pdist(x, p=p)
        d.mul_(2)
        rec.err(f"pdist.{p}", lambda d=d: d.sum().backward())
    for which in ("out", "x1", "x2"):
        x1 = lib.randn(5, 3, generator=g, dtype=dt, requires_grad=True) * 1
        x2 = lib.randn(5, 3, generator=g, dtype=dt, requires_grad=True) * 1
        d = lib.dist(x1, x2)
        (d if which == "out" else x1 if which == "x1" else x2).mul_(2)
        rec.err(f"dist.{which}", lambda d=d: d.backward())
    # a product of probabilities (a noisy-or) changed in place
    q = lib.rand(4, 3, generator=g, dtype=dt, requires_grad=True) * 1
    none = (1 - q).prod(1)
    none.clamp_(min=1e-6)
    rec.err("prod", lambda: (1 - none).sum().backward())
    # the working spellings
    a = lib.randn(6, 3, generator=g, dtype=dt, requires_grad=True)
    d = lib.cdist(a, a).clone()
    d[range(6), range(6)] = 0
    d.pow(2).sum().backward()
    rec("clone_g", a.grad)
    a.grad = None
    d = lib.cdist(a, a) * (1 - lib.eye(6, dtype=dt))
    d.pow(2).sum().backward()
    rec("mask_g", a.grad)
    a.grad = None
    d = lib.cdist(a, a)
    d2 = d.diagonal_scatter(lib.zeros(6, dtype=dt))
    d2.pow(2).sum().backward()
    rec("scatter_g", a.grad)
