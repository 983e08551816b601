"""Session 25: graph neural networks written in plain torch, without torch_geometric or
torch_scatter, as research code writes them (message passing with index_add_ / scatter_add_ /
scatter_reduce over an edge_index, symmetric degree normalisation, edge softmax, GraphSAGE with
neighbour sampling, GIN, global pooling over a batch vector, DiffPool, node2vec random walks, link
prediction with negative sampling, a masked graph transformer, (index, value) adjacency with
index_put, to_dense_batch padding, subgraph relabelling, edge coalescing, typical mistakes), each
run under torch and minitorch after the same seed. Every recorded value must agree (float32 to 1e-4
of its scale, float64 to 1e-9; integers, strings and errors exactly)."""

from __future__ import annotations

import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")


def ring_graph(lib, n, extra):
    """A directed edge_index (2, E): a ring both ways plus `extra` random chords."""
    src = lib.arange(n)
    dst = (src + 1) % n
    ring = lib.stack([lib.cat([src, dst]), lib.cat([dst, src])])
    chords = lib.randint(0, n, (2, extra))
    return lib.cat([ring, chords], dim=1)


def p_scatter_reduce(lib, dt, rec):
    lib.manual_seed(0)
    n = 7
    ei = ring_graph(lib, n, 6)
    ei = ei[:, ei[1] != 6]  # node 6 receives nothing: an empty segment
    x = lib.randn(n, 3, dtype=dt)
    x[2] = x[3]  # ties for amax/amin
    x.requires_grad_(True)
    src, dst = ei
    msg = x[src] * 1.5
    idx = dst.unsqueeze(1).expand_as(msg)
    outs = []
    for red in ["sum", "mean", "amax", "amin", "prod"]:
        for inc in [True, False]:
            base = lib.full((n, 3), 0.5, dtype=dt)
            out = base.scatter_reduce(0, idx, msg, reduce=red, include_self=inc)
            rec(f"{red}.{inc}", out)
            outs.append(out)
    loss = sum((o * (i + 1)).sum() for i, o in enumerate(outs))
    loss.backward()
    rec("grad", x.grad)
    agg = lib.zeros(n, 3, dtype=dt).index_add_(0, dst, msg)
    agg2 = lib.zeros(n, 3, dtype=dt).scatter_add_(0, idx, msg)
    rec("index_add", agg)
    rec("same", lib.equal(agg, agg2))
    deg = lib.bincount(dst, minlength=n)
    rec("deg", deg)
    rec("mean", agg / deg.clamp(min=1).unsqueeze(1))
    # in-place scatter_reduce_ on a leaf-derived tensor
    w = lib.randn(n, 3, dtype=dt, requires_grad=True)
    y = w * 1.0
    y.scatter_reduce_(0, idx, x[src] * 1.5, "amax", include_self=False)
    y.pow(2).sum().backward()
    rec("w.grad", w.grad)
    rec("x.grad2", x.grad)


def p_gcn_norm(lib, dt, rec):
    lib.manual_seed(1)
    n, f, h = 8, 4, 5
    ei = ring_graph(lib, n, 5)
    ei = ei[:, ei[0] != 7]
    ei = ei[:, ei[1] != 7]  # isolated node: degree 0 -> inf
    x = lib.randn(n, f, dtype=dt)
    lin = lib.nn.Linear(f, h, dtype=dt)
    opt = lib.optim.Adam(lin.parameters(), lr=0.05)
    y = lib.randint(0, h, (n,))
    for step in range(4):
        src, dst = ei
        deg = lib.bincount(dst, minlength=n).to(dt)
        dis = deg.pow(-0.5)
        rec(f"dis{step}", dis)
        dis = dis.masked_fill(dis == float("inf"), 0)
        dis2 = lib.where(lib.isinf(deg.pow(-0.5)), lib.zeros_like(deg), deg.pow(-0.5))
        norm = dis[src] * dis2[dst]
        hx = lin(x)
        out = lib.zeros_like(hx).index_add_(0, dst, hx[src] * norm.view(-1, 1))
        loss = lib.nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g{step}", lin.weight.grad)
        opt.step()
    rec("w", lin.weight)


