"""linalg.lstsq by QR (NOTE [ lstsq by QR ] in minitorch/_ops/linalg_matfn.py): gelsy's full-rank
solution without an SVD, gels's residuals without a complete Q, and the fields torch fills."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch._ops import linalg_factor, linalg_matfn
from minitorch.autograd import gradcheck, gradgradcheck

# torch 2.13 (CPU), A = rng.standard_normal((5, 3)), B = rng.standard_normal((5, 2)), seed 17
TALL_X = [
    [0.20282147371216483, -0.47889683254594395],
    [-0.24273583810845398, -0.06418102973785642],
    [0.6096048021863038, -1.5944299439043734],
]
# A^T with B's first three rows: the minimum-norm solution
WIDE_X = [
    [-0.06914255638086317, -0.14032950350112783],
    [0.07600916646761396, -0.8928097048054107],
    [0.048553776490892736, -0.8310443301212515],
    [0.003663935042642563, 0.8407970562049922],
    [0.12845794901479665, 0.12711634924018067],
]
GELS_RESIDUALS = [0.17078246643676673, 1.4978035316561722]
# A with its third column replaced by the sum of the first two: rank 2
DEFICIENT_X = [
    [0.14158864997571885, -0.10291670505228775],
    [-0.21713456359782668, 0.0846832910880641],
    [-0.07554591362210782, -0.018233413964223684],
]


def _ab():
    rng = np.random.default_rng(17)
    return rng.standard_normal((5, 3)), rng.standard_normal((5, 2))


@pytest.fixture
def no_svd(monkeypatch):
    """Fails any lstsq that takes the SVD route."""

    def refuse(*args, **kwargs):
        raise AssertionError("the SVD route was taken")

    monkeypatch.setattr(linalg_matfn, "_pinv", refuse)


def _check(got, want, rtol, what):
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=rtol * np.abs(want).max(),
                               err_msg=what)  # fmt: skip


def test_gelsy_full_rank_values_of_torch_without_svd(no_svd):
    a, b = _ab()
    for driver in (None, "gelsy"):
        r = mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), driver=driver)
        _check(r.solution, TALL_X, 1e-13, "tall")
        assert r.rank.dtype is mt.int64 and r.rank.item() == 3
        assert r.residuals.shape == (0,) and r.singular_values.shape == (0,)
        w = mt.linalg.lstsq(mt.tensor(a.T.copy()), mt.tensor(b[:3]), driver=driver)
        _check(w.solution, WIDE_X, 1e-13, "wide")
        assert w.rank.item() == 3 and w.residuals.shape == (0,)


@pytest.mark.parametrize(
    "sa, sb",
    [
        ((40, 12), (40, 3)),  # tall
        ((12, 40), (12, 3)),  # wide: the minimum-norm solution
        ((9, 9), (9, 2)),
        ((4, 30, 8), (4, 30, 2)),  # batched
        ((4, 30, 8), (1, 30, 2)),  # B broadcast
        ((4, 8, 30), (4, 8)),  # a batch of vectors
        ((30, 8), (30,)),
        ((150, 100), (150, 5)),  # R inverted by halves
        ((100, 150), (100, 5)),
        ((6, 4), (6, 0)),
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gelsy_full_rank_shapes_without_svd(no_svd, sa, sb, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(dtype)
    b = rng.standard_normal(sb).astype(dtype)
    r = mt.linalg.lstsq(mt.from_numpy(a), mt.from_numpy(b))
    vec = len(sb) == len(sa) - 1
    bb = np.broadcast_to(b[..., None] if vec else b, sa[:-2] + (sa[-2], (b[..., None] if vec
                         else b).shape[-1]))  # fmt: skip
    a64 = a.astype(np.float64)
    want = np.linalg.pinv(a64) @ bb.astype(np.float64)
    want = want[..., 0] if vec else want
    assert r.solution.shape == want.shape and r.solution.dtype is getattr(mt, dtype)
    if want.size:
        _check(r.solution, want, 1e-12 if dtype == "float64" else 2e-5, f"{sa} {sb}")
    full = min(sa[-2:]) if sb[-1] else 0  # (torch's gelsy leaves the rank 0 for an empty B)
    np.testing.assert_array_equal(r.rank.numpy(), np.full(sa[:-2], full))
    assert r.residuals.shape == (0,) and r.singular_values.shape == (0,)


def test_gelsy_rank_deficient_and_ill_conditioned_fall_back_to_svd(monkeypatch):
    a, b = _ab()
    calls = []
    pinv = linalg_matfn._pinv
    monkeypatch.setattr(linalg_matfn, "_pinv", lambda *args: calls.append(1) or pinv(*args))
    mt.linalg.lstsq(mt.tensor(a), mt.tensor(b))
    assert not calls  # full rank: the QR vouches for it
    d = a.copy()
    d[:, 2] = d[:, 0] + d[:, 1]  # a plain QR's diagonal need not show this: the bound does
    r = mt.linalg.lstsq(mt.tensor(d), mt.tensor(b))
    _check(r.solution, DEFICIENT_X, 1e-10, "rank-deficient: the minimum-norm solution")
    assert r.rank.item() == 2 and len(calls) == 1
    c = a * np.array([1.0, 1.0, 1e-6])  # cond ~1e6: rank 2 in float32 (torch), 3 in float64
    assert mt.linalg.lstsq(mt.tensor(c, dtype=mt.float32), mt.tensor(b, dtype=mt.float32))[2] == 2
    assert mt.linalg.lstsq(mt.tensor(c), mt.tensor(b)).rank == 3
    assert mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), rcond=0.5).rank == 2  # torch's, too
    nan = a.copy()
    nan[1, 1] = float("nan")
    with pytest.raises(RuntimeError):  # (torch's MKL gelsy refuses it too: an internal assert)
        mt.linalg.lstsq(mt.tensor(nan), mt.tensor(b))


@pytest.mark.parametrize("sa, sb", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 3), (2, 4))])
def test_gelsy_gradients_through_qr(no_svd, sa, sb):
    g = np.random.default_rng(1)
    a = mt.tensor(g.standard_normal(sa), requires_grad=True)
    b = mt.tensor(g.standard_normal(sb), requires_grad=True)

    def f(x, y):
        return mt.linalg.lstsq(x, y).solution

    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))
    x = f(a, b)
    assert type(x.grad_fn).__name__ == "LinalgLstsqBackward0"
    x.sum().backward()
    # the gradient of pinv(A) b at full rank, with a B broadcast across A's batch
    assert a.grad.shape == sa and b.grad.shape == sb


def test_gels_residuals_from_r_of_a_and_b(monkeypatch):
    a, b = _ab()
    modes = []
    qr = linalg_factor.linalg_qr
    monkeypatch.setattr(linalg_factor, "linalg_qr", lambda x, mode="reduced": modes.append(mode)
                        or qr(x, mode))  # fmt: skip
    r = mt.linalg.lstsq(mt.tensor(a), mt.tensor(b), driver="gels")
    _check(r.solution, TALL_X, 1e-13, "gels")
    _check(r.residuals, GELS_RESIDUALS, 1e-12, "gels residuals")
    assert r.rank.shape == (0,) and r.singular_values.shape == (0,) and not modes
    # with a gradient: the residuals' value is the same, their gradient that of |A X - B|^2
    x = mt.tensor(a, requires_grad=True)
    y = mt.tensor(b, requires_grad=True)
    r = mt.linalg.lstsq(x, y, driver="gels")
    _check(r.residuals.detach(), GELS_RESIDUALS, 1e-12, "gels residuals with grad")
    assert "complete" not in modes

    def f(p, q):
        return tuple(mt.linalg.lstsq(p, q, driver="gels")[:2])

    assert gradcheck(f, (x, y)) and gradgradcheck(f, (x, y))
    # a batch of A against one B
    rng = np.random.default_rng(2)
    a3, b3 = rng.standard_normal((3, 7, 4)), rng.standard_normal((7, 2))[None]
    r = mt.linalg.lstsq(mt.tensor(a3), mt.tensor(b3), driver="gels")
    want = ((a3 @ np.linalg.pinv(a3) @ b3 - b3) ** 2).sum(-2)
    _check(r.residuals, want, 1e-12, "batched gels residuals")


def test_empty_fields_as_torch(device):
    # torch's gelsy leaves the rank 0 for an empty B; gels's residuals are 0 for an A without
    # columns (gelsd's are |B|^2)
    a = mt.tensor(np.random.default_rng(3).standard_normal((5, 3)), device=device)
    r = mt.linalg.lstsq(a, a.new_zeros((5, 0)))
    assert r.solution.shape == (3, 0) and r.rank.item() == 0
    r = mt.linalg.lstsq(a.new_ones((2, 6, 0)), a.new_ones((2, 6, 2)), driver="gels")
    assert r.solution.shape == (2, 0, 2)
    np.testing.assert_array_equal(r.residuals.cpu().numpy(), np.zeros((2, 2)))
    # full rank on every device: the same numbers as on the CPU
    b = mt.tensor(np.random.default_rng(4).standard_normal((5, 2)), device=device)
    for driver in ("gelsy", "gels"):
        got = mt.linalg.lstsq(a, b, driver=driver)
        want = mt.linalg.lstsq(a.cpu(), b.cpu(), driver=driver)
        for g, w in zip(got, want, strict=True):
            assert g.device == a.device
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-12, atol=1e-14)
