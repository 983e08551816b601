"""Numerical accuracy of the normalization functions at hard inputs, against torch and a float64
(or longdouble) truth: constant rows, a large offset with a small spread (cancellation), tiny and
huge magnitudes, half inputs, zero-variance channels, batches of one.

For float32 the truth is torch's float64 result on the same (float32-rounded) values; minitorch's
error relative to it must stay within a small factor of torch's own float32 error."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

LIBS = {"torch": torch, "minitorch": minitorch}


def _inputs():
    rng = np.random.default_rng(40)
    cases = {}
    for d in (7, 128, 1000):
        cases[f"offset1e4_d{d}"] = 1e4 + 1e-2 * rng.standard_normal((4, d))
        cases[f"offset1e2_d{d}"] = 1e2 + 1e-3 * rng.standard_normal((4, d))
        cases[f"tiny_d{d}"] = 1e-20 * rng.standard_normal((4, d))
        cases[f"huge_d{d}"] = 1e15 * rng.standard_normal((4, d))
        cases[f"normal_d{d}"] = rng.standard_normal((4, d))
    cases["zero_rows"] = np.zeros((4, 16))
    cases["constant_rows"] = np.repeat(np.array([[3.7], [-0.1], [1e4], [2.3e-3]]), 100, axis=1)
    cases["batch_of_one"] = rng.standard_normal((1, 64))
    mixed = rng.standard_normal((4, 64))
    mixed[1] = 2.5  # one zero-variance row (a zero-variance channel for batch_norm of x.t())
    cases["one_constant_row"] = mixed
    return cases


INPUTS = _inputs()


def _lin(lib, d, lo, hi, dt):
    return lib.linspace(lo, hi, d, dtype=dt)


def _eval_stats(x):
    """Running statistics for batch_norm in evaluation: each row's mean + 0.5 and variance +
    1e-3, computed in float64 (the same values in both libraries), in x's dtype."""
    x64 = x.detach().double()
    return (x64.mean(1) + 0.5).to(x.dtype), (x64.var(1) + 1e-3).to(x.dtype)


# each op maps a (N, D) tensor to a tensor of the same shape
OPS = {
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, x.shape[-1:]),
    "layer_norm_affine": lambda lib, x: lib.nn.functional.layer_norm(
        x,
        x.shape[-1:],
        _lin(lib, x.shape[-1], 0.5, 1.5, x.dtype),
        _lin(lib, x.shape[-1], -1.0, 1.0, x.dtype),
    ),
    "rms_norm": lambda lib, x: lib.nn.functional.rms_norm(x, x.shape[-1:], eps=1e-6),
    "group_norm": lambda lib, x: lib.nn.functional.group_norm(
        x.reshape(x.shape[0], 1, -1), 1
    ).reshape(x.shape),
    "batch_norm_train": lambda lib, x: lib.nn.functional.batch_norm(
        x.t(), None, None, training=True
    ).t(),
    "batch_norm_eval": lambda lib, x: lib.nn.functional.batch_norm(
        x.t(), _eval_stats(x)[0], _eval_stats(x)[1], training=False
    ).t(),
    "instance_norm": lambda lib, x: lib.nn.functional.instance_norm(
        x.reshape(1, x.shape[0], -1)
    ).reshape(x.shape),
    "local_response_norm": lambda lib, x: lib.nn.functional.local_response_norm(
        x.reshape(1, x.shape[0], -1), 3
    ).reshape(x.shape),
    "normalize": lambda lib, x: lib.nn.functional.normalize(x, dim=-1),
}


def _run(op, lib, x, g, dt):
    """(output, input gradient) of OPS[op] as float64 arrays, for x and upstream g in dtype dt."""
    dtype = getattr(lib, dt)
    xt = lib.tensor(x, dtype=dtype, requires_grad=True)
    y = OPS[op](lib, xt)
    (y * lib.tensor(g, dtype=dtype)).sum().backward()
    return (
        y.detach().to(lib.float64).numpy(),
        xt.grad.to(lib.float64).numpy(),
    )


def _err(a, ref):
    """The largest error of a against ref, relative to ref's largest magnitude (1e-6 at least,
    so an exact zero reference counts absolute errors); inf where their NaNs differ."""
    if not np.array_equal(np.isnan(a), np.isnan(ref)):
        return np.inf
    ok = ~np.isnan(ref)
    if not ok.any():
        return 0.0
    scale = max(float(np.abs(ref[ok]).max()), 1e-6)
    return float(np.abs(a[ok] - ref[ok]).max()) / scale


def _rounded(a, dt):
    return torch.tensor(a, dtype=getattr(torch, dt)).double().numpy()


def _has_constant_row(x):
    return bool((x == x[:, :1]).all(axis=1).any()) and bool(np.abs(x).max() > 0)


