"""The no-grad fast path (NOTE [ The no-grad fast path ] in minitorch/autograd/function.py):
an op that takes it returns what the full path (Function.apply) returns, and everything that
must see the op (a recorded graph, a profile, inference mode, a subclass) still does."""

import operator

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import pointwise
from minitorch.autograd import function

DTYPES = (torch.float16, torch.float32, torch.float64, torch.int32, torch.int64, torch.bool)
SHAPES = (((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((2, 1, 3), (4, 1)), ((0, 3), (3,)))


def full_path():
    """Turns the fast paths off, as a profile does (so the full path's result is the reference)."""
    return _Switch()


class _Switch:
    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def make(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if dtype is torch.bool:
        return x > 0
    if not dtype.is_floating_point:
        return (x * 10).to(dtype)
    x[x.abs() < 0.3] = 0.5  # keeps log/sqrt/div away from the poles, some values negative
    return x.to(dtype)


def same(fast, full):
    assert type(fast) is type(full) is torch.Tensor
    assert fast.dtype == full.dtype and fast.shape == full.shape and fast.device == full.device
    assert fast.stride() == full.stride()
    assert (fast.requires_grad, fast.grad_fn, fast.is_leaf) == (False, None, True)
    assert fast._version == full._version == 0
    assert fast.numpy().dtype == full.numpy().dtype
    np.testing.assert_array_equal(fast.numpy(), full.numpy())  # NaN where NaN, bit for bit
    assert np.array_equal(np.signbit(fast.numpy()), np.signbit(full.numpy())) or (
        fast.dtype in (torch.int32, torch.int64, torch.bool)
    )


def both(fn):
    """fn() on the fast path and on the full path, the fast path first (it is the one tested)."""
    with torch.no_grad():
        fast = fn()
        with full_path():
            full = fn()
    return fast, full


BINARY = [
    ("mul", operator.mul), ("add", operator.add), ("sub", operator.sub),
    ("truediv", operator.truediv), ("torch.mul", torch.mul), ("torch.add", torch.add),
    ("torch.sub", torch.sub), ("torch.div", torch.div),
]  # fmt: skip


@pytest.mark.parametrize("name,op", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_tensors_match_the_full_path(name, op, dtype, shapes):
    a, b = make(shapes[0], dtype, 0), make(shapes[1], dtype, 1)
    try:
        with torch.no_grad(), full_path():
            op(a, b)
    except RuntimeError as e:  # bool - bool: the full path's error, also from the operator
        with torch.no_grad(), pytest.raises(RuntimeError, match=str(e)[:40]):
            op(a, b)
        return
    same(*both(lambda: op(a, b)))


@pytest.mark.parametrize("name,op", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("number", [2, -3, 0.1, 1e30, -0.0, float("inf"), float("nan"), 2**40])
def test_binary_with_numbers_match_the_full_path(name, op, dtype, number):
    a = make((3, 5), dtype, 2)
    try:
        with torch.no_grad(), full_path():
            op(a, number)
    except RuntimeError:
        return  # (bool tensors with some numbers: the full path's error either way)
    same(*both(lambda: op(a, number)))
    same(*both(lambda: op(number, a) if name in ("mul", "add") else op(a, number)))


UNARY = ["exp", "log", "sqrt", "tanh", "sigmoid"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2), (5,)], ids=str)
def test_unary_match_the_full_path(name, dtype, shape):
    a = make(shape, dtype, 3)
    same(*both(lambda: getattr(torch, name)(a)))
    same(*both(lambda: getattr(a, name)()))
    b = a.t() if a.dim() == 2 else a  # a transposed (non-contiguous) input
    same(*both(lambda: getattr(torch, name)(b)))


MORE_UNARY = {
    "neg": lambda a: -a, "torch.neg": torch.neg, "relu": torch.relu,
    "Tensor.relu": torch.Tensor.relu,
    "square": lambda a: a**2, "pow3": lambda a: a.pow(3), "pow-0.5": lambda a: torch.pow(a, -0.5),
    "pow0.5": lambda a: a**0.5, "pow-2": lambda a: a**-2, "pow1.7": lambda a: a**1.7,
    "pow0": lambda a: a**0,
}  # fmt: skip


@pytest.mark.parametrize("name", list(MORE_UNARY))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2), (5,), (40,)], ids=str)
def test_more_unary_match_the_full_path(name, dtype, shape):
    fn = MORE_UNARY[name]
    a = make(shape, dtype, 5)
    try:
        with torch.no_grad(), full_path():
            fn(a)
    except RuntimeError as e:  # -bool, relu(bool), int ** -2: the full path's error
        with torch.no_grad(), pytest.raises(RuntimeError, match=str(e)[:30]):
            fn(a)
        return
    same(*both(lambda: fn(a)))
    if a.dim() == 2:
        same(*both(lambda: fn(a.t())))  # transposed
        if a.numel():  # expanded: NOTE [ Preserved layouts ]
            same(*both(lambda: fn(a[:1].expand(5, a.shape[1]))))


