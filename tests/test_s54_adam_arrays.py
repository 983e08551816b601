"""Session 54, lead: Adam's and AdamW's update on arrays (NOTE [ Updates on arrays ] in
minitorch/optim/optimizer.py). Where every operand is a plain CPU float32/float64 tensor and the
hyperparameters are numbers, the update makes the tensor ops' NumPy calls on the arrays: the
parameters, the moments, the step counts and every version counter must be the tensor path's,
bit for bit, over several steps; anything else must take the tensor path. Each test checks the
route it means was taken."""

import contextlib

import numpy as np
import pytest

import minitorch as torch
from minitorch.optim import adam
from minitorch.optim.optimizer import update_arrays
from tests._fastpath import full_path

CONFIGS = {
    "adam": (torch.optim.Adam, {}),
    "adam betas": (torch.optim.Adam, {"betas": (0.8, 0.99), "eps": 1e-6, "lr": 0.05}),
    "adam beta1 0": (torch.optim.Adam, {"betas": (0.0, 0.999)}),
    "adam maximize": (torch.optim.Adam, {"maximize": True}),
    "adam foreach": (torch.optim.Adam, {"foreach": True}),
    "adamw": (torch.optim.AdamW, {}),
    "adamw decay": (torch.optim.AdamW, {"weight_decay": 0.3, "lr": 0.02}),
    "adam decoupled": (torch.optim.Adam, {"weight_decay": 0.1, "decoupled_weight_decay": True}),
}
FALLBACKS = {
    "amsgrad": (torch.optim.Adam, {"amsgrad": True}),
    "coupled decay": (torch.optim.Adam, {"weight_decay": 0.1}),
    "tensor lr": (torch.optim.Adam, {"lr": torch.tensor(0.01)}),
}


class _Routes:
    def __init__(self, monkeypatch):
        self.calls = 0
        orig = adam._update_arrays

        def spy(*args, **kwargs):
            self.calls += 1
            return orig(*args, **kwargs)

        monkeypatch.setattr(adam, "_update_arrays", spy)


def _model(dtype):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3))
    return model.to(dtype)


def _train(make, kwargs, dtype, steps=6):
    """Parameters, state and versions after `steps` steps on fixed data."""
    model = _model(dtype)
    opt = make(model.parameters(), **kwargs)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(7, 5, generator=g, dtype=dtype)
    for _ in range(steps):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    out = []
    for p in model.parameters():
        st = opt.state[p]
        out.append(
            (
                p.detach().numpy().tobytes(),
                p._version,
                st["exp_avg"].numpy().tobytes(),
                st["exp_avg_sq"].numpy().tobytes(),
                st["exp_avg"]._version,
                st["exp_avg_sq"]._version,
                float(st["step"]),
                st["step"]._version,
            )
        )
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_array_update_is_the_tensor_paths(name, dtype, monkeypatch):
    make, kwargs = CONFIGS[name]
    routes = _Routes(monkeypatch)
    fast = _train(make, kwargs, dtype)
    assert routes.calls == 6 * 4  # every parameter, every step
    with full_path():  # (the update on arrays is off with the fast paths)
        full = _train(make, kwargs, dtype)
    assert routes.calls == 6 * 4
    assert fast == full


@pytest.mark.parametrize("name", list(FALLBACKS))
def test_other_settings_take_the_tensor_path(name, monkeypatch):
    make, kwargs = FALLBACKS[name]
    routes = _Routes(monkeypatch)
    _train(make, kwargs, torch.float32, steps=2)
    assert routes.calls == 0


def test_a_half_parameter_takes_the_tensor_path(monkeypatch):
    routes = _Routes(monkeypatch)
    half = torch.nn.Parameter(torch.ones(3, dtype=torch.float16))
    half.grad = torch.full((3,), 0.5, dtype=torch.float16)
    torch.optim.Adam([half], lr=0.1).step()
    assert routes.calls == 0
    np.testing.assert_array_equal(half.detach().float().numpy(), np.full(3, 0.9, np.float16))


def test_views_read_only_and_overlapping_arrays_are_refused():
    plain = [torch.ones(2, 3) for _ in range(4)]
    with torch.no_grad():
        assert update_arrays(*plain) is not None
        view = torch.ones(4, 3)[1:3]
        assert update_arrays(view, *plain[1:]) is None
        assert update_arrays(plain[0], plain[1], view, plain[3]) is None
        read_only = torch.ones(2, 3)
        read_only._data.flags.writeable = False
        assert update_arrays(read_only, *plain[1:]) is None
        assert update_arrays(*plain[:3], read_only) is None  # a state written
        assert update_arrays(plain[0], read_only, *plain[2:]) is not None  # a gradient read
        overlapping = torch.from_numpy(np.broadcast_to(np.ones(3, np.float32), (2, 3)).copy())
        overlapping._data = np.lib.stride_tricks.as_strided(overlapping._data, strides=(0, 4))
        assert update_arrays(overlapping, *plain[1:]) is None
        assert update_arrays(plain[0], overlapping, *plain[2:]) is not None  # (only read)
        assert update_arrays(plain[0], torch.ones(3, 2), *plain[2:]) is None
        assert update_arrays(plain[0], torch.ones(2, 3, dtype=torch.float64), *plain[2:]) is None
    assert update_arrays(*plain) is None  # grad mode on: a graph may be recorded


def test_a_parameter_made_float64_under_its_float32_state_gets_the_tensor_paths_error(
    monkeypatch,
):
    routes = _Routes(monkeypatch)
    p = torch.nn.Parameter(torch.ones(2, 3))
    p.grad = torch.ones(2, 3)
    opt = torch.optim.Adam([p], lr=0.1)
    opt.step()
    assert routes.calls == 1
    p.data = p.data.double()
    p.grad = torch.ones(2, 3, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="dtype"):  # lerp_'s, as torch's
        opt.step()
    assert routes.calls == 1


def test_the_update_under_a_profile_takes_the_tensor_ops(monkeypatch):
    routes = _Routes(monkeypatch)
    model = _model(torch.float32)
    opt = torch.optim.Adam(model.parameters())
    model(torch.ones(2, 5)).sum().backward()
    with torch.profiler.profile() as prof:
        opt.step()
    assert routes.calls == 0
    names = {e.name for e in prof.events()}
    assert {"Sqrt", "Mul"} <= names  # the tensor path's ops, which a profile sees


def test_a_zero_dim_parameter_takes_the_tensor_path_beside_the_others(monkeypatch):
    routes = _Routes(monkeypatch)
    results = []
    for route in (contextlib.nullcontext(), full_path()):
        scale = torch.nn.Parameter(torch.tensor(1.5))
        w = torch.nn.Parameter(torch.ones(3))
        opt = torch.optim.Adam([scale, w], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (scale * w * torch.arange(3.0)).sum().backward()
            with route:
                opt.step()
        results.append((scale.item(), scale._version, w.detach().numpy().tobytes(), w._version))
    assert routes.calls == 3  # w's steps only
    assert results[0] == results[1]
