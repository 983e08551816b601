"""Session 47 (helper keep): keepdim reductions of non-contiguous inputs laid out as torch's
(row-major for the result's shape, size-1 dims included), and grad_fn._saved_dim showing the
dims as the call gave them (sum, mean, the global-average pool, torch.select)."""

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import function

U64 = 1 << 64
OPS = ("sum", "amax", "amin", "prod", "nansum", "nanmean", "mean", "any", "all")


def row_major(shape):
    """torch's contiguous strides: each dim's the product of the sizes after it (0 as 1)."""
    strides, n = [], 1
    for s in reversed(shape):
        strides.append(n)
        n *= max(s, 1)
    return tuple(reversed(strides))


def layouts(dtype):
    g = np.random.RandomState(0)
    a = (g.randn(2, 4, 6, 5) * 3).astype(dtype)
    a[0, 1, 2, 3] = np.nan if np.dtype(dtype).kind == "f" else a[0, 1, 2, 3]
    x = torch.tensor(a)
    return {
        "contiguous": x,
        "transposed": x.transpose(1, 3),
        "channels_last": x.to(memory_format=torch.channels_last),
        "sliced": x[:, 1:3, ::2],
        "expanded": torch.tensor(a[:, :1]).expand(2, 4, 6, 5),
        "permuted": x.permute(3, 1, 0, 2),
    }


def reduce(op, x, dim, keepdim):
    if op == "prod" and isinstance(dim, tuple):  # (its dim is one int: the first given)
        dim = dim[0]
    if op in ("any", "all"):
        x = x > 0
    return getattr(torch, op)(x, dim, keepdim=keepdim)


class full_path:
    """The fast paths off, as a profile turns them (NOTE [ The no-grad fast path ])."""

    def __enter__(self):
        function.fast_path[0] = False

    def __exit__(self, *exc):
        function.fast_path[0] = True


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ("float32", "float16"))
def test_keepdim_results_are_row_major(op, dtype):
    """Every layout, dim spelling and path gives row-major strides; the fast path's values are
    the full path's bit for bit, and the contiguous input's up to summation order."""
    for name, x in layouts(dtype).items():
        ref_x = x.contiguous()
        for dim in (0, 1, -1, (1, 2), (-1, -3)):
            for keepdim in (True, False):
                want = reduce(op, ref_x, dim, keepdim)
                got = reduce(op, x, dim, keepdim)
                with full_path():
                    slow = reduce(op, x, dim, keepdim)
                for r in (got, slow):
                    assert r.stride() == row_major(r.shape), (op, name, dim, keepdim, r.stride())
                    assert r.dtype is want.dtype and r.shape == want.shape
                assert got.numpy().tobytes() == slow.numpy().tobytes(), (op, name, dim)
                tol = 2e-2 if dtype == "float16" else 1e-5
                np.testing.assert_allclose(
                    got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol, equal_nan=True
                )


@pytest.mark.parametrize("op", ("sum", "amax", "amin", "prod", "nansum", "nanmean", "mean"))
def test_keepdim_recorded_results_and_gradients(op):
    """The recorded path's result is row-major too, and its gradient is the one of the
    contiguous input's reduction (up to the product's order of multiplication)."""
    for name, x in layouts("float64").items():
        for dim in (1, -1, (1, 2)):
            for keepdim in (True, False):
                a = x.detach().requires_grad_()
                b = x.contiguous().requires_grad_()
                ra, rb = reduce(op, a, dim, keepdim), reduce(op, b, dim, keepdim)
                assert ra.stride() == row_major(ra.shape), (op, name, dim, keepdim)
                (ga,) = torch.autograd.grad(ra, a, torch.ones_like(ra) * 0.5)
                (gb,) = torch.autograd.grad(rb, b, torch.ones_like(rb) * 0.5)
                np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-12, equal_nan=True)


def test_brief_examples():
    x = torch.randn(2, 4, 6, 6).to(memory_format=torch.channels_last)
    assert x.sum(1, keepdim=True).stride() == (36, 36, 6, 1)
    assert x.amax(1, keepdim=True).stride() == (36, 36, 6, 1)
    assert (x > 0).any(1, keepdim=True).stride() == (36, 36, 6, 1)
    assert torch.randn(4, 3).t().prod(1, keepdim=True).stride() == (1, 1)
    assert torch.randn(4, 3).t().sum(0, keepdim=True).stride() == (4, 1)
    h = torch.randn(4, 3, dtype=torch.float16).t()
    assert h.prod(1, keepdim=True).stride() == (1, 1)


def test_contiguous_keepdim_result_is_not_copied():
    """A row-major input's keepdim sum is NumPy's result as it is (no copy on the common path)."""
    x = torch.randn(32, 32)
    r = x.sum(1, keepdim=True)
    assert r.stride() == (1, 1) and r._data.base is None
    assert r.numpy().tobytes() == x.sum(1).numpy().tobytes()


def _saved_dim(r):
    return r.grad_fn._saved_dim


