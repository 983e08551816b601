"""What the op table (specs_pointwise_misc.py) cannot say: errors, the tensor-kind queries and
complex stubs, identities (conj, real, positive return self), in-place semantics, derivatives
at special points, histogramdd, map2_ and the stored properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch as mt


def _t(values, dtype=None, device="cpu", requires_grad=False):
    return mt.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


# --- errors with torch's types and messages ---


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: mt.gcd(_t([1.0]), _t([2.0])), NotImplementedError, "gcd_cpu.*Float"),
        (lambda: mt.lcm(_t([True]), _t([False])), NotImplementedError, "lcm_cpu.*Bool"),
        (lambda: mt.frexp(_t([1, 2])), RuntimeError, "only supports floating-point"),
        (lambda: mt.heaviside(_t([1.0]), 0.5), TypeError, "argument 'values'"),
        (lambda: mt.heaviside(_t([1.0]), _t([1])), RuntimeError, "different dtypes"),
        (lambda: mt.igamma(_t([1]), _t([2])), NotImplementedError, "igamma_cpu.*Long"),
        (lambda: mt.nextafter(_t([1]), _t([2])), NotImplementedError, "nextafter_cpu"),
        (lambda: mt.mvlgamma(_t([2.0]), 0), RuntimeError, "p has to be greater"),
        (lambda: mt.positive(_t([True])), RuntimeError, "bool tensor is not supported"),
        (lambda: _t([1.0]).float_power_(2), RuntimeError, "has dtype Float.*Double"),
        (
            lambda: _t([1], dtype=mt.int32).cumsum_(0, dtype=mt.float64),
            RuntimeError,
            "dtype int and output tensor dtype double",
        ),
        (lambda: _t([]).is_nonzero(), RuntimeError, "with no values is ambiguous"),
        (lambda: mt.is_nonzero(_t([1, 2])), RuntimeError, "more than one value"),
        (lambda: _t([1.0]).imag, RuntimeError, "imag is not implemented"),
        (lambda: mt.imag(_t([1.0])), RuntimeError, "non-complex dtypes"),
        (lambda: _t([1.0]).cfloat(), TypeError, "complex dtypes are not supported"),
        (lambda: _t([1.0]).cdouble(), TypeError, "cdouble"),
        (lambda: _t([1.0]).chalf(), TypeError, "chalf"),
        (lambda: _t(1.0).select(0, 0), IndexError, "0-dim tensor"),
        (lambda: mt.zeros(2, 3).select(1, 3), IndexError, r"index 3 out of range.*\[2, 3\]"),
        (lambda: mt.zeros(2, 3).select(2, 0), IndexError, "Dimension out of range"),
        (
            lambda: mt.zeros(2, 3).sum_to_size(1, 1, 3),
            RuntimeError,
            r"size \{\[1, 1, 3\]\} is not expandable to size \{\[2, 3\]\}",
        ),
        (lambda: mt.zeros(3).sum_to_size(2), RuntimeError, "not expandable"),
        (lambda: mt.nonzero_static(mt.zeros(3), size=-1), RuntimeError, "non-negative"),
        (lambda: mt.fill(mt.zeros(3), _t([1.0])), RuntimeError, "0-dimension value tensor"),
        (lambda: mt.empty_strided((2, 3), (1,)), RuntimeError, "^dimensionality of sizes"),
        (lambda: mt.gradient(_t([1.0])), RuntimeError, "at least edge_order"),
        (lambda: mt.gradient(_t([1.0, 2.0, 3.0]), edge_order=3), RuntimeError, "edge_order"),
        (
            lambda: mt.gradient(_t([1.0, 2.0, 3.0]), spacing=[_t(1.0)]),
            RuntimeError,
            "one dimension",
        ),
        (
            lambda: mt.gradient(mt.zeros(3, 3), spacing=[1.0, 2.0, 3.0]),
            RuntimeError,
            "since dim argument was not given",  # torch's message when dim is not given
        ),
    ],
)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_igamma_has_no_gradient_for_its_first_argument():
    a = _t([1.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="derivative for 'igamma: input'"):
        mt.igamma(a, _t([0.5, 3.0])).sum().backward()
    with pytest.raises(NotImplementedError, match="'igammac: input'"):
        mt.igammac(a, _t([0.5, 3.0])).sum().backward()


# --- identities and the tensor-kind queries ---


def test_real_tensors_are_their_own_conjugate_and_real_part():
    x = _t([-1.5, 0.0, 2.0])
    for same in (
        x.conj(),
        mt.conj(x),
        x.conj_physical(),
        mt.conj_physical(x),
        x.conj_physical_(),
        mt.conj_physical_(x),
        x.resolve_conj(),
        x.resolve_neg(),
        mt.resolve_conj(x),
        mt.resolve_neg(x),
        x.real,
        mt.real(x),
        x.positive(),
        mt.positive(x),
        x.share_memory_(),
    ):
        assert same is x
    out = mt.zeros(3)
    assert mt.conj_physical(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    x.real = mt.ones(3)
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0, 1.0])


def test_kind_queries(device):
    x = mt.zeros(2, 3, device=device)
    assert x.layout is mt.strided and repr(mt.strided) == "torch.strided"
    assert isinstance(mt.strided, mt.layout)
    flags = (
        "is_sparse",
        "is_sparse_csr",
        "is_quantized",
        "is_meta",
        "is_mps",
        "is_xpu",
        "is_ipu",
        "is_mkldnn",
        "is_vulkan",
        "is_xla",
        "is_mtia",
        "is_maia",
        "is_nested",
    )
    for name in flags:
        assert getattr(x, name) is False, name
    for name in ("is_conj", "is_neg", "is_inference", "is_complex"):
        assert getattr(x, name)() is False, name
    assert x.is_shared() is (x.device.type != "cpu")  # device memory counts as shared, as torch
    assert mt.is_conj(x) is False and mt.is_neg(x) is False and mt.is_inference(x) is False
    assert mt.is_complex(x) is False
    assert mt.is_signed(x) is True and mt.is_signed(mt.zeros(2, dtype=mt.uint8)) is False
    assert mt.is_same_size(x, mt.ones(2, 3)) and not x.is_same_size(mt.ones(3, 2))
    assert mt.isreal(x).dtype is mt.bool and bool(mt.isreal(x).all())
    assert x.output_nr == 0
    assert mt.unbind(mt.zeros(2, 2, requires_grad=True) * 1)[1].output_nr == 1


def test_is_nonzero_reads_one_value(device):
    assert mt.is_nonzero(_t([[2.0]], device=device)) is True
    assert _t([0], device=device).is_nonzero() is False
    assert mt.is_nonzero(_t(False, device=device)) is False


# --- derivatives at special points ---


def test_sinc_derivatives_at_zero():
    x = _t([0.0, 1e-5], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(mt.sinc(x).sum(), x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(
        g.detach().numpy(), [0.0, -(math.pi**2) / 3 * 1e-5], rtol=1e-6, atol=1e-15, err_msg="sinc'"
    )
    np.testing.assert_allclose(gg.numpy(), [-(math.pi**2) / 3] * 2, rtol=1e-6, err_msg="sinc''")


def test_copysign_gradient_uses_the_sign_bit_and_is_zero_at_zero():
    x = _t([2.0, -3.0, 0.0, 1.0], dtype=mt.float64, requires_grad=True)
    y = _t([-0.0, 1.0, -1.0, 0.0], dtype=mt.float64)
    mt.copysign(x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, -1.0, 0.0, 1.0])


def test_i0_gradient_is_i1_and_smooth_at_zero():
    x = _t([0.0, 1.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(mt.i0(x).sum(), x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 0.5651591039924851], rtol=1e-12)
    np.testing.assert_allclose(gg.numpy()[0], 0.5, rtol=1e-12, err_msg="I1'(0)")


# --- in-place semantics ---


def test_inplace_comparisons_keep_dtype_and_bump_the_version():
    x = _t([1.0, 2.0, 3.0])
    v = x._version
    assert x.lt_(2.5) is x
    assert x.dtype is mt.float32 and x._version == v + 1
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0, 0.0])
    i = _t([1, 2, 3])
    i.greater_(_t([0, 2, 4]))
    np.testing.assert_array_equal(i.numpy(), [1, 0, 0])
    leaf = _t([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.eq_(1.0)


def test_inplace_comparison_links_a_differentiable_other():
    x = _t([1.0, 2.0])
    y = _t([1.0, 3.0], requires_grad=True)
    x.eq_(y)
    assert x.requires_grad and x.grad_fn is not None
    (x * 2).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 0.0])


def test_clamp_min_max_inplace_with_tensor_bounds():
    x = _t([-1.0, 0.5, 2.0])
    x.clamp_min_(_t([0.0, 1.0, 0.0])).clamp_max_(1.5)
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 1.5])
    y = _t([-1.0, 3.0])
    assert mt.clip_(y, 0, 1) is y and mt.clamp_max_(y, 0.5) is y
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.5])


def test_integer_inplace_methods():
    a = _t([12, -18, 7])
    a.gcd_(_t([8, 12, 0]))
    np.testing.assert_array_equal(a.numpy(), [4, 6, 7])
    b = _t([7, -7])
    b.floor_divide_(2)
    np.testing.assert_array_equal(b.numpy(), [3, -4])
    c = _t([7, -7])
    c.remainder_(3)
    np.testing.assert_array_equal(c.numpy(), [1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        _t([1, 2]).sinc_()


def test_frexp_out_and_fields():
    m_out, e_out = mt.empty(2), mt.empty(2, dtype=mt.int32)
    r = mt.frexp(_t([8.0, -0.75]), out=(m_out, e_out))
    assert r.mantissa is m_out and r.exponent is e_out
    np.testing.assert_array_equal(m_out.numpy(), [0.5, -0.75])
    np.testing.assert_array_equal(e_out.numpy(), [4, 0])


def test_heaviside_and_nextafter_values():
    x = _t([-1.0, 0.0, 2.0, math.nan])
    np.testing.assert_array_equal(x.heaviside(_t(0.25)).numpy(), [0.0, 0.25, 1.0, 0.0])
    up = _t([1.0]).nextafter(_t([2.0]))
    assert up.item() == np.nextafter(np.float32(1.0), np.float32(2.0))


def test_float_power_is_float64_and_copysign_promotes_ints():
    assert mt.float_power(_t([2], dtype=mt.int32), 2).dtype is mt.float64
    assert mt.float_power(_t([2.0]), _t([1], dtype=mt.int8)).dtype is mt.float64
    assert mt.copysign(_t([3, -4]), -1).dtype is mt.float32
    assert mt.angle(_t([True])).dtype is mt.float32


# --- histogramdd, map2_, unravel of split aliases ---


def test_histogramdd_matches_numpy():
    rng = np.random.default_rng(0)
    pts = rng.normal(size=(50, 2))
    w = rng.uniform(size=50)
    hist, edges = mt.histogramdd(mt.tensor(pts), bins=[3, 4], weight=mt.tensor(w))
    ref_hist, ref_edges = np.histogramdd(pts, bins=[3, 4], weights=w)
    np.testing.assert_allclose(hist.numpy(), ref_hist, rtol=1e-12, err_msg="hist")
    for got, want in zip(edges, ref_edges, strict=True):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, err_msg="edges")
    r = mt.histogramdd(mt.tensor(pts[:, :1]), bins=2, range=[-1.0, 1.0], density=True)
    ref = np.histogramdd(pts[:, :1], bins=2, range=[(-1.0, 1.0)], density=True)[0]
    np.testing.assert_allclose(r.hist.numpy(), ref, rtol=1e-12, err_msg="density")
    assert r.hist.dtype is mt.float64 and len(r.bin_edges) == 1


def test_map2_and_its_checks():
    x = _t([1.0, 2.0, 3.0])
    x.map2_(_t([10.0]), _t([1.0, 0.0, -1.0]), lambda a, b, c: a + b * c)
    np.testing.assert_array_equal(x.numpy(), [11.0, 2.0, -7.0])
    with pytest.raises(TypeError, match="must be Tensor"):
        x.map2_(1.0, x, lambda a, b, c: a)
    with pytest.raises(TypeError, match="expected"):
        x.map2_(_t([1]), x, lambda a, b, c: a)


def test_unsafe_splits_alias_the_safe_ones():
    x = mt.arange(6.0).reshape(2, 3)
    for got, want in (
        (x.unsafe_split(2, 1), x.split(2, 1)),
        (mt.unsafe_chunk(x, 2), x.chunk(2)),
        (x.unsafe_split_with_sizes([2, 1], 1), x.split_with_sizes([2, 1], 1)),
    ):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_select_is_a_view_and_fill_detach_functions():
    x = mt.zeros(2, 3)
    row = mt.select(x, 0, 1)
    row.fill_(5.0)
    assert x[1, 2].item() == 5.0
    f = mt.fill(x, 2)
    assert f is not x and x[0, 0].item() == 0.0 and f.sum().item() == 12.0
    y = x.clone().requires_grad_()
    z = y * 2
    assert mt.detach(z).requires_grad is False
    assert mt.detach_(z) is z and z.requires_grad is False


def test_empty_strided_and_new_empty_strided():
    e = mt.empty_strided((2, 3), (1, 2), dtype=mt.int32)
    assert e.shape == (2, 3) and e.dtype is mt.int32
    n = mt.zeros(1, dtype=mt.float64).new_empty_strided((4,), (1,))
    assert n.shape == (4,) and n.dtype is mt.float64


def test_special_fallbacks_without_scipy():
    """The pure-NumPy fallbacks used when SciPy is absent (minitorch/_backend/numpy_special.py)."""
    from minitorch._backend.numpy_special import FALLBACKS

    x = np.array([0.0, 0.3, 1.0, 2.5, 7.0, 40.0])
    p, q = FALLBACKS["gammainc"], FALLBACKS["gammaincc"]
    np.testing.assert_allclose(p(np.ones_like(x), x), -np.expm1(-x), rtol=1e-13, err_msg="P(1,x)")
    np.testing.assert_allclose(q(np.ones_like(x), x), np.exp(-x), rtol=1e-12, err_msg="Q(1,x)")
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(
        p(np.full_like(x, 0.5), x), erf(np.sqrt(x)), rtol=1e-13, err_msg="P(1/2,x)"
    )
    assert np.isnan(p(np.array([-1.0]), np.array([1.0]))).all()
    v = np.array([-3.0, -0.5, 0.0, 1.0, 4.0])
    h = 1e-5
    slope = (np.i0(v + h) - np.i0(v - h)) / (2 * h)  # I0' = I1
    np.testing.assert_allclose(FALLBACKS["i1"](v), slope, rtol=1e-8, atol=1e-12, err_msg="I1")
    np.testing.assert_allclose(FALLBACKS["i0"](v), np.i0(v), rtol=1e-15, err_msg="I0")


@pytest.mark.parametrize(
    "call",
    [
        lambda a, b: a // b,
        lambda a, b: a % b,
        lambda a, b: mt.div(a, b, rounding_mode="floor"),
        lambda a, b: mt.div(a, b, rounding_mode="trunc"),
        lambda a, b: mt.fmod(a, b),
        lambda a, b: 5 % b,
        lambda a, b: mt.remainder(a, b.bool()),
    ],
)
def test_integer_division_by_a_zero_element_raises_as_torch(call):
    # NumPy returns 0 there (with a warning); torch's CPU kernels raise
    a, b = mt.tensor([7, 8]), mt.tensor([2, 0])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        call(a, b)
    assert call(a, mt.tensor([2, 3])).shape == (2,)  # no zero: computed


def test_torch_exception_classes_for_unsupported_dtypes():
    with pytest.raises(NotImplementedError, match="abs_cpu"):
        mt.tensor([True]).abs()
    with pytest.raises(TypeError, match="only implemented on integer and Boolean"):
        ~mt.tensor([1.5])
    assert (~mt.tensor([1, 2])).tolist() == [-2, -3]


def test_out_of_range_python_ints_wrap_into_narrow_integer_tensors():
    # torch converts the number to the tensor's type first (C wrap-around); NumPy would raise
    img = mt.tensor([3, 250, 5], dtype=mt.uint8)
    assert (img + (-1)).tolist() == [2, 249, 4] and (img + (-1)).dtype is mt.uint8
    assert (img * 300).tolist() == [132, 248, 220]
    assert (img < 300).tolist() == [True, False, True]  # 300 is 44 as a uint8
    assert (mt.tensor([1], dtype=mt.int32) + 2**40).tolist() == [1]
    assert (mt.tensor([100], dtype=mt.int8) + 200).tolist() == [44]
    assert (img - 1).tolist() == [2, 249, 4]  # in range: unchanged path
    # true division does not cast the number to the tensor's type: no wrap
    np.testing.assert_allclose((img / 300).numpy(), np.array([3, 250, 5]) / 300, rtol=1e-6)
    assert (mt.tensor([1], dtype=mt.int32) / 2**40).item() > 0
    with pytest.raises(RuntimeError, match="without overflow"):
        img.clamp(max=300)


def test_half_subtraction_with_bool_is_refused_as_for_float32():
    m, h = mt.tensor([True, False]), mt.tensor([1.0, 2.0], dtype=mt.float16)
    for call in (lambda: h - m, lambda: m - h, lambda: h - True, lambda: h.sub_(m)):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            call()


def test_atan2_gradient_at_the_origin_is_zero():
    y = mt.tensor([0.0, 1.0], requires_grad=True)
    x = mt.tensor([0.0, 1.0], requires_grad=True)
    mt.atan2(y, x).sum().backward()
    assert y.grad.tolist() == [0.0, 0.5] and x.grad.tolist() == [0.0, -0.5]  # was nan at 0


def test_sign_of_nan_is_zero_and_unique_keeps_nans_apart():
    nan = float("nan")
    assert mt.sign(mt.tensor([nan, -2.0, 0.0, 3.0])).tolist() == [0.0, -1.0, 0.0, 1.0]
    assert mt.sgn(mt.tensor([nan])).tolist() == [0.0]
    assert mt.tensor(-2.0).sign().item() == -1.0 and mt.tensor(nan).sign().item() == 0.0
    assert mt.sign(mt.tensor([nan], dtype=mt.float16)).tolist() == [0.0]
    values, inverse, counts = mt.unique(
        mt.tensor([1.0, nan, nan, 1.0]), return_inverse=True, return_counts=True
    )
    assert len(values) == 3 and inverse.tolist() == [0, 1, 2, 0] and counts.tolist() == [2, 1, 1]


def test_custom_function_saves_tensors_only():
    class Twice(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match="argument 1 is of type int"):
        Twice.apply(mt.ones(1, requires_grad=True))


@pytest.mark.parametrize(
    "call, name, got",
    [
        (lambda: mt.exp(1.0), "exp", "float"),
        (lambda: mt.sqrt(2), "sqrt", "int"),
        (lambda: mt.mean([mt.ones(1)]), "mean", "list"),
        (lambda: mt.sum([1.0, 2.0]), "sum", "list"),
        (lambda: mt.argmax([1, 2]), "argmax", "list"),
        (lambda: mt.tanh(np.ones(2)), "tanh", "numpy.ndarray"),
        (lambda: mt.numel([1]), "numel", "list"),
    ],
)
def test_non_tensor_inputs_raise_torchs_type_error(call, name, got):
    # (internals leaked before: "'float' object has no attribute '_data'")
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'input' \(position 1\) must be "
                       rf"Tensor, not {got}"):
        call()


def test_clamp_of_a_non_tensor_lists_its_overloads():
    # both of torch's clamp overloads take the argument count: its message lists them
    with pytest.raises(TypeError, match=r"^clamp\(\) received an invalid combination of "
                       r"arguments - got \(numpy.ndarray, int, int\)"):
        mt.clamp(np.ones(2), 0, 1)


def test_python_ints_written_into_narrow_integer_tensors_as_c10_converts_them():
    u = mt.zeros(3, dtype=mt.uint8)
    u[0] = -1  # an unsigned type takes a negative value down to -max (two's complement)
    assert u.tolist() == [255, 0, 0]
    assert mt.full((2,), -1, dtype=mt.uint8).tolist() == [255, 255]
    assert u.clone().fill_(-2).tolist() == [254] * 3
    assert u.masked_fill(u == 0, -1).tolist() == [255, 255, 255]
    for call in (
        lambda: u.__setitem__(0, 300),
        lambda: u.fill_(300),
        lambda: u.masked_fill(u == 0, 300),
        lambda: u.index_fill(0, mt.tensor([0]), 300),
        lambda: mt.zeros(2, dtype=mt.int8).fill_(200),
    ):
        with pytest.raises(RuntimeError, match="value cannot be converted to type .* overflow"):
            call()
    v = mt.zeros(3, dtype=mt.uint8)
    v += 300  # arithmetic wraps
    assert v.tolist() == [44, 44, 44]


def test_floats_written_into_integer_tensors_are_range_checked():
    m = mt.tensor([True, False])
    for call, c_name in (
        (lambda: mt.zeros(2, dtype=mt.int64).masked_fill(m, float("-inf")), "int64_t"),
        (lambda: mt.zeros(2, dtype=mt.int16).__setitem__(m, -1e6), "int16_t"),
        (lambda: mt.zeros(2, dtype=mt.int64).__setitem__(0, float("nan")), "int64_t"),
        (lambda: mt.zeros(2, dtype=mt.int32).masked_fill(m, -1e10), "int"),
    ):
        with pytest.raises(RuntimeError, match=f"to type {c_name} without overflow"):
            call()
    assert mt.zeros(2, dtype=mt.int32).masked_fill(m, -7.9).tolist() == [-7, 0]


def test_remainder_zero_keeps_the_dividends_sign_and_byte_conditions(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once per process
    r = mt.arange(-4.0, 4.0) % 2
    assert np.signbit(r.numpy()).tolist()[:4] == [True, False, True, False]  # -0. as torch
    assert not np.signbit((mt.tensor([0.0, 3.0]) % -3).numpy()).any()
    with pytest.warns(UserWarning, match="uint8 condition"):
        out = mt.where(mt.tensor([1, 0], dtype=mt.uint8), mt.tensor([1.0, 2.0]), 0.0)
    assert out.tolist() == [1.0, 0.0]
    with pytest.raises(NotImplementedError, match="bincount_cpu"):
        mt.bincount(mt.tensor([1.0, 2.0]))


def test_zero_gradients_are_positive_zeros():
    # torch's selections and zeros_like print 0.0000, not -0.0000 (PPO's clamped ratio)
    x = mt.tensor([0.5, 1.0, 1.5], requires_grad=True)
    (x.clamp(0.8, 1.2) * -1.0).sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, 0.0] and not np.signbit(x.grad.numpy()[[0, 2]]).any()
    for op in (mt.floor, mt.round, mt.sign, mt.ceil):
        x.grad = None
        (op(x) * -1.0).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0] and not np.signbit(x.grad.numpy()).any()


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_numbers_filled_into_narrow_float_tensors_are_range_checked():
    # c10's checked conversion: masked_fill(mask, -1e9) on a float16 attention mask raises (NumPy
    # wrote -inf); inf, nan and arithmetic with the same number do not
    m = mt.tensor([True, False, True])
    h = mt.zeros(3, dtype=mt.float16)
    for call, c_name in (
        (lambda: h.masked_fill(m, -1e9), "c10::Half"),
        (lambda: h.masked_fill(m, mt.finfo(mt.float32).min), "c10::Half"),
        (lambda: mt.zeros(3, dtype=mt.float16).fill_(65505.0), "c10::Half"),
        (lambda: mt.full((2,), 70000, dtype=mt.float16), "c10::Half"),
        (lambda: h.index_fill(0, mt.tensor([0]), 1e5), "c10::Half"),
        (lambda: mt.zeros(2).fill_(1e300), "float"),
        (lambda: mt.full((2,), -1e300), "float"),
        (lambda: (mt.zeros(2, requires_grad=True) * 1).fill_(1e300), "float"),
    ):
        with pytest.raises(RuntimeError, match=f"to type {c_name} without overflow"):
            call()
    assert h.masked_fill(m, float("-inf")).tolist() == [float("-inf"), 0.0, float("-inf")]
    assert h.masked_fill(m, mt.finfo(mt.float16).min).tolist() == [-65504.0, 0.0, -65504.0]
    assert mt.full((1,), float("nan"), dtype=mt.float16).isnan().all()
    assert (h + 1e5).isinf().all()  # arithmetic is not range checked
    assert mt.full((2,), 1e300, dtype=mt.float64).tolist() == [1e300, 1e300]


def test_recorded_fill_rounds_a_float_to_half_through_float32():
    # 1 + 2^-11 + 2^-40 is 1.001 in float16 directly but 1.0 via float32 (c10 makes a Half from
    # a float); the recording fill_ wrote the direct rounding
    v = 1 + 2**-11 + 2**-40
    x = mt.zeros(2, dtype=mt.float16, requires_grad=True) * 1
    plain = mt.zeros(2, dtype=mt.float16).fill_(v)
    assert plain.tolist() == [1.0, 1.0]
    assert x.fill_(v).tolist() == [1.0, 1.0]


def test_pow_of_bool_and_narrow_int_tensors_by_numbers():
    b = mt.tensor([True, False])
    assert (b**True).dtype is mt.bool and (b**True).tolist() == [True, False]
    assert (b**False).tolist() == [True, True] and (b**2).dtype is mt.int64
    # the exponent as given: a uint8 wraps -2 into 254 for arithmetic, not here
    for dt in (mt.uint8, mt.int8, mt.int64):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            mt.tensor([1, 2], dtype=dt) ** -2
    assert (mt.tensor([1, 2], dtype=mt.uint8) ** 0).tolist() == [1, 1]
