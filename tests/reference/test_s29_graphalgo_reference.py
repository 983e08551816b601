"""Session 29 (helper graphalgo): graph-algorithm programs written the way data-science notebooks
write them in torch, run under torch and minitorch with the same seeds and compared record by
record: BFS level sets by boolean matrix-vector products, Bellman-Ford and Floyd-Warshall by
min-plus products, Dijkstra with a tensor frontier, PageRank and personalised PageRank by power
iteration with dangling nodes, HITS, spectral clustering (Laplacians, eigh, seeded k-means),
Fiedler vectors and cuts, label propagation, connected components by scatter_reduce('amin'),
triangle counting (trace(A^3) and edge intersections), k-core peeling, assortativity and
clustering coefficients, random walks and node2vec walks with multinomial and a Generator, heat
kernels by matrix_exp, adjacency from edge lists by index_put_(accumulate=True), coalescing with
unique(dim=0, return_inverse, return_counts), dense/edge-index conversions by nonzero and CSR by
argsort, bincount and cumsum, segment_reduce / embedding_bag / tensor_split over CSR segments,
effective resistances (pinv, matrix-tree determinants), GCN and GAT message passing trained or
differentiated twice, kNN graphs with lobpcg, centralities (eigenvector, Katz, harmonic, Brandes
betweenness), Prim and Kruskal trees, topological layers, modularity and link-prediction AUCs.
float64 must agree to 1e-10 of each record's scale, float32 to
1e-4; integers and texts exactly.

Known and left (documented):
- float32 sums may differ in the last bits (summation order); eigenvector signs are
  implementation-defined, so only sign-normalised vectors are recorded.
- topk's order of tied values' indices is unspecified (torch's CPU kernel and NumPy's partition
  pick different ties): the programs break ties before topk.
- linalg.eigvals (complex) and torch.nested are out of scope; NumPy's RuntimeWarnings show for
  corrcoef of a constant row (as noted in session 28).
- An in-place write whose broadcast operand is a strided view of the written tensor (d -= d[:, 1:2],
  d[:] = d[0].unsqueeze(1)) is undefined: torch's result follows its kernel's traversal (later
  elements read earlier writes), minitorch reads the operand first.
- out= of a pointwise op (add, minimum, clamp, where) is not refused when it partly overlaps a
  dense input (torch.where(m, d, d[0], out=d) raises in torch); where(..., scalar, out=) is
  accepted here (torch's scalar overloads take no out=).

Found and fixed: x[mask] = one CPU value that is a view of x (comp[comp == cv] = comp[u] in a
union-find) and x[basic] = a broadcast or 0-d view of x are not overlap errors in torch (a
masked_fill_, a fill_ or an expanded copy); minitorch refused them."""

from __future__ import annotations

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "bfs_levels", "bellman_ford", "floyd_warshall", "dijkstra", "pagerank", "ppr", "hits",
    "spectral", "fiedler", "label_prop", "components", "triangles", "kcore", "assortativity",
    "random_walks", "node2vec", "heat_kernel", "edge_list", "coalesce", "csr", "errors",
    "resistance", "gcn_train", "gat", "knn_spectral", "centralities", "brandes", "prim_mst",
    "toposort", "modularity", "link_prediction", "segments", "sbm_ppmi",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _graph(lib, n=12, p=0.3, seed=0, directed=False):
    """A seeded random 0/1 adjacency (int64 edge index and a bool dense matrix)."""
    g = lib.Generator().manual_seed(seed)
    a = lib.rand(n, n, generator=g) < p
    a.fill_diagonal_(False)
    if not directed:
        a = a | a.T
    return a


def _weights(lib, dt, a, seed=1):
    g = lib.Generator().manual_seed(seed)
    w = lib.rand(a.shape, generator=g, dtype=dt) * 9 + 1
    if (a == a.T).all():
        w = (w + w.T) / 2
    return lib.where(a, w, lib.full_like(w, float("inf")))


# --- the programs: each takes the library, a dtype and a recorder ---


def p_bfs_levels(lib, dt, rec):
    a = _graph(lib, 15, 0.15, seed=3)
    n = a.shape[0]
    af = a.to(dt)
    level = lib.full((n,), -1, dtype=lib.long)
    frontier = lib.zeros(n, dtype=lib.bool)
    frontier[0] = True
    level[0] = 0
    visited = frontier.clone()
    d = 0
    while frontier.any():
        d += 1
        nxt = (af.T @ frontier.to(dt)) > 0
        nxt &= ~visited
        level[nxt] = d
        visited |= nxt
        frontier = nxt
        rec(f"frontier{d}", frontier.nonzero().flatten())
    rec("level", level)
    rec("reached", visited.sum())
    rec("unreached", (level == -1).nonzero(as_tuple=True)[0])
    # level sets by bool matmul counts
    counts = lib.bincount(level[level >= 0])
    rec("counts", counts)
    # multi-source BFS with a matrix of frontiers
    srcs = lib.tensor([0, 5, 9])
    f = lib.nn.functional.one_hot(srcs, n).to(dt)
    reach = f.clone()
    for _ in range(n):
        f = ((f @ af) > 0).to(dt) * (reach == 0).to(dt)
        reach = reach + f
    rec("reach", reach.bool())
    rec("reach_sum", reach.sum(1))


def p_bellman_ford(lib, dt, rec):
    a = _graph(lib, 10, 0.3, seed=5, directed=True)
    w = _weights(lib, dt, a, seed=6)
    n = w.shape[0]
    dist = lib.full((n,), float("inf"), dtype=dt)
    dist[0] = 0
    src, dst = a.nonzero(as_tuple=True)
    ew = w[src, dst]
    rec("m", src.numel())
    for it in range(n - 1):
        cand = dist[src] + ew
        new = dist.scatter_reduce(0, dst, cand, reduce="amin", include_self=True)
        if lib.equal(new, dist):
            rec("iters", it)
            break
        dist = new
    rec("dist", dist)
    # the same by dense min-plus relaxation
    d2 = lib.full((n,), float("inf"), dtype=dt)
    d2[0] = 0
    for _ in range(n - 1):
        d2 = lib.minimum(d2, (d2[:, None] + w).amin(0))
    rec("dense", d2)
    rec("agree", lib.allclose(d2, dist))
    # predecessor by argmin
    pred = (d2[:, None] + w).argmin(0)
    pred[0] = -1
    pred[lib.isinf(d2)] = -1
    rec("pred", pred)
    # negative cycle detection
    w2 = w.clone()
    w2[src[0], dst[0]] = -100.0
    w2[dst[0], src[0]] = 1.0
    d3 = lib.zeros(n, dtype=dt)
    for _ in range(n):
        d3 = lib.minimum(d3, (d3[:, None] + w2).amin(0))
    rec("negcyc", (d3 > lib.minimum(d3, (d3[:, None] + w2).amin(0))).any())


