"""bfloat16 (and float16) through the ops whose dtype checks missed ml_dtypes' kind-'V' bfloat16,
against PyTorch: values, dtypes, indices and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
pytest.importorskip("ml_dtypes")

# ml_dtypes warns when it compares a bfloat16 NaN (NumPy's float types do not); not checked here.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

NAN = float("nan")
INF = float("inf")

# Values exactly representable in bfloat16, with ties, signed zeros and NaN where they matter.
ROW = [1.5, -2.25, 3.0, 0.30078125, 7.0, -0.69921875, 0.5, 4.0]
WITH_NAN = [1.0, NAN, 2.0, 0.5, -INF, 0.5, 3.0]
SMALL_STEPS = [1.0] + [2.0**-9] * 64  # each step vanishes when summed in bfloat16
SRC = ([-1.0, -2.0, 3.0], "bfloat16", True)  # a scatter source
LONG = [[(i % 16) / 8 for i in range(1200)], [1.0 - (i % 7) / 4 for i in range(1200)]]


def _f(x):
    """The float of a tensor's values (bfloat16 has no NumPy view in torch)."""
    return x.detach().float().cpu().numpy() if x.dtype.is_floating_point else x.cpu().numpy()


def _check(got, want, where, rtol=0.0):
    assert isinstance(got, tuple) == isinstance(want, tuple), f"{where}: {type(got)}"
    gots = got if isinstance(got, tuple) else (got,)
    wants = want if isinstance(want, tuple) else (want,)
    assert len(gots) == len(wants), f"{where}: {len(gots)} outputs, torch {len(wants)}"
    for k, (g, w) in enumerate(zip(gots, wants, strict=True)):
        at = f"{where} output {k}"
        assert str(g.dtype) == str(w.dtype), f"{at}: dtype {g.dtype}, torch {w.dtype}"
        assert tuple(g.shape) == tuple(w.shape), f"{at}: shape {tuple(g.shape)}, {tuple(w.shape)}"
        np.testing.assert_allclose(_f(g), _f(w), rtol=rtol, atol=0, err_msg=at)


