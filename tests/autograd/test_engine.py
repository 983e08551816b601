"""The engine: backward/grad arguments, .grad accumulation and ownership, errors, graph walking."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers
from minitorch.autograd import engine


def _np(t):
    return t.detach().cpu().numpy()


def _leaf(values, device="cpu", dtype=None):
    return mt.tensor(values, dtype=dtype, device=device, requires_grad=True)


# --- backward ---


def test_backward_scalar_output_gives_the_analytic_gradient(device):
    x = _leaf([1.0, -2.0, 3.0], device)
    w = _leaf([0.5, 0.25, -1.0], device)
    with count_transfers() as t:
        ((x * w).exp() * x).sum().backward()
    assert t.count == 0, "backward read device data back to the host"
    xv, wv = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, -1.0])
    e = np.exp(xv * wv)
    np.testing.assert_allclose(_np(x.grad), e * (wv * xv + 1), rtol=1e-6, err_msg="d/dx")
    np.testing.assert_allclose(_np(w.grad), e * xv * xv, rtol=1e-6, err_msg="d/dw")
    assert x.grad.device == x.device and x.grad.dtype == x.dtype


def test_backward_with_gradient_argument_weights_the_outputs(device):
    x = _leaf([1.0, 2.0, 3.0], device)
    y = x * x
    y.backward(gradient=mt.tensor([1.0, 0.5, -2.0], device=device))
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0, -12.0], err_msg="2x * v")


def test_gradient_of_another_dtype_is_cast_to_the_output_dtype():
    x = _leaf([1.0, 2.0])
    (x * 2).backward(mt.tensor([1.0, 3.0], dtype=mt.float64))
    assert x.grad.dtype == mt.float32
    np.testing.assert_allclose(_np(x.grad), [2.0, 6.0])


def test_autograd_backward_accepts_several_roots_and_grad_tensors():
    x = _leaf([1.0, 2.0])
    mt.autograd.backward([x.sum(), (x * 3).sum()])
    np.testing.assert_allclose(_np(x.grad), [4.0, 4.0], err_msg="1 + 3 summed over the roots")
    mt.autograd.backward(x * 2, grad_tensors=mt.tensor([1.0, 2.0]))
    np.testing.assert_allclose(_np(x.grad), [6.0, 8.0], err_msg="accumulated onto the first call")


def test_backward_errors_match_torch():
    with pytest.raises(
        RuntimeError,
        match="^element 0 of tensors does not require grad and does not have a grad_fn$",
    ):
        mt.ones(2).sum().backward()
    with pytest.raises(
        RuntimeError, match="^grad can be implicitly created only for scalar outputs$"
    ):
        (_leaf([1.0, 2.0]) * 2).backward()
    x = _leaf([1.0, 2.0, 3.0])
    with pytest.raises(
        RuntimeError,
        match=r"Mismatch in shape: grad_output\[0\] has a shape of "
        r"torch.Size\(\[2\]\) and output\[0\] has a shape of "
        r"torch.Size\(\[3\]\).",
    ):
        (x * 2).backward(mt.ones(2))


def test_second_backward_through_freed_graph_raises_unless_retained():
    x = _leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()  # allowed: the first call kept the saved tensors
    np.testing.assert_allclose(_np(x.grad), [4.0, 8.0], err_msg="two backward calls accumulate")
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_saved_tensors_are_released_after_backward():
    x = _leaf([1.0, 2.0])
    y = x * x
    node = y.grad_fn
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        node._saved_self  # noqa: B018 (torch's built-in nodes name their saved tensors)


def test_create_graph_builds_a_differentiable_grad():
    x = _leaf([1.0, 2.0])
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and type(g.grad_fn).__name__ == "CopyBackwards"  # torch's clone
    np.testing.assert_allclose(_np(g), [3.0, 12.0], err_msg="3x^2")
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [6.0, 12.0], err_msg="6x")


def test_backward_inputs_restricts_accumulation_and_fills_non_leaf_grads():
    x = _leaf([1.0, 2.0, 3.0])
    w = _leaf([0.5, 1.0, 2.0])
    y = x * w
    (y * y).sum().backward(inputs=[y, w])
    assert x.grad is None, "x was not among the inputs"
    np.testing.assert_allclose(_np(y.grad), [1.0, 4.0, 12.0], err_msg="2y")
    np.testing.assert_allclose(_np(w.grad), [1.0, 8.0, 36.0], err_msg="2 y x")
    (x * w).sum().backward(inputs=x)
    np.testing.assert_allclose(_np(x.grad), [0.5, 1.0, 2.0])
    np.testing.assert_allclose(_np(w.grad), [1.0, 8.0, 36.0], err_msg="w untouched")


def test_backward_inputs_errors():
    x = _leaf([1.0])
    with pytest.raises(
        RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty"
    ):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(
        RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"
    ):
        (x * 2).sum().backward(inputs=[mt.ones(1)])


def test_leaf_as_root():
    x = _leaf([1.0, 2.0])
    g = mt.tensor([3.0, 4.0])
    x.backward(g)
    np.testing.assert_allclose(_np(x.grad), [3.0, 4.0])
    assert x.grad is not g, "the user's gradient tensor is copied, not adopted"


# --- autograd.grad ---


def test_grad_returns_without_accumulating():
    x = _leaf([1.0, 2.0, 3.0])
    (gx,) = mt.autograd.grad((x**2).sum(), x)
    np.testing.assert_allclose(_np(gx), [2.0, 4.0, 6.0])
    assert x.grad is None


def test_grad_allow_unused_and_materialize_grads():
    x = _leaf([1.0, 2.0, 3.0])
    u = _leaf([1.0, 2.0, 3.0])
    y = (x**2).sum()
    with pytest.raises(
        RuntimeError,
        match="^The differentiated Tensor at index 1 appears to not "
        "have been used in the graph. Set allow_unused=True",
    ):
        mt.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = mt.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
    assert gu is None
    np.testing.assert_allclose(_np(gx), [2.0, 4.0, 6.0])
    gx, gu = mt.autograd.grad(y, [x, u], materialize_grads=True, retain_graph=True)
    np.testing.assert_allclose(_np(gu), [0.0, 0.0, 0.0], err_msg="unused input gets zeros")
    with pytest.raises(
        ValueError,
        match="Expected allow_unused to be True or not passed when materialize_grads=True",
    ):
        mt.autograd.grad(y, [x, u], materialize_grads=True, allow_unused=False)


def test_grad_grad_outputs_and_several_outputs():
    x = _leaf([1.0, 2.0, 3.0])
    (g,) = mt.autograd.grad(x**2, x, grad_outputs=mt.tensor([1.0, 0.5, 2.0]))
    np.testing.assert_allclose(_np(g), [2.0, 2.0, 12.0])
    a = _leaf([1.0, 2.0])
    (g,) = mt.autograd.grad([a.sum(), (a * a).sum()], a)
    np.testing.assert_allclose(_np(g), [3.0, 5.0], err_msg="gradients of the outputs add up")


def test_grad_create_graph_gives_second_derivatives():
    x = _leaf([1.0, 2.0, 3.0])
    (g,) = mt.autograd.grad((x**3).sum(), x, create_graph=True)
    assert g.requires_grad
    np.testing.assert_allclose(_np(g), [3.0, 12.0, 27.0])
    (g2,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(_np(g2), [6.0, 12.0, 18.0])
    assert x.grad is None


def test_grad_with_respect_to_non_leaf_and_repeated_inputs():
    x = _leaf([1.0, 2.0, 3.0])
    h = x * 2
    (gh,) = mt.autograd.grad((h**2).sum(), h)
    np.testing.assert_allclose(_np(gh), [4.0, 8.0, 12.0])
    g1, g2 = mt.autograd.grad((x * x).sum(), [x, x])
    np.testing.assert_allclose(_np(g1), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(_np(g2), [2.0, 4.0, 6.0])


def test_grad_argument_errors():
    x = _leaf([1.0, 2.0, 3.0])
    y = (x * 2).sum()
    with pytest.raises(
        RuntimeError, match="^One of the differentiated Tensors does not require grad$"
    ):
        mt.autograd.grad(y, mt.ones(3))
    with pytest.raises(
        RuntimeError, match="^all inputs have to be Tensors or GradientEdges, but got int$"
    ):
        mt.autograd.grad(y, [x, 3])
    with pytest.raises(RuntimeError, match="^`inputs` argument to `grad\\(\\)` cannot be empty"):
        mt.autograd.grad(y, [])


def test_grad_skips_branches_that_do_not_lead_to_inputs():
    calls = []

    class Spy(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            return grad

    x = _leaf([1.0])
    w = _leaf([2.0])
    out = (x * w + Spy.apply(w)).sum()
    (gx,) = mt.autograd.grad(out, x)
    np.testing.assert_allclose(_np(gx), [2.0])
    assert calls == [], "the branch reaching only w was not run"


# --- .grad accumulation and ownership ---


def test_grad_accumulates_in_place_across_calls():
    x = _leaf([1.0, 2.0])
    (x * 2).sum().backward()
    first = x.grad
    (x * 3).sum().backward()
    assert x.grad is first, "accumulated into the same tensor, as torch does"
    np.testing.assert_allclose(_np(x.grad), [5.0, 5.0])


def test_accumulated_grads_never_alias(device):
    a = _leaf([1.0, 2.0, 3.0], device)
    b = _leaf([4.0, 5.0, 6.0], device)
    (a + b).sum().backward()  # Add hands the same gradient to both inputs
    a.grad.mul_(2)
    np.testing.assert_allclose(_np(b.grad), [1.0, 1.0, 1.0], err_msg="b.grad changed with a.grad")
    c = _leaf([1.0, 2.0], device)
    d = _leaf([1.0, 2.0], device)
    ((c + d) * 2).sum().backward()  # a fresh gradient (not a view) reaches both leaves
    assert c.grad is not d.grad
    c.grad.add_(100)
    np.testing.assert_allclose(_np(d.grad), [2.0, 2.0], err_msg="d.grad changed with c.grad")
    a2 = _leaf([1.0, 2.0, 3.0], device)
    b2 = _leaf([1.0, 2.0, 3.0], device)
    (a2 + b2).sum().backward(create_graph=True)
    assert a2.grad is not b2.grad, "create_graph grads alias"


def test_grad_does_not_alias_a_gradient_the_user_holds():
    kept = []
    x = _leaf([1.0, 2.0])
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    x.grad.zero_()
    np.testing.assert_allclose(_np(kept[0]), [3.0, 3.0], err_msg="the hook's tensor was changed")


def test_grad_does_not_alias_memory_of_another_tensor():
    # Differences from torch: torch adopts a gradient sharing memory with another tensor; we copy.
    class ReturnsSaved(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return y

    class Detached(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, grad):
            return grad.detach(), grad.detach()

    x = _leaf([1.0, 2.0])
    y = ReturnsSaved.apply(x)
    y.sum().backward()
    x.grad.add_(100)
    np.testing.assert_allclose(_np(y), [2.0, 4.0], err_msg="the output changed with x.grad")
    a, b = _leaf([1.0]), _leaf([1.0])
    (Detached.apply(a, b) * 2).sum().backward()
    a.grad.add_(100)
    np.testing.assert_allclose(_np(b.grad), [2.0], err_msg="b.grad changed with a.grad")


def test_unshared_gradients_are_stored_without_a_copy():
    # Calibrates engine._UNSHARED_REFS: too low and every .grad is a copy (slow), too high and
    # .grads alias (the tests above fail).
    made = []

    class Fresh(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            out = grad * 2
            made.append(__import__("weakref").ref(out))
            return out

    x = _leaf([1.0, 2.0])
    Fresh.apply(x).backward(mt.ones(2))
    assert made[0]() is x.grad, "a gradient nobody else holds was copied"
    assert engine._UNSHARED_REFS >= 3


def test_user_assigned_read_only_grad_still_accumulates():
    # Differences from torch: torch refuses to accumulate into an expanded .grad; we replace it.
    x = _leaf([1.0, 2.0, 3.0])
    x.grad = mt.zeros(1).expand(3)  # a broadcast view: not writable in place
    (x * 2).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0, 2.0])


def test_grad_requiring_grad_is_accumulated_out_of_place():
    x = _leaf([1.0, 2.0])
    (x**2).sum().backward(create_graph=True)
    g1 = x.grad
    (x**2).sum().backward(create_graph=True)
    assert x.grad is not g1 and x.grad.requires_grad
    np.testing.assert_allclose(_np(g1), [2.0, 4.0], err_msg="the first grad was modified")
    np.testing.assert_allclose(_np(x.grad), [4.0, 8.0])


# --- graph shape, broadcasting, dtypes ---


def test_broadcast_gradients_are_summed_to_the_input_shape():
    a = _leaf([[1.0], [2.0]])  # (2, 1)
    b = _leaf([10.0, 20.0, 30.0])  # (3,)
    c = _leaf(5.0)  # 0-d
    gout = mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (a * b + c).backward(gout)
    np.testing.assert_allclose(_np(a.grad), [[140.0], [320.0]], err_msg="sum over dim 1 of g*b")
    np.testing.assert_allclose(_np(b.grad), [9.0, 12.0, 15.0], err_msg="sum over dim 0 of g*a")
    np.testing.assert_allclose(_np(c.grad), 21.0, err_msg="sum of g")
    assert a.grad.shape == (2, 1) and b.grad.shape == (3,) and c.grad.shape == ()


def test_diamond_graph_sums_both_paths_before_running_the_node():
    calls = []

    class Count(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, grad):
            calls.append(_np(grad).copy())
            return grad

    x = _leaf([1.0, 2.0])
    h = Count.apply(x)
    (h * 2 + h * 3 + h * h).sum().backward()
    assert len(calls) == 1, "the shared node ran once, with the total gradient"
    np.testing.assert_allclose(calls[0], [7.0, 9.0], err_msg="2 + 3 + 2h")
    np.testing.assert_allclose(_np(x.grad), [7.0, 9.0])


def test_deep_chain_runs_without_recursion():
    # NOTE [ The backward walk ]: no recursion, whatever the depth.
    x = _leaf([1.5])
    y = x
    for _ in range(100_000):
        y = -y
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [1.0], err_msg="an even number of negations")
    del y  # freeing a 100,000-node chain must not overflow the C stack either


def test_long_multiplicative_chain_matches_the_closed_form():
    x = mt.tensor([1.0], dtype=mt.float64, requires_grad=True)
    y = x
    for _ in range(2000):
        y = y * 1.0001
    y.backward(mt.ones(1, dtype=mt.float64))
    np.testing.assert_allclose(_np(x.grad), [1.0001**2000], rtol=1e-12)


def test_backward_of_wrong_number_or_shape_of_gradients():
    class TooMany(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    class BadShape(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.sum()

    x = _leaf([1.0, 2.0])
    with pytest.raises(
        RuntimeError,
        match=r"^function TooManyBackward returned an incorrect "
        r"number of gradients \(expected 1, got 2\)$",
    ):
        TooMany.apply(x).sum().backward()
    with pytest.raises(
        RuntimeError,
        match=r"^Function BadShapeBackward returned an invalid "
        r"gradient at index 0 - got \[\] but expected shape "
        r"compatible with \[2\]$",
    ):
        BadShape.apply(x).sum().backward()


def test_gradient_dtype_follows_the_input_dtype():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    (x.float() * 2).sum().backward()
    assert x.grad.dtype == mt.float64
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0])


def test_exceptions_in_backward_restore_grad_mode():
    class Boom(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("boom")

    x = _leaf([1.0])
    with pytest.raises(ValueError, match="boom"):
        Boom.apply(x).sum().backward()
    assert mt.is_grad_enabled()


def test_backward_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xv, wv, gv = rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(3, 4))
    results = []
    for lib in (mt, torch):
        x = lib.tensor(xv, requires_grad=True)
        w = lib.tensor(wv, requires_grad=True)
        y = (x * w).tanh() * x + w.exp()
        y.backward(lib.tensor(gv), retain_graph=True)
        (y.sum() * 2).backward(inputs=[w], retain_graph=True)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gxx,) = lib.autograd.grad(gx.sum(), w)
        results.append([_np(x.grad), _np(w.grad), _np(gx), _np(gxx)])
    for name, a, b in zip(["x.grad", "w.grad", "grad", "double grad"], *results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, err_msg=name)


def test_gradients_meeting_at_a_shared_input_are_summed(device):
    # x reaches the loss along three paths; 0-d (NumPy's 0-d sums are scalars) and 2-d, and
    # under create_graph the sum stays differentiable
    for shape in [(), (2, 3)]:
        a = np.linspace(-1.0, 2.0, int(np.prod(shape))).reshape(shape)
        x = mt.tensor(a, device=device, requires_grad=True)
        (x * x + x.exp() + 3 * x).sum().backward()
        np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * a + np.exp(a) + 3)
        assert x.grad.shape == shape and not x.grad.requires_grad
        x.grad.add_(1.0)  # an array that takes in-place updates (the optimizer's), not a scalar
        np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * a + np.exp(a) + 4)
    x = mt.tensor(0.5, device=device, requires_grad=True)
    (g,) = mt.autograd.grad(x * x * x + x * x, x, create_graph=True)
    (gg,) = mt.autograd.grad(g, x)
    assert abs(gg.item() - (6 * 0.5 + 2)) < 1e-12


# --- the data-level walk: arrays between common nodes (NOTE [ Data-level backward ]) ---


def test_data_walk_adopts_a_fresh_array_as_grad(monkeypatch):
    # the array a data-level backward returns becomes the leaf's .grad without a copy (one
    # Tensor made, at the leaf): NOTE [ Stealing gradients ] holds on the array path too
    x = _leaf([1.0, 2.0])
    y = x * 3.0
    node_cls = type(y.grad_fn)
    made = []
    original = node_cls._data_bw

    def recording(ctx, grad):
        out = original(ctx, grad)  # (grad_x, None): the number operand has no gradient
        made.append(weakref.ref(out[0]))
        return out

    monkeypatch.setattr(node_cls, "_data_bw", recording)
    y.backward(mt.ones(2))
    assert x.grad._data is made[0](), "a gradient nobody else holds was copied"


def test_data_walk_hands_tensors_to_a_node_hooked_during_the_walk():
    # y's node first receives an array from the data-level walk (through z2); then, before it
    # runs, a backward on another branch registers a hook on y: the hook gets a Tensor, and its
    # result is what flows on
    seen = []
    x = _leaf([1.0, 2.0])
    y = x * 2.0

    class Registers(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0

        @staticmethod
        def backward(ctx, g):
            y.register_hook(lambda gy: seen.append(gy) or gy * 10.0)
            return None

    (Registers.apply(y).sum() + (y * 3.0).sum()).backward()
    assert len(seen) == 1 and isinstance(seen[0], mt.Tensor)
    np.testing.assert_allclose(_np(seen[0]), [3.0, 3.0])
    np.testing.assert_allclose(_np(x.grad), [60.0, 60.0])


def test_data_walk_mixed_nodes_give_the_tensor_paths_gradients(monkeypatch):
    # arrays reach: a multi-output node (chunk's split), a node whose data-level backward
    # declines (silu in float16 runs its Tensor formula), a composite node (mse_loss), a leaf
    # used twice; the gradients equal those of the all-Tensor walk
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 6))
    h = rng.standard_normal((4, 2)).astype(np.float16)
    t = rng.standard_normal((4, 2))

    def grads(data_path):
        monkeypatch.setattr(engine, "DATA_BACKWARD", data_path)
        x = _leaf(a)
        s = _leaf(h)
        q, k, v = x.chunk(3, dim=1)
        m = mt.nn.functional.mse_loss(q * k, mt.tensor(t), reduction="none")
        m.register_hook(lambda g: devices.append(g.device))  # a composite node's gradient
        u = m * 2.0
        w = mt.nn.functional.silu(s * 2.0)
        loss = (u + v.exp() + x[:, :2]).sum() + (w.float() * 3.0).sum()
        loss.backward()
        return _np(x.grad), _np(s.grad).astype(np.float64)

    devices = []
    fast, slow = grads(True), grads(False)
    assert devices == [mt.device("cpu")] * 2
    np.testing.assert_allclose(fast[0], slow[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-3, atol=1e-3)
    # and the values: d/dx of sum(2 (q k - t)^2 + e^v + x[:, :2])
    q, k, v = a[:, :2], a[:, 2:4], a[:, 4:]
    want = np.concatenate([4 * (q * k - t) * k, 4 * (q * k - t) * q, np.exp(v)], axis=1)
    want[:, :2] += 1.0
    np.testing.assert_allclose(fast[0], want, rtol=1e-12, atol=1e-12)


# --- reused gradients (NOTE [ Reused gradients ]) ---


def _big(rng, shape=(128, 256)):
    return mt.tensor(rng.standard_normal(shape), requires_grad=True)  # past engine._REUSE_MIN


def test_relu_and_gelu_backward_write_into_a_gradient_only_they_hold(monkeypatch):
    rng = np.random.default_rng(7)
    x = _big(rng)
    w = rng.standard_normal((128, 256))
    seen = []
    for op in (mt.relu, mt.nn.functional.gelu):
        x.grad = None
        y = op(x * 2.0)
        node_cls = type(y.grad_fn)
        original = node_cls._data_bw_owned

        def recording(ctx, grad, original=original):
            out = original(ctx, grad)
            seen.append(out is grad)
            return out

        monkeypatch.setattr(node_cls, "_data_bw_owned", recording)
        (y * mt.tensor(w)).sum().backward()  # Mul's backward: a fresh gradient for y's node
        h = 2.0 * x.detach().numpy()
        if op is mt.relu:
            dy = (h > 0).astype(float)
        else:
            from math import erf, pi, sqrt

            cdf = 0.5 * (1 + np.vectorize(erf)(h / sqrt(2)))
            dy = cdf + h * np.exp(-h * h / 2) / sqrt(2 * pi)
        np.testing.assert_allclose(_np(x.grad), 2.0 * w * dy, rtol=1e-6, atol=1e-6)
    assert seen == [True, True]


def test_a_gradient_two_nodes_hold_is_not_written_into():
    # Add hands one array to both ReLUs; the first must not mask it in place (the second's
    # mask is the opposite one), the second, its last holder, may
    rng = np.random.default_rng(8)
    x = _big(rng)
    w = rng.standard_normal((128, 256))
    h = x * 2.0
    ((h.relu() + (-h).relu()) * mt.tensor(w)).sum().backward()
    hv = 2.0 * x.detach().numpy()
    np.testing.assert_allclose(_np(x.grad), 2.0 * w * np.sign(hv), rtol=1e-12, atol=1e-12)
    # a gradient the user passes is theirs: never written into
    g = mt.tensor(rng.standard_normal((128, 256)))
    kept = g.numpy().copy()
    x.grad = None
    (x * 2.0).relu().backward(g)
    np.testing.assert_array_equal(g.numpy(), kept)


def test_grad_with_batched_grad_outputs_is_a_jacobian():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x**2
    (jac,) = mt.autograd.grad(
        y, x, grad_outputs=mt.eye(3), retain_graph=True, is_grads_batched=True
    )
    np.testing.assert_array_equal(jac.numpy(), np.diag([2.0, 4.0, 6.0]))
    # create_graph: the batch of rows is differentiable again
    (jac,) = mt.autograd.grad(y, x, mt.eye(3), create_graph=True, is_grads_batched=True)
    jac.trace().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="batch size"):
        mt.autograd.grad(y, x, mt.tensor(1.0), is_grads_batched=True)
