"""Session 25: interpretability and adversarial-robustness programs (saliency, SmoothGrad,
integrated gradients, Grad-CAM with module hooks, the deprecated non-full backward hook and its
FutureWarnings, ReLU(inplace=True) under full backward hooks, guided backprop, FGSM/PGD/targeted
attacks, Carlini-Wagner, feature visualisation, activation patching with kwargs hooks,
MultiheadAttention weights, layer-wise relevance propagation, CKA, model surgery and global
hooks, hook call orders, a torchviz-style walk of grad_fn with its _saved_ attributes), each
written once against a `torch`-like module and run under torch and minitorch after the same
manual_seed. Every recorded value (maps, adversarial examples, losses, hook call logs, warnings,
exception types and messages) must agree: float64 to 1e-11 of its scale, float32 to 1e-4."""

from __future__ import annotations

import copy
import importlib

import pytest

import minitorch
from tests.reference._programs import assert_records_match, run_program

torch = pytest.importorskip("torch")


def _kept(w):
    # NumPy's RuntimeWarnings (log(0) and such) are filtered by minitorch's own filter, which
    # recording every warning replaces; torch.func's import warns about torch.jit.script
    return not issubclass(w.category, RuntimeWarning) and "jit.script" not in str(w.message)


def shp(gs):
    return [None if g is None else tuple(g.shape) for g in gs]


def cnn(lib, dt, inplace=False):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(inplace=inplace),
        nn.Conv2d(4, 6, 3, padding=1),
        nn.ReLU(inplace=inplace),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(6, 3),
    ).to(dt)


PROGRAMS = [
    "saliency", "smoothgrad", "integrated_gradients", "gradcam", "old_backward_hook",
    "nonfull_warnings", "inplace_relu_full_hook", "guided_backprop", "fgsm_pgd",
    "carlini_wagner", "feature_vis", "patching", "mha_weights", "lrp", "cka", "surgery",
    "hook_orders", "graph_walk",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, dt, keep_warnings=_kept)
    got = run_program(prog, minitorch, dt, keep_warnings=_kept)
    assert_records_match(want, got, 1e-11 if dt == "float64" else 1e-4)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_saliency(lib, dt, rec):
    lib.manual_seed(0)
    m = cnn(lib, dt)
    m.eval()
    x = lib.rand(4, 1, 6, 6, dtype=dt)
    y = lib.tensor([0, 1, 2, 1])
    x.requires_grad_()
    out = m(x)
    out[range(4), y].sum().backward()
    sal = x.grad.abs().amax(dim=1)
    rec("sal", sal)
    rec("argmax", sal.flatten(1).argmax(1))
    # gradient x input
    rec("gxi", (x.grad * x).sum(dim=(1, 2, 3)))
    # second call accumulates
    x.grad = None
    out = m(x)
    lib.autograd.backward(out.gather(1, y[:, None]).sum())
    rec("sal2", x.grad.abs().max(dim=1)[0])
    rec("sal2i", x.grad.abs().max(dim=1).indices)
    (g,) = lib.autograd.grad(m(x)[:, 0].sum(), x)
    rec("g", g)
    rec("norm", lib.linalg.vector_norm(g.flatten(1), dim=1))
    rec("norm_", g.flatten(1).norm(p=2, dim=1, keepdim=True))


def p_smoothgrad(lib, dt, rec):
    lib.manual_seed(1)
    m = cnn(lib, dt)
    x = lib.rand(2, 1, 6, 6, dtype=dt)
    tgt = lib.tensor([2, 0])
    total = lib.zeros_like(x)
    sigma = 0.15 * (x.max() - x.min())
    for _ in range(5):
        noisy = (x + lib.randn_like(x) * sigma).requires_grad_(True)
        score = m(noisy).gather(1, tgt.unsqueeze(1)).squeeze(1)
        grads = lib.autograd.grad(score.sum(), noisy)[0]
        total += grads
        total.add_(grads**2, alpha=0.1)
    sm = total / 5
    rec("sg", sm)
    v = sm.abs().sum(1)
    lo = v.flatten(1).quantile(0.05, dim=1)[:, None, None]
    hi = v.flatten(1).quantile(0.95, dim=1)[:, None, None]
    rec("norm", ((v - lo) / (hi - lo)).clamp(0, 1))
    rec("noise_tail", lib.normal(0.0, sigma.item(), size=(3,)))
    rec("noise2", lib.empty(4, dtype=dt).normal_(0, 0.1))


