"""Session 38 (helper reduce): torch-free regression tests of the library fixes the reduction
sweep of tests/reference/test_s38_reduce_reference.py found: argmax/argmin's parser TypeError
for a tuple dim before their bool-input check; all/any into a uint8 out= reducing the input
cast to uint8 (torch's legacy path: all(0.5) is False there); the Tensor methods' own wording
of prod/sum/mean's "invalid combination" TypeErrors (keepdim without dim, prod's dim=None);
std_mean/var_mean given out= (or another keyword they have not): torch's parser TypeError
listing their overloads; var/std into an out= of another float dtype (computed in out's
dtype) and mean into a half-precision out= (the float32 mean rounded once); the
grad_fn._saved_* attributes of the prod, logsumexp, var/std, cummax/cummin and logcumsumexp
nodes. torch's messages are written here as literals."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reduction_dim_type_before_bool_check(op):
    b = mt.tensor([[True, False], [False, True]])
    msg = _message(TypeError, lambda: getattr(mt, op)(b, dim=(0, 1)))
    assert msg == f"{op}(): argument 'dim' must be int, not tuple"
    msg = _message(TypeError, lambda: getattr(mt, op)(b, 1.5))
    assert msg == f"{op}(): argument 'dim' (position 2) must be int, not float"
    msg = _message(RuntimeError, lambda: getattr(mt, op)(b, 1))
    assert msg == f"{op}(): does not support bool input"


def test_all_any_uint8_out_reduce_the_input_cast_to_uint8():
    x = mt.tensor([[0.5, 1.0, -1.5], [2.0, 3.0, 4.0]], dtype=mt.float64)
    out = mt.zeros(2, dtype=mt.uint8)
    r = mt.all(x, 1, out=out)
    assert r is out
    assert out.tolist() == [0, 1]  # 0.5 -> 0; -1.5 -> 255
    assert out.dtype is mt.uint8
    out = mt.zeros((), dtype=mt.uint8)
    assert mt.all(mt.tensor([0.5, 1.0]), out=out).tolist() == 0
    i = mt.tensor([[256, 1], [512, 3]])
    assert mt.all(i, 1, out=mt.zeros(2, dtype=mt.uint8)).tolist() == [0, 0]
    assert mt.any(i, 1, out=mt.zeros(2, dtype=mt.uint8)).tolist() == [1, 1]
    assert mt.any(mt.tensor([[256, 0]]), 1, out=mt.zeros(1, dtype=mt.uint8)).tolist() == [0]
    # a bool out= (or none) reads the values as they are
    assert mt.all(i, 1, out=mt.zeros(2, dtype=mt.bool)).tolist() == [True, True]
    assert mt.all(x, 1).tolist() == [True, True]


_PROD_METHOD = (
    "prod() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * (*, torch.dtype dtype = None)\n"
    " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
)
_PROD_FUNCTION = (
    "prod() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * (Tensor input, *, torch.dtype dtype = None)\n"
    " * (Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
    "Tensor out = None)\n"
)
_SUM_METHOD = (
    "{op}() received an invalid combination of arguments - got (keepdim=bool, ), but expected "
    "one of:\n"
    " * (*, torch.dtype dtype = None)\n"
    " * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
)


def test_prod_sum_mean_method_errors_list_the_method_overloads():
    x = mt.ones(2, 3)
    assert _message(TypeError, lambda: x.prod(None)) == _PROD_METHOD.format(got="NoneType")
    assert _message(TypeError, lambda: x.prod(keepdim=True)) == _PROD_METHOD.format(
        got="keepdim=bool, "
    )
    assert _message(TypeError, lambda: x.prod(dim=None)) == _PROD_METHOD.format(
        got="dim=NoneType, "
    )
    msg = _message(TypeError, lambda: x.prod(None, True))
    assert msg == "prod(): argument 'dim' (position 1) must be int, not NoneType"
    assert _message(TypeError, lambda: x.sum(keepdim=True)) == _SUM_METHOD.format(op="sum")
    assert _message(TypeError, lambda: x.mean(keepdim=True)) == _SUM_METHOD.format(op="mean")
    # the functions keep theirs
    assert _message(TypeError, lambda: mt.prod(x, None)) == _PROD_FUNCTION.format(
        got="Tensor, NoneType"
    )
    assert _message(TypeError, lambda: mt.prod(x, keepdim=True)) == _PROD_FUNCTION.format(
        got="Tensor, keepdim=bool"
    )
    assert _message(TypeError, lambda: mt.sum(x, keepdim=True)).startswith(
        "sum() received an invalid combination of arguments - got (Tensor, keepdim=bool), "
    )


_STD_MEAN_FORMS = (
    " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)\n"
    " * (Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = "
    "False)\n"
    " * (Tensor input, bool unbiased = True)\n"
)


def test_std_mean_var_mean_out_is_a_parser_error():
    x = mt.ones(2, 3)
    o = (mt.empty(0), mt.empty(0))
    head = "{}() received an invalid combination of arguments - got ({}), but expected one of:\n"
    msg = _message(TypeError, lambda: mt.std_mean(x, 1, out=o))
    assert msg == head.format("std_mean", "Tensor, int, out=tuple") + _STD_MEAN_FORMS
    msg = _message(TypeError, lambda: mt.var_mean(x, out=o))
    assert msg == (
        head.format("var_mean", "Tensor, out=tuple") + _STD_MEAN_FORMS
        + "      didn't match because some of the keywords were incorrect: out\n"
    )  # fmt: skip
    msg = _message(TypeError, lambda: mt.std_mean(x, None, out=o))
    assert msg == head.format("std_mean", "Tensor, NoneType, out=tuple") + _STD_MEAN_FORMS
    msg = _message(TypeError, lambda: mt.var_mean(x, 1, correction=0, foo=o))
    assert msg.startswith(head.format("var_mean", "Tensor, int, foo=tuple, correction=int"))
    assert "didn't match because some of the keywords were incorrect: foo, correction\n" in msg
    # the calls without one work as before
    s, m = mt.std_mean(mt.tensor([1.0, 3.0]), correction=0)
    assert (s.item(), m.item()) == (1.0, 2.0)


_U = 2**64  # torch's binding reads a saved negative dim back unsigned


@pytest.mark.parametrize(
    "call, name, saved",
    [
        (lambda x: x.var(), "VarBackward0", {"correction": None, "dim": None, "keepdim": False}),
        (lambda x: x.var(-1), "VarBackward0", {"correction": 1, "dim": (_U - 1,)}),
        (lambda x: x.var(0, unbiased=False), "VarBackward0", {"correction": 0, "dim": (0,)}),
        (lambda x: x.var(False), "VarBackward0", {"correction": 0, "dim": None}),
        (lambda x: x.var(correction=0.5), "VarBackward0", {"correction": 0.5, "dim": None}),
        (lambda x: x.var([]), "VarBackward0", {"correction": 1, "dim": ()}),
        (
            lambda x: x.std((0, -1), keepdim=True),
            "StdBackward0",
            {"correction": 1, "dim": (0, _U - 1), "keepdim": True},
        ),
        (lambda x: x.std(correction=2), "StdBackward0", {"correction": 2, "dim": None}),
        (lambda x: x.prod(-1), "ProdBackward1", {"dim": _U - 1, "keepdim": False}),
        (lambda x: x.prod(1, keepdim=True), "ProdBackward1", {"dim": 1, "keepdim": True}),
        (lambda x: x.logsumexp(-1), "LogsumexpBackward0", {"dim": (_U - 1,), "keepdim": False}),
        (lambda x: x.logsumexp([0, 1], True), "LogsumexpBackward0", {"dim": (0, 1)}),
        (lambda x: x.cummax(-1).values, "CummaxBackward0", {"dim": _U - 1}),
        (lambda x: x.cummin(0).values, "CumminBackward0", {"dim": 0}),
        (lambda x: x.logcumsumexp(-2), "LogcumsumexpBackward0", {"dim": _U - 2}),
    ],
)
def test_reduction_nodes_show_their_saved_arguments(call, name, saved):
    x = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    fn = call(x).grad_fn
    assert type(fn).__name__ == name
    for key, value in saved.items():
        got = getattr(fn, "_saved_" + key)
        assert got == value and type(got) is type(value), (key, got)


def test_reduction_nodes_show_their_saved_tensors():
    x = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    for out in [x.prod(), x.prod(1), x.logsumexp(1), x.std(1), x.logcumsumexp(1)]:
        assert out.grad_fn._saved_self is x
        result = out.grad_fn._saved_result
        assert result.shape == out.shape and bool((result == out).all())
    out = x.var(0)
    assert out.grad_fn._saved_self is x
    assert not hasattr(out.grad_fn, "_saved_result")
    values, indices = x.cummax(1)
    assert values.grad_fn._saved_self is x
    assert values.grad_fn._saved_indices is indices
    assert "_saved_indices" in dir(values.grad_fn)
    # changed in place since: torch's error when the saved tensor is read
    a = x * 1
    out = a.logsumexp(1)
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.grad_fn._saved_self  # noqa: B018


def test_var_std_into_another_float_dtype_compute_in_outs_dtype():
    g = mt.Generator().manual_seed(3)
    x = mt.randn(4, 40, generator=g, dtype=mt.float64).float()
    for op in (mt.var, mt.std):
        o = mt.empty(0, dtype=mt.float64)
        op(x, 1, out=o)
        want = op(x.double(), 1)  # torch: the input cast to float64 first
        assert o.dtype is mt.float64
        np.testing.assert_allclose(o.numpy(), want.numpy(), rtol=1e-14, atol=0)
        assert not np.allclose(o.numpy(), op(x, 1).double().numpy(), rtol=1e-12, atol=0)
    h = x.half()
    o = mt.empty(0, dtype=mt.float32)
    mt.var(h, 1, correction=0, out=o)
    np.testing.assert_array_equal(o.numpy(), mt.var(h.float(), 1, correction=0).numpy())


def test_mean_into_half_out_is_the_float32_mean_rounded_once():
    g = mt.Generator().manual_seed(4)
    x = mt.randn(8, 40, generator=g, dtype=mt.float64)
    for odt in (mt.float16, mt.bfloat16):
        o = mt.empty(0, dtype=odt)
        mt.mean(x, 1, out=o)
        want = mt.mean(x.float(), 1).to(odt)
        np.testing.assert_array_equal(o.float().numpy(), want.float().numpy())
    # (the input rounded to half first averages to another value in some rows)
    o = mt.empty(0, dtype=mt.float16)
    mt.mean(x, 1, out=o)
    assert not bool((o == mt.mean(x.half(), 1)).all())
