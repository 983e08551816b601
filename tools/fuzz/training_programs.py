"""Differential fuzzer: tutorial-style training programs.

About 40 small programs in the style of well-known PyTorch examples (VAE, DCGAN, word LM with
tied weights, seq2seq with attention, char-RNN sampling, ResNet with OneCycle/cosine, ViT, GNN,
REINFORCE, WGAN-GP, resume from a state dict, STN, DQN, style transfer with LBFGS, per-sample
gradients, packed sequence classifier, SN-GAN, distillation/SimCLR, translation Transformer, PPO,
GAT, SWA/EMA, U-Net super-resolution, checkpoint_sequential, Gumbel VAE, word2vec, RealNVP,
pruned weight-normed TCN, cyclic LR siamese, orthogonal RNN, MC dropout, bfloat16 autocast,
max_norm embeddings, an optimizer zoo, ...) run with the same seed in both libraries in float64
and float32; every recorded loss, parameter, optimizer state, lr and sampled value is compared
in order and the first divergence is reported. Not random: --cases limits the programs (0: all),
taken from index --seed on; --only picks programs by name. Adapted from session 22's h15
programs (progs*.py, harness.py).
"""

# ruff: noqa: B023, E501, E741  (code adapted as-is from the session fuzzers)

import io
import math
import random
import traceback

import _harness as H
import numpy as np
from _harness import minitorch, torch

# ----------------------------------------------------------------------


def to_np(v):
    if hasattr(v, "detach"):
        v = v.detach()
        if hasattr(v, "cpu"):
            v = v.cpu()
        return np.asarray(v.numpy())
    if isinstance(v, (list, tuple)):
        return np.asarray([float(x) for x in v])
    return np.asarray(v)


class Rec:
    def __init__(self):
        self.items = []

    def __call__(self, name, v):
        self.items.append((name, to_np(v)))

    def params(self, prefix, model):
        for n, p in model.named_parameters():
            if n.endswith("in_proj_bias"):
                d = p.shape[0] // 3
                self(prefix + "." + n + ".q", p[:d])
                self(prefix + "." + n + ".v", p[2 * d :])
                continue
            self(prefix + "." + n, p)

    def opt(self, prefix, opt):
        for gi, g in enumerate(opt.param_groups):
            self(f"{prefix}.lr{gi}", float(g["lr"]))
        for i, (p, st) in enumerate(opt.state.items()):
            if p.ndim == 1 and len(p) % 3 == 0 and getattr(p, "_skip", False):
                continue
            for k, v in sorted(st.items()):
                self(f"{prefix}.state{i}.{k}", v if hasattr(v, "detach") else float(v))


def run(prog, lib, dt):
    r = Rec()
    try:
        prog(lib, getattr(lib, dt), r)
    except Exception as e:
        r.items.append(("EXC", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
    return r.items


def compare(prog, dt):
    a = run(prog, torch, dt)
    b = run(prog, minitorch, dt)
    tol = 1e-10 if dt == "float64" else 2e-4
    for i, ((na, va), (nb, vb)) in enumerate(zip(a, b, strict=False)):
        if na != nb:
            return (
                f"name mismatch at {i}: {na!r} vs {nb!r}"
                + (f"\n{vb}" if nb == "EXC" else "")
                + (f"\n{va}" if na == "EXC" else "")
            )
        if na == "EXC":
            return f"both raised: {va[:200]} | {vb[:200]}"
        if va.shape != vb.shape:
            return f"{na}: shape {va.shape} vs {vb.shape}"
        if va.dtype.kind in "biu":
            if not np.array_equal(va, vb):
                return f"{na}: int differ {va.ravel()[:8]} vs {vb.ravel()[:8]}"
            continue
        err = np.max(np.abs(va - vb) / (np.abs(va) + 1e-6)) if va.size else 0
        if not np.allclose(va, vb, rtol=tol, atol=tol * 1e-2, equal_nan=True):
            return f"{na} (item {i}): rel err {err:.3g}\n torch {va.ravel()[:6]}\n mt    {vb.ravel()[:6]}"
    if len(a) != len(b):
        extra = (a if len(a) > len(b) else b)[min(len(a), len(b))]
        return f"length {len(a)} vs {len(b)}; next: {extra[0]} {str(extra[1])[:1500]}"
    return f"EQUAL ({len(a)} items)"


# ----------------------------------------------------------------------


def p_vae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(20, 12)
            self.fc21 = nn.Linear(12, 3)
            self.fc22 = nn.Linear(12, 3)
            self.fc3 = nn.Linear(3, 12)
            self.fc4 = nn.Linear(12, 20)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = lib.exp(0.5 * logvar)
            eps = lib.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            return lib.sigmoid(self.fc4(F.relu(self.fc3(z))))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, 20))
            z = self.reparameterize(mu, logvar)
            return self.decode(z), mu, logvar

    model = VAE().to(dt)
    opt = lib.optim.Adam(model.parameters(), lr=1e-2)
    data = (lib.rand(16, 20, dtype=dt) > 0.5).to(dt)
    for _step in range(6):
        model.train()
        for b in range(2):
            x = data[b * 8 : (b + 1) * 8]
            opt.zero_grad()
            recon, mu, logvar = model(x)
            bce = F.binary_cross_entropy(recon, x.view(-1, 20), reduction="sum")
            kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())
            loss = bce + kld
            loss.backward()
            opt.step()
            rec("loss", loss)
            rec("kld", kld)
        model.eval()
        with lib.no_grad():
            s = model.decode(lib.randn(4, 3, dtype=dt))
            rec("sample", s)
    rec.params("p", model)
    rec.opt("o", opt)


def p_dcgan(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(1)
    nz, ngf, ndf = 4, 4, 4

    def weights_init(m):
        cn = m.__class__.__name__
        if cn.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif cn.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    G = nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
        nn.BatchNorm2d(ngf * 2),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
        nn.BatchNorm2d(ngf),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False),
        nn.Tanh(),
    ).to(dt)
    D = nn.Sequential(
        nn.Conv2d(1, ndf, 4, 2, 1, bias=False),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
        nn.BatchNorm2d(ndf * 2),
        nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
    ).to(dt)
    G.apply(weights_init)
    D.apply(weights_init)
    crit = nn.BCEWithLogitsLoss()
    fixed = lib.randn(2, nz, 1, 1, dtype=dt)
    oD = lib.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    oG = lib.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real = lib.rand(6, 1, 16, 16, dtype=dt) * 2 - 1
    for _it in range(5):
        D.zero_grad()
        label = lib.full((6,), 1.0, dtype=dt)
        out = D(real).view(-1)
        errD_real = crit(out, label)
        errD_real.backward()
        noise = lib.randn(6, nz, 1, 1, dtype=dt)
        fake = G(noise)
        label.fill_(0.0)
        out = D(fake.detach()).view(-1)
        errD_fake = crit(out, label)
        errD_fake.backward()
        oD.step()
        G.zero_grad()
        label.fill_(1.0)
        out = D(fake).view(-1)
        errG = crit(out, label)
        errG.backward()
        oG.step()
        rec("errD", errD_real + errD_fake)
        rec("errG", errG)
        rec("Dgz", out.mean())
    with lib.no_grad():
        G.eval()
        rec("fixed", G(fixed))
    rec.params("G", G)
    rec.params("D", D)
    rec.opt("oG", oG)
    for n, b in D.named_buffers():
        rec("Dbuf." + n, b)


