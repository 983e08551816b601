"""Session 28 (helper ctrl): library fixes found by running robotics and control programs
(rotations, kinematics Jacobians, LQR/iLQR/DDP, MPC, Kalman filters, collocation, pose graphs)
against torch 2.13; the values below are torch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch._backend.strict import count_transfers

# exp of a skew-symmetric matrix with 1-norm 11 > theta_13: the scaling-and-squaring branch
_SKEW = [[0.0, -8.0, 3.0], [8.0, 0.0, -1.0], [-3.0, 1.0, 0.0]]
_EXP = [
    [-0.65771742243385911, -0.61338050847578462, 0.43723236848265234],
    [0.74963125552514320, -0.47604975970138130, 0.45981475294737606],
    [-0.07389704301769628, 0.63019122344749179, 0.77291542158440540],
]
_GRAD_ROW0 = [
    [-0.44083007167298144, 0.19355992815216400, 0.12884462049505233],
    [-0.08498503802105153, -0.53268353015089942, -0.00649159538578539],
    [0.10197237319020389, 0.26171020795890176, 0.13964803939688991],
]


def test_matrix_exp_scaling_reads_the_device_once():
    # the scaling exponent is worked out from the one norm read to the host; it used to go
    # back to the device (xp.asarray) and be read again, a second synchronisation per call
    for device in ("cpu", "strict"):
        a = mt.tensor(_SKEW, dtype=mt.float64, device=device, requires_grad=True)
        with count_transfers() as fwd:
            e = mt.linalg.matrix_exp(a)
        with count_transfers() as bwd:
            e[0].sum().backward()
        if device == "strict":
            assert (fwd.count, bwd.count) == (1, 1)
        np.testing.assert_allclose(e.detach().cpu().numpy(), _EXP, rtol=0, atol=1e-14)
        np.testing.assert_allclose(a.grad.cpu().numpy(), _GRAD_ROW0, rtol=0, atol=1e-14)


def _deprecations(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except (RuntimeError, NotImplementedError):
            pass
    return [str(w.message) for w in caught if w.category is DeprecationWarning]


_SWITCH = "Please switch to `torch.compile` or `torch.export`."
_COMPILE = "Please use `torch.compile` instead."


def test_jit_entry_points_give_torchs_deprecation_warnings():
    # Isaac Gym style @torch.jit.script helpers and TorchScript deployment code: torch 2.13
    # deprecates every entry point (one warning per call here; torch repeats some internally)
    jit = mt.jit
    lin = mt.nn.Linear(2, 2)

    def f(x):
        return x * 2

    x = mt.zeros(1, 2)
    assert _deprecations(lambda: jit.script(f)) == [f"`torch.jit.script` is deprecated. {_SWITCH}"]
    assert _deprecations(lambda: jit.script(mt.nn.Linear)) == [
        f"`torch.jit.script` is deprecated. {_SWITCH}"
    ]
    assert _deprecations(lambda: jit.trace(f, (x,))) == [
        f"`torch.jit.trace` is deprecated. {_SWITCH}"
    ]
    assert _deprecations(lambda: jit.trace(lin, (x,))) == [
        f"`torch.jit.trace` is deprecated. {_SWITCH}",
        f"`torch.jit.trace_method` is deprecated. {_SWITCH}",
    ]
    assert _deprecations(lambda: jit.trace_module(lin, {"forward": x})) == [
        f"`torch.jit.trace_method` is deprecated. {_SWITCH}"
    ]
    assert _deprecations(lambda: jit.script_method(f)) == [
        f"`torch.jit.script_method` is deprecated. {_SWITCH}"
    ]
    export = "Please switch to `torch.export`."
    assert _deprecations(lambda: jit.save(lin, "x.pt")) == [
        f"`torch.jit.save` is deprecated. {export}"
    ]
    assert _deprecations(lambda: jit.load("x.pt")) == [f"`torch.jit.load` is deprecated. {export}"]
    for name, call in [
        ("fork", lambda: jit.fork(f, x)),
        ("interface", lambda: jit.interface(type("I", (), {}))),
        ("set_fusion_strategy", lambda: jit.set_fusion_strategy(jit.set_fusion_strategy([]))),
    ]:
        assert _deprecations(call)[0] == f"`torch.jit.{name}` is deprecated. {_COMPILE}"
    fut = jit.fork(f, x)
    assert _deprecations(lambda: jit.wait(fut)) == [f"`torch.jit.wait` is deprecated. {_COMPILE}"]
    assert _deprecations(lambda: jit.ignore(f)) == []
    assert _deprecations(lambda: jit.is_scripting()) == []


def test_jit_freeze_wants_eval_mode_and_optimize_for_inference_freezes():
    jit = mt.jit
    m = mt.nn.Linear(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(RuntimeError) as e:
            jit.freeze(m)
        assert str(e.value) == (
            "Freezing is currently only implemented for modules in eval mode. Please call .eval() "
            "on your module before freezing."
        )
        assert jit.freeze(m.eval()) is m
        m.train()
        # torch's optimize_for_inference puts the module in eval mode and freezes it first
        assert _deprecations(lambda: jit.optimize_for_inference(m)) == [
            f"`torch.jit.optimize_for_inference` is deprecated. {_COMPILE}",
            f"`torch.jit.freeze` is deprecated. {_COMPILE}",
        ]
        assert m.training is False


def test_atan2_second_derivatives_at_the_origin_are_nan_as_torchs():
    # atan2(0, 0) = 0 with a zero gradient (torch's convention), and NaN second derivatives:
    # torch's backward divides by a^2 + b^2 in the branch it masks off. They used to be 1 and -1.
    for dt in (mt.float64, mt.float32):
        o = mt.zeros(2, dtype=dt, requires_grad=True)
        (g,) = mt.autograd.grad(mt.atan2(o[0], o[1]), o, create_graph=True)
        assert g.tolist() == [0.0, 0.0]
        for i in range(2):
            (gg,) = mt.autograd.grad(g[i], o, retain_graph=True)
            assert np.isnan(gg.numpy()).all()
    # away from the origin nothing changes: d/da = b / r^2, d/db = -a / r^2
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    (g,) = mt.autograd.grad(mt.atan2(x[0], x[1]), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [0.4, -0.2], rtol=1e-15)
    (gg,) = mt.autograd.grad(g[0], x)
    np.testing.assert_allclose(gg.numpy(), [-0.16, -0.12], rtol=1e-14)