# (id, inputs as (values, dtype name, requires_grad), op(L, *tensors) -> tensor or tuple)
CASES = [
    ("nextafter", [(ROW, "bfloat16", True), ([0.0] * 8, "bfloat16", False)],
     lambda L, a, b: L.nextafter(a, b)),
    ("max_pool1d", [([ROW], "bfloat16", True)],
     lambda L, x: L.nn.functional.max_pool1d(x, 3, stride=2, padding=1)),
    ("max_pool2d_nan_indices", [([[ROW[:4], WITH_NAN[:4]]], "bfloat16", True)],
     lambda L, x: L.nn.functional.max_pool2d(x, 2, stride=1, return_indices=True)),
    ("avg_pool1d", [([ROW], "bfloat16", True)],
     lambda L, x: L.nn.functional.avg_pool1d(x, 3, stride=2, padding=1)),
    ("avg_pool1d_count_exclude", [([ROW], "bfloat16", True)],
     lambda L, x: L.nn.functional.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool2d", [([[ROW, ROW[::-1]]], "bfloat16", True)],
     lambda L, x: L.nn.functional.avg_pool2d(x, 2, stride=1)),
    ("avg_pool1d_overlap_f16", [([ROW + ROW[::-1]], "float16", True)],
     lambda L, x: L.nn.functional.avg_pool1d(x, 4, stride=2, padding=2)),
    ("avg_pool1d_small_steps_f16", [([[1.0] + [2.0**-11] * 8], "float16", True)],
     lambda L, x: L.nn.functional.avg_pool1d(x, 9)),
    ("avg_pool1d_small_steps", [([SMALL_STEPS[:9]], "bfloat16", True)],
     lambda L, x: L.nn.functional.avg_pool1d(x, 9)),
    ("sum", [(SMALL_STEPS, "bfloat16", True)], lambda L, x: x.sum()),
    ("mean", [(SMALL_STEPS, "bfloat16", True)], lambda L, x: x.mean()),
    ("nansum", [(SMALL_STEPS + [NAN], "bfloat16", True)], lambda L, x: x.nansum()),
    ("nansum_f16", [([1.0] + [2.0**-11] * 64 + [NAN], "float16", True)], lambda L, x: x.nansum()),
    ("nanmean", [(WITH_NAN[:4], "bfloat16", True)], lambda L, x: x.nanmean()),
    ("cumsum", [(SMALL_STEPS, "bfloat16", True)], lambda L, x: x.cumsum(0)),
    ("cumsum_f16", [([1.0] + [2.0**-11] * 64, "float16", True)], lambda L, x: x.cumsum(0)),
    ("cumprod", [([1.0 + 2.0**-7] * 40, "bfloat16", True)], lambda L, x: x.cumprod(0)),
    ("cumprod_f16", [([1.0 + 2.0**-10] * 40, "float16", True)], lambda L, x: x.cumprod(0)),
    ("logcumsumexp", [([ROW, ROW[::-1]], "bfloat16", False)], lambda L, x: L.logcumsumexp(x, 1)),
    ("logcumsumexp_f16", [([ROW, ROW[::-1]], "float16", False)],
     lambda L, x: L.logcumsumexp(x, 1)),
    ("var_dim", [([ROW, SMALL_STEPS[:8]], "bfloat16", True)], lambda L, x: x.var(1)),
    ("std_all", [([ROW, SMALL_STEPS[:8]], "bfloat16", True)], lambda L, x: x.std()),
    ("std_mean_dim", [([ROW, ROW[::-1]], "bfloat16", True)], lambda L, x: L.std_mean(x, 1)),
    ("var_f16", [([ROW, SMALL_STEPS[:8]], "float16", False)], lambda L, x: x.var(1)),
    ("cummax", [(WITH_NAN, "bfloat16", True)], lambda L, x: tuple(L.cummax(x, 0))),
    ("cummin", [(WITH_NAN, "bfloat16", True)], lambda L, x: tuple(L.cummin(x, 0))),
    ("nanmedian", [([1.0, NAN, 2.0, 0.25, -INF, 0.5, 3.0], "bfloat16", True)],
     lambda L, x: x.nanmedian()),
    ("nanmedian_dim", [([WITH_NAN, WITH_NAN[::-1]], "bfloat16", True)],
     lambda L, x: tuple(x.nanmedian(1))),
    ("nanmedian_ties", [(WITH_NAN, "bfloat16", True)], lambda L, x: x.nanmedian()),
    ("median_ties", [([1.0, 0.5, 2.0, 0.5, 3.0, 0.5], "bfloat16", True)], lambda L, x: x.median()),
    ("median_nan", [([1.0, NAN, 2.0, NAN], "bfloat16", True)], lambda L, x: x.median()),
    ("median_dim", [([WITH_NAN, ROW[:7]], "bfloat16", True)], lambda L, x: tuple(x.median(1))),
    ("sort", [(WITH_NAN, "bfloat16", True)], lambda L, x: tuple(L.sort(x))),
    ("sort_descending", [(WITH_NAN, "bfloat16", True)],
     lambda L, x: tuple(L.sort(x, descending=True))),
    ("argsort", [(WITH_NAN, "bfloat16", False)], lambda L, x: L.argsort(x)),
    ("topk", [(WITH_NAN, "bfloat16", True)], lambda L, x: tuple(L.topk(x, 3))),
    ("topk_smallest", [(WITH_NAN, "bfloat16", True)],
     lambda L, x: tuple(L.topk(x, 3, largest=False))),
    ("unique", [(WITH_NAN + [2.0, 0.5], "bfloat16", False)],
     lambda L, x: tuple(L.unique(x, return_inverse=True, return_counts=True))),
    ("scatter_reduce_amax", [([0.0, 0.0, 5.0], "bfloat16", True), SRC],
     lambda L, x, s: x.scatter_reduce(0, L.tensor([0, 0, 1]), s, "amax", include_self=False)),
    ("scatter_reduce_amin", [([0.0, 0.0, 5.0], "bfloat16", True), SRC],
     lambda L, x, s: x.scatter_reduce(0, L.tensor([0, 0, 1]), s, "amin", include_self=False)),
    ("scatter_reduce_mean", [([0.0, 1.0], "bfloat16", True), ([-1.0, -2.0, 4.0], "bfloat16", True)],
     lambda L, x, s: x.scatter_reduce(0, L.tensor([0, 0, 1]), s, "mean")),
    ("histc", [(ROW, "bfloat16", False)], lambda L, x: L.histc(x, bins=5)),
    ("histc_range", [([i / 50 - 3 for i in range(301)], "bfloat16", False)],
     lambda L, x: L.histc(x, bins=7, min=-2.5, max=2.9)),
    ("histc_many_bins", [([i / 999 for i in range(1000)], "bfloat16", False)],
     lambda L, x: L.histc(x, bins=257)),
    ("bincount_weights_bf16", [(ROW[:4], "bfloat16", False)],
     lambda L, w: L.bincount(L.tensor([0, 1, 1, 3]), w)),
    ("bincount_weights_f16", [(ROW[:4], "float16", False)],
     lambda L, w: L.bincount(L.tensor([0, 1, 1, 3]), w)),
    # long rows: a sum kept in bfloat16 stops growing at 256
    ("norm", [(LONG, "bfloat16", True)], lambda L, x: x.norm(dim=1)),
    ("norm_1", [(LONG, "bfloat16", True)], lambda L, x: x.norm(p=1, dim=1)),
    ("vector_norm_3_f16", [(LONG, "float16", False)], lambda L, x: L.linalg.vector_norm(x, 3)),
    ("dist", [(LONG, "bfloat16", False), (LONG[::-1], "bfloat16", False)],
     lambda L, x, y: L.dist(x, y)),
    ("logsumexp", [(LONG, "bfloat16", True)], lambda L, x: x.logsumexp(1)),
    ("logsumexp_f16", [(LONG, "float16", True)], lambda L, x: x.logsumexp(1)),
    ("sum_dtype", [(LONG, "bfloat16", True)], lambda L, x: x.sum(1, dtype=L.bfloat16)),
    ("nll_loss_sum", [(LONG, "bfloat16", True)],
     lambda L, x: L.nn.functional.nll_loss(x.T, L.arange(1200) % 2, reduction="sum")),
    ("nll_loss_mean", [(LONG, "bfloat16", True)],
     lambda L, x: L.nn.functional.nll_loss(x.T, L.arange(1200) % 2)),
    ("embedding_bag_sum", [(LONG, "bfloat16", True)],
     lambda L, w: L.nn.functional.embedding_bag(L.arange(1200)[None], w.T, mode="sum")),
    ("embedding_bag_mean_f16", [(LONG, "float16", True)],
     lambda L, w: L.nn.functional.embedding_bag(L.arange(1200)[None], w.T, mode="mean")),
]  # fmt: skip