CLAMPS = [
    (0, 1), (-0.5, None), (None, 0.25), (1, 0), (0, None), (None, 0), (-1e6, None), (0.0, 1e30),
    (float("nan"), None), (None, float("-inf")), (True, None), (2, 2),
]  # fmt: skip


@pytest.mark.parametrize("bounds", CLAMPS, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2)], ids=str)
def test_clamp_matches_the_full_path(bounds, dtype, shape):
    lo, hi = bounds
    a = make(shape, dtype, 8)
    if dtype.is_floating_point and a.numel():
        a.view(-1)[0] = -0.0
        a.view(-1)[-1] = float("nan")
    for fn in (lambda: a.clamp(lo, hi), lambda: torch.clamp(a, min=lo, max=hi),
               lambda: a.clip(lo, hi)):  # fmt: skip
        err = None
        try:
            with torch.no_grad(), full_path():
                fn()
        except (RuntimeError, NotImplementedError) as e:
            err = e
        if err is not None:
            with torch.no_grad(), pytest.raises(type(err)):
                fn()
            continue
        same(*both(fn))


@pytest.mark.parametrize("op", [torch.maximum, torch.minimum], ids=["maximum", "minimum"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_maximum_minimum_match_the_full_path(op, dtype, shapes):
    a, b = make(shapes[0], dtype, 6), make(shapes[1], dtype, 7)
    same(*both(lambda: op(a, b)))
    if dtype.is_floating_point:  # ties between 0. and -0.: torch returns the input
        z, nz = torch.zeros(4, dtype=dtype), -torch.zeros(4, dtype=dtype)
        same(*both(lambda: op(z, nz)))
        same(*both(lambda: op(nz, z)))
        n = torch.tensor([float("nan"), 1.0, float("nan"), 2.0], dtype=dtype)
        same(*both(lambda: op(n, z)))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (), (0, 2), (100, 300), (7,)], ids=str)
def test_full_sum_matches_the_full_path(dtype, shape):
    a = make(shape, dtype, 4)
    same(*both(lambda: a.sum()))
    same(*both(lambda: torch.sum(a)))
    if a.dim() == 2:
        same(*both(lambda: a.t().sum()))


def test_fast_path_is_taken_only_with_nothing_to_record():
    x = torch.randn(3, 4, requires_grad=True)
    y = torch.randn(3, 4)

    def ops():
        return (x * y, x + 2, y - x, x / y, x.exp(), torch.tanh(x), x.sum(), x.sigmoid(), -x,
                x.relu(), x**2, torch.maximum(x, y), torch.minimum(y, x), x.clamp(0, 1),
                x.clamp(max=0.5))  # fmt: skip

    for out in ops():
        assert out.requires_grad and out.grad_fn is not None
    with torch.no_grad():
        for out in ops():
            assert not out.requires_grad and out.grad_fn is None
    with torch.enable_grad():  # nothing requires grad: no node either way
        assert (y * y).grad_fn is None
    (x * y + x.exp()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y + x.exp()).detach().numpy(), rtol=1e-6)


def test_profile_sees_the_ops_of_the_fast_path():
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    with torch.no_grad(), torch.profiler.profile() as prof:
        ((x * y + 1).exp() / y - x).tanh().sum()
    names = [e.key for e in prof.key_averages()]
    for op in ("Mul", "Add", "Exp", "Div", "Sub", "Tanh", "Sum"):  # the ops' Function classes
        assert op in names, (op, names)
    assert function.fast_path[0]  # back on once the profile closes
    with torch.autograd.profiler.profile() as outer:
        with torch.autograd.profiler.profile():
            pass
        assert not function.fast_path[0]  # still off while the outer profile runs
        with torch.no_grad():
            x * y
    assert "Mul" in [e.key for e in outer.key_averages()]
    assert function.fast_path[0]


def test_inference_mode_results_are_inference_tensors():
    x, y = torch.randn(3), torch.randn(3)
    with torch.inference_mode():
        outs = [x * y, x + 1, x - y, x / 2, x.exp(), x.sum(), torch.sigmoid(x)]
    for out in outs:
        assert out.is_inference()
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            out.add_(1)
    with torch.no_grad():
        assert not (x * y).is_inference()


