"""Session 60: differences in torch.nn.functional found by differential fuzzing against torch
2.13, fixed (expected values computed with NumPy in float64 or written out;
tests/reference/test_s60_functional_ref.py compares with torch)."""

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck


def _rand(rng, *shape):
    return rng.standard_normal(shape)


# --- linear: which bias shapes torch hands to addmm ---


def test_linear_batched_input_with_a_row_bias_adds_it_per_row():
    # torch flattens a contiguous batch into rows and runs addmm(bias, rows, weight.t()) for a
    # bias with one size other than 1: a (4, 1) bias is one number per row of the flattened input
    rng = np.random.default_rng(0)
    x, w, b = _rand(rng, 4, 1, 3), _rand(rng, 2, 3), _rand(rng, 4, 1)
    out = F.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b, requires_grad=True))
    want = (x.reshape(4, 3) @ w.T + b).reshape(4, 1, 2)
    assert out.shape == (4, 1, 2)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, err_msg="linear (4, 1) bias")
    assert type(out.grad_fn).__name__ == "ViewBackward0"


def test_linear_vector_input_with_a_matrix_row_bias():
    rng = np.random.default_rng(1)
    x, w, b = _rand(rng, 3), _rand(rng, 2, 3), _rand(rng, 1, 2)
    out = F.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b))
    assert out.shape == (2,)
    np.testing.assert_allclose(out.numpy(), w @ x + b[0], rtol=1e-12, err_msg="linear (1, 2)")


def test_linear_vector_weight_with_a_scalar_bias_on_a_batch():
    # a 0-d bias is not addmm's: matmul (a matrix-vector product) and the bias added after
    rng = np.random.default_rng(2)
    x, w = _rand(rng, 5, 4, 3), _rand(rng, 3)
    for b in (np.float64(0.5), np.full((1, 1), 0.5)):
        out = F.linear(torch.tensor(x), torch.tensor(w), torch.tensor(b))
        assert out.shape == (5, 4)
        np.testing.assert_allclose(out.numpy(), x @ w + 0.5, rtol=1e-12, err_msg=str(b.shape))


def test_linear_vector_weight_with_a_row_bias_refuses():
    with pytest.raises(RuntimeError, match="^mat2 must be a matrix, got 1-D tensor$"):
        F.linear(torch.ones(4, 1, 3), torch.ones(3), torch.ones(4, 1))


def test_linear_row_bias_dtype_is_checked_as_addmm():
    with pytest.raises(
        RuntimeError, match="^self and mat2 must have the same dtype, but got Double and Float$"
    ):
        F.linear(torch.ones(4, 1, 3), torch.ones(2, 3), torch.ones(1, 2, dtype=torch.float64))
    with pytest.raises(
        RuntimeError,
        match=r"^expand\(torch.FloatTensor\{\[1, 1, 2\]\}, size=\[4, 2\]\): the number of sizes",
    ):
        F.linear(torch.ones(4, 1, 3), torch.ones(2, 3), torch.ones(1, 1, 2))


def test_linear_row_bias_gradcheck():
    rng = np.random.default_rng(3)
    args = [
        torch.tensor(_rand(rng, 4, 1, 3), requires_grad=True),
        torch.tensor(_rand(rng, 2, 3), requires_grad=True),
        torch.tensor(_rand(rng, 4, 1), requires_grad=True),
    ]
    assert gradcheck(F.linear, args)
    assert gradgradcheck(F.linear, args)


# --- bilinear: torch's _trilinear refuses 0 in-features ---


@pytest.mark.parametrize(("i1", "i2"), [(0, 2), (3, 0), (0, 0)])
def test_bilinear_zero_in_features_refuses(i1, i2):
    msg = (
        r"^cannot reshape tensor of 0 elements into shape \[-1, 0\] because the unspecified "
        r"dimension size -1 can be any value and is ambiguous$"
    )
    with pytest.raises(RuntimeError, match=msg):
        F.bilinear(torch.ones(2, i1), torch.ones(2, i2), torch.ones(4, i1, i2))


def test_bilinear_empty_batch_or_zero_out_features_still_run():
    assert F.bilinear(torch.ones(0, 3), torch.ones(0, 2), torch.ones(4, 3, 2)).shape == (0, 4)
    out = F.bilinear(torch.ones(5, 2, 3), torch.ones(5, 2, 2), torch.ones(0, 3, 2))
    assert out.shape == (5, 2, 0)


# --- adaptive pools: torch's backward refuses an empty gradient past the batch dim ---


def _empty_grad_msg(op, sizes, d):
    return (
        rf"^{op}_backward\(\): Expected grad_output to have non-zero size for non-batch "
        rf"dimensions, but grad_output has sizes \[{sizes}\] with dimension {d} being empty$"
    )


