"""Optimizer results against torch 2.13's (checked over its OptimizerInfo database): ASGD's eta
in the foreach path and after a float64 state is loaded, Adam/AdamW refusing tensor betas with
foreach, SparseAdam on empty parameters and with a tensor lr, Muon with a tensor lr, and SGD's
fused half-precision momentum. Expected values were printed by torch for the same calls."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch


def _asgd_run(steps, **kwargs):
    p = minitorch.nn.Parameter(minitorch.tensor([1.0, 2.0], dtype=minitorch.float64))
    opt = minitorch.optim.ASGD([p], **kwargs)
    etas = []
    for _ in range(steps):
        p.grad = minitorch.tensor([0.5, -0.25], dtype=minitorch.float64)
        opt.step()
        etas.append(opt.state[p]["eta"].item())
    return p, opt, etas


def test_asgd_foreach_eta_in_float32_tensor_math():
    # torch's multi-tensor path computes eta with float32 tensor ops (not a float64 number)
    p, _, etas = _asgd_run(3, lr=0.02, foreach=True)
    assert etas == [0.019999967887997627, 0.01999993994832039, 0.01999991200864315]
    np.testing.assert_allclose(
        p.detach().numpy(), [0.9699941063263942, 2.0149879468899554], rtol=1e-15, atol=0
    )


def test_asgd_loaded_float64_eta_still_rounds_to_float32():
    # load_state_dict casts eta/mu to the float64 parameter; torch's next eta is still a
    # float32 value (copied into the float64 tensor)
    p, opt, _ = _asgd_run(2, foreach=False)
    sd = copy.deepcopy(opt.state_dict())
    p2 = minitorch.nn.Parameter(p.detach().clone())
    opt2 = minitorch.optim.ASGD([p2], foreach=False)
    opt2.load_state_dict(sd)
    assert opt2.state[p2]["eta"].dtype == minitorch.float64
    p2.grad = minitorch.tensor([0.5, -0.25], dtype=minitorch.float64)
    opt2.step()
    assert opt2.state[p2]["eta"].item() == 0.009999977424740791
    assert opt2.state[p2]["mu"].item() == 1.0
    np.testing.assert_allclose(
        p2.detach().numpy(), [0.9849970265164212, 2.007493986755045], rtol=1e-15, atol=0
    )


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("extra", [{}, {"fused": True}])
def test_adam_tensor_betas_with_foreach_refused(name, extra):
    cls = getattr(minitorch.optim, name)
    params = [minitorch.nn.Parameter(minitorch.ones(2))]
    msg = r"betas\[0\] as a Tensor is not supported for capturable=False and foreach=True"
    betas = (minitorch.tensor(0.9), minitorch.tensor(0.99))
    with pytest.raises(ValueError, match=msg):
        cls(params, lr=0.01, betas=betas, foreach=True, **extra)
    cls(params, lr=0.01, betas=betas, foreach=True, capturable=True)  # allowed


def test_sparse_adam_empty_parameters():
    shapes = [(0,), (0, 3), (2, 0)]
    ps = [minitorch.nn.Parameter(minitorch.zeros(s)) for s in shapes]
    opt = minitorch.optim.SparseAdam(ps)
    for p in ps:
        p.grad = minitorch.zeros(p.shape)
    opt.step()
    for p, s in zip(ps, shapes, strict=True):
        st = opt.state[p]
        assert st["step"] == 1
        assert tuple(st["exp_avg"].shape) == s and tuple(st["exp_avg_sq"].shape) == s


def test_sparse_adam_tensor_lr_rounds_step_size_in_float32():
    p = minitorch.nn.Parameter(minitorch.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=minitorch.float64))
    opt = minitorch.optim.SparseAdam([p], lr=minitorch.tensor(0.001))
    for _ in range(2):
        p.grad = minitorch.tensor([[0.5, -0.25], [0.1, 0.3]], dtype=minitorch.float64)
        opt.step()
    want = [[0.9980000009064707, 2.0019999980137504], [2.99800000522558, -1.0019999983736763]]
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-14, atol=0)


def test_muon_tensor_lr_rounds_decay_and_step_in_float32():
    w = minitorch.tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 0.25]], dtype=minitorch.float64)
    p = minitorch.nn.Parameter(w.T.contiguous())  # tall: the adjusted lr scales lr
    opt = minitorch.optim.Muon([p], lr=minitorch.tensor(0.001))
    g = minitorch.tensor([[0.5, -0.25, 0.75], [0.1, 0.3, -0.2]], dtype=minitorch.float64)
    p.grad = g.T.contiguous()
    opt.step()
    want = [
        [0.9992636901320111, 2.9989153479855304],
        [1.9998597688115751, -1.0009716352360556],
        [0.499256288509514, 0.25025965336885747],
    ]
    np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-14, atol=0)


def test_sgd_fused_half_momentum_in_float32():
    # the fused kernel updates the buffer in float32 (unfused torch gives -0.57861328125)
    p = minitorch.nn.Parameter(
        minitorch.tensor([0.1257, -0.1321, 0.6406, 0.01], dtype=minitorch.float16)
    )
    opt = minitorch.optim.SGD([p], lr=0.01, momentum=0.9, weight_decay=0.1, fused=True)
    for g in ([0.3, -0.7, 0.01, 0.02], [0.05, 0.013, -0.017, 0.4], [1.3, 0.011, 0.5, -0.031]):
        p.grad = minitorch.tensor(g, dtype=minitorch.float16)
        opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert buf.dtype == minitorch.float16
    want_buf = [1.62109375, -0.578125, 0.666015625, 0.34716796875]
    np.testing.assert_array_equal(buf.float().numpy(), want_buf)
    np.testing.assert_array_equal(
        p.detach().float().numpy(),
        [0.10296630859375, -0.11273193359375, 0.6318359375, 0.0021190643310546875],
    )


def test_sgd_fused_half_without_momentum_in_float32_and_no_state():
    # p - lr g rounded once (the half path rounds lr g first: -0.02301025390625)
    w = [-0.00682830810546875, 1.0458984375, 0.74169921875, 0.72412109375]
    p = minitorch.nn.Parameter(minitorch.tensor(w, dtype=minitorch.float16))
    opt = minitorch.optim.SGD([p], lr=0.01, fused=True)
    g = [1.619140625, -1.205078125, -0.626953125, -1.3203125]
    p.grad = minitorch.tensor(g, dtype=minitorch.float16)
    opt.step()
    assert opt.state_dict()["state"] == {}
    np.testing.assert_array_equal(
        p.detach().float().numpy(), [-0.0230255126953125, 1.0576171875, 0.748046875, 0.7373046875]
    )
