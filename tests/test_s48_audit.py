"""Session 48, audit of the recorded fast path (NOTE [ The recorded fast path ] in
minitorch/autograd/function.py): mul/add/sub/div of two same-dtype CPU tensors or a float
tensor and a Python number, exp/log/sqrt/tanh/sigmoid and the full sum make their node with
record_pair/record_unary instead of Function.apply. Each scenario here runs once on the fast
route and once on the full route (the fast paths' switch off, as a profile does), from the same
line, and compares what a user can observe: values and their bits, strides, grad_fn names,
edges, _saved_* values, hooks called and what they saw, errors and their messages, anomaly
traces, gradients of first and second order, and what torch.func / checkpoint / forward AD
make of the graph. Each also checks that the fast route was taken (or, for operands it must
not take, that it was not)."""

from __future__ import annotations

import copy
import enum
import gc
import io
import random
import re
import threading
import warnings
import weakref

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import indexing, linalg, pointwise, reduction
from minitorch.autograd import function
from minitorch.autograd.forward_ad import dual_level, make_dual, unpack_dual
from minitorch.utils.checkpoint import checkpoint


def leaf(*shape, seed=0, dtype=torch.float32, shift=0.5):
    g = np.random.default_rng(seed)
    return torch.tensor(g.standard_normal(shape) + shift, dtype=dtype).requires_grad_()


def obs(v):
    """What a user sees of v, comparable with ==: a tensor's dtype, shape, strides, bits and
    autograd flags; a node's name; containers element by element."""
    if isinstance(v, torch.Tensor):
        fn = v.grad_fn
        return (
            "T",
            str(v.dtype),
            tuple(v.shape),
            v.stride(),
            v.detach().numpy().tobytes(),
            v.requires_grad,
            v.is_leaf,
            None if fn is None else fn.name(),
        )
    if isinstance(v, function.Node):
        return ("N", v.name())
    if isinstance(v, (list, tuple)):
        return tuple(obs(x) for x in v)
    if isinstance(v, dict):
        return {k: obs(x) for k, x in v.items()}
    if isinstance(v, float) and v != v:
        return "nan"
    return v


def node_obs(t):
    """What t's grad_fn shows through the Node API: name, next_functions, metadata keys, dir()
    and each _saved_* value."""
    n = t.grad_fn
    saved = {}
    for k in dir(n):
        if k.startswith("_saved_"):
            try:
                saved[k] = obs(getattr(n, k))
            except Exception as e:  # noqa: BLE001 (compared by type and message)
                saved[k] = _err(e)
    return (
        n.name(),
        type(n).__name__,
        tuple((None if f is None else f.name(), i) for f, i in n.next_functions),
        sorted(n.metadata),
        dir(n),
        saved,
        n.requires_grad,
    )


def _err(e):
    return ("E", type(e).__name__, re.sub(r" at 0x[0-9a-f]+", "", str(e)))


def attempt(fn):
    """fn()'s observed result, or its error's type and message."""
    try:
        return obs(fn())
    except Exception as e:  # noqa: BLE001 (compared by type and message)
        return _err(e)


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


def routes(fn, spy):
    """fn() on the fast route, then on the full route, called from this one line each time (so
    that anomaly mode's traces match); asserts that the fast route recorded at least one node
    with record_pair/record_unary and the full route none."""
    out = []
    counts = []
    for on in (True, False):
        if not on:  # (counted: a region of saved-tensor hooks in fn pauses and resumes too)
            function.pause_fast_path(True)
        before = spy.calls
        try:
            out.append(attempt(fn))
        finally:
            if not on:
                function.pause_fast_path(False)
        counts.append(spy.calls - before)
    assert counts[0] > 0, "the fast route was not taken"
    assert counts[1] == 0
    return out


def same(fn, spy):
    fast, full = routes(fn, spy)
    assert fast == full
    return fast


@pytest.fixture
def spy(monkeypatch):
    return Spy(monkeypatch)


# --- numbers -------------------------------------------------------------------------------

NUMBERS = [
    0, 1, -1, 7, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, -(2**63),
    0.0, -0.0, 0.1, -2.5, 1e-320, 1e300, float("inf"), -float("inf"), float("nan"),
]  # fmt: skip
NUMBER_OPS = {
    "x*n": lambda x, n: x * n,
    "n*x": lambda x, n: n * x,
    "x+n": lambda x, n: x + n,
    "n+x": lambda x, n: n + x,
    "x-n": lambda x, n: x - n,
    "x/n": lambda x, n: x / n,
    "mul": lambda x, n: torch.mul(x, n),
    "add": lambda x, n: torch.add(x, n),
    "sub": lambda x, n: x.sub(n),
    "div": lambda x, n: x.div(n),
    "x**n": lambda x, n: x**n,
    "pow": lambda x, n: torch.pow(x, n),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(NUMBER_OPS))