def _matrix():
    """(op, case, dtype) of the accuracy comparison: tiny and huge values only in float32; no
    rows that are constant (after rounding) for layer_norm and group_norm, whose exactness there
    test_constant_rows_exact_zero covers."""
    out = []
    for dt in ("float32", "float16", "bfloat16"):
        for case in sorted(INPUTS):
            if dt != "float32" and ("tiny" in case or "huge" in case):
                continue
            constant = _has_constant_row(_rounded(INPUTS[case], dt))
            for op in sorted(OPS):
                if constant and op.startswith(("layer_norm", "group_norm")):
                    continue
                if op == "batch_norm_eval" and case == "constant_rows":
                    continue  # a running mean of 1e4: test_batch_norm_eval_large_running_mean
                out.append((op, case, dt))
    return out


@pytest.mark.parametrize("op, case, dt", _matrix())
def test_accuracy_not_worse_than_torch(op, case, dt):
    x = _rounded(INPUTS[case], dt)
    g = _rounded(np.random.default_rng(7).standard_normal(x.shape), dt)
    ref_y, ref_g = _run(op, torch, x, g, "float64")
    ty, tg = _run(op, torch, x, g, dt)
    my, mg = _run(op, minitorch, x, g, dt)
    # a few units of the dtype's rounding on top of a factor of torch's own error
    unit = {"float32": 2.0**-23, "float16": 2.0**-10, "bfloat16": 2.0**-7}[dt]
    # rows far from zero lose their means to rounding, more than torch's (see
    # test_offset_rows_as_accurate_as_torch)
    factor = 16 if "offset" in case else 4
    for what, m, t, ref in (("output", my, ty, ref_y), ("grad", mg, tg, ref_g)):
        e_m, e_t = _err(m, ref), _err(t, ref)
        assert e_m <= factor * e_t + 8 * unit, (
            f"{op} {case} {dt} {what}: minitorch's error {e_m:.3g} vs torch's {e_t:.3g}"
        )


# Each row a different constant: torch's LayerNorm and GroupNorm kernels give exactly 0 there.
CONSTANT_ROWS = np.repeat(
    np.array([[3.7], [-0.1], [1e4], [2.3e-3], [7.1], [0.33], [-42.7], [1.3e-6]]), 100, axis=1
)


