"""Session 29 (helper gan): generative adversarial networks written the way public training scripts
write them, run under torch and minitorch with the same seeds and compared record by record:
DCGAN (ConvTranspose2d/BatchNorm2d/ReLU/Tanh stacks, weights_init by class name, BCELoss and
BCEWithLogitsLoss with label smoothing, label noise and flips, two Adams with betas (0.5, 0.999),
detach() and zero_grad placement, printed progress lines), WGAN with p.data.clamp_ and RMSprop
(the one/mone backward trick), WGAN-GP through autograd.grad(create_graph) on interpolates
(LayerNorm critic, one-sided penalty, the penalty's weight gradient), hinge loss, R1/R2 and lazy
regularisation with softplus losses, spectral norm in both forms (u/v buffers, power iterations,
train/eval, state_dict keys and round trips, removal, ConvTranspose/Embedding, whole-module save,
deepcopy), custom parametrizations (equalized lr with right_inverse, stacked, cached, orthogonal),
conditional GANs (Embedding + cat, AC-GAN auxiliary loss, InfoGAN codes, projection
discriminator, conditional BatchNorm, hierarchical latents), StyleGAN pieces (mapping network with
equalized lr both as scaled weights and as rosinality's forward pre-hook, pixel norm, AdaIN, noise
injection, modulated/demodulated conv via grouped conv2d and conv_transpose2d, StyleGAN2-ADA's
unfused modconv with addcmul and bias_act, upfirdn2d blur/up/down, minibatch std, style mixing,
truncation, path-length penalty, EMA of G by lerp_/copy_, AveragedModel with EMA avg fns and
update_bn), PatchGAN/pix2pix U-Net (dropout at test time) and CycleGAN (image pool from seeded
random.uniform, identity and cycle losses, LambdaLR decay), progressive growing (fade-in with
interpolate/avg_pool2d, add_param_group), SAGAN attention, SRGAN/ESRGAN (PixelShuffle, PReLU,
relativistic loss, perceptual loss with a frozen net), HiFi-GAN (weight_norm Conv1d, MPD/MSD,
feature matching), VQGAN (codebook straight-through, adaptive weight from last-layer gradients),
minibatch discrimination, DiffAugment and ADA-style affine_grid/grid_sample, unrolled GAN through
func.functional_call, custom autograd Functions (fused leaky ReLU with its own double backward,
gradient reversal, once_differentiable), autocast with GradScaler, FID/KID/IS statistics (cov,
sqrtm by eigh, cdist, kthvalue), make_grid/uint8 sample saving, checkpoints of G/D/optimisers/RNG
through save/load, and the error messages of common GAN mistakes. float64 must agree to 1e-10 of
each record's scale, float32 to 1e-4; texts exactly.

Known and left (documented):
- float32 sums differ in the last bits (summation order), float32 transcendentals by an ulp;
  float32 bicubic interpolation is a few ulp from exact in both libraries, not the same ulps.
  Printed float32 losses are recorded in float64 runs only.
- A parameter whose gradient is zero in exact arithmetic (a bias just before BatchNorm or
  InstanceNorm, a critic bias that a relativistic loss cancels) gets rounding noise, which Adam
  turns into steps of either sign: such biases are not recorded (`params(..., skip=)`) or the
  models are built without them, as the reference implementations mostly do.
- Modules built in float32 and moved to float64 carry float32 initialisations that can round an
  ulp apart from torch's (weight_norm's g, the 15 power iterations parametrizations.spectral_norm
  makes at registration, orthogonal_'s QR): the programs build or initialise those in their dtype.
- torch marks an input gradient that does not depend on the input in value as requiring grad when
  its backward node saved the input (conv2d's ConvolutionBackwardBackward0, grid_sample's
  GridSampler2DBackwardBackward0): with no weight requiring grad, a backward through such a
  gradient leaves x.grad None in torch and raises "element 0 of tensors does not require grad"
  here. Real penalties always reach the critic's weights, where both agree.
- Double-backward node names not torch's: adaptive pools' (AdaptiveMaxPool2DBackwardBackward0 and
  AdaptiveAvgPool2DBackwardBackward0 in torch), and the backward of unsqueeze (torch's
  SqueezeBackward1 is ViewBackward0 here, seen after max_pool1d).
- NumPy's floating-point RuntimeWarnings (overflow in sigmoid's exp for saturated logits) show
  under an "always" filter; torch.FloatTensor(size=...) is uninitialised memory in torch."""

from __future__ import annotations

import copy
import io
import itertools
import math
import random

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "dcgan", "dcgan_logits", "wgan_clip", "wgan_gp", "hinge_sn", "r1_r2", "sn_hooks",
    "sn_param", "cgan", "mapping", "modconv", "mbstd", "ema", "cyclegan", "progressive",
    "fid", "checkpoint", "truncation", "errors", "sagan", "srgan", "biggan_cbn", "mlp_gan",
    "equal_lr_hook", "upfirdn", "stylegan2_ada", "diffaugment", "pix2pix", "infogan", "hifigan",
    "save_samples", "amp_gan", "reprs", "vqgan", "minibatch_disc", "errors2", "custom_param",
    "progressive_opt", "whole_module", "unrolled", "custom_fn", "ema_helpers", "timegan",
]  # fmt: skip


# float32 programs whose last bits follow the CPU's kernels (AVX2 or AVX-512 summation orders,
# iterated): compared to 1e-3 of scale in float32
_WIDE_FLOAT32 = {"equal_lr_hook"}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    tol = 1e-3 if dt == "float32" and name in _WIDE_FLOAT32 else None
    assert_program_matches(globals()["p_" + name], torch, dt, tol)


# --- shared pieces, written once per library ---


def weights_init(lib):
    nn = lib.nn

    def init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    return init


def dcgan_models(lib, dt, nz=8, ngf=4, ndf=4, nc=3, sigmoid=True):
    nn = lib.nn
    G = nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
        nn.BatchNorm2d(ngf * 4),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
        nn.BatchNorm2d(ngf * 2),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
        nn.Tanh(),
    )
    layers = [
        nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
        nn.BatchNorm2d(ndf * 2),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
    ]
    if sigmoid:
        layers.append(nn.Sigmoid())
    D = nn.Sequential(*layers)
    G.apply(weights_init(lib))
    D.apply(weights_init(lib))
    return G.to(dt), D.to(dt)


def params(rec, prefix, model, grads=False, skip=()):
    """rec.params without the named parameters whose gradient is zero in exact arithmetic (a bias
    just before a normalisation, or one that cancels in a relativistic loss): Adam turns their
    rounding noise into steps of either sign."""
    for n, p in model.named_parameters():
        if n not in skip:
            rec(prefix + "." + n, p)
            if grads and p.grad is not None:
                rec(prefix + ".g." + n, p.grad)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_dcgan(lib, dt, rec):
    lib.manual_seed(0)
    nz = 8
    G, D = dcgan_models(lib, dt, nz=nz)
    rec("G.repr", repr(G))
    criterion = lib.nn.BCELoss()
    fixed_noise = lib.randn(4, nz, 1, 1, dtype=dt)
    real_label, fake_label = 1.0, 0.0
    optD = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = lib.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    data = lib.rand(3, 4, 3, 16, 16, dtype=dt) * 2 - 1
    for i, real in enumerate(data):
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        D.zero_grad()
        b_size = real.size(0)
        label = lib.full((b_size,), real_label, dtype=dt)
        output = D(real).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        noise = lib.randn(b_size, nz, 1, 1, dtype=dt)
        fake = G(noise)
        label.fill_(fake_label)
        output = D(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optD.step()
        # (2) update G: maximize log(D(G(z)))
        G.zero_grad()
        label.fill_(real_label)
        output = D(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optG.step()
        rec(f"errD{i}", errD)
        rec(f"errG{i}", errG)
        rec(f"stats{i}", [D_x, D_G_z1, D_G_z2])
        rec(f"line{i}", "[%d/%d] Loss_D: %.2f Loss_G: %.2f" % (i, 3, errD.item(), errG.item()))  # noqa: UP031 - as the scripts print
    rec("bn.running_mean", G[1].running_mean)
    rec("bn.running_var", D[3].running_var)
    rec("bn.nbt", D[3].num_batches_tracked)
    with lib.no_grad():
        G.eval()
        img = G(fixed_noise).detach().cpu()
    rec("fixed", img)
    rec("grid_range", [img.min().item(), img.max().item()])
    rec.params("G", G, grads=True)
    rec.params("D", D, grads=True)
    st = optD.state_dict()
    rec("optD.keys", str(sorted(st["state"].keys())))
    rec("optD.step", st["state"][0]["step"])
    rec("optD.exp_avg_sq", st["state"][2]["exp_avg_sq"])
    rec("optD.group", str({k: v for k, v in st["param_groups"][0].items() if k != "params"}))


def p_dcgan_logits(lib, dt, rec):
    lib.manual_seed(1)
    nn = lib.nn
    G, D = dcgan_models(lib, dt, nz=6, ngf=2, ndf=2, nc=1, sigmoid=False)
    crit = nn.BCEWithLogitsLoss()
    optD = lib.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999), weight_decay=1e-4)
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    for step in range(3):
        real = lib.tanh(lib.randn(5, 1, 16, 16, dtype=dt))
        z = lib.randn(5, 6, 1, 1, dtype=dt)
        fake = G(z)
        d_real = D(real).flatten()
        d_fake = D(fake.detach()).flatten()
        # one-sided smoothing and label noise
        real_t = lib.ones_like(d_real) * 0.9 + 0.05 * lib.rand(d_real.shape, dtype=dt)
        fake_t = lib.zeros_like(d_fake) + 0.05 * lib.rand_like(d_fake)
        flip = lib.rand(5) < 0.2
        real_t = lib.where(flip, 1 - real_t, real_t)
        lossD = crit(d_real, real_t) + crit(d_fake, fake_t)
        optD.zero_grad(set_to_none=False)
        lossD.backward()
        optD.step()
        out = D(fake).flatten()
        lossG = crit(out, lib.ones_like(out))
        optG.zero_grad()
        lossG.backward()
        optG.step()
        rec(f"lossD{step}", lossD)
        rec(f"lossG{step}", lossG)
        rec(f"flip{step}", flip)
        rec(f"acc{step}", ((d_real > 0).float().mean() + (d_fake < 0).float().mean()) / 2)
    # per-sample losses with pos_weight and reduction none
    crit2 = nn.BCEWithLogitsLoss(reduction="none", pos_weight=lib.tensor([2.0], dtype=dt))
    rec("per_sample", crit2(d_real, lib.ones_like(d_real)))
    rec("F.bce_logits", nn.functional.binary_cross_entropy_with_logits(out, lib.zeros_like(out)))
    rec("softplus_form", nn.functional.softplus(-out).mean())
    rec.params("D", D, grads=True)
    rec("G.grad_none", str([p.grad is None for p in G.parameters()]))


def p_wgan_clip(lib, dt, rec):
    lib.manual_seed(2)
    nn = lib.nn
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(dt)
    C = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)).to(dt)
    optC = lib.optim.RMSprop(C.parameters(), lr=5e-5)
    optG = lib.optim.RMSprop(G.parameters(), lr=5e-5)
    clip = 0.01
    centers = lib.tensor([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]], dtype=dt)
    gen_it = 0
    for it in range(4):
        for p in C.parameters():
            p.requires_grad = True
        for _ in range(3):
            idx = lib.randint(0, 3, (8,))
            real = centers[idx] + 0.05 * lib.randn(8, 2, dtype=dt)
            for p in C.parameters():
                p.data.clamp_(-clip, clip)
            optC.zero_grad()
            noise = lib.randn(8, 4, dtype=dt)
            with lib.no_grad():
                fake = G(noise)
            errC = -(C(real).mean() - C(fake).mean())
            errC.backward()
            optC.step()
        for p in C.parameters():
            p.requires_grad = False
        optG.zero_grad()
        fake = G(lib.randn(8, 4, dtype=dt))
        errG = -C(fake).mean()
        errG.backward()
        optG.step()
        gen_it += 1
        rec(f"errC{it}", errC)
        rec(f"errG{it}", errG)
        rec(f"wdist{it}", -errC.item())
    rec("C.requires_grad", str([p.requires_grad for p in C.parameters()]))
    rec("C.grad", str([p.grad is None for p in C.parameters()]))
    rec.params("C", C)
    rec.params("G", G, grads=True)
    rec("sq_avg", optC.state[C[0].weight]["square_avg"])
    # the "one/mone" trick of the original WGAN code
    one = lib.tensor(1, dtype=dt)
    mone = one * -1
    for p in C.parameters():
        p.requires_grad_(True)
    C.zero_grad()
    out = C(centers).mean()
    out.backward(mone)
    rec("mone_grad", C[2].weight.grad)
    out2 = C(centers).mean(0).view(1)
    out2.backward(one.view(1))
    rec("one_grad", C[2].bias.grad)


def gradient_penalty(lib, D, real, fake, dt):
    alpha = lib.rand(real.size(0), 1, 1, 1, dtype=dt)
    alpha = alpha.expand_as(real)
    interpolates = alpha * real + (1 - alpha) * fake
    interpolates = lib.autograd.Variable(interpolates, requires_grad=True)
    d_int = D(interpolates)
    gradients = lib.autograd.grad(
        outputs=d_int,
        inputs=interpolates,
        grad_outputs=lib.ones(d_int.size(), dtype=dt),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean(), gradients


def p_wgan_gp(lib, dt, rec):
    lib.manual_seed(3)
    nn = lib.nn
    G = nn.Sequential(
        nn.Linear(5, 2 * 4 * 4),
        nn.Unflatten(1, (2, 4, 4)),
        nn.Upsample(scale_factor=2),
        nn.Conv2d(2, 3, 3, padding=1),
        nn.Tanh(),
    ).to(dt)
    D = nn.Sequential(
        nn.Conv2d(3, 4, 3, 2, 1),
        nn.LeakyReLU(0.2),
        nn.Conv2d(4, 4, 3, 2, 1),
        nn.LayerNorm([4, 2, 2]),
        nn.LeakyReLU(0.2),
        nn.Flatten(),
        nn.Linear(16, 1),
    ).to(dt)
    optD = lib.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    lam = 10.0
    for it in range(3):
        real = lib.rand(4, 3, 8, 8, dtype=dt) * 2 - 1
        z = lib.randn(4, 5, dtype=dt)
        fake = G(z).detach()
        optD.zero_grad()
        gp, grads = gradient_penalty(lib, D, real, fake, dt)
        d_loss = D(fake).mean() - D(real).mean() + lam * gp
        d_loss.backward()
        optD.step()
        rec(f"gp{it}", gp)
        rec(f"grad_norms{it}", grads.norm(2, dim=1))
        rec(f"d_loss{it}", d_loss)
        if it % 2 == 0:
            optG.zero_grad()
            g_loss = -D(G(z)).mean()
            g_loss.backward()
            optG.step()
            rec(f"g_loss{it}", g_loss)
    rec.params("D", D, grads=True)
    rec.params("G", G)
    # a one-sided variant and the gradient of the penalty itself (double backward through convs)
    x = (lib.rand(2, 3, 8, 8, dtype=dt) * 2 - 1).requires_grad_(True)
    out = D(x)
    (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
    pen = lib.clamp(g.flatten(1).norm(dim=1) - 1, min=0).pow(2).mean()
    gw = lib.autograd.grad(pen, D[0].weight)
    rec("one_sided", pen)
    rec("pen_grad_w0", gw[0])


def p_hinge_sn(lib, dt, rec):
    lib.manual_seed(4)
    nn = lib.nn
    SN = nn.utils.spectral_norm
    D = nn.Sequential(
        SN(nn.Conv2d(3, 4, 3, 1, 1)),
        nn.LeakyReLU(0.1),
        SN(nn.Conv2d(4, 8, 4, 2, 1)),
        nn.LeakyReLU(0.1),
        nn.Flatten(),
        SN(nn.Linear(8 * 4 * 4, 1)),
    ).to(dt)
    G = nn.Sequential(nn.Linear(6, 3 * 8 * 8), nn.Tanh(), nn.Unflatten(1, (3, 8, 8))).to(dt)
    optD = lib.optim.Adam(D.parameters(), lr=4e-4, betas=(0.0, 0.9))
    optG = lib.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
    rec("D.keys", str(list(D.state_dict().keys())))
    for it in range(3):
        real = lib.randn(4, 3, 8, 8, dtype=dt).clamp(-1, 1)
        fake = G(lib.randn(4, 6, dtype=dt))
        optD.zero_grad()
        d_loss = (
            nn.functional.relu(1.0 - D(real)).mean()
            + nn.functional.relu(1.0 + D(fake.detach())).mean()
        )
        d_loss.backward()
        optD.step()
        optG.zero_grad()
        g_loss = -D(fake).mean()
        g_loss.backward()
        optG.step()
        rec(f"d{it}", d_loss)
        rec(f"g{it}", g_loss)
        rec(f"u{it}", D[0].weight_u)
    sd = D.state_dict()
    rec("sd.v", sd["5.weight_v"])
    rec("sd.orig", sd["0.weight_orig"])
    rec("eff_w", D[5].weight)
    D.eval()
    with lib.no_grad():
        w = D[2].weight_orig.flatten(1)
        sigma = lib.linalg.matrix_norm(w, ord=2)
        rec("sigma_true", sigma)
        est = D[2].weight_u @ w @ D[2].weight_v
        rec("sigma_est", est)
        rec("eval_out", D(real))
    rec("sn_svals", lib.linalg.svdvals(D[2].weight.flatten(1))[:2])


def p_r1_r2(lib, dt, rec):
    lib.manual_seed(5)
    nn, F = lib.nn, lib.nn.functional
    D = nn.Sequential(
        nn.Conv2d(1, 4, 3, 1, 1), nn.SiLU(), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(64, 1)
    ).to(dt)
    G = nn.Sequential(nn.Linear(3, 64), nn.Unflatten(1, (1, 8, 8))).to(dt)
    optD = lib.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.99), eps=1e-8)
    optG = lib.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.99), eps=1e-8)
    gamma, r1_every = 10.0, 2
    for it in range(4):
        real = lib.randn(3, 1, 8, 8, dtype=dt)
        z = lib.randn(3, 3, dtype=dt)
        fake = G(z)
        # non-saturating logistic loss
        loss_D = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean()
        optD.zero_grad(set_to_none=True)
        loss_D.backward()
        if it % r1_every == 0:
            real.requires_grad_()
            real_pred = D(real)
            (grad_real,) = lib.autograd.grad(
                outputs=real_pred.sum(), inputs=real, create_graph=True
            )
            r1 = grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()
            (gamma / 2 * r1 * r1_every + 0 * real_pred[0]).sum().backward()
            rec(f"r1_{it}", r1)
        optD.step()
        loss_G = F.softplus(-D(G(z))).mean()
        optG.zero_grad()
        loss_G.backward()
        optG.step()
        rec(f"loss_D{it}", loss_D)
        rec(f"loss_G{it}", loss_G)
    # R2 on the fakes, by torch.autograd.grad with a list of outputs and grad_outputs
    fake = G(lib.randn(3, 3, dtype=dt)).detach().requires_grad_(True)
    logits = D(fake)
    (g2,) = lib.autograd.grad([logits.sum()], [fake], create_graph=True)
    r2 = g2.square().sum([1, 2, 3])
    rec("r2", r2)
    r2.mean().backward()
    rec("r2_grad_lin", D[4].weight.grad)
    rec("fake.grad", fake.grad)
    rec.params("D", D)


