"""Differential fuzzer: matmul family, einsum and torch.linalg.

Parts: linalg (torch.linalg.* factorizations, solvers, norms, matrix functions, on SPD/singular/
batched/empty inputs), matmul (mm/bmm/matmul/addmm/addmv/addbmm/baddbmm/addr/dot/vdot/inner/outer/
kron/tensordot/cross/vecdot, mixed dtypes, NaN inputs with beta=0), einsum (random equations,
sublist form, broadcasting with ...). Values, dtypes, errors, first and second gradients (float64).
Adapted from session 22's h4 fuzzers (fz_linalg.py, fz_matmul.py, fz_einsum.py, harness.py).
"""

# ruff: noqa: B008, E501, E741  (code adapted as-is from the session fuzzers)

import collections

import _harness as H
import numpy as np

# ---- torch.linalg (was fz_linalg.py)


def spd(rs, b, n):
    a = rs.randn(*b, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def wc(rs, b, n, m=None):
    m = n if m is None else m
    a = rs.randn(*b, n, m)
    if n == m:
        a = a + 2 * np.eye(n) * np.sign(rs.randn())
    return a


def sym(rs, b, n):
    a = rs.randn(*b, n, n)
    return a + np.swapaxes(a, -1, -2)


def sing(rs, b, n):
    a = rs.randn(*b, n, n)
    if n:
        a[..., -1, :] = a[..., 0, :] if n > 1 else 0
    return a


def gen_linalg(rs, only=None):
    b = [(), (2,), (0,), (2, 1), (1, 3)][rs.randint(5)] if rs.rand() < 0.6 else ()
    n = [0, 1, 2, 3, 4][rs.randint(5)] if rs.rand() < 0.9 else 0
    m = rs.randint(0, 5)
    singular = rs.rand() < 0.15
    A = sing(rs, b, n) if singular else wc(rs, b, n)
    bad_shape = rs.rand() < 0.08
    ops = {
        "det": lambda: (lambda L, a: L.linalg.det(a), [A]),
        "tdet": lambda: (lambda L, a: L.det(a), [A]),
        "slogdet": lambda: (lambda L, a: L.linalg.slogdet(a), [A]),
        "logdet": lambda: (lambda L, a: L.logdet(a), [spd(rs, b, n) if rs.rand() < 0.7 else A]),
        "inv": lambda: (
            lambda L, a: L.linalg.inv(a),
            [A if not bad_shape else wc(rs, b, n, n + 1)],
        ),
        "inv_ex": lambda: (lambda L, a: L.linalg.inv_ex(a), [A]),
        "solve": lambda: (
            lambda L, a, y, left=bool(rs.rand() < 0.7): L.linalg.solve(a, y, left=left),
            [
                A,
                rs.randn(*((b if rs.rand() < 0.7 else ()) + ((n, m) if rs.rand() < 0.7 else (n,)))),
            ],
        ),
        "solve_ex": lambda: (lambda L, a, y: L.linalg.solve_ex(a, y), [A, rs.randn(*b, n, m)]),
        "solve_triangular": lambda: (
            lambda L, a, y, up=bool(rs.rand() < 0.5), left=bool(rs.rand() < 0.6), ud=bool(rs.rand() < 0.3): (
                L.linalg.solve_triangular(a, y, upper=up, left=left, unitriangular=ud)
            ),
            [A, rs.randn(*b, n, n)],
        ),
        "cholesky": lambda: (
            lambda L, a, up=bool(rs.rand() < 0.5): L.linalg.cholesky(a, upper=up),
            [spd(rs, b, n) if rs.rand() < 0.8 else sym(rs, b, n)],
        ),
        "cholesky_ex": lambda: (
            lambda L, a: L.linalg.cholesky_ex(a),
            [spd(rs, b, n) if rs.rand() < 0.6 else sym(rs, b, n)],
        ),
        "tcholesky": lambda: (
            lambda L, a, up=bool(rs.rand() < 0.5): L.cholesky(a, upper=up),
            [spd(rs, b, n)],
        ),
        "cholesky_solve": lambda: (
            lambda L, y, a, up=bool(rs.rand() < 0.5): L.cholesky_solve(
                y, L.linalg.cholesky(a, upper=up), upper=up
            ),
            [rs.randn(*b, n, m), spd(rs, b, n)],
        ),
        "cholesky_inverse": lambda: (
            lambda L, a: L.cholesky_inverse(L.linalg.cholesky(a)),
            [spd(rs, b, n)],
        ),
        "qr": lambda: (
            lambda L, a, mode=["reduced", "complete", "r"][rs.randint(3)]: (
                L.linalg.qr(a, mode=mode)[1].abs()
                if mode != "r"
                else L.linalg.qr(a, mode=mode)[1].abs()
            ),
            [rs.randn(*b, n, m)],
        ),
        "qr_q": lambda: (
            lambda L, a, mode=["reduced", "complete"][rs.randint(2)]: (
                lambda q, r: (q @ r, q.abs(), r.shape)
            )(*L.linalg.qr(a, mode=mode)),
            [rs.randn(*b, n, m)],
        ),
        "svd_recon": lambda: (
            lambda L, a, fm=bool(rs.rand() < 0.5): (
                lambda u, s, vh: (
                    s,
                    u.abs() if not fm else u.shape,
                    vh.abs() if not fm else vh.shape,
                    (u[..., : s.shape[-1]] * s.unsqueeze(-2)) @ vh[..., : s.shape[-1], :],
                )
            )(*L.linalg.svd(a, full_matrices=fm)),
            [rs.randn(*b, n, m)],
        ),
        "svdvals": lambda: (lambda L, a: L.linalg.svdvals(a), [rs.randn(*b, n, m)]),
        "tsvd": lambda: (
            lambda L, a: (lambda u, s, v: (s, (u * s.unsqueeze(-2)) @ v.mT))(*L.svd(a)),
            [rs.randn(*b, n, m)],
        ),
        "eigh": lambda: (
            lambda L, a, uplo=["L", "U"][rs.randint(2)]: (
                lambda w, v: (w, (v * w.unsqueeze(-2)) @ v.mT, v.abs())
            )(*L.linalg.eigh(a, UPLO=uplo)),
            [sym(rs, b, n) if rs.rand() < 0.7 else rs.randn(*b, n, n)],
        ),
        "eigvalsh": lambda: (
            lambda L, a, uplo=["L", "U"][rs.randint(2)]: L.linalg.eigvalsh(a, UPLO=uplo),
            [sym(rs, b, n) if rs.rand() < 0.7 else rs.randn(*b, n, n)],
        ),
        "eigvals_real": lambda: (lambda L, a: L.linalg.eigvals(a), [sym(rs, b, n)]),
        "lstsq": lambda: (
            lambda L, a, y: L.linalg.lstsq(a, y).solution,
            [
                rs.randn(*b, n + 1, n) if n else rs.randn(*b, 0, 0),
                rs.randn(*b, n + 1 if n else 0, m),
            ],
        ),
        "lstsq_full": lambda: (
            lambda L, a, y, dr=[None, "gelsy", "gelsd", "gelss", "gels"][rs.randint(5)]: (
                L.linalg.lstsq(a, y, driver=dr)
            ),
            [rs.randn(*b, n + 1, n), rs.randn(*b, n + 1, max(m, 1))],
        ),
        "pinv": lambda: (lambda L, a: L.linalg.pinv(a), [rs.randn(*b, n, m)]),
        "pinv_h": lambda: (lambda L, a: L.linalg.pinv(a, hermitian=True), [sym(rs, b, n)]),
        "pinv_tol": lambda: (
            lambda L, a, r=float(rs.choice([0.1, 0.5])), at=float(rs.choice([0.0, 1.0])): (
                L.linalg.pinv(a, rtol=r, atol=at)
            ),
            [rs.randn(*b, n, m)],
        ),
        "matrix_rank": lambda: (
            lambda L, a, h=bool(rs.rand() < 0.3), at=[None, 0.5, 1.5][rs.randint(3)]: (
                L.linalg.matrix_rank(a, hermitian=h, atol=at)
            ),
            [sing(rs, b, n) if rs.rand() < 0.5 else sym(rs, b, n)],
        ),
        "matrix_norm": lambda: (
            lambda L, a, o=["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")][rs.randint(8)], k=bool(rs.rand() < 0.3): (
                L.linalg.matrix_norm(a, ord=o, keepdim=k)
            ),
            [rs.randn(*b, n, m)],
        ),
        "vector_norm": lambda: (
            lambda L, a, o=[2, 1, 0, 3, 0.5, float("inf"), -float("inf"), -1][rs.randint(8)], d=[None, -1, (0, -1)][rs.randint(3)]: (
                L.linalg.vector_norm(a, ord=o, dim=d)
            ),
            [rs.randn(*b, n, m)],
        ),
        "lnorm": lambda: (
            lambda L, a, o=[None, "fro", "nuc", 2, 1, float("inf")][rs.randint(6)], d=[None, (-2, -1), -1][rs.randint(3)]: (
                L.linalg.norm(a, ord=o, dim=d)
            ),
            [rs.randn(*b, n, m)],
        ),
        "cond": lambda: (
            lambda L, a, p=[None, "fro", "nuc", 1, -1, 2, -2, float("inf")][rs.randint(8)]: (
                L.linalg.cond(a, p=p)
            ),
            [A],
        ),
        "matrix_power": lambda: (
            lambda L, a, k=int(rs.randint(-3, 4)): L.linalg.matrix_power(a, k),
            [A],
        ),
        "matrix_exp": lambda: (
            lambda L, a: L.linalg.matrix_exp(a),
            [rs.randn(*b, n, n) * [0.1, 1, 3][rs.randint(3)]],
        ),
        "lu": lambda: (
            lambda L, a, pv=True: (lambda p, l, u: (p @ l @ u, l, u, p))(*L.linalg.lu(a, pivot=pv)),
            [rs.randn(*b, n, m)],
        ),
        "lu_factor": lambda: (lambda L, a: L.linalg.lu_factor(a), [A]),
        "lu_factor_ex": lambda: (lambda L, a: L.linalg.lu_factor_ex(a), [A]),
        "lu_solve": lambda: (
            lambda L, a, y, left=bool(rs.rand() < 0.6), adj=bool(rs.rand() < 0.4): (
                L.linalg.lu_solve(*L.linalg.lu_factor(a), y, left=left, adjoint=adj)
            ),
            [A, rs.randn(*b, n, n)],
        ),
        "tensorinv": lambda: (
            lambda L, a: L.linalg.tensorinv(a.reshape(2, 2, 4), ind=2),
            [wc(rs, (), 4)],
        ),
        "tensorsolve": lambda: (
            lambda L, a, y: L.linalg.tensorsolve(a.reshape(2, 3, 6), y),
            [wc(rs, (), 6), rs.randn(2, 3)],
        ),
        "vander": lambda: (
            lambda L, x, N=[None, 2, 4][rs.randint(3)]: L.linalg.vander(x, N=N),
            [rs.randn(*b, n)],
        ),
        "householder": lambda: (
            lambda L, a, t: L.linalg.householder_product(a, t),
            [rs.randn(*b, max(n, 1) + 1, max(n, 1)), rs.randn(*b, rs.randint(0, max(n, 1) + 1))],
        ),
        "ldiagonal": lambda: (
            lambda L, a, o=int(rs.randint(-2, 3)): L.linalg.diagonal(a, offset=o),
            [rs.randn(*b, n, m)],
        ),
        "diag_embed": lambda: (
            lambda L, a, o=int(rs.randint(-2, 3)), d1=int(rs.randint(-2, 1)): L.diag_embed(
                a, offset=o, dim1=d1, dim2=-1 if d1 != -1 else 0
            ),
            [rs.randn(*b, n)],
        ),
        "eig_recon": lambda: (
            lambda L, a: L.linalg.eig(a)[0].real if hasattr(L.linalg.eig(a)[0], "real") else None,
            [sym(rs, b, n)],
        ),
        "ldl": lambda: (
            lambda L, a: L.linalg.ldl_solve(
                *L.linalg.ldl_factor(a), L.ones(a.shape[:-1] + (1,), dtype=a.dtype)
            ),
            [sym(rs, b, n) + 5 * np.eye(n)],
        ),
        "multi_dot_big": lambda: (
            lambda L, a, c, d: L.linalg.multi_dot([a, c, d]),
            [rs.randn(n + 1, m + 1), rs.randn(m + 1, 2), rs.randn(2, 3)],
        ),
    }
    names = only or sorted(ops)
    name = names[rs.randint(len(names))]
    fn, arrays = ops[name]()
    return name, fn, arrays


