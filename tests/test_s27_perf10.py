"""Session 27, perf10: faster float32 <-> float16 / bfloat16 casts (NOTE [ Half casts ] in
minitorch/_backend/numpy_backend.py), bit for bit what the casts gave before (NumPy's and
ml_dtypes'), with torch's values stated as literals."""

import warnings

import numpy as np
import pytest

import minitorch

BIG = 4096  # the casts of arrays this large take the whole-array path


def _bits(t, dt=np.uint16):
    return t.detach().numpy().view(dt)


def _edge_values():
    """float32 values of every class a cast to a 2-byte float meets: normal, subnormal in
    float16, float32 subnormals, ties (both directions of round-half-even), overflow, inf."""
    f = np.float32
    rng = np.random.RandomState(0)
    ties = []
    for e in range(-24, 16):  # float16 ties (half an ulp above an even and an odd significand)
        for m in (1.0, 1.0 + 2.0**-10):
            ulp = 2.0 ** max(e - 10, -24)
            ties += [m * 2.0**e + ulp / 2, m * 2.0**e - ulp / 2]
    for e in (-126, -100, -10, 0, 10, 100, 127):  # bfloat16 ties
        for m in (1.0, 1.0 + 2.0**-7):
            ties += [m * 2.0**e + 2.0 ** (e - 8), m * 2.0**e - 2.0 ** (e - 8)]
    special = [0.0, 65504.0, 65519.996, 65520.0, 65536.0, 1e6, 3.4e38, np.inf]
    special += [1e-45, 3e-39, 2.0**-25, 3 * 2.0**-25, 2.0**-26, 6.1032e-05, 6.1035156e-05]
    with np.errstate(all="ignore"):
        vals = np.array(ties + special, dtype=f)
        rand = [
            rng.uniform(-3, 3, 2000),
            rng.uniform(-1e-5, 1e-5, 1000),  # float16 subnormals
            np.exp(rng.uniform(-110, 90, 2000)) * rng.choice([-1, 1], 2000),
        ]
        rand = [r.astype(f) for r in rand]
    bits = rng.randint(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32).view(f)
    out = np.concatenate([vals, -vals] + rand + [bits])
    return out[~np.isnan(out)]


def test_float32_to_half_and_bfloat16_bits():
    x = _edge_values()
    assert x.size >= BIG
    t = minitorch.from_numpy(x)
    with np.errstate(all="ignore"):
        want16 = x.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(_bits(t.half()), want16)
    np.testing.assert_array_equal(_bits(t.to(minitorch.float16)), want16)
    np.testing.assert_array_equal(_bits(t.double().half()), want16)  # through float32, as torch
    ml_dtypes = pytest.importorskip("ml_dtypes")
    want_bf = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(_bits(t.bfloat16()), want_bf)


def test_half_casts_torch_literals():
    # torch 2.13: these float32 values' float16 and bfloat16 bits (ties to even, overflow, -0,
    # the float16 subnormal grid), cast as part of an array large enough for the fast path
    vals = [65504.0, 65519.996, 65520.0, 1e6, -1e6, 2.0**-25, 3 * 2.0**-25, 2.0**-26,
            1 + 2.0**-11, 1 + 3 * 2.0**-11, -0.0, 6.1032e-05, float("inf"), -3e-39]  # fmt: skip
    h16 = [0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00, 0x0, 0x2, 0x0, 0x3C00, 0x3C02, 0x8000, 0x400,
           0x7C00, 0x8000]  # fmt: skip
    bf = [0x4780, 0x4780, 0x4780, 0x4974, 0xC974, 0x3300, 0x33C0, 0x3280, 0x3F80, 0x3F80, 0x8000,
          0x3880, 0x7F80, 0x8021]  # fmt: skip
    n = len(vals)
    t = minitorch.tensor(vals * 300)
    assert _bits(t.half())[:n].tolist() == h16
    assert _bits(t.half())[-n:].tolist() == h16
    pytest.importorskip("ml_dtypes")
    assert _bits(t.bfloat16())[:n].tolist() == bf