@pytest.mark.parametrize(
    "call, want",
    [
        (lambda x: x.mean((-1, -2)), (U64 - 1, U64 - 2)),
        (lambda x: x.mean(-1), (U64 - 1,)),
        (lambda x: x.mean(-1, keepdim=True), (U64 - 1,)),
        (lambda x: x.mean([-1, 0]), (U64 - 1, 0)),
        (lambda x: x.mean((2, 0)), (2, 0)),
        (lambda x: x.mean(()), ()),
        (lambda x: x.mean(1), (1,)),
        (lambda x: x.mean(-1, dtype=torch.float16), (U64 - 1,)),
        (lambda x: x.mean(-1, dtype=torch.float64), (U64 - 1,)),
        (lambda x: x.mean(axis=(-1,)), (U64 - 1,)),
        (lambda x: x.sum((-1, -2)), (U64 - 1, U64 - 2)),
        (lambda x: x.sum(-3), (U64 - 3,)),
        (lambda x: x.sum([-1]), (U64 - 1,)),
        (lambda x: x.sum((2, 1)), (2, 1)),
        (lambda x: x.sum(()), ()),
        (lambda x: x.sum(1), (1,)),
        (lambda x: x.sum((0, 1, 2)), (0, 1, 2)),
        (lambda x: x.sum(-1, dtype=torch.float64), (U64 - 1,)),
        (lambda x: x.amax((-1, -2)), (U64 - 1, U64 - 2)),
        (lambda x: x.prod(-1), U64 - 1),
        (lambda x: x.std((-1, -2)), (U64 - 1, U64 - 2)),
        (lambda x: x.logsumexp(-1), (U64 - 1,)),
        (lambda x: x.nansum(-1), (U64 - 1,)),
    ],
)
def test_saved_dim_as_given(call, want):
    x = torch.randn(2, 3, 4, requires_grad=True)
    assert _saved_dim(call(x)) == want


def test_saved_dim_of_a_0d_reduction():
    s = torch.randn((), requires_grad=True)
    assert _saved_dim(s.sum(-1)) == (U64 - 1,)
    assert _saved_dim(s.mean(0)) == (0,)


def test_negative_dims_same_values_and_gradients():
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    for neg, pos in (((-1, -2), (2, 1)), (-1, 2), ([-1, 0], (0, 2))):
        for op in ("sum", "mean"):
            a, b = getattr(x, op)(neg), getattr(x, op)(pos)
            assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
            (ga,) = torch.autograd.grad(a.sum(), x)
            (gb,) = torch.autograd.grad(b.sum(), x)
            assert ga.numpy().tobytes() == gb.numpy().tobytes()
    with torch.no_grad():  # nothing recorded: no node to keep the dims on
        assert x.mean(-1).grad_fn is None and x.sum((-1, -2)).grad_fn is None


@pytest.mark.parametrize("n", (2, 3))
def test_global_average_pool_saved_dim(n):
    pool = getattr(torch.nn.functional, f"adaptive_avg_pool{n}d")
    want = tuple(U64 - k for k in range(1, n + 1))
    y = torch.randn(2, 3, 5, 5) if n == 2 else torch.randn(2, 3, 4, 5, 5)
    for size in (1, (1,) * n):
        for inp in (y, y.to(torch.bfloat16), y[0]):
            inp = inp.detach().requires_grad_()
            r = pool(inp, size)
            assert r.grad_fn.name() == "MeanBackward1"
            assert _saved_dim(r) == want
            (g,) = torch.autograd.grad(r.float().sum(), inp)
            assert g.shape == inp.shape
    assert pool(y.detach(), 1).grad_fn is None


def test_select_saved_dim():
    x = torch.randn(2, 3, 4, requires_grad=True)
    r = torch.select(x, -1, 2)
    assert (_saved_dim(r), r.grad_fn._saved_index) == (U64 - 1, 2)
    assert r.grad_fn._saved_self_sym_sizes == (2, 3, 4)
    assert _saved_dim(torch.select(x, np.int64(-2), 1)) == U64 - 2
    assert _saved_dim(torch.select(x, -3, -1)) == U64 - 3
    assert torch.select(x, -3, -1).grad_fn._saved_index == U64 - 1
    assert _saved_dim(torch.select(x, 1, 2)) == 1
    assert _saved_dim(torch.select(x, 2, -1)) == 2
    assert _saved_dim(x[..., 2]) == 2  # (the key's own dim)
    r = torch.select(x, -1, 2)
    assert r.detach().numpy().tobytes() == x.detach()[:, :, 2].numpy().tobytes()
    (g,) = torch.autograd.grad(r.sum(), x)
    assert g[:, :, 2].eq(1).all() and g[:, :, :2].eq(0).all()
    assert torch.select(x.detach(), -1, 2).grad_fn is None


def test_aminmax_and_count_nonzero_are_row_major():
    for name, x in layouts("float32").items():
        for dim in (0, 1, -1):
            for keepdim in (True, False):
                lo, hi = torch.aminmax(x, dim=dim, keepdim=keepdim)
                for r in (lo, hi):
                    assert r.stride() == row_major(r.shape), (name, dim, keepdim)
                ref = torch.aminmax(x.contiguous(), dim=dim, keepdim=keepdim)
                assert lo.numpy().tobytes() == ref[0].numpy().tobytes()
                assert hi.numpy().tobytes() == ref[1].numpy().tobytes()
            for d in (dim, (1, 2)):
                r = torch.count_nonzero(x, d)
                assert r.stride() == row_major(r.shape), (name, d)
                assert r.tolist() == torch.count_nonzero(x.contiguous(), d).tolist()


def test_tensor_select_method_keeps_a_negative_dim_as_given():
    # Tensor.select's own fast path (lead): a negative dim goes through torch.select
    x = torch.randn(4, 5, 6, requires_grad=True)
    assert x.select(-1, 2).grad_fn._saved_dim == 2**64 - 1
    assert x.select(1, -2).grad_fn._saved_dim == 1
    assert torch.equal(x.select(-1, 2), x[:, :, 2])
