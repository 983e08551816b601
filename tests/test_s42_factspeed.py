"""The factories' common call read inline (NOTE [ The factories' common call ] in
minitorch/_factories.py) and the conversions' no-grad fast path (_convert in
minitorch/_ops/convert.py): each gives what the general path gives (values bit for bit, dtype,
strides, device, requires_grad, grad_fn, inference tensors, errors, warnings)."""

import warnings
from functools import partial

import numpy as np
import pytest

import minitorch as torch
from minitorch import _dtype
from minitorch.autograd import function

ALL_DTYPES = (
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
    torch.bfloat16, torch.float32, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2,
    torch.float8_e8m0fnu,
)  # fmt: skip
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def bits(t):
    """t's elements as raw bytes in row-major order (NaN payloads and -0.0 included)."""
    return np.ascontiguousarray(t._data).view(np.uint8).tobytes()


def same(a, b):
    """a and b are the same new tensor: class, dtype, shape, strides, device, flags, bits."""
    assert type(a) is type(b) is torch.Tensor
    assert (a.dtype, a.shape, a.stride(), a.device) == (b.dtype, b.shape, b.stride(), b.device)
    assert (a.requires_grad, a.is_leaf, a.is_inference()) == (b.requires_grad, b.is_leaf,
                                                              b.is_inference())  # fmt: skip
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__
    assert a._data.__class__ is b._data.__class__ is np.ndarray
    assert a._data.dtype == b._data.dtype
    assert bits(a) == bits(b)