def p_integrated_gradients(lib, dt, rec):
    lib.manual_seed(2)
    m = cnn(lib, dt)
    x = lib.rand(1, 1, 6, 6, dtype=dt)
    base = lib.zeros_like(x)
    steps = 9
    alphas = lib.linspace(0, 1, steps, dtype=dt).view(-1, 1, 1, 1)
    path = base + alphas * (x - base)
    path.requires_grad_(True)
    out = m(path)
    probs = lib.softmax(out, dim=-1)[:, 1]
    (grads,) = lib.autograd.grad(probs.sum(), path)
    avg = lib.trapezoid(grads, dx=1.0 / (steps - 1), dim=0)
    ig = (x - base)[0] * avg
    rec("ig", ig)
    rec("avg_riemann", ((grads[:-1] + grads[1:]) / 2).mean(dim=0))
    rec("complete", ig.sum() - (probs[-1] - probs[0]))
    rec("cumtrapz", lib.cumulative_trapezoid(probs, dx=0.125))
    rec("trapz_x", lib.trapezoid(probs, x=alphas.flatten()))
    rec("lsp", lib.linspace(0.0, 1.0, steps=5))
    rec("lsp_t", lib.linspace(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt), 4))


def p_gradcam(lib, dt, rec):
    lib.manual_seed(3)
    m = cnn(lib, dt)
    acts, grads, calls = {}, {}, []
    layer = m[2]

    def fwd_hook(mod, inp, out):
        calls.append(("fwd", type(mod).__name__, type(inp).__name__, len(inp), tuple(out.shape)))
        acts["a"] = out.detach()

    def bwd_hook(mod, gin, gout):
        calls.append(
            (
                "bwd",
                type(gin).__name__,
                [None if g is None else tuple(g.shape) for g in gin],
                [None if g is None else tuple(g.shape) for g in gout],
            )
        )
        grads["g"] = gout[0].detach()

    h1 = layer.register_forward_hook(fwd_hook)
    h2 = layer.register_full_backward_hook(bwd_hook)
    x = lib.rand(2, 1, 6, 6, dtype=dt)
    out = m(x)
    cls = out.argmax(dim=1)
    rec("cls", cls)
    m.zero_grad()
    one_hot = lib.zeros_like(out).scatter_(1, cls[:, None], 1.0)
    out.backward(gradient=one_hot)
    w = grads["g"].mean(dim=(2, 3), keepdim=True)
    cam = lib.relu((w * acts["a"]).sum(1, keepdim=True))
    cam = lib.nn.functional.interpolate(cam, size=(12, 12), mode="bilinear", align_corners=False)
    cam = cam - cam.amin(dim=(2, 3), keepdim=True)
    cam = cam / (cam.amax(dim=(2, 3), keepdim=True) + 1e-8)
    rec("cam", cam)
    rec("calls", str(calls))
    h1.remove()
    h2.remove()
    h2.remove()
    m(x).sum().backward()
    rec("calls_after", len(calls))
    rec("hooks", str((len(layer._forward_hooks), len(layer._backward_hooks))))
    rec("id", str(type(h1.id)))


def p_old_backward_hook(lib, dt, rec):
    lib.manual_seed(4)
    m = cnn(lib, dt)
    seen = []

    def hook(mod, gin, gout):
        seen.append(
            (
                [None if g is None else tuple(g.shape) for g in gin],
                [None if g is None else tuple(g.shape) for g in gout],
            )
        )

    h = rec.warns("reg", lambda: m[6].register_backward_hook(hook))
    x = lib.rand(3, 1, 6, 6, dtype=dt, requires_grad=True)
    rec.warns("bw", lambda: m(x).sum().backward())
    rec("seen", str(seen))
    h.remove()
    # on a container (multi-op module) -> warning?
    seen.clear()
    h = m.register_backward_hook(hook)
    rec.warns("bw2", lambda: m(x).sum().backward())
    rec("seen2", str(seen))
    h.remove()
    # mixing full and non-full
    m[0].register_full_backward_hook(hook)
    rec.err("mix", lambda: m[0].register_backward_hook(hook))


