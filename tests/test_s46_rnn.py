"""Session 46, rnn: a float32 LSTM layer direction is one node (_functional_rnn._LSTMLayer,
MkldnnRnnLayerBackward0) that runs its steps on arrays, instead of the recorded fused steps
folded into a composite node of that name. The folded route stays reachable
(_functional_rnn._ONE_NODE[0] = False): these tests compare the two bit for bit (values,
first-order gradients and their strides, the nodes next to the outputs, errors), check the new
node is the one that runs (so they fail on the old code), and check its gradients with
gradcheck/gradgradcheck in float64 (the Function itself, whose route is float32 only)."""

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import engine
from minitorch.nn import _functional_rnn as R
from minitorch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


@pytest.fixture
def folded():
    """A function that switches the float32 LSTM layers to the folded route (the old one)."""

    def switch(on=True):
        R._ONE_NODE[0] = not on

    try:
        yield switch
    finally:
        R._ONE_NODE[0] = True


def _module(seed=1, **kw):
    m = mt.nn.LSTM(3, 4, **kw)
    rs = np.random.RandomState(seed)
    with mt.no_grad():
        for p in m.parameters():
            p.copy_(mt.tensor(rs.uniform(-0.6, 0.6, tuple(p.shape))))
    return m


def _run(*, seed=0, packed=False, states=True, uses=(0, 1, 2), frozen=(), x_grad=True, **kw):
    """Outputs, gradients of the leaves (with their strides), the nodes next to the outputs and
    the type of the output's node, for a fresh module and input built from seed. uses: which of
    out, h_n, c_n the loss reads; frozen: parameter names that need no grad."""
    mt.manual_seed(seed)  # (dropout between layers)
    m = _module(**kw)
    for name in frozen:
        getattr(m, name).requires_grad_(False)
    rs = np.random.RandomState(seed)
    batch_first = kw.get("batch_first", False)
    dirs = 2 if kw.get("bidirectional") else 1
    layers = kw.get("num_layers", 1)
    x = mt.tensor(rs.randn(*((2, 5, 3) if batch_first else (5, 2, 3))), dtype=mt.float32)
    x.requires_grad_(x_grad)
    leaves = [x] if x_grad else []
    hx = None
    if states:
        h0 = mt.tensor(rs.randn(layers * dirs, 2, kw.get("proj_size") or 4), dtype=mt.float32)
        c0 = mt.tensor(rs.randn(layers * dirs, 2, 4), dtype=mt.float32, requires_grad=True)
        h0.requires_grad_(states != "c")
        leaves += [h0, c0] if states != "c" else [c0]
        hx = (h0, c0)
    inp = pack_padded_sequence(x, [5, 3], batch_first=batch_first) if packed else x
    out, (hn, cn) = m(inp, hx)
    if packed:
        out = pad_packed_sequence(out, batch_first=batch_first)[0]
    outs = [out, hn, cn]
    w = [mt.tensor(rs.randn(*o.shape), dtype=mt.float32) for o in outs]
    loss = sum((outs[i] * w[i]).sum() for i in uses)
    loss.backward()
    grads = [t.grad for t in leaves] + [p.grad for p in m.parameters() if p.requires_grad]
    nodes = [
        (o.grad_fn.name(), [f[0].name() if f[0] else None for f in o.grad_fn.next_functions])
        for o in outs
    ]
    layer_fns, seen, todo = set(), set(), [out.grad_fn]
    while todo:  # the layers' nodes: their Function (None for the folded composite)
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node.name() == "MkldnnRnnLayerBackward0":
            layer_fns.add(getattr(node, "_fn", None))
        todo.extend(f for f, _ in node.next_functions)
    return (
        [o.detach().numpy() for o in outs],
        [g.numpy() for g in grads],
        [g.stride() for g in grads],
        nodes,
        len(seen),
        layer_fns,
    )


def _assert_same(new, old):
    assert len(new[1]) == len(old[1])
    for a, b in zip(new[0] + new[1], old[0] + old[1], strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()  # every bit, the sign of zeros included
    assert new[2] == old[2]
    assert new[3] == old[3]
    assert new[4] == old[4]  # as many nodes in the graph (the composite hides its steps)


CASES = [
    dict(),
    dict(batch_first=True),
    dict(bidirectional=True),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True, batch_first=True, dropout=0.4),
    dict(bias=False),
    dict(states=False),
    dict(states="c"),
    dict(uses=(0,)),
    dict(uses=(1,)),
    dict(uses=(2,)),
    dict(uses=(1, 2), bidirectional=True),
    dict(x_grad=False, frozen=("weight_ih_l0",)),
    dict(frozen=("weight_hh_l0", "bias_ih_l0")),
    dict(frozen=("bias_hh_l0", "weight_ih_l0"), x_grad=False, num_layers=2),
]


