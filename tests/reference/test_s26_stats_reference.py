"""Session 26 (stats): statistics and data-analysis programs of users coming from NumPy/SciPy/
pandas, each written once against a `torch`-like module and run under torch and minitorch after
the same manual_seed: descriptive statistics (moments with corrections, nan-reductions, medians
and quantiles with every interpolation, mode/kthvalue/cummax ties, histograms, bincount,
bucketize/searchsorted, unique, cov/corrcoef with weights, diff), resampling (bootstrap,
permutation tests, jackknife, folds, stratified splits, weighted sampling), estimation (lstsq per
driver, ridge, logistic regression by Newton and LBFGS, Poisson IRLS, distribution MLEs, KDE,
ECDF, QQ quantiles, special functions, multiple-testing corrections) and time series (rolling
windows, EWMA, autocorrelation, lags, seasonal decomposition).
Every recorded value (dtype, values, indices, exception type and message) must agree: float64
to 1e-10 of its scale, float32 to 1e-4."""

from __future__ import annotations

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")
from tests.reference._one_thread import one_torch_thread  # noqa: E402, F401


def _user_warning(w):
    return issubclass(w.category, UserWarning)


def _err_type(rec, name, fn):
    """Records only the type of the exception fn raises (torch's parser lists the arguments in
    the order they were passed, which a Python signature cannot see)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is the record
        rec(name, type(e).__name__)
    else:
        rec(name, "no error")


# --- descriptive statistics ---


def p_moments(lib, dt, rec):
    """mean/var/std with correction 0/1/2, unbiased=, std_mean/var_mean, keepdim, dim tuples."""
    lib.manual_seed(0)
    x = lib.randn(5, 7, dtype=dt)
    for c in (0, 1, 2):
        rec(f"var.c{c}", x.var(dim=1, correction=c))
        rec(f"std.c{c}", lib.std(x, dim=0, correction=c, keepdim=True))
    rec("var.unb", x.var(1, unbiased=False))
    rec("std.unb", x.std(unbiased=True))
    rec("var.all.c0", lib.var(x, correction=0))
    sm = lib.std_mean(x, dim=1, correction=0)
    rec("std_mean.0", sm[0])
    rec("std_mean.1", sm[1])
    vm = lib.var_mean(x, (0, 1), keepdim=True)
    rec("var_mean.0", vm[0])
    rec("var_mean.1", vm[1])
    rec("var_mean.type", type(vm).__name__)
    rec("var.neg", x.var(dim=-1, correction=-1))
    rec("var.c_large", x[:2].var(dim=0, correction=2))
    rec("var.one", lib.tensor([3.0], dtype=dt).var())
    rec("std.one.c0", lib.tensor([3.0], dtype=dt).std(correction=0))
    rec("mean.empty", lib.tensor([], dtype=dt).mean())
    rec.err("mean.int", lambda: lib.arange(4).mean())
    rec("mean.int.dtype", lib.arange(4).mean(dtype=dt))
    rec.err("var.int", lambda: lib.arange(4).var())
    _err_type(rec, "var.both", lambda: x.var(1, unbiased=True, correction=1))
    rec("float.corr", x.var(1, correction=0.5))
    xn = x.clone()
    xn[1, 2] = float("nan")
    xn[3] = float("nan")
    rec("nanmean", lib.nanmean(xn, dim=1))
    rec("nansum", lib.nansum(xn, dim=0))
    rec("nansum.all", xn.nansum())
    rec("nanmean.keep", xn.nanmean(dim=0, keepdim=True))
    rec("mean.nan", xn.mean(1))
    rec("nanmedian", lib.nanmedian(xn, dim=1).values)
    rec("nanmedian.idx", lib.nanmedian(xn, dim=1).indices)
    rec("nanmedian.all", xn.nanmedian())
    rec("median.nan", xn.median(dim=1).values)
    rec("median.nan.idx", xn.median(dim=1).indices)
    rec("median.nan.all", xn.median())
    rec("count_nonzero", lib.count_nonzero(x > 0, dim=1))
    rec("count_nonzero.t", lib.count_nonzero(x, dim=(0, 1)))
    amm = lib.aminmax(x, dim=0)
    rec("aminmax.min", amm.min)
    rec("aminmax.max", amm.max)
    rec("aminmax.all", lib.stack(list(lib.aminmax(xn))))
    rec("aminmax.type", type(amm).__name__)
    rec.err("aminmax.empty", lambda: lib.aminmax(lib.tensor([], dtype=dt)))


def p_quantiles(lib, dt, rec):
    """median and quantile with every interpolation: ties, even lengths, NaN, dim/keepdim, q as a
    tensor, errors."""
    lib.manual_seed(1)
    x = lib.randint(0, 5, (4, 6)).to(dt)
    rec("x", x)
    rec("median", x.median(dim=1).values)
    rec("median.idx", x.median(dim=1).indices)
    rec("median.all", x.median())
    rec("median.keep", lib.median(x, 0, keepdim=True).indices)
    q = lib.tensor([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0], dtype=dt)
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        rec(f"q.{interp}", lib.quantile(x, q, dim=1, interpolation=interp))
        rec(f"q.{interp}.f", x.quantile(0.3, interpolation=interp))
        y = lib.arange(8, dtype=dt)
        rec(
            f"q.{interp}.half",
            lib.quantile(y, lib.tensor([0.5, 1 / 14, 3 / 14], dtype=dt), interpolation=interp),
        )
    rec("q.keep", lib.quantile(x, q[:3], dim=0, keepdim=True))
    rec("q.keep.neg", lib.quantile(x, 0.4, dim=-1, keepdim=True))
    xn = x.clone()
    xn[0, 1] = float("nan")
    rec("q.nan", lib.quantile(xn, q, dim=1))
    rec("nanq", lib.nanquantile(xn, q, dim=1))
    rec("nanq.all", lib.nanquantile(xn, 0.5))
    rec("nanq.allnan", lib.nanquantile(lib.full((3,), float("nan"), dtype=dt), 0.5))
    rec("nanq.mid", xn.nanquantile(q, dim=1, interpolation="midpoint"))
    rec("nanq.near", xn.nanquantile(q, dim=1, interpolation="nearest"))
    rec.err("q.range", lambda: lib.quantile(x, 1.5))
    rec.err("q.range.t", lambda: lib.quantile(x, lib.tensor([0.1, -0.1], dtype=dt)))
    rec.err("q.interp", lambda: lib.quantile(x, 0.5, interpolation="cubic"))
    rec.err(
        "q.dtype",
        lambda: lib.quantile(
            x.float() if dt == lib.float64 else x.double(), lib.tensor(0.5, dtype=dt)
        ),
    )
    rec.err("q.int", lambda: lib.quantile(lib.arange(5), 0.5))
    rec.err("q.2d", lambda: lib.quantile(x, lib.ones(2, 2, dtype=dt) / 2))
    rec.err("q.empty", lambda: lib.quantile(lib.tensor([], dtype=dt), 0.5))
    rec("q.scalar_t", lib.quantile(x, lib.tensor(0.25, dtype=dt), dim=1))
    k = lib.randperm(24).view(4, 6).to(dt).kthvalue(3, dim=1)  # ties: torch's own choice
    rec("kth.v", k.values)
    rec("kth.i", k.indices)
    rec("kth.keep", lib.kthvalue(x, 2, 0, keepdim=True).indices)
    rec.err("kth.range", lambda: x.kthvalue(7, dim=1))
    m = lib.mode(x, dim=1)
    rec("mode.v", m.values)
    rec("mode.i", m.indices)
    m0 = x.mode(0, keepdim=True)
    rec("mode0.v", m0.values)
    rec("mode0.i", m0.indices)
    rec("mode.all", lib.tensor([1.0, 2.0, 2.0, 1.0, 3.0], dtype=dt).mode())
    rec("mode.1d.i", lib.tensor([1.0, 2.0, 2.0, 1.0, 3.0], dtype=dt).mode().indices)


def p_cumulative(lib, dt, rec):
    """cummax/cummin ties, logcumsumexp, cumsum/cumprod with NaN and dtype, diff with
    prepend/append."""
    x = lib.tensor([[1.0, 3.0, 3.0, 2.0, 3.0, 0.0], [2.0, 2.0, 1.0, 1.0, 4.0, 4.0]], dtype=dt)
    cm = lib.cummax(x, dim=1)
    rec("cummax.v", cm.values)
    rec("cummax.i", cm.indices)
    cn = x.cummin(1)
    rec("cummin.v", cn.values)
    rec("cummin.i", cn.indices)
    rec("cummax.0.i", x.cummax(0).indices)
    xn = x.clone()
    xn[0, 2] = float("nan")
    rec("cummax.nan.v", xn.cummax(1).values)
    rec("cummax.nan.i", xn.cummax(1).indices)
    rec("cummin.nan.i", xn.cummin(1).indices)
    rec("lcse", lib.logcumsumexp(x, dim=1))
    big = lib.tensor([1000.0, 1000.0, -float("inf"), 5.0], dtype=dt)
    rec("lcse.big", big.logcumsumexp(0))
    rec("lcse.ninf", lib.full((3,), -float("inf"), dtype=dt).logcumsumexp(0))
    rec("cumsum.nan", xn.cumsum(1))
    rec("cumprod", x.cumprod(dim=1))
    rec("cumsum.int", lib.arange(5).cumsum(0))
    rec("cumsum.bool", (x > 1).cumsum(1))
    rec("cumsum.dtype", lib.cumsum(lib.arange(5), 0, dtype=dt))
    rec("diff", lib.diff(x, dim=1))
    rec("diff.n2", x.diff(n=2))
    rec("diff.pre", lib.diff(x, prepend=lib.zeros(2, 1, dtype=dt), append=x[:, :2]))
    rec("diff.0", lib.diff(x, dim=0))
    rec("diff.bool", lib.diff(x > 1))
    rec("diff.n0", lib.diff(x, n=0))
    rec("diff.nbig", lib.diff(x, n=9))
    rec.err("diff.neg", lambda: lib.diff(x, n=-1))
    rec.err("diff.pre.bad", lambda: lib.diff(x, prepend=lib.zeros(3, 1, dtype=dt)))
    rec.err("diff.scalar", lambda: lib.diff(lib.tensor(1.0, dtype=dt)))


def p_histograms(lib, dt, rec):
    """histc, histogram (density, weight, bins as a tensor), histogramdd, bincount with minlength
    and weights, bucketize and searchsorted (right, side, sorter)."""
    lib.manual_seed(2)
    x = lib.randn(200, dtype=dt)
    rec("histc", lib.histc(x, bins=8, min=-2, max=2))
    rec("histc.auto", x.histc(5))
    rec("histc.same", lib.histc(lib.ones(4, dtype=dt), bins=4))
    h = lib.histogram(x, bins=6)
    rec("hist.counts", h.hist)
    rec("hist.edges", h.bin_edges)
    rec("hist.type", type(h).__name__)
    h = lib.histogram(x, bins=5, range=(-1.0, 1.0), density=True)
    rec("hist.dens", h.hist)
    w = lib.rand(200, dtype=dt)
    h = lib.histogram(x, bins=lib.tensor([-3.0, -1.0, 0.0, 0.5, 3.0], dtype=dt), weight=w)
    rec("hist.w", h.hist)
    rec("hist.w.edges", h.bin_edges)
    h = lib.histogram(x, lib.tensor([-3.0, -1.0, 0.0, 0.5, 3.0], dtype=dt), weight=w, density=True)
    rec("hist.wd", h.hist)
    rec.err("hist.int", lambda: lib.histogram(lib.arange(5), bins=3))
    rec.err("histc.bins0", lambda: lib.histc(x, bins=0))
    rec.err("histc.range", lambda: lib.histc(x, bins=3, min=2, max=1))
    pts = lib.randn(50, 2, dtype=dt)
    hd = lib.histogramdd(pts, bins=[3, 4])
    rec("hdd.hist", hd.hist)
    rec("hdd.edges0", hd.bin_edges[0])
    rec("hdd.edges1", hd.bin_edges[1])
    hd = lib.histogramdd(pts, bins=3, range=[-2.0, 2.0, -1.0, 1.0], density=True)
    rec("hdd.dens", hd.hist)
    hd = lib.histogramdd(
        pts,
        bins=[lib.tensor([-3.0, 0.0, 3.0], dtype=dt), lib.tensor([-1.0, 1.0], dtype=dt)],
        weight=w[:50],
    )
    rec("hdd.tb", hd.hist)
    idx = lib.randint(0, 6, (30,))
    rec("bincount", lib.bincount(idx))
    rec("bincount.min", idx.bincount(minlength=10))
    rec("bincount.w", lib.bincount(idx, weights=w[:30]))
    rec("bincount.wf", lib.bincount(idx, weights=w[:30].float()))
    rec("bincount.wi", lib.bincount(idx, weights=lib.arange(30)))
    rec("bincount.empty", lib.bincount(lib.tensor([], dtype=lib.int64), minlength=3))
    rec.err("bincount.neg", lambda: lib.bincount(lib.tensor([1, -1])))
    rec.err("bincount.float", lambda: lib.bincount(lib.tensor([1.0, 2.0])))
    rec.err("bincount.2d", lambda: lib.bincount(idx.view(5, 6)))
    edges = lib.tensor([-1.0, 0.0, 0.0, 1.0], dtype=dt)
    v = lib.tensor([[-2.0, -1.0, 0.0], [0.5, 1.0, 3.0]], dtype=dt)
    rec("bucketize", lib.bucketize(v, edges))
    rec("bucketize.r", lib.bucketize(v, edges, right=True))
    rec("bucketize.i32", lib.bucketize(v, edges, out_int32=True))
    rec("bucketize.scalar", lib.bucketize(0.0, edges))
    rec("ss", lib.searchsorted(edges, v))
    rec("ss.side", lib.searchsorted(edges, v, side="right"))
    rec("ss.2d", lib.searchsorted(lib.sort(v, dim=1).values, lib.zeros(2, 2, dtype=dt)))
    perm = lib.tensor([3, 0, 2, 1])
    rec("ss.sorter", lib.searchsorted(edges[perm], v, sorter=lib.argsort(edges[perm])))
    rec.err("ss.conflict", lambda: lib.searchsorted(edges, v, right=False, side="right"))
    rec.err("ss.shape", lambda: lib.searchsorted(v, edges))


def p_unique_cov(lib, dt, rec):
    """unique (sorted, return_inverse, return_counts, dim), unique_consecutive, cov/corrcoef with
    fweights/aweights and correction."""
    x = lib.tensor([3.0, 1.0, 2.0, 3.0, 1.0, 1.0, 5.0], dtype=dt)
    u, inv, cnt = lib.unique(x, return_inverse=True, return_counts=True)
    rec("u", u)
    rec("inv", inv)
    rec("cnt", cnt)
    rec("u.unsorted.dtype", str(x.unique(sorted=False).dtype))
    uc, ci, cc = lib.unique_consecutive(x, return_inverse=True, return_counts=True)
    rec("uc", uc)
    rec("uc.inv", ci)
    rec("uc.cnt", cc)
    m = lib.tensor([[1, 2], [3, 4], [1, 2], [0, 9]])
    ud, idd = lib.unique(m, dim=0, return_inverse=True)
    rec("u.dim", ud)
    rec("u.dim.inv", idd)
    rec("uc.dim", lib.unique_consecutive(m[lib.tensor([0, 2, 1, 3])], dim=0))
    xn = lib.tensor([float("nan"), 1.0, float("nan"), 1.0], dtype=dt)
    rec("u.nan", lib.unique(xn))
    rec("u.nan.counts", lib.unique(xn, return_counts=True)[1])
    lib.manual_seed(3)
    obs = lib.randn(3, 10, dtype=dt)
    rec("cov", lib.cov(obs))
    rec("cov.c0", obs.cov(correction=0))
    fw = lib.randint(1, 4, (10,))
    aw = lib.rand(10, dtype=dt)
    rec("cov.fw", lib.cov(obs, fweights=fw))
    rec("cov.aw", lib.cov(obs, aweights=aw))
    rec("cov.both", lib.cov(obs, correction=0, fweights=fw, aweights=aw))
    rec("cov.1d", lib.cov(obs[0]))
    rec("cov.one", lib.cov(obs[:, :1]))
    rec("corr", lib.corrcoef(obs))
    rec("corr.1d", obs[0].corrcoef())
    const = lib.stack([obs[0], lib.ones(10, dtype=dt)])
    rec("corr.const", lib.corrcoef(const))
    rec.err("cov.fw.float", lambda: lib.cov(obs, fweights=aw))
    rec.err("cov.fw.neg", lambda: lib.cov(obs, fweights=-fw))
    rec.err("cov.aw.neg", lambda: lib.cov(obs, aweights=-aw))
    rec.err("cov.3d", lambda: lib.cov(obs.view(3, 2, 5)))
    rec.err("cov.fw.len", lambda: lib.cov(obs, fweights=fw[:3]))
    rec("cov.int", lib.cov(lib.tensor([[1, 2, 4], [2, 2, 3]])))
    rec("corr.int", lib.corrcoef(lib.tensor([[1, 2, 4], [2, 2, 3]])))


# --- resampling ---


def p_bootstrap(lib, dt, rec):
    """Bootstrap percentile intervals with randint from a Generator, jackknife bias and standard
    error, a permutation test with randperm per iteration."""
    g = lib.Generator().manual_seed(7)
    x = lib.randn(30, dtype=dt, generator=g) * 2 + 1
    y = lib.randn(25, dtype=dt, generator=g) + 0.5
    rec("x", x)
    B = 200
    idx = lib.randint(0, 30, (B, 30), generator=g)
    rec("idx", idx[:3])
    means = x[idx].mean(1)
    rec("boot.means", means[:10])
    rec("ci", lib.quantile(means, lib.tensor([0.025, 0.975], dtype=dt)))
    rec("ci.lower", means.quantile(0.05, interpolation="lower"))
    med = x[idx].median(dim=1).values
    rec("boot.med", med[:8])
    rec("se", med.std())
    # jackknife of the variance
    keep = ~lib.eye(30, dtype=lib.bool)
    loo = x.expand(30, 30)[keep].view(30, 29)
    theta = loo.var(1)
    rec("jk.theta", theta)
    n = 30
    rec("jk.bias", (n - 1) * (theta.mean() - x.var()))
    rec("jk.se", ((n - 1) / n * ((theta - theta.mean()) ** 2).sum()).sqrt())
    # permutation test of a mean difference
    pooled = lib.cat([x, y])
    obs = x.mean() - y.mean()
    lib.manual_seed(11)
    stats = []
    for _ in range(50):
        p = lib.randperm(55)
        stats.append(pooled[p[:30]].mean() - pooled[p[30:]].mean())
    stats = lib.stack(stats)
    rec("perm.stats", stats)
    rec("perm.p", (stats.abs() >= obs.abs()).to(dt).mean())
    rec("perm.gen", lib.randperm(10, generator=g))
    rec("perm.dtype", lib.randperm(6, dtype=dt))
    rec("randint.g", lib.randint(3, 9, (4,), generator=g, dtype=lib.int32))
    # permutation via argsort of uniform keys (stable)
    keys = lib.rand(12, generator=g, dtype=dt)
    rec("argsort.keys", lib.argsort(keys, stable=True))
    ties = lib.tensor([2, 1, 2, 0, 1, 2, 0])
    rec("argsort.ties", lib.argsort(ties, stable=True))
    rec("argsort.ties.desc", ties.argsort(descending=True, stable=True))
    rec("sort.stable", lib.sort(ties, stable=True, descending=True).indices)


def p_splits(lib, dt, rec):
    """Cross-validation folds by randperm/chunk/tensor_split, stratified splits by argsort of
    labels, weighted sampling with multinomial (with and without replacement) and its errors."""
    lib.manual_seed(5)
    n = 23
    perm = lib.randperm(n)
    folds = perm.chunk(5)
    rec("nfolds", str([len(f) for f in folds]))
    ts = lib.tensor_split(perm, 5)
    rec("ts.sizes", str([len(f) for f in ts]))
    rec("ts.idx", lib.tensor_split(perm, lib.tensor([3, 10])))
    for k in (0, 4):
        test = ts[k]
        mask = lib.ones(n, dtype=lib.bool)
        mask[test] = False
        rec(f"train{k}", lib.arange(n)[mask])
    labels = lib.randint(0, 3, (n,))
    rec("labels", labels)
    order = lib.argsort(labels, stable=True)
    rec("order", order)
    counts = lib.bincount(labels, minlength=3)
    rec("counts", counts)
    starts = lib.cumsum(counts, 0) - counts
    rec("starts", starts)
    strata = lib.split(order, counts.tolist())
    rec("strata0", strata[0])
    take = [s[lib.randperm(len(s))[: max(1, len(s) // 3)]] for s in strata]
    rec("strat.test", lib.cat(take))
    w = lib.tensor([0.1, 0.0, 0.5, 0.2, 0.2], dtype=dt)
    rec("mn.repl", lib.multinomial(w, 12, replacement=True))
    rec("mn.norepl", lib.multinomial(w, 4))
    rec("mn.2d", lib.multinomial(w.expand(3, 5) + 0.01, 2))
    g = lib.Generator().manual_seed(3)
    rec("mn.gen", lib.multinomial(w, 6, True, generator=g))
    rec.err("mn.toomany", lambda: lib.multinomial(w, 5))
    rec.err("mn.neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("mn.zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("mn.nan", lambda: lib.multinomial(lib.tensor([0.5, float("nan")], dtype=dt), 1))
    rec.err("mn.inf", lambda: lib.multinomial(lib.tensor([0.5, float("inf")], dtype=dt), 1))
    rec.err("mn.0", lambda: lib.multinomial(w, 0))
    rec.err("mn.3d", lambda: lib.multinomial(w.view(1, 1, 5), 1))
    rec.err("mn.int", lambda: lib.multinomial(lib.tensor([1, 2]), 1))
    rec("mn.sum", lib.multinomial(lib.tensor([3.0, 1.0, 0.0], dtype=dt), 2))
    rec("bern", lib.bernoulli(lib.full((8,), 0.3, dtype=dt)))
    rec("poisson", lib.poisson(lib.full((6,), 2.5, dtype=dt)))
    rec("normal", lib.normal(lib.zeros(3, dtype=dt), lib.arange(1, 4, dtype=dt)))
    rec("normal.ff", lib.normal(2.0, 3.0, (4,), dtype=dt))


# --- estimation ---


def p_lstsq(lib, dt, rec):
    """OLS via linalg.lstsq with each CPU driver on full-rank and rank-deficient designs: the
    solution, residuals, rank and singular_values fields as torch fills them; batched; errors."""
    lib.manual_seed(8)
    X = lib.cat([lib.ones(12, 1, dtype=dt), lib.randn(12, 2, dtype=dt)], 1)
    beta = lib.tensor([[1.0], [2.0], [-0.5]], dtype=dt)
    y = X @ beta + 0.1 * lib.randn(12, 1, dtype=dt)
    Xd = lib.cat([X, X[:, 1:2] * 2], 1)  # rank 3 of 4 columns
    for drv in (None, "gels", "gelsy", "gelsd", "gelss"):
        for nm, A in (("full", X), ("def", Xd)):
            if drv == "gels" and nm == "def":
                continue
            r = lib.linalg.lstsq(A, y, driver=drv)
            key = f"{drv}.{nm}"
            rec(key + ".sol", r.solution if nm == "full" else A @ r.solution)
            rec(key + ".res", r.residuals)
            rec(key + ".rank", r.rank)
            rec(key + ".sv", r.singular_values)
            rec(key + ".type", type(r).__name__)
    r = lib.linalg.lstsq(X, y.squeeze(1).unsqueeze(1).expand(12, 2).contiguous(), rcond=None)
    rec("multi.sol", r.solution)
    rec("multi.res", r.residuals)
    Xb = lib.randn(2, 6, 3, dtype=dt)
    yb = lib.randn(2, 6, 1, dtype=dt)
    r = lib.linalg.lstsq(Xb, yb, driver="gelsd")
    rec("batch.sol", r.solution)
    rec("batch.res", r.residuals)
    rec("batch.rank", r.rank)
    r = lib.linalg.lstsq(X[:2], y[:2])  # underdetermined: no residuals
    rec("under.sol", r.solution)
    rec("under.res", r.residuals)
    r = lib.linalg.lstsq(Xd, y, driver="gelsd", rcond=1e-1)
    rec("rcond.rank", r.rank)
    rec.err("drv.bad", lambda: lib.linalg.lstsq(X, y, driver="gelsx"))
    rec.err("shape.bad", lambda: lib.linalg.lstsq(X, y[:5]))
    rec.err("vec.b", lambda: lib.linalg.lstsq(X, y.squeeze(1)))
    rec.err("int", lambda: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.int64), lib.ones(3, 1)))
    # normal equations and a QR solve agree with lstsq
    XtX = X.T @ X
    rec("ne", lib.linalg.solve(XtX, X.T @ y))
    Q, R = lib.linalg.qr(X)
    rec("qr", lib.linalg.solve_triangular(R, Q.T @ y, upper=True))
    rec("pinv", lib.linalg.pinv(Xd) @ y)
    resid = y - X @ lib.linalg.lstsq(X, y).solution
    s2 = (resid**2).sum() / (12 - 3)
    rec("se", (s2 * lib.linalg.inv(XtX).diagonal()).sqrt())
    rec("r2", 1 - (resid**2).sum() / ((y - y.mean()) ** 2).sum())


def p_ridge_glm(lib, dt, rec):
    """Ridge by cholesky/cholesky_solve over a lambda path, logistic regression by Newton with
    linalg.solve and by LBFGS, Poisson GLM by IRLS."""
    lib.manual_seed(9)
    n, d = 40, 3
    X = lib.randn(n, d, dtype=dt)
    y = X @ lib.tensor([0.5, -1.0, 2.0], dtype=dt) + 0.3 * lib.randn(n, dtype=dt)
    for lam in (0.0, 1.0, 10.0):
        A = X.T @ X + lam * lib.eye(d, dtype=dt)
        L = lib.linalg.cholesky(A)
        rec(f"ridge{lam}", lib.cholesky_solve((X.T @ y).unsqueeze(1), L).squeeze(1))
        rec(f"ridge{lam}.ex", lib.linalg.cholesky_ex(A).info)
    U = lib.linalg.cholesky(X.T @ X, upper=True)
    rec("ridge.upper", lib.cholesky_solve((X.T @ y).unsqueeze(1), U, upper=True))
    rec("chol.inv", lib.cholesky_inverse(U, upper=True))
    rec.err("chol.bad", lambda: lib.linalg.cholesky(-lib.eye(2, dtype=dt)))
    rec("chol.ex.bad", lib.linalg.cholesky_ex(-lib.eye(2, dtype=dt)).info)
    # logistic regression, Newton-Raphson
    Xl = lib.cat([lib.ones(n, 1, dtype=dt), X], 1)
    p_true = lib.sigmoid(Xl @ lib.tensor([-0.3, 1.0, -1.0, 0.5], dtype=dt))
    yl = lib.bernoulli(p_true)
    w = lib.zeros(4, dtype=dt)
    for it in range(6):
        p = lib.sigmoid(Xl @ w)
        g = Xl.T @ (yl - p)
        H = Xl.T @ (Xl * (p * (1 - p)).unsqueeze(1))
        w = w + lib.linalg.solve(H, g)
        rec(f"newton{it}", w)
    rec(
        "ll",
        (
            yl * lib.nn.functional.logsigmoid(Xl @ w)
            + (1 - yl) * lib.nn.functional.logsigmoid(-(Xl @ w))
        ).sum(),
    )
    rec("bce", lib.nn.functional.binary_cross_entropy_with_logits(Xl @ w, yl, reduction="sum"))
    cov = lib.linalg.inv(H)
    rec("wald.z", w / cov.diagonal().sqrt())
    # the same by LBFGS
    wl = lib.zeros(4, dtype=dt, requires_grad=True)
    opt = lib.optim.LBFGS([wl], lr=1, max_iter=30, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = lib.nn.functional.binary_cross_entropy_with_logits(Xl @ wl, yl, reduction="sum")
        loss.backward()
        return loss

    rec("lbfgs.loss", opt.step(closure))
    rec("lbfgs.w", wl)
    rec("lbfgs.n_iter", str(opt.state[wl]["n_iter"]))
    # Poisson GLM by IRLS
    lam_true = lib.exp(Xl @ lib.tensor([0.5, 0.3, -0.2, 0.1], dtype=dt))
    yc = lib.poisson(lam_true)
    rec("yc", yc)
    b = lib.zeros(4, dtype=dt)
    b[0] = yc.mean().log()
    for it in range(5):
        eta = Xl @ b
        mu = eta.exp()
        z = eta + (yc - mu) / mu
        W = mu
        A = Xl.T @ (Xl * W.unsqueeze(1))
        b = lib.linalg.solve(A, Xl.T @ (W * z))
        rec(f"irls{it}", b)
    dev = 2 * (lib.xlogy(yc, yc / mu) - (yc - mu)).sum()
    rec("deviance", dev)
    rec("poisson_nll", lib.nn.functional.poisson_nll_loss(Xl @ b, yc, reduction="sum", full=True))


def p_dist_mle(lib, dt, rec):
    """MLE of Gamma/Beta/StudentT by gradient steps on log_prob, method of moments, entropy, cdf
    and icdf where defined and the NotImplementedError texts where not."""
    D = lib.distributions
    lib.manual_seed(12)
    data = D.Gamma(lib.tensor(2.5, dtype=dt), lib.tensor(1.5, dtype=dt)).sample((60,))
    rec("gamma.data", data[:6])
    m, v = data.mean(), data.var(correction=0)
    rec("mom.gamma", lib.stack([m * m / v, m / v]))
    la = lib.zeros((), dtype=dt, requires_grad=True)
    lb = lib.zeros((), dtype=dt, requires_grad=True)
    opt = lib.optim.Adam([la, lb], lr=0.1)
    for _ in range(20):
        opt.zero_grad()
        nll = -D.Gamma(la.exp(), lb.exp()).log_prob(data).mean()
        nll.backward()
        opt.step()
    rec("gamma.nll", nll)
    rec("gamma.par", lib.stack([la, lb]).exp())
    rec("gamma.grad", lib.stack([la.grad, lb.grad]))
    b = D.Beta(lib.tensor([2.0, 0.5], dtype=dt), lib.tensor([3.0, 0.5], dtype=dt))
    xs = b.sample((40,))
    rec("beta.lp", b.log_prob(xs).sum(0))
    rec("beta.ent", b.entropy())
    rec("beta.mean", b.mean)
    rec("beta.var", b.variance)
    mb, vb = xs.mean(0), xs.var(0)
    common = mb * (1 - mb) / vb - 1
    rec("mom.beta", lib.stack([mb * common, (1 - mb) * common]))
    t = D.StudentT(
        lib.tensor([1.0, 3.0, 30.0], dtype=dt), lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt)
    )
    rec("t.lp", t.log_prob(lib.tensor([0.5, -1.0, 2.0], dtype=dt)))
    rec("t.ent", t.entropy())
    rec("t.var", t.variance)
    rec("t.mean", t.mean)
    rec("t.sample", t.sample((2,)))
    for nm, dist, val in (
        ("t", t, lib.zeros(3, dtype=dt)),
        ("gamma", D.Gamma(lib.tensor(2.0, dtype=dt), 1.0), lib.tensor(1.0, dtype=dt)),
        ("beta", b, lib.tensor([0.3, 0.3], dtype=dt)),
    ):
        rec.err(f"{nm}.cdf", lambda d=dist, v=val: d.cdf(v))
        rec.err(f"{nm}.icdf", lambda d=dist, v=val: d.icdf(v))
    g = D.Gamma(lib.tensor(2.0, dtype=dt), lib.tensor(1.0, dtype=dt))
    rec("gamma.cdf", g.cdf(lib.tensor([0.5, 1.0, 3.0], dtype=dt)))
    rec("gamma.ent", g.entropy())
    n = D.Normal(lib.tensor(1.0, dtype=dt), lib.tensor(2.0, dtype=dt))
    rec("normal.icdf", n.icdf(lib.tensor([0.025, 0.5, 0.975], dtype=dt)))
    rec("normal.cdf", n.cdf(lib.tensor([-1.0, 1.0, 5.0], dtype=dt)))
    ln = D.LogNormal(lib.tensor(0.0, dtype=dt), lib.tensor(0.5, dtype=dt))
    rec("lognormal.icdf", ln.icdf(lib.tensor([0.1, 0.9], dtype=dt)))
    rec("lognormal.cdf", ln.cdf(lib.tensor([0.5, 2.0], dtype=dt)))
    rec.err("gamma.lp.neg", lambda: g.log_prob(lib.tensor(-1.0, dtype=dt)))
    rec.err("beta.bad", lambda: D.Beta(lib.tensor(-1.0, dtype=dt), lib.tensor(1.0, dtype=dt)))
    e = D.Exponential(lib.tensor(2.0, dtype=dt))
    rec("exp.icdf", e.icdf(lib.tensor([0.1, 0.5], dtype=dt)))
    rec("exp.mle", 1 / e.sample((50,)).mean())
    c = D.Chi2(lib.tensor(3.0, dtype=dt))
    rec("chi2.lp", c.log_prob(lib.tensor([0.5, 2.0], dtype=dt)))
    rec("chi2.cdf", c.cdf(lib.tensor([0.5, 2.0], dtype=dt)))


def p_special(lib, dt, rec):
    """QQ plot quantiles and the special functions statisticians reach for: ndtri, ndtr,
    log_ndtr, erfinv, erfcx, i0/i0e/i1/i1e, gammaln, digamma/polygamma, xlogy/xlog1py, entr,
    logit with eps, gammainc, multigammaln, betaln through lgamma."""
    sp = lib.special
    lib.manual_seed(13)
    x = lib.randn(15, dtype=dt).sort().values
    n = x.numel()
    pp = (lib.arange(1, n + 1, dtype=dt) - 0.5) / n
    rec("pp", pp)
    rec("ndtri", sp.ndtri(pp))
    rec("erfinv", 2**0.5 * lib.erfinv(2 * pp - 1))
    rec("ndtri.edge", sp.ndtri(lib.tensor([0.0, 1.0, -0.1, 1e-300, 0.5], dtype=dt)))
    z = lib.tensor([-40.0, -10.0, -1.0, 0.0, 1.5, 10.0, 40.0], dtype=dt)
    rec("ndtr", sp.ndtr(z))
    rec("log_ndtr", sp.log_ndtr(z))
    rec("erfc", lib.erfc(z))
    rec("erfcx", sp.erfcx(z))
    rec("erfinv.edge", lib.erfinv(lib.tensor([-1.0, 1.0, 1.5, 0.0], dtype=dt)))
    a = lib.tensor([0.0, 0.5, 1.0, 5.0, 50.0, 700.0], dtype=dt)
    for f in ("i0", "i0e", "i1", "i1e"):
        rec(f, getattr(sp, f)(a))
        rec(f + ".neg", getattr(sp, f)(-a))
    rec("torch.i0", lib.i0(a[:4]))
    g = lib.tensor([0.5, 1.0, 2.5, 10.0, 171.5, 0.0, -1.0, -1.5], dtype=dt)
    rec("gammaln", sp.gammaln(g))
    rec("lgamma", lib.lgamma(g))
    rec("digamma", sp.digamma(g))
    rec("psi", sp.psi(g[:5]))
    rec("polygamma1", sp.polygamma(1, g[3:5]))  # torch's trigamma is ~3e-10 off below
    rec("polygamma2", lib.polygamma(2, g[:5]))
    rec("multigammaln", sp.multigammaln(g[2:5], 2))
    rec.err("multigammaln.bad", lambda: sp.multigammaln(g, 2))
    rec(
        "gammainc",
        sp.gammainc(lib.tensor([0.5, 2.0, 5.0], dtype=dt), lib.tensor([1.0, 2.0, 0.5], dtype=dt)),
    )
    rec(
        "gammaincc",
        sp.gammaincc(lib.tensor([0.5, 2.0, 5.0], dtype=dt), lib.tensor([1.0, 2.0, 0.5], dtype=dt)),
    )
    u = lib.tensor([0.0, 0.0, 1.0, 2.0, float("nan")], dtype=dt)
    v = lib.tensor([0.0, float("nan"), 0.0, 3.0, 0.0], dtype=dt)
    rec("xlogy", sp.xlogy(u, v))
    rec("xlogy.s", lib.xlogy(2.0, v[2:4]))
    rec("xlogy.t", lib.xlogy(u, 3.0))
    rec("xlog1py", sp.xlog1py(u, v - 1))
    rec("entr", sp.entr(lib.tensor([-1.0, 0.0, 0.5, 1.0, float("inf")], dtype=dt)))
    p = lib.tensor([0.0, 1e-8, 0.3, 1.0], dtype=dt)
    rec("logit", lib.logit(p))
    rec("logit.eps", lib.logit(p, eps=1e-6))
    rec("logit.sp", sp.logit(p, 0.01))
    rec("expit", sp.expit(lib.tensor([-800.0, 0.0, 800.0], dtype=dt)))
    rec("log1p", sp.log1p(lib.tensor([1e-20, -1.0], dtype=dt)))
    rec("betaln", lib.lgamma(g[:3]) + lib.lgamma(g[1:4]) - lib.lgamma(g[:3] + g[1:4]))
    rec("sinc", sp.sinc(lib.tensor([0.0, 0.5, 1.0], dtype=dt)))
    rec(
        "logsumexp",
        sp.logsumexp(lib.tensor([[-float("inf"), -float("inf")], [1.0, 2.0]], dtype=dt), 1),
    )
    rec("bessel_j0", sp.bessel_j0(a[:3]))  # torch's J0/J1 lose 1e-8 past 5
    rec("bessel_j1", sp.bessel_j1(a[:3]))
    rec("zeta", sp.zeta(lib.tensor([2.0, 3.0], dtype=dt), 1.0))
    rec("round", sp.round(lib.tensor([0.5, 1.5, 2.5], dtype=dt)))
    rec("softmax", sp.softmax(lib.tensor([1.0, 2.0, 3.0], dtype=dt), 0))
    rec("int.ndtr", sp.ndtr(lib.tensor([0, 1])))
    rec("int.i0", sp.i0(lib.tensor([0, 1])))
    rec("int.gammaln", sp.gammaln(lib.tensor([3, 4])))
    rec("int.entr", sp.entr(lib.tensor([0, 1, 2])))
    rec("int.xlogy", sp.xlogy(lib.tensor([0, 2]), lib.tensor([0, 3])))


def p_kde_ecdf(lib, dt, rec):
    """Gaussian KDE with logsumexp and Silverman's bandwidth, the empirical CDF by searchsorted,
    the KS statistic, QQ correlation, and Benjamini-Hochberg / Holm corrections (sort, cummin
    from the end with flip, scatter back)."""
    lib.manual_seed(14)
    x = lib.cat([lib.randn(40, dtype=dt), 3 + 0.5 * lib.randn(20, dtype=dt)])
    n = x.numel()
    iqr = x.quantile(0.75) - x.quantile(0.25)
    h = 0.9 * lib.minimum(x.std(), iqr / 1.34) * n ** (-0.2)
    rec("h", h)
    grid = lib.linspace(-3, 5, 9, dtype=dt)
    z = (grid.unsqueeze(1) - x.unsqueeze(0)) / h
    logk = -0.5 * z**2 - 0.5 * lib.log(lib.tensor(2 * lib.pi, dtype=dt))
    logdens = lib.logsumexp(logk, dim=1) - lib.log(h * n)
    rec("kde", logdens.exp())
    rec("kde.lse.keep", lib.logsumexp(logk, 1, keepdim=True)[:3])
    xs, _ = lib.sort(x)
    ecdf = lib.searchsorted(xs, grid, right=True).to(dt) / n
    rec("ecdf", ecdf)
    D = lib.distributions
    cdf = D.Normal(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt)).cdf(xs)
    i = lib.arange(1, n + 1, dtype=dt)
    ks = lib.maximum((i / n - cdf).max(), (cdf - (i - 1) / n).max())
    rec("ks", ks)
    theo = lib.special.ndtri((i - 0.375) / (n + 0.25))
    rec("qq.r", lib.corrcoef(lib.stack([xs, theo]))[0, 1])
    # multiple testing
    pv = lib.tensor([0.01, 0.04, 0.03, 0.5, 0.001, 0.04, 0.2, 0.03], dtype=dt)
    m = pv.numel()
    sp, order = lib.sort(pv, stable=True)
    rec("order", order)
    ranks = lib.arange(1, m + 1, dtype=dt)
    bh = (sp * m / ranks).flip(0).cummin(0).values.flip(0).clamp(max=1)
    out = lib.empty_like(bh).scatter_(0, order, bh)
    rec("bh", out)
    holm = ((m - ranks + 1) * sp).cummax(0).values.clamp(max=1)
    rec("holm", lib.zeros_like(holm).index_put_((order,), holm))
    rec("bonf", (pv * m).clamp_max(1.0))
    rec("reject", out <= 0.05)
    rec("cummin.idx", (sp * m / ranks).flip(0).cummin(0).indices)
    inv = lib.empty_like(order)
    inv[order] = lib.arange(m)
    rec("inv", inv)
    rec("rank.avg", _average_ranks(lib, pv))


def _average_ranks(lib, x):
    """Average ranks of ties, scipy.stats.rankdata style, by unique/inverse/counts."""
    u, inv, cnt = lib.unique(x, return_inverse=True, return_counts=True)
    ends = cnt.cumsum(0)
    avg = ends - (cnt - 1) / 2
    return avg[inv]


def p_rolling(lib, dt, rec):
    """Rolling means/stds by unfold and by cumsum differences, EWMA by a loop and by matrix
    powers, autocorrelation by sums, lag features with roll and pad, and an additive seasonal
    decomposition by reshaping."""
    lib.manual_seed(15)
    t = lib.arange(48, dtype=dt)
    s = 0.1 * t + lib.sin(2 * lib.pi * t / 12) + 0.2 * lib.randn(48, dtype=dt)
    w = 5
    win = s.unfold(0, w, 1)
    rec("win.shape", str(tuple(win.shape)))
    rec("roll.mean", win.mean(1))
    rec("roll.std", win.std(1))
    rec("roll.max", win.max(1).values)
    rec("roll.max.i", win.max(1).indices)
    cs = lib.cat([lib.zeros(1, dtype=dt), s.cumsum(0)])
    rec("roll.cs", (cs[w:] - cs[:-w]) / w)
    rec("roll.step", s.unfold(0, 4, 3).mean(1))
    rec("avgpool", lib.nn.functional.avg_pool1d(s.view(1, 1, -1), w, 1).flatten())
    rec(
        "conv",
        lib.nn.functional.conv1d(s.view(1, 1, -1), lib.full((1, 1, w), 1 / w, dtype=dt)).flatten(),
    )
    alpha = 0.3
    e = [s[0]]
    for v in s[1:]:
        e.append(alpha * v + (1 - alpha) * e[-1])
    ewma = lib.stack(e)
    rec("ewma", ewma)
    n = 48
    powers = (1 - alpha) ** (lib.arange(n, dtype=dt).unsqueeze(1) - lib.arange(n, dtype=dt))
    Wm = lib.tril(powers) * alpha
    Wm[:, 0] = (1 - alpha) ** lib.arange(n, dtype=dt)
    rec("ewma.mat", Wm @ s)
    A = lib.tensor([[1 - alpha]], dtype=dt)
    rec("matpow", lib.linalg.matrix_power(A, 5))
    rec("matpow.neg", lib.linalg.matrix_power(lib.tensor([[2.0, 1.0], [1.0, 1.0]], dtype=dt), -2))
    rec("matpow.0", lib.linalg.matrix_power(lib.ones(2, 2, 2, dtype=dt), 0))
    sc = s - s.mean()
    denom = (sc * sc).sum()
    acf = lib.stack([(sc[k:] * sc[: n - k]).sum() / denom for k in range(6)])
    rec("acf", acf)
    rec("lag1", lib.roll(s, 1)[:4])
    rec("lag2d", lib.roll(s.view(4, 12), shifts=(1, -2), dims=(0, 1))[0])
    F = lib.nn.functional
    lagged = F.pad(s, (2, 0), value=float("nan"))[:-2]
    rec("lag.pad", lagged[:4])
    rec("lag.rep", F.pad(s.view(1, 1, -1), (2, 0), mode="replicate")[0, 0, :4])
    rec("lag.refl", F.pad(s.view(1, -1), (3, 3), mode="reflect")[0, :8])
    rec("lag.circ", F.pad(s.view(1, 1, -1), (1, 1), mode="circular")[0, 0, :3])
    X = lib.stack([lib.roll(s, k) for k in (1, 2, 3)], 1)[3:]
    ar = lib.linalg.lstsq(X, s[3:].unsqueeze(1)).solution
    rec("ar3", ar)
    trend = F.avg_pool1d(F.pad(s.view(1, 1, -1), (6, 5), mode="replicate"), 12, 1).flatten()
    rec("trend", trend)
    detr = (s - trend).view(4, 12)
    seas = detr.mean(0)
    seas = seas - seas.mean()
    rec("seasonal", seas)
    rec("resid", (s.view(4, 12) - trend.view(4, 12) - seas).std(1))
    rec("diff.seas", lib.diff(s, n=1)[:12].view(3, 4).nanmean(1))
    rec("pct", (s[1:] / s[:-1] - 1)[:4])
    rec("zscore", ((s - s.mean()) / s.std())[:5])
    rec("clip", lib.clamp(s, s.quantile(0.05), s.quantile(0.95))[:6])


PROGRAMS = [
    "moments", "quantiles", "cumulative", "histograms", "unique_cov", "bootstrap", "splits",
    "lstsq", "ridge_glm", "dist_mle", "special",
    "kde_ecdf", "rolling",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    rec_w = Rec(dtypes=True, first_line=True)
    rec_g = Rec(dtypes=True, first_line=True)
    want = run_program(prog, torch, dt, rec=rec_w, keep_warnings=_user_warning)
    got = run_program(prog, minitorch, dt, rec=rec_g, keep_warnings=_user_warning)
    assert_records_match(want, got, _tol, rename=True)


def _tol(name, value):
    """float64 to 1e-10 of the scale, float32 (also a float32 result of a float64 program) to
    1e-4 (torch's float32 matmul accumulates in float32)."""
    return 1e-10 if value.dtype == "float64" else 1e-4