def edge_softmax(lib, score, dst, n):
    mx = lib.full((n,) + score.shape[1:], float("-inf"), dtype=score.dtype)
    idx = dst.view(-1, *([1] * (score.dim() - 1))).expand_as(score)
    mx = mx.scatter_reduce(0, idx, score, reduce="amax", include_self=True)
    e = (score - mx.gather(0, idx)).exp()
    den = lib.zeros_like(mx).index_add(0, dst, e)
    return e / den[dst]


def p_edge_softmax(lib, dt, rec):
    lib.manual_seed(2)
    n, heads, f = 6, 2, 3
    ei = ring_graph(lib, n, 4)
    src, dst = ei
    x = lib.randn(n, heads, f, dtype=dt, requires_grad=True)
    a = lib.randn(heads, 2 * f, dtype=dt, requires_grad=True)
    cat = lib.cat([x[src], x[dst]], dim=-1)
    score = lib.nn.functional.leaky_relu((cat * a).sum(-1), 0.2)
    alpha = edge_softmax(lib, score, dst, n)
    rec("alpha", alpha)
    rec("sum", lib.zeros(n, heads, dtype=dt).index_add_(0, dst, alpha))
    out = lib.zeros(n, heads, f, dtype=dt).index_add_(0, dst, alpha.unsqueeze(-1) * x[src])
    rec("out", out)
    out.tanh().sum().backward()
    rec("gx", x.grad)
    rec("ga", a.grad)
    # torch.softmax per segment via a dense mask agrees
    dense = lib.full((n, n, heads), float("-inf"), dtype=dt)
    dense = dense.index_put((dst, src), score.detach())
    rec("dense_max", dense.amax(1))


def p_sage(lib, dt, rec):
    lib.manual_seed(3)
    n, f, h, k = 10, 4, 6, 3
    ei = ring_graph(lib, n, 12)
    x = lib.randn(n, f, dtype=dt)
    lin_self = lib.nn.Linear(f, h, dtype=dt)
    lin_nb = lib.nn.Linear(f, h, bias=False, dtype=dt)
    lin_pool = lib.nn.Linear(f, f, dtype=dt)
    g = lib.Generator().manual_seed(7)
    params = list(lin_self.parameters()) + list(lin_nb.parameters()) + list(lin_pool.parameters())
    opt = lib.optim.SGD(params, lr=0.1, momentum=0.9)
    for step in range(3):
        # sample up to k neighbours per node with randperm over its edge list
        keep = []
        for v in range(n):
            eids = (ei[1] == v).nonzero().view(-1)
            perm = lib.randperm(eids.numel(), generator=g)[:k]
            keep.append(eids[perm])
        keep = lib.cat(keep)
        rec(f"keep{step}", keep)
        src, dst = ei[:, keep]
        m = lib.zeros(n, f, dtype=dt).index_add_(0, dst, x[src])
        cnt = lib.zeros(n, dtype=dt).index_add_(0, dst, lib.ones(src.numel(), dtype=dt))
        mean = m / cnt.clamp(min=1).unsqueeze(-1)
        p = lib.relu(lin_pool(x))[src]
        mx = lib.zeros(n, f, dtype=dt).scatter_reduce(
            0, dst.unsqueeze(-1).expand(-1, f), p, "amax", include_self=False
        )
        hdn = lin_self(x) + lin_nb(mean) + lin_nb(mx)
        hdn = lib.nn.functional.normalize(hdn, p=2, dim=-1)
        loss = hdn.pow(3).sum()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"gpool{step}", lin_pool.weight.grad)
        opt.step()
    # multinomial sampling of neighbours weighted by degree
    deg = lib.bincount(ei[0], minlength=n).to(dt)
    rec("mn", lib.multinomial(deg, 5, replacement=False, generator=g))
    rec("mn2", lib.multinomial(deg.repeat(3, 1), 4, replacement=True))