def p_sn_hooks(lib, dt, rec):
    lib.manual_seed(6)
    nn = lib.nn
    lin = nn.utils.spectral_norm(nn.Linear(5, 4).to(dt), n_power_iterations=2)
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("buffers", str([n for n, _ in lin.named_buffers()]))
    rec("keys", str(list(lin.state_dict().keys())))
    rec("u0", lin.weight_u)
    rec("v0", lin.weight_v)
    x = lib.randn(3, 5, dtype=dt)
    y = lin(x)
    rec("y_train", y)
    rec("u1", lin.weight_u)
    rec("w", lin.weight)
    lin.eval()
    y2 = lin(x)
    rec("y_eval", y2)
    rec("u_eval", lin.weight_u)
    lin.train()
    y.sum().backward()
    rec("g_orig", lin.weight_orig.grad)
    # conv with dim=1 (transposed convolutions), eps and repeated calls
    ct = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 2, 3).to(dt), eps=1e-6)
    rec("ct.u_shape", str(tuple(ct.weight_u.shape)))
    rec("ct.v_shape", str(tuple(ct.weight_v.shape)))
    z = lib.randn(1, 3, 4, 4, dtype=dt)
    for i in range(3):
        out = ct(z)
        rec(f"ct.u{i}", ct.weight_u)
    rec("ct.out", out)
    # state_dict round trip into a fresh spectral-normed module
    lin2 = nn.utils.spectral_norm(nn.Linear(5, 4).to(dt), n_power_iterations=2)
    lin2.load_state_dict(lin.state_dict())
    lin2.eval()
    lin.eval()
    rec("reload", lin2(x) - lin(x))
    removed = nn.utils.remove_spectral_norm(lin2)
    rec("removed.names", str([n for n, _ in removed.named_parameters()]))
    rec("removed.keys", str(list(removed.state_dict().keys())))
    rec("removed.w", removed.weight)
    # embedding and a bigger module applying it to each conv
    emb = nn.utils.spectral_norm(nn.Embedding(6, 3).to(dt))
    rec("emb", emb(lib.tensor([[0, 5], [2, 2]])))

    def add_sn(m):
        for name, layer in m.named_children():
            if isinstance(layer, (nn.Conv2d, nn.Linear)):
                setattr(m, name, nn.utils.spectral_norm(layer))
            else:
                add_sn(layer)
        return m

    net = add_sn(nn.Sequential(nn.Conv2d(1, 2, 3), nn.Sequential(nn.ReLU(), nn.Linear(2, 1))))
    rec("net.keys", str(list(net.state_dict().keys())))
    rec("net.repr", repr(net))


