"""Session 26, perf7: faster kernels keep their results. pdist p = 1 by row blocks
(NOTE [ pdist p = 1 by row blocks ]) and triangular solves by diagonal blocks (NOTE [ Triangular
solves by blocks ]). Expected values from torch 2.13 are literals; speed is not asserted."""

import numpy as np
import pytest

import minitorch
from minitorch._ops import linalg_solve
from minitorch._ops.distance import PairSignDot, PairSignSum, PairwiseDistance1
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional


def _old_pdist1(a):
    """The former path: all pairs gathered, then vector_norm's sum of |differences|."""
    i, j = np.triu_indices(a.shape[0], 1)
    return np.add.reduce(np.abs(a[i] - a[j]), axis=-1)


def _old_pdist1_grad(a, g):
    i, j = np.triu_indices(a.shape[0], 1)
    s = np.sign(a[i] - a[j]) * g[:, None]
    out = np.zeros_like(a)
    np.add.at(out, i, s)
    np.add.at(out, j, -s)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, m", [(2, 1), (7, 3), (300, 64)])
def test_pdist_p1_blocks_keep_digits(n, m, dtype):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, m)).astype(dtype)
    a[1] = a[0]  # a zero distance
    a[-1, 0] = a[0, 0]  # a tied coordinate
    x = minitorch.tensor(a, requires_grad=True)
    out = F.pdist(x, 1.0)
    assert out.grad_fn.name() == "PdistBackward0"
    # the same differences and sums: the same bits
    np.testing.assert_array_equal(out.detach().numpy(), _old_pdist1(a))
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(minitorch.tensor(g))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(x.grad.numpy(), _old_pdist1_grad(a, g), rtol=tol, atol=tol)


def test_pdist_p1_matches_torch():
    x = minitorch.tensor(
        [[0.0, 1, 2], [1, 1, 0], [0, 3, 2], [2, -1, 0.5]],
        dtype=minitorch.float64,
        requires_grad=True,
    )
    out = F.pdist(x, 1)
    np.testing.assert_array_equal(out.detach().numpy(), [3.0, 2.0, 5.5, 5.0, 3.5, 7.5])
    out.backward(minitorch.tensor([1.0, 2, 3, 4, 5, 6], dtype=minitorch.float64))
    expected = [[-4.0, 1, 4], [0, 1, -10], [-10, 12, 10], [14, -14, -4]]
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_pdist_p1_kernels_and_derivatives():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 4))
    x = minitorch.tensor(a, requires_grad=True)
    np.testing.assert_array_equal(PairwiseDistance1.apply(x).detach().numpy(), _old_pdist1(a))
    w = rng.standard_normal(15)
    got = PairSignSum.apply(minitorch.tensor(w), x).detach().numpy()
    np.testing.assert_allclose(got, _old_pdist1_grad(a, w), rtol=1e-12, atol=1e-12)
    # PairSignDot is PairSignSum's adjoint: <PairSignSum(w), h> == <w, PairSignDot(h)>
    h = rng.standard_normal((6, 4))
    dot = PairSignDot.apply(minitorch.tensor(h), x).detach().numpy()
    np.testing.assert_allclose((got * h).sum(), (w * dot).sum(), rtol=1e-12)
    f = lambda t: F.pdist(t, 1.0)  # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_pdist_p1_nan_and_empty():
    x = minitorch.tensor([[0.0, float("nan")], [1.0, 2.0], [3.0, 1.0]], requires_grad=True)
    out = F.pdist(x, 1.0)
    np.testing.assert_array_equal(out.detach().numpy(), [np.nan, np.nan, 3.0])
    out.sum().backward()
    assert np.isnan(x.grad.numpy()[:, 1]).all() and not np.isnan(x.grad.numpy()[:, 0]).any()
    assert F.pdist(minitorch.zeros(3, 0), 1.0).tolist() == [0.0, 0.0, 0.0]
    assert F.pdist(minitorch.zeros(1, 3), 1.0).shape == (0,)


