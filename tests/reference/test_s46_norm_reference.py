"""Session 46's norm changes against torch: batch_norm with a weight, bias or running statistics
of C elements in other shapes (results, and the errors of its forward and backward), and
layer_norm's gradients from `.sum()` (an expanded gradient, now computed as the dense one)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _param_shapes(lib, rec):
    F = lib.nn.functional
    x = lib.arange(60.0).reshape(4, 3, 5) / 7 - 4
    w, b = lib.tensor([1.5, -0.5, 2.0]), lib.tensor([0.25, 1.0, -2.0])
    rm, rv = lib.tensor([0.1, -0.2, 0.3]), lib.tensor([1.5, 0.5, 2.0])
    for shape in [(3, 1), (1, 3), (1, 3, 1)]:
        for training in (True, False):
            tag = f"{shape}.{training}"
            rec(
                f"w{tag}", F.batch_norm(x, rm.clone(), rv.clone(), w.reshape(shape), None, training)
            )
            rec(
                f"b{tag}", F.batch_norm(x, rm.clone(), rv.clone(), None, b.reshape(shape), training)
            )
            rec.err(f"rm{tag}", lambda s=shape, t=training: F.batch_norm(
                x, rm.reshape(s), rv, None, None, t))  # fmt: skip
            rec.err(f"rv{tag}", lambda s=shape, t=training: F.batch_norm(
                x, rm, rv.reshape(s), None, None, t))  # fmt: skip
    rec("2d", F.batch_norm(x[:, :, 0].contiguous(), None, None, w.reshape(3, 1), b, True))
    cl = lib.arange(96.0).reshape(2, 3, 4, 4).contiguous(memory_format=lib.channels_last)
    rec("channels_last", F.batch_norm(cl, None, None, w.reshape(1, 3), b.reshape(3, 1), True))
    rec("half", F.batch_norm(x.half(), None, None, w.half().reshape(3, 1), None, True).float())
    rec.err("wrong numel", lambda: F.batch_norm(x, None, None, lib.ones(3, 2), None, True))
    rec.err("numel first", lambda: F.batch_norm(x, rm.reshape(3, 1), lib.ones(4), None, None, True))
    rec.err("strided", lambda: F.batch_norm(x[:, :, 0], None, None, w.reshape(3, 1), None, True))
    rec.err("strided stat", lambda: F.batch_norm(
        x, lib.zeros(6)[::2], rv, w.reshape(3, 1), None, True))  # fmt: skip
    for training in (True, False):
        for sliced in (x[:, :1], x[:, :1].contiguous()):
            rec.err(f"0-d stats {training} {sliced.is_contiguous()}", lambda s=sliced, t=training:
                    F.batch_norm(s, lib.tensor(0.0), lib.tensor(1.0), None, None, t))  # fmt: skip
        rec.err(f"strided stat {training}", lambda t=training: F.batch_norm(
            x[:, :, :2], rm.reshape(3, 1), rv, None, None, t))  # fmt: skip
    # backward: a weight that is not 1-D is refused, a bias gets a (C,) gradient
    xg = x.clone().requires_grad_()
    wg = w.reshape(3, 1).clone().requires_grad_()
    rec.err("bwd weight", lambda: F.batch_norm(xg, None, None, wg, None, True).sum().backward())
    bg = b.reshape(1, 3).clone().requires_grad_()
    rec.err("bwd bias", lambda: F.batch_norm(x, None, None, None, bg, True).sum().backward())
    rec.err("bwd x only", lambda: F.batch_norm(xg, None, None, None, bg.detach(), True)
            .pow(2).sum().backward())  # fmt: skip
    rec("x.grad", xg.grad)


def test_batch_norm_parameters_of_other_shapes_match_torch():
    want = run_program(_param_shapes, torch, rec=Rec())
    got = run_program(_param_shapes, minitorch, rec=Rec())
    assert_records_match(want, got, 1e-4)


@pytest.mark.parametrize("shape", [(32, 64, 128), (8, 16), (4, 3, 5000)])
@pytest.mark.parametrize("reduce", ["sum", "mean"])
def test_layer_norm_gradients_of_a_reduction_match_torch(shape, reduce):
    rng = np.random.default_rng(46)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    w = rng.standard_normal(shape[-1]).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    grads = {}
    for name, lib in (("torch", torch), ("minitorch", minitorch), ("float64", torch)):
        dt = lib.float64 if name == "float64" else lib.float32
        xt, wt, bt = (lib.tensor(a, dtype=dt, requires_grad=True) for a in (x, w, b))
        out = lib.nn.functional.layer_norm(xt, shape[-1:], wt, bt)
        getattr(out, reduce)().backward()
        grads[name] = [t.grad.double().numpy() for t in (xt, wt, bt)]
    for i, (t32, m32, t64) in enumerate(zip(*grads.values(), strict=True)):
        scale = np.abs(t64).max()
        err_m = np.abs(m32 - t64).max() / scale
        err_t = np.abs(t32 - t64).max() / scale
        # minitorch's float32 error within a small factor of torch's own (or tiny)
        assert err_m <= max(4 * err_t, 1e-6), (i, err_m, err_t)
