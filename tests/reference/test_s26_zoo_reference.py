"""Session 26: torchvision/timm-style architectures written by hand (no torchvision import), each
run under torch and minitorch after the same manual_seed: MobileNetV2 (inverted residuals,
ReLU6, depthwise convs), MobileNetV3 (hardswish, hardsigmoid squeeze-excitation), EfficientNet
MBConv (SiLU, SE, stochastic depth and timm's DropPath by bernoulli_), DenseNet (torch.cat over
features, the memory-efficient checkpointed variant), ConvNeXt (depthwise 7x7, channels-first
LayerNorm by mean/pow, layer scale, DropPath by rand().floor_()), a Swin block (window
partition/reverse, roll, shifted-window mask by slices and masked_fill, relative position bias
table indexed by a buffer, patch merging), ShuffleNetV2 (channel_shuffle, chunk), SqueezeNet
fire + Inception branches, ResNeXt/SE-ResNeXt (grouped bottlenecks, zero-init last BN,
fuse_conv_bn_eval), and channels-last feature maps. Recorded: repr, parameter counts,
state_dict/named_parameters/named_modules keys, initial values (kaiming_normal_ fan_out,
trunc_normal_, ...), train outputs and losses over steps, every gradient, optimizer state,
BatchNorm running stats, eval outputs, channels_last outputs and strides, bfloat16 forward.
float64 to 1e-10 of scale, float32 to 1e-4, bfloat16 to 3e-2."""

from __future__ import annotations

import copy
import math

import pytest

import minitorch
from tests.reference._one_thread import one_torch_thread  # noqa: F401 - autouse fixture
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def drive(lib, dt, rec, model, x, *, steps=2, opt="sgd", half=True, cl=True, target=None):
    """Records everything about a model: repr, counts, keys, init values, train outputs and
    grads, optimizer state, buffers, eval outputs, channels_last, bf16."""
    model = model.to(dt)
    if dt is not lib.float64:  # the layouts and bfloat16 once per program (time)
        half = cl = False
    x = x.to(dt)
    rec("repr", repr(model))
    rec("nparams", sum(p.numel() for p in model.parameters()))
    rec("keys", str(list(model.state_dict().keys())))
    rec("pkeys", str([n for n, _ in model.named_parameters()]))
    rec("mods", str([n for n, _ in model.named_modules()]))
    rec.params("init", model)
    for n, b in model.named_buffers():
        rec("initbuf." + n, b)
    if opt == "sgd":
        o = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    else:
        o = lib.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    model.train()
    for s in range(steps):
        o.zero_grad()
        out = model(x)
        rec(f"out{s}", out)
        loss = out.square().mean() if target is None else target(out)
        rec(f"loss{s}", loss)
        loss.backward()
        if s == 0:
            for n, p in model.named_parameters():
                if p.grad is not None:
                    rec("grad." + n, p.grad)
                else:
                    rec("grad." + n, "None")
        o.step()
    sd = o.state_dict()
    for k, st in sd["state"].items():
        for kk, v in st.items():
            rec(f"opt.{k}.{kk}", v)
    rec("opt.groups", str(sd["param_groups"]))
    rec.params("after", model)
    for n, b in model.named_buffers():
        rec("buf." + n, b)
    model.eval()
    with lib.no_grad():
        y = model(x)
    rec("eval", y)
    if cl and x.dim() == 4:
        m2 = copy.deepcopy(model).to(memory_format=lib.channels_last)
        xc = x.to(memory_format=lib.channels_last)
        with lib.no_grad():
            yc = m2(xc)
        rec("cl.out", yc)
        rec("cl.stride", str(yc.stride()))
        rec("cl.contig", str(yc.is_contiguous(memory_format=lib.channels_last)))
        for n, p in m2.named_parameters():
            if p.dim() == 4:
                rec("cl.pstride." + n, str(p.stride()))
                break
    if half:
        m3 = copy.deepcopy(model).bfloat16()
        with lib.no_grad():
            yb = m3(x.bfloat16())
        rec("bf16.out", yb)
        rec("bf16.dtype", str(yb.dtype))
    return model


