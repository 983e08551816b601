"""Adversarial checks of the no-grad fast path (NOTE [ The no-grad fast path ] in
minitorch/autograd/function.py): every op that has one (mul, add, sub, div, exp, log, sqrt, tanh,
sigmoid, a full sum; neg, relu, pow with a number exponent, maximum/minimum, clamp with number
bounds) must give what the full path (Function.apply, forced by
`function.fast_path[0] = False`) gives, bit for bit, for every dtype, number kind, layout and
special value, and everything that watches ops or grad mode (inference mode, threads, torch.func,
forward AD, hooks, anomaly mode, profilers, FlopCounterMode, subclasses) must see the same."""

import contextlib
import copy
import operator
import threading
import warnings
from functools import partial

import numpy as np
import pytest

import minitorch as torch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import function

NAN, INF = float("nan"), float("inf")

ALL_DTYPES = (
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8,
    torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32, torch.uint64, torch.bool,
    torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e5m2, torch.float8_e5m2fnuz,
    torch.float8_e8m0fnu,
)  # fmt: skip

# signed zeros, NaN, infinities, float32 and float64 subnormals, float16's largest and beyond,
# float32's largest, values exp/tanh/sigmoid saturate at, values log/sqrt are NaN at
VALUES = [
    0.0, -0.0, 1.0, -1.5, 2.5, NAN, INF, -INF, 1e-40, -1e-42, 1e-310, 65504.0, 7e4, 3e38,
    1e300, 88.7, -88.8, 710.0, -745.5, 0.1, 1e-8, -1e-8, 20.0, -20.0, 11.1, 3.3, -0.5, 0.75,
    5e-5, -6e-8, 1e4, -1e5, 42.0, -7.0, 0.3, 1.0000001,
]  # fmt: skip

LAYOUTS = ("contiguous", "t", "flip", "step", "expand", "0d", "channels_last", "empty", "size1")

BINARY = [
    ("*", operator.mul), ("+", operator.add), ("-", operator.sub), ("/", operator.truediv),
    ("torch.mul", torch.mul), ("torch.add", torch.add), ("torch.sub", torch.sub),
    ("torch.div", torch.div), ("Tensor.mul", torch.Tensor.mul), ("Tensor.add", torch.Tensor.add),
    ("Tensor.sub", torch.Tensor.sub), ("Tensor.div", torch.Tensor.div),
    ("torch.multiply", torch.multiply), ("torch.true_divide", torch.true_divide),
]  # fmt: skip

PAIR_ONLY = [
    ("maximum", torch.maximum), ("minimum", torch.minimum), ("torch.max", torch.max),
    ("torch.min", torch.min), ("Tensor.maximum", torch.Tensor.maximum),
    ("Tensor.minimum", torch.Tensor.minimum),
]  # fmt: skip

UNARY = [
    ("neg", torch.neg), ("-x", operator.neg), ("negative", torch.negative),
    ("Tensor.neg", torch.Tensor.neg), ("relu", torch.relu), ("Tensor.relu", torch.Tensor.relu),
    ("F.relu", torch.nn.functional.relu), ("clamp(0, 1)", lambda x: torch.clamp(x, 0, 1)),
    ("clamp(min=-0.5)", lambda x: x.clamp(min=-0.5)), ("clip(max=2)", lambda x: x.clip(max=2)),
    ("x ** 2", lambda x: x**2), ("pow(x, 0.5)", lambda x: torch.pow(x, 0.5)),
    ("exp", torch.exp), ("log", torch.log), ("sqrt", torch.sqrt), ("tanh", torch.tanh),
    ("sigmoid", torch.sigmoid), ("Tensor.exp", torch.Tensor.exp), ("Tensor.log", torch.Tensor.log),
    ("Tensor.sqrt", torch.Tensor.sqrt), ("Tensor.tanh", torch.Tensor.tanh),
    ("Tensor.sigmoid", torch.Tensor.sigmoid), ("sum", torch.sum), ("Tensor.sum", torch.Tensor.sum),
    ("sum(keepdim=False)", lambda x: x.sum(keepdim=False)),
    ("sum(dtype=None)", lambda x: torch.sum(x, dtype=None)),
]  # fmt: skip


@contextlib.contextmanager
def full_path():
    """Every op through Function.apply, as while a profile runs; restored however it ends."""
    old = function.fast_path[0]
    function.fast_path[0] = False
    try:
        yield
    finally:
        function.fast_path[0] = old


def _bits(t):
    """The tensor's elements as unsigned integers of their width (NaN payloads and signed zeros
    compared too), read through the public view(dtype)."""
    if t.dtype is torch.bool:
        return t.to(torch.uint8).tolist()
    width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return t.contiguous().view(width).tolist() if t.dim() else t.reshape(1).view(width).tolist()


def describe(r):
    """Everything observable of a result: a tensor's class, dtype, shape, strides, offset,
    autograd fields, inference mark, version and bits (its repr follows from these); an error's
    type and message."""
    if isinstance(r, BaseException):
        return ("error", type(r).__name__, str(r))
    if not isinstance(r, torch.Tensor):
        return ("value", type(r).__name__, repr(r))
    inference = r.is_inference()
    bits = _bits(r) if r.device.type == "cpu" else None
    return (
        type(r).__name__, r.dtype, tuple(r.shape), r.stride(), r.storage_offset(), r.device,
        r.requires_grad, r.grad_fn, r.is_leaf, r._base is None, inference,
        None if inference else r._version, bits,
    )  # fmt: skip


