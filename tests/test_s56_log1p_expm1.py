"""Session 56, lead: float32 log1p and expm1 on the CPU from NumPy's vector log and exp (NOTE
[ Float32 log1p and expm1 ] in minitorch/_backend/numpy_backend.py), from 4096 elements. Their
error stays within 5 ulp of float64's over the whole range, the special values keep NumPy's
log1p/expm1 bits (signed zeros, infinities, -1, NaN), out= may be the input, smaller arrays
and other dtypes keep NumPy's functions, and the ops built on them (log1p, expm1, softplus, the
ELU family, mish, logsigmoid, binary cross-entropy) take them."""

import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch._backend import numpy_backend

MIN = numpy_backend._FAST_LOG1P_MIN
KERNELS = {"log1p": (numpy_backend.log1p, np.log1p), "expm1": (numpy_backend.expm1, np.expm1)}


def _ulps(got, want64):
    spacing = np.spacing(np.abs(want64.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want64) / spacing


def _sample(name, n=1 << 17):
    rng = np.random.default_rng(0)
    if name == "log1p":
        parts = [
            rng.uniform(-1, 1, n),
            np.exp(rng.uniform(-100, 88, n)) * rng.choice([-1, 1], n),
            rng.uniform(-1e-3, 1e-3, n),
            np.expm1(-np.exp(rng.uniform(-40, 3, n))),  # towards -1
        ]
        x = np.concatenate(parts).astype(np.float32)
        return x[x > -1]
    parts = [
        rng.uniform(-1, 1, n),
        rng.uniform(-110, 88.72, n),
        rng.uniform(-1e-3, 1e-3, n),
        np.exp(rng.uniform(-100, 0, n)) * rng.choice([-1, 1], n),
    ]
    return np.concatenate(parts).astype(np.float32)


SPECIALS = np.array(
    [0.0, -0.0, 1e-45, -1e-45, 1e-38, -1e-38, -1.0, -2.0, np.inf, -np.inf, np.nan, 3e38,
     -3e38, 1e-8, -1e-8, -0.5, 0.5, 88.72, 88.7228, 88.73, 89.0, -87.0, -88.0, -104.0, -200.0],
    dtype=np.float32,
)  # fmt: skip


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_error_within_five_ulp_of_float64(name):
    fast, ref = KERNELS[name]
    x = _sample(name)
    got = fast(x)
    want = ref(x.astype(np.float64))
    finite = np.isfinite(want.astype(np.float32))
    assert _ulps(got[finite], want[finite]).max() <= 5
    assert np.array_equal(np.isinf(got), np.isinf(want.astype(np.float32)))


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_special_values_keep_numpy_bits(name):
    fast, ref = KERNELS[name]
    x = np.resize(SPECIALS, 2 * MIN)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from the kernel itself
        got = fast(x)
    with np.errstate(all="ignore"):
        want = ref(x)
    same = (got.view(np.int32) == want.view(np.int32)) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore"):  # (inf - inf)
        close = np.abs(got - want) <= 4 * np.spacing(np.abs(want))
    close &= np.signbit(got) == np.signbit(want)
    assert (same | close).all(), x[~(same | close)][:10]
    # the zeros, infinities, -1 and NaN exactly, signs included
    exact = (x == 0) | np.isinf(x) | np.isnan(x) | (np.abs(x) < 1e-30)
    if name == "log1p":
        exact |= x <= -1
    assert same[exact].all(), (x[exact & ~same], got[exact & ~same])


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_out_may_be_the_input_and_layouts(name):
    fast, _ = KERNELS[name]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 96)).astype(np.float32)
    if name == "log1p":
        x = np.abs(x)
    want = fast(x.copy())
    y = x.copy()
    assert fast(y, out=y) is y
    np.testing.assert_array_equal(y, want)
    out = np.empty_like(x)
    assert fast(x, out=out) is out
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(fast(np.asfortranarray(x)), want)
    np.testing.assert_array_equal(fast(x.T), want.T)
    stepped = x[:, ::2]  # 6144 elements, not contiguous
    np.testing.assert_array_equal(fast(stepped), fast(stepped.copy()))
    wide = np.empty(x.shape, np.float64)  # an out= of another dtype: NumPy's own function
    assert fast(x, out=wide) is wide
    np.testing.assert_array_equal(wide, KERNELS[name][1](x, out=np.empty(x.shape, np.float64)))