@pytest.mark.parametrize(
    ("fn", "shape", "out", "op", "sizes", "d"),
    [
        (F.adaptive_max_pool2d, (1, 2, 4, 3), (0, 3), "adaptive_max_pool2d", "1, 2, 0, 3", 2),
        (F.adaptive_max_pool2d, (2, 4, 2), (1, 0), "adaptive_max_pool2d", "2, 1, 0", 2),
        (F.adaptive_max_pool1d, (1, 2, 4), 0, "adaptive_max_pool2d", "1, 2, 1, 0", 3),
        (F.adaptive_max_pool3d, (1, 2, 3, 3, 3), (0, 1, 1), "adaptive_max_pool3d",
         "1, 2, 0, 1, 1", 2),
        (F.adaptive_avg_pool2d, (1, 2, 4, 3), (0, 3), "adaptive_avg_pool2d", "1, 2, 0, 3", 2),
        (F.adaptive_avg_pool1d, (2, 4), 0, "adaptive_avg_pool2d", "2, 1, 0", 2),
        (F.adaptive_avg_pool3d, (2, 3, 3, 3), (1, 0, 1), "adaptive_avg_pool3d", "2, 1, 0, 1", 2),
        # no channel: the average pools' forward allows it, their backward does not
        (F.adaptive_avg_pool2d, (1, 0, 3, 3), 2, "adaptive_avg_pool2d", "1, 0, 2, 2", 1),
        (F.adaptive_avg_pool2d, (1, 0, 4, 4), 2, "adaptive_avg_pool2d", "1, 0, 2, 2", 1),
        (F.adaptive_avg_pool1d, (1, 0, 3), 2, "adaptive_avg_pool2d", "1, 0, 1, 2", 1),
    ],
)
def test_adaptive_pool_empty_gradient_refused(fn, shape, out, op, sizes, d):
    x = torch.ones(*shape, requires_grad=True)
    y = fn(x, out)
    assert y.numel() == 0
    with pytest.raises(RuntimeError, match=_empty_grad_msg(op, sizes, d)):
        y.sum().backward()


def test_interpolate_area_to_an_empty_size_refuses_backward():
    x = torch.ones(1, 1, 1, 5, requires_grad=True)
    y = F.interpolate(x, scale_factor=(0.5, 3.0), mode="area")
    assert y.shape == (1, 1, 0, 15)
    msg = _empty_grad_msg("adaptive_avg_pool2d", "1, 1, 0, 15", 2)
    with pytest.raises(RuntimeError, match=msg):
        y.sum().backward()


@pytest.mark.parametrize(
    ("fn", "shape"),
    [
        (F.adaptive_avg_pool2d, (0, 2, 3, 3)),
        (F.adaptive_avg_pool2d, (0, 3, 3)),  # unbatched: no channel is fine
        (F.adaptive_max_pool2d, (0, 2, 3, 3)),
        (F.adaptive_avg_pool1d, (0, 4)),
        (F.adaptive_avg_pool2d, (2, 0, 4, 2)),  # one output position: a mean, no check
    ],
)
def test_adaptive_pool_empty_batch_backward_runs(fn, shape):
    x = torch.ones(*shape, requires_grad=True)
    out = 1 if shape == (2, 0, 4, 2) else 2
    fn(x, out).sum().backward()
    assert x.grad.shape == shape


def test_adaptive_max_pool1d_empty_output_graph():
    y, idx = F.adaptive_max_pool1d(torch.ones(1, 2, 4, requires_grad=True), 0, True)
    assert y.shape == (1, 2, 0) and idx.shape == (1, 2, 0) and idx.dtype == torch.int64
    assert type(y.grad_fn).__name__ == "SqueezeBackward1"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AdaptiveMaxPool2DBackward0"


# --- huber_loss: torch's backward kernel takes one dtype ---


@pytest.mark.parametrize(
    ("x_dtype", "t_dtype", "x_grad", "t_grad", "msg"),
    [
        (torch.float64, torch.float32, True, False, "Found dtype Float but expected Double"),
        (torch.float32, torch.float64, False, True, "Found dtype Float but expected Double"),
        (torch.float32, torch.float64, True, True, "Found dtype Double but expected Float"),
        (torch.float32, torch.float16, True, False, "Found dtype Half but expected Float"),
        (torch.float32, torch.int64, True, False, "Found dtype Long but expected Float"),
    ],
)
@pytest.mark.parametrize("kw", [{}, {"reduction": "none"}, {"weight": torch.ones(2)}])
def test_huber_loss_two_dtypes_forward_runs_backward_refuses(x_dtype, t_dtype, x_grad, t_grad,
                                                             msg, kw):
    x = torch.tensor([1.0, -3.0], dtype=x_dtype, requires_grad=x_grad)
    t = torch.tensor([0.0, 0.0], dtype=t_dtype, requires_grad=t_grad)
    out = F.huber_loss(x, t, **kw)
    want = np.array([0.5, 2.5])  # 0.5 d^2 where |d| < 1, |d| - 0.5 elsewhere
    want = want if kw.get("reduction") == "none" else want.mean()
    np.testing.assert_allclose(out.detach().double().numpy(), want, err_msg=str(kw))
    assert out.dtype == x_dtype
    if not kw:
        assert type(out.grad_fn).__name__ == "HuberLossBackward0"
        assert out.grad_fn._saved_delta == 1.0 and out.grad_fn._saved_reduction == 1
    with pytest.raises(RuntimeError, match=f"^{msg}$"):
        out.sum().backward()


