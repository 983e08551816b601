"""Session 48, helper "mlp": the ops of a hand-written MLP step on the recorded fast path (NOTE
[ The recorded fast path ] in minitorch/autograd/function.py). Where a node is recorded, a
product of two matrices (x @ w, torch.matmul, torch.mm), torch.relu, x.logsumexp(d), x.mean()
and x.mean(d), and x[key] with index tensors (logits[arange(n), y]) make their node and result
with record_pair / record_unary; each must give what the full path (the fast paths' switch off,
as a profile) gives, bit for bit: values, strides, node class, edges, input metadata, saved
values and their version checks, the attributes kept on the node, first and second order
gradients, errors. Also: the optimizer update p -= lr * p.grad writes in place on its own
short route (_fast_inplace), arange(n) skips the general argument handling, and a mean's
no-grad path calls the kernel Mean.forward calls. Each test checks that the route it means was
taken, so that it fails if the route is gone."""

import numpy as np
import pytest

import minitorch as torch
from minitorch import _ranges
from minitorch._ops import indexing, inplace, linalg, pointwise, reduction
from minitorch._ops._index_key import IndexPlan
from minitorch.autograd import function
from tests._fastpath import both, error_of, full_path
from tests.test_s46_loss import compare, randn, same_array

DTYPES = (torch.float32, torch.float64)


class _Counted:
    """The Function classes record_pair and record_unary were called for, where the MLP's op
    functions call them."""

    def __init__(self, monkeypatch):
        self.calls = []
        for mod, name in (
            (linalg, "record_pair"),
            (pointwise, "record_unary"),
            (reduction, "record_unary"),
            (indexing, "record_unary"),
        ):
            monkeypatch.setattr(mod, name, self._wrap(getattr(function, name)))

    def _wrap(self, orig):
        def spy(fn, *args, **kwargs):
            self.calls.append(fn.__name__)
            return orig(fn, *args, **kwargs)

        return spy


def _plain(v):
    """A node attribute's value in a comparable form: arrays by their bits and layout, tensors
    by identity (the same inputs and keys go to both paths), plans by what they hold."""
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.strides, v.tobytes())
    if isinstance(v, torch.Tensor):
        return ("tensor", id(v))
    if isinstance(v, IndexPlan):
        return ("plan", *[_plain(getattr(v, s)) for s in IndexPlan.__slots__])
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, *[_plain(x) for x in v])
    if isinstance(v, slice):
        return ("slice", v.start, v.stop, v.step)
    return v


def _node_state(t):
    """What a recorded result and its node hold: class, edges, input metadata, needs_input_grad,
    saved entries (an input by identity, the result by identity, a number), the attributes kept
    on the node (its __dict__: Mm's flags, a reduction's shape and dims, an index's plan, key
    and watched index tensors), and the result's array, version, base and flags."""
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
            saved.append((kind, id(obj), vc is obj._vc, version, nr))
        else:
            saved.append((kind, obj, type(obj).__name__, version, nr))
    return {
        "node": type(node).__name__,
        "edges": edges,
        "meta": node._in_meta,
        "needs": node.needs_input_grad,
        "saved": tuple(saved),
        "nothing": node._saved is function._NOTHING,
        "saved_type": type(node._saved).__name__,
        "to_save": node._to_save,
        "dict": {k: _plain(v) for k, v in node.__dict__.items()},
        "xp": node.xp,
        "device": node._out_device,
        "array": _plain(t._data),
        "class": t._data.__class__,
        "version": t._vc[0],
        "base": t._base,
        "flags": (t.requires_grad, t.is_leaf, t._grad),
    }


def _both_states(fn):
    fast = fn()
    with full_path():
        full = fn()
    return _node_state(fast), _node_state(full)


def _same_error(fn):
    fast = error_of(fn)
    with full_path():
        full = error_of(fn)
    assert fast == full
    return fast


# --- products ---