def p_nonfull_warnings(lib, dt, rec):
    lib.manual_seed(18)
    nn = lib.nn

    def hook(md, gi, go):
        return None

    class TupOut(nn.Module):
        def forward(self, x):
            return x * 2, x + 1

    class DictOut(nn.Module):
        def forward(self, x):
            return {"a": x * 2}

    class NestIn(nn.Module):
        def forward(self, xs):
            return xs[0] * 2

    cases = [
        ("linear", nn.Linear(3, 3), lambda: lib.randn(2, 3, dtype=dt)),
        ("linear_rg", nn.Linear(3, 3), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True)),
        ("relu_leaf", nn.ReLU(), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True)),
        ("relu_nonleaf", nn.ReLU(), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True) * 1),
        ("tanh_nonleaf", nn.Tanh(), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True) * 1),
        (
            "seq",
            nn.Sequential(nn.Tanh(), nn.Tanh()),
            lambda: lib.randn(2, 3, dtype=dt, requires_grad=True) * 1,
        ),
        ("tup", TupOut(), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True) * 1),
        ("dict", DictOut(), lambda: lib.randn(2, 3, dtype=dt, requires_grad=True) * 1),
        ("nest", NestIn(), lambda: [lib.randn(2, 3, dtype=dt, requires_grad=True) * 1]),
        ("noreq", nn.ReLU(), lambda: lib.randn(2, 3, dtype=dt)),
    ]
    for name, mod, mk in cases:
        mod = mod.to(dt)
        mod.register_backward_hook(hook)
        rec.warns(name, lambda mod=mod, mk=mk: mod(mk()))
        rec.warns(name + "2", lambda mod=mod, mk=mk: mod(mk()))


def p_inplace_relu_full_hook(lib, dt, rec):
    lib.manual_seed(5)
    nn = lib.nn
    m = cnn(lib, dt, inplace=True)
    m[1].register_full_backward_hook(lambda mod, gi, go: None)
    x = lib.rand(2, 1, 6, 6, dtype=dt, requires_grad=True)
    rec.err("fwd", lambda: m(x))
    m2 = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True)).to(dt)
    m2.register_full_backward_hook(lambda mod, gi, go: None)
    rec.err("seq", lambda: m2(lib.rand(2, 3, dtype=dt)).sum().backward())
    m3 = nn.ReLU(inplace=True)
    m3.register_full_backward_hook(lambda mod, gi, go: None)
    rec.err("leaf", lambda: m3(lib.rand(2, 3, dtype=dt, requires_grad=True)))
    z = lib.rand(2, 3, dtype=dt, requires_grad=True) * 1
    rec.err("nonleaf", lambda: m3(z).sum().backward())
    m4 = nn.ReLU(inplace=True)
    m4.register_full_backward_pre_hook(lambda mod, go: None)
    z = lib.rand(2, 3, dtype=dt, requires_grad=True) * 1
    rec.err("pre", lambda: m4(z).sum().backward())


def p_guided_backprop(lib, dt, rec):
    lib.manual_seed(6)
    m = cnn(lib, dt)
    handles = []

    def relu_hook(mod, gin, gout):
        return (lib.clamp(gin[0], min=0.0),)

    for mod in m.modules():
        if isinstance(mod, lib.nn.ReLU):
            handles.append(mod.register_full_backward_hook(relu_hook))
    x = lib.rand(2, 1, 6, 6, dtype=dt, requires_grad=True)
    out = m(x)
    out[:, 1].sum().backward()
    rec("gb", x.grad)
    for h in handles:
        h.remove()
    x.grad.zero_()
    m(x)[:, 1].sum().backward()
    rec("plain", x.grad)

    # pre-hook variant modifying grad_output
    def pre(mod, gout):
        return (gout[0] * 2,)

    h = m[6].register_full_backward_pre_hook(pre)
    x.grad = None
    m(x)[:, 1].sum().backward()
    rec("pre", x.grad)
    h.remove()
    # tensor hook on activation
    store = []

    def fh(mod, i, o):
        o.register_hook(lambda g: store.append(g.clone()) or g.clamp(min=0))

    h = m[3].register_forward_hook(fh)
    x.grad = None
    m(x)[:, 1].sum().backward()
    rec("thook", x.grad)
    rec("store", store[0])
    h.remove()


