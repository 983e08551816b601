"""Differences found by the fifth drop-in sweep of Trainer-style training scripts: GradScaler's
private per-device inf checks, Generator.clone_state, and the storage offset of loaded views."""

from __future__ import annotations

import io

import numpy as np
import pytest

import minitorch

# --- GradScaler._found_inf_per_device / _check_inf_per_device / _maybe_opt_step


def _scaled_sgd(init_scale=4.0, enabled=True):
    p = minitorch.nn.Parameter(minitorch.ones(3))
    opt = minitorch.optim.SGD([p], lr=0.1)
    scaler = minitorch.amp.GradScaler("cpu", init_scale=init_scale, enabled=enabled)
    return p, opt, scaler


def _flags(d: dict) -> dict:
    return {str(k): (v.dtype, tuple(v.shape), v.item()) for k, v in d.items()}


def test_found_inf_per_device_after_unscale():
    p, opt, scaler = _scaled_sgd()
    assert scaler._found_inf_per_device(opt) == {}  # nothing recorded yet, as torch
    scaler.scale((p * 2).sum()).backward()
    scaler.unscale_(opt)
    found = scaler._found_inf_per_device(opt)
    assert _flags(found) == {"cpu": (minitorch.float32, (), 0.0)}
    assert all(isinstance(k, minitorch.device) for k in found)
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 2.0, 2.0], err_msg="grad unscaled")
    scaler.step(opt)
    assert _flags(scaler._found_inf_per_device(opt)) == {"cpu": (minitorch.float32, (), 0.0)}
    np.testing.assert_allclose(p.detach().numpy(), [0.8, 0.8, 0.8], rtol=1e-6)
    scaler.update()
    assert scaler._found_inf_per_device(opt) == {}  # update() starts a new iteration


def test_found_inf_per_device_flags_inf_and_skips_the_step():
    p, opt, scaler = _scaled_sgd()
    scaler.scale((p * 2).sum()).backward()
    p.grad = minitorch.tensor([1.0, float("inf"), 2.0])
    scaler.unscale_(opt)
    assert _flags(scaler._found_inf_per_device(opt)) == {"cpu": (minitorch.float32, (), 1.0)}
    assert scaler.step(opt) is None
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 1.0, 1.0])


def test_check_inf_per_device_records_without_unscaling():
    p, opt, scaler = _scaled_sgd()
    with pytest.raises(AssertionError, match="Attempted _check_inf_per_device but _scale is None"):
        scaler._check_inf_per_device(opt)
    scaler.scale((p * 2).sum()).backward()
    p.grad = minitorch.tensor([8.0, float("nan"), 2.0])
    found = scaler._check_inf_per_device(opt)
    assert found is scaler._found_inf_per_device(opt)
    assert _flags(found) == {"cpu": (minitorch.float32, (), 1.0)}
    np.testing.assert_array_equal(p.grad.numpy(), [8.0, np.nan, 2.0])  # not divided by 4
    state = scaler._per_optimizer_states[id(opt)]
    assert scaler._maybe_opt_step(opt, state) is None
    np.testing.assert_array_equal(p.detach().numpy(), [1.0, 1.0, 1.0])
    p.grad = minitorch.tensor([1.0, 1.0, 1.0])
    assert _flags(scaler._check_inf_per_device(opt)) == {"cpu": (minitorch.float32, (), 0.0)}
    assert scaler._maybe_opt_step(opt, state) is None  # SGD.step returns None
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9, 0.9], rtol=1e-6)
    with pytest.raises(KeyError):
        scaler._maybe_opt_step(opt, {})


def test_private_inf_checks_when_disabled_raise_as_torch():
    p, opt, scaler = _scaled_sgd(enabled=False)
    with pytest.raises(AttributeError):
        scaler._found_inf_per_device(opt)
    with pytest.raises(AttributeError):
        scaler._check_inf_per_device(opt)
    p.grad = minitorch.ones(3)
    scaler._maybe_opt_step(opt, {"found_inf_per_device": {}})
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 0.9, 0.9], rtol=1e-6)


# --- Generator.clone_state and the offset / graph-safe methods


def test_generator_clone_state_continues_the_same_stream():
    g = minitorch.Generator().manual_seed(3)
    fresh = g.clone_state()  # nothing drawn yet
    np.testing.assert_array_equal(
        minitorch.rand(4, generator=g).numpy(), minitorch.rand(4, generator=fresh).numpy()
    )
    minitorch.randn(5, generator=g)
    c = g.clone_state()
    assert c is not g and isinstance(c, minitorch.Generator)
    assert c.initial_seed() == 3 and c.device == g.device
    np.testing.assert_array_equal(
        minitorch.randn(7, generator=g).numpy(), minitorch.randn(7, generator=c).numpy()
    )
    np.testing.assert_array_equal(
        minitorch.randint(0, 100, (9,), generator=g).numpy(),
        minitorch.randint(0, 100, (9,), generator=c).numpy(),
    )
    # independent afterwards: drawing from one does not advance the other
    before = c.get_state()
    minitorch.rand(3, generator=g)
    assert minitorch.equal(c.get_state(), before)