PRODUCTS = {
    "@": lambda a, b: a @ b,
    "matmul": lambda a, b: torch.matmul(a, b),
    "mm": lambda a, b: torch.mm(a, b),
    "Tensor.mm": lambda a, b: a.mm(b),
}
MM_SHAPES = (
    ((3, 4), (4, 5)),
    ((1, 4), (4, 1)),
    ((3, 1), (1, 5)),  # inner size 1: _product's matmul, not dot
    ((0, 4), (4, 3)),
    ((4, 0), (0, 3)),
    ((70, 64), (64, 70)),  # operands of 4096+ elements: _product
)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", MM_SHAPES, ids=str)
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_recorded_product_matches_the_full_path(name, needs, shapes, dtype, monkeypatch):
    fn = PRODUCTS[name]
    a = randn(*shapes[0], dtype=dtype, seed=1).requires_grad_(needs[0])
    b = randn(*shapes[1], dtype=dtype, seed=2).requires_grad_(needs[1])
    counted = _Counted(monkeypatch)
    res = compare(fn, (a, b))
    assert counted.calls[0] == "Mm"  # the first call is the fast route's
    assert res["graph"][0] == "MmBackward0"
    fast, full = _both_states(lambda: fn(a, b))
    assert fast == full
    # ta, tb and cols are the node class's defaults (Mm._node_defaults), set by neither path
    assert not {"ta", "tb", "cols"} & (set(fast["dict"]) | set(full["dict"]))
    node = fn(a, b).grad_fn
    assert (node.ta, node.tb, node.cols) == (False, False, (False, False))


@pytest.mark.parametrize(
    "make",
    [
        lambda a, b: (a.t(), b),  # column-major operand: NOTE [ Gradient layout in mm ]
        lambda a, b: (a, b.t()),
        lambda a, b: (a.t(), b.t()),
        lambda a, b: (a[:, ::2], b[::2]),  # strided views
        lambda a, b: (a[1:], b),
    ],
    ids=["a.t()", "b.t()", "both.t()", "strided", "sliced"],
)
def test_recorded_product_of_views_matches_the_full_path(make, monkeypatch):
    a0 = randn(6, 6, seed=1).requires_grad_()
    b0 = randn(6, 6, seed=2).requires_grad_()
    counted = _Counted(monkeypatch)
    res = compare(lambda a0, b0: torch.matmul(*make(a0, b0)), (a0, b0))
    assert counted.calls.count("Mm") >= 1
    assert res["graph"][0] == "MmBackward0"
    a, b = make(a0, b0)
    fast, full = _both_states(lambda: a @ b)
    assert fast == full
    w = randn(6, 6, seed=3).requires_grad_()
    c = randn(6, 6, seed=4)
    grads = []
    for path in (False, True):
        w.grad = None
        if path:
            with full_path():
                (w.t() @ c).sum().backward()
        else:
            (w.t() @ c).sum().backward()
        grads.append(w.grad)
    assert grads[0].stride() == grads[1].stride() == (6, 1)  # row-major again, as torch's


def test_products_the_fast_route_leaves_to_the_full_path(monkeypatch):
    counted = _Counted(monkeypatch)
    a = randn(3, 4).requires_grad_()
    for other in (randn(4), randn(2, 4, 5)):  # matrix @ vector, batched
        fast = a @ other
        with full_path():
            full = a @ other
        same_array(fast.detach().numpy(), full.detach().numpy(), "value")
        assert type(fast.grad_fn).__name__ == type(full.grad_fn).__name__
    assert _same_error(lambda: a @ randn(4, 5, dtype=torch.float64))[0] is RuntimeError
    h = randn(3, 4).half().requires_grad_()
    h2 = randn(4, 2).half()
    fast, full = _both_states(lambda: h @ h2)
    assert fast == full
    assert counted.calls == []
    assert _same_error(lambda: a @ randn(5, 2))[0] is RuntimeError


# --- relu ---

RELU_INPUTS = {
    "(3, 4)": lambda dt: randn(3, 4, dtype=dt),
    "()": lambda dt: randn(dtype=dt),
    "(2, 0, 3)": lambda dt: randn(2, 0, 3, dtype=dt),
    "zeros": lambda dt: torch.tensor([0.0, -0.0, 1.0, -1.0], dtype=dt),
    "nan": lambda dt: torch.tensor([float("nan"), -float("inf"), float("inf")], dtype=dt),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(RELU_INPUTS))
