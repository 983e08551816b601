"""autograd.graph's hooks: saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks,
register_multi_grad_hook; tensor hooks on gradients captured by autograd.grad."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.autograd.graph import (
    disable_saved_tensors_hooks,
    register_multi_grad_hook,
    save_on_cpu,
    saved_tensors_hooks,
)


def _x(seed=0, n=4):
    rng = np.random.default_rng(seed)
    return mt.tensor(rng.standard_normal(n), dtype=mt.float64, requires_grad=True)


def test_pack_sees_each_saved_tensor_and_unpack_is_used():
    x = _x()
    a = x * 1
    log = []

    def pack(t):
        log.append(("pack", t.grad_fn.name() if t.grad_fn else None, mt.is_grad_enabled()))
        return t.detach().numpy().copy()  # the node keeps a NumPy copy, not the tensor

    def unpack(arr):
        log.append(("unpack",))
        return mt.from_numpy(arr)

    with saved_tensors_hooks(pack, unpack):
        y = a.exp()  # saves its output
        z = a * a  # saves a twice
    assert log == [
        ("pack", "ExpBackward0", False),
        ("pack", "MulBackward0", False),
        ("pack", "MulBackward0", False),
    ]
    log.clear()
    (y + z).sum().backward()
    assert log == [("unpack",)] * 3
    want = np.exp(x.detach().numpy()) + 2 * x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12, err_msg="grad through hooks")


def test_hooks_apply_only_when_a_node_is_recorded_and_innermost_wins():
    x = _x()
    log = []
    with saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
            x * x
        x.exp()
        with mt.no_grad():
            x.exp()
        mt.ones(3) * mt.ones(3)
    assert log == ["inner", "inner", "outer"]


def test_unpacked_tensors_keep_their_place_in_the_graph():
    # pack returns detached data: double backward still reaches x through the saved input and
    # through the saved output (re-attached to its node).
    x = _x(1)
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x.exp() * x).sum()
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    (gg,) = mt.autograd.grad(g.sum(), x)
    xv = x.detach().numpy()
    np.testing.assert_allclose(g.detach().numpy(), np.exp(xv) * (xv + 1), rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), np.exp(xv) * (xv + 2), rtol=1e-12)


def test_gradcheck_under_hooks():
    def f(a, b):
        with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            return (a.tanh() * b).sum(dim=0) / b.exp()

    a, b = _x(2, 3), _x(3, 3)
    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def test_no_version_check_under_hooks():
    # As in torch, the hooks own the saved data: an in-place change after saving is not refused.
    x = _x(4, 3)
    a = x * 1
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        z = a * a
    a.add_(1)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (x.detach().numpy() + 1), rtol=1e-12)


def test_unpack_must_return_a_tensor():
    x = _x()
    with saved_tensors_hooks(lambda t: 1, lambda t: 1):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got .* type int"):
        y.backward()


def test_save_on_cpu():
    x = _x(5)
    with save_on_cpu():
        y = (x.sin() * x).sum()
    y.backward()
    xv = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xv) * xv + np.sin(xv), rtol=1e-12)
    x.grad = None
    with save_on_cpu(pin_memory=True):
        y = (x.sin() * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xv) * xv + np.sin(xv), rtol=1e-12)


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks in this region"):
        with pytest.raises(RuntimeError, match="no hooks in this region"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="already"):
            with disable_saved_tensors_hooks("already set"):
                pass

    @disable_saved_tensors_hooks("decorated")
    def f():
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

    with pytest.raises(RuntimeError, match="decorated"):
        f()
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # usable again outside
        pass


def test_multi_grad_hook_all_and_any():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 4.0], requires_grad=True)
    calls = []
    h = register_multi_grad_hook(
        (a, b), lambda gs: calls.append([None if g is None else g.tolist() for g in gs])
    )
    (a * 2).sum().backward()  # b is not reached: None, and fn still runs
    (a * 2 + b * 3).sum().backward()
    assert calls == [[[2.0, 2.0], None], [[2.0, 2.0], [3.0, 3.0]]]
    h.remove()
    (a * 2 + b * 3).sum().backward()
    assert len(calls) == 2
    first = []
    h = register_multi_grad_hook((a, b), lambda g: first.append(g.tolist()), mode="any")
    (a * 2 + b * 3).sum().backward()
    (a * 5).sum().backward()
    assert first in ([[3.0, 3.0], [5.0, 5.0]], [[2.0, 2.0], [5.0, 5.0]])
    h.remove()
    x = mt.tensor([1.0, 1.0], requires_grad=True)
    y, z = x * 2, x * 3
    seen = []
    register_multi_grad_hook((y, z), lambda gs: seen.append([g.tolist() for g in gs]))
    (y * 4 + z * 5).sum().backward()
    assert seen == [[[4.0, 4.0], [5.0, 5.0]]]
    with pytest.raises(ValueError, match="Expects mode to be one of"):
        register_multi_grad_hook((a,), print, mode="some")
    with pytest.raises(RuntimeError, match="require grad"):
        register_multi_grad_hook((a, mt.ones(2)), print)


def test_tensor_hooks_run_on_gradients_captured_by_grad():
    # torch passes a gradient autograd.grad returns through the tensor's hooks (leaf or not).
    a = mt.ones(2, requires_grad=True)
    a.register_hook(lambda g: g * 10)
    (g,) = mt.autograd.grad((a * 2).sum(), a)
    assert g.tolist() == [20.0, 20.0]
    y = a * 3
    y.register_hook(lambda g: g * 10)
    (gy,) = mt.autograd.grad((y * 2).sum(), y)
    assert gy.tolist() == [20.0, 20.0]
    y2 = a * 3
    calls = []
    y2.register_hook(lambda g: calls.append(1) or g * 10)
    (ga,) = mt.autograd.grad((y2 * 2).sum(), a)  # the hook runs once on the way to a
    assert ga.tolist() == [600.0, 600.0] and calls == [1]
