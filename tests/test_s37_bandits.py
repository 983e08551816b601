"""Session 37 (helper bandits): torch-free regression tests of the library fixes the bandit
programs of tests/reference/test_s37_bandits_reference.py found: the add*mm family's
argument-parser TypeErrors when beta and alpha are passed positionally (torch's "takes 3
positional arguments" where one signature fits the argument count, its marked listing
otherwise), and softmax, log_softmax, logsumexp, xlogy and xlog1py computing the NaN and
infinite values of masked (-inf) or zero inputs without NumPy's RuntimeWarning reaching the user,
as torch does (xlogy, xlog1py and half logsumexp even under a user's "error" filter; softmax and
float logsumexp leave it to minitorch's kernel-module filter, an errstate costing 2 us a call on
their hot path). torch's messages are written here as literals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
INF = float("inf")


def _message(fn):
    with pytest.raises(TypeError) as info:
        fn()
    return str(info.value)


A, X, M = mt.eye(3), mt.ones(3), mt.ones(3, 3)
B = M.unsqueeze(0)
MM_LIST = (
    " * (Tensor input, Tensor mat1, Tensor mat2, *, Number beta = 1, Number alpha = 1, Tensor "
    "out = None)\n"
    " * (Tensor input, Tensor mat1, Tensor mat2, torch.dtype out_dtype, *, Number beta = 1, "
    "Number alpha = 1, Tensor out = None)\n"
)
ADDR_SIG = (
    "(Tensor input, Tensor vec1, Tensor vec2, *, Number beta = 1, Number alpha = 1, Tensor "
    "out = None)"
)


@pytest.mark.parametrize(
    "fn, op, most, given",
    [
        (lambda: mt.addr(A, X, X, 1.0, 1.0), "addr", 3, 5),
        (lambda: mt.addr(A, X, X, 0.5), "addr", 3, 4),
        (lambda: mt.addr(A, X, X, 1, 2, 3), "addr", 3, 6),
        (lambda: mt.addr(A, X, X, 0.5, beta=2), "addr", 3, 4),
        (lambda: mt.addr(0.5, A, X, X, alpha=2), "addr", 3, 4),
        (lambda: mt.addr(0.5, A, X, 1), "addr", 3, 4),
        (lambda: mt.addmv(X, M, X, 1.0, 1.0), "addmv", 3, 5),
        (lambda: mt.addbmm(A, B, B, 0.5), "addbmm", 3, 4),
        (lambda: mt.addmm(A, M, M, 1, 2, 3, 4), "addmm", 4, 7),
        (lambda: mt.addmm(A, M, M, 1, 2, 3, alpha=2), "addmm", 4, 6),
    ],
)
def test_add_mm_family_extra_positional_scalars_take_torchs_count_error(fn, op, most, given):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the deprecated overloads' warning, where tried)
        got = _message(fn)
    assert got == f"{op}() takes {most} positional arguments but {given} were given"


@pytest.mark.parametrize(
    "fn, expected",
    [
        (
            lambda: mt.addr(A, X, X, 1, 2, 3, 4),
            "addr() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
            f"!int!, !int!, !int!, !int!), but expected {ADDR_SIG}",
        ),
        (
            lambda: mt.addr(A, 2, X, 1, 2, 3, A),
            "addr() received an invalid combination of arguments - got (Tensor, !int!, Tensor, "
            f"!int!, !int!, !int!, !Tensor!), but expected {ADDR_SIG}",
        ),
        (
            lambda: mt.addr(A, X, X, 1, 2, 3, 4, 5),
            "addr() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
            f"int, int, int, int, int), but expected {ADDR_SIG}",
        ),
        (
            lambda: mt.addr(A, X, X, 1, 2, 3, alpha=2),
            "addr() received an invalid combination of arguments - got unrecognized keyword "
            "arguments: alpha",
        ),
        (
            lambda: A.addr(X, X, 1, 2, 3),
            "addr() received an invalid combination of arguments - got (Tensor, Tensor, !int!, "
            "!int!, !int!), but expected (Tensor vec1, Tensor vec2, *, Number beta = 1, Number "
            "alpha = 1)",
        ),
        (
            lambda: A.addr(X, X, 1, 2, beta=3),
            "addr() received an invalid combination of arguments - got unrecognized keyword "
            "arguments: beta",
        ),
        (
            lambda: mt.addmm(A, M, M, 0.5),
            "addmm() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
            f"float), but expected one of:\n{MM_LIST}",
        ),
        (
            lambda: mt.addmm(A, M, M, mt.float64, 2, 3, 4, 5),
            "addmm() received an invalid combination of arguments - got (Tensor, Tensor, Tensor, "
            "torch.dtype, int, int, int, int), but expected one of:\n"
            f"{MM_LIST}      didn't match because some of the arguments have invalid types: "
            "(Tensor, Tensor, Tensor, torch.dtype, !int!, !int!, !int!, !int!)\n",
        ),
        (
            lambda: mt.baddbmm(B, B, B, 1, 2, 3, 4, 5, 6),
            "baddbmm() received an invalid combination of arguments - got (Tensor, Tensor, "
            "Tensor, int, int, int, int, int, int), but expected one of:\n"
            + MM_LIST.replace("mat1", "batch1").replace("mat2", "batch2"),
        ),
    ],
    ids=lambda v: "" if callable(v) else v[:24],
)  # fmt: skip
def test_add_mm_family_positional_scalars_past_every_count_get_the_listing(fn, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the deprecated overloads' warning, where tried)
        got = _message(fn)
    assert got == expected


def test_add_mm_deprecated_overloads_still_work(fresh_once):
    with pytest.warns(UserWarning, match="This overload of addr is deprecated"):
        out = mt.addr(0.5, A, X, X)
    np.testing.assert_allclose(out.numpy(), 0.5 * np.eye(3) + 1.0, err_msg="addr(beta, ...)")


def _no_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


def _no_default_warnings(fn):
    """fn() under the filters in force (minitorch's kernel-module filter among them), which must
    let no warning through."""
    with warnings.catch_warnings(record=True) as caught:
        out = fn()
    assert not caught, [str(w.message) for w in caught]
    return out


def test_softmax_of_masked_rows_is_quiet_nan():
    x = mt.tensor([[-INF, -INF, -INF], [0.0, -INF, 1.0], [INF, 1.0, 2.0]], dtype=mt.float64)
    out = _no_default_warnings(lambda: mt.softmax(x, -1)).numpy()
    assert np.isnan(out[0]).all() and np.isnan(out[2]).all()
    e = math.exp(1.0)
    np.testing.assert_allclose(out[1], [1 / (1 + e), 0.0, e / (1 + e)], err_msg="softmax row")
    lsm = _no_default_warnings(lambda: F.log_softmax(x, 1)).numpy()
    assert np.isnan(lsm[0]).all() and np.isnan(lsm[2]).all()
    assert np.isnan(_no_default_warnings(lambda: x.t().softmax(0)).numpy()[:, 0]).all()
    half = _no_default_warnings(lambda: mt.softmax(x.half(), -1))
    assert np.isnan(half.float().numpy()[0]).all()
    g = x.clone().requires_grad_(True)
    _no_default_warnings(lambda: mt.softmax(g, -1).nan_to_num().sum().backward())
    assert np.isnan(g.grad.numpy()[0]).all()


def test_logsumexp_of_all_minus_inf_is_quiet_minus_inf():
    x = mt.tensor([[-INF, -INF], [0.0, -INF]])
    lse = _no_default_warnings(lambda: mt.logsumexp(x, 1))
    np.testing.assert_array_equal(lse.numpy(), [-INF, 0.0])
    half = _no_warnings(lambda: mt.logsumexp(x.half(), 1)).float().numpy()
    np.testing.assert_array_equal(half, [-INF, 0.0])
    wide = mt.empty(2, dtype=mt.float64)
    _no_default_warnings(lambda: mt.logsumexp(x, 1, out=wide))
    np.testing.assert_array_equal(wide.numpy(), [-INF, 0.0])


def test_xlogy_and_xlog1py_of_zero_are_quiet():
    p = mt.tensor([0.0, 0.5, 1.0, 0.0], dtype=mt.float64)
    q = mt.tensor([0.0, 0.0, 0.5, float("nan")], dtype=mt.float64)
    out = _no_warnings(lambda: mt.xlogy(p, q)).numpy()
    np.testing.assert_array_equal(out[[0, 1, 3]], [0.0, -INF, np.nan])
    out = _no_warnings(lambda: mt.special.xlog1py(p, q - 1)).numpy()
    np.testing.assert_array_equal(out[[0, 1, 3]], [0.0, -INF, np.nan])
    beta = mt.distributions.Beta(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 3.0]))
    lp = _no_warnings(lambda: beta.log_prob(mt.tensor([0.0, 0.0]))).numpy()
    np.testing.assert_array_equal(lp, [0.0, -INF])
