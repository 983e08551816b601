"""Session 56, lead: x.logsumexp(dim=d) goes straight to the function's body (without the
NumPy-alias wrapper's relay), and logsumexp's finite shift clips with bounds of the array's
dtype: the same results, nodes, saved attributes and errors as torch.logsumexp(x, d)."""

import numpy as np
import pytest

import minitorch as torch
from minitorch._ops import reduction


@pytest.mark.parametrize("dim", [1, -1, 0, (0, 1), [1], (-2,)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_method_keyword_matches_function(dim, dtype):
    torch.manual_seed(0)
    x = torch.randn(4, 5, dtype=dtype, requires_grad=True)
    a = x.logsumexp(dim=dim)
    b = torch.logsumexp(x, dim)
    assert torch.equal(a, b) and a.dtype == b.dtype
    assert type(a.grad_fn).__name__ == "LogsumexpBackward0"
    assert a.grad_fn._saved_dim == b.grad_fn._saved_dim
    assert a.grad_fn._saved_keepdim is False
    (ga,) = torch.autograd.grad(a.sum(), x)
    (gb,) = torch.autograd.grad(b.sum(), x)
    assert torch.equal(ga, gb)
    with torch.no_grad():
        assert torch.equal(x.logsumexp(dim=dim), b)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("dim", ["a", 2.5, None, 5, (0, 0)])
def test_method_keyword_errors_match_function(dim):
    x = torch.randn(4, 5)
    assert _error(lambda: x.logsumexp(dim=dim)) == _error(lambda: torch.logsumexp(x, dim=dim))


def test_other_keywords_keep_the_wrapper():
    x = torch.randn(4, 5)
    want = torch.logsumexp(x, 1, keepdim=True)
    assert torch.equal(x.logsumexp(dim=1, keepdim=True), want)
    assert torch.equal(x.logsumexp(axis=1, keepdims=True), want)  # NumPy's spellings
    with pytest.raises(TypeError, match="out"):
        x.logsumexp(dim=1, out=torch.empty(4))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_finite_shift_bounds(dtype):
    inf = np.inf
    rows = np.array([[1.0, 2.0], [-inf, -inf], [inf, 1.0], [np.nan, 1.0], [inf, -inf]], dtype)
    got = torch.from_numpy(rows).logsumexp(dim=1).numpy()
    assert got.dtype == dtype
    np.testing.assert_allclose(got[0], np.log(np.exp(1.0) + np.exp(2.0)), rtol=1e-6)
    assert got[1] == -inf and got[2] == inf and np.isnan(got[3]) and got[4] == inf  # (torch)
    lo, hi = reduction._FINITE_MAX[np.dtype(dtype)]
    assert type(hi) is dtype and hi == np.finfo(dtype).max and lo == -hi
