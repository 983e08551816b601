"""Session 48, audit of the recorded fast path (NOTE [ The recorded fast path ] in
minitorch/autograd/function.py) against torch: the results, nodes, saved values, gradients of
first and second order, hooks and errors of mul/add/sub/div (two same-dtype tensors, or a
float tensor and a Python number), exp/log/sqrt/tanh/sigmoid, the full sum, x ** number, -x,
and the products, relu, mean, logsumexp and index tensors, where a node is recorded, each run
under torch and minitorch on the same inputs. Every case also checks that minitorch took the
fast route. Arithmetic is compared bit for bit; the transcendental kernels (NumPy's, not
torch's SLEEF), products and sums of gradients (their order of summation) within a few ulps.

Differences found (xfail, strict; none is the fast route's own: the full route gives the same):
- a Python int operand of a float32 tensor is rounded to float64 first, then to float32 (NumPy's
  conversion); torch rounds it once: x * (2**60 + 2**36 + 1);
- an elementwise result of two operands of different layouts (a transposed one times a
  row-major one) is row-major (NumPy's order 'K' gives up); torch follows the first operand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import indexing, linalg, pointwise, reduction
from minitorch.autograd import function

torch = pytest.importorskip("torch")

LIBS = (torch, mt)


class Spy:
    """Counts the calls of record_pair / record_unary from the op modules (the fast route)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        for mod in (pointwise, reduction, linalg, indexing):
            for name in ("record_pair", "record_unary"):
                if hasattr(mod, name):
                    monkeypatch.setattr(mod, name, self._wrap(getattr(function, name)))

    def _wrap(self, orig):
        def spy(*args, **kwargs):
            self.calls += 1
            return orig(*args, **kwargs)

        return spy


@pytest.fixture
def spy(monkeypatch):
    return Spy(monkeypatch)


def arr(t):
    return None if t is None else t.detach().cpu().numpy().copy()


def tensor(lib, values, dtype, requires_grad=False):
    return lib.tensor(np.asarray(values), dtype=getattr(lib, dtype)).requires_grad_(requires_grad)


def node_view(y):
    """What y's grad_fn shows: its name, the names of its edges, each _saved_* value (a tensor as
    its array)."""
    n = y.grad_fn
    saved = {}
    for k in dir(n):
        if k.startswith("_saved_"):
            v = getattr(n, k)
            if isinstance(v, tuple) and v and all(hasattr(x, "detach") for x in v):
                v = tuple(arr(x).tolist() for x in v)  # (_saved_indices)
            saved[k] = arr(v) if hasattr(v, "detach") else v
    edges = tuple(None if f is None else f.name().split("::")[-1] for f, _ in n.next_functions)
    return n.name(), edges, saved


def check_same(t_val, m_val, what, ulps=0):
    """torch's value and minitorch's: equal bits (ulps=0) or within `ulps` units in the last
    place of the larger magnitude; None both or neither; other values by ==."""
    if isinstance(t_val, np.ndarray) or isinstance(m_val, np.ndarray):
        assert isinstance(t_val, np.ndarray) and isinstance(m_val, np.ndarray), what
        assert t_val.dtype == m_val.dtype and t_val.shape == m_val.shape, what
        if ulps == 0:
            np.testing.assert_array_equal(t_val, m_val, err_msg=what)
        else:
            ulp = np.spacing(np.maximum(np.abs(t_val), np.abs(m_val))).astype(np.float64)
            diff = np.abs(t_val.astype(np.float64) - m_val.astype(np.float64))
            assert (diff <= ulps * ulp).all(), f"{what}: {t_val} != {m_val}"
    else:
        assert t_val == m_val, what


def check_nodes(t_node, m_node, what, ulps=0):
    assert t_node[:2] == m_node[:2], what
    assert t_node[2].keys() == m_node[2].keys(), what
    for k in t_node[2]:
        check_same(t_node[2][k], m_node[2][k], f"{what} {k}", ulps)


