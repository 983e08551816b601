"""Session 45, rnn: cheaper recurrent layers, the same results.

Each step of a layer direction now reuses one transpose of W_hh (and W_hr) instead of taking it
per step (_functional_rnn._Hidden/_projection); an LSTM step's node (_LSTMGates) also computes
the hidden projection; a GRU step can be one fused node, _GRUGates, with the projection inside,
plus its last addition (off by default: it changes the graph below that addition, which matches
torch's; these tests switch it on). The old route stays reachable (_HOIST[0] = False,
_GRU_FUSED_DTYPES = ()): the tests here compare the new route with it bit for bit (values,
gradients, their strides, the nodes next to the outputs), and check the new route is taken (so
they fail on the old code)."""

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops.shape import TransposeT
from minitorch.autograd import engine
from minitorch.nn import _functional_rnn as R
from minitorch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

_DEFAULT_GRU = R._GRU_FUSED_DTYPES


@pytest.fixture(autouse=True)
def gru_fused(monkeypatch):
    monkeypatch.setattr(R, "_GRU_FUSED_DTYPES", (mt.float32, mt.float64))


@pytest.fixture
def old_route(monkeypatch):
    """A function that switches _functional_rnn to the route before this session."""

    def switch():
        R._HOIST[0] = False
        monkeypatch.setattr(R, "_GRU_FUSED_DTYPES", ())

    try:
        yield switch
    finally:
        R._HOIST[0] = True


def _fill(m, seed, dtype):
    rs = np.random.RandomState(seed)
    m = m.to(dtype)
    with mt.no_grad():
        for p in m.parameters():
            p.copy_(mt.tensor(rs.uniform(-0.6, 0.6, tuple(p.shape))))
    return m


def _make_module(kind, dtype, **kw):
    cls = {"LSTM": mt.nn.LSTM, "GRU": mt.nn.GRU, "RNN": mt.nn.RNN}[kind]
    return _fill(cls(3, 4, **kw), 1, dtype)


def _run(kind, dtype, *, packed=False, states=True, seed=0, **kw):
    """Outputs, gradients (of inputs, states and parameters, with their strides) and the names
    of the nodes next to the outputs, for a fresh module and input built from seed."""
    m = _make_module(kind, dtype, **kw)
    rs = np.random.RandomState(seed)
    batch_first = kw.get("batch_first", False)
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    shape = (2, 5, 3) if batch_first else (5, 2, 3)
    x = mt.tensor(rs.randn(*shape), dtype=dtype, requires_grad=True)
    hsize = kw.get("proj_size") or 4
    leaves = [x]
    hx = None
    if states:
        h0 = mt.tensor(rs.randn(layers * dirs, 2, hsize), dtype=dtype, requires_grad=True)
        leaves.append(h0)
        hx = h0
        if kind == "LSTM":
            c0 = mt.tensor(rs.randn(layers * dirs, 2, 4), dtype=dtype, requires_grad=True)
            leaves.append(c0)
            hx = (h0, c0)
    inp = x
    if packed:
        inp = pack_padded_sequence(x, [5, 3], batch_first=batch_first, enforce_sorted=False)
    out, hn = m(inp) if hx is None else m(inp, hx)
    if packed:
        out = pad_packed_sequence(out, batch_first=batch_first)[0]
    outs = [out, *(hn if isinstance(hn, tuple) else (hn,))]
    w = [mt.tensor(rs.randn(*o.shape), dtype=dtype) for o in outs]
    loss = sum(((o * wi).sum() for o, wi in zip(outs, w, strict=True)), mt.tensor(0.0, dtype=dtype))
    loss.backward()
    nodes = [
        (o.grad_fn.name(), [f[0].name() if f[0] else None for f in o.grad_fn.next_functions])
        for o in outs
    ]
    grads = [t.grad for t in leaves] + [p.grad for p in m.parameters()]
    return (
        [o.detach().numpy() for o in outs],
        [g.numpy() for g in grads],
        [g.stride() for g in grads],
        nodes,
    )


def _assert_same(new, old):
    for a, b in zip(new[0] + new[1], old[0] + old[1], strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    assert new[2] == old[2]
    assert new[3] == old[3]


CASES = [
    dict(),
    dict(batch_first=True),
    dict(bidirectional=True),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False),
]


