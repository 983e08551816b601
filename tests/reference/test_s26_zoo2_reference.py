"""Session 26 (model zoo, part 2): architectures run under torch and minitorch after the same
manual_seed: a U-Net/FPN whose decoder upsamples with F.interpolate (nearest by scale_factor,
bilinear by size with align_corners True/False) and whose BatchNorm2d layers are replaced by
GroupNorm through a named_modules walk and setattr on the parents, run channels-last too; DETR's
sine positional encoding (cumsum over a padding mask, stacked sin/cos, flatten); a ViT position
embedding resized by bicubic interpolation (antialias on and off) of its reshaped grid; an
MLP-Mixer block. Recorded: reprs, state_dict keys, outputs, gradients, strides."""

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._one_thread import one_torch_thread  # noqa: F401 - autouse fixture
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")


def unet_gn(lib, rec):
    nn, F = lib.nn, lib.nn.functional

    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.d1, self.d2, self.d3 = block(3, 8), block(8, 8), block(8, 16)
            self.lat = nn.Conv2d(8, 16, 1)
            self.u1, self.out = block(24, 8), nn.Conv2d(8, 2, 1)

        def forward(self, x):
            a = self.d1(x)
            b = self.d2(F.max_pool2d(a, 2))
            c = self.d3(F.pad(F.avg_pool2d(b, 2), (0, 1, 1, 0), mode="replicate")[..., 1:, :-1])
            p = F.interpolate(c, scale_factor=2, mode="nearest") + self.lat(b)  # FPN top-down
            up = F.interpolate(p, size=a.shape[-2:], mode="bilinear", align_corners=False)
            up2 = F.interpolate(p, size=a.shape[-2:], mode="bilinear", align_corners=True)
            y = self.u1(lib.cat([up[:, :8] + up2[:, 8:], a, lib.roll(a, 1, 2)[:, :8]], 1)[:, :24])
            return self.out(y)

    def replace_bn(model):
        for name, m in list(model.named_modules()):
            if isinstance(m, nn.BatchNorm2d):
                parent = model.get_submodule(name.rsplit(".", 1)[0]) if "." in name else model
                setattr(parent, name.rsplit(".", 1)[-1], nn.GroupNorm(4, m.num_features))
        return model

    lib.manual_seed(0)
    net = replace_bn(Net()).double()
    rec("repr", repr(net))
    rec("keys", str(list(net.state_dict().keys())))
    x = lib.randn(2, 3, 12, 12, dtype=lib.float64)
    y = net(x)
    rec("out", y)
    y.square().mean().backward()
    rec.params("p", net, grads=True)
    netc = net.to(memory_format=lib.channels_last)
    xc = x.to(memory_format=lib.channels_last).requires_grad_()
    yc = netc(xc)
    rec("out_cl", yc)
    rec("stride_cl", str(yc.stride()))
    yc.sum().backward()
    rec("xgrad_cl", xc.grad)


def detr_pos(lib, rec):
    lib.manual_seed(1)
    mask = lib.zeros(2, 5, 7, dtype=lib.bool)
    mask[0, :, 5:] = True
    mask[1, 4:, :] = True
    not_mask = ~mask
    y_embed = not_mask.cumsum(1, dtype=lib.float32)
    x_embed = not_mask.cumsum(2, dtype=lib.float32)
    eps, scale, feats = 1e-6, 2 * math.pi, 8
    y_embed = y_embed / (y_embed[:, -1:, :] + eps) * scale
    x_embed = x_embed / (x_embed[:, :, -1:] + eps) * scale
    dim_t = lib.arange(feats, dtype=lib.float32)
    dim_t = 10000 ** (2 * (dim_t // 2) / feats)
    pos_x = x_embed[:, :, :, None] / dim_t
    pos_y = y_embed[:, :, :, None] / dim_t
    pos_x = lib.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), dim=4).flatten(3)
    pos_y = lib.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), dim=4).flatten(3)
    pos = lib.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)
    rec("pos", pos)
    rec("pos_stride", str(pos.stride()))
    rec("seq", pos.flatten(2).permute(2, 0, 1))


def vit_resize(lib, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(2)
    pos = nn.Parameter(lib.randn(1, 1 + 16, 12, dtype=lib.float64) * 0.02)
    cls_tok, grid = pos[:, :1], pos[:, 1:]
    g = grid.reshape(1, 4, 4, 12).permute(0, 3, 1, 2)
    for aa in (False, True):
        for size in ((6, 6), (3, 5)):
            r = F.interpolate(g, size=size, mode="bicubic", align_corners=False, antialias=aa)
            new = lib.cat([cls_tok, r.permute(0, 2, 3, 1).flatten(1, 2)], 1)
            rec(f"pos_{aa}_{size}", new)
            (gp,) = lib.autograd.grad(new.pow(2).sum(), pos)
            rec(f"grad_{aa}_{size}", gp)


def mixer(lib, rec):
    nn = lib.nn

    class MixerBlock(nn.Module):
        def __init__(self, tokens, dim):
            super().__init__()
            self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.tok = nn.Sequential(nn.Linear(tokens, 16), nn.GELU(), nn.Linear(16, tokens))
            self.ch = nn.Sequential(nn.Linear(dim, 32), nn.GELU(), nn.Linear(32, dim))

        def forward(self, x):
            x = x + self.tok(self.n1(x).transpose(1, 2)).transpose(1, 2)
            return x + self.ch(self.n2(x))

    lib.manual_seed(3)
    stem = nn.Conv2d(3, 12, 4, stride=4)
    net = nn.Sequential(MixerBlock(9, 12), MixerBlock(9, 12)).double()
    stem = stem.double()
    x = lib.randn(2, 3, 12, 12, dtype=lib.float64)
    t = stem(x).flatten(2).transpose(1, 2)
    y = net(t).mean(1)
    rec("repr", repr(net))
    rec("out", y)
    y.sum().backward()
    rec.params("p", net, grads=True)
    rec.params("stem", stem, grads=True)


@pytest.mark.parametrize(
    "prog,tol", [(unet_gn, 1e-9), (detr_pos, 1e-6), (vit_resize, 1e-9), (mixer, 1e-9)]
)
def test_program(prog, tol):
    want = run_program(prog, torch)
    got = run_program(prog, minitorch)
    assert_records_match(want, got, tol, rename=True)  # detr_pos is float32: 1 ulp of sin/cos