def test_float32_overflow_to_half_is_silent():
    # torch casts 1e6 to float16 inf without a warning; NumPy's cast warned "overflow
    # encountered in cast" (arrays below 4096 elements still take NumPy's cast)
    t = minitorch.full((64, 64), 1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = t.half()
    assert h.dtype is minitorch.float16
    assert _bits(h)[0, 0] == 0x7C00


def test_half_and_bfloat16_to_float32_every_pattern():
    pats = np.arange(1 << 16, dtype=np.uint16)
    h = minitorch.from_numpy(pats.view(np.float16))
    want = pats.view(np.float16).astype(np.float32).view(np.uint32)
    got = h.float()
    assert got.dtype is minitorch.float32
    np.testing.assert_array_equal(_bits(got, np.uint32), want)  # NaN payloads and signs too
    ml_dtypes = pytest.importorskip("ml_dtypes")
    b = h.view(minitorch.bfloat16)
    want = pats.view(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32)
    np.testing.assert_array_equal(_bits(b.float(), np.uint32), want)


def test_nan_inputs_keep_payloads():
    # an array holding a NaN keeps the old cast (NumPy's payload rule: the top bits, never 0)
    x = np.random.RandomState(1).uniform(-2, 2, BIG * 2).astype(np.float32)
    u = x.view(np.uint32)
    u[::97] = np.array([0x7F800001, 0xFFC00000, 0x7FBFE000, 0x7FC00123], np.uint32)[
        np.arange(u[::97].size) % 4
    ]
    t = minitorch.from_numpy(x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_bits(t.half()), x.astype(np.float16).view(np.uint16))
    assert _bits(t.half())[:98:97].tolist() == [0x7C01, 0xFE00]


def test_cast_layout_grad_and_small():
    x = minitorch.randn(80, 70, generator=minitorch.Generator().manual_seed(0))
    xt = x.t()  # not C-contiguous: the old cast, laid out as x
    assert xt.half().stride() == xt.stride()
    assert (xt.half().float() == xt.half().float().contiguous()).all()
    w = x.clone().requires_grad_(True)
    y = w.half()
    (y.float() * 2).sum().backward()
    assert w.grad.dtype is minitorch.float32
    assert (w.grad == 2).all()
    small = minitorch.tensor([1.00048828125, -65520.0, 2.0**-25 * 3])
    assert _bits(small.half()).tolist() == [0x3C00, 0xFC00, 0x2]


def test_cast_of_broadcast_and_transposed_inputs():
    x = minitorch.randn(90, 60, generator=minitorch.Generator().manual_seed(1))
    xt = x.t()  # F-contiguous: the cast keeps its strides (astype order "K")
    h = xt.half()
    assert h.stride() == (1, 60)
    np.testing.assert_array_equal(_bits(h), xt.numpy().astype(np.float16).view(np.uint16))
    e = minitorch.tensor([0.1, -2.5, 65520.0]).expand(2000, 3)  # copied row-major, as torch
    he = e.half()
    assert he.stride() == (3, 1)
    assert _bits(he)[1999].tolist() == [0x2E66, 0xC100, 0x7C00]
    back = he.float()
    assert back.stride() == (3, 1)
    assert back[5].tolist() == [0.0999755859375, -2.5, float("inf")]
    w = minitorch.randn(70, 70, dtype=minitorch.float64).requires_grad_(True)
    w.half().sum().backward()  # the float16 gradient of sum (broadcast) cast back to float64
    assert w.grad.dtype is minitorch.float64 and (w.grad == 1).all()


def _naive_extreme_index(x, kind):
    """torch's cummax/cummin index along the last dim, element by element: a later equal value
    takes the index, and so does every nan from the first one on."""
    out = np.zeros(x.shape, np.int64)
    for row in np.ndindex(x.shape[:-1]):
        best, bi = None, 0
        for i, v in enumerate(x[row]):
            if (
                best is None
                or v != v
                or (best == best and (v >= best if kind == "max" else v <= best))
            ):
                best, bi = v, i
            out[row + (i,)] = bi
    return out


def test_cummax_cummin_doubling_scan():
    # torch 2.13's indices (ties, nan, -0 / 0, -inf), along both dims
    x = minitorch.tensor(
        [
            [1.0, 3.0, 3.0, 2.0, float("nan"), 5.0, float("nan"), 0.0],
            [-0.0, 0.0, -1.0, -1.0, float("-inf"), 2.0, 2.0, 1.0],
        ]  # fmt: skip
    )
    assert minitorch.cummax(x, 1).indices.tolist() == [
        [0, 1, 2, 2, 4, 4, 6, 6],
        [0, 1, 1, 1, 1, 5, 6, 6],
    ]
    assert minitorch.cummin(x, 1).indices.tolist() == [
        [0, 0, 0, 0, 4, 4, 6, 6],
        [0, 1, 2, 3, 4, 4, 4, 4],
    ]
    assert minitorch.cummax(x, 0).indices.tolist() == [[0] * 8, [0] * 7 + [1]]
    rng = np.random.RandomState(3)
    for dt in (np.float32, np.float64):
        a = rng.randint(-4, 5, (6, 7, 50)).astype(dt)
        a[rng.rand(*a.shape) < 0.05] = np.nan
        for dim in (0, 1, 2):
            t = minitorch.from_numpy(np.ascontiguousarray(np.moveaxis(a, 2, dim)))
            for kind in ("max", "min"):
                r = getattr(minitorch, "cum" + kind)(t, dim)
                got = np.moveaxis(r.indices.numpy(), dim, 2)
                np.testing.assert_array_equal(got, _naive_extreme_index(a, kind))
                assert r.indices.is_contiguous() and r.indices.dtype is minitorch.int64
                vals = np.moveaxis(r.values.numpy(), dim, 2)
                np.testing.assert_array_equal(vals, np.take_along_axis(a, got, 2))
    w = minitorch.randn(4, 9, dtype=minitorch.float64, requires_grad=True)
    f = lambda v: minitorch.cummax(v, 1).values * 1.5  # noqa: E731
    assert minitorch.autograd.gradcheck(f, (w,))
    assert minitorch.autograd.gradgradcheck(f, (w,))


def test_nextafter_on_bits():
    # torch 2.13's bits (float32) for each case: ±0 pairs, from 0 towards a sign, up, down,
    # from inf, towards inf, away from zero on the negative side, from the smallest subnormal
    # to 0, equal inputs; repeated to take the whole-array path
    x = [0.0, -0.0, 0.0, 1.0, -1.0, float("inf"), 3e38, -2.0, 1e-45, 5.0]
    y = [-0.0, 0.0, -1.0, 2.0, 0.0, 0.0, float("inf"), -3.0, 0.0, 5.0]
    want = [-2147483648, 0, -2147483647, 1065353217, -1082130433, 2139095039, 2137108967,
            -1073741823, 0, 1084227584]  # fmt: skip
    r = minitorch.nextafter(minitorch.tensor(x * 500), minitorch.tensor(y * 500))
    assert _bits(r, np.int32)[-10:].tolist() == want
    assert _bits(r, np.int32)[:10].tolist() == want
    rng = np.random.RandomState(5)
    for dt, it in ((np.float32, np.uint32), (np.float64, np.uint64)):
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, np.finfo(dt).max], dt)
        bits = rng.randint(0, 2**62, 6000, dtype=np.int64).astype(it).view(dt)
        a = np.concatenate([rng.choice(special, 3000), bits])
        b = np.concatenate([rng.uniform(-1, 1, 3000).astype(dt), rng.choice(special, 6000)])
        with np.errstate(all="ignore"):
            want = np.nextafter(a, b).view(it)  # NaN: y + x, as NumPy's
        got = minitorch.nextafter(minitorch.from_numpy(a), minitorch.from_numpy(b))
        np.testing.assert_array_equal(_bits(got, it), want)
    w = minitorch.randn(70, 70, dtype=minitorch.float64, requires_grad=True)
    minitorch.nextafter(w, minitorch.zeros(70, 70, dtype=minitorch.float64)).sum().backward()
    assert (w.grad == 1).all()
