"""Fast kernels of pointwise binary ops (fmod/remainder/floor_divide through float64, logaddexp,
lerp's select, angle, shifts, hypot): the same values as NumPy's per-element kernels, or torch's."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops.pointwise import float_mod
from minitorch.autograd import gradcheck, gradgradcheck

INF, NAN = float("inf"), float("nan")
N = 5000  # above float_mod's 4096 elements: the float64 path


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.itemsize}")


def _numpy_mod(x, y, op):
    """NumPy's libm kernels: the values before the float64 path (remainder's zero: x's sign)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = np.asarray(getattr(np, op)(x, y))
        if op == "remainder":
            np.copyto(r, np.fmod(x, y), where=r == 0)
    return r


def _mod_pairs(rng, n):
    """Random pairs of every magnitude, quotients next to integers, and special values."""
    raw = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32).view(np.float32)
    y = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    k = rng.integers(-(2**25), 2**25, n) * (rng.random(n) < 0.5) + rng.integers(-100, 100, n)
    x = (k * y.astype(np.float64)).astype(np.float32)
    x = (x.view(np.int32) + rng.integers(-3, 4, n).astype(np.int32)).view(np.float32)
    tiny = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-149, -100, n)).astype(np.float32)
    sp = np.array([0, -0.0, INF, -INF, NAN, 1e-45, -1e-45, 3.4e38, 1, -1, 2**24, 0.5, 3], "f4")
    sx, sy = (np.tile(v.ravel(), 10) for v in np.meshgrid(sp, sp))
    xs = np.concatenate([raw[0], x, tiny, rng.uniform(-1, 1, n).astype(np.float32), sx])
    ys = np.concatenate([raw[1], y, -y, rng.uniform(-1, 1, n).astype(np.float32), sy])
    return xs, ys


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_float_mod_same_bits_as_numpy_kernels(op, dtype):
    x, y = _mod_pairs(np.random.default_rng(0), 20000)
    x, y = x.astype(dtype), y.astype(dtype)
    got, want = float_mod(np, x, y, op), _numpy_mod(x, y, op)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=f"{op} {dtype}")


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_float_mod_broadcasts_like_numpy(op):
    rng = np.random.default_rng(1)
    x = rng.uniform(-50, 50, (100, 64)).astype(np.float32)
    for y in (rng.uniform(-3, 3, 64).astype(np.float32), np.asarray(np.float32(0.3)), 2.5):
        np.testing.assert_array_equal(
            _bits(float_mod(np, x, y, op)), _bits(_numpy_mod(x, y, op)), err_msg=op
        )
    y = rng.uniform(-3, 3, N).astype(np.float32)
    got, want = (
        float_mod(np, np.asarray(np.float32(7.5)), y, op),
        _numpy_mod(np.float32(7.5), y, op),
    )
    np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=op)


# torch 2.13 on 5100-element float32 tensors (NaNs' signs aside)
_X = [-4.0, 4.0, -0.0, 0.0, 5.5, -5.5, -1e-30, 1e-30, -1.0, 1.0, INF, -INF, NAN, 3.0, 1.0, 0.3]
_Y = [2.0, -2.0, 3.0, -3.0, 2.0, 2.0, 1.0, -1.0, INF, -INF, 2.0, 3.0, 1.0, 0.0, -0.0, 0.1]
_TORCH = {
    "fmod": [-0.0, 0.0, -0.0, 0.0, 1.5, -1.5, -1e-30, 1e-30, -1.0, 1.0, NAN, NAN, NAN, NAN, NAN,
             7.450580596923828e-09],
    "remainder": [-0.0, 0.0, -0.0, 0.0, 1.5, 0.5, 1.0, -1.0, INF, -INF, NAN, NAN, NAN, NAN, NAN,
                  7.450580596923828e-09],
    "floor_divide": [-2.0, -2.0, -0.0, -0.0, 2.0, -3.0, -1.0, -1.0, -1.0, -1.0, NAN, NAN, NAN,
                     INF, -INF, 3.0],
}  # fmt: skip


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_float32_mod_edge_values_match_torch(op):
    reps = N // len(_X) + 1
    x, y = torch.tensor(_X * reps), torch.tensor(_Y * reps)
    got = getattr(torch, op)(x, y).numpy()[: len(_X)]
    want = np.array(_TORCH[op], np.float32)
    np.testing.assert_array_equal(got, want, err_msg=op)
    real = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]), err_msg=op)


