"""Session 34 (helper modapi): torch-free regression tests of the library fixes the nn.Module API
programs of tests/reference/test_s34_modapi_reference.py found: a module's full backward
(pre-)hooks let a None gradient of an output (an unused output, or one a pre-hook returned None)
flow on as no gradient, so the parameters only that output reaches keep grad None, as torch's;
in-place writes (copy_ by load_state_dict, add_) check a detached alias (a state_dict's value,
p.detach()) for overlap with the memory it aliases, as torch's storage-based check does."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

nn = mt.nn


class _Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 4)

    def forward(self, x):
        return self.a(x), self.b(x)


def _run(pre=None):
    mt.manual_seed(0)
    m = _Heads().double()
    seen = []
    if pre is not None:
        m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(lambda mod, gi, go: seen.append([g is None for g in go]))
    x = mt.randn(5, 3, dtype=mt.float64, requires_grad=True)
    ya, yb = m(x)
    yb.sum().backward()
    return m, x, seen


def test_unused_output_leaves_its_parameters_without_grad():
    m, x, seen = _run()
    assert seen == [[True, False]]
    assert m.a.weight.grad is None and m.a.bias.grad is None
    np.testing.assert_allclose(m.b.bias.grad.numpy(), np.full(4, 5.0))
    np.testing.assert_allclose(
        x.grad.numpy(), m.b.weight.detach().numpy().sum(0)[None].repeat(5, 0)
    )


def test_pre_hook_none_and_unchanged_tuple_propagate_no_gradient():
    for pre in (lambda mod, g: tuple(g), lambda mod, g: (None, g[1] * 2)):
        m, x, seen = _run(pre)
        assert m.a.weight.grad is None and m.a.bias.grad is None
        assert m.b.weight.grad is not None
    np.testing.assert_allclose(m.b.bias.grad.numpy(), np.full(4, 10.0))


def test_all_none_still_fires_the_input_hooks_with_zeros():
    # torch also gives x zeros here (its engine runs the module's nodes on undefined grads)
    mt.manual_seed(0)
    m = nn.Linear(2, 2)
    got = []
    m.register_full_backward_pre_hook(lambda mod, g: (None,))
    m.register_full_backward_hook(lambda mod, gi, go: got.append((gi[0].tolist(), go)))
    x = mt.ones(2, requires_grad=True)
    m(x).sum().backward()
    assert got == [([0.0, 0.0], (None,))]
    assert x.grad.tolist() == [0.0, 0.0]


OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def test_load_state_dict_of_a_view_of_the_models_own_memory_raises():
    mt.manual_seed(0)
    m = nn.Linear(3, 3)
    sd = m.state_dict()
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict({**sd, "weight": sd["weight"].t()})
    assert str(info.value) == (
        "Error(s) in loading state_dict for Linear:\n\tWhile copying the parameter named "
        '"weight", whose dimensions in the model are torch.Size([3, 3]) and whose dimensions '
        f"in the checkpoint are torch.Size([3, 3]), an exception occurred : ('{OVERLAP}',)."
    )
    assert repr(m.load_state_dict(sd)) == "<All keys matched successfully>"


def test_inplace_ops_with_a_detached_alias_check_overlap():
    p = nn.Parameter(mt.arange(4.0))
    d = p.detach()
    with mt.no_grad():
        with pytest.raises(RuntimeError) as info:
            p[1:].add_(d[:3])
        assert str(info.value) == OVERLAP
        with pytest.raises(RuntimeError) as info:
            p[:3].copy_(d[1:])
        assert str(info.value) == OVERLAP
        p[:2].copy_(d[2:])  # disjoint
        p.mul_(d)  # the same memory in the same order
    assert p.tolist() == [4.0, 9.0, 4.0, 9.0]
