"""Session 23: a seeded slice of the out= / in-place differential fuzzer, minitorch against torch:
the returned object, out's values, dtype and shape, the version bump, warnings, and exception
type + message."""

import warnings

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

rng = np.random.default_rng(23)
A = rng.standard_normal((3, 4))
B = rng.standard_normal((3, 4))
P = rng.uniform(0.1, 0.9, (3, 4))
M = rng.standard_normal((3, 3)) + 3 * np.eye(3)
N = rng.standard_normal((4, 5))
V = rng.standard_normal(4)

NO_AUTOGRAD = "functions with out=... arguments don't support automatic differentiation"


def _t(L, a, dtype="float32", rg=False):
    return L.tensor(np.array(a), dtype=getattr(L, dtype), requires_grad=rg)


# (path, args builder(L, rg)) -- tensor args first
CASES = [
    *[
        (n, lambda L, rg: ((_t(L, A, rg=rg),), {}))
        for n in [
            "abs",
            "neg",
            "sin",
            "exp",
            "tanh",
            "sigmoid",
            "floor",
            "trunc",
            "sign",
            "sqrt",
            "square",
            "cumsum",
            "special.expit",
            "special.erf",
            "nan_to_num",
        ]
        if n != "cumsum"
    ],
    ("cumsum", lambda L, rg: ((_t(L, A, rg=rg),), {"dim": 1})),
    ("logsumexp", lambda L, rg: ((_t(L, A, rg=rg),), {"dim": 1})),
    ("log", lambda L, rg: ((_t(L, P, rg=rg),), {})),
    ("logit", lambda L, rg: ((_t(L, P, rg=rg),), {})),
    *[
        (n, lambda L, rg: ((_t(L, A, rg=rg), _t(L, B, rg=rg)), {}))
        for n in [
            "add",
            "sub",
            "mul",
            "div",
            "maximum",
            "fmin",
            "atan2",
            "hypot",
            "eq",
            "lt",
            "logical_and",
            "copysign",
        ]
    ],
    ("clamp", lambda L, rg: ((_t(L, A, rg=rg),), {"min": -0.5, "max": 0.5})),
    ("where", lambda L, rg: ((_t(L, A > 0, "bool"), _t(L, A, rg=rg), _t(L, B, rg=rg)), {})),
    ("sum", lambda L, rg: ((_t(L, A, rg=rg), 1), {})),
    ("mean", lambda L, rg: ((_t(L, A, rg=rg), 0), {})),
    ("prod", lambda L, rg: ((_t(L, A, rg=rg), 1), {})),
    ("amax", lambda L, rg: ((_t(L, A, rg=rg), 1), {})),
    ("max", lambda L, rg: ((_t(L, A, rg=rg), 1), {})),
    ("sort", lambda L, rg: ((_t(L, A, rg=rg),), {"dim": 1})),
    ("topk", lambda L, rg: ((_t(L, A, rg=rg), 2), {})),
    ("mm", lambda L, rg: ((_t(L, A, rg=rg), _t(L, N, rg=rg)), {})),
    ("matmul", lambda L, rg: ((_t(L, A, rg=rg), _t(L, N, rg=rg)), {})),
    ("mv", lambda L, rg: ((_t(L, A, rg=rg), _t(L, V, rg=rg)), {})),
    ("outer", lambda L, rg: ((_t(L, V, rg=rg), _t(L, V, rg=rg)), {})),
    ("cat", lambda L, rg: (([_t(L, A, rg=rg), _t(L, B, rg=rg)],), {})),
    ("stack", lambda L, rg: (([_t(L, A, rg=rg), _t(L, B, rg=rg)],), {})),
    ("linalg.inv", lambda L, rg: ((_t(L, M, rg=rg),), {})),
    ("linalg.det", lambda L, rg: ((_t(L, M, rg=rg),), {})),
    ("linalg.cross", lambda L, rg: ((_t(L, M, rg=rg), _t(L, M.T, rg=rg)), {})),
    ("linalg.vector_norm", lambda L, rg: ((_t(L, A, rg=rg),), {})),
    # (arange: torch warns of an out= of another size in words of its own; not checked here)
    ("zeros", lambda L, rg: ((2, 3), {})),
]

SCENARIOS = [
    # name, out shape (None: the result's), out dtype (None: the result's), kind, inputs rg
    ("right", None, None, "plain", False),
    ("empty", (0,), None, "plain", False),
    ("wrongshape", (7,), None, "plain", False),
    ("noncontig", None, None, "noncontig", False),
    ("float64", None, "float64", "plain", False),
    ("int64", None, "int64", "plain", False),
    ("bool", None, "bool", "plain", False),
    ("out-rg", None, None, "rg", False),
    ("in-rg", None, None, "plain", True),
]


def _get(L, path):
    obj = L
    for p in path.split("."):
        obj = getattr(obj, p)
    return obj


def _make_out(L, ref, shape, dtype, kind):
    d = getattr(L, dtype or str(ref.dtype).split(".")[-1])
    shp = tuple(ref.shape) if shape is None else shape
    if kind == "noncontig" and len(shp) == 2:
        return L.zeros(shp[::-1], dtype=d).t()
    if kind == "noncontig":
        n = int(np.prod(shp))
        return L.zeros(2 * n, dtype=d)[::2].reshape(shp)
    return L.zeros(shp, dtype=d, requires_grad=kind == "rg" and d.is_floating_point)


