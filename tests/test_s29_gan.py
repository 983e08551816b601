"""Session 29 (helper gan): torch-free checks of the GAN building blocks the reference programs in
tests/reference/test_s29_gan_reference.py lean on (spectral norm in both forms, the WGAN-GP
penalty through double backward, BCE's log clamp and saturated logits, GradScaler's skipped step,
Adam with GAN betas, the deepcopy refusal of hooked modules, loss/InstanceNorm warnings, the
grouped modulated convolution of StyleGAN2). The session found no library difference in this
domain; the values below are torch 2.13's, so these keep the behaviour pinned where torch is not
installed."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest

import minitorch as mt

F64 = mt.float64
F = mt.nn.functional


def _close(got, want, err_msg="", rtol=1e-12):
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=rtol, atol=1e-14,
                               err_msg=err_msg)  # fmt: skip


def test_spectral_norm_hook_buffers_power_iteration_and_removal():
    mt.manual_seed(0)
    lin = mt.nn.utils.spectral_norm(mt.nn.Linear(3, 2).double())
    _close(lin.weight_u.detach(), [-0.6127872976738095, -0.7902478901013467], "u0")
    _close(lin.weight_v.detach(), [0.34306484171080476, 0.712779517105725, -0.6117612887200938])
    sd = lin.state_dict()
    assert list(sd.keys()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    x = mt.tensor([[1.0, -2.0, 0.5]], dtype=F64)
    _close(lin(x).detach(), [[-2.287087981488591, 0.7147158811212916]], "train forward")
    _close(lin.weight_u.detach(), [-0.6006909757162484, -0.799481301653179], "u after one step")
    w = [[-0.011419943295104913, 0.818258610938268, -1.2554233434111823],
         [-1.122556951542107, -0.5874911872423714, 0.40903104205158664]]  # fmt: skip
    _close(lin.weight.detach(), w, "normalised weight")
    lin.eval()  # no power iteration: the same output
    _close(lin(x).detach(), [[-2.287087981488591, 0.7147158811212916]], "eval forward")
    plain = mt.nn.utils.remove_spectral_norm(lin)
    assert list(plain.state_dict().keys()) == ["bias", "weight"]
    _close(plain.weight.detach(), w, "removed")


def test_parametrized_spectral_norm_keys_and_eval_weight():
    mt.manual_seed(0)
    lin = mt.nn.utils.parametrizations.spectral_norm(mt.nn.Linear(3, 2).double())
    assert list(lin.state_dict().keys()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]  # fmt: skip
    _close(lin.parametrizations.weight[0]._u, [0.7856073739274039, -0.6187253462004675])
    lin.eval()
    want = [[-0.006572855973517942, 0.47095645396886177, -0.7225707351428885],
            [-0.6460982313038574, -0.33813608874138407, 0.23542167054852622]]  # fmt: skip
    _close(lin.weight.detach(), want, "eval weight")
    _close(mt.linalg.matrix_norm(lin.weight, 2).detach(), 1.0, "unit spectral norm", rtol=1e-9)


def test_wgan_gp_penalty_and_its_parameter_gradients():
    w1 = mt.tensor([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], dtype=F64, requires_grad=True)
    w2 = mt.tensor([[1.0, -0.5, 0.25]], dtype=F64, requires_grad=True)

    def D(z):
        return F.leaky_relu(z @ w1.T, 0.2) @ w2.T

    real = mt.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=F64)
    fake = mt.tensor([[0.0, -1.0], [2.0, 1.0]], dtype=F64)
    a = mt.tensor([[0.3], [0.8]], dtype=F64)
    inter = (a * real + (1 - a) * fake).requires_grad_(True)
    out = D(inter)
    (g,) = mt.autograd.grad(out, inter, grad_outputs=mt.ones_like(out), create_graph=True)
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    gp.backward()
    _close(gp.detach(), 0.20473837097894892, "gp")
    _close(g.detach(), [[-0.2875, -1.025], [-0.23750000000000002, 0.275]], "input gradient")
    _close(
        w1.grad,
        [[0.06578940521857697, -0.15852262963003208], [-0.032894702609288486, 0.07926131481501604],
         [0.10315823914399103, -0.12356365334609991]],
    )  # fmt: skip
    _close(w2.grad, [[0.19141733223932056, 0.05905345042035744, -1.2979839442007723]])


def test_bce_log_clamp_and_saturated_logits():
    p = mt.tensor([0.0, 1.0, 0.5], dtype=F64, requires_grad=True)
    loss = F.binary_cross_entropy(p, mt.tensor([1.0, 0.0, 0.5], dtype=F64))
    loss.backward()
    _close(loss.detach(), 66.89771572685332, "log clamped at -100")
    _close(p.grad, [-333333334665.26764, 333333334665.26764, 0.0], "eps-limited gradient")
    z = mt.tensor([-200.0, 200.0, 0.5], dtype=F64, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(z, mt.tensor([1.0, 0.0, 0.9], dtype=F64))
    loss.backward()
    _close(loss.detach(), 133.50802566139336)
    _close(z.grad, [-0.3333333333333333, 0.3333333333333333, -0.09251355626604847])


def test_grad_scaler_grows_then_skips_an_inf_step():
    s = mt.amp.GradScaler("cpu", init_scale=8.0, growth_interval=1)
    q = mt.nn.Parameter(mt.ones(2, dtype=F64))
    opt = mt.optim.SGD([q], lr=0.5)
    s.scale((q * mt.tensor([1.0, 2.0], dtype=F64)).sum()).backward()
    s.step(opt)
    s.update()
    assert s.get_scale() == 16.0
    _close(q.detach(), [0.5, 0.0])
    assert s.state_dict() == {
        "scale": 16.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 1,
        "_growth_tracker": 0,
    }  # fmt: skip
    opt.zero_grad()
    s.scale(q.sum() * float("inf")).backward()
    s.step(opt)
    s.update()
    assert s.get_scale() == 8.0
    _close(q.detach(), [0.5, 0.0], "the inf step is skipped")


def test_adam_with_gan_betas():
    q = mt.nn.Parameter(mt.tensor([1.0, -2.0], dtype=F64))
    opt = mt.optim.Adam([q], lr=2e-4, betas=(0.5, 0.999))
    for k in range(3):
        opt.zero_grad()
        (q**2 * (k + 1)).sum().backward()
        opt.step()
    _close(q.detach(), [0.9993644388782484, -1.9993644371104053])
    _close(opt.state[q]["exp_avg"], [4.248567639350172, -8.498567639355777])
    _close(opt.state[q]["exp_avg_sq"], [0.05594004045862325, 0.2238320822032965])


def test_deepcopy_refuses_a_hooked_module_after_forward():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        m = mt.nn.utils.weight_norm(mt.nn.Linear(2, 2))
    m(mt.ones(1, 2))
    with pytest.raises(RuntimeError) as e:
        copy.deepcopy(m)
    assert str(e.value) == (
        "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
        "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
        "because of a torch.nn.utils.weight_norm usage, see "
        "https://github.com/pytorch/pytorch/pull/103001"
    )


def test_loss_broadcast_and_instance_norm_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mt.nn.InstanceNorm2d(4)(mt.ones(1, 3, 2, 2))
        F.mse_loss(mt.ones(4, 1), mt.ones(4))
    assert [str(w.message) for w in caught] == [
        "input's size at dim=1 does not match num_features. You can silence this warning by "
        "not passing in num_features, which is not used because affine=False",
        "Using a target size (torch.Size([4])) that is different to the input size "
        "(torch.Size([4, 1])). This will likely lead to incorrect results due to broadcasting. "
        "Please ensure they have the same size.",
    ]


def test_grouped_modulated_conv_equals_a_per_sample_loop():
    # StyleGAN2's trick: a batch of per-sample weights as one grouped convolution
    g = mt.Generator().manual_seed(3)
    b, cin, cout = 3, 2, 4
    x = mt.randn(b, cin, 5, 5, generator=g, dtype=F64)
    w = mt.randn(1, cout, cin, 3, 3, generator=g, dtype=F64)
    s = mt.randn(b, 1, cin, 1, 1, generator=g, dtype=F64) + 1
    wt = w * s / math.sqrt(cin * 9)
    wt = wt * mt.rsqrt(wt.pow(2).sum([2, 3, 4], keepdim=True) + 1e-8)
    grouped = F.conv2d(x.reshape(1, b * cin, 5, 5), wt.view(b * cout, cin, 3, 3), padding=1,
                       groups=b).view(b, cout, 5, 5)  # fmt: skip
    loop = mt.cat([F.conv2d(x[i : i + 1], wt[i], padding=1) for i in range(b)])
    _close(grouped, loop.numpy(), "grouped vs loop", rtol=1e-12)
    # demodulation leaves each output channel's weight of unit norm
    _close(
        wt.pow(2).sum([2, 3, 4]).sqrt(),
        np.ones((b, cout)),
        "unit norm (up to the 1e-8 eps)",
        rtol=1e-6,
    )


@pytest.mark.parametrize(
    "pool, shape, names",
    [
        (
            mt.nn.MaxPool2d(2),
            (1, 1, 4, 4),
            ("MaxPool2DWithIndicesBackwardBackward0", "ViewBackward0"),
        ),
        (
            mt.nn.MaxPool3d(2),
            (1, 1, 2, 2, 2),
            ("MaxPool3DWithIndicesBackwardBackward0", "ViewBackward0"),
        ),
        (mt.nn.AvgPool2d(2), (1, 1, 4, 4), ("AvgPool2DBackwardBackward0", "AvgPool2DBackward0")),
    ],
)
def test_gradient_penalty_nodes_through_pooling(pool, shape, names):
    # torch's names of a max pool's gradient node (a gradient penalty's double backward) and of
    # that gradient's own gradient node (max_pool_double_backward: a gather, then a view)
    x = mt.randn(*shape, dtype=F64, requires_grad=True)
    y = pool(x)
    v = mt.ones(y.shape, dtype=F64, requires_grad=True)
    (g,) = mt.autograd.grad(y, x, grad_outputs=v, create_graph=True)
    u = mt.ones(shape, dtype=F64, requires_grad=True)
    (h,) = mt.autograd.grad(g, v, grad_outputs=u, create_graph=True)
    assert (type(g.grad_fn).__name__, type(h.grad_fn).__name__) == names
    _close(h.detach(), np.ones(y.shape), "the pool of ones")
