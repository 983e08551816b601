"""Old-checkpoint compatibility against torch: optimizer state dicts from older releases, the
legacy (non-zip) file format both ways, safe globals, and the _utils.collate registry."""

from __future__ import annotations

import argparse
import copy
import io

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

OPTIMIZERS = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "ASGD",
    "LBFGS",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
]
NEWER = {
    "maximize",
    "foreach",
    "capturable",
    "differentiable",
    "fused",
    "decoupled_weight_decay",
    "amsgrad",
    "nesterov",
    "centered",
}
SCALARS = {"ASGD": ("step", "eta", "mu"), "NAdam": ("step", "mu_product")}


def _closure(lib, opt, p):
    def closure():
        opt.zero_grad()
        loss = (p**4 + p * p - p).sum()
        loss.backward()
        return loss

    return closure


def _run(lib, name, old_groups: bool, number_state: bool):
    """Two steps, a state dict made old, a fresh optimizer loading it, two more steps."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
    opt = getattr(lib.optim, name)([p], lr=0.1)
    for _ in range(2):
        opt.step(_closure(lib, opt, p))
    sd = copy.deepcopy(opt.state_dict())
    if old_groups:
        # torch's Adafactor reads `maximize` but does not fill it in: keep it
        drop = NEWER - {"maximize"} if name == "Adafactor" else NEWER
        sd["param_groups"] = [
            {k: v for k, v in g.items() if k not in drop} for g in sd["param_groups"]
        ]
    if number_state and name not in ("SGD", "LBFGS"):
        for key in SCALARS.get(name, ("step",)):
            value = sd["state"][0][key].item()
            sd["state"][0][key] = int(value) if key == "step" else value
    opt = getattr(lib.optim, name)([p], lr=0.1)
    opt.load_state_dict(sd)
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    scalars = {
        k: (type(v).__name__, str(v.dtype).split(".")[-1])
        for k, v in opt.state[p].items()
        if k in SCALARS.get(name, ("step",))
    }
    for _ in range(2):
        opt.step(_closure(lib, opt, p))
    return groups, scalars, p.detach().numpy()


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_old_optimizer_state_dicts_load_as_in_torch(name):
    want = _run(torch, name, old_groups=True, number_state=True)
    got = _run(mt, name, old_groups=True, number_state=True)
    assert got[0] == want[0]
    assert got[1] == want[1]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-10, atol=1e-12, err_msg=name)


def test_lr_scheduler_old_base_class_as_in_torch():
    def run(lib):
        class Warmup(lib.optim.lr_scheduler._LRScheduler):
            def get_lr(self):
                return [b * min(1.0, (self.last_epoch + 1) / 4) for b in self.base_lrs]

        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=0.1)
        sched = Warmup(opt)
        out = []
        for _ in range(5):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return out, type(sched).__mro__[1].__name__

    assert run(mt) == run(torch)


def _state(lib):
    base = lib.arange(10.0)
    return {
        "base": base,
        "view": base[2:5],
        "t": lib.arange(6.0).reshape(2, 3).t(),
        "i": lib.tensor([1, -2]),
        "h": lib.ones(3, dtype=lib.bfloat16),
        "p": lib.nn.Parameter(lib.ones(2, 2)),
        "n": 5,
    }


def _same(got, want):
    assert sorted(got) == sorted(want)
    for key, w in want.items():
        g = got[key]
        if isinstance(w, torch.Tensor):
            assert type(g).__name__ == type(w).__name__, key
            assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1], key
            assert tuple(g.stride()) == tuple(w.stride()), key
            np.testing.assert_array_equal(
                g.detach().float().numpy(), w.detach().float().numpy(), err_msg=key
            )
        else:
            assert g == w, key


def test_torch_reads_minitorchs_legacy_files():
    buf = io.BytesIO()
    mt.save(_state(mt), buf, _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        buf.seek(0)
        _same(torch.load(buf, weights_only=weights_only), _state(torch))
    buf.seek(0)
    out = torch.load(buf)
    assert out["view"].untyped_storage().data_ptr() == out["base"].untyped_storage().data_ptr()


def test_minitorch_reads_torchs_legacy_files():
    buf = io.BytesIO()
    torch.save(_state(torch), buf, _use_new_zipfile_serialization=False)
    for weights_only in (True, False):
        buf.seek(0)
        out = mt.load(buf, weights_only=weights_only)
        _same(out, _state(torch))
    out["base"][3] = 100.0
    assert out["view"][1].item() == 100.0


def test_safe_globals_load_a_torch_checkpoint():
    buf = io.BytesIO()
    torch.save({"args": argparse.Namespace(lr=0.1), "w": torch.ones(2)}, buf)
    try:
        with mt.serialization.safe_globals([argparse.Namespace]):
            buf.seek(0)
            out = mt.load(buf)
        with torch.serialization.safe_globals([argparse.Namespace]):
            buf.seek(0)
            want = torch.load(buf)
    finally:
        mt.serialization.clear_safe_globals()
    assert out["args"] == want["args"]
    buf.seek(0)
    assert mt.serialization.get_unsafe_globals_in_checkpoint(buf) == ["argparse.Namespace"]
    buf.seek(0)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(buf) == ["argparse.Namespace"]


class Point:
    def __init__(self, v):
        self.v = v


def test_collate_fn_map_as_in_torch():
    def run(lib):
        C = lib.utils.data._utils.collate

        def collate_point(batch, *, collate_fn_map=None):
            return lib.tensor([p.v for p in batch])

        fn_map = {**C.default_collate_fn_map, Point: collate_point}
        batch = [
            {"p": Point(1), "x": lib.ones(2), "f": 1.5, "s": "a"},
            {"p": Point(2), "x": lib.zeros(2), "f": 2.5, "s": "b"},
        ]
        out = C.collate(batch, collate_fn_map=fn_map)
        return {
            k: (v.tolist(), str(v.dtype).split(".")[-1]) if hasattr(v, "dtype") else v
            for k, v in out.items()
        }

    assert run(mt) == run(torch)