def part_linalg(N, seed0, only=None):
    stats = collections.Counter()
    bad = collections.defaultdict(list)
    for i in range(N):
        rs = np.random.RandomState(seed0 * 100000 + i)
        name, fn, arrays = gen_linalg(rs, only)
        dt = "float64" if rs.rand() < 0.8 else ["float32", "int64"][rs.randint(2)]
        dts = [dt] * len(arrays)
        if rs.rand() < 0.05 and len(arrays) > 1:
            dts[1] = "float32"
        try:
            r = H.run_case(
                name,
                fn,
                arrays,
                dts,
                seed=i,
                rtol=1e-4 if "float32" in dts else 1e-7,
                atol=1e-4 if "float32" in dts else 1e-8,
            )
        except Exception as e:
            r = [("harness", name, repr(e)[:200])]
        stats["cases"] += 1
        for kind, nm, det in r:
            stats[kind] += 1
            bad[(kind, nm)].append((i, [a.shape for a in arrays], dts, det))
    return stats, bad


# ---- matmul family (was fz_matmul.py)

DTS = ["float64"] * 6 + ["float32"] * 2 + ["int64", "int32", "bool", "float16"]


def arr_mm(rs, shape, dt):
    if dt == "bool":
        return rs.rand(*shape) > 0.5
    if dt.startswith("int"):
        return rs.randint(-4, 5, size=shape)
    if dt.startswith("complex"):
        return rs.randn(*shape) + 1j * rs.randn(*shape)
    return rs.randn(*shape)


