"""Full module backward hooks: their outputs are views a custom Function made (in-place changes
raise, as in torch) and what the hooks return must keep each gradient's dtype and size."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn as nn

VIEW_INPLACE = (
    "Output 0 of BackwardHookFunction is a view and is being modified inplace. This view was "
    "created inside a custom Function"
)
REGISTER = ["register_full_backward_hook", "register_full_backward_pre_hook"]


def _register(module, reg, log):
    if reg == "register_full_backward_hook":
        return module.register_full_backward_hook(lambda m, gi, go: log.append(len(gi)))
    return module.register_full_backward_pre_hook(lambda m, go: log.append(len(go)))


class Residual(nn.Module):
    """A ResNet block's tail: bn2, then `out += identity`."""

    def __init__(self):
        super().__init__()
        self.bn2 = nn.BatchNorm1d(3)

    def forward(self, x):
        out = self.bn2(x)
        out += x
        return out


def _conv_relu_inplace():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(inplace=True))
    return model, model[0], minitorch.ones(1, 3, 5, 5)


def _hooked_inplace_relu():
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(inplace=True))
    return model, model[1], minitorch.ones(1, 3, 5, 5)


def _bn_then_add():
    model = Residual()
    return model, model.bn2, minitorch.arange(12.0).reshape(4, 3)


@pytest.mark.parametrize("reg", REGISTER)
@pytest.mark.parametrize("input_requires_grad", [True, False])
@pytest.mark.parametrize("build", [_conv_relu_inplace, _hooked_inplace_relu, _bn_then_add])
def test_inplace_change_of_hooked_output_raises(build, input_requires_grad, reg):
    model, hooked, x = build()
    log = []
    _register(hooked, reg, log)
    x.requires_grad_(input_requires_grad)
    # torch raises even when the input needs no grad: the parameters make the output need one.
    with pytest.raises(RuntimeError, match=VIEW_INPLACE), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model(x)
    assert log == []


def test_hooked_outputs_are_views_of_a_custom_function():
    m = nn.Identity()
    m.register_full_backward_hook(lambda *a: None)
    x = minitorch.ones(3, requires_grad=True)
    y = m(x)
    assert y is not x and y._base is x and y._is_view()
    assert type(y.grad_fn).__name__ == "BackwardHookFunctionBackward"
    with pytest.raises(RuntimeError, match=VIEW_INPLACE):
        y.mul_(2)
    # its base changed in place while the view is used: torch's other message
    base = minitorch.ones(3, requires_grad=True).clone()
    y = m(base)
    base.mul_(2)
    with pytest.raises(RuntimeError, match="is a view and its base or another view of its base"):
        y.sum().backward()


class LinearThen(nn.Module):
    """y = relu(linear(x)) with the relu out of place, or in place on a clone."""

    def __init__(self, clone):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.clone = clone
        with minitorch.no_grad():
            self.fc.weight.copy_(minitorch.tensor([[1.0, -2.0], [3.0, 0.5]]))
            self.fc.bias.copy_(minitorch.tensor([0.5, -1.0]))

    def forward(self, x):
        h = self.fc(x)
        return h.clone().relu_() if self.clone else nn.functional.relu(h)


@pytest.mark.parametrize("clone", [False, True])
def test_out_of_place_or_cloned_outputs_keep_hooks_and_gradients(clone):
    model = LinearThen(clone)
    log = []
    model.fc.register_full_backward_pre_hook(lambda m, go: log.append(("pre", go[0].tolist())))
    model.fc.register_full_backward_hook(
        lambda m, gi, go: log.append(("full", gi[0].tolist(), go[0].tolist()))
    )
    x = minitorch.tensor([[1.0, 1.0], [2.0, -1.0]], requires_grad=True)
    model(x).sum().backward()
    # h = [[-0.5, 2.5], [4.5, 4.5]]: the relu passes [[0, 1], [1, 1]]
    mask = [[0.0, 1.0], [1.0, 1.0]]
    w = np.array([[1.0, -2.0], [3.0, 0.5]])
    grad_x = np.array(mask) @ w
    assert log == [("pre", mask), ("full", grad_x.tolist(), mask)]
    np.testing.assert_allclose(x.grad.numpy(), grad_x, err_msg="x.grad")
    np.testing.assert_allclose(
        model.fc.weight.grad.numpy(), np.array(mask).T @ x.detach().numpy(), err_msg="w.grad"
    )


