"""linalg and friends against torch 2.13's behaviour (the OpInfo sweep of session 19): lstsq's
empty residuals in the graph, addbmm's dtype and half rounding, cov's weight dtypes and check
order, linalg.vander of a 0-d tensor, integer trapezoids, ormqr's checks. Expected values were
printed by torch for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

# --- linalg.lstsq: the residuals are in the graph, empty or not ---


@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq_empty_residuals_require_grad(driver):
    rng = np.random.default_rng(0)
    A = minitorch.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    B = minitorch.tensor(rng.standard_normal((3, 2)))
    r = minitorch.linalg.lstsq(A, B, driver=driver)
    assert r.residuals.shape == (0,)
    assert r.residuals.requires_grad
    assert type(r.residuals.grad_fn).__name__ == "LinalgLstsqBackward0"
    assert not r.rank.requires_grad and not r.singular_values.requires_grad
    # both outputs differentiated together, as torch's one node allows
    g = minitorch.autograd.grad(
        [r.solution, r.residuals], [A], [minitorch.ones(3, 2), minitorch.zeros(0)]
    )
    assert g[0].shape == (3, 3)


@pytest.mark.parametrize("driver", ["gels", "gelsd"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_lstsq_gradcheck(driver, shape):
    rng = np.random.default_rng(1)
    A = minitorch.tensor(rng.standard_normal(shape), requires_grad=True)
    B = minitorch.tensor(rng.standard_normal(shape[:-1] + (2,)), requires_grad=True)

    def f(a, b):
        r = minitorch.linalg.lstsq(a, b, driver=driver)
        return r.solution, r.residuals

    assert f(A, B)[1].requires_grad
    assert gradcheck(f, (A, B))
    assert gradgradcheck(f, (A, B))


# --- addbmm ---


@pytest.mark.parametrize(
    "dt, want",
    [
        ("int32", [[1201, 1452], [1803, 2254]]),
        ("uint8", [[177, 172], [11, 206]]),  # (wrapped, as torch's sum in the dtype)
        ("int8", [[-79, -84], [11, -50]]),
    ],
)
def test_addbmm_integer_keeps_dtype(dt, want):
    d = getattr(minitorch, dt)
    inp = minitorch.tensor([[1, 2], [3, 4]], dtype=d)
    b = (minitorch.arange(8).view(2, 2, 2) * 5).to(d)
    r = minitorch.addbmm(inp, b, b)
    assert r.dtype is d
    np.testing.assert_array_equal(r.numpy(), np.array(want, dtype=dt))


def _addbmm_inputs():
    rng = np.random.default_rng(0)
    inp = (rng.standard_normal((2, 3)) * 8).astype(np.float16)
    b1 = rng.standard_normal((4, 2, 3)).astype(np.float16)
    b2 = rng.standard_normal((4, 3, 3)).astype(np.float16)
    return [minitorch.from_numpy(a) for a in (inp, b1, b2)]


def test_addbmm_half_rounds_per_batch_entry():
    # torch adds one batch entry at a time into the half result
    inp, b1, b2 = _addbmm_inputs()
    r = minitorch.addbmm(inp, b1, b2)
    assert r.dtype is minitorch.float16
    want = [
        [-2.107421875, -1.0361328125, -0.78076171875],
        [2.287109375, -0.485595703125, 0.9912109375],
    ]
    np.testing.assert_array_equal(r.float().numpy(), np.array(want, dtype=np.float32))
    r = minitorch.addbmm(inp, b1, b2, beta=0.6, alpha=0.2)
    want = [
        [-0.019317626953125, -0.63037109375, 1.892578125],
        [0.79296875, -1.810546875, 1.35546875],
    ]
    np.testing.assert_array_equal(r.float().numpy(), np.array(want, dtype=np.float32))
    r = minitorch.addbmm(*(t.bfloat16() for t in (inp, b1, b2)))
    want = [[-2.125, -1.0390625, -0.81640625], [2.296875, -0.484375, 0.98828125]]
    np.testing.assert_array_equal(r.float().numpy(), np.array(want, dtype=np.float32))


# --- cov ---

_COV_X = [
    [-4.826984902407649, -7.582430495695129, -0.6046891126565539],
    [-1.5411692216498662, -1.9719097652168658, -4.146041530864057],
]
_COV_AW = [0.3666413426399231, 0.05830073356628418, 0.7006447315216064]


def test_cov_float32_aweights_normalize_in_their_dtype():
    x = minitorch.tensor(_COV_X, dtype=minitorch.float64)
    aw = minitorch.tensor(_COV_AW, dtype=minitorch.float32)
    c = minitorch.cov(x, correction=2, aweights=aw)
    assert c.dtype is minitorch.float64
    want = [[709.2825322165685, -360.3593814857075], [-360.3593814857075, 204.44484275124657]]
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-12)


def test_cov_half_and_integer_inputs():
    x = minitorch.tensor(_COV_X, dtype=minitorch.float64)
    aw = minitorch.tensor(_COV_AW, dtype=minitorch.float32)
    c = minitorch.cov(x.half(), aweights=aw.half())
    want = [[10.546875, -5.35546875], [-5.3515625, 3.037109375]]  # (not symmetric in half)
    np.testing.assert_array_equal(c.float().numpy(), np.array(want, dtype=np.float32))
    c = minitorch.cov(minitorch.tensor([[1, 4, 2], [3, 0, 5]]), aweights=aw.half())
    assert c.dtype is minitorch.float16


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"aweights": minitorch.tensor([1, 1])}, "expected aweights to have floating point dtype"),
        ({"fweights": minitorch.tensor([1.0, 1.0])}, "expected fweights to have integral dtype"),
        ({"fweights": minitorch.tensor([True, True])}, "but got fweights with Bool dtype"),
    ],
)
def test_cov_weight_checks_dtype_before_numel(kw, msg):
    with pytest.raises(RuntimeError, match=msg):
        minitorch.cov(minitorch.arange(5.0), **kw)


# --- linalg.vander ---


@pytest.mark.parametrize(
    "x, want",
    [
        (minitorch.tensor(-4.5, dtype=minitorch.float64), [[1.0, -4.5, 20.25]]),
        (minitorch.tensor(5, dtype=minitorch.uint8), [[1, 5, 25]]),
    ],
)
def test_linalg_vander_0d(x, want):
    r = minitorch.linalg.vander(x, N=3)
    assert r.shape == (1, 3)
    assert r.dtype is (minitorch.float64 if x.dtype.is_floating_point else minitorch.int64)
    np.testing.assert_array_equal(r.numpy(), want)
    with pytest.raises(RuntimeError, match="N must be greater than 1."):
        minitorch.linalg.vander(x)


@pytest.mark.parametrize("dt, name", [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_linalg_vander_refuses_half(dt, name):
    with pytest.raises(RuntimeError, match=f"integer tensors, but got {name}"):
        minitorch.linalg.vander(minitorch.tensor([2.0, 3.0], dtype=getattr(minitorch, dt)))


# --- trapezoid: integer samples in integer arithmetic (wrapping) ---


def _u8(v):
    return minitorch.tensor(v, dtype=minitorch.uint8)


@pytest.mark.parametrize(
    "fn, args, kw, want",
    [
        ("trapezoid", ([[5, 1, 6], [5, 6, 4]], [[2, 5, 5], [9, 3, 1]]), {}, [9.0, 213.0]),
        ("trapz", ([[5, 1, 6], [5, 6, 4]], [[2, 5, 5], [9, 3, 1]]), {}, [9.0, 213.0]),
        (
            "cumulative_trapezoid",
            ([[5, 1, 6], [5, 6, 4]], [[2, 5, 5], [9, 3, 1]]),
            {},
            [[9.0, 9.0], [95.0, 213.0]],
        ),
        ("trapezoid", ([200, 100, 250],), {}, 453.0),
        ("trapezoid", ([200, 100, 250],), {"dx": 2}, 906.0),
        ("cumulative_trapezoid", ([200, 100, 250],), {}, [22.0, 69.0]),
        ("cumulative_trapezoid", ([200, 100, 250],), {"dx": 2}, [44.0, 138.0]),
        ("trapezoid", ([200, 100, 250], [0, 1, 3]), {}, 116.0),
    ],
)
def test_trapezoid_uint8_wraps(fn, args, kw, want):
    r = getattr(minitorch, fn)(*(_u8(a) for a in args), **kw)
    assert r.dtype is minitorch.float32
    np.testing.assert_array_equal(r.numpy(), np.array(want, dtype=np.float32))


def test_trapezoid_int8_and_empty():
    y = minitorch.tensor([100, 100, 120], dtype=minitorch.int8)
    x = minitorch.tensor([0, 1, 3], dtype=minitorch.int8)
    np.testing.assert_array_equal(minitorch.trapezoid(y).numpy(), 338.0)
    np.testing.assert_array_equal(minitorch.trapezoid(y, x.float()).numpy(), -64.0)
    np.testing.assert_array_equal(minitorch.cumulative_trapezoid(y, x).numpy(), [-28.0, -64.0])
    e = minitorch.trapezoid(_u8([]))
    assert e.dtype is minitorch.uint8 and e.shape == ()
    assert minitorch.trapezoid(_u8([]), _u8([])).dtype is minitorch.uint8


# --- ormqr / orgqr checks ---


def _f(*s, dt=minitorch.float32):
    return minitorch.ones(*s, dtype=dt)


@pytest.mark.parametrize(
    "args, err, msg",
    [
        (
            (_f(3), _f(3), _f(3)),
            RuntimeError,
            "torch.ormqr: input must have at least 2 dimensions.",
        ),
        (
            (_f(3, 3), _f(3), _f(3)),
            RuntimeError,
            "^torch.ormqr: other must have at least 2 dimensions.",
        ),
        (
            (_f(5, 3), _f(2), _f(4, 5)),
            RuntimeError,
            r"other.shape\[-2\] must be equal to input.shape\[-2\]",
        ),
        (
            (_f(5, 3), _f(3), _f(5, 4), False),
            RuntimeError,
            r"other.shape\[-1\] must be equal to input.shape\[-2\]",
        ),
        (
            (_f(5, 3), _f(1, 3), _f(5, 5)),
            RuntimeError,
            "Expected tau to have one dimension less than input, but got tau.ndim equal to 2",
        ),
        (
            (_f(2, 5, 3), _f(2, 3), _f(5, 5)),
            RuntimeError,
            "Expected other to have the same number of dimensions as input",
        ),
        (
            (_f(2, 5, 3), _f(3, 3), _f(3, 5, 5)),
            RuntimeError,
            r"Expected batch dimensions of tau to be equal to input.shape\[:-2\], but got \[3\]",
        ),
        (
            (_f(2, 5, 3), _f(2, 3), _f(3, 5, 5)),
            RuntimeError,
            r"Expected batch dimensions of other to be equal to input.shape\[:-2\], but got \[3\]",
        ),
        (
            (_f(5, 3), _f(3, dt=minitorch.float64), _f(5, 5)),
            RuntimeError,
            "Expected input and tau to have the same dtype, but input has dtypeFloat and tau has "
            "dtype Double",
        ),
        (
            (_f(5, 3, dt=minitorch.long), _f(3, dt=minitorch.long), _f(5, 5)),
            RuntimeError,
            "Expected input and other to have the same dtype, but input has dtypeLong",
        ),
        (
            (_f(5, 0, dt=minitorch.long), _f(5, dt=minitorch.long), _f(5, 5, dt=minitorch.long)),
            RuntimeError,
            r"tau.shape\[-1\] must be equal to min\(other.shape\[-2\]",
        ),
        (
            (
                _f(5, 3, dt=minitorch.float16),
                _f(3, dt=minitorch.float16),
                _f(5, 5, dt=minitorch.float16),
            ),
            NotImplementedError,
            "\"ormqr_cpu\" not implemented for 'Half'",
        ),
        (
            (_f(3, 2), minitorch.tensor(1.0), _f(3, 3)),
            IndexError,
            "Dimension specified as -1 but tensor has no dimensions",
        ),
    ],
)
def test_ormqr_checks(args, err, msg):
    with pytest.raises(err, match=msg):
        minitorch.ormqr(*args)


def test_orgqr_refuses_half():
    with pytest.raises(NotImplementedError, match="\"orgqr_cpu\" not implemented for 'BFloat16'"):
        minitorch.orgqr(_f(3, 2, dt=minitorch.bfloat16), _f(2, dt=minitorch.bfloat16))


# --- special.i1 / i1e: torch's 1/2 wherever |x| > eps fails (NaN included) ---


@pytest.mark.parametrize("fn", ["i1", "i1e"])
def test_i1_gradient_half_where_not_above_eps(fn):
    x = minitorch.tensor(
        [float("nan"), 0.0, 1e-17, 2.5], dtype=minitorch.float64, requires_grad=True
    )
    (g,) = minitorch.autograd.grad(getattr(minitorch.special, fn)(x).sum(), x)
    want = {"i1": 2.283152645934644, "i1e": -0.019172067731570375}[fn]
    np.testing.assert_allclose(g.numpy(), [0.5, 0.5, 0.5, want], rtol=1e-12)
