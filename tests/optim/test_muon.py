"""optim.Muon: momentum (an EMA buffer), the nesterov blend, the Newton-Schulz orthogonalization in
bfloat16, decoupled weight decay, the shape-adjusted learning rate and torch's errors; checked
against torch step by step in tests/reference/test_optim_reference.py."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt
from minitorch.optim.muon import _orthogonalize

pytest.importorskip("ml_dtypes")  # Muon orthogonalizes in bfloat16, as torch's

RNG = np.random.default_rng(0)


def test_newton_schulz_gives_a_near_orthogonal_update_of_either_orientation():
    for shape in ((6, 4), (4, 6), (5, 5)):
        g = mt.tensor(RNG.standard_normal(shape).astype(np.float32))
        o = _orthogonalize(g, (3.4445, -4.775, 2.0315), 5, 1e-7)
        assert o.dtype is mt.bfloat16 and o.shape == shape
        s = np.linalg.svd(o.float().numpy(), compute_uv=False)
        assert ((s > 0.5) & (s < 1.5)).all()  # Keller's quintic: S' ~ U(0.5, 1.5), not 1


def test_zero_steps_is_the_normalized_momentum_and_decay_is_decoupled():
    w0 = RNG.standard_normal((3, 4)).astype(np.float32)
    g = RNG.standard_normal((3, 4)).astype(np.float32)
    p = mt.nn.Parameter(mt.tensor(w0))
    opt = mt.optim.Muon([p], lr=0.1, weight_decay=0.5, momentum=0.9, ns_steps=0, nesterov=False)
    p.grad = mt.tensor(g)
    opt.step()
    buf = 0.1 * g  # lerp(0, g, 1 - 0.9)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), buf, rtol=1e-6)
    update = buf / np.linalg.norm(buf)
    want = w0 * (1 - 0.1 * 0.5) - 0.1 * update  # 3 rows, 4 cols: sqrt(max(1, 3/4)) = 1
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=2e-2, atol=2e-3)  # bfloat16


def test_adjusted_learning_rates_and_errors():
    from minitorch.optim.muon import _adjusted_lr

    assert _adjusted_lr(0.1, None, (8, 2)) == pytest.approx(0.2)
    assert _adjusted_lr(0.1, "match_rms_adamw", (8, 2)) == pytest.approx(0.1 * 0.2 * 8**0.5)
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        mt.optim.Muon([mt.nn.Parameter(mt.ones(3))])
    with pytest.raises(ValueError, match="Learning rate should be >= 0 but is: -1"):
        mt.optim.Muon([mt.nn.Parameter(mt.ones(2, 2))], lr=-1)
    with pytest.raises(ValueError, match="Adjust learning rate function x is not supported"):
        mt.optim.Muon([mt.nn.Parameter(mt.ones(2, 2))], adjust_lr_fn="x")


def test_top_level_grad_scaler_and_adam_tensor_lr_with_foreach():
    assert mt.GradScaler is mt.amp.GradScaler
    p = mt.nn.Parameter(mt.ones(2))
    for cls in (mt.optim.Adam, mt.optim.AdamW):
        with pytest.raises(ValueError, match="lr as a Tensor is not supported for capturable"):
            cls([p], lr=mt.tensor(0.01), foreach=True)
        cls([p], lr=mt.tensor(0.01))  # foreach unset: accepted, as torch


def test_an_optimizer_wrapper_without_optimizer_init_steps():
    # Lookahead-style: param_groups/state borrowed from an inner optimizer, Optimizer.__init__
    # never run; torch patches `step` only in __init__, so such a class steps plainly
    class Lookahead(mt.optim.Optimizer):
        def __init__(self, inner):
            self.inner = inner
            self.param_groups = inner.param_groups
            self.state = inner.state
            self.defaults = inner.defaults

        def step(self, closure=None):
            return self.inner.step(closure)

    p = mt.nn.Parameter(mt.ones(2))
    opt = Lookahead(mt.optim.SGD([p], lr=0.5))
    p.grad = mt.ones(2)
    opt.step()
    assert p.tolist() == [0.5, 0.5]
    from minitorch.optim.adamw import AdamW
    from minitorch.optim.optimizer import ParamsT

    assert AdamW is mt.optim.AdamW and ParamsT is not None


def test_foreach_results_are_tuples_and_in_place_forms_return_their_list():
    xs = [mt.ones(2), mt.zeros(1)]
    assert isinstance(mt._foreach_add(xs, 1.0), tuple)
    assert isinstance(mt._foreach_norm(xs), tuple) and isinstance(mt._foreach_sign(xs), tuple)
    assert isinstance(mt._foreach_lerp(xs, xs, 0.5), tuple)
    assert mt._foreach_mul_(xs, 2.0) is xs and mt._foreach_lerp_(xs, xs, 0.5) is xs
    assert mt._foreach_zero_(xs) is xs and mt._foreach_copy_(xs, xs) is xs
