"""Session 37 (helper quantreg): quantile methods written the way users write them in torch,
run under torch and minitorch with the same seeds and compared record by record:
torch.quantile and nanquantile (number and tensor q, dim None/int, keepdim, the five
interpolations, NaN and infinities, out=, q's own gradient, gradcheck and gradgradcheck of every
mode), median/nanmedian (values and indices, the lower middle of even lengths, whole-tensor
gradients split among ties), kthvalue, mode, sort/argsort/msort with stable=, the errors users
hit (q out of [0, 1], dtypes, empty inputs, bad dims and k); pinball-loss training of a
multi-quantile regressor, crossing penalties (relu) and monotone rearrangement, split conformal
intervals (the ceil((n + 1)(1 - alpha)) / n level, 'higher'), classification and APS scores, CQR,
empirical CDFs with searchsorted (right=, side=, sorter=, batched) and bucketize, a KS statistic,
histogram quantiles by histc/histogram and cumsum, weighted quantiles, QR-DQN's quantile Huber
loss, IQN's sampled levels, robust scaling (IQR, MAD), winsorizing, NeRF's inverse-CDF sampling,
ensemble intervals, CRPS and discrete ECDFs with unique.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- quantile/nanquantile with out= and an input that requires grad raised the "functions with
  out=... don't support automatic differentiation" error; torch's quantile is composite (its
  out= is resize_ + copy_), so out joins the graph (grad_fn CopyBackwards, a view out through
  its base) and a leaf out that requires grad gets the in-place leaf error.
- quantile/nanquantile of a q or an out= on another device than the input: torch's "quantile()
  q tensor must be on the same device as the input tensor" (after q's dtype check) and "...
  out tensor must be on the same device ..." (after out's dtype check); minitorch raised a
  host/device mixing TypeError for q, and copied across devices for out.
- x.median() / x.nanmedian() (no dim): the node took a flattened view, so its next function
  was ViewBackward0 (torch: the input's own node), it had no _saved_self/_saved_result, and an
  input changed in place before backward gave a silent gradient (torch: the "modified by an
  inplace operation" error; a second backward without retain_graph is refused, as torch's).
- median/nanmedian/mode along a dim: their nodes lacked torch's _saved_dim (unsigned as
  torch's binding reads it), _saved_keepdim, _saved_indices and _saved_self_sym_sizes.
- quantile's interpolation= and searchsorted's side= refused a str subclass (numpy.str_, as
  read from a NumPy grid of settings) with the overload TypeError; torch's parser takes it.

Known and left (documented):
- out= of median/nanmedian/kthvalue/mode/sort/topk (and sum & co.) with an input that
  requires grad AND another error (a wrong out dtype, a bad dim, k out of range): torch
  raises the "functions with out=... automatic differentiation" error first, minitorch the
  other; both raise. A cross-cutting order of torch's VariableType check, not quantile's.
- msort(x, out=o) with x requiring grad: torch names sort() in that error (msort_out calls
  sort_out), minitorch msort().
- mode of a slice holding NaN: torch's value/index are whatever its unstable std::sort leaves
  (documented on minitorch.mode); not recorded. Mode indices of tied values are not recorded.
- quantile's SqueezeBackward4 node has no _saved_dim and its next function is LerpBackward1
  (torch: TransposeBackward1 of its sort/gather/lerp composition).
- searchsorted(side=b"right") and quantile(interpolation=b"lower"): torch's parser reads
  bytes as a str; minitorch raises its overload TypeError.
- histc of a NaN: torch's message prints the range as [-nan, -nan] (the C library's sign of
  the NaN its min reduction gives), minitorch [nan, nan]; platform noise, not recorded.
- Values decided by rounding are not recorded: NeRF's samples use mid-point levels (u = 1
  meets the cdf's last value, whose last bit is the summation order's)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches
from tests.reference._programs import seeded_gen as _gen
from tests.reference._programs import seeded_rand as _rand
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "quantile_modes", "quantile_tensor_q", "quantile_grad", "quantile_q_grad",
    "quantile_errors", "quantile_nan", "nanquantile_grad", "quantile_out",
    "median_values", "median_grad", "nanmedian", "kthvalue", "mode", "sort_stable",
    "pinball_train", "crossing_penalty", "conformal", "cqr", "ecdf_searchsorted",
    "searchsorted_errors", "bucketize", "hist_quantile", "weighted_quantile",
    "qr_dqn_huber", "iqn_taus", "robust_scale", "winsorize", "quantile_gradgrad",
    "order_stat_errors", "quantile_small", "quantile_out_grad", "order_stat_nodes",
    "nerf_sample_pdf", "ensemble_intervals", "crps", "discrete_ecdf",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _pinball(lib, pred, y, taus):
    """The quantile (pinball) loss of predictions (N, Q) at levels taus (Q,) for targets (N,)."""
    err = y.unsqueeze(-1) - pred
    return lib.max(taus * err, (taus - 1) * err).mean()


# --- the programs: each takes the library, a dtype and a recorder ---


def p_quantile_modes(lib, dt, rec):
    x = _randn(lib, dt, 1, 4, 7, 6)
    for interp in INTERPOLATIONS:
        for q in (0.0, 0.25, 0.5, 0.9, 1.0, 1 / 3):
            rec(f"all.{interp}.{q:.3f}", lib.quantile(x, q, interpolation=interp))
            rec(f"d1.{interp}.{q:.3f}", x.quantile(q, dim=1, interpolation=interp))
        rec(f"keep.{interp}", lib.quantile(x, 0.3, dim=-1, keepdim=True, interpolation=interp))
        rec(f"keep_all.{interp}", lib.quantile(x, 0.7, keepdim=True, interpolation=interp))
        rec(f"d0.{interp}", lib.quantile(x, 0.6, 0, interpolation=interp))
    # nearest rounds half to even: n = 5 gives ranks 1.0 and 3.0 exactly at 0.25 and 0.75;
    # n = 3 puts the rank 0.5 at q = 0.25
    y = _randn(lib, dt, 2, 3, 3)
    for q in (0.25, 0.75):
        rec(f"nearest_half.{q}", lib.quantile(y, q, dim=1, interpolation="nearest"))
    z = lib.arange(5, dtype=dt) * 1.5
    rec("arange_q", lib.quantile(z, lib.tensor([0.125, 0.375, 0.625, 0.875], dtype=dt)))
    rec("int_like", lib.quantile(lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=dt), 0.5))
    # settings read from NumPy (a grid of np.str_ modes, np.float64 levels)
    for interp in np.array(["lower", "midpoint"]):
        rec(f"np_str.{interp}", lib.quantile(x, np.float64(0.35), dim=2, interpolation=interp))


def p_quantile_tensor_q(lib, dt, rec):
    x = _randn(lib, dt, 3, 5, 8)
    qs = lib.tensor([0.1, 0.5, 0.9], dtype=dt)
    for interp in INTERPOLATIONS:
        r = lib.quantile(x, qs, dim=1, interpolation=interp)
        rec(f"d1.{interp}", r)
        rec(f"keep.{interp}", lib.quantile(x, qs, dim=-1, keepdim=True, interpolation=interp))
        rec(f"all.{interp}", lib.quantile(x, qs, interpolation=interp))
        rec(f"all_keep.{interp}", lib.quantile(x, qs, keepdim=True, interpolation=interp))
    rec("q0d", lib.quantile(x, lib.tensor(0.4, dtype=dt), dim=0))
    rec("q_empty", lib.quantile(x, lib.tensor([], dtype=dt), dim=1))
    rec("q_one", lib.quantile(x, lib.tensor([0.5], dtype=dt), dim=1))
    rec("x0d", lib.quantile(lib.tensor(2.5, dtype=dt), qs))
    rec("x0d_dim", lib.quantile(lib.tensor(2.5, dtype=dt), 0.3, dim=0, keepdim=True))
    rec("x0d_dim_shape", str(tuple(lib.quantile(lib.tensor(2.5, dtype=dt), qs, dim=0).shape)))
    rec("noncontig", lib.quantile(x.t(), qs, dim=1))
    rec("method", x.nanquantile(qs, dim=1, interpolation="midpoint"))


def p_quantile_grad(lib, dt, rec):
    x0 = _randn(lib, dt, 3, 4, 9)
    qs = lib.tensor([0.05, 0.3, 0.5, 0.95], dtype=dt)
    for interp in INTERPOLATIONS:
        x = x0.clone().requires_grad_(True)
        r = lib.quantile(x, qs, dim=-1, interpolation=interp)
        w = _randn(lib, dt, 4, *r.shape)
        (r * w).sum().backward()
        rec(f"g.{interp}", x.grad)
        rec(f"fn.{interp}", type(r.grad_fn).__name__)
        x = x0.clone().requires_grad_(True)
        r = x.quantile(0.37, interpolation=interp)
        r.backward()
        rec(f"gall.{interp}", x.grad)
    # exact ties of integer-valued data: the stable order decides which copy takes the gradient
    t = lib.tensor([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0], [0.0, 0.0, 0.0, 5.0, 5.0, 4.0]], dtype=dt)
    for q in (0.2, 0.5, 0.8):
        x = t.clone().requires_grad_(True)
        lib.quantile(x, q, dim=1).sum().backward()
        rec(f"ties.{q}", x.grad)


def p_quantile_q_grad(lib, dt, rec):
    x = _randn(lib, dt, 5, 3, 10)
    q = lib.tensor([0.1, 0.45, 0.8], dtype=dt, requires_grad=True)
    r = lib.quantile(x, q, dim=-1)
    w = _randn(lib, dt, 6, *r.shape)
    (r * w).sum().backward()
    rec("gq", q.grad)
    q2 = lib.tensor(0.33, dtype=dt, requires_grad=True)
    x2 = x.clone().requires_grad_(True)
    lib.quantile(x2, q2).backward()
    rec("gq0d", q2.grad)
    rec("gx0d", x2.grad)
    for interp in ("lower", "nearest", "midpoint"):
        q3 = lib.tensor([0.2, 0.7], dtype=dt, requires_grad=True)
        out = lib.quantile(x, q3, dim=0, interpolation=interp)
        rec(f"rg.{interp}", out.requires_grad)


def p_quantile_errors(lib, dt, rec):
    x = _randn(lib, dt, 7, 4, 5)
    rec.err("q_big", lambda: lib.quantile(x, 1.5))
    rec.err("q_neg", lambda: lib.quantile(x, -0.1, dim=0))
    rec.err("q_t_big", lambda: lib.quantile(x, lib.tensor([0.2, 1.2], dtype=dt)))
    rec.err("q_t_neg", lambda: lib.nanquantile(x, lib.tensor([-0.5], dtype=dt), dim=1))
    rec.err("q_2d", lambda: lib.quantile(x, lib.full((2, 2), 0.5, dtype=dt)))
    rec.err("q_dtype", lambda: lib.quantile(x, lib.tensor([0.5], dtype=lib.float16)))
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec.err("q_dtype2", lambda: lib.quantile(x, lib.tensor([0.5], dtype=other)))
    rec.err("int_input", lambda: lib.quantile(lib.arange(10), 0.5))
    rec.err("half_input", lambda: lib.quantile(x.half(), 0.5))
    rec.err("bool_input", lambda: lib.quantile(x > 0, 0.5))
    rec.err("empty", lambda: lib.quantile(lib.empty(0, dtype=dt), 0.5))
    rec.err("empty_dim", lambda: lib.quantile(lib.empty(3, 0, dtype=dt), 0.5, dim=1))
    rec.err("interp", lambda: lib.quantile(x, 0.5, interpolation="cubic"))
    rec.err("interp_case", lambda: lib.quantile(x, 0.5, interpolation="Linear"))
    rec.err("dim", lambda: lib.quantile(x, 0.5, dim=2))
    rec.err("dim_neg", lambda: lib.quantile(x, 0.5, dim=-3))
    rec.err("out_dtype", lambda: lib.quantile(x, 0.5, dim=0, out=lib.empty(5, dtype=other)))
    rec.err("q_list", lambda: lib.quantile(x, [0.1, 0.9]))
    rec.err("nan_q_big", lambda: lib.nanquantile(x, 2.0))
    rec.err("q_int", lambda: lib.quantile(x, 1))
    rec.err("q_true", lambda: lib.quantile(x, True))
    rec.err("q_nan", lambda: lib.quantile(x, float("nan")))
    rec.err("q_t_nan", lambda: lib.quantile(x, lib.tensor([float("nan")], dtype=dt)))
    # devices: q and out= on another device than the input (torch's own checks, no copy)
    q_meta = lib.tensor([0.5], dtype=dt, device="meta")
    rec.err("q_device", lambda: lib.quantile(x, q_meta, dim=0))
    rec.err("q_device_dtype", lambda: lib.quantile(x, q_meta.to(other)))
    rec.err("out_device", lambda: lib.quantile(x, 0.5, out=lib.empty(0, dtype=dt, device="meta")))
    rec.err("out_device_dim", lambda: lib.nanquantile(x, 0.5, 7, out=lib.empty(0, device="meta")))
    rec.err("out_cpu", lambda: lib.quantile(x.to("meta"), 0.5, out=lib.empty(0, dtype=dt)))
    rec("meta", str(lib.quantile(x.to("meta"), q_meta, dim=1, keepdim=True).shape))


def p_quantile_nan(lib, dt, rec):
    x = _randn(lib, dt, 8, 4, 6)
    x[1, 2] = float("nan")
    x[3, 0] = float("nan")
    x[3, 4] = float("nan")
    x[2] = float("nan")
    qs = lib.tensor([0.0, 0.25, 0.5, 1.0], dtype=dt)
    for interp in INTERPOLATIONS:
        rec(f"q.{interp}", lib.quantile(x, qs, dim=1, interpolation=interp))
        rec(f"nq.{interp}", lib.nanquantile(x, qs, dim=1, interpolation=interp))
        rec(f"nq_all.{interp}", lib.nanquantile(x, 0.4, interpolation=interp))
        rec(f"q_all.{interp}", lib.quantile(x, 0.4, interpolation=interp))
        rec(f"nq_d0.{interp}", lib.nanquantile(x, 0.6, dim=0, interpolation=interp))
    inf = lib.tensor([1.0, float("inf"), -float("inf"), 2.0, float("nan")], dtype=dt)
    rec("inf_nq", lib.nanquantile(inf, qs))
    rec("inf_q", lib.quantile(inf[:4], qs))
    rec("all_nan", lib.nanquantile(lib.full((3,), float("nan"), dtype=dt), 0.5))


def p_nanquantile_grad(lib, dt, rec):
    x0 = _randn(lib, dt, 9, 3, 7)
    x0[0, 1] = float("nan")
    x0[2, 3] = float("nan")
    x0[2, 5] = float("nan")
    for interp in INTERPOLATIONS:
        x = x0.clone().requires_grad_(True)
        r = lib.nanquantile(x, lib.tensor([0.2, 0.6], dtype=dt), dim=1, interpolation=interp)
        w = _randn(lib, dt, 10, *r.shape)
        (r * w).sum().backward()
        rec(f"g.{interp}", x.grad)
        x = x0.clone().requires_grad_(True)
        r = lib.quantile(x, 0.4, dim=1, interpolation=interp)
        rec(f"qnan.{interp}", r)
        (r[1] * 2).backward()  # the one row without NaN
        rec(f"gq.{interp}", x.grad)


def p_quantile_out(lib, dt, rec):
    x = _randn(lib, dt, 11, 4, 5)
    out = lib.empty(5, dtype=dt)
    r = lib.quantile(x, 0.25, dim=0, out=out)
    rec("out", out)
    rec("same", r is out)
    out2 = lib.zeros(2, 2, dtype=dt)
    lib.quantile(x, lib.tensor([0.3, 0.9], dtype=dt), dim=1, out=out2)
    rec("resized", out2)
    rec("resized_shape", str(tuple(out2.shape)))
    out3 = lib.empty(0, dtype=dt)
    lib.nanquantile(x, 0.5, out=out3)
    rec("scalar_out", out3)


def p_median_values(lib, dt, rec):
    x = _randn(lib, dt, 12, 5, 6)
    rec("all_even", x.median())
    rec("all_odd", x[:, :5].median())
    v, i = x.median(dim=1)
    rec("v1", v)
    rec("i1", i)
    v, i = lib.median(x, 0, keepdim=True)
    rec("v0", v)
    rec("i0", i)
    r = x.median(-1)
    rec("names", str((type(r).__name__, r.values is r[0])))
    # even lengths take the lower of the two middle values (no averaging)
    t = lib.tensor([4.0, 1.0, 3.0, 2.0], dtype=dt)
    rec("lower", t.median())
    rec("np_style", (t.sort().values[1] + t.sort().values[2]) / 2)
    k = lib.tensor([[5, 1, 4, 1, 2], [7, 7, 0, 3, 9]])
    v, i = k.median(dim=1)
    rec("int_v", v)
    rec("int_i", i)
    rec("int_all", k.median())
    # ties of exact values: torch returns the first of the tied median's occurrences? Only rows
    # without ties at the median are recorded for indices
    nan = x.clone()
    nan[1, 3] = float("nan")
    v, i = nan.median(dim=1)
    rec("nan_v", v)
    rec("nan_i", i)
    rec("nan_all", nan.median())
    v, i = lib.median(lib.tensor(3.0, dtype=dt), 0)
    rec("0d", lib.stack([v, i.to(dt)]))


def p_median_grad(lib, dt, rec):
    x0 = _randn(lib, dt, 13, 4, 7)
    x = x0.clone().requires_grad_(True)
    v, i = x.median(dim=1)
    w = _randn(lib, dt, 14, 4)
    (v * w).sum().backward()
    rec("g_dim", x.grad)
    rec("fn_dim", type(v.grad_fn).__name__)
    x = x0.clone().requires_grad_(True)
    m = x.median()
    (m * 3).backward()
    rec("g_all", x.grad)
    rec("fn_all", type(m.grad_fn).__name__)
    # exact ties: the whole-tensor median splits its gradient among the equal values
    t = lib.tensor([1.0, 2.0, 2.0, 3.0, 2.0, 0.0], dtype=dt, requires_grad=True)
    t.median().backward()
    rec("g_ties", t.grad)
    x = x0.clone().requires_grad_(True)
    v, i = x.nanmedian(dim=0, keepdim=True)
    (v.sum() * 2).backward()
    rec("g_nan_dim", x.grad)
    x = x0.clone().requires_grad_(True)
    v, i = x.kthvalue(3, dim=1)
    (v * w).sum().backward()
    rec("g_kth", x.grad)
    rec("fn_kth", type(v.grad_fn).__name__)


def p_nanmedian(lib, dt, rec):
    x = _randn(lib, dt, 15, 5, 6)
    x[0, 1] = float("nan")
    x[2, 0] = float("nan")
    x[2, 5] = float("nan")
    x[4] = float("nan")
    v, i = x.nanmedian(dim=1)
    rec("v", v)
    rec("i", i)
    rec("all", x.nanmedian())
    rec("median_all", x.median())
    v, i = lib.nanmedian(x, dim=0)
    rec("v0", v)
    rec("i0", i)
    t = x.clone().requires_grad_(True)
    t.nanmedian().backward()
    rec("g_all", t.grad)
    t = x.clone().requires_grad_(True)
    t.median().backward()
    rec("g_median_nan", t.grad)
    rec("all_nan", lib.full((4,), float("nan"), dtype=dt).nanmedian())
    rec("int", lib.tensor([3, 1, 2, 8]).nanmedian())


def p_kthvalue(lib, dt, rec):
    x = _randn(lib, dt, 16, 4, 9)
    for k in (1, 3, 9):
        v, i = x.kthvalue(k, dim=1)
        rec(f"v{k}", v)
        rec(f"i{k}", i)
    v, i = lib.kthvalue(x, 2, 0, keepdim=True)
    rec("v_keep", v)
    rec("i_keep", i)
    v, i = lib.kthvalue(x, 5)
    rec("v_last", v)
    # the k-th smallest equals sorted()[k - 1]
    rec("sorted", x.sort(dim=1).values[:, 4] - x.kthvalue(5, dim=1).values)
    n = x.clone()
    n[1, 2] = float("nan")
    v, i = n.kthvalue(9, dim=1)
    rec("nan_v", v)
    rec("nan_i", i)
    k = lib.tensor([[4, 9, 1, 7], [2, 8, 6, 3]])
    v, i = k.kthvalue(2)
    rec("int", lib.stack([v, i]))
    rec("0d", lib.stack(list(lib.tensor(2.0, dtype=dt).kthvalue(1))))


def p_mode(lib, dt, rec):
    k = lib.tensor([[1, 2, 2, 3, 3, 3, 0], [5, 5, 1, 1, 4, 4, 2], [9, 8, 7, 6, 5, 4, 3]])
    v, i = k.mode(dim=1)
    rec("int_v", v)
    rec("int_i_unique", i[2])
    f = k.to(dt)
    v, i = lib.mode(f, 1)
    rec("v", v)
    rec("v0", lib.mode(f, 0).values)
    rec("keep", lib.mode(f, 1, keepdim=True).values)
    # a row of distinct values: the mode is its smallest, and the gradient goes there
    x = _randn(lib, dt, 17, 3, 6).requires_grad_(True)
    v, i = x.mode(dim=-1)
    rec("v_distinct", v)
    rec("i_distinct", i)
    (v * lib.tensor([1.0, -2.0, 0.5], dtype=dt)).sum().backward()
    rec("g", x.grad)
    rec("fn", type(v.grad_fn).__name__)
    rec("0d", lib.tensor(2.0, dtype=dt).mode().values)


def p_sort_stable(lib, dt, rec):
    k = lib.tensor([[3.0, 1.0, 3.0, 2.0, 1.0, 3.0, 0.0], [2.0, 2.0, 2.0, 1.0, 1.0, 5.0, 5.0]])
    k = k.to(dt)
    for desc in (False, True):
        v, i = k.sort(dim=1, stable=True, descending=desc)
        rec(f"v.{desc}", v)
        rec(f"i.{desc}", i)
        v, i = lib.sort(k, stable=True, dim=0, descending=desc)
        rec(f"v0.{desc}", v)
        rec(f"i0.{desc}", i)
    rec("argsort", lib.argsort(k, dim=1, stable=True))
    rec("argsort_desc", k.argsort(stable=True, descending=True))
    rec("msort", lib.msort(k))
    rec("msort_m", k.t().msort())
    x = _randn(lib, dt, 18, 4, 6).requires_grad_(True)
    v, i = x.sort(dim=0)
    w = _randn(lib, dt, 19, 4, 6)
    (v * w).sum().backward()
    rec("g", x.grad)
    rec("i", i)
    y = _randn(lib, dt, 20, 5, 3).requires_grad_(True)
    m = lib.msort(y)
    (m * _randn(lib, dt, 21, 5, 3)).sum().backward()
    rec("gm", y.grad)
    n = lib.tensor([2.0, float("nan"), -1.0, float("inf"), float("nan"), 0.0], dtype=dt)
    v, i = n.sort(stable=True)
    rec("nan_v", v)
    rec("nan_i", i)
    v, i = n.sort(stable=True, descending=True)
    rec("nan_vd", v)
    rec("nan_id", i)


def _quantile_net(lib, dt, n_q):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 16), lib.nn.ReLU(), lib.nn.Linear(16, n_q))
    return net.to(dt)


def _regression_data(lib, dt, seed, n=64):
    x = _rand(lib, dt, seed, n, 3) * 2 - 1
    noise = _randn(lib, dt, seed + 1, n) * (0.2 + x[:, 0].abs())
    y = lib.sin(2 * x[:, 0]) + 0.5 * x[:, 1] - x[:, 2] ** 2 + noise
    return x, y


def p_pinball_train(lib, dt, rec):
    taus = lib.tensor([0.1, 0.5, 0.9], dtype=dt)
    x, y = _regression_data(lib, dt, 21)
    net = _quantile_net(lib, dt, 3)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(6):
        opt.zero_grad()
        pred = net(x)
        loss = _pinball(lib, pred, y, taus)
        loss.backward()
        rec(f"loss{step}", loss)
        if step == 0:
            rec.params("g0", net, grads=True)
        opt.step()
    rec.params("p", net)
    with lib.no_grad():
        pred = net(x)
        cover = (y.unsqueeze(-1) <= pred).to(dt).mean(0)
        rec("pred", pred)
        rec("coverage", cover)
    # the where form of the same loss, with a per-sample reduction
    err = y.unsqueeze(-1) - net(x)
    l2 = lib.where(err >= 0, taus * err, (taus - 1) * err).sum(-1)
    rec("where_form", l2)
    rec("relu_form", (taus * lib.relu(err) + (1 - taus) * lib.relu(-err)).sum(-1))


def p_crossing_penalty(lib, dt, rec):
    taus = lib.tensor([0.05, 0.25, 0.5, 0.75, 0.95], dtype=dt)
    x, y = _regression_data(lib, dt, 22)
    net = _quantile_net(lib, dt, 5)
    opt = lib.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    for step in range(5):
        opt.zero_grad()
        pred = net(x)
        crossing = lib.relu(pred[:, :-1] - pred[:, 1:])
        loss = _pinball(lib, pred, y, taus) + 10.0 * crossing.mean()
        loss.backward()
        rec(f"loss{step}", loss)
        rec(f"cross{step}", crossing.sum())
        opt.step()
    rec.params("p", net, grads=True)
    with lib.no_grad():
        pred = net(x)
        # monotone rearrangement: sorting the outputs removes any crossing left
        fixed, _ = pred.sort(dim=-1)
        rec("n_crossing", (pred[:, :-1] > pred[:, 1:]).sum())
        rec("rearranged", fixed)
        # the cumulative-softplus parametrisation keeps quantiles ordered by construction
        mono = lib.cumsum(lib.cat([pred[:, :1], lib.nn.functional.softplus(pred[:, 1:])], 1), 1)
        rec("mono", mono)


def p_conformal(lib, dt, rec):
    x, y = _regression_data(lib, dt, 23, n=80)
    lib.manual_seed(1)
    model = lib.nn.Linear(3, 1).to(dt)
    with lib.no_grad():
        pred = model(x).squeeze(-1)
    cal_pred, test_pred = pred[:50], pred[50:]
    cal_y, test_y = y[:50], y[50:]
    scores = (cal_y - cal_pred).abs()
    n = scores.numel()
    for alpha in (0.1, 0.2, 0.05):
        q_level = math.ceil((n + 1) * (1 - alpha)) / n
        q_level = min(q_level, 1.0)
        for interp in ("higher", "linear"):
            qhat = lib.quantile(scores, q_level, interpolation=interp)
            lo, hi = test_pred - qhat, test_pred + qhat
            covered = ((test_y >= lo) & (test_y <= hi)).to(dt).mean()
            rec(f"qhat.{alpha}.{interp}", qhat)
            rec(f"cover.{alpha}.{interp}", covered)
        # the same quantile from an explicit order statistic
        k = math.ceil((n + 1) * (1 - alpha))
        rec(f"kth.{alpha}", scores.kthvalue(k).values)
        rec(f"sorted.{alpha}", scores.sort().values[k - 1])
    # a tensor of levels and a classification score (1 - softmax of the true class)
    logits = _randn(lib, dt, 24, 40, 5)
    labels = lib.randint(0, 5, (40,), generator=_gen(lib, 25))
    probs = lib.softmax(logits, dim=-1)
    s = 1 - probs.gather(1, labels.unsqueeze(1)).squeeze(1)
    qhat = lib.quantile(s[:30], math.ceil(31 * 0.9) / 30, interpolation="higher")
    sets = probs[30:] >= 1 - qhat
    rec("cls_qhat", qhat)
    rec("cls_sets", sets)
    rec("cls_size", sets.sum(1))
    # adaptive prediction sets: cumulative sorted probability up to the true label
    sp, order = probs.sort(dim=1, descending=True)
    cum = sp.cumsum(1)
    rank = (order == labels.unsqueeze(1)).to(lib.int64).argmax(1)
    aps = cum.gather(1, rank.unsqueeze(1)).squeeze(1)
    rec("aps_qhat", lib.quantile(aps, 0.9, interpolation="higher"))
    rec("aps_scores", aps)


def p_cqr(lib, dt, rec):
    """Conformalized quantile regression: a two-quantile net, then the calibration margin."""
    taus = lib.tensor([0.05, 0.95], dtype=dt)
    x, y = _regression_data(lib, dt, 26, n=90)
    net = _quantile_net(lib, dt, 2)
    opt = lib.optim.Adam(net.parameters(), lr=5e-3)
    for _ in range(4):
        opt.zero_grad()
        _pinball(lib, net(x[:40]), y[:40], taus).backward()
        opt.step()
    with lib.no_grad():
        cal = net(x[40:70])
        s = lib.maximum(cal[:, 0] - y[40:70], y[40:70] - cal[:, 1])
        n = s.numel()
        q = lib.quantile(s, min(1.0, math.ceil((n + 1) * 0.9) / n), interpolation="higher")
        test = net(x[70:])
        lo, hi = test[:, 0] - q, test[:, 1] + q
    rec("scores", s)
    rec("q", q)
    rec("width", (hi - lo).mean())
    rec("cover", ((y[70:] >= lo) & (y[70:] <= hi)).sum())


def p_ecdf_searchsorted(lib, dt, rec):
    sample = _randn(lib, dt, 27, 50)
    srt, order = sample.sort()
    pts = lib.linspace(-2, 2, 9, dtype=dt)
    for right in (False, True):
        idx = lib.searchsorted(srt, pts, right=right)
        rec(f"idx.{right}", idx)
        rec(f"ecdf.{right}", idx.to(dt) / sample.numel())
    rec("side_left", lib.searchsorted(srt, pts, side="left"))
    rec("side_right", lib.searchsorted(srt, pts, side="right"))
    rec("side_np", lib.searchsorted(srt, pts, side=np.array(["left", "right"])[1]))
    # the sample's own values: left and right differ by the multiplicity
    rec("self_left", lib.searchsorted(srt, sample[:10]))
    rec("self_right", lib.searchsorted(srt, sample[:10], right=True))
    rec("sorter", lib.searchsorted(sample, pts, sorter=order))
    rec("sorter_right", lib.searchsorted(sample, pts, side="right", sorter=order))
    rec("int32", lib.searchsorted(srt, pts, out_int32=True))
    rec("scalar", lib.searchsorted(srt, 0.25))
    rec("scalar_right", lib.searchsorted(srt, 0.25, right=True))
    # batched: one sorted row per group
    groups = _randn(lib, dt, 28, 3, 20).sort(dim=-1).values
    vals = _randn(lib, dt, 29, 3, 4)
    rec("batched", lib.searchsorted(groups, vals))
    rec("batched_right", lib.searchsorted(groups, vals, side="right"))
    # ties in an exact grid
    grid = lib.tensor([0.0, 1.0, 1.0, 1.0, 2.0, 3.0], dtype=dt)
    probe = lib.tensor([-1.0, 0.0, 1.0, 1.5, 3.0, 4.0], dtype=dt)
    rec("ties_l", lib.searchsorted(grid, probe))
    rec("ties_r", lib.searchsorted(grid, probe, right=True))
    # inverse-CDF sampling with an empirical CDF of weights
    w = _rand(lib, dt, 30, 10)
    cdf = lib.cumsum(w / w.sum(), 0)
    u = _rand(lib, dt, 31, 12)
    rec("inv_cdf", lib.searchsorted(cdf, u, right=True).clamp(max=9))
    # the ECDF's two-sample statistic (Kolmogorov-Smirnov)
    other = _randn(lib, dt, 32, 40) + 0.3
    both = lib.cat([sample, other]).sort().values
    f1 = lib.searchsorted(srt, both, right=True).to(dt) / 50
    f2 = lib.searchsorted(other.sort().values, both, right=True).to(dt) / 40
    rec("ks", (f1 - f2).abs().max())


def p_searchsorted_errors(lib, dt, rec):
    s = lib.arange(6, dtype=dt)
    v = lib.tensor([1.5, 2.5], dtype=dt)
    rec.err("side_right_mismatch", lambda: lib.searchsorted(s, v, right=True, side="left"))
    rec.err("side_ok", lambda: lib.searchsorted(s, v, right=False, side="left"))
    rec.err("side_bad", lambda: lib.searchsorted(s, v, side="middle"))
    rec.err("sorter_dtype", lambda: lib.searchsorted(s, v, sorter=lib.arange(6).int()))
    rec.err("sorter_shape", lambda: lib.searchsorted(s, v, sorter=lib.arange(5)))
    rec.err("sorter_range", lambda: lib.searchsorted(s, v, sorter=lib.arange(6) + 1))
    rec.err("batch", lambda: lib.searchsorted(lib.zeros(2, 3, dtype=dt), lib.zeros(3, 2)))
    rec.err("dtype", lambda: lib.searchsorted(s, lib.tensor([1, 2])))
    rec.err("scalar_seq", lambda: lib.searchsorted(lib.tensor(1.0, dtype=dt), v))
    rec.err("scalar_batched", lambda: lib.searchsorted(lib.zeros(2, 3, dtype=dt), 1.0))
    rec.err("out_int32_big", lambda: lib.searchsorted(s, v, out_int32=True, right=True))
    rec.err("bucket_bounds", lambda: lib.bucketize(v, lib.zeros(2, 3, dtype=dt)))
    rec.err("bucket_dtype", lambda: lib.bucketize(lib.tensor([1, 2]), s))


def p_bucketize(lib, dt, rec):
    x = _randn(lib, dt, 33, 4, 6) * 2
    bounds = lib.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], dtype=dt)
    rec("left", lib.bucketize(x, bounds))
    rec("right", lib.bucketize(x, bounds, right=True))
    rec("int32", lib.bucketize(x, bounds, out_int32=True))
    rec("scalar", lib.bucketize(0.5, bounds))
    rec("scalar_right", lib.bucketize(0.5, bounds, right=True))
    exact = lib.tensor([-2.0, 0.0, 0.5, 3.0, -3.0], dtype=dt)
    rec("exact_l", lib.bucketize(exact, bounds))
    rec("exact_r", lib.bucketize(exact, bounds, right=True))
    # quantile bins: boundaries from the data's own quantiles, counts per bin
    edges = lib.quantile(x.flatten(), lib.tensor([0.25, 0.5, 0.75], dtype=dt))
    b = lib.bucketize(x.flatten(), edges)
    rec("qbins", b)
    rec("qcounts", lib.bincount(b, minlength=4))
    # one-hot of the bins, then the per-bin mean of a target
    target = _randn(lib, dt, 34, 24)
    oh = lib.nn.functional.one_hot(b, 4).to(dt)
    rec("bin_mean", (oh * target.unsqueeze(1)).sum(0) / oh.sum(0))


def p_hist_quantile(lib, dt, rec):
    x = _rand(lib, dt, 35, 200) * 4 - 1
    bins = 20
    h = lib.histc(x, bins=bins, min=-1, max=3)
    rec("histc", h)
    cdf = lib.cumsum(h, 0) / h.sum()
    rec("cdf", cdf)
    edges = lib.linspace(-1, 3, bins + 1, dtype=dt)
    qs = lib.tensor([0.1, 0.5, 0.9], dtype=dt)
    k = lib.searchsorted(cdf, qs)
    rec("k", k)
    prev = lib.where(k > 0, cdf[(k - 1).clamp(min=0)], lib.zeros_like(qs))
    frac = (qs - prev) / (cdf[k] - prev)
    est = edges[k] + frac * (edges[k + 1] - edges[k])
    rec("est", est)
    rec("exact", lib.quantile(x, qs))
    hist, e = lib.histogram(x, bins=8)
    rec("histogram", hist)
    rec("edges", e)
    hist, e = lib.histogram(x, bins=lib.tensor([-1.0, 0.0, 0.5, 3.0], dtype=dt), density=True)
    rec("density", hist)
    hist, e = lib.histogram(x, bins=5, range=(0.0, 2.0), weight=x.abs())
    rec("weighted", hist)
    rec("weighted_edges", e)


def p_weighted_quantile(lib, dt, rec):
    vals = _randn(lib, dt, 36, 3, 12)
    w = _rand(lib, dt, 37, 3, 12) + 0.1
    sv, order = vals.sort(dim=-1)
    sw = w.gather(-1, order)
    cw = sw.cumsum(-1)
    cw = cw / cw[:, -1:]
    qs = lib.tensor([[0.2], [0.5], [0.8]], dtype=dt).expand(3, 1).contiguous()
    idx = lib.searchsorted(cw, qs)
    rec("idx", idx)
    rec("wq", sv.gather(-1, idx))
    # the midpoint rule (cw - w / 2) with linear interpolation between the neighbours
    mid = cw - sw / sw.sum(-1, keepdim=True) / 2
    j = lib.searchsorted(mid, qs).clamp(1, 11)
    lo, hi = mid.gather(-1, j - 1), mid.gather(-1, j)
    t = ((qs - lo) / (hi - lo)).clamp(0, 1)
    rec("interp", lib.lerp(sv.gather(-1, j - 1), sv.gather(-1, j), t))
    # equal weights give back quantile's 'lower' rule
    ew = lib.ones(12, dtype=dt).cumsum(0) / 12
    j = lib.searchsorted(ew, lib.tensor([0.25, 0.5], dtype=dt))
    rec("equal", sv[0, j])
    rec(
        "quantile_lower",
        lib.quantile(vals[0], lib.tensor([0.25, 0.5], dtype=dt), interpolation="lower"),
    )


def p_qr_dqn_huber(lib, dt, rec):
    """QR-DQN's quantile Huber loss over pairwise TD errors, a few Adam steps."""
    n_q, kappa = 8, 1.0
    taus = (2 * lib.arange(n_q, dtype=dt) + 1) / (2 * n_q)
    lib.manual_seed(2)
    net = lib.nn.Sequential(lib.nn.Linear(4, 32), lib.nn.Tanh(), lib.nn.Linear(32, 2 * n_q))
    net = net.to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=3e-3)
    s = _randn(lib, dt, 38, 16, 4)
    a = lib.randint(0, 2, (16,), generator=_gen(lib, 39))
    target = _randn(lib, dt, 40, 16, n_q).sort(-1).values
    for step in range(5):
        opt.zero_grad()
        theta = net(s).view(16, 2, n_q)[lib.arange(16), a]
        u = target.unsqueeze(1) - theta.unsqueeze(2)  # (B, N, N')
        huber = lib.where(u.abs() <= kappa, 0.5 * u**2, kappa * (u.abs() - 0.5 * kappa))
        weight = (taus.view(1, -1, 1) - (u.detach() < 0).to(dt)).abs()
        loss = (weight * huber / kappa).sum(1).mean()
        loss.backward()
        rec(f"loss{step}", loss)
        opt.step()
    rec.params("p", net, grads=True)
    rec("smooth_l1", lib.nn.functional.smooth_l1_loss(theta, target, reduction="none", beta=1.0))
    rec("huber", lib.nn.functional.huber_loss(theta, target, delta=kappa))