# torch.linalg.solve_triangular of _A (upper), _A^T (lower) and with left=False
_A = [
    [2.0, 1, -1, 0.5, 3],
    [0, 3, 1, 2, -1],
    [0, 0, -1.5, 1, 2],
    [0, 0, 0, 4, 1],
    [0, 0, 0, 0, 0.5],
]
_B = [[1.0, 2], [0, -1], [3, 1], [1, 1], [2, 0]]
_UPPER = [[-625 / 144, 41 / 48], [8 / 9, -1 / 3], [17 / 6, -0.5], [-0.75, 0.25], [4.0, 0.0]]
_LOWER = [
    [0.5, 1.0],
    [-1 / 6, -2 / 3],
    [-22 / 9, -16 / 9],
    [127 / 144, 65 / 72],
    [625 / 72, -73 / 36],
]


@pytest.mark.parametrize("block", [1, 2, 64])
def test_solve_triangular_by_blocks_matches_torch(monkeypatch, block):
    monkeypatch.setattr(linalg_solve, "_TRI_BLOCK", block)  # small blocks on a small matrix
    A = minitorch.tensor(_A, dtype=minitorch.float64)
    B = minitorch.tensor(_B, dtype=minitorch.float64)
    st = minitorch.linalg.solve_triangular
    np.testing.assert_allclose(st(A, B, upper=True).numpy(), _UPPER, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(st(A.mT, B, upper=False).numpy(), _LOWER, rtol=1e-12, atol=1e-12)
    got = st(A, B.mT, upper=True, left=False).numpy()
    np.testing.assert_allclose(got, np.array(_LOWER).T, rtol=1e-12, atol=1e-12)
    a = minitorch.tensor(np.array(_A), requires_grad=True)
    b = minitorch.tensor(np.array(_B), requires_grad=True)
    for upper in (True, False):
        f = lambda a, b, u=upper: st(a if u else a.mT, b, upper=u)  # noqa: E731
        assert gradcheck(f, (a, b))
        assert gradgradcheck(f, (a, b))


def test_blocked_substitute_batches_and_dtypes():
    rng = np.random.default_rng(3)
    n = 2 * linalg_solve._TRI_BLOCK + 13  # the blocked path, a partial last block
    a = rng.uniform(-1, 1, (2, 1, n, n)) + 3 * np.eye(n)
    b = rng.uniform(-1, 1, (3, n, 4))
    for upper in (True, False):
        t = np.triu(a) if upper else np.tril(a)
        got = linalg_solve._blocked_substitute(np, t, b, upper)
        assert got.shape == (2, 3, n, 4) and got.dtype == np.float64
        np.testing.assert_allclose(got, np.linalg.solve(t, b), rtol=1e-11, atol=1e-11)
        out = minitorch.linalg.solve_triangular(
            minitorch.tensor(a), minitorch.tensor(b), upper=upper
        )
        np.testing.assert_allclose(out.numpy(), np.linalg.solve(t, b), rtol=1e-11, atol=1e-11)
    t32 = np.triu(a[0, 0]).astype(np.float32)
    got = minitorch.linalg.solve_triangular(
        minitorch.tensor(t32), minitorch.tensor(b[0].astype(np.float32)), upper=True
    )
    assert got.dtype == minitorch.float32
    exact = np.linalg.solve(t32.astype(np.float64), b[0])
    np.testing.assert_allclose(got.numpy(), exact, rtol=1e-4, atol=1e-4)


def test_blocked_solve_zero_pivot_falls_back():
    # a zero on the diagonal: the general solve refuses, the substitution gives torch's inf/nan
    n = 2 * linalg_solve._TRI_BLOCK + 5
    a = np.triu(np.ones((n, n))) + np.eye(n)
    a[n - 3, n - 3] = 0.0
    out = minitorch.linalg.solve_triangular(
        minitorch.tensor(a), minitorch.ones(n, 1, dtype=minitorch.float64), upper=True
    ).numpy()
    np.testing.assert_array_equal(out[n - 4 :, 0], [-np.inf, np.inf, 0.25, 0.5])  # torch's
    assert np.isnan(out[: n - 4, 0]).all()


def test_block_diag_one_kernel_matches_torch():
    from minitorch._ops.linalg_more import BlockDiag

    parts = (
        minitorch.tensor(2),
        minitorch.tensor([1.5, 2.0]),
        minitorch.tensor([[1, 2], [3, 4]]),
        minitorch.empty(0, 2),
        minitorch.tensor([[True]]),
    )
    out = minitorch.block_diag(*parts)
    assert out.dtype == minitorch.float32 and out.shape == (5, 8)
    expected = np.zeros((5, 8), np.float32)
    expected[0, 0], expected[1, 1:3], expected[4, 7] = 2, [1.5, 2], 1
    expected[2:4, 3:5] = [[1, 2], [3, 4]]
    np.testing.assert_array_equal(out.numpy(), expected)
    a = minitorch.tensor([[1.0, 2], [3, 4]], requires_grad=True)
    b = minitorch.tensor([5.0], requires_grad=True)
    out = minitorch.block_diag(a, b)
    assert out.grad_fn.name() == "BlockDiagBackward0"
    out.backward(minitorch.arange(9.0).reshape(3, 3))
    assert a.grad.tolist() == [[0.0, 1.0], [3.0, 4.0]] and b.grad.tolist() == [8.0]
    rng = np.random.default_rng(4)
    blocks = [
        minitorch.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((2, 3), (1, 1), (3, 2))
    ]
    direct = BlockDiag.apply(*blocks)
    np.testing.assert_array_equal(direct.detach().numpy()[2:3, 3:4], blocks[1].detach().numpy())
    assert gradcheck(lambda *t: minitorch.block_diag(*t), tuple(blocks))
    assert gradgradcheck(lambda *t: minitorch.block_diag(*t), tuple(blocks))


def test_searchsorted_rows_by_numpy_match_torch():
    from minitorch._ops import sorting

    seq = minitorch.tensor([[0.0, 1, 1, 2, 5], [-1, 0, 0, 0, 3]])
    vals = [[1.0, -3, 5, 0.5, 2, 9] + [1.0] * 26, [0.0, 3, -1, 7, 0.1, -2] + [0.0] * 26]
    v = minitorch.tensor(vals)
    assert sorting._rows_by_numpy(seq, seq._data, v._data)  # 32 values a row: the row loop
    left = minitorch.searchsorted(seq, v)
    assert left.dtype == minitorch.int64 and left.shape == (2, 32)
    assert left[:, :6].tolist() == [[1, 0, 4, 1, 3, 5], [1, 4, 0, 5, 4, 0]]
    assert left[:, 6:].tolist() == [[1] * 26, [1] * 26]
    right = minitorch.searchsorted(seq, v, right=True, out_int32=True)
    assert right.dtype == minitorch.int32
    assert right[:, :6].tolist() == [[3, 0, 5, 1, 4, 5], [4, 5, 1, 5, 4, 0]]
    # the same points as bisect (torch's search) on sorted rows, integer rows too
    rng = np.random.default_rng(5)
    for dt in (np.float32, np.int64):
        s = np.sort(rng.integers(-20, 20, (3, 4, 50)).astype(dt), axis=-1)
        q = rng.integers(-25, 25, (3, 4, 64)).astype(dt)
        for r in (False, True):
            got = minitorch.searchsorted(minitorch.tensor(s), minitorch.tensor(q), right=r)
            np.testing.assert_array_equal(got.numpy(), sorting.bisect(np, s, q, r))
    # a row ending in NaN keeps torch's search (bisect)
    seq = minitorch.tensor([[0.0, 1, float("nan")], [0, 1, 2]])
    v = minitorch.tensor([[0.5] * 40, [1.5] * 40])
    assert not sorting._rows_by_numpy(seq, seq._data, v._data)
    assert minitorch.searchsorted(seq, v)[:, :2].tolist() == [[1, 1], [2, 2]]