def p_wordlm(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(2)

    class RNNModel(nn.Module):
        def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.3):
            super().__init__()
            self.drop = nn.Dropout(dropout)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
            self.decoder = nn.Linear(nhid, ntoken)
            self.decoder.weight = self.encoder.weight
            initrange = 0.1
            nn.init.uniform_(self.encoder.weight, -initrange, initrange)
            nn.init.zeros_(self.decoder.bias)
            self.nhid, self.nlayers = nhid, nlayers

        def forward(self, input, hidden):
            emb = self.drop(self.encoder(input))
            output, hidden = self.rnn(emb, hidden)
            output = self.drop(output)
            decoded = self.decoder(output).view(-1, self.decoder.out_features)
            return lib.nn.functional.log_softmax(decoded, dim=1), hidden

        def init_hidden(self, bsz):
            w = next(self.parameters())
            return (
                w.new_zeros(self.nlayers, bsz, self.nhid),
                w.new_zeros(self.nlayers, bsz, self.nhid),
            )

    def repackage(h):
        if isinstance(h, lib.Tensor):
            return h.detach()
        return tuple(repackage(v) for v in h)

    ntok = 13
    model = RNNModel(ntok, 8, 8, 2).to(dt)
    data = lib.randint(0, ntok, (41,))
    bsz, bptt = 4, 3
    nb = data.size(0) // bsz
    data = data.narrow(0, 0, nb * bsz).view(bsz, -1).t().contiguous()
    crit = nn.NLLLoss()
    lr = 2.0
    for _epoch in range(2):
        model.train()
        hidden = model.init_hidden(bsz)
        total = 0.0
        for i in range(0, data.size(0) - 1, bptt):
            seq_len = min(bptt, len(data) - 1 - i)
            x, y = data[i : i + seq_len], data[i + 1 : i + 1 + seq_len].reshape(-1)
            model.zero_grad()
            hidden = repackage(hidden)
            out, hidden = model(x, hidden)
            loss = crit(out, y)
            loss.backward()
            gn = lib.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total += loss.item()
            rec("loss", loss)
            rec("gn", gn)
        model.eval()
        tl = 0.0
        hidden = model.init_hidden(bsz)
        with lib.no_grad():
            for i in range(0, data.size(0) - 1, bptt):
                seq_len = min(bptt, len(data) - 1 - i)
                x, y = data[i : i + seq_len], data[i + 1 : i + 1 + seq_len].reshape(-1)
                out, hidden = model(x, hidden)
                hidden = repackage(hidden)
                tl += len(x) * crit(out, y).item()
        rec("ppl", math.exp(tl / (len(data) - 1)))
        lr /= 4.0
    rec.params("p", model)


def p_seq2seq(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)
    V, H, L = 10, 8, 5

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H)
            self.gru = nn.GRU(H, H, batch_first=True)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x):
            return self.gru(self.dropout(self.emb(x)))

    class Bahdanau(nn.Module):
        def __init__(self):
            super().__init__()
            self.Wa = nn.Linear(H, H)
            self.Ua = nn.Linear(H, H)
            self.Va = nn.Linear(H, 1)

        def forward(self, q, keys):
            scores = self.Va(lib.tanh(self.Wa(q) + self.Ua(keys))).squeeze(2).unsqueeze(1)
            w = F.softmax(scores, dim=-1)
            ctx = lib.bmm(w, keys)
            return ctx, w

    class Dec(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H)
            self.att = Bahdanau()
            self.gru = nn.GRU(2 * H, H, batch_first=True)
            self.out = nn.Linear(H, V)
            self.dropout = nn.Dropout(0.1)

        def step(self, inp, hidden, enc_out):
            e = self.dropout(self.emb(inp))
            q = hidden.permute(1, 0, 2)
            ctx, w = self.att(q, enc_out)
            o, hidden = self.gru(lib.cat((e, ctx), dim=2), hidden)
            return self.out(o), hidden, w

    enc, dec = Enc().to(dt), Dec().to(dt)
    oe = lib.optim.Adam(enc.parameters(), lr=0.01)
    od = lib.optim.Adam(dec.parameters(), lr=0.01)
    crit = nn.NLLLoss()
    src = lib.randint(2, V, (6, L))
    tgt = lib.randint(2, V, (6, L))
    for _it in range(4):
        oe.zero_grad()
        od.zero_grad()
        eo, eh = enc(src)
        inp = lib.zeros(6, 1, dtype=lib.long)
        h = eh
        outs = []
        atts = []
        for t in range(L):
            o, h, w = dec.step(inp, h, eo)
            outs.append(o)
            atts.append(w)
            if lib.rand(1).item() < 0.5:
                inp = tgt[:, t].unsqueeze(1)
            else:
                _, top = o.topk(1)
                inp = top.squeeze(-1).detach()
            rec("inp", inp)
        outs = F.log_softmax(lib.cat(outs, dim=1), dim=-1)
        loss = crit(outs.view(-1, V), tgt.view(-1))
        loss.backward()
        oe.step()
        od.step()
        rec("loss", loss)
        rec("att", lib.cat(atts, 1))
    rec.params("e", enc)
    rec.params("d", dec)


def p_charrnn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(4)
    V, H = 7, 10

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H)
            self.rnn = nn.RNN(H, H, 2, nonlinearity="tanh", batch_first=True)
            self.fc = nn.Linear(H, V)

        def forward(self, x, h=None):
            o, h = self.rnn(self.emb(x), h)
            return self.fc(o), h

    m = M().to(dt)
    opt = lib.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.5, centered=True)
    seq = lib.randint(0, V, (3, 9))
    for _it in range(5):
        opt.zero_grad()
        out, _ = m(seq[:, :-1])
        loss = F.cross_entropy(out.reshape(-1, V), seq[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        rec("loss", loss)
    m.eval()
    with lib.no_grad():
        x = lib.tensor([[1]])
        h = None
        got = []
        for _t in range(12):
            o, h = m(x, h)
            probs = F.softmax(o[0, -1] / 0.8, dim=-1)
            nxt = lib.multinomial(probs, 1)
            got.append(int(nxt))
            x = nxt.view(1, 1)
        rec("sampled", got)
        rec("multi", lib.multinomial(probs.repeat(3, 1), 4, replacement=True))
        rec("multi_norep", lib.multinomial(probs, 5))
    rec.params("p", m)
    rec.opt("o", opt)


# ----------------------------------------------------------------------


def p_resnet(lib, dt, rec, sched="cos"):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)

    class Block(nn.Module):
        expansion = 1

        def __init__(self, inp, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inp, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.shortcut = nn.Sequential()
            if stride != 1 or inp != planes:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(inp, planes, 1, stride, bias=False), nn.BatchNorm2d(planes)
                )

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return F.relu(out)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(4)
            self.layer1 = Block(4, 4)
            self.layer2 = Block(4, 8, 2)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, 5)

        def forward(self, x):
            x = F.relu(self.bn1(self.conv1(x)))
            x = self.layer2(self.layer1(x))
            return self.fc(lib.flatten(self.pool(x), 1))

    def init(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.Linear):
            nn.init.kaiming_uniform_(m.weight, a=math.sqrt(5))
            nn.init.zeros_(m.bias)

    net = Net().to(dt)
    net.apply(init)
    opt = lib.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
    steps = 6
    if sched == "cos":
        sch = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    else:
        sch = lib.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.2, total_steps=steps, three_phase=True
        )
    X = lib.randn(12, 3, 7, 7, dtype=dt)
    Y = lib.randint(0, 5, (12,))
    ds = lib.utils.data.TensorDataset(X, Y)
    g = lib.Generator()
    g.manual_seed(7)
    dl = lib.utils.data.DataLoader(ds, batch_size=4, shuffle=True, generator=g)
    crit = nn.CrossEntropyLoss()
    it = 0
    for _ep in range(2):
        net.train()
        for x, y in dl:
            if it >= steps:
                break
            rec("y", y)
            opt.zero_grad()
            out = net(x)
            loss = crit(out, y)
            loss.backward()
            opt.step()
            if sched != "cos":
                sch.step()
            rec("loss", loss)
            rec("lr", sch.get_last_lr())
            it += 1
            if sched != "cos":
                rec("mom", opt.param_groups[0]["momentum"])
        if sched == "cos":
            sch.step()
        net.eval()
        with lib.no_grad():
            out = net(X)
            rec("acc", (out.argmax(1) == Y).sum())
            rec("evalout", out)
    rec.params("p", net)
    rec.opt("o", opt)
    for n, b in net.named_buffers():
        rec("b." + n, b)


def p_resnet_onecycle(lib, dt, rec):
    p_resnet(lib, dt, rec, sched="onecycle")


