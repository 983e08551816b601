"""nn.utils.prune without torch: mask counts, the _orig/_mask layout, iterative pruning through
PruningContainer, remove, global pruning, gradients through the mask, state_dicts and errors."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck
from minitorch.nn.utils import prune


def _np(t):
    return t.detach().cpu().numpy()


def _linear(n_in=4, n_out=3, seed=0, device="cpu"):
    """A float64 Linear with distinct (tie-free) random weights."""
    m = nn.Linear(n_in, n_out).to(dtype=mt.float64, device=device)
    r = np.random.default_rng(seed)
    with mt.no_grad():
        m.weight.copy_(mt.tensor(r.standard_normal((n_out, n_in)), device=device))
        m.bias.copy_(mt.tensor(r.standard_normal(n_out), device=device))
    return m


def _conv(seed=0):
    m = nn.Conv2d(2, 5, 3).double()
    r = np.random.default_rng(seed)
    with mt.no_grad():
        m.weight.copy_(mt.tensor(r.standard_normal(tuple(m.weight.shape))))
    return m


def _names(pairs):
    return [n for n, _ in pairs]


def test_lazy_submodule():
    code = "import sys, minitorch; print('minitorch.nn.utils.prune' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert mt.nn.utils.prune is prune
    assert "prune" in dir(mt.nn.utils)


def test_l1_unstructured_layout_and_values():
    m = _linear()
    w = _np(m.weight).copy()
    weight_param = m.weight
    out = prune.l1_unstructured(m, "weight", amount=0.25)
    assert out is m
    assert _names(m.named_parameters()) == ["bias", "weight_orig"]
    assert _names(m.named_buffers()) == ["weight_mask"]
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert m.weight_orig is weight_param
    assert "weight" not in m._parameters and "weight" in m.__dict__
    n_prune = round(0.25 * w.size)
    expect = np.ones(w.size)
    expect[np.argsort(np.abs(w).ravel(), kind="stable")[:n_prune]] = 0
    expect = expect.reshape(w.shape)
    np.testing.assert_array_equal(_np(m.weight_mask), expect, err_msg="l1 mask")
    np.testing.assert_allclose(_np(m.weight), w * expect, err_msg="pruned weight")
    np.testing.assert_allclose(_np(m.weight_orig), w, err_msg="orig is untouched")
    assert m.weight_mask.dtype == mt.float64 and not m.weight_mask.requires_grad
    hooks = list(m._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.L1Unstructured)
    assert hooks[0]._tensor_name == "weight" and hooks[0].amount == 0.25
    assert prune.is_pruned(m) and prune.is_pruned(nn.Sequential(m))
    assert not prune.is_pruned(_linear())


def test_int_amount_and_bias():
    m = _linear()
    prune.l1_unstructured(m, "bias", amount=2)
    assert int(m.bias_mask.sum()) == 1
    b = _np(m.bias_orig)
    np.testing.assert_array_equal(_np(m.bias_mask), np.abs(b) == np.abs(b).max())
    prune.l1_unstructured(m, "weight", amount=0)
    np.testing.assert_array_equal(_np(m.weight_mask), np.ones((3, 4)))


def test_l1_ties_prune_as_torch():
    # Ties straddle the boundary: which two of the four tied 1.0s go is torch's CPU topk's choice
    # (libstdc++'s selection: flat indices 1 and 5, checked against torch 2.13)
    m = nn.Linear(3, 2, bias=False)
    with mt.no_grad():
        m.weight.copy_(mt.tensor([[2.0, 1.0, -1.0], [3.0, 1.0, -1.0]]))
    prune.l1_unstructured(m, "weight", amount=2)
    np.testing.assert_array_equal(
        _np(m.weight_mask), [[1, 0, 1], [1, 1, 0]], err_msg="torch's choice on ties"
    )


def test_forward_pre_hook_recomputes_weight():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=5)
    with mt.no_grad():
        m.weight_orig.mul_(2.0)
    stale = _np(m.weight).copy()
    x = mt.tensor(np.random.default_rng(1).standard_normal((2, 4)))
    y = m(x)
    fresh = _np(m.weight_orig) * _np(m.weight_mask)
    np.testing.assert_allclose(_np(m.weight), fresh, err_msg="hook recomputed weight")
    assert not np.allclose(stale, fresh)
    np.testing.assert_allclose(_np(y), _np(x) @ fresh.T + _np(m.bias), err_msg="forward")


def test_gradients_reach_orig_through_mask():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=0.5)
    x = mt.tensor(np.random.default_rng(2).standard_normal((5, 4)))
    g = np.random.default_rng(3).standard_normal((5, 3))
    m(x).backward(mt.tensor(g))
    expect = (g.T @ _np(x)) * _np(m.weight_mask)
    np.testing.assert_allclose(_np(m.weight_orig.grad), expect, err_msg="grad of weight_orig")
    assert m.weight_mask.grad is None
    assert m.weight.grad_fn is not None  # a non-leaf computed from weight_orig

    method = m._forward_pre_hooks[next(iter(m._forward_pre_hooks))]
    mask = m.weight_mask

    def masked(w):
        return mask * w

    w = mt.tensor(np.random.default_rng(4).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(masked, (w,))
    assert gradgradcheck(masked, (w,))
    # prune() of a tie-free tensor: piecewise linear, gradient = the mask.
    assert gradcheck(lambda t: method.prune(t), (w,))


def test_iterative_pruning_container():
    m = _conv()
    prune.l1_unstructured(m, "weight", amount=0.3)
    first = _np(m.weight_mask).copy()
    prune.ln_structured(m, "weight", amount=2, n=2, dim=0)
    hooks = list(m._forward_pre_hooks.values())
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    container = hooks[0]
    assert len(container) == 2 and container._tensor_name == "weight"
    assert [type(h) for h in container] == [prune.L1Unstructured, prune.LnStructured]
    assert isinstance(container[1], prune.LnStructured)
    mask = _np(m.weight_mask)
    # channels pruned by the L2 norm of the original weight; earlier zeros stay zero
    norms = np.sqrt((_np(m.weight_orig) ** 2).sum(axis=(1, 2, 3)))
    dropped = np.argsort(norms, kind="stable")[:2]
    expect = first.copy()
    expect[dropped] = 0
    np.testing.assert_array_equal(mask, expect, err_msg="structured on top of unstructured")
    # a third round only prunes entries the mask still keeps
    kept_before = int(mask.sum())
    prune.l1_unstructured(m, "weight", amount=4)
    assert len(container) == 3 and list(m._forward_pre_hooks.values()) == [container]
    new = _np(m.weight_mask)
    assert int(new.sum()) == kept_before - 4
    assert np.all(new <= mask)
    np.testing.assert_allclose(_np(m.weight), _np(m.weight_orig) * new, err_msg="weight")
    assert _names(m.named_parameters()) == ["bias", "weight_orig"]


def test_iterative_unstructured_counts_among_unpruned():
    m = _linear(10, 10)
    prune.l1_unstructured(m, "weight", amount=0.5)
    assert int(m.weight_mask.sum()) == 50
    prune.l1_unstructured(m, "weight", amount=0.5)  # half of the remaining 50
    assert int(m.weight_mask.sum()) == 25
    prune.random_unstructured(m, "weight", amount=5)
    assert int(m.weight_mask.sum()) == 20
    with pytest.raises(ValueError, match="amount=21 should be smaller than the number"):
        prune.l1_unstructured(m, "weight", amount=21)


def test_structured_container_counts_remaining_channels():
    m = _conv()
    prune.ln_structured(m, "weight", amount=2, n=1, dim=0)
    prune.ln_structured(m, "weight", amount=0.5, n=1, dim=0)  # round(0.5 * 3) = 2 of 3 left
    kept = _np(m.weight_mask).reshape(5, -1).any(axis=1)
    assert int(kept.sum()) == 1
    norms = np.abs(_np(m.weight_orig)).sum(axis=(1, 2, 3))
    assert kept[np.argmax(norms)]


@pytest.mark.parametrize("n", [1, 2, float("inf"), -float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured_masks(n, dim):
    m = _conv(seed=5)
    w = _np(m.weight)
    prune.ln_structured(m, "weight", amount=0.4, n=n, dim=dim)
    a = np.moveaxis(np.abs(w), dim, 0).reshape(w.shape[dim], -1)
    norms = {1: a.sum(1), 2: np.sqrt((a**2).sum(1)), np.inf: a.max(1), -np.inf: a.min(1)}[n]
    k = round(0.4 * w.shape[dim])
    keep = np.ones(w.shape[dim])
    keep[np.argsort(norms, kind="stable")[:k]] = 0
    shape = [1] * 4
    shape[dim] = -1
    expect = np.broadcast_to(keep.reshape(shape), w.shape)
    np.testing.assert_array_equal(_np(m.weight_mask), expect, err_msg=f"n={n} dim={dim}")


def test_random_methods_counts_and_seed():
    m = _conv()
    prune.random_unstructured(m, "weight", amount=0.3)
    assert int((m.weight_mask == 0).sum()) == round(0.3 * m.weight_orig.numel())
    m = _conv()
    prune.random_structured(m, "weight", amount=1, dim=1)
    per_channel = _np(m.weight_mask).sum(axis=(0, 2, 3))
    assert sorted(per_channel.tolist()) == [0.0, 45.0]


def test_random_structured_counts():
    m = nn.Linear(6, 8)
    prune.random_structured(m, "weight", amount=3, dim=0)
    rows = _np(m.weight_mask).sum(axis=1)
    assert sorted(set(rows.tolist())) == [0.0, 6.0] and int((rows == 0).sum()) == 3
    prune.random_structured(m, "weight", amount=2, dim=0)  # among the 5 rows left
    assert int((_np(m.weight_mask).sum(axis=1) == 0).sum()) == 5
    masks = []
    for _ in range(2):
        mt.manual_seed(7)
        m = nn.Linear(6, 8)
        prune.random_unstructured(m, "weight", amount=10)
        masks.append(_np(m.weight_mask))
    np.testing.assert_array_equal(masks[0], masks[1], err_msg="seeded masks repeat")


def test_identity_and_custom_from_mask():
    m = _linear()
    prune.identity(m, "weight")
    np.testing.assert_array_equal(_np(m.weight_mask), np.ones((3, 4)))
    given = mt.tensor(np.random.default_rng(6).integers(0, 2, (3, 4)))
    prune.custom_from_mask(m, "weight", mask=given)
    np.testing.assert_array_equal(_np(m.weight_mask), _np(given), err_msg="custom mask")
    assert m.weight_mask.dtype == mt.float64
    prune.custom_from_mask(m, "weight", mask=mt.ones(3, 4, dtype=mt.bool))
    np.testing.assert_array_equal(_np(m.weight_mask), _np(given), err_msg="masks multiply")


def test_remove_makes_pruning_permanent():
    m = _linear()
    param = m.weight
    prune.l1_unstructured(m, "weight", amount=6)
    prune.l1_unstructured(m, "bias", amount=1)
    pruned = _np(m.weight).copy()
    assert prune.remove(m, "weight") is m
    assert _names(m.named_parameters()) == ["bias_orig", "weight"]
    assert _names(m.named_buffers()) == ["bias_mask"]
    assert isinstance(m.weight, nn.Parameter) and m.weight is param
    assert m.weight.requires_grad
    np.testing.assert_allclose(_np(m.weight), pruned, err_msg="values kept")
    assert all(h._tensor_name == "bias" for h in m._forward_pre_hooks.values())
    prune.remove(m, "bias")
    assert not prune.is_pruned(m) and len(m._forward_pre_hooks) == 0
    assert list(m.state_dict()) == ["weight", "bias"]
    with pytest.raises(ValueError, match="Parameter 'weight' of module Linear.*has to be pruned"):
        prune.remove(m, "weight")


def test_global_unstructured():
    a, b = _linear(4, 3, seed=1), _linear(5, 2, seed=2)
    prune.l1_unstructured(b, "weight", amount=3)
    params = [(a, "weight"), (b, "weight"), (a, "bias")]
    values = np.concatenate([_np(a.weight).ravel(), _np(b.weight).ravel(), _np(a.bias).ravel()])
    before = np.concatenate([np.ones(12), _np(b.weight_mask).ravel(), np.ones(3)])
    prune.global_unstructured(iter(params), prune.L1Unstructured, amount=0.2)
    alive = np.flatnonzero(before == 1)
    k = round(0.2 * alive.size)
    expect = before.copy()
    expect[alive[np.argsort(np.abs(values[alive]), kind="stable")[:k]]] = 0
    got = np.concatenate(
        [_np(a.weight_mask).ravel(), _np(b.weight_mask).ravel(), _np(a.bias_mask).ravel()]
    )
    np.testing.assert_array_equal(got, expect, err_msg="global mask")
    assert isinstance(a._forward_pre_hooks[next(iter(a._forward_pre_hooks))], prune.CustomFromMask)
    hook_b = list(b._forward_pre_hooks.values())[0]
    assert [type(h) for h in hook_b] == [prune.L1Unstructured, prune.CustomFromMask]


def test_global_unstructured_importance_scores():
    a = _linear(4, 3, seed=1)
    scores = mt.arange(12, dtype=mt.float64).view(3, 4)
    prune.global_unstructured(
        [(a, "weight")], prune.L1Unstructured, importance_scores={(a, "weight"): scores}, amount=5
    )
    np.testing.assert_array_equal(_np(a.weight_mask).ravel(), [0] * 5 + [1] * 7)
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=3, importance_scores=11 - mt.arange(12.0).view(3, 4))
    np.testing.assert_array_equal(_np(m.weight_mask).ravel(), [1] * 9 + [0] * 3)


def test_custom_pruning_method():
    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    m = _linear()
    EveryOther.apply(m, "bias")
    np.testing.assert_array_equal(_np(m.bias_mask), [0, 1, 0])
    with pytest.raises(TypeError, match="abstract"):
        prune.BasePruningMethod()


def test_state_dict_round_trip_pickle_deepcopy():
    m = _linear()
    prune.l1_unstructured(m, "weight", amount=4)
    sd = m.state_dict()
    assert list(sd) == ["bias", "weight_orig", "weight_mask"]
    other = _linear(seed=9)
    prune.identity(other, "weight")
    other.load_state_dict(sd)
    x = mt.tensor(np.random.default_rng(8).standard_normal((2, 4)))
    np.testing.assert_allclose(_np(other(x)), _np(m(x)), err_msg="loaded pruned module")
    twin = pickle.loads(pickle.dumps(m))
    np.testing.assert_allclose(_np(twin(x)), _np(m(x)), err_msg="pickle round trip")
    assert prune.is_pruned(twin)
    # as in torch, the computed (non-leaf) weight attribute refuses deepcopy
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(m)


def test_prune_method_directly():
    t = mt.tensor([[0.5, -3.0], [2.0, -0.1]])
    out = prune.L1Unstructured(amount=2).prune(t)
    np.testing.assert_allclose(_np(out), [[0.0, -3.0], [2.0, 0.0]], err_msg="prune()")
    scores = mt.tensor([[9.0, 0.0], [9.0, 9.0]])
    out = prune.L1Unstructured(amount=1).prune(t, importance_scores=scores)
    np.testing.assert_allclose(_np(out), [[0.5, 0.0], [2.0, -0.1]], err_msg="scores")
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.L1Unstructured(amount=1).prune(t, importance_scores=mt.ones(4))


def test_amount_validation_errors():
    with pytest.raises(TypeError, match="Invalid type for amount: a. Must be int or float."):
        prune.L1Unstructured("a")
    for bad in (-1, 1.5, -0.1):
        with pytest.raises(ValueError, match=rf"amount={bad} should either be a float"):
            prune.RandomUnstructured(bad)
    m = _linear()
    with pytest.raises(ValueError, match="amount=13 should be smaller than .*prune=12"):
        prune.l1_unstructured(m, "weight", amount=13)
    # the failed call leaves the parameter in place (re-registered last, as torch does)
    assert _names(m.named_parameters()) == ["bias", "weight"] and not prune.is_pruned(m)
    with pytest.raises(ValueError, match="amount=4 should be smaller .*prune=3"):
        prune.ln_structured(_linear(), "weight", amount=4, n=2, dim=0)


def test_structured_and_shape_errors():
    m = _linear()
    with pytest.raises(ValueError, match=r"only be applied to multidimensional .*\[3\]\) with 1"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(IndexError, match=r"Invalid index 2 for tensor of size .*\[3, 4\]"):
        prune.random_structured(m, "weight", amount=1, dim=2)
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(m, "weight", amount=1, importance_scores=mt.ones(4))
    with pytest.raises(AssertionError, match=r"default_mask shape .* must match self.mask shape"):
        prune.custom_from_mask(m, "weight", mask=mt.ones(4))
    assert _names(m.named_parameters()) == ["bias", "weight"]


def test_global_and_container_errors():
    m = _linear()
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        prune.global_unstructured([(m, "weight")], prune.L1Unstructured, [1], amount=1)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(m, "weight")], prune.LnStructured, amount=1, n=2, dim=0)
    a = prune.L1Unstructured(0.2)
    a._tensor_name = "w"
    c = prune.PruningContainer(a)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        c.add_pruning_method(3)
    b = prune.L1Unstructured(0.2)
    b._tensor_name = "x"
    with pytest.raises(ValueError, match="acting on the parameter named 'w'.*Found 'x'"):
        c.add_pruning_method(b)
    two = prune.PruningContainer(a, copy.copy(a))
    assert len(two) == 2 and two._tensor_name == "w"


def test_device(device):
    m = _linear(device=device)
    prune.l1_unstructured(m, "weight", amount=3)
    prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
    prune.random_unstructured(m, "bias", amount=1)
    prune.random_structured(m, "weight", amount=1, dim=1)
    prune.global_unstructured([(m, "weight"), (m, "bias")], prune.L1Unstructured, amount=2)
    x = mt.randn(2, 4, dtype=mt.float64, device=device)
    m(x).sum().backward()
    assert m.weight_orig.grad.device == m.weight_orig.device
    prune.remove(m, "weight")
    w = _np(m.weight)
    assert int((w == 0).sum()) >= 3 + 2