def call(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (the error is the result compared)
        return e


def fast_and_full(fn, *, grad=False):
    """describe(fn()) on the fast path and on the full path, under no_grad unless grad, with
    the warnings each gave (through the filters in force)."""
    ctx = contextlib.nullcontext if grad else torch.no_grad
    with warnings.catch_warnings(record=True) as w_fast, ctx():
        fast = describe(call(fn))
    with warnings.catch_warnings(record=True) as w_full, ctx(), full_path():
        full = describe(call(fn))
    texts = [sorted(f"{w.category.__name__}: {w.message}" for w in ws) for ws in (w_fast, w_full)]
    return (fast, texts[0]), (full, texts[1])


def make(dtype, layout, seed=0):
    """A tensor of VALUES (shuffled by seed) in dtype, in the given layout."""
    rng = np.random.default_rng(seed)
    v = rng.permutation(np.array(VALUES, dtype=np.float64)).reshape(6, 6)
    if dtype is torch.bool:
        t = torch.tensor((v > 0.5).tolist())
    elif not dtype.is_floating_point:
        ints = np.nan_to_num(v, posinf=300, neginf=-300).clip(-3e4, 3e4).astype(np.int64)
        if dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
            ints = np.abs(ints) % 256
        t = torch.tensor(ints.tolist()).to(dtype)  # (int8/int16 wrap, as torch's casts)
    else:
        t = torch.tensor(v.tolist(), dtype=torch.float64).to(dtype)
    if layout == "t":
        return t.t()
    if layout == "flip":
        return t.flip(0)
    if layout == "step":
        return t[::2, 1::2]
    if layout == "expand":
        return t[:1].expand(6, 6)
    if layout == "0d":
        return t[1, 3]
    if layout == "channels_last":
        return t.reshape(1, 4, 3, 3).contiguous(memory_format=torch.channels_last)
    if layout == "empty":
        return t[:0]
    if layout == "size1":
        return t[:1, :, None]
    return t


def partner(x, seed):
    """A second operand of x's dtype and layout with other values."""
    y = make(x.dtype, "contiguous", seed).reshape(-1)
    n = max(x.numel(), 1)
    y = y[:n].reshape(x.shape) if x.numel() else y[:0].reshape(x.shape)
    return y.t() if x.dim() == 2 and x.stride()[0] == 1 else y


def assert_same(fn, what, **kw):
    fast, full = fast_and_full(fn, **kw)
    assert fast == full, f"{what}:\nfast {fast}\nfull {full}"


# --- values: every dtype, layout, number kind and special value ---


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_two_tensors_every_layout(dtype):
    for layout in LAYOUTS:
        x = make(dtype, layout, 1)
        y = partner(x, 2)
        for name, op in BINARY + PAIR_ONLY:
            assert_same(partial(op, x, y), f"{name} {dtype} {layout}")
            assert_same(partial(op, y, x), f"{name} {dtype} {layout} swapped")
            assert_same(partial(op, x, x), f"{name} {dtype} {layout} self")
        # a 0-d tensor of the same dtype on either side, and broadcasting against a row
        s = make(dtype, "0d", 3)
        row = make(dtype, "contiguous", 4)[2]
        for name, op in BINARY[:4]:
            assert_same(partial(op, x, s), f"{name} {dtype} {layout} 0-d right")
            assert_same(partial(op, s, x), f"{name} {dtype} {layout} 0-d left")
            if x.dim() == 2 and x.shape[1] == 6:
                assert_same(partial(op, x, row), f"{name} {dtype} {layout} row")


NUMBERS = [
    2, -3, 0, 1, 7, 0.5, 0.1, -0.0, 1e-45, 1e-320, 1e300, 3.5e38, 7e4, 2**24 + 1, 2**31,
    2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**70, 2**200, 10**400, -(2**63), NAN, -NAN, INF, -INF,
    True, False, np.float32(2.5), np.float64(0.1), np.int64(3), np.int32(-2), np.bool_(True),
    np.float16(3.0), np.uint8(200),
]  # fmt: skip


NUMBER_ONLY = [
    ("**", operator.pow), ("torch.pow", torch.pow), ("Tensor.pow", torch.Tensor.pow),
    ("clamp(min=n)", lambda x, n: x.clamp(min=n)), ("clamp(max=n)", lambda x, n: x.clamp(max=n)),
    ("clip(n, 1)", lambda x, n: torch.clip(x, n, 1)), ("clamp(-1, n)", lambda x, n: x.clamp(-1, n)),
]  # fmt: skip

ZERO_DIM = [torch.tensor(2.5), torch.tensor(-0.0, dtype=torch.float64), torch.tensor(3),
            torch.tensor(True), torch.tensor(7e4, dtype=torch.float16), torch.tensor(200).byte(),
            torch.tensor(1.5).bfloat16()]  # fmt: skip


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tensor_and_every_kind_of_number(dtype):
    layouts = ("t", "0d", "expand") if dtype in (torch.float16, torch.float32) else ("t", "0d")
    for layout in layouts:  # (the other layouts: test_two_tensors_every_layout)
        x = make(dtype, layout, 5)
        for number in NUMBERS:
            for name, op in BINARY:
                what = f"{name} {dtype} {layout} {number!r}"
                assert_same(partial(op, x, number), what)
            for name, op in (("*", operator.mul), ("+", operator.add), ("-", operator.sub),
                             ("/", operator.truediv), ("**", operator.pow)):  # fmt: skip
                what = f"reflected {name} {dtype} {layout} {number!r}"
                assert_same(partial(op, number, x), what)
            assert_same(partial(torch.mul, number, x), f"torch.mul(number, x) {number!r}")
            assert_same(partial(torch.add, number, x), f"torch.add(number, x) {number!r}")
            for name, op in NUMBER_ONLY:
                assert_same(partial(op, x, number), f"{name} {dtype} {layout} {number!r}")
        for other in ZERO_DIM:  # 0-d tensors of every dtype, on either side
            for name, op in BINARY[:4]:
                what = f"{name} {dtype} {layout} 0-d {other.dtype}"
                assert_same(partial(op, x, other), what)
                assert_same(partial(op, other, x), what + " left")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unary_and_sum_every_layout(dtype):
    for layout in LAYOUTS:
        x = make(dtype, layout, 6)
        for name, op in UNARY:
            assert_same(partial(op, x), f"{name} {dtype} {layout}")


REDUCTIONS = [
    ("sum(0)", lambda x: x.sum(0)), ("sum(-1, True)", lambda x: x.sum(-1, True)),
    ("sum(dim=1)", lambda x: torch.sum(x, dim=1)), ("sum(5)", lambda x: x.sum(5)),
    ("sum(None)", lambda x: x.sum(None)), ("sum(True)", lambda x: x.sum(True)),
    ("mean", lambda x: x.mean()), ("mean(0)", lambda x: x.mean(0)),
    ("mean(-1, keepdim)", lambda x: x.mean(-1, keepdim=True)), ("amax", lambda x: x.amax()),
    ("amax(0)", lambda x: x.amax(0)), ("amin", torch.amin), ("max", torch.max), ("min", torch.min),
    ("max(0)", lambda x: x.max(0)), ("min(dim=1, keepdim)", lambda x: x.min(dim=1, keepdim=True)),
    ("max(x, -1)", lambda x: torch.max(x, -1)), ("argmax", lambda x: x.argmax()),
]  # fmt: skip


def _describe_all(r):
    """describe of a result, or of each tensor of a (values, indices) result."""
    if isinstance(r, tuple):
        return (type(r).__name__, *(describe(t) for t in r))
    return describe(r)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_reductions_every_layout(dtype):
    # the reductions that have (or may gain) a fast path, each as the full path gives it
    for layout in LAYOUTS:
        x = make(dtype, layout, 9)
        for name, op in REDUCTIONS:
            with warnings.catch_warnings(record=True) as w_fast, torch.no_grad():
                fast = _describe_all(call(partial(op, x)))
            with warnings.catch_warnings(record=True) as w_full, torch.no_grad(), full_path():
                full = _describe_all(call(partial(op, x)))
            assert fast == full, f"{name} {dtype} {layout}:\nfast {fast}\nfull {full}"
            assert [str(m.message) for m in w_fast] == [str(m.message) for m in w_full]


def test_big_sums_and_float16_overflow():
    # the gemv route of a large sum, float16 sums past 65504 (accumulated in float32, as torch),
    # inf - inf, and float16 products and quotients overflowing to inf
    g = torch.Generator().manual_seed(0)
    big = torch.randn(300, 200, generator=g)
    for x in (big, big.double(), big.t(), big[::3], big.half() * 100, big.flip(1)):
        assert_same(lambda x=x: x.sum(), f"sum {x.dtype} {x.shape} {x.stride()}")
    h = torch.full((5000,), 60000.0, dtype=torch.float16)
    assert_same(lambda: h.sum(), "float16 sum to inf")
    assert_same(lambda: h * h, "float16 square to inf")
    assert_same(lambda: h / torch.full_like(h, 1e-4), "float16 quotient to inf")
    assert_same(lambda: h + h, "float16 sum to inf")
    assert_same(lambda: torch.tensor([INF, -INF]).sum(), "inf - inf")
    with torch.no_grad():
        s = h.sum()
    assert s.dtype == torch.float16 and s.item() == INF


def test_operator_power_and_other_ops_still_work():
    x = torch.tensor([1.5, -2.0, 0.0])
    for fn, want in (
        (lambda: x**2, [2.25, 4.0, 0.0]),
        (lambda: 2**x, [2.0**1.5, 0.25, 1.0]),
        (lambda: 2 - x, [0.5, 4.0, 2.0]),
        (lambda: 3 / torch.tensor([2.0, 4.0, 8.0]), [1.5, 0.75, 0.375]),
        (lambda: -x + 1, [-0.5, 3.0, 1.0]),
    ):
        assert_same(fn, "operator")
        with torch.no_grad():
            np.testing.assert_allclose(fn().numpy(), np.array(want, dtype=np.float32), rtol=1e-6)


def test_no_result_aliases_an_input_and_versions_stay_apart():
    x = torch.tensor([[1.0, -2.0], [0.5, 4.0]])
    y = torch.tensor([[3.0, 0.25], [-1.0, 2.0]])
    z = x[0, 0]  # a 0-d view
    cases = [
        lambda: x * y, lambda: x + y, lambda: x - y, lambda: x / y, lambda: x * 1, lambda: x + 0,
        lambda: x - 0.0, lambda: x / 1, lambda: z * 1, lambda: z + z, x.exp, x.abs().log,
        x.abs().sqrt, x.tanh, x.sigmoid, z.exp, x.sum, z.sum, lambda: x[:1].sum(),
        lambda: x.expand(3, 2, 2) * 1, lambda: x[:, :1] + 0, lambda: x**1, lambda: x**1.0,
        lambda: z**1, lambda: x**3, lambda: x.abs() ** 0.5, lambda: x.clamp(-10, 10),
        lambda: z.clamp(max=5), lambda: torch.maximum(x, x), lambda: torch.minimum(z, z),
        lambda: -z, x.neg, x.relu, z.relu, lambda: x.abs().relu(), lambda: x.clamp(min=-9),
    ]  # fmt: skip
    for k, fn in enumerate(cases):
        for switch in (contextlib.nullcontext, full_path):
            before = (x.clone(), y.clone(), x._version, y._version)
            with torch.no_grad(), switch():
                r = fn()
            assert r._version == 0 and r._base is None and r.is_leaf, k
            assert not np.shares_memory(r.numpy(), x.numpy()), k
            assert not np.shares_memory(r.numpy(), y.numpy()), k
            assert r.untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), k
            r.add_(100)  # the result's own memory and version counter
            assert r._version == 1 and (x._version, y._version) == before[2:], k
            assert torch.equal(x, before[0]) and torch.equal(y, before[1]), k


