"""Session 22 (autograd API fuzzing against torch 2.13): autograd.grad with a dict of inputs,
materialize_grads under create_graph and with GradientEdge inputs, the order of backward()'s
checks, and the tensor hooks of a lone root whose node the walk does not need. The expected
values were obtained by running torch 2.13.0."""

from __future__ import annotations

import collections

import pytest

import minitorch as torch


def _leaves():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    return a, b


def test_grad_dict_inputs_returns_dict_of_grads():
    a, b = _leaves()
    y = (a * b).sum()
    r = torch.autograd.grad(y, {"a": a, "b": b})
    assert isinstance(r, dict) and list(r) == ["a", "b"]
    assert r["a"].tolist() == [3.0, 4.0]
    assert r["b"].tolist() == [1.0, 2.0]


def test_grad_dict_inputs_with_materialize_and_batched():
    a, b = _leaves()
    y = a * 2
    r = torch.autograd.grad(y.sum(), {"x": a, "unused": b}, materialize_grads=True)
    assert list(r) == ["x", "unused"]
    assert r["x"].tolist() == [2.0, 2.0] and r["unused"].tolist() == [0.0, 0.0]
    go = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    r = torch.autograd.grad(a * 2, {"x": a}, go, is_grads_batched=True)
    assert list(r) == ["x"] and r["x"].tolist() == [[2.0, 0.0], [0.0, 2.0]]


def test_grad_other_mapping_inputs_raise():
    a, b = _leaves()
    y = (a * b).sum()
    with pytest.raises(TypeError) as e:
        torch.autograd.grad(y, collections.OrderedDict(a=a))
    assert str(e.value) == (
        "`inputs` argument to `grad()` must be a dict, not OrderedDict. Other Mapping types are "
        "not supported."
    )
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `grad\(\)` cannot be empty\.$"):
        torch.autograd.grad(y, {})


def test_grad_materialized_zeros_require_grad_under_create_graph():
    # torch: zeros_like(input, requires_grad=create_graph) for each unused input
    a, b = _leaves()
    for create in (False, True):
        g = torch.autograd.grad((a * 2).sum(), [a, b], materialize_grads=True, create_graph=create)
        assert g[0].tolist() == [2.0, 2.0] and g[0].requires_grad is False
        assert g[1].tolist() == [0.0, 0.0]
        assert g[1].requires_grad is create and g[1].is_leaf and g[1].grad_fn is None


def test_grad_materialize_with_gradient_edges():
    a, b = _leaves()
    # a used edge: allowed (torch only objects to an edge whose gradient would be materialized)
    y = a * 2
    (g,) = torch.autograd.grad(
        y.sum(), [torch.autograd.graph.get_gradient_edge(a)], materialize_grads=True
    )
    assert g.tolist() == [2.0, 2.0]
    y = a * 2
    with pytest.raises(RuntimeError) as e:
        torch.autograd.grad(
            y.sum(), [a, torch.autograd.graph.get_gradient_edge(b)], materialize_grads=True
        )
    assert str(e.value) == "materialize_grads cannot be used when the given input is a GradientEdge"


def test_backward_inputs_checks_roots_first():
    a, _ = _leaves()
    c = torch.tensor([1.0, 2.0])  # requires no grad: retain_grad on it fails, but only later
    with pytest.raises(RuntimeError) as e:
        (c * 2).sum().backward(inputs=[c])
    assert str(e.value) == "element 0 of tensors does not require grad and does not have a grad_fn"
    with pytest.raises(RuntimeError) as e:
        (a * 2).backward(inputs=[c])
    assert str(e.value) == "grad can be implicitly created only for scalar outputs"
    with pytest.raises(RuntimeError) as e:
        torch.autograd.backward([(a * 2).sum(), c.sum()], inputs=[c])
    assert str(e.value) == "element 1 of tensors does not require grad and does not have a grad_fn"
    with pytest.raises(RuntimeError) as e:
        (a * 2).sum().backward(inputs=[c])
    assert str(e.value) == "can't retain_grad on Tensor that has requires_grad=False"


