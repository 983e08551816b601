"""Session 26, perf9: NumPy's slow number-operand paths (maximum/minimum/where with a Python
number) in clamp, binary_cross_entropy's clamped logs, and the in-place fast path of exp_/log_/
sqrt_/abs_/tanh_. Speed is never asserted: these tests pin the values (torch's literals, or the
old NumPy formulation bit for bit), signed zeros at ties, NaN, and gradients."""

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _data(n, dtype, seed=0):
    rs = np.random.RandomState(seed)
    x = rs.randn(n)
    x[rs.choice(n, len(_SPECIALS), replace=False)] = _SPECIALS
    x[rs.rand(n) < 0.2] = 0.5  # many ties with the bounds below
    x[rs.rand(n) < 0.1] = -0.0
    return x.astype(dtype)


# --- clamp with one number bound ---


def test_clamp_half_one_bound_keeps_input_at_tie():
    # torch (half): clamp_min(-0., 0.) is -0. and clamp_max(+0., -0.) is +0. (the input kept);
    # NumPy's float16 maximum returns its first operand on a tie, which was the bound
    h = torch.tensor([-0.0, 0.0, -1.0, 2.0, float("nan")], dtype=torch.float16)
    cases = [
        (torch.clamp_min(h, 0.0), [-0.0, 0.0, 0.0, 2.0]),
        (torch.clamp_max(h, -0.0), [-0.0, 0.0, -1.0, -0.0]),
        (torch.clamp(h, min=-0.0), [-0.0, 0.0, -0.0, 2.0]),
        (torch.clamp(h, max=0.0), [-0.0, 0.0, -1.0, 0.0]),
    ]
    for got, want in cases:
        g = got.numpy()
        assert got.dtype is torch.float16
        assert np.isnan(g[4])
        assert _bits(g[:4]).tolist() == _bits(np.array(want, np.float16)).tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bound", [0.0, -0.0, 0.5, -1.0, float("inf"), float("nan")])
def test_clamp_one_bound_bits_match_torch_rule(dtype, bound):
    # torch's kernels: a < min ? min : a (and a > max ? max : a), NaN a or NaN bound -> NaN
    for x in (_data(5003, dtype), _data(5003, dtype)[::3]):
        t = torch.tensor(x)
        b = np.asarray(bound, dtype)
        want_lo = np.where(x < b, b, x)
        want_hi = np.where(x > b, b, x)
        if bound != bound:
            want_lo = want_hi = np.full_like(x, np.nan)
        for got, want in (
            (torch.clamp(t, min=bound), want_lo),
            (torch.clamp_max(t, bound), want_hi),
        ):
            g = got.numpy()
            assert np.array_equal(np.isnan(g), np.isnan(want))
            assert _bits(g[~np.isnan(g)]).tolist() == _bits(want[~np.isnan(want)]).tolist()


def test_clamp_integer_one_bound():
    t = torch.tensor([-3, 0, 5])
    assert torch.clamp(t, min=0).tolist() == [0, 0, 5]
    assert torch.clamp_max(t, 1).tolist() == [-3, 0, 1]
    assert torch.clamp(t, min=0).dtype is torch.int64
    assert torch.clamp(torch.tensor(-0.0), min=0.0).numpy().tobytes() == np.float32(-0.0).tobytes()