def p_mobilenetv2(lib, dt, rec):
    nn = lib.nn

    def make_divisible(v, divisor=8, min_value=None):
        min_value = min_value or divisor
        new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
        if new_v < 0.9 * v:
            new_v += divisor
        return new_v

    class ConvBNReLU(nn.Sequential):
        def __init__(self, i, o, k=3, s=1, groups=1):
            super().__init__(
                nn.Conv2d(i, o, k, s, (k - 1) // 2, groups=groups, bias=False),
                nn.BatchNorm2d(o),
                nn.ReLU6(inplace=True),
            )

    class InvertedResidual(nn.Module):
        def __init__(self, inp, oup, stride, expand_ratio):
            super().__init__()
            hidden = int(round(inp * expand_ratio))
            self.use_res_connect = stride == 1 and inp == oup
            layers = []
            if expand_ratio != 1:
                layers.append(ConvBNReLU(inp, hidden, k=1))
            layers.extend(
                [
                    ConvBNReLU(hidden, hidden, s=stride, groups=hidden),
                    nn.Conv2d(hidden, oup, 1, 1, 0, bias=False),
                    nn.BatchNorm2d(oup),
                ]
            )
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res_connect else self.conv(x)

    class MobileNetV2(nn.Module):
        def __init__(self, num_classes=10, width_mult=0.25):
            super().__init__()
            cfg = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2]]
            inp = make_divisible(32 * width_mult)
            self.last_channel = make_divisible(128 * max(1.0, width_mult))
            features = [ConvBNReLU(3, inp, s=2)]
            for t, c, n, s in cfg:
                oc = make_divisible(c * width_mult)
                for i in range(n):
                    features.append(InvertedResidual(inp, oc, s if i == 0 else 1, t))
                    inp = oc
            features.append(ConvBNReLU(inp, self.last_channel, k=1))
            self.features = nn.Sequential(*features)
            self.classifier = nn.Sequential(
                nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes)
            )
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out")
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.zeros_(m.bias)

        def forward(self, x):
            x = self.features(x)
            x = nn.functional.adaptive_avg_pool2d(x, (1, 1))
            x = lib.flatten(x, 1)
            return self.classifier(x)

    lib.manual_seed(0)
    m = MobileNetV2()
    x = lib.randn(3, 3, 32, 32)
    y = lib.tensor([1, 4, 7])
    drive(lib, dt, rec, m, x, target=lambda o: nn.functional.cross_entropy(o, y))


