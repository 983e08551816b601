"""Session 25 (perf): faster kernels that must give the old results bit for bit.

topk by a partition instead of a full sort, prelu / smooth_l1 / huber by branch-free selects,
and a gather along one axis (index_select / x[:, :, idx] / linear interpolation) by take.
Each expected value is the old implementation's (a stable sort for topk, NumPy's where and
indexing for the others)."""

import numpy as np
import pytest

import minitorch
from minitorch._ops.sorting import _topk_index
from minitorch.autograd import gradcheck, gradgradcheck

F = minitorch.nn.functional


def _stable_topk_index(a, k, dim, largest):
    """The old topk: the first k of a stable sort (ties in input order, nan the largest)."""
    if largest:
        n = a.shape[dim]
        rev = np.flip(a, axis=dim)
        idx = (n - 1) - np.flip(np.argsort(rev, axis=dim, kind="stable"), axis=dim)
    else:
        idx = np.argsort(a, axis=dim, kind="stable")
    return np.take(idx, np.arange(k), axis=dim)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "float16"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_partition_matches_stable_sort(dtype, largest):
    rng = np.random.RandomState(0)
    for trial in range(40):
        shape = (3, 5, 64) if trial % 2 else (70, 4)
        a = rng.randint(0, 6, size=shape).astype(np.float64)
        if dtype.startswith("float"):
            m = rng.rand(*shape)
            a[m < 0.1] = np.nan
            a[(m > 0.1) & (m < 0.2)] = -0.0
            a[(m > 0.2) & (m < 0.25)] = np.inf
        a = a.astype(dtype)
        dim = trial % len(shape)
        k = 1 + trial % max(1, shape[dim] // 4)  # (k > n / 4: the sort path)
        got = minitorch.topk(minitorch.tensor(a), k, dim, largest)
        want = _stable_topk_index(a, k, dim, largest)
        # the partition kernel gives the stable sort's indices; topk then replays torch's
        # choice among ties (session 31), which picks other indices of the same values
        np.testing.assert_array_equal(_topk_index(np, a, dim, k, largest), want)
        np.testing.assert_array_equal(got.values.numpy(), np.take_along_axis(a, want, dim))
        np.testing.assert_array_equal(np.take_along_axis(a, got.indices.numpy(), dim),
                                      got.values.numpy())  # fmt: skip
        assert got.indices.numpy().flags.c_contiguous and got.indices.stride()[-1] == 1


def test_topk_literals_and_ties():
    # k <= n / 4 takes the partition path: nan first, then one of the 3s: torch 2.13's (its
    # nth_element's) choice among the ties, as topk gives since session 31
    x = minitorch.tensor([1.0, 3.0, float("nan"), 3.0, 2.0, 3.0, 0.0, 1.0])
    r = minitorch.topk(x, 2)
    assert r.indices.tolist() == [2, 5]
    assert r.values.tolist()[1] == 3.0
    r = minitorch.topk(x, 2, largest=False)
    assert r.indices.tolist() == [6, 0] and r.values.tolist() == [0.0, 1.0]


def test_topk_gradients():
    x = minitorch.randn(3, 40, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: minitorch.topk(t, 5, 1).values, (x,))
    assert gradgradcheck(lambda t: minitorch.topk(t, 5, 1).values, (x,))
    assert gradcheck(
        lambda t: minitorch.topk(t, 3, 0, largest=False).values,
        (x.detach().T.contiguous().requires_grad_(),),
    )


def _big(seed, *shape, dtype=np.float32):
    rng = np.random.RandomState(seed)
    a = rng.randn(*shape).astype(dtype)
    a.ravel()[:7] = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -1e-40]
    return a


def test_prelu_branch_free_same_bits():
    a = _big(0, 8, 3, 16, 16)
    w = np.array([0.25, -1.5, np.inf], dtype=np.float32)
    x = minitorch.tensor(a, requires_grad=True)
    wt = minitorch.tensor(w, requires_grad=True)
    out = F.prelu(x, wt)
    ref = np.where(a > 0, a, a * w[:, None, None])
    np.testing.assert_array_equal(out.detach().numpy().view(np.int32), ref.view(np.int32))
    g = _big(1, 8, 3, 16, 16)
    out.backward(minitorch.tensor(g))
    ga = np.where(a > 0, g, g * w[:, None, None])
    gw = np.where(a > 0, np.float32(0), g * a).sum((0, 2, 3))
    np.testing.assert_array_equal(x.grad.numpy().view(np.int32), ga.view(np.int32))
    np.testing.assert_allclose(wt.grad.numpy(), gw, rtol=1e-5)


def test_prelu_gradcheck():
    x = minitorch.randn(4, 3, 20, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.tensor([0.3, -0.2, 1.5], dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


@pytest.mark.parametrize("name, arg", [("smooth_l1_loss", "beta"), ("huber_loss", "delta")])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_regression_losses_branch_free_same_bits(name, arg, dtype):
    a, b = _big(2, 64, 100, dtype=dtype), _big(3, 64, 100, dtype=dtype)
    got = getattr(F, name)(minitorch.tensor(a), minitorch.tensor(b), reduction="none", **{arg: 0.7})
    d = np.abs(a - b)
    if name == "smooth_l1_loss":
        ref = np.where(d < 0.7, d * d * (0.5 / 0.7), d - 0.5 * 0.7)
    else:
        ref = np.where(d < 0.7, d * d * 0.5, (d - 0.5 * 0.7) * 0.7)
    ints = np.int32 if dtype == np.float32 else np.int64
    np.testing.assert_array_equal(got.numpy().view(ints), ref.astype(dtype).view(ints))
    x = minitorch.randn(6, 50, dtype=minitorch.float64, requires_grad=True)
    t = minitorch.randn(6, 50, dtype=minitorch.float64)
    assert gradcheck(lambda x: getattr(F, name)(x, t, **{arg: 0.7}), (x,))


def test_gather_along_one_axis_by_take():
    a = _big(4, 16, 8, 64)
    idx = np.random.RandomState(5).randint(-64, 64, size=200)
    x = minitorch.tensor(a)
    i = minitorch.tensor(idx)
    for got in (x[:, :, i], minitorch.index_select(x, 2, i % 64)):
        np.testing.assert_array_equal(got.numpy().view(np.int32), a[:, :, idx % 64].view(np.int32))
        assert got.is_contiguous() and got.stride() == (1600, 200, 1)
    i2 = minitorch.tensor(idx.reshape(20, 10) % 8)
    got = x[:, i2]
    assert got.shape == (16, 20, 10, 64) and got.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), a[:, idx.reshape(20, 10) % 8])
    with pytest.raises(IndexError, match="index 64 is out of bounds for dimension 0 with size 64"):
        x[:, :, minitorch.full((100,), 64)]
    xg = minitorch.randn(3, 4, 30, dtype=minitorch.float64, requires_grad=True)
    j = minitorch.tensor(np.random.RandomState(6).randint(0, 30, size=90))
    assert gradcheck(lambda t: t[:, :, j], (xg,))
    assert gradgradcheck(lambda t: minitorch.index_select(t, 2, j), (xg,))


def test_linear_interpolate_values():
    # torch 2.13: F.interpolate(torch.arange(4.).reshape(1, 1, 4), scale_factor=2,
    # mode="linear").tolist()
    x = minitorch.arange(4.0).reshape(1, 1, 4)
    got = F.interpolate(x, scale_factor=2, mode="linear")
    assert got.tolist() == [[[0.0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.0]]]
    z = minitorch.randn(2, 3, 40, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda t: F.interpolate(t, scale_factor=2, mode="linear"), (z,))