# grad * x / norm rounded in another order: one ulp (cumprod's backward is torch's formula now)
GRAD_RTOL = {"norm": 2.0**-7}


def _inputs(L, spec):
    return [L.tensor(vals, dtype=getattr(L, dt), requires_grad=grad) for vals, dt, grad in spec]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_half_precision_matches_torch(case):
    name, spec, op = case
    ours, theirs = _inputs(mt, spec), _inputs(torch, spec)
    got, want = op(mt, *ours), op(torch, *theirs)
    _check(got, want, name)
    first = got[0] if isinstance(got, tuple) else got
    if not first.requires_grad:
        return
    # A random upstream gradient (bfloat16-exact) through the first output.
    rng = np.random.default_rng(len(name))
    up = (rng.integers(-8, 9, size=tuple(first.shape)) / 8).tolist()
    dt = str(first.dtype).removeprefix("torch.")
    first.backward(mt.tensor(up, dtype=getattr(mt, dt)))
    (want[0] if isinstance(want, tuple) else want).backward(
        torch.tensor(up, dtype=getattr(torch, dt))
    )
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if b.requires_grad:
            _check(a.grad, b.grad, f"{name} grad of input {k}", GRAD_RTOL.get(name, 0.0))


# The float32 edge cases of histc: torch bins by (x - min) * bins / (max - min) in the input's
# dtype, with no correction against the edges (NumPy's histogram disagrees near the edges).
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_histc_edges_match_torch(dt):
    rng = np.random.default_rng(3)
    for trial in range(40):
        vals = (rng.integers(-20, 20, size=50) / rng.choice([3, 6, 7, 10])).tolist()
        bins = int(rng.integers(1, 13))
        lo, hi = [(0, 0), (-1, 1.3), (0.1, 0.7)][trial % 3]
        got, want = (
            L.histc(L.tensor(vals, dtype=getattr(L, dt)), bins=bins, min=lo, max=hi)
            for L in (mt, torch)
        )
        _check(got, want, f"histc {dt} trial {trial}")


@pytest.mark.parametrize("vals", [[0.0, INF], [1.0, NAN], [-INF, 1.0]])
def test_histc_nonfinite_range_error(vals):
    with pytest.raises(RuntimeError) as theirs:
        torch.histc(torch.tensor(vals, dtype=torch.bfloat16))
    with pytest.raises(RuntimeError) as ours:
        mt.histc(mt.tensor(vals, dtype=mt.bfloat16))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "method, other",
    [("add_", -0.3), ("sub_", 0.3), ("add_", 3), ("mul_", 0.1), ("mul_", -3), ("div_", 3.0),
     ("div_", 3), ("div_", "tensor"), ("mul_", "tensor"), ("add_", "tensor"), ("sub_", "tensor")],
)  # fmt: skip
def test_inplace_arithmetic_matches_torch(method, other):
    """In-place bfloat16 arithmetic outside autograd (the optimizer-update path)."""
    results = []
    for L in (mt, torch):
        x = L.tensor(ROW, dtype=L.bfloat16)
        o = L.tensor(ROW[::-1], dtype=L.bfloat16) if other == "tensor" else other
        getattr(x, method)(o)
        results.append(x)
    _check(results[0], results[1], f"{method}({other})")
