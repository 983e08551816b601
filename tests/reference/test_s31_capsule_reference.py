"""Session 31 (helper capsule): capsule networks and iterative-routing models written the way
research code writes them in torch, run under torch and minitorch with the same seeds and
compared record by record: primary capsules from conv2d reshaped/permuted into (batch, caps,
dim), squash in its eps variants (and at exactly-zero capsules, with norm's subgradient),
dynamic routing by agreement (matmul of 5-d broadcast weights, einsum, bmm, detached
predictions in the inner iterations, in-place logits, the old transpose-softmax helper,
Variable, implicit-dim softmax warnings, .data updates, -inf masked routes), per-sample vmap,
jacrev/jacfwd/hessian/vjp/jvp and forward-mode AD through routing, checkpointed routing,
convolutional capsules by F.unfold/fold and Tensor.unfold, EM routing with Gaussian
log-likelihoods (by hand, Normal, MultivariateNormal) and spread loss, 4x4 matrix capsules with
coordinate addition, self-routing and attention routing (scaled_dot_product_attention), graph
capsules by index_add/scatter_reduce segment softmax, margin loss with relu and one_hot,
reconstruction decoders masked by argmax of lengths, a CapsNet trained with Adam, ExponentialLR
and clip_grad_norm_, slot attention (GRUCell, LayerNorm, softmax over slots, weighted mean with
eps), spatial-broadcast decoders with alpha masks and cdist matching, the stacked capsule
autoencoder's templates by affine_grid/grid_sample and a MixtureSameFamily likelihood, set
transformers (MAB/ISAB/PMA on MultiheadAttention with learned seeds, key_padding and attention
masks of every type, nn.TransformerEncoder in train and eval), iterative refinement (no_grad
early iterations, inference_mode fixed points, IODINE's create_graph refinement, a DEQ backward
hook solving a fixed point), custom autograd Functions and autocast, module hooks, save/load,
reprs and legacy APIs with their warnings; errors for bad shapes, dtypes and in-place misuse.
float64 must agree to 1e-10 of each record's scale, float32 to 1e-4; texts exactly.

The session found one difference, on the device path: F.one_hot with num_classes < 1 on a
CUDA-like device leaked arange's error where torch says "num_classes should be positive"
(tests/test_s31_capsule.py; the programs here run on the CPU).

Known and left (documented):
- float32 sqrt can be an ulp off torch's and float32 sums differ in the last bits (summation
  order); a float32 fixed-point loop therefore stops at a looser tolerance.
- Forward-mode AD gives tangents for ops torch has no forward formula for (cdist), as
  documented in minitorch.autograd.forward_ad; the programs do not record that refusal.
- There is no TorchScript (torch.jit.script returns the function; jit.save refuses), so no
  program records ScriptFunction types.
- float16/bfloat16 routing gradients can differ from torch's by an ulp or two (rounding of
  intermediate results in the backward formulas); no program records them."""

from __future__ import annotations

import copy
import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import assert_program_matches

torch = pytest.importorskip("torch")


