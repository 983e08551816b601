"""Sorting, histogram, special and pointwise corners where minitorch once differed from torch
(sweep 2: unique_consecutive, searchsorted, histogram/histc, xlogy, frexp/ldexp, heaviside,
max(other=)); torch's answers written out, so these run without torch."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

nan = float("nan")


# --- unique_consecutive(dim=) with 0 or 1 slices ---


def test_unique_consecutive_dim_with_one_or_zero_slices():
    values, inverse, counts = mt.unique_consecutive(
        mt.tensor([[1, 2, 3]]), dim=0, return_inverse=True, return_counts=True
    )
    assert values.tolist() == [[1, 2, 3]]
    assert inverse.tolist() == [0] and counts.tolist() == [1]
    out = mt.unique_consecutive(mt.zeros(4, 1), dim=1)
    assert tuple(out.shape) == (4, 1)
    values, inverse, counts = mt.unique_consecutive(
        mt.zeros(0, 3), dim=0, return_inverse=True, return_counts=True
    )
    assert tuple(values.shape) == (0, 3)
    assert tuple(inverse.shape) == (0,) and tuple(counts.shape) == (0,)
    assert inverse.dtype == mt.int64 and counts.dtype == mt.int64


def test_unique_consecutive_dim_with_an_empty_other_dim_raises():
    with pytest.raises(RuntimeError, match="0 sized dimensions, and they aren't selected"):
        mt.unique_consecutive(mt.zeros(3, 0), dim=0)
    assert tuple(mt.unique_consecutive(mt.zeros(3, 0), dim=1).shape) == (3, 0)


# --- searchsorted ---


def test_batched_searchsorted_puts_nan_last():
    seq = mt.tensor([[1.0, 2.0, 3.0]])
    assert mt.searchsorted(seq, mt.tensor([[nan, 2.5]])).tolist() == [[3, 2]]
    assert mt.searchsorted(seq, mt.tensor([[nan]]), right=True).tolist() == [[3]]
    assert mt.searchsorted(mt.tensor([1.0, 2.0, 3.0]), mt.tensor([nan, 2.5])).tolist() == [3, 2]


def test_batched_searchsorted_follows_torchs_bisection_through_nan_rows():
    # torch's comparisons with NaN are false and step right
    seq = mt.tensor([[1.0, 2.0, nan], [1.0, nan, nan], [nan, nan, nan]])
    v = mt.tensor([[2.5, 0.0], [2.5, 0.0], [2.5, 0.0]])
    assert mt.searchsorted(seq, v).tolist() == [[3, 0], [3, 3], [3, 3]]
    assert mt.searchsorted(seq, v, right=True).tolist() == [[3, 0], [3, 3], [3, 3]]


def test_batched_searchsorted_matches_numpy_on_sorted_rows():
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(0, 6, size=(4, 9)).astype(np.float64), axis=-1)
    v = rng.integers(-1, 7, size=(4, 5)).astype(np.float64)
    for side in ("left", "right"):
        got = mt.searchsorted(mt.tensor(seq), mt.tensor(v), side=side).numpy()
        want = np.stack([np.searchsorted(s, q, side=side) for s, q in zip(seq, v, strict=True)])
        np.testing.assert_array_equal(got, want, err_msg=side)


def test_searchsorted_argument_errors_are_torchs():
    x = mt.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"searchsorted\(\): sorter index out of range"):
        mt.searchsorted(x, mt.tensor([1.5]), sorter=mt.tensor([0, 5, 1]))
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        mt.searchsorted(x, mt.tensor([1.5]), sorter=mt.tensor([0, -1, 1]))
    with pytest.raises(
        RuntimeError, match="sorter must be a tensor of long dtype but got dtype Float"
    ):
        mt.searchsorted(x, mt.tensor([1.5]), sorter=mt.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match="boundary and sorter must have the same size"):
        mt.searchsorted(x, mt.tensor([1.5]), sorter=mt.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="should have positive dimension, but got 0 dimension"):
        mt.searchsorted(mt.tensor(1.0), mt.tensor([1.0]))
    with pytest.raises(RuntimeError, match=r"can be a scalar only when boundaries tensor dimens"):
        mt.searchsorted(mt.tensor([[1.0, 2.0]]), mt.tensor(1.5))
    sorted_by = mt.searchsorted(
        mt.tensor([[3.0, 1.0, 2.0]]), mt.tensor([[1.5]]), sorter=mt.tensor([[1, 2, 0]])
    )
    assert sorted_by.tolist() == [[1]]


# --- histogram / histc ---


def test_histogram_edges_are_torchs_linspace():
    # edge 6 of 10 over [0, 1] is 0.6 (not 0.6000000000000001), so 0.6 lands in bin 6
    x = mt.tensor(np.linspace(0, 1, 101), dtype=mt.float64)
    h = mt.histogram(x, bins=10, range=(0.0, 1.0))
    assert h.bin_edges[6].item() == 0.6 and h.bin_edges[7].item() == 0.7
    assert h.hist.tolist() == [10, 10, 11, 9, 10, 10, 10, 10, 10, 11]
    x = mt.tensor([0.3, 0.6, 0.7, 0.9, 1.0], dtype=mt.float64)
    assert mt.histogram(x, bins=10, range=(0.0, 1.0)).hist.tolist() == [
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        1,
        0,
        2,
    ]


def test_histogram_float32_samples_on_edges():
    h = mt.histogram(mt.linspace(0, 1, 201), bins=100, range=(0.0, 1.0))
    assert h.hist.dtype == mt.float32
    assert h.hist.tolist() == [2.0] * 99 + [3.0]
    # the arithmetic bin of edge 4 of 7 is 3; torch's check against the edges moves it to 4
    # (histc keeps the arithmetic bin)
    x = mt.linspace(0, 1, 8)
    assert mt.histogram(x, bins=7, range=(0.0, 1.0)).hist.tolist() == [1, 1, 1, 1, 1, 1, 2]
    assert mt.histc(x, bins=7, min=0, max=1).tolist() == [1, 1, 1, 2, 0, 1, 2]


def test_histogram_explicit_edges_search_as_torch_even_unsorted():
    x = mt.tensor([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])
    h = mt.histogram(x, bins=mt.tensor([1.0, 2.5, 1.5, 3.0]))
    assert h.hist.tolist() == [1, 0, 4]
    assert mt.histogram(x, bins=mt.tensor([1.0, 3.0, 2.0])).hist.tolist() == [3, 0]
    assert mt.histogram(mt.tensor([1.0, 2.0, 3.0]), bins=mt.tensor([2.0, 1.0])).hist.tolist() == [0]
    assert mt.histogram(x, bins=mt.tensor([1.0, 2.0, 2.0, 3.0])).hist.tolist() == [2, 0, 3]


def test_histogram_density_and_weights():
    x = mt.tensor([1.0, 2.0, 3.0])
    h = mt.histogram(x, bins=2, weight=mt.tensor([1.0, -1.0, 2.0]), density=True)
    np.testing.assert_allclose(h.hist.numpy(), [0.5, 0.5], err_msg="density")
    h = mt.histogram(x, bins=2, weight=mt.ones(3, 1))  # torch flattens the weight
    assert h.hist.tolist() == [1, 2]
    assert np.isnan(mt.histogram(mt.tensor([]), bins=2, density=True).hist.numpy()).all()


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        ({"bins": 0}, RuntimeError, r"torch.histogram\(\): bins must be > 0, but got 0"),
        ({"bins": 2, "weight": mt.ones(2)}, RuntimeError, "same shape as the input tensor"),
        (
            {"bins": 2, "range": (3.0, 1.0)},
            RuntimeError,
            "min should not exceed max, but got min 3",
        ),
        (
            {"bins": 2, "range": (0.0, float("inf"))},
            RuntimeError,
            r"range \[0, inf\] is not finite",
        ),
        ({"bins": 2, "weight": mt.ones(3, dtype=mt.float64)}, RuntimeError, "weight tensor should"),
        ({"bins": mt.tensor(2.0)}, RuntimeError, "bins tensor should have one dimension"),
        (
            {"bins": mt.tensor([1.0], dtype=mt.float64)},
            RuntimeError,
            "bins tensors should have the",
        ),
        ({"bins": mt.tensor([2.0])}, RuntimeError, "bins must be > 0, but got 0"),
        ({"bins": 2.0}, TypeError, "invalid combination of arguments"),
        ({"bins": mt.tensor([1.0, 2.0]), "range": (0.0, 1.0)}, TypeError, "invalid combination"),
    ],
)
def test_histogram_argument_errors_are_torchs(kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        mt.histogram(mt.tensor([1.0, 2.0, 3.0]), **kwargs)


def test_histogram_rejects_integer_input_and_nonfinite_data():
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        mt.histogram(mt.tensor([1, 2]), bins=2)
    with pytest.raises(RuntimeError, match=r"range \[nan, nan\] is not finite"):
        mt.histogram(mt.tensor([1.0, nan]), bins=2)


def test_histc_bins_must_be_an_int():
    with pytest.raises(TypeError, match="argument 'bins' must be int, not float"):
        mt.histc(mt.tensor([1.0, 2.0]), bins=2.0)
    with pytest.raises(TypeError, match="argument 'bins' must be int, not bool"):
        mt.histc(mt.tensor([1.0, 2.0]), bins=True)
    with pytest.raises(TypeError, match="argument 'min' must be Number, not str"):
        mt.histc(mt.tensor([1.0, 2.0]), bins=2, min="a")


# --- xlogy ---


@pytest.mark.parametrize("fn", [mt.xlogy, mt.special.xlogy])
def test_xlogy_of_a_bool_mask_is_float(fn):
    mask = mt.tensor([True, False, True])
    p = mt.tensor([0.5, 0.2, 2.0])
    out = fn(mask, p)
    assert out.dtype == mt.float32
    np.testing.assert_allclose(out.numpy(), [np.log(0.5), 0.0, np.log(2.0)], rtol=1e-6)
    out = fn(p, mt.tensor([True, False, True]))
    assert out.dtype == mt.float32
    np.testing.assert_array_equal(out.numpy(), [0.0, -np.inf, 0.0])
    out = fn(mt.tensor([2, 0, 3]), mt.tensor([True, True, True]))
    assert out.dtype == mt.float32 and out.tolist() == [0.0, 0.0, 0.0]


# --- frexp / ldexp at the ends of a dtype's range ---


def test_frexp_near_the_top_of_the_range():
    m, e = mt.frexp(mt.tensor([20000.0, 40000.0, 60000.0], dtype=mt.float16))
    assert m.tolist() == [20000 / 32768, 40000 / 65536, 60000 / 65536]
    assert e.tolist() == [15, 16, 16] and e.dtype == mt.int32
    x = np.array([1.7e38, 3e38, 1e-40], dtype=np.float32)
    m, e = mt.frexp(mt.tensor(x))
    want_m, want_e = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)


def test_frexp_gradient_scales_in_float32_as_torch():
    x = mt.tensor([60000.0, -5.0, 1e-6], dtype=mt.float16, requires_grad=True)
    m, _ = mt.frexp(x)
    assert type(m.grad_fn).__name__ == "FrexpBackward0"
    m.backward(mt.ones_like(m))
    assert x.grad.tolist() == [2.0**-16, 0.125, float("inf")]  # 2**19 overflows float16
    x = mt.tensor([1e300, 1.7e38, 1e-300], dtype=mt.float64, requires_grad=True)
    mt.frexp(x)[0].sum().backward()
    assert x.grad.tolist() == [0.0, 2.0**-127, float("inf")]  # 2**e in float32


def test_frexp_gradcheck():
    x = mt.tensor([0.3, -7.0, 1e5, 3.0], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: mt.frexp(t)[0], (x,))
    assert mt.autograd.gradgradcheck(lambda t: mt.frexp(t)[0], (x,))


def test_ldexp_does_not_overflow_through_two_to_the_e():
    out = mt.ldexp(mt.tensor([1e-3]), mt.tensor([130]))
    np.testing.assert_array_equal(out.numpy(), np.ldexp(np.float32(1e-3), 130))
    assert out.item() != float("inf")
    half = mt.ldexp(mt.tensor([0.001], dtype=mt.float16), mt.tensor([20]))
    assert half.dtype == mt.float16 and half.item() == 1049.0
    # subnormal results are rounded once: 3 * 2**-151 is 0.75 of the smallest float32
    assert mt.ldexp(mt.tensor([3.0]), mt.tensor([-151])).item() == 2.0**-149
    assert mt.ldexp(mt.tensor([3.0], dtype=mt.float16), mt.tensor([-26])).item() == 2.0**-24
    # torch wraps the exponent to int32, as its C ldexp call does
    assert mt.ldexp(mt.tensor([3.0]), mt.tensor([2**32 + 2])).item() == 12.0
    # a float exponent still goes through 2 ** other in the dtype
    assert mt.ldexp(mt.tensor([1e-3]), mt.tensor([130.0])).item() == float("inf")
    assert mt.ldexp(mt.tensor([3, 4], dtype=mt.int32), mt.tensor([2])).dtype == mt.float32
    with pytest.raises(NotImplementedError, match="\"ldexp_cpu_exp\" not implemented for 'Bool'"):
        mt.ldexp(mt.tensor([1.0]), mt.tensor([True]))


def test_ldexp_gradients():
    x = mt.tensor([[0.3], [-2.0]], dtype=mt.float64, requires_grad=True)
    e = mt.tensor([3, -2, 0])
    out = mt.ldexp(x, e)
    assert type(out.grad_fn).__name__ == "LdexpBackward0"
    assert mt.autograd.gradcheck(lambda t: mt.ldexp(t, e), (x,))
    assert mt.autograd.gradgradcheck(lambda t: mt.ldexp(t, e), (x,))
    x = mt.tensor([1e-3, 2.0], requires_grad=True)
    p = mt.tensor([3.0, -1.0], requires_grad=True)
    out = mt.ldexp(x, p)
    assert type(out.grad_fn).__name__ == "LdexpBackward0"
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 0.5], err_msg="grad x")
    np.testing.assert_allclose(p.grad.numpy(), [8e-3 * np.log(2), np.log(2)], rtol=1e-6)


# --- heaviside ---


def test_heaviside_keeps_requires_grad_and_backward_raises():
    x = mt.tensor([1.0, 0.0, -1.0], requires_grad=True)
    y = mt.heaviside(x, mt.tensor([0.5]))
    assert y.tolist() == [1.0, 0.5, 0.0]
    assert y.requires_grad and type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        y.sum().backward()
    assert mt.heaviside(mt.tensor([1.0, 0.0]), mt.tensor([0.5], requires_grad=True)).requires_grad
    with mt.no_grad():
        assert not mt.heaviside(x, mt.tensor([0.5])).requires_grad


# --- max / min with other= ---


def test_max_min_take_other_by_keyword():
    a, b = mt.tensor([1, 5]), mt.tensor([3, 2])
    assert mt.max(a, other=b).tolist() == [3, 5]
    assert mt.min(a, other=b).tolist() == [1, 2]
    assert a.max(other=b).tolist() == [3, 5]
    with pytest.raises(TypeError, match=r"got \(Tensor, other=int\)"):
        mt.max(a, other=3)
    with pytest.raises(TypeError, match=r"got \(Tensor, int, other=Tensor\)"):
        mt.max(a, 0, other=b)


# --- the same kernels on every device ---


def test_sweep2_kernels_on_device(device):
    x = mt.linspace(0, 1, 8, device=device)
    assert mt.histogram(x, bins=7, range=(0.0, 1.0)).hist.cpu().tolist() == [1] * 6 + [2]
    edges = mt.tensor([1.0, 2.5, 1.5, 3.0], device=device)
    y = mt.tensor([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5], device=device)
    assert mt.histogram(y, bins=edges).hist.cpu().tolist() == [1, 0, 4]
    seq = mt.tensor([[1.0, 2.0, 3.0]], device=device)
    assert mt.searchsorted(seq, mt.tensor([[nan, 2.5]], device=device)).cpu().tolist() == [[3, 2]]
    m, e = mt.frexp(mt.tensor([40000.0, 60000.0], dtype=mt.float16, device=device))
    assert m.cpu().tolist() == [40000 / 65536, 60000 / 65536] and e.cpu().tolist() == [16, 16]
    out = mt.ldexp(mt.tensor([1e-3], device=device), mt.tensor([130], device=device))
    np.testing.assert_array_equal(out.cpu().numpy(), np.ldexp(np.float32(1e-3), 130))


def test_histogramdd_follows_histograms_edges_and_bin_rule():
    # samples exactly on an edge (k / 100): torch's linspace edges and arithmetic bin rule, as
    # histogram (np.histogramdd's edges put 0.6 and 0.7 one bin off)
    x = mt.arange(101, dtype=mt.float64) / 100
    assert mt.histogramdd(x[:, None], bins=10).hist.tolist() == [
        10,
        10,
        11,
        9,
        10,
        10,
        10,
        10,
        10,
        11,
    ]
    both = mt.histogramdd(mt.stack([x, 1 - x], 1), bins=[10, 5]).hist
    assert both.sum(0).tolist() == [21, 19, 20, 20, 21]
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0 for dimension 0"):
        mt.histogramdd(mt.ones(3, 2), bins=0)
    with pytest.raises(RuntimeError, match="size of bins must be equal to the innermost dimension"):
        mt.histogramdd(mt.ones(3, 2), bins=[2, 2, 2])


def test_xlog1py_of_a_bool_mask_is_float():
    r = mt.special.xlog1py(mt.tensor([True, False, True]), mt.tensor([0.5, 1.0, 1.0]))
    assert r.dtype is mt.float32
    np.testing.assert_allclose(r.numpy(), [np.log1p(0.5), 0.0, np.log(2.0)], rtol=1e-6)


def test_resize_takes_int_like_sizes():
    assert mt.arange(24.0).resize_(np.int64(4), mt.tensor(6)).shape == (4, 6)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float"):
        mt.zeros(6).resize_(2.0, 3)


def test_repeat_interleave_checks_output_size():
    x = mt.tensor([1, 2])
    with pytest.raises(RuntimeError, match="Invalid output_size, expected 4 but got 5"):
        mt.repeat_interleave(x, 2, output_size=5)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        mt.repeat_interleave(x, mt.tensor([1, 2]), output_size=5)
    with pytest.raises(RuntimeError, match="allocated size does not match required size"):
        mt.repeat_interleave(x, output_size=5)
    assert mt.repeat_interleave(x, mt.tensor([1, 2]), output_size=3).tolist() == [1, 2, 2]


def test_lerp_and_float_power_errors_are_torchs():
    with pytest.raises(RuntimeError, match="expected dtype long int for `end` but got dtype float"):
        mt.lerp(mt.tensor([1, 2]), mt.tensor([1.0, 2.0]), 0.5)
    with pytest.raises(RuntimeError, match="output given to float_power has dtype Float"):
        mt.float_power(mt.tensor([2.0]), 2, out=mt.empty(1))
    assert mt.float_power(mt.tensor([2.0]), 2, out=mt.empty(1, dtype=mt.float64)).tolist() == [4.0]
