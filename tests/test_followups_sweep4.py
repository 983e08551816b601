"""Follow-ups of the fourth sweep: mean's gradient layout, F.linear's gradient layouts and
checks, linalg.norm's keyword, median/mode out= dtypes, missing-argument TypeErrors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

# --- mean's backward: expanded, then divided (a real tensor, as torch's) ---


def test_mean_gradient_is_a_writable_dense_tensor():
    w = mt.ones(3, 2, requires_grad=True)
    (g,) = mt.autograd.grad(w.mean(), w)
    assert g.stride() == (2, 1)
    g.mul_(0.5)  # raised on the stride-0 expand ("more than one element ... memory location")
    np.testing.assert_allclose(g.numpy(), np.full((3, 2), 1 / 12), rtol=1e-6)
    o = w.mean(0)
    (g0,) = mt.autograd.grad(o, w, mt.ones_like(o))
    assert g0.stride() == (2, 1)
    np.testing.assert_allclose(g0.numpy(), np.full((3, 2), 1 / 3), rtol=1e-6)
    gf = mt.func.grad(lambda a: a.mean())(mt.ones(3, 2))
    assert gf.stride() == (2, 1)
    s = mt.tensor(2.0, requires_grad=True)  # 0-d: the quotient stays an array
    (gs,) = mt.autograd.grad(s.mean(), s)
    assert gs.shape == () and gs.item() == 1.0
    h = mt.ones(3, dtype=mt.float16, requires_grad=True)
    h.mean().backward()
    assert h.grad.dtype is mt.float16 and h.grad.stride() == (1,)
    np.testing.assert_allclose(h.grad.numpy(), np.full(3, np.float16(1 / 3)))


def test_sum_gradient_stays_an_expand_as_torch():
    w = mt.ones(3, 2, requires_grad=True)
    (g,) = mt.autograd.grad(w.sum(), w)
    assert g.stride() == (0, 0)


def test_mean_gradients_check():
    x = mt.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda a: a.mean(), (x,))
    assert gradcheck(lambda a: a.mean(1), (x,))
    assert gradgradcheck(lambda a: (a * a).mean(0, keepdim=True), (x,))


# --- F.linear: gradients in the operands' layouts, torch's checks ---


@pytest.mark.parametrize("bias", [False, True])
def test_linear_gradients_take_the_operands_layouts(bias):
    rng = np.random.default_rng(1)
    xn, wn = rng.standard_normal((2, 5)), rng.standard_normal((3, 2))
    x = mt.tensor(xn, requires_grad=True)
    w = mt.tensor(wn, requires_grad=True)
    b = mt.zeros(3, dtype=mt.float64, requires_grad=True) if bias else None
    gx, gw = mt.autograd.grad(F.linear(x.T, w, b).sum(), (x, w))
    assert gx.stride() == (5, 1) and gw.stride() == (2, 1)  # gx was (1, 2)
    ones = np.ones((5, 3))
    np.testing.assert_allclose(gx.numpy(), (ones @ wn).T, rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ones.T @ xn.T, rtol=1e-12)
    # a weight given as the transpose of a row-major matrix: its gradient row-major again
    w2 = mt.tensor(wn.T.copy(), requires_grad=True)
    gx2, gw2 = mt.autograd.grad(F.linear(x.T, w2.T, b).sum(), (x, w2))
    assert gx2.stride() == (5, 1) and gw2.stride() == (3, 1)  # gw2 was (1, 2)
    np.testing.assert_allclose(gw2.numpy(), (ones.T @ xn.T).T, rtol=1e-12)
    # the create_graph path (Tensor-level backward) keeps the layouts too
    gx3, gw3 = mt.autograd.grad(F.linear(x.T, w, b).sum(), (x, w), create_graph=True)
    assert gx3.stride() == (5, 1) and gw3.stride() == (2, 1)
    args = (x, w) if b is None else (x, w, b)
    assert gradcheck(lambda *a: F.linear(a[0].T, *a[1:]), args)
    assert gradgradcheck(lambda *a: F.linear(a[0].T, *a[1:]).pow(2), args)


def test_linear_vector_weight_with_bias_is_refused_where_torch_runs_addmm():
    msg = "mat2 must be a matrix, got 1-D tensor"
    # (a vector input with a vector bias is flattened into addmm too: torch 2.13 refuses it)
    for x in (mt.ones(4, 3), mt.ones(2, 4, 3), mt.ones(3, 4).t(), mt.ones(3)):
        with pytest.raises(RuntimeError, match=msg):
            F.linear(x, mt.ones(3), mt.ones(1))
    assert F.linear(mt.ones(4, 3), mt.ones(3)).shape == (4,)  # no bias: matmul
    assert F.linear(mt.ones(2, 3, 4).transpose(1, 2), mt.ones(3), mt.ones(1)).shape == (2, 4)
    with pytest.raises(RuntimeError, match="linear need to be at least 1D, but they are 2D and 0D"):
        F.linear(mt.ones(4, 3), mt.tensor(2.0))
    with pytest.raises(RuntimeError, match="linear need to be at least 1D, but they are 0D and 2D"):
        F.linear(mt.tensor(1.0), mt.ones(2, 3), mt.ones(2))


def test_linear_shape_message_counts_rows_of_an_input_without_features():
    for shape, rows in (((4, 0), 4), ((2, 4, 0), 8), ((0,), 1)):
        with pytest.raises(RuntimeError, match=rf"\({rows}x0 and 5x2\)"):
            mt.nn.Linear(5, 2)(mt.ones(*shape))


# --- linalg norms take torch's keyword ---


def test_linalg_norm_and_matrix_norm_take_input_keyword():
    x = mt.tensor([3.0, 4.0])
    assert mt.linalg.norm(input=x).item() == 5.0
    assert mt.linalg.matrix_norm(input=mt.ones(2, 2)).item() == 2.0
    with pytest.raises(TypeError):
        mt.linalg.norm(A=x)


# --- median / nanmedian / mode: out= dtypes ---


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_out_dtypes(op):
    f = getattr(mt, op)
    x = mt.tensor([[3.0, 1.0, 2.0], [2.0, 2.0, 5.0]])
    with pytest.raises(
        RuntimeError, match=r"argument #1 'indices' to have scalar type Long; but got torch.Float"
    ):
        f(x, 1, out=(mt.empty(2, dtype=mt.float64), mt.empty(2)))  # indices checked first
    with pytest.raises(RuntimeError, match=r"torch.DoubleTensor does not equal torch.FloatTensor"):
        f(x, 1, out=(mt.empty(2, dtype=mt.float64), mt.empty(2, dtype=mt.int64)))
    with pytest.raises(
        TypeError, match=f'{op}\\(\\) missing 1 required positional arguments: "dim"'
    ):
        f(x, out=mt.empty(()))
    v, i = mt.empty(2), mt.empty(2, dtype=mt.int64)
    r = f(x, 1, out=(v, i))
    assert r[0] is v and v.tolist() == [2.0, 2.0] and i.tolist() == [2, 1]


def test_mode_out_dtypes():
    x = mt.tensor([[3.0, 1.0, 2.0], [2.0, 2.0, 5.0]])
    with pytest.raises(
        RuntimeError, match="expected scalar type 'Float' but got 'Double' for values"
    ):
        mt.mode(x, 1, out=(mt.empty(2, dtype=mt.float64), mt.empty(2)))  # values checked first
    with pytest.raises(RuntimeError, match="expected scalar type 'Long' but got 'Int' for indices"):
        mt.mode(x, 1, out=(mt.empty(2), mt.empty(2, dtype=mt.int32)))


# --- a missing argument: torch's TypeErrors and names ---


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda x: x.view(), "view() received an invalid combination of arguments - got ()"),
        (lambda x: x.reshape(), 'reshape() missing 1 required positional arguments: "shape"'),
        (lambda x: x.permute(), 'permute() missing 1 required positional arguments: "dims"'),
        (lambda x: x.expand(), 'expand() missing 1 required positional arguments: "size"'),
        (lambda x: x.repeat(), 'repeat() missing 1 required positional arguments: "repeats"'),
        (lambda x: x.tile(), 'tile() missing 1 required positional arguments: "dims"'),
        (lambda x: x.broadcast_to(), "broadcast_to() missing 1 required positional arguments"),
        (lambda x: x.transpose(0), 'transpose() missing 1 required positional arguments: "dim1"'),
        (lambda x: x.softmax(), 'softmax() missing 1 required positional arguments: "dim"'),
    ],
)
def test_missing_arguments_raise_type_error(call, msg):
    with pytest.raises(TypeError) as info:
        call(mt.ones(1, 1))  # one element: reshape() used to give a 0-d tensor
    assert str(info.value).startswith(msg)


def test_size_forms_still_work_and_methods_pickle():
    x = mt.ones(1, 1)
    assert x.reshape(()).shape == () and x.view(()).shape == ()
    assert x.expand(2, 1).shape == (2, 1) and x.reshape(shape=(1,)).shape == (1,)
    for fn in (mt.Tensor.transpose, mt.Tensor.reshape):
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_module_errors_name_the_public_class():
    nn = mt.nn
    cases = [
        (lambda: nn.Conv2d(3, 8), "Conv2d.__init__() missing 1 required positional argument"),
        (lambda: nn.ConvTranspose1d(3, 8), "ConvTranspose1d.__init__() missing"),
        (lambda: nn.BatchNorm2d(), "_BatchNorm.__init__() missing 1 required positional"),
        (lambda: nn.Conv2d(1, 1, 1)(), "Conv2d.forward() missing 1 required positional argument"),
    ]
    for make, msg in cases:
        with pytest.raises(TypeError) as info:
            make()
        assert str(info.value).startswith(msg), str(info.value)
    conv = nn.Conv2d(1, 2, 3, padding=1, padding_mode="reflect")  # the copies still work
    assert conv(mt.ones(1, 1, 4, 4)).shape == (1, 2, 4, 4)
    assert nn.BatchNorm2d(2)(mt.ones(2, 2, 2, 2)).shape == (2, 2, 2, 2)