def test_recorded_relu_matches_the_full_path(name, dtype, monkeypatch):
    x = RELU_INPUTS[name](dtype).requires_grad_()
    counted = _Counted(monkeypatch)
    res = compare(lambda x: torch.relu(x), (x,))
    assert counted.calls[0] == "Relu"
    assert res["graph"][0] == "ReluBackward0"
    fast, full = _both_states(lambda: torch.relu(x))
    assert fast == full


def test_relu_of_expanded_and_half_inputs(monkeypatch):
    counted = _Counted(monkeypatch)
    x = randn(3, 1).requires_grad_()
    compare(lambda x: torch.relu(x.expand(3, 4)), (x,))  # laid out as its input
    assert counted.calls[0] == "Relu"
    counted.calls.clear()
    for dtype in (torch.float16, torch.bfloat16):
        h = randn(3, 4).to(dtype).requires_grad_()
        fast, full = _both_states(lambda h=h: torch.relu(h))
        assert fast == full
    assert counted.calls == []  # the full path's half forwards


# --- logsumexp and mean ---

LSE_CASES = [
    ((4, 5), 1, False),
    ((4, 5), 0, True),
    ((4, 5), -1, False),
    ((2, 3, 4), 1, True),
    ((2, 3, 4), -2, False),
    ((7,), 0, False),
    ((0, 3), 1, False),
    ((3, 0), 1, True),  # all -inf
]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("case", LSE_CASES, ids=str)
def test_recorded_logsumexp_matches_the_full_path(case, dtype, monkeypatch):
    shape, dim, keepdim = case
    x = randn(*shape, dtype=dtype).requires_grad_()
    counted = _Counted(monkeypatch)
    res = compare(lambda x: x.logsumexp(dim, keepdim=keepdim), (x,))
    assert counted.calls[0] == "Logsumexp"
    assert res["graph"][0] == "LogsumexpBackward0"
    assert res["graph"][2]["_saved_dim"] == (dim % (1 << 64),)  # as given, read as uint64
    fast, full = _both_states(lambda: torch.logsumexp(x, dim, keepdim))
    assert fast == full
    assert fast["dict"]["given_dim"] == dim


def test_recorded_logsumexp_of_special_inputs(monkeypatch):
    counted = _Counted(monkeypatch)
    x = torch.tensor([[0.0, -float("inf")], [-float("inf"), -float("inf")], [float("inf"), 1.0]])
    compare(lambda x: x.logsumexp(1), (x.requires_grad_(),))
    p = randn(3, 4, 5).requires_grad_()
    compare(lambda p: p.permute(2, 0, 1).logsumexp(2), (p,))  # a permuted input: row-major out
    h = randn(4, 5).half().requires_grad_()
    compare(lambda h: h.logsumexp(1), (h,))  # its own kernel's roundings, on the fast route
    assert counted.calls[0] == "Logsumexp" and counted.calls.count("Logsumexp") >= 3


MEAN_CALLS = {
    "x.mean()": lambda x: x.mean(),
    "x.mean(0)": lambda x: x.mean(0),
    "x.mean(-1, True)": lambda x: x.mean(-1, True),
    "torch.mean(x, 1)": lambda x: torch.mean(x, 1),
}


@pytest.mark.parametrize("dtype", (*DTYPES, torch.float16), ids=str)
@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 4), (0, 3), (300, 20)], ids=str)
@pytest.mark.parametrize("name", list(MEAN_CALLS))
def test_recorded_mean_matches_the_full_path(name, shape, dtype, monkeypatch):
    fn = MEAN_CALLS[name]
    x = randn(*shape, dtype=dtype).requires_grad_()
    counted = _Counted(monkeypatch)
    res = compare(fn, (x,))
    assert counted.calls[0] in ("Mean", "MeanDim")
    assert res["graph"][0] == ("MeanBackward0" if name == "x.mean()" else "MeanBackward1")
    fast, full = _both_states(lambda: fn(x))
    assert fast == full
    # and the no-grad path, which calls Mean.forward's kernel too
    fast, full = both(lambda: fn(x))
    same_array(fast.numpy(), full.numpy(), name)
    assert fast.grad_fn is None and not fast.requires_grad