def p_fgsm_pgd(lib, dt, rec):
    lib.manual_seed(7)
    F = lib.nn.functional
    m = cnn(lib, dt)
    m.eval()
    x = lib.rand(4, 1, 6, 6, dtype=dt)
    y = lib.tensor([0, 1, 2, 0])
    eps = 0.1
    xa = x.clone().detach().requires_grad_(True)
    loss = F.cross_entropy(m(xa), y)
    loss.backward()
    adv = (xa + eps * xa.grad.sign()).clamp(0, 1).detach()
    rec("fgsm", adv)
    alpha = 0.03
    xp = x + lib.empty_like(x).uniform_(-eps, eps)
    xp = lib.clamp(xp, 0, 1).detach()
    for _ in range(5):
        xp.requires_grad_(True)
        loss = F.cross_entropy(m(xp), y, reduction="sum")
        (g,) = lib.autograd.grad(loss, [xp])
        xp = xp.detach() + alpha * g.sign()
        xp = lib.max(lib.min(xp, x + eps), x - eps)
        xp = lib.clamp(xp, min=0, max=1).detach()
        rec("pgd_loss", loss)
    rec("pgd", xp)
    # targeted + L2 step
    t = lib.tensor([1, 2, 0, 1])
    xt = x.clone().requires_grad_()
    for _ in range(3):
        loss = F.nll_loss(F.log_softmax(m(xt), 1), t)
        gr = lib.autograd.grad(loss, xt)[0]
        gn = gr.view(gr.size(0), -1).norm(dim=1).view(-1, 1, 1, 1) + 1e-12
        with lib.no_grad():
            xt = xt - 0.2 * gr / gn
            d = xt - x
            dn = d.flatten(1).norm(p=2, dim=1).clamp_min(1e-12)
            factor = lib.minimum(lib.ones_like(dn), 0.5 / dn).view(-1, 1, 1, 1)
            xt = (x + d * factor).clamp_(0.0, 1.0)
        xt.requires_grad_()
    rec("tgt", xt)
    with lib.no_grad():
        pred = m(xt).argmax(1)
        rec("pred", pred)
        rec("acc", (pred == t).float().mean())
        rec("acc2", pred.eq(t).sum().item() / len(t))
    rec("reqgrad", str(m(xt).requires_grad))


def p_carlini_wagner(lib, dt, rec):
    lib.manual_seed(8)
    nn, F = lib.nn, lib.nn.functional
    m = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).to(dt)
    for p in m.parameters():
        p.requires_grad_(False)
    x = lib.rand(3, 5, dtype=dt) * 0.9 + 0.05
    t = lib.tensor([2, 0, 1])
    w = lib.atanh(x * 2 - 1).clone().requires_grad_(True)
    w0 = w.detach().clone()
    opt = lib.optim.Adam([w], lr=0.05)
    c = 1.0
    for _ in range(6):
        adv = 0.5 * (lib.tanh(w) + 1)
        logits = m(adv)
        real = logits.gather(1, t[:, None]).squeeze(1)
        onehot = F.one_hot(t, 3).to(dt)
        other = (logits - 1e4 * onehot).max(1)[0]
        f = lib.clamp(other - real, min=-0.1)
        l2 = ((adv - x) ** 2).sum(1)
        loss = (l2 + c * f).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("loss", loss)
    rec("w", w)
    rec("adv", 0.5 * (w.tanh() + 1))
    rec("dw", (w - w0).abs().max())
    rec("state", opt.state[w]["exp_avg_sq"])
    rec("pgrad", str([p.grad is None for p in m.parameters()]))
    rec("arctanh", lib.arctanh(lib.tensor([0.5, -0.999], dtype=dt)))


