"""Session 47 (misc): to(memory_format=) records one ToCopyBackward0; optimizers refuse another
optimizer's state in load_state_dict, as torch's."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.autograd import gradcheck, gradgradcheck

# --- to(memory_format=...): one ToCopyBackward0 node ---


def _image(dt=minitorch.float32, shape=(2, 3, 4, 5), seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return minitorch.tensor(a, dtype=dt, requires_grad=True)


_TO_CALLS = {
    "to_fmt": lambda x, f: x.to(memory_format=f),
    "to_dtype_fmt": lambda x, f: x.to(minitorch.float64, memory_format=f),
    "to_copy_fmt": lambda x, f: x.to(memory_format=f, copy=True),
    "to_device_dtype_fmt": lambda x, f: x.to("cpu", minitorch.float64, memory_format=f),
    "float_fmt": lambda x, f: x.float(memory_format=f),
    "double_fmt": lambda x, f: x.double(memory_format=f),
    "half_fmt": lambda x, f: x.half(memory_format=f),
    "cpu_fmt": lambda x, f: x.cpu(memory_format=f),
    "to_tensor_fmt": lambda x, f: x.to(
        minitorch.zeros(1, dtype=minitorch.float64), memory_format=f
    ),
}


@pytest.mark.parametrize("name", sorted(_TO_CALLS))
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
def test_to_memory_format_records_one_to_copy(name, layout, fmt):
    x = _image()
    if layout == "channels_last":
        x = x.detach().to(memory_format=minitorch.channels_last).requires_grad_()
    f = getattr(minitorch, fmt)
    y = _TO_CALLS[name](x, f)
    if y is x:  # nothing to convert and the layout already suggests fmt
        assert (layout == "channels_last") == (fmt == "channels_last"), name
        assert name in ("to_fmt", "float_fmt", "cpu_fmt"), name
        return
    assert y.grad_fn.name() == "ToCopyBackward0", name
    ((nxt, _),) = y.grad_fn.next_functions
    assert nxt.name() == "torch::autograd::AccumulateGrad", name
    assert y.is_contiguous(memory_format=f), (name, y.stride())
    want = x.detach().to(y.dtype).contiguous(memory_format=f)
    assert y.stride() == want.stride(), name
    np.testing.assert_array_equal(y.detach().numpy(), want.numpy(), err_msg=name)
    g = minitorch.tensor(np.random.default_rng(1).standard_normal(tuple(y.shape)), dtype=y.dtype)
    (gx,) = minitorch.autograd.grad(y, x, g)
    assert gx.dtype == x.dtype, name
    np.testing.assert_array_equal(gx.numpy(), g.to(x.dtype).numpy(), err_msg=name)


def test_to_memory_format_double_backward_and_no_grad():
    x = minitorch.tensor(np.random.default_rng(2).standard_normal((2, 3, 2, 2)), requires_grad=True)
    assert gradcheck(lambda t: t.to(memory_format=minitorch.channels_last) * t, (x,))
    assert gradgradcheck(lambda t: t.to(memory_format=minitorch.channels_last) * t, (x,))
    y = x.to(minitorch.float32, memory_format=minitorch.channels_last)
    assert y.grad_fn.name() == "ToCopyBackward0"
    with minitorch.no_grad():
        z = x.to(memory_format=minitorch.channels_last)
    assert z.grad_fn is None and not z.requires_grad
    assert z.stride() == (12, 1, 6, 3)
    i = x.to(minitorch.int64, memory_format=minitorch.channels_last)  # leaves the graph
    assert i.grad_fn is None and not i.requires_grad and i.stride() == (12, 1, 6, 3)


def test_to_memory_format_errors_unchanged():
    x = _image(shape=(2, 3, 4))
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.to(memory_format=minitorch.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.to(minitorch.float64, memory_format=minitorch.channels_last)


# --- optimizers: another optimizer's state dict ---


def _params():
    w = minitorch.nn.Parameter(minitorch.tensor([[0.5, -0.3], [0.2, 0.1]]))
    b = minitorch.nn.Parameter(minitorch.tensor([0.1, -0.2]))
    return [w, b]


def _stepped(opt_cls, **kw):
    ps = _params()
    opt = opt_cls(ps, **kw)
    for _ in range(2):
        opt.zero_grad()
        ((minitorch.tensor([[1.0, 2.0]]) @ ps[0] + ps[1]) ** 2).sum().backward()
        opt.step()
    return opt


# every optimizer that turns scalar state into tensors on loading, and its first scalar key
_SCALAR_STATE = {
    "Adam": "step", "AdamW": "step", "Adagrad": "step", "Adadelta": "step", "Adamax": "step",
    "ASGD": "step", "NAdam": "step", "RAdam": "step", "RMSprop": "step", "Rprop": "step",
    "Adafactor": "step",
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(_SCALAR_STATE))
def test_loading_sgd_state_raises_key_error(name):
    sd = _stepped(minitorch.optim.SGD, lr=0.1, momentum=0.9).state_dict()
    opt = getattr(minitorch.optim, name)(_params(), lr=0.01)
    with pytest.raises(KeyError) as info:
        opt.load_state_dict(sd)
    assert info.value.args == ("step",), name
    # as torch's: the state was already taken over when the conversion raised
    assert all("momentum_buffer" in s for s in opt.state.values()), name


@pytest.mark.parametrize(
    ("name", "key"), [("ASGD", "eta"), ("ASGD", "mu"), ("NAdam", "mu_product")]
)
def test_loading_state_without_a_scalar_key(name, key):
    cls = getattr(minitorch.optim, name)
    sd = _stepped(cls, lr=0.01).state_dict()
    sd["state"][1] = {k: v for k, v in sd["state"][1].items() if k != key}
    with pytest.raises(KeyError) as info:
        cls(_params(), lr=0.01).load_state_dict(sd)
    assert info.value.args == (key,)
    # an Adam state (a step but no eta / mu_product) fails the same way
    with pytest.raises(KeyError) as info:
        cls(_params(), lr=0.01).load_state_dict(_stepped(minitorch.optim.Adam).state_dict())
    assert info.value.args == ("eta" if name == "ASGD" else "mu_product",)


def test_loading_scalar_state_given_as_numbers_or_none():
    sd = _stepped(minitorch.optim.Adam, lr=0.01).state_dict()
    for s in sd["state"].values():
        s["step"] = 2
    opt = minitorch.optim.Adam(_params(), lr=0.01)
    opt.load_state_dict(sd)
    for s in opt.state.values():
        assert isinstance(s["step"], minitorch.Tensor) and s["step"].dtype == minitorch.float32
        assert float(s["step"]) == 2.0
    sd["state"][0]["step"] = None
    with pytest.raises(TypeError, match="float\\(\\) argument must be"):
        minitorch.optim.Adam(_params(), lr=0.01).load_state_dict(sd)
    asgd = _stepped(minitorch.optim.ASGD, lr=0.01).state_dict()
    asgd["state"][0]["eta"] = None
    with pytest.raises(TypeError, match="must be real number, not NoneType"):
        minitorch.optim.ASGD(_params(), lr=0.01).load_state_dict(asgd)


def test_loading_scalar_state_dtype_follows_fused_and_default_dtype():
    old = minitorch.get_default_dtype()
    try:
        minitorch.set_default_dtype(minitorch.float64)
        for fused, want in ((False, minitorch.float64), (True, minitorch.float32)):
            sd = _stepped(minitorch.optim.Adagrad, lr=0.01).state_dict()
            for s in sd["state"].values():
                s["step"] = 3.0
            sd["param_groups"][0]["fused"] = fused  # (the loaded groups replace the optimizer's)
            opt = minitorch.optim.Adagrad(_params(), lr=0.01)
            opt.load_state_dict(sd)
            assert [s["step"].dtype for s in opt.state.values()] == [want, want], fused
    finally:
        minitorch.set_default_dtype(old)


def test_sgd_loads_another_optimizers_state():
    # SGD converts nothing: torch loads it (its step fails later on the missing momentum)
    opt = minitorch.optim.SGD(_params(), lr=0.1)
    opt.load_state_dict(_stepped(minitorch.optim.Adam).state_dict())
    assert all("exp_avg" in s for s in opt.state.values())


def test_type_with_dtype_and_memory_format_records_one_to_copy():
    # Tensor.type(dtype, memory_format=) converts once, as torch: one ToCopyBackward0
    x = minitorch.randn(2, 3, 4, 4, requires_grad=True)
    for dt in (minitorch.float64, minitorch.float32, minitorch.float16):
        y = x.type(dt, memory_format=minitorch.channels_last)
        assert y.dtype is dt and y.stride() == (48, 1, 12, 3)
        assert y.grad_fn.name() == "ToCopyBackward0"
        assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
