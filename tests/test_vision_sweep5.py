"""Fixes from the fifth sweep of vision-training code: torch._standard_gamma and
torch._sample_dirichlet (mixup / cutmix / AugMix draws), torch.Size from a tuple holding int-like
tensors, lerp_ / _foreach_lerp_ on integer tensors, one_hot of an empty tensor, and F.bilinear
under CPU autocast."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# --- _standard_gamma, _sample_dirichlet ---


def test_standard_gamma_shape_dtype_and_moments():
    g = mt.Generator().manual_seed(0)
    alpha = mt.tensor([0.5, 2.0, 7.0], dtype=mt.float64).expand(40000, 3)
    x = mt._standard_gamma(alpha, generator=g)
    assert x.shape == (40000, 3) and x.dtype is mt.float64 and not x.requires_grad
    got = x.numpy()
    # Gamma(a, 1): mean a, variance a; 40000 draws put the mean within ~4 standard errors
    np.testing.assert_allclose(got.mean(0), [0.5, 2.0, 7.0], rtol=0.03, err_msg="gamma mean")
    np.testing.assert_allclose(got.var(0), [0.5, 2.0, 7.0], rtol=0.06, err_msg="gamma variance")
    assert mt._standard_gamma(mt.ones(0)).shape == (0,)
    assert mt._standard_gamma(mt.tensor(3.0)).shape == ()


def test_standard_gamma_generator_and_degenerate_concentrations():
    a = mt.tensor([0.5, 2.0, 0.0, -1.0, float("nan")])
    first = mt._standard_gamma(a, mt.Generator().manual_seed(3))  # positional, as torch's
    again = mt._standard_gamma(a, generator=mt.Generator().manual_seed(3))
    np.testing.assert_array_equal(first.numpy(), again.numpy(), err_msg="same seed, same draws")
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(first.numpy()[2:], [tiny] * 3, err_msg="non-positive -> tiny")
    assert (first.numpy()[:2] > 0).all()


def _lower_gamma_cdf(a: float, x: float) -> float:
    """P(a, x) by its power series (float64; x of a few units)."""
    term = total = 1.0 / a
    for n in range(1, 400):
        term *= x / (a + n)
        total += term
    return total * math.exp(a * math.log(x) - x - math.lgamma(a))


def test_standard_gamma_gradient_is_the_implicit_reparameterisation():
    a = mt.tensor([0.7, 1.5, 3.0], dtype=mt.float64, requires_grad=True)
    x = mt._standard_gamma(a, generator=mt.Generator().manual_seed(1))
    assert type(x.grad_fn).__name__ == "StandardGammaBackward0"
    upstream = mt.tensor([0.3, -1.2, 2.0], dtype=mt.float64)
    (x * upstream).sum().backward()
    # dx/da = -(dP/da) / density(x), P by central differences
    want = []
    for ai, xi in zip(a.detach().numpy(), x.detach().numpy(), strict=True):
        h = 1e-6
        dp = (_lower_gamma_cdf(ai + h, xi) - _lower_gamma_cdf(ai - h, xi)) / (2 * h)
        density = math.exp((ai - 1) * math.log(xi) - xi - math.lgamma(ai))
        want.append(-dp / density)
    np.testing.assert_allclose(
        a.grad.numpy(), np.array(want) * upstream.numpy(), rtol=1e-5, err_msg="d sample / d a"
    )


def test_sample_dirichlet_rows_on_the_simplex_with_the_right_mean():
    g = mt.Generator().manual_seed(0)
    alpha = mt.tensor([0.2, 1.0, 3.0]).expand(30000, 3)
    x = mt._sample_dirichlet(alpha, generator=g)
    assert x.shape == (30000, 3) and x.dtype is mt.float32
    got = x.numpy().astype(np.float64)
    np.testing.assert_allclose(got.sum(-1), 1.0, atol=1e-6, err_msg="rows sum to 1")
    np.testing.assert_allclose(got.mean(0), np.array([0.2, 1.0, 3.0]) / 4.2, atol=0.01)
    # mixup's draw: a Beta(a, a) weight in (0, 1)
    lam = float(mt._sample_dirichlet(mt.tensor([0.2, 0.2]))[0])
    assert 0.0 < lam < 1.0


def test_sample_dirichlet_clamps_as_torch():
    below_one = float(np.nextafter(np.float32(1), np.float32(0)))
    assert mt._sample_dirichlet(mt.tensor(2.0)).item() == below_one  # one category
    x = mt._sample_dirichlet(
        mt.tensor([[0.0, 0.0], [0.01, 0.01]])[:, None].expand(2, 2000, 2).reshape(-1, 2)
    )
    got = x.numpy()
    np.testing.assert_array_equal(got[:2000], 0.5, err_msg="all-tiny rows come out uniform")
    assert got.max() <= below_one and got.min() >= np.finfo(np.float32).tiny
    d = mt._sample_dirichlet(mt.ones(3, dtype=mt.float64))
    assert d.dtype is mt.float64 and d.shape == (3,)
    assert mt._sample_dirichlet(mt.ones(0, 3)).shape == (0, 3)


def test_sample_dirichlet_requires_grad_but_has_no_derivative():
    a = mt.tensor([0.5, 2.0], requires_grad=True)
    x = mt._sample_dirichlet(a)
    assert x.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::_sample_dirichlet"):
        x[0].backward()


@pytest.mark.parametrize(
    ("fn", "kernel"), [(mt._standard_gamma, "gamma_cpu"), (mt._sample_dirichlet, "dirichlet")]
)
def test_gamma_samplers_refuse_what_torch_refuses(fn, kernel):
    for dt, label in ((mt.float16, "Half"), (mt.bfloat16, "BFloat16"), (mt.int64, "Long")):
        with pytest.raises(
            NotImplementedError, match=f"\"{kernel}\" not implemented for '{label}'"
        ):
            fn(mt.ones(2, dtype=dt))
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor"):
        fn(1.0)


# --- Size ---


def test_size_from_a_tuple_converts_int_like_tensors():
    h = mt.tensor(8) // 2
    s = mt.Size((h, 3))
    assert repr(s) == "torch.Size([4, 3])" and type(s[0]) is int
    assert hash(s) == hash((4, 3)) and s == (4, 3)
    assert mt.Size((np.int64(5), mt.tensor([[2]]), True)) == (5, 2, 1)
    assert [type(v) for v in mt.Size((np.int64(5), True))] == [int, int]
    assert mt.Size([True, 2]) == (1, 2)  # torch takes a bool as an int in a list as well
    assert type(mt.Size((2, 3, 4))[1:]) is mt.Size


@pytest.mark.parametrize(
    ("sizes", "name"),
    [((mt.tensor(2.5),), "Tensor"), ((3, mt.tensor([2, 3])), "Tensor"), ((2.0,), "float")],
)
def test_size_from_a_tuple_refuses_non_ints(sizes, name):
    item = len(sizes) - 1
    with pytest.raises(TypeError, match=rf"iterable of 'int' \(item {item} is '{name}'\)"):
        mt.Size(sizes)


# --- lerp_ / _foreach_lerp_ on integer tensors ---


def test_integer_lerp_in_place_is_the_kernels_not_implemented_error():
    long = mt.tensor([3])
    with pytest.raises(
        NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"
    ):
        mt.tensor(3).lerp_(mt.tensor(5), 0.5)
    with pytest.raises(
        NotImplementedError, match="\"lerp_kernel_tensor\" not implemented for 'Long'"
    ):
        long.lerp_(mt.tensor([5]), mt.tensor([1]))
    with pytest.raises(
        NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Int'"
    ):
        mt.tensor([1], dtype=mt.int32).lerp_(mt.tensor([1], dtype=mt.int32), 0.5)
    with pytest.raises(
        NotImplementedError, match="\"lerp_kernel_scalar\" not implemented for 'Long'"
    ):
        mt._foreach_lerp_([mt.tensor([1])], [mt.tensor([2])], 0.5)
    # a 0-d float tensor weight promotes: then it is the cast that fails, as in torch
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        long.lerp_(mt.tensor([5]), mt.tensor(0.5))
    assert long.tolist() == [3]


def test_float_lerp_in_place_unchanged_and_differentiable():
    x = mt.tensor([1.0, 2.0])
    mt._foreach_lerp_([x], [mt.tensor([3.0, 6.0])], 0.25)
    np.testing.assert_allclose(x.numpy(), [1.5, 3.0], err_msg="_foreach_lerp_")
    rng = np.random.default_rng(0)
    a, b, w = (mt.tensor(rng.standard_normal(3), requires_grad=True) for _ in range(3))
    assert gradcheck(lambda a, b: a.clone().lerp_(b, 0.3), (a, b))
    assert gradcheck(lambda a, b, w: (a * 1).lerp_(b, w), (a, b, w))
    assert gradgradcheck(lambda a, b, w: (a * 1).lerp_(b, w), (a, b, w))


# --- one_hot ---


@pytest.mark.parametrize("num_classes", [0, -1, -2])
def test_one_hot_of_an_empty_tensor_needs_a_positive_class_count(num_classes):
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty"):
        F.one_hot(mt.zeros(0, dtype=mt.int64), num_classes)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty"):
        F.one_hot(mt.zeros(2, 0, dtype=mt.int64), num_classes)


def test_one_hot_of_an_empty_tensor_with_classes():
    assert F.one_hot(mt.zeros(0, dtype=mt.int64), 3).shape == (0, 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(mt.tensor([0]), 0)


# --- F.bilinear under autocast ---


def test_bilinear_returns_float32_under_cpu_autocast():
    # torch's CPU bilinear contracts through bmm, which autocast lowers, then gives the result
    # input1's dtype back: float32 out, values at the low dtype's precision (2.13: bit-equal)
    rng = np.random.default_rng(0)
    x1, x2 = rng.standard_normal((2, 4)), rng.standard_normal((2, 5))
    w, b = rng.standard_normal((3, 4, 5)), rng.standard_normal(3)
    want = np.einsum("ni,oij,nj->no", x1, w, x2) + b
    args = [mt.tensor(v, dtype=mt.float32) for v in (x1, x2, w)]
    for low in (mt.bfloat16, mt.float16):
        with mt.autocast("cpu", dtype=low):
            out = F.bilinear(*args)  # no bias: no float32 add to hide a lowered einsum
            out_b = F.bilinear(*args, mt.tensor(b, dtype=mt.float32))
            with pytest.raises(RuntimeError, match="must have the same dtype"):
                F.bilinear(args[0].to(low), *args[1:])
        assert out.dtype is mt.float32 and out_b.dtype is mt.float32
        np.testing.assert_allclose(out_b.numpy(), want, rtol=3e-2, atol=3e-2, err_msg=str(low))
        assert np.abs(out_b.numpy() - want).max() > 1e-4, "computed in the low dtype"
    t = [mt.tensor(v, requires_grad=True) for v in (x1, x2, w)]
    with mt.autocast("cpu", dtype=mt.bfloat16):
        assert gradcheck(F.bilinear, t)


def test_bilinear_promotes_under_cuda_like_autocast():
    x = mt.ones(2, 5, device="strict")
    w = mt.ones(3, 5, 5, device="strict")
    with mt.autocast("strict", dtype=mt.float16):
        assert F.bilinear(x.to(mt.float16), x, w).dtype is mt.float32
        assert F.bilinear(x.to(mt.float16), x.to(mt.float16), w.to(mt.float16)).dtype is (
            mt.float16
        )