def test_mean_of_a_vector_and_of_zero_dims():
    for x in (randn(7).requires_grad_(), randn().requires_grad_()):
        compare(lambda x: x.mean(), (x,))
        compare(lambda x: x.mean(0), (x,))


# --- indexing with index tensors ---

KEYS = {
    "[arange(n), y]": lambda x: (torch.arange(x.shape[0]), torch.tensor([0, 3, 1, 1, 2, 0])),
    "[y_int32, y]": lambda x: (
        torch.tensor([5, 0, 0, 2], dtype=torch.int32),
        torch.tensor([1, 1, 3, -1]),
    ),
    "[idx]": lambda x: torch.tensor([2, 0, 2, -1]),
    "[(idx,)]": lambda x: (torch.tensor([[1, 4], [0, 0]]),),
    "[mask]": lambda x: x.detach() > 0,
    "[:, idx]": lambda x: (slice(None), torch.tensor([3, 0, 3])),
    "[1:, idx]": lambda x: (slice(1, None), torch.tensor([1, 2])),
    "[idx, 1:3]": lambda x: (torch.tensor([4, 1]), slice(1, 3)),
    "[t0, idx]": lambda x: (torch.tensor(2), torch.tensor([0, 1])),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(KEYS))
def test_recorded_index_matches_the_full_path(name, dtype, monkeypatch):
    x = randn(6, 4, dtype=dtype).requires_grad_()
    key = KEYS[name](x)
    counted = _Counted(monkeypatch)
    res = compare(lambda x: x[key], (x,))
    assert counted.calls[0] == "Index"
    assert res["graph"][0] == "IndexBackward0"
    fast, full = _both_states(lambda: x[key])
    assert fast == full
    assert fast["saved_type"] == "tuple" and fast["dict"]["_watched"]


def test_recorded_index_of_more_dims_and_empty_results(monkeypatch):
    counted = _Counted(monkeypatch)
    x = randn(3, 4, 5).requires_grad_()
    i, j = torch.tensor([[0, 2], [1, 1]]), torch.tensor([[3, 0], [0, 3]])
    for key in ((i, j), (i,), (i, j, torch.tensor([[4, 4], [0, 1]])), (slice(None), i, j)):
        compare(lambda x, key=key: x[key], (x,))
        fast, full = _both_states(lambda key=key: x[key])
        assert fast == full
    e = randn(0, 4).requires_grad_()
    k = torch.tensor([1, 2])
    fast, full = _both_states(lambda: e[:, k])
    assert fast == full and fast["array"][2] == (0, 2)
    assert counted.calls == ["Index"] * len(counted.calls) and len(counted.calls) >= 5


def test_saved_indices_of_a_key_with_a_zero_dim_tensor():
    """A CPU integer 0-d tensor in a key selects (as an int does): torch's IndexBackward0 saves
    the index tensors after it and the selected view's sizes. (It was read as an index tensor,
    copied with torch.tensor's warning.)"""
    import warnings

    i = torch.tensor([0, 1])
    for x, key, want, sizes in (
        (randn(6, 4), (torch.tensor(2), i), (i,), (4,)),
        (randn(3, 6, 4), (slice(1, 3), torch.tensor(1), i), (None, i), (2, 4)),
    ):
        node = x.requires_grad_()[key].grad_fn
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            saved = node._saved_indices
        assert len(saved) == len(want) and all(a is b for a, b in zip(saved, want, strict=True))
        assert node._saved_self_sym_sizes == sizes