def p_sn_param(lib, dt, rec):
    lib.manual_seed(7)
    nn = lib.nn
    P = nn.utils.parametrizations
    lin = P.spectral_norm(nn.Linear(6, 3).to(dt))
    rec("repr", repr(lin))
    rec("keys", str(list(lin.state_dict().keys())))
    rec("names", str([n for n, _ in lin.named_parameters()]))
    rec("is_param", str(nn.utils.parametrize.is_parametrized(lin, "weight")))
    x = lib.randn(4, 6, dtype=dt)
    sn = lin.parametrizations.weight[0]
    rec("u0", sn._u)
    rec("v0", sn._v)
    out = lin(x)
    rec("out", out)
    rec("u1", sn._u)
    out.pow(2).mean().backward()
    rec("g", lin.parametrizations.weight.original.grad)
    lin.eval()
    rec("eval1", lin(x))
    rec("eval_u", sn._u)
    rec("sigma", lib.linalg.matrix_norm(lin.weight, 2))
    lin.train()
    with nn.utils.parametrize.cached():
        a = lin.weight
        b = lin.weight
        rec("cached_same", str(a is b))
    conv = P.spectral_norm(nn.Conv2d(2, 3, 3).to(dt), n_power_iterations=3, dim=0)
    y = conv(lib.randn(1, 2, 5, 5, dtype=dt))
    rec("conv.y", y)
    rec("conv.keys", str(list(conv.state_dict().keys())))
    c2 = P.spectral_norm(nn.Conv2d(2, 3, 3).to(dt), n_power_iterations=3, dim=0)
    c2.load_state_dict(conv.state_dict())
    c2.eval()
    conv.eval()
    rec("c2", c2.weight - conv.weight)
    nn.utils.parametrize.remove_parametrizations(c2, "weight", leave_parametrized=True)
    rec("c2.removed", str([n for n, _ in c2.named_parameters()]))
    rec("c2.w", c2.weight)
    # the optimizer sees original; one Adam step changes the effective weight's norm back to 1
    opt = lib.optim.Adam(lin.parameters(), lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        lin(x).sum().backward()
        opt.step()
    rec("after", lin.weight)
    rec("after_sv", lib.linalg.svdvals(lin.weight))


def p_cgan(lib, dt, rec):
    lib.manual_seed(8)
    random.seed(8)
    nn = lib.nn
    n_classes, latent, img = 4, 6, (1, 4, 4)
    img_n = 16

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.label_emb = nn.Embedding(n_classes, n_classes)

            def block(in_feat, out_feat, normalize=True):
                layers = [nn.Linear(in_feat, out_feat)]
                if normalize:
                    layers.append(nn.BatchNorm1d(out_feat, 0.8))
                layers.append(nn.LeakyReLU(0.2, inplace=True))
                return layers

            self.model = nn.Sequential(
                *block(latent + n_classes, 16, normalize=False),
                *block(16, 32),
                nn.Linear(32, img_n),
                nn.Tanh(),
            )

        def forward(self, noise, labels):
            gen_input = lib.cat((self.label_emb(labels), noise), -1)
            return self.model(gen_input).view(-1, *img)

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.label_embedding = nn.Embedding(n_classes, n_classes)
            self.model = nn.Sequential(
                nn.Linear(n_classes + img_n, 32),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(32, 32),
                nn.Dropout(0.4),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Linear(32, 1),
            )
            self.aux = nn.Linear(32, n_classes)

        def forward(self, img, labels):
            d_in = lib.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
            h = self.model[:5](d_in)
            return self.model[5](h), self.aux(h)

    G, D = Generator().to(dt), Discriminator().to(dt)
    rec("G.bn", repr(G.model[3]))
    adv = nn.MSELoss()
    aux = nn.CrossEntropyLoss()
    optG = lib.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for it in range(3):
        bs = 5
        imgs = lib.rand(bs, *img, dtype=dt) * 2 - 1
        labels = lib.randint(0, n_classes, (bs,))
        valid = lib.ones(bs, 1, dtype=dt, requires_grad=False)
        fake = lib.zeros(bs, 1, dtype=dt)
        optG.zero_grad()
        z = lib.tensor([[random.gauss(0, 1) for _ in range(latent)] for _ in range(bs)], dtype=dt)
        gen_labels = lib.randint(0, n_classes, (bs,))
        gen_imgs = G(z, gen_labels)
        v, c = D(gen_imgs, gen_labels)
        g_loss = adv(v, valid) + aux(c, gen_labels)
        g_loss.backward()
        optG.step()
        optD.zero_grad()
        rv, rc = D(imgs, labels)
        fv, fc = D(gen_imgs.detach(), gen_labels)
        d_loss = (adv(rv, valid) + adv(fv, fake)) / 2 + (aux(rc, labels) + aux(fc, gen_labels)) / 2
        d_loss.backward()
        optD.step()
        pred = lib.cat([rc, fc]).argmax(1)
        gt = lib.cat([labels, gen_labels])
        rec(f"g{it}", g_loss)
        rec(f"d{it}", d_loss)
        rec(f"acc{it}", (pred == gt).double().mean())
    # sample a grid: one row per class
    G.eval()
    with lib.no_grad():
        z = lib.randn(n_classes * 2, latent, dtype=dt)
        labels = lib.arange(n_classes).repeat_interleave(2)
        rec("labels", labels)
        rec("grid", G(z, labels))
        onehot = nn.functional.one_hot(labels, n_classes).to(dt)
        rec("onehot_in", lib.cat([onehot, z], 1)[:3])
    params(rec, "G", G, skip=("model.2.bias",))


def p_mapping(lib, dt, rec):
    lib.manual_seed(9)
    nn, F = lib.nn, lib.nn.functional

    class PixelNorm(nn.Module):
        def forward(self, x):
            return x * lib.rsqrt(lib.mean(x**2, dim=1, keepdim=True) + 1e-8)

    class EqualLinear(nn.Module):
        def __init__(self, in_dim, out_dim, bias_init=0.0, lr_mul=1.0, activation=None):
            super().__init__()
            self.weight = nn.Parameter(lib.randn(out_dim, in_dim).div_(lr_mul))
            self.bias = nn.Parameter(lib.zeros(out_dim).fill_(bias_init))
            self.activation = activation
            self.scale = (1 / math.sqrt(in_dim)) * lr_mul
            self.lr_mul = lr_mul

        def forward(self, x):
            if self.activation:
                out = F.linear(x, self.weight * self.scale)
                return F.leaky_relu(out + self.bias * self.lr_mul, 0.2) * math.sqrt(2)
            return F.linear(x, self.weight * self.scale, bias=self.bias * self.lr_mul)

        def extra_repr(self):
            return f"{self.weight.shape[1]}, {self.weight.shape[0]}"

    layers = [PixelNorm()] + [EqualLinear(8, 8, lr_mul=0.01, activation=True) for _ in range(4)]
    style = nn.Sequential(*layers).to(dt)
    rec("repr", repr(style))
    z = lib.randn(6, 8, dtype=dt)
    w = style(z)
    rec("w", w)
    # truncation trick with the running mean latent
    w_avg = lib.zeros(8, dtype=dt)
    for _ in range(3):
        w_batch = style(lib.randn(16, 8, dtype=dt)).detach()
        w_avg.lerp_(w_batch.mean(0), 1 - 0.995)
    rec("w_avg", w_avg)
    mean_latent = style(lib.randn(64, 8, dtype=dt)).mean(0, keepdim=True)
    psi = 0.7
    w_trunc = mean_latent + psi * (w - mean_latent)
    rec("w_trunc", w_trunc)
    rec("w_trunc_lerp", lib.lerp(mean_latent.expand_as(w), w, psi))
    # style mixing: swap at a random crossover index per sample
    n_latent = 5
    w2 = style(lib.randn(6, 8, dtype=dt))
    cutoff = lib.randint(1, n_latent, ())
    ws = w.unsqueeze(1).repeat(1, n_latent, 1)
    ws2 = w2.unsqueeze(1).repeat(1, n_latent, 1)
    mix = lib.where(lib.arange(n_latent)[None, :, None] < cutoff, ws, ws2)
    rec("cutoff", cutoff)
    rec("mix", mix)
    # path-length regularisation
    latents = w.detach().unsqueeze(1).repeat(1, n_latent, 1).requires_grad_(True)
    fake_img = lib.tanh(latents.sum(1) @ lib.randn(8, 12, dtype=dt)).view(6, 3, 2, 2)
    noise = lib.randn_like(fake_img) / math.sqrt(fake_img.shape[2] * fake_img.shape[3])
    (grad,) = lib.autograd.grad((fake_img * noise).sum(), latents, create_graph=True)
    path_lengths = lib.sqrt(grad.pow(2).sum(2).mean(1))
    mean_path = lib.zeros((), dtype=dt)
    path_mean = mean_path + 0.01 * (path_lengths.mean() - mean_path)
    path_penalty = (path_lengths - path_mean).pow(2).mean()
    rec("path_lengths", path_lengths)
    rec("path_penalty", path_penalty)
    path_penalty.backward()
    rec("lat_grad", latents.grad)
    loss = w.square().mean()
    loss.backward()
    rec.params("style", style, grads=True)


def p_modconv(lib, dt, rec):
    lib.manual_seed(10)
    nn, F = lib.nn, lib.nn.functional

    class ModulatedConv2d(nn.Module):
        def __init__(self, cin, cout, k, style_dim, demodulate=True, upsample=False):
            super().__init__()
            self.eps = 1e-8
            self.k, self.cin, self.cout = k, cin, cout
            self.upsample = upsample
            self.scale = 1 / math.sqrt(cin * k**2)
            self.padding = k // 2
            self.weight = nn.Parameter(lib.randn(1, cout, cin, k, k))
            self.modulation = nn.Linear(style_dim, cin)
            nn.init.constant_(self.modulation.bias, 1.0)
            self.demodulate = demodulate

        def forward(self, x, style):
            b, cin, h, w = x.shape
            s = self.modulation(style).view(b, 1, cin, 1, 1)
            weight = self.scale * self.weight * s
            if self.demodulate:
                demod = lib.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8)
                weight = weight * demod.view(b, self.cout, 1, 1, 1)
            if self.upsample:
                weight = weight.view(b, self.cout, cin, self.k, self.k)
                weight = weight.transpose(1, 2).reshape(b * cin, self.cout, self.k, self.k)
                x = x.view(1, b * cin, h, w)
                out = F.conv_transpose2d(x, weight, padding=0, stride=2, groups=b)
                _, _, h2, w2 = out.shape
                return out.view(b, self.cout, h2, w2)
            weight = weight.view(b * self.cout, cin, self.k, self.k)
            x = x.reshape(1, b * cin, h, w)
            out = F.conv2d(x, weight, padding=self.padding, groups=b)
            return out.view(b, self.cout, out.shape[2], out.shape[3])

    class NoiseInjection(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(lib.zeros(1))

        def forward(self, image, noise=None):
            if noise is None:
                batch, _, height, width = image.shape
                noise = image.new_empty(batch, 1, height, width).normal_()
            return image + self.weight * noise

    class StyledConv(nn.Module):
        def __init__(self, cin, cout, style_dim, upsample=False):
            super().__init__()
            self.conv = ModulatedConv2d(cin, cout, 3, style_dim, upsample=upsample)
            self.noise = NoiseInjection()
            self.bias = nn.Parameter(lib.zeros(1, cout, 1, 1))

        def forward(self, x, style, noise=None):
            out = self.noise(self.conv(x, style), noise=noise)
            return F.leaky_relu(out + self.bias, 0.2) * math.sqrt(2)

    class ConstantInput(nn.Module):
        def __init__(self, channel, size=4):
            super().__init__()
            self.input = nn.Parameter(lib.randn(1, channel, size, size))

        def forward(self, x):
            return self.input.repeat(x.shape[0], 1, 1, 1)

    const = ConstantInput(3).to(dt)
    c1 = StyledConv(3, 4, 5).to(dt)
    c2 = StyledConv(4, 2, 5, upsample=True).to(dt)
    to_rgb = ModulatedConv2d(2, 3, 1, 5, demodulate=False).to(dt)
    with lib.no_grad():
        c1.noise.weight.fill_(0.1)
        c2.noise.weight.fill_(0.05)
    style = lib.randn(2, 5, dtype=dt)
    h = c1(const(style), style)
    rec("h1", h)
    h = c2(h, style)
    rec("h2.shape", str(tuple(h.shape)))
    rec("h2", h)
    rgb = to_rgb(h, style)
    rec("rgb", rgb)
    # skip connection upsampled by a blur-free bilinear interpolation
    skip = F.interpolate(const(style), size=rgb.shape[-2:], mode="bilinear", align_corners=False)
    img = rgb + skip
    loss = img.square().mean()
    loss.backward()
    for name, m in [("c1", c1), ("c2", c2), ("rgb", to_rgb), ("const", const)]:
        rec.params(name, m, grads=True)
    # the grouped path equals a per-sample loop of ordinary convolutions
    mc = c1.conv
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    grouped = mc(x, style)
    per = []
    for i in range(2):
        s = mc.modulation(style[i : i + 1]).view(1, 1, 3, 1, 1)
        wgt = (mc.scale * mc.weight * s)[0]
        wgt = wgt * lib.rsqrt(wgt.pow(2).sum([1, 2, 3], keepdim=True) + 1e-8)
        per.append(F.conv2d(x[i : i + 1], wgt, padding=1))
    rec("grouped_vs_loop", (grouped - lib.cat(per)).abs().max() < 1e-5)
    rec("grouped", grouped)


def p_mbstd(lib, dt, rec):
    lib.manual_seed(11)
    x = lib.randn(8, 4, 3, 3, dtype=dt)

    # StyleGAN2's version: groups of size 4, one feature
    def mbstd(x, group_size=4, num_channels=1):
        N, C, H, W = x.shape
        G = min(group_size, N)
        F_ = num_channels
        c = C // F_
        y = x.reshape(G, -1, F_, c, H, W)
        y = y - y.mean(dim=0)
        y = y.square().mean(dim=0)
        y = (y + 1e-8).sqrt()
        y = y.mean(dim=[2, 3, 4])
        y = y.reshape(-1, F_, 1, 1)
        y = y.repeat(G, 1, H, W)
        return lib.cat([x, y], dim=1)

    out = mbstd(x)
    rec("out", out[:, -1])
    rec("shape", str(tuple(out.shape)))
    rec("two", mbstd(x, 2, 2)[:, -2:])

    # ProGAN's version: std over the whole batch
    def mbstd_pg(x):
        std = lib.std(x, dim=0, unbiased=False)
        mean_std = std.mean().expand(x.size(0), 1, x.size(2), x.size(3))
        return lib.cat([x, mean_std], 1)

    xr = x.clone().requires_grad_()
    o2 = mbstd_pg(xr)
    rec("pg", o2[:, -1, 0, 0])
    o2.pow(2).sum().backward()
    rec("pg.grad", xr.grad)
    # variance with group view and the unbiased torch.var_mean
    v, m = lib.var_mean(x.view(2, 4, -1), dim=1, correction=1)
    rec("var", v)
    rec("mean", m)
    xs = x.clone().requires_grad_()
    y = mbstd(xs)
    (g,) = lib.autograd.grad(y[:, -1].sum(), xs, create_graph=True)
    rec("g", g)
    rec("gg", lib.autograd.grad(g.pow(2).sum(), xs)[0])


def p_ema(lib, dt, rec):
    lib.manual_seed(12)
    nn = lib.nn
    G = nn.Sequential(nn.Linear(4, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    G = G.to(dt)
    G_ema = copy.deepcopy(G).eval()
    G_ema.requires_grad_(False)
    rec("ema.rg", str([p.requires_grad for p in G_ema.parameters()]))
    opt = lib.optim.Adam(G.parameters(), lr=0.01, betas=(0.0, 0.99))
    ema_beta = 0.9

    def accumulate(model1, model2, decay=0.999):
        par1 = dict(model1.named_parameters())
        par2 = dict(model2.named_parameters())
        for k in par1.keys():
            par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)

    for it in range(4):
        x = lib.randn(6, 4, dtype=dt)
        loss = G(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            for p_ema, p in zip(G_ema.parameters(), G.parameters(), strict=True):
                p_ema.copy_(p.lerp(p_ema, ema_beta))
            for b_ema, b in zip(G_ema.buffers(), G.buffers(), strict=True):
                b_ema.copy_(b)
        rec(f"loss{it}", loss)
    rec.params("ema", G_ema)
    rec("ema.rm", G_ema[1].running_mean)
    rec("ema.nbt", G_ema[1].num_batches_tracked)
    G2 = copy.deepcopy(G_ema)
    accumulate(G2, G, 0.5)
    rec.params("acc", G2)
    # ema with torch.optim.swa_utils.AveragedModel and a custom avg_fn
    avg = lib.optim.swa_utils.AveragedModel(
        G, avg_fn=lambda avg_p, p, n: 0.9 * avg_p + 0.1 * p, use_buffers=True
    )
    for _ in range(2):
        with lib.no_grad():
            for p in G.parameters():
                p.add_(0.01)
        avg.update_parameters(G)
    rec("avg.n", avg.n_averaged)
    rec.params("avg", avg.module)
    rec("avg.keys", str(list(avg.state_dict().keys())[:4]))
    # ema via _foreach_lerp_ as newer trainers do
    ps = [p.detach().clone() for p in G.parameters()]
    lib._foreach_lerp_(ps, [p.detach() for p in G_ema.parameters()], 0.25)
    rec("foreach", ps[0])
    rec("eval_out", G_ema(lib.ones(2, 4, dtype=dt)))


def p_cyclegan(lib, dt, rec):
    lib.manual_seed(13)
    random.seed(13)
    nn = lib.nn

    class ResnetBlock(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.conv_block = nn.Sequential(
                nn.ReflectionPad2d(1),
                nn.Conv2d(dim, dim, kernel_size=3, padding=0, bias=True),
                nn.InstanceNorm2d(dim),
                nn.ReLU(True),
                nn.ReflectionPad2d(1),
                nn.Conv2d(dim, dim, kernel_size=3, padding=0, bias=True),
                nn.InstanceNorm2d(dim),
            )

        def forward(self, x):
            return x + self.conv_block(x)

    def make_G():
        return nn.Sequential(
            nn.ReflectionPad2d(2),
            nn.Conv2d(3, 4, 5),
            nn.InstanceNorm2d(4, affine=False),
            nn.ReLU(True),
            nn.Conv2d(4, 8, 3, stride=2, padding=1),
            nn.InstanceNorm2d(8),
            nn.ReLU(True),
            ResnetBlock(8),
            nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
            nn.InstanceNorm2d(4),
            nn.ReLU(True),
            nn.ReflectionPad2d(2),
            nn.Conv2d(4, 3, 5),
            nn.Tanh(),
        )

    def make_D():
        return nn.Sequential(
            nn.Conv2d(3, 4, 4, 2, 1),
            nn.LeakyReLU(0.2, True),
            nn.Conv2d(4, 8, 4, 2, 1),
            nn.InstanceNorm2d(8, affine=True),
            nn.LeakyReLU(0.2, True),
            nn.Conv2d(8, 1, 3, 1, 1),
        )

    def init_weights(m):
        classname = m.__class__.__name__
        if hasattr(m, "weight") and (classname.find("Conv") != -1):
            nn.init.normal_(m.weight.data, 0.0, 0.02)
            if hasattr(m, "bias") and m.bias is not None:
                nn.init.constant_(m.bias.data, 0.0)
        elif classname.find("InstanceNorm2d") != -1 and m.weight is not None:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0.0)

    G_AB, G_BA, D_A, D_B = (f().to(dt) for f in (make_G, make_G, make_D, make_D))
    for net in (G_AB, G_BA, D_A, D_B):
        net.apply(init_weights)

    class ImagePool:
        def __init__(self, pool_size):
            self.pool_size = pool_size
            self.num_imgs = 0
            self.images = []

        def query(self, images):
            return_images = []
            for image in images:
                image = lib.unsqueeze(image.data, 0)
                if self.num_imgs < self.pool_size:
                    self.num_imgs = self.num_imgs + 1
                    self.images.append(image)
                    return_images.append(image)
                else:
                    p = random.uniform(0, 1)
                    if p > 0.5:
                        random_id = random.randint(0, self.pool_size - 1)
                        tmp = self.images[random_id].clone()
                        self.images[random_id] = image
                        return_images.append(tmp)
                    else:
                        return_images.append(image)
            return lib.cat(return_images, 0)

    pool_A, pool_B = ImagePool(3), ImagePool(3)
    gan_loss, cycle_loss, idt_loss = nn.MSELoss(), nn.L1Loss(), nn.L1Loss()
    optG = lib.optim.Adam(
        itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999)
    )
    optD = lib.optim.Adam(
        itertools.chain(D_A.parameters(), D_B.parameters()), lr=2e-4, betas=(0.5, 0.999)
    )
    n_epochs, decay_start = 4, 2

    def lambda_rule(epoch):
        return 1.0 - max(0, epoch + 1 - decay_start) / float(n_epochs - decay_start + 1)

    schG = lib.optim.lr_scheduler.LambdaLR(optG, lr_lambda=lambda_rule)
    schD = lib.optim.lr_scheduler.LambdaLR(optD, lr_lambda=lambda_rule)

    def set_requires_grad(nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    for epoch in range(n_epochs):
        real_A = lib.rand(2, 3, 8, 8, dtype=dt) * 2 - 1
        real_B = lib.rand(2, 3, 8, 8, dtype=dt) * 2 - 1
        fake_B = G_AB(real_A)
        rec_A = G_BA(fake_B)
        fake_A = G_BA(real_B)
        rec_B = G_AB(fake_A)
        set_requires_grad([D_A, D_B], False)
        optG.zero_grad()
        idt_A = G_AB(real_B)
        idt_B = G_BA(real_A)
        loss_idt = idt_loss(idt_A, real_B) * 10 * 0.5 + idt_loss(idt_B, real_A) * 10 * 0.5
        pa = D_A(fake_B)
        pb = D_B(fake_A)
        loss_G = (
            gan_loss(pa, lib.ones_like(pa))
            + gan_loss(pb, lib.tensor(1.0, dtype=dt).expand_as(pb))
            + cycle_loss(rec_A, real_A) * 10
            + cycle_loss(rec_B, real_B) * 10
            + loss_idt
        )
        loss_G.backward()
        optG.step()
        set_requires_grad([D_A, D_B], True)
        optD.zero_grad()
        fb = pool_B.query(fake_B)
        fa = pool_A.query(fake_A)
        loss_D = 0
        for D, real, fk in ((D_A, real_B, fb), (D_B, real_A, fa)):
            pr = D(real)
            pf = D(fk.detach())
            loss_D = (
                loss_D + (gan_loss(pr, lib.ones_like(pr)) + gan_loss(pf, lib.zeros_like(pf))) * 0.5
            )
        loss_D.backward()
        optD.step()
        schG.step()
        schD.step()
        rec(f"loss_G{epoch}", loss_G)
        rec(f"loss_D{epoch}", loss_D)
        rec(f"lr{epoch}", optG.param_groups[0]["lr"])
        rec(f"pool{epoch}", lib.stack([im.sum() for im in pool_B.images]))
    rec("last_lr", str(schD.get_last_lr()))
    params(rec, "D_A", D_A, grads=True, skip=("2.bias",))
    rec("G_AB.w0", G_AB[1].weight)
    rec("G_BA.res", G_BA[7].conv_block[1].weight.grad)


def p_progressive(lib, dt, rec):
    lib.manual_seed(14)
    nn, F = lib.nn, lib.nn.functional

    class WSConv2d(nn.Module):
        def __init__(self, cin, cout, k=3, s=1, p=1, gain=2):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, s, p)
            self.scale = (gain / (cin * k**2)) ** 0.5
            self.bias = self.conv.bias
            self.conv.bias = None
            nn.init.normal_(self.conv.weight)
            nn.init.zeros_(self.bias)

        def forward(self, x):
            return self.conv(x * self.scale) + self.bias.view(1, self.bias.shape[0], 1, 1)

    class PixelNorm(nn.Module):
        def forward(self, x):
            return x / lib.sqrt(lib.mean(x**2, dim=1, keepdim=True) + 1e-8)

    gen_blocks = nn.ModuleList([WSConv2d(4, 4), WSConv2d(4, 4)]).to(dt)
    to_rgb = nn.ModuleList([WSConv2d(4, 3, 1, 1, 0, gain=1) for _ in range(3)]).to(dt)
    from_rgb = nn.ModuleList([WSConv2d(3, 4, 1, 1, 0) for _ in range(3)]).to(dt)
    disc_blocks = nn.ModuleList([WSConv2d(4, 4), WSConv2d(4, 4)]).to(dt)
    pn = PixelNorm()
    rec("ws.keys", str(list(gen_blocks[0].state_dict().keys())))

    def fade_in(alpha, upscaled, generated):
        return lib.tanh(alpha * generated + (1 - alpha) * upscaled)

    def generate(x, alpha, steps):
        out = x
        if steps == 0:
            return to_rgb[0](out)
        for step in range(steps):
            upscaled = F.interpolate(out, scale_factor=2, mode="nearest")
            out = pn(F.leaky_relu(gen_blocks[step](upscaled), 0.2))
        return fade_in(alpha, to_rgb[steps - 1](upscaled), to_rgb[steps](out))

    def discriminate(x, alpha, steps):
        out = F.leaky_relu(from_rgb[steps](x), 0.2)
        if steps == 0:
            return out.mean([1, 2, 3])
        downscaled = F.leaky_relu(
            from_rgb[steps - 1](F.avg_pool2d(x, kernel_size=2, stride=2)), 0.2
        )
        out = F.avg_pool2d(F.leaky_relu(disc_blocks[steps - 1](out), 0.2), 2)
        out = alpha * out + (1 - alpha) * downscaled
        for step in range(steps - 2, -1, -1):
            out = F.avg_pool2d(F.leaky_relu(disc_blocks[step](out), 0.2), 2)
        return out.mean([1, 2, 3])

    x = lib.randn(2, 4, 2, 2, dtype=dt)
    params = [*gen_blocks.parameters(), *to_rgb.parameters()]
    params += [*from_rgb.parameters(), *disc_blocks.parameters()]
    opt = lib.optim.Adam(params, lr=1e-3, betas=(0.0, 0.99))
    for steps in (1, 2):
        for alpha in (0.0, 0.5, 1.0):
            img = generate(x, alpha, steps)
            score = discriminate(img, alpha, steps)
            real = F.interpolate(lib.rand(2, 3, 8, 8, dtype=dt), size=img.shape[-2:], mode="area")
            loss = F.softplus(score).mean() + F.softplus(-discriminate(real, alpha, steps)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"img{steps}_{alpha}", img)
            rec(f"loss{steps}_{alpha}", loss)
    rec("bilinear", F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True))
    rec("up_module", nn.Upsample(scale_factor=2, mode="nearest")(x)[0, 0])
    rec("down_module", nn.AvgPool2d(2)(img).flatten())
    rec("g0", gen_blocks[0].conv.weight)
    rec("b1", disc_blocks[1].bias)


def p_fid(lib, dt, rec):
    lib.manual_seed(15)
    feat_real = lib.randn(64, 6, dtype=dt) @ lib.randn(6, 6, dtype=dt) * 0.5 + 1
    feat_fake = lib.randn(64, 6, dtype=dt) @ lib.randn(6, 6, dtype=dt) * 0.4 + 0.8

    def stats(f):
        mu = f.mean(0)
        diff = f - mu
        sigma = diff.T @ diff / (f.shape[0] - 1)
        return mu, sigma

    def sqrtm_psd(a):
        vals, vecs = lib.linalg.eigh(a)
        vals = vals.clamp(min=0)
        return (vecs * vals.sqrt()) @ vecs.T

    mu1, s1 = stats(feat_real)
    mu2, s2 = stats(feat_fake)
    rec("mu1", mu1)
    rec("cov_eq", lib.allclose(s1, lib.cov(feat_real.T)))
    rec("s1", s1)
    r1 = sqrtm_psd(s1)
    rec("sqrt_sq", (r1 @ r1 - s1).abs().max() < 1e-3)
    covmean = sqrtm_psd(r1 @ s2 @ r1)
    fid = (mu1 - mu2).square().sum() + lib.trace(s1) + lib.trace(s2) - 2 * lib.trace(covmean)
    rec("fid", fid)
    # the eigenvalue form: trace of sqrt(s1 s2) = sum of sqrt of eigenvalues of r1 s2 r1
    ev2 = lib.linalg.eigvalsh(r1 @ s2 @ r1)
    rec("tr_eigh", ev2.clamp(min=0).sqrt().sum())
    # the same through float64 on a float32 feature bank, then the kid (polynomial kernel MMD)
    f64 = feat_real.double()
    rec("mu64", f64.mean(0))
    d = feat_real.shape[1]

    def kernel(x, y):
        return (x @ y.T / d + 1) ** 3

    m = 32
    kxx = kernel(feat_real[:m], feat_real[:m])
    kyy = kernel(feat_fake[:m], feat_fake[:m])
    kxy = kernel(feat_real[:m], feat_fake[:m])
    mmd = (
        (kxx.sum() - kxx.diagonal().sum()) / (m * (m - 1))
        + (kyy.sum() - kyy.diagonal().sum()) / (m * (m - 1))
        - 2 * kxy.mean()
    )
    rec("kid", mmd)
    # inception score style: softmax, marginal, kl
    logits = feat_fake @ lib.randn(6, 5, dtype=dt)
    py_x = lib.softmax(logits, dim=1)
    py = py_x.mean(0, keepdim=True)
    kl = (py_x * (lib.log(py_x + 1e-12) - lib.log(py + 1e-12))).sum(1).mean()
    rec("is", lib.exp(kl))
    rec("kl_div", lib.nn.functional.kl_div(py.log().expand_as(py_x), py_x, reduction="batchmean"))
    # precision/recall by k-nn radii
    dist_rr = lib.cdist(feat_real, feat_real)
    radii = dist_rr.kthvalue(4, dim=1).values
    dist_fr = lib.cdist(feat_fake, feat_real)
    precision = (dist_fr <= radii[None, :]).any(1).float().mean()
    rec("radii", radii[:8])
    rec("precision", precision)


def p_checkpoint(lib, dt, rec):
    lib.manual_seed(16)
    nn = lib.nn
    G, D = dcgan_models(lib, dt, nz=4, ngf=2, ndf=2, nc=1)
    optG = lib.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    crit = nn.BCELoss()

    def train_step():
        real = lib.rand(3, 1, 16, 16, dtype=dt) * 2 - 1
        z = lib.randn(3, 4, 1, 1, dtype=dt)
        fake = G(z)
        optD.zero_grad()
        o_r, o_f = D(real).view(-1), D(fake.detach()).view(-1)
        ld = crit(o_r, lib.ones_like(o_r)) + crit(o_f, lib.zeros_like(o_f))
        ld.backward()
        optD.step()
        optG.zero_grad()
        o = D(fake).view(-1)
        lg = crit(o, lib.ones_like(o))
        lg.backward()
        optG.step()
        return ld.detach(), lg.detach()

    train_step()
    buf = io.BytesIO()
    lib.save(
        {
            "epoch": 1,
            "G": G.state_dict(),
            "D": D.state_dict(),
            "optG": optG.state_dict(),
            "optD": optD.state_dict(),
            "rng": lib.get_rng_state(),
        },
        buf,
    )
    cont = [train_step() for _ in range(2)]
    buf.seek(0)
    ck = lib.load(buf, weights_only=False)
    rec("epoch", ck["epoch"])
    rec("keys", str(list(ck["G"].keys())))
    rec("optG.keys", str(list(ck["optG"].keys())))
    rec("nbt", ck["D"]["3.num_batches_tracked"])
    G.load_state_dict(ck["G"])
    D.load_state_dict(ck["D"])
    optG.load_state_dict(ck["optG"])
    optD.load_state_dict(ck["optD"])
    lib.set_rng_state(ck["rng"])
    again = [train_step() for _ in range(2)]
    for i, ((a1, a2), (b1, b2)) in enumerate(zip(cont, again, strict=True)):
        rec(f"cont{i}", lib.stack([a1, a2]))
        rec(f"again{i}", lib.stack([b1, b2]))
        rec(f"equal{i}", lib.equal(a1, b1) and lib.equal(a2, b2))
    rec("optG.state", optG.state_dict()["state"][0]["exp_avg"])
    rec("optG.pg", str(optG.state_dict()["param_groups"][0]["params"]))
    # a weights_only load of a plain state_dict and strict=False with missing keys
    buf2 = io.BytesIO()
    lib.save(G.state_dict(), buf2)
    buf2.seek(0)
    sd = lib.load(buf2, weights_only=True)
    sd.pop("1.num_batches_tracked")
    res = G.load_state_dict(sd, strict=False)
    rec("missing", str(res.missing_keys))
    rec("unexpected", str(res.unexpected_keys))
    rec("res", repr(res))
    r = rec.err("strict", lambda: G.load_state_dict(sd))
    del r


def p_truncation(lib, dt, rec):
    lib.manual_seed(17)
    nn = lib.nn
    # truncated noise by resampling (BigGAN)
    thr = 0.5
    z = lib.randn(6, 5, dtype=dt)
    for _ in range(50):
        bad = z.abs() > thr
        if not bad.any():
            break
        z = lib.where(bad, lib.randn(6, 5, dtype=dt), z)
    rec("resample", z)
    rec("resample_max", z.abs().max() <= thr)
    # by fmod and clamp
    z2 = lib.fmod(lib.randn(4, 5, dtype=dt), 2.0)
    rec("fmod", z2)
    rec("clamp", lib.randn(4, 5, dtype=dt).clamp(-1.5, 1.5))
    # trunc_normal_ initialisation
    w = lib.empty(6, 7, dtype=dt)
    nn.init.trunc_normal_(w, mean=0.0, std=1.0, a=-thr, b=thr)
    rec("trunc_normal", w)
    w2 = lib.empty(300, dtype=dt)
    nn.init.trunc_normal_(w2, std=0.02)
    rec("tn_std", w2.std())
    # truncation in w space with per-layer cutoff
    w_avg = lib.randn(8, dtype=dt)
    ws = lib.randn(3, 4, 8, dtype=dt)
    psi = lib.where(lib.arange(4) < 2, 0.7, 1.0).to(dt).view(1, 4, 1)
    rec("psi", psi.flatten())
    rec("w_trunc", w_avg + psi * (ws - w_avg))
    rec("w_lerp", w_avg.lerp(ws, psi))
    # sampling with a fixed generator and the interpolation of latents (slerp)
    g = lib.Generator().manual_seed(3)
    a = lib.randn(5, generator=g, dtype=dt)
    b = lib.randn(5, generator=g, dtype=dt)
    a_n, b_n = a / a.norm(), b / b.norm()
    omega = lib.acos((a_n * b_n).sum().clamp(-1, 1))
    ts = lib.linspace(0, 1, 5, dtype=dt)[:, None]
    slerp = (lib.sin((1 - ts) * omega) * a + lib.sin(ts * omega) * b) / lib.sin(omega)
    rec("slerp", slerp)
    rec("lerp_path", lib.lerp(a, b, ts))
    tn = lib.distributions.Normal(0.0, 1.0)
    u = lib.rand(5, dtype=dt) * (tn.cdf(lib.tensor(thr)) - tn.cdf(lib.tensor(-thr))).to(dt)
    rec("icdf_trunc", tn.icdf(tn.cdf(lib.tensor(-thr)).to(dt) + u))


def p_errors(lib, dt, rec):
    lib.manual_seed(18)
    nn = lib.nn
    crit = nn.BCELoss()
    D = nn.Sequential(nn.Linear(3, 1), nn.Sigmoid()).to(dt)
    x = lib.randn(4, 3, dtype=dt)
    out = D(x)
    # the labels forgot the trailing dimension
    rec.err("bce_size", lambda: crit(out, lib.ones(4, dtype=dt)))
    rec.err("bce_range", lambda: crit(out * 3, lib.ones(4, 1, dtype=dt)))
    rec.err("bce_target_range", lambda: crit(out, lib.full((4, 1), 2.0, dtype=dt)))
    rec.err("bce_dtype", lambda: crit(out, lib.ones(4, 1, dtype=lib.long)))
    rec.err("bcel_size", lambda: nn.BCEWithLogitsLoss()(out, lib.ones(3, 1, dtype=dt)))
    # reusing the fake's graph for G after D's backward freed it
    G = nn.Linear(2, 3).to(dt)
    fake = G(lib.randn(4, 2, dtype=dt))
    lossD = crit(D(fake), lib.zeros(4, 1, dtype=dt))
    lossD.backward()
    rec.err("second_backward", lambda: lossD.backward())
    # inplace LeakyReLU after a sigmoid whose output autograd needs
    h = lib.sigmoid(lib.randn(3, dtype=dt, requires_grad=True))
    y = nn.LeakyReLU(0.2, inplace=True)(h)
    rec.err("inplace", lambda: y.sum().backward())
    # gradient penalty without requires_grad on the interpolates
    inter = lib.rand(2, 3, dtype=dt)
    rec.err("gp_no_grad", lambda: lib.autograd.grad(D(inter).sum(), inter))
    xin = lib.rand(2, 3, dtype=dt, requires_grad=True)
    rec.err("gp_unused", lambda: lib.autograd.grad(D(x).sum(), xin))
    rec.err(
        "gp_outputs_shape",
        lambda: lib.autograd.grad(D(xin), xin, grad_outputs=lib.ones(2, dtype=dt)),
    )
    # spectral norm twice, on a missing name
    lin = nn.utils.spectral_norm(nn.Linear(2, 2))
    rec.err("sn_twice", lambda: nn.utils.spectral_norm(lin))
    rec.err("sn_missing", lambda: nn.utils.spectral_norm(nn.ReLU()))
    rec.err("sn_remove", lambda: nn.utils.remove_spectral_norm(nn.Linear(2, 2)))
    rec.err("psn_missing", lambda: nn.utils.parametrizations.spectral_norm(nn.ReLU()))
    # wrong latent shape into ConvTranspose2d and a channel mismatch
    ct = nn.ConvTranspose2d(4, 2, 4).to(dt)
    rec.err("ct_shape", lambda: ct(lib.randn(3, 5, 1, 1, dtype=dt)))
    rec.err("embedding_float", lambda: nn.Embedding(3, 2)(lib.tensor([0.0, 1.0])))
    rec.err("embedding_range", lambda: nn.Embedding(3, 2)(lib.tensor([0, 3])))
    bn = nn.BatchNorm1d(3).to(dt)
    rec.err("bn_one", lambda: bn(lib.randn(1, 3, dtype=dt)))
    rec.err("cat_dims", lambda: lib.cat([lib.zeros(2, 3), lib.zeros(2, 1, 1)], 1))
    rec.err("adam_betas", lambda: lib.optim.Adam(D.parameters(), betas=(1.0, 0.999)))
    rec.err("clamp_leaf", lambda: next(D.parameters()).clamp_(-0.01, 0.01))
    rec.err(
        "interp",
        lambda: nn.functional.interpolate(lib.zeros(1, 1, 2, 2), scale_factor=2, mode="linear"),
    )


def p_sagan(lib, dt, rec):
    lib.manual_seed(19)
    nn, F = lib.nn, lib.nn.functional
    SN = nn.utils.spectral_norm

    class SelfAttn(nn.Module):
        def __init__(self, in_dim):
            super().__init__()
            self.query_conv = SN(nn.Conv2d(in_dim, in_dim // 2, 1))
            self.key_conv = SN(nn.Conv2d(in_dim, in_dim // 2, 1))
            self.value_conv = nn.Conv2d(in_dim, in_dim, 1)
            self.gamma = nn.Parameter(lib.zeros(1))
            self.softmax = nn.Softmax(dim=-1)

        def forward(self, x):
            b, c, w, h = x.size()
            q = self.query_conv(x).view(b, -1, w * h).permute(0, 2, 1)
            k = self.key_conv(x).view(b, -1, w * h)
            energy = lib.bmm(q, k)
            attention = self.softmax(energy)
            v = self.value_conv(x).view(b, -1, w * h)
            out = lib.bmm(v, attention.permute(0, 2, 1))
            out = out.view(b, c, w, h)
            return self.gamma * out + x, attention

    attn = SelfAttn(4).to(dt)
    with lib.no_grad():
        attn.gamma.fill_(0.5)
    x = lib.randn(2, 4, 3, 3, dtype=dt, requires_grad=True)
    y, a = attn(x)
    rec("attn", a[0, :3])
    rec("y", y)
    rec("rowsum", a.sum(-1))
    y.square().sum().backward()
    rec("x.grad", x.grad)
    rec("gamma.grad", attn.gamma.grad)
    rec("q.grad", attn.query_conv.weight_orig.grad)
    # the same attention through scaled_dot_product_attention with scale=1
    q = attn.query_conv(x).flatten(2).transpose(1, 2)
    k = attn.key_conv(x).flatten(2).transpose(1, 2)
    v = attn.value_conv(x).flatten(2).transpose(1, 2)
    sdpa = F.scaled_dot_product_attention(q, k, v, scale=1.0)
    rec("sdpa", sdpa)
    rec("attn_w", lib.einsum("bij,bjc->bic", lib.softmax(q @ k.transpose(1, 2), -1), v))
    rec("keys", str(sorted(attn.state_dict().keys())))


def p_srgan(lib, dt, rec):
    lib.manual_seed(20)
    nn = lib.nn

    class ResidualBlock(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.block = nn.Sequential(
                nn.Conv2d(c, c, 3, 1, 1),
                nn.BatchNorm2d(c, 0.8),
                nn.PReLU(),
                nn.Conv2d(c, c, 3, 1, 1),
                nn.BatchNorm2d(c, 0.8),
            )

        def forward(self, x):
            return x + self.block(x)

    class Gen(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Sequential(nn.Conv2d(3, 8, 5, 1, 2), nn.PReLU())
            self.res = nn.Sequential(ResidualBlock(8), ResidualBlock(8))
            self.conv2 = nn.Sequential(nn.Conv2d(8, 8, 3, 1, 1), nn.BatchNorm2d(8, 0.8))
            self.up = nn.Sequential(
                nn.Conv2d(8, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.PixelShuffle(2), nn.PReLU()
            )
            self.conv3 = nn.Sequential(nn.Conv2d(8, 3, 5, 1, 2), nn.Tanh())

        def forward(self, x):
            out1 = self.conv1(x)
            out = self.conv2(self.res(out1))
            return self.conv3(self.up(lib.add(out1, out)))

    G = Gen().to(dt)
    feat = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2)).to(dt)
    feat.eval()
    for p in feat.parameters():
        p.requires_grad = False
    D = nn.Sequential(
        nn.Conv2d(3, 4, 3, 2, 1), nn.LeakyReLU(0.2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4, 1),
    ).to(dt)  # fmt: skip
    mse, l1 = nn.MSELoss(), nn.L1Loss()
    bce = nn.BCEWithLogitsLoss()
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.9, 0.999))
    optD = lib.optim.Adam(D.parameters(), lr=1e-3)
    for it in range(2):
        hr = lib.rand(2, 3, 8, 8, dtype=dt) * 2 - 1
        lr_img = nn.functional.interpolate(
            hr, scale_factor=0.5, mode="bicubic", align_corners=False
        )
        sr = G(lr_img)
        optG.zero_grad()
        pred_fake = D(sr)
        # relativistic average GAN loss (ESRGAN)
        pred_real = D(hr).detach()
        loss_gan = bce(pred_fake - pred_real.mean(0, keepdim=True), lib.ones_like(pred_fake))
        loss_content = l1(feat(sr), feat(hr).detach())
        loss_G = loss_content + 5e-3 * loss_gan + 1e-2 * mse(sr, hr)
        loss_G.backward()
        optG.step()
        optD.zero_grad()
        pred_real = D(hr)
        pred_fake = D(sr.detach())
        loss_real = bce(pred_real - pred_fake.mean(0, keepdim=True), lib.ones_like(pred_real))
        loss_fake = bce(pred_fake - pred_real.mean(0, keepdim=True), lib.zeros_like(pred_fake))
        loss_D = (loss_real + loss_fake) / 2
        loss_D.backward()
        optD.step()
        rec(f"lr{it}", lr_img[0, 0])
        rec(f"sr{it}", sr)
        rec(f"G{it}", loss_G)
        rec(f"D{it}", loss_D)
        psnr = 10 * lib.log10(4.0 / mse(sr, hr))
        rec(f"psnr{it}", psnr)
    rec("prelu", G.conv1[1].weight)
    rec("prelu.grad", G.up[3].weight.grad)
    rec("feat.grad", str(feat[0].weight.grad))
    params(rec, "D", D, grads=True, skip=("4.bias",))


def p_biggan_cbn(lib, dt, rec):
    lib.manual_seed(21)
    nn, F = lib.nn, lib.nn.functional

    class ConditionalBatchNorm2d(nn.Module):
        def __init__(self, num_features, num_classes):
            super().__init__()
            self.num_features = num_features
            self.bn = nn.BatchNorm2d(num_features, affine=False)
            self.embed = nn.Embedding(num_classes, num_features * 2)
            self.embed.weight.data[:, :num_features].normal_(1, 0.02)
            self.embed.weight.data[:, num_features:].zero_()

        def forward(self, x, y):
            out = self.bn(x)
            gamma, beta = self.embed(y).chunk(2, 1)
            return gamma.view(-1, self.num_features, 1, 1) * out + beta.view(
                -1, self.num_features, 1, 1
            )

    class ProjD(nn.Module):
        def __init__(self, n_cls):
            super().__init__()
            self.conv = nn.utils.spectral_norm(nn.Conv2d(3, 6, 3, 1, 1))
            self.l = nn.utils.spectral_norm(nn.Linear(6, 1))
            self.embed = nn.utils.spectral_norm(nn.Embedding(n_cls, 6))
            nn.init.xavier_uniform_(self.l.weight_orig)

        def forward(self, x, y):
            h = F.relu(self.conv(x))
            h = lib.sum(h, dim=(2, 3))
            out = self.l(h)
            return out + lib.sum(self.embed(y) * h, dim=1, keepdim=True)

    cbn = ConditionalBatchNorm2d(3, 5).to(dt)
    D = ProjD(5).to(dt)
    nn.init.orthogonal_(D.conv.weight_orig)
    x = lib.randn(4, 3, 4, 4, dtype=dt)
    y = lib.tensor([0, 3, 3, 1])
    h = cbn(x, y)
    rec("cbn", h)
    rec("rm", cbn.bn.running_mean)
    d = D(h, y)
    rec("d", d)
    loss = F.relu(1 - d).mean()
    loss.backward()
    rec("embed.grad", cbn.embed.weight.grad)
    rec("conv.grad", D.conv.weight_orig.grad)
    rec("proj.grad", D.embed.weight_orig.grad)
    rec("orth", D.conv.weight_orig.flatten(1) @ D.conv.weight_orig.flatten(1).T)
    cbn.eval()
    rec("eval", cbn(x, y))
    # hierarchical latent: split z into chunks and concat each with the shared class embedding
    z = lib.randn(4, 12, dtype=dt)
    zs = lib.split(z, 4, dim=1)
    shared = nn.Embedding(5, 3).to(dt)(y)
    conds = [lib.cat([shared, item], 1) for item in zs]
    rec("conds", lib.stack(conds))
    rec("chunks", str([tuple(c.shape) for c in lib.tensor_split(z, 3, dim=1)]))
    # orthogonal regularisation of BigGAN, after a step has moved the weight off orthogonal
    lib.optim.SGD(D.parameters(), lr=0.1).step()
    w = D.conv.weight_orig.flatten(1)
    reg = lib.norm(w @ w.T * (1 - lib.eye(w.shape[0], dtype=dt)))
    rec("ortho_reg", reg)
    rec("ortho_reg_grad", lib.autograd.grad(reg, D.conv.weight_orig)[0])


def p_mlp_gan(lib, dt, rec):
    lib.manual_seed(22)
    nn = lib.nn
    G = nn.Sequential(nn.Linear(2, 16), nn.ELU(), nn.Linear(16, 16), nn.ELU(), nn.Linear(16, 2))
    D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1), nn.Sigmoid())
    G, D = G.to(dt), D.to(dt)
    optG = lib.optim.SGD(G.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    optD = lib.optim.SGD(D.parameters(), lr=0.05, momentum=0.9)
    sched = lib.optim.lr_scheduler.StepLR(optD, step_size=3, gamma=0.5)
    history = {"d": [], "g": []}
    for epoch in range(6):
        ang = lib.rand(16, dtype=dt) * 2 * math.pi
        real = lib.stack([lib.cos(ang), lib.sin(ang)], 1) * 2
        z = lib.randn(16, 2, dtype=dt)
        fake = G(z)
        d_real, d_fake = D(real), D(fake.detach())
        loss_d = -lib.mean(lib.log(d_real + 1e-8) + lib.log(1 - d_fake + 1e-8))
        optD.zero_grad()
        loss_d.backward()
        nn.utils.clip_grad_norm_(D.parameters(), 1.0)
        optD.step()
        sched.step()
        loss_g = -lib.mean(lib.log(D(fake) + 1e-8))
        optG.zero_grad()
        loss_g.backward()
        gn = nn.utils.clip_grad_norm_(G.parameters(), max_norm=0.5, norm_type=2.0)
        optG.step()
        history["d"].append(loss_d.item())
        history["g"].append(loss_g.item())
        rec(f"gn{epoch}", gn)
    rec("hist_d", history["d"])
    rec("hist_g", history["g"])
    rec("lr", str(sched.get_last_lr()))
    samples = G(lib.randn(200, 2, dtype=dt)).detach()
    rec("radius", samples.norm(dim=1).mean())
    rec("hist2d", lib.histc(samples[:, 0], bins=5, min=-3, max=3))
    rec("mode_cov", lib.cov(samples.T))
    rec.params("G", G, grads=True)
    rec("momentum_buf", optG.state[G[0].weight]["momentum_buffer"])


def p_equal_lr_hook(lib, dt, rec):
    # rosinality's style-based-gan-pytorch: equalized lr by a forward pre-hook
    lib.manual_seed(23)
    nn = lib.nn

    class EqualLR:
        def __init__(self, name):
            self.name = name

        def compute_weight(self, module):
            weight = getattr(module, self.name + "_orig")
            fan_in = weight.data.size(1) * weight.data[0][0].numel()
            return weight * math.sqrt(2 / fan_in)

        @staticmethod
        def apply(module, name):
            fn = EqualLR(name)
            weight = getattr(module, name)
            del module._parameters[name]
            module.register_parameter(name + "_orig", nn.Parameter(weight.data))
            module.register_forward_pre_hook(fn)
            return fn

        def __call__(self, module, input):
            weight = self.compute_weight(module)
            setattr(module, self.name, weight)

    def equal_lr(module, name="weight"):
        EqualLR.apply(module, name)
        return module

    class EqualConv2d(nn.Module):
        def __init__(self, *args, **kwargs):
            super().__init__()
            conv = nn.Conv2d(*args, **kwargs)
            conv.weight.data.normal_()
            conv.bias.data.zero_()
            self.conv = equal_lr(conv)

        def forward(self, input):
            return self.conv(input)

    class EqualLinear(nn.Module):
        def __init__(self, in_dim, out_dim):
            super().__init__()
            linear = nn.Linear(in_dim, out_dim)
            linear.weight.data.normal_()
            linear.bias.data.zero_()
            self.linear = equal_lr(linear)

        def forward(self, input):
            return self.linear(input)

    class AdaptiveInstanceNorm(nn.Module):
        def __init__(self, in_channel, style_dim):
            super().__init__()
            self.norm = nn.InstanceNorm2d(in_channel)
            self.style = EqualLinear(style_dim, in_channel * 2)
            self.style.linear.bias.data[:in_channel] = 1
            self.style.linear.bias.data[in_channel:] = 0

        def forward(self, input, style):
            style = self.style(style).unsqueeze(2).unsqueeze(3)
            gamma, beta = style.chunk(2, 1)
            return gamma * self.norm(input) + beta

    class NoiseInjection(nn.Module):
        def __init__(self, channel):
            super().__init__()
            self.weight = nn.Parameter(lib.zeros(1, channel, 1, 1))

        def forward(self, image, noise):
            return image + self.weight * noise

    conv = EqualConv2d(3, 4, 3, padding=1).to(dt)
    adain = AdaptiveInstanceNorm(4, 5).to(dt)
    noise = NoiseInjection(4).to(dt)
    nn.init.constant_(noise.weight, 0.1)
    rec("names", str([n for n, _ in conv.named_parameters()]))
    rec("keys", str(list(adain.state_dict().keys())))
    rec("hooks", len(conv.conv._forward_pre_hooks))
    x = lib.randn(2, 3, 4, 4, dtype=dt)
    style = lib.randn(2, 5, dtype=dt)
    n = lib.randn(2, 1, 4, 4, dtype=dt)
    out = adain(noise(nn.functional.leaky_relu(conv(x), 0.2), n), style)
    rec("out", out)
    rec("weight_attr", conv.conv.weight)
    params = list(conv.parameters()) + list(adain.parameters()) + list(noise.parameters())
    opt = lib.optim.Adam(params, lr=1e-3, betas=(0.0, 0.99))
    for it in range(3):
        out = adain(noise(nn.functional.leaky_relu(conv(x), 0.2), n), style)
        loss = out.pow(2).mean() + out.std()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{it}", loss)
    rec("w_orig.grad", conv.conv.weight_orig.grad)
    rec("style.grad", adain.style.linear.weight_orig.grad)
    rec("noise.grad", noise.weight.grad)
    # after a forward the hook's computed weight is no leaf: deepcopy refuses; its state_dict
    # round-trips
    rec.err("copy", lambda: copy.deepcopy(conv))
    del conv.conv.weight
    rec("copy_fresh", copy.deepcopy(conv)(x) - conv(x))
    c3 = EqualConv2d(3, 4, 3, padding=1).to(dt)
    c3.load_state_dict(conv.state_dict())
    rec("reload", c3(x) - conv(x))


def _upfirdn2d(lib, x, kernel, up=1, down=1, pad=(0, 0)):
    # rosinality's upfirdn2d_native with equal up/down/pad on both axes
    F = lib.nn.functional
    _, channel, in_h, in_w = x.shape
    x = x.reshape(-1, in_h, in_w, 1)
    _, in_h, in_w, minor = x.shape
    kernel_h, kernel_w = kernel.shape
    out = x.view(-1, in_h, 1, in_w, 1, minor)
    out = F.pad(out, [0, 0, 0, up - 1, 0, 0, 0, up - 1])
    out = out.view(-1, in_h * up, in_w * up, minor)
    pad0, pad1 = pad
    out = F.pad(out, [0, 0, max(pad0, 0), max(pad1, 0), max(pad0, 0), max(pad1, 0)])
    out = out[:, max(-pad0, 0) : out.shape[1] - max(-pad1, 0),
              max(-pad0, 0) : out.shape[2] - max(-pad1, 0), :]  # fmt: skip
    out = out.permute(0, 3, 1, 2)
    out = out.reshape([-1, 1, in_h * up + pad0 + pad1, in_w * up + pad0 + pad1])
    w = lib.flip(kernel, [0, 1]).view(1, 1, kernel_h, kernel_w)
    out = F.conv2d(out, w)
    out = out.reshape(-1, minor, in_h * up + pad0 + pad1 - kernel_h + 1,
                      in_w * up + pad0 + pad1 - kernel_w + 1)  # fmt: skip
    out = out.permute(0, 2, 3, 1)
    out = out[:, ::down, ::down, :]
    out_h = (in_h * up + pad0 + pad1 - kernel_h) // down + 1
    out_w = (in_w * up + pad0 + pad1 - kernel_w) // down + 1
    return out.view(-1, channel, out_h, out_w)


def p_upfirdn(lib, dt, rec):
    lib.manual_seed(24)
    F = lib.nn.functional

    def make_kernel(k):
        k = lib.tensor(k, dtype=dt)
        if k.ndim == 1:
            k = k[None, :] * k[:, None]
        return k / k.sum()

    k = make_kernel([1, 3, 3, 1])
    rec("kernel", k)
    x = lib.randn(2, 3, 6, 6, dtype=dt, requires_grad=True)
    up = _upfirdn2d(lib, x, k * 4, up=2, pad=(2, 1))
    rec("up", up)
    down = _upfirdn2d(lib, x, k, down=2, pad=(1, 1))
    rec("down", down)
    blur = _upfirdn2d(lib, x, k, pad=(2, 1))
    rec("blur", blur)
    # the same blur as a depthwise convolution, and a negative pad crop
    dw = F.conv2d(F.pad(x, (2, 1, 2, 1)), lib.flip(k, [0, 1]).expand(3, 1, 4, 4), groups=3)
    rec("blur_dw", dw)
    rec("crop", _upfirdn2d(lib, x, k, pad=(-1, -1)))
    (up.square().sum() + down.sum() + blur.abs().sum()).backward()
    rec("x.grad", x.grad)
    # conv_transpose upsampling then blur (StyleGAN2's ModulatedConv2d upsample path)
    w = lib.randn(3, 2, 3, 3, dtype=dt)
    y = F.conv_transpose2d(x.detach(), w, stride=2)
    rec("ct", y.shape)
    rec("ct_blur", _upfirdn2d(lib, y, k * 4, pad=(1, 1)))
    # bilinear and nearest upsampling with a fixed kernel, replicate padding
    rec("rep", F.pad(x.detach(), (1, 1, 1, 1), mode="replicate")[0, 0])
    rec("refl", F.pad(x.detach(), (2, 2, 0, 0), mode="reflect")[1, 2])
    rec("circ", F.pad(x.detach(), (1, 2, 2, 1), mode="circular")[0, 1])


def p_stylegan2_ada(lib, dt, rec):
    # StyleGAN2-ADA's reference paths (fused_modconv=False, bias_act in plain ops)
    lib.manual_seed(25)
    nn, F = lib.nn, lib.nn.functional

    def normalize_2nd_moment(x, dim=1, eps=1e-8):
        return x * (x.square().mean(dim=dim, keepdim=True) + eps).rsqrt()

    def bias_act(x, b, act="lrelu", alpha=0.2, gain=None, clamp=None):
        x = x + b.reshape([-1 if i == 1 else 1 for i in range(x.ndim)])
        if act == "lrelu":
            x = F.leaky_relu(x, alpha)
            gain = math.sqrt(2) if gain is None else gain
        if gain != 1:
            x = x * gain
        if clamp is not None:
            x = x.clamp(-clamp, clamp)
        return x

    def modulated_conv2d(x, weight, styles, noise=None, demodulate=True, padding=1):
        batch_size = x.shape[0]
        out_channels, in_channels, kh, kw = weight.shape
        if demodulate:
            weight = weight * (1 / math.sqrt(in_channels * kh * kw) / weight.norm(
                float("inf"), dim=[1, 2, 3], keepdim=True))  # fmt: skip
            styles = styles / styles.norm(float("inf"), dim=1, keepdim=True)
        w = weight.unsqueeze(0) * styles.reshape(batch_size, 1, -1, 1, 1)
        dcoefs = (w.square().sum(dim=[2, 3, 4]) + 1e-8).rsqrt() if demodulate else None
        x = x * styles.to(x.dtype).reshape(batch_size, -1, 1, 1)
        x = F.conv2d(x, weight.to(x.dtype), padding=padding)
        if demodulate and noise is not None:
            x = lib.addcmul(noise, x, dcoefs.to(x.dtype).reshape(batch_size, -1, 1, 1))
        elif demodulate:
            x = x * dcoefs.to(x.dtype).reshape(batch_size, -1, 1, 1)
        elif noise is not None:
            x = x.add_(noise.to(x.dtype))
        return x

    class FullyConnectedLayer(nn.Module):
        def __init__(self, in_features, out_features, bias_init=0.0, lr_multiplier=1.0):
            super().__init__()
            self.weight = nn.Parameter(lib.randn([out_features, in_features]) / lr_multiplier)
            self.bias = nn.Parameter(lib.full([out_features], float(bias_init)))
            self.weight_gain = lr_multiplier / math.sqrt(in_features)
            self.bias_gain = lr_multiplier

        def forward(self, x):
            w = self.weight.to(x.dtype) * self.weight_gain
            b = self.bias.to(x.dtype) * self.bias_gain
            return lib.addmm(b.unsqueeze(0), x, w.t())

    class SynthesisLayer(nn.Module):
        def __init__(self, cin, cout, w_dim, resolution):
            super().__init__()
            self.resolution = resolution
            self.affine = FullyConnectedLayer(w_dim, cin, bias_init=1)
            self.weight = nn.Parameter(lib.randn([cout, cin, 3, 3]))
            self.register_buffer("noise_const", lib.randn([resolution, resolution]))
            self.noise_strength = nn.Parameter(lib.zeros([]))
            self.bias = nn.Parameter(lib.zeros([cout]))

        def forward(self, x, w, noise_mode="random"):
            styles = self.affine(w)
            noise = None
            if noise_mode == "random":
                noise = lib.randn([x.shape[0], 1, self.resolution, self.resolution],
                                  dtype=x.dtype) * self.noise_strength  # fmt: skip
            if noise_mode == "const":
                noise = self.noise_const * self.noise_strength
            x = modulated_conv2d(x, self.weight, styles, noise=noise)
            return bias_act(x, self.bias.to(x.dtype), clamp=256)

    mapping = nn.ModuleList([FullyConnectedLayer(6, 6, lr_multiplier=0.01) for _ in range(2)])
    layer = SynthesisLayer(4, 3, 6, 5).to(dt)
    mapping = mapping.to(dt)
    with lib.no_grad():
        layer.noise_strength.fill_(0.3)
    z = lib.randn(3, 6, dtype=dt)
    with lib.autograd.profiler.record_function("mapping"):
        x = normalize_2nd_moment(z)
        for fc in mapping:
            x = bias_act(fc(x), fc.bias.new_zeros(6))
    rec("ws", x)
    ws = x.unsqueeze(1).repeat([1, 2, 1])
    # truncation towards a tracked w_avg (lerp with a Python psi)
    w_avg = x.detach().mean(0)
    ws = w_avg.lerp(ws, 0.5)
    rec("ws_trunc", ws)
    img = lib.randn(3, 4, 5, 5, dtype=dt)
    for mode in ("const", "none", "random"):
        y = layer(img, ws[:, 0], noise_mode=mode)
        rec("y_" + mode, y)
    y.square().mean().backward()
    rec.params("layer", layer, grads=True)
    rec.params("map", mapping, grads=True)
    rec("buffers", str([n for n, _ in layer.named_buffers()]))
    # Gpl: path-length penalty through torch.autograd.grad with a list of outputs
    ws2 = ws.detach().requires_grad_(True)
    gen = layer(img, ws2[:, 0], noise_mode="const")
    pl_noise = lib.randn_like(gen) / math.sqrt(gen.shape[2] * gen.shape[3])
    (pl_grads,) = lib.autograd.grad(
        outputs=[(gen * pl_noise).sum()], inputs=[ws2], create_graph=True, only_inputs=True
    )
    pl_lengths = pl_grads.square().sum(2).mean(1).sqrt()
    pl_mean = lib.zeros([], dtype=dt).lerp(pl_lengths.mean(), 0.01)
    loss_pl = (pl_lengths - pl_mean).square() * 2
    rec("pl", loss_pl)
    (loss_pl.mean() * 4).backward()
    rec("pl.grad", layer.weight.grad)
    rec("nan_to_num", lib.nan_to_num(layer.weight.grad / 0.0, nan=0, posinf=1e5, neginf=-1e5)[0, 0])


def p_diffaugment(lib, dt, rec):
    lib.manual_seed(26)
    F = lib.nn.functional

    def rand_brightness(x):
        return x + (lib.rand(x.size(0), 1, 1, 1, dtype=x.dtype) - 0.5)

    def rand_saturation(x):
        x_mean = x.mean(dim=1, keepdim=True)
        return (x - x_mean) * (lib.rand(x.size(0), 1, 1, 1, dtype=x.dtype) * 2) + x_mean

    def rand_contrast(x):
        x_mean = x.mean(dim=[1, 2, 3], keepdim=True)
        return (x - x_mean) * (lib.rand(x.size(0), 1, 1, 1, dtype=x.dtype) + 0.5) + x_mean

    def rand_translation(x, ratio=0.125):
        shift_x, shift_y = int(x.size(2) * ratio + 0.5), int(x.size(3) * ratio + 0.5)
        translation_x = lib.randint(-shift_x, shift_x + 1, size=[x.size(0), 1, 1])
        translation_y = lib.randint(-shift_y, shift_y + 1, size=[x.size(0), 1, 1])
        grid_batch, grid_x, grid_y = lib.meshgrid(
            lib.arange(x.size(0), dtype=lib.long),
            lib.arange(x.size(2), dtype=lib.long),
            lib.arange(x.size(3), dtype=lib.long),
            indexing="ij",
        )
        grid_x = lib.clamp(grid_x + translation_x + 1, 0, x.size(2) + 1)
        grid_y = lib.clamp(grid_y + translation_y + 1, 0, x.size(3) + 1)
        x_pad = F.pad(x, [1, 1, 1, 1, 0, 0, 0, 0])
        x = x_pad.permute(0, 2, 3, 1).contiguous()[grid_batch, grid_x, grid_y].permute(0, 3, 1, 2)
        return x

    def rand_cutout(x, ratio=0.5):
        cutout_size = int(x.size(2) * ratio + 0.5), int(x.size(3) * ratio + 0.5)
        offset_x = lib.randint(0, x.size(2) + (1 - cutout_size[0] % 2), size=[x.size(0), 1, 1])
        offset_y = lib.randint(0, x.size(3) + (1 - cutout_size[1] % 2), size=[x.size(0), 1, 1])
        grid_batch, grid_x, grid_y = lib.meshgrid(
            lib.arange(x.size(0), dtype=lib.long),
            lib.arange(cutout_size[0], dtype=lib.long),
            lib.arange(cutout_size[1], dtype=lib.long),
            indexing="ij",
        )
        grid_x = lib.clamp(grid_x + offset_x - cutout_size[0] // 2, min=0, max=x.size(2) - 1)
        grid_y = lib.clamp(grid_y + offset_y - cutout_size[1] // 2, min=0, max=x.size(3) - 1)
        mask = lib.ones(x.size(0), x.size(2), x.size(3), dtype=x.dtype)
        mask[grid_batch, grid_x, grid_y] = 0
        return x * mask.unsqueeze(1)

    AUGMENT_FNS = {
        "color": [rand_brightness, rand_saturation, rand_contrast],
        "translation": [rand_translation],
        "cutout": [rand_cutout],
    }

    def diff_augment(x, policy="color,translation,cutout"):
        for p in policy.split(","):
            for f in AUGMENT_FNS[p]:
                x = f(x)
        return x.contiguous()

    x = lib.randn(3, 3, 8, 8, dtype=dt, requires_grad=True)
    y = diff_augment(x)
    rec("y", y)
    rec("contig", y.is_contiguous())
    (y * lib.linspace(-1, 1, 64, dtype=dt).view(8, 8)).sum().backward()
    rec("x.grad", x.grad)
    # ADA-style geometric augmentation through affine_grid and grid_sample
    theta = lib.eye(2, 3, dtype=dt).repeat(3, 1, 1)
    ang = (lib.rand(3, dtype=dt) - 0.5) * math.pi / 4
    theta[:, 0, 0] = lib.cos(ang)
    theta[:, 0, 1] = -lib.sin(ang)
    theta[:, 1, 0] = lib.sin(ang)
    theta[:, 1, 1] = lib.cos(ang)
    theta[:, :, 2] = (lib.rand(3, 2, dtype=dt) - 0.5) * 0.25
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    rec("grid", grid[0, :2])
    xs = x.detach().requires_grad_(True)
    warped = F.grid_sample(
        xs, grid, mode="bilinear", padding_mode="reflection", align_corners=False
    )
    rec("warped", warped)
    warped.sum().backward()
    rec("warp.grad", xs.grad)
    flip = lib.rand(3, 1, 1, 1, dtype=dt) < 0.5
    rec("hflip", lib.where(flip, x.detach().flip(3), x.detach())[:, 0, 0])
    # adaptive p from the sign of D(real)
    p = 0.0
    for _ in range(3):
        rt = lib.sign(lib.randn(8, 1, dtype=dt)).mean().item()
        p = min(max(p + (1 if rt > 0.6 else -1) * 8 / 500, 0.0), 1.0)
        rec("rt", rt)
    rec("p", p)


def p_pix2pix(lib, dt, rec):
    lib.manual_seed(27)
    nn = lib.nn

    class UnetBlock(nn.Module):
        def __init__(self, outer_nc, inner_nc, input_nc=None, submodule=None, outermost=False,
                     innermost=False, use_dropout=False):  # fmt: skip
            super().__init__()
            self.outermost = outermost
            input_nc = outer_nc if input_nc is None else input_nc
            downconv = nn.Conv2d(input_nc, inner_nc, kernel_size=4, stride=2, padding=1, bias=False)
            downrelu = nn.LeakyReLU(0.2, True)
            downnorm = nn.BatchNorm2d(inner_nc)
            uprelu = nn.ReLU(True)
            upnorm = nn.BatchNorm2d(outer_nc)
            if outermost:
                upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, 4, 2, 1)
                model = [downconv, submodule, uprelu, upconv, nn.Tanh()]
            elif innermost:
                upconv = nn.ConvTranspose2d(inner_nc, outer_nc, 4, 2, 1, bias=False)
                model = [downrelu, downconv, uprelu, upconv, upnorm]
            else:
                upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, 4, 2, 1, bias=False)
                model = [downrelu, downconv, downnorm, submodule, uprelu, upconv, upnorm]
                if use_dropout:
                    model = model + [nn.Dropout(0.5)]
            self.model = nn.Sequential(*model)

        def forward(self, x):
            if self.outermost:
                return self.model(x)
            return lib.cat([x, self.model(x)], 1)

    block = UnetBlock(8, 8, innermost=True)
    block = UnetBlock(4, 8, submodule=block, use_dropout=True)
    netG = UnetBlock(2, 4, input_nc=3, submodule=block, outermost=True).to(dt)
    netD = nn.Sequential(
        nn.Conv2d(3 + 2, 4, 4, 2, 1), nn.LeakyReLU(0.2, True),
        nn.Conv2d(4, 8, 4, 1, 1, bias=False), nn.BatchNorm2d(8), nn.LeakyReLU(0.2, True),
        nn.Conv2d(8, 1, 4, 1, 1),
    ).to(dt)  # fmt: skip
    for m in list(netG.modules()) + list(netD.modules()):
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            nn.init.normal_(m.weight, 0.0, 0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
    rec("n_params", sum(p.numel() for p in netG.parameters()))
    gan = nn.BCEWithLogitsLoss()
    l1 = nn.L1Loss()
    optG = lib.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = lib.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    sched = lib.optim.lr_scheduler.StepLR(optG, step_size=1, gamma=0.1)
    for it in range(2):
        real_A = lib.rand(2, 3, 16, 16, dtype=dt) * 2 - 1
        real_B = lib.rand(2, 2, 16, 16, dtype=dt) * 2 - 1
        fake_B = netG(real_A)
        optD.zero_grad()
        pred_fake = netD(lib.cat((real_A, fake_B), 1).detach())
        pred_real = netD(lib.cat((real_A, real_B), 1))
        loss_D = (
            gan(pred_fake, lib.zeros_like(pred_fake)) + gan(pred_real, lib.ones_like(pred_real))
        ) * 0.5
        loss_D.backward()
        optD.step()
        optG.zero_grad()
        pred_fake = netD(lib.cat((real_A, fake_B), 1))
        loss_G = gan(pred_fake, lib.ones_like(pred_fake)) + l1(fake_B, real_B) * 100.0
        loss_G.backward()
        optG.step()
        sched.step()
        rec(f"patch{it}", str(tuple(pred_fake.shape)))
        rec(f"loss_D{it}", loss_D)
        rec(f"loss_G{it}", loss_G)
        rec(f"fake{it}", fake_B[0, 0])
    rec("lr", optG.param_groups[0]["lr"])
    rec.params("D", netD, grads=True)
    rec.params("G", netG)
    # test time: pix2pix keeps dropout on (train mode) but fixes BN statistics with eval
    netG.eval()
    with lib.no_grad():
        a = netG(real_A)
    rec("eval", a)
    for m in netG.modules():
        if isinstance(m, nn.Dropout):
            m.train()
    with lib.no_grad():
        b = netG(real_A)
    rec("eval_dropout", b)


def p_infogan(lib, dt, rec):
    lib.manual_seed(28)
    nn, F = lib.nn, lib.nn.functional
    n_cls, code_dim, latent = 3, 2, 4

    def to_categorical(y, num_columns):
        y_cat = lib.zeros((y.shape[0], num_columns), dtype=dt)
        y_cat[range(y.shape[0]), y] = 1.0
        return y_cat

    G = nn.Sequential(nn.Linear(latent + n_cls + code_dim, 16, bias=False), nn.BatchNorm1d(16),
                      nn.LeakyReLU(0.2), nn.Linear(16, 10), nn.Tanh()).to(dt)  # fmt: skip
    shared = nn.Sequential(nn.Linear(10, 16), nn.LeakyReLU(0.2)).to(dt)
    adv_layer = nn.Linear(16, 1).to(dt)
    aux_layer = nn.Sequential(nn.Linear(16, n_cls), nn.Softmax(dim=1)).to(dt)
    latent_layer = nn.Linear(16, code_dim).to(dt)
    adv_loss = nn.MSELoss()
    cat_loss = nn.CrossEntropyLoss()
    cont_loss = nn.MSELoss()
    optG = lib.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    D_params = [*shared.parameters(), *adv_layer.parameters()]
    optD = lib.optim.Adam(D_params, lr=2e-3, betas=(0.5, 0.999))
    optInfo = lib.optim.Adam(
        itertools.chain(G.parameters(), shared.parameters(), aux_layer.parameters(),
                        latent_layer.parameters()),
        lr=2e-3, betas=(0.5, 0.999),
    )  # fmt: skip
    for it in range(3):
        bs = 6
        real = lib.rand(bs, 10, dtype=dt) * 2 - 1
        z = lib.randn(bs, latent, dtype=dt)
        label_input = to_categorical(lib.randint(0, n_cls, (bs,)), n_cls)
        code_input = lib.empty(bs, code_dim, dtype=dt).uniform_(-1, 1)
        gen = G(lib.cat((z, label_input, code_input), -1))
        optG.zero_grad()
        g_loss = adv_loss(adv_layer(shared(gen)), lib.ones(bs, 1, dtype=dt))
        g_loss.backward()
        optG.step()
        optD.zero_grad()
        d_loss = (
            adv_loss(adv_layer(shared(real)), lib.ones(bs, 1, dtype=dt))
            + adv_loss(adv_layer(shared(gen.detach())), lib.zeros(bs, 1, dtype=dt))
        ) / 2
        d_loss.backward()
        optD.step()
        optInfo.zero_grad()
        sampled = lib.tensor([i % n_cls for i in range(bs)])
        gt = sampled.clone()
        label_input = to_categorical(sampled, n_cls)
        code_input = lib.empty(bs, code_dim, dtype=dt).uniform_(-1, 1)
        h = shared(G(lib.cat((z, label_input, code_input), -1)))
        pred_label, pred_code = aux_layer(h), latent_layer(h)
        info_loss = cat_loss(pred_label, gt) + 0.1 * cont_loss(pred_code, code_input)
        info_loss.backward()
        optInfo.step()
        rec(f"g{it}", g_loss)
        rec(f"d{it}", d_loss)
        rec(f"info{it}", info_loss)
        rec(f"acc{it}", (pred_label.argmax(1) == gt).sum() / bs)
    # varying one continuous code across a row, the others fixed
    G.eval()
    c_varied = lib.linspace(-1, 1, 5, dtype=dt)[:, None]
    zeros = lib.zeros((5, 1), dtype=dt)
    c1 = lib.cat((c_varied, zeros), -1)
    with lib.no_grad():
        out = G(
            lib.cat(
                (lib.zeros(5, latent, dtype=dt), to_categorical(lib.arange(5) % n_cls, n_cls), c1),
                -1,
            )
        )
    rec("varied", out)
    rec.params("Q", latent_layer, grads=True)
    rec("gauss_nll", F.gaussian_nll_loss(pred_code, code_input, lib.full_like(pred_code, 0.5)))


def p_hifigan(lib, dt, rec):
    lib.manual_seed(29)
    nn, F = lib.nn, lib.nn.functional
    wn, rwn = nn.utils.weight_norm, nn.utils.remove_weight_norm
    LRELU = 0.1

    def init_weights(m, mean=0.0, std=0.01):
        if m.__class__.__name__.find("Conv") != -1:
            m.weight.data.normal_(mean, std)

    def get_padding(k, d=1):
        return int((k * d - d) / 2)

    class ResBlock(nn.Module):
        def __init__(self, ch, k=3, dilation=(1, 3)):
            super().__init__()
            self.convs = nn.ModuleList(
                [
                    wn(nn.Conv1d(ch, ch, k, 1, dilation=d, padding=get_padding(k, d)))
                    for d in dilation
                ]
            )
            self.convs.apply(init_weights)

        def forward(self, x):
            for c in self.convs:
                xt = F.leaky_relu(x, LRELU)
                x = c(xt) + x
            return x

        def remove_weight_norm(self):
            for c in self.convs:
                rwn(c)

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_pre = wn(nn.Conv1d(4, 8, 7, 1, padding=3))
            self.ups = nn.ModuleList([wn(nn.ConvTranspose1d(8, 4, 4, 2, padding=1)),
                                      wn(nn.ConvTranspose1d(4, 2, 4, 2, padding=1))])  # fmt: skip
            self.resblocks = nn.ModuleList([ResBlock(4), ResBlock(2)])
            self.conv_post = wn(nn.Conv1d(2, 1, 7, 1, padding=3, bias=False))
            self.ups.apply(init_weights)
            self.conv_post.apply(init_weights)

        def forward(self, x):
            x = self.conv_pre(x)
            for up, rb in zip(self.ups, self.resblocks, strict=True):
                x = rb(up(F.leaky_relu(x, LRELU)))
            return lib.tanh(self.conv_post(F.leaky_relu(x)))

    class DiscriminatorP(nn.Module):
        def __init__(self, period):
            super().__init__()
            self.period = period
            self.convs = nn.ModuleList(
                [
                    wn(nn.Conv2d(1, 4, (5, 1), (3, 1), padding=(2, 0))),
                    wn(nn.Conv2d(4, 4, (3, 1), 1, padding=(1, 0))),
                ]
            )
            self.conv_post = wn(nn.Conv2d(4, 1, (3, 1), 1, padding=(1, 0)))

        def forward(self, x):
            fmap = []
            b, c, t = x.shape
            if t % self.period != 0:
                n_pad = self.period - (t % self.period)
                x = F.pad(x, (0, n_pad), "reflect")
                t = t + n_pad
            x = x.view(b, c, t // self.period, self.period)
            for layer in self.convs:
                x = F.leaky_relu(layer(x), LRELU)
                fmap.append(x)
            x = self.conv_post(x)
            fmap.append(x)
            return lib.flatten(x, 1, -1), fmap

    class DiscriminatorS(nn.Module):
        def __init__(self, use_spectral_norm=False):
            super().__init__()
            norm_f = nn.utils.spectral_norm if use_spectral_norm else wn
            self.convs = nn.ModuleList(
                [
                    norm_f(nn.Conv1d(1, 4, 15, 1, padding=7)),
                    norm_f(nn.Conv1d(4, 4, 41, 2, groups=2, padding=20)),
                ]
            )
            self.conv_post = norm_f(nn.Conv1d(4, 1, 3, 1, padding=1))

        def forward(self, x):
            fmap = []
            for layer in self.convs:
                x = F.leaky_relu(layer(x), LRELU)
                fmap.append(x)
            x = self.conv_post(x)
            fmap.append(x)
            return lib.flatten(x, 1, -1), fmap

    # built in the training dtype: weight_norm's g is a float32 norm otherwise (rounded as torch's
    # summation order rounds it only to an ulp)
    default = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        G = Generator()
        mpd = nn.ModuleList([DiscriminatorP(2), DiscriminatorP(3)])
        msd = nn.ModuleList([DiscriminatorS(True), DiscriminatorS()])
    finally:
        lib.set_default_dtype(default)
    pool = nn.AvgPool1d(4, 2, padding=2)
    rec("G.keys", str(list(G.state_dict().keys())[:6]))

    def feature_loss(fmap_r, fmap_g):
        loss = 0
        for dr, dg in zip(fmap_r, fmap_g, strict=True):
            for rl, gl in zip(dr, dg, strict=True):
                loss += lib.mean(lib.abs(rl - gl))
        return loss * 2

    def discriminator_loss(real_outputs, gen_outputs):
        loss = 0
        for dr, dg in zip(real_outputs, gen_outputs, strict=True):
            loss += lib.mean((1 - dr) ** 2) + lib.mean(dg**2)
        return loss

    def run_d(y, y_hat):
        outs = []
        for d in mpd:
            outs.append((d(y), d(y_hat)))
        ys, yhs = y, y_hat
        for i, d in enumerate(msd):
            if i != 0:
                ys, yhs = pool(ys), pool(yhs)
            outs.append((d(ys), d(yhs)))
        return outs

    optG = lib.optim.AdamW(G.parameters(), 2e-4, betas=(0.8, 0.99))
    optD = lib.optim.AdamW(
        itertools.chain(msd.parameters(), mpd.parameters()), 2e-4, betas=(0.8, 0.99)
    )
    schG = lib.optim.lr_scheduler.ExponentialLR(optG, gamma=0.999)
    mel = lib.randn(2, 4, 8, dtype=dt)
    y = lib.tanh(lib.randn(2, 1, 32, dtype=dt))
    for it in range(2):
        y_g_hat = G(mel)
        optD.zero_grad()
        outs = run_d(y, y_g_hat.detach())
        loss_disc = discriminator_loss([o[0][0] for o in outs], [o[1][0] for o in outs])
        loss_disc.backward()
        optD.step()
        optG.zero_grad()
        outs = run_d(y, y_g_hat)
        loss_fm = feature_loss([o[0][1] for o in outs], [o[1][1] for o in outs])
        loss_gen = sum(lib.mean((1 - o[1][0]) ** 2) for o in outs)
        loss_mel = F.l1_loss(y, y_g_hat) * 45
        loss_gen_all = loss_gen + loss_fm + loss_mel
        loss_gen_all.backward()
        optG.step()
        schG.step()
        rec(f"disc{it}", loss_disc)
        rec(f"fm{it}", loss_fm)
        rec(f"gen{it}", loss_gen_all)
    rec("y_hat", y_g_hat)
    rec("g.conv_pre.g", G.conv_pre.weight_g)
    rec("g.conv_pre.v.grad", G.conv_pre.weight_v.grad)
    rec("msd0.u", msd[0].convs[1].weight_u)
    G.eval()
    for rb in G.resblocks:
        rb.remove_weight_norm()
    for m in (G.conv_pre, *G.ups, G.conv_post):
        rwn(m)
    rec("G.keys_removed", str(list(G.state_dict().keys())[:6]))
    with lib.no_grad():
        rec("infer", G(mel))
    # the parametrizations variant and its state_dict
    c = nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 3).to(dt))
    rec("pwn.keys", str(list(c.state_dict().keys())))
    rec("pwn.g", c.parametrizations.weight.original0)
    rec("pwn.y", c(lib.randn(1, 2, 5, dtype=dt)))
    rec("wn_dimnone", nn.utils.weight_norm(nn.Linear(3, 2).to(dt), dim=None).weight_g)


def p_save_samples(lib, dt, rec):
    lib.manual_seed(30)
    nn, F = lib.nn, lib.nn.functional
    from_data = lib.rand(10, 1, 4, 4, dtype=dt) * 2 - 1
    ds = lib.utils.data.TensorDataset(from_data, lib.arange(10))
    g = lib.Generator().manual_seed(5)
    loader = lib.utils.data.DataLoader(ds, batch_size=4, shuffle=True, drop_last=True, generator=g)
    rec("len", len(loader))
    G = nn.Sequential(nn.Linear(3, 16), nn.Tanh()).to(dt)
    opt = lib.optim.Adam(G.parameters(), lr=0.01, betas=(0.5, 0.999))
    for epoch in range(2):
        for i, (imgs, ids) in enumerate(loader):
            rec(f"ids{epoch}_{i}", ids)
            gen = G(lib.randn(imgs.shape[0], 3, dtype=dt)).view(-1, 1, 4, 4)
            loss = F.mse_loss(gen, imgs)
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec(f"loss{epoch}_{i}", loss)

    def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, pad_value=0.0):
        if tensor.dim() == 4 and tensor.size(1) == 1:
            tensor = lib.cat((tensor, tensor, tensor), 1)
        if normalize:
            tensor = tensor.clone()
            low, high = value_range if value_range is not None else (tensor.min(), tensor.max())
            tensor.clamp_(min=low, max=high)
            tensor.sub_(low).div_(max(high - low, 1e-5))
        nmaps = tensor.size(0)
        xmaps = min(nrow, nmaps)
        ymaps = int(math.ceil(float(nmaps) / xmaps))
        height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
        num_channels = tensor.size(1)
        grid = tensor.new_full((num_channels, height * ymaps + padding, width * xmaps + padding),
                               pad_value)  # fmt: skip
        k = 0
        for y in range(ymaps):
            for x in range(xmaps):
                if k >= nmaps:
                    break
                grid.narrow(1, y * height + padding, height - padding).narrow(
                    2, x * width + padding, width - padding
                ).copy_(tensor[k])
                k = k + 1
        return grid

    with lib.no_grad():
        samples = G(lib.randn(5, 3, dtype=dt)).view(-1, 1, 4, 4)
    grid = make_grid(samples, nrow=3, normalize=True, value_range=(-1, 1))
    rec("grid.shape", str(tuple(grid.shape)))
    rec("grid", grid[0])
    ndarr = grid.mul(255).add_(0.5).clamp_(0, 255).permute(1, 2, 0).to("cpu", lib.uint8)
    rec("uint8", ndarr)
    rec("np", ndarr.numpy()[:, :, 0].sum())
    grid2 = make_grid(samples, nrow=2, normalize=True, pad_value=1.0)
    rec("grid2", grid2[1])
    img = ((samples.clamp(-1, 1) + 1) * 127.5).round().to(lib.uint8)
    rec("round_u8", img[:, 0])
    rec("float_back", img.double().div(255).mean())
    rec("byte", (samples * 127.5 + 128).clamp(0, 255).byte()[0, 0])


def p_amp_gan(lib, dt, rec):
    lib.manual_seed(31)
    nn = lib.nn
    G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6)).to(dt)
    D = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)).to(dt)
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    optD = lib.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=2)
    crit = nn.BCEWithLogitsLoss()
    for it in range(3):
        real = lib.randn(5, 6, dtype=dt)
        z = lib.randn(5, 4, dtype=dt)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            fake = G(z)
            out_r = D(real)
            out_f = D(fake.detach())
            rec(f"fake.dtype{it}", str(fake.dtype))
            lossD = crit(out_r, lib.ones_like(out_r)) + crit(out_f, lib.zeros_like(out_f))
        rec(f"lossD.dtype{it}", str(lossD.dtype))
        optD.zero_grad()
        scaler.scale(lossD).backward()
        scaler.unscale_(optD)
        gn = nn.utils.clip_grad_norm_(D.parameters(), 10.0)
        scaler.step(optD)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = D(fake)
            lossG = crit(out, lib.ones_like(out))
        optG.zero_grad()
        scaler.scale(lossG).backward()
        scaler.step(optG)
        scaler.update()
        rec(f"scale{it}", scaler.get_scale())
        rec(f"lossD{it}", lossD.float())
        rec(f"lossG{it}", lossG.float())
        rec(f"gn{it}", gn.float())
    rec("state", str({k: v for k, v in scaler.state_dict().items()}))
    rec.params("D", D, view=lambda n, p: p.float())
    # an inf gradient skips the step and halves the scale
    before = [p.detach().clone() for p in D.parameters()]
    optD.zero_grad()
    loss = D(real).mean() * float("inf")
    scaler.scale(loss).backward()
    scaler.step(optD)
    scaler.update()
    rec("skipped", all(lib.equal(a, b) for a, b in zip(before, D.parameters(), strict=True)))
    rec("scale_after_inf", scaler.get_scale())


