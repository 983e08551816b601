"""Session 36 (helper graphhooks): torch-free regression tests of the library fixes the autograd
hook programs of tests/reference/test_s36_graphhooks_reference.py found: the gradient a leaf
accumulator's node post hooks see, the TypeError of saved_tensors_hooks with hooks that are no
callables, post-accumulate-grad hooks handing a returned value on to the next hooks, and the
hook names and meta type names in hook errors. torch's messages are written here as
literals."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minitorch as mt

G = mt.autograd.graph


def _leaf(seed, *shape):
    rng = np.random.default_rng(seed)
    return mt.tensor(rng.standard_normal(shape), dtype=mt.float64, requires_grad=True)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def test_accumulate_grad_post_hook_sees_the_hooked_gradient():
    # torch: an AccumulateGrad's post hook gets the gradient after the leaf's tensor hooks and
    # the node's pre-hooks (here 1 * 3 * 5), not the one that reached the node
    a = _leaf(0, 3)
    a.register_hook(lambda g: g * 3)
    node = G.get_gradient_edge(a).node
    node.register_prehook(lambda go: (go[0] * 5,))
    seen = []
    node.register_hook(lambda gi, go: seen.append((gi, go[0].detach().clone())))
    a.sum().backward()
    assert len(seen) == 1 and seen[0][0] == ()
    np.testing.assert_allclose(seen[0][1].numpy(), [15.0, 15.0, 15.0], err_msg="hooked grad")
    np.testing.assert_allclose(a.grad.numpy(), [15.0, 15.0, 15.0])
    a.sum().backward()  # and again in the next backward (nothing left over from the first)
    np.testing.assert_allclose(seen[1][1].numpy(), [15.0, 15.0, 15.0])


@pytest.mark.parametrize(
    "hooks, shown",
    [((None, None), "None, None"), ("ab", "'a', 'b'"), ((1.5, print), "1.5, <built-in")],
)
def test_saved_tensors_hooks_refuses_non_callables_before_the_disabled_check(hooks, shown):
    want = (
        "_push_saved_tensors_default_hooks(): incompatible function arguments. The following "
        "argument types are supported:\n    1. (arg0: collections.abc.Callable, arg1: "
        "collections.abc.Callable) -> None\n\nInvoked with: "
    )
    msg = _message(TypeError, lambda: G.saved_tensors_hooks(*hooks).__enter__())
    assert msg.startswith(want + shown), msg
    with G.disable_saved_tensors_hooks("off here"):
        msg = _message(TypeError, lambda: G.saved_tensors_hooks(*hooks).__enter__())
        assert msg.startswith(want + shown), msg
        msg = _message(RuntimeError, lambda: G.saved_tensors_hooks(print, print).__enter__())
        assert msg == "off here"
    x = _leaf(1, 4)
    with G.saved_tensors_hooks(lambda t: t, lambda t: t):  # the state was left as it was
        y = (x * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_post_accumulate_hook_value_goes_to_the_next_hooks_then_fails():
    p = _leaf(2, 3)
    p.register_post_accumulate_grad_hook(lambda t: t.grad.mul_(2))  # returns p.grad
    p.register_post_accumulate_grad_hook(lambda t: t.grad.add_(1))  # gets p.grad: no .grad
    msg = _message(AttributeError, (p * p).sum().backward)
    assert msg == "'NoneType' object has no attribute 'add_'"
    np.testing.assert_allclose(p.grad.numpy(), 4 * p.detach().numpy(), err_msg="mul_ ran once")

    w = _leaf(3, 3)
    got = []
    w.register_post_accumulate_grad_hook(lambda t: t.grad * 2)
    w.register_post_accumulate_grad_hook(lambda t: (got.append(t.grad is None), w)[1])
    w.register_post_accumulate_grad_hook(lambda t: got.append(t is w))
    msg = _message(RuntimeError, (w * w).sum().backward)
    assert msg == "Tensor post accumulate grad hooks should return None."
    assert got == [True, True], "the leaf handed back still fails the backward"

    v = _leaf(4, 3)  # the leaf itself, returned, is accepted (torch's docs example)
    v.register_post_accumulate_grad_hook(lambda t: t)
    v.register_post_accumulate_grad_hook(lambda t: got.append(t is v))
    (v * 2).sum().backward()
    assert got[-1] is True


def test_hook_errors_name_the_hook_as_torch_does():
    def shaped(g, k):
        return g.sum() * k

    class Hook:
        def __call__(self, g):
            return g.sum()

        def method(self, g):
            return g.sum()

    cases = [
        (functools.partial(shaped, k=2), "<unknown>"),
        (Hook(), "<unknown>"),
        (Hook().method, "method"),
        (lambda g: g[:1], "<lambda>"),
    ]
    for i, (hook, name) in enumerate(cases):
        a = _leaf(5 + i, 3)
        y = a * 2
        y.register_hook(hook)
        msg = _message(RuntimeError, y.sum().backward)
        assert msg == f"hook '{name}' has changed the size of value", msg
    b = _leaf(9, 3)
    z = b.exp()
    z.grad_fn.register_hook(functools.partial(lambda gi, go, k: (gi[0], gi[0]), k=1))
    msg = _message(RuntimeError, z.sum().backward)
    want = "hook '<unknown>' has returned an incorrect number of values (got 2, but expected 1)"
    assert msg == want, msg


def test_hook_returning_a_meta_tensor_names_torchs_meta_type():
    a = _leaf(10, 3)
    y = a * 3
    y.register_hook(lambda g: mt.ones(3, dtype=mt.float64, device="meta"))
    msg = _message(RuntimeError, y.sum().backward)
    assert msg == (
        "hook '<lambda>' has changed the type of value (was torch.DoubleTensor got MetaDoubleType)"
    )
    b = _leaf(11, 3)
    z = b * 3
    z.register_hook(lambda g: mt.ones(3, dtype=mt.float16, device="meta"))
    msg = _message(RuntimeError, z.sum().backward)
    assert msg.endswith("(was torch.DoubleTensor got MetaHalfType)"), msg


def test_one_saved_tensors_hooks_object_nests_in_itself():
    # torch pushes and pops a stack: the same object entered again (a recursive block under a
    # module-level hooks object) leaves no hooks in force once both regions are closed
    packed = []
    hooks = G.saved_tensors_hooks(lambda t: (packed.append(1), t)[1], lambda t: t)
    x = _leaf(12, 3)
    with hooks:
        with hooks:
            y = x.sin()
        y = y * x
    assert len(packed) == 3, "sin's input, then mul's two inputs"
    (x.exp() * x).sum()
    assert len(packed) == 3, "no hooks in force after the regions"
    with G.disable_saved_tensors_hooks("now refused"):  # and so nothing is left to refuse it
        pass
    a = G.saved_tensors_hooks(lambda t: t, lambda t: t)
    b = G.saved_tensors_hooks(lambda t: (packed.append(2), t)[1], lambda t: t)
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # torch pops the innermost (b's) whichever object exits
    x.exp()
    assert packed[-1] == 1 and len(packed) == 3, "a's hooks in force, not b's"
    b.__exit__(None, None, None)
    assert G.saved_tensors_hooks(print, print).__enter__() is None, "torch's __enter__ value"
    G.saved_tensors_hooks(print, print).__exit__(None, None, None)


def test_disable_saved_tensors_hooks_is_a_generator_context_manager():
    d = G.disable_saved_tensors_hooks("off")
    with d:
        with pytest.raises(AttributeError, match="_GeneratorContextManager"):
            d.__enter__()  # as torch's: one object is entered once
        msg = _message(RuntimeError, lambda: G.saved_tensors_hooks(print, print).__enter__())
        assert msg == "off"
    with G.saved_tensors_hooks(lambda t: t, lambda t: t):  # enabled again after the region
        pass

    @G.disable_saved_tensors_hooks("decorated")
    def f():
        with G.saved_tensors_hooks(print, print):
            pass

    for _ in range(2):  # a decorator makes a fresh region per call
        assert _message(RuntimeError, f) == "decorated"
    with G.saved_tensors_hooks(print, print):
        assert _message(RuntimeError, lambda: G.disable_saved_tensors_hooks("in").__enter__())
    with G.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
