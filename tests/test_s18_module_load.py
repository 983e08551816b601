"""Module conversion and loading under torch.__future__'s flags (swap / overwrite),
Tensor.module_load, and InstanceNorm's pre-0.4 running-stats check in load_state_dict."""

import weakref
from collections import OrderedDict

import numpy as np
import pytest

import minitorch


@pytest.fixture
def swap_flag():
    minitorch.__future__.set_swap_module_params_on_conversion(True)
    yield
    minitorch.__future__.set_swap_module_params_on_conversion(False)


@pytest.fixture
def overwrite_flag():
    minitorch.__future__.set_overwrite_module_params_on_conversion(True)
    yield
    minitorch.__future__.set_overwrite_module_params_on_conversion(False)


# --- Tensor.module_load ---


def test_module_load_copies_into_self_or_returns_other_detached():
    p = minitorch.nn.Parameter(minitorch.zeros(2))
    d = p.detach()
    r = d.module_load(minitorch.tensor([1.0, 2.0], dtype=minitorch.float64))
    assert type(r) is minitorch.Tensor and r is not d
    assert r.dtype == minitorch.float32
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 2.0])  # copied into self
    other = minitorch.tensor([3.0, 4.0], dtype=minitorch.float64, requires_grad=True)
    r = p.module_load(other, assign=True)
    assert r is not other and r.dtype == minitorch.float64 and not r.requires_grad
    np.testing.assert_array_equal(r.numpy(), [3.0, 4.0])


# --- the swap flag ---


def test_swap_load_state_dict_assign_keeps_parameter_for_optimizer(swap_flag):
    m = minitorch.nn.Linear(3, 2)
    opt = minitorch.optim.SGD(m.parameters(), lr=1.0)
    w = m.weight
    m.load_state_dict({"weight": minitorch.ones(2, 3), "bias": minitorch.zeros(2)}, assign=True)
    assert m.weight is w and type(w) is minitorch.nn.Parameter and w.requires_grad
    m(minitorch.ones(1, 3)).sum().backward()
    opt.step()
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(m.bias.detach().numpy(), [-1.0, -1.0])


def test_swap_load_state_dict_assign_takes_checkpoint_dtype(swap_flag):
    m = minitorch.nn.Linear(2, 2)
    w = m.weight
    sd = {
        "weight": minitorch.full((2, 2), 3.0, dtype=minitorch.float64),
        "bias": minitorch.zeros(2),
    }
    m.load_state_dict(sd, assign=True)
    assert m.weight is w and w.dtype == minitorch.float64 and w.requires_grad


def test_swap_load_state_dict_without_assign_copies_into_same_objects(swap_flag):
    m = minitorch.nn.Linear(2, 2)
    w = m.weight
    sd = {
        "weight": minitorch.full((2, 2), 3.0, dtype=minitorch.float64),
        "bias": minitorch.zeros(2),
    }
    m.load_state_dict(sd)
    assert m.weight is w and w.dtype == minitorch.float32
    np.testing.assert_array_equal(w.detach().numpy(), np.full((2, 2), 3.0))
    bn = minitorch.nn.BatchNorm1d(2)
    rm = bn.running_mean
    bn.load_state_dict({k: v.clone() + 1 for k, v in bn.state_dict().items()})
    assert bn.running_mean is rm
    np.testing.assert_array_equal(rm.numpy(), [1.0, 1.0])


def test_swap_load_state_dict_calls_subclass_module_load(swap_flag):
    calls = []

    class Scaled(minitorch.nn.Parameter):
        def module_load(self, other, assign=False):
            calls.append(assign)
            return (other * 10).detach()

    class Returns(minitorch.nn.Parameter):
        def module_load(self, other, assign=False):
            return self

    m = minitorch.nn.Module()
    m.p = Scaled(minitorch.zeros(2))
    p = m.p
    m.load_state_dict({"p": minitorch.ones(2)}, assign=True)
    assert calls == [True] and m.p is p
    np.testing.assert_array_equal(p.detach().numpy(), [10.0, 10.0])
    # the swap moved the loaded plain Parameter's class in too (as torch): the next load, without
    # assign, goes through Tensor.module_load, copying into the same object
    assert type(p) is minitorch.nn.Parameter
    m.load_state_dict({"p": minitorch.full((2,), 2.0)})
    assert calls == [True] and m.p is p
    np.testing.assert_array_equal(p.detach().numpy(), [2.0, 2.0])
    m.p = Scaled(minitorch.zeros(2))
    m.load_state_dict({"p": minitorch.full((2,), 3.0)})
    assert calls == [True, False]
    np.testing.assert_array_equal(m.p.detach().numpy(), [30.0, 30.0])
    m.q = Returns(minitorch.zeros(2))
    with pytest.raises(RuntimeError, match='While swapping the parameter named "q".*module_load '):
        m.load_state_dict({"p": minitorch.ones(2), "q": minitorch.ones(2)})