PROGRAMS = [
    "primary_caps", "dynamic_routing", "routing_einsum", "margin_recon", "em_routing",
    "slot_attention", "set_transformer", "iterative_refinement", "errors", "capsnet_train",
    "conv_caps_unfold", "squash_zero", "inplace_logits", "save_load_repr", "vmap_routing",
    "checkpoint_routing", "slot_decoder", "self_routing", "matrix_caps", "capsule_hooks",
    "transformer_pool", "scae", "deq_hook", "iodine", "custom_squash", "dtype_errors",
    "forward_ad", "extremes", "empty", "views_inplace", "gumbel_routing", "slot_init",
    "mha_variants", "vmap_random", "grid_ops", "graph_caps", "legacy", "autograd_api",
    "mha_masks", "softmax_dtypes", "mvn_em",
    "layer_errors",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# --- helpers ---


def _x(lib, dt, *shape, seed=0, requires_grad=False):
    g = lib.Generator().manual_seed(seed)
    return lib.randn(*shape, generator=g, dtype=dt).requires_grad_(requires_grad)


def _squash(lib, s, dim=-1, eps=1e-8):
    n2 = (s**2).sum(dim=dim, keepdim=True)
    return n2 / (1 + n2) * s / lib.sqrt(n2 + eps)


def _squash_norm(lib, s, dim=-1, eps=1e-7):
    n = s.norm(dim=dim, keepdim=True)
    return (1 - 1 / (lib.exp(n) + eps)) * (s / (n + eps))


def _margin_loss(lib, lengths, labels, m_pos=0.9, m_neg=0.1, lam=0.5):
    F = lib.nn.functional
    t = F.one_hot(labels, lengths.shape[-1]).to(lengths.dtype)
    pos = t * F.relu(m_pos - lengths) ** 2
    neg = lam * (1 - t) * F.relu(lengths - m_neg) ** 2
    return (pos + neg).sum(dim=1).mean()


def _route(lib, u_hat, iters=3, detach=True):
    """Sabour et al.'s routing by agreement: u_hat is (B, in, out, dim)."""
    F = lib.nn.functional
    b = lib.zeros(u_hat.shape[:3], dtype=u_hat.dtype)
    u_d = u_hat.detach() if detach else u_hat
    for i in range(iters):
        c = F.softmax(b, dim=2)
        if i == iters - 1:
            s = (c.unsqueeze(-1) * u_hat).sum(dim=1)
            v = _squash(lib, s)
        else:
            s = (c.unsqueeze(-1) * u_d).sum(dim=1)
            v = _squash(lib, s)
            b = b + (u_d * v.unsqueeze(1)).sum(dim=-1)
    return v, c


# --- the programs: each takes the library, a dtype and a recorder ---


def p_primary_caps(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(0)
    conv1 = nn.Conv2d(1, 16, kernel_size=5, stride=1).to(dt)
    prim = nn.Conv2d(16, 4 * 8, kernel_size=5, stride=2).to(dt)
    x = _x(lib, dt, 2, 1, 16, 16, seed=1)
    h = lib.relu(conv1(x))
    rec("h_shape", list(h.shape))
    p = prim(h)
    B, _, H, W = p.shape
    # (B, caps*dim, H, W) -> (B, caps, dim, H, W) -> (B, caps, H, W, dim) -> (B, N, dim)
    u = p.view(B, 4, 8, H, W).permute(0, 1, 3, 4, 2).contiguous().view(B, -1, 8)
    rec("u_shape", list(u.shape))
    v = _squash(lib, u)
    rec("v", v[:, :5])
    lengths = v.norm(dim=-1)
    rec("len_max", lengths.max(dim=1).values)
    rec("len_lt1", bool((lengths < 1).all()))
    # the other common spelling: reshape + transpose
    u2 = p.reshape(B, 8, -1).transpose(1, 2)
    v2 = _squash_norm(lib, u2)
    rec("v2", v2[:, :3])
    loss = v.pow(2).sum() + v2.abs().mean()
    loss.backward()
    rec("g_conv1_w", conv1.weight.grad[:2])
    rec("g_prim_b", prim.bias.grad)
    rec("g_prim_w_norm", prim.weight.grad.norm())
    rec("grad_fn", type(v.grad_fn).__name__)
    rec("is_contig", [u.is_contiguous(), u2.is_contiguous()])


def p_dynamic_routing(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    B, n_in, d_in, n_out, d_out = 3, 12, 8, 4, 6
    g = lib.Generator().manual_seed(3)
    W = nn.Parameter(0.1 * lib.randn(1, n_in, n_out, d_out, d_in, generator=g, dtype=dt))
    u = _squash(lib, _x(lib, dt, B, n_in, d_in, seed=4))
    u_hat = (W @ u[:, :, None, :, None]).squeeze(-1)  # (B, in, out, d_out)
    rec("u_hat", u_hat[0, :2])
    v, c = _route(lib, u_hat, iters=3)
    rec("v", v)
    rec("c", c[0])
    rec("c_sum", c.sum(dim=2))
    lengths = v.norm(dim=-1)
    rec("lengths", lengths)
    labels = lib.tensor([0, 3, 1])
    loss = _margin_loss(lib, lengths, labels)
    rec("loss", loss)
    loss.backward()
    rec("gW", W.grad[0, :2])
    # without detach in the inner iterations the gradient changes
    W.grad = None
    u_hat2 = lib.matmul(W, u.unsqueeze(2).unsqueeze(-1)).squeeze(-1)
    v2, _ = _route(lib, u_hat2, iters=3, detach=False)
    loss2 = _margin_loss(lib, v2.norm(dim=-1), labels)
    loss2.backward()
    rec("loss2", loss2)
    rec("gW2", W.grad[0, :2])
    pred = lengths.argmax(dim=1)
    rec("pred", pred)
    rec("acc", (pred == labels).float().mean())
    rec("softmax_dim1", F.softmax(lib.zeros(2, 3, 4, dtype=dt), dim=1)[0, :, 0])


def p_routing_einsum(lib, dt, rec):
    B, n_in, d_in, n_out, d_out = 2, 10, 4, 3, 5
    W = _x(lib, dt, n_in, n_out, d_in, d_out, seed=5, requires_grad=True)
    x = _x(lib, dt, B, n_in, d_in, seed=6, requires_grad=True)
    u_hat = lib.einsum("bid,iodk->biok", x, W)
    rec("u_hat", u_hat[1, 0])
    logits = lib.zeros(B, n_in, n_out, dtype=dt)
    for it in range(4):
        c = logits.softmax(dim=-1)
        s = lib.einsum("bio,biok->bok", c, u_hat if it == 3 else u_hat.detach())
        v = _squash(lib, s)
        if it < 3:
            agree = lib.einsum("biok,bok->bio", u_hat.detach(), v)
            logits += agree
        rec(f"c{it}", c[0, :3])
    rec("v", v)
    rec("logits", logits[1])
    rec("logits_rg", logits.requires_grad)
    out = v.norm(dim=-1).sum()
    gx, gW = lib.autograd.grad(out, (x, W), create_graph=True)
    rec("gx", gx)
    rec("gW", gW[0, 0])
    # second order through the last routing step
    (ggx,) = lib.autograd.grad(gx.pow(2).sum(), x)
    rec("ggx", ggx)
    # bmm spelling of the same agreement
    agree2 = lib.bmm(u_hat.detach().reshape(B * n_in, n_out, 1, d_out).flatten(0, 1),
                     v.repeat_interleave(n_in, dim=0).reshape(-1, d_out, 1))  # fmt: skip
    rec("agree2", agree2.view(B, n_in, n_out)[0, :2])


def p_margin_recon(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(7)
    B, n_cls, d = 4, 5, 8
    v = _squash(lib, _x(lib, dt, B, n_cls, d, seed=8, requires_grad=True))
    lengths = lib.sqrt((v**2).sum(dim=2))
    labels = lib.tensor([2, 0, 4, 2])
    L = _margin_loss(lib, lengths, labels)
    rec("margin", L)
    # the "training" mask uses labels, the "test" mask the longest capsule
    y = F.one_hot(labels, num_classes=n_cls)
    rec("y", y)
    rec("y_dtype", str(y.dtype))
    _, idx = lengths.max(dim=1)
    mask = lib.eye(n_cls, dtype=dt).index_select(dim=0, index=idx)
    rec("mask", mask)
    mask2 = lib.zeros_like(lengths).scatter_(1, lengths.argmax(1, keepdim=True), 1.0)
    rec("mask_same", lib.equal(mask, mask2))
    masked = (v * y[:, :, None].to(dt)).view(B, -1)
    decoder = nn.Sequential(
        nn.Linear(n_cls * d, 32), nn.ReLU(inplace=True), nn.Linear(32, 64), nn.Sigmoid()
    ).to(dt)
    recon = decoder(masked)
    rec("recon", recon[:, :6])
    target = lib.rand(B, 64, dtype=dt)
    r_loss = F.mse_loss(recon, target, reduction="sum") / B
    rec("r_loss", r_loss)
    r2 = nn.MSELoss(reduction="none")(recon, target).sum(dim=-1).mean()
    rec("r2", r2)
    total = L + 0.0005 * r_loss
    total.backward()
    rec("g0", decoder[0].weight.grad[:2, :6])
    rec("g2b", decoder[2].bias.grad[:6])
    # margin loss with clamp spelling and with a float label matrix
    t = F.one_hot(labels, n_cls).float().to(dt)
    Lc = (t * lib.clamp(0.9 - lengths, min=0).pow(2) + 0.5 * (1 - t) *
          lib.clamp(lengths - 0.1, min=0).pow(2)).sum(1).mean()  # fmt: skip
    rec("Lc", Lc)
    rec("one_hot_auto", F.one_hot(lib.tensor([[1, 0], [3, 2]])))


def p_em_routing(lib, dt, rec):
    """Hinton et al.'s EM routing between matrix capsules, as in the common reimplementations."""
    F = lib.nn.functional
    B, n_in, n_out, P = 2, 6, 3, 16
    eps, lam = 1e-8, 1e-2
    v = _x(lib, dt, B, n_in, n_out, P, seed=9, requires_grad=True)  # votes
    a_in = lib.sigmoid(_x(lib, dt, B, n_in, 1, seed=10, requires_grad=True))
    beta_u = lib.zeros(n_out, requires_grad=True, dtype=dt)
    beta_a = lib.zeros(n_out, requires_grad=True, dtype=dt)
    ln_2pi = math.log(2 * math.pi)
    R = lib.ones(B, n_in, n_out, dtype=dt) / n_out
    for it in range(3):
        inv_temp = lam * (1 - 0.95 ** (it + 1))
        # M-step
        R = (R * a_in).unsqueeze(-1)  # (B, in, out, 1)
        r_sum = R.sum(dim=1, keepdim=True)  # (B, 1, out, 1)
        coeff = R / (r_sum + eps)
        mu = (coeff * v).sum(dim=1, keepdim=True)
        sigma_sq = (coeff * (v - mu) ** 2).sum(dim=1, keepdim=True) + eps
        r_sum = r_sum.view(B, n_out, 1)
        sigma_sq_v = sigma_sq.view(B, n_out, P)
        cost_h = (beta_u.view(n_out, 1) + lib.log(sigma_sq_v.sqrt())) * r_sum
        a_out = lib.sigmoid(inv_temp * (beta_a - cost_h.sum(dim=2)))
        rec(f"a_out{it}", a_out)
        if it == 2:
            break
        # E-step: Gaussian log-likelihoods
        ln_p = -((v - mu) ** 2) / (2 * sigma_sq) - lib.log(sigma_sq.sqrt()) - 0.5 * ln_2pi
        ln_ap = ln_p.sum(dim=3) + lib.log(a_out.view(B, 1, n_out))
        R = F.softmax(ln_ap, dim=2)
        rec(f"R{it}", R[0])
        # the same log-likelihood from torch.distributions
        N = lib.distributions.Normal(mu, sigma_sq.sqrt())
        rec(f"lp_same{it}", lib.allclose(N.log_prob(v), ln_p))
        rec(f"lse{it}", lib.logsumexp(ln_ap, dim=2))
    loss = a_out.sum() + mu.pow(2).mean()
    loss.backward()
    rec("g_v", v.grad[0, 0])
    rec("g_beta_u", beta_u.grad)
    rec("g_beta_a", beta_a.grad)
    # spread loss on the output activations
    target = lib.tensor([1, 2])
    a_t = a_out.gather(1, target.view(-1, 1))
    spread = (F.relu(0.2 - (a_t - a_out)) ** 2).masked_fill(F.one_hot(target, n_out).bool(), 0)
    rec("spread", spread.sum(dim=1).mean())


def p_slot_attention(lib, dt, rec):
    nn = lib.nn

    class SlotAttention(nn.Module):
        def __init__(self, num_slots, dim, iters=3, eps=1e-8, hidden_dim=32):
            super().__init__()
            self.num_slots, self.iters, self.eps = num_slots, iters, eps
            self.scale = dim**-0.5
            self.slots_mu = nn.Parameter(lib.randn(1, 1, dim))
            self.slots_logsigma = nn.Parameter(lib.zeros(1, 1, dim))
            nn.init.xavier_uniform_(self.slots_logsigma)
            self.to_q = nn.Linear(dim, dim)
            self.to_k = nn.Linear(dim, dim)
            self.to_v = nn.Linear(dim, dim)
            self.gru = nn.GRUCell(dim, dim)
            hidden_dim = max(dim, hidden_dim)
            self.mlp = nn.Sequential(
                nn.Linear(dim, hidden_dim), nn.ReLU(inplace=True), nn.Linear(hidden_dim, dim)
            )
            self.norm_input = nn.LayerNorm(dim)
            self.norm_slots = nn.LayerNorm(dim)
            self.norm_pre_ff = nn.LayerNorm(dim)

        def forward(self, inputs, generator=None):
            b, n, d = inputs.shape
            mu = self.slots_mu.expand(b, self.num_slots, -1)
            sigma = self.slots_logsigma.exp().expand(b, self.num_slots, -1)
            noise = lib.randn(mu.shape, generator=generator, dtype=mu.dtype)
            slots = mu + sigma * noise
            inputs = self.norm_input(inputs)
            k, v = self.to_k(inputs), self.to_v(inputs)
            for _ in range(self.iters):
                slots_prev = slots
                slots = self.norm_slots(slots)
                q = self.to_q(slots)
                dots = lib.einsum("bid,bjd->bij", q, k) * self.scale
                attn = dots.softmax(dim=1) + self.eps
                attn_map = attn
                attn = attn / attn.sum(dim=-1, keepdim=True)
                updates = lib.einsum("bjd,bij->bid", v, attn)
                slots = self.gru(updates.reshape(-1, d), slots_prev.reshape(-1, d))
                slots = slots.reshape(b, -1, d)
                slots = slots + self.mlp(self.norm_pre_ff(slots))
            return slots, attn_map

    lib.manual_seed(11)
    sa = SlotAttention(num_slots=3, dim=16).to(dt)
    x = _x(lib, dt, 2, 20, 16, seed=12)
    slots, attn = sa(x, generator=lib.Generator().manual_seed(13))
    rec("slots", slots)
    rec("attn", attn[0, :, :5])
    rec("attn_sum_slots", attn.sum(dim=1)[0, :4])
    loss = slots.pow(2).mean() + attn.std()
    loss.backward()
    for name, p in sa.named_parameters():
        rec("g." + name, p.grad)
    rec("n_params", sum(p.numel() for p in sa.parameters()))
    rec("keys", ",".join(sa.state_dict().keys()))


def p_set_transformer(lib, dt, rec):
    nn = lib.nn

    class MAB(nn.Module):
        def __init__(self, dq, dk, dv, heads, ln=True):
            super().__init__()
            self.fc_q = nn.Linear(dq, dv)
            self.attn = nn.MultiheadAttention(dv, heads, batch_first=True, kdim=dk, vdim=dk)
            self.ln0 = nn.LayerNorm(dv) if ln else nn.Identity()
            self.ln1 = nn.LayerNorm(dv) if ln else nn.Identity()
            self.fc_o = nn.Linear(dv, dv)

        def forward(self, Q, K, mask=None):
            q = self.fc_q(Q)
            h, w = self.attn(q, K, K, key_padding_mask=mask, need_weights=True)
            o = self.ln0(q + h)
            return self.ln1(o + nn.functional.relu(self.fc_o(o))), w

    class PMA(nn.Module):
        def __init__(self, dim, heads, num_seeds):
            super().__init__()
            self.S = nn.Parameter(lib.empty(1, num_seeds, dim))
            nn.init.xavier_uniform_(self.S)
            self.mab = MAB(dim, dim, dim, heads)

        def forward(self, X, mask=None):
            return self.mab(self.S.repeat(X.size(0), 1, 1), X, mask)

    class ISAB(nn.Module):
        def __init__(self, din, dout, heads, num_inds):
            super().__init__()
            self.I = nn.Parameter(lib.Tensor(1, num_inds, dout))
            nn.init.xavier_uniform_(self.I)
            self.mab0 = MAB(dout, din, dout, heads)
            self.mab1 = MAB(din, dout, dout, heads)

        def forward(self, X):
            H, _ = self.mab0(self.I.repeat(X.size(0), 1, 1), X)
            return self.mab1(X, H)[0]

    lib.manual_seed(14)
    enc = nn.Sequential(ISAB(3, 16, 4, 5), ISAB(16, 16, 4, 5)).to(dt)
    pma = PMA(16, 4, 2).to(dt)
    head = nn.Linear(16, 2).to(dt)
    X = _x(lib, dt, 3, 7, 3, seed=15)
    mask = lib.tensor([[False] * 7, [False] * 5 + [True] * 2, [False] * 3 + [True] * 4])
    Z = enc(X)
    rec("Z", Z[0, :2])
    pooled, w = pma(Z, mask)
    rec("pooled", pooled)
    rec("w", w)
    out = head(pooled).mean(dim=1)
    rec("out", out)
    out.sum().backward()
    rec("g_S", pma.S.grad)
    rec("g_I", enc[0].I.grad[0, :2])
    rec("g_inproj", pma.mab.attn.in_proj_weight.grad[:3, :5])
    # attention weights per head, averaged or not
    _, wh = pma.mab.attn(Z, Z, Z, average_attn_weights=False)
    rec("wh", wh[0, :, 0])
    rec("wh_shape", list(wh.shape))
    # permutation invariance of pooling
    perm = lib.tensor([3, 0, 6, 1, 5, 2, 4])
    p2, _ = pma(Z[:, perm])
    p1, _ = pma(Z)
    rec("perm_inv", (p2 - p1).abs().max() < 1e-5)


def p_iterative_refinement(lib, dt, rec):
    """Early iterations without a graph, the last with one (implicit slot attention style)."""
    nn = lib.nn
    lib.manual_seed(16)
    gru = nn.GRUCell(8, 8).to(dt)
    proj = nn.Linear(8, 8).to(dt)
    x = _x(lib, dt, 4, 8, seed=17)
    z = lib.zeros(4, 8, dtype=dt)
    with lib.no_grad():
        for _ in range(4):
            z = gru(proj(x) - z, z)
            rec("z_rg_inside", z.requires_grad)
    rec("is_grad_enabled", lib.is_grad_enabled())
    z = z.detach()
    z = gru(proj(x) - z, z)
    rec("z_rg", z.requires_grad)
    rec("z", z)
    loss = (z - x).pow(2).sum()
    loss.backward()
    rec("g_wih", gru.weight_ih.grad[:4])
    rec("g_bhh", gru.bias_hh.grad)
    rec("g_proj", proj.weight.grad[0])
    # torch.set_grad_enabled / enable_grad nesting
    with lib.no_grad():
        with lib.enable_grad():
            y = proj(x).sum()
        rec("y_rg", y.requires_grad)
        with lib.set_grad_enabled(False):
            rec("y2_rg", proj(x).requires_grad)
    # inference_mode and a fixed-point solve by iteration with a tolerance
    with lib.inference_mode():
        zz = lib.zeros(4, 8, dtype=dt)
        for i in range(50):  # noqa: B007 - the count is recorded
            nxt = lib.tanh(0.5 * proj(zz) + x)
            if (nxt - zz).norm() < (1e-9 if dt == lib.float64 else 1e-4):
                break
            zz = nxt
        rec("fp_iters", i)
    rec("fp", zz)
    # phantom gradient: one differentiable step from the fixed point
    z_star = zz.clone()
    out = lib.tanh(0.5 * proj(z_star) + x)
    out.sum().backward()
    rec("g_proj2", proj.weight.grad[1])


def p_errors(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    u = _x(lib, dt, 2, 3, 4, seed=18)
    rec.err("softmax_dim", lambda: F.softmax(u, dim=3))
    rec.err("softmax_dim_neg", lambda: u.softmax(-4))
    rec.err("one_hot_big", lambda: F.one_hot(lib.tensor([0, 5]), 5))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([0, -1]), 3))
    rec.err("one_hot_float", lambda: F.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("one_hot_int32", lambda: F.one_hot(lib.tensor([0, 1], dtype=lib.int32), 3))
    p = _x(lib, dt, 2, 8, 3, 3, seed=19).view(2, 2, 4, 3, 3).permute(0, 1, 3, 4, 2)
    rec.err("view_noncontig", lambda: p.view(2, -1, 4))
    rec("reshape_ok", list(p.reshape(2, -1, 4).shape))
    rec.err("view_bad", lambda: p.contiguous().view(2, -1, 5))
    W = _x(lib, dt, 4, 2, 4, 5, seed=20)
    rec.err("einsum_mismatch", lambda: lib.einsum("bid,iodk->biok", u, W))
    rec.err("einsum_ops", lambda: lib.einsum("bid,iodk->biok", u))
    rec.err("matmul_5d", lambda: lib.matmul(_x(lib, dt, 1, 3, 2, 5, 3), u[:, :, None, :, None]))
    gru = nn.GRUCell(8, 8).to(dt)
    rec.err("gru_in", lambda: gru(_x(lib, dt, 4, 7), _x(lib, dt, 4, 8)))
    rec.err("gru_batch", lambda: gru(_x(lib, dt, 4, 8), _x(lib, dt, 3, 8)))
    rec.err("gru_hidden", lambda: gru(_x(lib, dt, 4, 8), _x(lib, dt, 4, 6)))
    rec.err("mha_heads", lambda: nn.MultiheadAttention(10, 3))
    mha = nn.MultiheadAttention(8, 2, batch_first=True).to(dt)
    q = _x(lib, dt, 3, 2, 8)
    kv = _x(lib, dt, 3, 7, 8)
    rec.err("mha_mask", lambda: mha(q, kv, kv, key_padding_mask=lib.zeros(3, 6, dtype=lib.bool)))
    rec.err("mha_dim", lambda: mha(q, kv[..., :6], kv[..., :6]))
    ln = nn.LayerNorm(16).to(dt)
    rec.err("layernorm", lambda: ln(_x(lib, dt, 2, 20, 15)))
    # a saved output changed in place
    b = _x(lib, dt, 2, 3, requires_grad=True)
    e = b.exp()
    e += 1
    rec.err("inplace_saved", lambda: e.sum().backward())
    c = lib.zeros(2, 3, dtype=dt)
    s = c.softmax(dim=1)
    w = _x(lib, dt, 2, 3, requires_grad=True)
    out = (s * w).sum()
    s.mul_(2)
    rec.err("inplace_nograd_needed", lambda: out.backward())
    leaf = lib.zeros(3, dtype=dt, requires_grad=True)
    rec.err("leaf_inplace", lambda: leaf.add_(1))
    y = (leaf * 2).sum()
    y.backward()
    rec.err("backward_twice", lambda: y.backward())
    rec.err("norm_int", lambda: lib.tensor([3, 4]).norm(dim=0))
    rec.err("argmax_dim", lambda: u.norm(dim=-1).argmax(dim=2))
    rec.err("gather_dims", lambda: u.gather(1, lib.tensor([[0], [1]])))
    rec.warns("mse_broadcast", lambda: F.mse_loss(u[:, :, 0], u[:, :1, 0]))
    rec.err("relu_int_ok", lambda: F.relu(lib.tensor([-1, 2])))
    rec.err("squash_eps_none", lambda: u / (u.norm(dim=-1, keepdim=True) + None))
    rec.err("repeat_few", lambda: lib.zeros(1, 2, 3).repeat(2, 1))
    rec.err("expand_bad", lambda: lib.zeros(1, 2, 3).expand(4, 3, -1))
    rec.err("cell_3d", lambda: gru(_x(lib, dt, 2, 4, 8)))


def p_capsnet_train(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class CapsNet(nn.Module):
        def __init__(self, n_cls=3, n_prim=4, d_prim=4, d_out=6):
            super().__init__()
            self.conv = nn.Conv2d(1, 8, 3)
            self.prim = nn.Conv2d(8, n_prim * d_prim, 3, stride=2)
            self.n_prim, self.d_prim, self.n_cls, self.d_out = n_prim, d_prim, n_cls, d_out
            n_in = n_prim * 2 * 2
            self.W = nn.Parameter(0.05 * lib.randn(1, n_in, n_cls, d_out, d_prim))
            self.dec = nn.Sequential(nn.Linear(n_cls * d_out, 24), nn.ReLU(), nn.Linear(24, 64),
                                     nn.Sigmoid())  # fmt: skip

        def forward(self, x, y=None):
            h = F.relu(self.conv(x))
            p = self.prim(h)
            B = p.shape[0]
            u = p.view(B, self.n_prim, self.d_prim, -1).transpose(2, 3).reshape(B, -1, self.d_prim)
            u = _squash(lib, u)
            u_hat = (self.W @ u.unsqueeze(2).unsqueeze(-1)).squeeze(-1)
            v, _ = _route(lib, u_hat, iters=3)
            lengths = v.norm(dim=-1)
            if y is None:
                y = lengths.argmax(dim=1)
            mask = F.one_hot(y, self.n_cls).unsqueeze(-1)
            recon = self.dec((v * mask).flatten(1))
            return lengths, recon

    lib.manual_seed(21)
    net = CapsNet().to(dt)
    g = lib.Generator().manual_seed(22)
    X = lib.rand(6, 1, 8, 8, generator=g, dtype=dt)
    Y = lib.randint(0, 3, (6,), generator=g)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    sched = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for step in range(4):
        opt.zero_grad()
        lengths, recon = net(X, Y)
        loss = _margin_loss(lib, lengths, Y) + 0.0005 * F.mse_loss(recon, X.flatten(1),
                                                                  reduction="sum")  # fmt: skip
        loss.backward()
        gn = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"gn{step}", gn)
    rec("lr", sched.get_last_lr())
    rec.params("p", net)
    net.eval()
    with lib.no_grad():
        lengths, recon = net(X)
    rec("eval_len", lengths)
    rec("eval_pred", lengths.argmax(1))
    rec("recon", recon[:, :5])
    rec("state_keys", list(opt.state_dict()["state"].keys()))
    rec("exp_avg_sq", opt.state[net.W]["exp_avg_sq"][0, 0])


def p_conv_caps_unfold(lib, dt, rec):
    """Convolutional capsules: pose vectors gathered over k x k windows with F.unfold."""
    F = lib.nn.functional
    B, C, D, H, Wd, k, C_out, D_out = 2, 3, 4, 5, 5, 3, 2, 4
    poses = _x(lib, dt, B, C * D, H, Wd, seed=23, requires_grad=True)
    Wt = _x(lib, dt, k * k * C, C_out, D_out, D, seed=24, requires_grad=True)
    cols = F.unfold(poses, kernel_size=k, stride=1, padding=1)  # (B, C*D*k*k, L)
    L = cols.shape[-1]
    rec("cols_shape", list(cols.shape))
    cols = cols.view(B, C, D, k * k, L).permute(0, 4, 1, 3, 2).reshape(B, L, C * k * k, D)
    u_hat = lib.einsum("iojd,blid->blioj", Wt, cols)  # (B, L, in, C_out, D_out)
    u_hat = u_hat.reshape(B * L, C * k * k, C_out, D_out)
    v, c = _route(lib, u_hat, iters=2)
    v = v.view(B, H, Wd, C_out, D_out).permute(0, 3, 4, 1, 2).reshape(B, C_out * D_out, H, Wd)
    rec("v", v[0, :, 1:3, 1:3])
    rec("c", c[3, :4])
    # fold back (overlap-add), then the usual conv on the capsule grid
    back = F.fold(F.unfold(v, 3, padding=1), (H, Wd), 3, padding=1)
    rec("fold", back[1, 0])
    w = _x(lib, dt, 4, C_out * D_out, 3, 3, seed=25)
    out = F.conv2d(v, w, padding="same", groups=1)
    rec("conv", out[0, :, 2])
    pooled = F.avg_pool2d(out, 2, ceil_mode=True)
    rec("pooled", pooled)
    pooled.square().sum().backward()
    rec("g_poses", poses.grad[0, :2])
    rec("g_W", Wt.grad[0, 0])


def p_squash_zero(lib, dt, rec):
    """Squash of capsules that are exactly zero: the eps variants, norm's subgradient."""
    F = lib.nn.functional
    s = lib.tensor([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0], [1e-5, 0.0, 0.0]], dtype=dt)
    s.requires_grad_()
    v1 = _squash(lib, s)
    v2 = _squash_norm(lib, s)
    n = s.norm(dim=-1, keepdim=True)
    v3 = n**2 / (1 + n**2) * s / (n + 1e-8)
    v4 = F.normalize(s, dim=-1) * (n**2 / (1 + n**2))
    for i, v in enumerate((v1, v2, v3, v4)):
        rec(f"v{i}", v)
        (g,) = lib.autograd.grad(v.sum(), s, retain_graph=True)
        rec(f"g{i}", g)
    # norm and vector_norm at zero give zero gradients; sqrt of a zero sum gives inf * 0
    z = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    for name, f in [
        ("norm", lambda t: t.norm(dim=1)),
        ("vnorm", lambda t: lib.linalg.vector_norm(t, dim=1)),
        ("lnorm", lambda t: lib.linalg.norm(t, dim=1)),
        ("sqrt", lambda t: t.pow(2).sum(1).sqrt()),
        ("fro", lambda t: lib.norm(t, p="fro")),
        ("hypot", lambda t: lib.hypot(t[:, 0], t[:, 1])),
        ("p1", lambda t: t.norm(p=1, dim=1)),
        ("pinf", lambda t: t.norm(p=float("inf"), dim=1)),
        ("p3", lambda t: t.norm(p=3, dim=1)),
    ]:
        (g,) = lib.autograd.grad(f(z).sum(), z)
        rec("gz_" + name, g)
    # the length of a capsule through torch.linalg and through the functional spelling
    rec("len", lib.linalg.norm(s.detach(), dim=-1, keepdim=True))
    rec("cos", F.cosine_similarity(s[1:], s[:1] + 1, dim=-1))
    rec("cos0", F.cosine_similarity(s, lib.zeros_like(s), dim=-1))


def p_inplace_logits(lib, dt, rec):
    """The routing loops of older capsule code: Variable, implicit-dim softmax, in-place logits,
    the transpose-softmax helper, `.data` updates."""
    F = lib.nn.functional

    def softmax_t(x, dim=1):
        t = x.transpose(dim, len(x.size()) - 1)
        out = F.softmax(t.contiguous().view(-1, t.size(-1)), dim=-1)
        return out.view(*t.size()).transpose(dim, len(x.size()) - 1)

    B, n_in, n_out, d = 2, 6, 3, 4
    u_hat = _x(lib, dt, B, n_in, n_out, d, seed=26, requires_grad=True)
    b = lib.autograd.Variable(lib.zeros(1, n_in, n_out, 1, dtype=dt))
    rec("var_rg", b.requires_grad)
    for it in range(3):
        c = softmax_t(b, dim=2)
        s = (c * u_hat).sum(dim=1, keepdim=True)
        v = _squash(lib, s)
        if it < 2:
            a = (u_hat * v).sum(dim=3, keepdim=True)
            b = b + a.mean(dim=0, keepdim=True)
    rec("v", v)
    rec("b", b)
    rec("b_gradfn", type(b.grad_fn).__name__)
    v.norm(dim=-1).sum().backward()
    rec("g", u_hat.grad[1])
    # in-place on a non-leaf logit tensor that a softmax used (its output was saved, not b)
    u2 = u_hat.detach().clone().requires_grad_()
    logits = u2.sum(-1) * 0
    for it in range(3):
        c = logits.softmax(dim=-1)
        v = _squash(lib, (c.unsqueeze(-1) * u2).sum(1))
        if it < 2:
            logits += (u2 * v.unsqueeze(1)).sum(-1)
    rec("v2", v)
    rec("ver", logits._version)
    v.sum().backward()
    rec("g2", u2.grad[0])
    # implicit dim softmax (deprecated; warns) picks dim 1 for 2-d and 4-d, 0 for 3-d
    for shape in [(3, 4), (2, 3, 4), (2, 3, 4, 1)]:
        x = _x(lib, dt, *shape, seed=27)
        y = rec.warns("implicit", lambda x=x: F.softmax(x))
        rec(f"implicit{len(shape)}", y)
    rec.warns("implicit_log", lambda: F.log_softmax(_x(lib, dt, 2, 3)))
    # .data updates bypass autograd and the version counter of the Variable
    w = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    y = (w.exp() * 2).sum()
    w.data.add_(1.0)
    rec("w_ver", w._version)
    y.backward()
    rec("w_grad", w.grad)
    # masking some routes with -inf: a row with every route masked gives NaN
    m = lib.tensor([[True, False, True], [True, True, True]])
    lg = _x(lib, dt, 2, 3, seed=28).masked_fill_(m, float("-inf"))
    rec("masked_sm", lg.softmax(-1))
    rec("nan_to_num", lib.nan_to_num(lg.softmax(-1), nan=0.0))
    # index-assignment into the logits
    lg2 = lib.zeros(2, 3, dtype=dt)
    lg2[:, 0] += 1.5
    lg2[lg2 == 0] = -1.0
    rec("lg2", lg2)


def p_save_load_repr(lib, dt, rec):
    nn = lib.nn

    class DigitCaps(nn.Module):
        def __init__(self, n_in=8, n_out=3, d_in=4, d_out=5, iters=3):
            super().__init__()
            self.iters = iters
            self.W = nn.Parameter(0.01 * lib.randn(n_in, n_out, d_out, d_in))
            self.register_buffer("b0", lib.zeros(n_in, n_out))

        def forward(self, u):
            u_hat = lib.einsum("iodk,bik->biod", self.W, u)
            F = nn.functional
            b = self.b0.expand(u.shape[0], -1, -1)
            for _ in range(self.iters - 1):
                v = _squash(lib, (F.softmax(b, 2).unsqueeze(-1) * u_hat.detach()).sum(1))
                b = b + (u_hat.detach() * v.unsqueeze(1)).sum(-1)
            return _squash(lib, (F.softmax(b, 2).unsqueeze(-1) * u_hat).sum(1))

        def extra_repr(self):
            return f"iters={self.iters}, W={tuple(self.W.shape)}"

    lib.manual_seed(29)
    model = nn.Sequential(nn.Linear(6, 32), nn.Unflatten(1, (8, 4)), DigitCaps()).to(dt)
    rec("repr", repr(model))
    x = _x(lib, dt, 2, 6, seed=30)
    v = model(x)
    rec("v", v)
    lib.set_printoptions(precision=3)
    try:
        rec("v_repr", repr(v[0, :2]))
        rec("len_repr", repr(v.norm(dim=-1)))
        rec("param_repr", repr(model[2].b0[:1]))
    finally:
        lib.set_printoptions(profile="default")
    buf = io.BytesIO()
    lib.save({"model": model.state_dict(), "step": 3}, buf)
    buf.seek(0)
    ck = lib.load(buf, weights_only=True)
    rec("ck_keys", list(ck["model"].keys()))
    lib.manual_seed(31)
    other = copy.deepcopy(model)
    with lib.no_grad():
        for p in other.parameters():
            p.mul_(0)
    rec("other_zero", other(x))
    res = other.load_state_dict(ck["model"])
    rec("res", repr(res))
    rec("same", lib.equal(other(x), v))
    bad = dict(ck["model"])
    bad["2.W"] = bad["2.W"][:4]
    rec.err("load_bad", lambda: other.load_state_dict(bad))
    rec.err("load_missing", lambda: other.load_state_dict({"0.weight": bad["0.weight"]}))
    res2 = other.load_state_dict({"0.weight": bad["0.weight"], "extra": bad["2.b0"]},
                                 strict=False)  # fmt: skip
    rec("res2", repr(res2))


def p_vmap_routing(lib, dt, rec):
    func = lib.func
    n_in, n_out, d_in, d_out = 5, 3, 4, 2
    W = _x(lib, dt, n_in, n_out, d_out, d_in, seed=32)
    u = _x(lib, dt, 4, n_in, d_in, seed=33)

    def route_one(W, u):  # one sample: u is (in, d_in)
        u_hat = (W @ u[:, None, :, None]).squeeze(-1)  # (in, out, d_out)
        b = lib.zeros(n_in, n_out, dtype=u.dtype)
        for _ in range(2):
            c = b.softmax(dim=1)
            v = _squash(lib, (c[..., None] * u_hat).sum(0))
            b = b + (u_hat * v).sum(-1)
        return v.norm(dim=-1)

    lengths = func.vmap(route_one, in_dims=(None, 0))(W, u)
    rec("lengths", lengths)
    ref = lib.stack([route_one(W, ui) for ui in u])
    rec("same", lib.allclose(lengths, ref))
    gW = func.vmap(func.grad(lambda W, u: route_one(W, u).sum()), in_dims=(None, 0))(W, u)
    rec("per_sample_gW", gW[:, 0, 0])
    J = func.jacrev(route_one, argnums=1)(W, u[0])
    rec("jac", J)
    Jf = func.jacfwd(lambda s: _squash(lib, s))(u[0, 0])
    rec("jac_squash", Jf)
    Jr = func.jacrev(lambda s: _squash(lib, s))(u[0, 0])
    rec("jac_squash_r", Jr)
    H = func.hessian(lambda s: _squash(lib, s).norm())(u[0, 0])
    rec("hess_len", H)
    # functional_call with a swapped weight over a module
    lin = lib.nn.Linear(d_in, d_in).to(dt)
    params = {"weight": lib.eye(d_in, dtype=dt), "bias": lib.zeros(d_in, dtype=dt)}
    rec("fcall", func.functional_call(lin, params, (u[0],)))
    out, vjp_fn = func.vjp(lambda s: _squash(lib, s), u[1])
    (vj,) = vjp_fn(lib.ones_like(out))
    rec("vjp", vj)
    _, jv = func.jvp(lambda s: _squash(lib, s), (u[1],), (lib.ones_like(u[1]),))
    rec("jvp", jv)


def p_checkpoint_routing(lib, dt, rec):
    nn = lib.nn
    cp = lib.utils.checkpoint
    lib.manual_seed(34)
    proj = nn.Linear(4, 3 * 5).to(dt)
    x = _x(lib, dt, 2, 6, 4, seed=35, requires_grad=True)

    def routing(x):
        u_hat = proj(x).view(2, 6, 3, 5)
        v, c = _route(lib, u_hat, iters=3)
        return v, c

    v1, c1 = routing(x)
    (v1.norm(dim=-1).sum() + c1.max()).backward()
    g1, gw1 = x.grad.clone(), proj.weight.grad.clone()
    x.grad = None
    proj.zero_grad()
    v2, c2 = cp.checkpoint(routing, x, use_reentrant=False)
    (v2.norm(dim=-1).sum() + c2.max()).backward()
    rec("v", v2)
    rec("gx_same", lib.allclose(g1, x.grad))
    rec("gw_same", lib.allclose(gw1, proj.weight.grad))
    rec("gx", x.grad[0])
    # reentrant checkpoint over a sequence of routing layers
    x.grad = None
    layers = [lambda t: _squash(lib, t * 2), lambda t: _squash(lib, t.flip(1)),
              lambda t: _squash(lib, t + 1)]  # fmt: skip
    y = x
    for f in layers:
        y = cp.checkpoint(f, y, use_reentrant=True)
    y.sum().backward()
    rec("g_reentrant", x.grad[1])
    seq = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh()).to(dt)
    out = cp.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    rec("seq_out", out[0])


def p_slot_decoder(lib, dt, rec):
    """Spatial-broadcast decoder with soft position embeddings and alpha masks over slots."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(36)
    B, K, D, R = 2, 3, 8, 6

    def build_grid(res):
        ranges = [lib.linspace(0.0, 1.0, steps=r) for r in res]
        grid = lib.meshgrid(*ranges, indexing="ij")
        grid = lib.stack(grid, dim=-1).reshape(res[0], res[1], -1).unsqueeze(0)
        return lib.cat([grid, 1.0 - grid], dim=-1)

    grid = build_grid((R, R)).to(dt)
    rec("grid", grid[0, 1, :3])
    pos = nn.Linear(4, D).to(dt)
    dec = nn.Sequential(
        nn.ConvTranspose2d(D, 8, 3, stride=1, padding=1), nn.ReLU(),
        nn.ConvTranspose2d(8, 8, 4, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(8, 4, 3, padding=1),
    ).to(dt)  # fmt: skip
    slots = _x(lib, dt, B, K, D, seed=37, requires_grad=True)
    x = slots.reshape(-1, D)[:, None, None, :].repeat(1, R, R, 1)
    x = x + pos(grid)
    x = dec(x.permute(0, 3, 1, 2))  # (B*K, 4, 2R, 2R)
    x = x.permute(0, 2, 3, 1).reshape(B, K, 2 * R, 2 * R, 4)
    recons, masks = x.split([3, 1], dim=-1)
    masks = F.softmax(masks, dim=1)
    image = (recons * masks).sum(dim=1)
    rec("image", image[0, :3, :3])
    rec("masks", masks[1, :, 0, :4, 0])
    target = lib.rand(B, 2 * R, 2 * R, 3, dtype=dt)
    loss = F.mse_loss(image, target)
    loss.backward()
    rec("loss", loss)
    rec("g_slots", slots.grad)
    rec("g_pos", pos.weight.grad)
    # set prediction matching by cdist and a greedy assignment
    pred = _x(lib, dt, B, K, 2, seed=38)
    tgt = _x(lib, dt, B, K, 2, seed=39)
    cost = lib.cdist(pred, tgt)
    rec("cost", cost)
    rec("cost_p1", lib.cdist(pred, tgt, p=1))
    idx = cost.argmin(dim=-1)
    rec("idx", idx)
    matched = lib.gather(tgt, 1, idx.unsqueeze(-1).expand(-1, -1, 2))
    rec("matched", matched)
    rec("chamfer", cost.min(dim=2).values.mean() + cost.min(dim=1).values.mean())
    # masks as argmax segmentation and per-slot areas
    seg = masks.squeeze(-1).argmax(dim=1)
    rec("seg", seg[0, :4, :4])
    rec("areas", lib.stack([(seg == k).sum(dim=(1, 2)) for k in range(K)], dim=1))
    rec("bincount", lib.bincount(seg[1].flatten(), minlength=K))


def p_self_routing(lib, dt, rec):
    """Self-routing capsules (Hahn et al.) and attention routing by scaled_dot_product_attention."""
    nn = lib.nn
    F = nn.functional
    B, n_in, n_out, d_in, d_out = 3, 8, 4, 6, 5
    lib.manual_seed(40)
    W1 = nn.Parameter(lib.empty(n_in, n_out, d_out, d_in))
    nn.init.kaiming_uniform_(W1, a=math.sqrt(5))
    W2 = nn.Parameter(lib.zeros(n_in, n_out, d_in))
    b2 = nn.Parameter(lib.zeros(1, n_in, n_out))
    nn.init.trunc_normal_(W2, std=0.02)
    W1.data = W1.data.to(dt)
    W2.data = W2.data.to(dt)
    b2.data = b2.data.to(dt)
    a = lib.sigmoid(_x(lib, dt, B, n_in, seed=41))
    pose = _x(lib, dt, B, n_in, d_in, seed=42)
    logits = lib.einsum("iod,bid->bio", W2, pose) + b2
    c = logits.softmax(dim=-1)
    ar = a.unsqueeze(-1) * c
    ar_sum = ar.sum(dim=1, keepdim=True)
    coeff = (ar / ar_sum).unsqueeze(-1)
    a_out = ar_sum / a.sum(dim=1, keepdim=True).unsqueeze(-1)
    u_hat = lib.einsum("iokd,bid->biok", W1, pose)
    pose_out = (coeff * u_hat).sum(dim=1)
    rec("a_out", a_out.squeeze(1))
    rec("pose_out", pose_out[0])
    out = F.log_softmax(a_out.squeeze(1), dim=-1)
    nll = F.nll_loss(out, lib.tensor([1, 0, 3]))
    (nll + pose_out.norm(dim=-1).mean()).backward()
    rec("nll", nll)
    rec("gW1", W1.grad[0, 0])
    rec("gW2", W2.grad[0])
    rec("gb2", b2.grad)
    # attention routing: queries are output capsule embeddings
    q = _x(lib, dt, B, 2, n_out, d_out, seed=43, requires_grad=True)
    k = u_hat.detach().permute(0, 2, 1, 3).reshape(B, n_out, n_in, d_out)[:, None].expand(
        -1, 2, -1, -1, -1).reshape(B, 2, n_out * n_in, d_out)  # fmt: skip
    o = F.scaled_dot_product_attention(q, k, k)
    rec("sdpa", o[0, 0])
    mask = lib.ones(n_out, n_out * n_in, dtype=lib.bool).tril(diagonal=n_in)
    o2 = F.scaled_dot_product_attention(q, k, k, attn_mask=mask, scale=0.5)
    rec("sdpa_mask", o2[1, 1])
    scores = (q @ k.transpose(-2, -1)) * 0.5
    scores = scores.masked_fill(~mask, float("-inf"))
    rec("sdpa_same", lib.allclose(scores.softmax(-1) @ k, o2))
    (o2.sum() + o.pow(2).sum()).backward()
    rec("g_q", q.grad[0, 0])
    # routing entropy by torch.distributions
    cat = lib.distributions.Categorical(probs=c)
    rec("entropy", cat.entropy())
    rec("xlogy", -lib.special.xlogy(c, c).sum(-1))
    rec("kl_uniform", lib.distributions.kl_divergence(
        cat, lib.distributions.Categorical(logits=lib.zeros_like(c))))  # fmt: skip


def p_matrix_caps(lib, dt, rec):
    """4x4 pose matrices: votes by matmul, coordinate addition, a class-capsule readout."""
    F = lib.nn.functional
    B, A, H, W_, C = 2, 3, 3, 3, 4
    P = 4
    pose = _x(lib, dt, B, A, H, W_, P, P, seed=44, requires_grad=True)
    act = lib.sigmoid(_x(lib, dt, B, A, H, W_, seed=45))
    Wt = _x(lib, dt, 1, A, 1, 1, C, P, P, seed=46, requires_grad=True)
    votes = pose.unsqueeze(4) @ Wt.transpose(1, 1)  # (B, A, H, W, C, P, P)
    rec("votes_shape", list(votes.shape))
    # coordinate addition: scaled centre coordinates added to the first two vote entries
    coords = (lib.arange(H, dtype=dt) + 0.5) / H
    cy, cx = lib.meshgrid(coords, coords, indexing="ij")
    add = lib.zeros(H, W_, P * P, dtype=dt)
    add[..., 0] = cy
    add[..., 1] = cx
    votes = votes.reshape(B, A, H, W_, C, P * P) + add[None, None, :, :, None, :]
    votes = votes.permute(0, 1, 2, 3, 4, 5).reshape(B, A * H * W_, C, P * P)
    a_in = act.reshape(B, -1, 1)
    rec("votes", votes[0, :2, 0])
    # one M-step
    R = lib.full((B, A * H * W_, C), 1.0 / C, dtype=dt) * a_in
    Rn = R / (R.sum(dim=1, keepdim=True) + 1e-8)
    mu = (Rn.unsqueeze(-1) * votes).sum(dim=1)
    var = (Rn.unsqueeze(-1) * (votes - mu.unsqueeze(1)).square()).sum(dim=1)
    rec("mu", mu[0])
    rec("var", var[1])
    logits = -lib.log(var + 1e-6).sum(-1)
    rec("logits", logits)
    loss = F.cross_entropy(logits, lib.tensor([2, 3]), label_smoothing=0.1)
    loss.backward()
    rec("loss", loss)
    rec("g_pose", pose.grad[0, 0, 0, 0])
    rec("g_W", Wt.grad[0, :, 0, 0, 1])
    # pose algebra
    M = pose.detach()[0, 0, 0, 0] + 2 * lib.eye(P, dtype=dt)
    rec("det", lib.linalg.det(M))
    rec("inv", lib.linalg.inv(M))
    rec("bmm", lib.bmm(M.expand(3, P, P), M.mT.expand(3, P, P))[2])
    rec("chain", lib.linalg.multi_dot([M, M.T, M]))
    rec("mpow", lib.linalg.matrix_power(M, 3))
    rec("trace", lib.einsum("...ii->...", pose.detach()[0, :, 0, 0]))
    rec("kron", lib.kron(M[:2, :2], lib.eye(2, dtype=dt)))


def p_capsule_hooks(lib, dt, rec):
    nn = lib.nn
    F = nn.functional

    class Routing(nn.Module):
        def __init__(self, n_in, n_out, d_in, d_out, iters=3):
            super().__init__()
            self.W = nn.Parameter(0.1 * lib.randn(n_in, n_out, d_out, d_in))
            self.iters = iters

        def forward(self, u):
            u_hat = lib.einsum("iodk,bik->biod", self.W, u)
            self.u_hat = u_hat
            u_hat.retain_grad()
            v, c = _route(lib, u_hat, self.iters)
            return v, c

    lib.manual_seed(47)
    enc = nn.Linear(5, 6 * 4)
    routing = Routing(6, 3, 4, 5)
    model = nn.ModuleDict({"enc": enc, "routing": routing}).to(dt)
    captured = {}

    def fwd_hook(mod, inp, out):
        captured["c"] = out[1].detach()
        captured["in_shape"] = list(inp[0].shape)

    def pre_hook(mod, args):
        return (args[0] * 2,)

    def bwd_hook(mod, grad_in, grad_out):
        captured["gout"] = grad_out[0].detach().clone()
        captured["n_gin"] = len(grad_in)

    h1 = routing.register_forward_hook(fwd_hook)
    h2 = routing.register_forward_pre_hook(pre_hook)
    h3 = enc.register_full_backward_hook(bwd_hook)
    x = _x(lib, dt, 2, 5, seed=48)
    u = _squash(lib, model["enc"](x).view(2, 6, 4))
    u.register_hook(lambda g: g * 0.5)
    v, c = model["routing"](u)
    loss = v.norm(dim=-1).sum()
    loss.backward()
    rec("c", captured["c"][0])
    rec("in_shape", captured["in_shape"])
    rec("gout", captured["gout"])
    rec("n_gin", captured["n_gin"])
    rec("u_hat_grad", routing.u_hat.grad[1, 0])
    rec("gW", routing.W.grad[0, 0])
    rec("g_enc", enc.weight.grad[:3])
    for h in (h1, h2, h3):
        h.remove()
    v2, _ = model["routing"](u.detach())
    rec("v2", v2)
    rec("mods", [n for n, _ in model.named_modules()])
    # per-parameter hooks and state_dict hooks
    seen = []
    routing.W.register_post_accumulate_grad_hook(lambda p: seen.append(float(p.grad.abs().sum())))
    routing.W.grad = None
    v3, _ = routing(u.detach())
    v3.sum().backward()
    rec("seen", seen)
    model.apply(lambda m: nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
    rec("bias", enc.bias)
    sd = model.state_dict(keep_vars=False)
    rec("sd_keys", list(sd))
    rec("sd_rg", [t.requires_grad for t in sd.values()])
    rec("softplus", F.softplus(v3, beta=2.0, threshold=1.0)[0])


def p_transformer_pool(lib, dt, rec):
    """Set encoders on nn.TransformerEncoder with padding masks, train and eval (fast path)."""
    nn = lib.nn
    lib.manual_seed(49)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).to(dt)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, add_bias_kv=True,
                                add_zero_attn=True).to(dt)  # fmt: skip
    seeds = nn.Parameter(_x(lib, dt, 1, 2, 8, seed=50))
    X = _x(lib, dt, 3, 5, 8, seed=51)
    pad = lib.tensor([[False] * 5, [False] * 3 + [True] * 2, [False, True, False, True, True]])
    Z = enc(X, src_key_padding_mask=pad)
    rec("Z", Z[1])
    pooled, w = mha(seeds.expand(3, -1, -1), Z, Z, key_padding_mask=pad)
    rec("pooled", pooled)
    rec("w", w)
    pooled.sum().backward()
    rec("g_seeds", seeds.grad)
    rec("g_bias_k", mha.bias_k.grad)
    enc.eval()
    mha.eval()
    with lib.no_grad():
        Ze = enc(X, src_key_padding_mask=pad)
        rec("Z_eval", Ze[1, :3])
        pe, _ = mha(seeds.expand(3, -1, -1), Ze, Ze, key_padding_mask=pad, need_weights=False)
        rec("pooled_eval", pe)
    # float additive masks and a causal mask
    fmask = lib.zeros(3, 5, dtype=dt).masked_fill(pad, float("-inf"))
    with lib.no_grad():
        Zf = enc(X, src_key_padding_mask=fmask)
    rec("Z_float_mask", Zf[2, 0])
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=dt)
    rec("causal", causal)
    with lib.no_grad():
        Zc = enc(X, mask=causal, is_causal=True)
    rec("Z_causal", Zc[0, :2])


def p_scae(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    D = lib.distributions
    g = lib.Generator().manual_seed(10)
    B, K, T = 2, 3, 5
    templates = lib.rand(K, 1, T, T, generator=g, dtype=dt).requires_grad_()
    pose = (0.3 * lib.randn(B, K, 6, generator=g, dtype=dt)).requires_grad_()
    # pose -> affine matrix
    sx, sy, th, shear, tx, ty = pose.unbind(-1)
    sx, sy = sx.sigmoid() + 0.5, sy.sigmoid() + 0.5
    cos, sin = th.cos(), th.sin()
    A = lib.stack(
        [lib.stack([sx * cos, -sy * sin + shear, tx], -1), lib.stack([sx * sin, sy * cos, ty], -1)],
        -2,
    )
    rec("A", A[0])
    grid = F.affine_grid(A.reshape(B * K, 2, 3), [B * K, 1, 8, 8], align_corners=False)
    rec("grid", grid[0, :2, :2])
    tmpl = templates[None].expand(B, -1, -1, -1, -1).reshape(B * K, 1, T, T)
    out = F.grid_sample(tmpl, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    out = out.view(B, K, 8, 8)
    rec("out", out[0, 0, 2:5, 2:5])
    out_b = F.grid_sample(tmpl, grid, mode="bilinear", padding_mode="border", align_corners=True)
    rec("out_b", out_b[1, 0, 3])
    out_n = F.grid_sample(
        tmpl, grid, mode="nearest", padding_mode="reflection", align_corners=False
    )
    rec("out_n", out_n[2, 0, 4])
    # image likelihood: a mixture over templates
    img = lib.rand(B, 8, 8, generator=g, dtype=dt)
    logits = lib.zeros(B, K, dtype=dt, requires_grad=True)
    mix = D.Categorical(logits=logits[:, None, None, :].expand(B, 8, 8, K))
    comp = D.Normal(out.permute(0, 2, 3, 1), 0.1)
    mm = D.MixtureSameFamily(mix, comp)
    ll = mm.log_prob(img)
    rec("ll", ll.sum(dim=(1, 2)))
    loss = -ll.mean()
    loss.backward()
    rec("g_templates", templates.grad[0, 0])
    rec("g_pose", pose.grad)
    rec("g_logits", logits.grad)
    rec("mm_mean", mm.mean[0, 0])
    rec("mm_var", mm.variance[1, 2])
    ind = D.Independent(D.Normal(out.detach().flatten(2), 0.2), 1)
    rec("ind", ind.log_prob(img.flatten(1)[:, None]))
    rec("ind_bs", [list(ind.batch_shape), list(ind.event_shape)])
    # sparsity losses on presence probabilities
    pres = lib.sigmoid(pose.detach()[..., 0])
    rec("prior_sp", (pres.sum(1) - K / 2).pow(2).mean())
    rec("post_sp", -D.Categorical(probs=pres / pres.sum(1, keepdim=True)).entropy().mean())


def p_deq_hook(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(5)
    f = nn.Sequential(nn.Linear(6, 6), nn.Tanh()).to(dt)
    inj = nn.Linear(4, 6).to(dt)
    g = lib.Generator().manual_seed(6)
    x = lib.randn(3, 4, generator=g, dtype=dt)
    xi = inj(x)

    def F_(z):
        return f(z) * 0.5 + xi

    with lib.no_grad():
        z = lib.zeros(3, 6, dtype=dt)
        for _ in range(60):
            z = F_(z)
    z = F_(z.requires_grad_())
    z0 = z.clone().detach().requires_grad_()
    f0 = F_(z0)
    log = []

    def backward_hook(grad):
        y = grad
        for _ in range(40):
            y = lib.autograd.grad(f0, z0, y, retain_graph=True)[0] + grad
        log.append(y.norm())
        return y

    z.register_hook(backward_hook)
    loss = (z**2).sum()
    loss.backward()
    rec("z", z)
    rec("y", log[0])
    rec("g_inj", inj.weight.grad)
    rec("g_f", f[0].weight.grad)


def p_iodine(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(7)
    K, D = 3, 5
    dec = nn.Sequential(nn.Linear(D, 16), nn.ELU(), nn.Linear(16, 8 + 1)).to(dt)
    refine = nn.GRUCell(2 * D, D).to(dt)
    ln = nn.LayerNorm(D).to(dt)
    g = lib.Generator().manual_seed(8)
    x = lib.randn(2, 8, generator=g, dtype=dt)
    lam = lib.zeros(2, K, D, dtype=dt, requires_grad=True)
    h = lib.zeros(2 * K, D, dtype=dt)
    total = 0
    for it in range(3):
        if not lam.requires_grad:
            lam.requires_grad_()
        out = dec(lam)
        mu, mlog = out[..., :8], out[..., 8:]
        m = mlog.softmax(dim=1)
        ll = lib.logsumexp(m.log() + lib.distributions.Normal(mu, 0.3).log_prob(x[:, None]), dim=1)
        nll = -ll.sum()
        total = total + nll * (it + 1) / 3
        (dlam,) = lib.autograd.grad(nll, lam, create_graph=True)
        inp = lib.cat([ln(lam), ln(dlam)], dim=-1).reshape(-1, 2 * D)
        h = refine(inp, h)
        lam = lam + h.view(2, K, D)
    total.backward()
    rec("total", total)
    rec("g_dec", dec[0].weight.grad)
    rec("g_ref", refine.weight_hh.grad)
    rec("g_ln", ln.weight.grad)


def p_custom_squash(lib, dt, rec):
    class Squash(lib.autograd.Function):
        @staticmethod
        def forward(ctx, s, eps):
            n2 = (s * s).sum(-1, keepdim=True)
            scale = n2 / (1 + n2) / lib.sqrt(n2 + eps)
            ctx.save_for_backward(s, n2)
            ctx.eps = eps
            return s * scale

        @staticmethod
        def backward(ctx, g):
            s, n2 = ctx.saved_tensors
            n = lib.sqrt(n2 + ctx.eps)
            a = n2 / (1 + n2) / n
            # d scale / d n2 * 2 s
            dscale = 1.0 / ((1 + n2) ** 2 * n) - n2 / (1 + n2) / (2 * n**3)
            return g * a + 2 * s * (g * s).sum(-1, keepdim=True) * dscale, None

    g = lib.Generator().manual_seed(9)
    s = lib.randn(3, 4, generator=g, dtype=dt, requires_grad=True)
    v = Squash.apply(s, 1e-8)
    rec("v", v)
    rec("fn", type(v.grad_fn).__name__)
    v.pow(2).sum().backward()
    rec("g", s.grad)
    if dt == lib.float64:
        rec(
            "gc",
            lib.autograd.gradcheck(lambda t: Squash.apply(t, 1e-8), (s.detach().requires_grad_(),)),
        )
    W = lib.randn(4, 4, generator=g, dtype=dt)
    with lib.autocast("cpu", dtype=lib.bfloat16):
        u = s @ W
        rec("ac_dtype", str(u.dtype))
        sm = u.softmax(-1)
        rec("ac_sm", str(sm.dtype))
        n = u.norm(dim=-1)
        rec("ac_norm", str(n.dtype))
        e = lib.einsum("ij,jk->ik", s, W)
        rec("ac_einsum", str(e.dtype))
        rec("ac_bmm", str(lib.bmm(s[None], W[None]).dtype))
        rec("ac_lse", str(lib.logsumexp(u, -1).dtype))
        rec("ac_sq", str((u**2).sum(-1).dtype))
        rec("ac_layer_norm", str(lib.nn.functional.layer_norm(u, (4,)).dtype))
        rec("ac_sqrt", str(u.float().sqrt().dtype))
        rec("ac_cdist", str(lib.cdist(u, u).dtype))
        rec("ac_gru", str(lib.nn.GRUCell(4, 4).to(dt)(u).dtype))
    rec("u", u)


def p_dtype_errors(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    other = lib.float32 if dt == lib.float64 else lib.float64
    g = lib.Generator().manual_seed(1)
    a = lib.randn(2, 3, 4, generator=g, dtype=dt)
    b = lib.randn(2, 4, 5, generator=g, dtype=other)
    rec.err("einsum", lambda: lib.einsum("bij,bjk->bik", a, b))
    rec.err("matmul", lambda: a @ b)
    rec.err("bmm", lambda: lib.bmm(a, b))
    rec.err("mm", lambda: a[0].mm(b[0]))
    rec.err("cdist", lambda: lib.cdist(a, b.transpose(1, 2)[:, :, :4]))
    gru = nn.GRUCell(4, 4).to(dt)
    rec.err("gru", lambda: gru(a[0].to(other)))
    rec.err("gru_h", lambda: gru(a[0, :, :4], lib.zeros(3, 4, dtype=other)))
    ln = nn.LayerNorm(4).to(dt)
    rec.err("ln", lambda: ln(a.to(other)))
    lin = nn.Linear(4, 2).to(dt)
    rec.err("linear", lambda: lin(a.to(other)))
    conv = nn.Conv2d(2, 2, 3).to(dt)
    rec.err("conv", lambda: conv(lib.zeros(1, 2, 5, 5, dtype=other)))
    rec.err("convT", lambda: nn.ConvTranspose2d(2, 2, 3).to(dt)(lib.zeros(1, 2, 5, 5, dtype=other)))
    mha = nn.MultiheadAttention(4, 2, batch_first=True).to(dt)
    rec.err("mha", lambda: mha(a.to(other), a.to(other), a.to(other)))
    rec.err("mha_mixed", lambda: mha(a, a.to(other), a))
    rec.err("sdpa", lambda: F.scaled_dot_product_attention(a, a.to(other), a))
    rec.err("gather_idx", lambda: a.gather(1, lib.zeros(2, 1, 4, dtype=lib.int32)))
    rec.err("one_hot_noncls", lambda: F.one_hot(lib.tensor([1, 2]), -2))
    rec.err("softmax_int", lambda: lib.tensor([1, 2]).softmax(0))
    rec.err("lse_int", lambda: lib.logsumexp(lib.tensor([1, 2]), 0))
    rec.err("norm_dtype", lambda: lib.linalg.vector_norm(a, dim=-1, dtype=lib.int64))
    rec.err("mse_dtype", lambda: F.mse_loss(a, a.to(other)))
    rec.err("margin_long", lambda: F.relu(0.9 - lib.tensor([1, 2])))
    rec.err("where", lambda: lib.where(a > 0, a, a.to(other)))
    rec.err("index_select_float", lambda: a.index_select(0, lib.tensor([0.0])))
    rec.err("masked_fill_float", lambda: a.masked_fill(a, 0.0))
    rec.err(
        "scatter_dtype",
        lambda: lib.zeros(2, 3, dtype=dt).scatter_(
            1, lib.tensor([[0], [1]]), lib.ones(2, 1, dtype=other)
        ),
    )
    rec.err("cat_dev", lambda: lib.cat([a, b.transpose(1, 2)[:, :3]], 1))
    rec.err("gru_cell_bad", lambda: nn.GRUCell(4, 0))
    rec.err("layer_norm_shape", lambda: F.layer_norm(a, (3, 5)))
    rec.err("slot_einsum_bad", lambda: lib.einsum("bid,bjd->bij", a, lib.zeros(2, 5, 3, dtype=dt)))
    rec.err("einsum_ellipsis", lambda: lib.einsum("...ij,...jk", a, a))
    rec.err("einsum_repeat_out", lambda: lib.einsum("ij,jk->ii", a[0], a[0].T))
    rec.err("einsum_char", lambda: lib.einsum("i1,1k->ik", a[0], a[0].T))
    rec.err("einsum_out_missing", lambda: lib.einsum("ij,jk->iz", a[0], a[0].T))
    rec.err("einsum_too_many", lambda: lib.einsum("ij->ij", a[0], a[0]))
    rec.err("einsum_dims", lambda: lib.einsum("ijk->i", a[0]))


def p_forward_ad(lib, dt, rec):
    fwAD = lib.autograd.forward_ad
    nn = lib.nn
    F = nn.functional
    g = lib.Generator().manual_seed(27)
    u = lib.randn(2, 5, 3, 4, generator=g, dtype=dt)
    t = lib.randn(2, 5, 3, 4, generator=g, dtype=dt)
    lib.manual_seed(28)
    gru = nn.GRUCell(4, 4).to(dt)
    ln = nn.LayerNorm(4).to(dt)
    mha = nn.MultiheadAttention(4, 2, batch_first=True).to(dt)
    with fwAD.dual_level():
        d = fwAD.make_dual(u, t)
        b = lib.zeros(2, 5, 3, dtype=dt)
        for _ in range(3):
            c = F.softmax(b, dim=2)
            v = _squash(lib, (c.unsqueeze(-1) * d).sum(1))
            b = b + lib.einsum("biok,bok->bio", d, v)
        p, tan = fwAD.unpack_dual(v)
        rec("v", p)
        rec("tan", tan)
        n = v.norm(dim=-1)
        rec("n_t", fwAD.unpack_dual(n).tangent)
        h = gru(d[:, 0, 0], ln(d[:, 1, 0]))
        rec("gru_t", fwAD.unpack_dual(h).tangent)
        o, w = mha(d[:, :, 0], d[:, :, 1], d[:, :, 2])
        rec("mha_t", fwAD.unpack_dual(o).tangent)
        rec("mha_wt", fwAD.unpack_dual(w).tangent)
        m = F.relu(0.9 - n).pow(2).sum()
        rec("m_t", fwAD.unpack_dual(m).tangent)
        lse = lib.logsumexp(d, dim=1)
        rec("lse_t", fwAD.unpack_dual(lse).tangent[0])
        nz = F.normalize(d, dim=-1)
        rec("nz_t", fwAD.unpack_dual(nz).tangent[0, 0])
        sdpa = F.scaled_dot_product_attention(d[:, :, 0], d[:, :, 1], d[:, :, 2])
        rec("sdpa_t", fwAD.unpack_dual(sdpa).tangent)
    jf = lib.autograd.functional.jacobian(
        lambda s: _squash(lib, s), u[0, 0, 0], strategy="forward-mode", vectorize=True
    )
    rec("jf", jf)
    hv = lib.autograd.functional.hvp(lambda s: _squash(lib, s).norm(), u[0, 0, 0], t[0, 0, 0])
    rec("hvp", hv[1])


def p_extremes(lib, dt, rec):
    F = lib.nn.functional
    s = lib.tensor(
        [[0.0, 0.0], [3.0, 4.0], [1e-30, 0.0], [1e30, 1e30]], dtype=dt, requires_grad=True
    )
    n = s.norm(dim=-1, keepdim=True)
    v = lib.where(n > 0, s / n, lib.zeros_like(s))
    (g,) = lib.autograd.grad(v.sum(), s)
    rec("where_nan", g)
    rec("v", v)
    n2 = (s**2).sum(-1, keepdim=True)
    (g2,) = lib.autograd.grad((n2.sqrt()).sum(), s)
    rec("sqrt_zero", g2)
    x = lib.tensor(
        [[float("-inf"), float("-inf")], [0.0, float("-inf")], [1e4, -1e4]],
        dtype=dt,
        requires_grad=True,
    )
    lse = lib.logsumexp(x, dim=1)
    rec("lse", lse)
    (gl,) = lib.autograd.grad(lse.sum(), x)
    rec("lse_g", gl)
    ls = F.log_softmax(x, dim=1)
    rec("ls", ls)
    (gls,) = lib.autograd.grad(ls[1:].sum(), x)
    rec("ls_g", gls)
    sm = F.softmax(x, dim=1)
    rec("sm", sm)
    (gsm,) = lib.autograd.grad((sm * lib.arange(2, dtype=dt)).sum(), x)
    rec("sm_g", gsm)
    c = lib.tensor([0.0, 0.5, 1.0], dtype=dt, requires_grad=True)
    ent = lib.xlogy(c, c)
    rec("xlogy", ent)
    (gx,) = lib.autograd.grad(ent.sum(), c)
    rec("xlogy_g", gx)
    ent2 = lib.special.entr(c)
    (ge,) = lib.autograd.grad(ent2.sum(), c)
    rec("entr_g", ge)
    ent3 = (c * c.log()).nan_to_num()
    (ge3,) = lib.autograd.grad(ent3.sum(), c)
    rec("nan_to_num_g", ge3)
    sp = lib.tensor([-100.0, 0.0, 25.0, 100.0], dtype=dt, requires_grad=True)
    rec("softplus", F.softplus(sp))
    rec("logsig", F.logsigmoid(sp))
    (gsp,) = lib.autograd.grad(F.logsigmoid(sp).sum() + F.softplus(sp, beta=0.5).sum(), sp)
    rec("g_sp", gsp)
    rec("sig", lib.sigmoid(sp * 10))
    tiny = lib.finfo(dt).tiny
    rec("tiny", tiny)
    rec("eps", lib.finfo(dt).eps)
    rec("log_clamp", lib.log(lib.clamp(c, min=tiny)))
    a = lib.tensor([1e-45, 1e-310, 0.0], dtype=dt, requires_grad=True)
    l2 = a.log()
    rec("log_sub", l2)
    (ga,) = lib.autograd.grad(l2.sum(), a)
    rec("log_sub_g", ga)
    rec("norm_big", lib.tensor([[1e200, 1e200]], dtype=dt).norm(dim=-1))
    rec("vnorm_big", lib.linalg.vector_norm(lib.tensor([1e20, 1e20], dtype=dt)))
    rec("norm_small", lib.tensor([1e-200, 1e-200], dtype=dt).norm())
    rec(
        "cos_big",
        F.cosine_similarity(
            lib.tensor([[1e200, 1.0]], dtype=dt), lib.tensor([[1e200, 2.0]], dtype=dt)
        ),
    )
    rec("normalize_small", F.normalize(lib.tensor([[1e-13, 0.0]], dtype=dt)))
    rec(
        "dist_big",
        lib.cdist(lib.tensor([[1e200, 0.0]], dtype=dt), lib.tensor([[0.0, 0.0]], dtype=dt)),
    )


def p_empty(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(22)
    u_hat = lib.zeros(0, 5, 3, 4, dtype=dt, requires_grad=True)
    b = lib.zeros(0, 5, 3, dtype=dt)
    c = b.softmax(2)
    v = _squash(lib, (c.unsqueeze(-1) * u_hat).sum(1))
    rec("v", v)
    rec("len", v.norm(dim=-1))
    rec.err("argmax_empty", lambda: v.norm(dim=-1).argmax(1))
    rec.err("max_empty", lambda: v.norm(dim=-1).max(1))
    rec.err("max_empty0", lambda: v.norm(dim=-1).max(0))
    rec("one_hot0", F.one_hot(lib.zeros(0, dtype=lib.long), 3))
    rec.err("one_hot_auto0", lambda: F.one_hot(lib.zeros(0, dtype=lib.long)))
    v.sum().backward()
    rec("g", u_hat.grad)
    # zero input capsules: sum over an empty dim gives zeros; squash of zero
    u2 = lib.zeros(2, 0, 3, 4, dtype=dt)
    s2 = (lib.zeros(2, 0, 3, 1, dtype=dt) * u2).sum(1)
    rec("s2", _squash(lib, s2))
    gru = nn.GRUCell(4, 4).to(dt)
    rec("gru0", gru(lib.zeros(0, 4, dtype=dt)))
    ln = nn.LayerNorm(4).to(dt)
    rec("ln0", ln(lib.zeros(2, 0, 4, dtype=dt)))
    mha = nn.MultiheadAttention(4, 2, batch_first=True).to(dt)
    o, w = mha(
        lib.zeros(2, 3, 4, dtype=dt), lib.zeros(2, 0, 4, dtype=dt), lib.zeros(2, 0, 4, dtype=dt)
    )
    rec("mha0", o)
    rec("mha0w", w)
    rec.err("mean_empty", lambda: lib.zeros(0, 3, dtype=dt).mean(0))
    rec("lse0", lib.logsumexp(lib.zeros(2, 0, dtype=dt), 1))
    rec(
        "einsum0",
        lib.einsum("bij,bjk->bik", lib.zeros(2, 3, 0, dtype=dt), lib.zeros(2, 0, 4, dtype=dt)),
    )
    rec("cdist0", lib.cdist(lib.zeros(2, 0, 3, dtype=dt), lib.zeros(2, 4, 3, dtype=dt)))
    conv = nn.Conv2d(1, 2, 3).to(dt)
    rec("conv0", conv(lib.zeros(0, 1, 5, 5, dtype=dt)))
    rec.err("sm_dim_empty", lambda: lib.zeros(0, dtype=dt).softmax(0))
    rec("margin0", F.relu(0.9 - lib.zeros(0, 3, dtype=dt)).pow(2).sum(1).mean())


def p_views_inplace(lib, dt, rec):
    g = lib.Generator().manual_seed(23)
    s = lib.randn(3, 4, 5, generator=g, dtype=dt, requires_grad=True)
    v = s.clone()
    v[:, 0] = _squash(lib, v[:, 0])
    v[:, 1:3] *= 2
    v.select(1, 3).tanh_()
    rec("v", v)
    rec("fn", type(v.grad_fn).__name__)
    rec.err("bw", lambda: v.sum().backward())
    rec("g", s.grad if s.grad is not None else "none")
    w = s.detach().clone().requires_grad_()
    y = w * 1
    yt = y.transpose(0, 1)
    yt.unsqueeze_(0)
    yt.squeeze_(0)
    yt.mul_(3)
    rec("y", y)
    y.pow(2).sum().backward()
    rec("gw", w.grad)
    rec.err("rg_nonleaf", lambda: (w * 2).requires_grad_(False))
    z = w.detach().clone().requires_grad_()
    zv = z.view(-1)
    rec.err("leaf_view_inplace", lambda: zv.add_(1))
    with lib.no_grad():
        zv.add_(1)
    rec("z", z[0, 0])
    e = w.detach() * 1
    e.requires_grad_()
    ev = e[0]
    out = (ev * 2).sum()
    e.data[0] = 0
    out.backward()
    rec("ge", e.grad[0])
    a = w.detach().clone().requires_grad_()
    b = a * 2
    bb = b.unbind(0)
    rec.err("unbind_inplace", lambda: bb[0].mul_(2))
    c = a * 2
    cs = c.split(2, dim=1)
    rec.err("split_inplace", lambda: cs[0].mul_(2))
    d = a.exp()
    dd = d[0]
    dd.mul_(2)
    rec.err("view_of_saved", lambda: d.sum().backward())
    f = a.sigmoid()
    f.detach().zero_()
    rec.err("detach_inplace_saved", lambda: f.sum().backward())


def p_gumbel_routing(lib, dt, rec):
    F = lib.nn.functional
    lib.manual_seed(3)
    x = lib.randn(4, 5, dtype=dt)
    rec("gs", F.gumbel_softmax(x, tau=0.5))
    rec("gsh", F.gumbel_softmax(x, tau=0.5, hard=True))
    d = lib.distributions.RelaxedOneHotCategorical(lib.tensor(0.7, dtype=dt), logits=x)
    rec("r", d.rsample())
    rec("lp", d.log_prob(d.rsample()))
    rec("exp", lib.empty(3, dtype=dt).exponential_())
    rec("mult", lib.multinomial(x.softmax(-1), 3))


def p_slot_init(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(2)
    gru = nn.GRUCell(4, 3).to(dt)
    x = lib.randn(4, dtype=dt)
    h = gru(x)
    rec("h", h)
    rec("h2", gru(x, h))
    ln = nn.LayerNorm(4, bias=False).to(dt)
    rec("ln", ln(x))
    rec("ln_keys", list(ln.state_dict()))
    ln2 = nn.LayerNorm(4, elementwise_affine=False).to(dt)
    rec("ln2", ln2(x))
    rec("repr", repr(ln) + repr(ln2) + repr(gru))
    emb = nn.Embedding(3, 4).to(dt)
    rec("emb", emb.weight)
    t = lib.empty(2, 3, 4, 5, dtype=dt)
    nn.init.xavier_uniform_(t)
    rec("xav", t[0, 0])
    nn.init.xavier_normal_(t, gain=nn.init.calculate_gain("relu"))
    rec("xavn", t[0, 0])
    nn.init.orthogonal_(t)
    rec("orth", t[0, 0])
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    rec("kn", t[0, 0])
    rec("rms", nn.RMSNorm(4).to(dt)(x))
    nn.init.sparse_(t[0, 0], 0.5)
    rec("sparse", t[0, 0])


def p_mha_variants(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(4)
    mha = nn.MultiheadAttention(8, 2, kdim=6, vdim=5, bias=False).to(dt)
    q = lib.randn(3, 2, 8, dtype=dt)
    k = lib.randn(4, 2, 6, dtype=dt)
    v = lib.randn(4, 2, 5, dtype=dt)
    o, w = mha(q, k, v, attn_mask=lib.tensor([[False, True, False, False]] * 3))
    rec("o", o)
    rec("w", w)
    rec("keys", list(mha.state_dict()))
    o, w = mha(q[:, 0], k[:, 0], v[:, 0])
    rec("o_unb", o)
    rec("w_unb", w)
    mha.eval()
    with lib.no_grad():
        o, w = mha(q, k, v, need_weights=False)
    rec("o_eval", o)
    rec("w_none", str(w))
    m2 = nn.MultiheadAttention(8, 4, dropout=0.0).to(dt)
    m2.eval()
    with lib.no_grad():
        o, w = m2(q, q, q, key_padding_mask=lib.tensor([[False, False, True], [False, True, True]]))
    rec("o2", o)
    rec("o2w", w)


def p_vmap_random(lib, dt, rec):
    func = lib.func
    lib.manual_seed(26)
    x = lib.zeros(4, 3, dtype=dt)
    rec("diff", func.vmap(lambda t: t + lib.randn(3, dtype=dt), randomness="different")(x))
    rec("same", func.vmap(lambda t: t + lib.randn(3, dtype=dt), randomness="same")(x))
    rec("diff_like", func.vmap(lambda t: lib.randn_like(t), randomness="different")(x))
    rec(
        "drop",
        func.vmap(lambda t: lib.nn.functional.dropout(t + 1, 0.5), randomness="different")(x),
    )
    rec("rand", func.vmap(lambda t: t + lib.rand(2, 3, dtype=dt), randomness="different")(x))
    rec("after", lib.randn(2, dtype=dt))
    rec.err("err", lambda: func.vmap(lambda t: t + lib.randn(3, dtype=dt))(x))


def p_grid_ops(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    g = lib.Generator().manual_seed(29)
    x = lib.randn(2, 8, 6, 6, generator=g, dtype=dt, requires_grad=True)
    p = x.unfold(2, 3, 2).unfold(3, 3, 2)  # (B, C, oh, ow, k, k)
    rec("p_shape", list(p.shape))
    rec("p_stride", list(p.stride()))
    caps = p.permute(0, 2, 3, 4, 5, 1).contiguous().view(2, -1, 8)
    v = _squash(lib, caps)
    rec("v", v[0, :3])
    xp = F.pad(x, (1, 1, 1, 1), mode="circular")
    rec("circ", xp[0, 0, :3, :3])
    xr = F.pad(x, (2, 0, 1, 0), mode="replicate")
    rec("repl", xr[1, 2, :3, :4])
    rec.err("refl_err", lambda: F.pad(x, (1, 2), mode="reflect"))
    xf = F.pad(x, (1, 2, 0, 1), mode="reflect")
    rec("refl", xf[0, 1, 0])
    mp, idx = F.max_pool2d(x, 2, return_indices=True)
    rec("idx", idx[0, 0])
    up = F.max_unpool2d(mp, idx, 2, output_size=x.shape[-2:])
    rec("unpool", up[0, 0, :3])
    ps = nn.PixelShuffle(2)(x)
    rec("ps", ps[0, 0, :3, :4])
    pu = nn.PixelUnshuffle(2)(ps)
    rec("pu_same", lib.equal(pu, x))
    rl = lib.roll(x, shifts=(1, -2), dims=(2, 3))
    rec("roll", rl[0, 0, 0])
    us = nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=True)(x)
    rec("us", us[0, 0, :2])
    us2 = F.interpolate(x, size=(4, 5), mode="bicubic", align_corners=False, antialias=True)
    rec("us2", us2[1, 1, 0])
    tot = (
        v.sum()
        + xp.pow(2).mean()
        + xr.sum()
        + xf.abs().sum()
        + up.sum()
        + ps.std()
        + rl[..., 0].sum()
        + us.sum()
        + us2.sum()
    )
    tot.backward()
    rec("g", x.grad[0, 0])


def p_graph_caps(lib, dt, rec):
    g = lib.Generator().manual_seed(31)
    N, E, D = 6, 10, 4
    x = lib.randn(N, D, generator=g, dtype=dt, requires_grad=True)
    src = lib.randint(0, N, (E,), generator=g)
    dst = lib.randint(0, N, (E,), generator=g)
    msg = _squash(lib, x[src] * 2)
    agg = lib.zeros(N, D, dtype=dt).index_add(0, dst, msg)
    rec("agg", agg)
    deg = lib.zeros(N, dtype=dt).scatter_add_(0, dst, lib.ones(E, dtype=dt))
    rec("deg", deg)
    mean = lib.zeros(N, D, dtype=dt).scatter_reduce(
        0, dst[:, None].expand(-1, D), msg, reduce="mean", include_self=False
    )
    rec("mean", mean)
    amax = lib.zeros(N, D, dtype=dt).scatter_reduce(
        0, dst[:, None].expand(-1, D), msg, reduce="amax", include_self=False
    )
    rec("amax", amax)
    logit = (x[src] * x[dst]).sum(-1)
    # segment softmax over incoming edges
    mx = lib.full((N,), float("-inf"), dtype=dt).scatter_reduce(0, dst, logit, reduce="amax")
    ex = (logit - mx[dst]).exp()
    den = lib.zeros(N, dtype=dt).index_add(0, dst, ex)
    alpha = ex / den[dst]
    rec("alpha", alpha)
    out = lib.zeros(N, D, dtype=dt).index_add(0, dst, alpha[:, None] * msg)
    (out.pow(2).sum() + amax.sum() + mean.sum()).backward()
    rec("g", x.grad)
    rec(
        "ms",
        lib.zeros(2, 3, dtype=dt).masked_scatter(
            lib.tensor([[True, False, True], [False, True, False]]), lib.arange(6, dtype=dt)
        ),
    )
    rec(
        "bucket",
        lib.bucketize(
            lib.tensor([0.1, 0.5, 0.9], dtype=dt), lib.tensor([0.2, 0.5, 0.8], dtype=dt), right=True
        ),
    )
    rec(
        "ss",
        lib.searchsorted(
            lib.tensor([0.2, 0.5, 0.8], dtype=dt), lib.tensor([0.5, 0.9], dtype=dt), side="right"
        ),
    )
    rec(
        "eb",
        lib.nn.functional.embedding_bag(
            lib.tensor([0, 2, 1, 3]),
            lib.arange(20, dtype=dt).view(5, 4),
            lib.tensor([0, 1]),
            mode="max",
        ),
    )


def p_legacy(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(21)
    rec.err(
        "sparse_torch_eye",
        lambda: lib.sparse.torch.eye(4).index_select(dim=0, index=lib.LongTensor([1, 3])),
    )
    rec.warns("mse_size_average", lambda: nn.MSELoss(size_average=False))
    rec.warns(
        "mse_fn_size_average", lambda: F.mse_loss(lib.ones(2), lib.zeros(2), size_average=False)
    )
    rec.warns("volatile", lambda: lib.autograd.Variable(lib.zeros(2), volatile=True))
    rec.warns("F_sigmoid", lambda: F.sigmoid(lib.zeros(2)))
    rec.warns("F_tanh", lambda: F.tanh(lib.zeros(2)))
    rec.warns("clip", lambda: nn.utils.clip_grad_norm(nn.Linear(2, 2).parameters(), 1.0))
    rec.warns("tensor_tensor", lambda: lib.tensor(lib.zeros(2)))
    rec.warns("zero_init", lambda: nn.init.xavier_uniform_(lib.empty(0, 3)))
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    rec.warns("nonleaf_grad", lambda: y.grad)
    rec.warns("enc_nested", lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2), 2))
    rec.warns("upsample", lambda: F.upsample(lib.zeros(1, 1, 2, 2), scale_factor=2))
    rec.warns(
        "upsample_bilinear", lambda: F.upsample_bilinear(lib.zeros(1, 1, 2, 2), scale_factor=2)
    )
    m = nn.Linear(2, 2)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    sch = lib.optim.lr_scheduler.StepLR(opt, 1)
    rec.warns("sched_order", lambda: sch.step())
    ft = lib.FloatTensor(2, 3)
    rec("ft", [list(ft.shape), str(ft.dtype)])
    rec("lt", lib.LongTensor([1, 2]))
    rec("type", lib.zeros(2, dtype=dt).type(lib.FloatTensor).dtype == lib.float32)
    rec("type_str", lib.zeros(2, dtype=dt).type())
    rec("dtype_new", lib.zeros(2, dtype=dt).data.new(2, 3).zero_())
    rec("new_tensor", lib.zeros(2, dtype=dt).new_tensor([1, 2]).dtype == dt)
    rec.warns("nll_reduce", lambda: F.nll_loss(lib.zeros(2, 3), lib.tensor([0, 1]), reduce=False))
    rec.warns("softmax2", lambda: F.softmax(lib.zeros(3)))
    rec.warns("log_softmax0", lambda: F.log_softmax(lib.zeros(2, 3, 4)))
    rec.warns("dropout_p", lambda: nn.Dropout2d(0.5)(lib.zeros(2, 3, 4)))
    rec.warns("gru_dropout", lambda: nn.GRU(2, 2, dropout=0.5))


def p_autograd_api(lib, dt, rec):
    g = lib.Generator().manual_seed(33)
    W = lib.randn(4, 3, generator=g, dtype=dt, requires_grad=True)
    x = lib.randn(5, 4, generator=g, dtype=dt, requires_grad=True)
    v = _squash(lib, x @ W)
    v.sum().backward(inputs=[W], retain_graph=True)
    rec("gW", W.grad)
    rec("gx_none", x.grad is None)
    v.pow(2).sum().backward(inputs=[x, W])
    rec("gW2", W.grad)
    rec("gx", x.grad)
    y = _squash(lib, x @ W)
    basis = lib.eye(15, dtype=dt).view(15, 5, 3)
    (jac,) = lib.autograd.grad(y, x, basis, is_grads_batched=True, retain_graph=True)
    rec("jac", jac[:4, 0])
    gu = lib.autograd.grad(
        y.sum(),
        [x, W, lib.zeros(1, dtype=dt, requires_grad=True)],
        allow_unused=True,
        materialize_grads=True,
        retain_graph=True,
    )
    rec("mat", gu[2])
    lib.autograd.backward(
        [y.sum(), (y * 2).sum()],
        grad_tensors=[lib.tensor(1.0, dtype=dt), lib.tensor(0.5, dtype=dt)],
    )
    rec("gW3", W.grad)
    slots = lib.zeros(2, 3, dtype=dt, requires_grad=True)
    opt = lib.optim.SGD([slots], lr=0.5)
    target = lib.randn(2, 3, generator=g, dtype=dt)
    for i in range(3):
        opt.zero_grad()
        loss = (_squash(lib, slots + 0.1) - target).pow(2).sum()
        loss.backward()
        opt.step()
        rec(f"slots{i}", slots)
    with lib.no_grad():
        z = slots.clone()
        with lib.enable_grad():
            z.requires_grad_()
            cube = (z**3).sum()
            (gz,) = lib.autograd.grad(cube, z)
        rec("gz", gz)
        rec("z_rg", z.requires_grad)
    rec("anomaly", lib.is_anomaly_enabled())
    with lib.autograd.detect_anomaly(check_nan=True):
        a = lib.tensor([0.0, 1.0], dtype=dt, requires_grad=True)
        b = a.sqrt()
        rec.err("anom", lambda: (b * 0).sum().backward())
        rec.err("anom2", lambda: lib.autograd.grad(lib.where(a > 0, a.log(), a).sum(), a))


def p_mha_masks(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(40)
    mha = nn.MultiheadAttention(6, 3, batch_first=True).to(dt)
    g = lib.Generator().manual_seed(41)
    q = lib.randn(2, 4, 6, generator=g, dtype=dt)
    kv = lib.randn(2, 5, 6, generator=g, dtype=dt)
    kpm_b = lib.tensor([[False, False, False, True, True], [False] * 5])
    kpm_f = lib.zeros(2, 5, dtype=dt).masked_fill(kpm_b, float("-inf"))
    am_b = lib.zeros(4, 5, dtype=lib.bool)
    am_b[0, 1] = True
    am_f = lib.zeros(4, 5, dtype=dt)
    am_f[1, 2] = -2.0
    am3 = lib.randn(6, 4, 5, generator=g, dtype=dt)
    for name, kw in [
        ("b_b", dict(key_padding_mask=kpm_b, attn_mask=am_b)),
        ("f_f", dict(key_padding_mask=kpm_f, attn_mask=am_f)),
        ("b_f", dict(key_padding_mask=kpm_b, attn_mask=am_f)),
        ("f_b", dict(key_padding_mask=kpm_f, attn_mask=am_b)),
        ("am3", dict(attn_mask=am3)),
        ("am3_kpm", dict(attn_mask=am3, key_padding_mask=kpm_b)),
        ("int_mask", dict(key_padding_mask=kpm_b.long())),
    ]:
        out = rec.warns(
            name + "_w", lambda n=name, kw=kw: rec.err(n + "_e", lambda: mha(q, kv, kv, **kw))
        )
        if out is not None:
            rec(name, out[0])
            rec(name + "_attn", out[1])
    rec.err("am_bad", lambda: mha(q, kv, kv, attn_mask=lib.zeros(3, 5, dtype=lib.bool)))
    rec.err("am3_bad", lambda: mha(q, kv, kv, attn_mask=lib.zeros(2, 4, 5, dtype=lib.bool)))
    rec.err("causal_no_mask", lambda: mha(q, q, q, is_causal=True))
    cm = nn.Transformer.generate_square_subsequent_mask(4)
    o, w = mha(q, q, q, attn_mask=cm.to(dt), is_causal=True)
    rec("causal", o)
    mha.eval()
    with lib.no_grad():
        o, w = mha(q, kv, kv, key_padding_mask=kpm_b, need_weights=False)
        rec("fast", o)
        o, w = mha(q, q, q, key_padding_mask=kpm_b[:, :4], need_weights=False)
        rec("fast_self", o)
    rec("sdpa_b", F.scaled_dot_product_attention(q, kv, kv, attn_mask=~am_b))
    rec("sdpa_c", F.scaled_dot_product_attention(q, q, q, is_causal=True))
    rec.err(
        "sdpa_both",
        lambda: F.scaled_dot_product_attention(q, q, q, attn_mask=am_f[:, :4], is_causal=True),
    )
    rec(
        "sdpa_gqa",
        F.scaled_dot_product_attention(
            q.view(2, 4, 2, 3).transpose(1, 2).repeat(1, 2, 1, 1),
            kv.view(2, 5, 2, 3).transpose(1, 2),
            kv.view(2, 5, 2, 3).transpose(1, 2),
            enable_gqa=True,
        ),
    )


def p_softmax_dtypes(lib, dt, rec):
    F = lib.nn.functional
    g = lib.Generator().manual_seed(52)
    x = lib.randn(3, 4, generator=g, dtype=lib.float32, requires_grad=True)
    other = lib.float64
    outs = {
        "sm": F.softmax(x, -1, dtype=other),
        "lsm": F.log_softmax(x, 1, dtype=other),
        "tsm": x.softmax(0, dtype=other),
        "sum": x.sum(1, dtype=other),
        "mean": x.mean(dtype=other),
        "vn": lib.linalg.vector_norm(x, dim=-1, dtype=other),
        "cumsum": x.cumsum(1, dtype=other),
        "prod": x.prod(1, dtype=other),
        "nansum": lib.nansum(x, 1, dtype=other),
        "lse": lib.logsumexp(x.to(other), 1),
        "softmin": F.softmin(x, 1, dtype=other),
        "sm16": F.softmax(x, -1, dtype=lib.float16),
        "norm_dtype": lib.norm(x, dim=1, dtype=other),
        "mn": lib.linalg.matrix_norm(x, dtype=other),
    }
    for k, v in outs.items():
        rec(k, v)
        w = lib.arange(v.numel(), dtype=v.dtype).reshape(v.shape)
        (gx,) = lib.autograd.grad((v * w).sum(), x)
        rec("g_" + k, gx)
    rec.err("sm_int", lambda: F.softmax(x, -1, dtype=lib.int64))
    rec.err("sum_int", lambda: x.sum(dtype=lib.int32))


def p_mvn_em(lib, dt, rec):
    D = lib.distributions
    g = lib.Generator().manual_seed(53)
    B, n_in, n_out, P = 2, 5, 3, 4
    votes = lib.randn(B, n_in, n_out, P, generator=g, dtype=dt, requires_grad=True)
    mu = votes.mean(1, keepdim=True)
    sig = votes.std(1, keepdim=True) + 0.1
    mvn = D.MultivariateNormal(mu, scale_tril=lib.diag_embed(sig))
    lp = mvn.log_prob(votes)
    rec("lp", lp)
    rec("bs", [list(mvn.batch_shape), list(mvn.event_shape)])
    ind = D.Independent(D.Normal(mu, sig), 1)
    rec("same", lib.allclose(ind.log_prob(votes), lp))
    cov = lib.diag_embed(sig**2) + 0.05 * lib.ones(P, P, dtype=dt)
    mvn2 = D.MultivariateNormal(mu, covariance_matrix=cov)
    rec("lp2", mvn2.log_prob(votes))
    rec("ent2", mvn2.entropy())
    lr = D.LowRankMultivariateNormal(mu, lib.full((1, 1, n_out, P, 1), 0.2236, dtype=dt), sig**2)
    rec("lr", lr.log_prob(votes))
    R = (lp + lib.log(lib.tensor(1.0 / n_out, dtype=dt))).softmax(dim=-1)
    rec("R", R)
    kl = D.kl_divergence(mvn, mvn2)
    rec("kl", kl)
    (lp.sum() + kl.sum() + lr.log_prob(votes).sum()).backward()
    rec("g", votes.grad[0, 0])
    rec("prec", mvn2.precision_matrix[0, 0, 0])
    rec("cdf", D.Normal(mu, sig).cdf(votes)[0, 0])
    rec("icdf", D.Normal(mu, sig).icdf(lib.full_like(votes, 0.3))[1, 1])
    mix = D.MixtureSameFamily(
        D.Categorical(logits=lib.zeros(B, n_in, n_out, dtype=dt)),
        D.Independent(D.Normal(votes.detach(), sig.detach()), 1),
    )
    rec("mix", mix.log_prob(lib.zeros(B, n_in, P, dtype=dt)))


def p_layer_errors(lib, dt, rec):
    nn = lib.nn
    F = nn.functional
    g = lib.Generator().manual_seed(54)
    x = lib.randn(2, 3, 4, 4, generator=g, dtype=dt)
    i = lib.tensor([[0, 1], [1, 2]])
    cases = {
        "cdist_p": lambda: lib.cdist(x[0], x[1], p=-1.0),
        "cdist_dim": lambda: lib.cdist(x[0, 0], x[1, 0, :, :3]),
        "grid_mode": lambda: F.grid_sample(x, lib.zeros(2, 2, 2, 2, dtype=dt), mode="box"),
        "grid_pad": lambda: F.grid_sample(x, lib.zeros(2, 2, 2, 2, dtype=dt), padding_mode="foo"),
        "grid_shape": lambda: F.grid_sample(x, lib.zeros(2, 2, 2, 3, dtype=dt)),
        "affine_shape": lambda: F.affine_grid(lib.zeros(2, 3, 3, dtype=dt), [2, 1, 4, 4]),
        "affine_size": lambda: F.affine_grid(lib.zeros(2, 2, 3, dtype=dt), [3, 1, 4, 4]),
        "unfold_k": lambda: F.unfold(x, 5),
        "unfold_dim": lambda: F.unfold(x[0, 0], 2),
        "fold_bad": lambda: F.fold(lib.zeros(2, 5, 9, dtype=dt), (4, 4), 2),
        "tunfold": lambda: x.unfold(2, 5, 1),
        "tunfold_step": lambda: x.unfold(2, 2, 0),
        "unpool": lambda: F.max_unpool2d(
            x, lib.zeros(2, 3, 4, 4, dtype=lib.long), 2, output_size=(3, 3)
        ),
        "pool_k": lambda: F.max_pool2d(x, 5),
        "avg_pad": lambda: F.avg_pool2d(x, 2, padding=2),
        "conv_ch": lambda: F.conv2d(x, lib.zeros(2, 4, 3, 3, dtype=dt)),
        "conv_groups": lambda: F.conv2d(x, lib.zeros(2, 3, 3, 3, dtype=dt), groups=2),
        "convT_out": lambda: F.conv_transpose2d(
            x, lib.zeros(3, 2, 3, 3, dtype=dt), output_padding=3, stride=2
        ),
        "interp": lambda: F.interpolate(x, scale_factor=0.5, mode="linear"),
        "interp_both": lambda: F.interpolate(x, size=3, scale_factor=2),
        "pixel": lambda: F.pixel_shuffle(x, 2),
        "pad_big": lambda: F.pad(x, (5, 5), mode="reflect"),
        "gather_shape": lambda: x[0, 0].gather(1, lib.zeros(5, 2, dtype=lib.long)),
        "scatter_shape": lambda: x[0, 0].scatter(0, lib.zeros(5, 2, dtype=lib.long), 1.0),
        "index_add_shape": lambda: x[0, 0].index_add(0, i[0], lib.zeros(3, 4, dtype=dt)),
        "scatter_reduce": lambda: x[0, 0].scatter_reduce(0, i, x[0, 0, :2, :2], reduce="foo"),
        "ln_eps": lambda: F.layer_norm(x, (4, 4), weight=lib.ones(4, dtype=dt)),
        "gn": lambda: F.group_norm(x, 2),
        "mha_q": lambda: F.scaled_dot_product_attention(x, x[..., :3], x),
        "topk": lambda: x.topk(5, dim=-1),
        "kth": lambda: x.kthvalue(0, dim=-1),
        "multinomial": lambda: lib.multinomial(x.flatten().abs(), 0),
        "multinomial2": lambda: lib.multinomial(x.abs()[0, 0], 5),
        "repeat_interleave": lambda: lib.repeat_interleave(x[0, 0, 0], lib.tensor([1, 2])),
        "bincount": lambda: lib.bincount(lib.tensor([0, 1]), minlength=-1),
        "histc": lambda: lib.histc(x, bins=0),
        "cross_entropy_shape": lambda: F.cross_entropy(x[:, :, 0, 0], lib.tensor([0, 1, 2])),
        "nll_dim": lambda: F.nll_loss(x[0, 0], lib.tensor([0, 1, 2])),
        "ce_ls": lambda: F.cross_entropy(x[:, :, 0, 0], lib.tensor([0, 1]), label_smoothing=1.5),
        "margin_dims": lambda: F.multi_margin_loss(x[:, :, 0, 0], lib.tensor([0, 1]), p=3),
        "norm_p": lambda: lib.linalg.vector_norm(x, ord="fro"),
        "mnorm": lambda: lib.linalg.matrix_norm(x[0, 0, 0]),
        "normalize_p": lambda: F.normalize(x, p=0),
        "embedding_dim": lambda: F.embedding(i.float(), x[0, 0]),
        "one_hot_float": lambda: F.one_hot(x.long().abs()[0, 0, 0], 2),
        "split": lambda: x.split([1, 1], dim=1),
        "chunk0": lambda: x.chunk(0),
        "view_neg": lambda: x.view(-1, -1),
        "expand_neg": lambda: x[0, 0].expand(-1, -2),
        "permute_dup": lambda: x.permute(0, 1, 1, 2),
        "flatten_bad": lambda: x.flatten(3, 1),
        "movedim": lambda: x.movedim((0, 0), (1, 2)),
        "squeeze_dim": lambda: x.squeeze((0, 5)),
        "einsum_out": lambda: lib.einsum("bchw->bcz", x),
    }
    for k, f in cases.items():
        rec.err(k, f)
