"""Speed fixes of session 20 (round 2): nan_to_num's kernel, the data-level backwards of
hardswish / mish / logsigmoid. Values against torch 2.13 literals and bit for bit against the
Tensor backward formulas (the speed itself is not tested)."""

import math
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import activation
from minitorch.autograd import engine

F = mt.nn.functional
NAN, INF = math.nan, math.inf

# --- nan_to_num ---


def _nan_to_num_ref(x, nan, posinf, neginf):
    out = np.where(np.isnan(x), x.dtype.type(nan), x)
    out = np.where(x == INF, x.dtype.type(posinf), out)
    return np.where(x == -INF, x.dtype.type(neginf), out)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize(
    "kw", [{}, {"nan": 1.5}, {"nan": -0.0}, {"posinf": 1.0, "neginf": -2.0}, {"posinf": 0.0}]
)
def test_nan_to_num_large_mixed_input(dtype, kw):
    # big enough for the backend's branch-free select/keep, NaN and infinities at random spots
    rng = np.random.default_rng(0)
    x = rng.standard_normal(5000).astype(dtype)
    x[rng.random(5000) < 0.2] = NAN
    x[rng.random(5000) < 0.1] = INF
    x[rng.random(5000) < 0.1] = -INF
    x[rng.random(5000) < 0.05] = -0.0
    fi = np.finfo(dtype)
    full = {"nan": 0.0, "posinf": fi.max, "neginf": fi.min, **kw}
    got = mt.nan_to_num(mt.from_numpy(x.copy()), **kw).numpy()
    want = _nan_to_num_ref(x, full["nan"], full["posinf"], full["neginf"])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(f"u{x.itemsize}"), want.view(f"u{x.itemsize}"))