def test_every_kind_of_number_operand_matches_the_full_path(name, dtype, spy):
    op = NUMBER_OPS[name]
    x = leaf(2, 3, dtype=dtype)
    for n in NUMBERS:

        def scenario(n=n):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = op(x, n)
                seen = (obs(y), node_obs(y), y.grad_fn._saved)
                (g,) = torch.autograd.grad(y, x, torch.ones_like(y) * 0.5)
            return seen[:2], repr(seen[2]).split("[")[0], g

        same(scenario, spy)


@pytest.mark.parametrize(
    "number",
    [True, np.float64(2.0), np.float32(2.0), np.int64(3), np.array(2.0), 2 + 0j],
    ids=lambda v: type(v).__name__,
)
def test_numbers_of_other_classes_keep_the_full_path(number, spy):
    """A bool, a NumPy scalar or 0-d array, a complex as the right operand: not a Python
    int/float, so not the fast route (torch reads them its own ways: a bool as an int, a NumPy
    scalar as a tensor). On the left, a NumPy scalar is read as the Python number torch reads
    (minitorch/_numpy_interop.py), which may take it: both routes agree either way."""
    x = leaf(3)
    for name, op in NUMBER_OPS.items():
        before = spy.calls
        fast = attempt(lambda op=op: op(x, number))
        if not name.startswith("n"):
            assert spy.calls == before, name
        function.fast_path[0] = False
        try:
            full = attempt(lambda op=op: op(x, number))
        finally:
            function.fast_path[0] = True
        assert fast == full


def test_int_and_float_subclasses_keep_the_full_path(spy):
    class Level(enum.IntEnum):
        HIGH = 3

    class Half(float):
        pass

    x = leaf(3)
    for n in (Level.HIGH, Half(0.5)):
        for op in NUMBER_OPS.values():
            before = spy.calls
            fast = attempt(lambda op=op, n=n: op(x, n))
            assert spy.calls == before
            function.fast_path[0] = False
            try:
                full = attempt(lambda op=op, n=n: op(x, n))
            finally:
                function.fast_path[0] = True
            assert fast == full


# --- graph and saved values --------------------------------------------------------------


def _ops(a, b):
    """Each fast-route op of a (and b), as recorded results."""
    return [
        a * b, a + b, a - b, a / b, b * a, a * 2, 3.5 * a, a + 1, 1 - a, a / 4,
        a.exp(), (a.abs() + 0.5).log(), a.abs().sqrt(), a.tanh(), a.sigmoid(), a.sum(),
        torch.sum(b), torch.exp(b), torch.tanh(b), torch.sigmoid(b), a**2, b**0.5, a.pow(-1),
        -a, torch.neg(b),
    ]  # fmt: skip


@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
def test_node_api_of_each_recorded_node(needs, spy):
    def scenario():
        a = leaf(3, 4).requires_grad_(needs[0])
        b = leaf(3, 4, seed=1, shift=3).requires_grad_(needs[1])
        return [(obs(y), node_obs(y), y._version) for y in _ops(a, b) if y.requires_grad]

    same(scenario, spy)


def test_inputs_of_every_layout(spy):
    """Transposed, expanded (stride 0), sliced with a step, broadcast, 0-d and empty inputs."""

    def scenario():
        base = leaf(4, 6)
        b = leaf(6, 4, seed=1, shift=3)
        cases = [
            (base.t(), b),
            (base[:, ::2].t(), b[::2]),
            (leaf(4, seed=2).expand(6, 4), b),
            (leaf(1, 4, seed=3), b),
            (leaf(seed=4), leaf(seed=5, shift=2)),
            (leaf(0, 4, seed=6), b[:1]),
        ]
        out = []
        for a, c in cases:
            ys = _ops(a, c)
            gs = torch.autograd.grad(sum(y.sum() for y in ys), (a, c) if c.requires_grad else a)
            out.append(([(obs(y), node_obs(y)) for y in ys], gs))
        return out

    same(scenario, spy)


def test_views_whose_base_changed_in_place(spy):
    """A view input whose base was changed in place gets its regenerated node (the edge goes to
    AsStridedBackward0) on both routes, and the same gradients."""

    def scenario():
        out = []
        for op in (lambda v: v * 2, lambda v: v * v, lambda v: v.exp(), lambda v: v.sum()):
            x = leaf(6)
            base = x.clone()
            v = base[1:5:2]
            base.mul_(3)
            y = op(v)
            ng = node_obs(y)
            (g,) = torch.autograd.grad(y.sum(), x)
            out.append((ng, obs(v), g))
        return out

    same(scenario, spy)