def p_feature_vis(lib, dt, rec):
    lib.manual_seed(9)
    m = cnn(lib, dt)
    m.requires_grad_(False)
    img = (lib.randn(1, 1, 8, 8, dtype=dt) * 0.01).requires_grad_()
    opt = lib.optim.SGD([img], lr=0.5, momentum=0.9)
    feats = {}
    h = m[3].register_forward_hook(lambda mod, i, o: feats.__setitem__("f", o))
    g = lib.Generator().manual_seed(1)
    for _ in range(5):
        ox, oy = lib.randint(-2, 3, (2,), generator=g).tolist()
        jit = lib.roll(img, shifts=(ox, oy), dims=(2, 3))
        m(jit)
        act = feats["f"][0, 2].mean()
        tv = (img[..., 1:, :] - img[..., :-1, :]).abs().sum() + (
            img[..., :, 1:] - img[..., :, :-1]
        ).pow(2).sum()
        loss = -act + 0.01 * tv + 1e-3 * img.norm()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            img.data.clamp_(-1, 1)
        rec("loss", loss)
        rec("shift", [ox, oy])
    rec("img", img)
    h.remove()
    rec("roll1", lib.roll(lib.arange(6).view(2, 3), 1))
    rec("roll2", lib.arange(6).view(2, 3).roll(-1, 1))


def p_patching(lib, dt, rec):
    lib.manual_seed(10)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(4, 6), nn.GELU(), nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 2)).to(
        dt
    )
    clean = lib.randn(3, 4, dtype=dt)
    corrupt = clean + 0.5 * lib.randn(3, 4, dtype=dt)
    cache = {}
    h = m[2].register_forward_hook(lambda mod, i, o: cache.__setitem__("c", o.detach().clone()))
    base = m(clean)
    h.remove()
    rec("base", base)

    def patch(mod, inp, out):
        out = out.clone()
        out[:, :3] = cache["c"][:, :3]
        return out

    h = m[2].register_forward_hook(patch)
    rec("patched", m(corrupt))
    h.remove()
    # pre-hook modifying input, returning single tensor vs tuple
    h = m[2].register_forward_pre_hook(lambda mod, inp: inp[0] * 0.5)
    rec("pre1", m(clean))
    h.remove()
    h = m[2].register_forward_pre_hook(lambda mod, inp: (inp[0] + 1,))
    rec("pre2", m(clean))
    h.remove()
    # with_kwargs hooks
    order = []

    def pre_kw(mod, args, kwargs):
        order.append(("prekw", len(args), sorted(kwargs)))
        if args:
            return (args[0] * 2,), kwargs
        return args, {"input": kwargs["input"] * 3}

    def fwd_kw(mod, args, kwargs, out):
        order.append(("fwdkw", len(args), sorted(kwargs), tuple(out.shape)))
        return out + 1

    h1 = m[4].register_forward_pre_hook(pre_kw, with_kwargs=True)
    h2 = m[4].register_forward_hook(fwd_kw, with_kwargs=True)
    h3 = m[4].register_forward_hook(lambda mod, i, o: order.append("plain"), prepend=True)
    h4 = m[4].register_forward_pre_hook(lambda mod, i: order.append("preplain"), prepend=True)
    rec("kw", m(clean))
    rec("kw_input", m[4](input=clean[:, :].new_ones(3, 6)))
    rec("order", str(order))
    for h in (h1, h2, h3, h4):
        h.remove()
    # steering vector via forward hook on a block + always_call
    steer = lib.ones(6, dtype=dt) * 0.3
    calls = []

    def raiser(mod, i, o):
        raise ValueError("boom")

    h = m[1].register_forward_hook(lambda mod, i, o: o + steer)
    h2 = m[1].register_forward_hook(lambda mod, i, o: calls.append("always"), always_call=True)
    rec("steer", m(clean))
    h3 = m[1].register_forward_pre_hook(lambda mod, i: raiser(mod, i, None))
    rec.err("raise", lambda: m(clean))
    rec("calls", str(calls))
    for x in (h, h2, h3):
        x.remove()


