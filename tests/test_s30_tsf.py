"""Session 30 (helper tsf): torch-free checks of the fixes found by the time-series forecasting
programs in tests/reference/test_s30_tsf_reference.py. Messages and values are torch 2.13's.

F.linear with a bias runs one addmm only for a matrix input, or a contiguous input with a
vector bias (flattened to a matrix); otherwise it runs matmul and adds the bias in place. So a
float64 window fed to a float32 model is refused in the words of the path taken (addmm's,
mm's when matmul folds, bmm's when it does not), a bias of another dtype on the matmul path is
cast into the product's dtype, and a bias that would grow the product is refused. torch's
matmul folds a batch times a matrix into one mm also when the matrix requires grad (a
MultiheadAttention with batch_first=True projects its transposed inputs so), and a batch times
a vector into one mv."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F32, F64 = mt.float32, mt.float64


def _err(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_linear_dtype_mismatch_is_refused_in_the_words_of_the_path_taken():
    x = mt.zeros(5, 4, 2, dtype=F64)
    w, b = mt.zeros(3, 2), mt.zeros(3)
    addmm = "mat1 and mat2 must have the same dtype, but got Double and Float"
    assert _err(lambda: F.linear(x, w, b)) == addmm  # contiguous, vector bias: addmm
    assert _err(lambda: F.linear(mt.zeros(2, dtype=F64), w, b)) == addmm
    mm = "expected m1 and m2 to have the same dtype, but got: double != float"
    assert _err(lambda: F.linear(x, w, mt.zeros(4, 3))) == mm  # matmul folds into mm
    assert _err(lambda: F.linear(x, w, mt.zeros(5, 4, 3))) == mm
    bmm = "expected scalar type Double but found Float"
    assert _err(lambda: F.linear(x.transpose(0, 1), w, b)) == bmm  # strided: bmm
    assert _err(lambda: F.linear(x.transpose(0, 1), w, mt.zeros(5, 3))) == bmm
    w_f64 = mt.zeros(3, 2, dtype=F64)
    msg = "expected scalar type Float but found Double"
    assert _err(lambda: F.linear(mt.zeros(5, 4, 2).transpose(0, 1), w_f64, b)) == msg


def test_linear_shape_mismatch_on_the_matmul_path():
    x = mt.zeros(6, 4, 2)
    assert _err(lambda: F.linear(x.transpose(0, 1), mt.zeros(3, 3), mt.zeros(3))) == (
        "Expected size for first two dimensions of batch2 tensor to be: [4, 2] but got: [4, 3]."
    )
    assert _err(lambda: F.linear(x.transpose(0, 1), mt.zeros(3, 3))) == (
        "Expected size for first two dimensions of batch2 tensor to be: [4, 2] but got: [4, 3]."
    )
    assert _err(lambda: F.linear(x, mt.zeros(3, 3), mt.zeros(4, 3))) == (
        "mat1 and mat2 shapes cannot be multiplied (24x2 and 3x3)"
    )
    assert _err(lambda: F.linear(x, mt.zeros(3, 3), mt.zeros(3))) == (
        "mat1 and mat2 shapes cannot be multiplied (24x2 and 3x3)"
    )


def test_linear_adds_the_bias_in_place_on_the_matmul_path():
    x = mt.arange(16.0).view(4, 2, 2).transpose(0, 1)  # strided: matmul, then add_
    w = mt.tensor([[1.0, 0.5], [0.0, -1.0], [2.0, 1.0]])
    y = F.linear(x, w, mt.tensor([0.5, 1.0, -1.0], dtype=F64))
    assert y.dtype == F32 and y._version == 1
    np.testing.assert_allclose(y[1, 0].numpy(), [4.0, -2.0, 6.0])
    assert F.linear(x, w, mt.zeros(3))._version == 1  # the same dtype: the same path
    assert F.linear(mt.zeros(6, 4, 2), w, mt.zeros(4, 3))._version == 1
    assert F.linear(mt.zeros(6, 4, 2), w, mt.zeros(3))._version == 0  # addmm, viewed back
    assert _err(lambda: F.linear(mt.zeros(2), w, mt.zeros(4, 3))) == (
        "output with shape [3] doesn't match the broadcast shape [4, 3]"
    )
    assert _err(lambda: F.linear(mt.zeros(6, 4, 2), w, mt.zeros(1, 6, 4, 3))) == (
        "output with shape [6, 4, 3] doesn't match the broadcast shape [1, 6, 4, 3]"
    )
    assert _err(lambda: F.linear(mt.zeros(6, 4, 2), w, mt.zeros(3, dtype=mt.int64))) == (
        "self and mat2 must have the same dtype, but got Long and Float"
    )
    ints = (mt.zeros(6, 4, 2, dtype=mt.int64), mt.zeros(3, 2, dtype=mt.int64), mt.zeros(4, 3))
    assert _err(lambda: F.linear(*ints)) == (
        "result type Float can't be cast to the desired output type Long"
    )


def test_matmul_folds_a_batch_when_the_matrix_requires_grad():
    x = mt.arange(48.0).view(4, 6, 2).transpose(0, 1)  # batch dims do not view as one matrix
    w = mt.ones(3, 2, requires_grad=True)
    y = mt.matmul(x, w.t())
    assert y.grad_fn.name() == "UnsafeViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MmBackward0"
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[552.0, 576.0]] * 3)
    w64 = mt.ones(2, 3, dtype=F64, requires_grad=True)
    assert _err(lambda: mt.matmul(x, w64)) == (
        "expected m1 and m2 to have the same dtype, but got: float != double"
    )
    assert _err(lambda: mt.matmul(x, mt.ones(3, 3, requires_grad=True))) == (
        "mat1 and mat2 shapes cannot be multiplied (24x2 and 3x3)"
    )
    assert _err(lambda: mt.matmul(x, mt.ones(3, 3))) == (  # no grad: bmm, unfolded
        "Expected size for first two dimensions of batch2 tensor to be: [6, 2] but got: [6, 3]."
    )


def test_a_float64_window_into_a_float32_attention_model():
    mt.manual_seed(0)
    mha = mt.nn.MultiheadAttention(4, 2, batch_first=True)
    x = mt.zeros(2, 3, 4, dtype=F64)
    msg = "expected m1 and m2 to have the same dtype, but got: double != float"
    assert _err(lambda: mha(x, x, x)) == msg
    layer = mt.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
    assert _err(lambda: layer(x)) == msg


def test_linear_vector_weight_with_a_vector_input_and_bias_runs_addmm():
    w = mt.zeros(2)
    assert _err(lambda: F.linear(mt.zeros(2), w, mt.zeros(1))) == (
        "mat2 must be a matrix, got 1-D tensor"
    )
    assert F.linear(mt.zeros(2), w, mt.zeros(())).shape == ()  # a 0-d bias: matmul, then add
    assert _err(lambda: F.linear(mt.zeros(6, 4, 2), w, mt.zeros(4, 1))) == (
        "mat2 must be a matrix, got 1-D tensor"
    )


def test_matmul_folds_a_batch_times_a_vector_into_one_mv():
    x = mt.arange(24.0).view(2, 3, 4).requires_grad_()
    v = mt.ones(4, requires_grad=True)
    y = mt.matmul(x, v)
    names = []
    fn = y.grad_fn
    while fn is not None and fn.next_functions:
        names.append(fn.name())
        fn = fn.next_functions[0][0]
    assert names == ["UnsafeViewBackward0", "MvBackward0", "ViewBackward0"]
    gx, gv = mt.autograd.grad(y.pow(2).sum(), (x, v), create_graph=True)
    assert gx.sum().item() == 2208.0
    assert gv.tolist() == [7760.0, 8312.0, 8864.0, 9416.0]
    (ggx,) = mt.autograd.grad(gv.sum(), x)
    assert ggx.sum().item() == 4416.0
