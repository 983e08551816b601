"""The plain calls of the random and range factories and dropout's plain mask (NOTE [ The random
factories' plain calls ] in minitorch/random.py, NOTE [ Plain range calls ] in
minitorch/_ranges.py, NOTE [ dropout's plain mask ] in minitorch/nn/_functional_dropout.py):
each gives what the general route gives (values bit for bit, dtype, strides, device, flags,
inference tensors, errors, warnings, gradients) and leaves the generator in the same state. The
general route is the reference: the plain helper patched to decline (return None), or, for
dropout, the fast paths turned off as a profile does."""

import math
import random as pyrandom
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch import _ranges
from minitorch import random as mt_random
from minitorch.autograd import function
from minitorch.nn import _functional_dropout as dropout_mod

F = torch.nn.functional

RANDOM_HELPERS = ("_plain_samples", "_plain_randint", "_plain_randperm", "_plain_normal")
RANGE_HELPERS = ("_plain_linspace", "_plain_logspace", "_plain_arange_float")


def bits(t):
    """t's elements as raw bytes in row-major order (NaN payloads and -0.0 included)."""
    return np.ascontiguousarray(t.detach()._data).view(np.uint8).tobytes()


def same(a, b):
    """a and b are the same new tensor: class, dtype, shape, strides, device, flags, bits."""
    assert type(a) is type(b) is torch.Tensor
    assert (a.dtype, a.shape, a.stride(), a.device) == (b.dtype, b.shape, b.stride(), b.device)
    assert (a.requires_grad, a.is_leaf, a.is_inference()) == (
        b.requires_grad,
        b.is_leaf,
        b.is_inference(),
    )
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    assert a._data.__class__ is b._data.__class__
    assert a._data.dtype == b._data.dtype
    assert a._data.flags.owndata == b._data.flags.owndata
    if not a.is_inference():
        assert a._version == b._version == 0
    assert bits(a) == bits(b)


