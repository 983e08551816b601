"""Session 48, lead: the recorded fast path (NOTE [ The recorded fast path ] in
minitorch/autograd/function.py). Where a node is recorded, the arithmetic operators, the common
unary functions and a full sum make their node and result without Function.apply; each must
give what the full path (the fast paths' switch off, as a profile) gives, bit for bit: values,
strides, node class, edges, input metadata, saved values and their version checks, first and
second order gradients, errors. Each test also checks that the route it means was taken, so
that it fails if the route is gone."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import pointwise, reduction
from minitorch.autograd import function
from tests._fastpath import error_of, full_path
from tests.test_s46_loss import compare, randn

BINARY = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / b,
    "torch.mul": lambda a, b: torch.mul(a, b),
    "torch.add": lambda a, b: torch.add(a, b),
    "torch.sub": lambda a, b: torch.sub(a, b),
    "torch.div": lambda a, b: torch.div(a, b),
}
NUMBER = {
    "x * 2": lambda a: a * 2,
    "2.5 * x": lambda a: 2.5 * a,
    "x + 1": lambda a: a + 1,
    "1.5 + x": lambda a: 1.5 + a,
    "x - 3": lambda a: a - 3,
    "x - 0.25": lambda a: a - 0.25,
    "x / 3": lambda a: a / 3,
    "x / 0.5": lambda a: a / 0.5,
    "x * -7": lambda a: torch.mul(a, -7),
}
UNARY = {
    "exp": lambda a: a.exp(),
    "log": lambda a: a.abs().log(),
    "sqrt": lambda a: a.abs().sqrt(),
    "tanh": lambda a: torch.tanh(a),
    "sigmoid": lambda a: torch.sigmoid(a),
    "sum": lambda a: a.sum(),
    "neg": lambda a: -a,
    "torch.neg": lambda a: torch.neg(a),
    "x ** 2": lambda a: a**2,
    "x ** 0.5": lambda a: a.abs() ** 0.5,
    "x ** -1": lambda a: torch.pow(a, -1),
    "x ** 3.0": lambda a: a.pow(3.0),
    "x ** 0": lambda a: a**0,
    "torch.sum": lambda a: torch.sum(a),
}
DTYPES = (torch.float32, torch.float64)
SHAPES = (((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)), ((), ()), ((2, 3), ()))


class _Counted:
    """Counts the calls of record_pair and record_unary where the op functions call them."""

    def __init__(self, monkeypatch):
        self.calls = []
        for mod in (pointwise, reduction):
            for name in ("record_pair", "record_unary"):
                if hasattr(mod, name):
                    orig = getattr(function, name)
                    monkeypatch.setattr(mod, name, self._wrap(name, orig))

    def _wrap(self, name, orig):
        def spy(*args, **kwargs):
            self.calls.append(name)
            return orig(*args, **kwargs)

        return spy


def _node_state(t):
    """What a recorded result's node holds: class, edges, input metadata, needs_input_grad,
    saved entries (an input by its node and bits, the result by identity, a number) and the
    extra attributes (sum's)."""
    node = t.grad_fn
    edges = tuple(None if e is None else (type(e[0]).__name__, e[1]) for e in node._next)
    saved = []
    for entry in node._saved if node._saved.__class__ is tuple else ():
        if entry is None:
            saved.append(None)
            continue
        kind, obj, vc, version, nr = entry
        if kind == "out":
            saved.append((kind, obj is t._data, vc is t._vc, version, nr))
        elif kind == "in":
            role = type(obj.grad_fn).__name__, obj._data.tobytes(), obj._data.strides
            saved.append((kind, role, vc is obj._vc, version, nr))
        else:
            saved.append((kind, obj, type(obj).__name__, version, nr))
    extra = {k: v for k, v in node.__dict__.items()}
    return (
        type(node).__name__,
        edges,
        node._in_meta,
        node.needs_input_grad,
        tuple(saved),
        node._saved is function._NOTHING,
        extra,
        node.xp,
        node._out_device,
        t._data.__class__,
        t._data.strides,
    )


def _both_states(fn):
    fast = fn()
    with full_path():
        full = fn()
    return _node_state(fast), _node_state(full)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_recorded_binary_matches_the_full_path(name, needs, shapes, dtype, monkeypatch):
    fn = BINARY[name]
    a = randn(*shapes[0], dtype=dtype, seed=1).requires_grad_(needs[0])
    b = (randn(*shapes[1], dtype=dtype, seed=2) + 5).requires_grad_(needs[1])
    counted = _Counted(monkeypatch)
    res = compare(fn, (a, b))
    assert counted.calls[0] == "record_pair"  # the first call is the fast route's
    assert res["graph"][0] == name.split(".")[-1].capitalize() + "Backward0"
    fast, full = _both_states(lambda: fn(a, b))
    assert fast == full


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(NUMBER))
def test_recorded_number_operand_matches_the_full_path(name, dtype, monkeypatch):
    fn = NUMBER[name]
    a = randn(3, 5, dtype=dtype).requires_grad_()
    counted = _Counted(monkeypatch)
    compare(fn, (a,))
    assert counted.calls[0] == "record_pair"
    fast, full = _both_states(lambda: fn(a))
    assert fast == full
    # the saved number is the one given, of its type (grad_fn._saved_other)
    for entry in fn(a).grad_fn._saved if fn(a).grad_fn._saved.__class__ is tuple else ():
        if entry is not None and entry[0] == "const":
            assert type(entry[1]) in (int, float)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (), (2, 0, 3), (7,)], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_recorded_unary_matches_the_full_path(name, shape, dtype, monkeypatch):
    fn = UNARY[name]
    a = (randn(*shape, dtype=dtype) + 0.5).requires_grad_()
    counted = _Counted(monkeypatch)
    compare(fn, (a,))
    assert "record_unary" in counted.calls
    fast, full = _both_states(lambda: fn(a))
    assert fast == full