SHAPES = [
    ((3, 4), (3, 4)),
    ((3, 4), (4,)),
    ((1, 4), (3, 1)),
    ((), ()),
    ((2, 3), ()),
    ((0, 3), (3,)),
]
BINARY = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / b,
    "torch.mul": lambda a, b: a.mul(b),
    "torch.div": lambda a, b: a.div(b),
}


def _grads(lib, y, inputs, seed):
    """First order gradients of y for a fixed random upstream gradient, and the second order
    ones of their sum."""
    g = np.random.default_rng(seed).standard_normal(tuple(y.shape))
    gy = lib.tensor(g, dtype=y.dtype)
    needs = [t for t in inputs if t.requires_grad]
    first = lib.autograd.grad(y, needs, gy, create_graph=True, allow_unused=True)
    total = sum(x.sum() for x in first if x is not None and x.requires_grad)
    second = []
    if hasattr(total, "requires_grad") and total.requires_grad:
        second = lib.autograd.grad(total, needs, allow_unused=True)
    return [arr(x) for x in first], [arr(x) for x in second]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_two_tensors(name, shapes, needs, dtype, spy):
    rng = np.random.default_rng(0)
    A = rng.standard_normal(shapes[0])
    B = rng.standard_normal(shapes[1]) + 3
    seen = []
    for lib in LIBS:
        a = tensor(lib, A, dtype, needs[0])
        b = tensor(lib, B, dtype, needs[1])
        before = spy.calls
        y = BINARY[name](a, b)
        took = spy.calls - before
        seen.append(
            (
                arr(y),
                y.stride(),
                y.requires_grad,
                y.is_leaf,
                node_view(y),
                _grads(lib, y, (a, b), 1),
            )
        )
    assert took == 1  # minitorch's (the second) call took the fast route
    (ty, ts, *tflags, tn, (tg, tgg)), (my, ms, *mflags, mn, (mg, mgg)) = seen
    check_same(ty, my, "value")
    assert ts == ms and tflags == mflags
    check_nodes(tn, mn, "node")
    for x, y in zip(tg, mg, strict=True):
        check_same(x, y, "grad", ulps=2) if x is not None else None  # (un-broadcast sums)
    assert len(tgg) == len(mgg)
    for x, y in zip(tgg, mgg, strict=True):
        if x is None or y is None:  # torch: None where the second order is identically zero
            assert x is y or not (x if x is not None else y).any()
        else:
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-6, err_msg="second order")


NUMBERS = [2, -3, 0, 7.25, 0.1, -0.0, 1e-3, 2**40, float("inf")]
WITH_NUMBER = {
    "x*n": lambda x, n: x * n,
    "n*x": lambda x, n: n * x,
    "x+n": lambda x, n: x + n,
    "n+x": lambda x, n: n + x,
    "x-n": lambda x, n: x - n,
    "x/n": lambda x, n: x / n,
    "add": lambda x, n: x.add(n),
    "sub": lambda x, n: x.sub(n),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(WITH_NUMBER))
def test_tensor_and_number(name, dtype, spy):
    X = np.random.default_rng(2).standard_normal((3, 4))
    for n in NUMBERS:
        seen = []
        for lib in LIBS:
            x = tensor(lib, X, dtype, True)
            before = spy.calls
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = WITH_NUMBER[name](x, n)
                node = node_view(y)
                (g,) = lib.autograd.grad(y, x, lib.ones_like(y) * 0.75)
            seen.append((arr(y), y.stride(), node, arr(g)))
        assert spy.calls - before == 1, n
        (ty, ts, tn, tg), (my, ms, mn, mg) = seen
        check_same(ty, my, f"{n} value")
        assert ts == ms
        check_nodes(tn, mn, f"{n} node")
        check_same(tg, mg, f"{n} grad")