def outcome(fn):
    """fn()'s tensor, or its error as (type name, message); with the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:  # noqa: BLE001 - the error is the outcome
            out = (type(e).__name__, str(e))
    return out, [f"{w.category.__name__}: {w.message}" for w in caught]


class general_route:
    """The plain helpers patched to decline, so every call takes the general route."""

    def __enter__(self):
        self.saved = [(mt_random, n, getattr(mt_random, n)) for n in RANDOM_HELPERS]
        self.saved += [(_ranges, n, getattr(_ranges, n)) for n in RANGE_HELPERS]
        for mod, name, _ in self.saved:
            setattr(mod, name, lambda *args: None)
        function.fast_path[0] = False  # (dropout's plain mask; and the ops' fast paths)

    def __exit__(self, *exc):
        for mod, name, fn in self.saved:
            setattr(mod, name, fn)
        function.fast_path[0] = True


def stream_state():
    return bits(torch.get_rng_state())


def assert_same_call(fn, seed=0, device=None):
    """fn() from the same seed on its plain route and on the general route: the same outcome,
    the same warnings, the same generator state after, and the same next draw."""
    results = []
    for route in ("plain", "general"):
        torch.manual_seed(seed)
        if route == "plain":
            got = outcome(fn)
        else:
            with general_route():
                got = outcome(fn)
        after = stream_state()
        nxt = bits(torch.rand(5, dtype=torch.float64, layout=torch.strided))
        results.append((got, after, nxt))
    (a, wa), sa, na = results[0]
    (b, wb), sb, nb = results[1]
    assert wa == wb
    if isinstance(b, tuple):
        assert a == b
    else:
        same(a, b)
        if device is not None:
            assert a.device == torch.device(device) or a.device.type == device
    assert sa == sb, "the generator's state differs"
    assert na == nb
    return a


@pytest.fixture
def default_float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


# --- the random factories ---

RANDOM_CALLS = [
    ("rand(3, 4)", lambda: torch.rand(3, 4)),
    ("rand((3, 4))", lambda: torch.rand((3, 4))),
    ("rand([2, 0])", lambda: torch.rand([2, 0])),
    ("rand(Size)", lambda: torch.rand(torch.Size([5]))),
    ("rand(())", lambda: torch.rand(())),
    ("rand(700) f64", lambda: torch.rand(700, dtype=torch.float64)),
    ("rand f32 rg", lambda: torch.rand(2, 3, dtype=torch.float32, requires_grad=True)),
    ("randn(3, 4)", lambda: torch.randn(3, 4)),
    ("randn(17)", lambda: torch.randn(17)),
    ("randn(5) f64", lambda: torch.randn(5, dtype=torch.float64)),
    ("randn(1)", lambda: torch.randn(1)),
    ("randn rg", lambda: torch.randn(4, 4, requires_grad=True)),
    ("randn(())", lambda: torch.randn(())),
    ("randint(0, 10, (3, 4))", lambda: torch.randint(0, 10, (3, 4))),
    ("randint(10, (5,))", lambda: torch.randint(10, (5,))),
    ("randint(-3, 3, [2, 2])", lambda: torch.randint(-3, 3, [2, 2])),
    ("randint(5, ())", lambda: torch.randint(5, ())),
    ("randint big span", lambda: torch.randint(0, 2**40, (3,))),
    ("randint int64 range", lambda: torch.randint(-(2**63), 2**63 - 1, (4,))),
    ("randint Size", lambda: torch.randint(1, 7, torch.Size([3]))),
    ("randint(0, 1, (0,))", lambda: torch.randint(0, 1, (0,))),
    ("randperm(0)", lambda: torch.randperm(0)),
    ("randperm(1)", lambda: torch.randperm(1)),
    ("randperm(10)", lambda: torch.randperm(10)),
    ("randperm(3000)", lambda: torch.randperm(3000)),
    ("normal(0., 1., (3, 4))", lambda: torch.normal(0.0, 1.0, (3, 4))),
    ("normal(2, 3, (5,))", lambda: torch.normal(2, 3, (5,))),
    ("normal(-1.5, 2.5, [17])", lambda: torch.normal(-1.5, 2.5, [17])),
    ("normal std 0", lambda: torch.normal(0.5, 0.0, (20,))),
    ("normal(0., 1., ())", lambda: torch.normal(0.0, 1.0, ())),
    ("normal inf mean", lambda: torch.normal(math.inf, 1.0, (3,))),
]

# calls a plain helper declines (or never sees): the general route's result or error
RANDOM_DECLINED = [
    ("rand(-1)", lambda: torch.rand(-1)),
    ("rand(2.5)", lambda: torch.rand(2.5)),
    ("rand(True)", lambda: torch.rand(True)),
    ("rand int64", lambda: torch.rand(3, dtype=torch.int64)),
    ("rand f16", lambda: torch.rand(3, dtype=torch.float16)),
    ("rand rg=1", lambda: torch.rand(3, requires_grad=1)),
    ("rand np.int64", lambda: torch.rand(np.int64(3))),
    ("randn((2, -1))", lambda: torch.randn((2, -1))),
    ("randint(5, 5, (2,))", lambda: torch.randint(5, 5, (2,))),
    ("randint hi 2**63", lambda: torch.randint(0, 2**63, (2,))),
    ("randint lo < -2**63", lambda: torch.randint(-(2**63) - 1, 0, (2,))),
    ("randint((-1,))", lambda: torch.randint(0, 10, (-1,))),
    ("randint(True, 10)", lambda: torch.randint(True, 10, (2,))),
    ("randint(2.0, 10)", lambda: torch.randint(2.0, 10, (2,))),
    ("randint size int", lambda: torch.randint(0, 10, 3)),
    ("randint size float", lambda: torch.randint(0, 10, (2.0,))),
    ("randint(10)", lambda: torch.randint(10)),
    ("randint 4 args", lambda: torch.randint(0, 1, (2,), 4)),
    ("randperm(-1)", lambda: torch.randperm(-1)),
    ("randperm(2**63)", lambda: torch.randperm(2**63)),
    ("randperm(True)", lambda: torch.randperm(True)),
    ("randperm(3.0)", lambda: torch.randperm(3.0)),
    ("normal std < 0", lambda: torch.normal(0.0, -1.0, (2,))),
    ("normal std nan", lambda: torch.normal(0.0, math.nan, (2,))),
    ("normal bool mean", lambda: torch.normal(True, 1.0, (2,))),
    ("normal big int", lambda: torch.normal(2**60, 1.0, (2,))),
    ("normal size int", lambda: torch.normal(0.0, 1.0, 3)),
    ("normal size (-1,)", lambda: torch.normal(0.0, 1.0, (-1,))),
    ("normal size (2.0,)", lambda: torch.normal(0.0, 1.0, (2.0,))),
]


@pytest.mark.parametrize("call", RANDOM_CALLS, ids=[c[0] for c in RANDOM_CALLS])
def test_random_plain_calls_match_the_general_route(call):
    t = assert_same_call(call[1], seed=7)
    assert isinstance(t, torch.Tensor)


@pytest.mark.parametrize("call", RANDOM_DECLINED, ids=[c[0] for c in RANDOM_DECLINED])
def test_random_declined_calls_match_the_general_route(call):
    assert_same_call(call[1], seed=3)


@pytest.mark.parametrize("call", RANDOM_CALLS, ids=[c[0] for c in RANDOM_CALLS])
def test_random_plain_calls_default_float64(call, default_float64):
    assert_same_call(call[1], seed=11)


def test_random_plain_calls_are_taken():
    """The plain helpers answer the calls of RANDOM_CALLS (so the tests above test them)."""
    assert mt_random._plain_samples("random", (3, 4), None, None, False, False) is not None
    assert mt_random._plain_samples("standard_normal", (2,), None, None, True, False) is not None
    assert mt_random._plain_randint((0, 10, (3, 4))) is not None
    assert mt_random._plain_randint((10, [5])) is not None
    assert mt_random._plain_randperm(10) is not None
    assert mt_random._plain_normal(0.0, 1.0, (3, 4)) is not None
    assert mt_random._plain_samples("random", (3,), torch.int64, None, False, False) is None
    assert mt_random._plain_randint((0, 10, (-1,))) is None


def test_random_draw_after_draw_matches():
    """A run of plain draws leaves the stream where the general route's leaves it (the cached
    Box-Muller value of an odd normal count included)."""

    def run():
        out = [torch.randn(3), torch.rand(5), torch.randint(0, 100, (7,)), torch.randn(1)]
        out += [torch.normal(1.0, 2.0, (3,)), torch.randperm(9), torch.randn(21)]
        out += [torch.rand(2, dtype=torch.float64), torch.randint(3, (2, 2))]
        return out

    torch.manual_seed(5)
    fast = run()
    state = stream_state()
    torch.manual_seed(5)
    with general_route():
        general = run()
    assert stream_state() == state
    for a, b in zip(fast, general, strict=True):
        same(a, b)


def test_random_with_generators_and_devices(device):
    """generator= and device= take the general route; a default device other than the CPU
    (torch.device(...) as a context) too: the results land there, as the general route's."""
    g1 = torch.Generator().manual_seed(4)
    g2 = torch.Generator().manual_seed(4)
    same(torch.rand(3, generator=g1), torch.rand(3, generator=g2, layout=torch.strided))
    calls = [
        lambda: torch.rand(3, 4),
        lambda: torch.randn(2, 3),
        lambda: torch.randint(0, 10, (3,)),
        lambda: torch.randperm(6),
        lambda: torch.normal(0.0, 1.0, (4,)),
        lambda: torch.linspace(0, 1, 5),
        lambda: torch.logspace(0, 1, 5),
        lambda: torch.arange(0, 1, 0.25),
    ]
    for fn in calls:
        results = []
        for route in ("plain", "general"):
            torch.manual_seed(9)
            with torch.device(device):
                if route == "plain":
                    t = fn()
                else:
                    with general_route():
                        t = fn()
            results.append(t)
        a, b = results
        assert a.device == b.device and a.device.type == torch.device(device).type
        assert (a.dtype, a.shape, a.stride()) == (b.dtype, b.shape, b.stride())
        assert bits(a.cpu()) == bits(b.cpu())


