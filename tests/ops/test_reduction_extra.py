"""Reductions and matmul beyond the op table: errors, return types, ties, nan, empties, dtypes."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers


def T(data, device="cpu", **kw):
    return mt.tensor(data, device=device, **kw)


def host(t):
    return t.detach().cpu().numpy()


def raises(exc, match, fn, *args, **kwargs):
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


# --- return types ---


def test_return_type_is_a_named_tuple_with_torch_repr():
    r = T([[1.0, 5.0], [7.0, 2.0]]).max(1)
    assert isinstance(r, tuple) and len(r) == 2
    values, indices = r
    assert r.values is values and r[1] is indices
    assert type(r).__name__ == "max" and r.n_fields == 2
    assert repr(r) == ("torch.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))")
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r)
    np.testing.assert_array_equal(host(back.values), [5.0, 7.0])


def test_return_type_constructor_checks_length():
    with pytest.raises(TypeError, match="2-sequence"):
        mt.return_types.min((1,))
    assert mt.return_types.aminmax((1, 2)).max == 2


# --- sum / mean ---


def test_sum_dtypes(device):
    assert T([1, 2], device, dtype=mt.int32).sum().dtype is mt.int64
    assert T([True, True], device).sum().item() == 2
    assert T([1, 2], device).sum(dtype=mt.float32).dtype is mt.float32
    assert T([1.5, 2.0], device).sum(dtype=mt.int64).item() == 3
    assert T([1.0], device, dtype=mt.float16).sum().dtype is mt.float16


def test_sum_dims_and_errors():
    a = mt.ones(2, 3)
    assert a.sum([]).item() == 6 and a.sum(()).item() == 6
    assert a.sum(axis=0, keepdims=True).shape == (1, 3)
    assert mt.tensor(3.0).sum(-1).item() == 3.0
    raises(IndexError, r"expected to be in range of \[-2, 1\], but got 2", a.sum, 2)
    raises(RuntimeError, "dim 0 appears multiple times in the list of dims", a.sum, (0, 0))
    raises(TypeError, r"sum\(\) received an invalid combination of .* got \(float\)", a.sum, 0.5)


def test_sum_and_mean_of_empty(device):
    e = mt.zeros(0, 3, device=device)
    assert e.sum().item() == 0
    assert math.isnan(e.mean().item())
    assert np.isnan(host(e.mean(0))).all() and e.mean(1).shape == (0,)


def test_mean_rejects_integers():
    msg = "mean\\(\\): could not infer output dtype. Input dtype must be either a floating point"
    raises(RuntimeError, msg + ".*Got: Long", mt.tensor([1, 2]).mean)
    raises(RuntimeError, msg + ".*Got: Bool", mt.tensor([True]).mean, 0)
    raises(
        RuntimeError,
        "Optional dtype must be either a floating point.*Got: Long",
        mt.ones(2).mean,
        dtype=mt.int64,
    )
    assert mt.tensor([1, 2]).mean(dtype=mt.float32).item() == 1.5


def test_grad_fn_names():
    a = mt.ones(2, 3, requires_grad=True)
    names = {
        "SumBackward0": a.sum(),
        "SumBackward1": a.sum(0),
        "MeanBackward0": a.mean(),
        "MeanBackward1": a.mean(1),
        "MaxBackward1": a.max(),
        "MaxBackward0": a.max(0).values,
        "MinBackward1": a.min(),
        "MinBackward0": a.min(0)[0],
        "AmaxBackward0": a.amax(0),
        "LogsumexpBackward0": a.logsumexp(1),
        "ProdBackward0": a.prod(),
        "ProdBackward1": a.prod(1),
        "MmBackward0": a @ mt.ones(3, 2),
        "BmmBackward0": mt.bmm(a[None], mt.ones(1, 3, 2)),
        "DotBackward0": a[0] @ a[1],
        "MvBackward0": a @ mt.ones(3),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name


# --- max / min / argmax ---


def test_max_min_forms(device):
    a = T([[1.0, 5.0, 5.0], [2.0, 2.0, 1.0]], device)
    assert a.max().item() == 5.0 and a.min().item() == 1.0
    v, i = mt.max(a, 1)
    np.testing.assert_array_equal(host(v), [5.0, 2.0])
    np.testing.assert_array_equal(host(i), [1, 0])  # the first of equal values
    v, i = a.min(dim=1, keepdim=True)
    assert v.shape == (2, 1) and host(i).tolist() == [[0], [2]]
    np.testing.assert_array_equal(
        host(mt.max(a, T([3.0, 3.0, 3.0], device))), [[3, 5, 5], [3, 3, 3]]
    )
    assert a.max(axis=0).indices.tolist() == [1, 0, 0]
    z = T(3.0, device)
    assert z.max(0).values.item() == 3.0 and z.max(0).indices.item() == 0


def test_max_errors():
    raises(
        RuntimeError,
        r"max\(\): Expected reduction dim to be specified for input.numel\(\) "
        "== 0",
        mt.zeros(0).max,
    )
    raises(RuntimeError, r"min\(\): Expected reduction dim", mt.zeros(0, 2).min)
    raises(
        IndexError,
        r"max\(\): Expected reduction dim 0 to have non-zero size",
        mt.zeros(0, 3).max,
        0,
    )
    assert mt.zeros(0, 3).max(1).values.shape == (0,)
    raises(
        TypeError, "max\\(\\) received an invalid combination of arguments", mt.max, mt.ones(2), 2.0
    )
    raises(IndexError, "Dimension out of range", mt.ones(2).max, 1)
    raises(
        IndexError,
        r"amax\(\): Expected reduction dim 0 to have non-zero size",
        mt.zeros(0, 3).amax,
        0,
    )
    raises(RuntimeError, r"amax\(\): Expected reduction dim to be specified", mt.zeros(0).amax)


def test_max_nan_propagates():
    a = mt.tensor([1.0, float("nan"), 3.0])
    assert math.isnan(a.max().item()) and math.isnan(a.min().item())
    r = a.max(0)
    assert math.isnan(r.values.item()) and r.indices.item() == 1
    assert a.argmax().item() == 1 and a.argmin().item() == 1


def test_full_max_splits_the_gradient_among_ties(device):
    a = T([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], device, requires_grad=True)
    a.max().backward()
    np.testing.assert_allclose(host(a.grad), [[0, 0.5, 0.5], [0, 0, 0]])
    a.grad = None
    a.amax(1).sum().backward()
    np.testing.assert_allclose(host(a.grad), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    a.grad = None
    a.max(1).values.sum().backward()  # with dim: all to the index returned
    np.testing.assert_allclose(host(a.grad), [[0, 1, 0], [1, 0, 0]])


def test_argmax_forms(device):
    a = T([[1.0, 9.0], [7.0, 2.0]], device)
    assert a.argmax().item() == 1 and a.argmin().item() == 0
    assert a.argmax(keepdim=True).shape == (1, 1)
    assert host(a.argmax(0)).tolist() == [1, 0] and a.argmax(1, keepdim=True).shape == (2, 1)
    assert a.argmax(0).dtype is mt.int64
    raises(RuntimeError, r"argmax\(\): does not support bool input", mt.tensor([True]).argmax)
    raises(IndexError, r"argmax\(\): Expected reduction dim to be specified", mt.zeros(0, 3).argmax)
    assert mt.zeros(0, 3).argmax(1).shape == (0,)


# --- logsumexp / prod ---


def test_logsumexp(device):
    a = T([[1000.0, 1000.0], [-1000.0, -1000.0]], device)
    np.testing.assert_allclose(host(a.logsumexp(1)), [1000 + math.log(2), -1000 + math.log(2)])
    inf = T([float("-inf"), float("-inf")], device)
    assert inf.logsumexp(0).item() == float("-inf")
    assert T([float("inf"), 1.0], device).logsumexp(0).item() == float("inf")
    assert T([1, 2], device).logsumexp(0).dtype is mt.float32
    assert host(mt.zeros(0, 3, device=device).logsumexp(0)).tolist() == [-math.inf] * 3
    raises(
        TypeError,
        'logsumexp\\(\\) missing 1 required positional arguments: "dim"',
        mt.ones(2).logsumexp,
    )


def test_prod_gradient_through_zeros():
    a = mt.tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]], requires_grad=True)
    a.prod(1).sum().backward()
    np.testing.assert_allclose(host(a.grad), [[0, 6, 0], [0, 0, 0], [8, 4, 2]])
    assert mt.tensor([1, 2], dtype=mt.int32).prod().dtype is mt.int64
    raises(TypeError, "prod\\(\\) received an invalid combination", mt.ones(2, 2).prod, (0, 1))


# --- matmul ---


@pytest.mark.parametrize(
    "sa, sb, msg",
    [
        ((3, 4), (5, 2), r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x2\)"),
        ((), (3, 4), "both arguments to matmul need to be at least 1D, but they are 0D and 2D"),
        (
            (3,),
            (4,),
            r"inconsistent tensor size, expected tensor \[3\] and src \[4\] to have the "
            "same number of elements, but got 3 and 4 elements respectively",
        ),
        ((2, 3), (4,), r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
        ((3,), (4, 2), r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x2\)"),
        (
            (2, 2, 3),
            (2, 4, 2),
            r"Expected size for first two dimensions of batch2 tensor to be: "
            r"\[2, 3\] but got: \[2, 4\].",
        ),
        (
            (2, 2, 3),
            (3, 3, 2),
            r"The size of tensor a \(2\) must match the size of tensor b "
            r"\(3\) at non-singleton dimension 0",
        ),
        ((2, 2, 3), (4, 2), r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 4x2\)"),
        ((2, 2, 3), (2,), r"size mismatch, got input \(4\), mat \(4x3\), vec \(2\)"),
        ((3, 2, 2, 3), (2, 4, 2), r"batch2 tensor to be: \[6, 3\] but got: \[6, 4\]"),
    ],
)
def test_matmul_errors(sa, sb, msg):
    raises(RuntimeError, msg, mt.matmul, mt.ones(sa), mt.ones(sb))


def test_matmul_dtype_errors_and_types():
    f, d = mt.ones(2, 3), mt.ones(3, 2, dtype=mt.float64)
    raises(
        RuntimeError,
        "expected m1 and m2 to have the same dtype, but got: float != double",
        mt.matmul,
        f,
        d,
    )
    raises(
        RuntimeError,
        "dot : expected both vectors to have same dtype, but found Float and Double",
        mt.matmul,
        mt.ones(3),
        mt.ones(3, dtype=mt.float64),
    )
    raises(
        RuntimeError,
        "addmv input tensors must have the same dtype, but got Double, Float, and Double",
        mt.matmul,
        f,
        mt.ones(3, dtype=mt.float64),
    )
    raises(
        RuntimeError,
        "expected scalar type Float but found Double",
        mt.bmm,
        mt.ones(1, 2, 3),
        mt.ones(1, 3, 2, dtype=mt.float64),
    )
    raises(
        NotImplementedError,
        "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        mt.matmul,
        mt.ones(2, 2, dtype=mt.bool),
        mt.ones(2, 2, dtype=mt.bool),
    )
    raises(
        TypeError,
        "matmul\\(\\): argument 'other' \\(position 2\\) must be Tensor, not int",
        mt.matmul,
        f,
        2,
    )
    raises(TypeError, "unsupported operand type", lambda: f @ 2)
    raises(TypeError, "unsupported operand type", lambda: 2 @ f)
    ints = mt.ones(2, 3, dtype=mt.int64) @ mt.ones(3, 2, dtype=mt.int64)
    assert ints.dtype is mt.int64 and host(ints).tolist() == [[3, 3], [3, 3]]


def test_mm_bmm_require_ranks():
    raises(RuntimeError, "self must be a matrix", mt.mm, mt.ones(3), mt.ones(3, 2))
    raises(RuntimeError, "mat2 must be a matrix", mt.mm, mt.ones(2, 3), mt.ones(3))
    raises(RuntimeError, "batch1 must be a 3D tensor", mt.bmm, mt.ones(2, 3), mt.ones(3, 2))
    raises(RuntimeError, "batch2 must be a 3D tensor", mt.bmm, mt.ones(2, 2, 3), mt.ones(2, 3))
    raises(
        RuntimeError,
        r"batch2 tensor to be: \[2, 3\] but got: \[3, 3\]",
        mt.bmm,
        mt.ones(2, 2, 3),
        mt.ones(3, 3, 2),
    )


def test_matmul_empty(device):
    assert mt.matmul(mt.ones(0, 3, device=device), mt.ones(3, 2, device=device)).shape == (0, 2)
    z = mt.matmul(mt.ones(2, 0, device=device), mt.ones(0, 2, device=device))
    assert host(z).tolist() == [[0, 0], [0, 0]]
    assert mt.matmul(mt.ones(0, device=device), mt.ones(0, device=device)).item() == 0


def test_matmul_double_backward_batched(device):
    a = T(np.arange(12.0).reshape(2, 2, 3) / 10, device, requires_grad=True)
    b = T(np.arange(6.0).reshape(3, 2) / 10, device, requires_grad=True)
    (ga,) = mt.autograd.grad((a @ b).pow(2).sum(), a, create_graph=True)
    (gb,) = mt.autograd.grad(ga.sum(), b)
    assert gb.shape == (3, 2)


# --- the device path stays on the device ---


def test_no_host_transfers_on_the_strict_device():
    a = T(np.arange(24.0).reshape(2, 3, 4) / 7, "strict", requires_grad=True)
    b = T(np.arange(20.0).reshape(4, 5) / 7, "strict", requires_grad=True)
    with count_transfers() as c:
        outs = [
            a.sum(),
            a.mean(1),
            a.max(),
            a.max(2).values,
            a.amin((0, 1)),
            a.logsumexp(-1),
            a.prod(0),
            (a @ b).sum(),
            a.argmax(),
            mt.einsum("bij,jk->bik", a, b),
        ]
        total = outs[0]
        for o in outs[1:]:
            if o.dtype.is_floating_point:
                total = total + o.sum()
        total.backward()
    assert c.count == 0


# --- std / var ---


def test_std_var_arguments(device):
    a = T([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]], device)
    h = host(a).astype(np.float64)  # float32 moments accumulate in float64, as torch's
    np.testing.assert_allclose(host(a.var()), np.var(h, ddof=1), rtol=1e-7)
    np.testing.assert_allclose(host(a.var(False)), np.var(h), rtol=1e-7)
    np.testing.assert_allclose(host(a.std(1, False, True)), np.std(h, 1, keepdims=True), rtol=1e-7)
    np.testing.assert_allclose(host(a.var(dim=1, correction=2)), np.var(h, 1, ddof=2), rtol=1e-7)
    v, m = mt.var_mean(a, 1)
    np.testing.assert_allclose(host(m), [7 / 3, 5.0])
    assert isinstance(mt.std_mean(a), tuple)
    raises(
        RuntimeError,
        "std and var only support floating point and complex dtypes",
        mt.tensor([1, 2]).std,
    )
    raises(TypeError, "invalid combination", a.var, 0, True, correction=0)


def test_var_with_no_degrees_of_freedom_warns():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
        assert math.isnan(mt.tensor([1.0]).var().item())
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
        assert math.isnan(mt.tensor(2.0).std().item())
    with pytest.warns(UserWarning):
        assert mt.tensor([1.0, 2.0]).var(correction=2).item() == math.inf
    assert mt.tensor([1.0]).var(correction=0).item() == 0.0


def test_std_gradient_of_a_constant_slice_is_zero():
    a = mt.tensor([[2.0, 2.0], [1.0, 3.0]], requires_grad=True)
    a.std(1).sum().backward()
    np.testing.assert_allclose(host(a.grad), [[0, 0], [-0.7071068, 0.7071068]], rtol=1e-6)


# --- norms ---


def test_norms(device):
    a = T([[3.0, -4.0], [0.0, 0.0]], device)
    assert a.norm().item() == 5.0
    assert host(a.norm(dim=1)).tolist() == [5.0, 0.0]
    assert a.norm(1).item() == 7.0 and a.norm(float("inf")).item() == 4.0
    assert mt.linalg.vector_norm(a, 0).item() == 2.0
    assert mt.linalg.matrix_norm(a, 1).item() == 4.0
    assert mt.linalg.matrix_norm(a, float("inf")).item() == 7.0
    assert mt.linalg.norm(a).item() == 5.0 and mt.linalg.norm(a, 1).item() == 4.0
    assert a.norm(dtype=mt.float64).dtype is mt.float64


def test_norm_errors():
    raises(
        RuntimeError,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
        mt.tensor([1, 2]).norm,
    )
    raises(
        RuntimeError,
        "dtype should be floating point or complex, but got Long",
        mt.linalg.vector_norm,
        mt.ones(2),
        dtype=mt.int64,
    )
    raises(
        TypeError,
        r"argument 'ord' \(position 2\) must be Number, not str",
        mt.linalg.vector_norm,
        mt.ones(2),
        "fro",
    )
    raises(
        RuntimeError,
        "cannot compute the inf norm on an empty tensor",
        mt.linalg.vector_norm,
        mt.zeros(0),
        float("inf"),
    )
    raises(
        RuntimeError,
        "cannot compute the -inf norm",
        mt.linalg.vector_norm,
        mt.zeros(0),
        float("-inf"),
    )
    assert mt.linalg.vector_norm(mt.zeros(0)).item() == 0.0
    raises(RuntimeError, "Order 3 not supported", mt.linalg.matrix_norm, mt.ones(2, 2), 3)
    raises(RuntimeError, "must have at least 2 dimensions", mt.linalg.matrix_norm, mt.ones(3))


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf")])
def test_norm_gradient_at_zero_is_zero(p):
    z = mt.zeros(3, requires_grad=True)
    mt.linalg.vector_norm(z, p).backward()
    assert host(z.grad).tolist() == [0.0, 0.0, 0.0]


def test_inf_norm_splits_ties():
    c = mt.tensor([1.0, -3.0, 3.0], requires_grad=True)
    mt.linalg.vector_norm(c, float("inf")).backward()
    np.testing.assert_allclose(host(c.grad), [0.0, -0.5, 0.5])


# --- cumulative ---


def test_cumulative_forms(device):
    assert T([1, 2], device, dtype=mt.int32).cumsum(0).dtype is mt.int64
    assert host(T([True, True], device).cumsum(0)).tolist() == [1, 2]
    assert T([1, 2], device).cumsum(0, dtype=mt.float32).dtype is mt.float32
    assert T(2.0, device).cumsum(0).item() == 2.0
    raises(
        TypeError, 'cumsum\\(\\) missing 1 required positional arguments: "dim"', mt.ones(2).cumsum
    )
    r = T([1.0, float("nan"), 2.0, float("nan"), 5.0], device).cummax(0)
    assert host(r.indices).tolist() == [0, 1, 1, 3, 3]
    r = T([3, 1, 2, 1], device).cummin(0)
    assert host(r.values).tolist() == [3, 1, 1, 1] and host(r.indices).tolist() == [0, 1, 1, 3]
    assert repr(mt.zeros(0).cummax(0)).startswith("torch.return_types.cummax(")
    np.testing.assert_allclose(host(T([-1000.0, 0.0], device).logcumsumexp(0)), [-1000.0, 0.0])
    raises(
        NotImplementedError,
        "\"logcumsumexp_out_cpu\" not implemented for 'Long'",
        mt.tensor([1, 2]).logcumsumexp,
        0,
    )


def test_cummax_gradient_goes_to_the_latest_tie():
    x = mt.tensor([1.0, 3.0, 3.0, 2.0], requires_grad=True)
    r = x.cummax(0)
    assert r.indices.tolist() == [0, 1, 2, 2]
    r.values.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 2.0, 0.0]


def test_diff():
    a = mt.tensor([1, 3, 2, 3])
    assert a.diff().tolist() == [2, -1, 1]
    assert mt.tensor([1.0, 3, 2, 3]).diff(n=2).tolist() == [-3.0, 2.0]
    assert mt.tensor([True, False, False]).diff().tolist() == [True, False]
    assert mt.tensor([1.0, 2]).diff(n=5).shape == (0,)
    assert mt.tensor([1, 2]).diff(prepend=mt.tensor([1.5])).tolist() == [-0.5, 1.0]
    raises(RuntimeError, "diff expects input to be at least one-dimensional", mt.tensor(1.0).diff)
    raises(RuntimeError, "order must be non-negative but got -1", mt.ones(2).diff, n=-1)
    raises(
        RuntimeError,
        "diff expects prepend or append to be the same dimension as input",
        mt.ones(2, 2).diff,
        append=mt.zeros(2),
    )


# --- order statistics ---


def test_median_picks_torchs_index_among_equals(device):
    x = T([[3.0, 1.0, 2.0, 1.0], [5.0, 5.0, 4.0, 4.0]], device)
    r = x.median(1)
    assert host(r.values).tolist() == [1.0, 4.0] and host(r.indices).tolist() == [3, 3]
    assert x.median().item() == 3.0
    assert T([1.0, 1.0, 1.0, 2.0, 2.0], device).median(0).indices.item() == 2
    assert T([1, 3, 2], device).median().item() == 2


def test_median_nan_and_empty():
    a = mt.tensor([1.0, float("nan"), 3.0, 2.0])
    assert math.isnan(a.median().item()) and a.median(0).indices.item() == 1
    assert a.nanmedian().item() == 2.0
    assert math.isnan(mt.tensor([float("nan")]).nanmedian().item())
    assert math.isnan(mt.zeros(0).median().item())
    raises(
        IndexError,
        r"median\(\): Expected reduction dim 0 to have non-zero size",
        mt.zeros(0, 3).median,
        0,
    )
    assert mt.zeros(0, 3).median(1).values.shape == (0,)
    r = mt.tensor(3.0).median(0)
    assert r.values.item() == 3.0 and r.indices.item() == 0


def test_mode_smallest_most_frequent_at_its_last_index(device):
    r = T([[2.0, 1.0, 2.0, 1.0, 3.0], [4, 4, 3, 3, 3]], device).mode(1)
    assert host(r.values).tolist() == [1.0, 3.0] and host(r.indices).tolist() == [3, 4]
    r = T([[2.0, 1.0, 2.0, 1.0, 3.0], [4, 4, 3, 3, 3]], device).mode(0)
    assert host(r.values).tolist() == [2.0, 1.0, 2.0, 1.0, 3.0]
    assert host(r.indices).tolist() == [0, 0, 0, 0, 1]
    assert type(mt.tensor(3.0).mode()).__name__ == "mode"


def test_quantile_interpolations(device):
    x = T([0.0, 1.0, 2.0, 3.0], device)
    q = T([1 / 6, 0.5, 5 / 6], device)
    assert host(mt.quantile(x, q, interpolation="nearest")).tolist() == [0.0, 2.0, 2.0]
    t = T([[1.0, 2.0, 3.0, 4.0, 10.0], [0, 1, 2, 3, 4]], device)
    np.testing.assert_allclose(host(mt.quantile(t, 0.3)), 1.7, rtol=1e-6)
    assert mt.quantile(t, T([0.0, 0.25, 0.5, 1.0], device), dim=0, keepdim=True).shape == (4, 1, 5)
    assert math.isnan(mt.quantile(T([1.0, float("nan")], device), 0.5).item())
    assert mt.nanquantile(T([1.0, float("nan"), 2.0], device), 0.5).item() == 1.5


def test_quantile_errors():
    t = mt.ones(2, 3)
    raises(
        RuntimeError,
        r"quantile\(\) q must be in the range \[0, 1\] but got 1.5",
        mt.quantile,
        t,
        1.5,
    )
    raises(
        RuntimeError,
        "quantile\\(\\) input tensor must be either float or double dtype",
        mt.quantile,
        mt.tensor([1, 2]),
        0.5,
    )
    raises(RuntimeError, "q must be a scalar or 1D tensor", mt.quantile, t, mt.ones(1, 1))
    raises(
        RuntimeError,
        "interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo",
        mt.quantile,
        t,
        0.5,
        interpolation="foo",
    )
    raises(RuntimeError, "input tensor must be non-empty", mt.quantile, mt.zeros(0), 0.5)
    raises(
        RuntimeError,
        "q tensor must be same dtype as the input tensor",
        mt.quantile,
        t,
        mt.ones(1, dtype=mt.float64),
    )


def test_quantile_gradient_splits_between_neighbours():
    w = mt.tensor([3.0, 1.0, 2.0, 5.0], requires_grad=True)
    mt.quantile(w, 0.4).backward()
    np.testing.assert_allclose(host(w.grad), [0.2, 0.0, 0.8, 0.0], rtol=1e-6)


def test_boolean_reductions(device):
    assert T([1, 2], device).all().dtype is mt.bool
    assert T([1, 2], device, dtype=mt.uint8).all().dtype is mt.uint8
    assert host(T([[1.0, 0.0]], device).all(dim=(0, 1), keepdim=True)).tolist() == [[False]]
    assert T([], device).all().item() is True and T([], device).any().item() is False
    assert mt.count_nonzero(T([[1.0, 0.0]], device), dim=(0, 1)).item() == 1
    assert T([[1.0, 0.0]], device).count_nonzero().dtype is mt.int64


# --- linear algebra basics ---


def test_linalg_errors():
    raises(
        RuntimeError,
        "outer: Expected 1-D argument vec2, but got 2-D",
        mt.outer,
        mt.ones(3),
        mt.ones(4, 1),
    )
    raises(
        RuntimeError,
        r"inner\(\) the last dimension must match on both input tensors but "
        r"got shapes \[2, 3\] and \[3, 2\]",
        mt.inner,
        mt.ones(2, 3),
        mt.ones(3, 2),
    )
    raises(
        RuntimeError,
        "1D tensors expected, but got 1D and 2D tensors",
        mt.dot,
        mt.ones(3),
        mt.ones(3, 1),
    )
    raises(
        NotImplementedError,
        "\"dot\" not implemented for 'Bool'",
        mt.dot,
        mt.ones(3, dtype=mt.bool),
        mt.ones(3, dtype=mt.bool),
    )
    raises(
        RuntimeError,
        "vector \\+ matrix @ vector expected, got 1, 1, 1",
        mt.mv,
        mt.ones(3),
        mt.ones(3),
    )
    raises(
        RuntimeError, "trace: expected a matrix, but got tensor with dim 1", mt.trace, mt.ones(3)
    )
    raises(
        RuntimeError,
        r"size mismatch, got input \(3\), mat \(2x3\), vec \(3\)",
        mt.addmv,
        mt.ones(3),
        mt.ones(2, 3),
        mt.ones(3),
    )
    raises(
        RuntimeError,
        r"The expanded size of the tensor \(3\) must match the existing size "
        r"\(4\)",
        mt.addmm,
        mt.ones(4),
        mt.ones(2, 3),
        mt.ones(3, 3),
    )
    raises(
        RuntimeError,
        "contracted dimensions need to match, but first has size 3 in dim 1 "
        "and second has size 4 in dim 1",
        mt.tensordot,
        mt.ones(2, 3, 4),
        mt.ones(3, 4, 5),
        dims=([1], [1]),
    )
    raises(
        RuntimeError,
        "tensordot expects dims >= 0, but got dims=-1",
        mt.tensordot,
        mt.ones(2),
        mt.ones(2),
        dims=-1,
    )


def test_linalg_values():
    assert mt.trace(mt.ones(3, 3, dtype=mt.int32)).dtype is mt.int64
    assert mt.trace(mt.ones(3, 4)).item() == 3.0
    assert mt.kron(mt.ones(2, 3, dtype=mt.int32), mt.ones(4)).dtype is mt.float32
    assert mt.outer(mt.ones(3), mt.ones(4, dtype=mt.float64)).dtype is mt.float64
    nan = mt.full((2, 2), float("nan"))
    out = mt.addmm(nan, mt.ones(2, 3), mt.ones(3, 2), beta=0)
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]  # beta=0 ignores input, nan included
    assert mt.tensordot(mt.ones(2, 3), mt.ones(2), dims=0).shape == (2, 3, 2)


@pytest.mark.parametrize(
    "eq, shapes, msg",
    [
        ("ij,jk->ik", [(2, 3)], "fewer operands were provided than specified in the equation"),
        (
            "ij->ij",
            [(2, 3, 3)],
            r"the number of subscripts in the equation \(2\) does not match "
            r"the number of dimensions \(3\) for operand 0 and no ellipsis",
        ),
        (
            "ij,jk->ik",
            [(2, 3), (4, 4)],
            "subscript j has size 4 for operand 1 which does not "
            "broadcast with previously seen size 3",
        ),
        (
            "ij,jk->iz",
            [(2, 3), (3, 4)],
            "output subscript z does not appear in the equation for any input operand",
        ),
        ("i,i->ii", [(2,), (2,)], "output subscript i appears more than once in the output"),
        ("i1->i", [(2, 3)], "invalid subscript given at index 1 in the equation string"),
    ],
)
def test_einsum_errors(eq, shapes, msg):
    raises(RuntimeError, msg, mt.einsum, eq, *[mt.ones(s) for s in shapes])


def test_einsum_forms(device):
    a = T(np.arange(6.0).reshape(2, 3), device)
    b = T(np.arange(12.0).reshape(3, 4), device)
    np.testing.assert_allclose(host(mt.einsum("ij,jk", a, b)), host(a) @ host(b))
    np.testing.assert_allclose(host(mt.einsum("ij,jk->ik", [a, b])), host(a) @ host(b))
    assert mt.einsum("ji", a).shape == (3, 2)  # implicit output: letters in order
    assert mt.einsum("...ij->...ji", T(np.ones((5, 2, 3)), device)).shape == (5, 3, 2)
    raises(
        RuntimeError,
        "expected scalar type Float but found Double",
        mt.einsum,
        "i,i->",
        mt.ones(2),
        mt.ones(2, dtype=mt.float64),
    )
