"""Tensor-method edges found by a sweep against torch: 0-d tensors for number arguments, Python
types as dtypes, NumPy-style keyword aliases, varargs dims, arguments torch refuses with a
TypeError, 0-d flips and adjoints, copies where torch copies, bool operands of igamma."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.autograd import gradcheck, gradgradcheck

X = np.array([[-1.0, 0.5, 2.0]], dtype=np.float32)


def _close(got, expected, name):
    np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-6, atol=1e-7, err_msg=name)


# --- nan_to_num: the saved mask of a 0-d input ---


def test_nan_to_num_backward_of_0d():
    x = mt.tensor(0.7, requires_grad=True)
    (x * 2).nan_to_num(nan=0.0).backward()
    assert x.grad.item() == 2.0
    y = mt.tensor(float("inf"), requires_grad=True)
    y.nan_to_num(posinf=1.0).backward()
    assert y.grad.item() == 0.0  # not finite: no gradient
    z = mt.tensor(0.3, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: t.nan_to_num(), (z,))
    assert gradgradcheck(lambda t: t.nan_to_num() ** 2, (z,))


# --- a Python type as dtype ---


def test_softmax_takes_a_python_type_as_dtype():
    x = mt.tensor([[1.0, 2.0, 3.0]])
    e = np.exp(np.array([1.0, 2.0, 3.0]))
    sm = (e / e.sum())[None]
    for name, f, expected in [
        ("Tensor.softmax", lambda: x.softmax(-1, dtype=float), sm),
        ("Tensor.log_softmax", lambda: x.log_softmax(-1, dtype=float), np.log(sm)),
        ("F.softmax", lambda: F.softmax(x, -1, dtype=float), sm),
        ("F.log_softmax", lambda: F.log_softmax(x, dim=-1, dtype=float), np.log(sm)),
    ]:
        r = f()
        assert r.dtype is mt.float64, name
        np.testing.assert_allclose(r.numpy(), expected, rtol=1e-12, err_msg=name)


def test_view_takes_a_python_type_as_dtype():
    x = mt.tensor([1.5, -2.0], dtype=mt.float64)
    np.testing.assert_array_equal(x.view(int).numpy(), np.array([1.5, -2.0]).view(np.int64))
    assert x.view(float).dtype is mt.float64
    with pytest.raises(RuntimeError, match="divisible by 2 to view Float as Double"):
        mt.tensor([[1.0, 2.0, 3.0]]).view(float)


# --- 0-d tensors where a number is expected (NOTE [ Number-like arguments ]) ---


def test_0d_tensor_number_arguments_read_as_numbers():
    x = mt.tensor(X)
    s = mt.tensor(0.2)
    p = mt.tensor(X).sigmoid()
    cases = [
        ("leaky_relu", lambda v: F.leaky_relu(x, v)),
        ("leaky_relu_", lambda v: F.leaky_relu(x.clone(), v, inplace=True)),
        ("elu", lambda v: F.elu(x, alpha=v)),
        ("celu", lambda v: F.celu(x, alpha=v)),
        ("softplus beta", lambda v: F.softplus(x, beta=v)),
        ("softplus threshold", lambda v: F.softplus(x, threshold=v)),
        ("hardtanh", lambda v: F.hardtanh(x, -v if isinstance(v, float) else mt.tensor(-0.2), v)),
        ("addcmul", lambda v: x.addcmul(x, x, value=v)),
        ("addcdiv", lambda v: x.addcdiv(x, x, value=v)),
        ("logit", lambda v: p.logit(eps=v)),
        ("norm", lambda v: x.norm(p=v)),
        ("linalg.vector_norm", lambda v: mt.linalg.vector_norm(x, v)),
        ("normalize", lambda v: F.normalize(x, p=v)),
    ]
    for name, f in cases:
        _close(f(s), f(0.2).numpy(), name)
    # the integer and bool values a 0-d tensor holds
    _close(F.leaky_relu(x, mt.tensor(2)), np.where(X > 0, X, 2 * X), "int slope")
    _close(x.norm(p=mt.tensor(True)), np.abs(X).sum(), "bool p is 1")
    r = mt.normal(0.0, mt.tensor(0.0), (2,))
    assert r.shape == (2,) and r.dtype is mt.float32
    np.testing.assert_array_equal(r.numpy(), np.zeros(2, np.float32))
    r = mt.normal(mt.tensor(3.0, dtype=mt.float64), 0.0, (2,))
    assert r.dtype is mt.float32 and r.tolist() == [3.0, 3.0]


def test_non_scalar_tensor_number_arguments_are_type_errors():
    x = mt.tensor(X)
    cases = [
        (lambda t: F.leaky_relu(x, t), "'negative_slope' .* must be Number"),
        (lambda t: F.elu(x, alpha=t), "'alpha' .* must be Number"),
        (lambda t: F.softplus(x, beta=t), "'beta' must be Number"),
        (lambda t: F.hardtanh(x, t, 1.0), "'min_val' .* must be Number"),
        (lambda t: x.addcmul(x, x, value=t), "'value' must be Number"),
        (lambda t: x.sigmoid().logit(eps=t), "'eps' must be float"),
        (lambda t: x.norm(p=t), "'ord' must be Number"),
        (lambda t: mt.normal(0.0, t, (2,)), "invalid combination"),
    ]
    for t in (mt.tensor([0.2]), mt.tensor(0.2, requires_grad=True)):
        for f, msg in cases:
            with pytest.raises(TypeError, match=msg):
                f(t)


def test_0d_slope_gradients():
    x = mt.tensor([[-1.0, 0.5, 2.0]], dtype=mt.float64, requires_grad=True)
    s = mt.tensor(0.3, dtype=mt.float64)
    assert gradcheck(lambda t: F.leaky_relu(t, s), (x,))
    assert gradgradcheck(lambda t: F.elu(t, alpha=s), (x,))
    assert gradcheck(lambda t: t.addcmul(t, t, value=s), (x,))


# --- copies where torch copies ---


def test_ravel_of_a_non_contiguous_tensor_is_a_contiguous_copy():
    b = mt.arange(24.0).reshape(3, 8)
    r = b[:, ::2].ravel()
    assert r.is_contiguous() and r.stride() == (1,)
    np.testing.assert_array_equal(r.numpy(), np.arange(24.0).reshape(3, 8)[:, ::2].ravel())
    r[0] = 100.0
    assert b[0, 0].item() == 0.0
    assert mt.ravel(b.t()).is_contiguous()
    c = b.ravel()  # a contiguous input: still a view
    c[1] = -1.0
    assert b[0, 1].item() == -1.0
    g = mt.arange(12.0, dtype=mt.float64).reshape(3, 4).requires_grad_()
    assert gradcheck(lambda t: t.t().ravel() * mt.arange(12.0, dtype=mt.float64), (g,))


def test_diff_n0_is_a_copy():
    d = mt.arange(6.0, dtype=mt.float64).reshape(2, 3).t().requires_grad_()
    r = d.diff(n=0)
    assert r is not d and type(r.grad_fn).__name__ == "CopyBackwards"
    np.testing.assert_array_equal(r.detach().numpy(), d.detach().numpy())
    with mt.no_grad():
        r[0, 0] = 100.0
    assert d[0, 0].item() == 0.0
    assert gradcheck(lambda t: t.diff(n=0), (d,))
    e = mt.zeros(2, 0)
    assert e.diff(dim=1) is e  # an empty dim: torch returns input itself


# --- NumPy-style aliases and varargs dims ---


def test_argmax_argmin_keepdims_alias():
    x = mt.arange(12.0).reshape(3, 4)
    r = x.argmax(dim=1, keepdims=True)
    assert r.shape == (3, 1) and r.flatten().tolist() == [3, 3, 3]
    r = mt.argmin(x, axis=0, keepdims=True)
    assert r.shape == (1, 4) and r.tolist() == [[0, 0, 0, 0]]
    assert x.argmax(keepdims=True).shape == (1, 1)


def test_method_dims_as_varargs():
    z = mt.zeros(1, 3, 1, 4)
    assert z.squeeze(0, 2).shape == (3, 4)
    w = (mt.zeros(1, 3, 1, 4, requires_grad=True) * 1).squeeze_(0, 2)
    assert w.shape == (3, 4) and type(w.grad_fn).__name__ == "SqueezeBackward5"
    x = mt.arange(12.0).reshape(3, 4)
    assert x.count_nonzero(0, 1).item() == 11
    assert [t.shape[1] for t in x.hsplit(1, 3)] == [1, 2, 1]
    assert [t.shape[0] for t in x.vsplit(1, 2)] == [1, 1, 1]
    y = mt.arange(24.0).reshape(2, 3, 4)
    assert [t.shape[2] for t in y.dsplit(1, 3)] == [1, 2, 1]
    assert [t.shape[1] for t in x.hsplit((2,))] == [2, 2]  # a one-element tuple: indices
    with pytest.raises(TypeError):
        mt.hsplit(x, 1, 3)  # torch's function form takes no varargs
    with pytest.raises(TypeError, match=r"got \(float, int\), but expected one of"):
        z.squeeze(0.0, 2)  # (torch's parser lists the overloads: a first dim no int fits none)
    with pytest.raises(TypeError, match="tuple of ints"):
        x.hsplit(1.5, 3)


# --- arguments torch refuses with a TypeError ---


def test_float_counts_and_offsets_are_type_errors():
    x = mt.arange(12.0).reshape(3, 4)
    for f, msg in [
        (lambda: x.chunk(4 / 2), "chunk\\(\\): argument 'chunks' \\(position 1\\) must be int"),
        (lambda: x.chunk(True), "must be int, not bool"),
        (lambda: x.diagonal(0.5), "diagonal\\(\\): argument 'offset'"),
        (lambda: x.tril(-1.5), "tril\\(\\): argument 'diagonal'"),
        (lambda: mt.triu(x, 1.0), "triu\\(\\): argument 'diagonal'"),
        (lambda: x.diag(0.5), "diag\\(\\): argument 'diagonal'"),
        (lambda: x.diag_embed(0.5), "diag_embed\\(\\): argument 'offset'"),
        (lambda: x.diagflat(0.5), "diagflat\\(\\): argument 'offset'"),
        (lambda: x.tensor_split([1.5, 3], 1), "tuple of ints"),
    ]:
        with pytest.raises(TypeError, match=msg):
            f()
    # int-likes still work
    assert x.tril(np.int64(-1)).tolist() == np.tril(np.arange(12.0).reshape(3, 4), -1).tolist()
    assert x.diagonal(mt.tensor(1)).tolist() == [1.0, 6.0, 11.0]
    assert len(x.chunk(np.int64(2))) == 2


def test_non_tensor_operands_are_type_errors():
    x, v, b = mt.ones(3, 3), mt.ones(3), mt.ones(2, 3, 3)
    for f, msg in [
        (lambda: x.expand_as(3), "expand_as\\(\\): argument 'other' \\(position 1\\) must be "),
        (lambda: x.view_as([3]), "view_as\\(\\): argument 'other' .* not list"),
        (lambda: x.reshape_as(3), "reshape_as\\(\\): argument 'other'"),
        (lambda: x.type_as(3), "type_as\\(\\): argument 'other'"),
        (lambda: x.addmm(x, 0.5), "addmm\\(\\): argument 'mat2' .* not float"),
        (lambda: mt.addmm(1.0, x, x), "addmm\\(\\): argument 'input' \\(position 1\\)"),
        (lambda: x.clone().addmm_(0.5, x), "addmm_\\(\\): argument 'mat1'"),
        (lambda: v.addmv(x, 0.5), "addmv\\(\\): argument 'vec'"),
        (lambda: x.addbmm(b, 0.5), "addbmm\\(\\): argument 'batch2'"),
        (lambda: mt.baddbmm(b, 2, b), "baddbmm\\(\\): argument 'batch1' .* not int"),
        (lambda: x.kron(2), "kron\\(\\): argument 'other'"),
    ]:
        with pytest.raises(TypeError, match=msg):
            f()


def test_bool_minus_tensor_is_refused():
    x = mt.arange(4.0)
    for f in (lambda: True - x, lambda: False - x):
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool"):
            f()
    assert (1 - x).tolist() == [1.0, 0.0, -1.0, -2.0]


# --- 0-d flips, adjoints and rolls ---


def test_0d_flip_adjoint_roll(monkeypatch):
    monkeypatch.setitem(mt._settings._state, "warn_always", True)  # torch warns once
    s = mt.tensor(1.5, requires_grad=True)
    for r in (s.flip(0), s.flip(-1), mt.flip(s, (0,))):
        assert r is not s and r.shape == () and r.item() == 1.5
        assert type(r.grad_fn).__name__ == "FlipBackward0"
    with pytest.raises(IndexError):
        s.flip(1)
    c = mt.tensor(2.0)
    c.flip(0).add_(1)
    assert c.item() == 2.0  # a copy
    g = mt.tensor(0.5, dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: t.flip(0) * t, (g,))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert s.adjoint() is s
    assert any("adjoint() is deprecated on 0-D tensors" in str(m.message) for m in w)
    for dims, shown in ((0, 0), (-1, -1), ((3, 0), 3)):
        with pytest.raises(IndexError, match=f"Dimension specified as {shown} but tensor has no"):
            s.roll((1,) * (len(dims) if isinstance(dims, tuple) else 1), dims)
    assert s.roll(1).item() == 1.5


# --- igamma with a bool operand ---


def test_igamma_bool_first_operand_promotes():
    a = mt.tensor([True, False])
    x = mt.tensor([0.5, 1.0])
    p = a.igamma(x)
    assert p.dtype is mt.float32
    np.testing.assert_allclose(p.numpy(), [1 - np.exp(-0.5), 1.0], rtol=1e-6)
    q = mt.special.gammaincc(a, x)
    assert q.dtype is mt.float32
    np.testing.assert_allclose(q.numpy(), [np.exp(-0.5), 0.0], atol=1e-7)
    x64 = mt.tensor([0.5, 1.0], dtype=mt.float64, requires_grad=True)
    assert gradcheck(lambda t: mt.igamma(mt.tensor([True, True]), t), (x64,))


def test_argument_types_torch_refuses():
    x = mt.arange(6.0).view(2, 3)
    with pytest.raises(TypeError, match="repeat_interleave\\(\\) received an invalid combination"):
        x.repeat_interleave(1.5)
    with pytest.raises(TypeError, match="argument 'k' \\(position 1\\) must be int, not float"):
        x.topk(2.0)
    with pytest.raises(TypeError, match="argument 'source' \\(position 2\\) must be Tensor"):
        x.masked_scatter(x > 1, 3.0)
    with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
        mt.rsub(x, True)
    assert x.repeat_interleave(mt.tensor(2).item()).shape == (12,)
    assert x.topk(mt.tensor(2)).values.shape == (2, 2)  # an int-like 0-d tensor is an int


def test_new_memory_of_repeat_and_tile_is_row_major():
    t = mt.arange(6.0).view(2, 3).t()
    for r in (t.repeat(1, 1), t.tile((1, 1)), mt.ones(3).expand(2, 3).repeat(1, 1)):
        assert r.is_contiguous()
        r.view(-1)


def test_count_nonzero_over_no_dims_counts_all():
    x = mt.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]])
    assert mt.count_nonzero(x, dim=()).item() == 4


def test_python_types_as_dtypes_and_numpy_axis_names():
    x = mt.randn(2, 3)
    assert mt.softmax(x, 1, dtype=float).dtype == mt.float64
    assert mt.special.log_softmax(x, 1, dtype=float).dtype == mt.float64
    assert mt.frombuffer(bytearray(16), dtype=float).dtype == mt.float64
    assert x.size(axis=1) == 3 and x.stride(axis=0) == 3


def test_where_of_a_mask_gives_contiguous_index_tensors():
    m = mt.tensor([[True, False, True], [False, True, True]])
    for t in (*mt.where(m), *m.nonzero(as_tuple=True)):
        assert t.stride() == (1,) and t.is_contiguous()
        assert t.view(mt.int32).shape == (8,)