def outcome(fn, *args, **kwargs):
    """fn(*args, **kwargs)'s tensor, or its error as (type name, message); with the warnings it
    gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the error is the outcome
            out = (type(e).__name__, str(e))
    return out, [f"{w.category.__name__}: {w.message}" for w in caught]


def same_outcome(fast, general):
    (a, wa), (b, wb) = outcome(fast), outcome(general)
    assert wa == wb
    if isinstance(b, tuple):
        assert a == b
    else:
        same(a, b)


@pytest.fixture
def default_float64():
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


# --- zeros / ones / empty ---

# np.int64 sizes are no Python ints: they take the general helpers (_shape)
SIZE_FORMS = (
    ((2, 3), {}), (((2, 3),), {}), (([2, 3],), {}), ((torch.Size([2, 3]),), {}),
    ((), {"size": (2, 3)}), ((np.int64(2), 3), {}), (((np.int64(2), 3),), {}),
)  # fmt: skip


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_size_forms_agree(op):
    f = getattr(torch, op)
    ref = f(np.int64(2), np.int64(3))
    want = (np.ones if op == "ones" else np.zeros)((2, 3), np.float32)
    assert bits(ref) == want.tobytes() and ref.stride() == (3, 1)
    for args, kwargs in SIZE_FORMS:
        same(f(*args, **kwargs), ref)
    same(f(5), f(np.int64(5)))
    same(f(()), f(torch.Size([])))
    assert f(()).shape == () and f([]).shape == ()


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_keywords_agree(op, default_float64):
    f = getattr(torch, op)
    assert f(2).dtype is torch.float64  # the default dtype is read at each call
    same(f(2, 3, dtype=torch.int32), f(np.int64(2), 3, dtype=torch.int32))
    same(f(2, 3, dtype=float), f(np.int64(2), 3, dtype=torch.float64))
    for device in ("cpu", torch.device("cpu"), torch.device("cpu", 0), "cpu:0"):
        same(f(2, 3, device=device), f(np.int64(2), 3))
    with torch.device("meta"):
        assert f(2, 3).device.type == "meta"
        assert f(2, 3, device="cpu").device.type == "cpu"
    t = f(2, 3, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    same(f(2, 3, requires_grad=None), f(np.int64(2), 3))
    same(f(2, 3, 4, 5, memory_format=torch.channels_last),
         f(np.int64(2), 3, 4, 5, memory_format=torch.channels_last))  # fmt: skip
    assert f(2, 3, 4, 5, memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
    assert f(2, 0).stride() == (1, 1) and f((0, 3)).stride() == (3, 1)


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
def test_errors_agree(op):
    f = getattr(torch, op)
    calls = [
        ((-1,), {}), ((2, -3), {}), (((2, -3),), {}), ((2.0,), {}), ((2, True), {}),
        (((2, 3), 4), {}), ((2, 3), {"dtype": "x"}), ((2,), {"device": "foo"}),
        ((2,), {"dtype": torch.int64, "requires_grad": True}), ((2,), {"requires_grad": 1}),
        ((2,), {"memory_format": "x"}), ((2,), {"foo": 1}), ((), {}), ((2**62, 2**62), {}),
        ((-1,), {"dtype": "x"}), ((2,), {"device": "foo", "requires_grad": 1}),
    ]  # fmt: skip
    for args, kwargs in calls:
        # the same call with the first size an np.int64 takes _shape, unless it is the error
        general = tuple(np.int64(a) if type(a) is int and a >= 0 else a for a in args[:1])
        same_outcome(partial(f, *args, **kwargs), partial(f, *general, *args[1:], **kwargs))
    out, _ = outcome(lambda: f(2, -3))
    assert out[0] == "RuntimeError"
    out, _ = outcome(lambda: f(2, requires_grad=1))
    assert out == ("TypeError", f"{op}(): argument 'requires_grad' must be bool, not int")
    out, _ = outcome(lambda: f(2, dtype=torch.int64, requires_grad=True))
    want = "Only Tensors of floating point and complex dtype can require gradients"
    assert out == ("RuntimeError", want)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_ones_every_dtype(dt):
    t = torch.ones(3, 2, dtype=dt)
    assert bits(t) == np.ones((3, 2), _dtype.numpy_dtype(dt)).tobytes()
    same(torch.ones_like(torch.zeros(3, 2, dtype=dt)), t)
    assert bits(torch.zeros(3, dtype=dt)) == bytes(3 * t._data.itemsize)


def test_empty_deterministic_fill():
    torch.use_deterministic_algorithms(True)
    try:
        assert np.isnan(torch.empty(3).numpy()).all()
        assert (torch.empty(2, dtype=torch.int32).numpy() == 2**31 - 1).all()
        assert torch.empty_like(torch.zeros(2, dtype=torch.bool)).numpy().all()
        assert np.isnan(torch.empty_like(torch.zeros(2, 3)).numpy()).all()
    finally:
        torch.use_deterministic_algorithms(False)
    assert (torch.empty(3).numpy() == 0).all()


# --- full / *_like / eye ---

FULL_VALUES = (
    2.0, 0.0, -0.0, 1.0, float("nan"), float("inf"), -float("inf"), 3.4028234663852886e38,
    -3.4028234663852886e38, 3.4028235e38, 1e39, 1e-45, 1e-40, 5e-324, 0.1, -1e-300, 7, 0, 1, -3,
    2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, True,
)  # fmt: skip


@pytest.mark.parametrize("dtype", [None, torch.float32, torch.float64, torch.int64, torch.int32])
def test_full_agrees(dtype):
    for v in FULL_VALUES:
        for size in ((2, 3), [2, 3], (), (0, 3), torch.Size([4]), (2, -1)):
            general = tuple(np.int64(n) for n in size)  # (np.int64 sizes: the general path)
            same_outcome(
                partial(torch.full, size, v, dtype=dtype),
                partial(torch.full, general, v, dtype=dtype),
            )
    with torch.device("meta"):
        assert torch.full((2,), 2.0).device.type == "meta"
        assert torch.full((2,), 2.0, device="cpu").device.type == "cpu"
    t = torch.full((2, 3), -0.0)
    assert np.signbit(t.numpy()).all() and t.dtype is torch.float32
    out, _ = outcome(lambda: torch.full((2,), 1e39))
    assert out == ("RuntimeError", "value cannot be converted to type float without overflow")
    out, _ = outcome(lambda: torch.full((2,), 2**63))
    assert out == ("RuntimeError", "value cannot be converted to type int64_t without overflow")
    t = torch.full((2,), 1.5, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_full_default_dtype(default_float64):
    assert torch.full((2,), 2.0).dtype is torch.float64
    assert torch.full((2,), 2).dtype is torch.int64
    assert torch.full((2,), 1e39).numpy()[0] == 1e39  # float64 holds it


@pytest.mark.parametrize("op", ["zeros_like", "ones_like", "empty_like", "full_like"])
def test_like_factories(op):
    f = getattr(torch, op)
    args = (2.5,) if op == "full_like" else ()
    x = torch.randn(4, 5)
    cases = [x, x.t(), torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last),
             torch.randn(3, 4).expand(2, 3, 4), torch.nn.Parameter(torch.randn(3, 3)),
             torch.arange(6), torch.zeros(0, 3)]  # fmt: skip
    for src in cases:
        t = f(src, *args)
        # the general path: an explicit preserve_format, the default
        same(t, f(src, *args, memory_format=torch.preserve_format))
        assert type(t) is torch.Tensor and t.dtype is src.dtype and t.shape == src.shape
        if src.is_contiguous():
            assert t.stride() == src.stride()
        t = f(src, *args, dtype=torch.float64, requires_grad=True)
        assert t.dtype is torch.float64 and t.requires_grad and t.is_leaf
    assert f(x.t(), *args).stride() == (1, 5)  # (preserve_format: x.t()'s own layout)
    out, _ = outcome(lambda: f(torch.arange(3), *args, requires_grad=True))
    assert out[0] == "RuntimeError"


EYE_DTYPES = (torch.float32, torch.float64, torch.int64, torch.bool, torch.float16,
              torch.bfloat16, torch.uint8, torch.float8_e4m3fn, torch.float8_e8m0fnu)  # fmt: skip


@pytest.mark.parametrize("dt", EYE_DTYPES, ids=str)
def test_eye_matches_numpy(dt):
    for n, m in ((8, None), (3, 5), (5, 3), (0, 4), (4, 0), (1, 1), (7, 1), (1, 7)):
        t = torch.eye(n, dtype=dt) if m is None else torch.eye(n, m, dtype=dt)
        want = np.eye(n, m, dtype=_dtype.numpy_dtype(dt))
        assert t.shape == want.shape and t.dtype is dt
        assert bits(t) == want.tobytes(), (n, m)
        assert t.stride() == ((want.shape[1] or 1), 1)
    with torch.device("meta"):
        assert torch.eye(3, dtype=dt).device.type == "meta"


# --- inference mode, from_numpy, tensor ---


def test_inference_tensors():
    x = torch.randn(3, 3)
    nd = np.ones((2, 2), np.float32)
    makers = [
        lambda: torch.zeros(2, 3), lambda: torch.ones((2,)), lambda: torch.empty(2),
        lambda: torch.full((2,), 2.0), lambda: torch.full((2,), 3), lambda: torch.eye(3),
        lambda: torch.zeros_like(x), lambda: torch.full_like(x, 1.0), lambda: x.double(),
        lambda: x.to(torch.int64), lambda: x.to(torch.float32, copy=True),
        lambda: torch.from_numpy(nd), lambda: torch.tensor([1, 2], dtype=torch.float32),
    ]  # fmt: skip
    for make in makers:
        with torch.inference_mode():
            t = make()
        assert t.is_inference()
        assert not make().is_inference()
    with torch.inference_mode():
        xi = torch.randn(2)
    assert not xi.double().is_inference()  # made outside: a normal tensor


def test_from_numpy():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.from_numpy(a)
    assert np.shares_memory(t._data, a) and t.stride() == (4, 1)
    t[0, 0] = 7.0
    assert a[0, 0] == 7.0
    a[1, 1] = -1.0
    assert t[1, 1].item() == -1.0
    s = torch.from_numpy(np.arange(12.0).reshape(3, 4)[:, ::2])
    assert s.stride() == (4, 2) and s.untyped_storage().nbytes() == 88
    f = torch.from_numpy(np.asfortranarray(np.ones((2, 3))))
    assert f.stride() == (1, 2)
    assert torch.as_tensor(a) is not t and np.shares_memory(torch.as_tensor(a)._data, a)
    record_field = np.zeros(3, dtype=[("a", "f4"), ("b", "i8")])["b"]
    for bad, kind in (
        (np.arange(6.0)[::-1], "negative"),
        (np.ones((1, 3))[::-1], "negative"),  # (a size-1 dim's stride counts too)
        (record_field, "multiple"),
    ):
        with pytest.raises(ValueError, match=kind):
            torch.from_numpy(bad)
        with pytest.raises(ValueError, match=kind):
            torch.as_tensor(bad)


def test_from_numpy_read_only(fresh_once):
    base = np.arange(4.0)
    a = base[:]
    a.flags.writeable = False  # (memory NumPy lets a view write: the tensor writes it)
    with pytest.warns(UserWarning, match="not writable"):
        t = torch.from_numpy(a)
    assert np.shares_memory(t._data, a) and t._data.flags.writeable
    assert not a.flags.writeable
    base.flags.writeable = False  # (memory NumPy refuses to write: the tensor stays read-only)
    t = torch.from_numpy(base)
    assert np.shares_memory(t._data, base) and not t._data.flags.writeable


def test_tensor_of_ints_in_a_float_dtype():
    ints = [2**53 + 1, 2**60 + 2**36 + 1, -(2**63), 16777217, 3]
    for dt in (torch.float32, torch.float64):
        t = torch.tensor(ints, dtype=dt)
        assert bits(t) == np.array(ints, np.int64).astype(_dtype.numpy_dtype(dt)).tobytes()
        assert torch.tensor(5, dtype=dt).shape == () and torch.tensor(5, dtype=dt).item() == 5
        assert torch.tensor([2**63], dtype=dt).item() == float(2**63)  # beyond int64
        t = torch.tensor([1, 2], dtype=dt, requires_grad=True)
        assert t.requires_grad and t.is_leaf
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.tensor([2**64 + 5], dtype=torch.int64)


# --- conversions: the no-grad fast path against the full path ---


class full_path:
    """Turns the no-grad fast paths off, as a profile does."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def sources():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 5, generator=g) * 100
    special = torch.tensor([1.5, float("nan"), float("inf"), -float("inf"), -2.5, 1e20, -1e20,
                            300.7, -0.0, 65520.0, -129.5, 3.3e38])  # fmt: skip
    return {
        "f32": x,
        "f32t": x.t(),
        "f32x": x[0].expand(3, 5),
        "special": special,
        "f64": special.double(),
        "f16": x.half(),
        "bf16": x.bfloat16(),
        "i64": x.long(),
        "i32": x.int(),
        "u8": x.byte(),
        "bool": x > 0,
        "0d": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
        "big": torch.randn(70, 70, generator=g),
    }


