"""Adaptive pools with unequal windows: the max taken one dim at a time (_adaptive_argmax) and
the average's tap sums with the batch first (_tap_sums); index_reduce ('amax', 'amin', 'prod')
of whole rows through a key built from the 1-d index (IndexReduceRows). Values and indices as
torch's (literals from torch 2.13): a pool window holding several NaNs points at the last (the
former kernel: the first), the rest as the former kernels."""

import math

import numpy as np

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn._functional_pool import _adaptive_argmax, _adaptive_tables, _tap_sums

nan, inf = float("nan"), float("inf")


def _argmax_by_gather(a, have, out):
    """torch's rule, written out: every tap of every window in row-major order, the last NaN
    (a NaN replaces the running max), else the first max."""
    n = len(have)
    lead = a.shape[: a.ndim - n]
    flat = a.reshape((*lead, math.prod(have)))
    bounds = [
        [((i * L) // o, -(-((i + 1) * L) // o)) for i in range(o)]
        for L, o in zip(have, out, strict=True)
    ]
    res = np.zeros((*lead, *out), dtype=np.int64)
    for w in np.ndindex(*out):
        ranges = [range(*bounds[d][w[d]]) for d in range(n)]
        taps = [
            np.ravel_multi_index(tuple(ranges[d][q[d]] for d in range(n)), have)
            for q in np.ndindex(*[len(r) for r in ranges])
        ]
        cand = flat[..., taps]
        if cand.dtype.kind == "f":
            isnan = np.isnan(cand)
            last_nan = isnan.shape[-1] - 1 - np.argmax(isnan[..., ::-1], -1)
            pick = np.where(isnan.any(-1), last_nan, np.argmax(cand, -1))
        else:
            pick = np.argmax(cand, -1)
        res[(..., *w)] = np.asarray(taps)[pick]
    return res


def test_adaptive_max_pool2d_ties_nan_inf():
    x = torch.tensor(
        [[[3.0, 1.0, 3.0, nan, 2.0], [3.0, -inf, 5.0, 5.0, nan], [-inf, -inf, 0.0, -0.0, 1.0],
          [2.0, 2.0, 2.0, 2.0, 2.0]]]
    )  # fmt: skip
    v, i = F.adaptive_max_pool2d(x, (3, 3), return_indices=True)
    assert i.tolist() == [[[0, 3, 9], [5, 7, 9], [15, 16, 18]]]
    np.testing.assert_array_equal(
        v.numpy(), np.array([[[3.0, nan, nan], [3.0, 5.0, nan], [2.0, 2.0, 2.0]]])
    )


def test_adaptive_max_pool3d_nan():
    x = torch.arange(60.0).reshape(1, 3, 4, 5) % 7
    x[0, 1, 2, 3] = nan
    v, i = F.adaptive_max_pool3d(x, (2, 3, 2), return_indices=True)
    assert i.tolist() == [[[[6, 27], [6, 33], [12, 33]], [[20, 27], [27, 33], [55, 33]]]]
    np.testing.assert_array_equal(
        v.numpy(),
        np.array([[[[6, 6], [6, nan], [5, nan]], [[6, 6], [6, nan], [6, nan]]]], dtype=np.float32),
    )


def test_adaptive_argmax_matches_the_gather_rule():
    rng = np.random.default_rng(0)
    for _ in range(60):
        n = int(rng.integers(1, 4))
        have = tuple(int(v) for v in rng.integers(1, 8, n))
        out = tuple(int(rng.integers(1, L + 2)) for L in have)
        dt = str(rng.choice(["float32", "float64", "float16", "int64", "uint8"]))
        shape = (2, *have)
        a = rng.integers(-2, 3, shape).astype(np.float64)  # many ties
        if dt.startswith("float"):
            m = rng.random(shape)
            a[m < 0.1] = nan
            a[(m > 0.1) & (m < 0.2)] = -inf
            a[(m > 0.2) & (m < 0.25)] = -0.0
        a = a.astype(dt)
        got = _adaptive_argmax(np, a, have, out)
        np.testing.assert_array_equal(got, _argmax_by_gather(a, have, out))


def test_adaptive_max_pool_grads():
    x = torch.randn(2, 5, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    x.requires_grad_()
    assert gradcheck(lambda a: F.adaptive_max_pool2d(a, (3, 4)), (x,))
    assert gradgradcheck(lambda a: F.adaptive_max_pool2d(a, (3, 4)), (x,))


def test_tap_sums_batch_first():
    fwd = [_adaptive_tables(5, 3)[0], _adaptive_tables(4, 3)[0]]
    a = np.arange(2 * 3 * 5 * 4, dtype=np.float64).reshape(2, 3, 5, 4)
    r = _tap_sums(np, a, fwd)
    assert r.shape == (6, 3, 3)  # (B, R_1, R_2), the batch first
    # window (1, 2) of batch 4: rows 1..3, columns 2..3
    assert r[4, 1, 2] == a[1, 1, 1:4, 2:4].sum()


def test_adaptive_avg_pool2d_values_and_grad():
    a = torch.tensor([[[1.0, 2.0, 3.0, 4.0, 5.0], [0.5, -1.0, inf, 2.0, 3.0],
                       [1e30, 1e30, -2.0, 0.0, 7.0]]])  # fmt: skip
    np.testing.assert_array_equal(
        F.adaptive_avg_pool2d(a, (2, 3)).numpy(),
        np.array([[[0.625, inf, 3.5], [5.000000075237331e29, inf, 3.0]]], dtype=np.float32),
    )
    a2 = torch.arange(30.0).reshape(1, 5, 6).requires_grad_()
    g = torch.arange(12.0).reshape(1, 3, 4) / 8
    (ga,) = torch.autograd.grad(F.adaptive_avg_pool2d(a2, (3, 4)), a2, g)
    expected = [
        [0.0, 0.03125, 0.03125, 0.0625, 0.15625, 0.09375],
        [0.0833333358168602, 0.21875, 0.1354166567325592, 0.1875, 0.4270833134651184,
         0.2395833283662796],
        [0.0833333358168602, 0.1875, 0.1041666641831398, 0.125, 0.2708333134651184,
         0.1458333283662796],
        [0.3333333432674408, 0.71875, 0.3854166567325592, 0.4375, 0.9270833134651184,
         0.4895833134651184],
        [0.25, 0.53125, 0.28125, 0.3125, 0.65625, 0.34375],
    ]  # fmt: skip
    assert ga.tolist() == [expected]


def test_adaptive_avg_pool3d_grads():
    x = torch.randn(2, 4, 3, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    x.requires_grad_()
    assert gradcheck(lambda a: F.adaptive_avg_pool3d(a, (3, 2, 3)), (x,))
    assert gradgradcheck(lambda a: F.adaptive_avg_pool3d(a, (3, 2, 3)), (x,))


# --- index_reduce of whole rows (IndexReduceRows) ---

_IR_EXPECTED = {
    ("amax", True): [[1.0, 2.0, nan], [9.0, 5.0, inf], [0.5, 0.0, 7.0]],
    ("amax", False): [[-0.0, 2.0, nan], [9.0, 5.0, inf], [0.5, 0.0, 0.5]],
    ("amin", True): [[-0.0, 2.0, nan], [4.0, 5.0, -2.0], [-1.0, 0.0, 0.5]],
    ("amin", False): [[-0.0, 2.0, nan], [9.0, 5.0, -2.0], [0.5, 0.0, 0.5]],
    ("prod", True): [[-0.0, 2.0, nan], [36.0, 5.0, -inf], [-0.5, 0.0, 0.875]],
    ("prod", False): [[-0.0, 2.0, nan], [9.0, 5.0, -inf], [0.5, 0.0, 0.125]],
}


def test_index_reduce_rows_values(monkeypatch):
    from minitorch._ops import view_variants

    calls = []
    forward = view_variants.IndexReduceRows.forward

    def counted(ctx, *args, **kwargs):
        calls.append(kwargs["reduce"])
        return forward(ctx, *args, **kwargs)

    monkeypatch.setattr(view_variants.IndexReduceRows, "forward", staticmethod(counted))
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.0, 7.0]])
    s = torch.tensor([[2.0, -0.0, nan, 1.0], [3.0, 9.0, inf, -2.0], [0.5, 0.5, 0.5, 0.5]])
    idx = torch.tensor([2, 0, 2, 2])
    for (red, inc), want in _IR_EXPECTED.items():
        got = torch.index_reduce(x, 1, idx, s, red, include_self=inc).numpy()
        want = np.array(want, dtype=np.float32)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert calls == [red for red, _ in _IR_EXPECTED]
    x3 = torch.arange(24.0).reshape(2, 3, 4) - 10
    s3 = (torch.arange(16.0).reshape(2, 2, 4) - 5) / 2
    got = torch.index_reduce(x3, 1, torch.tensor([1, 1], dtype=torch.int32), s3, "prod")
    assert got.tolist() == [
        [[-10.0, -9.0, -8.0, -7.0], [-7.5, 0.0, 3.0, 3.0], [-2.0, -1.0, 0.0, 1.0]],
        [[2.0, 3.0, 4.0, 5.0], [31.5, 56.0, 90.0, 135.0], [10.0, 11.0, 12.0, 13.0]],
    ]
    xi = torch.tensor([[1, 5], [7, 2]])
    si = torch.tensor([[3, 3], [9, 0], [-4, 8]])
    got = torch.index_reduce(xi, 0, torch.tensor([1, 1, 0]), si, "amax", include_self=False)
    assert got.tolist() == [[-4, 8], [9, 3]]
    assert got.grad_fn is None and len(calls) == 8


def test_index_reduce_rows_grads():
    g = torch.Generator().manual_seed(2)
    x = torch.randn(3, 4, 2, dtype=torch.float64, generator=g).requires_grad_()
    s = torch.randn(3, 5, 2, dtype=torch.float64, generator=g).requires_grad_()
    idx = torch.tensor([3, 0, 3, 1, 0])
    for red in ("amax", "amin", "prod"):
        for inc in (True, False):

            def f(a, b, red=red, inc=inc):
                return torch.index_reduce(a, 1, idx, b, red, include_self=inc)

            assert f(x, s).grad_fn.name() == "IndexReduceBackward0"
            assert gradcheck(f, (x, s))
            assert gradgradcheck(f, (x, s))