def test_huber_loss_two_dtypes_without_grad_is_plain():
    out = F.huber_loss(torch.tensor([1.0, -3.0]), torch.zeros(2, dtype=torch.float64))
    assert out.grad_fn is None and out.item() == 1.5


# --- convolution: torch's dilated kernel takes floating types and int64 only ---


@pytest.mark.parametrize(
    ("dtype", "name"),
    [(torch.int32, "Int"), (torch.int16, "Short"), (torch.int8, "Char"), (torch.uint8, "Byte"),
     (torch.bool, "Bool")],
)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_conv_dilated_small_integer_input_not_implemented(dtype, name, n):
    x = torch.ones((2, 2) + (5,) * n, dtype=dtype)
    w = torch.ones((2, 2) + (3,) * n, dtype=dtype)
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    msg = f"^\"slow_conv_dilated<>\" not implemented for '{name}'$"
    with pytest.raises(NotImplementedError, match=msg):
        conv(x, w, dilation=2)
    with pytest.raises(NotImplementedError, match=msg):  # before the weight's dtype
        conv(x, w.float(), dilation=2, padding="same")
    assert conv(x[:0], w, dilation=2).shape[0] == 0  # no input: no kernel runs


def test_conv_dilated_int_checks_the_bias_dtype_first():
    x, w = torch.ones(1, 2, 5, dtype=torch.int32), torch.ones(2, 2, 3, dtype=torch.int32)
    with pytest.raises(RuntimeError, match=r"^Input type \(int\) and bias type \(float\)"):
        F.conv1d(x, w, torch.ones(2), dilation=2)


def test_conv_dilated_int64_runs():
    x = torch.arange(10).reshape(1, 2, 5)
    out = F.conv1d(x, torch.ones(1, 2, 2, dtype=torch.int64), dilation=2)
    a = np.arange(10).reshape(2, 5)
    want = (a[:, :3] + a[:, 2:]).sum(0)
    assert out.dtype == torch.int64 and out.tolist() == [[want.tolist()]]


# --- instance_norm: the running statistics' dtypes, as torch hands them to batch_norm ---


def _instance(x_dtype, mean_dtype, var_dtype, w_dtype=None, n=2, use_input_stats=True):
    x = torch.tensor(np.arange(n * 2 * 3.0).reshape(n, 2, 3) % 4, dtype=x_dtype)
    rm = torch.zeros(2, dtype=mean_dtype)
    rv = torch.ones(2, dtype=var_dtype)
    w = None if w_dtype is None else torch.ones(2, dtype=w_dtype)
    out = F.instance_norm(x, rm, rv, w, use_input_stats=use_input_stats, momentum=0.5)
    return out, rm, rv


_F32, _F64 = torch.float32, torch.float64
_MIXED = "mixed dtype \\(CPU\\): "


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize(
    ("dtypes", "msg"),
    [
        ((_F32, _F32, _F64, None), "expected scalar type Float but found Double"),
        ((_F32, _F32, _F64, _F32), "expected scalar type Float but found Double"),
        ((_F64, _F64, _F32, None), "expected scalar type Double but found Float"),
        ((_F64, _F32, _F64, _F32), _MIXED + "expect parameter to have scalar type of Float"),
        ((_F64, _F32, _F32, _F32), _MIXED + "all inputs must share same datatype."),
    ],
)
def test_instance_norm_running_var_of_another_dtype_refused(dtypes, msg, use_input_stats):
    # torch converts the running statistics to the weight's (else the input's) dtype only where
    # the running mean's differs; a running mean of that dtype leaves the variance as it is
    with pytest.raises(RuntimeError, match=f"^{msg}$"):
        _instance(*dtypes, use_input_stats=use_input_stats)