def test_read_only_and_shared_numpy_inputs():
    arr = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
    arr.setflags(write=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's non-writable array warning
        ro = torch.from_numpy(arr)
    shared = torch.from_numpy(np.arange(6.0).reshape(2, 3))
    for x in (ro, shared, shared.t()):
        for fn in (
            lambda x=x: x * x,
            lambda x=x: x + 1.5,
            lambda x=x: x.exp(),
            lambda x=x: x.sum(),
        ):
            assert_same(fn, f"numpy input {x.dtype}")
            with torch.no_grad():
                r = fn()
            assert r.numpy().flags.writeable
            r.mul_(2)
    np.testing.assert_array_equal(shared.numpy(), np.arange(6.0).reshape(2, 3))
    be = np.arange(3.0).astype(">f8")
    assert_same(lambda: torch.from_numpy(be) * 2, "big-endian array")  # torch's refusal


def test_errors_and_foreign_operands_as_the_full_path():
    x, y = torch.randn(3, 4), torch.randn(4, 3)
    meta = torch.randn(3, 4, device="meta")
    cases = [
        lambda: x * y, lambda: x + y.t()[:2], lambda: x - torch.ones(5), lambda: x / y,
        lambda: x * meta, lambda: meta * x, lambda: x + meta[0, 0], lambda: x * "s",
        lambda: x + None, lambda: x * [1.0], lambda: x * np.ones(4), lambda: np.ones(4) * x,
        lambda: x + (1, 2, 3, 4), lambda: x * 1j, lambda: x.bool() - x.bool(),
        lambda: x.bool() - True, lambda: torch.sub(x, y.t(), alpha=True),
        lambda: torch.add(x, 1, alpha=2), lambda: torch.div(x, 2, rounding_mode="floor"),
        lambda: torch.div(x, 0, rounding_mode="trunc"), lambda: torch.exp(x, out=None),
        lambda: torch.sum(x, None), lambda: x.sum(dim=None), lambda: x.sum(keepdim=True),
        lambda: x.sum(axis=1), lambda: torch.exp(), lambda: torch.exp(1.0),
        lambda: torch.log(np.ones(3)), lambda: torch.sigmoid(x, x), lambda: x.sum(0, False, 1),
        lambda: torch.mul(x, y, out=torch.empty(3, 4)),
        lambda: x * torch.tensor(2.0, device="meta"),
        lambda: torch.add(x, x, 1), lambda: torch.sub(x, 1, x),
    ]  # fmt: skip
    old = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # (the deprecated add/sub overloads warn once otherwise)
    try:
        for k, fn in enumerate(cases):
            assert_same(fn, f"case {k}")
    finally:
        torch.set_warn_always(old)


def test_numpy_warnings_stay_silent():
    # torch computes 1/0, log(-1), exp(1000), inf - inf, a float16 overflow without a word; the
    # filters in force are kept (catch_warnings copies them), so this is what a user sees
    x = torch.tensor([0.0, -1.0, 1000.0, INF, -INF, NAN])
    h = torch.tensor([60000.0, 1e-7], dtype=torch.float16)
    cases = [
        lambda: x / 0, lambda: 1 / x, lambda: x / x, lambda: x * x, lambda: x - x, lambda: x + x,
        lambda: x * INF, lambda: x.log(), lambda: x.sqrt(), lambda: x.exp(), lambda: x.sigmoid(),
        lambda: x.tanh(), lambda: x.sum(), lambda: h * h, lambda: h + h, lambda: h / h[1:],
        lambda: h.exp(), lambda: h.sum(), lambda: x * 1e300, lambda: x.double() * 1e300,
        lambda: x * 2**200, lambda: x[0] / x[0], lambda: x[1].log(), lambda: x[2].exp(),
    ]  # fmt: skip
    for k, fn in enumerate(cases):
        (fast, w_fast), (full, w_full) = fast_and_full(fn)
        assert fast == full, k
        assert w_fast == w_full == [], (k, w_fast, w_full)


def test_numpy_warnings_turned_into_errors_raise_as_on_the_full_path():
    x = torch.tensor([0.0, 1.0, -1.0])
    for fn in (lambda: x / 0, lambda: x / x, lambda: x.log(), lambda: x * 1e300):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (fast, _), (full, _) = fast_and_full(fn)
        assert fast == full
    with np.errstate(all="raise"):
        for fn in (lambda: x / 0, lambda: x.log(), lambda: (x * 1e38) * 1e38, lambda: x.exp()):
            (fast, _), (full, _) = fast_and_full(fn)
            assert fast == full


def test_deterministic_mode_and_default_dtype():
    x = torch.tensor([1.0, 2.5, -3.0])
    i = torch.tensor([1, 2, 3])
    old_det = torch.are_deterministic_algorithms_enabled()
    old_dtype = torch.get_default_dtype()
    try:
        torch.use_deterministic_algorithms(True)
        torch.set_default_dtype(torch.float64)
        for fn in (lambda: x * 2.5, lambda: x / 3, lambda: i / 2, lambda: x.exp(), lambda: x.sum(),
                   lambda: i.exp(), lambda: x / i, lambda: x * x):  # fmt: skip
            assert_same(fn, "deterministic, float64 default")
        with torch.no_grad():
            assert (x * 2.5).dtype == torch.float32 and (i / 2).dtype == torch.float64
    finally:
        torch.use_deterministic_algorithms(old_det)
        torch.set_default_dtype(old_dtype)


# --- what watches grad mode ---


def test_inference_mode_results_and_inputs():
    x, y = torch.randn(3), torch.randn(3)
    ops = [lambda a, b: a * b, lambda a, b: a + 2.0, lambda a, b: a - b, lambda a, b: a / 3,
           lambda a, b: a.exp(), lambda a, b: a.sigmoid(), lambda a, b: a.sum(), lambda a, b: -a,
           lambda a, b: a.relu(), lambda a, b: a**3, lambda a, b: torch.maximum(a, b),
           lambda a, b: a.clamp(-0.5, 0.5)]  # fmt: skip
    for op in ops:
        with torch.inference_mode():
            fast = op(x, y)
            with full_path():
                full = op(x, y)
        assert describe(fast) == describe(full)
        assert fast.is_inference() and full.is_inference()
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            fast.mul_(2)
        # an inference tensor used outside inference mode: a normal result
        assert_same(lambda op=op, fast=fast: op(fast, fast), "inference input outside")
        with torch.no_grad():
            out = op(fast, fast)
        assert not out.is_inference() and out._version == 0
    with torch.inference_mode(), torch.inference_mode(False):  # grad mode on again inside
        a = torch.randn(3, requires_grad=True)
        assert (a * 2).grad_fn is not None and (a.exp()).grad_fn is not None


def test_inference_mode_in_another_thread():
    x = torch.randn(4)
    inside, release, results = threading.Event(), threading.Event(), {}

    def worker():
        with torch.inference_mode():
            inside.set()
            results["thread"] = [x * 2, x.exp(), x.sum()]
            release.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(10)
    try:
        with torch.no_grad():
            mine = [x * 2, x.exp(), x.sum(), x + x]  # while the thread is in inference mode
    finally:
        release.set()
        t.join(10)
    assert all(r.is_inference() for r in results["thread"])
    assert not any(r.is_inference() for r in mine)
    assert all(r._version == 0 for r in mine)


def test_grad_mode_is_per_thread():
    # one thread under no_grad takes the fast path while another records, at the same time
    x = torch.randn(5, requires_grad=True)
    y = torch.randn(5)
    barrier = threading.Barrier(2, timeout=10)
    seen = {}

    def no_grad_thread():
        with torch.no_grad():
            barrier.wait()
            seen["nograd"] = [x * y, x + 1.0, x - y, x / 2.0, x.exp(), x.tanh(), x.sum(), -x,
                              x.relu(), x**2, torch.maximum(x, y), x.clamp(0, 1)]  # fmt: skip
            barrier.wait()

    def recording_thread():
        barrier.wait()
        seen["grad"] = [x * y, x + 1.0, x - y, x / 2.0, x.exp(), x.tanh(), x.sum(), -x,
                        x.relu(), x**2, torch.maximum(x, y), x.clamp(-9, 9)]  # fmt: skip
        barrier.wait()

    with torch.set_grad_enabled(False):  # the main thread's mode is its own
        threads = [
            threading.Thread(target=no_grad_thread),
            threading.Thread(target=recording_thread),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert all(r.grad_fn is None and not r.requires_grad for r in seen["nograd"])
    names = [type(r.grad_fn).__name__ for r in seen["grad"]]
    assert names == ["MulBackward0", "AddBackward0", "SubBackward0", "DivBackward0",
                     "ExpBackward0", "TanhBackward0", "SumBackward0", "NegBackward0",
                     "ReluBackward0", "PowBackward0", "MaximumBackward0",
                     "ClampBackward1"], names  # fmt: skip
    sum(r.sum() for r in seen["grad"]).backward()
    xd = x.detach()
    want = y + 1 + 1 + 0.5 + xd.exp() + (1 - xd.tanh() ** 2) + 1 - 1 + (xd > 0).float()
    want = want + 2 * xd + (xd > y).float() + 1
    np.testing.assert_allclose(x.grad.numpy(), want.numpy(), rtol=1e-6)


def _grads_both_ways(fn):
    """fn() (gradients, possibly of gradients) on the fast and on the full path."""
    fast = fn()
    with full_path():
        full = fn()
    return fast, full


def _flat(r):
    if isinstance(r, torch.Tensor):
        return [describe(r.detach())[:9] + (_bits(r.detach()),)]
    if isinstance(r, dict):
        return [item for k in sorted(r) for item in _flat(r[k])]
    if isinstance(r, list | tuple):
        return [item for v in r for item in _flat(v)]
    return [repr(r)]


def test_backward_and_double_backward_use_these_ops_alike():
    # the engine runs tensor-level backward formulas under no_grad (create_graph=False), where
    # the formulas' own products and quotients take the fast path
    g = torch.Generator().manual_seed(7)
    a0 = torch.randn(3, 4, generator=g, dtype=torch.float64)
    b0 = torch.randn(4, generator=g, dtype=torch.float64).abs() + 0.5

    def run():
        a = a0.clone().requires_grad_()
        b = b0.clone().requires_grad_()
        y = ((a * b + 2.0) / b - a.exp().sqrt() + (a.sigmoid() * 3).log()).tanh().sum()
        ga, gb = torch.autograd.grad(y, (a, b), create_graph=True)
        gga = torch.autograd.grad((ga * ga).sum() + gb.sum(), a)[0]
        y2 = (a / b).sum()
        y2.backward()
        return [y, ga, gb, gga, a.grad, b.grad]

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)
    assert torch.autograd.gradcheck(
        lambda a, b: (a * b / b.exp()).sigmoid().sum(),
        (a0.clone().requires_grad_(), b0.clone().requires_grad_()),
    )  # noqa: E501
    assert torch.autograd.gradgradcheck(
        lambda a: (a.tanh() * a - a / 3).sum(), (a0.clone().requires_grad_(),)
    )  # noqa: E501


def test_torch_func_transforms():
    g = torch.Generator().manual_seed(3)
    x0 = torch.randn(4, generator=g, dtype=torch.float64)
    w0 = torch.randn(4, generator=g, dtype=torch.float64)

    def f(x):
        with torch.no_grad():  # an inner no_grad: torch.func respects it
            c = (x * 2.0).exp().sum()
        return (x * w0 + 1.0).sigmoid().sum() * c + (x.tanh() / 3).sum()

    def g_(x):
        return (x.exp() * x - x / 2.0).sum()

    lin = torch.nn.Linear(4, 2).double()
    params = {k: v.detach() + 0.5 for k, v in lin.named_parameters()}

    def run():
        out = [
            torch.func.grad(f)(x0), torch.func.grad(g_)(x0),
            torch.func.vmap(lambda r: (r * 2.0 + r.exp()).sum())(x0.reshape(2, 2)),
            torch.func.vmap(torch.func.grad(g_))(x0.reshape(2, 2)),
            torch.func.jacrev(lambda x: x.exp() * x)(x0), torch.func.hessian(g_)(x0),
            torch.func.jvp(lambda x: x.sigmoid() * x, (x0,), (w0,)),
            torch.func.vjp(lambda x: x.tanh() / 2.0, x0)[0],
            torch.func.functional_call(lin, params, (x0.reshape(1, 4),)).sigmoid(),
            torch.func.grad(lambda p: torch.func.functional_call(lin, p, (x0,)).exp().sum())(
                params
            ),
        ]  # fmt: skip
        with torch.no_grad():  # transforms under an outer no_grad
            out += [torch.func.grad(g_)(x0), torch.func.jacrev(lambda x: x * x / 2.0)(x0)]
        return out

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)
    np.testing.assert_allclose(
        fast[1].numpy(), (x0.exp() * (x0 + 1) - 0.5).numpy(), rtol=1e-12, err_msg="grad(g)"
    )