def test_index_errors_are_the_full_paths(monkeypatch):
    x = randn(6, 4).requires_grad_()
    counted = _Counted(monkeypatch)
    for key in (
        (torch.arange(6), torch.tensor([0, 4, 1, 1, 2, 0])),  # out of range in dim 1
        (torch.tensor([9]),),
        (torch.tensor([-7]), torch.tensor([0])),
        (torch.arange(3), torch.arange(2)),  # shapes that do not broadcast
        (torch.arange(3.0),),  # a float index
    ):
        err = _same_error(lambda key=key: x[key])
        assert err[0] is IndexError
    assert "Index" not in counted.calls  # a gather that raises leaves it to the full path
    z = torch.zeros(0, 3).requires_grad_()
    assert _same_error(lambda: z[torch.tensor([0]), torch.tensor([1])])[0] is IndexError


def test_index_tensors_are_watched_and_freed_on_the_fast_route(monkeypatch):
    counted = _Counted(monkeypatch)
    x = randn(6, 4).requires_grad_()
    y = torch.tensor([0, 3, 1, 1, 2, 0])
    out = x[torch.arange(6), y]
    assert counted.calls == ["Index"]
    y.add_(1)  # the index, changed in place before backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    y.sub_(1)
    out = x[torch.arange(6), y]
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[np.arange(6), y.numpy()], np.ones(6, np.float32))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()


# --- the common conditions: views, inference tensors, hooks, anomaly mode, profiles ---

MLP_OPS = {
    "mm": lambda v, w: v @ w,
    "relu": lambda v, w: torch.relu(v),
    "logsumexp": lambda v, w: v.logsumexp(1),
    "mean": lambda v, w: v.mean(),
    "index": lambda v, w: v[torch.tensor([1, 0]), torch.tensor([2, 2])],
}


@pytest.mark.parametrize("name", list(MLP_OPS))
def test_a_view_whose_base_changed_gets_its_regenerated_node(name, monkeypatch):
    fn = MLP_OPS[name]

    def make():
        base = randn(4, 3, seed=4).requires_grad_().clone()
        v = base[1:3]
        base.mul_(3)  # v's history is now through the in-place op
        return fn(v, randn(3, 3, seed=5).requires_grad_()), v

    counted = _Counted(monkeypatch)
    y, v = make()
    assert counted.calls
    with full_path():
        y2, v2 = make()
    assert type(y.grad_fn._next[0][0]).__name__ == type(y2.grad_fn._next[0][0]).__name__
    assert type(v.grad_fn).__name__ == type(v2.grad_fn).__name__ == "AsStridedBackward0"
    same_array(y.detach().numpy(), y2.detach().numpy(), name)


@pytest.mark.parametrize("name", ["mm", "relu", "logsumexp"])
def test_inference_tensors_saved_are_refused_as_on_the_full_path(name, monkeypatch):
    fn = MLP_OPS[name]
    with torch.inference_mode():
        c = randn(3, 3, seed=6)
        r = randn(3, 3, seed=7).requires_grad_()
    a = randn(3, 3).requires_grad_()
    counted = _Counted(monkeypatch)
    if name == "mm":
        err = _same_error(lambda: fn(a, c))
        assert err[0] is RuntimeError and "Inference tensors" in err[1]
        assert _same_error(lambda: fn(c, a)) == err
    elif name == "logsumexp":  # an inference tensor that requires grad, saved
        err = _same_error(lambda: fn(r, None))
        assert err[0] is RuntimeError and "Inference tensors" in err[1]
    else:  # relu saves its result only
        fast, full = _both_states(lambda: fn(r, None))
        assert fast == full
    assert counted.calls


def test_inference_index_tensors_are_refused_as_on_the_full_path():
    with torch.inference_mode():
        y = torch.tensor([0, 1])
    x = randn(3, 3).requires_grad_()
    err = _same_error(lambda: x[torch.arange(2), y])
    assert err[0] is RuntimeError


@pytest.mark.parametrize("name", list(MLP_OPS))
def test_saved_tensor_hooks_take_the_full_path(name, monkeypatch):
    fn = MLP_OPS[name]
    v = randn(3, 3).requires_grad_()
    w = randn(3, 3, seed=3).requires_grad_()
    packed = []

    def pack(t):
        packed.append(t)
        return t

    counted = _Counted(monkeypatch)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(v, w)
    assert counted.calls == []
    want = {"mm": 2, "relu": 1, "logsumexp": 2, "mean": 0, "index": 0}[name]
    assert len(packed) == want