def p_gin(lib, dt, rec):
    lib.manual_seed(4)
    n, f, h = 9, 3, 4
    ei = ring_graph(lib, n, 6)
    batch = lib.tensor([0, 0, 0, 1, 1, 1, 1, 2, 2])
    x = lib.randn(n, f, dtype=dt)
    eps = lib.nn.Parameter(lib.zeros(1, dtype=dt))
    eps2 = lib.nn.Parameter(lib.tensor(0.1, dtype=dt))
    mlp = lib.nn.Sequential(
        lib.nn.Linear(f, h, bias=False), lib.nn.BatchNorm1d(h), lib.nn.ReLU(), lib.nn.Linear(h, h)
    ).to(dt)  # a bias before BatchNorm gets a rounding-noise gradient that Adam blows up
    head = lib.nn.Linear(3 * h, 2).to(dt)
    params = [eps, eps2] + list(mlp.parameters()) + list(head.parameters())
    opt = lib.optim.AdamW(params, lr=0.01)
    y = lib.tensor([0, 1, 0])
    for step in range(3):
        src, dst = ei
        agg = lib.zeros(n, f, dtype=dt).index_add(0, dst, x[src])
        hx = mlp((1 + eps) * x + agg)
        agg2 = lib.zeros(n, h, dtype=dt).index_add(0, dst, hx[src])
        hx = (1 + eps2) * hx + agg2
        ng = int(batch.max()) + 1
        s = lib.zeros(ng, h, dtype=dt).index_add_(0, batch, hx)
        cnt = lib.bincount(batch, minlength=ng).unsqueeze(1)
        mean = s / cnt
        mx = lib.full((ng, h), float("-inf"), dtype=dt).scatter_reduce(
            0, batch.view(-1, 1).expand(-1, h), hx, "amax"
        )
        logits = head(lib.cat([s, mean, mx], 1))
        loss = lib.nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"geps{step}", eps.grad)
        rec(f"geps2{step}", eps2.grad)
        opt.step()
    rec("eps", eps)
    rec("rm", mlp[1].running_mean)


def p_pool_batch(lib, dt, rec):
    lib.manual_seed(5)
    batch = lib.tensor([0, 0, 1, 1, 1, 3, 3])  # graph 2 is empty
    n, f = batch.numel(), 3
    x = lib.randn(n, f, dtype=dt, requires_grad=True)
    ng = 4
    idx = batch.unsqueeze(1).expand(-1, f)
    add = lib.zeros(ng, f, dtype=dt).scatter_add(0, idx, x)
    mean = lib.zeros(ng, f, dtype=dt).scatter_reduce(0, idx, x, "mean", include_self=False)
    mx = lib.zeros(ng, f, dtype=dt).scatter_reduce(0, idx, x, "amax", include_self=False)
    mn = lib.zeros(ng, f, dtype=dt).scatter_reduce(0, idx, x, "amin", include_self=False)
    pr = lib.ones(ng, f, dtype=dt).scatter_reduce(0, idx, x, "prod", include_self=True)
    for nm, v in [("add", add), ("mean", mean), ("max", mx), ("min", mn), ("prod", pr)]:
        rec(nm, v)
    (add.sum() + (mean * 2).sum() + (mx * 3).sum() + (mn * 4).sum() + pr.sum()).backward()
    rec("gx", x.grad)
    # to_dense_batch
    counts = lib.bincount(batch, minlength=ng)
    ptr = lib.cat([lib.zeros(1, dtype=counts.dtype), counts.cumsum(0)])
    rec("ptr", ptr)
    pos = lib.arange(n) - ptr[batch]
    maxn = int(counts.max())
    dense = x.new_zeros(ng, maxn, f)
    dense[batch, pos] = x.detach()
    mask = lib.zeros(ng, maxn, dtype=lib.bool)
    mask[batch, pos] = True
    rec("dense", dense)
    rec("mask", mask)
    rec("back", dense[mask])
    # segment softmax via dense padding
    sc = dense.sum(-1).masked_fill(~mask, float("-inf"))
    sm = lib.softmax(sc, dim=1)
    rec("sm", sm)
    rec("sm_mask", lib.nan_to_num(sm, nan=0.0))
    # torch_scatter-style max with argmax
    vals = lib.stack([x.detach()[batch == g].max(0).values for g in [0, 1, 3]])
    rec("vals", vals)


