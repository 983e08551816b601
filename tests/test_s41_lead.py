"""The fused multiply-add through NumPy's BLAS (NOTE [ axpy through NumPy's BLAS ]) and the
row-major copy of a transposed right operand in batched products."""

import subprocess
import sys

import numpy as np
import pytest

import minitorch as torch
from minitorch._backend import host_blas
from minitorch._ops._common import fma_into

KERNELS = host_blas.kernels()
needs_blas = pytest.mark.skipif(not KERNELS, reason="NumPy's BLAS has no usable axpy here")


def exact(y, alpha, x):
    """y + alpha x rounded once to y's dtype, from exact rationals (float32: the exact float64
    value is rounded once more only where it is not already exact, see the inputs below)."""
    e, f = float(alpha).as_integer_ratio()
    out = []
    for yi, xi in zip(y.ravel().tolist(), x.ravel().tolist(), strict=True):
        a, b = yi.as_integer_ratio()
        c, d = xi.as_integer_ratio()
        num, den = a * d * f + e * c * b, b * d * f
        out.append(num / den)
    return np.array(out).astype(y.dtype).reshape(y.shape)


def inputs(dt, n, seed):
    rng = np.random.default_rng(seed)
    # float32 values of up to 3 binades apart: their exact sums fit float64, so rounding that
    # exact float64 value to float32 is the one rounding
    x = rng.uniform(1, 2, n).astype(dt)
    y = (rng.uniform(0.25, 1, n) * rng.choice([-1, 1], n)).astype(dt)
    return y, x


@needs_blas
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 63, 64, 300, 2048, 3000, 20011, 40000])
def test_axpy_rounds_once_over_whole_blocks(dt, n):
    y, x = inputs(dt, n, n)
    alpha = float(dt(-0.0123))
    want = exact(y, alpha, x)
    got = y.copy()
    k = host_blas.axpy(alpha, x, got)
    if n >= host_blas.AXPY_MIN[np.dtype(dt).char]:
        assert k == n - n % host_blas.BLOCK
    else:
        assert k == 0
    np.testing.assert_array_equal(got[:k], want[:k])
    np.testing.assert_array_equal(got[k:], y[k:])  # the tail is the caller's
    # and fma_into computes the tail: every element rounded once
    got = y.copy()
    assert fma_into(np, x, alpha, got) == (k > 0)
    if k:
        np.testing.assert_array_equal(got, want)
        assert np.count_nonzero(y + dt(alpha) * x != want) > 0  # two roundings would differ


@needs_blas
@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_add_with_alpha_matches_the_numpy_path(dt, monkeypatch):
    torch.manual_seed(0)
    p = torch.randn(300, 50, dtype=dt)
    g = torch.randn(300, 50, dtype=dt)
    fast_inplace = p.clone().add_(g, alpha=-0.01)
    fast_sub = p.clone().sub_(g, alpha=0.37)
    fast_out = torch.add(p, g, alpha=2.5)
    monkeypatch.setattr(host_blas, "_kernels", {})
    np.testing.assert_array_equal(fast_inplace.numpy(), p.clone().add_(g, alpha=-0.01).numpy())
    np.testing.assert_array_equal(fast_sub.numpy(), p.clone().sub_(g, alpha=0.37).numpy())
    np.testing.assert_array_equal(fast_out.numpy(), torch.add(p, g, alpha=2.5).numpy())
    if dt == torch.float64:  # (float64's exact values round once in `exact`)
        np.testing.assert_array_equal(fast_inplace.numpy(), exact(p.numpy(), -0.01, g.numpy()))


@needs_blas
def test_sgd_steps_use_it_and_keep_versions():
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(64, 64))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    before = w.detach().clone()
    for _ in range(3):
        w.grad = torch.randn(64, 64)
        v = w._version
        opt.step()
        assert w._version > v
    assert not torch.equal(w.detach(), before)


@pytest.mark.parametrize(
    "case",
    ["strided", "transposed", "overlap", "readonly", "byteswapped", "small", "int", "list"],
)
def test_axpy_declines_and_writes_nothing(case):
    rng = np.random.default_rng(1)
    y = rng.standard_normal(8192).astype(np.float32)
    x = rng.standard_normal(8192).astype(np.float32)
    if case == "strided":
        y, x = y[::2], x[::2]
    elif case == "transposed":
        y, x = y.reshape(64, 128), x.reshape(128, 64).T
    elif case == "overlap":
        x = y[1:].copy()
        y, x = y[:-1], y[1:]
    elif case == "readonly":
        y.flags.writeable = False
    elif case == "byteswapped":
        y, x = y.astype(">f4"), x.astype(">f4")
    elif case == "small":
        y, x = y[:100], x[:100]
    elif case == "int":
        y, x = y.astype(np.int32), x.astype(np.int32)
    elif case == "list":
        x = x.tolist()
    before = np.array(y, copy=True)
    assert host_blas.axpy(0.5, x, y) == 0
    np.testing.assert_array_equal(y, before)


def test_the_probe_refuses_a_kernel_that_rounds_twice():
    def twice(n, alpha, x_ptr, y_ptr):
        dt = np.float32
        x = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(x_ptr))
        y = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(y_ptr))
        y += dt(alpha) * x  # the product rounded first
        return True

    def once(n, alpha, x_ptr, y_ptr):
        x = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(x_ptr))
        y = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_float * n).from_address(y_ptr))
        y[...] = (y.astype(np.float64) + x.astype(np.float64) * alpha).astype(np.float32)
        return True

    assert host_blas._passes(twice, "f") is False
    assert host_blas._passes(once, "f") is True
    assert host_blas._passes(lambda *a: False, "f") is False