@pytest.mark.parametrize("name", list(MLP_OPS))
def test_anomaly_mode_pauses_the_fast_route_and_records_the_creation_trace(name, monkeypatch):
    fn = MLP_OPS[name]
    v = randn(3, 3).requires_grad_()
    w = randn(3, 3, seed=3).requires_grad_()
    counted = _Counted(monkeypatch)
    with torch.autograd.detect_anomaly(check_nan=False):
        y = fn(v, w)
    assert not counted.calls
    assert any("test_s48_mlp.py" in line for line in y.grad_fn.metadata["traceback_"])
    y = fn(v, w)  # the region over, the fast route again, and no trace
    assert counted.calls
    assert "traceback_" not in y.grad_fn.metadata


def test_profile_sees_the_ops_of_the_fast_route():
    v = randn(3, 3).requires_grad_()
    w = randn(3, 3, seed=3).requires_grad_()
    with torch.profiler.profile() as prof:
        h = torch.relu(v @ w)
        (h.logsumexp(1) - h[torch.arange(3), torch.tensor([0, 2, 1])]).mean()
    names = [e.name for e in prof.events()]
    for op in ("Mm", "Relu", "Logsumexp", "Index", "Mean"):
        assert op in names


def test_no_grad_takes_no_node(monkeypatch):
    v = randn(3, 3).requires_grad_()
    w = randn(3, 3, seed=3)
    counted = _Counted(monkeypatch)
    with torch.no_grad():
        for fn in MLP_OPS.values():
            t = fn(v, w)
            assert t.grad_fn is None and not t.requires_grad
    for fn in MLP_OPS.values():
        t = fn(w, w)
        assert t.grad_fn is None and not t.requires_grad
    assert counted.calls == []
    y = w @ v  # one input requiring grad: one edge, only the other operand saved
    assert y.grad_fn._next[0] is None and y.grad_fn.needs_input_grad == (False, True)
    assert y.grad_fn._saved[1] is None and y.grad_fn._saved[0][1] is w


def test_the_mlp_step_matches_the_full_path():
    """bench's mlp_step_tiny, a few steps on both paths: the same losses and parameters."""

    def run(steps=3):
        g = torch.Generator().manual_seed(0)
        sizes = (8, 6, 6, 4)
        params = []
        for i, o in zip(sizes[:-1], sizes[1:], strict=True):
            params += [
                (torch.randn(i, o, generator=g) * 0.3).requires_grad_(),
                torch.zeros(o).requires_grad_(),
            ]
        x = torch.randn(5, sizes[0], generator=g)
        y = torch.tensor([0, 3, 1, 2, 3])
        losses = []
        for _ in range(steps):
            h = x
            for w, b in zip(params[0:-2:2], params[1:-2:2], strict=True):
                h = torch.relu(h @ w + b)
            logits = h @ params[-2] + params[-1]
            loss = (logits.logsumexp(dim=1) - logits[torch.arange(5), y]).mean()
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= 0.1 * p.grad
                    p.grad = None
            losses.append(loss.detach().numpy().copy())
        return losses, [p.detach().numpy().copy() for p in params], [p._vc[0] for p in params]

    fast = run()
    with full_path():
        full = run()
    for a, b in zip(fast[0] + fast[1], full[0] + full[1], strict=True):
        same_array(a, b, "mlp")
    assert fast[2] == full[2] == [3] * 6


# --- the in-place update and arange ---


class _CountedUfuncs:
    """The calls of _fast_inplace's own kernels (its route for two plain CPU float tensors)."""

    def __init__(self, monkeypatch):
        self.calls = []
        table = dict(inplace._CPU_UFUNCS)
        for name, uf in table.items():
            table[name] = self._wrap(name, uf)
        monkeypatch.setattr(inplace, "_CPU_UFUNCS", table)

    def _wrap(self, name, uf):
        def spy(*args, **kwargs):
            self.calls.append(name)
            return uf(*args, **kwargs)

        return spy