@pytest.mark.parametrize("data_backward", [True, False])
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(kw) or "plain")
def test_layers_bit_identical_to_old_route(monkeypatch, old_route, kind, dtype, data_backward, kw):
    monkeypatch.setattr(engine, "DATA_BACKWARD", data_backward)
    new = _run(kind, dtype, **kw)
    old_route()
    _assert_same(new, _run(kind, dtype, **kw))


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize(
    "kind, kw",
    [
        ("LSTM", dict(proj_size=2)),
        ("LSTM", dict(proj_size=2, num_layers=2, bidirectional=True)),
        ("LSTM", dict(proj_size=2, batch_first=True)),
        ("RNN", dict(nonlinearity="relu", num_layers=2)),
    ],
)
def test_projection_and_relu_bit_identical_to_old_route(old_route, kind, dtype, kw):
    new = _run(kind, dtype, **kw)
    old_route()
    _assert_same(new, _run(kind, dtype, **kw))


@pytest.mark.parametrize("states", [True, False])
@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kw", [dict(), dict(bidirectional=True, num_layers=2, batch_first=True)])
def test_packed_bit_identical_to_old_route(old_route, kind, dtype, states, kw):
    new = _run(kind, dtype, packed=True, states=states, **kw)
    old_route()
    _assert_same(new, _run(kind, dtype, packed=True, states=states, **kw))


def test_no_initial_state_and_frozen_weights_bit_identical(old_route):
    def run():
        m = _make_module("GRU", mt.float32, num_layers=2)
        m.weight_hh_l0.requires_grad_(False)
        m.bias_hh_l1.requires_grad_(False)
        x = mt.tensor(np.random.RandomState(3).randn(4, 3, 3), dtype=mt.float32)
        x.requires_grad_()
        out, h = m(x)
        (out.sum() + (h * h).sum()).backward()
        return [out.detach().numpy(), x.grad.numpy()] + [
            p.grad.numpy() for p in m.parameters() if p.grad is not None
        ]

    new = run()
    old_route()
    old = run()
    assert len(new) == len(old) == 2 + 6
    for a, b in zip(new, old, strict=True):
        np.testing.assert_array_equal(a, b)


def test_gru_layer_uses_fused_step_and_one_transpose_per_direction(monkeypatch):
    calls = {"gates": 0, "t": 0}
    gates, tr = R._GRUGates.apply, TransposeT.apply

    def count(key, fn):
        def wrapped(*a):
            calls[key] += 1
            return fn(*a)

        return wrapped

    monkeypatch.setattr(R._GRUGates, "apply", count("gates", gates))
    monkeypatch.setattr(TransposeT, "apply", count("t", tr))
    m = _make_module("GRU", mt.float32, num_layers=2, bidirectional=True)
    x = mt.randn(5, 2, 3, requires_grad=True)
    out, h = m(x)
    assert calls["gates"] == 5 * 4  # 5 steps x 2 layers x 2 directions
    assert calls["t"] == 2 * 2 * 2  # W_ih (the input projection) and W_hh, per layer direction
    # the nodes next to the outputs are torch's: each step ends in an addition
    assert {f[0].name() for f in h.grad_fn.next_functions} == {"AddBackward0"}
    step = h.grad_fn.next_functions[0][0]
    assert [f[0].name() for f in step.next_functions] == ["_GRUGatesBackward0"] * 2


def test_lstm_layer_one_transpose_per_direction(monkeypatch):
    n = [0]
    tr = TransposeT.apply
    monkeypatch.setattr(TransposeT, "apply", lambda *a: n.__setitem__(0, n[0] + 1) or tr(*a))
    m = _make_module("LSTM", mt.float64, num_layers=2)
    m(mt.randn(6, 2, 3, dtype=mt.float64, requires_grad=True))
    assert n[0] == 2 * 2


