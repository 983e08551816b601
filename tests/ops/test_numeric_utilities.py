"""Numerical utilities against torch's behaviour: gradient, cov, diff, prod, cumsum/cumprod with
out=, nanmedian, bincount, linspace and histc at their edges (expected values read from torch)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch
from minitorch.autograd import gradcheck, gradgradcheck

NAN = float("nan")


# --- gradient ---


def test_gradient_promotes_to_the_coordinates_dtype():
    t = torch.linspace(0, 1, 5, dtype=torch.float64) ** 2
    y = torch.tensor([0.0, 0.1, 0.4, 0.9, 1.6])
    (g,) = torch.gradient(y, spacing=(t,))
    assert g.dtype is torch.float64
    np.testing.assert_allclose(g.numpy(), [1.6] * 5, rtol=1e-6)
    # int data with float64 coordinates is float64 too; with float16 coordinates float16
    yi = torch.tensor([0, 1, 4, 9, 16])
    x = torch.tensor([0, 1, 3, 4, 6])
    assert torch.gradient(yi, spacing=(x.double(),))[0].dtype is torch.float64
    assert torch.gradient(yi, spacing=(x.half(),))[0].dtype is torch.float16
    assert torch.gradient(y.half(), spacing=(x,))[0].dtype is torch.float32


def test_gradient_coefficients_in_the_coordinates_dtype():
    y = torch.tensor([0.3, -0.7, 1.1, 0.2, 0.9], dtype=torch.float64)
    x = torch.tensor([0.0, 0.3, 1.0, 1.7, 2.2])  # float32 coordinates
    (g,) = torch.gradient(y, spacing=(x,), edge_order=2)
    # torch's values (the float32 coefficients differ from float64 ones near 1e-8)
    expected = [-5.1047618150711056, -1.5619045376777647, 0.64285726814852207]
    np.testing.assert_allclose(g.numpy()[:3], expected, rtol=1e-15, atol=0)


def test_gradient_zero_dim_tensor_spacing_is_a_scalar():
    y = torch.tensor([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 7.0]])
    (g,) = torch.gradient(y, spacing=torch.tensor(0.5), dim=1)
    np.testing.assert_allclose(g.numpy(), [[6, 8, 12, 14], [2, 3, 4, 4]])
    assert g.dtype is torch.float32
    (gi,) = torch.gradient(torch.tensor([1, 2, 3], dtype=torch.int8), spacing=torch.tensor(2))
    assert gi.dtype is torch.float32
    np.testing.assert_allclose(gi.numpy(), [0.5, 0.5, 0.5])


def test_gradient_argument_errors():
    x = torch.tensor([0.0, 1.0, 3.0, 4.0])
    with pytest.raises(TypeError, match="spacing"):
        torch.gradient(x**2, spacing=x)  # a bare coordinates tensor: torch wants (x,)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        torch.gradient(torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]]), dim=(0, 0))
    u8 = torch.tensor([9, 4, 1], dtype=torch.uint8)
    with pytest.raises(RuntimeError, match="does not support uint8"):
        torch.gradient(u8)
    with pytest.raises(RuntimeError, match="does not support uint8"):
        torch.gradient(u8, dim=(0, 0))  # torch checks the dtype first
    with pytest.raises(RuntimeError, match="appears multiple times"):
        torch.gradient(torch.tensor([True, False, True]), dim=(0, 0))


def test_gradient_with_mixed_dtype_coordinates_is_differentiable():
    y = torch.tensor([0.3, -0.7, 1.1, 0.2, 0.9], dtype=torch.float64, requires_grad=True)
    x = torch.tensor([0.0, 0.3, 1.0, 1.7, 2.2], dtype=torch.float64, requires_grad=True)
    for e in (1, 2):
        assert gradcheck(lambda a, b, e=e: torch.gradient(a, spacing=(b,), edge_order=e)[0], (y, x))
        assert gradgradcheck(
            lambda a, b, e=e: torch.gradient(a, spacing=(b,), edge_order=e)[0], (y, x)
        )


# --- cov ---


def test_cov_weights_summing_to_zero_raise():
    X = torch.tensor([[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]])
    for kw in ({"aweights": torch.zeros(3)}, {"fweights": torch.zeros(3, dtype=torch.long)}):
        with pytest.raises(RuntimeError, match="weights sum to zero"):
            torch.cov(X, **kw)
    with pytest.raises(RuntimeError, match="weights sum to zero"):
        torch.cov(torch.ones(2, 0), aweights=torch.zeros(0))
    # a non-zero sum still works
    c = torch.cov(torch.tensor([[1.0, 2.0, 4.0]]), aweights=torch.tensor([0.0, 0.0, 1.0]))
    assert np.isnan(c.item())


# --- diff ---


def test_diff_out_and_argument_types():
    x = torch.tensor([1.0, 2.0, 4.0])
    o = torch.empty(2, dtype=torch.float64)
    r = torch.diff(x, out=o)
    assert r is o
    np.testing.assert_array_equal(o.numpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="'append' must be Tensor, not float"):
        torch.diff(x, append=0.0)
    with pytest.raises(TypeError, match="'prepend' must be Tensor, not list"):
        torch.diff(x, prepend=[1.0])
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.diff(x, out=torch.empty(2, dtype=torch.long))


# --- prod ---


def test_float16_prod_multiplies_in_float16():
    h = torch.tensor([[300.0, 300.0, 1 / 300, 2.0], [1000.0, 100.0, 0.001, 1.0]], dtype=torch.half)
    assert np.isinf(h.prod().item())
    assert np.isinf(h.prod(1).numpy()).all()
    # a running product rounded to float16 at each step, in order
    s = torch.tensor([[1e-3, 1e-3, 1e3, 1e3]], dtype=torch.half)
    assert s.prod(1).item() == 1.0126953125  # torch's value (the subnormal 1e-6 rounds)
    assert s.t().prod(0).item() == 1.0126953125
    # computed in float32 when that is the dtype asked for or the out= dtype
    assert h.prod(1, dtype=torch.float32).numpy()[0] == pytest.approx(600.1282, rel=1e-6)
    o = torch.empty(2, dtype=torch.float32)
    torch.prod(h, 1, out=o)
    np.testing.assert_allclose(o.numpy(), [600.1282, 100.0404], rtol=1e-6)
    # bfloat16 already kept its own dtype: unchanged
    b = torch.full((1000,), 1.0078125, dtype=torch.bfloat16)
    assert b.prod().item() < 2000  # float32 accumulation would give 2397


def test_prod_out_dtype_and_kept_dtypes():
    x = torch.tensor([[0.6, 0.6, 1.7], [2.0, 3.0, 0.5]])
    o = torch.empty(2, dtype=torch.long)
    torch.prod(x, 1, out=o)  # torch truncates each factor first: 0 * 0 * 1, 2 * 3 * 0
    np.testing.assert_array_equal(o.numpy(), [0, 0])
    assert torch.prod(x, 1, dtype=torch.bool).dtype is torch.bool
    assert torch.prod(x, 1, dtype=torch.int32).dtype is torch.int32


def test_float16_prod_gradient_unchanged():
    a = torch.tensor([[1.5, -2.0, 0.5], [3.0, 0.25, 2.0]], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t.prod(1), (a,))
    h = torch.tensor([1.5, 2.0, 4.0], dtype=torch.half, requires_grad=True)
    h.prod().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [8.0, 6.0, 3.0])


# --- cumsum / cumprod with out= ---


def test_cumsum_cumprod_compute_in_the_out_dtype():
    x = torch.tensor([0.1, 0.2, 0.3, 0.7, 1.1, 1.3], dtype=torch.float16)
    o = torch.empty(6, dtype=torch.float64)
    torch.cumsum(x, 0, out=o)
    np.testing.assert_allclose(o.numpy(), np.cumsum(x.numpy().astype(np.float64)), rtol=1e-15)
    torch.cumprod(x + 1, 0, out=o)
    ref = np.cumprod((x + 1).numpy().astype(np.float64))
    np.testing.assert_allclose(o.numpy(), ref, rtol=1e-15)
    oi = torch.empty(6, dtype=torch.long)
    torch.cumsum(x * 10, 0, out=oi)  # each element truncated first, as torch
    np.testing.assert_array_equal(oi.numpy(), np.cumsum(np.trunc((x * 10).numpy())))
    with pytest.raises(NotImplementedError, match="cumsum_out_cpu"):
        torch.cumsum(x, 0, out=torch.empty(6, dtype=torch.bool))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype c10::Half"):
        torch.cumprod(x, 0, dtype=torch.float16, out=o)


# --- nanmedian ---


def test_nanmedian_index_of_an_all_nan_slice():
    t = torch.tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [NAN, NAN, NAN, 5.0]])
    r = torch.nanmedian(t, dim=1)
    np.testing.assert_array_equal(r.indices.numpy(), [3, 2, 3])
    # torch's (libstdc++'s nth_element) position per length
    expected = {1: 0, 2: 0, 3: 0, 4: 2, 5: 2, 6: 3, 7: 5, 8: 6}
    for n, k in expected.items():
        got = torch.full((n, 2), NAN).nanmedian(0).indices.numpy()
        np.testing.assert_array_equal(got, [k, k], err_msg=f"n={n}")


# --- bincount ---


def test_bincount_of_an_empty_input_is_int64_with_weights():
    empty = torch.tensor([], dtype=torch.long)
    for w in (torch.tensor([]), torch.tensor([], dtype=torch.float64)):
        r = torch.bincount(empty, weights=w, minlength=3)
        assert r.dtype is torch.int64
        np.testing.assert_array_equal(r.numpy(), [0, 0, 0])
    assert torch.bincount(torch.tensor([0, 2]), weights=torch.tensor([1.0, 2.0])).dtype is (
        torch.float32
    )


# --- linspace ---


def test_linspace_checks_the_bounds_fit_the_dtype():
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        torch.linspace(0, 70000, 3, dtype=torch.half)
    with pytest.raises(RuntimeError, match="c10::Half without overflow"):
        torch.linspace(0, 65519, 3, dtype=torch.half)
    with pytest.raises(RuntimeError, match="type int8_t without overflow"):
        torch.linspace(0, 128, 3, dtype=torch.int8)
    with pytest.raises(RuntimeError, match="type float without overflow"):
        torch.linspace(0, 3.5e38, 3, dtype=torch.float32)
    np.testing.assert_array_equal(
        torch.linspace(0, 65504, 3, dtype=torch.half).numpy(), [0, 32752, 65504]
    )
    # uint8 takes -1 as 255 before interpolating; inf and one step are not checked
    np.testing.assert_array_equal(
        torch.linspace(-1, 5, 3, dtype=torch.uint8).numpy(), [255, 130, 5]
    )
    assert np.isnan(torch.linspace(0, float("inf"), 3, dtype=torch.half).numpy()).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(torch.linspace(1e5, 0, 1, dtype=torch.half).item())


# --- histc ---


def test_histc_range_overflowing_half_is_refused():
    h = torch.tensor([-60000.0, 0.0, 60000.0], dtype=torch.half)
    with pytest.raises(RuntimeError, match="histc.*overflow.*input.float"):
        torch.histc(h, bins=4)
    with pytest.raises(RuntimeError, match="histc.*overflow"):
        torch.histc(torch.tensor([1.0, 2.0, 65504.0], dtype=torch.half), bins=3)
    ok = torch.histc(torch.tensor([1.0, 2.0, 600.0], dtype=torch.half), bins=3)
    np.testing.assert_array_equal(ok.numpy(), [2, 0, 1])
    np.testing.assert_array_equal(torch.histc(h.float(), bins=4).numpy(), [1, 0, 1, 1])


def test_histograms_of_inputs_requiring_grad_have_a_node_whose_backward_raises():
    # torch: the results require grad (grad_fn NotImplemented), so plotting code calls .detach()
    t = torch.tensor([0.1, 0.5, 0.7, 0.2], requires_grad=True)
    cases = {
        "histogram": torch.histogram(t, 2)[0],
        "histogram edges": torch.histogram(t, 2)[1],
        "bincount": torch.bincount(torch.tensor([1, 2]), weights=t[:2]),
        "_histogramdd_from_bin_cts": torch.histogramdd(t[:, None], 2)[0],
    }
    for name, r in cases.items():
        assert r.requires_grad and type(r.grad_fn).__name__ == "NotImplemented"
        op = name.split()[0]
        with pytest.raises(RuntimeError, match=f"derivative for aten::{op} is not implemented"):
            r.sum().backward()
    assert not torch.histc(t, 2).requires_grad  # histc's result does not (torch's neither)
    with torch.no_grad():
        assert not torch.histogram(t, 2)[0].requires_grad