CALLS = {
    "to": lambda x, dt: x.to(dt), "to_kw": lambda x, dt: x.to(dtype=dt),
    "type": lambda x, dt: x.type(dt), "copy": lambda x, dt: x.to(dt, copy=True),
    "nb": lambda x, dt: x.to(dt, non_blocking=True), "to_self": lambda x, dt: x.to(x),
    "dev_dt": lambda x, dt: x.to("cpu", dt), "kw": lambda x, dt: x.to(device="cpu", dtype=dt),
}  # fmt: skip


@pytest.mark.parametrize("call", CALLS)
def test_conversions_fast_vs_full(call):
    fn = CALLS[call]
    for src in sources().values():
        for dt in ALL_DTYPES:
            fast, wf = outcome(fn, src, dt)
            with full_path():
                full, wg = outcome(fn, src, dt)
            assert wf == wg, (call, src.dtype, dt)
            if isinstance(full, tuple):
                assert fast == full
            elif full is src:
                assert fast is src
            else:
                same(fast, full)


def test_shorthand_casts_fast_vs_full():
    names = ("double", "float", "half", "bfloat16", "long", "int", "short", "char", "byte",
             "bool", "cpu")  # fmt: skip
    for src in sources().values():
        for name in names:
            fast, wf = outcome(getattr(src, name))
            with full_path():
                full, wg = outcome(getattr(src, name))
            assert wf == wg
            if full is src:
                assert fast is src
            else:
                same(fast, full)