def p_diffpool(lib, dt, rec):
    lib.manual_seed(6)
    B, N, F, C = 2, 5, 3, 2
    adj = (lib.rand(B, N, N) < 0.4).to(dt)
    adj = ((adj + adj.transpose(1, 2)) > 0).to(dt)
    x = lib.randn(B, N, F, dtype=dt)
    mask = lib.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]], dtype=lib.bool)
    emb = lib.nn.Linear(F, 4, dtype=dt)
    assign = lib.nn.Linear(F, C, dtype=dt)
    opt = lib.optim.Adam(list(emb.parameters()) + list(assign.parameters()), lr=0.02)
    for step in range(3):
        ax = adj @ x
        z = lib.relu(emb(ax))
        s = lib.softmax(assign(ax), dim=-1)
        m = mask.unsqueeze(-1).to(dt)
        z, s = z * m, s * m
        st = s.transpose(1, 2)
        xp = lib.bmm(st, z)
        ap = lib.matmul(lib.matmul(st, adj), s)
        link = adj - lib.bmm(s, st)
        link_loss = lib.norm(link, p=2) / adj.numel()
        ent = (-s * lib.log(s + 1e-15)).sum(dim=-1).mean()
        loss = xp.pow(2).mean() + ap.mean() + link_loss + ent
        opt.zero_grad()
        loss.backward()
        rec(f"link{step}", link_loss)
        rec(f"ent{step}", ent)
        rec(f"loss{step}", loss)
        rec(f"g{step}", assign.weight.grad)
        opt.step()
    rec("fro", lib.linalg.matrix_norm(link.detach()))


def p_node2vec(lib, dt, rec):
    lib.manual_seed(7)
    n = 8
    ei = ring_graph(lib, n, 6)
    adj = lib.zeros(n, n, dtype=dt)
    adj = adj.index_put((ei[0], ei[1]), lib.ones(ei.shape[1], dtype=dt), accumulate=True)
    rec("adj", adj)
    trans = adj / adj.sum(1, keepdim=True)
    g = lib.Generator().manual_seed(3)
    start = lib.arange(n).repeat(2)
    walks = [start]
    cur = start
    for _ in range(5):
        nxt = lib.multinomial(trans[cur], 1, generator=g).squeeze(1)
        walks.append(nxt)
        cur = nxt
    walks = lib.stack(walks, 1)
    rec("walks", walks)
    # skip-gram with negative sampling
    emb = lib.nn.Embedding(n, 4, sparse=True, dtype=dt)
    ctx = lib.nn.Embedding(n, 4, sparse=True, dtype=dt)
    opt = lib.optim.SparseAdam(list(emb.parameters()) + list(ctx.parameters()), lr=0.05)
    emb.weight.data.uniform_(-0.5, 0.5)
    for step in range(3):
        u = walks[:, :-1].reshape(-1)
        v = walks[:, 1:].reshape(-1)
        neg = lib.randint(0, n, (u.numel(), 2))
        pos = (emb(u) * ctx(v)).sum(-1)
        ng = lib.bmm(ctx(neg), emb(u).unsqueeze(-1)).squeeze(-1)
        loss = -lib.nn.functional.logsigmoid(pos).mean() - lib.nn.functional.logsigmoid(-ng).mean()
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec("emb", emb.weight)


