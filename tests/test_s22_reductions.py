"""Session 22 fuzzing of reductions, scans and sorting against torch: the fixes, with torch's
values (obtained by running torch 2.13.0) as literals."""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

INF = math.inf
NAN = math.nan


def _grad(x_values, fn):
    x = torch.tensor(x_values, dtype=torch.float64, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


# --- integral dtype= of an input that requires grad ---


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda x: x.sum(dtype=torch.int64), "Long"),
        (lambda x: torch.sum(x, 0, dtype=torch.int32), "Int"),
        (lambda x: x.sum(dtype=torch.bool), "Bool"),
        (lambda x: torch.nansum(x, dtype=torch.int64), "Long"),
        (lambda x: torch.prod(x, dtype=torch.int64), "Long"),
        (lambda x: torch.prod(x, 1, dtype=torch.int32), "Int"),
        (lambda x: torch.cumsum(x, 0, dtype=torch.int64), "Long"),
        (lambda x: torch.cumprod(x, 1, dtype=torch.int64), "Long"),
    ],
)
def test_integral_dtype_of_grad_input_refused(call, name):
    # torch: RuntimeError (minitorch gave an int64 tensor with requires_grad=True)
    x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^Autograd not support dtype: {name}$"):
        call(x)
    with torch.no_grad():  # no graph to record: torch computes it
        assert call(x).dtype is not torch.float64
    r = call(x.detach())
    assert not r.requires_grad