def test_to_returns_self():
    x = torch.randn(2, 3)
    for call in (lambda: x.to("cpu"), lambda: x.to(torch.float32), lambda: x.to(x),
                 lambda: x.to(dtype=torch.float32), lambda: x.to(device="cpu"), x.float, x.cpu,
                 lambda: x.to(torch.device("cpu")), lambda: x.to("cpu", non_blocking=True),
                 lambda: x.type(torch.float32)):  # fmt: skip
        assert call() is x
    for call in (lambda: x.to("cpu:0"), lambda: x.to(torch.device("cpu", 0)),
                 lambda: x.to(torch.float32, copy=True)):  # fmt: skip
        y = call()
        assert y is not x and not np.shares_memory(y._data, x._data)
    assert x.to(torch.ones(1, dtype=torch.int64)).dtype is torch.int64


def test_to_argument_errors():
    x = torch.randn(2)
    for call in (lambda: x.to("foo"), lambda: x.to(1.5), lambda: x.to(foo=1),
                 lambda: x.to(torch.float64, dtype=torch.float64), lambda: x.to(dtype="x"),
                 lambda: x.to(torch.float64, non_blocking=1), lambda: x.to(device=torch.float64),
                 lambda: x.to("cpu", foo=True)):  # fmt: skip
        fast, _ = outcome(call)
        with full_path():
            full, _ = outcome(call)
        assert isinstance(fast, tuple) and fast == full
    out, _ = outcome(lambda: x.to(foo=1))
    assert out[0] == "TypeError" and out[1].startswith("to() received an invalid combination")