def p_iqn_taus(lib, dt, rec):
    """IQN: random quantile levels embedded by cosines, a quantile loss per sampled tau."""
    lib.manual_seed(3)
    n_tau, emb = 6, 16
    phi = lib.nn.Linear(emb, 8).to(dt)
    head = lib.nn.Linear(8, 1).to(dt)
    feat = _randn(lib, dt, 41, 5, 8)
    taus = lib.rand(5, n_tau, generator=_gen(lib, 42), dtype=dt)
    i = lib.arange(1, emb + 1, dtype=dt)
    cos = lib.cos(math.pi * i * taus.unsqueeze(-1))  # (B, T, E)
    h = feat.unsqueeze(1) * lib.relu(phi(cos))
    z = head(h).squeeze(-1)  # (B, T)
    y = _randn(lib, dt, 43, 5, 1)
    u = y - z
    loss = (lib.abs(taus - (u.detach() < 0).to(dt)) * u.abs()).mean()
    loss.backward()
    rec("z", z)
    rec("loss", loss)
    rec("g_phi", phi.weight.grad)
    rec("g_head", head.weight.grad)
    # sorting the sampled quantiles and their taus together (a risk measure: CVaR at 0.25)
    zs, order = z.detach().sort(dim=1)
    ts = taus.gather(1, order)
    rec("taus_sorted", ts)
    rec("cvar", (zs * (ts <= 0.25).to(dt)).sum(1) / (ts <= 0.25).to(dt).sum(1).clamp(min=1))