def p_link_pred(lib, dt, rec):
    lib.manual_seed(8)
    n, f = 10, 5
    ei = ring_graph(lib, n, 8)
    x = lib.randn(n, f, dtype=dt)
    enc = lib.nn.Sequential(lib.nn.Linear(f, 8), lib.nn.ReLU(), lib.nn.Linear(8, 4)).to(dt)
    opt = lib.optim.Adam(enc.parameters(), lr=0.01)
    F = lib.nn.functional
    for step in range(4):
        z = enc(x)
        z = z + lib.zeros_like(z).index_add(0, ei[1], z[ei[0]]) / 4
        neg = lib.randint(0, n, ei.shape)
        pos_s = (z[ei[0]] * z[ei[1]]).sum(-1)
        neg_s = (z[neg[0]] * z[neg[1]]).sum(-1)
        logits = lib.cat([pos_s, neg_s])
        labels = lib.cat([lib.ones_like(pos_s), lib.zeros_like(neg_s)])
        pw = lib.tensor([2.0], dtype=dt)
        loss = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=pw)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g{step}", enc[0].weight.grad)
        opt.step()
    with lib.no_grad():
        prob = lib.sigmoid(logits)
        pred = (prob > 0.5).long()
        rec("acc", (pred == labels.long()).float().mean())
        order = prob.argsort(descending=True)
        rec("order_top", labels[order][:5])
        rec("auc_like", (pos_s.unsqueeze(1) > neg_s.unsqueeze(0)).double().mean())


def p_graph_transformer(lib, dt, rec):
    lib.manual_seed(9)
    n, d, heads = 6, 8, 2
    ei = ring_graph(lib, n, 3)
    adj = lib.zeros(n, n, dtype=lib.bool)
    adj[ei[1], ei[0]] = True
    adj = adj | lib.eye(n, dtype=lib.bool)
    x = lib.randn(1, n, d, dtype=dt)
    mha = lib.nn.MultiheadAttention(d, heads, batch_first=True, dtype=dt)
    out, w = mha(x, x, x, attn_mask=~adj)
    rec("out", out)
    rec("w", w)
    out.sum().backward()
    rec("g_in", mha.in_proj_weight.grad)
    q = k = v = x.view(1, n, heads, d // heads).transpose(1, 2)
    bias = lib.zeros(n, n, dtype=dt).masked_fill(~adj, float("-inf"))
    sdpa = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    sdpa2 = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=adj)
    rec("sdpa", sdpa)
    rec("sdpa_same", (sdpa - sdpa2).abs().max())
    # a layer with degree encoding
    deg = adj.sum(1)
    demb = lib.nn.Embedding(int(deg.max()) + 1, d, dtype=dt)
    layer = lib.nn.TransformerEncoderLayer(d, heads, 16, dropout=0.0, batch_first=True, dtype=dt)
    h = layer(x + demb(deg).unsqueeze(0), src_mask=~adj)
    rec("layer", h)