def test_hooks_on_tensors_and_nodes(spy):
    def scenario():
        log = []
        a = leaf(3)
        b = leaf(3, seed=1)
        a.register_hook(lambda g: log.append(("a", obs(g))))
        c = a * 1.5
        c.retain_grad()
        c.register_hook(lambda g: log.append(("c", obs(g))))
        y = c * b
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        y.grad_fn.register_hook(lambda gi, go: log.append(("node", obs(gi), obs(go))))
        y.grad_fn.register_prehook(lambda go: log.append(("pre", obs(go))))
        z = y.exp().sum()
        z.grad_fn.register_prehook(lambda go: log.append(("zpre", obs(go))))
        b.register_post_accumulate_grad_hook(lambda t: log.append(("post", obs(t.grad))))
        z.backward()
        return log, c.grad, y.grad, a.grad, b.grad

    same(scenario, spy)


def test_saved_tensor_hooks_registered_on_a_node(spy):
    """_raw_saved_<name>.register_hooks on the fast route's nodes packs and unpacks as on the
    full route's."""

    def scenario():
        log = []
        a = leaf(3)
        b = leaf(3, seed=1)
        y = a * b
        y.grad_fn._raw_saved_self.register_hooks(
            lambda t: log.append("pack") or t * 1, lambda t: log.append("unpack") or t
        )
        z = a.exp()
        z.grad_fn._raw_saved_result.register_hooks(
            lambda t: log.append("pack r") or t, lambda t: log.append("unpack r") or t
        )
        (y + z).sum().backward()
        return log, a.grad, b.grad

    same(scenario, spy)


def test_backward_twice_and_retain_graph(spy):
    """The freed-graph error where a node saved something (a number counts), none where it
    saved nothing (a sum, x + 1)."""

    def scenario():
        out = []
        a = leaf(3)
        b = leaf(3, seed=1)
        makers = (
            lambda: a * b, lambda: a * 2, lambda: a / 2, lambda: 2 / a, lambda: a + 2,
            lambda: a - b, lambda: a.exp(), lambda: a.abs().log(), lambda: a.sigmoid(),
            lambda: a, lambda: a.tanh(),
        )  # fmt: skip
        for make in makers:
            y = make().sum()
            y.backward()
            out.append(attempt(y.backward))
            y = make().sum()
            y.backward(retain_graph=True)
            y.backward()
        return out, a.grad, b.grad

    same(scenario, spy)


def test_in_place_changes_after_recording(spy):
    """Inputs, results, detached aliases and views of them changed in place after the node was
    recorded: the same version errors (or none), in the same words."""

    def scenario():
        out = []
        a = leaf(3)
        b = leaf(3, seed=1)
        c = b.detach()
        y = a * c
        c.add_(1)  # an alias of an input saved for a's gradient
        out.append(attempt(lambda: y.sum().backward()))
        y = a.exp()
        y.detach().zero_()  # the saved result, through a detached alias
        out.append(attempt(lambda: y.sum().backward()))
        y = a.sigmoid()
        y[0:1].mul_(2)  # through a view of the saved result
        out.append(attempt(lambda: y.sum().backward()))
        x = a.clone()
        y = x.log()
        x.add_(1)  # log saves its input
        out.append(attempt(lambda: y.sum().backward()))
        x = a.clone()
        y = x + b
        x.add_(1)  # add saves nothing
        out.append(attempt(lambda: y.sum().backward()))
        y = a / 3
        y.mul_(3)  # an in-place op on the result: recorded on it
        out.append((obs(y), node_obs(y), y._version))
        y.sum().backward()
        x = a.clone()
        y = x * 2
        torch.autograd.graph.increment_version(x)  # a number is saved, not x: nothing to check
        out.append(attempt(lambda: y.sum().backward()))
        x = a.clone()
        y = 2 / x  # (rdiv: the full route; the mul inside is the fast route's)
        x.data.mul_(2)  # .data: no version bump, no error
        out.append(attempt(lambda: y.sum().backward()))
        return out, a.grad, b.grad

    same(scenario, spy)


def test_leaves_and_requires_grad_toggled_after_recording(spy):
    def scenario():
        a = leaf(3)
        b = leaf(3, seed=1)
        y = a * b
        b.requires_grad_(False)
        y.sum().backward()
        z = a * b
        acc = z.grad_fn.next_functions[0][0]
        return (
            a.grad, b.grad, node_obs(z), z.grad_fn.needs_input_grad,
            acc is (a + 1).grad_fn.next_functions[0][0], acc.variable is a,
        )  # fmt: skip

    same(scenario, spy)