def p_robust_scale(lib, dt, rec):
    x = _randn(lib, dt, 44, 30, 4) * lib.tensor([1.0, 5.0, 0.1, 2.0], dtype=dt)
    q = lib.quantile(x, lib.tensor([0.25, 0.5, 0.75], dtype=dt), dim=0)
    iqr = q[2] - q[0]
    rec("q", q)
    rec("scaled", (x - q[1]) / iqr)
    med = x.median(dim=0).values
    mad = (x - med).abs().median(dim=0).values
    rec("mad", mad)
    rec("robust_z", 0.6745 * (x - med) / mad)
    # quantile normalization: rank each column, replace by the mean of sorted columns
    srt = x.sort(dim=0).values
    ranks = x.argsort(dim=0).argsort(dim=0)
    rec("qnorm", srt.mean(1)[ranks])
    # a differentiable robust loss on the residual's median
    w = x.clone().requires_grad_(True)
    r = (w - w.median(dim=0, keepdim=True).values).abs()
    r.median().backward()
    rec("g", w.grad)


def p_winsorize(lib, dt, rec):
    x = _randn(lib, dt, 45, 6, 20) * 3
    lo = lib.quantile(x, 0.05, dim=1, keepdim=True)
    hi = lib.quantile(x, 0.95, dim=1, keepdim=True)
    rec("clamped", lib.clamp(x, lo, hi))
    rec("clip_min_max", x.clip(min=lo, max=hi))
    rec("where", lib.where(x > hi, hi, lib.where(x < lo, lo, x)))
    # a trimmed mean of the inner 80%
    keep = (x >= lo) & (x <= hi)
    rec("trimmed", (x * keep).sum(1) / keep.sum(1))
    # a percentile clip of gradients by their global norm quantile
    p = x.clone().requires_grad_(True)
    y = (p**2).sum()
    y.backward()
    thr = lib.quantile(p.grad.abs().flatten(), 0.9)
    rec("thr", thr)
    rec("clipped_grad", p.grad.clamp(-thr, thr))