def test_remainder_and_floor_divide_gradients():
    rng = np.random.default_rng(2)
    a = torch.tensor(rng.uniform(-3, 3, (3, 4)), requires_grad=True)
    b = torch.tensor(rng.uniform(0.5, 2, (3, 4)), requires_grad=True)
    for f in (torch.remainder, torch.fmod):
        assert gradcheck(f, (a, b)) and gradgradcheck(f, (a, b))
    # float32 backward: grad_b = -grad floor(a / b), floor through the float64 path
    a32 = torch.tensor(rng.uniform(-30, 30, N).astype(np.float32), requires_grad=True)
    b32 = torch.tensor(rng.uniform(0.5, 2, N).astype(np.float32), requires_grad=True)
    torch.remainder(a32, b32).sum().backward()
    want = -np.floor_divide(a32.detach().numpy(), b32.detach().numpy())
    np.testing.assert_array_equal(b32.grad.numpy(), want)


# torch 2.13 logaddexp/logaddexp2 on 4096-element float32 tensors (float32 bits), where NumPy's
# per-element kernel differed from torch by an ulp or more
_LAE = [("-0x1.f349b4p-4", "-0x1.c2e68ep-3", "0x1.0bf0ecp-1"),
        ("-0x1.3f8556p+0", "-0x1.126488p+0", "-0x1.da1264p-2"),
        ("-0x1.c3edf6p+0", "-0x1.dba490p-3", "-0x1.2d65e8p-5"),
        ("-0x1.d91942p-6", "-0x1.055e3ep+1", "0x1.8b47ecp-4")]  # fmt: skip
_LAE2 = [("-0x1.37b58ep+1", "-0x1.1aa970p+1", "-0x1.513adep+0"),
         ("-0x1.aa38b0p-2", "-0x1.488baap+1", "-0x1.f88b16p-4"),
         ("-0x1.3e6184p+0", "-0x1.485f32p-2", "0x1.296200p-2"),
         ("-0x1.8252acp-1", "0x1.e28ec4p-3", "0x1.a5d2c2p-1")]  # fmt: skip


@pytest.mark.parametrize("name, cases", [("logaddexp", _LAE), ("logaddexp2", _LAE2)])
def test_logaddexp_float32_matches_torch(name, cases):
    a, b, want = (np.array([float.fromhex(c[i]) for c in cases], np.float32) for i in range(3))
    got = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_special_values(name):
    a = torch.tensor([INF, -INF, INF, -INF, NAN, 1.0, 2.0, 3e38])
    b = torch.tensor([INF, -INF, -INF, 5.0, 1.0, NAN, 2.0, 3e38])
    got = getattr(torch, name)(a, b).numpy()
    same = 1.0 if name == "logaddexp2" else np.float32(np.log(2))
    want = np.array([INF, -INF, INF, 5.0, NAN, NAN, 2.0 + same, 3e38], np.float32)
    np.testing.assert_array_equal(got, want, err_msg=name)
    assert getattr(torch, name)(torch.tensor(1.0), torch.tensor(2.0)).shape == ()
    assert getattr(torch, name)(torch.ones(3, 1), torch.ones(4)).shape == (3, 4)


def test_logaddexp_gradients():
    rng = np.random.default_rng(3)
    a = torch.tensor(rng.uniform(-3, 3, (3, 4)), requires_grad=True)
    b = torch.tensor(rng.uniform(-3, 3, (4,)), requires_grad=True)
    for f in (torch.logaddexp, torch.logaddexp2, torch.hypot):
        assert gradcheck(f, (a, b)) and gradgradcheck(f, (a, b))