def p_mha_weights(lib, dt, rec):
    lib.manual_seed(11)
    nn = lib.nn
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    x = lib.randn(2, 5, 8, dtype=dt)
    mask = lib.triu(lib.ones(5, 5, dtype=lib.bool), diagonal=1)
    out, w = mha(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=mask)
    rec("out", out)
    rec("w", w)
    rec("wshape", list(w.shape))
    out2, w2 = mha(x, x, x)
    rec("w2", w2)
    kpm = lib.tensor([[False] * 5, [False, False, False, True, True]])
    out3, w3 = mha(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
    rec("w3", w3)
    out4, w4 = mha(x, x, x, need_weights=False)
    rec("w4", str(w4))
    mha.eval()
    with lib.no_grad():
        o5, w5 = mha(x, x, x, need_weights=True)
    rec("o5", o5)
    rec("w5", w5)
    # hook capturing attention from a TransformerEncoderLayer self_attn
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).to(dt)
    store = []
    orig = layer.self_attn.forward

    def fwd(*a, **k):
        k["need_weights"] = True
        k["average_attn_weights"] = False
        o = orig(*a, **k)
        store.append(o[1])
        return o

    layer.self_attn.forward = fwd
    layer.train()
    y = layer(x)
    rec("y", y)
    rec("attn", store[0])
    # hook on self_attn
    hs = []
    h = layer.self_attn.register_forward_hook(
        lambda mod, i, o: hs.append((len(i), type(o).__name__, o[1] is None))
    )
    layer(x)
    rec("hs", str(hs))
    h.remove()
    # entropy of attention, top-k attended positions
    ent = -(w * (w + 1e-12).log()).sum(-1)
    rec("ent", ent)
    rec("topk", w2.topk(2, dim=-1).indices)


def p_lrp(lib, dt, rec):
    lib.manual_seed(13)
    nn = lib.nn

    class LRPLinear(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, w, b, eps):
            z = a @ w.t() + b
            ctx.save_for_backward(a, w, z)
            ctx.eps = eps
            return z

        @staticmethod
        def backward(ctx, R):
            a, w, z = ctx.saved_tensors
            s = R / (z + ctx.eps * lib.where(z >= 0, 1.0, -1.0))
            c = s @ w
            return a * c, None, None, None

    lin1, lin2 = nn.Linear(6, 5).to(dt), nn.Linear(5, 3).to(dt)
    x = lib.rand(2, 6, dtype=dt, requires_grad=True)
    h = LRPLinear.apply(x, lin1.weight, lin1.bias, 1e-6).relu()
    out = LRPLinear.apply(h, lin2.weight, lin2.bias, 1e-6)
    mask = lib.zeros_like(out)
    mask[lib.arange(2), out.argmax(1)] = 1
    (out * mask).sum().backward()
    rec("R", x.grad)
    rec("cons", x.grad.sum(1))
    rec("gfn", type(out.grad_fn).__name__)
    rec("needs", str(LRPLinear.apply(x, lin1.weight, lin1.bias, 0.1).requires_grad))

    # once_differentiable + mark_non_differentiable
    class Sign(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            s = x.sign()
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            return s, idx

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g, gi):
            return g * 1.0

    s, i = Sign.apply(x)
    rec("idx_rg", str((s.requires_grad, i.requires_grad, i.dtype)))
    s.sum().backward()
    rec("xg", x.grad)
    # epsilon-rule via hooks: forward_hook multiplies
    y = lib.rand(2, 6, dtype=dt, requires_grad=True)
    z = lin1(y)
    z.register_hook(lambda g: g * (z.detach() != 0))
    lib.autograd.backward([z.sum()], inputs=[y])
    rec("yg", y.grad)
    rec("wg", str(lin1.weight.grad is None))