def test_nan_to_num_fills_out_of_range_without_warning():
    # torch.nan_to_num(x, posinf=1e300, neginf=-1e300, nan=1e300) on float32: inf, inf, -inf
    x = mt.tensor([NAN, INF, -INF, -0.0, 1.0, -65504.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mt.nan_to_num(x, posinf=1e300, neginf=-1e300, nan=1e300)
        half = mt.nan_to_num(x.half(), posinf=70000.0)
    assert got.tolist() == [INF, INF, -INF, -0.0, 1.0, -65504.0]
    assert half.tolist() == [0.0, INF, -65504.0, -0.0, 1.0, -65504.0]
    assert math.copysign(1.0, got.tolist()[3]) < 0


def test_nan_to_num_edge_values_match_torch():
    x = mt.tensor([NAN, INF, -INF, -0.0, 1.0, -65504.0])
    got = mt.nan_to_num(x, nan=-0.0, posinf=1.0, neginf=-2.0).tolist()
    assert got == [-0.0, 1.0, -2.0, -0.0, 1.0, -65504.0]
    assert [math.copysign(1.0, v) for v in got[:1]] == [-1.0]
    bf = mt.nan_to_num(x.bfloat16()).tolist()  # torch: bfloat16's extremes
    assert bf == [0.0, 3.3895313892515355e38, -3.3895313892515355e38, -0.0, 1.0, -65536.0]
    noncontig = mt.tensor([[NAN, 1.0], [INF, -INF]]).t()
    want = [[0.0, 9.0], [1.0, -3.4028234663852886e38]]  # torch's, float32's lowest
    assert mt.nan_to_num(noncontig, posinf=9.0).tolist() == want
    assert mt.nan_to_num(mt.tensor(NAN)).item() == 0.0
    assert mt.nan_to_num(mt.zeros(0)).shape == (0,)


def test_nan_to_num_gradient():
    x = mt.tensor([NAN, INF, -INF, -0.0, 2.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(mt.nan_to_num(x), x, mt.full((5,), 1.5, dtype=mt.float64))
    assert g.tolist() == [0.0, 0.0, 0.0, 1.5, 1.5]
    y = mt.randn(6, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.nan_to_num(t * 2), (y,))
    assert mt.autograd.gradgradcheck(lambda t: mt.nan_to_num(t * 2), (y,))


# --- hardswish / mish / logsigmoid ---

PTS = [-30.0, -4.0, -3.0, -2.9999998, -1.0, -0.0, 0.0, 0.5, 1.5, 2.9999998, 3.0, 4.0, 30.0]
PTS += [INF, -INF]
GRAD = [1.5, -2.0, -1.0, 0.25, 3.0, -0.5, 2.0, -1.25, 0.75, 1.0, -3.0, 2.5, -0.125, -1.0, 2.0]

# torch 2.13's gradients of fn(PTS) against GRAD
TORCH_GRAD = {
    ("hardswish", "float32"): [
        0.0,
        0.0,
        0.0,
        -0.1249999850988388,
        0.4999999701976776,
        -0.25,
        1.0,
        -0.8333333730697632,
        0.75,
        1.5,
        -3.0,
        2.5,
        -0.125,
        -1.0,
        0.0,
    ],
    ("hardswish", "float64"): [
        0.0,
        0.0,
        0.0,
        -0.12499998333333331,
        0.5,
        -0.25,
        1.0,
        -0.8333333333333333,
        0.75,
        1.4999999333333331,
        -3.0,
        2.5,
        -0.125,
        -1.0,
        0.0,
    ],
    ("mish", "float32"): [
        -4.07056636661518e-12,
        0.10754641145467758,
        0.09339312463998795,
        -0.023348283022642136,
        0.17765018343925476,
        -0.30000001192092896,
        1.2000000476837158,
        -1.1080305576324463,
        0.8163659572601318,
        1.0211069583892822,
        -3.0633208751678467,
        2.5110816955566406,
        -0.125,
        NAN,
        NAN,
    ],
    ("mish", "float64"): [
        -4.070565991445089e-12,
        0.10754641958696066,
        0.09339311453232084,
        -0.0233482806295158,
        0.17765026763218505,
        -0.3,
        1.2,
        -1.1080304691971592,
        0.8163659887558856,
        1.0211069169827438,
        -3.0633207327883305,
        2.5110821922593756,
        -0.125,
        NAN,
        NAN,
    ],
    ("logsigmoid", "float32"): [
        1.5,
        -1.9640275239944458,
        -0.9525741338729858,
        0.23814353346824646,
        2.193175792694092,
        -0.25,
        1.0,
        -0.47192585468292236,
        0.13681913912296295,
        0.04742588847875595,
        -0.14227762818336487,
        0.04496552422642708,
        -1.1697028640274797e-14,
        -0.0,
        2.0,
    ],
    ("logsigmoid", "float64"): [
        1.4999999999998597,
        -1.964027580075817,
        -0.9525741268224333,
        0.2381435294467751,
        2.193175735890015,
        -0.25,
        1.0,
        -0.47192583599768184,
        0.13681914285476723,
        0.047425882212899555,
        -0.14227761953270035,
        0.044965524905228885,
        -1.1697028711049125e-14,
        -0.0,
        2.0,
    ],
}
KERNELS = {"hardswish": activation.Hardswish, "mish": activation.Mish}
KERNELS["logsigmoid"] = activation.LogSigmoid


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardswish", "mish", "logsigmoid"])
def test_activation_gradient_matches_torch(name, dtype):
    dt = getattr(mt, dtype)
    x = mt.tensor(PTS, dtype=dt, requires_grad=True)
    (g,) = mt.autograd.grad(getattr(F, name)(x), x, mt.tensor(GRAD, dtype=dt))
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(
        g.numpy(), TORCH_GRAD[name, dtype], rtol=tol, atol=1e-30, err_msg=f"{name} {dtype}"
    )


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardswish", "mish", "logsigmoid"])
def test_activation_data_backward_is_the_formula(name, dtype, layout, monkeypatch):
    """The fused data-level backward (large arrays: the backend's select/keep) gives the Tensor
    formula's gradient bit for bit, NaN, infinities and both zeros included, and its layout."""
    assert KERNELS[name]._backward_data is not None
    rng = np.random.default_rng(1)
    if layout == "0-d":
        a = np.array(-1.25)
    else:
        a = rng.standard_normal((60, 70)) * 4
        a.flat[rng.integers(0, a.size, 400)] = rng.choice(PTS + [NAN], 400)
    g = rng.standard_normal(a.shape)
    results = []
    for data_path in (True, False):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        x = mt.tensor(a, dtype=getattr(mt, dtype))
        if layout == "transposed":
            x = x.t().contiguous().t()
        x.requires_grad_(True)
        gt = mt.tensor(g, dtype=x.dtype)
        (r,) = mt.autograd.grad(getattr(F, name)(x), x, gt)
        results.append((r.numpy().copy(), r.stride()))
    (fused, s1), (formula, s2) = results
    assert s1 == s2
    bits = f"u{fused.itemsize}"
    np.testing.assert_array_equal(fused.view(bits), formula.view(bits), err_msg=name)


@pytest.mark.parametrize("name", ["hardswish", "mish", "logsigmoid"])
def test_activation_second_derivatives(name):
    x = mt.tensor([-3.5, -2.0, -0.5, 0.7, 2.5, 3.5], dtype=mt.float64, requires_grad=True)
    fn = getattr(F, name)
    assert mt.autograd.gradcheck(fn, (x,))
    assert mt.autograd.gradgradcheck(fn, (x,))