def p_vit(lib, dt, rec, patch_mode="conv"):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(6)

    class ViT(nn.Module):
        def __init__(self, img=8, p=4, ch=3, d=16, depth=2, heads=2, ncls=4):
            super().__init__()
            self.p = p
            n = (img // p) ** 2
            self.proj = nn.Conv2d(ch, d, p, stride=p)
            self.lin = nn.Linear(ch * p * p, d)
            self.cls_token = nn.Parameter(lib.zeros(1, 1, d))
            self.pos = nn.Parameter(lib.randn(1, n + 1, d) * 0.02)
            layer = nn.TransformerEncoderLayer(
                d, heads, 32, dropout=0.1, activation="gelu", batch_first=True, norm_first=True
            )
            self.enc = nn.TransformerEncoder(
                layer, depth, norm=nn.LayerNorm(d), enable_nested_tensor=False
            )
            self.head = nn.Linear(d, ncls)

        def forward(self, x):
            if patch_mode == "conv":
                x = self.proj(x).flatten(2).transpose(1, 2)
            else:
                x = F.unfold(x, self.p, stride=self.p).transpose(1, 2)
                x = self.lin(x)
            cls = self.cls_token.expand(x.shape[0], -1, -1)
            x = lib.cat((cls, x), dim=1) + self.pos
            x = self.enc(x)
            return self.head(x[:, 0])

    m = ViT().to(dt)
    for mod in m.modules():
        if isinstance(mod, nn.MultiheadAttention):
            mod.in_proj_bias._skip = True
    decay, no_decay = [], []
    for n, p in m.named_parameters():
        (no_decay if p.ndim < 2 or "norm" in n or n in ("cls_token", "pos") else decay).append(p)
    opt = lib.optim.AdamW(
        [{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
        lr=3e-3,
    )
    warm = 3
    sch = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    X = lib.randn(8, 3, 8, 8, dtype=dt)
    Y = lib.randint(0, 4, (8,))
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    accum = 2
    for _step in range(5):
        m.train()
        opt.zero_grad(set_to_none=True)
        tot = 0.0
        for mb in range(accum):
            xb, yb = X[mb * 4 : (mb + 1) * 4], Y[mb * 4 : (mb + 1) * 4]
            loss = crit(m(xb), yb) / accum
            loss.backward()
            tot += loss.item()
        gn = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        sch.step()
        rec("loss", tot)
        rec("gn", gn)
        rec("lr", sch.get_last_lr())
    m.eval()
    with lib.no_grad():
        rec("eval", m(X))
    rec.params("p", m)
    rec.opt("o", opt)


def p_vit_unfold(lib, dt, rec):
    p_vit(lib, dt, rec, patch_mode="unfold")


def p_gnn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(8)
    N, E, Fin = 7, 18, 5
    ei = lib.randint(0, N, (2, E))

    class GCN(nn.Module):
        def __init__(self, i, o):
            super().__init__()
            self.lin = nn.Linear(i, o)

        def forward(self, x, ei):
            src, dst = ei
            deg = (
                lib.zeros(x.size(0), dtype=x.dtype).index_add_(
                    0, dst, lib.ones(dst.size(0), dtype=x.dtype)
                )
                + 1
            )
            norm = deg.pow(-0.5)
            h = self.lin(x)
            msg = h[src] * (norm[src] * norm[dst]).unsqueeze(1)
            out = lib.zeros_like(h).index_add_(0, dst, msg) + h / deg.unsqueeze(1)
            mx = lib.full_like(h, -1e9).scatter_reduce(
                0, dst.unsqueeze(1).expand(-1, h.size(1)), h[src], reduce="amax", include_self=False
            )
            mean = lib.zeros_like(h).scatter_reduce(
                0, dst.unsqueeze(1).expand(-1, h.size(1)), h[src], reduce="mean", include_self=True
            )
            return out + 0.1 * lib.where(mx > -1e8, mx, lib.zeros_like(mx)) + 0.1 * mean

    g1, g2 = GCN(Fin, 8).to(dt), GCN(8, 3).to(dt)
    x = lib.randn(N, Fin, dtype=dt)
    y = lib.randint(0, 3, (N,))
    opt = lib.optim.Adam(list(g1.parameters()) + list(g2.parameters()), lr=0.02, weight_decay=5e-4)
    for _s in range(6):
        opt.zero_grad()
        h = F.dropout(F.relu(g1(x, ei)), 0.5, training=True)
        out = g2(h, ei)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec.params("g1", g1)
    rec.params("g2", g2)


def p_reinforce(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    Categorical = lib.distributions.Categorical
    lib.manual_seed(9)
    pol = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 3)).to(dt)
    opt = lib.optim.Adam(pol.parameters(), lr=1e-2)
    W = lib.randn(3, 4, dtype=dt)
    gamma, eps = 0.99, 1e-8
    for _ep in range(4):
        state = lib.randn(4, dtype=dt)
        logps, rewards, ents = [], [], []
        for _t in range(6):
            probs = F.softmax(pol(state.unsqueeze(0)), dim=1)
            m = Categorical(probs)
            a = m.sample()
            logps.append(m.log_prob(a))
            ents.append(m.entropy())
            rec("a", a)
            r = float((W[a.item()] * state).sum().tanh())
            rewards.append(r)
            state = (state + 0.3 * W[a.item()]).tanh() + 0.1 * lib.randn(4, dtype=dt)
        R = 0
        returns = []
        for r in rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        returns = lib.tensor(returns, dtype=dt)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = (
            lib.cat([-lp * R for lp, R in zip(logps, returns, strict=False)]).sum()
            - 0.01 * lib.stack(ents).sum()
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        ml = Categorical(logits=pol(state.unsqueeze(0)))
        rec("lp", ml.log_prob(lib.tensor([0, 1, 2]).unsqueeze(1)))
        rec("smp", ml.sample((5,)))
    rec.params("p", pol)


def p_wgangp(lib, dt, rec):
    nn = lib.nn
    from importlib import import_module

    ckpt = import_module(lib.__name__ + ".utils.checkpoint").checkpoint
    lib.manual_seed(10)
    G = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4)).to(dt)

    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
            self.b = nn.Sequential(nn.Linear(8, 8), nn.Softplus(), nn.Linear(8, 1))

        def forward(self, x):
            h = ckpt(self.a, x, use_reentrant=False)
            return self.b(h)

    D = Critic().to(dt)
    oD = lib.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    oG = lib.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    real = lib.randn(16, 4, dtype=dt) + 1
    for _it in range(4):
        for _ in range(2):
            z = lib.randn(16, 3, dtype=dt)
            fake = G(z).detach()
            alpha = lib.rand(16, 1, dtype=dt)
            inter = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
            d_i = D(inter)
            grads = lib.autograd.grad(
                outputs=d_i,
                inputs=inter,
                grad_outputs=lib.ones_like(d_i),
                create_graph=True,
                retain_graph=True,
            )[0]
            gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
            lossD = D(fake).mean() - D(real).mean() + 10 * gp
            oD.zero_grad()
            lossD.backward()
            oD.step()
            rec("gp", gp)
            rec("lossD", lossD)
        z = lib.randn(16, 3, dtype=dt)
        lossG = -D(G(z)).mean()
        oG.zero_grad()
        lossG.backward()
        oG.step()
        rec("lossG", lossG)
    rec.params("G", G)
    rec.params("D", D)
    rec.opt("oD", oD)


def p_resume(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    def make():
        lib.manual_seed(11)
        m = nn.Sequential(
            nn.Linear(5, 8, bias=False),
            nn.BatchNorm1d(8),
            nn.ReLU(),
            nn.Dropout(0.3),
            nn.Linear(8, 2),
        ).to(dt)
        o = lib.optim.AdamW(m.parameters(), lr=0.05, amsgrad=True)
        s = lib.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)
        return m, o, s

    lib.manual_seed(12)
    X = lib.randn(10, 5, dtype=dt)
    Y = lib.randint(0, 2, (10,))

    def train(m, o, s, n, tag):
        for _i in range(n):
            m.train()
            o.zero_grad()
            loss = F.cross_entropy(m(X), Y)
            loss.backward()
            o.step()
            s.step()
            rec(tag + "loss", loss)
            m.eval()
            with lib.no_grad():
                rec(tag + "eval", m(X))

    m, o, s = make()
    train(m, o, s, 3, "a")
    buf = io.BytesIO()
    lib.save(
        {
            "model": m.state_dict(),
            "opt": o.state_dict(),
            "sched": s.state_dict(),
            "rng": lib.get_rng_state(),
        },
        buf,
    )
    train(m, o, s, 3, "b")
    contA = [p.detach().clone() for p in m.parameters()]
    buf.seek(0)
    ck = lib.load(buf, weights_only=False)
    m2, o2, s2 = make()
    m2.load_state_dict(ck["model"])
    o2.load_state_dict(ck["opt"])
    s2.load_state_dict(ck["sched"])
    lib.set_rng_state(ck["rng"])
    rec("lr_after_load", s2.get_last_lr())
    train(m2, o2, s2, 3, "b")
    for a, b in zip(contA, m2.parameters(), strict=False):
        rec("same", (a - b).abs().max())
    rec.params("p", m2)
    rec.opt("o", o2)
    rec("sd_keys", [len(k) for k in o2.state_dict()["state"][0].keys()])


# ----------------------------------------------------------------------


def p_stn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 3)
            self.conv2 = nn.Conv2d(4, 6, 3)
            self.drop = nn.Dropout2d()
            self.fc1 = nn.Linear(6 * 2 * 2, 10)
            self.fc2 = nn.Linear(10, 3)
            self.localization = nn.Sequential(
                nn.Conv2d(1, 4, 3),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
                nn.Conv2d(4, 5, 3),
                nn.MaxPool2d(2, stride=2),
                nn.ReLU(True),
            )
            self.fc_loc = nn.Sequential(nn.Linear(5 * 2 * 2, 8), nn.ReLU(True), nn.Linear(8, 6))
            self.fc_loc[2].weight.data.zero_()
            self.fc_loc[2].bias.data.copy_(lib.tensor([1, 0, 0, 0, 1, 0], dtype=lib.float))

        def stn(self, x):
            xs = self.localization(x).view(-1, 5 * 2 * 2)
            theta = self.fc_loc(xs).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

        def forward(self, x):
            x = self.stn(x)
            x = F.relu(F.max_pool2d(self.conv1(x), 2))
            x = F.relu(F.max_pool2d(self.drop(self.conv2(x)), 2))
            x = x.view(-1, 24)
            x = F.relu(self.fc1(x))
            x = F.dropout(x, training=self.training)
            return F.log_softmax(self.fc2(x), dim=1)

    m = Net().to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.05)
    X = lib.rand(6, 1, 14, 14, dtype=dt)
    Y = lib.randint(0, 3, (6,))
    for _s in range(5):
        m.train()
        opt.zero_grad()
        out = m(X)
        loss = F.nll_loss(out, Y)
        loss.backward()
        opt.step()
        rec("loss", loss)
    m.eval()
    with lib.no_grad():
        rec("stn", m.stn(X))
        rec("ev", m(X))
    rec.params("p", m)