def test_select_blends_bits_like_where():
    rng = np.random.default_rng(4)
    for dtype in ("float32", "float64"):
        a, b = rng.standard_normal((2, 300, 70)).astype(dtype)
        a.reshape(-1)[:3], b.reshape(-1)[:3] = [NAN, -0.0, INF], [-0.0, NAN, -INF]
        cond = rng.random(70) < 0.5
        want = np.where(cond, a, b)
        got = torch.device("cpu").backend.select(cond, a, b)
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_lerp_tensor_weight_two_sided_formula():
    rng = np.random.default_rng(5)
    x, y, w = rng.uniform(-1, 1, (3, N)).astype(np.float32)
    got = torch.lerp(torch.tensor(x), torch.tensor(y), torch.tensor(w)).numpy()
    d = y - x
    # torch's two formulas, each a fused multiply-add (the product exact in float64, one rounding)
    f64 = np.float64
    low = (x.astype(f64) + w.astype(f64) * d.astype(f64)).astype(np.float32)
    high = (y.astype(f64) - d.astype(f64) * (1 - w).astype(f64)).astype(np.float32)
    want = np.where(np.abs(w) < 0.5, low, high)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    # exact at both ends, as torch
    ends = torch.lerp(torch.tensor([0.1, 0.1]), torch.tensor([0.7, 0.7]), torch.tensor([0.0, 1.0]))
    np.testing.assert_array_equal(ends.numpy(), np.array([0.1, 0.7], np.float32))


def test_angle_values_and_dtypes():
    x = torch.tensor([-2.0, -0.0, 0.0, 3.0, -INF, INF, NAN])
    got = torch.angle(x).numpy()
    pi32 = np.float32(3.1415927410125732)
    np.testing.assert_array_equal(got, np.array([pi32, 0, 0, 0, pi32, 0, NAN], np.float32))
    assert not np.signbit(got[1])
    half = torch.angle(torch.tensor([-2.0, 0.0], dtype=torch.float16))
    assert half.dtype == torch.float16 and half.tolist() == [3.140625, 0.0]
    assert torch.angle(torch.tensor([-2, 3])).tolist() == [3.1415927410125732, 0.0]
    assert torch.angle(torch.tensor([-2.0], dtype=torch.float64)).tolist() == [3.141592653589793]
    assert torch.angle(torch.tensor(-1.0)).shape == ()


@pytest.mark.parametrize(
    "dtype, x, s, left, right",
    [
        (torch.int8, [5, -5, -128, 127], [-1, 8, 7, 100], [0, 0, 0, 0], [0, -1, -1, 0]),
        (torch.int64, [5, -5, 1, -1], [-1, 64, 63, 1000], [0, 0, -(2**63), 0], [0, -1, 0, -1]),
    ],
)
def test_shift_counts_out_of_range_match_torch(dtype, x, s, left, right):
    reps = 1000
    xt, st = torch.tensor(x * reps, dtype=dtype), torch.tensor(s * reps, dtype=dtype)
    assert (xt << st).tolist()[:4] == left
    assert (xt >> st).tolist()[:4] == right
    assert torch.bitwise_left_shift(xt[:4, None], st[None, :4]).shape == (4, 4)


def test_hypot_float16_infinity_beats_nan_as_torch():
    # float16 bits: a signalling NaN and inf, inf and a signalling NaN, quiet NaN and inf, 3 and 4
    x = np.tile(np.array([0x7C01, 0x7C00, 0x7E00, 0x4200], np.uint16).view(np.float16), 100)
    y = np.tile(np.array([0x7C00, 0x7C01, 0x7C00, 0x4400], np.uint16).view(np.float16), 100)
    got = torch.hypot(torch.from_numpy(x), torch.from_numpy(y))
    assert got.dtype == torch.float16
    assert got.tolist()[:4] == [INF, INF, INF, 5.0]  # NumPy's float16 kernel: nan, nan, inf, 5
    x32 = np.random.default_rng(6).uniform(-3, 3, (2, N)).astype(np.float32)
    got = torch.hypot(torch.tensor(x32[0]), torch.tensor(x32[1])).numpy()
    np.testing.assert_array_equal(_bits(got), _bits(np.hypot(x32[0], x32[1])))