def p_floyd_warshall(lib, dt, rec):
    a = _graph(lib, 9, 0.35, seed=8)
    w = _weights(lib, dt, a, seed=9)
    n = w.shape[0]
    d = w.clone()
    d.fill_diagonal_(0)
    nxt = lib.arange(n).repeat(n, 1)
    nxt[lib.isinf(d)] = -1
    for k in range(n):
        via = d[:, k : k + 1] + d[k : k + 1, :]
        better = via < d
        d = lib.where(better, via, d)
        nxt = lib.where(better, nxt[:, k : k + 1].expand(n, n), nxt)
    rec("d", d)
    rec("nxt", nxt)
    # repeated min-plus squaring gives the same
    m = w.clone()
    m.fill_diagonal_(0)
    for _ in range(4):
        m = (m.unsqueeze(2) + m.unsqueeze(0)).amin(1)
    rec("squaring", m)
    rec("same", lib.equal(m, d))
    fin = lib.isfinite(d)
    rec("diameter", d[fin].max())
    rec("ecc", lib.where(fin, d, lib.zeros_like(d)).max(1).values)
    rec("closeness", (n - 1) / lib.where(fin, d, lib.zeros_like(d)).sum(1))
    md, arg = d.masked_fill(~fin, -1).max(dim=1)
    rec("far", arg)
    rec("far_d", md)
    # path reconstruction
    path = [0]
    u, v = 0, int(arg[0])
    while u != v and int(nxt[u, v]) >= 0:
        u = int(nxt[u, v])
        path.append(u)
    rec("path", lib.tensor(path))


def p_dijkstra(lib, dt, rec):
    a = _graph(lib, 14, 0.25, seed=11)
    w = _weights(lib, dt, a, seed=12)
    n = w.shape[0]
    dist = lib.full((n,), float("inf"), dtype=dt)
    dist[2] = 0
    done = lib.zeros(n, dtype=lib.bool)
    order = []
    for _ in range(n):
        cand = dist.masked_fill(done, float("inf"))
        u = int(cand.argmin())
        if lib.isinf(cand[u]):
            break
        done[u] = True
        order.append(u)
        dist = lib.minimum(dist, dist[u] + w[u])
    rec("order", lib.tensor(order))
    rec("dist", dist)
    rec("done", done)
    # top-k nearest
    vals, idx = lib.topk(dist.masked_fill(lib.isinf(dist), 1e9), 4, largest=False)
    rec("knn", idx)
    rec("knn_d", vals)
    srt = lib.sort(dist, stable=True)
    rec("sorted", srt.indices)
    rec("hist", lib.histc(dist[lib.isfinite(dist)], bins=5, min=0, max=30))


def p_pagerank(lib, dt, rec):
    a = _graph(lib, 20, 0.12, seed=14, directed=True).to(dt)
    a[3] = 0  # a dangling node
    n = a.shape[0]
    outdeg = a.sum(1)
    dangling = outdeg == 0
    rec("dangling", dangling.nonzero().squeeze(1))
    p = a / outdeg.clamp(min=1).unsqueeze(1)
    alpha = 0.85
    r = lib.full((n,), 1.0 / n, dtype=dt)
    it = 0
    for it in range(100):  # noqa: B007 - the count is recorded
        leak = r[dangling].sum()
        new = alpha * (r @ p) + (alpha * leak + 1 - alpha) / n
        err = (new - r).abs().sum()
        r = new
        if err < 1e-12:
            break
    rec("iters", it)
    rec("rank", r)
    rec("total", r.sum())
    rec("top", r.argsort(descending=True)[:5])
    # the same by a linear solve of the Google matrix
    gm = alpha * (p + dangling.to(dt).unsqueeze(1) / n) + (1 - alpha) / n
    m = lib.eye(n, dtype=dt) - gm.T
    m[0] = 1
    b = lib.zeros(n, dtype=dt)
    b[0] = 1
    rec("solve", lib.linalg.solve(m, b))
    # the Google matrix is row-stochastic
    rec("inf_norm", lib.linalg.matrix_norm(gm, ord=float("inf")))
    rec("one_norm", lib.linalg.matrix_norm(gm, ord=1))


def p_ppr(lib, dt, rec):
    a = _graph(lib, 16, 0.2, seed=21).to(dt)
    n = a.shape[0]
    deg = a.sum(1, keepdim=True)
    p = a / deg.clamp_min(1)
    seeds = lib.zeros(3, n, dtype=dt)
    seeds[0, 0] = 1
    seeds[1, [4, 7]] = 0.5
    seeds[2] = lib.softmax(lib.arange(n, dtype=dt) / 4, 0)
    r = seeds.clone()
    for _ in range(60):
        r = 0.15 * seeds + 0.85 * r @ p
    rec("ppr", r)
    rec("rowsum", r.sum(1))
    # closed form
    closed = 0.15 * seeds @ lib.linalg.inv(lib.eye(n, dtype=dt) - 0.85 * p)
    rec("closed", closed)
    rec("maxdiff_small", (closed - r).abs().max() < 1e-3)
    # push-style with a residual tensor
    est = lib.zeros(n, dtype=dt)
    res = seeds[0].clone()
    for _ in range(200):
        u = int(res.argmax())
        if res[u] < 1e-6:
            break
        ru = res[u].clone()
        est[u] += 0.15 * ru
        res[u] = 0
        res += 0.85 * ru * p[u]
    rec("push", est)
    rec("norm", lib.linalg.vector_norm(est - r[0], ord=1) < 1e-3)
    rec("topk", lib.topk(r, 3, dim=1).indices)


def p_hits(lib, dt, rec):
    a = _graph(lib, 12, 0.25, seed=31, directed=True).to(dt)
    n = a.shape[0]
    h = lib.ones(n, dtype=dt)
    for _ in range(50):
        au = a.T @ h
        au = au / lib.linalg.norm(au)
        h = a @ au
        h = h / h.norm()
    rec("auth", au)
    rec("hub", h)
    ev, evec = lib.linalg.eigh(a.T @ a)
    v = evec[:, -1]
    v = v * v.sum().sign()
    rec("ev", ev)
    rec("evec", v)
    rec("agree", lib.allclose(v, au, atol=1e-6))
    u, s, vh = lib.linalg.svd(a)
    rec("s", s)
    rec("svd_agree", lib.allclose(vh[0].abs(), au, atol=1e-6))


def _kmeans(lib, x, k, seed, iters=20):
    g = lib.Generator().manual_seed(seed)
    c = x[lib.randperm(x.shape[0], generator=g)[:k]].clone()
    for _ in range(iters):
        lab = lib.cdist(x, c).argmin(1)
        oh = lib.nn.functional.one_hot(lab, k).to(x.dtype)
        cnt = oh.sum(0).clamp_min(1)
        c = (oh.T @ x) / cnt[:, None]
    return lab, c


