"""out= validation and second derivatives against torch 2.13's behaviour: scatter_reduce /
index_reduce "prod" double backward with zeros (and torch's refusal with >1 zeros in the source
of one position), linalg.norm's second derivative at a zero vector, the ops whose out= must
have the result's dtype exactly (the *_copy view variants, slice_scatter, index_reduce,
index_add/index_copy, softmax/log_softmax), any/all's bool-or-uint8 out, nonzero's out checks,
and the out= dtype rules of nansum / nanmean / mean / logsumexp. Expected values and messages
were printed by torch for the same calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minitorch


def _f64(values, requires_grad=False):
    return minitorch.tensor(values, dtype=minitorch.float64, requires_grad=requires_grad)


def _exact(want, got):
    return re.escape(f"Expected out tensor to have dtype {want}, but got {got} instead")


# --- scatter_reduce / index_reduce "prod": double backward with zeros ---


@pytest.mark.parametrize("op", ["scatter_reduce", "index_reduce"])
def test_prod_gradgrad_one_zero_in_self_one_in_source(op):
    x = _f64([0.0, 2.0], requires_grad=True)
    s = _f64([0.0, 3.0, 4.0], requires_grad=True)
    y = getattr(x, op)(0, minitorch.tensor([0, 0, 1]), s, "prod")
    gx, gs = minitorch.autograd.grad(y.sum(), (x, s), create_graph=True)
    hx, hs = minitorch.autograd.grad(gx.sum() + gs.sum(), (x, s))
    np.testing.assert_allclose(hx.numpy(), [3.0, 1.0], err_msg=op)
    np.testing.assert_allclose(hs.numpy(), [3.0, 0.0, 1.0], err_msg=op)


def test_prod_gradgrad_mixed_groups():
    # (include_self=False was right before; it is checked beside the case that was not)
    expected = {
        True: ([0.0, 0.0, 10.0], [0.0, 0.0, -8.0, 0.0, 2.0, 0.0],
               [-3.0, 4.0, 6.0], [-3.0, 0.0, 7.0, 2.0, 1.0, 0.0]),
        False: ([0.0, 0.0, 0.0], [-3.0, 0.0, -4.0, 0.0, 2.0, 0.0],
                [0.0, 0.0, 0.0], [0.25, -1.0, -0.5, 1.0, 0.0, 1.5]),
    }  # fmt: skip
    for include_self, want in expected.items():
        x = _f64([0.0, 2.0, 1.0], requires_grad=True)
        s = _f64([0.0, 3.0, 0.0, 4.0, 5.0, -2.0], requires_grad=True)
        idx = minitorch.tensor([0, 0, 1, 1, 2, 0])
        y = x.scatter_reduce(0, idx, s, "prod", include_self=include_self)
        up = _f64([0.5, -1.0, 2.0])
        gx, gs = minitorch.autograd.grad((y * up).sum(), (x, s), create_graph=True)
        v = _f64([1.0, 2.0, -1.0, 0.5, 3.0, 1.5])
        w = _f64([1.0, -2.0, 0.5])
        hx, hs = minitorch.autograd.grad((gx * w).sum() + (gs * v).sum(), (x, s))
        for got, exp in zip((gx, gs, hx, hs), want, strict=True):
            np.testing.assert_allclose(
                got.detach().numpy(), exp, atol=1e-12, err_msg=f"include_self={include_self}"
            )


@pytest.mark.parametrize("op, name", [("index_reduce", "source"), ("scatter_reduce", "src")])
def test_prod_double_backward_refused_with_two_source_zeros(op, name):
    x = _f64([0.0, 5.0, 0.0], requires_grad=True)
    y = getattr(minitorch.ones(1, dtype=minitorch.float64), op)(
        0, minitorch.tensor([0, 0, 0]), x, "prod"
    )
    (g,) = minitorch.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 0.0, 0.0])  # first order: fine
    msg = (
        f"{op}(): Double backward is unsupported for {name} when >1 zeros in {name} are "
        "scattered to the same position in self"
    )
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        minitorch.autograd.grad(g.sum(), x)


# --- linalg.norm: second derivative at a zero vector ---


def test_norm_second_derivative_at_zero_is_nan():
    x = minitorch.zeros(2, 3, dtype=minitorch.float64)
    x[1] = _f64([1.0, 2.0, 2.0])
    x.requires_grad_()
    (g,) = minitorch.autograd.grad(minitorch.linalg.norm(x, dim=1).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy()[0], [0.0, 0.0, 0.0])
    (h,) = minitorch.autograd.grad((g * _f64([1.0, 2.0, 3.0])).sum(), x)
    assert np.isnan(h.numpy()[0]).all()
    np.testing.assert_allclose(h.numpy()[1], [-2 / 27, -4 / 27, 5 / 27], rtol=1e-12)


# --- out= of exactly the result's dtype ---

_X = lambda: minitorch.ones(2, 3)  # noqa: E731
_EXACT_OPS = {
    "permute_copy": lambda o: minitorch.permute_copy(_X(), (1, 0), out=o),
    "t_copy": lambda o: minitorch.t_copy(_X(), out=o),
    "transpose_copy": lambda o: minitorch.transpose_copy(_X(), 0, 1, out=o),
    "view_copy": lambda o: minitorch.view_copy(_X(), (3, 2), out=o),
    "alias_copy": lambda o: minitorch.alias_copy(_X().t(), out=o),
    "expand_copy": lambda o: minitorch.expand_copy(minitorch.ones(1, 2), (3, 2), out=o),
    "softmax": lambda o: minitorch.softmax(_X().t(), 0, out=o),
    "log_softmax": lambda o: minitorch.log_softmax(_X().t(), 0, out=o),
    "index_add": lambda o: minitorch.index_add(
        _X().t(), 0, minitorch.tensor([0]), minitorch.ones(1, 2), out=o
    ),
    "index_copy": lambda o: minitorch.index_copy(
        _X().t(), 0, minitorch.tensor([0]), minitorch.ones(1, 2), out=o
    ),
    "index_reduce": lambda o: minitorch.index_reduce(
        _X().t(), 0, minitorch.tensor([0]), minitorch.ones(1, 2), "prod", out=o
    ),
    "slice_scatter": lambda o: minitorch.slice_scatter(
        _X().t(), minitorch.ones(1, 2), 0, 0, 1, out=o
    ),
}


@pytest.mark.parametrize("name", sorted(_EXACT_OPS))
@pytest.mark.parametrize(
    "dtype, cname",
    [
        (minitorch.float64, "double"),
        (minitorch.int64, "long int"),
        (minitorch.float16, "c10::Half"),
    ],
)
def test_out_must_have_the_result_dtype(name, dtype, cname):
    with pytest.raises(RuntimeError, match=_exact("float", cname)):
        _EXACT_OPS[name](minitorch.zeros(3, 2, dtype=dtype))


def test_out_exact_multi_output_and_softmax_dtype():
    x = minitorch.arange(6.0).view(2, 3)
    outs = [minitorch.zeros(3), minitorch.zeros(3, dtype=minitorch.float64)]
    with pytest.raises(RuntimeError, match=_exact("float", "double")):
        minitorch.unbind_copy(x, out=outs)
    np.testing.assert_array_equal(outs[0].numpy(), [0.0, 1.0, 2.0])  # written in turn, as torch
    with pytest.raises(RuntimeError, match=_exact("float", "int")):
        minitorch.split_with_sizes_copy(
            x, [1, 1], out=[minitorch.zeros(1, 3, dtype=minitorch.int32)] * 2
        )
    with pytest.raises(RuntimeError, match=_exact("double", "float")):
        minitorch.softmax(minitorch.ones(2), 0, dtype=minitorch.float64, out=minitorch.zeros(2))
    with pytest.raises(RuntimeError, match=_exact("long int", "float")):  # before the kernel's
        minitorch.softmax(minitorch.ones(2, dtype=minitorch.int64), 0, out=minitorch.zeros(2))


def test_split_copy_copies_into_out_and_narrow_copy_message():
    x = minitorch.arange(6.0).view(2, 3)
    outs = [
        minitorch.zeros(1, 3, dtype=minitorch.int64),
        minitorch.zeros(1, 3, dtype=minitorch.int64),
    ]
    assert minitorch.split_copy(x, 1, 0, out=outs) is None
    assert outs[1].dtype is minitorch.int64
    np.testing.assert_array_equal(outs[1].numpy(), [[3, 4, 5]])
    with pytest.raises(RuntimeError, match=re.escape("Expected self.dtype() == output.dtype()")):
        minitorch.narrow_copy(x, 0, 0, 1, out=minitorch.zeros(1, 3, dtype=minitorch.float64))


@pytest.mark.parametrize(
    "call",
    [
        lambda o: minitorch.select_scatter(minitorch.ones(3, 2), minitorch.ones(2), 0, 0, out=o),
        lambda o: minitorch.diagonal_scatter(minitorch.ones(3, 2), minitorch.ones(2), out=o),
        lambda o: minitorch.as_strided_scatter(
            minitorch.ones(3, 2), minitorch.ones(2), (2,), (1,), out=o
        ),
    ],
)
def test_scatters_without_out(call):
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        call(minitorch.zeros(3, 2))


# --- any / all ---


def test_any_all_out_bool_or_uint8():
    with pytest.raises(RuntimeError, match="any only supports bool tensor for result, got: Float"):
        minitorch.any(minitorch.tensor([0.0, 1.0]), out=minitorch.zeros(()))
    with pytest.raises(RuntimeError, match="all only supports bool tensor for result, got: Long"):
        minitorch.all(minitorch.tensor([0.0, 1.0]), out=minitorch.zeros((), dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="all only supports bool tensor for result, got: Double"):
        minitorch.all(
            minitorch.tensor([[0.0, 1.0]]), dim=1, out=minitorch.zeros(1, dtype=minitorch.float64)
        )
    r = minitorch.any(minitorch.tensor([0.0, 1.0]), out=minitorch.zeros((), dtype=minitorch.uint8))
    assert r.dtype is minitorch.uint8 and r.item() == 1
    u8 = minitorch.tensor([3, 2], dtype=minitorch.uint8)
    r = minitorch.all(u8, out=minitorch.zeros((), dtype=minitorch.bool))
    assert r.dtype is minitorch.bool and r.item() is True


# --- nonzero ---


def test_nonzero_out_checks():
    x = minitorch.tensor([0.0, 1.0])
    msg = "nonzero: Expected out tensor to have scalar type Long but got scalar typeFloat"
    with pytest.raises(RuntimeError, match=msg):
        minitorch.nonzero(x, out=minitorch.zeros(1, 1))
    with pytest.raises(TypeError, match="nonzero\\(\\): argument 'out' must be Tensor, not tuple"):
        minitorch.nonzero(x, as_tuple=True, out=(minitorch.zeros(1, dtype=minitorch.int64),))
    with pytest.raises(RuntimeError, match="nonzero does not support the out kwarg when as_tuple"):
        minitorch.nonzero(x, as_tuple=True, out=minitorch.zeros(1, 1, dtype=minitorch.int64))


# --- nansum / nanmean / mean / logsumexp out= dtypes ---


def test_nansum_integral_input_sums_into_any_out():
    r = minitorch.nansum(
        minitorch.tensor([True, True]), out=minitorch.zeros((), dtype=minitorch.int64)
    )
    assert r.dtype is minitorch.int64 and r.item() == 2
    r = minitorch.nansum(
        minitorch.tensor([1, 0, 1], dtype=minitorch.int32),
        0,
        out=minitorch.zeros((), dtype=minitorch.bool),
    )
    assert r.dtype is minitorch.bool and r.item() is True
    with pytest.raises(
        RuntimeError,
        match=re.escape("nansum: provided dtype must match dtype of result. Got Float and Double."),
    ):
        minitorch.nansum(minitorch.ones(3), 0, dtype=minitorch.float64, out=minitorch.zeros(()))


def test_nanmean_out():
    x = minitorch.tensor([1.0, 0.0, 1.0])
    with pytest.raises(NotImplementedError, match="\"nansum_cpu\" not implemented for 'Long'"):
        minitorch.nanmean(x, out=minitorch.zeros((), dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match="integral types and 'Bool' are not supported"):
        minitorch.nanmean(minitorch.tensor([1, 2]), out=minitorch.zeros(()))
    r = minitorch.nanmean(x.half(), 0, out=minitorch.zeros(()))  # summed in out's float32
    assert r.item() == 0.6666666865348816


def test_mean_and_logsumexp_out_dtypes():
    x = minitorch.tensor([1.0, 0.0, 1.0])
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "mean.dtype_out(): input types can't be cast to the desired output type Long"
        ),
    ):
        minitorch.mean(x, out=minitorch.zeros((), dtype=minitorch.int64))
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Int"
    ):
        minitorch.mean(x.double(), 0, out=minitorch.zeros((), dtype=minitorch.int32))
    with pytest.raises(RuntimeError, match=_exact("double", "float")):
        minitorch.mean(x, 0, dtype=minitorch.float64, out=minitorch.zeros(()))
    assert minitorch.mean(x.half(), 0, out=minitorch.zeros(())).item() == 0.6666666865348816
    msg = "logsumexp(): Expected floating point type for result tensor, but got: Long"
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        minitorch.logsumexp(x, 0, out=minitorch.zeros((), dtype=minitorch.int64))
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        minitorch.logsumexp(
            minitorch.tensor([1, 2]), 0, out=minitorch.zeros((), dtype=minitorch.int64)
        )
