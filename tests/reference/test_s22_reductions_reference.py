"""A seeded slice of session 22's differential fuzzer for reductions, scans and sorting: the same
random cases in torch and minitorch, comparing values, dtypes, shapes, float64 gradients (first
and second order) and exceptions (type and message)."""

import random
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float64", "float64", "float64", "float32", "float16", "int64", "int32", "uint8", "bool"]


def _shape(rng):
    return tuple(
        rng.choice([0, 1, 2, 3, 4, 5]) if rng.random() < 0.9 else 1
        for _ in range(rng.choice([0, 1, 2, 2, 3, 4]))
    )


def _values(rng, shape, dtype, distinct, special):
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        v = [float(rng.random() < 0.5) for _ in range(n)]
    elif distinct:  # index-returning ops: torch leaves the index of a tie unspecified
        v = rng.sample(range(0, 250), n) if n <= 250 else [rng.random() * 250 for _ in range(n)]
        v = [x / 8 for x in v] if dtype.startswith("float") else v
    elif not dtype.startswith("float"):
        v = [float(rng.randint(0, 5)) for _ in range(n)]
    else:
        v = [rng.choice([rng.gauss(0, 1), float(rng.randint(-2, 2)), 0.0]) for _ in range(n)]
        for i in range(n):
            if special and rng.random() < 0.05:
                v[i] = rng.choice([float("nan"), float("inf"), -float("inf"), -0.0])
    return np.array(v, dtype=np.float64).reshape(shape)


def _dim(rng, nd, tuples=True):
    if tuples and rng.random() < 0.3:
        ds = rng.sample(range(max(nd, 1)), rng.randint(1, max(nd, 1)))
        return tuple(d - nd if nd and rng.random() < 0.4 else d for d in ds)
    lo, hi = (-nd, nd - 1) if nd else (-1, 0)
    return rng.randint(lo - (rng.random() < 0.05), hi)


def _case(rng):
    """(name, kwargs, distinct values needed, differentiable)."""
    shape = _shape(rng)
    nd = len(shape)
    kind = rng.choice(
        ["sum", "mean", "nansum", "prod", "amax", "max", "argmax", "logsumexp", "var", "std_mean",
         "norm", "median", "kthvalue", "topk", "sort", "cumsum", "cumprod", "cummax",
         "logcumsumexp", "all", "count_nonzero"]
    )  # fmt: skip
    k = {}
    if kind in ("sum", "mean", "nansum", "amax", "var", "std_mean", "logsumexp", "count_nonzero"):
        if rng.random() < 0.8 or kind == "logsumexp":
            k["dim"] = _dim(rng, nd)
    elif kind in ("prod", "max", "argmax", "median", "all"):
        if rng.random() < 0.7:
            k["dim"] = _dim(rng, nd, tuples=False)
    else:
        k["dim"] = _dim(rng, nd, tuples=False)
    if (
        "dim" in k
        and kind not in ("count_nonzero",)
        and not kind.startswith("cum")
        and rng.random() < 0.5
    ):
        if kind not in ("topk", "sort", "logcumsumexp"):
            k["keepdim"] = rng.random() < 0.5
    if kind in ("var", "std_mean") and rng.random() < 0.5:
        k["correction"] = rng.choice([0, 1, 2])
    if kind in ("kthvalue", "topk"):
        k["k"] = rng.randint(0, 3)
    if kind == "topk" and rng.random() < 0.5:
        k["largest"] = False
    if kind == "sort" and rng.random() < 0.5:
        k["descending"] = True
    if kind == "norm":
        k["p"] = rng.choice([1, 2, 3, float("inf")])
    distinct = kind in ("max", "argmax", "median", "kthvalue", "topk", "sort", "cummax")
    diff = kind not in ("argmax", "all", "count_nonzero")
    return kind, k, shape, distinct, diff


def _call(lib, kind, k, x):
    k = dict(k)
    if kind == "kthvalue":
        return lib.kthvalue(x, max(k.pop("k"), 1), **k)
    if kind == "topk":
        return lib.topk(x, k.pop("k"), **k)
    return getattr(lib, kind)(x, **k)


def _flat(r):
    return [t for t in (r if isinstance(r, tuple) else (r,))]


def _compare(a, b, what):
    assert tuple(a.shape) == tuple(b.shape), what
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], what
    if a._is_zerotensor():  # torch's zero second derivative of a linear op
        a = torch.zeros(a.shape, dtype=a.dtype)
    an = a.detach().to(torch.float64).numpy()
    bn = b.detach().to(mt.float64).numpy()
    rtol = {"torch.float32": 1.3e-5, "torch.float16": 1e-3}.get(str(a.dtype), 1e-9)
    np.testing.assert_allclose(bn, an, rtol=rtol, atol=rtol, equal_nan=True, err_msg=what)


def _grads(lib, x, outs, seed):
    wr = np.random.default_rng(seed)
    outs = [o for o in outs if o.requires_grad]
    if not outs:
        return None
    loss = sum((o * lib.tensor(wr.standard_normal(tuple(o.shape)))).sum() for o in outs)
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    v = lib.tensor(wr.standard_normal(tuple(x.shape)))
    gg = lib.autograd.grad((g * v).sum(), x, allow_unused=True)[0] if g.requires_grad else None
    return g, gg


def _run(lib, kind, k, vals, dtype, rg):
    x = lib.tensor(vals, dtype=lib.float64).to(getattr(lib, dtype))
    if rg:
        x.requires_grad_(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x, _flat(_call(lib, kind, k, x)), None
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return x, None, e


@pytest.mark.parametrize("chunk", range(6))
def test_reductions_match_torch(chunk):
    for seed in range(chunk * 60, chunk * 60 + 60):
        rng = random.Random(seed)
        kind, k, shape, distinct, diff = _case(rng)
        dtype = rng.choice(DTYPES)
        if distinct and dtype == "bool":
            dtype = "float64"
        rg = diff and dtype == "float64" and rng.random() < 0.7
        # nan/inf/-0.0 in forward-only cases (inf in a second derivative is left out)
        vals = _values(rng, shape, dtype, distinct, special=not rg)
        what = f"seed {seed}: {kind}{k} {dtype}{shape}"
        tx, tr, te = _run(torch, kind, k, vals, dtype, rg)
        mx, mr, me = _run(mt, kind, k, vals, dtype, rg)
        if te is not None or me is not None:
            assert te is not None and me is not None, f"{what}: torch {te!r} mt {me!r}"
            assert type(te).__name__ == type(me).__name__, f"{what}: {te!r} vs {me!r}"
            assert str(te).split("\n")[0] == str(me).split("\n")[0], what
            continue
        assert len(tr) == len(mr), what
        for a, b in zip(tr, mr, strict=True):
            _compare(a, b, what)
        if rg:
            tg, mg = _grads(torch, tx, tr, seed), _grads(mt, mx, mr, seed)
            assert (tg is None) == (mg is None), what
            if tg is not None:
                _compare(tg[0], mg[0], what + " grad")
                if tg[1] is not None and mg[1] is not None:
                    _compare(tg[1], mg[1], what + " grad of grad")