def rshape_mm(rs, nd, maxs=4, zero=0.1):
    return tuple(0 if rs.rand() < zero else rs.randint(1, maxs) for _ in range(nd))


def gen_matmul(rs):
    """returns name, fn, shapes, dtypes"""
    op = rs.choice(
        [
            "matmul",
            "mm",
            "bmm",
            "mv",
            "dot",
            "vdot",
            "inner",
            "outer",
            "ger",
            "addmm",
            "addmv",
            "addbmm",
            "baddbmm",
            "addr",
            "chain",
            "multi_dot",
            "tensordot",
            "kron",
            "cross",
            "lcross",
            "rmatmul",
            "linalg_matmul",
            "vecdot",
        ]
    )
    k = rs.randint(0, 4)
    m, n, p, b = [rs.randint(0, 4) if rs.rand() < 0.15 else rs.randint(1, 4) for _ in range(4)]
    mism = rs.rand() < 0.15  # shape mismatch

    def kk():
        return k + 1 if mism and rs.rand() < 0.5 else k

    beta = [1, 0, 0.5, 2][rs.randint(4)]
    alpha = [1, 0.5, -2, 0][rs.randint(4)]
    kw = {}
    if beta != 1:
        kw["beta"] = beta
    if alpha != 1:
        kw["alpha"] = alpha
    if op in ("matmul", "rmatmul", "linalg_matmul"):
        n1, n2 = rs.randint(0, 5), rs.randint(0, 5)
        s1 = list(rshape_mm(rs, n1))
        s2 = list(rshape_mm(rs, n2))
        if n1 >= 1 and n2 >= 1:
            K = rs.randint(0, 4)
            s1[-1] = K
            if n2 == 1:
                s2[0] = K
            else:
                s2[-2] = K
            if mism and rs.rand() < 0.5:
                s2[-2 if n2 > 1 else 0] = K + 1
            # batch broadcast: make batch dims compatible
            b1, b2 = s1[:-2], s2[:-2]
            max(len(b1), len(b2))
            for i in range(1, min(len(b1), len(b2)) + 1):
                if not mism and b1[-i] != b2[-i] and b1[-i] != 1 and b2[-i] != 1:
                    b2[-i] = b1[-i] if rs.rand() < 0.7 else 1
            s1 = b1 + s1[-2:] if n1 >= 2 else s1
            s2 = b2 + s2[-2:] if n2 >= 2 else s2
        f = {
            "matmul": lambda L, x, y: L.matmul(x, y),
            "rmatmul": lambda L, x, y: x @ y,
            "linalg_matmul": lambda L, x, y: L.linalg.matmul(x, y),
        }[op]
        return op, f, [tuple(s1), tuple(s2)]
    if op == "mm":
        return (
            op,
            lambda L, x, y: L.mm(x, y),
            [(m, k), (kk(), n)] if rs.rand() > 0.05 else [(m,), (k, n)],
        )
    if op == "bmm":
        return op, lambda L, x, y: L.bmm(x, y), [(b, m, k), (b if not mism else b + 1, kk(), n)]
    if op == "mv":
        return op, lambda L, x, y: L.mv(x, y), [(m, k), (kk(),)]
    if op in ("dot", "vdot"):
        return (
            op,
            (lambda L, x, y: getattr(L, op)(x, y)),
            [(k,), (kk(),)] if rs.rand() > 0.1 else [(k, 1), (k,)],
        )
    if op == "inner":
        n1, n2 = rs.randint(0, 4), rs.randint(0, 4)
        s1 = list(rshape_mm(rs, n1))
        s2 = list(rshape_mm(rs, n2))
        if n1 and n2:
            s2[-1] = s1[-1] if not mism else s1[-1] + 1
        return op, lambda L, x, y: L.inner(x, y), [tuple(s1), tuple(s2)]
    if op in ("outer", "ger"):
        return (
            op,
            (lambda L, x, y: getattr(L, op)(x, y)),
            [(m,), (n,)] if rs.rand() > 0.1 else [(m, 1), (n,)],
        )
    if op == "addmm":
        s0 = [(m, n), (n,), (1, n), (m, 1), (), (1,)][rs.randint(6)]
        return op, lambda L, c, x, y: L.addmm(c, x, y, **kw), [s0, (m, k), (kk(), n)]
    if op == "addmv":
        s0 = [(m,), (1,), ()][rs.randint(3)]
        return op, lambda L, c, x, y: L.addmv(c, x, y, **kw), [s0, (m, k), (kk(),)]
    if op == "addbmm":
        s0 = [(m, n), (n,), ()][rs.randint(3)]
        return op, lambda L, c, x, y: L.addbmm(c, x, y, **kw), [s0, (b, m, k), (b, kk(), n)]
    if op == "baddbmm":
        s0 = [(b, m, n), (m, n), (1, 1, n), ()][rs.randint(4)]
        return op, lambda L, c, x, y: L.baddbmm(c, x, y, **kw), [s0, (b, m, k), (b, kk(), n)]
    if op == "addr":
        s0 = [(m, n), (n,), (), (m, 1)][rs.randint(4)]
        return op, lambda L, c, x, y: L.addr(c, x, y, **kw), [s0, (m,), (n,)]
    if op in ("chain", "multi_dot"):
        cnt = rs.randint(1, 5)
        dims = [rs.randint(0, 4) if rs.rand() < 0.1 else rs.randint(1, 4) for _ in range(cnt + 1)]
        shapes = [(dims[i], dims[i + 1]) for i in range(cnt)]
        if op == "multi_dot" and cnt >= 2 and rs.rand() < 0.4:
            shapes[0] = (dims[1],)
        if op == "multi_dot" and cnt >= 2 and rs.rand() < 0.4:
            shapes[-1] = (dims[-2],)
        if mism and cnt > 1:
            shapes[1] = (shapes[1][0] + 1,) + shapes[1][1:]
        if op == "chain":

            def f(L, *xs):
                return L.chain_matmul(*xs)
        else:

            def f(L, *xs):
                return L.linalg.multi_dot(list(xs))

        return op, f, shapes
    if op == "tensordot":
        n1, n2 = rs.randint(0, 4), rs.randint(0, 4)
        s1 = list(rshape_mm(rs, n1))
        s2 = list(rshape_mm(rs, n2))
        if rs.rand() < 0.5:
            d = rs.randint(0, min(n1, n2) + 1)
            for i in range(d):
                s2[i] = s1[n1 - d + i]
            if mism and d:
                s2[0] += 1
            return op, lambda L, x, y: L.tensordot(x, y, dims=int(d)), [tuple(s1), tuple(s2)]
        d = rs.randint(0, min(n1, n2) + 1)
        a1 = list(rs.permutation(n1)[:d])
        a2 = list(rs.permutation(n2)[:d])
        for i, j in zip(a1, a2, strict=False):
            s2[j] = s1[i]
        a1 = [int(i) - (n1 if rs.rand() < 0.3 else 0) for i in a1]
        a2 = [int(i) for i in a2]
        form = rs.randint(2)
        dims = (a1, a2) if form else [a1, a2]
        return op, lambda L, x, y: L.tensordot(x, y, dims=dims), [tuple(s1), tuple(s2)]
    if op == "kron":
        return (
            op,
            lambda L, x, y: L.kron(x, y),
            [rshape_mm(rs, rs.randint(0, 4)), rshape_mm(rs, rs.randint(0, 4))],
        )
    if op in ("cross", "lcross"):
        nd = rs.randint(1, 4)
        s = list(rshape_mm(rs, nd, zero=0.05))
        d = rs.randint(-nd, nd)
        if not mism:
            s[d] = 3
        s2 = list(s)
        if rs.rand() < 0.3:
            s2[(d + 1) % nd if nd > 1 else 0] = 1 if nd > 1 else s2[0]
        usedim = rs.rand() < 0.6
        if op == "cross":
            f = (
                (lambda L, x, y: L.cross(x, y, dim=int(d)))
                if usedim
                else (lambda L, x, y: L.cross(x, y))
            )
        else:
            f = (
                (lambda L, x, y: L.linalg.cross(x, y, dim=int(d)))
                if usedim
                else (lambda L, x, y: L.linalg.cross(x, y))
            )
        return op, f, [tuple(s), tuple(s2)]
    if op == "vecdot":
        s = rshape_mm(rs, rs.randint(1, 4))
        return op, lambda L, x, y: L.linalg.vecdot(x, y), [s, s]