def p_reprs(lib, dt, rec):
    lib.manual_seed(32)
    nn = lib.nn
    G, D = dcgan_models(lib, dt, nz=3, ngf=2, ndf=2, nc=1)
    rec("D.repr", repr(D))
    optD = lib.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    rec("opt.repr", repr(optD))
    rec("rms.repr", repr(lib.optim.RMSprop(G.parameters(), lr=5e-5)))
    z = lib.randn(2, 3, 1, 1, dtype=dt)
    out = D(G(z)).view(-1)
    lossD = nn.BCELoss()(out, lib.ones(2, dtype=dt))
    rec("lossD.fn", type(lossD.grad_fn).__name__)
    rec("lossD.repr", repr(lossD.detach()).replace(", dtype=torch.float64", ""))
    l2 = nn.BCEWithLogitsLoss()(out, lib.ones(2, dtype=dt))
    rec("bcel.fn", type(l2.grad_fn).__name__)
    rec("mse.fn", type(nn.MSELoss()(out, lib.ones(2, dtype=dt)).grad_fn).__name__)
    rec("hinge.fn", type(nn.functional.relu(1.0 - out).mean().grad_fn).__name__)
    rec("softplus.fn", type(nn.functional.softplus(-out).grad_fn).__name__)
    rec("view.fn", type(out.grad_fn).__name__)
    rec("ct.fn", type(G[0](z).grad_fn).__name__)
    rec("bn.fn", type(G[1](G[0](z)).grad_fn).__name__)
    rec("tanh.fn", type(G(z).grad_fn).__name__)
    rec("lrelu.fn", type(nn.functional.leaky_relu(out, 0.2).grad_fn).__name__)
    if dt == lib.float64:  # (a float32 log can round an ulp apart on another CPU's NumPy)
        rec("print", "Loss_D: %.4f\tD(x): %.4f" % (lossD.item(), out.mean().item()))  # noqa: UP031 - as the scripts print
        rec("fstr", f"{lossD.item():.3f}")
    sn = nn.utils.spectral_norm(nn.Conv2d(1, 2, 3))
    rec("sn.repr", repr(sn))
    psn = nn.utils.parametrizations.spectral_norm(nn.Conv2d(1, 2, 3))
    rec("psn.repr", repr(psn))
    rec("pwn.repr", repr(nn.utils.parametrizations.weight_norm(nn.Linear(2, 2))))
    rec("inorm.repr", repr(nn.InstanceNorm2d(3, affine=True, track_running_stats=True)))
    rec("emb.repr", repr(nn.Embedding(10, 4, max_norm=1.0)))
    rec("ups.repr", repr(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)))
    rec("pad.repr", repr(nn.ReflectionPad2d(3)))
    rec("ps.repr", repr(nn.PixelShuffle(2)))
    rec("prelu.repr", repr(nn.PReLU(4)))
    rec("sched.lr", str(lib.optim.lr_scheduler.LambdaLR(optD, lambda e: 1.0).get_last_lr()))
    rec(
        "param.repr", repr(nn.Parameter(lib.ones(2, dtype=dt))).replace(", dtype=torch.float64", "")
    )
    if dt == lib.float64:
        rec("lossD.fmt", "{:.6f}".format(lossD))  # noqa: UP032 - Tensor.__format__
    rec("fn.name", lossD.grad_fn.name())
    # the nodes of a gradient penalty through a max-pooling critic (double and triple backward)
    for pool, shape in ((nn.MaxPool2d(2), (1, 1, 4, 4)), (nn.MaxPool3d(2), (1, 1, 2, 2, 2)),
                        (nn.AvgPool2d(2), (1, 1, 4, 4))):  # fmt: skip
        xg = lib.randn(*shape, dtype=dt, requires_grad=True)
        yg = pool(xg)
        v = lib.randn(*yg.shape, dtype=dt, requires_grad=True)
        (g,) = lib.autograd.grad(yg, xg, grad_outputs=v, create_graph=True)
        u = lib.randn(*shape, dtype=dt, requires_grad=True)
        (h,) = lib.autograd.grad(g, v, grad_outputs=u, create_graph=True)
        rec(f"{type(pool).__name__}.gp_fn", type(g.grad_fn).__name__)
        rec(f"{type(pool).__name__}.ggp_fn", type(h.grad_fn).__name__)
        rec(f"{type(pool).__name__}.h", h)
    rec("next_functions", str([type(f).__name__ for f, _ in lossD.grad_fn.next_functions]))
    rec("np_mean", float(lib.stack([lossD, l2]).detach().numpy().mean()))