# --- grad modes, threads, anomaly ----------------------------------------------------------


def test_grad_modes_and_inference_mode(spy):
    def scenario():
        a = leaf(3)
        out = []
        with torch.inference_mode():
            with torch.enable_grad():
                y = a * 2
                out.append((obs(y), y.is_inference()))
            with torch.inference_mode(False):
                y = a.exp()
                out.append((obs(y), y.is_inference()))
        with torch.no_grad():
            with torch.inference_mode(False):
                y = a + 1
                out.append((obs(y), y.is_inference()))
            with torch.enable_grad():
                y = a.sum()
                out.append((obs(y), y.is_inference()))
        with torch.set_grad_enabled(False):
            out.append(obs(a * a))
        return out

    same(scenario, spy)


def test_inference_tensors_as_operands(spy):
    """An inference tensor saved for backward is refused, one that is not saved is not (and an
    inference leaf that requires grad records as any leaf where nothing of it is saved)."""

    def scenario():
        with torch.inference_mode():
            c = torch.full((3,), 2.0)
            w = torch.ones(3, requires_grad=True)
        a = leaf(3)
        makers = (
            lambda: a * c, lambda: c * a, lambda: a + c, lambda: c - a, lambda: a / c,
            lambda: c / a, lambda: w.exp(), lambda: w.log(), lambda: w.sum(), lambda: w * 2,
            lambda: w + 1, lambda: w.sqrt(), lambda: w * a, lambda: w**2, lambda: -w,
        )  # fmt: skip
        out = []
        for make in makers:
            r = attempt(make)
            if r[0] != "E":
                y = make()
                r = (r, torch.autograd.grad(y.sum(), [t for t in (a, w) if _uses(y, t)]))
            out.append(r)
        return out

    same(scenario, spy)


def _uses(y, t):
    """Whether t's accumulator is on y's node's edges."""
    return any(
        f is not None and getattr(f, "variable", None) is t for f, _ in y.grad_fn.next_functions
    )


def test_torch_func_grad_sees_an_inference_tensor_saved(spy):
    """Inside a torch.func transform an inference tensor is saved (its levels wrap it)."""

    def scenario():
        with torch.inference_mode():
            c = torch.full((3,), 2.0)
        return torch.func.grad(lambda t: (t * c).log().sum() + (c * t).sum())(torch.ones(3))

    same(scenario, spy)


def test_grad_mode_per_thread(spy):
    def scenario():
        a = leaf(3)
        res = {}

        def worker(k):
            with torch.set_grad_enabled(k % 2 == 0):
                y = a * 2
                res[k] = (obs(y), obs(y.exp()))

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        with torch.no_grad():
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            res["main"] = obs(a * 2)
        return res

    same(scenario, spy)


def test_anomaly_mode_traces_and_nan_checks(spy):
    def scenario():
        a = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with torch.autograd.detect_anomaly():
                ys = [a * 2, a.exp(), a.sum(), a + a, a.sqrt()]
                traces = [_user_frames(y.grad_fn.metadata["traceback_"]) for y in ys]
                err = attempt(lambda: (a.log() * 0).sum().backward())
                # a double backward's nodes name the node whose backward made them
                b = leaf(3)
                (g,) = torch.autograd.grad((b * b).exp().sum(), b, create_graph=True)
                parents = sorted(
                    type(n.metadata.get("parent_")).__name__
                    for n in _walk(g.grad_fn)
                    if "parent_" in n.metadata
                )
        messages = [re.sub(_SPY_FRAME, "", str(m.message)) for m in w]
        return traces, err, parents, messages

    # anomaly mode pauses the fast route: every node is recorded by apply, with its trace
    traces, err, parents, messages = scenario()
    assert spy.calls == 0
    assert all(t and "ys = [a * 2, a.exp()" in t[-1] for t in traces)
    assert err == (
        "E",
        "RuntimeError",
        "Function 'LogBackward0' returned nan values in its 0th output.",
    )
    assert parents and set(parents) <= {"MulBackward0", "ExpBackward0", "SumBackward0"}
    assert messages[0].startswith("Anomaly Detection has been enabled")
    assert function.fast_path[0]  # (back on after the region)
    (leaf(3) * 2).sum()
    assert spy.calls == 2


_SPY_FRAME = r'  File "[^"]*", line \d+, in spy\n.*\n'


def _user_frames(trace):
    """An anomaly trace less the test's Spy frame (it calls record_pair/record_unary)."""
    return [line for line in trace if ", in spy\n" not in line]


def _walk(node):
    seen, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(f for f, _ in n.next_functions)