def test_random_inference_mode():
    for fn in (
        lambda: torch.rand(3),
        lambda: torch.randn(2, 2),
        lambda: torch.randint(0, 5, (3,)),
        lambda: torch.randperm(4),
        lambda: torch.normal(0.0, 1.0, (2,)),
    ):
        with torch.inference_mode():
            a = assert_same_call(fn, seed=2)
        assert a.is_inference()


# --- the ranges ---


def _number(rng):
    specials = [0, 0.0, -0.0, 1, -1, 0.1, -0.3, 1e-300, -5e-324, 2.0**60, -(2.0**63), 2**64]
    specials += [3, 7.25, 1 / 3, 1e10, -1e-5, 2**64 + 1, 2.0**65]
    c = rng.random()
    if c < 0.3:
        return rng.choice(specials)
    if c < 0.5:
        return rng.randint(-1000, 1000)
    if c < 0.8:
        return rng.uniform(-10, 10)
    return rng.uniform(-1, 1) * 10 ** rng.randint(-300, 19)


def _range_pairs(fn, args_list):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a plain call that warned would fail here
        fast = [outcome(lambda a=a: fn(*a[0], **a[1])) for a in args_list]
    with general_route():
        general = [outcome(lambda a=a: fn(*a[0], **a[1])) for a in args_list]
    for (a, wa), (b, wb), args in zip(fast, general, args_list, strict=True):
        assert wa == wb, args
        if isinstance(b, tuple):
            assert a == b, args
        else:
            same(a, b)