@pytest.mark.parametrize("data_backward", [True, False])
@pytest.mark.parametrize("case", CASES, ids=lambda kw: "-".join(f"{k}{v}" for k, v in kw.items()))
def test_one_node_bit_identical_to_folded_steps(monkeypatch, folded, case, data_backward):
    monkeypatch.setattr(engine, "DATA_BACKWARD", data_backward)
    new = _run(**case)
    assert new[5] == {R._LSTMLayer}  # the new node runs (the folded one is a composite)
    folded()
    old = _run(**case)
    assert R._LSTMLayer not in old[5] and len(old[5]) == 1
    _assert_same(new, old)


@pytest.mark.parametrize(
    "case", [dict(packed=True), dict(proj_size=2), dict(packed=True, bidirectional=True)]
)
def test_packed_and_projections_keep_the_composed_steps(folded, case):
    new = _run(**case)
    assert new[5] == set()  # (the steps: torch's generic kernel's graph)
    folded()
    _assert_same(new, _run(**case))


def test_one_apply_per_layer_direction_and_no_step_nodes(monkeypatch):
    calls = {"layer": 0, "gates": 0}
    layer, gates = R._LSTMLayer.apply, R._LSTMGates.apply

    def count(key, fn):
        def wrapped(*a, **k):
            calls[key] += 1
            return fn(*a, **k)

        return wrapped

    monkeypatch.setattr(R._LSTMLayer, "apply", count("layer", layer))
    monkeypatch.setattr(R._LSTMGates, "apply", count("gates", gates))
    m = _module(num_layers=2, bidirectional=True)
    out, (h, c) = m(mt.randn(6, 2, 3, requires_grad=True))
    assert calls == {"layer": 4, "gates": 0}
    node = out.grad_fn.next_functions[0][0]
    assert node.name() == "MkldnnRnnLayerBackward0"
    assert node.next_functions[1][0].variable is m.weight_ih_l1
    assert node.next_functions[0][0].name() == "CatBackward0"  # the first layer's directions
    assert h.grad_fn.next_functions[0] == (
        out.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0],
        1,
    )
    assert c.grad_fn.next_functions[3][1] == 2
    with mt.no_grad():
        o2, _ = m(mt.randn(6, 2, 3))
    assert o2.grad_fn is None and calls["layer"] == 8


def test_no_grad_and_inference_values_bit_identical(folded):
    def run():
        m = _module(num_layers=2, bidirectional=True, batch_first=True)
        x = mt.tensor(np.random.RandomState(4).randn(2, 5, 3), dtype=mt.float32)
        with mt.no_grad():
            a = m(x)
        with mt.inference_mode():
            b = m(x)
        c = m(x)  # nothing requires grad but the parameters
        return [t.detach().numpy() for t in (a[0], *a[1], b[0], *b[1], c[0], *c[1])]

    new = run()
    folded()
    for a, b in zip(new, run(), strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize(
    "which, shape, desc, versions",
    [
        ("x", [5, 2, 3], ", which is output 0 of Mul,", (1, 0)),
        ("weight_ih_l0", [16, 3], "", (2, 1)),
        ("weight_hh_l0", [16, 4], "", (2, 1)),
        ("bias_ih_l0", [16], "", (2, 1)),
        ("bias_hh_l0", [16], "", (2, 1)),
        ("h0", [2, 4], ", which is output 0 of AsStrided,", (1, 0)),
        ("c0", [2, 4], ", which is output 0 of AsStrided,", (1, 0)),
    ],
)
def test_in_place_change_of_a_saved_tensor_raises_torchs_error(which, shape, desc, versions):
    """The node saves torch's seven tensors (the folded steps saved views, and no bias)."""
    mt.manual_seed(2)
    m = mt.nn.LSTM(3, 4)
    x = mt.randn(5, 2, 3, requires_grad=True) * 1
    h0 = mt.randn(1, 2, 4, requires_grad=True) * 1
    c0 = mt.randn(1, 2, 4, requires_grad=True) * 1
    out, (h, c) = m(x, (h0, c0))
    t = {"x": x, "h0": h0, "c0": c0}.get(which)
    with mt.no_grad():
        (getattr(m, which) if t is None else t).add_(1)
    with pytest.raises(RuntimeError) as info:
        (out.sum() + c.sum()).backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [torch.FloatTensor {shape}]{desc} is at version {versions[0]}; expected "
        f"version {versions[1]} instead. Hint:"
    )


def test_second_backward_and_retain_graph_as_folded(folded):
    def run(retain):
        m = _module()
        x = mt.tensor(np.random.RandomState(8).randn(3, 2, 3), dtype=mt.float32)
        x.requires_grad_()
        out, _ = m(x)
        loss = out.sum()
        loss.backward(retain_graph=retain)
        try:
            loss.backward()
        except RuntimeError as e:
            return str(e)
        return x.grad.numpy().copy()

    new = [run(True), run(False)]
    folded()
    old = [run(True), run(False)]
    assert new[0].tobytes() == old[0].tobytes()
    assert isinstance(new[1], str) and new[1] == old[1]


