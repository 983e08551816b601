"""Session 46 (helper red): var/std's no-grad fast path, scalar two-pass kernel and data-level
backward; add/sub's float32 alpha without an errstate; 2 ** x's PowBackward2 saving its number.
Each is checked bit for bit against the route it stands for (the general route with the fast
paths off, the Tensor backward formula) and against the kernels written out in NumPy as the
previous code computed them."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import engine
from tests._fastpath import both, error_of, full_path

# --- var / std ---


def _old_moments(x: np.ndarray, dim, correction=1, keepdim=False):
    """The previous _moments for float32/float64 (dof > 0): the two-pass kernel over all
    elements, the first-element shift along a dim; float64 (the caller rounds once)."""
    acc = np.float64
    axis = None if dim is None else (dim,)
    n = x.size if dim is None else x.shape[dim]
    if n == x.size:  # one output: the mean in x's dtype, the deviations in float64
        m = np.add.reduce(x, axis=axis, keepdims=True) / n
        d = np.subtract(x, m.astype(acc), dtype=acc)
    else:  # along a dim: shifted by each slice's first element
        first = (slice(None),) * dim + (slice(0, 1),)
        d = x.astype(acc) - x[first]
        d -= np.add.reduce(d, axis=axis, keepdims=True) / n
    v = np.add.reduce(d * d, axis=axis, keepdims=True) / (n - correction)
    if not keepdim:
        v = v.reshape(() if dim is None else x.shape[:dim] + x.shape[dim + 1 :])
    return np.asarray(v)


def _arrays():
    rng = np.random.default_rng(46)
    out = []
    for shape in [(3, 4), (7,), (2, 3, 5), (1, 6)]:
        base = rng.standard_normal(shape)
        out += [base, base * 1e-2 + 1e4, np.full(shape, 0.1)]
    return out


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_fast_path_matches_the_previous_kernel(op, dt):
    checked = 0
    for base in _arrays():
        src = base.astype(dt)
        for x_np in (src, src.T):  # (a transposed array: the sums' order of a strided input)
            x = torch.from_numpy(x_np)
            calls = [((), {}, None, False)]
            for d in range(x_np.ndim):
                if x_np.shape[d] > 1:
                    calls += [((d,), {}, d, False), ((d - x_np.ndim,), {"keepdim": True}, d, True)]
            for args, kw, dim, keep in calls:
                fast, full = both(lambda x=x, args=args, kw=kw: getattr(x, op)(*args, **kw))
                want = _old_moments(x_np, dim, keepdim=keep)
                want = (np.sqrt(want) if op == "std" else want).astype(dt)
                want_shape = want.shape
                for r in (fast, full):
                    assert r.dtype is getattr(torch, dt) and r.grad_fn is None
                    assert r.shape == full.shape == want_shape and r.stride() == full.stride()
                    assert r.numpy().tobytes() == full.numpy().tobytes()
                assert fast.numpy().tobytes() == want.tobytes(), (op, dt, args, x_np.shape)
                checked += 1
    assert checked > 50


def test_var_std_fast_path_literals():
    # the previous code's values (float32: the float64 two-pass of data far from 0 rounded once)
    x = torch.tensor([[1.0, 2.0, 4.0, 7.0], [0.5, -0.25, 3.0, 1e4]])
    with torch.no_grad():
        assert x.var().item() == 12493845.0
        assert x.var(1).tolist() == [7.0, 24994586.0]
        assert x.std(0, keepdim=True).tolist() == [
            [0.3535533845424652, 1.5909903049468994, 0.7071067690849304, 7066.1181640625]
        ]
        assert x.double().var().item() == 12493845.302455356
        # a constant slice's variance is exactly 0 (the shifted kernel)
        assert torch.full((3, 5), 0.1).var(1).tolist() == [0.0, 0.0, 0.0]


def test_var_std_other_calls_take_the_general_route():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    for call in (
        lambda: x.var(1, unbiased=False),
        lambda: x.std(correction=0),
        lambda: x.var((0, 1)),
        lambda: torch.var(x, 1, True),
        lambda: x.std(-1, keepdim=True),
        lambda: x.half().var(1),
    ):
        fast, full = both(call)
        assert fast.numpy().tobytes() == full.numpy().tobytes()
    # errors as before: the fast path takes none of these
    assert error_of(lambda: x.var(5))[0] is IndexError
    assert error_of(lambda: torch.tensor([1, 2]).var())[1] == (
        "std and var only support floating point and complex dtypes"
    )
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert torch.isnan(torch.ones(1).var())
        assert torch.isnan(torch.ones(4, 1).std(1)).all()
    assert sum("degrees of freedom is <= 0" in str(m.message) for m in w) == 2


def test_var_std_recorded_nodes_unchanged():
    x = torch.randn(3, 4, requires_grad=True)
    v = x.var(1)
    assert type(v.grad_fn).__name__ == "VarBackward0"
    assert v.grad_fn._saved_dim == (1,) and v.grad_fn._saved_correction == 1
    s = x.std()
    assert type(s.grad_fn).__name__ == "StdBackward0" and s.grad_fn._saved_dim is None
    assert s.grad_fn._saved_correction is None and s.grad_fn._saved_result.equal(s)
    with torch.inference_mode():
        assert x.var().grad_fn is None
    # a profile turns the fast path off: the op shows in it
    with torch.no_grad(), torch.autograd.profiler.profile() as prof:
        x.detach().var(1)
    assert [e.name for e in prof.function_events] == ["Var"]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_data_backward_matches_the_tensor_formula(op, dt, monkeypatch):
    rng = np.random.default_rng(7)
    cases = [((3, 4), ()), ((3, 4), (1,)), ((3, 4), (0, True, True)), ((5,), (0,))]
    cases += [((2, 3, 4), (1,)), ((2, 3, 4), (-1, False, True))]
    cases += [((3, 4), ((0, 1),)), ((2, 3), ()), ((4, 5), (1,))]
    for shape, args in cases:
        base = rng.standard_normal(shape).astype(dt)
        if shape == (4, 5):
            base[1] = 2.5  # a constant row: std's zero branch
        grads = {}
        g = None
        for data in (True, False):
            monkeypatch.setattr(engine, "DATA_BACKWARD", data)
            x = torch.tensor(base, requires_grad=True)
            out = getattr(x, op)(*args)
            if g is None:  # (a random upstream gradient, the same for both)
                g = torch.tensor(rng.standard_normal(out.shape).astype(dt))
            out.backward(g)
            grads[data] = x.grad.numpy()
        assert grads[True].tobytes() == grads[False].tobytes(), (op, shape, args)
        assert np.isfinite(grads[True]).all()


def test_var_std_gradcheck():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    for fn in (lambda t: t.var(1), lambda t: t.std(), lambda t: t.std(0, True), torch.var):
        assert torch.autograd.gradcheck(fn, (x,))
        assert torch.autograd.gradgradcheck(fn, (x,))


# --- add / sub with alpha ---


def _fused32(a, b, alpha):
    return (b.astype("float64") * float(np.float32(alpha)) + a).astype("float32")


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("alpha", [2, 0.5, -3, 1e-3, 7.25])
def test_add_sub_alpha(alpha, dt):
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((3, 4)).astype(dt)
    b_np = rng.standard_normal((3, 4)).astype(dt)
    a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
    for op, sign in ((torch.add, 1), (torch.sub, -1)):
        fast, full = both(lambda op=op: op(a, b, alpha=alpha))
        assert fast.dtype is getattr(torch, dt) and fast.shape == (3, 4)
        assert fast.numpy().tobytes() == full.numpy().tobytes()
        if dt == "float32":  # one rounding of the float64 sum (exact product)
            assert fast.numpy().tobytes() == _fused32(a_np, b_np, sign * alpha).tobytes()
        else:  # Dekker's exact product: the exact value rounded once
            exact = [
                float(Fraction(p) + Fraction(sign * alpha) * Fraction(q))
                for p, q in zip(a_np.ravel().tolist(), b_np.ravel().tolist(), strict=True)
            ]
            assert fast.numpy().ravel().tolist() == exact
    # broadcasting, and the sizes BLAS takes (the route before): as the general route
    for shape_b in [(4,), (1, 4)]:
        bb = torch.from_numpy(rng.standard_normal(shape_b).astype(dt))
        fast, full = both(lambda bb=bb: torch.add(a, bb, alpha=alpha))
        assert fast.numpy().tobytes() == full.numpy().tobytes()
    for n in (63, 64, 4096):
        big = torch.from_numpy(rng.standard_normal(n).astype(dt))
        fast, full = both(lambda big=big: torch.sub(big, big.flip(0), alpha=alpha))
        assert fast.numpy().tobytes() == full.numpy().tobytes()


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_add_alpha_specials(dt):
    big = 3e38 if dt == "float32" else 1.7e308
    a = torch.tensor([big, float("inf"), -1.0, float("nan"), 1e-300], dtype=getattr(torch, dt))
    b = torch.tensor([big, float("inf"), 1.0, 0.0, 1e-300], dtype=getattr(torch, dt))
    with full_path():
        want = torch.add(a, b, alpha=2).numpy().tobytes()
        want_sub = torch.sub(a, b, alpha=-2.0).numpy().tobytes()
    assert torch.add(a, b, alpha=2).tolist()[:3] == [float("inf"), float("inf"), 1.0]
    # the fast path is silent as before, where warnings are errors or NumPy raises (its
    # errstate route answers)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.add(a, b, alpha=2).numpy().tobytes() == want
    old = np.seterr(over="raise", invalid="raise")
    try:
        assert torch.sub(a, b, alpha=-2.0).numpy().tobytes() == want_sub
    finally:
        np.seterr(**old)
    x = torch.zeros(3)
    assert error_of(lambda: torch.add(x, torch.zeros(4), alpha=2))[0] is RuntimeError
    assert error_of(lambda: torch.add(x, x, alpha=True))[0] is RuntimeError
    g = torch.ones(3, requires_grad=True)
    r = torch.add(g, x, alpha=2.5)
    assert type(r.grad_fn).__name__ == "AddBackward0" and r.grad_fn._saved_alpha == 2.5


# --- pow with a number base ---


@pytest.mark.parametrize(
    "base, saved",
    [(2, 2), (2.5, 2.5), (True, True), (-3, -3), (np.int64(2), 2), (np.float32(1.5), 1.5),
     (np.bool_(True), 1.0)],
)  # fmt: skip
def test_pow_number_base_saves_the_number(base, saved):
    x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
    y = torch.pow(base, x)
    fn = y.grad_fn
    assert type(fn).__name__ == "PowBackward2"
    assert fn._saved_self == saved and type(fn._saved_self) is type(saved)
    assert fn._saved_exponent is x and fn._saved_result.equal(y)
    assert [n for n in dir(fn) if "saved" in n] == [
        "_raw_saved_exponent", "_raw_saved_result", "_saved_exponent", "_saved_result",
        "_saved_self",
    ]  # fmt: skip
    assert error_of(lambda: fn._raw_saved_self)[0] is AttributeError
    ((edge, nr),) = fn.next_functions  # the exponent's alone
    assert type(edge).__name__ == "AccumulateGrad" and edge.variable is x and nr == 0
    y.sum().backward()
    assert fn._saved_self == saved  # a number: not freed with the saved tensors


def test_pow_number_base_gradients():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad((2**x).sum(), x)
    np.testing.assert_allclose(g.numpy(), np.log(2) * 2 ** x.detach().numpy(), rtol=1e-15)
    assert torch.autograd.gradcheck(lambda t: 2.5**t, (x,))
    assert torch.autograd.gradgradcheck(lambda t: 3**t, (x,))
    assert (2 ** x.detach()).grad_fn is None
    assert type((x**2).grad_fn).__name__ == "PowBackward0"
    assert type(torch.pow(x, x).grad_fn).__name__ == "PowBackward1"
    with full_path():
        assert type((2**x).grad_fn).__name__ == "PowBackward2"


def test_var_mean_std_mean_fast_path():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((4, 5)).astype("float32")
    special = base.copy()
    special[0, 1], special[2] = np.inf, np.nan  # (the Welford mean's inf/nan rule)
    big = np.full((2, 3), 3e38, dtype="float32")  # (a float32 sum that overflows)
    for a in (base, special, big):
        x = torch.from_numpy(a)
        for op in (torch.var_mean, torch.std_mean):
            for args, kw in [((), {}), ((1,), {}), ((0,), {"keepdim": True}), ((-1, True), {})]:
                fast, full = both(lambda x=x, op=op, args=args, kw=kw: op(x, *args, **kw))
                assert type(fast) is tuple and len(fast) == 2
                for f, g in zip(fast, full, strict=True):
                    assert f.shape == g.shape and f.dtype is g.dtype and f.grad_fn is None
                    assert f.numpy().tobytes() == g.numpy().tobytes()
    xg = torch.from_numpy(base).requires_grad_()
    v, m = torch.var_mean(xg, 1)
    assert type(v.grad_fn).__name__ == "VarMeanBackward0" and v.grad_fn is m.grad_fn


# --- randn of few elements ---


@pytest.fixture
def keep_rng_state():
    state = torch.get_rng_state()
    yield
    torch.set_rng_state(state)


def test_randn_few_elements_literals(keep_rng_state):
    # torch's numbers for manual_seed(0) (the previous route's too)
    torch.manual_seed(0)
    assert torch.randn(5).tolist() == [
        1.5409960746765137, -0.293428897857666, -2.1787893772125244, 0.5684312582015991,
        -1.0845223665237427,
    ]  # fmt: skip
    assert torch.randn(3, dtype=torch.float64).tolist() == [
        -1.3985953953708767, 0.4033468476292993, 0.8380263329976598,
    ]  # fmt: skip
    assert torch.randn(2, 2).tolist() == [
        [-0.7192575931549072, -0.40334352850914], [-0.5966353416442871, 0.18203648924827576],
    ]  # fmt: skip
    assert torch.randn(1).tolist() == [-0.8566746115684509]


def test_randn_few_elements_match_the_previous_route(monkeypatch, keep_rng_state):
    """_few_normals against torch_floats (the route it replaces), call after call: the same
    numbers, dtypes, shapes, and the same stream state after each (the cached second normal of
    an odd count)."""
    from minitorch import random as mt_random

    sizes = [(n,) for n in range(16)] + [(3, 4), (2, 0), (), (1, 1, 5), (5, 3), (16,), (33,)]

    def run():
        out = []
        torch.manual_seed(46)
        for size in sizes:
            for dt in (None, torch.float64, torch.float32):
                t = torch.randn(*size, dtype=dt) if size else torch.randn((), dtype=dt)
                out.append((t.numpy().tobytes(), t.shape, t.dtype, t.stride()))
                out.append(torch.get_rng_state().numpy().tobytes())
            out.append(torch.empty(3).normal_().numpy().tobytes())
        return out

    taken = []
    real = mt_random._few_normals

    def counting(*args):
        taken.append(args[1])
        return real(*args)

    monkeypatch.setattr(mt_random, "_few_normals", counting)
    new = run()
    assert len(taken) == 3 * 21  # the sizes of fewer than 16 elements, in each dtype
    monkeypatch.setattr(
        mt_random,
        "_few_normals",
        lambda s, n, dt: mt_random.torch_floats(s, "standard_normal", (n,), dt),
    )
    assert run() == new


# --- scatter with a number src ---


def test_scatter_by_needs_no_call_site(monkeypatch):
    from minitorch._arg_errors import NOT_GIVEN
    from minitorch._ops import scatter_gather

    x = torch.zeros(3, 4)
    i = torch.tensor([[0], [1], [2]])
    t = torch.arange(12.0).view(3, 4)
    want = x.scatter(1, i, 1.5)
    want_t = x.scatter(1, i, t)
    want_red = x.scatter(1, i, 2.0, reduce="add")

    def no_look(*args):
        raise AssertionError("the call site was read")

    monkeypatch.setattr(scatter_gather, "passed_by_keyword", no_look)
    by = scatter_gather.scatter_by
    assert by("scatter", x, 1, i, (1.5,), NOT_GIVEN, None, None).equal(want)
    assert by("scatter", x, 1, i, (), t, None, None).equal(want_t)
    assert by("scatter", x, 1, i, (2.0,), NOT_GIVEN, None, "add").equal(want_red)
    y = x.clone()
    assert by("scatter_", y, 1, i, (1.5,), NOT_GIVEN, None, None) is y and y.equal(want)
    for op in ("scatter", "scatter_"):  # src=number: no overload takes it
        err = error_of(lambda op=op: by(op, x.clone(), 1, i, (), 1.5, None, None))
        assert err[0] is TypeError and "invalid combination of arguments" in err[1]
        err = error_of(lambda op=op: by(op, x.clone(), 1, i, (t,), t, None, None))
        assert err == (TypeError, f"{op}() got multiple values for argument 'src'")
        err = error_of(lambda op=op: by(op, x.clone(), 1, i, (t, 5), NOT_GIVEN, None, None))
        assert err[0] is TypeError and "invalid combination of arguments" in err[1]


def test_scatter_number_src_errors_unchanged():
    x = torch.zeros(3, 4)
    i = torch.tensor([[0], [1], [2]])
    assert x.scatter(1, i, 1.0).sum().item() == 3.0
    assert x.clone().scatter_(1, i, 2).sum().item() == 6.0
    assert torch.scatter(x, 1, i, value=1.0).sum().item() == 3.0
    for call in (
        lambda: x.scatter(1, i, src=1.0),
        lambda: x.clone().scatter_(1, i, src=1.0),
        lambda: torch.scatter(x, 1, i, src=1.0),
        lambda: x.scatter(1, i, 1.5, value=1.5),
    ):
        err = error_of(call)
        assert err[0] is TypeError and "received an invalid combination of arguments" in err[1]
        assert "src=float" in err[1] or "value=float" in err[1]


@pytest.mark.parametrize("op", ["var", "std"])
def test_var_std_backward_on_each_device(op, device):
    """The data-level backward runs on the device's arrays (the strict test device refuses any
    host read): the CPU's gradients."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal((4, 6)).astype("float32")
    base[2] = 1.25  # (a constant row: std's zero branch)
    g = rng.standard_normal(4).astype("float32")
    grads = []
    for dev in ("cpu", device):
        x = torch.tensor(base, device=dev, requires_grad=True)
        getattr(x, op)(1).backward(torch.tensor(g, device=dev))
        getattr(x, op)().backward()
        grads.append(x.grad.cpu().numpy())
    assert grads[0].tobytes() == grads[1].tobytes()