def p_cka(lib, dt, rec):
    lib.manual_seed(14)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4)).to(
        dt
    )
    feats = []
    hs = [
        mod.register_forward_hook(lambda mod, i, o: feats.append(o.detach()))
        for mod in m
        if isinstance(mod, nn.Linear)
    ]
    X = lib.randn(10, 6, dtype=dt)
    with lib.no_grad():
        m(X)
    for h in hs:
        h.remove()
    n = X.shape[0]
    H = lib.eye(n, dtype=dt) - lib.ones(n, n, dtype=dt) / n

    def cka(A, B):
        K, L = A @ A.T, B @ B.T
        Kc, Lc = H @ K @ H, H @ L @ H
        hsic = (Kc * Lc).sum()
        return hsic / (lib.linalg.norm(Kc, "fro") * lib.norm(Lc, p="fro"))

    M = lib.stack([lib.stack([cka(a, b) for b in feats]) for a in feats])
    rec("cka", M)

    def lin_cka(A, B):
        A = A - A.mean(0, keepdim=True)
        B = B - B.mean(0, keepdim=True)
        return lib.linalg.matrix_norm(B.T @ A) ** 2 / (
            lib.linalg.matrix_norm(A.T @ A) * lib.linalg.matrix_norm(B.T @ B)
        )

    rec("lin", lib.tensor([[lin_cka(a, b).item() for b in feats] for a in feats], dtype=dt))

    # RBF CKA with median heuristic
    def rbf(A):
        d = lib.cdist(A, A) ** 2
        s = d[d > 0].median()
        return lib.exp(-d / (2 * s))

    rec("rbf", (H @ rbf(feats[0]) @ H * (H @ rbf(feats[1]) @ H)).sum())
    rec("pdist", lib.pdist(feats[2]))
    rec("cos", nn.functional.cosine_similarity(feats[1][:, None], feats[1][None], dim=-1))


def p_surgery(lib, dt, rec):
    lib.manual_seed(15)
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 5), nn.ReLU())
            self.head = nn.Linear(5, 2)

        def forward(self, x):
            return self.head(self.body(x))

    m = Net().to(dt)
    x = lib.randn(3, 4, dtype=dt)
    log = []
    h = m.body[0].register_forward_hook(lambda mod, i, o: log.append(tuple(o.shape)))
    m2 = copy.deepcopy(m)
    m2(x)
    rec("deep_hooks", str((len(log), len(m2.body[0]._forward_hooks))))
    h.remove()
    rec("after_remove", str((len(m.body[0]._forward_hooks), len(m2.body[0]._forward_hooks))))
    for name, mod in list(m.named_modules()):
        if isinstance(mod, nn.ReLU):
            parent_name, _, child = name.rpartition(".")
            parent = m.get_submodule(parent_name) if parent_name else m
            setattr(parent, child, nn.LeakyReLU(0.1))
    rec("names", str([n for n, _ in m.named_modules()]))
    rec("repr", repr(m))
    rec("out", m(x))
    dict(m.named_modules())["body.0"].weight.data.mul_(0)
    rec("out0", m(x))
    m.body[2] = nn.Identity()
    rec("out_id", m(x))
    rec("children", str([type(c).__name__ for c in m.body.children()]))
    rec.err("getsub", lambda: m.get_submodule("body.9"))
    rec.err("getsub2", lambda: m.get_submodule("head.weight"))
    m.set_submodule("body.1", nn.Tanh())
    rec("set", repr(m.body))
    # global hooks
    mm = importlib.import_module(lib.__name__ + ".nn.modules.module")
    glog = []
    gh = mm.register_module_forward_hook(lambda mod, i, o: glog.append(type(mod).__name__))
    gp = mm.register_module_forward_pre_hook(
        lambda mod, i: glog.append("pre:" + type(mod).__name__)
    )
    m(x)
    gh.remove()
    gp.remove()
    m(x)
    rec("glog", str(glog))
    gb = mm.register_module_full_backward_hook(
        lambda mod, gi, go: glog.append("bw:" + type(mod).__name__)
    )
    m(x.requires_grad_()).sum().backward()
    gb.remove()
    rec("glog2", str(glog[-6:]))