def test_swap_conversion_keeps_parameter_and_grad_objects(swap_flag):
    m = minitorch.nn.Linear(2, 2)
    opt = minitorch.optim.SGD(m.parameters(), lr=1.0)
    m(minitorch.ones(1, 2)).sum().backward()
    w, g = m.weight, m.weight.grad
    m.double()
    assert m.weight is w and m.weight.grad is g
    assert w.dtype == minitorch.float64 and g.dtype == minitorch.float64
    assert type(w) is minitorch.nn.Parameter and w.requires_grad and w.is_leaf
    m.half()
    assert m.weight is w and w.dtype == minitorch.float16 and g.dtype == minitorch.float16
    m.float()
    before = w.detach().clone()
    opt.step()  # the optimizer still holds the converted parameter
    np.testing.assert_array_equal(w.detach().numpy(), before.numpy() - 1.0)


def test_swap_conversion_refuses_weakly_referenced_parameter(swap_flag):
    # the swap path is taken: a weak reference stops utils.swap_tensors, where `.data =` would not
    m = minitorch.nn.Linear(2, 2)
    ref = weakref.ref(m.weight)
    with pytest.raises(RuntimeError, match=r"_apply\(\): Couldn't swap Linear.weight") as e:
        m.double()
    assert "weakref" in str(e.value.__cause__)
    assert ref() is m.weight and m.weight.dtype == minitorch.float32


# --- the overwrite flag ---


def test_overwrite_conversion_makes_new_parameters(overwrite_flag):
    m = minitorch.nn.Linear(2, 2)
    m(minitorch.ones(1, 2)).sum().backward()
    w, g = m.weight, m.weight.grad
    m.double()
    assert m.weight is not w and type(m.weight) is minitorch.nn.Parameter
    assert m.weight.requires_grad and m.weight.dtype == minitorch.float64
    assert w.dtype == minitorch.float32 and g.dtype == minitorch.float32 and w.grad is g
    assert m.weight.grad is not g and m.weight.grad.dtype == minitorch.float64
    assert list(dict(m.named_parameters())) == ["weight", "bias"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), w.detach().numpy().astype(np.float64))


# --- InstanceNorm: running stats from before 0.4 ---


def test_instance_norm_rejects_running_stats_without_version():
    m = minitorch.nn.InstanceNorm2d(3, affine=True)
    sd = {
        "weight": minitorch.ones(3),
        "bias": minitorch.zeros(3),
        "running_mean": minitorch.zeros(3),
        "running_var": minitorch.ones(3),
    }
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    msg = str(e.value)
    assert 'Unexpected running stats buffer(s) "running_mean" and "running_var" for ' in msg
    assert "InstanceNorm2d with track_running_stats=False" in msg
    assert "Unexpected key(s)" not in msg  # the keys are dropped after the explanation
    with pytest.raises(
        RuntimeError, match=r'Unexpected running stats buffer\(s\) "running_mean" for'
    ):
        m.load_state_dict(
            {"weight": minitorch.ones(3), "running_mean": minitorch.zeros(3)}, strict=False
        )


def test_instance_norm_running_stats_with_version_are_plain_unexpected_keys():
    m = minitorch.nn.InstanceNorm2d(3, affine=True)
    sd = OrderedDict(
        weight=minitorch.ones(3), bias=minitorch.zeros(3), running_var=minitorch.ones(3)
    )
    sd._metadata = {"": {"version": 1}}
    out = m.load_state_dict(sd, strict=False)
    assert out.unexpected_keys == ["running_var"] and out.missing_keys == []
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "running_var"'):
        m.load_state_dict(sd)
    # tracking running stats: the stats load as usual
    t = minitorch.nn.InstanceNorm1d(2, track_running_stats=True)
    t.load_state_dict({"running_mean": minitorch.ones(2), "running_var": minitorch.ones(2)})
    np.testing.assert_array_equal(t.running_mean.numpy(), [1.0, 1.0])