def test_recorded_results_of_zero_dim_inputs_are_arrays():
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(3.0, requires_grad=True)
    for t in (a * b, a + 1, a.exp(), (a * b).sum(), a / b):
        assert t._data.__class__ is np.ndarray and t.shape == ()
        assert t.grad_fn is not None


def test_recorded_half_pairs_match_the_full_path():
    for dtype in (torch.float16, torch.bfloat16):
        a = randn(3, 4).to(dtype).requires_grad_()
        b = (randn(3, 4, seed=5) + 3).to(dtype).requires_grad_()
        for fn in (BINARY["mul"], BINARY["add"], BINARY["div"], BINARY["sub"]):
            fast, full = _both_states(lambda fn=fn, a=a, b=b: fn(a, b))
            assert fast == full, dtype
            x, y = fn(a, b), None
            with full_path():
                y = fn(a, b)
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(
                x.detach().numpy().view(np.uint8), y.detach().numpy().view(np.uint8)
            )
    # a half tensor and a number keep the full path (the number is rounded first)
    h = randn(3).half().requires_grad_()
    fast, full = _both_states(lambda: h * 0.1)
    assert fast == full


def test_broadcast_errors_are_the_full_paths():
    a = randn(3, 4).requires_grad_()
    b = randn(5).requires_grad_()
    for fn in BINARY.values():
        fast = error_of(lambda fn=fn: fn(a, b))
        with full_path():
            full = error_of(lambda fn=fn: fn(a, b))
        assert fast == full
        assert fast[0] is RuntimeError and "must match the size" in fast[1]


def test_saved_operands_are_version_checked():
    a = randn(3).requires_grad_()
    b = randn(3, seed=4)  # needs no grad: saved for a's gradient, then changed in place
    y = a * b
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    t = a.exp()  # the saved result, changed in place
    t.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        t.sum().backward()
    # the number operand is a constant: nothing to check
    z = a / 3
    z.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(3, 1 / 3, np.float32), rtol=1e-6)


def test_inference_tensor_saved_for_backward_is_refused_as_on_the_full_path():
    with torch.inference_mode():
        c = torch.ones(3)
    a = randn(3).requires_grad_()
    fast = error_of(lambda: a * c)
    with full_path():
        full = error_of(lambda: a * c)
    assert fast == full and fast[0] is RuntimeError
    # an op that saves nothing of it records as before
    assert (a + c).grad_fn is not None