UNARY = {
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "tanh": lambda x: torch_or_mt(x).tanh(x),
    "sigmoid": lambda x: torch_or_mt(x).sigmoid(x),
    "sum": lambda x: x.sum(),
    "torch.sum": lambda x: torch_or_mt(x).sum(x),
}


def torch_or_mt(x):
    return mt if isinstance(x, mt.Tensor) else torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 3), (7,)], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_and_sum(name, shape, dtype, spy):
    X = np.abs(np.random.default_rng(3).standard_normal(shape)) + 0.25
    seen = []
    for lib in LIBS:
        x = tensor(lib, X, dtype, True)
        before = spy.calls
        y = UNARY[name](x)
        took = spy.calls - before
        seen.append((arr(y), y.stride(), node_view(y), _grads(lib, y, (x,), 4)))
    assert took == 1
    (ty, ts, tn, (tg, tgg)), (my, ms, mn, (mg, mgg)) = seen
    ulps = 4  # (NumPy's kernels and order of summation)
    check_same(ty, my, "value", ulps)
    assert ts == ms
    check_nodes(tn, mn, "node", ulps)
    for x, y in zip(tg + tgg, mg + mgg, strict=True):
        if x is None or y is None:
            assert x is y or not (x if x is not None else y).any()
        else:
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-7, err_msg="gradients")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_power_of_a_number_and_negation(dtype, spy):
    X = np.abs(np.random.default_rng(6).standard_normal((3, 4))) + 0.25
    for e in (2, 3, -1, 0, 0.5, 1.5, -2.5, 2.0):
        seen = []
        for lib in LIBS:
            x = tensor(lib, X, dtype, True)
            before = spy.calls
            ys = (x**e, x.pow(e), -x)
            took = spy.calls - before
            seen.append([(arr(y), y.stride(), node_view(y), _grads(lib, y, (x,), 7)) for y in ys])
        assert took == 3, e
        for (ty, ts, tn, (tg, tgg)), (my, ms, mn, (mg, mgg)) in zip(*seen, strict=True):
            check_same(ty, my, f"{e} value", ulps=4)
            assert ts == ms
            check_nodes(tn, mn, f"{e} node", ulps=4)
            for x, y in zip(tg + tgg, mg + mgg, strict=True):
                if x is None or y is None:
                    assert x is y or not (x if x is not None else y).any()
                else:
                    np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-7, err_msg=f"{e}")