def p_quantile_gradgrad(lib, dt, rec):
    x = _randn(lib, dt, 46, 4, 6).requires_grad_(True)
    q = lib.tensor([0.3, 0.7], dtype=dt, requires_grad=True)
    r = lib.quantile(x * x, q, dim=1)
    w = _randn(lib, dt, 47, 2, 4)
    gx, gq = lib.autograd.grad((r * w).sum(), (x, q), create_graph=True)
    rec("gx", gx)
    rec("gq", gq)
    (gx.pow(2).sum() + gq.sum()).backward()
    rec("ggx", x.grad)
    rec("ggq", q.grad)
    if dt != lib.float64:
        return
    x64 = _randn(lib, dt, 48, 3, 5).requires_grad_(True)
    q64 = lib.tensor([0.2, 0.55, 0.9], dtype=dt, requires_grad=True)
    check, check2 = lib.autograd.gradcheck, lib.autograd.gradgradcheck
    calls = {
        "q": (lambda a, b: lib.quantile(a, b, dim=-1), (x64, q64)),
        "nan": (lambda a: lib.nanquantile(a, 0.4, dim=0), (x64,)),
        "median": (lambda a: a.median(dim=1).values, (x64,)),
        "median_all": (lambda a: a.median(), (x64,)),
        "nanmedian_all": (lambda a: a.nanmedian(), (x64,)),
        "kth": (lambda a: a.kthvalue(2, dim=1).values, (x64,)),
        "mode": (lambda a: a.mode(0).values, (x64,)),
    }
    for interp in INTERPOLATIONS:
        calls[interp] = (
            lambda a, interp=interp: lib.quantile(a, q64.detach(), dim=1, interpolation=interp),
            (x64,),
        )
    for name, (f, args) in calls.items():
        rec(f"gc.{name}", check(f, args))
        rec(f"ggc.{name}", check2(f, args))


