"""Warnings and small parity items found by sweep 18 (findM): torch's once-per-process
deprecation warnings, scalar-conversion warnings, node names and type names in messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as torch
import minitorch.nn.functional as F
from minitorch import _settings
from minitorch.autograd import gradcheck, gradgradcheck


def _record(fn, times=1):
    """The messages of the warnings `fn` gives when called `times` times."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(times):
            fn()
    return [(m.category, str(m.message)) for m in w]


@pytest.fixture
def warn_once(monkeypatch):
    """Runs a test with warn_always off and the once-per-process record reset."""
    monkeypatch.setitem(_settings._state, "warn_always", False)
    monkeypatch.setattr(_settings, "_warned_once", set())


# --- backward(create_graph=True) ---


def test_backward_create_graph_warns_once(warn_once):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    got = _record(lambda: (x**3).sum().backward(create_graph=True), times=2)
    assert len(got) == 1
    assert got[0][0] is UserWarning
    assert got[0][1].startswith(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak."
    )
    np.testing.assert_allclose(x.grad.detach().numpy(), [6.0, 24.0], err_msg="grads accumulate")


def test_autograd_backward_create_graph_warns_grad_does_not(warn_once):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert _record(lambda: torch.autograd.grad((x**3).sum(), x, create_graph=True)) == []
    assert _record(lambda: (x**3).sum().backward()) == []
    got = _record(lambda: torch.autograd.backward((x**3).sum(), create_graph=True, inputs=[x]))
    assert len(got) == 1


def test_backward_create_graph_warns_every_time_with_warn_always(warn_once):
    _settings._state["warn_always"] = True
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert len(_record(lambda: (x**3).sum().backward(create_graph=True), times=2)) == 2


# --- torch.tensor of tensors that require grad ---


def test_tensor_of_grad_requiring_scalars_warns(warn_once):
    w = torch.tensor(2.0, requires_grad=True)
    got = _record(lambda: torch.tensor([w * 1, w * 3]), times=2)
    assert got == [
        (
            UserWarning,
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
            "behavior.\nConsider using tensor.detach() first.",
        )
    ]
    t = torch.tensor([w * 1, w * 3])
    np.testing.assert_array_equal(t.numpy(), [2.0, 6.0])
    assert not t.requires_grad


def test_tensor_of_grad_requiring_scalars_warns_per_element_with_warn_always(warn_once):
    _settings._state["warn_always"] = True
    w = torch.tensor(2.0, requires_grad=True)
    assert len(_record(lambda: torch.tensor([w * 1, w * 3]))) == 2
    assert len(_record(lambda: torch.tensor([[w * 1], [2.0]]))) == 1
    assert _record(lambda: torch.tensor([w.detach(), 1.0])) == []
    assert _record(lambda: torch.tensor([1.0, 2.0])) == []


# --- deprecated torch.qr / torch.cholesky ---


@pytest.mark.parametrize(
    "op, start",
    [
        ("qr", "torch.qr is deprecated in favor of torch.linalg.qr and will be removed"),
        ("cholesky", "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will"),
    ],
)
def test_qr_cholesky_deprecated_once(warn_once, op, start):
    a = torch.eye(2) * 2
    got = _record(lambda: (getattr(torch, op)(a), getattr(a, op)()), times=2)
    assert len(got) == 1, got
    assert got[0][0] is UserWarning and got[0][1].startswith(start)
    _settings._state["warn_always"] = True
    assert len(_record(lambda: getattr(torch, op)(a), times=2)) == 2


def test_qr_warns_before_checking_input(warn_once):
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            torch.qr(torch.ones(2))


# --- scatter with reduce= and a Tensor src ---


def test_scatter_reduce_with_tensor_src_warns_once(warn_once):
    i = torch.tensor([0, 1, 0])
    s = torch.tensor([1.0, 2.0, 3.0])
    r = torch.zeros(3)
    got = _record(lambda: r.scatter_(0, i, s, reduce="add"), times=2)
    assert got == [
        (
            UserWarning,
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
        )
    ]
    np.testing.assert_array_equal(r.numpy(), [8.0, 4.0, 0.0])
    _settings._state["warn_always"] = True
    assert _record(lambda: torch.zeros(3).scatter_(0, i, 2.0, reduce="add")) == []
    assert len(_record(lambda: torch.zeros(3).scatter(0, i, s, reduce="multiply"))) == 1