INPLACE = {
    "-=": lambda p, g: p.__isub__(g),
    "+=": lambda p, g: p.__iadd__(g),
    "*=": lambda p, g: p.__imul__(g),
    "/=": lambda p, g: p.__itruediv__(g),
    "sub_": lambda p, g: p.sub_(g),
    "add_": lambda p, g: p.add_(g),
}


@pytest.mark.parametrize("dtype", (*DTYPES, torch.float16), ids=str)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ())], ids=str)
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_update_matches_the_general_route(name, shapes, dtype, monkeypatch):
    fn = INPLACE[name]
    counted = _CountedUfuncs(monkeypatch)
    results = []
    for view in (False, True):  # an operand that is a view takes the general route
        p = randn(*shapes[0], dtype=dtype, seed=1).requires_grad_()
        g = randn(*shapes[1], dtype=dtype, seed=2) + 3
        with torch.no_grad():
            out = fn(p, g[...] if view else g)
        assert out is p
        results.append((p.detach().numpy().copy(), p._vc[0], p.grad_fn, p.stride()))
        if not view:
            assert len(counted.calls) == 1
    same_array(results[0][0], results[1][0], name)
    assert results[0][1:] == results[1][1:] == (1, None, results[0][3])


def test_inplace_cases_the_short_route_leaves(monkeypatch):
    counted = _CountedUfuncs(monkeypatch)
    p = randn(3, 4).requires_grad_()
    # grad mode on: the leaf's refusal, or a node recorded for a non-leaf
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p -= randn(3, 4)
    q = p * 1
    q -= randn(3, 4)
    assert type(q.grad_fn).__name__ == "SubBackward0"
    # plain tensors in grad mode: in place, through the short route
    a = randn(3, 4)
    a -= randn(3, 4, seed=1)
    assert a._vc[0] == 1 and len(counted.calls) == 1
    with torch.no_grad():
        err = error_of(lambda: p.sub_(randn(5)))  # not broadcastable into p
        assert err[0] is RuntimeError
        assert error_of(lambda: p.sub_(randn(5)[...])) == err  # the general route's error
        with pytest.raises(RuntimeError):
            p.sub_(randn(2, 3, 4))  # would broadcast p
        counted.calls.clear()
        p.sub_(randn(3, 4, dtype=torch.float64))  # promotion: the general route
        p.sub_(randn(3, 4), alpha=2)  # alpha: the general route's fma
        b = randn(3, 4).to(torch.bfloat16)
        b.sub_(randn(3, 4).to(torch.bfloat16))
        i = torch.arange(4)
        i -= torch.arange(4)
        e = randn(1, 4).expand(3, 4)
        with pytest.raises(RuntimeError):
            e.sub_(randn(3, 4))  # expanded: the general route's refusal
        assert counted.calls == []
    with torch.inference_mode():
        inf = torch.zeros(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        inf -= torch.ones(3)


def test_arange_n_takes_its_short_route(monkeypatch):
    calls = []
    orig = _ranges.default_device

    def spy():
        calls.append(1)
        return orig()

    monkeypatch.setattr(_ranges, "default_device", spy)
    for n in (0, 1, 16, 1000):
        t = torch.arange(n)
        ref = torch.arange(0, n, 1)
        assert t.dtype is ref.dtype is torch.int64
        assert t.stride() == ref.stride() and t._vc == [0] and not t.requires_grad
        same_array(t.numpy(), ref.numpy(), n)
        assert t.grad_fn is None and t._base is None
    assert len(calls) == 4
    # the calls the short route leaves to the general one
    assert torch.arange(5, dtype=torch.float32).dtype is torch.float32
    assert torch.arange(5, device="cpu").dtype is torch.int64
    assert torch.arange(5.0).dtype is torch.float32
    assert torch.arange(True).dtype is torch.int64  # a bool is an int to torch
    with pytest.raises(RuntimeError):
        torch.arange(-1)
    with torch.device("meta"):
        assert torch.arange(4).device.type == "meta"
