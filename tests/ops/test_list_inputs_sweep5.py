"""Sweep 5 of list inputs: a Python list where a tensor belongs (the forgotten torch.stack of an
ensemble's outputs) raises torch's TypeError naming the op in ~50 functions; quantile's q as a
NumPy array or list; logsumexp's dim=None / dim=()."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

F = mt.nn.functional
L = [1.0, 2.0, 3.0]
L2 = [1.0, 0.0, 2.0]
T3 = mt.tensor([1.0, 0.0, 2.0])


def _not_tensor(op, name="input", pos=1):
    return f"{op}(): argument '{name}' (position {pos}) must be Tensor, not list"


# (id, call, the start of torch's message)
# fmt: off
_CASES = [
    ("logsumexp", lambda: mt.logsumexp(L, 0), _not_tensor("logsumexp")),
    ("special.logsumexp", lambda: mt.special.logsumexp(L, 0), _not_tensor("special_logsumexp")),
    ("logcumsumexp", lambda: mt.logcumsumexp(L, 0), _not_tensor("logcumsumexp")),
    ("cumsum", lambda: mt.cumsum(L, 0), _not_tensor("cumsum")),
    ("cumprod", lambda: mt.cumprod(L, 0), _not_tensor("cumprod")),
    ("cummax", lambda: mt.cummax(L, 0), _not_tensor("cummax")),
    ("sort", lambda: mt.sort(L), _not_tensor("sort")),
    ("argsort", lambda: mt.argsort(L), _not_tensor("argsort")),
    ("msort", lambda: mt.msort(L), _not_tensor("msort")),
    ("topk", lambda: mt.topk(L, 1), _not_tensor("topk")),
    ("kthvalue", lambda: mt.kthvalue(L, 1), _not_tensor("kthvalue")),
    ("abs", lambda: mt.abs(L), _not_tensor("abs")),
    ("sign", lambda: mt.sign(L), _not_tensor("sign")),
    ("amax", lambda: mt.amax(L), _not_tensor("amax")),
    ("amin", lambda: mt.amin(L), _not_tensor("amin")),
    ("median", lambda: mt.median(L), _not_tensor("median")),
    ("median_dim", lambda: mt.median(L, 0), _not_tensor("median")),
    ("nanmedian", lambda: mt.nanmedian(L), _not_tensor("nanmedian")),
    ("mode", lambda: mt.mode(L), _not_tensor("mode")),
    ("prod", lambda: mt.prod(L), _not_tensor("prod")),
    ("nansum", lambda: mt.nansum(L), _not_tensor("nansum")),
    ("nanmean", lambda: mt.nanmean(L), _not_tensor("nanmean")),
    ("count_nonzero", lambda: mt.count_nonzero(L), _not_tensor("count_nonzero")),
    ("trace", lambda: mt.trace(L), _not_tensor("trace")),
    ("diag", lambda: mt.diag(L), _not_tensor("diag")),
    ("flatten", lambda: mt.flatten(L), _not_tensor("flatten")),
    ("ravel", lambda: mt.ravel(L), _not_tensor("ravel")),
    ("squeeze", lambda: mt.squeeze(L), _not_tensor("squeeze")),
    ("unsqueeze", lambda: mt.unsqueeze(L, 0), _not_tensor("unsqueeze")),
    ("flip", lambda: mt.flip(L, 0), _not_tensor("flip")),
    ("roll", lambda: mt.roll(L, 1), _not_tensor("roll")),
    ("histc", lambda: mt.histc(L), _not_tensor("histc")),
    ("unique", lambda: mt.unique(L), _not_tensor("_unique2")),
    ("linalg.norm", lambda: mt.linalg.norm(L), _not_tensor("linalg_norm")),
    ("linalg.vector_norm", lambda: mt.linalg.vector_norm(L), _not_tensor("linalg_vector_norm")),
    ("linalg.matrix_norm", lambda: mt.linalg.matrix_norm([L]), _not_tensor("linalg_matrix_norm")),
    ("diff", lambda: mt.diff(L), _not_tensor("diff")),
    ("cov", lambda: mt.cov(L), _not_tensor("cov")),
    ("corrcoef", lambda: mt.corrcoef(L), _not_tensor("corrcoef")),
    ("cdist", lambda: mt.cdist(L, L2), _not_tensor("cdist", "x1")),
    ("cdist_x2", lambda: mt.cdist(mt.ones(2, 3), L2), _not_tensor("cdist", "x2", 2)),
    ("cosine_similarity", lambda: F.cosine_similarity(L, L2),
     _not_tensor("cosine_similarity", "x1")),
    ("cosine_similarity_x2", lambda: F.cosine_similarity(T3, L2),
     _not_tensor("cosine_similarity", "x2", 2)),
    ("cross", lambda: mt.cross(L, L2, dim=0), _not_tensor("cross")),
    ("cross_other", lambda: mt.cross(T3, L2, dim=0), _not_tensor("cross", "other", 2)),
    # ops torch declares with several signatures: no overload matches
    ("std", lambda: mt.std(L), "std() received an invalid combination of arguments - got (list)"),
    ("var", lambda: mt.var(L, 0), "var() received an invalid combination of arguments"),
    ("std_mean", lambda: mt.std_mean(L),
     "std_mean() received an invalid combination of arguments - got (list)"),
    ("var_mean", lambda: mt.var_mean(L),
     "var_mean() received an invalid combination of arguments - got (list)"),
    ("any", lambda: mt.any(L), "any() received an invalid combination of arguments - got (list)"),
    ("all", lambda: mt.all(L), "all() received an invalid combination of arguments - got (list)"),
    ("quantile", lambda: mt.quantile(L, 0.5),
     "quantile() received an invalid combination of arguments - got (list, float)"),
    ("nanquantile", lambda: mt.nanquantile(L, 0.5),
     "nanquantile() received an invalid combination of arguments - got (list, float)"),
]
# fmt: on


@pytest.mark.parametrize("call, message", [c[1:] for c in _CASES], ids=[c[0] for c in _CASES])
def test_list_input_raises_torch_type_error(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)


def test_overload_messages_list_the_signatures():
    with pytest.raises(TypeError) as info:
        mt.std_mean(L)
    lines = str(info.value).splitlines()
    assert lines[1] == (
        " * (Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False)"
    )
    assert lines[3] == " * (Tensor input, bool unbiased = True)"
    with pytest.raises(TypeError, match=r"\* \(Tensor input, float q, int dim = None"):
        mt.quantile(L, 0.5)


def test_ndarray_input_names_its_type():
    a = np.array(L)
    with pytest.raises(TypeError, match=r"^abs\(\).*must be Tensor, not numpy\.ndarray$"):
        mt.abs(a)
    with pytest.raises(TypeError, match=r"^nanmean\(\).*must be Tensor, not numpy\.ndarray$"):
        mt.nanmean(a)
    with pytest.raises(TypeError, match=r"^logsumexp\(\).*must be Tensor, not numpy\.ndarray$"):
        mt.logsumexp(a, 0)


def test_norm_of_a_list_raises_attribute_error_as_torch():
    # torch.norm is Python code that reads input.layout first
    with pytest.raises(AttributeError, match="'list' object has no attribute 'layout'"):
        mt.norm(L)


def test_tensor_inputs_still_work():
    x = mt.tensor([[1.0, 5.0, 3.0], [2.0, 2.0, 0.5]], dtype=mt.float64)
    a = x.numpy()
    np.testing.assert_allclose(mt.abs(-x).numpy(), a)
    np.testing.assert_allclose(mt.sign(x - 2).numpy(), np.sign(a - 2))
    np.testing.assert_allclose(mt.prod(x).item(), a.prod())
    np.testing.assert_allclose(mt.nanmean(x, 1).numpy(), a.mean(1))
    np.testing.assert_allclose(mt.amax(x, 0).numpy(), a.max(0))
    np.testing.assert_allclose(mt.cumsum(x, 1).numpy(), a.cumsum(1))
    np.testing.assert_allclose(mt.flip(x, (0,)).numpy(), a[::-1])
    np.testing.assert_allclose(mt.roll(x, 1, 1).numpy(), np.roll(a, 1, 1))
    np.testing.assert_allclose(mt.diag(x[:, :2]).numpy(), np.diag(a[:, :2]))
    np.testing.assert_allclose(mt.trace(x[:, :2]).item(), np.trace(a[:, :2]))
    np.testing.assert_allclose(mt.linalg.norm(x).item(), np.linalg.norm(a))
    np.testing.assert_allclose(mt.median(x.flatten()).item(), 2.0)
    assert mt.unsqueeze(x, 0).shape == (1, 2, 3) and mt.ravel(x).shape == (6,)
    v, m = mt.var_mean(x, 1)
    np.testing.assert_allclose(v.numpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(m.numpy(), a.mean(1))
    s, m = mt.std_mean(x, 1, correction=0)
    np.testing.assert_allclose(s.numpy(), a.std(1))


def test_var_mean_std_mean_gradients_after_the_refactor():
    x = mt.tensor([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], dtype=mt.float64, requires_grad=True)
    for fn in (mt.var_mean, mt.std_mean):
        assert gradcheck(lambda t, fn=fn: fn(t, 1), (x,))
        assert gradgradcheck(lambda t, fn=fn: fn(t, 1), (x,))
    assert mt.var_mean(x, 1)[0].grad_fn.name() == "VarMeanBackward0"
    assert mt.std_mean(x, 1)[0].grad_fn.name() == "StdMeanBackward0"


def test_var_mean_dof_warning_names_var_mean():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mt.var_mean(mt.ones(1))
        mt.std_mean(mt.ones(1))
    msgs = [str(x.message) for x in w]
    assert msgs[0].startswith("var_mean(): degrees of freedom is <= 0"), msgs
    assert msgs[1].startswith("std_mean(): degrees of freedom is <= 0"), msgs


# --- quantile's q ---


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize(
    "q, label",
    [
        (np.array([0.5, 0.9]), "numpy.ndarray"),
        (np.array(0.5), "numpy.ndarray"),
        ([0.5, 0.9], "list"),
        ((0.5,), "tuple"),
        ("0.5", "str"),
        (None, "NoneType"),
    ],
)
def test_quantile_q_must_be_a_number_or_tensor(op, q, label):
    scores = mt.arange(10.0)
    with pytest.raises(TypeError) as info:
        getattr(mt, op)(scores, q, interpolation="higher")
    msg = str(info.value)
    assert msg.startswith(
        f"{op}() received an invalid combination of arguments - got (Tensor, {label}"
    ), msg
    assert " * (Tensor input, Tensor q, int dim = None" in msg


def test_quantile_q_numbers_and_tensors_still_accepted():
    scores = mt.arange(10.0, dtype=mt.float64)
    assert mt.quantile(scores, 1).item() == 9.0
    assert mt.quantile(scores, True).item() == 9.0
    assert mt.quantile(scores, np.float32(0.5)).item() == 4.5
    assert mt.quantile(scores, np.int64(0)).item() == 0.0
    r = mt.quantile(scores, mt.tensor([0.5, 0.9], dtype=mt.float64), interpolation="higher")
    np.testing.assert_allclose(r.numpy(), [5.0, 9.0])
    x = mt.tensor([0.3, -1.2, 2.0, 0.7], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: mt.quantile(t, 0.4), (x,))


# --- logsumexp's dim ---


@pytest.mark.parametrize(
    "call, op",
    [
        (lambda x: mt.logsumexp(x, dim=None), "logsumexp(): argument 'dim' must"),
        (lambda x: x.logsumexp(dim=None), "logsumexp(): argument 'dim' must"),
        (lambda x: mt.logsumexp(x, None), "logsumexp(): argument 'dim' (position 2) must"),
        (lambda x: x.logsumexp(None), "logsumexp(): argument 'dim' (position 1) must"),
        (
            lambda x: mt.special.logsumexp(x, None),
            "special_logsumexp(): argument 'dim' (position 2) must",
        ),
        (
            lambda x: mt.special.logsumexp(x, dim=None),
            "special_logsumexp(): argument 'dim' must",
        ),
    ],
)
def test_logsumexp_dim_none_raises(call, op):
    with pytest.raises(TypeError, match="^" + re.escape(op) + " be tuple of ints, not NoneType$"):
        call(mt.ones(2, 2))


@pytest.mark.parametrize(
    "call",
    [
        lambda x: mt.logsumexp(x, ()),
        lambda x: mt.logsumexp(x, dim=[]),
        lambda x: x.logsumexp(()),
        lambda x: mt.special.logsumexp(x, ()),
    ],
)
def test_logsumexp_empty_dim_raises_as_torch_kernel(call):
    with pytest.raises(RuntimeError, match=r"^output with shape \[\] doesn't match the broadcast "):
        call(mt.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"broadcast shape \[1\]$"):
        call(mt.ones(3))


def test_logsumexp_empty_dim_that_torch_accepts():
    # keepdim, a 0-d input and an empty input reduce over everything, as torch
    x = mt.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=mt.float64)
    expected = np.log(np.exp([0.0, 1.0, 2.0, 3.0]).sum())
    r = mt.logsumexp(x, (), keepdim=True)
    assert r.shape == (1, 1)
    np.testing.assert_allclose(r.numpy().item(), expected)
    assert mt.logsumexp(mt.tensor(2.0), ()).item() == 2.0
    assert mt.logsumexp(mt.ones(0, 2), ()).item() == -np.inf


def test_logsumexp_still_reduces_and_differentiates():
    with pytest.raises(TypeError, match=r"logsumexp\(\) missing 1 required positional arguments"):
        mt.logsumexp(mt.ones(2))
    with pytest.raises(TypeError, match=r"^special_logsumexp\(\) missing 1 required"):
        mt.special.logsumexp(mt.ones(2))
    x = mt.tensor([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], dtype=mt.float64, requires_grad=True)
    a = x.detach().numpy()
    np.testing.assert_allclose(mt.logsumexp(x, 1).detach().numpy(), np.log(np.exp(a).sum(1)))
    np.testing.assert_allclose(
        mt.special.logsumexp(x, (0, 1)).item(), np.log(np.exp(a).sum()), rtol=1e-12
    )
    assert mt.logsumexp(mt.tensor([1, 2]), 0).dtype is mt.float32
    assert gradcheck(lambda t: mt.logsumexp(t, 1), (x,))
    assert gradgradcheck(lambda t: mt.special.logsumexp(t, (0, 1)), (x,))