def p_vqgan(lib, dt, rec):
    lib.manual_seed(33)
    nn, F = lib.nn, lib.nn.functional
    enc = nn.Sequential(nn.Conv2d(3, 4, 4, 2, 1), nn.GroupNorm(2, 4, eps=1e-6), nn.SiLU(),
                        nn.Conv2d(4, 3, 1)).to(dt)  # fmt: skip
    dec = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1), nn.SiLU(), nn.Upsample(scale_factor=2.0),
                        nn.Conv2d(4, 3, 3, 1, 1)).to(dt)  # fmt: skip
    codebook = nn.Embedding(6, 3).to(dt)
    codebook.weight.data.uniform_(-1.0 / 6, 1.0 / 6)
    disc = nn.Sequential(nn.Conv2d(3, 4, 4, 2, 1), nn.LeakyReLU(0.2, True),
                         nn.Conv2d(4, 1, 3, 1, 1)).to(dt)  # fmt: skip
    beta = 0.25

    def quantize(z):
        z = z.permute(0, 2, 3, 1).contiguous()
        z_flat = z.view(-1, 3)
        d = (
            lib.sum(z_flat**2, dim=1, keepdim=True)
            + lib.sum(codebook.weight**2, dim=1)
            - 2 * lib.einsum("bd,dn->bn", z_flat, codebook.weight.t())
        )
        idx = lib.argmin(d, dim=1)
        z_q = codebook(idx).view(z.shape)
        loss = beta * lib.mean((z_q.detach() - z) ** 2) + lib.mean((z_q - z.detach()) ** 2)
        z_q = z + (z_q - z).detach()
        return z_q.permute(0, 3, 1, 2).contiguous(), loss, idx

    def hinge_d_loss(logits_real, logits_fake):
        return 0.5 * (lib.mean(F.relu(1.0 - logits_real)) + lib.mean(F.relu(1.0 + logits_fake)))

    def vanilla_d_loss(logits_real, logits_fake):
        return 0.5 * (lib.mean(F.softplus(-logits_real)) + lib.mean(F.softplus(logits_fake)))

    def adopt_weight(weight, global_step, threshold=0, value=0.0):
        return value if global_step < threshold else weight

    x = lib.rand(2, 3, 8, 8, dtype=dt) * 2 - 1
    ae_params = [*enc.parameters(), *dec.parameters(), *codebook.parameters()]
    opt_ae = lib.optim.Adam(ae_params, lr=4.5e-4, betas=(0.5, 0.9))
    opt_d = lib.optim.Adam(disc.parameters(), lr=4.5e-4, betas=(0.5, 0.9))
    for step in range(3):
        z_q, q_loss, idx = quantize(enc(x))
        xrec = dec(z_q)
        rec_loss = lib.abs(x.contiguous() - xrec.contiguous())
        nll_loss = lib.mean(rec_loss)
        logits_fake = disc(xrec.contiguous())
        g_loss = -lib.mean(logits_fake)
        last_layer = dec[-1].weight
        nll_grads = lib.autograd.grad(nll_loss, last_layer, retain_graph=True)[0]
        g_grads = lib.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
        d_weight = lib.norm(nll_grads) / (lib.norm(g_grads) + 1e-4)
        d_weight = lib.clamp(d_weight, 0.0, 1e4).detach()
        disc_factor = adopt_weight(1.0, step, threshold=1)
        loss = nll_loss + d_weight * disc_factor * g_loss + q_loss.mean()
        opt_ae.zero_grad()
        loss.backward()
        opt_ae.step()
        logits_real = disc(x.contiguous().detach())
        logits_fake = disc(xrec.contiguous().detach())
        d_loss = disc_factor * (hinge_d_loss(logits_real, logits_fake) if step % 2 else
                                vanilla_d_loss(logits_real, logits_fake))  # fmt: skip
        opt_d.zero_grad()
        if isinstance(d_loss, lib.Tensor) and d_loss.requires_grad:
            d_loss.backward()
            opt_d.step()
        rec(f"idx{step}", idx)
        rec(f"d_weight{step}", d_weight)
        rec(f"loss{step}", loss)
        rec(f"d_loss{step}", d_loss)
        rec(f"usage{step}", lib.bincount(idx, minlength=6))
    perplexity = lib.exp(-(lambda p: (p * lib.log(p + 1e-10)).sum())(
        F.one_hot(idx, 6).to(dt).mean(0)))  # fmt: skip
    rec("perplexity", perplexity)
    rec.params("codebook", codebook, grads=True)
    rec.params("dec", dec)
    rec("gn", enc[1].weight.grad)