def test_clamp_backward_torch_literals():
    # torch: the gradient passes where min <= a <= max (both bounds included), +0 elsewhere
    # and at NaN
    vals = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, float("nan")]
    x = torch.tensor(vals, requires_grad=True)
    torch.clamp(x, -1, 1).backward(torch.tensor([1.0, 2, 3, 4, 5, 6, 7, 8]))
    assert x.grad.tolist() == [0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
    x.grad = None
    torch.clamp_min(x, 0.0).backward(-torch.ones(8))
    got = x.grad.numpy()
    assert got.tolist() == [0.0, 0.0, -1.0, -1.0, -1.0, -1.0, -1.0, 0.0]
    assert not np.signbit(got[[0, 1, 7]]).any()  # +0, not -0 (a selection, not a product)
    x.grad = None
    torch.clamp(x, max=0.5).backward(-torch.ones(8))
    assert x.grad.tolist() == [-1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 0.0, 0.0]


def test_clamp_backward_large_matches_selection():
    rs = np.random.RandomState(3)
    x0 = _data(4099, "float32", seed=3)
    g0 = rs.randn(4099).astype(np.float32)
    for lo, hi in ((-1.0, 1.0), (0.5, None), (None, 0.5)):
        x = torch.tensor(x0, requires_grad=True)
        torch.clamp(x, lo, hi).backward(torch.tensor(g0))
        keep = np.ones(x0.shape, bool)
        if lo is not None:
            keep &= x0 >= np.float32(lo)
        if hi is not None:
            keep &= x0 <= np.float32(hi)
        want = np.where(keep, g0, np.float32(0))
        assert _bits(x.grad.numpy()).tolist() == _bits(want).tolist()


def test_clamp_gradcheck_float64():
    x = torch.tensor([-2.0, -0.7, 0.1, 0.3, 1.4, 2.5], dtype=torch.float64, requires_grad=True)
    for f in (
        lambda a: torch.clamp(a, -1.0, 1.0),
        lambda a: torch.clamp_min(a, 0.2),
        lambda a: torch.clamp(a, max=0.2),
    ):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


# --- binary_cross_entropy: log clamped at -100 ---


def test_bce_saturated_torch_literals():
    F = torch.nn.functional
    p = [0.0, 1.0, 1e-30, 0.5, 1 - 1e-4, 0.25]
    t = [1.0, 0.0, 1.0, 0.0, 1.0, 0.25]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log(0) is not evaluated with a warning
        r64 = F.binary_cross_entropy(
            torch.tensor(p, dtype=torch.float64),
            torch.tensor(t, dtype=torch.float64),
            reduction="none",
        )
        r32 = F.binary_cross_entropy(torch.tensor(p), torch.tensor(t), reduction="none")
        r16 = F.binary_cross_entropy(
            torch.tensor(p).half(), torch.tensor(t).half(), reduction="none"
        )
    assert r64.tolist() == [
        100.0, 100.0, 69.07755278982137, 0.6931471805599453, 0.00010000500033334732,
        0.5623351446188083,
    ]  # fmt: skip
    assert r32.tolist() == [
        100.0, 100.0, 69.07755279541016, 0.6931471824645996, 0.00010002159251598641,
        0.5623351335525513,
    ]  # fmt: skip
    assert r16.tolist() == [100.0, 100.0, 100.0, 0.693359375, -0.0, 0.5625]
    assert np.signbit(r16.numpy()[4])


def _old_clamped_log(a):
    pos = a > 0
    return np.where(pos, np.maximum(np.log(np.where(pos, a, 1)), -100), -100)


def _old_clamped_log1m(a):
    below = a < 1
    return np.where(below, np.maximum(np.log1p(-np.where(below, a, 0)), -100), -100)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_bce_kernel_logs_bits(dtype):
    from minitorch._ops.nn_kernels import _clamped_log, _clamped_log1m

    rs = np.random.RandomState(5)
    extra = [0, 1, 1e-45, 1e-300, 1 - 1e-8, 0.5, 1e-8, 5e-324, 1e-40]
    a = np.concatenate([rs.rand(3000), extra]).astype(dtype)
    for arr in (a, a[::2], np.asarray(a[5]), np.asarray(a[3000])):
        for new, old in ((_clamped_log, _old_clamped_log), (_clamped_log1m, _old_clamped_log1m)):
            got, want = np.asarray(new(np, arr)), np.asarray(old(arr))
            assert got.dtype == want.dtype and got.shape == want.shape
            assert _bits(got).tolist() == _bits(want).tolist()


def test_bce_gradcheck_float64():
    F = torch.nn.functional
    rs = np.random.RandomState(6)
    p = torch.tensor(rs.rand(7) * 0.8 + 0.1, dtype=torch.float64, requires_grad=True)
    t = torch.tensor(rs.rand(7), dtype=torch.float64)
    assert gradcheck(lambda a: F.binary_cross_entropy(a, t), (p,))
    assert gradgradcheck(lambda a: F.binary_cross_entropy(a, t), (p,))


# --- in-place unary fast path ---


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "abs", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inplace_unary_bits_equal_out_of_place(name, dtype):
    rs = np.random.RandomState(7)
    x0 = (rs.randn(67, 129) * 30).astype(dtype)
    x0.flat[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-38, 88.7, 89.0, 709.0, 710.0, -746, 1]
    with np.errstate(all="ignore"):
        for make in (
            lambda: torch.tensor(x0),
            lambda: torch.tensor(x0).flip(0),  # a negative stride, no view: the fast path
            lambda: torch.tensor(x0).flip(1),
            lambda: torch.tensor(x0).t().contiguous(),
        ):
            want = getattr(make(), name)().numpy()
            t = make()
            v = t._version
            assert getattr(t, name + "_")() is t
            assert t._version == v + 1
            assert _bits(t.numpy()).tolist() == _bits(want).tolist()


def test_inplace_kernel_negative_stride_float64_exp_log():
    # a float64 array with a negative stride: NumPy's in-place exp/log loop there differs by 1
    # ulp from the out-of-place one; the in-place kernel must give the out-of-place values
    from minitorch._ops.inplace import _ufunc_kernel

    rs = np.random.RandomState(8)
    x0 = np.abs(rs.randn(2049)) * 10
    for name in ("exp", "log"):
        want = getattr(np, name)(x0[::-1])
        y = x0.copy()[::-1]
        _ufunc_kernel(name)(np, y)
        assert _bits(y).tolist() == _bits(want).tolist()


def test_inplace_unary_no_grad_leaf_and_graph():
    x = torch.tensor([0.25, 1.0, 4.0], requires_grad=True)
    with torch.no_grad():
        x.sqrt_()
    assert x.tolist() == [0.5, 1.0, 2.0] and x.grad_fn is None
    y = torch.tensor([0.25, 1.0, 4.0], dtype=torch.float64, requires_grad=True)
    z = y * 1
    z.log_()
    assert type(z.grad_fn).__name__ == "LogBackward0"
    z.sum().backward()
    assert y.grad.tolist() == [4.0, 1.0, 0.25]


# --- in-place clamp fast path ---


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inplace_clamp_bits_equal_out_of_place(dtype):
    x0 = _data(67 * 129, dtype, seed=9).reshape(67, 129)
    bounds = [(0.0, None), (-0.0, None), (None, 0.0), (None, -0.0), (-1, 1), (0.5, 0.5)]
    bounds += [(1.0, -1.0), (0, None), (-0.0, 0.0), (0.5, None)]
    for lo, hi in bounds:
        for make in (
            lambda: torch.tensor(x0),
            lambda: torch.tensor(x0).t().contiguous(),
            lambda: torch.tensor(x0).flip(0),
        ):
            want = torch.clamp(make(), lo, hi).numpy()
            ops = [("clamp_", (lo, hi)), ("clip_", (lo, hi))]
            if hi is None:
                ops.append(("clamp_min_", (lo,)))
            if lo is None:
                ops.append(("clamp_max_", (hi,)))
            for name, args in ops:
                t = make()
                v = t._version
                assert getattr(t, name)(*args) is t
                assert t._version == v + 1
                assert _bits(t.numpy()).tolist() == _bits(want).tolist()


def test_inplace_clamp_torch_literals_and_general_path():
    z = torch.tensor([-0.0, 0.0, 3.0])
    z.clamp_min_(0.0)
    assert np.signbit(z.numpy()).tolist() == [True, False, False]  # torch: tensor([-0., 0., 3.])
    y = torch.tensor([1.0, -2.0])
    y.clamp_(float("nan"))  # a NaN bound: the general path, NaN everywhere as torch
    assert np.isnan(y.numpy()).all()
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.clamp_(0, 1)
    with torch.no_grad():
        x.clamp_(0, 1)
    assert x.tolist() == [1.0, 0.0, 0.5] and x.requires_grad
    w = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
    u = w * 1
    u.clamp_(min=0.0)
    assert type(u.grad_fn).__name__ == "ClampBackward1"
    u.sum().backward()
    assert w.grad.tolist() == [1.0, 0.0, 1.0]
    i = torch.tensor([-3, 0, 5])
    i.clamp_(0, 2)
    assert i.tolist() == [0, 0, 2] and i.dtype is torch.int64