def p_spectral(lib, dt, rec):
    # three planted communities
    g = lib.Generator().manual_seed(41)
    sizes = [6, 7, 5]
    lab = lib.repeat_interleave(lib.arange(3), lib.tensor(sizes))
    same = lab[:, None] == lab[None, :]
    prob = lib.where(same, lib.tensor(0.8, dtype=dt), lib.tensor(0.05, dtype=dt))
    a = lib.bernoulli(prob, generator=g).triu(1)
    a = a + a.T
    deg = a.sum(1)
    lap = lib.diag(deg) - a
    dinv = deg.clamp_min(1e-12).rsqrt()
    nlap = lib.eye(a.shape[0], dtype=dt) - dinv[:, None] * a * dinv[None, :]
    rec("lap_sym", lib.allclose(lap, lap.mT))
    ev, vec = lib.linalg.eigh(nlap)
    rec("ev", ev)
    emb = vec[:, :3]
    emb = emb / emb.norm(dim=1, keepdim=True)
    emb = emb * emb[0].sign()
    labels, cents = _kmeans(lib, emb, 3, seed=7)
    # labels up to permutation: record the contingency table sorted
    cont = lib.zeros(3, 3, dtype=lib.long)
    cont.index_put_((lab, labels), lib.ones_like(lab), accumulate=True)
    rec("cont", cont.sort(dim=1).values.sort(dim=0).values)
    rec("eigengap", (ev[3] - ev[2]))
    rec("ev_lap", lib.linalg.eigvalsh(lap))
    rec("trace", lap.trace())


def p_fiedler(lib, dt, rec):
    # two cliques joined by one edge
    n = 10
    a = lib.zeros(n, n, dtype=dt)
    a[:5, :5] = 1
    a[5:, 5:] = 1
    a.fill_diagonal_(0)
    a[4, 5] = a[5, 4] = 1
    lap = lib.diag(a.sum(1)) - a
    ev, vec = lib.linalg.eigh(lap)
    f = vec[:, 1] * vec[0, 1].sign()
    rec("lambda2", ev[1])
    rec("fiedler", f)
    part = f > 0
    rec("part", part)
    cut = a[part][:, ~part].sum()
    rec("cut", cut)
    vol = a.sum(1)
    ncut = cut / vol[part].sum() + cut / vol[~part].sum()
    rec("ncut", ncut)
    # sweep cut on sorted Fiedler order
    order = f.argsort()
    x = lib.zeros(n, dtype=dt)
    best = []
    for i in range(1, n):
        x[order[i - 1]] = 1
        c = x @ lap @ x
        best.append(c / min(i, n - i))
    best = lib.stack(best)
    rec("sweep", best)
    rec("argbest", best.argmin())
    # Rayleigh quotient by power iteration on a shifted Laplacian, deflating the ones vector
    g = lib.Generator().manual_seed(3)
    v = lib.randn(n, generator=g, dtype=dt)
    shift = 2 * lap.diagonal().max()
    m = shift * lib.eye(n, dtype=dt) - lap
    for _ in range(300):
        v = v - v.mean()
        v = m @ v
        v = v / v.norm()
    rec("rayleigh", (v @ lap @ v))


def p_label_prop(lib, dt, rec):
    a = _graph(lib, 18, 0.2, seed=51).to(dt)
    n = a.shape[0]
    y = lib.full((n,), -1)
    y[[0, 5, 11]] = lib.tensor([0, 1, 2])
    known = y >= 0
    k = 3
    f = lib.zeros(n, k, dtype=dt)
    f[known] = lib.nn.functional.one_hot(y[known], k).to(dt)
    deg = a.sum(1).clamp_min(1)
    s = a / deg.sqrt()[:, None] / deg.sqrt()[None, :]
    f0 = f.clone()
    for _ in range(40):
        f = 0.9 * s @ f + 0.1 * f0
    rec("f", f)
    pred = f.argmax(1)
    rec("pred", pred)
    rec("conf", lib.softmax(f * 10, dim=1).max(1).values)
    # hard label propagation by majority vote with ties to the smallest label
    lab = lib.arange(n)
    for _ in range(10):
        votes = lib.zeros(n, n, dtype=dt)
        votes.scatter_add_(1, lab.expand(n, n), a)
        lab = votes.argmax(1)
    rec("hard", lab)
    rec("ncomm", lab.unique().numel())
    rec("mode", lib.mode(lab).values)


def p_components(lib, dt, rec):
    a = _graph(lib, 25, 0.06, seed=61)
    src, dst = a.nonzero().T
    n = a.shape[0]
    lab = lib.arange(n)
    it = 0
    while True:
        it += 1
        new = lab.scatter_reduce(0, dst, lab[src], reduce="amin")
        new = lib.minimum(new, new[new])  # pointer jumping
        if lib.equal(new, lab):
            break
        lab = new
    rec("iters", it)
    rec("labels", lab)
    roots, inv, cnt = lab.unique(return_inverse=True, return_counts=True)
    rec("roots", roots)
    rec("inv", inv)
    rec("sizes", cnt)
    rec("giant", roots[cnt.argmax()])
    rec("isolated", (a.sum(1) == 0).sum())
    # float label propagation with amax on a float vector
    x = lib.arange(n, dtype=dt)
    for _ in range(n):
        x = x.scatter_reduce(0, dst, x[src], reduce="amax", include_self=True)
    rec("maxlab", x)
    # laplacian nullity = number of components
    lap = lib.diag(a.sum(1).to(dt)) - a.to(dt)
    ev = lib.linalg.eigvalsh(lap)
    rec("nullity", (ev.abs() < 1e-5).sum())
    rec("ncomp", roots.numel())