DTYPE_CHOICES = (None, torch.float32, torch.float64)


def test_linspace_plain_matches_the_general_route():
    rng = pyrandom.Random(0)
    steps = (2, 3, 4, 5, 7, 8, 16, 17, 31, 64, 100, 101, 257)
    cases = [
        ((_number(rng), _number(rng), rng.choice(steps)), {"dtype": rng.choice(DTYPE_CHOICES)})
        for _ in range(600)
    ]
    cases += [((0, 1, 3), {"dtype": torch.float64}), ((0, 1, 100), {}), ((-0.0, 0.0, 4), {})]
    cases += [((0.0, -0.0, 5), {"dtype": torch.float64}), ((2.5, 2.5, 9), {})]
    cases += [((-0.0, -0.0, 3), {"dtype": torch.float64}), ((1, 0, 2**12 + 3), {})]
    f64 = {"dtype": torch.float64}  # exact steps, few of them: the Python-float multiply-adds
    cases += [((0, 1, 5), f64), ((-4, 4, 9), f64), ((1, -1, 3), f64), ((0.5, 0.5, 16), f64)]
    cases += [((-0.0, 0.0, 2), f64), ((0, 2**52, 2), f64), ((-3, 0, 4), f64), ((2, -0.0, 3), f64)]
    cases += [((0, 1, 17), f64), ((-1, 1, 65), f64), ((0.1, 0.7, 4), f64), ((3, 1e-300, 3), f64)]
    _range_pairs(torch.linspace, cases)
    assert _ranges._plain_linspace(0, 1, 3, torch.float64) is not None  # (it is tested)
    assert _ranges._plain_linspace(0, 1.5, 100, None) is not None


def test_linspace_declined_match_the_general_route(default_float64):
    cases = [
        ((0, 1, 1), {}), ((0, 1, 0), {}), ((0, 1, -1), {}), ((0, 1, 2.0), {}),
        ((math.nan, 1, 4), {}), ((0, math.inf, 4), {}), ((10**400, 1, 3), {}),
        ((0, 2.0**70, 5), {"dtype": torch.float32}), ((True, 3, 4), {}),
        ((0, 1, 5), {"dtype": torch.int64}), ((0, 1, 5), {"dtype": torch.float16}),
        ((0, 1, 5), {"requires_grad": True}), ((0, 1, 5), {"device": "cpu"}),
        ((0, 1e39, 5), {"dtype": torch.float32}), ((0, 1, 5), {"dtype": "float"}),
        ((0, 1, 5, 6), {}), ((0, 1), {}), ((0, 1, 4), {"num": 3}),
    ]  # fmt: skip
    cases += [((0.25, -3, 7), {}), ((1, 2, 3), {"dtype": torch.float32})]
    cases += [((0, 1, 5), {"requires_grad": 1}), ((0, 1, 3), {"requires_grad": None})]
    cases += [((0, 1, 5), {"requires_grad": True, "dtype": torch.float32})]
    _range_pairs(torch.linspace, cases)