def test_hooked_module_gradcheck():
    m = nn.Tanh()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 1.0,))
    m.register_full_backward_pre_hook(lambda mod, go: None)
    x = minitorch.tensor([[0.3, -0.7], [1.1, 0.2]], dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(lambda t: m(t).clone().mul_(2), (x,))


# --- what the hooks return ---


def _tanh_backward(reg, hook_fn, x=None):
    m = nn.Tanh()
    getattr(m, reg)(hook_fn)
    x = minitorch.ones(2, 3, requires_grad=True) if x is None else x
    m(x).sum().backward()
    return x


@pytest.mark.parametrize(
    "reg, hook_fn, got",
    [
        ("register_full_backward_hook", lambda m, gi, go: (gi[0].double(),), "DoubleTensor"),
        ("register_full_backward_hook", lambda m, gi, go: (gi[0].half(),), "HalfTensor"),
        ("register_full_backward_hook", lambda m, gi, go: (gi[0].long(),), "LongTensor"),
        ("register_full_backward_pre_hook", lambda m, go: (go[0].double(),), "DoubleTensor"),
        ("register_full_backward_pre_hook", lambda m, go: [go[0].half()], "HalfTensor"),
    ],
)
def test_hook_changing_the_dtype_raises(reg, hook_fn, got):
    msg = f"hook 'hook' has changed the type of value (was torch.FloatTensor got torch.{got})"
    with pytest.raises(RuntimeError) as e:
        _tanh_backward(reg, hook_fn)
    assert str(e.value) == msg


@pytest.mark.parametrize(
    "reg, hook_fn",
    [
        ("register_full_backward_hook", lambda m, gi, go: (gi[0][:1],)),
        ("register_full_backward_hook", lambda m, gi, go: (gi[0].sum(0),)),
        ("register_full_backward_pre_hook", lambda m, go: (go[0][:1],)),
    ],
)
def test_hook_changing_the_size_raises(reg, hook_fn):
    with pytest.raises(RuntimeError) as e:
        _tanh_backward(reg, hook_fn)
    assert str(e.value) == "hook 'hook' has changed the size of value"


@pytest.mark.parametrize("reg", REGISTER)
def test_hook_returning_a_non_tensor_raises_type_error(reg):
    fn = (lambda m, gi, go: (3,)) if reg == REGISTER[0] else (lambda m, go: (3,))
    with pytest.raises(TypeError) as e:
        _tanh_backward(reg, fn)
    assert str(e.value) == "expected Variable, but hook returned 'int'"


def test_pre_hook_checked_when_no_input_requires_grad():
    m = nn.Linear(3, 2)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0].double(),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = m(minitorch.ones(2, 3)).sum()
        with pytest.raises(RuntimeError, match=r"changed the type of value \(was torch.Float"):
            out.backward()


class Mul(nn.Module):
    def forward(self, x, y):
        return x * y


def test_gradient_of_an_input_needing_none_is_checked_too():
    # torch checks every tensor input's slot: the zeros of y, which needs no grad, included
    for ret, msg in [
        (lambda gi: (gi[0], gi[1].double()), r"changed the type of value \(was torch.FloatTensor"),
        (lambda gi: (gi[0], gi[1][:1]), "changed the size of value"),
    ]:
        m = Mul()
        m.register_full_backward_hook(lambda mod, gi, go, ret=ret: ret(gi))
        x = minitorch.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match=msg):
            m(x, minitorch.ones(2)).sum().backward()


def test_same_dtype_replacements_still_apply():
    x = _tanh_backward("register_full_backward_hook", lambda m, gi, go: [gi[0] * 2])
    expected = 2 * (1 - np.tanh(1.0) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), expected), rtol=1e-6)
    x = _tanh_backward("register_full_backward_pre_hook", lambda m, go: (go[0] * 3,))
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1.5 * expected), rtol=1e-6)
    # a gradient that requires grad keeps the check quiet too
    x = _tanh_backward("register_full_backward_hook", lambda m, gi, go: (gi[0].requires_grad_(),))
    np.testing.assert_allclose(x.grad.detach().numpy(), np.full((2, 3), expected / 2), rtol=1e-6)


def test_pre_hook_returning_none_sends_zeros_on():
    # torch's node materializes the gradients its pre-hooks return: zeros, not no gradient
    x = _tanh_backward("register_full_backward_pre_hook", lambda m, go: (None,))
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3), np.float32))
    assert x.grad.dtype == minitorch.float32