def test_generator_offset_and_graphsafe_raise_on_cpu_as_torch():
    g = minitorch.Generator()
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        g.get_offset()
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        g.set_offset(0)
    with pytest.raises(RuntimeError, match="manual_offset expected a long, but got float"):
        g.set_offset(1.5)
    with pytest.raises(NotImplementedError, match="graphsafe_get_state is not supported"):
        g.graphsafe_get_state()
    with pytest.raises(NotImplementedError, match="graphsafe_set_state is not supported"):
        g.graphsafe_set_state(minitorch.Generator())
    with pytest.raises(TypeError, match="expected a Generator, but got int"):
        g.graphsafe_set_state(3)


# --- torch.load keeps the storage offset of a saved view


def _round_trip(obj, **kwargs):
    buf = io.BytesIO()
    minitorch.save(obj, buf)
    buf.seek(0)
    return minitorch.load(buf, **kwargs)


@pytest.mark.parametrize("weights_only", [True, False])
def test_loaded_views_keep_their_storage_offset(weights_only):
    w = minitorch.arange(12.0)
    m = w.view(3, 4)
    r = _round_trip(
        {"a": w, "b": w[3:6], "d": m[1:, ::2], "e": w[:4], "g": w[2:3].expand(4)},
        weights_only=weights_only,
    )
    offsets = {k: (v.storage_offset(), v.stride()) for k, v in r.items()}
    assert offsets == {
        "a": (0, (1,)),
        "b": (3, (1,)),
        "d": (4, (4, 2)),
        "e": (0, (1,)),
        "g": (2, (0,)),
    }
    np.testing.assert_array_equal(r["b"].numpy(), [3.0, 4.0, 5.0])
    np.testing.assert_array_equal(r["d"].numpy(), [[4.0, 6.0], [8.0, 10.0]])
    np.testing.assert_array_equal(r["g"].numpy(), [2.0, 2.0, 2.0, 2.0])
    # as_strided addresses the whole storage from its start, as torch's
    np.testing.assert_array_equal(r["b"].as_strided((2,), (1,), 0).numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(r["b"].as_strided((2,), (1,)).numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(r["e"].as_strided((2,), (1,), 10).numpy(), [10.0, 11.0])
    np.testing.assert_array_equal(r["d"].as_strided((2,), (2,)).numpy(), [4.0, 6.0])
    assert r["b"].untyped_storage().nbytes() == 48
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 48"):
        r["b"].as_strided((13,), (1,), 0)
    # still one memory, with a version counter of its own per tensor (as torch's)
    r["b"][0] = 100.0
    assert r["a"][3].item() == 100.0 and r["e"]._version == 0
    assert r["b"]._version > 0 and r["a"]._version == 0


def test_loaded_view_is_differentiable_and_copyable():
    w = minitorch.arange(12.0)
    with minitorch.no_grad():  # torch.load under no_grad is common
        r = _round_trip({"a": w, "b": w[3:6]})
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = r["b"]
    b.mul_(x)
    (b * b).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [18.0, 64.0, 150.0], err_msg="d/dx (w x)^2")
    np.testing.assert_array_equal(r["a"].numpy()[3:6], [3.0, 8.0, 15.0])
    e = _round_trip({"a": w, "e": w[4:8]})["e"].requires_grad_()
    (e * e).sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), [8.0, 10.0, 12.0, 14.0])
    # saving the loaded tensors again keeps offsets and sharing
    r2 = _round_trip(r)
    assert r2["b"].storage_offset() == 3
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        r2["b"][1] = -1.0  # b was saved requiring grad: a leaf again, as torch refuses too
    with minitorch.no_grad():
        r2["b"][1] = -1.0
    assert r2["a"][4].item() == -1.0


def test_loaded_gradcheck_through_view_of_storage():
    w = minitorch.arange(6, dtype=minitorch.float64)
    r = _round_trip({"a": w, "b": w[1:4]})
    b = r["b"].requires_grad_()
    assert minitorch.autograd.gradcheck(lambda t: (t * t).sin(), (b,))
    assert minitorch.autograd.gradgradcheck(lambda t: (t * t).sin(), (b,))