def p_dqn(lib, dt, rec):
    nn, _F = lib.nn, lib.nn.functional
    lib.manual_seed(21)
    rnd = random.Random(0)

    def mk():
        return nn.Sequential(
            nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 2)
        ).to(dt)

    pol, tgt = mk(), mk()
    tgt.load_state_dict(pol.state_dict())
    opt = lib.optim.AdamW(pol.parameters(), lr=1e-3, amsgrad=True)
    mem = []
    for i in range(40):
        s = lib.randn(1, 4, dtype=dt)
        a = lib.tensor([[rnd.randrange(2)]])
        ns = None if i % 7 == 0 else lib.randn(1, 4, dtype=dt)
        r = lib.tensor([rnd.random()], dtype=dt)
        mem.append((s, a, ns, r))
    TAU, G = 0.05, 0.99
    for _step in range(6):
        batch = rnd.sample(mem, 8)
        s, a, ns, r = zip(*batch, strict=False)
        mask = lib.tensor(tuple(map(lambda x: x is not None, ns)), dtype=lib.bool)
        nonfinal = lib.cat([x for x in ns if x is not None])
        sb, ab, rb = lib.cat(s), lib.cat(a), lib.cat(r)
        qsa = pol(sb).gather(1, ab)
        nv = lib.zeros(8, dtype=dt)
        with lib.no_grad():
            nv[mask] = tgt(nonfinal).max(1).values
        exp = nv * G + rb
        loss = nn.SmoothL1Loss()(qsa, exp.unsqueeze(1))
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_value_(pol.parameters(), 100)
        opt.step()
        tsd, psd = tgt.state_dict(), pol.state_dict()
        for k in psd:
            tsd[k] = psd[k] * TAU + tsd[k] * (1 - TAU)
        tgt.load_state_dict(tsd)
        rec("loss", loss)
        with lib.no_grad():
            rec("act", pol(sb).max(1).indices.view(-1, 1))
    rec.params("t", tgt)
    rec.opt("o", opt)


def p_style_lbfgs(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    feat = nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU()
    ).to(dt)
    for p in feat.parameters():
        p.requires_grad_(False)

    def gram(x):
        a, b, c, d = x.size()
        f = x.view(a * b, c * d)
        return lib.mm(f, f.t()).div(a * b * c * d)

    content = lib.rand(1, 3, 8, 8, dtype=dt)
    style = lib.rand(1, 3, 8, 8, dtype=dt)
    tc = feat(content).detach()
    ts = gram(feat[:2](style)).detach()
    img = content.clone().requires_grad_(True)
    opt = lib.optim.LBFGS([img], lr=0.5, history_size=5, max_iter=4, line_search_fn="strong_wolfe")
    for _it in range(3):

        def closure():
            with lib.no_grad():
                img.clamp_(0, 1)
            opt.zero_grad()
            h1 = feat[:2](img)
            h = feat[2:](h1)
            l = 1e3 * F.mse_loss(gram(h1), ts) + F.mse_loss(h, tc)
            l.backward()
            return l

        l = opt.step(closure)
        rec("l", l)
    rec("img", img)
    st = opt.state[opt._params[0]]
    rec("n_iter", st["n_iter"])
    rec("t", st["t"])
    rec("d", st["d"])


def p_per_sample_grads(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    from importlib import import_module

    func = import_module(lib.__name__ + ".func")
    lib.manual_seed(23)
    m = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 3)).to(dt)
    params = {k: v.detach() for k, v in m.named_parameters()}
    bufs = {k: v.detach() for k, v in m.named_buffers()}
    X = lib.randn(7, 5, dtype=dt)
    Y = lib.randint(0, 3, (7,))

    def loss_fn(p, b, x, y):
        out = func.functional_call(m, (p, b), (x.unsqueeze(0),))
        return F.cross_entropy(out, y.unsqueeze(0))

    g = func.vmap(func.grad(loss_fn), in_dims=(None, None, 0, 0))(params, bufs, X, Y)
    for k in sorted(g):
        rec("psg." + k, g[k])
    models = [nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 3)).to(dt) for _ in range(3)]
    sp, sb = func.stack_module_state(models)
    import copy

    base = copy.deepcopy(models[0])

    def fm(p, b, x):
        return func.functional_call(base, (p, b), (x,))

    out = func.vmap(fm, in_dims=(0, 0, None))(sp, sb, X)
    rec("ens", out)

    # jacrev / hessian
    def f(x):
        return (m(x) ** 2).sum()

    rec("hess", func.hessian(f)(X[0]))
    rec("jac", func.jacrev(m)(X[0]))


def p_seqcls_packed(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    rnn_utils = lib.nn.utils.rnn
    lib.manual_seed(24)
    V = 9

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, 6, padding_idx=0)
            self.rnn = nn.GRU(6, 5, num_layers=2, bidirectional=True, batch_first=True, dropout=0.2)
            self.fc = nn.Linear(10, 2)

        def forward(self, seqs, lens):
            e = self.emb(seqs)
            pk = rnn_utils.pack_padded_sequence(e, lens, batch_first=True, enforce_sorted=False)
            out, h = self.rnn(pk)
            out, ol = rnn_utils.pad_packed_sequence(
                out, batch_first=True, total_length=seqs.size(1)
            )
            mask = (lib.arange(seqs.size(1))[None, :] < ol[:, None]).unsqueeze(-1)
            mean = (out * mask).sum(1) / ol.unsqueeze(1).to(out.dtype)
            hcat = lib.cat([h[-2], h[-1]], dim=1)
            return self.fc(hcat + mean)

    m = M().to(dt)
    lens = [5, 2, 4, 3, 1]
    seqs = rnn_utils.pad_sequence([lib.randint(1, V, (l,)) for l in lens], batch_first=True)
    Y = lib.randint(0, 2, (5,))
    opt = lib.optim.Adam(m.parameters(), lr=0.02)
    sch = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    for s in range(6):
        m.train()
        opt.zero_grad()
        loss = F.cross_entropy(m(seqs, lib.tensor(lens)), Y)
        loss.backward()
        opt.step()
        m.eval()
        with lib.no_grad():
            vl = F.cross_entropy(m(seqs, lib.tensor(lens)), Y) + (0.1 if s % 2 else 0.0)
        sch.step(vl)
        rec("loss", loss)
        rec("vl", vl)
        rec("lr", opt.param_groups[0]["lr"])
    rec.params("p", m)
    rec.opt("o", opt)