@pytest.mark.parametrize("op", ["layer_norm", "group_norm"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.xfail(
    strict=True,
    reason="the CPU kernels round the row mean (a float32 BLAS product with 1/D), so x - mean of "
    "a constant row is a few ulps, normalized to ~1e-5 instead of 0; exact zeros need one more "
    "pass over the rows (x - x[0] before the mean: +13% LayerNorm forward at (2048, 128))",
)
def test_constant_rows_exact_zero(op, dt):
    x = CONSTANT_ROWS
    want, _ = _run(op, torch, x, np.ones_like(x), dt)
    np.testing.assert_array_equal(want, 0.0)
    got, _ = _run(op, minitorch, x, np.ones_like(x), dt)
    np.testing.assert_array_equal(got, want)


# Rows of 1e4 + 1e-2 noise (1e2 + 1e-3): the float32 mean is rounded to ~1e-3 (1e-5) of the
# spread, magnified by the normalization. torch's kernels keep more of it (LayerNorm: Welford
# updates; batch and instance norm: float64 sums), so its error is 4-7 times smaller here.
@pytest.mark.parametrize(
    "op, case, what",
    [
        ("layer_norm", "offset1e4_d7", "output"),
        ("group_norm", "offset1e4_d7", "output"),
        ("instance_norm", "offset1e2_d7", "grad"),
        ("instance_norm", "offset1e2_d1000", "grad"),
        ("instance_norm", "offset1e4_d128", "grad"),
    ],
)
@pytest.mark.xfail(
    strict=True,
    reason="the mean's rounding error is not corrected: correcting it costs one more reduction "
    "(batch/instance norm: +4-15% forward) or one more pass (layer/group norm: +13-35%)",
)
def test_offset_rows_as_accurate_as_torch(op, case, what):
    x = INPUTS[case]
    g = np.random.default_rng(7).standard_normal(x.shape)
    x, g = _rounded(x, "float32"), _rounded(g, "float32")
    i = 0 if what == "output" else 1
    ref = _run(op, torch, x, g, "float64")[i]
    e_t = _err(_run(op, torch, x, g, "float32")[i], ref)
    e_m = _err(_run(op, minitorch, x, g, "float32")[i], ref)
    assert e_m <= e_t, f"minitorch's error {e_m:.3g} vs torch's {e_t:.3g}"


def _longdouble_norm(x, axes, eps):
    x = x.astype(np.longdouble)
    d = x - x.mean(axis=axes, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=axes, keepdims=True) + eps)


@pytest.mark.parametrize("case", ["offset1e4_d128", "offset1e2_d1000", "normal_d128", "huge_d7"])
@pytest.mark.parametrize("op", ["layer_norm", "group_norm", "batch_norm_train", "instance_norm"])
def test_float64_accuracy_against_longdouble(op, case):
    x = INPUTS[case]
    if op == "batch_norm_train":
        ref = _longdouble_norm(x, (0,), 1e-5)
    else:
        ref = _longdouble_norm(x, (1,), 1e-5)
    errs = {}
    for name, lib in LIBS.items():
        y = OPS[op](lib, lib.tensor(x, dtype=lib.float64)).numpy()
        errs[name] = float(np.abs(y - ref).max())
    assert errs["minitorch"] <= 4 * errs["torch"] + 1e-14, errs


@pytest.mark.parametrize("case", ["offset1e4_d128", "offset1e2_d7", "normal_d1000", "huge_d128"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_batch_norm_running_statistics(case, dt):
    x = _rounded(INPUTS[case], dt).T  # (D, 4): 4 channels, D values each
    ref_mean = x.mean(0) * 0.1
    ref_var = 0.9 + x.var(0, ddof=1) * 0.1
    got = {}
    for name, lib in LIBS.items():
        rm = lib.zeros(4, dtype=getattr(lib, dt))
        rv = lib.ones(4, dtype=getattr(lib, dt))
        lib.nn.functional.batch_norm(
            lib.tensor(x, dtype=getattr(lib, dt)), rm, rv, training=True, momentum=0.1
        )
        got[name] = (rm.double().numpy(), rv.double().numpy())
    for i, (what, ref) in enumerate((("running_mean", ref_mean), ("running_var", ref_var))):
        e_m = np.abs(got["minitorch"][i] - ref).max() / np.abs(ref).max()
        e_t = np.abs(got["torch"][i] - ref).max() / np.abs(ref).max()
        unit = 2.0**-23 if dt == "float32" else 2.0**-52
        assert e_m <= 4 * e_t + 8 * unit, f"{what}: {e_m:.3g} vs torch's {e_t:.3g}"


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_batch_norm_eval_zero_variance_channel(dt):
    # running_var 0 in one channel: x - mean scaled by 1 / sqrt(eps), as torch
    x = np.random.default_rng(3).standard_normal((5, 3))
    out = {}
    for name, lib in LIBS.items():
        d = getattr(lib, dt)
        xt = lib.tensor(x, dtype=d, requires_grad=True)
        rm = lib.tensor([0.5, -1.0, 2.0], dtype=d)
        rv = lib.tensor([0.0, 1.0, 4.0], dtype=d)
        y = lib.nn.functional.batch_norm(xt, rm, rv, training=False, eps=1e-5)
        y.sum().backward()
        out[name] = (y.detach().numpy(), xt.grad.numpy())
    rtol = 1e-6 if dt == "float32" else 1e-13
    for a, b in zip(out["minitorch"], out["torch"], strict=True):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=0)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("size", [2, 3, 5])
def test_half_local_response_norm_matches_torch_bit_for_bit(dt, size):
    # the window means of the squares are taken in float32 and rounded to the half dtype once,
    # as torch's avg_pool2d computes them
    x = 30 * np.random.default_rng(size).standard_normal((3, 16, 7))
    got = {}
    for name, lib in LIBS.items():
        xt = lib.tensor(x, dtype=getattr(lib, dt))
        y = lib.nn.functional.local_response_norm(xt, size, alpha=1e-2)
        got[name] = y.float().numpy()
    np.testing.assert_array_equal(got["minitorch"], got["torch"])


@pytest.mark.xfail(
    strict=True,
    reason="evaluation computes x * alpha + beta (alpha = w / std, beta = b - mean alpha) in "
    "the input's dtype, which cancels when the mean is large against the spread; torch's "
    "kernel keeps x - mean (one more pass over the input when there is a bias)",
)
def test_batch_norm_eval_large_running_mean():
    # constant channels far from zero (their running variance 1e-3): x - mean is exact
    x = np.repeat(np.array([[1e4], [2e4], [-3e4], [5e3]]), 300, axis=1)
    g = np.ones_like(x)
    ref = _run("batch_norm_eval", torch, x, g, "float64")[0]
    e_t = _err(_run("batch_norm_eval", torch, x, g, "float32")[0], ref)
    e_m = _err(_run("batch_norm_eval", minitorch, x, g, "float32")[0], ref)
    assert e_m <= 4 * e_t + 8 * 2.0**-23, f"minitorch's error {e_m:.3g} vs torch's {e_t:.3g}"