def test_gru_no_grad_and_cells_unchanged(old_route):
    def run():
        m = _make_module("GRU", mt.float64, bidirectional=True)
        cell = _fill(mt.nn.GRUCell(3, 4), 2, mt.float64)
        x = mt.tensor(np.random.RandomState(4).randn(5, 2, 3))
        with mt.no_grad():
            out, h = m(x)
        c = cell(x[0].requires_grad_())
        assert out.grad_fn is None and c.grad_fn.name() == "AddBackward0"
        return out.numpy(), h.numpy(), c.detach().numpy()

    new = run()
    old_route()
    for a, b in zip(new, run(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_gru_second_backward_and_in_place_errors_as_old_route(old_route):
    def run(retain):
        m = _make_module("GRU", mt.float64)
        x = mt.tensor(np.random.RandomState(8).randn(3, 2, 3), requires_grad=True)
        out, _ = m(x)
        loss = out.sum()
        loss.backward(retain_graph=retain)
        try:
            loss.backward()
        except RuntimeError as e:
            return str(e)
        return x.grad.numpy().copy()

    new = [run(True), run(False)]
    old_route()
    old = [run(True), run(False)]
    np.testing.assert_array_equal(new[0], old[0])
    assert isinstance(new[1], str) and new[1] == old[1]

    def in_place():
        m = _make_module("GRU", mt.float64)
        x = mt.tensor(np.random.RandomState(9).randn(3, 2, 3), requires_grad=True)
        h0 = mt.zeros(1, 2, 4, dtype=mt.float64, requires_grad=True).clone()
        out, _ = m(x, h0)
        with mt.no_grad():
            h0.mul_(2)
        try:
            out.sum().backward()
        except RuntimeError as e:
            return str(e)
        return "no error"

    assert in_place() != "no error"
    old_route()
    assert in_place() == in_place()


def test_gru_create_graph_matches_old_route(old_route):
    def run():
        m = _make_module("GRU", mt.float64, num_layers=2)
        x = mt.tensor(np.random.RandomState(5).randn(4, 2, 3), requires_grad=True)
        out, h = m(x)
        (gx,) = mt.autograd.grad((out * out).sum() + h.sum(), x, create_graph=True)
        (ggx,) = mt.autograd.grad((gx * gx).sum(), x)
        return gx.detach().numpy(), ggx.numpy()

    new = run()
    old_route()
    old = run()
    np.testing.assert_allclose(new[0], old[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(new[1], old[1], rtol=1e-11, atol=1e-13)
    assert np.abs(new[1]).sum() > 0


def test_gru_gradcheck_and_gradgradcheck():
    mt.manual_seed(0)
    m = mt.nn.GRU(2, 3, bidirectional=True).double()
    x = mt.randn(3, 2, 2, dtype=mt.float64, requires_grad=True)
    h0 = mt.randn(2, 2, 3, dtype=mt.float64, requires_grad=True)

    def f(x, h0):
        return m(x, h0)

    assert mt.autograd.gradcheck(f, (x, h0))
    assert mt.autograd.gradgradcheck(f, (x, h0))


def test_gates_node_gradcheck_alone():
    rs = np.random.RandomState(6)
    hw = mt.tensor(rs.randn(2, 6), requires_grad=True)
    xw = mt.tensor(rs.randn(2, 6), requires_grad=True)
    h = mt.tensor(rs.randn(2, 2), requires_grad=True)
    assert mt.autograd.gradcheck(lambda *a: R._GRUGates.apply(*a), (hw, xw, h))
    assert mt.autograd.gradgradcheck(lambda *a: R._GRUGates.apply(*a), (hw, xw, h))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_layers_on_device_match_cpu(device, kind):
    def run(dev):
        m = _make_module(kind, mt.float32, num_layers=2, bidirectional=True).to(dev)
        x = mt.tensor(np.random.RandomState(7).randn(4, 2, 3), dtype=mt.float32, device=dev)
        x.requires_grad_()
        out, h = m(x)
        h = h[0] if isinstance(h, tuple) else h
        (out.sum() + (h * h).sum()).backward()
        return [out.detach(), x.grad, m.weight_hh_l0.grad, m.bias_hh_l1_reverse.grad]

    got, want = run(device), run("cpu")
    assert got[0].device == mt.device(device)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data_backward", [True, False])
@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_frozen_parts_and_column_major_state_bit_identical(
    monkeypatch, old_route, kind, data_backward
):
    """W_hh frozen, b_hh frozen, an input needing no grad, h_0 column-major (its first step
    takes the laid addmm, unfused) and needing no grad."""
    monkeypatch.setattr(engine, "DATA_BACKWARD", data_backward)

    def run(case):
        m = _make_module(kind, mt.float64, num_layers=2)
        rs = np.random.RandomState(10)
        x = mt.tensor(rs.randn(4, 3, 3), requires_grad=case != 2)
        h0 = mt.tensor(rs.randn(2, 4, 3)).transpose(1, 2)  # (2, 3, 4), each h_0[k] col-major
        if case == 0:
            m.weight_hh_l0.requires_grad_(False)
        elif case == 1:
            m.bias_hh_l1.requires_grad_(False)
        hx = (h0, mt.tensor(rs.randn(2, 3, 4))) if kind == "LSTM" else h0
        out, hn = m(x, hx)
        hn = hn[0] if kind == "LSTM" else hn
        (out * out).sum().add(hn.sum()).backward()
        grads = [p.grad for p in m.parameters()] + [x.grad]
        return [out.detach().numpy()] + [g.numpy() for g in grads if g is not None]

    for case in range(3):
        new = run(case)
        old_route()
        old = run(case)
        R._HOIST[0] = True
        monkeypatch.setattr(R, "_GRU_FUSED_DTYPES", (mt.float32, mt.float64))
        assert len(new) == len(old) >= 8
        for a, b in zip(new, old, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_fused_steps_compute_the_hidden_projection(monkeypatch, kind):
    """One addmm node per layer direction (the input projection): the steps' own are inside
    their gates nodes. (The composed route: a float32 LSTM layer direction is one node, with
    no addmm node at all, unless the switch sends it there.)"""
    from minitorch._ops import nn_kernels

    monkeypatch.setattr(R, "_ONE_NODE", [False])
    n = [0]
    apply = nn_kernels.Linear.apply
    monkeypatch.setattr(
        nn_kernels.Linear, "apply", lambda *a: n.__setitem__(0, n[0] + 1) or apply(*a)
    )
    m = _make_module(kind, mt.float32, bidirectional=True)
    x = mt.tensor(np.random.RandomState(11).randn(6, 2, 3), dtype=mt.float32)
    m(x.requires_grad_())
    assert n[0] == 2


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_create_graph_with_state_needing_no_grad(old_route, kind):
    def run():
        m = _make_module(kind, mt.float64, bidirectional=True)
        x = mt.tensor(np.random.RandomState(12).randn(4, 2, 3), requires_grad=True)
        out, _ = m(x)
        (gx,) = mt.autograd.grad((out * out).sum(), x, create_graph=True)
        gw = mt.autograd.grad((gx * gx).sum(), [x, m.weight_hh_l0, m.bias_hh_l0_reverse])
        return [gx.detach().numpy()] + [g.numpy() for g in gw]

    new = run()
    old_route()
    for a, b in zip(new, run(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-13)


def test_lstm_gradcheck_and_gradgradcheck_weights():
    rs = np.random.RandomState(13)
    m = _make_module("LSTM", mt.float64)
    x = mt.tensor(rs.randn(3, 2, 3), requires_grad=True)
    w_hh, b_hh = m.weight_hh_l0, m.bias_hh_l0

    def f(x, w, b):
        out, (h, c) = mt.func.functional_call(m, {"weight_hh_l0": w, "bias_hh_l0": b}, (x,))
        return out, c

    args = (x, w_hh.detach().clone().requires_grad_(), b_hh.detach().clone().requires_grad_())
    assert mt.autograd.gradcheck(f, args)
    assert mt.autograd.gradgradcheck(f, args)


def test_gru_steps_fused_by_default(monkeypatch):
    monkeypatch.setattr(R, "_GRU_FUSED_DTYPES", _DEFAULT_GRU)
    assert _DEFAULT_GRU == (mt.float32, mt.float64)
    m = _make_module("GRU", mt.float32)
    out, h = m(
        mt.tensor(np.random.RandomState(14).randn(3, 2, 3), dtype=mt.float32).requires_grad_()
    )
    step = h.grad_fn.next_functions[0][0]
    assert step.name() == "AddBackward0"  # each step's last addition is torch's node
    calls = []
    monkeypatch.setattr(R._GRUGates, "apply", _counting(R._GRUGates.apply, calls))
    m(mt.tensor(np.random.RandomState(14).randn(3, 2, 3), dtype=mt.float32).requires_grad_())
    assert len(calls) == 3  # one fused node per step
    monkeypatch.setattr(R, "_GRU_FUSED_DTYPES", ())  # composed: torch's generic kernel's nodes
    out, h = m(
        mt.tensor(np.random.RandomState(14).randn(3, 2, 3), dtype=mt.float32).requires_grad_()
    )
    step = h.grad_fn.next_functions[0][0]
    assert [f[0].name() for f in step.next_functions] == ["MulBackward0", "TanhBackward0"]


def _counting(fn, calls):
    def counted(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    return counted


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_flop_counter_counts_the_steps_products(old_route, kind):
    from minitorch.utils.flop_counter import FlopCounterMode

    def run():
        m = _make_module(kind, mt.float64, num_layers=2)
        x = mt.tensor(np.random.RandomState(15).randn(4, 2, 3), requires_grad=True)
        with FlopCounterMode(display=False) as fc:
            out, _ = m(x)
            out.sum().backward()
        return fc.get_total_flops(), x.grad.numpy()

    new = run()
    old_route()
    old = run()
    assert new[0] == old[0] > 0
    np.testing.assert_array_equal(new[1], old[1])
