"""Session 34 (helper mtl): torch-free regression tests of the library fixes the multi-task
programs of tests/reference/test_s34_mtl_reference.py found: the roots' checks of
autograd.backward / autograd.grad / Tensor.backward in torch's order and words (gradients that
are no tensors, outputs that are no tensors, the positions a shape mismatch names as torch's
list.index finds them, the pairing by zip before the count, each input's type then its
requires_grad, is_grads_batched's checks before the count), and the repr of a tensor's or
node's hook handle. torch's messages are written here as literals."""

from __future__ import annotations

import re

import pytest

import minitorch as mt

GRAD_TYPE = "gradients can be either Tensors or None, but got "
AMBIGUOUS = "Boolean value of Tensor with more than one value is ambiguous"


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


@pytest.fixture
def roots():
    """Three scalar task losses and two non-scalar outputs of one leaf."""
    a = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    losses = [(a * 2).sum(), (a**2).sum(), a.exp().sum()]
    return a, losses, a * 3, a[:2] * 1


def test_gradient_types(roots):
    a, losses, v, _ = roots
    one = mt.tensor(1.0)
    cases = [
        (lambda: mt.autograd.backward(losses, grad_tensors=[one, 0.5, one]), "float"),
        (lambda: mt.autograd.grad(losses[0], a, grad_outputs=["x"]), "str"),
        (lambda: v.backward([1.0, 1.0, 1.0]), "float"),  # a list is read as gradients
        (lambda: v.backward([[1.0, 1.0, 1.0]]), "list"),
        (lambda: mt.autograd.grad(losses[0], a, grad_outputs=[1.0], is_grads_batched=True),
         "float"),
    ]
    for fn, name in cases:
        assert _message(TypeError, fn) == GRAD_TYPE + name


def test_outputs_that_are_no_tensors(roots):
    a, losses, _, _ = roots
    want = "Expected output to be a torch.Tensor"
    for fn in (
        lambda: mt.autograd.backward([losses[0], 3.0]),
        lambda: mt.autograd.grad([None], a),
        lambda: mt.autograd.grad([losses[0], 1.0], a, grad_outputs=[mt.ones(2), None],
                                 is_grads_batched=True),
    ):
        assert _message(AssertionError, fn) == want


def test_mismatch_positions_as_list_index(roots):
    # torch names the positions by grad_outputs.index(grad) and outputs.index(out)
    a, losses, v, w = roots
    one = mt.tensor(1.0)
    bwd = mt.autograd.backward
    assert _message(RuntimeError, lambda: bwd(losses, [one, mt.ones(3), one])) == AMBIGUOUS
    assert _message(RuntimeError, lambda: bwd(losses, [one, one, mt.ones(2)])) == AMBIGUOUS
    assert _message(RuntimeError, lambda: mt.autograd.grad(losses, a, [one, mt.ones(3), one])
                    ) == AMBIGUOUS
    # an earlier equal one-element gradient is named in its place
    assert _message(RuntimeError, lambda: bwd(losses, [one, mt.ones(1), one])) == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[1] has a "
        "shape of torch.Size([])."
    )
    assert _message(RuntimeError, lambda: bwd(losses, [2 * one, mt.ones(1), one])) == (
        "Mismatch in shape: grad_output[1] has a shape of torch.Size([1]) and output[1] has a "
        "shape of torch.Size([])."
    )
    # grad_outputs.index compares ones(3) with ones(4): the broadcasting error
    assert _message(RuntimeError, lambda: bwd([v, w], [mt.ones(3), mt.ones(4)])) == (
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
        "dimension 0"
    )


def test_zip_before_count(roots):
    a, losses, _, _ = roots
    one = mt.tensor(1.0)
    assert _message(RuntimeError, lambda: mt.autograd.backward(losses, [mt.ones(3)])) == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a "
        "shape of torch.Size([])."
    )
    assert _message(RuntimeError, lambda: mt.autograd.backward(losses[:2], mt.ones(2))) == (
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a "
        "shape of torch.Size([])."
    )
    assert _message(RuntimeError, lambda: mt.autograd.backward(losses, [one, one])) == (
        "got 3 tensors and 2 gradients"
    )
    # batched: the first entries' shapes before the count
    msg = _message(RuntimeError, lambda: mt.autograd.grad(
        losses, a, grad_outputs=[mt.ones(2, 3)], is_grads_batched=True))
    assert msg.startswith("If `is_grads_batched=True`, we interpret the first dimension"), msg
    assert "grad_output[0] has a shape of torch.Size([]) and output[0] has a shape of " in msg
    assert _message(RuntimeError, lambda: mt.autograd.grad(
        losses, a, grad_outputs=[mt.ones(2)], is_grads_batched=True)) == (
        "got 3 tensors and 1 gradients"
    )
    # a batched mismatch names its position by list.index too
    assert _message(RuntimeError, lambda: mt.autograd.grad(
        [roots[2], roots[3]], a, [mt.ones(2, 3), mt.ones(2, 3)], is_grads_batched=True)
    ) == AMBIGUOUS


def test_grad_inputs_checked_in_order(roots):
    a, losses, _, _ = roots
    x = mt.ones(3)
    assert _message(RuntimeError, lambda: mt.autograd.grad(losses[0], [x, 1.0])) == (
        "One of the differentiated Tensors does not require grad"
    )
    assert _message(RuntimeError, lambda: mt.autograd.grad(losses[0], [a, 1.0])) == (
        "all inputs have to be Tensors or GradientEdges, but got float"
    )


def test_results_unchanged(roots):
    a, losses, v, _ = roots
    mt.autograd.backward(losses, grad_tensors=[mt.tensor(1.0), mt.tensor(0.5), None],
                         retain_graph=True)
    want = 2 + a.detach() + a.detach().exp()
    assert mt.allclose(a.grad, want)
    (g,) = mt.autograd.grad(losses[:1], a, grad_outputs=[mt.tensor(2.0), "extra"])
    assert mt.allclose(g, mt.full((3,), 4.0))
    (j,) = mt.autograd.grad(v, a, grad_outputs=mt.eye(3), is_grads_batched=True)
    assert mt.allclose(j, 3 * mt.eye(3))


def test_hook_handle_repr():
    a = mt.ones(2, requires_grad=True)
    z = a * 2
    for h in (z.grad_fn.register_hook(lambda gi, go: None), z.register_hook(lambda g: g),
              z.grad_fn.register_prehook(lambda go: None)):
        assert re.fullmatch(r"<minitorch\.utils\.hooks\.RemovableHandle object at 0x[0-9a-f]+>",
                            repr(h)), repr(h)
        assert type(h).__name__ == "RemovableHandle"