def p_mobilenetv3(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    class SqueezeExcitation(nn.Module):
        def __init__(self, c, sq):
            super().__init__()
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc1 = nn.Conv2d(c, sq, 1)
            self.fc2 = nn.Conv2d(sq, c, 1)
            self.activation = nn.ReLU()
            self.scale_activation = nn.Hardsigmoid()

        def forward(self, x):
            s = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
            return s * x

    class Block(nn.Module):
        def __init__(self, i, e, o, k, s, se, act):
            super().__init__()
            A = nn.Hardswish if act == "HS" else nn.ReLU
            layers = []
            if e != i:
                layers += [
                    nn.Conv2d(i, e, 1, bias=False),
                    nn.BatchNorm2d(e, eps=0.001, momentum=0.01),
                    A(inplace=True),
                ]
            layers += [
                nn.Conv2d(e, e, k, s, k // 2, groups=e, bias=False),
                nn.BatchNorm2d(e, eps=0.001, momentum=0.01),
                A(inplace=True),
            ]
            if se:
                layers.append(SqueezeExcitation(e, max(8, e // 4)))
            layers += [nn.Conv2d(e, o, 1, bias=False), nn.BatchNorm2d(o, eps=0.001, momentum=0.01)]
            self.block = nn.Sequential(*layers)
            self.use_res = s == 1 and i == o

        def forward(self, x):
            r = self.block(x)
            return r + x if self.use_res else r

    class MobileNetV3(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Sequential(
                    nn.Conv2d(3, 8, 3, 2, 1, bias=False),
                    nn.BatchNorm2d(8, eps=0.001, momentum=0.01),
                    nn.Hardswish(),
                ),
                Block(8, 8, 8, 3, 2, True, "RE"),
                Block(8, 24, 16, 3, 2, False, "RE"),
                Block(16, 32, 16, 5, 1, True, "HS"),
                Block(16, 48, 24, 5, 2, True, "HS"),
            )
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(
                nn.Linear(24, 32),
                nn.Hardswish(inplace=True),
                nn.Dropout(0.2, inplace=True),
                nn.Linear(32, 5),
            )
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out")
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.ones_(m.weight)
                    nn.init.zeros_(m.bias)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.zeros_(m.bias)

        def forward(self, x):
            return self.classifier(lib.flatten(self.avgpool(self.features(x)), 1))

    lib.manual_seed(1)
    m = MobileNetV3()
    x = lib.randn(2, 3, 32, 32)
    drive(
        lib,
        dt,
        rec,
        m,
        x,
        opt="adamw",
        target=lambda o: F.cross_entropy(o, lib.tensor([0, 3]), label_smoothing=0.1),
    )


def p_efficientnet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    def drop_path(x, p=0.0, training=False, scale_by_keep=True):
        if p == 0.0 or not training:
            return x
        keep = 1 - p
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        rt = x.new_empty(shape).bernoulli_(keep)
        if keep > 0.0 and scale_by_keep:
            rt.div_(keep)
        return x * rt

    def stochastic_depth(x, p, mode, training=True):
        if not training or p == 0.0:
            return x
        survival = 1.0 - p
        size = [x.shape[0]] + [1] * (x.ndim - 1) if mode == "row" else [1] * x.ndim
        noise = lib.empty(size, dtype=x.dtype, device=x.device)
        noise = noise.bernoulli_(survival)
        if survival > 0.0:
            noise.div_(survival)
        return x * noise

    class SE(nn.Module):
        def __init__(self, c, s):
            super().__init__()
            self.fc1, self.fc2 = nn.Conv2d(c, s, 1), nn.Conv2d(s, c, 1)

        def forward(self, x):
            s = F.adaptive_avg_pool2d(x, 1)
            return x * lib.sigmoid(self.fc2(F.silu(self.fc1(s))))

    class MBConv(nn.Module):
        def __init__(self, i, o, e, k, s, sd, row=True):
            super().__init__()
            h = i * e
            self.use_res = s == 1 and i == o
            self.block = nn.Sequential(
                nn.Conv2d(i, h, 1, bias=False),
                nn.BatchNorm2d(h),
                nn.SiLU(inplace=True),
                nn.Conv2d(h, h, k, s, k // 2, groups=h, bias=False),
                nn.BatchNorm2d(h),
                nn.SiLU(inplace=True),
                SE(h, max(1, i // 4)),
                nn.Conv2d(h, o, 1, bias=False),
                nn.BatchNorm2d(o),
            )
            self.sd, self.row = sd, row

        def forward(self, x):
            r = self.block(x)
            if self.use_res:
                if self.row:
                    r = stochastic_depth(r, self.sd, "row", self.training)
                else:
                    r = drop_path(r, self.sd, self.training)
                r = r + x
            return r

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.SiLU()
            )
            self.blocks = nn.Sequential(
                MBConv(8, 8, 1, 3, 1, 0.2),
                MBConv(8, 12, 4, 3, 2, 0.3),
                MBConv(12, 12, 4, 5, 1, 0.5, row=False),
                MBConv(12, 12, 6, 3, 1, 0.4, row=True),
            )
            self.head = nn.Linear(12, 4)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out")
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)
                elif isinstance(m, nn.Linear):
                    r = 1.0 / math.sqrt(m.out_features)
                    nn.init.uniform_(m.weight, -r, r)
                    nn.init.zeros_(m.bias)

        def forward(self, x):
            return self.head(self.blocks(self.stem(x)).mean((2, 3)))

    lib.manual_seed(2)
    m = Net()
    x = lib.randn(4, 3, 32, 32)
    drive(lib, dt, rec, m, x, steps=3)


def p_densenet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    import minitorch.utils.checkpoint as _  # noqa: F401

    cp = lib.utils.checkpoint

    class DenseLayer(nn.Module):
        def __init__(self, nin, growth, bn_size, drop, mem_eff):
            super().__init__()
            self.norm1 = nn.BatchNorm2d(nin)
            self.relu1 = nn.ReLU(inplace=True)
            self.conv1 = nn.Conv2d(nin, bn_size * growth, 1, bias=False)
            self.norm2 = nn.BatchNorm2d(bn_size * growth)
            self.relu2 = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)
            self.drop_rate = float(drop)
            self.memory_efficient = mem_eff

        def bn_function(self, inputs):
            return self.conv1(self.relu1(self.norm1(lib.cat(inputs, 1))))

        def any_requires_grad(self, inputs):
            return any(t.requires_grad for t in inputs)

        def call_checkpoint_bottleneck(self, inputs):
            def closure(*inputs):
                return self.bn_function(inputs)

            return cp.checkpoint(closure, *inputs, use_reentrant=False)

        def forward(self, input):
            prev = [input] if isinstance(input, lib.Tensor) else input
            if self.memory_efficient and self.any_requires_grad(prev):
                bott = self.call_checkpoint_bottleneck(prev)
            else:
                bott = self.bn_function(prev)
            new = self.conv2(self.relu2(self.norm2(bott)))
            if self.drop_rate > 0:
                new = F.dropout(new, p=self.drop_rate, training=self.training)
            return new

    class DenseBlock(nn.ModuleDict):
        def __init__(self, n, nin, bn_size, growth, drop, mem_eff):
            super().__init__()
            for i in range(n):
                self.add_module(
                    f"denselayer{i + 1}",
                    DenseLayer(nin + i * growth, growth, bn_size, drop, mem_eff),
                )

        def forward(self, init):
            feats = [init]
            for _name, layer in self.items():
                feats.append(layer(feats))
            return lib.cat(feats, 1)

    class Transition(nn.Sequential):
        def __init__(self, i, o):
            super().__init__()
            self.norm = nn.BatchNorm2d(i)
            self.relu = nn.ReLU(inplace=True)
            self.conv = nn.Conv2d(i, o, 1, bias=False)
            self.pool = nn.AvgPool2d(2, 2)

    from collections import OrderedDict

    class DenseNet(nn.Module):
        def __init__(self, mem_eff):
            super().__init__()
            self.features = nn.Sequential(
                OrderedDict(
                    [
                        ("conv0", nn.Conv2d(3, 8, 3, 1, 1, bias=False)),
                        ("norm0", nn.BatchNorm2d(8)),
                        ("relu0", nn.ReLU(inplace=True)),
                        ("pool0", nn.MaxPool2d(3, 2, 1)),
                    ]
                )
            )
            c = 8
            for i, n in enumerate((2, 3)):
                self.features.add_module(f"denseblock{i + 1}", DenseBlock(n, c, 2, 4, 0.1, mem_eff))
                c += n * 4
                if i == 0:
                    self.features.add_module("transition1", Transition(c, c // 2))
                    c //= 2
            self.features.add_module("norm5", nn.BatchNorm2d(c))
            self.classifier = nn.Linear(c, 3)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.constant_(m.bias, 0)

        def forward(self, x):
            f = F.relu(self.features(x), inplace=True)
            return self.classifier(lib.flatten(F.adaptive_avg_pool2d(f, (1, 1)), 1))

    for mem in (False, True):
        lib.manual_seed(3)
        m = DenseNet(mem)
        x = lib.randn(2, 3, 32, 32)
        drive(lib, dt, rec, m, x, half=not mem)


def p_convnext(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    def drop_path(x, p=0.0, training=False):
        if p == 0.0 or not training:
            return x
        keep = 1 - p
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        r = keep + lib.rand(shape, dtype=x.dtype, device=x.device)
        r.floor_()
        return x.div(keep) * r

    class DropPath(nn.Module):
        def __init__(self, p=None):
            super().__init__()
            self.drop_prob = p

        def forward(self, x):
            return drop_path(x, self.drop_prob, self.training)

        def extra_repr(self):
            return f"drop_prob={round(self.drop_prob, 3):0.3f}"

    class LayerNorm(nn.Module):
        def __init__(self, n, eps=1e-6, data_format="channels_last"):
            super().__init__()
            self.weight = nn.Parameter(lib.ones(n))
            self.bias = nn.Parameter(lib.zeros(n))
            self.eps, self.data_format = eps, data_format
            self.normalized_shape = (n,)

        def forward(self, x):
            if self.data_format == "channels_last":
                return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            u = x.mean(1, keepdim=True)
            s = (x - u).pow(2).mean(1, keepdim=True)
            x = (x - u) / lib.sqrt(s + self.eps)
            return self.weight[:, None, None] * x + self.bias[:, None, None]

    class Block(nn.Module):
        def __init__(self, dim, dp=0.0, ls=1e-6):
            super().__init__()
            self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = LayerNorm(dim, eps=1e-6)
            self.pwconv1 = nn.Linear(dim, 4 * dim)
            self.act = nn.GELU()
            self.pwconv2 = nn.Linear(4 * dim, dim)
            self.gamma = nn.Parameter(ls * lib.ones(dim), requires_grad=True) if ls > 0 else None
            self.drop_path = DropPath(dp) if dp > 0.0 else nn.Identity()

        def forward(self, x):
            inp = x
            x = self.dwconv(x)
            x = x.permute(0, 2, 3, 1)
            x = self.norm(x)
            x = self.pwconv2(self.act(self.pwconv1(x)))
            if self.gamma is not None:
                x = self.gamma * x
            x = x.permute(0, 3, 1, 2)
            return inp + self.drop_path(x)

    class ConvNeXt(nn.Module):
        def __init__(self, dims=(8, 16), depths=(2, 2), dpr=0.3):
            super().__init__()
            self.downsample_layers = nn.ModuleList()
            self.downsample_layers.append(
                nn.Sequential(
                    nn.Conv2d(3, dims[0], 4, 4),
                    LayerNorm(dims[0], eps=1e-6, data_format="channels_first"),
                )
            )
            self.downsample_layers.append(
                nn.Sequential(
                    LayerNorm(dims[0], eps=1e-6, data_format="channels_first"),
                    nn.Conv2d(dims[0], dims[1], 2, 2),
                )
            )
            rates = [x.item() for x in lib.linspace(0, dpr, sum(depths))]
            self.stages = nn.ModuleList()
            cur = 0
            for i in range(2):
                self.stages.append(
                    nn.Sequential(
                        *[Block(dims[i], rates[cur + j], ls=0.5) for j in range(depths[i])]
                    )
                )
                cur += depths[i]
            self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
            self.head = nn.Linear(dims[-1], 5)
            self.apply(self._init_weights)
            self.head.weight.data.mul_(0.5)
            self.head.bias.data.mul_(0.5)

        def _init_weights(self, m):
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                nn.init.constant_(m.bias, 0)

        def forward(self, x):
            for i in range(2):
                x = self.stages[i](self.downsample_layers[i](x))
            return self.head(self.norm(x.mean([-2, -1])))

    lib.manual_seed(4)
    m = ConvNeXt()
    x = lib.randn(2, 3, 32, 32)
    drive(lib, dt, rec, m, x, opt="adamw", steps=3)


def p_swin(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    def window_partition(x, ws):
        B, H, W, C = x.shape
        x = x.view(B, H // ws, ws, W // ws, ws, C)
        return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)

    def window_reverse(w, ws, H, W):
        C = w.shape[-1]
        x = w.view(-1, H // ws, W // ws, ws, ws, C)
        return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)

    class WindowAttention(nn.Module):
        def __init__(self, dim, ws, heads):
            super().__init__()
            self.dim, self.window_size, self.num_heads = dim, ws, heads
            hd = dim // heads
            self.scale = hd**-0.5
            self.relative_position_bias_table = nn.Parameter(
                lib.zeros((2 * ws[0] - 1) * (2 * ws[1] - 1), heads)
            )
            coords = lib.stack(lib.meshgrid([lib.arange(ws[0]), lib.arange(ws[1])], indexing="ij"))
            cf = lib.flatten(coords, 1)
            rel = cf[:, :, None] - cf[:, None, :]
            rel = rel.permute(1, 2, 0).contiguous()
            rel[:, :, 0] += ws[0] - 1
            rel[:, :, 1] += ws[1] - 1
            rel[:, :, 0] *= 2 * ws[1] - 1
            self.register_buffer("relative_position_index", rel.sum(-1))
            self.qkv = nn.Linear(dim, dim * 3, bias=True)
            self.proj = nn.Linear(dim, dim)
            self.softmax = nn.Softmax(dim=-1)
            nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

        def forward(self, x, mask=None):
            B_, N, C = x.shape
            qkv = (
                self.qkv(x)
                .reshape(B_, N, 3, self.num_heads, C // self.num_heads)
                .permute(2, 0, 3, 1, 4)
            )
            q, k, v = qkv[0], qkv[1], qkv[2]
            q = q * self.scale
            attn = q @ k.transpose(-2, -1)
            rpb = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(
                N, N, -1
            )
            attn = attn + rpb.permute(2, 0, 1).contiguous().unsqueeze(0)
            if mask is not None:
                nW = mask.shape[0]
                attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(
                    0
                )
                attn = attn.view(-1, self.num_heads, N, N)
            attn = self.softmax(attn)
            x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
            return self.proj(x)

    class SwinBlock(nn.Module):
        def __init__(self, dim, res, heads, ws=4, shift=0):
            super().__init__()
            self.res, self.ws, self.shift = res, ws, shift
            self.norm1 = nn.LayerNorm(dim)
            self.attn = WindowAttention(dim, (ws, ws), heads)
            self.norm2 = nn.LayerNorm(dim)
            self.mlp = nn.Sequential(
                nn.Linear(dim, 2 * dim), nn.GELU(), nn.Dropout(0.0), nn.Linear(2 * dim, dim)
            )
            if shift > 0:
                H, W = res
                img_mask = lib.zeros((1, H, W, 1))
                sl = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
                cnt = 0
                for h in sl:
                    for w in sl:
                        img_mask[:, h, w, :] = cnt
                        cnt += 1
                mw = window_partition(img_mask, ws).view(-1, ws * ws)
                am = mw.unsqueeze(1) - mw.unsqueeze(2)
                am = am.masked_fill(am != 0, (-100.0)).masked_fill(am == 0, 0.0)
            else:
                am = None
            self.register_buffer("attn_mask", am)

        def forward(self, x):
            H, W = self.res
            B, L, C = x.shape
            sc = x
            x = self.norm1(x).view(B, H, W, C)
            if self.shift > 0:
                x = lib.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
            xw = window_partition(x, self.ws).view(-1, self.ws * self.ws, C)
            aw = self.attn(xw, mask=self.attn_mask).view(-1, self.ws, self.ws, C)
            x = window_reverse(aw, self.ws, H, W)
            if self.shift > 0:
                x = lib.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
            x = sc + x.view(B, H * W, C)
            return x + self.mlp(self.norm2(x))

    class PatchMerging(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
            self.norm = nn.LayerNorm(4 * dim)

        def forward(self, x):
            x0, x1 = x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :]
            x2, x3 = x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]
            return self.reduction(self.norm(lib.cat([x0, x1, x2, x3], -1)))

    class Swin(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch_embed = nn.Conv2d(3, 16, 4, 4)
            self.blocks = nn.ModuleList(
                [SwinBlock(16, (8, 8), 2, 4, 0), SwinBlock(16, (8, 8), 2, 4, 2)]
            )
            self.merge = PatchMerging(16)
            self.norm = nn.LayerNorm(32)
            self.head = nn.Linear(32, 4)
            self.apply(self._init)

        def _init(self, m):
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.LayerNorm):
                nn.init.constant_(m.bias, 0)
                nn.init.constant_(m.weight, 1.0)

        def forward(self, x):
            x = self.patch_embed(x).flatten(2).transpose(1, 2)
            for b in self.blocks:
                x = b(x)
            B, L, C = x.shape
            x = self.merge(x.view(B, 8, 8, C))
            x = self.norm(x)
            x = x.permute(0, 3, 1, 2)
            x = F.adaptive_avg_pool2d(x, 1).flatten(1)
            return self.head(x)

    lib.manual_seed(5)
    m = Swin()
    rec("mask", m.blocks[1].attn_mask)
    rec("rpi", m.blocks[0].attn.relative_position_index)
    x = lib.randn(2, 3, 32, 32)
    drive(lib, dt, rec, m, x, opt="adamw")


def p_shufflenet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    def channel_shuffle(x, groups):
        b, c, h, w = x.size()
        x = x.view(b, groups, c // groups, h, w)
        x = lib.transpose(x, 1, 2).contiguous()
        return x.view(b, -1, h, w)

    class InvertedResidual(nn.Module):
        def __init__(self, inp, oup, stride):
            super().__init__()
            self.stride = stride
            bf = oup // 2
            if stride > 1:
                self.branch1 = nn.Sequential(
                    nn.Conv2d(inp, inp, 3, stride, 1, bias=False, groups=inp),
                    nn.BatchNorm2d(inp),
                    nn.Conv2d(inp, bf, 1, bias=False),
                    nn.BatchNorm2d(bf),
                    nn.ReLU(inplace=True),
                )
            else:
                self.branch1 = nn.Sequential()
            self.branch2 = nn.Sequential(
                nn.Conv2d(inp if stride > 1 else bf, bf, 1, bias=False),
                nn.BatchNorm2d(bf),
                nn.ReLU(inplace=True),
                nn.Conv2d(bf, bf, 3, stride, 1, bias=False, groups=bf),
                nn.BatchNorm2d(bf),
                nn.Conv2d(bf, bf, 1, bias=False),
                nn.BatchNorm2d(bf),
                nn.ReLU(inplace=True),
            )

        def forward(self, x):
            if self.stride == 1:
                x1, x2 = x.chunk(2, dim=1)
                out = lib.cat((x1, self.branch2(x2)), dim=1)
            else:
                out = lib.cat((self.branch1(x), self.branch2(x)), dim=1)
            return channel_shuffle(out, 2)

    class ShuffleNetV2(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Sequential(
                nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True)
            )
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.stage2 = nn.Sequential(InvertedResidual(8, 16, 2), InvertedResidual(16, 16, 1))
            self.stage3 = nn.Sequential(InvertedResidual(16, 32, 2), InvertedResidual(32, 32, 1))
            self.conv5 = nn.Sequential(
                nn.Conv2d(32, 48, 1, 1, 0, bias=False), nn.BatchNorm2d(48), nn.ReLU(inplace=True)
            )
            self.fc = nn.Linear(48, 6)

        def forward(self, x):
            x = self.conv5(self.stage3(self.stage2(self.maxpool(self.conv1(x)))))
            return self.fc(x.mean([2, 3]))

    lib.manual_seed(6)
    m = ShuffleNetV2()
    x = lib.randn(3, 3, 64, 64)
    drive(lib, dt, rec, m, x, target=lambda o: F.cross_entropy(o, lib.tensor([5, 0, 2])))


def p_squeeze_inception(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    class Fire(nn.Module):
        def __init__(self, inp, sq, e1, e3):
            super().__init__()
            self.squeeze = nn.Conv2d(inp, sq, kernel_size=1)
            self.squeeze_activation = nn.ReLU(inplace=True)
            self.expand1x1 = nn.Conv2d(sq, e1, kernel_size=1)
            self.expand1x1_activation = nn.ReLU(inplace=True)
            self.expand3x3 = nn.Conv2d(sq, e3, kernel_size=3, padding=1)
            self.expand3x3_activation = nn.ReLU(inplace=True)

        def forward(self, x):
            x = self.squeeze_activation(self.squeeze(x))
            return lib.cat(
                [
                    self.expand1x1_activation(self.expand1x1(x)),
                    self.expand3x3_activation(self.expand3x3(x)),
                ],
                1,
            )

    class BasicConv2d(nn.Module):
        def __init__(self, i, o, **kw):
            super().__init__()
            self.conv = nn.Conv2d(i, o, bias=False, **kw)
            self.bn = nn.BatchNorm2d(o, eps=0.001)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x)), inplace=True)

    class InceptionA(nn.Module):
        def __init__(self, i, pf):
            super().__init__()
            self.branch1x1 = BasicConv2d(i, 8, kernel_size=1)
            self.branch5x5_1 = BasicConv2d(i, 6, kernel_size=1)
            self.branch5x5_2 = BasicConv2d(6, 8, kernel_size=5, padding=2)
            self.branch3x3dbl_1 = BasicConv2d(i, 8, kernel_size=1)
            self.branch3x3dbl_2 = BasicConv2d(8, 12, kernel_size=3, padding=1)
            self.branch3x3dbl_3 = BasicConv2d(12, 12, kernel_size=(1, 3), padding=(0, 1))
            self.branch_pool = BasicConv2d(i, pf, kernel_size=1)

        def forward(self, x):
            b1 = self.branch1x1(x)
            b5 = self.branch5x5_2(self.branch5x5_1(x))
            b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
            bp = self.branch_pool(
                F.avg_pool2d(x, kernel_size=3, stride=1, padding=1, count_include_pad=False)
            )
            return lib.cat([b1, b5, b3, bp], 1)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, kernel_size=3, stride=2),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                Fire(16, 4, 8, 8),
                Fire(16, 4, 8, 8),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                InceptionA(16, 4),
            )
            final = nn.Conv2d(32, 5, kernel_size=1)
            self.classifier = nn.Sequential(
                nn.Dropout(p=0.5), final, nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1))
            )
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    if m is final:
                        nn.init.normal_(m.weight, mean=0.0, std=0.01)
                    else:
                        nn.init.kaiming_uniform_(m.weight)
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)

        def forward(self, x):
            return lib.flatten(self.classifier(self.features(x)), 1)

    lib.manual_seed(7)
    m = Net()
    x = lib.randn(2, 3, 64, 64)
    drive(lib, dt, rec, m, x, target=lambda o: (o + 0.1).log_softmax(1)[:, 0].mean())


def p_resnext(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(
            self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, se=False
        ):
            super().__init__()
            width = int(planes * (base_width / 64.0)) * groups
            self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride, 1, groups=groups, bias=False)
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3 = nn.Conv2d(width, planes * 4, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(planes * 4)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = downsample
            self.stride = stride
            if se:
                self.se = nn.Sequential(
                    nn.AdaptiveAvgPool2d(1),
                    nn.Conv2d(planes * 4, planes, 1),
                    nn.ReLU(inplace=True),
                    nn.Conv2d(planes, planes * 4, 1),
                    nn.Sigmoid(),
                )
            else:
                self.se = None

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            if self.se is not None:
                out = out * self.se(out)
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNeXt(nn.Module):
        def __init__(self, se):
            super().__init__()
            self.inplanes = 16
            self.conv1 = nn.Conv2d(3, 16, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._make_layer(8, 2, 1, se)
            self.layer2 = self._make_layer(16, 1, 2, se)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(64, 7)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)

        def _make_layer(self, planes, blocks, stride, se):
            ds = None
            if stride != 1 or self.inplanes != planes * 4:
                ds = nn.Sequential(
                    nn.Conv2d(self.inplanes, planes * 4, 1, stride, bias=False),
                    nn.BatchNorm2d(planes * 4),
                )
            layers = [
                Bottleneck(
                    self.inplanes,
                    planes,
                    stride,
                    ds,
                    groups=8 if planes == 8 else 32,
                    base_width=16 if planes == 8 else 4,
                    se=se,
                )
            ]
            self.inplanes = planes * 4
            for _ in range(1, blocks):
                layers.append(
                    Bottleneck(
                        self.inplanes,
                        planes,
                        groups=8 if planes == 8 else 32,
                        base_width=16 if planes == 8 else 4,
                        se=se,
                    )
                )
            return nn.Sequential(*layers)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer2(self.layer1(x))
            return self.fc(lib.flatten(self.avgpool(x), 1))

    for se in (False, True):
        lib.manual_seed(8)
        m = ResNeXt(se)
        x = lib.randn(2, 3, 64, 64)
        drive(lib, dt, rec, m, x, steps=3, target=lambda o: F.cross_entropy(o, lib.tensor([6, 1])))
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(m.conv1, m.bn1)
        rec("fused.w", fused.weight)
        rec("fused.b", fused.bias)
        rec("fused.repr", repr(fused))
        rec("fused.rg", str((fused.weight.requires_grad, type(fused.weight).__name__)))
        with lib.no_grad():
            rec("fused.out", fused(x.to(fused.weight.dtype)))
            rec("unfused.out", m.bn1(m.conv1(x.to(fused.weight.dtype))))


def p_channels_last_maps(lib, dt, rec):
    # the layout each stage of a channels-last CNN hands on (torch keeps channels-last through
    # convolutions, depthwise and transposed convolutions, poolings and BatchNorm)
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)
    conv = nn.Conv2d(3, 8, 3, padding=1).to(dt)
    bn = nn.BatchNorm2d(8).to(dt)
    dw = nn.Conv2d(8, 8, 3, padding=1, groups=8).to(dt)
    up = nn.ConvTranspose2d(8, 4, 2, stride=2).to(dt)
    x = lib.randn(2, 3, 16, 16, dtype=dt)
    for fmt in ("contiguous", "input", "model"):
        xi = x.to(memory_format=lib.channels_last) if fmt == "input" else x
        mods = [conv, bn, dw, up]
        if fmt == "model":
            mods = [copy.deepcopy(m).to(memory_format=lib.channels_last) for m in mods]
        c, b, d, u = mods
        steps = {}
        steps["conv"] = h = c(xi)
        steps["bn"] = h = F.relu(b(h))
        steps["maxpool"] = h = F.max_pool2d(h, 2)
        steps["dw"] = h = d(h)
        steps["avgpool"] = F.avg_pool2d(h, 2)
        steps["adaptive"] = F.adaptive_avg_pool2d(h, 3)
        steps["up"] = u(h)
        for k, v in steps.items():
            rec(f"{fmt}.{k}", v)
            rec(f"{fmt}.{k}.stride", str(v.stride()))
            rec(f"{fmt}.{k}.cl", str(v.is_contiguous(memory_format=lib.channels_last)))
        xr = xi.detach().requires_grad_()
        out = u(d(F.max_pool2d(c(xr), 2)))
        (out * lib.arange(out.numel(), dtype=dt).view(out.shape)).sum().backward()
        rec(f"{fmt}.xgrad", xr.grad)
        rec(f"{fmt}.wgrad", c.weight.grad)
        c.weight.grad = None


PROGRAMS = [
    "mobilenetv2", "mobilenetv3", "efficientnet", "densenet", "convnext", "swin", "shufflenet",
    "squeeze_inception", "resnext", "channels_last_maps",
]  # fmt: skip
# AdamW turns the round-off in a gradient that is 0 in exact arithmetic (the bias of a BatchNorm
# followed by another BatchNorm) into full steps: the float32 weights after the steps differ
SKIP_AFTER = {("mobilenetv3", "float32")}


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_zoo_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(first_line=True))
    got = run_program(prog, minitorch, dt, rec=Rec(first_line=True))

    def tol(n, a):
        if n.startswith("bf16"):
            return 3e-2
        return 1e-4 if dt == "float32" else 1e-10

    skip = {n for n, _ in want if n.startswith("after.")} if (name, dt) in SKIP_AFTER else ()
    assert_records_match(want, got, tol, rename=True, skip=skip)
