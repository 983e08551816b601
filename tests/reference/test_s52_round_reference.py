"""round's decimals against torch: a given decimals (0 too) takes round's decimals overload,
whose node is RoundBackward1 and which refuses integer and bool tensors; without it, the node
is RoundBackward0. Over torch.round, Tensor.round, Tensor.round_ and torch.round_, in each
floating dtype, with and without out=: the node names, values, dtypes and errors equal torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64", "bool"]


def _data():
    rng = np.random.default_rng(52)
    a = np.concatenate(
        [
            rng.standard_normal(64) * 100,
            np.arange(-6, 6) + 0.5,
            [0.0, -0.0, -0.49, 0.4999, 1e10, -1e-10, np.inf, -np.inf, np.nan],
        ]
    )
    return a


def _leaf(lib, dt, grad=True):
    return lib.tensor(_data(), dtype=getattr(lib, dt), requires_grad=grad)


CALLS = {
    "round": lambda L, x: L.round(x),
    "round decimals=0": lambda L, x: L.round(x, decimals=0),
    "round decimals=-0": lambda L, x: L.round(x, decimals=-0),
    "round decimals=np.int64(0)": lambda L, x: L.round(x, decimals=np.int64(0)),
    "round decimals=1": lambda L, x: L.round(x, decimals=1),
    "round decimals=-2": lambda L, x: L.round(x, decimals=-2),
    "Tensor.round": lambda L, x: x.round(),
    "Tensor.round decimals=0": lambda L, x: x.round(decimals=0),
    "Tensor.round decimals=3": lambda L, x: x.round(decimals=3),
    "Tensor.round_": lambda L, x: x.clone().round_(),
    "Tensor.round_ decimals=0": lambda L, x: x.clone().round_(decimals=0),
    "Tensor.round_ decimals=2": lambda L, x: x.clone().round_(decimals=2),
    "round_": lambda L, x: L.round_(x.clone()),
    "round_ decimals=0": lambda L, x: L.round_(x.clone(), decimals=0),
    "view round_ decimals=0": lambda L, x: x.clone()[2:10].round_(decimals=0),  # AsStrided
}


def _outcome(lib, f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return ("error", type(e).__name__, str(e))
    name = None if r.grad_fn is None else r.grad_fn.name()
    vals = np.asarray(r.detach().double().tolist(), dtype=np.float64)
    return ("tensor", str(r.dtype).replace("torch.", "").replace("minitorch.", ""), name, vals)


def _assert_same(got, want):
    assert got[:3] == want[:3], (got[:3], want[:3])
    if got[0] == "tensor":
        np.testing.assert_array_equal(got[3], want[3])
        num = ~np.isnan(want[3])  # (-0. stays -0.; a NaN's sign is the tensor's maker's)
        np.testing.assert_array_equal(np.signbit(got[3][num]), np.signbit(want[3][num]))


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("call", list(CALLS))
def test_float_nodes_and_values(dt, call):
    f = CALLS[call]
    want = _outcome(torch, lambda: f(torch, _leaf(torch, dt)))
    got = _outcome(mt, lambda: f(mt, _leaf(mt, dt)))
    _assert_same(got, want)
    if "view" not in call:
        assert want[2] == ("RoundBackward1" if "decimals" in call else "RoundBackward0")


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("call", list(CALLS))
def test_float_without_grad(dt, call):
    f = CALLS[call]
    want = _outcome(torch, lambda: f(torch, _leaf(torch, dt, grad=False)))
    got = _outcome(mt, lambda: f(mt, _leaf(mt, dt, grad=False)))
    _assert_same(got, want)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("kw", [{}, {"decimals": 0}, {"decimals": 1}, {"decimals": -1}])
def test_float_out(dt, kw):
    outcomes = []
    for L in (torch, mt):
        out = L.empty(len(_data()), dtype=getattr(L, dt))
        r = L.round(_leaf(L, dt, grad=False), out=out, **kw)
        assert r is out
        outcomes.append(_outcome(L, lambda out=out: out))
    _assert_same(outcomes[1], outcomes[0])


def test_out_with_a_tensor_requiring_grad():
    for kw in ({}, {"decimals": 0}):
        got, want = (
            _outcome(L, lambda L=L, kw=kw: L.round(_leaf(L, "float32"), out=L.empty(1), **kw))
            for L in (mt, torch)
        )
        assert want[0] == "error"
        assert got == want


def _dt(lib, name):
    return getattr(lib, name)


@pytest.mark.parametrize("dt", INTS)
def test_integer_and_bool_tensors(dt):
    calls = {
        **{k: v for k, v in CALLS.items() if "view" not in k},
        "round out": lambda L, x: L.round(x, out=L.empty(3, dtype=x.dtype)),
        "round decimals=0 out": lambda L, x: L.round(x, decimals=0, out=L.empty(3, dtype=x.dtype)),
    }
    for name, f in calls.items():
        want = _outcome(torch, lambda f=f: f(torch, torch.tensor([1, 0, 1], dtype=_dt(torch, dt))))
        got = _outcome(mt, lambda f=f: f(mt, mt.tensor([1, 0, 1], dtype=_dt(mt, dt))))
        _assert_same(got, want)
        assert (want[0] == "error") == (dt == "bool" or "decimals" in name), name


BAD = {
    "positional": lambda L, x: L.round(x, 2),
    "positional 0": lambda L, x: L.round(x, 0),
    "positional and decimals": lambda L, x: L.round(x, 2, decimals=0),
    "positional and out": lambda L, x: L.round(x, 2, out=L.empty(2)),
    "method positional": lambda L, x: x.round(2),
    "method positional 0": lambda L, x: x.round(0),
    "method positional and decimals": lambda L, x: x.round(1, decimals=0),
    "inplace positional": lambda L, x: x.clone().round_(0),
    "inplace function positional": lambda L, x: L.round_(x.clone(), 1),
    "float": lambda L, x: L.round(x, decimals=1.0),
    "float 0": lambda L, x: L.round(x, decimals=0.0),
    "bool": lambda L, x: L.round(x, decimals=True),
    "bool False": lambda L, x: L.round(x, decimals=False),
    "None": lambda L, x: L.round(x, decimals=None),
    "str": lambda L, x: L.round(x, decimals="0"),
    "float 0 out": lambda L, x: L.round(x, decimals=0.0, out=L.empty(2)),
    "method None": lambda L, x: x.round(decimals=None),
    "method float 0": lambda L, x: x.round(decimals=0.0),
    "inplace None": lambda L, x: x.clone().round_(decimals=None),
    "inplace float 0": lambda L, x: x.clone().round_(decimals=0.0),
    "inplace bool": lambda L, x: x.clone().round_(decimals=False),
    "integer None": lambda L, x: L.round(x.long(), decimals=None),
    "integer float 0": lambda L, x: x.long().round(decimals=0.0),
    "not a tensor": lambda L, x: L.round([1.5]),
    "leaf round_ decimals=0": lambda L, x: x.requires_grad_().round_(decimals=0),
}


@pytest.mark.parametrize("case", list(BAD))
def test_errors(case):
    f = BAD[case]
    want = _outcome(torch, lambda: f(torch, torch.tensor([1.5, 2.5])))
    got = _outcome(mt, lambda: f(mt, mt.tensor([1.5, 2.5])))
    assert want[0] == "error"
    assert got == want


def test_numpy_round_of_tensors():
    for values in ([1, 2], [1.5, 2.5]):
        want = np.round(torch.tensor(values))
        got = np.round(mt.tensor(values))
        assert got.tolist() == want.tolist()
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


def test_special_round():
    x = [0.5, 1.5, -2.5, 0.25]
    for kw in ({}, {"decimals": 0}, {"decimals": 1}):
        want = torch.special.round(torch.tensor(x, requires_grad=True), **kw)
        got = mt.special.round(mt.tensor(x, requires_grad=True), **kw)
        assert got.grad_fn.name() == want.grad_fn.name() == "RoundBackward1"
        assert got.tolist() == want.tolist()
    for args, kw in (((2,), {}), ((2, 3), {"decimals": 1})):
        want = _outcome(torch, lambda a=args, k=kw: torch.special.round(torch.tensor(x), *a, **k))
        got = _outcome(mt, lambda a=args, k=kw: mt.special.round(mt.tensor(x), *a, **k))
        assert got == want