MLP_OPS = {
    "a @ b": lambda lib, a, b: a @ b,
    "mm": lambda lib, a, b: lib.mm(a, b),
    "relu": lambda lib, a, b: lib.relu(a),
    "mean": lambda lib, a, b: a.mean(),
    "mean(-1)": lambda lib, a, b: a.mean(-1),
    "mean(0, keepdim)": lambda lib, a, b: a.mean(0, keepdim=True),
    "logsumexp(1)": lambda lib, a, b: a.logsumexp(1),
    "logsumexp(-2, keepdim)": lambda lib, a, b: lib.logsumexp(a, -2, keepdim=True),
    "a[idx]": lambda lib, a, b: a[lib.tensor([2, 0, 2])],
    "a[idx, idx]": lambda lib, a, b: a[lib.tensor([2, 0]), lib.tensor([1, 3])],
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
@pytest.mark.parametrize("name", list(MLP_OPS))
def test_products_relu_means_and_indexing(name, needs, dtype, spy):
    rng = np.random.default_rng(8)
    A = rng.standard_normal((3, 4))
    B = rng.standard_normal((4, 5))
    seen = []
    for lib in LIBS:
        a = tensor(lib, A, dtype, needs[0])
        b = tensor(lib, B, dtype, needs[1])
        before = spy.calls
        y = MLP_OPS[name](lib, a, b)
        took = spy.calls - before
        if not y.requires_grad:
            return  # (an op of a alone, which needs no grad here)
        seen.append((arr(y), y.stride(), node_view(y), _grads(lib, y, (a, b), 9)))
    assert took == 1
    (ty, ts, tn, (tg, tgg)), (my, ms, mn, (mg, mgg)) = seen
    np.testing.assert_allclose(my, ty, rtol=1e-6, atol=1e-7, err_msg="value")
    assert ts == ms
    assert tn[:2] == mn[:2] and tn[2].keys() == mn[2].keys()
    for k in tn[2]:
        t_val, m_val = tn[2][k], mn[2][k]
        if isinstance(t_val, np.ndarray):
            np.testing.assert_allclose(m_val, t_val, rtol=1e-6, atol=1e-7, err_msg=k)
        else:
            assert t_val == m_val, k
    for x, y in zip(tg + tgg, mg + mgg, strict=True):
        if x is None or y is None:
            assert x is y or not (x if x is not None else y).any()
        else:
            np.testing.assert_allclose(y, x, rtol=1e-5, atol=1e-6, err_msg="gradients")


def test_transposed_operands_keep_their_layout(spy):
    """Two transposed operands: the result is column-major, as torch's."""
    A = np.random.default_rng(5).standard_normal((4, 3))
    seen = []
    for lib in LIBS:
        a = tensor(lib, A, "float32", True).t()
        b = tensor(lib, A + 2, "float32").t()
        seen.append([(arr(y), y.stride()) for y in (a * b, a + b, a / b, a * 2, a.exp())])
    for (tv, ts), (mv, ms) in zip(*seen, strict=True):
        np.testing.assert_allclose(mv, tv, rtol=1e-6)
        assert ts == ms
    assert spy.calls >= 5


def _errors(lib, make):
    try:
        make()
    except Exception as e:  # noqa: BLE001 (compared by type and message)
        return type(e).__name__, str(e)
    return None


def test_freed_graph_and_version_errors(spy):
    """A second backward through a node that saved something (a number counts) raises torch's
    error, one through a node that saved nothing does not; a saved input or result changed in
    place raises torch's error, in torch's words."""
    seen = []
    for lib in LIBS:
        out = []
        a = tensor(lib, [1.0, 2.0, 3.0], "float32", True)
        b = tensor(lib, [0.5, -1.0, 2.0], "float32", True)
        for make in (
            lambda a, b: a * b, lambda a, b: a * 2, lambda a, b: a / 2, lambda a, b: a + 2,
            lambda a, b: a - b, lambda a, b: a.exp(), lambda a, b: a.log(),
            lambda a, b: a.sigmoid(), lambda a, b: a.tanh(), lambda a, b: a.sqrt(),
            lambda a, b: a + b,
        ):  # fmt: skip
            y = make(a, b).sum()
            y.backward()
            out.append(_errors(lib, y.backward))
        c = b.detach()
        y = a * c
        c.add_(1)
        out.append(_errors(lib, lambda y=y: y.sum().backward()))
        y = a.exp()
        y.detach().zero_()
        out.append(_errors(lib, lambda y=y: y.sum().backward()))
        y = a.sigmoid()
        y[0:1].mul_(2)
        out.append(_errors(lib, lambda y=y: y.sum().backward()))
        x = a.clone()
        y = x.log()
        x.add_(1)
        out.append(_errors(lib, lambda y=y: y.sum().backward()))
        with lib.inference_mode():
            i = lib.ones(3)
        out.append(_errors(lib, lambda a=a, i=i: a * i))
        out.append(_errors(lib, lambda a=a, i=i: a + i))
        seen.append((out, arr(a.grad), arr(b.grad)))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[1][1], seen[0][1], rtol=1e-6)
    assert spy.calls > 10


