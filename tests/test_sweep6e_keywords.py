"""Keyword names and keyword errors that follow torch's (a keyword-argument sweep's findings)."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F


def test_tensor_type_refuses_unknown_keywords():
    x = minitorch.ones(2, 3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtpye'"):
        x.type(dtpye=minitorch.float64)
    with pytest.raises(TypeError, match="'bogus'"):
        x.type(minitorch.float64, bogus=1)
    assert x.type(minitorch.float64, non_blocking=True).dtype is minitorch.float64
    y = minitorch.ones(1, 2, 3, 4).type(minitorch.float64, memory_format=minitorch.channels_last)
    assert y.dtype is minitorch.float64 and y.stride() == (24, 1, 8, 2)


def test_keyword_sizes_and_copy_other():
    v = minitorch.ones(3)
    assert v.broadcast_to(size=(2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        v.broadcast_to((2, 3), size=(2, 3))
    x = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_allclose(x.sum_to_size(size=(1, 3)).numpy(), [[5.0, 7.0, 9.0]])
    y = minitorch.zeros(2, 3).copy_(other=x)
    np.testing.assert_allclose(y.numpy(), x.numpy())
    with pytest.raises(TypeError, match="'src'"):
        minitorch.zeros(2, 3).copy_(src=x)


def test_module_to_tensor_keyword():
    lin = minitorch.nn.Linear(2, 2).to(tensor=minitorch.ones(1, dtype=minitorch.float64))
    assert lin.weight.dtype is minitorch.float64
    with pytest.raises(TypeError, match="invalid combination"):
        minitorch.nn.Linear(2, 2).to(minitorch.float16, tensor=minitorch.ones(1))


def test_one_hot_takes_input():
    out = F.one_hot(input=minitorch.tensor([0, 2]), num_classes=3)
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0], [0, 0, 1]])
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "input"'):
        F.one_hot(tensor=minitorch.tensor([0, 2]), num_classes=3)  # (torch names input first)


def test_distance_numpy_aliases():
    x = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]])
    y = minitorch.tensor([[1.0, 0.0, 3.0], [4.0, 1.0, 6.0]])
    np.testing.assert_allclose(
        F.cosine_similarity(x, y, axis=0).numpy(),
        F.cosine_similarity(x, y, dim=0).numpy(),
    )
    out = F.pairwise_distance(x, y, keepdims=True)
    assert out.shape == (2, 1)
    np.testing.assert_allclose(out.numpy()[:, 0], [2.0, np.sqrt(160.0)], rtol=1e-5)


def test_legacy_linalg_keyword_names():
    A = minitorch.tensor([[2.0, 0.0], [1.0, 3.0]], dtype=minitorch.float64)
    b = minitorch.tensor([[1.0], [2.0]], dtype=minitorch.float64)
    x = minitorch.triangular_solve(input=b, A=A, upper=False)[0]
    np.testing.assert_allclose(x.numpy(), [[0.5], [0.5]])
    LU, piv = minitorch.linalg.lu_factor(A)
    np.testing.assert_allclose(
        minitorch.lu_solve(input=b, LU_data=LU, LU_pivots=piv).numpy(), [[0.5], [0.5]]
    )
    L = minitorch.linalg.cholesky(A @ A.T)
    np.testing.assert_allclose(
        minitorch.cholesky_inverse(input=L).numpy(), np.linalg.inv((A @ A.T).numpy())
    )
    tau = minitorch.tensor([0.5, 0.0], dtype=minitorch.float64)
    q = minitorch.orgqr(input=A, input2=tau)
    np.testing.assert_allclose(q.numpy(), [[0.5, -0.5], [-0.5, 0.5]])
    np.testing.assert_allclose(
        minitorch.ormqr(input=A, input2=tau, input3=b).numpy(), [[-0.5], [0.5]]
    )
    with pytest.raises(TypeError):
        minitorch.cholesky_inverse(L=L)
    with pytest.raises(TypeError):
        minitorch.triangular_solve(b=b, A=A)
    # the renamed parameters still carry gradients
    Ar = A.clone().requires_grad_()
    br = b.clone().requires_grad_()
    assert minitorch.autograd.gradcheck(
        lambda a, v: minitorch.triangular_solve(input=v, A=a.tril(), upper=False)[0],
        (Ar, br),
    )
    Lr = L.clone().requires_grad_()
    assert minitorch.autograd.gradcheck(lambda m: minitorch.cholesky_inverse(input=m.tril()), (Lr,))


@pytest.mark.parametrize("name", ["sin_", "floor_", "expm1_", "erf_", "round_"])
def test_torch_inplace_functions_take_input(name):
    x = minitorch.tensor([0.25, 1.5])
    ref = getattr(minitorch, name[:-1])(x.clone())
    out = getattr(minitorch, name)(input=x)
    assert out is x
    np.testing.assert_allclose(x.numpy(), ref.numpy(), err_msg=name)


def test_inplace_binary_by_keyword():
    x = minitorch.tensor([3, 4])
    minitorch.gcd_(input=x, other=minitorch.tensor([6, 8]))
    np.testing.assert_array_equal(x.numpy(), [3, 4])
    y = minitorch.tensor([1.26])
    minitorch.round_(input=y, decimals=1)
    np.testing.assert_allclose(y.numpy(), [1.3], rtol=1e-6)


def test_repeat_interleave_repeats_keyword_and_unsafe_split_input():
    out = minitorch.repeat_interleave(repeats=minitorch.tensor([1, 2]))
    np.testing.assert_array_equal(out.numpy(), [0, 1, 1])
    parts = minitorch.unsafe_split(input=minitorch.ones(2, 3), split_size=1)
    assert [p.shape for p in parts] == [(1, 3), (1, 3)]


def test_argsort_and_isin_out():
    x = minitorch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    np.testing.assert_array_equal(
        minitorch.argsort(x, stable=True, out=None).numpy(), [[1, 2, 0], [0, 2, 1]]
    )
    o = minitorch.empty(0, dtype=minitorch.int64)
    assert minitorch.argsort(x, stable=True, out=o) is o
    np.testing.assert_array_equal(o.numpy(), [[1, 2, 0], [0, 2, 1]])
    with pytest.raises(RuntimeError, match="dtype long int"):
        minitorch.argsort(x, stable=True, out=minitorch.empty(0))
    b = minitorch.empty(0, dtype=minitorch.bool)
    minitorch.isin(x, minitorch.tensor([1.0, 5.0]), out=b)
    np.testing.assert_array_equal(b.numpy(), [[False, True, False], [False, True, False]])
    assert minitorch.isin(x, 1.0, out=None).sum().item() == 1


def test_generator_manual_seed_is_positional():
    g = minitorch.Generator()
    assert g.manual_seed(3) is g
    with pytest.raises(TypeError):
        g.manual_seed(seed=3)