# --- unflatten's dim, set_default_tensor_type ---


def test_unflatten_error_names_wrapped_dim():
    with pytest.raises(RuntimeError, match=r"size of dim 2 \(4\) in the input tensor"):
        torch.zeros(2, 3, 4).unflatten(-1, (3, 2))


def test_set_default_tensor_type_warns_once(warn_once):
    before = torch.get_default_dtype()
    try:

        def both():
            torch.set_default_tensor_type(torch.DoubleTensor)
            torch.set_default_tensor_type(torch.FloatTensor)

        got = _record(both)
        assert len(got) == 1 and "set_default_tensor_type() is deprecated" in got[0][1]
    finally:
        torch.set_default_dtype(before)


# --- node names of scans and movedim on 0-d tensors ---


@pytest.mark.parametrize(
    "fn, name",
    [
        (lambda x: x.cumsum(0), "CumsumBackward0"),
        (lambda x: x.cumprod(0), "CumprodBackward0"),
        (lambda x: x.logcumsumexp(-1), "LogcumsumexpBackward0"),
        (lambda x: x.cummax(0)[0], "CummaxBackward0"),
        (lambda x: x.cummin(0)[0], "CumminBackward0"),
        (lambda x: x.movedim(0, 0), "AliasBackward0"),
    ],
)
def test_zero_dim_scan_node_names(fn, name):
    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    out = fn(x)
    assert type(out.grad_fn).__name__ == name
    assert out.shape == ()
    np.testing.assert_allclose(out.item(), 1.5)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_zero_dim_scans_one_node_and_values():
    x = torch.tensor(1.5, requires_grad=True)
    out = x.cumsum(0)
    assert out._base is None
    assert out.grad_fn.next_functions[0][0].__class__.__name__ == "AccumulateGrad"
    values, indices = x.cummax(0)
    assert indices.dtype is torch.int64 and indices.shape == () and indices.item() == 0
    assert torch.tensor(3, dtype=torch.int32).cumsum(0).dtype is torch.int64


# --- type names in argument errors ---


_ARRAY_ARG = "argument 'input' (position 1) must be Tensor, not numpy.ndarray"


@pytest.mark.parametrize(
    "fn, message",
    [
        (lambda a: torch.cat([a]), "element 0 in argument 0, but got numpy.ndarray"),
        (lambda a: torch.stack(a), "must be tuple of Tensors, not numpy.ndarray"),
        (lambda a: F.relu(a), "relu(): " + _ARRAY_ARG),
        (lambda a: F.linear(a, torch.ones(2, 2)), "linear(): " + _ARRAY_ARG),
        (lambda a: torch.square(a), "square(): " + _ARRAY_ARG),
    ],
)
def test_type_names_in_messages(fn, message):
    with pytest.raises(TypeError) as e:
        fn(np.ones(2))
    assert message in str(e.value)


def test_softmax_of_non_tensor_is_attribute_error():
    with pytest.raises(AttributeError, match="'numpy.ndarray' object has no attribute 'softmax'"):
        F.softmax(np.ones(2), 0)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'log_softmax'"):
        F.log_softmax([1.0], 0)


# --- linear without bias, placeholder data ---


@pytest.mark.parametrize("shape, version", [((4,), 1), ((2, 5, 4), 0)])
def test_linear_without_bias_is_not_a_view(shape, version):
    g = np.random.default_rng(0)
    x = torch.tensor(g.standard_normal(shape))
    w = torch.tensor(g.standard_normal((3, 4)), requires_grad=True)
    out = F.linear(x, w)
    assert out._base is None
    assert out._version == version
    np.testing.assert_allclose(out.detach().numpy(), x.numpy() @ w.detach().numpy().T)
    assert gradcheck(lambda w: F.linear(x, w), (w,))
    assert gradgradcheck(lambda w: F.linear(x, w), (w,))
    assert F.linear(x, w, torch.zeros(3, dtype=torch.float64))._base is not None  # torch's view


def test_uninitialized_parameter_data_setter_message():
    p = torch.nn.UninitializedParameter()
    with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got list$"):
        p.data = [1.0]
    with pytest.raises(TypeError, match="but got numpy.ndarray$"):
        p.data = np.ones(2)