def p_hook_orders(lib, dt, rec):
    lib.manual_seed(17)
    nn = lib.nn
    log = []

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 3)

        def forward(self, x, y, scale=1.0):
            return self.a(x) * scale, y * 2

    m = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3)).to(dt)
    two = Two().to(dt)
    for name, mod in list(m.named_children()) + [("two", two)]:
        mod.register_forward_pre_hook(lambda md, i, n=name: log.append(("pre", n, len(i))))
        mod.register_forward_hook(lambda md, i, o, n=name: log.append(("fwd", n)))
        mod.register_full_backward_pre_hook(lambda md, go, n=name: log.append(("bpre", n, shp(go))))
        mod.register_full_backward_hook(
            lambda md, gi, go, n=name: log.append(("bwd", n, shp(gi), shp(go)))
        )
    x = lib.randn(2, 3, dtype=dt)  # no grad: first layer grad_input None
    out = m(x)
    out.sum().backward()
    rec("log1", str(log))
    log.clear()
    xr = lib.randn(2, 3, dtype=dt, requires_grad=True)
    y = lib.randn(2, 3, dtype=dt)
    a, b = two(xr, y, scale=0.5)
    rec("b_rg", str(b.requires_grad))
    (a.sum() + 0 * b.sum()).backward()
    rec("log2", str(log))
    log.clear()
    y.requires_grad_()
    a, b = two(xr, y, 2.0)
    (a * b).sum().backward()
    rec("log3", str(log))
    log.clear()
    # only one output used
    a, b = two(xr, y)
    b.sum().backward()
    rec("log4", str(log))
    log.clear()
    # backward hook that replaces grad_input, on Sequential itself
    h = m.register_full_backward_hook(lambda md, gi, go: (gi[0] * 10,))
    xr.grad = None
    m(xr).sum().backward()
    rec("xg", xr.grad)
    rec("log5", str(log))
    log.clear()
    h.remove()
    # hook returning wrong count
    h = m[0].register_full_backward_hook(lambda md, gi, go: (gi[0], gi[0]))
    rec.err("badcount", lambda: m(xr).sum().backward())
    h.remove()
    h = m[0].register_full_backward_hook(lambda md, gi, go: (gi[0][:1],))
    rec.err("badshape", lambda: m(xr).sum().backward())
    h.remove()
    # forward hook on a module called twice
    cnt = []
    h = m[1].register_forward_hook(lambda md, i, o: cnt.append(o.shape[0]))
    m[1](m[1](xr))
    rec("cnt", cnt)
    rec("hook_repr", str(type(h).__name__))
    with h:
        pass
    m[1](xr)
    rec("cnt2", cnt)
    # state of module._forward_hooks dict types
    rec("dicttype", type(m[0]._forward_hooks).__name__)


def p_graph_walk(lib, dt, rec):
    lib.manual_seed(27)
    nn = lib.nn
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(dt)
    x = lib.randn(5, 3, dtype=dt, requires_grad=True)
    loss = nn.functional.cross_entropy(m(x), lib.tensor([0, 1, 0, 1, 1])) + (x**2).sum() * 0.1
    names, seen, stack = [], set(), [loss.grad_fn]
    params = {id(p): n for n, p in m.named_parameters()}
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        label = fn.name()
        if hasattr(fn, "variable"):
            label += ":" + params.get(id(fn.variable), "x" if fn.variable is x else "?")
        saved = sorted(a for a in dir(fn) if a.startswith("_saved_"))
        for a in saved:
            v = getattr(fn, a)
            if hasattr(v, "shape") and label in (
                "MulBackward0",
                "ReluBackward0",
                "PowBackward0",
                "LogSoftmaxBackward0",
            ):
                rec(label + a, v)
        if label not in ("MulBackward0", "ReluBackward0", "PowBackward0", "LogSoftmaxBackward0"):
            saved = None
        names.append((label, saved))
        for nxt, _ in fn.next_functions:
            stack.append(nxt)
    rec("graph", str(sorted(names)))
    # read a saved attribute value
    pw = (x**3).sum()
    rec("exp", str(pw.grad_fn.next_functions[0][0]._saved_exponent))
    rec("self", pw.grad_fn.next_functions[0][0]._saved_self)
    rec("meta", str(pw.grad_fn.next_functions[0][0].metadata))
    # grad_fn hooks
    calls = []
    fn = loss.grad_fn
    fn.register_prehook(lambda go: calls.append(("pre", shp(go))))
    fn.register_hook(lambda gi, go: calls.append(("post", shp(gi), shp(go))))
    loss.backward()
    rec("calls", str(calls))
    rec("xg", x.grad)
