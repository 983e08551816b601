"""Session 28 (helper xai): interpretability and explainability programs written the way Captum,
pytorch-grad-cam, TransformerLens and influence-function code is, run under torch and minitorch with
the same seeds and compared record by record: saliency and input x gradient, SmoothGrad with seeded
Generators, integrated gradients (linspace and Gauss-Legendre alphas, trapezoid rules, noise
tunnel), Grad-CAM / Grad-CAM++ / LayerCAM / XGrad-CAM / ScoreCAM / EigenCAM through forward hooks,
full backward hooks and tensor hooks on a BatchNorm ResNet, guided backprop and DeconvNet
(max_unpool, conv_transpose), occlusion by loops and by unfold/fold, attention rollout (own
attention, nn.MultiheadAttention and TransformerEncoder with need_weights), Chefer relevance with
attention-gradient hooks and scaled_dot_product_attention, activation patching and ablation (forward
hooks replacing outputs, pre-hooks, with_kwargs, global hooks, steering in place), logit and tuned
lens, linear probes (SGD, LBFGS, ridge, DataLoader training), sparse autoencoders with decoder
renormalisation and dead-feature resampling (also TopK and JumpReLU ones), influence functions
(double backward, autograd.functional hvp/vhp/hessian, torch.func hessian/jvp) and LiSSA, TracIn
with vmap(grad) and functional_call, forward-mode AD, LIME and KernelSHAP surrogates (lstsq drivers,
lgamma weights, coalitions by cartesian_prod/combinations, permutation SHAP), integrated gradients
on max_norm embeddings (layer-IG by an output-replacing hook), feature visualisation and deep dream,
network dissection by quantiles, DeepLIFT rescale as a custom Function, counterfactuals and
adversarial attributions, PCA/NMF concepts, parametrizations and pruning masks, saved-tensor hooks,
hooks under activation checkpointing, autocast, and the state of hooks after exceptions (wrong
returns, inplace views, removal twice, context managers). float64 must agree to 1e-10 of each
record's scale, float32 to 1e-4; texts exactly.

Known and left (documented differences, not compared): vmap runs func per sample here, so .item()
inside vmap and in-place writes into a captured unbatched tensor run instead of raising torch's
errors (and vmap over a training-mode BatchNorm updates the running stats); eigenvectors' and
singular vectors' signs are NumPy's LAPACK's (the programs fix signs as sklearn's svd_flip does);
topk's order among tied values is torch's quickselect's (not specified; the programs avoid ties);
lstsq's gels refuses a matrix whose R has an exact zero on its diagonal, which for a matrix that
is rank-deficient only numerically depends on the LAPACK build's rounding (MKL's float32 QR of
[[1, 1], [2, 2], [3, 3]] has R[1, 1] = 0, NumPy's 1e-15): the programs use structural zeros;
float32 softmax/cos/sqrt may be an ulp off torch's. binary_cross_entropy with a weight that does
not broadcast to the target raises with expand's message, where torch's kernel names the
broadcast ("Attempting to broadcast a dimension of length ...")."""

