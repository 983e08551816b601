"""minitorch.amp.GradScaler: scaling, unscale_/clip, skip-on-inf, the scale's schedule, state."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import minitorch
from minitorch import nn
from minitorch._backend.strict import count_transfers


def _setup(device="cpu", **kwargs):
    minitorch.manual_seed(0)
    w = minitorch.randn(3, device=device).requires_grad_()
    opt = minitorch.optim.SGD([w], lr=0.1)
    return w, opt, minitorch.amp.GradScaler(device, **kwargs)


def _loss(w, poison=False):
    loss = (w * w).sum()
    return loss * float("inf") if poison else loss


def test_scale_multiplies_tensors_and_iterables():
    _, _, scaler = _setup(init_scale=8.0)
    t = minitorch.tensor([1.0, 2.0])
    np.testing.assert_array_equal(scaler.scale(t).numpy(), [8.0, 16.0])
    out = scaler.scale([t, (t, t)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[1][0].numpy(), [8.0, 16.0])
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3.0)
    assert scaler._scale.dtype is minitorch.float32 and scaler._scale.shape == ()
    assert scaler._growth_tracker.dtype is minitorch.int32


def test_unscale_then_clip_then_step():
    w, opt, scaler = _setup(init_scale=1024.0)
    w0 = w.detach().clone()
    scaler.scale(_loss(w)).backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * w0.numpy() * 1024, rtol=1e-6)
    scaler.unscale_(opt)
    np.testing.assert_allclose(w.grad.numpy(), 2 * w0.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    nn.utils.clip_grad_norm_([w], 0.5)
    g = w.grad.detach().clone()
    assert scaler.step(opt) is None  # SGD.step returns None; the step ran
    np.testing.assert_allclose(w.detach().numpy(), (w0 - 0.1 * g).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step\\(\\)"):
        scaler.unscale_(opt)
    scaler.update()
    assert scaler.get_scale() == 1024.0 and scaler._get_growth_tracker() == 1


def test_step_is_skipped_and_the_scale_backs_off_on_inf():
    w, opt, scaler = _setup(init_scale=16.0)
    w0 = w.detach().clone()
    scaler.scale(_loss(w, poison=True)).backward()
    assert scaler.step(opt) is None
    np.testing.assert_array_equal(w.detach().numpy(), w0.numpy())
    scaler.update()
    assert scaler.get_scale() == 8.0 and scaler._get_growth_tracker() == 0


def test_nan_gradient_also_skips():
    w, opt, scaler = _setup()
    w0 = w.detach().clone()
    scaler.scale(_loss(w)).backward()
    w.grad[1] = float("nan")
    scaler.step(opt)
    np.testing.assert_array_equal(w.detach().numpy(), w0.numpy())


def test_growth_after_growth_interval_clean_steps():
    w, opt, scaler = _setup(init_scale=4.0, growth_interval=2, growth_factor=3.0)
    scales = []
    for _ in range(5):
        opt.zero_grad()
        scaler.scale(_loss(w)).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    assert scales == [4.0, 12.0, 12.0, 36.0, 36.0]


def test_update_with_a_new_scale():
    w, opt, scaler = _setup()
    scaler.scale(_loss(w)).backward()
    scaler.step(opt)
    scaler.update(2.0)
    assert scaler.get_scale() == 2.0
    scaler.scale(_loss(w))
    scaler.update(minitorch.tensor(5.0))
    assert scaler.get_scale() == 5.0
    # torch copies the tensor into its 0-d scale: shape (1,) does not broadcast there
    with pytest.raises(RuntimeError, match=r"output with shape \[\] doesn't match the broadcast"):
        scaler.update(minitorch.tensor([4.0]))
    with pytest.raises(AssertionError, match="new_scale should be a float"):
        scaler.update(minitorch.tensor([1.0, 2.0]))


def test_misuse_errors():
    w, opt, scaler = _setup()
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        scaler.step(opt)
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0"):
        minitorch.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0"):
        minitorch.amp.GradScaler("cpu", backoff_factor=1.0)
    scaler.scale(_loss(w)).backward()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    h = minitorch.ones(2, dtype=minitorch.float16, requires_grad=True)
    h.grad = minitorch.ones(2, dtype=minitorch.float16)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(minitorch.optim.SGD([h], lr=0.1))


def test_state_dict_and_load_state_dict():
    w, opt, scaler = _setup(init_scale=32.0, growth_interval=7)
    scaler.scale(_loss(w)).backward()
    scaler.step(opt)
    scaler.update()
    sd = scaler.state_dict()
    assert sd == {
        "scale": 32.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 7,
        "_growth_tracker": 1,
    }
    fresh = minitorch.amp.GradScaler("cpu")
    fresh.load_state_dict(sd)
    assert fresh.state_dict() == sd
    assert fresh.scale(minitorch.tensor(1.0)).item() == 32.0
    restored = pickle.loads(pickle.dumps(scaler))
    assert restored.state_dict() == sd
    off = minitorch.amp.GradScaler("cpu", enabled=False)
    assert off.state_dict() == {}
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        fresh.load_state_dict({})


def test_disabled_scaler_is_a_pass_through():
    w, opt, scaler = _setup(enabled=False)
    loss = _loss(w)
    assert scaler.scale(loss) is loss and not scaler.is_enabled()
    loss.backward()
    scaler.unscale_(opt)
    w0 = w.detach().clone()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(w.detach().numpy(), (w0 - 0.1 * 2 * w0).numpy(), rtol=1e-6)
    assert scaler.get_scale() == 1.0


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_cuda_scaler_without_cuda_warns_and_disables():
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        assert not minitorch.amp.GradScaler().is_enabled()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        scaler = minitorch.cuda.amp.GradScaler()
    assert w[0].category is FutureWarning and "torch.cuda.amp.GradScaler" in str(w[0].message)
    assert not scaler.is_enabled()
    with pytest.warns(FutureWarning, match="torch.cpu.amp.GradScaler"):
        assert minitorch.cpu.amp.GradScaler().is_enabled()


def test_training_step_on_a_device_reads_back_only_the_inf_flag():
    """autocast + GradScaler on the strict device: one device-to-host read per step, in step()."""
    minitorch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3)).to("strict")
    opt = minitorch.optim.Adam(model.parameters(), lr=1e-2)
    scaler = minitorch.amp.GradScaler("strict", growth_interval=2)
    x = minitorch.randn(16, 5, device="strict")
    y = minitorch.randint(0, 3, (16,), device="strict")
    with count_transfers() as transfers:
        for _ in range(3):
            with minitorch.autocast(device_type="strict", dtype=minitorch.float16):
                out = model(x)
                loss = nn.functional.cross_entropy(out, y)
            assert out.dtype is minitorch.float16 and loss.dtype is minitorch.float32
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
    assert transfers.count == 3
    assert all(p.dtype is minitorch.float32 for p in model.parameters())
    assert scaler.get_scale() == 2.0**17  # grown once, after two clean steps


@pytest.mark.skipif(minitorch.cuda.is_available(), reason="checks the CPU-only behaviour")
@pytest.mark.filterwarnings("ignore:.*CUDA is not available")
@pytest.mark.parametrize("use_amp", [True, False])
def test_a_cuda_amp_script_runs_unchanged_without_cuda(use_amp):
    # torch's recipe verbatim; without CUDA both autocast and the scaler switch themselves off
    torch = minitorch
    minitorch.manual_seed(0)
    model = nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
    assert out.dtype is torch.float32
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    w0 = model.weight.detach().clone()
    scaler.step(opt)
    scaler.update()
    assert not np.array_equal(model.weight.detach().numpy(), w0.numpy())