def p_sngan(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    SN = lib.nn.utils.parametrizations.spectral_norm
    lib.manual_seed(25)
    D = nn.Sequential(
        SN(nn.Conv2d(1, 4, 3, 2, 1)),
        nn.LeakyReLU(0.1),
        SN(nn.Conv2d(4, 4, 3, 2, 1)),
        nn.LeakyReLU(0.1),
        nn.Flatten(),
        SN(nn.Linear(4 * 2 * 2, 1)),
    ).to(dt)
    G = nn.Sequential(
        nn.Linear(3, 16),
        nn.ReLU(),
        nn.Unflatten(1, (1, 4, 4)),
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(1, 1, 3, padding=1),
        nn.Tanh(),
    ).to(dt)
    oD = lib.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.9))
    oG = lib.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.9))
    real = lib.rand(5, 1, 8, 8, dtype=dt)
    for _it in range(4):
        z = lib.randn(5, 3, dtype=dt)
        fake = G(z)
        lossD = F.relu(1 - D(real)).mean() + F.relu(1 + D(fake.detach())).mean()
        oD.zero_grad()
        lossD.backward()
        oD.step()
        lossG = -D(fake).mean()
        oG.zero_grad()
        lossG.backward()
        oG.step()
        rec("lD", lossD)
        rec("lG", lossG)
    D.eval()
    with lib.no_grad():
        rec("De", D(real))
    rec.params("D", D)
    rec.params("G", G)
    for n, b in D.named_buffers():
        rec("Db." + n, b)


def p_distill_simclr(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(26)
    teacher = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4)).to(dt).eval()
    student = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4)).to(dt)
    proj = nn.Sequential(nn.Linear(4, 4)).to(dt)
    opt = lib.optim.NAdam(
        list(student.parameters()) + list(proj.parameters()),
        lr=0.01,
        decoupled_weight_decay=True,
        weight_decay=0.01,
    )
    X = lib.randn(8, 6, dtype=dt)
    Y = lib.randint(0, 4, (8,))
    T = 3.0
    for _s in range(5):
        with lib.no_grad():
            tl = teacher(X)
        sl = student(X)
        kd = (
            F.kl_div(
                F.log_softmax(sl / T, -1),
                F.log_softmax(tl / T, -1),
                reduction="batchmean",
                log_target=True,
            )
            * T
            * T
        )
        x1 = X + 0.1 * lib.randn_like(X)
        x2 = X + 0.1 * lib.randn_like(X)
        z = F.normalize(proj(student(lib.cat([x1, x2]))), dim=1)
        sim = z @ z.T / 0.5
        sim = sim.masked_fill(lib.eye(16, dtype=lib.bool), float("-inf"))
        tgt = lib.cat([lib.arange(8, 16), lib.arange(0, 8)])
        nce = F.cross_entropy(sim, tgt)
        loss = kd + F.cross_entropy(sl, Y) + nce
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("kd", kd)
        rec("nce", nce)
    rec.params("s", student)
    rec.opt("o", opt)


# ----------------------------------------------------------------------