def test_warnings_made_errors(spy):
    """Under warnings-as-errors a NumPy RuntimeWarning of the kernel is the error on both
    routes (the pair ops' fast route falls back to the full one, which raises it)."""

    def scenario():
        a = torch.tensor([0.0, -1.0, 1e30], requires_grad=True)
        b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = [obs(a * b)]  # (the route is taken once before the errors)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for make in (
                lambda: a.log(), lambda: a / 0.0, lambda: a * 1e30, lambda: a.exp(),
                lambda: a.sqrt(), lambda: a / (b * 0), lambda: a.sum() * 1e300,
            ):  # fmt: skip
                out.append(attempt(make))
        return out

    same(scenario, spy)


# --- higher-order and transforms ------------------------------------------------------------


def test_create_graph_double_backward_and_gradgradcheck(spy):
    def scenario():
        a = leaf(3, dtype=torch.float64)
        b = leaf(3, seed=1, dtype=torch.float64, shift=2)
        y = (a * b * a / b + 1 - a).exp().sigmoid().tanh().sum() + (a.abs() + 1).log().sqrt().sum()
        (ga, gb) = torch.autograd.grad(y, (a, b), create_graph=True)
        gg = torch.autograd.grad((ga * gb).sum(), (a, b))
        f = lambda x, z: (x * z / (z + 3) - x).exp().sigmoid().tanh().sum() * 2.5  # noqa: E731
        checks = (
            torch.autograd.gradcheck(f, (a, b)), torch.autograd.gradgradcheck(f, (a, b)),
        )  # fmt: skip
        return ga, gb, node_obs(ga), gg, checks

    same(scenario, spy)


def test_autograd_functional_and_torch_func(spy):
    def scenario():
        a = leaf(3, dtype=torch.float64).detach()
        out = [
            torch.autograd.functional.jacobian(lambda x: (x * x).exp() / 2 + x.sum(), a),
            torch.autograd.functional.hessian(lambda x: (x * x).exp().sum(), a),
            torch.func.grad(lambda x: (x * x).exp().sum())(a),
            torch.func.jacrev(lambda x: x.tanh() / 3)(a),
            torch.func.jacfwd(lambda x: x.exp() * 2)(a),
            torch.func.hessian(lambda x: (x * x * x).sum())(a),
            torch.func.vmap(lambda x: (x * 2).exp().sum())(torch.ones(4, 3)),
            torch.func.vmap(torch.func.grad(lambda x: (x * x).sigmoid().sum()))(torch.ones(4, 3)),
        ]
        value, vjp_fn = torch.func.vjp(lambda x: x.sigmoid() * 2, a)
        out += [value, vjp_fn(torch.ones(3, dtype=torch.float64))]
        torch.manual_seed(0)
        lin = torch.nn.Linear(3, 2).double()
        params = {k: v.detach() + 0.5 for k, v in lin.named_parameters()}
        out.append(
            torch.func.grad(lambda p: (torch.func.functional_call(lin, p, (a,)) * 3).exp().sum())(
                params
            )
        )
        return out

    same(scenario, spy)


def test_forward_ad_dual_tensors(spy):
    def scenario():
        a = leaf(3, dtype=torch.float64).detach()
        t = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
        with dual_level():
            d = make_dual(a, t)
            y = (d * d).exp() / 2 + d.sum() - 1 + d.sigmoid() * d.tanh()
            primal, tangent = unpack_dual(y)
        return primal, tangent

    same(scenario, spy)


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint(reentrant, spy):
    def scenario():
        a = leaf(3)
        b = leaf(3, seed=1)

        def f(x, y):
            return (x * y).exp().sum() + (x / y).sigmoid().sum() - x.sum()

        # (the non-reentrant checkpoint records under saved-tensor hooks: the full route; the
        # ops around it take the fast one)
        y = checkpoint(f, a, b, use_reentrant=reentrant) * 0.5 + a.sum()
        y.backward()
        return y, a.grad, b.grad

    same(scenario, spy)


def test_saved_tensor_hook_regions(spy):
    """With saved-tensor hooks in force the full route runs (and packs); with hooks disabled,
    the fast route. save_on_cpu and allow_mutation_on_saved_tensors are hooks."""

    def scenario():
        a = leaf(3)
        with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            y = a * 2 + a.exp()  # (the fast route)
        y.sum().backward()
        packed = []
        with torch.autograd.graph.saved_tensors_hooks(
            lambda t: packed.append(obs(t)) or t, lambda t: t
        ):
            z = (a * a).sigmoid().sum()
        z.backward()
        with torch.autograd.graph.save_on_cpu():
            z = (a * a).sum()
        z.backward()
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            z = b * b
            b.add_(1)
            z.sum().backward()
        return a.grad, packed

    same(scenario, spy)