def test_create_graph_first_order_bits_and_second_order_close(folded):
    def run():
        m = _module(num_layers=2, bidirectional=True)
        x = mt.tensor(np.random.RandomState(5).randn(4, 2, 3), dtype=mt.float32)
        x.requires_grad_()
        out, (h, c) = m(x)
        loss = (out * out).sum() + c.sum()
        gx, gw = mt.autograd.grad(loss, [x, m.weight_hh_l0], create_graph=True)
        gg = mt.autograd.grad((gx * gx).sum() + gw.sum(), [x, m.weight_ih_l1, m.bias_hh_l0])
        return [gx.detach().numpy(), gw.detach().numpy()], [g.numpy() for g in gg]

    new = run()
    folded()
    old = run()
    for a, b in zip(new[0], old[0], strict=True):
        assert a.tobytes() == b.tobytes()  # the composite's walk of the same steps
    for a, b in zip(new[1], old[1], strict=True):  # (summed in another order: an ulp or so)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert np.abs(a).sum() > 0


def test_anomaly_mode_and_autograd_grad_bits(folded):
    def run():
        m = _module(bidirectional=True)
        x = mt.tensor(np.random.RandomState(6).randn(4, 2, 3), dtype=mt.float32)
        x.requires_grad_()
        with pytest.warns(UserWarning, match="Anomaly Detection"), mt.autograd.detect_anomaly():
            out, (h, c) = m(x)
            (out.sum() + h.sum()).backward()
        out, (h, c) = m(x)
        g = mt.autograd.grad((out * out).sum(), [x, m.weight_hh_l0_reverse])
        return [x.grad.numpy(), m.weight_ih_l0.grad.numpy()] + [t.numpy() for t in g]

    new = run()
    folded()
    for a, b in zip(new, run(), strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("reverse, bias", [(False, True), (True, False)])
def test_layer_node_gradcheck_and_gradgradcheck_float64(reverse, bias):
    rs = np.random.RandomState(7)

    def t(*shape):
        return mt.tensor(rs.uniform(-0.8, 0.8, shape), dtype=mt.float64, requires_grad=True)

    args = [t(3, 2, 2), t(8, 2), t(8, 2), t(8) if bias else None, t(8) if bias else None]
    args += [t(2, 2), t(2, 2)]
    tensors = [a for a in args if a is not None]

    def f(*ts):
        it = iter(ts)
        full = [None if a is None else next(it) for a in args]
        return R._LSTMLayer.apply(*full, reverse=reverse)

    assert type(f(*tensors)[0].grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    assert mt.autograd.gradcheck(f, tensors)
    assert mt.autograd.gradgradcheck(f, tensors)


def test_column_major_state_and_weight_take_the_folded_steps(folded):
    def run():
        m = _module()
        with mt.no_grad():
            m.weight_hh_l0.set_(m.weight_hh_l0.detach().t().contiguous().t())
        rs = np.random.RandomState(9)
        x = mt.tensor(rs.randn(4, 3, 3), dtype=mt.float32, requires_grad=True)
        h0 = mt.tensor(rs.randn(1, 4, 3), dtype=mt.float32).transpose(1, 2)
        c0 = mt.tensor(rs.randn(1, 3, 4), dtype=mt.float32)
        out, (h, c) = m(x, (h0, c0))
        (out * out).sum().backward()
        return out, [out.detach().numpy(), x.grad.numpy(), m.weight_hh_l0.grad.numpy()]

    out, new = run()
    assert out.grad_fn._fn is not R._LSTMLayer
    folded()
    for a, b in zip(new, run()[1], strict=True):
        assert a.tobytes() == b.tobytes()


def test_layers_on_device_match_cpu_without_host_transfers(device):
    from minitorch._backend.strict import count_transfers

    def run(dev):
        m = _module(num_layers=2, bidirectional=True).to(dev)
        x = mt.tensor(np.random.RandomState(7).randn(4, 2, 3), dtype=mt.float32, device=dev)
        x.requires_grad_()
        with count_transfers() as n:
            out, (h, c) = m(x)
            (out.sum() + (c * c).sum()).backward()
        assert out.grad_fn.next_functions[0][0].name() == "MkldnnRnnLayerBackward0"
        return n, [out.detach(), x.grad, m.weight_hh_l0.grad, m.bias_hh_l1_reverse.grad]

    n, got = run(device)
    if device == "strict":
        assert n.count == 0
    _, want = run("cpu")
    assert got[0].device == mt.device(device)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