def p_translation_tf(lib, dt, rec):
    nn, _F = lib.nn, lib.nn.functional
    lib.manual_seed(30)
    V, E, PAD, BOS, _EOS = 12, 16, 1, 2, 3

    class PosEnc(nn.Module):
        def __init__(self, emb, dropout, maxlen=20):
            super().__init__()
            den = lib.exp(-lib.arange(0, emb, 2) * math.log(10000) / emb)
            pos = lib.arange(0, maxlen).reshape(maxlen, 1)
            pe = lib.zeros((maxlen, emb))
            pe[:, 0::2] = lib.sin(pos * den)
            pe[:, 1::2] = lib.cos(pos * den)
            self.dropout = nn.Dropout(dropout)
            self.register_buffer("pe", pe.unsqueeze(-2))

        def forward(self, x):
            return self.dropout(x + self.pe[: x.size(0), :])

    class Seq2SeqTF(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(
                d_model=E,
                nhead=2,
                num_encoder_layers=2,
                num_decoder_layers=2,
                dim_feedforward=32,
                dropout=0.1,
            )
            self.gen = nn.Linear(E, V)
            self.src_emb = nn.Embedding(V, E)
            self.tgt_emb = nn.Embedding(V, E)
            self.pos = PosEnc(E, 0.1)

        def forward(self, src, trg, src_mask, tgt_mask, src_pad, tgt_pad, mem_pad):
            s = self.pos(self.src_emb(src) * math.sqrt(E))
            t = self.pos(self.tgt_emb(trg) * math.sqrt(E))
            outs = self.transformer(s, t, src_mask, tgt_mask, None, src_pad, tgt_pad, mem_pad)
            return self.gen(outs)

        def encode(self, src, src_mask):
            return self.transformer.encoder(self.pos(self.src_emb(src) * math.sqrt(E)), src_mask)

        def decode(self, tgt, memory, tgt_mask):
            return self.transformer.decoder(
                self.pos(self.tgt_emb(tgt) * math.sqrt(E)), memory, tgt_mask
            )

    m = Seq2SeqTF()
    for p in m.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    m = m.to(dt)

    def masks(src, tgt):
        S, T = src.shape[0], tgt.shape[0]
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=dt)
        src_mask = lib.zeros((S, S), dtype=lib.bool)
        return src_mask, tgt_mask, (src == PAD).transpose(0, 1), (tgt == PAD).transpose(0, 1)

    src = lib.randint(4, V, (6, 4))
    tgt = lib.randint(4, V, (7, 4))
    src[4:, 1] = PAD
    tgt[5:, 2] = PAD
    tgt[0] = BOS
    opt = lib.optim.Adam(m.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    crit = nn.CrossEntropyLoss(ignore_index=PAD)
    for _s in range(4):
        m.train()
        ti = tgt[:-1, :]
        sm, tm, sp, tp = masks(src, ti)
        logits = m(src, ti, sm, tm, sp, tp, sp)
        opt.zero_grad()
        loss = crit(logits.reshape(-1, V), tgt[1:, :].reshape(-1))
        loss.backward()
        opt.step()
        rec("loss", loss)
    m.eval()
    with lib.no_grad():
        s1 = src[:, :1]
        mem = m.encode(s1, lib.zeros(6, 6, dtype=lib.bool))
        ys = lib.ones(1, 1).fill_(BOS).type(lib.long)
        for _i in range(5):
            tm = nn.Transformer.generate_square_subsequent_mask(ys.size(0), dtype=dt).type(lib.bool)
            out = m.decode(ys, mem, tm).transpose(0, 1)
            prob = m.gen(out[:, -1])
            _, nw = lib.max(prob, dim=1)
            ys = lib.cat([ys, lib.ones(1, 1).type_as(s1.data).fill_(nw.item())], dim=0)
        rec("greedy", ys)
    rec.params("p", m)


def p_ppo(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    Normal = lib.distributions.Normal
    lib.manual_seed(31)

    class AC(nn.Module):
        def __init__(self):
            super().__init__()
            self.pi = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
            self.v = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
            self.log_std = nn.Parameter(-0.5 * lib.ones(2))

        def dist(self, s):
            return Normal(self.pi(s), self.log_std.exp())

    ac = AC().to(dt)
    opt = lib.optim.Adam(ac.parameters(), lr=3e-3)
    T = 16
    gamma, lam, clip = 0.99, 0.95, 0.2
    for _it in range(3):
        states, acts, logps, rews, vals, dones = [], [], [], [], [], []
        s = lib.randn(3, dtype=dt)
        with lib.no_grad():
            for t in range(T):
                d = ac.dist(s)
                a = d.sample()
                lp = d.log_prob(a).sum(-1)
                v = ac.v(s).squeeze(-1)
                states.append(s)
                acts.append(a)
                logps.append(lp)
                vals.append(v)
                r = -(a**2).sum() + s[0]
                rews.append(r)
                done = t % 7 == 6
                dones.append(float(done))
                s = lib.randn(3, dtype=dt) if done else (s + 0.1 * lib.cat([a, a[:1]])).clamp(-2, 2)
            last_v = ac.v(s).squeeze(-1)
        adv = lib.zeros(T, dtype=dt)
        gae = 0.0
        for t in reversed(range(T)):
            nv = last_v if t == T - 1 else vals[t + 1]
            delta = rews[t] + gamma * nv * (1 - dones[t]) - vals[t]
            gae = delta + gamma * lam * (1 - dones[t]) * gae
            adv[t] = gae
        ret = adv + lib.stack(vals)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        S, A, LP = lib.stack(states), lib.stack(acts), lib.stack(logps)
        rec("adv", adv)
        for _ep in range(2):
            perm = lib.randperm(T)
            for mb in perm.split(8):
                d = ac.dist(S[mb])
                nlp = d.log_prob(A[mb]).sum(-1)
                ratio = (nlp - LP[mb]).exp()
                s1 = ratio * adv[mb]
                s2 = lib.clamp(ratio, 1 - clip, 1 + clip) * adv[mb]
                pl = -lib.min(s1, s2).mean()
                vl = F.smooth_l1_loss(ac.v(S[mb]).squeeze(-1), ret[mb], beta=0.5)
                ent = d.entropy().sum(-1).mean()
                loss = pl + 0.5 * vl - 0.01 * ent
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(ac.parameters(), 0.5)
                opt.step()
                rec("loss", loss)
                rec("kl", (LP[mb] - nlp).mean())
    rec.params("p", ac)


def p_gat(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(32)
    N, E = 6, 14
    ei = lib.randint(0, N, (2, E))
    ei = lib.cat([ei, lib.arange(N).repeat(2, 1)], 1)

    class GAT(nn.Module):
        def __init__(self, i, o, heads):
            super().__init__()
            self.h, self.o = heads, o
            self.W = nn.Linear(i, heads * o, bias=False)
            self.a_src = nn.Parameter(lib.empty(1, heads, o))
            self.a_dst = nn.Parameter(lib.empty(1, heads, o))
            nn.init.xavier_uniform_(self.a_src)
            nn.init.xavier_uniform_(self.a_dst)

        def forward(self, x, ei):
            src, dst = ei
            h = self.W(x).view(-1, self.h, self.o)
            e = F.leaky_relu((h * self.a_src).sum(-1)[src] + (h * self.a_dst).sum(-1)[dst], 0.2)
            emax = lib.full((x.size(0), self.h), float("-inf"), dtype=x.dtype).scatter_reduce(
                0, dst.unsqueeze(1).expand_as(e), e, "amax"
            )
            ex = (e - emax[dst]).exp()
            den = lib.zeros(x.size(0), self.h, dtype=x.dtype).scatter_add_(
                0, dst.unsqueeze(1).expand_as(ex), ex
            )
            alpha = F.dropout(ex / den[dst], 0.2, self.training)
            out = lib.zeros(x.size(0), self.h, self.o, dtype=x.dtype).index_add_(
                0, dst, h[src] * alpha.unsqueeze(-1)
            )
            return out.mean(1)

    g1, g2 = GAT(4, 6, 2).to(dt), GAT(6, 3, 1).to(dt)
    x = lib.randn(N, 4, dtype=dt)
    y = lib.randint(0, 3, (N,))
    mask = lib.tensor([1, 1, 0, 1, 0, 1], dtype=lib.bool)
    opt = lib.optim.Adam(list(g1.parameters()) + list(g2.parameters()), lr=5e-3, weight_decay=5e-4)
    for _s in range(5):
        g1.train()
        g2.train()
        out = g2(F.elu(g1(F.dropout(x, 0.3, True), ei)), ei)
        loss = F.cross_entropy(out[mask], y[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    g1.eval()
    g2.eval()
    with lib.no_grad():
        rec("ev", g2(F.elu(g1(x, ei)), ei))
    rec.params("g1", g1)


def p_swa_ema(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    swa = lib.optim.swa_utils
    lib.manual_seed(33)
    m = nn.Sequential(
        nn.Conv2d(2, 4, 3),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.AdaptiveMaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16, 3),
    ).to(dt)
    ema = swa.AveragedModel(m, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9))
    swa_m = swa.AveragedModel(m)
    opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, dampening=0.1)
    sch1 = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.3, total_iters=2)
    sch2 = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-3)
    sch = lib.optim.lr_scheduler.SequentialLR(opt, [sch1, sch2], milestones=[2])
    swa_sch = swa.SWALR(opt, swa_lr=0.01, anneal_epochs=2, anneal_strategy="cos")
    X = lib.randn(12, 2, 6, 6, dtype=dt)
    Y = lib.randint(0, 3, (12,))
    ds = lib.utils.data.TensorDataset(X, Y)
    g = lib.Generator().manual_seed(3)
    tr, va = lib.utils.data.random_split(ds, [8, 4], generator=g)
    w = lib.tensor([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 0.2], dtype=lib.double)
    sampler = lib.utils.data.WeightedRandomSampler(
        w, 8, replacement=True, generator=lib.Generator().manual_seed(4)
    )
    dl = lib.utils.data.DataLoader(tr, batch_size=4, sampler=sampler)
    for ep in range(6):
        m.train()
        for x, y in dl:
            rec("y", y)
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            ema.update_parameters(m)
            rec("loss", loss)
        if ep >= 3:
            swa_m.update_parameters(m)
            swa_sch.step()
        else:
            sch.step()
        rec("lr", opt.param_groups[0]["lr"])
    swa.update_bn(dl, swa_m)
    vx = lib.stack([va[i][0] for i in range(4)])
    with lib.no_grad():
        swa_m.eval()
        ema.eval()
        rec("swa", swa_m(vx))
        rec("ema", ema(vx))
    rec.params("swa", swa_m)
    rec.params("ema", ema)
    for n, b in swa_m.named_buffers():
        rec("sb." + n, b)


def p_superres_unet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(34)

    class SR(nn.Module):
        def __init__(self, r=2):
            super().__init__()
            self.c1 = nn.Conv2d(1, 8, 5, 1, 2)
            self.c2 = nn.Conv2d(8, 8, 3, 1, 1)
            self.c3 = nn.Conv2d(8, r * r, 3, 1, 1)
            self.ps = nn.PixelShuffle(r)
            nn.init.orthogonal_(self.c1.weight, nn.init.calculate_gain("relu"))
            nn.init.orthogonal_(self.c3.weight)

        def forward(self, x):
            return self.ps(self.c3(F.relu(self.c2(F.relu(self.c1(x))))))

    class UNetish(nn.Module):
        def __init__(self):
            super().__init__()
            self.d1 = nn.Sequential(
                nn.Conv2d(1, 4, 3, padding=1), nn.InstanceNorm2d(4, affine=True), nn.ReLU()
            )
            self.d2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU())
            self.pool = nn.MaxPool2d(2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2)
            self.up = nn.ConvTranspose2d(8, 4, 2, 2)
            self.out = nn.Conv2d(8, 1, 1)

        def forward(self, x):
            a = self.d1(x)
            p, idx = self.pool(a)
            b = self.d2(p)
            u = self.up(b) + F.interpolate(
                b[:, :4], scale_factor=2, mode="bilinear", align_corners=False
            )
            u2 = self.unpool(p, idx, output_size=a.shape)
            return self.out(lib.cat([u + u2, a], 1))

    sr, un = SR().to(dt), UNetish().to(dt)
    opt = lib.optim.Adam(list(sr.parameters()) + list(un.parameters()), lr=1e-3)
    hr = lib.rand(3, 1, 8, 8, dtype=dt)
    lr_ = F.avg_pool2d(hr, 2)
    for _s in range(4):
        opt.zero_grad()
        y = sr(lr_)
        y2 = un(y)
        loss = F.mse_loss(y, hr) + F.l1_loss(y2, hr) + 0.1 * F.huber_loss(y2, y.detach(), delta=0.3)
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("psnr", 10 * lib.log10(1 / F.mse_loss(y.detach(), hr)))
    rec.params("sr", sr)
    rec.params("un", un)