def test_lone_root_tensor_hooks_fire_when_its_node_is_not_needed():
    a, b = _leaves()
    calls = []
    y = a * 2
    y.retain_grad()
    y.register_hook(lambda g: calls.append(("tensor", g.tolist())))
    y.grad_fn.register_prehook(lambda go: calls.append("node_pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("node_post"))
    assert torch.autograd.grad(y, [b], torch.tensor([1.0, 5.0]), allow_unused=True) == (None,)
    assert calls == [("tensor", [1.0, 5.0])]  # the node's own hooks do not run
    assert y.grad.tolist() == [1.0, 5.0]
    y = a * 2
    y.retain_grad()
    y.backward(torch.ones(2), inputs=[b])
    assert y.grad.tolist() == [1.0, 1.0] and a.grad is None and b.grad is None

    # a leaf as the lone root: its tensor hooks fire too, nothing accumulates
    leaf_calls = []
    c = torch.tensor([1.0, 2.0], requires_grad=True)
    c.register_hook(lambda g: leaf_calls.append(g.tolist()))
    c.backward(torch.tensor([3.0, 4.0]), inputs=[b])
    assert torch.autograd.grad(c, [b], torch.ones(2), allow_unused=True) == (None,)
    assert leaf_calls == [[3.0, 4.0], [1.0, 1.0]] and c.grad is None

    # in contrast: two roots (torch's dummy root above them) or a tensor inside the graph
    y = a * 2
    y.retain_grad()
    y2 = a * 3
    y2.retain_grad()
    torch.autograd.backward([y, y2], [torch.ones(2), torch.ones(2)], inputs=[b])
    assert y.grad is None and y2.grad is None  # torch's dummy root above two roots
    y = a * 2
    y.retain_grad()
    z = y * 3
    assert torch.autograd.grad(z, b, torch.ones(2), allow_unused=True) == (None,)
    assert y.grad is None


def test_deprecated_grad_arguments_warn():
    a, _ = _leaves()
    y = a * 2
    with pytest.warns(FutureWarning) as w:
        (g,) = torch.autograd.grad(y.sum(), a, only_inputs=False)
    assert g.tolist() == [2.0, 2.0]
    assert str(w[0].message) == (
        "only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
        "gradient for other parts of the graph, please use torch.autograd.backward."
    )
    with pytest.warns(FutureWarning, match=r"^`grad_variables` is deprecated\. Use `grad_tensors`"):
        torch.autograd.backward([(a * a).sum()], grad_variables=[torch.tensor(2.0)])
    assert a.grad.tolist() == [4.0, 8.0]
    with pytest.warns(FutureWarning), pytest.raises(RuntimeError) as e:
        torch.autograd.backward(
            [(a * a).sum()], grad_tensors=[torch.tensor(1.0)], grad_variables=[torch.tensor(1.0)]
        )
    assert str(e.value) == (
        "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to `backward()`. "
        "Please only use `grad_tensors`."
    )


def test_jacobian_forward_mode_needs_vectorize_message():
    with pytest.raises(NotImplementedError) as e:
        torch.autograd.functional.jacobian(lambda x: x * 2, torch.ones(2), strategy="forward-mode")
    assert str(e.value) == (  # torch's text, "isonly" included
        "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented "
        "for `vectorize=True`."
    )


def _batched(grad_outputs, out=None):
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = x * x if out is None else out(x)
    return torch.autograd.grad(y, x, grad_outputs, is_grads_batched=True)


def test_grads_batched_checks_as_torch():
    ones = torch.ones
    (g,) = _batched(ones(2, 3, dtype=torch.float64))
    assert g.tolist() == [[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]]
    for go in (ones(3, dtype=torch.float64), ones(2, 2, dtype=torch.float64)):
        with pytest.raises(RuntimeError) as e:
            _batched(go)
        assert str(e.value) == (
            "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
            "the batch dimension. The sizes of the remaining dimensions are expected to match the "
            "shape of corresponding output, but a mismatch was detected: grad_output[0] has a "
            "shape of torch.Size([]) and output[0] has a shape of torch.Size([3]). If you only "
            "want some tensors in `grad_output` to be considered batched, consider using vmap."
        )
    with pytest.raises(IndexError, match="^index 0 is out of bounds for dimension 0 with size 0$"):
        _batched(ones(0, 3, dtype=torch.float64))  # was an answer of (None,)
    with pytest.raises(ValueError) as e:
        _batched(None, lambda x: (x * x).sum())
    assert str(e.value) == (
        "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a "
        "Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0."
    )
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar"):
        _batched(None)
    with pytest.raises(ValueError) as e:
        _batched(
            [ones(2, 3, dtype=torch.float64), ones(3, dtype=torch.float64)],
            lambda x: (x * x, (x * x).sum()),
        )
    assert str(e.value) == (
        "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
        "[2, 3] for the mapped dimension"
    )


def test_multi_grad_hook_registration_and_autograd_grad_on_leaves():
    a, b = _leaves()
    c = torch.tensor([3.0, 4.0])
    calls = []
    # mode="any" leaves out the tensors that require no grad
    h = torch.autograd.graph.register_multi_grad_hook((a, c), calls.append, mode="any")
    (a * 2).sum().backward()
    assert [g.tolist() for g in calls] == [[2.0, 2.0]]
    h.remove()
    calls.clear()
    h = torch.autograd.graph.register_multi_grad_hook((a, b), calls.append)
    with pytest.raises(RuntimeError) as e:
        torch.autograd.grad((a * b).sum(), a)
    assert str(e.value) == (
        "A leaf node was passed to _will_engine_execute_node but we are currently running "
        "autograd.grad(). This is currently not supported."
    )
    (a * b).sum().backward(inputs=[b])  # backward() may: it accumulates
    assert calls[0][0] is None and calls[0][1].tolist() == [1.0, 2.0]
    h.remove()
    y = a * 2
    h = torch.autograd.graph.register_multi_grad_hook((y,), calls.append)
    assert torch.autograd.grad(y.sum(), a)[0].tolist() == [2.0, 2.0]  # non-leaves: fine
    assert calls[-1][0].tolist() == [1.0, 1.0]
    # a hooked leaf in the graph that autograd.grad does not read: fine too
    c = torch.tensor([5.0, 6.0], requires_grad=True)
    y = a * b
    calls.clear()
    torch.autograd.graph.register_multi_grad_hook((c, y), calls.append)
    (g,) = torch.autograd.grad((y * c).sum(), a)  # c is in the graph, but no input of grad()
    assert g.tolist() == [15.0, 24.0]
    assert calls[0][0] is None and calls[0][1].tolist() == [5.0, 6.0]


def test_grads_batched_materializes_unbatched_zeros():
    # torch materializes after the batched backward: zeros shaped as the input, not batched
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    z = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    go = torch.ones(2, 3, dtype=torch.float64)
    for create in (False, True):
        gx, gz = torch.autograd.grad(
            x * x, [x, z], go, is_grads_batched=True, materialize_grads=True, create_graph=create
        )
        assert gx.tolist() == [[2.0, 4.0, 6.0], [2.0, 4.0, 6.0]]
        assert gz.tolist() == [0.0, 0.0] and gz.requires_grad is create and gz.is_leaf


def test_forward_mode_jacobian_answers_in_lists_as_torch():
    F = torch.autograd.functional
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    kw = {"vectorize": True, "strategy": "forward-mode"}
    assert isinstance(F.jacobian(lambda a: a * 2, x, **kw), torch.Tensor)
    r = F.jacobian(lambda a: a * 2, (x,), **kw)
    assert type(r) is list and r[0].tolist() == [[2.0, 0.0], [0.0, 2.0]]
    assert type(F.jacobian(lambda a: (a * 2,), x, **kw)) is tuple
    r = F.jacobian(lambda a: (a * 2,), (x,), **kw)
    assert type(r) is list and type(r[0]) is list
    h = F.hessian(
        lambda a, b: (a**3 * b).sum(),
        (x, x),
        vectorize=True,
        outer_jacobian_strategy="forward-mode",
    )
    assert type(h) is list and type(h[0]) is list
    assert h[0][0].tolist() == [[6.0, 0.0], [0.0, 24.0]]
    # the reverse mode keeps tuples
    r = F.jacobian(lambda a: (a * 2,), (x,), vectorize=True)
    assert type(r) is tuple and type(r[0]) is tuple


def test_read_only_tensor_attributes_refuse_in_torch_words():
    a, _ = _leaves()
    y = a * 2
    for name in ("grad_fn", "is_leaf", "_version", "shape", "dtype", "retains_grad"):
        with pytest.raises(AttributeError) as e:
            setattr(y, name, None)
        assert str(e.value) == (
            f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable"
        )
    assert y.grad_fn is not None and not y.is_leaf
