"""The in-place fast paths of small updates (copy_, zero_, clamp_, add_/sub_ with alpha,
addcmul_/addcdiv_/lerp_; NOTE [ A plain copy ] in minitorch/_ops/inplace.py) give the general
path's values and version bumps, leave every check to it where one may fail, and the fused
multiply-adds take NumPy's BLAS where AXPY_MIN / AXPY_TAIL_MIN say (host_blas.py)."""

import fractions
import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import host_blas
from minitorch._ops import inplace

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.uint8,
          torch.bool)  # fmt: skip


def make(shape, dtype=torch.float32, seed=0):
    g = np.random.default_rng(seed)
    a = g.standard_normal(shape) * 3
    if a.size > 3:  # signed zeros, a NaN and infinities among the values
        a.reshape(-1)[:4] = (-0.0, np.nan, np.inf, -np.inf)
    if dtype is torch.bool:
        return torch.tensor(a > 0)
    if not dtype.is_floating_point:
        a = np.nan_to_num(np.abs(a) * 10, posinf=7, neginf=9)
    return torch.tensor(a).to(dtype)


def bits(t):
    a = t.detach().float() if t.dtype is torch.bfloat16 else t.detach()
    return np.ascontiguousarray(a.numpy()).view(np.uint8).tobytes()


class Refused(Exception):
    pass


def refuse(*args, **kwargs):
    raise Refused


# --- copy_ ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(32, 32), (3,), ()], ids=str)
def test_plain_copy_writes_what_the_general_path_writes(dtype, shape):
    src = make(shape, dtype, 1)
    fast, general = make(shape, dtype, 2), make((2, *shape), dtype, 2)[0]
    assert fast.copy_(src) is fast
    assert general.copy_(src) is general  # a view: the general path
    assert bits(fast) == bits(general) == bits(src)
    assert fast._version == 1 and fast.grad_fn is None and not fast.requires_grad


def test_plain_copy_skips_the_general_checks(monkeypatch):
    monkeypatch.setattr(inplace, "_check_leaf", refuse)
    x, y = make((4, 4)), make((4, 4), seed=1)
    x.copy_(y)  # two roots: no check runs
    assert bits(x) == bits(y)
    with pytest.raises(Refused):  # a view takes the general path
        x[1:].copy_(y[1:])
    with pytest.raises(Refused):  # so does a source to broadcast
        x.copy_(y[0])
    with pytest.raises(Refused):  # and another dtype
        x.copy_(y.double())