def test_saved_tensor_hooks_take_the_full_path(monkeypatch):
    a = randn(3).requires_grad_()
    b = randn(3, seed=3).requires_grad_()
    packed = []

    def pack(t):
        packed.append(t)
        return t

    counted = _Counted(monkeypatch)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        (a * b).exp().sum().backward()
    assert counted.calls == []  # the full path, whose nodes pack their saved tensors
    assert len(packed) == 3  # a, b and exp's result
    np.testing.assert_allclose(a.grad.numpy(), (b * (a * b).exp()).detach().numpy())


def test_anomaly_mode_records_the_creation_trace_on_the_fast_path():
    a = randn(3).requires_grad_()
    with torch.autograd.detect_anomaly(check_nan=False):
        y = a * 2
        z = y.exp()
    for t in (y, z):
        trace = t.grad_fn.metadata["traceback_"]
        assert any("test_s48_lead.py" in line for line in trace)


def test_a_view_whose_base_changed_gets_its_regenerated_node():
    for fn in (lambda v: v * 2, lambda v: v.exp(), lambda v: v + v):
        base = randn(4).requires_grad_().clone()
        v = base[1:3]
        base.mul_(3)  # v's history is now through the in-place op
        y = fn(v)
        with full_path():
            base2 = randn(4).requires_grad_().clone()
            v2 = base2[1:3]
            base2.mul_(3)
            y2 = fn(v2)
        assert type(y.grad_fn._next[0][0]).__name__ == type(y2.grad_fn._next[0][0]).__name__
        assert type(v.grad_fn).__name__ == "AsStridedBackward0"


def test_no_grad_and_plain_operands_take_no_node():
    a = randn(3).requires_grad_()
    b = randn(3)
    with torch.no_grad():
        for t in (a * b, a + 1, a.exp(), a.sum()):
            assert t.grad_fn is None and not t.requires_grad
    for t in (b * b, b + 1, b.exp(), b.sum()):
        assert t.grad_fn is None and not t.requires_grad
    # grad mode on, one input requiring grad: a node with one edge
    y = b * a
    assert y.grad_fn._next[0] is None and y.grad_fn.needs_input_grad == (False, True)


def test_profile_sees_the_ops_of_the_fast_path():
    a = randn(3).requires_grad_()
    with torch.profiler.profile() as prof:
        (a * 2).exp().sum()
    assert [e.name for e in prof.events()] == ["Mul", "Exp", "Sum"]


def test_sum_of_all_node_keeps_the_input_shape():
    a = randn(2, 3).requires_grad_()
    s = a.sum()
    assert s.grad_fn._saved_self_sym_sizes == (2, 3)
    s.backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3), np.float32))
    # a sum over a dim still takes its own route, recorded
    assert type(a.sum(1).grad_fn).__name__ == "SumBackward1"


def test_a_long_recorded_chain_frees_its_graph():
    import gc
    import weakref

    x = randn(8).requires_grad_()
    y = x
    for _ in range(50):
        y = (y * 0.5 + x).tanh()
    ref = weakref.ref(y.grad_fn)
    y.sum().backward()
    del y
    gc.collect()
    assert ref() is None
    assert x.grad is not None and np.isfinite(x.grad.numpy()).all()


def test_alpha_of_zero_dim_tensors_leaves_an_array():
    a = torch.tensor(1.0)
    b = torch.tensor(2.0)
    for on in (True, False):
        function.fast_path[0] = on
        try:
            y = torch.add(a, b, alpha=2)
            z = torch.sub(a.requires_grad_(), b, alpha=3)
        finally:
            function.fast_path[0] = True
        assert y._data.__class__ is np.ndarray and z._data.__class__ is np.ndarray
        y.add_(1)
        z.detach().mul_(2)
        assert y.item() == 6.0 and z.item() == -10.0
        a = a.detach()


def test_saved_number_beyond_int64_is_an_unsigned_tensor():
    x = torch.ones(2, requires_grad=True)
    v = (x * 2**63).grad_fn._saved_other
    assert v.dtype is torch.uint64 and v.tolist() == 2**63
    assert (x * 5).grad_fn._saved_other.dtype is torch.int64