class _Counting:
    """numpy, with calls to log counted: the fast kernels call it, NumPy's log1p/expm1 not."""

    def __init__(self):
        self.logs = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def log(self, *args, **kwargs):
        self.logs += 1
        return np.log(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_which_kernel_runs(monkeypatch, name):
    fast, ref = KERNELS[name]
    spy = _Counting()
    monkeypatch.setattr(numpy_backend, "np", spy)
    rng = np.random.default_rng(2)
    x = rng.uniform(0, 2, MIN).astype(np.float32)
    fast(x)
    assert spy.logs == 1
    for small in (x[: MIN - 1], x.astype(np.float64), x.astype(np.float16)):
        got = fast(small)
        assert got.dtype == small.dtype
        np.testing.assert_array_equal(got, ref(small))  # NumPy's own, bit for bit
    assert spy.logs == 1


def _big(name, seed=3):
    x = np.random.default_rng(seed).standard_normal(3 * MIN).astype(np.float32) * 3
    return np.abs(x) if name == "log1p" else x


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_ops_take_the_kernels(name):
    fast, _ = KERNELS[name]
    x = _big(name)
    want = fast(x)
    op = getattr(torch, name)
    np.testing.assert_array_equal(op(torch.from_numpy(x)).numpy(), want)
    np.testing.assert_array_equal(getattr(torch.from_numpy(x), name)().numpy(), want)
    t = torch.from_numpy(x.copy())
    getattr(t, name + "_")()
    np.testing.assert_array_equal(t.numpy(), want)
    xg = torch.tensor(x, requires_grad=True)
    y = op(xg)
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), want)
    # the gradient's formulas are unchanged: 1 / (1 + x) and exp(x) - 1 + 1 (from the result)
    g = 1 / (x + np.float32(1)) if name == "log1p" else want + np.float32(1)
    np.testing.assert_array_equal(xg.grad.numpy(), g)


def test_activations_take_the_kernels():
    x = _big("expm1")
    t = torch.from_numpy(x)
    e = numpy_backend.expm1(x)
    np.testing.assert_array_equal(F.elu(t).numpy(), np.where(x >= 0, x, e))
    soft = np.log1p(np.exp(x.astype(np.float64)))  # float64 reference
    got = F.softplus(t).numpy()
    np.testing.assert_allclose(got, np.where(x > 20, x, soft), rtol=1e-6)
    lse = numpy_backend.log1p(np.exp(x))
    np.testing.assert_array_equal(got, np.where(x > 20, x, lse))
    np.testing.assert_allclose(
        F.logsigmoid(t).numpy(), -np.log1p(np.exp(-x.astype(np.float64))), rtol=1e-6
    )
    np.testing.assert_allclose(
        F.mish(t).numpy(), x * np.tanh(np.log1p(np.exp(x.astype(np.float64)))), rtol=1e-5, atol=1e-7
    )
    p = np.random.default_rng(4).uniform(0, 1, x.shape).astype(np.float32)
    tgt = np.zeros_like(p)
    got = F.binary_cross_entropy(torch.from_numpy(p), torch.from_numpy(tgt), reduction="none")
    np.testing.assert_allclose(got.numpy(), -np.log1p(-p.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_elu_family_and_softplus_match_float64(dtype):
    x = _big("expm1", seed=5)
    t = torch.tensor(x, dtype=getattr(torch, dtype))
    x64 = t.double().numpy()
    tol = {"float32": 1e-6, "float16": 1e-3, "float64": 1e-12}[dtype]
    for fn, ref in (
        (F.elu, np.where(x64 >= 0, x64, np.expm1(x64))),
        (F.celu, np.where(x64 >= 0, x64, 0.5 * np.expm1(x64 / 0.5))),
        (F.softplus, np.where(x64 > 20, x64, np.log1p(np.exp(x64)))),
    ):
        got = (fn(t, 0.5) if fn is F.celu else fn(t)).double().numpy()
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * 1e-2)


def test_strict_device_keeps_its_own_functions():
    x = _big("expm1")
    got = torch.expm1(torch.tensor(x, device="strict")).cpu().numpy()
    np.testing.assert_allclose(got, np.expm1(x), rtol=1e-6)
    got = torch.log1p(torch.tensor(np.abs(x), device="strict")).cpu().numpy()
    np.testing.assert_allclose(got, np.log1p(np.abs(x)), rtol=1e-6)


def test_gradcheck_still_holds():
    x = torch.tensor(np.linspace(-3, 3, 6), requires_grad=True)  # (not 0: elu's kink)
    for fn in (torch.log1p, torch.expm1, F.elu, F.softplus, F.logsigmoid, F.mish):
        arg = (x.abs().detach().requires_grad_(),) if fn is torch.log1p else (x,)
        assert torch.autograd.gradcheck(fn, arg)
        assert torch.autograd.gradgradcheck(fn, arg)