def test_copy_into_what_the_fast_path_declines():
    x = torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        x.copy_(torch.ones(3))
    with torch.inference_mode():
        inf = torch.zeros(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        inf.copy_(torch.ones(3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.zeros(1).expand(3).copy_(torch.ones(3))
    # a source that requires grad: recorded
    w = torch.ones(3, requires_grad=True)
    y = torch.zeros(3)
    y.copy_(w)
    assert type(y.grad_fn).__name__ == "CopyBackwards" and y._version == 1
    # read-only memory: NumPy's refusal, from the general path, as before
    a = np.zeros(3, np.float32)
    a.flags.writeable = False
    with warnings.catch_warnings():  # (torch's not-writable warning: once per process)
        warnings.simplefilter("ignore", UserWarning)
        ro = torch.from_numpy(a)
    for write in (lambda: ro.copy_(torch.ones(3)), ro.zero_):
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            write()
    assert ro._version == 0
    # a source sharing self's memory: the same values, one bump
    z = make((5,))
    before = bits(z)
    z.copy_(z.detach())
    z.copy_(z)
    assert bits(z) == before and z._version == 2


def test_copy_of_float8_goes_through_float32():
    e8 = torch.tensor([0.0, 4.0, 0.3]).to(torch.float8_e8m0fnu)
    dst = torch.ones(3).to(torch.float8_e8m0fnu)
    dst.copy_(e8)
    assert bits(dst.float()) == bits(e8.float())
    assert dst._version == 1


# --- zero_ ---


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_zero_is_fill_zero(dtype):
    fast, general = make((32, 32), dtype, 3), make((32, 32), dtype, 3)
    assert fast.zero_() is fast
    with torch.no_grad():  # through _fill (the general path): a view of a no-grad tensor
        general[...].fill_(0)
    assert bits(fast) == bits(general)
    assert fast._version == 1 and general._version == 1
    if dtype.is_floating_point:  # +0 everywhere (the input held -0.0)
        assert not np.signbit(fast.float().numpy()).any()


def test_zero_skips_fill(monkeypatch):
    monkeypatch.setattr(inplace, "_fill", refuse)
    x = make((4,))
    x.zero_()
    assert x.tolist() == [0.0] * 4 and x._version == 1
    with torch.no_grad():
        x[1:].zero_()  # a view under no_grad: nothing to refuse either
    assert x._version == 2
    with pytest.raises(Refused):  # float8: fill_number's zero (e8m0fnu has none)
        torch.ones(2).to(torch.float8_e8m0fnu).zero_()
    with pytest.raises(Refused):  # a view with grad mode on: the autograd checks
        x[1:].zero_()


def test_zero_of_what_the_fast_path_declines():
    e8 = torch.ones(2).to(torch.float8_e8m0fnu).zero_()
    assert e8.float().tolist() == [2.0**-127] * 2
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        x.zero_()
    with torch.no_grad():
        x.zero_()
    assert x.tolist() == [0.0] * 3 and x._version == 1
    with torch.inference_mode():
        inf = torch.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        inf.zero_()
    base = torch.ones(1)
    expanded = base.expand(4)  # read-only in NumPy: written through its base's memory
    with torch.no_grad():
        expanded.zero_()
    assert base.tolist() == [0.0] and base._version == 1
    y = torch.ones(3, requires_grad=True) * 2  # a non-leaf: recorded
    y.zero_()
    assert type(y.grad_fn).__name__ == "ZeroBackward0"
    with pytest.raises(TypeError, match="zero_\\(\\): argument 'input'"):
        torch.zero_(None)


# --- clamp_ ---


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
@pytest.mark.parametrize("bounds", [(-1, 1), (-0.5, None), (None, 0.25), (0, 0), (2.5, -1)])
@pytest.mark.parametrize("flip", [False, True])
def test_clamp_in_place_is_clamp(dtype, bounds, flip):
    x = make((64,), dtype, 4)
    if flip:
        x = x.flip(0)
    want = x.clamp(*bounds)
    assert x.clamp_(*bounds) is x
    assert bits(x) == bits(want) and x._version == 1


def test_clamp_in_place_declines_nan_and_far_bounds():
    x = make((8,))
    assert x.clone().clamp_(float("nan"), 1).isnan().all()
    far = x.clone().clamp_(-1e6, 1e5)
    assert bits(far) == bits(x.clamp(-1e6, 1e5))
    with torch.inference_mode():
        inf = torch.ones(3)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        inf.clamp_(0, 1)


# --- add_/sub_ with alpha and the fused ternary updates ---

SIZES = [(32, 32), (64,), (100,), (128,), (300,), (2048,), (2100,), (3,), ()]


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64, torch.float16, torch.int64),
                         ids=str)  # fmt: skip
@pytest.mark.parametrize("shape", SIZES, ids=str)
@pytest.mark.parametrize("alpha", [0.1, -3, 0])
@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha_update_in_place_is_the_out_of_place_op(dtype, shape, alpha, op):
    if not dtype.is_floating_point and isinstance(alpha, float):
        alpha = 2
    x, y = make(shape, dtype, 5), make(shape, dtype, 6)
    want = getattr(x, op)(y, alpha=alpha)
    with np.errstate(all="ignore"):
        assert getattr(x, op + "_")(y, alpha=alpha) is x
    assert bits(x) == bits(want) and x._version == 1


def test_fused_updates_in_place_are_the_out_of_place_ops():
    for shape in ((32, 32), (64,), (3,)):
        x, a, b = make(shape, seed=7), make(shape, seed=8), make(shape, seed=9).abs() + 1
        for name, args, kw in (
            ("addcmul", (a, b), {"value": 0.1}),
            ("addcdiv", (a, b), {"value": -2}),
            ("lerp", (a, 0.3), {}),
            ("lerp", (a, 0.8), {}),
        ):
            t = x.clone()
            want = getattr(t, name)(*args, **kw)
            with np.errstate(all="ignore"):
                getattr(t, name + "_")(*args, **kw)
            assert bits(t) == bits(want), (name, shape)
            assert t._version == 1


def test_fused_updates_record_and_refuse_as_before():
    x = make((4,)).abs()
    w = torch.ones(4, requires_grad=True)
    x.addcmul_(w, w, value=0.5)
    assert type(x.grad_fn).__name__ == "AddcmulBackward0"
    base = torch.arange(6.0)
    with pytest.raises(RuntimeError, match="unsupported operation: some elements"):
        base[1:5].addcdiv_(base[:4], torch.ones(4))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.lerp_(torch.zeros(4), 0.5)


# --- the BLAS thresholds ---

needs_blas = pytest.mark.skipif(
    not host_blas.kernels().get("d"), reason="NumPy's BLAS has no usable axpy here"
)


@needs_blas
@pytest.mark.parametrize(
    "dtype,n,blas",
    [("float64", 64, True), ("float64", 128, True), ("float64", 100, False),
     ("float64", 300, True), ("float64", 63, False), ("float32", 1024, False),
     ("float32", 2048, True), ("float32", 2100, True)],
)  # fmt: skip
def test_updates_take_blas_from_the_thresholds(monkeypatch, dtype, n, blas):
    dt = getattr(torch, dtype)
    x, y = make((n,), dt, 10).nan_to_num(), make((n,), dt, 11).nan_to_num()
    want = x.add(y, alpha=-0.3)
    done = []  # the elements each call updated through BLAS
    axpy = host_blas.axpy
    monkeypatch.setattr(host_blas, "axpy", lambda *a: done.append(axpy(*a)) or done[-1])
    x.add_(y, alpha=-0.3)
    assert sum(done) == (n - n % host_blas.BLOCK if blas else 0)
    assert bits(x) == bits(want)


@needs_blas
def test_float64_blocks_round_once():
    g = np.random.default_rng(12)
    p = g.standard_normal(128)
    b = g.standard_normal(128)
    alpha = -0.1
    x = torch.tensor(p)
    x.add_(torch.tensor(b), alpha=alpha)
    exact = [
        float(fractions.Fraction(pi) + fractions.Fraction(alpha) * fractions.Fraction(bi))
        for pi, bi in zip(p.tolist(), b.tolist(), strict=True)
    ]
    assert x.tolist() == exact
    assert np.count_nonzero(p + alpha * b != np.array(exact)) > 0  # two roundings differ