def test_profile_and_flop_counter_see_every_op(spy):
    """An observer of every op turns the fast route off (the events are the full route's)."""
    a = leaf(3)
    before = spy.calls
    with torch.profiler.profile() as prof:
        ((a * 2).exp() + a).sum().backward()
    from minitorch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False):
        ((a * 2).exp() + a).sum().backward()
    assert spy.calls == before
    assert [e.name for e in prof.events()][:4] == ["Mul", "Exp", "Add", "Sum"]
    (a * 2).sum()
    assert spy.calls == before + 2


# --- lifetime, copies, classes -----------------------------------------------------------


def test_graph_liveness(spy):
    """A recorded graph dies with its last tensor; many steps leave no tensors behind."""

    def scenario():
        a = leaf(16)
        y = ((a * 2).exp() + a).sum()
        refs = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
        del y
        gc.collect()
        dead = [r() is None for r in refs]
        gc.collect()
        count0 = sum(type(o) is torch.Tensor for o in gc.get_objects())
        for _ in range(20):
            z = ((a * 2 + 1) / 3 - a).exp().sigmoid().tanh().sum()
            z.backward()
            del z
        gc.collect()
        return dead, sum(type(o) is torch.Tensor for o in gc.get_objects()) - count0

    fast, full = routes(scenario, spy)
    assert fast == full == ((True, True), 1)  # a.grad is the one new tensor


def test_copies_of_recorded_results(spy):
    def scenario():
        a = leaf(3)
        y = a * 2
        buf = io.BytesIO()
        torch.save(y.detach(), buf)
        buf.seek(0)
        return (
            attempt(lambda: copy.deepcopy(y)),
            attempt(lambda: copy.deepcopy(a.exp().detach())),
            torch.load(buf),
            repr(y),
            repr(a.sum()),
        )

    same(scenario, spy)


def test_parameters_and_subclasses_keep_the_full_path(spy):
    class Sub(torch.Tensor):
        pass

    p = torch.nn.Parameter(torch.ones(3))
    s = torch.ones(3).as_subclass(Sub).requires_grad_()
    x = torch.ones(3)
    makers = (
        lambda: p * 2, lambda: p * x, lambda: x * p, lambda: p.exp(), lambda: p.sum(),
        lambda: s * 2, lambda: s * x, lambda: x + s, lambda: s.exp(), lambda: s.sum(),
    )  # fmt: skip
    for make in makers:
        before = spy.calls
        fast = attempt(make)
        assert spy.calls == before
        function.fast_path[0] = False
        try:
            full = attempt(make)
        finally:
            function.fast_path[0] = True
        assert fast == full


def test_float8_and_half_pairs(spy):
    def scenario():
        out = []
        for dt in (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2):
            a = torch.tensor([1.0, 2.0, 0.5]).to(dt).requires_grad_()
            b = torch.tensor([2.0, 0.25, 3.0]).to(dt)
            for make in (
                lambda a, b: a * b, lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a / b,
                lambda a, b: a + a, lambda a, b: a * a, lambda a, b: a.exp(),
                lambda a, b: a.sum(), lambda a, b: a * 3,
            ):  # fmt: skip
                r = attempt(lambda make=make, a=a, b=b: make(a, b).float())
                if r[0] != "E":
                    (g,) = torch.autograd.grad(make(a, b).float().sum(), a)
                    r = (r, obs(g.float()))
                out.append(r)
        return out

    same(scenario, spy)


def test_training_steps(spy):
    def scenario():
        torch.manual_seed(0)
        lin = torch.nn.Linear(4, 3)
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        x = torch.randn(5, 4)
        for _ in range(3):
            opt.zero_grad()
            out = lin(x)
            loss = (out * out).sum() / 5 + out.exp().sum() * 0.01 - out.sigmoid().sum()
            loss = loss + out.tanh().sum() + (out - 1).sum()
            loss.backward()
            opt.step()
        return lin.weight, lin.bias

    same(scenario, spy)


