"""Session 25, helper perf2: vectorised forms of slow ops keep their results (triangle indices,
combinations, embedding_bag's bag sums, tiling max pools, MultivariateNormal.log_prob,
nn.init.sparse_). Expected values: torch 2.13 literals or plain NumPy formulations."""

import itertools

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck


def _mask_indices(row, col, offset, lower):
    i, j = np.indices((row, col))
    keep = (j - i <= offset) if lower else (j - i >= offset)
    return np.stack([i[keep], j[keep]])


@pytest.mark.parametrize("lower", [False, True])
def test_triangle_indices_match_the_masked_grid(lower):
    fn = torch.tril_indices if lower else torch.triu_indices
    for row, col, offset in itertools.product(range(5), range(5), [-6, -2, -1, 0, 1, 3, 6, 2**62]):
        for dt, npdt in ((torch.int64, np.int64), (torch.int32, np.int32)):
            got = fn(row, col, offset, dtype=dt)
            want = _mask_indices(row, col, offset, lower).astype(npdt)
            assert got.dtype == dt and tuple(got.shape) == want.shape
            assert np.array_equal(got.numpy(), want)
    # torch 2.13
    assert torch.triu_indices(3, 4, 1).tolist() == [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    assert torch.tril_indices(4, 3, -1).tolist() == [[1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 2]]


@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_pairs(with_replacement):
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    for n in range(5):
        x = torch.arange(n, dtype=torch.float64) * 1.5 + 1
        got = torch.combinations(x, 2, with_replacement)
        want = [[1.5 * i + 1, 1.5 * j + 1] for i, j in pick(range(n), 2)]
        assert got.tolist() == want and tuple(got.shape) == (len(want), 2)
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    f = lambda v: torch.combinations(v, 2, with_replacement) ** 2  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def _bag_sums(w, idx, starts, psw):
    out = np.zeros((len(starts), w.shape[1]), w.dtype)
    ends = list(starts[1:]) + [len(idx)]
    for b, (s, e) in enumerate(zip(starts, ends, strict=True)):
        for p in range(s, e):  # added in position order, one after another
            out[b] = out[b] + w[idx[p]] * (1 if psw is None else psw[p])
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_bag_many_bags_sum_in_order(dtype):
    rng = np.random.default_rng(0)
    lens = rng.integers(0, 6, 300)  # many short bags (some empty): the padded reduction
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    idx = rng.integers(0, 50, int(lens.sum()))
    w = (rng.standard_normal((50, 7)) * 1000).astype(dtype)
    psw = rng.standard_normal(idx.size).astype(dtype)
    args = (torch.tensor(idx), torch.tensor(w), torch.tensor(starts))
    got = torch.nn.functional.embedding_bag(*args, mode="sum", per_sample_weights=torch.tensor(psw))
    assert np.array_equal(got.numpy(), _bag_sums(w, idx, starts, psw))
    got = torch.nn.functional.embedding_bag(*args, mode="sum")
    assert np.array_equal(got.numpy(), _bag_sums(w, idx, starts, None))
    got = torch.nn.functional.embedding_bag(*args, mode="max")
    for b, (s, e) in enumerate(zip(starts, list(starts[1:]) + [idx.size], strict=True)):
        want = w[idx[s:e]].max(0) if e > s else np.zeros(7, dtype)
        assert np.array_equal(got.numpy()[b], want)


def test_embedding_bag_sum_of_negative_zeros_is_zero():
    # torch 2.13: 0.0 (its sums start from zeros), where the scatter kept -0.0
    w = torch.full((5, 3), -0.0)
    out = torch.nn.functional.embedding_bag(
        torch.tensor([0, 1, 2, 3, 4, 0, 1, 2]), w, torch.arange(0, 8, 2), mode="sum"
    )
    assert out.eq(0).all() and not out.signbit().any()


def test_embedding_bag_many_bags_gradients():
    rng = np.random.default_rng(1)
    idx = torch.tensor(rng.integers(0, 6, 40))
    offsets = torch.arange(0, 40, 2)
    w = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
    psw = torch.randn(40, dtype=torch.float64, requires_grad=True)

    def f(w, psw):
        return torch.nn.functional.embedding_bag(
            idx, w, offsets, mode="sum", per_sample_weights=psw
        )

    assert gradcheck(f, (w, psw)) and gradgradcheck(f, (w, psw))


def _pool_reference(x, k):
    """max_pool1d with stride = kernel as torch's kernel picks: the first max, the last NaN."""
    o = x.shape[-1] // k
    win = x[..., : o * k].reshape(x.shape[:-1] + (o, k))
    tap = win.argmax(-1)
    nan = np.isnan(win)
    last_nan = k - 1 - nan[..., ::-1].argmax(-1)
    tap = np.where(nan.any(-1), last_nan, tap)
    vals = np.take_along_axis(win, tap[..., None], -1)[..., 0]
    return vals, tap + np.arange(o) * k


def test_global_max_pool_values_indices_and_nan():
    rng = np.random.default_rng(2)
    x = rng.integers(-3, 3, (2, 4, 53)).astype(np.float32)  # ties; a remainder of 5
    x.reshape(-1)[rng.integers(0, x.size, 6)] = np.nan
    v, i = torch.nn.functional.max_pool1d(torch.tensor(x), 16, return_indices=True)
    want_v, want_i = _pool_reference(x, 16)
    assert np.array_equal(v.numpy(), want_v, equal_nan=True)
    assert np.array_equal(i.numpy(), want_i)
    # torch 2.13
    y = torch.tensor([[[1.0, float("nan"), 3.0, float("nan")] + [0.0] * 12 + [5.0] * 16]])
    v, i = torch.nn.functional.max_pool1d(y, 16, return_indices=True)
    assert i.tolist() == [[[3, 16]]] and v[0, 0, 1].item() == 5.0 and v[0, 0, 0].isnan()
    v, i = torch.nn.functional.adaptive_max_pool1d(torch.tensor(x[..., :48]), 1, True)
    want_v, want_i = _pool_reference(x[..., :48], 48)
    assert np.array_equal(v.numpy(), want_v, equal_nan=True)
    assert np.array_equal(i.numpy(), want_i)


def test_global_max_pool_signed_zero_tie_takes_the_first():
    # torch 2.13: the value at the index (the first of the tied zeros)
    x = torch.tensor([[[-0.0, 0.0] * 8, [0.0, -0.0] * 8]])
    v, i = torch.nn.functional.max_pool1d(x, 16, return_indices=True)
    assert i.tolist() == [[[0], [0]]]
    assert v.signbit().tolist() == [[[True], [False]]]


def test_tiling_max_pool_gradients_2d_3d():
    rng = np.random.default_rng(3)
    x = torch.tensor(rng.standard_normal((2, 2, 9, 8)), requires_grad=True)
    f = lambda t: torch.nn.functional.max_pool2d(t, (4, 4))  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    g = torch.tensor(rng.standard_normal((2, 2, 2, 2)))
    (gx,) = torch.autograd.grad(f(x), x, g)
    want = np.zeros((2, 2, 9, 8))
    _, idx = torch.nn.functional.max_pool2d(x, (4, 4), return_indices=True)
    for c in range(2):
        for b in range(2):
            np.put(want[b, c], idx[b, c].numpy().reshape(-1), g[b, c].numpy().reshape(-1))
    assert np.array_equal(gx.numpy(), want)
    x3 = torch.tensor(rng.standard_normal((1, 2, 4, 4, 5)), requires_grad=True)
    f3 = lambda t: torch.nn.functional.max_pool3d(t, (2, 4, 2))  # noqa: E731
    assert gradcheck(f3, (x3,)) and gradgradcheck(f3, (x3,))
    x1 = torch.tensor(rng.standard_normal((2, 3, 40)), requires_grad=True)
    f1 = lambda t: torch.nn.functional.adaptive_max_pool1d(t, 2)  # noqa: E731
    assert gradcheck(f1, (x1,)) and gradgradcheck(f1, (x1,))


def test_multivariate_normal_log_prob_sample_dims_as_columns():
    tril = [
        [[1.0, 0, 0], [0.5, 2, 0], [0.1, 0.2, 1.5]],
        [[2.0, 0, 0], [0.0, 1, 0], [1, 1, 1]],
    ]
    d = torch.distributions.MultivariateNormal(
        torch.zeros(2, 3, dtype=torch.float64), scale_tril=torch.tensor(tril, dtype=torch.float64)
    )
    x = torch.tensor([[[1.0, 2, 3], [0.5, -1, 2]], [[0, 0, 0], [-1, -2, -3]]], dtype=torch.float64)
    got = d.log_prob(x).numpy()
    want = [[-6.317233443837683, -7.762462780173964], [-3.8554278882821276, -5.699962780173964]]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    # broadcast batch shapes against a per-element NumPy solve
    from minitorch.distributions.multivariate_normal import _batch_mahalanobis

    rng = np.random.default_rng(4)
    for lb, xb in (((), (7,)), ((2, 3), (4, 1, 3)), ((2, 1), (5, 2, 3)), ((3,), (3,))):
        L = np.tril(rng.standard_normal(lb + (3, 3))) + 3 * np.eye(3)
        v = rng.standard_normal(xb + (3,))
        batch = np.broadcast_shapes(lb, xb)
        Lb, vb = np.broadcast_to(L, batch + (3, 3)), np.broadcast_to(v, batch + (3,))
        want = np.zeros(batch)
        for ix in np.ndindex(*batch):
            want[ix] = (np.linalg.solve(Lb[ix], vb[ix]) ** 2).sum()
        got = _batch_mahalanobis(torch.tensor(L), torch.tensor(v))
        assert tuple(got.shape) == batch
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    L = torch.tensor(np.tril(rng.standard_normal((2, 3, 3))) + 3 * np.eye(3), requires_grad=True)
    v = torch.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)
    f = lambda a, b: _batch_mahalanobis(a.tril(), b)  # noqa: E731
    assert gradcheck(f, (L, v)) and gradgradcheck(f, (L, v))


def test_sparse_init_draws_as_torch():
    torch.manual_seed(0)
    w = torch.empty(6, 4)
    torch.nn.init.sparse_(w, 0.5, std=1.0)
    # torch 2.13
    zeros = [[1, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 1, 0]]
    assert (w == 0).int().tolist() == zeros
    np.testing.assert_array_equal(
        w[w != 0].numpy()[:4],
        np.array([-0.2505785822868347, -0.4338788092136383, 0.8487103581428528, 0.6920091509819031],
                 dtype=np.float32),
    )  # fmt: skip
    np.testing.assert_array_equal(
        torch.rand(2).numpy(), np.array([0.7262365221977234, 0.7010802030563354], np.float32)
    )
    for shape, sparsity in (((1, 5), 0.5), ((3, 0), 0.5), ((6, 4), 1.5), ((6, 4), -0.2)):
        torch.manual_seed(1)
        w = torch.empty(*shape)
        torch.nn.init.sparse_(w, sparsity)
        zero_per_col = (w == 0).sum(0).tolist()
        k = int(np.ceil(sparsity * shape[0]))
        assert zero_per_col == [len(range(shape[0])[:k])] * shape[1]
