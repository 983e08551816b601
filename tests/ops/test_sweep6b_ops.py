"""Sweep 6b follow-ups: logcumsumexp's nan gradients, sort/selection argument checks, var/std's
unbiased, trapezoid dtypes, softmax gradient layout, clamp's node name, silent prod."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

INF, NAN = float("inf"), float("nan")


# --- logcumsumexp backward: nan where torch's is nan, finite values unchanged ---


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(
    "row, expected",
    [
        ([-INF, -INF, 1.0, 2.0], [NAN, NAN, 4.0757656, 2.9242344]),
        ([-INF, -INF, -INF], [NAN, NAN, NAN]),
        ([1.0, NAN, 2.0], [NAN, NAN, NAN]),
        ([NAN, 1.0], [NAN, NAN]),
        ([-INF, INF, 1.0], [NAN, NAN, 0.0]),
        ([1.0, INF, 2.0], [1.0, NAN, 0.0]),
        ([1.0, -INF, 2.0], [3.8068244, 0.0, 2.1931756]),
    ],
)
def test_logcumsumexp_backward_nan_like_torch(row, expected, dtype):
    x = torch.tensor([row], dtype=dtype, requires_grad=True)
    upstream = torch.arange(1.0, len(row) + 1, dtype=dtype).reshape(1, -1)
    torch.logcumsumexp(x, dim=1).backward(upstream)
    np.testing.assert_allclose(x.grad.numpy()[0], expected, rtol=1e-5, err_msg=str(row))


def test_logcumsumexp_backward_infinite_upstream_stays_in_its_prefix():
    # an inf grad_0 only reaches position 0 (torch: [inf, 0.731, 0]), not 0 * inf = nan later
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(x, 0).backward(torch.tensor([INF, 1.0, 0.0], dtype=torch.float64))
    np.testing.assert_allclose(x.grad.numpy(), [INF, 0.7310585786300048, 0.0], rtol=1e-12)


def test_logcumsumexp_backward_dim0_and_finite_gradients():
    x = torch.tensor(
        [[-INF, 1.0], [2.0, -INF], [-INF, -INF]], dtype=torch.float64, requires_grad=True
    )
    torch.logcumsumexp(x, 0).backward(torch.ones(3, 2, dtype=torch.float64))
    np.testing.assert_allclose(x.grad.numpy(), [[NAN, 3.0], [2.0, 0.0], [0.0, 0.0]], rtol=1e-12)
    gen = np.random.default_rng(0)
    a = torch.tensor(gen.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: torch.logcumsumexp(t, 1), (a,))
    assert gradgradcheck(lambda t: torch.logcumsumexp(t, 0), (a,))


# --- argument checks of the sorting and order-statistic ops ---

_X = [5.0, 2.0, 7.0, 1.0]


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda x: torch.kthvalue(x, 2.0),
            "kthvalue\\(\\): argument 'k' \\(position 2\\) must be int, not float",
        ),
        (lambda x: torch.kthvalue(x, None), "argument 'k' .* not NoneType"),
        (lambda x: torch.kthvalue(x, True), "argument 'k' .* not bool"),
        (lambda x: torch.kthvalue(x, 2, keepdim=1), "argument 'keepdim' must be bool, not int"),
        (lambda x: torch.median(x, 0.0), "median\\(\\): argument 'dim' \\(position 2\\) must be"),
        (
            lambda x: torch.median(x, None),
            "median\\(\\): argument 'dim' \\(position 2\\) must be int, not NoneType",
        ),
        (
            lambda x: x.nanmedian(None),
            "nanmedian\\(\\): argument 'dim' \\(position 1\\) must be int, not NoneType",
        ),
        (lambda x: x.median(dim=None), "median\\(\\): argument 'dim' must be int, not NoneType"),
        (lambda x: torch.median(x, True), "argument 'dim' \\(position 2\\) must be int, not bool"),
        (lambda x: torch.median(x, 0, 1), "argument 'keepdim' \\(position 3\\) must be bool, not"),
        (lambda x: x.cummax(0.0), "cummax\\(\\): argument 'dim' \\(position 1\\) must be int"),
        (lambda x: torch.cummin(x, True), "argument 'dim' \\(position 2\\) must be int, not bool"),
        (lambda x: torch.topk(x, 2, largest=None), "topk\\(\\): argument 'largest' must be bool"),
        (lambda x: x.topk(2, sorted=0), "argument 'sorted' must be bool, not int"),
        (lambda x: torch.sort(x, descending=None), "sort\\(\\) received an invalid combination"),
        (lambda x: x.sort(0, 1), "got \\(int, int\\)"),  # a method's: no Tensor
        (lambda x: torch.sort(x, stable=1), "stable=int"),
        (lambda x: torch.argsort(x, stable=None), "argsort\\(\\) received an invalid combination"),
        (lambda x: x.sort(0, stable=True), "got \\(int, stable=bool\\)"),
        (lambda x: torch.sort(x, 0, stable=True), "invalid combination"),
        (lambda x: x.argsort(0, stable=True), "argsort\\(\\) received an invalid combination"),
        (lambda x: torch.argsort(x, 0, True, stable=True), "takes from 2 to 1 positional"),
        (lambda x: x.var(0, 0), "var\\(\\) received an invalid combination.* got \\(int, int\\)"),
        (lambda x: x.std(0, 1), "std\\(\\) received an invalid combination"),
        (lambda x: torch.var(x, 0, True, 1), "got \\(Tensor, int, bool, int\\)"),
        (lambda x: torch.var_mean(x, 0, 0), "var_mean\\(\\) received"),
    ],
)
def test_argument_type_errors_like_torch(call, match):
    with pytest.raises(TypeError, match=match):
        call(torch.tensor(_X))


def test_accepted_argument_forms_still_work():
    x = torch.tensor([[0.5, 0.1, 0.5], [0.2, 0.2, 0.9]])
    asc, desc = [[1, 0, 2], [0, 1, 2]], [[0, 2, 1], [2, 0, 1]]
    assert torch.sort(x, dim=1, stable=True).indices.tolist() == asc
    assert torch.sort(x, stable=True, dim=1, descending=True).indices.tolist() == desc
    assert x.sort(1, True).indices.tolist() == desc
    assert x.sort(stable=None).indices.tolist() == asc
    assert torch.argsort(x, 1, True).tolist() == desc
    assert x.argsort(dim=1, stable=True).tolist() == asc
    v = torch.tensor(_X)
    assert torch.kthvalue(v, np.int64(2)).values.item() == 2.0
    assert torch.median(v).item() == 2.0 and torch.median(v, 0).indices.item() == 1
    assert torch.topk(v, 2, largest=False).values.tolist() == [1.0, 2.0]
    np.testing.assert_allclose(v.var(0, False).item(), np.var(_X), rtol=1e-6)


# --- trapezoid dtypes and 0-d y ---


@pytest.mark.parametrize("xdt", [torch.float16, torch.bfloat16, torch.float64])
def test_trapezoid_integer_y_takes_x_float_dtype(xdt):
    y = torch.tensor([0, 1, 1, 0])
    x = torch.tensor([0.0, 1.0, 3.0, 4.0], dtype=xdt)
    for fn, expected in ((torch.trapezoid, 3.0), (torch.trapz, 3.0)):
        r = fn(y, x)
        assert r.dtype is xdt and r.item() == expected
    c = torch.cumulative_trapezoid(y, x)
    assert c.dtype is xdt and c.tolist() == [0.5, 2.5, 3.0]
    assert torch.trapezoid(y, torch.tensor([0, 1, 3, 4])).dtype is torch.float32


def test_trapezoid_zero_dim_messages():
    y = torch.tensor(3.0)
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dim"):
        torch.trapezoid(y)
    with pytest.raises(IndexError, match="slice\\(\\) cannot be applied to a 0-dim tensor"):
        torch.cumulative_trapezoid(y)


# --- softmax backward: a row-major gradient for any upstream layout ---


def test_softmax_grad_is_contiguous_for_permuted_upstream():
    oh = torch.nn.functional.one_hot(torch.tensor([[[0, 1], [2, 1]]]), 3).permute(0, 3, 1, 2)
    oh = oh.float()
    assert not oh.is_contiguous()
    for f in (lambda t: t.softmax(1), lambda t: t.log_softmax(1)):
        x = torch.zeros(1, 3, 2, 2, requires_grad=True)
        (g,) = torch.autograd.grad((f(x) * oh).sum(), x)
        assert g.is_contiguous() and g.view(1, -1).shape == (1, 12)
    x = torch.zeros(1, 3, 2, 2, requires_grad=True)
    (g,) = torch.autograd.grad((x.softmax(1) * oh).sum(), x)
    expected = oh.numpy() / 3 - 1 / 3 * oh.numpy().sum(1, keepdims=True) / 3
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-6, atol=1e-7)


# --- clamp with a tensor and a number bound ---


def test_clamp_mixed_bounds_node_and_errors():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    for r in (torch.clamp(x, torch.tensor(0.0), 1), x.clamp(0, torch.tensor(1.0))):
        assert r.grad_fn.name() == "ClampBackward1"
        assert r.tolist() == [0.5, 0.0, 1.0]
    r = torch.clamp(x, torch.tensor(0.0), 1)
    r.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [1.0, 0.0, 0.0]
    assert torch.clamp(x, torch.tensor(0.0), torch.tensor(1.0)).grad_fn.name() == "ClampBackward0"
    assert torch.clamp(x, torch.tensor(0.0)).grad_fn.name() == "ClampBackward0"
    for lo, hi in (
        (torch.zeros(3), 1),
        (0.0, torch.ones(3)),
        (torch.tensor(0.0, requires_grad=True), 1),
    ):
        with pytest.raises(TypeError, match="clamp\\(\\) received an invalid combination"):
            torch.clamp(x, lo, hi)


# --- float prod/norm: NumPy's warnings not raised from numpy's _methods.py ---


def test_prod_and_norm_warnings_come_from_minitorch_kernels():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = (
            torch.full((4,), 1e30).prod().item(),
            torch.tensor([0.0, INF]).prod().item(),
            torch.full((2, 3), 1e30).prod(1).tolist(),
            torch.full((4,), 1e38).norm(1).item(),
        )
    assert r[0] == INF and np.isnan(r[1]) and r[2] == [INF, INF] and r[3] == INF
    sources = {w.filename for w in caught if issubclass(w.category, RuntimeWarning)}
    assert sources and not any("_methods" in s for s in sources), sources