def test_forward_ad_inside_and_outside_no_grad():
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)

    def run():
        out = []
        with fwAD.dual_level():
            d = fwAD.make_dual(x, t)
            for fn in (lambda: d * 2.0, lambda: d * d, lambda: d / 3, lambda: d - x,
                       lambda: d.exp(), lambda: d.sigmoid(), lambda: d.sum()):  # fmt: skip
                out.append(fwAD.unpack_dual(fn()))
                with torch.no_grad():  # (no tangent there: a documented difference)
                    out.append(fwAD.unpack_dual(fn()))
        return [(p, tan) for p, tan in out]

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)
    np.testing.assert_allclose(fast[0][1].numpy(), (2 * t).numpy())
    assert fast[1][1] is None  # under no_grad, on both paths


def test_autograd_functional_under_no_grad():
    x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
    F = torch.autograd.functional

    def run():
        with torch.no_grad():
            return [
                F.jacobian(lambda v: v.exp() * v / 2.0, x),
                F.hessian(lambda v: (v.tanh() * v).sum(), x),
                F.vjp(lambda v: v.sigmoid() - v, x, torch.ones(3, dtype=torch.float64)),
                F.jvp(lambda v: v * v + 1.0, x, x),
                F.jacobian(lambda v: (v * 3.0).log(), x.abs(), create_graph=True),
            ]

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_hooks_saved_tensor_hooks_and_anomaly_mode():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    fired, packed = [], []
    x.register_hook(lambda g: fired.append(g.clone()))

    def pack(t):
        packed.append(tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.no_grad():
            r = [x * x, x / 2.0, x.exp(), x.sigmoid(), x.sum(), x - x]
        assert packed == [] and all(v.grad_fn is None for v in r)
        y = (x * x).sum()
        assert packed == [(3,), (3,)]  # recorded: both of Mul's operands
    with torch.autograd.detect_anomaly():
        with torch.no_grad():
            z = (x / 0.0) * 0.0  # NaN under no_grad: nothing to check
        assert torch.isnan(z).all()
        y.backward()
    assert len(fired) == 1 and fired[0].tolist() == [2.0, -4.0, 6.0]
    with torch.autograd.detect_anomaly(), full_path(), torch.no_grad():
        assert torch.isnan((x / 0.0) * 0.0).all()


def _op_counts(prof):
    return {e.key: e.count for e in prof.key_averages()}


def test_profilers_see_every_op():
    x, y = torch.randn(4, 4), torch.randn(4, 4)

    def ops():
        with torch.no_grad():
            for _ in range(3):
                ((x * y + 1.0).exp() / y - x).tanh().sigmoid().sqrt().log().sum()
                torch.maximum(-x, y).relu().clamp(0, 1) ** 2
                torch.minimum(x, y)

    with torch.profiler.profile() as p1:
        ops()
    with torch.autograd.profiler.profile() as p2:
        with torch.autograd.profiler.record_function("block"):
            ops()
        with torch.profiler.profile() as inner:  # nested: the outer keeps recording after it
            ops()
        ops()
    assert function.fast_path[0]
    want = {"Mul": 3, "Add": 3, "Exp": 3, "Div": 3, "Sub": 3, "Tanh": 3, "Sigmoid": 3,
            "Sqrt": 3, "Log": 3, "Sum": 3, "Neg": 3, "Maximum": 3, "Minimum": 3, "Relu": 3,
            "Clamp": 3, "PowScalar": 3}  # fmt: skip
    for prof, times in ((p1, 1), (p2, 3), (inner, 1)):
        counts = _op_counts(prof)
        for k, n in want.items():
            assert counts.get(k) == n * times, (k, counts)
    assert _op_counts(p2).get("block") == 1
    with torch.autograd.profiler.profile(enabled=False):
        assert function.fast_path[0]  # a disabled profile records nothing, as before
    with pytest.raises(ZeroDivisionError), torch.profiler.profile():
        1 / 0  # noqa: B018
    assert function.fast_path[0]  # restored however the profile ends


def test_profile_sees_ops_of_other_threads_as_before():
    x = torch.randn(3)
    done = threading.Event()

    def worker():
        with torch.no_grad():
            x * 2.0
            x.sum()
        done.set()

    with torch.profiler.profile() as prof:
        t = threading.Thread(target=worker)
        t.start()
        t.join(10)
    assert done.is_set()
    counts = _op_counts(prof)
    assert counts.get("Mul") == 1 and counts.get("Sum") == 1, counts


def test_profiler_schedule_steps():
    x = torch.randn(3)
    sched = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with torch.profiler.profile(schedule=sched) as prof:
        for _ in range(5):
            with torch.no_grad():
                x * 2.0
            prof.step()
    assert function.fast_path[0]
    assert _op_counts(prof).get("Mul") == 2  # the two active steps, as the full path records


def test_flop_counter_mode():
    from minitorch.utils.flop_counter import FlopCounterMode

    a, b = torch.randn(4, 5), torch.randn(5, 3)

    def run():
        with torch.no_grad(), FlopCounterMode(display=False) as fc:
            ((a @ b) * 2.0 + 1.0).exp().sum()
            (a * a / 3.0).sigmoid()
        return fc.get_total_flops(), {str(k): dict(v) for k, v in fc.get_flop_counts().items()}

    fast, full = _grads_both_ways(run)
    assert fast == full
    assert fast[0] == 2 * 4 * 5 * 3


def test_subclasses_and_parameters():
    class Plain(torch.Tensor):  # no __torch_function__ of its own: torch keeps the subclass
        pass

    class Off(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    class Seen(torch.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    base = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    plain = torch.tensor([[2.0, 1.0], [-1.0, 0.25]])
    for cls in (Plain, Off, Seen):
        s = base.as_subclass(cls)
        for name, fn in (
            ("s*2", lambda s=s: s * 2.0), ("2*s", lambda s=s: 2.0 * s),
            ("s*p", lambda s=s: s * plain), ("p*s", lambda s=s: plain * s),
            ("p+s", lambda s=s: plain + s), ("p-s", lambda s=s: plain - s),
            ("p/s", lambda s=s: plain / s), ("exp", lambda s=s: s.exp()),
            ("sum", lambda s=s: s.sum()),
            ("torch.sigmoid", lambda s=s: torch.sigmoid(s)), ("s+s", lambda s=s: s + s),
        ):  # fmt: skip
            assert_same(fn, f"{cls.__name__} {name}")
    Seen.calls.clear()
    with torch.no_grad():
        plain * base.as_subclass(Seen)
    assert Seen.calls, "the subclass on the right is still asked"
    p = torch.nn.Parameter(base.clone())
    for fn in (
        lambda: p * 2.0,
        lambda: p * plain,
        lambda: plain + p,
        lambda: p.exp(),
        lambda: p.sum(),
    ):
        assert_same(fn, "Parameter")
        with torch.no_grad():
            r = fn()
        assert type(r) is torch.Tensor and not r.requires_grad
        assert (type(fn()).__name__, fn().requires_grad) == ("Tensor", True)


@pytest.mark.parametrize("device", ["meta", "strict"])
def test_other_devices(device):
    # the meta device and the strict test device (CuPy-like toward the host) take the full path
    m = torch.randn(2, 3, device=device)
    c = torch.randn(2, 3)
    for fn in (lambda: m * m, lambda: m + 1.0, lambda: m - m, lambda: m / 2, lambda: m.exp(),
               lambda: m.sum(), lambda: torch.tensor(2.0) * m, lambda: m * torch.tensor(2.0),
               lambda: -m, lambda: m.relu(), lambda: m**2, lambda: m.clamp(0, 1),
               lambda: torch.maximum(m, m), lambda: m * c, lambda: c + m, lambda: m.sigmoid(),
               lambda: torch.minimum(c, m), lambda: m[0, 0] * c, lambda: c / m[0, 0]):  # fmt: skip
        assert_same(fn, device)
        with torch.no_grad():
            r = call(fn)
        assert isinstance(r, Exception) or r.device.type == device


def test_results_copy_pickle_and_repr():
    import pickle
    import weakref

    x = torch.tensor([1.0, NAN, -0.0])
    with torch.no_grad():
        r = x * 2.0
    assert repr(r) == "tensor([2., nan, -0.])"
    assert torch.equal(copy.deepcopy(r).nan_to_num(), r.nan_to_num())
    assert pickle.loads(pickle.dumps(r)).tolist()[0] == 2.0
    assert weakref.ref(r)() is r
    r.name = "mine"  # a tensor's own attribute
    assert r.name == "mine"
    r.requires_grad_()
    (r * 3).sum().backward()
    assert r.grad.tolist() == [3.0, 3.0, 3.0]


class _Custom(torch.autograd.Function):
    """A user Function: its forward runs with grad off, so its ops take the fast path."""

    @staticmethod
    def forward(ctx, x, y):
        a = x * y + 2.0
        b = a.exp() / y
        ctx.save_for_backward(x, y, b)
        return b, a.sum()

    @staticmethod
    def backward(ctx, gb, gs):
        x, y, b = ctx.saved_tensors
        return gb * b * y + gs * y, gb * b * x - gb * b / y + gs * x

    @staticmethod
    def jvp(ctx, tx, ty):
        return tx * 2, (tx + ty).sum()


def test_custom_function_forward_backward_and_jvp():
    def run():
        x = torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64, requires_grad=True)
        y = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
        b, s = _Custom.apply(x, y)
        (b.sum() + s).backward()
        with torch.no_grad():
            b2, s2 = _Custom.apply(x, y)
        with fwAD.dual_level():
            d = fwAD.make_dual(x.detach(), torch.ones(3, dtype=torch.float64))
            tangents = [fwAD.unpack_dual(t).tangent for t in _Custom.apply(d, y.detach())]
        names = (type(b.grad_fn).__name__, b2.requires_grad, b2.grad_fn)
        return [b, s, x.grad, y.grad, b2, s2, *tangents, names]

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)
    assert fast[-1] == ("_CustomBackward", False, None)


def test_optimizer_steps_and_module_updates():
    # optimizers, clip_grad_norm_ and batch norm's running statistics compute under no_grad
    configs = [
        (torch.optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
        (torch.optim.Adam, {"lr": 0.01, "amsgrad": True}), (torch.optim.AdamW, {"lr": 0.01}),
        (torch.optim.RMSprop, {"lr": 0.01, "centered": True, "momentum": 0.5}),
        (torch.optim.Adagrad, {"lr": 0.1}), (torch.optim.NAdam, {}), (torch.optim.RAdam, {}),
    ]  # fmt: skip

    def run():
        out = []
        for cls, kw in configs:
            g = torch.Generator().manual_seed(0)
            m = torch.nn.Sequential(
                torch.nn.Linear(4, 8),
                torch.nn.BatchNorm1d(8),
                torch.nn.Tanh(),
                torch.nn.Linear(8, 1),
            )
            with torch.no_grad():
                for p in m.parameters():
                    p.copy_(torch.randn(p.shape, generator=g))
            opt = cls(m.parameters(), **kw)
            x, y = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
            for _ in range(3):
                opt.zero_grad()
                ((m(x) - y) ** 2).mean().backward()
                torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)
                opt.step()
            m.eval()
            with torch.no_grad():
                out += [*m.parameters(), *m.buffers(), m(x)]
        return out

    fast, full = _grads_both_ways(run)
    assert _flat(fast) == _flat(full)
