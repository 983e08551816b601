"""Session 31 (helper continual): torch-free checks of the continual-learning building blocks the
reference programs in tests/reference/test_s31_continual_reference.py lean on (distillation by
kl_div at a temperature, task masks by masked_fill with -inf before cross_entropy, EWC's Fisher
by a per-sample loop and by vmap(grad), A-GEM's projection on flattened gradients, reservoir
draws from a Generator, class means by scatter_reduce, growing memory buffers loaded through a
state_dict pre-hook, post-accumulate-grad hooks). The session found no library difference in
this domain; the values below are torch 2.13's, so these keep the behaviour pinned where torch
is not installed."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch as mt

F = mt.nn.functional
F64 = mt.float64


def _close(got, want, err_msg=""):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-12, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def _logits():
    return mt.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], dtype=F64)


def test_distillation_kl_div_batchmean_at_a_temperature():
    s = _logits()
    t = mt.tensor([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], dtype=F64)
    T = 2.0
    kd = F.kl_div(F.log_softmax(s / T, 1), t, reduction="batchmean") * T * T
    _close(kd.item(), 0.08901681061759242)
    _close(
        F.kl_div(F.log_softmax(s, 1), t, reduction="none").tolist(),
        [
            [-0.029013825665231086, -0.11438919822600019, 0.22811879393460266],
            [0.07632988107633837, 0.1763298810763384, -0.12580771804542448],
        ],
    )
    # log_target=True is the same loss given log-probabilities
    kd2 = F.kl_div(F.log_softmax(s / T, 1), t.log(), reduction="batchmean", log_target=True)
    _close(kd2.item() * T * T, 0.08901681061759242)


def test_task_mask_minus_inf_before_cross_entropy():
    mask = mt.tensor([[False, True, False], [True, False, False]])
    logits = _logits().masked_fill(mask, float("-inf"))
    _close(F.cross_entropy(logits, mt.tensor([0, 2])).item(), 0.24611345604895823)
    # a target on a masked class gives an infinite loss for that row, not nan
    none = F.cross_entropy(logits, mt.tensor([1, 2]), reduction="none")
    assert none.tolist()[0] == float("inf")
    _close(none.tolist()[1], 0.01814992791780978)
    lg = logits.clone().requires_grad_()
    F.cross_entropy(lg, mt.tensor([0, 2])).backward()
    _close(
        lg.grad.tolist(),
        [[-0.1887703343990727, 0.0, 0.1887703343990727],
         [0.0, 0.008993104981045781, -0.008993104981045774]],
    )  # fmt: skip


def test_fisher_by_loop_equals_fisher_by_vmap_grad():
    mt.manual_seed(0)
    model = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.Tanh(), mt.nn.Linear(4, 2)).to(F64)
    g = mt.Generator().manual_seed(1)
    x = mt.randn(5, 3, generator=g, dtype=F64)
    y = mt.tensor([0, 1, 1, 0, 1])
    params = list(model.parameters())
    loop = [mt.zeros_like(p) for p in params]
    for i in range(5):
        loss = F.cross_entropy(model(x[i : i + 1]), y[i : i + 1])
        for f, gr in zip(loop, mt.autograd.grad(loss, params), strict=True):
            f += gr**2
    detached = {k: v.detach() for k, v in model.named_parameters()}

    def loss_fn(p, xi, yi):
        out = mt.func.functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    per = mt.func.vmap(mt.func.grad(loss_fn), in_dims=(None, 0, 0))(detached, x, y)
    for (name, v), f in zip(per.items(), loop, strict=True):
        assert v.shape == (5, *f.shape)
        np.testing.assert_allclose((v**2).sum(0).numpy(), f.numpy(), rtol=1e-12, atol=1e-15,
                                   err_msg=name)  # fmt: skip


def test_agem_projection_on_flat_gradients():
    g = mt.tensor([1.0, -2.0, 0.5], dtype=F64)
    ref = mt.tensor([-1.0, 1.0, 1.0], dtype=F64)
    dot = mt.dot(g, ref)
    assert dot.item() == -2.5
    proj = g - dot / mt.dot(ref, ref) * ref
    _close(mt.dot(proj, ref).item(), 0.0)
    _close(proj.tolist(), [1.0 - 2.5 / 3, -2.0 + 2.5 / 3, 0.5 + 2.5 / 3])
    lin = mt.nn.Linear(2, 2).to(F64)
    v = mt.nn.utils.parameters_to_vector(lin.parameters())
    mt.nn.utils.vector_to_parameters(mt.arange(6, dtype=F64), lin.parameters())
    assert lin.weight.tolist() == [[0.0, 1.0], [2.0, 3.0]] and lin.bias.tolist() == [4.0, 5.0]
    assert lin.weight.is_leaf and lin.weight.requires_grad and v.shape == (6,)


def test_reservoir_draws_from_a_generator():
    g = mt.Generator().manual_seed(7)
    assert mt.randint(0, 30, (5,), generator=g).tolist() == [15, 22, 1, 26, 13]
    assert mt.randperm(8, generator=g).tolist() == [3, 7, 1, 6, 5, 0, 2, 4]


def test_class_means_by_scatter_reduce():
    src = mt.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=F64)
    idx = mt.tensor([0, 1, 0, 1, 3])
    out = mt.zeros(4, dtype=F64).scatter_reduce(0, idx, src, reduce="mean", include_self=False)
    assert out.tolist() == [2.0, 3.0, 0.0, 5.0]
    out = mt.ones(4, dtype=F64).scatter_reduce(0, idx, src, reduce="mean", include_self=True)
    _close(out.tolist(), [1.6666666666666667, 2.3333333333333335, 1.0, 3.0])


def test_growing_memory_buffers_load_through_a_pre_hook():
    class Memory(mt.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("xs", mt.empty(0, 2))
            self._register_load_state_dict_pre_hook(self._resize)

        def _resize(self, state_dict, prefix, *args):
            if prefix + "xs" in state_dict:
                self.xs = mt.empty_like(state_dict[prefix + "xs"])

    full = Memory()
    full.xs = mt.cat([full.xs, mt.ones(3, 2)])
    buf = io.BytesIO()
    mt.save(full.state_dict(), buf)
    buf.seek(0)
    fresh = Memory()
    assert str(fresh.load_state_dict(mt.load(buf))) == "<All keys matched successfully>"
    assert fresh.xs.tolist() == [[1.0, 1.0]] * 3
    plain = Memory()
    plain._load_state_dict_pre_hooks.clear()
    with pytest.raises(RuntimeError) as info:
        plain.load_state_dict(full.state_dict())
    assert str(info.value) == (
        "Error(s) in loading state_dict for Memory:\n\tsize mismatch for xs: copying a param "
        "with shape torch.Size([3, 2]) from checkpoint, the shape in current model is "
        "torch.Size([0, 2])."
    )


def test_post_accumulate_grad_hook_fires_once_per_backward():
    p = mt.nn.Parameter(mt.tensor([1.0, 2.0], dtype=F64))
    seen = []
    h = p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
    out = p * 3
    out.sum().backward(retain_graph=True)
    out.pow(2).sum().backward()
    h.remove()
    assert [s.tolist() for s in seen] == [[3.0, 3.0], [21.0, 39.0]]
    msg = "post accumulate grad hooks cannot be registered on non-leaf tensors"
    with pytest.raises(RuntimeError, match=msg):
        out.register_post_accumulate_grad_hook(lambda t: None)