def part_matmul(N, seed0, only=None):
    stats = collections.Counter()
    bad = collections.defaultdict(list)
    for i in range(N):
        rs = np.random.RandomState(seed0 * 100000 + i)
        name, fn, shapes = gen_matmul(rs)
        if rs.rand() < 0.75:
            dts = ["float64"] * len(shapes)
        else:
            dts = [DTS[rs.randint(len(DTS))] for _ in shapes]
        arrays = [arr_mm(rs, s, d) for s, d in zip(shapes, dts, strict=False)]
        if (
            name in ("addmm", "addmv", "addbmm", "baddbmm", "addr")
            and rs.rand() < 0.2
            and dts[0].startswith("float")
        ):
            arrays[0] = np.full(shapes[0], np.nan)
        r = H.run_case(name, fn, arrays, dts, seed=i)
        stats["cases"] += 1
        for kind, nm, det in r:
            stats[kind] += 1
            bad[(kind, nm)].append((i, shapes, dts, det))
    return stats, bad


# ---- einsum (was fz_einsum.py)
LET = "abcdefg"


def part_einsum(N, seed0, only=None):
    stats = collections.Counter()
    bad = collections.defaultdict(list)
    for i in range(N):
        rs = np.random.RandomState(seed0 * 100000 + i)
        nops = rs.randint(1, 4)
        sizes = {c: (0 if rs.rand() < 0.05 else rs.randint(1, 4)) for c in LET}
        use_ell = rs.rand() < 0.3
        ell_shape = tuple(rs.randint(1, 3) for _ in range(rs.randint(0, 3)))
        ops, shapes = [], []
        for _ in range(nops):
            nd = rs.randint(0, 4)
            sub = "".join(LET[rs.randint(0, 5)] for _ in range(nd))
            shp = [sizes[c] for c in sub]
            if use_ell and rs.rand() < 0.7:
                pos = rs.randint(0, nd + 1)
                k = rs.randint(0, len(ell_shape) + 1)
                es = ell_shape[len(ell_shape) - k :]
                if rs.rand() < 0.3 and es:
                    es = (1,) + es[1:]
                sub = sub[:pos] + "..." + sub[pos:]
                shp = shp[:pos] + list(es) + shp[pos:]
            ops.append(sub)
            shapes.append(tuple(shp))
        allc = sorted(set("".join(ops).replace(".", "")))
        if rs.rand() < 0.3:
            eq = ",".join(ops)
        else:
            out = [c for c in allc if rs.rand() < 0.5]
            rs.shuffle(out)
            o = "".join(out)
            if use_ell and any("..." in s for s in ops) and rs.rand() < 0.8:
                p = rs.randint(0, len(o) + 1)
                o = o[:p] + "..." + o[p:]
            if rs.rand() < 0.03 and allc:
                o += allc[0] * 2  # invalid: repeated output
            eq = ",".join(ops) + "->" + o
        if rs.rand() < 0.2:
            eq = eq.replace(",", " , ").replace("->", " -> ")
        if rs.rand() < 0.05 and shapes and shapes[0]:  # wrong size
            shapes[0] = (shapes[0][0] + 1,) + shapes[0][1:]
        sublist = rs.rand() < 0.15 and "..." not in eq and "->" in eq
        dts = (
            ["float64"] * nops
            if rs.rand() < 0.85
            else [["float32", "int64", "float64", "bool"][rs.randint(4)] for _ in range(nops)]
        )
        arrays = [
            rs.randn(*s)
            if d.startswith("f")
            else (rs.randint(-3, 4, size=s) if d == "int64" else rs.rand(*s) > 0.5)
            for s, d in zip(shapes, dts, strict=False)
        ]
        if sublist:
            lhs, rhs = eq.replace(" ", "").split("->")
            subs = [[ord(c) - 97 for c in s] for s in lhs.split(",")]
            outs = [ord(c) - 97 for c in rhs]

            def fn(L, *xs, subs=subs, outs=outs):
                args = []
                for x, s in zip(xs, subs, strict=False):
                    args += [x, s]
                return L.einsum(*args, outs)

            name = "einsum-sublist"
        else:

            def fn(L, *xs, eq=eq):
                return L.einsum(eq, *xs)

            name = "einsum"
        r = H.run_case(name, fn, arrays, dts, seed=i)
        stats["cases"] += 1
        for kind, nm, det in r:
            stats[kind] += 1
            bad[(kind, nm)].append((i, eq, shapes, dts, det))
    return stats, bad


PARTS = ("linalg", "matmul", "einsum")


def main():
    def extra(p):
        p.add_argument("--part", choices=PARTS, action="append")
        p.add_argument("--only", help="comma-separated op names (linalg part)")

    args = H.cli("linalg", default_cases=500, extra=extra)
    rep = args.report
    only = args.only.split(",") if args.only else None
    H.run_case = H.limited(H.run_case, args.timeout, lambda e: [("timeout", "?", str(e))])
    for part in args.part or PARTS:
        fn = {"linalg": part_linalg, "matmul": part_matmul, "einsum": part_einsum}[part]
        stats, bad = (
            fn(args.cases, args.seed, only) if part == "linalg" else fn(args.cases, args.seed)
        )
        rep.case(stats["cases"])
        for (kind, name), exs in bad.items():
            for e in exs:
                rep.add(f"{part}: {kind} | {name}", *e)
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