def _observe(L, path, build, scenario, ref):
    _, shape, dtype, kind, rg = scenario
    args, kw = build(L, rg)
    refs = ref if isinstance(ref, tuple) else (ref,)
    outs = tuple(
        _make_out(L, r, shape, dtype if i == 0 else None, kind) for i, r in enumerate(refs)
    )
    out = outs if isinstance(ref, tuple) else outs[0]
    versions = [o._version for o in outs]
    obs = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = _get(L, path)(*args, out=out, **kw)
        except Exception as e:
            text = str(e).split("\n")[0]
            # the op named in the autograd refusal: minitorch names it only when an input
            # requires grad (its node says which op); see the s23 outvar report
            if NO_AUTOGRAD in text:
                text = text[text.index(NO_AUTOGRAD) :]
            obs["exc"] = (type(e).__name__, text)
            r = None
    obs["warn"] = [
        str(x.message).split(" (Triggered internally")[0] for x in w if "resized" in str(x.message)
    ]
    if r is not None:
        rs = r if isinstance(r, tuple) else (r,)
        obs["ident"] = [a is b for a, b in zip(rs, outs, strict=True)]
        obs["vals"] = [
            (str(o.dtype).split(".")[-1], tuple(o.shape), o.detach().double().numpy()) for o in outs
        ]
        obs["bump"] = [o._version > v for o, v in zip(outs, versions, strict=True)]
    return obs


@pytest.mark.parametrize("path, build", CASES, ids=[c[0] for c in CASES])
def test_out_matches_torch(path, build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _get(torch, path)(*build(torch, False)[0], **build(torch, False)[1])
    for scenario in SCENARIOS:
        want = _observe(torch, path, build, scenario, ref)
        got = _observe(minitorch, path, build, scenario, ref)
        where = f"{path} {scenario[0]}"
        assert got.get("exc") == want.get("exc"), where
        assert got["warn"] == want["warn"], where
        if "exc" in want:
            continue
        assert got["ident"] == want["ident"], where
        assert got["bump"] == want["bump"], where
        for (gd, gs, gv), (wd, ws, wv) in zip(got["vals"], want["vals"], strict=True):
            assert (gd, gs) == (wd, ws), where
            np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-6, err_msg=where)


INPLACE = [
    ("add_", lambda L: (_t(L, B),)),
    ("mul_", lambda L: (_t(L, B),)),
    ("div_", lambda L: (_t(L, B),)),
    ("sub_", lambda L: (2.5,)),
    ("clamp_", lambda L: (-0.5, 0.5)),
    ("exp_", lambda L: ()),
    ("sin_", lambda L: ()),
    ("sgn_", lambda L: ()),
    ("lerp_", lambda L: (_t(L, B), 0.25)),
    ("addcmul_", lambda L: (_t(L, B), _t(L, B))),
    ("atan2_", lambda L: (_t(L, B),)),
    ("pow_", lambda L: (2,)),
    ("fill_", lambda L: (0.5,)),
    ("clamp_min_", lambda L: (0.5,)),
    ("clip_", lambda L: (_t(L, B), _t(L, B) + 1)),
    ("conj_physical_", lambda L: ()),
    ("copysign_", lambda L: (_t(L, B),)),
]


def _inplace(L, name, build, kind):
    a = _t(L, A)
    x = {
        "f32": lambda: a.clone(),
        "f64": lambda: a.double(),
        "i64": lambda: (a * 3).long(),
        "bcast": lambda: a[0].clone(),
        "expanded": lambda: a[0:1].clone().expand(3, 4),
        "leafrg": lambda: a.clone().requires_grad_(True),
    }[kind]()
    v = x._version
    try:
        r = getattr(x, name)(*build(L))
    except Exception as e:
        return {"exc": (type(e).__name__, str(e).split("\n")[0])}
    return {
        "ident": r is x,
        "bump": x._version > v,
        "val": (str(x.dtype), tuple(x.shape), x.detach().double().numpy()),
    }


@pytest.mark.parametrize("name, build", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_matches_torch(name, build):
    for kind in ["f32", "f64", "i64", "bcast", "expanded", "leafrg"]:
        want = _inplace(torch, name, build, kind)
        got = _inplace(minitorch, name, build, kind)
        where = f"{name} {kind}"
        assert got.get("exc") == want.get("exc"), where
        if "exc" in want:
            continue
        assert (got["ident"], got["bump"]) == (want["ident"], want["bump"]), where
        assert got["val"][:2] == want["val"][:2], where
        np.testing.assert_allclose(got["val"][2], want["val"][2], rtol=1e-6, err_msg=where)


@pytest.mark.parametrize("name, build", INPLACE[:12], ids=[c[0] for c in INPLACE[:12]])
def test_inplace_on_a_view_of_a_non_leaf_gradients(name, build):
    g = rng.standard_normal((3, 4))
    grads = []
    for L in (torch, minitorch):
        leaf = _t(L, A, "float64", rg=True)
        args = [a.double() if isinstance(a, L.Tensor) else a for a in build(L)]
        args = [a[1:] if isinstance(a, L.Tensor) else a for a in args]
        y = leaf * 1
        getattr(y[1:], name)(*args)
        (y * L.tensor(g)).sum().backward()
        grads.append((y.detach().numpy(), leaf.grad.numpy()))
    for want, got in zip(grads[0], grads[1], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=name)