def test_logspace_plain_matches_the_general_route():
    rng = pyrandom.Random(1)
    cases = []
    for _ in range(300):
        a, b = rng.uniform(-40, 40), rng.choice([rng.uniform(-40, 40), rng.randint(-5, 5)])
        base = rng.choice([10.0, 2, 2.0, 0.5, math.e, 1, 1e-3, 7])
        steps = rng.choice((2, 3, 10, 11, 50))
        cases.append(((a, b, steps, base), {"dtype": rng.choice(DTYPE_CHOICES)}))
    cases += [((0, 1, 10), {}), ((0, 400, 5), {}), ((0, 400, 5), {"dtype": torch.float64})]
    cases += [((0, 38, 3), {}), ((0, 39, 3), {}), ((-400, 0, 4), {"dtype": torch.float64})]
    cases += [((0, 1, 4, -2.0), {}), ((0, 1, 4, 0), {}), ((0, 1.5, 4, -8), {})]
    cases += [((0, 1, 4, math.inf), {}), ((0, 1, 1), {}), ((0, 1, 0), {}), ((0, 1, 3, 2**70), {})]
    cases += [((0, 2, 5), {"dtype": torch.int64}), ((0, 1, 3), {"requires_grad": True})]
    cases += [((0, 1, 3), {"base": 2.0}), ((0, 1, 3, 10.0, 5), {}), ((0.0, 1.0, 7, True), {})]
    cases += [((0, 1, 3), {"requires_grad": 1}), ((0, 2, 4), {"requires_grad": True})]
    _range_pairs(torch.logspace, cases)
    assert _ranges._plain_logspace(0, 1, 10, 10.0, None) is not None


def test_arange_float_plain_matches_the_general_route():
    rng = pyrandom.Random(2)
    cases = []
    for _ in range(500):
        start = rng.choice([0, 0.0, -0.0, rng.uniform(-100, 100), rng.randint(-50, 50)])
        step = rng.choice([0.1, 0.25, 1.5, -0.1, -0.7, 1 / 3, 2, rng.uniform(-3, 3), 1e-3])
        if step == 0:
            step = 0.5
        length = rng.choice([0, 1, 5, 10, 17, 64, 100, 333])
        end = start + step * length + rng.choice([0, step / 2, -step / 3])
        if not any(isinstance(v, float) for v in (start, end, step)):
            step = float(step)
        cases.append(((start, end, step), {"dtype": rng.choice(DTYPE_CHOICES)}))
    cases += [((0, 1, 0.1), {}), ((0.0, 10), {}), ((5.5,), {}), ((-0.0, -3.0, -0.5), {})]
    cases += [((0, 1, 0.0), {}), ((0, 1, -0.1), {}), ((0, math.inf, 0.5), {})]
    cases += [((0, 1, math.nan), {}), ((0.0, 2.0**70, 2.0**60), {}), ((0.0, 2**20 + 1.0), {})]
    cases += [((0.0, 3), {"dtype": torch.int64}), ((0.0, 3), {"dtype": torch.float16})]
    cases += [((0.0, 3), {"requires_grad": True}), ((1.5, 3), {"device": "cpu"})]
    cases += [((0, 10**400, 0.5), {}), ((0.5, True), {}), ((0.5, 3, 1, 4), {})]
    cases += [((0.5, 3), {"requires_grad": 1}), ((0, 2, 0.5), {"requires_grad": True})]
    cases += [((0.0, 2.0**20), {}), ((0, 1, 2.0**-21), {"dtype": torch.float64})]
    _range_pairs(torch.arange, cases)
    assert _ranges._plain_arange_float(0, 1, 0.1, None) is not None


def test_ranges_default_float64_and_inference(default_float64):
    cases = [((0, 1, 5), {}), ((0.5, 7.25, 6), {}), ((-3, 2, 100), {})]
    _range_pairs(torch.linspace, cases)
    _range_pairs(torch.logspace, cases)
    _range_pairs(torch.arange, [((0, 1, 0.1), {}), ((0.5, 20), {})])
    with torch.inference_mode():
        assert torch.linspace(0, 1, 5).is_inference()
        _range_pairs(torch.linspace, cases)
        _range_pairs(torch.arange, [((0, 1, 0.1), {})])