def test_the_switch_and_a_library_without_axpy():
    assert host_blas._load({"MINITORCH_HOST_BLAS": "0"}) == {}

    class NoSymbols:
        pass

    assert host_blas._bind(NoSymbols(), "f") is None


def test_import_loads_and_probes_nothing():
    code = "import minitorch, minitorch._backend.host_blas as h; print(h._kernels is None)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_without_blas_the_results_are_the_same(monkeypatch):
    monkeypatch.setattr(host_blas, "_kernels", {})
    torch.manual_seed(0)
    p = torch.randn(100, 100, dtype=torch.float64)
    g = torch.randn(100, 100, dtype=torch.float64)
    got = p.clone().add_(g, alpha=-0.3)
    np.testing.assert_array_equal(got.numpy(), exact(p.numpy(), -0.3, g.numpy()))


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((32, 64, 128), (32, 64, 128)), ((4, 3, 8, 5), (4, 3, 7, 5)), ((6, 8, 5), (7, 5))],
)
@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_batched_products_with_a_transposed_right_operand(shape_a, shape_b, dt):
    # q @ k.transpose(-2, -1) with q, k column slices of one projection, as attention has them
    torch.manual_seed(0)
    qk = torch.randn(*shape_a[:-1], shape_a[-1] * 2, dtype=dt, requires_grad=True)
    q = qk[..., : shape_a[-1]]
    k = torch.randn(*shape_b, dtype=dt, requires_grad=True)
    kt = k.transpose(-2, -1)
    out = q @ kt
    want = np.matmul(q.detach().numpy().astype(np.float64), kt.detach().numpy().astype(np.float64))
    tol = 1e-4 if dt == torch.float32 else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=tol, atol=tol)
    assert out.is_contiguous()
    g = torch.randn_like(out)
    out.backward(g)
    gn = g.numpy().astype(np.float64)
    want_k = np.matmul(gn.swapaxes(-1, -2), q.detach().numpy().astype(np.float64))
    want_k = want_k.reshape(-1, *shape_b).sum(0) if len(shape_b) < len(shape_a) else want_k
    np.testing.assert_allclose(k.grad.numpy(), want_k, rtol=tol, atol=tol)


def test_batched_transposed_products_are_twice_differentiable():
    torch.manual_seed(0)
    qk = torch.randn(3, 4, 10, dtype=torch.float64, requires_grad=True)

    def f(x):
        return x[..., :5] @ x[..., 5:].transpose(-2, -1)

    assert torch.autograd.gradcheck(f, (qk,))
    assert torch.autograd.gradgradcheck(f, (qk,))


@needs_blas
@pytest.mark.parametrize("alpha", [0.0, -0.0])
def test_a_zero_factor_still_adds_its_products(alpha):
    # BLAS skips the update for alpha = 0; torch's fused add does not: -0. + 0 * 2 is +0.,
    # 0 * inf is nan
    y = np.full(4096, -0.0, np.float32)
    x = np.full(4096, 2.0, np.float32)
    x[7] = np.inf
    p, g = torch.from_numpy(y.copy()), torch.from_numpy(x)
    p.add_(g, alpha=alpha)
    with np.errstate(invalid="ignore"):  # 0 * inf
        want = y + np.float32(alpha) * x  # (exact: one rounding or two agree here)
    np.testing.assert_array_equal(p.numpy(), want)
    assert np.signbit(p.numpy()[0]) == np.signbit(want[0])
    assert np.isnan(p.numpy()[7])


@pytest.mark.skipif(
    "gerf" not in KERNELS or "gerd" not in KERNELS, reason="NumPy's BLAS has no usable ger here"
)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2048, 512), (256, 300), (70000, 1), (1, 70000)])
def test_bias_rows_through_blas_are_numpys_sums(dt, shape):
    rng = np.random.default_rng(2)
    out = rng.standard_normal(shape).astype(dt)
    row = rng.standard_normal(shape[1]).astype(dt)
    want = out + row
    assert host_blas.add_row(out, row) is True
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("case", ["small", "strided", "row_strided", "dtype", "3d", "alias"])
def test_bias_rows_decline_and_write_nothing(case):
    rng = np.random.default_rng(3)
    out = rng.standard_normal((512, 256)).astype(np.float32)
    row = rng.standard_normal(256).astype(np.float32)
    if case == "small":
        out = out[:8]
    elif case == "strided":
        out, row = out[:, ::2], row[::2]
    elif case == "row_strided":
        row = rng.standard_normal(512).astype(np.float32)[::2]
    elif case == "dtype":
        row = row.astype(np.float64)
    elif case == "3d":
        out = out.reshape(2, 256, 256)
    elif case == "alias":
        row = out[3]
    before = out.copy()
    assert host_blas.add_row(out, row) is False
    np.testing.assert_array_equal(out, before)


def test_linear_outputs_are_the_same_without_blas(monkeypatch):
    torch.manual_seed(0)
    layer = torch.nn.Linear(128, 512)
    x = torch.randn(2048, 128, requires_grad=True)
    fast = layer(x)
    monkeypatch.setattr(host_blas, "_kernels", {})
    slow = layer(x)
    np.testing.assert_array_equal(fast.detach().numpy(), slow.detach().numpy())
    fast.sum().backward()
    assert layer.bias.grad is not None and layer.weight.grad is not None