def p_index_value(lib, dt, rec):
    lib.manual_seed(10)
    n = 6
    ei = lib.randint(0, n, (2, 14))
    val = lib.rand(14, dtype=dt, requires_grad=True)
    # coalesce duplicate edges
    uniq, inv = lib.unique(ei, dim=1, return_inverse=True)
    rec("uniq", uniq)
    rec("inv", inv)
    cval = lib.zeros(uniq.shape[1], dtype=dt).scatter_add(0, inv, val)
    rec("cval", cval)
    lin = ei[0] * n + ei[1]
    u2, inv2, cnt2 = lib.unique(lin, sorted=True, return_inverse=True, return_counts=True)
    rec("u2", u2)
    rec("cnt2", cnt2)
    rec("same_order", lib.equal(lib.stack([u2 // n, u2 % n]), uniq))
    dense = lib.zeros(n, n, dtype=dt).index_put((ei[0], ei[1]), val, accumulate=True)
    rec("dense", dense)
    x = lib.randn(n, 3, dtype=dt)
    spmm = lib.zeros(n, 3, dtype=dt).index_add(0, uniq[0], cval.unsqueeze(1) * x[uniq[1]])
    rec("spmm", spmm)
    rec("spmm_dense", dense @ x)
    (spmm.sum() + dense.pow(2).sum()).backward()
    rec("gval", val.grad)
    # relabel a sampled subgraph
    nodes = lib.tensor([4, 1, 1, 5, 4])
    sub, inv3 = lib.unique(nodes, return_inverse=True)
    rec("sub", sub)
    rec("inv3", inv3)
    keep = lib.isin(ei[0], sub) & lib.isin(ei[1], sub)
    mapping = lib.full((n,), -1, dtype=lib.long)
    mapping[sub] = lib.arange(sub.numel())
    rec("sub_ei", mapping[ei[:, keep]])
    # unique_consecutive on sorted edges
    srt, perm = lin.sort(stable=True)
    uc, ic, cc = lib.unique_consecutive(srt, return_inverse=True, return_counts=True)
    rec("uc", uc)
    rec("cc", cc)
    rec("perm", perm)


def p_index_reduce(lib, dt, rec):
    lib.manual_seed(12)
    n, f = 5, 2
    dst = lib.tensor([0, 0, 1, 3, 3, 3, 1])
    src = lib.randn(dst.numel(), f, dtype=dt)
    src[0] = src[1]  # a tie in segment 0
    src[4, 0] = 0.0  # a zero in a product
    src.requires_grad_(True)
    total = 0
    for i, red in enumerate(["prod", "mean", "amax", "amin"]):
        for inc in [True, False]:
            base = lib.full((n, f), 2.0, dtype=dt)
            out = base.index_reduce(0, dst, src, red, include_self=inc)
            rec(f"{red}.{inc}", out)
            total = total + (out * (i + 1 + inc)).sum()
    total.backward()
    rec("g", src.grad)
    # the deprecated scatter(reduce=) and scatter_ with a value
    idx = dst.unsqueeze(1).expand(-1, f)
    rec("sc_add", lib.zeros(n, f, dtype=dt).scatter(0, idx, src.detach(), reduce="add"))
    rec("sc_mul", lib.ones(n, f, dtype=dt).scatter(0, idx, src.detach(), reduce="multiply"))
    rec("sc_val", lib.zeros(n, f, dtype=dt).scatter_(0, idx, 1.5, reduce="add"))
    # empty edge set: everything keeps self
    e0 = lib.zeros(0, dtype=lib.long)
    x = lib.randn(n, f, dtype=dt, requires_grad=True)
    o1 = x.index_add(0, e0, lib.zeros(0, f, dtype=dt))
    o2 = x.scatter_reduce(0, e0.view(0, 1).expand(0, f), lib.zeros(0, f, dtype=dt), "amax")
    (o1 + o2).sum().backward()
    rec("empty", o1 + o2)
    rec("gx", x.grad)


def p_mpnn_batch(lib, dt, rec):
    lib.manual_seed(13)
    sizes = [3, 4, 2]
    graphs = []
    for k in sizes:
        e = lib.randint(0, k, (2, 2 * k))
        graphs.append((lib.randn(k, 3, dtype=dt), e, lib.randn(e.shape[1], 2, dtype=dt)))
    # collate: offsets from the cumulative node counts
    counts = lib.tensor(sizes)
    offs = lib.cumsum(counts, 0) - counts
    x = lib.cat([g[0] for g in graphs])
    ei = lib.cat([g[1] + o for g, o in zip(graphs, offs, strict=True)], dim=1)
    ea = lib.cat([g[2] for g in graphs])
    batch = lib.repeat_interleave(lib.arange(len(sizes)), counts)
    rec("ei", ei)
    rec("batch", batch)
    ptr = lib.nn.functional.pad(counts.cumsum(0), (1, 0))
    rec("ptr", ptr)
    rec("ss", lib.searchsorted(ptr, lib.arange(x.shape[0]), right=True) - 1)
    edge_net = lib.nn.Sequential(lib.nn.Linear(2, 16), lib.nn.ReLU(), lib.nn.Linear(16, 9)).to(dt)
    gru = lib.nn.GRUCell(3, 3, dtype=dt)
    readout = lib.nn.Linear(3, 1, dtype=dt)
    params = list(edge_net.parameters()) + list(gru.parameters()) + list(readout.parameters())
    opt = lib.optim.RMSprop(params, lr=0.01)
    y = lib.randn(len(sizes), 1, dtype=dt)
    for step in range(3):
        h = x
        for _ in range(2):
            w = edge_net(ea).view(-1, 3, 3)
            m = lib.bmm(w, h[ei[0]].unsqueeze(-1)).squeeze(-1)
            agg = lib.zeros_like(h).index_add_(0, ei[1], m)
            h = gru(agg, h)
        gsum = lib.zeros(len(sizes), 3, dtype=dt).index_add(0, batch, h)
        pred = readout(gsum)
        loss = lib.nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"g{step}", gru.weight_hh.grad)
        opt.step()
    rec("h", h)
    # (torch.segment_reduce, which minitorch lacks, is left out)


def p_topk_pool(lib, dt, rec):
    lib.manual_seed(14)
    batch = lib.tensor([0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2])
    n = batch.numel()
    ei = ring_graph(lib, n, 5)
    x = lib.randn(n, 3, dtype=dt, requires_grad=True)
    p = lib.randn(3, dtype=dt, requires_grad=True)
    score = lib.tanh(x @ p / p.norm())
    ratio = 0.5
    counts = lib.bincount(batch)
    k = (ratio * counts.to(dt)).ceil().long()
    rec("k", k)
    # sort by (batch, -score): two stable sorts
    o1 = lib.argsort(-score.detach(), stable=True)
    o2 = lib.argsort(batch[o1], stable=True)
    order = o1[o2]
    ptr = lib.cumsum(counts, 0) - counts
    rank = lib.arange(n) - ptr[batch[order]]
    perm = order[rank < k[batch[order]]]
    rec("perm", perm)
    xp = x[perm] * score[perm].unsqueeze(-1)
    mapping = lib.full((n,), -1, dtype=lib.long)
    mapping[perm] = lib.arange(perm.numel())
    e = mapping[ei]
    e = e[:, (e >= 0).all(0)]
    rec("e", e)
    pooled = lib.zeros(3, 3, dtype=dt).index_add(0, batch[perm], xp)
    rec("pooled", pooled)
    pooled.pow(2).sum().backward()
    rec("gx", x.grad)
    rec("gp", p.grad)
    # the same selection with topk per graph
    vals = [score[batch == g].topk(int(k[g])).values for g in range(3)]
    rec("topk", lib.cat(vals))


def p_spectral(lib, dt, rec):
    lib.manual_seed(15)
    n = 6
    ei = ring_graph(lib, n, 3)
    ei = ei[:, ei[0] != ei[1]]
    a = lib.zeros(n, n, dtype=dt)
    a[ei[0], ei[1]] = 1.0
    a = ((a + a.T) > 0).to(dt)
    deg = a.sum(1)
    dis = deg.pow(-0.5)
    lap = lib.eye(n, dtype=dt) - dis.unsqueeze(1) * a * dis.unsqueeze(0)
    evals, evecs = lib.linalg.eigh(lap)
    rec("evals", evals)
    rec("abs_vec0", evecs[:, 0].abs())
    lam_max = evals.max()
    lt = 2 * lap / lam_max - lib.eye(n, dtype=dt)
    x = lib.randn(n, 2, dtype=dt)
    theta = lib.randn(3, 2, 4, dtype=dt, requires_grad=True)
    tx = [x, lt @ x]
    tx.append(2 * lt @ tx[1] - tx[0])
    out = sum(t @ th for t, th in zip(tx, theta, strict=True))
    rec("cheb", out)
    out.square().mean().backward()
    rec("gtheta", theta.grad)
    # APPNP-style propagation and a personalised PageRank by power iteration
    ahat = a + lib.eye(n, dtype=dt)
    d = ahat.sum(1).rsqrt()
    ahat = d[:, None] * ahat * d[None, :]
    h = x.clone()
    for _ in range(10):
        h = 0.9 * ahat @ h + 0.1 * x
    rec("appnp", h)
    pr = lib.full((n,), 1.0 / n, dtype=dt)
    t = a / a.sum(0, keepdim=True)
    for _ in range(20):
        pr = 0.85 * t @ pr + 0.15 / n
    rec("pr", pr)
    rec(
        "closed",
        lib.linalg.solve(lib.eye(n, dtype=dt) - 0.85 * t, lib.full((n,), 0.15 / n, dtype=dt)),
    )


def p_mistakes(lib, dt, rec):
    lib.manual_seed(11)
    x = lib.randn(4, 3, dtype=dt)
    bad = lib.tensor([0, 5, 1])
    rec.err("index_add_oob", lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, bad, x[:3]))
    rec.err(
        "scatter_add_oob",
        lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(0, bad.view(-1, 1).expand(-1, 3), x[:3]),
    )
    rec.err("index_add_dtype", lambda: lib.zeros(4, 3).index_add_(0, lib.tensor([0, 1]), x[:2]))
    rec.err(
        "scatter_dtype",
        lambda: lib.zeros(4, 3).scatter_add_(0, lib.zeros(2, 3, dtype=lib.long), x[:2]),
    )
    rec.err(
        "scatter_reduce_dtype",
        lambda: lib.zeros(4, 3).scatter_reduce(0, lib.zeros(2, 3, dtype=lib.long), x[:2], "sum"),
    )
    i32 = lib.tensor([0, 1, 1], dtype=lib.int32)
    rec("i32_index_add", lib.zeros(4, 3, dtype=dt).index_add_(0, i32, x[:3]))
    rec.err(
        "i32_scatter",
        lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(0, i32.view(-1, 1).expand(-1, 3), x[:3]),
    )
    rec.err("i32_gather", lambda: x.gather(0, i32.view(-1, 1).expand(-1, 3)))
    rec("i32_getitem", x[i32])
    rec.err("float_index", lambda: x.index_select(0, lib.tensor([0.0, 1.0])))
    rec.err("bad_reduce", lambda: x.scatter_reduce(0, lib.zeros(2, 3, dtype=lib.long), x, "max"))
    rec.err("bincount_neg", lambda: lib.bincount(lib.tensor([0, -1])))
    rec.err("bincount_float", lambda: lib.bincount(lib.tensor([0.0, 1.0])))
    rec.err("bincount_2d", lambda: lib.bincount(lib.zeros(2, 2, dtype=lib.long)))
    rec.err("index_add_shape", lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, bad, x))
    rec.err("scatter_dim", lambda: lib.zeros(4, 3, dtype=dt).scatter_add_(0, bad, x))
    rec.err(
        "index_put_oob",
        lambda: lib.zeros(4, dtype=dt).index_put_((bad,), lib.ones(3, dtype=dt), accumulate=True),
    )
    rec.err("multinomial_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("multinomial_many", lambda: lib.multinomial(lib.ones(3, dtype=dt), 4))
    rec.err("unique_dim_oob", lambda: lib.unique(lib.zeros(2, 3), dim=2))
    rec.err(
        "index_add_alpha",
        lambda: lib.zeros(4, 3, dtype=dt).index_add_(0, lib.tensor([0, 1]), x[:2], alpha=2),
    )
    rec.err(
        "scatter_reduce_noself_empty",
        lambda: lib.zeros(0, 3, dtype=dt).scatter_reduce(
            0, lib.zeros(0, 3, dtype=lib.long), lib.zeros(0, 3, dtype=dt), "amax"
        ),
    )


PROGRAMS = [
    "scatter_reduce", "gcn_norm", "edge_softmax", "sage", "gin", "pool_batch", "diffpool",
    "node2vec", "link_pred", "graph_transformer", "index_value", "index_reduce", "mpnn_batch",
    "topk_pool", "spectral", "mistakes",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt)
    got = run_program(prog, minitorch, dt)
    assert_records_match(want, got, 1e-9 if dt == "float64" else 1e-4)
