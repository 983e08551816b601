"""Session 38 (helper hooks): torch-free regression tests of the library fixes the hook programs
of tests/reference/test_s38_hooks_reference.py found: a module with full backward hooks keeps a
namedtuple output a namedtuple; graph nodes' register_hook/register_prehook take exactly one
positional argument, with CPython's TypeErrors for torch's C methods; a hook changing a
gradient's dtype names dtypes without a legacy tensor class by their backend type
(CPUBFloat16Type); the tensor hooks of a multi-output node's unused outputs run with None, and
may not make up a gradient. torch's messages are written here as literals."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minitorch as mt

Out = collections.namedtuple("Out", ["logits", "feats"])


class _Named(mt.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = mt.nn.Linear(3, 2)

    def forward(self, x):
        return Out(self.lin(x), x * 2)


def test_full_backward_hook_keeps_namedtuple_output():
    mt.manual_seed(0)
    m = _Named()
    grads = []
    m.register_full_backward_hook(lambda mod, gi, go: grads.append(go))
    x = mt.randn(2, 3, generator=mt.Generator().manual_seed(1)).requires_grad_(True)
    out = m(x)
    assert type(out) is Out
    assert type(out.logits.grad_fn).__name__ == "BackwardHookFunctionBackward"
    out.logits.sum().backward()
    assert len(grads) == 1 and grads[0][1] is None
    w = m.lin.weight.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)) @ w, rtol=1e-6, err_msg="x.grad")


def test_backward_pre_hook_sees_namedtuple_fields():
    mt.manual_seed(0)
    m = _Named()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3, go[1]))
    x = mt.randn(2, 3, generator=mt.Generator().manual_seed(2)).requires_grad_(True)
    out = m(x)
    assert isinstance(out, Out)
    (out.logits.sum() + out.feats.sum()).backward()
    w = m.lin.weight.detach().numpy()
    want = 3 * np.ones((2, 2)) @ w + 2
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-6, err_msg="x.grad")


def _nodes():
    class Double(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    t = mt.ones(2, requires_grad=True)
    return {
        "MulBackward0": (t * 2).grad_fn,
        "AccumulateGrad": (t * 1).grad_fn.next_functions[0][0],
        "_FunctionBase": Double.apply(t).grad_fn,
    }


@pytest.mark.parametrize("owner", ["MulBackward0", "AccumulateGrad", "_FunctionBase"])
@pytest.mark.parametrize("method", ["register_hook", "register_prehook"])
def test_node_hook_methods_take_one_argument(owner, method):
    node = _nodes()[owner]
    fn = getattr(node, method)
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == f"{owner}.{method}() takes exactly one argument (0 given)"
    with pytest.raises(TypeError) as info:
        fn(print, print)
    assert str(info.value) == f"{owner}.{method}() takes exactly one argument (2 given)"
    with pytest.raises(TypeError) as info:
        fn(fn=print)
    assert str(info.value) == f"{owner}.{method}() takes no keyword arguments"
    fn(lambda *a: None).remove()  # one positional argument still registers


def test_node_hooks_still_run():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [7.0, 7.0], err_msg="x.grad")


@pytest.mark.parametrize(
    "src, dst, was, got",
    [
        ("bfloat16", "float32", "CPUBFloat16Type", "torch.FloatTensor"),
        ("float32", "bfloat16", "torch.FloatTensor", "CPUBFloat16Type"),
        ("float64", "bool", "torch.DoubleTensor", "CPUBoolType"),
        ("float16", "uint16", "torch.HalfTensor", "CPUUInt16Type"),
        ("float64", "uint8", "torch.DoubleTensor", "torch.ByteTensor"),
    ],
)
def test_hook_dtype_change_names_backend_types(src, dst, was, got):
    # torch names a dtype without a legacy tensor class by its backend type (CPUBFloat16Type)
    x = mt.ones(2, dtype=getattr(mt, src), requires_grad=True)
    x.register_hook(lambda g: g.to(getattr(mt, dst)))
    with pytest.raises(RuntimeError) as info:
        (x * 2).sum().backward()
    assert str(info.value) == (
        f"hook '<lambda>' has changed the type of value (was {was} got {got})"
    )


def test_unused_output_hooks_run_with_none():
    # torch runs the tensor hooks of every output of a node that runs: None for unused ones
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    parts = x.unbind()
    seen = []
    parts[2].register_hook(lambda g: seen.append(("p2", g)))
    parts[0].register_hook(lambda g: seen.append(("p0", g)))
    (parts[1] * 5).backward()
    assert seen == [("p2", None), ("p0", None)]
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 5.0, 0.0], err_msg="x.grad")
    a, b = x.split(2)
    b.retain_grad()
    a.sum().backward()
    assert b.grad is None


def test_unused_output_hook_cannot_make_up_a_gradient():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    parts = x.unbind()
    parts[0].register_hook(lambda g: mt.ones(()))
    with pytest.raises(RuntimeError) as info:
        parts[1].backward()
    assert str(info.value) == "can't replace a None gradient with a non-None value"