def _program(seed):
    """A random program of fast-route ops, views and in-place changes on tensors of one dtype,
    then first and (sometimes) second order gradients."""
    rnd = random.Random(seed)
    g = np.random.default_rng(seed)
    dt = rnd.choice([torch.float32, torch.float64, torch.float16])
    leaves, pool, log = [], [], []
    for _ in range(3):
        shape = rnd.choice([(3, 4), (4,), (1, 4), (3, 1), (), (0, 4)])
        t = torch.tensor(g.standard_normal(shape) + 1.5, dtype=dt)
        if rnd.random() < 0.7:
            leaves.append(t.requires_grad_())
        pool.append(t)
    for _ in range(12):
        k = rnd.random()
        a = rnd.choice(pool)
        b = rnd.choice(pool + [2, 0.5, -1, 3.25, 0, -0.0])
        if k < 0.4:
            name = rnd.choice(["*", "+", "-", "/", "r*", "r+", "r-"])
            y = attempt(lambda name=name, a=a, b=b: _binary(name, a, b))
            log.append((name, y))
            if y[0] != "E":
                pool.append(_binary(name, a, b))
        elif k < 0.7:
            name = rnd.choice(["exp", "log", "sqrt", "tanh", "sigmoid", "sum"])
            src = a.abs() + 0.1 if name in ("log", "sqrt") else a
            pool.append(getattr(src, name)())
            log.append((name, obs(pool[-1])))
        elif k < 0.8:
            pool.append(a[1:] if a.dim() == 2 and a.shape[0] > 1 else a.unsqueeze(0))
            log.append(("view", obs(pool[-1])))
        elif k < 0.9 and a.grad_fn is not None:
            log.append(("mul_", attempt(lambda a=a: a.mul_(1.5))))
        else:
            log.append(("detach add_", attempt(lambda a=a: a.detach().add_(0.0))))
    outs = [t for t in pool if t.requires_grad][-4:]
    if outs:
        total = sum(t.float().sum() * (i + 1) for i, t in enumerate(outs))
        create = rnd.random() < 0.5
        gs = attempt(
            lambda: torch.autograd.grad(total, leaves, allow_unused=True, create_graph=create)
        )
        log.append(gs)
    return log


def _binary(name, a, b):
    return {
        "*": lambda: a * b, "+": lambda: a + b, "-": lambda: a - b, "/": lambda: a / b,
        "r*": lambda: b * a, "r+": lambda: b + a, "r-": lambda: b - a,
    }[name]()  # fmt: skip


def test_random_programs(spy):
    for seed in range(60):

        def scenario(seed=seed):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return _program(seed)

        fast, full = [], []
        for on, into in ((True, fast), (False, full)):
            function.fast_path[0] = on
            try:
                into.append(scenario())
            finally:
                function.fast_path[0] = True
        assert fast == full, seed
    assert spy.calls > 0


# --- the products, relu, mean, logsumexp and index tensors (helper "mlp"'s routes) ----------


def _mlp_ops(a, b, idx):
    return [
        a @ b, torch.mm(a, b), torch.matmul(a, b), a.mm(b), torch.relu(a), a.relu(),
        torch.nn.functional.relu(a), a.mean(), a.mean(0), a.mean(-1), a.mean(1, keepdim=True),
        a.logsumexp(0), a.logsumexp(-1), torch.logsumexp(a, 1, keepdim=True), a[idx],
        a[idx, idx], a[torch.tensor([0, 0, 1])], a[idx, torch.tensor([1, 1], dtype=torch.int32)],
    ]  # fmt: skip


def each_takes_its_route(spy):
    """Each of these ops records its node on the fast route: one record_pair/record_unary call
    apiece (the scenarios below also run sums, which take theirs)."""
    a = leaf(3, 4)
    b = leaf(4, 2, seed=1)
    for make in (
        lambda: a @ b, lambda: torch.mm(a, b), lambda: a.relu(), lambda: a.mean(),
        lambda: a.mean(1), lambda: a.logsumexp(1), lambda: a[torch.tensor([1, 0])],
    ):  # fmt: skip
        before = spy.calls
        make()
        assert spy.calls == before + 1


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)], ids=str)
def test_products_relu_means_and_indexing(needs, dtype, spy):
    each_takes_its_route(spy)

    def scenario():
        a = leaf(3, 4, dtype=dtype).requires_grad_(needs[0])
        b = leaf(4, 5, seed=1, dtype=dtype).requires_grad_(needs[1])
        out = []
        for y in _mlp_ops(a, b, torch.tensor([2, 0])):
            if y.requires_grad:
                ins = [t for t in (a, b) if t.requires_grad]
                gs = torch.autograd.grad(y, ins, torch.ones_like(y) * 0.5, create_graph=True)
                ggs = [
                    attempt(
                        lambda g=g, ins=ins: torch.autograd.grad(g.sum(), ins, allow_unused=True)
                    )
                    for g in gs
                    if g.requires_grad
                ]
                out.append((obs(y), node_obs(y), gs, ggs))
        return out

    same(scenario, spy)