def test_conversions_record_graphs():
    x = torch.randn(3, 3, requires_grad=True)
    for y in (
        x.double(),
        x.to(torch.float16),
        x.to(torch.float32, copy=True),
        x.type(torch.float64),
    ):
        assert type(y.grad_fn).__name__ == "ToCopyBackward0" and y.requires_grad
    for y in (x.long(), x.to(torch.int32), x.bool()):
        assert y.grad_fn is None and not y.requires_grad
    with torch.no_grad():
        y = x.double()
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    (x.double() * torch.arange(9.0, dtype=torch.float64).reshape(3, 3)).sum().backward()
    assert x.grad.dtype is torch.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(9.0).reshape(3, 3))
    (g,) = torch.autograd.grad((x.double() ** 3).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * x.detach().numpy(), rtol=1e-6)
    p = torch.nn.Parameter(torch.randn(2))
    assert type(p.double()) is torch.Tensor and p.double().grad_fn is not None
    with torch.no_grad():
        assert type(p.double()) is torch.Tensor and p.double().grad_fn is None


def test_profiler_sees_conversions():
    x = torch.randn(3, 3)
    with torch.autograd.profiler.profile() as prof:
        x.double()
        x.to(torch.int64)
    assert [e.name for e in prof.function_events].count("ToCopy") == 2
    assert function.fast_path[0]  # (restored)


def test_cast_helpers():
    assert torch.tensor([-2.25]).bfloat16().to(torch.uint8).tolist() == [254]
    big = torch.tensor([-2147483649.0, 4294967301.0], dtype=torch.float64)
    assert big.to(torch.uint8).tolist() == [255, 5]  # through int64, as c10
    for npdt, want in ((None, False), (np.dtype(np.float32), False),
                       (_dtype.numpy_dtype(torch.bfloat16), True),
                       (_dtype.numpy_dtype(torch.float8_e5m2), True)):  # fmt: skip
        assert _dtype._ml_stored(npdt) is want
        assert _dtype._ml_stored(npdt) is want  # (cached)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = sources()["special"].long()  # NaN, inf, out of range: silently, as torch
    assert out.dtype is torch.int64