# --- dropout ---


def _dropout_pair(make_input, p=0.5, inplace=False, seed=0, grad=None):
    """dropout of make_input()'s input (it returns (leaf, input)) on the plain route and on the
    general route: the same result (and gradient with respect to leaf, with `grad`, its graph
    too), the same stream after."""
    results = []
    for route in ("plain", "general"):
        leaf, x = make_input()
        torch.manual_seed(seed)
        if route == "plain":
            y = F.dropout(x, p, training=True, inplace=inplace)
        else:
            with general_route():
                y = F.dropout(x, p, training=True, inplace=inplace)
        state = stream_state()
        g = None
        if grad is not None:
            (g,) = torch.autograd.grad(y, leaf, grad, create_graph=True)
        results.append((x, y, state, g))
    (xa, a, sa, ga), (xb, b, sb, gb) = results
    assert sa == sb
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    assert (a.requires_grad, a.is_leaf) == (b.requires_grad, b.is_leaf)
    assert (a.dtype, a.shape, a.stride()) == (b.dtype, b.shape, b.stride())
    assert bits(a) == bits(b)
    assert (a is xa) == (b is xb)
    if grad is not None:
        assert bits(ga) == bits(gb)
        assert type(ga.grad_fn).__name__ == type(gb.grad_fn).__name__
    return a


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64, torch.float16), ids=str)
@pytest.mark.parametrize("shape", ((3, 4), (), (0, 3), (2, 3, 5)), ids=str)
@pytest.mark.parametrize("p", (0.1, 0.45, 0.5, 0.9))
def test_dropout_plain_matches_the_general_route(dtype, shape, p):
    def make():
        return None, torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(dtype)

    with torch.no_grad():
        _dropout_pair(make, p)
    _dropout_pair(make, p)  # (grad mode on, nothing to record)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
def test_dropout_plain_recorded_path(dtype):
    """An input that requires grad: MulBackward0 recorded with the same factor; the gradient
    (and its graph, create_graph) as the general route's; in place on a non-leaf too."""

    def leaf():
        g = torch.Generator().manual_seed(2)
        return torch.randn(3, 4, generator=g, dtype=dtype).requires_grad_()

    def make():
        x = leaf()
        return x, x

    def make_nonleaf():
        x = leaf()
        return x, x * 2

    grad = torch.randn(3, 4, generator=torch.Generator().manual_seed(3), dtype=dtype)
    y = _dropout_pair(make, 0.3, grad=grad)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y = _dropout_pair(make_nonleaf, 0.3, inplace=True, grad=grad)
    assert type(y.grad_fn).__name__ == "MulBackward0"
    with torch.no_grad():
        _dropout_pair(lambda: (None, torch.ones(2, 3, dtype=dtype)), 0.5, inplace=True)


def test_dropout_general_route_keeps_its_cases(monkeypatch):
    """A transposed input, a feature dropout, a subclass, a profile, p of 0 or 1 and eval mode
    never reach the plain mask."""

    def refuse(*args):
        raise AssertionError("the plain mask was used")

    monkeypatch.setattr(dropout_mod, "_plain_keep_factor", refuse)
    x = torch.randn(4, 3)
    torch.manual_seed(0)
    F.dropout(x.t(), 0.5)
    F.dropout2d(torch.randn(2, 3, 4, 4), 0.5)
    F.dropout(torch.nn.Parameter(torch.randn(3)), 0.5)
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.5, training=False) is x
    F.dropout(x, 1.0)
    with torch.autograd.profiler.profile():
        F.dropout(x, 0.5)


def test_dropout_under_the_profiler_records_its_ops():
    x = torch.randn(3, 4)
    with torch.autograd.profiler.profile() as prof:
        torch.manual_seed(0)
        a = F.dropout(x, 0.5)
    names = {e.name for e in prof.function_events}
    assert any("bernoulli" in n.lower() for n in names) and "Mul" in names, names
    torch.manual_seed(0)
    same(F.dropout(x, 0.5), a)