def p_order_stat_errors(lib, dt, rec):
    x = _randn(lib, dt, 49, 3, 4)
    rec.err("kth_big", lambda: x.kthvalue(5, dim=1))
    rec.err("kth_zero", lambda: x.kthvalue(0))
    rec.err("kth_neg", lambda: lib.kthvalue(x, -1, 0))
    rec.err("kth_dim", lambda: x.kthvalue(1, dim=2))
    rec.err("kth_float", lambda: x.kthvalue(1.0))
    rec.err("kth_empty", lambda: lib.empty(0, dtype=dt).kthvalue(1))
    rec.err("median_empty", lambda: lib.empty(0, dtype=dt).median())
    rec.err("median_empty_dim", lambda: lib.empty(2, 0, dtype=dt).median(dim=1))
    rec.err("median_dim", lambda: x.median(dim=3))
    rec.err("nanmedian_dim", lambda: x.nanmedian(-3))
    rec.err("mode_dim", lambda: x.mode(4))
    rec.err("mode_empty", lambda: lib.empty(2, 0, dtype=dt).mode(1))
    rec.err("median_bool", lambda: (x > 0).median())
    rec.err("msort_dim", lambda: lib.msort(x, 0))
    rec.err("sort_stable_pos", lambda: x.sort(0, False, True))
    rec.err("sort_dim", lambda: x.sort(dim=2))


