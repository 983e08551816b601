"""Legacy PyTorch spellings: Tensor.type(Tensor), the add*mm scalars-first overloads,
Tensor.resize/resize_as, the legacy classes' attributes and constructors, Variable's checks,
cov's integer correction."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import Variable, gradcheck

A = np.array([[4.0, 1.0], [1.0, 3.0]])
V = np.array([1.0, 2.0])


@pytest.fixture(autouse=True)
def _warn_always(monkeypatch):
    # torch warns about deprecated overloads once per process; these tests look at every call's
    monkeypatch.setitem(mt._settings._state, "warn_always", True)


def test_type_with_the_tensor_class_is_the_default_float_type():
    x = mt.tensor([1, 2])
    for target in (mt.Tensor, "torch.Tensor"):
        r = x.type(target)
        assert r.dtype is mt.float32 and r.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(5)
    with pytest.raises(ValueError, match="invalid type: 'int'"):
        x.type(int)


def _no_warning(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda M, v: mt.addmm(0.5, M, 2, M, M), 0.5 * A + 2 * A @ A),
        (lambda M, v: mt.addmm(0.5, M, M, M), 0.5 * A + A @ A),
        (lambda M, v: M.addmm(0.5, 2, M, M), 0.5 * A + 2 * A @ A),
        (lambda M, v: M.clone().addmm_(0.5, 2, M, M), 0.5 * A + 2 * A @ A),
        (lambda M, v: M.clone().addmm_(0.5, M, M), 0.5 * A + A @ A),
        (lambda M, v: mt.addmv(0.5, v, 2, M, v), 0.5 * V + 2 * A @ V),
        (lambda M, v: v.clone().addmv_(0.5, 2, M, v), 0.5 * V + 2 * A @ V),
        (lambda M, v: mt.addmv_(0.5, v.clone(), M, v), 0.5 * V + A @ V),
        (lambda M, v: mt.addr(0.5, M, 2, v, v), 0.5 * A + 2 * np.outer(V, V)),
        (lambda M, v: M.clone().addr_(0.5, 2, v, v), 0.5 * A + 2 * np.outer(V, V)),
        (lambda M, v: mt.addbmm(0.5, M, 2, M[None], M[None]), 0.5 * A + 2 * A @ A),
        (lambda M, v: M.clone().addbmm_(0.5, M[None], M[None]), 0.5 * A + A @ A),
        (lambda M, v: mt.baddbmm(0.5, M[None], 2, M[None], M[None]), (0.5 * A + 2 * A @ A)[None]),
        (lambda M, v: M[None].baddbmm(mt.tensor(0.5), M[None], M[None]), (0.5 * A + A @ A)[None]),
    ],
)
def test_addmm_family_takes_the_deprecated_scalars_first_overloads(call, expected):
    M, v = mt.tensor(A), mt.tensor(V)
    with pytest.warns(UserWarning, match="This overload of .* is deprecated"):
        out = call(M, v)
    np.testing.assert_allclose(out.numpy(), expected, err_msg="scalars-first overload")


def test_deprecated_addmm_overloads_name_the_signatures_and_refuse_bad_mixes():
    M = mt.tensor(A)
    with pytest.warns(UserWarning) as rec:
        mt.addmm(0.5, M, 2, M, M)
    assert str(rec[0].message).startswith(
        "This overload of addmm is deprecated:\n\taddmm(Number beta, Tensor input, Number alpha, "
        "Tensor mat1, Tensor mat2, *, Tensor out = None)"
    )
    assert rec[0].filename == __file__
    with pytest.warns(UserWarning) as rec:
        M.clone().addmm_(0.5, M, M)
    assert "\taddmm_(Number beta, Tensor mat1, Tensor mat2)\n" in str(rec[0].message)
    assert rec[0].filename == __file__
    for bad in (
        lambda: mt.addmm(M, 0.5, M, M),  # the method's order is not the function's
        lambda: mt.addmm(0.5, M, 2, M),
        lambda: M.addmm(0.5, 2, M),
        lambda: M.clone().addmm_(0.5, M, M, alpha=3),  # no keywords with these overloads
        lambda: mt.addmm(mt.tensor([0.5]), M, M, M),  # a 1-d tensor is not a Number
    ):
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            bad()
    # the ordinary signature gives no warning
    out, caught = _no_warning(lambda: mt.addmm(M, M, M, beta=0.5))
    assert caught == []
    np.testing.assert_allclose(out.numpy(), 0.5 * A + A @ A)


def test_deprecated_addmm_overload_gradients():
    rng = np.random.default_rng(0)
    M, m1, m2 = (mt.tensor(rng.standard_normal((2, 2)), requires_grad=True) for _ in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda a, b, c: mt.addmm(0.5, a, 2, b, c), (M, m1, m2))
        assert gradcheck(lambda a, b, c: a.addmm(0.5, 2, b, c), (M, m1, m2))


def test_out_of_place_resize_and_resize_as():
    x = mt.arange(6.0)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = x.resize(2, 3)
    assert r.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert x.shape == (6,)  # out of place
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        r = x.resize_as(mt.zeros(3, 2))
    assert r.shape == (3, 2)
    t = mt.arange(6.0).view(2, 3).t()  # not contiguous: the elements in row-major order
    with pytest.warns(UserWarning):
        assert t.resize(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
        with pytest.raises(RuntimeError, match="requested resize to 4 \\(4 elements in total\\)"):
            x.resize(4)
    w = mt.tensor(np.arange(6.0), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda a: a.resize(3, 2), (w,))


def test_legacy_classes_expose_tensor_attributes():
    x = mt.ones(2)
    assert mt.FloatTensor.zero_(x) is x and x.tolist() == [0.0, 0.0]
    assert isinstance(mt.FloatTensor.numpy(x), np.ndarray)
    assert mt.FloatTensor.is_cuda is False and mt.cuda.FloatTensor.is_cuda is True
    assert mt.LongTensor.is_sparse is False
    assert mt.FloatTensor.layout is mt.strided
    assert isinstance(x, mt.FloatTensor) and not isinstance(x, mt.LongTensor)
    with pytest.raises(AttributeError, match="type object 'FloatTensor' has no attribute"):
        mt.FloatTensor.no_such_thing  # noqa: B018


def test_legacy_constructors_share_a_same_dtype_ndarray():
    a = np.zeros(3, dtype=np.float32)
    mt.FloatTensor(a).add_(1)
    b = np.zeros(3, dtype=np.float32)
    mt.Tensor(b)[0] = 5
    c = np.zeros(2, dtype=np.int64)
    mt.LongTensor(c).fill_(7)
    assert a.tolist() == [1.0, 1.0, 1.0] and b.tolist() == [5.0, 0.0, 0.0] and c.tolist() == [7, 7]
    d = np.zeros(2)  # float64 into the float32 Tensor: a converted copy
    t = mt.Tensor(d)
    t.fill_(3)
    assert t.dtype is mt.float32 and d.tolist() == [0.0, 0.0]


def test_legacy_constructor_keywords_dtype_check_and_graph():
    assert mt.Tensor(size=(2,)).shape == (2,)
    assert mt.Tensor(data=[1.0]).tolist() == [1.0]
    assert mt.ones(1).new(size=[2, 3]).shape == (2, 3)
    with pytest.raises(TypeError, match="invalid combination"):
        mt.Tensor(size=2)
    with pytest.raises(TypeError, match="expected FloatTensor"):
        mt.ones(2).new(mt.tensor([1, 2]))
    assert mt.Tensor(mt.tensor([1, 2])).dtype is mt.int64  # the base class keeps the dtype
    a = mt.ones(2, requires_grad=True)
    r = mt.Tensor(a)
    assert r.requires_grad and type(r.grad_fn).__name__ == "AliasBackward0"
    (r * mt.tensor([2.0, 3.0])).sum().backward()
    assert a.grad.tolist() == [2.0, 3.0]


def test_variable_refuses_volatile_with_requires_grad():
    x = mt.ones(1)
    with pytest.warns(UserWarning, match="volatile"):
        with pytest.raises(ValueError, match="can't be volatile and require_grad"):
            Variable(x, requires_grad=True, volatile=True)
    with pytest.warns(UserWarning, match="volatile"):
        with pytest.raises(ValueError, match="can't be volatile and require_grad"):
            Variable(x, True, True, True)
    with pytest.raises(TypeError, match="_grad_fn has to be a Function object or None"):
        Variable(x, True, False, True)


def test_cov_correction_must_be_an_int():
    X = mt.tensor([[0.3, -1.2, 2.5, 0.7], [1.1, 0.2, -0.9, 1.6]], dtype=mt.float64)
    for bad, name in ((0.5, "float"), (True, "bool"), (mt.tensor(1.0), "Tensor")):
        with pytest.raises(
            TypeError, match=f"cov\\(\\): argument 'correction' must be int, not {name}"
        ):
            mt.cov(X, correction=bad)
    np.testing.assert_allclose(
        mt.cov(X, correction=np.int64(0)).numpy(), np.cov(X.numpy(), ddof=0), err_msg="cov"
    )