def p_minibatch_disc(lib, dt, rec):
    lib.manual_seed(34)
    nn, F = lib.nn, lib.nn.functional

    class MinibatchDiscrimination(nn.Module):
        def __init__(self, in_features, out_features, kernel_dims, mean=False):
            super().__init__()
            self.in_features, self.out_features = in_features, out_features
            self.kernel_dims, self.mean = kernel_dims, mean
            self.T = nn.Parameter(lib.Tensor(in_features, out_features, kernel_dims))
            nn.init.normal_(self.T, 0, 1)

        def forward(self, x):
            matrices = x.mm(self.T.view(self.in_features, -1))
            matrices = matrices.view(-1, self.out_features, self.kernel_dims)
            M = matrices.unsqueeze(0)
            M_T = M.permute(1, 0, 2, 3)
            norm = lib.abs(M - M_T).sum(3)
            expnorm = lib.exp(-norm)
            o_b = expnorm.sum(0) - 1
            if self.mean:
                o_b /= x.size(0) - 1
            return lib.cat([x, o_b], 1)

    mbd = MinibatchDiscrimination(4, 3, 2, mean=True).to(dt)
    D = nn.Sequential(nn.Linear(5, 4), nn.LeakyReLU(0.2), mbd, nn.Linear(7, 1)).to(dt)
    x = lib.randn(5, 5, dtype=dt, requires_grad=True)
    out = D(x)
    rec("out", out)
    rec("o_b", mbd(lib.randn(3, 4, dtype=dt))[:, 4:])
    F.binary_cross_entropy_with_logits(out, lib.ones_like(out)).backward()
    rec("T.grad", mbd.T.grad)
    rec("x.grad", x.grad)
    # feature matching on an intermediate layer via a forward hook
    feats = {}
    handle = D[1].register_forward_hook(lambda m, i, o: feats.__setitem__("h", o))
    D(lib.randn(6, 5, dtype=dt))
    real_feat = feats["h"].detach()
    G = nn.Linear(3, 5).to(dt)
    D(G(lib.randn(6, 3, dtype=dt)))
    fm = F.mse_loss(feats["h"].mean(0), real_feat.mean(0))
    fm.backward()
    rec("fm", fm)
    rec("G.grad", G.weight.grad)
    handle.remove()
    rec("hooks", len(D[1]._forward_hooks))
    # a gradient-reversal / monitoring hook on the fake batch
    grads = []
    fake = G(lib.randn(4, 3, dtype=dt))
    h = fake.register_hook(lambda g: grads.append(g.norm()) or g * -1)
    D(fake).mean().backward()
    h.remove()
    rec("hook_norm", grads[0])
    rec("reversed", G.bias.grad)
    # the gradient norm per parameter for logging, and as one vector
    norms = {n: p.grad.norm(2).item() for n, p in D.named_parameters() if p.grad is not None}
    rec("norms", list(norms.values()))
    rec("vec", nn.utils.parameters_to_vector([p.grad for p in D.parameters()]).norm())
    nn.utils.clip_grad_value_(D.parameters(), clip_value=0.05)
    rec("clipped", mbd.T.grad)