def test_integral_dtype_0d_and_empty_refused():
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
        torch.tensor(2.0, requires_grad=True).cumsum(0, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
        torch.ones(0, requires_grad=True).sum(dtype=torch.int64)
    x = torch.ones(2, 3, requires_grad=True)  # torch checks the dim first
    with pytest.raises(IndexError, match="got 5"):
        x.sum(5, dtype=torch.int64)
    with pytest.raises(IndexError, match="got 5"):
        torch.cumsum(x, 5, dtype=torch.int64)


# --- prod's gradient: a 0-d input, and zeros beside infs ---


def test_prod_grad_0d_passes_through():
    # torch: tensor(1.) for both (the old p / a gave nan for inf)
    x = torch.tensor(INF, dtype=torch.float64, requires_grad=True)
    x.prod().backward()
    assert x.grad.item() == 1.0
    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    x.prod(0).backward()
    assert x.grad.item() == 1.0
    x = torch.ones(0, 3, dtype=torch.float64, requires_grad=True)  # empty slices
    x.prod(0).sum().backward()
    assert x.grad.shape == (0, 3)


def test_prod_grad_with_zero_and_inf():
    # torch's values: with a zero in the tensor, each gradient is the product of the others
    got = _grad([[0.0, INF, 2.0], [2.0, INF, 0.0]], lambda x: x.prod(1))
    np.testing.assert_array_equal(got, [[INF, 0.0, NAN], [NAN, 0.0, INF]])
    got = _grad([[1.0, INF, 2.0], [2.0, INF, 0.0]], lambda x: x.prod(0))
    np.testing.assert_array_equal(got, [[2.0, INF, 0.0], [1.0, INF, 2.0]])
    got = _grad([[0.0, 3.0, INF]], lambda x: x.prod())
    np.testing.assert_array_equal(got, [[INF, NAN, 0.0]])
    # two zeros, a plain backward: torch's zero gradient
    np.testing.assert_array_equal(_grad([0.0, 0.0, INF], lambda x: x.prod()), [0.0, 0.0, 0.0])
    # without a zero: torch's result / input (nan beside an inf)
    np.testing.assert_array_equal(_grad([INF, 2.0, 3.0], lambda x: x.prod()), [NAN, INF, INF])
    # the formula with zeros is twice differentiable
    rng = np.random.default_rng(22)
    a = rng.standard_normal((3, 4))
    a[0, 1] = a[2, 1] = a[1, 3] = 0.0
    x = torch.tensor(a, requires_grad=True)
    for fn in (lambda t: t.prod(), lambda t: t.prod(0), lambda t: t.prod(-1)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_prod_grad_with_zero_and_inf_create_graph():
    x = torch.tensor([0.0, 0.0, INF], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.prod(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [NAN, NAN, 0.0])  # torch's


# --- cumsum of -0.0 ---


def test_cumsum_leading_negative_zero_is_positive():
    # torch's running sum starts from +0: [[0., 0., 2.], [1., 1., 1.]]
    x = torch.tensor([[-0.0, -0.0, 2.0], [1.0, -0.0, -0.0]])
    out = torch.cumsum(x, 1).numpy()
    np.testing.assert_array_equal(out, [[0.0, 0.0, 2.0], [1.0, 1.0, 1.0]])
    assert not np.signbit(out).any()
    for dt in (torch.float64, torch.float16):
        assert not np.signbit(torch.tensor([-0.0, -0.0], dtype=dt).cumsum(0).numpy()).any()
    half = torch.tensor([-0.0, -0.0], dtype=torch.float64).cumsum(0, dtype=torch.float32)
    assert not np.signbit(half.numpy()).any()
    assert np.signbit(torch.tensor(-0.0).cumsum(0).numpy())  # 0-d: a copy, as torch's


# --- std/var argument forms and messages ---


@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
def test_var_mean_int_message_names_op(op):
    with pytest.raises(RuntimeError, match=f"^{op} only support floating point and complex"):
        getattr(torch, op)(torch.ones(3, dtype=torch.int8))
    with pytest.raises(RuntimeError, match="^std and var only support floating point"):
        torch.var(torch.ones(3, dtype=torch.int8))


@pytest.mark.parametrize("op", ["std", "var", "std_mean", "var_mean"])
def test_unbiased_and_keepdim_without_dim_is_typeerror(op):
    x = torch.ones(2, 3)
    got = "got (Tensor, keepdim=bool, unbiased=bool), but expected one of:"
    with pytest.raises(TypeError, match=f"^{op}\\(\\) received an invalid combination") as e:
        getattr(torch, op)(x, unbiased=False, keepdim=False)
    assert got in str(e.value)
    with pytest.raises(TypeError, match="got \\(Tensor, bool, keepdim=bool\\)"):
        getattr(torch, op)(x, True, keepdim=True)
    # the forms torch takes
    r = getattr(torch, op)(x, unbiased=False)
    r = r[0] if isinstance(r, tuple) else r
    assert r.shape == ()
    r = getattr(torch, op)(x, keepdim=True)
    assert (r[0] if isinstance(r, tuple) else r).shape == (1, 1)
    r = getattr(torch, op)(x, None, False, True)
    assert (r[0] if isinstance(r, tuple) else r).shape == (1, 1)
    v, m = torch.var_mean(x, 1, keepdim=True)
    assert v.shape == m.shape == (2, 1)


# --- the order of torch's checks ---


def test_topk_checks_dim_then_k_then_dtype():
    with pytest.raises(IndexError, match="expected to be in range of \\[-1, 0\\], but got 1"):
        torch.topk(torch.tensor(2.0), 2, dim=1)
    with pytest.raises(IndexError, match="but got 2"):
        torch.topk(torch.ones(5, 3, dtype=torch.bool), 1, dim=2)
    with pytest.raises(RuntimeError, match="^selected index k out of range$"):
        torch.topk(torch.tensor([True, False]), 3)
    with pytest.raises(RuntimeError, match="^topk does not support bool dtypes on CPU$"):
        torch.topk(torch.tensor([True, False]), 1)


def test_logcumsumexp_checks_dim_before_dtype():
    with pytest.raises(IndexError, match="but got 5"):
        torch.logcumsumexp(torch.ones(3, dtype=torch.int64), 5)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.logcumsumexp(torch.tensor(1), 0)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_scalar_dim_message(op):
    with pytest.raises(
        IndexError, match=f"^{op}\\(\\): Expected reduction dim -1 or 0 for scalar "
    ):
        getattr(torch, op)(torch.tensor(1.0), 1)
    assert getattr(torch, op)(torch.tensor(1.0), -1).values.item() == 1.0


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_empty_input_takes_any_dim(op):
    # torch returns the empty result before it checks the dim
    r = getattr(torch, op)(torch.ones(3, 0), 5)
    assert r.values.shape == r.indices.shape == (3, 0)
    assert r.indices.dtype is torch.int64


def test_median_bool_checks_dim_first():
    with pytest.raises(IndexError, match="but got -2"):
        torch.median(torch.tensor(True), -2)
    with pytest.raises(IndexError, match="but got -4"):
        torch.nanmedian(torch.ones(4, 2, 4, dtype=torch.bool), -4)
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        torch.median(torch.tensor([True]), 0)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_empty_message_keeps_the_dim_given(op):
    x = torch.ones(0, 3)
    msg = f"^{op}\\(\\): Expected reduction dim -2 to have non-zero size.$"
    for dim in (-2, [-2], (1, -2), (-2, 0)):  # before the repeated-dim check, as torch
        with pytest.raises(IndexError, match=msg):
            getattr(torch, op)(x, dim)


def test_diff_order_zero_leaves_dim_unchecked():
    x = torch.ones(4, 4)
    assert torch.diff(x, n=0, dim=5).shape == (4, 4)
    with pytest.raises(IndexError, match="but got 5"):
        torch.diff(x, n=0, dim=5, append=x)


# --- dtype=float16/bfloat16 of a wider input ---


@pytest.mark.parametrize("src", [torch.float32, torch.float64, torch.int32])
def test_sum_into_half_rounds_each_element_first(src):
    # torch: sum(x, dtype=float16) of [1e5, -1e5, 3.] is nan (inf - inf), not 3.
    x = torch.tensor([1e5, -1e5, 3.0]).to(src)
    assert math.isnan(torch.sum(x, dtype=torch.float16).item())
    assert math.isnan(torch.nansum(x, dtype=torch.float16).item())
    assert torch.sum(x, 0, dtype=torch.bfloat16).item() == 3.0  # bfloat16 holds 1e5
    # the sum still accumulates in float32: 3000 x 0.1 is 300. (torch's)
    assert torch.sum(torch.tensor([0.1] * 3000).to(src), dtype=torch.float16).item() == (
        0.0 if src is torch.int32 else 300.0
    )


def test_mean_into_half_sums_in_float32():
    # torch: mean(float64 [1e5, -1e5, 3.], dtype=float16) is 1. (summed in float32, rounded once)
    x = torch.tensor([1e5, -1e5, 3.0], dtype=torch.float64, requires_grad=True)
    r = x.mean(dtype=torch.float16)
    assert r.dtype is torch.float16 and r.item() == 1.0
    r.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1 / 3] * 3, rtol=1e-3)
    assert x.grad.dtype is torch.float64
    y = torch.tensor([[7e4, 1.0], [3.0, 2.0]], dtype=torch.float64)
    assert y.mean(1, dtype=torch.float16).tolist() == [35008.0, 2.5]
    assert y.mean((0, 1), True, dtype=torch.bfloat16).tolist() == [[17536.0]]
    assert torch.tensor([1, 2, 4]).mean(dtype=torch.float16).item() == 2.333984375
    # the gradient divides in the half dtype, as torch's MeanBackward
    x = torch.tensor([0.3, 0.7, -2.0], dtype=torch.float64, requires_grad=True)
    r = x.mean(0, keepdim=True, dtype=torch.float16)
    assert type(r.grad_fn).__name__ == "MeanBackward1"
    (r * torch.tensor([-1.3674], dtype=torch.float16)).sum().backward()
    assert x.grad.tolist() == [-0.455810546875] * 3
    assert type(x.mean(dtype=torch.bfloat16).grad_fn).__name__ == "MeanBackward0"
    # nanmean casts first, as torch's (nan: inf - inf)
    z = torch.tensor([7e4, -7e4, 3.0, math.nan], dtype=torch.float64)
    assert math.isnan(torch.nanmean(z, dtype=torch.float16).item())


@pytest.mark.parametrize("op", ["unique", "unique_consecutive"])
def test_unique_dim_two_empty_dims_message(op):
    # torch: the selected dim empty too is its other message (with a trailing space)
    msg = "^Number of zero sized dimensions is more than one, so unique cannot be applied $"
    for shape, dim in (((2, 0, 1, 0), -3), ((0, 0), 0)):
        with pytest.raises(RuntimeError, match=msg):
            getattr(torch, op)(torch.ones(shape), dim=dim)
    with pytest.raises(RuntimeError, match="^There are 0 sized dimensions, and they aren't"):
        getattr(torch, op)(torch.ones(2, 0, 1, 0), dim=0)