def p_quantile_small(lib, dt, rec):
    """Tiny samples as users hit them: one element, two elements, a batch of pairs."""
    one = lib.tensor([3.5], dtype=dt)
    two = lib.tensor([1.0, 4.0], dtype=dt)
    qs = lib.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=dt)
    for interp in INTERPOLATIONS:
        rec(f"one.{interp}", lib.quantile(one, qs, interpolation=interp))
        rec(f"two.{interp}", lib.quantile(two, qs, interpolation=interp))
        rec(
            f"nan_two.{interp}",
            lib.nanquantile(lib.tensor([float("nan"), 2.0], dtype=dt), qs, interpolation=interp),
        )
    pairs = _randn(lib, dt, 50, 5, 2)
    rec("pairs", lib.quantile(pairs, 0.5, dim=1))
    rec("pairs_mean", pairs.mean(1))
    rec("median_pairs", pairs.median(1).values)
    rec("median_min", pairs.min(1).values)
    rec("x1", lib.quantile(_randn(lib, dt, 51, 1, 5), 0.5, dim=0))


def p_quantile_out_grad(lib, dt, rec):
    """quantile's out= is composite in torch (resize_ and copy_): out joins the graph."""
    x = _randn(lib, dt, 52, 4, 6).requires_grad_(True)
    out = lib.empty(0, dtype=dt)
    r = lib.quantile(x, lib.tensor([0.2, 0.7], dtype=dt), dim=1, out=out)
    rec("same", r is out)
    rec("fn", type(out.grad_fn).__name__)
    rec("next", type(out.grad_fn.next_functions[0][0]).__name__)
    (out * _randn(lib, dt, 53, 2, 4)).sum().backward()
    rec("g", x.grad)
    buf = lib.zeros(8, dtype=dt)
    lib.nanquantile(x, 0.5, dim=1, out=buf[::2])
    rec("view_fn", type(buf.grad_fn).__name__)
    buf.sum().backward()
    rec("g_view", x.grad)
    rec.warns("resized", lambda: lib.quantile(x.detach(), 0.5, dim=0, out=lib.empty(2, dtype=dt)))
    with lib.no_grad():
        o = lib.empty(0, dtype=dt)
        lib.quantile(x, 0.5, out=o)
        rec("no_grad", o)
        rec("no_grad_fn", str(o.grad_fn))
    leaf = lib.empty(4, dtype=dt, requires_grad=True)
    rec.err("leaf_out", lambda: lib.quantile(x, 0.5, dim=1, out=leaf))
    rec.err("leaf_out_nograd", lambda: lib.quantile(x.detach(), 0.5, dim=1, out=leaf))