def test_subclasses_and_parameters_take_the_full_path():
    seen = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = torch.randn(3).as_subclass(Logged)
    with torch.no_grad():
        out = x * 2
        e = x.exp()
        s = x.sum()
    assert type(out) is type(e) is type(s) is Logged
    assert seen == ["mul", "exp", "sum"], seen  # (torch names them so too)
    p = torch.nn.Parameter(torch.randn(3))
    with torch.no_grad():
        q = p * 2
    assert type(q) is torch.Tensor and not q.requires_grad


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error: compared by type and message)
        return type(e), str(e)
    raise AssertionError("no error")


BAD = [
    lambda x, y: x * y, lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x / y,
    lambda x, y: x * "a", lambda x, y: x + [1, 2], lambda x, y: torch.exp(x, 1),
    lambda x, y: torch.exp(x, out=1), lambda x, y: torch.sum(x, foo=1),
    lambda x, y: x.sum(2), lambda x, y: x - torch.ones(3, 4, dtype=torch.bool) * 0 - True,
    lambda x, y: torch.maximum(x, y), lambda x, y: torch.minimum(x, y),
    lambda x, y: torch.max(x, y),
    lambda x, y: x.clamp(y), lambda x, y: torch.pow(x, y), lambda x, y: x**y,
]  # fmt: skip


@pytest.mark.parametrize("k", range(len(BAD)))
def test_errors_are_the_full_paths(k):
    x, y = torch.randn(3, 4), torch.randn(5)
    with torch.no_grad():
        fast = _error(lambda: BAD[k](x, y))
        with full_path():
            assert fast == _error(lambda: BAD[k](x, y))
    if k == 0:
        assert fast[0] is RuntimeError and "size of tensor a (4) must match" in fast[1]


def test_big_numbers_as_before():
    with torch.no_grad():
        x = torch.randn(3)
        for big in (2**70, -(2**70), 2**64, -(2**63) - 1):  # torch: beyond a Scalar's range
            for op in (torch.mul, torch.add, torch.sub, torch.div, torch.pow, operator.mul):
                with pytest.raises(OverflowError, match="int too big|negative int to unsigned"):
                    op(x, big)
        assert (x * 2**63).dtype == (x + (2**64 - 1)).dtype == torch.float32  # (within it)
        i = torch.tensor([1, 2], dtype=torch.int64)
        wrapped = i * torch.tensor(0x9E3779B97F4A7C15 - 2**64)
        assert (i * 0x9E3779B97F4A7C15).tolist() == wrapped.tolist()  # NOTE [ Unsigned 64-bit
        with pytest.raises(OverflowError, match="int too big to convert"):  # numbers ], as torch
            x * 10**400


def test_out_and_alpha_take_the_full_path():
    x, y = torch.randn(3), torch.randn(3)
    out = torch.empty(3)
    with torch.no_grad():
        r = torch.mul(x, y, out=out)
        assert r is out
        np.testing.assert_array_equal(out.numpy(), x.numpy() * y.numpy())
        np.testing.assert_allclose(
            torch.add(x, y, alpha=2).numpy(), x.numpy() + 2 * y.numpy(), rtol=1e-6
        )
        np.testing.assert_allclose(
            torch.sub(x, y, alpha=3).numpy(), x.numpy() - 3 * y.numpy(), rtol=1e-6
        )
        r = torch.exp(x, out=out)
        assert r is out


def test_other_devices_take_the_full_path():
    meta = torch.randn(3, 4, device="meta")
    with torch.no_grad():
        out = meta * meta + 1
        assert out.device.type == "meta" and out.shape == (3, 4)
        assert torch.exp(meta).device.type == "meta"
        assert meta.sum().device.type == "meta"


def test_fast_path_is_an_op_functions_first_test():
    # the switch the profiler turns: one flag, read by each fast path
    assert pointwise.fast_path is function.fast_path


def test_observers_pause_the_fast_path_until_the_last_one_ends():
    from minitorch.utils.flop_counter import FlopCounterMode

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    with torch.no_grad():
        flops = FlopCounterMode(display=False)
        with flops:
            assert not function.fast_path[0]
            prof = torch.profiler.profile()
            prof.__enter__()
            torch.nn.functional.linear(x, w)
        # the FlopCounterMode ended first: the open profile still sees every op
        assert not function.fast_path[0]
        x * w
        prof.__exit__(None, None, None)
        assert function.fast_path[0]
    assert flops.get_total_flops() == 2 * 4 * 4 * 4  # F.linear counted, not fast-pathed
    assert "Mul" in [e.key for e in prof.key_averages()]