def p_ckpt_seq_sparse(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    from importlib import import_module

    cp = import_module(lib.__name__ + ".utils.checkpoint")
    lib.manual_seed(35)
    emb = nn.Embedding(20, 6, sparse=True).to(dt)
    body = nn.Sequential(
        nn.Linear(6, 8),
        nn.GELU(approximate="tanh"),
        nn.Dropout(0.2),
        nn.Linear(8, 8),
        nn.Mish(),
        nn.Linear(8, 4),
    ).to(dt)
    o1 = lib.optim.SparseAdam(list(emb.parameters()), lr=0.01)
    o2 = lib.optim.Adamax(body.parameters(), lr=0.01)
    for _s in range(5):
        idx = lib.randint(0, 20, (5, 3))
        y = lib.randint(0, 4, (5,))
        h = emb(idx).mean(1).requires_grad_() if False else emb(idx).mean(1)
        out = cp.checkpoint_sequential(body, 2, h, use_reentrant=False)
        h2 = cp.checkpoint(lambda t: body(t) * 2, h, use_reentrant=True)
        loss = F.cross_entropy(out, y) + F.mse_loss(h2, out.detach())
        o1.zero_grad()
        o2.zero_grad()
        loss.backward()
        o1.step()
        o2.step()
        rec("loss", loss)
        rec("gsum", emb.weight.grad.to_dense().sum())
    rec.params("e", emb)
    rec.params("b", body)
    rec.opt("o1", o1)
    rec.opt("o2", o2)


# ----------------------------------------------------------------------


def p_gumbel_vae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(40)
    enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3 * 4)).to(dt)
    dec = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 12)).to(dt)
    opt = lib.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    x = (lib.rand(6, 12, dtype=dt) > 0.5).to(dt)
    tau = 1.0
    for s in range(5):
        logits = enc(x).view(-1, 3, 4)
        z = F.gumbel_softmax(logits, tau=tau, hard=(s % 2 == 1))
        rec("z", z)
        recon = dec(z.view(-1, 12))
        q = F.softmax(logits, -1)
        kl = (q * (q.clamp_min(1e-20).log() - math.log(1 / 4))).sum((1, 2)).mean()
        loss = F.binary_cross_entropy_with_logits(recon, x, reduction="sum") / 6 + kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        tau = max(0.5, tau * math.exp(-0.1))
        rec("loss", loss)
    rec.params("e", enc)


def p_word2vec(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(41)
    V, D, K = 15, 6, 3
    freq = lib.randint(1, 20, (V,)).to(dt)
    noise = freq.pow(0.75)
    noise = noise / noise.sum()
    inp = nn.Embedding(V, D).to(dt)
    out = nn.Embedding(V, D).to(dt)
    inp.weight.data.uniform_(-0.5 / D, 0.5 / D)
    out.weight.data.zero_()
    opt = lib.optim.SGD(list(inp.parameters()) + list(out.parameters()), lr=0.5)
    centers = lib.randint(0, V, (20,))
    ctx = lib.randint(0, V, (20,))
    for _s in range(6):
        neg = lib.multinomial(noise, 20 * K, replacement=True).view(20, K)
        rec("neg", neg)
        c = inp(centers)
        o = out(ctx)
        n = out(neg)
        pos = F.logsigmoid((c * o).sum(-1))
        ng = F.logsigmoid(-lib.bmm(n, c.unsqueeze(2)).squeeze(2)).sum(-1)
        loss = -(pos + ng).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec.params("p", inp)


def p_realnvp(lib, dt, rec):
    nn, D = lib.nn, lib.distributions
    lib.manual_seed(42)

    class Coupling(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer("mask", mask)
            self.s = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(), nn.Linear(16, 4), nn.Tanh())
            self.t = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(), nn.Linear(16, 4))

        def forward(self, x):
            xm = x * self.mask
            s = self.s(xm) * (1 - self.mask)
            t = self.t(xm) * (1 - self.mask)
            return xm + (1 - self.mask) * (x * s.exp() + t), s.sum(-1)

    masks = [lib.tensor([1.0, 0, 1, 0]), lib.tensor([0.0, 1, 0, 1])] * 2
    flow = nn.ModuleList([Coupling(m) for m in masks]).to(dt)
    prior = D.MultivariateNormal(lib.zeros(4, dtype=dt), lib.eye(4, dtype=dt))
    opt = lib.optim.Adam(flow.parameters(), lr=5e-3)
    data = lib.randn(32, 4, dtype=dt) @ lib.tensor(
        [[1.0, 0.5, 0, 0], [0, 1, 0.3, 0], [0, 0, 1, 0.2], [0.1, 0, 0, 0.5]], dtype=dt
    )
    for _step in range(5):
        z, ld = data, 0
        for f in flow:
            z, l_ = f(z)
            ld = ld + l_
        loss = -(prior.log_prob(z) + ld).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("nll", loss)
    mix = D.MixtureSameFamily(
        D.Categorical(logits=lib.tensor([0.1, 0.5, -0.2], dtype=dt)),
        D.Independent(D.Normal(lib.randn(3, 2, dtype=dt), lib.rand(3, 2, dtype=dt) + 0.5), 1),
    )
    rec("mix_lp", mix.log_prob(data[:5, :2]))
    rec("mix_s", mix.sample((4,)))
    rec.params("f", flow)


