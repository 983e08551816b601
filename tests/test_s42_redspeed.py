"""The reductions' cheaper per-call paths (session 42, redspeed): the no-grad fast paths of
max/min (all, and along a dim), sum along a dim and mean (NOTE [ The no-grad fast path ] in
minitorch/autograd/function.py) return what the full path returns, bit for bit; the common-call
shortcuts of max/min, mean, amax, logsumexp, prod, var/std and the norms keep every value,
node, saved attribute, gradient and error; and the host kernels that replaced NumPy's wrappers
(ufunc reduce, the direct gather of max along a dim) give NumPy's values."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import reduction
from minitorch.autograd import function

FLOATS = (torch.float16, torch.float32, torch.float64)
DTYPES = (*FLOATS, torch.bfloat16, torch.int32, torch.int64, torch.bool)
SHAPES = ((3, 4), (5,), (), (4, 6, 5), (0, 3), (40, 33), (1, 1))


class _FullPath:
    """Turns the fast paths off, as a profile does: the full path's result is the reference."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


def make(shape, dtype, seed, special=True):
    """A seeded tensor; a float one with NaN, +-0. and +-inf among its values (special)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64) * 3
    if dtype is torch.bool:
        return x > 0
    if not dtype.is_floating_point:
        return (x * 10).to(dtype)
    x = x.to(dtype)
    if special and x.numel() >= 8:
        flat = x.reshape(-1)
        specials = (float("nan"), 0.0, -0.0, float("inf"), -float("inf"))
        for i, v in zip((0, 2, 3, 5, 7), specials, strict=True):
            flat[(i * 7) % x.numel()] = v
        x = flat.reshape(shape)
    return x


def _arrays(r):
    return [t for t in (r if isinstance(r, tuple) else (r,))]


def same(fast, full):
    """Two results (a tensor, or a tuple of them) alike bit for bit, as plain no-grad tensors."""
    assert type(fast) is type(full)
    for a, b in zip(_arrays(fast), _arrays(full), strict=True):
        assert type(a) is type(b) is torch.Tensor
        assert (a.dtype, a.shape, a.device) == (b.dtype, b.shape, b.device)
        assert a.stride() == b.stride()
        assert (a.requires_grad, a.grad_fn, a.is_leaf, a._version) == (False, None, True, 0)
        x, y = a._data, b._data
        assert x.dtype == y.dtype
        assert x.tobytes() == y.tobytes(), (x, y)  # NaN payloads and signed zeros too


def both(fn):
    """fn() on the fast path and on the full path (under no_grad)."""
    with torch.no_grad():
        fast = fn()
        with _FullPath():
            full = fn()
    return fast, full


CALLS = {
    "max()": lambda x: x.max(),
    "min()": lambda x: x.min(),
    "torch.max": lambda x: torch.max(x),
    "max(0)": lambda x: x.max(0),
    "max(-1)": lambda x: x.max(-1),
    "min(1, True)": lambda x: x.min(1, True),
    "max(dim=-1, keepdim=True)": lambda x: x.max(dim=-1, keepdim=True),
    "torch.min(x, 0, keepdim=False)": lambda x: torch.min(x, 0, keepdim=False),
    "sum(1)": lambda x: x.sum(1),
    "sum(-1, True)": lambda x: x.sum(-1, True),
    "torch.sum(x, 0)": lambda x: torch.sum(x, 0),
    "sum(dim=0, keepdim=True)": lambda x: x.sum(dim=0, keepdim=True),
    "mean()": lambda x: x.mean(),
    "mean(1)": lambda x: x.mean(1),
    "mean(-1, True)": lambda x: x.mean(-1, True),
    "torch.mean(x, 0)": lambda x: torch.mean(x, 0),
}


def _outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 (compared by type and message)
        return None, (type(e), str(e))


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_fast_paths_match_the_full_path(call, dtype, shape):
    fn = CALLS[call]
    for x in (make(shape, dtype, 1), make(shape, dtype, 2).t() if len(shape) == 2 else None):
        if x is None:
            continue
        with torch.no_grad():
            fast, fast_err = _outcome(lambda x=x: fn(x))
            with _FullPath():
                full, full_err = _outcome(lambda x=x: fn(x))
        assert fast_err == full_err  # (an empty input, a 0-d dim 1, an int mean: one error)
        if full_err is None:
            same(fast, full)


def test_fast_paths_give_numpys_values():
    # the ufunc reduce and the direct gather: NumPy's max/argmax, NaN first where there is one
    for dtype in (torch.float32, torch.float64, torch.int64):
        for shape in ((3, 4), (7,), (4, 6, 5), (40, 33)):
            x = make(shape, dtype, 3)
            a = x.numpy()
            with torch.no_grad():
                assert x.max().numpy().tobytes() == np.asarray(a.max()).tobytes()
                assert x.min().numpy().tobytes() == np.asarray(a.min()).tobytes()
                for d in range(len(shape)):
                    v, i = x.max(d)
                    np.testing.assert_array_equal(i.numpy(), a.argmax(d))
                    want = np.take_along_axis(a, np.expand_dims(a.argmax(d), d), d)
                    assert v.numpy().tobytes() == want.squeeze(d).tobytes()
                    v, i = x.min(d, keepdim=True)
                    np.testing.assert_array_equal(i.numpy(), a.argmin(d, keepdims=True))


@pytest.mark.parametrize("shape", [(3, 4), (40, 33), (70, 20), (2, 40, 20)], ids=str)
def test_row_extremes_give_numpys_values(shape):
    # max_last's three routes (a reduce, one down a transposed copy, argmax and a gather):
    # amax and softmax over the last dim
    x = make(shape, torch.float32, 8, special=False)
    a = x.numpy()
    assert x.amax(-1).numpy().tobytes() == a.max(-1).tobytes()
    assert x.amin(-1, True).numpy().tobytes() == a.min(-1, keepdims=True).tobytes()
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(torch.softmax(x, -1).numpy(), e / e.sum(-1, keepdims=True), 1e-6)
    x = make(shape, torch.float32, 8, special=True)  # a NaN where a row has one
    a = x.numpy()
    np.testing.assert_array_equal(x.amax(-1).numpy(), a.max(-1))
    np.testing.assert_array_equal(x.amin(-1).numpy(), a.min(-1))


def test_take_at_is_take_along_axis():
    xp = reduction._CPU_XP
    rng = np.random.default_rng(0)
    for shape in ((5,), (3, 4), (4, 3), (2, 3, 4)):
        a = rng.standard_normal(shape).astype(np.float32)
        for arr in (a, a.T if a.ndim == 2 else a):
            for d in range(arr.ndim):
                idx = arr.argmax(axis=d, keepdims=True)
                got = reduction.take_at(xp, arr, idx, d)
                want = np.take_along_axis(arr, idx, axis=d)
                assert got.shape == want.shape and got.strides == want.strides
                assert got.tobytes() == want.tobytes()


RECORDED = {
    "max()": (lambda x: x.max(), "MaxBackward1"),
    "min()": (lambda x: x.min(), "MinBackward1"),
    "max(1)": (lambda x: x.max(1)[0], "MaxBackward0"),
    "min(-1, True)": (lambda x: x.min(-1, True)[0], "MinBackward0"),
    "amax(1)": (lambda x: x.amax(1), "AmaxBackward0"),
    "amin(-1, True)": (lambda x: x.amin(-1, True), "AminBackward0"),
    "sum(1)": (lambda x: x.sum(1), "SumBackward1"),
    "mean()": (lambda x: x.mean(), "MeanBackward0"),
    "mean(-1)": (lambda x: x.mean(-1), "MeanBackward1"),
    "logsumexp(1)": (lambda x: x.logsumexp(1), "LogsumexpBackward0"),
    "logsumexp(-1, True)": (lambda x: torch.logsumexp(x, -1, True), "LogsumexpBackward0"),
    "prod()": (lambda x: x.prod(), "ProdBackward0"),
    "var()": (lambda x: x.var(), "VarBackward0"),
    "std(1)": (lambda x: x.std(1), "StdBackward0"),
    "var(-1, keepdim=True)": (lambda x: x.var(-1, keepdim=True), "VarBackward0"),
    "norm()": (lambda x: x.norm(), "LinalgVectorNormBackward0"),
    "norm(3)": (lambda x: x.norm(3), "LinalgVectorNormBackward0"),
}


@pytest.mark.parametrize("name", list(RECORDED))
def test_recorded_calls_keep_their_nodes(name):
    fn, node = RECORDED[name]
    x = torch.randn(4, 5, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    x.requires_grad_()
    out = fn(x)
    assert out.requires_grad and type(out.grad_fn).__name__ == node
    with torch.no_grad():
        ref = fn(x.detach())
    assert out.detach().numpy().tobytes() == ref.numpy().tobytes()  # the same kernel
    torch.autograd.gradcheck(fn, (x,))
    torch.autograd.gradgradcheck(fn, (x,))


def test_saved_attributes_as_given():
    x = torch.randn(3, 4, requires_grad=True)
    v, i = x.max(-1)
    assert v.grad_fn._saved_dim == 2**64 - 1 and v.grad_fn._saved_keepdim is False
    assert v.grad_fn._saved_indices.tolist() == i.tolist()
    assert v.grad_fn._saved_self_sym_sizes == (3, 4)
    assert x.min(1, True)[0].grad_fn._saved_dim == 1
    assert x.amax(-1).grad_fn._saved_dim == (2**64 - 1,)
    assert x.amin(0, True).grad_fn._saved_keepdim is True
    lse = x.logsumexp(-1)
    assert lse.grad_fn._saved_dim == (2**64 - 1,) and lse.grad_fn._saved_keepdim is False
    assert torch.equal(lse.grad_fn._saved_result, lse)
    m = x.mean(1)
    assert m.grad_fn._saved_dim == (1,) and m.grad_fn._saved_self_sym_numel == 12
    assert x.mean().grad_fn._saved_self_sym_sizes == (3, 4)
    s = x.std(-1)
    assert s.grad_fn._saved_dim == (2**64 - 1,) and s.grad_fn._saved_correction == 1
    assert x.var().grad_fn._saved_correction is None and x.var().grad_fn._saved_dim is None
    n = x.norm()
    assert n.grad_fn._saved_ord == 2 and n.grad_fn._saved_dim is None
    assert torch.max(x).grad_fn._saved_result.item() == x.max().item()


def test_max_indices_are_watched():
    # the indices max returns are the node's: changing them in place refuses backward
    x = torch.randn(3, 4, requires_grad=True)
    v, i = x.max(1)
    i.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (any error: compared by type and message)
        return type(e), str(e)
    raise AssertionError("no error")


BAD = {
    "max(5)": (lambda x: x.max(5), IndexError, "Dimension out of range"),
    "max(1, 1)": (lambda x: x.max(1, 1), TypeError, "max()"),
    "max(1, keepdim=1)": (lambda x: x.max(1, keepdim=1), TypeError, "max()"),
    "max(keepdim=True)": (lambda x: x.max(keepdim=True), TypeError, "max()"),
    "max(True)": (lambda x: x.max(True), TypeError, "max()"),
    "max(None)": (lambda x: x.max(None), TypeError, "max()"),
    "min(0, True, 1)": (lambda x: x.min(0, True, 1), TypeError, "min()"),
    "empty max()": (lambda x: x[:0].max(), RuntimeError, "numel() == 0"),
    "empty max(0)": (lambda x: x[:0].max(0), IndexError, "non-zero size"),
    "empty min(1)": (lambda x: x[:, :0].min(1), IndexError, "non-zero size"),
    "sum(2)": (lambda x: x.sum(2), IndexError, "Dimension out of range"),
    "sum(1, 1)": (lambda x: x.sum(1, 1), TypeError, "keepdim"),
    "mean(2)": (lambda x: x.mean(2), IndexError, "Dimension out of range"),
    "int mean()": (lambda x: x.long().mean(), RuntimeError, "could not infer output dtype"),
    "int mean(0)": (lambda x: x.long().mean(0), RuntimeError, "could not infer output dtype"),
    "mean(1, 1)": (lambda x: x.mean(1, 1), TypeError, "mean()"),
    "amax(2)": (lambda x: x.amax(2), IndexError, "Dimension out of range"),
    "empty amax(0)": (lambda x: x[:0].amax(0), IndexError, "non-zero size"),
    "logsumexp(2)": (lambda x: x.logsumexp(2), IndexError, "Dimension out of range"),
    "std(2)": (lambda x: x.std(2), IndexError, "Dimension out of range"),
    "norm('x')": (lambda x: x.norm("x"), RuntimeError, "Order x not supported"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_errors_are_the_full_paths(name):
    fn, kind, text = BAD[name]
    x = torch.randn(3, 4)
    got = _error(lambda: fn(x))
    assert got[0] is kind and text in got[1], got
    with torch.no_grad(), _FullPath():
        assert _error(lambda: fn(x)) == got
    with torch.no_grad():
        assert _error(lambda: fn(x)) == got


def test_var_warns_at_no_degrees_of_freedom():
    x = torch.randn(1, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = x.var(0)
        s = x[:, :1].std()
    assert [str(w.message)[:40] for w in caught] == [
        "var(): degrees of freedom is <= 0. Corre",
        "std(): degrees of freedom is <= 0. Corre",
    ]
    assert v.isnan().all() and s.isnan()


def test_nan_and_bfloat16_extremes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither NumPy's floats nor bfloat16 warn here
        for dt in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
            x = torch.tensor([[1.0, float("nan"), 3.0], [-0.0, 0.0, -1.0]], dtype=dt)
            assert x.max().isnan() and x.min().isnan()
            assert x.max(1)[1].tolist() == [1, 0] and x.min(1)[1].tolist() == [1, 2]
            assert x.max(1)[0][1].float().numpy().tobytes() == np.float32(-0.0).tobytes()  # first
            assert x.amax(1)[0].isnan() and x.amax(1)[1].item() == 0.0
            assert x.logsumexp(1)[0].isnan()


def test_profile_inference_and_subclasses_see_the_ops():
    x = torch.randn(4, 5)
    with torch.no_grad(), torch.profiler.profile() as prof:
        x.max(), x.max(1), x.sum(1), x.mean(), x.mean(0)
    names = [e.key for e in prof.key_averages()]
    for op in ("MaxAll", "MaxDim", "SumDim", "Mean", "MeanDim"):
        assert op in names, (op, names)
    with torch.inference_mode():
        outs = [x.max(), *x.min(1), x.sum(0), x.mean(), x.mean(1)]
    assert all(o.is_inference() for o in outs)
    seen = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    y = x.as_subclass(Logged)
    with torch.no_grad():
        results = [y.max(), y.max(1)[0], y.sum(1), y.mean(), y.mean(1)]
    assert all(type(r) is Logged for r in results)
    assert seen == ["max", "max", "sum", "mean", "mean"], seen
    p = torch.nn.Parameter(torch.randn(3, 2))
    with torch.no_grad():
        assert type(p.max()) is torch.Tensor and not p.max(0)[0].requires_grad


def test_fast_paths_are_off_where_a_graph_is_recorded():
    x = torch.randn(3, 4, requires_grad=True)
    for out in (x.max(), x.min(1)[0], x.sum(1), x.mean(), x.mean(1, True)):
        assert out.requires_grad and out.grad_fn is not None
    with torch.no_grad():
        for out in (x.max(), x.min(1)[0], x.sum(1), x.mean(), x.mean(1, True)):
            assert not out.requires_grad and out.grad_fn is None
    (x.max() + x.max(1)[0].sum() + x.sum(1).sum() + x.mean(1).sum()).backward()
    assert x.grad is not None and x.grad.shape == (3, 4)


DEVICE_CALLS = {**{k: v for k, v in CALLS.items() if "torch." not in k}, **{
    "amax(1)": lambda x: x.amax(1),
    "logsumexp(-1)": lambda x: x.logsumexp(-1),
    "var()": lambda x: x.var(),
    "std(1)": lambda x: x.std(1),
    "norm()": lambda x: x.norm(),
    "prod()": lambda x: x.prod(),
}}  # fmt: skip


@pytest.mark.parametrize("name", list(DEVICE_CALLS))
def test_common_calls_on_each_device(device, name):
    # the host-only kernels (ufunc reduce, the direct gather) stay off other devices, which
    # compute the same values without a read back to the host
    from minitorch._backend.strict import count_transfers

    fn = DEVICE_CALLS[name]
    x = make((4, 6), torch.float64, 9, special=False)
    want = fn(x)
    xd = x.to(device).requires_grad_()
    with count_transfers() as t:
        got = fn(xd)
        out = got[0] if isinstance(got, tuple) else got
        (g,) = torch.autograd.grad(out, xd, torch.ones_like(out))
    assert t.count == 0
    for a, b in zip(_arrays(got), _arrays(want), strict=True):
        assert a.device == xd.device and a.dtype == b.dtype
        _same(a.detach(), b, device)
    assert g.device == xd.device and g.shape == x.shape
    with torch.no_grad():
        again = fn(xd)
    for a, b in zip(_arrays(again), _arrays(want), strict=True):
        assert a.device == xd.device
        _same(a, b, device)


def _same(a, b, device):
    """The CPU's bits; on a GPU the CPU's values to the last bits (CuPy's reductions add in
    another order)."""
    if device.startswith("cuda"):
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy(), rtol=1e-13, atol=0)
    else:
        assert a.cpu().numpy().tobytes() == b.numpy().tobytes()