def p_order_stat_nodes(lib, dt, rec):
    """The nodes of median, nanmedian, mode and kthvalue as graph drawers read them."""
    x = _randn(lib, dt, 54, 3, 5).requires_grad_(True)
    for name, fn in (
        ("median", lambda: x.median(-1)),
        ("median_keep", lambda: lib.median(x, 0, keepdim=True)),
        ("nanmedian", lambda: x.nanmedian(1)),
        ("mode", lambda: x.mode(-2)),
        ("kthvalue", lambda: x.kthvalue(2, 1, True)),
    ):
        v, i = fn()
        node = v.grad_fn
        rec(f"{name}.node", type(node).__name__)
        rec(f"{name}.saved", str([k for k in dir(node) if k.startswith("_saved_")]))
        rec(f"{name}.dim", node._saved_dim)
        rec(f"{name}.keepdim", node._saved_keepdim)
        rec(f"{name}.sizes", str(node._saved_self_sym_sizes))
        rec(f"{name}.indices", node._saved_indices.equal(i))
        rec(f"{name}.next", type(node.next_functions[0][0]).__name__)
    for name, fn in (("median_all", lambda: x.median()), ("nanmedian_all", lambda: x.nanmedian())):
        m = fn()
        node = m.grad_fn
        rec(f"{name}.node", type(node).__name__)
        rec(f"{name}.saved", str([k for k in dir(node) if k.startswith("_saved_")]))
        rec(f"{name}.self", node._saved_self is x)
        rec(f"{name}.result", node._saved_result.equal(m))
        rec(f"{name}.next", type(node.next_functions[0][0]).__name__)
    # the whole-tensor median saves its input: changed in place, the backward refuses
    m = x.median()
    with lib.no_grad():
        x.mul_(2)
    rec.err("stale", lambda: m.backward())
    y = _randn(lib, dt, 55, 2, 3, 4).requires_grad_(True)
    m = y.transpose(0, 2).median()
    rec("t_next", type(m.grad_fn.next_functions[0][0]).__name__)
    m.backward()
    rec("t_grad", y.grad)
    m = y.nanmedian()
    m.backward(retain_graph=True)
    m.backward()
    rec("twice", y.grad)
    m = y.median()
    m.backward()
    rec.err("freed", lambda: m.backward())


