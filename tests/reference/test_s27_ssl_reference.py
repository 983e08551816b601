"""Session 27 (helper ssl): self-supervised and metric-learning programs run under torch and
minitorch with the same seeds and compared record by record: BYOL/SimSiam (detach, BatchNorm1d
predictors, momentum targets by _foreach_mul_/_foreach_add_ and .data.mul_().add_()), MoCo (queue
and ptr buffers, cat of positives and negatives), Barlow Twins, VICReg, DINO (centering buffer,
temperature schedule, multi-crop, frozen last layer), SwAV (Sinkhorn-Knopp), MAE (random masking
by argsort/gather, patchify/unpatchify), CLIP (clamped logit_scale), data2vec-style layer-averaged
EMA targets; metric learning (batch-hard triplet, ArcFace/CosFace, NT-Xent, SupCon, proxy-anchor,
center loss by index_add_) and utilities (hand-written LARS, warmup-cosine LambdaLR, kNN monitor,
linear probing on a frozen backbone, feature banks). float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4; texts exactly."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import math

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


PROGRAMS = [
    "byol", "simsiam", "moco", "barlow", "vicreg", "dino", "swav", "mae", "clip", "data2vec",
    "triplet", "arcface", "ntxent", "supcon", "proxy_anchor", "center_loss", "lars", "knn",
    "linear_probe", "errors", "mocov3", "multicrop", "npid_bank", "swav_queue",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, rec=Rec(dtypes=True))
    got = run_program(prog, minitorch, dt, rec=Rec(dtypes=True))
    tol = 1e-10 if dt == "float64" else 1e-4
    if name == "mocov3" and dt == "float32":  # biases whose float32 gradients are mostly
        # rounding (attention's and the MLP's output biases before a LayerNorm): looser
        tol = lambda n, a: 5e-4 if n.endswith("bias") else 1e-4  # noqa: E731
    assert_records_match(want, got, tol, rename=True)


# --- helpers ---


def _mlp(lib, dt, d_in, d_hid, d_out, bn=True):
    nn = lib.nn
    layers = [nn.Linear(d_in, d_hid)]
    if bn:
        layers.append(nn.BatchNorm1d(d_hid))
    layers += [nn.ReLU(inplace=True), nn.Linear(d_hid, d_out)]
    return nn.Sequential(*layers).to(dt)


def _augment(lib, x):
    return x + 0.1 * lib.randn_like(x)


# --- self-supervised programs: each takes the library, a dtype and a recorder ---


def p_byol(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(0)
    online = _mlp(lib, dt, 6, 8, 4)
    predictor = _mlp(lib, dt, 4, 8, 4)
    target = _mlp(lib, dt, 6, 8, 4)
    target.load_state_dict(online.state_dict())
    for p in target.parameters():
        p.requires_grad = False
    opt = lib.optim.SGD(list(online.parameters()) + list(predictor.parameters()), lr=0.1)

    def loss_fn(p, z):
        p = F.normalize(p, dim=-1, p=2)
        z = F.normalize(z, dim=-1, p=2)
        return 2 - 2 * (p * z).sum(dim=-1)

    x = lib.randn(10, 6, dtype=dt)
    for step in range(3):
        v1, v2 = _augment(lib, x), _augment(lib, x)
        p1, p2 = predictor(online(v1)), predictor(online(v2))
        with lib.no_grad():
            t1, t2 = target(v1), target(v2)
        loss = (loss_fn(p1, t2.detach()) + loss_fn(p2, t1.detach())).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        tau = 1 - (1 - 0.9) * (math.cos(math.pi * step / 3) + 1) / 2
        tp = list(target.parameters())
        op = list(online.parameters())
        if step % 2 == 0:
            lib._foreach_mul_(tp, tau)
            lib._foreach_add_(tp, op, alpha=1 - tau)
        else:
            for pt, po in zip(tp, op, strict=True):
                pt.data.mul_(tau).add_(po.data, alpha=1 - tau)
        for b, bo in zip(target.buffers(), online.buffers(), strict=True):
            b.data.copy_(bo.data)
        rec(f"target_w{step}", target[0].weight)
    rec.params("online", online, grads=True)
    rec.params("pred", predictor, grads=True)
    rec("bn_mean", online[1].running_mean)
    rec("bn_var", online[1].running_var)
    rec("bn_nbt", online[1].num_batches_tracked)
    rec("target_bn_nbt", target[1].num_batches_tracked)
    rec("target_req", str([p.requires_grad for p in target.parameters()]))


def p_simsiam(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(1)
    enc = nn.Sequential(
        nn.Linear(5, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 6),
        nn.BatchNorm1d(6, affine=False),
    ).to(dt)  # fmt: skip
    enc[3].bias.requires_grad = False
    pred = _mlp(lib, dt, 6, 3, 6)
    crit = nn.CosineSimilarity(dim=1)
    opt = lib.optim.SGD(
        [
            {"params": enc.parameters(), "fix_lr": False},
            {"params": pred.parameters(), "fix_lr": True},
        ],
        lr=0.05, momentum=0.9, weight_decay=1e-4,
    )  # fmt: skip
    x = lib.randn(8, 5, dtype=dt)
    for step in range(3):
        for g in opt.param_groups:
            g["lr"] = 0.05 if g["fix_lr"] else 0.05 * (1 + math.cos(math.pi * step / 3)) / 2
        x1, x2 = _augment(lib, x), _augment(lib, x)
        z1, z2 = enc(x1), enc(x2)
        p1, p2 = pred(z1), pred(z2)
        loss = -(crit(p1, z2.detach()).mean() + crit(p2, z1.detach()).mean()) * 0.5
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"zstd{step}", F.normalize(z1, dim=1).std(dim=0).mean())
    rec.params("enc", enc, grads=True)
    rec.params("pred", pred, grads=True)
    rec("enc3_bias_grad", str(enc[3].bias.grad))
    rec("bn4_mean", enc[4].running_mean)
    rec("state_keys", str(sorted(len(s) for s in opt.state.values())))


def p_moco(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional

    class MoCo(nn.Module):
        def __init__(self, dim=4, K=12, m=0.99, T=0.07):
            super().__init__()
            self.K, self.m, self.T = K, m, T
            self.encoder_q = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, dim))
            self.encoder_k = nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, dim))
            for pq, pk in zip(
                self.encoder_q.parameters(), self.encoder_k.parameters(), strict=True
            ):
                pk.data.copy_(pq.data)
                pk.requires_grad = False
            self.register_buffer("queue", lib.randn(dim, K))
            self.queue = F.normalize(self.queue, dim=0)
            self.register_buffer("queue_ptr", lib.zeros(1, dtype=lib.long))

        @lib.no_grad()
        def _momentum_update(self):
            for pq, pk in zip(
                self.encoder_q.parameters(), self.encoder_k.parameters(), strict=True
            ):
                pk.data = pk.data * self.m + pq.data * (1.0 - self.m)

        @lib.no_grad()
        def _dequeue_and_enqueue(self, keys):
            bs = keys.shape[0]
            ptr = int(self.queue_ptr)
            assert self.K % bs == 0
            self.queue[:, ptr : ptr + bs] = keys.T
            ptr = (ptr + bs) % self.K
            self.queue_ptr[0] = ptr

        def forward(self, im_q, im_k):
            q = F.normalize(self.encoder_q(im_q), dim=1)
            with lib.no_grad():
                self._momentum_update()
                k = F.normalize(self.encoder_k(im_k), dim=1)
            l_pos = lib.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
            l_neg = lib.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
            logits = lib.cat([l_pos, l_neg], dim=1) / self.T
            labels = lib.zeros(logits.shape[0], dtype=lib.long)
            self._dequeue_and_enqueue(k)
            return logits, labels

    lib.manual_seed(2)
    model = MoCo().to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=1e-4)
    x = lib.randn(16, 5, dtype=dt)
    rec("buffers", str([(n, b.dtype, tuple(b.shape)) for n, b in model.named_buffers()]))
    for step in range(4):
        idx = lib.randperm(16)[:4]
        logits, labels = model(_augment(lib, x[idx]), _augment(lib, x[idx]))
        loss = F.cross_entropy(logits, labels)
        acc = (logits.argmax(1) == labels).float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"logits{step}", logits)
        rec(f"loss{step}", loss)
        rec(f"acc{step}", acc)
        rec(f"ptr{step}", model.queue_ptr)
    rec("queue", model.queue)
    rec.params("m", model, grads=True)
    rec("sd_keys", str(list(model.state_dict().keys())))


def p_barlow(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(3)
    proj = _mlp(lib, dt, 5, 8, 6)
    bn = lib.nn.BatchNorm1d(6, affine=False).to(dt)
    # SGD: the last bias before a BatchNorm gets an exactly-zero gradient that Adam would blow up
    opt = lib.optim.SGD(proj.parameters(), lr=1e-2, momentum=0.9)

    def off_diagonal(x):
        n, m = x.shape
        assert n == m
        return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

    x = lib.randn(12, 5, dtype=dt)
    lambd = 0.0051
    for step in range(3):
        z1, z2 = proj(_augment(lib, x)), proj(_augment(lib, x))
        c = bn(z1).T @ bn(z2)
        c.div_(12)
        on_diag = lib.diagonal(c).add_(-1).pow_(2).sum()
        off_diag = off_diagonal(c).pow_(2).sum()
        loss = on_diag + lambd * off_diag
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"c{step}", c)
        rec(f"on{step}", on_diag)
        rec(f"off{step}", off_diag)
        rec(f"loss{step}", loss)
        # the functional variant written with eye masks
        c2 = (F.batch_norm(z1.detach(), None, None, training=True).T @ z2.detach()) / 12
        eye = lib.eye(6, dtype=lib.bool)
        rec(f"masked{step}", c2.masked_select(~eye).pow(2).sum())
    rec.params("proj", proj, grads=True)
    rec("bn_mean", bn.running_mean)
    rec("bn_var", bn.running_var)


def p_vicreg(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(4)
    exp = _mlp(lib, dt, 5, 8, 6, bn=False)
    opt = lib.optim.SGD(exp.parameters(), lr=1e-2, weight_decay=0.05)
    x = lib.randn(10, 5, dtype=dt)

    def off_diagonal(m):
        n = m.shape[0]
        return m.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

    for step in range(3):
        a, b = exp(_augment(lib, x)), exp(_augment(lib, x))
        repr_loss = F.mse_loss(a, b)
        a = a - a.mean(dim=0)
        b = b - b.mean(dim=0)
        std_a = lib.sqrt(a.var(dim=0) + 0.0001)
        std_b = lib.sqrt(b.var(dim=0) + 0.0001)
        std_loss = lib.mean(F.relu(1 - std_a)) / 2 + lib.mean(F.relu(1 - std_b)) / 2
        cov_a = (a.T @ a) / (10 - 1)
        cov_b = (b.T @ b) / (10 - 1)
        cov_loss = off_diagonal(cov_a).pow_(2).sum().div(6) + off_diagonal(cov_b).pow_(2).sum().div(
            6
        )
        loss = 25.0 * repr_loss + 25.0 * std_loss + 1.0 * cov_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"repr{step}", repr_loss)
        rec(f"std{step}", std_loss)
        rec(f"cov{step}", cov_loss)
        rec(f"cov_torch{step}", lib.cov(a.T.detach()))
        rec(f"var_unb{step}", a.var(dim=0, unbiased=False))
    rec.params("exp", exp, grads=True)


def p_dino(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = nn.Sequential(nn.Linear(5, 8), nn.GELU(), nn.Linear(8, 4))
            self.last_layer = nn.utils.weight_norm(nn.Linear(4, 7, bias=False))
            self.last_layer.weight_g.data.fill_(1)
            self.last_layer.weight_g.requires_grad = False

        def forward(self, x):
            x = F.normalize(self.mlp(x), dim=-1, p=2)
            return self.last_layer(x)

    student = Head().to(dt)
    teacher = Head().to(dt)
    teacher.load_state_dict(student.state_dict())
    for p in teacher.parameters():
        p.requires_grad = False
    center = lib.zeros(1, 7, dtype=dt)
    teacher_temp = lib.cat(
        [lib.linspace(0.04, 0.07, 2, dtype=lib.float64), lib.ones(2, dtype=lib.float64) * 0.07]
    ).tolist()
    opt = lib.optim.AdamW(
        [{"params": [p for p in student.parameters() if p.requires_grad]}], lr=1e-2
    )
    x = lib.randn(4, 5, dtype=dt)
    for epoch in range(3):
        crops = [_augment(lib, x) for _ in range(2)] + [_augment(lib, x) * 0.5 for _ in range(2)]
        student_out = [student(c) / 0.1 for c in crops]
        with lib.no_grad():
            teacher_raw = lib.cat([teacher(c) for c in crops[:2]])
        t = teacher_temp[epoch]
        teacher_out = F.softmax((teacher_raw - center) / t, dim=-1).detach().chunk(2)
        total, n_terms = 0, 0
        for iq, q in enumerate(teacher_out):
            for v, s in enumerate(student_out):
                if v == iq:
                    continue
                total = total + lib.sum(-q * F.log_softmax(s, dim=-1), dim=-1).mean()
                n_terms += 1
        loss = total / n_terms
        opt.zero_grad()
        loss.backward()
        if epoch < 1:
            for n, p in student.named_parameters():
                if "last_layer" in n:
                    p.grad = None
        rec(f"loss{epoch}", loss)
        rec(f"grad_none{epoch}", str([p.grad is None for p in student.parameters()]))
        lib.nn.utils.clip_grad_norm_(student.parameters(), 3.0)
        opt.step()
        with lib.no_grad():
            batch_center = lib.sum(teacher_raw, dim=0, keepdim=True) / len(teacher_raw)
            center = center * 0.9 + batch_center * (1 - 0.9)
            m = 0.996
            for ps, pt in zip(student.parameters(), teacher.parameters(), strict=True):
                pt.data.mul_(m).add_((1 - m) * ps.detach().data)
        rec(f"center{epoch}", center)
        rec(f"t_entropy{epoch}", -(teacher_out[0] * teacher_out[0].log()).sum(-1))
    rec.params("student", student, grads=True)
    rec.params("teacher", teacher)


def p_swav(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(6)
    proj = _mlp(lib, dt, 5, 8, 4)
    prototypes = lib.nn.Linear(4, 6, bias=False).to(dt)
    opt = lib.optim.SGD(list(proj.parameters()) + list(prototypes.parameters()), lr=0.1)

    @lib.no_grad()
    def sinkhorn(out, iters=3, eps=0.05):
        Q = lib.exp(out / eps).t()
        B = Q.shape[1]
        K = Q.shape[0]
        Q /= lib.sum(Q)
        for _ in range(iters):
            sum_of_rows = lib.sum(Q, dim=1, keepdim=True)
            Q /= sum_of_rows
            Q /= K
            Q /= lib.sum(Q, dim=0, keepdim=True)
            Q /= B
        Q *= B
        return Q.t()

    x = lib.randn(8, 5, dtype=dt)
    for step in range(3):
        with lib.no_grad():
            w = prototypes.weight.data.clone()
            w = F.normalize(w, dim=1, p=2)
            prototypes.weight.copy_(w)
        z = F.normalize(proj(lib.cat([_augment(lib, x), _augment(lib, x)])), dim=1)
        scores = prototypes(z)
        s1, s2 = scores[:8], scores[8:]
        q1 = sinkhorn(s1.detach())
        q2 = sinkhorn(s2.detach())
        loss = -0.5 * (
            lib.mean(lib.sum(q1 * F.log_softmax(s2 / 0.1, dim=1), dim=1))
            + lib.mean(lib.sum(q2 * F.log_softmax(s1 / 0.1, dim=1), dim=1))
        )
        opt.zero_grad()
        loss.backward()
        if step == 0:
            for p in prototypes.parameters():
                p.grad = None
        opt.step()
        rec(f"q{step}", q1)
        rec(f"q_req{step}", str(q1.requires_grad))
        rec(f"loss{step}", loss)
    rec.params("proj", proj, grads=True)
    rec.params("proto", prototypes, grads=True)


def p_mae(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(7)
    p, C, H = 2, 3, 4
    N, L, D = 3, (H // p) ** 2, 5

    def patchify(imgs):
        h = w = imgs.shape[2] // p
        x = imgs.reshape(shape=(imgs.shape[0], C, h, p, w, p))
        x = lib.einsum("nchpwq->nhwpqc", x)
        return x.reshape(shape=(imgs.shape[0], h * w, p**2 * C))

    def unpatchify(x):
        h = w = int(x.shape[1] ** 0.5)
        x = x.reshape(shape=(x.shape[0], h, w, p, p, C))
        x = lib.einsum("nhwpqc->nchpwq", x)
        return x.reshape(shape=(x.shape[0], C, h * p, h * p))

    def random_masking(x, mask_ratio):
        n, length, d = x.shape
        len_keep = int(length * (1 - mask_ratio))
        noise = lib.rand(n, length, device=x.device)
        ids_shuffle = lib.argsort(noise, dim=1)
        ids_restore = lib.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = lib.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, d))
        mask = lib.ones([n, length], device=x.device)
        mask[:, :len_keep] = 0
        mask = lib.gather(mask, dim=1, index=ids_restore)
        return x_masked, mask, ids_restore

    embed = nn.Linear(p * p * C, D).to(dt)
    pos = nn.Parameter(lib.zeros(1, L, D, dtype=dt))
    nn.init.trunc_normal_(pos, std=0.02)
    mask_token = nn.Parameter(lib.zeros(1, 1, D, dtype=dt))
    nn.init.normal_(mask_token, std=0.02)
    dec = nn.Linear(D, p * p * C).to(dt)
    params = list(embed.parameters()) + [pos, mask_token] + list(dec.parameters())
    opt = lib.optim.AdamW(params, lr=1e-2, betas=(0.9, 0.95))
    imgs = lib.randn(N, C, H, H, dtype=dt)
    target = patchify(imgs)
    rec("roundtrip", (unpatchify(target) - imgs).abs().max())
    for step in range(2):
        x = embed(target) + pos
        x, mask, ids_restore = random_masking(x, 0.5)
        rec(f"mask{step}", mask)
        rec(f"ids{step}", ids_restore)
        mask_tokens = mask_token.repeat(x.shape[0], ids_restore.shape[1] - x.shape[1], 1)
        mt2 = mask_token.expand(x.shape[0], ids_restore.shape[1] - x.shape[1], -1)
        rec(f"expand_eq{step}", lib.equal(mask_tokens, mt2))
        x_ = lib.cat([x, mt2], dim=1)
        x_ = lib.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        pred = dec(x_)
        mean = target.mean(dim=-1, keepdim=True)
        var = target.var(dim=-1, keepdim=True)
        tgt = (target - mean) / (var + 1.0e-6) ** 0.5
        loss = (pred - tgt) ** 2
        loss = loss.mean(dim=-1)
        loss = (loss * mask).sum() / mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
        rec(f"recon{step}", unpatchify(pred * mask.unsqueeze(-1)))
    rec("pos", pos)
    rec("pos.g", pos.grad)
    rec("mask_token.g", mask_token.grad)
    rec.params("embed", embed, grads=True)


def p_clip(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(8)
    img_enc = nn.Linear(6, 4, bias=False).to(dt)
    txt_enc = nn.Sequential(nn.Embedding(10, 5), nn.LayerNorm(5)).to(dt)
    txt_proj = nn.Linear(5, 4, bias=False).to(dt)
    logit_scale = nn.Parameter(lib.ones([], dtype=dt) * math.log(1 / 0.07))
    params = [*img_enc.parameters(), *txt_enc.parameters(), *txt_proj.parameters(), logit_scale]
    opt = lib.optim.Adam(params, lr=0.5)
    images = lib.randn(5, 6, dtype=dt)
    tokens = lib.randint(0, 10, (5, 3))
    for step in range(3):
        ie = F.normalize(img_enc(images), dim=-1)
        te = txt_proj(txt_enc(tokens).mean(1))
        te = te / te.norm(dim=1, keepdim=True)
        scale = logit_scale.exp()
        logits_per_image = scale * ie @ te.t()
        logits_per_text = logits_per_image.t()
        labels = lib.arange(5)
        loss = (
            F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)
        ) / 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        logit_scale.data.clamp_(0, 4.6052)
        rec(f"loss{step}", loss)
        rec(f"scale{step}", logit_scale)
        rec(f"scale_g{step}", logit_scale.grad)
        rec(f"acc{step}", (logits_per_image.argmax(-1) == labels).sum())
    rec("scale_shape", str(tuple(logit_scale.shape)))
    rec.params("txt", txt_enc, grads=True)


def p_data2vec(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(9)

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList(
                [
                    nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
                    for _ in range(2)
                ]
            )

        def forward(self, x, layer_results=False):
            outs = []
            for layer in self.layers:
                x = layer(x)
                outs.append(x)
            return (x, outs) if layer_results else x

    student = Enc().to(dt)
    import copy

    teacher = copy.deepcopy(student)
    teacher.requires_grad_(False)
    teacher.eval()
    head = nn.Linear(4, 4).to(dt)
    opt = lib.optim.Adam(list(student.parameters()) + list(head.parameters()), lr=1e-3)
    x = lib.randn(2, 5, 4, dtype=dt)
    for step in range(2):
        mask = lib.rand(2, 5) < 0.4
        xm = x.masked_fill(mask.unsqueeze(-1), 0.0)
        with lib.no_grad():
            _, outs = teacher(x, layer_results=True)
            tl = [F.instance_norm(o.transpose(1, 2)).transpose(1, 2) for o in outs]
            y = sum(tl) / len(tl)
            y = F.layer_norm(y, y.shape[-1:])
        pred = head(student(xm))
        loss = F.smooth_l1_loss(pred[mask], y[mask], beta=0.25, reduction="none").sum(-1)
        loss = loss.sum() / math.sqrt(pred.size(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            ema = 0.999
            for ps, pt in zip(
                student.state_dict().values(), teacher.state_dict().values(), strict=True
            ):
                if pt.dtype.is_floating_point:
                    pt.mul_(ema).add_(ps, alpha=1 - ema)
        rec(f"mask{step}", mask)
        rec(f"y{step}", y)
        rec(f"loss{step}", loss)
    rec.params("head", head, grads=True)
    rec.params("teacher", teacher)


# --- metric learning ---


def p_triplet(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(10)
    net = nn.Linear(5, 3).to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    x = lib.randn(9, 5, dtype=dt)
    labels = lib.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2])
    margin = 0.3
    for step in range(3):
        emb = net(x)
        dist = lib.cdist(emb, emb, p=2)
        same = labels[:, None].eq(labels[None, :])
        eye = lib.eye(9, dtype=lib.bool)
        pos_mask = same & ~eye
        hardest_pos = dist.masked_fill(~pos_mask, float("-inf")).max(dim=1)[0]
        hardest_neg = dist.masked_fill(same, float("inf")).min(dim=1).values
        loss = F_relu(lib, hardest_pos - hardest_neg + margin).mean()
        ml = nn.MarginRankingLoss(margin=margin)(
            hardest_neg, hardest_pos, lib.ones_like(hardest_neg)
        )
        tml = nn.TripletMarginLoss(margin=margin)(emb[:3], emb[3:6], emb[[1, 2, 0]])
        opt.zero_grad()
        (loss + tml).backward()
        opt.step()
        rec(f"dist{step}", dist)
        rec(f"hp{step}", hardest_pos)
        rec(f"hn{step}", hardest_neg)
        rec(f"loss{step}", loss)
        rec(f"mrl{step}", ml)
        rec(f"tml{step}", tml)
        rec(f"sqd{step}", lib.cdist(emb, emb).pow(2))
    rec.params("net", net, grads=True)


def F_relu(lib, x):
    return lib.nn.functional.relu(x)


def p_arcface(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    W = nn.Parameter(lib.empty(4, 5, dtype=dt))
    nn.init.xavier_uniform_(W)
    net = nn.Linear(6, 5).to(dt)
    opt = lib.optim.SGD([W, *net.parameters()], lr=0.1, momentum=0.9)
    x = lib.randn(7, 6, dtype=dt)
    label = lib.tensor([0, 1, 2, 3, 0, 1, 2])
    s, m = 8.0, 0.5
    cos_m, sin_m = math.cos(m), math.sin(m)
    th, mm = math.cos(math.pi - m), math.sin(math.pi - m) * m
    for step in range(3):
        cosine = F.linear(F.normalize(net(x)), F.normalize(W))
        sine = lib.sqrt((1.0 - lib.pow(cosine, 2)).clamp(0, 1))
        phi = cosine * cos_m - sine * sin_m
        phi = lib.where(cosine > th, phi, cosine - mm)
        one_hot = lib.zeros(cosine.size(), dtype=dt)
        one_hot.scatter_(1, label.view(-1, 1).long(), 1)
        output = (one_hot * phi) + ((1.0 - one_hot) * cosine)
        output *= s
        theta = lib.acos(cosine.clamp(-1 + 1e-7, 1 - 1e-7))
        arc2 = lib.cos(theta + m * F.one_hot(label, 4).to(dt)) * s
        cosface = s * (cosine - 0.35 * F.one_hot(label, num_classes=4))
        loss = F.cross_entropy(output, label) + F.cross_entropy(cosface, label)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"out{step}", output)
        rec(f"arc2_{step}", arc2)
        rec(f"cosface{step}", cosface)
        rec(f"loss{step}", loss)
    rec("W", W)
    rec("W.g", W.grad)


def p_ntxent(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(12)
    net = _mlp(lib, dt, 5, 6, 4)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    x = lib.randn(6, 5, dtype=dt)
    T = 0.5
    for step in range(2):
        z = F.normalize(net(lib.cat([_augment(lib, x), _augment(lib, x)])), dim=1)
        n = z.shape[0]
        sim = z @ z.T / T
        mask = lib.eye(n, dtype=lib.bool)
        sim_a = sim.masked_fill(mask, float("-inf"))
        sim_b = sim.masked_fill(mask, -9e15)
        targets = lib.cat([lib.arange(n // 2, n), lib.arange(0, n // 2)])
        loss_a = F.cross_entropy(sim_a, targets)
        loss_b = F.cross_entropy(sim_b, targets)
        pos = sim[lib.arange(n), targets]
        loss_c = (-pos + lib.logsumexp(sim_a, dim=1)).mean()
        cos = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1)
        opt.zero_grad()
        loss_a.backward()
        opt.step()
        rec(f"sim_a{step}", sim_a)
        rec(f"la{step}", loss_a)
        rec(f"lb{step}", loss_b)
        rec(f"lc{step}", loss_c)
        rec(f"cos{step}", cos)
        rec(f"top1_{step}", (sim_a.argmax(1) == targets).float().mean())
    rec.params("net", net, grads=True)


def p_supcon(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(13)
    net = nn_lin(lib, dt, 5, 4)
    x = lib.randn(6, 2, 5, dtype=dt)
    labels = lib.tensor([0, 1, 0, 2, 1, 0])
    features = F.normalize(net(x), dim=-1)
    bsz, n_views = features.shape[:2]
    mask = lib.eq(labels.contiguous().view(-1, 1), labels.contiguous().view(-1, 1).T).float()
    contrast_feature = lib.cat(lib.unbind(features, dim=1), dim=0)
    adc = lib.div(lib.matmul(contrast_feature, contrast_feature.T), 0.1)
    logits_max, _ = lib.max(adc, dim=1, keepdim=True)
    logits = adc - logits_max.detach()
    mask = mask.repeat(n_views, n_views)
    logits_mask = lib.scatter(lib.ones_like(mask), 1, lib.arange(bsz * n_views).view(-1, 1), 0)
    mask = mask * logits_mask
    exp_logits = lib.exp(logits) * logits_mask
    log_prob = logits - lib.log(exp_logits.sum(1, keepdim=True))
    mask_pos_pairs = mask.sum(1)
    mask_pos_pairs = lib.where(mask_pos_pairs < 1e-6, 1, mask_pos_pairs)
    mean_log_prob_pos = (mask * log_prob).sum(1) / mask_pos_pairs
    loss = -(0.1 / 0.07) * mean_log_prob_pos
    loss = loss.view(n_views, bsz).mean()
    loss.backward()
    rec("mask", mask)
    rec("logits_mask", logits_mask)
    rec("loss", loss)
    rec("mpp.dtype", str(mask_pos_pairs.dtype))
    # the logsumexp form
    lse = lib.logsumexp(adc.masked_fill(logits_mask == 0, float("-inf")), dim=1, keepdim=True)
    rec("lse_form", -((mask * (adc - lse)).sum(1) / mask.sum(1)).mean())
    rec.params("net", net, grads=True)


def nn_lin(lib, dt, a, b):
    return lib.nn.Linear(a, b).to(dt)


def p_proxy_anchor(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(14)
    nb_classes, sz_embed, mrg, alpha = 3, 4, 0.1, 32
    proxies = nn.Parameter(lib.randn(nb_classes, sz_embed, dtype=dt))
    nn.init.kaiming_normal_(proxies, mode="fan_out")
    net = nn_lin(lib, dt, 5, sz_embed)
    opt = lib.optim.AdamW(
        [{"params": net.parameters()}, {"params": [proxies], "lr": 1e-1}], lr=1e-2
    )
    x = lib.randn(8, 5, dtype=dt)
    T = lib.tensor([0, 0, 1, 1, 1, 0, 0, 1])
    for step in range(3):
        X = net(x)
        cos = F.linear(F.normalize(X, p=2, dim=1), F.normalize(proxies, p=2, dim=1))
        P_one_hot = F.one_hot(T, nb_classes).to(dt)
        N_one_hot = 1 - P_one_hot
        pos_exp = lib.exp(-alpha * (cos - mrg))
        neg_exp = lib.exp(alpha * (cos + mrg))
        with_pos = lib.nonzero(P_one_hot.sum(dim=0) != 0).squeeze(dim=1)
        num_valid = len(with_pos)
        P_sim_sum = lib.where(P_one_hot == 1, pos_exp, lib.zeros_like(pos_exp)).sum(dim=0)
        N_sim_sum = lib.where(N_one_hot == 1, neg_exp, lib.zeros_like(neg_exp)).sum(dim=0)
        pos_term = lib.log(1 + P_sim_sum).sum() / num_valid
        neg_term = lib.log(1 + N_sim_sum).sum() / nb_classes
        loss = pos_term + neg_term
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(proxies, 10)
        opt.step()
        rec(f"with_pos{step}", with_pos)
        rec(f"loss{step}", loss)
        rec(f"softplus{step}", F.softplus(lib.logsumexp(-alpha * (cos - mrg), 0)).sum())
    rec("proxies", proxies)
    rec("proxies.g", proxies.grad)


def p_center_loss(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(15)
    num_classes, feat_dim = 4, 3
    net = nn_lin(lib, dt, 5, feat_dim)
    fc = nn_lin(lib, dt, feat_dim, num_classes)
    centers = nn.Parameter(lib.randn(num_classes, feat_dim, dtype=dt))
    opt = lib.optim.SGD([*net.parameters(), *fc.parameters()], lr=0.1)
    opt_c = lib.optim.SGD([centers], lr=0.5)
    x = lib.randn(8, 5, dtype=dt)
    labels = lib.tensor([0, 1, 2, 3, 0, 1, 2, 0])
    for step in range(3):
        feat = net(x)
        bs = feat.size(0)
        distmat = (
            lib.pow(feat, 2).sum(dim=1, keepdim=True).expand(bs, num_classes)
            + lib.pow(centers, 2).sum(dim=1, keepdim=True).expand(num_classes, bs).t()
        )
        distmat.addmm_(feat, centers.t(), beta=1, alpha=-2)
        classes = lib.arange(num_classes).long()
        mask = labels.unsqueeze(1).expand(bs, num_classes).eq(classes.expand(bs, num_classes))
        dist = distmat * mask.float().to(dt)
        closs = dist.clamp(min=1e-12, max=1e12).sum() / bs
        loss = F.cross_entropy(fc(feat), labels) + 0.1 * closs
        opt.zero_grad()
        opt_c.zero_grad()
        loss.backward()
        for param in centers.parameters() if hasattr(centers, "parameters") else [centers]:
            param.grad.data *= 1.0 / 0.1
        opt.step()
        opt_c.step()
        # the manual update with index_add_
        with lib.no_grad():
            diff = lib.zeros(num_classes, feat_dim, dtype=dt)
            diff.index_add_(0, labels, centers[labels] - feat)
            counts = lib.bincount(labels, minlength=num_classes).to(dt).unsqueeze(1)
            delta = diff / (1 + counts)
            centers.sub_(0.5 * delta)
        rec(f"distmat{step}", distmat)
        rec(f"closs{step}", closs)
        rec(f"delta{step}", delta)
    rec("centers", centers)
    rec.params("net", net, grads=True)


# --- utilities ---


def p_lars(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(16)

    class LARS(lib.optim.Optimizer):
        def __init__(self, params, lr=0, weight_decay=0, momentum=0.9, eta=0.001,
                     weight_decay_filter=None, lars_adaptation_filter=None):  # fmt: skip
            defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, eta=eta,
                            weight_decay_filter=weight_decay_filter,
                            lars_adaptation_filter=lars_adaptation_filter)  # fmt: skip
            super().__init__(params, defaults)

        @lib.no_grad()
        def step(self):
            for g in self.param_groups:
                for p in g["params"]:
                    dp = p.grad
                    if dp is None:
                        continue
                    if g["weight_decay_filter"] is None or not g["weight_decay_filter"](p):
                        dp = dp.add(p, alpha=g["weight_decay"])
                    if g["lars_adaptation_filter"] is None or not g["lars_adaptation_filter"](p):
                        param_norm = lib.norm(p)
                        update_norm = lib.norm(dp)
                        one = lib.ones_like(param_norm)
                        q = lib.where(
                            param_norm > 0.0,
                            lib.where(update_norm > 0, (g["eta"] * param_norm / update_norm), one),
                            one,
                        )
                        dp = dp.mul(q)
                    param_state = self.state[p]
                    if "mu" not in param_state:
                        param_state["mu"] = lib.zeros_like(p)
                    mu = param_state["mu"]
                    mu.mul_(g["momentum"]).add_(dp)
                    p.add_(mu, alpha=-g["lr"])

    def exclude_bias_and_norm(p):
        return p.ndim == 1

    model = _mlp(lib, dt, 5, 6, 3)
    opt = LARS(model.parameters(), lr=0.2, weight_decay=1e-6,
               weight_decay_filter=exclude_bias_and_norm,
               lars_adaptation_filter=exclude_bias_and_norm)  # fmt: skip
    warmup, total = 2, 6

    def lr_lambda(step):
        if step < warmup:
            return float(step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    sched = lib.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    x = lib.randn(8, 5, dtype=dt)
    y = lib.randint(0, 3, (8,))
    for step in range(total):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"lr{step}", sched.get_last_lr()[0])
    rec.params("m", model)
    rec("mu0", opt.state[model[0].weight]["mu"])
    rec("sd_keys", str(sorted(opt.state_dict()["param_groups"][0].keys())))
    rec("sched_sd", str(sorted(sched.state_dict().keys())))
    rec("last_epoch", sched.last_epoch)


def p_knn(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(17)
    n_bank, n_test, d, classes, k, t = 20, 6, 4, 3, 5, 0.1
    bank = F.normalize(lib.randn(n_bank, d, dtype=dt), dim=1).t().contiguous()
    bank_labels = lib.randint(0, classes, (n_bank,))
    feature = F.normalize(lib.randn(n_test, d, dtype=dt), dim=1)
    sim_matrix = lib.mm(feature, bank)
    sim_weight, sim_indices = sim_matrix.topk(k=k, dim=-1)
    sim_labels = lib.gather(bank_labels.expand(feature.size(0), -1), dim=-1, index=sim_indices)
    sim_weight = (sim_weight / t).exp()
    one_hot_label = lib.zeros(feature.size(0) * k, classes, dtype=dt)
    one_hot_label = one_hot_label.scatter(dim=-1, index=sim_labels.view(-1, 1), value=1.0)
    pred_scores = lib.sum(
        one_hot_label.view(feature.size(0), -1, classes) * sim_weight.unsqueeze(dim=-1), dim=1
    )
    pred_labels = pred_scores.argsort(dim=-1, descending=True)
    rec("sim_w", sim_weight)
    rec("sim_idx", sim_indices)
    rec("sim_labels", sim_labels)
    rec("scores", pred_scores)
    rec("pred", pred_labels)
    votes = lib.zeros(n_test, classes, dtype=dt).scatter_add_(1, sim_labels, sim_weight)
    rec("votes", votes)
    votes2 = lib.zeros(n_test, classes, dtype=dt).scatter_reduce(
        1, sim_labels, sim_weight, reduce="amax", include_self=False
    )
    rec("votes_amax", votes2)
    test_labels = lib.randint(0, classes, (n_test,))
    top1 = (pred_labels[:, :1] == test_labels.unsqueeze(-1)).any(dim=-1).float().sum().item()
    rec("top1", top1)
    rec("mode", lib.mode(sim_labels, dim=1).values)
    # feature bank kept as a ring buffer of normalized features
    fb = lib.zeros(8, d, dtype=dt)
    ptr = 0
    for _ in range(3):
        f = F.normalize(lib.randn(3, d, dtype=dt), dim=1)
        idx = lib.arange(ptr, ptr + 3) % 8
        fb[idx] = f
        ptr = (ptr + 3) % 8
    rec("fb", fb)
    rec("fb_norms", fb.norm(dim=1))
    rec("self_sim", (fb @ fb.T).diagonal())


def p_linear_probe(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(18)
    backbone = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5)).to(dt)
    backbone.requires_grad_(False)
    backbone.eval()
    probe = nn.Linear(8, 3).to(dt)
    probe.weight.data.normal_(mean=0.0, std=0.01)
    probe.bias.data.zero_()
    opt = lib.optim.SGD(probe.parameters(), lr=0.5, momentum=0.9, nesterov=True)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-3)
    x = lib.randn(12, 5, dtype=dt)
    y = lib.randint(0, 3, (12,))
    for epoch in range(4):
        with lib.no_grad():
            feats = backbone(x)
        out = probe(feats)
        loss = F.cross_entropy(out, y, label_smoothing=0.1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        rec(f"loss{epoch}", loss)
        rec(f"lr{epoch}", opt.param_groups[0]["lr"])
        _, pred = out.topk(2, 1, True, True)
        correct = pred.t().eq(y.view(1, -1).expand_as(pred.t()))
        rec(f"acc{epoch}", correct[:1].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / 12))
    rec("feats_req", str(feats.requires_grad))
    rec("bb_grads", str([p.grad for p in backbone.parameters()]))
    rec("bb_training", str([m.training for m in backbone.modules()]))
    rec("bn_nbt", backbone[1].num_batches_tracked)
    rec.params("probe", probe, grads=True)
    # train() on the probe, keep backbone BN frozen
    backbone.train()
    for m in backbone.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.eval()
    rec("bb_training2", str([m.training for m in backbone.modules()]))
    out = backbone(x)
    rec("bn_nbt2", backbone[1].num_batches_tracked)
    rec("out_req", str(out.requires_grad))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(19)
    a = lib.randn(4, 3, dtype=dt)
    rec.err("diag_add_leaf", lambda: lib.diagonal(a.clone().requires_grad_()).add_(-1))
    rec.err("cdist_dim", lambda: lib.cdist(a, lib.randn(4, 2, dtype=dt)))
    rec.err("view_flat", lambda: a.t().flatten()[:-1].view(2, 5))
    rec.err("view_noncontig", lambda: a.t().view(12))
    rec.err("masked_fill_dtype", lambda: a.masked_fill(a > 0, lib.tensor([1.0, 2.0])))
    rec.err("ce_target_float", lambda: F.cross_entropy(a, lib.zeros(4)))
    half = lib.ones(1, dtype=lib.float16)
    rec.err("index_add_dtype", lambda: lib.zeros(3, dtype=dt).index_add_(0, lib.tensor([0]), half))
    rec.err("scatter_idx_dtype", lambda: lib.zeros(3, 3).scatter_(1, lib.zeros(3, 1), 1))
    rec.err("topk_big", lambda: a.topk(5, dim=1))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([-1, 0])))
    rec.err("normalize_int", lambda: F.normalize(lib.tensor([[1, 2]])))
    rec.err("foreach_mul_len", lambda: lib._foreach_mul_([a.clone()], [1.0, 2.0]))
    net = lib.nn.Linear(3, 2).to(dt)
    rec.err("foreach_mul_gen", lambda: lib._foreach_mul_(net.parameters(), 0.9))
    rec.err("foreach_add_gen", lambda: lib._foreach_add_([a], net.parameters(), alpha=0.1))
    rec.err("foreach_lerp_gen", lambda: lib._foreach_lerp_(net.parameters(), [a, a], 0.1))
    rec.err("foreach_mixed", lambda: lib._foreach_add_([a.clone(), 1.0], 2.0))
    rec.err("foreach_norm_t", lambda: lib._foreach_norm(a))
    rec.err("foreach_copy_gen", lambda: lib._foreach_copy_([a.clone()], net.parameters()))
    w = lib.nn.Parameter(a.clone())
    rec.err("param_inplace", lambda: w.mul_(2))
    rec.err("clamp_data", lambda: w.data.clamp_(0, 1))
    rec("w_after", w)
    rec.err("acos_int", lambda: lib.acos(lib.tensor([1, 0])))
    rec("acos_int_val", lib.acos(lib.tensor([1, 0])))
    rec.err("eq_bcast", lambda: lib.tensor([1, 2, 3])[:, None].eq(lib.tensor([1, 2])[None, :]))
    rec.err("logsumexp_empty", lambda: lib.logsumexp(lib.zeros(0, 3, dtype=dt), dim=0))
    rec("lse_empty", lib.logsumexp(lib.zeros(0, 3, dtype=dt), dim=0))
    rec("masked_max_allinf", a.masked_fill(lib.ones(4, 3, dtype=lib.bool), float("-inf")).max(1)[0])
    rec(
        "ce_ninf_row",
        F.cross_entropy(lib.tensor([[float("-inf"), 0.0]], dtype=dt), lib.tensor([1])),
    )
    rec("argsort_stable", lib.argsort(lib.tensor([1.0, 0.0, 1.0, 0.0]), stable=True))


def p_mocov3(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(20)
    patch, dim = 2, 8

    def sincos(h, w, temperature=10000.0):
        gw = lib.arange(w, dtype=dt)
        gh = lib.arange(h, dtype=dt)
        gw, gh = lib.meshgrid(gw, gh, indexing="ij")
        pos_dim = dim // 4
        omega = lib.arange(pos_dim, dtype=dt) / pos_dim
        omega = 1.0 / (temperature**omega)
        out_w = lib.einsum("m,d->md", [gw.flatten(), omega])
        out_h = lib.einsum("m,d->md", [gh.flatten(), omega])
        pe = lib.cat([lib.sin(out_w), lib.cos(out_w), lib.sin(out_h), lib.cos(out_h)], dim=1)[None]
        pe_token = lib.zeros([1, 1, dim], dtype=dt)
        p = nn.Parameter(lib.cat([pe_token, pe], dim=1))
        p.requires_grad = False
        return p

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Conv2d(3, dim, patch, patch)
            val = math.sqrt(6.0 / float(3 * patch * patch + dim))
            nn.init.uniform_(self.proj.weight, -val, val)
            nn.init.zeros_(self.proj.bias)
            self.cls_token = nn.Parameter(lib.zeros(1, 1, dim))
            nn.init.normal_(self.cls_token, std=1e-6)
            self.pos_embed = sincos(2, 2)
            self.blocks = nn.TransformerEncoderLayer(
                dim, 2, 16, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
            )
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Sequential(nn.Linear(dim, 6), nn.BatchNorm1d(6, affine=False))

        def forward(self, x):
            x = self.proj(x).flatten(2).transpose(1, 2)
            x = lib.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
            return self.head(self.norm(self.blocks(x))[:, 0])

    base = ViT().to(dt)
    import copy

    momentum = copy.deepcopy(base)
    for p in momentum.parameters():
        p.requires_grad = False
    predictor = _mlp(lib, dt, 6, 8, 6)
    T = 0.2
    # SGD: biases before a BatchNorm or a softmax get exactly-zero gradients that AdamW blows up
    opt = lib.optim.SGD(list(base.parameters()) + list(predictor.parameters()), lr=0.05)

    def contrastive_loss(q, k):
        q = F.normalize(q, dim=1)
        k = F.normalize(k, dim=1)
        logits = lib.einsum("nc,mc->nm", [q, k]) / T
        labels = lib.arange(logits.shape[0], dtype=lib.long)
        return F.cross_entropy(logits, labels) * (2 * T)

    x = lib.randn(4, 3, 4, 4, dtype=dt)
    epochs = 3
    for epoch in range(epochs):
        m = 1.0 - 0.5 * (1.0 + math.cos(math.pi * epoch / epochs)) * (1.0 - 0.99)
        x1, x2 = _augment(lib, x), _augment(lib, x)
        q1, q2 = predictor(base(x1)), predictor(base(x2))
        with lib.no_grad():
            for pb, pm in zip(base.parameters(), momentum.parameters(), strict=True):
                pm.data = pm.data * m + pb.data * (1.0 - m)
            k1, k2 = momentum(x1), momentum(x2)
        loss = contrastive_loss(q1, k2) + contrastive_loss(q2, k1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{epoch}", loss)
        rec(f"k1_{epoch}", k1)
    rec("pos_embed", base.pos_embed)
    rec("pos_req", str(base.pos_embed.requires_grad))
    rec("n_params", str(sum(p.numel() for p in base.parameters() if p.requires_grad)))
    # biases before the BatchNorm get gradients that are zero up to rounding: not compared
    for n, p in base.named_parameters():
        if n not in ("norm.bias", "head.0.bias"):
            rec("base." + n, p)
    rec.params("blocks", base.blocks, grads=True)


def p_multicrop(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(21)

    class Wrapper(nn.Module):
        def __init__(self, backbone, head):
            super().__init__()
            backbone.fc = nn.Identity()
            self.backbone, self.head = backbone, head

        def forward(self, x):
            if not isinstance(x, list):
                x = [x]
            counts = lib.unique_consecutive(
                lib.tensor([inp.shape[-1] for inp in x]), return_counts=True
            )[1]
            idx_crops = lib.cumsum(counts, 0)
            start_idx, output = 0, lib.empty(0).to(x[0].device)
            for end_idx in idx_crops:
                _out = self.backbone(lib.cat(x[start_idx:end_idx]))
                output = lib.cat((output, _out))
                start_idx = end_idx
            return self.head(output)

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(4, 10)

        def forward(self, x):
            return self.fc(self.pool(F.relu(self.conv(x))).flatten(1))

    class DINOLoss(nn.Module):
        def __init__(self, out_dim, ncrops):
            super().__init__()
            self.ncrops = ncrops
            self.register_buffer("center", lib.zeros(1, out_dim))
            self.temps = [0.04, 0.055, 0.07]

        def forward(self, student_output, teacher_output, epoch):
            student_out = (student_output / 0.1).chunk(self.ncrops)
            temp = self.temps[epoch]
            teacher_out = F.softmax((teacher_output - self.center) / temp, dim=-1)
            teacher_out = teacher_out.detach().chunk(2)
            total_loss, n_loss_terms = 0, 0
            for iq, q in enumerate(teacher_out):
                for v in range(len(student_out)):
                    if v == iq:
                        continue
                    loss = lib.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1)
                    total_loss += loss.mean()
                    n_loss_terms += 1
            total_loss /= n_loss_terms
            self.update_center(teacher_output)
            return total_loss

        @lib.no_grad()
        def update_center(self, teacher_output):
            batch_center = lib.sum(teacher_output, dim=0, keepdim=True) / len(teacher_output)
            self.center = self.center * 0.9 + batch_center * (1 - 0.9)

    student = Wrapper(Backbone(), nn.Linear(4, 5)).to(dt)
    teacher = Wrapper(Backbone(), nn.Linear(4, 5)).to(dt)
    teacher.load_state_dict(student.state_dict())
    teacher.requires_grad_(False)
    crit = DINOLoss(5, 4).to(dt)
    opt = lib.optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
    img = lib.randn(3, 2, 8, 8, dtype=dt)
    for epoch in range(3):
        crops = [_augment(lib, img) for _ in range(2)]
        crops += [F.interpolate(_augment(lib, img), size=4, mode="bilinear") for _ in range(2)]
        t_out = teacher(crops[:2])
        s_out = student(crops)
        loss = crit(s_out, t_out, epoch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"s_out{epoch}", s_out)
        rec(f"loss{epoch}", loss)
        rec(f"center{epoch}", crit.center)
    rec("center_is_buffer", str([n for n, _ in crit.named_buffers()]))
    rec("fc", repr(student.backbone.fc))
    rec.params("student", student, grads=True)


def p_npid_bank(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(22)
    n_data, d, K, T, m = 12, 4, 5, 0.07, 0.5
    stdv = 1.0 / math.sqrt(d / 3)
    memory = lib.rand(n_data, d, dtype=dt).mul_(2 * stdv).add_(-stdv)
    net = nn.Linear(6, d).to(dt)
    opt = lib.optim.SGD(net.parameters(), lr=0.03, momentum=0.9, weight_decay=5e-4)
    data = lib.randn(n_data, 6, dtype=dt)
    Z = None
    for step in range(3):
        idx = lib.randperm(n_data)[:4]
        x = F.normalize(net(data[idx]), dim=1)
        neg = lib.multinomial(lib.ones(n_data), 4 * (K + 1), replacement=True).view(4, K + 1)
        neg.select(1, 0).copy_(idx)
        w = lib.index_select(memory, 0, neg.view(-1)).view(4, K + 1, d)
        out = lib.bmm(w, x.view(4, d, 1)).squeeze(-1)
        out = lib.div(out, T).exp_()
        if Z is None:
            Z = (out.mean() * n_data).item()
        out = lib.div(out, Z)
        Pmt = out.select(1, 0)
        Pon_div = out.add(K / n_data + 1e-7)
        lnPmt = lib.div(Pmt, Pon_div[:, 0])
        Pon = 0 * out[:, 1:] + K / n_data
        lnPon = lib.div(Pon, Pon_div[:, 1:])
        loss = -(lnPmt.log().sum(0) + lnPon.log().sum()) / 4
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            pos = lib.index_select(memory, 0, idx.view(-1))
            pos.mul_(m).add_(lib.mul(x.detach(), 1 - m))
            pos = pos.div(pos.pow(2).sum(1, keepdim=True).pow(0.5))
            memory.index_copy_(0, idx, pos)
        rec(f"neg{step}", neg)
        rec(f"out{step}", out)
        rec(f"loss{step}", loss)
    rec("Z", Z)
    rec("memory", memory)
    rec.params("net", net, grads=True)


def p_swav_queue(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(23)
    bs, d, nproto, qlen = 4, 3, 5, 8
    proj = nn.Linear(6, d).to(dt)
    prototypes = nn.Linear(d, nproto, bias=False).to(dt)
    queue = lib.zeros(2, qlen, d, dtype=dt)
    opt = lib.optim.SGD([*proj.parameters(), *prototypes.parameters()], lr=0.1)
    x = lib.randn(bs, 6, dtype=dt)

    @lib.no_grad()
    def distributed_sinkhorn(out):
        Q = lib.exp(out / 0.05).t()
        B, K = Q.shape[1], Q.shape[0]
        Q /= lib.sum(Q)
        for _ in range(3):
            Q /= lib.sum(Q, dim=1, keepdim=True)
            Q /= K
            Q /= lib.sum(Q, dim=0, keepdim=True)
            Q /= B
        Q *= B
        return Q.t()

    for step in range(3):
        emb = F.normalize(proj(lib.cat([_augment(lib, x), _augment(lib, x)])), dim=1, p=2)
        output = prototypes(emb)
        embedding = emb.detach()
        loss = 0
        use_the_queue = step > 0
        for i, crop_id in enumerate([0, 1]):
            with lib.no_grad():
                out = output[bs * crop_id : bs * (crop_id + 1)].detach()
                if use_the_queue:
                    out = lib.cat((lib.mm(queue[i], prototypes.weight.t()), out))
                queue[i, bs:] = queue[i, :-bs].clone()
                queue[i, :bs] = embedding[crop_id * bs : (crop_id + 1) * bs]
                q = distributed_sinkhorn(out)[-bs:]
            subloss = 0
            for v in [1 - crop_id]:
                xx = output[bs * v : bs * (v + 1)] / 0.1
                subloss -= lib.mean(lib.sum(q * F.log_softmax(xx, dim=1), dim=1))
            loss += subloss
        loss /= 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            w = prototypes.weight.data.clone()
            w = F.normalize(w, dim=1, p=2)
            prototypes.weight.copy_(w)
        rec(f"loss{step}", loss)
        rec(f"queue{step}", queue)
    rec.params("proto", prototypes, grads=True)