def test_dropout_inference_mode():
    x = torch.randn(3, 4)
    with torch.inference_mode():
        torch.manual_seed(0)
        a = F.dropout(x, 0.5)
        with general_route():
            torch.manual_seed(0)
            b = F.dropout(x, 0.5)
    assert a.is_inference() and b.is_inference()
    assert bits(a) == bits(b)
    same(a, b)


def test_dropout_on_the_strict_device(device):
    x = torch.randn(3, 4, device=device)
    torch.manual_seed(0)
    a = F.dropout(x, 0.5)
    with general_route():
        torch.manual_seed(0)
        b = F.dropout(x, 0.5)
    assert a.device == b.device == x.device
    assert bits(a.cpu()) == bits(b.cpu())


# --- tensor() of a matrix written out ---


def _leaf(rng):
    return rng.choice(
        [
            rng.uniform(-5, 5),
            rng.randint(-9, 9),
            True,
            False,
            -0.0,
            0.0,
            math.nan,
            math.inf,
            1e39,
            2**24 + 1,
            2**70,
            -(2**63),
            0.1,
            255,
            -1,
        ]
    )


def test_tensor_of_rows_matches_the_general_path(monkeypatch):
    """tensor([[...], [...]]) of Python numbers (_plain_rows in minitorch/_factories.py): the
    general path's tensor, error or warning, for leaves of every mix of types and dtypes."""
    from minitorch import _factories

    rng = pyrandom.Random(4)
    cases = []
    for _ in range(400):
        rows, cols = rng.randint(1, 4), rng.randint(1, 4)
        kinds = rng.choice(["float", "int", "bool", "mixed", "any"])

        def leaf(kinds=kinds):
            if kinds == "float":
                return rng.uniform(-100, 100)
            if kinds == "int":
                return rng.randint(-1000, 1000)
            if kinds == "bool":
                return rng.random() < 0.5
            if kinds == "mixed":
                return rng.choice([rng.uniform(-3, 3), rng.randint(-3, 3), True])
            return _leaf(rng)

        data = [[leaf() for _ in range(cols)] for _ in range(rows)]
        dtype = rng.choice(
            [None, None, torch.float32, torch.float64, torch.int64, torch.int32, torch.bool]
            + [torch.float16, torch.uint8]
        )
        cases.append((data, {"dtype": dtype}))
    cases += [([[1.0, 2.0], [3.0, 4.0]], {}), ([[1, 2], [3, 4]], {}), ([[True], [False]], {})]
    cases += [([[1.0, 2.0], [3.0]], {}), ([[1.0, 2.0], (3.0, 4.0)], {}), ([[], []], {})]
    cases += [([[1.0], [[2.0]]], {}), ([[[1.0, 2.0]], [[3.0, 4.0]]], {}), ([[1.0, "a"]], {})]
    cases += [([[1.0, None]], {}), ([[1.0, 2.0]], {"requires_grad": True}), ([[1, 2]], {})]
    cases += [([[np.float32(1.5), 2.0]], {}), ([[1.0, 2.0], [3.0, 4.0]], {"device": "cpu"})]
    cases += [([[1, 2**64]], {}), ([[1, 2**64]], {"dtype": torch.float64}), ([[1e39]], {})]
    cases += [([[1, 2]], {"requires_grad": True}), ([[0.5, 2]], {"dtype": torch.int64})]

    def run(general):
        if general:
            monkeypatch.setattr(_factories, "_fast_plain", lambda data, dt: None)
        out = [outcome(lambda c=c: torch.tensor(c[0], **c[1])) for c in cases]
        monkeypatch.undo()
        return out

    fast, general = run(False), run(True)
    for (a, wa), (b, wb), case in zip(fast, general, cases, strict=True):
        assert wa == wb, case
        if isinstance(b, tuple):
            assert a == b, case
        else:
            same(a, b)
    assert _factories._plain_rows([[1.0, 2.0], [3.0, 4.0]]) == [1.0, 2.0, 3.0, 4.0]
    assert _factories._plain_rows([[1.0, 2.0], [3.0]]) is None