def p_prune_wn_tcn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    import importlib

    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    wn = lib.nn.utils.parametrizations.weight_norm
    lib.manual_seed(43)

    class TBlock(nn.Module):
        def __init__(self, ci, co, dil):
            super().__init__()
            self.pad = 2 * dil
            self.c1 = wn(nn.Conv1d(ci, co, 3, dilation=dil, padding=self.pad))
            self.c2 = wn(nn.Conv1d(co, co, 3, dilation=dil, padding=self.pad))
            self.down = nn.Conv1d(ci, co, 1) if ci != co else None
            self.drop = nn.Dropout(0.1)

        def forward(self, x):
            o = self.drop(F.relu(self.c1(x)[:, :, : -self.pad]))
            o = self.drop(F.relu(self.c2(o)[:, :, : -self.pad]))
            return F.relu(o + (x if self.down is None else self.down(x)))

    net = nn.Sequential(TBlock(2, 4, 1), TBlock(4, 4, 2)).to(dt)
    head = nn.Linear(4, 1).to(dt)
    opt = lib.optim.Adam(list(net.parameters()) + list(head.parameters()), lr=5e-3)
    x = lib.randn(4, 2, 10, dtype=dt)
    y = lib.randn(4, 1, dtype=dt)
    for s in range(6):
        if s == 3:
            prune.l1_unstructured(head, "weight", amount=0.5)
            prune.random_unstructured(net[0].down, "weight", amount=0.25)
            prune.ln_structured(
                net[1].down if net[1].down is not None else net[0].down,
                "weight",
                amount=0.5,
                n=2,
                dim=0,
            )
            prune.global_unstructured(
                [(head, "bias"), (net[0].down, "bias")],
                pruning_method=prune.L1Unstructured,
                amount=1,
            )
        loss = F.mse_loss(head(net(x)[:, :, -1]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    prune.remove(head, "weight")
    rec.params("n", net)
    rec.params("h", head)
    for n, b in net.named_buffers():
        rec("b." + n, b)


def p_siamese_cyclic(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(44)
    emb = nn.Sequential(nn.Linear(5, 8), nn.PReLU(), nn.Linear(8, 4)).to(dt)
    opt = lib.optim.SGD(emb.parameters(), lr=0.01, momentum=0.9)
    sch = lib.optim.lr_scheduler.CyclicLR(
        opt, base_lr=0.001, max_lr=0.05, step_size_up=2, mode="triangular2"
    )
    a, p, n = (lib.randn(6, 5, dtype=dt) for _ in range(3))
    y = lib.tensor([1, -1, 1, 1, -1, 1], dtype=dt)
    for _s in range(7):
        ea, ep, en = emb(a), emb(p), emb(n)
        l1 = F.triplet_margin_loss(ea, ep, en, margin=0.5, p=2, swap=True)
        l2 = F.cosine_embedding_loss(ea, ep, y, margin=0.1)
        l3 = F.margin_ranking_loss(ea.norm(dim=1), en.norm(dim=1), y)
        l4 = nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance(), margin=0.3)(
            ea, ep, en
        )
        loss = l1 + l2 + l3 + l4
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
        rec("loss", loss)
        rec("lr", sch.get_last_lr())
        rec("mom", opt.param_groups[0]["momentum"])
    rec.params("e", emb)


def p_ortho_rnn(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    orth = lib.nn.utils.parametrizations.orthogonal
    lib.manual_seed(45)
    cell = nn.RNNCell(3, 5).to(dt)
    orth(cell, "weight_hh")
    lstm = nn.LSTMCell(5, 4).to(dt)
    fc = nn.Linear(4, 2).to(dt)
    params = list(cell.parameters()) + list(lstm.parameters()) + list(fc.parameters())
    opt = lib.optim.RMSprop(params, lr=0.01)
    xs = lib.randn(7, 2, 3, dtype=dt)
    y = lib.randint(0, 2, (2,))
    for _s in range(4):
        h = lib.zeros(2, 5, dtype=dt)
        hc = None
        for t in range(7):
            h = cell(xs[t], h)
            hc = lstm(h, hc)
        loss = F.cross_entropy(fc(hc[0]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        W = cell.weight_hh
        rec("orth_err", (W @ W.T - lib.eye(5, dtype=dt)).abs().max())
    rec.params("c", cell)


def p_mc_dropout_focal(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(46)
    m = nn.Sequential(
        nn.Linear(6, 12),
        nn.SELU(),
        nn.AlphaDropout(0.2),
        nn.Linear(12, 12),
        nn.Hardswish(),
        nn.Dropout(0.3),
        nn.Linear(12, 3),
    ).to(dt)
    opt = lib.optim.Adagrad(m.parameters(), lr=0.05, lr_decay=0.01, initial_accumulator_value=0.1)
    sch = lib.optim.lr_scheduler.ChainedScheduler(
        [
            lib.optim.lr_scheduler.ExponentialLR(opt, 0.9),
            lib.optim.lr_scheduler.MultiStepLR(opt, [2, 4], 0.5),
        ]
    )
    X = lib.randn(10, 6, dtype=dt)
    Y = (lib.rand(10, 3, dtype=dt) > 0.6).to(dt)
    pw = lib.tensor([2.0, 1.0, 0.5], dtype=dt)
    for _s in range(5):
        m.train()
        logits = m(X)
        bce = F.binary_cross_entropy_with_logits(logits, Y, reduction="none", pos_weight=pw)
        pt = lib.exp(-bce)
        loss = ((1 - pt) ** 2 * bce).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
        rec("loss", loss)
        rec("lr", sch.get_last_lr())
    m.eval()
    for mod in m.modules():
        if isinstance(mod, (nn.Dropout, nn.AlphaDropout)):
            mod.train()
    with lib.no_grad():
        preds = lib.stack([lib.sigmoid(m(X)) for _ in range(5)])
        rec("mc_mean", preds.mean(0))
        rec("mc_std", preds.std(0))
    rec.params("m", m)


# ----------------------------------------------------------------------


def p_amp_bf16(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(50)
    m = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4)).to(dt)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=2)
    X = lib.randn(10, 8, dtype=dt)
    Y = lib.randint(0, 4, (10,))
    for _s in range(5):
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            out = m(X)
            rec("odt", [out.dtype == lib.bfloat16])
            loss = F.cross_entropy(out, Y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        rec("loss", loss.float())
        rec("scale", scaler.get_scale())
    rec.params("m", m)


def p_embed_maxnorm_bag(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(51)
    emb = nn.Embedding(10, 4, max_norm=1.0, padding_idx=0).to(dt)
    bag = nn.EmbeddingBag(10, 4, mode="sum", padding_idx=2).to(dt)
    fc = nn.Linear(8, 2).to(dt)
    opt = lib.optim.RAdam(
        list(emb.parameters()) + list(bag.parameters()) + list(fc.parameters()),
        lr=0.05,
        decoupled_weight_decay=True,
        weight_decay=0.1,
    )
    for _s in range(6):
        idx = lib.randint(0, 10, (3, 4))
        flat = lib.randint(0, 10, (9,))
        offs = lib.tensor([0, 2, 5])
        psw = lib.rand(9, dtype=dt)
        h = lib.cat([emb(idx).mean(1), bag(flat, offs, per_sample_weights=psw)], 1)
        loss = F.cross_entropy(fc(h), lib.tensor([0, 1, 1]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("embw", emb.weight)
    rec.params("b", bag)


def p_optim_zoo(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(52)
    X = lib.randn(12, 5, dtype=dt)
    Y = lib.randn(12, 1, dtype=dt)

    def mk():
        return nn.Sequential(nn.Linear(5, 6), nn.Softsign(), nn.Linear(6, 1)).to(dt)

    models = [mk() for _ in range(6)]
    opts = [
        lib.optim.Rprop(models[0].parameters(), lr=0.02, etas=(0.4, 1.3), step_sizes=(1e-4, 1)),
        lib.optim.ASGD(models[1].parameters(), lr=0.05, t0=2, lambd=1e-3),
        lib.optim.SGD(models[2].parameters(), lr=0.05, maximize=True, momentum=0.5),
        lib.optim.LBFGS(models[3].parameters(), lr=0.3, max_iter=3, history_size=3),
        lib.optim.Adam(
            models[4].parameters(), lr=0.02, amsgrad=True, weight_decay=0.01, foreach=False
        ),
        lib.optim.Adadelta(models[5].parameters(), lr=1.0, rho=0.8, weight_decay=0.01),
    ]
    sch = lib.optim.lr_scheduler.PolynomialLR(opts[4], total_iters=4, power=2.0)
    for _s in range(5):
        for i, (m, o) in enumerate(zip(models, opts, strict=False)):

            def closure():
                o.zero_grad()
                l = F.mse_loss(m(X), Y)
                if i == 2:
                    l = -l
                l.backward()
                return l

            loss = o.step(closure)
            rec(f"loss{i}", loss)
        sch.step()
        rec("lr4", sch.get_last_lr())
    for i, (m, o) in enumerate(zip(models, opts, strict=False)):
        rec.params(f"m{i}", m)
        if i != 3:
            rec.opt(f"o{i}", o)


def p_bn_cumulative_ode(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    AF = lib.autograd.functional
    lib.manual_seed(53)
    f = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    bn = nn.BatchNorm1d(3, momentum=None).to(dt)
    opt = lib.optim.Adam(list(f.parameters()) + list(bn.parameters()), lr=0.01)
    x0 = lib.randn(6, 3, dtype=dt)
    target = lib.randn(6, 3, dtype=dt)
    for _s in range(4):
        x = x0
        for _k in range(5):
            x = x + 0.2 * f(x)
        loss = F.mse_loss(bn(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
        rec("rm", bn.running_mean)
        rec("rv", bn.running_var)
        rec("nbt", bn.num_batches_tracked)
    v = lib.randn(3, dtype=dt)

    def g(z):
        return (f(z) ** 2).sum()

    _, hvp = AF.hvp(g, x0[0], v)
    rec("hvp", hvp)
    _, jvp = AF.jvp(f, x0[0], v)
    rec("jvp", jvp)
    rec("jac", AF.jacobian(f, x0[0]))
    rec("hess", AF.hessian(g, x0[0]))


# ----------------------------------------------------------------------


def _with_default(f):
    def g(lib, dt, rec):
        old = lib.get_default_dtype()
        lib.set_default_dtype(dt)
        try:
            f(lib, dt, rec)
        finally:
            lib.set_default_dtype(old)

    return g


p_sngan_d = _with_default(p_sngan)
p_superres_d = _with_default(p_superres_unet)
p_translation_d = _with_default(p_translation_tf)


# ----------------------------------------------------------------------

p_prune_d = _with_default(p_prune_wn_tcn)


def main():
    def extra(p):
        p.add_argument("--only", help="comma-separated program names (p_...)")
        p.add_argument("--dtypes", default="float64,float32", help="default %(default)s")

    args = H.cli("training_programs", default_cases=0, extra=extra)
    rep = args.report
    names = [n for n in globals() if n.startswith("p_") and callable(globals()[n])]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if args.cases:
        k = args.seed % max(len(names), 1)
        names = (names[k:] + names[:k])[: args.cases]
    cmp = H.limited(compare, args.timeout * 3, lambda e: f"timeout: {e}")
    for n in names:
        for dt in args.dtypes.split(","):
            rep.case()
            r = cmp(globals()[n], dt)
            if not r.startswith("EQUAL"):
                rep.add((n, dt, r.split(":")[0].split("\n")[0][:60]), r[:1200])
    return rep.finish()


if __name__ == "__main__":
    H.main_guard(main)