@pytest.mark.parametrize(
    ("x_dtype", "mean_dtype", "var_dtype"),
    [(torch.float32, torch.float64, torch.float32), (torch.float32, torch.float64, torch.float64),
     (torch.float64, torch.float32, torch.float64), (torch.float64, torch.float32, torch.float32)],
)
def test_instance_norm_running_mean_of_another_dtype_converts_both(x_dtype, mean_dtype, var_dtype):
    out, rm, rv = _instance(x_dtype, mean_dtype, var_dtype)
    assert out.dtype == x_dtype and rm.dtype == mean_dtype and rv.dtype == var_dtype
    a = np.arange(12.0).reshape(2, 2, 3) % 4
    mean, var = a.mean(-1), a.var(-1)
    want = (a - mean[..., None]) / np.sqrt(var[..., None] + 1e-5)
    tol = 1e-6 if x_dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(out.double().numpy(), want, rtol=tol, atol=tol, err_msg="out")
    # momentum 0.5 of the per-instance statistics averaged over the batch (unbiased variance)
    np.testing.assert_allclose(rm.double().numpy(), 0.5 * mean.mean(0), rtol=1e-6, err_msg="rm")
    want_rv = 0.5 + 0.5 * (var * 3 / 2).mean(0)
    np.testing.assert_allclose(rv.double().numpy(), want_rv, rtol=1e-6, err_msg="rv")


def test_instance_norm_no_instance_skips_the_dtype_checks():
    out, rm, rv = _instance(torch.float32, torch.float32, torch.float64, n=0)
    assert out.shape == (0, 2, 3) and torch.isnan(rm).all() and torch.isnan(rv).all()
    with pytest.raises(IndexError, match=r"^select\(\): index 0 out of range"):
        _instance(torch.float32, torch.float32, torch.float64, torch.float64, n=0)


def test_instance_norm_missing_statistics_before_the_dtypes():
    with pytest.raises(RuntimeError, match="^Expected running_mean and running_var to be defined"):
        F.instance_norm(torch.ones(2, 2, 3), None, None, torch.ones(2, dtype=torch.float64),
                        use_input_stats=False)


# --- interpolate(mode="area") on integers: the adaptive average pool's own checks ---


@pytest.mark.parametrize(
    ("shape", "kw"),
    [((1, 1, 2), {"scale_factor": 0.7}), ((1, 1, 2), {"size": 1}),
     ((1, 1, 2, 1), {"size": (1, 1)}), ((1, 1, 2, 1, 1), {"size": (1, 1, 1)})],
)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool, torch.uint8])
def test_interpolate_area_to_one_position_is_a_mean(shape, kw, dtype):
    # torch's adaptive average pools take a mean for a single output position: mean's error
    with pytest.raises(RuntimeError, match=r"^mean\(\): could not infer output dtype"):
        F.interpolate(torch.ones(shape, dtype=dtype), mode="area", **kw)


def test_interpolate_area_integer_kernel_and_empty_results():
    x = torch.ones(1, 1, 4, dtype=torch.int32)
    msg = "^\"adaptive_avg_pool2d\" not implemented for 'Int'$"
    with pytest.raises(NotImplementedError, match=msg):
        F.interpolate(x, size=2, mode="area")
    x3 = torch.ones(1, 1, 2, 2, 2, dtype=torch.int64)
    msg = "^\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'$"
    with pytest.raises(NotImplementedError, match=msg):
        F.interpolate(x3, size=(2, 1, 2), mode="area")
    out = F.interpolate(torch.ones(0, 1, 4, dtype=torch.int32), size=2, mode="area")
    assert out.shape == (0, 1, 2) and out.dtype == torch.int32


# --- pad(mode="reflect"/"replicate") of bool: torch checks the sizes before the dtype ---


@pytest.mark.parametrize(
    ("mode", "shape", "pads", "msg"),
    [
        ("reflect", (1, 2, 3), (3, 1), r"^Argument #4: Padding size should be less than"),
        ("reflect", (2, 2, 3), (1, 2, 3, 2), r"^Argument #6: Padding size should be less than"),
        ("reflect", (1, 2, 3), (-1, -2), r"^input \(W: 3\) is too small. Calculated output W: 0"),
        ("replicate", (1, 2, 3), (-4, 0), r"^input \(W: 3\) is too small. Calculated output W: -1"),
    ],
)
def test_pad_bool_sizes_checked_first(mode, shape, pads, msg):
    with pytest.raises(RuntimeError, match=msg):
        F.pad(torch.ones(shape, dtype=torch.bool), pads, mode=mode)


@pytest.mark.parametrize(
    ("mode", "kernel"), [("reflect", "reflection"), ("replicate", "replication")]
)
def test_pad_bool_valid_sizes_not_implemented(mode, kernel):
    msg = f"^\"{kernel}_pad1d\" not implemented for 'Bool'$"
    with pytest.raises(NotImplementedError, match=msg):
        F.pad(torch.ones(1, 2, 3, dtype=torch.bool), (1, 1), mode=mode)