def p_errors2(lib, dt, rec):
    lib.manual_seed(35)
    nn = lib.nn
    G = nn.Linear(3, 4).to(dt)
    D = nn.Sequential(nn.Linear(4, 2), nn.LeakyReLU(0.2), nn.Linear(2, 1)).to(dt)
    optD = lib.optim.SGD(D.parameters(), lr=0.1)
    bce = nn.BCEWithLogitsLoss()
    fake = G(lib.randn(5, 3, dtype=dt))
    out = D(fake)
    errD = bce(out, lib.zeros_like(out))
    errD.backward(retain_graph=True)
    optD.step()
    # the G step reuses D's graph after optD.step() changed D's weights in place
    errG = bce(out, lib.ones_like(out))
    rec.err("stale_graph", lambda: errG.backward())
    # a float32 D fed float64 data (or the reverse)
    other = lib.float32 if dt == lib.float64 else lib.float64
    rec.err("dtype_mismatch", lambda: D(lib.randn(2, 4, dtype=other)))
    conv = nn.Conv2d(1, 1, 3).to(dt)
    rec.err("conv_dtype", lambda: conv(lib.randn(1, 1, 4, 4, dtype=other)))
    rec.err(
        "ct_dtype", lambda: nn.ConvTranspose2d(1, 1, 3).to(dt)(lib.randn(1, 1, 2, 2, dtype=other))
    )
    # samples drawn under inference_mode, then trained on through a clone
    with lib.inference_mode():
        samples = G(lib.randn(2, 3, dtype=dt))
    rec("inference_rg", samples.requires_grad)
    D(samples.clone()).sum().backward()
    rec("inference_clone", D[0].weight.grad)
    # a non-scalar loss, and a loss detached by accident
    rec.err("nonscalar", lambda: D(fake).backward())
    rec.err("detached", lambda: bce(D(fake).detach(), lib.ones(5, 1, dtype=dt)).backward())
    # BCELoss with a target that requires grad, and a weight of the wrong shape
    t = lib.rand(5, 1, dtype=dt, requires_grad=True)
    p = lib.sigmoid(D(fake))
    loss = nn.functional.binary_cross_entropy(p, t)
    rec.err("target_grad", lambda: loss.backward())
    rec("t.grad", t.grad)
    rec.err("bce_weight", lambda: nn.BCELoss(weight=lib.ones(3, dtype=dt))(p, t.detach()))
    rec.err(
        "ce_float_target",
        lambda: nn.CrossEntropyLoss()(lib.randn(4, 3, dtype=dt), lib.tensor([0.0, 1, 2, 1])),
    )
    rec.err(
        "ce_long_shape",
        lambda: nn.CrossEntropyLoss()(lib.randn(4, 3, dtype=dt), lib.tensor([0, 1, 2])),
    )
    rec.err(
        "embed_shape", lambda: lib.cat([nn.Embedding(3, 2)(lib.tensor([0, 1])), lib.randn(3, 4)], 1)
    )
    rec.err("grad_twice", lambda: lib.autograd.grad(errD, D[0].weight))
    x = lib.randn(2, 4, dtype=dt, requires_grad=True)
    y = D(x).sum()
    lib.autograd.grad(y, x)
    rec.err("grad_freed", lambda: lib.autograd.grad(y, x))
    rec.err("interp_size", lambda: nn.functional.interpolate(lib.zeros(1, 1, 2, 2), size=(3,)))
    rec.err("pixel_shuffle", lambda: nn.PixelShuffle(2)(lib.zeros(1, 3, 2, 2)))
    rec.err("inorm_dim", lambda: nn.InstanceNorm2d(3)(lib.zeros(3, 4, 4, 4)))
    rec.err("sn_dim", lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), dim=2))
    rec.err("add_param_group", lambda: optD.add_param_group({"params": D[0].weight}))
    rec.err("clip_nonfinite", lambda: nn.utils.clip_grad_norm_(
        [lib.nn.Parameter(lib.ones(1))], 1.0, error_if_nonfinite=True))  # fmt: skip
    w = lib.nn.Parameter(lib.ones(2, dtype=dt))
    w.grad = lib.tensor([float("nan"), 1.0], dtype=dt)
    rec.err("clip_nan", lambda: nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True))