def test_hooks_and_retained_grads(spy):
    seen = []
    for lib in LIBS:
        log = []
        a = tensor(lib, [1.0, 2.0, 3.0], "float32", True)
        b = tensor(lib, [0.5, -1.0, 2.0], "float32", True)
        a.register_hook(lambda g, log=log: log.append(("a", arr(g).tolist())))
        c = a * 1.5
        c.retain_grad()
        y = c * b
        y.register_hook(lambda g: g * 2)
        y.grad_fn.register_hook(
            lambda gi, go, log=log: log.append(("node", [arr(g).tolist() for g in gi]))
        )
        y.grad_fn.register_prehook(lambda go, log=log: log.append(("pre", arr(go[0]).tolist())))
        z = y.exp().sum()
        z.backward()
        seen.append((log, arr(c.grad), y.is_leaf, c.retains_grad, arr(a.grad)))
    (tlog, tc, *tf, ta), (mlog, mc, *mf, ma) = seen
    assert [e[0] for e in tlog] == [e[0] for e in mlog]
    for te, me in zip(tlog, mlog, strict=True):
        np.testing.assert_allclose(np.array(me[1]), np.array(te[1]), rtol=1e-6)
    np.testing.assert_allclose(mc, tc, rtol=1e-6)
    np.testing.assert_allclose(ma, ta, rtol=1e-6)
    assert tf == mf
    assert spy.calls > 0


def test_anomaly_mode_names_the_node(spy):
    seen = []
    for lib in LIBS:
        a = tensor(lib, [0.0, 1.0], "float32", True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                y = a * 2
                has_trace = "traceback_" in y.grad_fn.metadata
                err = _errors(lib, lambda a=a: (a.log() * 0).sum().backward())
        seen.append((has_trace, err))
    assert seen[0] == seen[1]
    assert seen[0][1] == (
        "RuntimeError",
        "Function 'LogBackward0' returned nan values in its 0th output.",
    )
    assert spy.calls == 0  # (anomaly mode pauses the fast route: apply records each node)


# --- differences found (none the fast route's own: the full route gives the same) ---------


@pytest.mark.xfail(
    strict=True,
    reason="a Python int operand of a float32 tensor is rounded twice (to float64, then to "
    "float32: NumPy's conversion of a Python int); torch rounds it once",
)
def test_int_operand_of_a_float32_tensor_is_rounded_once():
    n = 2**60 + 2**36 + 1  # halfway between two float32 values, plus 1: float64 drops the 1
    seen = []
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        seen.append([arr(y) for y in (x * n, x + n, x - n, x / n)])
    for t, m in zip(*seen, strict=True):
        np.testing.assert_array_equal(m, t)


def test_saved_other_of_an_unsigned_64_bit_int():
    seen = []
    for lib in LIBS:
        x = lib.ones(2, requires_grad=True)
        y = x * 2**63
        v = y.grad_fn._saved_other
        seen.append((str(v.dtype), v.tolist(), repr(v)))  # (minitorch prints torch's dtype names)
    assert seen[0] == seen[1]


@pytest.mark.xfail(
    strict=True,
    reason="an elementwise result of a column-major and a row-major operand is row-major "
    "(NumPy's order 'K' gives up on mixed layouts); torch's follows the first operand",
)
def test_mixed_layouts_follow_the_first_operand():
    A = np.arange(12.0).reshape(3, 4)
    seen = []
    for lib in LIBS:
        a = tensor(lib, A.T.copy(), "float32", True).t()  # column-major (3, 4)
        b = tensor(lib, A + 1, "float32")
        seen.append([y.stride() for y in (a * b, a + b, a - b, a / b)])
    assert seen[0] == seen[1]


def test_alpha_of_zero_dim_tensors_then_in_place():
    seen = []
    for lib in LIBS:
        a = lib.tensor(1.0, requires_grad=True)
        b = lib.tensor(2.0)
        y = lib.add(a, b, alpha=2)
        z = lib.sub(a, b, alpha=3)
        y.detach().add_(1)
        z.detach().mul_(2)
        seen.append((arr(y), arr(z)))
    check_same(*[s[0] for s in seen], "add")
    check_same(*[s[1] for s in seen], "sub")
