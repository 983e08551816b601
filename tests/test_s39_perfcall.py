"""Session 39 (helper perfcall): torch-free checks that the per-call fast paths of
tests/reference/test_s39_perfcall_reference.py give what the general paths give, bit for bit:
arange's tame float kernel (_arange_cpu_tame, _fma_by_int) against the general FMA emulation;
topk's whole-sort path for small inputs and its k + 1 neighbour tie check against the partition
path and _has_ties; randperm's Python swap loop against the loop-free replay; embedding's direct
gather against index_select's; the narrow-float range check of masked_fill, where, fill_ and full
by dtype lookup (torch's overflow messages). And the one value fix: the FMA emulation's -0. of
arange(-0., end, negative step) and linspace(-0., negative end). A few of torch's values are
written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch import _dtype, _ranges
from minitorch._backend import torch_stream
from minitorch._ops import sorting

F = mt.nn.functional


# --- arange ---


def test_fma_by_int_matches_fma():
    rng = np.random.default_rng(0)
    odd = 0  # calls that take the round-to-odd branch (an inexact lo + p_err)
    for it in range(600):
        a = float(rng.standard_normal() * 10.0 ** rng.integers(-40, 40))
        k = rng.integers(0, 2**25 + 1, 40).astype(np.float64)
        k[:3] = (0.0, 1.0, 2.0**25)
        if it % 2:
            c = rng.standard_normal(40) * 10.0 ** rng.integers(-40, 40)
        else:
            c = float(rng.choice([0.0, -0.0, rng.standard_normal() * 1e3]))
        want = _ranges._fma(a, k, c)
        got = _ranges._fma_by_int(a, k, c)
        assert got.dtype == np.float64
        assert got.tobytes() == want.tobytes(), (a, c)
        p = k * a
        t = 134217729.0 * a
        ah = t - (t - a)
        err = (k * ah - p) + k * (a - ah)
        hi = c + p
        bb = hi - c
        lo = (c - (hi - bb)) + (p - bb)
        v = lo + err
        odd += bool(((lo - (v - (v - lo))) + (err - (v - lo))).any())
    assert odd > 50


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_arange_tame_matches_general(dt):
    dt = getattr(_dtype, dt)
    npdt = _dtype.numpy_dtype(dt)
    rng = np.random.default_rng(1)
    big = 2.0**115 if dt is _dtype.float32 else 2.0**890
    steps = [0.1, 1 / 3, -0.7, 1e-3, 2.5, -1e-7, 0.5, 1.0, 0.37, 3e-300, -big]
    for _ in range(400):
        n = int(rng.choice([0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 100, 257]))
        step = float(rng.choice(steps + [float(rng.standard_normal() * 1e4)]))
        start = float(rng.choice([0.0, -0.0, 1.0, -3.7, rng.standard_normal() * 1e8, 1e-310]))
        assert _ranges._tame(start, step, n, dt)
        with np.errstate(invalid="ignore"):
            want = _ranges._arange_cpu_float(start, step, n, dt, npdt)
        got = _ranges._arange_cpu_tame(start, step, n, dt)
        assert got.dtype == want.dtype and got.shape == (n,)
        assert got.tobytes() == want.tobytes(), (start, step, n)


def test_arange_tame_bounds():
    f32, f64 = _dtype.float32, _dtype.float64
    assert not _ranges._tame(0.0, 2.0**900, 0, f64)
    assert not _ranges._tame(2.0**900, 1.0, 4, f64)
    assert not _ranges._tame(0.0, 2.0**898, 4, f64)
    assert _ranges._tame(0.0, 2.0**897, 3, f64)
    assert not _ranges._tame(0.0, 2.0**124, 4, f32)  # float32's block bases would overflow
    assert _ranges._tame(0.0, 2.0**124, 4, f64)
    assert not _ranges._tame(0.0, 0.1, 2**25 + 1, f64)
    assert _ranges._tame(0.0, 0.1, 2**25, f64)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_fma_signed_zero(dt):
    # torch.arange(-0., end, negative step) and torch.linspace(-0., negative end, n) start at -0.
    # (the FMA of -0. * step's product and -0.); with a positive step, at +0.
    k = np.arange(4.0)
    for fma in (_ranges._fma, _ranges._fma_by_int):
        assert np.signbit(fma(-0.7, k, -0.0)).tolist() == [True, True, True, True]
        assert np.signbit(fma(0.7, k, -0.0)).tolist() == [False, False, False, False]
        assert np.signbit(fma(-0.7, k, 0.0)).tolist() == [False, True, True, True]
    d = getattr(mt, dt)
    for n in (3, 40):  # the scalar tail only; vector blocks too
        first = mt.arange(-0.0, -0.7 * n + 0.1, -0.7, dtype=d)[:2].numpy()
        assert np.signbit(first).tolist() == [True, True]
        assert not np.signbit(mt.arange(-0.0, 0.7 * n, 0.7, dtype=d)[0].numpy())
        assert np.signbit(mt.linspace(-0.0, -1.0, n, dtype=d)[0].numpy())


def test_arange_torch_values():
    # torch.arange(0, 1.6, 0.1) (float32) and torch.arange(-3.7, 2.0, 0.37, dtype=float64)
    want32 = [
        0, 1036831949, 1045220557, 1050253722, 1053609165, 1056964608, 1058642330, 1060320051,
        1061997773, 1063675495, 1065353216, 1066192077, 1067030938, 1067869798, 1068708659,
        1069547520,
    ]  # fmt: skip
    assert mt.arange(0, 1.6, 0.1).numpy().view(np.int32).tolist() == want32
    want64 = [
        -4607857958744122982, -4608691124675186524, -4609524290606250066, -4610357456537313607,
        -4611190622468377149, -4612361558371493478, -4614027890233620561, -4615694222095747644,
        -4618531489860991056, -4623035089488361550, -4850376798678024192, 4600336947366414250,
        4604840546993784748, 4607677814759028162, 4609344146621155245, 4611010478483282328,
    ]  # fmt: skip
    got = mt.arange(-3.7, 2.0, 0.37, dtype=mt.float64).numpy().view(np.int64).tolist()
    assert got == want64


# --- topk ---


def _topk_arrays():
    rng = np.random.default_rng(2)
    out = []
    for shape in [(16, 16), (5, 12), (3, 4, 9), (1, 40), (30, 4)]:
        out.append(rng.standard_normal(shape).astype(np.float32))
        out.append(rng.integers(0, 4, shape).astype(np.float64))  # ties everywhere
        out.append(rng.integers(-9, 9, shape).astype(np.int64))
        nan = rng.standard_normal(shape)
        nan[rng.random(shape) < 0.2] = np.nan
        out.append(nan)
    return out


def test_topk_small_path_matches_partition_path(monkeypatch):
    cases = []
    for a in _topk_arrays():
        for dim in range(-a.ndim, a.ndim):
            n = a.shape[dim]
            for k in sorted({1, 2, 3, n // 4}):
                if 0 < 4 * k <= n:
                    for largest in (True, False):
                        cases.append((a, k, dim, largest))
    assert len(cases) > 100

    def run():
        res = []
        for a, k, dim, largest in cases:
            v, i = mt.topk(mt.from_numpy(a), k, dim=dim, largest=largest)
            assert i.is_contiguous()
            res.append((v.numpy().tobytes(), i.numpy().tobytes()))
        return res

    fast = run()
    monkeypatch.setattr(sorting, "_TOPK_SORT_MAX", 0)  # every call through _topk_index
    assert run() == fast


def test_sorted_ties_matches_has_ties():
    seen = set()
    for a in _topk_arrays():
        for dim in range(a.ndim):
            n = a.shape[dim]
            for k in range(1, n + 1):
                for largest in (True, False):
                    order = sorting._stable_argsort(a, dim, largest, np)
                    idx = np.take_along_axis(order, np.arange(k).reshape(
                        [k if d == dim else 1 for d in range(a.ndim)]), dim)  # fmt: skip
                    vals = np.take_along_axis(a, idx, dim)
                    want = sorting._has_ties(np, a, dim, k, vals)
                    assert sorting._sorted_ties(np, a, dim, k, order) == want
                    seen.add(want)
    assert seen == {True, False}


def test_descending_argsort_as_flip():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 5, (6, 7, 8)).astype(np.float64)
    a[0, 0, :3] = np.nan
    for dim in range(3):
        n = a.shape[dim]
        want = (n - 1) - np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)
        got = sorting._stable_argsort(a, dim, True, np)
        np.testing.assert_array_equal(got, want)


# --- randperm ---


def test_swap_loop_matches_replay():
    rng = np.random.default_rng(4)
    for n in range(2, 300):
        bounds = np.arange(n, 1, -1, dtype=np.uint64)
        for _ in range(3):
            z = rng.integers(0, 2**62, n - 1, dtype=np.uint64) % bounds
            got = torch_stream._swap_loop(z.tolist(), n)
            want = torch_stream._swaps_result(z.view(np.int64), n)
            assert got.dtype == want.dtype == np.int64
            np.testing.assert_array_equal(got, want, err_msg=f"n={n}")


def test_randperm_loop_matches_replay(monkeypatch):
    def draws():
        g = mt.Generator().manual_seed(5)
        return [mt.randperm(n, generator=g).numpy().copy() for n in range(0, 300, 7)]

    fast = draws()
    monkeypatch.setattr(torch_stream, "_SWAP_LOOP_MAX", 1)  # every n through _swaps_result
    for got, want in zip(fast, draws(), strict=True):
        np.testing.assert_array_equal(got, want)


def test_randperm_torch_values():
    # torch.randperm(16 / 300, generator=torch.Generator().manual_seed(0 / 1))
    g = mt.Generator().manual_seed(0)
    assert mt.randperm(16, generator=g).tolist() == [
        12, 10, 9, 6, 11, 8, 13, 5, 2, 14, 15, 0, 4, 3, 7, 1
    ]  # fmt: skip
    g = mt.Generator().manual_seed(1)
    got = mt.randperm(300, generator=g)[:12].tolist()
    assert got == [145, 140, 282, 278, 203, 268, 167, 230, 275, 285, 18, 9]


# --- embedding ---


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_gather_matches_index_select(dtype):
    g = mt.Generator().manual_seed(6)
    w = mt.randn(10, 4, generator=g, dtype=getattr(mt, dtype))
    wt = mt.randn(4, 10, generator=g, dtype=getattr(mt, dtype)).t()
    idx = mt.randint(0, 10, (3, 5), generator=g)
    for weight in (w, wt):
        for i in (idx, idx.int(), idx.t(), idx[0], mt.tensor(7), mt.zeros(0, 2, dtype=mt.int64)):
            out = F.embedding(i, weight)  # the direct gather
            want = weight.index_select(0, i.reshape(-1)).reshape(tuple(i.shape) + (4,))
            general = F.embedding(i, weight.detach().requires_grad_())  # index_select's path
            assert out.shape == want.shape and out.dtype == want.dtype
            assert out.grad_fn is None and not out.requires_grad
            assert out.is_contiguous()
            np.testing.assert_array_equal(out.numpy(), want.numpy())
            np.testing.assert_array_equal(out.numpy(), general.detach().numpy())
    out = F.embedding(idx, w)
    out.zero_()  # memory of its own
    assert w.abs().sum().item() > 0
    emb = mt.nn.Embedding(10, 4)  # a Parameter that requires grad, under no_grad
    with mt.no_grad():
        out = emb(idx)
    assert out.grad_fn is None and not out.requires_grad
    want = emb.weight.detach().index_select(0, idx.reshape(-1)).reshape(3, 5, 4)
    np.testing.assert_array_equal(out.numpy(), want.numpy())
    assert emb(idx).grad_fn.__class__.__name__ == "EmbeddingBackward0"
    with mt.inference_mode():
        assert F.embedding(idx, w).is_inference()


def test_embedding_gather_errors():
    w = mt.randn(10, 4)
    with pytest.raises(IndexError, match="^index out of range in self$"):
        F.embedding(mt.tensor([10]), w)
    with pytest.raises(RuntimeError, match="Long, Int; but got torch.FloatTensor"):
        F.embedding(mt.tensor([1.0]), w)


# --- masked_fill / where / fill_ with a number: the narrow-float range check ---


def test_float_top_by_dtype():
    for name, top in (("float32", 3.4028234663852886e38), ("float16", 65504.0)):
        npdt = np.dtype(name)
        assert _dtype._float_top(npdt) == top
        assert _dtype._float_top(npdt) == top  # (from the cache)
    assert _dtype._float_top(_dtype.numpy_dtype(_dtype.bfloat16)) == 3.3895313892515355e38
    for name in ("float64", "int64", "int8", "bool", "complex64"):
        assert _dtype._float_top(np.dtype(name)) is None


@pytest.mark.parametrize(
    "dt, value, message",
    [
        ("float32", 1e39, "value cannot be converted to type float without overflow"),
        ("float16", -1e9, "value cannot be converted to type c10::Half without overflow"),
        ("bfloat16", 1e39, "value cannot be converted to type c10::BFloat16 without overflow"),
    ],
)
def test_fill_overflow_messages(dt, value, message):
    x = mt.ones(2, 3, dtype=getattr(mt, dt))
    mask = mt.tensor([[True, False, True], [False, False, True]])
    for fn in (
        lambda: x.masked_fill(mask, value),
        lambda: x.clone().fill_(value),
        lambda: mt.full((2,), value, dtype=x.dtype),
    ):
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value) == message
    got = x.masked_fill(mask, float("-inf"))  # inf and nan pass
    assert got.float().tolist()[0] == [float("-inf"), 1.0, float("-inf")]
    assert mt.where(mask, x, 2.0).float().tolist() == [[1.0, 2.0, 1.0], [2.0, 2.0, 1.0]]
    big = x.double().masked_fill(mask, value)  # float64 holds it
    assert big.tolist()[1] == [1.0, 1.0, value]