def p_nerf_sample_pdf(lib, dt, rec):
    """NeRF's hierarchical sampling: inverse-transform samples from a piecewise-constant pdf
    (cumsum, searchsorted(right=True), gather), differentiable in the bins."""
    n_rays, n_bins, n_samples = 4, 9, 7
    bins = lib.linspace(2.0, 6.0, n_bins + 1, dtype=dt).expand(n_rays, -1).contiguous()
    bins.requires_grad_(True)
    weights = _rand(lib, dt, 56, n_rays, n_bins) + 1e-5
    pdf = weights / weights.sum(-1, keepdim=True)
    cdf = lib.cumsum(pdf, -1)
    cdf = lib.cat([lib.zeros_like(cdf[..., :1]), cdf], -1)
    for det in (True, False):
        if det:
            # (mid-points: u = 0 or 1 would meet cdf's ends, whose last bit is rounding's)
            u = (lib.arange(n_samples, dtype=dt) + 0.5) / n_samples
            u = u.expand(n_rays, n_samples)
        else:
            u = _rand(lib, dt, 57, n_rays, n_samples)
        u = u.contiguous()
        inds = lib.searchsorted(cdf, u, right=True)
        below = lib.max(lib.zeros_like(inds - 1), inds - 1)
        above = lib.min((cdf.shape[-1] - 1) * lib.ones_like(inds), inds)
        inds_g = lib.stack([below, above], -1)
        shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
        cdf_g = lib.gather(cdf.unsqueeze(1).expand(shape), 2, inds_g)
        bins_g = lib.gather(bins.unsqueeze(1).expand(shape), 2, inds_g)
        denom = cdf_g[..., 1] - cdf_g[..., 0]
        denom = lib.where(denom < 1e-5, lib.ones_like(denom), denom)
        t = (u - cdf_g[..., 0]) / denom
        samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])
        rec(f"inds.{det}", inds)
        rec(f"samples.{det}", samples)
        z, _ = lib.sort(lib.cat([bins.detach(), samples.detach()], -1), -1)
        rec(f"z.{det}", z)
    samples.sum().backward()
    rec("g_bins", bins.grad)


def p_ensemble_intervals(lib, dt, rec):
    """Prediction intervals of an ensemble: quantiles over the member dim, a tensor of levels."""
    lib.manual_seed(4)
    members = [lib.nn.Linear(3, 2).to(dt) for _ in range(7)]
    x = _randn(lib, dt, 58, 10, 3)
    preds = lib.stack([m(x) for m in members])  # (M, N, 2)
    levels = lib.tensor([0.05, 0.5, 0.95], dtype=dt)
    q = lib.quantile(preds, levels, dim=0)  # (3, N, 2)
    rec("q", q)
    rec("width", q[2] - q[0])
    rec("median", preds.median(dim=0).values)
    rec("keep", lib.nanquantile(preds, levels, dim=0, keepdim=True).shape.numel())
    loss = (q[2] - q[0]).mean() + (q[1] - x[:, :2]).pow(2).mean()
    loss.backward()
    rec("g0", members[0].weight.grad)
    rec("g6", members[6].bias.grad)
    # normal-theory interval from the ensemble's mean and std, with Normal.icdf
    mu, sd = preds.mean(0), preds.std(0)
    normal = lib.distributions.Normal(mu.detach(), sd.detach())
    rec("icdf", lib.stack([normal.icdf(lib.tensor(p, dtype=dt)) for p in (0.05, 0.95)]))
    rec("cdf_at_q", normal.cdf(q[2].detach()))


def p_crps(lib, dt, rec):
    """CRPS of a sample forecast, in its sorted (order-statistic) form and its pairwise form."""
    samples = _randn(lib, dt, 59, 5, 12).requires_grad_(True)
    y = _randn(lib, dt, 60, 5)
    m = samples.shape[-1]
    term1 = (samples - y.unsqueeze(-1)).abs().mean(-1)
    term2 = (samples.unsqueeze(-1) - samples.unsqueeze(-2)).abs().mean((-1, -2)) / 2
    crps_pair = term1 - term2
    s, _ = samples.sort(-1)
    i = lib.arange(1, m + 1, dtype=dt)
    crps_sorted = term1 - ((2 * i - m - 1) * s).sum(-1) / (m * m)
    rec("pair", crps_pair)
    rec("sorted", crps_sorted)
    crps_sorted.sum().backward()
    rec("g", samples.grad)
    # the quantile-score decomposition: mean pinball loss over a level grid
    taus = (lib.arange(m, dtype=dt) + 0.5) / m
    qs = lib.quantile(samples.detach(), taus, dim=-1).transpose(0, 1)  # (5, m)
    rec("qs", qs)
    rec("qscore", 2 * _pinball(lib, qs, y, taus))


def p_discrete_ecdf(lib, dt, rec):
    """Counts data: an ECDF from unique(return_counts), stable argsort ranks of ties, mid-ranks."""
    k = lib.randint(0, 6, (40,), generator=_gen(lib, 61))
    vals, inv, counts = lib.unique(k, sorted=True, return_inverse=True, return_counts=True)
    rec("vals", vals)
    rec("counts", counts)
    ecdf = lib.cumsum(counts, 0).to(dt) / k.numel()
    rec("ecdf", ecdf)
    rec("at_data", ecdf[inv])
    order = lib.argsort(k, stable=True)
    rec("order", order)
    ranks = lib.empty_like(order)
    ranks[order] = lib.arange(k.numel())
    rec("ranks", ranks)
    # mid-ranks of ties: (first + last) / 2 from searchsorted on the sorted values
    srt = k[order].to(dt)
    lo = lib.searchsorted(srt, k.to(dt))
    hi = lib.searchsorted(srt, k.to(dt), right=True)
    rec("midrank", (lo + hi - 1).to(dt) / 2)
    rec("median", k.median())
    v, i = k.to(dt).kthvalue(20)
    rec("kth", v)
    rec("mode", k.mode().values)
    big = lib.randint(0, 5, (3, 200), generator=_gen(lib, 62))
    v, i = big.sort(dim=1, stable=True, descending=True)
    rec("big_i", i)
    rec("big_msort", lib.msort(big.t().to(dt)))