# ruff: noqa: B023  (closures built in a loop are called within the same iteration)

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "saliency", "smoothgrad", "integrated_gradients", "gradcam", "guided_backprop", "occlusion",
    "attention_rollout", "activation_patching", "pre_hook_ablation", "logit_lens", "linear_probe",
    "sae", "influence_hvp", "lissa", "tracin", "lime", "kernelshap", "feature_vis", "dissection",
    "deeplift", "hooks_after_error", "hook_details", "saved_tensor_hooks", "jacobian_saliency",
    "legacy_backward_hook", "parametrize_mask", "integrated_grad_noise_tunnel", "mha_rollout",
    "batched_grads", "shap_coalitions", "blur_baselines", "prototypes", "func_errors",
    "custom_fn_details", "lstm_hooks", "hook_edges", "state_dict_hooks", "probe_training_loop",
    "forward_mode", "deep_dream", "hook_errors", "cam_family", "counterfactual",
    "autocast_saliency", "pca_concepts", "inplace_hooks", "deconvnet", "chefer_relevance",
    "backward_exceptions", "guided_relu_fn", "upsample_grads", "checkpoint_hooks", "embedding_ig",
    "topk_jumprelu_sae",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _torch_one_thread():
    """torch's thread pool costs more than it gives on these small ops (6x on a loaded machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _cnn(lib, dt, c=3, k=4, n=5):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(c, 6, 3, padding=1), nn.ReLU(), nn.Conv2d(6, k, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(k, n),
    ).to(dt)  # fmt: skip


def _mlp(lib, dt, i, o, h=16):
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(i, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, o)
    ).to(dt)


def _transformer(lib, dt, d=8, heads=2, layers=2, vocab=11):
    nn, F = lib.nn, lib.nn.functional

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.last = None

        def forward(self, x):
            B, T, _ = x.shape
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            q, k, v = (t.view(B, T, heads, d // heads).transpose(1, 2) for t in (q, k, v))
            s = q @ k.transpose(-2, -1) / math.sqrt(d // heads)
            mask = lib.triu(lib.ones(T, T, dtype=lib.bool), diagonal=1)
            s = s.masked_fill(mask, float("-inf"))
            a = F.softmax(s, dim=-1)
            self.last = a
            o = (a @ v).transpose(1, 2).reshape(B, T, d)
            return self.proj(o)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = Attn()
            self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(lib.randn(16, d) * 0.1)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(d)
            self.unembed = nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.emb(idx) + self.pos[: idx.shape[1]]
            for b in self.blocks:
                x = b(x)
            return self.unembed(self.ln_f(x))

    return LM().to(dt)


# --- the programs: each takes the library, a dtype and a recorder ---


def p_saliency(lib, dt, rec):
    lib.manual_seed(0)
    net = _cnn(lib, dt).eval()
    x = lib.randn(2, 3, 6, 6, dtype=dt, requires_grad=True)
    out = net(x)
    target = out.argmax(dim=1)
    rec("target", target)
    score = out.gather(1, target.unsqueeze(1)).sum()
    score.backward()
    rec("grad", x.grad)
    sal = x.grad.abs().amax(dim=1)
    rec("sal", sal)
    rec("sal_norm", sal / sal.flatten(1).max(dim=1).values.view(-1, 1, 1))
    ixg = (x * x.grad).sum(dim=1)
    rec("ixg", ixg)
    rec("is_leaf", str((x.is_leaf, x.grad.requires_grad, out.requires_grad)))
    # autograd.grad leaves .grad alone
    x2 = x.detach().clone().requires_grad_(True)
    (g,) = lib.autograd.grad(net(x2)[:, 1].sum(), x2)
    rec("g_auto", g)
    rec("x2_grad_none", str(x2.grad is None))
    # grads of params accumulated
    rec.params("net", net, grads=True)
    net.zero_grad()
    rec("zero", str([p.grad is None for p in net.parameters()]))
    # normalised saliency as percentile rank
    flat = sal.flatten(1)
    ranks = flat.argsort(dim=1).argsort(dim=1).to(dt) / (flat.shape[1] - 1)
    rec("ranks", ranks)
    rec("top5", flat.topk(5, dim=1).indices)


def p_smoothgrad(lib, dt, rec):
    lib.manual_seed(1)
    net = _cnn(lib, dt).eval()
    x = lib.randn(1, 3, 5, 5, dtype=dt)
    g = lib.Generator().manual_seed(123)
    sigma = 0.15 * (x.max() - x.min())
    n = 6
    acc = lib.zeros_like(x)
    acc_sq = lib.zeros_like(x)
    for _ in range(n):
        noise = lib.randn(x.shape, generator=g, dtype=dt) * sigma
        xn = (x + noise).requires_grad_(True)
        out = net(xn)
        out[0, 2].backward()
        acc += xn.grad
        acc_sq += xn.grad**2
    sg = acc / n
    rec("sg", sg)
    rec("sg_sq", acc_sq / n)
    rec("var", acc_sq / n - sg**2)
    # batched smoothgrad in one pass with expand + randn_like
    g2 = lib.Generator()
    g2.manual_seed(7)
    xb = x.expand(n, -1, -1, -1).clone()
    noise = lib.randn(xb.shape, generator=g2, dtype=dt) * sigma
    xb = (xb + noise).requires_grad_()
    (gb,) = lib.autograd.grad(net(xb)[:, 2].sum(), xb)
    rec("sg_batched", gb.mean(0, keepdim=True))
    rec("gen_state_len", g2.get_state().numel())
    g3 = lib.Generator().manual_seed(7)
    rec("same_noise", lib.randn(xb.shape, generator=g3, dtype=dt) * sigma - noise)
    rec("initial_seed", g3.initial_seed())


def p_integrated_gradients(lib, dt, rec):
    lib.manual_seed(2)
    net = _mlp(lib, dt, 6, 3)
    x = lib.randn(2, 6, dtype=dt)
    base = lib.zeros_like(x)
    steps = 17
    alphas = lib.linspace(0, 1, steps, dtype=dt)
    rec("alphas", alphas)
    path = base.unsqueeze(0) + alphas.view(-1, 1, 1) * (x - base).unsqueeze(0)
    path = path.reshape(-1, 6).requires_grad_()
    out = net(path).view(steps, 2, 3)
    tgt = lib.tensor([0, 2])
    sel = out[:, lib.arange(2), tgt]
    (grads,) = lib.autograd.grad(sel.sum(), path)
    grads = grads.view(steps, 2, 6)
    avg_riemann = grads[:-1].mean(0)
    avg_trap = lib.trapezoid(grads, alphas, dim=0)
    avg_trap2 = lib.trapezoid(grads, dx=1.0 / (steps - 1), dim=0)
    ig = (x - base) * avg_trap
    rec("ig", ig)
    rec("ig_riemann", (x - base) * avg_riemann)
    rec("trap2", avg_trap2)
    rec("cumtrap", lib.cumulative_trapezoid(grads[:, 0, 0], alphas))
    with lib.no_grad():
        fx, f0 = net(x), net(base)
    delta = ig.sum(1) - (fx - f0)[lib.arange(2), tgt]
    rec("completeness", delta)
    rec("delta_abs_lt", (delta.abs() < 0.05).all())
    # n-dim trapezoid of a plain tensor
    rec("trap_y", lib.trapezoid(lib.tensor([1.0, 2.0, 4.0], dtype=dt)))
    rec(
        "trap_x",
        lib.trapz(lib.tensor([1.0, 2.0, 4.0], dtype=dt), lib.tensor([0.0, 0.5, 2.0], dtype=dt)),
    )


def p_gradcam(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(3)
    net = _cnn(lib, dt).eval()
    layer = net[2]
    store = {}

    def fwd_hook(m, inp, out):
        store["act"] = out

    def bwd_hook(m, gin, gout):
        store["grad"] = gout[0]
        store["gin_len"] = len(gin)

    h1 = layer.register_forward_hook(fwd_hook)
    h2 = layer.register_full_backward_hook(bwd_hook)
    x = lib.randn(2, 3, 7, 7, dtype=dt)
    out = net(x)
    cls = out.argmax(1)
    net.zero_grad()
    one_hot = F.one_hot(cls, out.shape[1]).to(dt)
    (out * one_hot).sum().backward()
    A, G = store["act"], store["grad"]
    rec("gin_len", store["gin_len"])
    w = G.mean(dim=(2, 3), keepdim=True)
    cam = F.relu((w * A).sum(1, keepdim=True))
    cam = F.interpolate(cam, size=(14, 14), mode="bilinear", align_corners=False)
    mn = cam.amin(dim=(2, 3), keepdim=True)
    mx = cam.amax(dim=(2, 3), keepdim=True)
    rec("cam", (cam - mn) / (mx - mn + 1e-8))
    # Grad-CAM++
    g2, g3 = G.pow(2), G.pow(3)
    denom = 2 * g2 + (A * g3).sum(dim=(2, 3), keepdim=True)
    denom = lib.where(denom != 0, denom, lib.ones_like(denom))
    alpha = g2 / denom
    wpp = (alpha * F.relu(G)).sum(dim=(2, 3), keepdim=True)
    campp = F.relu((wpp * A).sum(1))
    rec("campp", campp)
    h1.remove()
    h2.remove()
    rec("hooks_left", str((len(layer._forward_hooks), len(layer._backward_hooks))))
    store.clear()
    net(x).sum().backward()
    rec("store_after_remove", str(sorted(store)))
    h1.remove()  # removing twice is fine


def p_guided_backprop(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(4)
    net = _cnn(lib, dt).eval()
    handles = []

    def relu_hook(m, gin, gout):
        return (lib.clamp(gin[0], min=0.0),)

    for m in net.modules():
        if isinstance(m, nn.ReLU):
            handles.append(m.register_full_backward_hook(relu_hook))
    x = lib.randn(1, 3, 6, 6, dtype=dt, requires_grad=True)
    out = net(x)
    out[0, out[0].argmax()].backward()
    rec("guided", x.grad)
    for h in handles:
        h.remove()
    x.grad = None
    net(x)[0, 1].backward()
    rec("plain", x.grad)
    # Tensor.register_hook on intermediate activations
    x.grad = None
    seen = []
    h = net[0](x)
    hr = h.register_hook(lambda g: (seen.append(g.shape), g.clamp(min=0))[1])
    y = net[1:](h)
    y[0, 3].backward()
    rec("seen", str([tuple(s) for s in seen]))
    rec("hooked", x.grad)
    hr.remove()
    # a hook on a leaf
    z = lib.ones(3, dtype=dt, requires_grad=True)
    z.register_hook(lambda g: g * 2)
    (z * lib.tensor([1.0, -2.0, 3.0], dtype=dt)).sum().backward()
    rec("leaf_hook", z.grad)


def p_occlusion(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(5)
    net = _cnn(lib, dt).eval()
    x = lib.randn(1, 3, 6, 6, dtype=dt)
    with lib.no_grad():
        base = F.softmax(net(x), -1)[0, 1]
        k, s = 2, 2
        heat = lib.zeros(3, 3, dtype=dt)
        for i in range(0, 6 - k + 1, s):
            for j in range(0, 6 - k + 1, s):
                xo = x.clone()
                xo[:, :, i : i + k, j : j + k] = 0
                heat[i // s, j // s] = base - F.softmax(net(xo), -1)[0, 1]
        rec("heat", heat)
        # unfold / fold version: each patch masked in a batch
        patches = F.unfold(x, kernel_size=k, stride=s)  # 1, 3*k*k, L
        L = patches.shape[-1]
        rec("L", L)
        batch = patches.repeat(L, 1, 1)
        eye = lib.eye(L, dtype=dt).unsqueeze(1)
        batch = batch * (1 - eye)
        xs = F.fold(batch, output_size=(6, 6), kernel_size=k, stride=s)
        probs = F.softmax(net(xs), -1)[:, 1]
        rec("heat2", (base - probs).view(3, 3))
        # overlapping windows: fold sums, divide by counts
        ones = lib.ones(1, 1, 6, 6, dtype=dt)
        cnt = F.fold(F.unfold(ones, 3, stride=1), (6, 6), 3, stride=1)
        rec("cnt", cnt)
        ux = F.unfold(x, 3, padding=1)
        rec(
            "roundtrip",
            F.fold(ux, (6, 6), 3, padding=1)
            / F.fold(F.unfold(ones, 3, padding=1), (6, 6), 3, padding=1)
            - x,
        )
        # Tensor.unfold sliding windows
        w = x.unfold(2, 2, 2).unfold(3, 2, 2)
        rec("tunfold", w.shape)
        rec("tunfold_mean", w.mean(dim=(-1, -2)))


def p_attention_rollout(lib, dt, rec):
    lib.manual_seed(6)
    lm = _transformer(lib, dt)
    idx = lib.randint(0, 11, (2, 5))
    atts = []
    hs = [b.attn.register_forward_hook(lambda m, i, o: atts.append(m.last)) for b in lm.blocks]
    with lib.no_grad():
        logits = lm(idx)
    for h in hs:
        h.remove()
    rec("logits", logits)
    T = idx.shape[1]
    roll = lib.eye(T, dtype=dt).expand(2, T, T)
    for a in atts:
        am = a.mean(dim=1)
        am = am + lib.eye(T, dtype=dt)
        am = am / am.sum(dim=-1, keepdim=True)
        roll = am @ roll
    rec("rollout", roll)
    # max-fusion and discard lowest
    roll2 = lib.eye(T, dtype=dt).repeat(2, 1, 1)
    for a in atts:
        am = a.amax(dim=1)
        flat = am.view(2, -1)
        _, low = flat.topk(int(flat.shape[-1] * 0.2), dim=-1, largest=False)
        flat = flat.scatter(-1, low, 0.0)
        am = flat.view(2, T, T)
        am = 0.5 * am + 0.5 * lib.eye(T, dtype=dt)
        roll2 = lib.bmm(am / am.sum(-1, keepdim=True), roll2)
    rec("rollout_max", roll2)
    rec("chain", lib.linalg.multi_dot([atts[0][0, 0], atts[1][0, 0], atts[0][1, 1]]))
    rec("att_rows", atts[0].sum(-1))
    # attention flow-ish: entropy of each head
    ent = -(atts[1] * lib.log(atts[1].clamp_min(1e-12))).sum(-1)
    rec("ent", ent)
    rec("nan_free", str(bool(lib.isfinite(ent).all())))


def p_activation_patching(lib, dt, rec):
    lib.manual_seed(7)
    lm = _transformer(lib, dt)
    clean = lib.tensor([[1, 2, 3, 4, 5]])
    corrupt = lib.tensor([[1, 2, 9, 4, 5]])
    cache = {}

    def save(name):
        def hook(m, inp, out):
            cache[name] = out.detach().clone()

        return hook

    hs = [b.register_forward_hook(save(f"b{i}")) for i, b in enumerate(lm.blocks)]
    with lib.no_grad():
        cl = lm(clean)
    for h in hs:
        h.remove()
    with lib.no_grad():
        co = lm(corrupt)
    ans = 5
    rec("clean_logit", cl[0, -1, ans])
    rec("corrupt_logit", co[0, -1, ans])
    res = lib.zeros(2, 5, dtype=dt)
    for li, b in enumerate(lm.blocks):
        for pos in range(5):

            def patch(m, inp, out):
                out = out.clone()
                out[:, pos] = cache[f"b{li}"][:, pos]
                return out

            h = b.register_forward_hook(patch)
            with lib.no_grad():
                res[li, pos] = lm(corrupt)[0, -1, ans]
            h.remove()
    rec("patch", res)
    rec("norm", (res - co[0, -1, ans]) / (cl[0, -1, ans] - co[0, -1, ans]))
    # zero / mean ablation of an MLP with with_kwargs hooks
    calls = []

    def kw_hook(m, args, kwargs, out):
        calls.append((len(args), sorted(kwargs)))
        return out * 0

    h = lm.blocks[0].mlp.register_forward_hook(kw_hook, with_kwargs=True)
    with lib.no_grad():
        ab = lm(clean)
    h.remove()
    rec("ablate", ab[0, -1])
    rec("calls", str(calls))
    # always_call / prepend ordering
    order = []
    m = lm.blocks[1].mlp
    h1 = m.register_forward_hook(lambda *a: order.append("a"))
    h2 = m.register_forward_hook(lambda *a: order.append("b"), prepend=True)
    with lib.no_grad():
        lm(clean)
    h1.remove()
    h2.remove()
    rec("order", str(order))


def p_pre_hook_ablation(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(8)
    net = _mlp(lib, dt, 5, 3)
    x = lib.randn(4, 5, dtype=dt)
    mask = lib.tensor([1.0, 0.0, 1.0, 1.0, 0.0], dtype=dt)

    def pre(m, args):
        return (args[0] * mask,)

    h = net[0].register_forward_pre_hook(pre)
    y1 = net(x)
    h.remove()
    rec("masked_in", y1)
    rec("same_as_manual", net(x * mask) - y1)

    def pre_kw(m, args, kwargs):
        return (args[0] + 1.0,), kwargs

    h = net[2].register_forward_pre_hook(pre_kw, with_kwargs=True)
    y2 = net(x)
    h.remove()
    rec("kw_pre", y2)

    # pre hook returning a bare tensor (wrapped into a tuple by torch)
    def pre_bare(m, args):
        return args[0] * 2

    h = net[4].register_forward_pre_hook(pre_bare)
    y3 = net(x)
    h.remove()
    rec("bare_pre", y3)

    # neuron ablation: zero hidden unit 3 through a hook, gradient still flows
    def kill(m, i, o):
        o = o.clone()
        o[:, 3] = 0
        return o

    h = net[1].register_forward_hook(kill)
    xg = x.clone().requires_grad_()
    net(xg).sum().backward()
    h.remove()
    rec("abl_grad", xg.grad)
    rec("w0_grad_row3", net[0].weight.grad[3])
    # global hooks
    seen = []
    gh = nn.modules.module.register_module_forward_hook(
        lambda m, i, o: seen.append(type(m).__name__)
    )
    net(x)
    gh.remove()
    rec("global", str(seen))


def p_logit_lens(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(9)
    lm = _transformer(lib, dt, layers=3)
    idx = lib.randint(0, 11, (2, 6))
    resid = []
    hs = [b.register_forward_hook(lambda m, i, o: resid.append(o)) for b in lm.blocks]
    with lib.no_grad():
        final = lm(idx)
        for h in hs:
            h.remove()
        lens = [lm.unembed(lm.ln_f(r)) for r in resid]
        stack = lib.stack(lens)
        rec("lens", stack)
        lp = F.log_softmax(stack, dim=-1)
        rec("lp", lp)
        fin = F.log_softmax(final, -1)
        kl = F.kl_div(lp, fin.expand_as(lp), log_target=True, reduction="none").sum(-1)
        rec("kl", kl)
        rec("kl_bm", F.kl_div(lp[0], fin, reduction="batchmean", log_target=True))
        rec("top1", stack.argmax(-1))
        rec("last_eq", (lens[-1] - final).abs().max())
        # tuned lens: per-layer affine translators fitted by lstsq
        h = resid[0].reshape(-1, 8)
        tgt = resid[-1].reshape(-1, 8)
        ha = lib.cat([h, lib.ones(h.shape[0], 1, dtype=dt)], 1)
        sol = lib.linalg.lstsq(ha, tgt).solution
        rec("tuned", ha @ sol - tgt)
        rank = (stack.gather(-1, idx.unsqueeze(0).expand(3, -1, -1).unsqueeze(-1)) < stack).sum(-1)
        rec("rank", rank)
        ent = -(lp.exp() * lp).sum(-1)
        rec("ent", ent)


def p_linear_probe(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(10)
    lm = _transformer(lib, dt)
    for p in lm.parameters():
        p.requires_grad_(False)
    idx = lib.randint(0, 11, (32, 5))
    labels = (idx[:, -1] % 2 == 0).long()
    feats = []
    h = lm.blocks[0].register_forward_hook(lambda m, i, o: feats.append(o[:, -1]))
    with lib.no_grad():
        lm(idx)
    h.remove()
    X = feats[0].detach()
    rec("X_rg", str((X.requires_grad, X.is_leaf)))
    probe = nn.Linear(8, 2).to(dt)
    opt = lib.optim.SGD(probe.parameters(), lr=0.5, momentum=0.9, weight_decay=1e-3)
    mu, sd = X.mean(0), X.std(0, unbiased=True)
    Xn = (X - mu) / sd
    for _ in range(15):
        loss = F.cross_entropy(probe(Xn), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("loss", loss)
    rec.params("probe", probe, grads=True)
    with lib.no_grad():
        acc = (probe(Xn).argmax(1) == labels).float().mean()
    rec("acc", acc)
    rec("lm_grads", str([p.grad is None for p in lm.parameters()][:3]))
    # closed-form ridge probe
    y = labels.to(dt) * 2 - 1
    A = Xn.T @ Xn + 0.1 * lib.eye(8, dtype=dt)
    w = lib.linalg.solve(A, Xn.T @ y)
    rec("ridge", w)
    rec(
        "ridge_chol",
        lib.cholesky_solve((Xn.T @ y).unsqueeze(1), lib.linalg.cholesky(A)).squeeze(1) - w,
    )
    # logistic probe with LBFGS
    probe2 = nn.Linear(8, 1).to(dt)
    opt2 = lib.optim.LBFGS(probe2.parameters(), lr=0.5, max_iter=10)

    def closure():
        opt2.zero_grad()
        lo = F.binary_cross_entropy_with_logits(probe2(Xn).squeeze(1), labels.to(dt))
        lo.backward()
        return lo

    l2 = opt2.step(closure)
    rec("lbfgs", l2)
    rec.params("probe2", probe2)


def p_sae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(11)
    d, m = 8, 24

    class SAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.W_enc = nn.Parameter(nn.init.kaiming_uniform_(lib.empty(d, m, dtype=dt)))
            self.W_dec = nn.Parameter(nn.init.kaiming_uniform_(lib.empty(m, d, dtype=dt)))
            self.b_enc = nn.Parameter(lib.zeros(m, dtype=dt))
            self.b_dec = nn.Parameter(lib.zeros(d, dtype=dt))
            with lib.no_grad():
                self.W_dec.data = self.W_dec / self.W_dec.norm(dim=-1, keepdim=True)

        def forward(self, x):
            f = F.relu((x - self.b_dec) @ self.W_enc + self.b_enc)
            return f @ self.W_dec + self.b_dec, f

    sae = SAE().to(dt)
    X = lib.randn(64, d, dtype=dt) @ lib.randn(d, d, dtype=dt) * 0.5
    opt = lib.optim.Adam(sae.parameters(), lr=3e-3, betas=(0.9, 0.999))
    l1 = 1e-2
    fired = lib.zeros(m, dtype=lib.long)
    for step in range(6):
        xb = X[step * 8 : step * 8 + 16]
        xh, f = sae(xb)
        mse = (xh - xb).pow(2).sum(-1).mean()
        sp = f.abs().sum(-1).mean()
        loss = mse + l1 * sp
        opt.zero_grad()
        loss.backward()
        # remove the gradient parallel to decoder rows
        with lib.no_grad():
            Wn = sae.W_dec / sae.W_dec.norm(dim=-1, keepdim=True)
            par = (sae.W_dec.grad * Wn).sum(-1, keepdim=True) * Wn
            sae.W_dec.grad -= par
        opt.step()
        with lib.no_grad():
            sae.W_dec.div_(sae.W_dec.norm(dim=-1, keepdim=True))
        fired += (f > 0).sum(0)
        rec("loss", loss)
        rec("l0", (f > 0).to(dt).sum(-1).mean())
    rec("fired", fired)
    dead = (fired == 0).nonzero().squeeze(-1)
    rec("dead", dead)
    # resample dead features from high-loss inputs
    with lib.no_grad():
        xh, _ = sae(X)
        err = (xh - X).pow(2).sum(-1)
        g = lib.Generator().manual_seed(0)
        pick = lib.multinomial(
            err / err.sum(), max(int(dead.numel()), 1), replacement=False, generator=g
        )
        rec("pick", pick)
        if dead.numel() > 0:
            v = X[pick[: dead.numel()]] - sae.b_dec
            v = F.normalize(v, dim=-1)
            sae.W_dec[dead] = v
            sae.W_enc[:, dead] = v.T * 0.2
            sae.b_enc[dead] = 0.0
            st = opt.state[sae.W_dec]
            st["exp_avg"][dead] = 0
            st["exp_avg_sq"][dead] = 0
    rec.params("sae", sae)
    rec("dec_norms", sae.W_dec.norm(dim=-1))
    rec("state_keys", str(sorted(opt.state[sae.W_enc].keys())))


def p_influence_hvp(lib, dt, rec):
    F = lib.nn.functional
    AF = lib.autograd.functional
    lib.manual_seed(12)
    X = lib.randn(20, 4, dtype=dt)
    w_true = lib.randn(4, dtype=dt)
    y = (X @ w_true > 0).to(dt)
    w = lib.zeros(4, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([w], lr=1.0)
    for _ in range(30):
        loss = F.binary_cross_entropy_with_logits(X @ w, y) + 0.01 * w.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    rec("w", w)

    def total(wv):
        return F.binary_cross_entropy_with_logits(X @ wv, y) + 0.01 * wv.pow(2).sum()

    loss = total(w)
    (g,) = lib.autograd.grad(loss, w, create_graph=True)
    v = lib.randn(4, dtype=dt)
    (hv,) = lib.autograd.grad(g @ v, w)
    rec("hv_double", hv)
    _, hv2 = AF.hvp(total, w.detach(), v)
    rec("hv_func", hv2)
    _, vh = AF.vhp(total, w.detach(), v)
    rec("vh_func", vh)
    H = AF.hessian(total, w.detach())
    rec("H", H)
    rec("H_sym", H - H.T)
    Hf = lib.func.hessian(total)(w.detach())
    rec("H_functorch", Hf)
    # influence of each training point on a test loss
    xt, yt = lib.randn(4, dtype=dt), lib.tensor(1.0, dtype=dt)
    (gt,) = lib.autograd.grad(F.binary_cross_entropy_with_logits(xt @ w, yt), w)
    s = lib.linalg.solve(H, gt)
    per = []
    for i in range(20):
        (gi,) = lib.autograd.grad(F.binary_cross_entropy_with_logits(X[i] @ w, y[i]), w)
        per.append(-(gi @ s))
    rec("influence", lib.stack(per))
    # jvp forward mode through func
    _, jv = lib.func.jvp(lambda wv: lib.sigmoid(X @ wv), (w.detach(),), (v,))
    rec("jvp", jv)
    _, jv2 = AF.jvp(lambda wv: lib.sigmoid(X @ wv), w.detach(), v)
    rec("jvp_af", jv2)


def p_lissa(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(13)
    net = _mlp(lib, dt, 3, 1, h=6)
    X = lib.randn(24, 3, dtype=dt)
    Y = lib.randn(24, 1, dtype=dt)
    params = [p for p in net.parameters() if p.requires_grad]
    loss = F.mse_loss(net(X), Y)
    grads = lib.autograd.grad(loss, params, create_graph=True)
    xt, yt = X[:1] + 0.1, Y[:1]
    v = lib.autograd.grad(F.mse_loss(net(xt), yt), params)
    h_est = [vi.clone() for vi in v]
    damping, scale = 0.01, 10.0
    g = lib.Generator().manual_seed(5)
    for _it in range(8):
        idx = lib.randint(0, 24, (8,), generator=g)
        lb = F.mse_loss(net(X[idx]), Y[idx])
        gb = lib.autograd.grad(lb, params, create_graph=True)
        dot = sum((a * b).sum() for a, b in zip(gb, h_est, strict=True))
        hv = lib.autograd.grad(dot, params)
        h_est = [
            vi + (1 - damping) * he - hvi / scale for vi, he, hvi in zip(v, h_est, hv, strict=True)
        ]
        rec("norm", lib.stack([h.norm() for h in h_est]).norm())
    ihvp = [h / scale for h in h_est]
    flat = lib.cat([h.reshape(-1) for h in ihvp])
    rec("ihvp", flat)
    # full HVP with the retained graph
    dot = sum((gi * vi).sum() for gi, vi in zip(grads, v, strict=True))
    hv = lib.autograd.grad(dot, params, retain_graph=True)
    rec("hv", lib.cat([h.flatten() for h in hv]))
    rec("pvec", lib.nn.utils.parameters_to_vector(hv))
    rec.err("reuse_freed", lambda: lib.autograd.grad(loss, params))


def p_tracin(lib, dt, rec):
    F = lib.nn.functional
    from_func = lib.func
    lib.manual_seed(14)
    net = _mlp(lib, dt, 4, 3, h=8)
    X = lib.randn(10, 4, dtype=dt)
    Y = lib.randint(0, 3, (10,))
    params = {k: v.detach() for k, v in net.named_parameters()}
    buffers = {k: v.detach() for k, v in net.named_buffers()}

    def loss_fn(p, b, x, y):
        out = from_func.functional_call(net, (p, b), (x.unsqueeze(0),))
        return F.cross_entropy(out, y.unsqueeze(0))

    per_ex = from_func.vmap(from_func.grad(loss_fn), in_dims=(None, None, 0, 0))(
        params, buffers, X, Y
    )
    rec("keys", str(sorted(per_ex)))
    flat = lib.cat([per_ex[k].reshape(10, -1) for k in sorted(per_ex)], 1)
    rec("flat", flat)
    # check against a loop
    loop = []
    for i in range(10):
        net.zero_grad()
        F.cross_entropy(net(X[i : i + 1]), Y[i : i + 1]).backward()
        loop.append(lib.cat([net.get_parameter(k).grad.reshape(-1) for k in sorted(per_ex)]))
    rec("loop_diff", flat - lib.stack(loop))
    xt, yt = X[:2] + 0.05, Y[:2]
    gt = from_func.vmap(from_func.grad(loss_fn), in_dims=(None, None, 0, 0))(
        params, buffers, xt, yt
    )
    ft = lib.cat([gt[k].reshape(2, -1) for k in sorted(gt)], 1)
    lr = 0.1
    scores = lr * ft @ flat.T
    rec("tracin", scores)
    rec("proponents", scores.topk(3, dim=1).indices)
    cos = F.cosine_similarity(ft.unsqueeze(1), flat.unsqueeze(0), dim=-1)
    rec("cos", cos)
    # grad_and_value
    gv, val = from_func.grad_and_value(loss_fn)(params, buffers, X[0], Y[0])
    rec("val", val)
    rec("gv0", gv["0.weight"])


def p_lime(lib, dt, rec):
    lib.manual_seed(15)
    net = _mlp(lib, dt, 6, 2)
    x = lib.randn(6, dtype=dt)
    n = 40
    g = lib.Generator().manual_seed(3)
    Z = lib.bernoulli(lib.full((n, 6), 0.5, dtype=dt), generator=g)
    Z[0] = 1
    with lib.no_grad():
        pred = lib.softmax(net(Z * x), -1)[:, 1]
    dist = 1 - lib.nn.functional.cosine_similarity(Z, lib.ones(1, 6, dtype=dt), dim=1)
    kw = 0.25
    wts = lib.exp(-(dist**2) / kw**2)
    rec("wts", wts)
    Za = lib.cat([lib.ones(n, 1, dtype=dt), Z], 1)
    sw = wts.sqrt().unsqueeze(1)
    coef = lib.linalg.lstsq(Za * sw, (pred * wts.sqrt()).unsqueeze(1)).solution.squeeze(1)
    rec("coef", coef)
    # ridge version via normal equations and pinv
    A = Za.T @ (Za * wts.unsqueeze(1)) + 1e-2 * lib.eye(7, dtype=dt)
    b = Za.T @ (wts * pred)
    rec("ridge", lib.linalg.solve(A, b))
    rec("pinv", lib.linalg.pinv(Za * sw) @ (pred * wts.sqrt()))
    # gels assumes full rank: a centred design whose feature never varies has a zero column
    dup = lib.cat([Za, lib.zeros(n, 1, dtype=dt)], 1)
    rec.err("gels_rank", lambda: lib.linalg.lstsq(dup, pred, driver="gels"))
    rec("gels", lib.linalg.lstsq(Za, pred, driver="gels").solution)
    rec("gelsd_rank", lib.linalg.lstsq(dup, pred.unsqueeze(1), driver="gelsd").rank)
    # weighted R^2
    fit = Za @ coef
    ybar = (wts * pred).sum() / wts.sum()
    r2 = 1 - (wts * (pred - fit) ** 2).sum() / (wts * (pred - ybar) ** 2).sum()
    rec("r2", r2)
    rec("order", coef[1:].abs().argsort(descending=True))


def p_kernelshap(lib, dt, rec):
    lib.manual_seed(16)
    M = 5
    net = _mlp(lib, dt, M, 1, h=8)
    x = lib.randn(M, dtype=dt)
    bg = lib.randn(4, M, dtype=dt)
    # all coalitions
    codes = lib.arange(2**M)
    Z = ((codes.unsqueeze(1) >> lib.arange(M)) & 1).to(dt)
    s = Z.sum(1)
    lgam = lib.lgamma(lib.tensor(M + 1.0, dtype=dt)) - lib.lgamma(s + 1) - lib.lgamma(M - s + 1)
    binom = lib.exp(lgam)
    rec("binom", binom)
    rec("comb_check", str([math.comb(M, k) for k in range(M + 1)]))
    inner = (s > 0) & (s < M)
    w = lib.zeros(2**M, dtype=dt)
    w[inner] = (M - 1) / (binom[inner] * s[inner] * (M - s[inner]))
    w[~inner] = 1e6
    rec("w", w)
    with lib.no_grad():
        mixed = Z.unsqueeze(1) * x + (1 - Z.unsqueeze(1)) * bg.unsqueeze(0)
        f = net(mixed).squeeze(-1).mean(1)
    Za = lib.cat([lib.ones(2**M, 1, dtype=dt), Z], 1)
    W = lib.diag(w)
    # the 1e6 weights make the normal equations too ill-conditioned for float32: solve in float64
    Za, W, f64 = Za.double(), W.double(), f.double()
    phi = lib.linalg.solve(Za.T @ W @ Za, Za.T @ W @ f64).to(dt)
    rec("phi", phi)
    rec("eff", phi[1:].sum() - (f[-1] - f[0]))
    # exact Shapley by permutation formula
    exact = lib.zeros(M, dtype=dt)
    for i in range(M):
        has = Z[:, i] == 1
        without = codes[~has]
        withc = without | (1 << i)
        sz = s[~has]
        wt = lib.exp(lib.lgamma(sz + 1) + lib.lgamma(M - sz) - math.lgamma(M + 1))
        exact[i] = (wt * (f[withc] - f[without])).sum()
    rec("exact", exact)
    rec("bitwise", lib.bitwise_and(codes, 6)[:8])
    rec("special_gammaln", lib.special.gammaln(s[:6] + 0.5))


def p_feature_vis(lib, dt, rec):
    lib.manual_seed(17)
    net = _cnn(lib, dt).eval()
    for p in net.parameters():
        p.requires_grad_(False)
    img = (lib.randn(1, 3, 8, 8, dtype=dt) * 0.01).requires_grad_()
    opt = lib.optim.Adam([img], lr=0.05)
    acts = {}
    h = net[2].register_forward_hook(lambda m, i, o: acts.__setitem__("a", o))
    g = lib.Generator().manual_seed(1)
    for _it in range(6):
        dx, dy = lib.randint(-1, 2, (2,), generator=g).tolist()
        jit = lib.roll(img, shifts=(dx, dy), dims=(2, 3))
        net(jit)
        obj = acts["a"][0, 1].mean()
        tv = (img[:, :, 1:, :] - img[:, :, :-1, :]).abs().mean() + (
            img[:, :, :, 1:] - img[:, :, :, :-1]
        ).pow(2).mean()
        loss = -obj + 0.1 * tv + 1e-3 * img.norm()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            img.clamp_(-2, 2)
        rec("loss", loss)
        rec("shift", str((dx, dy)))
    h.remove()
    rec("img", img)
    rec("grad", img.grad)
    # decorrelated parametrisation via sigmoid
    p = lib.zeros(1, 3, 4, 4, dtype=dt, requires_grad=True)
    im = lib.sigmoid(p) * 2 - 1
    net(lib.nn.functional.pad(im, (2, 2, 2, 2), mode="reflect"))[0, 0].backward()
    rec("pgrad", p.grad)


def p_dissection(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(18)
    net = _cnn(lib, dt).eval()
    X = lib.randn(6, 3, 8, 8, dtype=dt)
    concept = lib.rand(6, 1, 8, 8, dtype=dt) > 0.7
    acts = []
    h = net[1].register_forward_hook(lambda m, i, o: acts.append(o.detach()))
    with lib.no_grad():
        net(X)
    h.remove()
    A = acts[0]  # 6, 6, 8, 8
    flat = A.transpose(0, 1).reshape(6, -1)
    thr = lib.quantile(flat, 0.9, dim=1, keepdim=True)
    rec("thr", thr)
    rec(
        "thr_lin",
        lib.quantile(flat, lib.tensor([0.5, 0.99], dtype=dt), dim=1, interpolation="nearest"),
    )
    rec("thr_mid", lib.quantile(flat[0], 0.75, interpolation="midpoint"))
    rec("thr_low", lib.quantile(flat[0], 0.75, interpolation="lower"))
    rec("nanq", lib.nanquantile(lib.tensor([1.0, float("nan"), 3.0, 2.0], dtype=dt), 0.5))
    mask = A > thr.view(1, 6, 1, 1)
    up = F.interpolate(A, size=(8, 8), mode="nearest") > thr.view(1, 6, 1, 1)
    rec("mask_eq", (mask == up).all())
    inter = (up & concept).sum(dim=(0, 2, 3))
    union = (up | concept).sum(dim=(0, 2, 3))
    iou = inter.to(dt) / union.to(dt).clamp(min=1)
    rec("iou", iou)
    rec("best", iou.argmax())
    rec("inter", inter)
    rec("kth", flat.kthvalue(20, dim=1).values)
    rec("median", flat.median(dim=1).values)
    rec("hist", lib.histc(flat[0], bins=5, min=0, max=float(flat[0].max())))


def p_deeplift(lib, dt, rec):
    nn = lib.nn

    class RescaleReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, x_ref):
            out, out_ref = x.clamp(min=0), x_ref.clamp(min=0)
            ctx.save_for_backward(x, x_ref, out, out_ref)
            return out

        @staticmethod
        def backward(ctx, grad):
            x, x_ref, out, out_ref = ctx.saved_tensors
            dx = x - x_ref
            dy = out - out_ref
            mult = lib.where(
                dx.abs() > 1e-7,
                dy / lib.where(dx.abs() > 1e-7, dx, lib.ones_like(dx)),
                (x > 0).to(x.dtype),
            )
            return grad * mult, None

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2, self.l3 = nn.Linear(5, 8), nn.Linear(8, 8), nn.Linear(8, 2)

        def forward(self, x, ref):
            h, hr = self.l1(x), self.l1(ref)
            h = RescaleReLU.apply(h, hr)
            hr = hr.clamp(min=0)
            h2, h2r = self.l2(h), self.l2(hr)
            h2 = RescaleReLU.apply(h2, h2r)
            return self.l3(h2), self.l3(h2r.clamp(min=0))

    lib.manual_seed(19)
    net = Net().to(dt)
    x = lib.randn(3, 5, dtype=dt, requires_grad=True)
    ref = lib.zeros(3, 5, dtype=dt)
    out, out_ref = net(x, ref)
    out[:, 0].sum().backward()
    attr = x.grad * (x - ref)
    rec("attr", attr)
    rec("sum_to_delta", attr.sum(1) - (out - out_ref)[:, 0])
    rec("grad_fn", type(out.grad_fn).__name__)
    h = net.l1(x)
    rec("fn_name", type(RescaleReLU.apply(h, h * 0).grad_fn).__name__)
    # gradcheck of the custom Function
    a = lib.randn(4, dtype=lib.float64, requires_grad=True)
    b = lib.randn(4, dtype=lib.float64)
    # the rescale rule is not the true gradient: gradcheck must say so
    try:
        lib.autograd.gradcheck(lambda t: RescaleReLU.apply(t, b) * 1.0, (a,))
        rec("gc", "passed")
    except RuntimeError as e:
        rec("gc", type(e).__name__ + ": " + str(e).splitlines()[0])
    rec(
        "gc_nr",
        str(lib.autograd.gradcheck(lambda t: RescaleReLU.apply(t, b), (a,), raise_exception=False)),
    )
    rec.err("once_differentiable_absent", lambda: lib.autograd.function.once_differentiable)


def p_hooks_after_error(lib, dt, rec):
    lib.manual_seed(20)
    net = _mlp(lib, dt, 4, 2)
    x = lib.randn(3, 4, dtype=dt)

    def bad_hook(m, i, o):
        raise ValueError("boom in hook")

    h = net[2].register_forward_hook(bad_hook)
    rec.err("fwd", lambda: net(x))
    rec("n_hooks", len(net[2]._forward_hooks))
    h.remove()
    rec("n_hooks_after", len(net[2]._forward_hooks))
    rec("ok", net(x))

    def bad_bw(m, gi, go):
        raise RuntimeError("boom in backward hook")

    hb = net[0].register_full_backward_hook(bad_bw)
    xi = x.clone().requires_grad_()
    rec.err("bwd", lambda: net(xi).sum().backward())
    hb.remove()
    net.zero_grad()
    xi.grad = None
    net(xi).sum().backward()
    rec("gx", xi.grad)

    # hook returning wrong-shaped grad_input
    def wrong(m, gi, go):
        return (gi[0][:, :1],)

    hw = net[0].register_full_backward_hook(wrong)
    rec.err("wrong_shape", lambda: net(xi).sum().backward())
    hw.remove()

    # with-statement style context that always removes
    class Hooks:
        def __init__(self, mods, fn):
            self.hs = [m.register_forward_hook(fn) for m in mods]

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            for hh in self.hs:
                hh.remove()
            return False

    try:
        with Hooks([net[0], net[2]], lambda m, i, o: o * 0):
            net(x)
            raise KeyError("inner")
    except KeyError as e:
        rec("caught", repr(e))
    rec("after_ctx", str((len(net[0]._forward_hooks), len(net[2]._forward_hooks))))
    rec("out_clean", net(x))
    # hook returning non-tensor from forward hook with always_call
    calls = []
    ha = net[4].register_forward_hook(lambda m, i, o: calls.append("called"), always_call=True)
    hp = net[4].register_forward_pre_hook(
        lambda m, a: (_ for _ in ()).throw(ValueError("pre boom"))
    )
    rec.err("pre", lambda: net(x))
    rec("always_calls", str(calls))
    hp.remove()
    ha.remove()
    rec("state_dict_keys", str(list(net.state_dict().keys())))


def p_hook_details(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(21)
    net = _mlp(lib, dt, 4, 2)
    x = lib.randn(3, 4, dtype=dt)
    # backward hook where input does not require grad: grad_input is (None,)
    seen = []
    h = net[0].register_full_backward_hook(
        lambda m, gi, go: seen.append((gi[0] is None, tuple(go[0].shape)))
    )
    net(x).sum().backward()
    rec("seen", str(seen))
    h.remove()
    # backward pre hook modifies grad_output
    hp = net[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
    net.zero_grad()
    net(x).sum().backward()
    rec("w0g_half", net[0].weight.grad)
    hp.remove()
    # inplace relu after a module with full backward hook
    m = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True)).to(dt)
    hh = m[0].register_full_backward_hook(lambda *a: None)
    xr = x.clone().requires_grad_()
    rec.err("inplace_after_hook", lambda: m(xr).sum().backward())
    hh.remove()
    # hook handle as context manager + id ordering
    h1 = net[0].register_forward_hook(lambda *a: None)
    h2 = net[0].register_forward_hook(lambda *a: None)
    rec("ids_increase", str(h2.id > h1.id))
    with h1, h2:
        rec("inside", len(net[0]._forward_hooks))
    rec("outside", len(net[0]._forward_hooks))
    # retain_grad on intermediates
    xr = x.clone().requires_grad_()
    a = net[0](xr)
    a.retain_grad()
    b = net[1](a)
    b.retain_grad()
    net[2:](b).sum().backward()
    rec("a.grad", a.grad)
    rec("b.grad", b.grad)
    rec("retains", str((a.retains_grad, xr.retains_grad)))
    # post accumulate grad hook on params
    counts = []
    hs = [
        p.register_post_accumulate_grad_hook(lambda p: counts.append(tuple(p.grad.shape)))
        for p in net.parameters()
    ]
    net(x).sum().backward()
    rec("post_acc", str(sorted(counts)))
    for hh in hs:
        hh.remove()
    # grad_fn hooks
    y = net(x.clone().requires_grad_())
    got = []
    y.grad_fn.register_hook(lambda gi, go: got.append(len(gi)))
    y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    xx = y.grad_fn.next_functions
    rec("next_fns", str([type(f).__name__ if f is not None else None for f, _ in xx]))
    y.sum().backward()
    rec("fn_hook", str(got))
    rec("w4g", net[4].weight.grad)


def p_saved_tensor_hooks(lib, dt, rec):
    lib.manual_seed(22)
    net = _mlp(lib, dt, 4, 2)
    x = lib.randn(5, 4, dtype=dt, requires_grad=True)
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t.clone()

    def unpack(t):
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = net(x).pow(2).sum()
    rec("n_packed", len(packed))
    y.backward()
    rec("gx", x.grad)
    with lib.autograd.graph.save_on_cpu():
        y2 = (net(x) * 2).tanh().sum()
    y2.backward()
    rec("gx2", x.grad)


def p_jacobian_saliency(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(23)
    net = _mlp(lib, dt, 4, 3)
    x = lib.randn(2, 4, dtype=dt)
    J = lib.autograd.functional.jacobian(lambda t: F.softmax(net(t), -1), x)
    rec("J", J)
    Jv = lib.autograd.functional.jacobian(lambda t: F.softmax(net(t), -1), x, vectorize=True)
    rec("Jv", Jv)
    Jr = lib.func.vmap(lib.func.jacrev(lambda t: F.softmax(net(t), -1)))(x)
    rec("Jr", Jr)
    Jf = lib.func.vmap(lib.func.jacfwd(lambda t: F.softmax(net(t), -1)))(x)
    rec("Jf", Jf)
    # forward-mode AD directional derivative
    import_fwAD = lib.autograd.forward_ad
    v = lib.randn(2, 4, dtype=dt)
    with import_fwAD.dual_level():
        dual = import_fwAD.make_dual(x, v)
        out = F.softmax(net(dual), -1)
        p, t = import_fwAD.unpack_dual(out)
    rec("primal", p)
    rec("tangent", t)
    out, vjp_fn = lib.func.vjp(lambda t: net(t), x)
    (vj,) = vjp_fn(lib.ones_like(out))
    rec("vjp", vj)
    # gradient x input with jacobian norms
    rec("jnorm", lib.linalg.matrix_norm(Jr, ord="fro"))
    rec("svals", lib.linalg.svdvals(Jr))


def p_legacy_backward_hook(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(24)
    net = _mlp(lib, dt, 3, 2)
    got = []
    h = net[0].register_backward_hook(lambda m, gi, go: got.append(len(gi)))
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)
    rec.warns("w", lambda: net(x).sum().backward())
    rec("got", str(got))
    h.remove()
    seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh()).to(dt)
    h = seq.register_backward_hook(lambda m, gi, go: None)
    rec.warns("w_multi", lambda: seq(x).sum().backward())
    h.remove()
    rec.err(
        "mix",
        lambda: (
            net[0].register_backward_hook(lambda *a: None),
            net[0].register_full_backward_hook(lambda *a: None),
        ),
    )


def p_parametrize_mask(lib, dt, rec):
    nn = lib.nn
    P = nn.utils.parametrize
    lib.manual_seed(25)
    lin = nn.Linear(6, 4).to(dt)

    class Mask(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.register_buffer("m", m)

        def forward(self, w):
            return w * self.m

    mask = (lib.rand(4, 6, dtype=dt) > 0.3).to(dt)
    P.register_parametrization(lin, "weight", Mask(mask))
    x = lib.randn(3, 6, dtype=dt)
    y = lin(x)
    y.sum().backward()
    rec("y", y)
    rec("orig_grad", lin.parametrizations.weight.original.grad)
    rec("is_param", str(P.is_parametrized(lin, "weight")))
    rec("keys", str(sorted(lin.state_dict().keys())))
    with P.cached():
        rec("cached", lin.weight)
    P.remove_parametrizations(lin, "weight", leave_parametrized=True)
    rec("after", lin.weight)
    rec("keys2", str(sorted(lin.state_dict().keys())))
    # pruning-like masking from torch.nn.utils.prune
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lin2 = nn.Linear(5, 3).to(dt)
    prune.l1_unstructured(lin2, "weight", amount=0.4)
    rec("mask", lin2.weight_mask)
    rec("pruned_keys", str(sorted(lin2.state_dict().keys())))
    prune.remove(lin2, "weight")
    rec("n_zero", (lin2.weight == 0).sum())


def p_integrated_grad_noise_tunnel(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(26)
    net = _mlp(lib, dt, 5, 3)
    x = lib.randn(3, 5, dtype=dt)
    target = lib.tensor([0, 1, 2])
    g = lib.Generator().manual_seed(9)
    steps = 8
    # Gauss-Legendre alphas
    pts, wts = np.polynomial.legendre.leggauss(steps)
    alphas = lib.tensor(list(0.5 * (pts + 1)), dtype=dt)
    w = lib.tensor(list(0.5 * wts), dtype=dt)
    total = lib.zeros_like(x)
    for _ in range(3):
        xn = x + 0.1 * lib.randn(x.shape, generator=g, dtype=dt)
        scaled = (alphas.view(-1, 1, 1) * xn).reshape(-1, 5).requires_grad_()
        out = net(scaled).view(steps, 3, 3)
        sel = out.gather(2, target.view(1, 3, 1).expand(steps, 3, 1)).squeeze(-1)
        (gr,) = lib.autograd.grad(sel, scaled, grad_outputs=lib.ones_like(sel))
        gr = gr.view(steps, 3, 5)
        total += xn * (w.view(-1, 1, 1) * gr).sum(0)
    rec("ig_nt", total / 3)
    rec("sq", (total / 3).square())
    rec("vg", lib.var(total, dim=1, correction=0))
    rec("heat", F.normalize(total, p=1, dim=1))
    rec("cummax", total.abs().cummax(dim=1).values)
    rec("sorted", total.sort(dim=1, descending=True, stable=True).indices)


def p_mha_rollout(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(30)
    enc = (
        nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True),
            num_layers=2,
            enable_nested_tensor=False,
        )
        .to(dt)
        .eval()
    )
    atts, outs = [], []
    hs = []
    for layer in enc.layers:
        sa = layer.self_attn
        hs.append(
            sa.register_forward_hook(
                lambda m, i, o: outs.append((type(o).__name__, len(o), o[1] is None))
            )
        )
        orig = sa.forward

        def fwd(*args, _orig=orig, **kw):
            kw["need_weights"] = True
            kw["average_attn_weights"] = False
            out = _orig(*args, **kw)
            atts.append(out[1])
            return out

        sa.forward = fwd
    x = lib.randn(2, 5, 8, dtype=dt)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    rec("mask", mask)
    with lib.no_grad():
        y = enc(x, mask=mask, is_causal=True)
    for h in hs:
        h.remove()
    rec("y", y)
    rec("outs", str(outs))
    rec("att_shape", str([tuple(a.shape) for a in atts]))
    rec("att", lib.stack(atts))
    roll = lib.eye(5, dtype=dt)
    for a in atts:
        a = a.mean(1) + lib.eye(5, dtype=dt)
        roll = (a / a.sum(-1, keepdim=True)) @ roll
    rec("roll", roll)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4).to(dt)
    q, k, v = (
        lib.randn(2, 3, 8, dtype=dt),
        lib.randn(2, 4, 6, dtype=dt),
        lib.randn(2, 4, 4, dtype=dt),
    )
    kpm = lib.tensor([[False, False, True, True], [False, False, False, False]])
    o, w = mha(q, k, v, key_padding_mask=kpm)
    rec("o", o)
    rec("w", w)
    o2, w2 = mha(q, k, v, key_padding_mask=kpm, average_attn_weights=False)
    rec("w2", w2)
    o.sum().backward()
    rec.params("mha", mha, grads=True)


def p_batched_grads(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(31)
    net = _mlp(lib, dt, 4, 3)
    x = lib.randn(2, 4, dtype=dt, requires_grad=True)
    out = F.softmax(net(x), -1)
    eye = lib.eye(3, dtype=dt).unsqueeze(1).expand(3, 2, 3)
    (J,) = lib.autograd.grad(out, x, grad_outputs=eye, is_grads_batched=True, retain_graph=True)
    rec("J", J)
    u = lib.zeros(3, dtype=dt, requires_grad=True)
    g = lib.autograd.grad(out.sum(), [x, u], allow_unused=True, retain_graph=True)
    rec("unused", str(g[1] is None))
    g2 = lib.autograd.grad(
        out.sum(), [x, u], allow_unused=True, materialize_grads=True, retain_graph=True
    )
    rec("mat", g2[1])
    rec.err("implicit", lambda: lib.autograd.grad(out, x))
    rec.err("unused_err", lambda: lib.autograd.grad(out.sum(), [x, u]))
    rec.err("after_unused", lambda: out.sum().backward())
    out = net(x).sum()
    out.backward()
    rec("xg", x.grad)
    rec.err("twice", lambda: out.backward())
    rec.err("hook_nograd", lambda: lib.ones(2).register_hook(lambda g: g))
    y = (x * 2).sum(0)
    y.register_hook(lambda g: g[:2])
    rec.err("hook_shape", lambda: y.sum().backward())
    z = x * 3
    z.register_hook(lambda g: g.to(lib.float16))
    rec.err("hook_dtype", lambda: z.sum().backward())


def p_shap_coalitions(lib, dt, rec):
    lib.manual_seed(32)
    M = 4
    net = _mlp(lib, dt, M, 1, h=8)
    x = lib.randn(M, dtype=dt)
    bg = lib.zeros(M, dtype=dt)
    cp = lib.cartesian_prod(*[lib.tensor([0, 1])] * M)
    rec("cp", cp)
    combos = [lib.combinations(lib.arange(M), r=r) for r in range(M + 1)]
    rec("combo_shapes", str([tuple(c.shape) for c in combos]))
    rec("c2", combos[2])
    rec("c_rep", lib.combinations(lib.arange(3), 2, with_replacement=True))
    # permutation SHAP with randperm + index_add_
    g = lib.Generator().manual_seed(4)
    phi = lib.zeros(M, dtype=dt)
    cnt = lib.zeros(M, dtype=dt)
    with lib.no_grad():
        for _ in range(5):
            perm = lib.randperm(M, generator=g)
            cur = bg.clone()
            prev = net(cur).squeeze()
            for j in perm.tolist():
                cur[j] = x[j]
                val = net(cur).squeeze()
                phi.index_add_(0, lib.tensor([j]), (val - prev).reshape(1))
                cnt.scatter_add_(0, lib.tensor([j]), lib.ones(1, dtype=dt))
                prev = val
            rec("perm", perm)
    rec("phi", phi / cnt)
    # sampling coalition sizes with a Binomial and shapley kernel sampling weights
    sizes = lib.arange(1, M, dtype=dt)
    kern = (M - 1) / (sizes * (M - sizes))
    probs = kern / kern.sum()
    rec("probs", probs)
    draws = lib.multinomial(probs, 10, replacement=True, generator=g)
    rec("draws", draws)
    rec("bincount", lib.bincount(draws, minlength=M))
    b = lib.distributions.Binomial(total_count=M, probs=lib.tensor(0.5, dtype=dt))
    rec("binom_lp", b.log_prob(lib.arange(M + 1, dtype=dt)))
    rec("binom_ent", b.entropy())
    rec("unique", lib.unique(draws, return_counts=True)[1])


def p_blur_baselines(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(33)
    x = lib.randn(1, 3, 9, 9, dtype=dt)
    k = 5
    t = lib.arange(k, dtype=dt) - k // 2
    g1 = lib.exp(-(t**2) / (2 * 1.2**2))
    g1 = g1 / g1.sum()
    g2 = lib.outer(g1, g1)
    w = g2.expand(3, 1, k, k)
    blurred = F.conv2d(F.pad(x, (2, 2, 2, 2), mode="reflect"), w, groups=3)
    rec("blurred", blurred)
    rec(
        "sep",
        F.conv2d(
            F.conv2d(
                F.pad(x, (2, 2, 2, 2), mode="replicate"),
                g1.view(1, 1, 1, k).expand(3, 1, 1, k),
                groups=3,
            ),
            g1.view(1, 1, k, 1).expand(3, 1, k, 1),
            groups=3,
        ),
    )
    rec("avg", F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False))
    rec("avg_inc", F.avg_pool2d(x, 3, stride=1, padding=1))
    # random transformations robustness: affine_grid + grid_sample
    theta = lib.tensor(
        [[[math.cos(0.3), -math.sin(0.3), 0.1], [math.sin(0.3), math.cos(0.3), -0.05]]], dtype=dt
    )
    grid = F.affine_grid(theta, (1, 3, 9, 9), align_corners=False)
    rec("grid", grid)
    xr = x.clone().requires_grad_()
    rot = F.grid_sample(xr, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
    rot.pow(2).sum().backward()
    rec("rot", rot)
    rec("rot_grad", xr.grad)
    rec("nearest", F.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=True))
    rec("scale", F.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=False))
    rec("area", F.interpolate(x, size=(4, 4), mode="area"))
    rec("aa", F.interpolate(x, size=(4, 4), mode="bilinear", antialias=True))


def p_prototypes(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(34)
    feats = lib.randn(12, 6, dtype=dt)
    protos = lib.randn(4, 6, dtype=dt, requires_grad=True)
    d = lib.cdist(feats, protos)
    rec("cdist", d)
    rec("cdist_p1", lib.cdist(feats, protos, p=1))
    sim = lib.log((d**2 + 1) / (d**2 + 1e-4))
    rec("sim", sim)
    sim.sum().backward()
    rec("pgrad", protos.grad)
    rec("pdist", F.pdist(feats[:5]))
    rec("pair", F.pairwise_distance(feats[:4], protos.detach(), p=2, eps=1e-6))
    nn_idx = d.argmin(0)
    rec("nn_idx", nn_idx)
    d = d.detach()
    kv, ki = d.topk(3, dim=0, largest=False)
    rec("knn", kv)
    rec("knn_i", ki)
    rec("bucket", lib.bucketize(d[:, 0], lib.tensor([1.0, 2.0, 3.0], dtype=dt)))
    rec(
        "ss",
        lib.searchsorted(lib.sort(d[:, 0]).values, lib.tensor([1.5, 2.5], dtype=dt), right=True),
    )
    rec("entr", lib.special.entr(F.softmax(-d, 1)))
    rec("xlogy", lib.xlogy(F.softmax(-d, 1), F.softmax(-d, 1)))
    sol = lib.linalg.lstsq(feats, d, driver="gelsd")
    rec("lstsq", sol.solution)
    rec("lstsq_res", sol.residuals)
    rec("lstsq_rank", sol.rank)
    rec("lstsq_sv", sol.singular_values)
    rec("lstsq_gelsy", lib.linalg.lstsq(feats, d, driver="gelsy").solution)
    rec("lstsq_gelsy_res", lib.linalg.lstsq(feats, d, driver="gelsy").residuals)


def p_func_errors(lib, dt, rec):
    F = lib.nn.functional
    fn = lib.func
    lib.manual_seed(40)
    net = _mlp(lib, dt, 3, 2)
    params = dict(net.named_parameters())
    x = lib.randn(4, 3, dtype=dt)
    rec.err("grad_nonscalar", lambda: fn.grad(lambda p: fn.functional_call(net, p, (x,)))(params))
    rec.err(
        "int_aux",
        lambda: fn.grad(lambda p: (fn.functional_call(net, p, (x,)).sum(), 7), has_aux=True)(
            params
        ),
    )
    g, aux = fn.grad(
        lambda p: (fn.functional_call(net, p, (x,)).sum(), {"n": lib.tensor(7)}), has_aux=True
    )(params)
    aux = aux["n"]
    rec("aux", aux)
    rec("g", g["4.bias"])
    rec.err(
        "strict",
        lambda: fn.functional_call(net, {"0.weight": params["0.weight"]}, (x,), strict=True),
    )
    rec.err("rand_in_vmap", lambda: fn.vmap(lambda t: t + lib.rand(3, dtype=dt))(x))
    rec("rand_same", fn.vmap(lambda t: t * 0 + lib.rand(3, dtype=dt), randomness="same")(x).shape)
    rec.err("bad_in_dims", lambda: fn.vmap(lambda t: t, in_dims=2)(x))
    rec.err("size_mismatch", lambda: fn.vmap(lambda a, b: a + b)(x, lib.randn(5, 3, dtype=dt)))
    rec("chunk", fn.vmap(lambda t: F.softmax(t, 0), chunk_size=3)(x))
    rec("out_dims", fn.vmap(lambda t: t * 2, out_dims=1)(x))
    # ensembles
    models = [_mlp(lib, dt, 3, 2) for _ in range(3)]
    ps, bs = fn.stack_module_state(models)
    rec("stacked_keys", str(sorted(ps)))
    base = models[0]

    def f1(p, b, xx):
        return fn.functional_call(base, (p, b), (xx,))

    ens = fn.vmap(f1, in_dims=(0, 0, None))(ps, bs, x)
    rec("ens", ens)
    rec("ens_req", str(ps["0.weight"].requires_grad))


def p_custom_fn_details(lib, dt, rec):
    Fn = lib.autograd.Function

    class ClampGrad(Fn):
        @staticmethod
        def forward(x, lo):
            return x.clamp(min=lo)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, lo = inputs
            ctx.save_for_backward(x)
            ctx.lo = lo

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x > ctx.lo).to(g.dtype), None

        @staticmethod
        def vmap(info, in_dims, x, lo):
            return ClampGrad.apply(x, lo), in_dims[0]

    class OnceDiff(Fn):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp()

    class ArgmaxMask(Fn):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax(-1)
            ctx.mark_non_differentiable(idx)
            ctx.set_materialize_grads(False)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, gi):
            return None if g is None else g * 2

    lib.manual_seed(41)
    x = lib.randn(3, 4, dtype=dt, requires_grad=True)
    y = ClampGrad.apply(x, 0.1)
    y.sum().backward()
    rec("g", x.grad)
    rec("vm", lib.func.vmap(lambda t: ClampGrad.apply(t, 0.0))(x.detach()))
    rec("gr", lib.func.grad(lambda t: ClampGrad.apply(t, 0.0).sum())(x.detach()))
    z = OnceDiff.apply(x)
    (gz,) = lib.autograd.grad(z.sum(), x, create_graph=True)
    rec("gz", gz)
    rec("gz_req", str(gz.requires_grad))
    rec.err("double", lambda: gz.sum().backward())
    a, idx = ArgmaxMask.apply(x)
    rec("idx", idx)
    rec("idx_req", str((idx.requires_grad, a.requires_grad)))
    x.grad = None
    a.sum().backward()
    rec("ga", x.grad)
    rec.err("kwargs", lambda: ClampGrad.apply(x, lo=0.0))
    rec("name", type(y.grad_fn).__name__)


def p_lstm_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(42)
    lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True).to(dt)
    head = nn.Linear(5, 2).to(dt)
    x = lib.randn(2, 6, 4, dtype=dt, requires_grad=True)
    outs = []
    h = lstm.register_forward_hook(
        lambda m, i, o: outs.append((len(i), type(o).__name__, len(o), len(o[1])))
    )
    grads = []
    hb = lstm.register_full_backward_hook(
        lambda m, gi, go: grads.append((len(gi), len(go), [g is None for g in go]))
    )
    out, (hn, cn) = lstm(x)
    y = head(out[:, -1])
    y[:, 1].sum().backward()
    h.remove()
    hb.remove()
    rec("outs", str(outs))
    rec("grads", str(grads))
    rec("xg", x.grad)
    # per-timestep saliency
    rec("t_sal", x.grad.norm(dim=-1))

    # erasure of a timestep via a forward hook replacing outputs
    def replace(m, i, o):
        seq, (h_, c_) = o
        return seq * 0.5, (h_, c_)

    hr = lstm.register_forward_hook(replace)
    o2, _ = lstm(x)
    hr.remove()
    rec("o2", o2)
    # GRU + packed sequence
    gru = nn.GRU(4, 3, batch_first=True, bidirectional=True).to(dt)
    packed = nn.utils.rnn.pack_padded_sequence(x, lib.tensor([6, 4]), batch_first=True)
    po, ph = gru(packed)
    pad, lens = nn.utils.rnn.pad_packed_sequence(po, batch_first=True)
    rec("pad", pad)
    rec("lens", lens)
    rec("ph", ph)


def p_hook_edges(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(50)

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 3)

        def forward(self, x, y, scale=1.0, flag=None):
            return self.a(x) * scale + y, x.sum()

    m = Two().to(dt)
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)
    y = lib.randn(2, 3, dtype=dt, requires_grad=True)
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
    m.register_forward_pre_hook(
        lambda mod, args, kw: log.append(("prekw", len(args), sorted(kw))), with_kwargs=True
    )
    m.register_forward_hook(lambda mod, args, out: log.append(("fwd", len(args), len(out))))
    m.register_forward_hook(
        lambda mod, args, kw, out: log.append(("fwdkw", sorted(kw))), with_kwargs=True
    )
    m.register_full_backward_hook(
        lambda mod, gi, go: log.append(("bwd", [g is None for g in gi], [g is None for g in go]))
    )
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", [g is None for g in go])))
    o, s = m(x, y, scale=2.0)
    o.sum().backward()
    rec("log", str(log))
    rec("xg", x.grad)
    rec("yg", y.grad)
    log.clear()
    x.grad = None
    o, s = m(x, y.detach())
    (o.sum() + s).backward()
    rec("log2", str(log))
    rec("xg2", x.grad)
    # identity module with full backward hook
    ident = nn.Identity()
    got = []
    ident.register_full_backward_hook(lambda mod, gi, go: got.append((gi[0] * 1).sum()))
    z = lib.randn(4, dtype=dt, requires_grad=True)
    (ident(z) * 3).sum().backward()
    rec("ident", lib.stack(got))
    rec("zg", z.grad)
    # global module hooks
    seen = []
    M = nn.modules.module
    h1 = M.register_module_forward_pre_hook(lambda mod, a: seen.append("pre:" + type(mod).__name__))
    h2 = M.register_module_full_backward_hook(
        lambda mod, gi, go: seen.append("bw:" + type(mod).__name__)
    )
    seq = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).to(dt)
    seq(x).sum().backward()
    h1.remove()
    h2.remove()
    rec("global", str(seen))
    # in-place edit of the input in a pre hook (no grad needed)
    lin = nn.Linear(3, 2).to(dt)

    def clamp_in(mod, args):
        args[0].clamp_(-0.5, 0.5)

    hh = lin.register_forward_pre_hook(clamp_in)
    inp = lib.randn(2, 3, dtype=dt)
    out = lin(inp)
    hh.remove()
    rec("inp_clamped", inp)
    rec("out", out)
    rec.err("leaf_inplace", lambda: lin.register_forward_pre_hook(clamp_in) and lin(x))


def p_state_dict_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(51)
    probe = nn.Linear(4, 2).to(dt)
    calls = []

    def post(module, sd, prefix, local_metadata):
        calls.append(("post", prefix, sorted(sd)))
        sd[prefix + "extra"] = lib.tensor(1.0)
        return sd

    probe._register_state_dict_hook(post)
    probe.register_state_dict_pre_hook(
        lambda m, prefix, keep_vars: calls.append(("pre", prefix, keep_vars))
    )
    wrap = nn.Sequential(probe)
    sd = wrap.state_dict()
    rec("keys", str(list(sd)))
    rec("calls", str(calls))
    calls.clear()

    def load_pre(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
        state_dict.pop(prefix + "extra", None)
        calls.append(("lpre", prefix, strict))

    probe._register_load_state_dict_pre_hook(load_pre, with_module=True)

    def load_post(module, keys):
        calls.append(("lpost", list(keys.missing_keys), list(keys.unexpected_keys)))

    probe.register_load_state_dict_post_hook(load_post)
    res = wrap.load_state_dict(sd)
    rec("res", str((res.missing_keys, res.unexpected_keys)))
    rec("calls2", str(calls))
    sd2 = {k: v for k, v in sd.items() if k != "0.bias"}
    rec.err("strict_missing", lambda: wrap.load_state_dict(sd2))
    r2 = wrap.load_state_dict(sd2, strict=False)
    rec("nonstrict", str(r2))
    rec.err(
        "shape", lambda: wrap.load_state_dict({"0.weight": lib.zeros(3, 3), "0.bias": lib.zeros(2)})
    )


def p_probe_training_loop(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(52)
    X = lib.randn(40, 6, dtype=dt)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
    ds = lib.utils.data.TensorDataset(X, y)
    g = lib.Generator().manual_seed(0)
    dl = lib.utils.data.DataLoader(ds, batch_size=16, shuffle=True, generator=g, drop_last=False)
    probe = nn.Sequential(nn.Dropout(0.2), nn.Linear(6, 2)).to(dt)
    opt = lib.optim.AdamW(probe.parameters(), lr=0.05, weight_decay=0.01)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    for _ep in range(3):
        probe.train()
        for xb, yb in dl:
            loss = F.cross_entropy(probe(xb), yb, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(probe.parameters(), 1.0)
            opt.step()
            rec("loss", loss)
        sched.step()
        rec("lr", sched.get_last_lr()[0])
    probe.eval()
    with lib.inference_mode():
        logits = probe(X)
    rec("logits", logits)
    rec("acc", (logits.argmax(1) == y).to(dt).mean())
    # selectivity: control task with shuffled labels
    perm = lib.randperm(40, generator=g)
    rec("perm", perm)
    # MDL-style online code: cumulative codelength
    lp = F.log_softmax(logits, -1).gather(1, y.unsqueeze(1)).squeeze(1)
    rec("codelen", -lp.cumsum(0) / math.log(2))
    cm = lib.zeros(2, 2, dtype=lib.long)
    cm.index_put_((y, logits.argmax(1)), lib.ones(40, dtype=lib.long), accumulate=True)
    rec("confusion", cm)
    rec("f1", 2 * cm[1, 1] / (2 * cm[1, 1] + cm[0, 1] + cm[1, 0]))


def p_forward_mode(lib, dt, rec):
    fwAD = lib.autograd.forward_ad
    F = lib.nn.functional
    fn = lib.func
    lib.manual_seed(60)
    net = _cnn(lib, dt).eval()
    x = lib.randn(2, 3, 5, 5, dtype=dt)
    v = lib.randn(2, 3, 5, 5, dtype=dt)
    with fwAD.dual_level():
        out = net(fwAD.make_dual(x, v))
        p, t = fwAD.unpack_dual(out)
    rec("p", p)
    rec("t", t)
    _, t2 = fn.jvp(net, (x,), (v,))
    rec("t2", t2)
    # directional derivative of the loss wrt parameters (TracIn-style) via functional_call + jvp
    params = {k: p_.detach() for k, p_ in net.named_parameters()}
    tang = {k: lib.randn_like(p_) for k, p_ in params.items()}

    def loss_of(pp):
        return F.cross_entropy(fn.functional_call(net, pp, (x,)), lib.tensor([1, 3]))

    val, dd = fn.jvp(loss_of, (params,), (tang,))
    rec("val", val)
    rec("dd", dd)
    g = fn.grad(loss_of)(params)
    rec("dot", sum((g[k] * tang[k]).sum() for k in params))

    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_forward(a)
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g_):
            (a,) = ctx.saved_tensors
            return 2 * a * g_

        @staticmethod
        def jvp(ctx, ta):
            (a,) = ctx.saved_tensors
            return 2 * a * ta

    a = lib.randn(4, dtype=dt)
    ta = lib.randn(4, dtype=dt)
    with fwAD.dual_level():
        o = Sq.apply(fwAD.make_dual(a, ta))
        rec("custom_jvp", fwAD.unpack_dual(o).tangent)
    # vjp with aux, jacrev with argnums
    o, vjp_fn, aux = fn.vjp(lambda t: (net(t), t.mean()), x, has_aux=True)
    rec("aux", aux)
    (gv,) = vjp_fn(lib.ones_like(o))
    rec("gv", gv)
    w = lib.randn(3, 4, dtype=dt)
    jac = fn.jacrev(lambda a_, b_: (a_ @ b_).tanh().sum(0), argnums=(0, 1))(
        w, lib.randn(4, 2, dtype=dt)
    )
    rec("jac0", jac[0])
    rec("jac1", jac[1])
    j2, aux2 = fn.jacfwd(lambda t: (t.sin(), t.cos().sum()), has_aux=True)(a)
    rec("j2", j2)
    rec("aux2", aux2)
    h = fn.hessian(lambda pp: loss_of(pp), argnums=0)(
        {"6.bias": params["6.bias"]} | {k: v for k, v in params.items() if k != "6.bias"}
    )
    rec("h_bias", h["6.bias"]["6.bias"])


def p_deep_dream(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(61)
    net = _cnn(lib, dt).eval()
    net.requires_grad_(False)
    img = lib.rand(1, 3, 8, 8, dtype=dt).requires_grad_(True)
    feats = {}
    h = net[3].register_forward_hook(lambda m, i, o: feats.update(o=o))
    for _octave, scale in enumerate([0.75, 1.0]):
        with lib.no_grad():
            base = nn.functional.interpolate(
                img.detach(), scale_factor=scale, mode="bilinear", align_corners=False
            )
        cur = base.clone().requires_grad_()
        for _i in range(3):
            net(cur)
            obj = feats["o"].norm()
            obj.backward()
            with lib.no_grad():
                g = cur.grad
                cur.data += 0.1 * g / (g.abs().mean() + 1e-8)
                cur.data.clamp_(0, 1)
                cur.grad.zero_()
            rec("obj", obj)
        rec("cur", cur)
        rec("gstd", g.std())
    rec("req", str((cur.requires_grad, cur.is_leaf, cur.grad is not None)))
    # channel objective with total variation in the lucent style
    p = lib.zeros(1, 3, 6, 6, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.5, momentum=0.5, nesterov=True)
    for _ in range(3):
        im = lib.sigmoid(p)
        net(im)
        tv = lib.diff(im, dim=2).abs().sum() + lib.diff(im, dim=3).abs().sum()
        loss = -feats["o"][:, 2].mean() + 1e-3 * tv
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec("tvloss", loss)
    h.remove()
    rec("p", p)
    # the stale activation after the hook is gone: its graph was freed
    rec.err("stale", lambda: (-feats["o"].mean()).backward())


def p_hook_errors(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(70)
    net = _mlp(lib, dt, 3, 2)
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)
    h = net[0].register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    rec.err("bw_len", lambda: net(x).sum().backward())
    h.remove()
    h = net[0].register_full_backward_hook(lambda m, gi, go: [gi[0]])
    rec.err("bw_list", lambda: net(x).sum().backward())
    h.remove()
    h = net[0].register_full_backward_hook(lambda m, gi, go: gi[0])
    rec.err("bw_bare", lambda: net(x).sum().backward())
    h.remove()
    h = net[2].register_full_backward_pre_hook(lambda m, go: (go[0], go[0]))
    rec.err("bpre_len", lambda: net(x).sum().backward())
    h.remove()
    h = net[2].register_forward_pre_hook(lambda m, a: "nope")
    rec.err("pre_str", lambda: net(x))
    h.remove()
    h = net[2].register_forward_hook(lambda m, a, o: (o, o))
    rec.err("fwd_tuple", lambda: net(x))
    h.remove()
    # module called twice in one forward: full backward hook fires twice
    calls = []
    lin = nn.Linear(3, 3).to(dt)
    h = lin.register_full_backward_hook(lambda m, gi, go: calls.append(gi[0].sum()))
    x.grad = None
    lin(lin(x)).sum().backward()
    h.remove()
    rec("twice", lib.stack(calls))
    rec("xg", x.grad)
    # hooks registered on a tensor after the forward
    y = net(x)
    seen = []
    y.register_hook(lambda g: seen.append(g.sum()))
    y.sum().backward()
    rec("late", lib.stack(seen))
    # register_hook on a tensor in no_grad
    with lib.no_grad():
        z = net(x)
    rec.err("nograd_hook", lambda: z.register_hook(lambda g: g))

    # non-tensor outputs with a full backward hook
    class Out(nn.Module):
        def forward(self, a):
            return {"y": a * 2}

    m = Out()
    h = m.register_full_backward_hook(lambda *a: None)
    rec.err("dict_out", lambda: m(x)["y"].sum().backward())
    h.remove()

    class Many(nn.Module):
        def forward(self, a, n):
            return a * n, n

    m2 = Many()
    got = []
    m2.register_full_backward_hook(lambda mod, gi, go: got.append((len(gi), len(go))))
    out, n = m2(x, 3)
    out.sum().backward()
    rec("many", str(got))
    # prepend on backward hooks
    order = []
    lin2 = nn.Linear(3, 3).to(dt)
    lin2.register_full_backward_hook(lambda *a: order.append("a"))
    lin2.register_full_backward_hook(lambda *a: order.append("b"), prepend=True)
    lin2.register_full_backward_pre_hook(lambda *a: order.append("pa"))
    lin2.register_full_backward_pre_hook(lambda *a: order.append("pb"), prepend=True)
    lin2(x).sum().backward()
    rec("order", str(order))


def _resnetish(lib, dt):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm2d(c)
            self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b2 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            out = self.relu(self.b1(self.c1(x)))
            out = self.b2(self.c2(out))
            return self.relu(out + x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True)
            )
            self.layer1 = Block(8)
            self.layer2 = Block(8)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            x = self.layer2(self.layer1(self.stem(x)))
            return self.fc(lib.flatten(self.pool(x), 1))

    return Net().to(dt)


def p_cam_family(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(80)
    net = _resnetish(lib, dt)
    # give BatchNorm some running statistics, then explain in eval mode
    with lib.no_grad():
        for _ in range(2):
            net(lib.randn(4, 3, 12, 12, dtype=dt))
    net.eval()
    rec("rm", net.layer1.b1.running_mean)
    rec("nbt", net.layer1.b1.num_batches_tracked)
    acts, grads = {}, {}

    def fwd(m, i, o):
        acts["a"] = o
        if not o.requires_grad:  # (the ScoreCAM pass runs under no_grad)
            return
        o.register_hook(lambda g: grads.__setitem__("g", g))

    h = net.layer2.register_forward_hook(fwd)
    x = lib.randn(2, 3, 12, 12, dtype=dt)
    out = net(x)
    net.zero_grad()
    out[:, 1].sum().backward()
    A, G = acts["a"].detach(), grads["g"]
    rec("G", G)
    # LayerCAM
    lc = F.relu((F.relu(G) * A).sum(1))
    rec("layercam", lc)
    # XGrad-CAM
    w = (G * A).sum((2, 3)) / (A.sum((2, 3)) + 1e-7)
    rec("xgrad", F.relu((w[:, :, None, None] * A).sum(1)))
    # EigenCAM: first principal component of the activations
    B, C, H, W = A.shape
    flat = A.reshape(B, C, H * W).transpose(1, 2)
    flat = flat - flat.mean(1, keepdim=True)
    U, S, Vh = lib.linalg.svd(flat, full_matrices=False)
    proj = (flat @ Vh[:, 0, :].unsqueeze(-1)).squeeze(-1).view(B, H, W)
    rec("S", S)
    rec("eigen_abs", proj.abs())
    # ScoreCAM: masks from upsampled, normalised activations
    with lib.no_grad():
        up = F.interpolate(A, size=(12, 12), mode="bilinear", align_corners=False)
        mx = up.flatten(2).max(-1).values[..., None, None]
        mn = up.flatten(2).min(-1).values[..., None, None]
        masks = (up - mn) / (mx - mn).clamp_min(1e-8)
        masked = (x.unsqueeze(1) * masks.unsqueeze(2)).flatten(0, 1)
        scores = F.softmax(net(masked), -1)[:, 1].view(B, C)
        sc = F.relu((scores[:, :, None, None] * A).sum(1))
    rec("scorecam", sc)
    h.remove()
    # autograd.grad wrt a captured activation (pytorch-grad-cam's alternative path)
    store = []
    h = net.layer1.register_forward_hook(lambda m, i, o: store.append(o))
    out = net(x)
    (ga,) = lib.autograd.grad(out[:, 2].sum(), store[0])
    h.remove()
    rec("ga", ga)
    rec("bn_training", str([m.training for m in net.modules()][:3]))


def p_counterfactual(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(81)
    nn = lib.nn
    clf = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 2)).to(dt)
    x0 = lib.randn(3, 5, dtype=dt)
    target = 1 - clf(x0).argmax(1)
    delta = lib.zeros_like(x0, requires_grad=True)
    opt = lib.optim.Adam([delta], lr=0.1)
    lam = 0.5
    for _step in range(8):
        xc = x0 + delta
        logits = clf(xc)
        loss = F.cross_entropy(logits, target, reduction="none") + lam * delta.abs().sum(1)
        opt.zero_grad()
        loss.mean().backward()
        opt.step()
        with lib.no_grad():
            delta.copy_(lib.where(delta.abs() < 0.02, lib.zeros_like(delta), delta))
        rec("loss", loss)
    rec("delta", delta)
    rec("flipped", clf(x0 + delta).argmax(1) == target)
    # DiCE-style diversity term through a determinant of a kernel matrix
    cands = (x0[0] + 0.3 * lib.randn(4, 5, dtype=dt)).requires_grad_()
    K = 1.0 / (1.0 + lib.cdist(cands, cands))
    div = lib.det(K)
    div.backward()
    rec("div", div)
    rec("div_grad", cands.grad)
    rec("logdet", lib.logdet(K))
    rec("slogdet", lib.linalg.slogdet(K).logabsdet)
    # adversarial FGSM/PGD as a robustness explanation
    xa = x0.clone().requires_grad_()
    F.cross_entropy(clf(xa), target).backward()
    adv = x0 + 0.1 * xa.grad.sign()
    rec("fgsm", adv)
    xp = x0.clone()
    for _ in range(3):
        xp.requires_grad_(True)
        lo = F.cross_entropy(clf(xp), target)
        (gx,) = lib.autograd.grad(lo, xp)
        xp = xp.detach() - 0.05 * gx.sign()
        xp = lib.max(lib.min(xp, x0 + 0.1), x0 - 0.1)
    rec("pgd", xp)


def p_autocast_saliency(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(90)
    net = _cnn(lib, dt)
    x = lib.randn(2, 3, 6, 6, dtype=dt, requires_grad=True)
    acts = {}
    h = net[2].register_forward_hook(lambda m, i, o: acts.update(a=o))
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out = net(x)
        rec("out_dtype", str(out.dtype))
        rec("act_dtype", str(acts["a"].dtype))
        p = F.softmax(out, -1)
        rec("p_dtype", str(p.dtype))
        lp = F.log_softmax(out, -1)
        rec("lp_dtype", str(lp.dtype))
        score = p[:, 0].sum()
    score.backward()
    h.remove()
    rec("xgrad_dtype", str(x.grad.dtype))
    rec("wgrad_dtype", str(net[0].weight.grad.dtype))
    rec("is_autocast", str(lib.is_autocast_enabled("cpu")))
    with lib.autocast("cpu", dtype=lib.bfloat16):
        m = lib.randn(3, 3, dtype=dt) @ lib.randn(3, 3, dtype=dt)
        s = lib.randn(3, dtype=dt).exp()
        c = lib.cat([m, lib.ones(1, 3, dtype=dt)])
        with lib.autocast("cpu", enabled=False):
            e = lib.randn(2, 2, dtype=dt) @ lib.randn(2, 2, dtype=dt)
    rec("dtypes", str((m.dtype, s.dtype, c.dtype, e.dtype)))


def p_pca_concepts(lib, dt, rec):
    lib.manual_seed(100)
    A = lib.randn(30, 6, dtype=dt) @ lib.randn(6, 6, dtype=dt)
    Ac = A - A.mean(0)
    U, S, Vh = lib.linalg.svd(Ac, full_matrices=False)
    rec("S", S)
    # sklearn's svd_flip: each component's sign fixed by its largest loading (LAPACK's signs
    # are not part of the contract)
    big = Vh.abs().argmax(1)
    sgn = lib.sign(Vh.gather(1, big.unsqueeze(1)))
    Vh, U = Vh * sgn, U * sgn.T
    rec("Vh", Vh)
    rec("U", U[:5])
    cov = Ac.T @ Ac / (A.shape[0] - 1)
    ev, V = lib.linalg.eigh(cov)
    rec("ev", ev)
    rec("V_abs", V.abs())
    rec("recon", V @ lib.diag_embed(ev) @ V.mT)
    rec("cov", lib.cov(A.T))
    rec("corr", lib.corrcoef(A.T))
    Ul, Sl, Vl = lib.pca_lowrank(A, q=3, center=True, niter=2)
    rec("Sl", Sl)
    Us, Ss, Vs = lib.svd_lowrank(A, q=3)
    rec("Ss", Ss)
    # NMF concept extraction with multiplicative updates
    X = A.abs()
    g = lib.Generator().manual_seed(1)
    W = lib.rand(30, 3, generator=g, dtype=dt)
    H = lib.rand(3, 6, generator=g, dtype=dt)
    for _ in range(20):
        H = H * (W.T @ X) / (W.T @ W @ H + 1e-9)
        W = W * (X @ H.T) / (W @ H @ H.T + 1e-9)
    rec("nmf_err", lib.linalg.matrix_norm(X - W @ H))
    rec("H", H)
    q, r = lib.linalg.qr(A)
    rec("q", q[:4])
    rec("r", r)
    rec("svd_batched", lib.linalg.svd(A.view(5, 6, 6))[0])


def p_inplace_hooks(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(110)
    # guided backprop on a model with in-place ReLUs through full backward hooks
    net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(inplace=True), nn.Linear(6, 3)).to(dt)
    h = net[1].register_full_backward_hook(lambda m, gi, go: (gi[0].clamp(min=0),))
    x = lib.randn(2, 4, dtype=dt, requires_grad=True)
    rec.err("inplace_relu_hook", lambda: net(x).sum().backward())
    h.remove()
    # tensor hooks around in-place ops
    x.grad = None
    a = net[0](x)
    a.register_hook(lambda g: g * 2)
    b = a.relu_()
    b.register_hook(lambda g: g + 1)
    net[2](b).sum().backward()
    rec("xg", x.grad)
    # hook on a view, then in-place on the base
    x.grad = None
    c = net[0](x)
    v = c[:, :3]
    v.register_hook(lambda g: g * 10)
    c.mul_(2)
    rec.err("view_hook", lambda: (v.sum() + c.sum()).backward())
    rec("xg2", x.grad)
    # in-place edit inside a forward hook (activation steering)
    steer = lib.randn(6, dtype=dt)

    def add_steer(m, i, o):
        o.add_(steer)

    hh = net[0].register_forward_hook(add_steer)
    x.grad = None
    y = net(x)
    y.sum().backward()
    hh.remove()
    rec("steered", y)
    rec("xg3", x.grad)
    rec("ver", str(y._version))
    # steering by returning a new output from the hook with a scale
    hh = net[0].register_forward_hook(lambda m, i, o: o + 3.0 * steer / steer.norm())
    rec("steered2", net(x))
    hh.remove()
    # detach_ in a hook
    hh = net[0].register_forward_hook(lambda m, i, o: o.detach())
    x.grad = None
    net(x).sum().backward()
    rec("xg_none", str(x.grad is None))
    hh.remove()


def p_deconvnet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(120)
    conv1 = nn.Conv2d(3, 4, 3, padding=1).to(dt)
    conv2 = nn.Conv2d(4, 5, 3, padding=1).to(dt)
    pool = nn.MaxPool2d(2, stride=2, return_indices=True)
    unpool = nn.MaxUnpool2d(2, stride=2)
    x = lib.randn(1, 3, 8, 8, dtype=dt)
    with lib.no_grad():
        a1 = F.relu(conv1(x))
        p1, idx1 = pool(a1)
        a2 = F.relu(conv2(p1))
        rec("idx1", idx1)
        # keep only the strongest activation of channel 2
        sel = lib.zeros_like(a2)
        flat = a2[0, 2].flatten()
        k = flat.argmax()
        sel[0, 2].view(-1)[k] = flat[k]
        rec("k", k)
        r = F.conv_transpose2d(F.relu(sel), conv2.weight, padding=1)
        r = unpool(r, idx1, output_size=a1.shape[-2:])
        r = F.conv_transpose2d(F.relu(r), conv1.weight, padding=1)
        rec("recon", r)
        rec("unpool_f", F.max_unpool2d(p1, idx1, 2))
        # ties in max pooling
        t = lib.ones(1, 1, 4, 4, dtype=dt)
        tp, ti = F.max_pool2d(t, 2, return_indices=True)
        rec("tie_idx", ti)
        mp, mi = F.adaptive_max_pool2d(a1, (3, 3), return_indices=True)
        rec("amp", mp)
        rec("ami", mi)
        mp1, mi1 = F.max_pool1d(a1[0, :, 0], 3, stride=2, padding=1, return_indices=True)
        rec("mi1", mi1)
        rec(
            "unpool1",
            F.max_unpool1d(
                mp1.unsqueeze(0), mi1.unsqueeze(0), 3, stride=2, padding=1, output_size=[8]
            ),
        )
        rec("near_exact", F.interpolate(a1, size=(5, 5), mode="nearest-exact"))
        rec("near", F.interpolate(a1, size=(5, 5), mode="nearest"))
        ct = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1).to(dt)
        rec("ct", ct(p1))
        rec("ct_os", ct(p1, output_size=[8, 8]))
        rec.err("ct_bad_os", lambda: ct(p1, output_size=[11, 11]))
    xg = x.clone().requires_grad_()
    p, i = F.max_pool2d(F.relu(conv1(xg)), 2, return_indices=True)
    F.max_unpool2d(p, i, 2).pow(2).sum().backward()
    rec("unpool_grad", xg.grad)


def p_chefer_relevance(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(130)
    d, H, T, L = 8, 2, 5, 2
    qkvs = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(L)]).to(dt)
    head = nn.Linear(d, 3).to(dt)
    x = lib.randn(2, T, d, dtype=dt)
    atts, grads = [], []
    h = x
    for lyr in qkvs:
        q, k, v = lyr(h).view(2, T, 3, H, d // H).permute(2, 0, 3, 1, 4)
        a = F.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // H), dim=-1)
        a.register_hook(lambda g: grads.append(g))
        atts.append(a)
        o = (a @ v).transpose(1, 2).reshape(2, T, d)
        h = h + o
        # the fused kernel gives the same output
        o2 = F.scaled_dot_product_attention(q, k, v)
        rec("sdpa_diff", (a @ v) - o2)
    logits = head(h[:, 0])
    cls = logits.argmax(-1)
    onehot = F.one_hot(cls, 3).to(dt)
    (logits * onehot).sum().backward()
    grads = grads[::-1]
    R = lib.eye(T, dtype=dt).unsqueeze(0).repeat(2, 1, 1)
    for a, g in zip(atts, grads, strict=True):
        cam = (g * a).clamp(min=0).mean(1)
        R = R + lib.bmm(cam, R)
    rec("R", R)
    rec("cls_rel", R[:, 0, 1:])
    # masked sdpa with a bool mask and with an additive float mask, plus gradients
    qq = lib.randn(2, H, T, 4, dtype=dt, requires_grad=True)
    kk = lib.randn(2, H, T, 4, dtype=dt, requires_grad=True)
    vv = lib.randn(2, H, T, 4, dtype=dt, requires_grad=True)
    mask = lib.ones(T, T, dtype=lib.bool).tril()
    o1 = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask)
    o2 = F.scaled_dot_product_attention(qq, kk, vv, is_causal=True)
    fm = lib.zeros(T, T, dtype=dt).masked_fill(~mask, float("-inf"))
    o3 = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=fm, scale=0.3)
    rec("o1", o1)
    rec("o12", o1 - o2)
    rec("o3", o3)
    (o1.sum() + o3.pow(2).sum()).backward()
    rec("gq", qq.grad)
    rec("gk", kk.grad)
    rec("gv", vv.grad)
    rec.err(
        "both", lambda: F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask, is_causal=True)
    )
    gqa = F.scaled_dot_product_attention(qq, kk[:, :1], vv[:, :1], enable_gqa=True)
    rec("gqa", gqa)


def p_backward_exceptions(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(140)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(dt)
    x = lib.randn(2, 3, dtype=dt, requires_grad=True)

    def boom(g):
        raise ValueError("hook boom")

    # a tensor hook raising during backward, then backward again (graph partly freed?)
    h = net[0](x)
    hh = h.register_hook(boom)
    y = net[2](net[1](h)).sum()
    rec.err("first", lambda: y.backward())
    hh.remove()
    rec("g_after_fail", str(net[2].weight.grad is None))
    rec.err("second", lambda: y.backward())
    rec("xg", str(x.grad is None))
    net.zero_grad()
    # with retain_graph the second pass succeeds
    h = net[0](x)
    hh = h.register_hook(boom)
    y = net[2](net[1](h)).sum()
    rec.err("first_r", lambda: y.backward(retain_graph=True))
    hh.remove()
    rec("w2g_partial", net[2].weight.grad)
    rec.err("second_r", lambda: y.backward())
    rec("w2g", net[2].weight.grad)
    rec("xg2", x.grad)
    # module backward hook raising: handle still removable, later passes clean
    net.zero_grad()
    x.grad = None
    bh = net[1].register_full_backward_hook(lambda m, gi, go: boom(None))
    rec.err("mod", lambda: net(x).sum().backward())
    bh.remove()
    net(x).sum().backward()
    rec("clean", x.grad)
    # forward pre-hook raising with a handle kept in a list
    hs = [net[i].register_forward_pre_hook(lambda m, a: None) for i in range(3)]
    hs.append(net[1].register_forward_pre_hook(lambda m, a: boom(None)))
    rec.err("pre", lambda: net(x))
    for hh in hs:
        hh.remove()
    rec("n_pre", str([len(m._forward_pre_hooks) for m in net]))
    # anomaly mode names the failing node
    with lib.autograd.detect_anomaly(check_nan=True):
        (x * 0).sqrt().sum()
        rec.err("nan", lambda: (lib.log(x - x) * 0).sum().backward())
    rec("anom", str(lib.is_anomaly_enabled()))


def p_guided_relu_fn(lib, dt, rec):
    nn = lib.nn
    Fn = lib.autograd.Function

    class GuidedReLU(Fn):
        @staticmethod
        def forward(ctx, x):
            out = x.clamp(min=0)
            ctx.save_for_backward(out)
            return out

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g.clamp(min=0) * (out > 0).to(g.dtype)

    class InplaceClamp(Fn):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.clamp_(min=0)

        @staticmethod
        def backward(ctx, g):
            return g

    class Act(nn.Module):
        def forward(self, x):
            return GuidedReLU.apply(x)

    class NeedsFn(Fn):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.k = k
            ctx.save_for_backward(a, b)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            rec("needs", str(ctx.needs_input_grad))
            ga = g * b * ctx.k if ctx.needs_input_grad[0] else None
            gb = g * a * ctx.k if ctx.needs_input_grad[1] else None
            return ga, gb, None

    lib.manual_seed(150)
    net = nn.Sequential(
        nn.Conv2d(2, 3, 3, padding=1),
        Act(),
        nn.Conv2d(3, 2, 3),
        Act(),
        nn.Flatten(),
        nn.Linear(8, 2),
    ).to(dt)
    x = lib.randn(1, 2, 4, 4, dtype=dt, requires_grad=True)
    got = []
    h = net[1].register_full_backward_hook(lambda m, gi, go: got.append(gi[0].abs().sum()))
    out = net(x)
    out[0, 1].backward()
    h.remove()
    rec("gbp", x.grad)
    rec("hook", lib.stack(got))
    rec("fn", type(net[1](x).grad_fn).__name__)
    # in-place custom Function on a non-leaf
    y = x * 1.0
    z = InplaceClamp.apply(y)
    rec("same", str(z is y))
    rec("ver", y._version)
    rec("fn2", type(y.grad_fn).__name__)
    x.grad = None
    (z * 2).sum().backward()
    rec("gz", x.grad)
    rec.err("leaf", lambda: InplaceClamp.apply(x))
    a = lib.randn(3, dtype=dt, requires_grad=True)
    b = lib.randn(3, dtype=dt)
    NeedsFn.apply(a, b, 2.0).sum().backward()
    rec("ga", a.grad)
    # once_differentiable: double backward refuses
    x.grad = None
    (g1,) = lib.autograd.grad(net(x)[0, 0], x, create_graph=True)
    rec("g1_req", str(g1.requires_grad))
    rec.err("gg", lambda: g1.sum().backward())


def p_upsample_grads(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(160)
    cam = lib.rand(2, 1, 3, 3, dtype=dt, requires_grad=True)
    outs = [
        F.interpolate(cam, size=(7, 5), mode="bicubic", align_corners=False),
        F.interpolate(cam, size=(7, 5), mode="bicubic", align_corners=True),
        F.interpolate(cam, size=(2, 2), mode="bilinear", antialias=True),
        F.interpolate(cam, size=(2, 2), mode="bicubic", antialias=True),
        F.interpolate(cam, scale_factor=(2.5, 1.5), mode="nearest-exact"),
        F.pad(cam, (2, 1, 1, 2), mode="circular"),
        F.pad(cam, (2, 2, 2, 2), mode="reflect"),
        F.grid_sample(
            cam,
            lib.rand(2, 4, 4, 2, dtype=dt) * 2 - 1,
            mode="bicubic",
            padding_mode="border",
            align_corners=True,
        ),
        F.upsample(cam, scale_factor=2, mode="bilinear"),
        lib.roll(F.interpolate(cam, scale_factor=2), (1, -1), (2, 3)),
    ]
    ws = [lib.randn(o.shape, dtype=dt) for o in outs]
    for i, o in enumerate(outs):
        rec(f"o{i}", o)
    loss = sum((o * w).sum() for o, w in zip(outs, ws, strict=True))
    (g,) = lib.autograd.grad(loss, cam, create_graph=True)
    rec("g", g)
    (gg,) = lib.autograd.grad(g.pow(2).sum(), cam, allow_unused=True, materialize_grads=True)
    rec("gg", gg)
    rec.warns("upsample_warn", lambda: F.upsample(cam, scale_factor=2))


def p_checkpoint_hooks(lib, dt, rec):
    nn = lib.nn
    cp = lib.utils.checkpoint
    lib.manual_seed(170)
    blk = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4)).to(dt)
    head = nn.Linear(4, 2).to(dt)
    calls = []
    h = blk[0].register_forward_hook(lambda m, i, o: calls.append(("fwd", lib.is_grad_enabled())))
    hp = blk.register_forward_pre_hook(lambda m, a: calls.append(("pre", lib.is_grad_enabled())))
    hb = blk[2].register_full_backward_hook(lambda m, gi, go: calls.append(("bwd", gi[0] is None)))
    x = lib.randn(3, 4, dtype=dt, requires_grad=True)
    for reentrant in (False, True):
        calls.clear()
        x.grad = None
        blk.zero_grad()
        y = cp.checkpoint(blk, x, use_reentrant=reentrant)
        rec(f"calls_fwd_{reentrant}", str(calls))
        head(y).sum().backward()
        rec(f"calls_all_{reentrant}", str(calls))
        rec(f"xg_{reentrant}", x.grad)
        rec(f"wg_{reentrant}", blk[0].weight.grad)
    h.remove()
    hp.remove()
    hb.remove()
    rec.warns("no_flag", lambda: cp.checkpoint(blk, x))
    # checkpoint_sequential
    seq = nn.Sequential(*[nn.Linear(4, 4) for _ in range(4)]).to(dt)
    out = cp.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    out.pow(2).sum().backward()
    rec("seq_out", out)
    rec("seq_g", seq[0].weight.grad)
    # randomness is replayed on recompute
    drop = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).to(dt)
    x.grad = None
    o = cp.checkpoint(drop, x, use_reentrant=False)
    o.sum().backward()
    rec("drop_o", o)
    rec("drop_g", x.grad)


def p_embedding_ig(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(180)
    emb = nn.Embedding(12, 6, padding_idx=0, max_norm=1.5).to(dt)
    enc = nn.Sequential(nn.Linear(6, 6), nn.Tanh()).to(dt)
    clf = nn.Linear(6, 2).to(dt)
    tokens = lib.tensor([[3, 5, 7, 0, 0], [1, 2, 2, 9, 0]])
    mask = (tokens != 0).to(dt)

    def model_from_emb(e):
        h = enc(e) * mask.unsqueeze(-1)
        return clf(h.sum(1) / mask.sum(1, keepdim=True))

    rec("w_before", emb.weight.norm(dim=1))
    e = emb(tokens)
    rec("w_after", emb.weight.norm(dim=1))
    rec("e", e)
    base = emb(lib.zeros_like(tokens))
    steps = 10
    alphas = lib.linspace(0, 1, steps + 1, dtype=dt)[1:]
    total = lib.zeros_like(e)
    for a in alphas:
        ei = (base + a * (e.detach() - base)).requires_grad_()
        out = model_from_emb(ei)
        (g,) = lib.autograd.grad(out[:, 1].sum(), ei)
        total += g
    ig = (e.detach() - base) * total / steps
    rec("ig_tok", ig.sum(-1))
    # LayerIntegratedGradients style: hook replaces the embedding layer's output
    state = {}

    def repl(m, i, o):
        return state["e"]

    h = emb.register_forward_hook(repl)
    state["e"] = (0.5 * e.detach()).requires_grad_()
    out = model_from_emb(emb(tokens))
    out[:, 0].sum().backward()
    h.remove()
    rec("lig_g", state["e"].grad)
    # embedding gradient with padding_idx, scale_grad_by_freq
    emb2 = nn.Embedding(12, 4, padding_idx=0, scale_grad_by_freq=True).to(dt)
    emb2(tokens).pow(2).sum().backward()
    rec("g_pad", emb2.weight.grad)
    bag = nn.EmbeddingBag(12, 4, mode="mean", padding_idx=0).to(dt)
    rec("bag", bag(tokens))
    bag(tokens).sum().backward()
    rec("bag_g", bag.weight.grad)
    rec(
        "bag_ps",
        nn.EmbeddingBag(12, 4, mode="sum").to(dt)(
            tokens.flatten(), lib.tensor([0, 4]), per_sample_weights=lib.rand(10, dtype=dt)
        ),
    )
    rec("fe", F.embedding(tokens, emb.weight.detach().clone(), max_norm=0.5, norm_type=1.0))


def p_topk_jumprelu_sae(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    Fn = lib.autograd.Function

    class JumpReLU(Fn):
        @staticmethod
        def forward(ctx, x, theta, bw):
            ctx.save_for_backward(x, theta)
            ctx.bw = bw
            return x * lib.heaviside(x - theta, lib.zeros((), dtype=x.dtype))

        @staticmethod
        def backward(ctx, g):
            x, theta = ctx.saved_tensors
            rect = ((x - theta).abs() < ctx.bw / 2).to(x.dtype) / ctx.bw
            gx = g * (x > theta).to(x.dtype)
            gt = (-(theta / ctx.bw) * rect * g).sum(0)
            return gx, gt, None

    lib.manual_seed(190)
    d, m, k = 6, 16, 3
    W_enc = nn.Parameter(lib.randn(d, m, dtype=dt) * 0.3)
    W_dec = nn.Parameter(F.normalize(lib.randn(m, d, dtype=dt), dim=1))
    log_theta = nn.Parameter(lib.full((m,), -2.0, dtype=dt))
    X = lib.randn(32, d, dtype=dt)
    opt = lib.optim.Adam([W_enc, W_dec, log_theta], lr=1e-2)
    for _ in range(4):
        pre = X @ W_enc
        # TopK SAE
        top = pre.topk(k, dim=-1)
        z = lib.zeros_like(pre).scatter(-1, top.indices, F.relu(top.values))
        rec_top = z @ W_dec
        # JumpReLU SAE
        zj = JumpReLU.apply(pre, log_theta.exp(), 0.05)
        rec_j = zj @ W_dec
        l0 = lib.heaviside(pre - log_theta.exp(), lib.zeros((), dtype=dt)).sum(-1).mean()
        loss = (rec_top - X).pow(2).sum(-1).mean() + (rec_j - X).pow(2).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with lib.no_grad():
            W_dec.copy_(F.normalize(W_dec, dim=1))
        rec("loss", loss)
        rec("l0", l0)
        rec("idx", top.indices[:4])
    rec("W_enc", W_enc)
    rec("theta", log_theta.exp())
    rec("gtheta", log_theta.grad)
    # auxiliary loss on dead latents (top-k over the dead ones only)
    dead = lib.ones(m, dtype=lib.bool)
    dead[:8] = False
    aux_pre = (X @ W_enc).masked_fill(~dead, float("-inf"))
    aux = aux_pre.topk(2, dim=-1)
    rec("aux_vals", aux.values)
    rec("aux_idx", aux.indices)