def test_products_of_every_layout(spy):
    """Transposed, strided, empty, inner-dim-1 and larger (BLAS) operands."""
    each_takes_its_route(spy)

    def scenario():
        base = leaf(6, 4)
        pairs = [
            (base.t(), leaf(6, 3, seed=1)), (base[::2], leaf(2, 4, seed=1).t()),
            (leaf(0, 4), leaf(4, 3, seed=1)), (leaf(3, 0), leaf(0, 2, seed=1)),
            (leaf(3, 1), leaf(1, 5, seed=1)), (leaf(1, 1), leaf(1, 1, seed=1)),
            (leaf(40, 50), leaf(50, 60, seed=1)), (leaf(300, 2), leaf(2, 300, seed=1)),
        ]  # fmt: skip
        out = []
        for a, b in pairs:
            y = a @ b
            ys = [y, a.relu(), a.mean(0), a.mean(), a.logsumexp(1)]
            ys.append(a[torch.tensor([0, 0])] if a.shape[0] else a[torch.tensor([0])[:0]])
            gs = torch.autograd.grad(sum(t.sum() for t in ys), (a, b))
            out.append(([(obs(t), node_obs(t)) for t in ys], gs))
        return out

    same(scenario, spy)


def test_saved_operands_of_the_products_relu_and_logsumexp(spy):
    """Version errors (or none) after in-place changes, freed graphs, inference tensors."""
    each_takes_its_route(spy)

    def scenario():
        out = []
        a = leaf(3, 4)
        b = leaf(4, 5, seed=1)
        x = a.clone()
        y = x @ b
        x.add_(1)
        out.append(attempt(lambda: y.sum().backward()))
        c = b.detach()
        y = a @ c
        c.mul_(2)
        out.append(attempt(lambda: y.sum().backward()))
        y = a.relu()
        y.detach().zero_()
        out.append(attempt(lambda: y.sum().backward()))
        x = a.clone()
        y = x.logsumexp(1)
        x.add_(1)
        out.append(attempt(lambda: y.sum().backward()))
        y = a.logsumexp(1)
        y.add_(1)
        out.append(attempt(lambda: y.sum().backward()))
        x = a.clone()
        y = x.mean(0)
        x.add_(1)  # mean saves nothing
        out.append(attempt(lambda: y.sum().backward()))
        idx = torch.tensor([1, 0])
        y = a[idx]
        idx.add_(1)  # the index tensor, read at backward
        out.append(attempt(lambda: y.sum().backward()))
        for make in (
            lambda: a @ b, lambda: a.relu(), lambda: a.logsumexp(1), lambda: a.mean(0),
            lambda: a[torch.tensor([1])],
        ):  # fmt: skip
            y = make().sum()
            y.backward()
            out.append(attempt(y.backward))
        with torch.inference_mode():
            i = torch.ones(4, 5)
            j = torch.ones(3, 4, requires_grad=True)
        for make in (
            lambda: a @ i, lambda: i.t() @ a.t(), lambda: j.relu(), lambda: j.logsumexp(1),
            lambda: j.mean(0), lambda: j[torch.tensor([1])], lambda: j @ b,
        ):  # fmt: skip
            out.append(attempt(make))
        return out, a.grad, b.grad

    same(scenario, spy)


def test_products_relu_means_and_indexing_under_transforms(spy):
    each_takes_its_route(spy)

    def scenario():
        a = leaf(3, 4, dtype=torch.float64).detach()
        b = leaf(4, 2, seed=1, dtype=torch.float64).detach()

        def f(x):
            y = (x @ b).relu().logsumexp(1) + x.mean(1) + x[torch.tensor([0, 2])].sum()
            return y.sum()

        x = a.clone().requires_grad_()
        views = []
        for op in (lambda v: v @ b[:2], lambda v: v.relu(), lambda v: v.logsumexp(0)):
            w = leaf(4, 2)
            base = w.clone()
            v = base[1:3]
            base.mul_(3)  # v's node is regenerated: AsStridedBackward0
            y = op(v)
            views.append((node_obs(y), torch.autograd.grad(y.sum(), w)))
        return (
            torch.func.grad(f)(a), torch.func.hessian(f)(a), torch.autograd.gradcheck(f, (x,)),
            torch.autograd.gradgradcheck(f, (x,)), views,
        )  # fmt: skip

    same(scenario, spy)


# --- torch.add / torch.sub of 0-d tensors with an alpha: an array on both routes --------------


def test_alpha_of_zero_dim_tensors_makes_an_array_on_both_routes():
    a = torch.tensor(1.0)
    b = torch.tensor(2.0)
    seen = []
    for on in (True, False):
        function.fast_path[0] = on
        try:
            with torch.no_grad():
                y = torch.add(a, b, alpha=2)
                z = torch.sub(a, b, alpha=3)
            seen.append((type(y._data), type(z._data), attempt(lambda y=y: y.add_(1))))
        finally:
            function.fast_path[0] = True
    assert seen[0] == seen[1] == (np.ndarray, np.ndarray, obs(torch.tensor(6.0)))
