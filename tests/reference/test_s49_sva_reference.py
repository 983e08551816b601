"""grad_fn introspection of pointwise and special ops against torch: over each call form, every
node's name, its next_functions and its _saved_* attributes (names, types, shapes, dtypes and
values) equal torch's. (The _raw_saved_ SavedTensors are not compared: a composite node's
and logsigmoid's buffer have none.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _t(lib, shape, seed, dt="float64", lo=None, lin=None, grad=True):
    if lin is not None:
        a = np.linspace(lin[0], lin[1], int(np.prod(shape))).reshape(shape)
    else:
        a = np.random.default_rng(seed).standard_normal(shape)
        if lo is not None:
            a = np.abs(a) + lo
    return lib.tensor(a, dtype=getattr(lib, dt), requires_grad=grad)


def _fn(lib, name):
    f = lib
    for part in name.split("."):
        f = getattr(f, part)
    return f


UNARY = {
    "angle": {},
    "deg2rad": {},
    "rad2deg": {},
    "sgn": {},
    "special.entr": {"lo": 0.1},
    "special.erfcx": {},
    "special.ndtri": {"lin": (0.1, 0.9)},
    "special.log_ndtr": {},
    "special.i0e": {},
    "special.i1": {},
    "special.i1e": {},
    "special.round": {},
    "nn.functional.logsigmoid": {},
}


def _unary(name, kw, dt, shape):
    return lambda lib: _fn(lib, name)(_t(lib, shape, 1, dt, **kw))


CASES = {
    f"{name}-{dt}-{len(shape)}d": _unary(name, kw, dt, shape)
    for name, kw in UNARY.items()
    for dt in ("float64", "float32")
    for shape in ((2, 3), ())
}
CASES.update(
    {
        "special.round-decimals": lambda L: L.special.round(_t(L, (2, 3), 1), decimals=1),
        "hypot": lambda L: L.hypot(_t(L, (2, 3), 1), _t(L, (3,), 2)),
        "hypot-0d-other": lambda L: L.hypot(_t(L, (2, 3), 1), L.tensor(2.0, dtype=L.float64)),
        "hypot-self-no-grad": lambda L: L.hypot(_t(L, (2, 3), 1, grad=False), _t(L, (3,), 2)),
        "hypot-float32": lambda L: L.hypot(_t(L, (2, 1), 1, "float32"), _t(L, (3,), 2, "float32")),
        "copysign": lambda L: L.copysign(_t(L, (2, 3), 1), _t(L, (3,), 2)),
        "copysign-number": lambda L: L.copysign(_t(L, (2, 3), 1), -1.0),
        "copysign-self-no-grad": lambda L: L.copysign(_t(L, (2, 3), 1, grad=False), _t(L, (3,), 2)),
        "copysign_": lambda L: _t(L, (2, 3), 1).clone().copysign_(2.0),
        "nextafter": lambda L: L.nextafter(_t(L, (2, 3), 1), _t(L, (3,), 2)),
        "nextafter-other-grad": lambda L: L.nextafter(_t(L, (2, 3), 1, grad=False), _t(L, (3,), 2)),
        "nextafter-0d": lambda L: L.nextafter(_t(L, (2, 3), 1), L.tensor(2.0, dtype=L.float64)),
        "ldexp": lambda L: L.ldexp(_t(L, (2, 3), 1), _t(L, (3,), 2)),
        "ldexp-0d": lambda L: L.ldexp(_t(L, (2, 3), 1), L.tensor(2.0, dtype=L.float64)),
        "ldexp-self-no-grad": lambda L: L.ldexp(_t(L, (2, 3), 1, grad=False), _t(L, (3,), 2)),
        "ldexp-float32": lambda L: L.ldexp(_t(L, (2, 3), 1, "float32"), _t(L, (3,), 2, "float32")),
        "ldexp-int64": lambda L: L.ldexp(_t(L, (2, 3), 1), L.tensor([1, -2, 3])),
        "ldexp-int32": lambda L: L.ldexp(_t(L, (2, 3), 1), L.tensor([1, -2, 3], dtype=L.int32)),
        "ldexp_": lambda L: _t(L, (2, 3), 1).clone().ldexp_(_t(L, (3,), 2)),
        "deg2rad_": lambda L: _t(L, (2, 3), 1).clone().deg2rad_(),
        "sgn_": lambda L: _t(L, (2, 3), 1).clone().sgn_(),
        "xlog1py": lambda L: L.special.xlog1py(_t(L, (2, 3), 1), _t(L, (3,), 2, lo=0.1)),
        "xlog1py-int-other": lambda L: L.special.xlog1py(_t(L, (2, 3), 1), 2),
        "xlog1py-float-other": lambda L: L.special.xlog1py(_t(L, (2, 3), 1), 2.5),
        "xlog1py-number-self": lambda L: L.special.xlog1py(2.5, _t(L, (3,), 2, lo=0.1)),
        "zeta": lambda L: L.special.zeta(_t(L, (3,), 1, lo=2), _t(L, (3,), 2, lo=0.5)),
        "zeta-other-no-grad": lambda L: L.special.zeta(
            _t(L, (3,), 1, lo=2), _t(L, (3,), 2, lo=0.5, grad=False)
        ),
        "zeta-number-self": lambda L: L.special.zeta(3.0, _t(L, (3,), 2, lo=0.5)),
        "zeta-number-other": lambda L: L.special.zeta(_t(L, (3,), 2, lo=2), 2.0),
    }
)


def _describe(v):
    if isinstance(v, (torch.Tensor, mt.Tensor)):
        a = np.asarray(v.detach().numpy(), dtype=np.float64)
        return ("Tensor", tuple(v.shape), str(v.dtype), a)
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return (type(v).__name__, v)


def _graph(y) -> list:
    out, seen, stack = [], set(), [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        saved = {k: _describe(getattr(node, k)) for k in dir(node) if k.startswith("_saved_")}
        edges = tuple(None if f is None else f.name() for f, _ in node.next_functions)
        out.append((node.name(), saved, edges))
        stack.extend(f for f, _ in reversed(node.next_functions))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_grad_fn_matches_torch(case):
    t_graph, m_graph = _graph(CASES[case](torch)), _graph(CASES[case](mt))
    assert len(t_graph) == len(m_graph), (t_graph, m_graph)
    for (tn, ts, te), (mn, ms, me) in zip(t_graph, m_graph, strict=True):
        assert (tn, sorted(ts), te) == (mn, sorted(ms), me), case
        for key, tv in ts.items():
            mv = ms[key]
            if isinstance(tv, tuple) and tv[0] == "Tensor":
                assert tv[:3] == mv[:3], (case, key)
                tol = 1e-6 if tv[2] == "torch.float32" else 1e-12  # (float32 kernels: ulps)
                np.testing.assert_allclose(mv[3], tv[3], rtol=tol, atol=0, err_msg=f"{case} {key}")
            else:
                assert tv == mv, (case, key)
