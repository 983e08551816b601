"""Whole training programs, written once against a `torch`-like module and run under minitorch
and torch from the same initial weights and data: the losses of every step, the final
parameters and the optimizer state must agree. Each program mixes what real code mixes (weight
tying, buffers, masks, parameter groups, schedulers, clipping, packing, train/eval switches), so
a mismatch here is an integration bug the per-op and per-layer tests cannot see."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")


# --- the programs (each takes the library and returns its model and a step function) ---


def gpt(lib):
    """A minGPT-style decoder: tied embeddings, a causal-mask buffer, AdamW with decay and
    no-decay groups, gradient clipping, a warm-up LambdaLR."""
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self, d, heads, block):
            super().__init__()
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)
            self.n_head = heads
            mask = lib.tril(lib.ones(block, block)).view(1, 1, block, block)
            self.register_buffer("bias", mask, persistent=False)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self, d, heads, block):
            super().__init__()
            self.ln_1 = nn.LayerNorm(d)
            self.attn = CausalSelfAttention(d, heads, block)
            self.ln_2 = nn.LayerNorm(d)
            self.mlp = nn.ModuleDict(
                dict(c_fc=nn.Linear(d, 4 * d), c_proj=nn.Linear(4 * d, d), act=nn.GELU())
            )

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            m = self.mlp
            return x + m.c_proj(m.act(m.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self, vocab=11, d=16, heads=2, layers=2, block=8):
            super().__init__()
            self.transformer = nn.ModuleDict(
                dict(
                    wte=nn.Embedding(vocab, d),
                    wpe=nn.Embedding(block, d),
                    h=nn.ModuleList([Block(d, heads, block) for _ in range(layers)]),
                    ln_f=nn.LayerNorm(d),
                )
            )
            self.lm_head = nn.Linear(d, vocab, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying

        def forward(self, idx, targets=None):
            b, t = idx.size()
            pos = lib.arange(0, t, dtype=lib.long).unsqueeze(0)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            logits = self.lm_head(self.transformer.ln_f(x))
            loss = F.cross_entropy(
                logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1
            )
            return logits, loss

    model = GPT()
    decay, no_decay = set(), set()
    for mn, m in model.named_modules():
        for pn, _ in m.named_parameters():
            fpn = f"{mn}.{pn}" if mn else pn
            if pn.endswith("bias"):
                no_decay.add(fpn)
            elif pn.endswith("weight") and isinstance(m, nn.Linear):
                decay.add(fpn)
            elif pn.endswith("weight") and isinstance(m, (nn.LayerNorm, nn.Embedding)):
                no_decay.add(fpn)
    decay -= no_decay & decay  # the tied weight is an Embedding's too
    params = dict(model.named_parameters())
    groups = [
        {"params": [params[n] for n in sorted(decay & params.keys())], "weight_decay": 0.1},
        {"params": [params[n] for n in sorted(no_decay & params.keys())], "weight_decay": 0.0},
    ]
    opt = lib.optim.AdamW(groups, lr=3e-3, betas=(0.9, 0.95))
    sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))

    def step(data):
        idx, targets = data
        _, loss = model(idx, targets)
        model.zero_grad(set_to_none=True)
        loss.backward()
        norm = lib.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        return [loss, norm]

    return model, opt, step


def gpt_data(rng):
    idx = rng.integers(0, 11, size=(3, 8))
    targets = rng.integers(0, 11, size=(3, 8))
    targets[0, :2] = -1  # ignored positions
    return [idx, targets]


def resnet(lib):
    """A small residual CNN: Conv without bias + BatchNorm, a strided shortcut, adaptive average
    pooling, label smoothing, SGD with Nesterov momentum and weight decay, StepLR; the last
    step runs in eval mode (running statistics)."""
    nn, F = lib.nn, lib.nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + self.shortcut(x))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4))
            self.layer = nn.Sequential(BasicBlock(4, 4, 1), BasicBlock(4, 8, 2))
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, 5)

        def forward(self, x):
            x = self.layer(F.relu(self.stem(x)))
            return self.fc(lib.flatten(self.pool(x), 1))

    model = Net()
    opt = lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
    sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    calls = [0]

    def step(data):
        x, y = data
        calls[0] += 1
        if calls[0] == 4:  # the last step: eval mode, no update
            model.eval()
            with lib.no_grad():
                out = model(x)
            return [crit(out, y), out.argmax(1)]
        model.train()
        out = model(x)
        loss = crit(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        return [loss, (out.argmax(dim=1) == y).sum()]

    return model, opt, step


def resnet_data(rng):
    return [rng.standard_normal((6, 3, 8, 8)), rng.integers(0, 5, size=6)]


def seq2seq(lib):
    """A GRU encoder over packed variable-length sequences, an LSTM decoder with dot-product
    attention over the padded encoder states, teacher forcing, masked NLL, Adam (amsgrad) and
    ReduceLROnPlateau."""
    nn, F = lib.nn, lib.nn.functional
    rnn_utils = lib.nn.utils.rnn

    class Model(nn.Module):
        def __init__(self, vocab=9, d=6):
            super().__init__()
            self.emb = nn.Embedding(vocab, d, padding_idx=0)
            self.enc = nn.GRU(d, d, batch_first=True, bidirectional=True)
            self.bridge = nn.Linear(2 * d, d)
            self.dec = nn.LSTMCell(d, d)
            self.out = nn.Linear(2 * d, vocab)

        def forward(self, src, lengths, tgt):
            packed = rnn_utils.pack_padded_sequence(
                self.emb(src), lengths, batch_first=True, enforce_sorted=False
            )
            enc, h = self.enc(packed)
            enc, _ = rnn_utils.pad_packed_sequence(enc, batch_first=True)
            enc = self.bridge(enc)  # (B, S, d)
            mask = lib.arange(enc.size(1)).unsqueeze(0) < lengths.unsqueeze(1)
            hx = lib.tanh(h[0] + h[1])
            cx = lib.zeros_like(hx)
            logps = []
            for t in range(tgt.size(1) - 1):
                hx, cx = self.dec(self.emb(tgt[:, t]), (hx, cx))
                scores = lib.bmm(enc, hx.unsqueeze(2)).squeeze(2)
                scores = scores.masked_fill(~mask, -1e9)
                ctxv = (F.softmax(scores, dim=1).unsqueeze(2) * enc).sum(1)
                logps.append(F.log_softmax(self.out(lib.cat([hx, ctxv], 1)), dim=-1))
            logp = lib.stack(logps, 1)
            return F.nll_loss(
                logp.reshape(-1, logp.size(-1)), tgt[:, 1:].reshape(-1), ignore_index=0
            )

    model = Model()
    opt = lib.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)
    sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)

    def step(data):
        src, lengths, tgt = data
        loss = model(src, lengths, tgt)
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_value_(model.parameters(), 0.2)
        opt.step()
        sched.step(loss.item())
        return [loss, lib.tensor(opt.param_groups[0]["lr"])]

    return model, opt, step


def seq2seq_data(rng):
    lengths = np.array([5, 2, 4])
    src = np.zeros((3, 5), dtype=np.int64)
    for i, n in enumerate(lengths):
        src[i, :n] = rng.integers(1, 9, size=n)
    tgt = rng.integers(1, 9, size=(3, 4))
    tgt[1, 3] = 0  # padding in the target
    return [src, lengths, tgt]


def vae(lib):
    """A VAE step: the reparameterisation with noise handed in, BCE-with-logits reconstruction
    summed, the KL term, RMSprop (centered) and a cosine schedule."""
    nn, F = lib.nn, lib.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(12, 8), nn.SiLU())
            self.mu = nn.Linear(8, 3)
            self.logvar = nn.Linear(8, 3)
            self.dec = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 12))

        def forward(self, x, eps):
            h = self.enc(x)
            mu, logvar = self.mu(h), self.logvar(h)
            z = mu + eps * lib.exp(0.5 * logvar)
            return self.dec(z), mu, logvar

    model = VAE()
    opt = lib.optim.RMSprop(model.parameters(), lr=1e-2, centered=True, momentum=0.5)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)

    def step(data):
        x, eps = data
        logits, mu, logvar = model(x, eps)
        rec = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
        kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = (rec + kld) / x.shape[0]
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        return [loss, kld]

    return model, opt, step


def vae_data(rng):
    return [(rng.random((5, 12)) > 0.5).astype(np.float64), rng.standard_normal((5, 3))]


def gan(lib):
    """A GAN step: the discriminator on real and detached fake samples, then the generator
    through the discriminator; BatchNorm1d, LeakyReLU, BCEWithLogitsLoss, two Adams with betas
    (0.5, 0.999)."""
    nn = lib.nn
    G = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8), nn.LeakyReLU(0.2), nn.Linear(8, 4))
    D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    model = nn.ModuleDict({"G": G, "D": D})
    opt_g = lib.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_d = lib.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999), weight_decay=1e-3)
    crit = nn.BCEWithLogitsLoss()

    def step(data):
        real, z = data
        ones, zeros = lib.ones(real.size(0), 1), lib.zeros(real.size(0), 1)
        fake = G(z)
        d_loss = crit(D(real), ones) + crit(D(fake.detach()), zeros)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = crit(D(fake), ones)
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        return [d_loss, g_loss, fake]

    return model, opt_g, step


def gan_data(rng):
    return [rng.standard_normal((6, 4)) + 1.0, rng.standard_normal((6, 3))]


def encoder(lib):
    """nn.TransformerEncoder (pre-norm, GELU, no dropout) over padded sequences with a causal
    mask and a key-padding mask, masked mean pooling, Adagrad and OneCycleLR."""
    nn = lib.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 8)
            layer = nn.TransformerEncoderLayer(
                8,
                2,
                dim_feedforward=16,
                dropout=0.0,
                activation="gelu",
                batch_first=True,
                norm_first=True,
            )
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = nn.Linear(8, 3)

        def forward(self, tokens, pad):
            mask = nn.Transformer.generate_square_subsequent_mask(tokens.size(1))
            h = self.encoder(self.emb(tokens), mask=mask, src_key_padding_mask=pad)
            keep = (~pad).unsqueeze(-1).to(h.dtype)
            return self.head((h * keep).sum(1) / keep.sum(1))

    model = Classifier()
    opt = lib.optim.Adagrad(model.parameters(), lr=0.05, lr_decay=0.01)
    sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=5, cycle_momentum=False)

    def step(data):
        tokens, pad, y = data
        out = model(tokens, pad.bool())
        loss = lib.nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        return [loss, out]

    return model, opt, step


def encoder_data(rng):
    pad = np.zeros((3, 5), dtype=np.int64)
    pad[1, 3:] = 1
    pad[2, 4:] = 1
    return [rng.integers(0, 7, size=(3, 5)), pad, rng.integers(0, 3, size=3)]


def unet(lib):
    """A tiny U-Net: GroupNorm, a strided conv down, ConvTranspose2d and bilinear interpolate up,
    reflect padding, a skip concatenation, einsum, smooth L1; Adamax with a MultiStepLR."""
    nn, F = lib.nn, lib.nn.functional

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inc = nn.Sequential(
                nn.Conv2d(2, 4, 3, padding=1, padding_mode="reflect"), nn.GroupNorm(2, 4), nn.ReLU()
            )
            self.down = nn.Conv2d(4, 8, 3, stride=2, padding=1)
            self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
            self.mix = nn.Parameter(lib.eye(8) + 0.1)
            self.outc = nn.Conv2d(8, 1, 1)

        def forward(self, x):
            a = self.inc(x)
            b = F.elu(self.down(a))
            b = lib.einsum("nchw,cd->ndhw", b, self.mix)
            u = self.up(b) + F.interpolate(b[:, :4], scale_factor=2, mode="bilinear")
            return self.outc(lib.cat([a, F.pad(u, (0, 0, 0, 0))], dim=1))

    model = UNet()
    opt = lib.optim.Adamax(model.parameters(), lr=0.02)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.3)

    def step(data):
        x, target = data
        out = model(x)
        loss = F.smooth_l1_loss(out, target, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        return [loss, out]

    return model, opt, step


def unet_data(rng):
    return [rng.standard_normal((2, 2, 8, 8)), rng.standard_normal((2, 1, 8, 8))]


def lbfgs(lib):
    """Polynomial regression fitted by LBFGS with a closure and strong-Wolfe line search."""
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 6), nn.Softplus(), nn.Linear(6, 1))
    opt = lib.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, line_search_fn="strong_wolfe")

    def step(data):
        x, y = data

        def closure():
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss

        loss = opt.step(closure)
        return [loss]

    return model, opt, step


def lbfgs_data(rng):
    x = rng.standard_normal((8, 3))
    return [x, (x**2).sum(1, keepdims=True) - x[:, :1]]


def wgan_gp(lib):
    """A WGAN-GP critic step: the gradient penalty differentiates the critic's input gradient
    (create_graph=True), so the update needs second derivatives through Linear, LeakyReLU,
    LayerNorm and the norm of a gradient; Adam with betas (0., 0.9)."""
    nn = lib.nn
    critic = nn.Sequential(
        nn.Linear(4, 8),
        nn.LayerNorm(8),
        nn.LeakyReLU(0.2),
        nn.Linear(8, 8),
        nn.Tanh(),
        nn.Linear(8, 1),
    )
    opt = lib.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.0, 0.9))

    def step(data):
        real, fake, eps = data
        mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
        (grad,) = lib.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
        return [loss, penalty, grad]

    return critic, opt, step


def wgan_gp_data(rng):
    return [rng.standard_normal((6, 4)) + 1, rng.standard_normal((6, 4)), rng.random((6, 1))]


def penalty_only(lib):
    """A gradient penalty alone: the critic's input gradient runs through ReLU, LeakyReLU,
    Hardtanh and max pooling, whose backward kernels take their input with a zero gradient
    (torch's threshold_backward and friends): the first layers' biases get zero gradients, not
    None, so AdamW decays them and keeps state for them."""
    nn = lib.nn
    critic = nn.Sequential(
        nn.Linear(4, 8),
        nn.LeakyReLU(0.2),
        nn.Linear(8, 8),
        nn.ReLU(),
        nn.Unflatten(1, (1, 8)),
        nn.MaxPool1d(2),
        nn.Flatten(),
        nn.Hardtanh(-0.5, 0.5),
        nn.Linear(4, 1),
    )
    opt = lib.optim.AdamW(critic.parameters(), lr=1e-2, weight_decay=0.5)

    def step(data):
        (x,) = data
        x = x.requires_grad_(True)
        (grad,) = lib.autograd.grad(critic(x).sum(), x, create_graph=True)
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        opt.zero_grad()
        penalty.backward()
        opt.step()
        return [penalty, grad, x.grad]

    return critic, opt, step


def penalty_only_data(rng):
    return [rng.standard_normal((6, 4))]


def char_lstm(lib):
    """A two-layer character LSTM over an embedding, trained with truncated backpropagation
    (the hidden state detached between steps), gradient-norm clipping and SGD with momentum;
    the logits are flattened for cross_entropy and greedy next characters are returned."""
    nn = lib.nn

    class CharLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(7, 5)
            self.lstm = nn.LSTM(5, 6, num_layers=2, batch_first=True, dropout=0.0)
            self.head = nn.Linear(6, 7)

        def forward(self, x, state=None):
            out, state = self.lstm(self.emb(x), state)
            return self.head(out), state

    model = CharLSTM()
    opt = lib.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    hidden = [None]

    def step(data):
        x, y = data
        state = hidden[0]
        if state is not None:
            state = tuple(s.detach() for s in state)
        logits, hidden[0] = model(x, state)
        loss = nn.functional.cross_entropy(logits.reshape(-1, 7), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return [loss, norm, logits.argmax(-1)]

    return model, opt, step


def char_lstm_data(rng):
    return [rng.integers(0, 7, size=(2, 5)), rng.integers(0, 7, size=(2, 5))]


PROGRAMS = {
    "gpt": (gpt, gpt_data, 4),
    "resnet": (resnet, resnet_data, 4),
    "seq2seq": (seq2seq, seq2seq_data, 4),
    "vae": (vae, vae_data, 4),
    "gan": (gan, gan_data, 4),
    # atol 1e-7: the key bias's true gradient is 0 (softmax ignores a shift), and Adagrad
    # scales its rounding noise (1e-17) up to steps of ~1e-9
    "encoder": (encoder, encoder_data, 4, 1e-7),
    "unet": (unet, unet_data, 4),
    "lbfgs": (lbfgs, lbfgs_data, 3),
    "wgan_gp": (wgan_gp, wgan_gp_data, 4),
    "penalty_only": (penalty_only, penalty_only_data, 3),
    "char_lstm": (char_lstm, char_lstm_data, 4),
}


# --- the harness ---


def _to(lib, a, dtype):
    t = lib.tensor(a)
    return t.to(getattr(lib, dtype)) if t.dtype.is_floating_point else t


def _host(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def _run(lib, name, weights=None, dtype="float64"):
    build, data, steps = PROGRAMS[name][:3]
    lib.manual_seed(0)
    lib.set_default_dtype(getattr(lib, dtype))
    try:
        model, opt, step = build(lib)
        if weights is None:
            weights = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        model.load_state_dict({k: lib.tensor(v) for k, v in weights.items()})
        rng = np.random.default_rng(0)
        trace = []
        for _ in range(steps):
            out = step([_to(lib, a, dtype) for a in data(rng)])
            trace.append([_host(o) for o in out])
        final = {k: _host(v) for k, v in model.state_dict().items()}
        groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
        state = opt.state_dict()["state"]
        return weights, trace, final, groups, state, (repr(model), repr(opt))
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_matches_torch(name):
    weights, want_trace, want_final, want_groups, want_state, want_reprs = _run(torch, name)
    _, trace, final, groups, state, reprs = _run(minitorch, name, weights)
    assert reprs == want_reprs  # print(model) and print(optimizer)
    atol = PROGRAMS[name][3] if len(PROGRAMS[name]) > 3 else 1e-11
    for s, (ours, theirs) in enumerate(zip(trace, want_trace, strict=True)):
        for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            np.testing.assert_allclose(o, t, rtol=1e-9, atol=atol, err_msg=f"step {s} out {k}")
    assert list(final) == list(want_final)
    for k in want_final:
        np.testing.assert_allclose(final[k], want_final[k], rtol=1e-9, atol=atol, err_msg=k)
    assert groups == want_groups
    assert list(state) == list(want_state)
    for i in want_state:
        assert list(state[i]) == list(want_state[i]), i
        for k, v in want_state[i].items():
            _same(state[i][k], v, f"state {i} {k}", atol)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_in_float32_keeps_torch_dtypes(name):
    """The same programs in float32: no output, parameter or optimizer state is promoted to
    float64 (or lowered) where torch's stays float32; values agree to float32 rounding on the
    first step (later steps drift apart at float32's precision)."""
    weights, want_trace, want_final, _, want_state, _ = _run(torch, name, dtype="float32")
    _, trace, final, _, state, _ = _run(minitorch, name, weights, dtype="float32")
    for s, (ours, theirs) in enumerate(zip(trace, want_trace, strict=True)):
        for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            assert np.asarray(o).dtype == np.asarray(t).dtype, f"step {s} out {k}"
            if s == 0:
                np.testing.assert_allclose(o, t, rtol=2e-4, atol=1e-5, err_msg=f"out {k}")
    for k in want_final:
        assert final[k].dtype == want_final[k].dtype, k
    for i in want_state:
        for k, v in want_state[i].items():
            if hasattr(v, "dtype"):
                assert _host(state[i][k]).dtype == _host(v).dtype, f"state {i} {k}"


def _same(ours, theirs, what, atol):
    """Optimizer state values: tensors, numbers, None, or lists of them (LBFGS)."""
    if isinstance(theirs, list | tuple):
        assert isinstance(ours, list | tuple) and len(ours) == len(theirs), what
        for k, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            _same(o, t, f"{what}[{k}]", atol)
    elif theirs is None:
        assert ours is None, what
    else:
        np.testing.assert_allclose(_host(ours), _host(theirs), rtol=1e-9, atol=atol, err_msg=what)