def p_custom_param(lib, dt, rec):
    lib.manual_seed(36)
    nn = lib.nn
    P = nn.utils.parametrize

    class EqualLR(nn.Module):
        def __init__(self, fan_in, gain=None):
            super().__init__()
            self.scale = (math.sqrt(2) if gain is None else gain) / math.sqrt(fan_in)

        def forward(self, w):
            return w * self.scale

        def right_inverse(self, w):
            return w / self.scale

    class Symmetric(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

    conv = nn.Conv2d(2, 3, 3, padding=1).to(dt)
    w0 = conv.weight.detach().clone()
    P.register_parametrization(conv, "weight", EqualLR(2 * 9))
    rec("keys", str(list(conv.state_dict().keys())))
    rec("orig", conv.parametrizations.weight.original)
    rec("w_same", (conv.weight - w0).abs().max())
    conv.weight = w0 * 2
    rec("assigned", conv.parametrizations.weight.original)
    x = lib.randn(1, 2, 4, 4, dtype=dt)
    y = conv(x)
    y.sum().backward()
    rec("grad", conv.parametrizations.weight.original.grad)
    rec("repr", repr(conv))
    P.register_parametrization(conv, "bias", EqualLR(1, gain=0.5), unsafe=True)
    rec("type", type(conv).__name__)
    rec("bias", conv.bias)
    lin = nn.Linear(3, 3).to(dt)
    P.register_parametrization(lin, "weight", Symmetric())
    rec("sym", lin.weight - lin.weight.T)
    # a stack of two parametrizations and the cached context
    P.register_parametrization(lin, "weight", EqualLR(3))
    rec("stack", str([type(m).__name__ for m in lin.parametrizations.weight]))
    with P.cached():
        o1 = lin(x[0, 0, :3, :3])
        o2 = lin(x[0, 0, 1:, 1:])
    rec("cached_out", lib.cat([o1, o2]))
    P.remove_parametrizations(lin, "weight", leave_parametrized=False)
    rec("removed", lin.weight)
    rec.err("remove_again", lambda: P.remove_parametrizations(lin, "weight"))
    # orthogonal parametrization on a square projection
    o = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4).to(dt))
    wq = o.weight
    rec("orthogonal", (wq @ wq.T - lib.eye(4, dtype=dt)).abs().max() < 1e-5)
    rec("orth.keys", str(list(o.state_dict().keys())))


def p_progressive_opt(lib, dt, rec):
    lib.manual_seed(37)
    nn, F = lib.nn, lib.nn.functional
    blocks = nn.ModuleList([nn.Conv2d(2, 2, 3, padding=1).to(dt)])
    to_rgb = nn.Conv2d(2, 1, 1).to(dt)
    opt = lib.optim.Adam(list(blocks.parameters()) + list(to_rgb.parameters()), lr=1e-3,
                         betas=(0.0, 0.99), eps=1e-8)  # fmt: skip
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.5)
    x0 = lib.randn(2, 2, 2, 2, dtype=dt)
    for phase in range(3):
        if phase > 0:
            new = nn.Conv2d(2, 2, 3, padding=1).to(dt)
            nn.init.kaiming_normal_(new.weight, a=0.2, mode="fan_in", nonlinearity="leaky_relu")
            blocks.append(new)
            opt.add_param_group({"params": new.parameters(), "lr": 5e-4})
        for it in range(2):
            alpha = min(1.0, (it + 1) / 2)
            h = x0
            for b in blocks[:-1]:
                h = F.leaky_relu(b(F.interpolate(h, scale_factor=2)), 0.2)
            up = F.interpolate(h, scale_factor=2)
            out = F.leaky_relu(blocks[-1](up), 0.2)
            img = lib.lerp(to_rgb(up), to_rgb(out), alpha) if phase > 0 else to_rgb(out)
            target = lib.zeros_like(img).normal_(0, 0.5)
            loss = F.mse_loss(img, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            rec(f"loss{phase}{it}", loss)
            rec(f"lrs{phase}{it}", [g["lr"] for g in opt.param_groups])
    rec("n_groups", len(opt.param_groups))
    sd = opt.state_dict()
    rec("pg", str([g["params"] for g in sd["param_groups"]]))
    rec("initial_lr", str([g.get("initial_lr") for g in opt.param_groups]))
    rec("sched", str({k: v for k, v in sched.state_dict().items() if k != "milestones"}))
    rec("last", blocks[-1].weight)
    rec("gain", nn.init.calculate_gain("leaky_relu", 0.2))
    w = lib.empty(3, 4, dtype=dt)
    nn.init.xavier_normal_(w, gain=nn.init.calculate_gain("tanh"))
    rec("xavier", w)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    rec("kaiming_u", w)
    nn.init.orthogonal_(w, gain=2.0)
    rec("orth", w @ w.T)
    # Adam variants GAN scripts switch on
    p = nn.Parameter(lib.ones(3, dtype=dt))
    for kw in ({"amsgrad": True}, {"foreach": False}, {"maximize": True}, {"weight_decay": 0.1}):
        q = nn.Parameter(p.detach().clone())
        o = lib.optim.Adam([q], lr=0.1, betas=(0.5, 0.999), **kw)
        for k in range(3):
            o.zero_grad()
            (q * lib.arange(1, 4, dtype=dt) * (k + 1)).sum().backward()
            o.step()
        rec(f"adam{sorted(kw)}", q)


def p_whole_module(lib, dt, rec):
    lib.manual_seed(38)
    nn = lib.nn
    D = nn.Sequential(nn.utils.spectral_norm(nn.Linear(3, 4)), nn.ReLU(), nn.Linear(4, 1)).to(dt)
    x = lib.randn(2, 3, dtype=dt)
    y = D(x)
    # torch.save(model): the spectral-norm hook is pickled with the module
    buf = io.BytesIO()
    lib.save(D, buf)
    buf.seek(0)
    D2 = lib.load(buf, weights_only=False)
    rec("type", type(D2).__name__)
    rec("hooks", len(D2[0]._forward_pre_hooks))
    D.eval()
    D2.eval()
    rec("same", D2(x) - D(x))
    rec("y", y)
    # deepcopy of a spectral-normed D (G_ema = deepcopy(G) on an SN generator)
    D.train()
    D3 = rec.err("deepcopy_after_forward", lambda: copy.deepcopy(D))
    rec("d3", str(D3 is None))
    D4 = copy.deepcopy(nn.utils.spectral_norm(nn.Linear(3, 2).to(dt)))
    rec("deepcopy_fresh", D4(x))
    # parametrized spectral norm deepcopies fine
    E = nn.Sequential(nn.utils.parametrizations.spectral_norm(nn.Linear(3, 4))).to(dt)
    E(x)
    E2 = copy.deepcopy(E)
    E2.eval()
    E.eval()
    rec("param_copy", E2(x) - E(x))
    rec.err("param_pickle", lambda: lib.save(E, io.BytesIO()))
    E3 = nn.Sequential(nn.utils.parametrizations.spectral_norm(nn.Linear(3, 4))).to(dt)
    E3.load_state_dict(E.state_dict())
    E3.eval()
    rec("param_reload", E3(x) - E(x))
    rec("E3.keys", str(list(E3.state_dict().keys())))


def p_unrolled(lib, dt, rec):
    lib.manual_seed(39)
    nn, F = lib.nn, lib.nn.functional
    from_func = lib.func.functional_call
    G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2)).to(dt)
    D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1)).to(dt)
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    optD = lib.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    unroll, d_lr = 3, 0.1

    def d_loss_fn(params, real, fake):
        lr_ = from_func(D, params, (real,))
        lf = from_func(D, params, (fake,))
        return F.binary_cross_entropy_with_logits(
            lr_, lib.ones_like(lr_)
        ) + F.binary_cross_entropy_with_logits(lf, lib.zeros_like(lf))

    for it in range(2):
        real = lib.randn(8, 2, dtype=dt) * 0.1 + lib.tensor([1.0, -1.0], dtype=dt)
        z = lib.randn(8, 2, dtype=dt)
        # D step
        optD.zero_grad()
        loss_d = d_loss_fn(dict(D.named_parameters()), real, G(z).detach())
        loss_d.backward()
        optD.step()
        # G step through k unrolled SGD steps of D (create_graph keeps the dependence on G)
        params = {k: v for k, v in D.named_parameters()}
        fake = G(z)
        for _ in range(unroll):
            ld = d_loss_fn(params, real, fake)
            grads = lib.autograd.grad(ld, list(params.values()), create_graph=True)
            params = {k: v - d_lr * g for (k, v), g in zip(params.items(), grads, strict=True)}
        out = from_func(D, params, (fake,))
        loss_g = F.binary_cross_entropy_with_logits(out, lib.ones_like(out))
        optG.zero_grad()
        loss_g.backward()
        optG.step()
        rec(f"loss_d{it}", loss_d)
        rec(f"loss_g{it}", loss_g)
        rec(f"unrolled_w{it}", params["2.weight"])
    rec.params("G", G, grads=True)
    rec("D.grad_after_unroll", D[0].weight.grad)
    # the same through torch.func.grad over a dict of parameters
    p0 = {k: v.detach() for k, v in D.named_parameters()}
    gd = lib.func.grad(lambda p: d_loss_fn(p, real, fake.detach()))(p0)
    rec("func_grad", gd["0.weight"])
    rec("vmap_scores", lib.func.vmap(lambda x: from_func(D, p0, (x,)))(real[:3]))


def p_custom_fn(lib, dt, rec):
    lib.manual_seed(40)
    nn, F = lib.nn, lib.nn.functional

    class FusedLeakyReLUFunctionBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, grad_output, out, bias, negative_slope, scale):
            ctx.save_for_backward(out)
            ctx.negative_slope = negative_slope
            ctx.scale = scale
            empty = grad_output.new_empty(0)
            pos = (out > 0).to(grad_output.dtype)
            grad_input = grad_output * (pos + (1 - pos) * negative_slope) * scale
            del empty
            dim = [0]
            if grad_input.ndim > 2:
                dim += list(range(2, grad_input.ndim))
            grad_bias = grad_input.sum(dim).detach() if bias else grad_input.new_empty(0)
            return grad_input, grad_bias

        @staticmethod
        def backward(ctx, gradgrad_input, gradgrad_bias):
            (out,) = ctx.saved_tensors
            pos = (out > 0).to(gradgrad_input.dtype)
            gradgrad_out = gradgrad_input * (pos + (1 - pos) * ctx.negative_slope) * ctx.scale
            if gradgrad_bias is not None and gradgrad_bias.numel():
                gradgrad_out = gradgrad_out + (
                    gradgrad_bias.view(1, -1, *([1] * (gradgrad_input.ndim - 2)))
                    * (pos + (1 - pos) * ctx.negative_slope) * ctx.scale
                )  # fmt: skip
            return gradgrad_out, None, None, None, None

    class FusedLeakyReLUFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input, bias, negative_slope, scale):
            ctx.bias = bias is not None
            if bias is None:
                bias = input.new_zeros(input.shape[1])
            x = input + bias.view(1, -1, *([1] * (input.ndim - 2)))
            out = lib.where(x > 0, x, x * negative_slope) * scale
            ctx.save_for_backward(out)
            ctx.negative_slope = negative_slope
            ctx.scale = scale
            return out

        @staticmethod
        def backward(ctx, grad_output):
            (out,) = ctx.saved_tensors
            grad_input, grad_bias = FusedLeakyReLUFunctionBackward.apply(
                grad_output, out, ctx.bias, ctx.negative_slope, ctx.scale
            )
            if not ctx.bias:
                grad_bias = None
            return grad_input, grad_bias, None, None

    x = lib.randn(2, 3, 4, 4, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt, requires_grad=True)
    out = FusedLeakyReLUFunction.apply(x, b, 0.2, math.sqrt(2))
    ref = F.leaky_relu(x + b.view(1, -1, 1, 1), 0.2) * math.sqrt(2)
    rec("out", out)
    rec("same", (out - ref).abs().max())
    rec("fn", type(out.grad_fn).__name__)
    gx, gb = lib.autograd.grad(out.pow(2).sum(), [x, b], create_graph=True)
    rec("gx", gx)
    rec("gb", gb)
    gg = lib.autograd.grad(gx.sum() + gb.pow(2).sum(), [x, b], allow_unused=True)
    rec("ggx", gg[0])
    rec("ggb", gg[1])
    out2 = FusedLeakyReLUFunction.apply(x, None, 0.2, 1.0)
    rec("nobias_grad", lib.autograd.grad(out2.sum(), x)[0])

    # gradient reversal (domain-adversarial training)
    class GradReverse(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, lambd):
            ctx.lambd = lambd
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.neg() * ctx.lambd, None

    feat = nn.Linear(4, 3).to(dt)
    clf = nn.Linear(3, 2).to(dt)
    h = feat(lib.randn(5, 4, dtype=dt))
    logits = clf(GradReverse.apply(h, 0.5))
    F.cross_entropy(logits, lib.tensor([0, 1, 1, 0, 1])).backward()
    rec("rev.feat", feat.weight.grad)
    rec("rev.clf", clf.weight.grad)
    rec("rev.fn", type(logits.grad_fn).__name__)

    # a straight-through estimator and once_differentiable
    class STE(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x > 0).to(x.dtype)

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            return g.clamp(-1, 1)

    s = lib.randn(6, dtype=dt, requires_grad=True)
    y = STE.apply(s * 3)
    (gs,) = lib.autograd.grad((y * lib.arange(6, dtype=dt)).sum(), s, create_graph=True)
    rec("ste", gs)
    rec.err("once", lambda: gs.sum().backward())
    # gradcheck of the fused op in float64
    if dt == lib.float64:
        xs = lib.randn(2, 2, 3, dtype=dt, requires_grad=True) + 0.05
        bs = lib.randn(2, dtype=dt, requires_grad=True)
        ok = lib.autograd.gradcheck(
            lambda a, c: FusedLeakyReLUFunction.apply(a, c, 0.2, 1.4), (xs, bs)
        )
        rec("gradcheck", ok)
        ok2 = lib.autograd.gradgradcheck(
            lambda a, c: FusedLeakyReLUFunction.apply(a, c, 0.2, 1.4), (xs, bs)
        )
        rec("gradgradcheck", ok2)


def p_ema_helpers(lib, dt, rec):
    lib.manual_seed(41)
    nn = lib.nn
    swa = lib.optim.swa_utils
    G = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1, bias=False), nn.BatchNorm2d(3), nn.ReLU(),
                      nn.Conv2d(3, 2, 1)).to(dt)  # fmt: skip
    ema = swa.AveragedModel(G, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    ema2 = swa.AveragedModel(G, avg_fn=swa.get_ema_avg_fn(0.9), use_buffers=True)
    opt = lib.optim.Adam(G.parameters(), lr=0.01)
    data = [lib.randn(4, 2, 5, 5, dtype=dt) for _ in range(3)]
    for it, x in enumerate(data):
        loss = (G(x) - x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(G)
        ema2.update_parameters(G)
        rec(f"loss{it}", loss)
    rec("n_averaged", ema.n_averaged)
    rec.params("ema", ema.module)
    rec.params("ema2", ema2.module)
    rec("ema.rm_before", ema.module[1].running_mean)
    rec("ema2.rm", ema2.module[1].running_mean)
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.cat(data)), batch_size=6)
    swa.update_bn(([b[0]] for b in loader), ema.module)
    rec("ema.rm_after", ema.module[1].running_mean)
    rec("ema.rv_after", ema.module[1].running_var)
    rec("ema.momentum", str(ema.module[1].momentum))
    rec("keys", str(list(ema.state_dict().keys())))
    with lib.no_grad():
        rec("out", ema(data[0][:1]))
    swa_sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
    lrs = []
    for _ in range(3):
        opt.step()
        swa_sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    rec("swa_lrs", lrs)
    tn = nn.utils.get_total_norm([p.grad for p in G.parameters()], norm_type=2.0)
    rec("total_norm", tn)
    nn.utils.clip_grads_with_norm_(G.parameters(), 0.1, tn)
    rec("clipped", G[0].weight.grad)


def p_timegan(lib, dt, rec):
    # a recurrent GAN for sequences (C-RNN-GAN / TimeGAN style): LSTM generator, GRU critic with
    # a gradient penalty through the recurrence (double backward through the cells)
    lib.manual_seed(42)
    nn = lib.nn

    class Gen(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(3, 5, num_layers=2, batch_first=True)
            self.out = nn.Linear(5, 2)

        def forward(self, z):
            h, (hn, cn) = self.rnn(z)
            return lib.sigmoid(self.out(h)), hn

    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(2, 4, batch_first=True, bidirectional=True)
            self.out = nn.Linear(8, 1)

        def forward(self, x):
            h, _ = self.rnn(x)
            return self.out(h).mean(1)

    G, C = Gen().to(dt), Critic().to(dt)
    optG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    optC = lib.optim.Adam(C.parameters(), lr=1e-3, betas=(0.5, 0.9))
    t = lib.linspace(0, 2 * math.pi, 6, dtype=dt)
    for it in range(2):
        phase = lib.rand(4, 1, dtype=dt) * math.pi
        real = lib.stack([lib.sin(t + phase), lib.cos(t + phase)], -1) * 0.5 + 0.5
        z = lib.randn(4, 6, 3, dtype=dt)
        fake, hn = G(z)
        a = lib.rand(4, 1, 1, dtype=dt)
        inter = (a * real + (1 - a) * fake.detach()).requires_grad_(True)
        (g,) = lib.autograd.grad(C(inter).sum(), inter, create_graph=True)
        gp = ((g.flatten(1).norm(dim=1) - 1) ** 2).mean()
        loss_c = C(fake.detach()).mean() - C(real).mean() + 10 * gp
        optC.zero_grad()
        loss_c.backward()
        optC.step()
        loss_g = -C(fake).mean()
        optG.zero_grad()
        loss_g.backward()
        optG.step()
        rec(f"gp{it}", gp)
        rec(f"loss_c{it}", loss_c)
        rec(f"loss_g{it}", loss_g)
        rec(f"hn{it}", hn)
    rec.params("C", C, grads=True)
    rec("G.ih", G.rnn.weight_ih_l1.grad)
    # packed sequences of varying lengths through the critic
    lengths = lib.tensor([6, 4, 3, 2])
    packed = nn.utils.rnn.pack_padded_sequence(real, lengths, batch_first=True)
    out, h = C.rnn(packed)
    padded, lens = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
    rec("padded", padded)
    rec("lens", lens)
    rec("h", h)