def p_triangles(lib, dt, rec):
    a = _graph(lib, 14, 0.35, seed=71)
    af = a.to(dt)
    a3 = af @ af @ af
    rec("tri_trace", lib.trace(a3) / 6)
    rec("per_node", lib.diagonal(a3) / 2)
    rec("mpow", lib.linalg.matrix_power(af, 3).diagonal())
    # by edge intersections: u<v edges, count common neighbours
    src, dst = lib.triu(a, diagonal=1).nonzero(as_tuple=True)
    common = (a[src] & a[dst]).sum(1)
    rec("edge_tri", common)
    rec("tri_edges", common.sum() // 3)
    # sorted-adjacency intersection with isin
    tri = 0
    for u, v in zip(src.tolist()[:15], dst.tolist()[:15], strict=True):
        nu = a[u].nonzero().flatten()
        nv = a[v].nonzero().flatten()
        tri += int(lib.isin(nu, nv).sum())
    rec("isin_count", tri)
    # local clustering
    deg = a.sum(1)
    pairs = deg * (deg - 1) / 2
    cc = lib.where(pairs > 0, (a3.diagonal() / 2) / pairs.to(dt), lib.zeros_like(pairs, dtype=dt))
    rec("clustering", cc)
    rec("avg_cc", cc.mean())
    wedges = pairs.sum()
    rec("transitivity", 3 * (lib.trace(a3) / 6) / wedges)
    rec("einsum", lib.einsum("ij,jk,ki->", af, af, af))


def p_kcore(lib, dt, rec):
    a = _graph(lib, 20, 0.2, seed=81).to(lib.int64)
    n = a.shape[0]
    alive = lib.ones(n, dtype=lib.bool)
    core = lib.zeros(n, dtype=lib.long)
    k = 0
    while alive.any():
        deg = (a * alive[None, :]).sum(1) * alive
        changed = True
        while changed:
            peel = alive & (deg <= k)
            changed = bool(peel.any())
            core[peel] = k
            alive &= ~peel
            deg = (a * alive[None, :]).sum(1) * alive
        k += 1
    rec("core", core)
    rec("degeneracy", core.max())
    rec("kcount", lib.bincount(core, minlength=8))
    sub = a[core == core.max()][:, core == core.max()]
    rec("mindeg", sub.sum(1).min())
    rec("dens", sub.to(dt).mean())


def p_assortativity(lib, dt, rec):
    a = _graph(lib, 22, 0.18, seed=91)
    deg = a.sum(1).to(dt)
    src, dst = a.nonzero(as_tuple=True)
    x, y = deg[src], deg[dst]
    r = lib.corrcoef(lib.stack([x, y]))[0, 1]
    rec("r", r)
    xm, ym = x - x.mean(), y - y.mean()
    r2 = (xm * ym).sum() / (xm.pow(2).sum().sqrt() * ym.pow(2).sum().sqrt())
    rec("r2", r2)
    rec("cov", lib.cov(lib.stack([x, y]), correction=0))
    # average neighbour degree
    af = a.to(dt)
    knn = (af @ deg) / deg.clamp_min(1)
    rec("knn", knn)
    # degree distribution
    dint = a.sum(1)
    hist = lib.bincount(dint)
    rec("hist", hist)
    pk = hist.to(dt) / hist.sum()
    rec("pk", pk)
    rec("ccdf", pk.flip(0).cumsum(0).flip(0))
    rec("moments", lib.stack([deg.mean(), deg.var(), deg.std(unbiased=False)]))
    # mixing matrix by degree class
    kmax = int(dint.max()) + 1
    e = lib.zeros(kmax, kmax, dtype=dt)
    e.index_put_((dint[src], dint[dst]), lib.ones(src.numel(), dtype=dt), accumulate=True)
    e = e / e.sum()
    rec("mix", e)
    rec("var_stats", lib.var_mean(deg, correction=1))


def p_random_walks(lib, dt, rec):
    a = _graph(lib, 12, 0.3, seed=101).to(dt)
    n = a.shape[0]
    p = a / a.sum(1, keepdim=True).clamp_min(1)
    g = lib.Generator().manual_seed(5)
    starts = lib.arange(n).repeat_interleave(2)
    walks = [starts]
    cur = starts
    for _ in range(8):
        cur = lib.multinomial(p[cur], 1, generator=g).squeeze(1)
        walks.append(cur)
    walks = lib.stack(walks, 1)
    rec("walks", walks)
    visits = lib.bincount(walks.flatten(), minlength=n)
    rec("visits", visits)
    # transitions are all edges
    rec("valid", a[walks[:, :-1], walks[:, 1:]].bool().all())
    # stationary distribution ~ degree
    pi = a.sum(1) / a.sum()
    rec("pi", pi)
    rec("pi_check", lib.allclose(pi @ p, pi))
    # co-occurrence windows via unfold
    win = walks.unfold(1, 3, 1)
    rec("win_shape", lib.tensor(win.shape))
    pairs = lib.stack([win[..., 0].flatten(), win[..., 2].flatten()], 1)
    co = lib.zeros(n, n, dtype=lib.long)
    co.index_put_((pairs[:, 0], pairs[:, 1]), lib.ones(len(pairs), dtype=lib.long), accumulate=True)
    rec("co", co)
    # hitting times by linear solve
    target = 0
    m = lib.eye(n, dtype=dt) - p
    m[target] = 0
    m[target, target] = 1
    b = lib.ones(n, dtype=dt)
    b[target] = 0
    rec("hit", lib.linalg.solve(m, b))
    torch_state = g.get_state()
    x1 = lib.randint(0, n, (5,), generator=g)
    g.set_state(torch_state)
    rec("replay", lib.equal(x1, lib.randint(0, n, (5,), generator=g)))


def p_node2vec(lib, dt, rec):
    a = _graph(lib, 10, 0.35, seed=111)
    af = a.to(dt)
    n = a.shape[0]
    pp, qq = 0.5, 2.0
    g = lib.Generator().manual_seed(9)
    prev = lib.arange(n)
    cur = lib.multinomial(af[prev] + 1e-12, 1, generator=g).squeeze(1)
    walk = [prev, cur]
    for _ in range(6):
        w = af[cur].clone()
        back = lib.nn.functional.one_hot(prev, n).bool()
        near = a[prev]  # neighbours of prev: distance 1
        bias = lib.full_like(w, 1 / qq)
        bias[near] = 1.0
        bias[back] = 1 / pp
        w = w * bias
        nxt = lib.multinomial(w, 1, replacement=True, generator=g).squeeze(1)
        prev, cur = cur, nxt
        walk.append(cur)
    walk = lib.stack(walk, 1)
    rec("walk", walk)
    # skip-gram style embedding with negative sampling, trained a few steps
    lib.manual_seed(0)
    emb = lib.nn.Embedding(n, 4, dtype=dt)
    ctx = lib.nn.Embedding(n, 4, dtype=dt)
    opt = lib.optim.SGD(list(emb.parameters()) + list(ctx.parameters()), lr=0.1)
    pos = walk.unfold(1, 2, 1).reshape(-1, 2)
    for _ in range(5):
        neg = lib.randint(0, n, (pos.shape[0], 3), generator=g)
        u = emb(pos[:, 0])
        sp = (u * ctx(pos[:, 1])).sum(-1)
        sn = lib.bmm(ctx(neg), u.unsqueeze(2)).squeeze(2)
        loss = -lib.nn.functional.logsigmoid(sp).mean() - lib.nn.functional.logsigmoid(-sn).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("emb", emb.weight)
    sim = lib.nn.functional.cosine_similarity(emb.weight[:, None], emb.weight[None], dim=-1)
    rec("sim", sim)


def p_heat_kernel(lib, dt, rec):
    a = _graph(lib, 10, 0.3, seed=121).to(dt)
    deg = a.sum(1)
    lap = lib.diag(deg) - a
    for t in (0.1, 1.0):
        h = lib.linalg.matrix_exp(-t * lap)
        rec(f"h{t}", h)
        rec(f"rows{t}", h.sum(1))
    ev, vec = lib.linalg.eigh(lap)
    h2 = vec @ lib.diag(lib.exp(-ev)) @ vec.T
    rec("eig_form", h2)
    rec("match", lib.allclose(h2, lib.matrix_exp(-lap), atol=1e-5))
    x0 = lib.zeros(10, dtype=dt)
    x0[0] = 1
    xs = lib.stack([lib.matrix_exp(-t * lap) @ x0 for t in (0.0, 0.5, 2.0)])
    rec("diffusion", xs)
    # batched matrix_exp, with a gradient through t
    t = lib.tensor([0.2, 0.7], dtype=dt, requires_grad=True)
    hb = lib.linalg.matrix_exp(-t[:, None, None] * lap)
    hb.diagonal(dim1=-2, dim2=-1).sum().backward()
    rec("grad_t", t.grad)
    rec("trace_exact", lib.exp(-t.detach()[:, None] * ev).sum(1))


def p_edge_list(lib, dt, rec):
    g = lib.Generator().manual_seed(131)
    n = 8
    ei = lib.randint(0, n, (2, 30), generator=g)
    w = lib.rand(30, generator=g, dtype=dt)
    adj = lib.zeros(n, n, dtype=dt)
    adj.index_put_((ei[0], ei[1]), w, accumulate=True)
    rec("adj", adj)
    cnt = lib.zeros(n, n, dtype=lib.long)
    cnt.index_put_(tuple(ei), lib.ones(30, dtype=lib.long), accumulate=True)
    rec("cnt", cnt)
    # non-accumulating put: last write is unspecified for duplicates, so use unique edges only
    u = lib.unique(ei, dim=1)
    b = lib.zeros(n, n, dtype=lib.bool)
    b[u[0], u[1]] = True
    rec("bool", b)
    rec("back", b.nonzero().T)
    rec("back_u", u)
    # index_add_ and scatter_add degrees
    outd = lib.zeros(n, dtype=dt).index_add_(0, ei[0], w)
    ind = lib.zeros(n, dtype=dt).scatter_add(0, ei[1], w)
    rec("outd", outd)
    rec("ind", ind)
    rec("match", lib.allclose(outd, adj.sum(1)) and lib.allclose(ind, adj.sum(0)))
    # symmetrise, remove self loops
    und = lib.cat([ei, ei.flip(0)], 1)
    und = und[:, und[0] != und[1]]
    rec("und", lib.unique(und, dim=1))
    # message passing: mean aggregation of node features
    x = lib.randn(n, 3, generator=g, dtype=dt)
    agg = lib.zeros(n, 3, dtype=dt).index_add_(0, ei[1], x[ei[0]] * w[:, None])
    deg = lib.zeros(n, dtype=dt).index_add_(0, ei[1], lib.ones(30, dtype=dt))
    rec("mean", agg / deg.clamp_min(1)[:, None])
    mx = lib.zeros(n, 3, dtype=dt).scatter_reduce(
        0, ei[1][:, None].expand(-1, 3), x[ei[0]], reduce="amax", include_self=False
    )
    rec("max", mx)
    mean2 = lib.zeros(n, 3, dtype=dt).scatter_reduce(
        0, ei[1][:, None].expand(-1, 3), x[ei[0]], reduce="mean", include_self=False
    )
    rec("mean2", mean2)


def p_coalesce(lib, dt, rec):
    g = lib.Generator().manual_seed(141)
    ei = lib.randint(0, 6, (40, 2), generator=g)
    w = lib.randn(40, generator=g, dtype=dt)
    uniq, inv, cnt = lib.unique(ei, dim=0, return_inverse=True, return_counts=True)
    rec("uniq", uniq)
    rec("inv", inv)
    rec("cnt", cnt)
    summed = lib.zeros(len(uniq), dtype=dt).index_add_(0, inv, w)
    rec("summed", summed)
    mx = lib.full((len(uniq),), -float("inf"), dtype=dt).scatter_reduce(0, inv, w, "amax")
    rec("max", mx)
    # linearised keys: the same coalescing through 1-D unique with sorted=True
    key = ei[:, 0] * 6 + ei[:, 1]
    k, kinv = lib.unique(key, sorted=True, return_inverse=True)
    rec("key", k)
    rec("same", lib.equal(kinv, inv))
    rec("decode", lib.stack([k // 6, k % 6], 1))
    # unique_consecutive after a sort
    sk, perm = key.sort(stable=True)
    uc, ucnt = lib.unique_consecutive(sk, return_counts=True)
    rec("uc", uc)
    rec("ucnt", ucnt)
    rec("perm", perm)
    # first occurrence of each edge
    first = lib.full((len(uniq),), 40, dtype=lib.long)
    first = first.scatter_reduce(0, inv, lib.arange(40), "amin")
    rec("first", first)
    # unique over rows of a float tensor
    fx = lib.tensor([[1.0, 2.0], [1.0, 2.0], [0.5, 3.0], [1.0, -1.0]], dtype=dt)
    rec("funiq", lib.unique(fx, dim=0, return_counts=True))


def p_csr(lib, dt, rec):
    g = lib.Generator().manual_seed(151)
    n = 9
    ei = lib.randint(0, n, (2, 25), generator=g)
    w = lib.rand(25, generator=g, dtype=dt)
    perm = lib.argsort(ei[0] * n + ei[1], stable=True)
    row, col, val = ei[0][perm], ei[1][perm], w[perm]
    counts = lib.bincount(row, minlength=n)
    indptr = lib.zeros(n + 1, dtype=lib.long)
    indptr[1:] = lib.cumsum(counts, 0)
    rec("indptr", indptr)
    rec("col", col)
    rec("val", val)
    # SpMV by segment sums over indptr
    x = lib.randn(n, generator=g, dtype=dt)
    prod = val * x[col]
    cs = lib.cat([lib.zeros(1, dtype=dt), prod.cumsum(0)])
    y = cs[indptr[1:]] - cs[indptr[:-1]]
    dense = lib.zeros(n, n, dtype=dt).index_put_((row, col), val, accumulate=True)
    rec("spmv", y)
    rec("dense_mv", dense @ x)
    rec("close", lib.allclose(y, dense @ x))
    # row of each nonzero from indptr by searchsorted and repeat_interleave
    rows2 = lib.searchsorted(indptr, lib.arange(25), right=True) - 1
    rec("rows2", rows2)
    rec("rows3", lib.repeat_interleave(lib.arange(n), counts))
    # CSC by sorting on column
    cperm = lib.argsort(col * n + row, stable=True)
    ccounts = lib.bincount(col, minlength=n)
    rec("cindptr", lib.cat([lib.tensor([0]), ccounts.cumsum(0)]))
    rec("crow", row[cperm])
    # to dense by nonzero and back
    nz = dense.nonzero()
    rec("nz", nz)
    rec("nzvals", dense[nz[:, 0], nz[:, 1]])
    rec("count_nonzero", lib.count_nonzero(dense, dim=1))
    rec("bucket", lib.bucketize(lib.tensor([0, 3, 24]), indptr, right=True) - 1)


def p_errors(lib, dt, rec):
    a = lib.zeros(4, 4, dtype=dt)
    idx = lib.tensor([[0, 1], [2, 5]])
    rec.err("oob", lambda: a.index_put_((idx[0], idx[1]), lib.ones(2, dtype=dt), accumulate=True))
    rec.err(
        "scatter_bad",
        lambda: lib.zeros(3, dtype=dt).scatter_reduce(
            0, lib.tensor([0, 1]), lib.ones(2, dtype=dt), reduce="foo"
        ),
    )
    rec.err("bincount_neg", lambda: lib.bincount(lib.tensor([0, -1])))
    rec.err("bincount_2d", lambda: lib.bincount(lib.tensor([[0, 1]])))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("multinomial_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("multinomial_many", lambda: lib.multinomial(lib.tensor([1.0, 0, 0], dtype=dt), 2))
    rec.err("eigh_nonsq", lambda: lib.linalg.eigh(lib.zeros(2, 3, dtype=dt)))
    rec.err("matrix_exp_nonsq", lambda: lib.linalg.matrix_exp(lib.zeros(2, 3, dtype=dt)))
    rec.err("unique_dim", lambda: lib.unique(lib.zeros(2, 3), dim=2))
    rec.err("index_dtype", lambda: a[lib.tensor([0.0, 1.0])])
    rec.err("amin_empty", lambda: lib.zeros(0, dtype=dt).amin())
    rec.err(
        "scatter_dtype",
        lambda: lib.zeros(3).scatter_reduce(
            0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), reduce="amin"
        ),
    )
    rec.err("searchsorted", lambda: lib.searchsorted(lib.tensor([[1, 2]]), lib.tensor([1, 2, 3])))


def p_resistance(lib, dt, rec):
    a = _graph(lib, 9, 0.4, seed=161).to(dt)
    n = a.shape[0]
    lap = lib.diag(a.sum(1)) - a
    lp = lib.linalg.pinv(lap, hermitian=True)
    rec("rank", lib.linalg.matrix_rank(lap, hermitian=True))
    d = lp.diagonal()
    r = d[:, None] + d[None, :] - 2 * lp
    rec("resistance", r)
    rec("kirchhoff", n * lp.trace())
    # the same through the grounded Laplacian solve
    e = lib.zeros(n, dtype=dt)
    e[0], e[3] = 1, -1
    x = lib.linalg.lstsq(lap[1:, 1:], e[1:, None]).solution.squeeze(1)
    rec("grounded", x[2])
    rec("r03", r[0, 3])
    # spanning trees by the matrix-tree theorem (a cofactor's determinant)
    rec("trees", lib.det(lap[1:, 1:]))
    rec("logdet", lib.linalg.slogdet(lap[1:, 1:]).logabsdet)
    # edge sparsification probabilities w_e R_e
    src, dst = lib.triu(a, 1).nonzero(as_tuple=True)
    lev = r[src, dst]
    rec("leverage", lev)
    rec("lev_sum", lev.sum())


def p_gcn_train(lib, dt, rec):
    g = lib.Generator().manual_seed(171)
    lib.manual_seed(171)
    n, f, c = 14, 5, 3
    a = _graph(lib, n, 0.25, seed=172)
    ei = a.nonzero().T
    loops = lib.arange(n).expand(2, n)
    ei = lib.cat([ei, loops], 1)
    deg = lib.zeros(n, dtype=dt).index_add_(0, ei[1], lib.ones(ei.shape[1], dtype=dt))
    norm = (deg[ei[0]] * deg[ei[1]]).rsqrt()
    x = lib.randn(n, f, generator=g, dtype=dt)
    y = lib.randint(0, c, (n,), generator=g)
    train = lib.rand(n, generator=g) < 0.6

    class GCN(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib.nn.Linear(f, 8, dtype=dt)
            self.l2 = lib.nn.Linear(8, c, dtype=dt)

        def prop(self, h):
            msg = h[ei[0]] * norm[:, None]
            return lib.zeros_like(h).index_add(0, ei[1], msg)

        def forward(self, x):
            h = self.prop(self.l1(x)).relu()
            h = lib.nn.functional.dropout(h, 0.2, self.training)
            return self.prop(self.l2(h))

    model = GCN()
    opt = lib.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    for ep in range(15):
        model.train()
        opt.zero_grad()
        out = model(x)
        loss = lib.nn.functional.cross_entropy(out[train], y[train])
        loss.backward()
        opt.step()
        if ep % 5 == 4:
            rec(f"loss{ep}", loss)
    model.eval()
    with lib.no_grad():
        pred = model(x).argmax(1)
    rec("pred", pred)
    rec("acc", (pred[~train] == y[~train]).float().mean())
    rec.params("p", model, grads=True)
    # dense propagation matrix gives the same first layer
    dense = lib.zeros(n, n, dtype=dt).index_put_((ei[1], ei[0]), norm, accumulate=True)
    with lib.no_grad():
        rec("dense_eq", lib.allclose(dense @ model.l1(x), model.prop(model.l1(x))))


def p_gat(lib, dt, rec):
    g = lib.Generator().manual_seed(181)
    n, f, heads = 8, 4, 2
    a = _graph(lib, n, 0.35, seed=182)
    ei = lib.cat([a.nonzero().T, lib.arange(n).repeat(2, 1)], 1)
    x = lib.randn(n, f, generator=g, dtype=dt)
    w = lib.randn(f, heads * 3, generator=g, dtype=dt).requires_grad_()
    att = lib.randn(heads, 6, generator=g, dtype=dt).requires_grad_()
    h = (x @ w).view(n, heads, 3)
    cat = lib.cat([h[ei[0]], h[ei[1]]], -1)
    e = lib.nn.functional.leaky_relu((cat * att).sum(-1), 0.2)
    idx = ei[1][:, None].expand(-1, heads)
    emax = lib.full((n, heads), float("-inf"), dtype=dt).scatter_reduce(0, idx, e, "amax")
    ex = (e - emax[ei[1]]).exp()
    den = lib.zeros(n, heads, dtype=dt).scatter_add(0, idx, ex)
    alpha = ex / den[ei[1]]
    rec("alpha", alpha)
    rec("alpha_sum", lib.zeros(n, heads, dtype=dt).index_add(0, ei[1], alpha))
    out = lib.zeros(n, heads, 3, dtype=dt).index_add(0, ei[1], alpha[..., None] * h[ei[0]])
    out = lib.nn.functional.elu(out).mean(1)
    loss = out.pow(2).sum()
    gw, ga = lib.autograd.grad(loss, (w, att), create_graph=True)
    rec("out", out)
    rec("gw", gw)
    rec("ga", ga)
    (gg,) = lib.autograd.grad(ga.pow(2).sum(), att)
    rec("gg", gg)
    # softmax per destination through sort-based segment boundaries
    perm = ei[1].argsort(stable=True)
    counts = lib.bincount(ei[1], minlength=n)
    parts = lib.split(e.detach()[perm, 0], counts.tolist())
    sm = lib.cat([lib.softmax(p_, 0) for p_ in parts])
    rec("seg_softmax", lib.allclose(sm, alpha.detach()[perm, 0]))


def p_knn_spectral(lib, dt, rec):
    g = lib.Generator().manual_seed(191)
    centers = lib.tensor([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]], dtype=dt)
    x = centers.repeat_interleave(6, 0) + 0.5 * lib.randn(18, 2, generator=g, dtype=dt)
    d = lib.cdist(x, x)
    rec("pdist", lib.pdist(x))
    d.fill_diagonal_(float("inf"))
    knn = d.topk(4, dim=1, largest=False)
    rows = lib.arange(18).repeat_interleave(4)
    adj = lib.zeros(18, 18, dtype=lib.bool)
    adj[rows, knn.indices.flatten()] = True
    adj = adj | adj.T
    rec("adj_deg", adj.sum(1))
    sigma = knn.values[:, -1]
    dd = d.masked_fill(lib.isinf(d), 0.0)
    wgt = lib.exp(-dd.pow(2) / (sigma[:, None] * sigma[None, :])) * adj
    rec("w", wgt)
    deg = wgt.sum(1)
    lrw = lib.eye(18, dtype=dt) - wgt / deg[:, None]
    lsym = lib.eye(18, dtype=dt) - wgt / (deg[:, None] * deg[None, :]).sqrt()
    ev = lib.linalg.eigvalsh(lsym)
    rec("ev", ev[:5])
    rec("rw_trace", lrw.trace())
    e2, _ = lib.lobpcg(lsym, k=2, largest=True, niter=200)
    rec("lobpcg_top", e2)
    _, vec = lib.linalg.eigh(lsym)
    emb = vec[:, :3] / deg.sqrt()[:, None]
    emb = lib.nn.functional.normalize(emb, dim=1)
    lab, _ = _kmeans(lib, emb, 3, seed=2)
    truth = lib.arange(3).repeat_interleave(6)
    cont = lib.zeros(3, 3, dtype=lib.long).index_put_(
        (truth, lab), lib.ones(18, dtype=lib.long), accumulate=True
    )
    rec("pure", (cont > 0).sum(1))


def p_centralities(lib, dt, rec):
    a = _graph(lib, 12, 0.3, seed=201).to(dt)
    n = a.shape[0]
    deg = a.sum(1)
    rec("degree_c", deg / (n - 1))
    # eigenvector centrality by power iteration
    x = lib.ones(n, dtype=dt)
    for _ in range(200):
        x = a @ x + x  # shifted to avoid oscillation on bipartite parts
        x = x / lib.linalg.vector_norm(x)
    rec("eig_c", x)
    lam = (x @ a @ x) / (x @ x)
    rec("lambda", lam)
    rec("lambda_eigh", lib.linalg.eigvalsh(a)[-1])
    # Katz
    alpha = 0.5 / lam
    katz = lib.linalg.solve(lib.eye(n, dtype=dt) - alpha * a.T, lib.ones(n, dtype=dt))
    rec("katz", katz)
    rec("katz_series", sum(alpha**k * lib.linalg.matrix_power(a, k).sum(0) for k in range(80)))
    # harmonic centrality by BFS distances (matrix powers)
    reach = lib.eye(n, dtype=lib.bool)
    dist = lib.where(reach, 0, -1)
    frontier = reach.clone()
    ab = a.bool()
    for k in range(1, n):
        frontier = ((frontier.to(dt) @ a) > 0) & ~reach
        dist[frontier] = k
        reach |= frontier
    rec("dist", dist)
    harm = lib.where(dist > 0, 1.0 / dist.to(dt), lib.zeros((), dtype=dt)).sum(1)
    rec("harmonic", harm)
    rec("sym", lib.equal(dist, dist.T) and lib.equal(ab, ab.T))


def p_brandes(lib, dt, rec):
    a = _graph(lib, 10, 0.3, seed=211)
    n = a.shape[0]
    af = a.to(dt)
    bc = lib.zeros(n, dtype=dt)
    for s in range(n):
        sigma = lib.zeros(n, dtype=dt)
        sigma[s] = 1
        dist = lib.full((n,), -1, dtype=lib.long)
        dist[s] = 0
        frontier = lib.zeros(n, dtype=lib.bool)
        frontier[s] = True
        levels = [frontier]
        d = 0
        while True:
            d += 1
            counts = (sigma * frontier) @ af
            nxt = (counts > 0) & (dist < 0)
            if not nxt.any():
                break
            sigma = lib.where(nxt, counts, sigma)
            dist[nxt] = d
            levels.append(nxt)
            frontier = nxt
        delta = lib.zeros(n, dtype=dt)
        for lvl in reversed(range(1, len(levels))):
            w = levels[lvl]
            coef = lib.where(w, (1 + delta) / sigma.clamp_min(1), lib.zeros_like(delta))
            contrib = sigma * (af @ coef)
            delta = delta + lib.where(levels[lvl - 1], contrib, lib.zeros_like(delta))
        delta[s] = 0
        bc += delta
    bc /= 2
    rec("betweenness", bc)
    rec("normalized", bc * 2 / ((n - 1) * (n - 2)))
    rec("rank", bc.argsort(descending=True, stable=True))


def p_prim_mst(lib, dt, rec):
    a = _graph(lib, 11, 0.4, seed=221)
    w = _weights(lib, dt, a, seed=222)
    n = w.shape[0]
    in_tree = lib.zeros(n, dtype=lib.bool)
    in_tree[0] = True
    best = w[0].clone()
    parent = lib.zeros(n, dtype=lib.long)
    edges, total = [], lib.zeros((), dtype=dt)
    for _ in range(n - 1):
        cand = best.masked_fill(in_tree, float("inf"))
        v = int(cand.argmin())
        if not lib.isfinite(cand[v]):
            break
        edges.append((int(parent[v]), v))
        total = total + cand[v]
        in_tree[v] = True
        better = w[v] < best
        parent = lib.where(better, lib.full_like(parent, v), parent)
        best = lib.minimum(best, w[v])
    rec("edges", lib.tensor(edges))
    rec("total", total)
    rec("spanned", in_tree)
    # Kruskal by sorting the edge list with union-find on a label tensor
    src, dst = lib.triu(a, 1).nonzero(as_tuple=True)
    ew = w[src, dst]
    order = ew.argsort(stable=True)
    comp = lib.arange(n)
    tot2 = lib.zeros((), dtype=dt)
    for e in order.tolist():
        cu, cv = comp[src[e]], comp[dst[e]]
        if cu != cv:
            comp[comp == cv] = cu
            tot2 = tot2 + ew[e]
    rec("kruskal", tot2)
    rec("same", lib.isclose(tot2, total))


def p_toposort(lib, dt, rec):
    g = lib.Generator().manual_seed(231)
    n = 12
    perm = lib.randperm(n, generator=g)
    upper = lib.triu(lib.rand(n, n, generator=g) < 0.3, 1)
    dag = lib.zeros(n, n, dtype=lib.bool)
    dag[perm[:, None], perm[None, :]] = upper
    indeg = dag.sum(0)
    rec("indeg", indeg)
    order = []
    remaining = lib.ones(n, dtype=lib.bool)
    layers = []
    while remaining.any():
        ready = (indeg == 0) & remaining
        layer = ready.nonzero().flatten()
        layers.append(layer)
        order.extend(layer.tolist())
        remaining &= ~ready
        indeg = indeg - dag[ready].sum(0)
    rec("order", lib.tensor(order))
    rec("nlayers", len(layers))
    rec("layer_sizes", lib.tensor([len(x) for x in layers]))
    pos = lib.empty(n, dtype=lib.long)
    pos[lib.tensor(order)] = lib.arange(n)
    s, d = dag.nonzero(as_tuple=True)
    rec("valid", (pos[s] < pos[d]).all())
    # longest path by DP in order (critical path)
    dur = lib.rand(n, generator=g, dtype=dt) * 5
    finish = dur.clone()
    for v in order:
        preds = dag[:, v]
        if preds.any():
            finish[v] = dur[v] + finish[preds].max()
    rec("finish", finish)
    rec("makespan", finish.max())
    # transitive closure by repeated boolean squaring
    r = dag.clone()
    for _ in range(4):
        r = r | ((r.to(dt) @ r.to(dt)) > 0)
    rec("closure", r.sum())
    rec("acyclic", ~r.diagonal().any())


def p_modularity(lib, dt, rec):
    a = _graph(lib, 16, 0.25, seed=241).to(dt)
    m2 = a.sum()
    k = a.sum(1)
    b = a - lib.outer(k, k) / m2
    rec("b_rows", b.sum(1))
    ev, vec = lib.linalg.eigh(b)
    s = lib.where(vec[:, -1] * vec[0, -1].sign() >= 0, 1.0, -1.0).to(dt)
    rec("split", s)
    q = (s @ b @ s) / (2 * m2)
    rec("q_split", q)
    # greedy local moves (Louvain's first phase) with one-hot communities
    comm = lib.arange(16)
    for _ in range(3):
        for v in range(16):
            oh = lib.nn.functional.one_hot(comm, 16).to(dt)
            gain = b[v] @ oh - b[v, v] * oh[v]
            comm[v] = int(gain.argmax())
    _, comm = lib.unique(comm, return_inverse=True)
    rec("comm", comm)
    oh = lib.nn.functional.one_hot(comm).to(dt)
    qq = lib.trace(oh.T @ b @ oh) / m2
    rec("q", qq)
    e = oh.T @ a @ oh / m2
    rec("e", e)
    rec("q_e", (e.diagonal() - e.sum(1).pow(2)).sum())


def p_link_prediction(lib, dt, rec):
    a = _graph(lib, 15, 0.3, seed=251)
    g = lib.Generator().manual_seed(252)
    src, dst = lib.triu(a, 1).nonzero(as_tuple=True)
    perm = lib.randperm(src.numel(), generator=g)
    test = perm[: src.numel() // 5]
    train_a = a.clone()
    train_a[src[test], dst[test]] = False
    train_a[dst[test], src[test]] = False
    t = train_a.to(dt)
    cn = t @ t
    deg = t.sum(1)
    union = deg[:, None] + deg[None, :] - cn
    jac = lib.where(union > 0, cn / union, lib.zeros_like(cn))
    aa = t @ lib.diag(lib.where(deg > 1, 1 / deg.log(), lib.zeros_like(deg))) @ t
    ra = t @ lib.diag(1 / deg.clamp_min(1)) @ t
    non = (~a).triu(1).nonzero(as_tuple=True)
    neg = lib.randint(0, non[0].numel(), (test.numel(),), generator=g)
    ps, pd = src[test], dst[test]
    ns, nd = non[0][neg], non[1][neg]
    for name, sc in (("cn", cn), ("jac", jac), ("aa", aa), ("ra", ra)):
        pos_s, neg_s = sc[ps, pd], sc[ns, nd]
        rec(name + "_pos", pos_s)
        scores = lib.cat([pos_s, neg_s])
        labels = lib.cat([lib.ones_like(pos_s), lib.zeros_like(neg_s)])
        # AUC by the rank-sum with average ranks over ties
        srt, order = scores.sort(stable=True)
        ranks = lib.empty_like(scores)
        ranks[order] = lib.arange(1, len(scores) + 1, dtype=dt)
        u, inv = lib.unique(scores, return_inverse=True)
        mean_rank = lib.zeros(len(u), dtype=dt).index_reduce_(
            0, inv, ranks, "mean", include_self=False
        )
        r = mean_rank[inv]
        npos = labels.sum()
        auc = (r[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(scores) - npos))
        rec(name + "_auc", auc)
    rec("pref_attach", (deg[ps] * deg[pd]))


def p_segments(lib, dt, rec):
    g = lib.Generator().manual_seed(261)
    n = 7
    ei = lib.randint(0, n, (2, 20), generator=g)
    val = lib.randn(20, generator=g, dtype=dt)
    perm = ei[1].argsort(stable=True)
    dst_sorted, v = ei[1][perm], val[perm]
    lengths = lib.bincount(dst_sorted, minlength=n)
    rec("lengths", lengths)
    for red in ("sum", "mean", "max", "min"):
        rec("seg_" + red, lib.segment_reduce(v, red, lengths=lengths, unsafe=True, initial=0.0))
    offsets = lib.cat([lib.zeros(1, dtype=lib.long), lengths.cumsum(0)])
    rec("seg_off", lib.segment_reduce(v, "sum", offsets=offsets))
    parts = lib.tensor_split(v, offsets[1:-1])
    rec("nparts", len(parts))
    rec(
        "split_max",
        lib.stack([p_.max() if p_.numel() else lib.zeros((), dtype=dt) for p_ in parts]),
    )
    # embedding_bag over CSR neighbour lists
    feats = lib.randn(n, 3, generator=g, dtype=dt)
    src_sorted = ei[0][perm]
    for mode in ("sum", "mean", "max"):
        rec(
            "bag_" + mode,
            lib.nn.functional.embedding_bag(src_sorted, feats, offsets[:-1], mode=mode),
        )
    rec(
        "bag_w",
        lib.nn.functional.embedding_bag(
            src_sorted, feats, offsets, mode="sum", per_sample_weights=v, include_last_offset=True
        ),
    )
    bag = lib.nn.EmbeddingBag(n, 2, mode="mean", dtype=dt)
    with lib.no_grad():
        bag.weight.copy_(feats[:, :2])
    out = bag(src_sorted, offsets[:-1])
    out.sum().backward()
    rec("bag_grad", bag.weight.grad)
    # gradient of segment_reduce max
    vv = v.clone().requires_grad_()
    lib.segment_reduce(vv, "max", lengths=lengths, unsafe=True, initial=0.0).sum().backward()
    rec("seg_grad", vv.grad)


def p_sbm_ppmi(lib, dt, rec):
    g = lib.Generator().manual_seed(271)
    sizes = lib.tensor([5, 4, 6])
    blocks = lib.repeat_interleave(lib.arange(3), sizes)
    pm = lib.tensor([[0.9, 0.1, 0.05], [0.1, 0.8, 0.1], [0.05, 0.1, 0.7]], dtype=dt)
    prob = pm[blocks[:, None], blocks[None, :]]
    a = (lib.rand(15, 15, generator=g, dtype=dt) < prob).triu(1)
    a = (a | a.T).to(dt)
    rec(
        "edges_per_block",
        lib.zeros(3, 3, dtype=dt).index_put_(
            (blocks[:, None].expand(15, 15), blocks[None, :].expand(15, 15)), a, accumulate=True
        ),
    )
    # DeepWalk matrix factorisation: PPMI of the window-T random-walk co-occurrence
    deg = a.sum(1)
    p = a / deg.clamp_min(1)[:, None]
    s = lib.zeros_like(p)
    pk = lib.eye(15, dtype=dt)
    for _ in range(3):
        pk = pk @ p
        s = s + pk
    m = (a.sum() / 3) * (s / deg.clamp_min(1)[None, :])
    ppmi = lib.log(m.clamp_min(1.0))
    rec("ppmi", ppmi)
    u, sv, vh = lib.linalg.svd(ppmi)
    rec("sv", sv[:4])
    emb = u[:, :2] * sv[:2].sqrt()
    rec("emb_gram", emb @ emb.T)
    rec("lowrank_err", lib.linalg.matrix_norm(ppmi - (u[:, :4] * sv[:4]) @ vh[:4], "fro"))
    rec("nuc", lib.linalg.matrix_norm(ppmi, "nuc"))
