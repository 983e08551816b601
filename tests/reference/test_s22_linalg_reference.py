"""Session 22 (h4): a seeded slice of the differential fuzzer of the matmul family, einsum and
torch.linalg: values, dtypes, shapes, float64 first and second derivatives and errors (type and
message) against torch."""

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _mk(lib, a, dt, rg=False):
    t = lib.from_numpy(np.array(np.asarray(a), dtype=dt, copy=True))
    return t.requires_grad_(True) if rg else t


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [x for v in r for x in _flat(v)]
    return [r] if hasattr(r, "shape") and hasattr(r, "dtype") else []


def _run(lib, fn, arrays, dts, seed):
    """(outputs, first-order grads, second-order grads) as NumPy, or the exception's type and
    message."""
    try:
        ins = [_mk(lib, a, d, d == "float64") for a, d in zip(arrays, dts, strict=True)]
        outs = [o for o in _flat(fn(lib, *ins))]
        vals = [(str(o.dtype).split(".")[-1], tuple(o.shape), o.detach().numpy()) for o in outs]
        gi = [t for t in ins if t.requires_grad]
        diff = [o for o in outs if o.requires_grad]
        if not gi or not diff or set(dts) != {"float64"}:
            return vals, None, None
        rs = np.random.RandomState(seed)
        loss = sum((o * lib.from_numpy(np.asarray(rs.randn(*o.shape)))).sum() for o in diff)
        gs = lib.autograd.grad(loss, gi, create_graph=True, allow_unused=True)
        g1 = [None if g is None else g.detach().numpy() for g in gs]
        terms = [
            (g * lib.from_numpy(np.asarray(rs.randn(*g.shape)))).sum() for g in gs if g is not None
        ]
        terms = [t for t in terms if t.requires_grad]
        if not terms:
            return vals, g1, None
        g2 = lib.autograd.grad(sum(terms), gi, allow_unused=True)
        return vals, g1, [None if g is None else g.detach().numpy() for g in g2]
    except Exception as e:  # noqa: BLE001 (the error is compared)
        return type(e).__name__, str(e).split("\n")[0]


def _compare(fn, arrays, dts, seed):
    t, m = _run(torch, fn, arrays, dts, seed), _run(mt, fn, arrays, dts, seed)
    if isinstance(t[0], str) or isinstance(m[0], str):
        # mixed dtypes: the exception's type (the messages of some of torch's paths are left)
        assert t == m if set(dts) == {"float64"} else t[0] == m[0]
        return
    assert [(d, s) for d, s, _ in t[0]] == [(d, s) for d, s, _ in m[0]]
    for (_, _, x), (_, _, y) in zip(t[0], m[0], strict=True):
        np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-6)
    for a, b in ((t[1], m[1]), (t[2], m[2])):
        if a is None or b is None:  # torch's graph may end where ours goes on (zeros)
            continue
        for x, y in zip(a, b, strict=True):
            if x is not None and y is not None:
                np.testing.assert_allclose(y, x, rtol=1e-6, atol=1e-8)


def _matmul_case(rs):
    n1, n2 = rs.randint(1, 5), rs.randint(1, 5)
    s1 = [rs.randint(0, 4) for _ in range(n1)]
    s2 = [rs.randint(0, 4) for _ in range(n2)]
    k = rs.randint(0, 4)
    s1[-1] = k
    # (a mismatch after a 1-d operand: torch's words depend on requires_grad; left)
    s2[-2 if n2 > 1 else 0] = k if rs.rand() < 0.9 or n1 == 1 else k + 1
    for i in range(1, min(n1, n2) - 1):
        if rs.rand() < 0.8:
            s2[-2 - i] = s1[-2 - i] if rs.rand() < 0.7 else 1
    return (lambda L, a, b: L.matmul(a, b)), [rs.randn(*s1), rs.randn(*s2)]


def _addmm_family_case(rs):
    m, n, k, b = (rs.randint(0, 4) for _ in range(4))
    beta, alpha = float(rs.choice([0, 1, 0.5])), float(rs.choice([1, -2, 0]))
    op = rs.choice(["addmm", "addmv", "addr", "baddbmm", "addbmm"])
    shapes = {
        "addmm": [(m, n), (m, k), (k, n)],
        "addmv": [(m,), (m, k), (k,)],
        "addr": [(m, n), (m,), (n,)],
        "baddbmm": [(b, m, n), (b, m, k), (b, k, n)],
        "addbmm": [(m, n), (b, m, k), (b, k, n)],
    }[op]
    arrays = [rs.randn(*s) for s in shapes]
    if beta == 0 and rs.rand() < 0.5:
        arrays[0][...] = np.nan  # ignored by torch when beta is 0
    return (lambda L, c, x, y: getattr(L, op)(c, x, y, beta=beta, alpha=alpha)), arrays


def _einsum_case(rs):
    letters = "abcd"
    sizes = {c: rs.randint(1, 4) for c in letters}
    subs = ["".join(rs.choice(list(letters), rs.randint(0, 4))) for _ in range(rs.randint(1, 4))]
    allc = sorted(set("".join(subs)))
    out = "".join(c for c in allc if rs.rand() < 0.5)
    eq = ",".join(subs) + "->" + out
    return (lambda L, *xs: L.einsum(eq, *xs)), [rs.randn(*[sizes[c] for c in s]) for s in subs]


def _linalg_case(rs):
    b = [(), (2,), (0,)][rs.randint(3)]
    n = rs.randint(0, 4)
    a = rs.randn(*b, n, n) + 3 * np.eye(n)
    spd = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    sym = a + np.swapaxes(a, -1, -2)
    ops = [
        (lambda L, x: L.linalg.det(x), [a]),
        (lambda L, x: L.linalg.slogdet(x), [a]),
        (lambda L, x: L.linalg.inv(x), [a]),
        (lambda L, x, y: L.linalg.solve(x, y), [a, rs.randn(*b, n, 2)]),
        (lambda L, x: L.linalg.cholesky(x), [spd]),
        (lambda L, x: L.linalg.eigvalsh(x), [sym]),
        (lambda L, x: L.linalg.svdvals(x), [rs.randn(*b, n, n + 1)]),
        (lambda L, x: L.linalg.pinv(x), [rs.randn(*b, n + 1, n)]),
        (lambda L, x: L.linalg.matrix_exp(x), [0.5 * a]),
        (lambda L, x: L.linalg.matrix_power(x, -2), [a]),
        (lambda L, x: L.linalg.cond(x), [a]),
        (lambda L, x: L.linalg.qr(x)[1].abs(), [rs.randn(*b, n + 1, n)]),
        (lambda L, x: L.linalg.solve_triangular(x, x, upper=True), [a]),
        (lambda L, x, y: L.linalg.lu_solve(*L.linalg.lu_factor(x), y), [a, rs.randn(*b, n, 1)]),
    ]
    return ops[rs.randint(len(ops))]


@pytest.mark.parametrize("gen", [_matmul_case, _addmm_family_case, _einsum_case, _linalg_case])
def test_fuzz_slice_against_torch(gen):
    for i in range(60):
        rs = np.random.RandomState(22_000 + i)
        fn, arrays = gen(rs)
        dts = ["float64"] * len(arrays)
        if rs.rand() < 0.15 and gen is not _linalg_case:
            # (not bool: torch's matmul folds some batches into mm, whose words differ)
            dts[rs.randint(len(dts))] = str(rs.choice(["float32", "int64"]))
        _compare(fn, arrays, dts, i)
